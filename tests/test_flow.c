/* Spawners and exits against hand-computed counts and brute-force references: the number added
 * by every step is floor(rate * t) worked out in integers here, spawned agents stand inside
 * their area on open ground and never on another body, exits remove exactly the agents whose
 * new position lies in them (predicted from the positions before the step), a fed corridor
 * reaches a steady state where as many leave as enter, the same at 1, 2 and 3 threads, and
 * the steady state allocates nothing. */
#include <check.h>
#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/alloc.h"
#include "sim/core/world.h"
#include "sim/observe/validate.h" /* capacity: which steps may grow the arrays */
#include "test_util.h"
#include "throng/throng.h"

#ifndef THRONG_SCENES_DIR
#define THRONG_SCENES_DIR "scenes"
#endif

/* Boids that never steer: every weight zero, so an agent keeps its velocity and moves by
 * exactly v * dt each step (checked where it matters). */
static th_crowd_def inert_crowd(const char *name) {
    th_crowd_def d = th_default_crowd_def();
    d.name = name;
    d.separation_weight = d.alignment_weight = d.cohesion_weight = 0.0f;
    d.flow_weight = d.wall_weight = 0.0f;
    d.max_speed = 8.0f;
    return d;
}

static uint32_t crowd_count_of(const th_world *w, uint32_t crowd) {
    th_agent_view v = th_world_agents(w);
    uint32_t n = 0;
    for (uint32_t k = 0; k < v.count; k++) n += v.crowd[k] == crowd;
    return n;
}

/* ---- counts ----------------------------------------------------------------------------- */

/* floor(num * k / den) for k >= 0: the count after k steps of a rate of num / den per step. */
static uint64_t floor_div(uint64_t num, uint64_t k, uint64_t den) { return num * k / den; }

/* What each spawner below owes at the start of the step that leaves step n, by hand: the
 * timestep is 1/64 s, so rate r for k steps is r * k / 64 persons. */
static uint64_t expect_a(uint64_t n) { return floor_div(5, n, 128); } /* 2.5/s from 0 */
static uint64_t expect_b(
    uint64_t n) { /* 10/s from 0.51 s (step 33) to 2 s (step 128), at most 12 */
    if (n <= 33) return 0;
    uint64_t k = (n < 128 ? n : 128) - 33, due = floor_div(10, k, 64);
    return due < 12 ? due : 12;
}
static uint64_t expect_c(uint64_t n) { return floor_div(7, n, 640); } /* 0.7/s from 0 */
static uint64_t expect_d(uint64_t n) { /* 3/s from 1 s (step 64) to 3 s (step 192) */
    if (n <= 64) return 0;
    return floor_div(3, (n < 192 ? n : 192) - 64, 64);
}

START_TEST(counts_are_floor_rate_t) {
    th_world_def wd = th_default_world_def();
    wd.width = wd.height = 100.0f;
    wd.timestep = 1.0f / 64.0f;
    wd.threads = 1;
    th_world *w = th_world_create(&wd, NULL);
    th_error err;
    for (int c = 0; c < 4; c++) {
        static const char *const names[4] = {"a", "b", "c", "d"};
        th_crowd_def cd = inert_crowd(names[c]);
        ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), c);
    }
    const double rate[4] = {2.5, 10.0, 0.7, 3.0}, start[4] = {0, 0.51, 0, 1.0};
    const double stop[4] = {INFINITY, 2.0, INFINITY, 3.0};
    const uint32_t limit[4] = {0, 12, 0, 0};
    for (uint32_t i = 0; i < 4; i++) {
        th_spawner_def sd = th_default_spawner_def();
        sd.crowd = CROWD_ID(i);
        sd.x0 = 10.0f + 20.0f * (float)i, sd.x1 = sd.x0 + 10.0f;
        sd.y0 = 10.0f, sd.y1 = 90.0f;
        sd.rate = rate[i], sd.start = start[i], sd.stop = stop[i], sd.limit = limit[i];
        ck_assert_msg(IDX(th_world_add_spawner(w, &sd, &err)) == (int)i, "%s", err.message);
    }
    uint64_t (*const expect[4])(uint64_t) = {expect_a, expect_b, expect_c, expect_d};
    th_spawner_info si;
    for (uint32_t i = 0; i < 4; i++) {
        ck_assert(th_world_get_spawner(w, SPAWNER_ID(i), &si));
        ck_assert_uint_eq(si.emitted, 0);
    }
    ck_assert(th_world_get_spawner(w, SPAWNER_ID(1), &si));
    ck_assert_uint_eq(si.total, 12);
    ck_assert(th_world_get_spawner(w, SPAWNER_ID(3), &si));
    ck_assert_uint_eq(si.total, 6);
    ck_assert(th_world_get_spawner(w, SPAWNER_ID(0), &si));
    ck_assert_uint_eq(si.total, UINT64_MAX);
    for (uint64_t m = 1; m <= 1300; m++) {
        th_world_step(w);
        /* The pass at the start of this step (it left step m - 1) added what was due then. */
        for (uint32_t i = 0; i < 4; i++) {
            ck_assert(th_world_get_spawner(w, SPAWNER_ID(i), &si));
            CHECK_MSG(si.emitted == expect[i](m - 1) && si.waiting == 0,
                      "spawner %u after %llu steps: %u added, %llu expected", i,
                      (unsigned long long)m, si.emitted, (unsigned long long)expect[i](m - 1));
            CHECK(crowd_count_of(w, i) == si.emitted);
        }
    }
    /* The boundaries themselves, written out: A's first agent is due at 0.4 s (step 25.6, so the
     * pass leaving step 26), B's at step 33 + 6.4, so 40; D is done at 3 s. */
    ck_assert_uint_eq(expect_a(25), 0);
    ck_assert_uint_eq(expect_a(26), 1);
    ck_assert_uint_eq(expect_b(39), 0);
    ck_assert_uint_eq(expect_b(40), 1);
    ck_assert(th_world_get_spawner(w, SPAWNER_ID(1), &si));
    ck_assert(si.done);
    ck_assert(th_world_get_spawner(w, SPAWNER_ID(3), &si));
    ck_assert_uint_eq(si.emitted, 6);
    ck_assert(si.done);
    th_world_stats st = th_world_get_stats(w);
    ck_assert_uint_eq(st.spawned, expect_a(1299) + 12 + expect_c(1299) + 6);
    th_world_destroy(w);
}
END_TEST

/* At the default 1/60 s, which no float holds exactly, 1.5 persons per second is one agent
 * every 40 steps: the rounding of the rate per step must not make any of them a step late or
 * early over 12,000 steps. */
