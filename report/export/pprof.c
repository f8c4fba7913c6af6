/* SPDX-License-Identifier: MIT */
/*
 * prep export --pprof; see pprof.h. The samples are folded and symbolized
 * by the report's own pipeline (load.c, hist.c), so the profile holds what
 * `prep` shows: the same stacks, names, periods and inline chains.
 *
 * Three steps: while the inputs are read, the user maps of MMAP/MMAP2
 * records are kept (hist folds frames into binary + file offset; the maps
 * turn the offsets back into addresses); then the stacks of the event make
 * the locations, functions and mappings; then the message is encoded
 * (pprof_encode.c).
 */
#include "pprof.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/hash.h"
#include "gzout.h"
#include "pprof_int.h"
#include "report/aggregate/hist.h"

static void pp_free(struct pp *p)
{
	free(p->umaps);
	hmap_free(&p->umap_idx);
	buf_free(&p->strdata);
	free(p->strs);
	hmap_free(&p->str_idx);
	free(p->maps);
	free(p->dso_map);
	free(p->locs);
	free(p->loc_of);
	free(p->lines);
	free(p->funcs);
	hmap_free(&p->func_idx);
	free(p->scratch);
}

/* ---- reading: samples to hist, user maps kept ---------------------------- */

struct umap_key {
	struct pp *p;
	const struct umap *u;
};

static bool umap_eq(void *ctx, uint32_t idx)
{
	const struct umap_key *k = ctx;
	const struct umap *a = &k->p->umaps[idx];

	return a->dso == k->u->dso && a->pgoff == k->u->pgoff &&
	       a->end - a->start == k->u->end - k->u->start;
}

