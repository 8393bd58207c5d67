/* Integration fields: exact Dijkstra over integer costs on a bucket queue, incremental repair,
 * the combined nearest field, and the per-agent queries (flow, cost, path). */
#include "sim/nav/nav.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "engine/alloc.h"
#include "engine/check.h"

/* ---------------------------------------------------------------------------------------- */
/* Bucket queue
 *
 * Dial's algorithm with buckets Delta = 128 units wide, no more than the cheapest edge any map
 * can have (2 * TH_NAV_COST_MIN * TH_NAV_STEP_STRAIGHT = 140). A relaxation from a cell of key
 * k adds at least one cheapest edge, so it lands in a later bucket: every cell of the lowest
 * non-empty bucket is final, in any order, and the order inside a bucket need not be kept.
 * While the lowest bucket is b, every queued key lies within one edge (plus Delta) of
 * b * Delta, so a ring of 2048 buckets indexed by bucket mod 2048 holds them without ambiguity
 * (2048 * 128 > TH_NAV_MAX_EDGE + 256). A bitmap of non-empty buckets finds the next one 64 at
 * a time, which matters on dear terrain where keys are sparse. Delta is fixed rather than
 * widened to the map's cheapest edge: on dear maps the bitmap skips the empty buckets cheaply,
 * and a shift by a constant keeps a register free in the hot loop.
 *
 * Each bucket is a stack of 64-entry segments of cell indices taken from one shared pool, so a
 * bucket is drained as contiguous arrays and a push is a store at the bucket's tail. Entries
 * are lazy: a key lowered within its bucket is not pushed again; a key lowered into an earlier
 * bucket is pushed there and its old entry stays behind, recognised as stale when drained
 * because the cell's key no longer falls in that bucket. A cell never has two entries in one
 * bucket (keys only fall), so a live entry settles its cell exactly once. About one entry in
 * seven is stale on the benchmark city.
 *
 * The pool holds 1.5 entries per cell plus one partial segment per bucket. Stale entries could
 * in principle fill it (a cell can be pushed once per neighbour), so an empty pool triggers a
 * compaction that drops every stale entry; live entries belong to distinct cells, so afterwards
 * at least half a map of slots is free and compaction stays amortised linear. It never runs on
 * ordinary maps.
 *
 * Rejected: intrusive doubly linked lists (the previous design: exact, no stale entries, but
 * each pop and each cross-bucket move chases links to scattered cells; 20 % slower end to end);
 * per-cell slot positions with swap-removal (no stale entries, but two more scattered
 * accesses per move); a binary heap (log n per operation and it orders cells that need no
 * order); unit-width buckets (Dial proper: a move on almost every improvement); sorting each
 * bucket by cell index for locality (the sort costs more than the locality saves).
 *
 * At rest (empty queue) every tail is 0 and the bitmap is zero, so a scratch needs no clearing
 * between runs. */

#define NIL           UINT32_MAX
#define RING_BITS     11u
#define RING          (1u << RING_BITS)
#define RING_MASK     (RING - 1u)
#define SHIFT         7u /* log2 of Delta: 128 <= the cheapest possible edge, 2 * 1 * 70 */
#define SEED_CAPACITY (TH_NAV_MAX_GOALS + 9u * TH_NAV_REPAIR_MAX)
#define SEG_BITS      6u
#define SEG           (1u << SEG_BITS)
#define PREFETCH      8u /* queue entries ahead whose rows a full compute prefetches */

_Static_assert((RING << SHIFT) > TH_NAV_MAX_EDGE + (1u << SHIFT) * 2u,
               "bucket ring must span the largest edge");
_Static_assert((1u << SHIFT) <= 2u * TH_NAV_COST_MIN * TH_NAV_STEP_STRAIGHT,
               "bucket width must not exceed the cheapest edge");
_Static_assert((uint64_t)TH_NAV_DIST_MAX + TH_NAV_MAX_EDGE < UINT32_MAX,
               "dist + edge must not reach the unreachable marker");
_Static_assert(TH_NAV_COST_MAX <= UINT16_MAX, "a cost must fit a node's 16 bits");

/* Mark bits of a scratch's per-cell byte array (zero at rest). */
enum { MARK_OPENED = 1, MARK_SEEDED = 2, MARK_CHANGED = 4 };

/* One cell of a full computation: everything a relaxation reads about a neighbour in 8 bytes,
 * so a neighbour costs one cache line instead of one in each of the map's cost and move arrays
 * and the field's dist and descent arrays. The copy in and out streams and costs about 5 % of
 * a field; the scattered accesses it saves are worth about 10 %. */
typedef struct pnode {
    uint32_t dist;
    uint16_t cost;
    uint8_t moves;
    uint8_t descent;
} pnode;

_Static_assert(sizeof(pnode) == 8 && offsetof(pnode, cost) == 4 && offsetof(pnode, moves) == 6 &&
                   offsetof(pnode, descent) == 7,
               "a node is one 64-bit word");

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* A fresh node (unreachable, no descent) as a word: dist in the low 32 bits, then cost, moves
 * and descent. */
static inline void node_put(pnode *n, uint16_t cost, uint8_t moves) {
    uint64_t v = (uint64_t)TH_NAV_UNREACHABLE | (uint64_t)cost << 32 | (uint64_t)moves << 48 |
                 (uint64_t)TH_NAV_DESCENT_UNREACHABLE << 56;
    memcpy(n, &v, sizeof v);
}

static inline void node_get(const pnode *n, uint32_t *dist, uint8_t *descent) {
    uint64_t v;
    memcpy(&v, n, sizeof v);
    *dist = (uint32_t)v;
    *descent = (uint8_t)(v >> 56);
}
#else
static inline void node_put(pnode *n, uint16_t cost, uint8_t moves) {
    *n = (pnode){TH_NAV_UNREACHABLE, cost, moves, TH_NAV_DESCENT_UNREACHABLE};
}

