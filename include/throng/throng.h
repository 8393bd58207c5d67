/* throng: a deterministic, multithreaded crowd simulation engine.
 *
 * This is the one header that the viewer, the command line and users include (with
 * throng/viewer.h for the SDL2 viewer and throng/clock.h for a fixed-step host loop). A world
 * holds crowds (named groups sharing steering parameters) and agents. It advances in fixed
 * steps; between steps its state is a consistent snapshot that may be read freely.
 *
 * Usage (examples/minimal.c is a whole program):
 *     #include <throng/throng.h>
 *
 *     th_world_def wd = th_default_world_def();
 *     wd.width = 200; wd.height = 200;
 *     th_world *w = th_world_create(&wd, NULL);
 *     th_crowd_def cd = th_default_crowd_def();
 *     cd.name = "starlings";
 *     th_crowd_id crowd = th_world_add_crowd(w, &cd, NULL);
 *     th_world_add_agent(w, crowd, th_v2(10, 10), th_v2(1, 0), NULL);
 *     for (int i = 0; i < 600; i++) th_world_step(w);
 *     th_world_destroy(w);
 *
 * Units: metres, seconds, degrees. Zero-initialised defs are not valid: start from the
 * th_default_*_def() functions, which document every default.
 *
 * Determinism: the same world built the same way with the same seed has the same
 * th_world_hash() after the same number of steps, for any number of threads. */
#ifndef THRONG_H
#define THRONG_H

#include "api.h"
#include "error.h"
#include "version.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vec2.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Agent handle, unchanged when the engine reorders its arrays. index1 is the agent's slot in
 *  the world's id table + 1 (0 = the null handle); generation counts the uses of that slot,
 *  from 1. A slot freed when its agent leaves the world (sheltered, exited, removed) is reused
 *  by a later agent with the next generation, so the table follows the agents alive, not all
 *  agents ever added, and a handle of an agent that has left is stale: every call taking an id
 *  refuses it and never touches the slot's new agent. A zeroed th_agent_id is null. Slots are
 *  handed out identically for any thread count: the first agents of a world get index1 1, 2,
 *  ... in order of creation; freed slots are reused last freed first. */
typedef struct th_agent_id {
    uint32_t index1;
    uint32_t generation;
} th_agent_id;
#ifdef __cplusplus
#define TH_INVALID_AGENT (th_agent_id{0, 0})
#else
#define TH_INVALID_AGENT ((th_agent_id){0, 0})
#endif

/** Same handle (same slot and generation). */
static inline bool th_agent_id_eq(th_agent_id a, th_agent_id b) {
    return a.index1 == b.index1 && a.generation == b.generation;
}
/** Not the null handle (says nothing about whether the agent is still in a world). */
static inline bool th_agent_id_valid(th_agent_id id) { return id.index1 != 0; }

/** Upper bounds that keep a hostile input from exhausting memory. */
#define TH_MAX_AGENTS      (1u << 24) /* 16,777,216 agents */
#define TH_MAX_CROWDS      256
#define TH_MAX_WORLD_DIM   1.0e6f  /* metres per side */
#define TH_MAX_SPEED       1000.0f /* m/s: the largest speed or velocity any def or call may give */
#define TH_MAX_COORD       1.0e7f  /* metres: the largest |x| or |y| of a target's point */
/* The largest |amount| of th_world_add_pheromone, and the most adding leaves on a cell. */
#define TH_MAX_PHEROMONE   1.0e9f
#define TH_MAX_THREADS     64
#define TH_MAX_BODY_RADIUS 5.0f /* metres */

/** Handles of the things a world holds, one struct type per kind so that passing one kind where
 *  another is expected does not compile. A zero-initialised handle is the null handle (none);
 *  every call that takes one refuses a null handle and one the world never issued. Handles are
 *  issued in order of addition and never change: the i-th crowd added (i from 0) is
 *  (th_crowd_id){i + 1}, for i below th_world_crowd_count(), and so on for each kind, which is
 *  how to visit them all. */
typedef struct th_crowd_id {
    uint32_t index1; /* index + 1; 0 = null */
} th_crowd_id;
typedef struct th_bunker_id {
    uint32_t index1;
} th_bunker_id;
typedef struct th_target_id {
    uint32_t index1;
} th_target_id;
typedef struct th_squad_id {
    uint32_t index1;
} th_squad_id;
/** A destination field (th_world_add_destinations). */
typedef struct th_field_id {
    uint32_t index1;
} th_field_id;
/** A group of walkers that keep together (th_world_add_group). */
typedef struct th_group_id {
    uint32_t index1;
} th_group_id;
/** Measurement areas and lines, spawners and exits. */
typedef struct th_measure_area_id {
    uint32_t index1;
} th_measure_area_id;
typedef struct th_measure_line_id {
    uint32_t index1;
} th_measure_line_id;
typedef struct th_spawner_id {
    uint32_t index1;
} th_spawner_id;
typedef struct th_exit_id {
    uint32_t index1;
} th_exit_id;

/** Whether a handle is non-null (it may still name nothing in a given world). */
static inline bool th_crowd_id_valid(th_crowd_id id) { return id.index1 != 0; }
static inline bool th_bunker_id_valid(th_bunker_id id) { return id.index1 != 0; }
static inline bool th_target_id_valid(th_target_id id) { return id.index1 != 0; }
static inline bool th_squad_id_valid(th_squad_id id) { return id.index1 != 0; }
static inline bool th_field_id_valid(th_field_id id) { return id.index1 != 0; }
static inline bool th_measure_area_id_valid(th_measure_area_id id) { return id.index1 != 0; }
static inline bool th_measure_line_id_valid(th_measure_line_id id) { return id.index1 != 0; }
static inline bool th_spawner_id_valid(th_spawner_id id) { return id.index1 != 0; }
static inline bool th_exit_id_valid(th_exit_id id) { return id.index1 != 0; }

/** What happens at the edge of the world rectangle. */
typedef enum th_bounds {
    TH_BOUNDS_WALLS = 0, /* agents bounce off the edges */
    TH_BOUNDS_WRAP = 1,  /* the world is a torus: leaving one edge re-enters at the opposite one */
} th_bounds;

/** A host's task system (optional; th_world_def.enqueue_task). throng hands the host a task
 *  over `item_count` items: the host calls `task` on ranges [begin, end) that together cover
 *  [0, item_count) exactly once, each range at least `min_range` items (except the last), from
 *  any of its threads, passing `task_ctx` and a worker index in [0, th_world_def.threads) that
 *  no two concurrent calls share. Items are chunks of fixed size, so how the host splits them,
 *  in what order and on how many threads, changes no result. */
typedef void th_task_fn(uint32_t begin, uint32_t end, uint32_t worker, void *task_ctx);
/** Start `task` (above); return a handle for th_finish_task_fn, or NULL when the host ran the
 *  whole task before returning (then finish is not called). `user` is task_user. */
typedef void *th_enqueue_task_fn(th_task_fn *task, uint32_t item_count, uint32_t min_range,
                                 void *task_ctx, void *user);
/** Wait until the task behind `handle` has run completely. */
typedef void th_finish_task_fn(void *handle, void *user);

/** World creation parameters. */
struct th_dist_def; /* throng/dist.h */

typedef struct th_world_def {
    float width, height; /* world rectangle [0,width) x [0,height), metres; default 100 x 100 */
    th_bounds bounds;    /* default TH_BOUNDS_WALLS */
    float timestep;      /* seconds per step, default 1/60 */
    uint64_t seed;       /* keys every random draw, default 1 */
    uint32_t threads;    /* worker threads including the caller; 0 = number of cores (default) */
    uint32_t agent_capacity; /* agents to make room for up front (grows as needed); default 0.
                                Under several ranks: agents of the whole world, whose ids every
                                rank holds; each stores its share */
    float cell_size;         /* terrain cell side, metres; 0 = no terrain map (no walls inside the
                                world, no bunkers). The map has ceil(width / cell_size) x
                                ceil(height / cell_size) cells, all open at first. Default 0 */
    /* Running on the host's own scheduler (Box2D's enqueue/finish style): set both callbacks
     * and throng creates no thread; every parallel phase becomes one task given to the host,
     * and `threads` (1..TH_MAX_THREADS, required) is the number of worker indices the host
     * uses. The built-in pool is the default (both NULL). */
    th_enqueue_task_fn *enqueue_task;
    th_finish_task_fn *finish_task;
    void *task_user; /* passed to both */
    /* Several MPI processes share this world (throng/dist.h, builds with THRONG_MPI=ON);
     * NULL = one process (default). */
    const struct th_dist_def *dist;
    /* Seconds an agent may make no progress toward its goal before it counts as stalled (see
     * th_world_get_stall_info); 0 = the default, 10 s; at most 1e6. */
    float stall_time;
} th_world_def;

/** A world def with every default filled in. */
TH_API th_world_def th_default_world_def(void);

/** Explicit types are 0 .. TH_MAX_TYPES - 1 (they fit a bit mask for predator relations). */
#define TH_MAX_TYPES 32
/** th_crowd_def.type: a type of the crowd's own, shared with no other crowd. */
#define TH_TYPE_OWN  UINT32_MAX

/** How leaders close on their target. */
typedef enum th_pursuit {
    TH_PURSUIT_CHASE = 0,     /* steer toward where the target is */
    TH_PURSUIT_INTERCEPT = 1, /* steer toward where it will be: its position plus its velocity
                                 times the closing time (distance / closing speed) */
} th_pursuit;

/** How a crowd's agents choose where to go. */
typedef enum th_behavior {
    TH_BEHAVIOR_FLOCK = 0, /* Reynolds boids: separation, alignment, cohesion */
    TH_BEHAVIOR_FLEE = 1,  /* boids plus the river-map flow to the nearest standing bunker; an
                              agent that reaches an open bunker is sheltered (leaves the world) */
} th_behavior;

/** The longest timestep, in seconds, of a world with a pedestrian crowd. Over longer steps the
 *  speed law and the contacts phase no longer keep bodies apart in dense crowds (walkers close
 *  in faster than the projection rounds separate them): adding a pedestrian crowd to such a
 *  world is refused (docs/pedestrians.md). */
#define TH_PED_MAX_TIMESTEP 0.05f

/** How a crowd's agents move (docs/pedestrians.md has the equations and their sources). */
typedef enum th_model {
    TH_MODEL_BOIDS = 0,      /* Reynolds steering forces with inertia: flocks, herds, swarms */
    TH_MODEL_PEDESTRIAN = 1, /* pedestrians: the collision-free speed model of Tordeux, Chraibi
                                and Seyfried (2016). Each agent walks in a direction set by its
                                goal and bent by exponential repulsion from neighbours and
                                walls, at the speed the free space ahead allows (the free run
                                to the body in its way over time_gap, docs/pedestrians.md),
                                reached with `relaxation` when speeding up, at once when
                                slowing down. Alignment, cohesion, separation and max_force do
                                not apply. */
} th_model;

/** Where a crowd's agents want to go. The goal gives each agent a direction that both crowd
 *  models steer by: boids as a steering term weighted by flow_weight, pedestrians as their
 *  desired walking direction (docs/goals.md). */
typedef enum th_goal_kind {
    TH_GOAL_NONE = 0,         /* no goal of its own: boids flock, pedestrians walk `heading` */
    TH_GOAL_SHELTER = 1,      /* the nearest open bunker down the river maps; an agent that
                                 steps into an open bunker is sheltered (TH_BEHAVIOR_FLEE) */
    TH_GOAL_DESTINATIONS = 2, /* the cheapest goal of destination field `field`
                                 (th_world_add_destinations): least route cost plus goal
                                 weight; optionally around crowds (congestion_weight) */
    TH_GOAL_ROUTE = 3,        /* waypoints in turn, in straight legs: each is reached within
                                 `radius`, then the next is taken (see th_route_mode). On a
                                 map no leg may cross a blocked cell (th_world_add_crowd
                                 refuses the route, naming the leg and the cell) */
    TH_GOAL_WANDER = 4,       /* a heading that drifts at random (a random walk of the angle,
                                 `wander_rate` degrees per square-root second) */
    /* The classic movers (sim/behave/movers.c, docs/movers.md). */
    TH_GOAL_CRASH_AND_TURN = 5, /* walk `heading`; on meeting an obstacle within `lookahead`,
                                   turn away from `hand` and follow its boundary cell by cell
                                   until `heading` is free again (Bug-style); needs a map */
    TH_GOAL_WALL_FOLLOW = 6,    /* walk straight until a wall, then keep it on `hand`, cell by
                                   cell (the maze wall follower); needs a map */
    TH_GOAL_BREADCRUMBS = 7,    /* walk the trail of crumbs that target `target` drops every
                                   `spacing` metres, oldest unreached first */
    TH_GOAL_WAYPOINTS = 8,      /* head to the nearest visible node of a waypoint graph, then
                                   follow a precomputed next-hop table to node `destination` */
    TH_GOAL_FORAGE = 9,         /* ant-colony foraging (`forage`): wander, follow pheromone
                                   trails, carry food home to the nest marking the way
                                   (docs/ants.md) */
} th_goal_kind;

/** Which hand a wall-following mover keeps on the wall. */
typedef enum th_hand {
    TH_HAND_RIGHT = 0,
    TH_HAND_LEFT = 1,
    TH_HAND_NEAREST = 2, /* CRASH_AND_TURN only: at each crash, the hand of the side whose way
                            round the obstacle leaves it sooner (the side that deviates less
                            from the straight line; right on a tie), chosen per agent */
} th_hand;

/** Most nodes of a waypoint graph (TH_GOAL_WAYPOINTS), and crumbs of a breadcrumb trail. */
#define TH_MAX_WAYPOINT_NODES 256
#define TH_MAX_BREADCRUMBS    65536
/** Most node pairs (n² summed) of the distinct waypoint graphs of one world: their tables are
 *  built when crowds are added, in O(n³) time. Crowds with the same nodes and edges share one
 *  table, whatever their destinations. */
