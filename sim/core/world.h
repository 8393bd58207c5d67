/* The world's private layout: the agent arrays, per-crowd values derived from the defs, and
 * struct th_world itself, shared by the sim/ sources and white-box tests. The functions of each
 * module are declared in that module's own header beside its source. */
#ifndef TH_SIM_WORLD_H
#define TH_SIM_WORLD_H

#include <stddef.h>

#include "engine/alloc.h"
#include "engine/check.h"
#include "engine/grid.h"
#include "engine/jobs.h"
#include "engine/profile.h"
#include "sim/core/error.h"
#include "sim/nav/nav.h"
#include "sim/nav/world_nav.h"
#include "throng/throng.h"

/* Agents per parallel chunk. It fixes how work is cut and so every per-chunk partial result;
 * it must not depend on the thread count (determinism). 512 agents are ~50-100 us of steering:
 * small enough to balance two to eight workers, large enough that claiming is free. */
#define TH_CHUNK 512u

/* Agent arrays carry this many spare elements past capacity, so the vectorised neighbour loop
 * may load a whole block of 8 at the end of a cell range (the extra lanes are masked off). */
#define TH_SIMD_PAD 8u

/* Seconds over which a pedestrian's counterflow awareness fades once nothing feeds it. */
#define TH_PED_MEMORY 3.0f

typedef struct th_squad th_squad;

/* Every per-agent array in storage (cell-sorted) order, declared once: X(name, type, kind).
 * Growth, adding an agent, the step's gather and the compaction after removals are all driven
 * by this table (sim/core/storage.c, sim/core/agents.c, sim/step/drop.c, sim/step/step.c), so an
 * array added here is carried everywhere it must be. kind BUF: agent state, one array in each of
 * the two th_agents buffers, gathered into cell order at the start of each step; kind PED: the
 * same, but gathered only in worlds with a pedestrian crowd (only pedestrians read or write them);
 * kind ONE: one array in the world, written afresh by each step for the agents in their new order
 * (so not gathered) and kept in step with the state when agents are removed. A new agent starts
 * with zeros in every array but the state it is given. */
#define TH_AGENT_ARRAYS(X)                                                                 \
    X(px, float, BUF)                                                                      \
    X(py, float, BUF)                                                                      \
    X(vx, float, BUF)                                                                      \
    X(vy, float, BUF)                                                                      \
    X(crowd, uint16_t, BUF)                                                                \
    /* flocking type: the crowd's explicit type, or TH_MAX_TYPES + crowd */                \
    X(type, uint16_t, BUF)                                                                 \
    X(id, th_agent_id, BUF)                                                                \
    /* pedestrians: how aware the agent is of oncoming traffic, 0 to 1 */                  \
    X(aware, float, PED)                                                                   \
    /* pedestrians: the share of the neighbours that come the other way, 0 to 1 */         \
    X(against, float, PED)                                                                 \
    /* pedestrians: the unit walking direction of the last step (0, 0 before the first) */ \
    X(ex, float, PED)                                                                      \
    X(ey, float, PED)                                                                      \
    /* pedestrians: the unit goal direction of the last step (0, 0 before the first) */    \
    X(hx, float, PED)                                                                      \
    X(hy, float, PED)                                                                      \
    /* steering acceleration of the last step */                                           \
    X(ax, float, ONE)                                                                      \
    X(ay, float, ONE)                                                                      \
    /* grid cell of each agent */                                                          \
    X(cell, uint32_t, ONE)                                                                 \
    /* same-crowd agents seen in the last step */                                          \
    X(neighbors, uint16_t, ONE)                                                            \
    /* TH_AGENT_LEADER | TH_AGENT_STRANDED of the last step */                             \
    X(flags, uint8_t, ONE)                                                                 \
    /* bunker index + 1 the agent stepped into this step, or 0 (or a TH_MARK_* below) */   \
    X(shelter, uint8_t, ONE)                                                               \
    /* pedestrians: the awareness the step computed, stored by integration */              \
    X(aware_next, float, ONE)                                                              \
    X(against_next, float, ONE)                                                            \
    X(ex_next, float, ONE)                                                                 \
    X(ey_next, float, ONE)                                                                 \
    X(hx_next, float, ONE)                                                                 \
    X(hy_next, float, ONE)                                                                 \
    /* in a building: level index + 1 of the agent's cell (0 off every level), set by      \
     * the grid phase for the pedestrians' sensing */                                      \
    X(level, uint8_t, ONE)

/* TH_AGENT_KIND(want, kind, x), inside an X of the table, expands to x only when the row's kind
 * is what `want` picks, so a use of the table can pick the buffered arrays or the world's:
 * BUF picks the buffered arrays (BUF and PED), ONE the world's, GATHER those every world
 * gathers (BUF), PED those only worlds with pedestrians gather. */
