/* SPDX-License-Identifier: MIT */
/*
 * A file's ADDR_COUNTS block (FORMAT.md 5.11) or SAMPLE_SUMS block (5.12)
 * where it may stand for a reading of the file's samples; see
 * session_addr_counts() and session_sample_sums() in session.h.
 */
#include "session_int.h"
#include "sum_cache.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/addrcounts.h"
#include "format/samplesums.h"

/* What may follow a block of type `type`: what does not change the
 * samples, and what a session reads (and checks) at open or through
 * session_read_heads; after a SAMPLE_SUMS block, an ADDR_COUNTS one too. */
static bool may_follow(unsigned after, unsigned type)
{
	return type == BLOCK_METADATA || type == BLOCK_BUILD_IDS || type == BLOCK_KALLSYMS ||
	       type == BLOCK_SYMBOLS || type == BLOCK_SOURCE ||
	       (after == BLOCK_SAMPLE_SUMS && type == BLOCK_ADDR_COUNTS);
}

/* A finished file that read clean so far, its blocks at the end too,
 * nothing read yet of its events. */
static bool clean_so_far(const struct session *s)
{
	return s->r && s->cstats->finished && !(s->header.flags & CONTAINER_FLAG_STREAM) &&
	       s->header.kind == CONTAINER_KIND_SAMPLES && !s->warnings && s->early &&
	       !s->early_damaged && !s->nr_events;
}

/* The index entry of the last block of `type`, when only what may follow
 * it does: 1 and *at, or 0. */
static int pick_block(const struct index_entry *e, size_t n, unsigned type, size_t *at,
		      uint32_t *nr_events)
{
	size_t i, last = n;

	*nr_events = 0;
	for (i = 0; i < n; i++) {
		/* a type this reader does not know, or a block missing: the walk
		 * would say so */
		if (!block_type_name(e[i].type) || e[i].seq != i)
			return 0;
		if (e[i].type == type)
			last = i;
		*nr_events += e[i].type == BLOCK_EVENT;
	}
	if (last == n)
		return 0;
	for (i = last + 1; i < n; i++)
		if (!may_follow(type, e[i].type))
			return 0;
	*at = last;
	return 1;
}

/* The block at e, if it covers the file up to itself: 1 and *out, or 0. */
static int take_block(struct session *s, const struct index_entry *e, uint32_t nr_events,
		      struct addrcounts **out, struct err *err)
{
	struct container_block b;
	struct addrcounts *c;
	uint32_t crc;
	int ret = container_reader_block_at(s->r, e->offset, &b, err);

	if (ret <= 0 || b.type != BLOCK_ADDR_COUNTS)
		return ret < 0 ? ret : 0;
	ret = addrcounts_decode(b.data, b.len, &c, err);
	if (ret)
		return ret == -ENOMEM ? ret : 0;
	/* taken at open (session_open_counts), else now */
	if (s->counts_end && s->counts_end == c->covered_end)
		crc = s->counts_crc;
	else if (container_reader_crc(s->r, CONTAINER_HEADER_SIZE, c->covered_end, &crc))
		crc = ~c->covered_crc;
	if (c->covered_end != e->offset || c->nr_events != nr_events || crc != c->covered_crc) {
		addrcounts_free(c);
		return 0;
	}
	*out = c;
	return 1;
}

int session_addr_counts(struct session *s, struct addrcounts **out, struct err *err)
{
	struct index_entry *e = NULL;
	uint32_t nr_events;
	size_t n = 0, at;
	int ret;

	*out = NULL;
	if (!clean_so_far(s))
		return 0;
	ret = container_reader_index(s->r, &e, &n, err);
	if (ret > 0)
		ret = pick_block(e, n, BLOCK_ADDR_COUNTS, &at, &nr_events);
	if (ret > 0)
		ret = take_block(s, &e[at], nr_events, out, err);
	free(e);
	if (ret > 0 && (ret = session_read_heads(s, err)) <= 0) {
		addrcounts_free(*out);
		*out = NULL;
	}
	return ret;
}

/* ---- SAMPLE_SUMS -------------------------------------------------------- */

/* The block at e, if it covers the file up to itself: 1 and *ss (its
 * payload copied into *data), or 0. */
static int take_sums(struct session *s, const struct index_entry *e, uint32_t nr_events,
		     struct samplesums *ss, uint8_t **data, struct err *err)
{
	struct container_block b;
	uint32_t crc;
	int ret = container_reader_block_at(s->r, e->offset, &b, err);

