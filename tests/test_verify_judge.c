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

/* RiMEA 16: samples of speed-density curve v(rho), 1000 evenly spaced densities per 0.2 /m bin
 * from the first bin's lower edge to 2.0989 persons/m (10 bins), binned into r. */
static void r16_curve(double (*v)(double), th_vj_rimea16 *r) {
    enum { PER = 1000, BINS = 10 };
    static double rho[PER * BINS], speed[PER * BINS];
    for (int i = 0; i < PER * BINS; i++) {
        rho[i] = TH_VJ_R16_LO + TH_VJ_R16_DX * (i + 0.5) / PER;
        speed[i] = v(rho[i]);
    }
    th_vj_rimea16_bin(rho, speed, PER * BINS, r);
}

/* Seyfried et al. (2005)'s fit of their single-file experiments, d = 0.36 m + 1.06 s v: the
 * speed at spacing 1/rho, at most 1.34 m/s. */
static double r16_seyfried(double rho) { return fmin(1.34, (1.0 / rho - 0.36) / 1.06); }
static double r16_free(double rho) { return rho > 0.0 ? 1.34 : 0.0; }
static double r16_half(double rho) { return 0.5 * r16_seyfried(rho); }
static double r16_jam(double rho) { return rho < 1.0 ? 1.2 : 0.0; }

START_TEST(stair_flow_judge_fails_flat_and_disproportionate_flows) {
    const double w[3] = {1.0, 1.5, 2.0};
    double spread;
    const double ok[3] = {1.10, 1.60, 2.05}; /* 1.10, 1.07, 1.03 per metre */
    ck_assert(th_vj_stair_flow_pass(w, ok, 3, &spread));
    ck_assert(spread < 0.05);
    const double flat[3] = {1.1, 1.1, 1.1}; /* the stair's width changes nothing */
    ck_assert(!th_vj_stair_flow_pass(w, flat, 3, &spread));
    /* Rising, but far from in proportion: 1.3, 0.93, 0.7 per metre, 1.3 / 0.978 = +33 %. */
    const double slow[3] = {1.3, 1.4, 1.4 + 1e-9};
    ck_assert(!th_vj_stair_flow_pass(w, slow, 3, &spread));
    ck_assert(spread > 0.2);
    /* Just inside and just outside the 20 % spread: per metre x, 1, 1 with mean (x + 2) / 3
     * deviates by (2x - 2) / (x + 2), 0.2 at x = 4/3. */
    const double in[3] = {1.32, 1.5, 2.0};
    ck_assert(th_vj_stair_flow_pass(w, in, 3, &spread));
    ck_assert(spread < 0.2 && spread > 0.19);
    const double edge[3] = {1.35, 1.5, 2.0};
    ck_assert(!th_vj_stair_flow_pass(w, edge, 3, &spread));
    const double lost[3] = {1.1, NAN, 2.0}; /* fewer than two out at one width */
    ck_assert(!th_vj_stair_flow_pass(w, lost, 3, &spread));
}
END_TEST

START_TEST(rimea13_judge_needs_five_bins_all_faster_down) {
    const double up[5] = {0.55, 0.54, 0.53, 0.52, 0.50};
    const double down[5] = {0.66, 0.65, 0.65, 0.64, 0.62};
    ck_assert(th_vj_rimea13_pass(up, down, 5));
    ck_assert(!th_vj_rimea13_pass(up, down, 4)); /* too few densities held both ways */
    double slow[5] = {0.66, 0.65, 0.65, 0.64, 0.62};
    slow[3] = 0.52; /* down no faster than up at one density */
    ck_assert(!th_vj_rimea13_pass(up, slow, 5));
}
END_TEST

START_TEST(rimea16_judge_fails_free_flow_slow_walkers_and_a_jam) {
    th_vj_rimea16 r;
    uint32_t judged, inside;
    /* The experiments' own fit lies in the band in every bin. */
    r16_curve(r16_seyfried, &r);
    ck_assert(th_vj_rimea16_pass(&r, &judged, &inside));
    ck_assert_uint_eq(judged, 10);
    ck_assert_uint_eq(inside, 10);
    ck_assert_uint_eq(r.outside, 0);
    /* Free flow at every density: inside at 0.1-0.7 /m (1.34 m/s <= v90 up to 0.6989), above the
     * band from 0.7 /m on: 3 of 10. */
    r16_curve(r16_free, &r);
    ck_assert(!th_vj_rimea16_pass(&r, &judged, &inside));
    ck_assert_uint_eq(inside, 3);
    /* Half the experiments' speeds: below v10 up to 1.5 /m (at 1.3-1.5: 0.17 < 0.187). */
    r16_curve(r16_half, &r);
    ck_assert(!th_vj_rimea16_pass(&r, &judged, &inside));
    ck_assert_uint_eq(inside, 3);
    /* Standing still from 1 /m on: the bins from 1.1 /m below the band, and the one at
     * 0.9-1.1 /m, mostly walkers at 1.2 m/s, above it: 4 of 10 inside. */
    r16_curve(r16_jam, &r);
    ck_assert(!th_vj_rimea16_pass(&r, &judged, &inside));
    ck_assert_uint_eq(inside, 4);
}
END_TEST