#define TH_MAX_WAYPOINT_PAIRS 65536

/** What a route does after its last waypoint. */
typedef enum th_route_mode {
    TH_ROUTE_ONCE = 0,   /* stop there: the agent holds the last waypoint */
    TH_ROUTE_LOOP = 1,   /* go on to the first again */
    TH_ROUTE_PATROL = 2, /* walk the waypoints back to the first, then out again (back and forth) */
} th_route_mode;

/** Most waypoints of a route. */
#define TH_MAX_ROUTE_POINTS 256

/** Most food sources of one foraging crowd. */
#define TH_MAX_FOOD_SOURCES 64

/** A food source of a foraging crowd: a disc holding `amount` units of food. */
typedef struct th_food_source {
    th_vec2 at;      /* centre, metres, inside the world and not in a wall */
    float radius;    /* metres in (0, 1000]; 0 = 1.5 m */
    uint32_t amount; /* units of food; an ant carries one at a time */
} th_food_source;

/** Ant-colony foraging (TH_GOAL_FORAGE). Zero fields take the defaults given. The crowd gets a
 *  pheromone grid of its own: the map's cells, or `cell_size` cells over the world without a
 *  map. An ant searches (wanders) until it steps into a food source with food left, takes one
 *  unit, and walks home to the nest (down a destination field over the nest's cells with a
 *  map, straight without), marking each pheromone cell it enters with `deposit`; at the nest it
 *  drops the food and turns back to search. A searching ant senses the pheromone ahead of it,
 *  left and right (`sense_angle`, `sense_distance`) and each step follows the strongest sample
 *  with probability `follow`, else wanders. Every cell loses pheromone as exp(-evaporation t).
 *  (Deneubourg et al. 1990; docs/ants.md.) */
typedef struct th_forage_def {
    th_vec2 nest;               /* nest centre, metres, inside the world and not in a wall */
    float nest_radius;          /* metres in (0, 1000]; 0 = 2 m */
    const th_food_source *food; /* 1 .. TH_MAX_FOOD_SOURCES sources; copied */
    uint32_t food_count;
    float cell_size;      /* metres per pheromone cell without a map, in [0.1, 100]; 0 = 1 m.
                             With a map it must be 0 or the map's cell size */
    float deposit;        /* pheromone laid on each cell entered while carrying food, in
                             (0, 1e6]; 0 = 1 */
    float evaporation;    /* per second: a cell keeps exp(-evaporation dt) of its pheromone
                             each step, in (0, 100]; 0 = 0.05 */
    float follow;         /* probability per step that a searching ant sensing a trail
                             follows it, in (0, 1]; 0 = 0.9 */
    float sense_angle;    /* degrees in (0, 90] between the centre and the side sensors;
                             0 = 45 */
    float sense_distance; /* metres in (0, 100] from the ant to its sensors; 0 = 2 */
    float turn_rate;      /* degrees per second a following ant turns toward the stronger
                             side, in (0, 100000]; 0 = 360 */
    float sensitivity;    /* least pheromone that counts as a trail, in (0, 1e6]; 0 = 1 % of
                             deposit */
} th_forage_def;

/** A crowd's goal. Zero-initialised it is TH_GOAL_NONE. */
typedef struct th_goal_def {
    th_goal_kind kind;
    th_field_id field;     /* DESTINATIONS: the destination field (th_world_add_destinations) */
    const th_vec2 *points; /* ROUTE: waypoints, metres, inside the world and on open ground,
                              every leg (and a loop's closing leg) across open cells only;
                              copied. Agents start at waypoint 0 */
    uint32_t point_count;  /* ROUTE: 1 .. TH_MAX_ROUTE_POINTS */
    th_route_mode mode;    /* ROUTE */
    float radius;          /* ROUTE: metres in (0, 1000]: a waypoint this close is reached;
                              0 = 1 m */
    float wander_rate;     /* WANDER, FORAGE (searching ants): degrees per square-root second
                              in (0, 10000]; 0 = 90: the sd of the heading change over T
                              seconds is rate * sqrt(T) */
    /* DESTINATIONS, congestion-aware exit choice (docs/goals.md): with a weight > 0 the crowd
     * routes on a copy of field `field` whose cells cost terrain cost x (1 + weight x density),
     * density = agents of every crowd in the cell / cell area, counted at the start of every
     * `congestion_every`-th step (and of a step whose events changed the map). 0 = off. */
    float congestion_weight;   /* square metres per person in [0, 100]; default 0 (off) */
    uint32_t congestion_every; /* steps between refreshes, 1 .. 100000; 0 = 10 */

    /* Movers (docs/movers.md). `radius` above is also theirs: metres in (0, 1000] within which
       a cell centre, crumb or node counts as reached; 0 = 0.3 cell sides for the cell walkers
       (CRASH_AND_TURN, WALL_FOLLOW), 0.5 m for BREADCRUMBS, 1 m for WAYPOINTS. */
    th_vec2 heading;       /* CRASH_AND_TURN: direction to walk (need not be unit, not 0),
                              unless `use_point` */
    bool use_point;        /* CRASH_AND_TURN: walk toward `point` instead of along `heading`
                              (which must then be 0): the way is straight to the point, and a
                              detour ends where it is free again closer to the point than the
                              crash was; the agent arrives within `arrive_radius` and stays */
    th_vec2 point;         /* CRASH_AND_TURN with use_point: metres, inside the world, open */
    float arrive_radius;   /* CRASH_AND_TURN with use_point: metres in (0, 1000] within which
                              the point is reached; 0 = 1 m */
    th_hand hand;          /* CRASH_AND_TURN, WALL_FOLLOW: the hand kept on the wall
                              (TH_HAND_NEAREST: crash and turn only) */
    float lookahead;       /* CRASH_AND_TURN: metres in (0, 1000] ahead that must be free;
                              0 = one cell side */
    th_target_id target;   /* BREADCRUMBS: a point, path or agent target (th_world_add_target) */
    float spacing;         /* BREADCRUMBS: metres in (0, 1000] between crumbs; 0 = 1 m */
    uint32_t trail;        /* BREADCRUMBS: crumbs kept, 1 .. TH_MAX_BREADCRUMBS (the oldest are
                              overwritten); 0 = 256 */
    const th_vec2 *nodes;  /* WAYPOINTS: node positions, metres, on open ground; copied */
    uint32_t node_count;   /* WAYPOINTS: 1 .. TH_MAX_WAYPOINT_NODES */
    const uint32_t *edges; /* WAYPOINTS: edge_count pairs of node indices (a, b), undirected,
                              cost = straight distance; copied. NULL = automatic: every pair
                              of nodes whose cells see each other (line of sight between cell
                              centres; all pairs in a world without a map) */
    uint32_t edge_count;
    uint32_t destination;        /* WAYPOINTS: the node everyone walks to */
    const th_forage_def *forage; /* FORAGE: the colony's parameters; copied */
} th_goal_def;

/** Crowd parameters: one set per crowd, shared by its agents. */
/** A distribution of a per-agent quantity, drawn once per agent from the world's seed and the
 *  agent's id and truncated to [min, max] (the truncated distribution, not a clip: no pile-up
 *  at the bounds). Used for pre-movement times, in seconds (docs/pedestrians.md). */
typedef enum th_distrib_kind {
    TH_DISTRIB_NONE = 0,      /* always 0 */
    TH_DISTRIB_CONSTANT = 1,  /* a */
    TH_DISTRIB_UNIFORM = 2,   /* uniform on [a, b] */
    TH_DISTRIB_NORMAL = 3,    /* mean a, standard deviation b */
    TH_DISTRIB_LOGNORMAL = 4, /* ln t normal with mean a and standard deviation b */
    TH_DISTRIB_GAMMA = 5,     /* shape a, scale b (mean a b) */
    TH_DISTRIB_WEIBULL = 6,   /* shape a, scale b: P(t > x) = exp(-(x / b)^a) */
    TH_DISTRIB_AGE = 7,       /* walking speeds (m/s) of adults aged uniformly in [a, b] years,
                                 20 <= a <= b <= 70, by RiMEA's age table after Weidmann (1993):
                                 at ages 20, 30, ..., 70 the speed is uniform on [1.60, 1.64],
                                 [1.52, 1.56], [1.46, 1.50], [1.39, 1.43], 1.27 and 1.07 m/s,
                                 the bounds linear in age between; free speeds only */
} th_distrib_kind;

typedef struct th_distribution {
    th_distrib_kind kind;
    float a, b;
    float min, max; /* truncation, 0 <= min <= max; max 0 = no upper bound */
} th_distribution;

/** Which bunker each agent of a fleeing crowd walks to (docs/goals.md, "Exit choice"). With
 *  no exits listed (count 0, the default) every agent walks to the nearest open bunker. With
 *  exits listed, each agent chooses one of them, once, when it starts to move (its
 *  pre-movement time over): exit e with probability proportional to
 *  weight_e (1 + social n_e), the weights normalised to sum 1 and n_e the agents within
 *  `social_radius` already heading to e (social influence; ISO 20414 test 15). Weights say how
 *  familiar each exit is (affiliation, ISO test 16) or allocate exits (a single exit: everyone
 *  to it). The draw is keyed by the seed and the agent's id. An agent whose exit is destroyed
 *  or full walks to the nearest open bunker instead, and back to its own should it reopen. */
typedef struct th_exit_choice {
    const th_bunker_id *bunkers; /* the exits (bunkers of the world), distinct; copied */
    const float *weights;        /* their weights, each >= 0, not all 0; copied */
    uint32_t count;              /* 0 .. TH_MAX_BUNKERS */
    float social;                /* weight gained per agent seen heading to an exit, times its
                                    own weight; in [0, 100], default 0.5 (0: no influence) */
    float social_radius;         /* metres in (0, 50]: how far others are seen; default 5 */
} th_exit_choice;

typedef struct th_crowd_def {
    const char *name;        /* copied; at most 63 bytes are kept. Default "crowd" */
    th_behavior behavior;    /* default TH_BEHAVIOR_FLOCK; TH_BEHAVIOR_FLEE is goal
                                TH_GOAL_SHELTER (goal.kind must then be NONE or SHELTER) */
    th_goal_def goal;        /* default TH_GOAL_NONE */
    th_model model;          /* default TH_MODEL_BOIDS (th_default_pedestrian_def: PEDESTRIAN) */
    float body_radius;       /* metres in [0, 5]: agents are discs this wide that do not overlap
                                each other or walls (resolved after every step); 0 = points.
                                Default 0 (pedestrians 0.2) */
    float neighbor_radius;   /* metres: alignment and cohesion heed agents this close; default 4 */
    float separation_radius; /* metres: agents of any crowd this close push apart; default 1.5 */
    float fov_deg;           /* full view angle, degrees in (0, 360]: agents outside it are not
                                seen; default 270 */
    float separation_weight; /* default 1.5 */
    float alignment_weight;  /* default 1.0 */
    float cohesion_weight;   /* default 1.0 */
    float max_speed;         /* metres/second, default 4 */
    float max_force;         /* metres/second^2: bound on the steering acceleration, default 8 */
    float flow_weight;       /* weight of the flow-field term (flee), default 2 */
    float wall_radius;       /* metres: walls closer than this push the agent away, default 1.5 */
    float wall_weight;       /* weight of the wall push, default 1 */
    uint32_t color;          /* 0xRRGGBB for viewers; 0 = let the viewer choose. Default 0 */

    /* Types and leaders. */
    uint32_t type;        /* faction in [0, TH_MAX_TYPES): agents align and cohere only with
                             agents of their own type (everyone separates from everyone).
                             TH_TYPE_OWN (default): a type of the crowd's own */
    th_target_id target;  /* a target (th_world_add_target) the crowd's leaders pursue, or null
                             (default): no leaders, everyone flocks */
    th_pursuit pursuit;   /* how leaders pursue, default TH_PURSUIT_CHASE */
    float pursuit_weight; /* default 2 */
    float lead_fov_deg;   /* front view of the leader test, degrees in (0, 180], default 60 */
    float lead_radius;    /* metres: reach of the leader test, default = neighbor_radius
                             (0 means that) */
    uint32_t flee_types;  /* bit t set: agents of type t are predators to flee; default 0 */
    float flee_radius;    /* metres: predators closer than this are fled, default 12 */
    float flee_weight;    /* default 3 */
    float evade_horizon;  /* seconds in [0, 60]: evade, fleeing where each predator will be (its
                             position plus its velocity times its distance over its speed,
                             looking at most this far ahead) instead of where it is (Reynolds
                             1999); default 0 (flee where it is) */

    /* The pedestrian model (model = TH_MODEL_PEDESTRIAN; ignored by boids). */
    float desired_speed;        /* m/s: mean free walking speed, default 1.34 (Weidmann 1993) */
    float desired_speed_sd;     /* m/s: spread of the free speeds, drawn per agent from a normal
                                   distribution clipped to mean +- 2 sd and to (0, max_speed];
                                   default 0.26 */
    float time_gap;             /* seconds: the time gap a walker keeps to the body in its way
                                   (less to one only partly in its way): its speed is its free
                                   run to that body over the gap, when below the desired speed;
                                   default 0.75 (calibrated on Weidmann's fundamental diagram:
                                   docs/pedestrians.md) */
    float relaxation;           /* seconds: time constant of speeding up, default 0.5 */
    float repulsion;            /* strength of the push away from neighbours (a dimensionless
                                   weight against the unit goal direction), default 5 */
    float repulsion_range;      /* metres: the push decays as exp(-gap / range), default 0.1 */
    float wall_repulsion;       /* the same for walls, default 5 */
    float wall_repulsion_range; /* metres, default 0.005 */
    float anticipation;         /* seconds: how far ahead a walker predicts where walkers coming
                                   the other way will pass it, and steps aside; 0 turns the
                                   counterflow behaviour (lanes) off. Default 1 */
    float keep_right;           /* in counterflow, weight of keeping to the right of the goal
                                   direction (a negative weight keeps to the left), against the
                                   unit goal direction; default 2 */
    th_vec2 heading;            /* a non-fleeing pedestrian crowd walks in this direction (need not
                                   be unit; (0,0), the default, = stand unless pushed) */

    /* Pre-movement (response) time, seconds, drawn per agent (either model): from when it is
     * added, the agent stands (velocity 0; bodies still push it) until this time has passed,
     * then moves as its crowd does. Default TH_DISTRIB_NONE: it moves at once. */
    th_distribution pre_movement;

    /* The pedestrian model: free walking speeds drawn from this distribution (m/s) instead of
     * normal(desired_speed, desired_speed_sd), truncated to [min, max] with max at most
     * max_speed (max 0: max_speed); e.g. uniform over an age group's range (IMO MSC.1/Circ.1533,
     * RiMEA's age table). Default TH_DISTRIB_NONE: desired_speed and desired_speed_sd. */
    th_distribution free_speed;

    /* Smoke (throng/hazard.h), either model: in smoke of extinction coefficient K (1/m) the
     * free speed (boids: the top speed) is scaled by max(smoke_min_factor, 1 - smoke_slope K).
     * Defaults from Frantzich and Nilsson (2003), as FDS+Evac uses them: 0.057 / 0.706 m and 0.1.
     */
    float smoke_slope;      /* metres, in [0, 10]; default 0.0807 */
    float smoke_min_factor; /* in (0, 1]; default 0.1 */

    /* Fleeing crowds: the exits its agents choose among (above); default none: the nearest. */
    th_exit_choice exit_choice;
} th_crowd_def;

