/* SPDX-License-Identifier: MIT */
/* Reading a prec.data file for the report; see session.h. */
#include "input.h"
#include "order.h"
#include "session_int.h"
#include "common/log.h"
#include "format/stack_lazy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SESSION_READAHEAD_BYTES (1u << 20)
#define SESSION_READAHEAD_BLOCKS 8
#define SESSION_PROGRESS_STEP (1u << 20)   /* bytes between progress calls */

struct session_order {
	struct order q;
	uint64_t round_max;     /* newest time of the current pass */
	uint64_t prev_max;      /* ... of the pass before */
};

static void on_problem(void *ctx, const struct container_problem *p)
{
	struct session *s = ctx;

	s->warnings++;
	if (!s->quiet)
		log_msg(LOG_WARNING, "%s: %s", s->path, p->msg);
}

static void on_perf_problem(void *ctx, const struct perfdata_problem *p)
{
	struct session *s = ctx;

	s->warnings++;
	if (!s->quiet)
		log_msg(LOG_WARNING, "%s: %s", s->path, p->msg);
}

int session_add_embed(struct session *s, struct embed_dso *d, struct err *err)
{
	struct embed_dso **all = array_realloc(s->embeds, s->nr_embeds + 1, sizeof(*all));

	if (!all)
		return err_set(err, -ENOMEM, "out of memory");
	s->embeds = all;
	s->embeds[s->nr_embeds++] = d;
	return 0;
}

/* 0, -ENOMEM, or 1 when the payload does not decode (a damaged block). */
static int add_embed(struct session *s, const struct container_block *b, struct err *err)
{
	struct embed_dso *d;
	int ret = embed_decode(b->data, b->len, &d, NULL);

	if (ret)
		return ret == -ENOMEM ? err_set(err, ret, "out of memory") : 1;
	ret = session_add_embed(s, d, err);
	if (ret)
		embed_free(d);
	return ret;
}

static int add_source(struct session *s, const struct container_block *b, struct err *err)
{
	struct source_block *d, **all;

	if (source_decode(b->data, b->len, &d, NULL))
		return 0;       /* the reader checked it: only out of memory is left */
	all = array_realloc(s->sources, s->nr_sources + 1, sizeof(*all));
	if (!all) {
		source_free(d);
		return err_set(err, -ENOMEM, "out of memory");
	}
	s->sources = all;
	s->sources[s->nr_sources++] = d;
	return 0;
}

static int add_build_ids(struct session *s, const struct container_block *b, struct err *err)
{
	struct build_id_entry *e, *all;
	size_t n;

	if (build_ids_decode(b->data, b->len, &e, &n, NULL))
		return 0;       /* the reader checked it: only out of memory is left */
	all = array_realloc(s->build_ids, s->nr_build_ids + n + 1, sizeof(*all));
	if (!all) {
		build_ids_free(e, n);
		return err_set(err, -ENOMEM, "out of memory");
	}
	memcpy(all + s->nr_build_ids, e, n * sizeof(*e));
	s->build_ids = all;
	s->nr_build_ids += n;
	free(e);        /* the entries' paths now belong to s */
	return 0;
}

static int set_kallsyms(struct session *s, const struct container_block *b, struct err *err)
{
	free(s->kallsyms);
	s->kallsyms = malloc(b->len + 1);
	if (!s->kallsyms)
		return err_set(err, -ENOMEM, "out of memory");
	memcpy(s->kallsyms, b->data, b->len);
	s->kallsyms_len = b->len;
	return 0;
}

/* One of the BUILD_IDS, KALLSYMS and SOURCE blocks that end the file: 1
 * taken, 0 damaged, or -ENOMEM. */
static int early_block(struct session *s, const struct index_entry *e, struct err *err)
{
	struct container_block b;
	int ret = container_reader_block_at(s->r, e->offset, &b, err);

	if (ret <= 0 || b.type != e->type)
		return ret < 0 ? ret : 0;
	switch (b.type) {
	case BLOCK_SOURCE:
		ret = add_source(s, &b, err);
		break;
	case BLOCK_KALLSYMS:
		ret = set_kallsyms(s, &b, err);
		break;
	default:
		ret = add_build_ids(s, &b, err);
	}
	return ret < 0 ? -ENOMEM : 1;
}

struct early {
	const struct index_entry *e;
	size_t n;
	bool damaged;
	struct err *err;
};

