/* throng: hierarchical path planning for many paths on a world's map (docs/planning.md).
 *
 * A planner holds an abstraction of the world's map (HPA*: Botea, Mueller and Schaeffer,
 * "Near optimal hierarchical path-finding", 2004): square clusters, entrances on their borders
 * and the costs of crossing each cluster. A path is found on that small graph, refined to
 * cells and string-pulled to waypoints, at a fraction of the work of A* on the whole map, for
 * a route a few percent dearer (the figures are in docs/planning.md and bench/RESULTS.md).
 * A building's stairs (glued edges) are crossed as A* crosses them: each glued edge is a
 * transition of the abstraction. A planner sizes its node slots for the stairs the map has when
 * it is created; stairs added later that outgrow them make its calls fail with TH_ERR_LIMIT
 * (create it again).
 *
 * Two ways to ask: th_planner_find_path answers at once; th_planner_submit queues a request
 * and th_planner_update serves the queue with a budget of expansions per call (a host calls it
 * once per frame or step), by priority then submission order, resuming a search the budget
 * cut off. Meanwhile th_planner_direction gives a coarse heading. Results are the same either
 * way, and the same for any thread count. A request marked anytime (th_planner_set_anytime) is
 * then improved from that first answer toward the optimal cell path with the budget the queue
 * leaves over.
 *
 * th_planner_find_tour plans from a start to a goal through whichever reward points pay for
 * their detour, in the best order. th_planner_note_trouble (and, when th_plan_def asks, the
 * world's stalled agents) makes cells dearer for later plans in the planner's own view of the
 * costs, a memory that fades with a half-life.
 *
 * The planner belongs to the caller: create it for a world with a map, pass the same world to
 * every call, destroy it before the world. Call it between steps, from the thread that steps
 * the world. Nothing allocates after creation. Units: metres. */
#ifndef THRONG_PLAN_H
#define THRONG_PLAN_H

#include "throng.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct th_planner th_planner;

/** A planning request (th_planner_submit). index1 = slot + 1 (0 = null); generation counts the
 *  slot's uses, so a released request's handle is refused afterwards. */
typedef struct th_plan_id {
    uint32_t index1;
    uint32_t generation;
} th_plan_id;

/** Planner settings; zero fields take the defaults of th_default_plan_def(). */
typedef struct th_plan_def {
    uint32_t cluster_size;   /* cells a cluster side, 4..64 (default 16) */
    uint32_t max_requests;   /* requests held at once, waiting or answered, 1..1048576 (1024) */
    uint32_t max_waypoints;  /* waypoints kept per answered request, 2..65536 (256) */
    float trouble_half_life; /* seconds of world time (steps x timestep) in which remembered
                                trouble halves, (0, 1e9] (30) */
    float stall_trouble;     /* cost added per second of world time to the cell of each agent the
                                world judges stalled (TH_AGENT_STALLED), read whenever the planner
                                brings itself up to date; 0 = off (default), at most 1e6; refused
                                in a world split over several MPI ranks */
    float trouble_interval;  /* seconds of world time between two takes of changed trouble into
                                the planner's view (each costs a repair and the landmarks):
                                meanwhile the memory changes but plans see it as last taken;
                                0 = at every refresh (default), at most 1e9 */
} th_plan_def;

/** Where a request stands. */
typedef enum th_plan_status {
    TH_PLAN_INVALID = 0,     /* no such request (null, released or stale handle) */
    TH_PLAN_WAITING = 1,     /* queued or being searched */
    TH_PLAN_DONE = 2,        /* a path was found */
    TH_PLAN_UNREACHABLE = 3, /* an end is blocked, or no route joins them */
    TH_PLAN_TOO_LONG = 4     /* found, but more waypoints than max_waypoints */
} th_plan_status;

/** Counts of the planner. */
typedef struct th_plan_info {
    uint32_t cluster_size;
    uint32_t clusters, nodes, edges; /* of the abstract graph */
    uint64_t bytes;                  /* held by the abstract graph */
    uint32_t waiting;                /* requests queued or being searched */
    uint64_t expanded;               /* abstract nodes expanded by all searches so far */
    uint64_t cells_expanded;         /* cells expanded by insertions, refinements and tours */
    uint32_t rebuilt;                /* clusters rebuilt by the last build or repair */
    uint32_t improving;              /* anytime requests answered and waiting for, or under,
                                        improvement */
    uint64_t improve_expanded;       /* cells expanded by anytime improvements so far */
    uint32_t trouble_cells;          /* cells whose remembered trouble is above zero */
} th_plan_info;

