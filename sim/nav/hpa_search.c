/* HPA*, the searches: queries on the abstract graph with their ends inserted, refinement of
 * its edges to cells (cached), string-pulled paths, and IDA* (see hpa.h; the hierarchy they
 * search is built in hpa.c). */
#include <stdlib.h>
#include <string.h>

#include "engine/alloc.h"
#include "engine/check.h"
#include "sim/nav/hpa_private.h"

/* ---- queries ---------------------------------------------------------------------------- */

void th_hpa_query_destroy(th_hpa_query *q) {
    if (!q) return;
    th_free(q->nd);
    th_free(q->ida_next);
    th_free(q->ida_g);
    th_free(q->heap);
    th_free(q->route);
    th_hpa_ls_free(&q->st);
    th_hpa_ls_free(&q->gt);
    th_hpa_ls_free(&q->rs);
    th_free(q->ckey);
    th_free(q->cver);
    th_free(q->clen);
    th_free(q->cmoves);
    th_free(q);
}

th_hpa_query *th_hpa_query_create(const th_hpa *h, uint32_t cache) {
    if (!h) return NULL;
    if (cache == 0) cache = TH_HPA_DEFAULT_CACHE;
    if (cache > (1u << 20)) cache = 1u << 20;
    uint32_t slots = 1;
    while (slots < cache) slots *= 2;
    th_hpa_query *q = th_calloc(1, sizeof *q);
    if (!q) return NULL;
    q->w = h->w;
    q->h = h->h;
    q->C = h->C;
    q->cw = h->cw;
    q->maxn = h->maxn;
    q->S = h->ncl * h->maxn;
    q->G = q->S + 1;
    q->nnodes = q->S + 2;
    q->nd = th_calloc(q->nnodes, sizeof *q->nd);
    q->ida_next = th_alloc((size_t)q->nnodes * sizeof *q->ida_next);
    q->ida_g = th_alloc((size_t)q->nnodes * sizeof *q->ida_g);
    q->heap = th_alloc((size_t)q->nnodes * sizeof *q->heap);
    q->route = th_alloc((size_t)q->nnodes * sizeof *q->route);
    q->cache_mask = slots - 1u;
    q->ckey = th_calloc(slots, sizeof *q->ckey);
    q->cver = th_calloc(slots, sizeof *q->cver);
    q->clen = th_calloc(slots, sizeof *q->clen);
    q->cmoves = th_alloc((size_t)slots * h->C * h->C);
    bool ok = q->nd && q->ida_next && q->ida_g && q->heap && q->route && q->ckey && q->cver &&
              q->clen && q->cmoves && th_hpa_ls_init(&q->st, h->C) &&
              th_hpa_ls_init(&q->gt, h->C) && th_hpa_ls_init(&q->rs, h->C);
    if (!ok) {
        th_hpa_query_destroy(q);
        return NULL;
    }
    return q;
}

th_hpa_query_stats th_hpa_query_get_stats(const th_hpa_query *q) {
    th_hpa_query_stats z;
    memset(&z, 0, sizeof z);
    return q ? q->stats : z;
}

th_hpa_state th_hpa_search_state(const th_hpa_query *q) { return q ? q->state : TH_HPA_IDLE; }

static inline uint32_t octile(uint32_t a, uint32_t b, uint32_t W, uint32_t cmin) {
    int32_t dx = abs((int32_t)(a % W) - (int32_t)(b % W));
    int32_t dy = abs((int32_t)(a / W) - (int32_t)(b / W));
    uint32_t lo = (uint32_t)(dx < dy ? dx : dy), hi = (uint32_t)(dx < dy ? dy : dx);
    return 2u * cmin * (TH_NAV_STEP_DIAG * lo + TH_NAV_STEP_STRAIGHT * (hi - lo));
}

/* Abstract open set: binary heap keyed (f, larger g first, node id), each entry carrying its
 * keys so that sifting reads the heap alone. */
