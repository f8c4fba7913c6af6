/* SPDX-License-Identifier: MIT */
/*
 * What the reading core takes from a file about its binaries: the SYMBOLS
 * blocks of prec.data files (one entry per binary, merged across files),
 * the build ids a file names, and for a perf.data the symbols of those
 * binaries read ahead on a thread while its samples are walked.
 */
#include "load_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/blocks.h"

/* Apply the build ids of the file's BUILD_IDS blocks to dsos without one. */
void load_apply_build_ids(struct load *l, const struct session *s)
{
	for (size_t i = 0; i < s->nr_build_ids; i++) {
		const struct build_id_entry *e = &s->build_ids[i];
		struct dso *d = machine_dso(&l->machine, e->path);

		if (d && !d->sym)
			machine_dso_build_id(d, e->id, e->size);
	}
}

static bool same_binary(const struct embed_dso *a, const struct embed_dso *b)
{
	return a->build_id_size == b->build_id_size &&
	       !memcmp(a->build_id, b->build_id, a->build_id_size);
}

/* A merged entry replaces *slot (and is kept until load_free). */
static int merge_into(struct load *l, struct embed_dso **slot, const struct embed_dso *e)
{
	struct embed_dso **grown, *m;
	int ret = embed_merge(*slot, e, &m);

	if (ret)
		return ret == -ENOMEM ? ret : 0;        /* too large: the first file's data serve */
	grown = array_realloc(l->merged, l->nr_merged + 1, sizeof(*grown));
	if (!grown) {
		embed_free(m);
		return -ENOMEM;
	}
	l->merged = grown;
	l->merged[l->nr_merged++] = m;
	*slot = m;
	return 0;
}

/* Take a file's SYMBOLS data into l->embeds, one entry per build id: a
 * binary that an earlier file embedded too gets the data of both, so that
 * the hit addresses of each file are served. 0 or -ENOMEM. */
int load_take_embeds(struct load *l, const struct session *s)
{
	for (size_t i = 0; i < s->nr_embeds; i++) {
		struct embed_dso *e = s->embeds[i], **slot = NULL, **grown;

		for (size_t j = 0; j < l->nr_embeds && !slot; j++)
			if (same_binary(l->embeds[j], e))
				slot = &l->embeds[j];
		if (slot) {
			if (merge_into(l, slot, e))
				return -ENOMEM;
			continue;
		}
		grown = array_realloc(l->embeds, l->nr_embeds + 1, sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		l->embeds = grown;
		l->embeds[l->nr_embeds++] = e;
	}
	return 0;
}

/* The binaries of a perf.data's build ids (those perf saw samples in),
 * their symbols read on a thread while the file is walked. */
void load_prefetch_symbols(struct load *l, const struct session *s)
{
	struct sym_dso *v[64];
	size_t n = 0;

	for (size_t i = 0; i < s->nr_build_ids && n < 64; i++) {
		const struct build_id_entry *e = &s->build_ids[i];
		struct dso *d = (e->flags & BUILD_ID_FLAG_KERNEL) ? NULL :
				machine_dso(&l->machine, e->path);

		if (d && !d->kernel && !d->anon && d->path[0] == '/' &&
		    (v[n] = dso_sym(l->sym, l->opts.symfs, d)))
			n++;
	}
	/* out of memory: each is read when asked, as without it */
	(void)symbolizer_prefetch_symbols(l->sym, v, n);
}
