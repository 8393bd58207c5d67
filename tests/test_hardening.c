/* The engine under careless or hostile use of its API: event queues of any size and order,
 * blocks that bury agents, huge or non-finite values at every entry point, plus the tests
 * that catch the small semantic bugs a mutation run planted (tests/mutation/). */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/alloc.h"
#include "engine/arena.h"
#include "engine/grid.h"
#include "engine/jobs.h"
#include "sim/core/world.h"
#include "sim/observe/validate.h" /* validation: a state poked past the top speed */
#include "test_util.h"
#include "throng/throng.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Sanitizer builds run several times slower; THRONG_TIME_SCALE stretches bounds further. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TH_TEST_SLOWDOWN 8.0
#else
#define TH_TEST_SLOWDOWN 1.0
#endif
static double time_scale(void) {
    const char *s = getenv("THRONG_TIME_SCALE");
    return TH_TEST_SLOWDOWN * (s && atof(s) > 0 ? atof(s) : 1.0);
}

/* ---- events ----------------------------------------------------------------------------- */

/* Every cell starts as a destructible wall and gets one `break` and one `block` event, at
 * random steps (the same step for half the cells), all scheduled in one random order. Breaking
 * first opens the cell and blocking then walls it for good; blocking first does nothing (the
 * cell is blocked already) and breaking then opens it. So each cell's final kind shows which
 * of its two events was applied first: the earlier step, and at one step the one scheduled
 * first. */
START_TEST(events_apply_in_step_then_schedule_order) {
    enum { COLS = 64, ROWS = 32, N = COLS * ROWS };
    th_world *w = th_test_metre_world(1, 1, COLS, ROWS);
    th_error err;
    for (int32_t y = 0; y < ROWS; y++)
        for (int32_t x = 0; x < COLS; x++)
            ck_assert(th_world_set_cell(w, x, y, TH_CELL_DESTRUCTIBLE, 1, &err));
    static uint32_t order[2 * N];
    static uint64_t step[2 * N]; /* event 2c: break of cell c; 2c + 1: its block */
    static uint32_t rank[2 * N];
    uint64_t rng = 42 + (uint64_t)_i;
    for (uint32_t c = 0; c < N; c++) {
        step[2 * c] = splitmix64(&rng) % 8;
        step[2 * c + 1] = splitmix64(&rng) & 1 ? step[2 * c] : splitmix64(&rng) % 8;
    }
    for (uint32_t k = 0; k < 2 * N; k++) order[k] = k;
    for (uint32_t k = 2 * N - 1; k > 0; k--) { /* Fisher-Yates */
        uint32_t j = (uint32_t)(splitmix64(&rng) % (k + 1));
        uint32_t t = order[k];
        order[k] = order[j];
        order[j] = t;
    }
    for (uint32_t k = 0; k < 2 * N; k++) {
        uint32_t e = order[k], c = e / 2;
        rank[e] = k;
        int32_t x = (int32_t)(c % COLS), y = (int32_t)(c / COLS);
        th_event_def d = {e & 1 ? TH_EVENT_BLOCK_CELLS : TH_EVENT_BREAK_WALLS, {0}, x, y, x, y, 0};
        ck_assert_msg(th_world_schedule(w, step[e], &d, &err), "%s", err.message);
    }
    for (int s = 0; s < 9; s++) th_world_step(w);
    ck_assert_uint_eq(th_world_pending_events(w), 0);
    uint32_t walls = 0;
    for (uint32_t c = 0; c < N; c++) {
        uint32_t b = 2 * c, k = 2 * c + 1;
        bool break_first = step[b] < step[k] || (step[b] == step[k] && rank[b] < rank[k]);
        th_cell_kind want = break_first ? TH_CELL_WALL : TH_CELL_OPEN;
        th_cell_kind got = th_world_cell(w, (int32_t)(c % COLS), (int32_t)(c / COLS), NULL);
        CHECK_MSG(got == want, "cell %u: kind %d, expected %d", c, (int)got, (int)want);
        walls += got == TH_CELL_WALL;
    }
    ck_assert(walls > N / 4 && walls < 3 * N / 4); /* both outcomes well represented */
    th_world_destroy(w);
}
END_TEST

/* Regression: each event was inserted after every event due no later, so 65,536 events
 * scheduled latest-first took 2.8 s (a quadratic number of moves). Now a heap: well under a
 * second, and they come out in step order (the map shows which was applied last). */
START_TEST(events_scheduled_latest_first_are_fast) {
    /* Against the same events scheduled earliest-first in the same process (an append for a
     * sorted insert, as cheap as it gets for a heap), so a loaded machine slows both: the
     * quadratic insert took over 100 times as long latest-first, a heap about as long. */
    double dt_first = 0.0;
    {
        th_world *w0 = th_test_metre_world(1, 1, 256, 256);
        th_error err;
        double t0 = now();
        for (uint32_t k = 0; k < TH_MAX_PENDING_EVENTS; k++) {
            th_event_def e = {
                TH_EVENT_BLOCK_CELLS, {0}, (int32_t)(k % 256), 1, (int32_t)(k % 256), 1, 0};
            ck_assert_msg(th_world_schedule(w0, k + 1, &e, &err), "%s", err.message);
        }
        dt_first = now() - t0;
        th_world_destroy(w0);
    }
    th_world *w = th_test_metre_world(1, 1, 256, 256);
    th_error err;
    double t0 = now();
    for (uint32_t k = 0; k < TH_MAX_PENDING_EVENTS; k++) {
        uint64_t step = TH_MAX_PENDING_EVENTS - k; /* latest first */
        /* the event due at step s blocks cell (s % 256, 1) */
        th_event_def e = {
            TH_EVENT_BLOCK_CELLS, {0}, (int32_t)(step % 256), 1, (int32_t)(step % 256), 1, 0};
        ck_assert_msg(th_world_schedule(w, step, &e, &err), "%s", err.message);
    }
    double dt = now() - t0;
    ck_assert_msg(dt < 20.0 * dt_first + 0.05 * time_scale(),
                  "65,536 events took %.3f s to schedule latest-first, %.3f s earliest-first", dt,
                  dt_first);
    ck_assert_uint_eq(th_world_pending_events(w), TH_MAX_PENDING_EVENTS);
    th_event_def e = {TH_EVENT_BLOCK_CELLS, {0}, 0, 0, 0, 0, 0};
    ck_assert(!th_world_schedule(w, 1, &e, &err)); /* the bound holds */
    for (int s = 0; s < 300; s++) th_world_step(w);
    ck_assert_uint_eq(th_world_pending_events(w), TH_MAX_PENDING_EVENTS - 299);
    for (int32_t x = 0; x < 256; x++) /* steps 1..299 applied: cells 1..255 and 0 (256) */
        ck_assert_int_eq(th_world_cell(w, x, 1, NULL), TH_CELL_WALL);
    th_world_destroy(w);
}
END_TEST

/* ---- block events: nobody left inside a wall ------------------------------------------- */

/* Independent reference: from `start` (a newly blocked cell), breadth-first over newly blocked
 * cells (4-connected), the distance to the nearest open cell, or -1 when none is reachable. */
static int ref_escape_distance(const uint8_t *newly, const uint8_t *open, int32_t cols,
                               int32_t rows, int32_t start, int32_t *dist, int32_t *queue) {
    for (int32_t i = 0; i < cols * rows; i++) dist[i] = -1;
    int32_t head = 0, tail = 0;
    dist[start] = 0;
    queue[tail++] = start;
    while (head < tail) {
        int32_t c = queue[head++], x = c % cols, y = c / cols;
        const int32_t nx[4] = {x - 1, x + 1, x, x}, ny[4] = {y, y, y - 1, y + 1};
        for (int d = 0; d < 4; d++) {
            if (nx[d] < 0 || ny[d] < 0 || nx[d] >= cols || ny[d] >= rows) continue;
            int32_t e = ny[d] * cols + nx[d];
            if (open[e]) return dist[c] + 1;
            if (newly[e] && dist[e] < 0) {
                dist[e] = dist[c] + 1;
                queue[tail++] = e;
            }
        }
    }
    return -1;
}

