/* The judges of `throng verify` (app/verify_judge.c) on results made up to pass and to fail:
 * each judge passes what meets its criterion and fails a result that misses any one part of
 * it, so no judge passes by construction. The figures near the limits are worked out by hand
 * from the criteria in docs/verification.md. */
#include <check.h>
#include <math.h>

#include "app/verify_judge.h"
#include "app/verify_stats.h"
#include "test_util.h"

START_TEST(door_judge_fails_a_fast_door_and_a_crowd_left_behind) {
    const th_vj_door ok = {.n = 100, .out = 100, .flow = 1.33, .limit = 1.33};
    ck_assert(th_vj_door_pass(&ok));
    th_vj_door d = ok;
    d.flow = 1.34;
    ck_assert(!th_vj_door_pass(&d)); /* the free 1 m door of experiments, 1.7-2.0, fails */
    d = ok;
    d.out = 99;
    ck_assert(!th_vj_door_pass(&d));
    d = ok;
    d.flow = NAN; /* fewer than two out: no flow */
    ck_assert(!th_vj_door_pass(&d));
}
END_TEST

START_TEST(rimea12_judge_fails_each_missing_part) {
    const th_vj_rimea12 ok = {.n = 150,
                              .out = 150,
                              .before = 2.0,
                              .after = 0.8,
                              .exit_front = 0.5,
                              .j_corridor = 1.6,
                              .j_exit = 1.56};
    ck_assert(th_vj_rimea12_pass(&ok));
    th_vj_rimea12 r = ok;
    r.before = 1.0; /* no queue before the corridor: walkers at LoS D */
    ck_assert(!th_vj_rimea12_pass(&r));
    r = ok;
    r.after = 1.2; /* a queue after it */
    ck_assert(!th_vj_rimea12_pass(&r));
    r = ok;
    r.exit_front = 1.5; /* a queue at the last exit */
    ck_assert(!th_vj_rimea12_pass(&r));
    r = ok;
    r.j_exit = 1.5; /* the last exit does not keep up: 1.5 < 1.6 - 0.05 */
    ck_assert(!th_vj_rimea12_pass(&r));
    r = ok;
    r.out = 149;
    ck_assert(!th_vj_rimea12_pass(&r));
    r = ok;
    r.j_corridor = NAN;
    ck_assert(!th_vj_rimea12_pass(&r));
    /* The test as JuPedSim's version reads it (corridor flow at least the exit's) passes a last
     * exit that lags; this judge does not. */
    r = ok;
    r.j_exit = 1.2;
    ck_assert(r.j_corridor >= r.j_exit - 0.05 && !th_vj_rimea12_pass(&r));
}
END_TEST

START_TEST(congestion_judge_fails_a_free_stair_or_an_unsettled_flow) {
    const th_vj_congestion ok = {.n = 100,
                                 .out = 100,
                                 .room_exit = 2.5,
                                 .middle = 1.5,
                                 .stair_foot = 2.8,
                                 .j_early = 1.2,
                                 .j_late = 1.1};
    ck_assert(th_vj_congestion_pass(&ok));
    th_vj_congestion c = ok;
    c.stair_foot = 0.9; /* the stair takes them as fast as they come: no queue at its foot */
    ck_assert(!th_vj_congestion_pass(&c));
    c = ok;
    c.room_exit = 1.0; /* none at the room's exit */
    ck_assert(!th_vj_congestion_pass(&c));
    c = ok;
    c.j_late = 0.8; /* 1.2 then 0.8: 40 % apart, not a settled flow */
    ck_assert(!th_vj_congestion_pass(&c));
    c = ok;
    c.out = 97;
    ck_assert(!th_vj_congestion_pass(&c));
    c = ok;
    c.middle = 3.0; /* the queue reaching back through the corridor is allowed: not judged */
    ck_assert(th_vj_congestion_pass(&c));
}
END_TEST

