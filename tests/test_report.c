/* The run history (th_world_history, th_world_sheltered_by) against what a caller sees by
 * polling the world's counts and states after every step, and against a scene with a known
 * answer: walkers at 4, 8, ..., 40 m from an exit, walking 1.33 m/s. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/alloc.h"
#include "throng/throng.h"
#include "test_util.h"

#ifndef THRONG_TEST_DATA
#define THRONG_TEST_DATA "tests/data"
#endif

#define LANES_STEPS 2100u

static th_world *load_lanes(uint32_t threads) {
    th_error err;
    th_scene_opts so = {.threads = threads};
    th_world *w = th_scene_load(THRONG_TEST_DATA "/report_lanes.yaml", &so, NULL, &err);
    ck_assert_msg(w, "%s", err.message);
    return w;
}

/* Step `steps` times, noting after every step the sheltered count (the reference) and the step
 * count before each step in which a bunker's destroyed flag changed. */
typedef struct polled {
    uint32_t arrival[64]; /* steps after which the k-th agent was sheltered */
    uint32_t arrivals;
    uint64_t changed_at[8]; /* step count before the step that changed bunker 0 */
    bool changed_to[8];
    uint32_t changes;
} polled;

static void step_and_poll(th_world *w, uint32_t steps, polled *p) {
    memset(p, 0, sizeof *p);
    th_bunker_info b;
    th_world_get_bunker(w, BUNKER_ID(0), &b);
    bool destroyed = b.destroyed;
    for (uint32_t s = 0; s < steps; s++) {
        uint64_t before = th_world_step_count(w);
        th_world_step(w);
        th_world_stats st = th_world_get_stats(w);
        while (p->arrivals < st.sheltered) p->arrival[p->arrivals++] = (uint32_t)st.step;
        th_world_get_bunker(w, BUNKER_ID(0), &b);
        if (b.destroyed != destroyed && p->changes < 8) {
            p->changed_at[p->changes] = before;
            p->changed_to[p->changes++] = b.destroyed;
            destroyed = b.destroyed;
        }
    }
}

START_TEST(sheltered_by_matches_the_polled_counts_and_the_walking_time) {
    th_world *w = load_lanes(2);
    polled p;
    step_and_poll(w, LANES_STEPS, &p);
    /* The ten lanes to the exit and the one to 'spare'; the walled lane's walker never. */
    ck_assert_uint_eq(p.arrivals, 11);
    ck_assert_uint_eq(th_world_sheltered_by(w, 0), 0);
    ck_assert_uint_eq(th_world_sheltered_by(w, 12), 0);
    static const double metres[11] = {4, 8, 12, 16, 20, 20, 24, 28, 32, 36, 40};
    double dt = th_world_get_def(w).timestep;
    for (uint32_t k = 1; k <= p.arrivals; k++) {
        ck_assert_uint_eq(th_world_sheltered_by(w, k), p.arrival[k - 1]);
        /* The k-th nearest walks metres[k] at 1.33 m/s after speeding up with a 0.5 s time
         * constant (which costs 0.5 s): the known answer, within a second. */
        double t = (double)th_world_sheltered_by(w, k) * dt, expect = metres[k - 1] / 1.33 + 0.5;
        ck_assert_msg(fabs(t - expect) < 1.0, "walker %u in at %.2f s, expected %.2f s", k, t,
                      expect);
    }
    th_world_destroy(w);
}
END_TEST

