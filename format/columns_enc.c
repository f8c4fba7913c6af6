/* SPDX-License-Identifier: MIT */
/*
 * Encoding DATA payloads in columns (FORMAT.md 6.4). Samples of the events
 * whose layouts the writer knows become records of a *shape*, each field's
 * values going to a column of its own: words as varint deltas against the
 * same field of the previous record on that CPU or of that thread, call
 * chains as references to a table, user-stack copies as the 8-byte units
 * that differ from the thread's previous copy once aligned on the stack
 * pointer. What repeats becomes runs of zero bytes that deflate codes in a
 * few bits; the sample's ip is coded as equal to the chain's address after
 * its context marker or the user registers' ip. Other records are kept
 * verbatim.
 *
 * Nothing of the input is copied aside: a thread's previous stack copy and
 * the table's chains are read where they are in the payload.
 */
#include "columns.h"
#include "columns_int.h"

#include <errno.h>
#include <stdlib.h>

#include "blocks.h"
#include "container.h"
#include "record.h"

#if defined(__x86_64__) || defined(__i386__)
#define REG_SP 7                /* PERF_REG_X86_SP, PERF_REG_X86_IP */
#define REG_IP 8
#elif defined(__aarch64__)
#define REG_SP 31               /* PERF_REG_ARM64_SP, PERF_REG_ARM64_PC */
#define REG_IP 32
#else
#define REG_SP 64               /* none: no shift, no ip from the registers */
#define REG_IP 64
#endif

#define MAX_LAYOUTS 32          /* events whose time predictor is learnt */

/* What a field of a sample is, for the choice of its predictor. */
enum role {
	R_WORD, R_IDENT, R_IP, R_TID, R_TIME, R_PERIOD, R_CHAIN, R_UABI, R_UREG, R_STACK
};

struct item {
	uint8_t role;
	uint8_t reg;            /* R_UREG: its register number */
	uint16_t at;            /* offset in the record */
};

/* A sample walked: its fields in order, and which shape variant it is. */
struct walk {
	struct item it[MAX_FIELDS];
	unsigned n;
	unsigned variant;       /* bit 0: user regs; 1: stack copy; 2: chain of >= 2 */
	uint64_t stack_size, dyn;
	const uint8_t *stack;
};

struct shape_id {
	int layout;
	unsigned variant;
	int time, period;       /* their fields, -1: none (the time predictor) */
};

/* The fields of an event's samples up to the call chain: the same for all
 * of them, found once. */
struct head {
	const struct event_layout *l;
	uint64_t sample_type, read_format;
	unsigned n;
	struct item it[16];
	size_t end;
};

struct estate {
	uint32_t prev;          /* index in pool */
	uint32_t stack_len, stack_dyn;
	const uint8_t *stack;   /* the previous copy, in the input */
	uint64_t stack_sp;
};

struct tslot {
	uint64_t hash;
	uint32_t idx;           /* + 1; 0 = empty */
};

struct tentry {
	const uint8_t *p;       /* count word and addresses, in the input */
	uint32_t len;
};

struct columns_enc {
	struct buf *cols;
	size_t nr_cols, cap_cols;
	struct shape shapes[MAX_SHAPES];
	struct shape_id ids[MAX_SHAPES];
	size_t nr_shapes;
	struct ctx_table ctx;
	struct estate *st;
	size_t nr_st, cap_st;
	uint64_t *pool;
	size_t nr_pool, cap_pool;
	struct tentry *table;
	size_t nr_table, cap_table;
	struct tslot *slots;
	size_t cap_slots;
	uint32_t *units;        /* a stack copy's changed units */
	size_t cap_units;
	uint32_t span_cpu;
	long cpu_state[MAX_SHAPES];
	uint64_t last_key[MAX_SHAPES];  /* the key each shape met last, its state */
	long last_key_st[MAX_SHAPES];
	struct head heads[MAX_LAYOUTS];
	/* the time predictor: ADD the period (else PREV), per event, and what
	 * each would have cost in this block (bits) */
	bool time_add[MAX_LAYOUTS];
	uint64_t cost_prev[MAX_LAYOUTS], cost_add[MAX_LAYOUTS];
};

