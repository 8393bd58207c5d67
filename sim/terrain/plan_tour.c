/* Tours through reward points (include/throng/plan.h: th_planner_find_tour). The exact cost
 * between every two of the points (start, rewards, goal) comes from one Dijkstra per point on
 * the planner's view, stopped once every later point is settled (moves cost the same both
 * ways, so d(i, j) = d(j, i)). Over those costs, a Held-Karp dynamic programme over subsets
 * (best[set][last]: the cheapest route from the start through exactly `set`, ending at
 * `last`) finds the subset and order minimising route cost minus rewards collected; the legs
 * are then planned by A* and string-pulled. */
#include <math.h>
#include <string.h>

#include "sim/core/world.h"
#include "sim/nav/plan_private.h"
#include "sim/terrain/world_nav_private.h"

#define K    TH_PLAN_MAX_REWARDS
#define NONE UINT8_MAX

/* Route cost in metres of `units`. */
static double metres(const th_planner *p, uint64_t units) {
    return (double)units * (double)p->cell / (double)TH_NAV_UNITS_PER_CELL;
}

static bool check_args(const th_world *w, th_vec2 from, th_vec2 to, const th_plan_reward *rewards,
                       uint32_t n, th_vec2 *out, uint32_t *count, th_error *err) {
    if (!out || !count || (n && !rewards)) {
        th_error_set(err, TH_ERR_INVALID, "planner: no output, no count or no reward points");
        return false;
    }
    if (n > K) {
        th_error_set(err, TH_ERR_LIMIT, "planner: %u reward points, at most %u in one tour", n, K);
        return false;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (!(rewards[i].reward >= 0.0f && rewards[i].reward <= 3.0e38f)) {
            th_error_set(err, TH_ERR_INVALID, "planner: reward point %u is worth %g", i,
                         (double)rewards[i].reward);
            return false;
        }
    }
    if (th_nav_off_world(w, from, err) || th_nav_off_world(w, to, err)) return false;
    for (uint32_t i = 0; i < n; i++) {
        if (th_nav_off_world(w, rewards[i].position, err)) return false;
    }
    return true;
}

/* Pairwise costs: d[i][j] for the points cells[0..np). */
static void costs(th_planner *p, const uint32_t *cells, uint32_t np, uint32_t d[K + 2][K + 2]) {
    for (uint32_t i = 0; i < np; i++) {
        for (uint32_t j = 0; j < np; j++) d[i][j] = i == j ? 0u : TH_NAV_UNREACHABLE;
    }
    for (uint32_t i = 0; i + 1u < np; i++) {
        if (!p->vcost[cells[i]]) continue;
        /* Points in walls are never settled: a search for them would cover everything. */
        uint32_t tg[K + 2], nt = 0;
        for (uint32_t j = i + 1u; j < np; j++) {
            if (p->vcost[cells[j]]) tg[nt++] = cells[j];
        }
        if (!nt) continue;
        th_pg_start(&p->tgrid, &p->view, cells[i], TH_PG_NONE, UINT32_MAX, NULL, 0, p->C, p->cw);
        th_pg_targets(&p->tgrid, tg, nt);
        p->tour_expanded += th_pg_run(&p->tgrid, &p->view, UINT64_MAX);
        for (uint32_t j = i + 1u; j < np; j++) {
            d[i][j] = d[j][i] = th_pg_cost(&p->tgrid, cells[j]);
        }
    }
}

/* Whether (net, points) beats (best, best_points): cheaper, or as cheap with fewer points. */
static bool better(double net, uint32_t points, double best, uint32_t best_points) {
    return net < best || (net == best && points < best_points);
}

/* The best subset and order: the visit order into `seq` (reward indices), its length. d is
 * over 0 = start, 1..n = rewards, n + 1 = goal. */
