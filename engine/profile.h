/* Phase profiler: nanosecond wall-clock timers for each phase of each step.
 *
 * The owner of a step brackets each phase with th_prof_begin / th_prof_end. `last_ns` holds the
 * latest step's time per phase, `total_ns` the sum since the last reset, `steps` how many steps
 * that sum covers. Only the stepping thread writes; readers read between steps. */
#ifndef TH_PROFILE_H
#define TH_PROFILE_H

#include <stdint.h>

#include "throng/clock.h" /* th_now_ns */

#define TH_PROF_MAX_PHASES 16

typedef struct th_profiler {
    uint32_t phase_count;
    const char *names[TH_PROF_MAX_PHASES];
    uint64_t last_ns[TH_PROF_MAX_PHASES];
    uint64_t total_ns[TH_PROF_MAX_PHASES];
    uint64_t steps;
    uint64_t started_ns; /* time stamp of the open phase */
} th_profiler;

/** Set phase names (at most TH_PROF_MAX_PHASES; names must outlive the profiler) and reset. */
void th_prof_init(th_profiler *p, const char *const *names, uint32_t count);

/** Zero all totals and counters. */
void th_prof_reset(th_profiler *p);

static inline void th_prof_begin(th_profiler *p) { p->started_ns = th_now_ns(); }

/** Close the open phase and charge its time to `phase`; returns the elapsed nanoseconds. */
static inline uint64_t th_prof_end(th_profiler *p, uint32_t phase) {
    uint64_t now = th_now_ns();
    uint64_t dt = now - p->started_ns;
    p->last_ns[phase] = dt;
    p->total_ns[phase] += dt;
    p->started_ns = now;
    return dt;
}

/** Mark the end of a step (counts it for averages). */
static inline void th_prof_step_done(th_profiler *p) { p->steps++; }

/** Mean milliseconds per step spent in `phase` since the last reset (0 with no step). */
double th_prof_mean_ms(const th_profiler *p, uint32_t phase);

#endif
