/* IDA* on the cells: its cost equals the engine's A* and an independent plain Dijkstra on
 * random small maps (walls, weighted costs, with and without landmark bounds), and its route is
 * a walk of allowed moves that costs what it reports; unreachable goals, start == goal, walls
 * at an end and the expansion bound give clear statuses; its memory follows the route's depth;
 * the world's query agrees with th_world_find_path and refuses bad input. */
#include <check.h>
#include <stdlib.h>

#include "engine/alloc.h"
#include "sim/nav/nav.h"
#include "tests/ref_dijkstra.h"
#include "test_util.h"
#include "throng/throng.h"

/* Budget for the random maps: far above what their queries need, so reaching it is a failure. */
#define BUDGET 50000000u

static void random_map(th_navmap *m, uint64_t seed, uint32_t side, uint32_t block_pct,
                       uint32_t max_cost) {
    uint64_t ctr = 0;
    int32_t w = 3 + (int32_t)th_test_rnd(seed, 1, &ctr, side),
            h = 3 + (int32_t)th_test_rnd(seed, 1, &ctr, side);
    ck_assert_int_eq(th_navmap_init(m, w, h, 1.0f), TH_NAV_OK);
    for (int32_t y = 0; y < h; y++) {
        for (int32_t x = 0; x < w; x++) {
            if (th_test_rnd(seed, 2, &ctr, 100) < block_pct) th_navmap_set_blocked(m, x, y, true);
            else if (max_cost > 1 && th_test_rnd(seed, 4, &ctr, 3) == 0)
                th_navmap_set_cost(m, x, y, 1 + th_test_rnd(seed, 5, &ctr, max_cost));
        }
    }
}

/* The route is start..goal, each step an allowed move of the map, and its moves sum to `cost`
 * under the cost rule restated from nav.h. */
static void check_route(const th_navmap *m, const th_ida *ida, uint32_t start, uint32_t goal,
                        uint32_t cost) {
    ck_assert_uint_ge(ida->len, 1);
    ck_assert_uint_eq(ida->path[0], start);
    ck_assert_uint_eq(ida->path[ida->len - 1], goal);
    const uint32_t w = (uint32_t)m->w;
    uint64_t sum = 0;
    for (uint32_t i = 1; i < ida->len; i++) {
        uint32_t a = ida->path[i - 1], b = ida->path[i];
        int32_t dx = (int32_t)(b % w) - (int32_t)(a % w), dy = (int32_t)(b / w) - (int32_t)(a / w);
        int k = -1;
        for (int j = 0; j < 8; j++)
            if (th_nav_move_dx[j] == dx && th_nav_move_dy[j] == dy) k = j;
        ck_assert_int_ge(k, 0);
        ck_assert(m->moves[a] & (1u << k));
        sum += (uint64_t)(m->cost[a] + m->cost[b]) * (k < 4 ? 70u : 99u);
    }
    ck_assert_uint_eq(sum, cost);
}

/* Random queries on one map: IDA*'s cost equals the reference Dijkstra's and A*'s. */
static void check_queries(const th_navmap *m, th_astar_ctx *a, const th_astar_ctx *bounds,
                          uint64_t seed, int queries, uint32_t *found) {
    uint32_t *path = malloc(sizeof *path * m->ncells);
    uint64_t *ref = malloc(sizeof *ref * m->ncells);
    th_ida ida = {0};
    uint64_t ctr = 0;
    for (int q = 0; q < queries; q++) {
        int32_t sx = (int32_t)th_test_rnd(seed, 7, &ctr, (uint32_t)m->w);
        int32_t sy = (int32_t)th_test_rnd(seed, 7, &ctr, (uint32_t)m->h);
        int32_t gx = (int32_t)th_test_rnd(seed, 7, &ctr, (uint32_t)m->w);
        int32_t gy = (int32_t)th_test_rnd(seed, 7, &ctr, (uint32_t)m->h);
        th_ref_goal g = {gx, gy, 0};
        ck_assert_int_eq(th_ref_dijkstra(m->w, m->h, m->cost, &g, 1, ref), 0);
        const uint32_t start = (uint32_t)sy * (uint32_t)m->w + (uint32_t)sx;
        const uint32_t goal = (uint32_t)gy * (uint32_t)m->w + (uint32_t)gx;
        uint32_t want = th_ref_to_field(ref[start], TH_NAV_DIST_MAX);
        uint32_t len = 0, ca = 0, ci = 0;
        int ra = th_astar_find(a, m, sx, sy, gx, gy, path, m->ncells, &len, &ca);
        int ri = th_ida_find(&ida, m, bounds, sx, sy, gx, gy, BUDGET, &ci);
        if (want == TH_NAV_UNREACHABLE) {
            ck_assert_int_eq(ra, TH_NAV_ENOPATH);
            /* Blocked ends and regions the landmarks tell apart are refused at once; other
             * unreachable goals may use up the budget, but must never yield a route. */
            if (th_navmap_is_blocked(m, sx, sy) || th_navmap_is_blocked(m, gx, gy) || bounds)
                ck_assert_int_eq(ri, TH_NAV_ENOPATH);
            else ck_assert(ri == TH_NAV_ENOPATH || ri == TH_NAV_ELIMIT);
            ck_assert_uint_eq(ida.len, 0);
            continue;
        }
        ck_assert_int_eq(ra, TH_NAV_OK);
        ck_assert_msg(ri == TH_NAV_OK, "seed %llu query %d: IDA* status %d",
                      (unsigned long long)seed, q, ri);
        ck_assert_uint_eq(ca, want);
        ck_assert_uint_eq(ci, want);
        check_route(m, &ida, start, goal, ci);
        /* O(depth) memory: the arrays are at most twice the deepest route (or the first 64). */
        ck_assert_uint_le(ida.deepest, m->ncells - m->cost_count[0]);
        ck_assert_uint_le(ida.cap, ida.deepest * 2u > 64u ? ida.deepest * 2u : 64u);
        (*found)++;
    }
    th_ida_free(&ida);
    free(path);
    free(ref);
}

