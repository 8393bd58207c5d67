/* throng: hierarchical path planning for many paths on a world's map (docs/planning.md).
 *
 * A planner holds an abstraction of the world's map (HPA*: Botea, Mueller and Schaeffer,
 * "Near optimal hierarchical path-finding", 2004): square clusters, entrances on their borders
 * and the costs of crossing each cluster. A path is found on that small graph, refined to
 * cells and string-pulled to waypoints, at a fraction of the work of A* on the whole map, for
 * a route a few percent dearer (the figures are in docs/planning.md and bench/RESULTS.md).
 *
 * Two ways to ask: th_planner_find_path answers at once; th_planner_submit queues a request
 * and th_planner_update serves the queue with a budget of expansions per call (a host calls it
 * once per frame or step), by priority then submission order, resuming a search the budget
 * cut off. Meanwhile th_planner_direction gives a coarse heading. Results are the same either
 * way, and the same for any thread count.
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
    uint32_t cluster_size;  /* cells a cluster side, 4..64 (default 16) */
    uint32_t max_requests;  /* requests held at once, waiting or answered, 1..1048576 (1024) */
    uint32_t max_waypoints; /* waypoints kept per answered request, 2..65536 (256) */
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
    uint64_t cells_expanded;         /* cells expanded by insertions and refinements so far */
    uint32_t rebuilt;                /* clusters rebuilt by the last build or repair */
} th_plan_info;

/** Defaults: clusters of 16, 1024 requests, 256 waypoints each. */
TH_API th_plan_def th_default_plan_def(void);

/** A planner for world `w`'s map (TH_ERR_STATE without one), built at once on the world's
 *  threads. `def` may be NULL (defaults). NULL with `err` filled on a bad setting or no memory. */
TH_API th_planner *th_planner_create(th_world *w, const th_plan_def *def, th_error *err);

/** Free a planner. NULL is ignored. */
TH_API void th_planner_destroy(th_planner *p);

/** Bring the planner up to date with the world's map: cells that changed since the planner
 *  last looked (events, th_world_set_cost, ...) are found by comparison, and only the clusters
 *  around them are rebuilt, then the abstract graph's landmark bounds (docs/planning.md: tens
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

/** Serve queued requests with at most `budget` abstract expansions (each is one node of the
 *  cluster graph taken from the open set; the few cluster-sized searches that insert ends and
 *  refine routes are not counted). Returns the expansions spent: `budget` whenever requests are
 *  left waiting. 0 with `err` filled on a bad argument. */
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

/** The planner's counts; zeros for NULL. */
TH_API th_plan_info th_planner_info(const th_planner *p);

#ifdef __cplusplus
}
#endif

#endif