static inline bool q_less(const qent *a, const qent *b) {
    if (a->f != b->f) return a->f < b->f;
    if (a->ng != b->ng) return a->ng < b->ng;
    return a->node < b->node;
}

static inline qent q_entry(const th_hpa_query *q, uint32_t v) {
    qent e = {(uint64_t)q->nd[v].g + q->nd[v].hval, ~q->nd[v].g, v};
    return e;
}

static void q_up(th_hpa_query *q, uint32_t i) {
    qent v = q->heap[i];
    while (i > 0) {
        uint32_t p = (i - 1) / 2;
        if (!q_less(&v, &q->heap[p])) break;
        q->heap[i] = q->heap[p];
        q->nd[q->heap[i].node].hpos = i;
        i = p;
    }
    q->heap[i] = v;
    q->nd[v.node].hpos = i;
}

static uint32_t q_pop(th_hpa_query *q) {
    uint32_t top = q->heap[0].node, i = 0;
    qent last = q->heap[--q->hn];
    if (q->hn) {
        for (;;) {
            uint32_t l = 2 * i + 1, r = l + 1, m = i;
            const qent *mv = &last;
            if (l < q->hn && q_less(&q->heap[l], mv)) {
                m = l;
                mv = &q->heap[l];
            }
            if (r < q->hn && q_less(&q->heap[r], mv)) m = r;
            if (m == i) break;
            q->heap[i] = q->heap[m];
            q->nd[q->heap[i].node].hpos = i;
            i = m;
        }
        q->heap[i] = last;
        q->nd[last.node].hpos = i;
    }
    q->nd[top].hpos = CLOSED;
    return top;
}

static inline uint32_t node_cell(const th_hpa_query *q, const th_hpa *h, uint32_t v) {
    if (v == q->S) return (uint32_t)q->sy * (uint32_t)q->w + (uint32_t)q->sx;
    if (v == q->G) return (uint32_t)q->gy * (uint32_t)q->w + (uint32_t)q->gx;
    return h->node_cell[v];
}

/* Lower bound of node v's cost to the goal: octile, raised by the landmarks in use. On a map
 * with glued edges the octile distance can overestimate (a seam joins cells far apart on the
 * map), so only the landmarks bound, as in astar.c: their distances are exact on the abstract
 * graph, glued edges included, so the bound stays admissible and consistent (0 without them:
 * Dijkstra on the abstract graph). */
static uint32_t bound(const th_hpa_query *q, const th_hpa *h, uint32_t v, uint32_t cmin) {
    int32_t x, y;
    if (v == q->S) {
        x = q->sx;
        y = q->sy;
    } else {
        x = (int32_t)(h->node_xy[v] & 0xffffu);
        y = (int32_t)(h->node_xy[v] >> 16);
    }
    uint32_t b = q->glued ? 0u : th_hpa_octile_xy(abs(x - q->gx), abs(y - q->gy), cmin);
    if (!q->use_lm || v == q->S) return b;
    const uint32_t *row = h->lm + (size_t)v * TH_HPA_LANDMARKS;
    for (uint32_t k = 0; k < TH_HPA_LANDMARKS; k++) {
        uint32_t a = row[k], g = q->lm_goal[k];
        if (a == INF || g == INF) continue;
        uint32_t d = a > g ? a - g : g - a;
        b = d > b ? d : b;
    }
    return b;
}

/* d(L_k, end) for an inserted end: the cheapest of its cluster's nodes plus the way to them. */
static uint32_t lm_end(const th_hpa *h, const lsearch *t, uint32_t cl, uint32_t k, uint32_t W) {
    uint64_t best = INF;
    for (uint32_t b = 0; b < h->node_count[cl]; b++) {
        uint32_t v = cl * h->maxn + b, l = h->lm[(size_t)v * TH_HPA_LANDMARKS + k];
        uint32_t d = t->dist[th_hpa_ls_local(t, h->node_cell[v], W)];
        if (l == INF || d == INF) continue;
        uint64_t s = (uint64_t)l + d;
        best = s < best ? s : best;
    }
    return (uint32_t)best;
}

