/* SPDX-License-Identifier: MIT */
/*
 * SYMBOLS blocks for the binaries a recording hit; see embed.h. The file
 * is read as a report reads it (the same ordering, machine model, folding
 * and, for --call-graph dwarf, unwinding), so the addresses embedded are
 * exactly those a report looks up; the unwinder reports every word it reads
 * from a binary, and those words are what is embedded of its unwind tables.
 */
#include "embed.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/buf.h"
#include "common/hash.h"
#include "format/blocks.h"
#include "format/samplesums.h"
#include "format/container.h"
#include "format/embed.h"
#include "report/aggregate/addr_hits.h"
#include "report/aggregate/hist.h"
#include "report/core/load.h"
#include "report/core/sums_build.h"
#include "embed_code.h"
#include "embed_kernel.h"
#include "embed_source.h"
#include "symbols.h"
#include "unwind.h"

struct word {                   /* a word an unwind read from a binary */
	struct dso *dso;
	uint64_t vaddr;
	uint8_t b[8];
};

/* What is gathered for one binary. */
struct bin {
	struct embed_dso e;
	struct buf strings;
	struct hmap str_idx;
	uint32_t *str_offs;
	size_t nr_strs, cap_strs;
	size_t cap_syms, cap_addrs, cap_frames;
	struct buf bytes;
	size_t cap_ranges;
	bool hit, unusable;
	bool learned_id;        /* the build id was read from the file (none recorded) */
};

struct arch {
	struct load *l;
	struct hist h;
	struct buf kallsyms;            /* the kernel symbols hit, when the file has none */
	struct word *words;
	size_t nr_words, cap_words;
	struct hmap word_idx;
	struct bin *bins;               /* by dso idx */
	size_t nr_bins;
	struct addr_hits hits;          /* the samples per sampled address */
	bool count_hits;                /* ... from a reading that met no problem */
	struct buf *sums;               /* the SAMPLE_SUMS payload (the load's), or NULL */
};

struct word_key {
	struct word w;
	const struct word *all;
};

static bool word_eq(void *ctx, uint32_t idx)
{
	const struct word_key *k = ctx;

	return k->all[idx].dso == k->w.dso && k->all[idx].vaddr == k->w.vaddr;
}

static void on_word(void *ctx, struct dso *d, uint64_t vaddr, const void *bytes, size_t n)
{
	struct arch *a = ctx;
	struct word_key k = { .w = { d, vaddr, { 0 } }, .all = a->words };
	uint64_t h = hash_combine(hash_u64(vaddr), d->idx);
	uint32_t idx;

	if (n != sizeof(k.w.b) || hmap_find(&a->word_idx, h, word_eq, &k, &idx))
		return;
	if (array_grow((void **)&a->words, &a->cap_words, a->nr_words + 1, sizeof(*a->words)) ||
	    hmap_insert(&a->word_idx, h, (uint32_t)a->nr_words))
		return;         /* out of memory: that binary's unwinds may stop early offline */
	a->words[a->nr_words] = k.w;
	memcpy(a->words[a->nr_words++].b, bytes, n);
}

/* ---- one binary's data ---------------------------------------------- */

static bool str_eq(void *ctx, uint32_t idx)
{
	const void **c = ctx;
	const struct bin *b = c[0];

	return !strcmp(b->strings.data ? (const char *)b->strings.data + b->str_offs[idx] : "",
		       c[1]);
}

static int intern(struct bin *b, const char *s, uint32_t *off)
{
	const void *ctx[2] = { b, s };
	uint64_t h;
	uint32_t idx;

	if (!s) {
		*off = EMBED_NONE;
		return 0;
	}
	h = hash_bytes(s, strlen(s), 7);
	if (hmap_find(&b->str_idx, h, str_eq, ctx, &idx)) {
		*off = b->str_offs[idx];
		return 0;
	}
	if (b->strings.len >= EMBED_NONE - 4096 ||
	    array_grow((void **)&b->str_offs, &b->cap_strs, b->nr_strs + 1, sizeof(*b->str_offs)))
		return -ENOMEM;
	*off = (uint32_t)b->strings.len;
	if (buf_append(&b->strings, s, strlen(s) + 1) ||
	    hmap_insert(&b->str_idx, h, (uint32_t)b->nr_strs))
		return -ENOMEM;
	b->str_offs[b->nr_strs++] = *off;
	return 0;
}

