/* The planner's rewards, anytime answers and trouble memory (include/throng/plan.h) against
 * independent references: tours against a brute force over every subset and order of the
 * reward points on plain Dijkstra costs (tests/ref_dijkstra.c); anytime requests improved to
 * the plain Dijkstra optimum, never getting dearer, within the budget th_planner_update is
 * given; trouble raising route costs exactly as a dearer cell does on the reference, halving
 * with each half-life and forgotten in the end; the world's stalled agents read as trouble;
 * the same answers at 1, 2, 3 and 8 threads; nothing allocated once the planner exists; ties
 * between tours going to fewer points; answers that exactly fill the room given accepted, one
 * less refused. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/alloc.h"
#include "engine/rng.h"
#include "throng/plan.h"
#include "tests/ref_dijkstra.h"
#include "test_util.h"

static th_error err;

/* A world of w x h one-metre cells: `wall_pct` % of cells walls (single cells or bars of up
 * to four), a fifth of the rest costing 2..5. */
static th_world *random_world(uint32_t threads, uint64_t seed, int32_t w, int32_t h,
                              uint32_t wall_pct) {
    th_world_def wd = th_default_world_def();
    wd.width = (float)w;
    wd.height = (float)h;
    wd.cell_size = 1.0f;
    wd.threads = threads;
    wd.timestep = 0.25f;
    th_world *wo = th_world_create(&wd, &err);
    ck_assert_msg(wo != NULL, "%s", err.message);
    uint64_t ctr = 0;
    for (int32_t y = 0; y < h; y++) {
        for (int32_t x = 0; x < w; x++) {
            uint32_t r = th_test_rnd(seed, 1, &ctr, 100);
            if (r < wall_pct) {
                int32_t len = 1 + (int32_t)th_test_rnd(seed, 2, &ctr, 4);
                bool across = th_test_rnd(seed, 3, &ctr, 2);
                for (int32_t i = 0; i < len; i++) {
                    int32_t bx = across ? x + i : x, by = across ? y : y + i;
                    if (bx < w && by < h) th_world_set_cell(wo, bx, by, TH_CELL_WALL, 0, NULL);
                }
            } else if (r < wall_pct + 20 && th_world_cell(wo, x, y, NULL) == TH_CELL_OPEN) {
                ck_assert(th_world_set_cell(wo, x, y, TH_CELL_OPEN, 2 + r % 4, &err));
            }
        }
    }
    return wo;
}

/* The world's map as the reference reads it: the cost of each cell, 0 for a wall. */
static uint16_t *read_map(const th_world *wo, int32_t *w, int32_t *h) {
    float cell;
    ck_assert(th_world_map_size(wo, w, h, &cell));
    uint16_t *c = malloc(sizeof *c * (size_t)(*w * *h));
    for (int32_t y = 0; y < *h; y++) {
        for (int32_t x = 0; x < *w; x++) {
            uint32_t k = 0;
            th_cell_kind kind = th_world_cell(wo, x, y, &k);
            c[y * *w + x] = kind == TH_CELL_WALL ? 0 : (uint16_t)k;
        }
    }
    return c;
}

/* A random open cell's centre. */
static th_vec2 open_point(const uint16_t *map, int32_t w, int32_t h, uint64_t seed, uint64_t *ctr) {
    for (;;) {
        int32_t x = (int32_t)th_test_rnd(seed, 7, ctr, (uint32_t)w),
                y = (int32_t)th_test_rnd(seed, 7, ctr, (uint32_t)h);
        if (map[y * w + x]) return th_v2((float)x + 0.5f, (float)y + 0.5f);
    }
}

/* Plain Dijkstra distances (units) from the cell of `p` to every cell. */
static uint64_t *ref_from(const uint16_t *map, int32_t w, int32_t h, th_vec2 p) {
    uint64_t *d = malloc(sizeof *d * (size_t)(w * h));
    th_ref_goal g = {(int)p.x, (int)p.y, 0};
    ck_assert_int_eq(th_ref_dijkstra(w, h, map, &g, 1, d), 0);
    return d;
}

static int cell_of(th_vec2 p, int32_t w) { return (int)p.y * w + (int)p.x; }

/* Metres of a reference distance on one-metre cells. */
static double ref_m(uint64_t units) { return (double)units / 140.0; }

/* ---- tours ------------------------------------------------------------------------------ */

typedef struct brute {
    int n;
    double d[10][10]; /* metres, INFINITY when no route; 0 start, 1..n points, n + 1 goal */
    double reward[8];
    double best;
    int used[8];
} brute;

/* Every order of every subset: the best net cost of routes from `at` with `cost` so far. */
static void brute_go(brute *b, int at, double cost) {
    double v = cost + b->d[at][b->n + 1];
    if (v < b->best) b->best = v;
    for (int i = 0; i < b->n; i++) {
        if (b->used[i] || !isfinite(b->d[at][i + 1])) continue;
        b->used[i] = 1;
        brute_go(b, i + 1, cost + b->d[at][i + 1] - b->reward[i]);
        b->used[i] = 0;
    }
}

/* The best net cost of routes through exactly the points of `mask`, in any order. */
static double brute_mask(brute *b, int at, double cost, unsigned mask) {
    double best = INFINITY;
    bool last = true;
    for (int i = 0; i < b->n; i++) {
        if (!(mask & (1u << i)) || b->used[i]) continue;
        last = false;
        if (!isfinite(b->d[at][i + 1])) continue;
        b->used[i] = 1;
        double v = brute_mask(b, i + 1, cost + b->d[at][i + 1] - b->reward[i], mask);
        b->used[i] = 0;
        if (v < best) best = v;
    }
    return last ? cost + b->d[at][b->n + 1] : best;
}

