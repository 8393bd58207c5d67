/* Exact searches on the cells for the public planner (plan_private.h): a resumable A* or
 * Dijkstra with an indexed binary heap, kept to a corridor of clusters and cut at a cost bound
 * on request. Moves and costs are the navigation layer's (nav.h), glued edges (stairs)
 * included; on a map with them the octile bound can overestimate, so the A* bound is 0 there
 * (Dijkstra toward the goal, still cut at the cost bound), as astar.c without landmarks. Ties in
 * the heap go to the larger g, then the lower cell index, so a search is the same whatever its
 * budgets were. */
#include <stdlib.h>
#include <string.h>

#include "engine/alloc.h"
#include "sim/nav/plan_private.h"

#define CLOSED UINT32_MAX
#define OUT    (UINT32_MAX - 1u)

bool th_pg_init(th_plan_grid *g, int32_t w, int32_t h) {
    memset(g, 0, sizeof *g);
    g->w = w;
    g->h = h;
    g->ncells = (uint32_t)w * (uint32_t)h;
    size_t n = g->ncells;
    /* Written only where searches reach: untouched pages stay unbacked. */
    g->g = th_alloc(n * sizeof *g->g);
    g->f = th_alloc(n * sizeof *g->f);
    g->stamp = th_calloc(n, sizeof *g->stamp);
    g->pos = th_alloc(n * sizeof *g->pos);
    g->heap = th_alloc(n * sizeof *g->heap);
    g->move = th_alloc(n * sizeof *g->move);
    return g->g && g->f && g->stamp && g->pos && g->heap && g->move;
}

void th_pg_free(th_plan_grid *g) {
    th_free(g->g);
    th_free(g->f);
    th_free(g->stamp);
    th_free(g->pos);
    th_free(g->heap);
    th_free(g->move);
    memset(g, 0, sizeof *g);
}

static inline bool before(const th_plan_grid *g, uint32_t a, uint32_t b) {
    if (g->f[a] != g->f[b]) return g->f[a] < g->f[b];
    if (g->g[a] != g->g[b]) return g->g[a] > g->g[b];
    return a < b;
}

static void sift_up(th_plan_grid *g, uint32_t i) {
    uint32_t c = g->heap[i];
    while (i > 0) {
        uint32_t up = (i - 1u) / 2u;
        if (!before(g, c, g->heap[up])) break;
        g->heap[i] = g->heap[up];
        g->pos[g->heap[i]] = i;
        i = up;
    }
    g->heap[i] = c;
    g->pos[c] = i;
}

static void sift_down(th_plan_grid *g, uint32_t i) {
    uint32_t c = g->heap[i];
    for (;;) {
        uint32_t l = 2u * i + 1u, best = i;
        uint32_t bc = c;
        if (l < g->n && before(g, g->heap[l], bc)) best = l, bc = g->heap[l];
        if (l + 1u < g->n && before(g, g->heap[l + 1u], bc)) best = l + 1u, bc = g->heap[l + 1u];
        if (best == i) break;
        g->heap[i] = bc;
        g->pos[bc] = i;
        i = best;
    }
    g->heap[i] = c;
    g->pos[c] = i;
}

static uint32_t bound_to_goal(const th_plan_grid *g, uint32_t c) {
    if (g->goal == TH_PG_NONE || g->glued) return 0;
    uint32_t W = (uint32_t)g->w;
    int32_t dx = abs((int32_t)(c % W) - (int32_t)(g->goal % W));
    int32_t dy = abs((int32_t)(c / W) - (int32_t)(g->goal / W));
    uint32_t lo = (uint32_t)(dx < dy ? dx : dy), hi = (uint32_t)(dx < dy ? dy : dx);
    return 2u * g->cmin * (TH_NAV_STEP_DIAG * lo + TH_NAV_STEP_STRAIGHT * (hi - lo));
}

static bool allowed(const th_plan_grid *g, uint32_t c) {
    if (!g->corr) return true;
    uint32_t W = (uint32_t)g->w;
    return g->corr[(c / W) / g->C * g->cw + (c % W) / g->C] == g->corr_val;
}

void th_pg_start(th_plan_grid *g, const th_navmap *m, uint32_t start, uint32_t goal, uint32_t bound,
                 const uint32_t *corr, uint32_t corr_val, uint32_t C, uint32_t cw) {
    if (++g->cur == 0) {
        /* The stamp wrapped: forget every cell. */
        memset(g->stamp, 0, (size_t)g->ncells * sizeof *g->stamp);
        g->cur = 1;
    }
    g->start = start;
    g->goal = goal;
    g->bound = bound;
    g->cmin = th_navmap_min_cost(m);
    g->m = m;
    g->glued = m->link_count != 0;
    g->corr = corr;
    g->corr_val = corr_val;
    g->C = C;
    g->cw = cw;
    g->ntargets = 0;
    g->reached = 0;
    g->found = false;
    g->n = 0;
    g->state = TH_PG_DONE;
    if (start >= g->ncells || !m->cost[start]) return;
    g->stamp[start] = g->cur;
    g->g[start] = 0;
    g->f[start] = bound_to_goal(g, start);
    g->move[start] = 0xFFu;
    if (g->f[start] >= bound) return;
    g->heap[0] = start;
    g->pos[start] = 0;
    g->n = 1;
    g->state = TH_PG_RUNNING;
}

