/* A* on the navigation grid, line of sight, string pulling. */
#include "sim/nav/nav.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/alloc.h"
#include "engine/check.h"
#include "engine/jobs.h"

/* A* on an exact bucket queue. Keys are f = g + h in integer cost units; with a consistent
 * heuristic f never decreases along the expansion order, and every open cell's f lies within
 * one edge plus one heuristic step of the lowest (f(v) <= f(u) + w(u,v) + h(v) - h(u)), so a
 * ring of 2^19 one-unit buckets indexed by f mod 2^19 holds the open set without ambiguity. A
 * two-level bitmap finds the next non-empty bucket. Each bucket is an intrusive doubly linked
 * list through the cells (decrease-key unlinks in O(1), so a cell is queued at most once and
 * no entry pool is needed), pushed and popped at its head: among equal f the newest, usually
 * deepest, cell goes first, which is what keeps ties on uniform terrain from flooding. The
 * order is fully determined by the map and the query, so paths are reproducible.
 *
 * The binary heap this replaces cost ~200 ns per expansion (log n sift steps, each comparing
 * f and g through two scattered arrays); here an expansion is a few loads from one 16-byte
 * record per neighbour. Per-cell state is valid only where stamp == gen, so a query touches
 * only the cells it reaches. */
#define RING_BITS  19u
#define RING       (1u << RING_BITS)
#define RING_MASK  (RING - 1u)
#define NIL        UINT32_MAX
#define NOT_QUEUED UINT32_MAX        /* prev: never queued in this query */
#define CLOSED     (UINT32_MAX - 1u) /* prev: expanded */
#define AT_HEAD    (UINT32_MAX - 2u) /* prev: first in its bucket */

_Static_assert(RING > 2u * TH_NAV_MAX_EDGE + 2u * TH_NAV_UNITS_PER_CELL,
               "the ring must span the open set's spread of f");

typedef struct acell {
    uint32_t g;     /* cost from the start, units */
    uint32_t stamp; /* query that last touched the cell */
    uint32_t next;  /* next cell in its bucket, NIL at the tail */
    uint32_t prev;  /* previous cell in its bucket, or AT_HEAD, NOT_QUEUED, CLOSED */
} acell;

struct th_astar_ctx {
    int32_t w, h;
    uint32_t ncells;
    uint32_t gen;
    acell *cell;
    uint8_t *parent;               /* move that reached the cell */
    uint32_t *head;                /* RING bucket heads, NIL when empty (all NIL at rest) */
    uint64_t bits[RING / 64];      /* non-empty buckets */
    uint64_t summary[RING / 4096]; /* non-zero words of bits */
    /* Landmark (ALT) lower bounds: lm[c * TH_ASTAR_LANDMARKS + k] = exact cost between
     * landmark k and cell c. Cell-major, so one heuristic evaluation reads one 32-byte line
     * instead of eight scattered arrays. lm_cost is the cost map they were computed on: a
     * query whose map differs uses the octile bound alone, since a stale landmark distance
     * can overestimate and make the path inexact. */
    uint32_t *lm;
    uint16_t *lm_cost;
    uint32_t lm_links; /* glued edges of the map they were computed on */
    uint32_t nlm;      /* landmarks in use, 0 = octile only */
    uint64_t expanded; /* cells expanded by the last query */
};

th_astar_ctx *th_astar_create(const th_navmap *m) {
    if (!m || !m->cost) return NULL;
    th_astar_ctx *a = th_calloc(1, sizeof *a);
    if (!a) return NULL;
    a->w = m->w;
    a->h = m->h;
    a->ncells = m->ncells;
    a->cell = th_calloc(m->ncells, sizeof *a->cell);
    a->parent = th_alloc(sizeof *a->parent * m->ncells);
    a->head = th_alloc(sizeof *a->head * RING);
    if (!a->cell || !a->parent || !a->head) {
        th_astar_destroy(a);
        return NULL;
    }
    memset(a->head, 0xff, sizeof *a->head * RING);
    return a;
}

void th_astar_destroy(th_astar_ctx *a) {
    if (!a) return;
    th_free(a->cell);
    th_free(a->parent);
    th_free(a->head);
    th_free(a->lm);
    th_free(a->lm_cost);
    th_free(a);
}

/* Nearest open cell to (x, y) by growing square rings, each scanned row-major, so the choice
 * depends only on the map; false when the map has no open cell. */