/* What ends the file beside the SYMBOLS blocks, while those are decoded. */
static int early_others(struct session *s, void *ctx)
{
	struct early *x = ctx;

	for (size_t i = 0; i < x->n; i++) {
		int ret;

		if (x->e[i].type != BLOCK_BUILD_IDS && x->e[i].type != BLOCK_KALLSYMS &&
		    x->e[i].type != BLOCK_SOURCE)
			continue;
		ret = early_block(s, &x->e[i], x->err);
		if (ret < 0)
			return ret;
		x->damaged |= !ret;
	}
	return 0;
}

/* The BUILD_IDS, KALLSYMS and SYMBOLS blocks end the file, but what is
 * resolved while reading the samples before them (the unwinding, the
 * script's names) needs them: a finished file's index says where they are.
 * A damaged one is left to the walk, which says so. */
static int early_blocks(struct session *s, struct err *err)
{
	struct early x = { .err = err };
	struct index_entry *e;
	bool damaged = false;
	size_t n;
	int ret = container_reader_index(s->r, &e, &n, err);

	if (ret > 0) {
		for (size_t i = 0; i < n; i++)
			s->nr_data_blocks += e[i].type == BLOCK_DATA;
		x.e = e;
		x.n = n;
		ret = session_take_symbols(s, e, n, early_others, &x, &damaged, err);
		s->early = !ret;
		s->early_damaged = damaged || x.damaged;
		free(e);
	}
	return ret < 0 ? ret : 0;
}

static int add_event_desc(struct session *s, struct event_desc *ev, struct err *err);

/* perf.data: everything but the records is read at open. */
static int open_perf(struct session *s, const char *path, const void *data, size_t len,
		     struct err *err)
{
	struct perfdata_opts o = { on_perf_problem, s };
	struct event_desc *events;
	size_t nr;
	int ret;