START_TEST(rimea16_judge_counts_the_bins_with_enough_samples) {
    th_vj_rimea16 r = {0};
    for (int b = 0; b < TH_VJ_R16_BINS; b++) r.median[b] = NAN;
    uint32_t judged, inside;
    ck_assert(!th_vj_rimea16_pass(&r, &judged, &inside)); /* no bin judged: no pass */
    ck_assert_uint_eq(judged, 0);
    /* Eight bins judged: six inside (75 %) passes, five does not. */
    for (int b = 0; b < 8; b++) {
        r.count[b] = TH_VJ_R16_MIN;
        r.median[b] = th_vj_r16_band[b].v50;
    }
    r.median[0] = th_vj_r16_band[0].v90 + 0.01;
    r.median[1] = th_vj_r16_band[1].v10 - 0.01;
    ck_assert(th_vj_rimea16_pass(&r, &judged, &inside));
    ck_assert_uint_eq(judged, 8);
    ck_assert_uint_eq(inside, 6);
    r.median[2] = 0.0;
    ck_assert(!th_vj_rimea16_pass(&r, &judged, &inside));
    ck_assert_uint_eq(inside, 5);
    /* A bin with one sample too few is not judged, however far off its median: without bin 2,
     * 5 of 7 inside (71 %) fails; without bin 2 and bin 0, 5 of 6 passes. */
    r.count[2] = TH_VJ_R16_MIN - 1;
    ck_assert(!th_vj_rimea16_pass(&r, &judged, &inside));
    ck_assert_uint_eq(judged, 7);
    ck_assert_uint_eq(inside, 5);
    r.count[0] = TH_VJ_R16_MIN - 1;
    ck_assert(th_vj_rimea16_pass(&r, &judged, &inside));
    ck_assert_uint_eq(judged, 6);
    /* The band's edges are inside. */
    r.median[3] = th_vj_r16_band[3].v10;
    r.median[4] = th_vj_r16_band[4].v90;
    ck_assert(th_vj_rimea16_inside(&r, 3) && th_vj_rimea16_inside(&r, 4));
}
END_TEST

START_TEST(rimea16_bins_by_lower_edge_and_takes_medians) {
    /* Bin 0 is [0.0989, 0.2989), bin 1 [0.2989, 0.4989); below, above 2.6989 and NaN are out. */
    double rho[] = {0.10, 0.20, 0.2988, 0.2990, 0.45, 0.05, 2.70, NAN, 0.25};
    double v[] = {1.0, 3.0, 2.0, 0.5, 0.7, 9.0, 9.0, 9.0, 4.0};
    th_vj_rimea16 r;
    th_vj_rimea16_bin(rho, v, 9, &r);
    ck_assert_uint_eq(r.count[0], 4); /* 1, 2, 3, 4: median 2.5 */
    ck_assert(fabs(r.median[0] - 2.5) < 1e-12);
    ck_assert_uint_eq(r.count[1], 2); /* 0.5, 0.7 */
    ck_assert(fabs(r.median[1] - 0.6) < 1e-12);
    ck_assert_uint_eq(r.outside, 3);
    ck_assert(isnan(r.median[2]) && r.count[2] == 0);
    /* The band as published: rising edges 0.2 apart, v10 < v50 < v90, falling with density. */
    ck_assert(fabs(th_vj_r16_band[0].lo - 0.0989) < 1e-12);
    ck_assert(fabs(th_vj_r16_band[TH_VJ_R16_BINS - 1].v90 - 0.2202) < 1e-12);
    for (int b = 0; b < TH_VJ_R16_BINS; b++) {
        ck_assert(fabs(th_vj_r16_band[b].lo - (TH_VJ_R16_LO + TH_VJ_R16_DX * b)) < 1e-9);
        ck_assert(th_vj_r16_band[b].v10 < th_vj_r16_band[b].v50);
        ck_assert(th_vj_r16_band[b].v50 < th_vj_r16_band[b].v90);
        if (b) ck_assert(th_vj_r16_band[b].v50 < th_vj_r16_band[b - 1].v50);
    }
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
    tcase_add_test(t, stair_flow_judge_fails_flat_and_disproportionate_flows);
    tcase_add_test(t, rimea13_judge_needs_five_bins_all_faster_down);
    tcase_add_test(t, rimea16_judge_fails_free_flow_slow_walkers_and_a_jam);
    tcase_add_test(t, rimea16_judge_counts_the_bins_with_enough_samples);
    tcase_add_test(t, rimea16_bins_by_lower_edge_and_takes_medians);
    suite_add_tcase(s, t);
    return th_test_run(s);
}
