/* SPDX-License-Identifier: MIT */
/* Histogram entries and call-graph trees built from the folded stacks
 * (hist_build and its variants); see hist.h. Folding the samples is
 * hist.c's part. */
#include "hist.h"
#include "hist_int.h"

#include <errno.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"

static void free_tree(struct cnode *n)
{
	while (n) {
		struct cnode *next = n->next;

		free_tree(n->child);
		free(n);
		n = next;
	}
}

void hist_free_built(struct hist *h)
{
	for (size_t i = 0; i < h->nr_entries; i++)
		free_tree(h->entries[i].tree);
	free(h->entries);
	h->entries = NULL;
	h->nr_entries = 0;
}

void hist_entries_swap(struct hist *h, struct hist_entries *e)
{
	struct hist_entries t = { h->entries, h->nr_entries, h->total_period, h->total_count,
				  h->total_latency, h->unresolved };

	h->entries = e->entries;
	h->nr_entries = e->nr_entries;
	h->total_period = e->total_period;
	h->total_count = e->total_count;
	h->total_latency = e->total_latency;
	h->unresolved = e->unresolved;
	*e = t;
}

void hist_entries_free(struct hist_entries *e)
{
	for (size_t i = 0; i < e->nr_entries; i++)
		free_tree(e->entries[i].tree);
	free(e->entries);
	memset(e, 0, sizeof(*e));
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
static size_t make_names(struct hist *h, struct frame *f, const char **out, size_t max)
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

/* make_names, made once per frame (a build asks for them at every entry
 * of every chain the frame is on): at most FRAME_NAMES */
#define FRAME_NAMES 16
static size_t frame_names(struct hist *h, struct frame *f, const char **out, size_t max)
{
	size_t n;

	if (!f->nr_names) {
		const char *names[FRAME_NAMES];
		bool ok = true;

		n = make_names(h, f, names, FRAME_NAMES);
		for (size_t i = 0; i < n; i++)
			ok &= names[i] != NULL;
		if (!ok || array_grow((void **)&h->names, &h->cap_names, h->nr_names + n,
				      sizeof(*h->names)))
			return make_names(h, f, out, max);
		memcpy(&h->names[h->nr_names], names, n * sizeof(*names));
		f->names_at = (uint32_t)h->nr_names;
		f->nr_names = (uint8_t)n;
		h->nr_names += n;
	}
	n = f->nr_names < max ? f->nr_names : max;
	memcpy(out, &h->names[f->names_at], n * sizeof(*out));
	return n;
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

/* the greater first */
static int cmp_desc(uint64_t a, uint64_t b)
{
	return a == b ? 0 : a > b ? -1 : 1;
}

/* perf's order of a latency profile: latency and overhead, each children
 * then self, the preferred one (--latency: latency) first; totals of one
 * thread that are equal put callers above callees, as below */
static int cmp_latency(const struct hist *h, const struct hentry *a, const struct hentry *b)
{
	bool lat = h->opts.prefer_latency;
	int c = 0;

	if (h->opts.children) {
		c = lat ? cmp_desc(a->total_latency, b->total_latency) :
			  cmp_desc(a->total_period, b->total_period);
		if (!c && h->opts.callchain && a->thread == b->thread && a->max_depth != b->max_depth)
			c = (a->max_depth > b->max_depth) == h->opts.caller ? -1 : 1;
		if (!c)
			c = lat ? cmp_desc(a->total_period, b->total_period) :
				  cmp_desc(a->total_latency, b->total_latency);
	}
	if (!c)
		c = lat ? cmp_desc(a->self_latency, b->self_latency) :
			  cmp_desc(a->self_period, b->self_period);
	if (!c)
		c = lat ? cmp_desc(a->self_period, b->self_period) :
			  cmp_desc(a->self_latency, b->self_latency);
	return c ? c : cmp_key_names(h, a, b);
}

/* qsort_r: ctx is the hist the entries belong to */
static int cmp_entries(const void *pa, const void *pb, void *ctx)
{
	const struct hist *sort_hist = ctx;
	const struct hentry *a = pa, *b = pb;

	if (sort_hist->opts.latency)
		return cmp_latency(sort_hist, a, b);
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
	e->total_latency += s->latency;
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
	return hist_build_keep(h, event, NULL, NULL);
}

int hist_build_keep(struct hist *h, int event, hist_keep_fn keep, void *kctx)
{
	struct hmap idx = HMAP_INIT;
	size_t cap = 0;
	regex_t re;
	bool want_parent = sort_keys_have(h->opts.keys, h->opts.nr_keys, SK_PARENT);
	int ret = 0;

	hist_free_built(h);
	h->total_period = h->total_count = h->unresolved = h->total_latency = 0;
	if (want_parent && regcomp(&re, h->opts.parent_re ? h->opts.parent_re : "^sys_|^do_page_fault",
				   REG_EXTENDED | REG_NOSUB))
		return -EINVAL;
	for (size_t si = 0; si < h->nr_stacks && !ret; si++) {
		const struct stack *s = &h->stacks[si];
		const char *parent = want_parent ? parent_of(h, s, &re) : NULL;
		struct hentry *e;
		struct hkey k;
		size_t first_entry;

		if (s->event != event || !s->nr_frames || (keep && !keep(kctx, s)))
			continue;
		h->total_period += s->period;
		h->total_count += s->count;
		h->total_latency += s->latency;
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
		e->self_latency += s->latency;
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
