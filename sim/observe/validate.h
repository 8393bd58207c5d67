/* Invariant checks inside a step (sim/observe/validate.c). */
#ifndef TH_SIM_VALIDATE_H
#define TH_SIM_VALIDATE_H

#include "sim/behave/contacts.h" /* TH_MAX_OVERLAP */
#include "sim/core/world.h"

/* sim/observe/validate.c: false (and the first violation recorded) when an invariant does not hold.
 */
bool th_validate_grid(th_world *w);   /* right after the grid phase */
bool th_validate_state(th_world *w);  /* after a whole step */
bool th_validate_bodies(th_world *w); /* after the contacts phase */
/* Where a violation was found, in the order of the step: under several ranks the violation
 * reported is the one found first in this order, on the lowest rank that found one. */
enum { TH_VALIDATE_GRID = 1, TH_VALIDATE_BODIES, TH_VALIDATE_AGENTS, TH_VALIDATE_TOTALS };

#endif
