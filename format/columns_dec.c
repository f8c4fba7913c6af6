/* SPDX-License-Identifier: MIT */
/*
 * Decoding the COLUMNS encoding of DATA payloads (FORMAT.md 6.4). The
 * payload is rebuilt into out, reserved whole first (orig_len), so that a
 * thread's previous stack copy is read where it was rebuilt: a copy is one
 * memcpy from there plus the few units that changed. Needs nothing but the
 * bytes: the shapes say how each record is laid out.
 */
#include "columns.h"
#include "columns_int.h"

#include <errno.h>
#include <stdlib.h>

#include "blocks.h"
#include "container.h"
#include "record.h"
#include "stack_lazy.h"

/* What the decoder does for a field (struct field.code). */
enum {
	C_CPU, C_CPU_ADD, C_KEY, C_KEY_ADD, C_EQ, C_KEYFIELD, C_ARRAY, C_STACK
};

struct dstate {
	uint32_t prev;          /* index in pool of the shape's nr_fields values */
	uint32_t stack_len;     /* the previous stack copy (KEY states) */
	size_t stack_off;       /* ... where it is in out */
	uint64_t stack_sp;
	/* lazy copies (stack_lazy.h): the copy rebuilt here, and the chain */
	struct stack_win win;
	uint64_t chain;
	uint32_t seq;
	bool live;              /* the last copy was lazy: its chain goes on */
	uint32_t live_cpu;      /* ... in spans of this CPU */
	size_t last_desc;       /* ... its descriptor, in out */
};

struct tentry {
	const uint8_t *p;       /* the words after the count, in the table column */
	uint32_t n;
};

struct dec {
	const uint8_t *base;    /* the encoded payload, for offsets in messages */
	struct shape *shapes;
	size_t nr_shapes;
	struct col *cols;
	size_t nr_cols;
	struct ctx_table ctx;
	struct dstate *st;
	size_t nr_st, cap_st;
	uint64_t *pool;
	size_t nr_pool, cap_pool;
	struct tentry *table;
	size_t nr_table, cap_table;
	struct buf *out;
	size_t limit;           /* orig_len */
	uint32_t span_cpu;
	long cpu_state[MAX_SHAPES];     /* this span's CPU state of each shape, -1 */
	uint64_t last_key[MAX_SHAPES];  /* the key each shape met last, and its state */
	long last_key_st[MAX_SHAPES];
	const struct columns_lazy *lz;  /* lazy copies asked for, or NULL */
	uint16_t *units;                /* a copy's changed units (lazy), and their bytes */
	uint8_t *unit_x;
	size_t cap_units, cap_x;
	struct err *err;
};

static int bad(struct dec *d, const char *what, const uint8_t *at)
{
	return err_set(d->err, -PREC_ECORRUPT, "columns DATA block: %s at byte %zu", what,
		       (size_t)(at - d->base));
}

long ctx_lookup(struct ctx_table *t, uint32_t tag, uint64_t key, uint32_t next, bool *added)
{
	size_t mask, k;

	*added = false;
	if (2 * (t->nr + 1) > t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		struct ctx_slot *s = calloc(cap, sizeof(*s));

		if (!s)
			return -1;
		for (size_t i = 0; i < t->cap; i++) {
			if (!t->slots[i].tag)
				continue;
			k = ctx_hash(t->slots[i].key, t->slots[i].tag, cap - 1);
			while (s[k].tag)
				k = (k + 1) & (cap - 1);
			s[k] = t->slots[i];
		}
		free(t->slots);
		t->slots = s;
		t->cap = cap;
	}
	mask = t->cap - 1;
	tag++;
	for (k = ctx_hash(key, tag, mask); t->slots[k].tag; k = (k + 1) & mask)
		if (t->slots[k].tag == tag && t->slots[k].key == key)
			return t->slots[k].idx;
	t->slots[k] = (struct ctx_slot){ key, tag, next };
	t->nr++;
	*added = true;
	return next;
}

void ctx_table_reset(struct ctx_table *t)
{
	if (t->slots)
		memset(t->slots, 0, t->cap * sizeof(*t->slots));
	t->nr = 0;
}