START_TEST(iso13_judge_fails_a_diagram_off_the_input) {
    /* On Weidmann's curve: passes at every density. */
    for (double rho = 0.5; rho <= 6.0; rho += 0.5)
        ck_assert_msg(th_vj_iso13_point(rho, th_vs_weidmann_speed(rho)), "rho %g", rho);
    /* At 1 /m2 Weidmann gives 1.11 m/s (docs/verification.md): 25 % fast fails, 15 % passes. */
    const double w1 = th_vs_weidmann_speed(1.0);
    ck_assert(!th_vj_iso13_point(1.0, 1.25 * w1) && th_vj_iso13_point(1.0, 1.15 * w1));
    /* Near jam density 0.1 m/s is the wider margin: 0.12 m/s off fails, 0.08 passes. */
    const double w4 = th_vs_weidmann_speed(4.0);
    ck_assert(!th_vj_iso13_point(4.0, w4 + 0.12) && th_vj_iso13_point(4.0, w4 + 0.08));
    /* A model that keeps walking at its free speed whatever the density fails from 1 /m2. */
    ck_assert(!th_vj_iso13_point(1.0, 1.34) && !th_vj_iso13_point(3.0, 1.34));
    ck_assert(!th_vj_iso13_point(2.0, NAN));
}
END_TEST

START_TEST(impaired_judge_fails_a_crowd_held_back_and_a_slow_walker_too_fast) {
    /* 19.5 m at 0.5 m/s: 39 s; the control run empties in 31 s. */
    const th_vj_impaired ok = {
        .walk = 39.0, .t_slow = 40.5, .others_with = 30.0, .others_alone = 29.5, .t_control = 31.0};
    ck_assert(th_vj_impaired_pass(&ok));
    th_vj_impaired d = ok;
    d.others_with = 45.0; /* the others stuck behind the slow walker */
    ck_assert(!th_vj_impaired_pass(&d));
    d = ok;
    d.others_with = 40.6; /* out just after it, not past it: held back all the way */
    ck_assert(!th_vj_impaired_pass(&d));
    d = ok;
    d.t_slow = 37.0; /* faster than its free speed allows */
    ck_assert(!th_vj_impaired_pass(&d));
    d = ok;
    d.t_slow = 44.0; /* held up by 13 %: more than 10 % over its own walk */
    ck_assert(!th_vj_impaired_pass(&d));
    d = ok;
    d.walk = 20.0, d.t_slow = 21.0; /* a slow walker that changes nothing: not longer */
    ck_assert(!th_vj_impaired_pass(&d));
    d = ok;
    d.t_slow = NAN; /* never out */
    ck_assert(!th_vj_impaired_pass(&d));
}
END_TEST

START_TEST(social_judge_fails_switches_either_way_or_too_few) {
    double p;
    ck_assert(th_vj_social_pass(41, 0, &p) && p < 1e-12);
    /* Five switches all one way: 1/32 = 0.031 passes; four: 1/16 = 0.0625 does not. */
    ck_assert(th_vj_social_pass(5, 0, &p) && fabs(p - 1.0 / 32) < 1e-12);
    ck_assert(!th_vj_social_pass(4, 0, &p) && fabs(p - 1.0 / 16) < 1e-12);
    ck_assert(!th_vj_social_pass(10, 10, &p)); /* switches both ways alike: no influence */
    ck_assert(!th_vj_social_pass(0, 12, &p));  /* away from the allocated exit */
    ck_assert(!th_vj_social_pass(0, 0, &p));   /* nobody changed: no influence shown */
}
END_TEST

START_TEST(affiliation_judge_fails_an_unbalanced_or_unpreferring_crowd) {
    double p;
    ck_assert(th_vj_affiliation_pass(391, 409, 145, 655, &p) && p < 1e-50);
    ck_assert(!th_vj_affiliation_pass(350, 450, 145, 655, &p)); /* 50/50 off by 12.5 % */
    /* 20/80 with 420 of 800 east: p = 0.087 (normal approximation: z = 1.41), not preferred. */
    ck_assert(!th_vj_affiliation_pass(400, 400, 380, 420, &p) && p > 0.05 && p < 0.1);
    ck_assert(!th_vj_affiliation_pass(0, 0, 145, 655, &p));
}
END_TEST

int main(void) {
    Suite *s = suite_create("verify_judge");
    TCase *t = tcase_create("judges");
    tcase_add_test(t, door_judge_fails_a_fast_door_and_a_crowd_left_behind);
    tcase_add_test(t, rimea12_judge_fails_each_missing_part);
    tcase_add_test(t, congestion_judge_fails_a_free_stair_or_an_unsettled_flow);
    tcase_add_test(t, iso13_judge_fails_a_diagram_off_the_input);
    tcase_add_test(t, impaired_judge_fails_a_crowd_held_back_and_a_slow_walker_too_fast);
    tcase_add_test(t, social_judge_fails_switches_either_way_or_too_few);
    tcase_add_test(t, affiliation_judge_fails_an_unbalanced_or_unpreferring_crowd);
    suite_add_tcase(s, t);
    return th_test_run(s);
}
