/* SPDX-License-Identifier: MIT */
/* Unit tests of the SYMBOLS block payload (format/embed.c, FORMAT.md 5.8):
 * round trips, the lookups, what the encoder and the decoder reject, and
 * the merging of two files' data of one binary. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/embed.h"

/* ---- a reference binary ------------------------------------------------ */

/* "/usr/bin/app" 0, "main" 13, "work" 18, "inner" 23, "app.c" 29 */
static const char strtab[] = "/usr/bin/app\0main\0work\0inner\0app.c";
#define S_PATH 0
#define S_MAIN 13
#define S_WORK 18
#define S_INNER 23
#define S_FILE 29

static struct embed_seg segs[2];
static struct embed_sym syms[4];
static struct embed_addr addrs[4];
static struct embed_frame frames[5];
static struct embed_range ranges[4];
static uint8_t bytes[48];

/* Every array used, with the edges the rules allow: a nested symbol, one
 * ending at 2^64 - 1, one named by an offset into the middle of a string; an
 * address without lines (first == nr_frames); unknown frame strings; two
 * ranges back to back, one ending at 2^64 - 1. */
static struct embed_dso make_rich(void)
{
	struct embed_dso d;

	memset(&d, 0, sizeof(d));
	segs[0] = (struct embed_seg){ 0, 0, 0x1000, 0x1000, 4 };
	segs[1] = (struct embed_seg){ 0x1000, 0x401000, 0x2345, 0x3000, 5 };
	syms[0] = (struct embed_sym){ 0x401000, 0x100, S_MAIN };
	syms[1] = (struct embed_sym){ 0x401100, 0x200, S_WORK };
	syms[2] = (struct embed_sym){ 0x401180, 0x20, S_INNER };
	syms[3] = (struct embed_sym){ 0xffffffffffffff00ull, 0xff, S_WORK + 1 };
	addrs[0] = (struct embed_addr){ 0x401010, 0, 1 };
	addrs[1] = (struct embed_addr){ 0x401184, 1, 2 };
	addrs[2] = (struct embed_addr){ 0x401190, 3, 2 };
	addrs[3] = (struct embed_addr){ 0x401200, 5, 0 };
	frames[0] = (struct embed_frame){ S_MAIN, S_FILE, 10 };
	frames[1] = (struct embed_frame){ S_INNER, S_FILE, 5 };
	frames[2] = (struct embed_frame){ S_WORK, S_FILE, 42 };
	frames[3] = (struct embed_frame){ EMBED_NONE, S_FILE, 7 };
	frames[4] = (struct embed_frame){ S_WORK, EMBED_NONE, 0 };
	ranges[0] = (struct embed_range){ 0x2010, 16, 0 };
	ranges[1] = (struct embed_range){ 0x401180, 8, 16 };
	ranges[2] = (struct embed_range){ 0x401188, 8, 24 };
	ranges[3] = (struct embed_range){ 0xfffffffffffffff0ull, 15, 32 };
	for (size_t i = 0; i < sizeof(bytes); i++)
		bytes[i] = (uint8_t)(i * 37 + 1);
	d.build_id_size = 20;
	for (int i = 0; i < 20; i++)
		d.build_id[i] = (uint8_t)(0xa0 + i);
	d.path = S_PATH;
	d.eh_frame_hdr = 0x2010;
	d.fde_count = 3;
	d.segs = segs;
	d.nr_segs = 2;
	d.syms = syms;
	d.nr_syms = 4;
	d.addrs = addrs;
	d.nr_addrs = 4;
	d.frames = frames;
	d.nr_frames = 5;
	d.ranges = ranges;
	d.nr_ranges = 4;
	d.strings = strtab;
	d.strings_len = sizeof(strtab);
	d.bytes = bytes;
	d.bytes_len = sizeof(bytes);
	return d;
}

/* Where the arrays of the rich payload start. */
#define O_SEG(i) (128 + 40 * (i))
#define O_SYM(i) (O_SEG(2) + 20 * (i))
#define O_ADDR(i) (O_SYM(4) + 16 * (i))
#define O_FRAME(i) (O_ADDR(4) + 12 * (i))
#define O_RANGE(i) (O_FRAME(5) + 16 * (i))
#define O_STR O_RANGE(4)
#define O_BYTES (O_STR + (int)sizeof(strtab))

