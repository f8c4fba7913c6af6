/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the log callback (common/log.c): a handler gets each
 * message of the levels it asked for, whole, with its level; without one
 * nothing is said; report code warns through it instead of writing to
 * stderr.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/log.h"
#include "report/symbols/symbols.h"

#define KEPT_MAX 8

/* What the test handler was told. */
struct kept {
	size_t n;
	enum log_level level[KEPT_MAX];
	char *msg[KEPT_MAX];
};

static void keep(void *ctx, enum log_level level, const char *msg)
{
	struct kept *k = ctx;

	assert_true(k->n < KEPT_MAX);
	k->level[k->n] = level;
	k->msg[k->n] = strdup(msg);
	assert_non_null(k->msg[k->n]);
	k->n++;
}

static int clear(void **state)
{
	(void)state;
	log_set_handler(NULL, NULL, 0);
	return 0;
}

static void kept_free(struct kept *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->msg[i]);
	k->n = 0;
}

static void test_levels(void **state)
{
	struct kept k = { 0 };

	(void)state;
	log_set_handler(keep, &k, LOG_ALL);
	log_msg(LOG_WARNING, "%s: %d records", "a.data", 3);
	log_msg(LOG_ERROR, "cannot open '%s'", "b.data");
	log_msg(LOG_NOTE, "done");
	log_msg(LOG_PROGRESS, "%s", "");
	assert_int_equal(k.n, 4);
	assert_int_equal(k.level[0], LOG_WARNING);
	assert_string_equal(k.msg[0], "a.data: 3 records");
	assert_int_equal(k.level[1], LOG_ERROR);
	assert_string_equal(k.msg[1], "cannot open 'b.data'");
	assert_int_equal(k.level[2], LOG_NOTE);
	assert_string_equal(k.msg[2], "done");
	assert_int_equal(k.level[3], LOG_PROGRESS);
	assert_string_equal(k.msg[3], "");
	kept_free(&k);
}

static void test_mask(void **state)
{
	struct kept k = { 0 };

	(void)state;
	log_set_handler(keep, &k, LOG_ALL & ~LOG_MASK(LOG_PROGRESS));
	assert_true(log_wants(LOG_WARNING));
	assert_false(log_wants(LOG_PROGRESS));
	assert_false(log_wants(LOG_NR_LEVELS));
	assert_false(log_wants((enum log_level)-1));
	log_msg(LOG_PROGRESS, "reading %s", "x");
	log_msg(LOG_WARNING, "kept");
	assert_int_equal(k.n, 1);
	assert_string_equal(k.msg[0], "kept");
	kept_free(&k);
}

static void test_no_handler(void **state)
{
	struct kept k = { 0 };

	(void)state;
	log_set_handler(NULL, &k, LOG_ALL);
	for (int l = 0; l < LOG_NR_LEVELS; l++)
		assert_false(log_wants((enum log_level)l));
	log_msg(LOG_ERROR, "%s", "nobody hears this");
	log_set_handler(keep, &k, 0);
	log_msg(LOG_WARNING, "%s", "nor this");
	assert_int_equal(k.n, 0);
}

static void test_long_message(void **state)
{
	struct kept k = { 0 };
	size_t len = 5000;
	char *path = malloc(len + 1);

	(void)state;
	assert_non_null(path);
	memset(path, 'p', len);
	path[len] = 0;
	log_set_handler(keep, &k, LOG_MASK(LOG_WARNING));
	log_msg(LOG_WARNING, "%s: damaged", path);
	assert_int_equal(k.n, 1);
	assert_int_equal(strlen(k.msg[0]), len + strlen(": damaged"));
	assert_memory_equal(k.msg[0], path, len);
	assert_string_equal(k.msg[0] + len, ": damaged");
	kept_free(&k);
	free(path);
}

static void test_tags(void **state)
{
	(void)state;
	assert_string_equal(log_level_tag(LOG_WARNING), "warning: ");
	assert_string_equal(log_level_tag(LOG_ERROR), "");
	assert_string_equal(log_level_tag(LOG_NOTE), "");
}

/* The symbolizer without a warn callback of its own warns through the log
 * (it used to print "prep: warning: ..." itself). */
static void test_symbolizer_warns_through_log(void **state)
{
	struct symbolizer_opts o = { .kallsyms_path = "/nonexistent/kallsyms", .buildid_dir = "" };
	struct kept k = { 0 };
	struct symbolizer *s;
	struct sym_info si;

	(void)state;
	log_set_handler(keep, &k, LOG_ALL);
	s = symbolizer_new(&o);
	assert_non_null(s);
	assert_int_equal(symbolizer_kernel_lookup(s, 0xffffffff81000000ull, &si, NULL), 0);
	symbolizer_free(s);
	assert_int_equal(k.n, 1);
	assert_int_equal(k.level[0], LOG_WARNING);
	assert_string_equal(k.msg[0], "cannot read /nonexistent/kallsyms: kernel addresses stay "
			    "unresolved");
	kept_free(&k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_levels, clear),
		cmocka_unit_test_teardown(test_mask, clear),
		cmocka_unit_test_teardown(test_no_handler, clear),
		cmocka_unit_test_teardown(test_long_message, clear),
		cmocka_unit_test_teardown(test_tags, clear),
		cmocka_unit_test_teardown(test_symbolizer_warns_through_log, clear),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
