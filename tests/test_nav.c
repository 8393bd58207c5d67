/* Navigation layer tests: fields against an independent Dijkstra, repairs against full
 * recomputes, combined field, flow following, A*, line of sight, wall distance. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/alloc.h"
#include "engine/jobs.h"
#include "engine/rng.h"
#include "sim/nav/nav.h"
#include "sim/core/world.h"
#include "tests/ref_dijkstra.h"
#include "test_util.h"

/* ---------------------------------------------------------------------------------------- */
/* Helpers */

/* A random map: sizes in [4, 4+span), blocked with probability block_pct %, some blocked cells
 * destructible, open cells of cost 1 or a random cost up to max_cost. */
static void random_map(th_navmap *m, uint64_t seed, int span, uint32_t block_pct,
                       uint32_t max_cost) {
    uint64_t ctr = 0;
    int32_t w = 4 + (int32_t)th_test_rnd(seed, 1, &ctr, (uint32_t)span);
    int32_t h = 4 + (int32_t)th_test_rnd(seed, 1, &ctr, (uint32_t)span);
    ck_assert_int_eq(th_navmap_init(m, w, h, 0.5f + (float)th_test_rnd(seed, 1, &ctr, 4)),
                     TH_NAV_OK);
    for (int32_t y = 0; y < h; y++) {
        for (int32_t x = 0; x < w; x++) {
            uint32_t r = th_test_rnd(seed, 2, &ctr, 100);
            if (r < block_pct) {
                th_navmap_set_blocked(m, x, y, th_test_rnd(seed, 3, &ctr, 2) == 0);
            } else if (th_test_rnd(seed, 4, &ctr, 3) == 0) {
                th_navmap_set_cost(m, x, y, 1 + th_test_rnd(seed, 5, &ctr, max_cost));
            }
        }
    }
    th_navmap_update_walls(m, NULL);
}

static uint32_t random_goals(const th_navmap *m, uint64_t seed, th_nav_goal *goals, uint32_t max,
                             bool huge_weights) {
    uint64_t ctr = 0;
    uint32_t n = 1 + th_test_rnd(seed, 10, &ctr, max);
    for (uint32_t i = 0; i < n; i++) {
        goals[i].x = (int32_t)th_test_rnd(seed, 11, &ctr, (uint32_t)m->w);
        goals[i].y = (int32_t)th_test_rnd(seed, 11, &ctr, (uint32_t)m->h);
        uint32_t kind = th_test_rnd(seed, 12, &ctr, 4);
        goals[i].weight = kind == 0 ? 0 : th_test_rnd(seed, 13, &ctr, 5000);
        /* Weights far apart exercise seeds entering the bucket ring late; one near the cap
         * exercises the unreachable-above-cap rule. */
        if (huge_weights && kind == 1)
            goals[i].weight = 3000000u + th_test_rnd(seed, 14, &ctr, 1000000);
        if (huge_weights && kind == 2)
            goals[i].weight = TH_NAV_DIST_MAX - th_test_rnd(seed, 15, &ctr, 2000);
    }
    return n;
}

static void ref_field(const th_navmap *m, const th_nav_goal *goals, uint32_t n, uint32_t *out) {
    th_ref_goal rg[64];
    ck_assert_uint_le(n, 64);
    for (uint32_t i = 0; i < n; i++) rg[i] = (th_ref_goal){goals[i].x, goals[i].y, goals[i].weight};
    uint64_t *d = malloc(sizeof *d * m->ncells);
    ck_assert_ptr_nonnull(d);
    ck_assert_int_eq(th_ref_dijkstra(m->w, m->h, m->cost, rg, (int)n, d), 0);
    for (uint32_t i = 0; i < m->ncells; i++) out[i] = th_ref_to_field(d[i], TH_NAV_DIST_MAX);
    free(d);
}

static uint64_t edge_cost(const th_navmap *m, uint32_t a, int k) {
    return ((uint64_t)m->cost[a] +
            m->cost[(uint32_t)((int32_t)a + th_nav_move_dy[k] * m->w + th_nav_move_dx[k])]) *
           (k < 4 ? 70u : 99u);
}

/* The field equals the reference exactly, and every descent code is a cheapest first move. */
static void check_field(const th_nav_field *f, const th_navmap *m, const th_nav_goal *goals,
                        uint32_t ngoals) {
    uint32_t *ref = malloc(sizeof *ref * m->ncells);
    ck_assert_ptr_nonnull(ref);
    ref_field(m, goals, ngoals, ref);
    for (uint32_t c = 0; c < m->ncells; c++) {
        ck_assert_uint_eq(f->dist[c], ref[c]);
        uint8_t k = f->descent[c];
        if (ref[c] == TH_NAV_UNREACHABLE) {
            ck_assert_uint_eq(k, TH_NAV_DESCENT_UNREACHABLE);
        } else if (k == TH_NAV_DESCENT_GOAL) {
            bool is_goal = false;
            for (uint32_t i = 0; i < ngoals; i++) {
                uint32_t gc = (uint32_t)goals[i].y * (uint32_t)m->w + (uint32_t)goals[i].x;
                if (gc == c && goals[i].weight == ref[c]) is_goal = true;
            }
            ck_assert(is_goal);
        } else {
            ck_assert_uint_lt(k, 8);
            ck_assert(m->moves[c] & (1u << k));
            uint32_t n = (uint32_t)((int32_t)c + th_nav_move_dy[k] * m->w + th_nav_move_dx[k]);
            ck_assert_uint_ne(ref[n], TH_NAV_UNREACHABLE);
            ck_assert_uint_eq((uint64_t)ref[n] + edge_cost(m, c, k), ref[c]);
        }
    }
    free(ref);
}

static void assert_fields_equal(const th_nav_field *a, const th_nav_field *b) {
    ck_assert_uint_eq(a->ncells, b->ncells);
    for (uint32_t c = 0; c < a->ncells; c++) {
        ck_assert_uint_eq(a->dist[c], b->dist[c]);
        ck_assert_uint_eq(a->descent[c], b->descent[c]);
    }
}

/* ---------------------------------------------------------------------------------------- */
/* Map */

START_TEST(test_map_bounds) {
    th_navmap m;
    ck_assert_int_eq(th_navmap_init(&m, 0, 4, 1.0f), TH_NAV_ERANGE);
    ck_assert_int_eq(th_navmap_init(&m, 4, TH_NAV_MAX_DIM + 1, 1.0f), TH_NAV_ERANGE);
    ck_assert_int_eq(th_navmap_init(&m, 4, 4, NAN), TH_NAV_ERANGE);
    ck_assert_int_eq(th_navmap_init(&m, 4, 4, 0.0f), TH_NAV_ERANGE);
    ck_assert_int_eq(th_navmap_init(&m, 4, 4, INFINITY), TH_NAV_ERANGE);
    ck_assert_int_eq(th_navmap_init(NULL, 4, 4, 1.0f), TH_NAV_EINVAL);
    th_navmap_free(&m);
    ck_assert_int_eq(th_navmap_init(&m, 6, 5, 2.0f), TH_NAV_OK);
    ck_assert_int_eq(th_navmap_set_cost(&m, 0, 0, 0), TH_NAV_ERANGE);
    ck_assert_int_eq(th_navmap_set_cost(&m, 0, 0, TH_NAV_COST_MAX + 1), TH_NAV_ERANGE);
    ck_assert_int_eq(th_navmap_set_cost(&m, -1, 0, 3), TH_NAV_ERANGE);
    ck_assert_int_eq(th_navmap_set_cost(&m, 6, 0, 3), TH_NAV_ERANGE);
    ck_assert_int_eq(th_navmap_set_blocked(&m, 0, 5, true), TH_NAV_ERANGE);
    ck_assert_int_eq(th_navmap_set_cost(&m, 2, 1, 5), TH_NAV_OK);
    ck_assert_uint_eq(th_navmap_cost(&m, 2, 1), 5);
    ck_assert_uint_eq(th_navmap_cost(&m, 99, 1), 0);

    ck_assert_int_eq(th_navmap_set_blocked(&m, 3, 3, false), TH_NAV_OK);
    ck_assert_int_eq(th_navmap_break_wall(&m, 3, 3), TH_NAV_EDENIED);
    ck_assert_int_eq(th_navmap_break_wall(&m, 2, 2), TH_NAV_EDENIED);
    ck_assert_int_eq(th_navmap_set_blocked(&m, 4, 3, true), TH_NAV_OK);
    ck_assert_int_eq(th_navmap_break_wall(&m, 4, 3), TH_NAV_OK);
    ck_assert_uint_eq(th_navmap_cost(&m, 4, 3), 1);
    ck_assert(th_navmap_is_blocked(&m, 3, 3));
    ck_assert(th_navmap_is_blocked(&m, -1, 0));

    int32_t x, y;
    th_navmap_cell_of(&m, th_v2(NAN, 5.0f), &x, &y);
    ck_assert_int_eq(x, 0);
    ck_assert_int_eq(y, 2);
    th_navmap_cell_of(&m, th_v2(1e30f, -1e30f), &x, &y);
    ck_assert_int_eq(x, 5);
    ck_assert_int_eq(y, 0);
    th_navmap_cell_of(&m, th_v2(INFINITY, -INFINITY), &x, &y);
    ck_assert_int_eq(x, 5);
    ck_assert_int_eq(y, 0);
    ck_assert(th_navmap_blocked_at(&m, th_v2(7.0f, 7.0f)));  /* cell (3,3) */
    ck_assert(!th_navmap_blocked_at(&m, th_v2(9.0f, 7.0f))); /* cell (4,3), broken */
    ck_assert(th_navmap_blocked_at(&m, th_v2(-0.1f, 1.0f)));
    ck_assert(th_navmap_blocked_at(&m, th_v2(12.0f, 1.0f)));
    ck_assert(th_navmap_blocked_at(&m, th_v2(NAN, 1.0f)));
    ck_assert_uint_eq(th_navmap_min_cost(&m), 1);
    th_navmap_free(&m);
}
END_TEST

