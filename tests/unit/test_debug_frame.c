/* SPDX-License-Identifier: MIT */
/* Unit tests of the .debug_frame rewrite (report/symbols/unwind_debug_frame.c): a
 * hand-made section, converted, then searched by libunwind itself through a
 * remote address space whose memory is the image. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "report/symbols/unwind_debug_frame.h"

extern int UNW_OBJ(dwarf_search_unwind_table)(unw_addr_space_t as, unw_word_t ip,
					     unw_dyn_info_t *di, unw_proc_info_t *pi,
					     int need_unwind_info, void *arg);

#define BIAS 0x555555554000ull
#define LO 0x1000
#define HI 0x2000

static void put(struct buf *b, const void *p, size_t n)
{
	assert_int_equal(buf_append(b, p, n), 0);
}

static void put32(struct buf *b, uint32_t v)
{
	assert_int_equal(buf_put_u32(b, v), 0);
}

static void put64(struct buf *b, uint64_t v)
{
	assert_int_equal(buf_put_u64(b, v), 0);
}

/* A CIE: version, augmentation, then (v4) sizes, alignment factors 1 / -8,
 * return column 16, cfa = rsp + 8, rip at cfa - 8. Returns its offset. */
static size_t cie(struct buf *b, uint8_t ver, const char *aug)
{
	static const uint8_t fields[] = { 1, 0x78, 16 };
	static const uint8_t instr[] = { 0x0c, 7, 8, 0x90, 1 };
	size_t at = b->len, n = 4 + 1 + strlen(aug) + 1 + (ver == 4 ? 2 : 0) + 3 + 5;

	put32(b, (uint32_t)n);
	put32(b, 0xffffffffu);
	put(b, &ver, 1);
	put(b, aug, strlen(aug) + 1);
	if (ver == 4)
		put(b, "\x08\x00", 2);
	put(b, fields, sizeof(fields));
	put(b, instr, sizeof(instr));
	return at;
}

static void fde(struct buf *b, size_t cie_at, uint64_t start, uint64_t len)
{
	static const uint8_t instr[] = { 0x41, 0x0e, 16, 0, 0, 0 };   /* advance 1, cfa + 16 */

	put32(b, 4 + 8 + 8 + sizeof(instr));
	put32(b, (uint32_t)cie_at);
	put64(b, start);
	put64(b, len);
	put(b, instr, sizeof(instr));
}

/* Two CIEs libunwind can take (v1, v4), one it cannot (augmented), FDEs out
 * of order, one before its CIE, one discarded (at 0), one 64-bit entry. */
static void section(struct buf *b)
{
	size_t a, c, v4_fde;

	a = cie(b, 1, "");
	fde(b, a, 0x1040, 0xc0);
	fde(b, a, 0x1000, 0x40);
	fde(b, a, 0, 0x20);
	v4_fde = b->len;
	fde(b, 0, 0x1200, 0x80);                /* CIE pointer patched below */
	put32(b, 0xffffffffu);                  /* 64-bit DWARF FDE: left out */
	put64(b, 8 + 16);
	put64(b, a);
	put64(b, 0x1800);
	put64(b, 0x10);
	c = cie(b, 4, "");
	memcpy(b->data + v4_fde + 4, &(uint32_t){ (uint32_t)c }, 4);
	c = cie(b, 1, "zR");
	fde(b, c, 0x1300, 0x10);
}

static struct dframe *img;
static uint64_t img_bias;

static int access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *v, int write, void *arg)
{
	uint64_t x;

	(void)as;
	(void)arg;
	if (write || !dframe_read(img, img_bias, addr, &x))
		return -UNW_EINVAL;
	*v = x;
	return 0;
}

static unw_accessors_t acc = { .access_mem = access_mem };

/* libunwind's own search over the image: the FDE range of ip, or a negative
 * libunwind error (1 when ip is outside the table's range). */
static int search(unw_addr_space_t as, uint64_t bias, uint64_t va, uint64_t *lo, uint64_t *hi)
{
	unw_dyn_info_t di;
	unw_proc_info_t pi;
	int ret;

	img_bias = bias;
	if (!dframe_dyn_info(img, bias, bias + va, &di))
		return 1;
	memset(&pi, 0, sizeof(pi));
	ret = UNW_OBJ(dwarf_search_unwind_table)(as, bias + va, &di, &pi, 0, NULL);
	if (ret)
		return ret;
	*lo = pi.start_ip - bias;
	*hi = pi.end_ip - bias;
	return 0;
}

