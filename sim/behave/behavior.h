/* Targets and pursuit (sim/behave/behavior.c). */
#ifndef TH_SIM_BEHAVIOR_H
#define TH_SIM_BEHAVIOR_H

#include "sim/core/world.h"

/* sim/behave/behavior.c: targets evaluated at the start of a step (serial); pursuit steering. */
void th_targets_update(th_world *w);
th_vec2 th_pursuit_steer(const th_world *w, const th_crowd_rt *c, th_vec2 p, th_vec2 v);
/* The unit direction a leader at p pursues (toward the target, or where it will be; the river
 * map's flow for a shelter target), (0,0) when there is none: the target is absent, reached,
 * or no bunker can be reached. */
th_vec2 th_pursuit_dir(const th_world *w, const th_crowd_rt *c, th_vec2 p);

#endif
