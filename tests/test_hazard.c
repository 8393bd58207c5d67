/* Fire hazards (throng/hazard.h, sim/scenario/hazard.c, docs/hazards.md): smoke that slows walking
 * and toxic gases whose fractional effective dose incapacitates.
 *   - Purser's rates against the published equations, written out here on their own, and the
 *     doses of agents standing in air that changes with time against the sum of those rates
 *     over the steps, computed here from the hazard's keys (own interpolation);
 *   - an agent incapacitated in the step its dose passes 1, standing from then on, not stalled,
 *     and counted by the crowd's tally, whose first time is the earliest agent's;
 *   - smoke: walkers of both models settle at their speed times max(min, 1 - slope K);
 *   - which cells a rectangle covers, and the last hazard covering the earlier ones;
 *   - the same hash on 1, 2, 3 and 8 threads; bad hazards refused with a reason. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "throng/hazard.h"
#include "throng/throng.h"

/* The published equations (SFPE Handbook, Purser; FDS+Evac Technical Reference, 3.3), per
 * minute, written apart from the engine's. */
static double purser_per_min(double co, double co2, double o2, double hcn) {
    double cn = hcn > 0 ? exp(hcn / 43.0) / 220.0 - 0.0045 : 0.0;
    if (cn < 0) cn = 0;
    return (2.764e-5 * pow(co, 1.036) + cn) * exp(0.1903 * co2 + 2.0004) / 7.1 +
           1.0 / exp(8.13 - 0.54 * (20.9 - o2));
}

