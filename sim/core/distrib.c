/* Per-agent draws from a distribution: sim/core/distrib.h says how. */
#include "sim/core/distrib.h"

#include <math.h>

#include "sim/core/error.h"

#define SQRT2    1.41421356237309504880
#define SQRT2PI  2.50662827463100050242
#define MAX_TIME 1.0e7 /* seconds: parameters and bounds beyond this are refused */

static double phi_cdf(double z) { return 0.5 * erfc(-z / SQRT2); }

/* The standard normal quantile: P. J. Acklam's rational approximation (relative error below
 * 1.2e-9), refined by one step of Halley's method on erfc to full double precision. */
static double phi_inv(double p) {
    static const double a[6] = {-3.969683028665376e+01, 2.209460984245205e+02,
                                -2.759285104469687e+02, 1.383577518672690e+02,
                                -3.066479806614716e+01, 2.506628277459239e+00};
    static const double b[5] = {-5.447609879822406e+01, 1.615858368580409e+02,
                                -1.556989798598866e+02, 6.680131188771972e+01,
                                -1.328068155288572e+01};
    static const double c[6] = {-7.784894002430293e-03, -3.223964580411365e-01,
                                -2.400758277161838e+00, -2.549732539343734e+00,
                                4.374664141464968e+00,  2.938163982698783e+00};
    static const double d[4] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                                3.754408661907416e+00};
    const double lo = 0.02425, hi = 1.0 - lo;
    if (p <= 0.0) return -INFINITY;
    if (p >= 1.0) return INFINITY;
    double x;
    if (p < lo) {
        const double q = sqrt(-2.0 * log(p));
        x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
    } else if (p <= hi) {
        const double q = p - 0.5, r = q * q;
        x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
            (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
    } else {
        const double q = sqrt(-2.0 * log1p(-p));
        x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
    }
    const double e = phi_cdf(x) - p;
    const double u = e * SQRT2PI * exp(0.5 * x * x);
    return x - u / (1.0 + 0.5 * x * u);
}

/* The regularized lower incomplete gamma function P(s, x): its series below x = s + 1, and
 * one minus the continued fraction of Q (modified Lentz) above. */
static double gamma_p(double s, double x) {
    if (!(x > 0.0)) return 0.0;
    if (isinf(x)) return 1.0;
    const double front = exp(-x + s * log(x) - lgamma(s));
    if (x < s + 1.0) {
        double ap = s, del = 1.0 / s, sum = del;
        for (int i = 0; i < 1000; i++) {
            ap += 1.0;
            del *= x / ap;
            sum += del;
            if (fabs(del) < fabs(sum) * 1e-16) break;
        }
        return fmin(1.0, sum * front);
    }
    const double tiny = 1e-300;
    double bb = x + 1.0 - s, cc = 1.0 / tiny, dd = 1.0 / bb, h = dd;
    for (int i = 1; i < 1000; i++) {
        const double an = -i * (i - s);
        bb += 2.0;
        dd = an * dd + bb;
        if (fabs(dd) < tiny) dd = tiny;
        cc = bb + an / cc;
        if (fabs(cc) < tiny) cc = tiny;
        dd = 1.0 / dd;
        const double del = dd * cc;
        h *= del;
        if (fabs(del - 1.0) < 1e-16) break;
    }
    return fmax(0.0, 1.0 - front * h);
}

/* x with P(s, x) = p: Newton steps on P, kept inside a bracket that bisection shrinks when a
 * step leaves it. */
static double gamma_p_inv(double s, double p) {
    if (p <= 0.0) return 0.0;
    double lo = 0.0, hi = s + 1.0;
    while (gamma_p(s, hi) < p && hi < 1e300) {
        lo = hi;
        hi *= 2.0;
    }
    double x = 0.5 * (lo + hi);
    const double lg = lgamma(s);
    for (int i = 0; i < 200; i++) {
        const double f = gamma_p(s, x) - p;
        if (f < 0.0) lo = x;
        else hi = x;
        if (fabs(f) < 1e-15 || hi - lo <= 1e-15 * hi) break;
        const double dens = exp((s - 1.0) * log(x) - x - lg);
        double next = dens > 0.0 ? x - f / dens : 0.5 * (lo + hi);
        if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
        x = next;
    }
    return x;
}

