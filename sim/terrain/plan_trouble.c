/* The planner's own view of the costs and its trouble memory (include/throng/plan.h): the
 * world's map as the planner last saw it plus the trouble remembered per cell, faded with a
 * half-life in world time. The hierarchy is built on the view, and every change of a view cost
 * is repaired cluster by cluster as a change of the world's map is. */
#include <math.h>
#include <string.h>

#include "engine/alloc.h"
#include "sim/core/world.h"
#include "sim/nav/plan_private.h"
#include "sim/terrain/world_nav_private.h"

/* Trouble below this is forgotten (it adds nothing once rounded). */
#define TROUBLE_FORGET (1.0f / 64.0f)
/* Trouble a cell holds at most. */
#define TROUBLE_MAX    1e6f

bool th_plan_view_init(th_planner *p, const th_navmap *m) {
    size_t n = m->ncells;
    p->seen = th_alloc(n * sizeof *p->seen);
    p->vcost = th_alloc(n * sizeof *p->vcost);
    p->trouble = th_calloc(n, sizeof *p->trouble);
    p->tcells = th_alloc(n * sizeof *p->tcells);
    if (!p->seen || !p->vcost || !p->trouble || !p->tcells) return false;
    memcpy(p->seen, m->cost, n * sizeof *p->seen);
    memcpy(p->vcost, m->cost, n * sizeof *p->vcost);
    p->view = *m;
    p->view.cost = p->vcost;
    /* The view's glued edges (a building's stairs) are the world map's: the hierarchy and the
     * cell searches cross them as A* does. attach() takes the list again before every use
     * (adding a stair may move it). */
    p->links_seen = m->link_count;
    p->seen_changes = m->changes;
    return true;
}

void th_plan_view_free(th_planner *p) {
    th_free(p->seen);
    th_free(p->vcost);
    th_free(p->trouble);
    th_free(p->tcells);
}

/* The view shares the world map's moves, flags, wall distances and glued edges: trouble
 * changes no cell from open to blocked, so the moves are the same. */
static void attach(th_planner *p, const th_navmap *m) {
    p->view.links = m->links;
    p->view.link_count = m->link_count;
    p->view.link_capacity = m->link_capacity;
    p->view.flags = m->flags;
    p->view.moves = m->moves;
    p->view.wall_dist = m->wall_dist;
    p->view.walls_dirty = m->walls_dirty;
    p->view.moves_stale = m->moves_stale;
}

static void mark(th_planner *p, uint32_t c) {
    int32_t x = (int32_t)(c % (uint32_t)p->w), y = (int32_t)(c / (uint32_t)p->w);
    int32_t *bx = p->box + ((uint32_t)y / p->C * p->cw + (uint32_t)x / p->C) * 4u;
    if (bx[2] < 0) p->nbox++;
    bx[0] = x < bx[0] ? x : bx[0];
    bx[1] = y < bx[1] ? y : bx[1];
    bx[2] = x > bx[2] ? x : bx[2];
    bx[3] = y > bx[3] ? y : bx[3];
}

/* Set cell c of the view from what the planner saw and remembers; marks its cluster when the
 * cost changed. */
static void view_set(th_planner *p, uint32_t c) {
    uint32_t v = p->seen[c];
    if (v && p->trouble[c] > 0.0f) {
        v += (uint32_t)floorf(p->trouble[c] + 0.5f);
        if (v > TH_NAV_COST_MAX) v = TH_NAV_COST_MAX;
    }
    uint32_t old = p->vcost[c];
    if (v == old) return;
    p->view.cost_count[old]--;
    p->view.cost_count[v]++;
    p->vcost[c] = (uint16_t)v;
    mark(p, c);
}

/* Repair the clusters with marked cells (when `w`), and clear the marks. */
static void clear_boxes(th_planner *p, th_world *w) {
    for (uint32_t c = 0; c < p->ncl && p->nbox; c++) {
        int32_t *bx = p->box + c * 4u;
        if (bx[2] < 0) continue;
        if (w) th_hpa_cells_changed(p->hpa, &p->view, w->pool, bx[0], bx[1], bx[2], bx[3]);
        bx[0] = INT32_MAX;
        bx[1] = INT32_MAX;
        bx[2] = -1;
        bx[3] = -1;
        p->nbox--;
    }
}

static void repair(th_planner *p, th_world *w) {
    if (!p->nbox) return;
    clear_boxes(p, w);
    th_hpa_landmarks_build(p->hpa, &p->view, w->pool);
    th_hpa_queue_restart(p->queue);
    th_plan_anytime_restart(p);
}

static void add(th_planner *p, uint32_t c, float weight) {
    if (!(weight > 0.0f)) return;
    if (!(p->trouble[c] > 0.0f)) p->tcells[p->ntrouble++] = c;
    float t = p->trouble[c] + weight;
    p->trouble[c] = t < TROUBLE_MAX ? t : TROUBLE_MAX;
    p->trouble_dirty = true;
}

/* Fade the memory to the world's time, then add what stalled agents say when asked to. The
 * world's step counts time, so the result depends on no clock and no thread count; every
 * stalled agent on a cell adds the same amount, so their storage order does not matter. */
