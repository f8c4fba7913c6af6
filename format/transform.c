/* SPDX-License-Identifier: MIT */
/*
 * The TRANSFORMED encoding of DATA payloads (FORMAT.md 6.3): a reversible
 * rewrite, applied before the codec, that turns what repeats inside a block
 * into what deflate codes almost for free. Call chains seen before in the
 * block become references to a table; user-stack copies and user registers
 * are XORed with the previous ones of the same thread (stacks aligned on the
 * stack pointer), which turns the unchanged outer frames into runs of zeros.
 *
 * The encoder needs the events' layouts to find those fields; the decoder
 * needs nothing but the bytes: every edit says where it applies.
 */
#include "transform.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "blocks.h"
#include "container.h"
#include "record.h"

#define OP_NEW 1
#define OP_REF 2
#define OP_XOR 3
#define OP_XOR_RLE 4   /* as OP_XOR, the XORed bytes run-length coded */
#define MAX_OPS 8
#define MAX_TABLE (1u << 20)
#define KEY_STACK 1
#define KEY_REGS 2
#define X86_SP 7   /* PERF_REG_X86_SP */

struct region {
	uint64_t key;
	uint8_t *bytes;         /* encoder: a copy of the previous plain bytes */
	size_t len, cap;
	size_t out_off;         /* decoder: where they are in the output instead */
};

struct entry {
	uint32_t off, len;      /* in the table bytes */
	uint64_t hash;
};

/* State shared by encoder and decoder: the chain table and the previous
 * XOR region of each key. Small linear maps: a block holds few threads. */
struct xstate {
	struct buf table;
	struct entry *entries;
	size_t nr_entries, cap_entries;
	uint32_t *slots;        /* open hash of entry indexes + 1 (encoder) */
	size_t nr_slots;
	struct region *regions;
	size_t nr_regions;
	struct buf scratch;     /* XORed bytes of the edit at hand */
};

struct op {
	uint16_t off, len;
	uint8_t kind;
	uint32_t index;
	uint64_t key;
	int32_t shift;
};

/* Eight bytes at a time: call chains are arrays of u64. */
static uint64_t hash_bytes(const uint8_t *p, size_t n)
{
	uint64_t h = 1469598103934665603ull ^ n;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t v;

		memcpy(&v, p + i, 8);
		h = (h ^ v) * 0x9E3779B97F4A7C15ull;
		h ^= h >> 29;
	}
	for (; i < n; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

static void xstate_free(struct xstate *x)
{
	buf_free(&x->table);
	buf_free(&x->scratch);
	free(x->entries);
	free(x->slots);
	for (size_t i = 0; i < x->nr_regions; i++)
		free(x->regions[i].bytes);
	free(x->regions);
	memset(x, 0, sizeof(*x));
}

static int table_add(struct xstate *x, const uint8_t *p, size_t len, uint64_t h)
{
	struct entry *e;

	if (x->nr_entries >= MAX_TABLE)
		return -PREC_ELIMIT;
	if (x->nr_entries == x->cap_entries) {
		size_t cap = x->cap_entries ? 2 * x->cap_entries : 256;

		e = array_realloc(x->entries, cap, sizeof(*e));
		if (!e)
			return -ENOMEM;
		x->entries = e;
		x->cap_entries = cap;
	}
	e = &x->entries[x->nr_entries];
	e->off = (uint32_t)x->table.len;
	e->len = (uint32_t)len;
	e->hash = h;
	if (buf_append(&x->table, p, len))
		return -ENOMEM;
	x->nr_entries++;
	return 0;
}

/* Encoder only: index of an equal entry, or -1; keeps the hash in step. */
static int table_find(struct xstate *x, const uint8_t *p, size_t len, uint64_t h)
{
	size_t mask;

	if (x->nr_slots < 2 * (x->nr_entries + 1)) {
		size_t n = x->nr_slots ? 2 * x->nr_slots : 1024;
		uint32_t *s = calloc(n, sizeof(*s));

		if (!s)
			return -2;
		free(x->slots);
		x->slots = s;
		x->nr_slots = n;
		for (size_t i = 0; i < x->nr_entries; i++) {
			size_t k = x->entries[i].hash & (n - 1);

			while (s[k])
				k = (k + 1) & (n - 1);
			s[k] = (uint32_t)i + 1;
		}
	}
	mask = x->nr_slots - 1;
	for (size_t k = h & mask; x->slots[k]; k = (k + 1) & mask) {
		const struct entry *e = &x->entries[x->slots[k] - 1];

		if (e->hash == h && e->len == len && !memcmp(x->table.data + e->off, p, len))
			return (int)(x->slots[k] - 1);
	}
	return -1;
}

static void table_index(struct xstate *x)
{
	size_t mask = x->nr_slots - 1, k;
	const struct entry *e = &x->entries[x->nr_entries - 1];

	if (!x->slots)
		return;
	for (k = e->hash & mask; x->slots[k]; k = (k + 1) & mask)
		;
	x->slots[k] = (uint32_t)x->nr_entries;
}

static struct region *region_of(struct xstate *x, uint64_t key)
{
	struct region *r;

	for (size_t i = 0; i < x->nr_regions; i++)
		if (x->regions[i].key == key)
			return &x->regions[i];
	r = array_realloc(x->regions, x->nr_regions + 1, sizeof(*r));
	if (!r)
		return NULL;
	x->regions = r;
	r = &r[x->nr_regions++];
	memset(r, 0, sizeof(*r));
	r->key = key;
	return r;
}

/* out = a ^ b, a word at a time (stack copies are kilobytes per sample) */
static void xor_bytes(uint8_t *out, const uint8_t *a, const uint8_t *b, size_t n)
{
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t x, y;

		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		x ^= y;
		memcpy(out + i, &x, 8);
	}
	for (; i < n; i++)
		out[i] = a[i] ^ b[i];
}