#define TH_AGENT_KIND_BUF_BUF(x) x
#define TH_AGENT_KIND_BUF_PED(x) x
#define TH_AGENT_KIND_BUF_ONE(x)
#define TH_AGENT_KIND_ONE_BUF(x)
#define TH_AGENT_KIND_ONE_PED(x)
#define TH_AGENT_KIND_ONE_ONE(x)    x
#define TH_AGENT_KIND_GATHER_BUF(x) x
#define TH_AGENT_KIND_GATHER_PED(x)
#define TH_AGENT_KIND_GATHER_ONE(x)
#define TH_AGENT_KIND_PED_BUF(x)
#define TH_AGENT_KIND_PED_PED(x) x
#define TH_AGENT_KIND_PED_ONE(x)
#define TH_AGENT_KIND(want, kind, x) TH_AGENT_KIND_##want##_##kind(x)

/* One buffer of agent state, structure of arrays, in storage (cell-sorted) order: the BUF
 * arrays of TH_AGENT_ARRAYS. */
#define TH_AGENT_DECLARE_BUF(name, T, kind) TH_AGENT_KIND(BUF, kind, T *name;)
typedef struct th_agents {
    TH_AGENT_ARRAYS(TH_AGENT_DECLARE_BUF)
} th_agents;
#undef TH_AGENT_DECLARE_BUF

/* Per-crowd values the steering loop needs, derived once from the def. */
typedef struct th_crowd_rt {
    float neighbor_r2;   /* neighbour radius squared */
    float separation_r2; /* separation radius squared */
    float sense_r2;      /* block_reach squared: nothing farther is looked at in the block */
    float block_reach;   /* metres the block query must cover. Boids: neighbour, separation and
                            leader radii (not the flee radius: predators have their own index);
                            pedestrians: the model's reach, ped_reach */
    int32_t block;       /* grid cells walked on each side of the agent's cell for block_reach */
    float cos_half_fov;  /* cosine of half the view angle */
    bool omni;           /* view angle of 360 degrees: the cone test is skipped */
    float w_sep, w_ali, w_coh;
    float max_speed, max_force;
    bool flee;     /* follows the nearest-bunker flow and can be sheltered */
    uint16_t type; /* effective type (see th_agents.type) */
    bool lead;     /* the crowd has a target: run the leader test */
    int32_t target;
    th_pursuit pursuit;
    float w_pursuit;
    float lead_r2;      /* leader test reach squared */
    float lead_cos2;    /* cos^2 of half the front view (<= 90 degrees, so cos >= 0) */
    uint32_t flee_mask; /* predator types */
    float flee_r2;
    float w_flee;
    float evade;        /* evade horizon, seconds; 0 = flee where predators are */
    bool premove;       /* its agents have pre-movement times (start_step) */
    uint8_t lift;       /* the elevator + 1 that serves it (sim/behave/elevator.h), 0 = none */
    uint32_t pre_drawn; /* pre-movement times drawn so far; their sum, least, greatest (s) */
    double pre_sum, pre_min, pre_max;
    float w_flow;      /* flow term weight */
    float wall_radius; /* metres */
    float w_wall;      /* wall push weight */

    /* Bodies and the pedestrian model (sim/behave/ped.c, sim/behave/contacts.c). */
    float radius;                       /* body radius, metres; 0 = a point */
    bool ped;                           /* model == TH_MODEL_PEDESTRIAN */
    float inv_time_gap;                 /* 1 / time_gap */
    float relax;                        /* dt / relaxation, clamped to 1 */
    float rep, inv_rep_range;           /* neighbour repulsion strength, 1 / range */
    float wall_rep, inv_wall_rep_range; /* wall repulsion strength, 1 / range */
    float ped_reach;                    /* metres: neighbours farther than this change nothing */
    float anticipation;                 /* seconds (pedestrians, counterflow); 0 for movers, ants */
    float keep_right;                   /* weight (pedestrians, counterflow) */
    float aware_decay;                  /* counterflow awareness kept per step: 1 - dt / memory */
    th_vec2 heading; /* unit walking direction of a pedestrian crowd without a goal, or 0 */

    /* The goal (sim/behave/goal.c). */
    th_goal_kind goal;
    uint32_t goal_field;  /* DESTINATIONS: index into nav.dest */
    const th_vec2 *route; /* ROUTE: the waypoints (the world's copy), route_count of them */
    uint32_t route_count;
    th_route_mode route_mode;
    float route_r2;      /* ROUTE: arrival radius squared */
    float wander_sigma;  /* WANDER, FORAGE: radians of heading drift per step, one sd */
    uint32_t congestion; /* DESTINATIONS: index + 1 into w->cong, 0 = the plain field */
    struct th_mover
        *mover; /* movers (sim/behave/movers.c): their tables, in the world's goal memory */
    struct th_colony
        *colony; /* FORAGE: the crowd's nest, food and pheromone (sim/behave/forage.c) */
} th_crowd_rt;

/* A crowd's congestion-aware copy of its destination field (sim/behave/goal.c): the same goals,
 * routed over cell costs raised by the agents standing in each cell, recomputed every `every`
 * steps. */
typedef struct th_congestion {
    uint32_t source; /* the destination field whose goals it keeps */
    uint32_t every;  /* steps between refreshes */
    uint32_t scale;  /* every cost and weight is multiplied by this (1..10, fixed when added)
                        so that a fraction of a cell's cost survives rounding to integers */
    float weight;    /* square metres per person */
    uint16_t *cost;  /* per cell: the costs the field was last computed on (0 = blocked) */
    th_nav_field field;
} th_congestion;