static int add_addr(struct bin *b, uint64_t vaddr, const struct sym_info *si,
		    const struct sym_frame *fr, size_t nfr)
{
	struct embed_dso *e = &b->e;
	int ret = 0;

	if (si->name) {
		if (array_grow((void **)&e->syms, &b->cap_syms, e->nr_syms + 1, sizeof(*e->syms)))
			return -ENOMEM;
		e->syms[e->nr_syms] = (struct embed_sym){ si->start, si->size, 0 };
		ret = intern(b, si->name, &e->syms[e->nr_syms++].name);
	}
	if (ret || array_grow((void **)&e->addrs, &b->cap_addrs, e->nr_addrs + 1, sizeof(*e->addrs)) ||
	    array_grow((void **)&e->frames, &b->cap_frames, e->nr_frames + nfr, sizeof(*e->frames)))
		return -ENOMEM;
	e->addrs[e->nr_addrs++] = (struct embed_addr){ vaddr, e->nr_frames, (uint32_t)nfr };
	for (size_t i = 0; i < nfr; i++) {
		struct embed_frame *f = &e->frames[e->nr_frames++];

		f->line = fr[i].line;
		if (intern(b, fr[i].function, &f->function) || intern(b, fr[i].file, &f->file))
			return -ENOMEM;
	}
	return 0;
}

/* qsort, which must not be given a NULL array even when empty */
static void sort(void *p, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(p, n, size, cmp);
}

static int cmp_sym(const void *pa, const void *pb)
{
	const struct embed_sym *a = pa, *b = pb;

	return a->start < b->start ? -1 : a->start > b->start;
}

static int cmp_addr(const void *pa, const void *pb)
{
	const struct embed_addr *a = pa, *b = pb;

	return a->vaddr < b->vaddr ? -1 : a->vaddr > b->vaddr;
}

static int cmp_word(const void *pa, const void *pb)
{
	const struct word *a = pa, *b = pb;

	if (a->dso != b->dso)
		return a->dso->idx < b->dso->idx ? -1 : 1;
	return a->vaddr < b->vaddr ? -1 : a->vaddr > b->vaddr;
}

/* Sort and deduplicate what was gathered (frames keep their order). */
static void bin_finish(struct bin *b)
{
	struct embed_dso *e = &b->e;
	uint32_t n = 0;

	sort(e->syms, e->nr_syms, sizeof(*e->syms), cmp_sym);
	for (uint32_t i = 0; i < e->nr_syms; i++)
		if (!n || e->syms[i].start != e->syms[n - 1].start)
			e->syms[n++] = e->syms[i];
	e->nr_syms = n;
	n = 0;
	sort(e->addrs, e->nr_addrs, sizeof(*e->addrs), cmp_addr);
	for (uint32_t i = 0; i < e->nr_addrs; i++)
		if (!n || e->addrs[i].vaddr != e->addrs[n - 1].vaddr)
			e->addrs[n++] = e->addrs[i];
	e->nr_addrs = n;
	e->strings = (const char *)b->strings.data;
	e->strings_len = (uint32_t)b->strings.len;
	e->bytes = b->bytes.data;
	e->bytes_len = (uint32_t)b->bytes.len;
}

/* The words read from one binary (sorted), merged into ranges. */
static int bin_ranges(struct bin *b, const struct word *w, size_t n)
{
	struct embed_dso *e = &b->e;

	for (size_t i = 0; i < n; i++) {
		struct embed_range *r = e->nr_ranges ? &e->ranges[e->nr_ranges - 1] : NULL;
		uint64_t end = r ? r->vaddr + r->len : 0;

		if (r && w[i].vaddr <= end) {
			uint64_t over = end - w[i].vaddr;

			if (over < sizeof(w[i].b)) {
				if (buf_append(&b->bytes, w[i].b + over, sizeof(w[i].b) - over))
					return -ENOMEM;
				r->len += (uint32_t)(sizeof(w[i].b) - over);
			}
			continue;
		}
		if (array_grow((void **)&e->ranges, &b->cap_ranges, e->nr_ranges + 1, sizeof(*e->ranges)))
			return -ENOMEM;
		e->ranges[e->nr_ranges++] = (struct embed_range){ w[i].vaddr, sizeof(w[i].b),
								  (uint32_t)b->bytes.len };
		if (buf_append(&b->bytes, w[i].b, sizeof(w[i].b)))
			return -ENOMEM;
	}
	return 0;
}