static inline void node_get(const pnode *n, uint32_t *dist, uint8_t *descent) {
    *dist = n->dist;
    *descent = n->descent;
}
#endif

typedef struct seed {
    uint32_t key;
    uint32_t cell;
} seed;

struct th_nav_scratch {
    uint32_t ncells;
    int32_t w, h;
    /* One block serves as the packed nodes of a full compute and as the changed-cell list of a
     * repair: the two never run at once, and sharing saves 4 bytes per cell. */
    pnode *node;       /* ncells */
    uint32_t *changed; /* ncells, same memory as node */
    uint32_t changed_count;
    uint8_t *mark;      /* ncells */
    uint32_t *slot;     /* seg_count * SEG cell indices */
    uint32_t *seg_next; /* seg_count: the next older segment of a bucket, or the next free one */
    uint32_t seg_count;
    uint32_t seg_free;        /* first free segment, NIL when the pool is exhausted */
    uint32_t tail[RING];      /* slot after a bucket's newest entry; multiple of SEG = full */
    uint64_t bits[RING / 64]; /* non-empty buckets */
    seed *seeds;              /* SEED_CAPACITY */
    uint32_t cur;             /* bucket being drained (absolute bucket number) */
};

th_nav_scratch *th_nav_scratch_create(const th_navmap *m) {
    if (!m || !m->cost) return NULL;
    th_nav_scratch *s = th_calloc(1, sizeof *s);
    if (!s) return NULL;
    s->ncells = m->ncells;
    s->w = m->w;
    s->h = m->h;
    s->seg_count = (m->ncells + m->ncells / 2u + SEG - 1u) / SEG + RING + 1u;
    s->node = th_alloc(sizeof *s->node * m->ncells);
    s->changed = (uint32_t *)(void *)s->node;
    s->mark = th_calloc(m->ncells, sizeof *s->mark);
    s->slot = th_alloc(sizeof *s->slot * SEG * s->seg_count);
    s->seg_next = th_alloc(sizeof *s->seg_next * s->seg_count);
    s->seeds = th_alloc(sizeof *s->seeds * SEED_CAPACITY);
    if (!s->node || !s->mark || !s->slot || !s->seg_next || !s->seeds) {
        th_nav_scratch_destroy(s);
        return NULL;
    }
    for (uint32_t i = 0; i < s->seg_count; i++)
        s->seg_next[i] = i + 1u < s->seg_count ? i + 1u : NIL;
    s->seg_free = 0;
    return s;
}

void th_nav_scratch_destroy(th_nav_scratch *s) {
    if (!s) return;
    th_free(s->node);
    th_free(s->mark);
    th_free(s->slot);
    th_free(s->seg_next);
    th_free(s->seeds);
    th_free(s);
}

/* The key a queue entry is judged by: the packed node's during a full compute, else the
 * field's own dist array. */
static inline uint32_t key_of(const pnode *nd, const uint32_t *dist, uint32_t c) {
    return nd ? nd[c].dist : dist[c];
}

/* Drop every stale entry from the buckets still queued (not the one being drained, which
 * is detached) and return emptied segments to the pool. Each bucket is refilled in place, in
 * its own chain, oldest segment first, so writing never overtakes reading. */
static void q_compact(th_nav_scratch *s, const pnode *nd, const uint32_t *dist) {
    for (uint32_t i = 0; i < RING; i++) {
        uint32_t b = (s->cur + i) & RING_MASK;
        if (!(s->bits[b >> 6] & (1ull << (b & 63u)))) continue;
        uint32_t bucket = s->cur + i;
        /* Reverse the chain so it runs oldest (full) to newest (partial). */
        uint32_t newest = (s->tail[b] - 1u) / SEG, chain = NIL;
        for (uint32_t g = newest; g != NIL;) {
            uint32_t next = s->seg_next[g];
            s->seg_next[g] = chain;
            chain = g;
            g = next;
        }
        uint32_t wseg = chain, wpos = 0, kept = 0;
        for (uint32_t g = chain; g != NIL; g = s->seg_next[g]) {
            uint32_t n = g == newest ? (s->tail[b] - 1u) % SEG + 1u : SEG;
            for (uint32_t k = 0; k < n; k++) {
                uint32_t c = s->slot[g * SEG + k];
                if ((key_of(nd, dist, c) >> SHIFT) != bucket) continue;
                if (wpos == SEG) {
                    wseg = s->seg_next[wseg];
                    wpos = 0;
                }
                s->slot[wseg * SEG + wpos++] = c;
                kept++;
            }
        }
        /* Free the segments past the last one written, then restore newest-first order. */
        uint32_t g = kept ? s->seg_next[wseg] : chain;
        while (g != NIL) {
            uint32_t next = s->seg_next[g];
            s->seg_next[g] = s->seg_free;
            s->seg_free = g;
            g = next;
        }
        if (!kept) {
            s->tail[b] = 0;
            s->bits[b >> 6] &= ~(1ull << (b & 63u));
            continue;
        }
        s->seg_next[wseg] = NIL;
        uint32_t back = NIL;
        for (uint32_t h = chain; h != NIL;) {
            uint32_t next = s->seg_next[h];
            s->seg_next[h] = back;
            back = h;
            h = next;
        }
        s->tail[b] = wseg * SEG + wpos;
    }
}

/* Queue cell c under `key`. `nd` / `dist` only serve a compaction. */
static inline void q_push(th_nav_scratch *s, const pnode *nd, const uint32_t *dist, uint32_t c,
                          uint32_t key) {
    uint32_t b = (key >> SHIFT) & RING_MASK;
    uint32_t t = s->tail[b];
    if (t % SEG == 0) { /* empty, or the newest segment is full */
        if (s->seg_free == NIL) {
            q_compact(s, nd, dist);
            t = s->tail[b];
        }
        if (t % SEG == 0) {
            uint32_t g = s->seg_free;
            s->seg_free = s->seg_next[g];
            s->seg_next[g] = t ? (t - 1u) / SEG : NIL;
            s->bits[b >> 6] |= 1ull << (b & 63u);
            t = g * SEG;
        }
    }
    s->slot[t] = c;
    s->tail[b] = t + 1u;
}

