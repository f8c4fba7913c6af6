/* SPDX-License-Identifier: MIT */
#include "buf.h"

#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the one place realloc is called (common/banned.h) */
#undef realloc

int size_mul(size_t a, size_t b, size_t *out)
{
	if (__builtin_mul_overflow(a, b, out))
		return -ENOMEM;
	return 0;
}

int size_add(size_t a, size_t b, size_t *out)
{
	if (__builtin_add_overflow(a, b, out))
		return -ENOMEM;
	return 0;
}

int buf_reserve(struct buf *b, size_t more)
{
	size_t need, cap;
	uint8_t *p;

	if (size_add(b->len, more, &need))
		return -ENOMEM;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 64;
	while (cap < need) {
		if (size_mul(cap, 2, &cap))
			return -ENOMEM;
	}
	p = array_realloc(b->data, cap, 1);
	if (!p)
		return -ENOMEM;
	b->data = p;
	b->cap = cap;
	return 0;
}

int buf_append(struct buf *b, const void *p, size_t n)
{
	int ret;

	if (n == 0)
		return 0;
	ret = buf_reserve(b, n);
	if (ret)
		return ret;
	memcpy(b->data + b->len, p, n);
	b->len += n;
	return 0;
}

int buf_append_zero(struct buf *b, size_t n)
{
	int ret = buf_reserve(b, n);

	if (ret)
		return ret;
	memset(b->data + b->len, 0, n);
	b->len += n;
	return 0;
}

static int put_le(struct buf *b, uint64_t v, int n)
{
	uint8_t tmp[8];

	for (int i = 0; i < n; i++)
		tmp[i] = (uint8_t)(v >> (8 * i));
	return buf_append(b, tmp, (size_t)n);
}

int buf_put_u8(struct buf *b, uint8_t v) { return put_le(b, v, 1); }
int buf_put_u16(struct buf *b, uint16_t v) { return put_le(b, v, 2); }
int buf_put_u32(struct buf *b, uint32_t v) { return put_le(b, v, 4); }
int buf_put_u64(struct buf *b, uint64_t v) { return put_le(b, v, 8); }

void buf_reset(struct buf *b)
{
	b->len = 0;
}

void buf_free(struct buf *b)
{
	if (!b)
		return;
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

int array_grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap : 16;
	void *n;

	if (need <= *cap)
		return 0;
	while (c < need) {
		if (c > SIZE_MAX / 2)
			return -ENOMEM;
		c *= 2;
	}
	n = array_realloc(*p, c, size);
	if (!n)
		return -ENOMEM;
	*p = n;
	*cap = c;
	return 0;
}

void *array_realloc(void *p, size_t n, size_t size)
{
	size_t bytes;

	if (size_mul(n, size, &bytes))
		return NULL;
	return realloc(p, bytes ? bytes : 1);
}

int buf_vprintf(struct buf *b, const char *fmt, va_list ap)
{
	size_t room = b->cap - b->len;
	va_list again;
	int n;

	va_copy(again, ap);
	n = vsnprintf(room ? (char *)b->data + b->len : NULL, room, fmt, ap);
	if (n >= 0 && (size_t)n >= room) {
		if (buf_reserve(b, (size_t)n + 1))
			n = -ENOMEM;
		else
			vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, again);
	}
	va_end(again);
	if (n < 0)
		return n == -ENOMEM ? n : -EINVAL;
	b->len += (size_t)n;
	return 0;
}

int buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = buf_vprintf(b, fmt, ap);
	va_end(ap);
	return ret;
}

bool fd_write_all(int fd, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n) {
		ssize_t w = write(fd, b, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		b += w;
		n -= (size_t)w;
	}
	return true;
}