static bool snap_open(const th_navmap *m, int32_t x, int32_t y, int32_t *ox, int32_t *oy) {
    int32_t rmax = m->w > m->h ? m->w : m->h;
    for (int32_t r = 0; r <= rmax; r++) {
        for (int32_t yy = y - r; yy <= y + r; yy++) {
            for (int32_t xx = x - r; xx <= x + r; xx++) {
                if (yy != y - r && yy != y + r && xx != x - r && xx != x + r) continue;
                if (xx < 0 || yy < 0 || xx >= m->w || yy >= m->h) continue;
                if (!th_navmap_is_blocked(m, xx, yy)) {
                    *ox = xx;
                    *oy = yy;
                    return true;
                }
            }
        }
    }
    return false;
}

/* A landmark's distances bound d(n, goal) only where they are the true costs. Fields drop
 * costs above TH_NAV_DIST_MAX as unreachable; a finite cell next to an unreachable open one
 * shows such a cut, and the landmark is then unusable (moves are symmetric, so otherwise a
 * connected region is either wholly finite or wholly unreachable). */
static bool field_uncut(const th_nav_field *f, const th_navmap *m) {
    for (uint32_t c = 0; c < m->ncells; c++) {
        if (!th_nav_reachable(f->dist[c])) continue;
        int32_t x = (int32_t)(c % (uint32_t)m->w), y = (int32_t)(c / (uint32_t)m->w);
        unsigned mask = m->moves[c];
        for (int k = 0; k < 8; k++) {
            if (!(mask & (1u << k))) continue;
            uint32_t n = (uint32_t)(y + th_nav_move_dy[k]) * (uint32_t)m->w +
                         (uint32_t)(x + th_nav_move_dx[k]);
            if (!th_nav_reachable(f->dist[n])) return false;
        }
        uint32_t nl = 0;
        const th_nav_link *l = th_navmap_links_of(m, c, &nl);
        for (uint32_t i = 0; i < nl; i++) {
            if (m->cost[l[i].to] != 0 && !th_nav_reachable(f->dist[l[i].to])) return false;
        }
    }
    return true;
}

int th_astar_landmarks_build(th_astar_ctx *a, const th_navmap *m, th_pool *pool, size_t budget) {
    if (!a || !m || !m->cost || a->w != m->w || a->h != m->h) return TH_NAV_EINVAL;
    a->nlm = 0;
    size_t need = (size_t)m->ncells * (TH_ASTAR_LANDMARKS * sizeof(uint32_t) + sizeof(uint16_t));
    if (need > budget) {
        /* Over budget: free what an earlier build kept and stay on the octile bound. */
        th_free(a->lm);
        th_free(a->lm_cost);
        a->lm = NULL;
        a->lm_cost = NULL;
        return 0;
    }
    if (!a->lm) a->lm = th_alloc(sizeof *a->lm * TH_ASTAR_LANDMARKS * (size_t)m->ncells);
    if (!a->lm_cost) a->lm_cost = th_alloc(sizeof *a->lm_cost * (size_t)m->ncells);
    if (!a->lm || !a->lm_cost) return TH_NAV_ENOMEM;

    /* Corners and edge midpoints: on a map's periphery, so most routes run roughly towards or
     * away from some landmark, where its bound is tight. */
    const int32_t W = m->w - 1, H = m->h - 1;
    const int32_t px[TH_ASTAR_LANDMARKS] = {0, W, 0, W, W / 2, W / 2, 0, W};
    const int32_t py[TH_ASTAR_LANDMARKS] = {0, 0, H, H, 0, H, H / 2, H / 2};
    uint32_t nw = pool ? th_pool_workers(pool) : 1u;
    /* One scratch per worker is needed; beyond eight workers they would cost more memory
     * than the eight fields are worth, so compute serially. */
    if (nw > TH_ASTAR_LANDMARKS) {
        nw = 1;
        pool = NULL;
    }
    th_nav_field f[TH_ASTAR_LANDMARKS];
    th_nav_scratch *s[TH_ASTAR_LANDMARKS];
    memset(f, 0, sizeof f);
    memset(s, 0, sizeof s);
    int rc = TH_NAV_OK;
    for (uint32_t i = 0; i < nw && rc == TH_NAV_OK; i++) {
        s[i] = th_nav_scratch_create(m);
        if (!s[i]) rc = TH_NAV_ENOMEM;
    }
    uint32_t kept = 0;
    for (uint32_t base = 0; base < TH_ASTAR_LANDMARKS && rc == TH_NAV_OK; base += nw) {
        uint32_t batch = TH_ASTAR_LANDMARKS - base < nw ? TH_ASTAR_LANDMARKS - base : nw;
        for (uint32_t i = 0; i < batch && rc == TH_NAV_OK; i++) {
            int32_t x, y;
            if (!f[i].dist) rc = th_nav_field_init(&f[i], m, 1);
            if (rc != TH_NAV_OK) break;
            if (!snap_open(m, px[base + i], py[base + i], &x, &y)) {
                rc = TH_NAV_ENOPATH; /* no open cell at all: nothing to bound */
                break;
            }
            th_nav_goal g = {x, y, 0};
            rc = th_nav_field_set_goals(&f[i], &g, 1);
        }
        if (rc == TH_NAV_OK) rc = th_nav_fields_compute(pool, s, nw, f, batch, m);
        for (uint32_t i = 0; i < batch && rc == TH_NAV_OK; i++) {
            if (!field_uncut(&f[i], m)) continue;
            for (uint32_t c = 0; c < m->ncells; c++)
                a->lm[(size_t)c * TH_ASTAR_LANDMARKS + kept] = f[i].dist[c];
            kept++;
        }
    }
    for (uint32_t i = 0; i < TH_ASTAR_LANDMARKS; i++) {
        th_nav_field_free(&f[i]);
        th_nav_scratch_destroy(s[i]);
    }
    if (rc == TH_NAV_ENOPATH) return 0;
    if (rc != TH_NAV_OK) return rc;
    /* Unused slots read as unreachable, which the query skips. */
    for (uint32_t k = kept; k < TH_ASTAR_LANDMARKS; k++)
        for (uint32_t c = 0; c < m->ncells; c++)
            a->lm[(size_t)c * TH_ASTAR_LANDMARKS + k] = TH_NAV_UNREACHABLE;
    memcpy(a->lm_cost, m->cost, sizeof *a->lm_cost * (size_t)m->ncells);
    a->lm_links = m->link_count;
    a->nlm = kept;
    return (int)kept;
}

