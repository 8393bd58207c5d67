/* Navigation layer: terrain map, wall-distance field, integration fields ("river maps"),
 * combined nearest-goal field, flow sampling, A* with string pulling.
 *
 * Pure grid algorithms: nothing here knows about agents or the world. Internal to sim/.
 *
 * Geometry. The map is W x H square cells of `cell_size` metres. World (0,0) is the lower-left
 * corner of cell (0,0); cell (x, y) covers [x, x+1) x [y, y+1) cells and has index y * W + x.
 * Everything outside the map counts as blocked, so agents stay inside.
 *
 * Moves. 8-connected. A diagonal move is allowed only when *both* orthogonal cells it passes
 * between are open. Forbidding it only when both are blocked (the usual "no squeeze") would
 * still let an agent clip the corner of a single wall cell; the stricter rule costs a little
 * path length near corners and removes that class of wall collision entirely.
 *
 * Glued edges. A straight move out of a cell may be glued to another cell elsewhere on the map
 * (th_navmap_glue: a building's levels joined by stairs); fields and cell paths take it as a
 * straight move between the two cells, and so does A* (bounded by landmarks alone on such a
 * map). String pulling never draws a line of sight across it.
 *
 * Costs. Cells carry an integer terrain cost c in [1, 1000] (1 = street, 3 = grass, ...).
 * The cost of the move between adjacent open cells a and b is
 *     (c(a) + c(b)) * TH_NAV_STEP_STRAIGHT   for a straight move,
 *     (c(a) + c(b)) * TH_NAV_STEP_DIAG       for a diagonal move,
 * in integer "cost units". The edge is symmetric (each cell pays half of its cost for the half
 * of the step spent in it), so the cost from a to b equals the cost from b to a: an A* path
 * and an integration field agree exactly. A straight step between two cost-1 cells is
 * TH_NAV_UNITS_PER_CELL units, i.e. one `cell_size` of metres; 99/70 approximates sqrt(2) to
 * 5e-5. Integers (rather than floats) make every field exact: an incremental repair equals a
 * full recompute bit for bit, whatever the order of operations or the thread count.
 *
 * Threading. Map and field queries are read-only and safe from many threads. Every mutating
 * call must run while nobody queries (between steps). Nothing allocates after init, except
 * th_astar_ctx / th_nav_scratch creation.
 */
#ifndef TH_NAV_H
#define TH_NAV_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "engine/jobs.h"
#include "throng/vec2.h"

/* ---------------------------------------------------------------------------------------- */
/* Bounds and constants                                                                       */

/** Largest map side, cells. 4096 x 4096 keeps one field at 64 MiB and any index in uint32. */
#define TH_NAV_MAX_DIM        4096
/** Smallest and largest cell size, metres. */
#define TH_NAV_MIN_CELL_SIZE  0.01f
#define TH_NAV_MAX_CELL_SIZE  1000.0f
/** Terrain cost bounds of an open cell (multiplier of the distance walked). */
#define TH_NAV_COST_MIN       1
#define TH_NAV_COST_MAX       1000
/** Move cost factors, cost units per unit of summed cell cost (see the file comment). */
#define TH_NAV_STEP_STRAIGHT  70u
#define TH_NAV_STEP_DIAG      99u
/** Cost units of one straight step between two cost-1 cells (= cell_size metres). */
#define TH_NAV_UNITS_PER_CELL (2u * TH_NAV_STEP_STRAIGHT)
/** Largest cost of one move, units. */
#define TH_NAV_MAX_EDGE       (2u * TH_NAV_COST_MAX * TH_NAV_STEP_DIAG)
/** Largest finite cost-to-goal, units. A cell whose cheapest route costs more is reported
 *  unreachable. On a map of cost-1 cells no simple path comes near it (4096^2 cells * 198). */
#define TH_NAV_DIST_MAX       4000000000u
/** Marker of an unreachable (or blocked) cell in a field's `dist`. */
#define TH_NAV_UNREACHABLE    UINT32_MAX
/** Largest goal weight, units. */
#define TH_NAV_MAX_WEIGHT     TH_NAV_DIST_MAX
/** Most goals in one field. */
#define TH_NAV_MAX_GOALS      65536u
/** Most fields a combined field chooses from. */
#define TH_NAV_MAX_FIELDS     64u
/** Most opened cells one incremental repair call takes; beyond it the repair is a full
 *  recompute (same result, linear cost). */