	s->format = SESSION_PERF;
	s->cstats = &s->no_cstats;
	ret = data ? perfdata_open_mem(&s->pd, data, len, &o, err) :
		     perfdata_open(&s->pd, path, &o, err);
	if (ret)
		return ret;
	s->header.kind = perfdata_info(s->pd)->counting ? CONTAINER_KIND_COUNTS :
							  CONTAINER_KIND_SAMPLES;
	perfdata_take(s->pd, &events, &nr, &s->meta, &s->build_ids, &s->nr_build_ids);
	s->events = calloc(nr ? nr : 1, sizeof(*s->events));
	if (!s->events) {
		for (size_t i = 0; i < nr; i++)
			event_desc_free(&events[i]);
		free(events);
		return err_set(err, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < nr; i++) {
		if (!ret) {
			ret = add_event_desc(s, &events[i], err);
			if (ret)
				err_prefix(err, "%s: event %zu", path, i);
		} else {
			event_desc_free(&events[i]);
		}
	}
	free(events);
	return ret;
}

static int open_any(struct session *s, const char *path, const void *data, size_t len,
		    bool quiet, bool counts, struct err *err)
{
	struct container_reader_opts o = { on_problem, s, .lazy_stacks = true };
	int ret;

	memset(s, 0, sizeof(*s));
	s->path = path;
	s->quiet = quiet;
	s->counts_want = counts;
	if (!data && input_is_stdin(path) && (ret = input_stdin(&data, &len, err)))
		return ret;
	s->layouts = record_layouts_new();
	if (!s->layouts)
		return err_set(err, -ENOMEM, "out of memory");
	if (data ? perfdata_magic(data, len) : perfdata_probe(path) == 1) {
		ret = open_perf(s, path, data, len, err);
		if (ret)
			session_close(s);
		return ret;
	}
	ret = data ? container_reader_open_mem(&s->r, data, len, &o, err) :
		     container_reader_open(&s->r, path, &o, err);
	if (ret) {
		record_layouts_free(s->layouts);
		s->layouts = NULL;
		return ret;
	}
	s->header = *container_reader_header(s->r);
	s->cstats = container_reader_stats(s->r);
	ret = early_blocks(s, err);
	if (ret) {
		session_close(s);
		return ret;
	}
	/* a large file, or one of many blocks: inflate and decode the next
	 * block on the other core while this one is ordered, unwound and
	 * counted (if no thread can start, one core does both); its blocks
	 * are then held for the records that wait for a later pass, which
	 * the walk alone copies (8 KiB a --call-graph dwarf sample: 100
	 * blocks in 264 KB spent half a report copying) */
	if (container_reader_size(s->r) >= SESSION_READAHEAD_BYTES ||
	    s->nr_data_blocks >= SESSION_READAHEAD_BLOCKS)
		container_reader_readahead(s->r);
	return 0;
}

int session_open(struct session *s, const char *path, bool quiet, struct err *err)
{
	return open_any(s, path, NULL, 0, quiet, false, err);
}

int session_open_mem(struct session *s, const char *path, const void *data, size_t len,
		     bool quiet, struct err *err)
{
	return open_any(s, path, data ? data : "", len, quiet, false, err);
}

int session_open_counts(struct session *s, const char *path, const void *data, size_t len,
			struct err *err)
{
	return open_any(s, path, data ? data : NULL, len, true, true, err);
}

static void session_order_free(struct session_order *o);

void session_close(struct session *s)
{
	for (size_t i = 0; i < s->nr_events; i++)
		event_desc_free(&s->events[i]);
	free(s->events);
	record_layouts_free(s->layouts);
	metadata_free(&s->meta);
	build_ids_free(s->build_ids, s->nr_build_ids);
	free(s->kallsyms);
	for (size_t i = 0; i < s->nr_embeds; i++)
		embed_free(s->embeds[i]);
	free(s->embeds);
	for (size_t i = 0; i < s->nr_sources; i++)
		source_free(s->sources[i]);
	free(s->sources);
	container_reader_close(s->r);
	stack_chains_free(s->chains);
	perfdata_close(s->pd);
	if (s->live) {
		session_order_free(s->live);
		free(s->live);
	}
	memset(s, 0, sizeof(*s));
}

uint64_t session_size(const struct session *s)
{
	if (s->pd)
		return perfdata_info(s->pd)->file_size;
	return s->r ? container_reader_size(s->r) : 0;
}

const char *session_kind_name(const struct session *s)
{
	return s->format == SESSION_PERF ? "perf.data" : "prec.data";
}

const char *session_event_name(const struct session *s, int event)
{
	if (event < 0 || (size_t)event >= s->nr_events || !s->events[event].name)
		return "unknown";
	return s->events[event].name;
}

/* Take ev (freed on failure) into the events and the record layouts. */
static int add_event_desc(struct session *s, struct event_desc *ev, struct err *err)
{
	struct event_layout l;
	uint64_t *ids;
	struct event_desc *grown;
	int ret;

	grown = array_realloc(s->events, s->nr_events + 1, sizeof(*grown));
	ids = calloc(ev->nr_ids + 1, sizeof(*ids));
	if (!grown || !ids) {
		if (grown)
			s->events = grown;
		free(ids);
		event_desc_free(ev);
		return err_set(err, -ENOMEM, "out of memory");
	}
	s->events = grown;
	for (size_t i = 0; i < ev->nr_ids; i++)
		ids[i] = ev->ids[i].id;
	event_layout_from_attr(&l, ev->attr_bytes, ev->attr_size);
	ret = record_layouts_add(s->layouts, &l, ids, ev->nr_ids, err);
	free(ids);
	if (ret < 0) {
		event_desc_free(ev);
		return ret;
	}
	s->events[s->nr_events++] = *ev;
	return 0;
}

static int add_event(struct session *s, const struct container_block *b, struct err *err)
{
	struct event_desc ev;
	int ret = event_block_decode(b->data, b->len, &ev, err);

	return ret ? ret : add_event_desc(s, &ev, err);
}

int session_read_heads(struct session *s, struct err *err)
{
	struct index_entry *e = NULL;
	size_t n = 0;
	int ret = s->r ? container_reader_index(s->r, &e, &n, err) : 0;

	for (size_t i = 0; ret > 0 && i < n; i++) {
		struct container_block b;

		if (e[i].type != BLOCK_EVENT && e[i].type != BLOCK_METADATA)
			continue;
		ret = container_reader_block_at(s->r, e[i].offset, &b, err);
		if (ret <= 0 || b.type != e[i].type) {
			ret = ret < 0 ? ret : 0;
			break;
		}
		ret = b.type == BLOCK_EVENT ? add_event(s, &b, err)
					    : metadata_decode(&s->meta, b.data, b.len, err);
		ret = !ret ? 1 : ret == -ENOMEM ? ret : 0;      /* 0: the walk would say why */
	}
	free(e);
	return ret;
}

void session_count_record(struct session *s, const struct record *rec)
{
	s->stats.records++;
	if (rec->type < PERF_RECORD_MAX)
		s->stats.by_type[rec->type]++;
	if (!rec->known)
		s->stats.unknown_records++;
	switch (rec->type) {
	case PERF_RECORD_SAMPLE:
		s->stats.samples++;
		if (rec->u.sample.type & PERF_SAMPLE_TIME) {
			if (!s->first_time || rec->u.sample.time < s->first_time)
				s->first_time = rec->u.sample.time;
			if (rec->u.sample.time > s->last_time)
				s->last_time = rec->u.sample.time;
		}
		break;
	case PERF_RECORD_LOST:
		s->stats.lost_records++;
		s->stats.lost_samples += rec->u.lost.lost;
		break;
	case PERF_RECORD_LOST_SAMPLES:
		s->stats.lost_samples += rec->u.lost_samples.lost;
		break;
	}
}

struct deliver {
	struct session *s;
	session_record_fn fn;
	void *ctx;
};

void session_count_samples(struct session *s, uint64_t n, uint64_t tmin, uint64_t tmax)
{
	if (!n)
		return;
	s->stats.records += n;
	s->stats.by_type[PERF_RECORD_SAMPLE] += n;
	s->stats.samples += n;
	if (tmin && (!s->first_time || tmin < s->first_time))
		s->first_time = tmin;
	if (tmax > s->last_time)
		s->last_time = tmax;
}

void session_count_sample(struct session *s, bool has_time, uint64_t time)
{
	if (has_time)
		session_count_samples(s, 1, time, time);
	else
		session_count_samples(s, 1, 0, 0);
}

/* One record in time order: to the raw hook, else decoded, counted, to fn. */
/* A lazy copy's bytes the chain could not give: from its block decoded
 * again whole. 0 and *data, -1, or -ENOMEM. */
static int redecode(struct session *s, const struct sample *sm, const uint8_t **data)
{
	struct container_block b;
	struct perf_event_header h;
	struct lazy_desc d;
	struct record rec;
	int ret;

	if (lazy_desc_read(sm->stack_data, sm->stack_size, &d))
		return -1;
	ret = container_reader_block_at(s->r, d.block, &b, NULL);
	if (ret != 1)
		return ret == -ENOMEM ? ret : -1;
	if (b.type != BLOCK_DATA || d.rec > b.len || b.len - d.rec < sizeof(h))
		return -1;
	memcpy(&h, b.data + d.rec, sizeof(h));
	if (h.size > b.len - d.rec || record_decode(s->layouts, b.data + d.rec, h.size, &rec, NULL) ||
	    rec.type != PERF_RECORD_SAMPLE || rec.u.sample.stack_size != sm->stack_size)
		return -1;
	s->stats.stacks_redecoded++;
	return stack_chains_set(s->chains, sm->stack_data, rec.u.sample.stack_data, sm->stack_size,
				data);
}

/* A record with a lazy stack copy (read_data marked it): decoded, its copy
 * rebuilt (stack_lazy.h), then handed on as deliver does. */
static int deliver_lazy(struct deliver *d, const uint8_t *p, uint32_t len)
{
	struct session *s = d->s;
	struct record rec;
	const uint8_t *data;
	int ret;

	if (record_decode(s->layouts, p, len, &rec, NULL) || rec.type != PERF_RECORD_SAMPLE ||
	    !rec.u.sample.stack_size) {
		s->stats.bad_records++;
		return 0;
	}
	if (!s->chains && !(s->chains = stack_chains_new()))
		return -ENOMEM;
	ret = stack_chains_take(s->chains, rec.u.sample.stack_data, rec.u.sample.stack_size, &data);
	if (ret == 1)
		ret = redecode(s, &rec.u.sample, &data);
	if (ret) {
		if (ret == -ENOMEM)
			return ret;
		s->stats.bad_records++;
		return 0;
	}
	rec.u.sample.stack_data = data;
	if (s->raw && (ret = s->raw(s->raw_ctx, s, p, len)))
		return ret > 0 ? 0 : ret;
	session_count_record(s, &rec);
	return d->fn ? d->fn(d->ctx, s, &rec) : 0;
}

static int deliver(void *ctx, const uint8_t *p, uint32_t len)
{
	struct deliver *d = ctx;
	struct record rec;
	int ret;

	if (len & ORDER_MARK)
		return deliver_lazy(d, p, len & ~ORDER_MARK);
	if (d->s->raw && (ret = d->s->raw(d->s->raw_ctx, d->s, p, len)))
		return ret > 0 ? 0 : ret;
	if (record_decode(d->s->layouts, p, len, &rec, NULL)) {
		d->s->stats.bad_records++;
		return 0;
	}
	session_count_record(d->s, &rec);
	return d->fn ? d->fn(d->ctx, d->s, &rec) : 0;
}

/* Hand on the pending records with time <= limit (all when flush_all). */
static int flush(struct session *s, struct session_order *o, uint64_t limit, bool flush_all,
		 session_record_fn fn, void *ctx)
{
	struct deliver d = { s, fn, ctx };

	return order_flush(&o->q, limit, flush_all, deliver, &d);
}

/* marked: the record holds a lazy stack copy (read_data). */
static int queue(struct session *s, struct session_order *o, const uint8_t *p, size_t len,
		 bool borrowed, bool marked)
{
	uint64_t time = record_peek_time(s->layouts, p, len);

	if (time && time < o->q.flushed)
		s->stats.out_of_order++;
	if (time > o->round_max)
		o->round_max = time;
	return order_add(&o->q, p, (uint32_t)len | (marked ? ORDER_MARK : 0), time, borrowed);
}

static bool hold_block(void *ctx, uint64_t *token)
{
	struct session *s = ctx;

	return container_reader_hold(s->r, token) == 1;
}

static void release_block(void *ctx, uint64_t token)
{
	struct session *s = ctx;

	container_reader_release(s->r, token);
}

/* The block's bytes are about to be reused: the records of it that wait for
 * a later pass keep it (the reader holds it for them) or are copied. */
static int adopt(struct session *s, struct session_order *o)
{
	return order_adopt(&o->q, s->r ? hold_block : NULL, s);
}

/* The end of a pass: hand on what is no later than the newest time of the
 * pass before. */
static int round_end(struct session *s, struct session_order *o, session_record_fn fn, void *ctx,
		     struct err *err)
{
	int ret = flush(s, o, o->prev_max, false, fn, ctx);

