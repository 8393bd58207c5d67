/* A* with landmark (ALT) lower bounds: costs equal an independent Dijkstra on random maps,
 * including after walls come and go between queries; the bound never exceeds the true cost;
 * over-budget maps keep the octile bound. */
#include <check.h>
#include <stdlib.h>

#include "engine/alloc.h"
#include "engine/jobs.h"
#include "engine/rng.h"
#include "sim/nav/nav.h"
#include "tests/ref_dijkstra.h"
#include "test_util.h"

static void random_map(th_navmap *m, uint64_t seed, uint32_t block_pct, uint32_t max_cost) {
    uint64_t ctr = 0;
    int32_t w = 4 + (int32_t)th_test_rnd(seed, 1, &ctr, 40),
            h = 4 + (int32_t)th_test_rnd(seed, 1, &ctr, 40);
    ck_assert_int_eq(th_navmap_init(m, w, h, 1.0f), TH_NAV_OK);
    for (int32_t y = 0; y < h; y++) {
        for (int32_t x = 0; x < w; x++) {
            if (th_test_rnd(seed, 2, &ctr, 100) < block_pct) th_navmap_set_blocked(m, x, y, true);
            else if (th_test_rnd(seed, 4, &ctr, 3) == 0)
                th_navmap_set_cost(m, x, y, 1 + th_test_rnd(seed, 5, &ctr, max_cost));
        }
    }
}

/* Random queries: A*'s cost equals the reference Dijkstra from the goal, and the bound A*
 * would use from every cell is at most that cell's true cost to the goal. */
static void check_queries(th_astar_ctx *a, const th_navmap *m, uint64_t seed, int queries) {
    uint32_t *path = malloc(sizeof *path * m->ncells);
    uint64_t *ref = malloc(sizeof *ref * m->ncells);
    uint64_t ctr = 0;
    for (int q = 0; q < queries; q++) {
        int32_t sx = (int32_t)th_test_rnd(seed, 7, &ctr, (uint32_t)m->w);
        int32_t sy = (int32_t)th_test_rnd(seed, 7, &ctr, (uint32_t)m->h);
        int32_t gx = (int32_t)th_test_rnd(seed, 7, &ctr, (uint32_t)m->w);
        int32_t gy = (int32_t)th_test_rnd(seed, 7, &ctr, (uint32_t)m->h);
        th_ref_goal g = {gx, gy, 0};
        ck_assert_int_eq(th_ref_dijkstra(m->w, m->h, m->cost, &g, 1, ref), 0);
        for (int32_t y = 0; y < m->h; y++) {
            for (int32_t x = 0; x < m->w; x++) {
                uint64_t d = ref[(uint32_t)y * (uint32_t)m->w + (uint32_t)x];
                if (d == TH_REF_INF) continue;
                ck_assert_uint_le(th_astar_bound(a, m, x, y, gx, gy), d);
            }
        }
        uint32_t want =
            th_ref_to_field(ref[(uint32_t)sy * (uint32_t)m->w + (uint32_t)sx], TH_NAV_DIST_MAX);
        uint32_t len = 0, cost = 0;
        int rc = th_astar_find(a, m, sx, sy, gx, gy, path, m->ncells, &len, &cost);
        if (want == TH_NAV_UNREACHABLE) {
            ck_assert_int_eq(rc, TH_NAV_ENOPATH);
        } else {
            ck_assert_int_eq(rc, TH_NAV_OK);
            ck_assert_uint_eq(cost, want);
        }
    }
    free(path);
    free(ref);
}

START_TEST(test_alt_matches_dijkstra) {
    th_pool *pool = th_pool_create(3);
    for (uint64_t seed = 0; seed < 40; seed++) {
        th_navmap m;
        random_map(&m, 7100 + seed, (uint32_t)(seed % 4) * 10, seed % 3 ? 9 : 1000);
        th_astar_ctx *a = th_astar_create(&m);
        ck_assert_ptr_nonnull(a);
        int kept =
            th_astar_landmarks_build(a, &m, seed % 2 ? pool : NULL, TH_ASTAR_LANDMARK_BUDGET);
        ck_assert_int_ge(kept, 0);
        ck_assert_int_le(kept, TH_ASTAR_LANDMARKS);
        check_queries(a, &m, seed, 10);
        /* Walls added and removed between queries: stale landmarks must not be trusted... */
        uint64_t ctr = 0;
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < 12; i++) {
                int32_t x = (int32_t)th_test_rnd(seed, 20 + (uint64_t)round, &ctr, (uint32_t)m.w);
                int32_t y = (int32_t)th_test_rnd(seed, 20 + (uint64_t)round, &ctr, (uint32_t)m.h);
                if (th_navmap_is_blocked(&m, x, y)) th_navmap_break_wall(&m, x, y);
                else th_navmap_set_blocked(&m, x, y, true);
            }
            check_queries(a, &m, seed * 7 + (uint64_t)round, 6);
            /* ...and rebuilt ones are exact again. */
            ck_assert_int_ge(th_astar_landmarks_build(a, &m, pool, TH_ASTAR_LANDMARK_BUDGET), 0);
            check_queries(a, &m, seed * 11 + (uint64_t)round, 6);
        }
        th_astar_destroy(a);
        th_navmap_free(&m);
    }
    th_pool_destroy(pool);
}
END_TEST

/* Landmarks make the bound tighter than octile somewhere, so the test above exercises them;
 * a zero budget keeps the octile bound exactly. */
START_TEST(test_alt_active_and_budget) {
    th_navmap m;
    ck_assert_int_eq(th_navmap_init(&m, 40, 40, 1.0f), TH_NAV_OK);
    for (int32_t y = 0; y < 36; y++) th_navmap_set_blocked(&m, 20, y, false); /* a long wall */
    th_astar_ctx *a = th_astar_create(&m), *b = th_astar_create(&m);
    ck_assert_int_eq(th_astar_landmarks_build(a, &m, NULL, TH_ASTAR_LANDMARK_BUDGET),
                     TH_ASTAR_LANDMARKS);
    ck_assert_int_eq(th_astar_landmarks_build(b, &m, NULL, (size_t)m.ncells * 34u - 1u), 0);
    uint32_t octile = th_astar_bound(b, &m, 18, 0, 22, 0);
    ck_assert_uint_gt(th_astar_bound(a, &m, 18, 0, 22, 0), octile);
    uint32_t path[1600], len, ca, cb;
    ck_assert_int_eq(th_astar_find(a, &m, 18, 0, 22, 0, path, 1600, &len, &ca), TH_NAV_OK);
    uint64_t ea = th_astar_expanded(a);
    ck_assert_int_eq(th_astar_find(b, &m, 18, 0, 22, 0, path, 1600, &len, &cb), TH_NAV_OK);
    ck_assert_uint_eq(ca, cb);
    ck_assert_uint_lt(ea, th_astar_expanded(b));
    /* A map change turns the landmarks off until rebuilt. */
    th_navmap_set_cost(&m, 5, 5, 2);
    ck_assert_uint_eq(th_astar_bound(a, &m, 18, 0, 22, 0), th_astar_bound(b, &m, 18, 0, 22, 0));
    th_astar_destroy(a);
    th_astar_destroy(b);
    th_navmap_free(&m);
}
END_TEST

int main(void) {
    Suite *s = suite_create("astar_alt");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_alt_matches_dijkstra);
    tcase_add_test(tc, test_alt_active_and_budget);
    suite_add_tcase(s, tc);
    return th_test_run(s);
}