#define TH_NAV_REPAIR_MAX     4096u

/** Descent codes 0..7 name a move (see th_nav_move_dx / dy); these two are special. */
#define TH_NAV_DESCENT_GOAL        8u   /* a goal cell: arrived, no move */
#define TH_NAV_DESCENT_UNREACHABLE 255u /* blocked or cut off from every goal */

/** Cell flag: a blocked cell that th_navmap_break_wall may open. */
#define TH_NAV_FLAG_DESTRUCTIBLE 1u
/** Cell flag: one of the cell's edges is glued to another cell's (th_navmap_glue). */
#define TH_NAV_FLAG_LINK         2u
/** Cell flag: a blocked cell just across a glued edge. It stays blocked, but bodies near the
 *  edge do not feel it as a wall: the way goes on across the seam. */
#define TH_NAV_FLAG_SEAM         4u
/** Flags a cell keeps when its cost or openness changes. */
#define TH_NAV_FLAGS_KEPT        (TH_NAV_FLAG_LINK | TH_NAV_FLAG_SEAM)
/** Most glued edges one map holds (each glue counts its two directions). */
#define TH_NAV_MAX_LINKS         65536u

/** Status codes. 0 is success; every error is negative. */
typedef enum th_nav_status {
    TH_NAV_OK = 0,
    TH_NAV_EINVAL = -1,   /* NULL pointer, mismatched sizes, bad argument */
    TH_NAV_ERANGE = -2,   /* a size, coordinate, cost or weight outside its stated bound */
    TH_NAV_ENOMEM = -3,   /* allocation failed */
    TH_NAV_ENOPATH = -4,  /* start or goal blocked, or no route */
    TH_NAV_ETOOLONG = -5, /* the result does not fit the caller's buffer */
    TH_NAV_EDENIED = -6,  /* the cell is not a destructible wall */
    TH_NAV_ELIMIT = -7    /* a search gave up at its work bound (IDA*'s expansions) */
} th_nav_status;

/** Move k (0..7): E, N, W, S, NE, NW, SW, SE. Straight moves are 0..3. */
extern const int8_t th_nav_move_dx[8];
extern const int8_t th_nav_move_dy[8];

/* ---------------------------------------------------------------------------------------- */
/* Map                                                                                        */

/** A glued edge, one direction of it: the straight move `dir` (0..3) out of cell `from` leads
 *  into cell `to` instead of into the cell beside `from` (which is blocked: the seam). Levels of
 *  a building are regions of one map, and a stair's top edge on one level is glued to its
 *  landing on the next: routes, fields and walkers cross the seam as if the two cells were
 *  neighbours. A move across a seam costs what a straight move between the two cells would. */
typedef struct th_nav_link {
    uint32_t from, to;
    uint8_t dir;
} th_nav_link;

/** Terrain grid. Read fields directly; change cells only through the functions below, which
 *  keep `moves` and the cost histogram consistent. */
typedef struct th_navmap {
    int32_t w, h;        /* cells per row, rows; each in [1, TH_NAV_MAX_DIM] */
    uint32_t ncells;     /* w * h */
    float cell_size;     /* metres */
    float inv_cell_size; /* 1 / metres */
    uint16_t *cost;      /* per cell: 0 = blocked, else terrain cost in [1, 1000] */
    uint8_t *flags;      /* per cell: TH_NAV_FLAG_* */
    uint8_t *moves;      /* per cell: bit k set when move k is allowed from the cell */
    float *wall_dist;    /* per cell: metres from the centre to the nearest blocked cell's
                            centre (border cells outside the map count); 0 on blocked cells.
                            Valid after th_navmap_update_walls. */
    bool walls_dirty;    /* a cell changed since the last th_navmap_update_walls */
    bool moves_stale;    /* deferred (th_navmap_defer_moves): `moves` is out of date until
                            th_navmap_update_moves; no search may run meanwhile */
    uint64_t changes;    /* cell costs changed so far: a reader that kept a copy of `cost`
                            when this was n has a current copy while it is still n */
    uint32_t cost_count[TH_NAV_COST_MAX + 1]; /* open cells per cost (index 0 = blocked) */
    th_nav_link *links; /* glued edges, both directions, sorted by (from, dir) */
    uint32_t link_count, link_capacity;
} th_navmap;

