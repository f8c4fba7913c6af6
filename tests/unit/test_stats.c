/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of common/stats.c against values computed independently
 * (closed forms, or a numerical integral of Student's t density in
 * Python): the incomplete beta, t and normal p values, the standard error
 * of a share, the two-proportion z test and Welch's t test, and their
 * answers at the edges (no runs, no spread, equal shares).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/stats.h"

static void near(double got, double want, double tol)
{
	if (!(fabs(got - want) <= tol))
		fail_msg("got %.12g, want %.12g (+- %g)", got, want, tol);
}

static void test_mean_var(void **state)
{
	const double x[] = { 1, 2, 3, 4 };

	(void)state;
	near(stats_mean(x, 4), 2.5, 1e-15);
	near(stats_var(x, 4), 5.0 / 3, 1e-15);
	near(stats_mean(x, 0), 0, 0);
	near(stats_var(x, 1), 0, 0);
}

static void test_betai(void **state)
{
	(void)state;
	/* Beta(2, 3) CDF at 0.4: sum over j = 2..4 of C(4, j) 0.4^j 0.6^(4-j) */
	near(stats_betai(2, 3, 0.4), 0.5248, 1e-12);
	/* the other branch of the fraction (x above the mean) */
	near(stats_betai(2, 3, 0.9), 0.9963, 1e-12);
	near(stats_betai(1, 1, 0.37), 0.37, 1e-12);     /* uniform */
	near(stats_betai(3, 2, 0), 0, 0);
	near(stats_betai(3, 2, 1), 1, 0);
	assert_true(isnan(stats_betai(-1, 2, 0.5)));
	assert_true(isnan(stats_betai(1, 2, 1.5)));
}

static void test_t_and_z(void **state)
{
	(void)state;
	near(stats_t_p(2, 10), 0.07338803477079346, 1e-9);
	near(stats_t_p(-2, 10), 0.07338803477079346, 1e-9);
	/* df 1 is Cauchy: 1 - 2 atan(t) / pi */
	near(stats_t_p(0.5, 1), 1 - 2 * atan(0.5) / M_PI, 1e-12);
	near(stats_t_p(0, 4), 1, 1e-12);
	near(stats_t_p(INFINITY, 4), 0, 0);
	near(stats_z_p(1.959963984540054), 0.05, 1e-12);
	near(stats_z_p(0), 1, 1e-15);
	assert_true(isnan(stats_t_p(1, 0)));
}

static void test_share_se(void **state)
{
	(void)state;
	near(stats_share_se(0.5, 10000), 0.005, 1e-15);
	near(stats_share_se(0.1, 900), 0.01, 1e-15);
	near(stats_share_se(0.3, 0), 0, 0);
}

static void test_two_shares(void **state)
{
	struct stats_test t;

	(void)state;
	/* 10% of 10000 against 12% of 10000: pooled 0.11 */
	assert_int_equal(stats_two_shares(1000, 10000, 1200, 10000, &t), 0);
	near(t.stat, 0.02 / sqrt(0.11 * 0.89 * 2e-4), 1e-12);
	near(t.p, erfc(t.stat / sqrt(2.0)), 1e-15);
	assert_true(t.p < 1e-5);
	/* the same share: nothing to see */
	assert_int_equal(stats_two_shares(50, 1000, 100, 2000, &t), 0);
	near(t.p, 1, 1e-12);
	/* both zero */
	assert_int_equal(stats_two_shares(0, 1000, 0, 2000, &t), 0);
	near(t.p, 1, 0);
	assert_int_equal(stats_two_shares(1, 0, 1, 10, &t), -1);
}

static void test_welch(void **state)
{
	const double a[] = { 1, 2, 3 }, b[] = { 2, 4, 6 };
	struct stats_test t;

	(void)state;
	assert_int_equal(stats_welch(stats_mean(a, 3), stats_var(a, 3), 3, stats_mean(b, 3),
				     stats_var(b, 3), 3, &t), 0);
	near(t.stat, 1.5491933384829668, 1e-12);
	near(t.df, 50.0 / 17, 1e-12);
	near(t.p, 0.22088084049429854, 1e-9);
	/* no spread on either side */
	assert_int_equal(stats_welch(0.2, 0, 3, 0.2, 0, 3, &t), 0);
	near(t.p, 1, 0);
	assert_int_equal(stats_welch(0.2, 0, 3, 0.25, 0, 3, &t), 0);
	near(t.p, 0, 0);
	assert_int_equal(stats_welch(0.2, 0.01, 1, 0.25, 0.01, 3, &t), -1);
}

