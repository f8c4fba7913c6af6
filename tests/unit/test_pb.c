/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the protocol buffers encoder (common/pb.c): exact bytes
 * for the cases the wire format spells out (varints, two's complement and
 * zigzag negatives, packed fields, lengths of one, two and three bytes in
 * front of nested messages), and round trips through the small reference
 * decoder below, written from the wire format alone.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/pb.h"

/* ---- a reference decoder ---------------------------------------------------- */

struct field {
	uint32_t num;
	int wire;
	uint64_t v;             /* varint, or the length of data */
	const uint8_t *data;    /* PB_LEN */
};

/* A varint at p[*pos]: 1 and *v, or 0 when truncated or longer than ten bytes. */
static int dec_varint(const uint8_t *p, size_t n, size_t *pos, uint64_t *v)
{
	*v = 0;
	for (unsigned shift = 0, i = 0; i < 10; i++, shift += 7) {
		if (*pos >= n)
			return 0;
		*v |= (uint64_t)(p[*pos] & 0x7f) << shift;
		if (!(p[(*pos)++] & 0x80))
			return 1;
	}
	return 0;
}

/* The next field: 1, 0 at the end, -1 when malformed. */
static int dec_field(const uint8_t *p, size_t n, size_t *pos, struct field *f)
{
	uint64_t tag;

	if (*pos == n)
		return 0;
	if (!dec_varint(p, n, pos, &tag) || (tag >> 3) == 0 || (tag >> 3) > UINT32_MAX)
		return -1;
	f->num = (uint32_t)(tag >> 3);
	f->wire = (int)(tag & 7);
	f->data = NULL;
	switch (f->wire) {
	case PB_VARINT:
		return dec_varint(p, n, pos, &f->v) ? 1 : -1;
	case PB_LEN:
		if (!dec_varint(p, n, pos, &f->v) || f->v > n - *pos)
			return -1;
		f->data = p + *pos;
		*pos += f->v;
		return 1;
	default:
		return -1;
	}
}

/* Decode every field of b; assert it parses to the end. Returns the count. */
static size_t dec_all(const uint8_t *p, size_t n, struct field *out, size_t max)
{
	size_t pos = 0, k = 0;
	int r;

	while ((r = dec_field(p, n, &pos, &out[k])) == 1) {
		k++;
		assert_true(k < max);
	}
	assert_int_equal(r, 0);
	return k;
}

/* The packed varints of f: count, values in v. */
static size_t dec_packed(const struct field *f, uint64_t *v, size_t max)
{
	size_t pos = 0, k = 0;

	assert_int_equal(f->wire, PB_LEN);
	while (pos < f->v) {
		assert_true(k < max);
		assert_true(dec_varint(f->data, f->v, &pos, &v[k]));
		k++;
	}
	return k;
}

static void assert_bytes(const struct buf *b, const uint8_t *want, size_t n)
{
	assert_int_equal(b->len, n);
	assert_memory_equal(b->data, want, n);
}

/* ---- exact bytes ------------------------------------------------------------- */

