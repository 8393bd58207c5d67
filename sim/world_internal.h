/* The world's private layout, shared by the sim/ sources and by white-box tests. */
#ifndef TH_WORLD_INTERNAL_H
#define TH_WORLD_INTERNAL_H

#include <stddef.h>

#include "../engine/check.h"
#include "../engine/grid.h"
#include "../engine/jobs.h"
#include "../engine/profile.h"
#include "nav.h"
#include "throng/throng.h"

/* Agents per parallel chunk. It fixes how work is cut and so every per-chunk partial result;
 * it must not depend on the thread count (determinism). 512 agents are ~50-100 us of steering:
 * small enough to balance two to eight workers, large enough that claiming is free. */
#define TH_CHUNK 512u

/* Agent arrays carry this many spare elements past capacity, so the vectorised neighbour loop
 * may load a whole block of 8 at the end of a cell range (the extra lanes are masked off). */
#define TH_SIMD_PAD 8u

typedef struct th_squad th_squad;

/* One buffer of agent state, structure of arrays, in storage (cell-sorted) order. */
typedef struct th_agents {
    float *px, *py;
    float *vx, *vy;
    uint16_t *crowd;
    uint16_t *type; /* flocking type: the crowd's explicit type, or TH_MAX_TYPES + crowd */
    th_agent_id *id;
} th_agents;

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
    bool flee;          /* follows the nearest-bunker flow and can be sheltered */
    uint16_t type;      /* effective type (see th_agents.type) */
    bool lead;          /* the crowd has a target: run the leader test */
    int32_t target;
    th_pursuit pursuit;
    float w_pursuit;
    float lead_r2;      /* leader test reach squared */
    float lead_cos2;    /* cos^2 of half the front view (<= 90 degrees, so cos >= 0) */
    uint32_t flee_mask; /* predator types */
    float flee_r2;
    float w_flee;
    float w_flow;       /* flow term weight */
    float wall_radius;  /* metres */
    float w_wall;       /* wall push weight */

    /* Bodies and the pedestrian model (sim/ped.c, sim/contacts.c). */
    float radius;       /* body radius, metres; 0 = a point */
    bool ped;           /* model == TH_MODEL_PEDESTRIAN */
    float inv_time_gap; /* 1 / time_gap */
    float relax;        /* dt / relaxation, clamped to 1 */
    float rep, inv_rep_range;          /* neighbour repulsion strength, 1 / range */
    float wall_rep, inv_wall_rep_range;/* wall repulsion strength, 1 / range */
    float ped_reach;    /* metres: neighbours farther than this change nothing */
    th_vec2 heading;    /* unit walking direction of a pedestrian crowd without a goal, or 0 */

    /* The goal (sim/goal.c). */
    th_goal_kind goal;
    uint32_t goal_field;      /* DESTINATIONS: index into nav.dest */
    const th_vec2 *route;     /* ROUTE: the waypoints (the world's copy), route_count of them */
    uint32_t route_count;
    th_route_mode route_mode;
    float route_r2;           /* ROUTE: arrival radius squared */
    float wander_sigma;       /* WANDER, FORAGE: radians of heading drift per step, one sd */
    uint32_t congestion;      /* DESTINATIONS: index + 1 into w->cong, 0 = the plain field */
    struct th_mover *mover;   /* movers (sim/movers.c): their tables, in the world's goal memory */
    struct th_colony *colony; /* FORAGE: the crowd's nest, food and pheromone (sim/forage.c) */
} th_crowd_rt;

/* A crowd's congestion-aware copy of its destination field (sim/goal.c): the same goals, routed
 * over cell costs raised by the agents standing in each cell, recomputed every `every` steps. */
typedef struct th_congestion {
    uint32_t source;   /* the destination field whose goals it keeps */
    uint32_t every;    /* steps between refreshes */
    uint32_t scale;    /* every cost and weight is multiplied by this (1..10, fixed when added)
                          so that a fraction of a cell's cost survives rounding to integers */
    float weight;      /* square metres per person */
    uint16_t *cost;    /* per cell: the costs the field was last computed on (0 = blocked) */
    th_nav_field field;
} th_congestion;

/* Per-agent goal progress, by id (sim/goal.c): written only while that agent is integrated, by
 * the worker that integrates it, and read by its own steering in the next step. */
