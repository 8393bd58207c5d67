/* Crowd goals (sim/behave/goal.c): the direction each agent wants to walk in. */
#ifndef TH_SIM_GOAL_H
#define TH_SIM_GOAL_H

#include "sim/core/world.h"

/* sim/behave/goal.c: crowd goals. */
/* Check a def's goal and fill the runtime fields of `c` (route copied into *route_copy, owned
 * by the world, freed with th_free). False with `err` filled. */
bool th_goal_setup(const th_world *w, const th_goal_def *g, th_crowd_rt *c, th_vec2 **route_copy,
                   th_error *err);
/* Whether a goal kind keeps per-agent state (th_goal_state). */
static inline bool th_goal_stateful(th_goal_kind k) {
    return k == TH_GOAL_ROUTE || k == TH_GOAL_WANDER ||
           (k >= TH_GOAL_CRASH_AND_TURN && k <= TH_GOAL_WAYPOINTS) || k == TH_GOAL_FORAGE;
}
/* A new agent's goal state. */
void th_goal_agent_added(th_world *w, th_agent_id id, const th_crowd_rt *c, th_vec2 v);
/* An agent the host moved elsewhere (th_world_set_agent_position): a mover's state (the cell,
 * crumb or node it walked to) starts anew; a route's waypoint, a wanderer's heading and a
 * forager's load are kept. */
void th_goal_agent_placed(th_world *w, th_agent_id id, const th_crowd_rt *c);
/* The unit direction agent `id` at p wants to walk in, as of step t (0 when it has arrived or
 * has no goal). False when its goal cannot be reached from p (stranded). */
bool th_goal_direction(const th_world *w, th_agent_id id, const th_crowd_rt *c, th_vec2 p,
                       th_vec2 *dir);
/* The goal and terrain terms of a boid's steering (the goal direction as a desired velocity,
 * the wall push); *stranded when its goal cannot be reached from p. Also for worlds without a
 * map (then only the goal term). */
th_vec2 th_goal_steer(const th_world *w, th_agent_id id, const th_crowd_rt *c, th_vec2 p, th_vec2 v,
                      bool *stranded);
/* The wall term of th_goal_steer alone, into *push: false (push untouched) where no wall is
 * near enough to push. */
bool th_goal_wall_push(const th_world *w, const th_crowd_rt *c, th_vec2 p, th_vec2 *push);
/* The goal's route cost field (nav units per cell) where one exists (shelter, destinations),
 * else NULL: pedestrians yield to those nearer the goal by it. */
const uint32_t *th_goal_cost_field(const th_world *w, const th_crowd_rt *c);
/* The same for one agent (id slot `slot`, at p): a fleeing agent with its own exit walks that
 * exit's river map (sim/behave/choice.h), one bound for an elevator its stop's field. */
const uint32_t *th_goal_agent_cost_field(const th_world *w, const th_crowd_rt *c, uint32_t slot,
                                         th_vec2 p);
/* After agent `id` moved to p in integration: advance its route, drift its wander heading. */
void th_goal_moved(th_world *w, th_agent_id id, const th_crowd_rt *c, th_vec2 p, th_vec2 v);
/* Congestion: allocate crowd c's field when its goal asks for one (sets c->congestion), undo
 * that for a crowd that could not be added, bring the due fields up to date in the nav phase
 * (`map_changed`: the map's cells changed in this step's events), and free them all. */
bool th_goal_congestion_add(th_world *w, const th_goal_def *g, th_crowd_rt *c, th_error *err);
void th_goal_congestion_undo(th_world *w, th_crowd_rt *c);
void th_goal_congestion_update(th_world *w, bool map_changed);
void th_goal_free(th_world *w);
/* Whether the straight leg from a to b (metres) touches a cell that `blocked` says is blocked;
 * the first such cell along the leg in *bx, *by. The cells are those of a cols x rows grid of
 * `cell` metres, taken modulo the grid when `wrap` (the leg then runs the short way). */
bool th_goal_leg_blocked(th_vec2 a, th_vec2 b, float cell, int32_t cols, int32_t rows, bool wrap,
                         bool (*blocked)(const void *ctx, int32_t x, int32_t y), const void *ctx,
                         int32_t *bx, int32_t *by);

#endif
