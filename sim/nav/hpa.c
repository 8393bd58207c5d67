/* HPA*: clusters, entrances, intra-cluster edges, queries, refinement (see hpa.h). */
#include "sim/nav/hpa.h"

#include <stdlib.h>
#include <string.h>

#include "engine/alloc.h"
#include "engine/check.h"
#include "engine/hash.h"

#define NONE     UINT32_MAX
#define INF      UINT32_MAX
#define CLOSED   (UINT32_MAX - 1u) /* hpos: expanded */
#define NOTQ     UINT32_MAX        /* hpos: never queued */
#define L_CLOSED 0xFFFFu           /* local pos: expanded */

/* Sides of a cluster, in the order its nodes are listed: south (row y0, against the cluster
 * below), west, east, north. The side facing side s from the neighbour is 3 - s. */
enum { SOUTH, WEST, EAST, NORTH };

/* A Dijkstra bounded by one cluster's box, on an indexed binary heap keyed (dist, local id):
 * the order, hence every tree, depends only on the map. */
typedef struct lsearch {
    int32_t bx, by, bw, bh; /* box */
    uint32_t *dist;         /* per local cell */
    uint32_t *key;   /* per local cell: dist + the bound toward `stop` (dist alone without) */
    uint8_t *parent; /* move that reached the cell */
    uint8_t *want;   /* per local cell: 1 for a cell the search must settle (0 at rest) */
    uint32_t wanted; /* cells marked in `want` and not settled yet */
    uint16_t *pos;   /* heap position + 1; 0 not queued; L_CLOSED expanded */
    uint16_t *heap;
    uint32_t n;
} lsearch;

struct th_hpa {
    int32_t w, h;
    uint32_t C, cw, ch, ncl, maxn;
    uint32_t *node_cell; /* [ncl * maxn] map cell of each node */
    uint8_t *node_count; /* [ncl] */
    uint8_t *side_first; /* [ncl * 4] first node of each side */
    uint8_t *side_count; /* [ncl * 4] */
    uint32_t *edge;      /* [ncl * maxn * maxn] intra-cluster cost, INF = none */
    uint32_t *version;   /* [ncl] bumped at each rebuild of the cluster (edge caches) */
    uint32_t *node_xy;   /* [ncl * maxn] x | y << 16 of each node (no division in bounds) */
    uint32_t *comp;      /* [ncl * maxn] connected component of each node (a node id) */
    /* Landmark (ALT) bounds on the abstract graph: lm[v * TH_HPA_LANDMARKS + k] = abstract
     * distance between landmark node k and node v (INF: not joined). Valid while lm_ok: a
     * repair clears it, and queries keep the octile bound until th_hpa_landmarks_build. */
    uint32_t *lm;
    bool lm_ok;
    uint32_t *lm_pos[TH_HPA_LANDMARKS], *lm_heap[TH_HPA_LANDMARKS]; /* per landmark search */
    uint32_t *list;                                                 /* [ncl] clusters to rebuild */
    uint32_t workers;
    lsearch *scr; /* [workers] */
    uint64_t *cells_per_worker;
    bool built;
    th_hpa_info info;
};

/* One abstract node's search record, in one place: a relaxation touches one cache line. */
typedef struct qnode {
    uint32_t g;      /* cost from the start */
    uint32_t parent; /* node it was reached from */
    uint32_t stamp;  /* search that last touched it */
    uint32_t hpos;   /* open-set position, NOTQ or CLOSED */
    uint32_t hval;   /* its bound */
} qnode;

typedef struct qent {
    uint64_t f;  /* g + bound */
    uint32_t ng; /* ~g: a larger g sorts first */
    uint32_t node;
} qent;

struct th_hpa_query {
    int32_t w, h;
    uint32_t C, cw, maxn, nnodes, S, G;
    qnode *nd;                  /* per abstract node: this search's record */
    uint32_t *ida_next, *ida_g; /* IDA*'s stack: next edge and cost per depth */
    struct qent *heap;          /* open set: keys inline, so a sift reads one array */
    uint32_t hn, gen;
    lsearch st, gt, rs; /* start tree, goal tree, refinement */
    int32_t sx, sy, gx, gy;
    uint32_t scl, gcl, direct;
    bool use_lm;                        /* landmark bounds for this search */
    uint32_t lm_goal[TH_HPA_LANDMARKS]; /* d(L_k, goal), INF = landmark unused */
    th_hpa_state state;
    uint32_t *route, route_len;
    /* Edge cache, direct-mapped: key (cluster, lower node, higher node) + 1, the cluster's
     * version when refined, and the moves from the lower node's cell to the higher's. */
    uint32_t cache_mask;
    uint64_t *ckey;
    uint32_t *cver;
    uint16_t *clen;
    uint8_t *cmoves;
    th_hpa_query_stats stats;
};

static inline uint32_t octile_xy(int32_t dx, int32_t dy, uint32_t cmin) {
    uint32_t lo = (uint32_t)(dx < dy ? dx : dy), hi = (uint32_t)(dx < dy ? dy : dx);
    return 2u * cmin * (TH_NAV_STEP_DIAG * lo + TH_NAV_STEP_STRAIGHT * (hi - lo));
}