typedef struct th_goal_state {
    uint32_t index; /* ROUTE: the waypoint walked to */
    int32_t dir;    /* ROUTE, patrol: +1 outward, -1 on the way back */
    float angle;    /* WANDER, FORAGE: heading, radians */
    /* Movers (sim/movers.c); `index` is also a breadcrumb follower's crumb (sequence number)
     * and a waypoint walker's node. */
    uint32_t cell;  /* cell walkers: the cell whose centre it walks to */
    uint8_t facing; /* cell walkers: 0..3 = E, N, W, S (th_nav_move_dx order); waypoints: 1
                       after an entry search that found no node in sight */
    uint8_t mode;   /* the mover's phase; 0 until its first integration */
    uint32_t mark;  /* FORAGE: pheromone cell last marked on the way home, or UINT32_MAX */
    bool carrying;  /* FORAGE: carries food home; set and cleared in bookkeeping only */
} th_goal_state;

/* Per-chunk partial sums, combined in chunk order by the bookkeeping phase. */
typedef struct th_chunk_stats {
    uint64_t neighbors;
    uint64_t candidates;
    uint32_t stranded;
    uint32_t sheltering; /* agents that stepped into an open bunker or an exit */
    float overlap;       /* largest body overlap seen in the last contacts round, share of the
                            smaller diameter */
} th_chunk_stats;

/* blocked_near values besides an open cell's index (cell indices stay below 2^24). */
#define TH_NOT_NEWLY_BLOCKED UINT32_MAX
#define TH_UNREACHED 0x80000000u

/* Raising events (block, dearer set_cost) one step remembers by rectangle for squads; more in
 * one step and every squad re-plans. */
#define TH_NAV_RAISED_RECTS 32u

/* A scheduled change: applied at the start of the step that leaves step `step`. */
typedef struct th_event {
    uint64_t step;
    uint64_t seq;     /* scheduling order: ties at one step go first-scheduled first */
    th_event_def def; /* rectangle clipped to the map */
} th_event;

typedef struct th_bunker {
    char name[64];
    int32_t x0, y0, x1, y1;
    uint32_t capacity, sheltered;
    bool destroyed, full;
} th_bunker;