static void test_libunwind_finds_fdes(void **state)
{
	struct buf b = BUF_INIT;
	unw_addr_space_t as = unw_create_addr_space(&acc, 0);
	uint64_t lo = 0, hi = 0;
	/* the same image serves any load bias */
	static const uint64_t biases[] = { BIAS, 0, 0x7f0000000000ull };

	(void)state;
	assert_non_null(as);
	section(&b);
	assert_int_equal(dframe_new(b.data, b.len, LO, HI, &img), 0);
	assert_non_null(img);
	assert_int_equal(dframe_fdes(img), 3);
	for (size_t i = 0; i < sizeof(biases) / sizeof(biases[0]); i++) {
		uint64_t bias = biases[i];

		assert_int_equal(search(as, bias, 0x1000, &lo, &hi), 0);
		assert_int_equal(lo, 0x1000);
		assert_int_equal(hi, 0x1040);
		assert_int_equal(search(as, bias, 0x10ff, &lo, &hi), 0);
		assert_int_equal(lo, 0x1040);
		assert_int_equal(hi, 0x1100);
		/* the FDE under the version 4 CIE, written as version 3 */
		assert_int_equal(search(as, bias, 0x127f, &lo, &hi), 0);
		assert_int_equal(lo, 0x1200);
		/* a gap between FDEs, and outside the table */
		assert_int_equal(search(as, bias, 0x1100, &lo, &hi), -UNW_ENOINFO);
		assert_int_equal(search(as, bias, 0x1280, &lo, &hi), 1);
		assert_int_equal(search(as, bias, 0x1300, &lo, &hi), 1);
		assert_int_equal(search(as, bias, 0xfff, &lo, &hi), 1);
	}
	dframe_free(img);
	img = NULL;
	unw_destroy_addr_space(as);
	buf_free(&b);
}

static void test_image_reads(void **state)
{
	struct buf b = BUF_INIT;
	uint64_t v, base = BIAS + 0x4000000000000000ull, end;
	unw_dyn_info_t di;

	(void)state;
	section(&b);
	assert_int_equal(dframe_new(b.data, b.len, LO, HI, &img), 0);
	assert_true(dframe_dyn_info(img, BIAS, BIAS + 0x1000, &di));
	/* the first CIE: length, id 0, version 1, "zR" */
	assert_true(dframe_read(img, BIAS, base, &v));
	assert_int_equal(v >> 32, 0);
	assert_true(dframe_read(img, BIAS, base + 8, &v));
	assert_int_equal(v & 0xffffffff, 0x00527a01);   /* 1 "zR" */
	/* the table is last: its final word ends the image, past it nothing */
	end = di.u.rti.table_data + 8 * di.u.rti.table_len;
	assert_true(dframe_read(img, BIAS, end - 8, &v));
	assert_false(dframe_read(img, BIAS, end, &v));
	assert_true(dframe_read(img, BIAS, end - 3, &v));
	assert_int_equal(v >> 24, 0);          /* bytes past the end read as 0 */
	assert_false(dframe_read(img, BIAS, base - 1, &v));
	assert_false(dframe_read(img, BIAS, BIAS + 0x1000, &v));
	assert_false(dframe_read(NULL, BIAS, base, &v));
	assert_false(dframe_dyn_info(NULL, BIAS, BIAS + 0x1000, &di));
	dframe_free(img);
	img = NULL;
	buf_free(&b);
}

static void test_damaged_sections(void **state)
{
	struct buf b = BUF_INIT;
	struct dframe *d;
	uint64_t rng = 88172645463325252ull;

	(void)state;
	section(&b);
	/* cut short (in the second FDE, after an 18-byte CIE and a 30-byte
	 * FDE): what came before the cut is kept */
	assert_int_equal(dframe_new(b.data, 18 + 30 + 10, LO, HI, &d), 0);
	assert_int_equal(dframe_fdes(d), 1);
	dframe_free(d);
	for (size_t n = 0; n < b.len; n++) {
		assert_int_equal(dframe_new(b.data, n, LO, HI, &d), 0);
		dframe_free(d);
	}
	/* nothing usable: no image */
	assert_int_equal(dframe_new(b.data, b.len, 0x8000, 0x9000, &d), 0);
	assert_null(d);
	assert_int_equal(dframe_new(NULL, 0, LO, HI, &d), 0);
	assert_null(d);
	/* random damage never reads out of bounds (under make asan) */
	for (int round = 0; round < 2000; round++) {
		uint8_t *p = malloc(b.len);

		assert_non_null(p);
		memcpy(p, b.data, b.len);
		for (int k = 0; k < 4; k++) {
			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			p[rng % b.len] = (uint8_t)(rng >> 32);
		}
		assert_int_equal(dframe_new(p, b.len, LO, HI, &d), 0);
		dframe_free(d);
		free(p);
	}
	buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_libunwind_finds_fdes),
		cmocka_unit_test(test_image_reads),
		cmocka_unit_test(test_damaged_sections),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