/* ---- bounded Dijkstra ------------------------------------------------------------------- */

static bool ls_init(lsearch *s, uint32_t C) {
    size_t n = (size_t)C * C;
    s->dist = th_alloc(n * sizeof *s->dist);
    s->key = th_alloc(n * sizeof *s->key);
    s->parent = th_alloc(n * sizeof *s->parent);
    s->want = th_calloc(n, 1);
    s->pos = th_alloc(n * sizeof *s->pos);
    s->heap = th_alloc(n * sizeof *s->heap);
    return s->dist && s->key && s->parent && s->want && s->pos && s->heap;
}

static void ls_free(lsearch *s) {
    th_free(s->dist);
    th_free(s->key);
    th_free(s->want);
    th_free(s->parent);
    th_free(s->pos);
    th_free(s->heap);
}

static inline bool ls_less(const lsearch *s, uint16_t a, uint16_t b) {
    if (s->key[a] != s->key[b]) return s->key[a] < s->key[b];
    if (s->dist[a] != s->dist[b]) return s->dist[a] > s->dist[b]; /* deeper first */
    return a < b;
}

static void ls_up(lsearch *s, uint32_t i) {
    uint16_t v = s->heap[i];
    while (i > 0) {
        uint32_t p = (i - 1) / 2;
        if (!ls_less(s, v, s->heap[p])) break;
        s->heap[i] = s->heap[p];
        s->pos[s->heap[i]] = (uint16_t)(i + 1);
        i = p;
    }
    s->heap[i] = v;
    s->pos[v] = (uint16_t)(i + 1);
}

static uint16_t ls_pop(lsearch *s) {
    uint16_t top = s->heap[0];
    uint16_t last = s->heap[--s->n];
    uint32_t i = 0;
    if (s->n) {
        for (;;) {
            uint32_t l = 2 * i + 1, r = l + 1, m = i;
            uint16_t mv = last;
            if (l < s->n && ls_less(s, s->heap[l], mv)) {
                m = l;
                mv = s->heap[l];
            }
            if (r < s->n && ls_less(s, s->heap[r], mv)) m = r;
            if (m == i) break;
            s->heap[i] = s->heap[m];
            s->pos[s->heap[i]] = (uint16_t)(i + 1);
            i = m;
        }
        s->heap[i] = last;
        s->pos[last] = (uint16_t)(i + 1);
    }
    s->pos[top] = L_CLOSED;
    return top;
}

/* Dijkstra from map cell (x, y) inside the box, every move the map allows that stays in the
 * box; with a `stop` cell (local index; NONE: the whole box) it is A* toward it with the
 * octile bound scaled by `cmin` (consistent, so the cost found is the optimum within the box)
 * and ends when it is expanded. Returns cells expanded. */
static uint64_t ls_run(lsearch *s, const th_navmap *m, int32_t bx, int32_t by, int32_t bw,
                       int32_t bh, int32_t x, int32_t y, uint32_t stop, uint32_t cmin) {
    s->bx = bx;
    s->by = by;
    s->bw = bw;
    s->bh = bh;
    uint32_t n = (uint32_t)bw * (uint32_t)bh;
    for (uint32_t i = 0; i < n; i++) {
        s->dist[i] = INF;
        s->pos[i] = 0;
    }
    s->n = 0;
    const int32_t sx = stop == NONE ? 0 : (int32_t)(stop % (uint32_t)bw);
    const int32_t sy = stop == NONE ? 0 : (int32_t)(stop / (uint32_t)bw);
#define BOUND(lx, ly) (stop == NONE ? 0u : octile_xy(abs((lx)-sx), abs((ly)-sy), cmin))
    uint32_t src = (uint32_t)((y - by) * bw + (x - bx));
    s->dist[src] = 0;
    s->key[src] = BOUND(x - bx, y - by);
    s->parent[src] = 0;
    s->heap[s->n++] = (uint16_t)src;
    s->pos[src] = 1;
    uint64_t expanded = 0;
    const uint32_t W = (uint32_t)m->w;
    while (s->n) {
        uint16_t c = ls_pop(s);
        expanded++;
        if (c == stop) break;
        if (s->want[c]) {
            s->want[c] = 0;
            /* Every wanted cell settled: their costs and tree branches are final. */
            if (--s->wanted == 0) break;
        }
        int32_t lx = c % bw, ly = c / bw;
        uint32_t cell = (uint32_t)(ly + by) * W + (uint32_t)(lx + bx);
        uint32_t cc = m->cost[cell], dc = s->dist[c];
        unsigned mask = m->moves[cell];
        while (mask) {
            int k = __builtin_ctz(mask);
            mask &= mask - 1u;
            int32_t nx = lx + th_nav_move_dx[k], ny = ly + th_nav_move_dy[k];
            if (nx < 0 || ny < 0 || nx >= bw || ny >= bh) continue;
            uint16_t nl = (uint16_t)(ny * bw + nx);
            if (s->pos[nl] == L_CLOSED) continue;
            uint32_t ncell = (uint32_t)(ny + by) * W + (uint32_t)(nx + bx);
            uint32_t nd =
                dc + (cc + m->cost[ncell]) * (k < 4 ? TH_NAV_STEP_STRAIGHT : TH_NAV_STEP_DIAG);
            if (nd >= s->dist[nl]) continue;
            s->dist[nl] = nd;
            s->key[nl] = nd + BOUND(nx, ny);
            s->parent[nl] = (uint8_t)k;
            if (!s->pos[nl]) {
                s->heap[s->n] = nl;
                ls_up(s, s->n++);
            } else {
                ls_up(s, (uint32_t)s->pos[nl] - 1u);
            }
        }
    }
    if (s->wanted) { /* some wanted cell is cut off: leave `want` clear for the next run */
        for (uint32_t i = 0; i < n; i++) s->want[i] = 0;
        s->wanted = 0;
    }
    return expanded;
#undef BOUND
}

