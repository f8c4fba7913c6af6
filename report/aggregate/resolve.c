/* SPDX-License-Identifier: MIT */
/*
 * Naming the hist's frames: symbols once per unique (dso, address), one id
 * per function, source lines lazily from DWARF (opened early on a thread
 * when the options will want it); see hist.h.
 */
#include "hist.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"

struct symid_key {
	struct hist *h;
	const struct dso *dso;
	uint64_t start;
	const char *name;
};

/* a function: its dso, start and name (two files' kernel tables may name
 * one address differently) */
struct symid_rec {
	const struct dso *dso;
	uint64_t start;
	const char *name;       /* NULL: unresolved */
};

static bool symid_eq(void *ctx, uint32_t idx)
{
	const struct symid_key *k = ctx;

	const struct symid_rec *r = &k->h->symids[idx];

	return r->dso == k->dso && r->start == k->start && r->name == k->name;
}

static int sym_id(struct hist *h, const struct dso *d, uint64_t start, const char *name,
		  uint32_t *id)
{
	struct symid_key k = { h, d, start, name };
	uint64_t hv = hash_combine(hash_combine(hash_u64(start), (uintptr_t)d), (uintptr_t)name);

	if (hmap_find(&h->sym_idx, hv, symid_eq, &k, id))
		return 0;
	if (array_grow((void **)&h->symids, &h->cap_symids, h->nr_sym_ids + 1, sizeof(*h->symids)) ||
	    hmap_insert(&h->sym_idx, hv, h->nr_sym_ids))
		return -ENOMEM;
	h->symids[h->nr_sym_ids] = (struct symid_rec){ d, start, name };
	*id = h->nr_sym_ids++;
	return 0;
}

struct sym_dso *dso_sym(struct symbolizer *s, const char *symfs, struct dso *d)
{
	char path[4096];

	if (d->sym)
		return d->sym;
	if (symfs && *symfs && (size_t)snprintf(path, sizeof(path), "%s%s%s", symfs,
						d->path[0] == '/' ? "" : "/", d->path) < sizeof(path))
		d->sym = symbolizer_dso(s, path, d->build_id_size ? d->build_id : NULL,
					d->build_id_size);
	else
		d->sym = symbolizer_dso(s, d->path, d->build_id_size ? d->build_id : NULL,
					d->build_id_size);
	return d->sym;
}

static struct sym_dso *dso_handle(struct hist *h, struct dso *d)
{
	return dso_sym(h->sym, h->opts.symfs, d);
}

/* DWARF will be wanted (inline frames, source lines): open it on a thread
 * for every dso hit so far, while the rest of the work goes on here. Once:
 * dsos hit later open their DWARF when first asked. */
int hist_prefetch_dwarf(struct hist *h)
{
	bool want = h->opts.inline_frames && h->opts.callchain && h->chains_seen;
	struct sym_dso **v;
	size_t n = 0;
	int ret;

	if (h->dwarf_prefetched)
		return 0;
	h->dwarf_prefetched = true;
	want |= sort_keys_have(h->opts.keys, h->opts.nr_keys, SK_SRC);
	if (!want)
		return 0;
	v = calloc(h->machine->nr_dsos + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < h->nr_frames; i++) {
		struct dso *d = h->frames[i].dso;
		bool seen = false;

		if (!d || d->kernel || d->anon || !dso_handle(h, d))
			continue;
		for (size_t j = 0; j < n && !seen; j++)
			seen = v[j] == d->sym;
		if (!seen && n < h->machine->nr_dsos)
			v[n++] = d->sym;
	}
	ret = symbolizer_prefetch_dwarf(h->sym, v, n);
	free(v);
	return ret;
}

int hist_resolve(struct hist *h)
{
	int pf = hist_prefetch_dwarf(h);

	if (pf)
		return pf;
	for (size_t i = 0; i < h->nr_frames; i++) {
		struct frame *f = &h->frames[i];
		struct sym_info si = { 0 };
		int ret = 0;

		if (f->sym || f->sym_id)
			continue;
		if (f->kernel) {
			const char *module = NULL;

			ret = symbolizer_kernel_lookup_table(h->sym, f->ktab, f->addr, &si, &module);
			/* one name, one pointer, whichever table gave it */
			if (!ret && si.name && !(si.name = machine_intern(h->machine, si.name)))
				ret = -ENOMEM;
			if (!ret && module) {
				char name[128];

				snprintf(name, sizeof(name), "[%s]", module);
				f->module = machine_intern(h->machine, module);
				f->dso = machine_dso(h->machine, name);
				if (f->dso)
					f->dso->kernel = true;
			}
			si.addr = f->addr;
		} else if (f->dso && !f->dso->anon && dso_handle(h, f->dso)) {
			ret = sym_dso_lookup(h->sym, f->dso->sym, f->addr, &si);
		} else {
			si.addr = f->addr;
		}
		if (ret)
			return ret;
		f->sym = si.name;
		f->vaddr = si.addr;
		f->sym_start = si.name ? si.start : si.addr;
		if (sym_id(h, f->dso, f->sym_start, si.name, &f->sym_id))
			return -ENOMEM;
	}
	return 0;
}

void hist_frame_src(struct hist *h, struct frame *f)
{
	if (f->src_done)
		return;
	f->src_done = true;
	if (f->kernel || !f->dso || f->dso->anon || !dso_handle(h, f->dso))
		return;
	if (sym_dso_srcline(h->sym, f->dso->sym, f->addr, &f->inl, &f->nr_inl))
		f->nr_inl = 0;
}

const char *hist_srcline(struct hist *h, struct frame *f, bool basename_only)
{
	char buf[4096];

	hist_frame_src(h, f);
	if (f->nr_inl && f->inl[0].file) {
		const char *file = f->inl[0].file, *slash = strrchr(file, '/');

		if (basename_only && slash)
			file = slash + 1;
		snprintf(buf, sizeof(buf), "%s:%u", file, f->inl[0].line);
	} else if (f->sym) {
		/* no line: perf's sym+offset, in decimal */
		snprintf(buf, sizeof(buf), "%s+%llu", f->sym,
			 (unsigned long long)(f->vaddr - f->sym_start));
	} else {
		snprintf(buf, sizeof(buf), "%s[%llx]", f->dso ? f->dso->short_name : "[unknown]",
			 (unsigned long long)f->addr);
	}
	return machine_intern(h->machine, buf);
}
