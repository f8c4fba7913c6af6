/*
 * minireader, section 6.4: decoding a COLUMNS DATA payload, written from
 * format/FORMAT.md alone (not from format/columns_*.c).
 *
 * Choices where the specification leaves room:
 *  - states are kept in one list searched linearly, keyed by (shape, CPU
 *    or KEY, value); a block has few of them;
 *  - the output is allocated once with orig_len bytes and every write is
 *    checked against it, so a record that would end past its span (or past
 *    65535 bytes) is rejected before anything is written there;
 *  - a table entry whose count would make a record over 65535 bytes is
 *    accepted into the table and rejected when a record uses it (it always
 *    is used at once, by the record that brings it).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

uint8_t *columns_decode_mini(const uint8_t *p, size_t n, uint32_t *out_len);

struct mc {                     /* a column: bytes and read position */
	const uint8_t *p;
	size_t len, pos;
};

struct mfield {
	int kind, ctx, pred, ref, word, col;
};

struct mshape {
	uint32_t type;
	int key, nf;
	struct mfield f[64];
};

struct mstate {
	int shape, which;       /* which: 0 CPU, 1 KEY */
	uint64_t value;
	uint64_t w[64];
	size_t prev_off, prev_len;      /* previous stack copy, in the output */
	uint64_t prev_sp;
};

struct mdec {
	struct mshape *shapes;
	int ns;
	struct mc *cols;
	size_t ncols;
	struct mstate *st;
	size_t nst;
	size_t *tab_off;        /* table entries: offset of the words in column 2 */
	uint64_t *tab_n;
	size_t ntab;
	uint8_t *out;
	size_t out_len, out_pos;
};

