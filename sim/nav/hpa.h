/* Hierarchical path planning (HPA*: Botea, Mueller and Schaeffer, "Near optimal hierarchical
 * path-finding", Journal of Game Development 1(1), 2004) on the navigation grid.
 *
 * The map is cut into square clusters of `cluster` cells a side (the last row and column of
 * clusters may be smaller). Where two side-adjacent clusters share a border, each maximal run
 * of border rows (or columns) open on both sides is an entrance: a run shorter than
 * TH_HPA_SPLIT cells gets one transition (its cheapest pair, nearest the middle), a longer one
 * two (the cheapest pair of each half, nearest its end: the end pairs on terrain of one cost).
 * A transition is two abstract nodes, one cell on each side, joined by the straight move
 * between them. Nodes of one cluster are joined by intra-cluster edges whose cost is the exact
 * cost of the cheapest route that stays inside the cluster (a Dijkstra bounded by the
 * cluster), built in parallel over clusters. Moves and costs are the navigation layer's (nav.h):
 * 8-connected, a diagonal only between two open side cells, (c(a) + c(b)) * 70 or * 99 units.
 *
 * Glued edges (a building's stairs, th_navmap_glue) are transitions too: each glued edge out of
 * an open cell is a link node in that cell's cluster, joined to the link node of the cell across
 * (when open) by the move across the seam, a straight move's cost (c(a) + c(b)) * 70, as A* and
 * the fields take it. Intra-cluster searches do not cross seams; when both ends of a glued edge
 * lie in one cluster the two link nodes are joined both by their intra-cluster edge (the way
 * round, if any) and by the glued edge, and searches and refinement take the cheaper.
 *
 * Completeness: a grid route is a sequence of ordinary moves and glued edges. A glued edge it
 * crosses is an abstract edge between two nodes. Its stretches of ordinary moves: one that
 * crosses a border diagonally also crosses it straight next to it (the diagonal needs both side
 * cells open), every straight crossing lies in an entrance run, and the run's cells on either
 * side are joined along the border inside their cluster; so two cells are joined in the abstract
 * graph exactly when they are joined on the grid, seams included: an unreachable goal is
 * reported as such, never missed (components are taken over glued edges too).
 *
 * Bound: on a map with glued edges the octile distance can overestimate (a seam joins cells far
 * apart on the map), so the abstract A* uses the landmark bound alone there (exact abstract
 * distances, glued edges included: admissible and consistent), or none (Dijkstra) while the
 * landmarks are dropped, as astar.c does.
 *
 * A query inserts start and goal temporarily (one bounded Dijkstra in each one's cluster),
 * answers at once when the ends share no component of the abstract graph, else runs A* on the
 * abstract graph (octile bound scaled by the map's cheapest cell, as astar.c, raised by
 * landmark bounds; landmarks alone on a map with glued edges), refines each abstract edge to
 * cells (a border transition or a glued edge is one move; an intra-cluster edge is a bounded A*
 * from its lower node to its higher node, cached per query context), and the caller string-pulls
 * the cells (th_nav_string_pull, which keeps both cells of a seam as waypoints and never draws a
 * line of sight across it). The cell path is valid and costs at least the optimum; how much more is
 * measured in tests/test_hpa.c and bench/RESULTS.md.
 *
 * Memory, sized at creation (nothing allocates in builds, repairs, queries or updates): the
 * hierarchy holds at most 2 * cluster border nodes per cluster plus link slots (none on a map
 * without glued edges at creation; else twice the most glued edges out of one cluster then, at
 * least 8, within 255 slots a cluster), and a dense matrix of their edge costs, 16 bytes per
 * map cell at most without link slots, and per node slot its coordinates, component and
 * landmark distances with the landmark searches' memory (104 bytes); a query context 48 bytes
 * per node slot (its search record, open-set entry, route and IDA* stack), three cluster-sized
 * search trees and its edge cache (cluster^2 + 16 bytes per cached edge). The queue adds a
 * path buffer (4 bytes per cell, paged in only as far as it is written).
 *
 * Edges glued after creation that outgrow a cluster's link slots make the hierarchy refuse
 * queries (th_hpa_holds_links) rather than answer without them; a repair on a map whose glued
 * edges changed rebuilds every cluster.
 *
 * Threading. Building and repairing write the hierarchy (parallel over clusters on the pool,
 * deterministic for any worker count). Queries read it and write only their own context, so
 * several contexts may query one hierarchy from several threads at once. */
