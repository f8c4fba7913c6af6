/* SPDX-License-Identifier: MIT */
/* Unit tests of the code bytes embedded in SYMBOLS blocks
 * (report/symbols/embed_code.c, FORMAT.md 5.8.1): the bound, joining code
 * with the unwind ranges, the encoding round trip, reading the code of a
 * real binary (this test's own), and finding the bytes again. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <libelf.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/embed.h"
#include "report/symbols/embed_code.h"
#include "report/symbols/symbols.h"

static void test_bound(void **state)
{
	struct embed_code_stats st = { 0 };
	uint64_t used = 0;

	(void)state;
	assert_false(embed_code_take(0, &used, &st));
	assert_true(embed_code_take(EMBED_CODE_FN_MAX, &used, &st));
	assert_int_equal(used, EMBED_CODE_FN_MAX);
	assert_false(embed_code_take(EMBED_CODE_FN_MAX + 1, &used, &st));
	assert_int_equal(st.too_big, 1);
	assert_true(embed_code_take(1, &used, &st));
	/* fill the binary's budget until a whole function no longer fits */
	while (used + EMBED_CODE_FN_MAX <= EMBED_CODE_BIN_MAX)
		assert_true(embed_code_take(EMBED_CODE_FN_MAX, &used, &st));
	assert_true(used > EMBED_CODE_BIN_MAX - EMBED_CODE_FN_MAX);
	assert_false(embed_code_take(EMBED_CODE_FN_MAX, &used, &st));
	assert_int_equal(st.over_budget, 1);
	/* a smaller one still fits, then nothing does */
	assert_true(embed_code_take(EMBED_CODE_BIN_MAX - used, &used, &st));
	assert_int_equal(used, EMBED_CODE_BIN_MAX);
	assert_false(embed_code_take(1, &used, NULL));
	assert_int_equal(st.too_big, 1);
}

static const char strtab[] = "/usr/bin/app\0main";

static void base_dso(struct embed_dso *d, struct embed_sym *syms)
{
	memset(d, 0, sizeof(*d));
	d->build_id_size = 4;
	memcpy(d->build_id, "\x01\x02\x03\x04", 4);
	d->strings = strtab;
	d->strings_len = sizeof(strtab);
	syms[0] = (struct embed_sym){ 0x1000, 0x40, 13 };
	d->syms = syms;
	d->nr_syms = 1;
}

/* Unwind words at 0x1008 and 0x2000, code [0x1000, 0x1040) and [0x1040,
 * 0x1050) (touching) and [0x3000, 0x3010): three ranges, the code's bytes
 * where they overlap a word (both are the same image). */
static void test_merge(void **state)
{
	uint8_t img[0x4000];
	struct embed_dso d, *back;
	struct embed_sym syms[1];
	struct buf bytes = BUF_INIT, enc = BUF_INIT;
	struct embed_range *r = calloc(2, sizeof(*r));
	struct embed_code_piece pc[3];
	struct embed_list l = { 0 };
	const uint8_t *p;
	size_t cap = 2;

	(void)state;
	for (size_t i = 0; i < sizeof(img); i++)
		img[i] = (uint8_t)(i * 7 + i / 256);
	base_dso(&d, syms);
	r[0] = (struct embed_range){ 0x1008, 8, 0 };
	r[1] = (struct embed_range){ 0x2000, 8, 8 };
	assert_int_equal(buf_append(&bytes, img + 0x1008, 8), 0);
	assert_int_equal(buf_append(&bytes, img + 0x2000, 8), 0);
	d.ranges = r;
	d.nr_ranges = 2;
	pc[0] = (struct embed_code_piece){ 0x3000, 0x10, img + 0x3000 };
	pc[1] = (struct embed_code_piece){ 0x1000, 0x40, img + 0x1000 };
	pc[2] = (struct embed_code_piece){ 0x1040, 0x10, img + 0x1040 };
	assert_int_equal(embed_code_merge(&d, &bytes, &cap, pc, 3), 0);
	assert_int_equal(d.nr_ranges, 3);
	assert_int_equal(d.ranges[0].vaddr, 0x1000);
	assert_int_equal(d.ranges[0].len, 0x50);
	assert_int_equal(d.ranges[1].vaddr, 0x2000);
	assert_int_equal(d.ranges[1].len, 8);
	assert_int_equal(d.ranges[2].vaddr, 0x3000);
	assert_int_equal(d.bytes_len, 0x50 + 8 + 0x10);
	for (uint32_t i = 0; i < d.nr_ranges; i++)
		assert_memory_equal(d.bytes + d.ranges[i].data, img + d.ranges[i].vaddr,
				    d.ranges[i].len);
	/* the encoding keeps them, and the reader finds them */
	assert_int_equal(embed_encode(&d, &enc), 0);
	assert_int_equal(embed_decode(enc.data, enc.len, &back, NULL), 0);
	assert_int_equal(embed_list_add(&l, &back, 1), 0);
	assert_int_equal(embed_code_find(&l, d.build_id, 4, 0x1000, 0x50, &p), 0x50);
	assert_memory_equal(p, img + 0x1000, 0x50);
	/* a read past the end of a range gets what is there */
	assert_int_equal(embed_code_find(&l, d.build_id, 4, 0x1048, 0x100, &p), 8);
	assert_memory_equal(p, img + 0x1048, 8);
	assert_int_equal(embed_code_find(&l, d.build_id, 4, 0x1050, 4, &p), 0);
	assert_null(p);
	assert_int_equal(embed_code_find(&l, d.build_id, 4, 0xfff, 4, &p), 0);
	assert_int_equal(embed_code_find(&l, (const uint8_t *)"\x01\x02\x03\x05", 4, 0x1000, 4,
					 &p), 0);
	assert_int_equal(embed_code_find(&l, NULL, 0, 0x1000, 4, &p), 0);
	embed_list_free(&l);
	embed_free(back);
	free(d.ranges);
	buf_free(&bytes);
	buf_free(&enc);
}

