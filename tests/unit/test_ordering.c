/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the record ordering of report/core/session.c on prec.data
 * files written here with the container writer: records of several CPU
 * buffers come out in time order (ties in the order they were written),
 * each round marker hands on only what is no later than the newest time of
 * the pass before, a record older than what was already handed on comes
 * late and is counted, and records that wait across DATA blocks keep their
 * bytes. A live session (prec top) fed the same records as in-memory DATA
 * blocks, one per drain pass, hands them on in the same order.
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
#include "report/core/session.h"

#include "perf_bytes.h"

#define ST (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD)
#define PID 7
#define MAX_GOT 40000

static char tmpdir[] = "/tmp/test_ordering.XXXXXX";
static char path[sizeof(tmpdir) + 16];

/* The ip a sample written at this time on this cpu carries: what came out
 * is then known to be the record that went in, bytes and all. */
static uint64_t ip_of(uint64_t time, uint32_t cpu)
{
	return time * 16 + cpu;
}

static void sample(struct bb *r, uint64_t time, uint32_t cpu)
{
	begin(r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	p64(r, ip_of(time, cpu));
	p32(r, PID);
	p32(r, PID);
	p64(r, time);
	p64(r, 1000);
	end(r);
}

/* A COMM with the sample_id_all trailer of ST (tid, time). */
static void comm(struct bb *r, uint64_t time)
{
	char name[16] = "prog";

	begin(r, PERF_RECORD_COMM, 0);
	p32(r, PID);
	p32(r, PID);
	put(r, name, sizeof(name));
	p32(r, PID);
	p32(r, PID);
	p64(r, time);
	end(r);
}

/* One step of a recording: a span of samples from one CPU buffer (times
 * end at the first 0), or the round marker that ends a drain pass. */
struct step {
	uint32_t cpu;           /* ROUND_CPU: a round marker */
	uint64_t times[8];
};

#define ROUND_CPU UINT32_MAX
#define ROUND { ROUND_CPU, { 0 } }

/* level: of the DATA blocks; compressed ones are inflated into memory
 * that the reader reuses for the next block. */
static struct container_writer *writer_open(int level)
{
	struct container_writer_opts o = { .level = level };
	struct container_writer *w;
	struct perf_event_attr a;
	struct event_id id = { .id = 1, .cpu = -1, .tid = -1 };
	struct buf b = BUF_INIT;
	struct err err = { 0 };

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 1000;
	a.sample_type = ST;
	a.sample_id_all = 1;
	a.comm = 1;
	assert_int_equal(container_writer_open(&w, path, &o, &err), 0);
	assert_int_equal(event_block_encode(&a, sizeof(a), "cpu-clock", &id, 1, &b), 0);
	assert_int_equal(container_write_block(w, BLOCK_EVENT, b.data, b.len, &err), 0);
	buf_free(&b);
	return w;
}

static void write_span(struct container_writer *w, uint32_t cpu, const struct bb *r)
{
	struct err err = { 0 };

	assert_int_equal(container_write_records(w, cpu, r->b, r->len, NULL, 0, &err), 0);
}

static void write_round(struct container_writer *w)
{
	struct err err = { 0 };

	assert_int_equal(container_write_round(w, &err), 0);
}

static void writer_close(struct container_writer *w)
{
	struct err err = { 0 };

	assert_int_equal(container_writer_close(w, &err), 0);
}

static void write_steps(const struct step *steps, size_t n)
{
	struct container_writer *w = writer_open(0);

	for (size_t i = 0; i < n; i++) {
		static struct bb r;

		if (steps[i].cpu == ROUND_CPU) {
			write_round(w);
			continue;
		}
		r.len = 0;
		for (size_t k = 0; k < 8 && steps[i].times[k]; k++)
			sample(&r, steps[i].times[k], steps[i].cpu);
		write_span(w, steps[i].cpu, &r);
	}
	writer_close(w);
}

/* ---- reading back --------------------------------------------------------- */

struct got {
	size_t n;
	uint32_t type[MAX_GOT];
	uint64_t time[MAX_GOT];
	uint64_t ip[MAX_GOT];
};

static struct got got;

static int on_record(void *ctx, struct session *s, const struct record *rec)
{
	struct got *g = ctx;
	bool smp = rec->type == PERF_RECORD_SAMPLE;

	(void)s;
	assert_true(g->n < MAX_GOT);
	g->type[g->n] = rec->type;
	g->time[g->n] = smp ? rec->u.sample.time : rec->sid.time;
	g->ip[g->n++] = smp ? rec->u.sample.ip : 0;
	return 0;
}

/* Read the file; its session stats in *st. */
static void read_back(struct session_stats *st)
{
	struct session s;
	struct err err = { 0 };

	got.n = 0;
	assert_int_equal(session_open(&s, path, true, &err), 0);
	assert_int_equal(session_read(&s, on_record, &got, &err), 0);
	*st = s.stats;
	assert_int_equal(st->bad_records, 0);
	session_close(&s);
}

/* The samples came out with these times, each from the cpu in cpus (one
 * per time; NULL: any cpu, times unique). */
static void assert_times(const uint64_t *want, const uint32_t *cpus, size_t n)
{
	assert_int_equal(got.n, n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(got.type[i], PERF_RECORD_SAMPLE);
		assert_int_equal(got.time[i], want[i]);
		if (cpus)
			assert_int_equal(got.ip[i], ip_of(want[i], cpus[i]));
		else
			assert_int_equal(got.ip[i] / 16, want[i]);
	}
}

/* ---- the tests ------------------------------------------------------------- */

/* Three buffers drained in one pass: merged by time. */
static void test_cpus_merged(void **state)
{
	static const struct step steps[] = {
		{ 0, { 10, 30, 50 } }, { 1, { 20, 40, 60 } }, { 2, { 15, 45 } }, ROUND,
	};
	static const uint64_t want[] = { 10, 15, 20, 30, 40, 45, 50, 60 };
	static const uint32_t cpus[] = { 0, 2, 1, 0, 1, 2, 0, 1 };
	struct session_stats st;

	(void)state;
	write_steps(steps, sizeof(steps) / sizeof(steps[0]));
	read_back(&st);
	assert_times(want, cpus, 8);
	assert_int_equal(st.samples, 8);
	assert_int_equal(st.records, 8);
	assert_int_equal(st.out_of_order, 0);
}

/* Equal times keep the order they were written in, whichever buffer. */
static void test_ties(void **state)
{
	static const struct step steps[] = {
		{ 1, { 10, 20 } }, { 0, { 10, 20 } }, { 2, { 10 } }, ROUND,
	};
	static const uint64_t want[] = { 10, 10, 10, 20, 20 };
	static const uint32_t cpus[] = { 1, 0, 2, 1, 0 };
	struct session_stats st;

	(void)state;
	write_steps(steps, sizeof(steps) / sizeof(steps[0]));
	read_back(&st);
	assert_times(want, cpus, 5);
}

/* A round hands on only what is no later than the newest time of the pass
 * before it: a record of a later pass older than the newest of an earlier
 * one still comes before it. */
static void test_round_holds_back(void **state)
{
	static const struct step steps[] = {
		{ 0, { 100, 500 } }, ROUND,
		{ 1, { 200 } }, ROUND,
		{ 0, { 600 } }, { 1, { 550 } }, ROUND,
	};
	static const uint64_t want[] = { 100, 200, 500, 550, 600 };
	struct session_stats st;

	(void)state;
	write_steps(steps, sizeof(steps) / sizeof(steps[0]));
	read_back(&st);
	assert_times(want, NULL, 5);
	assert_int_equal(st.out_of_order, 0);
}

/* A record older than what a round already handed on: it comes after
 * those, in order among the ones still waiting, and is counted. */
static void test_older_than_flush(void **state)
{
	static const struct step steps[] = {
		{ 0, { 100, 200 } }, ROUND,
		{ 0, { 300 } }, ROUND,       /* hands on 100 and 200 */
		{ 1, { 150 } }, { 0, { 400 } }, ROUND,
	};
	static const uint64_t want[] = { 100, 200, 150, 300, 400 };
	struct session_stats st;

	(void)state;
	write_steps(steps, sizeof(steps) / sizeof(steps[0]));
	read_back(&st);
	assert_times(want, NULL, 5);
	assert_int_equal(st.out_of_order, 1);
	assert_int_equal(st.samples, 5);
}

/* Without round markers (a file cut before its first round, an old
 * writer) everything waits for the end, and comes out sorted; a record
 * other than a sample is ordered by the time of its trailer. */
static void test_no_rounds(void **state)
{
	static struct bb r;
	struct container_writer *w = writer_open(0);
	struct session_stats st;

	(void)state;
	r.len = 0;
	sample(&r, 300, 0);
	sample(&r, 400, 0);
	write_span(w, 0, &r);
	r.len = 0;
	comm(&r, 350);
	sample(&r, 360, 1);
	write_span(w, 1, &r);
	r.len = 0;
	sample(&r, 100, 2);
	write_span(w, 2, &r);
	writer_close(w);
	read_back(&st);
	assert_int_equal(got.n, 5);
	assert_int_equal(got.time[0], 100);
	assert_int_equal(got.time[1], 300);
	assert_int_equal(got.type[2], PERF_RECORD_COMM);
	assert_int_equal(got.time[2], 350);
	assert_int_equal(got.time[3], 360);
	assert_int_equal(got.ip[3], ip_of(360, 1));
	assert_int_equal(got.time[4], 400);
	assert_int_equal(st.records, 5);
	assert_int_equal(st.samples, 4);
}

/*
 * Many passes of four buffers, every span in a compressed DATA block of its
 * own, so that the records waiting for a later round outlive the block
 * they came in (and the pending bytes are compacted again and again). Pass p holds
 * times in [1000p, 1000p + 1500): later than all of pass p - 2, as a
 * drain guarantees, so everything comes out sorted, none out of order.
 */
static void test_across_blocks(void **state)
{
	struct container_writer *w = writer_open(1);
	struct session_stats st;
	uint64_t seed = 12345;
	size_t total = 0;

	(void)state;
	for (uint64_t p = 1; p <= 40; p++) {
		for (uint32_t cpu = 0; cpu < 4; cpu++) {
			static struct bb r;
			uint64_t t = p * 1000 + cpu;
			struct err err = { 0 };

			r.len = 0;
			for (int k = 0; k < 100; k++) {
				seed = seed * 6364136223846793005ull + 1442695040888963407ull;
				t += 1 + (seed >> 60);
				if (t >= p * 1000 + 1500)
					break;
				sample(&r, t, cpu);
				total++;
			}
			write_span(w, cpu, &r);
			assert_int_equal(container_writer_flush(w, &err), 0);
		}
		write_round(w);
	}
	writer_close(w);
	read_back(&st);
	assert_int_equal(got.n, total);
	assert_true(total > 10000);
	for (size_t i = 0; i < got.n; i++) {
		assert_int_equal(got.ip[i] / 16, got.time[i]);
		if (i)
			assert_true(got.time[i - 1] <= got.time[i]);
	}
	assert_int_equal(st.out_of_order, 0);
	assert_int_equal(st.samples, total);
}


/* ---- a live session ------------------------------------------------------- */

static void live_event(struct session *s)
{
	struct perf_event_attr a;
	struct event_id id = { .id = 1, .cpu = -1, .tid = -1 };
	struct buf b = BUF_INIT;
	struct err err = { 0 };

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 1000;
	a.sample_type = ST;
	a.sample_id_all = 1;
	a.comm = 1;
	assert_int_equal(event_block_encode(&a, sizeof(a), "cpu-clock", &id, 1, &b), 0);
	assert_int_equal(session_feed_block(s, BLOCK_EVENT, b.data, b.len, on_record, &got, &err), 0);
	buf_free(&b);
}

static void put_span(struct buf *blk, uint32_t cpu, uint16_t kind, const void *p, size_t len)
{
	uint8_t h[SPAN_HEADER_SIZE];

	span_header_encode(cpu, kind, len, h);
	assert_int_equal(buf_append(blk, h, sizeof(h)), 0);
	if (len)
		assert_int_equal(buf_append(blk, p, len), 0);
}

/* The steps as prec top gives them: each pass one DATA block in memory
 * (its span counts in the data header left 0: the reading does not need
 * them), whose bytes are scribbled over once it was fed. */
static void live_steps(const struct step *steps, size_t n, struct session_stats *st)
{
	struct buf blk = BUF_INIT;
	struct session s;
	struct err err = { 0 };
	uint8_t zero[DATA_HEADER_SIZE] = { 0 };

	got.n = 0;
	assert_int_equal(session_open_live(&s, "live", true, &err), 0);
	live_event(&s);
	for (size_t i = 0; i < n; i++) {
		static struct bb r;

		if (!blk.len)
			assert_int_equal(buf_append(&blk, zero, sizeof(zero)), 0);
		if (steps[i].cpu != ROUND_CPU) {
			r.len = 0;
			for (size_t k = 0; k < 8 && steps[i].times[k]; k++)
				sample(&r, steps[i].times[k], steps[i].cpu);
			put_span(&blk, steps[i].cpu, SPAN_RECORDS, r.b, r.len);
			continue;
		}
		put_span(&blk, 0, SPAN_ROUND_END, NULL, 0);
		assert_int_equal(session_feed_block(&s, BLOCK_DATA, blk.data, blk.len, on_record,
						    &got, &err), 0);
		memset(blk.data, 0xa5, blk.len);
		buf_reset(&blk);
	}
	assert_int_equal(session_feed_end(&s, on_record, &got, &err), 0);
	*st = s.stats;
	session_close(&s);
	buf_free(&blk);
}

/* Fed live, the steps come out as read from a file. */
static void test_live_as_file(void **state)
{
	static const struct step steps[] = {
		{ 0, { 100, 500 } }, { 2, { 120 } }, ROUND,
		{ 1, { 200 } }, ROUND,
		{ 0, { 600 } }, { 1, { 550 } }, ROUND,
		{ 1, { 150, 700 } }, { 0, { 400, 800 } }, ROUND,
		{ 2, { 900 } }, { 0, { 910 } }, ROUND,
	};
	static struct got file;
	struct session_stats fst, lst;
	size_t n = sizeof(steps) / sizeof(steps[0]);

	(void)state;
	write_steps(steps, n);
	read_back(&fst);
	file = got;
	live_steps(steps, n, &lst);
	assert_int_equal(got.n, file.n);
	assert_int_equal(got.n, 12);
	for (size_t i = 0; i < got.n; i++) {
		assert_int_equal(got.time[i], file.time[i]);
		assert_int_equal(got.ip[i], file.ip[i]);
	}
	assert_int_equal(lst.samples, fst.samples);
	assert_int_equal(lst.out_of_order, fst.out_of_order);
	assert_int_equal(lst.bad_records, 0);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(tmpdir))
		return -1;
	snprintf(path, sizeof(path), "%s/t.data", tmpdir);
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
		cmocka_unit_test(test_cpus_merged),
		cmocka_unit_test(test_ties),
		cmocka_unit_test(test_round_holds_back),
		cmocka_unit_test(test_older_than_flush),
		cmocka_unit_test(test_no_rounds),
		cmocka_unit_test(test_across_blocks),
		cmocka_unit_test(test_live_as_file),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
