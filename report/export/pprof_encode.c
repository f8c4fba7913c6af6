/* SPDX-License-Identifier: MIT */
/*
 * prep export --pprof, the last step (see pprof.c): the profile.proto message
 * encoded field by field into a buffer that goes through deflate whenever it
 * grows past FLUSH_AT, so the whole profile is never held in memory twice.
 */
#include "pprof_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/pb.h"
#include "report/core/offcpu.h"

#define FLUSH_AT ((size_t)1 << 20)

/* profile.proto field numbers */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_MAPPING = 3, PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5, PROFILE_STRING_TABLE = 6, PROFILE_TIME_NANOS = 9,
	PROFILE_DURATION_NANOS = 10, PROFILE_PERIOD_TYPE = 11, PROFILE_PERIOD = 12,
	PROFILE_COMMENT = 13, PROFILE_DEFAULT_SAMPLE_TYPE = 14,
};
enum { VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT = 2 };
enum { SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2, SAMPLE_LABEL = 3 };
enum { LABEL_KEY = 1, LABEL_STR = 2, LABEL_NUM = 3, LABEL_NUM_UNIT = 4 };
enum {
	MAPPING_ID = 1, MAPPING_MEMORY_START = 2, MAPPING_MEMORY_LIMIT = 3, MAPPING_FILE_OFFSET = 4,
	MAPPING_FILENAME = 5, MAPPING_BUILD_ID = 6, MAPPING_HAS_FUNCTIONS = 7,
	MAPPING_HAS_FILENAMES = 8, MAPPING_HAS_LINE_NUMBERS = 9, MAPPING_HAS_INLINE_FRAMES = 10,
};
enum { LOCATION_ID = 1, LOCATION_MAPPING_ID = 2, LOCATION_ADDRESS = 3, LOCATION_LINE = 4 };
enum { LINE_FUNCTION_ID = 1, LINE_LINE = 2 };
enum { FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3, FUNCTION_FILENAME = 4 };

struct enc {
	struct pp *p;
	struct buf b;
	struct gzout *gz;
	struct err *err;
};

/* After each top-level field: hand the buffer to deflate when it is big. */
static int enc_flush(struct enc *e, bool force)
{
	int ret;

	if (e->b.len < FLUSH_AT && !force)
		return 0;
	ret = gzout_write(e->gz, e->b.data, e->b.len, force, e->err);
	buf_reset(&e->b);
	return ret;
}

static int put_u(struct buf *b, uint32_t field, uint64_t v)
{
	return v ? pb_uint64(b, field, v) : 0;
}

static int value_type(struct buf *b, uint32_t field, uint32_t type, uint32_t unit)
{
	size_t mark;

	if (pb_begin(b, field, &mark) || put_u(b, VALUE_TYPE_TYPE, type) ||
	    put_u(b, VALUE_TYPE_UNIT, unit) || pb_end(b, mark))
		return -ENOMEM;
	return 0;
}

/* A string label (str not NULL) or a number with an optional unit. */
static int label(struct pp *p, struct buf *b, const char *key, const char *str, int64_t num,
		 const char *unit)
{
	uint32_t k, s = 0, u = 0;
	size_t mark;

	if (pprof_str_id(p, key, &k) || (str && pprof_str_id(p, str, &s)) || (unit && pprof_str_id(p, unit, &u)))
		return -ENOMEM;
	if (pb_begin(b, SAMPLE_LABEL, &mark) || put_u(b, LABEL_KEY, k) ||
	    (str ? put_u(b, LABEL_STR, s) :
	     pb_int64(b, LABEL_NUM, num) || put_u(b, LABEL_NUM_UNIT, u)) ||
	    pb_end(b, mark))
		return -ENOMEM;
	return 0;
}

static int enc_sample(struct enc *e, const struct stack *s)
{
	struct pp *p = e->p;
	struct buf *b = &e->b;
	int64_t values[2] = { (int64_t)s->count, (int64_t)s->period };
	size_t mark;

	if (array_grow((void **)&p->scratch, &p->cap_scratch, s->nr_frames, sizeof(*p->scratch)))
		return -ENOMEM;
	for (uint32_t k = 0; k < s->nr_frames; k++)
		p->scratch[k] = p->loc_of[p->h->frame_ids[s->first + k]];
	if (pb_begin(b, PROFILE_SAMPLE, &mark) ||
	    pb_packed_uint64(b, SAMPLE_LOCATION_ID, p->scratch, s->nr_frames) ||
	    pb_packed_int64(b, SAMPLE_VALUE, values, 2) ||
	    label(p, b, "pid", NULL, s->thread->pid, NULL) ||
	    label(p, b, "tid", NULL, s->thread->tid, NULL) ||
	    label(p, b, "comm", s->comm ? s->comm : "", 0, NULL) ||
	    /* a unit, so that pprof keeps cpu 0 (it drops unitless zeros) */
	    label(p, b, "cpu", NULL, s->cpu, "cpu") ||
	    pb_end(b, mark))
		return -ENOMEM;
	return 0;
}

