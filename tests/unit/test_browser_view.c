/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the browser's view (report/tui/view.c, view_keep.c: no
 * curses) and of what it asks of the histogram (hist_build_keep,
 * hist_entries_swap): rows are the text report's lines with the fold mark
 * in front, folding entry by entry and node by node, zoom into a thread
 * (the entries of its samples alone) and out, the symbol filter, and a
 * refresh (the source's samples change, as prec top's do) that keeps the
 * open entry, the unfolded node and the selection with their entries.
 * The machine, maps and symbols are made by hand, as in test_sortkeys.c.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/aggregate/hist.h"
#include "report/tui/tui_int.h"
#include "report/views/print_line.h"

#define APP 0x400000ull

static const struct { const char *name; uint64_t start, end; } syms[] = {
	{ "main", 0x1000, 0x1100 }, { "a", 0x1100, 0x1200 }, { "b", 0x1200, 0x1300 },
};

struct fx {
	struct machine m;
	struct hist h;
	struct thread *t1, *t2;
	struct print_opts po;
	struct browser_source src;
	struct view vw;
	struct err err;
};

static void ev_info(void *ctx, int event, struct browser_event *ev)
{
	struct fx *x = ctx;

	(void)event;
	*ev = (struct browser_event){ "cpu-clock", x->h.total_period, true, false };
}

static void record(struct machine *m, struct record *r)
{
	assert_int_equal(machine_process(m, r), 0);
}

static void fx_init(struct fx *x)
{
	struct hist_opts o = { .keys = { SORT_COMM, SORT_SYM }, .nr_keys = 2, .children = true,
			       .callchain = true, .caller = true };
	struct record r = { .type = PERF_RECORD_COMM };

	memset(x, 0, sizeof(*x));
	machine_init(&x->m);
	r.u.comm.pid = 10, r.u.comm.tid = 10, r.u.comm.comm = "app";
	record(&x->m, &r);
	r.u.comm.tid = 11, r.u.comm.comm = "worker";
	record(&x->m, &r);
	r = (struct record){ .type = PERF_RECORD_MMAP };
	r.u.mmap.pid = r.u.mmap.tid = 10;
	r.u.mmap.addr = APP, r.u.mmap.len = 0x10000, r.u.mmap.filename = "/bin/app";
	record(&x->m, &r);
	x->t1 = machine_thread(&x->m, 10, 10);
	x->t2 = machine_thread(&x->m, 10, 11);
	assert_int_equal(hist_init(&x->h, &o, &x->m, NULL), 0);
	x->po = (struct print_opts){ .mode = CG_GRAPH, .children = true, .callchain = true };
	x->src = (struct browser_source){ .hist = &x->h, .po = &x->po, .nr_events = 1,
					  .event = ev_info, .ctx = x, .first_event = -1 };
}

static void fx_free(struct fx *x)
{
	view_free(&x->vw);
	hist_free(&x->h);
	machine_free(&x->m);
}

static void add(struct fx *x, struct thread *t, uint64_t period, const uint64_t *addrs, size_t n)
{
	bool kernel[8] = { false };

	assert_int_equal(hist_add(&x->h, 0, t, 0, period, addrs, kernel, n, 0), 0);
}

#define ADD(x, t, period, ...) \
	add(x, t, period, (const uint64_t[]){ __VA_ARGS__ }, \
	    sizeof((const uint64_t[]){ __VA_ARGS__ }) / sizeof(uint64_t))

/* as hist_resolve would name them */
static void name_frames(struct fx *x)
{
	for (size_t i = 0; i < x->h.nr_frames; i++) {
		struct frame *f = &x->h.frames[i];

		f->src_done = true;
		f->vaddr = f->sym_start = f->addr;
		for (uint32_t j = 0; j < sizeof(syms) / sizeof(syms[0]); j++)
			if (f->addr >= syms[j].start && f->addr < syms[j].end) {
				f->sym = machine_intern(&x->m, syms[j].name);
				f->sym_start = syms[j].start;
				f->sym_id = j;
			}
	}
}

/* main > a (t1, 60), main > b (t2, 30), main > a > b (t1, 10) */
static void samples(struct fx *x)
{
	ADD(x, x->t1, 60, APP + 0x1110, APP + 0x1010);
	ADD(x, x->t2, 30, APP + 0x1210, APP + 0x1010);
	ADD(x, x->t1, 10, APP + 0x1210, APP + 0x1120, APP + 0x1010);
	name_frames(x);
}

static const char *row(struct fx *x, size_t r)
{
	size_t len;
	const char *t = view_text(&x->vw, r, &len, NULL);

	assert_non_null(t);
	return t;
}

