/* The public planner's private layout (include/throng/plan.h), shared by sim/terrain/plan.c (the
 * hierarchy, request slots and their queue), plan_grid.c (exact searches on the cells),
 * plan_anytime.c (improving answered requests), plan_tour.c (tours through reward points) and
 * plan_trouble.c (the trouble memory and the planner's own view of the costs). Nothing else
 * includes it. */
#ifndef TH_PLAN_PRIVATE_H
#define TH_PLAN_PRIVATE_H

#include "throng/plan.h"

#include "sim/nav/hpa.h"
#include "sim/nav/nav.h"

/* ---- exact searches on the cells (plan_grid.c) ----------------------------------------------
 * A* from one cell to another (octile bound scaled by the map's cheapest cell: consistent, so
 * the first path to the goal is the cheapest; no bound on a map with glued edges, which are
 * relaxed as straight moves), or Dijkstra from one cell until a few targets
 * are settled. Resumable: each run spends at most a budget of expansions. Optionally kept to a
 * set of clusters, and cut at a cost bound (cells whose f reaches it are never opened, so a
 * search that ends without the goal proves no cheaper path exists). The arrays are sized at
 * creation and stamped per search, so nothing is cleared or allocated per search. */

#define TH_PG_NONE UINT32_MAX

typedef enum th_pg_state { TH_PG_IDLE = 0, TH_PG_RUNNING = 1, TH_PG_DONE = 2 } th_pg_state;

typedef struct th_plan_grid {
    int32_t w, h;
    uint32_t ncells;
    uint32_t *g, *f, *stamp, *pos, *heap; /* per cell; heap holds cells */
    uint8_t *move;                        /* per cell: the move that reached it */
    uint32_t n;                           /* heap entries */
    uint32_t cur;                         /* this search's stamp */
    uint32_t start, goal;                 /* goal TH_PG_NONE: Dijkstra to the targets */
    uint32_t bound;                       /* f must stay below it */
    uint32_t cmin;
    const th_navmap *m;   /* the map searched (its glued edges, for th_pg_path) */
    bool glued;           /* it has glued edges: no octile bound */
    const uint32_t *corr; /* per cluster; NULL = no restriction */
    uint32_t corr_val, C, cw;
    uint32_t targets[TH_PLAN_MAX_REWARDS + 2], ntargets, reached;
    th_pg_state state;
    bool found;        /* the goal was reached (A*) */
    uint64_t expanded; /* since creation */
} th_plan_grid;

bool th_pg_init(th_plan_grid *g, int32_t w, int32_t h);
void th_pg_free(th_plan_grid *g);
/** Start an A* from `start` to `goal` (Dijkstra when goal is TH_PG_NONE; then set targets with
 *  th_pg_targets) below `bound` (UINT32_MAX = none), kept to clusters whose `corr` entry is
 *  `corr_val` when `corr` is not NULL (clusters of side C, cw a row). */
void th_pg_start(th_plan_grid *g, const th_navmap *m, uint32_t start, uint32_t goal, uint32_t bound,
                 const uint32_t *corr, uint32_t corr_val, uint32_t C, uint32_t cw);
/** Dijkstra targets: the search ends once every one is settled. */
void th_pg_targets(th_plan_grid *g, const uint32_t *cells, uint32_t n);
/** Advance by at most `budget` expansions; returns those made. */
uint64_t th_pg_run(th_plan_grid *g, const th_navmap *m, uint64_t budget);
/** The settled cost of `cell` in units, or TH_NAV_UNREACHABLE. */
uint32_t th_pg_cost(const th_plan_grid *g, uint32_t cell);
/** The cells from the start to a settled `cell` into `out` (room for `max`); their number, 0
 *  when it is not settled or does not fit. */
uint32_t th_pg_path(const th_plan_grid *g, uint32_t cell, uint32_t *out, uint32_t max);

/* ---- the planner ------------------------------------------------------------------------- */

/* Per slot, anytime bits. */
#define TH_PA_ANYTIME 1u /* marked by th_planner_set_anytime */
#define TH_PA_PENDING 2u /* answered, waiting for (or under) improvement */
#define TH_PA_FINAL   4u

