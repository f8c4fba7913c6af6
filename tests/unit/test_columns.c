/* SPDX-License-Identifier: MIT */
/* Unit tests of the COLUMNS encoding of DATA payloads (FORMAT.md 6.4),
 * alone and through the writer and reader. */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/blocks.h"
#include "format/columns.h"
#include "format/container.h"
#include "format/record.h"
#include "format/stack_lazy.h"
#include "report/core/session.h"

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	    PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)
#define REGS_MASK ((1ull << 7) | (1ull << 6) | (1ull << 0) | (1ull << 8))   /* AX BP SP IP */
#define STACK 2048

static uint64_t rng = 12345;
static bool clear_tails = true;
static bool full_dyn;           /* every copy's dyn_size is its size */
static uint64_t late_sample = UINT64_MAX;       /* make_payload: this one comes late */

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
	uint64_t dyn = full_dyn ? STACK : STACK - 512 + (next() % 2) * 256;

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
	if (clear_tails)        /* as the writer stores them (FORMAT.md 5.3) */
		memset(b->data + b->len - STACK + dyn, 0, STACK - dyn);
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
		add_sample(&recs, 100 + (uint32_t)(i % 3),
			   (uint64_t)i == late_sample ? 10000 + 10 * (uint64_t)i + 35 :
			   10000 + 10 * (uint64_t)i, stacks[i % 3]);
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

static void round_trip(const struct record_layouts *ls, const struct buf *p, struct buf *enc)
{
	struct columns_enc *e = columns_enc_new();
	struct buf back = BUF_INIT;
	struct err err = { 0 };

	assert_non_null(e);
	assert_int_equal(columns_encode(e, ls, p->data, p->len, enc, &err), 0);
	assert_int_equal(columns_decode(enc->data, enc->len, &back, &err), 0);
	assert_int_equal(back.len, p->len);
	assert_memory_equal(back.data, p->data, p->len);
	columns_enc_free(e);
	buf_free(&back);
}

static void test_round_trip(void **state)
{
	struct record_layouts *ls = layouts();
	struct buf p = BUF_INIT, enc = BUF_INIT;

	(void)state;
	make_payload(&p, 300);
	round_trip(ls, &p, &enc);
	/* unchanged words and units, repeated chains (6.3 gives a quarter) */
	assert_true(enc.len < p.len / 6);
	buf_free(&p);
	buf_free(&enc);
	record_layouts_free(ls);
}

/* The encoder keeps what it learnt between blocks (the time predictor);
 * every block still decodes alone. */
static void test_blocks_alone(void **state)
{
	struct record_layouts *ls = layouts();
	struct columns_enc *e = columns_enc_new();
	struct buf p = BUF_INIT, enc = BUF_INIT, back = BUF_INIT;

	(void)state;
	for (int k = 0; k < 4; k++) {
		make_payload(&p, 50 + 30 * k);
		assert_int_equal(columns_encode(e, ls, p.data, p.len, &enc, NULL), 0);
		assert_int_equal(columns_decode(enc.data, enc.len, &back, NULL), 0);
		assert_int_equal(back.len, p.len);
		assert_memory_equal(back.data, p.data, p.len);
	}
	columns_enc_free(e);
	buf_free(&p);
	buf_free(&enc);
	buf_free(&back);
	record_layouts_free(ls);
}

/* The bytes of a stack copy past its dyn_size are stored as zeros. */
static void test_stack_tails_zero(void **state)
{
	struct record_layouts *ls = layouts();
	struct columns_enc *e = columns_enc_new();
	struct buf p = BUF_INIT, enc = BUF_INIT, back = BUF_INIT, want = BUF_INIT;

	(void)state;
	rng = 777;
	clear_tails = false;
	make_payload(&p, 30);
	rng = 777;
	clear_tails = true;
	make_payload(&want, 30);
	assert_true(p.len == want.len && memcmp(p.data, want.data, p.len));
	assert_int_equal(columns_encode(e, ls, p.data, p.len, &enc, NULL), 0);
	assert_int_equal(columns_decode(enc.data, enc.len, &back, NULL), 0);
	assert_int_equal(back.len, want.len);
	assert_memory_equal(back.data, want.data, want.len);
	columns_enc_free(e);
	buf_free(&p);
	buf_free(&enc);
	buf_free(&back);
	buf_free(&want);
	record_layouts_free(ls);
}

