/* Navigation inside the world: fleeing, sheltering, live bunker and wall events. */
#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/rng.h"
#include "throng/throng.h"
#include "test_util.h"

/* A small maze: 64 x 48 cells of 1 m, outer ring street, inner walls with gaps, three
 * bunkers, one pocket sealed off by indestructible walls (its agents are stranded), and a
 * destructible wall line. Returns the world with `n` fleeing agents on open cells. */
enum { MW = 64, MH = 48 };

static const char *const k_maze[MH] = {
    "################################################################",
    "#..............................................................#",
    "#..AAA.........................................................#",
    "#..AAA..........######################.........................#",
    "#..AAA..........#....................#.........................#",
    "#...............#....................#.........................#",
    "#...............#..........................................BBB.#",
    "#######.........#....................#.....................BBB.#",
    "#...............######################.....................BBB.#",
    "#..............................................................#",
    "#..................................############################",
    "#..............................................................#",
    "#..............................................................#",
    "##########################...###################################",
    "#..............................................................#",
    "#..............................................................#",
    "#.................###################..........................#",
    "#.................#.................#..........................#",
    "#.................#.................#..........................#",
    "#.................#.................#..........................#",
    "#.................#.................#..........................#",
    "#.................###################..........................#",
    "#..............................................................#",
    "#..............................................................#",
    "#############...################################################",
    "#..............................................................#",
    "#..............................................................#",
    "#..............DDDDDDDDDDDDDDDDD...............................#",
    "#..............D...............D...............................#",
    "#..............D...............D...............................#",
    "#..............D...............D...............................#",
    "#..............DDDDDDDDDDDDDDDDD...............................#",
    "#..............................................................#",
    "#..............................................................#",
    "#..............................................................#",
    "#.........................................................CCC..#",
    "#.........................................................CCC..#",
    "#.........................................................CCC..#",
    "#..............................................................#",
    "#..............................................................#",
    "#..............................................................#",
    "#..............................................................#",
    "#..............................................................#",
    "#..............................................................#",
    "#..............................................................#",
    "#..............................................................#",
    "#..............................................................#",
    "################################################################",
};

/* Row r of the art is map row MH - 1 - r (north up). */
static char art(int32_t x, int32_t y) { return k_maze[MH - 1 - y][x]; }

static th_world *make_maze(uint32_t threads, uint32_t n, uint64_t seed, const char *skip_d) {
    th_world_def wd = th_default_world_def();
    wd.width = MW;
    wd.height = MH;
    wd.cell_size = 1.0f;
    wd.threads = threads;
    wd.seed = seed;
    th_error err;
    th_world *w = th_world_create(&wd, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    for (int32_t y = 0; y < MH; y++) {
        for (int32_t x = 0; x < MW; x++) {
            char c = art(x, y);
            if (c == '#') ck_assert(th_world_set_cell(w, x, y, TH_CELL_WALL, 1, &err));
            if (c == 'D' && !skip_d)
                ck_assert(th_world_set_cell(w, x, y, TH_CELL_DESTRUCTIBLE, 1, &err));
        }
    }
    const char names[3] = {'A', 'B', 'C'};
    const char *labels[3] = {"alpha", "bravo", "charlie"};
    for (int b = 0; b < 3; b++) {
        int32_t x0 = MW, y0 = MH, x1 = -1, y1 = -1;
        for (int32_t y = 0; y < MH; y++) {
            for (int32_t x = 0; x < MW; x++) {
                if (art(x, y) != names[b]) continue;
                x0 = x < x0 ? x : x0;
                y0 = y < y0 ? y : y0;
                x1 = x > x1 ? x : x1;
                y1 = y > y1 ? y : y1;
            }
        }
        th_bunker_def bd = {
            .name = labels[b], .x0 = x0, .y0 = y0, .x1 = x1, .y1 = y1, .capacity = 0};
        ck_assert_int_eq(IDX(th_world_add_bunker(w, &bd, &err)), b);
    }
    th_crowd_def cd = th_default_crowd_def();
    cd.name = "civilians";
    cd.behavior = TH_BEHAVIOR_FLEE;
    cd.neighbor_radius = 2.0f;
    cd.separation_radius = 0.7f;
    cd.max_speed = 3.0f;
    cd.max_force = 10.0f;
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), 0);
    for (uint32_t i = 0, draw = 0; i < n; draw++) {
        float x = th_rng_range(seed, draw, 0, 0.0f, MW), y = th_rng_range(seed, draw, 1, 0.0f, MH);
        if (th_world_cell(w, (int32_t)x, (int32_t)y, NULL) != TH_CELL_OPEN) continue;
        ck_assert(
            th_agent_id_valid(th_world_add_agent(w, CROWD_ID(0), th_v2(x, y), th_v2(0, 0), &err)));
        i++;
    }
    return w;
}