/*
 * dst[j] = lit[j] ^ prev[j + shift] for j in [j0, j0 + n), where prev is the
 * key's previous plain bytes (0 outside them) and lit NULL means zeros. The
 * decoder reads the previous plain bytes where it decoded them, in its
 * output (reserved whole before decoding, so it does not move): nothing is
 * copied aside, and a zero run costs one copy from there.
 */
static void unxor(uint8_t *dst, const uint8_t *lit, size_t j0, size_t n, const uint8_t *prev,
		  size_t plen, int32_t shift)
{
	int64_t lo = (int64_t)j0 + shift;       /* prev index of dst[j0] */
	size_t a = lo < 0 ? (-lo < (int64_t)n ? (size_t)-lo : n) : 0;
	int64_t end = (int64_t)plen - lo;       /* dst index where prev ends */
	size_t b = end < (int64_t)a ? a : end > (int64_t)n ? n : (size_t)end;

	if (lit)
		memcpy(dst, lit, a);
	else
		memset(dst, 0, a);
	if (b > a && lit)
		xor_bytes(dst + a, lit + a, prev + lo + (int64_t)a, b - a);
	else if (b > a)
		memcpy(dst + a, prev + lo + (int64_t)a, b - a);
	if (lit)
		memcpy(dst + b, lit + b, n - b);
	else
		memset(dst + b, 0, n - b);
}

/* Encoding: out = plain ^ the key's previous plain bytes (kept as a copy);
 * plain then becomes them. */
static int xor_apply(struct xstate *x, uint64_t key, int32_t shift, const uint8_t *plain,
		     uint8_t *out, size_t len)
{
	struct region *r = region_of(x, key);

	if (!r)
		return -ENOMEM;
	unxor(out, plain, 0, len, r->bytes, r->len, shift);
	if (r->cap < len) {
		uint8_t *grown = array_realloc(r->bytes, len, 1);

		if (!grown)
			return -ENOMEM;
		r->bytes = grown;
		r->cap = len;
	}
	memcpy(r->bytes, plain, len);
	r->len = len;
	return 0;
}

/* ---- encoder ------------------------------------------------------------ */

static uint64_t sample_sp(const struct sample *s)
{
	unsigned idx;

	if (!(s->regs_user.mask & (1ull << X86_SP)) || !s->regs_user.nr)
		return 0;
	idx = (unsigned)__builtin_popcountll(s->regs_user.mask & ((1ull << X86_SP) - 1));
	return idx < s->regs_user.nr ? u64_at(s->regs_user.regs, idx) : 0;
}

static int add_op(struct op *ops, int *n, const uint8_t *rec, const uint8_t *at, size_t len,
		  uint8_t kind)
{
	if (*n >= MAX_OPS || !len || len > 65535)
		return -1;
	ops[*n].off = (uint16_t)(at - rec);
	ops[*n].len = (uint16_t)len;
	ops[*n].kind = kind;
	return (*n)++;
}