/* Per-agent goal progress, by id (sim/behave/goal.c): written only while that agent is integrated,
 * by the worker that integrates it, and read by its own steering in the next step. */
typedef struct th_goal_state {
    uint32_t index; /* ROUTE: the waypoint walked to */
    int32_t dir;    /* ROUTE, patrol: +1 outward, -1 on the way back */
    float angle;    /* WANDER, FORAGE: heading, radians; CRASH_AND_TURN to a point: the
                       distance to it at the last crash, metres */
    /* Movers (sim/behave/movers.c); `index` is also a breadcrumb follower's crumb (sequence number)
     * and a waypoint walker's node. */
    uint32_t cell;  /* cell walkers: the cell whose centre it walks to */
    uint8_t facing; /* cell walkers: 0..3 = E, N, W, S (th_nav_move_dx order); waypoints: 1
                       after an entry search that found no node in sight */
    uint8_t mode;   /* the mover's phase; 0 until its first integration */
    uint8_t side;   /* crash and turn: the hand (th_hand) kept on the obstacle since the last
                       crash */
    uint32_t mark;  /* FORAGE: pheromone cell last marked on the way home, or UINT32_MAX */
    bool carrying;  /* FORAGE: carries food home; set and cleared in bookkeeping only */
} th_goal_state;

/* The velocity a host asked of an agent (sim/behave/host_steer.c), by id: `on` while it is held
 * (until cleared), with its direction and length worked out when set, not in every step. */
typedef struct th_pref_velocity {
    th_vec2 v;   /* metres/second, clamped to the crowd's max_speed */
    th_vec2 dir; /* v / |v|, (0, 0) for a standstill */
    float speed; /* |v| */
    uint8_t on;
} th_pref_velocity;

/* An agent's exposure to fire hazards (sim/scenario/hazard.h). */
typedef struct th_hazard_state {
    double fed;         /* fractional effective dose so far */
    uint64_t down_step; /* the step count at which the dose reached 1 (incapacitated), 0 = not */
} th_hazard_state;

/* Per-agent progress toward its goal, by id (sim/observe/stall.c): written only by the serial
 * bookkeeping phase, never part of the state hash. `best` is the lowest remaining distance
 * (metres of field cost or of the leg to a route waypoint) reached so far, or for agents judged
 * by displacement, (ax, ay) is where the agent stood when it last moved far enough; `since` is
 * the step of its last progress. */
typedef struct th_stall {
    float best;   /* the least remaining cost (or distance) reached so far, metres */
    float ax, ay; /* by remaining cost: where `best` was reached (a rise of the field there
                     starts the agent afresh); by movement: where it last moved from */
    uint64_t since;
    uint64_t seen;  /* the step it was last judged here: a gap (the agent was held by another
                       rank meanwhile) starts it afresh */
    uint32_t index; /* ROUTE: the waypoint `best` belongs to */
    uint8_t init;   /* 0 until the agent's first bookkeeping */
    uint8_t rest;   /* its standing at this judgement and the last, and whether it is being
                       resolved (sim/observe/stall.c: at its goal, progressing, queuing, stalled) */
    uint8_t near;   /* near an exit that takes nobody (sim/observe/stall.c): 0 not, 1 yet to
                       go a stall time without progress there, 2 has */
} th_stall;

/* Per-chunk partial sums, combined in chunk order by the bookkeeping phase. */
typedef struct th_chunk_stats {
    uint64_t neighbors;
    uint64_t candidates;
    uint32_t stranded;
    uint32_t sheltering; /* agents that stepped into an open bunker or an exit */
    float overlap;       /* largest body overlap seen in the last contacts round, share of the
                            smaller diameter */
} th_chunk_stats;

/* The id table, per slot of th_agent_id (index1 - 1), X(name, type, wanted): slot_of_id is the
 * storage index of the agent holding the slot (UINT32_MAX while it is free), id_gen the slot's
 * generation (of the agent holding it, or of its last one while free), id_free the stack of
 * free slots: pushed in th_world_drop_marked's serial storage-order pass, popped by the next
 * agent added (the last freed first), so which slot an agent gets never depends on the thread
 * count; stall_list the ids the last stall judgement found stalled, the first stall_listed
 * of them (sim/observe/stall.c), at most one per slot. */
#define TH_ID_TABLE(X)            \
    X(slot_of_id, uint32_t, true) \
    X(id_gen, uint32_t, true)     \
    X(id_free, uint32_t, true)    \
    X(id_live, uint8_t, true)     \
    X(stall_list, th_agent_id, true)

/* Per-id state, by slot, X(name, type, wanted): `wanted` (an expression in w) says whether the
 * array exists. Zeroed for each agent added, so a reused slot holds nothing of its last agent. */
