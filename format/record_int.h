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

struct record_layouts {
	struct event_layout *ev;
	size_t nr, cap;
	struct id_map *ids;     /* sorted by id, no duplicates */
	size_t nr_ids;
	enum attribution how;
	bool same_read_format;  /* lets READ records without a trailer decode */
};

int record__sample(const struct event_layout *l, struct cursor *c,
		   struct sample *s, struct sample_id *sid, struct err *err);
int record__read_values(struct cursor *c, uint64_t format, const char *rname,
			struct read_values *rv, struct err *err);
int record__sample_id(struct cursor *c, uint64_t sample_type, struct sample_id *sid);
size_t record__sample_id_size(uint64_t sample_type);

#endif