/* Plan the edits of one sample; returns the number of ops. */
static int plan_sample(const struct sample *s, const uint8_t *rec, struct op *ops,
		       uint64_t *sp_prev_tid, struct xstate *x, int *err)
{
	int n = 0, k;

	if ((s->type & PERF_SAMPLE_CALLCHAIN) && s->callchain_nr) {
		const uint8_t *start = s->callchain - 8;
		size_t len = 8 + 8 * (size_t)s->callchain_nr;
		uint64_t h = hash_bytes(start, len);
		int idx = table_find(x, start, len, h);

		if (idx == -2) {
			*err = -ENOMEM;
			return 0;
		}
		k = add_op(ops, &n, rec, start, len, idx >= 0 ? OP_REF : OP_NEW);
		if (k >= 0 && idx >= 0)
			ops[k].index = (uint32_t)idx;
	}
	if ((s->type & PERF_SAMPLE_REGS_USER) && s->regs_user.nr) {
		k = add_op(ops, &n, rec, s->regs_user.regs, 8 * (size_t)s->regs_user.nr, OP_XOR_RLE);
		if (k >= 0) {
			ops[k].key = (uint64_t)s->tid << 2 | KEY_REGS;
			ops[k].shift = 0;
		}
	}
	if ((s->type & PERF_SAMPLE_STACK_USER) && s->stack_size) {
		uint64_t sp = sample_sp(s);
		int64_t shift = sp && *sp_prev_tid ? (int64_t)(sp - *sp_prev_tid) : 0;

		k = add_op(ops, &n, rec, s->stack_data, s->stack_size, OP_XOR_RLE);
		if (k >= 0) {
			ops[k].key = (uint64_t)s->tid << 2 | KEY_STACK;
			ops[k].shift = shift > INT32_MAX || shift < INT32_MIN ? 0 : (int32_t)shift;
		}
		*sp_prev_tid = sp;
	}
	return n;
}

/* The stack pointer of the previous stack copy of each thread. */
struct sp_map {
	uint32_t tid[64];
	uint64_t sp[64];
	size_t n;
};

static uint64_t *sp_slot(struct sp_map *m, uint32_t tid)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->tid[i] == tid)
			return &m->sp[i];
	if (m->n == 64)
		m->n = 0;   /* many threads: forget, at worst a shift of 0 */
	m->tid[m->n] = tid;
	m->sp[m->n] = 0;
	return &m->sp[m->n++];
}

/* The XORed bytes as runs: u16 zeros, u16 count, count bytes; repeated
 * until the region is covered. An unchanged stack becomes a few bytes. */
static int emit_xor_rle(struct xstate *x, const struct op *o, const uint8_t *plain,
			struct buf *out)
{
	uint8_t *xored;
	size_t i = 0;
	int ret;

	buf_reset(&x->scratch);
	if (buf_reserve(&x->scratch, o->len))
		return -ENOMEM;
	xored = x->scratch.data;
	ret = xor_apply(x, o->key, o->shift, plain, xored, o->len);
	while (!ret && i < o->len) {
		size_t z = i, n;

		while (z < o->len && !xored[z])
			z++;
		n = z;
		/* a literal run ends at 4 zeros in a row (or the end) */
		while (n < o->len && (xored[n] || (n + 4 <= o->len &&
		       (xored[n + 1] | xored[n + 2] | xored[n + 3]))))
			n++;
		ret = buf_put_u16(out, (uint16_t)(z - i));
		ret = ret ? ret : buf_put_u16(out, (uint16_t)(n - z));
		ret = ret ? ret : buf_append(out, xored + z, n - z);
		i = n;
	}
	return ret;
}

static int emit_edited(struct xstate *x, const uint8_t *rec, size_t len, struct op *ops, int n,
		       struct buf *out)
{
	int ret = buf_put_u8(out, 1);
	size_t pos = 0;

