/* Anytime requests (include/throng/plan.h: th_planner_set_anytime): once the queue answered
 * one with HPA*'s near-optimal path, the budget th_planner_update has left improves it in two
 * exact searches on the cells, each cut at the cost of the path held: A* kept to a corridor of
 * clusters around the path (cheap, and most of the gain), then A* on the whole map (its end
 * proves the held path optimal). One request is improved at a time, in the order requests
 * became ready, and a search goes on where the budget cut it off. */
#include <math.h>
#include <string.h>

#include "sim/core/error.h"
#include "sim/nav/plan_private.h"

static void set_pending(th_planner *p, uint32_t s, bool on) {
    if (on && !(p->any[s] & TH_PA_PENDING)) {
        p->any[s] |= TH_PA_PENDING;
        p->order[s] = p->next_order++;
        p->npending++;
    } else if (!on && (p->any[s] & TH_PA_PENDING)) {
        p->any[s] &= (uint8_t)~TH_PA_PENDING;
        p->npending--;
        if (p->im_active && p->im_slot == s) p->im_active = false;
    }
}

void th_plan_anytime_answered(th_planner *p, uint32_t slot, bool reachable) {
    p->iters[slot] = 0;
    p->any[slot] &= (uint8_t)~TH_PA_FINAL;
    if (!(p->any[slot] & TH_PA_ANYTIME)) return;
    if (!reachable) p->any[slot] |= TH_PA_FINAL;
    else set_pending(p, slot, true);
}

void th_plan_anytime_drop(th_planner *p, uint32_t slot) {
    set_pending(p, slot, false);
    p->any[slot] = 0;
    p->iters[slot] = 0;
}

/* The pending request that became ready first; false when none. */
static bool pick(const th_planner *p, uint32_t *slot) {
    if (!p->npending) return false;
    uint64_t best = UINT64_MAX;
    for (uint32_t s = 0; s < p->def.max_requests; s++) {
        if ((p->any[s] & TH_PA_PENDING) && p->order[s] < best) {
            best = p->order[s];
            *slot = s;
        }
    }
    return best != UINT64_MAX;
}

/* Whether cells a and b are the two sides of a glued edge (a leg across a stair's seam). */
static bool glued_pair(const th_navmap *m, uint32_t a, uint32_t b) {
    uint32_t nl = 0;
    const th_nav_link *l = th_navmap_links_of(m, a, &nl);
    for (uint32_t i = 0; i < nl; i++)
        if (l[i].to == b) return true;
    return false;
}

/* Mark the clusters the held path's legs cross, and their neighbours; false when that is every
 * cluster (the corridor would be the whole map). A leg across a seam joins its two ends only:
 * the straight line between them lies nowhere on the way. */
static bool corridor(th_planner *p, uint32_t s) {
    if (++p->corr_val == 0) {
        memset(p->corr, 0, (size_t)p->ncl * sizeof *p->corr);
        p->corr_val = 1;
    }
    const uint32_t ch = p->ncl / p->cw;
    const th_vec2 *pts = p->points + (size_t)s * p->def.max_waypoints;
    uint32_t marked = 0;
    const uint32_t n = p->count[s], legs = n > 1 ? n - 1u : 1u;
    for (uint32_t i = 0; i < legs; i++) {
        th_vec2 a = pts[i], b = pts[n > 1 ? i + 1u : i];
        float dx = b.x - a.x, dy = b.y - a.y;
        uint32_t steps = (uint32_t)ceilf(sqrtf(dx * dx + dy * dy) / (0.5f * p->cell)) + 1u;
        const bool seam =
            p->view.link_count && glued_pair(&p->view, th_navmap_cell_of(&p->view, a, NULL, NULL),
                                             th_navmap_cell_of(&p->view, b, NULL, NULL));
        for (uint32_t k = 0; k <= steps; k++) {
            if (seam && k > 0 && k < steps) continue;
            float t = (float)k / (float)steps;
            int32_t x, y;
            th_navmap_cell_of(&p->view, th_v2(a.x + dx * t, a.y + dy * t), &x, &y);
            int32_t cx = x / (int32_t)p->C, cy = y / (int32_t)p->C;
            for (int32_t j = cy - 1; j <= cy + 1; j++) {
                for (int32_t i2 = cx - 1; i2 <= cx + 1; i2++) {
                    if (i2 < 0 || j < 0 || i2 >= (int32_t)p->cw || j >= (int32_t)ch) continue;
                    uint32_t *c = p->corr + (uint32_t)j * p->cw + (uint32_t)i2;
                    if (*c != p->corr_val) {
                        *c = p->corr_val;
                        marked++;
                    }
                }
            }
        }
    }
    return marked < p->ncl;
}