static void encode(const struct embed_dso *d, struct buf *b)
{
	buf_reset(b);
	assert_int_equal(embed_encode(d, b), 0);
}

static void put_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void assert_same(const struct embed_dso *a, const struct embed_dso *b)
{
	assert_int_equal(a->build_id_size, b->build_id_size);
	assert_memory_equal(a->build_id, b->build_id, a->build_id_size);
	assert_int_equal(a->path, b->path);
	assert_true(a->eh_frame_hdr == b->eh_frame_hdr);
	assert_true(a->fde_count == b->fde_count);
	assert_int_equal(a->nr_segs, b->nr_segs);
	assert_int_equal(a->nr_syms, b->nr_syms);
	assert_int_equal(a->nr_addrs, b->nr_addrs);
	assert_int_equal(a->nr_frames, b->nr_frames);
	assert_int_equal(a->nr_ranges, b->nr_ranges);
	assert_int_equal(a->strings_len, b->strings_len);
	assert_int_equal(a->bytes_len, b->bytes_len);
	for (uint32_t i = 0; i < a->nr_segs; i++) {
		assert_true(a->segs[i].offset == b->segs[i].offset);
		assert_true(a->segs[i].vaddr == b->segs[i].vaddr);
		assert_true(a->segs[i].filesz == b->segs[i].filesz);
		assert_true(a->segs[i].memsz == b->segs[i].memsz);
		assert_int_equal(a->segs[i].flags, b->segs[i].flags);
	}
	for (uint32_t i = 0; i < a->nr_syms; i++) {
		assert_true(a->syms[i].start == b->syms[i].start);
		assert_true(a->syms[i].size == b->syms[i].size);
		assert_int_equal(a->syms[i].name, b->syms[i].name);
	}
	for (uint32_t i = 0; i < a->nr_addrs; i++) {
		assert_true(a->addrs[i].vaddr == b->addrs[i].vaddr);
		assert_int_equal(a->addrs[i].first, b->addrs[i].first);
		assert_int_equal(a->addrs[i].nr, b->addrs[i].nr);
	}
	for (uint32_t i = 0; i < a->nr_frames; i++) {
		assert_int_equal(a->frames[i].function, b->frames[i].function);
		assert_int_equal(a->frames[i].file, b->frames[i].file);
		assert_int_equal(a->frames[i].line, b->frames[i].line);
	}
	for (uint32_t i = 0; i < a->nr_ranges; i++) {
		assert_true(a->ranges[i].vaddr == b->ranges[i].vaddr);
		assert_int_equal(a->ranges[i].len, b->ranges[i].len);
		assert_int_equal(a->ranges[i].data, b->ranges[i].data);
	}
	assert_memory_equal(a->strings, b->strings, a->strings_len);
	if (a->bytes_len)
		assert_memory_equal(a->bytes, b->bytes, a->bytes_len);
}

/* ---- round trips and lookups ------------------------------------------- */

static void test_round_trip(void **state)
{
	struct embed_dso d = make_rich(), *back;
	struct buf b = BUF_INIT, again = BUF_INIT;
	struct err err = { 0 };

	(void)state;
	encode(&d, &b);
	assert_int_equal(b.len, (size_t)O_BYTES + sizeof(bytes));
	/* the header as 5.8 lays it out */
	assert_int_equal(b.data[0], 20);
	for (int i = 1; i < 8; i++)
		assert_int_equal(b.data[i], 0);
	assert_int_equal(b.data[64], 0xa0);
	assert_int_equal(b.data[64 + 19], 0xb3);
	for (int i = 64 + 20; i < 128; i++)
		assert_int_equal(b.data[i], 0);
	assert_int_equal(b.data[28], 2);         /* nr_segs */
	assert_int_equal(b.data[48], sizeof(strtab));
	assert_memory_equal(b.data + O_STR, strtab, sizeof(strtab));
	assert_memory_equal(b.data + O_BYTES, bytes, sizeof(bytes));

	assert_int_equal(embed_decode(b.data, b.len, &back, &err), 0);
	assert_non_null(back);
	assert_same(&d, back);
	/* the decoded copy owns its memory: the payload may go away */
	memset(b.data, 0xee, b.len);
	assert_string_equal(embed_str(back, back->path), "/usr/bin/app");
	assert_string_equal(embed_str(back, back->syms[3].name), "ork");
	assert_null(embed_str(back, EMBED_NONE));
	assert_null(embed_str(back, back->strings_len));
	encode(back, &again);
	encode(&d, &b);
	assert_int_equal(again.len, b.len);
	assert_memory_equal(again.data, b.data, b.len);
	embed_free(back);
	buf_free(&b);
	buf_free(&again);
}