static inline uint32_t ls_local(const lsearch *s, uint32_t cell, uint32_t W) {
    return (cell / W - (uint32_t)s->by) * (uint32_t)s->bw + (cell % W - (uint32_t)s->bx);
}

/* ---- hierarchy --------------------------------------------------------------------------- */

static void cluster_box(const th_hpa *h, uint32_t c, int32_t *x0, int32_t *y0, int32_t *bw,
                        int32_t *bh) {
    uint32_t i = c % h->cw, j = c / h->cw;
    *x0 = (int32_t)(i * h->C);
    *y0 = (int32_t)(j * h->C);
    *bw = h->w - *x0 < (int32_t)h->C ? h->w - *x0 : (int32_t)h->C;
    *bh = h->h - *y0 < (int32_t)h->C ? h->h - *y0 : (int32_t)h->C;
}

/* Neighbour cluster across side s, NONE at the map's edge. */
static uint32_t neighbour(const th_hpa *h, uint32_t c, int s) {
    uint32_t i = c % h->cw, j = c / h->cw;
    switch (s) {
    case SOUTH: return j ? c - h->cw : NONE;
    case WEST: return i ? c - 1 : NONE;
    case EAST: return i + 1 < h->cw ? c + 1 : NONE;
    default: return j + 1 < h->ch ? c + h->cw : NONE;
    }
}

void th_hpa_destroy(th_hpa *h) {
    if (!h) return;
    th_free(h->node_cell);
    th_free(h->node_count);
    th_free(h->side_first);
    th_free(h->side_count);
    th_free(h->edge);
    th_free(h->version);
    th_free(h->comp);
    th_free(h->node_xy);
    th_free(h->lm);
    for (uint32_t k = 0; k < TH_HPA_LANDMARKS; k++) {
        th_free(h->lm_pos[k]);
        th_free(h->lm_heap[k]);
    }
    th_free(h->list);
    if (h->scr)
        for (uint32_t i = 0; i < h->workers; i++) ls_free(&h->scr[i]);
    th_free(h->scr);
    th_free(h->cells_per_worker);
    th_free(h);
}

th_hpa *th_hpa_create(const th_navmap *m, uint32_t cluster, uint32_t workers) {
    if (!m || !m->cost) return NULL;
    if (cluster == 0) cluster = TH_HPA_DEFAULT_CLUSTER;
    if (cluster < TH_HPA_MIN_CLUSTER || cluster > TH_HPA_MAX_CLUSTER) return NULL;
    if (workers == 0) workers = 1;
    if (workers > TH_POOL_MAX_WORKERS) workers = TH_POOL_MAX_WORKERS;
    th_hpa *h = th_calloc(1, sizeof *h);
    if (!h) return NULL;
    h->w = m->w;
    h->h = m->h;
    h->C = cluster;
    h->cw = ((uint32_t)m->w + cluster - 1) / cluster;
    h->ch = ((uint32_t)m->h + cluster - 1) / cluster;
    h->ncl = h->cw * h->ch;
    /* A side of C cells holds at most ceil(C / 2) transitions: a run shorter than
     * TH_HPA_SPLIT gives one and needs a blocked pair after it, a longer one gives two. */
    h->maxn = 4u * ((cluster + 1u) / 2u);
    size_t nn = (size_t)h->ncl * h->maxn;
    h->node_cell = th_alloc(nn * sizeof *h->node_cell);
    h->node_count = th_calloc(h->ncl, 1);
    h->side_first = th_calloc((size_t)h->ncl * 4u, 1);
    h->side_count = th_calloc((size_t)h->ncl * 4u, 1);
    h->edge = th_alloc(nn * h->maxn * sizeof *h->edge);
    h->version = th_calloc(h->ncl, sizeof *h->version);
    h->comp = th_alloc(nn * sizeof *h->comp);
    h->node_xy = th_alloc(nn * sizeof *h->node_xy);
    h->lm = th_alloc(nn * TH_HPA_LANDMARKS * sizeof *h->lm);
    bool lm_ok = h->lm != NULL;
    for (uint32_t k = 0; k < TH_HPA_LANDMARKS; k++) {
        h->lm_pos[k] = th_alloc(nn * sizeof *h->lm_pos[k]);
        h->lm_heap[k] = th_alloc(nn * sizeof *h->lm_heap[k]);
        lm_ok = lm_ok && h->lm_pos[k] && h->lm_heap[k];
    }
    h->list = th_alloc((size_t)h->ncl * sizeof *h->list);
    h->workers = workers;
    h->scr = th_calloc(workers, sizeof *h->scr);
    h->cells_per_worker = th_calloc(workers, sizeof *h->cells_per_worker);
    bool ok = h->node_cell && h->node_count && h->side_first && h->side_count && h->edge &&
              h->version && h->comp && h->node_xy && lm_ok && h->list && h->scr &&
              h->cells_per_worker;
    for (uint32_t i = 0; ok && i < workers; i++) ok = ls_init(&h->scr[i], cluster);
    if (!ok) {
        th_hpa_destroy(h);
        return NULL;
    }
    h->info.cluster = cluster;
    h->info.clusters = h->ncl;
    h->info.max_nodes = h->maxn;
    h->info.bytes = sizeof *h +
                    nn * (3u * sizeof *h->node_cell + h->maxn * sizeof *h->edge +
                          3u * TH_HPA_LANDMARKS * sizeof(uint32_t)) +
                    (size_t)h->ncl * (1u + 8u + 2u * sizeof(uint32_t)) +
                    (size_t)workers * cluster * cluster * 9u;
    return h;
}

