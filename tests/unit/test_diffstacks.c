/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the differential's merging on hand-made stacks: the
 * two-column folded lines (report/export/diffstacks.c: matched by text,
 * runs summed, -n scaling rounded) and the tree merged by name path
 * (report/export/difftree.c: frames matched by name and binary basename
 * across two builds in different folders, per-run counts, self counts,
 * the z and Welch tests per node and the Benjamini-Hochberg cut).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/stats.h"
#include "report/export/diffstacks.h"
#include "report/export/difftree.h"

/* two builds of app, in two folders, and a library */
static struct dso app1 = { .path = (char *)"/v1/app", .short_name = "app" };
static struct dso app2 = { .path = (char *)"/v2/app", .short_name = "app" };
static struct dso libx = { .path = (char *)"/lib/libx.so", .short_name = "libx.so" };
static struct thread th = { .pid = 1, .tid = 1, .comm = "app" };

/* OLD: main > a 6, main > b 3, main > gone 1 (10 samples) */
static struct sframe old_frames[] = {
	{ .name = "main", .dso = &app1, .kind = SF_USER },
	{ .name = "a", .dso = &app1, .kind = SF_USER },
	{ .name = "b", .dso = &app1, .kind = SF_USER },
	{ .name = "gone", .dso = &app1, .kind = SF_USER },
};
static uint32_t old_ids[] = { 0, 1,   0, 2,   0, 3 };
static struct sstack old_stacks[] = {
	{ .thread = &th, .comm = "app", .first = 0, .nr = 2, .count = 6 },
	{ .thread = &th, .comm = "app", .first = 2, .nr = 2, .count = 3 },
	{ .thread = &th, .comm = "app", .first = 4, .nr = 2, .count = 1 },
};

/* NEW: main > a 12, main > b 2, main > fresh 4, main > a (of libx) 2 (20);
 * names are other pointers than OLD's, as from another recording */
static char n_main[] = "main", n_a[] = "a", n_b[] = "b", n_fresh[] = "fresh", n_la[] = "a";
static struct sframe new_frames[] = {
	{ .name = n_main, .dso = &app2, .kind = SF_USER },
	{ .name = n_a, .dso = &app2, .kind = SF_INLINE },
	{ .name = n_b, .dso = &app2, .kind = SF_USER },
	{ .name = n_fresh, .dso = &app2, .kind = SF_USER },
	{ .name = n_la, .dso = &libx, .kind = SF_LIB },
};
static uint32_t new_ids[] = { 0, 1,   0, 2,   0, 3,   0, 4 };
static struct sstack new_stacks[] = {
	{ .thread = &th, .comm = "app", .first = 0, .nr = 2, .count = 12 },
	{ .thread = &th, .comm = "app", .first = 2, .nr = 2, .count = 2 },
	{ .thread = &th, .comm = "app", .first = 4, .nr = 2, .count = 4 },
	{ .thread = &th, .comm = "app", .first = 6, .nr = 2, .count = 2 },
};

static void make(struct stacks *s, struct sframe *f, size_t nf, uint32_t *ids, size_t ni,
		 struct sstack *st, size_t ns)
{
	memset(s, 0, sizeof(*s));
	s->frames = f;
	s->nr_frames = nf;
	s->ids = ids;
	s->nr_ids = ni;
	s->stacks = st;
	s->nr_stacks = ns;
	for (size_t i = 0; i < ns; i++)
		s->total_count += st[i].count;
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void old_side(struct stacks *s)
{
	make(s, old_frames, N(old_frames), old_ids, N(old_ids), old_stacks, N(old_stacks));
}

static void new_side(struct stacks *s)
{
	make(s, new_frames, N(new_frames), new_ids, N(new_ids), new_stacks, N(new_stacks));
}

static char *folded(const struct stacks *const *o, size_t no, const struct stacks *const *n,
		    size_t nn, const struct diffstacks_opts *opts)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(diffstacks_write_folded(f, o, no, n, nn, opts), 0);
	fclose(f);
	return text;
}