/** Create a map of w x h open cells of cost 1, `cell_size` metres each; the wall-distance field
 *  is computed. Returns TH_NAV_OK, TH_NAV_EINVAL (NULL), TH_NAV_ERANGE (size or cell_size out
 *  of bounds, NaN) or TH_NAV_ENOMEM; on error the map is left zeroed (safe to free). */
int th_navmap_init(th_navmap *m, int32_t w, int32_t h, float cell_size);

/** Free the map's arrays and zero it. NULL is ignored. */
void th_navmap_free(th_navmap *m);

/** Make cell (x, y) open with terrain cost `cost` in [1, 1000]; clears its flags. */
int th_navmap_set_cost(th_navmap *m, int32_t x, int32_t y, uint32_t cost);

/** Block cell (x, y); `destructible` lets th_navmap_break_wall reopen it. */
int th_navmap_set_blocked(th_navmap *m, int32_t x, int32_t y, bool destructible);

/** Open a destructible wall: the cell becomes open with cost 1. TH_NAV_EDENIED when the cell
 *  is open or an indestructible wall. Fields must then be repaired (th_nav_field_repair_opened). */
int th_navmap_break_wall(th_navmap *m, int32_t x, int32_t y);

/** Glue the edge of cell (x, y) facing straight move `dir` (0..3) to the opposite edge of cell
 *  (tx, ty): moving `dir` out of (x, y) enters (tx, ty), and moving the opposite way out of
 *  (tx, ty) enters (x, y). The cells beside each across the glued edges must be blocked or off
 *  the map (TH_NAV_EDENIED otherwise); they are flagged TH_NAV_FLAG_SEAM. An edge glued twice,
 *  or a cell glued to itself, is TH_NAV_EINVAL. Allocates (between steps only). Fields must
 *  then be recomputed. */
int th_navmap_glue(th_navmap *m, int32_t x, int32_t y, uint8_t dir, int32_t tx, int32_t ty);

/** Make room for `n` more glued edges (each glue takes two), so that as many th_navmap_glue
 *  calls cannot fail for memory. TH_NAV_ERANGE past TH_NAV_MAX_LINKS, TH_NAV_ENOMEM. */
int th_navmap_reserve_links(th_navmap *m, uint32_t n);

/** The glued edge of cell `c` toward straight move `dir`, or NULL. */
const th_nav_link *th_navmap_link(const th_navmap *m, uint32_t c, uint8_t dir);

/** The glued edges out of cell `c`: the first in `m->links` and their number in `*n`. */
const th_nav_link *th_navmap_links_of(const th_navmap *m, uint32_t c, uint32_t *n);

/** The cell move `k` out of cell `c` enters: across a glued edge where there is one, else the
 *  cell beside; UINT32_MAX when that is off the map. Openness is not checked. */
uint32_t th_navmap_step(const th_navmap *m, uint32_t c, uint8_t k);

/** Terrain cost of cell (x, y): 0 when blocked or outside the map. */
uint32_t th_navmap_cost(const th_navmap *m, int32_t x, int32_t y);

/** True when (x, y) is outside the map or blocked. */
bool th_navmap_is_blocked(const th_navmap *m, int32_t x, int32_t y);

/** Float cell coordinate to an integer clamped into [0, n). The comparisons come first:
 *  converting NaN or a value beyond int32 to an integer is undefined behaviour. */
static inline int32_t th_navmap_clamp_coord(float f, int32_t n) {
    if (!(f >= 1.0f)) return 0;
    if (f >= (float)n) return n - 1;
    return (int32_t)f;
}

/** Cell holding world position `p` (metres), clamped into the map. NaN lands in cell 0 of its
 *  axis (compared before any cast: a cast of NaN is undefined). Returns the cell index. Inline:
 *  every walker asks it several times a step. */
static inline uint32_t th_navmap_cell_of(const th_navmap *m, th_vec2 p, int32_t *x, int32_t *y) {
    int32_t cx = 0, cy = 0;
    if (m && m->cost) {
        cx = th_navmap_clamp_coord(p.x * m->inv_cell_size, m->w);
        cy = th_navmap_clamp_coord(p.y * m->inv_cell_size, m->h);
    }
    if (x) *x = cx;
    if (y) *y = cy;
    return m && m->cost ? (uint32_t)cy * (uint32_t)m->w + (uint32_t)cx : 0;
}

/** True when `p` lies in a blocked cell or outside the map (NaN counts as outside). */
bool th_navmap_blocked_at(const th_navmap *m, th_vec2 p);