struct columns_enc *columns_enc_new(void)
{
	struct columns_enc *e = calloc(1, sizeof(*e));

	for (size_t i = 0; e && i < MAX_LAYOUTS; i++)
		e->time_add[i] = true;
	return e;
}

void columns_enc_free(struct columns_enc *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->cap_cols; i++)
		buf_free(&e->cols[i]);
	free(e->cols);
	ctx_table_free(&e->ctx);
	free(e->st);
	free(e->pool);
	free(e->table);
	free(e->slots);
	free(e->units);
	free(e);
}

/* ---- writing columns ------------------------------------------------- */

/* Columns [0, n) exist (their buffers kept from block to block). */
static int cols_room(struct columns_enc *e, size_t n)
{
	size_t old = e->cap_cols;

	if (n <= old)
		return 0;
	if (array_grow((void **)&e->cols, &e->cap_cols, n, sizeof(*e->cols)))
		return -ENOMEM;
	for (size_t i = old; i < e->cap_cols; i++)
		e->cols[i] = (struct buf)BUF_INIT;
	return 0;
}

static inline int put_varint(struct buf *b, uint64_t v)
{
	uint8_t *p;

	if (b->cap - b->len < 10 && buf_reserve(b, 10))
		return -ENOMEM;
	if (v < 0x80) {
		b->data[b->len++] = (uint8_t)v;
		return 0;
	}
	p = b->data + b->len;
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	b->len = (size_t)(p - b->data);
	return 0;
}

static unsigned bits_of(uint64_t u)
{
	return u ? 64 - (unsigned)__builtin_clzll(u) : 0;
}

/* ---- walking a sample ------------------------------------------------ */

static bool add_item(struct walk *w, uint8_t role, uint8_t reg, size_t at)
{
	if (w->n >= MAX_FIELDS)
		return false;
	w->it[w->n++] = (struct item){ role, reg, (uint16_t)at };
	return true;
}

#define WORD_BITS (PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | \
		   PERF_SAMPLE_CPU)
#define TAIL_BITS (PERF_SAMPLE_WEIGHT_TYPE | PERF_SAMPLE_DATA_SRC | \
		   PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP | \
		   PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE)
#define SHAPED_BITS (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
		     PERF_SAMPLE_TIME | WORD_BITS | PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ | \
		     PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | \
		     TAIL_BITS)
#define READ_WORDS (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | \
		    PERF_FORMAT_ID | PERF_FORMAT_LOST)

/* The fields up to the call chain, all single words. */
static void head_of(const struct event_layout *l, struct head *h)
{
	static const struct { uint64_t bit; uint8_t role; } head[] = {
		{ PERF_SAMPLE_IDENTIFIER, R_IDENT }, { PERF_SAMPLE_IP, R_IP },
		{ PERF_SAMPLE_TID, R_TID }, { PERF_SAMPLE_TIME, R_TIME },
		{ PERF_SAMPLE_ADDR, R_WORD }, { PERF_SAMPLE_ID, R_WORD },
		{ PERF_SAMPLE_STREAM_ID, R_WORD }, { PERF_SAMPLE_CPU, R_WORD },
		{ PERF_SAMPLE_PERIOD, R_PERIOD },
	};
	size_t at = 8;

	h->l = l;
	h->sample_type = l->sample_type;
	h->read_format = l->read_format;
	h->n = 0;
	for (size_t i = 0; i < sizeof(head) / sizeof(head[0]); i++)
		if (l->sample_type & head[i].bit) {
			h->it[h->n++] = (struct item){ head[i].role, 0, (uint16_t)at };
			at += 8;
		}
	if (l->sample_type & PERF_SAMPLE_READ)  /* non-group: at most 5 words */
		for (unsigned i = 0; i < 1 + (unsigned)__builtin_popcountll(l->read_format &
									  READ_WORDS); i++) {
			h->it[h->n++] = (struct item){ R_WORD, 0, (uint16_t)at };
			at += 8;
		}
	h->end = at;
}

static size_t walk_head(struct columns_enc *e, int layout, const struct event_layout *l,
			struct walk *w)
{
	struct head tmp, *h = layout < MAX_LAYOUTS ? &e->heads[layout] : &tmp;

