/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of report/core/runs.c, the sides of a comparison: a file, a
 * comma list of runs, a file whose name has a comma, the messages for
 * empty names and too many runs, and perf diff's defaults (prec's pair,
 * else perf's) in a folder made for the test.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "report/core/runs.h"

static void touch(const char *path)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fclose(f);
}

static int in_tmp(void **state)
{
	char tmpl[] = "/tmp/test_runs.XXXXXX";
	char *d = mkdtemp(tmpl);

	assert_non_null(d);
	*state = strdup(d);
	return chdir(d);
}

static int out_tmp(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", (char *)*state);
	free(*state);
	return chdir("/") || system(cmd);
}

static void test_lists(void **state)
{
	struct run_list r;
	struct err err = { 0 };
	char many[64 * 4 + 8] = "";

	(void)state;
	assert_int_equal(run_list_parse(&r, "OLD", "a.data", &err), 0);
	assert_int_equal(r.nr, 1);
	assert_string_equal(r.path[0], "a.data");
	run_list_free(&r);
	assert_int_equal(run_list_parse(&r, "--base", "a1,a2,a3", &err), 0);
	assert_int_equal(r.nr, 3);
	assert_string_equal(r.path[2], "a3");
	assert_string_equal(r.label, "a1,a2,a3");
	run_list_free(&r);
	/* a file that is there is a file, comma and all */
	touch("x,y.data");
	assert_int_equal(run_list_parse(&r, "NEW", "x,y.data", &err), 0);
	assert_int_equal(r.nr, 1);
	run_list_free(&r);
	assert_int_equal(run_list_parse(&r, "--base", "a,,b", &err), -EINVAL);
	assert_string_equal(err.msg, "--base 'a,,b': an empty file name in the list");
	run_list_free(&r);
	assert_int_equal(run_list_parse(&r, "--new", ",", &err), -EINVAL);
	run_list_free(&r);
	for (int i = 0; i < 65; i++)
		strcat(many, i ? ",r" : "r");
	assert_int_equal(run_list_parse(&r, "NEW", many, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "more than 64 runs"));
	run_list_free(&r);
	run_list_free(NULL);
}

static void test_defaults(void **state)
{
	const char *old = NULL, *new_ = NULL;

	(void)state;
	/* nothing here: prec's names (the caller's open says what is missing) */
	assert_false(runs_defaults(false, false, &old, &new_));
	assert_string_equal(old, "prec.data.old");
	assert_string_equal(new_, "prec.data");
	/* perf's pair alone: taken */
	touch("perf.data.old");
	touch("perf.data");
	assert_true(runs_defaults(false, false, &old, &new_));
	assert_string_equal(old, "perf.data.old");
	assert_string_equal(new_, "perf.data");
	/* a NEW given keeps it; OLD given: nothing changes */
	new_ = "mine.data";
	assert_true(runs_defaults(false, true, &old, &new_));
	assert_string_equal(new_, "mine.data");
	old = "given";
	assert_false(runs_defaults(true, true, &old, &new_));
	assert_string_equal(old, "given");
	/* prec's own .old wins */
	touch("prec.data.old");
	assert_false(runs_defaults(false, false, &old, &new_));
	assert_string_equal(old, "prec.data.old");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_lists, in_tmp, out_tmp),
		cmocka_unit_test_setup_teardown(test_defaults, in_tmp, out_tmp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
