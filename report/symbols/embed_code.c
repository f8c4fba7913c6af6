/* SPDX-License-Identifier: MIT */
/*
 * The code bytes of sampled functions in a binary's SYMBOLS data: the
 * bound, reading them from the binary, joining them with the unwind-table
 * ranges, and finding them again; see embed_code.h.
 */
#include "embed_code.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols_elf.h"

bool embed_code_take(uint64_t size, uint64_t *used, struct embed_code_stats *st)
{
	struct embed_code_stats dummy;

	if (!st)
		st = &dummy;
	if (!size)
		return false;
	if (size > EMBED_CODE_FN_MAX) {
		st->too_big++;
		return false;
	}
	if (*used + size > EMBED_CODE_BIN_MAX) {
		st->over_budget++;
		return false;
	}
	*used += size;
	return true;
}

static int cmp_piece(const void *pa, const void *pb)
{
	const struct embed_code_piece *a = pa, *b = pb;

	if (a->vaddr != b->vaddr)
		return a->vaddr < b->vaddr ? -1 : 1;
	return a->len > b->len ? -1 : a->len < b->len;
}

int embed_code_merge(struct embed_dso *e, struct buf *bytes, size_t *cap,
		     const struct embed_code_piece *p, size_t n)
{
	size_t total = e->nr_ranges + n, nr = 0, cap2 = 0;
	struct embed_code_piece *all = malloc((total ? total : 1) * sizeof(*all));
	struct embed_range *ranges = NULL;
	struct buf out = BUF_INIT;
	uint64_t end = 0;
	int ret = all ? 0 : -ENOMEM;

	for (uint32_t i = 0; !ret && i < e->nr_ranges; i++)
		all[i] = (struct embed_code_piece){ e->ranges[i].vaddr, e->ranges[i].len,
						    bytes->data + e->ranges[i].data };
	if (!ret && n)
		memcpy(all + e->nr_ranges, p, n * sizeof(*p));
	if (!ret && total > 1)
		qsort(all, total, sizeof(*all), cmp_piece);
	for (size_t i = 0; !ret && i < total; i++) {
		const struct embed_code_piece *q = &all[i];
		uint64_t q_end = q->vaddr + q->len, skip = 0;

		if (!q->len || q_end < q->vaddr)
			continue;
		if (nr && q->vaddr <= end) {
			if (q_end <= end)
				continue;
			skip = end - q->vaddr;
			if ((uint64_t)ranges[nr - 1].len + (q->len - skip) > UINT32_MAX)
				ret = -E2BIG;
			else
				ranges[nr - 1].len += (uint32_t)(q->len - skip);
		} else if (out.len > UINT32_MAX) {
			ret = -E2BIG;
		} else if (array_grow((void **)&ranges, &cap2, nr + 1, sizeof(*ranges))) {
			ret = -ENOMEM;
		} else {
			ranges[nr++] = (struct embed_range){ q->vaddr, q->len, (uint32_t)out.len };
		}
		if (!ret && buf_append(&out, q->data + skip, q->len - skip))
			ret = -ENOMEM;
		end = q_end;
	}
	if (!ret && out.len > UINT32_MAX)
		ret = -E2BIG;
	free(all);
	if (ret) {
		free(ranges);
		buf_free(&out);
		return ret;
	}
	free(e->ranges);
	e->ranges = ranges;
	e->nr_ranges = (uint32_t)nr;
	*cap = cap2;
	buf_free(bytes);
	*bytes = out;
	e->bytes = bytes->data;
	e->bytes_len = (uint32_t)bytes->len;
	return 0;
}

/* The file offset of [vaddr, vaddr + len) when one segment's file bytes
 * hold all of it. */
static bool file_offset(const struct load_seg *g, size_t ng, uint64_t vaddr, uint64_t len,
			uint64_t *off)
{
	for (size_t i = 0; i < ng; i++)
		if (vaddr >= g[i].vaddr && vaddr - g[i].vaddr <= g[i].filesz &&
		    len <= g[i].filesz - (vaddr - g[i].vaddr)) {
			*off = g[i].offset + (vaddr - g[i].vaddr);
			return true;
		}
	return false;
}

/* Read the functions within the bound into code, one piece each (data
 * offsets into code until the reading is done). */
static int read_functions(const struct embed_dso *e, int fd, const struct load_seg *g, size_t ng,
			  struct buf *code, struct embed_code_piece *pc, size_t *npc,
			  struct embed_code_stats *st, embed_code_admit_fn admit, void *ctx)
{
	uint64_t used = 0, covered = 0;
	int ret;

