/* SPDX-License-Identifier: MIT */
/*
 * A bounds-checked reading cursor over bytes that came from a file or a ring
 * buffer. Every read checks the remaining length first; a read that does not
 * fit fails (returns false), consumes nothing and sets `bad`, so a sequence of
 * reads can be checked once at the end. Nothing ever reads past p + len.
 *
 * cur_le* read little-endian (the container's own fields); cur_h* read in host
 * byte order (raw kernel records, which the kernel writes in host order; the
 * container refuses files of the other byte order before records are read).
 */
#ifndef PREC_COMMON_CURSOR_H
#define PREC_COMMON_CURSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct cursor {
	const uint8_t *p;
	size_t len;
	size_t off;
	bool bad;
};

static inline struct cursor cur_make(const void *p, size_t len)
{
	struct cursor c = { (const uint8_t *)p, len, 0, false };
	return c;
}

static inline size_t cur_left(const struct cursor *c)
{
	return c->len - c->off;
}

/* Return a pointer to the next n bytes and advance, or NULL if fewer remain. */
static inline const uint8_t *cur_take(struct cursor *c, size_t n)
{
	const uint8_t *p;

	if (n > cur_left(c)) {
		c->bad = true;
		return NULL;
	}
	p = c->p + c->off;
	c->off += n;
	return p;
}

static inline bool cur_skip(struct cursor *c, size_t n)
{
	return cur_take(c, n) != NULL;
}

static inline bool cur_le(struct cursor *c, int n, uint64_t *v)
{
	const uint8_t *p = cur_take(c, (size_t)n);
	uint64_t x = 0;

	if (!p)
		return false;
	for (int i = 0; i < n; i++)
		x |= (uint64_t)p[i] << (8 * i);
	*v = x;
	return true;
}

static inline bool cur_le8(struct cursor *c, uint8_t *v)
{
	uint64_t x;
	if (!cur_le(c, 1, &x))
		return false;
	*v = (uint8_t)x;
	return true;
}

static inline bool cur_le16(struct cursor *c, uint16_t *v)
{
	uint64_t x;
	if (!cur_le(c, 2, &x))
		return false;
	*v = (uint16_t)x;
	return true;
}

static inline bool cur_le32(struct cursor *c, uint32_t *v)
{
	uint64_t x;
	if (!cur_le(c, 4, &x))
		return false;
	*v = (uint32_t)x;
	return true;
}

static inline bool cur_le64(struct cursor *c, uint64_t *v)
{
	return cur_le(c, 8, v);
}

static inline bool cur_h16(struct cursor *c, uint16_t *v)
{
	const uint8_t *p = cur_take(c, 2);
	if (!p)
		return false;
	memcpy(v, p, 2);
	return true;
}

static inline bool cur_h32(struct cursor *c, uint32_t *v)
{
	const uint8_t *p = cur_take(c, 4);
	if (!p)
		return false;
	memcpy(v, p, 4);
	return true;
}

static inline bool cur_h64(struct cursor *c, uint64_t *v)
{
	const uint8_t *p = cur_take(c, 8);
	if (!p)
		return false;
	memcpy(v, p, 8);
	return true;
}

/* Read an array of n host-order u64: returns a pointer to the first byte (not
 * necessarily aligned; read elements with u64_at) or NULL if it does not fit. */
static inline const uint8_t *cur_h64_array(struct cursor *c, uint64_t n)
{
	if (n > cur_left(c) / 8) {
		c->bad = true;
		return NULL;
	}
	return cur_take(c, (size_t)n * 8);
}

static inline uint64_t u64_at(const uint8_t *p, size_t i)
{
	uint64_t v;
	memcpy(&v, p + 8 * i, 8);
	return v;
}

#endif
