/* SPDX-License-Identifier: MIT */
/*
 * prep export --pprof; see pprof.h. The samples are folded and symbolized
 * by the report's own pipeline (load.c, hist.c), so the profile holds what
 * `prep` shows: the same stacks, names, periods and inline chains.
 *
 * Three steps: while the inputs are read, the user maps of MMAP/MMAP2
 * records are kept (hist folds frames into binary + file offset; the maps
 * turn the offsets back into addresses); then the stacks of the event make
 * the locations, functions and mappings; then the message is encoded field
 * by field into a buffer that goes through deflate whenever it grows past
 * FLUSH_AT, so the whole profile is never held in memory twice.
 */
#include "pprof.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/hash.h"
#include "common/pb.h"
#include "gzout.h"
#include "report/aggregate/hist.h"

#define FLUSH_AT ((size_t)1 << 20)

/* profile.proto field numbers */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_MAPPING = 3, PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5, PROFILE_STRING_TABLE = 6, PROFILE_TIME_NANOS = 9,
	PROFILE_DURATION_NANOS = 10, PROFILE_PERIOD_TYPE = 11, PROFILE_PERIOD = 12,
	PROFILE_COMMENT = 13, PROFILE_DEFAULT_SAMPLE_TYPE = 14,
};
enum { VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT = 2 };
enum { SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2, SAMPLE_LABEL = 3 };
enum { LABEL_KEY = 1, LABEL_STR = 2, LABEL_NUM = 3, LABEL_NUM_UNIT = 4 };
enum {
	MAPPING_ID = 1, MAPPING_MEMORY_START = 2, MAPPING_MEMORY_LIMIT = 3, MAPPING_FILE_OFFSET = 4,
	MAPPING_FILENAME = 5, MAPPING_BUILD_ID = 6, MAPPING_HAS_FUNCTIONS = 7,
	MAPPING_HAS_FILENAMES = 8, MAPPING_HAS_LINE_NUMBERS = 9, MAPPING_HAS_INLINE_FRAMES = 10,
};
enum { LOCATION_ID = 1, LOCATION_MAPPING_ID = 2, LOCATION_ADDRESS = 3, LOCATION_LINE = 4 };
enum { LINE_FUNCTION_ID = 1, LINE_LINE = 2 };
enum { FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3, FUNCTION_FILENAME = 4 };

/* A user map as an MMAP/MMAP2 record gave it. */
struct umap {
	struct dso *dso;
	uint64_t start, end, pgoff;
	uint32_t mapping;               /* index + 1 in pp.maps, 0 until used */
};

struct mapping {
	struct dso *dso;
	uint64_t start, limit, offset;
	uint64_t self;                  /* period of the samples whose leaf is here */
	bool all_fn, all_lines;         /* every location has a function / DWARF lines */
	uint32_t id;
};

struct loc {
	uint32_t mapping;               /* index + 1, 0 = none */
	uint64_t address;
	uint32_t first_line, nr_lines;
};

struct line {
	uint32_t function;              /* id */
	int64_t line;
};

struct func {
	uint32_t name, file;            /* string ids */
};

struct str {
	size_t off, len;                /* in pp.strdata */
};

struct pp {
	struct load *l;
	struct hist *h;
	int event;
	struct umap *umaps;
	size_t nr_umaps, cap_umaps;
	struct hmap umap_idx;           /* while reading: dso, pgoff, length */
	struct buf strdata;
	struct str *strs;
	size_t nr_strs, cap_strs;
	struct hmap str_idx;
	struct mapping *maps;
	size_t nr_maps, cap_maps;
	uint32_t *dso_map;              /* dso idx -> mapping index + 1: ranges of addresses */
	size_t nr_dso_map;
	struct loc *locs;
	size_t nr_locs, cap_locs;
	uint32_t *loc_of;               /* hist frame -> location id, 0 = none yet */
	struct line *lines;
	size_t nr_lines, cap_lines;
	struct func *funcs;
	size_t nr_funcs, cap_funcs;
	struct hmap func_idx;
	uint64_t *scratch;              /* location ids of one sample */
	size_t cap_scratch;
};

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
	u.dso = machine_dso(&p->l->machine, filename);
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
static int str_idn(struct pp *p, const char *s, size_t len, uint32_t *id)
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