static bool in_pocket(float x, float y) {
    /* The sealed rooms: walls drawn at art rows 16..21 (x 18..36) and the destructible room at
     * art rows 27..31 (x 15..31). */
    int32_t cx = (int32_t)x, cy = (int32_t)y;
    bool room = cx > 18 && cx < 36 && cy > MH - 1 - 21 && cy < MH - 1 - 16;
    bool d_room = cx > 15 && cx < 31 && cy > MH - 1 - 31 && cy < MH - 1 - 27;
    return room || d_room;
}

static void assert_no_agent_in_wall(const th_world *w) {
    th_agent_view v = th_world_agents(w);
    for (uint32_t k = 0; k < v.count; k++) {
        int32_t x = (int32_t)v.px[k], y = (int32_t)v.py[k];
        ck_assert_msg(th_world_cell(w, x, y, NULL) == TH_CELL_OPEN,
                      "agent %u at (%g, %g) is inside a wall at step %" PRIu64,
                      th_test_slot(v.id[k]), (double)v.px[k], (double)v.py[k],
                      th_world_step_count(w));
    }
}

START_TEST(everyone_who_can_reach_a_bunker_is_sheltered) {
    th_world *w = make_maze(2, 800, 3, NULL);
    uint32_t pocket = 0;
    th_agent_view v = th_world_agents(w);
    for (uint32_t k = 0; k < v.count; k++) pocket += in_pocket(v.px[k], v.py[k]);
    ck_assert_uint_gt(pocket, 0); /* the scenario must contain stranded agents */
    /* Longest route ~ 150 m at 3 m/s: a minute of simulated time, plus queuing. */
    const int limit = 60 * 120;
    int s = 0;
    for (; s < limit && th_world_agent_count(w) > pocket; s++) {
        th_world_step(w);
        assert_no_agent_in_wall(w);
        th_world_stats st = th_world_get_stats(w);
        ck_assert_uint_eq(st.agents + st.sheltered, st.spawned);
    }
    th_world_stats st = th_world_get_stats(w);
    ck_assert_msg(st.agents == pocket, "%u agents left after %d steps, %u of them stranded",
                  st.agents, s, pocket);
    ck_assert_uint_eq(st.stranded, pocket);
    v = th_world_agents(w);
    for (uint32_t k = 0; k < v.count; k++) {
        th_agent_state a;
        ck_assert(th_world_get_agent(w, v.id[k], &a));
        ck_assert(a.stranded);
        ck_assert(in_pocket(a.position.x, a.position.y));
    }
    uint32_t total = 0;
    for (uint32_t b = 0; b < th_world_bunker_count(w); b++) {
        th_bunker_info bi;
        ck_assert(th_world_get_bunker(w, BUNKER_ID(b), &bi));
        ck_assert_uint_gt(bi.sheltered, 0);
        total += bi.sheltered;
    }
    ck_assert_uint_eq(total, st.sheltered);
    th_world_destroy(w);
}
END_TEST