static void test_minimal(void **state)
{
	struct embed_dso d, *back;
	struct buf b = BUF_INIT;

	(void)state;
	memset(&d, 0, sizeof(d));
	d.build_id_size = EMBED_BUILD_ID_MAX;
	memset(d.build_id, 0xff, sizeof(d.build_id));
	d.strings = "";
	d.strings_len = 1;
	encode(&d, &b);
	assert_int_equal(b.len, EMBED_HEADER_SIZE + 1);
	assert_int_equal(embed_decode(b.data, b.len, &back, NULL), 0);
	assert_same(&d, back);
	assert_string_equal(embed_str(back, back->path), "");
	assert_null(embed_find_addr(back, 0));
	assert_null(embed_find_bytes(back, 0, 1));
	embed_free(back);
	buf_free(&b);
}

static void test_lookups(void **state)
{
	struct embed_dso d = make_rich(), *e;
	struct buf b = BUF_INIT;
	const struct embed_addr *a;

	(void)state;
	encode(&d, &b);
	assert_int_equal(embed_decode(b.data, b.len, &e, NULL), 0);
	for (uint32_t i = 0; i < d.nr_addrs; i++) {
		a = embed_find_addr(e, d.addrs[i].vaddr);
		assert_non_null(a);
		assert_int_equal(a->first, d.addrs[i].first);
		assert_int_equal(a->nr, d.addrs[i].nr);
	}
	assert_null(embed_find_addr(e, 0x401011));
	assert_null(embed_find_addr(e, 0x401000));
	assert_null(embed_find_addr(e, ~0ull));
	a = embed_find_addr(e, 0x401184);
	assert_string_equal(embed_str(e, e->frames[a->first].function), "inner");
	assert_string_equal(embed_str(e, e->frames[a->first + 1].function), "work");

	/* inside one range, up to its end, not past it */
	assert_ptr_equal(embed_find_bytes(e, 0x2010, 16), e->bytes);
	assert_ptr_equal(embed_find_bytes(e, 0x2018, 8), e->bytes + 8);
	assert_null(embed_find_bytes(e, 0x2018, 9));
	assert_null(embed_find_bytes(e, 0x200f, 1));
	assert_null(embed_find_bytes(e, 0x2020, 1));
	assert_null(embed_find_bytes(e, 0, 1));
	assert_ptr_equal(embed_find_bytes(e, 0x401188, 8), e->bytes + 24);
	assert_ptr_equal(embed_find_bytes(e, 0x401184, 4), e->bytes + 20);
	assert_ptr_equal(embed_find_bytes(e, 0xfffffffffffffff0ull, 15), e->bytes + 32);
	assert_ptr_equal(embed_find_bytes(e, 0xfffffffffffffffeull, 1), e->bytes + 46);
	assert_null(embed_find_bytes(e, 0xfffffffffffffffeull, 2));
	assert_null(embed_find_bytes(e, 0xffffffffffffffffull, 1));
	embed_free(e);
	buf_free(&b);
}

/* ---- the encoder refuses what breaks a rule ----------------------------- */

