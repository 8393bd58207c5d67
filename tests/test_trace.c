/* Phase tracing: th_world_trace_start / _spans / _stop.
 *
 * A traced step must record, for every step, one span per phase on worker 0 (the stepping
 * thread), in phase order and without overlap, and at most one span per parallel phase on every
 * other worker (one that ran part of it: a worker that found no chunk left, or was kept from its
 * core until the others had done them all, has none).
 * Recording must not allocate, must not change the simulation, must stop cleanly when the
 * buffer is full, and stop (or destroy) must hand its memory back. Allocations are counted
 * through the allocation hook. */
#include <check.h>
#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/alloc.h"
#include "throng/throng.h"
#include "test_util.h"

/* ---- a hook that counts live blocks ------------------------------------------------------ */

static atomic_long g_live;

static void *live_alloc(size_t size, void *user) {
    (void)user;
    void *p = aligned_alloc(64, (size + 63u) & ~(size_t)63u);
    if (p) atomic_fetch_add(&g_live, 1);
    return p;
}

static void live_free(void *p, void *user) {
    (void)user;
    if (!p) return;
    atomic_fetch_sub(&g_live, 1);
    free(p);
}

static void hook_on(void) { th_set_allocator(&(th_allocator){live_alloc, live_free, NULL}); }
static void hook_off(void) { th_set_allocator(NULL); }

/* ---- helpers --------------------------------------------------------------------------------- */

static th_world *flock(uint32_t agents, uint32_t threads) {
    th_demo_opts o = {.agents = agents, .seed = 7, .threads = threads};
    th_error err;
    th_world *w = th_demo_create("flock", &o, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    return w;
}

static bool parallel_phase(th_phase p) {
    return p == TH_PHASE_GRID || p == TH_PHASE_STEER || p == TH_PHASE_INTEGRATE;
}

/* Count spans by step (relative to first_step), worker and phase, checking each span's shape,
 * that worker 0's phases of one step follow each other in order, and that other workers have
 * at most one span in each parallel phase (none in the others when serial_only_on_0). */
static void check_spans(th_world *w, uint64_t first_step, uint32_t steps, uint32_t workers,
                        bool serial_only_on_0) {
    uint32_t n = 0;
    const th_trace_span *s = th_world_trace_spans(w, &n);
    ck_assert_ptr_nonnull(s);
    enum { MAXS = 16, MAXW = 8 };
    ck_assert_uint_le(steps, MAXS);
    ck_assert_uint_le(workers, MAXW);
    uint32_t seen[MAXS][MAXW][TH_PHASE_COUNT];
    memset(seen, 0, sizeof seen);
    uint64_t w0_end[MAXS];
    int w0_last[MAXS];
    for (uint32_t k = 0; k < MAXS; k++) {
        w0_end[k] = 0;
        w0_last[k] = -1;
    }
    for (uint32_t i = 0; i < n; i++) {
        ck_assert_uint_ge(s[i].step, first_step);
        uint64_t st = s[i].step - first_step;
        ck_assert_uint_lt(st, steps);
        ck_assert_uint_lt(s[i].worker, workers);
        ck_assert_int_ge((int)s[i].phase, 0);
        ck_assert_int_lt((int)s[i].phase, TH_PHASE_COUNT);
        ck_assert_uint_le(s[i].begin_ns, s[i].end_ns);
        seen[st][s[i].worker][s[i].phase]++;
        if (s[i].worker == 0) {
            ck_assert_int_gt((int)s[i].phase, w0_last[st]);
            ck_assert_uint_ge(s[i].begin_ns, w0_end[st]);
            w0_last[st] = (int)s[i].phase;
            w0_end[st] = s[i].end_ns;
        }
    }
    for (uint32_t st = 0; st < steps; st++) {
        for (uint32_t k = 0; k < workers; k++) {
            for (int p = 0; p < TH_PHASE_COUNT; p++) {
                uint32_t most = k == 0 || !serial_only_on_0 || parallel_phase((th_phase)p);
                uint32_t least = k == 0;
                ck_assert_msg(seen[st][k][p] >= least && seen[st][k][p] <= most,
                              "step %u worker %u phase %s: %u spans, want %u to %u", st, k,
                              th_phase_name((th_phase)p), seen[st][k][p], least, most);
            }
        }
    }
}

/* ---- tests ------------------------------------------------------------------------------------
 */

START_TEST(spans_per_worker_and_phase) {
    /* 4,000 agents are 8 chunks: every parallel phase is a real parallel_for. */
    th_world *w = flock(4000, 2);
    th_world_step(w);
    th_error err;
    ck_assert(th_world_trace_start(w, 1000, &err));
    for (int i = 0; i < 5; i++) th_world_step(w);
    check_spans(w, 1, 5, 2, true);
    th_world_destroy(w);
}
END_TEST

START_TEST(oversubscribed_workers_record_on_their_own_tracks) {
    th_world *w = flock(6000, 4);
    ck_assert(th_world_trace_start(w, 1000, NULL));
    for (int i = 0; i < 3; i++) th_world_step(w);
    check_spans(w, 0, 3, 4, true);
    th_world_destroy(w);
}
END_TEST

START_TEST(one_worker_records_every_phase_on_worker_0) {
    th_world *w = flock(3000, 1);
    ck_assert(th_world_trace_start(w, 100, NULL));
    for (int i = 0; i < 4; i++) th_world_step(w);
    uint32_t n = 0;
    th_world_trace_spans(w, &n);
    ck_assert_uint_eq(n, 4 * TH_PHASE_COUNT);
    check_spans(w, 0, 4, 1, false);
    th_world_destroy(w);
}
END_TEST

START_TEST(nav_phases_of_a_terrain_scene) {
    th_demo_opts o = {.agents = 3000, .seed = 3, .threads = 2};
    th_world *w = th_demo_create("evac", &o, NULL);
    ck_assert_ptr_nonnull(w);
    ck_assert(th_world_trace_start(w, 1000, NULL));
    /* The first step builds every river map in parallel: a nav span on worker 0, and at most
     * one on worker 1 (when it got to one of the maps before worker 0 had built them all). */
    th_world_step(w);
    uint32_t n = 0;
    const th_trace_span *s = th_world_trace_spans(w, &n);
    uint32_t nav0 = 0, nav1 = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (s[i].phase == TH_PHASE_NAV) {
            nav0 += s[i].worker == 0;
            nav1 += s[i].worker == 1;
            ck_assert_uint_gt(s[i].end_ns, s[i].begin_ns);
        }
    }
    ck_assert_uint_eq(nav0, 1);
    ck_assert_uint_le(nav1, 1);
    th_world_destroy(w);
}
END_TEST

