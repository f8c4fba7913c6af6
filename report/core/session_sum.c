/* SPDX-License-Identifier: MIT */
/*
 * Reading a perf.data file by sums (session.h: session_read_sum), in one
 * walk over its records.
 *
 * The records that are not samples (few) are kept, to be handed on at the
 * end; those that change what a process's samples resolve to (ops->scope)
 * are its boundaries, or every process's. The samples are read (their
 * heads, and ops->key) and put into classes (sum_settle.h): no boundary of
 * its process lies between the samples of a class, so what the first of
 * them resolves to, handed on among the other records in time order, is
 * what each would.
 *
 * A sample's epoch is known once every boundary before it is. The walk
 * plays perf's rounds as session_read does (at the end of each, what is
 * no later than the newest time of the round before is handed on; a later
 * record older than that would be handed on late: then the file is not
 * read by sums), and hands the samples and boundaries over in batches of
 * whole rounds. At once, every sample of a batch settles, its epoch from
 * the boundaries in so far, those of its own batch included: a process's
 * boundary comes after its later samples only when it was written from
 * another CPU's buffer (a child's FORK, from its parent's), and such a
 * boundary is taken where no sample already settled comes before it; for
 * the others (sum_settle.h), the walk starts again the exact way, in
 * which the samples wait for the round end that lets them go. At the
 * end, the kept records, the samples without an epoch and each class's
 * first sample are sorted by time, ties in file order as the ordering
 * keeps them, and handed on; and kept (sum_cache.h), so that the next
 * reading of the same file hands them on without walking it.
 */
#include "session_int.h"
#include "sum_cache.h"
#include "sum_settle.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"

/* Samples gathered before a batch is handed over (at a round end). */
#define BATCH_MIN 4096

/* Why a walk stops short (beside failures, negative): its way refused a
 * record (walk again the exact way), or the file is not to be read by sums
 * (session_read would hand some record on late, its records are not in its
 * mapping, or its samples do not sum: SETTLE_CLASSES_MAX). */
enum { SUM_AGAIN = 1, SUM_CANNOT };

struct sum {
	struct session *s;
	const struct session_sum_ops *ops;
	void *ctx;
	bool exact;                     /* the samples wait for their round ends */
	struct sum_item *items;         /* the records that are not samples */
	size_t nr_items, cap_items;
	struct buf bytes;               /* theirs */
	struct sum_batch batch;         /* what waits to settle */
	struct settle *st;
	struct sample_head_plan hp;     /* every sample's, where inline is true */
	bool inline_heads;
	uint64_t flushed, prev_max, round_max;  /* perf's rounds, as session_read plays them */
};

static void sum_free(struct sum *m)
{
	free(m->items);
	free(m->bytes.data);
	free(m->batch.pend);
	free(m->batch.bounds);
	settle_free(m->st);
}

/* ---- the walk --------------------------------------------------------- */

/* The rounds as session_read plays them for a record at time t: 0, or
 * SUM_CANNOT when session_read would hand it on late. */
static int round_check(struct sum *m, uint64_t t)
{
	if (t ? t < m->flushed : m->flushed != 0)
		return SUM_CANNOT;
	if (t > m->round_max)
		m->round_max = t;
	return 0;
}

/* A boundary, into the batch. 0 or -ENOMEM. */
static int bound(struct sum *m, const struct sum_bound *b)
{
	struct sum_batch *bt = &m->batch;

	if (array_grow((void **)&bt->bounds, &bt->cap_bounds, bt->nr_bounds + 1,
		       sizeof(*bt->bounds)))
		return -ENOMEM;
	bt->bounds[bt->nr_bounds++] = *b;
	return 0;
}

/* A record that is not a sample: kept (its bytes copied: the mapping's
 * pages behind the walk are given back), and a boundary where it is one. */
static int keep_other(struct sum *m, uint64_t time, uint64_t pos, const uint8_t *p, size_t len)
{
	struct record rec;
	uint32_t pid = 0;
	enum machine_scope scope;

	if (array_grow((void **)&m->items, &m->cap_items, m->nr_items + 1, sizeof(*m->items)))
		return -ENOMEM;
	m->items[m->nr_items++] = (struct sum_item){ time, pos, m->bytes.len, (uint32_t)len };
	if (buf_append(&m->bytes, p, len))
		return -ENOMEM;
	if (record_decode(m->s->layouts, p, len, &rec, NULL))
		return 0;       /* handed on as it is: counted bad then */
	scope = m->ops->scope(&rec, &pid);
	if (scope == MACHINE_SCOPE_NONE)
		return 0;
	return bound(m, &(struct sum_bound){ pid, scope == MACHINE_SCOPE_ALL, time });
}

