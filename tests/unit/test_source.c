/* SPDX-License-Identifier: MIT */
/* Unit tests of the SOURCE block (format/source.c, FORMAT.md 5.10) and of
 * what --embed-source puts in it (report/symbols/embed_source.c): round
 * trip, lookups, what the decoder rejects, the context around hit lines
 * and the bounds. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/source.h"
#include "report/symbols/embed_source.h"

/* "/a.c" 0, "x" 5, "y" 7, "/b.c" 9, "" 14 */
static const char strtab[] = "/a.c\0x\0y\0/b.c\0";

static struct source_block make(struct source_file *f, struct source_line *l)
{
	f[0] = (struct source_file){ 0, 0, 2 };
	f[1] = (struct source_file){ 9, 2, 1 };
	l[0] = (struct source_line){ 3, 5 };
	l[1] = (struct source_line){ 9, 7 };
	l[2] = (struct source_line){ 1, 14 };
	return (struct source_block){ f, l, 2, 3, strtab, sizeof(strtab) };
}

static void test_round_trip(void **state)
{
	struct source_file f[2];
	struct source_line l[3];
	struct source_block b = make(f, l), *back;
	struct buf out = BUF_INIT;

	(void)state;
	assert_int_equal(source_encode(&b, &out), 0);
	assert_int_equal(out.len, SOURCE_HEADER_SIZE + 2 * 12 + 3 * 8 + sizeof(strtab));
	assert_int_equal(source_decode(out.data, out.len, &back, NULL), 0);
	assert_string_equal(source_find(back, "/a.c", 3), "x");
	assert_string_equal(source_find(back, "/a.c", 9), "y");
	assert_string_equal(source_find(back, "/b.c", 1), "");
	assert_null(source_find(back, "/a.c", 4));
	assert_null(source_find(back, "/a.c", 10));
	assert_null(source_find(back, "/c.c", 1));
	assert_null(source_find(back, "", 1));
	source_free(back);
	/* every shorter payload is refused, none crashes */
	for (size_t n = 0; n < out.len; n++) {
		assert_int_not_equal(source_decode(out.data, n, &back, NULL), 0);
		assert_null(back);
	}
	buf_free(&out);
	/* an empty block is valid */
	b = (struct source_block){ 0 };
	assert_int_equal(source_encode(&b, &out), 0);
	assert_int_equal(source_decode(out.data, out.len, &back, NULL), 0);
	assert_null(source_find(back, "/a.c", 1));
	source_free(back);
	buf_free(&out);
}

static void test_rejects(void **state)
{
	struct source_file f[2];
	struct source_line l[3];
	struct source_block b;
	struct buf out = BUF_INIT;
	struct err err = { 0 };
	struct source_block *back;

	(void)state;
	b = make(f, l);
	f[1].path = 0;                  /* the same path twice */
	assert_int_equal(source_encode(&b, &out), -EINVAL);
	b = make(f, l);
	l[1].line = 3;                  /* lines not increasing */
	assert_int_equal(source_encode(&b, &out), -EINVAL);
	b = make(f, l);
	l[0].line = 0;
	assert_int_equal(source_encode(&b, &out), -EINVAL);
	b = make(f, l);
	f[1].nr = 2;                    /* past the line table */
	assert_int_equal(source_encode(&b, &out), -EINVAL);
	b = make(f, l);
	l[2].text = sizeof(strtab);     /* past the strings */
	assert_int_equal(source_encode(&b, &out), -EINVAL);
	/* the decoder: reserved field, a string table without its NUL */
	b = make(f, l);
	assert_int_equal(source_encode(&b, &out), 0);
	out.data[12] = 1;
	assert_int_equal(source_decode(out.data, out.len, &back, &err), -PREC_ECORRUPT);
	assert_non_null(strstr(err.msg, "reserved"));
	out.data[12] = 0;
	out.data[out.len - 1] = 'z';
	assert_int_equal(source_decode(out.data, out.len, &back, &err), -PREC_ECORRUPT);
	assert_non_null(strstr(err.msg, "NUL"));
	buf_free(&out);
}

