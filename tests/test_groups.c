/* Groups of walkers that keep together (sim/behave/group.c, docs/goals.md "Groups"):
 *   - a group of four fast walkers and a slow one walks at the slow one's pace, its stretch held
 *     within twice its spread, on a route goal (distance along the heading) and on a shelter
 *     goal (route cost), where it arrives within a few seconds, against more than 20 s apart
 *     without the group;
 *   - once the slow member has left, the others walk at their own speed again;
 *   - the waiting count: exactly the members more than the spread ahead of the last one;
 *   - th_world_get_group; the same hash on 1, 2, 3 and 8 threads; bad groups refused. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "throng/throng.h"

static th_crowd_id walkers(th_world *w, float speed, const th_goal_def *goal, bool flee) {
    th_crowd_def cd = th_default_pedestrian_def();
    cd.desired_speed = speed;
    cd.desired_speed_sd = 0;
    if (goal) cd.goal = *goal;
    if (flee) cd.behavior = TH_BEHAVIOR_FLEE;
    th_error err;
    th_crowd_id c = th_world_add_crowd(w, &cd, &err);
    ck_assert_msg(c.index1, "%s", err.message);
    return c;
}

/* A corridor 200 m x 6 m: four walkers at 1.3 m/s and one at 0.6 m/s, east along a route. */
static th_world *corridor(uint32_t threads, bool grouped, th_agent_id *ids) {
    th_world_def wd = th_default_world_def();
    wd.width = 200;
    wd.height = 6;
    wd.threads = threads;
    th_error err;
    th_world *w = th_world_create(&wd, &err);
    static const th_vec2 end = {199, 3};
    const th_goal_def g = {.kind = TH_GOAL_ROUTE, .points = &end, .point_count = 1};
    th_crowd_id fast = walkers(w, 1.3f, &g, false), slow = walkers(w, 0.6f, &g, false);
    for (int i = 0; i < 4; i++)
        ids[i] = th_world_add_agent(w, fast, th_v2(5.0f + (float)(i % 2), 2.0f + (float)(i / 2)),
                                    th_v2(0, 0), &err);
    ids[4] = th_world_add_agent(w, slow, th_v2(4.0f, 3.0f), th_v2(0, 0), &err);
    if (grouped) {
        const th_group_def gd = {ids, 5, 1.5f};
        ck_assert_msg(th_world_add_group(w, &gd, &err).index1 == 1, "%s", err.message);
    }
    return w;
}

START_TEST(a_group_walks_at_its_slowest_pace) {
    th_agent_id ids[5];
    th_world *w = corridor(2, true, ids);
    for (int s = 0; s < 60 * 60; s++) {
        th_world_step(w);
        th_group_info gi;
        ck_assert(th_world_get_group(w, (th_group_id){1}, &gi));
        ck_assert_msg(s < 120 || gi.stretch <= 2 * 1.5f + 1.0f, "stretch %g m at step %d",
                      (double)gi.stretch, s);
    }
    th_agent_state a;
    ck_assert(th_world_get_agent(w, ids[4], &a));
    const float slow_x = a.position.x;
    ck_assert_msg(fabsf(slow_x - (4.0f + 0.6f * 60.0f)) < 1.0f, "slow one at x %g", (double)slow_x);
    for (int i = 0; i < 4; i++) {
        ck_assert(th_world_get_agent(w, ids[i], &a));
        ck_assert_msg(a.position.x - slow_x < 3.5f && a.position.x - slow_x > -0.5f,
                      "walker %d at x %g, the slow one at %g", i, (double)a.position.x,
                      (double)slow_x);
    }
    th_group_info gi;
    ck_assert(th_world_get_group(w, (th_group_id){1}, &gi));
    ck_assert(gi.members == 5 && gi.present == 5 && gi.waiting >= 1);
    /* Without the slow one, the rest walk at their own speed again. */
    th_error err;
    ck_assert(th_world_remove_agent(w, ids[4], &err));
    float x0[4];
    for (int i = 0; i < 4; i++) {
        ck_assert(th_world_get_agent(w, ids[i], &a));
        x0[i] = a.position.x;
    }
    for (int s = 0; s < 10 * 60; s++) th_world_step(w);
    for (int i = 0; i < 4; i++) {
        ck_assert(th_world_get_agent(w, ids[i], &a));
        ck_assert_msg(a.position.x - x0[i] > 11.0f, "walker %d made %g m in 10 s", i,
                      (double)(a.position.x - x0[i]));
    }
    ck_assert(th_world_get_group(w, (th_group_id){1}, &gi));
    ck_assert_uint_eq(gi.present, 4);
    /* Apart, the fast ones leave the slow one behind. */
    th_world_destroy(w);
    w = corridor(2, false, ids);
    for (int s = 0; s < 30 * 60; s++) th_world_step(w);
    th_agent_state f, sl;
    ck_assert(th_world_get_agent(w, ids[0], &f) && th_world_get_agent(w, ids[4], &sl));
    ck_assert_msg(f.position.x - sl.position.x > 15.0f, "apart: %g m",
                  (double)(f.position.x - sl.position.x));
    th_world_destroy(w);
}
END_TEST