static void relax(th_hpa_query *q, const th_hpa *h, uint32_t u, uint32_t v, uint32_t w,
                  uint32_t cmin) {
    if (w == INF) return;
    uint64_t nd = (uint64_t)q->nd[u].g + w;
    if (nd > TH_NAV_DIST_MAX) return;
    if (q->nd[v].stamp != q->gen) {
        q->nd[v].stamp = q->gen;
        q->nd[v].g = INF;
        q->nd[v].hpos = NOTQ;
        q->nd[v].hval = v == q->G ? 0u : bound(q, h, v, cmin);
    }
    if (q->nd[v].hpos == CLOSED || nd >= q->nd[v].g) return;
    q->nd[v].g = (uint32_t)nd;
    q->nd[v].parent = u;
    if (q->nd[v].hpos == NOTQ) {
        q->nd[v].hpos = q->hn;
        q->hn++;
    }
    q->heap[q->nd[v].hpos] = q_entry(q, v);
    q_up(q, q->nd[v].hpos);
}

static bool query_fits(const th_hpa_query *q, const th_hpa *h, const th_navmap *m) {
    return q && th_hpa_map_fits(h, m) && h->built && q->w == h->w && q->h == h->h && q->C == h->C &&
           q->maxn == h->maxn && th_hpa_holds_links(h, m);
}

/* The search tree of an inserted end in its cluster, stopped once every node of the cluster
 * (and `extra`, a cell of it or NONE) is settled. */
static uint64_t insert_end(const th_hpa *h, const th_navmap *m, lsearch *t, uint32_t cl, int32_t x,
                           int32_t y, uint32_t extra) {
    int32_t x0, y0, bw, bh;
    th_hpa_cluster_box(h, cl, &x0, &y0, &bw, &bh);
    const uint32_t W = (uint32_t)m->w;
    t->wanted = 0;
    for (uint32_t b = 0; b <= h->node_count[cl]; b++) {
        uint32_t cell = b < h->node_count[cl] ? h->node_cell[cl * h->maxn + b] : extra;
        if (cell == NONE) continue;
        uint32_t l = (cell / W - (uint32_t)y0) * (uint32_t)bw + (cell % W - (uint32_t)x0);
        if (!t->want[l]) {
            t->want[l] = 1;
            t->wanted++;
        }
    }
    return th_hpa_ls_run(t, m, x0, y0, bw, bh, x, y, NONE, 1);
}

/* Whether some node the start reaches in its cluster and some node the goal reaches in its
 * cluster share a component. */
static bool joined(const th_hpa_query *q, const th_hpa *h, const th_navmap *m) {
    const uint32_t W = (uint32_t)m->w, maxn = h->maxn;
    uint32_t ns = h->node_count[q->scl], ng = h->node_count[q->gcl];
    for (uint32_t a = 0; a < ns; a++) {
        uint32_t u = q->scl * maxn + a;
        if (q->st.dist[th_hpa_ls_local(&q->st, h->node_cell[u], W)] == INF) continue;
        for (uint32_t b = 0; b < ng; b++) {
            uint32_t v = q->gcl * maxn + b;
            if (h->comp[u] == h->comp[v] &&
                q->gt.dist[th_hpa_ls_local(&q->gt, h->node_cell[v], W)] != INF)
                return true;
        }
    }
    return false;
}

