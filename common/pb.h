/* SPDX-License-Identifier: MIT */
/*
 * Protocol buffers, the encoding half, appended to a struct buf. Enough for
 * writers of small schemas by hand (prep export --pprof): no descriptors, no
 * reflection, no decoding.
 *
 * The wire format in one paragraph: a message is a sequence of fields, each
 * a tag varint (field number << 3 | wire type) and a value. Wire type 0 is a
 * varint (7 bits a byte, least significant group first, high bit set on all
 * but the last byte); 2 is length-delimited (a varint length, then that many
 * bytes: strings, bytes, nested messages and packed repeated scalars). int64
 * values are varints of their two's complement, so a negative one takes ten
 * bytes; sint64 zigzag-maps them first (-1 -> 1, 1 -> 2). Fields may come in
 * any order and repeat; a repeated scalar may be packed (one length-delimited
 * field holding the varints back to back).
 *
 * Every function appends to b and returns 0, or -ENOMEM with b's content
 * unchanged up to what was already complete (a failed call may leave a
 * partial field: the caller drops the buffer). Nothing is written for a
 * packed field with no values; scalar fields are written even when 0 (proto3
 * lets a writer omit zeros: that is the caller's choice).
 */
#ifndef PREC_COMMON_PB_H
#define PREC_COMMON_PB_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

enum pb_wire {
	PB_VARINT = 0,
	PB_I64 = 1,
	PB_LEN = 2,
	PB_I32 = 5,
};

/* Bytes the varint of v takes (1 to 10). */
size_t pb_varint_size(uint64_t v);

int pb_varint(struct buf *b, uint64_t v);
int pb_tag(struct buf *b, uint32_t field, enum pb_wire wire);

/* Scalar fields: uint64 (also uint32, bool, enum), int64 (two's
 * complement), sint64 (zigzag). */
int pb_uint64(struct buf *b, uint32_t field, uint64_t v);
int pb_int64(struct buf *b, uint32_t field, int64_t v);
int pb_sint64(struct buf *b, uint32_t field, int64_t v);

/* Length-delimited bytes; a string whose bytes are not valid UTF-8 gets
 * each invalid byte replaced by U+FFFD (proto3 decoders reject invalid
 * UTF-8 in string fields). */
int pb_bytes(struct buf *b, uint32_t field, const void *p, size_t n);
int pb_string(struct buf *b, uint32_t field, const char *s, size_t n);

/* Packed repeated uint64 / int64: one field, nothing when n is 0. */
int pb_packed_uint64(struct buf *b, uint32_t field, const uint64_t *v, size_t n);
int pb_packed_int64(struct buf *b, uint32_t field, const int64_t *v, size_t n);

/* A nested message: pb_begin writes the tag and reserves the length, the
 * fields follow, pb_end fills the length in (moving the fields when the
 * length needs more than one byte). *mark is what pb_end needs; nesting is
 * allowed (end the inner one first). */
int pb_begin(struct buf *b, uint32_t field, size_t *mark);
int pb_end(struct buf *b, size_t mark);

/* The length of the longest prefix of s[0..n) that is valid UTF-8 (n when
 * all of it is). */
size_t pb_utf8_valid(const char *s, size_t n);

#endif