/* A map with random walls and agents everywhere open, then blocks of every size (a cell, a
 * strip, most of the map, a sealed room, the whole map): after the step that applies them,
 * every agent stands on an open cell; the open cell it reached is as near (in 4-connected
 * steps through the newly blocked cells) as the nearest one a per-agent search finds, and it
 * lies in the component of the old open map the agent stood in; agents with no open cell to
 * reach are exactly the ones removed, counted in stats.buried. */
START_TEST(blocks_leave_nobody_inside_walls) {
    enum { COLS = 48, ROWS = 40, N = COLS * ROWS };
    static const int32_t rects[][4] = {
        {10, 10, 10, 10}, {0, 20, 47, 21}, {2, 2, 45, 37}, {0, 0, 47, 39}, {20, 5, 30, 35},
    };
    const int32_t *r = rects[_i];
    th_world *w = th_test_metre_world(2, 1, COLS, ROWS);
    th_error err;
    uint64_t rng = 99 + (uint64_t)_i;
    static uint8_t open_before[N], open_after[N], newly[N];
    static int32_t dist[N], queue[N];
    for (int32_t c = 0; c < N; c++) { /* 10% walls; a sealed room in case 4's rectangle */
        int32_t x = c % COLS, y = c / COLS;
        bool room_wall = _i == 4 && ((x == 19 || x == 31) && y >= 4 && y <= 36);
        room_wall = room_wall || (_i == 4 && (y == 4 || y == 36) && x >= 19 && x <= 31);
        bool wall = room_wall || splitmix64(&rng) % 10 == 0;
        if (wall) ck_assert(th_world_set_cell(w, x, y, TH_CELL_WALL, 1, &err));
        open_before[c] = !wall;
    }
    th_crowd_def cd = th_default_crowd_def();
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), 0);
    uint32_t placed = 0;
    for (int32_t c = 0; c < N; c++) {
        if (!open_before[c]) continue;
        for (int k = 0; k < 2; k++) { /* two agents a cell, at random points in it */
            th_vec2 p = th_v2(
                (float)(c % COLS) + 0.05f + 0.9f * (float)(splitmix64(&rng) % 1000) / 1000.0f,
                (float)(c / COLS) + 0.05f + 0.9f * (float)(splitmix64(&rng) % 1000) / 1000.0f);
            ck_assert(th_agent_id_valid(th_world_add_agent(w, CROWD_ID(0), p, th_v2(0, 0), &err)));
            placed++;
        }
    }
    th_world_step(w); /* settle: the first step builds the fields */
    th_agent_view v = th_world_agents(w);
    static th_vec2 before[2 * N];
    for (uint32_t k = 0; k < v.count; k++) before[th_test_slot(v.id[k])] = th_v2(v.px[k], v.py[k]);
    ck_assert(th_world_block_cells(w, r[0], r[1], r[2], r[3], &err));
    memcpy(open_after, open_before, sizeof open_after);
    memset(newly, 0, sizeof newly);
    for (int32_t y = r[1]; y <= r[3]; y++) {
        for (int32_t x = r[0]; x <= r[2]; x++) {
            newly[y * COLS + x] = open_before[y * COLS + x];
            open_after[y * COLS + x] = 0;
        }
    }
    uint32_t before_count = v.count;
    /* the agents the reference says have nowhere to go */
    uint32_t expect_buried = 0;
    for (uint32_t id = 0; id < placed; id++) {
        int32_t c = (int32_t)before[id].y * COLS + (int32_t)before[id].x;
        if (newly[c] && ref_escape_distance(newly, open_after, COLS, ROWS, c, dist, queue) < 0)
            expect_buried++;
    }
    th_world_step(w);
    th_world_stats st = th_world_get_stats(w);
    ck_assert_uint_eq(st.buried, expect_buried);
    ck_assert_uint_eq(st.removed, expect_buried);
    ck_assert_uint_eq(st.agents + st.sheltered + st.removed, st.spawned);
    ck_assert_uint_eq(st.agents, before_count - expect_buried);
    v = th_world_agents(w);
    for (uint32_t k = 0; k < v.count; k++) {
        int32_t c = (int32_t)v.py[k] * COLS + (int32_t)v.px[k];
        CHECK_MSG(open_after[c], "agent %u at (%g, %g) is inside a wall", th_test_slot(v.id[k]),
                  (double)v.px[k], (double)v.py[k]);
        th_vec2 p0 = before[th_test_slot(v.id[k])];
        int32_t c0 = (int32_t)p0.y * COLS + (int32_t)p0.x;
        if (!newly[c0]) continue;
        /* moved: to an open cell at the reference's distance (the step may then move it a
         * little, never past the cell it was put in: speeds are 4 m/s, the step 1/60 s) */
        int want = ref_escape_distance(newly, open_after, COLS, ROWS, c0, dist, queue);
        CHECK_MSG(want > 0, "agent %u should have been buried", th_test_slot(v.id[k]));
        /* distance from c0 to c through newly blocked cells: c is adjacent to one of them */
        int best = -1;
        const int32_t x = c % COLS, y = c / COLS;
        const int32_t nx[4] = {x - 1, x + 1, x, x}, ny[4] = {y, y, y - 1, y + 1};
        for (int d = 0; d < 4; d++) {
            if (nx[d] < 0 || ny[d] < 0 || nx[d] >= COLS || ny[d] >= ROWS) continue;
            int32_t e = ny[d] * COLS + nx[d];
            if (e == c0) best = 1;
        }
        if (best < 0) {
            /* reference distances from c0 over the newly blocked cells */
            ref_escape_distance(newly, open_after, COLS, ROWS, c0, dist, queue);
            for (int d = 0; d < 4; d++) {
                if (nx[d] < 0 || ny[d] < 0 || nx[d] >= COLS || ny[d] >= ROWS) continue;
                int32_t e = ny[d] * COLS + nx[d];
                if (newly[e] && dist[e] >= 0 && (best < 0 || dist[e] + 1 < best))
                    best = dist[e] + 1;
            }
        }
        CHECK_MSG(best == want, "agent %u from cell %d to cell %d: %d steps, nearest is %d",
                  th_test_slot(v.id[k]), c0, c, best, want);
    }
    th_world_destroy(w);
}
END_TEST

/* Bodies and walls that appear under them. A world of 0.5 m cells, all open, with pedestrians
 * (0.2 m bodies) placed in and around a rectangle that a block event then walls: agents inside
 * it move to open cells, several of them onto the same one, and agents outside it may stand
 * with their bodies over its edge. After the step no body may overlap a wall, checked against
 * every blocked cell by brute force, nor another body beyond the validated bound, and
 * validation (run inside the step) must have found nothing. Cases: one cell beside an agent
 * whose body reaches into it; one cell with an agent inside; a 6 x 6 block with an agent in
 * every cell; a wall across the world that leaves a corridor one cell (0.5 m) wide; a
 * 2 x 2 block by a world edge (set through th_world_set_cell before the first step); a crush. */