/** World position (metres) of the centre of cell (x, y). */
th_vec2 th_navmap_cell_centre(const th_navmap *m, int32_t x, int32_t y);

/** Smallest terrain cost among open cells (1 when the map has no open cell). */
uint32_t th_navmap_min_cost(const th_navmap *m);

/** Convert cost units to metre-equivalents (cost-weighted metres); INFINITY for
 *  TH_NAV_UNREACHABLE. */
float th_nav_units_to_metres(const th_navmap *m, uint32_t units);

/** Defer move masks while loading a map: until th_navmap_update_moves, cell changes leave
 *  `moves` alone (no 3x3 refresh around each changed cell) and the map must not be searched
 *  (fields, A*, repairs). For building a map cell by cell. */
void th_navmap_defer_moves(th_navmap *m);

/** End a deferral: recompute every move mask in one pass over the rows, parallel over row
 *  ranges when `pool` is given (NULL = serial). Nothing to do when not deferred. No allocation. */
void th_navmap_update_moves(th_navmap *m, th_pool *pool);

/** Recompute the wall-distance field (exact Euclidean distance transform, linear time),
 *  parallel over column strips then rows when `pool` is given (NULL = serial). No allocation. */
void th_navmap_update_walls(th_navmap *m, th_pool *pool);

/** Wall distance at world position `p`, metres, bilinear over cell centres (cells outside the
 *  map count 0), and in `*away` (may be NULL) the unit direction of steepest increase, i.e. away
 *  from the nearest walls; (0,0) where the field is flat. NaN positions give 0 and (0,0).
 *  No allocation; safe from many threads. */
float th_navmap_wall_sample(const th_navmap *m, th_vec2 p, th_vec2 *away);

/* ---------------------------------------------------------------------------------------- */
/* Integration fields                                                                         */

/** One goal: a cell and its initial cost (a weight that makes it less attractive). */
typedef struct th_nav_goal {
    int32_t x, y;    /* cell */
    uint32_t weight; /* initial cost-to-goal, units, in [0, TH_NAV_MAX_WEIGHT] */
} th_nav_goal;

/** Cost-to-goal of every cell for a set of weighted goals. Goals on blocked cells are kept and
 *  take effect if the cell opens. */
typedef struct th_nav_field {
    int32_t w, h;        /* same as the map's */
    uint32_t ncells;     /* w * h */
    uint32_t *dist;      /* per cell: cheapest cost to any goal (route + goal weight), units;
                            TH_NAV_UNREACHABLE when blocked or cut off */
    uint8_t *descent;    /* per cell: first move of a cheapest route (0..7), or
                            TH_NAV_DESCENT_GOAL / TH_NAV_DESCENT_UNREACHABLE */
    th_nav_goal *goals;  /* sorted by (weight, cell index) */
    uint32_t goal_count; /* goals in use */
    uint32_t goal_capacity;
} th_nav_field;

/** Per-worker working memory of field computations (bucket queue, packed cell records). Opaque.
 *  Sized for one map size: about 15 bytes per cell plus 1.3 MiB. At rest it holds no state, so one
 *  scratch serves any number of fields of that size, one at a time. */
typedef struct th_nav_scratch th_nav_scratch;

/** Scratch for maps of `m`'s size; NULL on bad argument or no memory. */
th_nav_scratch *th_nav_scratch_create(const th_navmap *m);
/** Free a scratch. NULL is ignored. */
void th_nav_scratch_destroy(th_nav_scratch *s);

/** Allocate a field for `m`'s size able to hold `max_goals` goals (1..TH_NAV_MAX_GOALS); every
 *  cell starts unreachable with no goal. On error the field is left zeroed. */
int th_nav_field_init(th_nav_field *f, const th_navmap *m, uint32_t max_goals);
/** Free a field and zero it. NULL is ignored. */
void th_nav_field_free(th_nav_field *f);

/** Replace the goal set (n <= capacity; cells inside the map; weights within bound). Does not
 *  recompute: call th_nav_field_compute. On error the previous goals are kept. */
int th_nav_field_set_goals(th_nav_field *f, const th_nav_goal *goals, uint32_t n);

/** Replace the goal set by every cell of the rectangle [x0, x1] x [y0, y1] (inclusive), each
 *  with `weight`: the goal set of a bunker. */
int th_nav_field_set_goal_rect(th_nav_field *f, int32_t x0, int32_t y0, int32_t x1, int32_t y1,
                               uint32_t weight);