START_TEST(counts_exact_at_sixtieths) {
    th_world_def wd = th_default_world_def();
    wd.threads = 1;
    th_world *w = th_world_create(&wd, NULL);
    th_error err;
    th_crowd_def cd = inert_crowd("c");
    th_world_add_crowd(w, &cd, &err);
    th_spawner_def sd = th_default_spawner_def();
    sd.crowd = CROWD_ID(0);
    sd.x0 = 40, sd.x1 = 60, sd.y0 = 40, sd.y1 = 60;
    sd.rate = 1.5;
    ck_assert_int_eq(IDX(th_world_add_spawner(w, &sd, &err)), 0);
    th_spawner_info si;
    for (uint64_t m = 1; m <= 12000; m++) {
        th_world_step(w);
        th_world_get_spawner(w, SPAWNER_ID(0), &si);
        CHECK_MSG(si.emitted == (m - 1) / 40, "after %llu steps: %u", (unsigned long long)m,
                  si.emitted);
    }
    th_world_destroy(w);
}
END_TEST

/* ---- where they appear -------------------------------------------------------------------- */

/* A 40 x 20 m map of 1 m cells with a wall block and a wall column through the spawn areas. */
static th_world *walled_world(uint32_t threads) {
    th_world_def wd = th_default_world_def();
    wd.width = 40.0f, wd.height = 20.0f;
    wd.cell_size = 1.0f;
    wd.threads = threads;
    th_world *w = th_world_create(&wd, NULL);
    th_error err;
    for (int32_t y = 5; y < 12; y++)
        for (int32_t x = 5; x < 9; x++) th_world_set_cell(w, x, y, TH_CELL_WALL, 1, &err);
    for (int32_t y = 0; y < 20; y++) th_world_set_cell(w, 25, y, TH_CELL_WALL, 1, &err);
    return w;
}

START_TEST(positions_inside_the_area_on_open_ground) {
    th_world *w = walled_world(1);
    th_error err;
    th_crowd_def cd = inert_crowd("still");
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), 0);
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), 1);
    /* A rectangle over the wall block, and a list of cells some of which are walls. */
    th_spawner_def sd = th_default_spawner_def();
    sd.crowd = CROWD_ID(0);
    sd.x0 = 3.5f, sd.x1 = 10.25f, sd.y0 = 4.0f, sd.y1 = 13.0f;
    sd.rate = 300.0;
    sd.limit = 600;
    ck_assert_int_eq(IDX(th_world_add_spawner(w, &sd, &err)), 0);
    th_cell_ref cells[] = {{24, 3}, {25, 3}, {26, 3}, {30, 15}, {25, 16}, {0, 0}};
    const uint32_t ncells = sizeof cells / sizeof cells[0];
    th_spawner_def sc = th_default_spawner_def();
    sc.crowd = CROWD_ID(1);
    sc.cells = cells;
    sc.cell_count = ncells;
    sc.rate = 300.0;
    sc.limit = 600;
    ck_assert_int_eq(IDX(th_world_add_spawner(w, &sc, &err)), 1);
    /* Inert agents with no velocity stay where they appeared. */
    for (int s = 0; s < 200; s++) th_world_step(w);
    th_agent_view v = th_world_agents(w);
    ck_assert_uint_eq(v.count, 1200);
    uint32_t per_cell[6] = {0};
    for (uint32_t k = 0; k < v.count; k++) {
        const float x = v.px[k], y = v.py[k];
        const int32_t cx = (int32_t)floorf(x), cy = (int32_t)floorf(y);
        ck_assert_int_eq(th_world_cell(w, cx, cy, NULL), TH_CELL_OPEN);
        if (v.crowd[k] == 0) {
            CHECK_MSG(x >= 3.5f && x < 10.25f && y >= 4.0f && y < 13.0f, "(%g, %g) outside",
                      (double)x, (double)y);
        } else {
            bool listed = false;
            for (uint32_t c = 0; c < ncells; c++) {
                if (cells[c].x == cx && cells[c].y == cy) {
                    listed = true;
                    per_cell[c]++;
                }
            }
            CHECK_MSG(listed, "(%g, %g) is in no listed cell", (double)x, (double)y);
        }
    }
    /* The open listed cells share the draws about evenly (600 over 4: 150 +- 5 sd). */
    ck_assert_uint_eq(per_cell[1] + per_cell[4], 0);
    for (uint32_t c = 0; c < ncells; c++) {
        if (c == 1 || c == 4) continue;
        ck_assert_msg(per_cell[c] > 100 && per_cell[c] < 200, "cell %u got %u", c, per_cell[c]);
    }
    th_world_destroy(w);
}
END_TEST

/* Largest overlap of two bodies and of a body with a wall, by brute force over all pairs. */
static void check_bodies(const th_world *w, float r) {
    th_agent_view v = th_world_agents(w);
    for (uint32_t i = 0; i < v.count; i++) {
        for (uint32_t j = i + 1; j < v.count; j++) {
            const float dx = v.px[i] - v.px[j], dy = v.py[i] - v.py[j];
            const float overlap = 2.0f * r - sqrtf(dx * dx + dy * dy);
            CHECK_MSG(overlap <= TH_MAX_OVERLAP * 2.0f * r, "agents %u and %u overlap by %g m",
                      th_test_slot(v.id[i]), th_test_slot(v.id[j]), (double)overlap);
        }
    }
}

/* Pedestrians fed into a 2 x 2 m box far faster than it holds them: the box fills, the rest
 * wait (due = added + waiting), and no body lands on another or on the wall. */
START_TEST(a_full_area_makes_a_queue) {
    th_world *w = walled_world(2);
    th_error err;
    th_crowd_def pd = th_default_pedestrian_def(); /* no goal, no heading: they stand */
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &pd, &err)), 0);
    th_spawner_def sd = th_default_spawner_def();
    sd.crowd = CROWD_ID(0);
    sd.x0 = 24.0f, sd.x1 = 26.0f, sd.y0 = 8.0f, sd.y1 = 10.0f; /* half of it is the wall column */
    sd.rate = 50.0;
    ck_assert_int_eq(IDX(th_world_add_spawner(w, &sd, &err)), 0);
    th_world_set_validation(w, true);
    th_spawner_info si;
    bool queued = false;
    for (int s = 1; s <= 180; s++) {
        th_world_step(w);
        ck_assert_msg(th_world_validation_error(w) == NULL, "%s", th_world_validation_error(w));
        check_bodies(w, pd.body_radius);
        th_world_get_spawner(w, SPAWNER_ID(0), &si);
        CHECK(si.due == (uint64_t)(s - 1) * 50 / 60);
        CHECK(si.emitted + si.waiting == si.due);
        queued |= si.waiting > 0;
    }
    ck_assert(queued);
    /* 1 m x 2 m of open ground holds at most 2 / (2 sqrt(3) r^2) = 14 discs of 0.2 m packed
     * hexagonally; pushed out of the box by each other some more fit, but far from 150. */
    ck_assert_msg(si.emitted < 60 && si.waiting > 80, "%u added, %llu waiting", si.emitted,
                  (unsigned long long)si.waiting);
    th_world_destroy(w);
}
END_TEST

