/* IDA* on the navigation grid: A*'s graph, costs and lower bound, with memory for one route.
 *
 * A* keeps a record for every cell it reaches (17 bytes per cell of the map for its context).
 * IDA* (Korf, "Depth-first iterative-deepening", 1985) keeps only the route it is following:
 * each pass is a depth-first walk over the routes whose f = g + h stays within a bound, and
 * the next pass raises the bound to the least f that went past it (here at least 1/64 more,
 * with branch and bound inside a pass: see pass()). With an admissible h the route it keeps
 * costs what A*'s does. The price is time: without a closed set a cell is
 * expanded once per route that reaches it within the bound, so open ground with walls (many
 * routes of equal cost) costs far more expansions than A*, and each pass repeats the last.
 * The expansion budget is what keeps that from running away on a large map.
 *
 * A route never revisits a cell: moves into a cell already on it are skipped (a scan of the
 * route, O(d) per move). Costs are positive, so such a move never starts a cheaper route, and
 * the scan bounds the depth by the open cells.
 *
 * An 8-connected grid has a great many routes of equal cost (E then NE reaches where NE then
 * E does), and plain IDA* follows every one: a 12 x 12 map with one wall took over 50 million
 * expansions. So a route is followed only in its canonical form, judged on its last two grid
 * moves p -> c -> n: it is dropped when p reaches n as cheaply in one move, or more cheaply
 * through another cell c', or as cheaply through a c' whose move pair comes first in move
 * order. Each rule swaps the pair for one smaller in (cost, moves, move sequence in move
 * order); the route least in that order to the goal is optimal (a cheaper one would be less)
 * and no rule drops it, so it is still found, in the pass whose bound reaches its cost. All
 * that takes is the route's last two moves, so memory stays O(d). */
#include <stdlib.h>
#include <string.h>

#include "engine/alloc.h"
#include "engine/check.h"
#include "sim/nav/nav.h"

#define NO_BOUND UINT64_MAX

/* What one search reads, fixed for its duration. */
typedef struct ida_query {
    const th_navmap *m;
    int32_t off[8];     /* index offset of each move */
    int32_t gx, gy;     /* goal cell */
    uint32_t goal;      /* goal index */
    uint32_t cmin;      /* smallest cell cost: the octile bound's scale */
    bool octile;        /* false on maps with glued edges (the octile bound can overestimate) */
    const uint32_t *lm; /* landmark rows, NULL when none are usable */
    uint32_t gl[TH_ASTAR_LANDMARKS]; /* the goal's landmark distances */
    uint32_t on[TH_ASTAR_LANDMARKS]; /* all ones for landmarks finite at both ends */
    int8_t move[3][3];               /* grid move k taking (dx + 1, dy + 1) */
} ida_query;

/* A*'s bound, restated: octile distance times the cheapest edge, raised by the landmarks'
 * triangle bound |d(L, n) - d(L, goal)|. Both are admissible, which is all IDA* needs. */
static uint32_t bound_of(const ida_query *q, uint32_t c) {
    uint32_t h = 0;
    if (q->octile) {
        uint32_t w = (uint32_t)q->m->w;
        uint32_t dx = (uint32_t)abs((int32_t)(c % w) - q->gx);
        uint32_t dy = (uint32_t)abs((int32_t)(c / w) - q->gy);
        uint32_t lo = dx < dy ? dx : dy, hi = dx < dy ? dy : dx;
        h = 2u * q->cmin * (TH_NAV_STEP_DIAG * lo + TH_NAV_STEP_STRAIGHT * (hi - lo));
    }
    if (q->lm) {
        const uint32_t *row = q->lm + (size_t)c * TH_ASTAR_LANDMARKS;
        for (int k = 0; k < TH_ASTAR_LANDMARKS; k++) {
            uint32_t v = row[k], d = v > q->gl[k] ? v - q->gl[k] : q->gl[k] - v;
            d &= q->on[k];
            h = d > h ? d : h;
        }
    }
    return h;
}

