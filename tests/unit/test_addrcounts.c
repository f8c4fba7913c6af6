/* SPDX-License-Identifier: MIT */
/* Unit tests of the ADDR_COUNTS block (format/addrcounts.c, FORMAT.md
 * 5.11): round trip, what the encoder refuses, and every rule the decoder
 * enforces, on payloads edited byte by byte. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "format/addrcounts.h"

/* "/bin/a" 0, "[kernel.kallsyms]_text" 7 */
static const char strtab[] = "/bin/a\0[kernel.kallsyms]_text";

struct fixture {
	struct addrcounts_dso dsos[2];
	struct addrcounts_event events[2];
	struct addrcounts_entry entries[4];
	struct addrcounts c;
};

static void make(struct fixture *f)
{
	memset(f, 0, sizeof(*f));
	f->dsos[0] = (struct addrcounts_dso){ 0, 4, { 1, 2, 3, 4 } };
	f->dsos[1] = (struct addrcounts_dso){ 7, 0, { 0 } };
	f->entries[0] = (struct addrcounts_entry){ 0x1000, 2, 20, 0, 0, 0 };
	f->entries[1] = (struct addrcounts_entry){ 0xffffffff81000000ull, 1, 10, 1, 0,
						   ADDRCOUNTS_KERNEL };
	f->entries[2] = (struct addrcounts_entry){ 0x1000, 5, UINT64_MAX, 0, 1, 0 };
	f->entries[3] = (struct addrcounts_entry){ 0x7f00, 1, 3, ADDRCOUNTS_NONE, 1, 0 };
	f->events[0] = (struct addrcounts_event){ 3, 30 };
	f->events[1] = (struct addrcounts_event){ 6, 2 };       /* UINT64_MAX + 3, mod 2^64 */
	f->c = (struct addrcounts){ 4096, 0x12345678, f->dsos, 2, f->events, 2, f->entries, 4,
				    strtab, sizeof(strtab) };
}

static size_t payload_len(const struct addrcounts *c)
{
	return ADDRCOUNTS_HEADER_SIZE + ADDRCOUNTS_DSO_SIZE * c->nr_dsos +
	       ADDRCOUNTS_EVENT_SIZE * c->nr_events + ADDRCOUNTS_ENTRY_SIZE * c->nr_entries +
	       c->strings_len;
}

static void test_round_trip(void **state)
{
	struct fixture f;
	struct addrcounts *back;
	struct buf out = BUF_INIT;

	(void)state;
	make(&f);
	assert_int_equal(addrcounts_encode(&f.c, &out), 0);
	assert_int_equal(out.len, payload_len(&f.c));
	assert_int_equal(addrcounts_decode(out.data, out.len, &back, NULL), 0);
	assert_int_equal(back->covered_end, 4096);
	assert_int_equal(back->covered_crc, 0x12345678);
	assert_int_equal(back->nr_dsos, 2);
	assert_string_equal(back->strings + back->dsos[1].path, "[kernel.kallsyms]_text");
	assert_int_equal(back->dsos[0].build_id_size, 4);
	assert_memory_equal(back->dsos[0].build_id, f.dsos[0].build_id, 64);
	assert_int_equal(back->nr_entries, 4);
	for (uint32_t i = 0; i < 4; i++) {
		assert_int_equal(back->entries[i].addr, f.entries[i].addr);
		assert_int_equal(back->entries[i].samples, f.entries[i].samples);
		assert_int_equal(back->entries[i].period, f.entries[i].period);
		assert_int_equal(back->entries[i].dso, f.entries[i].dso);
		assert_int_equal(back->entries[i].event, f.entries[i].event);
		assert_int_equal(back->entries[i].flags, f.entries[i].flags);
	}
	assert_int_equal(back->events[1].samples, 6);
	addrcounts_free(back);
	/* every shorter or longer payload is refused, none crashes */
	for (size_t n = 0; n < out.len; n++) {
		assert_int_equal(addrcounts_decode(out.data, n, &back, NULL), -PREC_ECORRUPT);
		assert_null(back);
	}
	assert_int_equal(buf_append(&out, "", 1), 0);
	assert_int_equal(addrcounts_decode(out.data, out.len, &back, NULL), -PREC_ECORRUPT);
	buf_free(&out);
	/* an empty block is valid */
	f.c = (struct addrcounts){ 0 };
	assert_int_equal(addrcounts_encode(&f.c, &out), 0);
	assert_int_equal(out.len, ADDRCOUNTS_HEADER_SIZE);
	assert_int_equal(addrcounts_decode(out.data, out.len, &back, NULL), 0);
	assert_int_equal(back->nr_entries, 0);
	addrcounts_free(back);
	addrcounts_free(NULL);
	buf_free(&out);
}