START_TEST(blocks_keep_bodies_out_of_walls) {
    enum { COLS = 40, ROWS = 24 };
    const float cs = 0.5f, r = 0.2f;
    th_world_def d = th_default_world_def();
    d.width = COLS * cs;
    d.height = ROWS * cs;
    d.cell_size = cs;
    d.threads = 2;
    th_error err;
    th_world *w = th_world_create(&d, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    th_crowd_def cd = th_default_pedestrian_def();
    cd.body_radius = r;
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), 0);
    static const int32_t rects[][4] = {
        {10, 10, 10, 10}, {10, 10, 10, 10}, {10, 6, 15, 11},
        {0, 8, 38, 11},   {0, 0, 1, 1},     {10, 6, 15, 11},
    };
    /* Case 5, a crush: four bodies in every cell of the 6 x 6 block (16 per m2), more than the
     * open cells around it hold at once. Bodies may overlap each other for a few steps (the
     * contacts phase spreads them), but never a wall. */
    const bool crush = _i == 5;
    const int32_t *b = rects[_i];
    if (_i == 0) { /* centre 0.15 m left of the cell: the body reaches 0.05 m into it */
        ck_assert(th_agent_id_valid(th_world_add_agent(
            w, CROWD_ID(0), th_v2(10 * cs - 0.15f, 10.5f * cs), th_v2(0, 0), &err)));
    } else if (_i == 4) { /* in the corner cell and beside the block */
        ck_assert(th_agent_id_valid(
            th_world_add_agent(w, CROWD_ID(0), th_v2(0.3f, 0.3f), th_v2(0, 0), &err)));
        ck_assert(th_agent_id_valid(
            th_world_add_agent(w, CROWD_ID(0), th_v2(2 * cs + 0.1f, 0.5f), th_v2(0, 0), &err)));
    } else {
        uint64_t rng = 41 + (uint64_t)_i;
        for (int32_t y = b[1]; y <= b[3]; y++) {
            for (int32_t x = b[0]; x <= b[2]; x++)
                for (int q = 0; q < (crush ? 4 : 1); q++) {
                    if (_i == 3 && (x + y) % 3 != 0)
                        continue; /* a third of the cells: room to go */
                    float fx = 0.3f + 0.4f * (float)(splitmix64(&rng) % 1000) / 1000.0f;
                    float fy = 0.3f + 0.4f * (float)(splitmix64(&rng) % 1000) / 1000.0f;
                    ck_assert(th_agent_id_valid(th_world_add_agent(
                        w, CROWD_ID(0), th_v2(((float)x + fx) * cs, ((float)y + fy) * cs),
                        th_v2(0, 0), &err)));
                }
        }
    }
    th_world_set_validation(w, !crush);
    if (_i == 4) {
        for (int32_t y = b[1]; y <= b[3]; y++)
            for (int32_t x = b[0]; x <= b[2]; x++)
                ck_assert(th_world_set_cell(w, x, y, TH_CELL_WALL, 1, &err));
    } else {
        th_world_step(w);
        ck_assert_msg(th_world_validation_error(w) == NULL, "%s", th_world_validation_error(w));
        ck_assert(th_world_block_cells(w, b[0], b[1], b[2], b[3], &err));
    }
    for (int s = 0; s < 3; s++) {
        th_world_step(w);
        ck_assert_msg(th_world_validation_error(w) == NULL, "step %d: %s", s,
                      th_world_validation_error(w));
        th_agent_view v = th_world_agents(w);
        th_world_stats st = th_world_get_stats(w);
        ck_assert_uint_eq(st.buried, 0);
        ck_assert_uint_eq(v.count + st.sheltered, st.spawned);
        for (uint32_t k = 0; k < v.count; k++) {
            for (int32_t y = 0; y < ROWS; y++) {
                for (int32_t x = 0; x < COLS; x++) {
                    if (th_world_cell(w, x, y, NULL) == TH_CELL_OPEN) continue;
                    float qx = fminf(fmaxf(v.px[k], (float)x * cs), (float)(x + 1) * cs);
                    float qy = fminf(fmaxf(v.py[k], (float)y * cs), (float)(y + 1) * cs);
                    float dist = hypotf(v.px[k] - qx, v.py[k] - qy);
                    CHECK_MSG(
                        dist >= 0.99f * r,
                        "step %d: body of agent %u at (%g, %g) overlaps cell (%d, %d) by %.3f m", s,
                        th_test_slot(v.id[k]), (double)v.px[k], (double)v.py[k], x, y,
                        (double)(r - dist));
                }
            }
            for (uint32_t j = k + 1; j < v.count && !crush; j++) {
                float overlap = 2.0f * r - hypotf(v.px[k] - v.px[j], v.py[k] - v.py[j]);
                CHECK_MSG(overlap <= TH_MAX_OVERLAP * 2.0f * r,
                          "step %d: agents %u and %u overlap by %.3f m", s, th_test_slot(v.id[k]),
                          th_test_slot(v.id[j]), (double)overlap);
            }
        }
    }
    th_world_destroy(w);
}
END_TEST

/* Regression: a whole-map block searched up to 64 rings per trapped agent, serially (0.8 ms
 * each; 20 s for three steps of a 2,000-agent scene), and left the farther ones inside the
 * wall. A 1,024 x 1,024 map with a one-cell open border, blocked whole: 50,000 agents move in
 * one pass, and the same result on 1 and 3 threads. */
START_TEST(block_of_a_whole_map_is_fast_and_deterministic) {
    uint64_t hash[2];
    const uint32_t threads[2] = {1, 3};
    for (int t = 0; t < 2; t++) {
        th_world *w = th_test_metre_world(threads[t], 1, 1024, 1024);
        th_error err;
        th_crowd_def cd = th_default_crowd_def();
        ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), 0);
        uint64_t rng = 5;
        for (int i = 0; i < 50000; i++) {
            th_vec2 p = th_v2((float)(splitmix64(&rng) % 1024000) / 1000.0f,
                              (float)(splitmix64(&rng) % 1024000) / 1000.0f);
            ck_assert(th_agent_id_valid(th_world_add_agent(w, CROWD_ID(0), p, th_v2(1, 0), &err)));
        }
        /* The bound is relative to the first step (which builds the same per-cell fields), so
         * a loaded machine or a sanitizer slows both: the old search took 0.8 ms per trapped
         * agent, 40 s here, hundreds of first steps. */
        double t0 = now();
        th_world_step(w);
        double dt_first = now() - t0;
        ck_assert(th_world_block_cells(w, 1, 1, 1022, 1022, &err));
        t0 = now();
        th_world_step(w);
        double dt = now() - t0;
        ck_assert_msg(dt < 10.0 * dt_first + 0.5 * time_scale(),
                      "the step with the block took %.2f s, the first step %.2f s", dt, dt_first);
        th_agent_view v = th_world_agents(w);
        ck_assert_uint_eq(v.count, 50000);
        for (uint32_t k = 0; k < v.count; k++) {
            int32_t x = (int32_t)v.px[k], y = (int32_t)v.py[k];
            CHECK_MSG(th_world_cell(w, x, y, NULL) == TH_CELL_OPEN, "agent in a wall at (%d, %d)",
                      x, y);
        }
        hash[t] = th_world_hash(w);
        th_world_destroy(w);
    }
    ck_assert_uint_eq(hash[0], hash[1]);
}
END_TEST

/* ---- pedestrians, contacts and measurement (tests/mutation/ survivors) ---------------------- */

/* Two pedestrians of a crowd walking east in an open 40 m world (no walls near), at rest, the
 * second `ahead` metres ahead of the first and `side` metres to its north. At 1.2 m their discs
 * (0.4 m together) are too far apart for the neighbour push (gap over 7 repulsion ranges), so
 * the first one's path depends only on whether it takes the second for "ahead": within a contact
 * distance of its line of walking, and slowing it down. Returns the first one's velocity after
 * one step. */
static th_vec2 walk_behind(float ahead, float side) {
    th_world_def d = th_default_world_def();
    d.width = d.height = 40.0f;
    th_error err;
    th_world *w = th_world_create(&d, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    th_crowd_def cd = th_default_pedestrian_def();
    cd.heading = th_v2(1, 0);
    cd.desired_speed_sd = 0.0f;
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), 0);
    th_agent_id a = th_world_add_agent(w, CROWD_ID(0), th_v2(20, 20), th_v2(0, 0), &err);
    ck_assert(th_agent_id_valid(
        th_world_add_agent(w, CROWD_ID(0), th_v2(20 + ahead, 20 + side), th_v2(0, 0), &err)));
    th_world_step(w);
    th_agent_state st;
    ck_assert(th_world_get_agent(w, a, &st));
    th_world_destroy(w);
    return st.velocity;
}

/* Overtaking: a walker held back by someone ahead steps aside, away from the side that one is
 * on. "Ahead" is anyone whose disc meets the walker's line of walking: lateral offsets below
 * the contact distance (0.4 m here), 0.3 m included, as long as that one slows it down (0.8 m
 * ahead it does: th_ped_gap_speed allows 0.94 m/s); at 0.5 m the walker goes straight on. */