/* Landmarks usable between start and goal. A landmark finite at one end and not at the other
 * proves the two lie in different regions (its field covers exactly its own region): false. */
static bool use_landmarks(ida_query *q, const uint32_t *lm, uint32_t start) {
    q->lm = NULL;
    if (!lm) return true;
    const uint32_t *rs = lm + (size_t)start * TH_ASTAR_LANDMARKS;
    const uint32_t *rg = lm + (size_t)q->goal * TH_ASTAR_LANDMARKS;
    for (int k = 0; k < TH_ASTAR_LANDMARKS; k++) {
        bool fs = th_nav_reachable(rs[k]), fg = th_nav_reachable(rg[k]);
        if (fs != fg) return false;
        q->gl[k] = rg[k];
        q->on[k] = fs && fg ? UINT32_MAX : 0u;
        if (fs && fg) q->lm = lm;
    }
    return true;
}

/* An array of `n` elements of `size` bytes grown to `cap`, the first `n` kept; NULL when out of
 * memory (the old array is then left as it was). */
static void *grown(void *old, size_t n, size_t cap, size_t size) {
    void *p = th_alloc(cap * size);
    if (!p) return NULL;
    if (n) memcpy(p, old, n * size);
    th_free(old);
    return p;
}

/* Room for one more depth beyond `depth`: the route arrays double when full. */
static bool room(th_ida *ida, uint32_t depth) {
    if (depth + 1u < ida->cap) return true;
    if (ida->cap > UINT32_MAX / 2u) return false;
    const uint32_t cap = ida->cap ? ida->cap * 2u : 64u;
    uint32_t *cell = grown(ida->cell, ida->cap, cap, sizeof *cell);
    if (!cell) return false;
    ida->cell = cell;
    uint32_t *g = grown(ida->g, ida->cap, cap, sizeof *g);
    if (!g) return false;
    ida->g = g;
    uint8_t *next = grown(ida->next, ida->cap, cap, sizeof *next);
    if (!next) return false;
    ida->next = next;
    uint32_t *path = grown(ida->path, ida->cap, cap, sizeof *path);
    if (!path) return false;
    ida->path = path;
    ida->cap = cap;
    return true;
}

/* The move tried `k`-th from cell c (0..7 grid moves, 8.. glued edges): the cell it leads to
 * and its cost from c; false when k is past the last move. `n` is UINT32_MAX for a move the
 * map does not allow (try the next k). */
static bool move_of(const ida_query *q, uint32_t c, uint32_t k, uint32_t *n, uint32_t *w) {
    const th_navmap *m = q->m;
    *n = UINT32_MAX;
    if (k < 8) {
        if (!(m->moves[c] & (1u << k))) return true;
        *n = (uint32_t)((int32_t)c + q->off[k]);
        *w = (m->cost[c] + m->cost[*n]) * (k < 4 ? TH_NAV_STEP_STRAIGHT : TH_NAV_STEP_DIAG);
        return true;
    }
    if (!(m->flags[c] & TH_NAV_FLAG_LINK)) return false;
    uint32_t nl = 0;
    const th_nav_link *l = th_navmap_links_of(m, c, &nl);
    if (k - 8u >= nl) return false;
    if (m->cost[l[k - 8u].to] == 0) return true;
    *n = l[k - 8u].to;
    *w = (m->cost[c] + m->cost[*n]) * TH_NAV_STEP_STRAIGHT;
    return true;
}

/* Cost units of grid move k between cells a and b. */
static uint32_t step_cost(const th_navmap *m, uint32_t a, uint32_t b, int k) {
    return (m->cost[a] + m->cost[b]) * (k < 4 ? TH_NAV_STEP_STRAIGHT : TH_NAV_STEP_DIAG);
}

