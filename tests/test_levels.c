/* Levels and stairs: river maps across glued edges against a plain Dijkstra on the joined
 * graph, walkers down and up a flight against the hand calculation of their time, re-routing
 * when a stair is blocked, the same state at 1, 2, 3 and 8 threads, and the refusals; the
 * default stair speeds and a flight's route cost against docs/buildings.md. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/rng.h"
#include "sim/nav/nav.h"
#include "tests/ref_dijkstra.h"
#include "throng/building.h"
#include "throng/throng.h"
#include "test_util.h"

/* ---- fields across glued edges ---------------------------------------------------------- */

static uint32_t rnd(uint64_t seed, uint64_t *ctr, uint32_t n) {
    return (uint32_t)(th_rng_u64(seed, 7, (*ctr)++) % n);
}

/* A random map with random glued edges between open cells whose neighbours across the edges
 * are blocked; the joins are listed for the reference. */
static int random_glued(th_navmap *m, uint64_t seed, th_ref_join *joins, int max) {
    uint64_t ctr = 0;
    int32_t w = 6 + (int32_t)rnd(seed, &ctr, 40), h = 6 + (int32_t)rnd(seed, &ctr, 40);
    ck_assert_int_eq(th_navmap_init(m, w, h, 0.5f), TH_NAV_OK);
    for (int32_t y = 0; y < h; y++) {
        for (int32_t x = 0; x < w; x++) {
            uint32_t r = rnd(seed, &ctr, 100);
            if (r < 30) th_navmap_set_blocked(m, x, y, false);
            else if (r < 45) th_navmap_set_cost(m, x, y, 1 + rnd(seed, &ctr, 9));
        }
    }
    th_navmap_update_moves(m, NULL);
    int n = 0;
    for (int tries = 0; tries < 400 && n < max; tries++) {
        int32_t x = (int32_t)rnd(seed, &ctr, (uint32_t)w),
                y = (int32_t)rnd(seed, &ctr, (uint32_t)h);
        int32_t tx = (int32_t)rnd(seed, &ctr, (uint32_t)w),
                ty = (int32_t)rnd(seed, &ctr, (uint32_t)h);
        uint8_t dir = (uint8_t)rnd(seed, &ctr, 4);
        if (th_navmap_is_blocked(m, x, y) || th_navmap_is_blocked(m, tx, ty)) continue;
        int rc = th_navmap_glue(m, x, y, dir, tx, ty);
        if (rc != TH_NAV_OK) continue; /* an open cell across, glued already, or itself */
        joins[n++] = (th_ref_join){y * w + x, ty * w + tx};
    }
    return n;
}

START_TEST(glued_fields_match_reference) {
    int total_joins = 0;
    for (uint64_t seed = 1; seed <= 60; seed++) {
        th_navmap m;
        th_ref_join joins[64];
        int nj = random_glued(&m, seed, joins, 64);
        total_joins += nj;
        uint64_t ctr = 99;
        th_nav_goal goals[3];
        th_ref_goal rg[3];
        uint32_t ng = 1 + rnd(seed, &ctr, 3);
        for (uint32_t i = 0; i < ng; i++) {
            goals[i] = (th_nav_goal){(int32_t)rnd(seed, &ctr, (uint32_t)m.w),
                                     (int32_t)rnd(seed, &ctr, (uint32_t)m.h), rnd(seed, &ctr, 300)};
            rg[i] = (th_ref_goal){goals[i].x, goals[i].y, goals[i].weight};
        }
        th_nav_field f;
        ck_assert_int_eq(th_nav_field_init(&f, &m, 8), TH_NAV_OK);
        ck_assert_int_eq(th_nav_field_set_goals(&f, goals, ng), TH_NAV_OK);
        th_nav_scratch *s = th_nav_scratch_create(&m);
        ck_assert_int_eq(th_nav_field_compute(&f, &m, s), TH_NAV_OK);
        uint64_t *ref = malloc(sizeof *ref * m.ncells);
        ck_assert_int_eq(th_ref_dijkstra_joined(m.w, m.h, m.cost, rg, (int)ng, joins, nj, ref), 0);
        uint32_t *cells = malloc(sizeof *cells * m.ncells);
        for (uint32_t c = 0; c < m.ncells; c++) {
            ck_assert_msg(f.dist[c] == th_ref_to_field(ref[c], TH_NAV_DIST_MAX),
                          "seed %llu cell %u: field %u, reference %llu", (unsigned long long)seed,
                          c, f.dist[c], (unsigned long long)ref[c]);
            if (!th_nav_reachable(f.dist[c])) continue;
            /* Down the descent, seams included, every step costs exactly what dist drops. */
            uint32_t len = 0;
            ck_assert_int_eq(th_nav_field_path(&f, &m, (int32_t)(c % (uint32_t)m.w),
                                               (int32_t)(c / (uint32_t)m.w), cells, m.ncells, &len),
                             TH_NAV_OK);
            for (uint32_t i = 1; i < len; i++) {
                uint32_t a = cells[i - 1], b = cells[i];
                const uint8_t k = f.descent[a]; /* glued edges are straight moves */
                ck_assert_uint_eq(th_navmap_step(&m, a, k), b);
                uint32_t step = (uint32_t)(m.cost[a] + m.cost[b]) *
                                (k >= 4 ? TH_NAV_STEP_DIAG : TH_NAV_STEP_STRAIGHT);
                ck_assert_uint_eq(f.dist[a] - f.dist[b], step);
            }
        }
        /* Opening a wall: the repair equals the reference on the changed map. */
        for (uint32_t c = 0; c < m.ncells; c++) {
            if (m.cost[c] == 0 && !(m.flags[c] & TH_NAV_FLAG_SEAM)) {
                th_navmap_set_cost(&m, (int32_t)(c % (uint32_t)m.w), (int32_t)(c / (uint32_t)m.w),
                                   1);
                ck_assert_int_eq(th_nav_field_repair_opened(&f, &m, &c, 1, s), TH_NAV_OK);
                break;
            }
        }
        ck_assert_int_eq(th_ref_dijkstra_joined(m.w, m.h, m.cost, rg, (int)ng, joins, nj, ref), 0);
        for (uint32_t c = 0; c < m.ncells; c++)
            ck_assert_uint_eq(f.dist[c], th_ref_to_field(ref[c], TH_NAV_DIST_MAX));
        free(cells);
        free(ref);
        th_nav_scratch_destroy(s);
        th_nav_field_free(&f);
        th_navmap_free(&m);
    }
    ck_assert_int_gt(total_joins, 200); /* the maps did have seams to cross */
}
END_TEST