void th_pg_targets(th_plan_grid *g, const uint32_t *cells, uint32_t n) {
    if (n > TH_PLAN_MAX_REWARDS + 2u) n = TH_PLAN_MAX_REWARDS + 2u;
    memcpy(g->targets, cells, n * sizeof *cells);
    g->ntargets = n;
    g->reached = 0;
}

/* Reach cell nb from the expanded cell c by a move costing `step` (`move` says which, for
 * th_pg_path): queued or lowered when that beats what nb had and stays under the bound. */
static void relax(th_plan_grid *g, uint32_t c, uint32_t nb, uint64_t step, uint8_t move) {
    const uint64_t ng = (uint64_t)g->g[c] + step;
    if (ng > TH_NAV_DIST_MAX) return;
    const bool seen = g->stamp[nb] == g->cur;
    if (seen && (g->pos[nb] == CLOSED || ng >= g->g[nb])) return;
    const uint64_t nf = ng + bound_to_goal(g, nb);
    if (nf >= g->bound) return;
    if (!seen) {
        g->stamp[nb] = g->cur;
        g->pos[nb] = OUT;
    }
    g->g[nb] = (uint32_t)ng;
    g->f[nb] = (uint32_t)nf;
    g->move[nb] = move;
    if (g->pos[nb] == OUT) {
        g->heap[g->n] = nb;
        g->pos[nb] = g->n;
        g->n++;
    }
    sift_up(g, g->pos[nb]);
}

uint64_t th_pg_run(th_plan_grid *g, const th_navmap *m, uint64_t budget) {
    uint64_t used = 0;
    const uint32_t W = (uint32_t)g->w;
    while (g->state == TH_PG_RUNNING && used < budget) {
        if (g->n == 0) {
            g->state = TH_PG_DONE;
            break;
        }
        uint32_t c = g->heap[0];
        g->n--;
        if (g->n) {
            g->heap[0] = g->heap[g->n];
            sift_down(g, 0);
        }
        g->pos[c] = CLOSED;
        used++;
        if (c == g->goal) {
            g->found = true;
            g->state = TH_PG_DONE;
            break;
        }
        if (g->goal == TH_PG_NONE && g->ntargets) {
            for (uint32_t i = 0; i < g->ntargets; i++) g->reached += g->targets[i] == c;
            if (g->reached >= g->ntargets) {
                g->state = TH_PG_DONE;
                break;
            }
        }
        const int32_t x = (int32_t)(c % W), y = (int32_t)(c / W);
        const unsigned mask = m->moves[c];
        for (unsigned k = 0; k < 8; k++) {
            if (!(mask & (1u << k))) continue;
            uint32_t nb = (uint32_t)(y + th_nav_move_dy[k]) * W + (uint32_t)(x + th_nav_move_dx[k]);
            if (!allowed(g, nb)) continue;
            relax(g, c, nb,
                  (uint64_t)(m->cost[c] + m->cost[nb]) *
                      (k < 4 ? TH_NAV_STEP_STRAIGHT : TH_NAV_STEP_DIAG),
                  (uint8_t)k);
        }
        if (!g->glued || !(m->flags[c] & TH_NAV_FLAG_LINK)) continue;
        /* Glued edges: a straight move into the cell across the seam; move 8 + dir says
         * which (th_pg_path goes back over the glued edge the other way). */
        uint32_t nl = 0;
        const th_nav_link *l = th_navmap_links_of(m, c, &nl);
        for (uint32_t i = 0; i < nl; i++) {
            const uint32_t nb = l[i].to;
            if (!m->cost[nb] || !allowed(g, nb)) continue;
            relax(g, c, nb, (uint64_t)(m->cost[c] + m->cost[nb]) * TH_NAV_STEP_STRAIGHT,
                  (uint8_t)(8u + l[i].dir));
        }
    }
    g->expanded += used;
    return used;
}

uint32_t th_pg_cost(const th_plan_grid *g, uint32_t cell) {
    if (cell >= g->ncells || g->stamp[cell] != g->cur || g->pos[cell] != CLOSED)
        return TH_NAV_UNREACHABLE;
    return g->g[cell];
}

/* The cell that move `k` reached cell c from: the cell beside, or across c's own glued edge
 * opposite the one crossed (8 + dir). */
static uint32_t came_from(const th_plan_grid *g, uint32_t c, uint8_t k) {
    const uint32_t W = (uint32_t)g->w;
    if (k >= 8u) return th_navmap_link(g->m, c, (uint8_t)((k - 8u + 2u) & 3u))->to;
    return (uint32_t)((int32_t)(c / W) - th_nav_move_dy[k]) * W +
           (uint32_t)((int32_t)(c % W) - th_nav_move_dx[k]);
}

uint32_t th_pg_path(const th_plan_grid *g, uint32_t cell, uint32_t *out, uint32_t max) {
    if (th_pg_cost(g, cell) == TH_NAV_UNREACHABLE) return 0;
    uint32_t n = 1;
    for (uint32_t c = cell; c != g->start; n++) c = came_from(g, c, g->move[c]);
    if (n > max) return 0;
    uint32_t i = n, c = cell;
    for (;;) {
        out[--i] = c;
        if (c == g->start) break;
        c = came_from(g, c, g->move[c]);
    }
    return n;
}