	if (ret)
		return ret == -ENOMEM ? err_set(err, ret, "out of memory") : ret;
	o->prev_max = o->round_max;
	return 0;
}

static int read_data(struct session *s, struct session_order *o, const struct container_block *b,
		     session_record_fn fn, void *ctx, struct err *err)
{
	struct data_iter it;
	struct data_span sp;
	size_t mi = 0;          /* the next of b->marks */
	int ret;

	if (data_iter_init(&it, b->data, b->len, NULL))
		return 0;       /* validated by the reader already */
	while (data_iter_next(&it, &sp, NULL) == 1) {
		if (sp.kind == SPAN_ROUND_END) {
			ret = round_end(s, o, fn, ctx, err);
			if (ret)
				return ret;
			continue;
		}
		for (size_t off = 0; off < sp.len;) {
			size_t len, at = (size_t)(sp.records - b->data) + off;
			bool marked;

			while (mi < b->nr_marks && b->marks[mi] < at)
				mi++;
			marked = mi < b->nr_marks && b->marks[mi] == at;

			if (record_next(sp.records, sp.len, off, &len, NULL) != 1)
				break;
			if (sp.cpu == SPAN_CPU_SYNTH)
				s->stats.synth_records++;
			mi += marked;
			if (queue(s, o, sp.records + off, len, true, marked))
				return err_set(err, -ENOMEM, "out of memory");
			off += len;
		}
	}
	return adopt(s, o) ? err_set(err, -ENOMEM, "out of memory") : 0;
}

/* Tell the front end how far the reading is, once per SESSION_PROGRESS_STEP. */
void session_progress(struct session *s, uint64_t done)
{
	uint64_t total = session_size(s);

	if (!s->progress || done - s->progress_at < SESSION_PROGRESS_STEP || done >= total)
		return;
	s->progress_at = done;
	s->progress(s->progress_ctx, s->path, done, total);
}

/* perf.data: FINISHED_ROUND ends a pass; perf's other records are counted
 * by the importer. Runs of records in the file's mapping stay where they
 * are; decompressed ones are copied if they must wait. */
static int read_perf(struct session *s, struct session_order *o, session_record_fn fn, void *ctx,
		     struct err *err)
{
	struct perfdata_chunk ch;
	int ret = 0, got = 0;

