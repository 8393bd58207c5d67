/* Per-agent distributions (sim/core/distrib.c, docs/pedestrians.md): pre-movement (response)
 * times, and free speeds drawn from a crowd's distribution (uniform, capped at max_speed, at the
 * end). Pre-movement times:
 *   - each distribution's CDF against values known in closed form or from tables;
 *   - its draws against its CDF: the quantile inverts the truncated CDF, and draws from random
 *     uniforms pass a Kolmogorov-Smirnov test at the 1 % level, within their bounds;
 *   - agents stand until their drawn time and move from it, for both crowd models, with the
 *     crowd's tally and each agent's start time through the API, the same hash on 1, 2, 3 and
 *     8 threads; bad distributions refused with a reason. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/core/distrib.h"
#include "test_util.h"
#include "throng/throng.h"

static th_distribution dist(th_distrib_kind k, float a, float b, float min, float max) {
    return (th_distribution){.kind = k, .a = a, .b = b, .min = min, .max = max};
}

START_TEST(cdfs_match_known_values) {
    const struct {
        th_distribution d;
        double x, want;
    } cases[] = {
        /* Phi(1), Phi(-2) */
        {dist(TH_DISTRIB_NORMAL, 10, 2, 0, 0), 12.0, 0.841344746068543},
        {dist(TH_DISTRIB_NORMAL, 10, 2, 0, 0), 6.0, 0.022750131948179},
        /* ln t normal(1, 0.5): P(t <= e) = Phi(0) */
        {dist(TH_DISTRIB_LOGNORMAL, 1, 0.5f, 0, 0), exp(1.0), 0.5},
        /* gamma shape 2: P(2, x) = 1 - (1 + x) e^-x; shape 1 is the exponential */
        {dist(TH_DISTRIB_GAMMA, 2, 3, 0, 0), 3.0, 1.0 - 2.0 * exp(-1.0)},
        {dist(TH_DISTRIB_GAMMA, 2, 3, 0, 0), 30.0, 1.0 - 11.0 * exp(-10.0)},
        {dist(TH_DISTRIB_GAMMA, 1, 5, 0, 0), 7.0, 1.0 - exp(-1.4)},
        /* shape 1/2, scale 1: P(1/2, x) = erf(sqrt(x)), below and above x = s + 1 */
        {dist(TH_DISTRIB_GAMMA, 0.5f, 1, 0, 0), 0.3, erf(sqrt(0.3))},
        {dist(TH_DISTRIB_GAMMA, 0.5f, 1, 0, 0), 4.0, erf(2.0)},
        /* Weibull: 1 - exp(-(x / b)^a) */
        {dist(TH_DISTRIB_WEIBULL, 1.5f, 60, 0, 0), 30.0, 1.0 - exp(-pow(0.5, 1.5))},
        {dist(TH_DISTRIB_UNIFORM, 10, 30, 0, 0), 15.0, 0.25},
        {dist(TH_DISTRIB_CONSTANT, 10, 0, 0, 0), 9.99, 0.0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const double got = th_distrib_cdf(&cases[i].d, cases[i].x);
        ck_assert_msg(fabs(got - cases[i].want) < 1e-12, "case %zu: F(%g) = %.15g, expected %.15g",
                      i, cases[i].x, got, cases[i].want);
    }
}
END_TEST

/* Every kind, untruncated and truncated. */
static const th_distribution k_dists[] = {
    {TH_DISTRIB_UNIFORM, 10, 60, 0, 0},
    {TH_DISTRIB_UNIFORM, 10, 60, 20, 30},
    {TH_DISTRIB_NORMAL, 60, 15, 0, 0},
    {TH_DISTRIB_NORMAL, 60, 15, 50, 65},
    {TH_DISTRIB_NORMAL, 5, 10, 0, 0},
    {TH_DISTRIB_LOGNORMAL, 3.5f, 0.5f, 0, 0},
    {TH_DISTRIB_LOGNORMAL, 3.5f, 0.5f, 10, 40},
    {TH_DISTRIB_GAMMA, 2, 30, 0, 0},
    {TH_DISTRIB_GAMMA, 0.7f, 10, 1, 100},
    {TH_DISTRIB_GAMMA, 40, 2, 0, 0},
    {TH_DISTRIB_WEIBULL, 1.5f, 60, 0, 0},
    {TH_DISTRIB_WEIBULL, 0.8f, 20, 5, 50},
    {TH_DISTRIB_AGE, 20, 70, 0, 0},
    {TH_DISTRIB_AGE, 35, 65, 1.3f, 1.5f},
};
enum { N_DISTS = sizeof k_dists / sizeof k_dists[0] };