/* Whether the landmark distances were computed on this very map (walls and costs). */
static bool landmarks_current(const th_astar_ctx *a, const th_navmap *m) {
    /* Glued edges are only ever added, so their count tells whether any came since. */
    return a->nlm && a->lm_links == m->link_count &&
           memcmp(a->lm_cost, m->cost, sizeof *a->lm_cost * (size_t)m->ncells) == 0;
}

bool th_astar_landmarks_current(const th_astar_ctx *a, const th_navmap *m) {
    return a && m && m->cost && a->w == m->w && a->h == m->h && landmarks_current(a, m);
}

uint64_t th_astar_expanded(const th_astar_ctx *a) { return a ? a->expanded : 0; }

const uint32_t *th_astar_landmarks(const th_astar_ctx *a, const th_navmap *m) {
    return th_astar_landmarks_current(a, m) ? a->lm : NULL;
}

static inline void mark_bucket(th_astar_ctx *a, uint32_t b) {
    a->bits[b >> 6] |= 1ull << (b & 63u);
    a->summary[b >> 12] |= 1ull << ((b >> 6) & 63u);
}

static inline void clear_bucket(th_astar_ctx *a, uint32_t b) {
    uint64_t w = a->bits[b >> 6] &= ~(1ull << (b & 63u));
    if (!w) a->summary[b >> 12] &= ~(1ull << ((b >> 6) & 63u));
}

static inline void push(th_astar_ctx *a, uint32_t c, uint64_t f) {
    uint32_t b = (uint32_t)f & RING_MASK;
    uint32_t h = a->head[b];
    a->cell[c].next = h;
    a->cell[c].prev = AT_HEAD;
    if (h != NIL) a->cell[h].prev = c;
    else mark_bucket(a, b);
    a->head[b] = c;
}

static inline void unlink_cell(th_astar_ctx *a, uint32_t c, uint64_t f) {
    uint32_t nx = a->cell[c].next, pv = a->cell[c].prev;
    if (pv == AT_HEAD) {
        uint32_t b = (uint32_t)f & RING_MASK;
        a->head[b] = nx;
        if (nx == NIL) clear_bucket(a, b);
    } else {
        a->cell[pv].next = nx;
    }
    if (nx != NIL) a->cell[nx].prev = pv;
}

/* Offset from bucket `b` to the next non-empty bucket at or after it (circular); the queue is
 * not empty. */