/* Terrain, river maps and bunkers (all unused when the world has no map). */
typedef struct th_world_nav {
    bool present;
    th_navmap map;
    th_nav_field field[TH_MAX_BUNKERS]; /* one river map per bunker */
    th_nav_combined combined;           /* nearest open bunker, per cell */
    th_nav_scratch **scratch;           /* one per worker */
    int8_t *bunker_at;                  /* per cell: bunker index or -1 */
    th_bunker bunker[TH_MAX_BUNKERS];
    uint32_t bunker_count;
    th_nav_field dest[TH_MAX_DESTINATION_FIELDS]; /* weighted destination fields */
    uint32_t dest_count;

    th_event *events; /* scheduled: a binary min-heap on (step, seq), so same-step events are
                         applied in the order they were scheduled */
    uint32_t event_count, event_capacity;
    uint64_t event_seq; /* events scheduled so far */

    uint32_t *opened; /* cells opened since the fields were last brought up to date */
    uint32_t opened_count;
    bool fields_stale;   /* recompute every river map in full */
    bool combined_stale; /* rebuild the nearest-bunker field */
    bool walls_stale;    /* recompute the wall-distance field */
    bool displace;       /* cells were blocked: move agents out of them */
    /* Cells blocked by this step's events, for moving agents out of them. Allocated when the
     * first block event is scheduled (between steps), 8 bytes per cell. */
    uint32_t *blocked_list;  /* the newly blocked cells, in the order they were blocked */
    uint32_t blocked_count;
    uint32_t *blocked_near;  /* per cell: TH_NOT_NEWLY_BLOCKED, TH_UNREACHED | index in the
                                list (newly blocked, no open cell found yet), or the open cell
                                its agents move to */

    float *speed;        /* per cell: walking speed factor in (0, 1], or NULL while all are 1 */

    /* What this step's events did to the routes, for squads to re-plan by (sim/squad.c); reset
     * when the next step's events are applied. */
    bool terrain_lowered; /* a cell opened or got cheaper: a shorter way may exist anywhere */
    bool raised_overflow; /* more raising events than `raised` holds: treat every path as hit */
    uint32_t raised_count;
    th_event_def raised[TH_NAV_RAISED_RECTS]; /* rectangles of events that blocked cells or made
                                                 them dearer (clipped to the map) */

    th_astar_ctx *astar; /* for th_world_find_path, created on first use */
    uint32_t *path;      /* its cell path buffer, ncells long */
    th_vec2 *waypoints;  /* string-pulled path, ncells long */
} th_world_nav;

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
     * there instead of walking a block of the main grid that wide (sim/boids.c). */
    uint32_t pred_mask;   /* union of the crowds' flee types; 0 = no predator index */
    float pred_radius;    /* largest flee radius of a crowd with flee types */
    th_grid pred_grid;
    float *pred_px, *pred_py;   /* capacity: predators in storage order, then... */
    float *pred_sx, *pred_sy;   /* ...in pred_grid's cell order (the query reads these) */
    uint16_t *pred_stype;       /* their types, cell order */
    uint16_t *pred_ptype;       /* their types, storage order */
    uint32_t pred_count;        /* predators in the last build */
    bool wrap;

    /* Agent state: buf[cur] is the state after the last step. A step gathers it into
     * buf[cur ^ 1] in cell order, flips cur, then updates that buffer in place: steering reads
     * everyone's step-t values and writes only accel; integration then touches only each
     * agent's own slot. */
    th_agents buf[2];
    uint32_t cur;
    uint32_t count;    /* agents alive */
    uint32_t capacity; /* agents the arrays hold */

    float *ax, *ay;      /* steering acceleration of the last step, storage order */
    uint32_t *cell;      /* grid cell of each agent, storage order */
    uint16_t *neighbors; /* same-crowd agents seen in the last step, storage order */
    uint8_t *flags;      /* TH_AGENT_LEADER | TH_AGENT_STRANDED of the last step, storage order */
    uint8_t *shelter;    /* bunker index + 1 the agent stepped into this step, or 0 */

    float *desired_speed; /* per id: free walking speed of pedestrians, m/s (0 for boids) */
    th_goal_state *goal_state; /* per id; allocated once a crowd's goal keeps state (route,
                                  wander), else NULL */
    bool goal_state_wanted;    /* such a crowd exists: goal_state grows with the agents */
    th_vec2 *crowd_route[TH_MAX_CROWDS]; /* each crowd's route waypoints (owned), or NULL */
    uint32_t colonies;    /* foraging crowds: bookkeeping runs th_forage_update while > 0 */
    th_congestion cong[TH_MAX_CROWDS]; /* congestion-aware destination fields, cong_count used */
    uint32_t cong_count;
    uint32_t *cell_agents; /* per map cell: agents counted by the last refresh (with cong) */
    float max_radius;     /* largest body radius over crowds: 0 = no bodies, no contacts phase */
    bool pedestrians;     /* some crowd uses the pedestrian model */
    /* Bodies near each agent, found once per step by the first contacts round and walked by
     * the later ones: TH_CONTACT_LIST storage indices per agent (storage order), their count. */
    uint32_t *contact;
    uint8_t *contact_count;
    uint32_t contact_capacity; /* agents the lists hold; 0 while no crowd has bodies */
    bool settle;               /* agents were added since the last step: the next contacts
                                  phase may take TH_CONTACT_SETTLE_ROUNDS */

    uint32_t next_id;     /* ids handed out so far */
    uint32_t *slot_of_id; /* id -> storage index, capacity entries */

    th_chunk_stats *chunk_stats; /* one per TH_CHUNK agents of capacity */

    th_world_nav nav;

    th_squad *squad[TH_MAX_SQUADS];
    uint32_t squad_count;
    bool squads_keep_paths; /* never re-plan after terrain events: off but in white-box tests,
                               which measure what re-planning buys against it */
    uint8_t *squad_of_id;   /* squad index + 1 of each agent id, 0 = none */
    uint16_t *member_of_id; /* its index among the squad's members */
    th_agent_id *removals;  /* agents to remove at the next step */
    uint32_t removal_count, removal_capacity;

    th_target_def target_def[TH_MAX_TARGETS]; /* points copied into target_points */
    th_vec2 *target_points[TH_MAX_TARGETS];
    th_vec2 target_pos[TH_MAX_TARGETS], target_vel[TH_MAX_TARGETS]; /* at the step's start */
    bool target_valid[TH_MAX_TARGETS];
    uint32_t target_count;

    bool stepping;          /* inside th_world_step: calls that change the world are refused */
    bool validate;          /* check invariants inside every step (sim/validate.c) */
    bool validation_failed; /* a check failed; validation_error says which */
    char validation_error[320];

    uint64_t step;
    th_world_stats stats;
    th_profiler prof;

    struct th_trace *trace; /* phase spans being recorded (sim/trace.c), or NULL */
    struct th_measure *measure; /* areas and lines (sim/measure.c), or NULL */
    struct th_report *report;   /* run history (sim/report.c), or NULL without a map */
    struct th_flow *flow;       /* spawners and exits (sim/flow.c), or NULL while there are none */
};

