/* Exit choice (sim/behave/choice.c, docs/goals.md "Exit choice"): which bunker each agent of a
 * fleeing crowd walks to.
 *   - weights alone: the shares of 3000 agents' choices against the normalised weights
 *     (within 4 binomial standard deviations), a weight of 0 never chosen;
 *   - social influence: 600 observers, each beside its own group of n agents allocated to the
 *     east exit, choose east with probability w (1 + s n) / (w (1 + s n) + (1 - w)), computed
 *     here, for n = 0, 1 and 3; choices of one pass unseen within it, in either storage order;
 *   - agents walk to their own exit, not the nearest, and are not judged stalled while the
 *     nearest exit falls behind them; while their exit is destroyed they walk to the nearest
 *     open one;
 *   - th_world_set_agent_exit and th_agent_state.exit; the same hash on 1, 2, 3 and 8 threads;
 *     bad choices refused with a reason. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "throng/throng.h"

/* A W x H open map (walled edges) with two bunkers 2 x 2 cells: west at the middle of the
 * west edge, east at the middle of the east edge (1 m cells). */
static th_world *two_exits(int32_t W, int32_t H, uint32_t threads, uint64_t seed, th_error *err) {
    th_world_def wd = th_default_world_def();
    wd.width = (float)W;
    wd.height = (float)H;
    wd.cell_size = 1.0f;
    wd.threads = threads;
    wd.seed = seed;
    wd.stall_time = 2.0f;
    th_world *w = th_world_create(&wd, err);
    ck_assert_msg(w != NULL, "%s", err->message);
    th_bunker_def west = {.name = "west", .x0 = 1, .y0 = H / 2 - 1, .x1 = 2, .y1 = H / 2};
    th_bunker_def east = {.name = "east", .x0 = W - 3, .y0 = H / 2 - 1, .x1 = W - 2, .y1 = H / 2};
    ck_assert_msg(th_world_add_bunker(w, &west, err).index1 == 1, "%s", err->message);
    ck_assert_msg(th_world_add_bunker(w, &east, err).index1 == 2, "%s", err->message);
    return w;
}

static th_crowd_id fleeing(th_world *w, const float *weights, uint32_t n, float social,
                           float pre_s) {
    static const th_bunker_id ids[2] = {{1}, {2}};
    th_crowd_def cd = th_default_pedestrian_def();
    cd.behavior = TH_BEHAVIOR_FLEE;
    cd.exit_choice.bunkers = n ? ids : NULL;
    cd.exit_choice.weights = weights;
    cd.exit_choice.count = n;
    cd.exit_choice.social = social;
    if (pre_s > 0) cd.pre_movement = (th_distribution){TH_DISTRIB_CONSTANT, pre_s, 0, 0, 0};
    th_error err;
    th_crowd_id c = th_world_add_crowd(w, &cd, &err);
    ck_assert_msg(c.index1 != 0, "%s", err.message);
    return c;
}

static uint32_t exit_of(const th_world *w, th_agent_id id) {
    th_agent_state a;
    ck_assert(th_world_get_agent(w, id, &a));
    return a.exit.index1;
}

START_TEST(weights_give_the_shares) {
    th_error err;
    th_world *w = two_exits(200, 40, 2, 9, &err);
    const float weights[2] = {1.0f, 3.0f};
    th_crowd_id c = fleeing(w, weights, 2, 0.0f, 0);
    const float none[2] = {0.0f, 2.0f};
    th_crowd_id z = fleeing(w, none, 2, 0.0f, 0);
    enum { N = 3000 };
    static th_agent_id ids[N], zs[100];
    for (int i = 0; i < N; i++)
        ids[i] = th_world_add_agent(w, c, th_v2(10.5f + (float)(i % 150), 5.5f + (float)(i / 150)),
                                    th_v2(0, 0), &err);
    for (int i = 0; i < 100; i++)
        zs[i] = th_world_add_agent(w, z, th_v2(10.5f + (float)i, 30.5f), th_v2(0, 0), &err);
    uint32_t east = 0;
    for (int i = 0; i < N; i++) {
        const uint32_t e = exit_of(w, ids[i]);
        ck_assert_msg(e == 1 || e == 2, "agent %d: exit %u", i, e);
        east += e == 2;
    }
    const double sd = sqrt(N * 0.75 * 0.25);
    ck_assert_msg(fabs(east - 0.75 * N) < 4 * sd, "%u of %d east, expected %g", east, N, 0.75 * N);
    for (int i = 0; i < 100; i++) ck_assert_uint_eq(exit_of(w, zs[i]), 2);
    th_world_destroy(w);
}
END_TEST

