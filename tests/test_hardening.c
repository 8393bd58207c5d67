/* The engine under careless or hostile use of its API: event queues of any size and order,
 * blocks that bury agents, huge or non-finite values at every entry point, plus the tests
 * that catch the small semantic bugs a mutation run planted (tests/mutation/). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../sim/throng.h"
#include "test_util.h"

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

/* A world of cols x rows one-metre cells, all open. */
static th_world *map_world(int32_t cols, int32_t rows, uint32_t threads) {
    th_world_def d = th_default_world_def();
    d.width = (float)cols;
    d.height = (float)rows;
    d.cell_size = 1.0f;
    d.threads = threads;
    th_error err;
    th_world *w = th_world_create(&d, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    return w;
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
    th_world *w = map_world(COLS, ROWS, 1);
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
    for (uint32_t k = 0; k < 2 * N; k++)
        order[k] = k;
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
        th_event_def d = {e & 1 ? TH_EVENT_BLOCK_CELLS : TH_EVENT_BREAK_WALLS, 0, x, y, x, y};
        ck_assert_msg(th_world_schedule(w, step[e], &d, &err), "%s", err.message);
    }
    for (int s = 0; s < 9; s++)
        th_world_step(w);
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
    th_world *w = map_world(256, 256, 1);
    th_error err;
    double t0 = now();
    for (uint32_t k = 0; k < TH_MAX_PENDING_EVENTS; k++) {
        uint64_t step = TH_MAX_PENDING_EVENTS - k; /* latest first */
        /* the event due at step s blocks cell (s % 256, 1) */
        th_event_def e = {TH_EVENT_BLOCK_CELLS, 0, (int32_t)(step % 256), 1, (int32_t)(step % 256), 1};
        ck_assert_msg(th_world_schedule(w, step, &e, &err), "%s", err.message);
    }
    double dt = now() - t0;
    ck_assert_msg(dt < 0.5 * time_scale(), "65,536 events took %.2f s to schedule", dt);
    ck_assert_uint_eq(th_world_pending_events(w), TH_MAX_PENDING_EVENTS);
    th_event_def e = {TH_EVENT_BLOCK_CELLS, 0, 0, 0, 0, 0};
    ck_assert(!th_world_schedule(w, 1, &e, &err)); /* the bound holds */
    for (int s = 0; s < 300; s++)
        th_world_step(w);
    ck_assert_uint_eq(th_world_pending_events(w), TH_MAX_PENDING_EVENTS - 299);
    for (int32_t x = 0; x < 256; x++) /* steps 1..299 applied: cells 1..255 and 0 (256) */
        ck_assert_int_eq(th_world_cell(w, x, 1, NULL), TH_CELL_WALL);
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
    return th_test_run(s);
}
