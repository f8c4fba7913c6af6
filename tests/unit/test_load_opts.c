/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the reading core's configuration: the filters compiled
 * once (report/core/filter.c) and the samples' time span found through the
 * index (report/core/span.c) against the one a full reading finds.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "format/blocks.h"
#include "format/container.h"
#include "report/core/filter.h"
#include "report/core/session.h"
#include "tools/synth.h"

static char tmpdir[] = "/tmp/test_load_opts.XXXXXX";

static const char *tmp_path(const char *name)
{
	static char buf[256];

	snprintf(buf, sizeof(buf), "%s/%s", tmpdir, name);
	return buf;
}

static void test_filter_ids(void **state)
{
	struct load_filter_opts fo = { .pids = "30,7,0,007", .tids = "100", .cpus = "0-2,5,64" };
	struct filter f;

	(void)state;
	assert_int_equal(filter_compile(&f, &fo, NULL), 0);
	assert_true(filter_ids_wanted(&f, 7, 100, 0));
	assert_true(filter_ids_wanted(&f, 30, 100, 2));
	assert_true(filter_ids_wanted(&f, 0, 100, 5));
	assert_true(filter_ids_wanted(&f, 0, 100, 64));
	/* "007" was compared as text: it named no pid */
	assert_int_equal(f.pids.nr, 3);
	assert_false(filter_ids_wanted(&f, 8, 100, 0));
	assert_false(filter_ids_wanted(&f, 7, 101, 0));
	assert_false(filter_ids_wanted(&f, 7, 100, 3));
	assert_false(filter_ids_wanted(&f, 7, 100, 63));
	assert_false(filter_ids_wanted(&f, 7, 100, 65));
	assert_false(filter_ids_wanted(&f, 7, 100, 0xffffffffu));
	assert_int_equal(f.cpus.max, 64);
	filter_free(&f);
	/* nothing asked: everything passes */
	memset(&fo, 0, sizeof(fo));
	assert_int_equal(filter_compile(&f, &fo, NULL), 0);
	assert_true(filter_ids_wanted(&f, 1, 2, 3));
	assert_true(filter_name_wanted(&f.comms, "x"));
	assert_true(filter_time_wanted(&f.time, 5, 0, 0));
	assert_true(filter_frame_wanted(&f, NULL, NULL, NULL));
	assert_false(filter_by_frame(&f));
	filter_free(&f);
}

static void test_filter_names(void **state)
{
	struct load_filter_opts fo = { .comms = "tree,a b,sh", .dsos = "libc.so.6,/bin/app",
				       .syms = "main,f" };
	struct filter f;

	(void)state;
	assert_int_equal(filter_compile(&f, &fo, NULL), 0);
	assert_true(filter_name_wanted(&f.comms, "tree"));
	assert_true(filter_name_wanted(&f.comms, "a b"));
	assert_true(filter_name_wanted(&f.comms, "sh"));
	assert_false(filter_name_wanted(&f.comms, "s"));
	assert_false(filter_name_wanted(&f.comms, "tree2"));
	assert_false(filter_name_wanted(&f.comms, ""));
	assert_true(filter_by_frame(&f));
	/* --dso: the short name or the path */
	assert_true(filter_frame_wanted(&f, "libc.so.6", "/usr/lib/libc.so.6", "main"));
	assert_true(filter_frame_wanted(&f, "app", "/bin/app", "f"));
	assert_false(filter_frame_wanted(&f, "app", "/usr/bin/app", "f"));
	assert_false(filter_frame_wanted(&f, NULL, NULL, "main"));
	/* --symbols: the symbol, and none is not one of them */
	assert_false(filter_frame_wanted(&f, "libc.so.6", "/lib/libc.so.6", "g"));
	assert_false(filter_frame_wanted(&f, "libc.so.6", "/lib/libc.so.6", NULL));
	filter_free(&f);
}

static void test_filter_time(void **state)
{
	struct load_filter_opts fo = { .time = "1.5,2" };
	struct filter f;

	(void)state;
	assert_int_equal(filter_compile(&f, &fo, NULL), 0);
	assert_int_equal(f.time.start, 1500000000);
	assert_int_equal(f.time.end, 2000000000);
	assert_false(filter_time_wanted(&f.time, 1499999999, 0, 0));
	assert_true(filter_time_wanted(&f.time, 1500000000, 0, 0));
	assert_true(filter_time_wanted(&f.time, 2000000000, 0, 0));
	assert_false(filter_time_wanted(&f.time, 2000000001, 0, 0));
	filter_free(&f);
	fo.time = "3,";
	assert_int_equal(filter_compile(&f, &fo, NULL), 0);
	assert_true(filter_time_wanted(&f.time, UINT64_MAX, 0, 0));
	assert_false(filter_time_wanted(&f.time, 2999999999, 0, 0));
	filter_free(&f);
	/* percent of the span t0..t1, both ends in */
	fo.time = "10%-20%";
	assert_int_equal(filter_compile(&f, &fo, NULL), 0);
	assert_true(f.time.pct);
	assert_false(filter_time_wanted(&f.time, 1099, 1000, 2000));
	assert_true(filter_time_wanted(&f.time, 1100, 1000, 2000));
	assert_true(filter_time_wanted(&f.time, 1200, 1000, 2000));
	assert_false(filter_time_wanted(&f.time, 1201, 1000, 2000));
	assert_false(filter_time_wanted(&f.time, 999, 1000, 2000));
	filter_free(&f);
	/* a bad value is refused by the compiler too */
	fo.time = "x";
	assert_int_equal(filter_compile(&f, &fo, NULL), -EINVAL);
}