START_TEST(destroyed_bunker_shelters_nobody_and_basin_returns) {
    th_world *w = make_maze(2, 600, 4, NULL);
    th_world_step(w);
    /* The basin of bravo before destruction. */
    static int8_t before[MH][MW];
    uint32_t basin = 0;
    for (int32_t y = 0; y < MH; y++) {
        for (int32_t x = 0; x < MW; x++) {
            before[y][x] = (int8_t)IDX(th_world_nearest_bunker(w, th_v2(x + 0.5f, y + 0.5f)));
            basin += before[y][x] == 1;
        }
    }
    ck_assert_uint_gt(basin, 50);
    for (int i = 0; i < th_test_steps(60); i++) th_world_step(w);
    th_bunker_info bi;
    th_world_get_bunker(w, BUNKER_ID(1), &bi);
    uint32_t sheltered_before = bi.sheltered;
    ck_assert(th_world_destroy_bunker(w, BUNKER_ID(1), NULL));
    for (int i = 0; i < th_test_steps(300); i++) {
        th_world_step(w);
        th_world_get_bunker(w, BUNKER_ID(1), &bi);
        ck_assert(bi.destroyed);
        ck_assert_uint_eq(bi.sheltered, sheltered_before);
        /* Every agent with a route is routed to a standing bunker. */
        th_agent_view v = th_world_agents(w);
        for (uint32_t k = 0; k < v.count; k += 7) {
            int nb = IDX(th_world_nearest_bunker(w, th_v2(v.px[k], v.py[k])));
            ck_assert_int_ne(nb, 1);
            th_vec2 dir;
            bool route = th_world_flow(w, th_v2(v.px[k], v.py[k]), &dir);
            ck_assert(route == (nb >= 0));
        }
    }
    ck_assert(th_world_restore_bunker(w, BUNKER_ID(1), NULL));
    th_world_step(w);
    for (int32_t y = 0; y < MH; y++) {
        for (int32_t x = 0; x < MW; x++) {
            ck_assert_int_eq(IDX(th_world_nearest_bunker(w, th_v2(x + 0.5f, y + 0.5f))),
                             before[y][x]);
        }
    }
    th_world_destroy(w);
}
END_TEST

/* Cost to shelter over every cell centre. */
static void shelter_costs(const th_world *w, float *out) {
    for (int32_t y = 0; y < MH; y++) {
        for (int32_t x = 0; x < MW; x++) {
            out[y * MW + x] = th_world_cost_to_shelter(w, th_v2(x + 0.5f, y + 0.5f));
        }
    }
}

START_TEST(breaking_walls_equals_a_map_built_open) {
    th_world *live = make_maze(2, 50, 5, NULL);
    th_world *open = make_maze(2, 50, 5, "no D walls");
    th_world_step(live);
    static float a[MH * MW], b[MH * MW];
    shelter_costs(live, a);
    int32_t pocket_y = MH - 1 - 29;
    ck_assert(isinf(th_world_cost_to_shelter(live, th_v2(20.5f, pocket_y + 0.5f))));
    ck_assert(th_world_break_walls(live, 0, 0, MW - 1, MH - 1, NULL));
    th_world_step(live);
    th_world_step(open);
    shelter_costs(live, a);
    shelter_costs(open, b);
    for (int i = 0; i < MH * MW; i++) {
        ck_assert_msg(a[i] == b[i] || (isinf(a[i]) && isinf(b[i])), "cell %d: %g vs %g", i,
                      (double)a[i], (double)b[i]);
    }
    ck_assert(isfinite(th_world_cost_to_shelter(live, th_v2(20.5f, pocket_y + 0.5f))));
    th_world_destroy(live);
    th_world_destroy(open);
}
END_TEST