static void test_no_layout_match_is_verbatim(void **state)
{
	struct record_layouts *ls = record_layouts_new();
	struct event_layout l = { .sample_type = PERF_SAMPLE_IP };
	uint64_t id = 99;
	struct buf p = BUF_INIT, enc = BUF_INIT;

	(void)state;
	/* two events that cannot be told apart: nothing is shaped */
	assert_int_equal(record_layouts_add(ls, &l, &id, 1, NULL), 0);
	id = 98;
	assert_int_equal(record_layouts_add(ls, &l, &id, 1, NULL), 1);
	make_payload(&p, 20);
	round_trip(ls, &p, &enc);
	assert_int_equal(enc.data[4 + DATA_HEADER_SIZE], 0);     /* no shapes */
	assert_true(enc.len > p.len);
	buf_free(&p);
	buf_free(&enc);
	record_layouts_free(ls);
}

/* Damage anywhere: an error or some output, never a crash or overrun. */
static void test_damage(void **state)
{
	struct record_layouts *ls = layouts();
	struct buf p = BUF_INIT, enc = BUF_INIT, back = BUF_INIT;
	struct err err = { 0 };
	int errors = 0;

	(void)state;
	make_payload(&p, 40);
	round_trip(ls, &p, &enc);
	for (size_t i = 0; i < enc.len; i += 3) {
		uint8_t *copy = malloc(enc.len);

		memcpy(copy, enc.data, enc.len);
		copy[i] ^= 0xff;
		errors += columns_decode(copy, enc.len, &back, &err) != 0;
		free(copy);
		/* and cut short */
		errors += columns_decode(enc.data, i, &back, &err) != 0;
	}
	assert_true(errors > 0);
	assert_int_equal(columns_decode(enc.data, 3, &back, &err), -PREC_ECORRUPT);
	assert_non_null(strstr(err.msg, "columns DATA block"));
	buf_free(&p);
	buf_free(&enc);
	buf_free(&back);
	record_layouts_free(ls);
}

/* Through the writer and the reader: the block is flagged COLUMNS, its CRC
 * is the encoded bytes', and it reads back as the records with their stack
 * tails cleared; a byte changed in it makes it corrupt. */
static void test_writer_reader(void **state)
{
	struct record_layouts *ls = layouts();
	char path[] = "/tmp/test_columns.XXXXXX";
	struct container_writer_opts o = { .level = 1 };
	struct container_writer *w;
	struct container_reader *r;
	struct container_block b;
	struct buf p = BUF_INIT, want = BUF_INIT;
	struct err err = { 0 };
	struct data_iter it;
	struct data_span s;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	rng = 99;
	clear_tails = false;
	make_payload(&p, 200);
	rng = 99;
	clear_tails = true;
	make_payload(&want, 200);
	assert_int_equal(container_writer_open(&w, path, &o, &err), 0);
	container_writer_set_layouts(w, ls);
	assert_int_equal(data_iter_init(&it, p.data, p.len, &err), 0);
	while (data_iter_next(&it, &s, &err) == 1)
		assert_int_equal(container_write_records(w, s.cpu, s.records, s.len, NULL, 0, &err), 0);
	assert_int_equal(container_writer_close(w, &err), 0);

	assert_int_equal(container_reader_open(&r, path, NULL, &err), 0);
	assert_int_equal(container_reader_next(r, &b, &err), 1);
	assert_int_equal(b.type, BLOCK_DATA);
	assert_int_equal(b.flags, BLOCK_FLAG_COLUMNS);
	assert_true(b.stored_len < p.len / 8);
	/* the spans as handed over: the data header's counts are the writer's */
	assert_int_equal(b.len, want.len);
	assert_memory_equal(b.data + DATA_HEADER_SIZE, want.data + DATA_HEADER_SIZE,
			    want.len - DATA_HEADER_SIZE);
	assert_int_equal(container_reader_stats(r)->corrupt_blocks, 0);
	container_reader_close(r);
	unlink(path);
	buf_free(&p);
	buf_free(&want);
	record_layouts_free(ls);
}

/* ---- lazy stack copies (format/stack_lazy.h) ------------------------- */

#define MAX_LAZY 1000

struct lazy_rec {
	const uint8_t *desc;
	uint64_t size;
	const uint8_t *want;    /* the copy as the eager decoding has it */
};

/* The payload encoded, then decoded eagerly into eager and lazily into
 * lazy: both alike but for the marked records' copies, which are put in r
 * (in decode order). The number of marked records. */
static size_t decode_both(const struct record_layouts *ls, const struct buf *p, struct buf *eager,
			  struct buf *lazy, struct lazy_rec *r)
{
	struct columns_enc *e = columns_enc_new();
	struct buf enc = BUF_INIT, marks = BUF_INIT, patched = BUF_INIT;
	struct columns_lazy lz = { 4096, &marks };
	const uint32_t *m;
	size_t n;

