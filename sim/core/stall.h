/* Stalled agents (sim/core/stall.c): who has made no progress toward its goal for a time. */
#ifndef TH_SIM_STALL_H
#define TH_SIM_STALL_H

#include "sim/core/world.h"

/* Seconds without progress before an agent is stalled, when the world def leaves it 0. */
#define TH_STALL_TIME_DEFAULT 10.0f
#define TH_STALL_TIME_MAX     1e6f

/* The stall figures over the whole run, kept with the run history (sim/core/report.c) and
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

/* Whether any agent's progress is judged: a crowd with a goal, or squads (whose members may be
 * of crowds without one). Agents of a world without either carry no stall state worth keeping. */
bool th_stall_judged(const th_world *w);

/* Several ranks: what the judgement under way lends a ghost of owned agent k (its standing and
 * the goal it walks to), packed by its owner into out[2] and stored on the ranks that read it
 * as a neighbour (th_dist_ghost_stall, between the two passes of a judgement). */
void th_stall_ghost_get(const th_world *w, uint32_t k, uint32_t out[2]);
void th_stall_ghost_put(th_world *w, uint32_t k, const uint32_t in[2]);

/* Remaining cost in metres at p on cost field `dist` (shelter or destination field),
 * interpolated between the centres of the four nearest cells (unreachable ones left out);
 * false when none of them is reachable. Also the groups' measure of who walks ahead. */
bool th_field_metres(const th_navmap *m, const uint32_t *dist, th_vec2 p, float *out);

#endif