START_TEST(draws_invert_the_truncated_cdf) {
    const th_distribution *d = &k_dists[_i];
    ck_assert(th_distrib_check(d, "d", NULL));
    const double hi = d->max > 0.0f ? d->max : INFINITY;
    for (int k = 1; k < 1000; k++) {
        const double u = k / 1000.0;
        const double x = th_distrib_draw(d, u);
        ck_assert_msg(x >= d->min && x <= hi, "dist %d: draw %g outside [%g, %g]", _i, x,
                      (double)d->min, hi);
        const double p = th_distrib_cdf_truncated(d, x);
        ck_assert_msg(fabs(p - u) < 1e-9, "dist %d: F(draw(%g)) = %.12g", _i, u, p);
    }
}
END_TEST

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

START_TEST(random_draws_pass_kolmogorov_smirnov) {
    enum { N = 4000 };
    static double x[N];
    const th_distribution *d = &k_dists[_i];
    uint64_t s = 1234 + (uint64_t)_i;
    double sum = 0.0;
    for (int k = 0; k < N; k++) {
        const double u = ((double)(splitmix64(&s) >> 11) + 0.5) / 9007199254740992.0;
        x[k] = th_distrib_draw(d, u);
        sum += x[k];
    }
    qsort(x, N, sizeof x[0], cmp_double);
    double dmax = 0.0;
    for (int k = 0; k < N; k++) {
        const double f = th_distrib_cdf_truncated(d, x[k]);
        dmax = fmax(dmax, fmax(fabs(f - (double)k / N), fabs((double)(k + 1) / N - f)));
    }
    /* The 1 % critical value of the one-sample statistic, 1.628 / sqrt(n). */
    ck_assert_msg(dmax < 1.628 / sqrt((double)N), "dist %d: D = %g", _i, dmax);
    if (d->min == 0.0f && d->max == 0.0f && !(d->kind == TH_DISTRIB_NORMAL && d->a < 3 * d->b)) {
        const double mean = th_distrib_mean(d);
        ck_assert_msg(fabs(sum / N - mean) < 0.05 * mean, "dist %d: mean %g, expected %g", _i,
                      sum / N, mean);
    }
}
END_TEST

/* Walking speeds by age: the CDF against 400,000 speeds drawn the plain way, an age uniform in
 * the range and then a speed uniform between the table's bounds at that age (RiMEA's table,
 * restated here, linear between its ages), within 5 standard errors. */
