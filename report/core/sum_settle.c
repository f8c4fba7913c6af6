/* SPDX-License-Identifier: MIT */
/* Samples put into classes; see sum_settle.h. */
#include "sum_settle.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"

/* A process: its boundaries (sorted, distinct); the first and last time
 * of its samples settled so far, and the floor (a boundary taken after
 * samples past it: those before it may no longer settle). */
struct proc {
	uint32_t pid;
	uint64_t *t;
	size_t n, cap;
	uint64_t min_t, max_t, floor;
};

/* A thread's samples of an event in one epoch: a class is one of these
 * and a key. */
struct sum_ctx {
	uint64_t ids;           /* pid << 32 | tid */
	uint64_t epoch;
	int event;
	uint32_t proc;          /* index in procs */
};

/* The context of the last sample of a thread and event settled: those
 * with a time in (lo, hi) are in it (no boundary of their process, or of
 * every process, lies in between), and are refused below floor (the
 * process's, or every process's). */
#define CTX_SLOTS 256
struct ctx_slot {
	uint64_t ids;
	uint64_t lo, hi, floor;
	int event;
	uint32_t ctx;           /* index + 1 in ctxs, 0: an empty slot */
	uint32_t proc;          /* index in procs */
};

struct settle {
	struct sum_pend *wait;          /* samples of earlier batches still waiting */
	size_t nr_wait, cap_wait;
	struct proc all;                /* every process's boundaries (its floor too) */
	struct proc *procs;
	size_t nr_procs, cap_procs;
	struct hmap proc_idx;
	struct sum_ctx *ctxs;
	size_t nr_ctxs, cap_ctxs;
	struct hmap ctx_idx;
	struct ctx_slot cache[CTX_SLOTS];
	struct sum_class *cls;
	struct sum_first *first;
	size_t nr_cls, cap_cls, cap_first;
	uint64_t *slots;        /* open addressing: hash's top half << 32 | index + 1 */
	size_t nr_slots;        /* a power of two, at least twice nr_cls */
	struct sum_item *alone;
	size_t nr_alone, cap_alone;
	struct buf bytes;
	uint64_t samples;
};

struct settle *settle_new(void)
{
	struct settle *st = calloc(1, sizeof(*st));

	if (st) {
		st->proc_idx = (struct hmap)HMAP_INIT;
		st->ctx_idx = (struct hmap)HMAP_INIT;
	}
	return st;
}

void settle_free(struct settle *st)
{
	if (!st)
		return;
	free(st->wait);
	free(st->all.t);
	for (size_t i = 0; i < st->nr_procs; i++)
		free(st->procs[i].t);
	free(st->procs);
	hmap_free(&st->proc_idx);
	free(st->ctxs);
	hmap_free(&st->ctx_idx);
	free(st->cls);
	free(st->first);
	free(st->slots);
	free(st->alone);
	free(st->bytes.data);
	free(st);
}

/* ---- boundaries and epochs -------------------------------------------- */

static bool proc_eq(void *ctx, uint32_t idx)
{
	const struct settle *st = ((const void **)ctx)[0];
	const uint32_t *pid = ((const void **)ctx)[1];

	return st->procs[idx].pid == *pid;
}

/* The index of pid's entry, made if new; -1 on ENOMEM. */
static long proc_of(struct settle *st, uint32_t pid)
{
	const void *ctx[2] = { st, &pid };
	uint32_t i;

	if (hmap_find(&st->proc_idx, hash_u64(pid), proc_eq, ctx, &i))
		return i;
	if (array_grow((void **)&st->procs, &st->cap_procs, st->nr_procs + 1, sizeof(*st->procs)) ||
	    hmap_insert(&st->proc_idx, hash_u64(pid), (uint32_t)st->nr_procs))
		return -1;
	st->procs[st->nr_procs] = (struct proc){ .pid = pid };
	return (long)st->nr_procs++;
}

static struct ctx_slot *slot_for(struct settle *st, uint64_t ids, int event)
{
	uint32_t x = (uint32_t)ids + (uint32_t)event;

	return &st->cache[(x ^ x >> 8) & (CTX_SLOTS - 1)];
}

