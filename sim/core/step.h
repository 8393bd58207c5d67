/* The step (sim/core/step.c): what other modules use of it. */
#ifndef TH_SIM_STEP_H
#define TH_SIM_STEP_H

#include "sim/core/world.h"

/* sim/core/step.c: keep a position inside the world (bounce off walled edges, wrap on a torus). */
void th_world_bound(const th_world *w, th_vec2 *p, th_vec2 *v);

#endif