START_TEST(pedestrian_steps_aside_for_anyone_on_its_line) {
    th_vec2 v = walk_behind(0.8f, 0.3f);
    CHECK_MSG(v.y < -1e-3f, "held back by someone 0.3 m to its left, it went (%g, %g)", (double)v.x,
              (double)v.y);
    v = walk_behind(0.8f, -0.3f);
    CHECK_MSG(v.y > 1e-3f, "held back by someone 0.3 m to its right, it went (%g, %g)", (double)v.x,
              (double)v.y);
    v = walk_behind(1.2f, 0.5f);
    CHECK_MSG(v.y == 0.0f && v.x > 0.0f, "nobody on its line, it went (%g, %g)", (double)v.x,
              (double)v.y);
    /* 1.2 m ahead and 0.3 m aside, its disc meets the line but leaves a free run that allows
     * more than the free speed (1.64 m/s against 1.34): nothing holds the walker back. */
    v = walk_behind(1.2f, 0.3f);
    CHECK_MSG(v.y == 0.0f && v.x > 0.0f, "not slowed by it, it went (%g, %g)", (double)v.x,
              (double)v.y);
}
END_TEST

/* Speeding up: a lone walker from rest approaches its desired speed v0 as the driving term
 * (v0 - v) / tau of the social force model does, stepped explicitly: after n steps of dt its
 * speed is v0 (1 - (1 - dt / tau)^n), not v0 at once. */
START_TEST(pedestrian_speeds_up_with_its_relaxation_time) {
    th_world_def d = th_default_world_def();
    d.width = d.height = 40.0f;
    th_error err;
    th_world *w = th_world_create(&d, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    th_crowd_def cd = th_default_pedestrian_def();
    cd.heading = th_v2(0, 1);
    cd.desired_speed_sd = 0.0f;
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), 0);
    th_agent_id a = th_world_add_agent(w, CROWD_ID(0), th_v2(20, 10), th_v2(0, 0), &err);
    double keep = 1.0, ratio = 1.0 - (double)d.timestep / (double)cd.relaxation;
    for (int n = 1; n <= 30; n++) {
        th_world_step(w);
        keep *= ratio;
        th_agent_state st;
        ck_assert(th_world_get_agent(w, a, &st));
        double want = (double)cd.desired_speed * (1.0 - keep);
        double got = hypot((double)st.velocity.x, (double)st.velocity.y);
        CHECK_MSG(fabs(got - want) <= 1e-4 * cd.desired_speed, "step %d: speed %g, expected %g", n,
                  got, want);
        CHECK_MSG(st.velocity.x == 0.0f, "step %d: it turned (%g, %g)", n, (double)st.velocity.x,
                  (double)st.velocity.y);
    }
    th_world_destroy(w);
}
END_TEST

/* A walker in an overlap with the one ahead of it stops: the spacing speed (gap - contact
 * distance) / time gap is negative there and is floored at 0, never walked backwards. With no
 * neighbour push (repulsion 0) the first walker's heading stays east, the second overlaps it
 * by 0.15 m straight ahead: after the step its velocity is exactly 0 (the contacts phase then
 * pushes it back, which takes nothing away from a velocity of 0). */
START_TEST(pedestrian_never_walks_backwards) {
    th_world_def d = th_default_world_def();
    d.width = d.height = 40.0f;
    th_error err;
    th_world *w = th_world_create(&d, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    th_crowd_def cd = th_default_pedestrian_def();
    cd.heading = th_v2(1, 0);
    cd.desired_speed_sd = 0.0f;
    cd.repulsion = 0.0f;
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), 0);
    th_agent_id a = th_world_add_agent(w, CROWD_ID(0), th_v2(20, 20), th_v2(0, 0), &err);
    ck_assert(th_agent_id_valid(
        th_world_add_agent(w, CROWD_ID(0), th_v2(20.25f, 20), th_v2(0, 0), &err)));
    th_world_step(w);
    th_agent_state st;
    ck_assert(th_world_get_agent(w, a, &st));
    CHECK_MSG(st.velocity.x == 0.0f && st.velocity.y == 0.0f, "it moved at (%g, %g)",
              (double)st.velocity.x, (double)st.velocity.y);
    th_world_destroy(w);
}
END_TEST

/* A body walking into a wall is pushed back out by the contacts phase, and its velocity loses
 * the part that drove into the wall and keeps the part along it (an observer sees it slide).
 * A wall column at x in [10, 10.5] of 0.5 m cells; a walker 5 mm from touching it walks at
 * its desired speed toward north-east (no wall push: wall_repulsion 0). After the step: the
 * body is off the wall, and the velocity is about the old one projected on the wall,
 * (0, v0 / sqrt 2): the model's own step and the slide leave it at (0.08, 1.02) here, where
 * keeping the part that drove into the wall would leave (0.95, 0.95). */
START_TEST(contact_with_a_wall_keeps_the_sliding_velocity) {
    th_world_def d = th_default_world_def();
    d.width = d.height = 20.0f;
    d.cell_size = 0.5f;
    th_error err;
    th_world *w = th_world_create(&d, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    for (int32_t y = 0; y < 40; y++) ck_assert(th_world_set_cell(w, 20, y, TH_CELL_WALL, 1, &err));
    th_crowd_def cd = th_default_pedestrian_def();
    cd.heading = th_v2(1, 1);
    cd.desired_speed_sd = 0.0f;
    cd.wall_repulsion = 0.0f;
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), 0);
    const float v0 = cd.desired_speed, s = v0 / sqrtf(2.0f);
    th_agent_id a =
        th_world_add_agent(w, CROWD_ID(0), th_v2(10.0f - 0.205f, 10), th_v2(s, s), &err);
    th_world_step(w);
    th_agent_state st;
    ck_assert(th_world_get_agent(w, a, &st));
    CHECK_MSG(st.position.x <= 10.0f - 0.99f * cd.body_radius,
              "the body overlaps the wall at x = %g", (double)st.position.x);
    CHECK_MSG(fabsf(st.velocity.x) <= 0.1f * s && st.velocity.y >= 0.9f * s,
              "velocity (%g, %g), expected about (0, %g)", (double)st.velocity.x,
              (double)st.velocity.y, (double)s);
    th_world_destroy(w);
}
END_TEST

/* A body the contacts phase pushes into an open bunker is sheltered in that step, like one
 * that walks in. A fleeing walker at rest stands 1 mm west of a bunker cell's edge (its first
 * step, speeding up from rest, covers under 1 mm); a standing body of another crowd overlaps
 * it from the west by 0.1 m, and the push apart carries the walker's centre into the bunker. */
START_TEST(a_body_pushed_into_a_bunker_is_sheltered) {
    th_world_def d = th_default_world_def();
    d.width = d.height = 20.0f;
    d.cell_size = 1.0f;
    th_error err;
    th_world *w = th_world_create(&d, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    ck_assert(IDX(th_world_add_bunker(
                  w, &(th_bunker_def){.name = "b", .x0 = 10, .y0 = 8, .x1 = 10, .y1 = 12}, &err)) >=
              0);
    th_crowd_def flee = th_default_pedestrian_def();
    flee.behavior = TH_BEHAVIOR_FLEE;
    flee.desired_speed_sd = 0.0f;
    th_crowd_def stand = th_default_pedestrian_def();
    stand.name = "standing";
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &flee, &err)), 0);
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &stand, &err)), 1);
    ck_assert(th_agent_id_valid(
        th_world_add_agent(w, CROWD_ID(0), th_v2(9.999f, 10.5f), th_v2(0, 0), &err)));
    ck_assert(th_agent_id_valid(
        th_world_add_agent(w, CROWD_ID(1), th_v2(9.999f - 0.3f, 10.5f), th_v2(0, 0), &err)));
    th_world_step(w);
    th_world_stats st = th_world_get_stats(w);
    ck_assert_uint_eq(st.sheltered, 1);
    ck_assert_uint_eq(st.agents, 1);
    th_world_destroy(w);
}
END_TEST

/* ---- magnitudes at the API -------------------------------------------------------------- */

