/* SPDX-License-Identifier: MIT */
/*
 * prep diff's rows: entries matched across runs and sides by their keys,
 * then valued as perf diff values them (shares, delta, ratio, weighted
 * difference), tested against the noise, and sorted as perf diff sorts.
 * Pure: plain profiles in, rows out.
 *
 * perf's order, from its output sort (perf 6.1): first, unless -o 0, the
 * compute column of the ordered side (rows it has first; for ratio and
 * wdiff rows without a baseline last; then by the value, highest first,
 * |delta| for delta-abs); then the baseline period, highest first; then each
 * new side's compute column (rows paired with some new side first, then
 * rows the side has, then by value); then the sort keys (names ascending,
 * numbers ascending, symbols without a name last).
 */
#include "diff_int.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/hash.h"
#include "common/stats.h"

double diff_pct(uint64_t period, uint64_t total)
{
	return total ? (double)period * 100.0 / (double)total : 0.0;
}

/* ---- matching ----------------------------------------------------------- */

struct cell {
	uint64_t period, count;
};

struct match {
	const struct diff_calc_opts *o;
	size_t nr_runs;                 /* all sides' */
	struct drow *rows;
	size_t nr, cap;
	size_t *name_run;               /* the run that named each row */
	size_t cap_name;
	struct cell *cells;             /* nr * nr_runs */
	size_t cap_cells;
	struct hmap idx;
	const struct dentry *want;      /* hmap_find's */
};

static uint64_t key_hash(const struct diff_calc_opts *o, const struct dentry *e)
{
	uint64_t h = 0x5eed;

	for (size_t k = 0; k < o->nr_keys; k++) {
		const struct dkey *v = &e->k[k];

		h = hash_combine(h, v->s ? hash_bytes(v->s, strlen(v->s), 3) ^ v->n : 0x1u);
	}
	return h;
}

static bool key_eq(const struct diff_calc_opts *o, const struct dentry *a, const struct dentry *b)
{
	for (size_t k = 0; k < o->nr_keys; k++) {
		const struct dkey *x = &a->k[k], *y = &b->k[k];

		if (!x->s || !y->s) {
			if (x->s || y->s)
				return false;
			continue;       /* two symbols without a name */
		}
		if (x->n != y->n || strcmp(x->s, y->s))
			return false;
	}
	return true;
}

static bool row_eq(void *ctx, uint32_t i)
{
	struct match *m = ctx;

	return key_eq(m->o, m->rows[i].name, m->want);
}

/* perf's order of addresses: the sign of their difference, as a signed
 * number */
static int cmp_addr(uint64_t a, uint64_t b)
{
	int64_t d = (int64_t)(a - b);

	return d < 0 ? -1 : d > 0;
}

/* Of the nameless entries a row lumps, the row shows the lowest address
 * of the run that named it (perf's first entry of the class). */
static bool lower_name(const struct diff_calc_opts *o, const struct dentry *cur,
		       const struct dentry *e)
{
	for (size_t k = 0; k < o->nr_keys; k++)
		if (!e->k[k].s)
			return cmp_addr(e->k[k].n, cur->k[k].n) < 0;
	return false;
}

static int add_row(struct match *m, const struct dentry *e, size_t run, bool dummy,
		   uint32_t *out)
{
	size_t need;

	if (array_grow((void **)&m->rows, &m->cap, m->nr + 1, sizeof(*m->rows)) ||
	    array_grow((void **)&m->name_run, &m->cap_name, m->nr + 1, sizeof(*m->name_run)) ||
	    size_mul(m->nr + 1, m->nr_runs, &need) ||
	    array_grow((void **)&m->cells, &m->cap_cells, need, sizeof(*m->cells)))
		return -ENOMEM;
	memset(&m->rows[m->nr], 0, sizeof(m->rows[m->nr]));
	memset(&m->cells[m->nr * m->nr_runs], 0, m->nr_runs * sizeof(*m->cells));
	m->rows[m->nr].name = e;
	m->rows[m->nr].dummy = dummy;
	m->name_run[m->nr] = run;
	*out = (uint32_t)m->nr++;
	return 0;
}