START_TEST(bunker_events_are_logged_at_the_step_that_applied_them) {
    th_world *w = load_lanes(2);
    th_error err;
    th_event_def destroy = {.type = TH_EVENT_DESTROY_BUNKER, .bunker = BUNKER_ID(0)};
    th_event_def restore = {.type = TH_EVENT_RESTORE_BUNKER, .bunker = BUNKER_ID(0)};
    ck_assert(th_world_schedule(w, 120, &destroy, &err));
    ck_assert(th_world_schedule(w, 900, &restore, &err));
    polled p;
    step_and_poll(w, 1500, &p);
    ck_assert_uint_eq(p.changes, 2);
    th_history_entry h[8];
    uint32_t total = 99, dropped = 99;
    uint32_t n = th_world_history(w, 0, h, 8, &total, &dropped);
    ck_assert_uint_eq(n, 2);
    ck_assert_uint_eq(total, 2);
    ck_assert_uint_eq(dropped, 0);
    for (uint32_t i = 0; i < 2; i++) {
        ck_assert_int_eq(h[i].kind, p.changed_to[i] ? TH_HISTORY_BUNKER_DESTROYED
                                                    : TH_HISTORY_BUNKER_RESTORED);
        ck_assert_uint_eq(h[i].bunker.index1, 1);
        ck_assert_uint_eq(h[i].squad.index1, 0);
        ck_assert_uint_eq(h[i].step, p.changed_at[i]);
    }
    ck_assert_uint_eq(h[0].step, 120);
    ck_assert_uint_eq(h[1].step, 900);
    /* Paging: from the second entry on, and nothing past the end. */
    ck_assert_uint_eq(th_world_history(w, 1, h, 8, NULL, NULL), 1);
    ck_assert_int_eq(h[0].kind, TH_HISTORY_BUNKER_RESTORED);
    ck_assert_uint_eq(th_world_history(w, 2, h, 8, NULL, NULL), 0);
    ck_assert_uint_eq(th_world_history(w, 0, NULL, 0, &total, NULL), 0);
    ck_assert_uint_eq(total, 2);
    /* Nobody got in while the exit was destroyed: arrivals stop between the two steps. */
    for (uint32_t k = 1; k <= p.arrivals; k++) {
        uint64_t s = th_world_sheltered_by(w, k);
        ck_assert_msg(s <= 121 || s > 900, "agent %u sheltered after %llu steps", k,
                      (unsigned long long)s);
    }
    th_world_destroy(w);
}
END_TEST

START_TEST(history_is_the_same_for_any_thread_count) {
    th_history_entry h1[16], h3[16];
    uint64_t s1[12], s3[12];
    uint32_t n1 = 0, n3 = 0;
    for (int run = 0; run < 2; run++) {
        th_world *w = load_lanes(run ? 3 : 1);
        th_error err;
        th_event_def ev = {.type = TH_EVENT_DESTROY_BUNKER, .bunker = BUNKER_ID(1)};
        ck_assert(th_world_schedule(w, 200, &ev, &err));
        for (uint32_t s = 0; s < LANES_STEPS; s++) th_world_step(w);
        uint32_t *n = run ? &n3 : &n1;
        *n = th_world_history(w, 0, run ? h3 : h1, 16, NULL, NULL);
        for (uint32_t k = 0; k < 12; k++) (run ? s3 : s1)[k] = th_world_sheltered_by(w, k + 1);
        th_world_destroy(w);
    }
    ck_assert_uint_eq(n1, 1);
    ck_assert_uint_eq(n1, n3);
    ck_assert_mem_eq(h1, h3, n1 * sizeof h1[0]);
    ck_assert_mem_eq(s1, s3, sizeof s1);
}
END_TEST

/* A bunker of capacity 3 beside a column of fleeing boids. */
START_TEST(a_full_bunker_is_logged_when_it_fills) {
    th_world_def wd = th_default_world_def();
    wd.width = 30;
    wd.height = 20;
    wd.cell_size = 1;
    wd.threads = 2;
    th_error err;
    th_world *w = th_world_create(&wd, &err);
    ck_assert_msg(w, "%s", err.message);
    ck_assert_int_eq(
        IDX(th_world_add_bunker(
            w,
            &(th_bunker_def){.name = "small", .x0 = 25, .y0 = 2, .x1 = 26, .y1 = 17, .capacity = 3},
            &err)),
        0);
    th_crowd_def cd = th_default_crowd_def();
    cd.behavior = TH_BEHAVIOR_FLEE;
    int c = IDX(th_world_add_crowd(w, &cd, &err));
    for (int i = 0; i < 6; i++)
        ck_assert(th_agent_id_valid(th_world_add_agent(
            w, CROWD_ID(c), th_v2(5.0f + 2.0f * (float)i, 10.0f), th_v2(0, 0), &err)));
    uint64_t full_at = 0;
    for (int s = 0; s < 1200; s++) {
        th_world_step(w);
        th_bunker_info b;
        th_world_get_bunker(w, BUNKER_ID(0), &b);
        if (b.full && !full_at) full_at = th_world_step_count(w);
    }
    ck_assert_uint_gt(full_at, 0);
    th_history_entry h[4];
    ck_assert_uint_eq(th_world_history(w, 0, h, 4, NULL, NULL), 1);
    ck_assert_int_eq(h[0].kind, TH_HISTORY_BUNKER_FULL);
    ck_assert_uint_eq(h[0].step, full_at);
    ck_assert_uint_eq(th_world_sheltered_by(w, 3), full_at); /* the third one filled it */
    ck_assert_uint_eq(th_world_sheltered_by(w, 4), 0);
    th_world_destroy(w);
}
END_TEST

