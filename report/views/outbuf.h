/* SPDX-License-Identifier: MIT */
/*
 * Buffered text output without printf on the hot path: prep script writes
 * millions of short fields, and formatting them through vfprintf was most
 * of its time. Numbers are converted by hand; rare lines may use ob_printf.
 */
#ifndef PREC_REPORT_OUTBUF_H
#define PREC_REPORT_OUTBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct obuf {
	FILE *f;
	size_t n;
	unsigned flushes;       /* times b was written out */
	char b[1 << 16];
};

static inline void ob_flush(struct obuf *o)
{
	if (o->n)
		fwrite(o->b, 1, o->n, o->f);
	o->n = 0;
	o->flushes++;
}

static inline void ob_mem(struct obuf *o, const char *p, size_t len)
{
	if (o->n + len > sizeof(o->b)) {
		ob_flush(o);
		if (len > sizeof(o->b)) {
			fwrite(p, 1, len, o->f);
			return;
		}
	}
	memcpy(o->b + o->n, p, len);
	o->n += len;
}

static inline void ob_str(struct obuf *o, const char *s)
{
	ob_mem(o, s, strlen(s));
}

static inline void ob_chr(struct obuf *o, char c)
{
	if (o->n == sizeof(o->b))
		ob_flush(o);
	o->b[o->n++] = c;
}

/* v in decimal, right-aligned in width with pad (' ' or '0'), or
 * left-aligned (padded with spaces after) when left. */
static inline void ob_dec(struct obuf *o, uint64_t v, int width, char pad, bool left)
{
	char t[24];
	int k = 0, digits;

	do {
		t[k++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	digits = k;
	if (!left)
		for (int i = digits; i < width; i++)
			ob_chr(o, pad);
	while (k)
		ob_chr(o, t[--k]);
	if (left)
		for (int i = digits; i < width; i++)
			ob_chr(o, ' ');
}

/* Room for len bytes (at most sizeof(b)) at the end of b, flushing first
 * when there is not: where to write them, ob_wrote with their end then. */
static inline char *ob_room(struct obuf *o, size_t len)
{
	if (o->n + len > sizeof(o->b))
		ob_flush(o);
	return o->b + o->n;
}

static inline void ob_wrote(struct obuf *o, const char *end)
{
	o->n = (size_t)(end - o->b);
}

/* ob_dec right-aligned, at p (room for max(width, 20) bytes): the end. */
static inline char *ob_put_dec(char *p, uint64_t v, int width, char pad)
{
	char t[24];
	int k = 0;

	do {
		t[k++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (int i = k; i < width; i++)
		*p++ = pad;
	while (k)
		*p++ = t[--k];
	return p;
}

/* v in lower-case hex, right-aligned in width with spaces. */
static inline void ob_hex(struct obuf *o, uint64_t v, int width)
{
	char t[20];
	int k = 0;

	do {
		t[k++] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	for (int i = k; i < width; i++)
		ob_chr(o, ' ');
	while (k)
		ob_chr(o, t[--k]);
}

static inline void ob_printf(struct obuf *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static inline void ob_printf(struct obuf *o, const char *fmt, ...)
{
	char tmp[4096];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0)
		ob_mem(o, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

#endif