/** Full computation of `dist` and `descent` from the goals (Dijkstra on a bucket queue over
 *  integer costs: linear in cells). */
int th_nav_field_compute(th_nav_field *f, const th_navmap *m, th_nav_scratch *s);

/** Repair after cells became cheaper or opened (th_navmap_break_wall, lower set_cost): only
 *  costs that drop are propagated, from the changed cells outwards. The result equals
 *  th_nav_field_compute exactly. `cells` are cell indices (duplicates allowed); more than
 *  TH_NAV_REPAIR_MAX of them fall back to a full compute. Do not pass cells whose cost rose. */
int th_nav_field_repair_opened(th_nav_field *f, const th_navmap *m, const uint32_t *cells,
                               uint32_t n, th_nav_scratch *s);

/** Repair after cells were blocked or became dearer: costs can only rise, so the field is
 *  recomputed in full. That is linear and can never leave a stale value behind. */
int th_nav_field_repair_raised(th_nav_field *f, const th_navmap *m, th_nav_scratch *s);

/** Compute `count` fields in parallel over the fields (one field per task). `scratch` holds at
 *  least th_pool_workers(pool) scratches (1 when pool is NULL, serial), indexed by worker.
 *  Returns the first error by field order, or TH_NAV_OK. */
int th_nav_fields_compute(th_pool *pool, th_nav_scratch *const *scratch, uint32_t scratch_count,
                          th_nav_field *fields, uint32_t count, const th_navmap *m);

/** th_nav_field_repair_opened on `count` fields in parallel over the fields. */
int th_nav_fields_repair_opened(th_pool *pool, th_nav_scratch *const *scratch,
                                uint32_t scratch_count, th_nav_field *fields, uint32_t count,
                                const th_navmap *m, const uint32_t *cells, uint32_t n);

/** True when a `dist` value is a finite cost. */
static inline bool th_nav_reachable(uint32_t dist) { return dist != TH_NAV_UNREACHABLE; }

/* ---------------------------------------------------------------------------------------- */
/* Combined nearest field                                                                     */

/** Per cell, the cheapest of several fields and which one won. `nearest` is an ordinary field
 *  view (no goals), so every field query works on it. */
typedef struct th_nav_combined {
    th_nav_field nearest; /* dist = min over alive fields; descent = the winner's descent */
    int16_t *winner;      /* per cell: index of the cheapest alive field (lowest index on ties),
                             -1 when unreachable from every alive field */
} th_nav_combined;

/** Allocate a combined field for `m`'s size; all cells unreachable. */
int th_nav_combined_init(th_nav_combined *c, const th_navmap *m);
/** Free and zero. NULL is ignored. */
void th_nav_combined_free(th_nav_combined *c);

/** Rebuild from `count` fields (<= TH_NAV_MAX_FIELDS); `alive` (count bytes, nonzero = alive;
 *  NULL = all alive) masks destroyed ones. Parallel over cell ranges when `pool` is given. The
 *  winner's descent stays a strict descent of the minimum, so flow on the combined field never
 *  cycles. */
int th_nav_combined_build(th_nav_combined *c, th_pool *pool, const th_nav_field *fields,
                          uint32_t count, const uint8_t *alive);

/* ---------------------------------------------------------------------------------------- */
/* Queries (no allocation, read-only, safe from many threads)                                 */

/** Flow direction at world position `p`: the cells' descent moves as unit vectors,
 *  interpolated bilinearly between the 4 nearest cell centres and renormalised. Whenever one of
 *  those 4 cells is blocked, outside or unreachable, or the blend cancels out, the own cell's
 *  move is used instead, so a step shorter than half a cell never enters a blocked cell.
 *  Returns false (and (0,0)) when `p`'s cell is blocked or unreachable: the agent is stranded.
 *  At a goal cell returns true with (0,0). */
bool th_nav_flow_sample(const th_nav_field *f, const th_navmap *m, th_vec2 p, th_vec2 *dir);

/* Remaining cost in metres at p on cost field `dist` (shelter or destination field),
 * interpolated between the centres of the four nearest cells (unreachable ones left out);
 * false when none of them is reachable: how stall detection measures progress and the groups
 * who walks ahead. */
bool th_field_metres(const th_navmap *m, const uint32_t *dist, th_vec2 p, float *out);

