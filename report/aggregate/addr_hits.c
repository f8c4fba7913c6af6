/* SPDX-License-Identifier: MIT */
/* Samples counted per sampled address; see addr_hits.h. */
#include "addr_hits.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/addrcounts.h"
#include "hist.h"

struct addr_bin {
	const char *path;       /* the machine model's (valid as long as it is) */
	uint8_t build_id[64];
	uint8_t build_id_size;
};

void addr_hits_free(struct addr_hits *h)
{
	free(h->v);
	free(h->slots);
	free(h->bins);
	free(h->bin_of);
	free(h->file_events);
	memset(h, 0, sizeof(*h));
}

/* The table is asked once per sample: its own, with the key compared in
 * place (no callback), one mixing of the fields for a hash. */
static bool same_key(const struct addr_hit *a, const struct addr_hit *k)
{
	return a->off == k->off && a->dso == k->dso && a->event == k->event &&
	       a->kernel == k->kernel && a->ktab == k->ktab;
}

static size_t hit_hash(const struct addr_hit *k)
{
	uint64_t x = k->off * 0x9e3779b97f4a7c15ull ^ (uint64_t)(uintptr_t)k->dso ^
		     ((uint64_t)k->ktab << 40) ^ ((uint64_t)k->kernel << 39) ^ (uint64_t)k->event;

	return (size_t)hash_u64(x);
}

/* The slot of k: its entry's, or the empty one where it goes. */
static uint32_t *slot_of(const struct addr_hits *h, const struct addr_hit *k)
{
	for (size_t i = hit_hash(k) & (h->nr_slots - 1);; i = (i + 1) & (h->nr_slots - 1))
		if (!h->slots[i] || same_key(&h->v[h->slots[i] - 1], k))
			return &h->slots[i];
}

static int grow_slots(struct addr_hits *h)
{
	size_t n = h->nr_slots ? h->nr_slots * 2 : 1024;
	uint32_t *old = h->slots;

	h->slots = calloc(n, sizeof(*h->slots));
	if (!h->slots) {
		h->slots = old;
		return -ENOMEM;
	}
	h->nr_slots = n;
	for (size_t i = 0; i < h->nr; i++)
		*slot_of(h, &h->v[i]) = (uint32_t)i + 1;
	free(old);
	return 0;
}

/* Add count samples of total period to k's entry, made if new. */
static int hit_add(struct addr_hits *h, const struct addr_hit *k, uint64_t count,
		   uint64_t period)
{
	uint32_t *slot;
	struct addr_hit *e;

	if ((h->nr + 1) * 2 > h->nr_slots && grow_slots(h))
		return -ENOMEM;
	slot = slot_of(h, k);
	if (!*slot) {
		if (h->nr >= UINT32_MAX - 1 ||
		    array_grow((void **)&h->v, &h->cap, h->nr + 1, sizeof(*h->v)))
			return -ENOMEM;
		h->v[h->nr] = *k;
		h->v[h->nr].count = h->v[h->nr].period = 0;
		*slot = (uint32_t)++h->nr;
	}
	e = &h->v[*slot - 1];
	e->count += count;
	e->period += period;
	h->count[k->event] += count;
	h->period[k->event] += period;
	return 0;
}

int addr_hits_add_counted(struct addr_hits *h, const struct addr_hit *k, uint64_t count,
			  uint64_t period)
{
	if (k->event < 0 || k->event >= LOAD_MAX_EVENTS)
		return 0;
	return hit_add(h, k, count, period);
}

int addr_hits_add(struct addr_hits *h, struct load *l, const struct load_sample *s)
{
	struct addr_hit k = { .event = s->event };
	const struct map *m;
	uint64_t addr;

	if (!s->nr || s->event < 0 || s->event >= LOAD_MAX_EVENTS)
		return 0;
	load_sample_first_frame(s, &addr, &k.kernel);
	m = machine_find_map(load_machine(l), s->thread, addr, k.kernel);
	k.off = addr;
	if (k.kernel)
		k.ktab = s->kernel_table;
	else if (m && !m->dso->identity)
		k.off = addr - m->start + m->pgoff;
	if (m)
		k.dso = m->dso;
	return hit_add(h, &k, s->count, s->period);
}

int addr_hits_from_hist(struct addr_hits *h, const struct hist *hist)
{
	for (size_t i = 0; i < hist->nr_stacks; i++) {
		const struct stack *s = &hist->stacks[i];
		const struct frame *f;
		struct addr_hit k;

		if (!s->nr_frames || !s->count)
			continue;
		/* the stack's first frame is its sampled address, as
		 * addr_hits_add takes it (load_sample_first_frame) */
		f = &hist->frames[hist->frame_ids[s->first]];
		k = (struct addr_hit){ .dso = f->dso, .off = f->addr, .event = s->event,
				       .ktab = f->kernel ? f->ktab : 0, .kernel = f->kernel };
		if (addr_hits_add_counted(h, &k, s->count, s->period))
			return -ENOMEM;
	}
	return 0;
}