	if (ret <= 0 || b.type != BLOCK_SAMPLE_SUMS)
		return ret < 0 ? ret : 0;
	*data = malloc(b.len ? b.len : 1);
	if (!*data)
		return err_set(err, -ENOMEM, "out of memory");
	memcpy(*data, b.data, b.len);
	ret = samplesums_decode(*data, b.len, ss, err);
	if (!ret && (ss->covered_end != e->offset || ss->nr_events != nr_events ||
		     container_reader_crc(s->r, CONTAINER_HEADER_SIZE, ss->covered_end, &crc) ||
		     crc != ss->covered_crc))
		ret = -EINVAL;
	if (ret) {
		samplesums_free(ss);
		free(*data);
		*data = NULL;
		return ret == -ENOMEM ? ret : 0;
	}
	return 1;
}

/* The file's events (its EVENT blocks in index order) as their records
 * decode, into ls: 1 when each decodes and fit() takes it, 0 when not,
 * or -ENOMEM. Nothing of them goes into s yet. */
static int probe_events(struct session *s, const struct index_entry *e, size_t n,
			bool (*fit)(const struct event_desc *ev), struct record_layouts *ls,
			struct err *err)
{
	int ret = 1;

	for (size_t i = 0; ret > 0 && i < n; i++) {
		struct container_block b;
		struct event_desc ev;
		struct event_layout l;
		uint64_t *ids;

		if (e[i].type != BLOCK_EVENT)
			continue;
		ret = container_reader_block_at(s->r, e[i].offset, &b, err);
		if (ret <= 0 || b.type != BLOCK_EVENT || event_block_decode(b.data, b.len, &ev, NULL))
			return ret < 0 ? ret : 0;
		ids = calloc(ev.nr_ids + 1, sizeof(*ids));
		if (!ids)
			ret = -ENOMEM;
		for (size_t k = 0; ids && k < ev.nr_ids; k++)
			ids[k] = ev.ids[k].id;
		event_layout_from_attr(&l, ev.attr_bytes, ev.attr_size);
		if (ret > 0 && (!fit(&ev) || record_layouts_add(ls, &l, ids, ev.nr_ids, NULL) < 0))
			ret = 0;
		free(ids);
		event_desc_free(&ev);
	}
	return ret;
}

/* Each item's record decodes with the file's events, a class's as a
 * sample of one of them, every other one as no sample. */
static bool items_decode(const struct samplesums *ss, const struct record_layouts *ls)
{
	for (size_t i = 0; i < ss->nr_items; i++) {
		const struct samplesums_item *it = &ss->items[i];
		struct record rec;

		if (record_decode(ls, it->rec, it->len, &rec, NULL) || !rec.known ||
		    (rec.type == PERF_RECORD_SAMPLE) != it->sum || (it->sum && rec.event < 0))
			return false;
	}
	return true;
}

int session_sample_sums(struct session *s, bool (*fit)(const struct event_desc *ev),
			struct session_sums *out, struct err *err)
{
	struct index_entry *e = NULL;
	struct record_layouts *ls = NULL;
	uint32_t nr_events;
	size_t n = 0, at;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!clean_so_far(s))
		return 0;
	ret = container_reader_index(s->r, &e, &n, err);
	if (ret > 0)
		ret = pick_block(e, n, BLOCK_SAMPLE_SUMS, &at, &nr_events);
	if (ret > 0)
		ret = take_sums(s, &e[at], nr_events, &out->ss, &out->data, err);
	if (ret > 0 && !(ls = record_layouts_new()))
		ret = -ENOMEM;
	if (ret > 0)
		ret = probe_events(s, e, n, fit, ls, err);
	if (ret > 0 && !items_decode(&out->ss, ls))
		ret = 0;
	record_layouts_free(ls);
	free(e);
	/* the events into s: what the records decode with from here on */
	if (ret > 0)
		ret = session_read_heads(s, err);
	if (ret <= 0)
		session_sums_free(out);
	if (ret == -ENOMEM)
		err_set(err, ret, "out of memory");
	return ret;
}

int session_sums_replay(struct session *s, const struct session_sums *ss,
			const struct session_sum_ops *ops, void *ctx)
{
	struct sum_out *v = malloc((ss->ss.nr_items + 1) * sizeof(*v));
	int ret;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < ss->ss.nr_items; i++) {
		const struct samplesums_item *it = &ss->ss.items[i];

		v[i] = (struct sum_out){ it->rec, it->len, it->sum, it->count, it->period };
	}
	session_count_samples(s, ss->ss.samples, ss->ss.tmin, ss->ss.tmax);
	ret = session_sum_replay(s, ops, ctx, v, ss->ss.nr_items);
	free(v);
	if (s->progress)
		s->progress(s->progress_ctx, s->path, session_size(s), session_size(s));
	return ret;
}

void session_sums_free(struct session_sums *ss)
{
	samplesums_free(&ss->ss);
	free(ss->data);
	ss->data = NULL;
}
