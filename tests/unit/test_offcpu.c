/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of off-CPU time (report/core/offcpu.c): the pairing of a
 * thread's switch-out (and the stack sampled just before it) with its next
 * switch-in, fed directly (waits with and without stacks, preempted ones,
 * a lost switch-in or switch-out, exits, threads interleaved, waits still
 * open at the end), and the loader on a prec.data file written here: the
 * offcpu-time samples it makes (event, weight, time, CPU, stack, the mark
 * of a wait open at the end, at the end clock), --wall's one event, and the
 * filters on them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/blocks.h"
#include "format/container.h"
#include "report/core/load.h"
#include "report/core/offcpu.h"

#include "perf_bytes.h"

/* ---- the pairing ---------------------------------------------------------------- */

#define MAX_WAITS 16

struct waits {
	struct offcpu_wait w[MAX_WAITS];
	uint64_t first_addr[MAX_WAITS];
	size_t n;
};

static int got_wait(void *ctx, const struct offcpu_wait *w)
{
	struct waits *g = ctx;

	assert_true(g->n < MAX_WAITS);
	g->first_addr[g->n] = w->nr ? w->addrs[0] : 0;
	g->w[g->n] = *w;
	g->w[g->n].addrs = NULL;        /* valid during the call only */
	g->w[g->n].kernel = NULL;
	g->n++;
	return 0;
}

static const uint64_t stack_a[] = { 0xffffffff81000010, 0x401000, 0x400800 };
static const bool kernel_a[] = { true, false, false };

static void test_wait_with_stack(void **state)
{
	struct offcpu_pairs p = { 0 };
	struct waits g = { .n = 0 };

	(void)state;
	assert_int_equal(offcpu_pairs_stack(&p, 10, 11, 1000, stack_a, kernel_a, 3, 0), 0);
	assert_int_equal(offcpu_pairs_out(&p, 10, 11, 1010, 0, false), 0);
	assert_int_equal(offcpu_pairs_in(&p, 11, 201010, 1, got_wait, &g), 0);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.w[0].pid, 10);
	assert_int_equal(g.w[0].tid, 11);
	assert_int_equal(g.w[0].start, 1010);
	assert_int_equal(g.w[0].end, 201010);
	assert_int_equal(g.w[0].cpu, 1);
	assert_int_equal(g.w[0].nr, 3);
	assert_true(g.first_addr[0] == stack_a[0]);
	assert_false(g.w[0].open);
	assert_false(g.w[0].preempted);
	/* the next wait has no stack of its own: the first one was used up */
	assert_int_equal(offcpu_pairs_out(&p, 10, 11, 300000, 0, false), 0);
	assert_int_equal(offcpu_pairs_in(&p, 11, 300500, 0, got_wait, &g), 0);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.w[1].nr, 0);
	assert_int_equal(g.w[1].end - g.w[1].start, 500);
	offcpu_pairs_free(&p);
}

static void test_in_without_out(void **state)
{
	struct offcpu_pairs p = { 0 };
	struct waits g = { .n = 0 };

	(void)state;
	/* off CPU since before the recording: its start is not known */
	assert_int_equal(offcpu_pairs_in(&p, 11, 5000, 0, got_wait, &g), 0);
	assert_int_equal(g.n, 0);
	assert_int_equal(offcpu_pairs_out(&p, 10, 11, 6000, 0, true), 0);
	assert_int_equal(offcpu_pairs_in(&p, 11, 6100, 0, got_wait, &g), 0);
	assert_int_equal(g.n, 1);
	assert_true(g.w[0].preempted);
	/* two switch-ins in a row: the second one closes nothing */
	assert_int_equal(offcpu_pairs_in(&p, 11, 6200, 0, got_wait, &g), 0);
	assert_int_equal(g.n, 1);
	offcpu_pairs_free(&p);
}