START_TEST(tracing_leaves_the_simulation_unchanged) {
    th_world *a = flock(5000, 2), *b = flock(5000, 2);
    ck_assert(th_world_trace_start(b, 64, NULL)); /* fills up after a few steps */
    for (int i = 0; i < 20; i++) {
        th_world_step(a);
        th_world_step(b);
    }
    ck_assert_uint_eq(th_world_hash(a), th_world_hash(b));
    th_world_destroy(a);
    th_world_destroy(b);
}
END_TEST

START_TEST(full_buffer_stops_recording) {
    th_world *w = flock(4000, 2);
    /* A step of 2 workers records every phase on worker 0, and on worker 1 those of the three
     * parallel phases that run without bodies (grid, steer, integrate) it took part in. */
    const uint32_t most_per_step = TH_PHASE_COUNT + 3;
    ck_assert(th_world_trace_start(w, most_per_step + 1, NULL));
    for (int i = 0; i < 6; i++) th_world_step(w);
    uint32_t n = 0;
    const th_trace_span *s = th_world_trace_spans(w, &n);
    ck_assert_uint_eq(n, most_per_step + 1);
    /* The spans kept are the first ones: all of the first step (every phase on worker 0), then
     * the second step's first ones, in order of steps. */
    uint32_t first_step_on_0 = 0;
    for (uint32_t i = 0; i < n; i++) {
        ck_assert_uint_le(s[i].step, 1);
        if (i > 0) ck_assert_uint_ge(s[i].step, s[i - 1].step);
        first_step_on_0 += s[i].step == 0 && s[i].worker == 0;
    }
    ck_assert_uint_eq(first_step_on_0, TH_PHASE_COUNT);
    ck_assert_uint_eq(s[n - 1].step, 1);
    th_world_destroy(w);
}
END_TEST

START_TEST(no_allocation_while_tracing) {
    th_world *w = flock(4000, 2);
    th_world_step(w);
    ck_assert(th_world_trace_start(w, 4096, NULL));
    uint64_t before = th_alloc_count();
    for (int i = 0; i < 10; i++) th_world_step(w);
    ck_assert_uint_eq(th_alloc_count(), before);
    th_world_destroy(w);
}
END_TEST

START_TEST(stop_and_destroy_free_the_buffer) {
    hook_on();
    th_world *w = flock(2000, 2);
    th_world_step(w);
    long live = atomic_load(&g_live);
    ck_assert(th_world_trace_start(w, 500, NULL));
    ck_assert_int_gt(atomic_load(&g_live), live);
    th_world_step(w);
    /* Starting again discards the earlier recording and its memory. */
    ck_assert(th_world_trace_start(w, 500, NULL));
    uint32_t n = 1;
    th_world_trace_spans(w, &n);
    ck_assert_uint_eq(n, 0);
    th_world_trace_stop(w);
    ck_assert_int_eq(atomic_load(&g_live), live);
    ck_assert_ptr_null(th_world_trace_spans(w, &n));
    ck_assert_uint_eq(n, 0);
    th_world_trace_stop(w); /* stopping twice is harmless */
    th_world_step(w);       /* and stepping untraced goes on */
    ck_assert(th_world_trace_start(w, 500, NULL));
    th_world_step(w);
    th_world_destroy(w); /* still recording: destroy frees the buffer */
    ck_assert_int_eq(atomic_load(&g_live), 0);
    hook_off();
}
END_TEST

/* ---- phases of a scene with bunkers and squads ------------------------------------------ */