static uint64_t record_time(void *ctx, const void *rec, size_t len)
{
	struct perf_event_header h;
	uint64_t t = 0;

	(void)ctx;
	memcpy(&h, rec, sizeof(h));
	if (h.type == PERF_RECORD_SAMPLE && len >= 40)
		memcpy(&t, (const uint8_t *)rec + 32, 8);
	return t;
}

/* Samples of two CPUs whose times interleave, in many DATA blocks. */
static void write_file(const char *path, bool ranges, bool finish)
{
	struct container_writer_opts o = { .level = 1, .block_size = 1 };
	static uint8_t buf[1 << 16];
	struct perf_event_attr attr;
	struct event_id ids[2] = { { 100, 0, -1 }, { 101, 1, -1 } };
	struct container_writer *w;
	struct buf b = BUF_INIT;
	struct synth s[2];

	if (ranges)
		o.record_time = record_time;
	synth_attr(&attr);
	synth_init(&s[0], 1, 100, 1000);
	synth_init(&s[1], 2, 101, 1000);
	s[1].time += 5000000;   /* the second CPU starts later... */
	assert_int_equal(container_writer_open(&w, path, &o, NULL), 0);
	assert_int_equal(event_block_encode(&attr, sizeof(attr), "cpu-clock", ids, 2, &b), 0);
	assert_int_equal(container_write_block(w, BLOCK_EVENT, b.data, b.len, NULL), 0);
	for (int round = 0; round < 100; round++) {
		for (uint32_t cpu = 0; cpu < 2; cpu++) {
			size_t off = 0;

			/* ... and the first one ends later */
			for (int i = 0; i < (cpu ? 30 : 40); i++)
				off += synth_sample(&s[cpu], buf + off, cpu);
			assert_int_equal(container_write_records(w, cpu, buf, off, NULL, 0, NULL), 0);
		}
		assert_int_equal(container_write_round(w, NULL), 0);
	}
	if (finish)
		assert_int_equal(container_writer_close(w, NULL), 0);
	else
		container_writer_abort(w);
	buf_free(&b);
}

static void expect_span(const char *path, int want)
{
	struct session s, full;
	uint64_t first, last;
	struct index_entry *e;
	size_t n, nr_data = 0;

	assert_int_equal(session_open(&s, path, true, NULL), 0);
	assert_int_equal(session_sample_span(&s, &first, &last, NULL), want);
	assert_int_equal(container_reader_index(s.r, &e, &n, NULL), want);
	for (size_t i = 0; i < n; i++)
		nr_data += e[i].type == BLOCK_DATA;
	free(e);
	assert_true(!want || nr_data > 10);
	/* the walk is not disturbed */
	assert_int_equal(session_read(&s, NULL, NULL, NULL), 0);
	assert_int_equal(session_open(&full, path, true, NULL), 0);
	assert_int_equal(session_read(&full, NULL, NULL, NULL), 0);
	assert_int_equal(s.stats.samples, full.stats.samples);
	assert_int_equal(s.first_time, full.first_time);
	assert_int_equal(s.last_time, full.last_time);
	if (want) {
		assert_int_equal(first, full.first_time);
		assert_int_equal(last, full.last_time);
	} else {
		assert_int_equal(first, 0);
		assert_int_equal(last, 0);
	}
	session_close(&s);
	session_close(&full);
}

static void test_span(void **state)
{
	(void)state;
	write_file(tmp_path("ranges.data"), true, true);
	expect_span(tmp_path("ranges.data"), 1);
	/* no time ranges in the index: every block is read, the same answer */
	write_file(tmp_path("noranges.data"), false, true);
	expect_span(tmp_path("noranges.data"), 1);
	/* no index: the caller reads the file */
	write_file(tmp_path("cut.data"), true, false);
	expect_span(tmp_path("cut.data"), 0);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	const char *files[] = { "ranges.data", "noranges.data", "cut.data" };

	(void)state;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		unlink(tmp_path(files[i]));
	return rmdir(tmpdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_filter_ids),
		cmocka_unit_test(test_filter_names),
		cmocka_unit_test(test_filter_time),
		cmocka_unit_test(test_span),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