/** How far an anytime request's improvement has gone (th_planner_get_progress). */
typedef struct th_plan_progress {
    bool anytime;        /* marked by th_planner_set_anytime */
    bool final;          /* no cell path cheaper than the one held exists on the planner's view
                            as it was when the last improvement ended (or the goal is
                            unreachable): nothing more is done */
    uint32_t iterations; /* improvement searches ended: 0 = the first (HPA*) answer; 1 = the
                            cheapest path inside a corridor of clusters around it; 2 = the
                            cheapest path on the whole map */
    float first_cost;    /* cost of the first answer, cost-weighted metres (INFINITY before) */
} th_plan_progress;

/** A reward point of a tour (th_planner_find_tour). */
typedef struct th_plan_reward {
    th_vec2 position; /* metres; the tour passes through the centre of its cell */
    float reward;     /* what a visit is worth, cost-weighted metres, finite and >= 0 */
} th_plan_reward;

/** Most reward points one tour takes (its search is exact over every subset and order). */
#define TH_PLAN_MAX_REWARDS 8u

/** Defaults: clusters of 16, 1024 requests, 256 waypoints each, trouble halving in 30 s and
 *  taken at every refresh, stalled agents not read. */
TH_API th_plan_def th_default_plan_def(void);

/** A planner for world `w`'s map (TH_ERR_STATE without one), built at once on the world's
 *  threads. `def` may be NULL (defaults). NULL with `err` filled on a bad setting or no memory. */
TH_API th_planner *th_planner_create(th_world *w, const th_plan_def *def, th_error *err);

/** Free a planner. NULL is ignored. */
TH_API void th_planner_destroy(th_planner *p);

/** Bring the planner up to date with the world's map and its trouble memory: cells that
 *  changed since the planner last looked (events, th_world_set_cost, ...) are found by
 *  comparison, trouble fades to the world's time (and stalled agents are read when
 *  stall_trouble asks), and only the clusters around cells whose cost in the planner's view
 *  changed are rebuilt, then the abstract graph's landmark bounds (docs/planning.md: tens
 *  of milliseconds on a 1024 x 1024 map); the search in progress starts again.
 *  th_planner_find_path, th_planner_update and th_planner_cells_changed do this first too, so
 *  calling it is needed only to choose when the work is done. */
TH_API bool th_planner_refresh(th_planner *p, th_world *w, th_error *err);

/** The cells of [x0, x1] x [y0, y1] (inclusive) changed: rebuild the clusters they touch now.
 *  For code that knows what it changed (the same result as th_planner_refresh). */
TH_API bool th_planner_cells_changed(th_planner *p, th_world *w, int32_t x0, int32_t y0, int32_t x1,
                                     int32_t y1, th_error *err);

/** A path from `from` to `to` now: string-pulled waypoints (start cell centre first, goal cell
 *  centre last) into `out` (room for `max`), their number in `*count`, the cost of the cell
 *  route in cost-weighted metres in `*cost` (may be NULL). False with `err` filled when an end
 *  is off the world (TH_ERR_BLOCKED), blocked or unconnected (TH_ERR_UNREACHABLE), or `max` is
 *  too small (TH_ERR_LIMIT). */
TH_API bool th_planner_find_path(th_planner *p, th_world *w, th_vec2 from, th_vec2 to, th_vec2 *out,
                                 uint32_t max, uint32_t *count, float *cost, th_error *err);

/** Queue a request from `from` to `to`; higher `priority` is served first, then earlier
 *  submissions. The null handle with `err` filled when an end is off the world or every
 *  request slot is held (TH_ERR_LIMIT: release answered ones). */
TH_API th_plan_id th_planner_submit(th_planner *p, th_world *w, th_vec2 from, th_vec2 to,
                                    int32_t priority, th_error *err);

/** Serve queued requests with at most `budget` expansions: an abstract expansion (one node of
 *  the cluster graph taken from the open set) for a queued request, and one for each request
 *  started, then, with what the queue leaves, a cell expansion (one cell taken from the open
 *  set) for anytime improvements; the few cluster-sized searches that insert a request's ends
 *  and refine its route, and the string pulling of an improved path, are not counted (so one
 *  call starts at most `budget` requests, and its work is bounded by the budget times those
 *  searches). Returns the expansions spent: `budget` whenever requests are
 *  left waiting or anytime requests are left to improve. 0 with `err` filled on a bad
 *  argument. */
