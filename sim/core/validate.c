/* Invariant checks, run inside every step when validation is on (`throng run --validate`).
 *
 * They are written from the contracts, not from the code that keeps them: no agent inside a
 * blocked cell and no body overlapping a wall or (beyond a tenth of a diameter) another body,
 * every position and velocity finite and inside the world, alive + sheltered + removed +
 * exited = spawned (and the exits' own counts adding up), bunker counts adding up, the id map a
 * bijection, and the grid agreeing with the positions it was built from. The first violation is
 * kept (step, agent, values) and the checks stop there. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "sim/core/flow.h"
#include "sim/core/validate.h"
#include "sim/core/world.h"

static bool violated(th_world *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool violated(th_world *w, const char *fmt, ...) {
    if (w->validation_failed) return false;
    w->validation_failed = true;
    int n = snprintf(w->validation_error, sizeof w->validation_error,
                     "step %llu: ", (unsigned long long)w->step);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->validation_error + n, sizeof w->validation_error - (size_t)n, fmt, ap);
    va_end(ap);
    return false;
}

/* Right after the grid phase: storage is sorted by cell, each agent's cell is the cell of its
 * position, and every cell's range holds exactly its agents. */
bool th_validate_grid(th_world *w) {
    const th_grid *g = &w->grid;
    /* A strip's grid maps rows (engine/grid.h): test_grid checks it against the full grid. */
    if (g->row_local) return true;
    const th_agents *a = &w->buf[w->cur];
    if (g->cell_start[0] != 0 || g->cell_start[g->ncells] != w->count) {
        return violated(w, "grid covers %u agents, the world holds %u", g->cell_start[g->ncells],
                        w->count);
    }
    for (uint32_t k = 0; k < w->count; k++) {
        uint32_t cell =
            (uint32_t)th_grid_cy(g, a->py[k]) * (uint32_t)g->nx + (uint32_t)th_grid_cx(g, a->px[k]);
        if (w->cell[k] != cell) {
            return violated(
                w, "agent %u.%u at (%g, %g) is filed in grid cell %u, its position is in cell %u",
                a->id[k].index1, a->id[k].generation, (double)a->px[k], (double)a->py[k],
                w->cell[k], cell);
        }
        if (k < g->cell_start[cell] || k >= g->cell_start[cell + 1]) {
            return violated(w, "agent %u.%u (slot %u) lies outside its cell %u's range [%u, %u)",
                            a->id[k].index1, a->id[k].generation, k, cell, g->cell_start[cell],
                            g->cell_start[cell + 1]);
        }
    }
    return true;
}

/* After the contacts phase (before the admit phase compacts storage): no two bodies overlap by
 * more than TH_MAX_OVERLAP of the smaller diameter, and no body overlaps a blocked cell or a
 * walled edge by more than 1% of its radius. Pairs are looked for in each agent's 3x3 block
 * of grid cells, which holds every body within reach (th_world_add_crowd sizes the cells). */
bool th_validate_bodies(th_world *w) {
    const th_agents *a = &w->buf[w->cur];
    const float W = w->def.width, H = w->def.height;
    for (uint32_t i = 0; i < w->count; i++) {
        const float ri = w->crowd_rt[a->crowd[i]].radius;
        if (ri <= 0.0f) continue;
        const th_vec2 p = th_v2(a->px[i], a->py[i]);
        th_grid_span spans[TH_GRID_MAX_SPANS];
        const uint32_t nx = (uint32_t)w->grid.nx, cell = w->cell[i];
        const uint32_t ns =
            th_grid_block(&w->grid, (int32_t)(cell % nx), (int32_t)(cell / nx), 1, w->wrap, spans);
        for (uint32_t k = 0; k < ns; k++) {
            for (uint32_t j = spans[k].begin; j < spans[k].end; j++) {
                const float rj = w->crowd_radius[a->crowd[j]];
                if (j <= i || rj <= 0.0f) continue;
                const th_vec2 d =
                    th_min_image(th_v2(a->px[j] - p.x, a->py[j] - p.y), w->wrap, W, H);
                const float overlap = ri + rj - th_v2_len(d);
                if (overlap > TH_MAX_OVERLAP * 2.0f * fminf(ri, rj)) {
                    return violated(
                        w,
                        "bodies of agents %u.%u and %u.%u overlap by %.3f m (at most %.3f allowed)",
                        a->id[i].index1, a->id[i].generation, a->id[j].index1, a->id[j].generation,
                        (double)overlap, (double)(TH_MAX_OVERLAP * 2.0f * fminf(ri, rj)));
                }
            }
        }
        float dist;
        th_vec2 away;
        if (th_nav_nearest_wall(w, p, ri, &dist, &away) && dist < 0.99f * ri) {
            return violated(w, "body of agent %u.%u at (%g, %g) overlaps a wall by %.3f m",
                            a->id[i].index1, a->id[i].generation, (double)p.x, (double)p.y,
                            (double)(ri - dist));
        }
    }
    return true;
}