static void test_encode_rejects(void **state)
{
	static const char no_nul[] = { 'a', 'b' };
	struct buf b = BUF_INIT;
	struct embed_dso d;

	(void)state;
#define REJECT(edit)                                            \
	do {                                                    \
		d = make_rich();                                \
		edit;                                           \
		buf_reset(&b);                                  \
		assert_int_equal(embed_encode(&d, &b), -EINVAL); \
		assert_int_equal(b.len, 0);                     \
	} while (0)
	REJECT(d.build_id_size = 0);
	REJECT(d.build_id_size = 65);
	REJECT(d.strings_len = 0);
	REJECT((d.strings = no_nul, d.strings_len = 2, d.path = 0));
	REJECT(d.path = sizeof(strtab));
	REJECT(d.path = EMBED_NONE);
	REJECT(syms[1].name = EMBED_NONE);
	REJECT(syms[1].start = syms[0].start);
	REJECT(syms[2].start = 0);
	REJECT(syms[3].size = 0x100);
	REJECT(addrs[1].vaddr = addrs[0].vaddr);
	REJECT(addrs[3].first = 6);
	REJECT(addrs[2].nr = 3);
	REJECT(addrs[2].nr = UINT32_MAX);
	REJECT(frames[0].function = sizeof(strtab));
	REJECT(frames[0].file = EMBED_NONE - 1);
	REJECT(ranges[1].len = 0);
	REJECT(ranges[3].len = 16);               /* wraps */
	REJECT(ranges[3].data = 34);              /* past the bytes */
	REJECT(ranges[1].data = UINT32_MAX);
	REJECT(ranges[2].vaddr = 0x401187);       /* overlaps */
	REJECT(ranges[1].vaddr = 0x1000);         /* not sorted */
#undef REJECT
	buf_free(&b);
}

/* ---- the decoder refuses what breaks a rule ----------------------------- */

static void test_decode_rejects(void **state)
{
	static const struct {
		int off, n;
		uint64_t v;
	} bad[] = {
		{ 28, 4, 3 },                       /* nr_segs: lengths disagree */
		{ 40, 4, 0x80000000u },             /* nr_frames */
		{ 52, 4, 0 },                       /* bytes_len */
		{ 1, 1, 1 }, { 7, 1, 0x80 },        /* reserved */
		{ 56, 1, 1 }, { 63, 1, 1 },
		{ 0, 1, 0 }, { 0, 1, 65 }, { 0, 1, 255 },   /* build_id_size */
		{ 64 + 20, 1, 1 }, { 127, 1, 1 },   /* zeros after the build id */
		{ 24, 4, sizeof(strtab) },          /* path */
		{ 24, 4, EMBED_NONE },
		{ O_BYTES - 1, 1, 'x' },            /* the last string byte */
		{ O_SYM(1) + 16, 4, sizeof(strtab) },
		{ O_SYM(1) + 16, 4, EMBED_NONE },
		{ O_SYM(1), 8, 0x401000 },          /* two at one start */
		{ O_SYM(2), 8, 0x400000 },          /* not sorted */
		{ O_SYM(3) + 8, 8, 0x100 },         /* start + size = 2^64 */
		{ O_SYM(3) + 8, 8, UINT64_MAX },
		{ O_ADDR(1), 8, 0x401010 },
		{ O_ADDR(3), 8, 0x401000 },
		{ O_ADDR(3) + 8, 4, 6 },            /* first past the frames */
		{ O_ADDR(2) + 12, 4, 3 },           /* first + nr past the frames */
		{ O_ADDR(2) + 12, 4, UINT32_MAX },
		{ O_FRAME(2), 4, sizeof(strtab) },
		{ O_FRAME(1) + 4, 4, EMBED_NONE - 1 },
		{ O_RANGE(1) + 8, 4, 0 },           /* len 0 */
		{ O_RANGE(3) + 12, 4, 34 },         /* past the bytes */
		{ O_RANGE(1) + 12, 4, UINT32_MAX - 1 },
		{ O_RANGE(0) + 8, 4, 49 },
		{ O_RANGE(3) + 8, 4, 16 },          /* vaddr + len = 2^64 */
		{ O_RANGE(2), 8, 0x401187 },        /* overlaps */
		{ O_RANGE(2), 8, 0x401180 },
		{ O_RANGE(1), 8, 0x1000 },          /* not sorted */
	};
	struct embed_dso d = make_rich(), *out;
	struct buf b = BUF_INIT;
	uint8_t *p;

	(void)state;
	encode(&d, &b);
	p = malloc(b.len + 1);
	assert_non_null(p);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct err err = { 0 };

		memcpy(p, b.data, b.len);
		put_le(p + bad[i].off, bad[i].v, bad[i].n);
		out = (struct embed_dso *)1;
		if (embed_decode(p, b.len, &out, &err) != -PREC_ECORRUPT)
			fail_msg("edit %zu (offset %d) accepted", i, bad[i].off);
		assert_null(out);
		assert_true(strlen(err.msg) > 0);
	}
	/* every length but the right one */
	for (size_t n = 0; n <= b.len + 1; n++) {
		memcpy(p, b.data, b.len);
		p[b.len] = 0;
		if (n == b.len)
			continue;
		assert_int_equal(embed_decode(p, n, &out, NULL), -PREC_ECORRUPT);
		assert_null(out);
	}
	/* an empty string table, the lengths right */
	memset(p, 0, EMBED_HEADER_SIZE);
	p[0] = 1;
	assert_int_equal(embed_decode(p, EMBED_HEADER_SIZE, &out, NULL), -PREC_ECORRUPT);
	free(p);
	buf_free(&b);
}