START_TEST(test_moves_no_squeeze) {
    th_navmap m;
    ck_assert_int_eq(th_navmap_init(&m, 3, 3, 1.0f), TH_NAV_OK);
    /* Centre (1,1): blocking E forbids NE and SE but keeps NW, SW. */
    th_navmap_set_blocked(&m, 2, 1, false);
    uint8_t mv = m.moves[4];
    ck_assert(!(mv & (1u << 0)));
    ck_assert(!(mv & (1u << 4)));
    ck_assert(!(mv & (1u << 7)));
    ck_assert(mv & (1u << 5));
    ck_assert(mv & (1u << 6));
    ck_assert(mv & (1u << 1));
    /* Corner cell (0,0): no move leaves the map. */
    ck_assert_uint_eq(m.moves[0] & ((1u << 2) | (1u << 3) | (1u << 5) | (1u << 6) | (1u << 7)), 0);
    ck_assert_uint_eq(m.moves[5], 0); /* the blocked cell itself */
    th_navmap_free(&m);
}
END_TEST

/* Brute force: nearest blocked centre, including the virtual ring around the map. */
static double brute_wall(const th_navmap *m, int32_t x, int32_t y) {
    double best = INFINITY;
    for (int32_t by = -1; by <= m->h; by++) {
        for (int32_t bx = -1; bx <= m->w; bx++) {
            bool blocked = bx < 0 || by < 0 || bx >= m->w || by >= m->h ||
                           m->cost[(uint32_t)by * (uint32_t)m->w + (uint32_t)bx] == 0;
            if (!blocked) continue;
            double d = hypot((double)(bx - x), (double)(by - y));
            if (d < best) best = d;
        }
    }
    return best * m->cell_size;
}

START_TEST(test_wall_distance) {
    th_pool *pool = th_pool_create(3);
    ck_assert_ptr_nonnull(pool);
    for (uint64_t seed = 0; seed < 60; seed++) {
        th_navmap m;
        random_map(&m, 1000 + seed, 40, (uint32_t)(seed % 5) * 8, 5);
        for (int32_t y = 0; y < m.h; y++) {
            for (int32_t x = 0; x < m.w; x++) {
                uint32_t c = (uint32_t)y * (uint32_t)m.w + (uint32_t)x;
                double want = m.cost[c] == 0 ? 0.0 : brute_wall(&m, x, y);
                ck_assert_double_eq_tol(m.wall_dist[c], want, 1e-5 * (1.0 + want));
            }
        }
        float *serial = malloc(sizeof *serial * m.ncells);
        memcpy(serial, m.wall_dist, sizeof *serial * m.ncells);
        th_navmap_update_walls(&m, pool);
        ck_assert_mem_eq(serial, m.wall_dist, sizeof *serial * m.ncells);
        free(serial);

        /* Sampling: exact at centres; the gradient points to larger distance. */
        uint64_t ctr = 0;
        for (int i = 0; i < 50; i++) {
            int32_t x = (int32_t)th_test_rnd(seed, 30, &ctr, (uint32_t)m.w);
            int32_t y = (int32_t)th_test_rnd(seed, 30, &ctr, (uint32_t)m.h);
            th_vec2 centre = th_navmap_cell_centre(&m, x, y);
            th_vec2 away;
            float d = th_navmap_wall_sample(&m, centre, &away);
            ck_assert_float_eq_tol(d, m.wall_dist[(uint32_t)y * (uint32_t)m.w + (uint32_t)x],
                                   1e-4f);
            th_vec2 p = th_v2(centre.x + 0.3f * m.cell_size, centre.y + 0.2f * m.cell_size);
            float d0 = th_navmap_wall_sample(&m, p, &away);
            if (th_v2_len2(away) > 0.0f) {
                ck_assert_float_eq_tol(th_v2_len(away), 1.0f, 1e-5f);
                float d1 = th_navmap_wall_sample(
                    &m, th_v2_add(p, th_v2_scale(away, 1e-3f * m.cell_size)), NULL);
                ck_assert(d1 >= d0 - 1e-5f);
            }
        }
        th_vec2 away;
        ck_assert_float_eq(th_navmap_wall_sample(&m, th_v2(NAN, 1.0f), &away), 0.0f);
        ck_assert_float_eq(away.x, 0.0f);
        th_navmap_free(&m);
    }
    th_pool_destroy(pool);
}
END_TEST

/* ---- bulk map building --------------------------------------------------------------- */

/* Move masks by their definition, cell by cell: a move is allowed when the target is an open
 * cell of the map, and a diagonal one also needs both orthogonal cells it passes between. */
static bool ref_open(const th_navmap *m, int32_t x, int32_t y) {
    return x >= 0 && y >= 0 && x < m->w && y < m->h &&
           m->cost[(uint32_t)y * (uint32_t)m->w + (uint32_t)x] != 0;
}

static void check_moves(const th_navmap *m) {
    ck_assert(!m->moves_stale);
    for (int32_t y = 0; y < m->h; y++) {
        for (int32_t x = 0; x < m->w; x++) {
            unsigned want = 0;
            for (int k = 0; ref_open(m, x, y) && k < 8; k++) {
                int32_t dx = th_nav_move_dx[k], dy = th_nav_move_dy[k];
                bool ok = ref_open(m, x + dx, y + dy);
                if (k >= 4) ok = ok && ref_open(m, x + dx, y) && ref_open(m, x, y + dy);
                if (ok) want |= 1u << k;
            }
            ck_assert_msg(m->moves[(uint32_t)y * (uint32_t)m->w + (uint32_t)x] == want,
                          "moves of (%d, %d) on %d x %d", x, y, m->w, m->h);
        }
    }
}

/* Wall distances by brute force, in the same arithmetic as the map's (float of the square root
 * of the exact squared integer distance, times the cell size): equal bit for bit. */
static void check_walls(const th_navmap *m) {
    /* Every blocked cell, the ring around the map included, listed once. */
    int32_t *wx = malloc(sizeof *wx * (size_t)(m->w + 2) * (size_t)(m->h + 2));
    int32_t *wy = malloc(sizeof *wy * (size_t)(m->w + 2) * (size_t)(m->h + 2));
    ck_assert(wx && wy);
    uint32_t nw = 0;
    for (int32_t by = -1; by <= m->h; by++) {
        for (int32_t bx = -1; bx <= m->w; bx++) {
            if (ref_open(m, bx, by)) continue;
            wx[nw] = bx;
            wy[nw++] = by;
        }
    }
    for (int32_t y = 0; y < m->h; y++) {
        for (int32_t x = 0; x < m->w; x++) {
            uint32_t c = (uint32_t)y * (uint32_t)m->w + (uint32_t)x;
            int64_t best = m->cost[c] == 0 ? 0 : INT64_MAX;
            for (uint32_t i = 0; i < nw && best; i++) {
                int64_t dx = wx[i] - x, dy = wy[i] - y, d2 = dx * dx + dy * dy;
                if (d2 < best) best = d2;
            }
            float want = (float)(sqrt((double)best) * (double)m->cell_size);
            ck_assert_msg(m->wall_dist[c] == want,
                          "wall distance of (%d, %d) on %d x %d: %g, want %g", x, y, m->w, m->h,
                          (double)m->wall_dist[c], (double)want);
        }
    }
    free(wx);
    free(wy);
}

/* A map loaded with its moves deferred and built in one pass (serial and on a pool) has the
 * masks of the per-cell definition, as one whose masks were refreshed cell by cell; a new map
 * (wall distances in closed form) and the transform after walls, serial and parallel, match
 * brute force exactly. Shapes include single rows and columns and maps wider than one strip of
 * the parallel column pass (256 columns). */