#define TH_ID_ARRAYS(X)                                                         \
    /* free walking speed of pedestrians, m/s (0 for boids) */                  \
    X(desired_speed, float, true)                                               \
    /* allocated once a crowd's goal keeps state (route, wander), else NULL */  \
    X(goal_state, th_goal_state, w->goal_state_wanted)                          \
    /* squad index + 1 of each agent, 0 = none */                               \
    X(squad_of_id, uint8_t, true)                                               \
    /* its index among the squad's members */                                   \
    X(member_of_id, uint16_t, true)                                             \
    /* progress toward the goal (sim/observe/stall.c) */                        \
    X(stall, th_stall, true)                                                    \
    /* the first step in which it may move (pre-movement time); 0 = any */      \
    X(start_step, uint64_t, true)                                               \
    /* its dose of the fire hazards, once the world has one */                  \
    X(hazard_state, th_hazard_state, w->hazard != NULL)                         \
    /* the bunker it walks to (sim/behave/choice.h), once one is chosen */      \
    X(exit_of_id, uint8_t, w->exit_choice_wanted)                               \
    /* its group + 1, 0 = none, and the share of its free speed the group  */   \
    /* leaves it (sim/behave/group.h), once the world has a group          */   \
    X(group_of_id, uint32_t, w->groups != NULL)                                 \
    X(group_pace, float, w->groups != NULL)                                     \
    /* its own goal + 1 in w->own (sim/behave/own_goal.h), 0 = its crowd's */   \
    X(own_of_id, uint32_t, w->own != NULL)                                      \
    /* the elevator + 1 it rides (sim/behave/elevator.h), 0 = none */           \
    X(lift_of_id, uint8_t, w->lifts != NULL)                                    \
    /* step + 1 it began to wait at a stop, 0 = not yet, TH_LIFT_GAVE_UP */     \
    X(lift_wait, uint64_t, w->lifts != NULL)                                    \
    /* the host's preferred velocity, once one was set (host_steer.c) */        \
    X(pref_of_id, th_pref_velocity, w->pref_wanted)                             \
    /* its own body radius, once one was set (host_steer.c); 0 = its crowd's */ \
    X(radius_of_id, float, w->radius_wanted)

/* Bodies listed per agent for the rounds: those within 1.5 contact distances at the start of
 * the step (the pedestrian model lists them while it steers, the contacts phase for everyone
 * else), nearest first when there are more. Six touch a body in the densest packing. */
#define TH_CONTACT_LIST 12u

/* A walker who left: where it stepped out, the way it was going, how fast it went and would
 * walk, its body and its level; it walks on from the step it left in (sim/behave/leavers.c
 * keeps them; the replay of departures over ranks carries them, sim/dist/dist_serial.h). */
typedef struct th_leaver {
    float x, y;     /* where it left, metres */
    float dx, dy;   /* unit direction it walks on in */
    float s0, v0;   /* its speed when it left and its free speed, m/s */
    uint64_t born;  /* the step it left in (th_leavers_add sets it) */
    uint16_t crowd; /* its crowd: body radius and relaxation time */
    uint8_t level;  /* w->level of where it left (0 off every level) */
} th_leaver;

/* State a model keeps for an agent outside the agent arrays that travels with the agent to
 * another rank (sim/dist/dist_mpi.c): its size on the wire (0 while the model is off), and
 * packing it out (released here) and in (false when memory is short). The world's creation
 * sets it to the model that keeps it (agents' own goals), so the ranks' exchange knows no
 * model. */
typedef struct th_migrant_part {
    size_t (*size)(const th_world *w);
    void (*pack)(th_world *w, uint32_t slot, unsigned char *p);
    bool (*unpack)(th_world *w, th_agent_id id, const unsigned char *p);
} th_migrant_part;

/* What the layers above the world's data do when that data changes, set once by the world's
 * creation (sim/step/world.c, world_hooks): adding an agent, growing the arrays and drawing a
 * stair call through these and name no model, observer or exchange. */
typedef struct th_world_hooks {
    /* An agent was added with this (clamped) velocity: the models set up its per-id state. */
    void (*agent_added)(th_world *w, uint32_t crowd, th_agent_id id, th_vec2 velocity);
    /* An agent stored here was put at p, added or moved there by the host: the observers note
     * where it starts from. */
    void (*agent_placed)(th_world *w, th_agent_id id, th_vec2 p);
    /* The agent arrays, the id slots, the departure history grow to `cap`: what the layers
     * above keep sized with each grows first (false: out of memory, nothing changed). */
    bool (*grow_agents)(th_world *w, uint32_t cap);
    bool (*grow_ids)(th_world *w, uint32_t cap);
    bool (*grow_history)(th_world *w, uint32_t cap);
    /* Whether this process stores an agent at p (always in one process; the ranks' cut). */
    bool (*owns)(th_world *w, th_vec2 p);
    /* The elevator with a stop at cell (x, y), plus one, or 0; its name. */
    uint32_t (*lift_stop_at)(const th_world *w, int32_t x, int32_t y);
    const char *(*lift_name)(const th_world *w, uint32_t lift);
    /* What a migrant carries besides the agent arrays and the per-id arrays of this header:
     * agents' own goals, the measurement's last positions. */
    th_migrant_part carried[2];
} th_world_hooks;

struct th_world {
    th_world_def def;
    th_pool *pool;
    uint32_t workers;