static int str_id(struct pp *p, const char *s, uint32_t *id)
{
	return str_idn(p, s ? s : "", s ? strlen(s) : 0, id);
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

	if (str_id(p, name, &f.name) || str_id(p, file, &f.file))
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
		size_t n = p->l->machine.nr_dsos > d->idx ? p->l->machine.nr_dsos : d->idx + 1;
		uint32_t *v = realloc(p->dso_map, n * sizeof(*v));

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
	if (!p->loc_of || str_id(p, "", &empty))  /* string_table[0] must be "" */
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

/* ---- encoding ------------------------------------------------------------ */

struct enc {
	struct pp *p;
	struct buf b;
	struct gzout *gz;
	struct err *err;
};

/* After each top-level field: hand the buffer to deflate when it is big. */
static int enc_flush(struct enc *e, bool force)
{
	int ret;

	if (e->b.len < FLUSH_AT && !force)
		return 0;
	ret = gzout_write(e->gz, e->b.data, e->b.len, force, e->err);
	buf_reset(&e->b);
	return ret;
}

static int put_u(struct buf *b, uint32_t field, uint64_t v)
{
	return v ? pb_uint64(b, field, v) : 0;
}

static int value_type(struct buf *b, uint32_t field, uint32_t type, uint32_t unit)
{
	size_t mark;

	if (pb_begin(b, field, &mark) || put_u(b, VALUE_TYPE_TYPE, type) ||
	    put_u(b, VALUE_TYPE_UNIT, unit) || pb_end(b, mark))
		return -ENOMEM;
	return 0;
}

/* A string label (str not NULL) or a number with an optional unit. */
static int label(struct pp *p, struct buf *b, const char *key, const char *str, int64_t num,
		 const char *unit)
{
	uint32_t k, s = 0, u = 0;
	size_t mark;

	if (str_id(p, key, &k) || (str && str_id(p, str, &s)) || (unit && str_id(p, unit, &u)))
		return -ENOMEM;
	if (pb_begin(b, SAMPLE_LABEL, &mark) || put_u(b, LABEL_KEY, k) ||
	    (str ? put_u(b, LABEL_STR, s) :
	     pb_int64(b, LABEL_NUM, num) || put_u(b, LABEL_NUM_UNIT, u)) ||
	    pb_end(b, mark))
		return -ENOMEM;
	return 0;
}

static int enc_sample(struct enc *e, const struct stack *s)
{
	struct pp *p = e->p;
	struct buf *b = &e->b;
	int64_t values[2] = { (int64_t)s->count, (int64_t)s->period };
	size_t mark;

	if (array_grow((void **)&p->scratch, &p->cap_scratch, s->nr_frames, sizeof(*p->scratch)))
		return -ENOMEM;
	for (uint32_t k = 0; k < s->nr_frames; k++)
		p->scratch[k] = p->loc_of[p->h->frame_ids[s->first + k]];
	if (pb_begin(b, PROFILE_SAMPLE, &mark) ||
	    pb_packed_uint64(b, SAMPLE_LOCATION_ID, p->scratch, s->nr_frames) ||
	    pb_packed_int64(b, SAMPLE_VALUE, values, 2) ||
	    label(p, b, "pid", NULL, s->thread->pid, NULL) ||
	    label(p, b, "tid", NULL, s->thread->tid, NULL) ||
	    label(p, b, "comm", s->comm ? s->comm : "", 0, NULL) ||
	    /* a unit, so that pprof keeps cpu 0 (it drops unitless zeros) */
	    label(p, b, "cpu", NULL, s->cpu, "cpu") ||
	    pb_end(b, mark))
		return -ENOMEM;
	return 0;
}

static int enc_mapping(struct enc *e, const struct mapping *m)
{
	struct pp *p = e->p;
	struct buf *b = &e->b;
	char hex[2 * sizeof(m->dso->build_id) + 1];
	uint32_t file, bid = 0;
	size_t mark;

	for (size_t i = 0; i < m->dso->build_id_size && i < sizeof(m->dso->build_id); i++)
		snprintf(hex + 2 * i, 3, "%02x", m->dso->build_id[i]);
	if (str_id(p, m->dso->kernel ? m->dso->short_name : m->dso->path, &file) ||
	    (m->dso->build_id_size && str_id(p, hex, &bid)))
		return -ENOMEM;
	if (pb_begin(b, PROFILE_MAPPING, &mark) || put_u(b, MAPPING_ID, m->id) ||
	    put_u(b, MAPPING_MEMORY_START, m->start) || put_u(b, MAPPING_MEMORY_LIMIT, m->limit) ||
	    put_u(b, MAPPING_FILE_OFFSET, m->offset) || put_u(b, MAPPING_FILENAME, file) ||
	    put_u(b, MAPPING_BUILD_ID, bid) || put_u(b, MAPPING_HAS_FUNCTIONS, m->all_fn) ||
	    put_u(b, MAPPING_HAS_FILENAMES, m->all_lines) ||
	    put_u(b, MAPPING_HAS_LINE_NUMBERS, m->all_lines) ||
	    put_u(b, MAPPING_HAS_INLINE_FRAMES, m->all_lines) || pb_end(b, mark))
		return -ENOMEM;
	return 0;
}

static int enc_location(struct enc *e, size_t i)
{
	const struct loc *lc = &e->p->locs[i];
	struct buf *b = &e->b;
	size_t mark, lmark;

	if (pb_begin(b, PROFILE_LOCATION, &mark) || put_u(b, LOCATION_ID, i + 1) ||
	    put_u(b, LOCATION_MAPPING_ID, lc->mapping ? e->p->maps[lc->mapping - 1].id : 0) ||
	    put_u(b, LOCATION_ADDRESS, lc->address))
		return -ENOMEM;
	for (uint32_t k = 0; k < lc->nr_lines; k++) {
		const struct line *ln = &e->p->lines[lc->first_line + k];

		if (pb_begin(b, LOCATION_LINE, &lmark) || put_u(b, LINE_FUNCTION_ID, ln->function) ||
		    (ln->line && pb_int64(b, LINE_LINE, ln->line)) || pb_end(b, lmark))
			return -ENOMEM;
	}
	return pb_end(b, mark);
}

static int enc_function(struct enc *e, size_t i)
{
	const struct func *f = &e->p->funcs[i];
	struct buf *b = &e->b;
	size_t mark;

	if (pb_begin(b, PROFILE_FUNCTION, &mark) || put_u(b, FUNCTION_ID, i + 1) ||
	    put_u(b, FUNCTION_NAME, f->name) || put_u(b, FUNCTION_SYSTEM_NAME, f->name) ||
	    put_u(b, FUNCTION_FILENAME, f->file) || pb_end(b, mark))
		return -ENOMEM;
	return 0;
}

/* ---- the event and the recording ----------------------------------------- */

static int pick_event(const struct load *l, const char *name, struct err *err)
{
	char list[512] = "";
	size_t len = 0;

	if (!name) {
		for (size_t i = 0; i < l->nr_events; i++)
			if (l->samples_by_event[i])
				return (int)i;
		return err_set(err, -ENOENT, "%s: no samples", l->opts.inputs[0]);
	}
	for (size_t i = 0; i < l->nr_events; i++) {
		if (!strcmp(l->events[i], name))
			return (int)i;
		if (len < sizeof(list))
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", i ? ", " : "",
						l->events[i]);
	}
	return err_set(err, -ENOENT, "--event '%s': no such event in %s (it has: %s)", name, l->opts.inputs[0],
		       l->nr_events ? list : "none");
}

