/* SPDX-License-Identifier: MIT */
/* Histogram stacks to named frames, root first; see stacks.h. */
#include "stacks.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"

const char *sframe_kind_name(enum sframe_kind k)
{
	static const char *const names[SF_NR_KINDS] = {
		[SF_USER] = "user", [SF_LIB] = "lib", [SF_KERNEL] = "kernel",
		[SF_INLINE] = "inline", [SF_OTHER] = "other",
	};
	return (unsigned)k < SF_NR_KINDS ? names[k] : "other";
}

const char *sframe_dso_name(const struct sframe *f)
{
	if (!f->dso)
		return NULL;
	return f->dso->kernel ? f->dso->short_name : f->dso->path;
}

int stacks_pick_event(const struct load *l, const struct hist *h, const char *name,
		      struct err *err)
{
	if (name) {
		for (size_t e = 0; e < l->nr_events; e++)
			if (!strcmp(l->events[e], name))
				return (int)e;
		return err_set(err, -1, "no event '%s' in the input", name);
	}
	for (size_t e = 0; e < l->nr_events; e++)
		for (size_t i = 0; i < h->nr_stacks; i++)
			if (h->stacks[i].event == (int)e && h->stacks[i].nr_frames)
				return (int)e;
	return err_set(err, -1, "no samples");
}

void stacks_free(struct stacks *s)
{
	if (!s)
		return;
	free(s->frames);
	free(s->ids);
	free(s->stacks);
	hmap_free(&s->frame_idx);
	hmap_free(&s->stack_idx);
	memset(s, 0, sizeof(*s));
}

/* ---- frames ------------------------------------------------------------ */

struct sframe_key {
	const struct stacks *s;
	const struct sframe *f;
};

static bool sframe_eq(void *ctx, uint32_t idx)
{
	const struct sframe_key *k = ctx;
	const struct sframe *a = &k->s->frames[idx];

	return a->name == k->f->name && a->dso == k->f->dso && a->kind == k->f->kind;
}

/* The id of the frame (name interned), its file and lowest line updated. */
static int sframe_id(struct stacks *s, const struct sframe *f, uint32_t *id)
{
	struct sframe_key k = { s, f };
	uint64_t hv = hash_combine(hash_combine((uintptr_t)f->name, (uintptr_t)f->dso), f->kind);

	if (!hmap_find(&s->frame_idx, hv, sframe_eq, &k, id)) {
		if (array_grow((void **)&s->frames, &s->cap_frames, s->nr_frames + 1,
			       sizeof(*s->frames)) ||
		    hmap_insert(&s->frame_idx, hv, (uint32_t)s->nr_frames))
			return -ENOMEM;
		*id = (uint32_t)s->nr_frames;
		s->frames[s->nr_frames++] = *f;
		return 0;
	}
	if (f->line) {
		struct sframe *have = &s->frames[*id];

		if (!have->file)
			have->file = f->file;
		if (!have->line || f->line < have->line)
			have->line = f->line;
	}
	return 0;
}

static enum sframe_kind dso_kind(const struct frame *f)
{
	if (f->kernel)
		return SF_KERNEL;
	if (!f->dso || f->dso->anon)
		return SF_OTHER;
	return strstr(f->dso->short_name, ".so") ? SF_LIB : SF_USER;
}

/* "[name]" of the dso holding an unresolved address */
static const char *unresolved_name(struct hist *h, const struct frame *f)
{
	char buf[512];
	const char *n = f->dso ? f->dso->short_name : NULL;

	if (!n || !*n)
		return "[unknown]";
	if (n[0] == '[')
		return machine_intern(h->machine, n);
	snprintf(buf, sizeof(buf), "[%s]", n);
	return machine_intern(h->machine, buf);
}

/* Per histogram frame: its named frames, root first (the function, then
 * the functions inlined into it, outermost first). */
struct expansion {
	uint32_t *first;        /* per hist frame: offset in ids + 1, 0 = not yet */
	uint8_t *n;
	uint32_t *ids;
	size_t nr_ids, cap_ids;
};

static int push_id(struct expansion *x, uint32_t id)
{
	if (array_grow((void **)&x->ids, &x->cap_ids, x->nr_ids + 1, sizeof(*x->ids)))
		return -ENOMEM;
	x->ids[x->nr_ids++] = id;
	return 0;
}

static int expand(struct stacks *s, struct hist *h, const struct stacks_opts *o,
		  struct expansion *x, uint32_t fi)
{
	struct frame *f = &h->frames[fi];
	struct sframe sf = { .dso = f->dso, .kind = dso_kind(f), .resolved = f->sym != NULL };
	size_t start = x->nr_ids;
	uint32_t id;
	int ret;