/* Cell t along side s of the box (x, y, bw, bh), and the cell across the border (o*). */
static void side_cell(int s, int32_t x0, int32_t y0, int32_t bw, int32_t bh, int32_t t, int32_t *ix,
                      int32_t *iy, int32_t *ox, int32_t *oy) {
    int32_t x, y, dx = 0, dy = 0;
    switch (s) {
    case SOUTH: x = x0 + t, y = y0, dy = -1; break;
    case NORTH: x = x0 + t, y = y0 + bh - 1, dy = 1; break;
    case WEST: x = x0, y = y0 + t, dx = -1; break;
    default: x = x0 + bw - 1, y = y0 + t, dx = 1; break;
    }
    *ix = x;
    *iy = y;
    if (ox) *ox = x + dx;
    if (oy) *oy = y + dy;
}

/* The transition of the run part [a, b) along side s: the pair whose crossing is cheapest
 * (on terrain of one cost, every pair), nearest to `pref` among equals, the lower on a tie.
 * The paper places transitions by position alone; on weighted terrain that can force routes
 * through a dear cell beside a cheap one. */
static int32_t cheapest(const th_navmap *m, int s, int32_t x0, int32_t y0, int32_t bw, int32_t bh,
                        int32_t a, int32_t b, int32_t pref) {
    int32_t best = a;
    uint32_t bc = UINT32_MAX, bd = UINT32_MAX;
    for (int32_t t = a; t < b; t++) {
        int32_t ix, iy, ox, oy;
        side_cell(s, x0, y0, bw, bh, t, &ix, &iy, &ox, &oy);
        uint32_t c = th_navmap_cost(m, ix, iy) + th_navmap_cost(m, ox, oy);
        uint32_t d = (uint32_t)abs(t - pref);
        if (c < bc || (c == bc && d < bd)) {
            best = t;
            bc = c;
            bd = d;
        }
    }
    return best;
}

/* Nodes of cluster c from its four borders, then its edges: one bounded Dijkstra from every
 * node but the last. Reads the map and writes only cluster c's records. */
