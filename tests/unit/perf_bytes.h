/* SPDX-License-Identifier: MIT */
/*
 * Building perf.data bytes by hand in unit tests: a fixed buffer, host-order
 * integers, perf's padded strings and records whose header.size is filled
 * in at the end. Include after <cmocka.h>.
 */
#ifndef PREC_TESTS_PERF_BYTES_H
#define PREC_TESTS_PERF_BYTES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct bb {
	uint8_t b[16384];
	size_t len, start;
};

static inline void put(struct bb *r, const void *p, size_t n)
{
	assert_true(r->len + n <= sizeof(r->b));
	memcpy(r->b + r->len, p, n);
	r->len += n;
}

static inline void p8(struct bb *r, uint8_t v) { put(r, &v, 1); }
static inline void p16(struct bb *r, uint16_t v) { put(r, &v, 2); }
static inline void p32(struct bb *r, uint32_t v) { put(r, &v, 4); }
static inline void p64(struct bb *r, uint64_t v) { put(r, &v, 8); }

static inline void set64(struct bb *r, size_t off, uint64_t v)
{
	memcpy(r->b + off, &v, 8);
}

/* perf's string: u32 length (a multiple of 64), then the NUL-padded text */
static inline void pstring(struct bb *r, const char *s)
{
	uint32_t n = (uint32_t)((strlen(s) + 1 + 63) / 64 * 64);
	char buf[256] = { 0 };

	assert_true(n <= sizeof(buf));
	memcpy(buf, s, strlen(s));
	p32(r, n);
	put(r, buf, n);
}

/* A record: its header now, its size once its fields are in. */
static inline void begin(struct bb *r, uint32_t type, uint16_t misc)
{
	r->start = r->len;
	p32(r, type);
	p16(r, misc);
	p16(r, 0);
}

static inline void end_unpadded(struct bb *r)
{
	uint16_t size = (uint16_t)(r->len - r->start);

	memcpy(r->b + r->start + 6, &size, 2);
}

/* the record padded to 8 bytes, as perf writes them */
static inline void end(struct bb *r)
{
	while ((r->len - r->start) % 8)
		p8(r, 0);
	end_unpadded(r);
}

#endif
