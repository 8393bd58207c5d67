/* Agents' own goals (sim/behave/own_goal.c, throng.h th_world_set_agent_goal, docs/goals.md
 * "An agent's own goal"): a point walked to along a planned path, or another agent followed,
 * in place of the crowd's goal. (An own exit is exit_of_id: sim/behave/choice.h.)
 *
 * The world keeps a table of own goals, each with room for TH_AGENT_PATH_POINTS waypoints,
 * and per id the entry's index + 1 (own_of_id). The direction is read in the steer phase;
 * the waypoint reached is advanced in the integrate phase (each agent its own entry); after
 * terrain events the paths that the change can matter to are planned again, serially, with the
 * world's path-finding memory (no allocation). */
#ifndef TH_SIM_OWN_GOAL_H
#define TH_SIM_OWN_GOAL_H

#include "sim/core/world.h"
#include "throng/plan.h"

typedef struct th_own_goal {
    th_agent_id id; /* the agent it belongs to */
    th_agent_goal goal;
    float r2;       /* radius squared */
    uint32_t count; /* waypoints of the path (POINT) */
    uint32_t next;  /* the waypoint walked to */
    bool stuck;     /* POINT: no path from where it stood at the last plan */
    bool cut;       /* POINT: the path was longer than its room: it ends short of the point */
    bool replan;    /* POINT: it reached the end of a cut path: planned again (nav phase) */
    bool used;
    bool pending;   /* POINT: its path is the world's goal planner's to find (own_plan.h) */
    th_plan_id req; /* pending: its request to that planner, or null while it waits a slot */
    uint64_t since; /* pending: the step it was given */
    uint64_t seq;   /* pending: when it was given, in the order goals were given */
    bool unstuck;   /* POINT: planned again in its present stall (th_own_after_terrain) */
} th_own_goal;

/* A pending goal waiting for a request slot (own_plan.c sorts them). */
typedef struct th_own_order {
    int32_t priority;
    uint32_t entry;
    uint64_t seq;
} th_own_order;

/* A goal given to a selection at a step (th_world_schedule_agents_goal): due_ids[first ..
 * first + count) get `goal` at the start of step `step`. */
typedef struct th_goal_due {
    uint64_t step;
    th_agent_goal goal;
    uint32_t first, count;
} th_goal_due;

struct th_own_goals {
    th_own_goal *goal;
    th_vec2 *path;       /* TH_AGENT_PATH_POINTS per entry */
    th_own_order *order; /* as many: the goal planner's scratch (own_plan.c) */
    uint32_t count, cap;
    uint32_t reuse;   /* where entry_for looks for a free entry next */
    bool kept;        /* over several ranks: the last change had no way, and was not made */
    th_goal_due *due; /* by step, then in the order given */
    uint32_t due_count, due_cap;
    th_agent_id *due_ids;   /* the selections, in the order given */
    th_agent_id *due_spare; /* as large as due_ids: where th_own_due compacts them */
    uint32_t due_ids_count, due_ids_cap, due_spare_cap;
    uint32_t due_pending;          /* ids of the changes not made yet */
    uint64_t due_made, due_passed; /* changes made; passed over (the agent left, no path) */
};

/* g's waypoints: room for TH_AGENT_PATH_POINTS. */
static inline th_vec2 *th_own_path(const th_world *w, const th_own_goal *g) {
    return w->own->path + (size_t)(g - w->own->goal) * TH_AGENT_PATH_POINTS;
}

/* The agent in slot `slot` has an own goal: its entry, or NULL. */
static inline th_own_goal *th_own_of(const th_world *w, uint32_t slot) {
    if (!w->own || !w->own_of_id[slot]) return NULL;
    return &w->own->goal[w->own_of_id[slot] - 1u];
}

/* Its entry while the own goal steers it: a point, or an agent followed that is still in the
 * world; NULL otherwise (no own goal, an exit, which exit_of_id steers, or a followed agent
 * that has left: then its crowd's goal leads it again). */
static inline const th_own_goal *th_own_active(const th_world *w, uint32_t slot) {
    const th_own_goal *g = th_own_of(w, slot);
    if (!g || g->goal.kind == TH_AGENT_GOAL_EXIT) return NULL;
    if (g->goal.kind == TH_AGENT_GOAL_FOLLOW && th_agent_index(w, g->goal.follow) == UINT32_MAX)
        return NULL;
    return g;
}

/* steer: the unit direction of agent (id, at p) toward its own goal ((0, 0) there); false when
 * it has no way (stranded). */
bool th_own_direction(const th_world *w, const th_own_goal *g, th_vec2 p, th_vec2 *dir);
/* integrate: the agent moved to p; advance its waypoint. */
void th_own_moved(th_world *w, th_own_goal *g, th_vec2 p);
/* Between steps, before the host moves the agent in id slot `slot` to p
 * (th_world_set_agent_position): its own goal's point, if it has one, is planned again from
 * there (stuck when there is no way; a goal the goal planner holds is asked for again). False
 * with err, nothing changed, when the path memory cannot be had. */
bool th_own_placed(th_world *w, uint32_t slot, th_vec2 p, th_error *err);
/* Whether it stands at its own goal (stall judgement). */
bool th_own_arrived(const th_world *w, const th_own_goal *g, th_vec2 p);
/* nav phase: plan again the paths terrain events can matter to (map_changed), those cut
 * short whose end was reached and those whose agent stalled out of sight of its waypoint. */
void th_own_after_terrain(th_world *w, bool map_changed);
/* Where its own goal still goes from p: points after p (out NULL: counted) and metres; as
 * th_mover_plan. */
uint32_t th_own_plan(const th_world *w, const th_own_goal *g, th_vec2 p, th_vec2 *out, uint32_t max,
                     float *metres);
/* g's path from p with A* now (not through the goal planner); false when there is none. */
bool th_own_plan_at_once(th_world *w, th_own_goal *g, th_vec2 p);
/* Over several ranks (sim/dist/dist_mpi.c): the bytes an agent's own goal takes in a migrant's
 * record (0 without own goals: the same on every rank, since goals are given on all of them);
 * packing it as its agent leaves the rank in slot `slot` (its entry is freed), and storing it
 * for agent `id` that arrived (false when memory is short). */
size_t th_own_wire_size(const th_world *w);
void th_own_pack(th_world *w, uint32_t slot, unsigned char *p);
bool th_own_unpack(th_world *w, th_agent_id id, const unsigned char *p);
/* events phase: the goals given for this step, in the order given (serial). */
void th_own_due(th_world *w);
void th_own_free(th_world *w);

#endif
