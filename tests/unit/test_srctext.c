/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of source text lookup (report/symbols/srctext.c): lines by
 * number (a last line without its newline, CR-LF endings), past the end,
 * a file that cannot be read, and --prefix / --prefix-strip remapping.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "report/symbols/srctext.h"

static char dir[64];

static void write_file(const char *name, const char *text)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_srctext.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	write_file("a.c", "one\n\ttwo\r\nthree");
	return 0;
}

static int teardown(void **state)
{
	char path[128];

	(void)state;
	snprintf(path, sizeof(path), "%s/a.c", dir);
	unlink(path);
	rmdir(dir);
	return 0;
}

static void expect_line(struct srctext *st, const char *path, unsigned line, const char *want)
{
	size_t len = 0;
	const char *t = srctext_line(st, path, line, &len);

	if (!want) {
		assert_null(t);
		return;
	}
	assert_non_null(t);
	assert_int_equal(len, strlen(want));
	assert_memory_equal(t, want, len);
}

static void test_lines(void **state)
{
	struct srctext *st = srctext_new(NULL, 0);
	char path[128];

	(void)state;
	snprintf(path, sizeof(path), "%s/a.c", dir);
	expect_line(st, path, 1, "one");
	expect_line(st, path, 2, "\ttwo");
	expect_line(st, path, 3, "three");
	expect_line(st, path, 4, NULL);
	expect_line(st, path, 0, NULL);
	expect_line(st, "/nonexistent/x.c", 1, NULL);
	expect_line(st, "/nonexistent/x.c", 1, NULL);        /* remembered */
	srctext_free(st);
}

static void test_prefix(void **state)
{
	struct srctext *st = srctext_new(dir, 2);

	(void)state;
	/* /build/src/a.c: two folders stripped, then the prefix */
	expect_line(st, "/build/src/a.c", 1, "one");
	srctext_free(st);
	st = srctext_new(dir, 100);     /* more folders than there are: the name stays */
	expect_line(st, "/x/y/a.c", 3, "three");
	srctext_free(st);
	srctext_free(NULL);
}

/* What a recording embedded (prec --embed-source): line 2 of /gone/a.c and
 * of the real file, asked by the path as DWARF names it. */
static const char *embedded(const void *ctx, const char *path, unsigned line)
{
	(void)ctx;
	if (line == 2 && (!strcmp(path, "/gone/a.c") || strstr(path, "/a.c")))
		return "embedded two";
	return NULL;
}

static void test_embedded(void **state)
{
	struct srctext *st = srctext_new(dir, 1);
	char path[128];

	(void)state;
	srctext_set_embedded(st, embedded, NULL);
	/* the file is gone: the embedded line, nothing else */
	expect_line(st, "/gone/a.c", 2, "embedded two");
	expect_line(st, "/nonexistent/a.c", 2, "embedded two");
	expect_line(st, "/gone/b.c", 2, NULL);
	/* the embedded line first; the others from the file (under --prefix) */
	expect_line(st, "/src/a.c", 2, "embedded two");
	expect_line(st, "/src/a.c", 1, "one");
	srctext_free(st);
	st = srctext_new(NULL, 0);
	snprintf(path, sizeof(path), "%s/a.c", dir);
	srctext_set_embedded(st, embedded, NULL);
	expect_line(st, path, 3, "three");
	srctext_free(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_prefix),
		cmocka_unit_test(test_embedded),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
