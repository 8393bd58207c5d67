/* Hierarchical path planning across glued edges (a building's stairs, sim/nav/hpa.c): on random
 * buildings of several levels joined by stairs, for clusters from 4 to 32 cells (so that both
 * ends of a stair often lie in one cluster), every path is valid (legal moves or steps across a
 * glued edge, the cost it reports), reachability is exactly a plain Dijkstra's over the joined
 * graph and the cost is at least its optimum and at most a stated factor more; the landmark
 * bound finds the same abstract optimum as none; a repair (a landing walled off, glued cells
 * blocked and opened) equals a full build; queries and repairs allocate nothing; a hierarchy
 * whose link slots the map outgrew refuses; IDA* and searches in pieces agree with A*. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "engine/alloc.h"
#include "engine/jobs.h"
#include "engine/rng.h"
#include "sim/nav/hpa.h"
#include "sim/nav/nav.h"
#include "tests/ref_dijkstra.h"
#include "test_util.h"

/* As tests/test_hpa.c: a factor over the optimum, or for short routes a detour of two cluster
 * sides of diagonal steps at the map's dearest cost. */
#define COST_BOUND 1.5

/* A building: nlx x nly levels of lw x lh cells each, one wall cell between them and round
 * them, random wall bars (`pct` %) and costs 1..max_cost inside, and `stairs` stairs of 1 to 3
 * glued edges, each from one level's east (or north) edge to another level's west (or south)
 * edge, the cells across being the walls between levels. Returns the glued pairs for the
 * reference (one per glue). */
