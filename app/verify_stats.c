#include "verify_stats.h"

#include <math.h>
#include <stdlib.h>

double th_vs_mean(const double *x, size_t n) {
    if (n == 0) return NAN;
    double s = 0.0;
    for (size_t i = 0; i < n; i++) s += x[i];
    return s / (double)n;
}

double th_vs_sd(const double *x, size_t n) {
    if (n < 2) return NAN;
    double m = th_vs_mean(x, n), s = 0.0;
    for (size_t i = 0; i < n; i++) s += (x[i] - m) * (x[i] - m);
    return sqrt(s / (double)(n - 1));
}

double th_vs_normal_cdf(double x, double mu, double sigma) {
    return 0.5 * erfc(-(x - mu) / (sigma * sqrt(2.0)));
}

double th_vs_uniform_cdf(double x, double a, double b) {
    if (x <= a) return 0.0;
    if (x >= b) return 1.0;
    return (x - a) / (b - a);
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double th_vs_ks_statistic(double *x, size_t n, double (*cdf)(double, double, double), double p0,
                          double p1) {
    if (n == 0) return NAN;
    qsort(x, n, sizeof *x, by_value);
    double d = 0.0;
    for (size_t i = 0; i < n; i++) {
        double f = cdf(x[i], p0, p1);
        /* The empirical CDF jumps from i/n to (i+1)/n at x[i]. */
        double above = (double)(i + 1) / (double)n - f, below = f - (double)i / (double)n;
        if (above > d) d = above;
        if (below > d) d = below;
    }
    return d;
}

double th_vs_kolmogorov_q(double lambda) {
    if (lambda < 1e-3) return 1.0;
    double sum = 0.0, sign = 1.0;
    for (int k = 1; k <= 100; k++) {
        double term = sign * exp(-2.0 * k * k * lambda * lambda);
        sum += term;
        if (fabs(term) < 1e-12 * fabs(sum)) break;
        sign = -sign;
    }
    double q = 2.0 * sum;
    return q < 0.0 ? 0.0 : (q > 1.0 ? 1.0 : q);
}

double th_vs_ks_pvalue(double d, size_t n) {
    if (n == 0 || !(d >= 0.0)) return NAN;
    double rn = sqrt((double)n);
    return th_vs_kolmogorov_q((rn + 0.12 + 0.11 / rn) * d);
}

double th_vs_weidmann_speed(double rho) {
    if (rho <= 0.0) return 1.34;
    if (rho >= 5.4) return 0.0;
    return 1.34 * (1.0 - exp(-1.913 * (1.0 / rho - 1.0 / 5.4)));
}

double th_vs_binomial_upper(unsigned k, unsigned n, double p) {
    if (k == 0) return 1.0;
    if (k > n) return 0.0;
    if (p <= 0.0) return 0.0;
    if (p >= 1.0) return 1.0;
    double sum = 0.0;
    for (unsigned i = k; i <= n; i++) {
        sum += exp(lgamma(n + 1.0) - lgamma(i + 1.0) - lgamma(n - i + 1.0) + i * log(p) +
                   (n - i) * log1p(-p));
    }
    return sum > 1.0 ? 1.0 : sum;
}