/* A* across glued edges: the cheapest cost equals the reference's on the joined graph, with
 * and without landmarks, and every step of the path is a move or a glued edge. */
START_TEST(astar_across_seams) {
    uint32_t crossed = 0;
    for (uint64_t seed = 1; seed <= 30; seed++) {
        th_navmap m;
        th_ref_join joins[64];
        int nj = random_glued(&m, seed + 1000, joins, 64);
        th_astar_ctx *a = th_astar_create(&m);
        ck_assert_ptr_nonnull(a);
        uint64_t *ref = malloc(sizeof *ref * m.ncells);
        uint32_t *path = malloc(sizeof *path * m.ncells);
        uint64_t ctr = 5;
        for (int with_lm = 0; with_lm <= 1; with_lm++) {
            if (with_lm)
                ck_assert_int_ge(th_astar_landmarks_build(a, &m, NULL, TH_ASTAR_LANDMARK_BUDGET),
                                 1);
            for (int q = 0; q < 8; q++) {
                int32_t gx = (int32_t)rnd(seed, &ctr, (uint32_t)m.w),
                        gy = (int32_t)rnd(seed, &ctr, (uint32_t)m.h);
                int32_t sx = (int32_t)rnd(seed, &ctr, (uint32_t)m.w),
                        sy = (int32_t)rnd(seed, &ctr, (uint32_t)m.h);
                if (th_navmap_is_blocked(&m, gx, gy) || th_navmap_is_blocked(&m, sx, sy)) continue;
                th_ref_goal g = {gx, gy, 0};
                ck_assert_int_eq(th_ref_dijkstra_joined(m.w, m.h, m.cost, &g, 1, joins, nj, ref),
                                 0);
                uint32_t len = 0, cost = 0;
                int rc = th_astar_find(a, &m, sx, sy, gx, gy, path, m.ncells, &len, &cost);
                const uint64_t want = ref[(uint32_t)sy * (uint32_t)m.w + (uint32_t)sx];
                if (want == TH_REF_INF) {
                    ck_assert_int_eq(rc, TH_NAV_ENOPATH);
                    continue;
                }
                ck_assert_int_eq(rc, TH_NAV_OK);
                ck_assert_msg(cost == want, "seed %llu: A* %u, reference %llu",
                              (unsigned long long)seed, cost, (unsigned long long)want);
                for (uint32_t i = 1; i < len; i++) {
                    bool step = false;
                    for (uint8_t k = 0; k < 8 && !step; k++)
                        step = th_navmap_step(&m, path[i - 1], k) == path[i];
                    ck_assert(step);
                    int32_t dx =
                        (int32_t)(path[i] % (uint32_t)m.w) - (int32_t)(path[i - 1] % (uint32_t)m.w);
                    int32_t dy =
                        (int32_t)(path[i] / (uint32_t)m.w) - (int32_t)(path[i - 1] / (uint32_t)m.w);
                    crossed += dx < -1 || dx > 1 || dy < -1 || dy > 1;
                }
            }
        }
        free(path);
        free(ref);
        th_astar_destroy(a);
        th_navmap_free(&m);
    }
    ck_assert_uint_gt(crossed, 10); /* paths did cross seams */
}
END_TEST

