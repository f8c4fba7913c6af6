/* SPDX-License-Identifier: MIT */
/*
 * The symbolizer's core: the table of dsos, file offset to vaddr
 * conversion, symbol lookup in sorted tables, stats and warnings. Which
 * files of a dso are used is decided in symbols_find.c, ELF symbol tables
 * are read in symbols_elf.c, DWARF in symbols_dwarf.c, kernel symbols in
 * symbols_kernel.c.
 */
#include "symbols_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"

#define DEFAULT_DEBUG_ROOT "/usr/lib/debug"
#define DEFAULT_KALLSYMS "/proc/kallsyms"

/* ---- arena ------------------------------------------------------------ */

#define ARENA_CHUNK (64 * 1024)

struct arena_chunk {
	struct arena_chunk *next;
	size_t used, cap;
	_Alignas(16) unsigned char data[];
};

void *arena_alloc(struct arena *a, size_t size)
{
	struct arena_chunk *c = a->head;
	size_t need = (size + 15) & ~(size_t)15;

	if (need < size)
		return NULL;
	if (!c || c->cap - c->used < need) {
		size_t cap = need > ARENA_CHUNK / 4 ? need : ARENA_CHUNK;

		if (cap > SIZE_MAX - sizeof(*c))
			return NULL;
		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->used = 0;
		c->cap = cap;
		if (cap == ARENA_CHUNK || !a->head) {
			c->next = a->head;
			a->head = c;
		} else {
			/* a big one-off: keep the current chunk on top for small strings */
			c->next = a->head->next;
			a->head->next = c;
		}
	}
	c->used += need;
	return c->data + c->used - need;
}

char *arena_strndup(struct arena *a, const char *p, size_t n)
{
	char *q = n + 1 ? arena_alloc(a, n + 1) : NULL;

	if (q) {
		memcpy(q, p, n);
		q[n] = 0;
	}
	return q;
}

char *arena_strdup(struct arena *a, const char *p)
{
	return arena_strndup(a, p, strlen(p));
}

static void arena_free(struct arena *a)
{
	while (a->head) {
		struct arena_chunk *c = a->head;

		a->head = c->next;
		free(c);
	}
}

/* ---- warnings --------------------------------------------------------- */

void sym_warn(struct symbolizer *s, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (s->warn)
		s->warn(s->warn_ctx, msg);
	else
		log_msg(LOG_WARNING, "%s", msg);
}

/* ---- sorted symbol tables -------------------------------------------- */

static unsigned leading_underscores(const char *p)
{
	unsigned n = 0;

	while (p[n] == '_')
		n++;
	return n;
}

/*
 * Of two symbols at the same address, whether a is the one to keep. The
 * order is perf's choose_best_symbol(): a symbol with a size over one
 * without, a typed symbol over STT_NOTYPE, non-weak over weak, global over
 * local, fewer leading underscores, then the longer name. On a full tie
 * perf keeps the one met first in the symbol table, and so do we.
 */
bool sym_better(const struct rawsym *a, const struct rawsym *b)
{
	size_t la, lb;
	unsigned ua, ub;

	if ((a->size > 0) != (b->size > 0))
		return a->size > 0;
	if (a->type != b->type && (a->type == STT_NOTYPE || b->type == STT_NOTYPE))
		return b->type == STT_NOTYPE;
	if ((a->bind == STB_WEAK) != (b->bind == STB_WEAK))
		return b->bind == STB_WEAK;
	if ((a->bind == STB_GLOBAL) != (b->bind == STB_GLOBAL))
		return a->bind == STB_GLOBAL;
	ua = leading_underscores(a->name);
	ub = leading_underscores(b->name);
	if (ua != ub)
		return ua < ub;
	la = strlen(a->name);
	lb = strlen(b->name);
	if (la != lb)
		return la > lb;
	return a->seq <= b->seq;
}

int rawsyms_push(struct rawsyms *r, const struct rawsym *s)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 256;
		struct rawsym *v;

		if (cap > SIZE_MAX / sizeof(*v))
			return -ENOMEM;
		v = array_realloc(r->v, cap, sizeof(*v));
		if (!v)
			return -ENOMEM;
		r->v = v;
		r->cap = cap;
	}
	r->v[r->n] = *s;
	r->v[r->n].seq = (uint32_t)r->n;
	r->n++;
	return 0;
}