int th_hpa_search_start(th_hpa_query *q, const th_hpa *h, const th_navmap *m, int32_t sx,
                        int32_t sy, int32_t gx, int32_t gy) {
    if (!query_fits(q, h, m)) return TH_NAV_EINVAL;
    if (sx < 0 || sy < 0 || gx < 0 || gy < 0 || sx >= m->w || sy >= m->h || gx >= m->w ||
        gy >= m->h) {
        return TH_NAV_ERANGE;
    }
    q->sx = sx;
    q->sy = sy;
    q->gx = gx;
    q->gy = gy;
    q->route_len = 0;
    q->hn = 0;
    if (th_navmap_is_blocked(m, sx, sy) || th_navmap_is_blocked(m, gx, gy)) {
        q->state = TH_HPA_NOPATH;
        return TH_NAV_OK;
    }
    q->scl = (uint32_t)sy / h->C * h->cw + (uint32_t)sx / h->C;
    q->gcl = (uint32_t)gy / h->C * h->cw + (uint32_t)gx / h->C;
    const uint32_t gcell = (uint32_t)gy * (uint32_t)m->w + (uint32_t)gx;
    q->stats.cells_expanded +=
        insert_end(h, m, &q->st, q->scl, sx, sy, q->scl == q->gcl ? gcell : NONE);
    q->stats.cells_expanded += insert_end(h, m, &q->gt, q->gcl, gx, gy, NONE);
    q->direct = q->scl == q->gcl
                    ? q->st.dist[th_hpa_ls_local(
                          &q->st, (uint32_t)gy * (uint32_t)m->w + (uint32_t)gx, (uint32_t)m->w)]
                    : INF;
    if (q->direct == INF && !joined(q, h, m)) {
        q->state = TH_HPA_NOPATH;
        return TH_NAV_OK;
    }
    if (++q->gen == 0) {
        for (uint32_t i = 0; i < q->nnodes; i++) q->nd[i].stamp = 0;
        q->gen = 1;
    }
    uint32_t cmin = th_navmap_min_cost(m);
    q->nd[q->S].stamp = q->gen;
    q->nd[q->S].g = 0;
    q->nd[q->S].parent = NONE;
    q->use_lm = h->lm_ok;
    q->glued = m->link_count != 0;
    q->nd[q->S].hval =
        q->glued ? 0u : octile(node_cell(q, h, q->S), node_cell(q, h, q->G), (uint32_t)m->w, cmin);
    if (q->use_lm) {
        for (uint32_t k = 0; k < TH_HPA_LANDMARKS; k++) {
            q->lm_goal[k] = lm_end(h, &q->gt, q->gcl, k, (uint32_t)m->w);
            uint32_t ls = lm_end(h, &q->st, q->scl, k, (uint32_t)m->w), g = q->lm_goal[k];
            if (ls == INF || g == INF) continue;
            uint32_t d = ls > g ? ls - g : g - ls;
            q->nd[q->S].hval = d > q->nd[q->S].hval ? d : q->nd[q->S].hval;
        }
    }
    q->heap[0] = q_entry(q, q->S);
    q->nd[q->S].hpos = 0;
    q->hn = 1;
    q->state = TH_HPA_RUNNING;
    return TH_NAV_OK;
}