START_TEST(test_tour_against_brute_force) {
    double max_rel = 0.0;
    uint32_t taken_total = 0, points_total = 0;
    for (int trial = 0; trial < 36; trial++) {
        uint64_t seed = 4000u + (uint64_t)trial, ctr = 0;
        th_world *wo = random_world(1, seed, 64, 48, 10);
        int32_t w, h;
        uint16_t *map = read_map(wo, &w, &h);
        th_plan_def def = th_default_plan_def();
        def.cluster_size = 8;
        th_planner *p = th_planner_create(wo, &def, &err);
        ck_assert_msg(p != NULL, "%s", err.message);
        brute b;
        memset(&b, 0, sizeof b);
        b.n = trial % 9; /* 0..8 points */
        th_vec2 pt[10];
        th_plan_reward rw[8];
        pt[0] = open_point(map, w, h, seed, &ctr);
        for (int i = 0; i < b.n; i++) {
            /* Now and then a point in a wall (never taken) or worth nothing. */
            if (th_test_rnd(seed, 8, &ctr, 10) == 0) {
                int x = (int)th_test_rnd(seed, 9, &ctr, (uint32_t)w),
                    y = (int)th_test_rnd(seed, 9, &ctr, (uint32_t)h);
                pt[i + 1] = th_v2((float)x + 0.5f, (float)y + 0.5f);
            } else {
                pt[i + 1] = open_point(map, w, h, seed, &ctr);
            }
            b.reward[i] = th_test_rnd(seed, 10, &ctr, 8) == 0
                              ? 0.0
                              : (double)th_test_rnd(seed, 11, &ctr, 400) / 10.0;
            rw[i].position = pt[i + 1];
            rw[i].reward = (float)b.reward[i];
        }
        pt[b.n + 1] = open_point(map, w, h, seed, &ctr);
        for (int i = 0; i < b.n + 2; i++) {
            uint64_t *d = ref_from(map, w, h, pt[i]);
            for (int j = 0; j < b.n + 2; j++) {
                uint64_t u = map[cell_of(pt[i], w)] ? d[cell_of(pt[j], w)] : TH_REF_INF;
                b.d[i][j] = u == TH_REF_INF ? INFINITY : ref_m(u);
            }
            free(d);
        }
        b.best = INFINITY;
        brute_go(&b, 0, 0.0);
        th_vec2 out[512];
        uint32_t n = 0, taken = 0;
        float net = 0.0f;
        bool ok = th_planner_find_tour(p, wo, pt[0], pt[b.n + 1], rw, (uint32_t)b.n, out, 512, &n,
                                       &taken, &net, &err);
        if (!isfinite(b.d[0][b.n + 1])) {
            ck_assert(!ok);
            ck_assert_int_eq(err.code, TH_ERR_UNREACHABLE);
        } else {
            ck_assert_msg(ok, "%s", err.message);
            double tol = 1e-3 * (1.0 + fabs(b.best));
            ck_assert_msg(fabs((double)net - b.best) <= tol, "trial %d: net %.4f, brute force %.4f",
                          trial, (double)net, b.best);
            /* The points it took, in its best order, give the optimum too. */
            ck_assert(fabs(brute_mask(&b, 0, 0.0, taken) - b.best) <= tol);
            max_rel = fmax(max_rel, fabs((double)net - b.best) / (1.0 + fabs(b.best)));
            ck_assert_uint_ge(n, 1);
            ck_assert(out[0].x == pt[0].x && out[0].y == pt[0].y);
            ck_assert(out[n - 1].x == pt[b.n + 1].x && out[n - 1].y == pt[b.n + 1].y);
            for (int i = 0; i < b.n; i++) {
                if (!(taken & (1u << i))) continue;
                ck_assert(b.reward[i] > 0.0 && isfinite(b.d[0][i + 1]));
                bool seen = false;
                for (uint32_t k = 0; k < n; k++)
                    seen |= out[k].x == pt[i + 1].x && out[k].y == pt[i + 1].y;
                ck_assert_msg(seen, "trial %d: point %d taken but not on the waypoints", trial, i);
                taken_total++;
            }
            points_total += (uint32_t)b.n;
            /* Room for one waypoint fewer: refused, with the number needed. */
            uint32_t need = 0;
            ck_assert(!th_planner_find_tour(p, wo, pt[0], pt[b.n + 1], rw, (uint32_t)b.n, out,
                                            n - 1, &need, NULL, NULL, &err));
            ck_assert_int_eq(err.code, TH_ERR_LIMIT);
            ck_assert_uint_eq(need, n);
        }
        free(map);
        th_planner_destroy(p);
        th_world_destroy(wo);
    }
    printf("tours: %u of %u reward points taken; largest net cost difference from the brute "
           "force %.2g (relative)\n",
           taken_total, points_total, max_rel);
    ck_assert_uint_gt(taken_total, 0);
    ck_assert_uint_lt(taken_total, points_total);
}
END_TEST

/* Ties go to fewer points: on an open map of one-metre cells a reward point on the straight way
 * from start to goal costs no detour (route costs in whole metres here, so the sums are exact),
 * so with a reward of 0 visiting it nets exactly the direct route's cost and it is left out;
 * worth 0.5 m it is taken, and a second point on the way worth 0 is still left out. */