static void build_cluster(th_hpa *h, const th_navmap *m, uint32_t c, uint32_t worker) {
    int32_t x0, y0, bw, bh;
    cluster_box(h, c, &x0, &y0, &bw, &bh);
    uint32_t *cells = h->node_cell + (size_t)c * h->maxn;
    uint32_t n = 0;
    const uint32_t W = (uint32_t)m->w;
    for (int s = 0; s < 4; s++) {
        h->side_first[c * 4u + (uint32_t)s] = (uint8_t)n;
        uint32_t first = n;
        if (neighbour(h, c, s) != NONE) {
            /* The side's cells in increasing order, with the cells across the border. */
            int32_t len = s == SOUTH || s == NORTH ? bw : bh;
            int32_t run = -1;
            for (int32_t t = 0; t <= len; t++) {
                bool open = false;
                int32_t ix = 0, iy = 0, ox = 0, oy = 0;
                if (t < len) {
                    side_cell(s, x0, y0, bw, bh, t, &ix, &iy, &ox, &oy);
                    open = !th_navmap_is_blocked(m, ix, iy) && !th_navmap_is_blocked(m, ox, oy);
                }
                if (open && run < 0) run = t;
                if (!open && run >= 0) {
                    int32_t pick[2], np = 0, L = t - run;
                    if (L < (int32_t)TH_HPA_SPLIT) {
                        pick[np++] = cheapest(m, s, x0, y0, bw, bh, run, t, run + (L - 1) / 2);
                    } else {
                        int32_t mid = run + L / 2;
                        pick[np++] = cheapest(m, s, x0, y0, bw, bh, run, mid, run);
                        pick[np++] = cheapest(m, s, x0, y0, bw, bh, mid, t, t - 1);
                    }
                    for (int p = 0; p < np; p++) {
                        int32_t px, py;
                        side_cell(s, x0, y0, bw, bh, pick[p], &px, &py, NULL, NULL);
                        h->node_xy[(size_t)c * h->maxn + n] = (uint32_t)px | (uint32_t)py << 16;
                        cells[n++] = (uint32_t)py * W + (uint32_t)px;
                    }
                    run = -1;
                }
            }
        }
        h->side_count[c * 4u + (uint32_t)s] = (uint8_t)(n - first);
    }
    TH_ASSERT(n <= h->maxn);
    h->node_count[c] = (uint8_t)n;
    uint32_t *e = h->edge + (size_t)c * h->maxn * h->maxn;
    memset(e, 0xff, (size_t)h->maxn * h->maxn * sizeof *e);
    lsearch *s = &h->scr[worker];
    uint64_t work = 0;
    for (uint32_t a = 0; a < n; a++) {
        e[a * h->maxn + a] = 0;
        if (a + 1 == n) break;
        work +=
            ls_run(s, m, x0, y0, bw, bh, (int32_t)(cells[a] % W), (int32_t)(cells[a] / W), NONE, 1);
        for (uint32_t b = a + 1; b < n; b++) {
            uint32_t d = s->dist[ls_local(s, cells[b], W)];
            e[a * h->maxn + b] = d;
            e[b * h->maxn + a] = d;
        }
    }
    h->version[c]++;
    h->cells_per_worker[worker] += work;
}

typedef struct build_job {
    th_hpa *h;
    const th_navmap *m;
} build_job;

static void build_range(void *ctx, uint32_t begin, uint32_t end, uint32_t worker) {
    build_job *j = ctx;
    for (uint32_t i = begin; i < end; i++) build_cluster(j->h, j->m, j->h->list[i], worker);
}

static uint32_t find_root(uint32_t *p, uint32_t v) {
    while (p[v] != v) {
        p[v] = p[p[v]];
        v = p[v];
    }
    return v;
}

/* Connected components of the abstract graph (union-find over intra-cluster edges and
 * transitions, each root the smallest node id of its component), so that a query whose ends
 * join no common component is answered without a search: the abstraction keeps the grid's
 * connectivity, so that is exactly an unreachable goal. Linear in nodes and edges. */
static void components(th_hpa *h) {
    uint32_t *p = h->comp;
    for (uint32_t c = 0; c < h->ncl; c++)
        for (uint32_t a = 0; a < h->maxn; a++) p[c * h->maxn + a] = c * h->maxn + a;
    for (uint32_t c = 0; c < h->ncl; c++) {
        uint32_t n = h->node_count[c];
        const uint32_t *e = h->edge + (size_t)c * h->maxn * h->maxn;
        for (uint32_t a = 0; a < n; a++) {
            for (uint32_t b = a + 1; b < n; b++) {
                if (e[a * h->maxn + b] == INF) continue;
                uint32_t ra = find_root(p, c * h->maxn + a), rb = find_root(p, c * h->maxn + b);
                if (ra < rb) p[rb] = ra;
                else if (rb < ra) p[ra] = rb;
            }
        }
        /* Transitions east and north: each pair once. */
        for (int s = EAST; s <= NORTH; s++) {
            uint32_t nb = neighbour(h, c, s), f = h->side_first[c * 4u + (uint32_t)s];
            if (nb == NONE) continue;
            uint32_t g = h->side_first[nb * 4u + 3u - (uint32_t)s];
            for (uint32_t k = 0; k < h->side_count[c * 4u + (uint32_t)s]; k++) {
                uint32_t ra = find_root(p, c * h->maxn + f + k),
                         rb = find_root(p, nb * h->maxn + g + k);
                if (ra < rb) p[rb] = ra;
                else if (rb < ra) p[ra] = rb;
            }
        }
    }
    for (uint32_t v = 0; v < h->ncl * h->maxn; v++) p[v] = find_root(p, v);
}

static void rebuild_list(th_hpa *h, const th_navmap *m, th_pool *pool, uint32_t count) {
    for (uint32_t i = 0; i < h->workers; i++) h->cells_per_worker[i] = 0;
    build_job j = {h, m};
    /* The per-worker scratch limits the pool that can be used; the result is the same. */
    if (pool && th_pool_workers(pool) <= h->workers)
        th_pool_parallel_for(pool, count, 4, build_range, &j);
    else build_range(&j, 0, count, 0);
    uint64_t cells = 0;
    for (uint32_t i = 0; i < h->workers; i++) cells += h->cells_per_worker[i];
    uint32_t nodes = 0, edges = 0;
    for (uint32_t c = 0; c < h->ncl; c++) {
        uint32_t n = h->node_count[c];
        nodes += n;
        const uint32_t *e = h->edge + (size_t)c * h->maxn * h->maxn;
        for (uint32_t a = 0; a < n; a++)
            for (uint32_t b = 0; b < n; b++) edges += a != b && e[a * h->maxn + b] != INF;
    }
    components(h);
    h->info.nodes = nodes;
    h->info.intra_edges = edges;
    h->info.build_cells = cells;
    h->info.rebuilt = count;
}

