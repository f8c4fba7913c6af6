/* SPDX-License-Identifier: MIT */
/* Samples folded into unique stacks and frames (hist_add and its variants,
 * aging); see hist.h. The entries and trees built from them: hist_entries.c. */
#include "hist.h"
#include "hist_int.h"

#include <errno.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "report/core/parallel.h"

#define RAW_ADDRS_MAX ((size_t)1 << 20)
#define HIST_RAW_SLOTS 4096     /* 64 KiB: stays in the CPU's cache */

struct raw_stack {
	int event;
	uint32_t n;
	const struct thread *thread;
	const char *comm;
	uint32_t cpu;
	uint32_t par;
	uint64_t cgroup;
	uint64_t kmask;         /* kernel flags of the first 64 frames (deeper ones
				   follow from the same addresses in practice) */
	unsigned ktab;
	size_t first;           /* in raw_addrs */
	uint32_t stack;
};

int hist_init(struct hist *h, const struct hist_opts *o, struct machine *m, struct symbolizer *s)
{
	memset(h, 0, sizeof(*h));
	h->opts = *o;
	h->machine = m;
	h->sym = s;
	h->want_data = sort_keys_have(o->keys, o->nr_keys, SK_DATA);
	h->by_par = sort_keys_have(o->keys, o->nr_keys, SK_PARALLEL);
	return 0;
}

void hist_set_parallelism(struct hist *h, unsigned level)
{
	h->next_par = level;
}

static void raw_reset(struct hist *h)
{
	hmap_free(&h->raw_idx);
	h->nr_raw = h->nr_raw_addrs = 0;
	h->raw_gen = h->machine->maps_gen;
	if (h->raw_slots)
		memset(h->raw_slots, 0, HIST_RAW_SLOTS * sizeof(*h->raw_slots));
}

/* The raw key's hash: each word xored in and multiplied (cheaper than
 * hash_bytes per word, and as good for a table of a few thousand). */
static uint64_t raw_hash(const struct raw_stack *r, const uint64_t *addrs)
{
	const uint64_t k = 0x9e3779b97f4a7c15ull;
	uint64_t x = ((uint64_t)(uint32_t)r->event << 32 | r->n) * k;

	x = (x ^ (uintptr_t)r->thread) * k;
	x = (x ^ (uintptr_t)r->comm ^ ((uint64_t)r->cpu << 32)) * k;
	x = (x ^ r->cgroup ^ ((uint64_t)r->par << 48)) * k;
	x = (x ^ r->kmask) * k;
	for (uint32_t i = 0; i < r->n; i++) {
		x = (x ^ addrs[i]) * k;
		x ^= x >> 29;
	}
	return x ^ (x >> 32);
}

struct raw_key {
	struct hist *h;
	const struct raw_stack *r;
	const uint64_t *addrs;
};

static bool raw_eq(void *ctx, uint32_t idx)
{
	const struct raw_key *k = ctx;
	const struct raw_stack *a = &k->h->raw[idx], *b = k->r;

	return a->n == b->n && a->event == b->event && a->thread == b->thread &&
	       a->comm == b->comm && a->cpu == b->cpu && a->cgroup == b->cgroup &&
	       a->par == b->par && a->kmask == b->kmask && a->ktab == b->ktab &&
	       !memcmp(&k->h->raw_addrs[a->first], k->addrs, a->n * sizeof(uint64_t));
}

void hist_free(struct hist *h)
{
	hist_free_built(h);
	free(h->frames);
	free(h->names);
	free(h->frame_ids);
	free(h->stacks);
	free(h->symids);
	free(h->raw);
	free(h->raw_slots);
	free(h->raw_addrs);
	hmap_free(&h->raw_idx);
	hmap_free(&h->frame_idx);
	hmap_free(&h->stack_idx);
	hmap_free(&h->sym_idx);
	memset(h, 0, sizeof(*h));
}

/* ---- folding samples ------------------------------------------------- */

struct frame_key {
	struct hist *h;
	const struct frame *f;
};

static bool frame_eq(void *ctx, uint32_t idx)
{
	const struct frame_key *k = ctx;
	const struct frame *a = &k->h->frames[idx];

	return a->dso == k->f->dso && a->addr == k->f->addr && a->kernel == k->f->kernel &&
	       a->ktab == k->f->ktab;
}

static int frame_id(struct hist *h, const struct frame *f, uint32_t *id)
{
	struct frame_key k = { h, f };
	uint64_t hv = hash_combine(hash_combine(hash_u64(f->addr), (uintptr_t)f->dso),
				   f->kernel | (uint64_t)f->ktab << 1);

	if (hmap_find(&h->frame_idx, hv, frame_eq, &k, id))
		return 0;
	if (array_grow((void **)&h->frames, &h->cap_frames, h->nr_frames + 1, sizeof(*h->frames)) ||
	    hmap_insert(&h->frame_idx, hv, (uint32_t)h->nr_frames))
		return -ENOMEM;
	*id = (uint32_t)h->nr_frames;
	h->frames[h->nr_frames++] = *f;
	return 0;
}