static const struct perf_event_attr *event_attr(const struct load *l, int event)
{
	for (size_t i = 0; i < l->nr_sessions; i++)
		for (size_t e = 0; e < l->sessions[i].nr_events && e < LOAD_MAX_EVENTS; e++)
			if (l->event_map[i][e] == event)
				return &l->sessions[i].events[e].attr;
	return NULL;
}

static bool clock_event(const struct perf_event_attr *a)
{
	return a && a->type == PERF_TYPE_SOFTWARE &&
	       (a->config == PERF_COUNT_SW_CPU_CLOCK || a->config == PERF_COUNT_SW_TASK_CLOCK);
}

static int64_t event_period(const struct perf_event_attr *a, const struct pprof_result *r)
{
	if (a && !a->freq && a->sample_period)
		return (int64_t)a->sample_period;
	if (a && a->freq && a->sample_freq && clock_event(a))
		return (int64_t)((1000000000ull + a->sample_freq / 2) / a->sample_freq);
	return r->samples ? (int64_t)(r->period / r->samples) : 0;
}

/* Start (epoch ns) and length of the recording. */
static void recording_time(const struct load *l, int64_t *start, int64_t *duration)
{
	const struct metadata *m = &l->sessions[0].meta;
	uint64_t a = 0, b = 0;

	*start = metadata_get_u64(m, META_START_TIME_NS, &a) ? (int64_t)a : 0;
	*duration = 0;
	if (metadata_get_u64(m, META_START_TIME_NS, &a) && metadata_get_u64(m, META_END_TIME_NS, &b) &&
	    b >= a)
		*duration = (int64_t)(b - a);
	else if (metadata_get_u64(m, META_START_CLOCK_NS, &a) &&
		 metadata_get_u64(m, META_END_CLOCK_NS, &b) && b >= a)
		*duration = (int64_t)(b - a);
	else if (l->sessions[0].last_time > l->sessions[0].first_time)
		*duration = (int64_t)(l->sessions[0].last_time - l->sessions[0].first_time);
}