static int add_entry(struct match *m, const struct dentry *e, size_t run, bool dummy)
{
	uint64_t hv = key_hash(m->o, e);
	uint32_t i;
	struct cell *c;

	m->want = e;
	if (!hmap_find(&m->idx, hv, row_eq, m, &i)) {
		if (add_row(m, e, run, dummy, &i) || hmap_insert(&m->idx, hv, i))
			return -ENOMEM;
	} else if (m->name_run[i] == run && lower_name(m->o, m->rows[i].name, e)) {
		m->rows[i].name = e;
	}
	c = &m->cells[(size_t)i * m->nr_runs + run];
	c->period += e->period;
	c->count += e->count;
	return 0;
}

static int match_all(struct match *m, const struct dside *sides, size_t nr_sides)
{
	size_t run = 0;

	for (size_t s = 0; s < nr_sides; s++) {
		for (size_t r = 0; r < sides[s].nr; r++, run++) {
			const struct devent *ev = sides[s].run[r];

			for (size_t j = 0; j < ev->nr; j++)
				if (add_entry(m, &ev->e[j], run, s != 0))
					return -ENOMEM;
		}
	}
	return 0;
}

/* ---- values -------------------------------------------------------------- */

static uint64_t run_total(const struct diff_calc_opts *o, const struct devent *ev, bool count)
{
	if (count)
		return o->absolute ? ev->count_all : ev->count_shown;
	return o->absolute ? ev->period_all : ev->period_shown;
}

/* The side's mean share, spread, sums, from its runs' cells. */
static void side_value(const struct diff_calc_opts *o, const struct dside *sd,
		       const struct cell *c, struct dval *v)
{
	double x[DIFF_MAX_RUNS];

	for (size_t r = 0; r < sd->nr; r++) {
		x[r] = diff_pct(c[r].period, run_total(o, sd->run[r], false));
		v->period += c[r].period;
		v->count += c[r].count;
		v->present |= c[r].period || c[r].count;
	}
	v->share = stats_mean(x, sd->nr);
	if (sd->nr >= 2) {
		v->spread = sqrt(stats_var(x, sd->nr));
	} else if (sd->nr == 1) {
		double n = (double)run_total(o, sd->run[0], true);

		v->spread = 100 * stats_share_se(v->share / 100, n);
	}
}

static void compare(const struct diff_calc_opts *o, const struct dval *base, struct dval *v)
{
	v->delta = v->share - base->share;
	v->ratio = (double)v->period / (double)(base->period ? base->period : 1);
	v->wdiff = (int64_t)v->period * o->w2 - (int64_t)base->period * o->w1;
}

static void values(struct match *m, const struct dside *sides, size_t nr_sides,
		   struct dtable *t)
{
	for (size_t i = 0; i < m->nr; i++) {
		const struct cell *c = &m->cells[i * m->nr_runs];
		struct drow *row = &m->rows[i];

		row->v = &t->vals[i * nr_sides];
		for (size_t s = 0; s < nr_sides; s++) {
			side_value(m->o, &sides[s], c, &row->v[s]);
			if (s && row->v[s].present)
				compare(m->o, &row->v[0], &row->v[s]);
			c += sides[s].nr;
		}
	}
}

/* -b: rows of the baseline paired with a new side; --percent-limit: rows
 * with a share at or above it somewhere. */
static bool keep_row(const struct diff_calc_opts *o, const struct drow *row, size_t nr_sides)
{
	bool paired = false, big = o->percent_limit <= 0;

	for (size_t s = 0; s < nr_sides; s++) {
		if (!row->v[s].present)
			continue;
		paired |= s > 0;
		big |= row->v[s].share >= o->percent_limit;
	}
	return big && (!o->baseline_only || (!row->dummy && paired));
}

/* ---- noise --------------------------------------------------------------- */

/* One side of a test: the mean share (a fraction), the variance of that
 * mean and its degrees of freedom (0: known).
 *
 * Several runs: the runs' own variance (Welch), but never below one
 * sample's worth, 1 / N^2 for N samples a run: a count that varies at all
 * varies by a sample at least, and runs that happen to agree (an entry of
 * one or two samples in each, or of none) would otherwise look certain.
 * Timer samples of a program that does the same work each run vary much
 * less than independent draws would (they are evenly spaced): the runs'
 * variance says so, where a binomial model would not.
 *
 * One run: no spread to measure, only the share's sampling error as if
 * each sample were an independent draw, of the share both sides pool
 * (the two-proportion z test when both sides are one run). */
struct side_test {
	double mean, vm, df;
};