/* A wrap-around world filled by spawners, hundreds of bodies a step: `limit` 0 is endless,
 * so the world's arrays grow while a queue is placed; a limit reserves them all first. */
static th_world *spawn_fill(uint32_t limit, int steps) {
    th_world_def wd = th_default_world_def();
    wd.width = wd.height = 40.0f;
    wd.bounds = TH_BOUNDS_WRAP;
    wd.threads = 2;
    th_error err;
    th_world *w = th_world_create(&wd, &err);
    ck_assert_ptr_nonnull(w);
    th_crowd_def pd = th_default_pedestrian_def(); /* no goal, no heading: they stand */
    pd.body_radius = 0.25f;
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &pd, &err)), 0);
    th_spawner_def sd = th_default_spawner_def();
    sd.crowd = CROWD_ID(0);
    sd.x1 = sd.y1 = 40.0f;
    sd.rate = 10000.0;
    sd.limit = limit;
    ck_assert_int_eq(IDX(th_world_add_spawner(w, &sd, &err)), 0);
    sd.x0 = sd.y0 = 39.0f; /* across the corner where the edges meet */
    sd.rate = 60.0;
    ck_assert_int_eq(IDX(th_world_add_spawner(w, &sd, &err)), 1);
    for (int step = 0; step < steps; step++) th_world_step(w);
    return w;
}

/* Where a spawned body lands depends on the bodies already there, not on how the world stores
 * them: filled with its arrays growing on the way (past 1,024 and 2,048 agents) or reserved
 * first, the same bodies land in the same places. And no two overlap, across the edges
 * included (brute force over all pairs). */
START_TEST(spawned_bodies_land_the_same_however_stored) {
    th_world *grown = spawn_fill(0, 24), *reserved = spawn_fill(100000, 24);
    th_agent_view v = th_world_agents(grown);
    ck_assert_msg(v.count > 2048, "only %u agents", v.count);
    ck_assert_uint_eq(v.count, th_world_agents(reserved).count);
    ck_assert_msg(th_world_hash(grown) == th_world_hash(reserved),
                  "the spawned bodies differ with the storage");
    const float r = 0.25f;
    for (uint32_t i = 0; i < v.count; i++) {
        for (uint32_t j = i + 1; j < v.count; j++) {
            float dx = fabsf(v.px[i] - v.px[j]), dy = fabsf(v.py[i] - v.py[j]);
            dx = fminf(dx, 40.0f - dx), dy = fminf(dy, 40.0f - dy);
            const float overlap = 2.0f * r - sqrtf(dx * dx + dy * dy);
            CHECK_MSG(overlap <= TH_MAX_OVERLAP * 2.0f * r, "agents %u and %u overlap by %g m",
                      th_test_slot(v.id[i]), th_test_slot(v.id[j]), (double)overlap);
        }
    }
    th_world_destroy(grown);
    th_world_destroy(reserved);
}
END_TEST

/* An allocator that refuses every request once `refuse` is set. */
static _Atomic bool g_refuse;
static void *refusing_alloc(size_t size, void *user) {
    (void)user;
    if (g_refuse) return NULL;
    return aligned_alloc(64, (size + 63) / 64 * 64);
}
static void refusing_free(void *p, void *user) {
    (void)user;
    free(p);
}

/* An endless spawner whose world cannot grow any more: the step says so through
 * th_world_step_error (out of memory, with its step), the queue waits, nothing breaks. */
START_TEST(a_step_out_of_memory_says_so) {
    th_set_allocator(&(th_allocator){refusing_alloc, refusing_free, NULL});
    g_refuse = false;
    th_world *w = spawn_fill(0, 0);
    th_error e;
    ck_assert(!th_world_step_error(w, &e));
    uint32_t before = 0;
    for (int step = 0; step < 40 && !th_world_step_error(w, NULL); step++) {
        before = th_world_agent_count(w);
        if (before > 1000) g_refuse = true; /* the next growth, past 1,024, fails */
        th_world_step(w);
    }
    ck_assert_msg(th_world_step_error(w, &e), "no step failed");
    ck_assert_int_eq(e.code, TH_ERR_NOMEM);
    ck_assert_msg(strstr(e.message, "out of memory") && strstr(e.message, "step "), "%s",
                  e.message);
    ck_assert_uint_le(th_world_agent_count(w), 1024);
    th_spawner_info si;
    th_world_get_spawner(w, SPAWNER_ID(0), &si);
    ck_assert(si.waiting > 0);
    th_world_destroy(w);
    g_refuse = false;
    th_set_allocator(NULL);
}
END_TEST

/* ---- exits ---------------------------------------------------------------------------------- */

typedef struct pred {
    th_agent_id id;
    float x, y;
    int exit; /* -1: stays */
} pred;

/* Agents of two crowds cross three exits: A (crowd 0 only), B (every crowd, overlapping A: A
 * takes those in both) and C (crowd 1 only). Before each step the new position of every agent
 * is predicted (x + vx dt, inert agents) and the exit that takes it picked by hand; after it,
 * exactly those agents are gone, each exit counted its own, and everyone else stands where
 * predicted. */