/* Compute accelerations for storage indices [begin, end) of buf[cur] (sim/boids.c); agents
 * of pedestrian crowds are skipped. */
void th_boids_steer(th_world *w, uint32_t begin, uint32_t end, th_chunk_stats *stats);

/* After the grid phase's gather: rebuild the predator index (w->pred_grid) from buf[cur].
 * Does nothing when no crowd flees anyone. */
void th_boids_prepare(th_world *w);

/* Rounds of overlap removal per step. */
#define TH_CONTACT_ROUNDS 4u
#define TH_CONTACT_MAX_ROUNDS 32u
/* The same after agents were added: bodies dropped at random near the densest packing (a
 * crowd spawned at 6 persons/m2) need a few hundred rounds to come apart. */
#define TH_CONTACT_SETTLE_ROUNDS 512u
/* Bodies listed per agent for the rounds: those within 1.5 contact distances at the start of
 * the step (the pedestrian model lists them while it steers, the contacts phase for everyone
 * else), nearest first when there are more. Six touch a body in the densest packing. */
#define TH_CONTACT_LIST 12u

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

/* The pedestrian model (sim/ped.c): accelerations of the pedestrian agents in [begin, end). */
void th_ped_steer(th_world *w, uint32_t begin, uint32_t end, th_chunk_stats *stats);

/* Bodies (sim/contacts.c): the contacts phase, run after integration when max_radius > 0. It
 * uses buf[cur ^ 1] as scratch. */
void th_contacts_resolve(th_world *w);
/* Insert body j at squared distance d2 into a contact list sorted by (d2, j) holding *n of at
 * most TH_CONTACT_LIST entries; the farthest falls off a full list. */
static inline void th_contact_insert(uint32_t *list, float *key, uint32_t *n, uint32_t j, float d2) {
    uint32_t at = *n;
    while (at > 0 && (key[at - 1] > d2 || (key[at - 1] == d2 && list[at - 1] > j))) at--;
    if (at >= TH_CONTACT_LIST) return;
    for (uint32_t k = *n < TH_CONTACT_LIST ? *n : TH_CONTACT_LIST - 1; k > at; k--) {
        key[k] = key[k - 1];
        list[k] = list[k - 1];
    }
    key[at] = d2;
    list[at] = j;
    if (*n < TH_CONTACT_LIST) (*n)++;
}
/* contact_count of an agent whose list the steering phase did not build. */
#define TH_CONTACT_UNLISTED 0xFFu

/* sim/step.c: keep a position inside the world (bounce off walled edges, wrap on a torus). */
void th_world_bound(const th_world *w, th_vec2 *p, th_vec2 *v);


/* sim/world_nav.c: walking speed factor of the terrain at p (1 without a map or speeds). */
float th_nav_speed_at(const th_world *w, th_vec2 p);
/* Push the disc (p, r) out of the blocked cells it overlaps, cell by cell in a fixed order.
 * Returns the moved centre. Also keeps it off the world's edges in a walled world. */
th_vec2 th_nav_push_out_of_walls(const th_world *w, th_vec2 p, float r);
/* Path-finding memory (A*, the path and its waypoints) created on first use, and landmark
 * bounds built again if the map changed since they were: outside any step (it allocates and
 * may take a quarter of a second). Squads plan with what it left; false when out of memory. */
bool th_nav_path_ready(th_world *w, th_error *err);
/* Nearest wall points: distance (metres) from p to the closest blocked cell (or walled world
 * edge) within `range`, and the unit direction away from it; false when none is that close. */
bool th_nav_nearest_wall(const th_world *w, th_vec2 p, float range, float *dist, th_vec2 *away);

/* A squad (sim/squad.c). */
#define TH_SQUAD_PATH_POINTS 1024 /* the centre's string-pulled path */
#define TH_SQUAD_BACK_POINTS 32   /* a cut-off member's way back */

struct th_squad {
    th_squad_def def;              /* count = members alive */
    th_vec2 *slot_local;           /* slots in the squad's frame, centred */
    th_vec2 *slot_pos;             /* slots in the world, for the next step */
    th_agent_id *member;           /* members alive */
    uint32_t member_count;
    uint32_t capacity;             /* members the per-member arrays hold */
    uint32_t *slot_of_member;
    uint8_t *taken;                /* scratch of slot assignment */
    float *cutoff;                 /* seconds each member has been out of sight of its slot */
    th_vec2 *back;                 /* each member's way back, TH_SQUAD_BACK_POINTS apiece */
    uint32_t *back_count, *back_next;
    th_vec2 *path;                 /* the centre's path to the goal */
    uint32_t path_count, path_next;
    th_vec2 centre, heading, velocity;
    float error;                   /* mean distance from members to their slots, metres */
    bool arrived;
    bool stuck;                    /* a terrain event left no route to the goal: the centre
                                      waits (not arrived) until an event opens one */
};