static void test_folded(void **state)
{
	struct diffstacks_opts o = { 0 };
	struct stacks so, sn;
	const struct stacks *olds[] = { &so, &so }, *news[] = { &sn };
	char *t;

	(void)state;
	old_side(&so);
	new_side(&sn);
	/* by text, as difffolded.pl: libx's a and app's a are one line; a
	 * stack one side lacks is 0 there */
	t = folded(olds, 1, news, 1, &o);
	assert_string_equal(t, "app;main;a 6 14\n"
			       "app;main;b 3 2\n"
			       "app;main;fresh 0 4\n"
			       "app;main;gone 1 0\n");
	free(t);
	/* two runs of OLD: summed */
	t = folded(olds, 2, news, 1, &o);
	assert_string_equal(t, "app;main;a 12 14\napp;main;b 6 2\napp;main;fresh 0 4\n"
			       "app;main;gone 2 0\n");
	free(t);
	/* -n: OLD's 10 scaled to NEW's 20 */
	o.normalize = true;
	t = folded(olds, 1, news, 1, &o);
	assert_string_equal(t, "app;main;a 12 14\napp;main;b 6 2\napp;main;fresh 0 4\n"
			       "app;main;gone 2 0\n");
	free(t);
	/* OLD of 30 (both sides' stacks) scaled to NEW's 10, rounded: 20 / 3,
	 * 5 / 3, 4 / 3 and 1 / 3 give 7, 2, 1 and 0 (difffolded.pl's int()
	 * gives 6, 1, 1, 0) */
	{
		const struct stacks *both[] = { &sn, &so };

		t = folded(both, 2, olds, 1, &o);
	}
	assert_string_equal(t, "app;main;a 7 6\napp;main;b 2 3\napp;main;fresh 1 0\n"
			       "app;main;gone 0 1\n");
	free(t);
	/* options of the lines: no comm root, as prep export folded --with no-comm */
	o.normalize = false;
	o.fo.no_comm = true;
	t = folded(olds, 1, news, 0, &o);
	assert_string_equal(t, "main;a 6 0\nmain;b 3 0\nmain;gone 1 0\n");
	free(t);
}

static void test_folded_totals(void **state)
{
	struct diffstacks_opts o = { .normalize = true };
	struct diffstacks *d = diffstacks_new(&o);
	struct stacks so, sn;
	uint64_t a, b;

	(void)state;
	old_side(&so);
	new_side(&sn);
	assert_int_equal(diffstacks_add(d, DIFF_OLD, &so), 0);
	assert_int_equal(diffstacks_add(d, DIFF_NEW, &sn), 0);
	assert_int_equal(diffstacks_add(d, DIFF_NEW, &sn), 0);
	diffstacks_totals(d, &a, &b);
	assert_int_equal(b, 40);
	assert_int_equal(a, 40);        /* 24 + 12 + 4 */
	diffstacks_free(d);
}

/* the node of path "a/b/c" (names; the last one's binary dso unless NULL), or -1 */
static long node(const struct difftree *t, const char *path, const char *dso)
{
	char buf[128];
	char *save = NULL;
	long at = 0;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *n = strtok_r(buf, "/", &save); n; n = strtok_r(NULL, "/", &save)) {
		bool last = !save || !*save;
		long found = -1;

		for (size_t i = 1; i < t->nr && found < 0; i++) {
			const struct dlabel *l = &t->labels[t->label[i]];

			if ((long)t->parent[i] == at && !strcmp(difftree_str(t, l->name), n) &&
			    (!last || !dso || !strcmp(difftree_str(t, l->dso), dso)))
				found = (long)i;
		}
		if (found < 0)
			return -1;
		at = found;
	}
	return at;
}

static uint64_t count(const struct difftree *t, long n, size_t col)
{
	return t->counts[(size_t)n * t->cols + col];
}

/* Durations (offcpu-time, wall-time): weighed by their periods, the z test
 * on the shares of the periods with the runs' sample counts */
