/* Hierarchical path planning (sim/nav/hpa.c): on random maps every path is valid (open cells,
 * legal moves, the cost it reports), costs at least the plain Dijkstra optimum and at most a
 * stated factor more; after string pulling it is within 1 % of A*'s pulled path on average on
 * open maps; unreachable goals are reported; the build is the same for any worker count; a
 * repair after cells change equals a full rebuild. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "engine/alloc.h"
#include "engine/jobs.h"
#include "engine/rng.h"
#include "sim/nav/hpa.h"
#include "sim/nav/nav.h"
#include "throng/plan.h"
#include "tests/ref_dijkstra.h"
#include "test_util.h"

/* Largest grid cost over the optimum this file accepts (before smoothing): a factor, or for
 * short routes an added detour of two cluster sides' diagonal steps at the map's dearest cost.
 * HPA* pays for passing through transition cells: a short route bent through one entrance can
 * cost a good share more (two steps can become six), a long one little (the distribution of
 * the factor, short routes included, is printed). */
#define COST_BOUND      1.5
/* On terrain whose costs span 1..1000 a transition cell may still be dear where the optimum
 * threads between dear cells, so the factor is wider there. */
#define COST_BOUND_DEAR 4.0

/* Random walls (`block_pct` % of cells, as single cells or short bars) and costs. */
static void random_map(th_navmap *m, uint64_t seed, int32_t w, int32_t h, uint32_t block_pct,
                       uint32_t max_cost) {
    uint64_t ctr = 0;
    ck_assert_int_eq(th_navmap_init(m, w, h, 1.0f), TH_NAV_OK);
    th_navmap_defer_moves(m);
    for (int32_t y = 0; y < h; y++) {
        for (int32_t x = 0; x < w; x++) {
            if (th_test_rnd(seed, 2, &ctr, 100) < block_pct) {
                /* A bar of 1..4 cells, across or along. */
                int32_t len = 1 + (int32_t)th_test_rnd(seed, 3, &ctr, 4);
                bool across = th_test_rnd(seed, 3, &ctr, 2);
                for (int32_t i = 0; i < len; i++) {
                    int32_t bx = across ? x + i : x, by = across ? y : y + i;
                    if (bx < w && by < h) th_navmap_set_blocked(m, bx, by, true);
                }
            } else if (max_cost > 1 && th_test_rnd(seed, 4, &ctr, 3) == 0 &&
                       !th_navmap_is_blocked(m, x, y)) {
                th_navmap_set_cost(m, x, y, 1 + th_test_rnd(seed, 5, &ctr, max_cost));
            }
        }
    }
    th_navmap_update_moves(m, NULL);
}

static bool open_cell(const th_navmap *m, int32_t x, int32_t y) {
    return x >= 0 && y >= 0 && x < m->w && y < m->h && m->cost[y * m->w + x] != 0;
}

/* The cost of a cell path checked from the definition alone (not from `moves`): every cell
 * open, each step to one of the 8 neighbours, a diagonal only between two open side cells. */
static uint64_t path_cost(const th_navmap *m, const uint32_t *p, uint32_t n) {
    uint64_t sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        int32_t x = (int32_t)(p[i] % (uint32_t)m->w), y = (int32_t)(p[i] / (uint32_t)m->w);
        CHECK_MSG(open_cell(m, x, y), "cell (%d, %d) is blocked", x, y);
        if (i == 0) continue;
        int32_t px = (int32_t)(p[i - 1] % (uint32_t)m->w),
                py = (int32_t)(p[i - 1] / (uint32_t)m->w);
        int32_t dx = x - px, dy = y - py;
        CHECK_MSG(abs(dx) <= 1 && abs(dy) <= 1 && (dx || dy), "jump (%d,%d)->(%d,%d)", px, py, x,
                  y);
        if (dx && dy) CHECK(open_cell(m, px + dx, py) && open_cell(m, px, py + dy));
        sum += (uint64_t)(m->cost[p[i - 1]] + m->cost[p[i]]) * (dx && dy ? 99u : 70u);
    }
    return sum;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct dist_stats {
    double *v;
    uint32_t n, cap;
} dist_stats;

static void stat_add(dist_stats *s, double v) {
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 256;
        s->v = realloc(s->v, s->cap * sizeof *s->v);
        ck_assert_ptr_nonnull(s->v);
    }
    s->v[s->n++] = v;
}

static double stat_report(dist_stats *s, const char *what) {
    ck_assert_uint_gt(s->n, 0);
    qsort(s->v, s->n, sizeof *s->v, cmp_double);
    double sum = 0;
    for (uint32_t i = 0; i < s->n; i++) sum += s->v[i];
    double mean = sum / s->n;
    printf("%-44s n %5u  mean %.4f  p50 %.4f  p95 %.4f  max %.4f\n", what, s->n, mean,
           s->v[s->n / 2], s->v[(uint32_t)(s->n * 0.95)], s->v[s->n - 1]);
    free(s->v);
    s->v = NULL;
    s->n = s->cap = 0;
    return mean;
}