START_TEST(test_bulk_map_build) {
    th_pool *pool = th_pool_create(3);
    ck_assert_ptr_nonnull(pool);
    for (uint64_t seed = 0; seed < 40; seed++) {
        uint64_t ctr = 0;
        int32_t w = 1 + (int32_t)th_test_rnd(seed, 40, &ctr, 30),
                h = 1 + (int32_t)th_test_rnd(seed, 40, &ctr, 30);
        if (seed % 8 == 7) { /* wide and flat: several column strips */
            w = 257 + (int32_t)th_test_rnd(seed, 41, &ctr, 200);
            h = 1 + (int32_t)th_test_rnd(seed, 41, &ctr, 4);
        }
        float cs = 0.25f + 0.5f * (float)th_test_rnd(seed, 42, &ctr, 5);
        th_navmap a, b;
        ck_assert_int_eq(th_navmap_init(&a, w, h, cs), TH_NAV_OK);
        ck_assert_int_eq(th_navmap_init(&b, w, h, cs), TH_NAV_OK);
        check_moves(&a);
        check_walls(&a);
        th_navmap_defer_moves(&b);
        uint32_t block_pct = (uint32_t)(seed % 5) * 15;
        for (uint32_t i = 0; i < a.ncells + a.ncells / 4; i++) {
            /* Some cells are set more than once: blocked, then opened again, and so on. */
            int32_t x = (int32_t)th_test_rnd(seed, 43, &ctr, (uint32_t)w);
            int32_t y = (int32_t)th_test_rnd(seed, 43, &ctr, (uint32_t)h);
            if (th_test_rnd(seed, 44, &ctr, 100) < block_pct) {
                bool destructible = th_test_rnd(seed, 45, &ctr, 2) == 0;
                th_navmap_set_blocked(&a, x, y, destructible);
                th_navmap_set_blocked(&b, x, y, destructible);
            } else {
                uint32_t cost = 1 + th_test_rnd(seed, 46, &ctr, 4);
                th_navmap_set_cost(&a, x, y, cost);
                th_navmap_set_cost(&b, x, y, cost);
            }
        }
        ck_assert(b.moves_stale);
        th_navmap_update_moves(&b, seed % 2 ? pool : NULL);
        check_moves(&a);
        check_moves(&b);
        ck_assert_mem_eq(a.cost, b.cost, sizeof *a.cost * a.ncells);
        ck_assert_mem_eq(a.cost_count, b.cost_count, sizeof a.cost_count);
        /* Ended: later edits refresh their 3x3 at once again. */
        th_navmap_set_blocked(&b, w / 2, h / 2, false);
        th_navmap_set_blocked(&a, w / 2, h / 2, false);
        check_moves(&b);
        th_navmap_update_walls(&a, NULL);
        th_navmap_update_walls(&b, pool);
        check_walls(&a);
        ck_assert_mem_eq(a.wall_dist, b.wall_dist, sizeof *a.wall_dist * a.ncells);
        th_navmap_free(&a);
        th_navmap_free(&b);
    }
    th_pool_destroy(pool);
}
END_TEST

/* A world's map, set cell by cell with its moves deferred, for walled and wrap-around worlds
 * on 1, 2 and 3 threads: after the first step the masks and wall distances are the ones the
 * definitions give, and the same for every thread count. */
START_TEST(test_world_map_deferred) {
    for (int wrap = 0; wrap < 2; wrap++) {
        uint8_t *moves1 = NULL;
        float *walls1 = NULL;
        for (uint32_t threads = 1; threads <= 3; threads++) {
            th_world_def d = th_default_world_def();
            d.width = 37.0f;
            d.height = 23.0f;
            d.cell_size = 1.0f;
            d.threads = threads;
            d.bounds = wrap ? TH_BOUNDS_WRAP : TH_BOUNDS_WALLS;
            th_error err;
            th_world *w = th_world_create(&d, &err);
            ck_assert_msg(w != NULL, "%s", err.message);
            ck_assert(w->nav.map.moves_stale);
            uint64_t ctr = 0;
            for (int i = 0; i < 400; i++) {
                int32_t x = (int32_t)th_test_rnd(7, 50, &ctr, 37),
                        y = (int32_t)th_test_rnd(7, 50, &ctr, 23);
                uint32_t r = th_test_rnd(7, 51, &ctr, 3);
                th_cell_kind kind = r == 0   ? TH_CELL_OPEN
                                    : r == 1 ? TH_CELL_WALL
                                             : TH_CELL_DESTRUCTIBLE;
                ck_assert(th_world_set_cell(w, x, y, kind, 1 + th_test_rnd(7, 52, &ctr, 3), &err));
            }
            th_world_step(w);
            const th_navmap *m = &w->nav.map;
            check_moves(m);
            check_walls(m);
            if (threads == 1) {
                moves1 = malloc(m->ncells);
                walls1 = malloc(sizeof *walls1 * m->ncells);
                memcpy(moves1, m->moves, m->ncells);
                memcpy(walls1, m->wall_dist, sizeof *walls1 * m->ncells);
            } else {
                ck_assert_mem_eq(moves1, m->moves, m->ncells);
                ck_assert_mem_eq(walls1, m->wall_dist, sizeof *walls1 * m->ncells);
            }
            th_world_destroy(w);
        }
        free(moves1);
        free(walls1);
    }
}
END_TEST

/* A wall left of the map's middle column: the gradient just right of it points right. */
START_TEST(test_wall_repulsion_direction) {
    th_navmap m;
    ck_assert_int_eq(th_navmap_init(&m, 21, 21, 1.0f), TH_NAV_OK);
    for (int32_t y = 0; y < 21; y++) th_navmap_set_blocked(&m, 9, y, false);
    th_navmap_update_walls(&m, NULL);
    th_vec2 away;
    float d = th_navmap_wall_sample(&m, th_v2(10.8f, 10.5f), &away);
    ck_assert_float_eq_tol(d, 1.3f, 1e-4f);
    ck_assert_float_eq_tol(away.x, 1.0f, 1e-5f);
    ck_assert_float_eq_tol(away.y, 0.0f, 1e-5f);
    d = th_navmap_wall_sample(&m, th_v2(8.2f, 10.5f), &away);
    ck_assert_float_eq_tol(away.x, -1.0f, 1e-5f);
    th_navmap_free(&m);
}
END_TEST

/* ---------------------------------------------------------------------------------------- */
/* Fields */

START_TEST(test_field_vs_reference) {
    th_nav_goal goals[8];
    for (uint64_t seed = 0; seed < 80; seed++) {
        th_navmap m;
        uint32_t max_cost = seed % 4 == 3 ? 1000 : 9;
        random_map(&m, seed, seed % 10 == 0 ? 90 : 40, (uint32_t)(seed % 6) * 7, max_cost);
        th_nav_scratch *s = th_nav_scratch_create(&m);
        ck_assert_ptr_nonnull(s);
        th_nav_field f;
        ck_assert_int_eq(th_nav_field_init(&f, &m, 8), TH_NAV_OK);
        uint32_t n = random_goals(&m, seed, goals, 6, seed % 3 == 0);
        ck_assert_int_eq(th_nav_field_set_goals(&f, goals, n), TH_NAV_OK);
        ck_assert_int_eq(th_nav_field_compute(&f, &m, s), TH_NAV_OK);
        check_field(&f, &m, goals, n);
        th_nav_field_free(&f);
        th_nav_scratch_destroy(s);
        th_navmap_free(&m);
    }
}
END_TEST

START_TEST(test_field_goal_rect_and_cap) {
    th_navmap m;
    ck_assert_int_eq(th_navmap_init(&m, 30, 20, 1.0f), TH_NAV_OK);
    th_nav_scratch *s = th_nav_scratch_create(&m);
    th_nav_field f;
    ck_assert_int_eq(th_nav_field_init(&f, &m, 16), TH_NAV_OK);
    ck_assert_int_eq(th_nav_field_set_goal_rect(&f, 3, 3, 7, 6, 0), TH_NAV_ERANGE); /* 20 > 16 */
    ck_assert_int_eq(th_nav_field_set_goal_rect(&f, 3, 3, 6, 6, 0), TH_NAV_OK);
    ck_assert_int_eq(th_nav_field_compute(&f, &m, s), TH_NAV_OK);
    for (int32_t y = 3; y <= 6; y++) {
        for (int32_t x = 3; x <= 6; x++) {
            ck_assert_uint_eq(f.dist[y * 30 + x], 0);
            ck_assert_uint_eq(f.descent[y * 30 + x], TH_NAV_DESCENT_GOAL);
        }
    }
    ck_assert_uint_eq(f.dist[3 * 30 + 7], 140);
    ck_assert_uint_eq(f.dist[7 * 30 + 7], 198);
    ck_assert_uint_eq(f.descent[7 * 30 + 7], 6); /* SW */
    /* A route dearer than TH_NAV_DIST_MAX counts as unreachable. */
    th_nav_goal g = {10, 10, TH_NAV_DIST_MAX - 100};
    th_nav_field_set_goals(&f, &g, 1);
    th_nav_field_compute(&f, &m, s);
    ck_assert_uint_eq(f.dist[10 * 30 + 10], TH_NAV_DIST_MAX - 100);
    ck_assert_uint_eq(f.dist[10 * 30 + 11], TH_NAV_UNREACHABLE);
    th_vec2 dir;
    ck_assert(!th_nav_flow_sample(&f, &m, th_v2(11.5f, 10.5f), &dir));
    ck_assert(th_nav_flow_sample(&f, &m, th_v2(10.5f, 10.5f), &dir));
    th_nav_field_free(&f);
    th_nav_scratch_destroy(s);
    th_navmap_free(&m);
}
END_TEST