	assert_non_null(e);
	assert_int_equal(columns_encode(e, ls, p->data, p->len, &enc, NULL), 0);
	assert_int_equal(columns_decode(enc.data, enc.len, eager, NULL), 0);
	assert_int_equal(columns_decode_lazy(enc.data, enc.len, lazy, &lz, NULL), 0);
	assert_int_equal(lazy->len, eager->len);
	m = (const uint32_t *)(const void *)marks.data;
	n = marks.len / sizeof(*m);
	assert_true(n <= MAX_LAZY);
	put(&patched, lazy->data, lazy->len);
	for (size_t i = 0; i < n; i++) {
		struct record a, b;
		uint16_t size;

		assert_true(!i || m[i] > m[i - 1]);
		memcpy(&size, lazy->data + m[i] + 6, 2);
		assert_int_equal(record_decode(ls, lazy->data + m[i], size, &a, NULL), 0);
		assert_int_equal(record_decode(ls, eager->data + m[i], size, &b, NULL), 0);
		assert_int_equal(a.type, PERF_RECORD_SAMPLE);
		assert_int_equal(a.u.sample.stack_size, b.u.sample.stack_size);
		assert_int_equal(a.u.sample.stack_dyn_size, b.u.sample.stack_dyn_size);
		r[i] = (struct lazy_rec){ a.u.sample.stack_data, a.u.sample.stack_size,
					  b.u.sample.stack_data };
		memcpy(patched.data + (a.u.sample.stack_data - lazy->data), b.u.sample.stack_data,
		       b.u.sample.stack_size);
	}
	/* every other byte is the eager decoding's */
	assert_memory_equal(patched.data, eager->data, eager->len);
	columns_enc_free(e);
	buf_free(&enc);
	buf_free(&marks);
	buf_free(&patched);
	return n;
}

/* The copies taken in the order given (indexes into r): each the eager
 * one, from its chain or, where the chain cannot give it, set from the
 * eager bytes. The number of those. */
static int take_all(const struct lazy_rec *r, const size_t *order, size_t n)
{
	struct stack_chains *c = stack_chains_new();
	int fallbacks = 0;

	assert_non_null(c);
	for (size_t i = 0; i < n; i++) {
		const struct lazy_rec *x = &r[order[i]];
		const uint8_t *data;
		int ret = stack_chains_take(c, x->desc, x->size, &data);

		if (ret == 1) {
			fallbacks++;
			ret = stack_chains_set(c, x->desc, x->want, x->size, &data);
		}
		assert_int_equal(ret, 0);
		assert_memory_equal(data, x->want, x->size);
	}
	stack_chains_free(c);
	return fallbacks;
}

/* Decoded lazily, the copies come back from their chains in decode order;
 * taken out of order, the chains say so (and go on from the copy set). */
static void test_lazy_stacks(void **state)
{
	struct record_layouts *ls = layouts();
	struct buf p = BUF_INIT, eager = BUF_INIT, lazy = BUF_INIT;
	static struct lazy_rec r[MAX_LAZY];
	static size_t order[MAX_LAZY];
	size_t n;

	(void)state;
	rng = 4242;
	make_payload(&p, 300);
	n = decode_both(ls, &p, &eager, &lazy, r);
	assert_true(n > 250);   /* all but where the chains start whole */
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	assert_int_equal(take_all(r, order, n), 0);
	/* each six reversed: a thread's chain meets a copy before the one
	 * before it (the three threads' samples take turns) */
	for (size_t i = 0; i + 6 <= n; i += 6)
		for (size_t k = 0; k < 6; k++)
			order[i + k] = i + 5 - k;
	assert_true(take_all(r, order, n) > 0);
	/* copies without a zero unit: no descriptor fits, all rebuilt whole */
	full_dyn = true;
	make_payload(&p, 60);
	full_dyn = false;
	assert_int_equal(decode_both(ls, &p, &eager, &lazy, r), 0);
	buf_free(&p);
	buf_free(&eager);
	buf_free(&lazy);
	record_layouts_free(ls);
}

/* A descriptor by hand: chain, seq and flags, no units, in a copy of 64. */
static void desc_of(uint8_t *p, uint64_t chain, uint32_t seq, uint16_t flags)
{
	uint64_t sp = 0x7ffff000;

	memset(p, 0, 64);
	memcpy(p, &chain, 8);
	memcpy(p + 16, &sp, 8);
	memcpy(p + 28, &seq, 4);
	memcpy(p + 36, &flags, 2);
}

/* However many chains a reading starts without ending them (a damaged
 * file's), a bounded number stays: the others' copies are asked again. */