/** A crowd def with every default filled in (boids). */
TH_API th_crowd_def th_default_crowd_def(void);

/** A crowd def with pedestrian defaults: model PEDESTRIAN, body_radius 0.2 m, desired speed
 *  1.34 +- 0.26 m/s, max_speed 2.5 m/s, time gap 0.7 s, relaxation 0.5 s, and the repulsion
 *  defaults above. */
TH_API th_crowd_def th_default_pedestrian_def(void);

/** An agent's state as of the last completed step. */
typedef struct th_agent_state {
    th_agent_id id;
    th_crowd_id crowd;
    th_vec2 position;     /* metres */
    th_vec2 velocity;     /* metres/second */
    th_vec2 acceleration; /* steering acceleration applied in the last step, metres/second^2 */
    uint32_t neighbors;   /* same-type agents seen in the last step */
    bool stranded;        /* its goal (shelter, destinations) could not be reached from where it
                             stood in the last step: no route to any open bunker or goal; a
                             waypoint walker that sees no node, a cell walker boxed in */
    bool leader;          /* led in the last step: its crowd has a target and no same-type agent
                             was in its front view */
    uint32_t waypoint;    /* TH_GOAL_ROUTE: index of the waypoint it walks to; TH_GOAL_WAYPOINTS:
                             the node it walks to (0 until its first step); else 0 */
    bool carrying;        /* TH_GOAL_FORAGE: carries a unit of food home */
    float start_time;     /* seconds of world time from which it moves (its pre-movement time
                             after it was added; 0 without one) */
    float fed;            /* fractional effective dose of the fire hazards so far (throng/hazard.h);
                             0 in a world without them */
    bool incapacitated;   /* the dose reached 1: it stands where it is for good */
    th_bunker_id exit;    /* the bunker it walks to, chosen (exit_choice) or set
                             (th_world_set_agent_exit); null: the nearest open one, or not yet
                             chosen */
} th_agent_state;

/** Read-only view of all agents in storage order (which changes every step: agents are kept
 *  sorted by grid cell). Pointers stay valid until the next call that changes the world. */
typedef struct th_agent_view {
    uint32_t count;
    const float *px, *py;  /* positions, metres */
    const float *vx, *vy;  /* velocities, metres/second */
    const uint16_t *crowd; /* crowd index: agent i's crowd is (th_crowd_id){crowd[i] + 1} */
    const th_agent_id *id;
    const uint8_t *flags;    /* TH_AGENT_LEADER | TH_AGENT_STRANDED, as of the last step */
    const float *own_radius; /* by id slot (id.index1 - 1), not storage index: the body radius
                                an agent was given (th_world_set_agent_radius), 0 where it has
                                its crowd's; NULL while no agent has one */
} th_agent_view;

#define TH_AGENT_LEADER   1u
#define TH_AGENT_STRANDED 2u
#define TH_AGENT_STALLED \
    4u /* no progress toward its goal for stall_time (th_world_get_stall_info) */

/** Aggregate figures of the last step, reduced in a fixed order. */
typedef struct th_world_stats {
    uint64_t step;          /* steps completed */
    uint32_t agents;        /* agents in the world */
    double mean_neighbors;  /* same-crowd agents seen per agent in the last step */
    double mean_candidates; /* agents inspected per agent (grid query cost) in the last step */
    uint32_t spawned;       /* agents ever added */
    uint32_t sheltered;     /* agents that reached a bunker, in total */
    uint32_t stranded;      /* fleeing agents with no route to an open bunker, last step */
    uint32_t removed;       /* agents removed by th_world_remove_agent, or buried: spawned =
                               agents + sheltered + removed + exited */
    uint32_t buried;        /* of `removed`: agents a block event walled in with no open cell
                               reachable (see th_world_block_cells), in total */
    uint32_t exited;        /* agents that left through an exit (th_world_add_exit), in total */
    uint32_t stalled;       /* agents stalled as of the last step (th_world_get_stall_info) */
} th_world_stats;

/** The phases of a step, in order. */
typedef enum th_phase {
    TH_PHASE_EVENTS = 0, /* queued changes applied to the map and bunkers, spawners' agents added */
    TH_PHASE_NAV,        /* river maps repaired, nearest-bunker field rebuilt, walls updated */
    TH_PHASE_GRID,       /* spatial index rebuilt, agents reordered by cell */
    TH_PHASE_STEER,      /* each agent senses its neighbours and computes its acceleration */
    TH_PHASE_INTEGRATE,  /* velocities and positions advanced, edges handled */
    TH_PHASE_CONTACTS,   /* bodies pushed apart and out of walls (crowds with a body_radius) */
    TH_PHASE_BOOKKEEPING, /* statistics, measurement, foraging deposits, breadcrumbs, read over
                             the agents just stepped (sheltered and exited ones included) */
    TH_PHASE_ADMIT,       /* agents that reached a bunker (while it has room) or an exit leave,
                             once, in storage order */
    TH_PHASE_SQUADS,      /* squads planned (again after terrain events) and advanced */
    TH_PHASE_HISTORY,     /* the run history records what this step changed */
    TH_PHASE_COUNT
} th_phase;

typedef struct th_world th_world;

/** Create a world. Returns NULL (with `err` filled) on an invalid def or when memory or threads
 *  cannot be had. */
TH_API th_world *th_world_create(const th_world_def *def, th_error *err);

/** Destroy a world and join its threads. NULL is ignored. */
TH_API void th_world_destroy(th_world *w);

/** Add a crowd; returns its handle, or the null handle with `err` filled. Crowds are added
 *  before stepping starts or between steps. */
TH_API th_crowd_id th_world_add_crowd(th_world *w, const th_crowd_def *def, th_error *err);

/** Number of crowds. */
TH_API uint32_t th_world_crowd_count(const th_world *w);

/** The def a crowd was created with (name points into the world), or NULL for a null handle
 *  or one of no crowd. */
TH_API const th_crowd_def *th_world_get_crowd(const th_world *w, th_crowd_id crowd);

/** A crowd's pre-movement times: those drawn for every agent added so far (on every rank), and
 *  its agents held in this process that still stand waiting for theirs. */
typedef struct th_pre_movement_info {
    uint32_t drawn;      /* agents given a time */
    double mean_s;       /* their mean, seconds (0 when none) */
    double min_s, max_s; /* the least and greatest drawn */
    uint32_t waiting;    /* agents stored here whose time has not yet come */
} th_pre_movement_info;

/** False for a null or unknown handle, or a crowd without pre-movement times. */
TH_API bool th_world_get_pre_movement(const th_world *w, th_crowd_id crowd,
                                      th_pre_movement_info *out);

/** The next-hop table of a crowd with goal TH_GOAL_WAYPOINTS, built when the crowd was added:
 *  in `*next` the node after `from` on a cheapest route to `to` (`to` itself when from == to),
 *  in `*cost` that route's length in metres (either pointer may be NULL). False for a crowd
 *  without that goal, a node index out of range, or no route from `from` to `to`. */
TH_API bool th_world_waypoint_hop(const th_world *w, th_crowd_id crowd, uint32_t from, uint32_t to,
                                  uint32_t *next, float *cost);

/** The trail of a crowd with goal TH_GOAL_BREADCRUMBS as of the last step: copies up to `max`
 *  crumbs (metres), oldest held first, to `out` (may be NULL when max is 0) and returns how
 *  many are held (0 for any other crowd). */
TH_API uint32_t th_world_breadcrumbs(const th_world *w, th_crowd_id crowd, th_vec2 *out,
                                     uint32_t max);

/** Add an agent of `crowd` at `position` (inside the world) with `velocity` (finite; clamped
 *  to the crowd's max_speed, direction kept however long it is). Returns its id or
 *  TH_INVALID_AGENT with `err` filled (bad crowd, position outside the world or not finite,
 *  velocity not finite, TH_MAX_AGENTS reached, out of memory). May allocate; call it between steps.
 */
TH_API th_agent_id th_world_add_agent(th_world *w, th_crowd_id crowd, th_vec2 position,
                                      th_vec2 velocity, th_error *err);

/** Advance one fixed step. Allocates nothing once the first step has run, except where the
 *  world grows inside a step: an endless spawner's agents (a spawner with a stop or a limit has
 *  its room reserved when added), and agents gathered from other MPI ranks. Memory short there
 *  is reported by th_world_step_error, never by an abort. */
TH_API void th_world_step(th_world *w);

/** Number of agents in the world. */
TH_API uint32_t th_world_agent_count(const th_world *w);

/** Slots of the id table used so far, free or holding an agent: every id handed out has
 *  index1 <= this. Freed slots are reused before a new one is taken, so it never exceeds the
 *  most agents the world has held at once, however many were ever added; the engine's per-id
 *  storage is sized by it. */
TH_API uint32_t th_world_id_slots(const th_world *w);

/** Steps completed since creation. */
TH_API uint64_t th_world_step_count(const th_world *w);

/** Copy one agent's state; false when `id` names no agent: null, or stale (its agent has left,
 *  even if a later agent now holds its slot). */
TH_API bool th_world_get_agent(const th_world *w, th_agent_id id, th_agent_state *out);

/* ---- one agent's way --------------------------------------------------------------------
 * Where an agent's own goal leads it from where it stands (docs/goals.md, "Per-agent queries"):
 * its crowd's goal, or its own exit (th_world_set_agent_exit, exit choice). They answer for the
 * world as of the last step and change nothing. Shelter and destinations: down the agent's
 * field; a route: its remaining waypoints (a one-way route to its end, a loop or patrol to the
 * next waypoint); a waypoint walker: the nodes to its destination; a crash-and-turn walker to a
 * point: the point (straight). Wander, wall following, breadcrumbs, foraging and no goal have
 * no end: no remaining cost and no path. */

/** The unit direction its goal gives it at its position (what its step steers by; (0, 0) at
 *  its goal or without one). False for an unknown agent, or when its goal cannot be reached
 *  from where it stands (stranded). */
TH_API bool th_world_agent_next_step(const th_world *w, th_agent_id id, th_vec2 *dir);

/** Metres it still has to walk to its goal (the route cost of a field, terrain costs
 *  included; the straight legs of a route or a waypoint graph); INFINITY for an unknown agent,
 *  a goal without an end or out of reach. 0 at its goal. */
TH_API float th_world_agent_remaining(const th_world *w, th_agent_id id);

/** Its way to its goal as waypoints, its position first: a field's cell path string-pulled to
 *  waypoints that see each other, a route's or a graph's points. Up to `max` to `out`, their
 *  number to `*count`. False with `err` filled for an unknown agent, a goal without an end or
 *  out of reach, or `max` too small (TH_ERR_LIMIT). Uses the world's path-finding memory
 *  (allocated on first use, as by th_world_find_path); call it between steps. */
TH_API bool th_world_agent_path(th_world *w, th_agent_id id, th_vec2 *out, uint32_t max,
                                uint32_t *count, th_error *err);

/** What one agent walks to in place of its crowd's goal (th_world_set_agent_goal). */
typedef enum th_agent_goal_kind {
    TH_AGENT_GOAL_CROWD = 0,  /* back to its crowd's goal */
    TH_AGENT_GOAL_POINT = 1,  /* a point: along an A* path (string-pulled), planned when set and
                                 re-planned after terrain events; it stays there once within
                                 `radius` */
    TH_AGENT_GOAL_EXIT = 2,   /* a bunker, down its river map (fleeing crowds: as
                                 th_world_set_agent_exit) */
    TH_AGENT_GOAL_FOLLOW = 3, /* another agent: straight toward it, keeping `radius` off; back to
                                 its crowd's goal once the other has left */
} th_agent_goal_kind;

/** Most waypoints of an agent's own path (TH_AGENT_GOAL_POINT): a longer way is kept to its
 *  first part and planned on from there when the agent reaches it. */
#define TH_AGENT_PATH_POINTS 256

typedef struct th_agent_goal {
    th_agent_goal_kind kind;
    th_vec2 point;      /* POINT: metres, inside the world, on open ground */
    float radius;       /* POINT, FOLLOW: metres in (0, 1000], 0 = 1 */
    th_bunker_id exit;  /* EXIT */
    th_agent_id follow; /* FOLLOW: another agent */
    int32_t priority;   /* POINT with goal planning on (throng/plan.h): higher goals are
                           searched first (default 0) */
} th_agent_goal;