/* Landmarks built before seams were glued are not used after: A* stays exact. */
START_TEST(astar_landmarks_older_than_seams) {
    th_navmap m;
    ck_assert_int_eq(th_navmap_init(&m, 40, 12, 1.0f), TH_NAV_OK);
    /* Two rooms far apart on the map, a wall column between them. */
    for (int32_t y = 0; y < 12; y++) th_navmap_set_blocked(&m, 20, y, false);
    for (int32_t x = 0; x < 40; x++) th_navmap_set_blocked(&m, x, 6, false);
    th_navmap_set_cost(&m, 20, 2, 1); /* the only way round: a door low in the wall */
    th_astar_ctx *a = th_astar_create(&m);
    ck_assert_int_ge(th_astar_landmarks_build(a, &m, NULL, TH_ASTAR_LANDMARK_BUDGET), 1);
    ck_assert(th_astar_landmarks_current(a, &m));
    /* A seam joining the upper rooms' west and east ends: (0, 9) going west to (39, 9). */
    ck_assert_int_eq(th_navmap_glue(&m, 0, 9, 2, 39, 9), TH_NAV_OK);
    ck_assert(!th_astar_landmarks_current(a, &m));
    th_ref_join j = {9 * 40 + 0, 9 * 40 + 39};
    th_ref_goal g = {38, 10, 0};
    uint64_t *ref = malloc(sizeof *ref * m.ncells);
    ck_assert_int_eq(th_ref_dijkstra_joined(m.w, m.h, m.cost, &g, 1, &j, 1, ref), 0);
    uint32_t path[512], len = 0, cost = 0;
    ck_assert_int_eq(th_astar_find(a, &m, 1, 10, 38, 10, path, 512, &len, &cost), TH_NAV_OK);
    ck_assert_uint_eq(cost, ref[10 * 40 + 1]);
    free(ref);
    th_astar_destroy(a);
    th_navmap_free(&m);
}
END_TEST

START_TEST(glue_refusals) {
    th_navmap m;
    ck_assert_int_eq(th_navmap_init(&m, 8, 8, 1.0f), TH_NAV_OK);
    /* Across the edge of (3, 3) going east is (4, 3): open, so the edge cannot be glued. */
    ck_assert_int_eq(th_navmap_glue(&m, 3, 3, 0, 6, 6), TH_NAV_EDENIED);
    th_navmap_set_blocked(&m, 4, 3, false);
    /* Behind (6, 6) going west is (5, 6): open too. */
    ck_assert_int_eq(th_navmap_glue(&m, 3, 3, 0, 6, 6), TH_NAV_EDENIED);
    th_navmap_set_blocked(&m, 5, 6, false);
    ck_assert_int_eq(th_navmap_glue(&m, 3, 3, 0, 6, 6), TH_NAV_OK);
    ck_assert_int_eq(th_navmap_glue(&m, 3, 3, 0, 6, 6), TH_NAV_EINVAL); /* twice */
    ck_assert_int_eq(th_navmap_glue(&m, 3, 3, 4, 6, 6), TH_NAV_EINVAL); /* not straight */
    ck_assert_int_eq(th_navmap_glue(&m, 3, 3, 1, 3, 3), TH_NAV_EINVAL); /* itself */
    ck_assert_uint_eq(th_navmap_step(&m, 3 * 8 + 3, 0), 6 * 8 + 6);
    ck_assert_uint_eq(th_navmap_step(&m, 6 * 8 + 6, 2), 3 * 8 + 3);
    ck_assert_uint_eq(th_navmap_step(&m, 3 * 8 + 3, 1), 4 * 8 + 3);
    ck_assert(m.flags[3 * 8 + 4] & TH_NAV_FLAG_SEAM);
    /* A seam cell keeps its flag when its cost changes. */
    th_navmap_set_blocked(&m, 4, 3, true);
    ck_assert(m.flags[3 * 8 + 4] & TH_NAV_FLAG_SEAM);
    th_navmap_free(&m);
}
END_TEST

/* ---- walkers on a flight ---------------------------------------------------------------- */

/* A corridor on each of two levels (cells of 0.5 m, three open rows): the ground level's
 * flight climbs east over cells 3..12 (5 m of plan) to a wall at 13; the landing is the upper
 * level's cell 15, its stairwell wall 14 behind it. The bunker is the ground's cells 1 (down)
 * or the upper level's cells 29 (up). */
/* The same with the flight's speed factors up and down given apart; 0 leaves a key out (the
 * default). */