START_TEST(exits_remove_exactly_the_agents_inside) {
    th_world_def wd = th_default_world_def();
    wd.width = wd.height = 60.0f;
    wd.threads = 2;
    th_world *w = th_world_create(&wd, NULL);
    th_error err;
    th_crowd_def cd = inert_crowd("c0");
    th_world_add_crowd(w, &cd, &err);
    cd.name = "c1";
    th_world_add_crowd(w, &cd, &err);
    const float ex[3][4] = {{20, 20, 30, 30}, {25, 10, 40, 40}, {5, 40, 15, 55}};
    const th_crowd_id c0 = CROWD_ID(0), c1 = CROWD_ID(1);
    th_exit_def ed = th_default_exit_def();
    ed.x0 = ex[0][0], ed.y0 = ex[0][1], ed.x1 = ex[0][2], ed.y1 = ex[0][3];
    ed.crowds = &c0, ed.crowd_count = 1;
    ck_assert_int_eq(IDX(th_world_add_exit(w, &ed, &err)), 0);
    ed = th_default_exit_def();
    ed.x0 = ex[1][0], ed.y0 = ex[1][1], ed.x1 = ex[1][2], ed.y1 = ex[1][3];
    ck_assert_int_eq(IDX(th_world_add_exit(w, &ed, &err)), 1);
    ed = th_default_exit_def();
    ed.x0 = ex[2][0], ed.y0 = ex[2][1], ed.x1 = ex[2][2], ed.y1 = ex[2][3];
    ed.crowds = &c1, ed.crowd_count = 1;
    ck_assert_int_eq(IDX(th_world_add_exit(w, &ed, &err)), 2);
    uint64_t rng = 99;
    const uint32_t n = 3000;
    for (uint32_t i = 0; i < n; i++) {
        const float x = 2.0f + 56.0f * (float)(splitmix64(&rng) >> 40) / 16777216.0f;
        const float y = 2.0f + 56.0f * (float)(splitmix64(&rng) >> 40) / 16777216.0f;
        const float a = 6.2831853f * (float)(splitmix64(&rng) >> 40) / 16777216.0f;
        th_world_add_agent(w, CROWD_ID(i % 2), th_v2(x, y), th_v2(3.0f * cosf(a), 3.0f * sinf(a)),
                           &err);
    }
    static pred p[3000];
    const float dt = wd.timestep;
    uint32_t expect_count[3] = {0}, left = 0;
    for (int s = 0; s < 240; s++) {
        th_agent_view v = th_world_agents(w);
        uint32_t np = v.count;
        /* Stop before anyone reaches an edge: the bounce is not what is tested here. */
        bool near_edge = false;
        for (uint32_t k = 0; k < np; k++) {
            p[k].id = v.id[k];
            p[k].x = v.px[k] + v.vx[k] * dt;
            p[k].y = v.py[k] + v.vy[k] * dt;
            near_edge |= p[k].x < 0.1f || p[k].y < 0.1f || p[k].x > 59.9f || p[k].y > 59.9f;
            p[k].exit = -1;
            for (int e = 0; e < 3 && p[k].exit < 0; e++) {
                const bool takes = e == 1 || (e == 0 ? c0 : c1).index1 == v.crowd[k] + 1u;
                if (takes && p[k].x >= ex[e][0] && p[k].x < ex[e][2] && p[k].y >= ex[e][1] &&
                    p[k].y < ex[e][3])
                    p[k].exit = e;
            }
        }
        if (near_edge) break;
        th_world_step(w);
        uint32_t gone = 0;
        for (uint32_t k = 0; k < np; k++) {
            th_agent_state a;
            const bool alive = th_world_get_agent(w, p[k].id, &a);
            CHECK_MSG(alive == (p[k].exit < 0), "agent %u: alive %d, predicted exit %d",
                      th_test_slot(p[k].id), alive, p[k].exit);
            if (alive) {
                CHECK_MSG(a.position.x == p[k].x && a.position.y == p[k].y,
                          "agent %u at (%.9g, %.9g), predicted (%.9g, %.9g)", th_test_slot(p[k].id),
                          (double)a.position.x, (double)a.position.y, (double)p[k].x,
                          (double)p[k].y);
            } else {
                expect_count[p[k].exit]++;
                gone++;
            }
        }
        left += gone;
        for (uint32_t e = 0; e < 3; e++) {
            th_exit_info ei;
            ck_assert(th_world_get_exit(w, EXIT_ID(e), &ei));
            CHECK(ei.exited == expect_count[e]);
        }
        th_world_stats st = th_world_get_stats(w);
        CHECK(st.exited == left && st.agents + st.exited == n);
        /* The agents that left in this step are the last ones th_world_exited_by knows. */
        if (gone) {
            CHECK(th_world_exited_by(w, left) == (uint64_t)(s + 1));
            CHECK(th_world_exited_by(w, left - gone + 1) == (uint64_t)(s + 1));
        }
        CHECK(th_world_exited_by(w, left + 1) == 0);
    }
    /* Each exit took a fair share (the test means something). */
    for (int e = 0; e < 3; e++)
        ck_assert_msg(expect_count[e] > 50, "exit %d: %u", e, expect_count[e]);
    th_world_destroy(w);
}
END_TEST

/* ---- the corridor ------------------------------------------------------------------------- */