	if (h == &tmp || h->l != l || h->sample_type != l->sample_type ||
	    h->read_format != l->read_format)
		head_of(l, h);
	memcpy(w->it, h->it, h->n * sizeof(*h->it));
	w->n = h->n;
	return h->end;
}

/* User registers: the abi word, then one word per register when abi != 0. */
static bool walk_regs(const struct event_layout *l, const uint8_t *rec, size_t len,
		      struct walk *w, size_t *at)
{
	uint64_t abi, mask = l->sample_regs_user;

	if (*at + 8 > len)
		return false;
	abi = le64_get(rec + *at);
	add_item(w, R_UABI, 0, *at);
	*at += 8;
	if (!abi)
		return true;
	w->variant |= 1;
	for (unsigned bit = 0; mask; bit++, mask >>= 1) {
		if (!(mask & 1))
			continue;
		if (*at + 8 > len || !add_item(w, R_UREG, (uint8_t)bit, *at))
			return false;
		*at += 8;
	}
	return true;
}

/* The fields of a sample of layout l, or false when it cannot be shaped. */
static bool walk_sample(struct columns_enc *e, int layout, const struct event_layout *l,
			const uint8_t *rec, size_t len, struct walk *w)
{
	size_t at = walk_head(e, layout, l, w);

	if (at > len)
		return false;
	if (l->sample_type & PERF_SAMPLE_CALLCHAIN) {
		uint64_t nr;

		if (at + 8 > len || (nr = le64_get(rec + at)) > (len - at - 8) / 8)
			return false;
		add_item(w, R_CHAIN, 0, at);
		w->variant |= nr >= 2 ? 4 : 0;
		at += 8 + 8 * (size_t)nr;
	}
	if ((l->sample_type & PERF_SAMPLE_REGS_USER) && !walk_regs(l, rec, len, w, &at))
		return false;
	if (l->sample_type & PERF_SAMPLE_STACK_USER) {
		if (at + 8 > len)
			return false;
		w->stack_size = le64_get(rec + at);
		add_item(w, R_STACK, 0, at);
		if (w->stack_size) {
			if (len - at < 16 || w->stack_size > len - at - 16)
				return false;
			w->stack = rec + at + 8;
			w->dyn = le64_get(rec + at + 8 + w->stack_size);
			w->variant |= 2;
			at += 16 + (size_t)w->stack_size;
		} else {
			at += 8;
		}
	}
	for (uint64_t bits = l->sample_type & TAIL_BITS; bits; bits &= bits - 1) {
		if (!add_item(w, R_WORD, 0, at))
			return false;
		at += 8;
	}
	return at == len && w->n <= MAX_FIELDS;
}

/* ---- shapes ---------------------------------------------------------- */

static int find_role(const struct walk *w, uint8_t role, uint8_t reg)
{
	for (unsigned i = 0; i < w->n; i++)
		if (w->it[i].role == role && (role != R_UREG || w->it[i].reg == reg))
			return (int)i;
	return -1;
}

/* The predictors of a new shape for samples walked as w. */
static void plan_shape(const struct columns_enc *e, int layout, const struct walk *w,
		       struct shape *s)
{
	int key = find_role(w, R_TID, 0), period = find_role(w, R_PERIOD, 0);
	int uip = find_role(w, R_UREG, REG_IP), chain = find_role(w, R_CHAIN, 0);