	ret = ret ? ret : buf_put_u16(out, (uint16_t)len);
	ret = ret ? ret : buf_put_u8(out, (uint8_t)n);
	for (int i = 0; i < n && !ret; i++) {
		ret = buf_put_u16(out, ops[i].off);
		ret = ret ? ret : buf_put_u16(out, ops[i].len);
		ret = ret ? ret : buf_put_u8(out, ops[i].kind);
		if (!ret && ops[i].kind == OP_REF)
			ret = buf_put_u32(out, ops[i].index);
		if (!ret && (ops[i].kind == OP_XOR || ops[i].kind == OP_XOR_RLE)) {
			ret = buf_put_u64(out, ops[i].key);
			ret = ret ? ret : buf_put_u32(out, (uint32_t)ops[i].shift);
		}
	}
	for (int i = 0; i < n && !ret; i++) {
		const struct op *o = &ops[i];

		ret = buf_append(out, rec + pos, o->off - pos);
		if (!ret && o->kind == OP_NEW) {
			ret = buf_append(out, rec + o->off, o->len);
			ret = ret ? ret : table_add(x, rec + o->off, o->len,
						    hash_bytes(rec + o->off, o->len));
			if (!ret)
				table_index(x);
		} else if (!ret && o->kind == OP_XOR) {
			ret = buf_reserve(out, o->len);
			ret = ret ? ret : xor_apply(x, o->key, o->shift, rec + o->off,
						    out->data + out->len, o->len);
			if (!ret)
				out->len += o->len;
		} else if (!ret && o->kind == OP_XOR_RLE) {
			ret = emit_xor_rle(x, o, rec + o->off, out);
		}
		pos = (size_t)o->off + o->len;
	}
	return ret ? ret : buf_append(out, rec + pos, len - pos);
}

#define FIXED_BEFORE_CHAIN (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
			    PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | \
			    PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)
#define READ_WORDS (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | \
		    PERF_FORMAT_ID | PERF_FORMAT_LOST)

/* The common `-g` case without a full decode: a sample whose call chain
 * follows fixed-size fields and that carries no user registers or stack
 * (so the chain is its only edit). Returns the chain's offset, or 0 when
 * the sample is not of that kind and must be decoded. */
static size_t fast_chain_offset(const struct record_layouts *ls, const uint8_t *rec, size_t len)
{
	const struct event_layout *l;
	size_t off = sizeof(struct perf_event_header);
	int ev = 0;

	if (!record_layouts_count(ls))
		return 0;
	if (record_layouts_count(ls) > 1) {
		uint64_t id;

		if (len < 16)
			return 0;
		memcpy(&id, rec + 8, 8);
		ev = record_layouts_find(ls, id);
		if (ev < 0)
			return 0;
	}
	l = record_layouts_get(ls, (size_t)ev);
	if (!(l->sample_type & PERF_SAMPLE_CALLCHAIN) ||
	    (l->sample_type & (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)) ||
	    (record_layouts_count(ls) > 1 && !(l->sample_type & PERF_SAMPLE_IDENTIFIER)))
		return 0;
	off += 8 * (size_t)__builtin_popcountll(l->sample_type & FIXED_BEFORE_CHAIN);
	if (l->sample_type & PERF_SAMPLE_READ) {
		if (l->read_format & PERF_FORMAT_GROUP)
			return 0;
		off += 8 * (1 + (size_t)__builtin_popcountll(l->read_format & READ_WORDS));
	}
	return off + 8 <= len ? off : 0;
}

static int plan_chain_only(struct xstate *x, const uint8_t *rec, size_t len, size_t off,
			   struct op *ops, int *err)
{
	uint64_t nr;
	int n = 0, k, idx;

	memcpy(&nr, rec + off, 8);
	if (!nr || nr > (len - off - 8) / 8)
		return 0;
	len = 8 + 8 * (size_t)nr;
	idx = table_find(x, rec + off, len, hash_bytes(rec + off, len));
	if (idx == -2) {
		*err = -ENOMEM;
		return 0;
	}
	k = add_op(ops, &n, rec, rec + off, len, idx >= 0 ? OP_REF : OP_NEW);
	if (k >= 0 && idx >= 0)
		ops[k].index = (uint32_t)idx;
	return n;
}

static int encode_record(struct xstate *x, struct sp_map *sps, const struct record_layouts *ls,
			 const uint8_t *rec, size_t len, struct buf *out)
{
	struct perf_event_header h;
	struct op ops[MAX_OPS];
	struct record r;
	size_t chain;
	int n = 0, err = 0, ret;

	memcpy(&h, rec, sizeof(h));
	if (h.type != PERF_RECORD_SAMPLE)
		n = 0;
	else if ((chain = fast_chain_offset(ls, rec, len)))
		n = plan_chain_only(x, rec, len, chain, ops, &err);
	else if (!record_decode(ls, rec, len, &r, NULL))
		n = plan_sample(&r.u.sample, rec, ops, sp_slot(sps, r.u.sample.tid), x, &err);
	if (err)
		return err;
	if (!n) {
		ret = buf_put_u8(out, 0);
		return ret ? ret : buf_append(out, rec, len);
	}
	return emit_edited(x, rec, len, ops, n, out);
}