static th_world *corridor(uint32_t threads) {
    th_error err;
    th_world *w = th_scene_load(THRONG_SCENES_DIR "/corridor_flow.yaml",
                                &(th_scene_opts){.threads = threads}, NULL, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    return w;
}

/* After the first walkers reach the exit, over 60 s: the spawner adds rate * 60 s, the line in
 * the middle and the exit each see about as many (the corridor holds a steady number of
 * walkers, 2/s times the ~22 s walk and some for the crowding at the gate, varying by a few), and
 * nobody waits at the gate. */
START_TEST(corridor_reaches_a_steady_flow) {
    th_world *w = corridor(2);
    th_world_set_validation(w, true);
    for (int s = 0; s < 1800; s++) th_world_step(w); /* 30 s: the first are out at ~22 s */
    th_spawner_info s0, s1;
    th_measure_line_info l0, l1;
    th_world_get_spawner(w, SPAWNER_ID(0), &s0);
    th_world_get_measure_line(w, LINE_ID(0), &l0);
    th_world_stats a = th_world_get_stats(w);
    ck_assert_uint_gt(a.exited, 0);
    uint32_t lo = UINT32_MAX, hi = 0;
    const uint32_t n0 = th_world_agent_count(w);
    for (int s = 0; s < 3600; s++) {
        th_world_step(w);
        uint32_t n = th_world_agent_count(w);
        lo = n < lo ? n : lo;
        hi = n > hi ? n : hi;
    }
    ck_assert_msg(th_world_validation_error(w) == NULL, "%s", th_world_validation_error(w));
    th_world_get_spawner(w, SPAWNER_ID(0), &s1);
    th_world_get_measure_line(w, LINE_ID(0), &l1);
    th_world_stats b = th_world_get_stats(w);
    const uint32_t in = s1.emitted - s0.emitted;
    const int64_t across = l1.crossed_total - l0.crossed_total;
    const uint32_t out = b.exited - a.exited;
    ck_assert_uint_eq(in, 120); /* exactly 2/s: floor(2 * 5399 / 60) - floor(2 * 1799 / 60) */
    /* Nobody lost or made up: what came in and did not leave is still in the corridor. */
    ck_assert_uint_eq(n0 + in - out, th_world_agent_count(w));
    /* Inflow = outflow up to the change in the corridor's occupancy (its range below). */
    ck_assert_msg(across >= 105 && across <= 135, "%lld crossed the middle", (long long)across);
    ck_assert_msg(out >= 105 && out <= 135, "%u left", out);
    ck_assert_uint_eq(s1.waiting, 0);
    ck_assert_msg(hi - lo <= 20 && lo >= 35 && hi <= 75,
                  "walkers in the corridor between %u and %u", lo, hi);
    th_world_destroy(w);
}
END_TEST

START_TEST(same_flow_for_any_thread_count) {
    uint64_t hash[3];
    th_world_stats st[3];
    for (uint32_t t = 1; t <= 3; t++) {
        th_world *w = corridor(t);
        for (int s = 0; s < 1800; s++) th_world_step(w);
        hash[t - 1] = th_world_hash(w);
        st[t - 1] = th_world_get_stats(w);
        th_world_destroy(w);
    }
    for (int t = 1; t < 3; t++) {
        ck_assert_uint_eq(hash[t], hash[0]);
        ck_assert_uint_eq(st[t].exited, st[0].exited);
        ck_assert_uint_eq(st[t].spawned, st[0].spawned);
    }
    ck_assert_uint_ge(st[0].exited, 5); /* exits took part */
    /* Boids with a spawner, two exits and a wall map, at 1, 2 and 3 threads. */
    for (uint32_t t = 1; t <= 3; t++) {
        th_world *w = walled_world(t);
        th_error err;
        th_crowd_def cd = th_default_crowd_def();
        cd.body_radius = 0.3f;
        th_world_add_crowd(w, &cd, &err);
        th_spawner_def sd = th_default_spawner_def();
        sd.crowd = CROWD_ID(0);
        sd.x0 = 1, sd.x1 = 5, sd.y0 = 1, sd.y1 = 19;
        sd.rate = 40.0;
        sd.velocity = th_v2(3.0f, 0.0f);
        ck_assert_int_eq(IDX(th_world_add_spawner(w, &sd, &err)), 0);
        th_exit_def ed = th_default_exit_def();
        ed.x0 = 10, ed.x1 = 14, ed.y0 = 0, ed.y1 = 20;
        th_world_add_exit(w, &ed, &err);
        th_cell_ref cells[] = {{9, 2}, {9, 3}, {9, 4}};
        ed = th_default_exit_def();
        ed.cells = cells, ed.cell_count = 3;
        th_world_add_exit(w, &ed, &err);
        for (int s = 0; s < 900; s++) th_world_step(w);
        hash[t - 1] = th_world_hash(w);
        st[t - 1] = th_world_get_stats(w);
        th_world_destroy(w);
    }
    for (int t = 1; t < 3; t++) {
        ck_assert_uint_eq(hash[t], hash[0]);
        ck_assert_uint_eq(st[t].exited, st[0].exited);
    }
    ck_assert_uint_gt(st[0].exited, 10);
}
END_TEST

/* The corridor once it is steady: the endless spawner and the exit balance, and 25 s of steps
 * allocate nothing (ids of agents gone are reused; the first doubling of the departure
 * history, 1,024 entries, comes after ~500 s). */
START_TEST(steady_state_allocates_nothing) {
    th_world *w = corridor(2);
    for (int s = 0; s < 1800; s++) th_world_step(w);
    const uint64_t before = th_alloc_count();
    for (int s = 0; s < 1500; s++) {
        th_world_step(w);
        CHECK_MSG(th_alloc_count() == before, "step %d allocated", 1800 + s + 1);
    }
    ck_assert_uint_gt(th_world_get_stats(w).exited, 30);
    th_world_destroy(w);
}
END_TEST

/* An endless spawner at 1,000 persons/s drained at once by an exit: over 50,000 agents pass
 * through, fewer than 100 at a time. Ids of agents that left are reused, so the agent arrays
 * and every per-id array keep the capacity they started with (1,024) and the id table stays
 * below the most agents alive at once; with ids never reused they would have had to hold all
 * 50,000+. Only the departure history (four bytes per agent that left, for
 * th_world_exited_by) grows: it doubles as it fills, and only the steps that double it
 * allocate. */
START_TEST(endless_spawner_storage_stays_bounded) {
    th_world_def wd = th_default_world_def();
    wd.width = wd.height = 40.0f;
    wd.threads = 2;
    th_world *w = th_world_create(&wd, NULL);
    th_error err;
    th_crowd_def cd = inert_crowd("through");
    th_world_add_crowd(w, &cd, &err);
    th_spawner_def sd = th_default_spawner_def();
    sd.crowd = CROWD_ID(0);
    sd.x0 = 1.0f, sd.x1 = 1.5f, sd.y0 = 5.0f, sd.y1 = 35.0f;
    sd.rate = 1000.0;
    sd.velocity = th_v2(8.0f, 0.0f);
    th_world_add_spawner(w, &sd, &err);
    th_exit_def ed = th_default_exit_def();
    ed.x0 = 1.6f, ed.x1 = 40.0f, ed.y0 = 0.0f, ed.y1 = 40.0f;
    th_world_add_exit(w, &ed, &err);
    th_world_step(w);
    const uint32_t cap0 = w->capacity;
    ck_assert_uint_eq(cap0, 1024);
    uint32_t doublings = 0, allocating = 0, most_alive = 0;
    for (int s = 0; s < 3200; s++) {
        const uint64_t a = th_alloc_count();
        const uint32_t hist = w->history_capacity;
        th_world_step(w);
        const bool grew = w->history_capacity != hist;
        doublings += grew;
        allocating += th_alloc_count() != a;
        CHECK_MSG(grew || th_alloc_count() == a, "step %d allocated without growing", s + 2);
        CHECK_MSG(w->capacity == cap0, "step %d: agent capacity %u", s + 2, w->capacity);
        const uint32_t alive = th_world_agent_count(w);
        CHECK(alive < 100);
        if (alive > most_alive) most_alive = alive;
        /* Every slot used is held or free; no slot is taken while one is free. */
        CHECK(th_world_id_slots(w) == alive + w->id_free_count);
    }
    th_world_stats st = th_world_get_stats(w);
    ck_assert_uint_gt(st.spawned, 50000);
    ck_assert_uint_eq(st.spawned, st.agents + st.exited);
    /* Slots are only taken when none is free, so the table never outgrew the agents alive at
     * the end of some step plus those spawned into it in the next (at most 1,000 / 60 + 1 per
     * step, as the spawner's rate allows). */
    ck_assert_uint_le(th_world_id_slots(w), most_alive + 1000 / 60 + 1);
    ck_assert_uint_lt(th_world_id_slots(w), 128);
    ck_assert_uint_eq(w->capacity, cap0);
    /* The departure history, 1,024 -> 65,536 entries: six doublings. */
    ck_assert_uint_eq(doublings, 6);
    ck_assert_uint_eq(allocating, 6);
    ck_assert_uint_ge(w->history_capacity, st.exited);
    th_world_destroy(w);
}
END_TEST

/* A bounded spawner reserves its agents when it is added: no step allocates, from the first. */
START_TEST(bounded_spawner_reserves_up_front) {
    th_world *w = walled_world(2);
    th_error err;
    th_crowd_def pd = th_default_pedestrian_def();
    pd.heading = th_v2(1.0f, 0.0f);
    th_world_add_crowd(w, &pd, &err);
    th_spawner_def sd = th_default_spawner_def();
    sd.crowd = CROWD_ID(0);
    sd.x0 = 10, sd.x1 = 20, sd.y0 = 1, sd.y1 = 19;
    sd.rate = 100.0;
    sd.stop = 30.0; /* 3,000 agents: past the 1,024 reserved at creation */
    ck_assert_int_eq(IDX(th_world_add_spawner(w, &sd, &err)), 0);
    const uint64_t before = th_alloc_count();
    for (int s = 0; s < 600; s++) th_world_step(w);
    ck_assert_uint_eq(th_alloc_count(), before);
    ck_assert_uint_gt(th_world_agent_count(w), 500);
    th_world_destroy(w);
}
END_TEST

/* Validation holds through spawning and exits, and names a count that stops adding up. */
/* Where spawners and exits are, as the viewer reads it: a rectangle's own bounds, a cell list's
 * bounding box in metres, and exactly the listed cells covered. */
START_TEST(areas_are_reported_for_drawing) {
    th_world *w = walled_world(1);
    th_error err;
    const th_cell_ref cells[] = {{3, 4}, {12, 2}, {10, 7}}; /* open cells */
    th_crowd_def cd = th_default_crowd_def();
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), 0);
    th_spawner_def sd = th_default_spawner_def();
    sd.crowd = CROWD_ID(0);
    sd.cells = cells;
    sd.cell_count = 3;
    sd.rate = 1.0;
    ck_assert_msg(IDX(th_world_add_spawner(w, &sd, &err)) == 0, "%s", err.message);
    th_exit_def ed = th_default_exit_def();
    ed.x0 = 10.5f, ed.y0 = 1.25f, ed.x1 = 12.0f, ed.y1 = 3.0f;
    ck_assert_int_eq(IDX(th_world_add_exit(w, &ed, &err)), 0);
    ed = th_default_exit_def();
    ed.cells = cells;
    ed.cell_count = 3;
    ck_assert_int_eq(IDX(th_world_add_exit(w, &ed, &err)), 1);
    int32_t cols, rows;
    float cs;
    ck_assert(th_world_map_size(w, &cols, &rows, &cs));
    th_spawner_info si;
    ck_assert(th_world_get_spawner(w, SPAWNER_ID(0), &si));
    ck_assert(si.x0 == 3 * cs && si.y0 == 2 * cs && si.x1 == 13 * cs && si.y1 == 8 * cs);
    th_exit_info ei;
    ck_assert(th_world_get_exit(w, EXIT_ID(0), &ei));
    ck_assert(ei.x0 == 10.5f && ei.y0 == 1.25f && ei.x1 == 12.0f && ei.y1 == 3.0f);
    ck_assert(th_world_get_exit(w, EXIT_ID(1), &ei));
    ck_assert(ei.x0 == 3 * cs && ei.y0 == 2 * cs && ei.x1 == 13 * cs && ei.y1 == 8 * cs);
    /* Brute force over the map: covered exactly where listed. */
    for (int32_t y = -1; y <= rows; y++) {
        for (int32_t x = -1; x <= cols; x++) {
            bool listed = false;
            for (int k = 0; k < 3; k++) listed |= cells[k].x == x && cells[k].y == y;
            ck_assert_int_eq(th_world_spawner_covers(w, SPAWNER_ID(0), x, y), listed);
            ck_assert_int_eq(th_world_exit_covers(w, EXIT_ID(1), x, y), listed);
            ck_assert(!th_world_exit_covers(w, EXIT_ID(0), x, y)); /* a rectangle has no cells */
        }
    }
    ck_assert(!th_world_exit_covers(w, EXIT_ID(2), 3, 4) &&
              !th_world_spawner_covers(w, SPAWNER_ID(1), 3, 4));
    th_world_destroy(w);
}
END_TEST

