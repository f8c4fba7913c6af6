/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the writer's queue (opts.background): full DATA blocks wait
 * for a worker kept from running without holding the caller up, until the
 * queue is full; while 4 wait the worker compresses at level 1, past half
 * of the queue it writes blocks stored; the file holds every record, in
 * order, either way.
 *
 * The worker is held by the record_time callback (it runs on the worker's
 * thread, for each record of a block being written) while `gate` is shut.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "format/blocks.h"
#include "format/container.h"
#include "tools/synth.h"

#define BLOCK 70000u
#define QUEUE 8u                /* blocks */
#define PER_BLOCK 60000u        /* record bytes handed over per flush */

static char tmpdir[] = "/tmp/test_writer_queue.XXXXXX";
static char path[256];

static uint8_t records[(QUEUE + 2) * PER_BLOCK + 4096];
static size_t records_len;
static size_t cuts[QUEUE + 3];  /* records[cuts[i]..cuts[i+1]): flush i's records */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static bool gate_shut;
static int held;                /* times the worker waited at the gate */

static uint64_t held_time(void *ctx, const void *rec, size_t len)
{
	uint64_t t;

	(void)ctx;
	(void)len;
	pthread_mutex_lock(&lock);
	if (gate_shut) {
		held++;
		pthread_cond_broadcast(&cond);
		while (gate_shut)
			pthread_cond_wait(&cond, &lock);
	}
	pthread_mutex_unlock(&lock);
	memcpy(&t, (const uint8_t *)rec + 32, 8);
	return t;
}

static void gate(bool shut)
{
	pthread_mutex_lock(&lock);
	gate_shut = shut;
	held = 0;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
}

static void wait_held(void)
{
	pthread_mutex_lock(&lock);
	while (!held)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
}

static void *open_gate_later(void *arg)
{
	struct timespec ts = { 0, 100 * 1000 * 1000 };

	(void)arg;
	nanosleep(&ts, NULL);
	gate(false);
	return NULL;
}

/* Synthetic samples, cut at whole records into one span per flush. */
static void make_records(size_t flushes)
{
	struct synth s;
	size_t n = 0;

	synth_init(&s, 7, 7, 500);
	records_len = 0;
	cuts[0] = 0;
	while (n < flushes) {
		records_len += synth_sample(&s, records + records_len, 0);
		if (records_len - cuts[n] >= PER_BLOCK)
			cuts[++n] = records_len;
	}
}

static void write_span(struct container_writer *w, size_t i)
{
	struct err err = { 0 };

	assert_int_equal(container_write_records(w, 0, records + cuts[i], cuts[i + 1] - cuts[i],
						 NULL, 0, &err), 0);
	assert_int_equal(container_writer_flush(w, &err), 0);
}

/* The file's DATA records, concatenated, equal records[0..len); the number
 * of stored and compressed DATA blocks into *stored and *packed. */
static void check_file(size_t len, int *stored, int *packed)
{
	struct container_reader *r;
	struct container_block b;
	struct err err = { 0 };
	uint8_t *all = malloc(len + 1);
	size_t got = 0;

	assert_non_null(all);
	*stored = *packed = 0;
	assert_int_equal(container_reader_open(&r, path, NULL, &err), 0);
	while (container_reader_next(r, &b, &err) == 1) {
		struct data_iter it;
		struct data_span sp;

		if (b.type != BLOCK_DATA)
			continue;
		*(b.codec == CODEC_STORED ? stored : packed) += 1;
		assert_int_equal(data_iter_init(&it, b.data, b.len, &err), 0);
		while (data_iter_next(&it, &sp, &err) == 1) {
			assert_true(got + sp.len <= len);
			memcpy(all + got, sp.records, sp.len);
			got += sp.len;
		}
	}
	container_reader_close(r);
	assert_int_equal(got, len);
	assert_memory_equal(all, records, len);
	free(all);
}

static struct container_writer *open_writer(int level)
{
	struct container_writer_opts o = { .level = level, .block_size = BLOCK,
					   .queue_bytes = QUEUE * BLOCK,
					   .record_time = held_time, .background = true };
	struct container_writer *w;
	struct err err = { 0 };