static const char *building_speeds(const char *name, bool down, float up_f, float down_f,
                                   const char *extra) {
    static char text[4096];
    char speeds[96] = "";
    if (up_f > 0.0f) snprintf(speeds, sizeof speeds, ", speed_up: %g", (double)up_f);
    if (down_f > 0.0f)
        snprintf(speeds + strlen(speeds), sizeof speeds - strlen(speeds), ", speed_down: %g",
                 (double)down_f);
    const char *rows[5] = {"###############################", "#............##...............#",
                           "#............##...............#", "#............##...............#",
                           "###############################"};
    char map[5][64];
    for (int r = 0; r < 5; r++) {
        snprintf(map[r], sizeof map[r], "%s", rows[r]);
        if (r >= 1 && r <= 3) map[r][down ? 1 : 29] = 'E';
    }
    snprintf(text, sizeof text,
             "name: %s\nseed: 4\ntimestep: 0.02\nsteps: 3000\n"
             "map:\n  cell_size: 0.5\n  legend: {'#': wall, '.': open, 'E': {bunker: exit}}\n"
             "  ascii: |\n    %s\n    %s\n    %s\n    %s\n    %s\n"
             "levels:\n  - {name: ground, cells: [0, 0, 13, 4], elevation: 0}\n"
             "  - {name: upper, cells: [14, 0, 30, 4], elevation: 3}\n"
             "stairs:\n  - {name: flight, cells: [3, 1, 12, 3], up: east, landing: [15, 1]%s}\n"
             "crowds:\n  - name: walker\n    model: pedestrian\n    behavior: flee\n"
             "    desired_speed: 1.2\n    desired_speed_sd: 0\n    agents: [[%s, 1.25]]\n%s",
             name, map[0], map[1], map[2], map[3], map[4], speeds, down ? "14.25" : "1.25", extra);
    return th_test_write_text(name, text);
}

static const char *building(const char *name, bool down, float factor, const char *extra) {
    return building_speeds(name, down, factor, factor, extra);
}

/* Seconds until the world has no agent left (all sheltered), stepping at most `max` steps. */
static double time_to_empty(th_world *w, uint32_t max) {
    for (uint32_t i = 0; i < max; i++) {
        if (th_world_agent_count(w) == 0) return (double)i * th_world_get_def(w).timestep;
        th_world_step(w);
    }
    return INFINITY;
}

/* A flight of 5 m of plan rising 3 m with the speed keys left out walks at Weidmann's mean
 * horizontal speeds on stairs as shares of the flat one (docs/buildings.md: 0.610 m/s up and
 * 0.694 m/s down against 1.34 m/s), i.e. along the slope those shares times the slope length
 * over the plan length. */