START_TEST(test_tour_ties_go_to_fewer_points) {
    th_world *wo = th_test_metre_world(1, 3, 24, 6);
    th_planner *p = th_planner_create(wo, NULL, &err);
    ck_assert_msg(p != NULL, "%s", err.message);
    const th_vec2 a = th_v2(1.5f, 2.5f), b = th_v2(20.5f, 2.5f);
    th_plan_reward rw[2] = {{th_v2(8.5f, 2.5f), 0.0f}, {th_v2(14.5f, 2.5f), 0.0f}};
    th_vec2 out[64];
    uint32_t n = 0, taken = 99;
    float net = 0.0f;
    ck_assert_msg(th_planner_find_tour(p, wo, a, b, rw, 2, out, 64, &n, &taken, &net, &err), "%s",
                  err.message);
    ck_assert_msg(taken == 0, "points %#x taken for nothing", taken);
    ck_assert_uint_eq(n, 2); /* start and goal */
    ck_assert_float_eq_tol(net, 19.0f, 1e-4f);
    rw[1].reward = 0.5f;
    ck_assert_msg(th_planner_find_tour(p, wo, a, b, rw, 2, out, 64, &n, &taken, &net, &err), "%s",
                  err.message);
    ck_assert_msg(taken == 2u, "points %#x taken, only the second pays", taken);
    ck_assert_uint_eq(n, 3);
    ck_assert_float_eq_tol(net, 18.5f, 1e-4f);
    th_planner_destroy(p);
    th_world_destroy(wo);
}
END_TEST

/* Room for exactly the waypoints of an answer is enough, one less is not (TH_ERR_LIMIT, nothing
 * written; the number needed still told): for th_planner_find_path, th_planner_result,
 * th_planner_find_tour, and a planner whose max_waypoints is exactly a request's (done) or one
 * less (too long). A wall across most of the map makes the path turn. */
START_TEST(test_answers_that_exactly_fill_the_room) {
    th_world *wo = th_test_metre_world(1, 3, 20, 12);
    for (int32_t y = 0; y < 9; y++) ck_assert(th_world_set_cell(wo, 10, y, TH_CELL_WALL, 0, NULL));
    const th_vec2 a = th_v2(2.5f, 2.5f), b = th_v2(17.5f, 2.5f);
    th_planner *p = th_planner_create(wo, NULL, &err);
    ck_assert_msg(p != NULL, "%s", err.message);
    th_vec2 ref[64], out[64];
    uint32_t n = 0, m = 0;
    ck_assert_msg(th_planner_find_path(p, wo, a, b, ref, 64, &n, NULL, &err), "%s", err.message);
    ck_assert_uint_ge(n, 3);
    const th_vec2 unset = th_v2(-7.0f, -7.0f);
    for (int i = 0; i < 64; i++) out[i] = unset;
    ck_assert_msg(th_planner_find_path(p, wo, a, b, out, n, &m, NULL, &err), "room for %u: %s", n,
                  err.message);
    ck_assert_uint_eq(m, n);
    ck_assert(memcmp(out, ref, n * sizeof *out) == 0);
    err = (th_error){0};
    ck_assert(!th_planner_find_path(p, wo, a, b, out, n - 1u, &m, NULL, &err));
    ck_assert_int_eq(err.code, TH_ERR_LIMIT);
    /* A request answered: its result into exactly its room, then one less. */
    th_plan_id id = th_planner_submit(p, wo, a, b, 0, &err);
    ck_assert_msg(id.index1 != 0, "%s", err.message);
    for (int i = 0; i < 100 && th_planner_result(p, id, NULL, 0, NULL, NULL, NULL) != TH_PLAN_DONE;
         i++)
        th_planner_update(p, wo, 100000, &err);
    for (int i = 0; i < 64; i++) out[i] = unset;
    err = (th_error){0};
    ck_assert_int_eq(th_planner_result(p, id, out, n, &m, NULL, &err), TH_PLAN_DONE);
    ck_assert_msg(err.code == 0, "room for %u: %s", n, err.message);
    ck_assert_uint_eq(m, n);
    ck_assert(memcmp(out, ref, n * sizeof *out) == 0);
    for (int i = 0; i < 64; i++) out[i] = unset;
    ck_assert_int_eq(th_planner_result(p, id, out, n - 1u, &m, NULL, &err), TH_PLAN_DONE);
    ck_assert_int_eq(err.code, TH_ERR_LIMIT);
    ck_assert_uint_eq(m, n);
    ck_assert(out[0].x == unset.x && out[0].y == unset.y); /* nothing written */
    /* A tour without points: the same waypoints. */
    ck_assert_msg(th_planner_find_tour(p, wo, a, b, NULL, 0, out, n, &m, NULL, NULL, &err),
                  "room for %u: %s", n, err.message);
    ck_assert_uint_eq(m, n);
    err = (th_error){0};
    ck_assert(!th_planner_find_tour(p, wo, a, b, NULL, 0, out, n - 1u, &m, NULL, NULL, &err));
    ck_assert_int_eq(err.code, TH_ERR_LIMIT);
    ck_assert_uint_eq(m, n); /* the number needed */
    th_planner_destroy(p);
    /* A planner that keeps exactly as many waypoints as the answer has, then one less. */
    for (uint32_t keep = n; keep + 2u > n; keep--) {
        th_plan_def def = th_default_plan_def();
        def.max_waypoints = keep;
        p = th_planner_create(wo, &def, &err);
        ck_assert_msg(p != NULL, "%s", err.message);
        id = th_planner_submit(p, wo, a, b, 0, &err);
        th_plan_status st = TH_PLAN_WAITING;
        for (int i = 0; i < 100; i++) {
            th_planner_update(p, wo, 100000, &err);
            st = th_planner_result(p, id, NULL, 0, &m, NULL, NULL);
            if (st == TH_PLAN_DONE || st == TH_PLAN_TOO_LONG) break;
        }
        ck_assert_msg(st == (keep == n ? TH_PLAN_DONE : TH_PLAN_TOO_LONG),
                      "max_waypoints %u for %u waypoints: status %d", keep, n, (int)st);
        th_planner_destroy(p);
    }
    th_world_destroy(wo);
}
END_TEST

