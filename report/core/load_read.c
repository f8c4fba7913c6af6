/* SPDX-License-Identifier: MIT */
/*
 * Leader sampling ({a,b}:S) for the reading core: a sample that carries
 * its group's counts (PERF_SAMPLE_READ with ids) stands for one sample per
 * member, weighted by how much the member's counter grew since the
 * previous sample of the same id and thread. perf 6.1 keeps the last value
 * per id; with inheritance each thread has its own counters under the
 * parent's id, so the key here is (file, id, thread), which is perf's key
 * whenever a counter has one thread. Also the groups a perf.data file
 * describes in its header.
 */
#include "load_int.h"

#include <errno.h>
#include <stdlib.h>

#include "common/buf.h"
#include "common/cursor.h"
#include "format/blocks.h"
#include "format/perfdata.h"

struct read_last {
	uint64_t id;
	uint32_t file, tid;
	uint64_t value;
};

struct find_ctx {
	const struct read_deltas *d;
	const struct read_last *key;
};

static bool same(void *ctx, uint32_t idx)
{
	const struct find_ctx *f = ctx;
	const struct read_last *e = &f->d->v[idx];

	return e->id == f->key->id && e->file == f->key->file && e->tid == f->key->tid;
}

int read_deltas_step(struct read_deltas *d, size_t file, uint64_t id, uint32_t tid,
		     uint64_t value, uint64_t *delta)
{
	struct read_last key = { id, (uint32_t)file, tid, value };
	struct find_ctx f = { d, &key };
	uint64_t h = hash_combine(hash_combine(hash_u64(id), tid), file);
	uint32_t idx;

	if (hmap_find(&d->idx, h, same, &f, &idx)) {
		struct read_last *e = &d->v[idx];

		*delta = value >= e->value ? value - e->value : 0;
		e->value = value;
		return 0;
	}
	if (d->nr == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 64;
		struct read_last *v = array_realloc(d->v, cap, sizeof(*v));

		if (!v)
			return -ENOMEM;
		d->v = v;
		d->cap = cap;
	}
	if (hmap_insert(&d->idx, h, (uint32_t)d->nr))
		return -ENOMEM;
	d->v[d->nr++] = key;
	*delta = value;
	return 0;
}

void read_deltas_free(struct read_deltas *d)
{
	hmap_free(&d->idx);
	free(d->v);
	d->v = NULL;
	d->nr = d->cap = 0;
}

/* prec.data's event_groups metadata (FORMAT.md): a u32 per EVENT block,
 * the block leading its group or 0xffffffff. prec writes it for {a,b}
 * with or without :S. */
static void groups_from_meta(struct load *l, size_t file)
{
	const struct session *s = &l->sessions[file];
	const struct meta_item *g = metadata_get(&s->meta, META_EVENT_GROUPS);
	struct cursor c;
	uint32_t leader;

	if (!g || g->len != 4 * (uint64_t)s->nr_events)
		return;
	c = cur_make(g->value, g->len);
	for (size_t i = 0; i < s->nr_events && cur_le32(&c, &leader); i++)
		if (leader < s->nr_events && i < LOAD_MAX_EVENTS && leader < LOAD_MAX_EVENTS)
			l->group_leader[l->event_map[file][i]] = l->event_map[file][leader] + 1;
}

/* perf.data's GROUP_DESC feature: u32 groups, each a string (its name),
 * the u32 index of its leader and its u32 number of members, which follow
 * the leader. perf writes it for {a,b} with or without :S. */
void load_groups_from_header(struct load *l, size_t file)
{
	const struct session *s = &l->sessions[file];
	const uint8_t *p;
	size_t len;
	struct cursor c;
	uint32_t nr, leader, members;

	if (!s->pd) {
		groups_from_meta(l, file);
		return;
	}
	if (!perfdata_feature(s->pd, PERFDATA_FEAT_GROUP_DESC, &p, &len))
		return;
	c = cur_make(p, len);
	if (!cur_h32(&c, &nr))
		return;
	for (uint32_t i = 0; i < nr; i++) {
		char *name;

		if (perfdata_string(&c, &name))
			return;
		free(name);
		if (!cur_h32(&c, &leader) || !cur_h32(&c, &members))
			return;
		if (leader >= s->nr_events || members > s->nr_events - leader ||
		    leader + members > LOAD_MAX_EVENTS)
			continue;
		for (uint32_t m = leader; m < leader + members; m++)
			l->group_leader[l->event_map[file][m]] = l->event_map[file][leader] + 1;
	}
}