/* Random queries against the reference Dijkstra from each goal. */
static void check_map(const th_navmap *m, uint32_t cluster, uint64_t seed, int queries,
                      dist_stats *ratio, double bound) {
    th_hpa *h = th_hpa_create(m, cluster, 1);
    ck_assert_ptr_nonnull(h);
    ck_assert_int_eq(th_hpa_build(h, m, NULL), TH_NAV_OK);
    th_hpa_query *q = th_hpa_query_create(h, 64);
    ck_assert_ptr_nonnull(q);
    uint32_t *path = malloc(sizeof *path * m->ncells * 2);
    uint64_t *ref = malloc(sizeof *ref * m->ncells);
    uint64_t ctr = 0;
    for (int k = 0; k < queries; k++) {
        int32_t sx = (int32_t)th_test_rnd(seed, 7, &ctr, (uint32_t)m->w);
        int32_t sy = (int32_t)th_test_rnd(seed, 7, &ctr, (uint32_t)m->h);
        int32_t gx = (int32_t)th_test_rnd(seed, 7, &ctr, (uint32_t)m->w);
        int32_t gy = (int32_t)th_test_rnd(seed, 7, &ctr, (uint32_t)m->h);
        th_ref_goal g = {gx, gy, 0};
        ck_assert_int_eq(th_ref_dijkstra(m->w, m->h, m->cost, &g, 1, ref), 0);
        uint64_t best = ref[(uint32_t)sy * (uint32_t)m->w + (uint32_t)sx];
        uint32_t len = 0, cost = 0;
        int rc = th_hpa_find(q, h, m, sx, sy, gx, gy, path, m->ncells * 2, &len, &cost);
        if (best == TH_REF_INF) {
            ck_assert_int_eq(rc, TH_NAV_ENOPATH);
            continue;
        }
        ck_assert_int_eq(rc, TH_NAV_OK);
        ck_assert_uint_eq(path[0], (uint32_t)sy * (uint32_t)m->w + (uint32_t)sx);
        ck_assert_uint_eq(path[len - 1], (uint32_t)gy * (uint32_t)m->w + (uint32_t)gx);
        uint64_t pc = path_cost(m, path, len);
        ck_assert_uint_eq(pc, cost);
        ck_assert_uint_ge(pc, best);
        /* Short routes: at most a detour of two cluster sides at the dearest cost. */
        uint64_t cmax = 1;
        for (uint32_t c = 0; c < m->ncells; c++) cmax = m->cost[c] > cmax ? m->cost[c] : cmax;
        const uint64_t cl = cluster ? cluster : TH_HPA_DEFAULT_CLUSTER;
        const uint64_t slack = 2u * cl * TH_NAV_STEP_DIAG * 2u * cmax;
        if (best > 0) {
            double r = (double)pc / (double)best;
            ck_assert_msg(r <= bound || pc <= best + slack, "cost %llu against optimum %llu",
                          (unsigned long long)pc, (unsigned long long)best);
            if (ratio) stat_add(ratio, r);
        }
    }
    free(path);
    free(ref);
    th_hpa_query_destroy(q);
    th_hpa_destroy(h);
}

START_TEST(test_paths_valid_and_bounded) {
    static const uint32_t clusters[] = {4, 8, 16};
    static const uint32_t walls[] = {0, 8, 20, 35};
    static const uint32_t costs[] = {1, 9, 1000};
    static const char *const names[] = {"grid cost / optimum, costs 1",
                                        "grid cost / optimum, costs 1..9",
                                        "grid cost / optimum, costs 1..1000"};
    for (int k = 0; k < 3; k++) {
        dist_stats ratio = {0};
        for (uint64_t seed = 0; seed < 24; seed++) {
            th_navmap m;
            int32_t w = 8 + (int32_t)(th_rng_u64(seed, 90, (uint64_t)k) % 90);
            int32_t h = 8 + (int32_t)(th_rng_u64(seed, 91, (uint64_t)k) % 90);
            random_map(&m, 8100 + seed + 100 * (uint64_t)k, w, h, walls[seed % 4], costs[k]);
            check_map(&m, clusters[seed % 3], seed, 12, &ratio,
                      k < 2 ? COST_BOUND : COST_BOUND_DEAR);
            th_navmap_free(&m);
        }
        stat_report(&ratio, names[k]);
    }
}
END_TEST

/* Larger maps with the default cluster size. */
START_TEST(test_paths_large) {
    dist_stats ratio = {0};
    for (uint64_t seed = 0; seed < 4; seed++) {
        th_navmap m;
        random_map(&m, 8200 + seed, 160 + (int32_t)seed * 24, 200, seed % 2 ? 15 : 5,
                   seed < 2 ? 1 : 5);
        check_map(&m, 0, seed, 10, &ratio, COST_BOUND);
        th_navmap_free(&m);
    }
    stat_report(&ratio, "grid cost / optimum, 160-232 x 200 maps");
}
END_TEST

/* Euclidean length of a waypoint list. */
static double polyline(const th_vec2 *p, uint32_t n) {
    double s = 0;
    for (uint32_t i = 1; i < n; i++)
        s += hypot((double)p[i].x - p[i - 1].x, (double)p[i].y - p[i - 1].y);
    return s;
}