/** Give one agent its own goal from the next step on, or return it to its crowd's (docs/goals.md,
 *  "An agent's own goal"). Its direction, stall judgement and the per-agent queries follow it.
 *  False with `err` filled for an unknown agent, a bad goal (a point off the world or in a wall
 *  or with no path to it (TH_ERR_UNREACHABLE), an exit for an agent whose crowd does not flee,
 *  an unknown agent to follow or itself), or any goal but its crowd's for a squad member, which
 *  walks to its slot wherever its squad goes (TH_ERR_STATE). In a world split over several
 *  ranks every rank makes the same call (collective), with the same answer: a point or the
 *  crowd's goal only (an exit or an agent to follow: TH_ERR_STATE). May allocate (the first
 *  time: the path-finding memory); call it between steps. */
TH_API bool th_world_set_agent_goal(th_world *w, th_agent_id id, const th_agent_goal *goal,
                                    th_error *err);

/** Give a selection of agents one goal, each as th_world_set_agent_goal would (a point is
 *  planned from where each stands). The agents are taken in the order given; `*done` (may be
 *  NULL) gets how many were given the goal. False at the first that fails, with `err` filled
 *  and naming its place in the selection: the agents before it keep the new goal, it and
 *  those after it keep their own. An unknown agent anywhere in the selection is refused before
 *  any is changed. */
TH_API bool th_world_set_agents_goal(th_world *w, const th_agent_id *ids, uint32_t count,
                                     const th_agent_goal *goal, uint32_t *done, th_error *err);

/** Give a selection of agents one goal at step `step` (>= th_world_step_count()): at the start
 *  of that step, before its terrain events, each as th_world_set_agents_goal would between
 *  steps; changes due at one step are made in the order they were given. Checked now, as
 *  th_world_set_agent_goal checks: every agent of the selection (each must be in the world now)
 *  and the goal (a point inside the world on open ground, an exit for fleeing crowds, another
 *  agent to follow). The memory the change needs is made ready now, so the step that makes it
 *  allocates nothing. At that step an agent that has left is passed over, and one with no path
 *  from where it stands to the point keeps its goal, as does one that has joined a squad since
 *  (th_world_goal_changes counts them all). Over
 *  several ranks, as th_world_set_agent_goal: each rank makes and counts its own agents'
 *  changes (and rank 0 those of agents gone), so the counts sum to one process's. */
TH_API bool th_world_schedule_agents_goal(th_world *w, uint64_t step, const th_agent_id *ids,
                                          uint32_t count, const th_agent_goal *goal, th_error *err);
/** Goal changes given for a later step and not made yet (`pending`, one per agent), made, and
 *  passed over; each pointer may be NULL. */
TH_API void th_world_goal_changes(const th_world *w, uint64_t *pending, uint64_t *made,
                                  uint64_t *passed);

/** Agents an own goal leads now: a point, or another agent followed that is still in the
 *  world (an own exit is a bunker's to count, and a follower whose agent left walks to its
 *  crowd's goal again). Every one is counted once, in one of reached, walking and unreachable.
 *  Over several ranks each rank counts the agents it holds (sum them). */
typedef struct th_own_goal_counts {
    uint32_t given;       /* agents in the world an own goal leads */
    uint32_t reached;     /* within the goal's radius of their point or of the agent followed */
    uint32_t walking;     /* on their way (a point still being planned included) */
    uint32_t unreachable; /* a point with no way to it from where they stand */
} th_own_goal_counts;
TH_API th_own_goal_counts th_world_own_goal_counts(const th_world *w);

/** The agent's own goal (kind TH_AGENT_GOAL_CROWD when it follows its crowd's). False for an
 *  unknown agent or a null pointer. */
TH_API bool th_world_get_agent_goal(const th_world *w, th_agent_id id, th_agent_goal *out);

/** Give one pedestrian its own free walking speed (m/s, in (0, its crowd's max_speed]) from
 *  the next step on, in place of the one drawn for it (a slower walker, a child). False with
 *  `err` filled for an unknown agent, a boids agent or a speed out of range. */
TH_API bool th_world_set_agent_speed(th_world *w, th_agent_id id, float speed, th_error *err);

/* ---- steering agents from the host -------------------------------------------------------
 * What a game, or any host that drives some agents itself, needs beside adding and removing
 * them (docs/embedding.md): a velocity of its own choosing that an agent walks or flies at
 * while the crowd model still keeps it off others and walls, a move to another place, and the
 * agents near one. Call them between steps; a change takes effect from the next step, and the
 * same calls at the same steps give the same th_world_hash for any number of threads. A world
 * split over several MPI ranks refuses them (TH_ERR_STATE): the agent's owner may change with
 * the move, and only the owner knows its crowd and neighbours. */

/** Give one agent the velocity it wants (m/s) from the next step on, in place of what its goal
 *  (its crowd's or its own) asks, until th_world_clear_agent_preferred_velocity. It is what
 *  the crowd model starts from, not the velocity it gets:
 *  - a pedestrian walks in its direction with its length as free speed: the pushes of
 *    neighbours and walls, the sidesteps, the time-gap speed law, speeding up over
 *    `relaxation`, the turning rate and the contacts phase still apply, and terrain costs,
 *    stairs, smoke and a group's pace still scale the speed. (0, 0) stands (bodies in contact
 *    still push it);
 *  - a boid steers toward it as toward its goal (the difference from its velocity, bounded by
 *    max_force, weighted by flow_weight); separation and walls still apply, while alignment,
 *    cohesion, leading, squad slots, fleeing predators and its goal give way to it.
 *  A velocity longer than the crowd's max_speed is clamped to it, direction kept (as
 *  th_world_add_agent clamps): th_world_get_agent_preferred_velocity reads what was kept. The
 *  agent stays subject to its pre-movement time, incapacitation, elevators, bunkers and exits,
 *  and is never judged stalled (th_world_get_stall_info) while the host steers it. False with
 *  `err` filled for an unknown agent (TH_ERR_HANDLE), a velocity not finite (TH_ERR_INVALID),
 *  a call inside a step or a world over several ranks (TH_ERR_STATE), memory short the first
 *  time (TH_ERR_NOMEM). */
TH_API bool th_world_set_agent_preferred_velocity(th_world *w, th_agent_id id, th_vec2 velocity,
                                                  th_error *err);

/** Return the agent to its goal (its own, else its crowd's) from the next step on. True also
 *  when it had no preferred velocity; false with `err` filled as above. */
TH_API bool th_world_clear_agent_preferred_velocity(th_world *w, th_agent_id id, th_error *err);

/** The preferred velocity the agent holds (as clamped) into `*out`; false (out untouched) for
 *  an unknown agent, a null pointer, or an agent its goal steers. */
TH_API bool th_world_get_agent_preferred_velocity(const th_world *w, th_agent_id id, th_vec2 *out);

/** Move one agent to `position` at once (a teleport: th_world_get_agent and th_world_agents
 *  read it there now; the next step's grid phase files it under its new cell). It arrives
 *  standing: its velocity and a pedestrian's memory of its last direction and of counterflow
 *  are cleared, as for an agent just added. Its stall judgement starts afresh, a measurement
 *  line counts no crossing for the jump, a cell walker, breadcrumb follower or waypoint walker
 *  sets out anew from there, and an own goal's point is planned again from there (with no path
 *  from there it stands stranded until the terrain changes). Kept: its id, crowd, goals, a
 *  route's next waypoint, its preferred velocity, free speed, pre-movement time and dose.
 *  Bodies it lands on are pushed apart by the next contacts phase. False with `err` filled,
 *  the agent left where it was, for an unknown agent (TH_ERR_HANDLE), a position not finite
 *  (TH_ERR_INVALID), outside the world or inside a wall (TH_ERR_BLOCKED, as
 *  th_world_add_agent), an agent riding an elevator, a call inside a step or a world over
 *  several ranks (TH_ERR_STATE). */
TH_API bool th_world_set_agent_position(th_world *w, th_agent_id id, th_vec2 position,
                                        th_error *err);

/** Give one agent a body radius of its own (metres, in (0, its crowd's body_radius]) from the
 *  next step on: a child in a crowd of adults, a wheelchair user given more room. Everything that
 *  reads bodies reads it (the pedestrian model's spacing and time gap, pushes and contacts,
 *  the overlap invariant, stall look-ahead) and the viewer draws it. At most the crowd's, since
 *  the crowd's river maps and door widths are made for its bodies and its grid cells for its
 *  reach. False with `err` filled for an unknown agent (TH_ERR_HANDLE), a crowd without bodies
 *  (body_radius 0: TH_ERR_STATE), a radius out of range or not finite (TH_ERR_INVALID), a call
 *  inside a step or a world over several ranks (TH_ERR_STATE), memory short the first time
 *  (TH_ERR_NOMEM). */
TH_API bool th_world_set_agent_radius(th_world *w, th_agent_id id, float radius, th_error *err);

/** The agent's body radius (its own, else its crowd's body_radius; 0 for a crowd without
 *  bodies), or -1 for an unknown agent. */
TH_API float th_world_agent_radius(const th_world *w, th_agent_id id);

/** The agents within `radius` metres (centre to centre, at most; across the seams of a
 *  wrap-around world) of agent `id`, itself left out, as of now: nearest first, ties in id
 *  slot order. `*count` (required) gets how many there are; the first min(count, max) go to
 *  `out` (may be NULL when max is 0). Looks at every agent (O(agents)): a host that queries
 *  every agent each frame reads th_world_agents instead. False with `err` filled for an
 *  unknown agent (TH_ERR_HANDLE), a radius not finite or below 0 (TH_ERR_INVALID), no count,
 *  or a world over several ranks (TH_ERR_STATE). */
TH_API bool th_world_agent_neighbors(const th_world *w, th_agent_id id, float radius,
                                     th_agent_id *out, uint32_t max, uint32_t *count,
                                     th_error *err);

/** All agents, in storage order. */
TH_API th_agent_view th_world_agents(const th_world *w);

/** Statistics of the last step. */
TH_API th_world_stats th_world_get_stats(const th_world *w);

/** Stalled agents. An agent is stalled when it has made no progress toward its goal for the
 *  world's stall_time: its remaining route cost (shelter and destination fields) or its distance
 *  to the next route waypoint (or a waypoint graph's destination node, once it heads there) has
 *  not dropped by 0.2 m, or, for wanderers, other movers, foragers and squad members of a squad
 *  still marching, it has not moved 0.5 m from where it last did. Never stalled: agents without
 *  a goal (flocks), stranded agents (no route: reported as such), agents at their goal (within
 *  1.5 m of a field's goal, within the radius of a one-way route's last waypoint or of a
 *  waypoint graph's destination), members of a squad that arrived or has no route, and agents
 *  that queue. An agent judged by its remaining cost or distance *queues* when, without progress
 *  of its own, it stands behind another walking to the same goal (nearer to it, less than two
 *  body widths away) that is at the goal, progresses or queues itself: a slow queue that moves,
 *  however long each of its walkers waits. A gridlock, where the whole chain ahead is stuck
 *  too, is stalled. Progress is a drop of 0.2 m below the best reached: walking up again after
 *  being pushed back is none. Judged every quarter second of simulated time in the bookkeeping
 *  phase; not part of the state hash; the same for any thread count and number of ranks.
 *
 *  The fields after stall_time, appended in this order, give the figures over the whole run
 *  (every step since the world was created), so that a jam that came and went leaves its
 *  trace. */
typedef struct th_stall_info {
    uint32_t stalled;     /* agents stalled as of the last step */
    float longest;        /* seconds without progress of the longest-stalled one; 0 when none */
    float x0, y0, x1, y1; /* bounding box of the stalled agents' positions, metres; 0 when none */
    float stall_time;     /* the threshold, seconds */
    /* Over the whole run: */
    uint32_t peak;        /* most agents stalled at once */
    float peak_time;      /* simulated seconds at which `peak` was first reached; 0 when none */
    double agent_seconds; /* the stalled count integrated over simulated time: the sum over
                             steps of `stalled` after the step times the timestep */
    float longest_run;    /* seconds: the longest any one agent went without progress before it
                             recovered (or left, or the run ended); 0 when none ever stalled */
    uint32_t queued;      /* agents queuing as of the last step (not stalled) */
    uint32_t queued_peak; /* most agents queuing at once */
} th_stall_info;

/** The stalled agents as of the last step, and the figures over the run; false (out untouched)
 *  for a NULL world or out. */
TH_API bool th_world_get_stall_info(const th_world *w, th_stall_info *out);

/** Whether the scene is over: no spawner will add an agent, no event is pending, and no agent
 *  is left that could still move toward a goal (every one sheltered, exited or removed, or
 *  stranded). A world with any agent moving (a flock, a wanderer, a walker) is not over. False
 *  for NULL. */
TH_API bool th_world_scene_over(const th_world *w);

/** The world's creation parameters (threads resolved to the actual worker count). */
TH_API th_world_def th_world_get_def(const th_world *w);

/** 64-bit fingerprint of the whole simulation state (every agent's id, crowd, position and
 *  velocity by bit pattern, in id slot order, the step count, bunker states, and the counts of
 *  spawners and exits where there are any). */
TH_API uint64_t th_world_hash(const th_world *w);

/** Check invariants inside every step from now on (a few passes over the agents per step): no
 *  agent in a blocked cell, positions and velocities finite and inside the world, speeds within
 *  the crowd's bound, alive + sheltered + removed + exited = spawned, bunker counts and
 *  capacities, exit counts, the id map a bijection, the grid agreeing with the positions it was
 *  built from. Turning it on clears any earlier violation. Under several MPI ranks (throng/dist.h)
 *  the call is collective; each rank checks the agents it holds and the ranks check together
 *  that every agent alive is held by exactly one rank, that the totals add up over ranks, that
 *  the values every rank holds agree and that the ranks made the same collective calls. */