/** Estimated cost to the goal set from `p`'s cell, in metre-equivalents (cost-weighted);
 *  INFINITY when unreachable. */
float th_nav_cost_at(const th_nav_field *f, const th_navmap *m, th_vec2 p);

/** Cell path from (x, y) to a goal by following `descent` (across `m`'s glued edges; `m` may be
 *  NULL for a map without them), written to `cells` (indices, start
 *  first, goal last). TH_NAV_ENOPATH when the start is blocked/unreachable/outside,
 *  TH_NAV_ETOOLONG when more than `max` cells would be needed. `*len` gets the count. */
int th_nav_field_path(const th_nav_field *f, const th_navmap *m, int32_t x, int32_t y,
                      uint32_t *cells, uint32_t max, uint32_t *len);

/* ---------------------------------------------------------------------------------------- */
/* A* and line of sight                                                                       */

/** Working memory of A* for one map size (17 bytes per cell and 2 MiB, plus 34 bytes per cell
 *  once landmarks are built). One per worker: a context serves one query at a time; queries do
 *  not allocate. */
typedef struct th_astar_ctx th_astar_ctx;

/** Context for maps of `m`'s size; NULL on bad argument or no memory. */
th_astar_ctx *th_astar_create(const th_navmap *m);
/** Free a context. NULL is ignored. */
void th_astar_destroy(th_astar_ctx *ctx);

/** Cheapest 8-connected path from cell (sx, sy) to (gx, gy) under the map's move costs, with
 *  the octile heuristic scaled by the map's smallest cost, raised by landmark bounds when
 *  th_astar_landmarks_build ran on this same map (admissible and consistent, so the cost is
 *  optimal either way). Writes cell indices start..goal to `path` (<= max), the count to `*len`,
 *  the cost in units to `*cost` (may be NULL). TH_NAV_ENOPATH when either end is blocked or no
 *  route costs at most TH_NAV_DIST_MAX; TH_NAV_ETOOLONG when `max` is too small. */
int th_astar_find(th_astar_ctx *ctx, const th_navmap *m, int32_t sx, int32_t sy, int32_t gx,
                  int32_t gy, uint32_t *path, uint32_t max, uint32_t *len, uint32_t *cost);

/** Landmarks per A* context: eight exact cost fields, stored cell-major (32 bytes per cell). */
#define TH_ASTAR_LANDMARKS       8
/** Default memory budget for landmarks: 34 bytes per cell (distances plus the cost map they
 *  belong to) fit up to about 1.97 M cells (1400 x 1400); larger maps keep the octile bound. */
#define TH_ASTAR_LANDMARK_BUDGET ((size_t)64 << 20)

/** Landmark (ALT) lower bounds for later queries: exact cost fields from eight open cells
 *  nearest the map's corners and edge midpoints, computed on `pool`'s threads (NULL = serial;
 *  serial too beyond eight workers). A query then takes h = max(octile, max_L |d(L, n) -
 *  d(L, goal)|), still admissible and consistent (costs are symmetric), so costs stay optimal
 *  while far fewer cells are expanded. The fields belong to the map as it is now: a query on a
 *  map whose walls or costs differ falls back to the octile bound until this is called again.
 *  When ncells * 34 bytes exceeds `budget` nothing is kept (octile only). Returns the landmarks
 *  kept (0..8; a field cut by TH_NAV_DIST_MAX is dropped) or a negative status. Allocates. */
int th_astar_landmarks_build(th_astar_ctx *ctx, const th_navmap *m, th_pool *pool, size_t budget);

/** Whether landmarks were built on the map as it is now (walls and costs), so queries use them. */
bool th_astar_landmarks_current(const th_astar_ctx *ctx, const th_navmap *m);

/** The lower bound a query from cell (x, y) to (gx, gy) would use on this map (octile, and
 *  landmarks when current); 0 on bad arguments. */
uint32_t th_astar_bound(const th_astar_ctx *ctx, const th_navmap *m, int32_t x, int32_t y,
                        int32_t gx, int32_t gy);

/** Cells expanded by the context's last query (for benchmarks). */
uint64_t th_astar_expanded(const th_astar_ctx *ctx);

/** Landmark distances of the map as it is now (TH_ASTAR_LANDMARKS per cell, cell-major, unused
 *  slots TH_NAV_UNREACHABLE), or NULL when none were built or they are stale. */
const uint32_t *th_astar_landmarks(const th_astar_ctx *ctx, const th_navmap *m);