/* the row of the entry line ending in "] name" for comm, or SIZE_MAX */
static size_t find(struct fx *x, const char *comm, const char *name)
{
	char end[64];

	snprintf(end, sizeof(end), "] %s", name);
	for (size_t r = 0; r < view_rows(&x->vw); r++) {
		const char *t = row(x, r);
		size_t n = strlen(t), k = strlen(end);

		if (!view_pos(&x->vw, r).k && n >= k && !strcmp(t + n - k, end) && strstr(t, comm))
			return r;
	}
	return SIZE_MAX;
}

static void test_rows_are_text_lines(void **state)
{
	struct fx x;
	struct buf b = BUF_INIT;

	(void)state;
	fx_init(&x);
	samples(&x);
	assert_int_equal(view_init(&x.vw, &x.src, 0, &x.err), 0);
	assert_int_equal(view_rows(&x.vw), x.h.nr_entries);
	for (size_t r = 0; r < view_rows(&x.vw); r++) {
		struct print_totals t = { .period = x.h.total_period };

		buf_reset(&b);
		assert_int_equal(print_entry_line(&b, &x.h, &x.po, x.vw.cols, x.vw.nc,
						  &x.h.entries[r], &t, NULL), 0);
		assert_int_equal(b.data[0], ' ');
		/* the fold mark in the first column, the text's line after it */
		assert_memory_equal(row(&x, r) + 1, b.data + 1, b.len - 1);
		assert_true(strchr("+ ", row(&x, r)[0]) != NULL);
	}
	buf_free(&b);
	fx_free(&x);
}

static void test_fold(void **state)
{
	struct fx x;
	size_t r, rows;

	(void)state;
	fx_init(&x);
	samples(&x);
	assert_int_equal(view_init(&x.vw, &x.src, 0, &x.err), 0);
	rows = view_rows(&x.vw);
	r = find(&x, "app", "main");
	assert_int_not_equal(r, SIZE_MAX);
	assert_int_equal(view_mark(&x.vw, r), '+');
	/* one level: "|", "---main" folded, the empty line */
	assert_int_equal(view_toggle(&x.vw, r), 0);
	assert_int_equal(view_mark(&x.vw, r), '-');
	assert_int_equal(view_rows(&x.vw), rows + 3);
	assert_string_equal(row(&x, r + 2), "+           ---main");
	/* the node opened: its path goes on (a, folded, has b under it) */
	assert_int_equal(view_toggle(&x.vw, r + 2), 0);
	assert_int_equal(view_mark(&x.vw, r + 2), '-');
	assert_string_equal(row(&x, r + 3), "+              a");
	/* e closes it; e again opens all of it, as the text draws it */
	assert_int_equal(view_toggle_entry(&x.vw, r), 0);
	assert_int_equal(view_rows(&x.vw), rows);
	assert_int_equal(view_toggle_entry(&x.vw, r), 0);
	assert_string_equal(row(&x, r + 3), "-              a");
	assert_string_equal(row(&x, r + 5), "                --10.00%--b");
	assert_int_equal(view_all(&x.vw, false), 0);
	assert_int_equal(view_rows(&x.vw), rows);
	fx_free(&x);
}

static void test_zoom_thread(void **state)
{
	struct fx x, only;
	size_t r;

	(void)state;
	/* what the t2 samples alone make */
	fx_init(&only);
	ADD(&only, only.t2, 30, APP + 0x1210, APP + 0x1010);
	name_frames(&only);
	assert_int_equal(hist_build(&only.h, 0), 0);

	fx_init(&x);
	samples(&x);
	assert_int_equal(view_init(&x.vw, &x.src, 0, &x.err), 0);
	r = find(&x, "worker", "b");
	assert_int_not_equal(r, SIZE_MAX);
	assert_int_not_equal(r, 0);
	x.vw.sel = r;
	assert_int_equal(view_zoom(&x.vw, ZOOM_THREAD, r, &x.err), 0);
	/* the selection followed its entry, to the first row of the zoom */
	assert_int_equal(x.vw.sel, find(&x, "worker", "b"));
	assert_int_equal(x.vw.zthread, x.t2);
	assert_int_equal(x.h.nr_entries, only.h.nr_entries);
	assert_int_equal(x.vw.shown_period, 30);
	for (size_t i = 0; i < x.h.nr_entries; i++) {
		assert_int_equal(x.h.entries[i].total_period, only.h.entries[i].total_period);
		assert_int_equal(x.h.entries[i].self_period, only.h.entries[i].self_period);
	}
	/* out: the entries before, kept (not built again) */
	assert_int_equal(view_unzoom(&x.vw, &x.err), 1);
	assert_null(x.vw.zthread);
	assert_int_equal(x.vw.shown_period, 100);
	/* and back out to its place, though it was on the first row (a zoom
	 * is no refresh: prep_browser.sh's second zoom went into worker-a) */
	assert_int_equal(x.vw.sel, find(&x, "worker", "b"));
	assert_int_not_equal(find(&x, "app", "a"), SIZE_MAX);
	assert_int_equal(view_unzoom(&x.vw, &x.err), 0);
	fx_free(&x);
	hist_free(&only.h);
	machine_free(&only.m);
}