#ifndef TH_HPA_H
#define TH_HPA_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/jobs.h"
#include "sim/nav/nav.h"

/** Cluster side, cells: default and bounds. */
#define TH_HPA_DEFAULT_CLUSTER 16u
#define TH_HPA_MIN_CLUSTER     4u
#define TH_HPA_MAX_CLUSTER     64u
/** Entrance runs of at least this many cells get two transitions, shorter ones one. */
#define TH_HPA_SPLIT           6u
/** Default refined edges one query context caches. */
#define TH_HPA_DEFAULT_CACHE   4096u

typedef struct th_hpa th_hpa;
typedef struct th_hpa_query th_hpa_query;

/** Landmarks of the abstract graph's ALT bound. */
#define TH_HPA_LANDMARKS 8u

/** Counts of the hierarchy as built. */
typedef struct th_hpa_info {
    uint32_t cluster;       /* cluster side, cells */
    uint32_t clusters;      /* clusters in use */
    uint32_t nodes;         /* abstract nodes (two per transition) */
    uint32_t intra_edges;   /* intra-cluster edges (each counted once per direction) */
    uint32_t max_nodes;     /* most nodes one cluster can hold */
    uint32_t link_slots;    /* of which for glued edges (0 on a map without them at creation) */
    uint32_t link_nodes;    /* abstract nodes on glued edges (one per glued edge's open end) */
    uint32_t full_clusters; /* clusters with more glued edges than link_slots (then queries
                               refuse: th_hpa_holds_links) */
    uint64_t bytes;         /* memory held by the hierarchy */
    uint64_t build_cells;   /* cells expanded by the last build or repair */
    uint32_t rebuilt;       /* clusters rebuilt by the last build or repair */
} th_hpa_info;

/** A hierarchy for maps of `m`'s size with clusters of `cluster` cells a side
 *  (TH_HPA_MIN_CLUSTER..TH_HPA_MAX_CLUSTER; 0 = the default). Per-worker build memory is made
 *  for `workers` workers (a build on a larger pool runs serially). NULL on a bad argument or
 *  no memory. Nothing is built yet: call th_hpa_build. */
th_hpa *th_hpa_create(const th_navmap *m, uint32_t cluster, uint32_t workers);
void th_hpa_destroy(th_hpa *h);

/** Whether a hierarchy with clusters of `cluster` cells (0 = the default) can be made for map
 *  `m`'s glued edges: no cluster has more than 255 node slots less its border slots' worth of
 *  glued edges out of its cells. */
bool th_hpa_links_fit(const th_navmap *m, uint32_t cluster);

/** Whether `h` has a link node slot for every glued edge of map `m` (edges glued after
 *  th_hpa_create may outgrow the slots sized there). Queries on a hierarchy built on a map it
 *  does not hold refuse (TH_NAV_EINVAL): an answer could miss the stairs. */
bool th_hpa_holds_links(const th_hpa *h, const th_navmap *m);

/** Build the whole hierarchy for the map as it is now, parallel over clusters on `pool`
 *  (NULL = serial). The same map gives the same hierarchy for any worker count. */
int th_hpa_build(th_hpa *h, const th_navmap *m, th_pool *pool);

/** Landmark (ALT) lower bounds on the abstract graph: exact abstract distances from the eight
 *  nodes nearest the map's corners and edge midpoints (one Dijkstra each on the abstract graph,
 *  parallel over landmarks). A query's bound is then max(octile, max_k |d(L_k, v) - d(L_k,
 *  goal)|): admissible and consistent on the abstract graph (its costs are symmetric, and no
 *  route through an inserted end is shorter than within its cluster), so the route found
 *  costs the same abstract optimum, with far fewer expansions. th_hpa_build computes
 *  them; a repair drops them (queries fall back to the octile bound) until this is called
 *  again. 12 bytes per abstract node slot of build memory plus 32 of distances. */
int th_hpa_landmarks_build(th_hpa *h, const th_navmap *m, th_pool *pool);