START_TEST(test_repair_opened) {
    th_nav_goal goals[8];
    for (uint64_t seed = 0; seed < 60; seed++) {
        th_navmap m;
        random_map(&m, 500 + seed, 40, 20 + (uint32_t)(seed % 3) * 10, seed % 2 ? 9 : 1000);
        th_nav_scratch *s = th_nav_scratch_create(&m);
        th_nav_field f, fresh;
        ck_assert_int_eq(th_nav_field_init(&f, &m, 8), TH_NAV_OK);
        ck_assert_int_eq(th_nav_field_init(&fresh, &m, 8), TH_NAV_OK);
        uint32_t n = random_goals(&m, seed, goals, 5, seed % 4 == 0);
        th_nav_field_set_goals(&f, goals, n);
        th_nav_field_set_goals(&fresh, goals, n);
        ck_assert_int_eq(th_nav_field_compute(&f, &m, s), TH_NAV_OK);
        uint64_t ctr = 0;
        for (int round = 0; round < 4; round++) {
            /* Break some destructible walls and cheapen some open cells. */
            uint32_t opened[64], no = 0;
            uint32_t want = 1 + th_test_rnd(seed, 40, &ctr, 20);
            for (uint32_t tries = 0; tries < 400 && no < want; tries++) {
                uint32_t c = th_test_rnd(seed, 41, &ctr, m.ncells);
                int32_t x = (int32_t)(c % (uint32_t)m.w), y = (int32_t)(c / (uint32_t)m.w);
                if (m.cost[c] == 0) {
                    if (th_navmap_break_wall(&m, x, y) == TH_NAV_OK) opened[no++] = c;
                } else if (m.cost[c] > 1 && th_test_rnd(seed, 42, &ctr, 4) == 0) {
                    th_navmap_set_cost(&m, x, y, 1 + th_test_rnd(seed, 43, &ctr, m.cost[c] - 1));
                    opened[no++] = c;
                }
            }
            if (no) opened[no++] = opened[0]; /* duplicates are allowed */
            ck_assert_int_eq(th_nav_field_repair_opened(&f, &m, opened, no, s), TH_NAV_OK);
            ck_assert_int_eq(th_nav_field_compute(&fresh, &m, s), TH_NAV_OK);
            assert_fields_equal(&f, &fresh);
            check_field(&f, &m, goals, n);
        }
        th_nav_field_free(&f);
        th_nav_field_free(&fresh);
        th_nav_scratch_destroy(s);
        th_navmap_free(&m);
    }
}
END_TEST

/* A goal on a wall takes effect when the wall breaks; a far region opens through one cell. */
START_TEST(test_repair_goal_on_wall) {
    th_navmap m;
    ck_assert_int_eq(th_navmap_init(&m, 12, 8, 1.0f), TH_NAV_OK);
    for (int32_t y = 0; y < 8; y++) th_navmap_set_blocked(&m, 6, y, true);
    th_nav_scratch *s = th_nav_scratch_create(&m);
    th_nav_field f, fresh;
    th_nav_field_init(&f, &m, 4);
    th_nav_field_init(&fresh, &m, 4);
    th_nav_goal g[2] = {{6, 3, 10}, {0, 0, 0}};
    th_nav_field_set_goals(&f, g, 2);
    th_nav_field_set_goals(&fresh, g, 2);
    th_nav_field_compute(&f, &m, s);
    ck_assert_uint_eq(f.dist[3 * 12 + 9], TH_NAV_UNREACHABLE);
    ck_assert_int_eq(th_navmap_break_wall(&m, 6, 3), TH_NAV_OK);
    uint32_t c = 3 * 12 + 6;
    th_nav_field_repair_opened(&f, &m, &c, 1, s);
    th_nav_field_compute(&fresh, &m, s);
    assert_fields_equal(&f, &fresh);
    ck_assert_uint_eq(f.dist[c], 10);
    ck_assert_uint_eq(f.descent[c], TH_NAV_DESCENT_GOAL);
    ck_assert_uint_eq(f.dist[3 * 12 + 7], 10 + 140);
    th_nav_field_free(&f);
    th_nav_field_free(&fresh);
    th_nav_scratch_destroy(s);
    th_navmap_free(&m);
}
END_TEST

START_TEST(test_repair_raised) {
    th_nav_goal goals[8];
    for (uint64_t seed = 0; seed < 50; seed++) {
        th_navmap m;
        random_map(&m, 900 + seed, 40, 15, 9);
        th_nav_scratch *s = th_nav_scratch_create(&m);
        th_nav_field f, fresh;
        th_nav_field_init(&f, &m, 8);
        th_nav_field_init(&fresh, &m, 8);
        uint32_t n = random_goals(&m, seed, goals, 4, false);
        th_nav_field_set_goals(&f, goals, n);
        th_nav_field_set_goals(&fresh, goals, n);
        th_nav_field_compute(&f, &m, s);
        uint64_t ctr = 0;
        for (int i = 0; i < 15; i++) {
            uint32_t c = th_test_rnd(seed, 50, &ctr, m.ncells);
            int32_t x = (int32_t)(c % (uint32_t)m.w), y = (int32_t)(c / (uint32_t)m.w);
            if (i % 3 == 0 && m.cost[c]) {
                th_navmap_set_cost(&m, x, y, m.cost[c] + 1 + th_test_rnd(seed, 51, &ctr, 5));
            } else {
                th_navmap_set_blocked(&m, x, y, false);
            }
        }
        ck_assert_int_eq(th_nav_field_repair_raised(&f, &m, s), TH_NAV_OK);
        th_nav_field_compute(&fresh, &m, s);
        assert_fields_equal(&f, &fresh);
        check_field(&f, &m, goals, n);
        th_nav_field_free(&f);
        th_nav_field_free(&fresh);
        th_nav_scratch_destroy(s);
        th_navmap_free(&m);
    }
}
END_TEST

/* ---------------------------------------------------------------------------------------- */
/* Parallel computation and the combined field */

enum { NFIELDS = 7 };

static void make_bunker_fields(const th_navmap *m, uint64_t seed, th_nav_field *fields,
                               uint32_t count) {
    uint64_t ctr = 0;
    for (uint32_t k = 0; k < count; k++) {
        ck_assert_int_eq(th_nav_field_init(&fields[k], m, 16), TH_NAV_OK);
        int32_t x = (int32_t)th_test_rnd(seed, 60, &ctr, (uint32_t)m->w - 1);
        int32_t y = (int32_t)th_test_rnd(seed, 60, &ctr, (uint32_t)m->h - 1);
        uint32_t wgt = th_test_rnd(seed, 61, &ctr, 3) * 200;
        ck_assert_int_eq(th_nav_field_set_goal_rect(&fields[k], x, y, x + 1, y + 1, wgt),
                         TH_NAV_OK);
    }
}

START_TEST(test_parallel_identical) {
    th_navmap m;
    random_map(&m, 77, 60, 20, 9);
    th_nav_scratch *s[3];
    for (int i = 0; i < 3; i++) s[i] = th_nav_scratch_create(&m);
    th_nav_field serial[NFIELDS];
    make_bunker_fields(&m, 5, serial, NFIELDS);
    ck_assert_int_eq(th_nav_fields_compute(NULL, s, 1, serial, NFIELDS, &m), TH_NAV_OK);
    for (uint32_t workers = 1; workers <= 3; workers++) {
        th_pool *pool = th_pool_create(workers);
        ck_assert_ptr_nonnull(pool);
        th_nav_field par[NFIELDS];
        make_bunker_fields(&m, 5, par, NFIELDS);
        ck_assert_int_eq(th_nav_fields_compute(pool, s, workers, par, NFIELDS, &m), TH_NAV_OK);
        for (int k = 0; k < NFIELDS; k++) assert_fields_equal(&par[k], &serial[k]);
        /* Too few scratches for the pool is an error, not a crash. */
        if (workers > 1) {
            ck_assert_int_eq(th_nav_fields_compute(pool, s, workers - 1, par, NFIELDS, &m),
                             TH_NAV_EINVAL);
        }
        for (int k = 0; k < NFIELDS; k++) th_nav_field_free(&par[k]);
        th_pool_destroy(pool);
    }
    /* Parallel repair after breaking walls equals serial full computes. */
    uint32_t opened[32], no = 0;
    for (uint32_t c = 0; c < m.ncells && no < 32; c += 7) {
        if (th_navmap_break_wall(&m, (int32_t)(c % (uint32_t)m.w), (int32_t)(c / (uint32_t)m.w)) ==
            TH_NAV_OK) {
            opened[no++] = c;
        }
    }
    ck_assert_uint_gt(no, 0);
    th_pool *pool = th_pool_create(3);
    ck_assert_int_eq(th_nav_fields_repair_opened(pool, s, 3, serial, NFIELDS, &m, opened, no),
                     TH_NAV_OK);
    th_nav_field fresh[NFIELDS];
    make_bunker_fields(&m, 5, fresh, NFIELDS);
    th_nav_fields_compute(NULL, s, 1, fresh, NFIELDS, &m);
    for (int k = 0; k < NFIELDS; k++) {
        assert_fields_equal(&serial[k], &fresh[k]);
        th_nav_field_free(&fresh[k]);
        th_nav_field_free(&serial[k]);
    }
    th_pool_destroy(pool);
    for (int i = 0; i < 3; i++) th_nav_scratch_destroy(s[i]);
    th_navmap_free(&m);
}
END_TEST