static uint32_t held_karp(const th_planner *p, const th_plan_reward *rewards, uint32_t n,
                          const uint32_t d[K + 2][K + 2], uint8_t seq[K]) {
    static const double INF = INFINITY;
    double best[1u << K][K];
    uint8_t prev[1u << K][K];
    const uint32_t full = 1u << n, G = n + 1u;
    double gain[1u << K];
    gain[0] = 0.0;
    for (uint32_t s = 1; s < full; s++) {
        uint32_t low = (uint32_t)__builtin_ctz(s);
        gain[s] = gain[s & (s - 1u)] + (double)rewards[low].reward;
    }
    for (uint32_t s = 0; s < full; s++) {
        for (uint32_t j = 0; j < n; j++) best[s][j] = INF, prev[s][j] = NONE;
    }
    for (uint32_t j = 0; j < n; j++) {
        if (d[0][j + 1] != TH_NAV_UNREACHABLE) best[1u << j][j] = metres(p, d[0][j + 1]);
    }
    for (uint32_t s = 1; s < full; s++) {
        for (uint32_t j = 0; j < n; j++) {
            if (!(s & (1u << j)) || best[s][j] == INF) continue;
            for (uint32_t k = 0; k < n; k++) {
                if ((s & (1u << k)) || d[j + 1][k + 1] == TH_NAV_UNREACHABLE) continue;
                double c = best[s][j] + metres(p, d[j + 1][k + 1]);
                uint32_t t = s | (1u << k);
                if (c < best[t][k]) best[t][k] = c, prev[t][k] = (uint8_t)j;
            }
        }
    }
    /* The direct route first: a point is taken only when it pays. */
    double bnet = metres(p, d[0][G]);
    uint32_t bset = 0, bpts = 0, blast = NONE;
    for (uint32_t s = 1; s < full; s++) {
        uint32_t pts = (uint32_t)__builtin_popcount(s);
        for (uint32_t j = 0; j < n; j++) {
            if (best[s][j] == INF || d[j + 1][G] == TH_NAV_UNREACHABLE) continue;
            double v = best[s][j] + metres(p, d[j + 1][G]) - gain[s];
            if (better(v, pts, bnet, bpts)) bnet = v, bset = s, bpts = pts, blast = j;
        }
    }
    uint32_t len = bpts;
    for (uint32_t s = bset, j = blast, i = len; i > 0; i--) {
        seq[i - 1u] = (uint8_t)j;
        uint32_t pj = prev[s][j];
        s &= ~(1u << j);
        j = pj;
    }
    return len;
}

bool th_planner_find_tour(th_planner *p, th_world *w, th_vec2 from, th_vec2 to,
                          const th_plan_reward *rewards, uint32_t n, th_vec2 *out, uint32_t max,
                          uint32_t *count, uint32_t *taken, float *net_cost, th_error *err) {
    if (!p || !w) {
        th_error_set(err, TH_ERR_INVALID, "planner: no planner or no world");
        return false;
    }
    if (!check_args(w, from, to, rewards, n, out, count, err)) return false;
    if (!th_planner_refresh(p, w, err)) return false;
    const th_navmap *m = &p->view;
    uint32_t cells[K + 2];
    cells[0] = th_navmap_cell_of(m, from, NULL, NULL);
    for (uint32_t i = 0; i < n; i++)
        cells[i + 1] = th_navmap_cell_of(m, rewards[i].position, NULL, NULL);
    cells[n + 1] = th_navmap_cell_of(m, to, NULL, NULL);
    uint32_t d[K + 2][K + 2];
    costs(p, cells, n + 2u, d);
    if (d[0][n + 1] == TH_NAV_UNREACHABLE) {
        th_error_set(err, TH_ERR_UNREACHABLE, "planner: no route from cell %u to cell %u", cells[0],
                     cells[n + 1]);
        return false;
    }
    uint8_t seq[K];
    uint32_t len = held_karp(p, rewards, n, (const uint32_t(*)[K + 2]) d, seq);
    /* The legs: start, the points in order, goal. */
    uint32_t stops[K + 2], nstops = 0, mask = 0;
    double gain = 0.0;
    stops[nstops++] = cells[0];
    for (uint32_t i = 0; i < len; i++) {
        stops[nstops++] = cells[seq[i] + 1u];
        mask |= 1u << seq[i];
        gain += (double)rewards[seq[i]].reward;
    }
    stops[nstops++] = cells[n + 1];
    uint32_t total = 0;
    uint64_t units = 0;
    for (uint32_t l = 0; l + 1u < nstops; l++) {
        th_pg_start(&p->tgrid, m, stops[l], stops[l + 1], UINT32_MAX, NULL, 0, p->C, p->cw);
        p->tour_expanded += th_pg_run(&p->tgrid, m, UINT64_MAX);
        units += th_pg_cost(&p->tgrid, stops[l + 1]);
        uint32_t cl = th_pg_path(&p->tgrid, stops[l + 1], p->path, m->ncells);
        uint32_t k = th_nav_string_pull(m, p->path, cl, p->wp);
        /* Each leg after the first starts where the last ended. */
        for (uint32_t i = l ? 1u : 0u; i < k; i++, total++) {
            if (total < max) out[total] = p->wp[i];
        }
    }
    *count = total;
    if (total > max) {
        th_error_set(err, TH_ERR_LIMIT, "planner: the tour has %u waypoints, room for %u", total,
                     max);
        return false;
    }
    if (taken) *taken = mask;
    /* The cost of the path returned: the legs' A* costs (the programme's, as both are exact). */
    if (net_cost) *net_cost = (float)(metres(p, units) - gain);
    return true;
}