static int rawsym_cmp(const void *pa, const void *pb)
{
	const struct rawsym *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

int rawsyms_finish(struct rawsyms *r, struct symtab *out, const char ***aux_out)
{
	struct sym *v = NULL;
	const char **aux = NULL;
	size_t n = 0;

	out->v = NULL;
	out->n = 0;
	if (aux_out)
		*aux_out = NULL;
	if (!r->n)
		goto done;
	qsort(r->v, r->n, sizeof(*r->v), rawsym_cmp);
	v = calloc(r->n, sizeof(*v));
	if (aux_out)
		aux = calloc(r->n, sizeof(*aux));
	if (!v || (aux_out && !aux)) {
		free(v);
		free(aux);
		free(r->v);
		r->v = NULL;
		r->n = r->cap = 0;
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->n;) {
		size_t best = i, j = i + 1;

		for (; j < r->n && r->v[j].start == r->v[i].start; j++)
			if (sym_better(&r->v[j], &r->v[best]))
				best = j;
		/* zero size: up to the next symbol, never past the section */
		if (!r->v[best].size) {
			uint64_t end = j < r->n ? r->v[j].start : r->v[best].limit;

			if (r->v[best].limit > r->v[best].start && r->v[best].limit < end)
				end = r->v[best].limit;
			if (end > r->v[best].start)
				r->v[best].size = end - r->v[best].start;
		}
		v[n].start = r->v[best].start;
		v[n].size = r->v[best].size;
		v[n].name = r->v[best].name;
		if (aux)
			aux[n] = r->v[best].aux;
		n++;
		i = j;
	}
done:
	free(r->v);
	r->v = NULL;
	r->n = r->cap = 0;
	out->v = v;
	out->n = n;
	if (aux_out)
		*aux_out = aux;
	return 0;
}

/* The symbol covering addr: the nearest start at or below it, or, when that
 * one ends before addr, an enclosing one a few entries further back. */
const struct sym *symtab_find(const struct symtab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = 0; k < 8 && lo > k; k++) {
		const struct sym *s = &t->v[lo - 1 - k];

		if (addr - s->start < s->size)
			return s;
	}
	return NULL;
}

/* ---- symbolizer and dso table ----------------------------------------- */

struct symbolizer *symbolizer_new(const struct symbolizer_opts *o)
{
	struct symbolizer *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	elf_version(EV_CURRENT);
	s->debug_root = strdup(o && o->debug_root ? o->debug_root : DEFAULT_DEBUG_ROOT);
	s->kallsyms_path = strdup(o && o->kallsyms_path ? o->kallsyms_path : DEFAULT_KALLSYMS);
	s->cache_dir = o && o->cache_dir ? strdup(o->cache_dir) : NULL;
	s->nbuckets = 256;
	s->buckets = calloc(s->nbuckets, sizeof(*s->buckets));
	if (!s->debug_root || !s->kallsyms_path || !s->buckets || find_init(s, o)) {
		symbolizer_free(s);
		return NULL;
	}
	if (o) {
		s->warn = o->warn;
		s->warn_ctx = o->warn_ctx;
	}
	return s;
}

static void dso_free(struct sym_dso *d)
{
	dso_dwarf_free(d);
	free(d->path);
	free(d->bin_path);
	free(d->debug_path);
	free(d->segs);
	free(d->syms.v);
	free(d);
}

void symbolizer_free(struct symbolizer *s)
{
	if (!s)
		return;
	dwarf_prefetch_stop(s);
	for (size_t i = 0; s->buckets && i < s->nbuckets; i++) {
		while (s->buckets[i]) {
			struct sym_dso *d = s->buckets[i];

			s->buckets[i] = d->next;
			dso_free(d);
		}
	}
	kernel_prefetch_drop(s);
	free(s->buckets);
	kernel_free(s);
	arena_free(&s->arena);
	find_free(s);
	free(s->debug_root);
	free(s->kallsyms_path);
	free(s->cache_dir);
	embed_list_free(&s->embeds);
	free(s);
}

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static int dso_table_grow(struct symbolizer *s)
{
	size_t n = s->nbuckets * 2;
	struct sym_dso **b = calloc(n, sizeof(*b));

	if (!b)
		return -ENOMEM;
	for (size_t i = 0; i < s->nbuckets; i++) {
		while (s->buckets[i]) {
			struct sym_dso *d = s->buckets[i];

			s->buckets[i] = d->next;
			d->next = b[d->hash & (n - 1)];
			b[d->hash & (n - 1)] = d;
		}
	}
	free(s->buckets);
	s->buckets = b;
	s->nbuckets = n;
	return 0;
}

struct sym_dso *symbolizer_dso(struct symbolizer *s, const char *path,
			       const uint8_t *build_id, size_t build_id_size)
{
	static const uint8_t none[1];
	struct sym_dso *d;
	uint64_t h;

	if (!build_id || !build_id_size) {
		build_id = none;
		build_id_size = 0;
	}
	if (build_id_size > SYM_BUILD_ID_MAX)
		build_id_size = SYM_BUILD_ID_MAX;
	h = fnv1a(0xcbf29ce484222325ull, path, strlen(path) + 1);
	h = fnv1a(h, build_id, build_id_size);
	for (d = s->buckets[h & (s->nbuckets - 1)]; d; d = d->next)
		if (d->hash == h && d->build_id_size == build_id_size &&
		    !memcmp(d->build_id, build_id, build_id_size) && !strcmp(d->path, path))
			return d;
	if (s->ndsos >= s->nbuckets && dso_table_grow(s))
		return NULL;
	d = calloc(1, sizeof(*d));
	if (!d || !(d->path = strdup(path))) {
		free(d);
		return NULL;
	}
	d->hash = h;
	if (build_id_size)
		memcpy(d->build_id, build_id, build_id_size);
	d->build_id_size = build_id_size;
	d->dw_fd = -1;
	d->next = s->buckets[h & (s->nbuckets - 1)];
	s->buckets[h & (s->nbuckets - 1)] = d;
	s->ndsos++;
	s->stats.dsos++;
	return d;
}