/* Dijkstra on the abstract graph from node `src`, distances into lm[v * K + k]. An indexed
 * binary heap keyed (distance, node id): the result depends on the graph alone. */
typedef struct lm_job {
    th_hpa *h;
    const th_navmap *m;
    uint32_t src[TH_HPA_LANDMARKS];
} lm_job;

static void lm_search(th_hpa *h, const th_navmap *m, uint32_t k, uint32_t src) {
    const uint32_t K = TH_HPA_LANDMARKS, nn = h->ncl * h->maxn, maxn = h->maxn;
    uint32_t *d = h->lm, *pos = h->lm_pos[k], *heap = h->lm_heap[k], n = 0;
    for (uint32_t v = 0; v < nn; v++) {
        d[(size_t)v * K + k] = INF;
        pos[v] = NOTQ;
    }
#define DIST(v)    d[(size_t)(v)*K + k]
#define LESS(a, b) (DIST(a) < DIST(b) || (DIST(a) == DIST(b) && (a) < (b)))
    DIST(src) = 0;
    heap[n] = src;
    pos[src] = n++;
    while (n) {
        uint32_t u = heap[0], last = heap[--n], i = 0;
        if (n) {
            for (;;) {
                uint32_t l = 2 * i + 1, r = l + 1, mi = i, mv = last;
                if (l < n && LESS(heap[l], mv)) {
                    mi = l;
                    mv = heap[l];
                }
                if (r < n && LESS(heap[r], mv)) mi = r;
                if (mi == i) break;
                heap[i] = heap[mi];
                pos[heap[i]] = i;
                i = mi;
            }
            heap[i] = last;
            pos[last] = i;
        }
        pos[u] = CLOSED;
        uint32_t c = u / maxn, a = u % maxn, cnt = h->node_count[c];
        const uint32_t *row = h->edge + ((size_t)c * maxn + a) * maxn;
        uint32_t nbv[TH_HPA_MAX_CLUSTER * 2 + 1], nbw[TH_HPA_MAX_CLUSTER * 2 + 1], nb = 0;
        for (uint32_t b = 0; b < cnt; b++) {
            if (b == a || row[b] == INF) continue;
            nbv[nb] = c * maxn + b;
            nbw[nb++] = row[b];
        }
        for (int s = 0; s < 4; s++) {
            uint32_t f = h->side_first[c * 4u + (uint32_t)s];
            if (a < f || a >= f + h->side_count[c * 4u + (uint32_t)s]) continue;
            uint32_t o = neighbour(h, c, s);
            uint32_t v = o * maxn + h->side_first[o * 4u + 3u - (uint32_t)s] + (a - f);
            nbv[nb] = v;
            nbw[nb++] =
                (m->cost[h->node_cell[u]] + m->cost[h->node_cell[v]]) * TH_NAV_STEP_STRAIGHT;
            break;
        }
        for (uint32_t e = 0; e < nb; e++) {
            uint32_t v = nbv[e];
            if (pos[v] == CLOSED) continue;
            uint64_t nd = (uint64_t)DIST(u) + nbw[e];
            if (nd >= DIST(v)) continue;
            DIST(v) = (uint32_t)nd;
            if (pos[v] == NOTQ) {
                heap[n] = v;
                pos[v] = n++;
            }
            uint32_t j = pos[v];
            while (j > 0) {
                uint32_t p = (j - 1) / 2;
                if (!LESS(v, heap[p])) break;
                heap[j] = heap[p];
                pos[heap[j]] = j;
                j = p;
            }
            heap[j] = v;
            pos[v] = j;
        }
    }
#undef LESS
#undef DIST
}

static void lm_range(void *ctx, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    lm_job *j = ctx;
    for (uint32_t k = begin; k < end; k++) lm_search(j->h, j->m, k, j->src[k]);
}

int th_hpa_landmarks_build(th_hpa *h, const th_navmap *m, th_pool *pool) {
    if (!h || !m || !m->cost || m->w != h->w || m->h != h->h || !h->built) return TH_NAV_EINVAL;
    /* The node nearest each corner and edge midpoint (octile distance, lowest id on ties), so
     * that most routes run roughly toward or away from one of them. */
    const int32_t W = h->w - 1, H = h->h - 1;
    const int32_t px[TH_HPA_LANDMARKS] = {0, W, 0, W, W / 2, W / 2, 0, W};
    const int32_t py[TH_HPA_LANDMARKS] = {0, 0, H, H, 0, H, H / 2, H / 2};
    lm_job j = {h, m, {0}};
    uint32_t nn = h->ncl * h->maxn, have = 0;
    for (uint32_t c = 0; c < h->ncl; c++) have += h->node_count[c];
    if (!have) {
        h->lm_ok = false;
        return TH_NAV_OK;
    }
    for (uint32_t k = 0; k < TH_HPA_LANDMARKS; k++) {
        uint32_t best = INF, bd = INF;
        for (uint32_t v = 0; v < nn; v++) {
            if (v % h->maxn >= h->node_count[v / h->maxn]) continue;
            uint32_t cell = h->node_cell[v];
            uint32_t d = octile_xy(abs((int32_t)(cell % (uint32_t)h->w) - px[k]),
                                   abs((int32_t)(cell / (uint32_t)h->w) - py[k]), 1);
            if (d < bd) {
                bd = d;
                best = v;
            }
        }
        j.src[k] = best;
    }
    if (pool) th_pool_parallel_for(pool, TH_HPA_LANDMARKS, 1, lm_range, &j);
    else lm_range(&j, 0, TH_HPA_LANDMARKS, 0);
    h->lm_ok = true;
    return TH_NAV_OK;
}