static void test_lazy_chains_bounded(void **state)
{
	struct stack_chains *c = stack_chains_new();
	const uint8_t *data;
	uint8_t d[64];
	int missing = 0;

	(void)state;
	assert_non_null(c);
	for (uint64_t i = 1; i <= 5000; i++) {
		desc_of(d, i, 0, LAZY_FULL);
		assert_int_equal(stack_chains_take(c, d, sizeof(d), &data), 0);
	}
	for (uint64_t i = 1; i <= 5000; i++) {
		desc_of(d, i, 1, 0);
		missing += stack_chains_take(c, d, sizeof(d), &data) == 1;
	}
	assert_true(missing >= 5000 - 1024 && missing < 5000);
	/* a descriptor that does not fit its copy, and runs past it */
	assert_int_equal(stack_chains_take(c, d, 16, &data), -1);
	desc_of(d, 9999, 0, LAZY_FULL);
	d[32] = 1;                                      /* one run ... */
	d[40] = 7;                                      /* ... from unit 7 of 8 */
	d[42] = 2;                                      /* ... of two units */
	assert_int_equal(stack_chains_take(c, d, sizeof(d), &data), -1);
	stack_chains_free(c);
}

struct want_stacks {
	const struct record_layouts *ls;
	const struct buf *plain;
	size_t samples;
};

static int check_stack(void *ctx, struct session *s, const struct record *rec)
{
	struct want_stacks *w = ctx;
	struct data_iter it;
	struct data_span sp;

	(void)s;
	if (rec->type != PERF_RECORD_SAMPLE)
		return 0;
	/* the plain payload's sample of the same time */
	assert_int_equal(data_iter_init(&it, w->plain->data, w->plain->len, NULL), 0);
	while (data_iter_next(&it, &sp, NULL) == 1)
		for (size_t off = 0, len; off < sp.len; off += len) {
			struct record x;

			assert_int_equal(record_next(sp.records, sp.len, off, &len, NULL), 1);
			if (record_decode(w->ls, sp.records + off, len, &x, NULL) ||
			    x.type != PERF_RECORD_SAMPLE || x.u.sample.time != rec->u.sample.time)
				continue;
			assert_int_equal(rec->u.sample.stack_size, x.u.sample.stack_size);
			assert_memory_equal(rec->u.sample.stack_data, x.u.sample.stack_data,
					    x.u.sample.stack_size);
			w->samples++;
			return 0;
		}
	fail_msg("no sample of time %llu", (unsigned long long)rec->u.sample.time);
	return 0;
}

/* Through a file and a session, which reads with lazy copies: a thread's
 * sample that comes late in its span is handed on after the next one; the
 * copies are the plain ones all the same, those two (and the rest of their
 * chain) from their block decoded again. */
static void test_lazy_session(void **state)
{
	struct record_layouts *ls = layouts();
	char path[] = "/tmp/test_columns_lazy.XXXXXX";
	struct container_writer_opts o = { .level = 1 };
	struct event_id id = { .id = 7, .cpu = -1, .tid = -1 };
	struct container_writer *w;
	struct perf_event_attr a;
	struct buf p = BUF_INIT, b = BUF_INIT;
	struct want_stacks want = { ls, &p, 0 };
	struct session s;
	struct err err = { 0 };
	struct data_iter it;
	struct data_span sp;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	rng = 31337;
	late_sample = 150;
	make_payload(&p, 300);
	late_sample = UINT64_MAX;
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 1000;
	a.sample_type = ST;
	a.sample_regs_user = REGS_MASK;
	a.sample_stack_user = STACK;
	assert_int_equal(container_writer_open(&w, path, &o, &err), 0);
	container_writer_set_layouts(w, ls);
	assert_int_equal(event_block_encode(&a, sizeof(a), "cpu-clock", &id, 1, &b), 0);
	assert_int_equal(container_write_block(w, BLOCK_EVENT, b.data, b.len, &err), 0);
	assert_int_equal(data_iter_init(&it, p.data, p.len, &err), 0);
	while (data_iter_next(&it, &sp, &err) == 1)
		assert_int_equal(container_write_records(w, sp.cpu, sp.records, sp.len, NULL, 0,
							 &err), 0);
	assert_int_equal(container_writer_close(w, &err), 0);

	assert_int_equal(session_open(&s, path, true, &err), 0);
	assert_int_equal(session_read(&s, check_stack, &want, &err), 0);
	assert_int_equal(want.samples, 300);
	assert_int_equal(s.stats.bad_records, 0);
	assert_true(s.stats.stacks_redecoded >= 2);
	session_close(&s);
	unlink(path);
	buf_free(&p);
	buf_free(&b);
	record_layouts_free(ls);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_blocks_alone),
		cmocka_unit_test(test_stack_tails_zero),
		cmocka_unit_test(test_no_layout_match_is_verbatim),
		cmocka_unit_test(test_damage),
		cmocka_unit_test(test_writer_reader),
		cmocka_unit_test(test_lazy_stacks),
		cmocka_unit_test(test_lazy_session),
		cmocka_unit_test(test_lazy_chains_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