	assert_int_equal(container_writer_open(&w, path, &o, &err), 0);
	return w;
}

/* A worker held while QUEUE blocks are handed over: no flush waits; once
 * it runs again, the blocks taken while more than half the queue waited
 * (the 2nd to the 4th: 7, 6, 5 of 8) are stored, the 5th (4 waiting) is
 * compressed at level 1 if the level asked is higher, the others at that
 * level. */
static void check_queue_holds_blocks(int level, uint64_t eased)
{
	struct container_writer_stats st;
	struct container_writer *w;
	struct err err = { 0 };
	int stored, packed;

	make_records(QUEUE);
	gate(true);
	w = open_writer(level);
	write_span(w, 0);
	wait_held();    /* the worker holds the first block: 1 of the queue */
	for (size_t i = 1; i < QUEUE; i++)
		write_span(w, i);
	gate(false);
	container_writer_get_stats(w, &st);
	assert_int_equal(st.queue_peak, QUEUE);
	assert_int_equal(st.queue_waits, 0);
	assert_int_equal(st.blocks_stored_behind, 3);
	assert_int_equal(st.blocks_eased, eased);
	assert_int_equal(st.blocks, QUEUE);
	assert_int_equal(container_writer_close(w, &err), 0);
	check_file(cuts[QUEUE], &stored, &packed);
	assert_int_equal(stored, 3);
	assert_int_equal(packed, QUEUE - 3);
}

static void test_queue_holds_blocks(void **state)
{
	(void)state;
	check_queue_holds_blocks(1, 0);
	check_queue_holds_blocks(6, 1);
}

/* A full queue: the next flush waits for the worker to give a slot back,
 * then goes on; nothing is lost or reordered. */
static void test_full_queue_waits(void **state)
{
	struct container_writer_stats st;
	struct container_writer *w;
	struct err err = { 0 };
	pthread_t t;
	int stored, packed;

	(void)state;
	make_records(QUEUE + 2);
	gate(true);
	w = open_writer(1);
	write_span(w, 0);
	wait_held();
	for (size_t i = 1; i < QUEUE; i++)
		write_span(w, i);
	assert_int_equal(pthread_create(&t, NULL, open_gate_later, NULL), 0);
	write_span(w, QUEUE);           /* waits for room */
	write_span(w, QUEUE + 1);
	pthread_join(t, NULL);
	container_writer_get_stats(w, &st);
	assert_int_equal(st.queue_peak, QUEUE);
	assert_true(st.queue_waits >= 1);
	assert_true(st.blocks_stored_behind >= 3);
	assert_int_equal(container_writer_close(w, &err), 0);
	check_file(cuts[QUEUE + 2], &stored, &packed);
	assert_int_equal(stored, (int)st.blocks_stored_behind);
	assert_int_equal(stored + packed, QUEUE + 2);
}

/* Level 0 (stored anyway): nothing counts as written behind. A queue smaller than
 * a block still takes one: each flush waits for the block before. */
static void test_small_queue_and_stored(void **state)
{
	struct container_writer_opts o = { .level = 0, .block_size = BLOCK, .queue_bytes = 1,
					   .background = true };
	struct container_writer_stats st;
	struct container_writer *w;
	struct err err = { 0 };
	int stored, packed;

	(void)state;
	make_records(4);
	assert_int_equal(container_writer_open(&w, path, &o, &err), 0);
	for (size_t i = 0; i < 4; i++)
		write_span(w, i);
	container_writer_get_stats(w, &st);
	assert_int_equal(st.queue_peak, 1);
	assert_int_equal(st.blocks_stored_behind, 0);
	assert_int_equal(st.blocks_eased, 0);
	assert_int_equal(container_writer_close(w, &err), 0);
	check_file(cuts[4], &stored, &packed);
	assert_int_equal(stored, 4);
	assert_int_equal(packed, 0);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(tmpdir))
		return -1;
	snprintf(path, sizeof(path), "%s/q.data", tmpdir);
	alarm(60);      /* a writer that never gives a slot back fails, not hangs */
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
		cmocka_unit_test(test_queue_holds_blocks),
		cmocka_unit_test(test_full_queue_waits),
		cmocka_unit_test(test_small_queue_and_stored),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