/** Repair after the cells of the rectangle [x0, x1] x [y0, y1] (inclusive, clipped to the map)
 *  changed (blocked, opened, cost changed): only the clusters the rectangle and its one-cell
 *  ring touch are rebuilt (a cell's change alters its neighbours' moves and the entrance runs
 *  of the borders it lies on), and the links of their neighbours. The result equals
 *  th_hpa_build on the changed map. No allocation. */
int th_hpa_cells_changed(th_hpa *h, const th_navmap *m, th_pool *pool, int32_t x0, int32_t y0,
                         int32_t x1, int32_t y1);

/** What the hierarchy holds. */
th_hpa_info th_hpa_get_info(const th_hpa *h);

/** A hash of everything the hierarchy holds that queries read (each cluster's nodes, sides and
 *  edge costs, the landmark distances when current): equal digests, equal hierarchies. For tests of
 * determinism and repair. */
uint64_t th_hpa_digest(const th_hpa *h);

/** Whether the hierarchy was built (and is not waiting for a build). */
bool th_hpa_built(const th_hpa *h);

/** A query context for `h` (its size and cluster) with an edge cache of `cache` refined
 *  intra-cluster edges (0 = TH_HPA_DEFAULT_CACHE; rounded up to a power of two). */
th_hpa_query *th_hpa_query_create(const th_hpa *h, uint32_t cache);
void th_hpa_query_destroy(th_hpa_query *q);

/** Counters of a query context since creation. */
typedef struct th_hpa_query_stats {
    uint64_t abstract_expanded; /* abstract nodes expanded */
    uint64_t cells_expanded;    /* cells expanded by insertion and refinement searches */
    uint64_t cache_hits, cache_misses;
} th_hpa_query_stats;
th_hpa_query_stats th_hpa_query_get_stats(const th_hpa_query *q);

/** Path from cell (sx, sy) to (gx, gy): cells start..goal into `path` (at most `max`), the
 *  count in `*len`, the cost in units in `*cost` (may be NULL). Returns TH_NAV_OK,
 *  TH_NAV_ENOPATH (an end blocked or no route), TH_NAV_ETOOLONG (`max` too small; *cost is
 *  still set), TH_NAV_EINVAL (bad argument, hierarchy not built or of another size) or
 *  TH_NAV_ERANGE (a cell outside the map). No allocation. */
int th_hpa_find(th_hpa_query *q, const th_hpa *h, const th_navmap *m, int32_t sx, int32_t sy,
                int32_t gx, int32_t gy, uint32_t *path, uint32_t max, uint32_t *len,
                uint32_t *cost);

/* ---- resumable searches (the budgeted queue's engine) -------------------------------------
 * A search started with th_hpa_search_start advances by th_hpa_search_run, at most `budget`
 * abstract expansions per call, and is read out by th_hpa_search_path once done. Run to the
 * end in any number of calls it gives exactly what th_hpa_find gives (which is these three
 * calls). The hierarchy must not change while a search is in progress. */

/** Search states. */
typedef enum th_hpa_state {
    TH_HPA_IDLE = 0,
    TH_HPA_RUNNING = 1,
    TH_HPA_FOUND = 2,
    TH_HPA_NOPATH = 3
} th_hpa_state;

/** Start a search: checks the ends and inserts them. Returns TH_NAV_OK (running, or already
 *  settled: see th_hpa_search_state) or an argument error. */
int th_hpa_search_start(th_hpa_query *q, const th_hpa *h, const th_navmap *m, int32_t sx,
                        int32_t sy, int32_t gx, int32_t gy);
/** Advance by at most `budget` abstract expansions; returns the expansions made. */
uint64_t th_hpa_search_run(th_hpa_query *q, const th_hpa *h, const th_navmap *m, uint64_t budget);
/** State of the context's search. */
th_hpa_state th_hpa_search_state(const th_hpa_query *q);
/** The abstract route found so far toward the goal: the cell of the first abstract node after
 *  the start on the best route known (the goal's cell once found); false when none is known. */
bool th_hpa_search_next_node(const th_hpa_query *q, const th_hpa *h, int32_t *x, int32_t *y);
/** Refine a found search into cells, as th_hpa_find. */
int th_hpa_search_path(th_hpa_query *q, const th_hpa *h, const th_navmap *m, uint32_t *path,
                       uint32_t max, uint32_t *len, uint32_t *cost);