START_TEST(validation_names_a_broken_exit_count) {
    th_world_def wd = th_default_world_def();
    wd.threads = 1;
    th_world *w = th_world_create(&wd, NULL);
    th_error err;
    th_crowd_def cd = inert_crowd("c");
    th_world_add_crowd(w, &cd, &err);
    th_spawner_def sd = th_default_spawner_def();
    sd.crowd = CROWD_ID(0);
    sd.x0 = 10, sd.x1 = 11, sd.y0 = 10, sd.y1 = 90;
    sd.rate = 30.0;
    sd.velocity = th_v2(4.0f, 0.0f);
    th_world_add_spawner(w, &sd, &err);
    th_exit_def ed = th_default_exit_def();
    ed.x0 = 12, ed.x1 = 13, ed.y0 = 0, ed.y1 = 100;
    th_world_add_exit(w, &ed, &err);
    th_world_set_validation(w, true);
    for (int s = 0; s < 120; s++) th_world_step(w);
    ck_assert_msg(th_world_validation_error(w) == NULL, "%s", th_world_validation_error(w));
    ck_assert_uint_gt(th_world_get_stats(w).exited, 20);
    w->stats.exited++; /* one agent counted out twice */
    th_world_step(w);
    const char *e = th_world_validation_error(w);
    ck_assert_ptr_nonnull(e);
    ck_assert_msg(strstr(e, "exited != ") != NULL, "%s", e);
    th_world_destroy(w);
}
END_TEST

/* ---- bad input --------------------------------------------------------------------------------
 */