START_TEST(squad_arrival_and_burial_are_logged) {
    th_world_def wd = th_default_world_def();
    wd.width = 60;
    wd.height = 20;
    wd.cell_size = 1;
    th_error err;
    th_world *w = th_world_create(&wd, &err);
    ck_assert_msg(w, "%s", err.message);
    th_crowd_def cd = th_default_crowd_def();
    int c = IDX(th_world_add_crowd(w, &cd, &err));
    th_squad_def sq = th_default_squad_def();
    sq.crowd = CROWD_ID(c);
    sq.count = 4;
    sq.start = th_v2(8, 10);
    sq.goal = th_v2(40, 10);
    ck_assert_int_eq(IDX(th_world_add_squad(w, &sq, &err)), 0);
    uint64_t arrived_at = 0;
    for (int s = 0; s < 3000 && !arrived_at; s++) {
        th_world_step(w);
        th_squad_info q;
        th_world_get_squad(w, SQUAD_ID(0), &q);
        if (q.arrived) arrived_at = th_world_step_count(w);
    }
    ck_assert_uint_gt(arrived_at, 0);
    th_history_entry h[4];
    ck_assert_uint_eq(th_world_history(w, 0, h, 4, NULL, NULL), 1);
    ck_assert_int_eq(h[0].kind, TH_HISTORY_SQUAD_ARRIVED);
    ck_assert_uint_eq(h[0].step, arrived_at);
    /* Block every cell: the members have nowhere to go and are buried by the next step. */
    uint64_t before = th_world_step_count(w);
    ck_assert(th_world_block_cells(w, 0, 0, 59, 19, &err));
    th_world_step(w);
    ck_assert_uint_eq(th_world_get_stats(w).buried, 4);
    ck_assert_uint_eq(th_world_history(w, 0, h, 4, NULL, NULL), 2);
    ck_assert_int_eq(h[1].kind, TH_HISTORY_BURIED);
    ck_assert_uint_eq(h[1].count, 4);
    ck_assert_uint_eq(h[1].step, before);
    th_world_destroy(w);
}
END_TEST

START_TEST(no_map_no_history_and_no_allocation_in_steps) {
    th_world_def wd = th_default_world_def();
    th_world *w = th_world_create(&wd, NULL);
    th_crowd_def cd = th_default_crowd_def();
    th_world_add_crowd(w, &cd, NULL);
    th_world_add_agent(w, CROWD_ID(0), th_v2(10, 10), th_v2(1, 0), NULL);
    th_world_step(w);
    uint32_t total = 9;
    ck_assert_uint_eq(th_world_history(w, 0, NULL, 0, &total, NULL), 0);
    ck_assert_uint_eq(total, 0);
    ck_assert_uint_eq(th_world_sheltered_by(w, 1), 0);
    th_world_destroy(w);

    /* With a map: after the first step, recording allocates nothing. */
    w = load_lanes(1);
    th_world_step(w);
    uint64_t a0 = th_alloc_count();
    for (int s = 0; s < 1500; s++) th_world_step(w);
    ck_assert_uint_eq(th_alloc_count(), a0);
    ck_assert_uint_gt(th_world_get_stats(w).sheltered, 0);
    th_world_destroy(w);
}
END_TEST

int main(void) {
    Suite *s = suite_create("report");
    TCase *tc = tcase_create("history");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, sheltered_by_matches_the_polled_counts_and_the_walking_time);
    tcase_add_test(tc, bunker_events_are_logged_at_the_step_that_applied_them);
    tcase_add_test(tc, history_is_the_same_for_any_thread_count);
    tcase_add_test(tc, a_full_bunker_is_logged_when_it_fills);
    tcase_add_test(tc, squad_arrival_and_burial_are_logged);
    tcase_add_test(tc, no_map_no_history_and_no_allocation_in_steps);
    suite_add_tcase(s, tc);
    return th_test_run(s);
}
