/* SPDX-License-Identifier: MIT */
/*
 * record/cgroup.c: how -G lists are assigned to events (perf's rules) and
 * the mount-option match that finds a perf_event cgroup hierarchy. libprec
 * does not hold record/: the files are included directly.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "record/cgroup.c"
#include "record/synth.c"

static void test_assign(void **state)
{
	const char *names[4] = { 0 };
	struct err err = { 0 };
	size_t given = 0;

	(void)state;
	/* events first */
	assert_int_equal(cgroup_list_assign("-G", "a", 0, names, &given, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "before the cgroups"));
	/* one name in all: every event so far */
	assert_int_equal(cgroup_list_assign("-G", "a", 3, names, &given, &err), 0);
	assert_string_equal(names[0], "a");
	assert_string_equal(names[1], "a");
	assert_string_equal(names[2], "a");
	assert_null(names[3]);
	/* a second -G goes on with the next event, and spreads nothing */
	assert_int_equal(cgroup_list_assign("-G", "b", 3, names, &given, &err), 0);
	assert_string_equal(names[1], "b");
	assert_string_equal(names[2], "a");
	assert_int_equal(given, 2);
	cgroup_names_free(names, 4);
}

static void test_list(void **state)
{
	const char *names[4] = { 0 };
	struct err err = { 0 };
	size_t given = 0;

	(void)state;
	/* an empty name leaves its event out */
	assert_int_equal(cgroup_list_assign("-G", "a,,c", 4, names, &given, &err), 0);
	assert_string_equal(names[0], "a");
	assert_null(names[1]);
	assert_string_equal(names[2], "c");
	assert_null(names[3]);
	assert_int_equal(given, 3);
	cgroup_names_free(names, 4);
	/* more names than events */
	given = 0;
	memset(names, 0, sizeof(names));
	assert_int_equal(cgroup_list_assign("-G", "a,b,c", 2, names, &given, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "more cgroups than events"));
	cgroup_names_free(names, 4);    /* what was taken before the refusal */
}

static void test_mount_option(void **state)
{
	(void)state;
	assert_true(has_option("rw,relatime,perf_event", "perf_event"));
	assert_true(has_option("perf_event,rw", "perf_event"));
	assert_false(has_option("rw,relatime,cpu", "perf_event"));
	assert_false(has_option("rw,xperf_event", "perf_event"));
	assert_false(has_option("rw,perf_eventx", "perf_event"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_assign),
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_mount_option),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