/* Open maps of one cost: string-pulled HPA* paths against string-pulled A* paths. */
START_TEST(test_smoothed_within_one_percent) {
    dist_stats pulled = {0}, grid = {0};
    uint32_t *path = NULL, *apath = NULL;
    th_vec2 *wp = NULL;
    for (uint64_t seed = 0; seed < 6; seed++) {
        th_navmap m;
        random_map(&m, 8300 + seed, 128 + 32 * (int32_t)(seed % 3), 128, 2 + (uint32_t)seed, 1);
        th_hpa *h = th_hpa_create(&m, 0, 1);
        ck_assert_ptr_nonnull(h);
        ck_assert_int_eq(th_hpa_build(h, &m, NULL), TH_NAV_OK);
        th_hpa_query *q = th_hpa_query_create(h, 0);
        th_astar_ctx *a = th_astar_create(&m);
        ck_assert(q && a);
        path = realloc(path, sizeof *path * m.ncells);
        apath = realloc(apath, sizeof *apath * m.ncells);
        wp = realloc(wp, sizeof *wp * m.ncells);
        uint64_t ctr = 0;
        for (int k = 0; k < 60; k++) {
            int32_t sx = (int32_t)th_test_rnd(seed, 9, &ctr, (uint32_t)m.w);
            int32_t sy = (int32_t)th_test_rnd(seed, 9, &ctr, (uint32_t)m.h);
            int32_t gx = (int32_t)th_test_rnd(seed, 9, &ctr, (uint32_t)m.w);
            int32_t gy = (int32_t)th_test_rnd(seed, 9, &ctr, (uint32_t)m.h);
            uint32_t len = 0, alen = 0, cost = 0, acost = 0;
            int ra = th_astar_find(a, &m, sx, sy, gx, gy, apath, m.ncells, &alen, &acost);
            int rh = th_hpa_find(q, h, &m, sx, sy, gx, gy, path, m.ncells, &len, &cost);
            ck_assert_int_eq(ra == TH_NAV_OK, rh == TH_NAV_OK);
            if (ra != TH_NAV_OK || acost < 20 * TH_NAV_UNITS_PER_CELL) continue;
            stat_add(&grid, (double)cost / acost);
            double la = polyline(wp, th_nav_string_pull(&m, apath, alen, wp));
            double lh = polyline(wp, th_nav_string_pull(&m, path, len, wp));
            stat_add(&pulled, lh / la);
        }
        th_astar_destroy(a);
        th_hpa_query_destroy(q);
        th_hpa_destroy(h);
        th_navmap_free(&m);
    }
    free(path);
    free(apath);
    free(wp);
    stat_report(&grid, "open maps: grid cost / optimum");
    double mean = stat_report(&pulled, "open maps: pulled length / A* pulled");
    ck_assert_double_le(mean, 1.01);
}
END_TEST

START_TEST(test_unreachable) {
    th_navmap m;
    ck_assert_int_eq(th_navmap_init(&m, 70, 50, 1.0f), TH_NAV_OK);
    /* A wall across the map at x = 37 (inside a cluster of 16), and a closed box. */
    for (int32_t y = 0; y < 50; y++) th_navmap_set_blocked(&m, 37, y, false);
    for (int32_t i = 10; i <= 14; i++) {
        th_navmap_set_blocked(&m, i, 10, false);
        th_navmap_set_blocked(&m, i, 14, false);
        th_navmap_set_blocked(&m, 10, i, false);
        th_navmap_set_blocked(&m, 14, i, false);
    }
    th_hpa *h = th_hpa_create(&m, 16, 1);
    ck_assert_int_eq(th_hpa_build(h, &m, NULL), TH_NAV_OK);
    th_hpa_query *q = th_hpa_query_create(h, 0);
    uint32_t path[8192], len = 7, cost = 0;
    ck_assert_int_eq(th_hpa_find(q, h, &m, 2, 2, 60, 40, path, 8192, &len, &cost), TH_NAV_ENOPATH);
    ck_assert_uint_eq(len, 0);
    ck_assert_uint_eq(cost, TH_NAV_UNREACHABLE);
    ck_assert_int_eq(th_hpa_find(q, h, &m, 12, 12, 30, 30, path, 8192, &len, &cost),
                     TH_NAV_ENOPATH);
    ck_assert_int_eq(th_hpa_find(q, h, &m, 30, 30, 12, 12, path, 8192, &len, &cost),
                     TH_NAV_ENOPATH);
    ck_assert_int_eq(th_hpa_find(q, h, &m, 37, 5, 30, 30, path, 8192, &len, &cost),
                     TH_NAV_ENOPATH); /* blocked start */
    ck_assert_int_eq(th_hpa_find(q, h, &m, 12, 12, 13, 13, path, 8192, &len, &cost), TH_NAV_OK);
    ck_assert_int_eq(th_hpa_find(q, h, &m, 2, 2, 36, 49, path, 8192, &len, &cost), TH_NAV_OK);
    ck_assert_int_eq(th_hpa_find(q, h, &m, 2, 2, 2, 2, path, 8192, &len, &cost), TH_NAV_OK);
    ck_assert_uint_eq(len, 1);
    ck_assert_uint_eq(cost, 0);
    /* Bad arguments. */
    ck_assert_int_eq(th_hpa_find(q, h, &m, -1, 2, 2, 2, path, 8192, &len, &cost), TH_NAV_ERANGE);
    ck_assert_int_eq(th_hpa_find(q, h, &m, 2, 2, 70, 2, path, 8192, &len, &cost), TH_NAV_ERANGE);
    ck_assert_int_eq(th_hpa_find(q, h, &m, 2, 2, 36, 49, path, 3, &len, &cost), TH_NAV_ETOOLONG);
    ck_assert_int_eq(th_hpa_find(NULL, h, &m, 2, 2, 3, 3, path, 8192, &len, &cost), TH_NAV_EINVAL);
    ck_assert_int_eq(th_hpa_find(q, h, &m, 2, 2, 3, 3, NULL, 8192, &len, &cost), TH_NAV_EINVAL);
    ck_assert_ptr_null(th_hpa_create(&m, 3, 1));
    ck_assert_ptr_null(th_hpa_create(&m, 65, 1));
    ck_assert_ptr_null(th_hpa_create(NULL, 16, 1));
    th_hpa_query_destroy(q);
    th_hpa_destroy(h);
    /* An unbuilt hierarchy refuses queries. */
    h = th_hpa_create(&m, 16, 1);
    q = th_hpa_query_create(h, 0);
    ck_assert_int_eq(th_hpa_find(q, h, &m, 2, 2, 3, 3, path, 8192, &len, &cost), TH_NAV_EINVAL);
    th_hpa_query_destroy(q);
    th_hpa_destroy(h);
    th_navmap_free(&m);
}
END_TEST