START_TEST(api_refuses_bad_spawners_and_exits) {
    th_world_def wd = th_default_world_def();
    wd.threads = 1;
    th_world *w = th_world_create(&wd, NULL);
    th_error err;
    th_crowd_def cd = inert_crowd("c");
    th_world_add_crowd(w, &cd, &err);
    th_spawner_def good = th_default_spawner_def();
    good.crowd = CROWD_ID(0);
    good.x0 = 1, good.x1 = 2, good.y0 = 1, good.y1 = 2;
    good.rate = 1.0;
    th_spawner_def d = good;
    d.crowd = CROWD_ID(1);
    ck_assert_int_eq(IDX(th_world_add_spawner(w, &d, &err)), -1);
    TH_TEST_ERR(err, TH_ERR_HANDLE);
    d = good, d.rate = 0.0;
    ck_assert_int_eq(IDX(th_world_add_spawner(w, &d, &err)), -1);
    TH_TEST_ERR(err, TH_ERR_INVALID);
    d = good, d.rate = NAN;
    ck_assert_int_eq(IDX(th_world_add_spawner(w, &d, &err)), -1);
    d = good, d.x1 = 101.0f;
    ck_assert_int_eq(IDX(th_world_add_spawner(w, &d, &err)), -1);
    TH_TEST_ERR(err, TH_ERR_INVALID);
    d = good, d.x1 = d.x0;
    ck_assert_int_eq(IDX(th_world_add_spawner(w, &d, &err)), -1);
    d = good, d.start = 5.0, d.stop = 5.0;
    ck_assert_int_eq(IDX(th_world_add_spawner(w, &d, &err)), -1);
    TH_TEST_ERR(err, TH_ERR_INVALID);
    d = good, d.start = -1.0;
    ck_assert_int_eq(IDX(th_world_add_spawner(w, &d, &err)), -1);
    th_cell_ref cell = {0, 0};
    d = good, d.cells = &cell, d.cell_count = 1;
    ck_assert_int_eq(IDX(th_world_add_spawner(w, &d, &err)), -1);
    TH_TEST_ERR(err, TH_ERR_STATE);
    d = good, d.velocity = th_v2(INFINITY, 0);
    ck_assert_int_eq(IDX(th_world_add_spawner(w, &d, &err)), -1);
    th_exit_def e = th_default_exit_def();
    e.x0 = 1, e.x1 = 2, e.y0 = 1, e.y1 = 2;
    e.field = FIELD_ID(0);
    ck_assert_int_eq(IDX(th_world_add_exit(w, &e, &err)), -1);
    TH_TEST_ERR(err, TH_ERR_HANDLE);
    e.field = FIELD_ID(-1);
    th_crowd_id bad = CROWD_ID(3);
    e.crowds = &bad, e.crowd_count = 1;
    ck_assert_int_eq(IDX(th_world_add_exit(w, &e, &err)), -1);
    TH_TEST_ERR(err, TH_ERR_HANDLE);
    ck_assert_uint_eq(th_world_spawner_count(w), 0);
    ck_assert_uint_eq(th_world_exit_count(w), 0);
    for (uint32_t i = 0; i < TH_MAX_SPAWNERS; i++)
        ck_assert_int_eq(IDX(th_world_add_spawner(w, &good, &err)), (int)i);
    ck_assert_int_eq(IDX(th_world_add_spawner(w, &good, &err)), -1);
    TH_TEST_ERR(err, TH_ERR_LIMIT);
    th_spawner_info si;
    ck_assert(!th_world_get_spawner(w, SPAWNER_ID(TH_MAX_SPAWNERS), &si));
    th_exit_info ei;
    ck_assert(!th_world_get_exit(w, EXIT_ID(0), &ei));
    ck_assert_uint_eq(th_world_exited_by(w, 1), 0);
    th_world_destroy(w);
}
END_TEST

#define MAP_HEAD                                                                          \
    "name: t\nmap:\n  cell_size: 1\n  legend: {'#': wall, '.': open, S: open, E: open}\n" \
    "  ascii: |\n    ######\n    #S..E#\n    ######\ncrowds:\n  - name: a\n    count: 0\n"

typedef struct bad_scene {
    const char *what, *yaml;
    unsigned line, column;
    const char *path;
    th_error_code code;
} bad_scene;

static const bad_scene k_bad[] = {
    {"spawners a mapping", MAP_HEAD "spawners: {name: s}\n", 12, 11, "spawners",
     TH_ERR_SCENE_VALUE},
    {"unknown spawner key",
     MAP_HEAD "spawners:\n  - {name: s, crowd: a, cells: S, rate: 1, rat: 2}\n", 13, 44,
     "spawners[0].rat", TH_ERR_SCENE_KEY},
    {"spawner without a name", MAP_HEAD "spawners:\n  - {crowd: a, cells: S, rate: 1}\n", 13, 5,
     "spawners[0].name", TH_ERR_SCENE_MISSING},
    {"spawner without a crowd", MAP_HEAD "spawners:\n  - {name: s, cells: S, rate: 1}\n", 13, 5,
     "spawners[0].crowd", TH_ERR_SCENE_MISSING},
    {"spawner of an unknown crowd",
     MAP_HEAD "spawners:\n  - {name: s, crowd: b, cells: S, rate: 1}\n", 13, 22,
     "spawners[0].crowd", TH_ERR_SCENE_VALUE},
    {"spawner without a rate", MAP_HEAD "spawners:\n  - {name: s, crowd: a, cells: S}\n", 13, 5,
     "spawners[0].rate", TH_ERR_SCENE_MISSING},
    {"spawner rate zero", MAP_HEAD "spawners:\n  - {name: s, crowd: a, cells: S, rate: 0}\n", 13,
     41, "spawners[0].rate", TH_ERR_SCENE_VALUE},
    {"spawner rate a word", MAP_HEAD "spawners:\n  - {name: s, crowd: a, cells: S, rate: fast}\n",
     13, 41, "spawners[0].rate", TH_ERR_SCENE_VALUE},
    {"spawner with rect and cells",
     MAP_HEAD "spawners:\n  - {name: s, crowd: a, cells: S, rect: [1, 1, 1, 1], rate: 1}\n", 13, 5,
     "spawners[0]", TH_ERR_SCENE_VALUE},
    {"spawner with no area", MAP_HEAD "spawners:\n  - {name: s, crowd: a, rate: 1}\n", 13, 5,
     "spawners[0]", TH_ERR_SCENE_VALUE},
    {"spawner rect off the world",
     MAP_HEAD "spawners:\n  - {name: s, crowd: a, rect: [1, 1, 9, 1], rate: 1}\n", 13, 31,
     "spawners[0].rect", TH_ERR_SCENE_VALUE},
    {"spawner on a key with no cell",
     MAP_HEAD "spawners:\n  - {name: s, crowd: a, cells: '#', rate: 1}\n", 13, 32,
     "spawners[0].cells", TH_ERR_SCENE_VALUE},
    {"spawner stop before start",
     MAP_HEAD "spawners:\n  - {name: s, crowd: a, cells: S, rate: 1, start: 5, stop: 4}\n", 13, 60,
     "spawners[0].stop", TH_ERR_SCENE_VALUE},
    {"spawner limit zero",
     MAP_HEAD "spawners:\n  - {name: s, crowd: a, cells: S, rate: 1, limit: 0}\n", 13, 51,
     "spawners[0].limit", TH_ERR_SCENE_VALUE},
    {"spawner velocity of one number",
     MAP_HEAD "spawners:\n  - {name: s, crowd: a, cells: S, rate: 1, velocity: [1]}\n", 13, 54,
     "spawners[0].velocity", TH_ERR_SCENE_VALUE},
    {"spawner name used twice",
     MAP_HEAD
     "spawners:\n  - {name: s, crowd: a, cells: S, rate: 1}\n  - {name: s, crowd: a, cells: S, rate: 1}\n",
     14, 12, "spawners[1].name", TH_ERR_SCENE_VALUE},
    {"spawner rect all wall",
     MAP_HEAD "spawners:\n  - {name: s, crowd: a, rect: [0, 0, 6, 1], rate: 1}\n", 13, 31,
     "spawners[0].rect", TH_ERR_SCENE_VALUE},
    {"exit rect all wall", MAP_HEAD "exits:\n  - {name: e, rect: [0, 2, 6, 1]}\n", 13, 21,
     "exits[0].rect", TH_ERR_SCENE_VALUE},
    {"exit named like a goal exit",
     MAP_HEAD
     "    goal: {destinations: [{legend: E}], exit: true}\nexits:\n  - {name: a, cells: E}\n",
     14, 12, "exits[0].name", TH_ERR_SCENE_VALUE},
    {"endless spawner past the memory bound over the scene's steps",
     MAP_HEAD "steps: 100000000\nspawners:\n  - {name: s, crowd: a, cells: S, rate: 1000}\n", 14, 3,
     "spawners", TH_ERR_SCENE_VALUE},
    {"exits a word", MAP_HEAD "exits: door\n", 12, 8, "exits", TH_ERR_SCENE_VALUE},
    {"unknown exit key", MAP_HEAD "exits:\n  - {name: e, cells: E, crowd: [a]}\n", 13, 25,
     "exits[0].crowd", TH_ERR_SCENE_KEY},
    {"exit of an unknown crowd", MAP_HEAD "exits:\n  - {name: e, cells: E, crowds: [a, b]}\n", 13,
     37, "exits[0].crowds[1]", TH_ERR_SCENE_VALUE},
    {"exit crowd listed twice", MAP_HEAD "exits:\n  - {name: e, cells: E, crowds: [a, a]}\n", 13,
     37, "exits[0].crowds[1]", TH_ERR_SCENE_VALUE},
    {"exit without an area", MAP_HEAD "exits:\n  - {name: e}\n", 13, 5, "exits[0]",
     TH_ERR_SCENE_VALUE},
    {"goal exit not a boolean", MAP_HEAD "    goal: {destinations: [{legend: E}], exit: yes}\n", 12,
     47, "crowds[0].goal.exit", TH_ERR_SCENE_VALUE},
    {"goal exit on a route", MAP_HEAD "    goal: {route: [[1, 1]], exit: true}\n", 12, 35,
     "crowds[0].goal.exit", TH_ERR_SCENE_VALUE},
};