int data_transform(const struct record_layouts *ls, const uint8_t *p, size_t len,
		   struct buf *out, struct err *err)
{
	struct xstate x = { 0 };
	struct sp_map sps = { .n = 0 };
	struct data_iter it;
	struct data_span s;
	int ret;

	buf_reset(out);
	ret = data_iter_init(&it, p, len, err);
	ret = ret ? ret : buf_put_u32(out, (uint32_t)len);
	ret = ret ? ret : buf_append(out, p, DATA_HEADER_SIZE);
	while (!ret && (ret = data_iter_next(&it, &s, err)) == 1) {
		size_t off = 0, rec_len;

		ret = buf_append(out, s.records - SPAN_HEADER_SIZE, SPAN_HEADER_SIZE);
		while (!ret && (ret = record_next(s.records, s.len, off, &rec_len, err)) == 1) {
			ret = encode_record(&x, &sps, ls, s.records + off, rec_len, out);
			off += rec_len;
		}
	}
	xstate_free(&x);
	if (ret < 0)
		return err_set(err, ret, "cannot transform a DATA block");
	return 0;
}

/* ---- decoder ------------------------------------------------------------ */

static int bad(struct err *err, const char *what, size_t at)
{
	return err_set(err, -PREC_ECORRUPT, "transformed DATA block: %s at byte %zu", what, at);
}

static int read_ops(struct cursor *c, struct op *ops, int n, uint16_t size, struct err *err)
{
	size_t end = 0;

	for (int i = 0; i < n; i++) {
		struct op *o = &ops[i];
		uint32_t shift = 0;

		if (!cur_le16(c, &o->off) || !cur_le16(c, &o->len) || !cur_le8(c, &o->kind))
			return bad(err, "edit does not fit", c->off);
		if (o->off < end || (size_t)o->off + o->len > size || !o->len)
			return bad(err, "edits overlap or pass the record's end", c->off);
		end = (size_t)o->off + o->len;
		if (o->kind == OP_REF && !cur_le32(c, &o->index))
			return bad(err, "edit does not fit", c->off);
		if ((o->kind == OP_XOR || o->kind == OP_XOR_RLE) &&
		    (!cur_le64(c, &o->key) || !cur_le32(c, &shift)))
			return bad(err, "edit does not fit", c->off);
		if (o->kind < OP_NEW || o->kind > OP_XOR_RLE)
			return bad(err, "unknown edit kind", c->off);
		o->shift = (int32_t)shift;
	}
	return 0;
}

static int read_xor(struct xstate *x, const struct op *o, struct cursor *c, struct buf *out,
		    struct err *err)
{
	uint8_t *dst = out->data + out->len;
	struct region *r = region_of(x, o->key);
	const uint8_t *prev;
	size_t i = 0;

	if (!r)
		return err_set(err, -ENOMEM, "out of memory");
	prev = out->data + r->out_off;
	if (o->kind == OP_XOR) {
		const uint8_t *src = cur_take(c, o->len);

		if (!src)
			return bad(err, "literal bytes missing", c->off);
		unxor(dst, src, 0, o->len, prev, r->len, o->shift);
	}
	while (o->kind == OP_XOR_RLE && i < o->len) {
		uint16_t z, n;
		const uint8_t *lit;

		if (!cur_le16(c, &z) || !cur_le16(c, &n) || (size_t)z + n > o->len - i ||
		    (!z && !n) || !(lit = cur_take(c, n)))
			return bad(err, "bad run in a stack copy", c->off);
		unxor(dst + i, NULL, i, z, prev, r->len, o->shift);
		unxor(dst + i + z, lit, i + z, n, prev, r->len, o->shift);
		i += (size_t)z + n;
	}
	r->out_off = out->len;
	r->len = o->len;
	return 0;
}