/* A sample: read into the batch (room made by the caller), or counted
 * bad. 0, or SUM_CANNOT. */
static int take_sample(struct sum *m, uint64_t pos, const uint8_t *p, size_t len)
{
	struct sum_pend *e = &m->batch.pend[m->batch.nr_pend];
	struct sample_head h;
	struct record rec;
	uint64_t key[2];
	uint16_t misc;

	/* the time the ordering takes: a sample's own where it decodes */
	if (m->inline_heads ? sample_head_read(&m->hp, 0, p, len, &h)
			    : record_sample_head(m->s->layouts, p, len, &h)) {
		if (round_check(m, record_peek_time(m->s->layouts, p, len)))
			return SUM_CANNOT;
		if (record_decode(m->s->layouts, p, len, &rec, NULL)) {
			m->s->stats.bad_records++;
			return 0;
		}
		record_sample_head_of(&rec, &h);
	} else if (round_check(m, h.time)) {
		return SUM_CANNOT;
	}
	memcpy(&misc, p + 4, 2);
	m->ops->key(m->ctx, &h, misc, key);
	*e = (struct sum_pend){ h.time, (h.type & PERF_SAMPLE_PERIOD) ? h.period : 0, pos,
				{ key[0], key[1] }, h.pid, h.tid, p, (uint32_t)len, h.event };
	m->batch.nr_pend++;
	return 0;
}

/* A sample of a recording without call chains whose key the walk
 * computes (ops->key_kind): its head's fields read from the plan, its key
 * made here, into the batch; one of another length, the usual way. 0, or
 * SUM_CANNOT. */
