/* Per-agent draws from a distribution (th_distribution in throng.h): pre-movement times.
 *
 * A draw is inverse-transform sampling of the distribution truncated to [min, max]: the
 * uniform u in [0, 1) maps to p = F(min) + u (F(max) - F(min)) and the draw is F^-1(p). That
 * gives the truncated distribution exactly (no pile-up at the bounds, no rejection loop), from
 * one uniform per agent, so a draw is a function of the world's seed and the agent's id alone.
 * The CDFs and their inverses are in double precision: closed forms for the uniform and the
 * Weibull; the normal (and lognormal) through erfc, inverted by Acklam's rational
 * approximation and one Halley step; the gamma through the regularized incomplete gamma
 * function (series and continued fraction), inverted by safeguarded Newton steps; walking
 * speeds by age (a mixture over ages of RiMEA's table) by Gauss-Legendre quadrature between the
 * ages where the integrand bends, inverted by bisection. */
#ifndef TH_DISTRIB_H
#define TH_DISTRIB_H

#include <stdbool.h>

#include "throng/throng.h"

/* Whether d is a distribution the engine can draw from: a known kind, finite parameters in
 * their ranges, 0 <= min, min <= max (max 0 = no upper bound, but for CONSTANT and UNIFORM),
 * and a window [min, max] that holds some probability. False with err naming the parameter,
 * after `what: ` unless `what` is NULL. */
bool th_distrib_check(const th_distribution *d, const char *what, th_error *err);

/* The distribution's CDF at x, untruncated (0 below its support). */
double th_distrib_cdf(const th_distribution *d, double x);

/* The CDF of d truncated to [min, max]. */
double th_distrib_cdf_truncated(const th_distribution *d, double x);

/* The draw for the uniform u in [0, 1), within [min, max]. d must pass th_distrib_check. */
double th_distrib_draw(const th_distribution *d, double u);

/* The mean of d untruncated (for the documentation's examples and tests). */
double th_distrib_mean(const th_distribution *d);

/* A pedestrian crowd's free-speed distribution as drawn: its upper bound at most max_speed. */
static inline th_distribution th_crowd_free_speed(const th_crowd_def *d) {
    th_distribution f = d->free_speed;
    if (f.max == 0.0f || f.max > d->max_speed) f.max = d->max_speed;
    return f;
}

#endif