TH_API void th_world_set_validation(th_world *w, bool on);

/** NULL while every check has held since validation was turned on; else the first violation
 *  (step, agent, values). Under several ranks every rank answers the same after each step: the
 *  violation found first in the step, on the lowest rank that found one (the first in one
 *  process's storage order). */
TH_API const char *th_world_validation_error(const th_world *w);

/** False while every step has done all its work. True once a step could not: memory ran
 *  short for something that grows inside a step (an endless spawner's agents, the bodies near
 *  a spawner). The step went on without that work (a spawner's queue waits) and `err` (may be
 *  NULL) receives the first such error, with its step. A host that needs every agent stops
 *  here. */
TH_API bool th_world_step_error(const th_world *w, th_error *err);

/** Name of a phase ("events", "grid", ...). */
TH_API const char *th_phase_name(th_phase phase);

/** Mean milliseconds per step spent in `phase` since creation or the last profile reset. */
TH_API double th_world_phase_ms(const th_world *w, th_phase phase);

/** Milliseconds spent in `phase` during the last step. */
TH_API double th_world_phase_last_ms(const th_world *w, th_phase phase);

/** Forget profile totals (e.g. after warm-up steps). */
TH_API void th_world_reset_profile(th_world *w);

/* ---- targets ------------------------------------------------------------------------------
 * What leaders pursue. A target's position and velocity are evaluated at the start of every
 * step from its definition. */

typedef enum th_target_kind {
    TH_TARGET_POINT = 0,   /* starts at `position`, moves at constant `velocity` */
    TH_TARGET_PATH = 1,    /* moves along `points` at `speed`, looping back to the first or
                              stopping at the last */
    TH_TARGET_AGENT = 2,   /* follows agent `agent` (where it is and how it moves); absent while
                              that id names no agent (not yet added, or gone: a later agent in
                              its slot has another generation and is not followed) */
    TH_TARGET_SHELTER = 3, /* the nearest open bunker: leaders follow the river map */
} th_target_kind;

/** Most targets per world, and points per path. */
#define TH_MAX_TARGETS     64
#define TH_MAX_PATH_POINTS 256

typedef struct th_target_def {
    th_target_kind kind;
    th_vec2 position, velocity; /* POINT: metres (|x|, |y| <= TH_MAX_COORD), metres/second
                                   (length <= TH_MAX_SPEED) */
    const th_vec2 *points;      /* PATH: copied */
    uint32_t point_count;       /* PATH: 1 .. TH_MAX_PATH_POINTS */
    float speed;                /* PATH: metres/second */
    bool loop;                  /* PATH: from the last point back to the first */
    th_agent_id agent;          /* AGENT */
} th_target_def;

/** Add a target; returns its handle, or the null handle with `err` filled. */
TH_API th_target_id th_world_add_target(th_world *w, const th_target_def *def, th_error *err);

/** A target's position and velocity as of the start of the last step; false for a null or
 *  unknown handle or a target that does not exist (a removed agent, a shelter target). */
TH_API bool th_world_get_target(const th_world *w, th_target_id target, th_vec2 *position,
                                th_vec2 *velocity);

/* ---- squads ---------------------------------------------------------------------------------
 * A squad holds a formation by potential fields: each member is pulled to its own slot, pushed
 * from nearby agents (separation) and from walls. The squad centre walks an A* + string-pulled
 * path to its goal, waiting for stragglers; slots sit around the centre, turned to its heading.
 * A slot that falls in a wall, off the map, or where no member can reach it from the centre
 * moves to the nearest open cell reachable from the centre (while marching and at the goal),
 * no closer than the crowd's separation radius to any other slot (of this squad or another);
 * at the goal also a slot where the walls' push would hold its member more than half the
 * tolerance off moves. Where the template does not fit, the slots are packed anew (in a
 * corridor or a dead end the members line up along it); where even that finds too few cells,
 * the squad does not arrive and says so (th_squad_info.no_room). Arrival is judged on the slots
 * so placed; at the goal, members exchange slots when that brings both nearer, and one still
 * beyond tolerance of its slot comes at full speed. A member cut off from its slot (no line of
 * sight for a second) walks an A* path back. Slots go to the nearest members when members are
 * lost.
 *
 * A rigid squad (th_squad_def.rigid) moves as one body instead: its slots keep the template's
 * shape at all times (they are never moved off walls), and each member is held on its slot: it
 * steers to be where its slot will be after the step (the slot's own velocity plus the gap
 * closed within a few steps), within its crowd's max_speed and max_force. The centre goes only
 * as fast as every member can follow: its speed and its turn rate (the outermost slot's speed)
 * stay within the squad crowd's max_speed, they change no faster than its max_force allows, it
 * slows to a stop at each corner of its path and turns there in place, and it takes a step (or
 * a turn) only when every slot of the new pose is open ground with a margin. Where the path is
 * too narrow for the shape it waits, undeformed (th_squad_info.stuck), until terrain events
 * make room.
 *
 * Terrain events re-plan the centre's path from where the centre stands, in the step that
 * applies them: a block or a dearer set_cost re-plans the squads whose remaining path meets
 * the event's rectangle; a broken wall, an open or a cheaper set_cost re-plans every squad still
 * marching (a shorter way may have opened anywhere). The centre never walks into a blocked
 * cell; a squad left with no route waits where it is (th_squad_info.stuck, not arrived) until
 * an event opens one. */

typedef enum th_formation {
    TH_FORMATION_LINE = 0,   /* side by side, across the heading */
    TH_FORMATION_COLUMN = 1, /* one behind the other */
    TH_FORMATION_WEDGE = 2,  /* a V pointing ahead */
    TH_FORMATION_BOX = 3,    /* ranks of `files` members */
    TH_FORMATION_CIRCLE = 4, /* a ring */
} th_formation;

#define TH_MAX_SQUADS        64
#define TH_MAX_SQUAD_MEMBERS 1024

typedef struct th_squad_def {
    th_crowd_id crowd; /* the members' crowd: its radii, speeds and separation apply */
    uint32_t count;    /* members, 1 .. TH_MAX_SQUAD_MEMBERS, spawned on their slots */
    th_formation formation;
    uint32_t files;      /* BOX: members per rank; 0 = ceil(sqrt(count)) */
    float spacing;       /* metres between neighbouring slots, default 1.5 */
    th_vec2 start, goal; /* metres */
    float speed;         /* centre speed, metres/second, default 1.5 */
    float tolerance;     /* metres: the squad has arrived when its centre is at the goal and
                            every member is this close to its slot; default 0.5 */
    float slot_weight;   /* pull to the slot, default 3 */
    bool rigid;          /* false (default): slots held by potential fields, the formation
                            bends around walls and members find their own way; true: the
                            formation moves as one body (see squads above) */
} th_squad_def;

/** A squad def with the defaults above (formation BOX, crowd null: to be set, no members). */
TH_API th_squad_def th_default_squad_def(void);

typedef struct th_squad_info {
    th_vec2 centre, heading; /* metres; unit vector */
    uint32_t members;        /* members alive */
    float error;             /* mean distance from members to their slots, metres */
    bool arrived;
    uint32_t waypoints; /* points of the centre's path (re-planned after terrain events) */
    bool stuck;         /* the squad waits: terrain events left no route to the goal, or (a
                           rigid squad) its shape does not fit the way ahead */
    bool no_room;       /* at its goal, the members do not fit: some slot found no open cell
                           the squad reaches, clear of the other slots by the members'
                           separation, where the walls let its member stand within half the
                           tolerance of it; the squad cannot arrive there */
} th_squad_info;

/** Add a squad and spawn its members on their slots (which must be open ground). Returns the
 *  squad's handle, or the null handle with `err` filled. Call between steps. */
TH_API th_squad_id th_world_add_squad(th_world *w, const th_squad_def *def, th_error *err);

/** A squad's state as of the last step; false for a null or unknown handle. */
TH_API bool th_world_get_squad(const th_world *w, th_squad_id squad, th_squad_info *out);

/** Member `i` of a squad: its agent id and its slot (metres); false past the last member. */
TH_API bool th_world_get_squad_member(const th_world *w, th_squad_id squad, uint32_t i,
                                      th_agent_id *id, th_vec2 *slot);

/** Point `i` of a squad's centre path (metres, start first); false past the last one. */
TH_API bool th_world_squad_waypoint(const th_world *w, th_squad_id squad, uint32_t i, th_vec2 *out);

/** Add agent `id` (of any crowd, not in another squad) to a squad between steps: the slots are
 *  laid out again for the new count and go to the nearest members. False for a stale or
 *  unknown id (TH_ERR_HANDLE), or an agent in a squad or with a goal of its own
 *  (th_world_set_agent_goal; TH_ERR_STATE). */
TH_API bool th_world_squad_join(th_world *w, th_squad_id squad, th_agent_id id, th_error *err);

/* ---- groups ---------------------------------------------------------------------------------
 * Families and friends walk together (docs/goals.md, "Groups"): a group's members keep their
 * own goals and models, and whoever is ahead of the group's last member by more than `spread`
 * metres along the way (the remaining route cost of a shelter or destination goal, else the
 * distance ahead along the group's mean direction of walking) slows down, standing once it is
 * twice that far ahead, so the group walks at its slowest member's pace and arrives together.
 * Members who have left (sheltered, exited, removed) no longer count. Pedestrian crowds only. */

/** Most members of one group. */
#define TH_MAX_GROUP_SIZE 32

typedef struct th_group_def {
    const th_agent_id *members; /* 2 .. TH_MAX_GROUP_SIZE agents of pedestrian crowds, each in
                                   no other group; copied */
    uint32_t count;
    float spread; /* metres in (0, 50]: how far ahead of the last member one walks unhindered;
                     0 = 1.5 */
} th_group_def;

/** A group's state as of the last step. */
typedef struct th_group_info {
    uint32_t members; /* as added */
    uint32_t present; /* still in the world (not sheltered, exited or removed) */
    float stretch;    /* metres from the last member to the first along the way */
    uint32_t waiting; /* members slowed down for the others */
} th_group_info;

/** Add a group. Returns its handle, or the null handle with `err` filled (a member unknown,
 *  of a boids crowd or already in a group, too few or too many, a spread out of range, a world
 *  split over several ranks). Call between steps. */
TH_API th_group_id th_world_add_group(th_world *w, const th_group_def *def, th_error *err);
TH_API uint32_t th_world_group_count(const th_world *w);
/** False for a null world or pointer, or an unknown group. */
TH_API bool th_world_get_group(const th_world *w, th_group_id group, th_group_info *out);

/** Remove an agent at the start of the next step (a unit lost in battle). False for an unknown
 *  or stale id. Its id slot is reused by a later agent once it is gone. */
TH_API bool th_world_remove_agent(th_world *w, th_agent_id id, th_error *err);

/* ---- terrain, bunkers, events ------------------------------------------------------------
 * Present when the world def has a cell_size. Cells are addressed (x, y), x to the east,
 * cell (0,0) at the world origin. */

/** What a terrain cell is. */
typedef enum th_cell_kind {
    TH_CELL_OPEN = 0,         /* walkable; its cost multiplies the distance walked (1 = street) */
    TH_CELL_WALL = 1,         /* blocked for good */
    TH_CELL_DESTRUCTIBLE = 2, /* blocked until broken (th_world_break_walls) */
} th_cell_kind;

/** Terrain cost bounds of an open cell. */
#define TH_CELL_COST_MAX      1000
/** Most bunkers in one world. */
#define TH_MAX_BUNKERS        64
/** Most events queued between two steps. */
#define TH_MAX_PENDING_EVENTS 65536

/** Map size in cells and cell side in metres; false when the world has no map. */
TH_API bool th_world_map_size(const th_world *w, int32_t *cols, int32_t *rows, float *cell_size);

/** Set a cell while building the world, before the first step (after it, use the events).
 *  `cost` in [1, TH_CELL_COST_MAX] for open cells, ignored for walls. */
TH_API bool th_world_set_cell(th_world *w, int32_t x, int32_t y, th_cell_kind kind, uint32_t cost,
                              th_error *err);

/** Set how fast agents walk on an open cell, as a factor in (0, 1] of their speed (stairs about
 *  0.6), apart from its routing cost; before the first step. Default 1 everywhere. */
TH_API bool th_world_set_cell_speed(th_world *w, int32_t x, int32_t y, float factor, th_error *err);

/** A cell's walking speed factor: 1 unless set, 0 outside the map. */
TH_API float th_world_cell_speed(const th_world *w, int32_t x, int32_t y);

/** A cell's kind (and cost, may be NULL); TH_CELL_WALL outside the map. */
TH_API th_cell_kind th_world_cell(const th_world *w, int32_t x, int32_t y, uint32_t *cost);

/** A bunker: a rectangle of open cells that fleeing crowds run to. */
typedef struct th_bunker_def {
    const char *name;       /* unique, copied (63 bytes kept) */
    int32_t x0, y0, x1, y1; /* cells covered, inclusive */
    uint32_t capacity;      /* agents it shelters before it closes; 0 = unlimited */
    bool exit;              /* a way out of the scene rather than a shelter (a building's door):
                               the same in the simulation, drawn and reported as an exit (those
                               it takes are "out", destroying it closes it) */
    float max_flow;         /* persons a second it lets in at most, like a door of that capacity
                               (the regulatory flow limit of hydraulic models, e.g. 1.33 for a
                               1 m exit): those beyond it wait inside its cells. 0 = no limit,
                               the flow the crowd makes */
} th_bunker_def;

