/* The public planner (include/throng/plan.h): a hierarchy for the planner's view of a world's
 * map (plan_trouble.c keeps it current), immediate queries, and the budgeted request queue with
 * its answers stored per request slot (improved by plan_anytime.c when asked). */
#include "throng/plan.h"

#include <math.h>
#include <string.h>

#include "engine/alloc.h"
#include "sim/core/world.h"
#include "sim/nav/hpa.h"
#include "sim/nav/plan_private.h"
#include "sim/terrain/plan_world.h"
#include "sim/terrain/world_nav_private.h"

#define MAX_REQUESTS      (1u << 20)
#define MAX_WAYPOINTS     65536u
#define DEFAULT_HALF_LIFE 30.0f

th_plan_def th_default_plan_def(void) {
    th_plan_def d = {TH_HPA_DEFAULT_CLUSTER, 1024u, 256u, DEFAULT_HALF_LIFE, 0.0f, 0.0f};
    return d;
}

void th_planner_destroy(th_planner *p) {
    if (!p) return;
    th_hpa_queue_destroy(p->queue);
    th_hpa_query_destroy(p->query);
    th_hpa_destroy(p->hpa);
    th_plan_view_free(p);
    th_pg_free(&p->grid);
    th_pg_free(&p->tgrid);
    th_free(p->corr);
    th_free(p->any);
    th_free(p->iters);
    th_free(p->units);
    th_free(p->first);
    th_free(p->order);
    th_free(p->box);
    th_free(p->path);
    th_free(p->wp);
    th_free(p->gen);
    th_free(p->status);
    th_free(p->from);
    th_free(p->to);
    th_free(p->count);
    th_free(p->cost);
    th_free(p->points);
    th_free(p->free_slots);
    th_free(p);
}

/* The world is the planner's, between steps, with its map's moves current. */
static bool usable(th_planner *p, th_world *w, th_error *err) {
    if (!p || !w) {
        th_error_set(err, TH_ERR_INVALID, "planner: no planner or no world");
        return false;
    }
    if (!th_between_steps(w, err)) return false;
    if (w != p->world || !w->nav.present || w->nav.map.w != p->w || w->nav.map.h != p->h) {
        th_error_set(err, TH_ERR_INVALID, "planner: not the world it was created for");
        return false;
    }
    th_navmap_update_moves(&w->nav.map, w->pool);
    return true;
}