/* The same hierarchy from 1, 2, 3 and 8 workers (and serially), and the same paths. */
START_TEST(test_build_deterministic) {
    static const uint32_t workers[] = {1, 2, 3, 8};
    for (uint64_t seed = 0; seed < 3; seed++) {
        th_navmap m;
        random_map(&m, 8400 + seed, 150 + (int32_t)seed * 17, 130, 12, 9);
        th_hpa *ref = th_hpa_create(&m, 8 + 4 * (uint32_t)seed, 1);
        ck_assert_int_eq(th_hpa_build(ref, &m, NULL), TH_NAV_OK);
        uint64_t want = th_hpa_digest(ref);
        th_hpa_info info = th_hpa_get_info(ref);
        ck_assert_uint_gt(info.nodes, 0);
        for (size_t i = 0; i < sizeof workers / sizeof workers[0]; i++) {
            th_pool *pool = th_pool_create(workers[i]);
            ck_assert_ptr_nonnull(pool);
            th_hpa *h = th_hpa_create(&m, 8 + 4 * (uint32_t)seed, workers[i]);
            ck_assert_int_eq(th_hpa_build(h, &m, pool), TH_NAV_OK);
            ck_assert_uint_eq(th_hpa_digest(h), want);
            th_hpa_info hi = th_hpa_get_info(h);
            ck_assert_uint_eq(hi.nodes, info.nodes);
            ck_assert_uint_eq(hi.intra_edges, info.intra_edges);
            ck_assert_uint_eq(hi.build_cells, info.build_cells);
            th_hpa_destroy(h);
            th_pool_destroy(pool);
        }
        th_hpa_destroy(ref);
        th_navmap_free(&m);
    }
}
END_TEST

/* Cells blocked, opened and made dearer or cheaper, then th_hpa_cells_changed on their
 * rectangle: the hierarchy equals a full build of the changed map, only nearby clusters are
 * rebuilt, and queries give the same paths. */