START_TEST(age_speeds_match_the_table) {
    static const double age[6] = {20, 30, 40, 50, 60, 70};
    static const double lo[6] = {1.60, 1.52, 1.46, 1.39, 1.27, 1.07};
    static const double hi[6] = {1.64, 1.56, 1.50, 1.43, 1.27, 1.07};
    static const double ranges[4][2] = {{20, 70}, {35, 45}, {52, 68}, {25, 25}};
    enum { N = 400000, V = 12 };
    for (int r = 0; r < 4; r++) {
        const th_distribution d =
            dist(TH_DISTRIB_AGE, (float)ranges[r][0], (float)ranges[r][1], 0, 0);
        ck_assert(th_distrib_check(&d, "free_speed", NULL));
        static double v[N];
        uint64_t s = 77 + (uint64_t)r;
        double sum = 0;
        for (int k = 0; k < N; k++) {
            const double u1 = (double)(splitmix64(&s) >> 11) / 9007199254740992.0;
            const double u2 = (double)(splitmix64(&s) >> 11) / 9007199254740992.0;
            const double t = ranges[r][0] + (ranges[r][1] - ranges[r][0]) * u1;
            int i = 0;
            while (i < 4 && t > age[i + 1]) i++;
            const double f = (t - age[i]) / (age[i + 1] - age[i]);
            const double l = lo[i] + f * (lo[i + 1] - lo[i]), h = hi[i] + f * (hi[i + 1] - hi[i]);
            v[k] = l + (h - l) * u2;
            sum += v[k];
        }
        for (int j = 0; j <= V; j++) {
            const double x = 1.05 + 0.6 * j / V;
            double below = 0;
            for (int k = 0; k < N; k++) below += v[k] <= x;
            const double want = below / N, got = th_distrib_cdf(&d, x);
            const double se = sqrt(fmax(want * (1 - want), 1.0 / N) / N);
            ck_assert_msg(fabs(got - want) < 5 * se + 1e-6,
                          "ages [%g, %g]: F(%g) = %.6f, sampled %.6f", ranges[r][0], ranges[r][1],
                          x, got, want);
        }
        ck_assert_msg(fabs(th_distrib_mean(&d) - sum / N) < 1e-3,
                      "ages [%g, %g]: mean %g, sampled %g", ranges[r][0], ranges[r][1],
                      th_distrib_mean(&d), sum / N);
    }
    /* Outside the table, or for times: refused. */
    const th_distribution young = dist(TH_DISTRIB_AGE, 10, 30, 0, 0);
    th_error err;
    ck_assert(!th_distrib_check(&young, "free_speed", &err) && strstr(err.message, "20 <= a"));
    th_world_def wd = th_default_world_def();
    th_world *w = th_world_create(&wd, NULL);
    th_crowd_def cd = th_default_pedestrian_def();
    cd.pre_movement = dist(TH_DISTRIB_AGE, 20, 30, 0, 0);
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), -1);
    ck_assert_msg(strstr(err.message, "walking speeds"), "%s", err.message);
    th_world_destroy(w);
}
END_TEST

START_TEST(bad_distributions_are_refused) {
    const struct {
        th_distribution d;
        const char *says;
    } cases[] = {
        {dist((th_distrib_kind)9, 1, 1, 0, 0), "unknown distribution"},
        {dist(TH_DISTRIB_CONSTANT, -1, 0, 0, 0), "[0, 1e7]"},
        {dist(TH_DISTRIB_UNIFORM, 30, 10, 0, 0), "a <= b"},
        {dist(TH_DISTRIB_NORMAL, 10, 0, 0, 0), "standard deviation"},
        {dist(TH_DISTRIB_NORMAL, 10, NAN, 0, 0), "standard deviation"},
        {dist(TH_DISTRIB_GAMMA, 0, 1, 0, 0), "shape"},
        {dist(TH_DISTRIB_WEIBULL, 1, -1, 0, 0), "scale"},
        {dist(TH_DISTRIB_NORMAL, 10, 1, 30, 20), "min <= max"},
        {dist(TH_DISTRIB_CONSTANT, 10, 0, 20, 30), "no value"},
        {dist(TH_DISTRIB_NORMAL, 10, 1, 200, 300), "no value"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        th_error err = {0};
        ck_assert_msg(!th_distrib_check(&cases[i].d, "pre_movement", &err), "case %zu accepted", i);
        ck_assert_msg(strstr(err.message, cases[i].says) && strstr(err.message, "pre_movement"),
                      "case %zu: '%s' lacks '%s'", i, err.message, cases[i].says);
    }
    /* Through the API, with the world unchanged. */
    th_world_def wd = th_default_world_def();
    wd.width = wd.height = 20;
    th_world *w = th_world_create(&wd, NULL);
    th_crowd_def cd = th_default_pedestrian_def();
    cd.pre_movement = dist(TH_DISTRIB_UNIFORM, 30, 10, 0, 0);
    th_error err;
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), -1);
    TH_TEST_ERR(err, TH_ERR_INVALID);
    ck_assert_uint_eq(th_world_crowd_count(w), 0);
    th_world_destroy(w);
}
END_TEST