static uint32_t next_bucket(const th_astar_ctx *a, uint32_t b) {
    uint32_t word = b >> 6;
    uint64_t w = a->bits[word] & (~0ull << (b & 63u));
    if (!w) {
        /* Next non-zero word after `word`, through the summary, wrapping once. */
        uint32_t sw = (word + 1u) & (RING / 64u - 1u);
        for (uint32_t tries = 0;; tries++) {
            uint32_t si = sw >> 6;
            uint64_t sm = a->summary[si] & (~0ull << (sw & 63u));
            if (sm) {
                word = (si << 6) | (uint32_t)__builtin_ctzll(sm);
                break;
            }
            sw = ((si + 1u) << 6) & (RING / 64u - 1u);
            (void)tries;
        }
        w = a->bits[word];
    }
    uint32_t found = (word << 6) | (uint32_t)__builtin_ctzll(w);
    return (found - b) & RING_MASK;
}

/* Octile distance times the cheapest possible edge: every move of the octile metric costs at
 * least 2 * min_cost * its step factor, so h never overestimates, and it drops by at most one
 * edge's cost per move (consistent), so a closed cell is never reopened. */
static inline uint32_t heuristic(int32_t x, int32_t y, int32_t gx, int32_t gy, uint32_t cmin) {
    uint32_t dx = (uint32_t)abs(x - gx), dy = (uint32_t)abs(y - gy);
    uint32_t lo = dx < dy ? dx : dy, hi = dx < dy ? dy : dx;
    return 2u * cmin * (TH_NAV_STEP_DIAG * lo + TH_NAV_STEP_STRAIGHT * (hi - lo));
}

/* Landmark bound: |d(L, n) - d(L, goal)| <= d(n, goal) by the triangle inequality, since
 * costs are symmetric ((c(a) + c(b)) * step) and field distances are exact in the same units;
 * it drops by at most w(u, v) per move, so it is consistent, and so is its max with the octile
 * bound. `gl` holds the goal's distances and `on` all-ones for landmarks usable in this query
 * (finite at both start and goal, hence over the whole connected region searched). */
static inline uint32_t lm_bound(const uint32_t *row, const uint32_t *gl, const uint32_t *on) {
    uint32_t best = 0;
    for (int k = 0; k < TH_ASTAR_LANDMARKS; k++) {
        uint32_t v = row[k], d = v > gl[k] ? v - gl[k] : gl[k] - v;
        d &= on[k];
        best = d > best ? d : best;
    }
    return best;
}

uint32_t th_astar_bound(const th_astar_ctx *a, const th_navmap *m, int32_t x, int32_t y, int32_t gx,
                        int32_t gy) {
    if (!a || !m || !m->cost || a->w != m->w || a->h != m->h || x < 0 || y < 0 || gx < 0 ||
        gy < 0 || x >= m->w || y >= m->h || gx >= m->w || gy >= m->h) {
        return 0;
    }
    uint32_t h = heuristic(x, y, gx, gy, th_navmap_min_cost(m));
    if (!a->lm || !landmarks_current(a, m)) return h;
    const uint32_t *rn = a->lm + ((size_t)y * (size_t)m->w + (size_t)x) * TH_ASTAR_LANDMARKS;
    const uint32_t *rg = a->lm + ((size_t)gy * (size_t)m->w + (size_t)gx) * TH_ASTAR_LANDMARKS;
    uint32_t on[TH_ASTAR_LANDMARKS];
    for (int k = 0; k < TH_ASTAR_LANDMARKS; k++)
        on[k] = th_nav_reachable(rn[k]) && th_nav_reachable(rg[k]) ? UINT32_MAX : 0u;
    uint32_t hl = lm_bound(rn, rg, on);
    return hl > h ? hl : h;
}

/* Cell n reached at cost nd (bound hn) from its parent by move `code`: queued at its new key,
 * taken out of its old bucket first when it was queued already. Returns the change in the
 * number queued (1 or 0). */
static inline uint32_t requeue(th_astar_ctx *a, uint32_t n, uint32_t gen, uint32_t nd, uint32_t hn,
                               uint8_t code) {
    acell *e = &a->cell[n];
    uint32_t fresh = 1;
    if (e->stamp != gen) {
        e->stamp = gen;
    } else if (e->prev != NOT_QUEUED) {
        unlink_cell(a, n, (uint64_t)e->g + hn);
        fresh = 0;
    }
    e->g = nd;
    a->parent[n] = code;
    push(a, n, (uint64_t)nd + hn);
    return fresh;
}

/* The cell a path came from into c: back along move `code`, or for 8 + dir back across the
 * glued edge it crossed going `dir` (c's own edge the other way). */