/* ---- walking speed by age (TH_DISTRIB_AGE) -------------------------------------------------
 * RiMEA's table after Weidmann (1993): at each tabulated age the free walking speed is uniform
 * between two bounds, linear in age between the ages. An age uniform on [a, b] gives the speed
 * the mixture F(v) = 1/(b - a) * integral over t in [a, b] of G(v; lo(t), hi(t)) dt, with G the
 * uniform CDF. Within one table interval lo and hi are linear in t, and G is 0, 1 or
 * (v - lo(t)) / (hi(t) - lo(t)), smooth between the ages where v crosses lo or hi: the integral
 * is summed over those pieces by Gauss-Legendre quadrature on each (exact for the 0s and 1s,
 * to about 1e-10 for the ratio). */
static const double k_age[6] = {20, 30, 40, 50, 60, 70};
static const double k_age_lo[6] = {1.60, 1.52, 1.46, 1.39, 1.27, 1.07};
static const double k_age_hi[6] = {1.64, 1.56, 1.50, 1.43, 1.27, 1.07};

static void age_bounds(double t, double *lo, double *hi) {
    int i = 0;
    while (i < 4 && t > k_age[i + 1]) i++;
    const double f = (t - k_age[i]) / (k_age[i + 1] - k_age[i]);
    *lo = k_age_lo[i] + f * (k_age_lo[i + 1] - k_age_lo[i]);
    *hi = k_age_hi[i] + f * (k_age_hi[i + 1] - k_age_hi[i]);
}

static double age_g(double v, double t) {
    double lo, hi;
    age_bounds(t, &lo, &hi);
    if (v < lo) return 0.0;
    if (v >= hi) return 1.0;
    return (v - lo) / (hi - lo);
}

/* The integral over [t0, t1], where age_g(v, .) is smooth inside (it may jump at the ends, where
 * lo = hi): Gauss-Legendre with 4 nodes on each of 4 parts, which never evaluates an end. */
static double age_piece(double v, double t0, double t1) {
    static const double x[4] = {-0.8611363115940526, -0.3399810435848563, 0.3399810435848563,
                                0.8611363115940526};
    static const double wt[4] = {0.3478548451374538, 0.6521451548625461, 0.6521451548625461,
                                 0.3478548451374538};
    enum { PARTS = 4 };
    const double h = (t1 - t0) / PARTS;
    double sum = 0.0;
    for (int p = 0; p < PARTS; p++) {
        const double mid = t0 + (p + 0.5) * h;
        for (int k = 0; k < 4; k++) sum += wt[k] * age_g(v, mid + 0.5 * h * x[k]);
    }
    return sum * 0.5 * h;
}

static double age_cdf(double a, double b, double v) {
    if (!(b > a)) return age_g(v, a);
    double total = 0.0;
    for (int i = 0; i < 5; i++) {
        const double s0 = fmax(a, k_age[i]), s1 = fmin(b, k_age[i + 1]);
        if (!(s1 > s0)) continue;
        /* The ages in [s0, s1] where v = lo(t) or v = hi(t) (both linear there). */
        double cut[4] = {s0, s1, s0, s0};
        int n = 2;
        const double span = k_age[i + 1] - k_age[i];
        const double dlo = (k_age_lo[i + 1] - k_age_lo[i]) / span;
        const double dhi = (k_age_hi[i + 1] - k_age_hi[i]) / span;
        if (dlo != 0.0) {
            const double t = k_age[i] + (v - k_age_lo[i]) / dlo;
            if (t > s0 && t < s1) cut[n++] = t;
        }
        if (dhi != 0.0) {
            const double t = k_age[i] + (v - k_age_hi[i]) / dhi;
            if (t > s0 && t < s1) cut[n++] = t;
        }
        for (int x = 1; x < n; x++) /* sort the few cuts */
            for (int y = x; y > 0 && cut[y] < cut[y - 1]; y--) {
                const double tmp = cut[y];
                cut[y] = cut[y - 1];
                cut[y - 1] = tmp;
            }
        for (int k = 0; k + 1 < n; k++) total += age_piece(v, cut[k], cut[k + 1]);
    }
    return total / (b - a);
}