START_TEST(test_repair_equals_rebuild) {
    th_pool *pool = th_pool_create(3);
    for (uint64_t seed = 0; seed < 6; seed++) {
        th_navmap m;
        random_map(&m, 8500 + seed, 120, 100 + (int32_t)seed * 5, 10, 7);
        uint32_t cluster = seed % 2 ? 8 : 16;
        th_hpa *h = th_hpa_create(&m, cluster, 3);
        th_hpa *fresh = th_hpa_create(&m, cluster, 1);
        ck_assert(h && fresh);
        ck_assert_int_eq(th_hpa_build(h, &m, pool), TH_NAV_OK);
        th_hpa_query *q1 = th_hpa_query_create(h, 16), *q2 = th_hpa_query_create(fresh, 16);
        uint32_t *p1 = malloc(sizeof *p1 * m.ncells), *p2 = malloc(sizeof *p2 * m.ncells);
        uint64_t ctr = 0;
        for (int round = 0; round < 25; round++) {
            int32_t x0 = (int32_t)th_test_rnd(seed, 11, &ctr, (uint32_t)m.w);
            int32_t y0 = (int32_t)th_test_rnd(seed, 11, &ctr, (uint32_t)m.h);
            int32_t x1 = x0 + (int32_t)th_test_rnd(seed, 11, &ctr, 6);
            int32_t y1 = y0 + (int32_t)th_test_rnd(seed, 11, &ctr, 6);
            x1 = x1 >= m.w ? m.w - 1 : x1;
            y1 = y1 >= m.h ? m.h - 1 : y1;
            uint32_t kind = th_test_rnd(seed, 12, &ctr, 4);
            for (int32_t y = y0; y <= y1; y++) {
                for (int32_t x = x0; x <= x1; x++) {
                    if (kind == 0) th_navmap_set_blocked(&m, x, y, true);
                    else if (kind == 1) th_navmap_set_cost(&m, x, y, 1);
                    else if (kind == 2)
                        th_navmap_set_cost(&m, x, y, 1 + th_test_rnd(seed, 13, &ctr, 20));
                    else if (th_navmap_is_blocked(&m, x, y)) th_navmap_break_wall(&m, x, y);
                }
            }
            ck_assert_int_eq(th_hpa_cells_changed(h, &m, round % 2 ? pool : NULL, x0, y0, x1, y1),
                             TH_NAV_OK);
            th_hpa_info info = th_hpa_get_info(h);
            uint32_t span = (uint32_t)(x1 - x0 + 3) / cluster + 2;
            ck_assert_uint_le(info.rebuilt, span * ((uint32_t)(y1 - y0 + 3) / cluster + 2));
            ck_assert_int_eq(th_hpa_build(fresh, &m, NULL), TH_NAV_OK);
            /* Without landmarks (dropped by the repair) the same optimum of the graph. */
            for (int k = 0; k < 3; k++) {
                int32_t sx = (int32_t)th_test_rnd(seed, 15, &ctr, (uint32_t)m.w);
                int32_t sy = (int32_t)th_test_rnd(seed, 15, &ctr, (uint32_t)m.h);
                int32_t gx = (int32_t)th_test_rnd(seed, 15, &ctr, (uint32_t)m.w);
                int32_t gy = (int32_t)th_test_rnd(seed, 15, &ctr, (uint32_t)m.h);
                uint32_t l1 = 0, l2 = 0, c1 = 0, c2 = 0;
                int r1 = th_hpa_find(q1, h, &m, sx, sy, gx, gy, p1, m.ncells, &l1, &c1);
                int r2 = th_hpa_find(q2, fresh, &m, sx, sy, gx, gy, p2, m.ncells, &l2, &c2);
                ck_assert_int_eq(r1, r2);
                ck_assert_uint_eq(c1, c2);
            }
            ck_assert_int_eq(th_hpa_landmarks_build(h, &m, round % 3 ? pool : NULL), TH_NAV_OK);
            ck_assert_uint_eq(th_hpa_digest(h), th_hpa_digest(fresh));
            for (int k = 0; k < 4; k++) {
                int32_t sx = (int32_t)th_test_rnd(seed, 14, &ctr, (uint32_t)m.w);
                int32_t sy = (int32_t)th_test_rnd(seed, 14, &ctr, (uint32_t)m.h);
                int32_t gx = (int32_t)th_test_rnd(seed, 14, &ctr, (uint32_t)m.w);
                int32_t gy = (int32_t)th_test_rnd(seed, 14, &ctr, (uint32_t)m.h);
                uint32_t l1 = 0, l2 = 0, c1 = 0, c2 = 0;
                int r1 = th_hpa_find(q1, h, &m, sx, sy, gx, gy, p1, m.ncells, &l1, &c1);
                int r2 = th_hpa_find(q2, fresh, &m, sx, sy, gx, gy, p2, m.ncells, &l2, &c2);
                ck_assert_int_eq(r1, r2);
                ck_assert_uint_eq(c1, c2);
                ck_assert_uint_eq(l1, l2);
                for (uint32_t i = 0; i < l1; i++) CHECK(p1[i] == p2[i]);
                if (r1 == TH_NAV_OK) ck_assert_uint_eq(path_cost(&m, p1, l1), c1);
            }
        }
        ck_assert_int_eq(th_hpa_cells_changed(h, &m, NULL, 5, 5, 4, 4), TH_NAV_ERANGE);
        ck_assert_int_eq(th_hpa_cells_changed(h, &m, NULL, m.w, 0, m.w + 3, 3), TH_NAV_ERANGE);
        free(p1);
        free(p2);
        th_hpa_query_destroy(q1);
        th_hpa_query_destroy(q2);
        th_hpa_destroy(h);
        th_hpa_destroy(fresh);
        th_navmap_free(&m);
    }
    th_pool_destroy(pool);
}
END_TEST

/* Queries, searches in pieces and repairs allocate nothing. */
START_TEST(test_no_allocation) {
    th_navmap m;
    random_map(&m, 8600, 96, 96, 10, 5);
    th_hpa *h = th_hpa_create(&m, 16, 2);
    th_hpa_query *q = th_hpa_query_create(h, 0);
    th_pool *pool = th_pool_create(2);
    ck_assert_int_eq(th_hpa_build(h, &m, pool), TH_NAV_OK);
    uint32_t *path = malloc(sizeof *path * m.ncells), len, cost;
    uint64_t before = th_alloc_count();
    for (int32_t k = 0; k < 20; k++) {
        (void)th_hpa_find(q, h, &m, k, 3 * k % 96, 95 - k, 90 - k, path, m.ncells, &len, &cost);
        th_navmap_set_blocked(&m, 40 + k, 40, true);
        ck_assert_int_eq(th_hpa_cells_changed(h, &m, pool, 40 + k, 40, 40 + k, 40), TH_NAV_OK);
    }
    ck_assert_uint_eq(th_alloc_count(), before);
    free(path);
    th_pool_destroy(pool);
    th_hpa_query_destroy(q);
    th_hpa_destroy(h);
    th_navmap_free(&m);
}
END_TEST

/* What the queue handed back, in the order it finished. */
typedef struct served {
    uint32_t tag[256];
    int status[256];
    uint32_t cost[256], len[256];
    uint64_t sum[256]; /* a hash of the cells */
    uint32_t n;
} served;