	s->type = PERF_RECORD_SAMPLE;
	s->nr_fields = (uint8_t)w->n;
	s->key = key >= 0 ? (uint8_t)key : NO_FIELD;
	s->stack = NO_FIELD;
	for (unsigned i = 0; i < w->n; i++) {
		struct field *f = &s->f[i];
		uint8_t role = w->it[i].role;

		*f = (struct field){ .kind = F_WORD, .ctx = CTX_CPU, .pred = PRED_PREV };
		if (role == R_CHAIN) {
			f->kind = F_ARRAY;
		} else if (role == R_STACK) {
			int sp = find_role(w, R_UREG, REG_SP);

			f->kind = F_STACK;
			f->ref = sp >= 0 ? (uint8_t)sp : NO_FIELD;
			s->stack = (uint8_t)i;
		} else if ((role == R_UABI || role == R_UREG) && key >= 0 && (int)i > key) {
			f->ctx = CTX_KEY;
		} else if (role == R_IP && uip >= 0) {
			f->pred = PRED_EQ;      /* the user registers' ip */
			f->ref = (uint8_t)uip;
		} else if (role == R_IP && chain >= 0 && (w->variant & 4)) {
			f->pred = PRED_EQ;      /* the chain's entry after its context marker */
			f->ref = (uint8_t)chain;
			f->word = 2;
		} else if (role == R_TIME && period >= 0 &&
			   (layout >= MAX_LAYOUTS || e->time_add[layout])) {
			f->pred = PRED_ADD;
			f->ref = (uint8_t)period;
		}
	}
}

/* Shape of a sample (made when new), or -1 when there is no room. */
static int shape_for(struct columns_enc *e, int layout, const struct walk *w)
{
	size_t ncol = FIXED_COLUMNS;
	struct shape *s;

	for (size_t i = 0; i < e->nr_shapes; i++)
		if (e->ids[i].layout == layout && e->ids[i].variant == w->variant)
			return (int)i;
	if (e->nr_shapes >= MAX_SHAPES)
		return -1;
	if (find_role(w, R_STACK, 0) >= 0 && find_role(w, R_TID, 0) < 0)
		return -1;      /* a stack copy's state is its thread's */
	if (e->nr_shapes) {
		const struct shape *last = &e->shapes[e->nr_shapes - 1];
		const struct field *lf = &last->f[last->nr_fields - 1];

		ncol = lf->col + field_columns(lf->kind);
	}
	s = &e->shapes[e->nr_shapes];
	plan_shape(e, layout, w, s);
	for (unsigned i = 0; i < s->nr_fields; i++) {
		s->f[i].col = (uint16_t)ncol;
		ncol += field_columns(s->f[i].kind);
	}
	if (cols_room(e, ncol))
		return -1;
	e->nr_cols = ncol;
	e->ids[e->nr_shapes] = (struct shape_id){ layout, w->variant, find_role(w, R_TIME, 0),
						  find_role(w, R_PERIOD, 0) };
	e->cpu_state[e->nr_shapes] = -1;
	e->last_key_st[e->nr_shapes] = -1;
	return (int)e->nr_shapes++;
}

/* ---- states and the table -------------------------------------------- */

static long state_of(struct columns_enc *e, size_t si, uint8_t ctx, uint64_t key)
{
	bool added;
	long idx = ctx_lookup(&e->ctx, (uint32_t)(si << 1 | ctx), key, (uint32_t)e->nr_st, &added);
	size_t nf = e->shapes[si].nr_fields;

	if (idx < 0 || !added)
		return idx;
	if (array_grow((void **)&e->st, &e->cap_st, e->nr_st + 1, sizeof(*e->st)) ||
	    array_grow((void **)&e->pool, &e->cap_pool, e->nr_pool + nf, sizeof(*e->pool)))
		return -1;
	e->st[e->nr_st] = (struct estate){ .prev = (uint32_t)e->nr_pool };
	memset(e->pool + e->nr_pool, 0, nf * sizeof(*e->pool));
	e->nr_pool += nf;
	return (long)e->nr_st++;
}

/* Eight bytes at a time: call chains are arrays of u64. */
static uint64_t chain_hash(const uint8_t *p, size_t n)
{
	uint64_t h = 1469598103934665603ull ^ n;

	for (size_t i = 0; i + 8 <= n; i += 8) {
		uint64_t v;

		memcpy(&v, p + i, 8);
		h = (h ^ v) * 0x9E3779B97F4A7C15ull;
		h ^= h >> 29;
	}
	return h;
}

/* The reference of a chain (count word and addresses at p, len bytes):
 * its table entry + 1, or 0 after adding it as new. -1: out of memory or
 * over the table's limit. */
