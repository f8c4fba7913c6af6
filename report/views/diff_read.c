/* SPDX-License-Identifier: MIT */
/*
 * prep diff's reading: each file through its own reading (struct load) and
 * histogram, on up to o->threads worker threads at once, each sample by
 * the address it was taken at (perf diff compares self shares: call chains
 * are not assembled into the histogram), then each event's entries copied
 * out as plain keys, cells and counts (struct devent), and the reading
 * freed. The strings live in the run's pool.
 */
#include "diff_int.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/hash.h"
#include "report/aggregate/hist.h"
#include "report/core/filter.h"
#include "latency.h"
#include "common/thread.h"

/* ---- the string pool ------------------------------------------------------ */

#define POOL_BLOCK 65536

struct dpool_block {
	struct dpool_block *next;
	size_t used, cap;
	char data[];
};

static const char *pool_str(struct drun *r, const char *s)
{
	size_t n = strlen(s) + 1;
	struct dpool_block *b = r->pool;

	if (!b || b->cap - b->used < n) {
		size_t cap = n > POOL_BLOCK ? n : POOL_BLOCK;

		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->next = r->pool;
		b->used = 0;
		b->cap = cap;
		r->pool = b;
	}
	memcpy(b->data + b->used, s, n);
	b->used += n;
	return b->data + b->used - n;
}

void drun_free(struct drun *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nr_ev; i++)
		free(r->ev[i].e);
	free(r->ev);
	while (r->pool) {
		struct dpool_block *b = r->pool;

		r->pool = b->next;
		free(b);
	}
	memset(r, 0, sizeof(*r));
}

const struct devent *drun_match_event(const struct drun *r, const struct devent *ev)
{
	for (size_t i = 0; i < r->nr_ev; i++)
		if (r->ev[i].type == ev->type && r->ev[i].config == ev->config)
			return &r->ev[i];
	return NULL;
}

/* ---- one file ------------------------------------------------------------- */

/* A sample's address seen before in the same context (thread and its
 * comm, event, CPU, cgroup, kernel mode and table) with the same maps: the
 * same stack of the histogram (hist_add's own shortcut). Contexts are few
 * (threads times events): each gets a number once (a small direct-mapped
 * cache in front of an index), and the addresses go through one flat
 * direct-mapped table of 32-byte slots, small enough to stay in the CPU's
 * cache, which keep their samples' count and period until the slot is
 * taken by another address or the reading ends (flush_fast). */
#define FAST_SLOTS 32768
#define CTX_CACHE 64

struct fast_ctx {
	const struct thread *thread;
	const char *comm;
	uint64_t cgroup;
	uint32_t cpu;
	int32_t event;
	uint16_t ktab;
	bool kernel;
};

struct fast_slot {
	uint64_t addr, period;
	uint32_t ctx;           /* UINT32_MAX: empty */
	uint32_t count, stack, gen;
};

struct read_ctx {
	struct hist *h;
	struct fast_slot *fast;         /* NULL: without (data addresses) */
	struct fast_ctx *ctxs;
	size_t nr_ctxs, cap_ctxs;
	struct hmap ctx_idx;
	uint32_t ctx_cache[CTX_CACHE];  /* context + 1 */
	const struct fast_ctx *want;    /* ctx_eq's */
	struct filter ids;              /* --comm, --pid, --tid */
	bool by_ids;
	uint64_t dropped_period[LOAD_MAX_EVENTS], dropped_count[LOAD_MAX_EVENTS];
};

static bool same_ctx(const struct fast_ctx *a, const struct fast_ctx *b)
{
	return a->thread == b->thread && a->comm == b->comm && a->cgroup == b->cgroup &&
	       a->cpu == b->cpu && a->event == b->event && a->ktab == b->ktab &&
	       a->kernel == b->kernel;
}

static bool ctx_eq(void *ctx, uint32_t i)
{
	const struct read_ctx *rc = ctx;

	return same_ctx(&rc->ctxs[i], rc->want);
}

