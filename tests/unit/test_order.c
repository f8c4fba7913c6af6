/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the time order's merge (report/core/order.c), driven
 * directly: records added in runs (sorted, or not) come out as a stable
 * sort by time would give them, each flush handing on exactly those no
 * later than its limit; borrowed records whose memory the caller reuses
 * are held (the hold's token released once their last record is handed
 * on) or copied, their bytes intact either way; fn's failure stops a flush
 * and the records after it wait.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "report/core/order.h"

#define MAXN 20000

struct rec {
	uint64_t time;
	uint32_t id;            /* the order it was added in */
};

struct got {
	size_t n;
	struct rec r[MAXN];
	int fail_at;            /* fn fails at this record (-1: never) */
};

static int on_rec(void *ctx, const uint8_t *p, uint32_t len)
{
	struct got *g = ctx;

	assert_int_equal(len, sizeof(struct rec));
	assert_true(g->n < MAXN);
	memcpy(&g->r[g->n], p, sizeof(struct rec));
	if ((int)g->n++ == g->fail_at)
		return 7;
	return 0;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int by_time_then_id(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Records in runs of random length, each sorted or not, ties frequent,
 * flushed at random limits: what came out, flush after flush, is what a
 * stable sort of what waited gives, up to the limit. */
static void test_matches_stable_sort(void **state)
{
	static struct rec all[MAXN], want[MAXN];
	static struct got got;
	uint64_t seed = 99;

	(void)state;
	for (int round = 0; round < 20; round++) {
		struct order o;
		size_t n = 0, waiting = 0;

		order_init(&o, NULL, NULL);
		got.n = 0;
		got.fail_at = -1;
		while (n < MAXN - 600) {
			size_t len = 1 + rnd(&seed) % 300;
			bool sorted = rnd(&seed) % 4;
			uint64_t t = rnd(&seed) % 5000;

			for (size_t i = 0; i < len; i++, n++) {
				all[n] = (struct rec){ sorted ? t += rnd(&seed) % 3 : rnd(&seed) % 5000,
						       (uint32_t)n };
				assert_int_equal(order_add(&o, (const uint8_t *)&all[n], sizeof(all[n]),
							   all[n].time, false), 0);
			}
			waiting += len;
			if (rnd(&seed) % 3 == 0) {
				uint64_t limit = rnd(&seed) % 6000;
				size_t k = 0, keep = 0;

				/* want: the waiting ones, sorted, up to the limit */
				for (size_t i = 0; i < n; i++)
					if (all[i].id != UINT32_MAX)
						want[k++] = all[i];
				qsort(want, k, sizeof(*want), by_time_then_id);
				size_t before = got.n;

				assert_int_equal(order_flush(&o, limit, false, on_rec, &got), 0);
				for (size_t i = 0; i < k && want[i].time <= limit; i++, keep++) {
					assert_int_equal(got.r[before + i].time, want[i].time);
					assert_int_equal(got.r[before + i].id, want[i].id);
					all[want[i].id].id = UINT32_MAX;        /* handed on */
				}
				assert_int_equal(got.n - before, keep);
				waiting -= keep;
				assert_int_equal(order_waiting(&o), waiting);
				got.n = 0;
			}
		}
		order_free(&o);
	}
}

struct holds {
	int held, released;
	uint64_t last_released;
	bool refuse;
};

static bool hold(void *ctx, uint64_t *token)
{
	struct holds *h = ctx;

	if (h->refuse)
		return false;
	*token = 100 + (uint64_t)h->held++;
	return true;
}

static void release(void *ctx, uint64_t token)
{
	struct holds *h = ctx;

	h->released++;
	h->last_released = token;
}

/* Blocks of borrowed records, the caller's memory overwritten after each
 * order_adopt: held blocks stay valid and are released once drained;
 * refused holds copy the records; either way the bytes come out intact. */
static void test_adopt_hold_and_copy(void **state)
{
	static struct got got;
	struct holds h = { 0 };
	struct rec block[64];
	struct order o;
	static struct rec keep[8][64];  /* what a held block's memory stays */

	(void)state;
	order_init(&o, release, &h);
	got.n = 0;
	got.fail_at = -1;
	for (int b = 0; b < 8; b++) {
		struct rec *mem = (b % 2) ? keep[b] : block;

		h.refuse = !(b % 2);
		for (int i = 0; i < 64; i++) {
			mem[i] = (struct rec){ (uint64_t)(b * 50 + i), (uint32_t)(b * 64 + i) };
			assert_int_equal(order_add(&o, (const uint8_t *)&mem[i], sizeof(mem[i]),
						   mem[i].time, true), 0);
		}
		/* hand on what is before this block's second half */
		assert_int_equal(order_flush(&o, (uint64_t)(b * 50 + 31), false, on_rec, &got), 0);
		assert_int_equal(order_adopt(&o, hold, &h), 0);
		if (!(b % 2))
			memset(block, 0xee, sizeof(block));     /* the caller reuses it */
	}
	assert_int_equal(order_flush(&o, 0, true, on_rec, &got), 0);
	assert_int_equal(got.n, 8 * 64);
	for (size_t i = 1; i < got.n; i++)
		assert_true(got.r[i - 1].time < got.r[i].time ||
			    (got.r[i - 1].time == got.r[i].time && got.r[i - 1].id < got.r[i].id));
	for (size_t i = 0; i < got.n; i++)
		assert_int_equal(got.r[i].time, (got.r[i].id / 64) * 50 + got.r[i].id % 64);
	assert_int_equal(h.held, 4);
	assert_int_equal(h.released, 4);
	order_free(&o);
	assert_int_equal(h.released, 4);
}

/* A hold not yet drained when the queue is freed is released then. */
static void test_free_releases(void **state)
{
	struct holds h = { 0 };
	struct rec r[4] = { { 5, 0 }, { 6, 1 }, { 7, 2 }, { 8, 3 } };
	struct order o;

	(void)state;
	order_init(&o, release, &h);
	for (int i = 0; i < 4; i++)
		assert_int_equal(order_add(&o, (const uint8_t *)&r[i], sizeof(r[i]), r[i].time, true), 0);
	assert_int_equal(order_adopt(&o, hold, &h), 0);
	assert_int_equal(h.held, 1);
	assert_int_equal(h.released, 0);
	order_free(&o);
	assert_int_equal(h.released, 1);
	assert_int_equal(h.last_released, 100);
}

/* fn fails at the third record: two handed on before it, the rest wait and
 * come out next time, in order. */
static void test_fn_failure_stops(void **state)
{
	static struct got got;
	struct rec r[6];
	struct order o;

	(void)state;
	order_init(&o, NULL, NULL);
	for (int i = 0; i < 6; i++) {
		r[i] = (struct rec){ (uint64_t)(i % 2 ? 10 + i : i), (uint32_t)i };
		assert_int_equal(order_add(&o, (const uint8_t *)&r[i], sizeof(r[i]), r[i].time, false), 0);
	}
	got.n = 0;
	got.fail_at = 2;
	assert_int_equal(order_flush(&o, 100, false, on_rec, &got), 7);
	assert_int_equal(got.n, 3);
	assert_int_equal(order_waiting(&o), 3);
	got.fail_at = -1;
	assert_int_equal(order_flush(&o, 100, false, on_rec, &got), 0);
	assert_int_equal(got.n, 6);
	for (size_t i = 1; i < got.n; i++)
		assert_true(got.r[i - 1].time <= got.r[i].time);
	order_free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matches_stable_sort),
		cmocka_unit_test(test_adopt_hold_and_copy),
		cmocka_unit_test(test_free_releases),
		cmocka_unit_test(test_fn_failure_stops),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
