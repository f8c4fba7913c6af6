/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of prep diff's rows (report/views/diff_calc.c), a pure
 * function over plain profiles made here by hand: entries matched by
 * their keys (symbols by name, nameless ones lumped and named by their
 * lowest address), perf's delta, ratio and weighted difference, absolute
 * and relative shares, -b, --percent-limit, perf diff's order (-o, ties),
 * and the noise statistics: the z test with one run a side, Welch's t with
 * several, the one-sample floor, Holm's and Benjamini-Hochberg's families
 * counted by Tarone's bound.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/stats.h"
#include "report/views/diff_int.h"

static void near(double got, double want, double tol)
{
	if (!(fabs(got - want) <= tol))
		fail_msg("got %.12g, want %.12g (+- %g)", got, want, tol);
}

/* an entry of dso "p": sym NULL for a nameless address */
static struct dentry ent(const char *sym, uint64_t addr, uint64_t period)
{
	struct dentry e;

	memset(&e, 0, sizeof(e));
	e.k[0].s = "p";
	e.cell[0] = "p";
	e.k[1].s = sym;
	e.k[1].n = sym ? 0 : addr;
	e.cell[1] = sym ? sym : "[.] 0xADDR";
	e.period = e.count = period;
	e.unresolved = !sym;
	return e;
}

static struct devent event(struct dentry *e, size_t n, uint64_t all)
{
	struct devent ev = { .name = "cpu-clock", .e = e, .nr = n, .period_all = all,
			     .count_all = all };

	for (size_t i = 0; i < n; i++) {
		ev.period_shown += e[i].period;
		ev.count_shown += e[i].count;
	}
	return ev;
}

static struct diff_calc_opts calc(enum diff_compute c)
{
	struct diff_calc_opts o = { .compute = c, .order = 1, .absolute = true, .nr_keys = 2,
				    .keys = { SORT_DSO, SORT_SYM }, .alpha = 0.05, .w1 = 2,
				    .w2 = 3 };

	return o;
}

/* The two profiles most tests compare: a in both, b only in the
 * baseline, c only in the new one, nameless addresses in both. */
struct pair {
	struct dentry be[4], ne[3];
	struct devent base, new;
	struct dside s[2];
};

static void make_pair(struct pair *p, uint64_t base_all)
{
	p->be[0] = ent("a", 0, 60);
	p->be[1] = ent("b", 0, 30);
	p->be[2] = ent(NULL, 0x20, 5);
	p->be[3] = ent(NULL, 0x10, 5);
	p->ne[0] = ent("a", 0, 50);
	p->ne[1] = ent("c", 0, 20);
	p->ne[2] = ent(NULL, 0x30, 30);
	p->base = event(p->be, 4, base_all);
	p->new = event(p->ne, 3, 100);
	memset(p->s, 0, sizeof(p->s));
	p->s[0].run[0] = &p->base;
	p->s[0].nr = 1;
	p->s[1].run[0] = &p->new;
	p->s[1].nr = 1;
}

static const struct drow *row(const struct dtable *t, const char *sym)
{
	for (size_t i = 0; i < t->nr; i++) {
		const char *s = t->rows[i].name->k[1].s;

		if ((!sym && !s) || (sym && s && !strcmp(s, sym)))
			return &t->rows[i];
	}
	fail_msg("no row %s", sym ? sym : "(nameless)");
	return NULL;
}

static void test_match_and_delta(void **state)
{
	struct diff_calc_opts o = calc(DC_DELTA_ABS);
	struct pair p;
	struct dtable t;
	const struct drow *r;

	(void)state;
	make_pair(&p, 100);
	assert_int_equal(diff_table(p.s, 2, &o, &t), 0);
	assert_int_equal(t.nr, 4);
	/* |delta| 20, 20 (the baseline period breaks the tie), 10; then b,
	 * which no new file has */
	assert_null(t.rows[0].name->k[1].s);
	assert_string_equal(t.rows[1].name->k[1].s, "c");
	assert_string_equal(t.rows[2].name->k[1].s, "a");
	assert_string_equal(t.rows[3].name->k[1].s, "b");
	r = row(&t, NULL);
	/* the two nameless addresses are one row, named by the lower */
	assert_int_equal(r->name->k[1].n, 0x10);
	assert_int_equal(r->v[0].period, 10);
	near(r->v[1].delta, 20, 1e-12);
	r = row(&t, "a");
	near(r->v[0].share, 60, 1e-12);
	near(r->v[1].delta, -10, 1e-12);
	assert_false(r->dummy);
	r = row(&t, "c");
	assert_true(r->dummy);
	assert_false(r->v[0].present);
	near(r->v[1].delta, 20, 1e-12);
	assert_false(row(&t, "b")->v[1].present);
	diff_table_free(&t);
	/* -c delta: signed, highest first */
	o = calc(DC_DELTA);
	assert_int_equal(diff_table(p.s, 2, &o, &t), 0);
	assert_null(t.rows[0].name->k[1].s);
	assert_string_equal(t.rows[1].name->k[1].s, "c");
	assert_string_equal(t.rows[2].name->k[1].s, "a");
	diff_table_free(&t);
}