static bool map_fits(const th_hpa *h, const th_navmap *m) {
    return h && m && m->cost && m->w == h->w && m->h == h->h && !m->moves_stale;
}

int th_hpa_build(th_hpa *h, const th_navmap *m, th_pool *pool) {
    if (!map_fits(h, m)) return TH_NAV_EINVAL;
    for (uint32_t c = 0; c < h->ncl; c++) h->list[c] = c;
    rebuild_list(h, m, pool, h->ncl);
    h->built = true;
    return th_hpa_landmarks_build(h, m, pool);
}

int th_hpa_cells_changed(th_hpa *h, const th_navmap *m, th_pool *pool, int32_t x0, int32_t y0,
                         int32_t x1, int32_t y1) {
    if (!map_fits(h, m)) return TH_NAV_EINVAL;
    if (!h->built) return th_hpa_build(h, m, pool);
    if (x0 > x1 || y0 > y1 || x1 < 0 || y1 < 0 || x0 >= h->w || y0 >= h->h) return TH_NAV_ERANGE;
    /* The ring: a changed cell changes its neighbours' diagonal moves, and the entrance runs of
     * a border it lies on, which the cluster across that border lists too. */
    x0 = x0 - 1 < 0 ? 0 : x0 - 1;
    y0 = y0 - 1 < 0 ? 0 : y0 - 1;
    x1 = x1 + 1 >= h->w ? h->w - 1 : x1 + 1;
    y1 = y1 + 1 >= h->h ? h->h - 1 : y1 + 1;
    uint32_t n = 0;
    for (uint32_t j = (uint32_t)y0 / h->C; j <= (uint32_t)y1 / h->C; j++)
        for (uint32_t i = (uint32_t)x0 / h->C; i <= (uint32_t)x1 / h->C; i++)
            h->list[n++] = j * h->cw + i;
    rebuild_list(h, m, pool, n);
    h->lm_ok = false;
    return TH_NAV_OK;
}

th_hpa_info th_hpa_get_info(const th_hpa *h) {
    th_hpa_info z;
    memset(&z, 0, sizeof z);
    return h ? h->info : z;
}

bool th_hpa_built(const th_hpa *h) { return h && h->built; }

uint64_t th_hpa_digest(const th_hpa *h) {
    if (!h) return 0;
    th_hasher s = th_hash_begin();
    for (uint32_t c = 0; c < h->ncl; c++) {
        uint32_t n = h->node_count[c];
        th_hash_u32(&s, n);
        for (uint32_t k = 0; k < 4; k++) {
            th_hash_u32(&s, h->side_first[c * 4u + k]);
            th_hash_u32(&s, h->side_count[c * 4u + k]);
        }
        const uint32_t *e = h->edge + (size_t)c * h->maxn * h->maxn;
        for (uint32_t a = 0; a < n; a++) {
            th_hash_u32(&s, h->node_cell[(size_t)c * h->maxn + a]);
            for (uint32_t b = 0; b < n; b++) th_hash_u32(&s, e[a * h->maxn + b]);
            for (uint32_t k = 0; h->lm_ok && k < TH_HPA_LANDMARKS; k++)
                th_hash_u32(&s, h->lm[((size_t)c * h->maxn + a) * TH_HPA_LANDMARKS + k]);
        }
    }
    th_hash_u32(&s, h->lm_ok);
    return th_hash_end(&s);
}

/* ---- queries ---------------------------------------------------------------------------- */