static void on_done(void *user, uint32_t tag, int status, const uint32_t *cells, uint32_t len,
                    uint32_t cost) {
    served *s = user;
    ck_assert_uint_lt(s->n, 256);
    uint64_t h = 1469598103934665603ull;
    for (uint32_t i = 0; i < len; i++) h = (h ^ cells[i]) * 1099511628211ull;
    s->tag[s->n] = tag;
    s->status[s->n] = status;
    s->cost[s->n] = cost;
    s->len[s->n] = len;
    s->sum[s->n] = h;
    s->n++;
}

/* Requests with random priorities served under a budget of expansions per update: no update
 * spends more than the budget, every one that leaves work waiting spends all of it, requests
 * finish by priority then submission order, every one is served, and each result is
 * th_hpa_find's. */
START_TEST(test_budget_queue) {
    static const uint64_t budgets[] = {1, 7, 64, 1000};
    th_navmap m;
    random_map(&m, 8700, 150, 140, 14, 4);
    th_hpa *h = th_hpa_create(&m, 16, 1);
    ck_assert_int_eq(th_hpa_build(h, &m, NULL), TH_NAV_OK);
    th_hpa_query *ref = th_hpa_query_create(h, 0);
    uint32_t *path = malloc(sizeof *path * m.ncells);
    enum { N = 60 };
    int32_t req[N][5];
    uint64_t ctr = 0;
    for (int i = 0; i < N; i++) {
        for (int k = 0; k < 4; k++)
            req[i][k] = (int32_t)th_test_rnd(99, 1, &ctr, k % 2 ? (uint32_t)m.h : (uint32_t)m.w);
        req[i][4] = (int32_t)th_test_rnd(99, 2, &ctr, 4) - 1; /* priorities -1..2 */
    }
    for (size_t b = 0; b < sizeof budgets / sizeof budgets[0]; b++) {
        th_hpa_queue *q = th_hpa_queue_create(h, &m, N, 0);
        ck_assert_ptr_nonnull(q);
        for (int i = 0; i < N; i++)
            ck_assert_int_eq(th_hpa_queue_submit(q, req[i][0], req[i][1], req[i][2], req[i][3],
                                                 req[i][4], (uint32_t)i),
                             TH_NAV_OK);
        ck_assert_int_eq(th_hpa_queue_submit(q, 0, 0, 1, 1, 0, 999), TH_NAV_ETOOLONG);
        served got = {0};
        bool saw_coarse = false;
        for (int updates = 0; th_hpa_queue_waiting(q) > 0; updates++) {
            ck_assert_int_lt(updates, 1000000);
            uint64_t used = th_hpa_queue_update(q, h, &m, budgets[b], on_done, &got);
            ck_assert_uint_le(used, budgets[b]);
            if (th_hpa_queue_waiting(q) > 0) ck_assert_uint_eq(used, budgets[b]);
            int32_t x, y;
            for (int i = 0; i < N && !saw_coarse; i++)
                saw_coarse = th_hpa_queue_next_node(q, h, (uint32_t)i, &x, &y);
        }
        if (budgets[b] < 64) ck_assert(saw_coarse);
        ck_assert_uint_eq(got.n, N);
        for (uint32_t k = 0; k < got.n; k++) {
            uint32_t i = got.tag[k];
            if (k > 0) {
                uint32_t p = got.tag[k - 1];
                ck_assert(req[p][4] > req[i][4] || (req[p][4] == req[i][4] && p < i));
            }
            uint32_t len = 0, cost = 0;
            int rc = th_hpa_find(ref, h, &m, req[i][0], req[i][1], req[i][2], req[i][3], path,
                                 m.ncells, &len, &cost);
            ck_assert_int_eq(got.status[k], rc);
            ck_assert_uint_eq(got.cost[k], cost);
            ck_assert_uint_eq(got.len[k], len);
            uint64_t hh = 1469598103934665603ull;
            for (uint32_t j = 0; j < len; j++) hh = (hh ^ path[j]) * 1099511628211ull;
            ck_assert_uint_eq(got.sum[k], hh);
        }
        /* Cancelling: a waiting request is dropped, an unknown tag refused. */
        ck_assert_int_eq(th_hpa_queue_submit(q, 1, 1, 100, 100, 0, 5), TH_NAV_OK);
        ck_assert_int_eq(th_hpa_queue_submit(q, 1, 1, 100, 100, 0, 6), TH_NAV_OK);
        ck_assert(th_hpa_queue_cancel(q, 5));
        ck_assert(!th_hpa_queue_cancel(q, 5));
        ck_assert_int_eq(th_hpa_queue_submit(q, -1, 1, 100, 100, 0, 7), TH_NAV_ERANGE);
        got.n = 0;
        while (th_hpa_queue_waiting(q)) th_hpa_queue_update(q, h, &m, 3, on_done, &got);
        ck_assert_uint_eq(got.n, 1);
        ck_assert_uint_eq(got.tag[0], 6);
        th_hpa_queue_destroy(q);
    }
    free(path);
    th_hpa_query_destroy(ref);
    th_hpa_destroy(h);
    th_navmap_free(&m);
}
END_TEST