/* The number of context k, UINT32_MAX without memory. */
static uint32_t ctx_id(struct read_ctx *rc, const struct fast_ctx *k)
{
	uint64_t hv = hash_combine(hash_combine(hash_u64((uintptr_t)k->thread), (uintptr_t)k->comm),
				   k->cgroup ^ k->cpu ^ ((uint64_t)k->event << 32) ^
				   ((uint64_t)k->ktab << 40) ^ ((uint64_t)k->kernel << 56));
	uint32_t *c = &rc->ctx_cache[hv & (CTX_CACHE - 1)], i;

	if (*c && same_ctx(&rc->ctxs[*c - 1], k))
		return *c - 1;
	rc->want = k;
	if (!hmap_find(&rc->ctx_idx, hv, ctx_eq, rc, &i)) {
		if (rc->nr_ctxs >= UINT32_MAX - 1 ||
		    array_grow((void **)&rc->ctxs, &rc->cap_ctxs, rc->nr_ctxs + 1, sizeof(*k)) ||
		    hmap_insert(&rc->ctx_idx, hv, (uint32_t)rc->nr_ctxs))
			return UINT32_MAX;
		i = (uint32_t)rc->nr_ctxs;
		rc->ctxs[rc->nr_ctxs++] = *k;
	}
	*c = i + 1;
	return i;
}

static void flush_slot(struct hist *h, struct fast_slot *f)
{
	if (f->ctx == UINT32_MAX || !f->count)
		return;
	h->stacks[f->stack].count += f->count;
	h->stacks[f->stack].period += f->period;
	f->count = 0;
	f->period = 0;
}

/* before the histogram's entries are built */
static void flush_fast(struct read_ctx *rc)
{
	for (size_t i = 0; rc->fast && i < FAST_SLOTS; i++)
		flush_slot(rc->h, &rc->fast[i]);
}

static int add_fast(struct read_ctx *rc, struct load *l, const struct load_sample *s)
{
	const struct sample *smp = &s->rec->u.sample;
	struct fast_ctx k = {
		.thread = s->thread, .comm = s->thread->comm,
		.cpu = (smp->type & PERF_SAMPLE_CPU) ? smp->cpu : 0,
		.cgroup = (smp->type & PERF_SAMPLE_CGROUP) ? smp->cgroup : 0,
		.event = s->event, .ktab = (uint16_t)s->kernel_table, .kernel = s->kernel[0],
	};
	uint32_t id = ctx_id(rc, &k), gen = (uint32_t)load_machine(l)->maps_gen;
	uint64_t addr = s->addrs[0];
	struct fast_slot *f;
	int ret;

	if (id == UINT32_MAX)
		return load_add_to_hist(rc->h, l, s);
	f = &rc->fast[hash_combine(hash_u64(addr), id) & (FAST_SLOTS - 1)];
	if (f->ctx == id && f->addr == addr && f->gen == gen && f->count <= UINT32_MAX - s->count) {
		f->count += (uint32_t)s->count;
		f->period += s->period;
		return 0;
	}
	flush_slot(rc->h, f);
	if ((ret = load_add_to_hist(rc->h, l, s)))
		return ret;
	*f = (struct fast_slot){ .addr = addr, .ctx = id, .stack = rc->h->last_stack, .gen = gen };
	return 0;
}

static bool keys_have(const enum sort_key_id *keys, size_t n, enum sort_key_id id)
{
	for (size_t i = 0; i < n; i++)
		if (keys[i] == id)
			return true;
	return false;
}

/* Samples the --comm, --pid and --tid lists hide still count in perf's
 * total; the others go into the histogram by their own address. */
static int read_sample(void *ctx, struct load *l, const struct load_sample *s)
{
	struct read_ctx *rc = ctx;
	struct load_sample one = *s;

	if (rc->by_ids && (!filter_ids_wanted(&rc->ids, s->thread->pid, s->thread->tid, 0) ||
			   (rc->ids.comms.on && !filter_name_wanted(&rc->ids.comms, s->thread->comm)))) {
		if (s->event >= 0 && s->event < LOAD_MAX_EVENTS) {
			rc->dropped_period[s->event] += s->period;
			rc->dropped_count[s->event] += s->count;
		}
		return 0;
	}
	one.nr = s->nr ? 1 : 0;
	return one.nr && rc->fast ? add_fast(rc, l, &one) : load_add_to_hist(rc->h, l, &one);
}