static inline uint32_t parent_of(const th_navmap *m, const int32_t *off, uint8_t code, uint32_t c) {
    if (code < 8) return (uint32_t)((int32_t)c - off[code]);
    return th_navmap_link(m, c, (uint8_t)((code - 8u + 2u) & 3u))->to;
}

int th_astar_find(th_astar_ctx *a, const th_navmap *m, int32_t sx, int32_t sy, int32_t gx,
                  int32_t gy, uint32_t *path, uint32_t max, uint32_t *len, uint32_t *cost) {
    if (len) *len = 0;
    if (cost) *cost = TH_NAV_UNREACHABLE;
    if (!a || !m || !m->cost || !path || !len || a->w != m->w || a->h != m->h) {
        return TH_NAV_EINVAL;
    }
    /* A deferred map must be brought up to date first. */
    if (!TH_ASSERT(!m->moves_stale)) return TH_NAV_EINVAL;
    if (th_navmap_is_blocked(m, sx, sy) || th_navmap_is_blocked(m, gx, gy)) return TH_NAV_ENOPATH;
    uint32_t w = (uint32_t)m->w;
    uint32_t start = (uint32_t)sy * w + (uint32_t)sx, goal = (uint32_t)gy * w + (uint32_t)gx;
    uint32_t cmin = th_navmap_min_cost(m);
    int32_t off[8];
    for (int k = 0; k < 8; k++) off[k] = th_nav_move_dy[k] * m->w + th_nav_move_dx[k];

    /* Landmarks usable for this query; none when they are stale or absent. */
    uint32_t gl[TH_ASTAR_LANDMARKS] = {0}, on[TH_ASTAR_LANDMARKS] = {0};
    const uint32_t *lm = NULL;
    if (a->lm && landmarks_current(a, m)) {
        const uint32_t *rs = a->lm + (size_t)start * TH_ASTAR_LANDMARKS;
        const uint32_t *rg = a->lm + (size_t)goal * TH_ASTAR_LANDMARKS;
        for (int k = 0; k < TH_ASTAR_LANDMARKS; k++) {
            bool use = th_nav_reachable(rs[k]) && th_nav_reachable(rg[k]);
            gl[k] = rg[k];
            on[k] = use ? UINT32_MAX : 0u;
            if (use) lm = a->lm;
        }
    }
    a->expanded = 0;
    if (++a->gen == 0) {
        for (uint32_t i = 0; i < a->ncells; i++) a->cell[i].stamp = 0;
        a->gen = 1;
    }
    const uint32_t gen = a->gen;
    acell *cells = a->cell;
    cells[start].stamp = gen;
    cells[start].g = 0;
    a->parent[start] = 0;
    /* Across glued edges the octile bound can overestimate (the two sides of a seam lie far
     * apart on the map), so a map with them keeps only the landmarks' bound, whose fields are
     * exact over the seams: 0 without landmarks, a plain Dijkstra. */
    const bool glued = m->link_count != 0;
    uint64_t fcur = glued ? 0u : heuristic(sx, sy, gx, gy, cmin);
    if (lm) {
        uint32_t hl = lm_bound(lm + (size_t)start * TH_ASTAR_LANDMARKS, gl, on);
        if (hl > fcur) fcur = hl;
    }
    push(a, start, fcur);
    uint32_t queued = 1;

    bool found = false;
    while (queued) {
        fcur += next_bucket(a, (uint32_t)fcur & RING_MASK);
        const uint32_t b = (uint32_t)fcur & RING_MASK;
        const uint32_t c = a->head[b];
        /* Pop the head. */
        const uint32_t nx = cells[c].next;
        a->head[b] = nx;
        if (nx == NIL) clear_bucket(a, b);
        else cells[nx].prev = AT_HEAD;
        cells[c].prev = CLOSED;
        queued--;
        a->expanded++;
        if (c == goal) {
            found = true;
            break;
        }
        const uint32_t gc = cells[c].g, cc = m->cost[c];
        const int32_t cx = (int32_t)(c % w), cy = (int32_t)(c / w);
        unsigned mask = m->moves[c];
        while (mask) {
            int k = __builtin_ctz(mask);
            mask &= mask - 1u;
            uint32_t n = (uint32_t)((int32_t)c + off[k]);
            uint32_t nd =
                gc + (cc + m->cost[n]) * (k < 4 ? TH_NAV_STEP_STRAIGHT : TH_NAV_STEP_DIAG);
            if (nd > TH_NAV_DIST_MAX) continue;
            acell *e = &cells[n];
            if (e->stamp == gen && (e->prev == CLOSED || nd >= e->g)) continue;
            uint32_t hn =
                glued ? 0u
                      : heuristic(cx + th_nav_move_dx[k], cy + th_nav_move_dy[k], gx, gy, cmin);
            if (lm) {
                uint32_t hl = lm_bound(lm + (size_t)n * TH_ASTAR_LANDMARKS, gl, on);
                hn = hl > hn ? hl : hn;
            }
            queued += requeue(a, n, gen, nd, hn, (uint8_t)k);
        }
        if (glued && (m->flags[c] & TH_NAV_FLAG_LINK)) {
            /* Glued edges: a straight move into the cell across the seam; the parent code
             * 8 + dir says which. */
            uint32_t nl = 0;
            const th_nav_link *l = th_navmap_links_of(m, c, &nl);
            for (uint32_t i = 0; i < nl; i++) {
                const uint32_t n = l[i].to;
                if (m->cost[n] == 0) continue;
                const uint32_t nd = gc + (cc + m->cost[n]) * TH_NAV_STEP_STRAIGHT;
                if (nd > TH_NAV_DIST_MAX) continue;
                acell *e = &cells[n];
                if (e->stamp == gen && (e->prev == CLOSED || nd >= e->g)) continue;
                const uint32_t hn = lm ? lm_bound(lm + (size_t)n * TH_ASTAR_LANDMARKS, gl, on) : 0u;
                queued += requeue(a, n, gen, nd, hn, (uint8_t)(8u + l[i].dir));
            }
        }
    }
    /* Leave the queue empty for the next query: only the buckets still marked hold cells. */
    for (uint32_t i = 0; i < RING / 4096u; i++) {
        while (a->summary[i]) {
            uint32_t word = (i << 6) | (uint32_t)__builtin_ctzll(a->summary[i]);
            while (a->bits[word]) {
                uint32_t bk = (word << 6) | (uint32_t)__builtin_ctzll(a->bits[word]);
                a->head[bk] = NIL;
                a->bits[word] &= a->bits[word] - 1u;
            }
            a->summary[i] &= a->summary[i] - 1u;
        }
    }
    if (!found) return TH_NAV_ENOPATH;

    uint32_t count = 1;
    for (uint32_t c = goal; c != start; count++) c = parent_of(m, off, a->parent[c], c);
    if (cost) *cost = cells[goal].g;
    if (count > max) return TH_NAV_ETOOLONG;
    uint32_t c = goal;
    for (uint32_t i = count; i-- > 0;) {
        path[i] = c;
        if (i) c = parent_of(m, off, a->parent[c], c);
    }
    *len = count;
    return TH_NAV_OK;
}

