/* Stalled agents (sim/observe/stall.c): who has made no progress toward its goal for a time. */
#ifndef TH_SIM_STALL_H
#define TH_SIM_STALL_H

#include "sim/core/world.h"

/* Seconds without progress before an agent is stalled, when the world def leaves it 0. */
#define TH_STALL_TIME_DEFAULT 10.0f
#define TH_STALL_TIME_MAX     1e6f

/* The stall figures over the whole run, kept with the run history (sim/observe/report.c) and
 * written only by th_stall_update. Every field is a replicated value under several ranks
 * (counts summed, times the maximum over ranks), so every rank holds the same figures. */
typedef struct th_stall_run {
    uint64_t stalled_steps; /* the stalled count after each step, summed over the steps */
    uint64_t peak_step;     /* the step after which `peak` was first reached */
    uint32_t peak;          /* most agents stalled at once (at a judgement) */
    uint32_t queued;        /* agents queuing at the last judgement */
    uint32_t queued_peak;   /* most agents queuing at once */
    float longest;          /* seconds: the longest single stall, however it ended */
} th_stall_run;

/* Bookkeeping phase, serial: judge every agent's progress, mark the stalled ones in `flags`
 * (TH_AGENT_STALLED) and fill the world's stall counts and the run's figures. */
void th_stall_update(th_world *w);

#endif