START_TEST(test_tour_refused) {
    th_world *wo = random_world(1, 9, 32, 24, 0);
    th_planner *p = th_planner_create(wo, NULL, &err);
    ck_assert_ptr_nonnull(p);
    th_plan_reward rw[9];
    for (int i = 0; i < 9; i++) rw[i] = (th_plan_reward){th_v2(3.5f + (float)i, 5.5f), 1.0f};
    th_vec2 out[64];
    uint32_t n;
    const th_vec2 a = th_v2(1.5f, 1.5f), b = th_v2(30.5f, 20.5f);
    ck_assert(!th_planner_find_tour(p, wo, a, b, rw, 9, out, 64, &n, NULL, NULL, &err));
    ck_assert_int_eq(err.code, TH_ERR_LIMIT);
    ck_assert(th_planner_find_tour(p, wo, a, b, rw, 8, out, 64, &n, NULL, NULL, &err));
    rw[2].reward = -1.0f;
    ck_assert(!th_planner_find_tour(p, wo, a, b, rw, 8, out, 64, &n, NULL, NULL, &err));
    ck_assert_int_eq(err.code, TH_ERR_INVALID);
    rw[2].reward = NAN;
    ck_assert(!th_planner_find_tour(p, wo, a, b, rw, 8, out, 64, &n, NULL, NULL, &err));
    ck_assert_int_eq(err.code, TH_ERR_INVALID);
    rw[2] = (th_plan_reward){th_v2(-3.0f, 5.0f), 1.0f};
    ck_assert(!th_planner_find_tour(p, wo, a, b, rw, 8, out, 64, &n, NULL, NULL, &err));
    ck_assert_int_eq(err.code, TH_ERR_BLOCKED);
    th_planner_destroy(p);
    th_world_destroy(wo);
    /* A goal walled in. */
    wo = random_world(1, 9, 32, 24, 0);
    for (int32_t x = 25; x < 32; x++) th_world_set_cell(wo, x, 15, TH_CELL_WALL, 0, NULL);
    for (int32_t y = 15; y < 24; y++) th_world_set_cell(wo, 25, y, TH_CELL_WALL, 0, NULL);
    p = th_planner_create(wo, NULL, &err);
    ck_assert(!th_planner_find_tour(p, wo, a, b, NULL, 0, out, 64, &n, NULL, NULL, &err));
    ck_assert_int_eq(err.code, TH_ERR_UNREACHABLE);
    th_planner_destroy(p);
    th_world_destroy(wo);
}
END_TEST

/* ---- anytime ------------------------------------------------------------------------------ */

#define NREQ 12

typedef struct anytime_run {
    float first[NREQ], final[NREQ];
    float corridor[NREQ]; /* once the corridor search ended */
    uint32_t count[NREQ];
    th_vec2 pts[NREQ][256];
    uint64_t improve_expanded, updates;
} anytime_run;

/* Submit NREQ anytime requests (every third marked once answered) and update with `budget`
 * until nothing is left: every call spends its whole budget while work is left, no answer
 * ever gets dearer, every request ends final. */
static void run_anytime(th_world *wo, const th_vec2 *a, const th_vec2 *b, uint32_t budget,
                        anytime_run *r) {
    th_plan_def def = th_default_plan_def();
    def.cluster_size = 8;
    th_planner *p = th_planner_create(wo, &def, &err);
    ck_assert_ptr_nonnull(p);
    th_plan_id id[NREQ];
    for (int i = 0; i < NREQ; i++) {
        id[i] = th_planner_submit(p, wo, a[i], b[i], 0, &err);
        ck_assert_uint_ne(id[i].index1, 0);
        if (i % 3) ck_assert(th_planner_set_anytime(p, id[i], true, &err));
    }
    float last[NREQ];
    memset(r, 0, sizeof *r);
    for (int i = 0; i < NREQ; i++) last[i] = r->corridor[i] = INFINITY;
    for (;;) {
        uint32_t used = th_planner_update(p, wo, budget, &err);
        r->updates++;
        th_plan_info info = th_planner_info(p);
        ck_assert_uint_le(used, budget);
        if (info.waiting || info.improving) ck_assert_uint_eq(used, budget);
        for (int i = 0; i < NREQ; i++) {
            float c;
            th_plan_status st = th_planner_result(p, id[i], NULL, 0, NULL, &c, &err);
            if (st != TH_PLAN_DONE) continue;
            ck_assert(c <= last[i]);
            last[i] = c;
            th_plan_progress pr;
            ck_assert(th_planner_get_progress(p, id[i], &pr, &err));
            if (pr.iterations == 1 || (pr.iterations == 2 && r->corridor[i] == INFINITY)) {
                r->corridor[i] = c;
            }
            if (i % 3 == 0 && !pr.anytime) {
                /* Marked once answered. */
                ck_assert(th_planner_set_anytime(p, id[i], true, &err));
            }
        }
        if (!info.waiting && !info.improving) {
            /* Nothing left: the requests marked late may have become pending just now. */
            if (!th_planner_info(p).improving) break;
        }
    }
    for (int i = 0; i < NREQ; i++) {
        th_plan_progress pr;
        ck_assert(th_planner_get_progress(p, id[i], &pr, &err));
        ck_assert(pr.anytime && pr.final);
        ck_assert_uint_eq(pr.iterations, 2);
        ck_assert_int_eq(
            th_planner_result(p, id[i], r->pts[i], 256, &r->count[i], &r->final[i], &err),
            TH_PLAN_DONE);
        r->first[i] = pr.first_cost;
        ck_assert(r->final[i] <= r->first[i]);
    }
    r->improve_expanded = th_planner_info(p).improve_expanded;
    /* Used up: a further update spends nothing. */
    ck_assert_uint_eq(th_planner_update(p, wo, budget, &err), 0);
    th_planner_destroy(p);
}

