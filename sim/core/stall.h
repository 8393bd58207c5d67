/* Stalled agents (sim/core/stall.c): who has made no progress toward its goal for a time. */
#ifndef TH_SIM_STALL_H
#define TH_SIM_STALL_H

#include "sim/core/world.h"

/* Seconds without progress before an agent is stalled, when the world def leaves it 0. */
#define TH_STALL_TIME_DEFAULT 10.0f
#define TH_STALL_TIME_MAX     1e6f

/* Bookkeeping phase, serial: judge every agent's progress, mark the stalled ones in `flags`
 * (TH_AGENT_STALLED) and fill the world's stall counts. */
void th_stall_update(th_world *w);

/* Whether any agent's progress is judged: a crowd with a goal, or squads (whose members may be
 * of crowds without one). Agents of a world without either carry no stall state worth keeping. */
bool th_stall_judged(const th_world *w);

/* Remaining cost in metres at p on cost field `dist` (shelter or destination field),
 * interpolated between the centres of the four nearest cells (unreachable ones left out);
 * false when none of them is reachable. Also the groups' measure of who walks ahead. */
bool th_field_metres(const th_navmap *m, const uint32_t *dist, th_vec2 p, float *out);

#endif