START_TEST(bad_scenes_point_at_the_value) {
    const bad_scene *c = &k_bad[_i];
    th_error err = {0};
    const char *path = th_test_write_text("scene.yaml", c->yaml);
    th_world *w = th_scene_load(path, &(th_scene_opts){.threads = 1}, NULL, &err);
    ck_assert_msg(w == NULL, "%s: loaded although broken", c->what);
    th_test_scene_error(c->what, &err, "scene.yaml", c->line, c->column, c->path, c->code);
}
END_TEST

/* A scene's sections reach the world as written. */
START_TEST(scene_flow_builds_as_written) {
    const char *path = th_test_write_text(
        "good.yaml", MAP_HEAD
        "    model: pedestrian\n    goal: {destinations: [{legend: E}], exit: true}\n"
        "spawners:\n  - {name: in, crowd: a, cells: S, rate: 0.5, start: 1, stop: 9, limit: 3}\n"
        "exits:\n  - {name: out, rect: [3, 1, 1, 1]}\n");
    th_error err;
    th_world *w = th_scene_load(path, &(th_scene_opts){.threads = 1}, NULL, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    ck_assert_uint_eq(th_world_spawner_count(w), 1);
    ck_assert_uint_eq(th_world_exit_count(w), 2);
    th_spawner_info si;
    th_world_get_spawner(w, SPAWNER_ID(0), &si);
    ck_assert_str_eq(si.name, "in");
    ck_assert_uint_eq(si.total, 3); /* min(3, floor(0.5 * 8)) */
    th_exit_info ei;
    th_world_get_exit(w, EXIT_ID(0), &ei);
    ck_assert_str_eq(ei.name, "a"); /* the goal's exit, named after its crowd */
    th_world_get_exit(w, EXIT_ID(1), &ei);
    ck_assert_str_eq(ei.name, "out");
    for (int s = 0; s < 1200; s++) th_world_step(w);
    th_world_get_spawner(w, SPAWNER_ID(0), &si);
    ck_assert_uint_eq(si.emitted, 3);
    th_world_stats st = th_world_get_stats(w);
    /* The 3 m corridor: walkers meet the rect exit (x in [3, 4)) before the goal cells. */
    ck_assert_uint_eq(st.exited, 3);
    th_world_get_exit(w, EXIT_ID(1), &ei);
    ck_assert_uint_eq(ei.exited, 3);
    th_world_destroy(w);
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("flow");
    TCase *t = tcase_create("flow");
    tcase_set_timeout(t, 300);
    /* Under ThreadSanitizer the tests that step one-thread worlds are left out, and so are the
     * long corridor walks: the spawner and exit passes they run are stepped on two threads by
     * the queue, exit, storage and spawner tests. */
    if (!TH_TEST_TSAN) tcase_add_test(t, counts_are_floor_rate_t);
    if (!TH_TEST_TSAN) tcase_add_test(t, counts_exact_at_sixtieths);
    if (!TH_TEST_TSAN) tcase_add_test(t, positions_inside_the_area_on_open_ground);
    tcase_add_test(t, a_full_area_makes_a_queue);
    tcase_add_test(t, spawned_bodies_land_the_same_however_stored);
    tcase_add_test(t, a_step_out_of_memory_says_so);
    tcase_add_test(t, exits_remove_exactly_the_agents_inside);
    if (!TH_TEST_TSAN) tcase_add_test(t, corridor_reaches_a_steady_flow);
    if (!TH_TEST_TSAN) tcase_add_test(t, same_flow_for_any_thread_count);
    if (!TH_TEST_TSAN) tcase_add_test(t, steady_state_allocates_nothing);
    tcase_add_test(t, endless_spawner_storage_stays_bounded);
    tcase_add_test(t, bounded_spawner_reserves_up_front);
    if (!TH_TEST_TSAN) tcase_add_test(t, areas_are_reported_for_drawing);
    if (!TH_TEST_TSAN) tcase_add_test(t, validation_names_a_broken_exit_count);
    if (!TH_TEST_TSAN) tcase_add_test(t, api_refuses_bad_spawners_and_exits);
    if (!TH_TEST_TSAN)
        tcase_add_loop_test(t, bad_scenes_point_at_the_value, 0,
                            (int)(sizeof k_bad / sizeof k_bad[0]));
    if (!TH_TEST_TSAN) tcase_add_test(t, scene_flow_builds_as_written);
    suite_add_tcase(s, t);
    return s;
}

int main(void) {
    if (!th_test_dir_make("flow")) return EXIT_FAILURE;
    int rc = th_test_run(suite());
    if (!th_test_dir_remove()) rc = EXIT_FAILURE;
    return rc;
}