/* Regression: a finite target velocity of 3e38 m/s was accepted; intercepting leaders aimed at
 * an infinite point and their velocities turned NaN within 70 steps. Magnitudes are bounded
 * (TH_MAX_SPEED, TH_MAX_COORD), and the largest allowed values keep every velocity finite. */
START_TEST(target_magnitudes_are_bounded) {
    th_world_def wd = th_default_world_def();
    wd.threads = 1;
    th_error err;
    th_world *w = th_world_create(&wd, &err);
    ck_assert_ptr_nonnull(w);
    th_target_def t = {
        .kind = TH_TARGET_POINT, .position = th_v2(50, 50), .velocity = th_v2(3e38f, 0)};
    ck_assert_int_eq(IDX(th_world_add_target(w, &t, &err)), -1);
    TH_TEST_ERR(err, TH_ERR_INVALID);
    t.velocity = th_v2(800, 601); /* 1000.4 m/s: each axis is fine, the length is not */
    ck_assert_int_eq(IDX(th_world_add_target(w, &t, &err)), -1);
    t.velocity = th_v2(0, 0);
    t.position = th_v2(2e7f, 0);
    ck_assert_int_eq(IDX(th_world_add_target(w, &t, &err)), -1);
    t.position = th_v2(NAN, 0);
    ck_assert_int_eq(IDX(th_world_add_target(w, &t, &err)), -1);
    th_vec2 pts[2] = {{0, 0}, {-3e38f, 0}};
    th_target_def path = {.kind = TH_TARGET_PATH, .points = pts, .point_count = 2, .speed = 1};
    ck_assert_int_eq(IDX(th_world_add_target(w, &path, &err)), -1);
    /* the largest allowed: 1000 m/s from the far corner of the allowed square */
    t.position = th_v2(-TH_MAX_COORD, TH_MAX_COORD);
    t.velocity = th_v2(TH_MAX_SPEED * 0.6f, -TH_MAX_SPEED * 0.8f);
    int target = IDX(th_world_add_target(w, &t, &err));
    ck_assert_msg(target >= 0, "%s", err.message);
    th_crowd_def cd = th_default_crowd_def();
    cd.target = TARGET_ID(target);
    cd.pursuit = TH_PURSUIT_INTERCEPT;
    cd.max_speed = TH_MAX_SPEED;
    cd.max_force = 1e5f;
    int crowd = IDX(th_world_add_crowd(w, &cd, &err));
    ck_assert_int_ge(crowd, 0);
    uint64_t rng = 7;
    for (int i = 0; i < 200; i++) {
        th_vec2 p = th_v2((float)(splitmix64(&rng) % 100), (float)(splitmix64(&rng) % 100));
        ck_assert(th_agent_id_valid(th_world_add_agent(w, CROWD_ID(crowd), p, th_v2(0, 0), &err)));
    }
    for (int s = 0; s < 200; s++) {
        th_world_step(w);
        th_agent_view v = th_world_agents(w);
        for (uint32_t k = 0; k < v.count; k++) {
            CHECK_MSG(isfinite(v.vx[k]) && isfinite(v.vy[k]) && isfinite(v.px[k]) &&
                          isfinite(v.py[k]),
                      "step %d: agent %u not finite", s, k);
        }
    }
    th_world_destroy(w);
}
END_TEST

START_TEST(agent_velocity_is_bounded) {
    th_world_def wd = th_default_world_def();
    wd.threads = 1;
    th_error err;
    th_world *w = th_world_create(&wd, &err);
    th_crowd_def cd = th_default_crowd_def();
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), 0);
    ck_assert(
        !th_agent_id_valid(th_world_add_agent(w, CROWD_ID(0), th_v2(5, 5), th_v2(NAN, 0), &err)));
    ck_assert(!th_agent_id_valid(
        th_world_add_agent(w, CROWD_ID(0), th_v2(5, 5), th_v2(0, INFINITY), &err)));
    ck_assert(
        !th_agent_id_valid(th_world_add_agent(w, CROWD_ID(0), th_v2(NAN, 5), th_v2(0, 0), &err)));
    /* Regression: (3e38, -3e38) has a float length of infinity, and the float clamp made it
     * (0, 0); clamped in double it keeps its direction at the crowd's top speed. */
    const th_vec2 vel[] = {{3e38f, -3e38f}, {600, 800}, {-FLT_MAX, 0}, {1e-30f, 3e38f}};
    for (size_t i = 0; i < sizeof vel / sizeof vel[0]; i++) {
        th_agent_id id = th_world_add_agent(w, CROWD_ID(0), th_v2(5, 5), vel[i], &err);
        ck_assert_msg(th_agent_id_valid(id), "%s", err.message);
        th_agent_state st;
        ck_assert(th_world_get_agent(w, id, &st));
        double len = hypot(vel[i].x, vel[i].y);
        ck_assert_msg(fabs(hypot(st.velocity.x, st.velocity.y) - cd.max_speed) < 1e-3, "%zu", i);
        ck_assert_msg(fabs(st.velocity.x - vel[i].x / len * cd.max_speed) < 1e-3 &&
                          fabs(st.velocity.y - vel[i].y / len * cd.max_speed) < 1e-3,
                      "%zu: (%g, %g)", i, (double)st.velocity.x, (double)st.velocity.y);
    }
    for (int s = 0; s < 100; s++) th_world_step(w);
    th_agent_view v = th_world_agents(w);
    for (uint32_t k = 0; k < v.count; k++)
        ck_assert(isfinite(v.vx[k]) && isfinite(v.vy[k]) &&
                  hypotf(v.vx[k], v.vy[k]) <= cd.max_speed * 1.0001f);
    th_world_destroy(w);
}
END_TEST

/* Regression: queries at NaN or off-world points clamped to an edge cell and answered for a
 * place nobody named. Each answers its documented value instead (throng.h), while the same
 * queries on the world still answer. */
START_TEST(queries_refuse_points_off_the_world) {
    th_world *w = th_test_metre_world(1, 1, 20, 10);
    th_error err;
    th_bunker_def bd = {.name = "b", .x0 = 17, .y0 = 4, .x1 = 18, .y1 = 5, .capacity = 0};
    ck_assert_int_eq(IDX(th_world_add_bunker(w, &bd, &err)), 0);
    th_destination goal = {2, 2, 0};
    ck_assert_int_eq(IDX(th_world_add_destinations(w, &goal, 1, &err)), 0);
    th_world_step(w);
    th_vec2 dir, away, out[64];
    uint32_t count;
    /* on the world: real answers */
    ck_assert(th_world_flow(w, th_v2(5.5f, 5.5f), &dir));
    ck_assert(isfinite(th_world_cost_to_shelter(w, th_v2(5.5f, 5.5f))));
    ck_assert_int_eq(IDX(th_world_nearest_bunker(w, th_v2(5.5f, 5.5f))), 0);
    ck_assert(th_world_wall_distance(w, th_v2(5.5f, 5.5f), &away) > 0.0f);
    const th_vec2 bad[] = {{NAN, 5},   {5, NAN},   {INFINITY, 5}, {-INFINITY, 5}, {-0.5f, 5},
                           {20.0f, 5}, {5, 10.0f}, {5, -1e30f},   {3e38f, 3e38f}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        th_vec2 p = bad[i];
        dir = th_v2(9, 9);
        ck_assert_msg(!th_world_flow(w, p, &dir) && dir.x == 0 && dir.y == 0, "flow %zu", i);
        dir = th_v2(9, 9);
        ck_assert_msg(!th_world_bunker_flow(w, BUNKER_ID(0), p, &dir) && dir.x == 0 && dir.y == 0,
                      "bunker flow %zu", i);
        dir = th_v2(9, 9);
        ck_assert_msg(!th_world_destination_flow(w, FIELD_ID(0), p, &dir) && dir.x == 0 &&
                          dir.y == 0,
                      "dest flow %zu", i);
        ck_assert_msg(isinf(th_world_cost_to_shelter(w, p)), "cost %zu", i);
        ck_assert_msg(isinf(th_world_destination_cost(w, FIELD_ID(0), p)), "dest cost %zu", i);
        ck_assert_int_eq(IDX(th_world_nearest_bunker(w, p)), -1);
        away = th_v2(9, 9);
        ck_assert_msg(th_world_wall_distance(w, p, &away) == 0.0f && away.x == 0 && away.y == 0,
                      "wall %zu", i);
        ck_assert_msg(!th_world_shelter_path(w, p, out, 64, &count, &err), "shelter path %zu", i);
        ck_assert_msg(strstr(err.message, "is not on the 20 x 10 m world") != NULL, "%s",
                      err.message);
        TH_TEST_ERR(err, isfinite(p.x) && isfinite(p.y) ? TH_ERR_BLOCKED : TH_ERR_INVALID);
        ck_assert(!th_world_destination_path(w, FIELD_ID(0), p, out, 64, &count, &err));
        ck_assert(!th_world_find_path(w, p, th_v2(5.5f, 5.5f), out, 64, &count, NULL, &err));
        TH_TEST_ERR(err, isfinite(p.x) && isfinite(p.y) ? TH_ERR_BLOCKED : TH_ERR_INVALID);
        ck_assert(!th_world_find_path(w, th_v2(5.5f, 5.5f), p, out, 64, &count, NULL, &err));
        ck_assert(!th_world_find_path_ida(w, p, th_v2(5.5f, 5.5f), 0, out, 64, &count, NULL, &err));
        TH_TEST_ERR(err, isfinite(p.x) && isfinite(p.y) ? TH_ERR_BLOCKED : TH_ERR_INVALID);
        ck_assert(!th_world_find_path_ida(w, th_v2(5.5f, 5.5f), p, 0, out, 64, &count, NULL, &err));
        TH_TEST_ERR(err, isfinite(p.x) && isfinite(p.y) ? TH_ERR_BLOCKED : TH_ERR_INVALID);
    }
    th_world_destroy(w);
}
END_TEST

