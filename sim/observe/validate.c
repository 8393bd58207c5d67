/* Invariant checks, run inside every step when validation is on (`throng run --validate`).
 *
 * They are written from the contracts, not from the code that keeps them: no agent inside a
 * blocked cell and no body overlapping a wall or (beyond a tenth of a diameter) another body,
 * every position and velocity finite and inside the world, alive + sheltered + removed +
 * exited = spawned (and the exits' own counts adding up), bunker counts adding up, the id map a
 * bijection, and the grid agreeing with the positions it was built from. The first violation is
 * kept (step, agent, values) and the checks stop there.
 *
 * Under several ranks each rank checks what it holds (its own agents, its strip of the grid,
 * its ghosts as neighbours, its part of the id map), the totals are checked on values summed
 * over ranks, and an or over ranks of the id slots each holds shows every agent alive held by
 * exactly one rank. After every step the ranks agree on one violation (the earliest in the
 * step's order, on the lowest rank that found it: in one process's storage order, rank 0's
 * agents come first), so every rank reports the same one at the same step. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "engine/alloc.h"
#include "engine/hash.h"
#include "sim/behave/elevator.h"
#include "sim/core/world.h"
#include "sim/dist/dist.h"
#include "sim/dist/dist_serial.h"
#include "sim/observe/validate.h"
#include "sim/scenario/flow.h"

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
static bool grid_strip(th_world *w);

static bool grid_holds(th_world *w) {
    const th_grid *g = &w->grid;
    if (g->row_local) return grid_strip(w);
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

/* A strip's grid (engine/grid.h): local rows, the owned ones first, then the ghost rows; cells
 * keep their global numbers. Owned agents lie in owned rows, ghosts in ghost rows, each in its
 * cell's range. */
static bool grid_strip(th_world *w) {
    const th_grid *g = &w->grid;
    const th_agents *a = &w->buf[w->cur];
    const uint32_t nx = (uint32_t)g->nx, stored = w->count + w->ghosts;
    const uint32_t ncells = (uint32_t)g->rows_local * nx;
    const int rank = th_dist_rank(w);
    if (g->cell_start[0] != 0 || g->cell_start[ncells] != stored) {
        return violated(w, "grid covers %u agents, rank %d holds %u (%u its own, %u ghosts)",
                        g->cell_start[ncells], rank, stored, w->count, w->ghosts);
    }
    for (uint32_t k = 0; k < stored; k++) {
        const bool own = k < w->count;
        const char *who = own ? "agent" : "ghost of agent";
        const int32_t cy = th_grid_cy(g, a->py[k]);
        const uint32_t cell = (uint32_t)cy * nx + (uint32_t)th_grid_cx(g, a->px[k]);
        if (w->cell[k] != cell) {
            return violated(
                w, "%s %u.%u at (%g, %g) is filed in grid cell %u, its position is in cell %u", who,
                a->id[k].index1, a->id[k].generation, (double)a->px[k], (double)a->py[k],
                w->cell[k], cell);
        }
        const int32_t row = g->row_local[cy];
        if (row < 0 || own != (row < g->rows_owned)) {
            return violated(w,
                            "%s %u.%u at (%g, %g) is in grid row %d, not one of rank %d's %s rows",
                            who, a->id[k].index1, a->id[k].generation, (double)a->px[k],
                            (double)a->py[k], cy, rank, own ? "own" : "ghost");
        }
        const uint32_t local = (uint32_t)row * nx + cell % nx;
        if (k < g->cell_start[local] || k >= g->cell_start[local + 1]) {
            return violated(w, "%s %u.%u (slot %u) lies outside its cell %u's range [%u, %u)", who,
                            a->id[k].index1, a->id[k].generation, k, cell, g->cell_start[local],
                            g->cell_start[local + 1]);
        }
    }
    return true;
}

/* The step's order of the checks, for the ranks to agree on the earliest violation. */
static bool found_in(th_world *w, bool ok, uint8_t phase) {
    if (w->validation_failed && !w->validation_phase) w->validation_phase = phase;
    return ok;
}

bool th_validate_grid(th_world *w) { return found_in(w, grid_holds(w), TH_VALIDATE_GRID); }

/* After the contacts phase (before the admit phase compacts storage): no two bodies overlap by
 * more than TH_MAX_OVERLAP of the smaller diameter, and no body overlaps a blocked cell or a
 * walled edge by more than 1% of its radius. Pairs are looked for in each agent's 3x3 block
 * of grid cells, which holds every body within reach (th_world_add_crowd sizes the cells). */