/* Whether grid move k2 from the route's last cell into n, costing w2, ends a pair of moves that
 * is not canonical (see the file comment). Glued edges are never judged nor used instead. */
static bool redundant(const ida_query *q, const th_ida *ida, uint32_t depth, uint32_t k2,
                      uint32_t n, uint32_t w2) {
    if (depth == 0 || k2 >= 8u) return false;
    const uint32_t k1 = ida->next[depth - 1] - 1u; /* the move that reached the last cell */
    if (k1 >= 8u) return false;
    const th_navmap *m = q->m;
    const uint32_t w = (uint32_t)m->w, p = ida->cell[depth - 1];
    const uint32_t two = ida->g[depth] - ida->g[depth - 1] + w2;
    const int32_t px = (int32_t)(p % w), py = (int32_t)(p / w);
    const int32_t nx = (int32_t)(n % w), ny = (int32_t)(n / w);
    if (abs(nx - px) <= 1 && abs(ny - py) <= 1) {
        const int j = q->move[nx - px + 1][ny - py + 1];
        if ((m->moves[p] & (1u << j)) && step_cost(m, p, n, j) <= two) return true;
    }
    for (uint32_t j1 = 0; j1 < 8u; j1++) {
        if (j1 == k1 || !(m->moves[p] & (1u << j1))) continue;
        const int32_t mx = px + th_nav_move_dx[j1], my = py + th_nav_move_dy[j1];
        const int32_t dx = nx - mx, dy = ny - my;
        if (abs(dx) > 1 || abs(dy) > 1 || (dx == 0 && dy == 0)) continue;
        const uint32_t c = (uint32_t)my * w + (uint32_t)mx;
        const int j2 = q->move[dx + 1][dy + 1];
        if (!(m->moves[c] & (1u << j2))) continue;
        const uint32_t alt = step_cost(m, p, c, (int)j1) + step_cost(m, c, n, j2);
        if (alt < two || (alt == two && j1 < k1)) return true;
    }
    return false;
}

static bool on_route(const th_ida *ida, uint32_t depth, uint32_t n) {
    for (uint32_t i = 0; i <= depth; i++) {
        if (ida->cell[i] == n) return true;
    }
    return false;
}

/* One depth-first pass within `bound`. A goal reached is kept in ida->path and the bound drops
 * below its cost, so the pass goes on for cheaper routes only (branch and bound): when it ends
 * the route kept is the cheapest, as every route cheaper than the one kept stayed in bound.
 * TH_NAV_OK when a route was kept, else TH_NAV_ENOPATH with *over the least f past the bound
 * (NO_BOUND when nothing went past it), or TH_NAV_ELIMIT / TH_NAV_ENOMEM. */
static int pass(th_ida *ida, const ida_query *q, uint32_t start, uint64_t bound, uint64_t budget,
                uint64_t *over) {
    *over = NO_BOUND;
    uint32_t depth = 0;
    ida->cell[0] = start;
    ida->g[0] = 0;
    ida->next[0] = 0;
    ida->expanded++;
    for (;;) {
        const uint32_t c = ida->cell[depth];
        if (c == q->goal && ida->next[depth] == 0) {
            memcpy(ida->path, ida->cell, (depth + 1u) * sizeof *ida->path);
            ida->len = depth + 1u;
            ida->cost = ida->g[depth];
            if (ida->g[depth] == 0) return TH_NAV_OK; /* start == goal */
            bound = ida->g[depth] - 1u;
            ida->next[depth] = UINT8_MAX; /* no route goes on past the goal */
        }
        uint32_t n, w;
        if (ida->next[depth] == UINT8_MAX || !move_of(q, c, ida->next[depth], &n, &w)) {
            if (depth == 0) return ida->len ? TH_NAV_OK : TH_NAV_ENOPATH;
            depth--; /* every move tried: back up */
            continue;
        }
        ida->next[depth]++;
        if (n == UINT32_MAX) continue;
        const uint64_t g = (uint64_t)ida->g[depth] + w;
        if (g > TH_NAV_DIST_MAX || on_route(ida, depth, n)) continue;
        if (redundant(q, ida, depth, ida->next[depth] - 1u, n, w)) continue;
        const uint64_t f = g + bound_of(q, n);
        if (f > bound) {
            if (f < *over) *over = f;
            continue;
        }
        if (ida->expanded >= budget) return TH_NAV_ELIMIT;
        if (!room(ida, depth)) return TH_NAV_ENOMEM;
        depth++;
        ida->cell[depth] = n;
        ida->g[depth] = (uint32_t)g;
        ida->next[depth] = 0;
        ida->expanded++;
        if (depth + 1u > ida->deepest) ida->deepest = depth + 1u;
    }
}

