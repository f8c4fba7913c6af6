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
 * Several runs: the runs' own variance (Welch), but never below what
 * rounding to whole samples alone gives a share, 1/12 of a sample squared
 * (a uniform rounding error's variance) over the side's samples per run:
 * runs that agree to the sample (an entry of one sample in each run, or of
 * none) would otherwise look certain. Timer samples of a program that
 * does the same work each run vary much less than independent draws would
 * (they are evenly spaced): the runs' variance says so, where a binomial
 * model would not.
 *
 * One run: no spread to measure, only the share's sampling error as if
 * each sample were an independent draw, of the share both sides pool
 * (the two-proportion z test when both sides are one run). */
static void test_side(const struct diff_calc_opts *o, const struct dside *sd,
		      const struct cell *c, double p_pool, double *mean, double *vm, double *df)
{
	double x[DIFF_MAX_RUNS], n = 0;

	for (size_t r = 0; r < sd->nr; r++) {
		x[r] = diff_pct(c[r].period, run_total(o, sd->run[r], false)) / 100;
		n += (double)run_total(o, sd->run[r], true);
	}
	n /= (double)sd->nr;
	*mean = stats_mean(x, sd->nr);
	if (sd->nr >= 2) {
		double v = stats_var(x, sd->nr), rounding = n > 0 ? 1 / (12 * n * n) : 0;

		*vm = (v > rounding ? v : rounding) / (double)sd->nr;
		*df = (double)(sd->nr - 1);
	} else {
		*vm = n > 0 ? p_pool * (1 - p_pool) / n : 0;
		*df = 0;
	}
}

static double pooled(const struct diff_calc_opts *o, const struct dside *a,
		     const struct cell *ca, const struct dside *b, const struct cell *cb)
{
	double k = 0, n = 0;

	for (size_t r = 0; r < a->nr; r++) {
		k += (double)ca[r].count;
		n += (double)run_total(o, a->run[r], true);
	}
	for (size_t r = 0; r < b->nr; r++) {
		k += (double)cb[r].count;
		n += (double)run_total(o, b->run[r], true);
	}
	return n > 0 ? k / n : 0;
}

/* Side s against the baseline, in every row that either has: the raw p
 * values, then adjusted as the family's. */
static int test_sides(struct match *m, const struct dside *sides, size_t nr_sides,
		      struct dtable *t)
{
	const struct diff_calc_opts *o = m->o;
	double *p = malloc((m->nr ? m->nr : 1) * sizeof(*p));
	size_t *rowof = malloc((m->nr ? m->nr : 1) * sizeof(*rowof));
	size_t *work = malloc((m->nr ? m->nr : 1) * sizeof(*work));
	size_t off = sides[0].nr;

	if (!p || !rowof || !work) {
		free(p), free(rowof), free(work);
		return -ENOMEM;
	}
	for (size_t s = 1; s < nr_sides; off += sides[s].nr, s++) {
		size_t n = 0;

		for (size_t i = 0; i < m->nr && sides[0].nr && sides[s].nr; i++) {
			const struct cell *c = &m->cells[i * m->nr_runs];
			struct dval *v = &m->rows[i].v[s];
			double m0, v0, d0, m1, v1, d1, pp;
			struct stats_test st;

			if (!v->present && !m->rows[i].v[0].present)
				continue;
			pp = pooled(o, &sides[0], c, &sides[s], c + off);
			test_side(o, &sides[0], c, pp, &m0, &v0, &d0);
			test_side(o, &sides[s], c + off, pp, &m1, &v1, &d1);
			if (stats_diff_test(m0, v0, d0, m1, v1, d1, &st))
				continue;
			v->err = 100 * sqrt(v0 + v1);
			v->p_raw = st.p;
			p[n] = st.p;
			rowof[n++] = i;
		}
		if (o->correction == DCORR_HOLM)
			stats_adjust_holm(p, n, p, work);
		else if (o->correction == DCORR_BH)
			stats_adjust_bh(p, n, p, work);
		for (size_t j = 0; j < n; j++) {
			m->rows[rowof[j]].v[s].p = p[j];
			m->rows[rowof[j]].v[s].changed = p[j] < o->alpha;
		}
		t->tested[s] = n;
	}
	free(p), free(rowof), free(work);
	return 0;
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