/* Add t to p's boundaries, in its place (they come nearly in order). */
static int bounds_add(struct proc *p, uint64_t t)
{
	size_t i = p->n;

	while (i && p->t[i - 1] > t)
		i--;
	if (i && p->t[i - 1] == t)
		return 0;
	if (array_grow((void **)&p->t, &p->cap, p->n + 1, sizeof(*p->t)))
		return -ENOMEM;
	memmove(p->t + i + 1, p->t + i, (p->n - i) * sizeof(*p->t));
	p->t[i] = t;
	p->n++;
	return 0;
}

/* A boundary. With check (the samples settle at once), it may come after
 * samples of its process (of any, for every process's) at or past its
 * time, settled in the epoch before it: taken when all of them are past
 * it (their epoch is then theirs alone: the later ones go to the one it
 * starts), the process's floor raised to it; refused (SETTLE_REFUSED)
 * otherwise. */
static int add_bound(struct settle *st, const struct sum_bound *b, bool check)
{
	struct ctx_slot *c;
	struct proc *p;
	long i;

	if (b->all) {
		memset(st->cache, 0, sizeof(st->cache));
		p = &st->all;
	} else {
		if ((i = proc_of(st, b->pid)) < 0)
			return -ENOMEM;
		for (c = st->cache; c < st->cache + CTX_SLOTS; c++)
			if (c->ids >> 32 == b->pid)
				c->ctx = 0;
		p = &st->procs[i];
	}
	if (check && p->max_t && b->time <= p->max_t) {
		if (p->min_t <= b->time)
			return SETTLE_REFUSED;
		p->floor = b->time > p->floor ? b->time : p->floor;
	}
	return bounds_add(p, b->time);
}

/* The times of p around t (*tie: one is t). */
static void count_below(const struct proc *p, uint64_t t, bool *tie, uint64_t *lo,
			  uint64_t *hi)
{
	size_t l = 0;

	for (size_t h = p->n; l < h;) {
		size_t mid = (l + h) / 2;

		if (p->t[mid] < t)
			l = mid + 1;
		else
			h = mid;
	}
	*tie |= l < p->n && p->t[l] == t;
	if (l && p->t[l - 1] > *lo)
		*lo = p->t[l - 1];
	if (l < p->n && p->t[l] < *hi)
		*hi = p->t[l];
}

static bool ctx_eq(void *ctx, uint32_t idx)
{
	const struct settle *st = ((const void **)ctx)[0];
	const struct sum_ctx *k = ((const void **)ctx)[1];
	const struct sum_ctx *c = &st->ctxs[idx];

	return c->ids == k->ids && c->epoch == k->epoch && c->event == k->event;
}

/* The context of k (its proc set), made if new: its index, or -1 on
 * ENOMEM. */
static long ctx_find(struct settle *st, const struct sum_ctx *k)
{
	const void *ctx[2] = { st, k };
	uint64_t h = hash_u64(k->ids ^ hash_u64(k->epoch + (uint32_t)k->event));
	uint32_t i;

	if (hmap_find(&st->ctx_idx, h, ctx_eq, ctx, &i))
		return i;
	if (array_grow((void **)&st->ctxs, &st->cap_ctxs, st->nr_ctxs + 1, sizeof(*st->ctxs)) ||
	    hmap_insert(&st->ctx_idx, h, (uint32_t)st->nr_ctxs))
		return -1;
	st->ctxs[st->nr_ctxs] = *k;
	return (long)st->nr_ctxs++;
}

/* The slot of a sample's thread and event at its time, from the
 * boundaries in so far (the epoch: the time of the last boundary before
 * it, 0: none): NULL when it has none (it is at a boundary's time, or at
 * 0), or on ENOMEM (*nomem). */
