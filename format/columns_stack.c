/* SPDX-License-Identifier: MIT */
/*
 * A user-stack copy against the thread's previous one, for the COLUMNS
 * encoder (FORMAT.md 6.4): which 8-byte units differ once the two are
 * aligned on the stack pointer, and their XOR bytes. Runs of equal units
 * are skipped four words at a time; the bytes past each copy's dyn_size
 * count as zeros, as they are stored.
 */
#include "columns_int.h"

/* n <= 8 bytes of a copy from index i, zero outside [0, valid). */
static uint64_t unit_of(const uint8_t *b, int64_t valid, int64_t i, size_t n)
{
	uint64_t v = 0;

	if (i >= 0 && i + (int64_t)n <= valid) {
		memcpy(&v, b + i, n);
		return v;
	}
	for (size_t k = 0; k < n; k++)
		if (i + (int64_t)k >= 0 && i + (int64_t)k < valid)
			((uint8_t *)&v)[k] = b[i + (int64_t)k];
	return v;
}

/* Units [u, end) where both copies are whole words: the first that differs,
 * or end. */
static size_t same_run(const struct stack_cmp *c, size_t u, size_t end)
{
	const uint8_t *a = c->cur, *b = c->prev + c->shift;

	for (; u + 4 <= end; u += 4) {
		uint64_t x[4], y[4];

		memcpy(x, a + 8 * u, 32);
		memcpy(y, b + 8 * u, 32);
		if ((x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2]) | (x[3] ^ y[3]))
			break;
	}
	for (; u < end; u++) {
		uint64_t x, y;

		memcpy(&x, a + 8 * u, 8);
		memcpy(&y, b + 8 * u, 8);
		if (x != y)
			break;
	}
	return u;
}

static int64_t div_up(int64_t a)
{
	return a <= 0 ? 0 : (a + 7) / 8;
}

long stack_diff(const struct stack_cmp *c, uint32_t *units_out, struct buf *x)
{
	size_t units = (size_t)div_up(c->size), m = 0, u = 0;
	int64_t f0 = c->shift >= 0 ? 0 : div_up(-c->shift);
	int64_t f1 = c->dyn / 8 < (c->pe - c->shift) / 8 ? c->dyn / 8 : (c->pe - c->shift) / 8;
	int64_t z = div_up(c->dyn) > div_up(c->pe - c->shift) ? div_up(c->dyn) : div_up(c->pe - c->shift);

	if (c->pe - c->shift < 8)
		f1 = 0;
	if (buf_reserve(x, 8 * units))
		return -1;
	while (u < units && (int64_t)u < z) {
		size_t n = 8 * u + 8 <= (size_t)c->size ? 8 : (size_t)c->size - 8 * u;
		uint64_t a, b;

		if ((int64_t)u >= f0 && (int64_t)u < f1) {
			u = same_run(c, u, (size_t)f1);
			if ((int64_t)u == f1)
				continue;
		}
		a = unit_of(c->cur, c->dyn, (int64_t)(8 * u), n);
		b = c->pe ? unit_of(c->prev, c->pe, (int64_t)(8 * u) + c->shift, n) : 0;
		if (a != b) {
			a ^= b;
			memcpy(x->data + x->len, &a, n);
			x->len += n;
			units_out[m++] = (uint32_t)u;
		}
		u++;
	}
	return (long)m;
}