START_TEST(test_anytime_reaches_optimum) {
    th_world *wo = random_world(1, 321, 96, 72, 14);
    int32_t w, h;
    uint16_t *map = read_map(wo, &w, &h);
    th_vec2 a[NREQ], b[NREQ];
    double opt[NREQ];
    uint64_t ctr = 0;
    for (int i = 0; i < NREQ;) {
        a[i] = open_point(map, w, h, 55, &ctr);
        b[i] = open_point(map, w, h, 55, &ctr);
        uint64_t *d = ref_from(map, w, h, a[i]);
        uint64_t u = d[cell_of(b[i], w)];
        free(d);
        if (u == TH_REF_INF || fabsf(a[i].x - b[i].x) + fabsf(a[i].y - b[i].y) < 30.0f) continue;
        opt[i] = ref_m(u);
        i++;
    }
    static anytime_run r1, r2;
    run_anytime(wo, a, b, 40, &r1);
    run_anytime(wo, a, b, 5000, &r2);
    double ratio = 0.0, worst = 1.0, mid = 0.0;
    int improved = 0;
    for (int i = 0; i < NREQ; i++) {
        ck_assert_msg(fabs((double)r1.final[i] - opt[i]) <= 1e-4 * opt[i],
                      "request %d: %.4f, Dijkstra %.4f", i, (double)r1.final[i], opt[i]);
        ck_assert(r1.first[i] >= r1.final[i]);
        ratio += (double)r1.first[i] / opt[i];
        mid += (double)r1.corridor[i] / opt[i];
        worst = fmax(worst, (double)r1.first[i] / opt[i]);
        improved += r1.first[i] > r1.final[i];
        /* The same answers whatever the budget. */
        ck_assert(r1.final[i] == r2.final[i] && r1.first[i] == r2.first[i]);
        ck_assert_uint_eq(r1.count[i], r2.count[i]);
        ck_assert(memcmp(r1.pts[i], r2.pts[i], r1.count[i] * sizeof(th_vec2)) == 0);
    }
    ck_assert_uint_eq(r1.improve_expanded, r2.improve_expanded);
    printf("anytime: first answers %.4f x the optimum on average (worst %.4f), %.4f after the "
           "corridor search; %d of %d improved; %llu cell expansions of improvement in all; %llu "
           "updates of 40\n",
           ratio / NREQ, worst, mid / NREQ, improved, NREQ, (unsigned long long)r1.improve_expanded,
           (unsigned long long)r1.updates);
    ck_assert_int_gt(improved, 0);
    free(map);
    th_world_destroy(wo);
}
END_TEST

START_TEST(test_anytime_off) {
    th_world *wo = random_world(1, 321, 96, 72, 14);
    th_plan_def def = th_default_plan_def();
    def.cluster_size = 8;
    th_planner *p = th_planner_create(wo, &def, &err);
    th_plan_id id = th_planner_submit(p, wo, th_v2(2.5f, 2.5f), th_v2(90.5f, 70.5f), 0, &err);
    th_plan_id plain = th_planner_submit(p, wo, th_v2(2.5f, 2.5f), th_v2(90.5f, 70.5f), 0, &err);
    ck_assert(th_planner_set_anytime(p, id, true, &err));
    while (th_planner_info(p).waiting) (void)th_planner_update(p, wo, 10, &err);
    ck_assert_uint_eq(th_planner_info(p).improving, 1);
    (void)th_planner_update(p, wo, 10, &err);
    /* Stopped part way: not final, nothing more spent. */
    ck_assert(th_planner_set_anytime(p, id, false, &err));
    th_plan_progress pr;
    ck_assert(th_planner_get_progress(p, id, &pr, &err));
    ck_assert(!pr.anytime && !pr.final);
    ck_assert_uint_eq(th_planner_info(p).improving, 0);
    ck_assert_uint_eq(th_planner_update(p, wo, 10, &err), 0);
    /* A plain request keeps its first answer, find_path's. */
    float c1, c2;
    uint32_t n;
    th_vec2 out[256];
    ck_assert_int_eq(th_planner_result(p, plain, NULL, 0, NULL, &c1, &err), TH_PLAN_DONE);
    ck_assert(th_planner_find_path(p, wo, th_v2(2.5f, 2.5f), th_v2(90.5f, 70.5f), out, 256, &n, &c2,
                                   &err));
    ck_assert(c1 == c2);
    ck_assert(th_planner_get_progress(p, plain, &pr, &err));
    ck_assert(!pr.anytime && !pr.final && pr.iterations == 0);
    /* Released while improved: its slot is free, nothing pending. */
    ck_assert(th_planner_set_anytime(p, id, true, &err));
    ck_assert_uint_eq(th_planner_info(p).improving, 1);
    ck_assert(th_planner_release(p, id, &err));
    ck_assert_uint_eq(th_planner_info(p).improving, 0);
    ck_assert(!th_planner_set_anytime(p, id, true, &err));
    ck_assert_int_eq(err.code, TH_ERR_HANDLE);
    th_planner_destroy(p);
    th_world_destroy(wo);
}
END_TEST

/* ---- trouble ------------------------------------------------------------------------------ */