static const struct ctx_slot *ctx_of(struct settle *st, const struct sum_pend *e, bool *nomem)
{
	uint64_t ids = (uint64_t)e->pid << 32 | e->tid, t = e->time;
	struct ctx_slot *c = slot_for(st, ids, e->event);
	uint64_t lo = 0, hi = UINT64_MAX;
	struct proc *p;
	bool tie = !t;
	long i, x;

	if (c->ctx && c->ids == ids && c->event == e->event && c->lo < t && t < c->hi)
		return c;
	if ((i = proc_of(st, e->pid)) < 0) {
		*nomem = true;
		return NULL;
	}
	p = &st->procs[i];
	count_below(p, t, &tie, &lo, &hi);
	count_below(&st->all, t, &tie, &lo, &hi);
	if (tie)
		return NULL;
	x = ctx_find(st, &(struct sum_ctx){ ids, lo, e->event, (uint32_t)i });
	if (x < 0) {
		*nomem = true;
		return NULL;
	}
	*c = (struct ctx_slot){ ids, lo, hi, p->floor > st->all.floor ? p->floor : st->all.floor,
				e->event, (uint32_t)x + 1, (uint32_t)i };
	return c;
}

/* ---- classes ---------------------------------------------------------- */

static uint64_t class_hash(const uint64_t key[2], uint32_t ctx)
{
	return hash_u64(key[0] ^ (key[1] + ctx * 0x9e3779b97f4a7c15ull) * 0xc2b2ae3d27d4eb4full);
}

#define TAG(h) ((h) & ~0xffffffffull)

/* The slot of the class of key in context ctx (hash h): its class's, or
 * the empty one where it goes. */
static inline __attribute__((always_inline)) uint64_t *
slot_of(const struct settle *st, const uint64_t key[2], uint32_t ctx, uint64_t h)
{
	for (size_t i = h & (st->nr_slots - 1);; i = (i + 1) & (st->nr_slots - 1)) {
		uint64_t v = st->slots[i];
		const struct sum_class *c;

		if (!v)
			return &st->slots[i];
		c = &st->cls[(uint32_t)v - 1];
		if (TAG(v) == TAG(h) && c->key[0] == key[0] && c->key[1] == key[1] && c->ctx == ctx)
			return &st->slots[i];
	}
}

static int grow_slots(struct settle *st)
{
	size_t n = st->nr_slots ? st->nr_slots * 2 : 4096;
	uint64_t *old = st->slots;

	st->slots = calloc(n, sizeof(*st->slots));
	if (!st->slots) {
		st->slots = old;
		return -ENOMEM;
	}
	st->nr_slots = n;
	for (size_t i = 0; i < st->nr_cls; i++) {
		const struct sum_class *c = &st->cls[i];
		uint64_t h = class_hash(c->key, c->ctx);

		*slot_of(st, c->key, c->ctx, h) = TAG(h) | (i + 1);
	}
	free(old);
	return 0;
}

/* A sample whose context (index x) is known: into its class (hash h),
 * made if new. */
static int add_to_class(struct settle *st, const struct sum_pend *e, uint32_t x, uint64_t h)
{
	uint64_t *slot;
	struct sum_class *c;
	size_t i;

	slot = st->nr_slots ? slot_of(st, e->key, x, h) : NULL;
	if (!slot || !*slot) {
		const struct sum_ctx *k = &st->ctxs[x];

		if (st->nr_cls >= SETTLE_CLASSES_MAX)
			return SETTLE_FULL;
		if ((st->nr_cls + 1) * 2 > st->nr_slots) {
			if (grow_slots(st))
				return -ENOMEM;
			slot = slot_of(st, e->key, x, h);
		}
		if (array_grow((void **)&st->cls, &st->cap_cls, st->nr_cls + 1, sizeof(*st->cls)) ||
		    array_grow((void **)&st->first, &st->cap_first, st->nr_cls + 1,
			       sizeof(*st->first)))
			return -ENOMEM;
		st->cls[st->nr_cls] = (struct sum_class){ { e->key[0], e->key[1] }, k->ids, k->epoch,
							  k->event, x, 0, 0, UINT64_MAX };
		*slot = TAG(h) | ++st->nr_cls;
	}
	i = (uint32_t)*slot - 1;
	c = &st->cls[i];
	c->count++;
	c->period += e->period;
	/* the first in time, ties in file order (a later one's bytes replace
	 * them, rarely: the samples come nearly in order) */
	if (e->time < c->time || (e->time == c->time && e->pos < st->first[i].pos)) {
		c->time = e->time;
		st->first[i] = (struct sum_first){ e->pos, st->bytes.len, e->len };
		return buf_append(&st->bytes, e->p, e->len);
	}
	return 0;
}