th_planner *th_planner_create(th_world *w, const th_plan_def *def, th_error *err) {
    if (!w) {
        th_error_set(err, TH_ERR_INVALID, "planner: no world");
        return NULL;
    }
    if (!th_between_steps(w, err) || !th_nav_need_map(w, err)) return NULL;
    th_plan_def d = def ? *def : th_default_plan_def();
    th_plan_def z = th_default_plan_def();
    if (!d.cluster_size) d.cluster_size = z.cluster_size;
    if (!d.max_requests) d.max_requests = z.max_requests;
    if (!d.max_waypoints) d.max_waypoints = z.max_waypoints;
    if (d.trouble_half_life == 0.0f) d.trouble_half_life = z.trouble_half_life;
    if (!(d.trouble_half_life > 0.0f && d.trouble_half_life <= 1e9f)) {
        th_error_set(err, TH_ERR_INVALID, "planner: trouble_half_life %g is outside (0, 1e9]",
                     (double)d.trouble_half_life);
        return NULL;
    }
    if (!(d.trouble_interval >= 0.0f && d.trouble_interval <= 1e9f)) {
        th_error_set(err, TH_ERR_INVALID, "planner: trouble_interval %g is outside [0, 1e9]",
                     (double)d.trouble_interval);
        return NULL;
    }
    if (d.stall_trouble > 0.0f && w->dist) {
        th_error_set(err, TH_ERR_STATE,
                     "planner: stall_trouble reads the world's stalled agents, which several MPI "
                     "ranks share out: not supported over ranks");
        return NULL;
    }
    if (!(d.stall_trouble >= 0.0f && d.stall_trouble <= 1e6f)) {
        th_error_set(err, TH_ERR_INVALID, "planner: stall_trouble %g is outside [0, 1e6]",
                     (double)d.stall_trouble);
        return NULL;
    }
    if (d.cluster_size < TH_HPA_MIN_CLUSTER || d.cluster_size > TH_HPA_MAX_CLUSTER) {
        th_error_set(err, TH_ERR_INVALID, "planner: cluster_size %u is outside [%u, %u]",
                     d.cluster_size, TH_HPA_MIN_CLUSTER, TH_HPA_MAX_CLUSTER);
        return NULL;
    }
    if (d.max_requests > MAX_REQUESTS) {
        th_error_set(err, TH_ERR_INVALID, "planner: max_requests %u is above %u", d.max_requests,
                     MAX_REQUESTS);
        return NULL;
    }
    if (d.max_waypoints < 2 || d.max_waypoints > MAX_WAYPOINTS) {
        th_error_set(err, TH_ERR_INVALID, "planner: max_waypoints %u is outside [2, %u]",
                     d.max_waypoints, MAX_WAYPOINTS);
        return NULL;
    }
    th_navmap *m = &w->nav.map;
    th_navmap_update_moves(m, w->pool);
    if (!th_hpa_links_fit(m, d.cluster_size)) {
        th_error_set(err, TH_ERR_LIMIT,
                     "planner: a cluster of %u cells a side has more stair edges than its node "
                     "slots hold; use smaller clusters",
                     d.cluster_size);
        return NULL;
    }
    th_planner *p = th_calloc(1, sizeof *p);
    if (!p) goto nomem;
    p->world = w;
    p->w = m->w;
    p->h = m->h;
    p->C = d.cluster_size;
    p->cw = ((uint32_t)m->w + p->C - 1) / p->C;
    p->ncl = p->cw * (((uint32_t)m->h + p->C - 1) / p->C);
    p->cell = m->cell_size;
    p->def = d;
    uint32_t workers = w->pool ? th_pool_workers(w->pool) : 1u;
    p->hpa = th_hpa_create(m, d.cluster_size, workers);
    if (!p->hpa) goto nomem;
    p->query = th_hpa_query_create(p->hpa, 0);
    p->queue = th_hpa_queue_create(p->hpa, m, d.max_requests, 0);
    p->box = th_alloc((size_t)p->ncl * 4u * sizeof *p->box);
    p->corr = th_calloc(p->ncl, sizeof *p->corr);
    /* Written only as far as a path reaches: untouched pages stay unbacked. */
    p->path = th_alloc((size_t)m->ncells * sizeof *p->path);
    p->wp = th_alloc((size_t)m->ncells * sizeof *p->wp);
    size_t n = d.max_requests;
    p->gen = th_calloc(n, sizeof *p->gen);
    p->status = th_calloc(n, sizeof *p->status);
    p->from = th_alloc(n * sizeof *p->from);
    p->to = th_alloc(n * sizeof *p->to);
    p->count = th_calloc(n, sizeof *p->count);
    p->cost = th_alloc(n * sizeof *p->cost);
    p->points = th_alloc(n * d.max_waypoints * sizeof *p->points);
    p->free_slots = th_alloc(n * sizeof *p->free_slots);
    p->any = th_calloc(n, sizeof *p->any);
    p->iters = th_calloc(n, sizeof *p->iters);
    p->units = th_alloc(n * sizeof *p->units);
    p->first = th_alloc(n * sizeof *p->first);
    p->order = th_alloc(n * sizeof *p->order);
    if (!th_plan_view_init(p, m) || !th_pg_init(&p->grid, m->w, m->h) ||
        !th_pg_init(&p->tgrid, m->w, m->h) || !p->query || !p->queue || !p->box || !p->corr ||
        !p->path || !p->wp || !p->gen || !p->status || !p->from || !p->to || !p->count ||
        !p->cost || !p->points || !p->free_slots || !p->any || !p->iters || !p->units ||
        !p->first || !p->order) {
        goto nomem;
    }
    for (uint32_t c = 0; c < p->ncl; c++) {
        p->box[c * 4] = INT32_MAX;
        p->box[c * 4 + 1] = INT32_MAX;
        p->box[c * 4 + 2] = -1;
        p->box[c * 4 + 3] = -1;
    }
    p->tstep = p->tview = th_world_step_count(w);
    /* Lowest slot first. */
    for (uint32_t i = 0; i < d.max_requests; i++) p->free_slots[i] = d.max_requests - 1u - i;
    p->nfree = d.max_requests;
    if (th_hpa_build(p->hpa, &p->view, w->pool) != TH_NAV_OK) goto nomem;
    return p;
nomem:
    th_planner_destroy(p);
    th_error_set(err, TH_ERR_NOMEM, "planner: out of memory");
    return NULL;
}

