/* The invariant checks catch what they claim to: each check is shown a world broken on
 * purpose (through the internal layout) and must name the fault. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/core/world.h"
#include "sim/observe/validate.h"
#include "test_util.h"

static th_world *walled_maze(void) {
    th_world_def wd = th_default_world_def();
    wd.width = wd.height = 40;
    wd.cell_size = 1;
    wd.threads = 2;
    th_world *w = th_world_create(&wd, NULL);
    for (int y = 10; y < 30; y++) th_world_set_cell(w, 20, y, TH_CELL_WALL, 1, NULL);
    th_world_add_bunker(
        w, &(th_bunker_def){.name = "b", .x0 = 35, .y0 = 35, .x1 = 36, .y1 = 36, .capacity = 2},
        NULL);
    th_crowd_def cd = th_default_crowd_def();
    cd.behavior = TH_BEHAVIOR_FLEE;
    th_world_add_crowd(w, &cd, NULL);
    for (int i = 0; i < 50; i++) {
        th_world_add_agent(w, CROWD_ID(0), th_v2(2.5f + (float)(i % 10), 2.5f + (float)(i / 10)),
                           th_v2(0, 0), NULL);
    }
    th_world_set_validation(w, true);
    for (int s = 0; s < 30; s++) th_world_step(w);
    ck_assert_msg(th_world_validation_error(w) == NULL, "%s", th_world_validation_error(w));
    return w;
}

/* Break the world after a step, run the post-step checks directly, expect `what`. */
static void expect_fault(void (*breakit)(th_world *), const char *what) {
    th_world *w = walled_maze();
    breakit(w);
    ck_assert(!th_validate_state(w));
    const char *msg = th_world_validation_error(w);
    ck_assert_msg(msg && strstr(msg, what), "expected '%s', got: %s", what, msg ? msg : "(none)");
    th_world_destroy(w);
}

static void into_wall(th_world *w) { w->buf[w->cur].px[3] = 20.5f, w->buf[w->cur].py[3] = 15.5f; }
static void not_finite(th_world *w) { w->buf[w->cur].vy[7] = NAN; }
static void off_world(th_world *w) { w->buf[w->cur].px[1] = 40.0f; }
static void too_fast(th_world *w) { w->buf[w->cur].vx[2] = 100.0f; }
static void lost_agent(th_world *w) { w->stats.sheltered += 1; }
static void over_capacity(th_world *w) { w->nav.bunker[0].sheltered = 3, w->stats.sheltered += 3; }
static void bad_id_map(th_world *w) { w->slot_of_id[th_id_slot(w->buf[w->cur].id[4])] = 5; }

START_TEST(state_faults_are_named) {
    expect_fault(into_wall, "inside a blocked cell");
    expect_fault(not_finite, "non-finite");
    expect_fault(off_world, "outside the 40 x 40 world");
    expect_fault(too_fast, "faster than its crowd");
    expect_fault(lost_agent, "bunkers hold");
    expect_fault(over_capacity, "over its capacity");
    expect_fault(bad_id_map, "not mapped back");
}
END_TEST

START_TEST(grid_fault_is_named) {
    th_world *w = walled_maze();
    /* File an agent under the wrong cell, as a broken sort would. */
    w->cell[0] = w->cell[0] + 1;
    ck_assert(!th_validate_grid(w));
    ck_assert(strstr(th_world_validation_error(w), "filed in grid cell") != NULL);
    th_world_destroy(w);
}
END_TEST

START_TEST(a_healthy_run_stays_clean_and_reset_clears) {
    th_world *w = walled_maze();
    for (int s = 0; s < 900; s++) th_world_step(w); /* 45 m to the bunker at 4 m/s */
    ck_assert(th_world_validation_error(w) == NULL);
    ck_assert_uint_gt(th_world_get_stats(w).sheltered, 0); /* it did shelter, compacting */
    w->buf[w->cur].px[0] = NAN;
    th_validate_state(w);
    ck_assert(th_world_validation_error(w) != NULL);
    th_world_set_validation(w, true);
    ck_assert(th_world_validation_error(w) == NULL);
    th_world_destroy(w);
}
END_TEST

int main(void) {
    Suite *s = suite_create("validate");
    TCase *tc = tcase_create("invariants");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, state_faults_are_named);
    tcase_add_test(tc, grid_fault_is_named);
    tcase_add_test(tc, a_healthy_run_stays_clean_and_reset_clears);
    suite_add_tcase(s, tc);
    return th_test_run(s);
}