/* Bisection on the CDF: it rises from 0 below 1.07 m/s to 1 at 1.64 m/s. */
static double age_quantile(double a, double b, double p) {
    double lo = 1.07 - 1e-9, hi = 1.64 + 1e-9;
    for (int k = 0; k < 60; k++) {
        const double mid = 0.5 * (lo + hi);
        if (age_cdf(a, b, mid) < p) lo = mid;
        else hi = mid;
    }
    return 0.5 * (lo + hi);
}

static double age_mean(double a, double b) {
    if (!(b > a)) {
        double lo, hi;
        age_bounds(a, &lo, &hi);
        return 0.5 * (lo + hi);
    }
    /* The midpoint is linear in age between table ages: the trapezoid rule is exact. */
    double total = 0.0;
    for (int i = 0; i < 5; i++) {
        const double s0 = fmax(a, k_age[i]), s1 = fmin(b, k_age[i + 1]);
        if (!(s1 > s0)) continue;
        double l0, h0, l1, h1;
        age_bounds(s0, &l0, &h0);
        age_bounds(s1, &l1, &h1);
        total += 0.25 * (l0 + h0 + l1 + h1) * (s1 - s0);
    }
    return total / (b - a);
}

double th_distrib_cdf(const th_distribution *d, double x) {
    const double a = d->a, b = d->b;
    switch (d->kind) {
    case TH_DISTRIB_NONE: return x >= 0.0 ? 1.0 : 0.0;
    case TH_DISTRIB_CONSTANT: return x >= a ? 1.0 : 0.0;
    case TH_DISTRIB_UNIFORM:
        if (b <= a) return x >= a ? 1.0 : 0.0;
        return x <= a ? 0.0 : x >= b ? 1.0 : (x - a) / (b - a);
    case TH_DISTRIB_NORMAL: return phi_cdf((x - a) / b);
    case TH_DISTRIB_LOGNORMAL: return x <= 0.0 ? 0.0 : phi_cdf((log(x) - a) / b);
    case TH_DISTRIB_GAMMA: return gamma_p(a, x / b);
    case TH_DISTRIB_WEIBULL: return x <= 0.0 ? 0.0 : -expm1(-pow(x / b, a));
    case TH_DISTRIB_AGE: return age_cdf(a, b, x);
    }
    return 0.0;
}

static double quantile(const th_distribution *d, double p) {
    const double a = d->a, b = d->b;
    switch (d->kind) {
    case TH_DISTRIB_NONE: return 0.0;
    case TH_DISTRIB_CONSTANT: return a;
    case TH_DISTRIB_UNIFORM: return a + p * (b - a);
    case TH_DISTRIB_NORMAL: return a + b * phi_inv(p);
    case TH_DISTRIB_LOGNORMAL: return exp(a + b * phi_inv(p));
    case TH_DISTRIB_GAMMA: return b * gamma_p_inv(a, p);
    case TH_DISTRIB_WEIBULL: return b * pow(-log1p(-p), 1.0 / a);
    case TH_DISTRIB_AGE: return age_quantile(a, b, p);
    }
    return 0.0;
}

static double upper(const th_distribution *d) { return d->max > 0.0f ? d->max : INFINITY; }

double th_distrib_cdf_truncated(const th_distribution *d, double x) {
    if (x < d->min) return 0.0;
    if (x >= upper(d)) return 1.0;
    const double f0 = th_distrib_cdf(d, d->min), f1 = th_distrib_cdf(d, upper(d));
    if (!(f1 > f0)) return 1.0; /* a point mass */
    return (th_distrib_cdf(d, x) - f0) / (f1 - f0);
}

double th_distrib_draw(const th_distribution *d, double u) {
    if (d->kind == TH_DISTRIB_NONE) return 0.0;
    if (d->kind == TH_DISTRIB_CONSTANT || (d->kind == TH_DISTRIB_UNIFORM && d->b <= d->a))
        return d->a;
    const double lo = d->min, hi = upper(d);
    const double f0 = th_distrib_cdf(d, lo), f1 = th_distrib_cdf(d, hi);
    const double x = quantile(d, f0 + u * (f1 - f0));
    return x < lo ? lo : x > hi ? hi : x;
}