/* No counter of entries: keeping one costs a store per push, and emptiness is asked only once
 * per bucket. */
static bool q_empty(const th_nav_scratch *s) {
    uint64_t any = 0;
    for (uint32_t i = 0; i < RING / 64u; i++) any |= s->bits[i];
    return any == 0;
}

/* Lowest non-empty bucket at or after s->cur (queue not empty), absolute. */
static uint32_t q_next(const th_nav_scratch *s) {
    uint32_t b = s->cur & RING_MASK;
    uint32_t word = b >> 6;
    uint64_t bitsw = s->bits[word] & (~0ull << (b & 63u));
    while (!bitsw) {
        word = (word + 1u) & (RING / 64u - 1u);
        bitsw = s->bits[word];
    }
    uint32_t found = (word << 6) | (uint32_t)__builtin_ctzll(bitsw);
    return s->cur + ((found - b) & RING_MASK);
}

/* ---------------------------------------------------------------------------------------- */
/* Propagation */

typedef struct nav_run {
    int32_t w;
    uint32_t *dist;
    uint8_t *descent;
    const uint16_t *cost;
    const uint8_t *moves;
    int32_t off[8];
    const th_navmap *map; /* for glued edges: flags and links */
    bool links;           /* the map has glued edges */
} nav_run;

static const uint32_t move_step[8] = {
    TH_NAV_STEP_STRAIGHT, TH_NAV_STEP_STRAIGHT, TH_NAV_STEP_STRAIGHT, TH_NAV_STEP_STRAIGHT,
    TH_NAV_STEP_DIAG,     TH_NAV_STEP_DIAG,     TH_NAV_STEP_DIAG,     TH_NAV_STEP_DIAG};

static nav_run run_make(th_nav_field *f, const th_navmap *m) {
    nav_run r = {m->w, f->dist, f->descent, m->cost, m->moves, {0}, m, m->link_count != 0};
    for (int k = 0; k < 8; k++) r.off[k] = th_nav_move_dy[k] * m->w + th_nav_move_dx[k];
    return r;
}

/* Dijkstra from `seeds` (sorted by key) over the current keys, which must be valid upper bounds
 * (unreachable, or the cost of some existing route). Seeds enter the ring only once the search
 * reaches within one edge of their key, so keys of any spread fit the ring.
 *
 * Two instances share this body: `packed` (a full compute) works on the scratch's nodes, where
 * every finite key is queued; otherwise (a repair) it works on the field's and the map's arrays,
 * where finite keys start out final, so a cell counts as queued once it is marked changed, and
 * every lowered cell is recorded in s->changed. Forced inline so `packed` is a constant in
 * each instance and the choice of array folds away, rather than a test on every access. */
