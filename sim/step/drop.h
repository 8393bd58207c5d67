/* Agents leaving the world (sim/step/drop.c): the step's storage-order pass over marked agents. */
#ifndef TH_SIM_DROP_H
#define TH_SIM_DROP_H

#include "sim/core/world.h"

/* Drop the agents whose `shelter` mark is set (TH_MARK_*), in storage order, counting them: the
 * removed ones always, those an exit lets out, those a bunker admits (the others stay, unmarked),
 * pushing each freed id slot in that order; replayed on every rank under several ranks. */
void th_world_drop_marked(th_world *w);
/* The removals asked for since the last step, marked and dropped at the start of this one. */
void th_world_apply_removals(th_world *w);

#endif
