/* Invariant checks inside a step (sim/core/validate.c). */
#ifndef TH_SIM_VALIDATE_H
#define TH_SIM_VALIDATE_H

#include "sim/core/world.h"

/* sim/core/validate.c: false (and the first violation recorded) when an invariant does not hold. */
bool th_validate_grid(th_world *w);   /* right after the grid phase */
bool th_validate_state(th_world *w);  /* after a whole step */
bool th_validate_bodies(th_world *w); /* after the contacts phase */
/* Largest overlap of two bodies, as a share of the smaller diameter, that validation accepts. */
#define TH_MAX_OVERLAP 0.1f

#endif