static int decode_edited(struct xstate *x, struct cursor *c, struct buf *out, struct err *err)
{
	struct op ops[MAX_OPS];
	uint16_t size;
	uint8_t n;
	size_t pos = 0;
	int ret;

	if (!cur_le16(c, &size) || !cur_le8(c, &n) || !n || n > MAX_OPS || size < 8)
		return bad(err, "edited record header", c->off);
	ret = read_ops(c, ops, n, size, err);
	if (ret || (ret = buf_reserve(out, size)))
		return ret;
	for (int i = 0; i < n; i++) {
		const struct op *o = &ops[i];
		const uint8_t *lit = cur_take(c, o->off - pos);
		uint8_t *dst;

		if (!lit)
			return bad(err, "literal bytes missing", c->off);
		buf_append(out, lit, o->off - pos);
		dst = out->data + out->len;
		if (o->kind == OP_REF) {
			if (o->index >= x->nr_entries || x->entries[o->index].len != o->len)
				return bad(err, "reference to no table entry", c->off);
			memcpy(dst, x->table.data + x->entries[o->index].off, o->len);
		} else if (o->kind == OP_XOR_RLE || o->kind == OP_XOR) {
			ret = read_xor(x, o, c, out, err);
			if (ret)
				return ret;
		} else {
			const uint8_t *src = cur_take(c, o->len);

			if (!src)
				return bad(err, "literal bytes missing", c->off);
			memcpy(dst, src, o->len);
			ret = table_add(x, src, o->len, 0);
			if (ret)
				return err_set(err, ret, "transformed DATA block: out of memory");
		}
		out->len += o->len;
		pos = (size_t)o->off + o->len;
	}
	{
		const uint8_t *lit = cur_take(c, size - pos);

		if (!lit)
			return bad(err, "literal bytes missing", c->off);
		buf_append(out, lit, size - pos);
	}
	{
		struct perf_event_header h;

		memcpy(&h, out->data + out->len - size, sizeof(h));
		if (h.size != size)
			return bad(err, "rebuilt record size differs from the edited size", c->off);
	}
	return 0;
}

static int decode_span(struct xstate *x, struct cursor *c, struct buf *out, struct err *err)
{
	const uint8_t *hdr = cur_take(c, SPAN_HEADER_SIZE);
	struct cursor hc;
	uint64_t len = 0, done = 0;
	int ret = 0;

	if (!hdr)
		return bad(err, "span header does not fit", c->off);
	hc = cur_make(hdr + 8, 8);
	cur_le64(&hc, &len);
	if (len > CONTAINER_MAX_RAW)
		return bad(err, "span longer than a block", c->off);
	ret = buf_append(out, hdr, SPAN_HEADER_SIZE);
	while (!ret && done < len) {
		size_t before = out->len;
		uint8_t tag;

		if (!cur_le8(c, &tag))
			return bad(err, "record tag missing", c->off);
		if (tag == 0) {
			struct perf_event_header h;
			const uint8_t *rec;

			if (cur_left(c) < sizeof(h))
				return bad(err, "record does not fit", c->off);
			memcpy(&h, c->p + c->off, sizeof(h));
			rec = h.size >= sizeof(h) ? cur_take(c, h.size) : NULL;
			if (!rec)
				return bad(err, "record does not fit", c->off);
			ret = buf_append(out, rec, h.size);
		} else if (tag == 1) {
			ret = decode_edited(x, c, out, err);
		} else {
			return bad(err, "unknown record tag", c->off);
		}
		done += out->len - before;
	}
	if (!ret && done != len)
		return bad(err, "records overrun their span", c->off);
	return ret;
}

int data_untransform(const uint8_t *p, size_t len, struct buf *out, struct err *err)
{
	struct cursor c = cur_make(p, len);
	struct xstate x = { 0 };
	const uint8_t *hdr;
	uint32_t orig;
	int ret = 0;

	buf_reset(out);
	if (!cur_le32(&c, &orig) || orig > CONTAINER_MAX_RAW || orig < DATA_HEADER_SIZE ||
	    !(hdr = cur_take(&c, DATA_HEADER_SIZE)))
		return bad(err, "header does not fit", c.off);
	ret = buf_reserve(out, orig);
	ret = ret ? ret : buf_append(out, hdr, DATA_HEADER_SIZE);
	while (!ret && cur_left(&c) && out->len < orig)
		ret = decode_span(&x, &c, out, err);
	xstate_free(&x);
	if (ret)
		return ret == -ENOMEM ? err_set(err, ret, "out of memory") : ret;
	if (out->len != orig || cur_left(&c))
		return bad(err, "decoded length differs from the declared one", c.off);
	return 0;
}