/* 600 observers with no preference (1/1) and social influence 0.5, each 20 m from the next,
 * standing 2 m from its own n agents allocated to the east exit. The observers start after
 * 1 s, when the allocated agents have chosen. */
static void social_share(uint32_t n) {
    enum { COLS = 30, ROWS = 20 };
    th_error err;
    th_world *w = two_exits(COLS * 20 + 20, ROWS * 20 + 10, 2, 17 + n, &err);
    const float even[2] = {1.0f, 1.0f}, east_only[2] = {0.0f, 1.0f};
    th_crowd_id obs = fleeing(w, even, 2, 0.5f, 1.0f);
    th_crowd_id alloc = fleeing(w, east_only, 2, 0.5f, 0);
    static th_agent_id ids[COLS * ROWS];
    for (int i = 0; i < COLS * ROWS; i++) {
        const float x = 15.5f + 20.0f * (float)(i % COLS), y = 8.5f + 20.0f * (float)(i / COLS);
        ids[i] = th_world_add_agent(w, obs, th_v2(x, y), th_v2(0, 0), &err);
        for (uint32_t j = 0; j < n; j++)
            th_world_add_agent(w, alloc, th_v2(x + 2.0f, y - 1.0f + (float)j), th_v2(0, 0), &err);
    }
    for (int s = 0; s < 90; s++) th_world_step(w);
    uint32_t east = 0;
    for (int i = 0; i < COLS * ROWS; i++) {
        const uint32_t e = exit_of(w, ids[i]);
        ck_assert_msg(e == 1 || e == 2, "observer %d: exit %u after its start", i, e);
        east += e == 2;
    }
    const double p = 0.5 * (1 + 0.5 * n) / (0.5 * (1 + 0.5 * n) + 0.5);
    const double sd = sqrt(COLS * ROWS * p * (1 - p));
    ck_assert_msg(fabs(east - p * COLS * ROWS) < 4 * sd, "n %u: %u of %d east, expected %g", n,
                  east, COLS * ROWS, p * COLS * ROWS);
    th_world_destroy(w);
}

START_TEST(social_influence_follows_the_formula) {
    social_share(0);
    social_share(1);
    social_share(3);
}
END_TEST

/* Agents near the west exit allocated east walk east, unstalled; destroyed, they turn west. */
START_TEST(agents_walk_to_their_own_exit) {
    th_error err;
    th_world *w = two_exits(60, 12, 2, 3, &err);
    const float east_only[2] = {0.0f, 1.0f};
    th_crowd_id c = fleeing(w, east_only, 2, 0.5f, 0);
    th_agent_id ids[10];
    for (int i = 0; i < 10; i++)
        ids[i] = th_world_add_agent(w, c, th_v2(8.5f + (float)i, 3.5f + (float)(i % 2) * 4.0f),
                                    th_v2(0, 0), &err);
    for (int s = 0; s < 8 * 60; s++) {
        th_world_step(w);
        th_stall_info si;
        ck_assert(th_world_get_stall_info(w, &si));
        ck_assert_msg(si.stalled == 0, "%u stalled at step %d", si.stalled, s);
    }
    for (int i = 0; i < 10; i++) {
        th_agent_state a;
        ck_assert(th_world_get_agent(w, ids[i], &a));
        ck_assert_msg(a.position.x > 12.0f + (float)i, "agent %d at x %g: not walking east", i,
                      (double)a.position.x);
        ck_assert_uint_eq(a.exit.index1, 2);
    }
    ck_assert_msg(th_world_destroy_bunker(w, (th_bunker_id){2}, &err), "%s", err.message);
    for (int s = 0; s < 60 * 60; s++) th_world_step(w);
    th_bunker_info b;
    ck_assert(th_world_get_bunker(w, (th_bunker_id){1}, &b));
    ck_assert_msg(b.sheltered == 10, "%u sheltered west after the east exit was destroyed",
                  b.sheltered);
    th_world_destroy(w);
}
END_TEST