/* Comments: each input's command line (arguments joined by spaces). */
static int comments(struct pp *p, int64_t *ids, size_t *n)
{
	*n = 0;
	for (size_t i = 0; i < p->l->nr_sessions; i++) {
		const struct meta_item *it = metadata_get(&p->l->sessions[i].meta, META_CMDLINE);
		char *text;
		size_t len;
		uint32_t id;
		int ret;

		if (!it || !it->len)
			continue;
		text = malloc(it->len + 1);
		if (!text)
			return -ENOMEM;
		memcpy(text, it->value, it->len);
		for (len = it->len; len && !text[len - 1]; len--)
			;
		for (size_t k = 0; k < len; k++)
			if (!text[k])
				text[k] = ' ';
		ret = str_idn(p, text, len, &id);
		ids[(*n)++] = id;
		free(text);
		if (ret)
			return ret;
	}
	return 0;
}

static int encode(struct pp *p, const struct pprof_result *res, struct gzout *gz,
		  struct err *err)
{
	const struct perf_event_attr *attr = event_attr(p->l, p->event);
	struct enc e = { .p = p, .gz = gz, .err = err };
	uint32_t samples, count, type, unit;
	int64_t start, duration, cmt[LOAD_MAX_INPUTS];
	size_t nr_cmt;
	int ret;