static void test_lost_records(void **state)
{
	struct offcpu_pairs p = { 0 };
	struct waits g = { .n = 0 };

	(void)state;
	/* a switch-in lost: the next switch-out starts over */
	assert_int_equal(offcpu_pairs_out(&p, 10, 11, 1000, 0, false), 0);
	assert_int_equal(offcpu_pairs_out(&p, 10, 11, 5000, 0, false), 0);
	assert_int_equal(offcpu_pairs_in(&p, 11, 5300, 0, got_wait, &g), 0);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.w[0].start, 5000);
	assert_int_equal(p.unpaired, 1);
	/* a switch-out record lost: the stack's sample says when */
	assert_int_equal(offcpu_pairs_stack(&p, 10, 11, 7000, stack_a, kernel_a, 3, 0), 0);
	assert_int_equal(offcpu_pairs_in(&p, 11, 7400, 0, got_wait, &g), 0);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.w[1].start, 7000);
	assert_int_equal(g.w[1].nr, 3);
	offcpu_pairs_free(&p);
}

static void test_threads_and_exit(void **state)
{
	struct offcpu_pairs p = { 0 };
	struct waits g = { .n = 0 };

	(void)state;
	assert_int_equal(offcpu_pairs_stack(&p, 10, 11, 100, stack_a, kernel_a, 3, 0), 0);
	assert_int_equal(offcpu_pairs_out(&p, 10, 11, 110, 0, false), 0);
	assert_int_equal(offcpu_pairs_out(&p, 10, 12, 120, 1, false), 0);
	assert_int_equal(offcpu_pairs_out(&p, 10, 13, 130, 1, false), 0);
	assert_int_equal(offcpu_pairs_in(&p, 12, 1120, 0, got_wait, &g), 0);
	offcpu_pairs_exit(&p, 13);
	assert_int_equal(offcpu_pairs_in(&p, 13, 2000, 0, got_wait, &g), 0);
	assert_int_equal(offcpu_pairs_in(&p, 11, 3110, 1, got_wait, &g), 0);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.w[0].tid, 12);
	assert_int_equal(g.w[0].end - g.w[0].start, 1000);
	assert_int_equal(g.w[0].nr, 0);
	assert_int_equal(g.w[1].tid, 11);
	assert_int_equal(g.w[1].end - g.w[1].start, 3000);
	assert_int_equal(g.w[1].nr, 3);
	offcpu_pairs_free(&p);
}

static void test_open_at_end(void **state)
{
	struct offcpu_pairs p = { 0 };
	struct waits g = { .n = 0 };

	(void)state;
	assert_int_equal(offcpu_pairs_stack(&p, 10, 11, 100, stack_a, kernel_a, 3, 0), 0);
	assert_int_equal(offcpu_pairs_out(&p, 10, 11, 110, 1, false), 0);
	assert_int_equal(offcpu_pairs_out(&p, 10, 12, 500, 0, false), 0);
	assert_int_equal(offcpu_pairs_end(&p, 10000, got_wait, &g), 0);
	assert_int_equal(g.n, 2);
	assert_true(g.w[0].open && g.w[1].open);
	assert_int_equal(g.w[0].end, 10000);
	assert_int_equal(g.w[0].cpu, 1);
	assert_int_equal(g.w[0].nr, 3);
	assert_int_equal(g.w[1].end - g.w[1].start, 9500);
	assert_int_equal(p.nr, 0);      /* forgotten */
	/* an end clock older than what was met: the newest time serves */
	assert_int_equal(offcpu_pairs_out(&p, 10, 11, 20000, 0, false), 0);
	assert_int_equal(offcpu_pairs_in(&p, 12, 25000, 0, got_wait, &g), 0);
	assert_int_equal(offcpu_pairs_end(&p, 100, got_wait, &g), 0);
	assert_int_equal(g.n, 3);
	assert_int_equal(g.w[2].end, 25000);
	offcpu_pairs_free(&p);
}

/* ---- the loader on a file -------------------------------------------------------- */

static char tmpdir[] = "/tmp/test_offcpu.XXXXXX";
static char path[sizeof(tmpdir) + 16];

#define PID 40
#define TID 41
#define ST_BASE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
		 PERF_SAMPLE_CPU | PERF_SAMPLE_CALLCHAIN)
#define ID_CLOCK 1
#define ID_OFF 2