uint64_t th_hpa_search_run(th_hpa_query *q, const th_hpa *h, const th_navmap *m, uint64_t budget) {
    if (!query_fits(q, h, m) || q->state != TH_HPA_RUNNING) return 0;
    const uint32_t W = (uint32_t)m->w, cmin = th_navmap_min_cost(m), maxn = h->maxn;
    uint64_t used = 0;
    while (used < budget) {
        if (!q->hn) {
            q->state = TH_HPA_NOPATH;
            break;
        }
        uint32_t u = q_pop(q);
        used++;
        if (u == q->G) {
            uint32_t n = 0;
            for (uint32_t v = u; v != NONE; v = q->nd[v].parent) q->route[n++] = v;
            for (uint32_t i = 0; i < n / 2; i++) {
                uint32_t t = q->route[i];
                q->route[i] = q->route[n - 1 - i];
                q->route[n - 1 - i] = t;
            }
            q->route_len = n;
            q->state = TH_HPA_FOUND;
            break;
        }
        if (u == q->S) {
            uint32_t c = q->scl, n = h->node_count[c];
            for (uint32_t b = 0; b < n; b++) {
                uint32_t v = c * maxn + b;
                relax(q, h, u, v, q->st.dist[th_hpa_ls_local(&q->st, h->node_cell[v], W)], cmin);
            }
            relax(q, h, u, q->G, q->direct, cmin);
            continue;
        }
        uint32_t c = u / maxn, a = u % maxn, n = h->node_count[c];
        const uint32_t *row = h->edge + ((size_t)c * maxn + a) * maxn;
        for (uint32_t b = 0; b < n; b++)
            if (b != a) relax(q, h, u, c * maxn + b, row[b], cmin);
        for (int s = 0; s < 4; s++) {
            uint32_t f = h->side_first[c * 4u + (uint32_t)s];
            if (a < f || a >= f + h->side_count[c * 4u + (uint32_t)s]) continue;
            uint32_t nb = th_hpa_neighbour(h, c, s);
            uint32_t v = nb * maxn + h->side_first[nb * 4u + 3u - (uint32_t)s] + (a - f);
            uint32_t w =
                (m->cost[h->node_cell[u]] + m->cost[h->node_cell[v]]) * TH_NAV_STEP_STRAIGHT;
            relax(q, h, u, v, w, cmin);
            break;
        }
        if (a >= th_hpa_link_first(h, c) && h->node_link[u] != NONE)
            relax(q, h, u, h->node_link[u], th_hpa_link_cost(h, m, u, h->node_link[u]), cmin);
        if (c == q->gcl)
            relax(q, h, u, q->G, q->gt.dist[th_hpa_ls_local(&q->gt, h->node_cell[u], W)], cmin);
    }
    q->stats.abstract_expanded += used;
    return used;
}

bool th_hpa_search_next_node(const th_hpa_query *q, const th_hpa *h, int32_t *x, int32_t *y) {
    if (!q || !h || q->state == TH_HPA_IDLE || q->state == TH_HPA_NOPATH) return false;
    uint32_t best = NONE;
    if (q->state == TH_HPA_FOUND) {
        best = q->route_len > 1 ? q->route[1] : q->G;
    } else if (q->hn) {
        /* The first hop after the start on the route to the most promising open node. */
        best = q->heap[0].node;
        while (best != NONE && q->nd[best].parent != q->S && best != q->S)
            best = q->nd[best].parent;
        if (best == q->S) return false;
    }
    if (best == NONE) return false;
    uint32_t cell = node_cell(q, h, best);
    *x = (int32_t)(cell % (uint32_t)q->w);
    *y = (int32_t)(cell / (uint32_t)q->w);
    return true;
}

/* The path from the cell of node lo to the cell of node hi (lo < hi) of cluster c, as moves,
 * from the cache or a bounded search from lo's cell that stops at hi's. */
static const uint8_t *edge_moves(th_hpa_query *q, const th_hpa *h, const th_navmap *m, uint32_t c,
                                 uint32_t lo, uint32_t hi, uint32_t *len) {
    const uint32_t W = (uint32_t)m->w, maxn = h->maxn;
    uint64_t key = ((uint64_t)c * maxn + lo) * maxn + hi + 1u;
    uint64_t hash = key * 0x9E3779B97F4A7C15ull;
    uint32_t slot = (uint32_t)(hash >> 40) & q->cache_mask;
    uint8_t *mv = q->cmoves + (size_t)slot * h->C * h->C;
    if (q->ckey[slot] == key && q->cver[slot] == h->version[c]) {
        q->stats.cache_hits++;
        *len = q->clen[slot];
        return mv;
    }
    q->stats.cache_misses++;
    int32_t x0, y0, bw, bh;
    th_hpa_cluster_box(h, c, &x0, &y0, &bw, &bh);
    uint32_t a = h->node_cell[c * maxn + lo], b = h->node_cell[c * maxn + hi];
    uint32_t stop = (b / W - (uint32_t)y0) * (uint32_t)bw + (b % W - (uint32_t)x0);
    q->stats.cells_expanded += th_hpa_ls_run(&q->rs, m, x0, y0, bw, bh, (int32_t)(a % W),
                                             (int32_t)(a / W), stop, th_navmap_min_cost(m));
    uint32_t n = 0;
    for (uint32_t cur = b; cur != a; n++) {
        int k = q->rs.parent[th_hpa_ls_local(&q->rs, cur, W)];
        cur = (uint32_t)((int32_t)cur - th_nav_move_dy[k] * m->w - th_nav_move_dx[k]);
    }
    uint32_t i = n;
    for (uint32_t cur = b; cur != a;) {
        int k = q->rs.parent[th_hpa_ls_local(&q->rs, cur, W)];
        mv[--i] = (uint8_t)k;
        cur = (uint32_t)((int32_t)cur - th_nav_move_dy[k] * m->w - th_nav_move_dx[k]);
    }
    q->ckey[slot] = key;
    q->cver[slot] = h->version[c];
    q->clen[slot] = (uint16_t)n;
    *len = n;
    return mv;
}

