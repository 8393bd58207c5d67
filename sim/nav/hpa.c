/* HPA*, the hierarchy: clusters, entrances, intra-cluster edges, repair, components and
 * landmarks (see hpa.h; the searches on it are in hpa_search.c). */
#include <stdlib.h>
#include <string.h>

#include "engine/alloc.h"
#include "engine/check.h"
#include "engine/hash.h"
#include "sim/nav/hpa_private.h"

/* ---- bounded Dijkstra ------------------------------------------------------------------- */

bool th_hpa_ls_init(lsearch *s, uint32_t C) {
    size_t n = (size_t)C * C;
    s->dist = th_alloc(n * sizeof *s->dist);
    s->key = th_alloc(n * sizeof *s->key);
    s->parent = th_alloc(n * sizeof *s->parent);
    s->want = th_calloc(n, 1);
    s->pos = th_alloc(n * sizeof *s->pos);
    s->heap = th_alloc(n * sizeof *s->heap);
    return s->dist && s->key && s->parent && s->want && s->pos && s->heap;
}

void th_hpa_ls_free(lsearch *s) {
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
uint64_t th_hpa_ls_run(lsearch *s, const th_navmap *m, int32_t bx, int32_t by, int32_t bw,
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
#define BOUND(lx, ly) (stop == NONE ? 0u : th_hpa_octile_xy(abs((lx)-sx), abs((ly)-sy), cmin))
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

/* ---- hierarchy --------------------------------------------------------------------------- */

void th_hpa_cluster_box(const th_hpa *h, uint32_t c, int32_t *x0, int32_t *y0, int32_t *bw,
                        int32_t *bh) {
    uint32_t i = c % h->cw, j = c / h->cw;
    *x0 = (int32_t)(i * h->C);
    *y0 = (int32_t)(j * h->C);
    *bw = h->w - *x0 < (int32_t)h->C ? h->w - *x0 : (int32_t)h->C;
    *bh = h->h - *y0 < (int32_t)h->C ? h->h - *y0 : (int32_t)h->C;
}

/* Neighbour cluster across side s, NONE at the map's edge. */
uint32_t th_hpa_neighbour(const th_hpa *h, uint32_t c, int s) {
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
    th_free(h->node_dir);
    th_free(h->node_link);
    th_free(h->full);
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
        for (uint32_t i = 0; i < h->workers; i++) th_hpa_ls_free(&h->scr[i]);
    th_free(h->scr);
    th_free(h->cells_per_worker);
    th_free(h);
}

/* First glued edge out of a cell at or after `cell` (the map keeps them sorted by cell). */
static uint32_t link_lower(const th_navmap *m, uint32_t cell) {
    uint32_t lo = 0, hi = m->link_count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2u;
        if (m->links[mid].from < cell) lo = mid + 1u;
        else hi = mid;
    }
    return lo;
}

/* Glued edges out of the cells of the box (x0, y0, bw, bh), open or not. */
static uint32_t links_in_box(const th_navmap *m, int32_t x0, int32_t y0, int32_t bw, int32_t bh) {
    uint32_t n = 0;
    if (!m->link_count) return 0;
    for (int32_t y = y0; y < y0 + bh; y++) {
        uint32_t rs = (uint32_t)y * (uint32_t)m->w + (uint32_t)x0, re = rs + (uint32_t)bw;
        for (uint32_t i = link_lower(m, rs); i < m->link_count && m->links[i].from < re; i++) n++;
    }
    return n;
}

/* Most glued edges out of one cluster of side C. */
static uint32_t links_per_cluster(const th_navmap *m, uint32_t C) {
    uint32_t most = 0;
    if (!m->link_count) return 0;
    for (uint32_t y0 = 0; y0 < (uint32_t)m->h; y0 += C) {
        for (uint32_t x0 = 0; x0 < (uint32_t)m->w; x0 += C) {
            int32_t bw = m->w - (int32_t)x0 < (int32_t)C ? m->w - (int32_t)x0 : (int32_t)C;
            int32_t bh = m->h - (int32_t)y0 < (int32_t)C ? m->h - (int32_t)y0 : (int32_t)C;
            uint32_t n = links_in_box(m, (int32_t)x0, (int32_t)y0, bw, bh);
            most = n > most ? n : most;
        }
    }
    return most;
}

static uint32_t side_slots(uint32_t C) {
    /* A side of C cells holds at most ceil(C / 2) transitions: a run shorter than
     * TH_HPA_SPLIT gives one and needs a blocked pair after it, a longer one gives two. */
    return 4u * ((C + 1u) / 2u);
}

bool th_hpa_links_fit(const th_navmap *m, uint32_t cluster) {
    if (!m || !m->cost) return false;
    if (cluster == 0) cluster = TH_HPA_DEFAULT_CLUSTER;
    if (cluster < TH_HPA_MIN_CLUSTER || cluster > TH_HPA_MAX_CLUSTER) return false;
    return links_per_cluster(m, cluster) <= TH_HPA_MAX_SLOTS - side_slots(cluster);
}

bool th_hpa_holds_links(const th_hpa *h, const th_navmap *m) {
    if (!h || !m || m->w != h->w || m->h != h->h) return false;
    if (h->built && m->link_count == h->links) return h->overfull == 0;
    return links_per_cluster(m, h->C) <= h->link_cap;
}

th_hpa *th_hpa_create(const th_navmap *m, uint32_t cluster, uint32_t workers) {
    if (!m || !m->cost) return NULL;
    if (cluster == 0) cluster = TH_HPA_DEFAULT_CLUSTER;
    if (cluster < TH_HPA_MIN_CLUSTER || cluster > TH_HPA_MAX_CLUSTER) return NULL;
    /* Link slots: the most glued edges out of one cluster now, doubled (at least 8) for stairs
     * added later, within what a cluster's byte-sized counts allow; none on a map without
     * glued edges, whose memory stays as it was. */
    const uint32_t side_cap = side_slots(cluster), room = TH_HPA_MAX_SLOTS - side_cap;
    const uint32_t need = links_per_cluster(m, cluster);
    if (need > room) return NULL;
    uint32_t link_cap = need ? (2u * need > 8u ? 2u * need : 8u) : 0u;
    link_cap = link_cap < room ? link_cap : room;
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
    h->side_cap = side_cap;
    h->link_cap = link_cap;
    h->maxn = side_cap + link_cap;
    size_t nn = (size_t)h->ncl * h->maxn;
    h->node_cell = th_alloc(nn * sizeof *h->node_cell);
    h->node_dir = th_alloc(nn * sizeof *h->node_dir);
    h->node_link = th_alloc(nn * sizeof *h->node_link);
    h->full = th_calloc(h->ncl, 1);
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
    bool ok = h->node_cell && h->node_dir && h->node_link && h->full && h->node_count &&
              h->side_first && h->side_count && h->edge && h->version && h->comp && h->node_xy &&
              lm_ok && h->list && h->scr && h->cells_per_worker;
    for (uint32_t i = 0; ok && i < workers; i++) ok = th_hpa_ls_init(&h->scr[i], cluster);
    if (!ok) {
        th_hpa_destroy(h);
        return NULL;
    }
    h->info.cluster = cluster;
    h->info.clusters = h->ncl;
    h->info.max_nodes = h->maxn;
    h->info.link_slots = link_cap;
    h->info.bytes = sizeof *h +
                    nn * (4u * sizeof *h->node_cell + 1u + h->maxn * sizeof *h->edge +
                          3u * TH_HPA_LANDMARKS * sizeof(uint32_t)) +
                    (size_t)h->ncl * (2u + 8u + 2u * sizeof(uint32_t)) +
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
    th_hpa_cluster_box(h, c, &x0, &y0, &bw, &bh);
    uint32_t *cells = h->node_cell + (size_t)c * h->maxn;
    uint32_t n = 0;
    const uint32_t W = (uint32_t)m->w;
    for (int s = 0; s < 4; s++) {
        h->side_first[c * 4u + (uint32_t)s] = (uint8_t)n;
        uint32_t first = n;
        if (th_hpa_neighbour(h, c, s) != NONE) {
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
                        h->node_dir[(size_t)c * h->maxn + n] = NODIR;
                        cells[n++] = (uint32_t)py * W + (uint32_t)px;
                    }
                    run = -1;
                }
            }
        }
        h->side_count[c * 4u + (uint32_t)s] = (uint8_t)(n - first);
    }
    TH_ASSERT(n <= h->side_cap);
    /* Link nodes: one per glued edge out of an open cell of the cluster, in the map's order of
     * its glued edges (by cell, then direction); their partners across the seams are found
     * once every rebuilt cluster has its nodes (link_partners). A node exists whatever the
     * cell across, so the cluster's nodes depend on its own cells alone, as border nodes do
     * on its own and its border's cells. */
    uint32_t total = 0;
    for (int32_t y = y0; m->link_count && y < y0 + bh; y++) {
        uint32_t rs = (uint32_t)y * W + (uint32_t)x0, re = rs + (uint32_t)bw;
        for (uint32_t i = link_lower(m, rs); i < m->link_count && m->links[i].from < re; i++) {
            const th_nav_link *l = &m->links[i];
            total++;
            if (!m->cost[l->from] || n >= h->maxn) continue;
            h->node_xy[(size_t)c * h->maxn + n] = (l->from % W) | (l->from / W) << 16;
            h->node_dir[(size_t)c * h->maxn + n] = l->dir;
            cells[n++] = l->from;
        }
    }
    h->full[c] = total > h->link_cap;
    TH_ASSERT(n <= h->maxn);
    h->node_count[c] = (uint8_t)n;
    uint32_t *e = h->edge + (size_t)c * h->maxn * h->maxn;
    memset(e, 0xff, (size_t)h->maxn * h->maxn * sizeof *e);
    lsearch *s = &h->scr[worker];
    uint64_t work = 0;
    for (uint32_t a = 0; a < n; a++) {
        e[a * h->maxn + a] = 0;
        if (a + 1 == n) break;
        work += th_hpa_ls_run(s, m, x0, y0, bw, bh, (int32_t)(cells[a] % W),
                              (int32_t)(cells[a] / W), NONE, 1);
        for (uint32_t b = a + 1; b < n; b++) {
            uint32_t d = s->dist[th_hpa_ls_local(s, cells[b], W)];
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

/* Each link node's partner: the link node of the cell across its glued edge, in that cell's
 * cluster (NONE when that cell is blocked, so has no node). Over every cluster, since a
 * rebuilt cluster's node ids may have moved; linear in link nodes times a cluster's. */
static void link_partners(th_hpa *h, const th_navmap *m) {
    const uint32_t W = (uint32_t)m->w;
    for (uint32_t c = 0; c < h->ncl; c++) {
        for (uint32_t a = th_hpa_link_first(h, c); a < h->node_count[c]; a++) {
            const uint32_t u = c * h->maxn + a;
            const th_nav_link *l = th_navmap_link(m, h->node_cell[u], h->node_dir[u]);
            uint32_t v = NONE;
            if (l && m->cost[l->to]) {
                const uint32_t o = (l->to / W) / h->C * h->cw + (l->to % W) / h->C;
                const uint8_t back = (uint8_t)((l->dir + 2u) & 3u);
                for (uint32_t b = th_hpa_link_first(h, o); b < h->node_count[o]; b++) {
                    const uint32_t x = o * h->maxn + b;
                    if (h->node_cell[x] == l->to && h->node_dir[x] == back) {
                        v = x;
                        break;
                    }
                }
            }
            h->node_link[u] = v;
        }
    }
}

static uint32_t find_root(uint32_t *p, uint32_t v) {
    while (p[v] != v) {
        p[v] = p[p[v]];
        v = p[v];
    }
    return v;
}

/* Connected components of the abstract graph (union-find over intra-cluster edges, border
 * transitions and glued edges, each root the smallest node id of its component), so that a query
 * whose ends join no common component is answered without a search: the abstraction keeps the
 * grid's connectivity, so that is exactly an unreachable goal. Linear in nodes and edges. */
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
            uint32_t nb = th_hpa_neighbour(h, c, s), f = h->side_first[c * 4u + (uint32_t)s];
            if (nb == NONE) continue;
            uint32_t g = h->side_first[nb * 4u + 3u - (uint32_t)s];
            for (uint32_t k = 0; k < h->side_count[c * 4u + (uint32_t)s]; k++) {
                uint32_t ra = find_root(p, c * h->maxn + f + k),
                         rb = find_root(p, nb * h->maxn + g + k);
                if (ra < rb) p[rb] = ra;
                else if (rb < ra) p[ra] = rb;
            }
        }
        /* Glued edges: each pair twice, which union-find takes. */
        for (uint32_t a = th_hpa_link_first(h, c); a < n; a++) {
            const uint32_t o = h->node_link[c * h->maxn + a];
            if (o == NONE) continue;
            uint32_t ra = find_root(p, c * h->maxn + a), rb = find_root(p, o);
            if (ra < rb) p[rb] = ra;
            else if (rb < ra) p[ra] = rb;
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
    if (m->link_count) link_partners(h, m);
    h->links = m->link_count;
    uint32_t nodes = 0, edges = 0, link_nodes = 0, full = 0;
    for (uint32_t c = 0; c < h->ncl; c++) {
        uint32_t n = h->node_count[c];
        nodes += n;
        link_nodes += n - th_hpa_link_first(h, c);
        full += h->full[c];
        const uint32_t *e = h->edge + (size_t)c * h->maxn * h->maxn;
        for (uint32_t a = 0; a < n; a++)
            for (uint32_t b = 0; b < n; b++) edges += a != b && e[a * h->maxn + b] != INF;
    }
    components(h);
    h->overfull = full;
    h->info.nodes = nodes;
    h->info.link_nodes = link_nodes;
    h->info.full_clusters = full;
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
        uint32_t nbv[TH_HPA_MAX_SLOTS + 2u], nbw[TH_HPA_MAX_SLOTS + 2u], nb = 0;
        for (uint32_t b = 0; b < cnt; b++) {
            if (b == a || row[b] == INF) continue;
            nbv[nb] = c * maxn + b;
            nbw[nb++] = row[b];
        }
        for (int s = 0; s < 4; s++) {
            uint32_t f = h->side_first[c * 4u + (uint32_t)s];
            if (a < f || a >= f + h->side_count[c * 4u + (uint32_t)s]) continue;
            uint32_t o = th_hpa_neighbour(h, c, s);
            uint32_t v = o * maxn + h->side_first[o * 4u + 3u - (uint32_t)s] + (a - f);
            nbv[nb] = v;
            nbw[nb++] =
                (m->cost[h->node_cell[u]] + m->cost[h->node_cell[v]]) * TH_NAV_STEP_STRAIGHT;
            break;
        }
        if (a >= th_hpa_link_first(h, c) && h->node_link[u] != NONE) {
            nbv[nb] = h->node_link[u];
            nbw[nb++] = th_hpa_link_cost(h, m, u, h->node_link[u]);
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
            uint32_t d = th_hpa_octile_xy(abs((int32_t)(cell % (uint32_t)h->w) - px[k]),
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

bool th_hpa_map_fits(const th_hpa *h, const th_navmap *m) {
    return h && m && m->cost && m->w == h->w && m->h == h->h && !m->moves_stale;
}

int th_hpa_build(th_hpa *h, const th_navmap *m, th_pool *pool) {
    if (!th_hpa_map_fits(h, m)) return TH_NAV_EINVAL;
    for (uint32_t c = 0; c < h->ncl; c++) h->list[c] = c;
    rebuild_list(h, m, pool, h->ncl);
    h->built = true;
    return th_hpa_landmarks_build(h, m, pool);
}

int th_hpa_cells_changed(th_hpa *h, const th_navmap *m, th_pool *pool, int32_t x0, int32_t y0,
                         int32_t x1, int32_t y1) {
    if (!th_hpa_map_fits(h, m)) return TH_NAV_EINVAL;
    if (!h->built) return th_hpa_build(h, m, pool);
    if (x0 > x1 || y0 > y1 || x1 < 0 || y1 < 0 || x0 >= h->w || y0 >= h->h) return TH_NAV_ERANGE;
    if (m->link_count != h->links) {
        /* Edges were glued since: every cluster may have gained link nodes. */
        for (uint32_t c = 0; c < h->ncl; c++) h->list[c] = c;
        rebuild_list(h, m, pool, h->ncl);
        h->lm_ok = false;
        return TH_NAV_OK;
    }
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
            if (a >= th_hpa_link_first(h, c)) {
                th_hash_u32(&s, h->node_dir[(size_t)c * h->maxn + a]);
                th_hash_u32(&s, h->node_link[(size_t)c * h->maxn + a]);
            }
            for (uint32_t b = 0; b < n; b++) th_hash_u32(&s, e[a * h->maxn + b]);
            for (uint32_t k = 0; h->lm_ok && k < TH_HPA_LANDMARKS; k++)
                th_hash_u32(&s, h->lm[((size_t)c * h->maxn + a) * TH_HPA_LANDMARKS + k]);
        }
    }
    th_hash_u32(&s, h->lm_ok);
    return th_hash_end(&s);
}