START_TEST(ida_matches_astar_and_dijkstra) {
    uint32_t found = 0;
    for (uint64_t seed = 0; seed < 150; seed++) {
        th_navmap m;
        /* Sides 3..10; no walls, or 10..30 % walls; one cost, costs 1..9, or 1..1000. */
        uint32_t max_cost = seed % 3 == 0 ? 1 : seed % 3 == 1 ? 9 : 1000;
        random_map(&m, 9100 + seed, 8, (uint32_t)(seed % 4) * 10, max_cost);
        th_astar_ctx *a = th_astar_create(&m), *lm = th_astar_create(&m);
        ck_assert_ptr_nonnull(a);
        ck_assert_ptr_nonnull(lm);
        ck_assert_int_ge(th_astar_landmarks_build(lm, &m, NULL, TH_ASTAR_LANDMARK_BUDGET), 0);
        check_queries(&m, a, NULL, seed, 8, &found);
        check_queries(&m, a, lm, seed + 1000, 8, &found);
        th_astar_destroy(a);
        th_astar_destroy(lm);
        th_navmap_free(&m);
    }
    ck_assert_uint_gt(found, 1500); /* most queries had a route to compare */
}
END_TEST

/* Start == goal, walls at an end, a walled-off goal, and a bad budget. */
START_TEST(ida_edge_cases) {
    th_navmap m;
    ck_assert_int_eq(th_navmap_init(&m, 9, 9, 1.0f), TH_NAV_OK);
    /* A pocket around (7, 7): walls on x = 6 and y = 6 from the corner. */
    for (int32_t i = 6; i < 9; i++) {
        th_navmap_set_blocked(&m, 6, i, false);
        th_navmap_set_blocked(&m, i, 6, false);
    }
    th_navmap_set_blocked(&m, 2, 2, false);
    th_ida ida = {0};
    uint32_t cost = 0;
    ck_assert_int_eq(th_ida_find(&ida, &m, NULL, 1, 1, 1, 1, 10, &cost), TH_NAV_OK);
    ck_assert_uint_eq(ida.len, 1);
    ck_assert_uint_eq(ida.path[0], 1u * 9u + 1u);
    ck_assert_uint_eq(cost, 0);
    ck_assert_int_eq(th_ida_find(&ida, &m, NULL, 2, 2, 0, 0, 10, &cost), TH_NAV_ENOPATH);
    ck_assert_uint_eq(cost, TH_NAV_UNREACHABLE);
    ck_assert_int_eq(th_ida_find(&ida, &m, NULL, 0, 0, 2, 2, 10, &cost), TH_NAV_ENOPATH);
    ck_assert_int_eq(th_ida_find(&ida, &m, NULL, -1, 0, 2, 3, 10, &cost), TH_NAV_ENOPATH);
    ck_assert_int_eq(th_ida_find(&ida, &m, NULL, 0, 0, 0, 9, 10, &cost), TH_NAV_ENOPATH);
    ck_assert_int_eq(th_ida_find(&ida, &m, NULL, 0, 0, 1, 1, 0, &cost), TH_NAV_ERANGE);
    ck_assert_int_eq(th_ida_find(NULL, &m, NULL, 0, 0, 1, 1, 10, &cost), TH_NAV_EINVAL);
    ck_assert_int_eq(th_ida_find(&ida, NULL, NULL, 0, 0, 1, 1, 10, &cost), TH_NAV_EINVAL);
    /* The pocket: without landmarks IDA* learns it is cut off only by following every route
     * it can take (it keeps no record of the cells it saw), so a small budget gives up first;
     * with landmarks it knows at once. */
    ck_assert_int_eq(th_ida_find(&ida, &m, NULL, 0, 0, 7, 7, 50, &cost), TH_NAV_ELIMIT);
    ck_assert_uint_eq(ida.expanded, 50);
    ck_assert_uint_eq(ida.len, 0);
    ck_assert_int_eq(th_ida_find(&ida, &m, NULL, 0, 0, 7, 7, BUDGET, &cost), TH_NAV_ENOPATH);
    ck_assert_uint_gt(ida.expanded, 50);
    th_astar_ctx *lm = th_astar_create(&m);
    ck_assert_int_gt(th_astar_landmarks_build(lm, &m, NULL, TH_ASTAR_LANDMARK_BUDGET), 0);
    ck_assert_int_eq(th_ida_find(&ida, &m, lm, 0, 0, 7, 7, 20000, &cost), TH_NAV_ENOPATH);
    ck_assert_uint_eq(ida.expanded, 0);
    th_astar_destroy(lm);
    th_ida_free(&ida);
    th_ida_free(&ida); /* freeing twice is harmless */
    th_navmap_free(&m);
}
END_TEST

