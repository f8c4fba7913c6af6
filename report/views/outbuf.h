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

/* How many decimal digits v has. */
static inline int ob_ndigits(uint64_t v)
{
	static const uint64_t tens[] = {
		10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
		100000000ull, 1000000000ull, 10000000000ull, 100000000000ull,
		1000000000000ull, 10000000000000ull, 100000000000000ull,
		1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
		1000000000000000000ull, 10000000000000000000ull,
	};
	int k = 1;

	while (k < 20 && v >= tens[k - 1])
		k++;
	return k;
}

/* "00" to "99" */
static const char ob_pairs[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* The decimal digits of v (ob_ndigits of them), two at a time, ending
 * just before e. */
static inline void ob_digits_before(char *e, uint64_t v)
{
	const char *pairs = ob_pairs;

	while (v >= 100) {
		uint64_t r = v % 100;

		e -= 2;
		e[0] = pairs[2 * r];
		e[1] = pairs[2 * r + 1];
		v /= 100;
	}
	if (v >= 10) {
		e[-2] = pairs[2 * v];
		e[-1] = pairs[2 * v + 1];
	} else {
		e[-1] = (char)('0' + v);
	}
}

/* v in decimal, right-aligned in width with pad (' ' or '0'), or
 * left-aligned (padded with spaces after) when left. */
static inline void ob_dec(struct obuf *o, uint64_t v, int width, char pad, bool left)
{
	char t[24];
	int digits = ob_ndigits(v);

	ob_digits_before(t + digits, v);
	if (!left)
		for (int i = digits; i < width; i++)
			ob_chr(o, pad);
	ob_mem(o, t, (size_t)digits);
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

/* v < 10^n as exactly n digits (zeros in front), at p: the end. */
static inline char *ob_put_fixed(char *p, uint64_t v, int n)
{
	for (int i = n - 1; i > 0; i -= 2) {
		uint64_t r = v % 100;

		p[i - 1] = ob_pairs[2 * r];
		p[i] = ob_pairs[2 * r + 1];
		v /= 100;
	}
	if (n % 2)
		p[0] = (char)('0' + v % 10);
	return p + n;
}

/* ob_dec right-aligned, at p (room for max(width, 20) bytes): the end. */
static inline char *ob_put_dec(char *p, uint64_t v, int width, char pad)
{
	int k = ob_ndigits(v);

	if (width - k > 0 && width - k <= 8) {
		/* one store of eight (the room holds them), the digits after */
		uint64_t w = (uint8_t)pad * 0x0101010101010101ull;

		memcpy(p, &w, 8);
		p += width - k;
	} else {
		for (int i = k; i < width; i++)
			*p++ = pad;
	}
	ob_digits_before(p + k, v);
	return p + k;
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