static inline __attribute__((always_inline)) void propagate_body(const nav_run *r,
                                                                 th_nav_scratch *s,
                                                                 const seed *seeds, uint32_t nseeds,
                                                                 const bool packed) {
    pnode *nd = packed ? s->node : NULL;
    uint32_t *dist = r->dist;
    s->cur = 0;
    uint32_t si = 0;
#define KEY(c)   (*(packed ? &nd[c].dist : &dist[c]))
#define COST(c)  (packed ? nd[c].cost : r->cost[c])
#define MOVES(c) (packed ? nd[c].moves : r->moves[c])
    /* Lower cell c's key to `key` (below its current one) and queue it unless it already sits
     * in that bucket. */
#define LOWER(c, key)                                                                           \
    do {                                                                                        \
        uint32_t c_ = (c), key_ = (key), old_ = KEY(c_);                                        \
        bool queued_ = packed ? old_ != TH_NAV_UNREACHABLE : (s->mark[c_] & MARK_CHANGED) != 0; \
        KEY(c_) = key_;                                                                         \
        if (!queued_ || (old_ >> SHIFT) != (key_ >> SHIFT)) {                                   \
            if (!packed && !queued_) {                                                          \
                s->mark[c_] |= MARK_CHANGED;                                                    \
                s->changed[s->changed_count++] = c_;                                            \
            }                                                                                   \
            q_push(s, nd, dist, c_, key_);                                                      \
        }                                                                                       \
    } while (0)

    for (;;) {
        if (q_empty(s)) {
            if (si == nseeds) break;
            s->cur = seeds[si].key >> SHIFT;
        } else {
            s->cur = q_next(s);
        }
        /* Every queued key is below (cur + 1) * Delta + TH_NAV_MAX_EDGE, so seeds up to there
         * enter now and later ones cannot undercut anything settled before them. A seed may
         * land in bucket cur itself, so they enter before the bucket is detached. */
        uint64_t horizon = (((uint64_t)s->cur + 1u) << SHIFT) + TH_NAV_MAX_EDGE;
        for (; si < nseeds && seeds[si].key <= horizon; si++) {
            if (seeds[si].key < KEY(seeds[si].cell)) LOWER(seeds[si].cell, seeds[si].key);
        }
        const uint32_t cur = s->cur;
        uint32_t b = cur & RING_MASK;
        uint32_t t = s->tail[b];
        if (t == 0) continue; /* the seeds that set cur improved nothing */
        /* Detach the bucket: every push from here on lands in a later one. */
        s->tail[b] = 0;
        s->bits[b >> 6] &= ~(1ull << (b & 63u));
        uint32_t g = (t - 1u) / SEG, n = (t - 1u) % SEG + 1u;
        while (g != NIL) {
            const uint32_t *sl = s->slot + (size_t)g * SEG;
            for (uint32_t i = 0; i < n; i++) {
                uint32_t c = sl[i];
                if (packed && i + PREFETCH < n) {
                    /* The three rows a later entry will read, fetched while this one works:
                     * entries of a bucket lie along the wavefront, scattered over the map, so
                     * their neighbours miss the cache. A few per cent off a field on the
                     * 2-core machine (4 or 16 entries ahead did no better). */
                    uint32_t p = sl[i + PREFETCH], row = (uint32_t)r->w;
                    __builtin_prefetch(nd + (p >= row ? p - row : p), 1);
                    __builtin_prefetch(nd + p, 1);
                    __builtin_prefetch(nd + (p + row < s->ncells ? p + row : p), 1);
                }
                uint32_t d = KEY(c);
                if ((d >> SHIFT) != cur) continue; /* stale: settled from an earlier bucket */
                uint32_t cc = COST(c);
                unsigned mask = MOVES(c);
                /* The same loop finds c's descent: every neighbour cheaper than c is already
                 * final when c settles, and dearer ones cannot be on a cheapest route, so this
                 * equals descent_of(c) on the finished field at no extra pass over the grid.
                 * Unrolled over the 8 moves with constant step factors: a loop over the set
                 * bits of `mask` was 15 % slower (a serial bit scan and table loads per move,
                 * and a data-dependent exit branch). A branch-free variant that loads all 8
                 * neighbours and masks afterwards was slower still. */
                uint64_t best = UINT64_MAX;
                uint8_t bk = TH_NAV_DESCENT_GOAL;
#pragma GCC unroll 8
                for (int k = 0; k < 8; k++) {
                    if (!(mask & (1u << k))) continue;
                    uint32_t nb = (uint32_t)((int32_t)c + r->off[k]);
                    uint32_t w =
                        (cc + COST(nb)) * (k < 4 ? TH_NAV_STEP_STRAIGHT : TH_NAV_STEP_DIAG);
                    uint32_t dn = KEY(nb);
                    uint64_t via = (uint64_t)dn + w;
                    bk = via < best ? (uint8_t)k : bk;
                    best = via < best ? via : best;
                    uint32_t nd_ = d + w;
                    if (nd_ < dn && nd_ <= TH_NAV_DIST_MAX) LOWER(nb, nd_);
                }
                if (r->links && (r->map->flags[c] & TH_NAV_FLAG_LINK)) {
                    /* Glued edges: straight moves into cells elsewhere on the map. They come
                     * after the ordinary moves, so a tie keeps the ordinary move; the descent
                     * code is the straight move that crosses the seam. */
                    uint32_t nl = 0;
                    const th_nav_link *l = th_navmap_links_of(r->map, c, &nl);
                    for (uint32_t i = 0; i < nl; i++) {
                        uint32_t nb = l[i].to;
                        uint32_t cn = COST(nb);
                        if (cn == 0) continue;
                        uint32_t w = (cc + cn) * TH_NAV_STEP_STRAIGHT;
                        uint32_t dn = KEY(nb);
                        uint64_t via = (uint64_t)dn + w;
                        if (via < best) {
                            best = via;
                            bk = l[i].dir;
                        }
                        uint32_t nd_ = d + w;
                        if (nd_ < dn && nd_ <= TH_NAV_DIST_MAX) LOWER(nb, nd_);
                    }
                }
                uint8_t code = best == d ? bk : TH_NAV_DESCENT_GOAL;
                if (packed) {
                    nd[c].descent = code;
                } else {
                    r->descent[c] = code;
                }
            }
            uint32_t older = s->seg_next[g];
            s->seg_next[g] = s->seg_free;
            s->seg_free = g;
            g = older;
            n = SEG;
        }
    }
#undef LOWER
#undef MOVES
#undef COST
#undef KEY
}

static void propagate_packed(const nav_run *r, th_nav_scratch *s, const seed *seeds,
                             uint32_t nseeds) {
    propagate_body(r, s, seeds, nseeds, true);
}

static void propagate_tracked(const nav_run *r, th_nav_scratch *s, const seed *seeds,
                              uint32_t nseeds) {
    propagate_body(r, s, seeds, nseeds, false);
}

/* Descent code of cell c: the first move (in move order) onto a neighbour through which the
 * cheapest route runs. A pure function of dist and the map, so a repaired field and a
 * recomputed one agree on it too. */
static uint8_t descent_of(const nav_run *r, uint32_t c) {
    uint32_t d = r->dist[c];
    if (d == TH_NAV_UNREACHABLE) return TH_NAV_DESCENT_UNREACHABLE;
    uint64_t best = UINT64_MAX;
    uint8_t bk = TH_NAV_DESCENT_GOAL;
    uint32_t cc = r->cost[c];
    unsigned mask = r->moves[c];
    while (mask) {
        int k = __builtin_ctz(mask);
        mask &= mask - 1u;
        uint32_t n = (uint32_t)((int32_t)c + r->off[k]);
        uint32_t nd = r->dist[n];
        if (nd == TH_NAV_UNREACHABLE) continue;
        uint64_t v = (uint64_t)nd + (uint64_t)(cc + r->cost[n]) * move_step[k];
        if (v < best) {
            best = v;
            bk = (uint8_t)k;
        }
    }
    return best == d ? bk : TH_NAV_DESCENT_GOAL;
}

static uint32_t goal_cell(const th_nav_field *f, const th_nav_goal *g) {
    return (uint32_t)g->y * (uint32_t)f->w + (uint32_t)g->x;
}

/* A goal that is its own cheapest route is where the agent stops, even when a neighbour ties. */
static void mark_goals(th_nav_field *f) {
    for (uint32_t i = 0; i < f->goal_count; i++) {
        uint32_t c = goal_cell(f, &f->goals[i]);
        if (f->dist[c] == f->goals[i].weight) f->descent[c] = TH_NAV_DESCENT_GOAL;
    }
}

/* ---------------------------------------------------------------------------------------- */
/* Fields */

