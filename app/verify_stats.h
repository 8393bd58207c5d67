/* Statistics for `throng verify`: sample moments, the normal distribution, the one-sample
 * Kolmogorov-Smirnov test and Weidmann's speed-density relation. Pure functions of their
 * arguments, so the same inputs give the same figures on every machine. */
#ifndef TH_APP_VERIFY_STATS_H
#define TH_APP_VERIFY_STATS_H

#include <stddef.h>

/** Mean of x[0..n); NaN for n = 0. */
double th_vs_mean(const double *x, size_t n);

/** Sample standard deviation (divisor n - 1) of x[0..n); NaN for n < 2. */
double th_vs_sd(const double *x, size_t n);

/** Cumulative distribution function of the normal distribution N(mu, sigma^2) at x. */
double th_vs_normal_cdf(double x, double mu, double sigma);

/** Cumulative distribution function of the uniform distribution on [a, b] at x. */
double th_vs_uniform_cdf(double x, double a, double b);

/** The Kolmogorov-Smirnov statistic D = sup |F_n(x) - F(x)| of the sample x[0..n) against the
 *  continuous distribution `cdf` (with parameters p0, p1). Sorts x in place. NaN for n = 0. */
double th_vs_ks_statistic(double *x, size_t n, double (*cdf)(double, double, double), double p0,
                          double p1);

/** Kolmogorov's survival function Q(lambda) = 2 sum_{k>=1} (-1)^(k-1) exp(-2 k^2 lambda^2):
 *  the probability that sqrt(n) D exceeds lambda for large n. */
double th_vs_kolmogorov_q(double lambda);

/** p-value of a one-sample KS statistic D over n values: Q((sqrt(n) + 0.12 + 0.11 / sqrt(n)) D),
 *  the approximation of Stephens (1970), as given in Press et al., Numerical Recipes, 14.3. */
double th_vs_ks_pvalue(double d, size_t n);

/** The upper tail of the binomial distribution: P(X >= k) for X ~ B(n, p), summed term by term
 *  from log-gamma (exact to rounding for the n of a verification test). 1 for k = 0. */
double th_vs_binomial_upper(unsigned k, unsigned n, double p);

/** Weidmann (1993): walking speed at density rho persons/m^2,
 *  1.34 (1 - exp(-1.913 (1/rho - 1/5.4))) m/s; 0 at and above 5.4, 1.34 at 0. */
double th_vs_weidmann_speed(double rho);

#endif