/* ---- IDA* --------------------------------------------------------------------------------- */

/** Deepest route IDA* follows (abstract nodes). */
#define TH_HPA_IDA_DEPTH 4096u

/** IDA* (iterative deepening on f = g + h) on the abstract graph between the same inserted ends
 *  and with the same bound as the A* search: it keeps only the route being followed (node, cost
 *  and next edge per depth, 12 bytes each) instead of A*'s open and closed sets, and pays in
 *  expansions repeated across passes and along the graph's many equal routes. The cost is the
 *  abstract optimum, as A*'s. TH_NAV_ETOOLONG when `max_expansions` (0 = no limit) or
 *  TH_HPA_IDA_DEPTH is reached; *expanded gets the expansions made. Uses (and ends) the
 *  context's search. For measurement: bench_nav compares it with A*. */
int th_hpa_ida_cost(th_hpa_query *q, const th_hpa *h, const th_navmap *m, int32_t sx, int32_t sy,
                    int32_t gx, int32_t gy, uint64_t max_expansions, uint32_t *cost,
                    uint64_t *expanded);

/* ---- the budgeted request queue (hpa_queue.c) -----------------------------------------------
 * Requests wait in a queue served by priority (higher first), then by submission order; one
 * at a time is searched, resumably: an update spends at most `budget` abstract expansions, and
 * a search the budget cuts off goes on in the next update where it stopped. The cell work of
 * inserting a request's ends and refining its route (bounded by a few cluster-sized searches
 * per request) is not counted in the budget, but starting a request costs one expansion, so an
 * update starts at most `budget` requests. Each request's result is exactly th_hpa_find's. A
 * request is never preempted: a higher priority one submitted meanwhile waits for the search
 * in progress to finish. Capacity is fixed at creation; nothing allocates afterwards. */

typedef struct th_hpa_queue th_hpa_queue;

/** A finished request: `status` TH_NAV_OK with its cells (valid during the call), or
 *  TH_NAV_ENOPATH / TH_NAV_ETOOLONG with no cells. */
typedef void th_hpa_done_fn(void *user, uint32_t tag, int status, const uint32_t *cells,
                            uint32_t len, uint32_t cost);

/** A queue for `h` and maps of `m`'s size holding up to `capacity` waiting requests, with its
 *  own query context (edge cache of `cache` edges) and a path buffer of one map's cells. */
th_hpa_queue *th_hpa_queue_create(const th_hpa *h, const th_navmap *m, uint32_t capacity,
                                  uint32_t cache);
void th_hpa_queue_destroy(th_hpa_queue *q);

/** Queue a request from cell (sx, sy) to (gx, gy) with the caller's `tag`. TH_NAV_ERANGE for
 *  a cell outside the map, TH_NAV_ETOOLONG when the queue is full. */
int th_hpa_queue_submit(th_hpa_queue *q, int32_t sx, int32_t sy, int32_t gx, int32_t gy,
                        int32_t priority, uint32_t tag);

/** Serve requests with at most `budget` expansions (abstract ones, and one per request
 *  started); each one that finishes is passed to `done`. Returns the expansions spent. */
uint64_t th_hpa_queue_update(th_hpa_queue *q, const th_hpa *h, const th_navmap *m, uint64_t budget,
                             th_hpa_done_fn *done, void *user);

/** Drop a waiting or searching request by its tag (its `done` is never called); false when no
 *  such request waits. */
bool th_hpa_queue_cancel(th_hpa_queue *q, uint32_t tag);

/** The hierarchy changed: the search in progress starts again at the next update. */
void th_hpa_queue_restart(th_hpa_queue *q);

/** Requests waiting, the one being searched included. */
uint32_t th_hpa_queue_waiting(const th_hpa_queue *q);

/** For the request being searched (by tag): the cell of the first abstract node on the best
 *  route known so far (th_hpa_search_next_node); false for any other tag. */
bool th_hpa_queue_next_node(const th_hpa_queue *q, const th_hpa *h, uint32_t tag, int32_t *x,
                            int32_t *y);

/** The queue's query context (its counters). */
const th_hpa_query *th_hpa_queue_query(const th_hpa_queue *q);

#endif