START_TEST(test_combined) {
    th_pool *pool = th_pool_create(2);
    for (uint64_t seed = 0; seed < 12; seed++) {
        th_navmap m;
        random_map(&m, 300 + seed, 50, 25, 5);
        th_nav_scratch *s[2] = {th_nav_scratch_create(&m), th_nav_scratch_create(&m)};
        th_nav_field fields[NFIELDS];
        make_bunker_fields(&m, seed, fields, NFIELDS);
        ck_assert_int_eq(th_nav_fields_compute(pool, s, 2, fields, NFIELDS, &m), TH_NAV_OK);
        th_nav_combined c;
        ck_assert_int_eq(th_nav_combined_init(&c, &m), TH_NAV_OK);
        uint64_t ctr = 0;
        for (int round = 0; round < 8; round++) {
            uint8_t alive[NFIELDS];
            for (int k = 0; k < NFIELDS; k++)
                alive[k] = round == 7 ? 0 : th_test_rnd(seed, 70, &ctr, 3) != 0;
            ck_assert_int_eq(
                th_nav_combined_build(&c, round % 2 ? pool : NULL, fields, NFIELDS, alive),
                TH_NAV_OK);
            for (uint32_t i = 0; i < m.ncells; i++) {
                uint32_t best = TH_NAV_UNREACHABLE;
                int win = -1;
                for (int k = 0; k < NFIELDS; k++) {
                    if (alive[k] && fields[k].dist[i] < best) {
                        best = fields[k].dist[i];
                        win = k;
                    }
                }
                ck_assert_uint_eq(c.nearest.dist[i], best);
                ck_assert_int_eq(c.winner[i], win);
                ck_assert_uint_eq(c.nearest.descent[i],
                                  win < 0 ? TH_NAV_DESCENT_UNREACHABLE : fields[win].descent[i]);
            }
            /* Descent on the combined field always ends at a goal. */
            uint32_t path[4096], len;
            for (uint32_t i = 0; i < m.ncells; i += 13) {
                int rc = th_nav_field_path(&c.nearest, &m, (int32_t)(i % (uint32_t)m.w),
                                           (int32_t)(i / (uint32_t)m.w), path, 4096, &len);
                ck_assert_int_eq(rc, c.winner[i] < 0 ? TH_NAV_ENOPATH : TH_NAV_OK);
            }
        }
        ck_assert_int_eq(th_nav_combined_build(&c, NULL, fields, TH_NAV_MAX_FIELDS + 1, NULL),
                         TH_NAV_ERANGE);
        th_nav_combined_free(&c);
        for (int k = 0; k < NFIELDS; k++) th_nav_field_free(&fields[k]);
        th_nav_scratch_destroy(s[0]);
        th_nav_scratch_destroy(s[1]);
        th_navmap_free(&m);
    }
    th_pool_destroy(pool);
}
END_TEST

/* ---------------------------------------------------------------------------------------- */
/* Queries */

/* Walk the flow with steps of a fifth of a cell from `p`; never enter a blocked cell; reach a
 * goal cell within a generous bound. */
static void follow_flow(const th_nav_field *f, const th_navmap *m, th_vec2 p, uint32_t bound) {
    float step = 0.2f * m->cell_size;
    for (uint32_t i = 0; i < bound; i++) {
        ck_assert(!th_navmap_blocked_at(m, p));
        th_vec2 dir;
        ck_assert(th_nav_flow_sample(f, m, p, &dir));
        uint32_t c = th_navmap_cell_of(m, p, NULL, NULL);
        if (f->descent[c] == TH_NAV_DESCENT_GOAL) {
            ck_assert_float_eq(dir.x, 0.0f);
            ck_assert_float_eq(dir.y, 0.0f);
            return;
        }
        ck_assert_float_eq_tol(th_v2_len(dir), 1.0f, 1e-4f);
        p = th_v2_add(p, th_v2_scale(dir, step));
    }
    ck_abort_msg("flow did not reach a goal within %u steps", bound);
}

/* A perfect maze of 15 x 11 rooms (th_test_maze) as a nav map: walls blocked, corridors cost
 * 1, each room 1 to 3 (drawn from `seed`). */
static void make_maze(th_navmap *m, uint64_t seed) {
    enum { MW = 31, MH = 23 };
    static uint8_t open[MW * MH];
    th_test_maze(open, MW, MH, seed);
    ck_assert_int_eq(th_navmap_init(m, MW, MH, 1.0f), TH_NAV_OK);
    uint64_t ctr = 0;
    for (int32_t y = 0; y < MH; y++) {
        for (int32_t x = 0; x < MW; x++) {
            if (!open[y * MW + x]) th_navmap_set_blocked(m, x, y, false); /* a plain wall */
            else if ((x & 1) && (y & 1))
                th_navmap_set_cost(m, x, y, 1 + th_test_rnd(seed, 81, &ctr, 3));
            else th_navmap_set_cost(m, x, y, 1);
        }
    }
    th_navmap_update_walls(m, NULL);
}

START_TEST(test_flow_follow) {
    th_nav_goal goals[8];
    for (uint64_t seed = 0; seed < 40; seed++) {
        th_navmap m;
        if (seed % 4 == 0) {
            make_maze(&m, seed);
        } else {
            random_map(&m, 700 + seed, 40, 10 + (uint32_t)(seed % 4) * 8, 6);
        }
        th_nav_scratch *s = th_nav_scratch_create(&m);
        th_nav_field f;
        th_nav_field_init(&f, &m, 8);
        uint32_t n = random_goals(&m, seed, goals, 3, false);
        th_nav_field_set_goals(&f, goals, n);
        th_nav_field_compute(&f, &m, s);
        uint64_t ctr = 0;
        uint32_t tried = 0;
        for (uint32_t i = 0; i < 400 && tried < 25; i++) {
            uint32_t c = th_test_rnd(seed, 90, &ctr, m.ncells);
            int32_t x = (int32_t)(c % (uint32_t)m.w), y = (int32_t)(c / (uint32_t)m.w);
            th_vec2 centre = th_navmap_cell_centre(&m, x, y);
            th_vec2 p = th_v2(
                centre.x + ((float)th_test_rnd(seed, 91, &ctr, 81) - 40.0f) / 100.0f * m.cell_size,
                centre.y + ((float)th_test_rnd(seed, 91, &ctr, 81) - 40.0f) / 100.0f * m.cell_size);
            th_vec2 dir;
            if (m.cost[c] == 0 || f.dist[c] == TH_NAV_UNREACHABLE) {
                ck_assert(!th_nav_flow_sample(&f, &m, p, &dir));
                ck_assert_float_eq(dir.x, 0.0f);
                ck_assert(isinf(th_nav_cost_at(&f, &m, p)));
                continue;
            }
            tried++;
            ck_assert_float_eq_tol(th_nav_cost_at(&f, &m, p), th_nav_units_to_metres(&m, f.dist[c]),
                                   1e-3f);
            follow_flow(&f, &m, p, 40u * m.ncells);
        }
        th_nav_field_free(&f);
        th_nav_scratch_destroy(s);
        th_navmap_free(&m);
    }
}
END_TEST

START_TEST(test_field_path) {
    th_nav_goal goals[8];
    for (uint64_t seed = 0; seed < 20; seed++) {
        th_navmap m;
        random_map(&m, 1300 + seed, 30, 25, 7);
        th_nav_scratch *s = th_nav_scratch_create(&m);
        th_nav_field f;
        th_nav_field_init(&f, &m, 8);
        uint32_t n = random_goals(&m, seed, goals, 4, false);
        th_nav_field_set_goals(&f, goals, n);
        th_nav_field_compute(&f, &m, s);
        uint32_t *path = malloc(sizeof *path * m.ncells);
        for (uint32_t c = 0; c < m.ncells; c++) {
            int32_t x = (int32_t)(c % (uint32_t)m.w), y = (int32_t)(c / (uint32_t)m.w);
            uint32_t len = 99;
            int rc = th_nav_field_path(&f, &m, x, y, path, m.ncells, &len);
            if (f.dist[c] == TH_NAV_UNREACHABLE) {
                ck_assert_int_eq(rc, TH_NAV_ENOPATH);
                ck_assert_uint_eq(len, 0);
                continue;
            }
            ck_assert_int_eq(rc, TH_NAV_OK);
            ck_assert_uint_eq(path[0], c);
            uint64_t total = 0;
            for (uint32_t i = 0; i + 1 < len; i++) {
                ck_assert_uint_lt(f.dist[path[i + 1]], f.dist[path[i]]);
                uint8_t k = f.descent[path[i]];
                total += edge_cost(&m, path[i], k);
            }
            ck_assert_uint_eq(f.descent[path[len - 1]], TH_NAV_DESCENT_GOAL);
            ck_assert_uint_eq(total + f.dist[path[len - 1]], f.dist[c]);
            if (len > 1) {
                ck_assert_int_eq(th_nav_field_path(&f, &m, x, y, path, len - 1, &len),
                                 TH_NAV_ETOOLONG);
            }
        }
        ck_assert_int_eq(th_nav_field_path(&f, &m, -1, 0, path, 10, &(uint32_t){0}),
                         TH_NAV_ENOPATH);
        ck_assert_int_eq(th_nav_field_path(&f, &m, 0, 0, NULL, 10, &(uint32_t){0}), TH_NAV_EINVAL);
        free(path);
        th_nav_field_free(&f);
        th_nav_scratch_destroy(s);
        th_navmap_free(&m);
    }
}
END_TEST

/* ---------------------------------------------------------------------------------------- */
/* A*, line of sight, string pulling */

/* Independent visibility: the segment between two points (in cell units) meets no closed
 * blocked square. Exact in doubles for centre-to-centre segments (all coordinates are
 * multiples of 1/2). Slab clipping against [bx, bx+1] x [by, by+1]. */