/* A sample without an epoch: handed on alone. */
static int keep_alone(struct settle *st, const struct sum_pend *e)
{
	if (array_grow((void **)&st->alone, &st->cap_alone, st->nr_alone + 1, sizeof(*st->alone)))
		return -ENOMEM;
	st->alone[st->nr_alone++] = (struct sum_item){ e->time, e->pos, st->bytes.len, e->len };
	return buf_append(&st->bytes, e->p, e->len);
}

static void span(struct proc *p, uint64_t t)
{
	if (!p->min_t || t < p->min_t)
		p->min_t = t;
	if (t > p->max_t)
		p->max_t = t;
}

/* The sample's context: 1 and *x, its class's hash *h; 0 when it has no
 * epoch (it is kept alone); -EAGAIN when it is refused (before its
 * process's floor, at once); -ENOMEM. */
static int class_of(struct settle *st, const struct sum_pend *e, uint32_t *x, uint64_t *h)
{
	bool nomem = false;
	const struct ctx_slot *c = ctx_of(st, e, &nomem);

	if (!c)
		return nomem ? -ENOMEM : keep_alone(st, e);
	if (e->time < c->floor)
		return -EAGAIN;         /* in an epoch a late boundary cut */
	span(&st->procs[c->proc], e->time);
	span(&st->all, e->time);
	st->samples++;
	*x = c->ctx - 1;
	*h = class_hash(e->key, *x);
	return 1;
}

/* The samples of v older than limit (all with all) settled; the others
 * appended to the waiting ones from *keep on (*keep advanced). 0,
 * SETTLE_REFUSED (at once), SETTLE_FULL, or -ENOMEM. In groups: each
 * group's classes looked for ahead (their slots, then their entries,
 * asked of memory before they are read), their counts added after. */
#define GROUP 32
static int settle_some(struct settle *st, const struct sum_pend *v, size_t n, uint64_t limit,
		       bool all, size_t *keep)
{
	uint64_t h[GROUP];
	uint32_t x[GROUP];
	const struct sum_pend *e[GROUP];

	for (size_t i = 0; i < n;) {
		size_t g = 0;
		int ret;

		for (; i < n && g < GROUP; i++) {
			if (!all && v[i].time >= limit) {
				st->wait[(*keep)++] = v[i];
				continue;
			}
			ret = class_of(st, &v[i], &x[g], &h[g]);
			if (ret < 0)
				return ret == -EAGAIN ? SETTLE_REFUSED : ret;
			if (!ret)
				continue;
			e[g] = &v[i];
			if (st->nr_slots)
				__builtin_prefetch(&st->slots[h[g] & (st->nr_slots - 1)]);
			g++;
		}
		for (size_t j = 0; j < g && st->nr_slots; j++) {
			uint64_t sv = st->slots[h[j] & (st->nr_slots - 1)];

			if (sv)
				__builtin_prefetch(&st->cls[(uint32_t)sv - 1]);
		}
		for (size_t j = 0; j < g; j++)
			if ((ret = add_to_class(st, e[j], x[j], h[j])))
				return ret;
	}
	return 0;
}

int settle_batch(struct settle *st, struct sum_batch *b)
{
	bool all = b->last || b->at_once;
	size_t keep = 0;
	int ret = 0;

	for (size_t i = 0; i < b->nr_bounds && !ret; i++)
		ret = add_bound(st, &b->bounds[i], b->at_once);
	if (!ret && array_grow((void **)&st->wait, &st->cap_wait, st->nr_wait + b->nr_pend,
			       sizeof(*st->wait)))
		ret = -ENOMEM;
	if (!ret)
		ret = settle_some(st, st->wait, st->nr_wait, b->limit, all, &keep);
	if (!ret)
		ret = settle_some(st, b->pend, b->nr_pend, b->limit, all, &keep);
	st->nr_wait = keep;
	b->nr_pend = b->nr_bounds = 0;
	return ret;
}

void settle_results(const struct settle *st, struct settle_out *out)
{
	*out = (struct settle_out){ st->cls, st->first, st->nr_cls, st->alone, st->nr_alone,
				    &st->bytes, st->samples, st->all.min_t, st->all.max_t };
}
