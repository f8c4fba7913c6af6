/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the SAMPLE_SUMS block (format/samplesums.c, FORMAT.md 5.12)
 * and of the sums a reading builds for it (report/core/sums_build.c): a
 * payload reads back as written, and every rule of the block rejects a
 * payload that breaks it; samples that differ only in their time and
 * period make one class (its count, its periods summed), a record that
 * is not a sample between two like samples makes two, a sample that
 * differs anywhere else makes another; events the sums cannot stand for
 * (read values, user stack copies), too few samples per class and a
 * payload that grows large before its samples repeat give no block. The end-to-end comparison of reports read both ways is
 * tests/e2e/prep_sample_sums.sh.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "format/record.h"
#include "format/samplesums.h"
#include "report/core/session.h"
#include "report/core/sums_build.h"

/* ---- the payload --------------------------------------------------------- */

static const uint8_t rec_a[16] = { 9, 0, 0, 0, 0, 0, 16, 0, 1, 2, 3, 4, 5, 6, 7, 8 };
static const uint8_t rec_b[12] = { 3, 0, 0, 0, 0, 0, 12, 0, 'a', 'b', 'c', 0 };

/* A payload of a class (3 samples, period 30), a record, another class. */
static void make_payload(struct buf *b)
{
	struct samplesums h = { .covered_end = 4096, .covered_crc = 0xdeadbeef, .nr_events = 1,
				.samples = 5, .tmin = 100, .tmax = 900 };
	size_t at1, at2, at3;

	assert_int_equal(samplesums_begin(b), 0);
	assert_int_equal(samplesums_add(b, rec_a, sizeof(rec_a), true, 10, &at1), 0);
	assert_int_equal(samplesums_add(b, rec_b, sizeof(rec_b), false, 0, &at2), 0);
	assert_int_equal(samplesums_add(b, rec_a, sizeof(rec_a), true, 7, &at3), 0);
	samplesums_set(b, at1, 3, 30);
	samplesums_set(b, at3, 2, 14);
	samplesums_finish(b, &h, 3);
}

static void test_round_trip(void **state)
{
	struct buf b = BUF_INIT;
	struct samplesums ss;

	(void)state;
	make_payload(&b);
	assert_int_equal(samplesums_nr_items(&b), 3);
	samplesums_cover(&b, 8192, 0x12345678);
	assert_int_equal(samplesums_decode(b.data, b.len, &ss, NULL), 0);
	assert_int_equal(ss.covered_end, 8192);
	assert_int_equal(ss.covered_crc, 0x12345678);
	assert_int_equal(ss.nr_events, 1);
	assert_int_equal(ss.samples, 5);
	assert_int_equal(ss.tmin, 100);
	assert_int_equal(ss.tmax, 900);
	assert_int_equal(ss.nr_items, 3);
	assert_true(ss.items[0].sum);
	assert_int_equal(ss.items[0].count, 3);
	assert_int_equal(ss.items[0].period, 30);
	assert_int_equal(ss.items[0].len, sizeof(rec_a));
	assert_memory_equal(ss.items[0].rec, rec_a, sizeof(rec_a));
	assert_false(ss.items[1].sum);
	assert_int_equal(ss.items[1].count, 0);
	assert_int_equal(ss.items[1].len, sizeof(rec_b));
	assert_memory_equal(ss.items[1].rec, rec_b, sizeof(rec_b));
	assert_int_equal(ss.items[2].count, 2);
	assert_int_equal(ss.items[2].period, 14);
	samplesums_free(&ss);
	buf_free(&b);
}

/* The payload with the u32 at off set to v (or cut to len when v is ~0)
 * must not decode. */
static void expect_corrupt(const struct buf *good, size_t off, uint32_t v, size_t len)
{
	uint8_t *p = malloc(good->len);
	struct samplesums ss;
	struct err err = { 0 };

	assert_non_null(p);
	memcpy(p, good->data, good->len);
	if (off < good->len)
		memcpy(p + off, &v, 4);
	assert_int_equal(samplesums_decode(p, len, &ss, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "SAMPLE_SUMS"));
	assert_null(ss.items);
	free(p);
}

