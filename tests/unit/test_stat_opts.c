/* SPDX-License-Identifier: MIT */
/*
 * prec stat's option checks (record/stat_check.c): pure functions of a
 * struct stat_opts, so every rule is tried here on options made up in
 * place, with the exact line prec stat prints and the kind of failure
 * (-EINVAL: exit 129, -EOPNOTSUPP: perf's refusal, exit 1).
 *
 * The unit-test build links only build/libprec.a and libprep.a, which do
 * not hold record/: the file is included directly (its three functions
 * renamed, as test_synth.c does).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#define stat_check		test_copy_stat_check
#define stat_opts_has_target	test_copy_stat_opts_has_target
#include "record/stat_check.c"

static char *argv_true[] = { "true", NULL };

/* A command to count, nothing else: valid. */
static struct stat_opts command(void)
{
	return (struct stat_opts){ .argc = 1, .argv = argv_true, .repeat = 1 };
}

static void expect(const struct stat_opts *o, int code, const char *msg)
{
	struct err err = { 0 };
	bool no_metrics = true;

	assert_int_equal(stat_check(o, false, &no_metrics, &err), code);
	assert_string_equal(err.msg, msg);
}

static void test_valid(void **state)
{
	struct stat_opts o = command();
	struct err err = { 0 };
	bool no_metrics = true;

	(void)state;
	assert_int_equal(stat_check(&o, false, &no_metrics, &err), 0);
	assert_false(no_metrics);
	o = (struct stat_opts){ .all_cpus = true, .no_aggr = true, .repeat = 1 };
	assert_int_equal(stat_check(&o, false, &no_metrics, &err), 0);
	o = (struct stat_opts){ .pids = "1", .per_thread = true, .interval_ms = 100,
				.interval_count = 2, .json = true };
	assert_int_equal(stat_check(&o, false, &no_metrics, &err), 0);
	assert_string_equal(err.msg, "");
}

static void test_targets(void **state)
{
	struct stat_opts o = { 0 };

	(void)state;
	assert_false(stat_opts_has_target(&o));
	expect(&o, -EINVAL, "prec stat: no command and no target (-a, -C, -p, -t) to count");
	o = (struct stat_opts){ .cpu_list = "0", .repeat = 2 };
	assert_true(stat_opts_has_target(&o));
	expect(&o, -EINVAL, "prec stat: -r needs a command to run again");
	o = command();
	o.repeat = 2;
	o.record = true;        /* every run goes into the file */
	expect(&o, 0, "");
	o = (struct stat_opts){ .pids = "1", .tids = "2" };
	expect(&o, -EINVAL, "prec stat: -p and -t exclude each other");
	o = (struct stat_opts){ .all_cpus = true, .no_aggr = true, .per_core = true };
	expect(&o, -EINVAL, "prec stat: choose one of -A, --per-socket, --per-die, --per-core, "
	       "--per-node, --per-thread");
	o = command();
	o.per_node = true;
	expect(&o, -EINVAL, "prec stat: -A and --per-socket/die/core/node need -a or -C "
	       "(counts per CPU)");
}

static void test_perf_refusals(void **state)
{
	struct stat_opts o = command();
	struct err err = { 0 };
	bool no_metrics = false;

	(void)state;
	o.transaction = true;
	expect(&o, -EOPNOTSUPP, "Cannot set up transaction events: there is no cpu PMU on this "
	       "machine");
	assert_int_equal(stat_check(&o, true, &no_metrics, &err), -EOPNOTSUPP);
	assert_string_equal(err.msg, "Cannot set up transaction events");
	o = command();
	o.topdown = true;
	expect(&o, -EOPNOTSUPP, "top down event configuration requires system-wide mode (-a)");
	o.all_cpus = true;
	expect(&o, -EOPNOTSUPP, "System does not support topdown");
	o = command();
	o.smi_cost = true;
	expect(&o, -EOPNOTSUPP, "freeze_on_smi is not supported.");
}

static void test_modes(void **state)
{
	struct stat_opts o = command();

	(void)state;
	o.all_user = o.all_kernel = true;
	expect(&o, -EINVAL, "prec stat: --all-user and --all-kernel exclude each other");
	o = command();
	o.interval_count = 3;
	expect(&o, -EINVAL, "prec stat: --interval-count needs -I");
	o.interval_ms = 100;
	o.repeat = 3;
	expect(&o, -EINVAL, "prec stat: -I and -r exclude each other");
	o = command();
	o.sep = "";
	expect(&o, -EINVAL, "prec stat: -x '': the separator is empty");
	o.sep = ",";
	o.json = true;
	expect(&o, -EINVAL, "prec stat: -j and -x exclude each other");
	o = command();
	o.per_thread = true;
	expect(&o, -EINVAL, "prec stat: --per-thread needs -p or -t");
}

/* -M is a warning, due once the checks before it pass, with or without an
 * error after it (perf prints it first). */
static void test_metrics_warning(void **state)
{
	struct stat_opts o = command();
	struct err err = { 0 };
	bool no_metrics = false;

	(void)state;
	o.metrics = "IPC";
	assert_int_equal(stat_check(&o, false, &no_metrics, &err), 0);
	assert_true(no_metrics);
	o.all_user = o.all_kernel = true;
	assert_int_equal(stat_check(&o, false, &no_metrics, &err), -EINVAL);
	assert_true(no_metrics);
	o.smi_cost = true;
	assert_int_equal(stat_check(&o, false, &no_metrics, &err), -EOPNOTSUPP);
	assert_false(no_metrics);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_targets),
		cmocka_unit_test(test_perf_refusals),
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_metrics_warning),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