/** A bunker's current state. */
typedef struct th_bunker_info {
    const char *name;
    int32_t x0, y0, x1, y1;
    uint32_t capacity;  /* 0 = unlimited */
    uint32_t sheltered; /* agents inside */
    bool destroyed;     /* by th_world_destroy_bunker, until restored */
    bool full;          /* capacity reached: closed like a destroyed one */
    bool exit;          /* th_bunker_def.exit */
    float max_flow;     /* th_bunker_def.max_flow: persons a second at most, 0 = no limit */
} th_bunker_info;

/** Add a bunker before the first step; returns its handle, or the null handle with `err`
 *  filled. */
TH_API th_bunker_id th_world_add_bunker(th_world *w, const th_bunker_def *def, th_error *err);
TH_API uint32_t th_world_bunker_count(const th_world *w);
/** A bunker's state; false for a null or unknown handle. */
TH_API bool th_world_get_bunker(const th_world *w, th_bunker_id bunker, th_bunker_info *out);
/** The bunker called `name`, or the null handle. */
TH_API th_bunker_id th_world_find_bunker(const th_world *w, const char *name);

/* Events change the terrain and bunkers between steps. An event scheduled for step N is
 * applied at the start of the step that advances the world from N to N + 1, so every agent
 * sees the change from that step on; events due at the same step apply in the order they
 * were scheduled. The functions below schedule for the current step (the next one to run).
 * Each returns false with `err` filled on a bad argument or when TH_MAX_PENDING_EVENTS are
 * already pending. */

typedef enum th_event_type {
    TH_EVENT_DESTROY_BUNKER = 0,
    TH_EVENT_RESTORE_BUNKER = 1,
    TH_EVENT_BREAK_WALLS = 2, /* destructible walls in the cell rectangle become open */
    TH_EVENT_BLOCK_CELLS =
        3,                   /* open, non-bunker cells in the rectangle become walls until opened */
    TH_EVENT_SET_COST = 4,   /* open, non-bunker cells in the rectangle get terrain cost `cost` */
    TH_EVENT_OPEN_CELLS = 5, /* cells a block event closed in the rectangle open again */
} th_event_type;

/** Which of th_crowd_tune's values a crowd change sets (bits of th_crowd_tune.fields). */
enum {
    TH_TUNE_SEPARATION_WEIGHT = 1u << 0,
    TH_TUNE_ALIGNMENT_WEIGHT = 1u << 1,
    TH_TUNE_COHESION_WEIGHT = 1u << 2,
    TH_TUNE_FLOW_WEIGHT = 1u << 3,
    TH_TUNE_WALL_WEIGHT = 1u << 4,
    TH_TUNE_PURSUIT_WEIGHT = 1u << 5,
    TH_TUNE_FLEE_WEIGHT = 1u << 6,
    TH_TUNE_MAX_SPEED = 1u << 7,
    TH_TUNE_MAX_FORCE = 1u << 8,
};

/** A change of a boids crowd's steering (th_world_schedule_crowd): each value whose TH_TUNE_* bit
 *  is in `fields` replaces the crowd's, within the bounds of the th_crowd_def member of the same
 *  name (a flock stops aligning and cohering with weights 0: it scatters; an alarm raises its
 *  speed). `max_speed` may not exceed the max_speed the crowd was added with (how far it looks
 *  and what a step may move were sized for it). The rest of the crowd is as it was. */
typedef struct th_crowd_tune {
    uint32_t fields;
    float separation_weight, alignment_weight, cohesion_weight, flow_weight, wall_weight;
    float pursuit_weight, flee_weight, max_speed, max_force;
} th_crowd_tune;

/** An event: a bunker for the bunker events, an inclusive cell rectangle (clipped to the
 *  map) for the terrain events, and for TH_EVENT_SET_COST the new cost in
 *  [1, TH_CELL_COST_MAX] (ignored by the other types). */
typedef struct th_event_def {
    th_event_type type;
    th_bunker_id bunker;
    int32_t x0, y0, x1, y1;
    uint32_t cost;
} th_event_def;

/** Schedule `e` for step `step` (>= th_world_step_count()). */
TH_API bool th_world_schedule(th_world *w, uint64_t step, const th_event_def *e, th_error *err);

/** Schedule a change of a boids crowd's steering (th_crowd_tune) for step `step`
 *  (>= th_world_step_count()), in order with the other events; a world without a map takes it
 *  too. False with `err` filled on a bad handle, a pedestrian crowd, a value out of bounds or
 *  TH_MAX_PENDING_EVENTS pending. */
TH_API bool th_world_schedule_crowd(th_world *w, uint64_t step, th_crowd_id crowd,
                                    const th_crowd_tune *tune, th_error *err);

/** Steering changes (th_world_schedule_crowd) applied to `crowd` so far; in *last_step (may be
 *  NULL) the step that applied the last, i.e. the world's step count before it (0 with none).
 *  0 for a null or unknown handle. */
TH_API uint32_t th_world_crowd_changes(const th_world *w, th_crowd_id crowd, uint64_t *last_step);

/** Events scheduled and not yet applied. */
TH_API uint32_t th_world_pending_events(const th_world *w);

/** Destroy a bunker: nobody else shelters there; its basin re-routes to the next bunker. */
TH_API bool th_world_destroy_bunker(th_world *w, th_bunker_id bunker, th_error *err);
/** Restore a destroyed bunker (it opens again unless full). */
TH_API bool th_world_restore_bunker(th_world *w, th_bunker_id bunker, th_error *err);
/** Break every destructible wall in the cell rectangle [x0, x1] x [y0, y1] (clipped to the map);
 *  they become open cells of cost 1. */
TH_API bool th_world_break_walls(th_world *w, int32_t x0, int32_t y0, int32_t x1, int32_t y1,
                                 th_error *err);
/** Block every open, non-bunker cell in the rectangle (clipped): a truck across a street.
 *  Agents caught inside move, at the start of the step that applies it, into the open cell
 *  nearest to their cell through the newly blocked cells (so they can walk there: those cells
 *  were open), for a block of any size in one pass over it. Agents in a region the events wall
 *  in whole, with no open cell bordering it, are removed and counted in th_world_stats.buried
 *  (and .removed); `throng run` reports them. */
TH_API bool th_world_block_cells(th_world *w, int32_t x0, int32_t y0, int32_t x1, int32_t y1,
                                 th_error *err);
/** Open again the cells in the rectangle (clipped) that block events closed: a door that
 *  reopens. Each returns to open ground with the terrain cost it had when it was blocked (or
 *  the last cost a set_cost gave it while closed); walls of the map, destructible or not, stay
 *  walls (th_world_break_walls opens those), and open cells are left as they are. River maps,
 *  destination fields and the nearest-bunker field are repaired outward from the opened cells
 *  in the nav phase of the step that applies it, as after a broken wall, and marching squads
 *  re-plan. What each cell's block closed is kept across any sequence of events (block, open,
 *  block again, set_cost in between). */
TH_API bool th_world_open_cells(th_world *w, int32_t x0, int32_t y0, int32_t x1, int32_t y1,
                                th_error *err);
/** Give every open, non-bunker cell in the rectangle (clipped) the terrain cost `cost` in
 *  [1, TH_CELL_COST_MAX]: a street flooded (dearer) or a swamp drained (cheaper). Walls and
 *  bunker cells are left as they are; a cell a block closed stays closed and takes the cost
 *  when an open event reopens it. Only routing changes (the walking speed is
 *  th_world_set_cell_speed's). River maps, destination fields and the nearest-bunker field are
 *  brought up to date in the nav phase of the step that applies it, exactly as if computed
 *  afresh on the new map: a cheaper cell is repaired outward from the cells that changed, a
 *  dearer one recomputes the fields in full (costs can only rise, and a partial repair could
 *  leave a stale value). A*'s landmark bounds belong to the old costs and are not used until
 *  th_world_find_path builds them again; squads re-plan their centre paths (see squads). */
TH_API bool th_world_set_cost(th_world *w, int32_t x0, int32_t y0, int32_t x1, int32_t y1,
                              uint32_t cost, th_error *err);

/* Every query below answers only for positions on the world ([0, width) x [0, height), finite):
 * for any other point (NaN, infinite, off the edge) the flows return false with (0,0), the
 * costs INFINITY, th_world_nearest_bunker the null handle, th_world_wall_distance 0 (outside the
 * walled world is as inside a wall) with (0,0), and the path queries false with `err` naming the
 * position. */

/** Flow direction at `p` toward the nearest open bunker (unit vector, (0,0) inside one);
 *  false when no open bunker can be reached from there. Valid after the first step. */
TH_API bool th_world_flow(const th_world *w, th_vec2 p, th_vec2 *dir);

/** Flow toward bunker `bunker` alone (its own river map, standing or not) at `p`; false when
 *  it cannot be reached from there or for a null or unknown handle. Valid after the first
 *  step. */
TH_API bool th_world_bunker_flow(const th_world *w, th_bunker_id bunker, th_vec2 p, th_vec2 *dir);

/** Cost-weighted metres from `p` to the nearest open bunker; INFINITY when unreachable. */
TH_API float th_world_cost_to_shelter(const th_world *w, th_vec2 p);

/** The open bunker whose river map wins at `p`, or the null handle. */
TH_API th_bunker_id th_world_nearest_bunker(const th_world *w, th_vec2 p);

/** Send one agent of a fleeing crowd to bunker `exit` (its own river map) from the next step
 *  on, in place of its crowd's choice; the null handle sends it to the nearest open bunker
 *  again. While that bunker is destroyed or full the agent walks to the nearest open one.
 *  False with `err` filled for an unknown agent or bunker, an agent of a crowd that does not
 *  flee, or a world split over several ranks. Call between steps. */
TH_API bool th_world_set_agent_exit(th_world *w, th_agent_id id, th_bunker_id exit, th_error *err);

/** Cell-centre path from `p` down the river map to the nearest open bunker (start cell first,
 *  bunker cell last): up to `max` points to `out`, their count to `*count`. False with `err`
 *  filled when no open bunker is reachable or `max` is too small. Valid after the first step. */
TH_API bool th_world_shelter_path(const th_world *w, th_vec2 p, th_vec2 *out, uint32_t max,
                                  uint32_t *count, th_error *err);

/* Weighted destinations: the general form of a river map. A destination field is built over a
 * set of goal cells, each with a weight (cost-weighted metres added to reaching it) that makes
 * it less attractive; it answers "next step" (flow), "distance estimate" (cost) and "full
 * path" for any position, and is kept exact through wall events like the bunkers' maps. */

/** One goal of a destination field. */
typedef struct th_destination {
    int32_t x, y; /* cell */
    float weight; /* cost-weighted metres added when this goal is the one reached, >= 0 */
} th_destination;

/** Most destination fields in one world. */
#define TH_MAX_DESTINATION_FIELDS 16

/** Build a destination field over `count` goals (1..65,536 open cells) and compute it now;
 *  returns its handle, or the null handle with `err` filled. Call between steps. */
TH_API th_field_id th_world_add_destinations(th_world *w, const th_destination *goals,
                                             uint32_t count, th_error *err);

/** Destination fields in the world (a scene makes one per crowd with a destinations goal). */
TH_API uint32_t th_world_destination_count(const th_world *w);

/** Flow toward the cheapest goal of field `field` at `p`; false when no goal is reachable or
 *  for a null or unknown handle. */
TH_API bool th_world_destination_flow(const th_world *w, th_field_id field, th_vec2 p,
                                      th_vec2 *dir);

/** Cost-weighted metres from `p` to the field's cheapest goal, weight included; INFINITY when
 *  unreachable or for a null or unknown handle. */
TH_API float th_world_destination_cost(const th_world *w, th_field_id field, th_vec2 p);

/** Cell-centre path from `p` to the field's cheapest goal, like th_world_shelter_path. These
 *  three queries answer for the field as built, without the congestion a crowd's goal may add
 *  (th_goal_def.congestion_weight). */
TH_API bool th_world_destination_path(const th_world *w, th_field_id field, th_vec2 p, th_vec2 *out,
                                      uint32_t max, uint32_t *count, th_error *err);

/** Any-angle path from `from` to `to` (A* over the terrain costs, then string pulling, which
 *  takes a shortcut only where the terrain cost along it is no more than along the cells it
 *  skips, so the waypoints never cut across dear ground the route went round): writes up to
 *  `max` waypoints (metres, cell centres, start first) to `out`, their count to `*count` and
 *  the route's cost in cost-weighted metres to `*cost` (may be NULL; the pulled path costs no
 *  more). False with
 *  `err` filled when an end is blocked, no route exists, or `max` is too small. The first call,
 *  and the first after the map changed, also builds A*'s landmark bounds (docs/architecture.md:
 *  about a quarter of a second on a 1024 x 1024 map); call it between steps. */
TH_API bool th_world_find_path(th_world *w, th_vec2 from, th_vec2 to, th_vec2 *out, uint32_t max,
                               uint32_t *count, float *cost, th_error *err);

/** Expansions th_world_find_path_ida makes at most when given 0 (about 3 s of one core of the
 *  2-core AMD EPYC of bench/RESULTS.md, on a 256 x 256 city). */
#define TH_IDA_DEFAULT_EXPANSIONS 5000000u

/** th_world_find_path by IDA* (iterative deepening A*, docs/planning.md): the same cells, moves
 *  and costs, the same route cost (both optimal), pulled to waypoints the same way. Its memory
 *  is O(d) for d the cells of the deepest route it follows (at most the open cells): 13 bytes
 *  per depth in arrays that double as the route deepens, so at most 26 bytes per cell of it,
 *  plus the waypoints; nothing per cell of the map, where A* takes 17 bytes per cell. It
 *  builds no landmarks but uses A*'s when th_world_find_path built them for the map as it is.
 *  Its time can be far above A*'s, so `max_expansions` bounds the work (0 =
 *  TH_IDA_DEFAULT_EXPANSIONS). False with `err` filled as by th_world_find_path when an end is
 *  blocked or no route exists; TH_ERR_LIMIT with `*count` 0 when it gave up at the expansion
 *  bound (without landmarks an unreachable goal may end so: IDA* keeps no record of the cells
 *  it saw), or with `*count` the waypoints needed when `max` is too small. Call it between
 *  steps. */