/* The key of entry e for matching: symbols by name (or nameless, by
 * address), pids, tids and CPUs by number, everything else by its text. */
static void entry_key(const struct hist *h, const struct hentry *e, enum sort_key_id id,
		      const char *text, struct dkey *k)
{
	const struct frame *f = &h->frames[e->frame];

	k->s = text;
	k->n = 0;
	switch (id) {
	case SORT_SYM:
		k->s = f->sym;
		k->n = f->sym ? 0 : f->addr;
		break;
	case SORT_PID:
		k->s = "";
		k->n = e->key.pid;
		break;
	case SORT_TID:
		k->s = "";
		k->n = e->key.tid;
		break;
	case SORT_CPU:
		k->s = "";
		k->n = e->key.cpu;
		break;
	default:
		break;
	}
}

static int copy_entry(struct drun *r, const struct diff_read_opts *o, const struct hist *h,
		      const struct hentry *e, struct dentry *d)
{
	const struct frame *f = &h->frames[e->frame];
	char buf[4096];

	memset(d, 0, sizeof(*d));
	d->period = e->self_period;
	d->count = e->self_count;
	d->unresolved = !f->sym;
	for (size_t k = 0; k < o->nr_keys; k++) {
		sort_key_get(o->keys[k])->text(h, e, buf, sizeof(buf));
		if (!(d->cell[k] = pool_str(r, buf)))
			return -ENOMEM;
		entry_key(h, e, o->keys[k], d->cell[k], &d->k[k]);
		if (d->k[k].s && d->k[k].s != d->cell[k] && !(d->k[k].s = pool_str(r, d->k[k].s)))
			return -ENOMEM;
	}
	return 0;
}

/* Event ev's entries, as the filters on frames (--dso, --symbols) leave
 * them; what they hide counts in period_all only. */
static int copy_event(struct drun *r, const struct diff_read_opts *o, struct load *l,
		      struct hist *h, const struct read_ctx *rc, int ev, struct devent *d)
{
	const struct perf_event_attr *a = load_event_attr(l, ev);
	int ret = hist_build(h, ev);

	if (ret)
		return ret;
	if (!(d->name = pool_str(r, load_event_name(l, ev))))
		return -ENOMEM;
	d->type = a ? a->type : 0;
	d->config = a ? a->config : 0;
	d->period_all = h->total_period + rc->dropped_period[ev];
	d->count_all = h->total_count + rc->dropped_count[ev];
	d->e = calloc(h->nr_entries ? h->nr_entries : 1, sizeof(*d->e));
	if (!d->e)
		return -ENOMEM;
	for (size_t i = 0; i < h->nr_entries; i++) {
		const struct hentry *e = &h->entries[i];

		if (load_filters_frames(l) && !load_frame_wanted(l, &h->frames[e->frame]))
			continue;
		if (copy_entry(r, o, h, e, &d->e[d->nr]))
			return -ENOMEM;
		d->period_shown += e->self_period;
		d->count_shown += e->self_count;
		d->nr++;
	}
	return 0;
}

static int read_events(struct drun *r, const struct diff_read_opts *o, struct load *l,
		       struct hist *h, const struct read_ctx *rc)
{
	size_t n = load_nr_events(l);
	int ret;

	if ((ret = hist_resolve(h)))
		return ret;
	r->ev = calloc(n ? n : 1, sizeof(*r->ev));
	if (!r->ev)
		return -ENOMEM;
	for (size_t e = 0; e < n; e++) {
		ret = copy_event(r, o, l, h, rc, (int)e, &r->ev[e]);
		r->nr_ev = e + 1;
		if (ret)
			return ret;
	}
	return 0;
}