/* ---- tests that catch planted bugs (tests/mutation/) ------------------------------------ */

/* A world built through the API alone, without stepping (so steering changes do not move it):
 * agents with negative, positive, zero and negative-zero velocities, and one bunker. */
static th_world *hash_world(float sign_of_zero) {
    th_world *w = th_test_metre_world(1, 1, 16, 8);
    th_error err;
    th_bunker_def bd = {.name = "b", .x0 = 14, .y0 = 1, .x1 = 15, .y1 = 2, .capacity = 0};
    ck_assert_int_eq(IDX(th_world_add_bunker(w, &bd, &err)), 0);
    th_crowd_def cd = th_default_crowd_def();
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), 0);
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), 1);
    const float v[][4] = {{1.25f, 2.5f, -1.5f, 0.75f},
                          {3.0f, 4.0f, 2.0f, -3.0f},
                          {9.5f, 6.25f, -0.125f, -0.5f},
                          {12.0f, 1.0f, 0.0f, 0.0f}};
    for (uint32_t i = 0; i < 4; i++) {
        ck_assert(th_agent_id_eq(th_world_add_agent(w, CROWD_ID(i % 2), th_v2(v[i][0], v[i][1]),
                                                    th_v2(v[i][2], v[i][3]), &err),
                                 th_test_id(i)));
    }
    ck_assert(th_agent_id_eq(th_world_add_agent(w, CROWD_ID(0), th_v2(7.0f, 7.0f),
                                                th_v2(sign_of_zero * 0.0f, 1.0f), &err),
                             th_test_id(4)));
    return w;
}

/* The state hash is pinned for a fixed world: a change to what it covers or how it mixes is
 * seen here, not first as a mismatch between two machines. And it sees the sign bit of every
 * value: two states that differ only in -0.0 against 0.0 hash differently (the header
 * promises it), as do states that differ only in the sign of one velocity. */
START_TEST(hash_is_pinned_and_sees_signs) {
    th_world *w = hash_world(1.0f);
    uint64_t h = th_world_hash(w);
    ck_assert_msg(h == UINT64_C(0x680c76ab166f8440), "hash of the fixed world: 0x%016llx",
                  (unsigned long long)h);
    th_world *neg = hash_world(-1.0f);
    th_agent_state st;
    ck_assert(th_world_get_agent(neg, th_test_id(4), &st) && signbit(st.velocity.x));
    ck_assert_uint_ne(th_world_hash(neg), h);
    th_world_destroy(neg);
    /* the same world with one velocity's sign flipped */
    th_world *flip = th_test_metre_world(1, 1, 16, 8);
    th_world *orig = th_test_metre_world(1, 1, 16, 8);
    th_error err;
    th_crowd_def cd = th_default_crowd_def();
    ck_assert_int_eq(IDX(th_world_add_crowd(flip, &cd, &err)), 0);
    ck_assert_int_eq(IDX(th_world_add_crowd(orig, &cd, &err)), 0);
    ck_assert(
        th_agent_id_eq(th_world_add_agent(flip, CROWD_ID(0), th_v2(3, 3), th_v2(-1.5f, 0.5f), &err),
                       th_test_id(0)));
    ck_assert(
        th_agent_id_eq(th_world_add_agent(orig, CROWD_ID(0), th_v2(3, 3), th_v2(1.5f, 0.5f), &err),
                       th_test_id(0)));
    ck_assert_uint_ne(th_world_hash(flip), th_world_hash(orig));
    th_world_destroy(flip);
    th_world_destroy(orig);
    th_world_destroy(w);
}
END_TEST

/* The leader test's front cone is closed: a same-type agent exactly on its edge is in the
 * front view, so the agent behind it does not lead. With a front view of 0.001 degrees,
 * cos^2 of half of it is exactly 1.0f, so an agent dead ahead lies exactly on the edge
 * ((v.d)^2 == cos^2 |v|^2 |d|^2 with every value exact). */
START_TEST(leader_cone_edge_is_in_front) {
    th_world_def wd = th_default_world_def();
    wd.threads = 1;
    th_error err;
    th_world *w = th_world_create(&wd, &err);
    th_target_def t = {.kind = TH_TARGET_POINT, .position = th_v2(90, 10)};
    ck_assert_int_eq(IDX(th_world_add_target(w, &t, &err)), 0);
    th_crowd_def cd = th_default_crowd_def();
    cd.target = TARGET_ID(0);
    cd.lead_fov_deg = 0.001f;
    cd.lead_radius = 5.0f;
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), 0);
    th_agent_id back = th_world_add_agent(w, CROWD_ID(0), th_v2(10, 10), th_v2(1, 0), &err);
    th_agent_id front = th_world_add_agent(w, CROWD_ID(0), th_v2(12, 10), th_v2(1, 0), &err);
    th_world_step(w);
    th_agent_state a, b;
    ck_assert(th_world_get_agent(w, back, &a) && th_world_get_agent(w, front, &b));
    ck_assert_msg(!a.leader, "the agent with another dead ahead (on the cone's edge) led");
    ck_assert_msg(b.leader, "the agent with nobody ahead did not lead");
    th_world_destroy(w);
}
END_TEST

/* Arrival hysteresis: an arrived squad stays arrived while its worst member is within
 * REARRIVE_FACTOR (3) tolerances. A one-member squad arrives; then its slot's cell is blocked,
 * which moves the member into the next cell, between 1 and 3 tolerances from the slot (the
 * slot is in the wall now, so it stays there): still arrived. */