TH_API bool th_world_find_path_ida(th_world *w, th_vec2 from, th_vec2 to, uint64_t max_expansions,
                                   th_vec2 *out, uint32_t max, uint32_t *count, float *cost,
                                   th_error *err);

/** Distance in metres from `p` to the nearest wall (bilinear over cell centres) and in `*away`
 *  (may be NULL) the direction away from it; INFINITY and (0,0) in a world without a map. */
TH_API float th_world_wall_distance(const th_world *w, th_vec2 p, th_vec2 *away);

/* ---- foraging (TH_GOAL_FORAGE) -------------------------------------------------------------
 * Each foraging crowd is a colony with a nest, food sources and a pheromone grid. Pickups,
 * drops and deposits happen in the bookkeeping phase, agent by agent in storage order (which
 * does not depend on the thread count): when a source holds less food than the ants stepping
 * into it, the first in storage order get it. */

/** A colony's totals. taken = delivered + carried while no carrying ant was removed. */
typedef struct th_forage_info {
    th_vec2 nest;       /* centre, metres */
    float nest_radius;  /* metres */
    uint32_t sources;   /* food sources */
    uint64_t taken;     /* units picked up from the sources so far */
    uint64_t delivered; /* units dropped at the nest so far */
    uint32_t carried;   /* ants carrying food now (one unit each) */
    uint64_t lost;      /* units carried by ants that were removed */
    double pheromone;   /* sum of the pheromone grid */
} th_forage_info;

/** A food source as it is now. */
typedef struct th_food_info {
    th_vec2 at;
    float radius;
    uint32_t amount;    /* units at the start */
    uint32_t remaining; /* units left */
} th_food_info;

/** Colony totals of crowd `crowd`; false when it does not forage. */
TH_API bool th_world_get_forage(const th_world *w, th_crowd_id crowd, th_forage_info *out);
/** Food source `source` of crowd `crowd`; false when there is none. */
TH_API bool th_world_get_food_source(const th_world *w, th_crowd_id crowd, uint32_t source,
                                     th_food_info *out);
/** Read-only view of crowd `crowd`'s pheromone grid: cols x rows cells of `*cell_size` metres,
 *  row-major from the world's origin (row 0 is the south edge), cell (x, y) covering
 *  [x c, (x + 1) c) x [y c, (y + 1) c). NULL when the crowd does not forage. Valid until the
 *  next step. */
TH_API const float *th_world_pheromone(const th_world *w, th_crowd_id crowd, int32_t *cols,
                                       int32_t *rows, float *cell_size);
/** Add `amount` (|amount| <= TH_MAX_PHEROMONE, may be negative; a cell never goes below 0, and
 *  adding never takes it above TH_MAX_PHEROMONE) of pheromone to the cell of crowd `crowd`'s
 *  grid holding `p`: a trail laid by hand. Call between steps. */
TH_API bool th_world_add_pheromone(th_world *w, th_crowd_id crowd, th_vec2 p, float amount,
                                   th_error *err);

/** The spatial grid's columns, rows and cell extent in metres (for overlays and tools). */
TH_API void th_world_grid_size(const th_world *w, int32_t *cols, int32_t *rows, float *cell_w,
                               float *cell_h);

/* ---- tracing ----------------------------------------------------------------------------
 * A trace records, for every step, one span per phase per worker that took part in it (serial
 * phases run on worker 0), for viewing as a timeline (e.g. Chrome trace events). */

/** One span: `worker` was busy with `phase` of step `step` from begin_ns to end_ns
 *  (monotonic clock, nanoseconds). */
typedef struct th_trace_span {
    uint64_t step;
    uint64_t begin_ns, end_ns;
    uint32_t worker;
    th_phase phase;
} th_trace_span;

/** Start recording into a buffer of `max_spans` spans (allocated now; recording stops when it is
 *  full). Any earlier recording is discarded. False with `err` filled on a bad size or no memory.
 */
TH_API bool th_world_trace_start(th_world *w, uint32_t max_spans, th_error *err);

/** The spans recorded so far, in recording order; valid until the next call that changes the
 *  world. */
TH_API const th_trace_span *th_world_trace_spans(const th_world *w, uint32_t *count);

/** Stop recording and free the buffer. */
TH_API void th_world_trace_stop(th_world *w);

/* ---- measurement --------------------------------------------------------------------------
 * Areas and lines measured by the engine in every step, after integration and before agents
 * that reached a bunker leave (they still count in the step they arrive). Measuring changes
 * nothing in the simulation: th_world_hash is the same with or without it, and every figure
 * is the same for any thread count (counts are integers, speeds are summed in fixed point of
 * 2^-24 m/s, so no sum depends on the order agents are visited in).
 *
 * An area is an axis-aligned rectangle [x0, x1) x [y0, y1): it reports the agents inside it
 * after the step, their density and their mean speed. A line is a segment from a to b: an
 * agent crosses it when the straight segment from its position after the previous step to its
 * position after this one intersects the line (endpoints included). In a wrap-around world
 * that segment is the short way across the seam (the minimum image), so the jump from one edge
 * to the other is not a crossing of the whole world.
 *
 * Direction: standing at a and looking toward b, crossing from the left side to the right side
 * counts +1, from right to left -1. For a line drawn northward (a below b), walking east is
 * positive. A point exactly on the line counts as on its right side, so an agent that stops on
 * the line and goes on is counted once. */

/** Most areas and lines per world. */
#define TH_MAX_MEASURE_AREAS        64
#define TH_MAX_MEASURE_LINES        64
/** Longest flow window: seconds, and steps (a ring of per-step counts is kept per line). */
#define TH_MAX_MEASURE_WINDOW       3600.0f
#define TH_MAX_MEASURE_WINDOW_STEPS 65536u

/** The lane order parameter of an area (Rex & Löwen 2007; docs/measurement.md): agents inside
 *  the area moving along `axis` at `min_speed` or more are sorted by the sign of their velocity
 *  along it; for each, n_same and n_opp count the others of its own and of the opposite
 *  direction whose lateral offset is below width / 2 and whose offset along the axis is below
 *  length / 2; phi_j = ((n_same - n_opp) / (n_same + n_opp))^2, averaged over the agents with
 *  at least one such neighbour. 1 for lanes, near 0 for a mix. Zero fields take the defaults. */
typedef enum th_lane_axis {
    TH_LANE_OFF = 0, /* not measured */
    TH_LANE_X,       /* motion along x (east or west) */
    TH_LANE_Y,       /* motion along y (north or south) */
} th_lane_axis;

#define TH_LANE_DEFAULT_WIDTH     0.6f /* metres: a band one person wide */
#define TH_LANE_DEFAULT_LENGTH    4.0f /* metres: 2 m ahead and behind */
#define TH_LANE_DEFAULT_MIN_SPEED 0.1f /* m/s along the axis */

typedef struct th_lane_def {
    th_lane_axis axis;
    float width;     /* metres, full width of the band (|lateral offset| < width / 2); 0 = 0.6 */
    float length;    /* metres, full length (|offset along the axis| < length / 2); 0 = 4 */
    float min_speed; /* m/s: slower agents (along the axis) take no part; 0 = 0.1 */
} th_lane_def;

/** An area. Names: 1 to 63 characters of letters, digits, '_', '-' and '.', unique among the
 *  world's areas and lines (they name output columns). */
typedef struct th_measure_area_def {
    const char *name;     /* copied */
    float x0, y0, x1, y1; /* metres, 0 <= x0 < x1 <= width, 0 <= y0 < y1 <= height */
} th_measure_area_def;

/** A line (a segment; the same name rules as areas). */
typedef struct th_measure_line_def {
    const char *name; /* copied */
    th_vec2 a, b;     /* metres, inside the closed world rectangle, a != b */
    float window;     /* seconds over which `flow` is averaged, rounded to whole steps (at
                         least one, at most TH_MAX_MEASURE_WINDOW_STEPS); 0 = 1 second */
} th_measure_line_def;

/** An area's figures as of the last step (or, before a step has run since it was added, as of
 *  when it was added). */
typedef struct th_measure_area_info {
    const char *name; /* points into the world */
    float x0, y0, x1, y1;
    uint32_t count;    /* agents inside */
    double density;    /* count / area, persons per square metre */
    double mean_speed; /* mean of |velocity| over the agents inside, metres/second; NaN when
                          the area is empty (no agent, no speed: 0 would read as a standstill) */
    th_lane_def lanes; /* as added, defaults filled in (axis TH_LANE_OFF: not measured) */
    double lane_order; /* the lane order parameter in [0, 1]; NaN when not measured, when no
                          agent moving along the axis has a neighbour in its band, or under
                          several MPI ranks */
    uint32_t lane_forward, lane_backward; /* agents counted moving toward +axis and -axis */
} th_measure_area_info;

/** A line's figures as of the last step. */
typedef struct th_measure_line_info {
    const char *name; /* points into the world */
    th_vec2 a, b;
    float window; /* seconds: window_steps * timestep */
    uint32_t window_steps;
    int32_t crossed;            /* net crossings in the last step: forward - backward */
    uint32_t forward, backward; /* crossings left-to-right and right-to-left in the last step */
    int64_t crossed_total;      /* net crossings since the line was added */
    uint64_t forward_total, backward_total;
    double flow; /* net persons/second over the last window: the net crossings of the
                    last min(steps measured, window_steps) steps divided by their
                    duration; 0 before the first step */
} th_measure_line_info;

/** Add an area; returns its handle, or the null handle with `err` filled. Allocates; call it
 *  between steps. */
TH_API th_measure_area_id th_world_add_measure_area(th_world *w, const th_measure_area_def *def,
                                                    th_error *err);

/** Measure the lane order parameter in an area (th_lane_def; TH_LANE_OFF stops it). Allocates
 *  the first time (a scratch array of one entry per agent id); call it between steps. The area
 *  is measured at once, like a new area. Cost per step: O(n^2) in the n agents inside the area
 *  moving along the axis (1.4 ms per step for 1000 agents, about 0.1 ms for 300, on one
 *  core of the 2-core test machine), nothing for areas without it. */
TH_API bool th_world_set_measure_lanes(th_world *w, th_measure_area_id area,
                                       const th_lane_def *lanes, th_error *err);

/** Add a line; returns its handle, or the null handle with `err` filled. Allocates (the first
 *  line also reserves a previous position per agent id); call it between steps. */
TH_API th_measure_line_id th_world_add_measure_line(th_world *w, const th_measure_line_def *def,
                                                    th_error *err);

TH_API uint32_t th_world_measure_area_count(const th_world *w);
TH_API uint32_t th_world_measure_line_count(const th_world *w);

/** An area's or line's figures; false for a null or unknown handle. */
TH_API bool th_world_get_measure_area(const th_world *w, th_measure_area_id area,
                                      th_measure_area_info *out);
TH_API bool th_world_get_measure_line(const th_world *w, th_measure_line_id line,
                                      th_measure_line_info *out);

/* ---- sources and sinks ---------------------------------------------------------------------
 * A spawner adds agents to a crowd at a steady rate, an exit removes the agents that reach it,
 * so a scene can run a continuous flow (a corridor fed at one end and drained at the other).
 *
 * Spawners run serially at the start of every step, in the events phase, in the order they
 * were added. A spawner with rate r that starts at step s0 owes, at the start of the step that
 * leaves step n, floor((min(n, s1) - s0) * q / 2^32) agents for n > s0 (else none), q the rate
 * per step in fixed point of 2^-32 persons, q = ceil(r * timestep * 2^32), s0 and s1 its start
 * and stop times rounded to the nearest whole step. That is floor(r * t) for the time t it has
 * run, up to the rounding of q: never later than r * t where r * t is a whole number, and
 * earlier by at most (steps run) * 2^-32 persons (under one person in 2^32 steps, two years at
 * 60 Hz). Integers only, so the same agents appear at the same step on every machine. So agents
 * due by time t = n * timestep enter at the start of the step from n to n + 1, as events do.
 * Times are the world's (steps completed times timestep): a spawner added after step n with a
 * start before n * timestep owes at once what it would have added since its start.
 *
 * Where: a position is drawn uniformly in the spawner's area (a rectangle, or a uniformly
 * chosen cell of its list, then uniformly in that cell), from engine/rng.h keyed by (seed,
 * spawner, agent index) with a try counter. A draw in a blocked cell is refused; for a crowd
 * with bodies so is one whose disc would touch a wall, the world's walled edge or any other
 * body. After TH_SPAWN_TRIES refused draws for one agent the spawner stops for this step and
 * the agents still owed wait (in order, the next step tries again with fresh draws): a queue at
 * the gate, never a body dropped onto another.
 *
 * Memory: the agent arrays follow the agents alive (the id of an agent that left is reused,
 * see th_agent_id). A spawner with a stop time or a limit reserves room for all it will add
 * when it is added, so its steps allocate nothing. An endless spawner grows the arrays as it
 * goes, doubling them when the agents alive fill them, and stops growing them once exits take
 * out as many as it adds. The departure times behind th_world_exited_by grow by 4 bytes per
 * agent that has left, doubling likewise: about log2(N / 1024) allocating steps over a run in
 * which N agents leave, none between two doublings.
 *
 * An exit is an area (a rectangle in metres, a list of cells, or the goal cells of a
 * destination field) and the crowds it takes. An agent of those crowds whose position at the
 * end of the step's movement (integration, then the contacts phase for bodies) lies in the
 * exit leaves at the end of the step (the admit phase, in storage order,
 * like an agent reaching a bunker; it still counts in that step's measurements). A fleeing
 * agent entering an open bunker shelters there rather than exit; where exits overlap, the one
 * added first takes the agent. */

