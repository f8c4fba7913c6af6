/* SPDX-License-Identifier: MIT */
/* The time order of the records of several ring buffers; see order.h. */
#include "order.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"

#define CHUNK_BYTES ((size_t)256 << 10)
#define COMPACT_MIN 4096        /* handed-on entries worth moving the rest for */

void order_init(struct order *o, order_release_fn release, void *ctx)
{
	memset(o, 0, sizeof(*o));
	o->release = release;
	o->release_ctx = ctx;
}

void order_free(struct order *o)
{
	for (size_t i = 0; i < o->nr_owners; i++) {
		struct order_owner *w = &o->owners[i];

		if (w->in_use && !w->mem && o->release)
			o->release(o->release_ctx, w->token);
		free(w->mem);
	}
	free(o->owners);
	free(o->e);
	free(o->runs);
	free(o->heap);
	memset(o, 0, sizeof(*o));
}

size_t order_waiting(const struct order *o)
{
	return o->waiting;
}

int order_add(struct order *o, const uint8_t *p, uint32_t len, uint64_t time, bool borrowed)
{
	struct order_run *r = o->nr_runs ? &o->runs[o->nr_runs - 1] : NULL;

	if (o->nr == o->cap && array_grow((void **)&o->e, &o->cap, o->nr + 1, sizeof(*o->e)))
		return -ENOMEM;
	/* a run goes on while the times do not go back */
	if (!r || r->end != o->nr || time < o->e[o->nr - 1].time) {
		if (o->nr_runs == o->cap_runs &&
		    array_grow((void **)&o->runs, &o->cap_runs, o->nr_runs + 1, sizeof(*o->runs)))
			return -ENOMEM;
		r = &o->runs[o->nr_runs++];
		r->start = r->end = o->nr;
	}
	o->e[o->nr++] = (struct order_ent){ time, p, len, borrowed ? ORDER_BORROWED : 0 };
	r->end = o->nr;
	o->waiting++;
	return 0;
}

/* ---- owners of the memory of waiting records ----------------------------- */

static uint32_t owner_new(struct order *o)
{
	size_t i;

	for (i = 0; i < o->nr_owners; i++)
		if (!o->owners[i].in_use)
			break;
	if (i == o->nr_owners) {
		struct order_owner *w = array_realloc(o->owners, o->nr_owners + 1, sizeof(*w));

		if (!w)
			return 0;
		o->owners = w;
		o->nr_owners++;
	}
	memset(&o->owners[i], 0, sizeof(o->owners[i]));
	o->owners[i].in_use = true;
	return (uint32_t)i + 1;
}

/* One record of owner id handed on. */
static void owner_put(struct order *o, uint32_t id)
{
	struct order_owner *w = &o->owners[id - 1];

	if (--w->live)
		return;
	if (!w->mem) {                  /* a held block */
		w->in_use = false;
		if (o->release)
			o->release(o->release_ctx, w->token);
	} else if (id == o->chunk) {    /* copies go on into it from its start */
		w->used = 0;
	} else {
		free(w->mem);
		memset(w, 0, sizeof(*w));
	}
}

/* Room for a copy of len bytes: in the current chunk, else a new one. */
static uint8_t *chunk_room(struct order *o, uint32_t len, uint32_t *id)
{
	struct order_owner *w = o->chunk ? &o->owners[o->chunk - 1] : NULL;

	if (!w || w->cap - w->used < len) {
		size_t cap = len > CHUNK_BYTES ? len : CHUNK_BYTES;
		uint32_t nid;
		uint8_t *mem = malloc(cap);

		if (!mem || !(nid = owner_new(o))) {
			free(mem);
			return NULL;
		}
		/* the chunk before stays until its last record is handed on */
		w = o->chunk ? &o->owners[o->chunk - 1] : NULL;    /* owner_new moved them */
		if (w && !w->live) {
			free(w->mem);
			memset(w, 0, sizeof(*w));
		}
		o->chunk = nid;
		w = &o->owners[nid - 1];
		w->mem = mem;
		w->cap = cap;
	}
	*id = o->chunk;
	w->used += len;
	w->live++;
	return w->mem + w->used - len;
}

/* The borrowed waiting records are the last ones added: visit them, from
 * the last one back, with f (hold or copy). */
static int adopt_each(struct order *o, int (*f)(struct order *o, struct order_ent *x, uint32_t id),
		      uint32_t id)
{
	for (size_t ri = o->nr_runs; ri-- > 0;) {
		const struct order_run *r = &o->runs[ri];

		for (size_t i = r->end; i-- > r->start;) {
			struct order_ent *x = &o->e[i];
			int ret;

			if (x->owner != ORDER_BORROWED)
				return 0;       /* the ones before are not borrowed either */
			if ((ret = f(o, x, id)))
				return ret;
		}
	}
	return 0;
}

