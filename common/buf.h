/* SPDX-License-Identifier: MIT */
/*
 * A growable byte buffer.
 *
 * Invariants: data is NULL exactly when cap is 0; len <= cap; the bytes
 * [0, len) are the content and are owned by the buffer. buf_free() releases
 * them and leaves an empty buffer that can be reused. Pointers into data are
 * valid until the next call that may grow the buffer (buf_reserve,
 * buf_append*, buf_put*). Growth is overflow-checked: a request that cannot be
 * represented fails with -ENOMEM instead of wrapping.
 */
#ifndef PREC_COMMON_BUF_H
#define PREC_COMMON_BUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct buf {
	uint8_t *data;
	size_t len;
	size_t cap;
};

#define BUF_INIT { NULL, 0, 0 }

/* Little-endian integers in place: a payload's fields set once known, or
 * read where no cursor walks them. */
static inline void le_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void le_put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void le_put64(uint8_t *p, uint64_t v)
{
	le_put32(p, (uint32_t)v);
	le_put32(p + 4, (uint32_t)(v >> 32));
}

static inline uint16_t le_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t le_get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t le_get64(const uint8_t *p)
{
	return (uint64_t)le_get32(p) | (uint64_t)le_get32(p + 4) << 32;
}

/* Make room for at least `more` bytes past len. 0 or -ENOMEM. */
int buf_reserve(struct buf *b, size_t more);
int buf_append(struct buf *b, const void *p, size_t n);
int buf_append_zero(struct buf *b, size_t n);
/* Little-endian fixed-width appends. */
int buf_put_u8(struct buf *b, uint8_t v);
int buf_put_u16(struct buf *b, uint16_t v);
int buf_put_u32(struct buf *b, uint32_t v);
int buf_put_u64(struct buf *b, uint64_t v);
/* printf onto the end of b: len counts the bytes written, a NUL follows
 * them (not counted). 0, -ENOMEM, or -EINVAL for a bad format. */
int buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int buf_vprintf(struct buf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
void buf_reset(struct buf *b);   /* len = 0, memory kept */
void buf_free(struct buf *b);    /* NULL-tolerant */
/* Write all n bytes of p to fd, past short writes and EINTR: true when
 * written (the files prep keeps between runs). */
bool fd_write_all(int fd, const void *p, size_t n);

/* Overflow-checked size helpers: 0 on success, -ENOMEM if a*b or a+b wraps. */
int size_mul(size_t a, size_t b, size_t *out);
/* Grow an array of `size`-byte elements to hold at least `need` (capacity
 * doubling, overflow-checked). 0 or -ENOMEM; *p and *cap are kept on failure. */
int array_grow(void **p, size_t *cap, size_t need, size_t size);
/* realloc() for exactly n elements of `size` bytes (reallocarray): the new
 * array, or NULL with p untouched when n * size wraps or memory is short.
 * n 0 still gives a (minimal) array, so NULL always means failure. The one
 * way to resize memory: common/banned.h bans realloc elsewhere. */
void *array_realloc(void *p, size_t n, size_t size);
int size_add(size_t a, size_t b, size_t *out);

#endif
