/* SPDX-License-Identifier: MIT */
/*
 * The TRANSFORMED encoding of DATA block payloads (FORMAT.md 6.3).
 * Internal to format/: the writer applies it, the reader undoes it.
 */
#ifndef PREC_FORMAT_TRANSFORM_H
#define PREC_FORMAT_TRANSFORM_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/err.h"

struct record_layouts;

/* Rewrite the DATA payload p[0..len) into out. The payload must be valid
 * (whole records in spans); records the layouts cannot decode are kept
 * verbatim. 0 or a negative code. */
int data_transform(const struct record_layouts *ls, const uint8_t *p, size_t len,
		   struct buf *out, struct err *err);
/* Undo it: out receives the original DATA payload. Never reads outside
 * p[0..len); malformed input is -PREC_ECORRUPT with the byte offset. */
int data_untransform(const uint8_t *p, size_t len, struct buf *out, struct err *err);

#endif