static void test_durations(void **state)
{
	struct sstack os[] = {
		{ .thread = &th, .comm = "app", .first = 0, .nr = 2, .count = 1, .period = 900 },
		{ .thread = &th, .comm = "app", .first = 2, .nr = 2, .count = 9, .period = 100 },
	};
	struct sstack ns[] = {
		{ .thread = &th, .comm = "app", .first = 0, .nr = 2, .count = 1, .period = 500 },
		{ .thread = &th, .comm = "app", .first = 2, .nr = 2, .count = 9, .period = 500 },
	};
	struct diffstacks_opts o = { .fo.no_comm = true };
	struct diffstacks *d = diffstacks_new(&o);
	struct difftree t;
	struct difftest dt;
	struct stats_test st;
	struct stacks so, sn;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	long a;

	(void)state;
	make(&so, old_frames, N(old_frames), old_ids, 4, os, 2);
	make(&sn, old_frames, N(old_frames), old_ids, 4, ns, 2);
	assert_non_null(d);
	assert_non_null(f);
	assert_int_equal(diffstacks_add_run(d, DIFF_OLD, &so, true), 0);
	assert_int_equal(diffstacks_add_run(d, DIFF_NEW, &sn, true), 0);
	assert_int_equal(diffstacks_write(f, d), 0);
	fclose(f);
	assert_string_equal(text, "main;a 900 500\nmain;b 100 500\n");
	free(text);
	diffstacks_free(d);
	/* --with count: the samples */
	o.fo.count = true;
	d = diffstacks_new(&o);
	text = NULL;
	f = open_memstream(&text, &len);
	assert_int_equal(diffstacks_add_run(d, DIFF_OLD, &so, true), 0);
	assert_int_equal(diffstacks_add_run(d, DIFF_NEW, &sn, true), 0);
	assert_int_equal(diffstacks_write(f, d), 0);
	fclose(f);
	assert_string_equal(text, "main;a 1 1\nmain;b 9 9\n");
	free(text);
	diffstacks_free(d);

	assert_int_equal(difftree_init(&t, 1, 1, true), 0);
	assert_int_equal(difftree_add(&t, DIFF_OLD, 0, &so, true), 0);
	assert_int_equal(difftree_add(&t, DIFF_NEW, 0, &sn, true), 0);
	assert_true(t.durations);
	assert_int_equal(t.totals[0], 1000);
	assert_int_equal(t.samples[0], 10);
	a = node(&t, "main/a", NULL);
	assert_true(a > 0);
	assert_int_equal(count(&t, a, 0), 900);
	assert_int_equal(count(&t, a, 1), 500);
	/* a: 90% of the time, then 50%, each of 10 samples */
	assert_int_equal(difftree_test(&t, 0.05, 0, &dt), 0);
	assert_int_equal(stats_two_shares(9, 10, 5, 10, &st), 0);
	assert_true(fabs(dt.p[DT_TOTAL][a] - st.p) < 1e-12);
	difftest_free(&dt);
	difftree_free(&t);
}

