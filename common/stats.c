/* SPDX-License-Identifier: MIT */
/* Statistics for prep diff and --error; see stats.h. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>

double stats_mean(const double *x, size_t n)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += x[i];
	return n ? s / (double)n : 0;
}

double stats_var(const double *x, size_t n)
{
	double m = stats_mean(x, n), s = 0;

	if (n < 2)
		return 0;
	for (size_t i = 0; i < n; i++)
		s += (x[i] - m) * (x[i] - m);
	return s / (double)(n - 1);
}

#define CF_TINY 1e-300
#define CF_EPS 1e-15
#define CF_STEPS 300

static double not_tiny(double v)
{
	return fabs(v) < CF_TINY ? CF_TINY : v;
}

/* The continued fraction of I_x(a, b) (its even and odd steps), by the
 * modified Lentz method; it converges fast for x < (a + 1) / (a + b + 2). */
static double beta_fraction(double a, double b, double x)
{
	double c = 1, d = 1 / not_tiny(1 - (a + b) * x / (a + 1)), h = d;

	for (int m = 1; m <= CF_STEPS; m++) {
		double m2 = 2.0 * m, step;
		double even = m * (b - m) * x / ((a - 1 + m2) * (a + m2));
		double odd = -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1 + m2));

		d = 1 / not_tiny(1 + even * d);
		c = not_tiny(1 + even / c);
		h *= d * c;
		d = 1 / not_tiny(1 + odd * d);
		c = not_tiny(1 + odd / c);
		step = d * c;
		h *= step;
		if (fabs(step - 1) < CF_EPS)
			break;
	}
	return h;
}

double stats_betai(double a, double b, double x)
{
	double front;
	int sa, sb, sab;

	if (!(a > 0) || !(b > 0) || !(x >= 0) || !(x <= 1))
		return NAN;
	if (x == 0 || x == 1)
		return x;
	/* x^a (1 - x)^b / B(a, b), in logarithms */
	front = exp(lgamma_r(a + b, &sab) - lgamma_r(a, &sa) - lgamma_r(b, &sb) +
		    a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_fraction(a, b, x) / a;
	return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

double stats_t_p(double t, double df)
{
	if (!(df > 0) || isnan(t))
		return NAN;
	if (isinf(t))
		return 0;
	return stats_betai(df / 2, 0.5, df / (df + t * t));
}

double stats_z_p(double z)
{
	return erfc(fabs(z) / sqrt(2.0));
}

double stats_share_se(double p, double n)
{
	if (!(n > 0))
		return 0;
	return sqrt(p * (1 - p) / n);
}

int stats_two_shares(double k1, double n1, double k2, double n2, struct stats_test *out)
{
	double pooled, se;

	if (!(n1 > 0) || !(n2 > 0))
		return -1;
	pooled = (k1 + k2) / (n1 + n2);
	se = sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2));
	out->df = 0;
	if (!(se > 0)) {        /* both shares 0, or both 1 */
		out->stat = 0;
		out->p = 1;
		return 0;
	}
	out->stat = (k2 / n2 - k1 / n1) / se;
	out->p = stats_z_p(out->stat);
	return 0;
}

int stats_welch(double m1, double v1, size_t n1, double m2, double v2, size_t n2,
		struct stats_test *out)
{
	double a, b, se2;

	if (n1 < 2 || n2 < 2)
		return -1;
	a = v1 / (double)n1;
	b = v2 / (double)n2;
	se2 = a + b;
	if (!(se2 > 0)) {
		out->stat = m1 == m2 ? 0 : (m2 > m1 ? INFINITY : -INFINITY);
		out->df = (double)(n1 + n2 - 2);
		out->p = m1 == m2 ? 1 : 0;
		return 0;
	}
	out->stat = (m2 - m1) / sqrt(se2);
	out->df = se2 * se2 / (a * a / (double)(n1 - 1) + b * b / (double)(n2 - 1));
	out->p = stats_t_p(out->stat, out->df);
	return 0;
}

int stats_diff_test(double m1, double var_mean1, double df1, double m2, double var_mean2,
		    double df2, struct stats_test *out)
{
	double se2 = var_mean1 + var_mean2, den = 0;

	if (var_mean1 < 0 || var_mean2 < 0 || isnan(se2))
		return -1;
	if (df1 > 0)
		den += var_mean1 * var_mean1 / df1;
	if (df2 > 0)
		den += var_mean2 * var_mean2 / df2;
	if (!(se2 > 0)) {
		out->stat = m1 == m2 ? 0 : (m2 > m1 ? INFINITY : -INFINITY);
		out->df = df1 + df2;
		out->p = m1 == m2 ? 1 : 0;
		return 0;
	}
	out->stat = (m2 - m1) / sqrt(se2);
	/* the known sides bring no uncertainty of their own to the variance */
	out->df = den > 0 ? se2 * se2 / den : 0;
	out->p = out->df > 0 ? stats_t_p(out->stat, out->df) : stats_z_p(out->stat);
	return 0;
}

/* qsort_r: indexes by their p value, ascending (ties by index: stable) */
static int by_p(const void *a, const void *b, void *ctx)
{
	const double *p = ctx;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;

	if (p[i] != p[j])
		return p[i] < p[j] ? -1 : 1;
	return i < j ? -1 : i > j;
}

static void sort_by_p(const double *p, size_t n, size_t *order)
{
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	if (n > 1)
		qsort_r(order, n, sizeof(*order), by_p, (void *)p);
}

void stats_adjust_holm(const double *p, size_t n, size_t m, double *adj, size_t *order)
{
	double run = 0;

	if (m < n)
		m = n;
	sort_by_p(p, n, order);
	/* the k-th smallest times (m - k), never below the one before */
	for (size_t k = 0; k < n; k++) {
		double v = p[order[k]] * (double)(m - k);

		if (v > run)
			run = v;
		adj[order[k]] = run < 1 ? run : 1;
	}
}

void stats_adjust_bh(const double *p, size_t n, size_t m, double *adj, size_t *order)
{
	double run = 1;

	if (m < n)
		m = n;
	sort_by_p(p, n, order);
	/* the k-th smallest times m / k, never above the one after */
	for (size_t k = n; k-- > 0;) {
		double v = p[order[k]] * (double)m / (double)(k + 1);

		if (v < run)
			run = v;
		adj[order[k]] = run;
	}
}

size_t stats_tarone(const double *p_min, size_t n, double alpha, size_t *order)
{
	size_t below = n;

	if (!n)
		return 0;
	sort_by_p(p_min, n, order);
	/* k grows while more than k of the smallest p_min are under alpha / k */
	for (size_t k = 1; k <= n; k++) {
		while (below && !(p_min[order[below - 1]] < alpha / (double)k))
			below--;
		if (below <= k)
			return k;
	}
	return n;
}