/* Fleeing to a bunker 40 m away: the group's arrival times lie within a few seconds. */
static double arrival_spread(bool grouped) {
    th_world_def wd = th_default_world_def();
    wd.width = 50;
    wd.height = 10;
    wd.cell_size = 0.5f;
    th_error err;
    th_world *w = th_world_create(&wd, &err);
    const th_bunker_def bd = {.name = "door", .x0 = 96, .y0 = 8, .x1 = 98, .y1 = 11};
    ck_assert_msg(th_world_add_bunker(w, &bd, &err).index1 == 1, "%s", err.message);
    th_crowd_id fast = walkers(w, 1.3f, NULL, true), slow = walkers(w, 0.6f, NULL, true);
    th_agent_id ids[5];
    for (int i = 0; i < 4; i++)
        ids[i] = th_world_add_agent(w, fast, th_v2(5.0f + (float)(i % 2), 4.0f + (float)(i / 2)),
                                    th_v2(0, 0), &err);
    ids[4] = th_world_add_agent(w, slow, th_v2(4.0f, 5.0f), th_v2(0, 0), &err);
    if (grouped) {
        const th_group_def gd = {ids, 5, 0};
        ck_assert_msg(th_world_add_group(w, &gd, &err).index1 == 1, "%s", err.message);
    }
    double out[5] = {0};
    for (int s = 1; s <= 120 * 60; s++) {
        th_world_step(w);
        for (int i = 0; i < 5; i++) {
            th_agent_state a;
            if (out[i] == 0 && !th_world_get_agent(w, ids[i], &a)) out[i] = s / 60.0;
        }
    }
    double lo = INFINITY, hi = 0;
    for (int i = 0; i < 5; i++) {
        ck_assert_msg(out[i] > 0, "member %d never arrived", i);
        lo = fmin(lo, out[i]);
        hi = fmax(hi, out[i]);
    }
    th_world_destroy(w);
    return hi - lo;
}

/* Six members of a group (spread 1.5 m) fleeing east down a corridor to a shelter that spans it,
 * so that each one's remaining route cost falls by a metre per metre east: those more than the
 * spread ahead of the last member are slowed for it, the others walk freely. Counted here from
 * where they stand, in the first step: 3 of 6 (one slowed, two brought to a stand). */
START_TEST(the_waiting_count_is_those_ahead_of_the_spread) {
    th_world *w = th_test_metre_world(1, 3, 30, 6);
    th_error err;
    for (int32_t x = 0; x < 30; x++) {
        ck_assert(th_world_set_cell(w, x, 0, TH_CELL_WALL, 0, &err));
        ck_assert(th_world_set_cell(w, x, 5, TH_CELL_WALL, 0, &err));
    }
    const th_bunker_def b = {.name = "east", .x0 = 27, .y0 = 1, .x1 = 28, .y1 = 4};
    ck_assert_msg(th_world_add_bunker(w, &b, &err).index1 == 1, "%s", err.message);
    const th_crowd_id c = walkers(w, 1.2f, NULL, true);
    const float xs[6] = {12.2f, 10.0f, 16.0f, 10.5f, 13.4f, 11.0f};
    const float spread = 1.5f;
    th_agent_id ids[6];
    uint32_t want = 0;
    for (int i = 0; i < 6; i++) {
        ids[i] = th_world_add_agent(w, c, th_v2(xs[i], 1.5f + 0.6f * (float)i), th_v2(0, 0), &err);
        ck_assert_msg(ids[i].index1 != 0, "%s", err.message);
        want += xs[i] - 10.0f > spread;
    }
    const th_group_def gd = {ids, 6, spread};
    ck_assert_msg(th_world_add_group(w, &gd, &err).index1 == 1, "%s", err.message);
    th_world_step(w);
    th_group_info gi;
    ck_assert(th_world_get_group(w, (th_group_id){1}, &gi));
    ck_assert_uint_eq(want, 3);
    ck_assert_msg(gi.waiting == want, "%u waiting, %u more than the spread ahead", gi.waiting,
                  want);
    ck_assert_msg(fabsf(gi.stretch - 6.0f) < 0.1f, "stretch %g m, 6 m between the last and first",
                  (double)gi.stretch);
    th_world_destroy(w);
}
END_TEST

START_TEST(a_group_arrives_together) {
    const double together = arrival_spread(true), apart = arrival_spread(false);
    ck_assert_msg(together < 6.0, "grouped: arrivals %g s apart", together);
    ck_assert_msg(apart > 20.0, "apart: arrivals only %g s apart", apart);
}
END_TEST