bool th_plan_holds_map(const th_planner *p, const th_world *w) {
    return th_hpa_holds_links(p->hpa, &w->nav.map);
}

/* The hierarchy holds every glued edge of the map (stairs added after the planner was made
 * may outgrow the link slots sized then). */
static bool holds(const th_planner *p, const th_world *w, th_error *err) {
    if (th_plan_holds_map(p, w)) return true;
    th_error_set(err, TH_ERR_LIMIT,
                 "planner: stairs added since it was made need more node slots than it has; "
                 "create the planner again");
    return false;
}

bool th_planner_refresh(th_planner *p, th_world *w, th_error *err) {
    if (!usable(p, w, err)) return false;
    th_plan_sync(p, w);
    return true;
}

bool th_planner_cells_changed(th_planner *p, th_world *w, int32_t x0, int32_t y0, int32_t x1,
                              int32_t y1, th_error *err) {
    if (!usable(p, w, err)) return false;
    if (x0 > x1 || y0 > y1 || x1 < 0 || y1 < 0 || x0 >= p->w || y0 >= p->h) {
        th_error_set(err, TH_ERR_INVALID,
                     "planner: cells [%d, %d] x [%d, %d] are empty or off the %d x %d map", x0, x1,
                     y0, y1, p->w, p->h);
        return false;
    }
    th_plan_sync_rect(p, w, x0, y0, x1, y1);
    return true;
}

bool th_planner_find_path(th_planner *p, th_world *w, th_vec2 from, th_vec2 to, th_vec2 *out,
                          uint32_t max, uint32_t *count, float *cost, th_error *err) {
    if (!out || !count) {
        th_error_set(err, TH_ERR_INVALID, "planner: no output or no count");
        return false;
    }
    if (!usable(p, w, err)) return false;
    if (th_nav_off_world(w, from, err) || th_nav_off_world(w, to, err)) return false;
    th_plan_sync(p, w);
    if (!holds(p, w, err)) return false;
    const th_navmap *m = &p->view;
    int32_t sx, sy, gx, gy;
    th_navmap_cell_of(m, from, &sx, &sy);
    th_navmap_cell_of(m, to, &gx, &gy);
    uint32_t len = 0, units = 0;
    int rc = th_hpa_find(p->query, p->hpa, m, sx, sy, gx, gy, p->path, m->ncells, &len, &units);
    if (rc != TH_NAV_OK) {
        th_error_set(err, th_nav_error_code(rc), "planner: no path from cell (%d, %d) to (%d, %d)",
                     sx, sy, gx, gy);
        return false;
    }
    uint32_t n = th_nav_string_pull(m, p->path, len, p->wp);
    if (n > max) {
        th_error_set(err, TH_ERR_LIMIT, "planner: the path has %u waypoints, room for %u", n, max);
        return false;
    }
    memcpy(out, p->wp, n * sizeof *out);
    *count = n;
    if (cost) *cost = th_nav_units_to_metres(m, units);
    return true;
}

th_plan_id th_planner_submit(th_planner *p, th_world *w, th_vec2 from, th_vec2 to, int32_t priority,
                             th_error *err) {
    th_plan_id none = {0, 0};
    if (!usable(p, w, err)) return none;
    if (th_nav_off_world(w, from, err) || th_nav_off_world(w, to, err)) return none;
    if (!p->nfree) {
        th_error_set(err, TH_ERR_LIMIT, "planner: all %u request slots are held",
                     p->def.max_requests);
        return none;
    }
    const th_plan_id id = th_plan_submit_in(p, w, from, to, priority);
    if (!id.index1) th_error_set(err, TH_ERR_LIMIT, "planner: the queue is full");
    return id;
}