typedef struct out_path {
    uint32_t *cells, max, n;
} out_path;

static inline void put(out_path *o, uint32_t c) {
    if (o->n < o->max) o->cells[o->n] = c;
    o->n++;
}

/* Cells of a tree from `from` back to its root, root excluded, written in reverse (root side
 * first) when `reverse`. */
static void put_tree(out_path *o, const lsearch *t, const th_navmap *m, uint32_t from,
                     uint32_t root, bool reverse) {
    const uint32_t W = (uint32_t)m->w;
    uint32_t n = 0;
    for (uint32_t cur = from; cur != root; n++) {
        int k = t->parent[th_hpa_ls_local(t, cur, W)];
        cur = (uint32_t)((int32_t)cur - th_nav_move_dy[k] * m->w - th_nav_move_dx[k]);
    }
    if (!reverse) {
        /* from (excluded) toward the root (included): the goal tree. */
        uint32_t cur = from;
        for (uint32_t i = 0; i < n; i++) {
            int k = t->parent[th_hpa_ls_local(t, cur, W)];
            cur = (uint32_t)((int32_t)cur - th_nav_move_dy[k] * m->w - th_nav_move_dx[k]);
            put(o, cur);
        }
        return;
    }
    uint32_t base = o->n;
    o->n += n;
    uint32_t cur = from;
    for (uint32_t i = n; i-- > 0;) {
        if (base + i < o->max) o->cells[base + i] = cur;
        int k = t->parent[th_hpa_ls_local(t, cur, W)];
        cur = (uint32_t)((int32_t)cur - th_nav_move_dy[k] * m->w - th_nav_move_dx[k]);
    }
}

int th_hpa_search_path(th_hpa_query *q, const th_hpa *h, const th_navmap *m, uint32_t *path,
                       uint32_t max, uint32_t *len, uint32_t *cost) {
    if (len) *len = 0;
    if (cost) *cost = TH_NAV_UNREACHABLE;
    if (!query_fits(q, h, m) || !path || !len) return TH_NAV_EINVAL;
    if (q->state == TH_HPA_NOPATH) return TH_NAV_ENOPATH;
    if (q->state != TH_HPA_FOUND) return TH_NAV_EINVAL;
    const uint32_t W = (uint32_t)m->w, maxn = h->maxn;
    out_path o = {path, max, 0};
    const uint32_t scell = (uint32_t)q->sy * W + (uint32_t)q->sx;
    const uint32_t gcell = (uint32_t)q->gy * W + (uint32_t)q->gx;
    put(&o, scell);
    for (uint32_t i = 0; i + 1 < q->route_len; i++) {
        uint32_t u = q->route[i], v = q->route[i + 1];
        if (u == q->S) {
            put_tree(&o, &q->st, m, v == q->G ? gcell : h->node_cell[v], scell, true);
        } else if (v == q->G) {
            put_tree(&o, &q->gt, m, h->node_cell[u], gcell, false);
        } else if (u / maxn != v / maxn ||
                   (h->node_link[u] == v && u % maxn >= th_hpa_link_first(h, u / maxn) &&
                    th_hpa_link_cost(h, m, u, v) <=
                        h->edge[((size_t)(u / maxn) * maxn + u % maxn) * maxn + v % maxn])) {
            /* A border transition or a glued edge: one move (a straight step, or the step
             * across the seam). Two link nodes of one cluster may be joined both ways: the
             * search took the cheaper, and so does the refinement (either on a tie). */
            put(&o, h->node_cell[v]);
        } else {
            uint32_t c = u / maxn, a = u % maxn, b = v % maxn, n;
            const uint8_t *mv = edge_moves(q, h, m, c, a < b ? a : b, a < b ? b : a, &n);
            uint32_t cur = h->node_cell[u];
            if (a < b) {
                for (uint32_t k = 0; k < n; k++) {
                    cur = (uint32_t)((int32_t)cur + th_nav_move_dy[mv[k]] * m->w +
                                     th_nav_move_dx[mv[k]]);
                    put(&o, cur);
                }
            } else {
                for (uint32_t k = n; k-- > 0;) {
                    cur = (uint32_t)((int32_t)cur - th_nav_move_dy[mv[k]] * m->w -
                                     th_nav_move_dx[mv[k]]);
                    put(&o, cur);
                }
            }
        }
    }
    if (cost) *cost = q->nd[q->G].g;
    if (o.n > max) return TH_NAV_ETOOLONG;
    *len = o.n;
    return TH_NAV_OK;
}