static long table_ref(struct columns_enc *e, const uint8_t *p, size_t len)
{
	uint64_t h = chain_hash(p, len);
	size_t mask, k;

	if (2 * (e->nr_table + 1) > e->cap_slots) {
		size_t cap = e->cap_slots ? 2 * e->cap_slots : 1024;
		struct tslot *s = calloc(cap, sizeof(*s));

		if (!s)
			return -1;
		for (size_t i = 0; i < e->nr_table; i++) {
			uint64_t hi = chain_hash(e->table[i].p, e->table[i].len);

			for (k = hi & (cap - 1); s[k].idx; k = (k + 1) & (cap - 1))
				;
			s[k] = (struct tslot){ hi, (uint32_t)i + 1 };
		}
		free(e->slots);
		e->slots = s;
		e->cap_slots = cap;
	}
	mask = e->cap_slots - 1;
	for (k = h & mask; e->slots[k].idx; k = (k + 1) & mask) {
		const struct tentry *t = &e->table[e->slots[k].idx - 1];

		if (e->slots[k].hash == h && t->len == len && !memcmp(t->p, p, len))
			return e->slots[k].idx;
	}
	if (e->nr_table >= MAX_TABLE ||
	    array_grow((void **)&e->table, &e->cap_table, e->nr_table + 1, sizeof(*e->table)))
		return -1;
	e->table[e->nr_table++] = (struct tentry){ p, (uint32_t)len };
	e->slots[k] = (struct tslot){ h, (uint32_t)e->nr_table };
	return 0;
}

/* ---- fields ---------------------------------------------------------- */

struct erec {
	const uint8_t *p;
	const struct walk *w;
	int layout;
	long cpu_st, key_st;
};

static int emit_word(struct columns_enc *e, size_t si, uint8_t i, struct erec *r)
{
	const struct shape *s = &e->shapes[si];
	const struct field *f = &s->f[i];
	uint64_t v = le64_get(r->p + r->w->it[i].at), *prev, pred;

	if (f->pred == PRED_EQ)
		return put_varint(&e->cols[f->col],
				  zz_enc(v - le64_get(r->p + r->w->it[f->ref].at + 8 * f->word)));
	prev = e->pool + e->st[f->ctx == CTX_CPU ? r->cpu_st : r->key_st].prev;
	pred = prev[i] + (f->pred == PRED_ADD ? prev[f->ref] : 0);
	if ((int)i == e->ids[si].time && r->layout < MAX_LAYOUTS) {
		int per = e->ids[si].period;

		e->cost_prev[r->layout] += bits_of(zz_enc(v - prev[i]));
		e->cost_add[r->layout] += per >= 0 ? bits_of(zz_enc(v - prev[i] - prev[per])) : 64;
	}
	prev[i] = v;
	if (i == s->key && (e->last_key_st[si] < 0 || e->last_key[si] != v)) {
		e->last_key[si] = v;
		if ((e->last_key_st[si] = state_of(e, si, CTX_KEY, v)) < 0)
			return -ENOMEM;
	}
	if (i == s->key)
		r->key_st = e->last_key_st[si];
	return put_varint(&e->cols[f->col], zz_enc(v - pred));
}

static int emit_array(struct columns_enc *e, const struct field *f, const uint8_t *at)
{
	uint64_t nr = le64_get(at);
	long ref = table_ref(e, at, 8 + 8 * (size_t)nr);
	struct buf *t = &e->cols[COL_TABLE];

	if (ref < 0)
		return -ENOMEM;
	if (!ref && (put_varint(t, nr) || buf_append(t, at + 8, 8 * (size_t)nr)))
		return -ENOMEM;
	return put_varint(&e->cols[f->col], (uint64_t)ref);
}