/* After a whole step. */
bool th_validate_state(th_world *w) {
    const th_agents *a = &w->buf[w->cur];
    const float W = w->def.width, H = w->def.height;
    for (uint32_t k = 0; k < w->count; k++) {
        float x = a->px[k], y = a->py[k], vx = a->vx[k], vy = a->vy[k];
        th_agent_id id = a->id[k];
        if (!isfinite(x) || !isfinite(y) || !isfinite(vx) || !isfinite(vy) || !isfinite(w->ax[k]) ||
            !isfinite(w->ay[k])) {
            return violated(
                w, "agent %u.%u has a non-finite value: position (%g, %g), velocity (%g, %g)",
                id.index1, id.generation, (double)x, (double)y, (double)vx, (double)vy);
        }
        if (!(x >= 0.0f && x < W && y >= 0.0f && y < H)) {
            return violated(w, "agent %u.%u at (%g, %g) is outside the %g x %g world", id.index1,
                            id.generation, (double)x, (double)y, (double)W, (double)H);
        }
        if (a->crowd[k] >= w->crowd_count) {
            return violated(w, "agent %u.%u belongs to crowd %u of %u", id.index1, id.generation,
                            a->crowd[k], w->crowd_count);
        }
        const th_crowd_rt *c = &w->crowd_rt[a->crowd[k]];
        if (vx * vx + vy * vy > c->max_speed * c->max_speed * 1.0001f) {
            return violated(w, "agent %u.%u moves at %g m/s, faster than its crowd's %g", id.index1,
                            id.generation, (double)sqrtf(vx * vx + vy * vy), (double)c->max_speed);
        }
        if (w->nav.present && th_navmap_blocked_at(&w->nav.map, th_v2(x, y))) {
            return violated(w, "agent %u.%u at (%g, %g) is inside a blocked cell", id.index1,
                            id.generation, (double)x, (double)y);
        }
        if (th_id_slot(id) >= w->id_top || w->slot_of_id[th_id_slot(id)] != k ||
            w->id_gen[th_id_slot(id)] != id.generation) {
            return violated(w, "agent %u.%u in slot %u is not mapped back to it", id.index1,
                            id.generation, k);
        }
    }
    uint64_t sheltered = 0;
    for (uint32_t b = 0; b < w->nav.bunker_count; b++) {
        const th_bunker *bk = &w->nav.bunker[b];
        sheltered += bk->sheltered;
        if (bk->capacity && bk->sheltered > bk->capacity) {
            return violated(w, "bunker '%s' holds %u, over its capacity of %u", bk->name,
                            bk->sheltered, bk->capacity);
        }
        if (bk->capacity && bk->full != (bk->sheltered >= bk->capacity)) {
            return violated(w, "bunker '%s' is %s with %u of %u inside", bk->name,
                            bk->full ? "full" : "not full", bk->sheltered, bk->capacity);
        }
    }
    if (sheltered != w->stats.sheltered) {
        return violated(w, "bunkers hold %llu agents, the world counts %u sheltered",
                        (unsigned long long)sheltered, w->stats.sheltered);
    }
    if ((uint64_t)w->count + w->stats.sheltered + w->stats.removed + w->stats.exited !=
        w->spawned) {
        return violated(w, "%u alive + %u sheltered + %u removed + %u exited != %u spawned",
                        w->count, w->stats.sheltered, w->stats.removed, w->stats.exited,
                        w->spawned);
    }
    if (w->flow) {
        char msg[256];
        if (!th_flow_validate(w, msg, sizeof msg)) return violated(w, "%s", msg);
    }
    uint32_t mapped = 0;
    for (uint32_t s = 0; s < w->id_top; s++) mapped += w->slot_of_id[s] < w->count;
    if (mapped != w->count) {
        return violated(w, "%u ids map to a slot, %u agents are alive", mapped, w->count);
    }
    /* Every slot is held by an agent or free, never both: the free stack and the agents
     * alive together are the slots used. */
    if ((uint64_t)w->count + w->id_free_count != w->id_top) {
        return violated(w, "%u agents alive + %u free id slots != %u id slots used", w->count,
                        w->id_free_count, w->id_top);
    }
    for (uint32_t i = 0; i < w->id_free_count; i++) {
        if (w->id_free[i] >= w->id_top || w->slot_of_id[w->id_free[i]] != UINT32_MAX) {
            return violated(w, "free id slot %u is out of range or holds an agent", w->id_free[i]);
        }
    }
    return true;
}

void th_world_set_validation(th_world *w, bool on) {
    w->validate = on;
    w->validation_failed = false;
    w->validation_error[0] = '\0';
}

const char *th_world_validation_error(const th_world *w) {
    return w->validation_failed ? w->validation_error : NULL;
}