/* Choices made in one decision pass are not seen by the agents after them in the same pass: 200
 * agents packed within each other's social radius, all choosing in the first step, see nobody
 * heading anywhere yet, so each draws by the weights alone, as the same agents (same ids, same
 * seed) of a crowd without social influence drew when added; and the same holds with the agents
 * added in the reverse order of places, so the choice of each id does not depend on where it
 * stands in storage. */
START_TEST(choices_of_one_pass_are_not_seen_within_it) {
    enum { N = 200 };
    const float even[2] = {1.0f, 1.0f};
    uint32_t want[N], got[N];
    for (int run = 0; run < 3; run++) {
        th_error err;
        th_world *w = two_exits(60, 30, 1, 21, &err);
        th_crowd_id c = fleeing(w, even, 2, run == 0 ? 0.0f : 2.0f, 0);
        th_agent_id ids[N];
        for (int i = 0; i < N; i++) {
            const int at = run == 2 ? N - 1 - i : i;
            ids[i] = th_world_add_agent(
                w, c, th_v2(25.3f + 0.6f * (float)(at % 14), 10.3f + 0.6f * (float)(at / 14)),
                th_v2(0, 0), &err);
            ck_assert_msg(ids[i].index1 != 0, "%s", err.message);
        }
        if (run > 0) th_world_step(w);
        for (int i = 0; i < N; i++) (run == 0 ? want : got)[i] = exit_of(w, ids[i]);
        th_world_destroy(w);
        if (run == 0) continue;
        uint32_t differ = 0, east = 0;
        for (int i = 0; i < N; i++) {
            differ += got[i] != want[i];
            east += want[i] == 2;
        }
        ck_assert_msg(east > N / 4 && east < 3 * N / 4, "%u of %d east by the weights", east, N);
        ck_assert_msg(differ == 0, "%s: %u of %d agents chose otherwise than by the weights alone",
                      run == 1 ? "in order" : "reversed", differ, N);
    }
}
END_TEST

START_TEST(one_agent_sent_by_hand) {
    th_error err;
    th_world *w = two_exits(60, 12, 1, 3, &err);
    th_crowd_id c = fleeing(w, NULL, 0, 0.5f, 0);
    th_crowd_def flock = th_default_pedestrian_def();
    th_crowd_id f = th_world_add_crowd(w, &flock, &err);
    th_agent_id a = th_world_add_agent(w, c, th_v2(8.5f, 5.5f), th_v2(0, 0), &err);
    th_agent_id b = th_world_add_agent(w, c, th_v2(9.5f, 5.5f), th_v2(0, 0), &err);
    th_agent_id q = th_world_add_agent(w, f, th_v2(20.5f, 5.5f), th_v2(0, 0), &err);
    ck_assert_uint_eq(exit_of(w, a), 0); /* the nearest */
    ck_assert_msg(th_world_set_agent_exit(w, a, (th_bunker_id){2}, &err), "%s", err.message);
    ck_assert_uint_eq(exit_of(w, a), 2);
    ck_assert(!th_world_set_agent_exit(w, q, (th_bunker_id){2}, &err));
    ck_assert_int_eq(err.code, TH_ERR_STATE);
    ck_assert(!th_world_set_agent_exit(w, a, (th_bunker_id){3}, &err));
    ck_assert_int_eq(err.code, TH_ERR_HANDLE);
    ck_assert(!th_world_set_agent_exit(w, (th_agent_id){99, 1}, (th_bunker_id){1}, &err));
    ck_assert_int_eq(err.code, TH_ERR_HANDLE);
    for (int s = 0; s < 60 * 60; s++) th_world_step(w);
    th_bunker_info bi;
    ck_assert(th_world_get_bunker(w, (th_bunker_id){2}, &bi));
    ck_assert_uint_eq(bi.sheltered, 1); /* a, sent east */
    ck_assert(th_world_get_bunker(w, (th_bunker_id){1}, &bi));
    ck_assert_uint_eq(bi.sheltered, 1); /* b, the nearest */
    (void)b;
    th_world_destroy(w);
}
END_TEST