static inline int take_plain(struct sum *m, uint64_t pos, const uint8_t *p, size_t len)
{
	struct sample_fields f;
	uint16_t misc;

	if (len != m->hp.fixed)
		return take_sample(m, pos, p, len);
	sample_fields_read(&m->hp, p, &f);
	if (round_check(m, f.time))
		return SUM_CANNOT;
	memcpy(&misc, p + 4, 2);
	m->batch.pend[m->batch.nr_pend++] = (struct sum_pend){
		f.time, (m->hp.type & PERF_SAMPLE_PERIOD) ? f.period : 0, pos,
		{ f.ip, ((misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL) |
			(m->ops->key_kind == SUM_KEY_IP_CPU ? (uint64_t)f.cpu << 1 : 0) },
		(uint32_t)f.ids, (uint32_t)(f.ids >> 32), p, (uint32_t)len, 0 };
	return 0;
}

/* A run of records (whole ones: perfdata_next walked them): 0, SUM_CANNOT,
 * or -ENOMEM. */
static int take_run(struct sum *m, const struct perfdata_chunk *ch)
{
	struct sum_batch *b = &m->batch;
	bool plain = m->inline_heads && !m->hp.chain && m->ops->key_kind != SUM_KEY_CALL;

	if (!ch->stable)
		return SUM_CANNOT;
	/* room for every record of the run as a sample */
	if (array_grow((void **)&b->pend, &b->cap_pend, b->nr_pend + ch->len / 8, sizeof(*b->pend)))
		return -ENOMEM;
	for (size_t off = 0, len; off + 8 <= ch->len; off += len) {
		const uint8_t *p = ch->p + off;
		uint32_t type;
		uint16_t size;
		uint64_t t;
		int ret;

		memcpy(&type, p, 4);
		memcpy(&size, p + 6, 2);
		len = size;
		if (len < 8 || len > ch->len - off)
			break;
		if (type == PERF_RECORD_SAMPLE && plain) {
			ret = take_plain(m, ch->offset + off, p, len);
		} else if (type == PERF_RECORD_SAMPLE) {
			ret = take_sample(m, ch->offset + off, p, len);
		} else {
			t = record_peek_time(m->s->layouts, p, len);
			ret = round_check(m, t) ? SUM_CANNOT : keep_other(m, t, ch->offset + off, p, len);
		}
		if (ret)
			return ret;
	}
	return 0;
}

/* The batch settled: 0, SUM_AGAIN (refused at once), SUM_CANNOT (too many
 * classes) or -ENOMEM. */
static int settle(struct sum *m, bool last)
{
	int ret;

	m->batch.limit = m->flushed;
	m->batch.last = last;
	m->batch.at_once = !m->exact;
	ret = settle_batch(m->st, &m->batch);
	return ret == SETTLE_REFUSED ? SUM_AGAIN : ret == SETTLE_FULL ? SUM_CANNOT : ret;
}

/* A round's end: what is no later than the newest time of the round
 * before goes (its boundaries all read); the batch settles once it is
 * large enough. */
static int round_end(struct sum *m)
{
	if (m->prev_max > m->flushed)
		m->flushed = m->prev_max;
	m->prev_max = m->round_max;
	return m->batch.nr_pend < BATCH_MIN ? 0 : settle(m, false);
}

/* 0 when walked, SUM_AGAIN or SUM_CANNOT, or negative. */
static int walk(struct sum *m, struct err *err)
{
	struct perfdata *pd = m->s->pd;
	struct perfdata_chunk ch;
	int got = 0, ret = 0;

	perfdata_rewind(pd);
	while (!ret && (got = perfdata_next(pd, &ch, err)) == 1) {
		if (ch.kind == PERFDATA_CHUNK_USER)
			ret = ch.type == PERFDATA_FINISHED_ROUND ? round_end(m) : 0;
		else
			ret = take_run(m, &ch);
		session_progress(m->s, ch.offset);
	}
	if (!ret && got < 0)
		return got;
	if (!ret)
		ret = settle(m, true);
	return ret < 0 ? err_set(err, ret, "out of memory") : ret;
}

/* ---- the end ---------------------------------------------------------- */

struct out_item {
	uint64_t time, pos;
	const uint8_t *p;
	uint32_t len;
	uint32_t cls;
};

static int cmp_item(const void *a, const void *b)
{
	const struct out_item *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static void add_out(struct out_item *v, size_t *n, const struct sum_item *it, const struct buf *b)
{
	v[(*n)++] = (struct out_item){ it->time, it->pos, b->data + it->off, it->len, 0 };
}

/* The records to hand on, in order: to ops->record, or a class's first
 * sample to ops->sum. */
int session_sum_replay(struct session *s, const struct session_sum_ops *ops, void *ctx,
		       const struct sum_out *v, size_t n)
{
	int ret = 0;

	for (size_t i = 0; i < n && !ret; i++) {
		struct record rec;

		if (record_decode(s->layouts, v[i].p, v[i].len, &rec, NULL)) {
			s->stats.bad_records++;
			continue;
		}
		if (!v[i].sum) {
			session_count_record(s, &rec);
			ret = ops->record ? ops->record(ctx, s, &rec) : 0;
		} else {
			ret = ops->sum(ctx, s, &rec, v[i].count, v[i].period);
		}
	}
	return ret;
}

/* Everything kept and each class's first sample, in time order; kept
 * for the next reading (key, unless NULL) when nothing was amiss. */
static int hand_on(struct sum *m, const struct sum_cache_key *key, const char *dir,
		   uint64_t warnings)
{
	struct settle_out o;
	struct out_item *v;
	struct sum_out *w;
	uint64_t bad = m->s->stats.bad_records;
	size_t n = 0;
	int ret;

	settle_results(m->st, &o);
	session_count_samples(m->s, o.samples, o.tmin, o.tmax);
	v = malloc((m->nr_items + o.nr_alone + o.nr_cls + 1) * sizeof(*v));
	w = malloc((m->nr_items + o.nr_alone + o.nr_cls + 1) * sizeof(*w));
	if (!v || !w) {
		free(v);
		free(w);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->nr_items; i++)
		add_out(v, &n, &m->items[i], &m->bytes);
	for (size_t i = 0; i < o.nr_alone; i++)
		add_out(v, &n, &o.alone[i], o.bytes);
	for (size_t i = 0; i < o.nr_cls; i++)
		v[n++] = (struct out_item){ o.cls[i].time, o.first[i].pos,
					    o.bytes->data + o.first[i].off, o.first[i].len,
					    (uint32_t)i + 1 };
	qsort(v, n, sizeof(*v), cmp_item);
	for (size_t i = 0; i < n; i++) {
		const struct sum_class *c = v[i].cls ? &o.cls[v[i].cls - 1] : NULL;

		w[i] = (struct sum_out){ v[i].p, v[i].len, c != NULL, c ? c->count : 0,
					 c ? c->period : 0 };
	}
	ret = session_sum_replay(m->s, m->ops, m->ctx, w, n);
	if (!ret && key && m->s->stats.bad_records == bad && m->s->warnings == warnings)
		sum_cache_store(dir, key, o.samples, o.tmin, o.tmax, w, n);
	free(v);
	free(w);
	return ret;
}

/* The name of the file's kept results (sum_cache.h): false when it is
 * not kept (read from memory, a pipe, a small file). */
static bool cache_key(const struct session *s, const struct session_sum_cache *cache,
		      struct sum_cache_key *k)
{
	const struct perfdata_info *in = perfdata_info(s->pd);

	if (!cache || !cache->dir || in->pipe || !in->ino || in->file_size < SUM_CACHE_MIN_FILE)
		return false;
	*k = (struct sum_cache_key){ in->dev, in->ino, in->file_size, in->mtime_ns, in->ctime_ns,
				     cache->tag };
	return true;
}

/* Every event's samples have their time and thread ids, and no read
 * values (each sample of a group leader stands for its members'). */
static bool events_fit(const struct session *s)
{
	for (size_t i = 0; i < s->nr_events; i++) {
		uint64_t st = s->events[i].attr.sample_type;

		if (!(st & PERF_SAMPLE_TIME) || !(st & PERF_SAMPLE_TID) || (st & PERF_SAMPLE_READ))
			return false;
	}
	return s->nr_events > 0;
}

/* One walk, at once or the exact way: 0, SUM_AGAIN or SUM_CANNOT (nothing
 * counted), or negative. */
static int walk_from_start(struct sum *m, bool exact, struct err *err)
{
	struct session_stats before = m->s->stats;
	uint64_t at = m->s->progress_at;
	int ret;

	sum_free(m);
	*m = (struct sum){ .s = m->s, .ops = m->ops, .ctx = m->ctx, .exact = exact };
	m->inline_heads = !record_sample_head_plan(m->s->layouts, &m->hp);
	m->st = settle_new();
	if (!m->st)
		return err_set(err, -ENOMEM, "out of memory");
	ret = walk(m, err);
	if (ret > 0) {
		m->s->stats = before;
		m->s->progress_at = at;
	}
	return ret;
}

int session_read_sum(struct session *s, const struct session_sum_ops *ops, void *ctx,
		     const struct session_sum_cache *cache, bool *summed, struct err *err)
{
	struct sum m = { .s = s, .ops = ops, .ctx = ctx };
	uint64_t warnings = s->warnings;
	struct sum_cache_key key;
	struct sum_cached kept;
	bool keep;
	int ret = 0;

	*summed = s->pd && !s->raw && events_fit(s);
	keep = *summed && cache_key(s, cache, &key);
	if (keep && !sum_cache_load(cache->dir, &key, &kept)) {
		session_count_samples(s, kept.samples, kept.tmin, kept.tmax);
		ret = session_sum_replay(s, ops, ctx, kept.v, kept.n);
		sum_cached_free(&kept);
	} else {
		if (*summed && (ret = walk_from_start(&m, false, err)) == SUM_AGAIN)
			ret = walk_from_start(&m, true, err);
		if (ret > 0) {
			*summed = false;        /* nothing was handed on */
			ret = 0;
		}
		keep = keep && !perfdata_stats(s->pd)->stopped &&
		       !perfdata_stats(s->pd)->bytes_ignored;
		if (*summed && !ret)
			ret = hand_on(&m, keep ? &key : NULL, keep ? cache->dir : NULL, warnings);
	}
	if (ret == -ENOMEM)
		err_set(err, ret, "out of memory");
	if (*summed && s->progress)
		s->progress(s->progress_ctx, s->path, session_size(s), session_size(s));
	sum_free(&m);
	return ret;
}