/* An address without its own entry takes the entry at or before it only
 * inside a symbol whose code is embedded whole, and only from that symbol. */
static void test_position(void **state)
{
	static const char st[] = "/usr/bin/app\0main\0f\0a.c";
	struct embed_sym syms[2] = { { 0x1000, 0x40, 13 }, { 0x2000, 0x40, 18 } };
	struct embed_addr addrs[4] = {
		{ 0x0ff0, 0, 1 }, { 0x1000, 1, 1 }, { 0x1010, 2, 1 }, { 0x2008, 3, 1 },
	};
	struct embed_frame fr[4] = {
		{ EMBED_NONE, 20, 1 }, { 13, 20, 10 }, { 13, 20, 11 }, { 18, 20, 30 },
	};
	struct embed_range r[1] = { { 0x1000, 0x40, 0 } };
	uint8_t code[0x40] = { 0 };
	struct embed_dso d;

	(void)state;
	memset(&d, 0, sizeof(d));
	d.build_id_size = 1;
	d.strings = st;
	d.strings_len = sizeof(st);
	d.syms = syms;
	d.nr_syms = 2;
	d.addrs = addrs;
	d.nr_addrs = 4;
	d.frames = fr;
	d.nr_frames = 4;
	d.ranges = r;
	d.nr_ranges = 1;
	d.bytes = code;
	d.bytes_len = sizeof(code);
	assert_ptr_equal(embed_code_addr(&d, 0x1000), &addrs[1]);
	assert_ptr_equal(embed_code_addr(&d, 0x100f), &addrs[1]);
	assert_ptr_equal(embed_code_addr(&d, 0x1010), &addrs[2]);
	assert_ptr_equal(embed_code_addr(&d, 0x103f), &addrs[2]);
	assert_null(embed_code_addr(&d, 0x1040));       /* past the symbol */
	assert_null(embed_code_addr(&d, 0x0ff8));       /* in no symbol */
	/* main's code is not embedded: exact entries only */
	assert_ptr_equal(embed_code_addr(&d, 0x2008), &addrs[3]);
	assert_null(embed_code_addr(&d, 0x2010));
	/* the entry before the symbol is not taken */
	addrs[1].vaddr = 0x1004;
	assert_null(embed_code_addr(&d, 0x1002));
	assert_ptr_equal(embed_code_addr(&d, 0x1006), &addrs[1]);
}

/* ---- the code of a real binary: this test's own ------------------------ */

struct self {
	uintptr_t bias;
	char path[4096];
};

static int find_self(struct dl_phdr_info *info, size_t size, void *ctx)
{
	struct self *s = ctx;

	(void)size;
	/* the first object is the executable itself */
	s->bias = info->dlpi_addr;
	return 1;
}

static __attribute__((noinline)) int some_code(int x)
{
	return x * 3 + 1;
}

static void test_add_from_file(void **state)
{
	struct self self = { 0 };
	struct embed_code_stats st = { 0 };
	struct embed_sym syms[3];
	struct embed_dso d;
	struct buf bytes = BUF_INIT;
	uint8_t id[64];
	size_t cap = 0, n;
	uintptr_t fn = (uintptr_t)&some_code;
	uint64_t vaddr;

	(void)state;
	assert_int_equal(some_code(1), 4);
	elf_version(EV_CURRENT);
	dl_iterate_phdr(find_self, &self);
	assert_true(readlink("/proc/self/exe", self.path, sizeof(self.path) - 1) > 0);
	n = sym_file_build_id(self.path, id, sizeof(id));
	if (!n)
		skip();         /* linked without a build id */
	vaddr = fn - self.bias;
	base_dso(&d, syms);
	d.build_id_size = (uint8_t)n;
	memcpy(d.build_id, id, n);
	syms[0] = (struct embed_sym){ vaddr, 16, 13 };
	syms[1] = (struct embed_sym){ vaddr + 4, 4, 13 };       /* nested: adds nothing */
	syms[2] = (struct embed_sym){ vaddr + 0x100, EMBED_CODE_FN_MAX + 1, 13 };
	d.nr_syms = 3;
	assert_int_equal(embed_code_add(&d, &bytes, &cap, self.path, &st, NULL, NULL), 0);
	assert_int_equal(st.functions, 1);
	assert_int_equal(st.bytes, 16);
	assert_int_equal(st.too_big, 1);
	assert_int_equal(d.nr_ranges, 1);
	assert_int_equal(d.ranges[0].vaddr, vaddr);
	assert_int_equal(d.ranges[0].len, 16);
	/* the bytes in the file are those this process runs */
	assert_memory_equal(d.bytes + d.ranges[0].data, (const void *)fn, 16);
	free(d.ranges);
	buf_free(&bytes);

	/* no file, or a file of another build id: nothing added, counted */
	memset(&st, 0, sizeof(st));
	base_dso(&d, syms);
	cap = 0;
	assert_int_equal(embed_code_add(&d, &bytes, &cap, NULL, &st, NULL, NULL), 0);
	assert_int_equal(d.nr_ranges, 0);
	assert_int_equal(st.unreadable, 1);
	assert_int_equal(embed_code_add(&d, &bytes, &cap, self.path, &st, NULL, NULL), 0);
	assert_int_equal(d.nr_ranges, 0);
	assert_int_equal(st.unreadable, 2);
	buf_free(&bytes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bound),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_position),
		cmocka_unit_test(test_add_from_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