    th_crowd_def crowd_def[TH_MAX_CROWDS];
    char crowd_name[TH_MAX_CROWDS][64];
    th_crowd_rt crowd_rt[TH_MAX_CROWDS];
    float crowd_radius[TH_MAX_CROWDS]; /* body radius per crowd, for the neighbour loops */
    uint32_t crowd_count;
    float interaction_radius; /* largest reach a 3x3 block of cells must hold (contacts,
                                 validation): the grid cell size is at least this */

    th_grid grid;
    /* Predators: agents whose type some crowd flees, indexed apart in a grid of cells at least
     * the largest flee radius wide, rebuilt each step by th_boids_prepare. Prey look them up
     * there instead of walking a block of the main grid that wide (sim/behave/boids.c). */
    uint32_t pred_mask; /* union of the crowds' flee types; 0 = no predator index */
    float pred_radius;  /* largest flee radius of a crowd with flee types */
    th_grid pred_grid;
    float *pred_px, *pred_py;   /* pred_capacity: predators in storage order, then... */
    float *pred_sx, *pred_sy;   /* ...in pred_grid's cell order (the query reads these) */
    float *pred_pvx, *pred_pvy; /* their velocities, storage order (for evading prey)... */
    float *pred_svx, *pred_svy; /* ...and in cell order */
    uint16_t *pred_stype;       /* their types, cell order */
    uint16_t *pred_ptype;       /* their types, storage order */
    uint32_t *pred_pid;         /* their id slots, storage order (pred_grid's tie key) */
    uint32_t pred_count;        /* predators in the last build */

    /* Predators the arrays and pred_grid hold: at least capacity (one process's own agents),
     * more once the predators of every rank are gathered (sim/dist/dist_pred.c), which keeps
     * its records in pred_mine (this rank's) and pred_all (every rank's), grown doubling. */
    uint32_t pred_capacity;
    void *pred_mine, *pred_all;
    uint32_t pred_mine_cap, pred_all_cap;
    bool wrap;

    /* Agent state: buf[cur] is the state after the last step. A step gathers it into
     * buf[cur ^ 1] in cell order, flips cur, then updates that buffer in place: steering reads
     * everyone's step-t values and writes only accel; integration then touches only each
     * agent's own slot. */
    th_agents buf[2];
    uint32_t cur;
    uint32_t count;    /* agents alive (on this rank: the agents it owns) */
    uint32_t capacity; /* agents the per-agent arrays hold (on this rank: owned + ghosts) */
    /* Under several ranks (sim/dist/dist.h): copies of neighbours' agents stored after the
     * owned ones, [count, count + ghosts), read as neighbours only; the agents alive in the
     * whole world (replicated); the ranks' shared state. One process: 0, count, NULL. */
    uint32_t ghosts;
    uint32_t total;
    struct th_dist *dist;

    /* The ONE arrays of TH_AGENT_ARRAYS (ax, ay, cell, ...), storage order. */
#define TH_AGENT_DECLARE_ONE(name, T, kind) TH_AGENT_KIND(ONE, kind, T *name;)
    TH_AGENT_ARRAYS(TH_AGENT_DECLARE_ONE)
#undef TH_AGENT_DECLARE_ONE

    /* The per-id arrays, by slot (TH_ID_TABLE, TH_ID_ARRAYS): `id_capacity` entries each. */
#define TH_ID_DECLARE(name, T, wanted) T *name;
    TH_ID_TABLE(TH_ID_DECLARE)
    TH_ID_ARRAYS(TH_ID_DECLARE)
#undef TH_ID_DECLARE
    bool goal_state_wanted;    /* such a crowd exists: goal_state grows with the agents */
    struct th_hazards *hazard; /* smoke and gases (sim/scenario/hazard.h), NULL = none */
    /* Exit choice (sim/behave/choice.h): exit_of_id exists once a crowd lists exits or an
     * agent is sent to one; the decision pass runs while choices are pending. */
    struct th_groups *groups;         /* walkers that keep together (sim/behave/group.h), or NULL */
    struct th_own_goals *own;         /* agents' own goals (sim/behave/own_goal.h), or NULL */
    struct th_own_planning *own_plan; /* their goal planner (sim/behave/own_plan.h), or NULL */
    struct th_lifts *lifts;           /* elevators (sim/behave/elevator.h), or NULL */
    bool exit_choice_wanted;
    bool exit_choice_due;
    bool pref_wanted;   /* some agent was given a preferred velocity: pref_of_id exists */
    bool radius_wanted; /* some agent was given a body radius of its own: radius_of_id exists */
    struct th_exit_store {
        th_bunker_id bunker[TH_MAX_BUNKERS]; /* the crowd's exits, as given */
        float weight[TH_MAX_BUNKERS];        /* their weights, as given */
        float share[TH_MAX_BUNKERS]; /* by bunker index: the weight normalised, 0 unlisted */
        float social, social_r2;
        bool listed, social_on;
    } exit_store[TH_MAX_CROWDS];
    th_vec2 *crowd_route[TH_MAX_CROWDS]; /* each crowd's route waypoints (owned), or NULL */
    uint32_t colonies; /* foraging crowds: bookkeeping runs th_forage_update while > 0 */
    struct th_forage_replay *forage_replay; /* its exchange buffers over ranks, or NULL */
    th_congestion cong[TH_MAX_CROWDS]; /* congestion-aware destination fields, cong_count used */
    uint32_t cong_count;
    uint32_t *cell_agents; /* per map cell: agents counted by the last refresh (with cong) */
    float max_radius;      /* largest body radius over crowds: 0 = no bodies, no contacts phase */
    bool pedestrians;      /* some crowd uses the pedestrian model */
    /* Bodies near each agent, found once per step by the first contacts round and walked by
     * the later ones: TH_CONTACT_LIST storage indices per agent (storage order), their count. */
    uint32_t *contact;
    uint8_t *contact_count;
    uint32_t contact_capacity; /* agents the lists hold; 0 while no crowd has bodies */
    bool settle;               /* agents were added since the last step: the next contacts
                                  phase may take TH_CONTACT_SETTLE_ROUNDS */