static int keep_map(struct pp *p, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		    const char *filename, uint16_t misc)
{
	struct umap u = { .start = start, .end = start + len, .pgoff = pgoff };
	struct umap_key k = { p, &u };
	uint64_t hv;
	uint32_t idx;

	if (pid == UINT32_MAX || !len || u.end < start ||
	    (misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL)
		return 0;
	/* the dso the machine model just made for the record (keyed by path) */
	u.dso = machine_dso(load_machine(p->l), filename);
	if (!u.dso)
		return -ENOMEM;
	hv = hash_combine(hash_combine(hash_u64(u.dso->idx), pgoff), len);
	if (hmap_find(&p->umap_idx, hv, umap_eq, &k, &idx))
		return 0;
	if (array_grow((void **)&p->umaps, &p->cap_umaps, p->nr_umaps + 1, sizeof(u)) ||
	    hmap_insert(&p->umap_idx, hv, (uint32_t)p->nr_umaps))
		return -ENOMEM;
	p->umaps[p->nr_umaps++] = u;
	return 0;
}

static int on_record(void *ctx, struct load *l, struct session *s, const struct record *rec)
{
	struct pp *p = ctx;

	(void)l;
	(void)s;
	if (rec->type == PERF_RECORD_MMAP)
		return keep_map(p, rec->u.mmap.pid, rec->u.mmap.addr, rec->u.mmap.len,
				rec->u.mmap.pgoff, rec->u.mmap.filename, rec->misc);
	if (rec->type == PERF_RECORD_MMAP2)
		return keep_map(p, rec->u.mmap2.pid, rec->u.mmap2.addr, rec->u.mmap2.len,
				rec->u.mmap2.pgoff, rec->u.mmap2.filename, rec->misc);
	return 0;
}

static int on_sample(void *ctx, struct load *l, const struct load_sample *s)
{
	struct pp *p = ctx;

	return load_add_to_hist(p->h, l, s);
}

static int umap_cmp(const void *pa, const void *pb)
{
	const struct umap *a = pa, *b = pb;

	if (a->dso->idx != b->dso->idx)
		return a->dso->idx < b->dso->idx ? -1 : 1;
	if (a->pgoff != b->pgoff)
		return a->pgoff < b->pgoff ? -1 : 1;
	return a->start < b->start ? -1 : a->start > b->start;
}

/* A kept map of d whose file range holds off (umaps sorted by umap_cmp). */
static struct umap *find_umap(struct pp *p, const struct dso *d, uint64_t off)
{
	size_t lo = 0, hi = p->nr_umaps;

	/* the first map past (d, off) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct umap *u = &p->umaps[mid];

		if (u->dso->idx < d->idx || (u->dso == d && u->pgoff <= off))
			lo = mid + 1;
		else
			hi = mid;
	}
	/* maps of the same file can overlap (lengths differ): look at a few */
	for (size_t i = lo, n = 0; i-- > 0 && n < 16; n++) {
		struct umap *u = &p->umaps[i];

		if (u->dso != d)
			break;
		if (off - u->pgoff < u->end - u->start)
			return u;
	}
	return NULL;
}

/* ---- the tables: strings, functions, mappings, locations ----------------- */

struct str_key {
	struct pp *p;
	const char *s;
	size_t len;
};

static bool str_eq(void *ctx, uint32_t idx)
{
	const struct str_key *k = ctx;
	const struct str *e = &k->p->strs[idx];

	return e->len == k->len && !memcmp(k->p->strdata.data + e->off, k->s, k->len);
}

/* The string table index of s[0..len) (added if new). 0 or -ENOMEM. */
int pprof_str_idn(struct pp *p, const char *s, size_t len, uint32_t *id)
{
	struct str_key k = { p, s, len };
	uint64_t hv = hash_bytes(s, len, 0x51);

	if (hmap_find(&p->str_idx, hv, str_eq, &k, id))
		return 0;
	if (array_grow((void **)&p->strs, &p->cap_strs, p->nr_strs + 1, sizeof(*p->strs)) ||
	    hmap_insert(&p->str_idx, hv, (uint32_t)p->nr_strs))
		return -ENOMEM;
	p->strs[p->nr_strs] = (struct str){ p->strdata.len, len };
	if (buf_append(&p->strdata, s, len))
		return -ENOMEM;
	*id = (uint32_t)p->nr_strs++;
	return 0;
}

int pprof_str_id(struct pp *p, const char *s, uint32_t *id)
{
	return pprof_str_idn(p, s ? s : "", s ? strlen(s) : 0, id);
}

struct func_key {
	struct pp *p;
	const struct func *f;
};

static bool func_eq(void *ctx, uint32_t idx)
{
	const struct func_key *k = ctx;
	const struct func *a = &k->p->funcs[idx];

	return a->name == k->f->name && a->file == k->f->file;
}

/* The id of the function (name, file); added if new. */
static int func_id(struct pp *p, const char *name, const char *file, uint32_t *id)
{
	struct func f;
	struct func_key k = { p, &f };
	uint64_t hv;
	uint32_t idx;

	if (pprof_str_id(p, name, &f.name) || pprof_str_id(p, file, &f.file))
		return -ENOMEM;
	hv = hash_combine(hash_u64(f.name), f.file);
	if (!hmap_find(&p->func_idx, hv, func_eq, &k, &idx)) {
		if (array_grow((void **)&p->funcs, &p->cap_funcs, p->nr_funcs + 1, sizeof(f)) ||
		    hmap_insert(&p->func_idx, hv, (uint32_t)p->nr_funcs))
			return -ENOMEM;
		idx = (uint32_t)p->nr_funcs;
		p->funcs[p->nr_funcs++] = f;
	}
	*id = idx + 1;
	return 0;
}

static int new_mapping(struct pp *p, struct dso *d, uint64_t start, uint64_t limit,
		       uint64_t offset, uint32_t *idx)
{
	if (array_grow((void **)&p->maps, &p->cap_maps, p->nr_maps + 1, sizeof(*p->maps)))
		return -ENOMEM;
	p->maps[p->nr_maps] = (struct mapping){
		.dso = d, .start = start, .limit = limit, .offset = offset,
		.all_fn = true, .all_lines = true,
	};
	*idx = (uint32_t)++p->nr_maps;
	return 0;
}

/* The mapping of d that spans the addresses hit (the kernel, and binaries
 * of which no map was kept): grown to hold addr. */
static int range_mapping(struct pp *p, struct dso *d, uint64_t addr, uint32_t *idx)
{
	struct mapping *m;

	if (d->idx >= p->nr_dso_map) {
		size_t nr_dsos = load_machine(p->l)->nr_dsos;
		size_t n = nr_dsos > d->idx ? nr_dsos : d->idx + 1;
		uint32_t *v = array_realloc(p->dso_map, n, sizeof(*v));

		if (!v)
			return -ENOMEM;
		memset(v + p->nr_dso_map, 0, (n - p->nr_dso_map) * sizeof(*v));
		p->dso_map = v;
		p->nr_dso_map = n;
	}
	if (!p->dso_map[d->idx] && new_mapping(p, d, addr, addr + 1, 0, &p->dso_map[d->idx]))
		return -ENOMEM;
	*idx = p->dso_map[d->idx];
	m = &p->maps[*idx - 1];
	if (addr < m->start)
		m->start = addr;
	if (addr >= m->limit)
		m->limit = addr + 1;
	return 0;
}

/* Where the frame is: its mapping and its address in that mapping. */
static int frame_place(struct pp *p, const struct frame *f, struct loc *lc)
{
	struct umap *u;

	lc->address = f->addr;
	if (!f->dso)
		return 0;
	if (f->kernel)
		return range_mapping(p, f->dso, f->addr, &lc->mapping);
	u = find_umap(p, f->dso, f->addr);
	if (!u)     /* the file offset stands for the address */
		return range_mapping(p, f->dso, f->addr, &lc->mapping);
	lc->address = u->start + (f->addr - u->pgoff);
	if (!u->mapping && new_mapping(p, f->dso, u->start, u->end, u->pgoff, &u->mapping))
		return -ENOMEM;
	lc->mapping = u->mapping;
	return 0;
}

static int add_line(struct pp *p, const char *function, const char *file, unsigned line)
{
	uint32_t fid;

	if (func_id(p, function, file, &fid) ||
	    array_grow((void **)&p->lines, &p->cap_lines, p->nr_lines + 1, sizeof(*p->lines)))
		return -ENOMEM;
	p->lines[p->nr_lines++] = (struct line){ fid, line };
	return 0;
}

/* The location of hist frame fid: lines innermost first, as prep names the
 * frames in its call graphs (inlined functions from DWARF, then the
 * symbol). A return address keeps the address and lines prep gives it (the
 * instruction after the call): a recording's embedded symbols cover the
 * addresses sampled, not the calls before them. */
static int add_location(struct pp *p, uint32_t fid)
{
	struct frame *f = &p->h->frames[fid];
	struct loc lc = { .first_line = (uint32_t)p->nr_lines };
	const char *outer;
	size_t n;

	if (frame_place(p, f, &lc))
		return -ENOMEM;
	hist_frame_src(p->h, f);
	n = f->nr_inl;
	for (size_t i = 0; i + 1 < n; i++)
		if (f->inl[i].function && add_line(p, f->inl[i].function, f->inl[i].file, f->inl[i].line))
			return -ENOMEM;
	outer = f->sym ? f->sym : n ? f->inl[n - 1].function : NULL;
	if (outer && add_line(p, outer, n ? f->inl[n - 1].file : NULL, n ? f->inl[n - 1].line : 0))
		return -ENOMEM;
	lc.nr_lines = (uint32_t)(p->nr_lines - lc.first_line);
	if (lc.mapping) {
		struct mapping *m = &p->maps[lc.mapping - 1];

		m->all_fn &= lc.nr_lines > 0;
		m->all_lines &= n > 0;
	}
	if (array_grow((void **)&p->locs, &p->cap_locs, p->nr_locs + 1, sizeof(lc)))
		return -ENOMEM;
	p->locs[p->nr_locs++] = lc;
	p->loc_of[fid] = (uint32_t)p->nr_locs;
	return 0;
}

struct comm_total {
	const char *comm;
	uint64_t period;
};

struct comm_key {
	const struct comm_total *v;
	const char *comm;
};

static bool comm_eq(void *ctx, uint32_t idx)
{
	const struct comm_key *k = ctx;

	return k->v[idx].comm == k->comm;
}

/* The command with the most period in the event's samples (comms are
 * interned: equal names, equal pointers). NULL on ENOMEM or no samples. */
static const char *heaviest_comm(const struct pp *p)
{
	struct comm_total *v = NULL;
	struct hmap idx = HMAP_INIT;
	size_t n = 0, cap = 0, best = SIZE_MAX;
	const char *comm = NULL;

	for (size_t i = 0; i < p->h->nr_stacks; i++) {
		const struct stack *s = &p->h->stacks[i];
		struct comm_key k = { v, s->comm };
		uint64_t hv = hash_u64((uintptr_t)s->comm);
		uint32_t at;

		if (s->event != p->event || !s->comm)
			continue;
		if (!hmap_find(&idx, hv, comm_eq, &k, &at)) {
			if (array_grow((void **)&v, &cap, n + 1, sizeof(*v)) ||
			    hmap_insert(&idx, hv, (uint32_t)n))
				goto out;
			v[n] = (struct comm_total){ s->comm, 0 };
			at = (uint32_t)n++;
		}
		v[at].period += s->period;
	}
	for (size_t i = 0; i < n; i++)
		if (best == SIZE_MAX || v[i].period > v[best].period)
			best = i;
	comm = best == SIZE_MAX ? NULL : v[best].comm;
out:
	free(v);
	hmap_free(&idx);
	return comm;
}

/* mapping[0] is the main binary for pprof ("File:" in its reports): the
 * user binary named like the command with the most samples, else the one
 * with the most self period. Ids follow, in the order of first use. */
static void order_mappings(struct pp *p)
{
	const char *comm = heaviest_comm(p);
	size_t best = SIZE_MAX, named = SIZE_MAX;
	uint32_t id = 2;

	for (size_t i = 0; i < p->nr_maps; i++) {
		const struct mapping *m = &p->maps[i];

		if (m->dso->kernel || m->dso->anon)
			continue;
		if (best == SIZE_MAX || m->self > p->maps[best].self)
			best = i;
		if (comm && *comm && !strncmp(m->dso->short_name, comm, strlen(comm)) &&
		    (named == SIZE_MAX || m->self > p->maps[named].self))
			named = i;
	}
	if (named != SIZE_MAX)
		best = named;
	if (best == SIZE_MAX)
		best = 0;
	for (size_t i = 0; i < p->nr_maps; i++)
		p->maps[i].id = i == best ? 1 : id++;
}

/* Locations, functions and mappings of the event's stacks. */
static int build(struct pp *p, struct pprof_result *res)
{
	uint32_t empty;

	p->loc_of = calloc(p->h->nr_frames + 1, sizeof(*p->loc_of));
	if (!p->loc_of || pprof_str_id(p, "", &empty))  /* string_table[0] must be "" */
		return -ENOMEM;
	qsort(p->umaps, p->nr_umaps, sizeof(*p->umaps), umap_cmp);
	hmap_free(&p->umap_idx);
	for (size_t i = 0; i < p->h->nr_stacks; i++) {
		const struct stack *s = &p->h->stacks[i];
		uint32_t leaf;

		if (s->event != p->event || !s->nr_frames)
			continue;
		for (uint32_t k = 0; k < s->nr_frames; k++) {
			uint32_t fid = p->h->frame_ids[s->first + k];

			if (!p->loc_of[fid] && add_location(p, fid))
				return -ENOMEM;
		}
		leaf = p->locs[p->loc_of[p->h->frame_ids[s->first]] - 1].mapping;
		if (leaf)
			p->maps[leaf - 1].self += s->period;
		res->nr_samples++;
		res->samples += s->count;
		res->period += s->period;
	}
	order_mappings(p);
	return 0;
}

/* ---- the event, the run ---------------------------------------------------- */

static int pick_event(const struct load *l, const char *name, struct err *err)
{
	const char *input = load_options(l)->inputs[0];
	size_t nr = load_nr_events(l), len = 0;
	char list[512] = "";

	if (!name) {
		for (size_t i = 0; i < nr; i++)
			if (load_event_samples(l, (int)i))
				return (int)i;
		return err_set(err, -ENOENT, "%s: no samples", input);
	}
	for (size_t i = 0; i < nr; i++) {
		const char *ev = load_event_name(l, (int)i);

		if (!strcmp(ev, name))
			return (int)i;
		if (len < sizeof(list))
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", i ? ", " : "", ev);
	}
	return err_set(err, -ENOENT, "--event '%s': no such event in %s (it has: %s)", name, input,
		       nr ? list : "none");
}

int pprof_export(struct load *l, const struct pprof_opts *o, struct pprof_result *res,
		 struct err *err)
{
	/* srcline: the DWARF of the binaries hit is opened on a thread while
	 * the rest of the file is read (inline chains and lines are wanted) */
	struct hist_opts ho = {
		.keys = { SORT_SYM, SORT_SRCLINE }, .nr_keys = 2,
		.inline_frames = true, .callchain = true, .symfs = load_options(l)->symfs,
	};
	struct pp p = { .l = l };
	struct gzout *gz = NULL;
	struct hist h;
	int ret;

	memset(res, 0, sizeof(*res));
	hist_init(&h, &ho, load_machine(l), load_symbolizer(l));
	p.h = &h;
	ret = load_run(l, on_sample, on_record, &p, err);
	if (ret)
		goto out;
	ret = pick_event(l, o->event, err);
	if (ret < 0)
		goto out;
	p.event = ret;
	res->event = load_event_name(l, p.event);
	/* the note names the others: not prec --overwrite's empty tracking event */
	for (size_t i = 0; i < load_nr_events(l); i++)
		res->nr_events += strncmp(load_event_name(l, (int)i), "dummy", 5) ||
				  load_event_samples(l, (int)i);
	if (hist_resolve(&h) || build(&p, res)) {
		ret = err_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	if (!res->samples) {
		ret = err_set(err, -ENOENT, "%s: no samples of event '%s'%s", load_options(l)->inputs[0],
			      res->event, load_filtered(l) ? " (all filtered out)" : "");
		goto out;
	}
	res->nr_locations = p.nr_locs;
	res->nr_functions = p.nr_funcs;
	res->nr_mappings = p.nr_maps;
	ret = gzout_open(&gz, o->output, o->level, err);
	if (!ret)
		ret = pprof_encode(&p, res, gz, err);
	ret = gzout_close(gz, ret, &res->bytes, err);
out:
	pp_free(&p);
	hist_free(&h);
	return ret;
}
