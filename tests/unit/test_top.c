/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of prec top's view (report/views/top.h) on records built
 * here, handed over as record/top.c hands them (an EVENT block, then the
 * records of each drain pass and the pass's end): the entries count what
 * came, each refresh ages them by 7/8 (-z: from zero), -K leaves the
 * kernel's samples out while the header still counts them, the stdio
 * table has perf top's header, rule and at most -E entries, the call
 * graphs made for the entries shown only are those made for all, and
 * top_update (the browser's refresh) counts and ages as top_refresh.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/blocks.h"
#include "format/container.h"
#include "report/aggregate/hist.h"
#include "report/views/print.h"
#include "report/views/top.h"

#include "perf_bytes.h"

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	    PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)
#define PID 7
#define ID 1
#define USER_IP 0x401000ull
#define KERNEL_IP 0xffffffff81000180ull

static char kallsyms[] = "/tmp/test_top.XXXXXX";

static struct top *new_top(struct top_opts *o)
{
	struct err err = { 0 };
	struct perf_event_attr a;
	struct event_id id = { .id = ID, .cpu = 0, .tid = -1 };
	struct buf b = BUF_INIT;
	struct top *t;

	o->kallsyms = kallsyms;
	o->quiet = true;
	o->nr_cpus = 2;
	t = top_new(o, &err);
	assert_non_null(t);
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.freq = 1;
	a.sample_freq = 4000;
	a.sample_type = ST;
	a.sample_id_all = 1;
	a.comm = 1;
	assert_int_equal(event_block_encode(&a, sizeof(a), "cpu-clock", &id, 1, &b), 0);
	assert_int_equal(top_block(t, BLOCK_EVENT, b.data, b.len, &err), 0);
	buf_free(&b);
	return t;
}

static void sample(struct bb *r, uint64_t time, bool kernel)
{
	begin(r, PERF_RECORD_SAMPLE, kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER);
	p64(r, ID);
	p64(r, kernel ? KERNEL_IP : USER_IP);
	p32(r, PID);
	p32(r, PID);
	p64(r, time);
	p32(r, 0);
	p32(r, 0);
	p64(r, 1000);
	end(r);
}

/* One drain pass of n user and k kernel samples from `time` on; its end. */
static void pass(struct top *t, uint64_t *time, int n, int k)
{
	static struct bb r;
	struct err err = { 0 };

	r.len = 0;
	for (int i = 0; i < n + k; i++)
		sample(&r, (*time)++, i >= n);
	/* the ring's bytes in two pieces, as a ring that wrapped gives them */
	assert_int_equal(top_records(t, 0, r.b, r.len / 2, r.b + r.len / 2, r.len - r.len / 2, &err),
			 0);
	assert_int_equal(top_round(t, &err), 0);
}

/* The refresh's entry for the user address, or NULL. */
static const struct hentry *user_entry(const struct top_snapshot *s)
{
	for (size_t i = 0; i < s->hist->nr_entries; i++) {
		const struct hentry *e = &s->hist->entries[i];

		if (!s->hist->frames[e->frame].kernel)
			return e;
	}
	return NULL;
}

static void refresh(struct top *t, double now, struct top_snapshot *s)
{
	struct err err = { 0 };

	assert_int_equal(top_refresh(t, now, 0, s, &err), 0);
}

static void age(struct top *t)
{
	struct err err = { 0 };

	assert_int_equal(top_age(t, &err), 0);
}

/* Each refresh keeps 7/8 of what the entries had; new samples add whole. */
static void test_aging(void **state)
{
	struct top_opts o = { .children = -1 };
	struct top *t = new_top(&o);
	struct top_snapshot s;
	uint64_t time = 100;
	const struct hentry *e;

	(void)state;
	for (int i = 0; i < 4; i++)
		pass(t, &time, 200, 0);
	pass(t, &time, 0, 0);           /* lets the last pass through the time order */
	refresh(t, 1.0, &s);
	e = user_entry(&s);
	assert_non_null(e);
	assert_int_equal(e->self_count, 800);
	assert_int_equal(e->self_period, 800000);
	assert_int_equal(s.total, 800000);
	age(t);
	refresh(t, 2.0, &s);
	assert_int_equal(user_entry(&s)->self_count, 700);
	assert_int_equal(user_entry(&s)->self_period, 700000);
	age(t);
	pass(t, &time, 100, 0);
	pass(t, &time, 0, 0);
	refresh(t, 3.0, &s);
	assert_int_equal(user_entry(&s)->self_count, 612 + 100);
	assert_int_equal(s.interval.samples, 100);
	top_free(t);
}

/* -z: each refresh shows only what came since the one before. */
static void test_zero(void **state)
{
	struct top_opts o = { .children = -1, .zero = true };
	struct top *t = new_top(&o);
	struct top_snapshot s;
	uint64_t time = 100;

	(void)state;
	pass(t, &time, 50, 0);
	pass(t, &time, 0, 0);
	refresh(t, 1.0, &s);
	assert_int_equal(user_entry(&s)->self_count, 50);
	age(t);
	refresh(t, 2.0, &s);
	assert_int_equal(s.hist->nr_entries, 0);
	pass(t, &time, 20, 0);
	pass(t, &time, 0, 0);
	refresh(t, 3.0, &s);
	assert_int_equal(user_entry(&s)->self_count, 20);
	top_free(t);
}

/* For the browser: top_update names the samples and counts the interval
 * without building entries; the entries the browser builds from it are
 * top_refresh's, and the aging between two updates is the same. */
static void test_update(void **state)
{
	struct top_opts o = { .children = -1 };
	struct top *t = new_top(&o);
	struct top_snapshot s;
	struct err err = { 0 };
	uint64_t time = 100, count = 0;

	(void)state;
	pass(t, &time, 150, 0);
	pass(t, &time, 150, 0);
	pass(t, &time, 0, 0);
	assert_int_equal(top_update(t, 1.0, &s, &err), 0);
	assert_int_equal(s.hist->nr_entries, 0);
	assert_int_equal(s.total, 0);
	assert_int_equal(s.interval.samples, 300);
	for (size_t i = 0; i < s.hist->nr_stacks; i++)
		count += s.hist->stacks[i].count;
	assert_int_equal(count, 300);
	assert_int_equal(hist_build(s.hist, 0), 0);
	assert_int_equal(user_entry(&s)->self_count, 300);
	age(t);
	assert_int_equal(top_update(t, 2.0, &s, &err), 0);
	assert_int_equal(s.interval.samples, 0);
	assert_int_equal(hist_build(s.hist, 0), 0);
	assert_int_equal(user_entry(&s)->self_count, 262);
	top_free(t);
}

/* -K: no kernel entry, the percentages of the rest; the header counts all. */
static void test_hide_kernel(void **state)
{
	struct top_opts o = { .children = -1, .hide_kernel = true, .pids = "7" };
	struct top *t = new_top(&o);
	struct top_snapshot s;
	uint64_t time = 100;
	char line[512];

	(void)state;
	pass(t, &time, 10, 30);
	pass(t, &time, 0, 0);
	refresh(t, 1.0, &s);
	assert_int_equal(s.hist->nr_entries, 1);
	assert_int_equal(s.total, 10000);
	assert_int_equal(s.interval.samples, 40);
	assert_int_equal(s.interval.kernel, 30);
	s.interval_s = 2.0;
	top_header(t, &s, line, sizeof(line));
	assert_string_equal(line, "   PerfTop:      20 irqs/sec  kernel:75.0%  exact:  0.0% lost: 0/0 "
			    "drop: 0/0 [4000Hz cpu-clock],  (target_pid: 7)");
	top_free(t);
}

/* The table: a blank line, the header, 79 dashes, a blank line, entries. */
static void test_print(void **state)
{
	struct top_opts o = { .children = -1 };
	struct top *t = new_top(&o);
	struct top_screen scr = { .rows = 25, .cols = 80, .entries = 1 };
	struct err err = { 0 };
	char *text = NULL, dashes[80];
	size_t len = 0;
	uint64_t time = 100;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	assert_non_null(f);
	pass(t, &time, 30, 10);
	pass(t, &time, 0, 0);
	assert_int_equal(top_print(t, f, &scr, 1.0, &err), 0);
	fclose(f);
	memset(dashes, '-', 79);
	dashes[79] = 0;
	assert_memory_equal(text, "\n   PerfTop:", 12);
	assert_non_null(strstr(text, "(all, 2 CPUs)\n"));
	assert_non_null(strstr(text, dashes));
	/* -E 1: the hottest entry only, in the report's format (an unresolved
	 * entry widens the column to 16, as perf's) */
	assert_non_null(strstr(text, "\n\n    75.00%  [unknown]         [.] 0x0000000000401000\n"));
	assert_null(strstr(text, "[k]"));
	free(text);
	top_free(t);
}

/* A sample with a call chain: leaf, then callers (user space). */
static void chain_sample(struct bb *r, uint64_t time, const uint64_t *ips, size_t n)
{
	begin(r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	p64(r, ID);
	p64(r, ips[0]);
	p32(r, PID);
	p32(r, PID);
	p64(r, time);
	p32(r, 0);
	p32(r, 0);
	p64(r, 1000);
	p64(r, n + 1);
	p64(r, PERF_CONTEXT_USER);
	for (size_t i = 0; i < n; i++)
		p64(r, ips[i]);
	end(r);
}

static struct top *chain_top(struct top_opts *o)
{
	struct err err = { 0 };
	struct perf_event_attr a;
	struct event_id id = { .id = ID, .cpu = 0, .tid = -1 };
	struct buf b = BUF_INIT;
	struct top *t;

	o->kallsyms = kallsyms;
	o->quiet = true;
	o->nr_cpus = 2;
	t = top_new(o, &err);
	assert_non_null(t);
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.freq = 1;
	a.sample_freq = 4000;
	a.sample_type = ST | PERF_SAMPLE_CALLCHAIN;
	a.sample_id_all = 1;
	assert_int_equal(event_block_encode(&a, sizeof(a), "cpu-clock", &id, 1, &b), 0);
	assert_int_equal(top_block(t, BLOCK_EVENT, b.data, b.len, &err), 0);
	buf_free(&b);
	return t;
}

/* The table's text of the refresh just built. */
static char *entries_text(struct top_snapshot *s, const struct print_opts *po)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	print_entry_lines(f, s->load, s->hist, po, 0, s->total, 2);
	fclose(f);
	return text;
}

/* Call graphs made only for the entries shown are those hist_build makes
 * for every entry, children or not. */
static void test_trees_shown(void **state)
{
	static const uint64_t chains[][4] = {
		{ 0x1010, 0x2000, 0x3000, 0x4000 }, { 0x1020, 0x2000, 0x3000, 0x4000 },
		{ 0x1010, 0x2100, 0x3000, 0x4000 }, { 0x5000, 0x2100, 0x3000, 0x4000 },
		{ 0x6000, 0x3000, 0x4000, 0 },
	};
	(void)state;
	for (int children = 0; children < 2; children++) {
		struct top_opts o = { .children = children };
		struct top *t = chain_top(&o);
		struct top_snapshot s;
		struct print_opts po = { .mode = CG_GRAPH, .threshold = 0.5, .quiet = true };
		static struct bb r;
		struct err err = { 0 };
		char *shown, *all;
		uint64_t time = 100;

		r.len = 0;
		for (int i = 0; i < 100; i++)
			chain_sample(&r, time++, chains[i % 5], chains[i % 5][3] ? 4 : 3);
		assert_int_equal(top_records(t, 0, r.b, r.len, NULL, 0, &err), 0);
		assert_int_equal(top_round(t, &err), 0);
		assert_int_equal(top_round(t, &err), 0);
		refresh(t, 1.0, &s);   /* trees for all */
		po.children = s.children;
		po.callchain = s.callchain;
		assert_true(s.callchain);
		assert_int_equal(s.children, children);
		all = entries_text(&s, &po);
		assert_int_equal(top_refresh(t, 2.0, 2, &s, &err), 0);        /* for two */
		shown = entries_text(&s, &po);
		assert_string_equal(shown, all);
		/* and as prep report makes them: every tree in hist_build */
		s.hist->opts.defer_trees = false;
		assert_int_equal(hist_build(s.hist, 0), 0);
		free(all);
		all = entries_text(&s, &po);
		assert_string_equal(shown, all);
		assert_non_null(strstr(all, "--"));
		free(all);
		free(shown);
		top_free(t);
	}
}

static int setup(void **state)
{
	int fd = mkstemp(kallsyms);
	static const char text[] = "ffffffff81000000 T _text\nffffffff81000100 T kfunc\n";

	(void)state;
	if (fd < 0 || write(fd, text, sizeof(text) - 1) != (ssize_t)(sizeof(text) - 1))
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(kallsyms);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_aging),
		cmocka_unit_test(test_zero),
		cmocka_unit_test(test_update),
		cmocka_unit_test(test_hide_kernel),
		cmocka_unit_test(test_print),
		cmocka_unit_test(test_trees_shown),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
