/* SPDX-License-Identifier: MIT */
/*
 * The time span of a file's samples without reading the whole file, for
 * --time with percentages: the INDEX gives each DATA block's time range
 * (FORMAT.md 5.6), so only the blocks that may hold the first or the last
 * sample are decoded. See session_sample_span in session.h.
 */
#include "session.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct span_block {
	uint64_t offset;
	uint64_t tmin, tmax;    /* from the index, 0 = unknown */
	bool read;
	bool bad;               /* a sample outside the block's range */
	uint64_t first, last;   /* of its samples, 0 = none */
};

/* The events of the file, from its EVENT blocks: what decodes the samples.
 * 1, 0 when one cannot be read, or -ENOMEM. */
static int index_layouts(struct session *s, const struct index_entry *e, size_t n,
			 struct record_layouts *ls)
{
	for (size_t i = 0; i < n; i++) {
		struct container_block b;
		struct event_desc ev;
		struct event_layout l;
		uint64_t *ids;
		int ret;

		if (e[i].type != BLOCK_EVENT)
			continue;
		ret = container_reader_block_at(s->r, e[i].offset, &b, NULL);
		if (ret <= 0 || b.type != BLOCK_EVENT || event_block_decode(b.data, b.len, &ev, NULL))
			return ret < 0 ? ret : 0;
		ids = calloc(ev.nr_ids + 1, sizeof(*ids));
		for (size_t j = 0; ids && j < ev.nr_ids; j++)
			ids[j] = ev.ids[j].id;
		event_layout_from_attr(&l, ev.attr_bytes, ev.attr_size);
		ret = ids ? record_layouts_add(ls, &l, ids, ev.nr_ids, NULL) : -ENOMEM;
		free(ids);
		event_desc_free(&ev);
		if (ret < 0)
			return ret == -ENOMEM ? ret : 0;
	}
	return 1;
}

static void note_sample(struct span_block *sb, const struct record_layouts *ls,
			const uint8_t *p, size_t len)
{
	struct record rec;
	uint64_t t;

	if (record_decode(ls, p, len, &rec, NULL) || !(rec.u.sample.type & PERF_SAMPLE_TIME))
		return;
	t = rec.u.sample.time;
	if (!t)
		return;
	if ((sb->tmin && t < sb->tmin) || (sb->tmax && t > sb->tmax))
		sb->bad = true;
	if (!sb->first || t < sb->first)
		sb->first = t;
	if (t > sb->last)
		sb->last = t;
}

/* Records back to back, walked as session_read walks them: the samples
 * into sb. */
static void scan_records(struct span_block *sb, const struct record_layouts *ls,
			 const uint8_t *p, size_t n)
{
	for (size_t off = 0, len; off < n; off += len) {
		struct perf_event_header h;

		if (record_next(p, n, off, &len, NULL) != 1)
			break;
		memcpy(&h, p + off, sizeof(h));
		if (h.type == PERF_RECORD_SAMPLE)
			note_sample(sb, ls, p + off, len);
	}
}

/* The first and last sample of one DATA block, its records walked as
 * session_read walks them. 0 or -ENOMEM. */
static int read_block(struct session *s, const struct record_layouts *ls, struct span_block *sb)
{
	struct container_block b;
	struct data_iter it;
	struct data_span sp;
	int ret;

	if (sb->read)
		return 0;
	sb->read = true;
	ret = container_reader_block_at(s->r, sb->offset, &b, NULL);
	if (ret <= 0 || b.type != BLOCK_DATA || data_iter_init(&it, b.data, b.len, NULL))
		return ret < 0 ? ret : 0;       /* damaged: the walk skips it too */
	while (data_iter_next(&it, &sp, NULL) == 1)
		if (sp.kind != SPAN_ROUND_END)
			scan_records(sb, ls, sp.records, sp.len);
	return 0;
}

/* Unknown (0) first, then by tmin ascending. */
static int by_tmin(const void *a, const void *b)
{
	const struct span_block *x = *(struct span_block *const *)a, *y = *(struct span_block *const *)b;

	return x->tmin < y->tmin ? -1 : x->tmin > y->tmin;
}

/* Unknown (0) first, then by tmax descending. */
static int by_tmax(const void *a, const void *b)
{
	const struct span_block *x = *(struct span_block *const *)a, *y = *(struct span_block *const *)b;

	if (!x->tmax || !y->tmax)
		return !!x->tmax - !!y->tmax;
	return x->tmax > y->tmax ? -1 : x->tmax < y->tmax;
}

/* Blocks in order of where the first (last) sample may be, until one cannot
 * hold an earlier (later) one. 0, 1 when a range was false, or -ENOMEM. */
static int find_ends(struct session *s, const struct record_layouts *ls,
		     struct span_block **order, size_t n, uint64_t *first, uint64_t *last)
{
	int ret = 0;

	qsort(order, n, sizeof(*order), by_tmin);
	for (size_t i = 0; !ret && i < n; i++) {
		if (*first && order[i]->tmin && order[i]->tmin >= *first)
			break;
		ret = read_block(s, ls, order[i]);
		if (order[i]->first && (!*first || order[i]->first < *first))
			*first = order[i]->first;
	}
	qsort(order, n, sizeof(*order), by_tmax);
	for (size_t i = 0; !ret && i < n; i++) {
		if (*last && order[i]->tmax && order[i]->tmax <= *last)
			break;
		ret = read_block(s, ls, order[i]);
		if (order[i]->last > *last)
			*last = order[i]->last;
	}
	for (size_t i = 0; !ret && i < n; i++)
		if (order[i]->bad)
			return 1;
	return ret;
}

/* The DATA blocks of the index, and the order to visit them in. */
static int data_blocks(const struct index_entry *e, size_t n, struct span_block **blocks,
		       struct span_block ***order, size_t *nr)
{
	*nr = 0;
	*blocks = calloc(n + 1, sizeof(**blocks));
	*order = calloc(n + 1, sizeof(**order));
	if (!*blocks || !*order)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (e[i].type != BLOCK_DATA)
			continue;
		(*blocks)[*nr] = (struct span_block){ .offset = e[i].offset, .tmin = e[i].time_min,
						      .tmax = e[i].time_max };
		(*order)[*nr] = &(*blocks)[*nr];
		(*nr)++;
	}
	return 0;
}

int session_sample_span(struct session *s, uint64_t *first, uint64_t *last, struct err *err)
{
	struct record_layouts *ls = NULL;
	struct span_block *blocks = NULL, **order = NULL;
	struct index_entry *e = NULL;
	size_t n, nr;
	int ret;

	*first = *last = 0;
	if (!s->r)
		return 0;
	ret = container_reader_index(s->r, &e, &n, NULL);
	if (ret < 0 && ret != -ENOMEM)
		ret = 0;                /* a damaged index: the caller reads the file */
	if (ret > 0 && !(ls = record_layouts_new()))
		ret = -ENOMEM;
	if (ret > 0)
		ret = index_layouts(s, e, n, ls);
	if (ret > 0)
		ret = data_blocks(e, n, &blocks, &order, &nr) ?: 1;
	if (ret > 0) {
		int r = find_ends(s, ls, order, nr, first, last);

		ret = r < 0 ? r : !r;   /* a false range: the caller reads the file */
	}
	free(blocks);
	free(order);
	free(e);
	record_layouts_free(ls);
	if (ret <= 0)
		*first = *last = 0;
	return ret == -ENOMEM ? err_set(err, ret, "out of memory") : ret > 0;
}
