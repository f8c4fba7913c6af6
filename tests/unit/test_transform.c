/* SPDX-License-Identifier: MIT */
/* Unit tests of the TRANSFORMED encoding of DATA payloads (FORMAT.md 6.3),
 * alone and through the writer and reader. */
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
#include "format/record.h"
#include "format/transform.h"

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	    PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)
#define REGS_MASK ((1ull << 7) | (1ull << 6) | (1ull << 0) | (1ull << 8))   /* AX BP SP IP */
#define STACK 2048

static uint64_t rng = 12345;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void put(struct buf *b, const void *p, size_t n)
{
	assert_int_equal(buf_append(b, p, n), 0);
}

static void put64(struct buf *b, uint64_t v)
{
	put(b, &v, 8);
}

/* A dwarf-style sample of thread tid: a stack that mostly repeats, shifted
 * as the stack pointer moves, a chain from a small set, a few random regs. */
static void add_sample(struct buf *b, uint32_t tid, uint64_t t, uint8_t *stack_img)
{
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 0 };
	size_t start = b->len;
	uint32_t pidtid[2] = { 100, tid };
	uint64_t k = next() % 4, sp = 0x7ffff000 + k * 64, depth = 2 + next() % 3;
	uint64_t dyn = STACK - 512 + (next() % 2) * 256;

	put(b, &h, sizeof(h));
	put64(b, 7);                            /* identifier */
	put64(b, 0x401000 + next() % 64);       /* ip */
	put(b, pidtid, 8);
	put64(b, t);
	put64(b, depth);
	for (uint64_t i = 0; i < depth; i++)
		put64(b, 0x402000 + i * 0x10);
	put64(b, PERF_SAMPLE_REGS_ABI_64);
	put64(b, next());                       /* AX: random */
	put64(b, 0x7ffff100);                   /* BP */
	put64(b, sp);                           /* SP */
	put64(b, 0x401000);                     /* IP */
	put64(b, STACK);
	stack_img[256 + next() % 64] ^= 0x5a;   /* a local changes */
	/* the copy starts at sp: byte i is at address sp + i, img[sp + i - base] */
	put(b, stack_img + k * 64, STACK);
	put64(b, dyn);
	h.size = (uint16_t)(b->len - start);
	memcpy(b->data + start, &h, sizeof(h));
}

static void add_comm(struct buf *b)
{
	struct perf_event_header h = { PERF_RECORD_COMM, 0, 8 + 8 + 16 };
	uint32_t pidtid[2] = { 100, 100 };
	char comm[16] = "app";

	put(b, &h, sizeof(h));
	put(b, pidtid, 8);
	put(b, comm, 16);
}

static struct record_layouts *layouts(void)
{
	struct record_layouts *ls = record_layouts_new();
	struct event_layout l = { .sample_type = ST, .sample_regs_user = REGS_MASK };
	uint64_t id = 7;

	assert_non_null(ls);
	assert_int_equal(record_layouts_add(ls, &l, &id, 1, NULL), 0);
	return ls;
}

/* A DATA payload: data header, a span of n samples over 3 threads. */
static void make_payload(struct buf *p, int n)
{
	static uint8_t stacks[3][STACK + 256];
	struct buf recs = BUF_INIT;
	struct data_header dh = { 0, 0, (uint32_t)n + 1, 2 };
	uint8_t hdr[DATA_HEADER_SIZE], span[SPAN_HEADER_SIZE];

	for (int k = 0; k < 3; k++)
		for (int i = 0; i < STACK + 256; i++)
			stacks[k][i] = (uint8_t)next();
	add_comm(&recs);
	for (int i = 0; i < n; i++)
		add_sample(&recs, 100 + (uint32_t)(i % 3), 1000 + (uint64_t)i, stacks[i % 3]);
	buf_reset(p);
	data_header_encode(&dh, hdr);
	put(p, hdr, sizeof(hdr));
	/* two spans: the COMM alone, then the samples */
	span_header_encode(SPAN_CPU_SYNTH, SPAN_RECORDS, 32, span);
	put(p, span, sizeof(span));
	put(p, recs.data, 32);
	span_header_encode(0, SPAN_RECORDS, recs.len - 32, span);
	put(p, span, sizeof(span));
	put(p, recs.data + 32, recs.len - 32);
	buf_free(&recs);
	assert_int_equal(block_payload_validate(BLOCK_DATA, p->data, p->len, NULL), 0);
}

static void test_round_trip(void **state)
{
	struct record_layouts *ls = layouts();
	struct buf p = BUF_INIT, t = BUF_INIT, back = BUF_INIT;
	struct err err = { 0 };

	(void)state;
	make_payload(&p, 300);
	assert_int_equal(data_transform(ls, p.data, p.len, &t, &err), 0);
	assert_int_equal(data_untransform(t.data, t.len, &back, &err), 0);
	assert_int_equal(back.len, p.len);
	assert_memory_equal(back.data, p.data, p.len);
	/* unchanged stacks and repeated chains: runs of zeros and references */
	assert_true(t.len < p.len / 4);
	buf_free(&p);
	buf_free(&t);
	buf_free(&back);
	record_layouts_free(ls);
}