int th_ida_find(th_ida *ida, const th_navmap *m, const th_astar_ctx *bounds, int32_t sx, int32_t sy,
                int32_t gx, int32_t gy, uint64_t max_expansions, uint32_t *cost) {
    if (cost) *cost = TH_NAV_UNREACHABLE;
    if (!ida || !m || !m->cost) return TH_NAV_EINVAL;
    ida->len = 0;
    ida->cost = TH_NAV_UNREACHABLE;
    ida->expanded = 0;
    ida->passes = 0;
    ida->deepest = 0;
    if (max_expansions == 0 || max_expansions > TH_IDA_MAX_EXPANSIONS) return TH_NAV_ERANGE;
    if (!TH_ASSERT(!m->moves_stale)) return TH_NAV_EINVAL;
    if (th_navmap_is_blocked(m, sx, sy) || th_navmap_is_blocked(m, gx, gy)) return TH_NAV_ENOPATH;
    ida_query q = {.m = m, .gx = gx, .gy = gy, .cmin = th_navmap_min_cost(m)};
    q.goal = (uint32_t)gy * (uint32_t)m->w + (uint32_t)gx;
    /* Across glued edges the octile bound can overestimate, as for A*. */
    q.octile = m->link_count == 0;
    for (int k = 0; k < 8; k++) {
        q.off[k] = th_nav_move_dy[k] * m->w + th_nav_move_dx[k];
        q.move[th_nav_move_dx[k] + 1][th_nav_move_dy[k] + 1] = (int8_t)k;
    }
    const uint32_t start = (uint32_t)sy * (uint32_t)m->w + (uint32_t)sx;
    if (!use_landmarks(&q, th_astar_landmarks(bounds, m), start)) return TH_NAV_ENOPATH;
    if (!room(ida, 0)) return TH_NAV_ENOMEM;
    ida->deepest = 1;
    uint64_t bound = bound_of(&q, start);
    for (;;) {
        ida->passes++;
        uint64_t over;
        int rc = pass(ida, &q, start, bound, max_expansions, &over);
        if (rc == TH_NAV_OK && cost) *cost = ida->cost;
        if (rc != TH_NAV_ENOPATH) {
            if (rc != TH_NAV_OK) ida->len = 0; /* a route kept before giving up is no answer */
            return rc;
        }
        if (over == NO_BOUND) return TH_NAV_ENOPATH; /* every route within reach was followed */
        /* Plain IDA* raises the bound to `over`, one pass per distinct f: on weighted terrain
         * that made thousands of passes on a 7 x 8 map. Raising it by at least 1/64 bounds the
         * passes by the logarithm of cost / h(start); the overshoot costs at most 1/64 more
         * bound, and branch and bound keeps the answer exact. */
        bound = over > bound + bound / 64u ? over : bound + bound / 64u;
    }
}

void th_ida_free(th_ida *ida) {
    if (!ida) return;
    th_free(ida->cell);
    th_free(ida->g);
    th_free(ida->next);
    th_free(ida->path);
    memset(ida, 0, sizeof *ida);
}