/* Any one byte changed: the decoder rejects the payload, or takes it as the
 * payload the encoder writes for what it decoded (nothing ignored). */
static void test_decode_every_byte(void **state)
{
	struct embed_dso d = make_rich(), *out;
	struct buf b = BUF_INIT, again = BUF_INIT;
	size_t accepted = 0, rejected = 0;
	uint8_t *p;

	(void)state;
	encode(&d, &b);
	p = malloc(b.len);
	assert_non_null(p);
	for (size_t at = 0; at < b.len; at++) {
		for (int x = 1; x < 256; x <<= 1) {
			memcpy(p, b.data, b.len);
			p[at] ^= (uint8_t)x;
			if (embed_decode(p, b.len, &out, NULL)) {
				assert_null(out);
				rejected++;
				continue;
			}
			accepted++;
			encode(out, &again);
			assert_int_equal(again.len, b.len);
			assert_memory_equal(again.data, p, b.len);
			embed_free(out);
		}
	}
	assert_true(accepted > 0 && rejected > 0);
	free(p);
	buf_free(&b);
	buf_free(&again);
}

/* ---- merging two files' data of one binary ----------------------------- */

/* The byte of the binary at vaddr (both files copied the same binary). */
static uint8_t image(uint64_t vaddr)
{
	return (uint8_t)(vaddr * 7 + 3);
}

/* One file's data: symbols sym_starts named by names (offsets in str),
 * each hit at start + 0x10 with one frame (the symbol, line = index + 1),
 * and byte ranges [r, r + len). */
struct part {
	const char *str;
	uint32_t str_len;
	uint64_t starts[3];
	uint32_t names[3];
	uint32_t nr;
	uint64_t rv[3];
	uint32_t rlen[3];
	uint32_t nr_ranges;
};

static struct embed_dso *make_part(const struct part *p, uint8_t id0)
{
	struct embed_sym sy[3];
	struct embed_addr ad[3];
	struct embed_frame fr[3];
	struct embed_range rg[3];
	uint8_t by[64];
	uint32_t nb = 0;
	struct embed_dso d, *out;
	struct buf b = BUF_INIT;

	memset(&d, 0, sizeof(d));
	for (uint32_t i = 0; i < p->nr; i++) {
		sy[i] = (struct embed_sym){ p->starts[i], 0x100, p->names[i] };
		ad[i] = (struct embed_addr){ p->starts[i] + 0x10, i, 1 };
		fr[i] = (struct embed_frame){ p->names[i], EMBED_NONE, i + 1 };
	}
	for (uint32_t i = 0; i < p->nr_ranges; i++) {
		rg[i] = (struct embed_range){ p->rv[i], p->rlen[i], nb };
		for (uint32_t k = 0; k < p->rlen[i]; k++)
			by[nb++] = image(p->rv[i] + k);
	}
	d.build_id_size = 4;
	d.build_id[0] = id0;
	d.segs = segs;
	d.nr_segs = 1;
	segs[0] = (struct embed_seg){ 0, 0, 0x10000, 0x10000, 5 };
	d.syms = sy;
	d.nr_syms = p->nr;
	d.addrs = ad;
	d.nr_addrs = p->nr;
	d.frames = fr;
	d.nr_frames = p->nr;
	d.ranges = rg;
	d.nr_ranges = p->nr_ranges;
	d.strings = p->str;
	d.strings_len = p->str_len;
	d.bytes = by;
	d.bytes_len = nb;
	assert_int_equal(embed_encode(&d, &b), 0);
	assert_int_equal(embed_decode(b.data, b.len, &out, NULL), 0);
	buf_free(&b);
	return out;
}