#ifndef THRONG_SCENES_DIR
#define THRONG_SCENES_DIR "scenes"
#endif

static uint64_t wall_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The worker-0 span of `phase` in step `step`, or NULL. */
static const th_trace_span *w0_span(const th_trace_span *s, uint32_t n, uint64_t step,
                                    th_phase phase) {
    for (uint32_t i = 0; i < n; i++)
        if (s[i].worker == 0 && s[i].step == step && s[i].phase == phase) return &s[i];
    return NULL;
}

/* The flood: townspeople walk into a hall (a bunker) while a squad of rescuers marches. Every
 * step's phases are non-negative and, the profiler's clock reads being contiguous, add up to
 * the span from the first phase's start to the last one's end in the trace, which lies inside
 * the wall time measured around th_world_step. The serial phases after contacts follow each
 * other with no gap, and the trace and the profiler agree on each one's length. Over the run,
 * admission (agents did get in) and the squads' update take time of their own. */
START_TEST(admit_and_squads_are_phases_of_their_own) {
    th_error err;
    th_world *w =
        th_scene_load(THRONG_SCENES_DIR "/flood.yaml", &(th_scene_opts){.threads = 2}, NULL, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    th_squad_info squad;
    ck_assert(th_world_get_squad(w, SQUAD_ID(0), &squad));
    uint64_t admitting_steps = 0;
    for (int i = 0; i < 3600 && admitting_steps < 3; i++) {
        ck_assert(th_world_trace_start(w, 64, NULL)); /* one step's spans at a time */
        uint64_t step = th_world_step_count(w);
        uint32_t sheltered = th_world_get_stats(w).sheltered;
        uint64_t t0 = wall_ns();
        th_world_step(w);
        uint64_t t1 = wall_ns();
        if (th_world_get_stats(w).sheltered > sheltered) admitting_steps++;

        uint32_t n = 0;
        const th_trace_span *s = th_world_trace_spans(w, &n);
        const th_trace_span *first = w0_span(s, n, step, TH_PHASE_EVENTS);
        const th_trace_span *last = w0_span(s, n, step, TH_PHASE_HISTORY);
        ck_assert(first && last);
        double sum = 0;
        for (int p = 0; p < TH_PHASE_COUNT; p++) {
            double ms = th_world_phase_last_ms(w, (th_phase)p);
            ck_assert(ms >= 0);
            sum += ms;
        }
        double span_ms = (double)(last->end_ns - first->begin_ns) * 1e-6;
        ck_assert_msg(fabs(sum - span_ms) < 1e-6, "phases %.6f ms, step %.6f ms", sum, span_ms);
        ck_assert_uint_ge(first->begin_ns, t0);
        ck_assert_uint_le(last->end_ns, t1);
        const th_phase tail[] = {TH_PHASE_BOOKKEEPING, TH_PHASE_ADMIT, TH_PHASE_SQUADS,
                                 TH_PHASE_HISTORY};
        for (int k = 0; k < 4; k++) {
            const th_trace_span *sp = w0_span(s, n, step, tail[k]);
            ck_assert_ptr_nonnull(sp);
            ck_assert(fabs((double)(sp->end_ns - sp->begin_ns) * 1e-6 -
                           th_world_phase_last_ms(w, tail[k])) < 1e-9);
            if (k > 0) ck_assert_uint_eq(sp->begin_ns, w0_span(s, n, step, tail[k - 1])->end_ns);
        }
    }
    ck_assert_uint_eq(admitting_steps, 3);
    ck_assert(th_world_phase_ms(w, TH_PHASE_ADMIT) > 0);
    ck_assert(th_world_phase_ms(w, TH_PHASE_SQUADS) > 0);
    th_world_destroy(w);
}
END_TEST

START_TEST(bad_sizes_are_refused) {
    th_world *w = flock(100, 1);
    th_error err = {0};
    ck_assert(!th_world_trace_start(w, 0, &err));
    TH_TEST_ERR(err, TH_ERR_INVALID);
    ck_assert(!th_world_trace_start(w, UINT32_MAX, &err));
    uint32_t n = 1;
    ck_assert_ptr_null(th_world_trace_spans(w, &n));
    ck_assert_uint_eq(n, 0);
    th_world_destroy(w);
}
END_TEST

int main(void) {
    Suite *s = suite_create("trace");
    TCase *tc = tcase_create("trace");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, spans_per_worker_and_phase);
    tcase_add_test(tc, oversubscribed_workers_record_on_their_own_tracks);
    tcase_add_test(tc, one_worker_records_every_phase_on_worker_0);
    tcase_add_test(tc, nav_phases_of_a_terrain_scene);
    tcase_add_test(tc, tracing_leaves_the_simulation_unchanged);
    tcase_add_test(tc, full_buffer_stops_recording);
    tcase_add_test(tc, no_allocation_while_tracing);
    tcase_add_test(tc, stop_and_destroy_free_the_buffer);
    tcase_add_test(tc, admit_and_squads_are_phases_of_their_own);
    tcase_add_test(tc, bad_sizes_are_refused);
    suite_add_tcase(s, tc);
    return th_test_run(s);
}