static uint64_t choosing_hash(uint32_t threads) {
    th_error err;
    th_world *w = two_exits(60, 30, threads, 5, &err);
    const float even[2] = {1.0f, 1.0f};
    th_crowd_def cd = th_default_pedestrian_def();
    cd.behavior = TH_BEHAVIOR_FLEE;
    static const th_bunker_id ids[2] = {{1}, {2}};
    cd.exit_choice = (th_exit_choice){ids, even, 2, 1.0f, 6.0f};
    cd.pre_movement = (th_distribution){TH_DISTRIB_UNIFORM, 0, 8, 0, 0};
    th_crowd_id c = th_world_add_crowd(w, &cd, &err);
    ck_assert_msg(c.index1, "%s", err.message);
    for (int i = 0; i < 300; i++)
        th_world_add_agent(w, c, th_v2(20.5f + (float)(i % 20), 5.5f + (float)(i / 20)),
                           th_v2(0, 0), &err);
    for (int s = 0; s < 12 * 60; s++) th_world_step(w);
    const uint64_t h = th_world_hash(w);
    th_world_destroy(w);
    return h;
}

START_TEST(same_hash_on_1_2_3_8_threads) {
    const uint64_t h1 = choosing_hash(1);
    ck_assert(choosing_hash(2) == h1);
    ck_assert(choosing_hash(3) == h1);
    ck_assert(choosing_hash(8) == h1);
}
END_TEST

START_TEST(bad_choices_are_refused) {
    th_error err;
    th_world *w = two_exits(30, 12, 1, 1, &err);
    static const th_bunker_id ids[3] = {{1}, {2}, {7}}, twice[2] = {{1}, {1}};
    const float wt[3] = {1, 1, 1}, zero[2] = {0, 0}, neg[2] = {1, -1};
    const struct {
        th_exit_choice x;
        th_behavior behavior;
        const char *says;
    } bad[] = {
        {{ids, wt, 2, 0.5f, 5}, TH_BEHAVIOR_FLOCK, "fleeing"},
        {{ids, wt, 3, 0.5f, 5}, TH_BEHAVIOR_FLEE, "no bunker"},
        {{twice, wt, 2, 0.5f, 5}, TH_BEHAVIOR_FLEE, "twice"},
        {{ids, zero, 2, 0.5f, 5}, TH_BEHAVIOR_FLEE, "every weight is 0"},
        {{ids, neg, 2, 0.5f, 5}, TH_BEHAVIOR_FLEE, "weight"},
        {{ids, wt, 2, -1, 5}, TH_BEHAVIOR_FLEE, "social"},
        {{ids, wt, 2, 0.5f, 0}, TH_BEHAVIOR_FLEE, "social_radius"},
        {{NULL, wt, 2, 0.5f, 5}, TH_BEHAVIOR_FLEE, "without"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        th_crowd_def cd = th_default_pedestrian_def();
        cd.behavior = bad[i].behavior;
        cd.exit_choice = bad[i].x;
        ck_assert_msg(th_world_add_crowd(w, &cd, &err).index1 == 0, "case %zu accepted", i);
        ck_assert_msg(strstr(err.message, bad[i].says), "case %zu: %s", i, err.message);
    }
    ck_assert_uint_eq(th_world_crowd_count(w), 0);
    /* The world keeps its own copy: the def read back points at it. */
    float mine[2] = {2, 1};
    th_crowd_def cd = th_default_pedestrian_def();
    cd.behavior = TH_BEHAVIOR_FLEE;
    cd.exit_choice = (th_exit_choice){ids, mine, 2, 0.5f, 5};
    ck_assert(th_world_add_crowd(w, &cd, &err).index1 == 1);
    mine[0] = 99;
    const th_crowd_def *back = th_world_get_crowd(w, (th_crowd_id){1});
    ck_assert(back->exit_choice.count == 2 && back->exit_choice.weights[0] == 2.0f);
    ck_assert(back->exit_choice.weights != mine && back->exit_choice.bunkers[1].index1 == 2);
    th_world_destroy(w);
}
END_TEST

int main(void) {
    Suite *s = suite_create("exit_choice");
    TCase *tc = tcase_create("exit_choice");
    tcase_set_timeout(tc, 180);
    tcase_add_test(tc, weights_give_the_shares);
    tcase_add_test(tc, social_influence_follows_the_formula);
    tcase_add_test(tc, choices_of_one_pass_are_not_seen_within_it);
    tcase_add_test(tc, agents_walk_to_their_own_exit);
    tcase_add_test(tc, one_agent_sent_by_hand);
    tcase_add_test(tc, same_hash_on_1_2_3_8_threads);
    tcase_add_test(tc, bad_choices_are_refused);
    suite_add_tcase(s, tc);
    return th_test_run(s);
}