static void test_ratio_wdiff(void **state)
{
	struct diff_calc_opts o = calc(DC_RATIO);
	struct pair p;
	struct dtable t;

	(void)state;
	make_pair(&p, 100);
	assert_int_equal(diff_table(p.s, 2, &o, &t), 0);
	near(row(&t, "a")->v[1].ratio, 50.0 / 60, 1e-12);
	near(row(&t, NULL)->v[1].ratio, 3, 1e-12);
	/* no baseline period: divided by 1, as perf; such rows go last */
	near(row(&t, "c")->v[1].ratio, 20, 1e-12);
	assert_null(t.rows[0].name->k[1].s);
	assert_string_equal(t.rows[1].name->k[1].s, "a");
	assert_string_equal(t.rows[2].name->k[1].s, "c");
	diff_table_free(&t);
	o = calc(DC_WDIFF);
	assert_int_equal(diff_table(p.s, 2, &o, &t), 0);
	assert_int_equal(row(&t, "a")->v[1].wdiff, 50 * 3 - 60 * 2);
	assert_int_equal(row(&t, NULL)->v[1].wdiff, 30 * 3 - 10 * 2);
	assert_int_equal(row(&t, "c")->v[1].wdiff, 20 * 3);
	diff_table_free(&t);
}

static void test_filters_and_order(void **state)
{
	struct diff_calc_opts o = calc(DC_DELTA_ABS);
	struct pair p;
	struct dtable t;

	(void)state;
	make_pair(&p, 200);     /* a hidden half of the baseline's samples */
	assert_int_equal(diff_table(p.s, 2, &o, &t), 0);
	near(row(&t, "a")->v[0].share, 30, 1e-12);      /* absolute: of 200 */
	diff_table_free(&t);
	o.absolute = false;
	assert_int_equal(diff_table(p.s, 2, &o, &t), 0);
	near(row(&t, "a")->v[0].share, 60, 1e-12);      /* relative: of the 100 shown */
	diff_table_free(&t);
	/* -b: only the baseline's rows that a new file has */
	o.baseline_only = true;
	assert_int_equal(diff_table(p.s, 2, &o, &t), 0);
	assert_int_equal(t.nr, 2);
	diff_table_free(&t);
	/* --percent-limit 25: c (20%) goes, b (30% in the baseline) stays */
	o.baseline_only = false;
	o.percent_limit = 25;
	assert_int_equal(diff_table(p.s, 2, &o, &t), 0);
	assert_int_equal(t.nr, 3);
	diff_table_free(&t);
	/* -o 0: by the baseline period */
	o.percent_limit = 0;
	o.order = 0;
	assert_int_equal(diff_table(p.s, 2, &o, &t), 0);
	assert_string_equal(t.rows[0].name->k[1].s, "a");
	assert_string_equal(t.rows[1].name->k[1].s, "b");
	assert_null(t.rows[2].name->k[1].s);
	assert_string_equal(t.rows[3].name->k[1].s, "c");
	diff_table_free(&t);
}

/* equal everything: the keys decide, names ascending, nameless last */
static void test_key_order(void **state)
{
	struct dentry be[3] = { ent(NULL, 1, 10), ent("z", 0, 10), ent("m", 0, 10) };
	struct dentry ne[3] = { ent(NULL, 1, 10), ent("z", 0, 10), ent("m", 0, 10) };
	struct devent b = event(be, 3, 30), n = event(ne, 3, 30);
	struct dside s[2] = { { { &b }, 1 }, { { &n }, 1 } };
	struct diff_calc_opts o = calc(DC_DELTA_ABS);
	struct dtable t;

	(void)state;
	assert_int_equal(diff_table(s, 2, &o, &t), 0);
	assert_string_equal(t.rows[0].name->k[1].s, "m");
	assert_string_equal(t.rows[1].name->k[1].s, "z");
	assert_null(t.rows[2].name->k[1].s);
	diff_table_free(&t);
}