	recording_time(p->l, &start, &duration);
	ret = str_id(p, "samples", &samples) || str_id(p, "count", &count) ||
	      str_id(p, p->l->events[p->event], &type) ||
	      str_id(p, clock_event(attr) ? "nanoseconds" : "count", &unit) ||
	      comments(p, cmt, &nr_cmt) ||
	      value_type(&e.b, PROFILE_SAMPLE_TYPE, samples, count) ||
	      value_type(&e.b, PROFILE_SAMPLE_TYPE, type, unit) ? -ENOMEM : 0;
	for (size_t i = 0; i < p->h->nr_stacks && !ret; i++) {
		const struct stack *s = &p->h->stacks[i];

		if (s->event == p->event && s->nr_frames)
			ret = enc_sample(&e, s) ? -ENOMEM : enc_flush(&e, false);
	}
	/* by id: the main binary, then the others in index order */
	for (size_t i = 0; i < p->nr_maps && !ret; i++)
		if (p->maps[i].id == 1)
			ret = enc_mapping(&e, &p->maps[i]);
	for (size_t i = 0; i < p->nr_maps && !ret; i++)
		if (p->maps[i].id != 1)
			ret = enc_mapping(&e, &p->maps[i]);
	for (size_t i = 0; i < p->nr_locs && !ret; i++)
		ret = enc_location(&e, i) ? -ENOMEM : enc_flush(&e, false);
	for (size_t i = 0; i < p->nr_funcs && !ret; i++)
		ret = enc_function(&e, i);
	/* every string is in the table by now */
	for (size_t i = 0; i < p->nr_strs && !ret; i++)
		ret = pb_string(&e.b, PROFILE_STRING_TABLE,
				(const char *)p->strdata.data + p->strs[i].off, p->strs[i].len) ?
		      -ENOMEM : enc_flush(&e, false);
	if (!ret && (pb_int64(&e.b, PROFILE_TIME_NANOS, start) ||
		     pb_int64(&e.b, PROFILE_DURATION_NANOS, duration) ||
		     value_type(&e.b, PROFILE_PERIOD_TYPE, type, unit) ||
		     pb_int64(&e.b, PROFILE_PERIOD, event_period(attr, res)) ||
		     pb_packed_int64(&e.b, PROFILE_COMMENT, cmt, nr_cmt) ||
		     pb_int64(&e.b, PROFILE_DEFAULT_SAMPLE_TYPE, type)))
		ret = -ENOMEM;
	if (!ret)
		ret = enc_flush(&e, true);
	if (ret == -ENOMEM)
		err_set(err, -ENOMEM, "out of memory");
	buf_free(&e.b);
	return ret;
}

int pprof_export(struct load *l, const struct pprof_opts *o, struct pprof_result *res,
		 struct err *err)
{
	/* srcline: the DWARF of the binaries hit is opened on a thread while
	 * the rest of the file is read (inline chains and lines are wanted) */
	struct hist_opts ho = {
		.keys = { SORT_SYM, SORT_SRCLINE }, .nr_keys = 2,
		.inline_frames = true, .callchain = true, .symfs = l->opts.symfs,
	};
	struct pp p = { .l = l };
	struct gzout *gz = NULL;
	struct hist h;
	int ret;

	memset(res, 0, sizeof(*res));
	hist_init(&h, &ho, &l->machine, l->sym);
	p.h = &h;
	ret = load_run(l, on_sample, on_record, &p, err);
	if (ret)
		goto out;
	ret = pick_event(l, o->event, err);
	if (ret < 0)
		goto out;
	p.event = ret;
	res->event = l->events[p.event];
	res->nr_events = l->nr_events;
	if (hist_resolve(&h) || build(&p, res)) {
		ret = err_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	if (!res->samples) {
		ret = err_set(err, -ENOENT, "%s: no samples of event '%s'%s", l->opts.inputs[0], res->event,
			      l->filtered ? " (all filtered out)" : "");
		goto out;
	}
	res->nr_locations = p.nr_locs;
	res->nr_functions = p.nr_funcs;
	res->nr_mappings = p.nr_maps;
	ret = gzout_open(&gz, o->output, o->level, err);
	if (!ret)
		ret = encode(&p, res, gz, err);
	ret = gzout_close(gz, ret, &res->bytes, err);
out:
	pp_free(&p);
	hist_free(&h);
	return ret;
}
