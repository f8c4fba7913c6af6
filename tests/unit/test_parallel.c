/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the parallelism tracking of latency profiles
 * (report/core/parallel.c) on hand-made records: switch-in, switch-out
 * (preempted or not) and exit records of PERF_RECORD_SWITCH and
 * PERF_RECORD_SWITCH_CPU_WIDE, samples of threads no switch record has named
 * yet, the clamp to the file's CPUs, the idle task, records repeated or in
 * a new file, each sample's latency per event, perf's share of samples that
 * ran alone, and the --parallelism list.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "report/core/parallel.h"

static void sw(struct parallel *p, uint32_t type, uint32_t tid, uint16_t misc)
{
	struct record r = { .type = type, .misc = misc };

	r.sid.fields = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	r.sid.pid = r.sid.tid = tid;
	assert_int_equal(parallel_record(p, &r), 0);
}

#define IN(p, tid) sw(p, PERF_RECORD_SWITCH, tid, 0)
#define OUT(p, tid) sw(p, PERF_RECORD_SWITCH, tid, PERF_RECORD_MISC_SWITCH_OUT)
#define PREEMPTED(p, tid) sw(p, PERF_RECORD_SWITCH, tid, \
			     PERF_RECORD_MISC_SWITCH_OUT | PERF_RECORD_MISC_SWITCH_OUT_PREEMPT)

static void exit_of(struct parallel *p, uint32_t tid)
{
	struct record r = { .type = PERF_RECORD_EXIT };

	r.u.task.pid = r.u.task.tid = tid;
	assert_int_equal(parallel_record(p, &r), 0);
}

/* the level of a sample of tid (with its period counted for event 0) */
static unsigned sample(struct parallel *p, uint32_t tid, uint64_t period)
{
	struct record r = { .type = PERF_RECORD_SAMPLE };
	unsigned level = 99;

	r.u.sample.type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
	r.u.sample.pid = r.u.sample.tid = tid;
	r.u.sample.period = period;
	assert_int_equal(parallel_sample(p, &r, &level), 0);
	parallel_count(p, 0, period);
	return level;
}

static struct parallel *tracker(const char *list, uint64_t cpus)
{
	struct err err = { 0 };
	struct parallel *p = parallel_new(list, &err);

	assert_non_null(p);
	parallel_file(p, cpus);
	return p;
}

/* A workload as perf sees it: the first thread runs without a switch-in,
 * threads come in and go out, exit without a last switch-out. */
static void test_workload(void **state)
{
	struct parallel *p = tracker(NULL, 8);

	(void)state;
	/* the thread running at the start: counted from its first sample */
	assert_int_equal(sample(p, 100, 1), 1);
	assert_int_equal(sample(p, 100, 1), 1);
	/* two threads made and switched in: three running */
	IN(p, 101);
	IN(p, 102);
	assert_int_equal(sample(p, 101, 1), 3);
	/* the first waits for them (a plain switch-out) */
	OUT(p, 100);
	assert_int_equal(sample(p, 102, 1), 2);
	/* preempted is off the CPU too, as perf counts it */
	PREEMPTED(p, 102);
	assert_int_equal(sample(p, 101, 1), 1);
	IN(p, 102);
	assert_int_equal(sample(p, 102, 1), 2);
	/* an exiting thread has no switch-out after its exit */
	exit_of(p, 101);
	assert_int_equal(sample(p, 102, 1), 1);
	exit_of(p, 102);
	IN(p, 100);
	assert_int_equal(sample(p, 100, 1), 1);
	assert_int_equal(parallel_max_running(p), 3);
	parallel_free(p);
}

/* Never below 1 (a sample runs), never above the file's CPUs (perf's clamp
 * for records out of order); 0 CPUs: no upper clamp. */
static void test_clamp(void **state)
{
	struct parallel *p = tracker(NULL, 2);

	(void)state;
	for (uint32_t t = 1; t <= 5; t++)
		IN(p, t);
	assert_int_equal(sample(p, 1, 1), 2);
	for (uint32_t t = 1; t <= 5; t++)
		OUT(p, t);
	/* every thread out, yet a sample of one that switched out (a
	 * switch-in lost): the level is at least 1 */
	assert_int_equal(sample(p, 3, 1), 1);
	parallel_file(p, 0);
	for (uint32_t t = 1; t <= 5; t++)
		IN(p, t);
	assert_int_equal(sample(p, 1, 1), 5);
	parallel_free(p);
}

/* Each thread is counted once whatever the records repeat (two events that
 * both record switches, a switch-in seen twice), and a new file starts with
 * every thread unknown. */
static void test_repeated(void **state)
{
	struct parallel *p = tracker(NULL, 4);

	(void)state;
	IN(p, 7);
	IN(p, 7);
	IN(p, 8);
	assert_int_equal(sample(p, 7, 1), 2);
	OUT(p, 8);
	OUT(p, 8);
	assert_int_equal(sample(p, 7, 1), 1);
	/* a sample of a switched-out thread does not bring it back: only a
	 * thread no switch record named is counted from its samples */
	OUT(p, 7);
	IN(p, 9);
	assert_int_equal(sample(p, 8, 1), 1);
	parallel_file(p, 4);
	IN(p, 9);
	assert_int_equal(sample(p, 9, 1), 1);
	/* 7 was running at the end of the last file; here it is unknown */
	assert_int_equal(sample(p, 7, 1), 2);
	parallel_free(p);
}