/* Integer supercover walk between two cell centres. `err` tracks which grid line the segment
 * crosses next; err == 0 means it crosses a corner exactly, where it would touch all four
 * cells around that corner: the two side cells must then be open as well. Float DDA was
 * rejected: it cannot tell an exact corner crossing from a near miss. */
static bool los_walk(const th_navmap *m, int32_t x0, int32_t y0, int32_t x1, int32_t y1,
                     uint64_t *walked) {
    if (th_navmap_is_blocked(m, x0, y0) || th_navmap_is_blocked(m, x1, y1)) return false;
    int64_t dx = llabs((long long)x1 - x0), dy = llabs((long long)y1 - y0);
    int32_t x = x0, y = y0;
    int32_t sx = x1 > x0 ? 1 : -1, sy = y1 > y0 ? 1 : -1;
    int64_t n = 1 + dx + dy;
    int64_t err = dx - dy;
    dx *= 2;
    dy *= 2;
    for (; n > 0; n--) {
        (*walked)++;
        if (th_navmap_is_blocked(m, x, y)) return false;
        if (x == x1 && y == y1) break;
        if (err > 0) {
            x += sx;
            err -= dy;
        } else if (err < 0) {
            y += sy;
            err += dx;
        } else {
            if (th_navmap_is_blocked(m, x + sx, y) || th_navmap_is_blocked(m, x, y + sy)) {
                return false;
            }
            x += sx;
            y += sy;
            err += dx - dy;
            n--;
        }
    }
    return true;
}

bool th_nav_line_of_sight(const th_navmap *m, int32_t x0, int32_t y0, int32_t x1, int32_t y1) {
    if (!m || !m->cost) return false;
    uint64_t walked = 0;
    return los_walk(m, x0, y0, x1, y1, &walked);
}