	for (uint32_t i = 0; i < e->nr_syms; i++) {
		const struct embed_sym *s = &e->syms[i];
		uint64_t off;
		size_t at = code->len;

		if (!s->size || s->start + s->size <= covered)
			continue;       /* no extent, or inside one taken already */
		if (!embed_code_take(s->size, &used, st))
			continue;
		ret = admit ? admit(ctx, s) : 1;
		if (ret < 0)
			return ret;
		if (!ret) {
			used -= s->size;
			st->over_budget++;
			continue;
		}
		if (buf_reserve(code, s->size))
			return -ENOMEM;
		if (!file_offset(g, ng, s->start, s->size, &off) ||
		    pread(fd, code->data + at, s->size, (off_t)off) != (ssize_t)s->size) {
			used -= s->size;
			st->unreadable++;
			continue;
		}
		code->len += s->size;
		pc[(*npc)++] = (struct embed_code_piece){ s->start, (uint32_t)s->size,
							  (const uint8_t *)(uintptr_t)at };
		covered = s->start + s->size;
		st->functions++;
		st->bytes += s->size;
	}
	return 0;
}

int embed_code_add(struct embed_dso *e, struct buf *bytes, size_t *cap, const char *bin_path,
		   struct embed_code_stats *st, embed_code_admit_fn admit, void *ctx)
{
	struct embed_code_piece *pc = NULL;
	struct load_seg *g = NULL;
	struct buf code = BUF_INIT;
	uint8_t id[SYM_BUILD_ID_MAX];
	size_t ng = 0, npc = 0;
	int fd = -1, ret = 0;
	Elf *elf;

	elf_version(EV_CURRENT);
	elf = bin_path ? elf_open_path(bin_path, &fd) : NULL;
	if (!elf || elf_build_id(elf, id) != e->build_id_size ||
	    memcmp(id, e->build_id, e->build_id_size)) {
		for (uint32_t i = 0; i < e->nr_syms; i++)
			st->unreadable += e->syms[i].size > 0;
		elf_close(elf, fd);
		return 0;
	}
	ret = elf_load_segs(elf, &g, &ng);
	pc = ret ? NULL : malloc((e->nr_syms ? e->nr_syms : 1) * sizeof(*pc));
	if (!ret && !pc)
		ret = -ENOMEM;
	ret = ret ? ret : read_functions(e, fd, g, ng, &code, pc, &npc, st, admit, ctx);
	for (size_t i = 0; !ret && i < npc; i++)
		pc[i].data = code.data + (uintptr_t)pc[i].data;
	ret = ret ? ret : embed_code_merge(e, bytes, cap, pc, npc);
	elf_close(elf, fd);
	free(g);
	free(pc);
	buf_free(&code);
	return ret;
}

size_t embed_code_find(const struct embed_list *l, const uint8_t *id, size_t id_size,
		       uint64_t vaddr, size_t n, const uint8_t **out)
{
	const struct embed_dso *d = id_size ? embed_list_find(l, id, id_size, NULL) : NULL;
	size_t lo = 0, hi = d ? d->nr_ranges : 0;
	const struct embed_range *r;
	uint64_t in;

	*out = NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->ranges[mid].vaddr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return 0;
	r = &d->ranges[lo - 1];
	in = vaddr - r->vaddr;
	if (in >= r->len)
		return 0;
	*out = d->bytes + r->data + in;
	return r->len - in < n ? (size_t)(r->len - in) : n;
}

/* The symbol of e covering vaddr (the greatest start at or below it that
 * covers it), or NULL. */
static const struct embed_sym *sym_at(const struct embed_dso *e, uint64_t vaddr)
{
	size_t lo = 0, hi = e->nr_syms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (e->syms[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0)
		if (vaddr - e->syms[lo].start < e->syms[lo].size)
			return &e->syms[lo];
	return NULL;
}

const struct embed_addr *embed_code_addr(const struct embed_dso *e, uint64_t vaddr)
{
	const struct embed_addr *a = embed_find_addr(e, vaddr);
	const struct embed_sym *s;
	size_t lo = 0, hi = e->nr_addrs;

	if (a || !(s = sym_at(e, vaddr)) || !embed_find_bytes(e, s->start, s->size))
		return a;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (e->addrs[mid].vaddr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && e->addrs[lo - 1].vaddr >= s->start ? &e->addrs[lo - 1] : NULL;
}
