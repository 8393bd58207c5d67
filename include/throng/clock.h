/* Fixed-timestep clock (the "fix your timestep" accumulator).
 *
 * The host feeds real elapsed time; the clock answers how many fixed steps to run now. At most
 * `max_steps` are granted per frame; time beyond that is dropped (and counted), so a slow frame
 * never snowballs into ever more catch-up work. `alpha` in [0, 1) says how far real time is
 * between the last two steps, for rendering interpolation. */
#ifndef THRONG_CLOCK_H
#define THRONG_CLOCK_H

#include "api.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct th_clock {
    double dt;          /* step length, seconds (> 0) */
    double accumulator; /* real time not yet simulated, seconds, in [0, dt) after advance */
    double dropped;     /* real time discarded by the catch-up bound, seconds */
    uint64_t steps;     /* steps granted so far */
    int max_steps;      /* catch-up bound per advance (>= 1) */
} th_clock;

/** A clock with step `dt` seconds and at most `max_steps` steps per advance (min 1). */
TH_API th_clock th_clock_make(double dt, int max_steps);

/** Add `elapsed` seconds of real time (negative or NaN counts as 0); returns the number of steps
 *  to run now, in [0, max_steps]. */
TH_API int th_clock_advance(th_clock *c, double elapsed);

/** Interpolation factor between the previous and the current step, in [0, 1). */
TH_API double th_clock_alpha(const th_clock *c);

/** A monotonic clock in nanoseconds (CLOCK_MONOTONIC), for measuring the real time a host
 *  passes to th_clock_advance. */
TH_API uint64_t th_now_ns(void);

#ifdef __cplusplus
}
#endif

#endif