static void test_varints(void **state)
{
	static const struct { uint64_t v; uint8_t bytes[10]; size_t n; } cases[] = {
		{ 0, { 0x00 }, 1 },
		{ 1, { 0x01 }, 1 },
		{ 127, { 0x7f }, 1 },
		{ 128, { 0x80, 0x01 }, 2 },
		{ 300, { 0xac, 0x02 }, 2 },
		{ 16383, { 0xff, 0x7f }, 2 },
		{ 16384, { 0x80, 0x80, 0x01 }, 3 },
		{ UINT32_MAX, { 0xff, 0xff, 0xff, 0xff, 0x0f }, 5 },
		{ UINT64_MAX, { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 }, 10 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct buf b = BUF_INIT;
		size_t pos = 0;
		uint64_t v;

		assert_int_equal(pb_varint_size(cases[i].v), cases[i].n);
		assert_int_equal(pb_varint(&b, cases[i].v), 0);
		assert_bytes(&b, cases[i].bytes, cases[i].n);
		assert_true(dec_varint(b.data, b.len, &pos, &v));
		assert_true(v == cases[i].v);
		buf_free(&b);
	}
}

static void test_scalar_fields(void **state)
{
	/* field 1 = 150: the wire format's own example, 08 96 01 */
	static const uint8_t f150[] = { 0x08, 0x96, 0x01 };
	/* int64 -1: two's complement, ten bytes; field 2 */
	static const uint8_t neg1[] = { 0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
					0xff, 0x01 };
	/* sint64: zigzag; -1 -> 1, 1 -> 2, INT64_MIN -> UINT64_MAX */
	static const uint8_t zz[] = { 0x18, 0x01, 0x18, 0x02, 0x18, 0xff, 0xff, 0xff, 0xff, 0xff,
				      0xff, 0xff, 0xff, 0xff, 0x01 };
	/* a field number that needs a two-byte tag: 16 << 3 | 0 = 128 */
	static const uint8_t f16[] = { 0x80, 0x01, 0x05 };
	struct buf b = BUF_INIT;
	struct field f[4];

	(void)state;
	assert_int_equal(pb_uint64(&b, 1, 150), 0);
	assert_bytes(&b, f150, sizeof(f150));
	buf_reset(&b);
	assert_int_equal(pb_int64(&b, 2, -1), 0);
	assert_bytes(&b, neg1, sizeof(neg1));
	assert_int_equal(dec_all(b.data, b.len, f, 4), 1);
	assert_int_equal((int64_t)f[0].v, -1);
	buf_reset(&b);
	assert_int_equal(pb_sint64(&b, 3, -1), 0);
	assert_int_equal(pb_sint64(&b, 3, 1), 0);
	assert_int_equal(pb_sint64(&b, 3, INT64_MIN), 0);
	assert_bytes(&b, zz, sizeof(zz));
	buf_reset(&b);
	assert_int_equal(pb_uint64(&b, 16, 5), 0);
	assert_bytes(&b, f16, sizeof(f16));
	buf_reset(&b);
	/* INT64_MIN and INT64_MAX survive a round trip */
	assert_int_equal(pb_int64(&b, 4, INT64_MIN), 0);
	assert_int_equal(pb_int64(&b, 4, INT64_MAX), 0);
	assert_int_equal(dec_all(b.data, b.len, f, 4), 2);
	assert_true((int64_t)f[0].v == INT64_MIN);
	assert_true((int64_t)f[1].v == INT64_MAX);
	buf_free(&b);
}

static void test_packed(void **state)
{
	static const uint64_t u[] = { 1, 300, 0 };
	static const uint8_t want[] = { 0x0a, 0x04, 0x01, 0xac, 0x02, 0x00 };
	static const int64_t s[] = { -2, 7 };
	struct buf b = BUF_INIT;
	struct field f[4];
	uint64_t v[8];

	(void)state;
	assert_int_equal(pb_packed_uint64(&b, 1, u, 3), 0);
	assert_bytes(&b, want, sizeof(want));
	/* nothing at all for no values */
	assert_int_equal(pb_packed_uint64(&b, 1, u, 0), 0);
	assert_int_equal(pb_packed_int64(&b, 2, s, 0), 0);
	assert_int_equal(b.len, sizeof(want));
	/* negative int64s packed: ten bytes each */
	buf_reset(&b);
	assert_int_equal(pb_packed_int64(&b, 2, s, 2), 0);
	assert_int_equal(b.len, 2 + 10 + 1);
	assert_int_equal(dec_all(b.data, b.len, f, 4), 1);
	assert_int_equal(f[0].num, 2);
	assert_int_equal(dec_packed(&f[0], v, 8), 2);
	assert_true((int64_t)v[0] == -2);
	assert_true(v[1] == 7);
	buf_free(&b);
}

/* A nested message holding `len` bytes in one field: its length prefix
 * takes 1, 2 or 3 bytes, and the content must have moved to follow it. */
static void nested_of(size_t len)
{
	struct buf b = BUF_INIT;
	struct field f[4], in[4];
	uint8_t *payload = malloc(len);
	size_t mark;

	assert_non_null(payload);
	for (size_t i = 0; i < len; i++)
		payload[i] = (uint8_t)(i * 7 + 1);
	assert_int_equal(pb_uint64(&b, 1, 42), 0);
	assert_int_equal(pb_begin(&b, 5, &mark), 0);
	assert_int_equal(pb_bytes(&b, 3, payload, len), 0);
	assert_int_equal(pb_end(&b, mark), 0);
	assert_int_equal(pb_uint64(&b, 2, 43), 0);
	assert_int_equal(dec_all(b.data, b.len, f, 4), 3);
	assert_int_equal(f[0].num, 1);
	assert_int_equal(f[0].v, 42);
	assert_int_equal(f[1].num, 5);
	assert_int_equal(f[1].wire, PB_LEN);
	assert_int_equal(f[2].num, 2);
	assert_int_equal(f[2].v, 43);
	/* the inner field decodes, with the bytes intact */
	assert_int_equal(dec_all(f[1].data, f[1].v, in, 4), 1);
	assert_int_equal(in[0].num, 3);
	assert_int_equal(in[0].v, len);
	assert_memory_equal(in[0].data, payload, len);
	/* and the length prefix is minimal */
	assert_int_equal(b.len, 2 + 1 + pb_varint_size(f[1].v) + f[1].v + 2);
	free(payload);
	buf_free(&b);
}

static void test_nested(void **state)
{
	(void)state;
	nested_of(10);          /* one-byte length */
	nested_of(125);         /* 127 bytes inside: still one */
	nested_of(126);         /* 128: two bytes, the content moves by one */
	nested_of(20000);       /* three bytes */
}

static void test_nested_deep(void **state)
{
	/* Location { id 1, line { function_id 2, line 3 }, line { ... } }, as
	 * prep writes them, with a second level that outgrows one length byte */
	static const uint8_t small[] = { 0x22, 0x0a, 0x08, 0x01, 0x22, 0x06, 0x08, 0x02, 0x10,
					 0x03, 0x18, 0x00 };
	struct buf b = BUF_INIT;
	struct field f[4], loc[8], ln[4];
	size_t m1, m2, n;

	(void)state;
	assert_int_equal(pb_begin(&b, 4, &m1), 0);
	assert_int_equal(pb_uint64(&b, 1, 1), 0);
	assert_int_equal(pb_begin(&b, 4, &m2), 0);
	assert_int_equal(pb_uint64(&b, 1, 2), 0);
	assert_int_equal(pb_uint64(&b, 2, 3), 0);
	assert_int_equal(pb_uint64(&b, 3, 0), 0);
	assert_int_equal(pb_end(&b, m2), 0);
	assert_int_equal(pb_end(&b, m1), 0);
	assert_bytes(&b, small, sizeof(small));

	buf_reset(&b);
	assert_int_equal(pb_begin(&b, 4, &m1), 0);
	assert_int_equal(pb_uint64(&b, 1, 9), 0);
	for (int k = 0; k < 3; k++) {
		assert_int_equal(pb_begin(&b, 4, &m2), 0);
		for (int i = 0; i < 30; i++)  /* 30 x 11 bytes: a two-byte length */
			assert_int_equal(pb_int64(&b, 2, -1 - i), 0);
		assert_int_equal(pb_end(&b, m2), 0);
	}
	assert_int_equal(pb_end(&b, m1), 0);
	assert_int_equal(dec_all(b.data, b.len, f, 4), 1);
	n = dec_all(f[0].data, f[0].v, loc, 8);
	assert_int_equal(n, 4);
	assert_int_equal(loc[0].v, 9);
	for (size_t k = 1; k < n; k++) {
		size_t pos = 0;

		assert_int_equal(loc[k].num, 4);
		assert_int_equal(loc[k].v, 330);
		for (int i = 0; i < 30; i++) {
			assert_int_equal(dec_field(loc[k].data, loc[k].v, &pos, &ln[0]), 1);
			assert_true((int64_t)ln[0].v == -1 - i);
		}
	}
	buf_free(&b);
}

static void test_strings(void **state)
{
	static const struct { const char *in; const char *out; } cases[] = {
		{ "", "" },
		{ "main", "main" },
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5" },
		{ "\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf" },                     /* U+10FFFF */
		{ "a\xff" "b", "a\xef\xbf\xbd" "b" },                           /* not a lead byte */
		{ "\xc0\x80", "\xef\xbf\xbd\xef\xbf\xbd" },                     /* overlong NUL */
		{ "\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },     /* a surrogate */
		{ "\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" }, /* > U+10FFFF */
		{ "x\xe2\x82", "x\xef\xbf\xbd\xef\xbf\xbd" },                   /* cut short */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct buf b = BUF_INIT;
		struct field f[2];
		size_t n = strlen(cases[i].in);

		assert_int_equal(pb_utf8_valid(cases[i].in, n) == n, !strcmp(cases[i].in, cases[i].out));
		assert_int_equal(pb_string(&b, 6, cases[i].in, n), 0);
		assert_int_equal(dec_all(b.data, b.len, f, 2), 1);
		assert_int_equal(f[0].num, 6);
		assert_int_equal(f[0].v, strlen(cases[i].out));
		assert_memory_equal(f[0].data, cases[i].out, f[0].v);
		buf_free(&b);
	}
	/* a string with a NUL inside is kept whole */
	{
		struct buf b = BUF_INIT;

		assert_int_equal(pb_string(&b, 1, "a\0b", 3), 0);
		assert_int_equal(b.len, 5);
		assert_memory_equal(b.data + 2, "a\0b", 3);
		buf_free(&b);
	}
}

/* Random messages of every kind of field, nested up to three deep,
 * decoded back field by field. */
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static uint64_t any_value(void)
{
	switch (next() % 4) {
	case 0: return next() % 128;
	case 1: return next() % 20000;
	case 2: return (uint64_t)-(int64_t)(next() % 1000);
	default: return next();
	}
}

/* Writes a message and checks it against the decoder as it goes: the
 * expected values are re-derived from the same seed. */
static void write_msg(struct buf *b, int depth, uint64_t seed)
{
	uint64_t save = rng;
	size_t nf;

	rng = seed;
	nf = next() % 6;
	for (size_t i = 0; i < nf; i++) {
		uint32_t num = (uint32_t)(next() % 20 + 1);
		uint64_t kind = next() % 4, vals[5];
		size_t nv = next() % 5, mark;

		if (kind == 0) {
			assert_int_equal(pb_uint64(b, num, any_value()), 0);
		} else if (kind == 1) {
			for (size_t k = 0; k < nv; k++)
				vals[k] = any_value();
			assert_int_equal(pb_packed_uint64(b, num, vals, nv), 0);
		} else if (kind == 2 || depth >= 3) {
			char s[64];
			size_t len = next() % sizeof(s);

			for (size_t k = 0; k < len; k++)
				s[k] = (char)('a' + next() % 26);
			assert_int_equal(pb_string(b, num, s, len), 0);
		} else {
			uint64_t sub = next();

			assert_int_equal(pb_begin(b, num, &mark), 0);
			write_msg(b, depth + 1, sub);
			assert_int_equal(pb_end(b, mark), 0);
		}
	}
	rng = save;
}

static void check_msg(const uint8_t *p, size_t n, int depth, uint64_t seed)
{
	uint64_t save = rng;
	size_t nf, pos = 0;

	rng = seed;
	nf = next() % 6;
	for (size_t i = 0; i < nf; i++) {
		uint32_t num = (uint32_t)(next() % 20 + 1);
		uint64_t kind = next() % 4, vals[5], got[5];
		size_t nv = next() % 5;
		struct field f;

		if (kind == 1 && !nv)
			continue;       /* an empty packed field is not written */
		assert_int_equal(dec_field(p, n, &pos, &f), 1);
		assert_int_equal(f.num, num);
		if (kind == 0) {
			assert_int_equal(f.wire, PB_VARINT);
			assert_true(f.v == any_value());
		} else if (kind == 1) {
			for (size_t k = 0; k < nv; k++)
				vals[k] = any_value();
			assert_int_equal(dec_packed(&f, got, 5), nv);
			assert_memory_equal(got, vals, nv * sizeof(*vals));
		} else if (kind == 2 || depth >= 3) {
			size_t len = next() % 64;

			assert_int_equal(f.v, len);
			for (size_t k = 0; k < len; k++)
				assert_int_equal(f.data[k], 'a' + next() % 26);
		} else {
			check_msg(f.data, f.v, depth + 1, next());
		}
	}
	assert_int_equal(pos, n);
	rng = save;
}

static void test_round_trip(void **state)
{
	(void)state;
	for (int i = 0; i < 2000; i++) {
		struct buf b = BUF_INIT;
		uint64_t seed = next();

		write_msg(&b, 0, seed);
		check_msg(b.data, b.len, 0, seed);
		buf_free(&b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_varints),
		cmocka_unit_test(test_scalar_fields),
		cmocka_unit_test(test_packed),
		cmocka_unit_test(test_nested),
		cmocka_unit_test(test_nested_deep),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
