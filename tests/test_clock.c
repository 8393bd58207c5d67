/* th_clock: the fixed-timestep accumulator.
 *
 * The clock is checked against its own bookkeeping identity (every second fed in is either
 * simulated, still waiting in the accumulator, or recorded as dropped) and against step counts
 * worked out by hand for frame lengths that are exact in binary floating point. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "throng/clock.h"
#include "test_util.h"

/* Deterministic pseudo-random inputs: SplitMix64. */
/* Uniform double in [0, 1). */
static double rand01(uint64_t *s) { return (double)(splitmix64(s) >> 11) * 0x1.0p-53; }

/* A frame length drawn from a mix that exercises every branch of advance: zero, tiny frames
 * that only feed the accumulator, ordinary frames of a few steps, and stalls far beyond the
 * catch-up bound. */
static double random_frame(uint64_t *s, double dt) {
    uint64_t kind = splitmix64(s) % 16;
    if (kind == 0) return 0.0;
    if (kind <= 4) return rand01(s) * dt * 0.1;
    if (kind <= 13) return rand01(s) * dt * 4.0;
    if (kind == 14) return dt * (double)(1 + splitmix64(s) % 8); /* whole multiples of dt */
    return rand01(s) * 3.0;                                      /* stall of up to 3 s */
}

static int rel_close(double a, double b, double rel) {
    double scale = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    if (scale < 1.0) scale = 1.0;
    return fabs(a - b) <= rel * scale;
}

/* ---- conservation of time ------------------------------------------------------------- */

static const double k_dts[] = {1.0 / 60.0, 1.0 / 120.0, 0.01, 1.0 / 7.0, 0.25};
static const int k_max_steps[] = {1, 3, 8, 1000};

START_TEST(test_no_lost_or_extra_time) {
    for (size_t di = 0; di < sizeof k_dts / sizeof k_dts[0]; di++) {
        for (size_t mi = 0; mi < sizeof k_max_steps / sizeof k_max_steps[0]; mi++) {
            double dt = k_dts[di];
            int max_steps = k_max_steps[mi];
            uint64_t seed = 0x1234u + di * 131u + mi;
            th_clock c = th_clock_make(dt, max_steps);
            ck_assert(c.dt == dt);
            ck_assert_int_eq(c.max_steps, max_steps);
            double fed = 0.0;
            uint64_t granted = 0;
            for (int f = 0; f < 20000; f++) {
                double e = random_frame(&seed, dt);
                double before = c.accumulator, dropped_before = c.dropped;
                int n = th_clock_advance(&c, e);
                fed += e;
                granted += (uint64_t)n;
                CHECK(n >= 0);
                CHECK(n <= max_steps);
                CHECK(c.accumulator >= 0.0 && c.accumulator < dt);
                CHECK(c.dropped >= dropped_before);
                /* Never more steps than the time available allows ... */
                double avail = before + e;
                CHECK_MSG(n * dt <= avail * (1.0 + 1e-12) + 1e-15,
                          "granted %d steps of %g s from %g s", n, dt, avail);
                /* ... and, below the bound, never fewer: what is left is less than a step. */
                if (n < max_steps) {
                    CHECK_MSG(avail - n * dt < dt * (1.0 + 1e-9),
                              "granted only %d steps of %g s from %g s", n, dt, avail);
                    CHECK(c.dropped == dropped_before);
                }
                /* Time is only dropped once the bound is reached. */
                if (c.dropped > dropped_before) CHECK(n == max_steps);
            }
            ck_assert_uint_eq(c.steps, granted);
            double accounted = (double)granted * dt + c.accumulator + c.dropped;
            ck_assert_msg(rel_close(accounted, fed, 1e-9),
                          "dt %g max %d: fed %.17g s, accounted %.17g s", dt, max_steps, fed,
                          accounted);
        }
    }
}
END_TEST

/* With frames never longer than (max_steps - 1) * dt the bound is never reached: nothing is
 * dropped and the step count is the fed time divided by dt, rounded down. */