/* A world of 120 x 90 one-metre cells with random walls and costs, on `threads` threads. */
static th_world *plan_world(uint32_t threads, uint64_t seed) {
    th_world_def wd = th_default_world_def();
    wd.width = 120.0f;
    wd.height = 90.0f;
    wd.cell_size = 1.0f;
    wd.threads = threads;
    th_error err;
    th_world *w = th_world_create(&wd, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    uint64_t ctr = 0;
    for (int32_t y = 0; y < 90; y++) {
        for (int32_t x = 0; x < 120; x++) {
            uint32_t r = th_test_rnd(seed, 20, &ctr, 100);
            if (r < 12) ck_assert(th_world_set_cell(w, x, y, TH_CELL_WALL, 0, &err));
            else if (r < 30) ck_assert(th_world_set_cell(w, x, y, TH_CELL_OPEN, 1 + r % 5, &err));
        }
    }
    return w;
}

/* The public planner: immediate answers against A* (never cheaper, same reachability), queued
 * answers equal to immediate ones under any budget and any thread count, a map changed by the
 * world's own calls picked up by comparison and repaired like a rebuild, bad input refused. */
START_TEST(test_world_planner) {
    static const uint32_t threads[] = {1, 2, 3, 8};
    enum { N = 24 };
    th_vec2 a[N], b[N];
    uint64_t ctr = 0;
    for (int i = 0; i < N; i++) {
        a[i] = th_v2(0.5f + (float)th_test_rnd(5, 1, &ctr, 119),
                     0.5f + (float)th_test_rnd(5, 1, &ctr, 89));
        b[i] = th_v2(0.5f + (float)th_test_rnd(5, 1, &ctr, 119),
                     0.5f + (float)th_test_rnd(5, 1, &ctr, 89));
    }
    float want_cost[N];
    uint32_t want_count[N];
    th_vec2 want_pts[N][256];
    th_error err;
    for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
        th_world *w = plan_world(threads[t], 77);
        th_plan_def def = th_default_plan_def();
        def.max_requests = N;
        th_planner *p = th_planner_create(w, &def, &err);
        ck_assert_msg(p != NULL, "%s", err.message);
        th_vec2 pts[256], ref[4096];
        for (int i = 0; i < N; i++) {
            uint32_t n = 0, rn = 0;
            float c = 0, rc = 0;
            bool ok = th_planner_find_path(p, w, a[i], b[i], pts, 256, &n, &c, &err);
            bool rok = th_world_find_path(w, a[i], b[i], ref, 4096, &rn, &rc, NULL);
            ck_assert_int_eq(ok, rok);
            if (!ok) {
                ck_assert_int_eq(err.code, TH_ERR_UNREACHABLE);
                want_count[i] = 0;
                continue;
            }
            ck_assert_float_ge(c, rc * 0.99999f);
            if (t == 0) {
                want_cost[i] = c;
                want_count[i] = n;
                memcpy(want_pts[i], pts, n * sizeof *pts);
            } else {
                ck_assert_float_eq(c, want_cost[i]);
                ck_assert_uint_eq(n, want_count[i]);
                ck_assert(memcmp(pts, want_pts[i], n * sizeof *pts) == 0);
            }
        }
        /* Queued, budget 5 per update. */
        th_plan_id id[N];
        for (int i = 0; i < N; i++) {
            id[i] = th_planner_submit(p, w, a[i], b[i], i % 3, &err);
            ck_assert_uint_ne(id[i].index1, 0);
            th_vec2 d;
            ck_assert(th_planner_direction(p, id[i], &d) == (a[i].x != b[i].x || a[i].y != b[i].y));
        }
        ck_assert_uint_eq(th_planner_submit(p, w, a[0], b[0], 0, &err).index1, 0);
        ck_assert_int_eq(err.code, TH_ERR_LIMIT);
        while (th_planner_info(p).waiting) {
            uint32_t used = th_planner_update(p, w, 5, &err);
            ck_assert_uint_le(used, 5);
            if (th_planner_info(p).waiting) ck_assert_uint_eq(used, 5);
        }
        for (int i = 0; i < N; i++) {
            uint32_t n = 0;
            float c = 0;
            th_plan_status st = th_planner_result(p, id[i], pts, 256, &n, &c, &err);
            if (!want_count[i] && t == 0) {
                ck_assert_int_eq(st, TH_PLAN_UNREACHABLE);
                continue;
            }
            if (st == TH_PLAN_UNREACHABLE) continue;
            ck_assert_int_eq(st, TH_PLAN_DONE);
            ck_assert_uint_eq(n, want_count[i]);
            ck_assert_float_eq(c, want_cost[i]);
            ck_assert(memcmp(pts, want_pts[i], n * sizeof *pts) == 0);
            ck_assert(th_planner_release(p, id[i], &err));
            ck_assert_int_eq(th_planner_result(p, id[i], NULL, 0, NULL, NULL, &err),
                             TH_PLAN_INVALID);
        }
        /* The map changes through the world: a wall across the middle with one gap. */
        for (int32_t y = 0; y < 90; y++)
            if (y != 45) ck_assert(th_world_set_cell(w, 60, y, TH_CELL_WALL, 0, &err));
        ck_assert(th_planner_refresh(p, w, &err));
        th_planner *fresh = th_planner_create(w, &def, &err);
        ck_assert_ptr_nonnull(fresh);
        for (int i = 0; i < N; i++) {
            uint32_t n1 = 0, n2 = 0;
            float c1 = 0, c2 = 0;
            th_vec2 p2[256];
            bool o1 = th_planner_find_path(p, w, a[i], b[i], pts, 256, &n1, &c1, NULL);
            bool o2 = th_planner_find_path(fresh, w, a[i], b[i], p2, 256, &n2, &c2, NULL);
            ck_assert_int_eq(o1, o2);
            ck_assert_uint_eq(n1, n2);
            if (o1) ck_assert_float_eq(c1, c2);
        }
        /* Bad input. */
        uint32_t n32 = 0;
        ck_assert(
            !th_planner_find_path(p, w, th_v2(-1.0f, 3.0f), b[0], pts, 256, &n32, NULL, &err));
        ck_assert_int_eq(err.code, TH_ERR_BLOCKED);
        ck_assert(!th_planner_find_path(p, w, th_v2(NAN, 3.0f), b[0], pts, 256, &n32, NULL, &err));
        ck_assert(!th_planner_cells_changed(p, w, 5, 5, 4, 4, &err));
        ck_assert_int_eq(err.code, TH_ERR_INVALID);
        ck_assert(th_planner_cells_changed(p, w, 60, 0, 60, 89, &err));
        th_plan_def bad = def;
        bad.cluster_size = 3;
        ck_assert_ptr_null(th_planner_create(w, &bad, &err));
        ck_assert_int_eq(err.code, TH_ERR_INVALID);
        bad = def;
        bad.max_waypoints = 1;
        ck_assert_ptr_null(th_planner_create(w, &bad, &err));
        th_world *other = plan_world(1, 78);
        ck_assert(!th_planner_refresh(p, other, &err));
        ck_assert_int_eq(err.code, TH_ERR_INVALID);
        th_world_destroy(other);
        th_planner_destroy(fresh);
        th_planner_destroy(p);
        th_world_destroy(w);
    }
    /* A world without a map has nothing to plan on. */
    th_world_def wd = th_default_world_def();
    th_world *w = th_world_create(&wd, &err);
    ck_assert_ptr_null(th_planner_create(w, NULL, &err));
    ck_assert_int_eq(err.code, TH_ERR_STATE);
    th_world_destroy(w);
}
END_TEST