int addr_hits_from_counts(struct addr_hits *h, const struct load_counts *lc)
{
	const struct addrcounts *c = lc->c;

	for (uint32_t i = 0; i < c->nr_entries; i++) {
		const struct addrcounts_entry *e = &c->entries[i];
		struct addr_hit k = { .off = e->addr, .event = lc->events[e->event],
				      .kernel = e->flags & ADDRCOUNTS_KERNEL };

		/* a reading drops the samples of events it has no index for */
		if (k.event < 0 || k.event >= LOAD_MAX_EVENTS)
			continue;
		k.dso = e->dso == ADDRCOUNTS_NONE ? NULL : lc->dsos[e->dso];
		k.ktab = k.kernel ? 1 : 0;      /* the one file's kernel symbols */
		if (hit_add(h, &k, e->samples, e->period))
			return -ENOMEM;
	}
	return 0;
}

/* Each entry's event as the number of the first EVENT block of its name,
 * and each EVENT block's totals: 0, or -EINVAL when an event has no
 * number of its own here (past LOAD_MAX_EVENTS). */
static int freeze_events(struct addr_hits *h, const struct load *l)
{
	const struct session *s = load_session(l, 0);

	for (int j = 0; j < LOAD_MAX_EVENTS; j++)
		h->first[j] = UINT16_MAX;
	h->nr_file_events = s ? s->nr_events : 0;
	h->file_events = calloc(h->nr_file_events + 1, sizeof(*h->file_events));
	if (!h->file_events)
		return -ENOMEM;
	for (size_t i = 0; i < h->nr_file_events; i++) {
		int j = load_event_index(l, session_event_name(s, (int)i));

		if (i >= LOAD_MAX_EVENTS || j < 0 || j >= LOAD_MAX_EVENTS)
			return -EINVAL;
		if (h->first[j] != UINT16_MAX)
			continue;
		h->first[j] = (uint16_t)i;
		h->file_events[i] = (struct addrcounts_event){ h->count[j], h->period[j] };
	}
	for (size_t i = 0; i < h->nr; i++)
		if (h->first[h->v[i].event] == UINT16_MAX)
			return -EINVAL;
	return 0;
}

int addr_hits_freeze(struct addr_hits *h, const struct load *l)
{
	const struct machine *m = load_machine((struct load *)l);
	int ret;

	h->nr_bin_of = m->nr_dsos;
	h->bin_of = calloc(m->nr_dsos + 1, sizeof(*h->bin_of));
	h->bins = calloc(m->nr_dsos + 1, sizeof(*h->bins));
	if (!h->bin_of || !h->bins)
		return -ENOMEM;
	for (size_t i = 0; i < h->nr; i++)
		if (h->v[i].dso && h->v[i].dso->idx < m->nr_dsos)
			h->bin_of[h->v[i].dso->idx] = 1;
	if (m->kernel_dso)
		h->bin_of[m->kernel_dso->idx] = 1;
	/* in the machine model's order: dsos[i]->idx is i */
	for (size_t i = 0; i < m->nr_dsos; i++) {
		const struct dso *d = m->dsos[i];
		struct addr_bin *b = &h->bins[h->nr_bins];

		if (!h->bin_of[i])
			continue;
		b->path = d->path;
		b->build_id_size = d->build_id_size;
		memcpy(b->build_id, d->build_id, d->build_id_size);
		h->bin_of[i] = (uint32_t)++h->nr_bins;
	}
	ret = freeze_events(h, l);
	h->unfit = ret == -EINVAL;
	return ret == -EINVAL ? 0 : ret;
}

int addr_hits_encode(const struct addr_hits *h, uint64_t covered_end, uint32_t covered_crc,
		     struct buf *out)
{
	struct addrcounts c = { .covered_end = covered_end, .covered_crc = covered_crc };
	struct buf strings = BUF_INIT;
	int ret = -ENOMEM;

	if (h->unfit || !h->file_events)
		return -EINVAL;
	c.events = h->file_events;
	c.nr_events = (uint32_t)h->nr_file_events;
	c.nr_dsos = (uint32_t)h->nr_bins;
	c.nr_entries = (uint32_t)h->nr;
	c.dsos = calloc(c.nr_dsos + 1, sizeof(*c.dsos));
	c.entries = calloc(c.nr_entries + 1, sizeof(*c.entries));
	if (!c.dsos || !c.entries)
		goto out;
	ret = 0;
	for (uint32_t i = 0; !ret && i < c.nr_dsos; i++) {
		c.dsos[i].path = (uint32_t)strings.len;
		c.dsos[i].build_id_size = h->bins[i].build_id_size;
		memcpy(c.dsos[i].build_id, h->bins[i].build_id, sizeof(c.dsos[i].build_id));
		ret = buf_append(&strings, h->bins[i].path, strlen(h->bins[i].path) + 1);
	}
	for (uint32_t i = 0; !ret && i < c.nr_entries; i++) {
		const struct addr_hit *x = &h->v[i];
		uint32_t b = x->dso && x->dso->idx < h->nr_bin_of ? h->bin_of[x->dso->idx] : 0;

		c.entries[i] = (struct addrcounts_entry){
			x->off, x->count, x->period, b ? b - 1 : ADDRCOUNTS_NONE, h->first[x->event],
			x->kernel ? ADDRCOUNTS_KERNEL : 0 };
	}
	c.strings = (const char *)strings.data;
	c.strings_len = (uint32_t)strings.len;
	if (!ret)
		ret = addrcounts_encode(&c, out);
out:
	free(c.dsos);
	free(c.entries);
	buf_free(&strings);
	return ret;
}
