/* SPDX-License-Identifier: MIT */
/*
 * The symbolizer's facade (symbols.h): the table of dsos, what each one
 * uses (embedded data, or the files symbols_find.c decides), file offset to
 * vaddr conversion, symbol and source-line lookups with their stats, and
 * the kernel tables. The parts below it know nothing of dsos:
 *
 *   symbols.c (this facade)
 *     -> symbols_ahead.h  files and symbol tables read ahead on a thread
 *     -> symbols_find.h   debug-file lookup
 *     -> symbols_dwarf.h  source lines and inline chains
 *     -> symbols_kernel.h kallsyms tables
 *     -> symbols_elf.h    ELF files and their symbol tables
 *     -> symtab.h         arena, sorted tables, warnings
 */
#include "symbols.h"
#include "embed_code.h"
#include "symbols_ahead.h"
#include "symbols_dwarf.h"
#include "symbols_data.h"
#include "symbols_elf.h"
#include "symbols_find.h"
#include "symbols_kernel.h"
#include "symtab.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "format/embed.h"
#include "common/thread.h"

#define DEFAULT_DEBUG_ROOT "/usr/lib/debug"
#define DEFAULT_KALLSYMS "/proc/kallsyms"

enum dso_state { DSO_NEW, DSO_OK, DSO_MISSING, DSO_MISMATCH };

/* dwarf_state: 0 not tried, 1 open, -1 none, DWARF_PENDING being opened */
#define DWARF_PENDING 2

struct sym_dso {
	struct sym_dso *next;           /* hash chain in the symbolizer */
	uint64_t hash;
	char *path;
	uint8_t build_id[SYM_BUILD_ID_MAX];
	size_t build_id_size;

	enum dso_state state;
	const struct embed_dso *embed;  /* from the recording; no files then */
	struct bin_files files;         /* or the files found for it */

	bool syms_loaded;
	struct symtab syms;

	int dwarf_state;
	int dw_result;                  /* what the prefetch thread found */
	struct srclines lines;

	/* data symbols (sym_dso_lookup_data), from the files even when the
	 * recording embedded the function symbols */
	bool dsyms_loaded, dfiles_done;
	struct symtab dsyms;
	struct bin_files dfiles;        /* the files when embedded */
};

struct symbolizer {
	char *cache_dir;
	char *debug_root, *buildid_dir; /* for a prefetch's own finder */
	struct ahead *ahead;            /* symbols read ahead (running), or NULL */
	struct ahead *ahead_done;       /* and ended: its arena has their names */
	bool ahead_asked;
	struct sym_warner warn;
	struct debug_find *find;
	struct kernel_syms *kernel;

	struct embed_list embeds;       /* given by symbolizer_add_embedded */
	struct sym_dso **buckets;
	size_t nbuckets, ndsos;
	struct arena arena;             /* symbol names, frames, joined paths */
	struct symbolizer_stats stats;
	/* DWARF opened ahead on a thread (symbolizer_prefetch_dwarf) */
	bool dw_pf_running;
	pthread_t dw_pf_thread;
	struct sym_dso **dw_pf;
	size_t dw_pf_n;
};

/* ---- symbolizer and dso table ----------------------------------------- */

static void warn_log(void *ctx, const char *msg)
{
	(void)ctx;
	log_msg(LOG_WARNING, "%s", msg);
}

struct symbolizer *symbolizer_new(const struct symbolizer_opts *o)
{
	struct symbolizer *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	elf_version(EV_CURRENT);
	s->warn.fn = o && o->warn ? o->warn : warn_log;
	s->warn.ctx = o && o->warn ? o->warn_ctx : NULL;
	s->cache_dir = o && o->cache_dir ? strdup(o->cache_dir) : NULL;
	s->debug_root = strdup(o && o->debug_root ? o->debug_root : DEFAULT_DEBUG_ROOT);
	s->buildid_dir = o && o->buildid_dir ? strdup(o->buildid_dir) : NULL;
	s->find = debug_find_new(o && o->debug_root ? o->debug_root : DEFAULT_DEBUG_ROOT,
				 o ? o->buildid_dir : NULL, s->warn);
	s->kernel = kernel_syms_new(o && o->kallsyms_path ? o->kallsyms_path : DEFAULT_KALLSYMS,
				    o ? o->cache_dir : NULL, s->warn);
	s->nbuckets = 256;
	s->buckets = calloc(s->nbuckets, sizeof(*s->buckets));
	if ((o && o->cache_dir && !s->cache_dir) || !s->debug_root ||
	    (o && o->buildid_dir && !s->buildid_dir) || !s->find || !s->kernel || !s->buckets) {
		symbolizer_free(s);
		return NULL;
	}
	return s;
}