static double per_run(const struct diff_calc_opts *o, const struct dside *sd)
{
	double n = 0;

	for (size_t r = 0; r < sd->nr; r++)
		n += (double)run_total(o, sd->run[r], true);
	return sd->nr ? n / (double)sd->nr : 0;
}

static void side_var(const struct dside *sd, double n, double var, double p_pool,
		     struct side_test *t)
{
	if (sd->nr >= 2) {
		double one = n > 0 ? 1 / (n * n) : 0;

		t->vm = (var > one ? var : one) / (double)sd->nr;
		t->df = (double)(sd->nr - 1);
	} else {
		t->vm = n > 0 ? p_pool * (1 - p_pool) / n : 0;
		t->df = 0;
	}
}

static void test_side(const struct diff_calc_opts *o, const struct dside *sd,
		      const struct cell *c, double p_pool, struct side_test *t)
{
	double x[DIFF_MAX_RUNS];

	for (size_t r = 0; r < sd->nr; r++)
		x[r] = diff_pct(c[r].period, run_total(o, sd->run[r], false)) / 100;
	t->mean = stats_mean(x, sd->nr);
	side_var(sd, per_run(o, sd), stats_var(x, sd->nr), p_pool, t);
}

/* The samples of both sides, and of both sides' runs in all. */
static void counts(const struct diff_calc_opts *o, const struct dside *a, const struct cell *ca,
		   const struct dside *b, const struct cell *cb, double *k, double *n)
{
	*k = *n = 0;
	for (size_t r = 0; r < a->nr; r++) {
		*k += (double)ca[r].count;
		*n += (double)run_total(o, a->run[r], true);
	}
	for (size_t r = 0; r < b->nr; r++) {
		*k += (double)cb[r].count;
		*n += (double)run_total(o, b->run[r], true);
	}
}

/* The least p the test could give an entry of k samples in all: every one
 * of them on side b, as many in each of its runs, none on side a (Tarone's
 * bound: an entry of few samples can never pass, whatever their split). */
static double extreme_p(const struct diff_calc_opts *o, const struct dside *a,
			const struct dside *b, double k, double p_pool)
{
	double na = per_run(o, a), nb = per_run(o, b);
	struct side_test ta = { 0 }, tb = { .mean = nb > 0 ? k / (double)b->nr / nb : 0 };
	struct stats_test st;

	side_var(a, na, 0, p_pool, &ta);
	side_var(b, nb, 0, p_pool, &tb);
	if (stats_diff_test(ta.mean, ta.vm, ta.df, tb.mean, tb.vm, tb.df, &st))
		return 1;
	return st.p;
}

/* One row's test of side s (cells cs) against the baseline (c0): 0 with
 * the raw p, its least p and the delta's error in v, or -1. */
static int test_row(const struct diff_calc_opts *o, const struct dside *s0, const struct cell *c0,
		    const struct dside *ss, const struct cell *cs, struct dval *v, double *p_min)
{
	struct side_test t0, t1;
	struct stats_test st;
	double k, n, pp;

	counts(o, s0, c0, ss, cs, &k, &n);
	pp = n > 0 ? k / n : 0;
	test_side(o, s0, c0, pp, &t0);
	test_side(o, ss, cs, pp, &t1);
	if (stats_diff_test(t0.mean, t0.vm, t0.df, t1.mean, t1.vm, t1.df, &st))
		return -1;
	v->err = 100 * sqrt(t0.vm + t1.vm);
	v->p_raw = st.p;
	*p_min = fmin(extreme_p(o, s0, ss, k, pp), extreme_p(o, ss, s0, k, pp));
	return 0;
}

/* The family's adjusted p values: Holm's or BH's over the rows that can
 * pass (Tarone: k of them counted, by the least p their samples allow);
 * the others are never "changed", and show their p times k. */