int th_nav_field_init(th_nav_field *f, const th_navmap *m, uint32_t max_goals) {
    if (!f) return TH_NAV_EINVAL;
    memset(f, 0, sizeof *f);
    if (!m || !m->cost) return TH_NAV_EINVAL;
    if (max_goals < 1 || max_goals > TH_NAV_MAX_GOALS) return TH_NAV_ERANGE;
    f->dist = th_alloc(sizeof *f->dist * m->ncells);
    f->descent = th_alloc(sizeof *f->descent * m->ncells);
    f->goals = th_alloc(sizeof *f->goals * max_goals);
    if (!f->dist || !f->descent || !f->goals) {
        th_nav_field_free(f);
        return TH_NAV_ENOMEM;
    }
    f->w = m->w;
    f->h = m->h;
    f->ncells = m->ncells;
    f->goal_capacity = max_goals;
    memset(f->dist, 0xFF, sizeof *f->dist * m->ncells);
    memset(f->descent, TH_NAV_DESCENT_UNREACHABLE, m->ncells);
    return TH_NAV_OK;
}

void th_nav_field_free(th_nav_field *f) {
    if (!f) return;
    th_free(f->dist);
    th_free(f->descent);
    th_free(f->goals);
    memset(f, 0, sizeof *f);
}

static int goal_cmp(const void *pa, const void *pb) {
    const th_nav_goal *a = pa, *b = pb;
    if (a->weight != b->weight) return a->weight < b->weight ? -1 : 1;
    if (a->y != b->y) return a->y < b->y ? -1 : 1;
    if (a->x != b->x) return a->x < b->x ? -1 : 1;
    return 0;
}

int th_nav_field_set_goals(th_nav_field *f, const th_nav_goal *goals, uint32_t n) {
    if (!f || !f->dist || (n && !goals)) return TH_NAV_EINVAL;
    if (n > f->goal_capacity) return TH_NAV_ERANGE;
    for (uint32_t i = 0; i < n; i++) {
        const th_nav_goal *g = &goals[i];
        if (g->x < 0 || g->y < 0 || g->x >= f->w || g->y >= f->h) return TH_NAV_ERANGE;
        if (g->weight > TH_NAV_MAX_WEIGHT) return TH_NAV_ERANGE;
    }
    if (n) memcpy(f->goals, goals, sizeof *goals * n);
    f->goal_count = n;
    /* A total order, so equal inputs give equal arrays whatever qsort does with ties. */
    qsort(f->goals, n, sizeof *f->goals, goal_cmp);
    return TH_NAV_OK;
}

int th_nav_field_set_goal_rect(th_nav_field *f, int32_t x0, int32_t y0, int32_t x1, int32_t y1,
                               uint32_t weight) {
    if (!f || !f->dist) return TH_NAV_EINVAL;
    if (x0 < 0 || y0 < 0 || x1 >= f->w || y1 >= f->h || x0 > x1 || y0 > y1) return TH_NAV_ERANGE;
    if (weight > TH_NAV_MAX_WEIGHT) return TH_NAV_ERANGE;
    uint64_t n = (uint64_t)(x1 - x0 + 1) * (uint64_t)(y1 - y0 + 1);
    if (n > f->goal_capacity) return TH_NAV_ERANGE;
    uint32_t i = 0;
    for (int32_t y = y0; y <= y1; y++) {
        for (int32_t x = x0; x <= x1; x++) f->goals[i++] = (th_nav_goal){x, y, weight};
    }
    f->goal_count = i;
    return TH_NAV_OK; /* row-major order with one weight is already (weight, cell) order */
}

static bool matches(const th_nav_field *f, const th_navmap *m, const th_nav_scratch *s) {
    return f && f->dist && m && m->cost && f->w == m->w && f->h == m->h &&
           (!s || (s->w == m->w && s->h == m->h));
}

static void compute(th_nav_field *f, const th_navmap *m, th_nav_scratch *s) {
    (void)TH_ASSERT(!m->moves_stale); /* a deferred map must be brought up to date first */
    nav_run r = run_make(f, m);
    pnode *nd = s->node;
    /* Records in and out as one 64-bit word each: one store (or load) per cell instead of four
     * (two) narrow ones. The two loops stream the whole map and took about a seventh of a
     * field's time in the profile. */
    for (uint32_t i = 0; i < f->ncells; i++) node_put(&nd[i], m->cost[i], m->moves[i]);
    uint32_t ns = 0;
    for (uint32_t i = 0; i < f->goal_count; i++) {
        uint32_t c = goal_cell(f, &f->goals[i]);
        if (m->cost[c] == 0) continue;
        s->seeds[ns++] = (seed){f->goals[i].weight, c};
    }
    propagate_packed(&r, s, s->seeds, ns);
    for (uint32_t i = 0; i < f->ncells; i++) node_get(&nd[i], &f->dist[i], &f->descent[i]);
    mark_goals(f);
}

int th_nav_field_compute(th_nav_field *f, const th_navmap *m, th_nav_scratch *s) {
    if (!s || !matches(f, m, s)) return TH_NAV_EINVAL;
    compute(f, m, s);
    return TH_NAV_OK;
}

int th_nav_field_repair_raised(th_nav_field *f, const th_navmap *m, th_nav_scratch *s) {
    return th_nav_field_compute(f, m, s);
}

static int seed_cmp(const void *pa, const void *pb) {
    const seed *a = pa, *b = pb;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return a->cell < b->cell ? -1 : (a->cell > b->cell);
}

/* Cheapest route into cell c through its current neighbours (no goal weight). */
static uint32_t tentative(const nav_run *r, uint32_t c) {
    uint64_t best = TH_NAV_UNREACHABLE;
    uint32_t cc = r->cost[c];
    unsigned mask = r->moves[c];
    while (mask) {
        int k = __builtin_ctz(mask);
        mask &= mask - 1u;
        uint32_t n = (uint32_t)((int32_t)c + r->off[k]);
        uint32_t nd = r->dist[n];
        if (nd == TH_NAV_UNREACHABLE) continue;
        uint64_t v = (uint64_t)nd + (uint64_t)(cc + r->cost[n]) * move_step[k];
        if (v < best && v <= TH_NAV_DIST_MAX) best = v;
    }
    return (uint32_t)best;
}