static void dso_free(struct sym_dso *d)
{
	srclines_free(&d->lines);
	free(d->path);
	bin_files_free(&d->files);
	bin_files_free(&d->dfiles);
	free(d->syms.v);
	free(d->dsyms.v);
	free(d);
}

static void dwarf_prefetch_join(struct symbolizer *s);
static void syms_prefetch_join(struct symbolizer *s, bool stop);

void symbolizer_free(struct symbolizer *s)
{
	if (!s)
		return;
	syms_prefetch_join(s, true);
	dwarf_prefetch_join(s);
	for (size_t i = 0; s->buckets && i < s->nbuckets; i++) {
		while (s->buckets[i]) {
			struct sym_dso *d = s->buckets[i];

			s->buckets[i] = d->next;
			dso_free(d);
		}
	}
	free(s->buckets);
	kernel_syms_free(s->kernel);
	arena_free(&s->arena);
	debug_find_free(s->find);
	free(s->cache_dir);
	free(s->debug_root);
	free(s->buildid_dir);
	ahead_free(s->ahead_done);
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
	srclines_init(&d->lines);
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

size_t symbolizer_embedded_code(const struct symbolizer *s, const uint8_t *id, size_t id_size,
				uint64_t vaddr, size_t n, const uint8_t **out)
{
	return embed_code_find(&s->embeds, id, id_size, vaddr, n, out);
}

/* Take the dso's segments and symbols from what the recording embedded. */
static int dso_from_embed(struct symbolizer *s, struct sym_dso *d, const struct embed_dso *e)
{
	d->files.segs = calloc(e->nr_segs ? e->nr_segs : 1, sizeof(*d->files.segs));
	d->syms.v = calloc(e->nr_syms ? e->nr_syms : 1, sizeof(*d->syms.v));
	if (!d->files.segs || !d->syms.v)
		return -ENOMEM;
	for (uint32_t i = 0; i < e->nr_segs; i++)
		d->files.segs[i] = (struct load_seg){ e->segs[i].offset, e->segs[i].vaddr,
						      e->segs[i].filesz, e->segs[i].memsz,
						      e->segs[i].flags };
	d->files.nsegs = e->nr_segs;
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

/* Take the dso from the recording's embedded data if it is there: 1 done,
 * 0 not embedded, -ENOMEM. */
static int dso_use_embedded(struct symbolizer *s, struct sym_dso *d)
{
	const struct embed_dso *e = embed_list_find(&s->embeds, d->build_id, d->build_id_size, NULL);

	if (e) {
		int ret = dso_from_embed(s, d, e);

		if (ret) {
			free(d->files.segs);
			free(d->syms.v);
			d->files.segs = NULL;
			d->syms.v = NULL;
			d->files.nsegs = d->syms.n = 0;
			d->syms_loaded = false;
			d->dwarf_state = 0;
			d->embed = NULL;
		}
		return ret ? ret : 1;
	}
	return 0;
}

/* The dso's state from what debug_find_files decided (a bin_found). */
static void dso_found(struct symbolizer *s, struct sym_dso *d, int found)
{
	if (found == BIN_OK) {
		d->state = DSO_OK;
	} else if (found == BIN_MISMATCH) {
		d->state = DSO_MISMATCH;
		s->stats.dsos_mismatch++;
	} else {
		d->state = DSO_MISSING;
		s->stats.dsos_missing++;
	}
}

/* Open the dso (decide its files) if not done yet: 0 or -ENOMEM. */
static int dso_ensure(struct symbolizer *s, struct sym_dso *d)
{
	int ret;

	/* all of them, so that what is said comes in one order */
	if (s->ahead)
		syms_prefetch_join(s, false);
	if (d->state != DSO_NEW)
		return 0;
	/* what the recording embedded comes before any file */
	ret = dso_use_embedded(s, d);
	if (ret)
		return ret < 0 ? ret : 0;
	ret = debug_find_files(s->find, d->path, d->build_id, d->build_id_size, &d->files);
	if (ret < 0)
		return ret;
	dso_found(s, d, ret);
	return 0;
}

bool sym_dso_usable(struct symbolizer *s, struct sym_dso *d)
{
	return !dso_ensure(s, d) && d->state == DSO_OK;
}

const struct load_seg *sym_dso_segs(const struct sym_dso *d, size_t *n)
{
	*n = d->files.nsegs;
	return d->files.segs;
}

/* The vaddr of a file offset: through the PT_LOAD holding it; the pages
 * around a segment (mapped because mappings are page-aligned) count as
 * that segment's. Without program headers the offset is the address. */
static uint64_t dso_vaddr(const struct sym_dso *d, uint64_t off)
{
	for (size_t i = 0; i < d->files.nsegs; i++) {
		const struct load_seg *g = &d->files.segs[i];

		if (off >= g->offset && off - g->offset < g->filesz)
			return off - g->offset + g->vaddr;
	}
	for (size_t i = 0; i < d->files.nsegs; i++) {
		const struct load_seg *g = &d->files.segs[i];
		uint64_t lo = g->offset & ~(uint64_t)0xfff;
		uint64_t len = g->memsz > g->filesz ? g->memsz : g->filesz;

		if (off >= lo && off - g->offset + 0x1000 < len + 0x2000)
			return off - g->offset + g->vaddr;
	}
	return d->files.nsegs ? off - d->files.segs[0].offset + d->files.segs[0].vaddr : off;
}

static int dso_load_symbols(struct symbolizer *s, struct sym_dso *d)
{
	int ret = elf_read_symbols(d->files.bin_path, d->files.debug_path, &s->arena, &d->syms);

	if (!ret)
		d->syms_loaded = true;
	return ret;
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

/* ---- data symbols ---------------------------------------------------- */

/* The files a dso's data symbols come from: its own, or for an embedded
 * one the binary found by path and build id; NULL when none. */
static int dso_data_files(struct symbolizer *s, struct sym_dso *d, const struct bin_files **f)
{
	int ret = dso_ensure(s, d);

	*f = NULL;
	if (ret)
		return ret;
	if (!d->embed) {
		*f = d->state == DSO_OK ? &d->files : NULL;
		return 0;
	}
	if (!d->dfiles_done) {
		d->dfiles_done = true;
		ret = debug_find_files(s->find, d->path, d->build_id, d->build_id_size, &d->dfiles);
		if (ret < 0)
			return ret;
		if (ret != BIN_OK)
			bin_files_free(&d->dfiles);
	}
	*f = d->dfiles.bin_path || d->dfiles.debug_path ? &d->dfiles : NULL;
	return 0;
}

const char *sym_dso_bin_path(struct symbolizer *s, struct sym_dso *d)
{
	const struct bin_files *f;

	if (dso_data_files(s, d, &f) || !f)
		return NULL;
	return f->bin_path;
}

int sym_dso_lookup_data(struct symbolizer *s, struct sym_dso *d, uint64_t file_offset,
			struct sym_info *out)
{
	const struct bin_files *f;
	const struct sym *sym;
	bool inside = false;
	int ret = dso_data_files(s, d, &f);

	memset(out, 0, sizeof(*out));
	out->addr = file_offset;
	if (ret || !f)
		return ret;
	out->addr = segs_data_vaddr(f->segs, f->nsegs, file_offset, &inside);
	if (!inside)
		return 0;
	if (!d->dsyms_loaded) {
		ret = elf_read_data_symbols(f->bin_path, f->debug_path, &s->arena, &d->dsyms);
		if (ret)
			return ret;
		d->dsyms_loaded = true;
	}
	sym = symtab_find(&d->dsyms, out->addr);
	if (sym) {
		out->name = sym->name;
		out->start = sym->start;
		out->size = sym->size;
	}
	return 1;
}

/* ---- source lines --------------------------------------------------- */

static void dwarf_open(struct symbolizer *s, struct sym_dso *d)
{
	d->dwarf_state = srclines_open(&d->lines, d->files.debug_path, d->files.bin_path,
				       s->cache_dir);
	if (d->dwarf_state == 1)
		s->stats.dwarf_dsos++;
}

static void *dwarf_prefetch_main(void *arg)
{
	struct symbolizer *s = arg;

	for (size_t i = 0; i < s->dw_pf_n; i++) {
		struct sym_dso *d = s->dw_pf[i];

		d->dw_result = srclines_open(&d->lines, d->files.debug_path, d->files.bin_path,
					     s->cache_dir);
	}
	return NULL;
}

static void dwarf_prefetch_join(struct symbolizer *s)
{
	if (!s->dw_pf_running)
		return;
	pthread_join(s->dw_pf_thread, NULL);
	s->dw_pf_running = false;
	for (size_t i = 0; i < s->dw_pf_n; i++) {
		s->dw_pf[i]->dwarf_state = s->dw_pf[i]->dw_result;
		if (s->dw_pf[i]->dwarf_state == 1)
			s->stats.dwarf_dsos++;
	}
	free(s->dw_pf);
	s->dw_pf = NULL;
	s->dw_pf_n = 0;
}

/* ---- files and symbols read ahead -------------------------------------- */

/* The thread ended, and what it read taken over by the dsos it was for
 * that nothing opened meanwhile: dso_ensure's part, as it would have
 * decided it. */
static void syms_prefetch_join(struct symbolizer *s, bool stop)
{
	struct ahead_job *jobs;
	size_t n;

	if (!s->ahead)
		return;
	jobs = ahead_finish(s->ahead, stop, &s->warn, &n);
	s->ahead_done = s->ahead;
	s->ahead = NULL;
	for (size_t i = 0; i < n; i++) {
		struct ahead_job *j = &jobs[i];
		struct sym_dso *d = j->owner;

		if (!j->done || d->state != DSO_NEW ||
		    embed_list_find(&s->embeds, d->build_id, d->build_id_size, NULL))
			continue;
		d->files = j->files;
		j->files = (struct bin_files){ 0 };
		dso_found(s, d, j->found);
		if (j->found == BIN_OK && j->syms_loaded) {
			d->syms = j->syms;
			d->syms_loaded = true;
			j->syms = (struct symtab){ 0 };
		}
	}
}

int symbolizer_prefetch_symbols(struct symbolizer *s, struct sym_dso *const *dsos, size_t n)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	struct ahead_job *jobs;
	size_t k = 0;

	/* once; not where debuginfod may be asked (its client is the main
	 * finder's) */
	if (s->ahead_asked || !n || (urls && *urls))
		return 0;
	s->ahead_asked = true;
	if (!(jobs = calloc(n, sizeof(*jobs))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (dsos[i] && dsos[i]->state == DSO_NEW)
			jobs[k++] = (struct ahead_job){ .path = dsos[i]->path,
							.build_id = dsos[i]->build_id,
							.build_id_size = dsos[i]->build_id_size,
							.owner = dsos[i] };
	if (!k) {
		free(jobs);
		return 0;
	}
	/* no thread: each read when asked */
	s->ahead = ahead_start(s->debug_root, s->buildid_dir, jobs, k);
	return 0;
}

void symbolizer_prefetch_wait(struct symbolizer *s)
{
	syms_prefetch_join(s, false);
}

int symbolizer_prefetch_dwarf(struct symbolizer *s, struct sym_dso *const *dsos, size_t n)
{
	dwarf_prefetch_join(s);
	s->dw_pf = calloc(n ? n : 1, sizeof(*s->dw_pf));
	if (!s->dw_pf)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct sym_dso *d = dsos[i];

		if (d->dwarf_state || dso_ensure(s, d) || d->state != DSO_OK)
			continue;
		d->dwarf_state = DWARF_PENDING;
		s->dw_pf[s->dw_pf_n++] = d;
	}
	if (s->dw_pf_n && !thread_create(&s->dw_pf_thread, dwarf_prefetch_main, s)) {
		s->dw_pf_running = true;
		return 0;
	}
	/* no thread: open them when asked */
	for (size_t i = 0; i < s->dw_pf_n; i++)
		s->dw_pf[i]->dwarf_state = 0;
	free(s->dw_pf);
	s->dw_pf = NULL;
	s->dw_pf_n = 0;
	return 0;
}

int sym_dso_srcline(struct symbolizer *s, struct sym_dso *d, uint64_t file_offset,
		    const struct sym_frame **frames, size_t *n)
{
	uint64_t addr;
	int ret;

	*frames = NULL;
	*n = 0;
	ret = dso_ensure(s, d);
	if (ret || d->state != DSO_OK)
		return ret;
	addr = dso_vaddr(d, file_offset);
	if (d->embed)
		return srclines_embedded(&d->lines, &s->arena, d->embed, addr, frames, n);
	if (d->dwarf_state == DWARF_PENDING)
		dwarf_prefetch_join(s);
	if (!d->dwarf_state)
		dwarf_open(s, d);
	if (d->dwarf_state < 0)
		return 0;
	return srclines_find(&d->lines, &s->arena, addr, frames, n);
}

/* ---- the kernel ------------------------------------------------------- */

int symbolizer_load_kallsyms(struct symbolizer *s, const uint8_t *text, size_t len,
			     struct err *err)
{
	return kernel_syms_load(s->kernel, 0, text, len, err);
}

int symbolizer_load_kallsyms_table(struct symbolizer *s, unsigned table, const uint8_t *text,
				   size_t len, struct err *err)
{
	return kernel_syms_load(s->kernel, table, text, len, err);
}

int symbolizer_prefetch_kallsyms(struct symbolizer *s)
{
	return kernel_syms_prefetch(s->kernel);
}

int symbolizer_kernel_lookup(struct symbolizer *s, uint64_t addr, struct sym_info *out,
			     const char **module)
{
	return symbolizer_kernel_lookup_table(s, 0, addr, out, module);
}

int symbolizer_kernel_lookup_table(struct symbolizer *s, unsigned table, uint64_t addr,
				   struct sym_info *out, const char **module)
{
	struct sym sym;
	int ret = kernel_syms_lookup(s->kernel, table, addr, &sym, module);

	memset(out, 0, sizeof(*out));
	out->addr = addr;
	if (!ret && sym.name) {
		out->name = sym.name;
		out->start = sym.start;
		out->size = sym.size;
	}
	return ret;
}

/* ---- files and stats ---------------------------------------------------- */

size_t sym_file_build_id(const char *path, uint8_t *out, size_t size)
{
	uint8_t id[SYM_BUILD_ID_MAX];
	size_t n = 0;
	int fd;
	Elf *e = elf_open_path(path, &fd);

	if (e)
		n = elf_build_id(e, id);
	elf_close(e, fd);
	if (n > size)
		return 0;
	memcpy(out, id, n);
	return n;
}

void symbolizer_get_stats(const struct symbolizer *s, struct symbolizer_stats *st)
{
	struct debug_find_stats fs;
	struct kernel_syms_stats ks;

	*st = s->stats;
	debug_find_get_stats(s->find, &fs);
	kernel_syms_get_stats(s->kernel, &ks);
	st->debuginfod_asked = fs.debuginfod_asked;
	st->debuginfod_files = fs.debuginfod_files;
	st->lookups += ks.lookups;
	st->unresolved += ks.unresolved;
	st->kallsyms_cached = ks.cached;
}

const char *sym_dso_found_binary(const struct sym_dso *d)
{
	return d->files.bin_path;
}

int sym_dso_line_rows(struct symbolizer *s, struct sym_dso *d, uint64_t lo, uint64_t hi,
		      uint64_t **out, size_t *n)
{
	int ret = dso_ensure(s, d);

	*out = NULL;
	*n = 0;
	if (ret || d->state != DSO_OK || d->embed)
		return ret;
	if (d->dwarf_state == DWARF_PENDING)
		dwarf_prefetch_join(s);
	if (!d->dwarf_state)
		dwarf_open(s, d);
	if (d->dwarf_state < 0)
		return 0;
	return srclines_rows(&d->lines, lo, hi, out, n);
}