struct stack_key {
	struct hist *h;
	const struct stack *s;
	const uint32_t *ids;
};

static bool stack_eq(void *ctx, uint32_t idx)
{
	const struct stack_key *k = ctx;
	const struct stack *a = &k->h->stacks[idx];

	return a->event == k->s->event && a->thread == k->s->thread && a->comm == k->s->comm &&
	       a->cpu == k->s->cpu && a->cgroup == k->s->cgroup && a->par == k->s->par &&
	       !memcmp(&a->data, &k->s->data, sizeof(a->data)) &&
	       a->nr_frames == k->s->nr_frames &&
	       !memcmp(&k->h->frame_ids[a->first], k->ids, a->nr_frames * sizeof(uint32_t));
}

static uint64_t stack_hash(const struct hist *h, const struct stack *s, const uint32_t *ids)
{
	uint64_t hv = hash_bytes(ids, s->nr_frames * sizeof(*ids),
				 hash_combine(hash_combine(hash_u64((uint64_t)s->event),
							   (uintptr_t)s->thread),
					      hash_combine((uintptr_t)s->comm,
							   s->cpu ^ (s->cgroup << 20) ^
							   ((uint64_t)s->par << 44))));

	return hist_wants_data(h) ? hash_bytes(&s->data, sizeof(s->data), hv) : hv;
}

int hist_add(struct hist *h, int event, struct thread *t, uint32_t cpu, uint64_t period,
	     const uint64_t *addrs, const bool *kernel, size_t n, unsigned ktab)
{
	return hist_add_cgroup(h, event, t, cpu, 0, period, addrs, kernel, n, ktab);
}

int hist_count(struct hist *h, uint32_t idx, uint64_t period)
{
	h->last_stack = idx;
	h->stacks[idx].count++;
	h->stacks[idx].period += period;
	if (h->opts.latency)
		h->stacks[idx].latency += parallel_latency(period, h->next_par);
	/* by now the binaries that matter have been seen: their DWARF can be
	 * opened while the rest of the file is read */
	if (++h->added == 4096)
		return hist_prefetch_dwarf(h);
	return 0;
}

/* A sample of thread t whose raw stack r (hash rh, its slot in raw_slots
 * or NULL) was not seen with these maps: its frames folded and its stack found or made,
 * the raw stack kept for the next ones. */
static int add_new(struct hist *h, struct thread *t, struct raw_stack *r, uint64_t rh,
		   typeof(h->raw_slots) slot, const uint64_t *addrs, const bool *kernel,
		   uint64_t period)
{
	uint32_t ids[PERF_MAX_STACK_DEPTH + 8];
	struct stack s = { .event = r->event, .thread = t, .comm = r->comm, .cpu = r->cpu,
			   .par = r->par, .cgroup = r->cgroup, .data = h->next_data };
	struct stack_key k = { h, &s, ids };
	size_t n = r->n;
	uint64_t hv;
	uint32_t idx;

	for (size_t i = 0; i < n; i++) {
		struct frame f = { .addr = addrs[i], .ip = addrs[i], .kernel = kernel[i],
				   .ktab = kernel[i] ? (uint16_t)r->ktab : 0 };
		const struct map *m = machine_find_map(h->machine, t, addrs[i], kernel[i]);

		if (m) {
			f.dso = m->dso;
			if (!kernel[i] && !m->dso->identity)
				f.addr = addrs[i] - m->start + m->pgoff;
		} else if (kernel[i]) {
			f.dso = h->machine->kernel_dso ? h->machine->kernel_dso :
				machine_dso(h->machine, "[kernel.kallsyms]");
		}
		if (frame_id(h, &f, &ids[i]))
			return -ENOMEM;
	}
	s.nr_frames = (uint32_t)n;
	h->chains_seen |= n > 1;
	hv = stack_hash(h, &s, ids);
	if (!hmap_find(&h->stack_idx, hv, stack_eq, &k, &idx)) {
		if (array_grow((void **)&h->frame_ids, &h->cap_ids, h->nr_ids + n, sizeof(*ids)) ||
		    array_grow((void **)&h->stacks, &h->cap_stacks, h->nr_stacks + 1, sizeof(s)) ||
		    hmap_insert(&h->stack_idx, hv, (uint32_t)h->nr_stacks))
			return -ENOMEM;
		s.first = h->nr_ids;
		memcpy(&h->frame_ids[h->nr_ids], ids, n * sizeof(*ids));
		h->nr_ids += n;
		idx = (uint32_t)h->nr_stacks;
		h->stacks[h->nr_stacks++] = s;
	}
	/* bounded (8 MiB of addresses): a profile of ever new stacks gains nothing */
	if (h->nr_raw_addrs + n > RAW_ADDRS_MAX)
		raw_reset(h);
	if (hist_wants_data(h))
		return hist_count(h, idx, period);
	if (!array_grow((void **)&h->raw, &h->cap_raw, h->nr_raw + 1, sizeof(*r)) &&
	    !array_grow((void **)&h->raw_addrs, &h->cap_raw_addrs, h->nr_raw_addrs + n,
			sizeof(*addrs)) &&
	    !hmap_insert(&h->raw_idx, rh, (uint32_t)h->nr_raw)) {
		r->first = h->nr_raw_addrs;
		r->stack = idx;
		memcpy(&h->raw_addrs[h->nr_raw_addrs], addrs, n * sizeof(*addrs));
		h->nr_raw_addrs += n;
		h->raw[h->nr_raw++] = *r;
		if (slot)
			*slot = (typeof(*slot)){ rh, (uint32_t)h->nr_raw };
	} else {
		raw_reset(h);   /* no memory for the shortcut: do without */
	}
	return hist_count(h, idx, period);
}