struct th_planner {
    const th_world *world; /* the world it was made for */
    int32_t w, h;
    uint32_t C, cw, ncl;
    float cell;
    th_plan_def def;
    th_hpa *hpa;
    th_hpa_query *query; /* th_planner_find_path */
    th_hpa_queue *queue;
    uint16_t *seen;        /* the map's costs when the hierarchy was last brought up to date */
    uint64_t seen_changes; /* the map's `changes` when `seen` was last compared with it */
    int32_t *box;          /* per cluster: changed cells' bounds (x0, y0, x1, y1) */
    uint32_t nbox;         /* clusters with a box */
    uint32_t *path;        /* a cell path, ncells long */
    th_vec2 *wp;           /* its waypoints, ncells long */
    /* The planner's view: the map with `vcost` (seen + trouble) in place of the world's costs;
     * the hierarchy and every search read it. */
    th_navmap view;
    uint16_t *vcost;
    uint32_t links_seen; /* the map's glued edges when the hierarchy was last built */
    /* Trouble memory: per cell, and the cells above zero. */
    float *trouble;
    uint32_t *tcells, ntrouble;
    bool trouble_dirty; /* changed since the view was last brought up to date */
    uint64_t tstep;     /* the world's step the memory has faded to */
    uint64_t tview;     /* the world's step the view last took the memory */
    /* Request slots. */
    uint32_t *gen;
    uint8_t *status; /* th_plan_status; TH_PLAN_INVALID = free */
    th_vec2 *from, *to;
    uint32_t *count;
    float *cost;
    th_vec2 *points; /* max_requests * max_waypoints */
    uint32_t *free_slots, nfree;
    uint64_t updates_expanded;
    /* Anytime requests. */
    uint8_t *any;    /* TH_PA_* */
    uint8_t *iters;  /* improvement searches ended */
    uint32_t *units; /* cost of the held path, units */
    float *first;    /* cost of the first answer, metres */
    uint64_t *order; /* when it became pending: improved in that order */
    uint64_t next_order;
    uint32_t npending;
    bool im_active; /* a request is being improved */
    uint32_t im_slot, im_stage;
    uint32_t *corr, corr_val; /* per cluster: the corridor's stamp */
    th_plan_grid grid;        /* improvements */
    th_plan_grid tgrid;       /* tours */
    uint64_t improve_expanded, tour_expanded;
};

/* plan_trouble.c: the view and the memory. */
bool th_plan_view_init(th_planner *p, const th_navmap *m);
void th_plan_view_free(th_planner *p);
/** Bring the view up to date with the world's map and the trouble memory (faded to the
 *  world's time, stalled agents read when the settings ask): rebuild the clusters around every
 *  cell whose view cost changed, then the landmarks; restart the searches in progress. */
void th_plan_sync(th_planner *p, th_world *w);
/** The world's map changed over [x0, x1] x [y0, y1] (clipped): take it into the view and
 *  repair those cells' clusters now. */
void th_plan_sync_rect(th_planner *p, th_world *w, int32_t x0, int32_t y0, int32_t x1, int32_t y1);

/* plan_anytime.c. */
/** A request answered by the queue (on_done): start its improvement when anytime. */
void th_plan_anytime_answered(th_planner *p, uint32_t slot, bool reachable);
/** Spend at most `budget` cell expansions improving pending requests; returns those spent. */
uint64_t th_plan_anytime_run(th_planner *p, uint64_t budget);
/** The view changed: the improvement in progress starts again. */
void th_plan_anytime_restart(th_planner *p);
/** A slot is being released. */
void th_plan_anytime_drop(th_planner *p, uint32_t slot);
/** The slot of a live request, or -1 (plan.c). */
int64_t th_plan_slot_of(const th_planner *p, th_plan_id id);
/** The same for a call of the API: -1 with `err` filled for no planner (TH_ERR_INVALID) or no
 * such live request (TH_ERR_HANDLE). */
int64_t th_plan_request(const th_planner *p, th_plan_id id, th_error *err);
/** Store a cell path as a slot's answer: string-pulled waypoints, cost, status. */
void th_plan_store(th_planner *p, uint32_t slot, const uint32_t *cells, uint32_t len,
                   uint32_t units);

#endif