/* 40 x 21 cells; a wall at x = 20 with gaps at y = 10 and (when `two`) y = 16. */
static th_world *gap_world(uint32_t threads, bool two) {
    th_world_def wd = th_default_world_def();
    wd.width = 40.0f;
    wd.height = 21.0f;
    wd.cell_size = 1.0f;
    wd.threads = threads;
    wd.timestep = 0.25f;
    th_world *wo = th_world_create(&wd, &err);
    ck_assert_ptr_nonnull(wo);
    for (int32_t y = 0; y < 21; y++) {
        if (y != 10 && !(two && y == 16)) th_world_set_cell(wo, 20, y, TH_CELL_WALL, 0, NULL);
    }
    return wo;
}

static float tour_cost(th_planner *p, th_world *wo, th_vec2 a, th_vec2 b) {
    th_vec2 out[256];
    uint32_t n;
    float net;
    ck_assert_msg(th_planner_find_tour(p, wo, a, b, NULL, 0, out, 256, &n, NULL, &net, &err), "%s",
                  err.message);
    return net;
}

static void steps(th_world *wo, int n) {
    for (int i = 0; i < n; i++) th_world_step(wo);
}

START_TEST(test_trouble_raises_and_fades) {
    th_world *wo = gap_world(1, false);
    th_plan_def def = th_default_plan_def();
    def.trouble_half_life = 2.0f; /* 8 steps of 0.25 s */
    def.cluster_size = 8;
    th_planner *p = th_planner_create(wo, &def, &err);
    const th_vec2 a = th_v2(5.5f, 10.5f), b = th_v2(34.5f, 10.5f), gap = th_v2(20.5f, 10.5f);
    const float c0 = tour_cost(p, wo, a, b);
    ck_assert_float_eq(c0, 29.0f);
    th_plan_id id = th_planner_submit(p, wo, a, b, 0, &err);
    while (th_planner_info(p).waiting) (void)th_planner_update(p, wo, 100, &err);
    float before;
    ck_assert_int_eq(th_planner_result(p, id, NULL, 0, NULL, &before, &err), TH_PLAN_DONE);
    uint32_t clusters = th_planner_info(p).clusters;
    ck_assert(th_planner_note_trouble(p, wo, gap, 8.0f, &err));
    ck_assert_float_eq(th_planner_get_trouble(p, gap), 8.0f);
    ck_assert_uint_eq(th_planner_info(p).trouble_cells, 1);
    /* Every way crosses the gap straight: its cell costs 1 + 8, so 8 m more. */
    ck_assert_float_eq(tour_cost(p, wo, a, b), c0 + 8.0f);
    uint32_t rebuilt = th_planner_info(p).rebuilt;
    ck_assert_uint_ge(rebuilt, 1);
    ck_assert_uint_lt(rebuilt, clusters);
    float hpa;
    th_vec2 out[256];
    uint32_t n;
    ck_assert(th_planner_find_path(p, wo, a, b, out, 256, &n, &hpa, &err));
    ck_assert(hpa >= c0 + 8.0f);
    /* Answered before: unchanged. */
    float after;
    ck_assert_int_eq(th_planner_result(p, id, NULL, 0, NULL, &after, &err), TH_PLAN_DONE);
    ck_assert(after == before);
    /* One half-life: 4; two: 2; three: 1. */
    const float want[3] = {4.0f, 2.0f, 1.0f};
    for (int k = 0; k < 3; k++) {
        steps(wo, 8);
        ck_assert_float_eq(tour_cost(p, wo, a, b), c0 + want[k]);
        ck_assert_float_eq(th_planner_get_trouble(p, gap), want[k]);
    }
    /* Long after: forgotten. */
    steps(wo, 8 * 8);
    ck_assert_float_eq(tour_cost(p, wo, a, b), c0);
    ck_assert_uint_eq(th_planner_info(p).trouble_cells, 0);
    ck_assert(th_planner_get_trouble(p, gap) == 0.0f);
    /* Refused. */
    ck_assert(!th_planner_note_trouble(p, wo, gap, -1.0f, &err));
    ck_assert_int_eq(err.code, TH_ERR_INVALID);
    ck_assert(!th_planner_note_trouble(p, wo, gap, NAN, &err));
    ck_assert_int_eq(err.code, TH_ERR_INVALID);
    ck_assert(!th_planner_note_trouble(p, wo, th_v2(41.0f, 3.0f), 1.0f, &err));
    ck_assert_int_eq(err.code, TH_ERR_BLOCKED);
    th_plan_def bad = def;
    bad.trouble_half_life = -1.0f;
    ck_assert_ptr_null(th_planner_create(wo, &bad, &err));
    bad = def;
    bad.stall_trouble = NAN;
    ck_assert_ptr_null(th_planner_create(wo, &bad, &err));
    th_planner_destroy(p);
    th_world_destroy(wo);

    /* Taken into the view once a second: meanwhile plans see the trouble as last taken. */
    wo = gap_world(1, false);
    def.trouble_interval = 1.0f; /* 4 steps */
    p = th_planner_create(wo, &def, &err);
    ck_assert(th_planner_note_trouble(p, wo, gap, 8.0f, &err));
    ck_assert_float_eq(tour_cost(p, wo, a, b), c0);
    steps(wo, 3);
    ck_assert_float_eq(tour_cost(p, wo, a, b), c0);
    steps(wo, 1);
    /* 8 faded for half a half-life: 5.66, rounded. */
    ck_assert_float_eq(tour_cost(p, wo, a, b), c0 + 6.0f);
    bad = def;
    bad.trouble_interval = -1.0f;
    ck_assert_ptr_null(th_planner_create(wo, &bad, &err));
    th_planner_destroy(p);
    th_world_destroy(wo);
}
END_TEST

/* Trouble at random cells of a random map: every route cost is the plain Dijkstra cost on the
 * map with those cells dearer by their rounded trouble; the route leaves a gap that got dear. */