    /* The id table (TH_ID_TABLE): slots [0, id_top) have been used, the free ones among them
     * stacked in id_free[0, id_free_count). Every slot in use holds an agent alive, so
     * id_top = count + id_free_count never exceeds the most agents alive at once, and the
     * per-id arrays follow the agents alive, not all agents ever added.
     *
     * Two capacities, grown each on its own (doubling, storage.c): `capacity` sizes what is
     * stored per agent, `id_capacity` what is kept per id slot (the id table, the per-id
     * arrays, the measured positions). In one process both grow at the same adds to the same
     * sizes: a slot is taken only when none is free, when id_top = count. Under several ranks
     * the id table is replicated (every rank holds every slot in use anywhere) while each rank
     * stores only its owned agents and ghosts, so a rank's agent arrays follow its strip and
     * not the whole world. */
    uint32_t id_top;
    uint32_t id_free_count;
    uint32_t id_capacity;      /* id slots the per-id arrays hold */
    uint32_t spawned;          /* agents ever added */
    uint32_t history_capacity; /* departures the report and flow histories hold (storage.c) */

    th_chunk_stats *chunk_stats; /* one per TH_CHUNK agents of capacity */

    th_world_nav nav;

    th_squad *squad[TH_MAX_SQUADS];
    uint32_t squad_count;
    /* Members' positions from every rank (sim/behave/squad.c), or NULL. */
    struct th_squad_gather *squad_gather;
    bool squads_keep_paths; /* never re-plan after terrain events: off but in white-box tests,
                               which measure what re-planning buys against it */
    th_agent_id *removals;  /* agents to remove at the next step */
    uint32_t removal_count, removal_capacity;

    th_target_def target_def[TH_MAX_TARGETS]; /* points copied into target_points */
    th_vec2 *target_points[TH_MAX_TARGETS];
    th_vec2 target_pos[TH_MAX_TARGETS], target_vel[TH_MAX_TARGETS]; /* at the step's start */
    bool target_valid[TH_MAX_TARGETS];
    uint32_t target_count;

    /* Made by th_world_create_checking: built to be validated, never stepped. */
    bool checking;
    bool stepping;          /* inside th_world_step: calls that change the world are refused */
    bool validate;          /* check invariants inside every step (sim/observe/validate.c) */
    bool validation_failed; /* a check failed; validation_error says which */
    char validation_error[320];
    /* The first error met inside a step that the step cannot return (th_step_fail). */
    bool step_failed;
    th_error step_error;
    uint8_t validation_phase;  /* where it was found: TH_VALIDATE_GRID.. (sim/observe/validate.h) */
    uint32_t *validation_bits; /* several ranks: id slots held here, then agreement words */
    uint32_t validation_bits_cap;
    /* Running hashes (sim/core/calls.c): under several ranks, of the collective calls'
     * arguments; in every world, of the calls that add or remove agents and of those that gave
     * agents their own goals (sim/behave/own_goal.c), which the digest covers
     * (sim/observe/digest.c). */
    uint64_t call_hash, agent_call_hash, own_call_hash;

    uint64_t step;
    th_world_stats stats;
    float stall_time;    /* seconds (the def's, default filled in) */
    float stall_longest; /* seconds without progress of the longest-stalled agent, last judgement */
    float stall_box[4];  /* x0, y0, x1, y1 of the stalled agents, last judgement */
    uint32_t stall_listed; /* agents in stall_list: every rank's, in global storage order */
    void *stall_all;       /* several ranks: the stalled ids gathered (stall_all_cap of them) */
    uint32_t stall_all_cap;
    /* Per bunker, the sheltered count at the last stall judgement and 1 + the step of that
     * judgement if the count had grown since the one before (0: never): when it last took
     * someone, for the stall judgement (sim/observe/stall.c). */
    uint32_t stall_sheltered[TH_MAX_BUNKERS];
    uint64_t stall_sheltered_at[TH_MAX_BUNKERS];
    th_profiler prof;