static uint64_t get_le(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void put_le(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* LEB128, at most 10 bytes, the 10th at most 1. 0 on success. */
static int vint(struct mc *c, uint64_t *v)
{
	uint64_t x = 0;

	for (int i = 0; i < 10; i++) {
		uint8_t b;

		if (c->pos >= c->len)
			return -1;
		b = c->p[c->pos++];
		if (i == 9 && b > 1)
			return -1;
		x |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -1;
}

static int delta(struct mc *c, uint64_t *d)
{
	uint64_t u;

	if (vint(c, &u))
		return -1;
	*d = (u >> 1) ^ (~(u & 1) + 1);
	return 0;
}

static int byte_at(struct mc *c, int *b)
{
	if (c->pos >= c->len)
		return -1;
	*b = c->p[c->pos++];
	return 0;
}

/* The index of a state, made with zeros if new. */
static size_t state(struct mdec *d, int shape, int which, uint64_t value)
{
	for (size_t i = 0; i < d->nst; i++)
		if (d->st[i].shape == shape && d->st[i].which == which && d->st[i].value == value)
			return i;
	d->st = realloc(d->st, (d->nst + 1) * sizeof(*d->st));
	if (!d->st)
		abort();
	memset(&d->st[d->nst], 0, sizeof(d->st[d->nst]));
	d->st[d->nst].shape = shape;
	d->st[d->nst].which = which;
	d->st[d->nst].value = value;
	return d->nst++;
}

/* The validity rules of a shape. 0 if valid. */
static int shape_ok(const struct mshape *s)
{
	int stacks = 0;

	if (s->key != 255) {
		if (s->key >= s->nf || s->f[s->key].kind != 1 || s->f[s->key].ctx != 0 ||
		    s->f[s->key].pred == 2)
			return -1;
	}
	for (int i = 0; i < s->nf; i++) {
		const struct mfield *f = &s->f[i];

		if (f->kind < 1 || f->kind > 3)
			return -1;
		if (f->kind == 1) {
			if (f->ctx > 1 || f->pred > 2)
				return -1;
			if (f->ctx == 1 && (s->key == 255 || i <= s->key))
				return -1;
			if (f->pred == 1 && (f->ref >= s->nf || s->f[f->ref].kind != 1 ||
					     s->f[f->ref].ctx != f->ctx))
				return -1;
			if (f->pred == 2 && (f->ref >= s->nf || f->ref == i ||
					     (s->f[f->ref].kind == 1 && s->f[f->ref].pred == 2) ||
					     (s->f[f->ref].kind == 1 && f->word != 0)))
				return -1;
		}
		if (f->kind == 3) {
			if (++stacks > 1 || s->key == 255 || i <= s->key)
				return -1;
			if (f->ref != 255 && (f->ref >= i || s->f[f->ref].kind != 1 ||
					      s->f[f->ref].pred == 2))
				return -1;
		}
	}
	return 0;
}

static int read_shapes(struct mdec *d, struct mc *in)
{
	int ncol = 4, b;

	if (byte_at(in, &d->ns))
		return -1;
	d->shapes = calloc((size_t)d->ns + 1, sizeof(*d->shapes));
	for (int k = 0; k < d->ns; k++) {
		struct mshape *s = &d->shapes[k];

		if (in->len - in->pos < 4)
			return -1;
		s->type = (uint32_t)get_le(in->p + in->pos, 4);
		in->pos += 4;
		if (byte_at(in, &s->key) || byte_at(in, &s->nf) || s->nf < 1 || s->nf > 64)
			return -1;
		for (int i = 0; i < s->nf; i++) {
			struct mfield *f = &s->f[i];

			if (byte_at(in, &f->kind))
				return -1;
			if (f->kind == 1) {
				if (byte_at(in, &f->ctx) || byte_at(in, &f->pred))
					return -1;
				if ((f->pred == 1 || f->pred == 2) && byte_at(in, &f->ref))
					return -1;
				if (f->pred == 2 && byte_at(in, &b))
					return -1;
				f->word = f->pred == 2 ? b : 0;
			} else if (f->kind == 3 && byte_at(in, &f->ref)) {
				return -1;
			}
			f->col = ncol;
			ncol += f->kind == 3 ? 3 : 1;
		}
		if (shape_ok(s))
			return -1;
	}
	return ncol;
}

static int read_columns(struct mdec *d, struct mc *in, int ncol)
{
	uint64_t n, total = 0;
	uint64_t *lens;

	if (vint(in, &n) || n != (uint64_t)ncol)
		return -1;
	lens = calloc((size_t)ncol, sizeof(*lens));
	d->cols = calloc((size_t)ncol, sizeof(*d->cols));
	d->ncols = (size_t)ncol;
	for (int i = 0; i < ncol; i++)
		if (vint(in, &lens[i]) || lens[i] > in->len) {
			free(lens);
			return -1;
		}
	for (int i = 0; i < ncol; i++) {
		if (lens[i] > in->len - in->pos - total) {
			free(lens);
			return -1;
		}
		d->cols[i].p = in->p + in->pos + total;
		d->cols[i].len = (size_t)lens[i];
		total += lens[i];
	}
	free(lens);
	return in->pos + total == in->len ? 0 : -1;
}

/* Room for n more bytes of the record that started at rec, whose span
 * ends at span_end. */
static int room(const struct mdec *d, size_t rec, size_t span_end, size_t n)
{
	size_t end = d->out_pos + n;

	return end > span_end || end - rec > 65535 || end > d->out_len ? -1 : 0;
}

static int do_array(struct mdec *d, const struct mfield *f, size_t rec, size_t span_end)
{
	uint64_t r, n;
	size_t at;

	if (vint(&d->cols[f->col], &r))
		return -1;
	if (r == 0) {
		struct mc *t = &d->cols[2];

		if (vint(t, &n) || n > (t->len - t->pos) / 8 || d->ntab >= 1048576)
			return -1;
		d->tab_off = realloc(d->tab_off, (d->ntab + 1) * sizeof(*d->tab_off));
		d->tab_n = realloc(d->tab_n, (d->ntab + 1) * sizeof(*d->tab_n));
		d->tab_off[d->ntab] = t->pos;
		d->tab_n[d->ntab] = n;
		d->ntab++;
		t->pos += (size_t)(8 * n);
		r = d->ntab;
	}
	if (r > d->ntab)
		return -1;
	n = d->tab_n[r - 1];
	at = d->tab_off[r - 1];
	if (n > 65535 / 8 || room(d, rec, span_end, (size_t)(8 + 8 * n)))
		return -1;
	put_le(d->out + d->out_pos, n);
	memcpy(d->out + d->out_pos + 8, d->cols[2].p + at, (size_t)(8 * n));
	d->out_pos += (size_t)(8 + 8 * n);
	return 0;
}

static int do_stack(struct mdec *d, const struct mfield *f, size_t ki, uint64_t sp,
		    size_t rec, size_t span_end)
{
	struct mstate *ks = &d->st[ki];
	struct mc *sizes = &d->cols[f->col], *units = &d->cols[f->col + 1];
	struct mc *bytes = &d->cols[f->col + 2];
	uint64_t size, dyn, m, g, nunits, u = 0;
	int64_t shift;
	uint8_t *data;

	if (vint(sizes, &size) || room(d, rec, span_end, 8))
		return -1;
	put_le(d->out + d->out_pos, size);
	d->out_pos += 8;
	if (size == 0)
		return 0;
	if (size > 65535 || room(d, rec, span_end, (size_t)size + 8))
		return -1;
	data = d->out + d->out_pos;
	shift = (int64_t)(sp - ks->prev_sp);
	for (uint64_t j = 0; j < size; j++) {
		/* j + shift without overflow: |shift| against the lengths */
		int in = ks->prev_len && shift < (int64_t)ks->prev_len &&
			 shift > -(int64_t)size && (int64_t)j + shift >= 0 &&
			 (int64_t)j + shift < (int64_t)ks->prev_len;

		data[j] = in ? d->out[ks->prev_off + (size_t)((int64_t)j + shift)] : 0;
	}
	nunits = (size + 7) / 8;
	if (vint(units, &m) || m > nunits)
		return -1;
	for (uint64_t k = 0; k < m; k++) {
		uint64_t ulen;

		if (vint(units, &g) || g >= nunits)
			return -1;
		u = k == 0 ? g : u + 1 + g;
		if (u >= nunits)
			return -1;
		ulen = size - 8 * u < 8 ? size - 8 * u : 8;
		if (bytes->len - bytes->pos < ulen)
			return -1;
		for (uint64_t t = 0; t < ulen; t++)
			data[8 * u + t] ^= bytes->p[bytes->pos++];
	}
	if (vint(sizes, &dyn))
		return -1;
	put_le(data + size, dyn);
	ks->prev_off = d->out_pos;
	ks->prev_len = (size_t)size;
	ks->prev_sp = sp;
	d->out_pos += (size_t)size + 8;
	return 0;
}

/* One record of shape k; the output position moves past it. */
static int do_record(struct mdec *d, int k, uint32_t cpu, size_t span_end)
{
	const struct mshape *s = &d->shapes[k];
	size_t rec = d->out_pos, at[64], flen[64];
	uint64_t misc, val[64], eqd[64];
	size_t ci, ki = 0;

	if (vint(&d->cols[3], &misc) || misc > 0xffff || room(d, rec, span_end, 8))
		return -1;
	d->out_pos += 8;
	ci = state(d, k, 0, cpu);
	for (int i = 0; i < s->nf; i++) {
		const struct mfield *f = &s->f[i];

		at[i] = d->out_pos;
		if (f->kind == 1) {
			struct mstate *st = &d->st[f->ctx == 0 ? ci : ki];
			uint64_t dd;

			if (delta(&d->cols[f->col], &dd) || room(d, rec, span_end, 8))
				return -1;
			if (f->pred == 2) {
				eqd[i] = dd;
				val[i] = 0;
			} else {
				val[i] = st->w[i] + (f->pred == 1 ? st->w[f->ref] : 0) + dd;
				st->w[i] = val[i];
			}
			put_le(d->out + d->out_pos, val[i]);
			d->out_pos += 8;
			if (i == s->key)
				ki = state(d, k, 1, val[i]);
		} else if (f->kind == 2) {
			if (do_array(d, f, rec, span_end))
				return -1;
		} else {
			uint64_t sp = f->ref == 255 ? 0 : val[f->ref];

			if (do_stack(d, f, ki, sp, rec, span_end))
				return -1;
		}
		flen[i] = d->out_pos - at[i];
	}
	for (int i = 0; i < s->nf; i++) {
		const struct mfield *f = &s->f[i];

		if (f->kind != 1 || f->pred != 2)
			continue;
		if ((size_t)(8 * f->word + 8) > flen[f->ref])
			return -1;
		put_le(d->out + at[i], get_le(d->out + at[f->ref] + 8 * f->word, 8) + eqd[i]);
	}
	put_le(d->out + rec, (uint64_t)s->type | misc << 32 | (uint64_t)(d->out_pos - rec) << 48);
	return 0;
}

static int do_spans(struct mdec *d)
{
	struct mc *c = &d->cols[0];

	while (c->pos < c->len) {
		uint64_t length, kind;
		uint32_t cpu;
		size_t end;

		if (c->len - c->pos < 16 || d->out_len - d->out_pos < 16)
			return -1;
		memcpy(d->out + d->out_pos, c->p + c->pos, 16);
		cpu = (uint32_t)get_le(c->p + c->pos, 4);
		length = get_le(c->p + c->pos + 8, 8);
		c->pos += 16;
		d->out_pos += 16;
		if (length > d->out_len - d->out_pos)
			return -1;
		end = d->out_pos + (size_t)length;
		while (d->out_pos < end) {
			if (vint(c, &kind) || kind > (uint64_t)d->ns)
				return -1;
			if (kind == 0) {
				struct mc *v = &d->cols[1];
				size_t size;

				if (v->len - v->pos < 8)
					return -1;
				/* header.size, little-endian records (this reader's) */
				size = (size_t)(v->p[v->pos + 6] | v->p[v->pos + 7] << 8);
				if (size < 8 || size > v->len - v->pos || size > end - d->out_pos)
					return -1;
				memcpy(d->out + d->out_pos, v->p + v->pos, size);
				v->pos += size;
				d->out_pos += size;
			} else if (do_record(d, (int)kind - 1, cpu, end)) {
				return -1;
			}
		}
	}
	return 0;
}

uint8_t *columns_decode_mini(const uint8_t *p, size_t n, uint32_t *out_len)
{
	struct mdec d;
	struct mc in = { p, n, 0 };
	int ncol, ok = 0;

	memset(&d, 0, sizeof(d));
	if (n < 28)
		return NULL;
	d.out_len = (size_t)get_le(p, 4);
	if (d.out_len > 64u * 1024 * 1024 || d.out_len < 24)
		return NULL;
	d.out = malloc(d.out_len);
	memcpy(d.out, p + 4, 24);
	d.out_pos = 24;
	in.pos = 28;
	ncol = read_shapes(&d, &in);
	if (ncol > 0 && !read_columns(&d, &in, ncol) && !do_spans(&d)) {
		ok = d.out_pos == d.out_len;
		for (size_t i = 0; i < d.ncols; i++)
			ok = ok && d.cols[i].pos == d.cols[i].len;
	}
	free(d.shapes);
	free(d.cols);
	free(d.st);
	free(d.tab_off);
	free(d.tab_n);
	if (!ok) {
		free(d.out);
		return NULL;
	}
	*out_len = (uint32_t)d.out_len;
	return d.out;
}