static int enc_mapping(struct enc *e, const struct mapping *m)
{
	struct pp *p = e->p;
	struct buf *b = &e->b;
	char hex[2 * sizeof(m->dso->build_id) + 1];
	uint32_t file, bid = 0;
	size_t mark;

	for (size_t i = 0; i < m->dso->build_id_size && i < sizeof(m->dso->build_id); i++)
		snprintf(hex + 2 * i, 3, "%02x", m->dso->build_id[i]);
	if (pprof_str_id(p, m->dso->kernel ? m->dso->short_name : m->dso->path, &file) ||
	    (m->dso->build_id_size && pprof_str_id(p, hex, &bid)))
		return -ENOMEM;
	if (pb_begin(b, PROFILE_MAPPING, &mark) || put_u(b, MAPPING_ID, m->id) ||
	    put_u(b, MAPPING_MEMORY_START, m->start) || put_u(b, MAPPING_MEMORY_LIMIT, m->limit) ||
	    put_u(b, MAPPING_FILE_OFFSET, m->offset) || put_u(b, MAPPING_FILENAME, file) ||
	    put_u(b, MAPPING_BUILD_ID, bid) || put_u(b, MAPPING_HAS_FUNCTIONS, m->all_fn) ||
	    put_u(b, MAPPING_HAS_FILENAMES, m->all_lines) ||
	    put_u(b, MAPPING_HAS_LINE_NUMBERS, m->all_lines) ||
	    put_u(b, MAPPING_HAS_INLINE_FRAMES, m->all_lines) || pb_end(b, mark))
		return -ENOMEM;
	return 0;
}

static int enc_location(struct enc *e, size_t i)
{
	const struct loc *lc = &e->p->locs[i];
	struct buf *b = &e->b;
	size_t mark, lmark;

	if (pb_begin(b, PROFILE_LOCATION, &mark) || put_u(b, LOCATION_ID, i + 1) ||
	    put_u(b, LOCATION_MAPPING_ID, lc->mapping ? e->p->maps[lc->mapping - 1].id : 0) ||
	    put_u(b, LOCATION_ADDRESS, lc->address))
		return -ENOMEM;
	for (uint32_t k = 0; k < lc->nr_lines; k++) {
		const struct line *ln = &e->p->lines[lc->first_line + k];

		if (pb_begin(b, LOCATION_LINE, &lmark) || put_u(b, LINE_FUNCTION_ID, ln->function) ||
		    (ln->line && pb_int64(b, LINE_LINE, ln->line)) || pb_end(b, lmark))
			return -ENOMEM;
	}
	return pb_end(b, mark);
}

static int enc_function(struct enc *e, size_t i)
{
	const struct func *f = &e->p->funcs[i];
	struct buf *b = &e->b;
	size_t mark;

	if (pb_begin(b, PROFILE_FUNCTION, &mark) || put_u(b, FUNCTION_ID, i + 1) ||
	    put_u(b, FUNCTION_NAME, f->name) || put_u(b, FUNCTION_SYSTEM_NAME, f->name) ||
	    put_u(b, FUNCTION_FILENAME, f->file) || pb_end(b, mark))
		return -ENOMEM;
	return 0;
}

/* ---- the event and the recording ----------------------------------------- */

static bool clock_event(const struct perf_event_attr *a)
{
	return a && a->type == PERF_TYPE_SOFTWARE &&
	       (a->config == PERF_COUNT_SW_CPU_CLOCK || a->config == PERF_COUNT_SW_TASK_CLOCK);
}

static int64_t event_period(const struct perf_event_attr *a, const struct pprof_result *r)
{
	if (a && !a->freq && a->sample_period)
		return (int64_t)a->sample_period;
	if (a && a->freq && a->sample_freq && clock_event(a))
		return (int64_t)((1000000000ull + a->sample_freq / 2) / a->sample_freq);
	return r->samples ? (int64_t)(r->period / r->samples) : 0;
}

