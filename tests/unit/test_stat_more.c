/* SPDX-License-Identifier: MIT */
/*
 * The checks of prec stat's less common options (record/stat_more.c):
 * which combine, perf's words where perf refuses, and --per-cache's level.
 * Like test_stat_opts.c, the file is included directly (record/ is not in
 * the libraries the unit tests link), its functions renamed.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#define stat_more_check		test_copy_stat_more_check
#define stat_cb_per_cache	test_copy_stat_cb_per_cache
#define stat_log_fd		test_copy_stat_log_fd
#define stat_hook		test_copy_stat_hook
#include "record/stat_more.c"

static char *argv_true[] = { "true", NULL };

static struct stat_opts command(void)
{
	return (struct stat_opts){ .argc = 1, .argv = argv_true, .repeat = 1 };
}

static void expect(const struct stat_opts *o, int code, const char *msg)
{
	struct err err = { 0 };

	assert_int_equal(stat_more_check(o, false, &err), code);
	assert_string_equal(err.msg, msg);
}

static void test_valid(void **state)
{
	struct stat_opts o = command();

	(void)state;
	expect(&o, 0, "");
	o.repeat = 3;
	o.table = true;
	o.no_merge = o.percore_show_thread = o.metric_no_group = o.metric_no_merge = true;
	o.td_level = 3;
	expect(&o, 0, "");
	o = command();
	o.all_cpus = true;
	o.per_cache = "2";
	o.metric_only = true;
	expect(&o, 0, "");
}

static void test_refusals(void **state)
{
	struct stat_opts o = command();

	(void)state;
	o.table = true;
	expect(&o, -EINVAL, "--table is only supported with -r");
	o = command();
	o.metric_only = true;
	o.repeat = 2;
	expect(&o, -EINVAL, "--metric-only is not supported with -r");
	o.repeat = 1;
	o.per_thread = true;
	expect(&o, -EINVAL, "--metric-only is not supported with --per-thread");
	o = command();
	o.log_fd = 3;
	o.output = "x";
	expect(&o, -EINVAL, "cannot use both --output and --log-fd");
	o = command();
	o.per_cluster = true;
	expect(&o, -EINVAL, "prec stat: --per-cache and --per-cluster need -a or -C (counts per CPU)");
	o.all_cpus = true;
	o.per_core = true;
	expect(&o, -EINVAL, "prec stat: choose one of -A, --per-socket, --per-die, --per-cluster, "
	       "--per-cache, --per-core, --per-node, --per-thread");
	o = command();
	o.all_cpus = o.topdown = true;
	o.td_level = 2;
	expect(&o, -EOPNOTSUPP, "Invalid top-down metrics level. The max level is 1.");
	o = command();
	o.bpf_prog = "12";
	expect(&o, -EINVAL, "prec stat: -b/--bpf-prog needs BPF, which prec does not have (as perf "
	       "built without BPF skeletons)");
	o = command();
	o.pmu_filter = "../x";
	expect(&o, -EINVAL, "prec stat: --pmu-filter '../x': no such PMU in "
	       "/sys/bus/event_source/devices");
}

static void test_per_cache_level(void **state)
{
	struct stat_opts o = { 0 };
	struct opt opt = { .dest = &o };
	struct err err = { 0 };

	(void)state;
	assert_int_equal(stat_cb_per_cache(&opt, NULL, &err), 0);
	assert_string_equal(o.per_cache, "");
	assert_int_equal(stat_cb_per_cache(&opt, "L3", &err), 0);
	assert_string_equal(o.per_cache, "3");
	assert_int_equal(stat_cb_per_cache(&opt, "l12", &err), 0);
	assert_string_equal(o.per_cache, "12");
	assert_int_equal(stat_cb_per_cache(&opt, "L0", &err), -EINVAL);
	assert_int_equal(stat_cb_per_cache(&opt, "L2x", &err), -EINVAL);
	assert_string_equal(err.msg, "--per-cache 'L2x': not a cache level (L1, L2, L3 ...)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_per_cache_level),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