static void start_stage(th_planner *p) {
    uint32_t s = p->im_slot;
    if (p->im_stage == 1 && (p->status[s] != TH_PLAN_DONE || !corridor(p, s))) p->im_stage = 2;
    uint32_t a = th_navmap_cell_of(&p->view, p->from[s], NULL, NULL);
    uint32_t b = th_navmap_cell_of(&p->view, p->to[s], NULL, NULL);
    th_pg_start(&p->grid, &p->view, a, b, p->units[s], p->im_stage == 1 ? p->corr : NULL,
                p->corr_val, p->C, p->cw);
}

/* The search of the current stage ended: keep a cheaper path, go on or finish. */
static void end_stage(th_planner *p) {
    uint32_t s = p->im_slot;
    if (p->grid.found) {
        uint32_t len = th_pg_path(&p->grid, p->grid.goal, p->path, p->grid.ncells);
        th_plan_store(p, s, p->path, len, th_pg_cost(&p->grid, p->grid.goal));
    }
    p->iters[s] = (uint8_t)p->im_stage;
    if (p->im_stage == 1) {
        p->im_stage = 2;
        start_stage(p);
        return;
    }
    p->any[s] |= TH_PA_FINAL;
    set_pending(p, s, false);
}

uint64_t th_plan_anytime_run(th_planner *p, uint64_t budget) {
    uint64_t used = 0;
    while (used < budget) {
        if (!p->im_active) {
            uint32_t s;
            if (!pick(p, &s)) break;
            p->im_active = true;
            p->im_slot = s;
            p->im_stage = 1;
            start_stage(p);
        }
        used += th_pg_run(&p->grid, &p->view, budget - used);
        if (p->grid.state == TH_PG_DONE) end_stage(p);
    }
    p->improve_expanded += used;
    return used;
}

void th_plan_anytime_restart(th_planner *p) {
    if (p->im_active) start_stage(p);
}

bool th_planner_set_anytime(th_planner *p, th_plan_id id, bool anytime, th_error *err) {
    const int64_t s = th_plan_request(p, id, err);
    if (s < 0) return false;
    uint32_t u = (uint32_t)s;
    if (!anytime) {
        set_pending(p, u, false);
        p->any[u] &= (uint8_t)~TH_PA_ANYTIME;
        return true;
    }
    p->any[u] |= TH_PA_ANYTIME;
    if (p->any[u] & TH_PA_FINAL) return true;
    th_plan_status st = (th_plan_status)p->status[u];
    if (st == TH_PLAN_DONE || st == TH_PLAN_TOO_LONG) set_pending(p, u, true);
    else if (st == TH_PLAN_UNREACHABLE) p->any[u] |= TH_PA_FINAL;
    return true;
}

bool th_planner_get_progress(const th_planner *p, th_plan_id id, th_plan_progress *out,
                             th_error *err) {
    if (!out) {
        th_error_set(err, TH_ERR_INVALID, "planner: no output");
        return false;
    }
    const int64_t s = th_plan_request(p, id, err);
    if (s < 0) return false;
    out->anytime = (p->any[s] & TH_PA_ANYTIME) != 0;
    out->final = (p->any[s] & TH_PA_FINAL) != 0;
    out->iterations = p->iters[s];
    out->first_cost = p->first[s];
    return true;
}