static void bin_free(struct bin *b)
{
	free(b->e.segs);
	free(b->e.syms);
	free(b->e.addrs);
	free(b->e.frames);
	free(b->e.ranges);
	buf_free(&b->strings);
	buf_free(&b->bytes);
	hmap_free(&b->str_idx);
	free(b->str_offs);
}

/* ---- the whole file -------------------------------------------------- */

/* A binary recorded without build id (perf records them only for the
 * binaries of sampled addresses, not of callers): key it by the build id of
 * the file at its path, as the report would read that file anyway. */
static bool learn_build_id(struct dso *d, const char *symfs)
{
	uint8_t id[64];
	char path[4096];
	size_t n;

	if (d->kernel || d->anon || d->path[0] != '/' ||
	    (size_t)snprintf(path, sizeof(path), "%s%s", symfs ? symfs : "", d->path) >= sizeof(path))
		return false;
	n = sym_file_build_id(path, id, sizeof(id));
	if (!n || n > sizeof(d->build_id) || n > BUILD_ID_MAX)
		return false;
	memcpy(d->build_id, id, n);
	d->build_id_size = (uint8_t)n;
	return true;
}

/* The hit addresses of every binary, resolved. */
static int gather(struct arch *a, const char *symfs, struct embed_stats *st)
{
	struct machine *m = load_machine(a->l);
	int ret = 0;

	a->nr_bins = m->nr_dsos;
	a->bins = calloc(a->nr_bins ? a->nr_bins : 1, sizeof(*a->bins));
	if (!a->bins)
		return -ENOMEM;
	for (size_t i = 0; !ret && i < a->h.nr_frames; i++) {
		struct frame *f = &a->h.frames[i];
		const struct sym_frame *fr = NULL;
		struct sym_info si;
		struct sym_dso *sd;
		struct bin *b;
		size_t nfr = 0;

		if (f->kernel || !f->dso || f->dso->anon || f->dso->idx >= a->nr_bins)
			continue;
		b = &a->bins[f->dso->idx];
		if (b->unusable)
			continue;
		if (!b->hit) {
			b->hit = true;
			b->unusable = true;
			if (!f->dso->build_id_size && !f->dso->sym)
				b->learned_id = learn_build_id(f->dso, symfs);
			if (!f->dso->build_id_size)
				st->no_build_id++;
			else if (!(sd = dso_sym(load_symbolizer(a->l), symfs, f->dso)) ||
				 !sym_dso_usable(load_symbolizer(a->l), sd))
				st->no_file++;
			else
				b->unusable = false;
			if (b->unusable)
				continue;
		}
		sd = f->dso->sym;
		ret = sym_dso_lookup(load_symbolizer(a->l), sd, f->addr, &si);
		ret = ret ? ret : sym_dso_srcline(load_symbolizer(a->l), sd, f->addr, &fr, &nfr);
		ret = ret ? ret : add_addr(b, si.addr, &si, fr, nfr);
	}
	if (ret)
		return ret;
	sort(a->words, a->nr_words, sizeof(*a->words), cmp_word);
	for (size_t i = 0, j; i < a->nr_words; i = j) {
		for (j = i; j < a->nr_words && a->words[j].dso == a->words[i].dso; j++)
			;
		if (a->words[i].dso->idx < a->nr_bins && a->bins[a->words[i].dso->idx].e.nr_addrs &&
		    (ret = bin_ranges(&a->bins[a->words[i].dso->idx], a->words + i, j - i)))
			return ret;
	}
	return 0;
}

/* Fill the identity, segments and table position of bin i's binary. */
static int bin_identity(struct arch *a, struct dso *d, struct bin *b)
{
	struct embed_dso *e = &b->e;
	const struct load_seg *g;
	size_t ng;
	int ret;

	e->build_id_size = d->build_id_size;
	memcpy(e->build_id, d->build_id, d->build_id_size);
	ret = intern(b, d->path, &e->path);
	if (ret)
		return ret;
	g = sym_dso_segs(d->sym, &ng);
	e->segs = calloc(ng ? ng : 1, sizeof(*e->segs));
	if (!e->segs)
		return -ENOMEM;
	for (size_t i = 0; i < ng; i++)
		e->segs[i] = (struct embed_seg){ g[i].offset, g[i].vaddr, g[i].filesz, g[i].memsz,
						 g[i].flags };
	e->nr_segs = (uint32_t)ng;
	if (e->nr_ranges && !unwinder_tables(load_unwinder(a->l), d, &e->eh_frame_hdr, &e->fde_count)) {
		e->eh_frame_hdr = e->fde_count = 0;
		e->nr_ranges = 0;
		buf_reset(&b->bytes);
	}
	return 0;
}