/* 60 agents of each model on a grid 3 m apart (nobody pushes anybody), heading east, with
 * pre-movement times uniform on [1, 3] s; steps of 1/20 s. */
static th_world *standing_world(uint32_t threads, th_agent_id *ids) {
    th_world_def wd = th_default_world_def();
    wd.width = 80;
    wd.height = 40;
    wd.timestep = 0.05f;
    wd.threads = threads;
    wd.seed = 9;
    th_error err;
    th_world *w = th_world_create(&wd, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    for (int m = 0; m < 2; m++) {
        th_crowd_def cd = m ? th_default_pedestrian_def() : th_default_crowd_def();
        if (m) cd.heading = th_v2(1, 0);
        cd.pre_movement = dist(TH_DISTRIB_UNIFORM, 1, 3, 0, 0);
        ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), m);
        for (int k = 0; k < 60; k++) {
            const th_vec2 p = th_v2(5.0f + 3.0f * (float)(k % 10),
                                    3.0f + 3.0f * (float)(k / 10) + 18.0f * (float)m);
            ids[m * 60 + k] =
                th_world_add_agent(w, CROWD_ID(m), p, m ? th_v2(0, 0) : th_v2(1, 0), &err);
            ck_assert(th_agent_id_valid(ids[m * 60 + k]));
        }
    }
    return w;
}

START_TEST(agents_stand_until_their_time) {
    th_agent_id ids[120];
    th_world *w = standing_world(2, ids);
    th_vec2 start[120];
    float when[120];
    for (int i = 0; i < 120; i++) {
        th_agent_state a;
        ck_assert(th_world_get_agent(w, ids[i], &a));
        start[i] = a.position;
        when[i] = a.start_time;
        /* A whole number of steps, within the distribution's support. */
        ck_assert_msg(a.start_time >= 1.0f && a.start_time <= 3.0f + 0.05f, "agent %d: %g", i,
                      (double)a.start_time);
        ck_assert_float_eq_tol(a.start_time / 0.05f, roundf(a.start_time / 0.05f), 1e-3);
    }
    th_pre_movement_info pm;
    ck_assert(th_world_get_pre_movement(w, CROWD_ID(1), &pm));
    ck_assert_uint_eq(pm.drawn, 60);
    ck_assert_uint_eq(pm.waiting, 60);
    ck_assert(pm.min_s >= 1.0 && pm.max_s <= 3.0 && pm.mean_s > 1.6 && pm.mean_s < 2.4);
    bool moved_late[120] = {false};
    for (int s = 0; s < 80; s++) {
        th_world_step(w);
        const float now = (float)(s + 1) * 0.05f; /* world time after this step */
        for (int i = 0; i < 120; i++) {
            th_agent_state a;
            ck_assert(th_world_get_agent(w, ids[i], &a));
            const float moved = th_v2_len(th_v2_sub(a.position, start[i]));
            if (now <= when[i] + 1e-4f) {
                ck_assert_msg(moved == 0.0f && th_v2_len(a.velocity) == 0.0f,
                              "agent %d moved %g m at %g s, before its time %g s", i, (double)moved,
                              (double)now, (double)when[i]);
            } else if (now >= when[i] + 0.5f) {
                moved_late[i] |= moved > 0.05f;
            }
        }
    }
    for (int i = 0; i < 120; i++) ck_assert_msg(moved_late[i], "agent %d never moved", i);
    ck_assert(th_world_get_pre_movement(w, CROWD_ID(0), &pm));
    ck_assert_uint_eq(pm.waiting, 0);
    th_world_destroy(w);
}
END_TEST

START_TEST(same_hash_on_1_2_3_8_threads) {
    uint64_t h[4];
    const uint32_t threads[4] = {1, 2, 3, 8};
    for (int t = 0; t < 4; t++) {
        th_agent_id ids[120];
        th_world *w = standing_world(threads[t], ids);
        for (int s = 0; s < 60; s++) th_world_step(w);
        h[t] = th_world_hash(w);
        th_world_destroy(w);
    }
    for (int t = 1; t < 4; t++) ck_assert_msg(h[t] == h[0], "%u threads differ", threads[t]);
}
END_TEST

