/* Judges of `throng verify` over measured figures (app/verify_judge.h). */
#include "verify_judge.h"

#include <math.h>
#include <stdlib.h>

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

bool th_vj_stair_flow_pass(const double *width, const double *flow, int n, double *spread) {
    *spread = NAN;
    if (n < 2) return false;
    double mean = 0.0;
    for (int k = 0; k < n; k++) {
        if (!isfinite(flow[k]) || !(width[k] > 0.0) || (k && !(flow[k] > flow[k - 1])))
            return false;
        mean += flow[k] / width[k] / n;
    }
    *spread = 0.0;
    for (int k = 0; k < n; k++) *spread = fmax(*spread, fabs(flow[k] / width[k] / mean - 1.0));
    return *spread <= TH_VJ_STAIR_SPREAD;
}

bool th_vj_rimea13_pass(const double *up, const double *down, uint32_t common) {
    if (common < TH_VJ_STAIR_BINS) return false;
    for (uint32_t b = 0; b < common; b++)
        if (!(down[b] > up[b])) return false;
    return true;
}

/* RiMEA 16's band: the rows of rimea16_percentile_reference.csv (jupedsim-web-community,
 * scripts/scenarios, MIT; decimal commas read as points) up to 2.6989 persons/m. */
const th_vj_r16_ref th_vj_r16_band[TH_VJ_R16_BINS] = {
    {0.0989, 0.9607, 1.1857, 1.483},  {0.2989, 0.83954, 1.1595, 1.4725},
    {0.4989, 0.7083, 1.091, 1.3887},  {0.6989, 0.5978, 0.9748, 1.3053},
    {0.8989, 0.4475, 0.7472, 1.1008}, {1.0989, 0.3157, 0.5195, 0.8395},
    {1.2989, 0.1872, 0.3925, 0.6077}, {1.4989, 0.112, 0.2733, 0.485},
    {1.6989, 0.0705, 0.1988, 0.3822}, {1.8989, 0.048, 0.1577, 0.314},
    {2.0989, 0.0347, 0.1313, 0.2702}, {2.2989, 0.0267, 0.1138, 0.239},
    {2.4989, 0.022, 0.102, 0.2202},
};

/* The bin of density rho, or -1 outside the bins carried. */
static int r16_bin(double rho) {
    if (!isfinite(rho) || rho < TH_VJ_R16_LO) return -1;
    double b = floor((rho - TH_VJ_R16_LO) / TH_VJ_R16_DX);
    return b < TH_VJ_R16_BINS ? (int)b : -1;
}

static int by_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void th_vj_rimea16_bin(double *rho, double *v, size_t n, th_vj_rimea16 *r) {
    r->outside = 0;
    /* Gather each bin's speeds at the front of v, bin by bin, then take their medians. */
    size_t at = 0;
    for (int b = 0; b < TH_VJ_R16_BINS; b++) {
        size_t first = at;
        for (size_t i = at; i < n; i++) {
            if (r16_bin(rho[i]) != b) continue;
            double tv = v[i], tr = rho[i];
            v[i] = v[at];
            rho[i] = rho[at];
            v[at] = tv;
            rho[at] = tr;
            at++;
        }
        size_t k = at - first;
        r->count[b] = (uint32_t)k;
        if (k == 0) {
            r->median[b] = NAN;
            continue;
        }
        qsort(v + first, k, sizeof *v, by_double);
        r->median[b] = k % 2 ? v[first + k / 2] : 0.5 * (v[first + k / 2 - 1] + v[first + k / 2]);
    }
    r->outside = (uint32_t)(n - at);
}

bool th_vj_rimea16_inside(const th_vj_rimea16 *r, int b) {
    return r->count[b] >= TH_VJ_R16_MIN && r->median[b] >= th_vj_r16_band[b].v10 &&
           r->median[b] <= th_vj_r16_band[b].v90;
}

bool th_vj_rimea16_pass(const th_vj_rimea16 *r, uint32_t *judged, uint32_t *inside) {
    *judged = *inside = 0;
    for (int b = 0; b < TH_VJ_R16_BINS; b++) {
        if (r->count[b] < TH_VJ_R16_MIN) continue;
        ++*judged;
        *inside += th_vj_rimea16_inside(r, b);
    }
    return *judged > 0 && 4 * *inside >= 3 * *judged;
}
