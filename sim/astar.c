/* A* on the navigation grid, line of sight, string pulling. */
#include "nav.h"

#include <stdlib.h>
#include <string.h>

#include "../engine/alloc.h"

#define NOT_QUEUED UINT32_MAX
#define CLOSED     (UINT32_MAX - 1u)

/* Per-cell state is valid only where stamp == gen; a new query bumps gen instead of clearing
 * 21 bytes per cell. The heap is indexed (hpos) with decrease-key, so it never holds more than
 * one entry per cell and needs no growth; lazy deletion would need room for 8 entries a cell. */
struct th_astar_ctx {
    int32_t w, h;
    uint32_t ncells;
    uint32_t gen;
    uint32_t heap_size;
    uint32_t *g;     /* cost from the start, units */
    uint32_t *hcost; /* heuristic to the goal, units */
    uint32_t *stamp;
    uint32_t *hpos;  /* heap slot, NOT_QUEUED or CLOSED */
    uint32_t *heap;  /* cells */
    uint8_t *parent; /* move that reached the cell */
};

th_astar_ctx *th_astar_create(const th_navmap *m) {
    if (!m || !m->cost) return NULL;
    th_astar_ctx *a = th_calloc(1, sizeof *a);
    if (!a) return NULL;
    a->w = m->w;
    a->h = m->h;
    a->ncells = m->ncells;
    a->g = th_alloc(sizeof *a->g * m->ncells);
    a->hcost = th_alloc(sizeof *a->hcost * m->ncells);
    a->stamp = th_calloc(m->ncells, sizeof *a->stamp);
    a->hpos = th_alloc(sizeof *a->hpos * m->ncells);
    a->heap = th_alloc(sizeof *a->heap * m->ncells);
    a->parent = th_alloc(sizeof *a->parent * m->ncells);
    if (!a->g || !a->hcost || !a->stamp || !a->hpos || !a->heap || !a->parent) {
        th_astar_destroy(a);
        return NULL;
    }
    return a;
}

void th_astar_destroy(th_astar_ctx *a) {
    if (!a) return;
    th_free(a->g);
    th_free(a->hcost);
    th_free(a->stamp);
    th_free(a->hpos);
    th_free(a->heap);
    th_free(a->parent);
    th_free(a);
}

/* Order by f = g + h, then larger g (deeper nodes first, fewer expansions on ties), then cell
 * index, so the expansion order and the returned path are fully determined. */
static bool before(const th_astar_ctx *a, uint32_t x, uint32_t y) {
    uint64_t fx = (uint64_t)a->g[x] + a->hcost[x], fy = (uint64_t)a->g[y] + a->hcost[y];
    if (fx != fy) return fx < fy;
    if (a->g[x] != a->g[y]) return a->g[x] > a->g[y];
    return x < y;
}

static void sift_up(th_astar_ctx *a, uint32_t i) {
    uint32_t c = a->heap[i];
    while (i > 0) {
        uint32_t p = (i - 1) / 2;
        if (!before(a, c, a->heap[p])) break;
        a->heap[i] = a->heap[p];
        a->hpos[a->heap[i]] = i;
        i = p;
    }
    a->heap[i] = c;
    a->hpos[c] = i;
}

static void sift_down(th_astar_ctx *a, uint32_t i) {
    uint32_t c = a->heap[i];
    for (;;) {
        uint32_t l = 2 * i + 1;
        if (l >= a->heap_size) break;
        uint32_t best = l;
        if (l + 1 < a->heap_size && before(a, a->heap[l + 1], a->heap[l])) best = l + 1;
        if (!before(a, a->heap[best], c)) break;
        a->heap[i] = a->heap[best];
        a->hpos[a->heap[i]] = i;
        i = best;
    }
    a->heap[i] = c;
    a->hpos[c] = i;
}

static uint32_t pop(th_astar_ctx *a) {
    uint32_t top = a->heap[0];
    a->heap_size--;
    if (a->heap_size) {
        a->heap[0] = a->heap[a->heap_size];
        sift_down(a, 0);
    }
    a->hpos[top] = CLOSED;
    return top;
}

/* Octile distance times the cheapest possible edge: every move of the octile metric costs at
 * least 2 * min_cost * its step factor, so h never overestimates, and it drops by at most one
 * edge's cost per move (consistent), so a closed cell is never reopened. */
static uint32_t heuristic(int32_t x, int32_t y, int32_t gx, int32_t gy, uint32_t cmin) {
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
    static const uint32_t step[8] = {
        TH_NAV_STEP_STRAIGHT, TH_NAV_STEP_STRAIGHT, TH_NAV_STEP_STRAIGHT, TH_NAV_STEP_STRAIGHT,
        TH_NAV_STEP_DIAG,     TH_NAV_STEP_DIAG,     TH_NAV_STEP_DIAG,     TH_NAV_STEP_DIAG};

    if (++a->gen == 0) {
        memset(a->stamp, 0, sizeof *a->stamp * a->ncells);
        a->gen = 1;
    }
    a->heap_size = 0;
    a->stamp[start] = a->gen;
    a->g[start] = 0;
    a->hcost[start] = heuristic(sx, sy, gx, gy, cmin);
    a->parent[start] = 0;
    a->heap[a->heap_size++] = start;
    a->hpos[start] = 0;

    bool found = false;
    while (a->heap_size) {
        uint32_t c = pop(a);
        if (c == goal) {
            found = true;
            break;
        }
        uint32_t gc = a->g[c], cc = m->cost[c];
        unsigned mask = m->moves[c];
        while (mask) {
            int k = __builtin_ctz(mask);
            mask &= mask - 1u;
            uint32_t n = (uint32_t)((int32_t)c + off[k]);
            uint32_t nd = gc + (cc + m->cost[n]) * step[k];
            if (nd > TH_NAV_DIST_MAX) continue;
            if (a->stamp[n] != a->gen) {
                a->stamp[n] = a->gen;
                a->g[n] = TH_NAV_UNREACHABLE;
                a->hcost[n] = heuristic((int32_t)(n % w), (int32_t)(n / w), gx, gy, cmin);
                a->hpos[n] = NOT_QUEUED;
            }
            if (a->hpos[n] == CLOSED || nd >= a->g[n]) continue;
            a->g[n] = nd;
            a->parent[n] = (uint8_t)k;
            if (a->hpos[n] == NOT_QUEUED) {
                a->heap[a->heap_size] = n;
                a->hpos[n] = a->heap_size++;
            }
            sift_up(a, a->hpos[n]);
        }
    }
    if (!found) return TH_NAV_ENOPATH;

    uint32_t count = 1;
    for (uint32_t c = goal; c != start; count++)
        c = (uint32_t)((int32_t)c - off[a->parent[c]]);
    if (cost) *cost = a->g[goal];
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