static int read_one(const char *path, const struct diff_read_opts *o, struct drun *r,
		    struct err *err)
{
	struct load_opts lo = o->lo;
	struct load_filter_opts ids = { .comms = o->comms, .pids = o->pids, .tids = o->tids };
	struct hist_opts ho = { .nr_keys = o->nr_keys, .symfs = o->lo.symfs };
	struct read_ctx rc = { .by_ids = o->comms || o->pids || o->tids, .ctx_idx = HMAP_INIT };
	struct load *l;
	struct hist h;
	int ret;

	r->path = path;
	lo.inputs[0] = path;
	lo.nr_inputs = 1;
	lo.progress = NULL;
	memcpy(ho.keys, o->keys, sizeof(ho.keys));
	if (filter_compile(&rc.ids, &ids, err))
		return -EINVAL;
	l = load_new(&lo, err);
	if (!l) {
		filter_free(&rc.ids);
		return -EINVAL;
	}
	rc.h = &h;
	ret = hist_init(&h, &ho, load_machine(l), load_symbolizer(l));
	/* the shortcut keys stacks by context and address, not by level */
	if (!ret && !hist_wants_data(&h) && !h.by_par &&
	    (rc.fast = aligned_alloc(64, FAST_SLOTS * sizeof(*rc.fast))))
		for (size_t i = 0; i < FAST_SLOTS; i++)
			rc.fast[i].ctx = UINT32_MAX;
	/* a perf.data read by sums where the keys read nothing a sum's class
	 * loses: data addresses, parallelism, cgroups */
	if (!ret && !hist_wants_data(&h) && !h.by_par &&
	    !keys_have(o->keys, o->nr_keys, SORT_CGROUP))
		ret = load_run_sum(l, read_sample, &rc, keys_have(o->keys, o->nr_keys, SORT_CPU),
				   err);
	else if (!ret)
		ret = load_run(l, read_sample, NULL, &rc, err);
	else
		err_set(err, ret, "out of memory");
	flush_fast(&rc);
	if (!ret && lo.parallelism)
		ret = latency_check_switches(l, err);
	if (!ret && (ret = read_events(r, o, l, &h, &rc)))
		err_set(err, ret, "%s: out of memory", path);
	hist_free(&h);
	load_free(l);
	filter_free(&rc.ids);
	free(rc.fast);
	free(rc.ctxs);
	hmap_free(&rc.ctx_idx);
	return ret;
}

/* ---- the workers ---------------------------------------------------------- */

struct pool {
	const char *const *paths;
	size_t n;
	const struct diff_read_opts *o;
	struct drun *runs;
	struct err *errs;
	int *rets;
	pthread_mutex_t lock;
	size_t next;
};

static void *worker(void *arg)
{
	struct pool *p = arg;

	for (;;) {
		size_t i;

		pthread_mutex_lock(&p->lock);
		i = p->next++;
		pthread_mutex_unlock(&p->lock);
		if (i >= p->n)
			return NULL;
		p->rets[i] = read_one(p->paths[i], p->o, &p->runs[i], &p->errs[i]);
	}
}

int diff_read(const char *const *paths, size_t n, const struct diff_read_opts *o,
	      struct drun *runs, struct err *err)
{
	struct pool p = { .paths = paths, .n = n, .o = o, .runs = runs,
			  .lock = PTHREAD_MUTEX_INITIALIZER };
	pthread_t tid[16];
	size_t nt = o->threads ? o->threads : 1, started = 0;
	int ret = 0;

	if (nt > n)
		nt = n;
	if (nt > 16)
		nt = 16;
	p.errs = calloc(n ? n : 1, sizeof(*p.errs));
	p.rets = calloc(n ? n : 1, sizeof(*p.rets));
	if (!p.errs || !p.rets) {
		free(p.errs), free(p.rets);
		return err_set(err, -ENOMEM, "out of memory");
	}
	/* the calling thread is a worker too */
	for (size_t t = 1; t < nt; t++)
		if (!thread_create(&tid[started], worker, &p))
			started++;
	worker(&p);
	for (size_t t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
	for (size_t i = 0; i < n && !ret; i++) {
		if ((ret = p.rets[i]))
			*err = p.errs[i];
	}
	free(p.errs);
	free(p.rets);
	return ret;
}
