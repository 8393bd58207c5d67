/* HPA*'s private layout, shared by its two halves: sim/nav/hpa.c (clusters, entrances,
 * intra-cluster edges, repair, components, landmarks) and sim/nav/hpa_search.c (queries on the
 * abstract graph, refinement to cells, IDA*). Nothing outside them includes it: the interface
 * is sim/nav/hpa.h. */
#ifndef TH_HPA_PRIVATE_H
#define TH_HPA_PRIVATE_H

#include "sim/nav/hpa.h"

#define NONE             UINT32_MAX
#define INF              UINT32_MAX
#define CLOSED           (UINT32_MAX - 1u) /* hpos: expanded */
#define NOTQ             UINT32_MAX        /* hpos: never queued */
#define L_CLOSED         0xFFFFu           /* local pos: expanded */
#define NODIR            0xFFu             /* node_dir of a border node */
/* Most node slots one cluster can have (node_count and side_first are bytes). */
#define TH_HPA_MAX_SLOTS 255u

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
    /* Node slots per cluster: maxn = side_cap (border transitions, 4 * ceil(C / 2)) + link_cap
     * (glued edges out of the cluster's cells, sized at creation from the map's links). A
     * cluster's nodes are its border nodes side by side, then its link nodes. */
    uint32_t side_cap, link_cap;
    uint32_t *node_cell; /* [ncl * maxn] map cell of each node */
    uint8_t *node_dir;   /* [ncl * maxn] a link node's glued edge (straight move), NODIR */
    uint32_t *node_link; /* [ncl * maxn] the link node across its glued edge, NONE */
    uint8_t *full;       /* [ncl] 1: more glued edges leave the cluster than link_cap */
    uint32_t overfull;   /* clusters full: the hierarchy misses glued edges, queries refuse */
    uint32_t links;      /* the map's link_count when last built or repaired */
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
    bool glued;                         /* the map has glued edges: no octile bound */
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

static inline uint32_t th_hpa_octile_xy(int32_t dx, int32_t dy, uint32_t cmin) {
    uint32_t lo = (uint32_t)(dx < dy ? dx : dy), hi = (uint32_t)(dx < dy ? dy : dx);
    return 2u * cmin * (TH_NAV_STEP_DIAG * lo + TH_NAV_STEP_STRAIGHT * (hi - lo));
}

static inline uint32_t th_hpa_ls_local(const lsearch *s, uint32_t cell, uint32_t W) {
    return (cell / W - (uint32_t)s->by) * (uint32_t)s->bw + (cell % W - (uint32_t)s->bx);
}

/* First link node of cluster c (after its four sides' border nodes). */
static inline uint32_t th_hpa_link_first(const th_hpa *h, uint32_t c) {
    return (uint32_t)h->side_first[c * 4u + 3u] + h->side_count[c * 4u + 3u];
}

/* Cost of the move across a glued edge between the cells of nodes u and v: a straight move,
 * as the grid searches and fields take it (nav.h). */
static inline uint32_t th_hpa_link_cost(const th_hpa *h, const th_navmap *m, uint32_t u,
                                        uint32_t v) {
    return (m->cost[h->node_cell[u]] + m->cost[h->node_cell[v]]) * TH_NAV_STEP_STRAIGHT;
}

/* The bounded search (hpa.c): buffers for clusters of side C; a run inside one box. */
bool th_hpa_ls_init(lsearch *s, uint32_t C);
void th_hpa_ls_free(lsearch *s);
uint64_t th_hpa_ls_run(lsearch *s, const th_navmap *m, int32_t bx, int32_t by, int32_t bw,
                       int32_t bh, int32_t x, int32_t y, uint32_t stop, uint32_t cmin);

/* Cluster c's box on the map, and its neighbour across side s (NONE at the map's edge). */
void th_hpa_cluster_box(const th_hpa *h, uint32_t c, int32_t *x0, int32_t *y0, int32_t *bw,
                        int32_t *bh);
uint32_t th_hpa_neighbour(const th_hpa *h, uint32_t c, int s);

/* Whether map m is the one the hierarchy was built for, with its moves up to date. */
bool th_hpa_map_fits(const th_hpa *h, const th_navmap *m);

#endif
