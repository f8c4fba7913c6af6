/* SPDX-License-Identifier: MIT */
/*
 * Small statistics for telling a change from sampling noise (prep diff,
 * the report's --error column). Pure functions on doubles: no state, no
 * allocation. Shares are fractions in [0, 1].
 *
 * Two questions are answered:
 *  - one recording: how far a share measured from N samples may be from
 *    the true one (its standard error, sqrt(p (1 - p) / N), as for any
 *    proportion counted from independent draws), and whether two shares
 *    from two recordings differ by more than that (a two-proportion z test);
 *  - several recordings a side: whether the mean shares differ by more
 *    than the runs' own spread says they may (Welch's t test, which does
 *    not assume both sides spread alike).
 */
#ifndef PREC_COMMON_STATS_H
#define PREC_COMMON_STATS_H

#include <stddef.h>

/* Mean of x[0..n), 0 for n == 0. */
double stats_mean(const double *x, size_t n);
/* Sample variance (divided by n - 1), 0 for n < 2. */
double stats_var(const double *x, size_t n);

/* The regularized incomplete beta function I_x(a, b), a, b > 0, x in
 * [0, 1]; NaN outside. */
double stats_betai(double a, double b, double x);
/* Two-sided p of Student's t with df degrees of freedom (df > 0). */
double stats_t_p(double t, double df);
/* Two-sided p of a standard normal z. */
double stats_z_p(double z);

/* Standard error of a share p counted from n samples (0 for n == 0). */
double stats_share_se(double p, double n);

struct stats_test {
	double stat;    /* t or z */
	double df;      /* Welch's degrees of freedom; 0 for z */
	double p;       /* two-sided */
};

/* Two shares k1/n1 and k2/n2 (sample counts): the pooled two-proportion z
 * test. -1 when a side has no samples, else 0. Equal shares give p = 1. */
int stats_two_shares(double k1, double n1, double k2, double n2, struct stats_test *out);

/* Welch's t test of two sets of runs given as mean, sample variance and
 * count. -1 when a side has fewer than two runs, else 0. When both
 * variances are 0 the means decide: p = 1 if equal, 0 if not. */
int stats_welch(double m1, double v1, size_t n1, double m2, double v2, size_t n2,
		struct stats_test *out);

/* The difference m2 - m1 of two means against its standard error, each
 * side given as the variance of its mean (var_mean: a run's variance over
 * the number of runs) and the degrees of freedom that variance rests on:
 * df > 0 for one estimated from runs (runs - 1), 0 for one known (the
 * sampling variance of a share counted from its samples). The degrees of
 * freedom of the difference are Welch-Satterthwaite's over the estimated
 * sides; with none, the statistic is a standard normal z (out->df 0).
 * Both variances known is the two-proportion z test when they are the
 * pooled share's; both estimated is stats_welch. A zero standard error
 * decides by the means (p 1 if equal, else 0). -1 for a negative variance,
 * else 0. */
int stats_diff_test(double m1, double var_mean1, double df1, double m2, double var_mean2,
		    double df2, struct stats_test *out);

/* Multiple comparisons: the n p values p[] of a family of m >= n tests
 * (the other m - n are never rejected) adjusted into adj[] (which may be
 * p), so that "adj[i] < alpha" is the decision for each at the family's
 * level. order is caller-provided room for n indexes (no allocation here).
 * Holm's step-down adjustment bounds the chance of any false positive
 * among the m (the family-wise error) by alpha; Benjamini-Hochberg's
 * step-up bounds the expected share of false positives among those
 * declared (the false discovery rate). Adjusted values never exceed 1. */
void stats_adjust_holm(const double *p, size_t n, size_t m, double *adj, size_t *order);
void stats_adjust_bh(const double *p, size_t n, size_t m, double *adj, size_t *order);

/* Tarone's count of the tests that matter, for tests whose p value can
 * never fall below a known p_min[i] (a count test of few samples): the
 * least k >= 1 with at most k of the p_min[] under alpha / k. A test with
 * p_min >= alpha / k can never pass at that level and need not be counted:
 * correcting for k tests, not n, keeps the family-wise error under alpha.
 * 0 for n == 0. order: room for n indexes. */
size_t stats_tarone(const double *p_min, size_t n, double alpha, size_t *order);

#endif
