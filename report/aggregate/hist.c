/* SPDX-License-Identifier: MIT */
/* Samples to histogram entries and call-graph trees; see hist.h. */
#include "hist.h"

#include <errno.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"

#define RAW_ADDRS_MAX ((size_t)1 << 20)

struct raw_stack {
	int event;
	uint32_t n;
	const struct thread *thread;
	const char *comm;
	uint32_t cpu;
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
	return 0;
}

static void raw_reset(struct hist *h)
{
	hmap_free(&h->raw_idx);
	h->nr_raw = h->nr_raw_addrs = 0;
	h->raw_gen = h->machine->maps_gen;
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
	       a->kmask == b->kmask && a->ktab == b->ktab &&
	       !memcmp(&k->h->raw_addrs[a->first], k->addrs, a->n * sizeof(uint64_t));
}

static void free_tree(struct cnode *n)
{
	while (n) {
		struct cnode *next = n->next;

		free_tree(n->child);
		free(n);
		n = next;
	}
}

static void free_entries(struct hist *h)
{
	for (size_t i = 0; i < h->nr_entries; i++)
		free_tree(h->entries[i].tree);
	free(h->entries);
	h->entries = NULL;
	h->nr_entries = 0;
}

void hist_free(struct hist *h)
{
	free_entries(h);
	free(h->frames);
	free(h->frame_ids);
	free(h->stacks);
	free(h->symids);
	free(h->raw);
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
	       a->cpu == k->s->cpu && a->cgroup == k->s->cgroup &&
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
							   s->cpu ^ (s->cgroup << 20))));

	return hist_wants_data(h) ? hash_bytes(&s->data, sizeof(s->data), hv) : hv;
}

int hist_add(struct hist *h, int event, struct thread *t, uint32_t cpu, uint64_t period,
	     const uint64_t *addrs, const bool *kernel, size_t n, unsigned ktab)
{
	return hist_add_cgroup(h, event, t, cpu, 0, period, addrs, kernel, n, ktab);
}