START_TEST(squad_arrival_has_hysteresis) {
    th_world *w = th_test_metre_world(1, 1, 20, 12);
    th_error err;
    th_crowd_def cd = th_default_crowd_def();
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), 0);
    th_squad_def sd = th_default_squad_def();
    sd.crowd = CROWD_ID(0);
    sd.count = 1;
    sd.start = th_v2(5.5f, 5.5f);
    sd.goal = th_v2(10.5f, 5.5f);
    sd.tolerance = 0.4f;
    ck_assert_int_eq(IDX(th_world_add_squad(w, &sd, &err)), 0);
    th_squad_info q;
    int s = 0;
    for (; s < 3000; s++) {
        th_world_step(w);
        ck_assert(th_world_get_squad(w, SQUAD_ID(0), &q));
        if (q.arrived) break;
    }
    ck_assert_msg(q.arrived, "the squad never arrived");
    /* it arrives only once every member is within the tolerance */
    ck_assert_msg(q.error <= sd.tolerance, "arrived at error %g, tolerance %g", (double)q.error,
                  (double)sd.tolerance);
    ck_assert(th_world_block_cells(w, 10, 5, 10, 5, &err));
    bool between = false;
    for (int k = 0; k < 120; k++) {
        th_world_step(w);
        ck_assert(th_world_get_squad(w, SQUAD_ID(0), &q));
        /* one member: the mean error is the worst member's distance */
        ck_assert_msg(q.error <= 3.0f * sd.tolerance, "step %d: error %g beyond 3 tolerances", k,
                      (double)q.error);
        between = between || q.error > sd.tolerance;
        ck_assert_msg(q.arrived, "step %d: error %g (tolerance %g) un-arrived the squad", k,
                      (double)q.error, (double)sd.tolerance);
    }
    ck_assert_msg(between, "the member never left its tolerance: the test shows nothing");
    th_world_destroy(w);
}
END_TEST

/* The spatial grid takes at most its capacity: a build asked for more items indexes the first
 * `capacity` of them and writes nothing past its arrays (a mutation run found no test
 * handing it more). */
START_TEST(grid_build_clamps_to_capacity) {
    enum { CAP = 100 };
    th_grid g;
    ck_assert_int_eq(th_grid_init(&g, 0.0f, 0.0f, 1.0f, 1.0f, 4, 4, CAP, 2), 0);
    th_pool *pool = th_pool_create(2);
    ck_assert_ptr_nonnull(pool);
    float xs[CAP + 8], ys[CAP + 8];
    for (uint32_t i = 0; i < CAP + 8; i++) {
        xs[i] = (float)(i % 4) + 0.5f;
        ys[i] = (float)(i / 4 % 4) + 0.5f;
    }
    for (uint32_t n = CAP - 1; n <= CAP + 8; n++) {
        th_grid_build(&g, pool, xs, ys, n);
        uint32_t want = n < CAP ? n : CAP;
        ck_assert_uint_eq(g.cell_start[0], 0);
        ck_assert_uint_eq(g.cell_start[g.ncells], want);
        /* every indexed item is one of the first `want`, each once */
        uint8_t seen[CAP] = {0};
        for (uint32_t k = 0; k < want; k++) {
            ck_assert_uint_lt(g.order[k], want);
            ck_assert(!seen[g.order[k]]);
            seen[g.order[k]] = 1;
        }
    }
    th_pool_destroy(pool);
    th_grid_free(&g);
}
END_TEST

/* The candidate count (th_world_stats.mean_candidates) counts the other agents a query
 * inspects, never the agent itself: three agents within a few centimetres share one grid
 * cell, far from everyone else, so each inspects exactly the other two; a lone agent none. */
START_TEST(candidates_exclude_the_agent_itself) {
    th_world_def wd = th_default_world_def();
    wd.threads = 1;
    th_error err;
    th_world *w = th_world_create(&wd, &err);
    th_crowd_def cd = th_default_crowd_def();
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), 0);
    ck_assert(th_agent_id_eq(
        th_world_add_agent(w, CROWD_ID(0), th_v2(50.0f, 50.0f), th_v2(0, 0), &err), th_test_id(0)));
    th_world_step(w);
    ck_assert(th_world_get_stats(w).mean_candidates == 0.0);
    ck_assert(
        th_agent_id_eq(th_world_add_agent(w, CROWD_ID(0), th_v2(50.01f, 50.0f), th_v2(0, 0), &err),
                       th_test_id(1)));
    ck_assert(
        th_agent_id_eq(th_world_add_agent(w, CROWD_ID(0), th_v2(50.0f, 50.01f), th_v2(0, 0), &err),
                       th_test_id(2)));
    th_world_step(w);
    th_world_stats st = th_world_get_stats(w);
    ck_assert_msg(st.mean_candidates == 2.0, "%g candidates per agent", st.mean_candidates);
    ck_assert_msg(st.mean_neighbors == 2.0, "%g neighbours per agent", st.mean_neighbors);
    th_world_destroy(w);
}
END_TEST

/* A wall bounce reflects the velocity: an agent about to cross the west edge comes back
 * moving east at the same speed (and likewise at the south edge). */
START_TEST(wall_bounce_reflects_velocity) {
    th_world_def wd = th_default_world_def();
    wd.threads = 1;
    th_error err;
    th_world *w = th_world_create(&wd, &err);
    th_crowd_def cd = th_default_crowd_def();
    cd.separation_weight = cd.alignment_weight = cd.cohesion_weight = 0.0f;
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), 0);
    th_agent_id west =
        th_world_add_agent(w, CROWD_ID(0), th_v2(0.01f, 50.0f), th_v2(-4.0f, 0.0f), &err);
    th_agent_id south =
        th_world_add_agent(w, CROWD_ID(0), th_v2(50.0f, 0.01f), th_v2(0.0f, -4.0f), &err);
    th_world_step(w);
    th_agent_state a, b;
    ck_assert(th_world_get_agent(w, west, &a) && th_world_get_agent(w, south, &b));
    ck_assert_msg(a.velocity.x == 4.0f && a.position.x >= 0.0f, "west: v %g at x %g",
                  (double)a.velocity.x, (double)a.position.x);
    ck_assert_msg(b.velocity.y == 4.0f && b.position.y >= 0.0f, "south: v %g at y %g",
                  (double)b.velocity.y, (double)b.position.y);
    th_world_destroy(w);
}
END_TEST

/* The stranded count adds up every chunk of agents: 3 x TH_CHUNK fleeing agents shut in a
 * room with no way to the bunker are all stranded. */
START_TEST(stranded_counts_every_chunk) {
    th_world *w = th_test_metre_world(2, 1, 40, 20);
    th_error err;
    for (int32_t y = 0; y < 20; y++) /* a wall down column 20 splits the map */
        ck_assert(th_world_set_cell(w, 20, y, TH_CELL_WALL, 1, &err));
    th_bunker_def bd = {.name = "b", .x0 = 35, .y0 = 5, .x1 = 36, .y1 = 6, .capacity = 0};
    ck_assert_int_eq(IDX(th_world_add_bunker(w, &bd, &err)), 0);
    th_crowd_def cd = th_default_crowd_def();
    cd.behavior = TH_BEHAVIOR_FLEE;
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), 0);
    uint64_t rng = 3;
    const uint32_t n = 3 * 512 + 17;
    for (uint32_t i = 0; i < n; i++) {
        th_vec2 p = th_v2(1.0f + (float)(splitmix64(&rng) % 18000) / 1000.0f,
                          1.0f + (float)(splitmix64(&rng) % 18000) / 1000.0f);
        ck_assert(th_agent_id_valid(th_world_add_agent(w, CROWD_ID(0), p, th_v2(0, 0), &err)));
    }
    th_world_step(w);
    ck_assert_uint_eq(th_world_get_stats(w).stranded, n);
    th_world_destroy(w);
}
END_TEST

/* Intercept looks at most INTERCEPT_HORIZON_S (10 s) ahead: a target 50 m away crossing at
 * 900 m/s is aimed at 10 s ahead of it, so the leader heads almost straight across (+y), not
 * at where the target is now (+x). */
START_TEST(intercept_aims_at_the_horizon) {
    th_world_def wd = th_default_world_def();
    wd.threads = 1;
    th_error err;
    th_world *w = th_world_create(&wd, &err);
    th_target_def t = {
        .kind = TH_TARGET_POINT, .position = th_v2(60, 50), .velocity = th_v2(0, 900)};
    ck_assert_int_eq(IDX(th_world_add_target(w, &t, &err)), 0);
    th_crowd_def cd = th_default_crowd_def();
    cd.target = TARGET_ID(0);
    cd.pursuit = TH_PURSUIT_INTERCEPT;
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), 0);
    th_agent_id id = th_world_add_agent(w, CROWD_ID(0), th_v2(10, 50), th_v2(0, 0), &err);
    th_world_step(w);
    th_agent_state a;
    ck_assert(th_world_get_agent(w, id, &a) && a.leader);
    ck_assert_msg(a.acceleration.y > 10.0f * fabsf(a.acceleration.x), "acceleration (%g, %g)",
                  (double)a.acceleration.x, (double)a.acceleration.y);
    th_world_destroy(w);
}
END_TEST