/* Runs the statement on every cell y3 of the 3x3 block around c that lies in the map. */
#define FOR_3X3(w_, h_, c_, ...)                                                                \
    do {                                                                                        \
        int32_t cx_ = (int32_t)((c_) % (uint32_t)(w_)), cy_ = (int32_t)((c_) / (uint32_t)(w_)); \
        for (int32_t yy_ = cy_ - 1; yy_ <= cy_ + 1; yy_++) {                                    \
            if (yy_ < 0 || yy_ >= (h_)) continue;                                               \
            for (int32_t xx_ = cx_ - 1; xx_ <= cx_ + 1; xx_++) {                                \
                if (xx_ < 0 || xx_ >= (w_)) continue;                                           \
                uint32_t y3 = (uint32_t)yy_ * (uint32_t)(w_) + (uint32_t)xx_;                   \
                __VA_ARGS__;                                                                    \
            }                                                                                   \
        }                                                                                       \
    } while (0)

/* Opening cells only adds edges (and lowering a cost only cheapens them), so every old value
 * stays the cost of a route that still exists: a valid upper bound. The only cells that can
 * improve directly are those whose edge set changed, i.e. the 3x3 blocks around the changed
 * cells (a new diagonal between two of a cell's orthogonal neighbours also lies there), plus
 * goals sitting on opened cells. Seeding those with their improved value and running the
 * decrease-only Dijkstra yields exactly the fixed point a full compute reaches. */