/* Start (epoch ns) and length of the recording. */
static void recording_time(const struct load *l, int64_t *start, int64_t *duration)
{
	const struct session *s0 = load_session(l, 0);
	const struct metadata *m = &s0->meta;
	uint64_t a = 0, b = 0;

	*start = metadata_get_u64(m, META_START_TIME_NS, &a) ? (int64_t)a : 0;
	*duration = 0;
	if (metadata_get_u64(m, META_START_TIME_NS, &a) && metadata_get_u64(m, META_END_TIME_NS, &b) &&
	    b >= a)
		*duration = (int64_t)(b - a);
	else if (metadata_get_u64(m, META_START_CLOCK_NS, &a) &&
		 metadata_get_u64(m, META_END_CLOCK_NS, &b) && b >= a)
		*duration = (int64_t)(b - a);
	else if (s0->last_time > s0->first_time)
		*duration = (int64_t)(s0->last_time - s0->first_time);
}

/* Comments: each input's command line (arguments joined by spaces). */
static int comments(struct pp *p, int64_t *ids, size_t *n)
{
	*n = 0;
	for (size_t i = 0; i < load_nr_sessions(p->l); i++) {
		const struct meta_item *it = metadata_get(&load_session(p->l, i)->meta, META_CMDLINE);
		char *text;
		size_t len;
		uint32_t id;
		int ret;

		if (!it || !it->len)
			continue;
		text = malloc(it->len + 1);
		if (!text)
			return -ENOMEM;
		memcpy(text, it->value, it->len);
		for (len = it->len; len && !text[len - 1]; len--)
			;
		for (size_t k = 0; k < len; k++)
			if (!text[k])
				text[k] = ' ';
		ret = pprof_str_idn(p, text, len, &id);
		ids[(*n)++] = id;
		free(text);
		if (ret)
			return ret;
	}
	return 0;
}

int pprof_encode(struct pp *p, const struct pprof_result *res, struct gzout *gz, struct err *err)
{
	const struct perf_event_attr *attr = load_event_attr(p->l, p->event);
	struct enc e = { .p = p, .gz = gz, .err = err };
	uint32_t samples, count, type, unit;
	int64_t start, duration, cmt[LOAD_MAX_INPUTS];
	size_t nr_cmt;
	int ret;

	recording_time(p->l, &start, &duration);
	ret = pprof_str_id(p, "samples", &samples) || pprof_str_id(p, "count", &count) ||
	      pprof_str_id(p, load_event_name(p->l, p->event), &type) ||
	      pprof_str_id(p, clock_event(attr) || offcpu_weighted_event(load_event_name(p->l, p->event)) ?
			   "nanoseconds" : "count", &unit) ||
	      comments(p, cmt, &nr_cmt) ||
	      value_type(&e.b, PROFILE_SAMPLE_TYPE, samples, count) ||
	      value_type(&e.b, PROFILE_SAMPLE_TYPE, type, unit) ? -ENOMEM : 0;
	for (size_t i = 0; i < p->h->nr_stacks && !ret; i++) {
		const struct stack *s = &p->h->stacks[i];

		if (s->event == p->event && s->nr_frames)
			ret = enc_sample(&e, s) ? -ENOMEM : enc_flush(&e, false);
	}
	/* by id: the main binary, then the others in index order */
	for (size_t i = 0; i < p->nr_maps && !ret; i++)
		if (p->maps[i].id == 1)
			ret = enc_mapping(&e, &p->maps[i]);
	for (size_t i = 0; i < p->nr_maps && !ret; i++)
		if (p->maps[i].id != 1)
			ret = enc_mapping(&e, &p->maps[i]);
	for (size_t i = 0; i < p->nr_locs && !ret; i++)
		ret = enc_location(&e, i) ? -ENOMEM : enc_flush(&e, false);
	for (size_t i = 0; i < p->nr_funcs && !ret; i++)
		ret = enc_function(&e, i);
	/* every string is in the table by now */
	for (size_t i = 0; i < p->nr_strs && !ret; i++)
		ret = pb_string(&e.b, PROFILE_STRING_TABLE,
				(const char *)p->strdata.data + p->strs[i].off, p->strs[i].len) ?
		      -ENOMEM : enc_flush(&e, false);
	if (!ret && (pb_int64(&e.b, PROFILE_TIME_NANOS, start) ||
		     pb_int64(&e.b, PROFILE_DURATION_NANOS, duration) ||
		     value_type(&e.b, PROFILE_PERIOD_TYPE, type, unit) ||
		     pb_int64(&e.b, PROFILE_PERIOD, event_period(attr, res)) ||
		     pb_packed_int64(&e.b, PROFILE_COMMENT, cmt, nr_cmt) ||
		     pb_int64(&e.b, PROFILE_DEFAULT_SAMPLE_TYPE, type)))
		ret = -ENOMEM;
	if (!ret)
		ret = enc_flush(&e, true);
	if (ret == -ENOMEM)
		err_set(err, -ENOMEM, "out of memory");
	buf_free(&e.b);
	return ret;
}