START_TEST(test_trouble_against_reference) {
    th_world *wo = gap_world(1, true);
    th_plan_def def = th_default_plan_def();
    def.cluster_size = 8;
    th_planner *p = th_planner_create(wo, &def, &err);
    const th_vec2 a = th_v2(5.5f, 10.5f), b = th_v2(34.5f, 10.5f);
    ck_assert_float_eq(tour_cost(p, wo, a, b), 29.0f);
    ck_assert(th_planner_note_trouble(p, wo, th_v2(20.5f, 10.5f), 40.0f, &err));
    th_vec2 out[256];
    uint32_t n;
    ck_assert(th_planner_find_tour(p, wo, a, b, NULL, 0, out, 256, &n, NULL, NULL, &err));
    bool low = false;
    for (uint32_t i = 0; i + 1 < n; i++) {
        if ((out[i].x < 20.0f) != (out[i + 1].x < 20.0f)) {
            float y = out[i].y +
                      (out[i + 1].y - out[i].y) * (20.5f - out[i].x) / (out[i + 1].x - out[i].x);
            low |= fabsf(y - 16.5f) < 1.0f;
        }
    }
    ck_assert_msg(low, "the route still crosses at the dear gap");
    th_planner_destroy(p);
    th_world_destroy(wo);

    wo = random_world(1, 777, 64, 48, 10);
    int32_t w, h;
    uint16_t *map = read_map(wo, &w, &h);
    p = th_planner_create(wo, &def, &err);
    uint64_t ctr = 0;
    for (int round = 0; round < 6; round++) {
        for (int k = 0; k < 40; k++) {
            th_vec2 q = open_point(map, w, h, 91, &ctr);
            float wt = (float)th_test_rnd(91, 12, &ctr, 60) / 4.0f;
            ck_assert(th_planner_note_trouble(p, wo, q, wt, &err));
        }
        steps(wo, 3);
        (void)th_planner_refresh(p, wo, &err);
        uint16_t *dear = malloc(sizeof *dear * (size_t)(w * h));
        for (int32_t i = 0; i < w * h; i++) {
            float t =
                th_planner_get_trouble(p, th_v2((float)(i % w) + 0.5f, (float)(i / w) + 0.5f));
            uint32_t c = map[i] ? map[i] + (uint32_t)floorf(t + 0.5f) : 0;
            dear[i] = (uint16_t)(c > 1000 ? 1000 : c);
        }
        for (int q = 0; q < 6; q++) {
            th_vec2 s = open_point(map, w, h, 92, &ctr), g = open_point(map, w, h, 92, &ctr);
            uint64_t *d = ref_from(dear, w, h, s);
            uint64_t u = d[cell_of(g, w)];
            free(d);
            float net;
            bool ok = th_planner_find_tour(p, wo, s, g, NULL, 0, out, 256, &n, NULL, &net, &err);
            ck_assert(ok == (u != TH_REF_INF));
            if (ok) ck_assert(fabs((double)net - ref_m(u)) <= 1e-4 * (1.0 + ref_m(u)));
        }
        free(dear);
    }
    free(map);
    th_planner_destroy(p);
    th_world_destroy(wo);
}
END_TEST

/* Wanderers shut in pockets of one cell half a metre wide cannot get anywhere: the world
 * judges them stalled, and with stall_trouble set the planner remembers their cells, the same
 * at any thread count. */
static float stalled_trouble(uint32_t threads, uint32_t *stalled_steps, uint32_t *cells) {
    th_world_def wd = th_default_world_def();
    wd.width = 20.0f;
    wd.height = 10.0f;
    wd.cell_size = 0.5f;
    wd.threads = threads;
    wd.timestep = 0.05f;
    wd.stall_time = 1.0f;
    th_world *wo = th_world_create(&wd, &err);
    ck_assert_ptr_nonnull(wo);
    th_crowd_def cd = th_default_pedestrian_def();
    cd.goal.kind = TH_GOAL_WANDER;
    th_crowd_id crowd = th_world_add_crowd(wo, &cd, &err);
    ck_assert_msg(crowd.index1 != 0, "%s", err.message);
    for (int i = 0; i < 4; i++) {
        int32_t px = 8 + 6 * i, py = 10;
        for (int32_t y = py - 1; y <= py + 1; y++) {
            for (int32_t x = px - 1; x <= px + 1; x++) {
                if (x != px || y != py) th_world_set_cell(wo, x, y, TH_CELL_WALL, 0, NULL);
            }
        }
        th_vec2 at = th_v2(((float)px + 0.5f) * 0.5f, ((float)py + 0.5f) * 0.5f);
        ck_assert_msg(th_world_add_agent(wo, crowd, at, th_v2(0.0f, 0.0f), &err).index1 != 0, "%s",
                      err.message);
    }
    th_plan_def def = th_default_plan_def();
    def.cluster_size = 8;
    def.stall_trouble = 2.0f;
    th_planner *p = th_planner_create(wo, &def, &err);
    *stalled_steps = 0;
    for (int s = 0; s < 80; s++) {
        th_world_step(wo);
        *stalled_steps += th_world_get_stats(wo).stalled > 0;
        ck_assert(th_planner_refresh(p, wo, &err));
    }
    float sum = 0.0f;
    for (int i = 0; i < 4; i++) {
        sum += th_planner_get_trouble(p, th_v2(((float)(8 + 6 * i) + 0.5f) * 0.5f, 5.25f));
    }
    *cells = th_planner_info(p).trouble_cells;
    th_planner_destroy(p);
    th_world_destroy(wo);
    return sum;
}