static void repair(th_nav_field *f, const th_navmap *m, const uint32_t *cells, uint32_t n,
                   th_nav_scratch *s) {
    (void)TH_ASSERT(!m->moves_stale);
    nav_run r = run_make(f, m);
    uint32_t ns = 0;
    for (uint32_t i = 0; i < n; i++) s->mark[cells[i]] |= MARK_OPENED;
    for (uint32_t i = 0; i < f->goal_count; i++) {
        uint32_t c = goal_cell(f, &f->goals[i]);
        if ((s->mark[c] & MARK_OPENED) && m->cost[c] != 0 && f->goals[i].weight < f->dist[c]) {
            s->seeds[ns++] = (seed){f->goals[i].weight, c};
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        FOR_3X3(f->w, f->h, cells[i], {
            if (!(s->mark[y3] & MARK_SEEDED) && m->cost[y3] != 0) {
                s->mark[y3] |= MARK_SEEDED;
                uint32_t t = tentative(&r, y3);
                if (t < f->dist[y3]) s->seeds[ns++] = (seed){t, y3};
            }
        });
    }
    for (uint32_t i = 0; i < n; i++) {
        FOR_3X3(f->w, f->h, cells[i], { s->mark[y3] &= (uint8_t) ~(MARK_SEEDED | MARK_OPENED); });
    }
    qsort(s->seeds, ns, sizeof *s->seeds, seed_cmp);
    s->changed_count = 0;
    propagate_tracked(&r, s, s->seeds, ns);

    /* Descent depends on the cell's own dist, its neighbours' dists and its moves: redo it on
     * the 3x3 around every changed cell and around every opened cell (its moves changed). */
    for (uint32_t i = 0; i < s->changed_count; i++) {
        FOR_3X3(f->w, f->h, s->changed[i], { f->descent[y3] = descent_of(&r, y3); });
    }
    for (uint32_t i = 0; i < n; i++) {
        FOR_3X3(f->w, f->h, cells[i], { f->descent[y3] = descent_of(&r, y3); });
    }
    for (uint32_t i = 0; i < s->changed_count; i++) s->mark[s->changed[i]] = 0;
    s->changed_count = 0;
    mark_goals(f);
}

static int check_cells(const th_navmap *m, const uint32_t *cells, uint32_t n) {
    if (n && !cells) return TH_NAV_EINVAL;
    for (uint32_t i = 0; i < n; i++) {
        if (cells[i] >= m->ncells) return TH_NAV_ERANGE;
    }
    return TH_NAV_OK;
}

int th_nav_field_repair_opened(th_nav_field *f, const th_navmap *m, const uint32_t *cells,
                               uint32_t n, th_nav_scratch *s) {
    if (!s || !matches(f, m, s)) return TH_NAV_EINVAL;
    int rc = check_cells(m, cells, n);
    if (rc) return rc;
    if (n > TH_NAV_REPAIR_MAX || (n && m->link_count)) {
        compute(f, m, s);
    } else if (n) {
        repair(f, m, cells, n, s);
    }
    return TH_NAV_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* Many fields in parallel: one field per task, scratch by worker index. */

typedef struct fields_job {
    th_nav_scratch *const *scratch;
    th_nav_field *fields;
    const th_navmap *m;
    const uint32_t *cells;
    uint32_t n;
    bool full;
} fields_job;

static void fields_task(void *ctx, uint32_t begin, uint32_t end, uint32_t worker) {
    fields_job *j = ctx;
    th_nav_scratch *s = j->scratch[worker];
    for (uint32_t i = begin; i < end; i++) {
        /* A map with glued edges is recomputed: the repair's seeding looks at 3x3 blocks only. */
        if (j->full || j->n > TH_NAV_REPAIR_MAX || (j->n && j->m->link_count)) {
            compute(&j->fields[i], j->m, s);
        } else if (j->n) {
            repair(&j->fields[i], j->m, j->cells, j->n, s);
        }
    }
}

/* All validation happens before the parallel part, so tasks cannot fail and no error has to be
 * gathered across threads. */
static int run_fields(th_pool *pool, th_nav_scratch *const *scratch, uint32_t scratch_count,
                      th_nav_field *fields, uint32_t count, const th_navmap *m, fields_job *job) {
    uint32_t workers = pool ? th_pool_workers(pool) : 1u;
    if (!scratch || (count && !fields) || !m || !m->cost || scratch_count < workers) {
        return TH_NAV_EINVAL;
    }
    for (uint32_t i = 0; i < workers; i++) {
        if (!scratch[i] || scratch[i]->w != m->w || scratch[i]->h != m->h) return TH_NAV_EINVAL;
    }
    for (uint32_t i = 0; i < count; i++) {
        if (!matches(&fields[i], m, NULL)) return TH_NAV_EINVAL;
    }
    if (pool) {
        th_pool_parallel_for(pool, count, 1, fields_task, job);
    } else {
        fields_task(job, 0, count, 0);
    }
    return TH_NAV_OK;
}

int th_nav_fields_compute(th_pool *pool, th_nav_scratch *const *scratch, uint32_t scratch_count,
                          th_nav_field *fields, uint32_t count, const th_navmap *m) {
    fields_job job = {scratch, fields, m, NULL, 0, true};
    return run_fields(pool, scratch, scratch_count, fields, count, m, &job);
}

int th_nav_fields_repair_opened(th_pool *pool, th_nav_scratch *const *scratch,
                                uint32_t scratch_count, th_nav_field *fields, uint32_t count,
                                const th_navmap *m, const uint32_t *cells, uint32_t n) {
    if (!m || !m->cost) return TH_NAV_EINVAL;
    int rc = check_cells(m, cells, n);
    if (rc) return rc;
    fields_job job = {scratch, fields, m, cells, n, false};
    return run_fields(pool, scratch, scratch_count, fields, count, m, &job);
}

/* ---------------------------------------------------------------------------------------- */
/* Combined nearest field */

int th_nav_combined_init(th_nav_combined *c, const th_navmap *m) {
    if (!c) return TH_NAV_EINVAL;
    memset(c, 0, sizeof *c);
    if (!m || !m->cost) return TH_NAV_EINVAL;
    c->nearest.dist = th_alloc(sizeof *c->nearest.dist * m->ncells);
    c->nearest.descent = th_alloc(sizeof *c->nearest.descent * m->ncells);
    c->winner = th_alloc(sizeof *c->winner * m->ncells);
    if (!c->nearest.dist || !c->nearest.descent || !c->winner) {
        th_nav_combined_free(c);
        return TH_NAV_ENOMEM;
    }
    c->nearest.w = m->w;
    c->nearest.h = m->h;
    c->nearest.ncells = m->ncells;
    memset(c->nearest.dist, 0xFF, sizeof *c->nearest.dist * m->ncells);
    memset(c->nearest.descent, TH_NAV_DESCENT_UNREACHABLE, m->ncells);
    memset(c->winner, 0xFF, sizeof *c->winner * m->ncells);
    return TH_NAV_OK;
}

void th_nav_combined_free(th_nav_combined *c) {
    if (!c) return;
    th_free(c->nearest.dist);
    th_free(c->nearest.descent);
    th_free(c->winner);
    memset(c, 0, sizeof *c);
}

typedef struct combine_job {
    th_nav_combined *c;
    const th_nav_field *fields;
    uint32_t alive[TH_NAV_MAX_FIELDS];
    uint32_t nalive;
} combine_job;

/* Field-major within a cell range: each pass streams one field's slice, which vectorises and
 * keeps the range's best/winner in cache. Ascending field order with a strict `<` gives ties to
 * the lowest index, independent of how cells are chunked. */
static void combine_task(void *ctx, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    combine_job *j = ctx;
    uint32_t *best = j->c->nearest.dist;
    int16_t *win = j->c->winner;
    for (uint32_t i = begin; i < end; i++) {
        best[i] = TH_NAV_UNREACHABLE;
        win[i] = -1;
    }
    for (uint32_t a = 0; a < j->nalive; a++) {
        uint32_t k = j->alive[a];
        const uint32_t *d = j->fields[k].dist;
        for (uint32_t i = begin; i < end; i++) {
            bool better = d[i] < best[i];
            best[i] = better ? d[i] : best[i];
            win[i] = better ? (int16_t)k : win[i];
        }
    }
    uint8_t *desc = j->c->nearest.descent;
    for (uint32_t i = begin; i < end; i++) {
        desc[i] = win[i] < 0 ? TH_NAV_DESCENT_UNREACHABLE : j->fields[win[i]].descent[i];
    }
}

int th_nav_combined_build(th_nav_combined *c, th_pool *pool, const th_nav_field *fields,
                          uint32_t count, const uint8_t *alive) {
    if (!c || !c->nearest.dist || (count && !fields)) return TH_NAV_EINVAL;
    if (count > TH_NAV_MAX_FIELDS) return TH_NAV_ERANGE;
    combine_job job = {.c = c, .fields = fields};
    for (uint32_t k = 0; k < count; k++) {
        const th_nav_field *f = &fields[k];
        if (!f->dist || f->w != c->nearest.w || f->h != c->nearest.h) return TH_NAV_EINVAL;
        if (!alive || alive[k]) job.alive[job.nalive++] = k;
    }
    /* 16 Ki cells per chunk: large enough to amortise the claim, small enough to balance. */
    if (pool) {
        th_pool_parallel_for(pool, c->nearest.ncells, 16384, combine_task, &job);
    } else {
        combine_task(&job, 0, c->nearest.ncells, 0);
    }
    return TH_NAV_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* Queries */

#define INV_SQRT2 0.70710678118654752f
static const th_vec2 move_dir[8] = {{1.0f, 0.0f},
                                    {0.0f, 1.0f},
                                    {-1.0f, 0.0f},
                                    {0.0f, -1.0f},
                                    {INV_SQRT2, INV_SQRT2},
                                    {-INV_SQRT2, INV_SQRT2},
                                    {-INV_SQRT2, -INV_SQRT2},
                                    {INV_SQRT2, -INV_SQRT2}};

static bool usable(const th_nav_field *f, const th_navmap *m) {
    return f && f->dist && f->descent && m && m->cost && f->w == m->w && f->h == m->h;
}

bool th_nav_flow_sample(const th_nav_field *f, const th_navmap *m, th_vec2 p, th_vec2 *dir) {
    th_vec2 zero = th_v2(0.0f, 0.0f);
    if (dir) *dir = zero;
    if (!usable(f, m)) return false;
    uint32_t own = th_navmap_cell_of(m, p, NULL, NULL);
    uint8_t oc = f->descent[own];
    if (oc == TH_NAV_DESCENT_UNREACHABLE) return false;
    if (oc == TH_NAV_DESCENT_GOAL) return true;
    th_vec2 result = move_dir[oc];

    /* Bilinear blend over the 2x2 cell centres around p. p lies inside the square of those
     * centres, half a cell from the outer edges of the four cells, so when all four are open a
     * step shorter than half a cell stays in them. Otherwise the own cell's move is taken: it
     * only ever enters cells the no-squeeze move rule allows. Blending the costs and taking a
     * gradient was rejected: near walls the gradient of an interpolated cost points into the
     * wall where the blocked side is missing from the stencil. */
    float u = p.x * m->inv_cell_size - 0.5f, v = p.y * m->inv_cell_size - 0.5f;
    if (u >= 0.0f && v >= 0.0f && u < (float)(m->w - 1) && v < (float)(m->h - 1)) {
        float fu = floorf(u), fv = floorf(v);
        uint32_t x0 = (uint32_t)fu, y0 = (uint32_t)fv;
        float fx = u - fu, fy = v - fv;
        uint32_t base = y0 * (uint32_t)m->w + x0;
        uint8_t codes[4] = {f->descent[base], f->descent[base + 1],
                            f->descent[base + (uint32_t)m->w],
                            f->descent[base + (uint32_t)m->w + 1]};
        float wts[4] = {(1.0f - fx) * (1.0f - fy), fx * (1.0f - fy), (1.0f - fx) * fy, fx * fy};
        bool ok = true;
        th_vec2 sum = zero;
        for (int j = 0; j < 4; j++) {
            if (codes[j] == TH_NAV_DESCENT_UNREACHABLE) {
                ok = false;
                break;
            }
            if (codes[j] < 8) sum = th_v2_add(sum, th_v2_scale(move_dir[codes[j]], wts[j]));
        }
        /* A blend that nearly cancels (two routes splitting around an obstacle) has no reliable
         * direction; the own move breaks the tie. */
        if (ok && th_v2_len2(sum) > 1e-4f) result = th_v2_norm(sum);
    }
    if (dir) *dir = result;
    return true;
}

float th_nav_cost_at(const th_nav_field *f, const th_navmap *m, th_vec2 p) {
    if (!usable(f, m)) return INFINITY;
    uint32_t c = th_navmap_cell_of(m, p, NULL, NULL);
    if (m->cost[c] == 0) return INFINITY;
    return th_nav_units_to_metres(m, f->dist[c]);
}

int th_nav_field_path(const th_nav_field *f, const th_navmap *m, int32_t x, int32_t y,
                      uint32_t *cells, uint32_t max, uint32_t *len) {
    if (len) *len = 0;
    if (!f || !f->dist || !f->descent || !cells || !len) return TH_NAV_EINVAL;
    if (x < 0 || y < 0 || x >= f->w || y >= f->h) return TH_NAV_ENOPATH;
    uint32_t c = (uint32_t)y * (uint32_t)f->w + (uint32_t)x;
    if (f->descent[c] == TH_NAV_DESCENT_UNREACHABLE) return TH_NAV_ENOPATH;
    /* Every move strictly lowers dist, so the walk ends at a goal within ncells steps; the
     * bound is a guard against a corrupted field, not a normal exit. */
    uint32_t n = 0;
    for (uint32_t guard = 0; guard <= f->ncells; guard++) {
        if (n == max) return TH_NAV_ETOOLONG;
        cells[n++] = c;
        uint8_t k = f->descent[c];
        if (k == TH_NAV_DESCENT_GOAL) {
            *len = n;
            return TH_NAV_OK;
        }
        if (k >= 8) return TH_NAV_ENOPATH;
        const th_nav_link *l = m && k < 4 ? th_navmap_link(m, c, k) : NULL;
        if (l && (m->cost[l->to] != 0)) {
            c = l->to;
            continue;
        }
        int32_t cx = (int32_t)(c % (uint32_t)f->w) + th_nav_move_dx[k];
        int32_t cy = (int32_t)(c / (uint32_t)f->w) + th_nav_move_dy[k];
        if (cx < 0 || cy < 0 || cx >= f->w || cy >= f->h) return TH_NAV_ENOPATH;
        c = (uint32_t)cy * (uint32_t)f->w + (uint32_t)cx;
    }
    return TH_NAV_ENOPATH;
}

/* Remaining cost in metres at p, interpolated between the centres of the four nearest cells
 * (unreachable ones left out); false when none of them is reachable. */
bool th_field_metres(const th_navmap *m, const uint32_t *dist, th_vec2 p, float *out) {
    const float fx = p.x * m->inv_cell_size - 0.5f, fy = p.y * m->inv_cell_size - 0.5f;
    const int32_t x0 = (int32_t)floorf(fx), y0 = (int32_t)floorf(fy);
    const float tx = fx - (float)x0, ty = fy - (float)y0;
    float sum = 0.0f, wsum = 0.0f;
    for (int32_t j = 0; j < 2; j++) {
        for (int32_t i = 0; i < 2; i++) {
            const int32_t x = x0 + i, y = y0 + j;
            if (x < 0 || y < 0 || x >= m->w || y >= m->h) continue;
            const uint32_t d = dist[(size_t)y * (size_t)m->w + (size_t)x];
            if (!th_nav_reachable(d)) continue;
            const float wt = (i ? tx : 1.0f - tx) * (j ? ty : 1.0f - ty);
            sum += wt * (float)d;
            wsum += wt;
        }
    }
    if (wsum <= 1e-6f) {
        int32_t cx, cy;
        const uint32_t d = dist[th_navmap_cell_of(m, p, &cx, &cy)];
        if (!th_nav_reachable(d)) return false;
        sum = (float)d;
        wsum = 1.0f;
    }
    *out = sum / wsum * (m->cell_size / (float)TH_NAV_UNITS_PER_CELL);
    return true;
}