/* CPU-wide records (a system-wide recording): an out for the task leaving,
 * an in for the one coming; the idle task (tid 0) is not a running thread. */
static void test_cpu_wide(void **state)
{
	struct parallel *p = tracker(NULL, 2);

	(void)state;
	sw(p, PERF_RECORD_SWITCH_CPU_WIDE, 0, PERF_RECORD_MISC_SWITCH_OUT);
	sw(p, PERF_RECORD_SWITCH_CPU_WIDE, 50, 0);
	sw(p, PERF_RECORD_SWITCH_CPU_WIDE, 0, 0);
	assert_int_equal(sample(p, 50, 1), 1);
	sw(p, PERF_RECORD_SWITCH_CPU_WIDE, 0, PERF_RECORD_MISC_SWITCH_OUT);
	sw(p, PERF_RECORD_SWITCH_CPU_WIDE, 51, 0);
	assert_int_equal(sample(p, 51, 1), 2);
	/* an idle CPU's samples: of tid 0, at least 1 */
	sw(p, PERF_RECORD_SWITCH_CPU_WIDE, 50, PERF_RECORD_MISC_SWITCH_OUT);
	sw(p, PERF_RECORD_SWITCH_CPU_WIDE, 51, PERF_RECORD_MISC_SWITCH_OUT);
	assert_int_equal(sample(p, 0, 1), 1);
	/* a switch record without the trailer's tid names no thread */
	{
		struct record r = { .type = PERF_RECORD_SWITCH };

		assert_int_equal(parallel_record(p, &r), 0);
	}
	assert_int_equal(parallel_max_running(p), 2);
	parallel_free(p);
}

/* perf's weight: period * 1000 / level, summed per event; the share of
 * samples that ran alone; NULL tracks nothing. */
static void test_latency(void **state)
{
	struct parallel *p = tracker(NULL, 4);
	unsigned level = 5;
	struct record r = { .type = PERF_RECORD_SAMPLE };

	(void)state;
	assert_int_equal(parallel_latency(3000, 2), 1500000);
	assert_int_equal(parallel_latency(3000, 0), 3000000);
	assert_int_equal(parallel_latency(1, 3), 333);
	assert_int_equal(sample(p, 1, 900), 1);
	IN(p, 2);
	assert_int_equal(sample(p, 1, 100), 2);
	assert_int_equal(sample(p, 2, 100), 2);
	parallel_count(p, 3, 10);       /* a group member of the last sample */
	parallel_count(p, 64, 10);      /* past the events counted: ignored */
	assert_int_equal(parallel_event_latency(p, 0), 900000 + 50000 + 50000);
	assert_int_equal(parallel_event_latency(p, 3), 5000);
	assert_int_equal(parallel_event_latency(p, 64), 0);
	assert_int_equal(parallel_samples(p), 3);
	assert_int_equal(parallel_single(p), 1);
	parallel_free(p);

	assert_int_equal(parallel_sample(NULL, &r, &level), 0);
	assert_int_equal(level, 0);
	assert_int_equal(parallel_record(NULL, &r), 0);
	parallel_count(NULL, 0, 1);
	parallel_file(NULL, 2);
	assert_true(parallel_wanted(NULL, 3));
	assert_int_equal(parallel_samples(NULL), 0);
	parallel_free(NULL);
}

/* --parallelism: perf's CPU-list syntax, levels 1..4096 */
static void test_list(void **state)
{
	static const char *const good[] = { "1", "7,8", "1,64-128", "4096", "2-2", "3,1" };
	static const char *const bad[] = { "", "0", "4097", "2-1", "a", "1,", ",1", "1-",
					   "-3", "1;2", "1 2", "0-3" };
	uint64_t bits[PARALLEL_WORDS];
	struct err err = { 0 };
	struct parallel *p;

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		assert_int_equal(parallel_parse_list(good[i], NULL, &err), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parallel_parse_list(bad[i], NULL, &err), -EINVAL);
		assert_non_null(strstr(err.msg, "--parallelism '"));
	}
	assert_int_equal(parallel_parse_list("0", NULL, &err), -EINVAL);
	assert_string_equal(err.msg, "--parallelism '0': level 0 is invalid (levels are 1..4096)");
	assert_int_equal(parallel_parse_list("2-1", NULL, &err), -EINVAL);
	assert_string_equal(err.msg, "--parallelism '2-1': not a list of levels like 1,2-4");
	memset(bits, 0, sizeof(bits));
	assert_int_equal(parallel_parse_list("1,64-66,4096", bits, &err), 0);
	assert_int_equal(bits[0], 2);
	assert_int_equal(bits[1], 7);
	assert_int_equal(bits[64], 1);

	p = parallel_new("1,3-4", &err);
	assert_non_null(p);
	assert_true(parallel_wanted(p, 1));
	assert_false(parallel_wanted(p, 2));
	assert_true(parallel_wanted(p, 4));
	assert_false(parallel_wanted(p, 5));
	assert_false(parallel_wanted(p, 5000));
	parallel_free(p);
	assert_null(parallel_new("x", &err));
	p = parallel_new(NULL, &err);
	assert_true(parallel_wanted(p, 77));
	parallel_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_workload),
		cmocka_unit_test(test_clamp),
		cmocka_unit_test(test_repeated),
		cmocka_unit_test(test_cpu_wide),
		cmocka_unit_test(test_latency),
		cmocka_unit_test(test_list),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
