/* SPDX-License-Identifier: MIT */
/* Internal to format/record.c and format/sample.c, not for other callers:
 * the sample_type- and read_format-driven layouts that live in sample.c. */
#ifndef PREC_FORMAT_RECORD_INT_H
#define PREC_FORMAT_RECORD_INT_H

#include "common/cursor.h"
#include "record.h"

int record__sample(const struct event_layout *l, struct cursor *c,
		   struct sample *s, struct sample_id *sid, struct err *err);
int record__read_values(struct cursor *c, uint64_t format, const char *rname,
			struct read_values *rv, struct err *err);
int record__sample_id(struct cursor *c, uint64_t sample_type, struct sample_id *sid);
size_t record__sample_id_size(uint64_t sample_type);

#endif