static void advance(th_planner *p, th_world *w) {
    uint64_t step = th_world_step_count(w);
    if (step == p->tstep) return;
    double dt = step > p->tstep ? (double)(step - p->tstep) * (double)w->def.timestep : 0.0;
    p->tstep = step;
    if (p->ntrouble) {
        double f = exp2(-dt / (double)p->def.trouble_half_life);
        for (uint32_t i = 0; i < p->ntrouble; i++) {
            uint32_t c = p->tcells[i];
            p->trouble[c] = (float)((double)p->trouble[c] * f);
        }
        p->trouble_dirty = true;
    }
    if (p->def.stall_trouble > 0.0f && dt > 0.0) {
        float add_each = (float)((double)p->def.stall_trouble * dt);
        th_agent_view v = th_world_agents(w);
        for (uint32_t i = 0; i < v.count; i++) {
            if (!(v.flags[i] & TH_AGENT_STALLED)) continue;
            uint32_t c = th_navmap_cell_of(&p->view, th_v2(v.px[i], v.py[i]), NULL, NULL);
            add(p, c, add_each);
        }
    }
}

/* Whether the view takes changed trouble now: at every refresh, or once trouble_interval
 * seconds of world time passed since it last did. */
static bool due(const th_planner *p, const th_world *w) {
    if (p->def.trouble_interval <= 0.0f) return true;
    double since = (double)(p->tstep - p->tview) * (double)w->def.timestep;
    return since + 1e-9 >= (double)p->def.trouble_interval;
}

/* Edges glued since the hierarchy was built (stairs added; they are never taken away): every
 * cluster may have gained link nodes, so the whole hierarchy is built again, and the searches
 * in progress start again. */
static void take_links(th_planner *p, th_world *w) {
    if (p->view.link_count == p->links_seen) return;
    p->links_seen = p->view.link_count;
    th_hpa_build(p->hpa, &p->view, w->pool);
    th_hpa_queue_restart(p->queue);
    th_plan_anytime_restart(p);
}

void th_plan_sync(th_planner *p, th_world *w) {
    const th_navmap *m = &w->nav.map;
    attach(p, m);
    take_links(p, w);
    advance(p, w);
    const uint32_t W = (uint32_t)p->w;
    /* The costs are compared only when some changed since the last look: a step's serve would
     * otherwise read the whole map (2 MiB on 1024 x 1024) while nothing changed. */
    if (m->changes != p->seen_changes &&
        memcmp(p->seen, m->cost, (size_t)m->ncells * sizeof *p->seen) != 0) {
        for (int32_t y = 0; y < p->h; y++) {
            uint16_t *a = p->seen + (size_t)y * W;
            const uint16_t *b = m->cost + (size_t)y * W;
            if (memcmp(a, b, W * sizeof *a) == 0) continue;
            for (uint32_t x = 0; x < W; x++) {
                if (a[x] == b[x]) continue;
                a[x] = b[x];
                view_set(p, (uint32_t)y * W + x);
            }
        }
    }
    p->seen_changes = m->changes;
    if (p->trouble_dirty && due(p, w)) {
        p->tview = p->tstep;
        for (uint32_t i = 0; i < p->ntrouble;) {
            uint32_t c = p->tcells[i];
            if (p->trouble[c] < TROUBLE_FORGET) {
                p->trouble[c] = 0.0f;
                p->tcells[i] = p->tcells[--p->ntrouble];
            } else {
                i++;
            }
            view_set(p, c);
        }
        p->trouble_dirty = false;
    }
    repair(p, w);
}

void th_plan_sync_rect(th_planner *p, th_world *w, int32_t x0, int32_t y0, int32_t x1, int32_t y1) {
    const th_navmap *m = &w->nav.map;
    attach(p, m);
    take_links(p, w);
    x0 = x0 < 0 ? 0 : x0;
    y0 = y0 < 0 ? 0 : y0;
    x1 = x1 >= p->w ? p->w - 1 : x1;
    y1 = y1 >= p->h ? p->h - 1 : y1;
    for (int32_t y = y0; y <= y1; y++) {
        for (int32_t x = x0; x <= x1; x++) {
            uint32_t c = (uint32_t)y * (uint32_t)p->w + (uint32_t)x;
            p->seen[c] = m->cost[c];
            view_set(p, c);
        }
    }
    /* The caller said these cells changed: repair them even where the view kept its cost
     * (which covers the cells marked just now). */
    th_hpa_cells_changed(p->hpa, &p->view, w->pool, x0, y0, x1, y1);
    clear_boxes(p, NULL);
    th_hpa_landmarks_build(p->hpa, &p->view, w->pool);
    th_hpa_queue_restart(p->queue);
    th_plan_anytime_restart(p);
    /* Cells changed elsewhere, and trouble, are found as always. */
    th_plan_sync(p, w);
}

bool th_planner_note_trouble(th_planner *p, th_world *w, th_vec2 position, float weight,
                             th_error *err) {
    if (!p || !w) {
        th_error_set(err, TH_ERR_INVALID, "planner: no planner or no world");
        return false;
    }
    if (w != p->world) {
        th_error_set(err, TH_ERR_INVALID, "planner: not the world it was created for");
        return false;
    }
    if (!th_between_steps(w, err)) return false;
    if (!(weight >= 0.0f && weight <= TROUBLE_MAX)) {
        th_error_set(err, TH_ERR_INVALID, "planner: trouble weight %g is outside [0, 1e6]",
                     (double)weight);
        return false;
    }
    if (th_nav_off_world(w, position, err)) return false;
    advance(p, w);
    add(p, th_navmap_cell_of(&p->view, position, NULL, NULL), weight);
    return true;
}

float th_planner_get_trouble(const th_planner *p, th_vec2 position) {
    if (!p) return 0.0f;
    if (!(position.x >= 0.0f && position.y >= 0.0f && position.x < (float)p->w * p->cell &&
          position.y < (float)p->h * p->cell)) {
        return 0.0f;
    }
    return p->trouble[th_navmap_cell_of(&p->view, position, NULL, NULL)];
}
