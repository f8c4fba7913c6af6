/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the reading core's configuration: load_opts_check (each
 * bad value named with its option, the first one wins, nothing changed),
 * the -i callbacks, the filters compiled once (report/core/filter.c) and
 * the samples' time span found through the index (report/core/span.c)
 * against the one a full reading finds.
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

#include "common/opts.h"
#include "format/blocks.h"
#include "format/container.h"
#include "report/core/load.h"
#include "tools/synth.h"

static char tmpdir[] = "/tmp/test_load_opts.XXXXXX";

static const char *tmp_path(const char *name)
{
	static char buf[256];

	snprintf(buf, sizeof(buf), "%s/%s", tmpdir, name);
	return buf;
}

/* load_opts_check on o: 0, or the message */
static const char *check(const struct load_opts *o)
{
	static struct err err;

	memset(&err, 0, sizeof(err));
	if (!load_opts_check(o, &err))
		return NULL;
	assert_true(err.msg[0]);
	return err.msg;
}

static void expect_bad(const struct load_opts *o, const char *msg)
{
	const char *got = check(o);

	assert_non_null(got);
	assert_string_equal(got, msg);
}

static void test_check_lists(void **state)
{
	struct load_opts o = { 0 };

	(void)state;
	assert_null(check(&o));
	o.f.pids = "1,22,333";
	o.f.tids = "0";
	o.f.cpus = "0-2,5";
	o.f.comms = "a,b c";
	o.f.dsos = "libc.so.6,/bin/x";
	o.f.syms = "main";
	o.f.time = "10%-20%";
	assert_null(check(&o));
	o.f.pids = "1,";
	expect_bad(&o, "--pid '1,': problems parsing pid list");
	o.f.pids = "x";
	expect_bad(&o, "--pid 'x': problems parsing pid list");
	o.f.pids = "99999999999";
	expect_bad(&o, "--pid '99999999999': problems parsing pid list");
	o.f.pids = NULL;
	o.f.tids = ",1";
	expect_bad(&o, "--tid ',1': problems parsing tid list");
	o.f.tids = NULL;
	o.f.cpus = "2-1";
	expect_bad(&o, "--cpu '2-1': not a CPU list like 0-2,5");
	o.f.cpus = "1-";
	expect_bad(&o, "--cpu '1-': not a CPU list like 0-2,5");
	o.f.cpus = NULL;
	o.f.comms = "a,,b";
	expect_bad(&o, "--comm 'a,,b': empty name in the list");
	o.f.comms = NULL;
	o.f.dsos = "";
	expect_bad(&o, "--dso '': empty name in the list");
	o.f.dsos = NULL;
	o.f.syms = "a,";
	expect_bad(&o, "--symbols 'a,': empty name in the list");
}

static void test_check_time(void **state)
{
	static const char *good[] = { "1,2", ",2", "1,", ",", "0%-100%", "10.5%-10.5%" };
	static const char *bad[] = { "bad", "1", "1,x", "-1,2", "20%-10%", "10%-120%", "10%" };
	struct load_opts o = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		o.f.time = good[i];
		assert_null(check(&o));
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char want[256];

		o.f.time = bad[i];
		snprintf(want, sizeof(want), "--time '%s': expected START,END in seconds (either may "
			 "be empty) or a percent range like 10%%-20%%", bad[i]);
		expect_bad(&o, want);
	}
	o.f.time = "5,1";
	expect_bad(&o, "--time '5,1': invalid time string (the end is before the start)");
}

/* The first bad option is the one named, in the order of the checks; the
 * options are left as they were. */
static void test_check_order(void **state)
{
	struct load_opts o = { .kallsyms_path = "/nonexistent/kallsyms", .symfs = "/dev/null",
			       .f = { .time = "bad" } };
	struct load_opts copy;

	(void)state;
	expect_bad(&o, "--kallsyms '/nonexistent/kallsyms': invalid file: No such file or directory");
	o.kallsyms_path = "/dev/null";
	expect_bad(&o, "--symfs '/dev/null': not a folder");
	o.symfs = "/";
	o.f.pids = "y";
	copy = o;
	expect_bad(&o, "--pid 'y': problems parsing pid list");
	assert_memory_equal(&o, &copy, sizeof(o));
	o.f.pids = NULL;
	assert_non_null(strstr(check(&o), "--time 'bad'"));
}

static void test_inputs(void **state)
{
	struct load_opts o = { 0 };
	const struct opt add = LOAD_OPT_INPUTS(&o), one = LOAD_OPT_INPUT(&o);
	struct err err = { 0 };
	char names[LOAD_MAX_INPUTS + 1][8];

	(void)state;
	load_opts_default_input(&o);
	assert_int_equal(o.nr_inputs, 1);
	assert_string_equal(o.inputs[0], "prec.data");
	load_opts_default_input(&o);
	assert_int_equal(o.nr_inputs, 1);
	assert_int_equal(one.cb(&one, "a", &err), 0);
	assert_int_equal(one.cb(&one, "b", &err), 0);
	assert_int_equal(o.nr_inputs, 1);
	assert_string_equal(o.inputs[0], "b");
	o.nr_inputs = 0;
	for (int i = 0; i < LOAD_MAX_INPUTS; i++) {
		snprintf(names[i], sizeof(names[i]), "f%d", i);
		assert_int_equal(add.cb(&add, names[i], &err), 0);
	}
	assert_int_equal(add.cb(&add, "extra", &err), -EINVAL);
	assert_string_equal(err.msg, "at most 16 input files");
	assert_int_equal(o.nr_inputs, LOAD_MAX_INPUTS);
	assert_string_equal(o.inputs[15], "f15");
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
		cmocka_unit_test(test_check_lists),
		cmocka_unit_test(test_check_time),
		cmocka_unit_test(test_check_order),
		cmocka_unit_test(test_inputs),
		cmocka_unit_test(test_filter_ids),
		cmocka_unit_test(test_filter_names),
		cmocka_unit_test(test_filter_time),
		cmocka_unit_test(test_span),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
