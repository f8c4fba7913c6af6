/* SPDX-License-Identifier: MIT */
/*
 * A bounded scanner over one line of text (a /proc file's line, a kallsyms
 * line): every step checks the end first and nothing reads past it. A
 * failed step returns false; what it consumed is left consumed.
 */
#ifndef PREC_COMMON_SCAN_H
#define PREC_COMMON_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "text.h"

struct scan {
	const char *p, *end;
};

static inline struct scan scan_line(const char *line, size_t len)
{
	struct scan s = { line, line + len };

	if (len && line[len - 1] == '\n')
		s.end--;
	return s;
}

/* 1 to max_digits hex digits (max_digits <= 16: no overflow) */
static inline bool scan_hex(struct scan *s, unsigned max_digits, uint64_t *v)
{
	unsigned n = 0;
	uint64_t x = 0;
	int d;

	while (s->p < s->end && (d = hex_digit(*s->p)) >= 0) {
		if (++n > max_digits)
			return false;
		x = x << 4 | (uint64_t)d;
		s->p++;
	}
	*v = x;
	return n > 0;
}

static inline bool scan_dec(struct scan *s, uint64_t *v)
{
	uint64_t x = 0;
	bool any = false;

	while (s->p < s->end && *s->p >= '0' && *s->p <= '9') {
		if (__builtin_mul_overflow(x, 10, &x) ||
		    __builtin_add_overflow(x, (uint64_t)(*s->p - '0'), &x))
			return false;
		s->p++;
		any = true;
	}
	*v = x;
	return any;
}

static inline bool scan_char(struct scan *s, char c)
{
	if (s->p >= s->end || *s->p != c)
		return false;
	s->p++;
	return true;
}

static inline void scan_skip(struct scan *s, const char *set)
{
	while (s->p < s->end && *s->p && strchr(set, *s->p))
		s->p++;
}

/* the next run of non-blanks; false at the end */
static inline bool scan_token(struct scan *s, struct scan *tok)
{
	scan_skip(s, " \t");
	tok->p = s->p;
	while (s->p < s->end && *s->p != ' ' && *s->p != '\t')
		s->p++;
	tok->end = s->p;
	return tok->p < tok->end;
}

static inline size_t scan_left(const struct scan *s)
{
	return (size_t)(s->end - s->p);
}

#endif