/* The expansion bound: a query that needs N expansions gives up with any budget below N,
 * having made exactly the budget, and succeeds with N. */
START_TEST(ida_expansion_bound) {
    th_navmap m;
    ck_assert_int_eq(th_navmap_init(&m, 12, 12, 1.0f), TH_NAV_OK);
    for (int32_t y = 0; y < 10; y++)
        th_navmap_set_blocked(&m, 6, y, false); /* a wall to go round */
    th_ida ida = {0};
    uint32_t cost = 0;
    ck_assert_int_eq(th_ida_find(&ida, &m, NULL, 2, 2, 10, 2, BUDGET, &cost), TH_NAV_OK);
    const uint64_t need = ida.expanded;
    const uint32_t full = cost;
    ck_assert_uint_gt(need, 100);
    ck_assert_uint_gt(ida.passes, 1);
    const uint64_t budgets[] = {1, 2, 17, need / 2, need - 1};
    for (size_t i = 0; i < sizeof budgets / sizeof budgets[0]; i++) {
        ck_assert_int_eq(th_ida_find(&ida, &m, NULL, 2, 2, 10, 2, budgets[i], &cost),
                         TH_NAV_ELIMIT);
        ck_assert_uint_eq(ida.expanded, budgets[i]);
        ck_assert_uint_eq(ida.len, 0);
        ck_assert_uint_eq(cost, TH_NAV_UNREACHABLE);
    }
    ck_assert_int_eq(th_ida_find(&ida, &m, NULL, 2, 2, 10, 2, need, &cost), TH_NAV_OK);
    ck_assert_uint_eq(cost, full);
    th_ida_free(&ida);
    th_navmap_free(&m);
}
END_TEST

/* Glued edges: IDA* crosses them, with the landmarks' bound alone, at the joined reference's
 * cost. */
START_TEST(ida_glued_edges) {
    th_navmap m;
    ck_assert_int_eq(th_navmap_init(&m, 10, 5, 1.0f), TH_NAV_OK);
    for (int32_t y = 0; y < 5; y++) th_navmap_set_blocked(&m, 5, y, false); /* two halves */
    /* East out of (4, 2) leads into (6, 2). */
    ck_assert_int_eq(th_navmap_glue(&m, 4, 2, 0, 6, 2), TH_NAV_OK);
    th_navmap_update_moves(&m, NULL);
    th_astar_ctx *lm = th_astar_create(&m);
    ck_assert_int_ge(th_astar_landmarks_build(lm, &m, NULL, TH_ASTAR_LANDMARK_BUDGET), 0);
    th_ref_goal g = {9, 4, 0};
    th_ref_join j = {2 * 10 + 4, 2 * 10 + 6};
    uint64_t ref[50];
    ck_assert_int_eq(th_ref_dijkstra_joined(10, 5, m.cost, &g, 1, &j, 1, ref), 0);
    th_ida ida = {0};
    for (int pass = 0; pass < 2; pass++) {
        uint32_t cost = 0;
        ck_assert_int_eq(th_ida_find(&ida, &m, pass ? lm : NULL, 0, 0, 9, 4, BUDGET, &cost),
                         TH_NAV_OK);
        ck_assert_uint_eq(cost, ref[0]);
        ck_assert_uint_eq(ida.path[0], 0);
        ck_assert_uint_eq(ida.path[ida.len - 1], 4 * 10 + 9);
    }
    th_ida_free(&ida);
    th_astar_destroy(lm);
    th_navmap_free(&m);
}
END_TEST