START_TEST(blocking_cells_moves_agents_out_and_reroutes) {
    th_world *w = make_maze(2, 400, 6, NULL);
    th_world_step(w);
    /* The band between the walls of art rows 13 and 24 reaches the bunkers only through their
     * gaps (x 26..28 and x 13..15): a truck in each gap cuts it off. */
    th_vec2 band = th_v2(50.5f, 28.5f);
    ck_assert(isfinite(th_world_cost_to_shelter(w, band)));
    ck_assert(th_world_block_cells(w, 26, MH - 1 - 13, 28, MH - 1 - 13, NULL));
    ck_assert(th_world_block_cells(w, 13, MH - 1 - 24, 15, MH - 1 - 24, NULL));
    th_world_step(w);
    assert_no_agent_in_wall(w);
    ck_assert(isinf(th_world_cost_to_shelter(w, band)));
    th_vec2 dir;
    ck_assert(!th_world_flow(w, band, &dir));
    /* Plain walls are not rubble: breaking does not reopen them. */
    ck_assert(th_world_break_walls(w, 13, 0, 28, MH - 1, NULL));
    th_world_step(w);
    ck_assert(isinf(th_world_cost_to_shelter(w, band)));
    th_world_destroy(w);

    /* Blocking everything: agents are moved out of the new walls into the only open cells
     * left (the bunkers), never left inside a wall. */
    w = make_maze(2, 400, 6, NULL);
    th_world_step(w);
    ck_assert(th_world_block_cells(w, 0, 0, MW - 1, MH - 1, NULL));
    th_world_step(w);
    assert_no_agent_in_wall(w);
    th_world_destroy(w);
}
END_TEST

static uint64_t run_with_events(uint32_t threads) {
    th_world *w = make_maze(threads, 1500, 8, NULL);
    for (int s = 0; s < th_test_steps(400); s++) {
        uint64_t r = th_rng_u64(99, (uint64_t)s, 0);
        if (r % 17 == 0) th_world_destroy_bunker(w, BUNKER_ID((r >> 8) % 3), NULL);
        if (r % 19 == 0) th_world_restore_bunker(w, BUNKER_ID((r >> 8) % 3), NULL);
        if (r % 23 == 0) {
            int32_t x = (int32_t)((r >> 16) % MW), y = (int32_t)((r >> 24) % MH);
            th_world_break_walls(w, x - 3, y - 3, x + 3, y + 3, NULL);
        }
        if (r % 29 == 0) {
            int32_t x = (int32_t)((r >> 16) % MW), y = (int32_t)((r >> 24) % MH);
            th_world_block_cells(w, x, y, x + 1, y + 1, NULL);
        }
        th_world_step(w);
    }
    uint64_t h = th_world_hash(w);
    th_world_destroy(w);
    return h;
}

/* Soak: an event on every step for 2,500 steps (bunkers destroyed and restored, walls broken,
 * cells blocked at random) with every invariant checked inside every step, and the same end
 * state for 1 and 2 threads. */
static uint64_t soak_with_events(uint32_t threads) {
    th_world *w = make_maze(threads, 800, 21, NULL);
    th_world_set_validation(w, true);
    for (int s = 0; s < th_test_steps(2500); s++) {
        uint64_t r = th_rng_u64(77, (uint64_t)s, 0);
        int32_t x = (int32_t)((r >> 16) % MW), y = (int32_t)((r >> 24) % MH);
        switch (r % 4) {
        case 0: th_world_destroy_bunker(w, BUNKER_ID((r >> 8) % 3), NULL); break;
        case 1: th_world_restore_bunker(w, BUNKER_ID((r >> 8) % 3), NULL); break;
        case 2: th_world_break_walls(w, x - 2, y - 2, x + 2, y + 2, NULL); break;
        default: th_world_block_cells(w, x, y, x, y, NULL); break;
        }
        th_world_step(w);
        ck_assert_msg(th_world_validation_error(w) == NULL, "%s", th_world_validation_error(w));
    }
    uint64_t h = th_world_hash(w);
    th_world_destroy(w);
    return h;
}

START_TEST(thousands_of_events_keep_invariants_and_determinism) {
    ck_assert(soak_with_events(1) == soak_with_events(2));
}
END_TEST

START_TEST(events_keep_determinism_across_thread_counts) {
    uint64_t ref = run_with_events(1);
    ck_assert(run_with_events(2) == ref);
    ck_assert(run_with_events(3) == ref);
}
END_TEST