int th_hpa_find(th_hpa_query *q, const th_hpa *h, const th_navmap *m, int32_t sx, int32_t sy,
                int32_t gx, int32_t gy, uint32_t *path, uint32_t max, uint32_t *len,
                uint32_t *cost) {
    if (len) *len = 0;
    if (cost) *cost = TH_NAV_UNREACHABLE;
    if (!path || !len) return TH_NAV_EINVAL;
    int rc = th_hpa_search_start(q, h, m, sx, sy, gx, gy);
    if (rc != TH_NAV_OK) return rc;
    th_hpa_search_run(q, h, m, UINT64_MAX);
    return th_hpa_search_path(q, h, m, path, max, len, cost);
}

/* ---- IDA* on the abstract graph ------------------------------------------------------------ */

/* The abstract neighbours of u in this search (as th_hpa_search_run relaxes them). */
static uint32_t neighbours(const th_hpa_query *q, const th_hpa *h, const th_navmap *m, uint32_t u,
                           uint32_t *v, uint32_t *w) {
    const uint32_t W = (uint32_t)m->w, maxn = h->maxn;
    uint32_t n = 0;
    if (u == q->G) return 0;
    if (u == q->S) {
        for (uint32_t b = 0; b < h->node_count[q->scl]; b++) {
            uint32_t x = q->scl * maxn + b,
                     d = q->st.dist[th_hpa_ls_local(&q->st, h->node_cell[x], W)];
            if (d != INF) v[n] = x, w[n++] = d;
        }
        if (q->direct != INF) v[n] = q->G, w[n++] = q->direct;
        return n;
    }
    uint32_t c = u / maxn, a = u % maxn;
    const uint32_t *row = h->edge + ((size_t)c * maxn + a) * maxn;
    for (uint32_t b = 0; b < h->node_count[c]; b++)
        if (b != a && row[b] != INF) v[n] = c * maxn + b, w[n++] = row[b];
    for (int s = 0; s < 4; s++) {
        uint32_t f = h->side_first[c * 4u + (uint32_t)s];
        if (a < f || a >= f + h->side_count[c * 4u + (uint32_t)s]) continue;
        uint32_t nb = th_hpa_neighbour(h, c, s);
        v[n] = nb * maxn + h->side_first[nb * 4u + 3u - (uint32_t)s] + (a - f);
        w[n] = (m->cost[h->node_cell[u]] + m->cost[h->node_cell[v[n]]]) * TH_NAV_STEP_STRAIGHT;
        n++;
        break;
    }
    if (a >= th_hpa_link_first(h, c) && h->node_link[u] != NONE) {
        v[n] = h->node_link[u];
        w[n] = th_hpa_link_cost(h, m, u, v[n]);
        n++;
    }
    if (c == q->gcl) {
        uint32_t d = q->gt.dist[th_hpa_ls_local(&q->gt, h->node_cell[u], W)];
        if (d != INF) v[n] = q->G, w[n++] = d;
    }
    return n;
}