static bool seg_hits_square(double x0, double y0, double x1, double y1, double bx, double by) {
    double t0 = 0.0, t1 = 1.0;
    double d[2] = {x1 - x0, y1 - y0}, p[2] = {x0, y0}, lo[2] = {bx, by}, hi[2] = {bx + 1, by + 1};
    for (int a = 0; a < 2; a++) {
        if (d[a] == 0.0) {
            if (p[a] < lo[a] || p[a] > hi[a]) return false;
            continue;
        }
        double ta = (lo[a] - p[a]) / d[a], tb = (hi[a] - p[a]) / d[a];
        if (ta > tb) {
            double t = ta;
            ta = tb;
            tb = t;
        }
        if (ta > t0) t0 = ta;
        if (tb < t1) t1 = tb;
        if (t0 > t1) return false;
    }
    return true;
}

static bool exact_visible(const th_navmap *m, double x0, double y0, double x1, double y1) {
    int32_t bx0 = (int32_t)floor(fmin(x0, x1)) - 1, bx1 = (int32_t)floor(fmax(x0, x1)) + 1;
    int32_t by0 = (int32_t)floor(fmin(y0, y1)) - 1, by1 = (int32_t)floor(fmax(y0, y1)) + 1;
    for (int32_t by = by0; by <= by1; by++) {
        for (int32_t bx = bx0; bx <= bx1; bx++) {
            if (th_navmap_is_blocked(m, bx, by) &&
                seg_hits_square(x0, y0, x1, y1, (double)bx, (double)by)) {
                return false;
            }
        }
    }
    return true;
}

/* Dense sampling in metres: points every 1/50 cell along the segment, each also nudged 1e-3
 * cell to both sides so an exact corner graze is caught. */
static bool sampled_visible(const th_navmap *m, th_vec2 a, th_vec2 b) {
    double len = hypot(b.x - a.x, b.y - a.y) / m->cell_size;
    int n = (int)(len * 50.0) + 2;
    double nx = 0, ny = 0;
    if (len > 0) {
        nx = -(b.y - a.y) / (len * m->cell_size) * 1e-3 * m->cell_size;
        ny = (b.x - a.x) / (len * m->cell_size) * 1e-3 * m->cell_size;
    }
    for (int i = 0; i <= n; i++) {
        double t = (double)i / n;
        double x = a.x + (b.x - a.x) * t, y = a.y + (b.y - a.y) * t;
        for (int side = -1; side <= 1; side++) {
            th_vec2 q = th_v2((float)(x + side * nx), (float)(y + side * ny));
            if (th_navmap_blocked_at(m, q)) return false;
        }
    }
    return true;
}

/* Independent cost-weighted length of the segment a-b (metres) in cost units: every parameter
 * at which it crosses a grid line, sorted; between two consecutive ones the segment lies in
 * one cell, found at the midpoint. `dear_len` (cells of length) gets the part inside cells of
 * cost >= dear. */
static double weighted_length(const th_navmap *m, th_vec2 a, th_vec2 b, uint32_t dear,
                              double *dear_len) {
    static double ts[16384];
    const double ax = a.x / m->cell_size, ay = a.y / m->cell_size;
    const double bx = b.x / m->cell_size, by = b.y / m->cell_size;
    int n = 0;
    ts[n++] = 0.0;
    ts[n++] = 1.0;
    for (int axis = 0; axis < 2; axis++) {
        double p0 = axis ? ay : ax, p1 = axis ? by : bx;
        if (p0 == p1) continue;
        for (double k = ceil(fmin(p0, p1)); k <= floor(fmax(p0, p1)); k += 1.0) {
            ck_assert_int_lt(n, 16384);
            ts[n++] = (k - p0) / (p1 - p0);
        }
    }
    for (int i = 1; i < n; i++) { /* insertion sort: a few dozen entries */
        double t = ts[i];
        int j = i;
        for (; j > 0 && ts[j - 1] > t; j--) ts[j] = ts[j - 1];
        ts[j] = t;
    }
    const double len = hypot(bx - ax, by - ay);
    double sum = 0.0;
    if (dear_len) *dear_len = 0.0;
    for (int i = 1; i < n; i++) {
        if (!(ts[i] > ts[i - 1])) continue;
        double t = 0.5 * (ts[i] + ts[i - 1]);
        uint32_t c = th_navmap_cost(m, (int32_t)floor(ax + (bx - ax) * t),
                                    (int32_t)floor(ay + (by - ay) * t));
        sum += (double)c * (ts[i] - ts[i - 1]) * len;
        if (dear_len && c >= dear) *dear_len += (ts[i] - ts[i - 1]) * len;
    }
    return sum * TH_NAV_UNITS_PER_CELL;
}

/* String pulling does work linear in the path, up to a log factor, not quadratic: on a long
 * straight corridor and on a serpentine maze of long corridors (where testing every later
 * point from each anchor walks each corridor's length squared), the line-of-sight tests stay
 * within 4 per path cell and the cells they walk within 8 n log2 n; every segment is visible. */
static void check_pull_work(const th_navmap *m, int32_t sx, int32_t sy, int32_t gx, int32_t gy) {
    th_astar_ctx *a = th_astar_create(m);
    ck_assert_ptr_nonnull(a);
    uint32_t *path = malloc(sizeof *path * m->ncells);
    th_vec2 *pts = malloc(sizeof *pts * m->ncells);
    uint32_t len = 0;
    ck_assert_int_eq(th_astar_find(a, m, sx, sy, gx, gy, path, m->ncells, &len, NULL), TH_NAV_OK);
    uint64_t tests = 0, walked = 0;
    uint32_t np = th_nav_string_pull_counted(m, path, len, pts, &tests, &walked);
    ck_assert_uint_ge(np, 2);
    double n = (double)len;
    ck_assert_msg((double)tests <= 4.0 * n, "%llu tests for a path of %u cells",
                  (unsigned long long)tests, len);
    ck_assert_msg((double)walked <= 8.0 * n * log2(n), "%llu cells walked for a path of %u cells",
                  (unsigned long long)walked, len);
    for (uint32_t i = 0; i + 1 < np; i++) {
        ck_assert(th_nav_line_of_sight(
            m, (int32_t)(pts[i].x / m->cell_size), (int32_t)(pts[i].y / m->cell_size),
            (int32_t)(pts[i + 1].x / m->cell_size), (int32_t)(pts[i + 1].y / m->cell_size)));
    }
    free(path);
    free(pts);
    th_astar_destroy(a);
}

START_TEST(test_string_pull_work_is_linear) {
    th_navmap m;
    /* A straight corridor 4000 cells long: the whole path is one segment. */
    ck_assert_int_eq(th_navmap_init(&m, 4000, 3, 1.0f), TH_NAV_OK);
    for (int32_t x = 0; x < 4000; x++) {
        th_navmap_set_blocked(&m, x, 0, false);
        th_navmap_set_blocked(&m, x, 2, false);
    }
    check_pull_work(&m, 0, 1, 3999, 1);
    th_navmap_free(&m);
    /* A serpentine: 1000-cell corridors, 3 cells wide, joined at alternate ends. */
    ck_assert_int_eq(th_navmap_init(&m, 1000, 200, 1.0f), TH_NAV_OK);
    for (int32_t y = 3, k = 0; y < 200; y += 4, k++) {
        for (int32_t x = 0; x < 1000; x++) {
            bool gap = k % 2 == 0 ? x >= 997 : x < 3;
            if (!gap) th_navmap_set_blocked(&m, x, y, false);
        }
    }
    check_pull_work(&m, 0, 0, 999, 198);
    /* The same on weighted ground, where every shortcut is also priced: every fifth cell of
     * the corridors costs 2. */
    for (int32_t y = 0; y < 200; y++) {
        for (int32_t x = 0; x < 1000; x += 5) {
            if (!th_navmap_is_blocked(&m, x, y)) th_navmap_set_cost(&m, x, y, 2);
        }
    }
    check_pull_work(&m, 0, 0, 999, 198);
    th_navmap_free(&m);
}
END_TEST

/* A swamp between start and goal with a cheap way round it: A* goes round, and string pulling
 * must not cut back across. The pulled path costs no more than A*'s grid path (its shortcuts
 * are priced) and at most grazes swamp cells; a straight line, which line of sight alone would
 * allow, would cost several times as much. */