START_TEST(test_stalled_agents_read) {
    uint32_t steps1, cells1;
    float sum1 = stalled_trouble(1, &steps1, &cells1);
    printf("stalls: %u of 80 steps with stalled agents, %u cells remembered, %.2f in all\n", steps1,
           cells1, (double)sum1);
    ck_assert_uint_gt(steps1, 0);
    ck_assert_uint_eq(cells1, 4);
    /* 2 per second for each of the four over the time they stood stalled, a little faded
     * (half-life 30 s). */
    const double most = 4.0 * 2.0 * steps1 * 0.05;
    ck_assert(sum1 <= most + 1e-3 && sum1 >= 0.9 * most);
    static const uint32_t threads[] = {2, 3, 8};
    for (int t = 0; t < 3; t++) {
        uint32_t steps, cells;
        float sum = stalled_trouble(threads[t], &steps, &cells);
        ck_assert_msg(sum == sum1 && steps == steps1 && cells == cells1, "%u threads differ",
                      threads[t]);
    }
}
END_TEST

/* ---- determinism and memory ------------------------------------------------------------- */

static uint64_t mix(uint64_t hsh, const void *data, size_t n) {
    const unsigned char *c = data;
    for (size_t i = 0; i < n; i++) hsh = (hsh ^ c[i]) * 1099511628211ull;
    return hsh;
}

/* A script of tours, anytime requests, trouble and steps; a hash of every answer. With
 * `count_alloc`, nothing the planner does after creation allocates. */
static uint64_t script(uint32_t threads, bool count_alloc) {
    th_world *wo = random_world(threads, 2024, 80, 60, 12);
    int32_t w, h;
    uint16_t *map = read_map(wo, &w, &h);
    th_plan_def def = th_default_plan_def();
    def.cluster_size = 8;
    th_planner *p = th_planner_create(wo, &def, &err);
    ck_assert_ptr_nonnull(p);
    uint64_t hsh = 1469598103934665603ull, ctr = 0;
    th_vec2 pt[40];
    for (int i = 0; i < 40; i++) pt[i] = open_point(map, w, h, 7, &ctr);
    static th_vec2 out[1024];
    uint64_t allocs = th_alloc_count();
    th_plan_id id[8];
    for (int round = 0; round < 4; round++) {
        for (int i = 0; i < 8; i++) {
            id[i] =
                th_planner_submit(p, wo, pt[(i + round) % 40], pt[(i * 7 + 3) % 40], i % 2, &err);
            ck_assert(th_planner_set_anytime(p, id[i], i % 3 != 0, &err));
        }
        for (int u = 0; u < 30; u++) {
            uint32_t used = th_planner_update(p, wo, 60, &err);
            hsh = mix(hsh, &used, sizeof used);
            if (u % 10 == 5) {
                ck_assert(th_planner_note_trouble(p, wo, pt[(u + round) % 40], 6.0f, &err));
            }
        }
        for (int t = 0; t < 4; t++) {
            th_plan_reward rw[5];
            for (int k = 0; k < 5; k++)
                rw[k] = (th_plan_reward){pt[(t * 5 + k + round) % 40], 8.0f};
            uint32_t n = 0, taken = 0;
            float net = 0.0f;
            bool ok = th_planner_find_tour(p, wo, pt[t], pt[39 - t], rw, 5, out, 1024, &n, &taken,
                                           &net, &err);
            hsh = mix(hsh, &ok, sizeof ok);
            if (ok) {
                hsh = mix(hsh, out, n * sizeof *out);
                hsh = mix(hsh, &taken, sizeof taken);
                hsh = mix(hsh, &net, sizeof net);
            }
        }
        for (int i = 0; i < 8; i++) {
            uint32_t n = 0;
            float c = 0.0f;
            th_plan_status st = th_planner_result(p, id[i], out, 1024, &n, &c, &err);
            th_plan_progress pr;
            ck_assert(th_planner_get_progress(p, id[i], &pr, &err));
            hsh = mix(hsh, &st, sizeof st);
            hsh = mix(hsh, out, n * sizeof *out);
            hsh = mix(hsh, &c, sizeof c);
            hsh = mix(hsh, &pr.iterations, sizeof pr.iterations);
            hsh = mix(hsh, &pr.final, sizeof pr.final);
            ck_assert(th_planner_release(p, id[i], &err));
        }
        if (count_alloc) ck_assert_uint_eq(th_alloc_count(), allocs);
        steps(wo, 2); /* the world's step may allocate; the planner reads its time */
        allocs = th_alloc_count();
    }
    th_plan_info info = th_planner_info(p);
    hsh = mix(hsh, &info.improve_expanded, sizeof info.improve_expanded);
    hsh = mix(hsh, &info.cells_expanded, sizeof info.cells_expanded);
    free(map);
    th_planner_destroy(p);
    th_world_destroy(wo);
    return hsh;
}

START_TEST(test_same_for_any_thread_count) {
    static const uint32_t threads[] = {1, 2, 3, 8};
    uint64_t first = script(threads[0], true);
    for (size_t t = 1; t < sizeof threads / sizeof threads[0]; t++) {
        ck_assert_msg(script(threads[t], false) == first, "%u threads differ", threads[t]);
    }
}
END_TEST

int main(void) {
    Suite *s = suite_create("plan_reward");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, test_tour_against_brute_force);
    tcase_add_test(tc, test_tour_refused);
    tcase_add_test(tc, test_tour_ties_go_to_fewer_points);
    tcase_add_test(tc, test_answers_that_exactly_fill_the_room);
    tcase_add_test(tc, test_anytime_reaches_optimum);
    tcase_add_test(tc, test_anytime_off);
    tcase_add_test(tc, test_trouble_raises_and_fades);
    tcase_add_test(tc, test_trouble_against_reference);
    tcase_add_test(tc, test_stalled_agents_read);
    tcase_add_test(tc, test_same_for_any_thread_count);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
