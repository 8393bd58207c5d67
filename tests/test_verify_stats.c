/* The statistics behind `throng verify` (app/verify_stats.c), against values worked out by hand
 * and against published tables: the standard normal table, the critical values of the
 * Kolmogorov distribution (Smirnov 1948; Massey 1951, Table 1: sqrt(n) D at 1.22, 1.36 and 1.63
 * for alpha = 0.10, 0.05, 0.01) and Weidmann's curve evaluated by hand. */
#include <check.h>
#include <math.h>
#include <stddef.h>

#include "app/verify_stats.h"
#include "test_util.h"

START_TEST(test_moments) {
    /* 2 4 4 4 5 5 7 9: mean 5, squared deviations sum to 32, so the sample sd is sqrt(32/7). */
    const double x[] = {2, 4, 4, 4, 5, 5, 7, 9};
    ck_assert_double_eq_tol(th_vs_mean(x, 8), 5.0, 1e-12);
    ck_assert_double_eq_tol(th_vs_sd(x, 8), sqrt(32.0 / 7.0), 1e-12);
    ck_assert(isnan(th_vs_mean(x, 0)));
    ck_assert(isnan(th_vs_sd(x, 1)));
}
END_TEST

START_TEST(test_normal_cdf_table) {
    /* Standard normal table: Phi(0) = 0.5, Phi(1) = 0.8413, Phi(1.96) = 0.9750, Phi(-1) =
     * 0.1587; a shift and a scale move the same values. */
    ck_assert_double_eq_tol(th_vs_normal_cdf(0, 0, 1), 0.5, 1e-12);
    ck_assert_double_eq_tol(th_vs_normal_cdf(1, 0, 1), 0.8413, 5e-5);
    ck_assert_double_eq_tol(th_vs_normal_cdf(1.96, 0, 1), 0.9750, 5e-5);
    ck_assert_double_eq_tol(th_vs_normal_cdf(-1, 0, 1), 0.1587, 5e-5);
    ck_assert_double_eq_tol(th_vs_normal_cdf(1.4, 1.2, 0.2), 0.8413, 5e-5);
    ck_assert_double_eq_tol(th_vs_uniform_cdf(0.25, 0, 1), 0.25, 1e-12);
    ck_assert_double_eq(th_vs_uniform_cdf(-1, 0, 1), 0.0);
    ck_assert_double_eq(th_vs_uniform_cdf(5, 0, 1), 1.0);
}
END_TEST

START_TEST(test_ks_statistic_by_hand) {
    /* {0.7, 0.1, 0.4} against U(0, 1): sorted 0.1, 0.4, 0.7; the empirical CDF after each is
     * 1/3, 2/3, 1, so the gaps above are 0.2333, 0.2667, 0.3 and below 0.1, 0.0667, 0.0333:
     * D = 0.3 (at the last point). */
    double x[] = {0.7, 0.1, 0.4};
    ck_assert_double_eq_tol(th_vs_ks_statistic(x, 3, th_vs_uniform_cdf, 0, 1), 0.3, 1e-12);
    ck_assert_double_eq(x[0], 0.1); /* sorted in place */
    /* A sample of the quantiles (i - 0.5)/n of U(0,1) is the closest fit: D = 1/(2n). */
    double q[10];
    for (int i = 0; i < 10; i++) q[i] = (i + 0.5) / 10.0;
    ck_assert_double_eq_tol(th_vs_ks_statistic(q, 10, th_vs_uniform_cdf, 0, 1), 0.05, 1e-12);
    /* Everything below the support: D = 1. */
    double low[] = {-3, -2, -1};
    ck_assert_double_eq_tol(th_vs_ks_statistic(low, 3, th_vs_uniform_cdf, 0, 1), 1.0, 1e-12);
}
END_TEST

START_TEST(test_kolmogorov_table) {
    /* Critical values of sqrt(n) D for large n (Massey 1951, Table 1): 1.22 at alpha 0.10,
     * 1.36 at 0.05, 1.63 at 0.01. */
    ck_assert_double_eq_tol(th_vs_kolmogorov_q(1.22), 0.10, 0.003);
    ck_assert_double_eq_tol(th_vs_kolmogorov_q(1.36), 0.05, 0.002);
    ck_assert_double_eq_tol(th_vs_kolmogorov_q(1.63), 0.01, 0.0005);
    ck_assert_double_eq(th_vs_kolmogorov_q(0), 1.0);
    ck_assert(th_vs_kolmogorov_q(3.0) < 1e-7);
    /* Monotone: a larger statistic is never more likely. */
    for (double l = 0.2; l < 3.0; l += 0.05)
        ck_assert(th_vs_kolmogorov_q(l + 0.05) <= th_vs_kolmogorov_q(l));
    /* n = 100: D = 0.134 is about the 5 % point (Massey: 1.36 / sqrt(100) = 0.136). */
    ck_assert_double_eq_tol(th_vs_ks_pvalue(0.134, 100), 0.05, 0.006);
    ck_assert(isnan(th_vs_ks_pvalue(0.1, 0)));
}
END_TEST

START_TEST(test_weidmann) {
    /* 1.34 (1 - exp(-1.913 (1/rho - 1/5.4))): at 1 /m2 1 - exp(-1.5587) = 0.7896, so 1.0581;
     * at 2 /m2 1 - exp(-0.6023) = 0.4524, so 0.6062. */
    ck_assert_double_eq_tol(th_vs_weidmann_speed(1.0), 1.0581, 1e-4);
    ck_assert_double_eq_tol(th_vs_weidmann_speed(2.0), 0.6062, 1e-4);
    ck_assert_double_eq(th_vs_weidmann_speed(5.4), 0.0);
    ck_assert_double_eq(th_vs_weidmann_speed(6.0), 0.0);
    ck_assert_double_eq(th_vs_weidmann_speed(0.0), 1.34);
}
END_TEST

/* Binomial tails by hand: B(6, 1/2): P(X >= 6) = 1/64, P(X >= 5) = 7/64, P(X >= 0) = 1;
 * B(10, 0.3): P(X >= 8) = 45 (0.3^8)(0.7^2) + 10 (0.3^9)(0.7) + 0.3^10 = 0.0015904. */
START_TEST(test_binomial_tail_by_hand) {
    ck_assert_double_eq_tol(th_vs_binomial_upper(6, 6, 0.5), 1.0 / 64, 1e-12);
    ck_assert_double_eq_tol(th_vs_binomial_upper(5, 6, 0.5), 7.0 / 64, 1e-12);
    ck_assert_double_eq_tol(th_vs_binomial_upper(0, 6, 0.5), 1.0, 1e-12);
    ck_assert_double_eq_tol(th_vs_binomial_upper(7, 6, 0.5), 0.0, 1e-12);
    ck_assert_double_eq_tol(th_vs_binomial_upper(8, 10, 0.3), 0.0015904, 1e-7);
    ck_assert_double_eq_tol(th_vs_binomial_upper(1, 10, 0.3), 1.0 - pow(0.7, 10), 1e-12);
}
END_TEST

static Suite *verify_stats_suite(void) {
    Suite *s = suite_create("verify_stats");
    TCase *tc = tcase_create("stats");
    tcase_add_test(tc, test_moments);
    tcase_add_test(tc, test_normal_cdf_table);
    tcase_add_test(tc, test_ks_statistic_by_hand);
    tcase_add_test(tc, test_kolmogorov_table);
    tcase_add_test(tc, test_weidmann);
    tcase_add_test(tc, test_binomial_tail_by_hand);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return th_test_run(verify_stats_suite()); }