const char *sym_dso_path(const struct sym_dso *d)
{
	return d->path;
}

const uint8_t *sym_dso_build_id(const struct sym_dso *d, size_t *size)
{
	*size = d->build_id_size;
	return d->build_id;
}

int symbolizer_add_embedded(struct symbolizer *s, struct embed_dso *const *v, size_t n)
{
	return embed_list_add(&s->embeds, v, n);
}

/* Take the dso's segments and symbols from what the recording embedded. */
static int dso_from_embed(struct symbolizer *s, struct sym_dso *d, const struct embed_dso *e)
{
	d->segs = calloc(e->nr_segs ? e->nr_segs : 1, sizeof(*d->segs));
	d->syms.v = calloc(e->nr_syms ? e->nr_syms : 1, sizeof(*d->syms.v));
	if (!d->segs || !d->syms.v)
		return -ENOMEM;
	for (uint32_t i = 0; i < e->nr_segs; i++)
		d->segs[i] = (struct load_seg){ e->segs[i].offset, e->segs[i].vaddr,
						e->segs[i].filesz, e->segs[i].memsz,
						e->segs[i].flags };
	d->nsegs = e->nr_segs;
	for (uint32_t i = 0; i < e->nr_syms; i++) {
		const char *name = arena_strdup(&s->arena, embed_str(e, e->syms[i].name));

		if (!name)
			return -ENOMEM;
		d->syms.v[i] = (struct sym){ e->syms[i].start, e->syms[i].size, name };
	}
	d->syms.n = e->nr_syms;
	d->syms_loaded = true;
	d->dwarf_state = -1;            /* nothing to open: lines come from e */
	d->embed = e;
	d->state = DSO_OK;
	s->stats.dsos_embedded++;
	return 0;
}

int dso_use_embedded(struct symbolizer *s, struct sym_dso *d)
{
	const struct embed_dso *e = embed_list_find(&s->embeds, d->build_id, d->build_id_size, NULL);

	if (e) {
		int ret = dso_from_embed(s, d, e);

		if (ret) {
			free(d->segs);
			free(d->syms.v);
			d->segs = NULL;
			d->syms.v = NULL;
			d->nsegs = d->syms.n = 0;
			d->syms_loaded = false;
			d->dwarf_state = 0;
			d->embed = NULL;
		}
		return ret ? ret : 1;
	}
	return 0;
}

const struct load_seg *sym_dso_segs(const struct sym_dso *d, size_t *n)
{
	*n = d->nsegs;
	return d->segs;
}

/* The vaddr of a file offset: through the PT_LOAD holding it; the pages
 * around a segment (mapped because mappings are page-aligned) count as
 * that segment's. Without program headers the offset is the address. */
uint64_t dso_vaddr(const struct sym_dso *d, uint64_t off)
{
	for (size_t i = 0; i < d->nsegs; i++) {
		const struct load_seg *g = &d->segs[i];

		if (off >= g->offset && off - g->offset < g->filesz)
			return off - g->offset + g->vaddr;
	}
	for (size_t i = 0; i < d->nsegs; i++) {
		const struct load_seg *g = &d->segs[i];
		uint64_t lo = g->offset & ~(uint64_t)0xfff;
		uint64_t len = g->memsz > g->filesz ? g->memsz : g->filesz;

		if (off >= lo && off - g->offset + 0x1000 < len + 0x2000)
			return off - g->offset + g->vaddr;
	}
	return d->nsegs ? off - d->segs[0].offset + d->segs[0].vaddr : off;
}

int sym_dso_lookup(struct symbolizer *s, struct sym_dso *d, uint64_t file_offset,
		   struct sym_info *out)
{
	const struct sym *sym;
	int ret;

	memset(out, 0, sizeof(*out));
	out->addr = file_offset;
	s->stats.lookups++;
	ret = dso_ensure(s, d);
	if (!ret && d->state == DSO_OK) {
		out->addr = dso_vaddr(d, file_offset);
		if (!d->syms_loaded)
			ret = dso_load_symbols(s, d);
	}
	if (ret) {
		s->stats.lookups--;
		return ret;
	}
	sym = d->state == DSO_OK ? symtab_find(&d->syms, out->addr) : NULL;
	if (!sym) {
		s->stats.unresolved++;
		return 0;
	}
	out->name = sym->name;
	out->start = sym->start;
	out->size = sym->size;
	return 0;
}

void symbolizer_get_stats(const struct symbolizer *s, struct symbolizer_stats *st)
{
	*st = s->stats;
}