void th_squad_free(th_squad *q);
void th_squads_update(th_world *w); /* serial, after integration */
th_vec2 th_squad_steer(const th_world *w, th_agent_id id, const th_crowd_rt *c, th_vec2 p,
                       th_vec2 v);

/* sim/world.c: replace *p with a zeroed array of n elements holding the first `keep` old ones
 * (freed). False, *p unchanged, when memory is short. Never called inside a step. */
bool th_grow_array(void **p, size_t elem, size_t keep, size_t n);

/* sim/world.c: th_world_add_agent without the between-steps check, for the engine's own use
 * inside a step (spawners, in the events phase). */
th_agent_id th_agent_add(th_world *w, uint32_t crowd, th_vec2 position, th_vec2 velocity,
                         th_error *err);

/* sim/world.c: drop agents whose `shelter` mark is set (a bunker index + 1, or
 * TH_MARK_REMOVED), in storage order, counting them. */
#define TH_MARK_REMOVED 0xFFu
/* TH_MARK_EXIT + e: the agent stepped into exit e (below TH_MAX_EXITS, so the marks of bunkers,
 * exits and removals never meet). */
#define TH_MARK_EXIT 0x80u
void th_world_drop_marked(th_world *w);
/* sim/world.c: make room for n agent ids (and as many agents) between steps, or in the events
 * phase for an endless spawner; false when memory is short. */
bool th_world_reserve(th_world *w, uint32_t n);

/* sim/behavior.c: targets evaluated at the start of a step (serial); pursuit steering. */
void th_targets_update(th_world *w);
th_vec2 th_pursuit_steer(const th_world *w, const th_crowd_rt *c, th_vec2 p, th_vec2 v);
/* The unit direction a leader at p pursues (toward the target, or where it will be; the river
 * map's flow for a shelter target), (0,0) when there is none: the target is absent, reached,
 * or no bunker can be reached. */
th_vec2 th_pursuit_dir(const th_world *w, const th_crowd_rt *c, th_vec2 p);

/* sim/goal.c: crowd goals. */
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
/* The unit direction agent `id` at p wants to walk in, as of step t (0 when it has arrived or
 * has no goal). False when its goal cannot be reached from p (stranded). */
bool th_goal_direction(const th_world *w, th_agent_id id, const th_crowd_rt *c, th_vec2 p,
                       th_vec2 *dir);
/* The goal's route cost field (nav units per cell) where one exists (shelter, destinations),
 * else NULL: pedestrians yield to those nearer the goal by it. */
const uint32_t *th_goal_cost_field(const th_world *w, const th_crowd_rt *c);
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

/* sim/movers.c: the classic movers, called from the goal functions above for their kinds. */
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
bool th_mover_direction(const th_world *w, const th_goal_state *s, const th_crowd_rt *c,
                        th_vec2 p, th_vec2 *dir);
void th_mover_moved(const th_world *w, th_goal_state *s, const th_crowd_rt *c, th_vec2 p,
                    th_vec2 v);
/* Bookkeeping (serial): targets drop their breadcrumbs. */
void th_movers_update(th_world *w);

/* sim/forage.c: ant-colony foraging (TH_GOAL_FORAGE). */
struct th_hasher;
/* Check a def's forage parameters against the world (th_goal_setup's FORAGE case). */
bool th_forage_check(const th_world *w, const th_goal_def *g, th_error *err);
/* Make crowd `crowd`'s colony: pheromone grid, food, and with a map the nest's destination
 * field (so call between steps). NULL with `err` filled. */
struct th_colony *th_forage_create(th_world *w, const th_goal_def *g, th_error *err);
void th_forage_free(struct th_colony *col);
/* The colony's parameters, defaults filled in, food sources its own copy. */
const th_forage_def *th_forage_def_of(const struct th_colony *col);
void th_forage_agent_added(th_world *w, th_agent_id id, th_vec2 v);
/* Steering: home down the nest field while carrying, else along the heading. */
bool th_forage_direction(const th_world *w, th_agent_id id, const th_crowd_rt *c, th_vec2 p,
                         th_vec2 *dir);