/* ---------------------------------------------------------------------------------------- */
/* IDA*                                                                                       */

/** IDA*'s working memory: the route it is following and the best route found, nothing per map
 *  cell. Per depth it keeps the cell, its cost from the start and the next move to try, and the
 *  best route's cell (13 bytes); the arrays grow by doubling as a route gets deeper, so memory
 *  is O(d) for the deepest route tried, d at most the open cells (routes never revisit a
 *  cell). */
typedef struct th_ida {
    uint32_t *cell;    /* route being followed, start first */
    uint32_t *g;       /* cost from the start per depth, units */
    uint8_t *next;     /* next move to try per depth: 0..7 moves, 8.. glued edges */
    uint32_t *path;    /* the path found, start first: path[0 .. len) */
    uint32_t cap;      /* depths allocated */
    uint32_t len;      /* cells on the path found (0 when none) */
    uint32_t cost;     /* its cost, units */
    uint64_t expanded; /* cells expanded by the last search, over all its passes */
    uint32_t passes;   /* depth-first passes of the last search */
    uint32_t deepest;  /* most cells on a route the last search followed */
} th_ida;

/** Largest expansion budget of one IDA* search. */
#define TH_IDA_MAX_EXPANSIONS ((uint64_t)1 << 40)

/** Cheapest path from cell (sx, sy) to (gx, gy): the same moves, costs and result as
 *  th_astar_find (both optimal), by iterative deepening on f = g + h with A*'s lower bound:
 *  octile scaled by the map's smallest cost, raised by the landmarks of `bounds` when they are
 *  current (may be NULL; a map with glued edges keeps the landmarks' bound alone). Depth-first
 *  passes each follow the routes with f within a bound (in a canonical form, never revisiting
 *  a cell: idastar.c), branch and bound inside a pass; the next bound is the least f that went
 *  past it, or 1/64 more. On success ida->path[0 .. ida->len) holds the path and `*cost` (may
 *  be NULL) its cost. TH_NAV_ENOPATH when an end is blocked or no route exists (found when a
 *  pass has nothing left past its bound, or at once when the landmarks put the ends in
 *  different regions), TH_NAV_ELIMIT (ida->len 0) once `max_expansions` cells were expanded
 *  without an answer, TH_NAV_ERANGE for a budget of 0 or above TH_IDA_MAX_EXPANSIONS,
 *  TH_NAV_ENOMEM when the route outgrows memory. */
int th_ida_find(th_ida *ida, const th_navmap *m, const th_astar_ctx *bounds, int32_t sx, int32_t sy,
                int32_t gx, int32_t gy, uint64_t max_expansions, uint32_t *cost);

/** Free an IDA*'s route memory; the struct itself may be reused (zeroed). NULL is ignored. */
void th_ida_free(th_ida *ida);

/** True when the segment between the centres of cells (x0, y0) and (x1, y1) touches no blocked
 *  cell: a supercover traversal visits every cell the segment meets, and where it passes
 *  exactly through a grid corner both side cells must be open too (the no-squeeze rule).
 *  Equivalently: the segment meets no closed blocked square. */
bool th_nav_line_of_sight(const th_navmap *m, int32_t x0, int32_t y0, int32_t x1, int32_t y1);

/** String pulling: reduce a cell path (`n` cell indices) to any-angle waypoints at cell
 *  centres, a subsequence of the path from its first cell to its last in which each waypoint
 *  sees the next (line of sight), found by galloping searches from each waypoint: at most
 *  about 3 line-of-sight tests per path cell (linear), never one test per pair. Writes at most
 *  `n` points to `out` (metres) and returns how many (0 when n == 0 or on bad arguments). On
 *  weighted terrain a shortcut is taken only when its cost-weighted length (the terrain cost
 *  integrated along the segment) is at most the cost of the path cells it skips, so the pulled
 *  path never costs more than the grid path and does not cut across dear cells it avoided. */
uint32_t th_nav_string_pull(const th_navmap *m, const uint32_t *cells, uint32_t n, th_vec2 *out);

/** th_nav_string_pull that also reports its work: the line-of-sight tests it made and the
 *  cells those tests walked (either pointer may be NULL). */
uint32_t th_nav_string_pull_counted(const th_navmap *m, const uint32_t *cells, uint32_t n,
                                    th_vec2 *out, uint64_t *los_tests, uint64_t *cells_walked);

#endif