    struct th_trace *trace;     /* phase spans being recorded (sim/core/trace.c), or NULL */
    struct th_measure *measure; /* areas and lines (sim/observe/measure.c), or NULL */
    struct th_report *report;   /* run history (sim/observe/report.c), or NULL without a map */
    struct th_flow *flow;       /* spawners and exits (sim/scenario/flow.c), NULL while none */
    struct th_leavers *leavers; /* walkers who just left by an exit or a bunker, as those behind
                                   them still see them (sim/behave/leavers.c), or NULL */
    struct th_dist_serial *dist_serial; /* replay buffers of the serial phases over split agents
                                           (sim/dist/dist_serial.c), or NULL */
    th_world_hooks hooks; /* the layers above, reached from the data (set first at creation) */
    /* Steering changes by events applied to each crowd, and the step that applied the last. */
    uint32_t crowd_changes[TH_MAX_CROWDS];
    uint64_t crowd_changed[TH_MAX_CROWDS];
};

/* The offset q - p on a torus of W x H: the nearest image. */
static inline th_vec2 th_min_image(th_vec2 d, bool wrap, float W, float H) {
    if (wrap) {
        if (d.x > 0.5f * W) d.x -= W;
        else if (d.x < -0.5f * W) d.x += W;
        if (d.y > 0.5f * H) d.y -= H;
        else if (d.y < -0.5f * H) d.y += H;
    }
    return d;
}

/* sim/core/world_read.c: the phases' names, as th_phase_name gives them (the profiler's too). */
extern const char *const th_phase_names[TH_PHASE_COUNT];

/* sim/step/world.c: th_world_create, or with `checking` a world built only to be validated
 * (`throng check`): every call that builds it makes the same checks and reports the same
 * errors, but what only stepping needs is left out (the nearest-bunker field, the river maps'
 * working memory of all workers but one). Such a world is never stepped: th_world_step leaves it
 * as it is and says so through th_world_step_error. */
th_world *th_world_create_checking(const th_world_def *def, bool checking, th_error *err);

/* sim/core/world_read.c: an error inside a step, such as memory short for a scratch array that
 * grows (an endless spawner's): the step cannot return it, and it is no programmer error, so it is
 * not TH_ASSERT's. The first one is kept (step_failed, step_error); the caller goes on without
 * the work it could not do (a spawner waits for the next step). */
void th_step_fail(th_world *w, th_error_code code, const char *msg);

/* sim/core/agents.c: th_world_add_agent without the between-steps check, for the engine's own use
 * inside a step (spawners, in the events phase). */
th_agent_id th_agent_add(th_world *w, uint32_t crowd, th_vec2 position, th_vec2 velocity,
                         th_error *err);

/* An agent's `shelter` mark: a bunker index + 1, TH_MARK_EXIT + e when it stepped into exit e
 * (below TH_MAX_EXITS, so the marks of bunkers, exits and removals never meet), or
 * TH_MARK_REMOVED; the step drops the marked agents in storage order (sim/step/drop.h). */
#define TH_MARK_REMOVED 0xFFu
#define TH_MARK_EXIT    0x80u
/* A call that shapes the world (`call`: its kind in the low 4 bits; a and b its arguments),
 * folded into w->call_hash under several ranks and, for adding and removing agents, into
 * w->agent_call_hash (sim/core/calls.c). */
void th_world_note_call(th_world *w, uint32_t call, uint64_t a, uint64_t b);
/* Whether any agent's progress is judged: a crowd with a goal, or squads (whose members may be
 * of crowds without one). Agents of a world without either carry no stall state worth keeping
 * (sim/core/world_read.c). */
bool th_stall_judged(const th_world *w);
/* sim/core/storage.c: make room for `stored` agents stored on this rank (one process: the agents
 * alive) and `ids` id slots (the agents alive in the whole world: an id slot in use holds an agent
 * alive), each grown on its own; 0 asks nothing of one. Between steps, in the events phase for
 * an endless spawner, or in the grid phase for the agents a rank takes in; false when memory is
 * short. */
bool th_world_reserve(th_world *w, uint32_t stored, uint32_t ids);
/* sim/core/grid_setup.c: make the predator index hold n predators (doubling past pred_capacity; the
 * arrays' contents are lost): under several ranks every rank indexes the predators of all, more
 * than its own capacity may hold. False when memory is short. */
bool th_world_reserve_predators(th_world *w, uint32_t n);

/* The slot of an id in the id table (UINT32_MAX for the null id). */
static inline uint32_t th_id_slot(th_agent_id id) { return id.index1 - 1u; }

/* Compaction after removals: agent k's every array moves down to storage index `to` (< k),
 * and its id follows it. */
static inline void th_agent_move_down(th_world *w, uint32_t to, uint32_t k) {
    th_agents *a = &w->buf[w->cur];
#define TH_MOVE_DOWN_(name, T, kind)                    \
    TH_AGENT_KIND(BUF, kind, a->name[to] = a->name[k];) \
    TH_AGENT_KIND(ONE, kind, w->name[to] = w->name[k];)
    TH_AGENT_ARRAYS(TH_MOVE_DOWN_)
#undef TH_MOVE_DOWN_
    w->slot_of_id[th_id_slot(a->id[to])] = to;
}