static int hold_one(struct order *o, struct order_ent *x, uint32_t id)
{
	x->owner = id;
	o->owners[id - 1].live++;
	return 0;
}

static int copy_one(struct order *o, struct order_ent *x, uint32_t id)
{
	uint32_t len = x->len & ~ORDER_MARK;
	uint8_t *to = chunk_room(o, len, &id);

	if (!to)
		return -ENOMEM;
	memcpy(to, x->p, len);
	x->p = to;
	x->owner = id;
	return 0;
}

int order_adopt(struct order *o, order_hold_fn hold, void *ctx)
{
	uint64_t token;
	uint32_t id;

	if (!o->nr_runs || o->e[o->runs[o->nr_runs - 1].end - 1].owner != ORDER_BORROWED)
		return 0;
	if (hold && hold(ctx, &token)) {
		if (!(id = owner_new(o))) {
			if (o->release)
				o->release(o->release_ctx, token);
			return -ENOMEM;
		}
		o->owners[id - 1].token = token;
		return adopt_each(o, hold_one, id);
	}
	return adopt_each(o, copy_one, 0);
}

/* ---- handing on ------------------------------------------------------------ */

/* The earlier time first; ties: the run that came first. */
static inline bool head_before(const struct order_head *a, const struct order_head *b)
{
	return a->time < b->time || (a->time == b->time && a->run < b->run);
}

static void sift_down(struct order_head *h, size_t k, size_t i)
{
	struct order_head x = h[i];

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= k)
			break;
		if (c + 1 < k && head_before(&h[c + 1], &h[c]))
			c++;
		if (!head_before(&h[c], &x))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = x;
}

/* Drop the runs handed on whole; move the waiting entries down once the
 * handed-on ones outnumber them (so each entry moves a bounded number of
 * times). */
static void tidy(struct order *o)
{
	size_t n = 0, dst = 0;

	for (size_t i = 0; i < o->nr_runs; i++)
		if (o->runs[i].start < o->runs[i].end)
			o->runs[n++] = o->runs[i];
	o->nr_runs = n;
	if (!o->waiting) {
		o->nr = 0;
		return;
	}
	if (o->nr - o->waiting < COMPACT_MIN || o->nr - o->waiting <= o->waiting)
		return;
	for (size_t i = 0; i < o->nr_runs; i++) {
		struct order_run *r = &o->runs[i];
		size_t len = r->end - r->start;

		memmove(&o->e[dst], &o->e[r->start], len * sizeof(*o->e));
		r->start = dst;
		r->end = dst += len;
	}
	o->nr = dst;
}

int order_flush(struct order *o, uint64_t limit, bool all, order_fn fn, void *ctx)
{
	struct order_head *h;
	size_t k = 0;
	int ret = 0;

	if (o->nr_runs > o->cap_heap &&
	    array_grow((void **)&o->heap, &o->cap_heap, o->nr_runs, sizeof(*o->heap)))
		return -ENOMEM;
	h = o->heap;
	for (size_t i = 0; i < o->nr_runs; i++) {
		const struct order_run *r = &o->runs[i];

		if (r->start < r->end && (all || o->e[r->start].time <= limit))
			h[k++] = (struct order_head){ o->e[r->start].time, i };
	}
	for (size_t i = k / 2; i-- > 0;)
		sift_down(h, k, i);
	while (k && !ret) {
		struct order_run *r = &o->runs[h[0].run];
		const struct order_ent *x = &o->e[r->start++];

		o->waiting--;
		if (x->time > o->flushed)
			o->flushed = x->time;
		ret = fn(ctx, x->p, x->len);
		if (x->owner && x->owner != ORDER_BORROWED)
			owner_put(o, x->owner);
		if (r->start == r->end || (!all && o->e[r->start].time > limit)) {
			h[0] = h[--k];
		} else {
			/* the run's next record is among the next few handed on */
			__builtin_prefetch(o->e[r->start].p);
			h[0].time = o->e[r->start].time;
			/* the same run goes on while it is still the earliest */
			if ((k > 1 && !head_before(&h[0], &h[1])) ||
			    (k > 2 && !head_before(&h[0], &h[2])))
				sift_down(h, k, 0);
			continue;
		}
		sift_down(h, k, 0);
	}
	tidy(o);
	return ret;
}