static uint64_t groups_hash(uint32_t threads) {
    th_world_def wd = th_default_world_def();
    wd.width = 80;
    wd.height = 40;
    wd.threads = threads;
    wd.seed = 4;
    th_error err;
    th_world *w = th_world_create(&wd, &err);
    static const th_vec2 end = {78, 20};
    const th_goal_def g = {.kind = TH_GOAL_ROUTE, .points = &end, .point_count = 1};
    th_crowd_def cd = th_default_pedestrian_def();
    cd.goal = g;
    th_crowd_id c = th_world_add_crowd(w, &cd, &err);
    th_agent_id ids[400];
    for (int i = 0; i < 400; i++)
        ids[i] = th_world_add_agent(
            w, c, th_v2(2.0f + 0.9f * (float)(i % 20), 2.0f + 0.9f * (float)(i / 20)), th_v2(0, 0),
            &err);
    for (int i = 0; i + 4 <= 400; i += 4) {
        const th_group_def gd = {&ids[i], 2 + (uint32_t)(i / 4) % 3, 1.0f};
        ck_assert_msg(th_world_add_group(w, &gd, &err).index1, "%s", err.message);
    }
    for (int s = 0; s < th_test_steps(20 * 60); s++) th_world_step(w);
    const uint64_t h = th_world_hash(w);
    th_world_destroy(w);
    return h;
}

START_TEST(same_hash_on_1_2_3_8_threads) {
    const uint64_t h1 = groups_hash(1);
    ck_assert(groups_hash(2) == h1);
    ck_assert(groups_hash(3) == h1);
    ck_assert(groups_hash(8) == h1);
}
END_TEST

START_TEST(bad_groups_are_refused) {
    th_world_def wd = th_default_world_def();
    th_error err;
    th_world *w = th_world_create(&wd, &err);
    th_crowd_id p = walkers(w, 1.3f, NULL, false);
    th_crowd_def bd = th_default_crowd_def();
    th_crowd_id b = th_world_add_crowd(w, &bd, &err);
    th_agent_id ids[40];
    for (int i = 0; i < 40; i++)
        ids[i] = th_world_add_agent(w, p, th_v2(5.0f + (float)i, 5.0f), th_v2(0, 0), &err);
    th_agent_id boid = th_world_add_agent(w, b, th_v2(5, 20), th_v2(0, 0), &err);
    const th_agent_id with_boid[2] = {ids[0], boid}, twice[2] = {ids[0], ids[0]},
                      ghost[2] = {ids[0], {77, 1}};
    const struct {
        th_group_def d;
        const char *says;
    } bad[] = {
        {{ids, 1, 0}, "2 to"},      {{ids, 33, 0}, "2 to"},      {{with_boid, 2, 0}, "pedestrian"},
        {{twice, 2, 0}, "repeats"}, {{ghost, 2, 0}, "no agent"}, {{ids, 2, -1}, "spread"},
        {{ids, 2, 51}, "spread"},   {{NULL, 2, 0}, "null"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_msg(!th_world_add_group(w, &bad[i].d, &err).index1, "case %zu accepted", i);
        ck_assert_msg(strstr(err.message, bad[i].says), "case %zu: %s", i, err.message);
    }
    const th_group_def ok = {ids, 3, 0};
    ck_assert(th_world_add_group(w, &ok, &err).index1 == 1);
    const th_group_def again = {&ids[2], 2, 0};
    ck_assert(!th_world_add_group(w, &again, &err).index1);
    ck_assert_msg(strstr(err.message, "already in group 0"), "%s", err.message);
    ck_assert_uint_eq(th_world_group_count(w), 1);
    th_group_info gi;
    ck_assert(!th_world_get_group(w, (th_group_id){2}, &gi));
    th_world_destroy(w);
}
END_TEST

int main(void) {
    Suite *s = suite_create("groups");
    TCase *tc = tcase_create("groups");
    tcase_set_timeout(tc, 180);
    /* Under ThreadSanitizer not the walks to the end of the corridor nor the one-thread count
     * of those waiting: five walkers, whose passes the hash test runs on 2, 3 and 8 threads with
     * 400. */
    if (!TH_TEST_TSAN) tcase_add_test(tc, a_group_walks_at_its_slowest_pace);
    if (!TH_TEST_TSAN) tcase_add_test(tc, the_waiting_count_is_those_ahead_of_the_spread);
    if (!TH_TEST_TSAN) tcase_add_test(tc, a_group_arrives_together);
    tcase_add_test(tc, same_hash_on_1_2_3_8_threads);
    tcase_add_test(tc, bad_groups_are_refused);
    suite_add_tcase(s, tc);
    return th_test_run(s);
}