/* The storage index of the agent `id` names, or UINT32_MAX when it is null, stale (its slot
 * was freed, and perhaps reused by a later agent) or names no slot. */
static inline uint32_t th_agent_index(const th_world *w, th_agent_id id) {
    const uint32_t s = id.index1 - 1u;
    if (s >= w->id_top || w->id_gen[s] != id.generation) return UINT32_MAX;
    const uint32_t k = w->slot_of_id[s];
    return k < w->count ? k : UINT32_MAX;
}

/* Whether `id` names an agent in the world, whichever rank stores it: the id table, and which
 * of its slots hold an agent (id_live), are the same on every rank. */
static inline bool th_agent_known(const th_world *w, th_agent_id id) {
    const uint32_t s = id.index1 - 1u;
    return s < w->id_top && w->id_gen[s] == id.generation && w->id_live[s];
}

/* An id as a random-number key and in the state hash: the slot in the low 32 bits, the
 * generation - 1 above. The generation is part of the key because some draws are made once
 * per agent with no step counter (a pedestrian's desired speed, a wanderer's first heading):
 * keyed by the slot alone, every later agent in a reused slot would repeat its predecessor's
 * draws. Generation 1 adds nothing, so a world that never reuses a slot draws and hashes as
 * when ids were plain creation numbers. */
static inline uint64_t th_agent_key(th_agent_id id) {
    return (uint64_t)(id.index1 - 1u) | (uint64_t)(id.generation - 1u) << 32;
}

/* Calls that change the world are refused inside its own step (from a host task, say): the
 * assert hook hears of it (by default it aborts), and if it returns the call fails with `err`. */
static inline bool th_between_steps(const th_world *w, th_error *err) {
    if (!w) {
        th_error_set(err, TH_ERR_INVALID, "no world");
        return false;
    }
    if (TH_ASSERT(!w->stepping)) return true;
    th_error_set(err, TH_ERR_STATE, "called during the world's own step");
    return false;
}

/* The preferred velocity the host gave the agent in id slot `slot` (sim/behave/host_steer.c),
 * or NULL while it has none: its goal steers it. */
static inline const th_pref_velocity *th_pref_of(const th_world *w, uint32_t slot) {
    return w->pref_of_id && w->pref_of_id[slot].on ? &w->pref_of_id[slot] : NULL;
}

/* The agents' own body radii by id slot (th_world_set_agent_radius), or NULL while none has
 * one: hot loops take it once, so the common case costs one test of a register. */
static inline const float *th_own_radii(const th_world *w) {
    return w->radius_wanted ? w->radius_of_id : NULL;
}

/* The body radius of the agent at storage index k of `a`: its own, else its crowd's. */
static inline float th_body_radius_of(const float *crowd_radius, const float *own_radii,
                                      const th_agents *a, uint32_t k) {
    const float crowd = crowd_radius[a->crowd[k]];
    if (!own_radii) return crowd;
    const float own = own_radii[th_id_slot(a->id[k])];
    return own > 0.0f ? own : crowd;
}

static inline float th_body_radius(const th_world *w, const th_agents *a, uint32_t k) {
    return th_body_radius_of(w->crowd_radius, th_own_radii(w), a, k);
}

/* Handles at the API boundary. Inside, crowds, bunkers, targets, squads, destination fields,
 * measurement areas and lines, spawners and exits are plain indices; a handle is index + 1 so
 * that a zeroed one is null. TH_INDEX of a null handle is UINT32_MAX, which fails every range
 * check below a count. The makers take the int the internal adders return: a negative index
 * (a failure) gives the null handle. */
#define TH_INDEX(id) ((id).index1 - 1u)
static inline uint32_t th_index1_of(int index) { return index < 0 ? 0u : (uint32_t)index + 1u; }
static inline th_crowd_id th_crowd_handle(int index) { return (th_crowd_id){th_index1_of(index)}; }
static inline th_bunker_id th_bunker_handle(int index) {
    return (th_bunker_id){th_index1_of(index)};
}
static inline th_target_id th_target_handle(int index) {
    return (th_target_id){th_index1_of(index)};
}
static inline th_squad_id th_squad_handle(int index) { return (th_squad_id){th_index1_of(index)}; }
static inline th_field_id th_field_handle(int index) { return (th_field_id){th_index1_of(index)}; }
static inline th_measure_area_id th_measure_area_handle(int index) {
    return (th_measure_area_id){th_index1_of(index)};
}
static inline th_measure_line_id th_measure_line_handle(int index) {
    return (th_measure_line_id){th_index1_of(index)};
}
static inline th_spawner_id th_spawner_handle(int index) {
    return (th_spawner_id){th_index1_of(index)};
}
static inline th_exit_id th_exit_handle(int index) { return (th_exit_id){th_index1_of(index)}; }

/* A call that takes a handle refuses the null one with this error: `kind` names the handle's
 * kind ("crowd", "bunker", ...). */
static inline bool th_handle_given(uint32_t index1, const char *kind, th_error *err) {
    if (index1) return true;
    th_error_set(err, TH_ERR_HANDLE, "null %s handle: no %s given", kind, kind);
    return false;
}

#endif