static void event_block(struct container_writer *w, uint64_t config, uint64_t st,
			const char *name, uint64_t id)
{
	struct event_id ids = { .id = id, .cpu = -1, .tid = TID };
	struct perf_event_attr a;
	struct buf b = BUF_INIT;
	struct err err = { 0 };

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.config = config;
	a.sample_period = config == PERF_COUNT_SW_CPU_CLOCK ? 1000 : 1;
	a.freq = config == PERF_COUNT_SW_CPU_CLOCK;
	a.sample_type = st;
	a.sample_id_all = 1;
	a.comm = a.task = a.context_switch = config == PERF_COUNT_SW_CPU_CLOCK;
	assert_int_equal(event_block_encode(&a, sizeof(a), name, &ids, 1, &b), 0);
	assert_int_equal(container_write_block(w, BLOCK_EVENT, b.data, b.len, &err), 0);
	buf_free(&b);
}

/* The sample_id_all trailer of ST_BASE: tid, time, cpu, identifier. */
static void trailer(struct bb *r, uint64_t time, uint32_t cpu, uint64_t id)
{
	p32(r, PID);
	p32(r, TID);
	p64(r, time);
	p32(r, cpu);
	p32(r, 0);
	p64(r, id);
}

static void comm(struct bb *r)
{
	char name[16] = "sleepy";

	begin(r, PERF_RECORD_COMM, 0);
	p32(r, PID);
	p32(r, TID);
	put(r, name, sizeof(name));
	trailer(r, 1, 0, ID_CLOCK);
	end(r);
}

static void sample(struct bb *r, uint64_t id, uint64_t time, uint32_t cpu, bool period)
{
	begin(r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL);
	p64(r, id);
	p64(r, 0xffffffff81000010);
	p32(r, PID);
	p32(r, TID);
	p64(r, time);
	p32(r, cpu);
	p32(r, 0);
	if (period)
		p64(r, 1000000);
	p64(r, 4);
	p64(r, PERF_CONTEXT_KERNEL);
	p64(r, 0xffffffff81000010);
	p64(r, PERF_CONTEXT_USER);
	p64(r, 0x401000);
	end(r);
}

static void sw(struct bb *r, uint64_t time, uint32_t cpu, uint16_t misc)
{
	begin(r, PERF_RECORD_SWITCH, misc);
	trailer(r, time, cpu, ID_CLOCK);
	end(r);
}

/* A recording: a wait of 200 us with its stack, a preempted one of 10 us,
 * one without a stack of 50 us, and one open from 300 us to the end clock
 * at 500 us; one cpu-clock sample. */