static void adjust(const struct diff_calc_opts *o, double *p, const double *p_min, size_t n,
		   size_t *work, size_t *tested)
{
	size_t k = n, in = 0;
	double *fam = malloc((n ? n : 1) * sizeof(*fam));
	size_t *idx = malloc((n ? n : 1) * sizeof(*idx));

	if (o->correction != DCORR_NONE)
		k = stats_tarone(p_min, n, o->alpha, work);
	*tested = k;
	if (o->correction == DCORR_NONE || !fam || !idx) {
		/* no correction, or no memory for one: Bonferroni over all */
		for (size_t j = 0; j < n && o->correction != DCORR_NONE; j++)
			p[j] = fmin(1, p[j] * (double)n);
		*tested = n;
		free(fam), free(idx);
		return;
	}
	for (size_t j = 0; j < n; j++) {
		if (p_min[j] < o->alpha / (double)k) {
			idx[in] = j;
			fam[in++] = p[j];
		} else {
			p[j] = fmin(1, p[j] * (double)k);
			if (p[j] < o->alpha)    /* its samples cannot pass */
				p[j] = o->alpha;
		}
	}
	if (o->correction == DCORR_HOLM)
		stats_adjust_holm(fam, in, k, fam, work);
	else
		stats_adjust_bh(fam, in, k, fam, work);
	for (size_t j = 0; j < in; j++)
		p[idx[j]] = fam[j];
	free(fam), free(idx);
}

/* Side s against the baseline, in every row that either has: the raw p
 * values, then adjusted as the family's. */
static int test_sides(struct match *m, const struct dside *sides, size_t nr_sides,
		      struct dtable *t)
{
	const struct diff_calc_opts *o = m->o;
	size_t sz = m->nr ? m->nr : 1, off = sides[0].nr;
	double *p = malloc(sz * sizeof(*p)), *p_min = malloc(sz * sizeof(*p_min));
	size_t *rowof = malloc(sz * sizeof(*rowof)), *work = malloc(sz * sizeof(*work));
	int ret = 0;

	if (!p || !p_min || !rowof || !work)
		ret = -ENOMEM;
	for (size_t s = 1; s < nr_sides && !ret; off += sides[s].nr, s++) {
		size_t n = 0;

		for (size_t i = 0; i < m->nr && sides[0].nr && sides[s].nr; i++) {
			const struct cell *c = &m->cells[i * m->nr_runs];
			struct dval *v = &m->rows[i].v[s];

			if (!v->present && !m->rows[i].v[0].present)
				continue;
			if (test_row(o, &sides[0], c, &sides[s], c + off, v, &p_min[n]))
				continue;
			p[n] = v->p_raw;
			rowof[n++] = i;
		}
		adjust(o, p, p_min, n, work, &t->tested[s]);
		t->considered[s] = n;
		for (size_t j = 0; j < n; j++) {
			m->rows[rowof[j]].v[s].p = p[j];
			m->rows[rowof[j]].v[s].changed = p[j] < o->alpha;
		}
	}
	free(p), free(p_min), free(rowof), free(work);
	return ret;
}

/* ---- perf's order -------------------------------------------------------- */

struct order_ctx {
	const struct diff_calc_opts *o;
	size_t nr_sides;
};

static int cmp_desc(double a, double b)
{
	return a > b ? -1 : a < b;
}

static double value(const struct diff_calc_opts *o, const struct dval *v)
{
	switch (o->compute) {
	case DC_DELTA:
		return v->delta;
	case DC_DELTA_ABS:
		return fabs(v->delta);
	case DC_RATIO:
		return v->ratio;
	case DC_WDIFF:
		return (double)v->wdiff;
	}
	return 0;
}

static bool has_pairs(const struct drow *r, size_t nr_sides)
{
	for (size_t s = 1; s < nr_sides; s++)
		if (r->v[s].present)
			return true;
	return false;
}

/* -o N's column, put first */
static int cmp_ordered(const struct diff_calc_opts *o, const struct drow *a,
		       const struct drow *b, size_t s)
{
	bool pa = a->v[s].present, pb = b->v[s].present;

	if (pa != pb)
		return pa ? -1 : 1;
	if (!pa)
		return 0;
	/* a ratio or wdiff needs the baseline: rows without one go last */
	if (o->compute != DC_DELTA && o->compute != DC_DELTA_ABS && a->dummy != b->dummy)
		return a->dummy ? 1 : -1;
	return cmp_desc(value(o, &a->v[s]), value(o, &b->v[s]));
}

/* a new side's own column */
static int cmp_side(const struct order_ctx *c, const struct drow *a, const struct drow *b,
		    size_t s)
{
	bool ha = has_pairs(a, c->nr_sides), hb = has_pairs(b, c->nr_sides);
	bool pa = a->v[s].present, pb = b->v[s].present;

	if (ha != hb)
		return ha ? -1 : 1;
	if (!ha)
		return 0;
	if (pa != pb)
		return pa ? -1 : 1;
	if (!pa)
		return 0;
	return cmp_desc(value(c->o, &a->v[s]), value(c->o, &b->v[s]));
}

