/* The world's planner of agents' own point goals (sim/behave/own_plan.c, throng/plan.h
 * th_world_set_goal_planning, docs/planning.md "The world's goal planning").
 *
 * With it on, an own point goal's path is not planned at once: the entry is marked pending and
 * its request goes to a th_planner the world holds. The step's "own paths" part (nav phase,
 * serial) submits pending entries while request slots are free (by priority, then entry
 * order), serves the planner with the budget and copies each answer into its entry's path.
 * Meanwhile the steer phase reads the request's heading point (read only). */
#ifndef TH_SIM_OWN_PLAN_H
#define TH_SIM_OWN_PLAN_H

#include "sim/behave/own_goal.h"
#include "throng/plan.h"

struct th_own_planning {
    th_planner *planner;
    th_goal_planning def;
    bool maybe_waiting; /* an entry was marked pending since the last part found none */
    uint32_t waiting, searching;
    uint64_t answered, unreachable, at_once, expanded;
    uint64_t given; /* goals given to it: their order (th_own_goal.seq) */
    uint32_t last_expanded, most_steps;
    uint64_t wait_steps;
};

/* plan_point: the planner takes g's path (true: g is pending, with no path yet), or it is
 * planned at once (false: no planner, or stairs added since it was made that its hierarchy has
 * no room for). */
bool th_own_plan_defer(th_world *w, th_own_goal *g);
/* Whether a point given now goes to the planner (on, and its hierarchy holds the map's
 * stairs). */
bool th_own_plan_defers(const th_world *w);
/* g's entry is overwritten or freed: its request, if any, is released. */
void th_own_plan_drop(th_world *w, th_own_goal *g);
/* steer: the point a pending g's agent walks to now; false when there is none (unreachable). */
bool th_own_plan_aim(const th_world *w, const th_own_goal *g, th_vec2 *at);
/* nav phase ("own paths", serial): submit, serve, collect. No allocation. */
void th_own_plan_serve(th_world *w);
void th_own_plan_free(th_world *w);

#endif
