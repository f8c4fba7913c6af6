/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the COLUMNS encoding of DATA payloads (FORMAT.md 6.4) must
 * give back exactly the bytes it was given, and its decoder must take any
 * bytes without reading or writing out of bounds.
 *
 * Input: byte 0 picks the event layouts (sample_type bits among TID, TIME,
 * CPU, PERIOD, READ, CALLCHAIN, REGS_USER, STACK_USER, ADDR; a second
 * event when bit 7 is set), byte 1 the place of a byte to damage. The rest
 * drives the samples: for each, a control byte chooses the event, the
 * thread (of 4), whether the values repeat or change, the chain's length
 * and the stack copy's size, its dyn_size and how far the stack pointer
 * moves; the bytes that follow give the values that change. Every fourth
 * record is a COMM. The samples are laid out as the kernel lays them, in
 * spans of two CPUs; the payload is encoded, decoded and compared; the
 * encoded bytes with one byte changed are decoded too, and so is the input
 * itself, as garbage. The payload is also decoded with lazy stack copies
 * (format/stack_lazy.h): the same bytes but for the marked records'
 * copies, which their chains give back, in decode order, as decoded whole.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format/blocks.h"
#include "format/columns.h"
#include "format/record.h"
#include "format/stack_lazy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REGS ((1ull << 0) | (1ull << 6) | (1ull << 7) | (1ull << 8))   /* AX BP SP IP */

struct in {
	const uint8_t *p;
	size_t n, pos;
};

static uint64_t take(struct in *in, size_t n)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n && in->pos < in->n; i++)
		v |= (uint64_t)in->p[in->pos++] << (8 * i);
	return v;
}

static struct record_layouts *make_layouts(uint8_t sel, struct event_layout *l)
{
	static const uint64_t bits[] = {
		PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_CPU, PERF_SAMPLE_PERIOD,
		PERF_SAMPLE_CALLCHAIN, PERF_SAMPLE_REGS_USER, PERF_SAMPLE_STACK_USER,
	};
	struct record_layouts *ls = record_layouts_new();
	uint64_t ids[2] = { 7, 8 };

	l[0] = (struct event_layout){ .sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP,
				      .sample_regs_user = REGS, .sample_id_all = true };
	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (sel & (1u << i))
			l[0].sample_type |= bits[i];
	l[1] = l[0];
	l[1].sample_type |= PERF_SAMPLE_READ | PERF_SAMPLE_ADDR;
	l[1].read_format = PERF_FORMAT_ID;
	if (!ls || record_layouts_add(ls, &l[0], ids, 1, NULL) < 0 ||
	    ((sel & 0x80) && record_layouts_add(ls, &l[1], ids + 1, 1, NULL) < 0)) {
		record_layouts_free(ls);
		return NULL;
	}
	return ls;
}

struct thread {
	uint64_t w[8];          /* identifier, ip, tid, time, cpu, period, sp, ax */
	uint8_t stack[1280];
};

static void put64(struct buf *b, uint64_t v)
{
	buf_append(b, &v, 8);
}

/* One sample of event ev (layout l) for thread t, laid out as the kernel
 * does (perf_event_open(2)). */
static void sample(struct buf *b, const struct event_layout *l, uint64_t id, struct thread *t,
		   uint8_t ctl, struct in *in)
{
	struct perf_event_header h = { PERF_RECORD_SAMPLE, (uint16_t)(ctl & 3), 0 };
	size_t start = b->len;
	uint64_t st = l->sample_type, depth = (ctl >> 2) & 3;

	for (int i = 0; i < 8; i++)     /* values that change, and by how much */
		if (ctl & 0x40)
			t->w[i] += i == 3 ? 100000 + take(in, 1) : take(in, i == 1 ? 1 : 0);
	buf_append(b, &h, sizeof(h));
	put64(b, id);
	put64(b, t->w[1]);
	if (st & PERF_SAMPLE_TID)
		put64(b, t->w[2]);
	if (st & PERF_SAMPLE_TIME)
		put64(b, t->w[3]);
	if (st & PERF_SAMPLE_ADDR)
		put64(b, take(in, 8));
	if (st & PERF_SAMPLE_CPU)
		put64(b, t->w[4]);
	if (st & PERF_SAMPLE_PERIOD)
		put64(b, t->w[5]);
	if (st & PERF_SAMPLE_READ) {
		put64(b, take(in, 2));
		put64(b, id);
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		put64(b, depth);
		for (uint64_t i = 0; i < depth; i++)
			put64(b, i == 0 ? t->w[1] : 0x402000 + 16 * i + (ctl >> 7));
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		bool regs = !(ctl & 0x80) || !(st & PERF_SAMPLE_STACK_USER);

		put64(b, regs ? PERF_SAMPLE_REGS_ABI_64 : 0);
		if (regs) {
			put64(b, t->w[7]);
			put64(b, t->w[6] + 64);
			put64(b, t->w[6]);
			put64(b, t->w[1]);
		}
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		uint64_t sz = (ctl & 0x20) ? 8 * (1 + take(in, 1) % 96) + (ctl & 0x10 ? 3 : 0) : 0;

		put64(b, sz);
		if (sz) {
			uint64_t dyn = take(in, 1) % 2 ? sz : sz - take(in, 1) % (sz + 1);
			size_t at = (size_t)(t->w[6] % 256);

			t->stack[take(in, 1) % sizeof(t->stack)] ^= (uint8_t)take(in, 1);
			buf_append(b, t->stack + at, sz);
			memset(b->data + b->len - sz + dyn, 0, sz - dyn);   /* as the writer stores it */
			put64(b, dyn);
		}
	}
	h.size = (uint16_t)(b->len - start);
	memcpy(b->data + start, &h, sizeof(h));
}

