/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the reading core's configuration: the filters compiled
 * once (report/core/filter.c).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/core/filter.h"

static void test_filter_ids(void **state)
{
	struct load_filter_opts fo = { .pids = "30,7,0,007", .tids = "100", .cpus = "0-2,5,64" };
	struct filter f;

	(void)state;
	assert_int_equal(filter_compile(&f, &fo, NULL), 0);
	assert_true(filter_ids_wanted(&f, 7, 100, 0));
	assert_true(filter_ids_wanted(&f, 30, 100, 2));
	assert_true(filter_ids_wanted(&f, 0, 100, 5));
	assert_true(filter_ids_wanted(&f, 0, 100, 64));
	/* "007" was compared as text: it named no pid */
	assert_int_equal(f.pids.nr, 3);
	assert_false(filter_ids_wanted(&f, 8, 100, 0));
	assert_false(filter_ids_wanted(&f, 7, 101, 0));
	assert_false(filter_ids_wanted(&f, 7, 100, 3));
	assert_false(filter_ids_wanted(&f, 7, 100, 63));
	assert_false(filter_ids_wanted(&f, 7, 100, 65));
	assert_false(filter_ids_wanted(&f, 7, 100, 0xffffffffu));
	assert_int_equal(f.cpus.max, 64);
	filter_free(&f);
	/* nothing asked: everything passes */
	memset(&fo, 0, sizeof(fo));
	assert_int_equal(filter_compile(&f, &fo, NULL), 0);
	assert_true(filter_ids_wanted(&f, 1, 2, 3));
	assert_true(filter_name_wanted(&f.comms, "x"));
	assert_true(filter_time_wanted(&f.time, 5, 0, 0));
	assert_true(filter_frame_wanted(&f, NULL, NULL, NULL));
	assert_false(filter_by_frame(&f));
	filter_free(&f);
}

static void test_filter_names(void **state)
{
	struct load_filter_opts fo = { .comms = "tree,a b,sh", .dsos = "libc.so.6,/bin/app",
				       .syms = "main,f" };
	struct filter f;

	(void)state;
	assert_int_equal(filter_compile(&f, &fo, NULL), 0);
	assert_true(filter_name_wanted(&f.comms, "tree"));
	assert_true(filter_name_wanted(&f.comms, "a b"));
	assert_true(filter_name_wanted(&f.comms, "sh"));
	assert_false(filter_name_wanted(&f.comms, "s"));
	assert_false(filter_name_wanted(&f.comms, "tree2"));
	assert_false(filter_name_wanted(&f.comms, ""));
	assert_true(filter_by_frame(&f));
	/* --dso: the short name or the path */
	assert_true(filter_frame_wanted(&f, "libc.so.6", "/usr/lib/libc.so.6", "main"));
	assert_true(filter_frame_wanted(&f, "app", "/bin/app", "f"));
	assert_false(filter_frame_wanted(&f, "app", "/usr/bin/app", "f"));
	assert_false(filter_frame_wanted(&f, NULL, NULL, "main"));
	/* --symbols: the symbol, and none is not one of them */
	assert_false(filter_frame_wanted(&f, "libc.so.6", "/lib/libc.so.6", "g"));
	assert_false(filter_frame_wanted(&f, "libc.so.6", "/lib/libc.so.6", NULL));
	filter_free(&f);
}

static void test_filter_time(void **state)
{
	struct load_filter_opts fo = { .time = "1.5,2" };
	struct filter f;

	(void)state;
	assert_int_equal(filter_compile(&f, &fo, NULL), 0);
	assert_int_equal(f.time.start, 1500000000);
	assert_int_equal(f.time.end, 2000000000);
	assert_false(filter_time_wanted(&f.time, 1499999999, 0, 0));
	assert_true(filter_time_wanted(&f.time, 1500000000, 0, 0));
	assert_true(filter_time_wanted(&f.time, 2000000000, 0, 0));
	assert_false(filter_time_wanted(&f.time, 2000000001, 0, 0));
	filter_free(&f);
	fo.time = "3,";
	assert_int_equal(filter_compile(&f, &fo, NULL), 0);
	assert_true(filter_time_wanted(&f.time, UINT64_MAX, 0, 0));
	assert_false(filter_time_wanted(&f.time, 2999999999, 0, 0));
	filter_free(&f);
	/* percent of the span t0..t1, both ends in */
	fo.time = "10%-20%";
	assert_int_equal(filter_compile(&f, &fo, NULL), 0);
	assert_true(f.time.pct);
	assert_false(filter_time_wanted(&f.time, 1099, 1000, 2000));
	assert_true(filter_time_wanted(&f.time, 1100, 1000, 2000));
	assert_true(filter_time_wanted(&f.time, 1200, 1000, 2000));
	assert_false(filter_time_wanted(&f.time, 1201, 1000, 2000));
	assert_false(filter_time_wanted(&f.time, 999, 1000, 2000));
	filter_free(&f);
	/* a bad value is refused by the compiler too */
	fo.time = "x";
	assert_int_equal(filter_compile(&f, &fo, NULL), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_filter_ids),
		cmocka_unit_test(test_filter_names),
		cmocka_unit_test(test_filter_time),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