static void test_noise_one_run(void **state)
{
	struct diff_calc_opts o = calc(DC_DELTA_ABS);
	struct pair p;
	struct dtable t;
	struct stats_test z;
	const struct drow *r;

	(void)state;
	make_pair(&p, 100);
	o.noise = true;
	o.correction = DCORR_NONE;
	assert_int_equal(diff_table(p.s, 2, &o, &t), 0);
	r = row(&t, "a");
	/* one run a side: the two-proportion z test of the counts */
	assert_int_equal(stats_two_shares(60, 100, 50, 100, &z), 0);
	near(r->v[1].p, z.p, 1e-12);
	near(r->v[1].err, 100 * 0.1 / fabs(z.stat), 1e-9);
	/* the baseline's spread: its sampling error */
	near(r->v[0].spread, 100 * sqrt(0.6 * 0.4 / 100), 1e-12);
	assert_int_equal(t.tested[1], 4);
	diff_table_free(&t);
	/* Holm over the four rows: the smallest p times 4 */
	o.correction = DCORR_HOLM;
	assert_int_equal(diff_table(p.s, 2, &o, &t), 0);
	r = row(&t, "c");
	assert_int_equal(stats_two_shares(0, 100, 20, 100, &z), 0);
	near(r->v[1].p_raw, z.p, 1e-12);
	assert_true(r->v[1].p >= r->v[1].p_raw);
	assert_true(r->v[1].changed);
	diff_table_free(&t);
}

static void test_noise_runs(void **state)
{
	/* a: 60, 62 in the baseline's runs, 50, 52 in the new ones; b: the
	 * same single sample in every run */
	struct dentry b1[2] = { ent("a", 0, 60), ent("b", 0, 1) }, b2[2] = { ent("a", 0, 62), ent("b", 0, 1) };
	struct dentry n1[2] = { ent("a", 0, 50), ent("b", 0, 1) }, n2[2] = { ent("a", 0, 52), ent("b", 0, 1) };
	struct devent e[4] = { event(b1, 2, 100), event(b2, 2, 100), event(n1, 2, 100),
			       event(n2, 2, 100) };
	struct dside s[2] = { { { &e[0], &e[1] }, 2 }, { { &e[2], &e[3] }, 2 } };
	struct diff_calc_opts o = calc(DC_DELTA_ABS);
	const double x[2] = { 0.60, 0.62 }, y[2] = { 0.50, 0.52 };
	struct stats_test w;
	struct dtable t;
	const struct drow *r;

	(void)state;
	o.noise = true;
	o.correction = DCORR_BH;
	assert_int_equal(diff_table(s, 2, &o, &t), 0);
	r = row(&t, "a");
	near(r->v[0].share, 61, 1e-12);
	near(r->v[0].spread, 100 * sqrt(stats_var(x, 2)), 1e-12);
	assert_int_equal(stats_welch(0.61, stats_var(x, 2), 2, 0.51, stats_var(y, 2), 2, &w), 0);
	near(r->v[1].p_raw, w.p, 1e-12);
	/* b's four samples cannot pass whatever their split (Tarone): the
	 * family is a alone, its p its own */
	assert_int_equal(t.considered[1], 2);
	assert_int_equal(t.tested[1], 1);
	near(r->v[1].p, w.p, 1e-12);
	/* runs that agree to the sample are not certain: one sample's worth,
	 * 1 / N^2 a run, on each side */
	r = row(&t, "b");
	near(r->v[1].delta, 0, 1e-12);
	near(r->v[1].err, 100 * sqrt(2 * (1.0 / (100 * 100)) / 2), 1e-12);
	near(r->v[1].p, 1, 0);
	assert_false(r->v[1].changed);
	diff_table_free(&t);
	/* no correction: each row alone, every one counted */
	o.correction = DCORR_NONE;
	assert_int_equal(diff_table(s, 2, &o, &t), 0);
	near(row(&t, "a")->v[1].p, w.p, 1e-12);
	assert_int_equal(t.tested[1], 2);
	diff_table_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_match_and_delta),
		cmocka_unit_test(test_ratio_wdiff),
		cmocka_unit_test(test_filters_and_order),
		cmocka_unit_test(test_key_order),
		cmocka_unit_test(test_noise_one_run),
		cmocka_unit_test(test_noise_runs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