static void test_filter(void **state)
{
	struct fx x;

	(void)state;
	fx_init(&x);
	samples(&x);
	assert_int_equal(view_init(&x.vw, &x.src, 0, &x.err), 0);
	assert_int_equal(view_filter(&x.vw, "^b$", &x.err), 0);
	/* b of both commands; percentages of what is shown (their self) */
	assert_int_equal(view_rows(&x.vw), 2);
	assert_int_equal(x.vw.shown_period, 40);
	assert_int_equal(view_filter(&x.vw, "[", &x.err), -EINVAL);
	assert_non_null(strstr(x.err.msg, "invalid regex"));
	assert_int_equal(view_filter(&x.vw, "", &x.err), 0);
	assert_int_equal(view_rows(&x.vw), x.h.nr_entries);
	fx_free(&x);
}

/* A refresh that makes b hotter than a: the open entry and node and the
 * selection stay with their entries as the order changes. */
/* prec top's -E and -f: the first entries of those shown, the entries of
 * more samples than the count filter; the percentages still of them all */
static void test_entry_limits(void **state)
{
	struct fx x;
	size_t all;

	(void)state;
	fx_init(&x);
	samples(&x);
	assert_int_equal(view_init(&x.vw, &x.src, 0, &x.err), 0);
	all = view_rows(&x.vw);
	assert_true(all > 2);
	x.src.max_entries = 2;
	assert_int_equal(view_refilter(&x.vw), 0);
	assert_int_equal(view_rows(&x.vw), 2);
	assert_int_equal(x.vw.vis[0], 0);
	assert_int_equal(x.vw.vis[1], 1);
	assert_int_equal(x.vw.shown_period, 100);
	/* one sample each (hist_add counts one per call): none has more than 1 */
	x.src.max_entries = 0;
	x.po.count_filter = 1;
	assert_int_equal(view_refilter(&x.vw), 0);
	assert_true(view_rows(&x.vw) < all);
	for (size_t j = 0; j < x.vw.nr_vis; j++)
		assert_true(x.h.entries[x.vw.vis[j]].self_count > 1);
	x.po.count_filter = 0;
	assert_int_equal(view_refilter(&x.vw), 0);
	assert_int_equal(view_rows(&x.vw), all);
	fx_free(&x);
}

static void test_refresh_keeps_state(void **state)
{
	struct fx x;
	size_t r;

	(void)state;
	fx_init(&x);
	samples(&x);
	assert_int_equal(view_init(&x.vw, &x.src, 0, &x.err), 0);
	r = find(&x, "app", "a");
	assert_int_equal(view_toggle(&x.vw, r), 0);
	x.vw.sel = r;
	for (size_t i = 0; i < x.h.nr_stacks; i++)
		if (x.h.stacks[i].thread == x.t2)
			x.h.stacks[i].period *= 10;     /* worker's b: 300 */
	view_invalidate(&x.vw);
	assert_int_equal(view_rebuild(&x.vw, &x.h, 0, true, &x.err), 0);
	r = find(&x, "app", "a");
	assert_int_not_equal(r, SIZE_MAX);
	assert_true(find(&x, "worker", "b") < r);
	assert_int_equal(x.vw.sel, r);
	assert_int_equal(view_mark(&x.vw, r), '-');
	/* the entry gone: the selection stays in range */
	for (size_t i = 0; i < x.h.nr_stacks; i++)
		if (x.h.stacks[i].thread == x.t1)
			x.h.stacks[i].nr_frames = 0;
	view_invalidate(&x.vw);
	assert_int_equal(view_rebuild(&x.vw, &x.h, 0, true, &x.err), 0);
	assert_int_equal(find(&x, "app", "a"), SIZE_MAX);
	assert_true(x.vw.sel < view_rows(&x.vw));
	fx_free(&x);
}

static void test_entries_swap(void **state)
{
	struct fx x;
	struct hist_entries e = { 0 };
	size_t n;

	(void)state;
	fx_init(&x);
	samples(&x);
	assert_int_equal(hist_build(&x.h, 0), 0);
	n = x.h.nr_entries;
	hist_entries_swap(&x.h, &e);
	assert_int_equal(x.h.nr_entries, 0);
	assert_int_equal(e.nr_entries, n);
	assert_int_equal(e.total_period, 100);
	hist_entries_swap(&x.h, &e);
	assert_int_equal(x.h.nr_entries, n);
	assert_int_equal(x.h.total_period, 100);
	hist_entries_free(&e);
	hist_free(&x.h);
	machine_free(&x.m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_are_text_lines),
		cmocka_unit_test(test_fold),
		cmocka_unit_test(test_zoom_thread),
		cmocka_unit_test(test_filter),
		cmocka_unit_test(test_entry_limits),
		cmocka_unit_test(test_refresh_keeps_state),
		cmocka_unit_test(test_entries_swap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