START_TEST(find_path_goes_around_walls) {
    th_world *w = make_maze(1, 0, 9, NULL);
    th_vec2 pts[256];
    uint32_t n = 0;
    float cost = 0.0f;
    th_error err;
    th_vec2 from = th_v2(5.5f, 5.5f), to = th_v2(5.5f, MH - 6.5f);
    ck_assert_msg(th_world_find_path(w, from, to, pts, 256, &n, &cost, &err), "%s", err.message);
    ck_assert_uint_ge(n, 3); /* a straight line is walled off */
    float len = 0.0f;
    for (uint32_t i = 1; i < n; i++) {
        len += th_v2_len(th_v2_sub(pts[i], pts[i - 1]));
        /* Dense sampling of every segment never touches a wall. */
        for (int k = 0; k <= 100; k++) {
            th_vec2 q = th_v2_lerp(pts[i - 1], pts[i], (float)k / 100.0f);
            ck_assert(th_world_cell(w, (int32_t)q.x, (int32_t)q.y, NULL) == TH_CELL_OPEN);
        }
    }
    ck_assert(len <= cost + 1e-3f); /* pulled path never longer than the grid route */
    ck_assert(len >= th_v2_len(th_v2_sub(to, from)));
    /* Into the sealed pocket: no path, a clean error. */
    ck_assert(!th_world_find_path(w, from, th_v2(25.5f, MH - 1 - 18.5f), pts, 256, &n, NULL, &err));
    TH_TEST_ERR(err, TH_ERR_UNREACHABLE);
    /* Too little room for the waypoints. */
    ck_assert(!th_world_find_path(w, from, to, pts, 1, &n, NULL, &err));
    TH_TEST_ERR(err, TH_ERR_LIMIT);
    th_world_destroy(w);
}
END_TEST

START_TEST(bad_terrain_input_is_rejected) {
    th_world_def wd = th_default_world_def();
    wd.cell_size = 1.0f;
    wd.bounds = TH_BOUNDS_WRAP;
    th_error err;
    /* A wrap-around world with a map must be a whole number of cells. */
    wd.width = 100.5f;
    ck_assert_ptr_null(th_world_create(&wd, &err));
    TH_TEST_ERR(err, TH_ERR_INVALID);
    wd.width = 100.0f;
    th_world *ok = th_world_create(&wd, &err);
    ck_assert_ptr_nonnull(ok);
    th_world_destroy(ok);
    wd.bounds = TH_BOUNDS_WALLS;
    wd.cell_size = -1.0f;
    ck_assert_ptr_null(th_world_create(&wd, &err));
    wd.cell_size = 0.001f; /* 100 m / 0.001 = 100,000 cells a side */
    ck_assert_ptr_null(th_world_create(&wd, &err));
    wd.cell_size = 1.0f;
    th_world *w = th_world_create(&wd, &err);
    ck_assert_ptr_nonnull(w);
    ck_assert(!th_world_set_cell(w, 100, 0, TH_CELL_WALL, 1, &err));
    ck_assert(!th_world_set_cell(w, 0, 0, TH_CELL_OPEN, 0, &err));
    ck_assert(!th_world_set_cell(w, 0, 0, TH_CELL_OPEN, 1001, &err));
    ck_assert(th_world_set_cell(w, 5, 5, TH_CELL_WALL, 1, &err));
    th_bunker_def bd = {.name = "b", .x0 = 4, .y0 = 4, .x1 = 6, .y1 = 6, .capacity = 0};
    ck_assert_int_eq(IDX(th_world_add_bunker(w, &bd, &err)), -1); /* covers a wall */
    bd = (th_bunker_def){.name = "b", .x0 = 10, .y0 = 10, .x1 = 12, .y1 = 12, .capacity = 0};
    ck_assert_int_eq(IDX(th_world_add_bunker(w, &bd, &err)), 0);
    ck_assert_int_eq(IDX(th_world_add_bunker(w, &bd, &err)), -1); /* name taken, overlap */
    bd = (th_bunker_def){.name = "c", .x0 = 98, .y0 = 98, .x1 = 101, .y1 = 101, .capacity = 0};
    ck_assert_int_eq(IDX(th_world_add_bunker(w, &bd, &err)), -1);    /* off the map */
    ck_assert(!th_world_set_cell(w, 11, 11, TH_CELL_WALL, 1, &err)); /* bunker cell */
    th_crowd_def cd = th_default_crowd_def();
    cd.behavior = TH_BEHAVIOR_FLEE;
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), 0);
    ck_assert(!th_agent_id_valid(th_world_add_agent(w, CROWD_ID(0), th_v2(5.5f, 5.5f), th_v2(0, 0),
                                                    &err))); /* inside a wall */
    ck_assert(!th_world_destroy_bunker(w, BUNKER_ID(7), &err));
    ck_assert(!th_world_break_walls(w, 200, 200, 300, 300, &err));
    ck_assert(!th_world_block_cells(w, 5, 5, 4, 4, &err));
    th_world_destroy(w);
    /* No map: a fleeing crowd has nowhere to go. */
    wd.cell_size = 0.0f;
    w = th_world_create(&wd, &err);
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), -1);
    ck_assert(!th_world_destroy_bunker(w, BUNKER_ID(0), &err));
    th_world_destroy(w);
}
END_TEST