START_TEST(rates_follow_purser) {
    const th_air cases[] = {
        {0, 5000, 2, 18, 0}, {0, 1000, 0.04f, 20.9f, 0}, {0, 0, 5, 20.9f, 120},
        {0, 300, 1, 15, 50}, {2, 8000, 6, 12, 200},      {0, 0, 0.04f, 10, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const th_air *a = &cases[i];
        const double want = purser_per_min(a->co, a->co2, a->o2, a->hcn) / 60.0;
        const double got = th_fed_rate(a);
        ck_assert_msg(fabs(got - want) <= 1e-12 * want, "case %zu: %.15g per s, expected %.15g", i,
                      got, want);
    }
    /* More CO, more CO2 (faster breathing), less O2: each a higher rate. */
    th_air a = {0, 1000, 0.04f, 20.9f, 0}, b = a;
    b.co = 2000;
    ck_assert(th_fed_rate(&b) > th_fed_rate(&a));
    b = a;
    b.co2 = 4;
    ck_assert(th_fed_rate(&b) > th_fed_rate(&a));
    b = a;
    b.o2 = 14;
    ck_assert(th_fed_rate(&b) > th_fed_rate(&a));
    ck_assert(th_fed_rate(NULL) == 0.0);
}
END_TEST

/* A walled 20 m x 10 m room on 0.5 m cells. */
static th_world *room(uint32_t threads, th_error *err) {
    th_world_def wd = th_default_world_def();
    wd.width = 20;
    wd.height = 10;
    wd.cell_size = 0.5f;
    wd.threads = threads;
    wd.seed = 5;
    return th_world_create(&wd, err);
}

static th_hazard_key key(float t, float k, float co, float co2, float o2, float hcn) {
    return (th_hazard_key){t, {k, co, co2, o2, hcn}};
}

static float lerpf(float a, float b, float t) { return a + (b - a) * t; }

/* The air of keys `k` at time t, by the rule of the header, here on its own. */
static th_air keys_at(const th_hazard_key *k, int n, double t) {
    if (t <= k[0].time) return k[0].air;
    if (t >= k[n - 1].time) return k[n - 1].air;
    int i = 0;
    while (!(t < k[i + 1].time)) i++;
    const float f = (float)((t - k[i].time) / (k[i + 1].time - k[i].time));
    const th_air *a = &k[i].air, *b = &k[i + 1].air;
    return (th_air){lerpf(a->extinction, b->extinction, f), lerpf(a->co, b->co, f),
                    lerpf(a->co2, b->co2, f), lerpf(a->o2, b->o2, f), lerpf(a->hcn, b->hcn, f)};
}

/* Standing agents (pre-movement far off) breathe air that worsens over time: each step's dose
 * is the rate at the step's start time times the step, summed; incapacitation comes in the step
 * the sum passes 1, and the agent does not move after it. */
START_TEST(doses_sum_the_rates_of_changing_air) {
    th_error err;
    th_world *w = room(2, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    th_crowd_def cd = th_default_pedestrian_def();
    cd.pre_movement = (th_distribution){TH_DISTRIB_CONSTANT, 1e6f, 0, 0, 0};
    ck_assert_msg(IDX(th_world_add_crowd(w, &cd, &err)) == 0, "%s", err.message);
    th_agent_id in = th_world_add_agent(w, CROWD_ID(0), th_v2(5, 5), th_v2(0, 0), &err);
    th_agent_id out = th_world_add_agent(w, CROWD_ID(0), th_v2(15, 5), th_v2(0, 0), &err);
    /* Added after the agents: their doses start at 0. */
    const th_hazard_key keys[] = {key(0, 0, 0, 0.04f, 20.9f, 0), key(20, 0.5f, 3000, 1, 19, 0),
                                  key(50, 1.0f, 9000, 4, 16, 80), key(80, 1.0f, 12000, 5, 15, 100)};
    const th_hazard_def hd = {0, 0, 10, 10, keys, 4};
    ck_assert_msg(th_world_add_hazard(w, &hd, &err), "%s", err.message);
    ck_assert_uint_eq(th_world_hazard_count(w), 1);
    const double dt = th_world_get_def(w).timestep;
    double sum = 0.0, down = -1.0;
    for (int s = 0; s < 120 * 60 && down < 0; s++) {
        const double t = s * dt;
        th_air air;
        ck_assert(th_world_air(w, th_v2(5, 5), &air));
        const th_air want = keys_at(keys, 4, t);
        ck_assert_msg(air.co == want.co && air.o2 == want.o2 && air.extinction == want.extinction,
                      "t %g: CO %g, expected %g", t, (double)air.co, (double)want.co);
        const bool clean = want.co <= 0 && want.hcn <= 0 && want.co2 <= 0.04f && want.o2 >= 20.9f;
        sum += clean ? 0.0 : purser_per_min(want.co, want.co2, want.o2, want.hcn) / 60.0 * dt;
        th_world_step(w);
        double fed, at;
        ck_assert(th_world_agent_fed(w, in, &fed, &at));
        ck_assert_msg(fabs(fed - sum) <= 1e-9 * (sum + 1e-12), "t %g: dose %.12g, expected %.12g",
                      t, fed, sum);
        if (sum >= 1.0) {
            ck_assert_msg(at > 0.0, "the dose passed 1 at t %g but it is not incapacitated", t);
            ck_assert_msg(fabs(at - (s + 1) * dt) < 1e-9, "incapacitated at %g, expected %g", at,
                          (s + 1) * dt);
            down = at;
        } else {
            ck_assert(at < 0.0);
        }
        ck_assert(th_world_agent_fed(w, out, &fed, NULL));
        ck_assert(fed == 0.0); /* clean air outside the hazard */
    }
    ck_assert_msg(down > 0.0, "never incapacitated");
    th_agent_state a;
    ck_assert(th_world_get_agent(w, in, &a));
    ck_assert(a.incapacitated && a.fed >= 1.0f);
    th_hazard_info hi;
    ck_assert(th_world_get_hazard_info(w, CROWD_ID(0), &hi));
    ck_assert_uint_eq(hi.incapacitated, 1);
    ck_assert(fabs(hi.first_s - down) < 1e-9);
    ck_assert(hi.max_fed >= 1.0);
    th_world_destroy(w);
}
END_TEST

/* A walker on a route through deadly air: once its dose reaches 1 it stops for good where it
 * is, and the stall judgement (2 s here) leaves it alone though it makes no progress. */
START_TEST(incapacitated_walkers_stop_and_are_not_stalled) {
    th_error err;
    th_world_def wd = th_default_world_def();
    wd.width = 40;
    wd.height = 4;
    wd.cell_size = 0.5f;
    wd.stall_time = 2.0f;
    th_world *w = th_world_create(&wd, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    th_crowd_def cd = th_default_pedestrian_def();
    cd.desired_speed_sd = 0;
    const th_vec2 end = th_v2(38, 2);
    cd.goal = (th_goal_def){.kind = TH_GOAL_ROUTE, .points = &end, .point_count = 1};
    ck_assert_msg(IDX(th_world_add_crowd(w, &cd, &err)) == 0, "%s", err.message);
    th_agent_id id = th_world_add_agent(w, CROWD_ID(0), th_v2(1, 2), th_v2(0, 0), &err);
    /* Deadly from x = 5 m on: HCN 400 ppm, exp(400 / 43) / 220 = 50 a minute. */
    const th_hazard_key k = key(0, 0, 0, 0.04f, 20.9f, 400);
    const th_hazard_def hd = {5, 0, 35, 4, &k, 1};
    ck_assert_msg(th_world_add_hazard(w, &hd, &err), "%s", err.message);
    for (int s = 0; s < 10 * 60; s++) th_world_step(w);
    th_agent_state a;
    ck_assert(th_world_get_agent(w, id, &a));
    ck_assert_msg(a.incapacitated, "dose %g", (double)a.fed);
    /* 52 a minute (times 1.05 for the CO2 of clean air): 1.15 s, 1.5 m in at 1.34 m/s. */
    ck_assert_msg(a.position.x > 6.0f && a.position.x < 7.0f, "stopped at x %g",
                  (double)a.position.x);
    const th_vec2 stop = a.position;
    for (int s = 0; s < 5 * 60; s++) th_world_step(w);
    ck_assert(th_world_get_agent(w, id, &a));
    ck_assert(a.position.x == stop.x && a.position.y == stop.y);
    ck_assert(th_v2_len(a.velocity) == 0.0f);
    th_stall_info si;
    ck_assert(th_world_get_stall_info(w, &si));
    ck_assert_uint_eq(si.stalled, 0);
    th_world_destroy(w);
}
END_TEST

/* Walkers in parallel lanes, each lane its own smoke: after 6 s each walks at its free speed
 * times max(min, 1 - slope K), and boids at their top speed times the same. */
static void smoke_lanes(th_model model) {
    const float ks[5] = {0, 1, 4, 8, 20};
    th_error err;
    th_world_def wd = th_default_world_def();
    wd.width = 30;
    wd.height = 10;
    wd.cell_size = 0.5f;
    th_world *w = th_world_create(&wd, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    th_crowd_def cd =
        model == TH_MODEL_PEDESTRIAN ? th_default_pedestrian_def() : th_default_crowd_def();
    cd.desired_speed_sd = 0;
    cd.heading = th_v2(1, 0);
    cd.smoke_slope = 0.1f;
    cd.smoke_min_factor = 0.25f;
    if (model == TH_MODEL_BOIDS) { /* coasting at the top speed: only the cap acts */
        cd.max_speed = 1.5f;
        cd.alignment_weight = cd.cohesion_weight = cd.separation_weight = cd.wall_weight = 0;
    }
    ck_assert_msg(IDX(th_world_add_crowd(w, &cd, &err)) == 0, "%s", err.message);
    th_agent_id ids[5];
    for (int i = 0; i < 5; i++) {
        const th_hazard_key k = key(0, ks[i], 0, 0.04f, 20.9f, 0);
        const th_hazard_def hd = {0, 2.0f * (float)i, 30, 2, &k, 1};
        ck_assert_msg(th_world_add_hazard(w, &hd, &err), "%s", err.message);
        ids[i] = th_world_add_agent(w, CROWD_ID(0), th_v2(1, 2.0f * (float)i + 1.0f),
                                    th_v2(model == TH_MODEL_BOIDS ? 1.5f : 0.0f, 0), &err);
    }
    for (int s = 0; s < 6 * 60; s++) th_world_step(w);
    const float v0 = model == TH_MODEL_PEDESTRIAN ? cd.desired_speed : cd.max_speed;
    for (int i = 0; i < 5; i++) {
        th_agent_state a;
        ck_assert(th_world_get_agent(w, ids[i], &a));
        const float want = v0 * fmaxf(0.25f, 1.0f - 0.1f * ks[i]);
        ck_assert_msg(fabsf(th_v2_len(a.velocity) - want) < 0.01f * want,
                      "model %d, K %g: %g m/s, expected %g", (int)model, (double)ks[i],
                      (double)th_v2_len(a.velocity), (double)want);
        ck_assert(!a.incapacitated && a.fed == 0.0f); /* smoke alone gives no dose */
        ck_assert(fabsf(th_world_smoke_factor(w, CROWD_ID(0), ks[i]) * v0 - want) < 1e-6f);
    }
    th_world_destroy(w);
}

/* Three walkers standing in three lanes of deadly air, HCN 300, 450 and 350 ppm (stored in that
 * order): the richer the air, the sooner the dose reaches 1, so the one in the middle lane goes
 * down first, the last lane's next and the first lane's last. The crowd's tally counts them as
 * they go down and gives, from the first on, the time of the first, whatever its place in
 * storage. */
START_TEST(the_first_incapacitated_is_the_earliest) {
    th_error err;
    th_world_def wd = th_default_world_def();
    wd.width = 10;
    wd.height = 6;
    wd.cell_size = 0.5f;
    th_world *w = th_world_create(&wd, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    th_crowd_def cd = th_default_pedestrian_def();
    cd.desired_speed_sd = 0;
    ck_assert_msg(IDX(th_world_add_crowd(w, &cd, &err)) == 0, "%s", err.message);
    const float hcn[3] = {300, 450, 350};
    th_agent_id ids[3];
    for (int i = 0; i < 3; i++) {
        const th_hazard_key k = key(0, 0, 0, 0.04f, 20.9f, hcn[i]);
        const th_hazard_def hd = {0, 2.0f * (float)i, 10, 2, &k, 1};
        ck_assert_msg(th_world_add_hazard(w, &hd, &err), "%s", err.message);
        ids[i] =
            th_world_add_agent(w, CROWD_ID(0), th_v2(5, 2.0f * (float)i + 1.0f), th_v2(0, 0), &err);
    }
    double at[3] = {-1, -1, -1};
    uint32_t down = 0;
    for (int s = 0; s < 20 * 60 && down < 3; s++) {
        th_world_step(w);
        down = 0;
        double first = INFINITY;
        for (int i = 0; i < 3; i++) {
            ck_assert(th_world_agent_fed(w, ids[i], NULL, &at[i]));
            if (at[i] >= 0) {
                down++;
                if (at[i] < first) first = at[i];
            }
        }
        th_hazard_info hi;
        ck_assert(th_world_get_hazard_info(w, CROWD_ID(0), &hi));
        CHECK_MSG(hi.incapacitated == down, "step %d: %u incapacitated, %u by the agents", s,
                  hi.incapacitated, down);
        CHECK_MSG(down == 0 ? hi.first_s == 0.0 : fabs(hi.first_s - first) < 1e-9,
                  "step %d: the first at %g s, the earliest of the agents at %g s", s, hi.first_s,
                  first);
    }
    ck_assert_uint_eq(down, 3);
    ck_assert_msg(at[1] < at[2] && at[2] < at[0], "down at %g, %g and %g s", at[0], at[1], at[2]);
    th_world_destroy(w);
}
END_TEST

START_TEST(smoke_slows_both_models) {
    smoke_lanes(TH_MODEL_PEDESTRIAN);
    smoke_lanes(TH_MODEL_BOIDS);
}
END_TEST

/* Cells whose centres lie inside are covered; a later hazard covers an earlier one. */
START_TEST(rectangles_cover_cell_centres_and_later_ones_win) {
    th_error err;
    th_world *w = room(1, &err);
    const th_hazard_key a = key(0, 1, 0, 0.04f, 20.9f, 0), b = key(0, 2, 0, 0.04f, 20.9f, 0);
    /* [1.1, 3.9] x [1.1, 3.9] on 0.5 m cells: centres 1.25 .. 3.75. */
    const th_hazard_def ha = {1.1f, 1.1f, 2.8f, 2.8f, &a, 1};
    const th_hazard_def hb = {3.0f, 3.0f, 2.0f, 2.0f, &b, 1};
    ck_assert_msg(th_world_add_hazard(w, &ha, &err), "%s", err.message);
    ck_assert_msg(th_world_add_hazard(w, &hb, &err), "%s", err.message);
    const struct {
        float x, y, k;
    } probes[] = {{1.05f, 2, 1}, {0.99f, 2, 0},   {3.95f, 2, 1},   {4.01f, 2, 0},
                  {2, 2, 1},     {3.2f, 3.2f, 2}, {4.5f, 4.5f, 2}, {5.1f, 4.5f, 0}};
    for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) {
        th_air air;
        ck_assert(th_world_air(w, th_v2(probes[i].x, probes[i].y), &air));
        ck_assert_msg(air.extinction == probes[i].k, "(%g, %g): K %g, expected %g",
                      (double)probes[i].x, (double)probes[i].y, (double)air.extinction,
                      (double)probes[i].k);
    }
    th_air air;
    ck_assert(!th_world_air(w, th_v2(-1, 2), &air));
    ck_assert(air.o2 == TH_AIR_O2_PERCENT && air.extinction == 0.0f);
    th_world_destroy(w);
}
END_TEST

/* 200 walkers cross a room whose middle fills with smoke and gas over time; some fall. */
static uint64_t crossing_hash(uint32_t threads, uint32_t *down) {
    th_error err;
    th_world_def wd = th_default_world_def();
    wd.width = 40;
    wd.height = 20;
    wd.cell_size = 0.5f;
    wd.threads = threads;
    wd.seed = 11;
    th_world *w = th_world_create(&wd, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    th_crowd_def cd = th_default_pedestrian_def();
    cd.heading = th_v2(1, 0);
    ck_assert_msg(IDX(th_world_add_crowd(w, &cd, &err)) == 0, "%s", err.message);
    for (int i = 0; i < 200; i++)
        th_world_add_agent(w, CROWD_ID(0),
                           th_v2(1.0f + (float)(i % 10), 1.0f + 0.9f * (float)(i / 10)),
                           th_v2(0, 0), &err);
    const th_hazard_key keys[] = {key(0, 0, 0, 0.04f, 20.9f, 0), key(5, 3, 20000, 6, 13, 300)};
    const th_hazard_def hd = {15, 0, 10, 20, keys, 2};
    ck_assert_msg(th_world_add_hazard(w, &hd, &err), "%s", err.message);
    for (int s = 0; s < 20 * 60; s++) th_world_step(w);
    th_hazard_info hi;
    ck_assert(th_world_get_hazard_info(w, CROWD_ID(0), &hi));
    *down = hi.incapacitated;
    const uint64_t h = th_world_hash(w);
    th_world_destroy(w);
    return h;
}

START_TEST(same_hash_on_1_2_3_8_threads) {
    const uint32_t threads[4] = {1, 2, 3, 8};
    uint32_t down[4];
    uint64_t h[4];
    for (int t = 0; t < 4; t++) h[t] = crossing_hash(threads[t], &down[t]);
    ck_assert_msg(down[0] > 0 && down[0] < 200, "%u incapacitated", down[0]);
    for (int t = 1; t < 4; t++) {
        ck_assert_msg(h[t] == h[0] && down[t] == down[0], "%u threads differ", threads[t]);
    }
}
END_TEST

START_TEST(bad_hazards_are_refused) {
    th_error err;
    th_world_def wd = th_default_world_def(); /* no map */
    th_world *w = th_world_create(&wd, &err);
    th_hazard_key k[3] = {key(0, 1, 0, 0.04f, 20.9f, 0), key(10, 1, 0, 0.04f, 20.9f, 0),
                          key(5, 1, 0, 0.04f, 20.9f, 0)};
    th_hazard_def hd = {0, 0, 5, 5, k, 1};
    ck_assert(!th_world_add_hazard(w, &hd, &err));
    ck_assert_msg(strstr(err.message, "map"), "%s", err.message);
    th_world_destroy(w);
    w = room(1, &err);
    const struct {
        th_hazard_def d;
        const char *says;
    } bad[] = {
        {{0, 0, 5, 5, k, 3}, "not after"},       {{0, 0, 5, 5, k, 0}, "1 to"},
        {{0, 0, 5, 5, NULL, 1}, "1 to"},         {{0, 0, 0, 5, k, 1}, "positive"},
        {{NAN, 0, 5, 5, k, 1}, "finite"},        {{0.8f, 0, 0.15f, 5, k, 1}, "no cell centre"},
        {{30, 0, 5, 5, k, 1}, "no cell centre"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_msg(!th_world_add_hazard(w, &bad[i].d, &err), "case %zu accepted", i);
        ck_assert_msg(strstr(err.message, bad[i].says), "case %zu: %s", i, err.message);
    }
    th_hazard_key v = key(0, -1, 0, 0.04f, 20.9f, 0);
    hd = (th_hazard_def){0, 0, 5, 5, &v, 1};
    ck_assert(!th_world_add_hazard(w, &hd, &err));
    ck_assert_msg(strstr(err.message, "extinction"), "%s", err.message);
    v = key(0, 0, 0, 0.04f, 120, 0);
    ck_assert(!th_world_add_hazard(w, &hd, &err));
    ck_assert_msg(strstr(err.message, "o2"), "%s", err.message);
    ck_assert_uint_eq(th_world_hazard_count(w), 0);
    th_hazard_info hi;
    ck_assert(!th_world_get_hazard_info(w, CROWD_ID(0), &hi));
    th_world_destroy(w);
}
END_TEST

int main(void) {
    Suite *s = suite_create("hazard");
    TCase *tc = tcase_create("hazard");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, rates_follow_purser);
    tcase_add_test(tc, doses_sum_the_rates_of_changing_air);
    tcase_add_test(tc, incapacitated_walkers_stop_and_are_not_stalled);
    tcase_add_test(tc, the_first_incapacitated_is_the_earliest);
    tcase_add_test(tc, smoke_slows_both_models);
    tcase_add_test(tc, rectangles_cover_cell_centres_and_later_ones_win);
    tcase_add_test(tc, same_hash_on_1_2_3_8_threads);
    tcase_add_test(tc, bad_hazards_are_refused);
    suite_add_tcase(s, tc);
    return th_test_run(s);
}