static int emit_stack(struct columns_enc *e, const struct field *f, struct erec *r)
{
	const struct walk *w = r->w;
	struct buf *sizes = &e->cols[f->col], *runs = &e->cols[f->col + 1];
	struct estate *st = &e->st[r->key_st];
	uint64_t sp = f->ref == NO_FIELD ? 0 : le64_get(r->p + w->it[f->ref].at);
	int64_t shift = (int64_t)(sp - st->stack_sp);
	struct stack_cmp c = { w->stack, st->stack, (int64_t)w->stack_size,
			 (int64_t)(w->dyn < w->stack_size ? w->dyn : w->stack_size),
			 st->stack ? (int64_t)st->stack_dyn : 0, shift };
	long m;

	if (put_varint(sizes, w->stack_size))
		return -ENOMEM;
	if (!w->stack_size)
		return 0;
	if (shift >= c.pe || shift <= -c.size) {
		c.pe = 0;       /* no overlap: as if there were no previous copy */
		c.shift = 0;
	}
	m = array_grow((void **)&e->units, &e->cap_units, (w->stack_size + 7) / 8,
		       sizeof(*e->units)) ? -1 : stack_diff(&c, e->units, &e->cols[f->col + 2]);
	if (m < 0 || put_varint(runs, (uint64_t)m))
		return -ENOMEM;
	for (long k = 0; k < m; k++)
		if (put_varint(runs, e->units[k] - (k ? e->units[k - 1] + 1 : 0)))
			return -ENOMEM;
	*st = (struct estate){ st->prev, (uint32_t)w->stack_size, (uint32_t)c.dyn, w->stack, sp };
	return put_varint(sizes, w->dyn);
}

/* ---- records and the block ------------------------------------------- */

static int emit_verbatim(struct columns_enc *e, const uint8_t *rec, size_t len)
{
	return put_varint(&e->cols[COL_CONTROL], 0) ? -ENOMEM :
	       buf_append(&e->cols[COL_VERBATIM], rec, len);
}

/* The event of a sample, or -1. */
static int layout_of(const struct record_layouts *ls, const uint8_t *rec, size_t len)
{
	size_t n = ls ? record_layouts_count(ls) : 0;
	int ev;

	if (!n)
		return -1;
	if (n == 1)
		return 0;
	if (len < 16 || (ev = record_layouts_find(ls, le64_get(rec + 8))) < 0 ||
	    !(record_layouts_get(ls, (size_t)ev)->sample_type & PERF_SAMPLE_IDENTIFIER))
		return -1;
	return ev;
}

static int encode_record(struct columns_enc *e, const struct record_layouts *ls,
			 const uint8_t *rec, size_t len)
{
	struct perf_event_header h;
	const struct event_layout *l;
	struct walk w;
	struct erec r = { .p = rec, .w = &w, .key_st = -1 };
	const struct shape *s;
	int si, ret = 0;

	memcpy(&h, rec, sizeof(h));
	if (h.type != PERF_RECORD_SAMPLE || (r.layout = layout_of(ls, rec, len)) < 0)
		return emit_verbatim(e, rec, len);
	l = record_layouts_get(ls, (size_t)r.layout);
	w.n = 0;
	w.variant = 0;
	w.stack = NULL;
	w.stack_size = w.dyn = 0;
	if ((l->sample_type & ~SHAPED_BITS) ||
	    ((l->sample_type & PERF_SAMPLE_READ) && (l->read_format & PERF_FORMAT_GROUP)) ||
	    !walk_sample(e, r.layout, l, rec, len, &w) || (si = shape_for(e, r.layout, &w)) < 0)
		return emit_verbatim(e, rec, len);
	s = &e->shapes[si];
	if (e->cpu_state[si] < 0 && (e->cpu_state[si] = state_of(e, (size_t)si, CTX_CPU,
								 e->span_cpu)) < 0)
		return -ENOMEM;
	r.cpu_st = e->cpu_state[si];
	if (put_varint(&e->cols[COL_CONTROL], (uint64_t)si + 1) ||
	    put_varint(&e->cols[COL_MISC], h.misc))
		return -ENOMEM;
	for (uint8_t i = 0; i < s->nr_fields && !ret; i++) {
		const struct field *f = &s->f[i];

		ret = f->kind == F_WORD ? emit_word(e, (size_t)si, i, &r) :
		      f->kind == F_ARRAY ? emit_array(e, f, rec + w.it[i].at) : emit_stack(e, f, &r);
	}
	return ret;
}