/* Cost-weighted length of the segment between the centres of cells (x0, y0) and (x1, y1), in
 * cost units (TH_NAV_UNITS_PER_CELL per cell of cost 1): the integral of the terrain cost along
 * it, sum over the cells it crosses of cost * length inside. Amanatides and Woo's traversal
 * ("A fast voxel traversal algorithm", Eurographics 1987) with the crossings compared in
 * integers: in units of t = 1 / (2 dx dy), the k-th vertical grid line is crossed at
 * (2k - 1) dy and the k-th horizontal one at (2k - 1) dx, so an exact corner crossing is seen
 * as one (both step; the two side cells get length 0) and nothing depends on rounding. Every
 * cell walked is open when the segment is visible, the only case it is asked about. */
static double segment_cost(const th_navmap *m, int32_t x0, int32_t y0, int32_t x1, int32_t y1,
                           uint64_t *walked) {
    const int64_t dx = llabs((long long)x1 - x0), dy = llabs((long long)y1 - y0);
    const int64_t DX = dx ? dx : 1, DY = dy ? dy : 1;
    const int32_t sx = x1 > x0 ? 1 : -1, sy = y1 > y0 ? 1 : -1;
    /* Times scaled by 2 DX DY; an axis the segment does not extend along is never crossed. */
    const int64_t tend = 2 * DX * DY;
    int64_t tx = dx ? DY : INT64_MAX, ty = dy ? DX : INT64_MAX, t = 0;
    int32_t x = x0, y = y0;
    uint64_t sum = 0; /* cost * scaled time: exact */
    for (;;) {
        (*walked)++;
        const int64_t next = tx < ty ? tx : ty;
        const int64_t until = next < tend ? next : tend;
        sum +=
            (uint64_t)m->cost[(uint32_t)y * (uint32_t)m->w + (uint32_t)x] * (uint64_t)(until - t);
        if (next >= tend) break;
        t = next;
        if (tx == next) {
            x += sx;
            tx += 2 * DY;
        }
        if (ty == next) {
            y += sy;
            ty += 2 * DX;
        }
    }
    const double len = sqrt((double)(dx * dx + dy * dy));
    return (double)sum / (double)tend * len * (double)TH_NAV_UNITS_PER_CELL;
}

/* Cost units of the grid path from cells[i] to cells[j] (i <= j), move by move. */
static uint64_t path_cost(const th_navmap *m, const uint32_t *cells, uint32_t i, uint32_t j,
                          uint64_t *walked) {
    const uint32_t w = (uint32_t)m->w;
    uint64_t sum = 0;
    for (uint32_t k = i; k < j; k++) {
        const uint32_t a = cells[k], b = cells[k + 1];
        const bool diag = a % w != b % w && a / w != b / w;
        sum +=
            (uint64_t)(m->cost[a] + m->cost[b]) * (diag ? TH_NAV_STEP_DIAG : TH_NAV_STEP_STRAIGHT);
    }
    *walked += j - i;
    return sum;
}

/* Whether the straight segment from path point a to path point b costs no more than the path
 * between them, up to a relative 1e-9 for rounding (a straight run along a row costs the same
 * both ways, and must stay a shortcut). */
static bool cheap_enough(const th_navmap *m, const uint32_t *cells, uint32_t a, uint32_t b,
                         uint64_t *walked) {
    const uint32_t w = (uint32_t)m->w;
    const double seg = segment_cost(m, (int32_t)(cells[a] % w), (int32_t)(cells[a] / w),
                                    (int32_t)(cells[b] % w), (int32_t)(cells[b] / w), walked);
    return seg <= (double)path_cost(m, cells, a, b, walked) * (1.0 + 1e-9);
}

/* Waypoints by galloping line-of-sight searches. From each anchor, probe path points 2, 4,
 * 8, ... ahead until one is out of sight (or the end is seen), then bisect between the last
 * seen and the first unseen to a point that is seen while its successor is not; it becomes the
 * next anchor. A segment that skips L path points costs at most 2 log2(L) + 3 tests, so the
 * tests number at most about 3 per path point whatever the shape, and the cells walked are
 * O(L log L) per segment. The greedy walk it replaces tested the anchor against every later
 * point in turn, each test walking the whole segment: quadratic along straight corridors (a
 * 4096-cell maze path took 40 s). Path points adjacent on the path always see each other (a
 * diagonal move needs both side cells open, the same rule as line of sight), so the search
 * always advances. Visibility along a path is not monotone, so the result is one valid
 * pulling, not necessarily the one with the fewest waypoints.
 *
 * On weighted terrain "sees" also asks that the shortcut cost no more than the path points it
 * replaces (cost integrated along the segment against the grid path's move costs), so a
 * waypoint never cuts across a swamp the search went round: the pulled path costs at most what
 * the grid path did. The cost test walks the segment and the path between its ends once more,
 * so the work keeps the bounds above. Adjacent path points still always pass: a straight move
 * costs exactly its segment, a diagonal one 99/70 > sqrt(2) times half its two cells' costs. */
