/* The planner's calls for the engine's own use inside a step (sim/terrain/plan.c): the world's
 * planner of agents' own goals (sim/behave/own_plan.c) calls them from the step's serial "own
 * paths" part and reads headings from the steer phase, where the public calls' between-steps
 * check would refuse. The caller keeps the planner for the world it was made for. */
#ifndef TH_SIM_PLAN_WORLD_H
#define TH_SIM_PLAN_WORLD_H

#include "throng/plan.h"

/* th_planner_submit past its checks: the null handle when every request slot is held. */
th_plan_id th_plan_submit_in(th_planner *p, const th_world *w, th_vec2 from, th_vec2 to,
                             int32_t priority);
/* Whether the planner's hierarchy holds every glued edge (stair) of the world's map: stairs
 * added after it was made may need more link slots than it was made with. Reads only. */
bool th_plan_holds_map(const th_planner *p, const th_world *w);
/* Request slots free now. */
uint32_t th_plan_free_slots(const th_planner *p);
/* th_planner_update past its checks: bring the planner up to date with the map, then serve
 * the queue with at most `budget` expansions; returns those spent. */
uint32_t th_plan_serve(th_planner *p, th_world *w, uint32_t budget);
/* The point a request's coarse route heads for now: its first waypoint after the start once
 * answered, the next cluster entrance of the best route so far while searched, the goal while
 * queued. False for an unknown handle, an unreachable goal or a start at the goal. Reads only:
 * safe from several threads while nothing serves the planner. */
bool th_plan_heading_point(const th_planner *p, th_plan_id id, th_vec2 *at);

#endif