/* IDA* on the abstract graph finds A*'s abstract optimum (the cost th_hpa_find reports). */
START_TEST(test_ida_matches_astar) {
    uint32_t finished = 0;
    for (uint64_t seed = 0; seed < 8; seed++) {
        th_navmap m;
        random_map(&m, 8800 + seed, 30 + (int32_t)seed * 3, 28, 10 + (uint32_t)seed * 2, 3);
        th_hpa *h = th_hpa_create(&m, 8, 1);
        ck_assert_int_eq(th_hpa_build(h, &m, NULL), TH_NAV_OK);
        th_hpa_query *q = th_hpa_query_create(h, 0), *qi = th_hpa_query_create(h, 0);
        uint32_t *path = malloc(sizeof *path * m.ncells);
        uint64_t ctr = 0;
        for (int k = 0; k < 8; k++) {
            int32_t sx = (int32_t)th_test_rnd(seed, 16, &ctr, (uint32_t)m.w);
            int32_t sy = (int32_t)th_test_rnd(seed, 16, &ctr, (uint32_t)m.h);
            int32_t gx = (int32_t)th_test_rnd(seed, 16, &ctr, (uint32_t)m.w);
            int32_t gy = (int32_t)th_test_rnd(seed, 16, &ctr, (uint32_t)m.h);
            uint32_t len = 0, cost = 0, icost = 0;
            uint64_t expanded = 0;
            int ra = th_hpa_find(q, h, &m, sx, sy, gx, gy, path, m.ncells, &len, &cost);
            int ri = th_hpa_ida_cost(qi, h, &m, sx, sy, gx, gy, 2000000, &icost, &expanded);
            if (ri == TH_NAV_ETOOLONG) continue; /* over the expansion cap: allowed */
            finished++;
            ck_assert_int_eq(ri, ra);
            if (ra == TH_NAV_OK) ck_assert_uint_eq(icost, cost);
        }
        free(path);
        th_hpa_query_destroy(q);
        th_hpa_query_destroy(qi);
        th_hpa_destroy(h);
        th_navmap_free(&m);
    }
    ck_assert_uint_ge(finished, 32);
}
END_TEST

int main(void) {
    Suite *s = suite_create("hpa");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    /* Under ThreadSanitizer only the tests that build on a pool or step a world on threads. */
    if (!TH_TEST_TSAN) tcase_add_test(tc, test_paths_valid_and_bounded);
    if (!TH_TEST_TSAN) tcase_add_test(tc, test_paths_large);
    if (!TH_TEST_TSAN) tcase_add_test(tc, test_smoothed_within_one_percent);
    if (!TH_TEST_TSAN) tcase_add_test(tc, test_unreachable);
    tcase_add_test(tc, test_build_deterministic);
    tcase_add_test(tc, test_repair_equals_rebuild);
    tcase_add_test(tc, test_no_allocation);
    tcase_add_test(tc, test_budget_queue);
    tcase_add_test(tc, test_world_planner);
    if (!TH_TEST_TSAN) tcase_add_test(tc, test_ida_matches_astar);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