int th_hpa_ida_cost(th_hpa_query *q, const th_hpa *h, const th_navmap *m, int32_t sx, int32_t sy,
                    int32_t gx, int32_t gy, uint64_t max_expansions, uint32_t *cost,
                    uint64_t *expanded) {
    if (cost) *cost = TH_NAV_UNREACHABLE;
    if (expanded) *expanded = 0;
    int rc = th_hpa_search_start(q, h, m, sx, sy, gx, gy);
    if (rc != TH_NAV_OK) return rc;
    if (q->state == TH_HPA_NOPATH) return TH_NAV_ENOPATH;
    /* Depth-first within an f bound raised to the least f that exceeded it, each pass from the
     * start. The stack holds (node, g, next neighbour); q->route marks the nodes on it (by
     * stamp), so a path never revisits a node. Bounds come from the same function as A*'s. */
    const uint32_t cmin = th_navmap_min_cost(m), gen = q->gen;
    uint32_t *node = q->route, *next = q->ida_next, *gs = q->ida_g;
    uint32_t nv[TH_HPA_MAX_SLOTS + 3u], nw[TH_HPA_MAX_SLOTS + 3u];
    uint64_t limit = q->nd[q->S].hval, done = 0;
    /* hpos marks a node on the current path with `gen`; stamp records hval as computed. */
    for (;;) {
        uint64_t over = UINT64_MAX;
        uint32_t depth = 1;
        node[0] = q->S;
        gs[0] = 0;
        next[0] = 0;
        q->nd[q->S].hpos = gen;
        while (depth) {
            uint32_t u = node[depth - 1];
            if (u == q->G) {
                if (cost) *cost = gs[depth - 1];
                if (expanded) *expanded = done;
                q->stats.abstract_expanded += done;
                q->state = TH_HPA_IDLE;
                return TH_NAV_OK;
            }
            uint32_t n = neighbours(q, h, m, u, nv, nw);
            if (next[depth - 1] == 0) {
                if (++done > max_expansions && max_expansions) {
                    if (expanded) *expanded = done;
                    q->state = TH_HPA_IDLE;
                    return TH_NAV_ETOOLONG;
                }
            }
            bool pushed = false;
            while (next[depth - 1] < n) {
                uint32_t k = next[depth - 1]++;
                uint32_t v = nv[k];
                if (v != q->G && q->nd[v].stamp == gen && q->nd[v].hpos == gen)
                    continue; /* on path */
                uint64_t g = (uint64_t)gs[depth - 1] + nw[k];
                if (g > TH_NAV_DIST_MAX) continue;
                if (q->nd[v].stamp != gen) {
                    q->nd[v].stamp = gen;
                    q->nd[v].hpos = 0;
                    q->nd[v].hval = v == q->G ? 0u : bound(q, h, v, cmin);
                }
                uint64_t f = g + q->nd[v].hval;
                if (f > limit) {
                    over = f < over ? f : over;
                    continue;
                }
                if (depth == TH_HPA_IDA_DEPTH || depth == q->nnodes) {
                    q->state = TH_HPA_IDLE;
                    return TH_NAV_ETOOLONG;
                }
                node[depth] = v;
                gs[depth] = (uint32_t)g;
                next[depth] = 0;
                if (v != q->G) q->nd[v].hpos = gen;
                depth++;
                pushed = true;
                break;
            }
            if (!pushed) {
                if (u != q->S) q->nd[u].hpos = 0;
                depth--;
            }
        }
        q->nd[q->S].hpos = 0;
        if (over == UINT64_MAX) {
            q->state = TH_HPA_NOPATH;
            if (expanded) *expanded = done;
            return TH_NAV_ENOPATH;
        }
        limit = over;
    }
}