static uint32_t pull_piece(const th_navmap *m, const uint32_t *cells, uint32_t n, th_vec2 *out,
                           uint64_t *los_tests, uint64_t *cells_walked);

/* Whether two cells of a path are neighbours on the map (not the two sides of a seam). */
static bool adjacent(uint32_t w, uint32_t a, uint32_t b) {
    int32_t dx = (int32_t)(a % w) - (int32_t)(b % w), dy = (int32_t)(a / w) - (int32_t)(b / w);
    return dx >= -1 && dx <= 1 && dy >= -1 && dy <= 1;
}

uint32_t th_nav_string_pull_counted(const th_navmap *m, const uint32_t *cells, uint32_t n,
                                    th_vec2 *out, uint64_t *los_tests, uint64_t *cells_walked) {
    if (los_tests) *los_tests = 0;
    if (cells_walked) *cells_walked = 0;
    if (!m || !m->cost || !cells || !out || n == 0) return 0;
    for (uint32_t i = 0; i < n; i++) {
        if (cells[i] >= m->ncells) return 0;
    }
    if (!m->link_count) return pull_piece(m, cells, n, out, los_tests, cells_walked);
    /* A path that crosses glued edges is pulled piece by piece: no line of sight is drawn
     * across a seam, so both of its cells stay waypoints. */
    uint32_t count = 0, start = 0;
    uint64_t tests = 0, walked = 0;
    for (uint32_t i = 1; i <= n; i++) {
        if (i < n && adjacent((uint32_t)m->w, cells[i - 1], cells[i])) continue;
        uint64_t t = 0, c = 0;
        count += pull_piece(m, cells + start, i - start, out + count, &t, &c);
        tests += t;
        walked += c;
        start = i;
    }
    if (los_tests) *los_tests = tests;
    if (cells_walked) *cells_walked = walked;
    return count;
}

static uint32_t pull_piece(const th_navmap *m, const uint32_t *cells, uint32_t n, th_vec2 *out,
                           uint64_t *los_tests, uint64_t *cells_walked) {
    uint32_t w = (uint32_t)m->w;
#define CX(c) ((int32_t)((c) % w))
#define CY(c) ((int32_t)((c) / w))
    uint64_t tests = 0, walked = 0;
    /* On terrain of one cost every visible shortcut is cheaper than the cells it skips (a
     * straight line is the shortest), so only a map with several costs needs the cost test. */
    const uint32_t cmin = th_navmap_min_cost(m);
    const bool weighted = m->cost_count[cmin] != m->ncells - m->cost_count[0];
#define SEES(a, b)                                                                            \
    (tests++, los_walk(m, CX(cells[a]), CY(cells[a]), CX(cells[b]), CY(cells[b]), &walked) && \
                  (!weighted || cheap_enough(m, cells, a, b, &walked)))
    uint32_t count = 0;
    out[count++] = th_navmap_cell_centre(m, CX(cells[0]), CY(cells[0]));
    uint32_t anchor = 0;
    while (anchor + 1 < n) {
        uint32_t seen = anchor + 1, unseen = n; /* n: nothing unseen found yet */
        for (uint32_t step = 2; seen + 1 < n; step *= 2) {
            uint32_t probe = n - 1 - anchor > step ? anchor + step : n - 1;
            if (!SEES(anchor, probe)) {
                unseen = probe;
                break;
            }
            seen = probe;
            if (step > n) break;
        }
        while (unseen < n && unseen - seen > 1) {
            uint32_t mid = seen + (unseen - seen) / 2;
            if (SEES(anchor, mid)) seen = mid;
            else unseen = mid;
        }
        out[count++] = th_navmap_cell_centre(m, CX(cells[seen]), CY(cells[seen]));
        anchor = seen;
    }
#undef SEES
#undef CX
#undef CY
    if (los_tests) *los_tests = tests;
    if (cells_walked) *cells_walked = walked;
    return count;
}

uint32_t th_nav_string_pull(const th_navmap *m, const uint32_t *cells, uint32_t n, th_vec2 *out) {
    return th_nav_string_pull_counted(m, cells, n, out, NULL, NULL);
}