th_plan_id th_plan_submit_in(th_planner *p, const th_world *w, th_vec2 from, th_vec2 to,
                             int32_t priority) {
    th_plan_id none = {0, 0};
    if (!p->nfree) return none;
    int32_t sx, sy, gx, gy;
    th_navmap_cell_of(&w->nav.map, from, &sx, &sy);
    th_navmap_cell_of(&w->nav.map, to, &gx, &gy);
    uint32_t s = p->free_slots[p->nfree - 1];
    if (th_hpa_queue_submit(p->queue, sx, sy, gx, gy, priority, s) != TH_NAV_OK) return none;
    p->nfree--;
    p->gen[s]++;
    p->status[s] = TH_PLAN_WAITING;
    p->from[s] = from;
    p->to[s] = to;
    p->count[s] = 0;
    p->cost[s] = INFINITY;
    p->any[s] = 0;
    p->iters[s] = 0;
    p->units[s] = TH_NAV_UNREACHABLE;
    p->first[s] = INFINITY;
    return (th_plan_id){s + 1u, p->gen[s]};
}

void th_plan_store(th_planner *p, uint32_t slot, const uint32_t *cells, uint32_t len,
                   uint32_t units) {
    uint32_t n = th_nav_string_pull(&p->view, cells, len, p->wp);
    p->cost[slot] = th_nav_units_to_metres(&p->view, units);
    p->units[slot] = units;
    p->count[slot] = n;
    if (n > p->def.max_waypoints) {
        p->status[slot] = TH_PLAN_TOO_LONG;
        return;
    }
    memcpy(p->points + (size_t)slot * p->def.max_waypoints, p->wp, n * sizeof *p->wp);
    p->status[slot] = TH_PLAN_DONE;
}

static void on_done(void *user, uint32_t slot, int status, const uint32_t *cells, uint32_t len,
                    uint32_t cost) {
    th_planner *p = user;
    if (status != TH_NAV_OK) {
        p->status[slot] = TH_PLAN_UNREACHABLE;
        p->count[slot] = 0;
        th_plan_anytime_answered(p, slot, false);
        return;
    }
    th_plan_store(p, slot, cells, len, cost);
    p->first[slot] = p->cost[slot];
    th_plan_anytime_answered(p, slot, true);
}

uint32_t th_planner_update(th_planner *p, th_world *w, uint32_t budget, th_error *err) {
    if (!usable(p, w, err) || !holds(p, w, err)) return 0;
    return th_plan_serve(p, w, budget);
}

uint32_t th_plan_free_slots(const th_planner *p) { return p->nfree; }

uint32_t th_plan_serve(th_planner *p, th_world *w, uint32_t budget) {
    th_navmap_update_moves(&w->nav.map, w->pool);
    th_plan_sync(p, w);
    /* A hierarchy that misses stairs would answer wrongly: requests wait (th_planner_update
     * says why; the world's goal planning plans at once instead). */
    if (!th_plan_holds_map(p, w)) return 0;
    uint64_t used = th_hpa_queue_update(p->queue, p->hpa, &p->view, budget, on_done, p);
    p->updates_expanded += used;
    if (used < budget) used += th_plan_anytime_run(p, budget - used);
    return (uint32_t)used;
}

/* The slot of a live request, or -1. */
int64_t th_plan_slot_of(const th_planner *p, th_plan_id id) {
    if (!p || id.index1 == 0 || id.index1 > p->def.max_requests) return -1;
    uint32_t s = id.index1 - 1u;
    if (p->gen[s] != id.generation || p->status[s] == TH_PLAN_INVALID) return -1;
    return s;
}

int64_t th_plan_request(const th_planner *p, th_plan_id id, th_error *err) {
    if (!p) {
        th_error_set(err, TH_ERR_INVALID, "planner: no planner");
        return -1;
    }
    const int64_t s = th_plan_slot_of(p, id);
    if (s < 0) th_error_set(err, TH_ERR_HANDLE, "planner: no such request");
    return s;
}

th_plan_status th_planner_result(const th_planner *p, th_plan_id id, th_vec2 *out, uint32_t max,
                                 uint32_t *count, float *cost, th_error *err) {
    const int64_t s = th_plan_request(p, id, err);
    if (s < 0) return TH_PLAN_INVALID;
    th_plan_status st = (th_plan_status)p->status[s];
    if (count) *count = st == TH_PLAN_DONE || st == TH_PLAN_TOO_LONG ? p->count[s] : 0;
    if (cost) *cost = st == TH_PLAN_DONE || st == TH_PLAN_TOO_LONG ? p->cost[s] : INFINITY;
    if (st == TH_PLAN_DONE && out) {
        if (max < p->count[s]) {
            th_error_set(err, TH_ERR_LIMIT, "planner: the path has %u waypoints, room for %u",
                         p->count[s], max);
        } else {
            memcpy(out, p->points + (size_t)s * p->def.max_waypoints, p->count[s] * sizeof *out);
        }
    }
    return st;
}