TH_API uint32_t th_planner_update(th_planner *p, th_world *w, uint32_t budget, th_error *err);

/** A request's status, and once TH_PLAN_DONE its waypoints (as th_planner_find_path) into
 *  `out` (may be NULL to ask the count only), `*count` (may be NULL) and `*cost` (may be NULL).
 *  TH_PLAN_INVALID with `err` filled for an unknown handle; TH_ERR_LIMIT when `max` is less
 *  than the waypoints (nothing written). */
TH_API th_plan_status th_planner_result(const th_planner *p, th_plan_id id, th_vec2 *out,
                                        uint32_t max, uint32_t *count, float *cost, th_error *err);

/** A coarse unit heading for a request from its start: toward its first waypoint once done;
 *  while searched, toward the first cluster entrance on the best route found so far; while
 *  queued, straight toward the goal. False with (0,0) for an unknown handle, an unreachable
 *  goal or a start at the goal. */
TH_API bool th_planner_direction(const th_planner *p, th_plan_id id, th_vec2 *dir);

/** Drop a request (waiting or answered) and free its slot. False with `err` filled for an
 *  unknown handle. */
TH_API bool th_planner_release(th_planner *p, th_plan_id id, th_error *err);

/** Mark a request (waiting or answered) anytime, or not (`anytime` false stops its
 *  improvement). Once answered, an anytime request is improved by th_planner_update with the
 *  budget the queue leaves over, one request at a time in the order they became ready: first an
 *  exact A* on the cells kept to the clusters its path crosses and their neighbours, then an
 *  exact A* on the whole map, each cut at the cost of the path held; a cheaper path found
 *  replaces the held one (th_planner_result gives the best so far). A change of the planner's
 *  view (map or trouble) restarts the search in progress on the new view. False with `err`
 *  filled for an unknown handle. */
TH_API bool th_planner_set_anytime(th_planner *p, th_plan_id id, bool anytime, th_error *err);

/** How far a request's improvement has gone into `*out`. False with `err` filled for an
 *  unknown handle or NULL `out`. */
TH_API bool th_planner_get_progress(const th_planner *p, th_plan_id id, th_plan_progress *out,
                                    th_error *err);

/** A tour from `from` to `to` now, through the subset of the `n` reward points (at most
 *  TH_PLAN_MAX_REWARDS; `rewards` may be NULL when n is 0), in the order, that minimises route
 *  cost minus the rewards collected: a point is visited only when its reward outweighs its
 *  detour (ties go to fewer points). Route costs are exact cell-path costs on the planner's view
 *  (n + 1 Dijkstras, each stopped once it reached every later point, then one A* per leg);
 *  points in blocked or unreachable cells are never taken. String-pulled waypoints of the legs
 *  in turn into `out` (room for `max`; start cell centre first, each visited point's cell
 *  centre, goal cell centre last), their number in `*count` (the number needed when `max` is
 *  too small), the points taken as bits (bit i = rewards[i]) in `*taken` (may be NULL), route
 *  cost minus rewards collected in `*net_cost` (cost-weighted metres; may be NULL). False with
 *  `err` filled on a bad argument or a negative or non-finite reward (TH_ERR_INVALID), more
 *  than TH_PLAN_MAX_REWARDS points or too small a `max` (TH_ERR_LIMIT), an end or point off the
 *  world (TH_ERR_BLOCKED), an end blocked or no route from start to goal
 *  (TH_ERR_UNREACHABLE). */
TH_API bool th_planner_find_tour(th_planner *p, th_world *w, th_vec2 from, th_vec2 to,
                                 const th_plan_reward *rewards, uint32_t n, th_vec2 *out,
                                 uint32_t max, uint32_t *count, uint32_t *taken, float *net_cost,
                                 th_error *err);

