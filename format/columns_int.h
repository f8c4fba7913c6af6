/* SPDX-License-Identifier: MIT */
/*
 * What the COLUMNS encoder and decoder (FORMAT.md 6.4) share: the field
 * kinds of a shape, the varints, and the table of context states.
 */
#ifndef PREC_FORMAT_COLUMNS_INT_H
#define PREC_FORMAT_COLUMNS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/buf.h"

#define F_WORD 1
#define F_ARRAY 2
#define F_STACK 3

#define CTX_CPU 0
#define CTX_KEY 1

#define PRED_PREV 0
#define PRED_ADD 1
#define PRED_EQ 2

#define NO_FIELD 255
#define MAX_SHAPES 255
#define MAX_FIELDS 64
#define COL_CONTROL 0
#define COL_VERBATIM 1
#define COL_TABLE 2
#define COL_MISC 3
#define FIXED_COLUMNS 4
#define MAX_TABLE (1u << 20)
#define MAX_RECORD 65535u

struct field {
	uint8_t kind;
	uint8_t ctx;            /* WORD */
	uint8_t pred;           /* WORD */
	uint8_t ref;            /* WORD ADD: the field added; EQ: the field read; STACK: the SP field */
	uint8_t word;           /* WORD EQ: the word of field ref */
	uint16_t col;           /* its first column */
	uint8_t code;           /* decoder: what to do, from the above */
};

struct shape {
	uint32_t type;
	uint8_t key;            /* the key field, NO_FIELD for none */
	uint8_t nr_fields;
	uint8_t stack;          /* the STACK field, NO_FIELD for none */
	uint8_t nr_eq;          /* decoder: the WORD fields of pred EQ */
	uint8_t eq[MAX_FIELDS];
	struct field f[MAX_FIELDS];
};

/* Columns a field takes: WORD and ARRAY one, STACK three (sizes, runs,
 * XOR bytes). */
static inline unsigned field_columns(uint8_t kind)
{
	return kind == F_STACK ? 3 : 1;
}

static inline uint64_t zz_enc(uint64_t d)
{
	return (d << 1) ^ (uint64_t)((int64_t)d >> 63);
}

static inline uint64_t zz_dec(uint64_t u)
{
	return (u >> 1) ^ (0 - (u & 1));
}

static inline uint64_t le64_get(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

static inline void le64_put(uint8_t *p, uint64_t v)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	memcpy(p, &v, 8);
}

/* A cursor over one column. */
struct col {
	const uint8_t *p, *end;
};

/* An unsigned LEB128 varint of at most 10 bytes; false at the column's end
 * or on a value over 64 bits. Up to 8 bytes are read at once where the
 * column has them: the 7-bit groups gathered without a loop. */
static inline bool col_varint(struct col *c, uint64_t *v)
{
	uint64_t x = 0, stop;
	unsigned shift = 0;

	if (c->p < c->end && *c->p < 0x80) {    /* most values are one byte */
		*v = *c->p++;
		return true;
	}
	if (c->end - c->p >= 8) {
		memcpy(&x, c->p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		x = __builtin_bswap64(x);
#endif
		stop = ~x & 0x8080808080808080ull;
		if (stop) {
			unsigned n = (unsigned)__builtin_ctzll(stop) / 8 + 1;

			x &= (~0ull >> (64 - 8 * n)) & 0x7F7F7F7F7F7F7F7Full;
			x = ((x & 0x7F007F007F007F00ull) >> 1) | (x & 0x007F007F007F007Full);
			x = ((x & 0x3FFF00003FFF0000ull) >> 2) | (x & 0x00003FFF00003FFFull);
			x = ((x & 0x0FFFFFFF00000000ull) >> 4) | (x & 0x000000000FFFFFFFull);
			c->p += n;
			*v = x;
			return true;
		}
		x = 0;
	}
	while (c->p < c->end) {
		uint8_t b = *c->p++;

		if (shift == 63 && b > 1)
			return false;
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return true;
		}
		shift += 7;
		if (shift > 63)
			return false;
	}
	return false;
}

/* A stack copy (cur: size bytes, of which dyn are valid) against the
 * previous one (prev: pe valid bytes; none when pe is 0), aligned so that
 * byte i of cur faces byte i + shift of prev (|shift| < both lengths, or pe
 * 0). */
struct stack_cmp {
	const uint8_t *cur, *prev;
	int64_t size, dyn, pe, shift;
};

/* The units of cur that differ into units (room for (size + 7) / 8), their
 * XOR bytes appended to x: their number, or -1 when out of memory. */
long stack_diff(const struct stack_cmp *c, uint32_t *units, struct buf *x);

/* The states of contexts: (shape, context kind, key) to an index, open
 * addressing, no deletion. */
struct ctx_slot {
	uint64_t key;
	uint32_t tag;           /* shape << 1 | ctx, + 1; 0 = empty */
	uint32_t idx;
};

struct ctx_table {
	struct ctx_slot *slots;
	size_t cap, nr;         /* cap a power of two */
};

static inline size_t ctx_hash(uint64_t key, uint32_t tag, size_t mask)
{
	uint64_t h = (key ^ ((uint64_t)tag << 40)) * 0x9E3779B97F4A7C15ull;

	return (size_t)(h >> 32) & mask;
}

/* The index of (tag, key), adding it as `next` when missing (*added set).
 * -1 when out of memory. */
long ctx_lookup(struct ctx_table *t, uint32_t tag, uint64_t key, uint32_t next, bool *added);
void ctx_table_reset(struct ctx_table *t);
void ctx_table_free(struct ctx_table *t);

#endif