START_TEST(test_string_pull_respects_cost) {
    for (int variant = 0; variant < 4; variant++) {
        th_navmap m;
        ck_assert_int_eq(th_navmap_init(&m, 40, 30, 0.5f), TH_NAV_OK);
        const uint32_t swamp = variant % 2 ? 1000 : 40;
        /* A square swamp, or (variants 2, 3) a diamond whose sides run diagonally. */
        for (int32_t y = 0; y < 30; y++) {
            for (int32_t x = 0; x < 40; x++) {
                bool in = variant < 2 ? x >= 14 && x <= 25 && y >= 9 && y <= 20
                                      : abs(x - 20) + abs(y - 15) <= 7;
                if (in) th_navmap_set_cost(&m, x, y, swamp);
            }
        }
        /* Some grass (cost 3) on the way round, for a terrain of three costs. */
        for (int32_t x = 0; x < 40; x += 3) th_navmap_set_cost(&m, x, 25, 3);
        th_astar_ctx *a = th_astar_create(&m);
        uint32_t path[1200], len = 0, cost = 0;
        th_vec2 pts[1200];
        ck_assert_int_eq(th_astar_find(a, &m, 3, 14, 36, 16, path, 1200, &len, &cost), TH_NAV_OK);
        uint32_t np = th_nav_string_pull(&m, path, len, pts);
        ck_assert_uint_ge(np, 3); /* it bends round the swamp */
        double total = 0.0, in_swamp = 0.0, euclid = 0.0, grid = 0.0;
        for (uint32_t i = 0; i + 1 < np; i++) {
            double d = 0.0;
            total += weighted_length(&m, pts[i], pts[i + 1], swamp, &d);
            in_swamp += d;
            euclid += hypot(pts[i + 1].x - pts[i].x, pts[i + 1].y - pts[i].y);
        }
        for (uint32_t i = 0; i + 1 < len; i++) {
            int32_t dx = (int32_t)(path[i + 1] % 40) - (int32_t)(path[i] % 40);
            int32_t dy = (int32_t)(path[i + 1] / 40) - (int32_t)(path[i] / 40);
            grid += hypot(dx, dy) * m.cell_size;
        }
        ck_assert_msg(total <= (double)cost * (1.0 + 1e-6),
                      "variant %d: pulled path costs %.1f, A* %u", variant, total, cost);
        ck_assert_msg(in_swamp < 0.01, "variant %d: %.4f cells walked in the swamp", variant,
                      in_swamp);
        ck_assert(euclid <= grid + 1e-3); /* and still no longer than the grid path */
        /* The control: the straight line is in sight and would cross the swamp. */
        double straight_swamp = 0.0;
        th_vec2 s0 = th_navmap_cell_centre(&m, 3, 14), g0 = th_navmap_cell_centre(&m, 36, 16);
        ck_assert(th_nav_line_of_sight(&m, 3, 14, 36, 16));
        ck_assert(weighted_length(&m, s0, g0, swamp, &straight_swamp) > 3.0 * (double)cost);
        ck_assert(straight_swamp > 10.0);
        th_astar_destroy(a);
        th_navmap_free(&m);
    }
}
END_TEST

START_TEST(test_line_of_sight) {
    for (uint64_t seed = 0; seed < 50; seed++) {
        th_navmap m;
        random_map(&m, 2000 + seed, 30, 5 + (uint32_t)(seed % 5) * 6, 3);
        uint64_t ctr = 0;
        for (int i = 0; i < 300; i++) {
            int32_t x0 = (int32_t)th_test_rnd(seed, 100, &ctr, (uint32_t)m.w);
            int32_t y0 = (int32_t)th_test_rnd(seed, 100, &ctr, (uint32_t)m.h);
            int32_t x1 = (int32_t)th_test_rnd(seed, 100, &ctr, (uint32_t)m.w);
            int32_t y1 =
                i % 5 == 0 ? y0 + (x1 - x0) : (int32_t)th_test_rnd(seed, 100, &ctr, (uint32_t)m.h);
            if (y1 < 0 || y1 >= m.h) y1 = y0;
            bool want = exact_visible(&m, x0 + 0.5, y0 + 0.5, x1 + 0.5, y1 + 0.5);
            ck_assert_int_eq(th_nav_line_of_sight(&m, x0, y0, x1, y1), want);
            ck_assert_int_eq(th_nav_line_of_sight(&m, x1, y1, x0, y0), want);
        }
        th_navmap_free(&m);
    }
    /* The corner rule by hand: a diagonal between two walls touching at a corner is blind. */
    th_navmap m;
    th_navmap_init(&m, 4, 4, 1.0f);
    th_navmap_set_blocked(&m, 1, 0, false);
    ck_assert(!th_nav_line_of_sight(&m, 0, 0, 1, 1));
    ck_assert(!th_nav_line_of_sight(&m, 0, 0, 3, 3));
    ck_assert(th_nav_line_of_sight(&m, 0, 1, 3, 3));
    th_navmap_free(&m);
}
END_TEST

START_TEST(test_astar) {
    for (uint64_t seed = 0; seed < 60; seed++) {
        th_navmap m;
        random_map(&m, 3000 + seed, 40, (uint32_t)(seed % 5) * 9, seed % 3 ? 9 : 1000);
        th_astar_ctx *a = th_astar_create(&m);
        ck_assert_ptr_nonnull(a);
        uint32_t *path = malloc(sizeof *path * m.ncells);
        th_vec2 *pts = malloc(sizeof *pts * m.ncells);
        uint64_t *ref = malloc(sizeof *ref * m.ncells);
        uint64_t ctr = 0;
        uint64_t allocs = th_alloc_count();
        for (int q = 0; q < 12; q++) {
            int32_t sx = (int32_t)th_test_rnd(seed, 110, &ctr, (uint32_t)m.w);
            int32_t sy = (int32_t)th_test_rnd(seed, 110, &ctr, (uint32_t)m.h);
            int32_t gx = (int32_t)th_test_rnd(seed, 110, &ctr, (uint32_t)m.w);
            int32_t gy = (int32_t)th_test_rnd(seed, 110, &ctr, (uint32_t)m.h);
            th_ref_goal g = {gx, gy, 0};
            ck_assert_int_eq(th_ref_dijkstra(m.w, m.h, m.cost, &g, 1, ref), 0);
            uint32_t want =
                th_ref_to_field(ref[(uint32_t)sy * (uint32_t)m.w + (uint32_t)sx], TH_NAV_DIST_MAX);
            uint32_t len = 0, cost = 0;
            int rc = th_astar_find(a, &m, sx, sy, gx, gy, path, m.ncells, &len, &cost);
            if (want == TH_NAV_UNREACHABLE) {
                ck_assert_int_eq(rc, TH_NAV_ENOPATH);
                ck_assert_uint_eq(len, 0);
                continue;
            }
            ck_assert_int_eq(rc, TH_NAV_OK);
            ck_assert_uint_eq(cost, want);
            ck_assert_uint_eq(path[0], (uint32_t)sy * (uint32_t)m.w + (uint32_t)sx);
            ck_assert_uint_eq(path[len - 1], (uint32_t)gy * (uint32_t)m.w + (uint32_t)gx);
            /* The path is made of allowed moves and costs what A* says. */
            uint64_t total = 0;
            double grid_len = 0.0;
            for (uint32_t i = 0; i + 1 < len; i++) {
                int32_t dx =
                    (int32_t)(path[i + 1] % (uint32_t)m.w) - (int32_t)(path[i] % (uint32_t)m.w);
                int32_t dy =
                    (int32_t)(path[i + 1] / (uint32_t)m.w) - (int32_t)(path[i] / (uint32_t)m.w);
                int k = -1;
                for (int j = 0; j < 8; j++) {
                    if (th_nav_move_dx[j] == dx && th_nav_move_dy[j] == dy) k = j;
                }
                ck_assert_int_ge(k, 0);
                ck_assert(m.moves[path[i]] & (1u << k));
                total += edge_cost(&m, path[i], k);
                grid_len += hypot(dx, dy) * m.cell_size;
            }
            ck_assert_uint_eq(total, cost);
            /* String pulling: every segment visible by two independent checks; never longer. */
            uint32_t np = th_nav_string_pull(&m, path, len, pts);
            ck_assert_uint_ge(np, len > 1 ? 2 : 1);
            ck_assert_uint_le(np, len);
            double pulled = 0.0;
            for (uint32_t i = 0; i + 1 < np; i++) {
                ck_assert(sampled_visible(&m, pts[i], pts[i + 1]));
                ck_assert(exact_visible(&m, pts[i].x / m.cell_size, pts[i].y / m.cell_size,
                                        pts[i + 1].x / m.cell_size, pts[i + 1].y / m.cell_size));
                pulled += hypot(pts[i + 1].x - pts[i].x, pts[i + 1].y - pts[i].y);
            }
            ck_assert(pulled <= grid_len + 1e-3);
            /* Priced shortcuts: the pulled path never costs more than the grid path. */
            double priced = 0.0;
            for (uint32_t i = 0; i + 1 < np; i++)
                priced += weighted_length(&m, pts[i], pts[i + 1], UINT32_MAX, NULL);
            ck_assert_msg(priced <= (double)cost * (1.0 + 1e-6), "pulled path costs %.2f, A* %u",
                          priced, cost);
            th_vec2 s0 = th_navmap_cell_centre(&m, sx, sy), g0 = th_navmap_cell_centre(&m, gx, gy);
            ck_assert_float_eq(pts[0].x, s0.x);
            ck_assert_float_eq(pts[np - 1].y, g0.y);
            if (len > 1) {
                ck_assert_int_eq(th_astar_find(a, &m, sx, sy, gx, gy, path, len - 1, &len, NULL),
                                 TH_NAV_ETOOLONG);
            }
        }
        ck_assert_uint_eq(th_alloc_count(), allocs); /* queries reuse the context */
        free(path);
        free(pts);
        free(ref);
        th_astar_destroy(a);
        th_navmap_free(&m);
    }
}
END_TEST

START_TEST(test_astar_unreachable) {
    th_navmap m;
    th_navmap_init(&m, 10, 10, 1.0f);
    for (int32_t y = 0; y < 10; y++) th_navmap_set_blocked(&m, 5, y, false);
    th_astar_ctx *a = th_astar_create(&m);
    uint32_t path[100], len = 7;
    ck_assert_int_eq(th_astar_find(a, &m, 0, 0, 9, 9, path, 100, &len, NULL), TH_NAV_ENOPATH);
    ck_assert_uint_eq(len, 0);
    ck_assert_int_eq(th_astar_find(a, &m, 5, 0, 0, 0, path, 100, &len, NULL), TH_NAV_ENOPATH);
    ck_assert_int_eq(th_astar_find(a, &m, -3, 0, 0, 0, path, 100, &len, NULL), TH_NAV_ENOPATH);
    ck_assert_int_eq(th_astar_find(a, &m, 0, 0, 0, 0, path, 100, &len, NULL), TH_NAV_OK);
    ck_assert_uint_eq(len, 1);
    ck_assert_int_eq(th_astar_find(NULL, &m, 0, 0, 0, 0, path, 100, &len, NULL), TH_NAV_EINVAL);
    th_navmap m2;
    th_navmap_init(&m2, 11, 10, 1.0f);
    ck_assert_int_eq(th_astar_find(a, &m2, 0, 0, 1, 1, path, 100, &len, NULL), TH_NAV_EINVAL);
    th_navmap_free(&m2);
    th_astar_destroy(a);
    th_navmap_free(&m);
}
END_TEST