double th_distrib_mean(const th_distribution *d) {
    const double a = d->a, b = d->b;
    switch (d->kind) {
    case TH_DISTRIB_NONE: return 0.0;
    case TH_DISTRIB_CONSTANT: return a;
    case TH_DISTRIB_UNIFORM: return 0.5 * (a + b);
    case TH_DISTRIB_NORMAL: return a;
    case TH_DISTRIB_LOGNORMAL: return exp(a + 0.5 * b * b);
    case TH_DISTRIB_GAMMA: return a * b;
    case TH_DISTRIB_WEIBULL: return b * tgamma(1.0 + 1.0 / a);
    case TH_DISTRIB_AGE: return age_mean(a, b);
    }
    return 0.0;
}

/* "what: " before a message, or nothing for a NULL what. */
#define W(what) (what) ? (what) : "", (what) ? ": " : ""

static bool in_range(double v, double lo, double hi) { return isfinite(v) && v >= lo && v <= hi; }

bool th_distrib_check(const th_distribution *d, const char *what, th_error *err) {
    const double a = d->a, b = d->b;
    const char *bad = NULL;
    switch (d->kind) {
    case TH_DISTRIB_NONE: return true;
    case TH_DISTRIB_CONSTANT:
        if (!in_range(a, 0.0, MAX_TIME)) bad = "the value must be in [0, 1e7]";
        break;
    case TH_DISTRIB_UNIFORM:
        if (!(in_range(a, 0.0, MAX_TIME) && in_range(b, a, MAX_TIME)))
            bad = "uniform [a, b] needs 0 <= a <= b <= 1e7";
        break;
    case TH_DISTRIB_NORMAL:
        if (!(in_range(a, -MAX_TIME, MAX_TIME) && in_range(b, 1e-9, MAX_TIME)))
            bad = "normal needs a finite mean and a standard deviation in (0, 1e7]";
        break;
    case TH_DISTRIB_LOGNORMAL:
        if (!(in_range(a, -50.0, 50.0) && in_range(b, 1e-9, 10.0)))
            bad = "lognormal needs mu (the mean of ln t) in [-50, 50] and sigma in (0, 10]";
        break;
    case TH_DISTRIB_GAMMA:
        if (!(in_range(a, 1e-3, 1e4) && in_range(b, 1e-9, MAX_TIME)))
            bad = "gamma needs a shape in [0.001, 10000] and a scale in (0, 1e7]";
        break;
    case TH_DISTRIB_WEIBULL:
        if (!(in_range(a, 1e-2, 1e3) && in_range(b, 1e-9, MAX_TIME)))
            bad = "weibull needs a shape in [0.01, 1000] and a scale in (0, 1e7]";
        break;
    case TH_DISTRIB_AGE:
        if (!(in_range(a, 20.0, 70.0) && in_range(b, a, 70.0)))
            bad = "age needs ages 20 <= a <= b <= 70 (the table's)";
        break;
    default:
        th_error_set(err, TH_ERR_INVALID, "%s%sunknown distribution kind %d", W(what),
                     (int)d->kind);
        return false;
    }
    if (bad) {
        th_error_set(err, TH_ERR_INVALID, "%s%s%s, got (%g, %g)", W(what), bad, a, b);
        return false;
    }
    if (!in_range(d->min, 0.0, MAX_TIME) ||
        !(d->max == 0.0f || in_range(d->max, d->min, MAX_TIME))) {
        th_error_set(err, TH_ERR_INVALID,
                     "%s%sthe bounds must be 0 <= min <= max <= 1e7 (max 0: none), got min %g, "
                     "max %g",
                     W(what), (double)d->min, (double)d->max);
        return false;
    }
    const double hi = upper(d);
    const bool point = d->kind == TH_DISTRIB_CONSTANT || (d->kind == TH_DISTRIB_UNIFORM && b <= a);
    const bool empty = point ? !(a >= d->min && a <= hi)
                             : !(th_distrib_cdf(d, hi) - th_distrib_cdf(d, d->min) > 1e-12);
    if (empty) {
        th_error_set(err, TH_ERR_INVALID,
                     "%s%sno value of the distribution lies within the bounds [%g, %g]", W(what),
                     (double)d->min, hi);
        return false;
    }
    return true;
}