static void test_diff_test(void **state)
{
	const double a[] = { 1, 2, 3 }, b[] = { 2, 4, 6 };
	double v1 = 0.11 * 0.89 / 10000;
	struct stats_test t, w;

	(void)state;
	/* both sides from runs: Welch's t */
	assert_int_equal(stats_diff_test(2, stats_var(a, 3) / 3, 2, 4, stats_var(b, 3) / 3, 2, &t), 0);
	assert_int_equal(stats_welch(2, stats_var(a, 3), 3, 4, stats_var(b, 3), 3, &w), 0);
	near(t.stat, w.stat, 1e-12);
	near(t.df, 50.0 / 17, 1e-12);
	near(t.p, w.p, 1e-12);
	/* both known (the pooled share's sampling variance): the z test */
	assert_int_equal(stats_diff_test(0.10, v1, 0, 0.12, v1, 0, &t), 0);
	assert_int_equal(stats_two_shares(1000, 10000, 1200, 10000, &w), 0);
	near(t.stat, w.stat, 1e-9);
	near(t.p, w.p, 1e-12);
	near(t.df, 0, 0);
	/* one of each: the degrees of freedom come from the estimated side:
	 * (1e-4 + 3e-4)^2 / ((3e-4)^2 / 2) = 32 / 9 */
	assert_int_equal(stats_diff_test(0.10, 1e-4, 0, 0.15, 3e-4, 2, &t), 0);
	near(t.stat, 2.5, 1e-12);
	near(t.df, 32.0 / 9, 1e-9);
	near(t.p, stats_t_p(2.5, 32.0 / 9), 1e-15);
	/* no error at all: the means decide */
	assert_int_equal(stats_diff_test(0.3, 0, 2, 0.3, 0, 2, &t), 0);
	near(t.p, 1, 0);
	assert_int_equal(stats_diff_test(0.3, 0, 0, 0.4, 0, 0, &t), 0);
	near(t.p, 0, 0);
	assert_int_equal(stats_diff_test(0.3, -1, 2, 0.4, 0, 2, &t), -1);
}

static void test_adjust(void **state)
{
	const double p[] = { 0.01, 0.04, 0.03, 0.005 };
	const double holm[] = { 0.03, 0.06, 0.06, 0.02 }, bh[] = { 0.02, 0.04, 0.04, 0.02 };
	const double big[] = { 0.5, 0.9 };
	double adj[4];
	size_t order[4];

	(void)state;
	stats_adjust_holm(p, 4, 4, adj, order);
	for (size_t i = 0; i < 4; i++)
		near(adj[i], holm[i], 1e-15);
	stats_adjust_bh(p, 4, 4, adj, order);
	for (size_t i = 0; i < 4; i++)
		near(adj[i], bh[i], 1e-15);
	/* never above 1; one value is its own */
	stats_adjust_holm(big, 2, 2, adj, order);
	near(adj[0], 1, 0);
	near(adj[1], 1, 0);
	stats_adjust_bh(big, 1, 1, adj, order);
	near(adj[0], 0.5, 0);
	/* in place */
	memcpy(adj, p, sizeof(p));
	stats_adjust_holm(adj, 4, 4, adj, order);
	for (size_t i = 0; i < 4; i++)
		near(adj[i], holm[i], 1e-15);
	/* a family of 10 of which 2 are given: Holm's factors 10 and 9, BH's
	 * 10 and 10 / 2 */
	stats_adjust_holm(p, 2, 10, adj, order);
	near(adj[0], 0.1, 1e-15);
	near(adj[1], 0.36, 1e-15);
	stats_adjust_bh(p, 2, 10, adj, order);
	near(adj[0], 0.1, 1e-15);
	near(adj[1], 0.2, 1e-15);
}

static void test_tarone(void **state)
{
	/* alpha 0.05: k = 1 has 3 under 0.05 (> 1); k = 2 has 2 under 0.025
	 * (0.001, 0.02: not > 2): k = 2 */
	const double pmin[] = { 0.3, 0.001, 0.02, 0.04, 0.9 };
	const double all_small[] = { 1e-9, 1e-9, 1e-9 };
	size_t order[5];

	(void)state;
	assert_int_equal(stats_tarone(pmin, 5, 0.05, order), 2);
	/* every test can pass: all count */
	assert_int_equal(stats_tarone(all_small, 3, 0.05, order), 3);
	/* none can: one */
	assert_int_equal(stats_tarone(pmin, 1, 0.05, order), 1);
	assert_int_equal(stats_tarone(pmin, 0, 0.05, order), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mean_var),
		cmocka_unit_test(test_betai),
		cmocka_unit_test(test_t_and_z),
		cmocka_unit_test(test_share_se),
		cmocka_unit_test(test_two_shares),
		cmocka_unit_test(test_welch),
		cmocka_unit_test(test_diff_test),
		cmocka_unit_test(test_adjust),
		cmocka_unit_test(test_tarone),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