/* ---------------------------------------------------------------------------------------- */
/* Bad arguments and allocation discipline */

START_TEST(test_bad_args) {
    th_navmap m, other;
    th_navmap_init(&m, 8, 8, 1.0f);
    th_navmap_init(&other, 9, 8, 1.0f);
    th_nav_scratch *s = th_nav_scratch_create(&m);
    th_nav_scratch *so = th_nav_scratch_create(&other);
    th_nav_field f;
    ck_assert_int_eq(th_nav_field_init(&f, &m, 0), TH_NAV_ERANGE);
    ck_assert_int_eq(th_nav_field_init(&f, &m, TH_NAV_MAX_GOALS + 1), TH_NAV_ERANGE);
    ck_assert_int_eq(th_nav_field_init(&f, NULL, 4), TH_NAV_EINVAL);
    ck_assert_int_eq(th_nav_field_init(&f, &m, 4), TH_NAV_OK);
    th_nav_goal g[5] = {{0, 0, 0}, {8, 0, 0}, {0, 0, TH_NAV_MAX_WEIGHT + 1u}, {1, 1, 1}, {2, 2, 2}};
    ck_assert_int_eq(th_nav_field_set_goals(&f, g, 5), TH_NAV_ERANGE);
    ck_assert_int_eq(th_nav_field_set_goals(&f, g + 1, 1), TH_NAV_ERANGE);
    ck_assert_int_eq(th_nav_field_set_goals(&f, g + 2, 1), TH_NAV_ERANGE);
    ck_assert_int_eq(th_nav_field_set_goals(&f, NULL, 1), TH_NAV_EINVAL);
    ck_assert_int_eq(th_nav_field_set_goals(&f, g, 1), TH_NAV_OK);
    ck_assert_int_eq(th_nav_field_set_goal_rect(&f, 0, 0, 2, 2, 0), TH_NAV_ERANGE); /* 9 > 4 */
    ck_assert_int_eq(th_nav_field_set_goal_rect(&f, 2, 0, 1, 1, 0), TH_NAV_ERANGE);
    ck_assert_int_eq(th_nav_field_set_goal_rect(&f, 0, 0, 1, 8, 0), TH_NAV_ERANGE);
    ck_assert_int_eq(th_nav_field_compute(&f, &m, NULL), TH_NAV_EINVAL);
    ck_assert_int_eq(th_nav_field_compute(&f, &m, so), TH_NAV_EINVAL);
    ck_assert_int_eq(th_nav_field_compute(&f, &other, so), TH_NAV_EINVAL);
    ck_assert_int_eq(th_nav_field_compute(NULL, &m, s), TH_NAV_EINVAL);
    ck_assert_int_eq(th_nav_field_compute(&f, &m, s), TH_NAV_OK);
    uint32_t bad = 64;
    ck_assert_int_eq(th_nav_field_repair_opened(&f, &m, &bad, 1, s), TH_NAV_ERANGE);
    ck_assert_int_eq(th_nav_field_repair_opened(&f, &m, NULL, 1, s), TH_NAV_EINVAL);
    ck_assert_int_eq(th_nav_field_repair_opened(&f, &m, NULL, 0, s), TH_NAV_OK);
    th_nav_combined c;
    ck_assert_int_eq(th_nav_combined_init(&c, &other), TH_NAV_OK);
    ck_assert_int_eq(th_nav_combined_build(&c, NULL, &f, 1, NULL), TH_NAV_EINVAL);
    th_vec2 dir;
    ck_assert(!th_nav_flow_sample(&f, &other, th_v2(1, 1), &dir));
    ck_assert(!th_nav_flow_sample(NULL, &m, th_v2(1, 1), &dir));
    ck_assert(isinf(th_nav_cost_at(&f, &other, th_v2(1, 1))));
    ck_assert(th_nav_flow_sample(&f, &m, th_v2(NAN, INFINITY), &dir));
    ck_assert(th_v2_len2(dir) >= 0.0f);
    ck_assert_ptr_null(th_nav_scratch_create(NULL));
    ck_assert_ptr_null(th_astar_create(NULL));
    ck_assert_uint_eq(th_nav_string_pull(&m, NULL, 3, NULL), 0);
    ck_assert(!th_nav_line_of_sight(NULL, 0, 0, 1, 1));
    th_nav_combined_free(&c);
    th_nav_field_free(&f);
    th_nav_field_free(NULL);
    th_nav_scratch_destroy(s);
    th_nav_scratch_destroy(so);
    th_navmap_free(&m);
    th_navmap_free(&other);
}
END_TEST

START_TEST(test_queries_do_not_allocate) {
    th_navmap m;
    random_map(&m, 4242, 40, 20, 5);
    th_nav_scratch *s = th_nav_scratch_create(&m);
    th_nav_field f;
    th_nav_field_init(&f, &m, 4);
    th_nav_field_set_goal_rect(&f, 1, 1, 2, 2, 0);
    uint64_t before = th_alloc_count();
    th_nav_field_compute(&f, &m, s);
    float acc = 0.0f;
    for (int i = 0; i < 1000; i++) {
        th_vec2 p = th_v2((float)i * 0.037f * m.cell_size, (float)(i % 37) * 0.9f * m.cell_size);
        th_vec2 d, away;
        th_nav_flow_sample(&f, &m, p, &d);
        acc += th_navmap_wall_sample(&m, p, &away) + d.x;
        float cst = th_nav_cost_at(&f, &m, p);
        if (isfinite(cst)) acc += cst;
    }
    uint32_t c = 5;
    if (m.cost[c] == 0 || th_navmap_break_wall(&m, 5, 0) == TH_NAV_OK) {
        th_nav_field_repair_opened(&f, &m, &c, 1, s);
    }
    th_navmap_update_walls(&m, NULL);
    ck_assert_uint_eq(th_alloc_count(), before);
    ck_assert(isfinite(acc));
    th_nav_field_free(&f);
    th_nav_scratch_destroy(s);
    th_navmap_free(&m);
}
END_TEST

START_TEST(test_constants) {
    /* The reference restates the cost definition with literals; they must agree. */
    ck_assert_uint_eq(TH_NAV_STEP_STRAIGHT, 70);
    ck_assert_uint_eq(TH_NAV_STEP_DIAG, 99);
    th_navmap m;
    th_navmap_init(&m, 3, 1, 2.0f);
    ck_assert_float_eq(th_nav_units_to_metres(&m, TH_NAV_UNITS_PER_CELL), 2.0f);
    ck_assert(isinf(th_nav_units_to_metres(&m, TH_NAV_UNREACHABLE)));
    th_navmap_free(&m);
}
END_TEST

static Suite *nav_suite(void) {
    Suite *s = suite_create("nav");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    /* Under ThreadSanitizer only the tests that build on a pool or step a world on threads. */
    if (!TH_TEST_TSAN) tcase_add_test(tc, test_constants);
    if (!TH_TEST_TSAN) tcase_add_test(tc, test_map_bounds);
    if (!TH_TEST_TSAN) tcase_add_test(tc, test_moves_no_squeeze);
    tcase_add_test(tc, test_wall_distance);
    tcase_add_test(tc, test_bulk_map_build);
    tcase_add_test(tc, test_world_map_deferred);
    if (!TH_TEST_TSAN) tcase_add_test(tc, test_wall_repulsion_direction);
    if (!TH_TEST_TSAN) tcase_add_test(tc, test_field_vs_reference);
    if (!TH_TEST_TSAN) tcase_add_test(tc, test_field_goal_rect_and_cap);
    if (!TH_TEST_TSAN) tcase_add_test(tc, test_repair_opened);
    if (!TH_TEST_TSAN) tcase_add_test(tc, test_repair_goal_on_wall);
    if (!TH_TEST_TSAN) tcase_add_test(tc, test_repair_raised);
    tcase_add_test(tc, test_parallel_identical);
    tcase_add_test(tc, test_combined);
    if (!TH_TEST_TSAN) tcase_add_test(tc, test_flow_follow);
    if (!TH_TEST_TSAN) tcase_add_test(tc, test_field_path);
    if (!TH_TEST_TSAN) tcase_add_test(tc, test_line_of_sight);
    if (!TH_TEST_TSAN) tcase_add_test(tc, test_string_pull_work_is_linear);
    if (!TH_TEST_TSAN) tcase_add_test(tc, test_string_pull_respects_cost);
    if (!TH_TEST_TSAN) tcase_add_test(tc, test_astar);
    if (!TH_TEST_TSAN) tcase_add_test(tc, test_astar_unreachable);
    if (!TH_TEST_TSAN) tcase_add_test(tc, test_bad_args);
    if (!TH_TEST_TSAN) tcase_add_test(tc, test_queries_do_not_allocate);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return th_test_run(nav_suite()); }
