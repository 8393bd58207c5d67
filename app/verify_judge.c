/* Judges of `throng verify` over measured figures (app/verify_judge.h). */
#include "verify_judge.h"

#include <math.h>

#include "verify_stats.h"

bool th_vj_door_pass(const th_vj_door *d) {
    /* Flow from first to last: a limit enforced exactly gives the limit up to rounding. */
    return d->n > 0 && d->out == d->n && isfinite(d->flow) && d->flow <= d->limit + 1e-9;
}

bool th_vj_rimea12_pass(const th_vj_rimea12 *r) {
    return r->n > 0 && r->out == r->n && r->before > TH_VJ_CONGESTED &&
           r->after <= TH_VJ_CONGESTED && r->exit_front <= TH_VJ_CONGESTED &&
           isfinite(r->j_corridor) && isfinite(r->j_exit) && r->j_exit >= r->j_corridor - 0.05;
}

bool th_vj_congestion_pass(const th_vj_congestion *c) {
    const double mean = 0.5 * (c->j_early + c->j_late);
    return c->n > 0 && c->out == c->n && c->room_exit > TH_VJ_CONGESTED &&
           c->stair_foot > TH_VJ_CONGESTED && isfinite(mean) && mean > 0.0 &&
           fabs(c->j_early - c->j_late) <= 0.2 * mean;
}

bool th_vj_iso13_point(double rho, double v) {
    const double w = th_vs_weidmann_speed(rho);
    return isfinite(v) && fabs(v - w) <= fmax(0.2 * w, 0.1);
}

bool th_vj_impaired_pass(const th_vj_impaired *d) {
    const double expected = fmax(d->t_control, d->walk);
    return isfinite(d->t_slow) && isfinite(d->others_with) && isfinite(d->t_control) &&
           d->t_slow >= d->walk && d->t_slow <= 1.1 * d->walk && d->others_with < d->t_slow &&
           fmax(d->t_slow, d->others_with) > d->t_control &&
           fabs(fmax(d->t_slow, d->others_with) - expected) <= 0.1 * expected;
}

bool th_vj_social_pass(uint32_t to_allocated, uint32_t away, double *p) {
    *p = th_vs_binomial_upper(to_allocated, to_allocated + away, 0.5);
    return to_allocated + away > 0 && *p < 0.05;
}

bool th_vj_affiliation_pass(uint32_t west50, uint32_t east50, uint32_t west80, uint32_t east80,
                            double *p) {
    const uint32_t n50 = west50 + east50, n80 = west80 + east80;
    *p = th_vs_binomial_upper(east80, n80, 0.5);
    const double diff = n50 ? fabs((double)west50 - (double)east50) / n50 : NAN;
    return n50 > 0 && n80 > 0 && diff <= 0.10 && *p < 0.05;
}