/* An open path target stops at its last point: once it has travelled the whole path its
 * velocity is zero, not the last segment's. */
START_TEST(path_target_stops_at_its_end) {
    th_world_def wd = th_default_world_def();
    wd.threads = 1;
    wd.timestep = 0.25f;
    th_error err;
    th_world *w = th_world_create(&wd, &err);
    th_vec2 pts[2] = {{10, 10}, {12, 10}};
    th_target_def t = {.kind = TH_TARGET_PATH, .points = pts, .point_count = 2, .speed = 1.0f};
    ck_assert_int_eq(IDX(th_world_add_target(w, &t, &err)), 0);
    th_crowd_def cd = th_default_crowd_def();
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), 0);
    ck_assert(th_agent_id_eq(th_world_add_agent(w, CROWD_ID(0), th_v2(50, 50), th_v2(0, 0), &err),
                             th_test_id(0)));
    th_vec2 pos, vel;
    for (int s = 0; s < 14; s++) { /* 3.5 s: the 2 m path ends at 2 s */
        th_world_step(w);
        ck_assert(th_world_get_target(w, TARGET_ID(0), &pos, &vel));
        double travelled = 0.25 * s; /* as of the start of the step */
        if (travelled >= 2.0) {
            ck_assert_msg(pos.x == 12.0f && pos.y == 10.0f && vel.x == 0.0f && vel.y == 0.0f,
                          "step %d: at (%g, %g) moving (%g, %g)", s, (double)pos.x, (double)pos.y,
                          (double)vel.x, (double)vel.y);
        }
    }
    th_world_destroy(w);
}
END_TEST

/* Validation counts removed agents (alive + sheltered + removed = spawned) and flags a speed
 * past the crowd's top speed (beyond rounding), not only a wildly wrong one. */
START_TEST(validation_counts_removed_and_catches_speed) {
    th_world_def wd = th_default_world_def();
    wd.threads = 1;
    th_error err;
    th_world *w = th_world_create(&wd, &err);
    th_crowd_def cd = th_default_crowd_def();
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), 0);
    for (int i = 0; i < 5; i++)
        ck_assert(th_agent_id_valid(th_world_add_agent(
            w, CROWD_ID(0), th_v2(10.0f + 10.0f * (float)i, 50), th_v2(1, 0), &err)));
    th_world_set_validation(w, true);
    ck_assert(th_world_remove_agent(w, th_test_id(2), &err));
    th_world_step(w);
    th_world_step(w);
    ck_assert_msg(th_world_validation_error(w) == NULL, "%s", th_world_validation_error(w));
    ck_assert_uint_eq(th_world_get_stats(w).removed, 1);
    /* 1.5 x the top speed: not rounding */
    w->buf[w->cur].vx[0] = 1.5f * cd.max_speed;
    w->buf[w->cur].vy[0] = 0.0f;
    th_validate_state(w);
    const char *e = th_world_validation_error(w);
    ck_assert_msg(e != NULL && strstr(e, "faster than its crowd") != NULL, "%s",
                  e ? e : "no violation");
    th_world_destroy(w);
}
END_TEST

/* The allocators' bounds: th_calloc refuses a count x size that overflows (instead of a
 * wrapped, tiny block), and an arena never holds more than its budget. */
START_TEST(allocators_keep_their_bounds) {
    ck_assert_ptr_null(th_calloc(SIZE_MAX / 4 + 2, 4));
    ck_assert_ptr_null(th_calloc(2, SIZE_MAX / 2 + 1));
    void *p = th_calloc(3, 5);
    ck_assert_ptr_nonnull(p);
    th_free(p);
    enum { BLOCK = 64 * 1024 };
    th_arena a = th_arena_make(4 * BLOCK);
    for (int i = 0; i < 4; i++) ck_assert_ptr_nonnull(th_arena_alloc(&a, BLOCK));
    ck_assert_ptr_null(th_arena_alloc(&a, BLOCK)); /* a fifth block would pass the budget */
    ck_assert_ptr_null(th_arena_alloc(&a, 1));
    th_arena_free(&a);
}
END_TEST

/* A squad arrives only when every member is within its tolerance: a fast squad with a tight
 * tolerance reaches its goal with its member still lagging, and the first step it counts as
 * arrived finds the member within the tolerance (not merely near it). */
START_TEST(squad_arrives_within_tolerance) {
    th_world *w = th_test_metre_world(1, 1, 40, 12);
    th_error err;
    th_crowd_def cd = th_default_crowd_def();
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), 0);
    th_squad_def sd = th_default_squad_def();
    sd.crowd = CROWD_ID(0);
    sd.count = 1;
    sd.start = th_v2(3.5f, 5.5f);
    sd.goal = th_v2(35.5f, 5.5f);
    sd.speed = 3.0f;
    sd.tolerance = 0.02f;
    ck_assert_int_eq(IDX(th_world_add_squad(w, &sd, &err)), 0);
    th_squad_info q;
    float worst_lag = 0.0f;
    for (int s = 0; s < 6000; s++) {
        th_world_step(w);
        ck_assert(th_world_get_squad(w, SQUAD_ID(0), &q));
        worst_lag = fmaxf(worst_lag, q.error);
        if (q.arrived) break;
    }
    ck_assert_msg(q.arrived, "never arrived");
    ck_assert_msg(worst_lag > 2.0f * sd.tolerance,
                  "the member never lagged: the test shows nothing");
    ck_assert_msg(q.error <= sd.tolerance, "arrived at error %g, tolerance %g", (double)q.error,
                  (double)sd.tolerance);
    th_world_destroy(w);
}
END_TEST

int main(void) {
    Suite *s = suite_create("hardening");
    TCase *tc = tcase_create("events");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, events_apply_in_step_then_schedule_order, 0, 3);
    tcase_add_test(tc, events_scheduled_latest_first_are_fast);
    suite_add_tcase(s, tc);
    tc = tcase_create("blocks");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, blocks_leave_nobody_inside_walls, 0, 5);
    tcase_add_test(tc, block_of_a_whole_map_is_fast_and_deterministic);
    tcase_add_loop_test(tc, blocks_keep_bodies_out_of_walls, 0, 6);
    suite_add_tcase(s, tc);
    tc = tcase_create("api");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, pedestrian_steps_aside_for_anyone_on_its_line);
    tcase_add_test(tc, pedestrian_speeds_up_with_its_relaxation_time);
    tcase_add_test(tc, pedestrian_never_walks_backwards);
    tcase_add_test(tc, contact_with_a_wall_keeps_the_sliding_velocity);
    tcase_add_test(tc, a_body_pushed_into_a_bunker_is_sheltered);
    tcase_add_test(tc, target_magnitudes_are_bounded);
    tcase_add_test(tc, agent_velocity_is_bounded);
    tcase_add_test(tc, queries_refuse_points_off_the_world);
    suite_add_tcase(s, tc);
    tc = tcase_create("mutants");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, hash_is_pinned_and_sees_signs);
    tcase_add_test(tc, leader_cone_edge_is_in_front);
    tcase_add_test(tc, squad_arrival_has_hysteresis);
    tcase_add_test(tc, grid_build_clamps_to_capacity);
    tcase_add_test(tc, candidates_exclude_the_agent_itself);
    tcase_add_test(tc, wall_bounce_reflects_velocity);
    tcase_add_test(tc, stranded_counts_every_chunk);
    tcase_add_test(tc, intercept_aims_at_the_horizon);
    tcase_add_test(tc, path_target_stops_at_its_end);
    tcase_add_test(tc, validation_counts_removed_and_catches_speed);
    tcase_add_test(tc, allocators_keep_their_bounds);
    tcase_add_test(tc, squad_arrives_within_tolerance);
    suite_add_tcase(s, tc);
    return th_test_run(s);
}