static void write_file(void)
{
	struct container_writer_opts o = { .level = 0 };
	struct container_writer *w;
	struct metadata m = { 0 };
	struct buf b = BUF_INIT;
	struct err err = { 0 };
	static struct bb r;

	r.len = 0;
	assert_int_equal(container_writer_open(&w, path, &o, &err), 0);
	event_block(w, PERF_COUNT_SW_CPU_CLOCK, ST_BASE | PERF_SAMPLE_PERIOD, "cpu-clock", ID_CLOCK);
	event_block(w, PERF_COUNT_SW_CONTEXT_SWITCHES, ST_BASE, OFFCPU_EVENT, ID_OFF);
	comm(&r);
	sample(&r, ID_CLOCK, 500, 0, true);
	sample(&r, ID_OFF, 1000, 0, false);
	sw(&r, 1010, 0, PERF_RECORD_MISC_SWITCH_OUT);
	sw(&r, 201010, 1, 0);
	sample(&r, ID_OFF, 210000, 1, false);
	sw(&r, 210010, 1, PERF_RECORD_MISC_SWITCH_OUT | PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
	sw(&r, 220010, 1, 0);
	sw(&r, 230000, 1, PERF_RECORD_MISC_SWITCH_OUT);
	sw(&r, 280000, 0, 0);
	sample(&r, ID_OFF, 299990, 0, false);
	sw(&r, 300000, 0, PERF_RECORD_MISC_SWITCH_OUT);
	assert_int_equal(container_write_records(w, 0, r.b, r.len, NULL, 0, &err), 0);
	assert_int_equal(container_write_round(w, &err), 0);
	assert_int_equal(metadata_set_u64(&m, META_END_CLOCK_NS, 500000), 0);
	assert_int_equal(metadata_encode(&m, &b), 0);
	assert_int_equal(container_write_block(w, BLOCK_METADATA, b.data, b.len, &err), 0);
	metadata_free(&m);
	buf_free(&b);
	assert_int_equal(container_writer_close(w, &err), 0);
}

#define MAX_GOT 8

struct got {
	char event[MAX_GOT][32];
	char comm[MAX_GOT][64];
	uint64_t period[MAX_GOT], time[MAX_GOT], addr0[MAX_GOT];
	uint32_t cpu[MAX_GOT];
	size_t nr[MAX_GOT];
	size_t n;
};

static int on_sample(void *ctx, struct load *l, const struct load_sample *s)
{
	struct got *g = ctx;

	assert_true(g->n < MAX_GOT);
	snprintf(g->event[g->n], 32, "%s", load_event_name(l, s->event));
	snprintf(g->comm[g->n], 64, "%s", s->thread->comm);
	g->period[g->n] = s->period;
	g->time[g->n] = s->rec->u.sample.time;
	g->cpu[g->n] = s->rec->u.sample.cpu;
	g->addr0[g->n] = s->addrs[0];
	g->nr[g->n] = s->nr;
	g->n++;
	return 0;
}

static void read_file(struct got *g, bool wall, const char *tids)
{
	struct load_opts lo = { .nr_inputs = 1, .quiet = true, .no_kallsyms = true,
				.no_cache = true, .wall = wall };
	struct err err = { 0 };
	struct load *l;

	lo.inputs[0] = path;
	lo.f.tids = tids;
	memset(g, 0, sizeof(*g));
	l = load_new(&lo, &err);
	assert_non_null(l);
	assert_int_equal(load_run(l, on_sample, NULL, g, &err), 0);
	load_free(l);
}

static void test_load_samples(void **state)
{
	struct got g;

	(void)state;
	write_file();
	read_file(&g, false, NULL);
	/* the cpu-clock sample; the waits, at their ends; the preempted one not */
	assert_int_equal(g.n, 4);
	assert_string_equal(g.event[0], "cpu-clock");
	assert_string_equal(g.event[1], OFFCPU_EVENT);
	assert_int_equal(g.period[1], 200000);
	assert_int_equal(g.time[1], 201010);
	assert_int_equal(g.cpu[1], 1);
	assert_int_equal(g.nr[1], 2);
	assert_true(g.addr0[1] == 0xffffffff81000010);
	assert_string_equal(g.comm[1], "sleepy");
	/* no stack: one frame at 0 */
	assert_int_equal(g.period[2], 50000);
	assert_int_equal(g.nr[2], 1);
	assert_true(g.addr0[2] == 0);
	/* open at the end: closed at the end clock, marked */
	assert_int_equal(g.period[3], 200000);
	assert_int_equal(g.time[3], 500000);
	assert_string_equal(g.comm[3], "sleepy" OFFCPU_OPEN_MARK);
	assert_int_equal(g.nr[3], 2);
}

static void test_load_wall(void **state)
{
	struct got g;
	uint64_t total = 0;

	(void)state;
	write_file();
	read_file(&g, true, NULL);
	/* the preempted wait counts too, and all is one event */
	assert_int_equal(g.n, 5);
	for (size_t i = 0; i < g.n; i++) {
		assert_string_equal(g.event[i], OFFCPU_WALL_NAME);
		total += g.period[i];
	}
	assert_int_equal(total, 1000000 + 200000 + 10000 + 50000 + 200000);
}

static void test_load_filtered(void **state)
{
	struct got g;

	(void)state;
	write_file();
	read_file(&g, false, "99");
	assert_int_equal(g.n, 0);
	read_file(&g, false, "41");
	assert_int_equal(g.n, 4);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(tmpdir))
		return -1;
	snprintf(path, sizeof(path), "%s/o.data", tmpdir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	rmdir(tmpdir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wait_with_stack),
		cmocka_unit_test(test_in_without_out),
		cmocka_unit_test(test_lost_records),
		cmocka_unit_test(test_threads_and_exit),
		cmocka_unit_test(test_open_at_end),
		cmocka_unit_test(test_load_samples),
		cmocka_unit_test(test_load_wall),
		cmocka_unit_test(test_load_filtered),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