START_TEST(test_nothing_dropped_below_bound) {
    const double dt = 1.0 / 60.0;
    const int max_steps = 6;
    th_clock c = th_clock_make(dt, max_steps);
    uint64_t seed = 99;
    double fed = 0.0;
    for (int f = 0; f < 50000; f++) {
        double e = rand01(&seed) * dt * (max_steps - 1);
        fed += e;
        th_clock_advance(&c, e);
    }
    ck_assert(c.dropped == 0.0);
    double expect = floor(fed / dt);
    ck_assert_msg(fabs((double)c.steps - expect) <= 1.0, "steps %llu, fed/dt %.6f",
                  (unsigned long long)c.steps, fed / dt);
    ck_assert(rel_close((double)c.steps * dt + c.accumulator, fed, 1e-9));
}
END_TEST

/* Frame lengths that are exact in binary make every sum exact, so the step pattern is known. */
START_TEST(test_exact_step_pattern) {
    th_clock c = th_clock_make(0.25, 4);
    for (int f = 1; f <= 400; f++) {
        int n = th_clock_advance(&c, 0.0625);
        CHECK(n == (f % 4 == 0 ? 1 : 0));
    }
    ck_assert_uint_eq(c.steps, 100);
    ck_assert(c.accumulator == 0.0);

    /* Half a step per frame at dt = 1/60: doubling is exact, so steps alternate 0, 1. */
    th_clock d = th_clock_make(1.0 / 60.0, 4);
    for (int f = 1; f <= 600; f++) {
        int n = th_clock_advance(&d, 1.0 / 120.0);
        CHECK(n == (f % 2 == 0 ? 1 : 0));
    }
    ck_assert_uint_eq(d.steps, 300);

    /* Exactly max_steps steps of time grants max_steps and drops nothing. */
    th_clock e = th_clock_make(0.25, 4);
    ck_assert_int_eq(th_clock_advance(&e, 1.0), 4);
    ck_assert(e.accumulator == 0.0);
    ck_assert(e.dropped == 0.0);
}
END_TEST

/* ---- catch-up bound ------------------------------------------------------------------- */

START_TEST(test_catch_up_bound) {
    const int bounds[] = {1, 4, 5, 8};
    for (size_t b = 0; b < sizeof bounds / sizeof bounds[0]; b++) {
        const double dt = 1.0 / 60.0;
        th_clock c = th_clock_make(dt, bounds[b]);
        /* A little time already waiting, so the stall is added to a non-zero accumulator. */
        ck_assert_int_eq(th_clock_advance(&c, dt * 0.5), 0);
        int n = th_clock_advance(&c, 10.0);
        ck_assert_int_eq(n, bounds[b]);
        ck_assert_uint_eq(c.steps, (uint64_t)bounds[b]);
        ck_assert(c.accumulator >= 0.0 && c.accumulator < dt);
        /* Nearly all of the stall is recorded as dropped, none of it silently lost. */
        double fed = dt * 0.5 + 10.0;
        ck_assert(c.dropped > fed - (bounds[b] + 1) * dt);
        ck_assert(rel_close(bounds[b] * dt + c.accumulator + c.dropped, fed, 1e-12));
        /* The stall does not snowball: the next short frame grants at most one step. */
        int next = th_clock_advance(&c, dt * 0.5);
        ck_assert_int_le(next, 1);
    }
}
END_TEST

/* Dropped time is the excess in whole steps, so the fraction of a step stays pending and alpha
 * does not jump: a 10.125-step stall at dt 0.25 with bound 4 grants 4, drops 6 steps' worth
 * (1.5 s) and keeps 0.125 of a step (0.03125 s). */
START_TEST(test_catch_up_keeps_fraction) {
    th_clock c = th_clock_make(0.25, 4);
    ck_assert_int_eq(th_clock_advance(&c, 2.5 + 0.03125), 4);
    ck_assert(c.dropped == 1.5);
    ck_assert(c.accumulator == 0.03125);
}
END_TEST