static bool bodies_hold(th_world *w) {
    const th_agents *a = &w->buf[w->cur];
    const float W = w->def.width, H = w->def.height;
    for (uint32_t i = 0; i < w->count; i++) {
        const float ri = th_body_radius(w, a, i);
        if (ri <= 0.0f || th_lift_riding(w, i)) continue; /* riders are in a car */
        const th_vec2 p = th_v2(a->px[i], a->py[i]);
        th_grid_span spans[TH_GRID_MAX_SPANS];
        const uint32_t nx = (uint32_t)w->grid.nx, cell = w->cell[i];
        const uint32_t ns =
            th_grid_block(&w->grid, (int32_t)(cell % nx), (int32_t)(cell / nx), 1, w->wrap, spans);
        for (uint32_t k = 0; k < ns; k++) {
            for (uint32_t j = spans[k].begin; j < spans[k].end; j++) {
                const float rj = th_body_radius(w, a, j);
                if (j <= i || rj <= 0.0f || th_lift_riding(w, j)) continue;
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

bool th_validate_bodies(th_world *w) { return found_in(w, bodies_hold(w), TH_VALIDATE_BODIES); }

/* Each agent stored here: finite, inside the world, in a crowd, within its speed, outside
 * blocked cells, mapped back by its id. */
static bool agents_hold(th_world *w) {
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
    return true;
}

/* Bunkers, exits and spawners adding up with `alive` agents in the whole world. */
static bool totals_hold(th_world *w, uint64_t alive) {
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
    if (alive + w->stats.sheltered + w->stats.removed + w->stats.exited != w->spawned) {
        return violated(w, "%llu alive + %u sheltered + %u removed + %u exited != %u spawned",
                        (unsigned long long)alive, w->stats.sheltered, w->stats.removed,
                        w->stats.exited, w->spawned);
    }
    if (w->flow) {
        char msg[256];
        if (!th_flow_validate(w, msg, sizeof msg)) return violated(w, "%s", msg);
    }
    return true;
}

static bool state_ranks(th_world *w);

/* After a whole step. */
bool th_validate_state(th_world *w) {
    if (th_dist_ranks(w) > 1) return state_ranks(w);
    if (!agents_hold(w) || !totals_hold(w, w->count)) return false;
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

/* ---- several ranks ------------------------------------------------------------------------ */

/* This rank's part of the id map: ids map only to its own agents (never to a ghost), as many
 * as it holds, and free slots to none. */
static bool ids_hold_here(th_world *w) {
    uint32_t mapped = 0;
    for (uint32_t s = 0; s < w->id_top; s++) {
        const uint32_t k = w->slot_of_id[s];
        if (k != UINT32_MAX && k >= w->count) {
            return violated(w, "id slot %u maps to storage slot %u, past rank %d's %u agents", s, k,
                            th_dist_rank(w), w->count);
        }
        mapped += k != UINT32_MAX;
    }
    if (mapped != w->count) {
        return violated(w, "%u ids map to a slot on rank %d, which holds %u agents", mapped,
                        th_dist_rank(w), w->count);
    }
    for (uint32_t i = 0; i < w->id_free_count; i++) {
        if (w->id_free[i] >= w->id_top || w->slot_of_id[w->id_free[i]] != UINT32_MAX) {
            return violated(w, "free id slot %u is out of range or holds an agent", w->id_free[i]);
        }
    }
    return true;
}

/* What every rank holds identically and a step changes: counts, the id table's size and free
 * list, bunkers. */
static uint64_t replicated_hash(const th_world *w) {
    th_hasher h = th_hash_begin();
    th_hash_u64(&h, w->step);
    th_hash_u32(&h, w->spawned);
    th_hash_u32(&h, w->total);
    th_hash_u32(&h, w->stats.sheltered);
    th_hash_u32(&h, w->stats.removed);
    th_hash_u32(&h, w->stats.exited);
    th_hash_u32(&h, w->id_top);
    th_hash_u32(&h, w->id_free_count);
    for (uint32_t i = 0; i < w->id_free_count; i++) th_hash_u32(&h, w->id_free[i]);
    for (uint32_t b = 0; b < w->nav.bunker_count; b++) {
        const th_bunker *bk = &w->nav.bunker[b];
        th_hash_u32(&h, bk->sheltered);
        th_hash_u32(&h, (uint32_t)bk->full << 1 | (uint32_t)bk->destroyed);
    }
    return h.h;
}

/* A 64-bit value in words [0, 2) and its complement in [2, 4): after an or over ranks, a bit on
 * which two ranks' values differ is set in both halves, and equal values give back themselves
 * and their complements. */
static void put_agreement(uint32_t *at, uint64_t v) {
    at[0] = (uint32_t)v;
    at[1] = (uint32_t)(v >> 32);
    at[2] = ~at[0];
    at[3] = ~at[1];
}

static bool agreed(const uint32_t *at) { return !((at[0] & at[2]) | (at[1] & at[3])); }

/* `held`: the or over ranks of the id slots each holds (words of 32), then of the call hash and
 * of the replicated values' hash (put_agreement). `alive`: agents summed over ranks. Every rank
 * computes the same verdict from the same values. */
static bool ranks_agree(th_world *w, uint32_t *held, uint32_t words, uint64_t alive) {
    if (!agreed(held + words)) {
        return violated(w, "the ranks made different calls that add or remove agents or schedule "
                           "events (every rank must make the same ones, in the same order)");
    }
    if (!agreed(held + words + 4)) {
        return violated(w, "the ranks disagree on the values every rank holds (counts, the id "
                           "free list, bunkers)");
    }
    /* No rank holds a free slot; with the free slots marked, every slot used is marked. */
    for (uint32_t i = 0; i < w->id_free_count; i++) {
        const uint32_t s = w->id_free[i];
        if (s >= w->id_top) continue; /* reported by ids_hold_here on every rank */
        if (held[s / 32] >> (s % 32) & 1u) {
            return violated(w, "free id slot %u is held by a rank (or listed twice)", s);
        }
        held[s / 32] |= 1u << (s % 32);
    }
    for (uint32_t s = 0; s < w->id_top; s++) {
        if (!(held[s / 32] >> (s % 32) & 1u)) {
            return violated(w, "agent %u.%u is alive, and no rank holds it", s + 1u, w->id_gen[s]);
        }
    }
    /* Every agent alive is held by one rank at least: as many held as alive is one each. */
    if (alive + w->id_free_count != w->id_top) {
        return violated(w,
                        "%llu agents held by the ranks + %u free id slots != %u id slots used "
                        "(an agent held by two ranks)",
                        (unsigned long long)alive, w->id_free_count, w->id_top);
    }
    return true;
}

/* The ranks agree on one violation: the earliest in the step's order, on the lowest rank
 * that found one. Collective; `any` is the same on every rank. */
typedef struct shared_violation {
    uint32_t phase;
    char text[sizeof(((th_world *)0)->validation_error)];
} shared_violation;

static void share(th_world *w, bool any) {
    if (!any) return;
    shared_violation mine = {.phase = w->validation_phase};
    memcpy(mine.text, w->validation_error, sizeof mine.text);
    void *buf = NULL;
    uint32_t cap = 0, n = 0;
    /* Only in a step that found a violation: allocating here is allowed. */
    const shared_violation *all = th_dist_gather_all(w, &mine, w->validation_failed ? 1u : 0u,
                                                     sizeof mine, &buf, &cap, 0, &n);
    const shared_violation *first = NULL;
    for (uint32_t i = 0; all && i < n; i++)
        if (!first || all[i].phase < first->phase) first = &all[i];
    if (first) {
        w->validation_failed = true;
        w->validation_phase = (uint8_t)first->phase;
        memcpy(w->validation_error, first->text, sizeof w->validation_error);
        w->validation_error[sizeof w->validation_error - 1] = '\0';
    }
    th_free(buf);
}

static bool state_ranks(th_world *w) {
    const uint32_t top = w->id_top, words = (top + 31u) / 32u;
    if (!th_dist_room((void **)&w->validation_bits, &w->validation_bits_cap, sizeof(uint32_t),
                      words + 8u))
        th_dist_out_of_memory(w, "for validation");
    uint32_t *held = w->validation_bits;
    memset(held, 0, (size_t)words * sizeof *held);
    const th_agents *a = &w->buf[w->cur];
    for (uint32_t k = 0; k < w->count; k++) {
        const uint32_t s = th_id_slot(a->id[k]);
        if (s < top) held[s / 32] |= 1u << (s % 32);
    }
    put_agreement(held + words, w->call_hash);
    put_agreement(held + words + 4, replicated_hash(w));
    found_in(w, agents_hold(w) && ids_hold_here(w), TH_VALIDATE_AGENTS);
    uint64_t v[2] = {w->count, w->validation_failed};
    th_dist_sum_u64(w, v, 2);
    th_dist_or_u32(w, held, words + 8u);
    /* The totals only where no rank found a fault in what it holds, as one process stops at
     * its first. They read replicated and summed values: every rank finds the same, unless the
     * replicated values went astray on one, which then alone fails: the or below brings every
     * rank to the same collective. */
    if (v[1] == 0)
        found_in(w, ranks_agree(w, held, words, v[0]) && totals_hold(w, v[0]), TH_VALIDATE_TOTALS);
    share(w, th_dist_any(w, w->validation_failed));
    return !w->validation_failed;
}

void th_world_set_validation(th_world *w, bool on) {
    if (!w) return;
    w->validate = on;
    w->validation_failed = false;
    w->validation_phase = 0;
    w->validation_error[0] = '\0';
}

const char *th_world_validation_error(const th_world *w) {
    if (!w) return NULL;
    return w->validation_failed ? w->validation_error : NULL;
}
