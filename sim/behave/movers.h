/* The classic movers (sim/behave/movers.c). */
#ifndef TH_SIM_MOVERS_H
#define TH_SIM_MOVERS_H

#include "sim/core/world.h"

/* sim/behave/movers.c: the classic movers, called from the goal functions above for their kinds. */
static inline bool th_mover_kind(th_goal_kind k) {
    return k >= TH_GOAL_CRASH_AND_TURN && k <= TH_GOAL_WAYPOINTS;
}
/* Check the def and build the mover's tables into one block, *mem (owned by the world like a
 * route copy, freed with th_free; NULL when the mover needs none). */
bool th_mover_setup(const th_world *w, const th_goal_def *g, th_crowd_rt *c, th_vec2 **mem,
                    th_error *err);
/* The stored def's arrays pointed at the world's copies (the caller's may not outlive it). */
void th_mover_def_stored(th_goal_def *g, const th_crowd_rt *c);
void th_mover_agent_added(const th_world *w, th_goal_state *s, const th_crowd_rt *c, th_vec2 v);
bool th_mover_direction(const th_world *w, const th_goal_state *s, const th_crowd_rt *c, th_vec2 p,
                        th_vec2 *dir);
void th_mover_moved(const th_world *w, th_goal_state *s, const th_crowd_rt *c, th_vec2 p,
                    th_vec2 v);
/* A waypoint walker's destination: the node's position and the squared radius within which it
 * has arrived; a crash-and-turn walker's point while it walks straight to it. False for other
 * movers, for a waypoint walker not yet heading there and a crash-and-turn walker on a detour
 * (state s). */
bool th_mover_destination(const th_crowd_rt *c, const th_goal_state *s, th_vec2 *at, float *r2);
/* Where a mover still goes from p (state s), for the per-agent queries: the points after p
 * into out (at most max; out NULL: counted, not kept) and the metres along them; returns their
 * count, UINT32_MAX when the
 * mover has no end to walk to (a heading, a wall, a trail, a waypoint walker that has found no
 * node yet) and UINT32_MAX - 1 when max is too small. A crash-and-turn walker to a point: the
 * point and the straight distance (it does not plan its detours). */
uint32_t th_mover_plan(const th_goal_state *s, const th_crowd_rt *c, th_vec2 p, th_vec2 *out,
                       uint32_t max, float *metres);
/* Bookkeeping (serial): targets drop their breadcrumbs. */
void th_movers_update(th_world *w);

#endif