	if (f->sym && !f->kernel && (o->inline_frames || o->src))
		hist_frame_src(h, f);
	if (f->sym) {
		const struct sym_frame *outer = f->nr_inl ? &f->inl[f->nr_inl - 1] : NULL;

		sf.name = machine_intern(h->machine, f->sym);
		if (!f->kernel && outer && outer->file) {
			if (!(sf.file = machine_intern(h->machine, outer->file)))
				return -ENOMEM;
			sf.line = outer->line;
		}
	} else {
		sf.name = unresolved_name(h, f);
	}
	if (!sf.name)
		return -ENOMEM;
	if ((ret = sframe_id(s, &sf, &id)) || (ret = push_id(x, id)))
		return ret;
	/* inlined functions: inl[nr-2] was inlined into the function, ...,
	 * inl[0] is the innermost; each with the line it is at */
	for (size_t i = f->nr_inl; o->inline_frames && f->sym && !f->kernel && i-- > 1;) {
		const struct sym_frame *in = &f->inl[i - 1];
		struct sframe is = { .dso = f->dso, .kind = SF_INLINE, .resolved = true,
				     .line = in->line };

		if (!in->function)
			continue;
		is.name = machine_intern(h->machine, in->function);
		is.file = in->file ? machine_intern(h->machine, in->file) : NULL;
		if (!is.name || (in->file && !is.file))
			return -ENOMEM;
		if ((ret = sframe_id(s, &is, &id)) || (ret = push_id(x, id)))
			return ret;
		if (x->nr_ids - start == 255)
			break;
	}
	x->first[fi] = (uint32_t)start + 1;
	x->n[fi] = (uint8_t)(x->nr_ids - start);
	return 0;
}

/* ---- stacks ------------------------------------------------------------ */

struct sstack_key {
	const struct stacks *s;
	const struct sstack *st;
	const uint32_t *ids;
};

static bool sstack_eq(void *ctx, uint32_t idx)
{
	const struct sstack_key *k = ctx;
	const struct sstack *a = &k->s->stacks[idx];

	return a->event == k->st->event && a->thread == k->st->thread && a->comm == k->st->comm &&
	       a->nr == k->st->nr &&
	       !memcmp(&k->s->ids[a->first], k->ids, a->nr * sizeof(*k->ids));
}

static int add_stack(struct stacks *s, const struct sstack *st, const uint32_t *ids)
{
	struct sstack_key k = { s, st, ids };
	uint64_t hv = hash_bytes(ids, st->nr * sizeof(*ids),
				 hash_combine(hash_combine((uint64_t)st->event, (uintptr_t)st->thread),
					      (uintptr_t)st->comm));
	uint32_t idx;

	if (!hmap_find(&s->stack_idx, hv, sstack_eq, &k, &idx)) {
		if (array_grow((void **)&s->ids, &s->cap_ids, s->nr_ids + st->nr, sizeof(*ids)) ||
		    array_grow((void **)&s->stacks, &s->cap_stacks, s->nr_stacks + 1,
			       sizeof(*s->stacks)) ||
		    hmap_insert(&s->stack_idx, hv, (uint32_t)s->nr_stacks))
			return -ENOMEM;
		memcpy(&s->ids[s->nr_ids], ids, st->nr * sizeof(*ids));
		idx = (uint32_t)s->nr_stacks;
		s->stacks[s->nr_stacks] = *st;
		s->stacks[s->nr_stacks].first = (uint32_t)s->nr_ids;
		s->stacks[s->nr_stacks].count = s->stacks[s->nr_stacks].period = 0;
		s->nr_ids += st->nr;
		s->nr_stacks++;
	}
	s->stacks[idx].count += st->count;
	s->stacks[idx].period += st->period;
	s->total_count += st->count;
	s->total_period += st->period;
	return 0;
}

int stacks_build(struct stacks *s, struct hist *h, const struct stacks_opts *o)
{
	struct expansion x = { 0 };
	uint32_t *tmp = NULL;
	size_t cap_tmp = 0;
	bool post = o->l && load_filters_frames(o->l);
	int ret = 0;

	memset(s, 0, sizeof(*s));
	x.first = calloc(h->nr_frames + 1, sizeof(*x.first));
	x.n = calloc(h->nr_frames + 1, sizeof(*x.n));
	if (!x.first || !x.n) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t si = 0; si < h->nr_stacks && !ret; si++) {
		const struct stack *hs = &h->stacks[si];
		struct sstack st = { .event = hs->event, .thread = hs->thread, .comm = hs->comm,
				     .count = hs->count, .period = hs->period };
		size_t n = 0;

		if ((o->event >= 0 && hs->event != o->event) || !hs->nr_frames)
			continue;
		if (post && !load_frame_wanted(o->l, &h->frames[h->frame_ids[hs->first]])) {
			s->dropped += hs->count;
			continue;
		}
		/* root first: the outermost caller is the last frame */
		for (uint32_t i = hs->nr_frames; i-- > 0 && !ret;) {
			uint32_t fi = h->frame_ids[hs->first + i];

			if (!x.first[fi] && (ret = expand(s, h, o, &x, fi)))
				break;
			if (array_grow((void **)&tmp, &cap_tmp, n + x.n[fi], sizeof(*tmp))) {
				ret = -ENOMEM;
				break;
			}
			memcpy(&tmp[n], &x.ids[x.first[fi] - 1], x.n[fi] * sizeof(*tmp));
			n += x.n[fi];
		}
		st.nr = (uint32_t)n;
		if (!ret)
			ret = add_stack(s, &st, tmp);
	}
out:
	free(tmp);
	free(x.first);
	free(x.n);
	free(x.ids);
	hmap_free(&s->frame_idx);
	hmap_free(&s->stack_idx);
	if (ret)
		stacks_free(s);
	return ret;
}