static int building(th_navmap *m, uint64_t seed, int32_t nlx, int32_t nly, int32_t lw, int32_t lh,
                    uint32_t pct, uint32_t max_cost, int stairs, th_ref_join *joins) {
    uint64_t ctr = 0;
    const int32_t w = nlx * (lw + 1) + 1, h = nly * (lh + 1) + 1;
    ck_assert_int_eq(th_navmap_init(m, w, h, 1.0f), TH_NAV_OK);
    th_navmap_defer_moves(m);
    for (int32_t y = 0; y < h; y++) {
        for (int32_t x = 0; x < w; x++) {
            if (x % (lw + 1) == 0 || y % (lh + 1) == 0) {
                th_navmap_set_blocked(m, x, y, false);
            } else if (th_test_rnd(seed, 2, &ctr, 100) < pct) {
                int32_t len = 1 + (int32_t)th_test_rnd(seed, 3, &ctr, 3);
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
    /* Stairs: first every cell they glue opened, then the glues (the first glue of an edge
     * wins; a later stair over it is dropped). */
    int32_t fx[64][3], fy[64][3], tx[64][3], ty[64][3], kk[64];
    uint8_t dir[64];
    ck_assert_int_le(stairs, 64);
    for (int s = 0; s < stairs; s++) {
        int32_t a = (int32_t)th_test_rnd(seed, 6, &ctr, (uint32_t)(nlx * nly)), b = a;
        while (b == a && nlx * nly > 1)
            b = (int32_t)th_test_rnd(seed, 6, &ctr, (uint32_t)(nlx * nly));
        const int32_t ax = a % nlx * (lw + 1), ay = a / nlx * (lh + 1);
        const int32_t bx = b % nlx * (lw + 1), by = b / nlx * (lh + 1);
        const bool east = th_test_rnd(seed, 7, &ctr, 2) == 0;
        const int32_t k = 1 + (int32_t)th_test_rnd(seed, 8, &ctr, 3);
        const int32_t along = east ? lh : lw;
        const int32_t pa = 1 + (int32_t)th_test_rnd(seed, 9, &ctr, (uint32_t)(along - k + 1));
        const int32_t pb = 1 + (int32_t)th_test_rnd(seed, 9, &ctr, (uint32_t)(along - k + 1));
        kk[s] = k;
        dir[s] = east ? 0 : 1; /* straight moves: 0 east, 1 north */
        for (int32_t i = 0; i < k; i++) {
            fx[s][i] = east ? ax + lw : ax + pa + i;
            fy[s][i] = east ? ay + pa + i : ay + lh;
            tx[s][i] = east ? bx + 1 : bx + pb + i;
            ty[s][i] = east ? by + pb + i : by + 1;
            if (th_navmap_is_blocked(m, fx[s][i], fy[s][i]))
                th_navmap_set_cost(m, fx[s][i], fy[s][i], 1);
            if (th_navmap_is_blocked(m, tx[s][i], ty[s][i]))
                th_navmap_set_cost(m, tx[s][i], ty[s][i], 1);
        }
    }
    int n = 0;
    for (int s = 0; s < stairs; s++) {
        for (int32_t i = 0; i < kk[s]; i++) {
            if (th_navmap_glue(m, fx[s][i], fy[s][i], dir[s], tx[s][i], ty[s][i]) != TH_NAV_OK)
                continue;
            joins[n++] = (th_ref_join){fy[s][i] * w + fx[s][i], ty[s][i] * w + tx[s][i]};
        }
    }
    th_navmap_update_moves(m, NULL);
    return n;
}

static bool open_cell(const th_navmap *m, int32_t x, int32_t y) {
    return x >= 0 && y >= 0 && x < m->w && y < m->h && m->cost[y * m->w + x] != 0;
}

/* A random open cell of m, drawn from the stream (seed, key). */
static void draw_open(const th_navmap *m, uint64_t seed, uint64_t key, uint64_t *ctr, int32_t *x,
                      int32_t *y) {
    do {
        *x = (int32_t)th_test_rnd(seed, key, ctr, (uint32_t)m->w);
        *y = (int32_t)th_test_rnd(seed, key, ctr, (uint32_t)m->h);
    } while (!open_cell(m, *x, *y));
}

/* Whether a and b are a glued pair of the list. */
static bool joined(const th_ref_join *j, int nj, uint32_t a, uint32_t b) {
    for (int i = 0; i < nj; i++)
        if (((uint32_t)j[i].a == a && (uint32_t)j[i].b == b) ||
            ((uint32_t)j[i].a == b && (uint32_t)j[i].b == a))
            return true;
    return false;
}

/* The cost of a cell path from the definition: every cell open, each step to one of the 8
 * neighbours (a diagonal only between two open side cells) or across a glued pair (a straight
 * move's cost). `seams` counts the steps across glued pairs. */
static uint64_t path_cost(const th_navmap *m, const th_ref_join *j, int nj, const uint32_t *p,
                          uint32_t n, uint32_t *seams) {
    uint64_t sum = 0;
    *seams = 0;
    for (uint32_t i = 0; i < n; i++) {
        int32_t x = (int32_t)(p[i] % (uint32_t)m->w), y = (int32_t)(p[i] / (uint32_t)m->w);
        CHECK_MSG(open_cell(m, x, y), "cell (%d, %d) is blocked", x, y);
        if (i == 0) continue;
        int32_t px = (int32_t)(p[i - 1] % (uint32_t)m->w),
                py = (int32_t)(p[i - 1] / (uint32_t)m->w);
        int32_t dx = x - px, dy = y - py;
        if (abs(dx) > 1 || abs(dy) > 1) {
            CHECK_MSG(joined(j, nj, p[i - 1], p[i]), "jump (%d,%d)->(%d,%d)", px, py, x, y);
            sum += (uint64_t)(m->cost[p[i - 1]] + m->cost[p[i]]) * 70u;
            (*seams)++;
            continue;
        }
        CHECK(dx || dy);
        if (dx && dy) CHECK(open_cell(m, px + dx, py) && open_cell(m, px, py + dy));
        sum += (uint64_t)(m->cost[p[i - 1]] + m->cost[p[i]]) * (dx && dy ? 99u : 70u);
    }
    return sum;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void report(double *v, uint32_t n, const char *what) {
    if (!n) return;
    qsort(v, n, sizeof *v, cmp_double);
    double sum = 0;
    for (uint32_t i = 0; i < n; i++) sum += v[i];
    printf("%-40s n %5u  mean %.4f  p50 %.4f  p95 %.4f  max %.4f\n", what, n, sum / n, v[n / 2],
           v[(uint32_t)(n * 0.95)], v[n - 1]);
}

/* Glued pairs whose two cells lie in one cluster of side C. */
static int same_cluster(const th_navmap *m, const th_ref_join *j, int nj, uint32_t C) {
    int n = 0;
    const uint32_t W = (uint32_t)m->w;
    for (int i = 0; i < nj; i++) {
        uint32_t a = (uint32_t)j[i].a, b = (uint32_t)j[i].b;
        n += (a % W) / C == (b % W) / C && (a / W) / C == (b / W) / C;
    }
    return n;
}

/* Random queries against the reference; ratios of routes that cross a seam into `ratio`. */
static void check_building(const th_navmap *m, const th_ref_join *j, int nj, uint32_t cluster,
                           uint64_t seed, int queries, double *ratio, uint32_t *nratio,
                           uint32_t *crossed, uint32_t *unreachable) {
    th_hpa *h = th_hpa_create(m, cluster, 1);
    ck_assert_ptr_nonnull(h);
    ck_assert_int_eq(th_hpa_build(h, m, NULL), TH_NAV_OK);
    th_hpa_info info = th_hpa_get_info(h);
    ck_assert_uint_gt(info.link_nodes, 0);
    ck_assert_uint_eq(info.full_clusters, 0);
    th_hpa_query *q = th_hpa_query_create(h, 64);
    ck_assert_ptr_nonnull(q);
    uint32_t *path = malloc(sizeof *path * m->ncells * 2);
    uint64_t *ref = malloc(sizeof *ref * m->ncells);
    uint64_t ctr = 0, cmax = 1;
    for (uint32_t c = 0; c < m->ncells; c++) cmax = m->cost[c] > cmax ? m->cost[c] : cmax;
    const uint64_t slack = 2u * cluster * TH_NAV_STEP_DIAG * 2u * cmax;
    for (int k = 0; k < queries; k++) {
        int32_t sx, sy, gx, gy;
        draw_open(m, seed, 10, &ctr, &sx, &sy);
        draw_open(m, seed, 10, &ctr, &gx, &gy);
        th_ref_goal g = {gx, gy, 0};
        ck_assert_int_eq(th_ref_dijkstra_joined(m->w, m->h, m->cost, &g, 1, j, nj, ref), 0);
        uint64_t best = ref[(uint32_t)sy * (uint32_t)m->w + (uint32_t)sx];
        uint32_t len = 0, cost = 0, seams = 0;
        int rc = th_hpa_find(q, h, m, sx, sy, gx, gy, path, m->ncells * 2, &len, &cost);
        if (best == TH_REF_INF) {
            ck_assert_int_eq(rc, TH_NAV_ENOPATH);
            (*unreachable)++;
            continue;
        }
        ck_assert_msg(rc == TH_NAV_OK, "(%d,%d)->(%d,%d) C %u: rc %d, optimum %llu", sx, sy, gx, gy,
                      cluster, rc, (unsigned long long)best);
        ck_assert_uint_eq(path[0], (uint32_t)sy * (uint32_t)m->w + (uint32_t)sx);
        ck_assert_uint_eq(path[len - 1], (uint32_t)gy * (uint32_t)m->w + (uint32_t)gx);
        uint64_t pc = path_cost(m, j, nj, path, len, &seams);
        ck_assert_uint_eq(pc, cost);
        ck_assert_uint_ge(pc, best);
        if (best > 0) {
            double r = (double)pc / (double)best;
            ck_assert_msg(r <= COST_BOUND || pc <= best + slack, "cost %llu against optimum %llu",
                          (unsigned long long)pc, (unsigned long long)best);
            if (seams) ratio[(*nratio)++] = r;
        }
        *crossed += seams > 0;
    }
    free(path);
    free(ref);
    th_hpa_query_destroy(q);
    th_hpa_destroy(h);
}

START_TEST(paths_across_seams_match_dijkstra) {
    static double ratio[8192];
    uint32_t nratio = 0, crossed = 0, unreachable = 0;
    int same = 0;
    const uint32_t clusters[4] = {4, 8, 16, 32};
    for (uint64_t seed = 0; seed < 8; seed++) {
        th_navmap m;
        th_ref_join joins[256];
        const int32_t nlx = 2 + (int32_t)(seed % 3), nly = 1 + (int32_t)(seed % 2);
        const int32_t lw = 6 + (int32_t)(seed * 5 % 19), lh = 5 + (int32_t)(seed * 3 % 13);
        int nj = building(&m, 4100 + seed, nlx, nly, lw, lh, seed % 3 ? 12 : 4,
                          seed % 4 == 3 ? 9 : 1, 6 + (int)(seed % 4), joins);
        ck_assert_int_gt(nj, 0);
        for (int c = 0; c < 4; c++) {
            same += same_cluster(&m, joins, nj, clusters[c]);
            check_building(&m, joins, nj, clusters[c], seed * 4 + (uint64_t)c, 60, ratio, &nratio,
                           &crossed, &unreachable);
        }
        th_navmap_free(&m);
    }
    /* The cases the test is for occurred: routes over stairs, stairs with both ends in one
     * cluster, goals no stair leads to. */
    ck_assert_uint_gt(crossed, 200);
    ck_assert_int_gt(same, 10);
    ck_assert_uint_gt(unreachable, 0);
    report(ratio, nratio, "cost / optimum, routes over stairs");
}
END_TEST

/* The landmark bound (admissible across seams: exact abstract distances) gives the same
 * abstract optimum as no bound at all (a repair drops the landmarks), so the same cost. */
START_TEST(landmarks_keep_the_optimum) {
    th_navmap m;
    th_ref_join joins[256];
    int nj = building(&m, 4300, 4, 1, 14, 10, 8, 5, 10, joins);
    ck_assert_int_gt(nj, 0);
    th_hpa *h = th_hpa_create(&m, 8, 1);
    ck_assert_int_eq(th_hpa_build(h, &m, NULL), TH_NAV_OK);
    th_hpa_query *q = th_hpa_query_create(h, 0);
    uint32_t *path = malloc(sizeof *path * m.ncells * 2);
    uint64_t ctr = 0;
    uint32_t lm_cost[200];
    int32_t ends[200][4];
    for (int k = 0; k < 200; k++) {
        for (int e = 0; e < 2; e++) draw_open(&m, 7, 1, &ctr, &ends[k][2 * e], &ends[k][2 * e + 1]);
        uint32_t len = 0;
        lm_cost[k] = 0;
        (void)th_hpa_find(q, h, &m, ends[k][0], ends[k][1], ends[k][2], ends[k][3], path,
                          m.ncells * 2, &len, &lm_cost[k]);
    }
    /* An unchanged cell "changed": the landmarks are dropped. */
    ck_assert_int_eq(th_hpa_cells_changed(h, &m, NULL, 1, 1, 1, 1), TH_NAV_OK);
    for (int k = 0; k < 200; k++) {
        uint32_t len = 0, c = 0;
        (void)th_hpa_find(q, h, &m, ends[k][0], ends[k][1], ends[k][2], ends[k][3], path,
                          m.ncells * 2, &len, &c);
        ck_assert_uint_eq(c, lm_cost[k]);
    }
    free(path);
    th_hpa_query_destroy(q);
    th_hpa_destroy(h);
    th_navmap_free(&m);
}
END_TEST

/* Two levels side by side joined by two stairs; a walker's goal on the upper one. Walling off
 * one landing re-routes over the other stair; walling off both makes the goal unreachable
 * (answered from the components, without a search); opening one again restores the route. The
 * repaired hierarchy equals a fresh build each time. */
START_TEST(landing_walled_off) {
    th_navmap m;
    ck_assert_int_eq(th_navmap_init(&m, 41, 12, 1.0f), TH_NAV_OK);
    for (int32_t y = 0; y < 12; y++)
        for (int32_t x = 0; x < 41; x++)
            if (x == 0 || x == 20 || x == 40 || y == 0 || y == 11)
                th_navmap_set_blocked(&m, x, y, false);
    /* Stair A: the lower level's north edge at x 2..3 (y 10) to the upper level's south edge
     * at x 22..23 (y 1); stair B at x 17..18 to x 37..38. */
    for (int32_t i = 0; i < 2; i++) {
        ck_assert_int_eq(th_navmap_glue(&m, 2 + i, 10, 1, 22 + i, 1), TH_NAV_OK);
        ck_assert_int_eq(th_navmap_glue(&m, 17 + i, 10, 1, 37 + i, 1), TH_NAV_OK);
    }
    th_navmap_update_moves(&m, NULL);
    const th_ref_join joins[4] = {{10 * 41 + 2, 1 * 41 + 22},
                                  {10 * 41 + 3, 1 * 41 + 23},
                                  {10 * 41 + 17, 1 * 41 + 37},
                                  {10 * 41 + 18, 1 * 41 + 38}};
    for (uint32_t C = 4; C <= 16; C *= 2) {
        th_hpa *h = th_hpa_create(&m, C, 1), *fresh = th_hpa_create(&m, C, 1);
        ck_assert(h && fresh);
        ck_assert_int_eq(th_hpa_build(h, &m, NULL), TH_NAV_OK);
        th_hpa_query *q = th_hpa_query_create(h, 0);
        uint32_t *path = malloc(sizeof *path * m.ncells), len = 0, cost = 0, seams = 0;
        uint64_t *ref = malloc(sizeof *ref * m.ncells);
        const th_ref_goal g = {24, 8, 0};
        /* From (4, 5) on the lower level: stair A is the nearer. */
        const uint32_t from = 5 * 41 + 4, steps[4] = {0, 1, 2, 3};
        for (uint32_t st = 0; st < 4; st++) {
            if (steps[st] == 1) { /* stair A's landing walled off */
                th_navmap_set_blocked(&m, 22, 1, true);
                th_navmap_set_blocked(&m, 23, 1, true);
            } else if (steps[st] == 2) { /* and stair B's */
                th_navmap_set_blocked(&m, 37, 1, true);
                th_navmap_set_blocked(&m, 38, 1, true);
            } else if (steps[st] == 3) { /* B's landing opened again */
                th_navmap_break_wall(&m, 37, 1);
                th_navmap_break_wall(&m, 38, 1);
            }
            th_navmap_update_moves(&m, NULL);
            if (st) {
                ck_assert_int_eq(th_hpa_cells_changed(h, &m, NULL, 22, 1, 38, 1), TH_NAV_OK);
                ck_assert_int_eq(th_hpa_landmarks_build(h, &m, NULL), TH_NAV_OK);
            }
            ck_assert_int_eq(th_hpa_build(fresh, &m, NULL), TH_NAV_OK);
            ck_assert_uint_eq(th_hpa_digest(h), th_hpa_digest(fresh));
            ck_assert_int_eq(th_ref_dijkstra_joined(m.w, m.h, m.cost, &g, 1, joins, 4, ref), 0);
            int rc = th_hpa_find(q, h, &m, 4, 5, 24, 8, path, m.ncells, &len, &cost);
            if (steps[st] == 2) {
                ck_assert_uint_eq(ref[from], TH_REF_INF);
                ck_assert_int_eq(rc, TH_NAV_ENOPATH);
                continue;
            }
            ck_assert_int_eq(rc, TH_NAV_OK);
            ck_assert_uint_eq(path_cost(&m, joins, 4, path, len, &seams), cost);
            ck_assert_uint_eq(seams, 1);
            ck_assert_uint_ge(cost, ref[from]);
            ck_assert(cost <= ref[from] * 3 / 2);
            /* Over stair A while it stands, else over B. */
            bool over_a = false;
            for (uint32_t i = 0; i < len; i++)
                over_a |= path[i] == 1 * 41 + 22 || path[i] == 1 * 41 + 23;
            ck_assert(over_a == (steps[st] == 0));
        }
        free(path);
        free(ref);
        th_hpa_query_destroy(q);
        th_hpa_destroy(h);
        th_hpa_destroy(fresh);
        th_navmap_break_wall(&m, 22, 1);
        th_navmap_break_wall(&m, 23, 1);
        th_navmap_update_moves(&m, NULL);
    }
    th_navmap_free(&m);
}
END_TEST

/* Random repairs, glued cells blocked and opened among them: the repaired hierarchy equals a
 * full build, and answers as the reference says. */
START_TEST(repair_across_seams_equals_rebuild) {
    th_pool *pool = th_pool_create(3);
    for (uint64_t seed = 0; seed < 4; seed++) {
        th_navmap m;
        th_ref_join joins[256];
        int nj =
            building(&m, 4500 + seed, 3, 2, 9 + (int32_t)seed, 8, 8, seed % 2 ? 6 : 1, 10, joins);
        const uint32_t cluster = seed % 2 ? 4 : 8;
        th_hpa *h = th_hpa_create(&m, cluster, 3), *fresh = th_hpa_create(&m, cluster, 1);
        ck_assert(h && fresh);
        ck_assert_int_eq(th_hpa_build(h, &m, pool), TH_NAV_OK);
        th_hpa_query *q = th_hpa_query_create(h, 16);
        uint32_t *path = malloc(sizeof *path * m.ncells * 2);
        uint64_t *ref = malloc(sizeof *ref * m.ncells);
        uint64_t ctr = 0;
        for (int round = 0; round < 30; round++) {
            int32_t x0, y0;
            if (round % 2) { /* a glued cell */
                uint32_t c = (uint32_t)(th_test_rnd(seed, 20, &ctr, 2)
                                            ? joins[th_test_rnd(seed, 21, &ctr, (uint32_t)nj)].a
                                            : joins[th_test_rnd(seed, 21, &ctr, (uint32_t)nj)].b);
                x0 = (int32_t)(c % (uint32_t)m.w);
                y0 = (int32_t)(c / (uint32_t)m.w);
            } else {
                x0 = 1 + (int32_t)th_test_rnd(seed, 22, &ctr, (uint32_t)m.w - 2);
                y0 = 1 + (int32_t)th_test_rnd(seed, 22, &ctr, (uint32_t)m.h - 2);
            }
            const uint32_t kind = th_test_rnd(seed, 23, &ctr, 3);
            if (kind == 0) th_navmap_set_blocked(&m, x0, y0, true);
            else if (kind == 1 && th_navmap_is_blocked(&m, x0, y0))
                th_navmap_break_wall(&m, x0, y0);
            else if (!th_navmap_is_blocked(&m, x0, y0))
                th_navmap_set_cost(&m, x0, y0, 1 + th_test_rnd(seed, 24, &ctr, 9));
            th_navmap_update_moves(&m, NULL);
            ck_assert_int_eq(th_hpa_cells_changed(h, &m, round % 3 ? pool : NULL, x0, y0, x0, y0),
                             TH_NAV_OK);
            ck_assert_int_eq(th_hpa_landmarks_build(h, &m, round % 2 ? pool : NULL), TH_NAV_OK);
            ck_assert_int_eq(th_hpa_build(fresh, &m, NULL), TH_NAV_OK);
            ck_assert_uint_eq(th_hpa_digest(h), th_hpa_digest(fresh));
            for (int k = 0; k < 4; k++) {
                int32_t sx, sy, gx, gy;
                draw_open(&m, seed, 25, &ctr, &sx, &sy);
                draw_open(&m, seed, 25, &ctr, &gx, &gy);
                const th_ref_goal g = {gx, gy, 0};
                ck_assert_int_eq(th_ref_dijkstra_joined(m.w, m.h, m.cost, &g, 1, joins, nj, ref),
                                 0);
                const uint64_t best = ref[(uint32_t)sy * (uint32_t)m.w + (uint32_t)sx];
                uint32_t len = 0, cost = 0, seams = 0;
                int rc = th_hpa_find(q, h, &m, sx, sy, gx, gy, path, m.ncells * 2, &len, &cost);
                if (best == TH_REF_INF) {
                    ck_assert_int_eq(rc, TH_NAV_ENOPATH);
                    continue;
                }
                ck_assert_int_eq(rc, TH_NAV_OK);
                ck_assert_uint_eq(path_cost(&m, joins, nj, path, len, &seams), cost);
                ck_assert_uint_ge(cost, best);
            }
        }
        free(path);
        free(ref);
        th_hpa_query_destroy(q);
        th_hpa_destroy(h);
        th_hpa_destroy(fresh);
        th_navmap_free(&m);
    }
    th_pool_destroy(pool);
}
END_TEST

/* Queries and repairs on a map with glued edges allocate nothing; searches in pieces and IDA*
 * agree with A*. */
START_TEST(no_allocation_pieces_and_ida) {
    th_navmap m;
    th_ref_join joins[256];
    int nj = building(&m, 4600, 3, 2, 12, 9, 8, 3, 12, joins);
    ck_assert_int_gt(nj, 0);
    th_hpa *h = th_hpa_create(&m, 8, 2);
    th_hpa_query *q = th_hpa_query_create(h, 0), *q2 = th_hpa_query_create(h, 0);
    th_pool *pool = th_pool_create(2);
    ck_assert_int_eq(th_hpa_build(h, &m, pool), TH_NAV_OK);
    uint32_t *path = malloc(sizeof *path * m.ncells * 2), *p2 = malloc(sizeof *p2 * m.ncells * 2);
    uint64_t ctr = 0;
    uint32_t ida = 0;
    const uint64_t before = th_alloc_count();
    for (int k = 0; k < 40; k++) {
        int32_t sx = 1 + (int32_t)th_test_rnd(9, 1, &ctr, (uint32_t)m.w - 2);
        int32_t sy = 1 + (int32_t)th_test_rnd(9, 1, &ctr, (uint32_t)m.h - 2);
        int32_t gx = 1 + (int32_t)th_test_rnd(9, 1, &ctr, (uint32_t)m.w - 2);
        int32_t gy = 1 + (int32_t)th_test_rnd(9, 1, &ctr, (uint32_t)m.h - 2);
        uint32_t len = 0, cost = 0, l2 = 0, c2 = 0, ic = 0;
        uint64_t ex = 0;
        int rc = th_hpa_find(q, h, &m, sx, sy, gx, gy, path, m.ncells * 2, &len, &cost);
        ck_assert_int_eq(th_hpa_search_start(q2, h, &m, sx, sy, gx, gy), TH_NAV_OK);
        while (th_hpa_search_state(q2) == TH_HPA_RUNNING) th_hpa_search_run(q2, h, &m, 1);
        int r2 = th_hpa_search_path(q2, h, &m, p2, m.ncells * 2, &l2, &c2);
        ck_assert_int_eq(rc, r2);
        ck_assert_uint_eq(cost, c2);
        ck_assert_uint_eq(len, l2);
        for (uint32_t i = 0; i < len; i++) CHECK(path[i] == p2[i]);
        if (k % 4 == 0 && rc == TH_NAV_OK) {
            /* IDA*'s cost is the abstract optimum: the cell path's, as refinement is exact
             * (it may give up on its expansion cap: repeated work along equal routes). */
            int ri = th_hpa_ida_cost(q2, h, &m, sx, sy, gx, gy, 200000, &ic, &ex);
            ck_assert(ri == TH_NAV_OK || ri == TH_NAV_ETOOLONG);
            if (ri == TH_NAV_OK) {
                ck_assert_uint_eq(ic, cost);
                ida++;
            }
        }
        int32_t bx = (int32_t)(joins[k % nj].a % m.w), by = (int32_t)(joins[k % nj].a / m.w);
        if (k % 2) th_navmap_break_wall(&m, bx, by);
        else th_navmap_set_blocked(&m, bx, by, true);
        th_navmap_update_moves(&m, NULL);
        ck_assert_int_eq(th_hpa_cells_changed(h, &m, pool, bx, by, bx, by), TH_NAV_OK);
    }
    ck_assert_uint_eq(th_alloc_count(), before);
    ck_assert_uint_gt(ida, 0);
    free(path);
    free(p2);
    th_pool_destroy(pool);
    th_hpa_query_destroy(q);
    th_hpa_query_destroy(q2);
    th_hpa_destroy(h);
    th_navmap_free(&m);
}
END_TEST

/* Link slots are sized at creation: a map without glued edges gets none (its memory as
 * before), and edges glued later than the slots allow make the hierarchy refuse queries
 * rather than answer without them; edges that fit are taken by the next repair. */
START_TEST(link_slots_sized_at_creation) {
    th_navmap m;
    ck_assert_int_eq(th_navmap_init(&m, 40, 20, 1.0f), TH_NAV_OK);
    for (int32_t y = 0; y < 20; y++) th_navmap_set_blocked(&m, 20, y, false);
    th_navmap_update_moves(&m, NULL);
    th_hpa *plain = th_hpa_create(&m, 8, 1);
    ck_assert_uint_eq(th_hpa_get_info(plain).link_slots, 0);
    ck_assert_uint_eq(th_hpa_get_info(plain).max_nodes, 16);
    ck_assert_int_eq(th_hpa_build(plain, &m, NULL), TH_NAV_OK);
    th_hpa_query *pq = th_hpa_query_create(plain, 0);
    uint32_t path[4096], len = 0, cost = 0;
    ck_assert_int_eq(th_hpa_find(pq, plain, &m, 5, 5, 30, 5, path, 4096, &len, &cost),
                     TH_NAV_ENOPATH);
    /* One glued edge: cell (19, 3) east to (21, 3). */
    ck_assert_int_eq(th_navmap_glue(&m, 19, 3, 0, 21, 3), TH_NAV_OK);
    ck_assert(!th_hpa_holds_links(plain, &m));
    ck_assert_int_eq(th_hpa_find(pq, plain, &m, 5, 5, 30, 5, path, 4096, &len, &cost),
                     TH_NAV_EINVAL);
    th_hpa *h = th_hpa_create(&m, 8, 1);
    ck_assert_uint_eq(th_hpa_get_info(h).link_slots, 8);
    ck_assert_int_eq(th_hpa_build(h, &m, NULL), TH_NAV_OK);
    th_hpa_query *q = th_hpa_query_create(h, 0);
    ck_assert_int_eq(th_hpa_find(q, h, &m, 5, 5, 30, 5, path, 4096, &len, &cost), TH_NAV_OK);
    /* More edges glued in the same cluster, within its slots: a repair takes them. */
    for (int32_t y = 4; y < 7; y++)
        ck_assert_int_eq(th_navmap_glue(&m, 19, y, 0, 21, y), TH_NAV_OK);
    ck_assert(th_hpa_holds_links(h, &m));
    ck_assert_int_eq(th_hpa_cells_changed(h, &m, NULL, 19, 4, 19, 6), TH_NAV_OK);
    ck_assert_uint_eq(th_hpa_get_info(h).link_nodes, 8);
    uint32_t c2 = 0;
    ck_assert_int_eq(th_hpa_find(q, h, &m, 5, 5, 30, 5, path, 4096, &len, &c2), TH_NAV_OK);
    ck_assert_uint_lt(c2, cost); /* the edge at row 5 is straight on the way */
    const uint32_t straight = c2;
    /* Both ends lie in cluster (2, 0): four glues are its 8 slots. Three more outgrow them:
     * refused, until a hierarchy is made for the map as it is. */
    for (int32_t y = 0; y < 3; y++)
        ck_assert_int_eq(th_navmap_glue(&m, 19, y, 0, 21, y), TH_NAV_OK);
    ck_assert(!th_hpa_holds_links(h, &m));
    ck_assert_int_eq(th_hpa_find(q, h, &m, 5, 5, 30, 5, path, 4096, &len, &c2), TH_NAV_EINVAL);
    ck_assert_int_eq(th_hpa_cells_changed(h, &m, NULL, 19, 0, 19, 2), TH_NAV_OK);
    ck_assert_uint_eq(th_hpa_get_info(h).full_clusters, 1);
    ck_assert_int_eq(th_hpa_find(q, h, &m, 5, 5, 30, 5, path, 4096, &len, &c2), TH_NAV_EINVAL);
    ck_assert(th_hpa_links_fit(&m, 8));
    th_hpa *again = th_hpa_create(&m, 8, 1);
    ck_assert_int_eq(th_hpa_build(again, &m, NULL), TH_NAV_OK);
    th_hpa_query *aq = th_hpa_query_create(again, 0);
    ck_assert_int_eq(th_hpa_find(aq, again, &m, 5, 5, 30, 5, path, 4096, &len, &cost), TH_NAV_OK);
    ck_assert_uint_eq(cost, straight);
    th_hpa_query_destroy(aq);
    th_hpa_destroy(again);
    th_hpa_query_destroy(q);
    th_hpa_query_destroy(pq);
    th_hpa_destroy(h);
    th_hpa_destroy(plain);
    th_navmap_free(&m);
}
END_TEST

int main(void) {
    Suite *s = suite_create("hpa_seams");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, paths_across_seams_match_dijkstra);
    tcase_add_test(tc, landmarks_keep_the_optimum);
    tcase_add_test(tc, landing_walled_off);
    tcase_add_test(tc, repair_across_seams_equals_rebuild);
    tcase_add_test(tc, no_allocation_pieces_and_ida);
    tcase_add_test(tc, link_slots_sized_at_creation);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