int hist_add_cgroup(struct hist *h, int event, struct thread *t, uint32_t cpu, uint64_t cgroup,
		    uint64_t period, const uint64_t *addrs, const bool *kernel, size_t n,
		    unsigned ktab)
{
	uint32_t ids[PERF_MAX_STACK_DEPTH + 8];
	struct stack s = { .event = event, .thread = t, .comm = t->comm, .cpu = cpu,
			   .cgroup = cgroup, .data = h->next_data };
	struct stack_key k = { h, &s, ids };
	uint64_t hv;
	uint32_t idx;

	struct raw_stack r = { .event = event, .thread = t, .comm = t->comm, .cpu = cpu,
			       .cgroup = cgroup, .ktab = ktab };
	struct raw_key rk = { h, &r, addrs };
	uint64_t rh;
	uint32_t ri;

	if (h->opts.max_stack > 0 && n > (size_t)h->opts.max_stack)
		n = (size_t)h->opts.max_stack;
	if (n > PERF_MAX_STACK_DEPTH + 8)
		n = PERF_MAX_STACK_DEPTH + 8;
	/* the same raw addresses as before, with the same maps: the same stack */
	if (h->raw_gen != h->machine->maps_gen)
		raw_reset(h);
	r.n = (uint32_t)n;
	for (size_t i = 0; i < n && i < 64; i++)
		r.kmask |= (uint64_t)kernel[i] << i;
	rh = hash_bytes(addrs, n * sizeof(*addrs),
			hash_combine(hash_combine(hash_u64((uint64_t)event ^ r.kmask), (uintptr_t)t),
				     hash_combine((uintptr_t)r.comm, cpu ^ (cgroup << 20))));
	/* (data addresses are not in the raw key: no shortcut for them) */
	if (!hist_wants_data(h) && hmap_find(&h->raw_idx, rh, raw_eq, &rk, &ri)) {
		idx = h->raw[ri].stack;
		goto count;
	}
	for (size_t i = 0; i < n; i++) {
		struct frame f = { .addr = addrs[i], .ip = addrs[i], .kernel = kernel[i],
				   .ktab = kernel[i] ? (uint16_t)ktab : 0 };
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
		goto count;
	if (!array_grow((void **)&h->raw, &h->cap_raw, h->nr_raw + 1, sizeof(r)) &&
	    !array_grow((void **)&h->raw_addrs, &h->cap_raw_addrs, h->nr_raw_addrs + n,
			sizeof(*addrs)) &&
	    !hmap_insert(&h->raw_idx, rh, (uint32_t)h->nr_raw)) {
		r.first = h->nr_raw_addrs;
		r.stack = idx;
		memcpy(&h->raw_addrs[h->nr_raw_addrs], addrs, n * sizeof(*addrs));
		h->nr_raw_addrs += n;
		h->raw[h->nr_raw++] = r;
	} else {
		raw_reset(h);   /* no memory for the shortcut: do without */
	}
count:
	h->stacks[idx].count++;
	h->stacks[idx].period += period;
	/* by now the binaries that matter have been seen: their DWARF can be
	 * opened while the rest of the file is read */
	if (++h->added == 4096)
		return hist_prefetch_dwarf(h);
	return 0;
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

/* ---- entries --------------------------------------------------------- */

struct hentry_key {
	struct hist *h;
	const struct hkey *k;
};

static bool hentry_eq(void *ctx, uint32_t idx)
{
	const struct hentry_key *k = ctx;

	return !memcmp(&k->h->entries[idx].key, k->k, sizeof(*k->k));
}

static const char *parent_of(struct hist *h, const struct stack *s, const regex_t *re)
{
	for (uint32_t i = 0; i < s->nr_frames; i++) {
		const struct frame *f = &h->frames[h->frame_ids[s->first + i]];

		if (f->sym && !regexec(re, f->sym, 0, NULL, 0))
			return f->sym;
	}
	return "[other]";
}

static void make_key(struct hist *h, const struct stack *s, uint32_t pos, const char *parent,
		     struct hkey *k)
{
	struct key_src src = { s, &h->frames[h->frame_ids[s->first + pos]], parent };

	memset(k, 0, sizeof(*k));
	for (size_t i = 0; i < h->opts.nr_keys; i++) {
		const struct sort_key *sk = sort_key_get(h->opts.keys[i]);

		if (sk->fill)
			sk->fill(h, &src, k);
	}
}

static struct hentry *find_entry(struct hist *h, struct hmap *idx, const struct hkey *k,
				 uint32_t frame, size_t *cap)
{
	struct hentry_key hk = { h, k };
	uint64_t hv = hash_bytes(k, sizeof(*k), 7);
	uint32_t i;

	if (hmap_find(idx, hv, hentry_eq, &hk, &i))
		return &h->entries[i];
	if (!cap)
		return NULL;    /* hist_build_trees: the entries are made already */
	if (array_grow((void **)&h->entries, cap, h->nr_entries + 1, sizeof(*h->entries)) ||
	    hmap_insert(idx, hv, (uint32_t)h->nr_entries))
		return NULL;
	memset(&h->entries[h->nr_entries], 0, sizeof(*h->entries));
	h->entries[h->nr_entries].key = *k;
	h->entries[h->nr_entries].frame = frame;
	return &h->entries[h->nr_entries++];
}

static struct cnode *child_node(struct cnode *parent, const char *name)
{
	struct cnode **p = &parent->child;

	for (; *p; p = &(*p)->next)
		if ((*p)->name == name)
			return *p;
	*p = calloc(1, sizeof(**p));
	if (*p)
		(*p)->name = name;
	return *p;
}

/* The names a frame shows in a call graph, outermost last (innermost inlined
 * function first, then the function that inlined it ...). */
static size_t frame_names(struct hist *h, struct frame *f, const char **out, size_t max)
{
	char buf[512];

	if (h->opts.inline_frames && f->sym && !f->kernel) {
		hist_frame_src(h, f);
		if (f->nr_inl > 1) {
			size_t n = 0;

			for (size_t i = 0; i + 1 < f->nr_inl && n + 1 < max; i++) {
				if (!f->inl[i].function)
					continue;
				snprintf(buf, sizeof(buf), "%s (inlined)", f->inl[i].function);
				out[n++] = machine_intern(h->machine, buf);
			}
			out[n++] = machine_intern(h->machine, f->sym);
			return n;
		}
	}
	if (f->sym) {
		out[0] = machine_intern(h->machine, f->sym);
	} else {
		/* perf: the address as sampled (entry lines show the offset) */
		snprintf(buf, sizeof(buf), "%#llx", (unsigned long long)f->ip);
		out[0] = machine_intern(h->machine, buf);
	}
	return 1;
}

/* perf orders siblings by their dso's place in memory: the order the dsos
 * were made in; the kernel is one dso, whatever its maps are called */
static uint32_t dso_rank(const struct hist *h, const struct dso *d)
{
	if (d && d->kernel && !strncmp(d->path, "[kernel.kallsyms]", 17) && h->machine->kernel_dso)
		d = h->machine->kernel_dso;
	return d ? d->idx + 1 : 0;
}

/* The call graph of entry e from one stack: in caller order the whole chain
 * for a sampled function's own entry (lvl < 0), else from the entry's frame
 * pos on; of that frame's names (frame_names), from the lvl-th (the entry's
 * own, clamped to the function) towards the sampled end. */
static int add_chain(struct hist *h, struct hentry *e, const struct stack *s, uint32_t pos,
		     int lvl)
{
	uint32_t n = s->nr_frames;
	struct cnode *node;
	int from, to, step;

	if (!e->tree && !(e->tree = calloc(1, sizeof(*e->tree))))
		return -ENOMEM;
	node = e->tree;
	node->period += s->period;
	node->count += s->count;
	if (h->opts.caller) {
		/* root first: the whole chain for a sample's own entry, else from
		 * the entry down to the sampled function */
		from = lvl < 0 ? (int)n - 1 : (int)pos;
		to = -1;
		step = -1;
	} else {
		from = (int)pos;
		to = (int)n;
		step = 1;
	}
	for (int i = from; i != to; i += step) {
		struct frame *f = &h->frames[h->frame_ids[s->first + i]];
		const char *names[16];
		size_t nn = frame_names(h, f, names, 16);

		for (size_t j = 0; j < nn; j++) {
			size_t k = h->opts.caller ? nn - 1 - j : j;
			size_t own = lvl < 0 || (size_t)lvl >= nn ? nn - 1 : (size_t)lvl;

			/* the entry's frame: from the entry's own name on */
			if (i == (int)pos && lvl >= 0 && (h->opts.caller ? k > own : k < own))
				continue;
			if (!names[k] || !(node = child_node(node, names[k])))
				return -ENOMEM;
			if (!node->period) {
				node->inlined = k + 1 < nn;
				node->dso_rank = dso_rank(h, f->dso);
				node->addr = f->sym ? f->sym_start : f->vaddr;
				node->ip = f->ip;
				node->resolved = f->sym;
			}
			node->period += s->period;
			node->count += s->count;
		}
	}
	return 0;
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

/* Entries of equal periods: by the sort keys in their order, each as perf
 * orders it, then by frame to be stable. */
static int cmp_key_names(const struct hist *h, const struct hentry *a, const struct hentry *b)
{
	int c = 0;

	for (size_t i = 0; i < h->opts.nr_keys && !c; i++)
		c = sort_key_get(h->opts.keys[i])->cmp(h, a, b);
	return c ? c : a->frame < b->frame ? -1 : a->frame > b->frame;
}

/* qsort_r: ctx is the hist the entries belong to */
static int cmp_entries(const void *pa, const void *pb, void *ctx)
{
	const struct hist *sort_hist = ctx;
	const struct hentry *a = pa, *b = pb;

	if (sort_hist->opts.children && a->total_period != b->total_period)
		return a->total_period > b->total_period ? -1 : 1;
	/* perf: of one thread, callers above callees (with call graphs) */
	if (sort_hist->opts.children && sort_hist->opts.callchain && a->thread == b->thread &&
	    a->max_depth != b->max_depth)
		return (a->max_depth > b->max_depth) == sort_hist->opts.caller ? -1 : 1;
	if (a->self_period != b->self_period)
		return a->self_period > b->self_period ? -1 : 1;
	return cmp_key_names(sort_hist, a, b);
}

/* perf's match_chain(): two functions by name when one is inlined, else
 * by dso and start; anything unresolved by dso and the addresses as sampled */
static int chain_cmp(const struct cnode *a, const struct cnode *b)
{
	if (a->resolved && b->resolved && (a->inlined || b->inlined))
		return strcmp(a->name, b->name);
	if (a->dso_rank != b->dso_rank)
		return a->dso_rank < b->dso_rank ? -1 : 1;
	if (a->resolved && b->resolved)
		return cmp_u64(a->addr, b->addr);
	return cmp_u64(a->ip, b->ip);
}

/* Does a come before b, of equal period? (perf: the greater first) */
static bool tie_before(const struct cnode *a, const struct cnode *b)
{
	int c = chain_cmp(a, b);

	return c ? c > 0 : strcmp(a->name, b->name) <= 0;
}

static void sort_tree(struct cnode *n)
{
	/* children by period, descending (insertion sort on the list) */
	for (; n; n = n->next) {
		struct cnode *sorted = NULL;

		while (n->child) {
			struct cnode *c = n->child, **p = &sorted;

			n->child = c->next;
			while (*p && ((*p)->period > c->period ||
				      ((*p)->period == c->period && tie_before(*p, c))))
				p = &(*p)->next;
			c->next = *p;
			*p = c;
		}
		n->child = sorted;
		sort_tree(n->child);
	}
}

/* Count the stack once in the total of entry e (children mode), with its
 * chain from frame pos (lvl as add_chain takes it). */
static int add_total(struct hist *h, struct hentry *e, const struct stack *s, uint32_t pos,
		     uint32_t depth, char level, int lvl, size_t *seen, size_t *nseen)
{
	size_t ei = (size_t)(e - h->entries);

	for (size_t j = 0; j < *nseen; j++)
		if (seen[j] == ei)
			return 0;
	seen[(*nseen)++] = ei;
	if (h->tree_want)       /* hist_build_trees: only the trees asked for */
		return h->tree_want[ei] ? add_chain(h, e, s, pos, lvl) : 0;
	if (!e->thread)
		e->thread = s->thread;
	if (!e->level && level)
		e->level = level;
	if (depth > e->max_depth)
		e->max_depth = depth;
	e->total_period += s->period;
	e->total_count += s->count;
	return h->opts.callchain && !h->opts.defer_trees ? add_chain(h, e, s, pos, lvl) : 0;
}

/* The functions inlined into frame pos, each an entry of its own ("name
 * (inlined)", self 0), as perf lists them when the chains carry DWARF
 * inline frames; below their frame in the order of equal totals (depth is
 * 256 per frame), innermost last. k is the frame's key. */
static int add_inlined(struct hist *h, struct hmap *idx, size_t *cap, const struct stack *s,
		       uint32_t pos, struct hkey *k, uint32_t depth, char level, size_t *seen,
		       size_t *nseen)
{
	uint32_t id = h->frame_ids[s->first + pos];
	struct frame *f = &h->frames[id];
	const char *names[16];
	size_t nn;
	int ret = 0;

	if (!h->opts.inline_frames || !f->sym || f->kernel)
		return 0;
	nn = frame_names(h, f, names, 16);
	for (size_t i = nn - 1; i-- > 0 && !ret;) {
		uint32_t in = (uint32_t)(nn - 1 - i);
		struct hentry *e;

		k->inl = names[i];
		e = find_entry(h, idx, k, id, cap);
		ret = e ? add_total(h, e, s, pos, h->opts.caller ? depth - in : depth + in, level,
				    (int)i, seen, nseen) : cap ? -ENOMEM : 0;
	}
	k->inl = NULL;
	return ret;
}

/* The entries of every frame of stack s get its period in their totals:
 * the sampled function's own entry first (with the whole chain), then, as
 * perf walks the chain, the entry of each frame with the chain from there
 * (the sampled one again, under the address as sampled when it is
 * unresolved) and of the functions inlined into it, from the root in caller
 * order (perf keeps the outermost of a recursion there), from the sampled
 * one otherwise. */
static int add_cumulative(struct hist *h, struct hmap *idx, size_t *cap, const struct stack *s,
			  const char *parent, size_t first_entry)
{
	/* each frame: its function, its address, at most 15 inlined names */
	size_t nseen = 0, *seen = malloc(((size_t)s->nr_frames + 1) * 17 * sizeof(*seen));
	char level = h->frames[h->frame_ids[s->first]].kernel ? 'k' : '.';
	/* perf keys the entries it makes from call chains by the address as
	 * sampled where no symbol names it, when the keys include the symbol */
	bool by_sym = sort_keys_have(h->opts.keys, h->opts.nr_keys, SK_FUNCTION);
	int ret;

	if (!seen)
		return -ENOMEM;
	ret = add_total(h, &h->entries[first_entry], s, 0, s->nr_frames * 256, 0, -1, seen,
			&nseen);
	for (uint32_t it = 0; it < s->nr_frames && !ret; it++) {
		uint32_t pos = h->opts.caller ? s->nr_frames - 1 - it : it;
		uint32_t depth = (h->opts.caller ? pos + 1 : s->nr_frames - pos) * 256;
		const struct frame *f = &h->frames[h->frame_ids[s->first + pos]];
		struct hentry *e;
		struct hkey k;

		if (f->sym || f->dso)
			level = f->kernel ? 'k' : '.';
		make_key(h, s, pos, parent, &k);
		if (by_sym && !f->sym && f->ip != f->addr)
			k.ip = f->ip;
		if (pos || k.ip) {
			e = find_entry(h, idx, &k, h->frame_ids[s->first + pos], cap);
			ret = e ? add_total(h, e, s, pos, depth, level, INT_MAX, seen, &nseen) :
				  cap ? -ENOMEM : 0;
		}
		if (!ret && by_sym)
			ret = add_inlined(h, idx, cap, s, pos, &k, depth, level, seen, &nseen);
	}
	free(seen);
	return ret;
}

int hist_build(struct hist *h, int event)
{
	struct hmap idx = HMAP_INIT;
	size_t cap = 0;
	regex_t re;
	bool want_parent = sort_keys_have(h->opts.keys, h->opts.nr_keys, SK_PARENT);
	int ret = 0;

	free_entries(h);
	h->total_period = h->total_count = h->unresolved = 0;
	if (want_parent && regcomp(&re, h->opts.parent_re ? h->opts.parent_re : "^sys_|^do_page_fault",
				   REG_EXTENDED | REG_NOSUB))
		return -EINVAL;
	for (size_t si = 0; si < h->nr_stacks && !ret; si++) {
		const struct stack *s = &h->stacks[si];
		const char *parent = want_parent ? parent_of(h, s, &re) : NULL;
		struct hentry *e;
		struct hkey k;
		size_t first_entry;

		if (s->event != event || !s->nr_frames)
			continue;
		h->total_period += s->period;
		h->total_count += s->count;
		if (!h->frames[h->frame_ids[s->first]].sym)
			h->unresolved += s->count;
		make_key(h, s, 0, parent, &k);
		e = find_entry(h, &idx, &k, h->frame_ids[s->first], &cap);
		if (!e) {
			ret = -ENOMEM;
			break;
		}
		e->self_period += s->period;
		e->self_count += s->count;
		if (!e->thread)
			e->thread = s->thread;
		first_entry = (size_t)(e - h->entries);
		if (!h->opts.children) {
			if (h->opts.callchain && !h->opts.defer_trees && s->nr_frames)
				ret = add_chain(h, e, s, 0, -1);
			continue;
		}
		/* Children: every distinct entry on the chain gets the period once. */
		ret = add_cumulative(h, &idx, &cap, s, parent, first_entry);
	}
	if (want_parent)
		regfree(&re);
	hmap_free(&idx);
	if (ret)
		return ret;
	for (size_t i = 0; i < h->nr_entries; i++)
		if (h->entries[i].tree)
			sort_tree(h->entries[i].tree);
	if (h->nr_entries)
		qsort_r(h->entries, h->nr_entries, sizeof(*h->entries), cmp_entries, h);
	return 0;
}

int hist_build_trees(struct hist *h, int event, const bool *want)
{
	struct hmap idx = HMAP_INIT;
	regex_t re;
	bool want_parent = sort_keys_have(h->opts.keys, h->opts.nr_keys, SK_PARENT);
	int ret = 0;

	if (!h->opts.callchain)
		return 0;
	if (want_parent && regcomp(&re, h->opts.parent_re ? h->opts.parent_re : "^sys_|^do_page_fault",
				   REG_EXTENDED | REG_NOSUB))
		return -EINVAL;
	/* the entries as sorted, found again by their keys */
	for (size_t i = 0; i < h->nr_entries && !ret; i++)
		ret = hmap_insert(&idx, hash_bytes(&h->entries[i].key, sizeof(h->entries[i].key), 7),
				  (uint32_t)i) ? -ENOMEM : 0;
	h->tree_want = want;
	for (size_t si = 0; si < h->nr_stacks && !ret; si++) {
		const struct stack *s = &h->stacks[si];
		const char *parent = want_parent ? parent_of(h, s, &re) : NULL;
		struct hentry *e;
		struct hkey k;

		if (s->event != event || !s->nr_frames)
			continue;
		make_key(h, s, 0, parent, &k);
		e = find_entry(h, &idx, &k, h->frame_ids[s->first], NULL);
		if (!e)
			continue;
		if (!h->opts.children)
			ret = want[e - h->entries] ? add_chain(h, e, s, 0, -1) : 0;
		else
			ret = add_cumulative(h, &idx, NULL, s, parent, (size_t)(e - h->entries));
	}
	h->tree_want = NULL;
	if (want_parent)
		regfree(&re);
	hmap_free(&idx);
	for (size_t i = 0; i < h->nr_entries && !ret; i++)
		if (want[i] && h->entries[i].tree)
			sort_tree(h->entries[i].tree);
	return ret;
}