	perfdata_rewind(s->pd);
	while (!ret && (got = perfdata_next(s->pd, &ch, err)) == 1) {
		if (ch.kind == PERFDATA_CHUNK_USER) {
			if (ch.type == PERFDATA_FINISHED_ROUND)
				ret = round_end(s, o, fn, ctx, err);
			continue;
		}
		for (size_t off = 0, len; off < ch.len; off += len) {
			if (record_next(ch.p, ch.len, off, &len, NULL) != 1)
				break;
			if (queue(s, o, ch.p + off, len, !ch.stable, false))
				return err_set(err, -ENOMEM, "out of memory");
		}
		if (!ch.stable && adopt(s, o))
			return err_set(err, -ENOMEM, "out of memory");
		session_progress(s, ch.offset);
	}
	return ret ? ret : got < 0 ? got : 0;
}

/* One block of the file (or of a live session): what it holds kept in s,
 * the records of a DATA block queued and handed on as its rounds end. */
static int read_block(struct session *s, struct session_order *o, const struct container_block *b,
		      session_record_fn fn, void *ctx, struct err *err)
{
	switch (b->type) {
	case BLOCK_EVENT:
		return add_event(s, b, err);
	case BLOCK_METADATA:
		return metadata_decode(&s->meta, b->data, b->len, err);
	case BLOCK_BUILD_IDS:
		return s->early ? 0 : add_build_ids(s, b, err);
	case BLOCK_KALLSYMS:
		return s->early ? 0 : set_kallsyms(s, b, err);
	case BLOCK_SYMBOLS:
		/* a damaged one (1) is passed over, as the walk says */
		return s->early || add_embed(s, b, err) >= 0 ? 0 : -ENOMEM;
	case BLOCK_SOURCE:
		return s->early ? 0 : add_source(s, b, err);
	case BLOCK_DATA:
		return read_data(s, o, b, fn, ctx, err);
	}
	return 0;
}

static void session_order_free(struct session_order *o)
{
	order_free(&o->q);
}

int session_read(struct session *s, session_record_fn fn, void *ctx, struct err *err)
{
	struct session_order o = { .round_max = 0 };
	struct container_block b;
	int ret = 0, got = 0;

	order_init(&o.q, s->r ? release_block : NULL, s);
	if (s->pd)
		ret = read_perf(s, &o, fn, ctx, err);
	while (!s->pd && !ret && (got = container_reader_next(s->r, &b, err)) == 1) {
		ret = read_block(s, &o, &b, fn, ctx, err);
		session_progress(s, b.offset);
	}
	if (!ret && got < 0)
		ret = got;
	if (!ret)
		ret = flush(s, &o, 0, true, fn, ctx);
	if (ret == -ENOMEM)
		err_set(err, ret, "out of memory");
	if (s->progress)
		s->progress(s->progress_ctx, s->path, session_size(s), session_size(s));
	session_order_free(&o);
	return ret;
}

/* ---- a live session --------------------------------------------------- */

int session_open_live(struct session *s, const char *name, bool quiet, struct err *err)
{
	memset(s, 0, sizeof(*s));
	s->path = name;
	s->quiet = quiet;
	s->header.kind = CONTAINER_KIND_SAMPLES;
	s->header.byte_order = container_host_byte_order();
	s->cstats = &s->no_cstats;
	s->layouts = record_layouts_new();
	s->live = calloc(1, sizeof(*s->live));
	if (!s->layouts || !s->live) {
		session_close(s);
		return err_set(err, -ENOMEM, "out of memory");
	}
	order_init(&s->live->q, NULL, NULL);
	return 0;
}

int session_feed_block(struct session *s, unsigned type, const void *payload, size_t len,
		       session_record_fn fn, void *ctx, struct err *err)
{
	struct container_block b = { .type = (uint16_t)type, .data = payload, .len = len };
	int ret;

	if (!s->live)
		return err_set(err, -EINVAL, "%s: not a live session", s->path);
	ret = read_block(s, s->live, &b, fn, ctx, err);
	if (ret == -ENOMEM)
		err_set(err, ret, "out of memory");
	return ret;
}

int session_feed_end(struct session *s, session_record_fn fn, void *ctx, struct err *err)
{
	int ret = s->live ? flush(s, s->live, 0, true, fn, ctx) : 0;

	if (ret == -ENOMEM)
		err_set(err, ret, "out of memory");
	return ret;
}