/* Integration: a searching ant senses ahead and turns (trail, food or random drift). */
void th_forage_moved(th_world *w, th_agent_id id, const th_crowd_rt *c, th_vec2 p, th_vec2 v);
/* Bookkeeping (serial): evaporation, then pickups, drops and deposits in storage order. */
void th_forage_update(th_world *w);
/* Colony state into the world hash. */
void th_forage_hash(const th_world *w, struct th_hasher *h);

/* sim/validate.c: false (and the first violation recorded) when an invariant does not hold. */
bool th_validate_grid(th_world *w);  /* right after the grid phase */
bool th_validate_state(th_world *w); /* after a whole step */
bool th_validate_bodies(th_world *w); /* after the contacts phase */
/* Largest overlap of two bodies, as a share of the smaller diameter, that validation accepts. */
#define TH_MAX_OVERLAP 0.1f

/* sim/world_nav.c */
void th_error_set(th_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool th_nav_world_init(th_world *w);  /* map, scratch: at creation when cell_size > 0 */

/* Calls that change the world are refused inside its own step (from a host task, say): the
 * assert hook hears of it (by default it aborts), and if it returns the call fails with `err`. */
static inline bool th_between_steps(const th_world *w, th_error *err) {
    if (TH_ASSERT(!w->stepping)) return true;
    th_error_set(err, "called during the world's own step");
    return false;
}
void th_nav_world_free(th_world *w);
void th_nav_apply_events(th_world *w); /* step phase "events" */
void th_nav_update(th_world *w);       /* step phase "nav" */
/* The goal and terrain terms of a boid's steering (the goal direction as a desired velocity,
 * the wall push); *stranded when its goal cannot be reached from p. Also for worlds without a
 * map (then only the goal term). */
th_vec2 th_nav_steer(const th_world *w, th_agent_id id, const th_crowd_rt *c, th_vec2 p,
                     th_vec2 v, bool *stranded);
/* Move from p by d, sliding along blocked cells; updates *v when blocked on an axis. */
th_vec2 th_nav_move(const th_world *w, th_vec2 p, th_vec2 d, th_vec2 *v);
/* Bunker index + 1 when p is in an open bunker, else 0. */
uint8_t th_nav_shelter_at(const th_world *w, th_vec2 p);
/* Remove agents that reached a bunker this step, counting them, in storage order. */
void th_world_apply_removals(th_world *w);

/* sim/report.c: the run history. th_report_reserve sizes it with the agent arrays (worlds with
 * a map only); th_report_update records what changed, in the history phase. */
void th_report_free(th_world *w);
bool th_report_reserve(th_world *w, uint32_t keep, uint32_t cap);
void th_report_update(th_world *w);

/* sim/flow.c: spawners and exits. Everything but th_flow_free and th_flow_reserve needs
 * w->flow. */
typedef struct th_flow th_flow;
void th_flow_free(th_world *w);
/* The agent arrays grew to `cap`: grow the spawning scratch and the exit times with them. */
bool th_flow_reserve(th_world *w, uint32_t cap);
/* Events phase (serial): add the agents the spawners owe, as far as there is room. */
void th_flow_spawn(th_world *w);
/* Integration and contacts: TH_MARK_EXIT + the first exit of the agent's crowd holding p, or 0. */
uint8_t th_flow_exit_mark(const th_world *w, uint32_t crowd, th_vec2 p);
/* th_world_drop_marked: one agent left through `exit`. */
void th_flow_exited(th_world *w, uint32_t exit);
/* Spawner and exit counts into the world hash. */
struct th_hasher;
void th_flow_hash(const th_world *w, struct th_hasher *h);
/* Validation: exit counts add up, no spawner ahead of its formula; false with msg filled. */
bool th_flow_validate(const th_world *w, char *msg, size_t cap);

/* sim/measure.c: measurement areas and lines. Everything is a no-op while w->measure is NULL. */
void th_measure_free(th_world *w);
/* Agent capacity grew to `cap` ids (the first `keep` ids hold positions): grow the per-id
 * previous positions with it. False when memory is short. */
bool th_measure_reserve(th_world *w, uint32_t keep, uint32_t cap);
/* A new agent starts its path at `p`. */
void th_measure_agent_added(th_world *w, th_agent_id id, th_vec2 p);
/* Bookkeeping (serial): areas counted, crossings detected, previous positions advanced. */
void th_measure_update(th_world *w);

#endif
