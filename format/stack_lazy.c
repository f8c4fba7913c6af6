/* SPDX-License-Identifier: MIT */
/* Lazy stack copies: the window and the chains; see stack_lazy.h. */
#include "stack_lazy.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"

#define FLAGS_AT 36                     /* the flags' place in a descriptor's head */
#define WIN_SLACK ((size_t)16 << 10)   /* room around a copy for the stack pointer to move */
#define MAX_CHAINS 1024                 /* live at once; past it one goes (its copies then
					 * come from their blocks decoded again) */

int lazy_desc_read(const uint8_t *p, uint64_t size, struct lazy_desc *d)
{
	if (size < LAZY_HEAD_SIZE)
		return -1;
	memcpy(&d->chain, p, 8);
	memcpy(&d->block, p + 8, 8);
	memcpy(&d->sp, p + 16, 8);
	memcpy(&d->rec, p + 24, 4);
	memcpy(&d->seq, p + 28, 4);
	memcpy(&d->nr, p + 32, 4);
	memcpy(&d->flags, p + FLAGS_AT, 2);
	d->runs = p + LAZY_HEAD_SIZE;
	d->end = p + size;
	return 0;
}

void lazy_desc_write(uint8_t *p, const struct lazy_desc *d)
{
	uint16_t zero = 0;

	memcpy(p, &d->chain, 8);
	memcpy(p + 8, &d->block, 8);
	memcpy(p + 16, &d->sp, 8);
	memcpy(p + 24, &d->rec, 4);
	memcpy(p + 28, &d->seq, 4);
	memcpy(p + 32, &d->nr, 4);
	memcpy(p + FLAGS_AT, &d->flags, 2);
	memcpy(p + 38, &zero, 2);
}

void lazy_desc_set_last(uint8_t *p)
{
	uint16_t flags;

	memcpy(&flags, p + FLAGS_AT, 2);
	flags |= LAZY_LAST;
	memcpy(p + FLAGS_AT, &flags, 2);
}

long lazy_runs_put(uint8_t *p, uint64_t size, const uint16_t *units, const uint8_t *x, size_t n)
{
	uint64_t at = LAZY_HEAD_SIZE;
	long runs = 0;

	for (size_t k = 0, end; k < n; k = end) {
		uint16_t first = units[k], count;

		for (end = k + 1; end < n && units[end] == units[end - 1] + 1; end++)
			;
		count = (uint16_t)(end - k);
		if (size < at || size - at < LAZY_RUN_HEAD + 8 * (uint64_t)count)
			return -1;
		memcpy(p + at, &first, 2);
		memcpy(p + at + 2, &count, 2);
		memcpy(p + at + LAZY_RUN_HEAD, x + 8 * k, 8 * (size_t)count);
		at += LAZY_RUN_HEAD + 8 * (uint64_t)count;
		runs++;
	}
	return size < LAZY_HEAD_SIZE ? -1 : runs;
}

int lazy_desc_apply(const struct lazy_desc *d, uint8_t *copy, uint64_t size)
{
	const uint8_t *p = d->runs;
	uint64_t units = (size + 7) / 8;

	for (uint32_t k = 0; k < d->nr; k++) {
		uint16_t first, n;

		if ((size_t)(d->end - p) < LAZY_RUN_HEAD)
			return -1;
		memcpy(&first, p, 2);
		memcpy(&n, p + 2, 2);
		p += LAZY_RUN_HEAD;
		if ((uint64_t)first + n > units || (size_t)(d->end - p) / 8 < n)
			return -1;
		for (uint64_t u = first; u < (uint64_t)first + n; u++, p += 8) {
			size_t len = 8 * u + 8 <= size ? 8 : (size_t)(size - 8 * u);
			uint64_t v = 0, x;

			memcpy(&x, p, 8);
			memcpy(&v, copy + 8 * u, len);
			v ^= x;
			memcpy(copy + 8 * u, &v, len);
		}
	}
	return 0;
}

int stack_win_move(struct stack_win *w, uint64_t sp, size_t size)
{
	int64_t shift = (int64_t)(sp - w->sp), sz = (int64_t)size, pl = (int64_t)w->len;
	int64_t a = 0, b = 0;   /* the new copy's bytes [a, b) are the old one's */
	int64_t at;

	if (w->len && shift < pl && shift > -sz) {
		a = shift >= 0 ? 0 : -shift;
		b = pl - shift > sz ? sz : pl - shift;
	}
	at = b > a ? (int64_t)w->off + shift : 0;
	if (b <= a || at < 0 || (uint64_t)at + size > w->cap) {
		size_t cap = w->cap > 2 * size + WIN_SLACK ? w->cap : 2 * size + WIN_SLACK;
		size_t off = (cap - size) / 2;
		uint8_t *buf = b > a || cap > w->cap ? malloc(cap) : w->buf;

		if (!buf)
			return -ENOMEM;
		if (b > a)
			memcpy(buf + off + a, w->buf + w->off + a + shift, (size_t)(b - a));
		if (buf != w->buf) {
			free(w->buf);
			w->buf = buf;
			w->cap = cap;
		}
		at = (int64_t)off;
	}
	memset(w->buf + at, 0, (size_t)a);
	memset(w->buf + at + b, 0, (size_t)(sz - (b > a ? b : 0)));
	w->off = (size_t)at;
	w->len = size;
	w->sp = sp;
	return 0;
}