/* the sort keys: names and numbers ascending, nameless symbols last */
static int cmp_keys(const struct diff_calc_opts *o, const struct dentry *a,
		    const struct dentry *b)
{
	for (size_t k = 0; k < o->nr_keys; k++) {
		const struct dkey *x = &a->k[k], *y = &b->k[k];
		int c;

		if (!x->s || !y->s) {
			if (x->s || y->s)
				return x->s ? -1 : 1;
			continue;
		}
		if (x->n != y->n)
			return x->n < y->n ? -1 : 1;
		c = strcmp(x->s, y->s);
		if (c)
			return c;
	}
	return 0;
}

static int cmp_rows(const void *pa, const void *pb, void *ctx)
{
	const struct order_ctx *c = ctx;
	const struct drow *a = pa, *b = pb;
	int r = 0;

	if (c->o->order && c->o->order < c->nr_sides)
		r = cmp_ordered(c->o, a, b, c->o->order);
	if (!r && a->v[0].period != b->v[0].period)
		r = a->v[0].period > b->v[0].period ? -1 : 1;
	for (size_t s = 1; s < c->nr_sides && !r; s++)
		r = cmp_side(c, a, b, s);
	return r ? r : cmp_keys(c->o, a->name, b->name);
}

/* ---- the table ----------------------------------------------------------- */

static void free_match(struct match *m)
{
	free(m->name_run);
	free(m->cells);
	hmap_free(&m->idx);
}

/* Drop the rows -b and --percent-limit leave out (their cells too). */
static void filter_rows(struct match *m, size_t nr_sides)
{
	size_t n = 0;

	for (size_t i = 0; i < m->nr; i++) {
		if (!keep_row(m->o, &m->rows[i], nr_sides))
			continue;
		if (n != i) {
			m->rows[n] = m->rows[i];
			memmove(&m->cells[n * m->nr_runs], &m->cells[i * m->nr_runs],
				m->nr_runs * sizeof(*m->cells));
		}
		n++;
	}
	m->nr = n;
}

/* perf diff -b: the baseline's shares are then of the rows kept (perf
 * sums its entries again once the others are gone), its deltas still of
 * everything (computed before). One run a side only: the noise columns
 * keep their shares. */
static void baseline_only_shares(struct match *m, struct dtable *t)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < m->nr; i++)
		sum += m->rows[i].v[0].period;
	for (size_t i = 0; i < m->nr; i++)
		m->rows[i].v[0].share = diff_pct(m->rows[i].v[0].period, sum);
	t->total[0] = sum;
}

int diff_table(const struct dside *sides, size_t nr_sides, const struct diff_calc_opts *o,
	       struct dtable *t)
{
	struct match m = { .o = o, .idx = HMAP_INIT };
	struct order_ctx oc = { o, nr_sides };
	int ret;

	memset(t, 0, sizeof(*t));
	t->nr_sides = nr_sides;
	for (size_t s = 0; s < nr_sides; s++) {
		t->runs[s] = sides[s].nr;
		t->total[s] = sides[s].nr ? run_total(o, sides[s].run[0], false) : 0;
		m.nr_runs += sides[s].nr;
	}
	ret = match_all(&m, sides, nr_sides);
	if (!ret && !(t->vals = calloc((m.nr ? m.nr : 1) * nr_sides, sizeof(*t->vals))))
		ret = -ENOMEM;
	if (!ret) {
		values(&m, sides, nr_sides, t);
		filter_rows(&m, nr_sides);
		if (o->baseline_only && !o->noise)
			baseline_only_shares(&m, t);
		if (o->noise)
			ret = test_sides(&m, sides, nr_sides, t);
	}
	if (!ret && m.nr)
		qsort_r(m.rows, m.nr, sizeof(*m.rows), cmp_rows, &oc);
	t->rows = m.rows;
	t->nr = m.nr;
	free_match(&m);
	if (ret)
		diff_table_free(t);
	return ret;
}

void diff_table_free(struct dtable *t)
{
	free(t->rows);
	free(t->vals);
	memset(t, 0, sizeof(*t));
}