static void test_rules(void **state)
{
	struct buf b = BUF_INIT;
	const size_t item0 = SAMPLESUMS_HEADER_SIZE, item1 = item0 + 24 + 16;

	(void)state;
	make_payload(&b);
	expect_corrupt(&b, 44, 1, b.len);               /* reserved */
	expect_corrupt(&b, 40, 4, b.len);               /* nr_items */
	expect_corrupt(&b, 40, 2, b.len);
	expect_corrupt(&b, 40, 1000000, b.len);
	expect_corrupt(&b, 16, 6, b.len);               /* samples: not the counts' sum */
	expect_corrupt(&b, 24, 1000, b.len);            /* tmin after tmax */
	expect_corrupt(&b, item0 + 4, 2, b.len);        /* unknown flag */
	expect_corrupt(&b, item0 + 8, 0, b.len);        /* a class of no samples */
	expect_corrupt(&b, item1 + 8, 1, b.len);        /* a record with a count */
	expect_corrupt(&b, item1 + 16, 1, b.len);       /* ... or a period */
	expect_corrupt(&b, item1, 4, b.len);            /* shorter than a record header */
	expect_corrupt(&b, item1, 4000, b.len);         /* past the block */
	expect_corrupt(&b, item1 + 24 + 12, 1, b.len);  /* padding not zero */
	expect_corrupt(&b, b.len, 0, b.len - 8);        /* cut short */
	expect_corrupt(&b, b.len, 0, SAMPLESUMS_HEADER_SIZE - 1);
	buf_free(&b);
}

/* ---- the sums a reading builds ------------------------------------------- */

#define ST (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD | \
	    PERF_SAMPLE_CALLCHAIN)

/* A session of one event of sample_type st, as session_open leaves it. */
static void fake_session(struct session *s, uint64_t st)
{
	struct perf_event_attr attr = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(attr),
					.sample_type = st };
	struct event_layout l;

	memset(s, 0, sizeof(*s));
	s->layouts = record_layouts_new();
	assert_non_null(s->layouts);
	event_layout_from_attr(&l, &attr, sizeof(attr));
	assert_int_equal(record_layouts_add(s->layouts, &l, NULL, 0, NULL), 0);
	s->events = calloc(1, sizeof(*s->events));
	assert_non_null(s->events);
	s->events[0].attr = attr;
	s->events[0].name = (char *)"cpu-clock";
	s->nr_events = 1;
}

static void fake_free(struct session *s)
{
	record_layouts_free(s->layouts);
	free(s->events);
}

/* A sample of the fake event: ip, pid/tid, time, period, a chain of two. */
static void sample(uint64_t *w, uint64_t ip, uint32_t tid, uint64_t time, uint64_t period)
{
	memset(w, 0, 8 * 8);
	w[0] = PERF_RECORD_SAMPLE | (uint64_t)PERF_RECORD_MISC_USER << 32 | (uint64_t)64 << 48;
	w[1] = ip;
	w[2] = (uint64_t)tid << 32 | tid;
	w[3] = time;
	w[4] = period;
	w[5] = 2;
	w[6] = ip;
	w[7] = 0x401000;
}

static void feed_sample(struct sums_build *b, struct session *s, uint64_t ip, uint32_t tid,
			uint64_t time, uint64_t period)
{
	uint64_t w[8];

	sample(w, ip, tid, time, period);
	sums_build_record(b, s, (const uint8_t *)w, sizeof(w));
	s->stats.samples++;
	if (!s->first_time || time < s->first_time)
		s->first_time = time;
	if (time > s->last_time)
		s->last_time = time;
}

static void feed_comm(struct sums_build *b, struct session *s)
{
	uint64_t w[3] = { PERF_RECORD_COMM | (uint64_t)24 << 48, 7ull << 32 | 7, 0x6f6f66 };

	sums_build_record(b, s, (const uint8_t *)w, sizeof(w));
}