void stack_win_free(struct stack_win *w)
{
	free(w->buf);
	memset(w, 0, sizeof(*w));
}

/* ---- the chains ------------------------------------------------------------ */

struct chain {
	uint64_t id;
	uint32_t next_seq;
	struct stack_win w;
};

struct stack_chains {
	struct chain *v;
	size_t nr, cap;
	size_t doomed;          /* a chain whose last copy was handed out, + 1 */
};

struct stack_chains *stack_chains_new(void)
{
	return calloc(1, sizeof(struct stack_chains));
}

void stack_chains_free(struct stack_chains *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nr; i++)
		stack_win_free(&c->v[i].w);
	free(c->v);
	free(c);
}

/* The chain that ended with the last copy handed out goes now that its
 * bytes are no longer needed. */
static void bury(struct stack_chains *c)
{
	size_t i = c->doomed - 1;

	if (!c->doomed)
		return;
	c->doomed = 0;
	stack_win_free(&c->v[i].w);
	c->v[i] = c->v[--c->nr];
}

/* The chain id, made when missing and make is set: NULL when missing (or
 * out of memory, *nomem set). Few chains live at once (a block's threads,
 * for the few blocks whose records wait): a linear search, newest last. */
static struct chain *chain_of(struct stack_chains *c, uint64_t id, int make, int *nomem)
{
	for (size_t i = c->nr; i-- > 0;)
		if (c->v[i].id == id)
			return &c->v[i];
	if (!make)
		return NULL;
	if (c->nr == MAX_CHAINS) {      /* (none is doomed: chain_for buried it) */
		stack_win_free(&c->v[0].w);
		c->v[0] = c->v[--c->nr];
	}
	if (array_grow((void **)&c->v, &c->cap, c->nr + 1, sizeof(*c->v))) {
		*nomem = 1;
		return NULL;
	}
	memset(&c->v[c->nr], 0, sizeof(c->v[c->nr]));
	c->v[c->nr].id = id;
	return &c->v[c->nr++];
}

static void handed_out(struct stack_chains *c, struct chain *ch, const struct lazy_desc *d,
		       const uint8_t **data)
{
	ch->next_seq = d->seq + 1;
	*data = stack_win_data(&ch->w);
	if (d->flags & LAZY_LAST)
		c->doomed = (size_t)(ch - c->v) + 1;
}

/* The descriptor at desc read into *d, its chain found, or made when make
 * or the chain starts there: 0 and *ch (NULL when missing), -1, or -ENOMEM. */
static int chain_for(struct stack_chains *c, const uint8_t *desc, uint64_t size, int make,
		     struct lazy_desc *d, struct chain **ch)
{
	int nomem = 0;

	bury(c);
	if (lazy_desc_read(desc, size, d))
		return -1;
	*ch = chain_of(c, d->chain, make || (d->flags & LAZY_FULL), &nomem);
	return nomem ? -ENOMEM : 0;
}

int stack_chains_take(struct stack_chains *c, const uint8_t *desc, uint64_t size,
		      const uint8_t **data)
{
	struct lazy_desc d;
	struct chain *ch;
	int ret = chain_for(c, desc, size, 0, &d, &ch);

	if (ret || !ch)
		return ret ? ret : 1;
	if (d.flags & LAZY_FULL)
		ch->w.len = 0;          /* the units are the copy's own */
	else if (d.seq != ch->next_seq)
		return 1;
	if (stack_win_move(&ch->w, d.sp, (size_t)size))
		return -ENOMEM;
	if (lazy_desc_apply(&d, stack_win_data(&ch->w), size)) {
		ch->next_seq = UINT32_MAX;      /* the chain is gone wrong: no more from it */
		return -1;
	}
	handed_out(c, ch, &d, data);
	return 0;
}

int stack_chains_set(struct stack_chains *c, const uint8_t *desc, const uint8_t *bytes,
		     uint64_t size, const uint8_t **data)
{
	struct lazy_desc d;
	struct chain *ch;
	int ret = chain_for(c, desc, size, 1, &d, &ch);

	if (ret)
		return ret;
	ch->w.len = 0;
	if (stack_win_move(&ch->w, d.sp, (size_t)size))
		return -ENOMEM;
	memcpy(stack_win_data(&ch->w), bytes, (size_t)size);
	handed_out(c, ch, &d, data);
	return 0;
}