/* The build ids read from the files themselves, so that the report keys
 * those binaries by them too. */
static int write_learned_ids(struct arch *a, struct container_writer *w, struct err *err)
{
	struct build_id_entry *e = calloc(a->nr_bins ? a->nr_bins : 1, sizeof(*e));
	struct buf b = BUF_INIT;
	size_t n = 0;
	int ret;

	if (!e)
		return err_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < load_machine(a->l)->nr_dsos; i++) {
		struct dso *d = load_machine(a->l)->dsos[i];

		if (d->idx >= a->nr_bins || !a->bins[d->idx].learned_id || !a->bins[d->idx].e.nr_addrs)
			continue;
		e[n].size = d->build_id_size;
		memcpy(e[n].id, d->build_id, d->build_id_size);
		e[n++].path = d->path;
	}
	ret = n ? build_ids_encode(e, n, &b) : 0;
	if (ret)
		ret = err_set(err, ret, "out of memory");
	else if (n)
		ret = container_write_block(w, BLOCK_BUILD_IDS, b.data, b.len, err);
	buf_free(&b);
	free(e);
	return ret;
}

/* The file offset of a vaddr through b's segments. */
static bool vaddr_offset(const struct embed_dso *e, uint64_t vaddr, uint64_t *off)
{
	for (uint32_t i = 0; i < e->nr_segs; i++)
		if (vaddr >= e->segs[i].vaddr && vaddr - e->segs[i].vaddr < e->segs[i].filesz) {
			*off = e->segs[i].offset + (vaddr - e->segs[i].vaddr);
			return true;
		}
	return false;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static bool same_frames(const struct sym_frame *a, size_t na, const struct sym_frame *b,
			size_t nb)
{
	if (na != nb)
		return false;
	for (size_t i = 0; i < na; i++)
		if (a[i].line != b[i].line || !same_str(a[i].function, b[i].function) ||
		    !same_str(a[i].file, b[i].file))
			return false;
	return true;
}

/* What embed_code_add asks of a function before taking its code: its line
 * rows added first (FORMAT.md 5.8.1), within EMBED_CODE_ROWS_MAX. */
struct rows_ctx {
	struct arch *a;
	struct dso *d;
	struct bin *b;
	uint32_t hits;          /* the hit addresses: b's first ones, sorted */
	size_t rows;            /* row entries added */
};

/* The source position at every line-table row of function s that changes
 * it: a reader takes an instruction's position from the row at or before
 * it, as `prep annotate` shows every instruction's. 1 taken, 0 too many
 * rows, or an error. */
static int admit_rows(void *ctx, const struct embed_sym *s)
{
	struct rows_ctx *rc = ctx;
	struct embed_dso *e = &rc->b->e, sorted;
	struct symbolizer *sz = load_symbolizer(rc->a->l);
	const struct sym_frame *prev = NULL;
	size_t n = 0, nprev = SIZE_MAX;
	uint64_t *rows = NULL, off;
	int ret = sym_dso_line_rows(sz, rc->d->sym, s->start, s->start + s->size, &rows, &n);

	if (!ret && rc->rows + n > EMBED_CODE_ROWS_MAX) {
		free(rows);
		return 0;
	}
	for (size_t k = 0; !ret && k < n; k++) {
		const struct sym_frame *fr = NULL;
		struct sym_info none = { 0 };
		size_t nfr = 0;

		sorted = *e;
		sorted.nr_addrs = rc->hits;
		if (embed_find_addr(&sorted, rows[k]) || !vaddr_offset(e, rows[k], &off)) {
			nprev = SIZE_MAX;
			continue;
		}
		ret = sym_dso_srcline(sz, rc->d->sym, off, &fr, &nfr);
		/* a row that changes nothing: the one before serves */
		if (ret || same_frames(fr, nfr, prev, nprev))
			continue;
		prev = fr;
		nprev = nfr;
		ret = add_addr(rc->b, rows[k], &none, fr, nfr);
		rc->rows++;
	}
	free(rows);
	return ret ? ret : 1;
}

/* x86-64: the functions the embedded code calls or jumps to (rel32 call
 * and jmp, e8/e9), so that an annotation names its call targets without the
 * binary (FORMAT.md 5.8.1). Every byte is tried as an opcode: a false match
 * can only add a real symbol of the binary, one that starts at the target. */
static int bin_targets(struct arch *a, struct dso *d, struct bin *b)
{
#if defined(__x86_64__)
	struct embed_dso *e = &b->e;
	uint32_t nsyms = e->nr_syms;
	int ret = 0;

	for (uint32_t i = 0; !ret && i < nsyms; i++) {
		const struct embed_sym s = e->syms[i];
		const uint8_t *c = s.size ? embed_find_bytes(e, s.start, s.size) : NULL;

		for (uint64_t k = 0; c && !ret && k + 5 <= s.size; k++) {
			uint32_t rel = (uint32_t)c[k + 1] | (uint32_t)c[k + 2] << 8 |
				       (uint32_t)c[k + 3] << 16 | (uint32_t)c[k + 4] << 24;
			uint64_t t = s.start + k + 5 + (uint64_t)(int64_t)(int32_t)rel, off;
			struct sym_info si;

			if ((c[k] != 0xe8 && c[k] != 0xe9) || t - s.start < s.size ||
			    !vaddr_offset(e, t, &off))
				continue;
			ret = sym_dso_lookup(load_symbolizer(a->l), d->sym, off, &si);
			if (ret || !si.name || si.start != t)
				continue;
			if (array_grow((void **)&e->syms, &b->cap_syms, e->nr_syms + 1, sizeof(*e->syms)))
				return -ENOMEM;
			e->syms[e->nr_syms] = (struct embed_sym){ si.start, si.size, 0 };
			ret = intern(b, si.name, &e->syms[e->nr_syms++].name);
		}
	}
	return ret;
#else
	(void)a;
	(void)d;
	(void)b;
	return 0;
#endif
}

/* The code of the functions hit (embed_code.h), added to b's ranges, with
 * their line rows and the functions they call; then b sorted again. */
static int bin_code(struct arch *a, struct dso *d, struct bin *b, struct embed_stats *st)
{
	struct embed_code_stats cs = { 0 };
	struct rows_ctx rc = { a, d, b, b->e.nr_addrs, 0 };
	int ret;

	st->unwind_bytes += b->e.bytes_len;
	ret = embed_code_add(&b->e, &b->bytes, &b->cap_ranges,
			     d->sym ? sym_dso_found_binary(d->sym) : NULL, &cs, admit_rows, &rc);
	if (!ret)
		ret = bin_targets(a, d, b);
	bin_finish(b);
	st->code_functions += cs.functions;
	st->code_bytes += cs.bytes;
	st->code_left_out += cs.too_big + cs.over_budget + cs.unreadable;
	return ret;
}

/* --embed-source: the SOURCE block, from the file and line of every frame
 * of every hit address. Written before the SYMBOLS blocks, so that those
 * still end the file (prep archive replaces them). */
static int write_source(struct arch *a, struct container_writer *w, struct embed_stats *st,
			struct err *err)
{
	struct embed_source_hit *h = NULL;
	struct embed_source_stats ss = { 0 };
	struct buf payload = BUF_INIT;
	size_t n = 0, cap = 0;
	int ret = 0;

	for (size_t i = 0; !ret && i < a->nr_bins; i++) {
		const struct bin *b = &a->bins[i];

		for (uint32_t j = 0; !ret && j < b->e.nr_frames; j++) {
			const struct embed_frame *f = &b->e.frames[j];

			if (f->file == EMBED_NONE || !f->line)
				continue;
			if (array_grow((void **)&h, &cap, n + 1, sizeof(*h)))
				ret = -ENOMEM;
			else
				h[n++] = (struct embed_source_hit){
					(const char *)b->strings.data + f->file, f->line };
		}
	}
	ret = ret ? ret : embed_source_build(h, n, &payload, &ss);
	if (ret)
		err_set(err, ret, "cannot embed the source lines: %s", ret == -ENOMEM ?
			"out of memory" : "too large");
	else if (payload.len)
		ret = container_write_block(w, BLOCK_SOURCE, payload.data, payload.len, err);
	st->source_files = ss.files;
	st->source_lines = ss.lines;
	st->source_unreadable = ss.unreadable;
	st->source_left_out = ss.left_out;
	free(h);
	buf_free(&payload);
	return ret;
}

/* The samples per sampled address (FORMAT.md 5.11), counted from the file
 * as it is up to here; nothing when they do not fit the block. */
static int write_counts(struct arch *a, struct container_writer *w, struct embed_stats *st,
			struct err *err)
{
	struct buf b = BUF_INIT;
	uint64_t end;
	uint32_t crc;
	int ret = container_writer_crc(w, &end, &crc, err);

	if (!ret) {
		ret = addr_hits_encode(&a->hits, end, crc, &b);
		if (ret == -ENOMEM)
			err_set(err, ret, "out of memory");
		else if (!ret)
			ret = container_write_block(w, BLOCK_ADDR_COUNTS, b.data, b.len, err);
		else
			ret = 0;
	}
	st->counted_addresses = b.len ? a->hits.nr : 0;
	buf_free(&b);
	return ret;
}

/* The samples summed by class (FORMAT.md 5.12), covering the file as it
 * is up to here. */
static int write_sums(struct arch *a, struct container_writer *w, struct embed_stats *st,
		      struct err *err)
{
	uint64_t end;
	uint32_t crc;
	int ret = container_writer_crc(w, &end, &crc, err);

	/* nor when it would be more than the bytes it stands for (its
	 * records deflate to an eighth or so: the file grows by some per
	 * cent), unless it is small whatever the file */
	if (ret || (a->sums->len > end && a->sums->len > SUMS_SMALL_BYTES))
		return ret;
	samplesums_cover(a->sums, end, crc);
	ret = container_write_block(w, BLOCK_SAMPLE_SUMS, a->sums->data, a->sums->len, err);
	if (!ret)
		st->summed_records = samplesums_nr_items(a->sums);
	return ret;
}

static int write_blocks(struct arch *a, const char *path, const struct embed_opts *o,
			struct embed_stats *st, struct err *err)
{
	struct container_writer_opts wo = { .level = o ? o->level : -1 };
	struct container_writer *w;
	struct buf payload = BUF_INIT;
	struct stat before, after;
	int ret;

	if (stat(path, &before))
		before.st_size = 0;
	ret = container_writer_append(&w, path, &wo, BLOCK_SYMBOLS, BLOCK_ADDR_COUNTS,
				      BLOCK_SAMPLE_SUMS, err);
	if (ret)
		return ret;
	if (a->kallsyms.len)
		ret = container_write_block(w, BLOCK_KALLSYMS, a->kallsyms.data, a->kallsyms.len, err);
	if (!ret)
		ret = write_learned_ids(a, w, err);
	if (!ret && o && o->embed_source)
		ret = write_source(a, w, st, err);
	if (!ret && a->sums)
		ret = write_sums(a, w, st, err);
	if (!ret && a->count_hits)
		ret = write_counts(a, w, st, err);
	for (size_t i = 0; !ret && i < load_machine(a->l)->nr_dsos; i++) {
		struct dso *d = load_machine(a->l)->dsos[i];
		struct bin *b = &a->bins[d->idx];

		if (!b->e.nr_addrs)
			continue;
		ret = bin_identity(a, d, b);
		if (ret) {
			err_set(err, ret, "out of memory");
			break;
		}
		bin_finish(b);
		ret = bin_code(a, d, b, st);
		if (ret) {
			err_set(err, ret, "%s: cannot embed its code", d->path);
			break;
		}
		buf_reset(&payload);
		ret = embed_encode(&b->e, &payload);
		if (ret) {
			err_set(err, ret, "%s: cannot encode its symbols", d->path);
			break;
		}
		ret = container_write_block(w, BLOCK_SYMBOLS, payload.data, payload.len, err);
		st->binaries++;
		st->addresses += b->e.nr_addrs;
		st->symbols += b->e.nr_syms;

		st->bytes += payload.len;
	}
	buf_free(&payload);
	if (ret) {
		/* the old index is gone: close with a new one over what was written */
		struct err e2;

		container_writer_close(w, &e2);
		return ret;
	}
	ret = container_writer_close(w, err);
	if (!ret && !stat(path, &after))
		st->file_growth = after.st_size > before.st_size ?
				  (uint64_t)(after.st_size - before.st_size) : 0;
	return ret;
}

/* What was read is a file blocks can be added to (s NULL: nothing read). */
static int check_readable(const struct session *s, const char *path, struct err *err)
{
	if (s && !s->cstats->finished)
		return err_set(err, -EINVAL, "%s did not finish cleanly (no index): "
			       "nothing can be added to it", path);
	if (s && (s->header.flags & CONTAINER_FLAG_STREAM))
		return err_set(err, -EINVAL, "%s is a saved stream (prec -o -): it has no index to "
			       "add blocks after", path);
	if (s && s->header.kind != CONTAINER_KIND_SAMPLES)
		return err_set(err, -EINVAL, "%s is a counting recording: nothing to embed", path);
	return 0;
}

static void arch_free(struct arch *a)
{
	for (size_t i = 0; i < a->nr_bins; i++)
		bin_free(&a->bins[i]);
	free(a->bins);
	free(a->words);
	buf_free(&a->kallsyms);
	hmap_free(&a->word_idx);
	hist_free(&a->h);
	addr_hits_free(&a->hits);
	load_free(a->l);
}

int embed_binaries_hit(const char *path, const struct embed_opts *o, struct embed_stats *st,
		       struct err *err)
{
	struct arch a;
	struct hist_opts ho = { .keys = { SORT_SYM }, .nr_keys = 1, .inline_frames = false };
	struct load_opts lo = {
		.nr_inputs = 1, .quiet = o && o->quiet, .symfs = o ? o->symfs : NULL,
		.no_embedded = true,    /* what is embedded now is being replaced */
		.no_kallsyms = true,    /* kernel symbols are not embedded */
	};
	const struct session *s0;
	struct embed_stats dummy;
	bool had, want = false;
	int ret;

	if (!st)
		st = &dummy;
	memset(st, 0, sizeof(*st));
	lo.inputs[0] = path;
	memset(&a, 0, sizeof(a));
	ho.symfs = lo.symfs;
	a.l = load_new(&lo, err);
	ret = a.l ? 0 : -EINVAL;
	if (!ret && hist_init(&a.h, &ho, load_machine(a.l), load_symbolizer(a.l)))
		ret = err_set(err, -ENOMEM, "out of memory");
	if (ret)
		goto out;
	unwinder_set_trace(load_unwinder(a.l), on_word, &a);
	if (load_build_sums(a.l))
		ret = err_set(err, -ENOMEM, "out of memory");
	/* the samples into the histogram (the frames to embed), then counted
	 * at their sampled addresses (the ADDR_COUNTS block) */
	if (!ret)
		ret = load_run_hist(a.l, &a.h, err);
	if (!ret)
		ret = check_readable(load_session(a.l, 0), path, err);
	if (!ret && (addr_hits_from_hist(&a.hits, &a.h) || addr_hits_freeze(&a.hits, a.l)))
		ret = err_set(err, -ENOMEM, "out of memory");
	if (ret)
		goto out;
	s0 = load_session(a.l, 0);
	a.count_hits = s0 && !s0->warnings && !s0->early_damaged;
	/* the samples summed, from the same clean reading */
	if (!a.count_hits || load_sums_payload(a.l, &a.sums) != 1)
		a.sums = NULL;
	ret = gather(&a, lo.symfs, st);
	if (ret) {
		err_set(err, ret, "out of memory");
		goto out;
	}
	had = s0 && s0->nr_embeds;
	if (s0 && !s0->kallsyms &&
	    (ret = embed_kernel_hit(&a.h, load_symbolizer(a.l), &a.kallsyms))) {
		err_set(err, ret, "out of memory");
		goto out;
	}
	want = a.kallsyms.len > 0 || (a.count_hits && a.hits.nr) || a.sums;
	for (size_t i = 0; !want && i < a.nr_bins; i++)
		want = a.bins[i].e.nr_addrs > 0;
	/* the reading is done: the file may now be changed under the mapping */
	load_close_inputs(a.l);
	if (want || had)
		ret = write_blocks(&a, path, o, st, err);
out:
	arch_free(&a);
	return ret;
}