void th_hpa_query_destroy(th_hpa_query *q) {
    if (!q) return;
    th_free(q->nd);
    th_free(q->ida_next);
    th_free(q->ida_g);
    th_free(q->heap);
    th_free(q->route);
    ls_free(&q->st);
    ls_free(&q->gt);
    ls_free(&q->rs);
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
              q->clen && q->cmoves && ls_init(&q->st, h->C) && ls_init(&q->gt, h->C) &&
              ls_init(&q->rs, h->C);
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

/* Lower bound of node v's cost to the goal: octile, raised by the landmarks in use. */
static uint32_t bound(const th_hpa_query *q, const th_hpa *h, uint32_t v, uint32_t cmin) {
    int32_t x, y;
    if (v == q->S) {
        x = q->sx;
        y = q->sy;
    } else {
        x = (int32_t)(h->node_xy[v] & 0xffffu);
        y = (int32_t)(h->node_xy[v] >> 16);
    }
    uint32_t b = octile_xy(abs(x - q->gx), abs(y - q->gy), cmin);
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
        uint32_t d = t->dist[ls_local(t, h->node_cell[v], W)];
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
    return q && map_fits(h, m) && h->built && q->w == h->w && q->h == h->h && q->C == h->C;
}

/* The search tree of an inserted end in its cluster, stopped once every node of the cluster
 * (and `extra`, a cell of it or NONE) is settled. */
static uint64_t insert_end(const th_hpa *h, const th_navmap *m, lsearch *t, uint32_t cl, int32_t x,
                           int32_t y, uint32_t extra) {
    int32_t x0, y0, bw, bh;
    cluster_box(h, cl, &x0, &y0, &bw, &bh);
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
    return ls_run(t, m, x0, y0, bw, bh, x, y, NONE, 1);
}

/* Whether some node the start reaches in its cluster and some node the goal reaches in its
 * cluster share a component. */
static bool joined(const th_hpa_query *q, const th_hpa *h, const th_navmap *m) {
    const uint32_t W = (uint32_t)m->w, maxn = h->maxn;
    uint32_t ns = h->node_count[q->scl], ng = h->node_count[q->gcl];
    for (uint32_t a = 0; a < ns; a++) {
        uint32_t u = q->scl * maxn + a;
        if (q->st.dist[ls_local(&q->st, h->node_cell[u], W)] == INF) continue;
        for (uint32_t b = 0; b < ng; b++) {
            uint32_t v = q->gcl * maxn + b;
            if (h->comp[u] == h->comp[v] && q->gt.dist[ls_local(&q->gt, h->node_cell[v], W)] != INF)
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
                    ? q->st.dist[ls_local(&q->st, (uint32_t)gy * (uint32_t)m->w + (uint32_t)gx,
                                          (uint32_t)m->w)]
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
    q->nd[q->S].hval = octile(node_cell(q, h, q->S), node_cell(q, h, q->G), (uint32_t)m->w, cmin);
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
                relax(q, h, u, v, q->st.dist[ls_local(&q->st, h->node_cell[v], W)], cmin);
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
            uint32_t nb = neighbour(h, c, s);
            uint32_t v = nb * maxn + h->side_first[nb * 4u + 3u - (uint32_t)s] + (a - f);
            uint32_t w =
                (m->cost[h->node_cell[u]] + m->cost[h->node_cell[v]]) * TH_NAV_STEP_STRAIGHT;
            relax(q, h, u, v, w, cmin);
            break;
        }
        if (c == q->gcl)
            relax(q, h, u, q->G, q->gt.dist[ls_local(&q->gt, h->node_cell[u], W)], cmin);
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
    cluster_box(h, c, &x0, &y0, &bw, &bh);
    uint32_t a = h->node_cell[c * maxn + lo], b = h->node_cell[c * maxn + hi];
    uint32_t stop = (b / W - (uint32_t)y0) * (uint32_t)bw + (b % W - (uint32_t)x0);
    q->stats.cells_expanded += ls_run(&q->rs, m, x0, y0, bw, bh, (int32_t)(a % W), (int32_t)(a / W),
                                      stop, th_navmap_min_cost(m));
    uint32_t n = 0;
    for (uint32_t cur = b; cur != a; n++) {
        int k = q->rs.parent[ls_local(&q->rs, cur, W)];
        cur = (uint32_t)((int32_t)cur - th_nav_move_dy[k] * m->w - th_nav_move_dx[k]);
    }
    uint32_t i = n;
    for (uint32_t cur = b; cur != a;) {
        int k = q->rs.parent[ls_local(&q->rs, cur, W)];
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
        int k = t->parent[ls_local(t, cur, W)];
        cur = (uint32_t)((int32_t)cur - th_nav_move_dy[k] * m->w - th_nav_move_dx[k]);
    }
    if (!reverse) {
        /* from (excluded) toward the root (included): the goal tree. */
        uint32_t cur = from;
        for (uint32_t i = 0; i < n; i++) {
            int k = t->parent[ls_local(t, cur, W)];
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
        int k = t->parent[ls_local(t, cur, W)];
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
        } else if (u / maxn != v / maxn) {
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
            uint32_t x = q->scl * maxn + b, d = q->st.dist[ls_local(&q->st, h->node_cell[x], W)];
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
        uint32_t nb = neighbour(h, c, s);
        v[n] = nb * maxn + h->side_first[nb * 4u + 3u - (uint32_t)s] + (a - f);
        w[n] = (m->cost[h->node_cell[u]] + m->cost[h->node_cell[v[n]]]) * TH_NAV_STEP_STRAIGHT;
        n++;
        break;
    }
    if (c == q->gcl) {
        uint32_t d = q->gt.dist[ls_local(&q->gt, h->node_cell[u], W)];
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
    uint32_t nv[2u * TH_HPA_MAX_CLUSTER + 2u], nw[2u * TH_HPA_MAX_CLUSTER + 2u];
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
