/* SPDX-License-Identifier: MIT */
/* Internal to format/record.c, format/layouts.c and format/sample.c, not
 * for other callers: the set of events (layouts.c) as the decoder reads it,
 * and the sample_type- and read_format-driven layouts that live in sample.c. */
#ifndef PREC_FORMAT_RECORD_INT_H
#define PREC_FORMAT_RECORD_INT_H

#include "common/cursor.h"
#include "record.h"

/* How records are told apart when there are several events. */
enum attribution {
	BY_ONE,                 /* zero or one event: nothing to tell apart */
	BY_IDENTIFIER,          /* every event has PERF_SAMPLE_IDENTIFIER */
	BY_ID_POS,              /* one shared sample_type with PERF_SAMPLE_ID */
	BY_NOTHING,             /* cannot be done */
};

struct id_map {
	uint64_t id;
	int event;
};

/* The fields of a SAMPLE up to PERIOD are 8 bytes each (TID and CPU are
 * two u32 that land in adjacent fields of struct sample): an event's plan
 * says where each of those it has goes, so that they are read under one
 * length check (sample.c); the fields after them are read as the table
 * says, through the rows it lists. */
#define SAMPLE_PLAN_PREFIX_MAX 9
#define SAMPLE_PLAN_REST_MAX 16
struct sample_plan {
	/* where record_peek_time finds the time: in a SAMPLE, from its start;
	 * in another record's trailer, back from its end (0: no time); a
	 * SAMPLE's period from its start (0: none) */
	uint16_t time_off, sid_time_back, period_off;
	uint8_t nr_prefix, nr_rest;
	uint8_t head;           /* what record_sample_head reads: enum plan_head */
	struct sample_head_plan hp;     /* where it reads it */
	uint16_t prefix_off[SAMPLE_PLAN_PREFIX_MAX];    /* offsetof in struct sample */
	uint8_t rest[SAMPLE_PLAN_REST_MAX];             /* rows of sample.c's table */
};

struct record_layouts {
	struct event_layout *ev;
	struct sample_plan *plans;      /* one per event, beside ev */
	size_t nr, cap;
	struct id_map *ids;     /* sorted by id, no duplicates */
	size_t nr_ids;
	enum attribution how;
	bool same_read_format;  /* lets READ records without a trailer decode */
};

/* Samples record_sample_head may read: none (fields past PERIOD other
 * than a call chain, or bits this decoder does not know), those with
 * nothing past PERIOD, those with a call chain alone past it. */
enum plan_head { HEAD_NO = 0, HEAD_FIXED, HEAD_CHAIN };

/* The plan of an event's samples (layouts.c makes one per event). */
void record__sample_plan(const struct event_layout *l, struct sample_plan *plan);
/* A SAMPLE's body; plan may be NULL (then every field is read through the
 * table). */
int record__sample(const struct event_layout *l, const struct sample_plan *plan,
		   struct cursor *c, struct sample *s, struct sample_id *sid, struct err *err);
int record__read_values(struct cursor *c, uint64_t format, const char *rname,
			struct read_values *rv, struct err *err);
int record__sample_id(struct cursor *c, uint64_t sample_type, struct sample_id *sid);
size_t record__sample_id_size(uint64_t sample_type);

#endif