/* Destination cost = min over goals of (route cost + weight), the route cost taken from the
 * independent A* search; paths walk open, adjacent cells to a goal. */
START_TEST(weighted_destinations_answer_flow_cost_and_path) {
    th_world *w = make_maze(1, 0, 10, NULL);
    th_error err;
    const th_destination goals[2] = {{5, 5, 0.0f}, {60, 40, 25.0f}};
    int f = IDX(th_world_add_destinations(w, goals, 2, &err));
    ck_assert_msg(f == 0, "%s", err.message);
    th_vec2 pts[512];
    uint32_t n;
    for (int i = 0; i < 40; i++) {
        th_vec2 p = th_v2(th_rng_range(10, (uint64_t)i, 0, 1.0f, MW - 1.0f),
                          th_rng_range(10, (uint64_t)i, 1, 1.0f, MH - 1.0f));
        if (th_world_cell(w, (int32_t)p.x, (int32_t)p.y, NULL) != TH_CELL_OPEN) continue;
        float best = INFINITY;
        for (int g = 0; g < 2; g++) {
            float c;
            th_vec2 to = th_v2(goals[g].x + 0.5f, goals[g].y + 0.5f);
            if (th_world_find_path(w, p, to, pts, 512, &n, &c, NULL))
                best = fminf(best, c + goals[g].weight);
        }
        float cost = th_world_destination_cost(w, FIELD_ID(f), p);
        if (isinf(best)) {
            ck_assert(isinf(cost));
            ck_assert(!th_world_destination_path(w, FIELD_ID(f), p, pts, 512, &n, &err));
            continue;
        }
        ck_assert_msg(fabsf(cost - best) <= 1e-3f * best + 1e-3f, "at (%g, %g): field %g, A* %g",
                      (double)p.x, (double)p.y, (double)cost, (double)best);
        th_vec2 dir;
        ck_assert(th_world_destination_flow(w, FIELD_ID(f), p, &dir));
        ck_assert(th_world_destination_path(w, FIELD_ID(f), p, pts, 512, &n, &err));
        th_vec2 end = pts[n - 1];
        ck_assert((end.x == 5.5f && end.y == 5.5f) || (end.x == 60.5f && end.y == 40.5f));
        for (uint32_t k = 0; k < n; k++) {
            ck_assert(th_world_cell(w, (int32_t)pts[k].x, (int32_t)pts[k].y, NULL) == TH_CELL_OPEN);
            if (k)
                ck_assert(fabsf(pts[k].x - pts[k - 1].x) <= 1.0f &&
                          fabsf(pts[k].y - pts[k - 1].y) <= 1.0f);
        }
    }
    /* Bad input. */
    ck_assert_int_eq(IDX(th_world_add_destinations(w, goals, 0, &err)), -1);
    const th_destination in_wall = {0, 0, 0.0f}, negative = {5, 5, -1.0f};
    ck_assert_int_eq(IDX(th_world_add_destinations(w, &in_wall, 1, &err)), -1);
    ck_assert_int_eq(IDX(th_world_add_destinations(w, &negative, 1, &err)), -1);
    ck_assert(isinf(th_world_destination_cost(w, FIELD_ID(7), th_v2(5, 5))));
    th_world_destroy(w);
}
END_TEST