START_TEST(default_stair_speeds_are_weidmanns) {
    th_error err;
    th_scene_opts o = {0};
    o.threads = 1;
    th_world *w = th_scene_load(building_speeds("defaults.yaml", true, 0, 0, ""), &o, NULL, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    th_stair_info st;
    ck_assert(th_world_get_stair(w, th_world_find_stair(w, "flight"), &st));
    const double slope = sqrt(25.0 + 9.0) / 5.0;
    ck_assert_msg(fabs(st.up_factor - 0.610 / 1.34 * slope) < 1e-5, "up %g, want %g",
                  (double)st.up_factor, 0.610 / 1.34 * slope);
    ck_assert_msg(fabs(st.down_factor - 0.694 / 1.34 * slope) < 1e-5, "down %g, want %g",
                  (double)st.down_factor, 0.694 / 1.34 * slope);
    th_world_destroy(w);
}
END_TEST

/* River maps weigh a flight by its time (docs/buildings.md): its cells cost the rounded mean of
 * the inverses of the two plan speeds (the factor times plan over slope length), the open floor
 * 1. With the defaults that is round((1.34 / 0.610 + 1.34 / 0.694) / 2) = 2; with 0.2 up and
 * 0.6 down along this 5 m by 3 m flight, round(sqrt(34) / 5 (1 / 0.2 + 1 / 0.6) / 2) = 4. */
START_TEST(stair_cells_cost_their_time) {
    const float ups[2] = {0, 0.2f}, downs[2] = {0, 0.6f};
    for (int c = 0; c < 2; c++) {
        const double up_plan = c ? 0.2 * 5.0 / sqrt(34.0) : 0.610 / 1.34;
        const double down_plan = c ? 0.6 * 5.0 / sqrt(34.0) : 0.694 / 1.34;
        const uint32_t want = (uint32_t)lround(0.5 * (1.0 / up_plan + 1.0 / down_plan));
        ck_assert_uint_eq(want, c ? 4u : 2u);
        th_error err;
        th_scene_opts o = {0};
        o.threads = 1;
        th_world *w =
            th_scene_load(building_speeds("cost.yaml", true, ups[c], downs[c], ""), &o, NULL, &err);
        ck_assert_msg(w != NULL, "%s", err.message);
        for (int32_t y = 1; y <= 3; y++) {
            for (int32_t x = 3; x <= 12; x++) {
                uint32_t cost = 0;
                ck_assert(th_world_cell(w, x, y, &cost) == TH_CELL_OPEN);
                ck_assert_msg(cost == want, "stair cell (%d, %d) costs %u, want %u", x, y, cost,
                              want);
            }
            uint32_t floor = 0;
            ck_assert(th_world_cell(w, 2, y, &floor) == TH_CELL_OPEN && floor == 1);
            ck_assert(th_world_cell(w, 20, y, &floor) == TH_CELL_OPEN && floor == 1);
        }
        th_world_destroy(w);
    }
}
END_TEST

START_TEST(walk_down_and_up_the_flight) {
    for (int down = 0; down <= 1; down++) {
        const float factor = 0.6f;
        th_error err;
        th_scene_opts o = {0};
        o.threads = 1;
        th_world *w = th_scene_load(building(down ? "down.yaml" : "up.yaml", down, factor, ""), &o,
                                    NULL, &err);
        ck_assert_msg(w != NULL, "%s", err.message);
        th_stair_info st;
        ck_assert(th_world_get_stair(w, th_world_find_stair(w, "flight"), &st));
        ck_assert_float_eq_tol(st.plan_length, 5.0f, 1e-5f);
        ck_assert_float_eq_tol(st.length, sqrtf(25.0f + 9.0f), 1e-4f);
        ck_assert_uint_eq(st.lower.index1, th_world_find_level(w, "ground").index1);
        ck_assert_uint_eq(st.upper.index1, th_world_find_level(w, "upper").index1);
        const double t = time_to_empty(w, 3000);
        ck_assert(th_world_get_stair(w, th_world_find_stair(w, "flight"), &st));
        ck_assert_uint_eq(down ? st.crossed_down : st.crossed_up, 1); /* alone: no shuffling */
        ck_assert_uint_eq(down ? st.crossed_up : st.crossed_down, 0);
        /* By hand: the flat stretches at 1.2 m/s, the flight's 5 m of plan at 1.2 x 0.6 along
         * the slope, i.e. 1.2 x 0.6 x 5 / sqrt(34) over the plan; the walker enters the bunker
         * cell when it crosses its edge (x = 1.0 m down, 14.5 m up). Down: 14.25 -> 7.5 on the
         * upper level, 6.5 -> 1.5 on the flight, 1.5 -> 1.0. Up: 1.25 -> 1.5, the flight,
         * 7.5 -> 14.5. Speeding up (relaxation time 0.5 s) lags about 0.5 s from standing and
         * 0.25 s after the flight (half the speed to gain). */
        const double plan_speed = 1.2 * 0.6 * 5.0 / sqrt(34.0);
        const double flat = down ? (14.25 - 7.5) + 0.5 : 0.25 + (14.5 - 7.5);
        const double hand = flat / 1.2 + 5.0 / plan_speed;
        ck_assert_msg(t >= hand - 0.1 && t <= hand + 0.9, "%s: %.2f s, by hand %.2f s",
                      down ? "down" : "up", t, hand);
        th_world_destroy(w);
    }
}
END_TEST

/* An agent's own goal on the other level: A* plans over the seam and the walker crosses it. */
START_TEST(own_goal_on_another_level) {
    for (int down = 0; down <= 1; down++) {
        th_error err;
        th_scene_opts o = {0};
        o.threads = 2;
        th_world *w = th_scene_load(
            building(down ? "own_down.yaml" : "own_up.yaml", down, 0.6f, ""), &o, NULL, &err);
        ck_assert_msg(w != NULL, "%s", err.message);
        /* Down: from the upper corridor to the middle of the flight; up: from the ground to
         * the upper corridor short of its exit. */
        const th_vec2 goal = down ? th_v2(4.25f, 1.25f) : th_v2(10.25f, 1.25f);
        th_agent_goal g = {.kind = TH_AGENT_GOAL_POINT, .point = goal, .radius = 0.3f};
        ck_assert_msg(th_world_set_agent_goal(w, th_test_id(0), &g, &err), "%s", err.message);
        th_vec2 pts[64];
        uint32_t n = 0;
        ck_assert_msg(th_world_agent_path(w, th_test_id(0), pts, 64, &n, &err), "%s", err.message);
        ck_assert_uint_ge(n, 3);
        th_agent_state st = {0};
        for (int i = 0; i < 1500; i++) th_world_step(w);
        ck_assert(th_world_get_agent(w, th_test_id(0), &st));
        ck_assert_msg(th_v2_len(th_v2_sub(st.position, goal)) < 0.35f, "%s: at (%g, %g)",
                      down ? "down" : "up", (double)st.position.x, (double)st.position.y);
        th_world_destroy(w);
    }
}
END_TEST

/* The office's scene up to its crowds (its map, levels and stairs) into text (room for cap
 * bytes); returns its length, where a test writes crowds of its own. */
static size_t office_head(char *text, size_t cap) {
    FILE *f = fopen(THRONG_SCENES_DIR "/office.yaml", "r");
    ck_assert(f != NULL);
    const size_t n = fread(text, 1, cap - 1, f);
    fclose(f);
    text[n] = 0;
    const char *crowds = strstr(text, "\ncrowds:");
    ck_assert(crowds != NULL);
    return (size_t)(crowds - text);
}

/* The office, one walker with its own point on the other floor, starting by a seam: at the
 * top of the west flight bound for a point up and to the south-east of the landing (a leg from
 * the landing's edge grazes the seam), and on the landing's edge bound for a point down the
 * other flight. It arrives, on the point's level, crossing the seam once. */
START_TEST(own_goal_from_a_seam) {
    static char text[16384];
    const size_t head = office_head(text, sizeof text);
    static const struct {
        float x, y, gx, gy;
    } cases[] = {
        {1.29f, 4.5f, 17.25f, 2.75f}, {13.26f, 5.02f, 17.25f, 2.75f}, {1.25f, 4.9f, 20.25f, 1.25f}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        snprintf(text + head, sizeof text - head,
                 "\ncrowds:\n  - {name: v, model: pedestrian, behavior: flee, agents: [[%g, %g]]}\n"
                 "agent_goals:\n  - {agent: [v, 0], point: [%g, %g], radius: 0.5}\n",
                 (double)cases[c].x, (double)cases[c].y, (double)cases[c].gx, (double)cases[c].gy);
        char name[32];
        snprintf(name, sizeof name, "seam%zu.yaml", c);
        th_error err;
        th_scene_opts o = {0};
        o.threads = 2;
        th_world *w = th_scene_load(th_test_write_text(name, text), &o, NULL, &err);
        ck_assert_msg(w != NULL, "%s", err.message);
        const th_vec2 goal = th_v2(cases[c].gx, cases[c].gy);
        th_agent_state st = {0};
        for (int i = 0; i < 1200; i++) th_world_step(w);
        ck_assert(th_world_get_agent(w, th_test_id(0), &st));
        ck_assert_msg(th_v2_len(th_v2_sub(st.position, goal)) < 0.55f,
                      "case %zu: at (%g, %g), goal (%g, %g)", c, (double)st.position.x,
                      (double)st.position.y, (double)goal.x, (double)goal.y);
        uint64_t crossings = 0;
        for (uint32_t s = 0; s < th_world_stair_count(w); s++) {
            th_stair_info si;
            ck_assert(th_world_get_stair(w, (th_stair_id){s + 1}, &si));
            crossings += si.crossed_up + si.crossed_down;
        }
        ck_assert_msg(crossings == (c == 1 ? 0u : 1u), "case %zu: %llu crossings", c,
                      (unsigned long long)crossings);
        th_world_destroy(w);
    }
}
END_TEST

START_TEST(same_state_at_any_thread_count) {
    uint64_t first = 0;
    const uint32_t threads[4] = {1, 2, 3, 8};
    for (int i = 0; i < 4; i++) {
        th_scene_opts o = {0};
        o.threads = threads[i];
        o.agents = 60;
        th_error err;
        th_world *w = th_scene_load(THRONG_SCENES_DIR "/office.yaml", &o, NULL, &err);
        ck_assert_msg(w != NULL, "%s", err.message);
        for (int s = 0; s < 400; s++) th_world_step(w);
        uint64_t h = th_world_hash(w);
        if (i == 0) first = h;
        ck_assert_msg(h == first, "%u threads: hash %llx, 1 thread %llx", threads[i],
                      (unsigned long long)h, (unsigned long long)first);
        th_world_destroy(w);
    }
}
END_TEST

START_TEST(blocked_stair_reroutes) {
    /* The office has a stair by each side wall. With the west flight blocked before the first
     * step, the river map across both floors leads everyone upstairs to the east one. */
    for (int blocked = 0; blocked <= 1; blocked++) {
        th_error err;
        th_scene_opts o = {0};
        o.threads = 2;
        th_world *w = th_scene_load(THRONG_SCENES_DIR "/office.yaml", &o, NULL, &err);
        ck_assert_msg(w != NULL, "%s", err.message);
        const th_stair_id west = th_world_find_stair(w, "west"),
                          east = th_world_find_stair(w, "east");
        th_stair_info ws, es;
        ck_assert(th_world_get_stair(w, west, &ws));
        if (blocked) ck_assert(th_world_block_cells(w, ws.x0, ws.y0, ws.x1, ws.y1, &err));
        /* The staff start on the first floor. */
        th_level_info first;
        ck_assert(th_world_get_level(w, th_world_find_level(w, "first"), &first));
        const uint32_t upstairs = first.agents;
        ck_assert_uint_gt(upstairs, 30);
        ck_assert(time_to_empty(w, 4000) < INFINITY);
        ck_assert(th_world_get_stair(w, west, &ws));
        ck_assert(th_world_get_stair(w, east, &es));
        const int64_t wn = (int64_t)ws.crossed_down - (int64_t)ws.crossed_up;
        const int64_t en = (int64_t)es.crossed_down - (int64_t)es.crossed_up;
        ck_assert_int_eq(wn + en, upstairs);
        /* Walkers see each other across the seam, so next to none step back up it. */
        ck_assert_uint_le(ws.crossed_up + es.crossed_up, upstairs / 10);
        if (blocked) {
            ck_assert_uint_eq(ws.crossed_down, 0);
        } else {
            ck_assert_int_gt(wn, 5); /* both stairs serve when both stand */
            ck_assert_int_gt(en, 5);
        }
        th_world_destroy(w);
    }
}
END_TEST

/* Two corridors side by side, one cell of wall apart, each a level of its own: a walker on one
 * walks exactly as it would alone, however near the other level's walker passes. */
/* The office's map with a squad of six on the ground floor whose goal is on the first floor,
 * and one going the other way: its centre steps across the stair's seam, its members find
 * their way over the stair, and it arrives with every member on its goal's floor; the same at
 * 1 and 3 threads. */
START_TEST(squads_cross_a_stair) {
    static char text[16384];
    const size_t head = office_head(text, sizeof text);
    for (int down = 0; down <= 1; down++) {
        snprintf(
            text + head, sizeof text - head,
            "\ncrowds:\n  - {name: team, separation_radius: 0.8, count: 0, spawn: {rect: [6, 3, 1, "
            "1]}}\nsquads:\n  - {crowd: team, count: 6, formation: box, spacing: 1.5, start: [%s], "
            "goal: [%s], speed: 1.0, tolerance: 1.0}\n",
            down ? "18, 3" : "7, 3", down ? "7, 3" : "18, 3");
        const char *path = th_test_write_text(down ? "down.yaml" : "up.yaml", text);
        uint64_t first = 0;
        for (uint32_t threads = 1; threads <= 3; threads += 2) {
            th_error err;
            th_scene_opts o = {0};
            o.threads = threads;
            th_world *w = th_scene_load(path, &o, NULL, &err);
            ck_assert_msg(w != NULL, "%s", err.message);
            th_squad_info si = {0};
            int s = 0;
            for (; s < 1200; s++) { /* 60 s: it takes about 15 */
                th_world_step(w);
                ck_assert(th_world_get_squad(w, (th_squad_id){1}, &si));
                if (si.arrived) break;
            }
            ck_assert_msg(si.arrived, "the squad did not arrive: centre (%g, %g), error %g m",
                          (double)si.centre.x, (double)si.centre.y, (double)si.error);
            const th_level_id goal_level = th_world_find_level(w, down ? "ground" : "first");
            for (uint32_t i = 0; i < si.members; i++) {
                th_agent_id id;
                th_vec2 slot;
                ck_assert(th_world_get_squad_member(w, (th_squad_id){1}, i, &id, &slot));
                th_agent_state st;
                ck_assert(th_world_get_agent(w, id, &st));
                ck_assert_uint_eq(th_world_level_at(w, st.position).index1, goal_level.index1);
            }
            const uint64_t h = th_world_hash(w);
            if (threads == 1) first = h;
            ck_assert_msg(h == first, "3 threads: hash %llx, 1 thread %llx", (unsigned long long)h,
                          (unsigned long long)first);
            th_world_destroy(w);
        }
    }
}
END_TEST

START_TEST(levels_do_not_see_each_other) {
    double x_alone = 0.0, y_alone = 0.0;
    for (int both = 0; both <= 1; both++) {
        char text[2048];
        snprintf(text, sizeof text,
                 "name: side by side\nseed: 1\ntimestep: 0.05\nsteps: 200\n"
                 "map:\n  cell_size: 0.5\n  legend: {'#': wall, '.': open}\n  ascii: |\n"
                 "    #########\n    #...#...#\n    #...#...#\n    #...#...#\n    #...#...#\n"
                 "    #...#...#\n    #...#...#\n    #...#...#\n    #...#...#\n    #########\n"
                 "levels:\n  - {name: a, cells: [0, 0, 3, 9]}\n  - {name: b, cells: [4, 0, 8, 9], "
                 "elevation: 3}\n"
                 "crowds:\n  - name: left\n    model: pedestrian\n    heading: [0, 1]\n"
                 "    agents: [[1.6, 0.8]]\n%s",
                 both ? "  - name: right\n    model: pedestrian\n    heading: [0, -1]\n"
                        "    agents: [[2.6, 4.2]]\n"
                      : "");
        th_error err;
        th_scene_opts o = {0};
        o.threads = 1;
        th_world *w = th_scene_load(th_test_write_text("side.yaml", text), &o, NULL, &err);
        ck_assert_msg(w != NULL, "%s", err.message);
        for (int i = 0; i < 80; i++) th_world_step(w);
        th_agent_state st;
        ck_assert(th_world_get_agent(w, th_test_id(0), &st));
        if (!both) {
            x_alone = st.position.x;
            y_alone = st.position.y;
            ck_assert_double_gt(y_alone, 2.0); /* it walked */
        } else {
            ck_assert_double_eq(st.position.x, x_alone);
            ck_assert_double_eq(st.position.y, y_alone);
        }
        th_world_destroy(w);
    }
}
END_TEST

START_TEST(refusals) {
    th_world_def wd = th_default_world_def();
    wd.width = 10.0f;
    wd.height = 5.0f;
    wd.cell_size = 0.5f;
    th_error err;
    th_world *w = th_world_create(&wd, &err);
    ck_assert(w != NULL);
    th_level_def a = {"a", 0, 0, 9, 9, 0.0f}, b = {"b", 10, 0, 19, 9, 3.0f};
    ck_assert(th_world_add_level(w, &a, &err).index1 == 1);
    th_level_def dup = {"a", 10, 0, 19, 9, 3.0f};
    ck_assert(!th_world_add_level(w, &dup, &err).index1);
    TH_TEST_ERR(err, TH_ERR_INVALID);
    th_level_def over = {"c", 9, 0, 12, 9, 3.0f};
    ck_assert(!th_world_add_level(w, &over, &err).index1);
    ck_assert(strstr(err.message, "overlaps level 'a'"));
    ck_assert(th_world_add_level(w, &b, &err).index1 == 2);
    /* Everything is open: the cell beyond the flight's top must be a wall. */
    th_stair_def s = {"s", 2, 2, 3, 6, TH_STAIR_NORTH, 12, 8, 0.0f, 0.0f, 0.0f};
    ck_assert(!th_world_add_stair(w, &s, &err).index1);
    TH_TEST_ERR(err, TH_ERR_BLOCKED);
    ck_assert(strstr(err.message, "beyond the flight's top"));
    ck_assert(th_world_set_cell(w, 2, 7, TH_CELL_WALL, 0, &err));
    ck_assert(th_world_set_cell(w, 3, 7, TH_CELL_WALL, 0, &err));
    ck_assert(!th_world_add_stair(w, &s, &err).index1);
    ck_assert(strstr(err.message, "stairwell"));
    ck_assert(th_world_set_cell(w, 12, 7, TH_CELL_DESTRUCTIBLE, 0, &err));
    ck_assert(th_world_set_cell(w, 13, 7, TH_CELL_WALL, 0, &err));
    /* A stairwell wall that could be broken would open a second way out of the landing. */
    ck_assert(!th_world_add_stair(w, &s, &err).index1);
    TH_TEST_ERR(err, TH_ERR_BLOCKED);
    ck_assert(strstr(err.message, "destructible"));
    ck_assert(th_world_set_cell(w, 12, 7, TH_CELL_WALL, 0, &err));
    th_stair_def bad = s;
    bad.top_x = 2; /* on the flight's own level */
    bad.top_y = 8;
    ck_assert(!th_world_add_stair(w, &bad, &err).index1);
    bad = s;
    bad.up_factor = 3.0f;
    ck_assert(!th_world_add_stair(w, &bad, &err).index1);
    TH_TEST_ERR(err, TH_ERR_INVALID);
    ck_assert_msg(th_world_add_stair(w, &s, &err).index1 == 1, "%s", err.message);
    /* The walls across the seam stay walls. */
    ck_assert(!th_world_set_cell(w, 2, 7, TH_CELL_OPEN, 1, &err));
    TH_TEST_ERR(err, TH_ERR_BLOCKED);
    ck_assert(!th_world_set_cell(w, 13, 7, TH_CELL_DESTRUCTIBLE, 0, &err));
    ck_assert(!th_world_add_stair(w, &s, &err).index1); /* the name is taken */
    th_stair_def again = s;
    again.name = "t";
    ck_assert(!th_world_add_stair(w, &again, &err).index1); /* overlaps */
    ck_assert_uint_eq(th_world_stair_at(w, th_v2(1.25f, 1.25f)).index1, 1);
    ck_assert_uint_eq(th_world_level_at(w, th_v2(5.25f, 1.25f)).index1, 2);
    th_world_step(w);
    ck_assert(!th_world_add_level(w, &(th_level_def){"late", 0, 0, 0, 0, 0}, &err).index1);
    TH_TEST_ERR(err, TH_ERR_STATE);
    th_world_destroy(w);
}
END_TEST

static void setup(void) { ck_assert(th_test_dir_make("levels")); }
static void teardown(void) { th_test_dir_remove(); }

static Suite *levels_suite(void) {
    Suite *s = suite_create("levels");
    TCase *tc = tcase_create("levels");
    tcase_set_timeout(tc, 300);
    tcase_add_unchecked_fixture(tc, setup, teardown);
    tcase_add_test(tc, glued_fields_match_reference);
    tcase_add_test(tc, astar_across_seams);
    tcase_add_test(tc, astar_landmarks_older_than_seams);
    tcase_add_test(tc, glue_refusals);
    tcase_add_test(tc, default_stair_speeds_are_weidmanns);
    tcase_add_test(tc, stair_cells_cost_their_time);
    tcase_add_test(tc, walk_down_and_up_the_flight);
    tcase_add_test(tc, own_goal_on_another_level);
    tcase_add_test(tc, own_goal_from_a_seam);
    tcase_add_test(tc, same_state_at_any_thread_count);
    tcase_add_test(tc, blocked_stair_reroutes);
    tcase_add_test(tc, squads_cross_a_stair);
    tcase_add_test(tc, levels_do_not_see_each_other);
    tcase_add_test(tc, refusals);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return th_test_run(levels_suite()); }