/** Most spawners and exits per world; draws per agent before a spawner waits a step. */
#define TH_MAX_SPAWNERS   64
#define TH_MAX_EXITS      64
#define TH_SPAWN_TRIES    16
/** Largest spawner rate, persons per second. */
#define TH_MAX_SPAWN_RATE 10000.0

/** A map cell. */
typedef struct th_cell_ref {
    int32_t x, y;
} th_cell_ref;

/** A spawner. Start from th_default_spawner_def(). */
typedef struct th_spawner_def {
    const char *name;         /* copied (63 bytes kept); NULL = "spawner N" */
    th_crowd_id crowd;        /* the crowd its agents join (required: null is refused) */
    float x0, y0, x1, y1;     /* the area [x0, x1) x [y0, y1), metres, inside the world; used
                                 when cell_count is 0 */
    const th_cell_ref *cells; /* or these map cells (copied; 1 .. 65,536, inside the map) */
    uint32_t cell_count;
    double rate;      /* persons per second, in (0, TH_MAX_SPAWN_RATE] */
    double start;     /* seconds, >= 0; default 0 */
    double stop;      /* seconds, > start, or INFINITY (default): it never stops */
    uint32_t limit;   /* most agents it adds in total; 0 (default) = no limit */
    th_vec2 velocity; /* initial velocity of its agents (clamped to the crowd's
                         max_speed); default (0, 0) */
} th_spawner_def;

/** A spawner def with the defaults above (crowd, area and rate still to be set). */
TH_API th_spawner_def th_default_spawner_def(void);

/** A spawner's counts, as of the last step. */
typedef struct th_spawner_info {
    const char *name; /* points into the world */
    th_crowd_id crowd;
    uint32_t emitted;     /* agents it has added */
    uint64_t due;         /* agents owed by the last spawning pass (the formula above, capped by
                             the limit): emitted + waiting */
    uint64_t waiting;     /* owed but not yet placed: the area had no free spot */
    uint64_t total;       /* agents it will add in all (limit, or the formula at the stop
                             time); UINT64_MAX for an endless spawner */
    bool done;            /* it has added all it ever will */
    float x0, y0, x1, y1; /* where it adds agents: its rectangle, metres, or the bounding box
                             of its cells (th_world_spawner_covers tells which cells) */
} th_spawner_info;

/** Add a spawner; returns its handle, or the null handle with `err` filled (bad crowd, area
 *  outside the world or map, rate or times out of range, out of memory). A spawner with a stop
 *  time or a limit reserves memory for its agents now. Call between steps. */
TH_API th_spawner_id th_world_add_spawner(th_world *w, const th_spawner_def *def, th_error *err);
TH_API uint32_t th_world_spawner_count(const th_world *w);
/** A spawner's counts; false for a null or unknown handle. */
TH_API bool th_world_get_spawner(const th_world *w, th_spawner_id spawner, th_spawner_info *out);

/** An exit. Start from th_default_exit_def(). */
typedef struct th_exit_def {
    const char *name;         /* copied (63 bytes kept); NULL = "exit N" */
    float x0, y0, x1, y1;     /* the area [x0, x1) x [y0, y1), metres; used when cell_count is
                                 0 and field is null */
    const th_cell_ref *cells; /* or these map cells (copied; 1 .. 65,536, inside the map) */
    uint32_t cell_count;
    th_field_id field;         /* or, not null: the goal cells of this destination field.
                                  Default null */
    const th_crowd_id *crowds; /* the crowds it removes (copied); crowd_count 0 (default) = every
                                  crowd, also those added later */
    uint32_t crowd_count;
    float max_flow; /* persons a second it lets out at most (a door of that capacity): those
                       beyond it wait in its area. 0 (default) = no limit */
} th_exit_def;

/** An exit def with the defaults above (area still to be set). */
TH_API th_exit_def th_default_exit_def(void);

/** An exit's counts, as of the last step. */
typedef struct th_exit_info {
    const char *name;     /* points into the world */
    uint32_t exited;      /* agents that left through it */
    uint64_t first_step;  /* steps after which its first agent had left; 0 while none has */
    uint64_t last_step;   /* ... its latest */
    float x0, y0, x1, y1; /* its rectangle, metres, or the bounding box of its cells
                             (th_world_exit_covers tells which cells) */
    float max_flow;       /* th_exit_def.max_flow: persons a second at most, 0 = no limit */
} th_exit_info;

/** Add an exit; returns its handle, or the null handle with `err` filled. Call between steps. */
TH_API th_exit_id th_world_add_exit(th_world *w, const th_exit_def *def, th_error *err);
TH_API uint32_t th_world_exit_count(const th_world *w);
/** Whether map cell (x, y) is one of the cells of a spawner or an exit given by cells (false
 *  for one given by a rectangle, a null or unknown handle or a cell off the map): for drawing
 *  them. */
TH_API bool th_world_spawner_covers(const th_world *w, th_spawner_id spawner, int32_t x, int32_t y);
TH_API bool th_world_exit_covers(const th_world *w, th_exit_id exit, int32_t x, int32_t y);

/** An exit's counts; false for a null or unknown handle. */
TH_API bool th_world_get_exit(const th_world *w, th_exit_id exit, th_exit_info *out);

/** Steps after which the k-th agent (k >= 1, in the order they left) had left through any exit,
 *  or 0 when fewer than k have: the time by which any number of a crowd was out. Saturates at
 *  UINT32_MAX steps. */
TH_API uint64_t th_world_exited_by(const th_world *w, uint32_t k);

/* ---- run history --------------------------------------------------------------------------
 * What happened over a run and when, kept by the engine in the history phase of every step
 * (serially, allocating nothing) so that a report can answer "when was everyone safe?" after
 * the fact, whoever stepped the world (the command line, the viewer, a user's loop). Recorded
 * in worlds with a terrain map, from the first agent added on. Steps are counts of completed
 * steps: a figure `s` means "after s steps", time s * timestep. Recording changes nothing in
 * the simulation (th_world_hash is the same). */

/** What a history entry records. */
typedef enum th_history_kind {
    TH_HISTORY_BUNKER_DESTROYED = 0, /* `bunker`: the bunker; `step`: the step that applied it
                                        ran from `step` to `step` + 1 */
    TH_HISTORY_BUNKER_RESTORED = 1,  /* the same for a restore */
    TH_HISTORY_BUNKER_FULL = 2,      /* the bunker reached its capacity after `step` steps */
    TH_HISTORY_SQUAD_ARRIVED = 3,    /* squad `squad` counted as arrived after `step` steps
                                        (again after a breakup: one entry each time) */
    TH_HISTORY_BURIED = 4,           /* `count` agents walled in and removed by the step that ran
                                        from `step` to `step` + 1 */
} th_history_kind;

/** One change. */
typedef struct th_history_entry {
    uint64_t step;
    th_history_kind kind;
    th_bunker_id bunker; /* the bunker entries' bunker; else null */
    th_squad_id squad;   /* TH_HISTORY_SQUAD_ARRIVED: the squad; else null */
    uint32_t count;      /* TH_HISTORY_BURIED: agents; else 0 */
} th_history_entry;

/** Entries kept per world; later ones are counted in th_world_history's `dropped`, not kept. */
#define TH_MAX_HISTORY 1024

/** The history in the order it happened: copies up to `max` entries from the `first` on into
 *  `out` (may be NULL when max is 0) and returns how many it copied. `total` (may be NULL)
 *  receives the number kept, `dropped` (may be NULL) those past TH_MAX_HISTORY. */
TH_API uint32_t th_world_history(const th_world *w, uint32_t first, th_history_entry *out,
                                 uint32_t max, uint32_t *total, uint32_t *dropped);

/** Steps after which the k-th agent (k >= 1, in the order they arrived) was sheltered, or 0 when
 *  fewer than k agents have been sheltered (also in worlds without a map). Agents sheltered in
 *  the same step share its figure. So th_world_sheltered_by(w, k) is the earliest step count at
 *  which k agents were safe: the evacuation time of any fraction of a crowd. Saturates at
 *  UINT32_MAX steps. */
TH_API uint64_t th_world_sheltered_by(const th_world *w, uint32_t k);

/* ---- scene files ---------------------------------------------------------------------------
 * A scene is a YAML file: world or map, bunkers, crowds, a timeline of events. The format is
 * documented key by key in docs/scene-format.md. Loading validates everything: an error names
 * file:line:column, the key path, what was expected and what was found. */

/** Overrides applied when loading a scene. Zero fields leave the file's values alone. */
typedef struct th_scene_opts {
    uint32_t threads;   /* worker threads; 0 = the scene's `threads`, else the number of cores */
    bool override_seed; /* use `seed` instead of the file's */
    uint64_t seed;
    uint32_t agents;          /* 0 = as written; else random-spawn crowd counts are scaled so that
                                 all agents together number this (explicit agent lists stay) */
    bool allow_outside_paths; /* files the scene names (map.image) may lie outside the scene's
                                 folder (absolute, `..`, symbolic links); off by default */
    th_enqueue_task_fn *enqueue_task; /* the host's task system, as in th_world_def (then
                                         `threads` or the scene's must be set) */
    th_finish_task_fn *finish_task;
    void *task_user;
    const struct th_dist_def *dist; /* as in th_world_def: NULL = one process */
    /* Called with the path of each file the scene names (its map image, hazard tables) once
       the loader has read it, as it opened it (relative to the working directory, or
       absolute): a command can keep its outputs off every input. NULL: not called. */
    void (*file_read)(void *user, const char *path);
    void *file_read_user;
} th_scene_opts;

/** What a loaded scene holds. */
typedef struct th_scene_info {
    char name[64];
    uint64_t steps; /* the scene's `steps` (for headless runs) */
    float timestep; /* seconds */
    uint32_t agents, crowds, bunkers, events;
    int32_t map_cols, map_rows; /* 0 without a map */
    char map_image[2048]; /* the PNG a `map: image:` names, as the loader opened it (relative to
                             the working directory, or absolute); "" without one */
    uint32_t warnings;    /* what loads but is most likely a mistake: pedestrian crowds that will
                             stand where they start (no goal, no heading) in a scene with bunkers
                             or exits */
    char warning[512];    /* the first of them, as file:line:column: path: message; "" if none */
} th_scene_info;

/** Load the scene file at `path` and build its world, events scheduled. `info` (may be NULL)
 *  receives a summary. NULL with `err` filled on any problem. */
TH_API th_world *th_scene_load(const char *path, const th_scene_opts *opts, th_scene_info *info,
                               th_error *err);

/** Validate the scene file at `path` as th_scene_load would load it, with the same options:
 *  true when th_scene_load would succeed, else false with `err` filled with the very error it
 *  would report. The world is built through the same calls, so every check is made, but what
 *  only stepping needs (the nearest-bunker field, the river maps' working memory per worker)
 *  is left out: much less memory and time on large maps. `info` (may be NULL) as for
 *  th_scene_load. */
TH_API bool th_scene_check(const char *path, const th_scene_opts *opts, th_scene_info *info,
                           th_error *err);

/** Text from a scene file or a user (a name, a path) made safe to print: `len` bytes of `t`
 *  written to `out` (`cap` bytes, NUL-terminated), control characters, C1 controls and bidi
 *  characters escaped as \xHH or \uHHHH, cut at a character boundary when `out` is full. The
 *  loader's own messages already quote file text this way. Returns `out`. */
TH_API char *th_text_escape(char *out, size_t cap, const char *t, size_t len);

/* ---- older names ---------------------------------------------------------------------- */

/* A function that reads one record of the world (by handle, or the world's own) is called
 * th_world_get_<record>. These older names of such readers call the new ones and are kept for
 * one release; new code uses the new names. */
TH_API const th_crowd_def *th_world_crowd(const th_world *w, th_crowd_id crowd);
TH_API bool th_world_measure_area(const th_world *w, th_measure_area_id area,
                                  th_measure_area_info *out);
TH_API bool th_world_measure_line(const th_world *w, th_measure_line_id line,
                                  th_measure_line_info *out);
TH_API bool th_world_forage_info(const th_world *w, th_crowd_id crowd, th_forage_info *out);
TH_API bool th_world_food_source(const th_world *w, th_crowd_id crowd, uint32_t source,
                                 th_food_info *out);
TH_API bool th_world_stall_info(const th_world *w, th_stall_info *out);
TH_API bool th_world_target_state(const th_world *w, th_target_id target, th_vec2 *position,
                                  th_vec2 *velocity);
TH_API bool th_world_squad_member(const th_world *w, th_squad_id squad, uint32_t i, th_agent_id *id,
                                  th_vec2 *slot);

/* ---- built-in demos ------------------------------------------------------------------- */

/** Options for th_demo_create. */
typedef struct th_demo_opts {
    uint32_t agents;                /* agent count; 0 = the demo's default */
    uint64_t seed;                  /* random seed, used as given */
    uint32_t threads;               /* 0 = number of cores */
    const struct th_dist_def *dist; /* as in th_world_def: NULL = one process */
} th_demo_opts;

/** Names of the built-in demos, NULL-terminated. */
TH_API extern const char *const th_demo_names[];

/** Build a built-in demo world by name:
 *  - "flock": boids in a wrap-around square sized so that ~20 agents fall within each agent's
 *    neighbour radius (4 m); 10,000 agents by default.
 *  - "evac": a walled maze of city blocks with 4 bunkers (north, east, south, west), some
 *    walls destructible, and fleeing civilians (pedestrian model); 10,000 agents by default.
 *  - "pedestrians": four streams of pedestrians crossing on a wrap-around square sized for
 *    one person per square metre; 10,000 agents by default.
 *  Returns NULL with `err` filled for an unknown name or bad options. */
TH_API th_world *th_demo_create(const char *name, const th_demo_opts *opts, th_error *err);

#ifdef __cplusplus
}
#endif

#include "plan.h" /* hierarchical path planning: th_planner_* */

#endif