int hist_add_cgroup(struct hist *h, int event, struct thread *t, uint32_t cpu, uint64_t cgroup,
		    uint64_t period, const uint64_t *addrs, const bool *kernel, size_t n,
		    unsigned ktab)
{
	struct raw_stack r = { .event = event, .thread = t, .comm = t->comm, .cpu = cpu,
			       .par = h->by_par ? h->next_par : 0, .cgroup = cgroup, .ktab = ktab };
	struct raw_key rk = { h, &r, addrs };
	typeof(h->raw_slots) slot = NULL;
	uint64_t rh = 0;
	uint32_t ri;

	if (h->opts.max_stack > 0 && n > (size_t)h->opts.max_stack)
		n = (size_t)h->opts.max_stack;
	if (n > PERF_MAX_STACK_DEPTH + 8)
		n = PERF_MAX_STACK_DEPTH + 8;
	/* the same raw addresses as before, with the same maps: the same stack
	 * (data addresses are not in the raw key: no shortcut for them) */
	if (h->raw_gen != h->machine->maps_gen)
		raw_reset(h);
	r.n = (uint32_t)n;
	for (size_t i = 0; i < n && i < 64; i++)
		r.kmask |= (uint64_t)kernel[i] << i;
	if (!hist_wants_data(h)) {
		if (!h->raw_slots && !(h->raw_slots = calloc(HIST_RAW_SLOTS, sizeof(*h->raw_slots))))
			return -ENOMEM;
		rh = raw_hash(&r, addrs);
		slot = &h->raw_slots[rh & (HIST_RAW_SLOTS - 1)];
		if (slot->raw && slot->hash == rh && raw_eq(&rk, slot->raw - 1))
			return hist_count(h, h->raw[slot->raw - 1].stack, period);
		if (hmap_find(&h->raw_idx, rh, raw_eq, &rk, &ri)) {
			*slot = (typeof(*slot)){ rh, ri + 1 };
			return hist_count(h, h->raw[ri].stack, period);
		}
	}
	return add_new(h, t, &r, rh, slot, addrs, kernel, period);
}

bool hist_wants_data(const struct hist *h)
{
	return h->want_data;
}

int hist_decay(struct hist *h, unsigned num, unsigned den)
{
	size_t kept = 0, ids = 0;

	hmap_free(&h->stack_idx);
	raw_reset(h);           /* its entries point at stacks by index */
	for (size_t i = 0; i < h->nr_stacks; i++) {
		struct stack s = h->stacks[i];

		s.period = num && den ? s.period / den * num + s.period % den * num / den : 0;
		s.count = num && den ? s.count / den * num + s.count % den * num / den : 0;
		s.latency = num && den ? s.latency / den * num + s.latency % den * num / den : 0;
		if (!s.period && !s.count)
			continue;
		memmove(&h->frame_ids[ids], &h->frame_ids[s.first], s.nr_frames * sizeof(uint32_t));
		s.first = ids;
		ids += s.nr_frames;
		if (hmap_insert(&h->stack_idx, stack_hash(h, &s, &h->frame_ids[s.first]),
				(uint32_t)kept))
			return -ENOMEM;
		h->stacks[kept++] = s;
	}
	h->nr_stacks = kept;
	h->nr_ids = ids;
	return 0;
}

int hist_add_data(struct hist *h, const struct stack_data *d, int event, struct thread *t,
		  uint32_t cpu, uint64_t cgroup, uint64_t period, const uint64_t *addrs,
		  const bool *kernel, size_t n, unsigned ktab)
{
	int ret;

	h->next_data = *d;
	ret = hist_add_cgroup(h, event, t, cpu, cgroup, period, addrs, kernel, n, ktab);
	memset(&h->next_data, 0, sizeof(h->next_data));
	return ret;
}