static const char *addr_function(const struct embed_dso *d, uint64_t vaddr, uint32_t *line)
{
	const struct embed_addr *a = embed_find_addr(d, vaddr);

	assert_non_null(a);
	assert_int_equal(a->nr, 1);
	*line = d->frames[a->first].line;
	return embed_str(d, d->frames[a->first].function);
}

/* a hit f1 and main, b hit f2 and main: merged, the symbols and hit
 * addresses of both, the byte ranges joined where they overlap or touch. */
static void test_merge(void **state)
{
	static const char sa[] = "/bin/app\0f1\0main", sb[] = "/bin/app\0main\0f2";
	const struct part pa = { sa, sizeof(sa), { 0x1000, 0x1200 }, { 9, 12 }, 2,
				 { 0x2000, 0x3000 }, { 8, 4 }, 2 };
	const struct part pb = { sb, sizeof(sb), { 0x1100, 0x1200 }, { 14, 9 }, 2,
				 { 0x2004, 0x3004, 0x5000 }, { 8, 2, 1 }, 3 };
	struct embed_dso *a = make_part(&pa, 1), *b = make_part(&pb, 1), *c = make_part(&pb, 2);
	struct embed_dso *m;
	const uint8_t *p;
	uint32_t line;

	(void)state;
	assert_int_equal(embed_merge(a, b, &m), 0);
	assert_int_equal(m->nr_syms, 3);
	assert_string_equal(embed_str(m, m->syms[0].name), "f1");
	assert_string_equal(embed_str(m, m->syms[1].name), "f2");
	assert_string_equal(embed_str(m, m->syms[2].name), "main");
	assert_string_equal(embed_str(m, m->path), "/bin/app");
	assert_int_equal(m->nr_addrs, 3);
	assert_string_equal(addr_function(m, 0x1010, &line), "f1");
	assert_int_equal(line, 1);
	assert_string_equal(addr_function(m, 0x1110, &line), "f2");
	assert_int_equal(line, 1);
	assert_string_equal(addr_function(m, 0x1210, &line), "main");
	assert_int_equal(line, 2);          /* a's entry */
	assert_int_equal(m->nr_ranges, 3);
	p = embed_find_bytes(m, 0x2000, 12);
	assert_non_null(p);
	for (int i = 0; i < 12; i++)
		assert_int_equal(p[i], image(0x2000 + i));
	p = embed_find_bytes(m, 0x3000, 6);
	assert_non_null(p);
	assert_int_equal(p[5], image(0x3005));
	assert_non_null(embed_find_bytes(m, 0x5000, 1));
	assert_null(embed_find_bytes(m, 0x2000, 13));
	embed_free(m);
	/* the other way round: the same symbols and addresses */
	assert_int_equal(embed_merge(b, a, &m), 0);
	assert_int_equal(m->nr_syms, 3);
	assert_string_equal(addr_function(m, 0x1010, &line), "f1");
	assert_string_equal(addr_function(m, 0x1110, &line), "f2");
	assert_non_null(embed_find_bytes(m, 0x2000, 12));
	embed_free(m);
	/* another binary: refused */
	assert_int_equal(embed_merge(a, c, &m), -EINVAL);
	assert_null(m);
	embed_free(a);
	embed_free(b);
	embed_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_minimal),
		cmocka_unit_test(test_lookups),
		cmocka_unit_test(test_encode_rejects),
		cmocka_unit_test(test_decode_rejects),
		cmocka_unit_test(test_decode_every_byte),
		cmocka_unit_test(test_merge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