static void comm(struct buf *b)
{
	struct perf_event_header h = { PERF_RECORD_COMM, 0, 8 + 8 + 16 };
	uint32_t pt[2] = { 100, 100 };

	buf_append(b, &h, sizeof(h));
	buf_append(b, pt, 8);
	buf_append(b, "app\0\0\0\0\0\0\0\0\0\0\0\0\0", 16);
}

/* The payload: spans of the two CPUs in turn, a round mark after each pair. */
static void payload_of(struct in *in, const struct record_layouts *ls, const struct event_layout *l,
		       struct buf *out)
{
	struct thread th[4];
	struct buf recs = BUF_INIT;
	struct data_header dh = { 0 };
	uint8_t hdr[DATA_HEADER_SIZE];

	memset(th, 0, sizeof(th));
	for (int i = 0; i < 4; i++) {
		th[i].w[2] = (uint64_t)(100 + i) << 32 | 100;
		th[i].w[6] = 0x7ff000 + 0x10000 * (uint64_t)i;
		for (size_t k = 0; k < sizeof(th[i].stack); k++)
			th[i].stack[k] = (uint8_t)(k % 5 ? k * 7 + i : 0);
	}
	data_header_encode(&dh, hdr);   /* counts filled below */
	buf_append(out, hdr, DATA_HEADER_SIZE);
	for (uint32_t cpu = 0; in->pos < in->n && out->len < (1u << 20); cpu ^= 1) {
		buf_reset(&recs);
		for (int k = 0; k < 8 && in->pos < in->n; k++, dh.nr_records++) {
			uint8_t ctl = (uint8_t)take(in, 1);
			int ev = record_layouts_count(ls) > 1 ? ctl >> 7 : 0;

			if (k % 4 == 3)
				comm(&recs);
			else
				sample(&recs, &l[ev], ev ? 8 : 7, &th[(ctl >> 4) & 3], ctl, in);
		}
		span_header_encode(cpu, SPAN_RECORDS, recs.len, hdr);
		buf_append(out, hdr, SPAN_HEADER_SIZE);
		buf_append(out, recs.data, recs.len);
		dh.nr_spans++;
		if (cpu) {
			span_header_encode(SPAN_CPU_SYNTH, SPAN_ROUND_END, 0, hdr);
			buf_append(out, hdr, SPAN_HEADER_SIZE);
			dh.nr_spans++;
		}
	}
	data_header_encode(&dh, out->data);
	buf_free(&recs);
}

/* enc decoded lazily is back, its copies rebuilt from their chains. */
static void check_lazy(const struct record_layouts *ls, const struct buf *enc,
		       const struct buf *back)
{
	struct buf lazy = BUF_INIT, marks = BUF_INIT;
	struct columns_lazy lz = { 0, &marks };
	struct stack_chains *c = stack_chains_new();
	const uint32_t *m;

	if (!c)
		abort();
	if (columns_decode_lazy(enc->data, enc->len, &lazy, &lz, NULL) || lazy.len != back->len)
		abort();
	m = (const uint32_t *)(const void *)marks.data;
	for (size_t i = 0; i < marks.len / sizeof(*m); i++) {
		struct record a, b;
		const uint8_t *got;
		uint16_t len;

		memcpy(&len, back->data + m[i] + 6, 2);
		if (record_decode(ls, lazy.data + m[i], len, &a, NULL) ||
		    record_decode(ls, back->data + m[i], len, &b, NULL) ||
		    a.u.sample.stack_size != b.u.sample.stack_size ||
		    stack_chains_take(c, a.u.sample.stack_data, a.u.sample.stack_size, &got) ||
		    memcmp(got, b.u.sample.stack_data, b.u.sample.stack_size))
			abort();        /* a chain gave back another copy */
		memcpy(lazy.data + (a.u.sample.stack_data - lazy.data), got, a.u.sample.stack_size);
	}
	if (memcmp(lazy.data, back->data, back->len))
		abort();                /* lazy decoding changed other bytes */
	stack_chains_free(c);
	buf_free(&lazy);
	buf_free(&marks);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf payload = BUF_INIT, enc = BUF_INIT, back = BUF_INIT;
	struct in in = { data, size, 2 };
	struct event_layout l[2];
	struct record_layouts *ls;
	struct columns_enc *e = columns_enc_new();

	if (size < 2 || !e)
		goto out;
	ls = make_layouts(data[0], l);
	if (ls) {
		payload_of(&in, ls, l, &payload);
		if (columns_encode(e, ls, payload.data, payload.len, &enc, NULL))
			abort();        /* a valid payload always encodes */
		if (columns_decode(enc.data, enc.len, &back, NULL) || back.len != payload.len ||
		    memcmp(back.data, payload.data, payload.len))
			abort();        /* the encoding lost or changed bytes */
		check_lazy(ls, &enc, &back);
		if (enc.len) {
			enc.data[(size_t)data[1] * 131 % enc.len] ^= (uint8_t)(1u << (data[1] % 8));
			columns_decode(enc.data, enc.len, &back, NULL);
		}
		record_layouts_free(ls);
	}
	columns_decode(data, size, &back, NULL);
out:
	columns_enc_free(e);
	buf_free(&payload);
	buf_free(&enc);
	buf_free(&back);
	return 0;
}