static void test_tree(void **state)
{
	struct difftree t;
	struct stacks so, sn;
	uint64_t *self;
	long a, la, gone, fresh, mainn;

	(void)state;
	old_side(&so);
	new_side(&sn);
	assert_int_equal(difftree_init(&t, 1, 1, false), 0);
	assert_int_equal(difftree_add(&t, DIFF_OLD, 0, &so, false), 0);
	assert_int_equal(difftree_add(&t, DIFF_NEW, 0, &sn, false), 0);
	assert_int_equal(t.totals[0], 10);
	assert_int_equal(t.totals[1], 20);
	/* all > app > main > a, b, gone, fresh, a (libx): 8 nodes */
	assert_int_equal(t.nr, 8);
	mainn = node(&t, "app/main", NULL);
	a = node(&t, "app/main/a", "app");
	la = node(&t, "app/main/a", "libx.so");
	gone = node(&t, "app/main/gone", NULL);
	fresh = node(&t, "app/main/fresh", NULL);
	assert_true(mainn > 0 && a > 0 && la > 0 && gone > 0 && fresh > 0 && a != la);
	/* v1/app's main is v2/app's main: one node with both counts */
	assert_int_equal(count(&t, mainn, 0), 10);
	assert_int_equal(count(&t, mainn, 1), 20);
	assert_int_equal(count(&t, a, 0), 6);
	assert_int_equal(count(&t, a, 1), 12);
	assert_int_equal(count(&t, la, 0), 0);
	assert_int_equal(count(&t, la, 1), 2);
	assert_int_equal(count(&t, gone, 0), 1);
	assert_int_equal(count(&t, gone, 1), 0);
	assert_int_equal(count(&t, fresh, 1), 4);
	assert_int_equal(count(&t, 0, 1), 20);
	/* NEW's path and kind are the label's: a is inlined in v2 */
	assert_string_equal(difftree_str(&t, t.labels[t.label[a]].path), "/v2/app");
	assert_int_equal(t.labels[t.label[a]].kind, SF_INLINE);
	assert_string_equal(difftree_str(&t, t.labels[t.label[gone]].path), "/v1/app");
	assert_int_equal(t.labels[t.label[node(&t, "app", NULL)]].kind, DT_COMM);
	self = difftree_self(&t);
	assert_non_null(self);
	assert_int_equal(self[mainn * 2 + 0], 0);
	assert_int_equal(self[mainn * 2 + 1], 0);
	assert_int_equal(self[a * 2 + 1], 12);
	assert_int_equal(self[0], 0);
	free(self);
	difftree_free(&t);
	difftree_free(&t);      /* twice: a freed tree is empty */
}

static void test_tree_z(void **state)
{
	struct difftree t;
	struct difftest dt;
	struct stats_test st;
	struct stacks so, sn;
	long a, b, fresh, mainn;

	(void)state;
	old_side(&so);
	new_side(&sn);
	assert_int_equal(difftree_init(&t, 1, 1, true), 0);
	assert_int_equal(difftree_add(&t, DIFF_OLD, 0, &so, false), 0);
	assert_int_equal(difftree_add(&t, DIFF_NEW, 0, &sn, false), 0);
	assert_int_equal(difftree_test(&t, 0.05, 0, &dt), 0);
	assert_false(dt.welch);
	mainn = node(&t, "main", NULL);
	a = node(&t, "main/a", "app");
	b = node(&t, "main/b", NULL);
	fresh = node(&t, "main/fresh", NULL);
	/* no comm level: all > main > 5 frames */
	assert_int_equal(t.nr, 7);
	/* a: 6/10 and 12/20, the same share */
	assert_true(dt.p[DT_TOTAL][a] == 1.0);
	assert_int_equal(stats_two_shares(3, 10, 2, 20, &st), 0);
	assert_true(dt.p[DT_TOTAL][b] == st.p);
	assert_true(dt.p[DT_SELF][b] == st.p);
	/* main: 100% both sides; no samples of its own: self not tested */
	assert_true(dt.p[DT_TOTAL][mainn] == 1.0);
	assert_int_equal(dt.tested[DT_TOTAL], 6);
	assert_int_equal(dt.tested[DT_SELF], 5);
	/* with 10 and 20 samples nothing is sure at 5% */
	assert_int_equal(dt.marked[DT_TOTAL], 0);
	assert_int_equal(dt.sig[fresh], DT_TESTED(DT_TOTAL) | DT_TESTED(DT_SELF));
	assert_int_equal(dt.sig[mainn], DT_TESTED(DT_TOTAL));
	difftest_free(&dt);
	/* alpha 1: everything tested passes */
	assert_int_equal(difftree_test(&t, 1, 0, &dt), 0);
	assert_int_equal(dt.marked[DT_TOTAL], 6);
	assert_int_equal(dt.marked[DT_SELF], 5);
	assert_true(dt.sig[a] & DT_MARKED(DT_SELF));
	assert_false(dt.sig[0]);
	difftest_free(&dt);
	/* at least 8% on average over the sides: gone (10% and 0) and libx's
	 * a (0 and 10%) are not tested */
	assert_int_equal(difftree_test(&t, 1, 0.08, &dt), 0);
	assert_int_equal(dt.tested[DT_TOTAL], 4);
	assert_int_equal(dt.tested[DT_SELF], 3);
	assert_true(dt.p[DT_TOTAL][node(&t, "main/gone", NULL)] == 1.0);
	assert_int_equal(dt.sig[node(&t, "main/gone", NULL)], 0);
	assert_int_equal(dt.sig[fresh], 0xf);
	difftest_free(&dt);
	difftree_free(&t);
}