/* A file of 100 numbered lines; hits at 5 and 50 (twice) and 98: the lines
 * within EMBED_SOURCE_CONTEXT of them; a missing file is counted. */
static void test_build(void **state)
{
	char path[] = "/tmp/test_source_XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	struct embed_source_hit h[5] = {
		{ path, 50 }, { path, 5 }, { "/nonexistent/x.c", 3 }, { path, 98 }, { path, 50 },
	};
	struct embed_source_stats st = { 0 };
	struct buf out = BUF_INIT;
	struct source_block *b;
	char want[32];
	uint32_t n = 0;

	(void)state;
	assert_non_null(f);
	for (int i = 1; i <= 100; i++)
		fprintf(f, i == 51 ? "line %d\r\n" : "line %d\n", i);
	fprintf(f, "%0*d", (int)EMBED_SOURCE_LINE_MAX + 10, 0);    /* line 101, too long */
	fclose(f);
	h[3].line = 101;
	assert_int_equal(embed_source_build(h, 5, &out, &st), 0);
	unlink(path);
	assert_int_equal(st.files, 1);
	assert_int_equal(st.unreadable, 1);
	assert_int_equal(source_decode(out.data, out.len, &b, NULL), 0);
	for (uint32_t i = 1; i <= 101; i++) {
		const char *t = source_find(b, path, i);
		int in = i <= 5 + EMBED_SOURCE_CONTEXT ||
			 (i + EMBED_SOURCE_CONTEXT >= 50 && i <= 50 + EMBED_SOURCE_CONTEXT) ||
			 i + EMBED_SOURCE_CONTEXT >= 101;

		if (!in) {
			assert_null(t);
			continue;
		}
		assert_non_null(t);
		n++;
		if (i == 101) {
			assert_int_equal(strlen(t), EMBED_SOURCE_LINE_MAX);
			continue;
		}
		snprintf(want, sizeof(want), "line %u", i);
		assert_string_equal(t, want);           /* "\r" dropped too */
	}
	assert_int_equal(st.lines, n);
	assert_null(source_find(b, path, 102));
	source_free(b);
	buf_free(&out);
}

/* A file whose wanted lines go past EMBED_SOURCE_MAX is left out whole; a
 * small one after it still goes in. */
static void test_bound(void **state)
{
	char big[] = "/tmp/test_source_aXXXXXX", small[] = "/tmp/test_source_bXXXXXX";
	FILE *fb = fdopen(mkstemp(big), "w"), *fs = fdopen(mkstemp(small), "w");
	uint32_t nl = EMBED_SOURCE_MAX / 1000 + 100, nh = 0;
	struct embed_source_hit *h = calloc(nl + 1, sizeof(*h));
	struct embed_source_stats st = { 0 };
	struct buf out = BUF_INIT;
	struct source_block *b;

	(void)state;
	assert_non_null(fb);
	assert_non_null(fs);
	for (uint32_t i = 1; i <= nl; i++) {
		fprintf(fb, "%0999u\n", i);
		if (i % 10 == 0)
			h[nh++] = (struct embed_source_hit){ big, i };
	}
	fprintf(fs, "one\ntwo\n");
	fclose(fb);
	fclose(fs);
	h[nh++] = (struct embed_source_hit){ small, 2 };
	assert_int_equal(embed_source_build(h, nh, &out, &st), 0);
	unlink(big);
	unlink(small);
	assert_int_equal(st.files, 1);
	assert_int_equal(st.left_out, 1);
	assert_int_equal(st.lines, 2);
	assert_int_equal(source_decode(out.data, out.len, &b, NULL), 0);
	assert_string_equal(source_find(b, small, 1), "one");
	assert_null(source_find(b, big, 10));
	source_free(b);
	buf_free(&out);
	free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_rejects),
		cmocka_unit_test(test_build),
		cmocka_unit_test(test_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