static void test_build_classes(void **state)
{
	struct sums_build *b = sums_build_new();
	struct samplesums ss;
	struct session s;
	struct buf *p;

	(void)state;
	assert_non_null(b);
	fake_session(&s, ST);
	/* 100 like samples, one of another address, one of another thread */
	for (int i = 0; i < 100; i++)
		feed_sample(b, &s, 0x401234, 7, 1000 + (uint64_t)i, 10 + (uint64_t)i);
	feed_sample(b, &s, 0x401238, 7, 2000, 5);
	feed_sample(b, &s, 0x401234, 8, 2001, 5);
	/* a record between: the same sample starts a new class */
	feed_comm(b, &s);
	for (int i = 0; i < 20; i++)
		feed_sample(b, &s, 0x401234, 7, 3000 + (uint64_t)i, 1);
	assert_int_equal(sums_build_payload(b, &s, &p), 1);
	assert_int_equal(samplesums_decode(p->data, p->len, &ss, NULL), 0);
	assert_int_equal(ss.samples, 122);
	assert_int_equal(ss.tmin, 1000);
	assert_int_equal(ss.tmax, 3019);
	assert_int_equal(ss.nr_events, 1);
	assert_int_equal(ss.nr_items, 5);
	assert_true(ss.items[0].sum);
	assert_int_equal(ss.items[0].count, 100);
	assert_int_equal(ss.items[0].period, 100 * 10 + 99 * 100 / 2);
	assert_int_equal(ss.items[1].count, 1);
	assert_int_equal(ss.items[2].count, 1);
	assert_false(ss.items[3].sum);
	assert_int_equal(ss.items[4].count, 20);
	assert_int_equal(ss.items[4].period, 20);
	/* a class is its first sample, with its own time */
	assert_int_equal(ss.items[4].len, 64);
	assert_int_equal(((const uint64_t *)ss.items[4].rec)[3], 3000);
	samplesums_free(&ss);
	sums_build_free(b);
	fake_free(&s);
}

static void test_build_gives_up(void **state)
{
	static const uint64_t unfit[] = { PERF_SAMPLE_READ, PERF_SAMPLE_STACK_USER };
	struct session s;
	struct buf *p;

	(void)state;
	/* too few samples a class: one record in SUMS_MIN_RATIO at most */
	struct sums_build *b = sums_build_new();

	fake_session(&s, ST);
	for (int i = 0; i < 64; i++)
		feed_sample(b, &s, 0x401000 + 8 * (uint64_t)(i % 9), 7, 1000 + (uint64_t)i, 1);
	assert_int_equal(sums_build_payload(b, &s, &p), 0);
	sums_build_free(b);
	fake_free(&s);
	/* a count that is not the session's (a sample the reading did not see) */
	b = sums_build_new();
	fake_session(&s, ST);
	for (int i = 0; i < 64; i++)
		feed_sample(b, &s, 0x401000, 7, 1000 + (uint64_t)i, 1);
	s.stats.samples++;
	assert_int_equal(sums_build_payload(b, &s, &p), 0);
	sums_build_free(b);
	fake_free(&s);
	/* events whose samples the sums cannot stand for */
	for (size_t k = 0; k < sizeof(unfit) / sizeof(unfit[0]); k++) {
		b = sums_build_new();
		fake_session(&s, ST);
		s.events[0].attr.sample_type |= unfit[k];
		for (int i = 0; i < 64; i++)
			feed_sample(b, &s, 0x401000, 7, 1000 + (uint64_t)i, 1);
		assert_int_equal(sums_build_payload(b, &s, &p), 0);
		sums_build_free(b);
		fake_free(&s);
	}
}

/* Samples that do not repeat at first: past SUMS_EARLY_BYTES with more
 * than one item in 4, the sums give up, though the samples that follow
 * would have brought them down to one in 9. */
static void test_build_gives_up_early(void **state)
{
	struct sums_build *b = sums_build_new();
	uint32_t unique = SUMS_EARLY_BYTES / (24 + 64) + 1000;
	struct session s;
	struct buf *p;

	(void)state;
	assert_non_null(b);
	fake_session(&s, ST);
	for (uint32_t i = 0; i < unique; i++)
		feed_sample(b, &s, 0x400000 + 8 * (uint64_t)i, 7, 1000 + i, 1);
	for (uint32_t i = 0; i < 8 * unique; i++)
		feed_sample(b, &s, 0x401000, 7, 1000 + unique + i, 1);
	assert_int_equal(sums_build_payload(b, &s, &p), 0);
	sums_build_free(b);
	fake_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_build_classes),
		cmocka_unit_test(test_build_gives_up),
		cmocka_unit_test(test_build_gives_up_early),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