static void block_start(struct columns_enc *e)
{
	for (size_t i = 0; i < e->cap_cols; i++)
		buf_reset(&e->cols[i]);
	e->nr_cols = FIXED_COLUMNS;
	e->nr_shapes = 0;
	ctx_table_reset(&e->ctx);
	e->nr_st = e->nr_pool = e->nr_table = 0;
	if (e->slots)
		memset(e->slots, 0, e->cap_slots * sizeof(*e->slots));
	memset(e->cost_prev, 0, sizeof(e->cost_prev));
	memset(e->cost_add, 0, sizeof(e->cost_add));
}

/* What the block taught of each event's timestamps, for the next one. */
static void block_learn(struct columns_enc *e)
{
	for (size_t i = 0; i < MAX_LAYOUTS; i++)
		if (e->cost_prev[i] || e->cost_add[i])
			e->time_add[i] = e->cost_add[i] < e->cost_prev[i];
}

static int put_shape(struct buf *out, const struct shape *s)
{
	int ret = buf_put_u32(out, s->type);

	ret = ret ? ret : buf_put_u8(out, s->key);
	ret = ret ? ret : buf_put_u8(out, s->nr_fields);
	for (unsigned i = 0; i < s->nr_fields && !ret; i++) {
		const struct field *f = &s->f[i];

		ret = buf_put_u8(out, f->kind);
		if (!ret && f->kind == F_WORD) {
			ret = buf_put_u8(out, f->ctx);
			ret = ret ? ret : buf_put_u8(out, f->pred);
			if (!ret && (f->pred == PRED_ADD || f->pred == PRED_EQ))
				ret = buf_put_u8(out, f->ref);
			if (!ret && f->pred == PRED_EQ)
				ret = buf_put_u8(out, f->word);
		} else if (!ret && f->kind == F_STACK) {
			ret = buf_put_u8(out, f->ref);
		}
	}
	return ret;
}

/* orig_len, the data header, the shapes, the column lengths, the columns. */
static int assemble(struct columns_enc *e, const uint8_t *p, size_t len, struct buf *out)
{
	size_t total = 0;
	int ret;

	for (size_t i = 0; i < e->nr_cols; i++)
		total += e->cols[i].len;
	buf_reset(out);
	ret = buf_reserve(out, total + 64 + 64 * e->nr_shapes + 10 * e->nr_cols);
	ret = ret ? ret : buf_put_u32(out, (uint32_t)len);
	ret = ret ? ret : buf_append(out, p, DATA_HEADER_SIZE);
	ret = ret ? ret : buf_put_u8(out, (uint8_t)e->nr_shapes);
	for (size_t i = 0; i < e->nr_shapes && !ret; i++)
		ret = put_shape(out, &e->shapes[i]);
	ret = ret ? ret : put_varint(out, e->nr_cols);
	for (size_t i = 0; i < e->nr_cols && !ret; i++)
		ret = put_varint(out, e->cols[i].len);
	for (size_t i = 0; i < e->nr_cols && !ret; i++)
		ret = buf_append(out, e->cols[i].data, e->cols[i].len);
	return ret;
}

int columns_encode(struct columns_enc *e, const struct record_layouts *ls, const uint8_t *p,
		   size_t len, struct buf *out, struct err *err)
{
	struct data_iter it;
	struct data_span s;
	int ret;

	if (len > CONTAINER_MAX_RAW)
		return err_set(err, -PREC_ELIMIT, "DATA payload over the limit");
	ret = cols_room(e, FIXED_COLUMNS);
	if (!ret)
		block_start(e);
	ret = ret ? ret : data_iter_init(&it, p, len, err);
	while (!ret && (ret = data_iter_next(&it, &s, err)) == 1) {
		size_t off = 0, rec_len;

		ret = buf_append(&e->cols[COL_CONTROL], s.records - SPAN_HEADER_SIZE, SPAN_HEADER_SIZE);
		e->span_cpu = s.cpu;
		for (size_t i = 0; i < e->nr_shapes; i++)
			e->cpu_state[i] = -1;
		while (!ret && (ret = record_next(s.records, s.len, off, &rec_len, err)) == 1) {
			ret = encode_record(e, ls, s.records + off, rec_len);
			off += rec_len;
		}
	}
	if (!ret) {
		block_learn(e);
		ret = assemble(e, p, len, out);
	}
	if (ret < 0)
		return err_set(err, ret, "cannot encode a DATA block");
	return 0;
}