/* What the encoder refuses: the rules broken in the struct. */
static void test_encode_refuses(void **state)
{
	struct fixture f;
	struct buf out = BUF_INIT;

	(void)state;
	make(&f);
	f.entries[3].dso = 2;
	assert_int_equal(addrcounts_encode(&f.c, &out), -EINVAL);
	make(&f);
	f.entries[3] = f.entries[2];                    /* an address twice */
	f.events[1] = (struct addrcounts_event){ 10, (uint64_t)2 * UINT64_MAX };
	assert_int_equal(addrcounts_encode(&f.c, &out), -EINVAL);
	make(&f);
	f.events[0].samples++;
	assert_int_equal(addrcounts_encode(&f.c, &out), -EINVAL);
	make(&f);
	f.dsos[1].path = 0;                             /* a path twice */
	assert_int_equal(addrcounts_encode(&f.c, &out), -EINVAL);
	make(&f);
	f.entries[0].samples = 0;
	f.events[0].samples = 1;
	assert_int_equal(addrcounts_encode(&f.c, &out), -EINVAL);
	assert_int_equal(out.len, 0);
	buf_free(&out);
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* One edit of a good payload, and whether the decoder must refuse it. */
struct edit {
	size_t off;
	uint8_t value;
	const char *why;                /* NULL: still valid */
};

#define DSO(i) (ADDRCOUNTS_HEADER_SIZE + ADDRCOUNTS_DSO_SIZE * (i))
#define EVENT(i) (DSO(2) + ADDRCOUNTS_EVENT_SIZE * (i))
#define ENTRY(i) (EVENT(2) + ADDRCOUNTS_ENTRY_SIZE * (i))
#define STRINGS ENTRY(4)

static void test_rejects(void **state)
{
	static const struct edit edits[] = {
		{ 28, 1, "reserved bytes not 0" },
		{ DSO(0) + 5, 1, "reserved bytes of a binary" },
		{ DSO(0) + 4, 65, "build id longer" },
		{ DSO(0) + 4, 3, "build id longer than its size says" },
		{ DSO(0) + 8 + 10, 7, "build id longer than its size says" },
		{ DSO(1), 30, "binary path outside" },
		{ DSO(1), 6, "binary path outside the string table, or empty" },
		{ DSO(1), 0, "a binary path twice" },
		{ DSO(1), 1, NULL },                    /* "bin/a": another path */
		{ EVENT(0), 4, "event totals" },
		{ EVENT(1) + 8, 3, "event totals" },
		{ ENTRY(0) + 24, 2, "names a binary that is not there" },
		{ ENTRY(0) + 28, 2, "names an event that is not there" },
		{ ENTRY(0) + 30, 2, "flags not defined" },
		{ ENTRY(0) + 31, 1, "reserved byte of an entry" },
		{ ENTRY(3) + 8, 0, "entry without samples" },
		{ ENTRY(2) + 28, 0, "an address twice" },
		{ ENTRY(1) + 30, 0, NULL },             /* the kernel address as a user one */
		{ STRINGS + sizeof(strtab) - 1, 'x', "string table does not end with NUL" },
	};
	struct fixture f;
	struct buf good = BUF_INIT;
	uint8_t *p;

	(void)state;
	make(&f);
	assert_int_equal(addrcounts_encode(&f.c, &good), 0);
	p = malloc(good.len);
	assert_non_null(p);
	for (size_t i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
		struct addrcounts *back = NULL;
		struct err err = { 0 };
		int ret;

		memcpy(p, good.data, good.len);
		p[edits[i].off] = edits[i].value;
		ret = addrcounts_decode(p, good.len, &back, &err);
		if (!edits[i].why) {
			assert_int_equal(ret, 0);
			addrcounts_free(back);
			continue;
		}
		assert_int_equal(ret, -PREC_ECORRUPT);
		assert_null(back);
		assert_non_null(strstr(err.msg, edits[i].why));
	}
	/* more events than the limit, with a length to match */
	{
		size_t n = ADDRCOUNTS_HEADER_SIZE + ADDRCOUNTS_EVENT_SIZE * (size_t)65537;
		uint8_t *big = calloc(1, n);
		struct addrcounts *back = NULL;
		struct err err = { 0 };

		assert_non_null(big);
		put32(big + 16, 65537);
		assert_int_equal(addrcounts_decode(big, n, &back, &err), -PREC_ECORRUPT);
		assert_non_null(strstr(err.msg, "more than 65536 events"));
		put32(big + 16, 65536);
		assert_int_equal(addrcounts_decode(big, n - ADDRCOUNTS_EVENT_SIZE, &back, &err), 0);
		addrcounts_free(back);
		free(big);
	}
	free(p);
	buf_free(&good);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_encode_refuses),
		cmocka_unit_test(test_rejects),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