void ctx_table_free(struct ctx_table *t)
{
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

/* ---- shapes and columns ---------------------------------------------- */

static bool word_known(const struct shape *s, uint8_t i)
{
	return i < s->nr_fields && s->f[i].kind == F_WORD && s->f[i].pred != PRED_EQ;
}

/* The checks of 6.4 on one field of shape s (fields before it read). */
static bool field_valid(const struct shape *s, uint8_t i)
{
	const struct field *f = &s->f[i];

	if (f->kind == F_ARRAY)
		return true;
	if (f->kind == F_STACK)
		return s->key != NO_FIELD && s->key < i && s->stack == i &&
		       (f->ref == NO_FIELD || (f->ref < i && word_known(s, f->ref)));
	if (f->kind != F_WORD || f->ctx > CTX_KEY || f->pred > PRED_EQ)
		return false;
	if (f->ctx == CTX_KEY && (s->key == NO_FIELD || s->key >= i))
		return false;
	if (f->pred == PRED_ADD)
		return f->ref < s->nr_fields && s->f[f->ref].kind == F_WORD &&
		       s->f[f->ref].ctx == f->ctx;
	if (f->pred == PRED_EQ)
		return f->ref < s->nr_fields && f->ref != i &&
		       !(s->f[f->ref].kind == F_WORD && s->f[f->ref].pred == PRED_EQ) &&
		       (s->f[f->ref].kind != F_WORD || f->word == 0);
	return true;
}

static uint8_t field_code(const struct shape *s, uint8_t i)
{
	const struct field *f = &s->f[i];

	if (f->kind != F_WORD)
		return f->kind == F_ARRAY ? C_ARRAY : C_STACK;
	if (f->pred == PRED_EQ)
		return C_EQ;
	if (i == s->key)
		return C_KEYFIELD;
	if (f->ctx == CTX_CPU)
		return f->pred == PRED_ADD ? C_CPU_ADD : C_CPU;
	return f->pred == PRED_ADD ? C_KEY_ADD : C_KEY;
}

static int read_shape(struct dec *d, struct cursor *c, struct shape *s, size_t *col)
{
	const uint8_t *at = c->p + c->off;
	uint8_t nf;

	memset(s, 0, sizeof(*s));
	s->stack = NO_FIELD;
	if (!cur_le32(c, &s->type) || !cur_le8(c, &s->key) || !cur_le8(c, &nf))
		return bad(d, "shape does not fit", at);
	if (!nf || nf > MAX_FIELDS || (s->key != NO_FIELD && s->key >= nf))
		return bad(d, "bad shape", at);
	s->nr_fields = nf;
	/* the kinds first: a field may refer to a later one */
	for (uint8_t i = 0; i < nf; i++) {
		struct field *f = &s->f[i];
		bool ok = cur_le8(c, &f->kind);

		if (ok && f->kind == F_WORD) {
			ok = cur_le8(c, &f->ctx) && cur_le8(c, &f->pred);
			if (ok && (f->pred == PRED_ADD || f->pred == PRED_EQ))
				ok = cur_le8(c, &f->ref);
			if (ok && f->pred == PRED_EQ)
				ok = cur_le8(c, &f->word);
		} else if (ok && f->kind == F_STACK) {
			ok = cur_le8(c, &f->ref) && s->stack == NO_FIELD;
			s->stack = i;
		}
		if (!ok)
			return bad(d, "bad shape field", at);
		f->col = (uint16_t)*col;
		*col += field_columns(f->kind);
	}
	if (s->key != NO_FIELD && (s->f[s->key].kind != F_WORD || s->f[s->key].ctx != CTX_CPU ||
				   s->f[s->key].pred == PRED_EQ))
		return bad(d, "bad shape key", at);
	for (uint8_t i = 0; i < nf; i++) {
		if (!field_valid(s, i))
			return bad(d, "bad shape field", at);
		if (s->f[i].kind == F_WORD && s->f[i].pred == PRED_EQ)
			s->eq[s->nr_eq++] = i;
		s->f[i].code = field_code(s, i);
	}
	return 0;
}

static int read_head(struct dec *d, struct cursor *c)
{
	size_t ncol = FIXED_COLUMNS, total = 0;
	struct col dir, lens;
	uint64_t n;
	uint8_t ns;
	int ret;

	if (!cur_le8(c, &ns))
		return bad(d, "header does not fit", c->p + c->off);
	d->shapes = calloc(ns ? ns : 1, sizeof(*d->shapes));
	if (!d->shapes)
		return -ENOMEM;
	d->nr_shapes = ns;
	for (size_t i = 0; i < ns; i++)
		d->last_key_st[i] = -1;
	for (size_t i = 0; i < ns; i++)
		if ((ret = read_shape(d, c, &d->shapes[i], &ncol)))
			return ret;
	dir = (struct col){ c->p + c->off, c->p + c->len };
	if (!col_varint(&dir, &n) || n != ncol)
		return bad(d, "wrong number of columns", dir.p);
	/* the lengths, then the columns back to back to the payload's end */
	lens = dir;
	for (size_t i = 0; i < ncol; i++)
		if (!col_varint(&dir, &n) || n > (size_t)(dir.end - dir.p))
			return bad(d, "column lengths pass the payload's end", dir.p);
	d->cols = calloc(ncol, sizeof(*d->cols));
	if (!d->cols)
		return -ENOMEM;
	d->nr_cols = ncol;
	for (size_t i = 0; i < ncol; i++) {
		col_varint(&lens, &n);
		if (n > (size_t)(dir.end - dir.p) - total)
			return bad(d, "columns pass the payload's end", dir.p + total);
		d->cols[i] = (struct col){ dir.p + total, dir.p + total + n };
		total += (size_t)n;
	}
	if (dir.p + total != dir.end)
		return bad(d, "bytes after the last column", dir.p + total);
	return 0;
}

/* ---- states ---------------------------------------------------------- */

/* The state of (shape si, ctx, key): its index, made with zeros if new. */
static long state_of(struct dec *d, size_t si, uint8_t ctx, uint64_t key)
{
	bool added;
	long idx = ctx_lookup(&d->ctx, (uint32_t)(si << 1 | ctx), key, (uint32_t)d->nr_st, &added);
	size_t nf = d->shapes[si].nr_fields;

	if (idx < 0 || !added)
		return idx;
	if (array_grow((void **)&d->st, &d->cap_st, d->nr_st + 1, sizeof(*d->st)) ||
	    array_grow((void **)&d->pool, &d->cap_pool, d->nr_pool + nf, sizeof(*d->pool)))
		return -1;
	d->st[d->nr_st] = (struct dstate){ .prev = (uint32_t)d->nr_pool };
	memset(d->pool + d->nr_pool, 0, nf * sizeof(*d->pool));
	d->nr_pool += nf;
	return (long)d->nr_st++;
}

/* ---- one record ------------------------------------------------------ */

struct rec {
	uint8_t *p;             /* where it is rebuilt */
	size_t room;            /* bytes it may take */
	size_t pos;
	uint16_t at[MAX_FIELDS], len[MAX_FIELDS];
	long cpu_st, key_st;
	uint64_t *prev[2];      /* the values of the CPU and KEY states (in pool) */
};

/* The key field's value v: the record's KEY state. */
static int key_state(struct dec *d, size_t si, uint64_t v, struct rec *r)
{
	if (d->last_key_st[si] < 0 || d->last_key[si] != v) {
		d->last_key[si] = v;
		d->last_key_st[si] = state_of(d, si, CTX_KEY, v);
		if (d->last_key_st[si] < 0)
			return -ENOMEM;
		r->prev[CTX_CPU] = d->pool + d->st[r->cpu_st].prev;    /* pool may have moved */
	}
	r->key_st = d->last_key_st[si];
	r->prev[CTX_KEY] = d->pool + d->st[r->key_st].prev;
	return 0;
}

static int dec_array(struct dec *d, const struct field *f, uint8_t i, struct rec *r)
{
	struct col *c = &d->cols[f->col];
	uint64_t ref, n;
	const struct tentry *e;

	if (!col_varint(c, &ref))
		return bad(d, "array column ends early", c->p);
	if (!ref) {
		struct col *t = &d->cols[COL_TABLE];
		const uint8_t *at = t->p;

		if (!col_varint(t, &n) || n > MAX_RECORD / 8 || (size_t)(t->end - t->p) < 8 * n)
			return bad(d, "table entry does not fit", at);
		if (d->nr_table >= MAX_TABLE)
			return bad(d, "table over its limit", at);
		if (array_grow((void **)&d->table, &d->cap_table, d->nr_table + 1, sizeof(*d->table)))
			return -ENOMEM;
		d->table[d->nr_table++] = (struct tentry){ t->p, (uint32_t)n };
		t->p += 8 * n;
		ref = d->nr_table;
	}
	if (ref > d->nr_table)
		return bad(d, "reference to no table entry", c->p);
	e = &d->table[ref - 1];
	if (r->pos > r->room || r->room - r->pos < 8 + 8 * (size_t)e->n)
		return bad(d, "record longer than its span or block", c->p);
	r->at[i] = (uint16_t)r->pos;
	r->len[i] = (uint16_t)(8 + 8 * e->n);
	le64_put(r->p + r->pos, e->n);
	memcpy(r->p + r->pos + 8, e->p, 8 * (size_t)e->n);
	r->pos += 8 + 8 * (size_t)e->n;
	return 0;
}

/* The copy's bytes start as the previous copy's, aligned by the shift of
 * the stack pointer (0 outside it). */
static void stack_base(uint8_t *dst, size_t size, const uint8_t *prev, size_t plen, int64_t shift)
{
	int64_t sz = (int64_t)size, pl = (int64_t)plen, a, b;

	if (!plen || shift >= pl || shift <= -sz) {
		memset(dst, 0, size);
		return;
	}
	a = shift >= 0 ? 0 : -shift;            /* |shift| < 64 KiB here */
	b = pl - shift > sz ? sz : pl - shift;
	memset(dst, 0, (size_t)a);
	memcpy(dst + a, prev + (a + shift), (size_t)(b - a));
	memset(dst + b, 0, (size_t)(sz - b));
}

/* The copy's changed units XORed into data; with keep, also listed in
 * d->units and d->unit_x (for a lazy copy). Their number, or a negative
 * code. */
static long dec_stack_units(struct dec *d, const struct field *f, uint8_t *data, uint64_t size,
			    bool keep)
{
	struct col *runs = &d->cols[f->col + 1], *x = &d->cols[f->col + 2];
	uint64_t m, units = (size + 7) / 8, u = 0, g;

	if (!col_varint(runs, &m) || m > units)
		return bad(d, "bad run count in a stack copy", runs->p);
	if (keep && (array_grow((void **)&d->units, &d->cap_units, (size_t)units, sizeof(*d->units)) ||
		     array_grow((void **)&d->unit_x, &d->cap_x, (size_t)units, 8)))
		return -ENOMEM;
	for (uint64_t k = 0; k < m; k++) {
		size_t ulen;

		if (!col_varint(runs, &g) || g >= units || (u = (k ? u + 1 : 0) + g) >= units)
			return bad(d, "bad run in a stack copy", runs->p);
		ulen = 8 * u + 8 <= size ? 8 : (size_t)(size - 8 * u);
		if ((size_t)(x->end - x->p) < ulen)
			return bad(d, "stack column ends early", x->p);
		for (size_t t = 0; t < ulen; t++)
			data[8 * u + t] ^= x->p[t];
		if (keep) {
			d->units[k] = (uint16_t)u;
			memset(d->unit_x + 8 * k, 0, 8);
			memcpy(d->unit_x + 8 * k, x->p, ulen);
		}
		x->p += ulen;
	}
	return (long)m;
}

/* Lazy copies (stack_lazy.h) ----------------------------------------- */

static uint64_t next_chain;     /* chain ids, unique in the process */

/* The state's chain ends with its last lazy copy. */
static void end_chain(struct dec *d, struct dstate *st)
{
	if (st->live)
		lazy_desc_set_last(d->out->data + st->last_desc);
	st->live = false;
}

/* The copy at data left lazy: its descriptor's head (its nr runs are
 * there), the chain going on or starting, the record marked. */
static int put_lazy(struct dec *d, struct rec *r, struct dstate *st, uint8_t *data, uint64_t sp,
		    uint32_t nr)
{
	struct lazy_desc ld = { .block = d->lz->block, .sp = sp, .nr = nr,
				.rec = (uint32_t)(r->p - d->out->data) };

	if (!st->live) {
		st->chain = __atomic_add_fetch(&next_chain, 1, __ATOMIC_RELAXED);
		st->seq = 0;
		ld.flags = LAZY_FULL;
	}
	ld.chain = st->chain;
	ld.seq = st->seq++;
	lazy_desc_write(data, &ld);
	st->live = true;
	st->live_cpu = d->span_cpu;
	st->last_desc = (size_t)(data - d->out->data);
	return buf_append(d->lz->marks, &ld.rec, sizeof(ld.rec)) ? -ENOMEM : 0;
}

/* The copy rebuilt in the state's window from the previous one and the
 * changed units; written as a descriptor where that fits in its bytes (the
 * units, or where the chain starts the copy's non-zero ones), else whole. */
static int dec_stack_lazy(struct dec *d, const struct field *f, struct rec *r, struct dstate *st,
			  uint8_t *data, uint64_t size, uint64_t sp)
{
	uint64_t units = (size + 7) / 8, u;
	size_t n;
	long m, nr;
	uint8_t *w;

	if (stack_win_move(&st->win, sp, (size_t)size))
		return -ENOMEM;
	w = stack_win_data(&st->win);
	m = dec_stack_units(d, f, w, size, true);
	if (m < 0)
		return (int)m;
	/* a chain stays in one CPU's spans, which the walk hands on in their
	 * order: a thread's records on another CPU may come before them */
	if (st->live && st->live_cpu != d->span_cpu)
		end_chain(d, st);
	n = (size_t)m;
	if (!st->live)
		for (n = 0, u = 0; u < units; u++) {
			uint64_t v = 0;

			memcpy(&v, w + 8 * u, 8 * u + 8 <= size ? 8 : (size_t)(size - 8 * u));
			if (v) {
				d->units[n] = (uint16_t)u;
				memcpy(d->unit_x + 8 * n++, &v, 8);
			}
		}
	nr = lazy_runs_put(data, size, d->units, d->unit_x, n);
	if (nr >= 0)
		return put_lazy(d, r, st, data, sp, (uint32_t)nr);
	memcpy(data, w, (size_t)size);
	end_chain(d, st);
	return 0;
}

static int dec_stack(struct dec *d, const struct shape *s, uint8_t i, struct rec *r)
{
	const struct field *f = &s->f[i];
	struct col *sizes = &d->cols[f->col];
	struct dstate *st;
	uint64_t size, dyn, sp;
	uint8_t *data;
	int ret;

	if (!col_varint(sizes, &size))
		return bad(d, "stack size column ends early", sizes->p);
	if (r->pos > r->room || size > r->room - r->pos ||
	    r->room - r->pos - size < (size ? 16 : 8))
		return bad(d, "record longer than its span or block", sizes->p);
	r->at[i] = (uint16_t)r->pos;
	le64_put(r->p + r->pos, size);
	if (!size) {
		r->len[i] = 8;
		r->pos += 8;
		return 0;
	}
	data = r->p + r->pos + 8;
	st = &d->st[r->key_st];
	sp = f->ref == NO_FIELD ? 0 : le64_get(r->p + r->at[f->ref]);
	if (d->lz) {
		ret = dec_stack_lazy(d, f, r, st, data, size, sp);
	} else {
		stack_base(data, (size_t)size, st->stack_len ? d->out->data + st->stack_off : NULL,
			   st->stack_len, (int64_t)(sp - st->stack_sp));
		ret = (int)dec_stack_units(d, f, data, size, false);
		ret = ret < 0 ? ret : 0;
	}
	if (ret)
		return ret;
	if (!col_varint(sizes, &dyn))
		return bad(d, "stack size column ends early", sizes->p);
	le64_put(data + size, dyn);
	st->stack_off = (size_t)(data - d->out->data);
	st->stack_len = (uint32_t)size;
	st->stack_sp = sp;
	r->len[i] = (uint16_t)(16 + size);
	r->pos += 16 + (size_t)size;
	return 0;
}

/* The EQ words: field ref's word plus the delta kept in place. */
static int dec_eq(struct dec *d, const struct shape *s, struct rec *r)
{
	for (uint8_t k = 0; k < s->nr_eq; k++) {
		uint8_t i = s->eq[k];
		const struct field *f = &s->f[i];
		uint64_t w;

		if (s->f[f->ref].kind != F_WORD && 8 * (size_t)f->word + 8 > r->len[f->ref])
			return bad(d, "EQ word outside its field", d->cols[f->col].p);
		w = le64_get(r->p + r->at[f->ref] + 8 * (size_t)f->word);
		le64_put(r->p + r->at[i], w + zz_dec(le64_get(r->p + r->at[i])));
	}
	return 0;
}

/* The fields of one record. Words are not checked for room one by one:
 * the record's length is checked once it is whole (out has room for
 * MAX_FIELDS words past any span's end). */
static int dec_fields(struct dec *d, const struct shape *s, size_t si, struct rec *r)
{
	struct col *cols = d->cols;
	size_t pos = r->pos;    /* kept here between the calls that read r */
	uint64_t u, v;
	int ret;

	for (uint8_t i = 0, nf = s->nr_fields; i < nf; i++) {
		const struct field *f = &s->f[i];
		uint64_t *prev;

		if (f->code >= C_ARRAY) {
			r->pos = pos;
			ret = f->code == C_ARRAY ? dec_array(d, f, i, r) : dec_stack(d, s, i, r);
			if (ret)
				return ret;
			pos = r->pos;
			continue;
		}
		if (!col_varint(&cols[f->col], &u))
			return bad(d, "word column ends early", cols[f->col].p);
		r->at[i] = (uint16_t)pos;
		prev = r->prev[f->ctx];
		switch (f->code) {
		case C_EQ:              /* resolved once the record is whole */
			v = u;
			break;
		case C_CPU_ADD:
		case C_KEY_ADD:
			v = prev[i] = prev[i] + prev[f->ref] + zz_dec(u);
			break;
		case C_KEYFIELD:
			v = prev[i] = prev[i] + (f->pred == PRED_ADD ? prev[f->ref] : 0) + zz_dec(u);
			if ((ret = key_state(d, si, v, r)))
				return ret;
			break;
		default:
			v = prev[i] = prev[i] + zz_dec(u);
		}
		le64_put(r->p + pos, v);
		pos += 8;
	}
	r->pos = pos;
	return 0;
}

static int dec_shaped(struct dec *d, size_t si, size_t room)
{
	const struct shape *s = &d->shapes[si];
	struct rec r;   /* at[] and len[] filled as the fields are: not cleared */
	struct perf_event_header h;
	uint64_t misc;
	int ret;

	if (room < 8 || !col_varint(&d->cols[COL_MISC], &misc) || misc > 0xffff)
		return bad(d, "bad misc column", d->cols[COL_MISC].p);
	r.p = d->out->data + d->out->len;
	r.room = room;
	r.pos = 8;
	r.key_st = -1;
	if (d->cpu_state[si] < 0 && (d->cpu_state[si] = state_of(d, si, CTX_CPU, d->span_cpu)) < 0)
		return -ENOMEM;
	r.cpu_st = d->cpu_state[si];
	r.prev[CTX_CPU] = d->pool + d->st[r.cpu_st].prev;
	r.prev[CTX_KEY] = NULL;
	ret = dec_fields(d, s, si, &r);
	if (!ret && r.pos > r.room)
		return bad(d, "record longer than its span or block", d->cols[COL_MISC].p);
	if (!ret && s->nr_eq)
		ret = dec_eq(d, s, &r);
	if (ret)
		return ret;
	h = (struct perf_event_header){ .type = s->type, .misc = (uint16_t)misc,
					.size = (uint16_t)r.pos };
	memcpy(r.p, &h, sizeof(h));
	d->out->len += r.pos;
	return 0;
}

static int dec_verbatim(struct dec *d, size_t room)
{
	struct col *v = &d->cols[COL_VERBATIM];
	struct perf_event_header h;

	if ((size_t)(v->end - v->p) < sizeof(h))
		return bad(d, "verbatim column ends early", v->p);
	memcpy(&h, v->p, sizeof(h));
	if (h.size < sizeof(h) || h.size > (size_t)(v->end - v->p) || h.size > room)
		return bad(d, "bad verbatim record", v->p);
	memcpy(d->out->data + d->out->len, v->p, h.size);
	d->out->len += h.size;
	v->p += h.size;
	return 0;
}

static int dec_span(struct dec *d)
{
	struct col *c = &d->cols[COL_CONTROL];
	uint64_t len, kind;
	size_t end;
	int ret = 0;

	if ((size_t)(c->end - c->p) < SPAN_HEADER_SIZE || d->limit - d->out->len < SPAN_HEADER_SIZE)
		return bad(d, "span header does not fit", c->p);
	d->span_cpu = (uint32_t)c->p[0] | (uint32_t)c->p[1] << 8 | (uint32_t)c->p[2] << 16 |
		      (uint32_t)c->p[3] << 24;
	len = le64_get(c->p + 8);
	memcpy(d->out->data + d->out->len, c->p, SPAN_HEADER_SIZE);
	d->out->len += SPAN_HEADER_SIZE;
	c->p += SPAN_HEADER_SIZE;
	if (len > d->limit - d->out->len)
		return bad(d, "span longer than the block", c->p);
	end = d->out->len + (size_t)len;
	for (size_t i = 0; i < d->nr_shapes; i++)
		d->cpu_state[i] = -1;
	while (!ret && d->out->len < end) {
		size_t room;

		if (!col_varint(c, &kind) || kind > d->nr_shapes)
			return bad(d, "bad record kind", c->p);
		room = end - d->out->len;

		ret = kind ? dec_shaped(d, (size_t)kind - 1, room < MAX_RECORD ? room : MAX_RECORD) :
		      dec_verbatim(d, end - d->out->len);
	}
	return ret;
}

static void dec_free(struct dec *d)
{
	for (size_t i = 0; i < d->nr_st; i++)
		stack_win_free(&d->st[i].win);
	free(d->units);
	free(d->unit_x);
	free(d->shapes);
	free(d->cols);
	free(d->st);
	free(d->pool);
	free(d->table);
	ctx_table_free(&d->ctx);
}

int columns_decode(const uint8_t *p, size_t len, struct buf *out, struct err *err)
{
	return columns_decode_lazy(p, len, out, NULL, err);
}

int columns_decode_lazy(const uint8_t *p, size_t len, struct buf *out,
			const struct columns_lazy *lz, struct err *err)
{
	struct cursor c = cur_make(p, len);
	struct dec d = { .base = p, .out = out, .lz = lz, .err = err };
	const uint8_t *hdr;
	uint32_t orig;
	int ret;

	buf_reset(out);
	if (lz)
		buf_reset(lz->marks);
	if (!cur_le32(&c, &orig) || orig > CONTAINER_MAX_RAW || orig < DATA_HEADER_SIZE ||
	    !(hdr = cur_take(&c, DATA_HEADER_SIZE)))
		return bad(&d, "header does not fit", p + c.off);
	/* a record's words may be written a little past its span (dec_word) */
	ret = buf_reserve(out, (size_t)orig + 8 * MAX_FIELDS + 16);
	if (!ret) {
		memcpy(out->data, hdr, DATA_HEADER_SIZE);
		out->len = DATA_HEADER_SIZE;
		d.limit = orig;
		ret = read_head(&d, &c);
	}
	while (!ret && d.cols[COL_CONTROL].p < d.cols[COL_CONTROL].end)
		ret = dec_span(&d);
	for (size_t i = 0; !ret && i < d.nr_cols; i++)
		if (d.cols[i].p != d.cols[i].end)
			ret = bad(&d, "bytes left over in a column", d.cols[i].p);
	if (!ret && out->len != orig)
		ret = bad(&d, "decoded length differs from the declared one", p + len);
	for (size_t i = 0; !ret && lz && i < d.nr_st; i++)
		end_chain(&d, &d.st[i]);
	dec_free(&d);
	if (ret == -ENOMEM)
		return err_set(err, ret, "out of memory");
	return ret;
}