static void test_no_layout_match_is_verbatim(void **state)
{
	struct record_layouts *ls = record_layouts_new();
	struct event_layout l = { .sample_type = PERF_SAMPLE_IP };
	uint64_t id = 99;
	struct buf p = BUF_INIT, t = BUF_INIT, back = BUF_INIT;

	(void)state;
	/* two events that cannot be told apart: nothing decodes, all verbatim */
	assert_int_equal(record_layouts_add(ls, &l, &id, 1, NULL), 0);
	id = 98;
	assert_int_equal(record_layouts_add(ls, &l, &id, 1, NULL), 1);
	make_payload(&p, 20);
	assert_int_equal(data_transform(ls, p.data, p.len, &t, NULL), 0);
	assert_int_equal(t.len, 4 + p.len + 21);   /* orig_len + a tag per record */
	assert_int_equal(data_untransform(t.data, t.len, &back, NULL), 0);
	assert_memory_equal(back.data, p.data, p.len);
	buf_free(&p);
	buf_free(&t);
	buf_free(&back);
	record_layouts_free(ls);
}

/* Damage anywhere: an error or some output, never a crash or overrun. */
static void test_damage(void **state)
{
	struct record_layouts *ls = layouts();
	struct buf p = BUF_INIT, t = BUF_INIT, back = BUF_INIT;
	struct err err = { 0 };
	int errors = 0;

	(void)state;
	make_payload(&p, 40);
	assert_int_equal(data_transform(ls, p.data, p.len, &t, &err), 0);
	for (size_t i = 0; i < t.len; i += 7) {
		uint8_t *copy = malloc(t.len);

		memcpy(copy, t.data, t.len);
		copy[i] ^= 0xff;
		errors += data_untransform(copy, t.len, &back, &err) != 0;
		free(copy);
		/* and cut short */
		errors += data_untransform(t.data, i, &back, &err) != 0;
	}
	assert_true(errors > 0);
	assert_int_equal(data_untransform(t.data, 3, &back, &err), -PREC_ECORRUPT);
	assert_non_null(strstr(err.msg, "transformed DATA block"));
	buf_free(&p);
	buf_free(&t);
	buf_free(&back);
	record_layouts_free(ls);
}

/* Through the writer and the reader: the block is flagged, smaller, and
 * reads back as the records with their stack tails cleared. */
static void test_writer_reader(void **state)
{
	struct record_layouts *ls = layouts();
	char path[] = "/tmp/test_transform.XXXXXX";
	struct container_writer_opts o = { .level = 1, .legacy_transform = true };
	struct container_writer *w;
	struct container_reader *r;
	struct container_block b;
	struct buf p = BUF_INIT;
	struct err err = { 0 };
	struct data_iter it;
	struct data_span s;
	size_t off = 0, len;
	int fd = mkstemp(path), nr = 0;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	make_payload(&p, 200);
	assert_int_equal(container_writer_open(&w, path, &o, &err), 0);
	container_writer_set_layouts(w, ls);
	/* hand over the samples span's records */
	assert_int_equal(data_iter_init(&it, p.data, p.len, &err), 0);
	while (data_iter_next(&it, &s, &err) == 1)
		assert_int_equal(container_write_records(w, s.cpu, s.records, s.len, NULL, 0, &err), 0);
	assert_int_equal(container_writer_close(w, &err), 0);

	assert_int_equal(container_reader_open(&r, path, NULL, &err), 0);
	assert_int_equal(container_reader_next(r, &b, &err), 1);
	assert_int_equal(b.type, BLOCK_DATA);
	assert_int_equal(b.flags, BLOCK_FLAG_TRANSFORMED);
	assert_int_equal(data_iter_init(&it, b.data, b.len, &err), 0);
	while (data_iter_next(&it, &s, &err) == 1) {
		off = 0;
		while (record_next(s.records, s.len, off, &len, &err) == 1) {
			struct record rec;

			assert_int_equal(record_decode(ls, s.records + off, len, &rec, &err), 0);
			if (rec.type == PERF_RECORD_SAMPLE) {
				const struct sample *sm = &rec.u.sample;

				for (uint64_t i = sm->stack_dyn_size; i < sm->stack_size; i++)
					assert_int_equal(sm->stack_data[i], 0);
				nr++;
			}
			off += len;
		}
	}
	assert_int_equal(nr, 200);
	assert_int_equal(container_reader_stats(r)->corrupt_blocks, 0);
	container_reader_close(r);
	unlink(path);
	buf_free(&p);
	record_layouts_free(ls);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_no_layout_match_is_verbatim),
		cmocka_unit_test(test_damage),
		cmocka_unit_test(test_writer_reader),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
