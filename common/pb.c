/* SPDX-License-Identifier: MIT */
/* Protocol buffers encoding; see pb.h. */
#include "pb.h"

#include <errno.h>
#include <string.h>

size_t pb_varint_size(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

/* Writes the varint at p (room for pb_varint_size(v) bytes). */
static void varint_at(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p = (uint8_t)v;
}

int pb_varint(struct buf *b, uint64_t v)
{
	size_t n = pb_varint_size(v);

	if (buf_reserve(b, n))
		return -ENOMEM;
	varint_at(b->data + b->len, v);
	b->len += n;
	return 0;
}

int pb_tag(struct buf *b, uint32_t field, enum pb_wire wire)
{
	return pb_varint(b, (uint64_t)field << 3 | (uint64_t)wire);
}

int pb_uint64(struct buf *b, uint32_t field, uint64_t v)
{
	return pb_tag(b, field, PB_VARINT) || pb_varint(b, v) ? -ENOMEM : 0;
}

int pb_int64(struct buf *b, uint32_t field, int64_t v)
{
	return pb_uint64(b, field, (uint64_t)v);
}

int pb_sint64(struct buf *b, uint32_t field, int64_t v)
{
	return pb_uint64(b, field, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

int pb_bytes(struct buf *b, uint32_t field, const void *p, size_t n)
{
	if (pb_tag(b, field, PB_LEN) || pb_varint(b, n) || buf_append(b, p, n))
		return -ENOMEM;
	return 0;
}

/* The length of the valid UTF-8 sequence at p, or 0 (RFC 3629: no
 * overlong forms, no surrogates, nothing above U+10FFFF). */
static size_t utf8_seq(const uint8_t *p, size_t n)
{
	uint8_t c = p[0], lo = 0x80, hi = 0xbf;
	size_t len;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (n < len || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

size_t pb_utf8_valid(const char *s, size_t n)
{
	const uint8_t *p = (const uint8_t *)s;
	size_t i = 0, k;

	while (i < n && (k = utf8_seq(p + i, n - i)))
		i += k;
	return i;
}

int pb_string(struct buf *b, uint32_t field, const char *s, size_t n)
{
	static const uint8_t fffd[3] = { 0xef, 0xbf, 0xbd };
	const uint8_t *p = (const uint8_t *)s;
	size_t out = 0, i, k;

	if (pb_utf8_valid(s, n) == n)
		return pb_bytes(b, field, s, n);
	for (i = 0; i < n; i += k ? k : 1)
		out += (k = utf8_seq(p + i, n - i)) ? k : sizeof(fffd);
	if (pb_tag(b, field, PB_LEN) || pb_varint(b, out) || buf_reserve(b, out))
		return -ENOMEM;
	for (i = 0; i < n; i += k ? k : 1) {
		k = utf8_seq(p + i, n - i);
		buf_append(b, k ? p + i : fffd, k ? k : sizeof(fffd));  /* reserved: cannot fail */
	}
	return 0;
}

int pb_packed_uint64(struct buf *b, uint32_t field, const uint64_t *v, size_t n)
{
	size_t len = 0;

	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++)
		len += pb_varint_size(v[i]);
	if (pb_tag(b, field, PB_LEN) || pb_varint(b, len) || buf_reserve(b, len))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		varint_at(b->data + b->len, v[i]);
		b->len += pb_varint_size(v[i]);
	}
	return 0;
}

int pb_packed_int64(struct buf *b, uint32_t field, const int64_t *v, size_t n)
{
	size_t len = 0;

	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++)
		len += pb_varint_size((uint64_t)v[i]);
	if (pb_tag(b, field, PB_LEN) || pb_varint(b, len) || buf_reserve(b, len))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		varint_at(b->data + b->len, (uint64_t)v[i]);
		b->len += pb_varint_size((uint64_t)v[i]);
	}
	return 0;
}

int pb_begin(struct buf *b, uint32_t field, size_t *mark)
{
	if (pb_tag(b, field, PB_LEN) || buf_reserve(b, 1))
		return -ENOMEM;
	*mark = b->len;
	b->data[b->len++] = 0;  /* the length, one byte for now */
	return 0;
}

int pb_end(struct buf *b, size_t mark)
{
	size_t len = b->len - mark - 1, k = pb_varint_size(len);

	if (k > 1) {
		if (buf_reserve(b, k - 1))
			return -ENOMEM;
		memmove(b->data + mark + k, b->data + mark + 1, len);
		b->len += k - 1;
	}
	varint_at(b->data + mark, len);
	return 0;
}