START_TEST(test_max_steps_at_least_one) {
    th_clock a = th_clock_make(0.5, 0);
    th_clock b = th_clock_make(0.5, -3);
    ck_assert_int_eq(a.max_steps, 1);
    ck_assert_int_eq(b.max_steps, 1);
    ck_assert_int_eq(th_clock_advance(&a, 5.0), 1);
    ck_assert_int_eq(th_clock_advance(&b, 5.0), 1);
    ck_assert(a.accumulator >= 0.0 && a.accumulator < 0.5);
    ck_assert(rel_close(0.5 + a.accumulator + a.dropped, 5.0, 1e-12));
}
END_TEST

/* ---- alpha ---------------------------------------------------------------------------- */

START_TEST(test_alpha_range_and_value) {
    for (size_t di = 0; di < sizeof k_dts / sizeof k_dts[0]; di++) {
        double dt = k_dts[di];
        th_clock c = th_clock_make(dt, 5);
        ck_assert(th_clock_alpha(&c) == 0.0);
        uint64_t seed = 7 + di;
        for (int f = 0; f < 20000; f++) {
            th_clock_advance(&c, random_frame(&seed, dt));
            double a = th_clock_alpha(&c);
            CHECK_MSG(a >= 0.0 && a < 1.0, "alpha %.17g", a);
            double ratio = c.accumulator / dt;
            if (ratio < 1.0) CHECK_MSG(a == ratio, "alpha %.17g, acc/dt %.17g", a, ratio);
        }
    }
}
END_TEST

START_TEST(test_alpha_exact) {
    th_clock c = th_clock_make(0.25, 4);
    th_clock_advance(&c, 0.125);
    ck_assert(th_clock_alpha(&c) == 0.5);
    th_clock_advance(&c, 0.0625);
    ck_assert(th_clock_alpha(&c) == 0.75);
    th_clock_advance(&c, 0.0625);
    ck_assert(th_clock_alpha(&c) == 0.0);
    ck_assert_uint_eq(c.steps, 1);
}
END_TEST

/* ---- bad elapsed values --------------------------------------------------------------- */

START_TEST(test_bad_elapsed_counts_as_zero) {
    const double bad[] = {-1.0, -1e-300, -DBL_MAX, -INFINITY, INFINITY, NAN, -NAN, -0.0};
    th_clock c = th_clock_make(0.25, 4);
    th_clock_advance(&c, 0.125);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        th_clock before = c;
        ck_assert_int_eq(th_clock_advance(&c, bad[i]), 0);
        ck_assert_msg(c.accumulator == before.accumulator, "elapsed %g changed the accumulator",
                      bad[i]);
        ck_assert(c.dropped == before.dropped);
        ck_assert_uint_eq(c.steps, before.steps);
        ck_assert(th_clock_alpha(&c) == 0.5);
    }
    /* The clock still works normally afterwards. */
    ck_assert_int_eq(th_clock_advance(&c, 0.125), 1);
    ck_assert(c.accumulator == 0.0);
}
END_TEST

/* A negative frame must not cancel time already fed: it would otherwise hide later steps. */
START_TEST(test_negative_does_not_cancel) {
    th_clock c = th_clock_make(0.25, 4);
    th_clock_advance(&c, 0.125);
    th_clock_advance(&c, -0.125);
    ck_assert_int_eq(th_clock_advance(&c, 0.125), 1);
}
END_TEST

static Suite *clock_suite(void) {
    Suite *s = suite_create("clock");
    TCase *tc = tcase_create("accumulator");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_no_lost_or_extra_time);
    tcase_add_test(tc, test_nothing_dropped_below_bound);
    tcase_add_test(tc, test_exact_step_pattern);
    suite_add_tcase(s, tc);

    tc = tcase_create("catch_up");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_catch_up_bound);
    tcase_add_test(tc, test_catch_up_keeps_fraction);
    tcase_add_test(tc, test_max_steps_at_least_one);
    suite_add_tcase(s, tc);

    tc = tcase_create("alpha");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_alpha_range_and_value);
    tcase_add_test(tc, test_alpha_exact);
    suite_add_tcase(s, tc);

    tc = tcase_create("bad_input");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_bad_elapsed_counts_as_zero);
    tcase_add_test(tc, test_negative_does_not_cancel);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return th_test_run(clock_suite()); }
