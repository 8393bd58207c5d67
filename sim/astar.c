/* A* on the navigation grid, line of sight, string pulling. */
#include "nav.h"

#include <stdlib.h>
#include <string.h>

#include "../engine/alloc.h"

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
#define RING_BITS 19u
#define RING      (1u << RING_BITS)
#define RING_MASK (RING - 1u)
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
    uint8_t *parent; /* move that reached the cell */
    uint32_t *head;  /* RING bucket heads, NIL when empty (all NIL at rest) */
    uint64_t bits[RING / 64];   /* non-empty buckets */
    uint64_t summary[RING / 4096]; /* non-zero words of bits */
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
    th_free(a);
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

int th_astar_find(th_astar_ctx *a, const th_navmap *m, int32_t sx, int32_t sy, int32_t gx,
                  int32_t gy, uint32_t *path, uint32_t max, uint32_t *len, uint32_t *cost) {
    if (len) *len = 0;
    if (cost) *cost = TH_NAV_UNREACHABLE;
    if (!a || !m || !m->cost || !path || !len || a->w != m->w || a->h != m->h) {
        return TH_NAV_EINVAL;
    }
    if (th_navmap_is_blocked(m, sx, sy) || th_navmap_is_blocked(m, gx, gy)) return TH_NAV_ENOPATH;
    uint32_t w = (uint32_t)m->w;
    uint32_t start = (uint32_t)sy * w + (uint32_t)sx, goal = (uint32_t)gy * w + (uint32_t)gx;
    uint32_t cmin = th_navmap_min_cost(m);
    int32_t off[8];
    for (int k = 0; k < 8; k++)
        off[k] = th_nav_move_dy[k] * m->w + th_nav_move_dx[k];

    if (++a->gen == 0) {
        for (uint32_t i = 0; i < a->ncells; i++) a->cell[i].stamp = 0;
        a->gen = 1;
    }
    const uint32_t gen = a->gen;
    acell *cells = a->cell;
    cells[start].stamp = gen;
    cells[start].g = 0;
    a->parent[start] = 0;
    uint64_t fcur = heuristic(sx, sy, gx, gy, cmin);
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
            uint32_t nd = gc + (cc + m->cost[n]) * (k < 4 ? TH_NAV_STEP_STRAIGHT : TH_NAV_STEP_DIAG);
            if (nd > TH_NAV_DIST_MAX) continue;
            acell *e = &cells[n];
            if (e->stamp == gen && (e->prev == CLOSED || nd >= e->g)) continue;
            uint32_t hn = heuristic(cx + th_nav_move_dx[k], cy + th_nav_move_dy[k], gx, gy, cmin);
            if (e->stamp != gen) {
                e->stamp = gen;
            } else if (e->prev != NOT_QUEUED) {
                unlink_cell(a, n, (uint64_t)e->g + hn);
                queued--;
            }
            e->g = nd;
            a->parent[n] = (uint8_t)k;
            push(a, n, (uint64_t)nd + hn);
            queued++;
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
    for (uint32_t c = goal; c != start; count++)
        c = (uint32_t)((int32_t)c - off[a->parent[c]]);
    if (cost) *cost = cells[goal].g;
    if (count > max) return TH_NAV_ETOOLONG;
    uint32_t c = goal;
    for (uint32_t i = count; i-- > 0;) {
        path[i] = c;
        if (i) c = (uint32_t)((int32_t)c - off[a->parent[c]]);
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
 * pulling, not necessarily the one with the fewest waypoints. */
uint32_t th_nav_string_pull_counted(const th_navmap *m, const uint32_t *cells, uint32_t n,
                                    th_vec2 *out, uint64_t *los_tests, uint64_t *cells_walked) {
    if (los_tests) *los_tests = 0;
    if (cells_walked) *cells_walked = 0;
    if (!m || !m->cost || !cells || !out || n == 0) return 0;
    uint32_t w = (uint32_t)m->w;
    for (uint32_t i = 0; i < n; i++) {
        if (cells[i] >= m->ncells) return 0;
    }
#define CX(c) ((int32_t)((c) % w))
#define CY(c) ((int32_t)((c) / w))
    uint64_t tests = 0, walked = 0;
#define SEES(a, b)                                                                                 \
    (tests++, los_walk(m, CX(cells[a]), CY(cells[a]), CX(cells[b]), CY(cells[b]), &walked))
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