/** Remember trouble at `position` (an agent stalled or was blocked there): `weight` is added to
 *  its cell's remembered cost (terrain-cost units: each cell a path crosses straight costs
 *  `weight` cell sides more). The memory first fades to the world's time (halving every
 *  trouble_half_life seconds of steps); a cell's cost in the planner's view is its terrain cost
 *  plus its trouble rounded to the nearest whole unit (capped at 1000; walls stay walls), taken
 *  up by the clusters around it (the repair of th_planner_cells_changed) when the planner next
 *  brings itself up to date (with trouble_interval set, when that interval has passed). Plans
 * answered before are not changed. False with `err` filled for a position off the world
 * (TH_ERR_BLOCKED) or a negative or non-finite weight, or one above 1e6 (TH_ERR_INVALID). */
TH_API bool th_planner_note_trouble(th_planner *p, th_world *w, th_vec2 position, float weight,
                                    th_error *err);

/** The trouble remembered at `position`'s cell, terrain-cost units, as of the planner's last
 *  look at the world's time; 0 for NULL or a position off the map. */
TH_API float th_planner_get_trouble(const th_planner *p, th_vec2 position);

/** The planner's counts; zeros for NULL. */
TH_API th_plan_info th_planner_info(const th_planner *p);

/* ---- the world's planner of agents' own goals ------------------------------------------------
 * By default an agent's own point goal (th_world_set_agent_goal) is planned at once with A* on
 * the whole map. With goal planning on, the world keeps a planner of its own: a point goal
 * given (or planned again after terrain events) becomes a request, and each step's "own paths"
 * part serves the requests with a budget of expansions, by the goal's priority then the order
 * the goals were given. An agent whose request waits walks the coarse route meanwhile (straight
 * at its goal while queued, toward the next cluster entrance of the best route found so far
 * while searched); once answered it walks the string-pulled path. A goal the planner finds no
 * way to leaves its agent standing, as an own goal cut off by a wall does. The same for any
 * thread count: the budget counts expansions, not time. */

/** Settings of the world's goal planning; zero fields take the defaults. */
typedef struct th_goal_planning {
    uint32_t budget;       /* expansions per step (th_planner_update's budget); 0 = off: each
                              point goal is planned at once when given (the default) */
    uint32_t cluster_size; /* the planner's clusters, 4..64 (16) */
    uint32_t max_requests; /* goals held by the planner at once, 1..1048576 (64): more wait
                              their turn (a request's start is where its agent stands when it
                              is handed over, so few held keeps starts fresh),
                              by priority, then in the order given */
} th_goal_planning;

/** How the world's goal planning stands. */
typedef struct th_goal_planning_info {
    th_goal_planning def;   /* as set, defaults filled; budget 0 when off */
    uint32_t waiting;       /* own point goals without their path, after the last step */
    uint32_t searching;     /* of those, held by the planner (the rest wait for a slot) */
    uint64_t answered;      /* paths the planner gave */
    uint64_t unreachable;   /* goals it found no way to */
    uint64_t at_once;       /* planned at once with A* instead: a path of more than
                               TH_AGENT_PATH_POINTS waypoints, or stairs added since goal
                               planning was set that outgrew its hierarchy */
    uint64_t expanded;      /* expansions spent, all steps */
    uint32_t last_expanded; /* in the last step: at most the budget */
    uint32_t most_steps;    /* the longest a goal answered so far waited, in steps */
    uint64_t wait_steps;    /* the steps the answered goals waited, summed */
} th_goal_planning_info;

/** Turn the world's goal planning on (`def->budget` > 0), change it, or turn it off (`def`
 *  NULL or budget 0: goals still waiting are planned at once). Needs one rank. The hierarchy
 *  crosses the map's stairs; stairs added afterwards that outgrow the node slots it was sized
 *  with make goals planned at once until goal planning is set again. Goals waiting when the
 *  settings change are searched again by the new planner. False with `err` filled on a bad
 *  setting, no map, a cluster with more stair edges than its node slots hold (TH_ERR_LIMIT),
 *  several ranks, no memory, or a call from inside a step. Builds the
 *  planner's hierarchy at once on the world's threads; nothing allocates in the steps after. */
TH_API bool th_world_set_goal_planning(th_world *w, const th_goal_planning *def, th_error *err);

/** Whether agent `id`'s own point goal waits for the goal planner's path (walking the coarse
 *  route meanwhile); false for NULL, an unknown agent, or a goal with its path. */
TH_API bool th_world_agent_path_pending(const th_world *w, th_agent_id id);

/** The goal planning's settings and counts; zeros (budget 0) when off or for NULL. */
TH_API th_goal_planning_info th_world_goal_planning_info(const th_world *w);

#ifdef __cplusplus
}
#endif

#endif