/* The world's query: A*'s cost and pulled endpoints; errors for bad input, blocked ends, the
 * budget and too little room. */
START_TEST(world_ida_path) {
    th_world_def wd = th_default_world_def();
    wd.width = 24;
    wd.height = 16;
    wd.cell_size = 1.0f;
    th_error err;
    th_world *w = th_world_create(&wd, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    for (int32_t y = 0; y < 12; y++) ck_assert(th_world_set_cell(w, 10, y, TH_CELL_WALL, 1, &err));
    for (int32_t y = 4; y < 16; y++) ck_assert(th_world_set_cell(w, 16, y, TH_CELL_WALL, 1, &err));
    for (int32_t x = 0; x < 8; x++) ck_assert(th_world_set_cell(w, x, 10, TH_CELL_OPEN, 4, &err));
    th_vec2 pts[64], ref[64];
    uint32_t n = 0, rn = 0;
    float cost = 0.0f, rcost = 0.0f;
    const th_vec2 from = th_v2(2.5f, 2.5f), to = th_v2(21.5f, 14.5f);
    /* Before A* ever ran (no landmarks), then after (landmarks built by th_world_find_path). */
    for (int round = 0; round < 2; round++) {
        ck_assert_msg(th_world_find_path_ida(w, from, to, 0, pts, 64, &n, &cost, &err), "%s",
                      err.message);
        ck_assert_msg(th_world_find_path(w, from, to, ref, 64, &rn, &rcost, &err), "%s",
                      err.message);
        ck_assert_float_eq(cost, rcost);
        ck_assert_uint_ge(n, 3);
        ck_assert_float_eq(pts[0].x, from.x);
        ck_assert_float_eq(pts[0].y, from.y);
        ck_assert_float_eq(pts[n - 1].x, to.x);
        ck_assert_float_eq(pts[n - 1].y, to.y);
    }
    /* Too little room: LIMIT with the count needed. */
    ck_assert(!th_world_find_path_ida(w, from, to, 0, pts, 1, &n, NULL, &err));
    TH_TEST_ERR(err, TH_ERR_LIMIT);
    ck_assert_uint_gt(n, 1);
    /* The budget: LIMIT with no waypoints. */
    ck_assert(!th_world_find_path_ida(w, from, to, 5, pts, 64, &n, NULL, &err));
    TH_TEST_ERR(err, TH_ERR_LIMIT);
    ck_assert_uint_eq(n, 0);
    /* A wall at the start: unreachable, as for A*. */
    ck_assert(!th_world_find_path_ida(w, th_v2(10.5f, 2.5f), to, 0, pts, 64, &n, NULL, &err));
    TH_TEST_ERR(err, TH_ERR_UNREACHABLE);
    /* Outside the world, a null world or buffers, an out-of-range budget. */
    ck_assert(!th_world_find_path_ida(w, th_v2(-3.0f, 2.5f), to, 0, pts, 64, &n, NULL, &err));
    ck_assert_int_ne(err.code, TH_OK);
    ck_assert(!th_world_find_path_ida(NULL, from, to, 0, pts, 64, &n, NULL, &err));
    TH_TEST_ERR(err, TH_ERR_INVALID);
    ck_assert(!th_world_find_path_ida(w, from, to, 0, NULL, 64, &n, NULL, &err));
    TH_TEST_ERR(err, TH_ERR_INVALID);
    ck_assert(!th_world_find_path_ida(w, from, to, 0, pts, 64, NULL, NULL, &err));
    TH_TEST_ERR(err, TH_ERR_INVALID);
    ck_assert(
        !th_world_find_path_ida(w, from, to, TH_IDA_MAX_EXPANSIONS + 1, pts, 64, &n, NULL, &err));
    TH_TEST_ERR(err, TH_ERR_INVALID);
    th_world_destroy(w);
}
END_TEST

int main(void) {
    Suite *s = suite_create("idastar");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, ida_matches_astar_and_dijkstra);
    tcase_add_test(tc, ida_edge_cases);
    tcase_add_test(tc, ida_expansion_bound);
    tcase_add_test(tc, ida_glued_edges);
    tcase_add_test(tc, world_ida_path);
    suite_add_tcase(s, tc);
    return th_test_run(s);
}