/* Free speeds from a distribution: 200 walkers in lanes 1 m apart, free speeds uniform on
 * [lo, hi] capped at max_speed; after 8 s each walks at its free speed, and the speeds are
 * uniform on [lo, min(hi, max_speed)] by the KS test at 1 %. */
static void free_speeds(float lo, float hi, float max_speed) {
    enum { N = 200 };
    th_world_def wd = th_default_world_def();
    wd.width = 60;
    wd.height = (float)N + 2.0f;
    wd.seed = 3;
    wd.threads = 2;
    th_error err;
    th_world *w = th_world_create(&wd, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    th_crowd_def cd = th_default_pedestrian_def();
    cd.heading = th_v2(1, 0);
    cd.max_speed = max_speed;
    cd.free_speed = dist(TH_DISTRIB_UNIFORM, lo, hi, 0, 0);
    ck_assert_msg(IDX(th_world_add_crowd(w, &cd, &err)) == 0, "%s", err.message);
    th_agent_id ids[N];
    for (int k = 0; k < N; k++)
        ids[k] = th_world_add_agent(w, CROWD_ID(0), th_v2(2, 1.5f + (float)k), th_v2(0, 0), &err);
    for (int s = 0; s < 8 * 60; s++) th_world_step(w);
    const float top = fminf(hi, max_speed);
    static double u[N];
    for (int k = 0; k < N; k++) {
        th_agent_state a;
        ck_assert(th_world_get_agent(w, ids[k], &a));
        const float v = th_v2_len(a.velocity);
        ck_assert_msg(v >= lo - 0.01f && v <= top + 0.01f, "walker %d at %g m/s, not in [%g, %g]",
                      k, (double)v, (double)lo, (double)top);
        u[k] = (v - lo) / (top - lo);
    }
    qsort(u, N, sizeof u[0], cmp_double);
    double d = 0.0;
    for (int k = 0; k < N; k++) {
        const double f = fmin(1.0, fmax(0.0, u[k]));
        d = fmax(d, fmax(fabs(f - (double)k / N), fabs((double)(k + 1) / N - f)));
    }
    ck_assert_msg(d < 1.628 / sqrt((double)N), "KS D = %g against uniform [%g, %g]", d, (double)lo,
                  (double)top);
    th_world_destroy(w);
}

START_TEST(free_speeds_follow_the_crowd_distribution) {
    free_speeds(0.8f, 1.6f, 2.5f);
    free_speeds(1.0f, 3.0f, 2.0f); /* capped: uniform on [1, 2] */
    /* Nothing of the range under max_speed: refused. */
    th_world_def wd = th_default_world_def();
    th_world *w = th_world_create(&wd, NULL);
    th_crowd_def cd = th_default_pedestrian_def();
    cd.free_speed = dist(TH_DISTRIB_UNIFORM, 3.0f, 4.0f, 0, 0);
    th_error err;
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), -1);
    ck_assert_msg(strstr(err.message, "free_speed"), "%s", err.message);
    th_world_destroy(w);
}
END_TEST

int main(void) {
    Suite *s = suite_create("pre_movement");
    TCase *tc = tcase_create("pre_movement");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, cdfs_match_known_values);
    tcase_add_loop_test(tc, draws_invert_the_truncated_cdf, 0, N_DISTS);
    tcase_add_loop_test(tc, random_draws_pass_kolmogorov_smirnov, 0, N_DISTS);
    tcase_add_test(tc, age_speeds_match_the_table);
    tcase_add_test(tc, bad_distributions_are_refused);
    tcase_add_test(tc, agents_stand_until_their_time);
    tcase_add_test(tc, same_hash_on_1_2_3_8_threads);
    tcase_add_test(tc, free_speeds_follow_the_crowd_distribution);
    suite_add_tcase(s, tc);
    return th_test_run(s);
}