static bool unit_toward(th_vec2 a, th_vec2 b, th_vec2 *dir) {
    float dx = b.x - a.x, dy = b.y - a.y, l = sqrtf(dx * dx + dy * dy);
    if (!(l > 0.0f)) return false;
    *dir = th_v2(dx / l, dy / l);
    return true;
}

bool th_planner_direction(const th_planner *p, th_plan_id id, th_vec2 *dir) {
    if (!dir) return false;
    *dir = th_v2(0.0f, 0.0f);
    int64_t s = th_plan_slot_of(p, id);
    if (s < 0) return false;
    switch ((th_plan_status)p->status[s]) {
    case TH_PLAN_DONE: {
        const th_vec2 *pts = p->points + (size_t)s * p->def.max_waypoints;
        return p->count[s] >= 2 && unit_toward(p->from[s], pts[1], dir);
    }
    case TH_PLAN_TOO_LONG:
    case TH_PLAN_WAITING: {
        int32_t x, y;
        if (th_hpa_queue_next_node(p->queue, p->hpa, (uint32_t)s, &x, &y)) {
            th_vec2 c = th_v2(((float)x + 0.5f) * p->cell, ((float)y + 0.5f) * p->cell);
            if (unit_toward(p->from[s], c, dir)) return true;
        }
        return unit_toward(p->from[s], p->to[s], dir);
    }
    default: return false;
    }
}

bool th_plan_heading_point(const th_planner *p, th_plan_id id, th_vec2 *at) {
    const int64_t s = th_plan_slot_of(p, id);
    if (s < 0) return false;
    switch ((th_plan_status)p->status[s]) {
    case TH_PLAN_DONE:
        if (p->count[s] < 2) return false;
        *at = p->points[(size_t)s * p->def.max_waypoints + 1u];
        return true;
    case TH_PLAN_TOO_LONG:
    case TH_PLAN_WAITING: {
        int32_t x, y;
        *at = p->to[s];
        if (th_hpa_queue_next_node(p->queue, p->hpa, (uint32_t)s, &x, &y))
            *at = th_v2(((float)x + 0.5f) * p->cell, ((float)y + 0.5f) * p->cell);
        return true;
    }
    default: return false;
    }
}

bool th_planner_release(th_planner *p, th_plan_id id, th_error *err) {
    const int64_t s = th_plan_request(p, id, err);
    if (s < 0) return false;
    if (p->status[s] == TH_PLAN_WAITING) th_hpa_queue_cancel(p->queue, (uint32_t)s);
    th_plan_anytime_drop(p, (uint32_t)s);
    p->status[s] = TH_PLAN_INVALID;
    p->free_slots[p->nfree++] = (uint32_t)s;
    return true;
}

th_plan_info th_planner_info(const th_planner *p) {
    th_plan_info i;
    memset(&i, 0, sizeof i);
    if (!p) return i;
    th_hpa_info h = th_hpa_get_info(p->hpa);
    i.cluster_size = h.cluster;
    i.clusters = h.clusters;
    i.nodes = h.nodes;
    i.edges = h.intra_edges;
    i.bytes = h.bytes;
    i.waiting = th_hpa_queue_waiting(p->queue);
    th_hpa_query_stats a = th_hpa_query_get_stats(p->query);
    th_hpa_query_stats b = th_hpa_query_get_stats(th_hpa_queue_query(p->queue));
    i.expanded = a.abstract_expanded + b.abstract_expanded;
    i.cells_expanded = a.cells_expanded + b.cells_expanded;
    i.cells_expanded += p->tour_expanded;
    i.rebuilt = h.rebuilt;
    i.improving = p->npending;
    i.improve_expanded = p->improve_expanded;
    i.trouble_cells = p->ntrouble;
    return i;
}
