/* SPDX-License-Identifier: MIT */
/*
 * The SAMPLE_SUMS block (FORMAT.md 5.12, since 1.9): a recording's records
 * as a reading hands them on in time order, with the samples that cannot
 * differ in anything but their time and period summed: each class's first
 * sample stands for the class, with its count and the sum of its periods.
 * Written once the recording is over, from a reading of the file, so that
 * a view whose outcome of a sample depends on nothing else (prep report's
 * histogram) can skip reading the DATA blocks; it says which bytes of the
 * file it was made from (their CRC-32), so that a reader uses it only on
 * those very bytes.
 *
 * samplesums_decode checks the block's own rules; whether its records
 * decode as the file's events describe them is the session's to check
 * (report/core/session_counts.c). The items point into the payload, which
 * must outlive them.
 */
#ifndef PREC_FORMAT_SAMPLESUMS_H
#define PREC_FORMAT_SAMPLESUMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/err.h"

#define SAMPLESUMS_HEADER_SIZE 48
#define SAMPLESUMS_ITEM_SIZE 24         /* an item's head, before its record */
#define SAMPLESUMS_SUM 0x1              /* item flags: a class's first sample */

struct samplesums_item {
	const uint8_t *rec;             /* the record's bytes, in the payload */
	uint32_t len;
	bool sum;
	uint64_t count, period;         /* a class's; 0 for another record */
};

struct samplesums {
	uint64_t covered_end;           /* the file offset of this block's header */
	uint32_t covered_crc;           /* CRC-32 of the file's bytes [64, covered_end) */
	uint32_t nr_events;             /* the file's EVENT blocks */
	uint64_t samples, tmin, tmax;   /* of all the samples (the reading's counts) */
	struct samplesums_item *items;
	size_t nr_items;
};

/* The payload p[0..len) decoded, its rules checked: 0 and *out (free with
 * samplesums_free), -EINVAL with err (corrupt), or -ENOMEM. */
int samplesums_decode(const uint8_t *p, size_t len, struct samplesums *out, struct err *err);
void samplesums_free(struct samplesums *s);

/* Writing: a payload begun with samplesums_begin (its header zero), then
 * items added in order; a class's count and period set in place (at the
 * offset samplesums_add gave) once known; samplesums_finish fills the
 * header. */
int samplesums_begin(struct buf *b);
/* Add an item: 0 and *at (where its count lies), or -ENOMEM. */
int samplesums_add(struct buf *b, const uint8_t *rec, uint32_t len, bool sum, uint64_t period,
		   size_t *at);
/* The count and period of the class whose item lies at `at`. */
void samplesums_set(struct buf *b, size_t at, uint64_t count, uint64_t period);
void samplesums_finish(struct buf *b, const struct samplesums *head, size_t nr_items);
/* A finished payload's covered_end and covered_crc set (what the writer
 * knows last), and its number of items. */
void samplesums_cover(struct buf *b, uint64_t covered_end, uint32_t covered_crc);
size_t samplesums_nr_items(const struct buf *b);

#endif