/* Welch with two runs a side; the cut of Benjamini-Hochberg */
static void test_tree_welch(void **state)
{
	struct difftree t;
	struct difftest dt;
	struct stats_test st;
	struct stacks so, sn, so2, sn2;
	struct sstack o2[N(old_stacks)], n2[N(new_stacks)];
	double xo[2], xn[2];
	long b;

	(void)state;
	old_side(&so);
	new_side(&sn);
	memcpy(o2, old_stacks, sizeof(o2));
	memcpy(n2, new_stacks, sizeof(n2));
	o2[1].count = 4;        /* b: 3/10, 4/11 */
	n2[1].count = 3;        /* b: 2/20, 3/21 */
	make(&so2, old_frames, N(old_frames), old_ids, N(old_ids), o2, N(o2));
	make(&sn2, new_frames, N(new_frames), new_ids, N(new_ids), n2, N(n2));
	assert_int_equal(difftree_init(&t, 2, 2, true), 0);
	assert_int_equal(difftree_add(&t, DIFF_OLD, 0, &so, false), 0);
	assert_int_equal(difftree_add(&t, DIFF_OLD, 1, &so2, false), 0);
	assert_int_equal(difftree_add(&t, DIFF_NEW, 0, &sn, false), 0);
	assert_int_equal(difftree_add(&t, DIFF_NEW, 1, &sn2, false), 0);
	assert_int_equal(difftree_col(&t, DIFF_NEW, 1), 3);
	assert_int_equal(t.totals[1], 11);
	assert_int_equal(difftree_test(&t, 0.05, 0, &dt), 0);
	assert_true(dt.welch);
	b = node(&t, "main/b", NULL);
	xo[0] = 3 / 10.0; xo[1] = 4 / 11.0;
	xn[0] = 2 / 20.0; xn[1] = 3 / 21.0;
	assert_int_equal(stats_welch(stats_mean(xo, 2), stats_var(xo, 2), 2, stats_mean(xn, 2),
				     stats_var(xn, 2), 2, &st), 0);
	assert_true(dt.p[DT_TOTAL][b] == st.p);
	/* significant exactly when p is at most the cut, and the cut is the
	 * largest p(k) <= k alpha / m */
	for (size_t i = 1; i < t.nr; i++)
		assert_int_equal(!!(dt.sig[i] & DT_MARKED(DT_TOTAL)),
				 dt.cut[DT_TOTAL] >= 0 && dt.p[DT_TOTAL][i] <= dt.cut[DT_TOTAL]);
	{
		double p[8];
		size_t m = 0, k;

		for (size_t i = 1; i < t.nr; i++)
			p[m++] = dt.p[DT_TOTAL][i];
		for (size_t i = 0; i < m; i++)          /* sort */
			for (size_t j = i + 1; j < m; j++)
				if (p[j] < p[i]) {
					double x = p[i];

					p[i] = p[j];
					p[j] = x;
				}
		for (k = m; k > 0 && p[k - 1] > (double)k * 0.05 / (double)m; k--)
			;
		assert_true(k ? dt.cut[DT_TOTAL] == p[k - 1] : dt.cut[DT_TOTAL] < 0);
	}
	difftest_free(&dt);
	difftree_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_folded),
		cmocka_unit_test(test_folded_totals),
		cmocka_unit_test(test_durations),
		cmocka_unit_test(test_tree),
		cmocka_unit_test(test_tree_z),
		cmocka_unit_test(test_tree_welch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
