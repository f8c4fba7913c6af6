/* SPDX-License-Identifier: MIT */
/*
 * The COLUMNS encoding of DATA block payloads (FORMAT.md 6.4). Internal to
 * format/: the writer applies it, the reader undoes it. Since 1.8 the
 * writer's default; the TRANSFORMED rewrite of 6.3 (transform.h) is still
 * read.
 */
#ifndef PREC_FORMAT_COLUMNS_H
#define PREC_FORMAT_COLUMNS_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/err.h"

struct record_layouts;

/* The encoder's state kept between blocks: its buffers, and what it learnt
 * of each event's timestamps. One per writer; not thread-safe. */
struct columns_enc;

struct columns_enc *columns_enc_new(void);
void columns_enc_free(struct columns_enc *e);   /* NULL-tolerant */

/* Encode the DATA payload p[0..len) into out. The payload must be valid
 * (whole records in spans, as the writer builds it); records the layouts
 * do not describe are kept verbatim. The bytes of a user-stack copy past
 * its dyn_size are encoded as zeros (FORMAT.md 5.3). 0 or a negative
 * code. */
int columns_encode(struct columns_enc *e, const struct record_layouts *ls, const uint8_t *p,
		   size_t len, struct buf *out, struct err *err);

/* Undo it: out receives the DATA payload. Never reads outside p[0..len);
 * malformed input is -PREC_ECORRUPT with the byte offset in err. */
int columns_decode(const uint8_t *p, size_t len, struct buf *out, struct err *err);

/* The same with lazy stack copies (stack_lazy.h): the copies that fit are
 * left as descriptors naming the block at file offset block, and the
 * offsets in out of the records that hold one are written to marks (u32
 * each, ascending). */
struct columns_lazy {
	uint64_t block;
	struct buf *marks;
};

int columns_decode_lazy(const uint8_t *p, size_t len, struct buf *out,
			const struct columns_lazy *lz, struct err *err);

#endif