START_TEST(destination_fields_follow_wall_events) {
    /* A goal inside the destructible room: unreachable until its walls break, then equal to a
     * field on a map built without them. */
    th_world *live = make_maze(2, 0, 11, NULL), *open = make_maze(2, 0, 11, "no D walls");
    const th_destination goal = {20, 18, 0.0f};
    ck_assert_int_eq(IDX(th_world_add_destinations(live, &goal, 1, NULL)), 0);
    ck_assert_int_eq(IDX(th_world_add_destinations(open, &goal, 1, NULL)), 0);
    th_vec2 far = th_v2(60.5f, 45.5f);
    ck_assert(isinf(th_world_destination_cost(live, FIELD_ID(0), far)));
    ck_assert(th_world_break_walls(live, 0, 0, MW - 1, MH - 1, NULL));
    th_world_step(live);
    for (int32_t y = 0; y < MH; y++) {
        for (int32_t x = 0; x < MW; x++) {
            float a = th_world_destination_cost(live, FIELD_ID(0), th_v2(x + 0.5f, y + 0.5f));
            float b = th_world_destination_cost(open, FIELD_ID(0), th_v2(x + 0.5f, y + 0.5f));
            ck_assert(a == b || (isinf(a) && isinf(b)));
        }
    }
    ck_assert(isfinite(th_world_destination_cost(live, FIELD_ID(0), far)));
    th_world_destroy(live);
    th_world_destroy(open);
}
END_TEST

START_TEST(shelter_path_ends_in_an_open_bunker) {
    th_world *w = make_maze(1, 10, 12, NULL);
    th_vec2 pts[512];
    uint32_t n;
    th_error err;
    ck_assert(!th_world_shelter_path(w, th_v2(3.5f, 3.5f), pts, 512, &n, &err)); /* no step yet */
    th_world_step(w);
    ck_assert_msg(th_world_shelter_path(w, th_v2(3.5f, 3.5f), pts, 512, &n, &err), "%s",
                  err.message);
    int b = IDX(th_world_nearest_bunker(w, pts[n - 1]));
    ck_assert_int_ge(b, 0);
    th_bunker_info bi;
    th_world_get_bunker(w, BUNKER_ID(b), &bi);
    ck_assert(pts[n - 1].x >= bi.x0 && pts[n - 1].x < bi.x1 + 1 && pts[n - 1].y >= bi.y0 &&
              pts[n - 1].y < bi.y1 + 1);
    ck_assert(!th_world_shelter_path(w, th_v2(25.5f, MH - 1 - 18.5f), pts, 512, &n, &err));
    ck_assert(!th_world_shelter_path(w, th_v2(3.5f, 3.5f), pts, 2, &n, &err));
    th_world_destroy(w);
}
END_TEST

int main(void) {
    Suite *s = suite_create("evac");
    TCase *tc = tcase_create("terrain");
    tcase_set_timeout(tc, 600);
    /* Under ThreadSanitizer the tests that step one-thread worlds are left out, and so is the
     * walk until everyone is sheltered: its passes run on two threads in the bunker tests. */
    if (!TH_TEST_TSAN) tcase_add_test(tc, everyone_who_can_reach_a_bunker_is_sheltered);
    tcase_add_test(tc, destroyed_bunker_shelters_nobody_and_basin_returns);
    tcase_add_test(tc, breaking_walls_equals_a_map_built_open);
    tcase_add_test(tc, blocking_cells_moves_agents_out_and_reroutes);
    tcase_add_test(tc, events_keep_determinism_across_thread_counts);
    tcase_add_test(tc, thousands_of_events_keep_invariants_and_determinism);
    if (!TH_TEST_TSAN) tcase_add_test(tc, find_path_goes_around_walls);
    tcase_add_test(tc, bad_terrain_input_is_rejected);
    if (!TH_TEST_TSAN) tcase_add_test(tc, weighted_destinations_answer_flow_cost_and_path);
    tcase_add_test(tc, destination_fields_follow_wall_events);
    if (!TH_TEST_TSAN) tcase_add_test(tc, shelter_path_ends_in_an_open_bunker);
    suite_add_tcase(s, tc);
    return th_test_run(s);
}
