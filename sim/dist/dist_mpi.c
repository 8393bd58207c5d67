/* Strips of grid rows over MPI ranks (sim/dist/dist.h has the layout and the order contract).
 *
 * MPI is called only from the stepping thread, between parallel phases (MPI_THREAD_FUNNELED is
 * enough), and every collective is reached by every rank in the same order: each guard in front
 * of one reads replicated values only (the step, the cut, the rank count). */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/alloc.h"
#include "engine/hash.h"
#include "engine/jobs.h"
#include "sim/core/world.h"
#include "sim/dist/dist.h"
#include "sim/dist/dist_mpi.h"
#include "throng/dist.h"

#define TAG_COUNT   11
#define TAG_ROWS    13
#define TAG_FLOATS  15
#define TAG_RECORDS 17

/* Steps between re-cuts when the def says 0. */
#define DEFAULT_REBALANCE 50u

/* Global grid rows [lo, hi). */
typedef struct row_span {
    int32_t lo, hi;
} row_span;

/* Another rank as this one exchanges ghost rows with it, under the current cut. */
typedef struct peer {
    uint32_t span0, spans; /* this rank's rows it reads: d->span[span0 .. span0 + spans) */
    uint32_t rows_in;      /* rows of its strip this rank reads */
    uint32_t out, in;      /* agents in those rows this step: sent, received */
} peer;

struct th_dist {
    MPI_Comm comm;
    int rank, ranks;
    uint32_t rebalance_every;
    uint32_t hash_round; /* id slots per round of the hash's gather */
    int32_t nx, ny;      /* the grid the cut is for */
    int32_t halo;        /* ghost rows on each side: the widest block a crowd walks, >= 1 */
    bool cut;            /* row_lo/row_hi hold a cut for (nx, ny, halo) */
    bool balanced;       /* the cut was balanced by agent count at least once */
    int32_t *row_lo;     /* per rank: first row of its strip (ranks + 1 entries) */
    int32_t *row_hi;     /* per rank: one past its last row */
    int32_t *row_owner;  /* per global row */
    int32_t *row_local;  /* per global row: local row or -1 (the grid's map) */
    int32_t row_cap;     /* rows the three row arrays hold */
    int32_t rows_local;  /* owned rows + ghost rows that exist */
    uint32_t *hist;      /* per row: owned agents, then summed over ranks */
    uint32_t ghosts_in;  /* ghosts after the last count exchange */
    bool carry_stall;    /* this migration's records hold stall state (th_stall_judged) */
    /* Ghost rows: per rank, what this rank and it read of each other's strips (apply_cut). */
    peer *peer;
    unsigned char *span_buf; /* row_span: every peer's spans, peer after peer */
    uint32_t span_n;         /* spans in use */
    size_t span_bytes;       /* bytes span_buf holds */
    uint8_t *need;           /* per global row: scratch of need_rows */
    uint32_t *row_count;     /* per global row: owned agents in it (owned rows only) */
    MPI_Request *req;        /* two per rank */
    int *scount, *rcount, *sdispl, *rdispl; /* per rank, bytes */
    int *sagents, *ragents;                 /* per rank, agents */
    unsigned char *sbuf, *rbuf;
    size_t scap, rcap;
    /* Grid row of each stored agent, computed once per step before the build: read by the
     * re-cut, the migration (which keeps it in step with the agents it moves) and the
     * boundary counts. int32_t, as bytes for ensure_bytes. */
    unsigned char *row_buf;
    size_t row_of_cap;        /* bytes it holds */
    unsigned char *leave_buf; /* storage indices of the agents leaving the strip (uint32_t) */
    size_t leave_cap;
    th_dist_stats stats;
};

static inline int32_t *row_of(const th_dist *d) { return (int32_t *)(void *)d->row_buf; }
static inline row_span *spans(const th_dist *d) { return (row_span *)(void *)d->span_buf; }

/* A rank cannot go on (memory, a broken layout): every rank stops. */
static void rank_abort(const th_dist *d, const char *what) {
    fprintf(stderr, "throng: rank %d: %s\n", d->rank, what);
    MPI_Abort(d->comm, 1);
}

/* ---- buffers ------------------------------------------------------------------------------ */

/* Grow a byte buffer to at least twice n, doubling: the boundary rows' counts wander from
 * step to step, and a buffer sized at the first step's need alone grows again later. Counted
 * when it happens inside a step. */
static void ensure_bytes(th_world *w, unsigned char **buf, size_t *cap, size_t n) {
    if (n <= *cap) return;
    size_t c = *cap ? *cap : 4096;
    while (c < 2 * n) c *= 2;
    unsigned char *p = th_alloc(c);
    if (!p) {
        fprintf(stderr, "throng: rank %d: out of memory for %zu bytes of exchange buffer\n",
                w->dist->rank, c);
        MPI_Abort(w->dist->comm, 1);
    }
    if (*cap) memcpy(p, *buf, *cap);
    th_free(*buf);
    *buf = p;
    *cap = c;
    if (w->stepping && w->step > 0) w->dist->stats.grows++;
}

static void ensure_rows(th_world *w, int32_t ny) {
    th_dist *d = w->dist;
    if (ny <= d->row_cap) return;
    size_t n = (size_t)ny;
    th_free(d->row_owner);
    th_free(d->row_local);
    th_free(d->hist);
    th_free(d->need);
    th_free(d->row_count);
    d->row_owner = th_calloc(n, sizeof *d->row_owner);
    d->row_local = th_calloc(n, sizeof *d->row_local);
    d->hist = th_calloc(n, sizeof *d->hist);
    d->need = th_calloc(n, sizeof *d->need);
    d->row_count = th_calloc(n, sizeof *d->row_count);
    if (!d->row_owner || !d->row_local || !d->hist || !d->need || !d->row_count) {
        fprintf(stderr, "throng: rank %d: out of memory for %d grid rows\n", d->rank, ny);
        MPI_Abort(d->comm, 1);
    }
    d->row_cap = ny;
}

static void world_reserve(th_world *w, uint32_t n) {
    if (n <= w->capacity) return;
    /* Room for the strip's agents to come and go without growing every step. */
    uint64_t want = (uint64_t)n + n / 4;
    if (want > TH_MAX_AGENTS) want = TH_MAX_AGENTS;
    if (!th_world_reserve(w, (uint32_t)want, 0)) {
        fprintf(stderr, "throng: rank %d: out of memory for %u agents\n", w->dist->rank, n);
        MPI_Abort(w->dist->comm, 1);
    }
    if (w->stepping && w->step > 0) w->dist->stats.grows++;
}

/* ---- create ------------------------------------------------------------------------------- */

bool th_dist_create(th_world *w, const struct th_dist_def *def, th_error *err) {
    if (!def) return true;
    int init = 0;
    MPI_Initialized(&init);
    if (!init) {
        th_error_set(err, TH_ERR_STATE, "a distributed world needs MPI_Init first");
        return false;
    }
    th_dist *d = th_calloc(1, sizeof *d);
    if (!d) {
        th_error_set(err, TH_ERR_NOMEM, "out of memory");
        return false;
    }
    w->dist = d;
    if (MPI_Comm_dup(def->comm, &d->comm) != MPI_SUCCESS) {
        th_error_set(err, TH_ERR_SYSTEM, "MPI_Comm_dup failed");
        d->comm = MPI_COMM_NULL;
        return false;
    }
    MPI_Comm_rank(d->comm, &d->rank);
    MPI_Comm_size(d->comm, &d->ranks);
    d->rebalance_every = def->rebalance_every ? def->rebalance_every : DEFAULT_REBALANCE;
    size_t r = (size_t)d->ranks;
    d->row_lo = th_calloc(r + 1, sizeof *d->row_lo); /* + 1: th_dist_cut's end */
    d->row_hi = th_calloc(r, sizeof *d->row_hi);
    d->scount = th_calloc(r, sizeof *d->scount);
    d->rcount = th_calloc(r, sizeof *d->rcount);
    d->sdispl = th_calloc(r, sizeof *d->sdispl);
    d->rdispl = th_calloc(r, sizeof *d->rdispl);
    d->sagents = th_calloc(r, sizeof *d->sagents);
    d->ragents = th_calloc(r, sizeof *d->ragents);
    d->peer = th_calloc(r, sizeof *d->peer);
    d->req = th_calloc(2 * r, sizeof *d->req);
    if (!d->row_lo || !d->row_hi || !d->scount || !d->rcount || !d->sdispl || !d->rdispl ||
        !d->sagents || !d->ragents || !d->peer || !d->req) {
        th_error_set(err, TH_ERR_NOMEM, "out of memory");
        return false;
    }
    d->stats.rank = d->rank;
    d->stats.ranks = d->ranks;
    return true;
}

void th_dist_destroy(th_world *w) {
    th_dist *d = w->dist;
    if (!d) return;
    if (d->comm != MPI_COMM_NULL) {
        int fin = 0;
        MPI_Finalized(&fin);
        if (!fin) MPI_Comm_free(&d->comm);
    }
    th_free(d->row_lo);
    th_free(d->row_hi);
    th_free(d->row_owner);
    th_free(d->row_local);
    th_free(d->hist);
    th_free(d->scount);
    th_free(d->rcount);
    th_free(d->sdispl);
    th_free(d->rdispl);
    th_free(d->sagents);
    th_free(d->ragents);
    th_free(d->sbuf);
    th_free(d->rbuf);
    th_free(d->row_buf);
    th_free(d->leave_buf);
    th_free(d->peer);
    th_free(d->req);
    th_free(d->span_buf);
    th_free(d->need);
    th_free(d->row_count);
    th_free(d);
    w->dist = NULL;
    w->grid.row_local = NULL;
}

int th_dist_rank(const th_world *w) { return w->dist ? w->dist->rank : 0; }
int th_dist_ranks(const th_world *w) { return w->dist ? w->dist->ranks : 1; }
MPI_Comm th_dist_comm(const th_world *w) { return w->dist ? w->dist->comm : MPI_COMM_SELF; }

int th_world_rank(const th_world *w) { return w ? th_dist_rank(w) : 0; }
int th_world_ranks(const th_world *w) { return w ? th_dist_ranks(w) : 0; }
th_dist_stats th_world_dist_stats(const th_world *w) {
    if (!w) return (th_dist_stats){0};
    if (!w->dist) return (th_dist_stats){.ranks = 1, .owned = w->count};
    th_dist_stats s = w->dist->stats;
    s.owned = w->count;
    s.ghosts = w->ghosts;
    return s;
}

/* ---- the cut ------------------------------------------------------------------------------ */

/* Ghost rows each side: every block a crowd walks, and the 3x3 of contacts and validation. */
static int32_t halo_rows(const th_world *w) {
    int32_t k = 1;
    for (uint32_t c = 0; c < w->crowd_count; c++)
        if (w->crowd_rt[c].block > k) k = w->crowd_rt[c].block;
    return k;
}

/* Fewest rows a strip may have: with at least the halo's rows, a strip's halo rows come from
 * its two neighbours alone in a world without stairs, and the exchange stays between
 * neighbours; on a torus of two ranks, twice that keeps a strip's rows above and below apart. */
static int32_t min_rows(const th_world *w, int32_t halo) {
    return w->dist->ranks == 2 && w->wrap ? 2 * halo : halo;
}

/* Whether the cut must be made afresh: none yet, or the grid was re-tiled, or the widest block
 * (the halo, `K` rows) changed. */
static bool cut_stale(const th_world *w, int32_t K) {
    const th_dist *d = w->dist;
    return !d->cut || d->nx != w->grid.nx || d->ny != w->grid.ny || d->halo != K;
}

/* Rows across a stair's seam that the walkers of rows [lo, hi) look into (sim/behave/ped.c):
 * a walker by a seam on the flight's side sees the landing's side from its place plus the
 * stair's shift, one on the landing's side the flight's from its place minus it, each a block
 * of at most `halo` rows around that point. Marked in need[]. Stairs are never on a torus. */
static void seam_rows(const th_world *w, int32_t lo, int32_t hi, uint8_t *need) {
    const th_grid *g = &w->grid;
    const int32_t K = w->dist->halo, ny = g->ny;
    const float cs = w->nav.map.cell_size;
    for (uint32_t s = 0; s < w->nav.stair_count; s++) {
        const th_stair *st = &w->nav.stair[s];
        for (int side = 0; side < 2; side++) {
            const int32_t *near = st->near_rows[side];
            if (near[0] > near[1]) continue;
            /* The grid rows of the near cells that this strip owns (one row more each way, as
             * below). */
            int32_t a = th_grid_cy(g, (float)near[0] * cs) - 1,
                    b = th_grid_cy(g, (float)(near[1] + 1) * cs) + 1;
            a = a > lo ? a : lo;
            b = b < hi - 1 ? b : hi - 1;
            if (a > b) continue;
            const float dy = side == 0 ? st->shift.y : -st->shift.y;
            const float y0 = g->origin_y + (float)a * g->cell_h,
                        y1 = g->origin_y + (float)(b + 1) * g->cell_h;
            /* One row more each way: a walker's map row and its grid row are rounded from its
             * position apart, so one a hair from a row border may sit a grid row off. */
            int32_t r0 = th_grid_cy(g, y0 + dy) - K - 1, r1 = th_grid_cy(g, y1 + dy) + K + 1;
            r0 = r0 > 0 ? r0 : 0;
            r1 = r1 < ny - 1 ? r1 : ny - 1;
            for (int32_t y = r0; y <= r1; y++) need[y] = 1;
        }
    }
}

/* The rows rank r reads but does not own, marked in need[]: the `halo` rows on each side of its
 * strip (mod ny on a torus; none past a wall), and those across the seams by its rows. */
static void need_rows(const th_world *w, int r, uint8_t *need) {
    const th_dist *d = w->dist;
    const int32_t ny = d->ny, K = d->halo, lo = d->row_lo[r], hi = d->row_hi[r];
    memset(need, 0, (size_t)ny);
    for (int32_t i = 0; i < K; i++) {
        int32_t below = lo - K + i, above = hi + i;
        if (w->wrap) below = (below + ny) % ny, above %= ny;
        if (below >= 0) need[below] = 1;
        if (above < ny) need[above] = 1;
    }
    if (w->nav.stair_count) seam_rows(w, lo, hi, need);
    memset(need + lo, 0, (size_t)(hi - lo));
}

/* Derived tables of a cut: owner per row, this rank's row map, and what it exchanges with each
 * other rank. Ghost rows get local rows in ascending global order, which is the order they
 * arrive in: strips ascend with the rank and each owner sends its rows ascending. */
static void apply_cut(th_world *w) {
    th_dist *d = w->dist;
    const int32_t ny = d->ny, R = d->ranks, me = d->rank;
    for (int r = 0; r < R; r++)
        for (int32_t y = d->row_lo[r]; y < d->row_hi[r]; y++) d->row_owner[y] = r;
    for (int32_t y = 0; y < ny; y++) d->row_local[y] = -1;
    const int32_t lo = d->row_lo[me], hi = d->row_hi[me];
    for (int32_t y = lo; y < hi; y++) d->row_local[y] = y - lo;
    memset(d->peer, 0, (size_t)R * sizeof *d->peer);
    need_rows(w, me, d->need);
    int32_t next = hi - lo;
    for (int32_t y = 0; y < ny; y++) {
        if (!d->need[y]) continue;
        d->row_local[y] = next++;
        d->peer[d->row_owner[y]].rows_in++;
    }
    d->rows_local = next;
    /* What every other rank reads of this strip, as spans of consecutive rows. */
    d->span_n = 0;
    for (int r = 0; r < R; r++) {
        if (r == me) continue;
        need_rows(w, r, d->need);
        peer *p = &d->peer[r];
        p->span0 = d->span_n;
        for (int32_t y = lo; y < hi; y++) {
            if (!d->need[y]) continue;
            row_span *last = p->spans ? &spans(d)[d->span_n - 1] : NULL;
            if (last && last->hi == y) {
                last->hi = y + 1;
                continue;
            }
            ensure_bytes(w, &d->span_buf, &d->span_bytes,
                         (size_t)(d->span_n + 1) * sizeof(row_span));
            spans(d)[d->span_n++] = (row_span){y, y + 1};
            p->spans++;
        }
    }
    d->cut = true;
}

/* Strips of equal row counts: the cut while the world is being built. */
static void cut_even(th_world *w) {
    th_dist *d = w->dist;
    d->nx = w->grid.nx;
    d->ny = w->grid.ny;
    d->halo = halo_rows(w);
    ensure_rows(w, d->ny);
    for (int r = 0; r < d->ranks; r++) {
        d->row_lo[r] = (int32_t)((int64_t)d->ny * r / d->ranks);
        d->row_hi[r] = (int32_t)((int64_t)d->ny * (r + 1) / d->ranks);
    }
    apply_cut(w);
}

/* Strips balanced by agent count: rank r starts at the first row where the prefix count reaches
 * r * N / R, then every strip is pushed to at least `min_rows` rows. Every rank computes it
 * from the same summed histogram, so every rank gets the same cut. */
static void cut_balanced(th_world *w) {
    th_dist *d = w->dist;
    const int32_t ny = d->ny, R = d->ranks, m = min_rows(w, d->halo);
    memset(d->hist, 0, (size_t)ny * sizeof *d->hist);
    for (uint32_t k = 0; k < w->count; k++) d->hist[row_of(d)[k]]++;
    MPI_Allreduce(MPI_IN_PLACE, d->hist, ny, MPI_UINT32_T, MPI_SUM, d->comm);
    d->stats.reduce_bytes += (uint64_t)ny * 4u;
    th_dist_cut(d->hist, ny, R, m, d->row_lo);
    for (int r = 0; r < R; r++) d->row_hi[r] = r + 1 < R ? d->row_lo[r + 1] : ny;
    apply_cut(w);
    d->stats.rebalances++;
}

bool th_dist_owns(th_world *w, th_vec2 p) {
    th_dist *d = w->dist;
    if (!d || d->ranks == 1) return true;
    if (cut_stale(w, halo_rows(w))) cut_even(w);
    return d->row_owner[th_grid_cy(&w->grid, p.y)] == d->rank;
}

/* ---- migration ---------------------------------------------------------------------------- */

/* One agent's double-buffered state (the BUF arrays of TH_AGENT_ARRAYS) as it travels between
 * ranks: generated from the table, so an array added there travels too. */
typedef struct wire_agent {
#define WIRE_FIELD(name, T, kind) TH_AGENT_KIND(BUF, kind, T name;)
    TH_AGENT_ARRAYS(WIRE_FIELD)
#undef WIRE_FIELD
} wire_agent;

static wire_agent wire_get(const th_agents *a, uint32_t k) {
    wire_agent x;
#define WIRE_GET(name, T, kind) TH_AGENT_KIND(BUF, kind, x.name = a->name[k];)
    TH_AGENT_ARRAYS(WIRE_GET)
#undef WIRE_GET
    return x;
}

static void wire_put(th_agents *a, uint32_t k, const wire_agent *x) {
#define WIRE_PUT(name, T, kind) TH_AGENT_KIND(BUF, kind, a->name[k] = x->name;)
    TH_AGENT_ARRAYS(WIRE_PUT)
#undef WIRE_PUT
}

/* What travels with an agent that changes owner: its state, and its per-id state (the
 * receiver keeps per-id arrays for every id, valid for the ids it owns). */
typedef struct migrant {
    wire_agent agent;
    float desired_speed;
} migrant;

static size_t migrant_size(const th_world *w) {
    return sizeof(migrant) + (w->goal_state ? sizeof(th_goal_state) : 0) +
           (w->hazard_state ? sizeof(th_hazard_state) : 0) + (w->exit_of_id ? 1u : 0u) +
           (w->lifts ? sizeof(uint64_t) : 0) + (w->dist->carry_stall ? sizeof(th_stall) : 0) +
           w->hooks.carried[0].size(w) + w->hooks.carried[1].size(w);
}

static void pack_migrant(th_world *w, const th_agents *a, uint32_t k, unsigned char *p) {
    const uint32_t slot = th_id_slot(a->id[k]);
    migrant m = {wire_get(a, k), w->desired_speed[slot]};
    memcpy(p, &m, sizeof m);
    size_t at = sizeof m;
    if (w->goal_state) {
        memcpy(p + at, &w->goal_state[slot], sizeof(th_goal_state));
        at += sizeof(th_goal_state);
    }
    if (w->hazard_state) { /* its dose of the fire hazards */
        memcpy(p + at, &w->hazard_state[slot], sizeof(th_hazard_state));
        at += sizeof(th_hazard_state);
    }
    if (w->exit_of_id) p[at++] = w->exit_of_id[slot]; /* the bunker it walks to */
    if (w->lifts) { /* since when it waits for its elevator (who rides is every rank's) */
        memcpy(p + at, &w->lift_wait[slot], sizeof *w->lift_wait);
        at += sizeof *w->lift_wait;
    }
    if (w->dist->carry_stall) { /* its progress toward its goal */
        memcpy(p + at, &w->stall[slot], sizeof(th_stall));
        at += sizeof(th_stall);
    }
    /* Its own goal and path (freed here), where it was for the measurement lines. */
    for (uint32_t part = 0; part < 2; part++) {
        w->hooks.carried[part].pack(w, slot, p + at);
        at += w->hooks.carried[part].size(w);
    }
}

/* Store a migrant at slot k of buffer `a`. */
static void unpack_migrant(th_world *w, th_agents *a, uint32_t k, const unsigned char *p) {
    migrant m;
    memcpy(&m, p, sizeof m);
    wire_put(a, k, &m.agent);
    const uint32_t slot = th_id_slot(m.agent.id);
    w->desired_speed[slot] = m.desired_speed;
    size_t at = sizeof m;
    if (w->goal_state) {
        memcpy(&w->goal_state[slot], p + at, sizeof(th_goal_state));
        at += sizeof(th_goal_state);
    }
    if (w->hazard_state) {
        memcpy(&w->hazard_state[slot], p + at, sizeof(th_hazard_state));
        at += sizeof(th_hazard_state);
    }
    if (w->exit_of_id) w->exit_of_id[slot] = p[at++];
    if (w->lifts) {
        memcpy(&w->lift_wait[slot], p + at, sizeof *w->lift_wait);
        at += sizeof *w->lift_wait;
    }
    if (w->dist->carry_stall) {
        memcpy(&w->stall[slot], p + at, sizeof(th_stall));
        at += sizeof(th_stall);
    }
    for (uint32_t part = 0; part < 2; part++) {
        if (!w->hooks.carried[part].unpack(w, m.agent.id, p + at)) {
            fprintf(stderr, "throng: rank %d: out of memory for a migrant's state\n",
                    w->dist->rank);
            MPI_Abort(w->dist->comm, 1);
        }
        at += w->hooks.carried[part].size(w);
    }
}

/* The row array holds n agents (contents kept). */
static void ensure_row_of(th_world *w, uint32_t n) {
    th_dist *d = w->dist;
    ensure_bytes(w, &d->row_buf, &d->row_of_cap, (size_t)n * sizeof(int32_t));
}

static void migrate(th_world *w) {
    th_dist *d = w->dist;
    const int R = d->ranks, me = d->rank;
    th_agents *a = &w->buf[w->cur];
    d->carry_stall = th_stall_judged(w); /* once per exchange, not per migrant */
    const size_t rec = migrant_size(w);
    const int32_t *own = d->row_owner;
    int32_t *row = row_of(d);
    for (int r = 0; r < R; r++) d->sagents[r] = 0;
    /* Storage is in cell order, so leavers are the few agents at both ends of it (and among
     * those added since the last step): listed once, they are packed and their places filled
     * without another pass over every agent. */
    ensure_bytes(w, &d->leave_buf, &d->leave_cap, 4096);
    uint32_t *out = (uint32_t *)(void *)d->leave_buf;
    uint32_t leaving = 0;
    for (uint32_t k = 0; k < w->count; k++) {
        const int o = own[row[k]];
        if (o == me) continue;
        if ((size_t)(leaving + 1) * sizeof *out > d->leave_cap) {
            ensure_bytes(w, &d->leave_buf, &d->leave_cap, (size_t)(leaving + 1) * sizeof *out);
            out = (uint32_t *)(void *)d->leave_buf;
        }
        out[leaving++] = k;
        d->sagents[o]++;
    }
    MPI_Alltoall(d->sagents, 1, MPI_INT, d->ragents, 1, MPI_INT, d->comm);
    d->stats.reduce_bytes += (uint64_t)R * 4u;
    uint32_t arriving = 0;
    for (int r = 0; r < R; r++) arriving += (uint32_t)d->ragents[r];
    /* Every rank takes part in the Alltoallv, even with nothing to send or receive. */
    size_t soff = 0, roff = 0;
    for (int r = 0; r < R; r++) {
        d->scount[r] = (int)((size_t)d->sagents[r] * rec);
        d->rcount[r] = (int)((size_t)d->ragents[r] * rec);
        d->sdispl[r] = (int)soff;
        d->rdispl[r] = (int)roff;
        soff += (size_t)d->scount[r];
        roff += (size_t)d->rcount[r];
    }
    ensure_bytes(w, &d->sbuf, &d->scap, soff);
    ensure_bytes(w, &d->rbuf, &d->rcap, roff);
    for (int r = 0; r < R; r++) d->sagents[r] = d->sdispl[r]; /* reused as write offsets */
    for (uint32_t i = 0; i < leaving; i++) {
        const uint32_t k = out[i];
        const int o = own[row[k]];
        pack_migrant(w, a, k, d->sbuf + d->sagents[o]);
        d->sagents[o] += (int)rec;
        w->slot_of_id[th_id_slot(a->id[k])] = UINT32_MAX;
    }
    MPI_Alltoallv(d->sbuf, d->scount, d->sdispl, MPI_BYTE, d->rbuf, d->rcount, d->rdispl, MPI_BYTE,
                  d->comm);
    d->stats.migrate_bytes += soff + roff;
    d->stats.migrants += leaving;
    if (!leaving && !arriving) return;

    /* Each leaver's place is taken by the last agent stored, leavers from the highest index
     * down (so the last agent is never one that leaves), and the arrivals follow the agents
     * kept. Any order does: the grid build orders each cell by id. */
    uint32_t kept = w->count;
    for (uint32_t i = leaving; i-- > 0;) {
        const uint32_t k = out[i];
        kept--;
        if (k == kept) continue;
        th_agent_move_down(w, k, kept); /* its arrays and its id map entry */
        row[k] = row[kept];
    }
    const uint32_t n = kept + arriving;
    world_reserve(w, n);
    ensure_row_of(w, n);
    a = &w->buf[w->cur];
    row = row_of(d);
    uint32_t j = kept;
    for (int r = 0; r < R; r++) {
        const unsigned char *p = d->rbuf + d->rdispl[r];
        for (int i = 0; i < d->ragents[r]; i++, p += rec, j++) {
            unpack_migrant(w, a, j, p);
            row[j] = th_grid_cy(&w->grid, a->py[j]);
            w->slot_of_id[th_id_slot(a->id[j])] = j;
        }
    }
    /* No agent carries a shelter mark between steps (the admit phase clears or drops every
     * one), and integration rewrites it only for crowds that flee or have exits: an arrival
     * must not inherit the mark of an agent that left from the index it lands on. */
    memset(w->shelter + kept, 0, arriving);
    w->count = n;
}

/* How many owned agents each peer reads this step (p->out), from the rows of the agents; then
 * the counts exchanged with the peers, so that each rank knows how many ghosts come (p->in). */
static void ghost_counts(th_world *w) {
    th_dist *d = w->dist;
    const int32_t lo = d->row_lo[d->rank], hi = d->row_hi[d->rank];
    memset(d->row_count + lo, 0, (size_t)(hi - lo) * sizeof *d->row_count);
    const int32_t *row = row_of(d);
    for (uint32_t k = 0; k < w->count; k++) d->row_count[row[k]]++;
    int nreq = 0;
    d->ghosts_in = 0;
    for (int r = 0; r < d->ranks; r++) {
        peer *p = &d->peer[r];
        p->out = p->in = 0;
        for (uint32_t i = p->span0; i < p->span0 + p->spans; i++)
            for (int32_t y = spans(d)[i].lo; y < spans(d)[i].hi; y++) p->out += d->row_count[y];
        if (p->rows_in) MPI_Irecv(&p->in, 1, MPI_UINT32_T, r, TAG_COUNT, d->comm, &d->req[nreq++]);
        if (p->spans) MPI_Isend(&p->out, 1, MPI_UINT32_T, r, TAG_COUNT, d->comm, &d->req[nreq++]);
    }
    MPI_Waitall(nreq, d->req, MPI_STATUSES_IGNORE);
    for (int r = 0; r < d->ranks; r++) d->ghosts_in += d->peer[r].in;
}

/* Each stored agent's grid row, from its position (the workers, by chunk). */
static void rows_job(void *ctx, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    const th_world *w = ctx;
    const float *py = w->buf[w->cur].py;
    int32_t *row = row_of(w->dist);
    for (uint32_t k = begin; k < end; k++) row[k] = th_grid_cy(&w->grid, py[k]);
}

void th_dist_migrate(th_world *w) {
    th_dist *d = w->dist;
    if (!d || d->ranks == 1) return;
    const uint64_t t0 = th_now_ns();
    const int32_t K = halo_rows(w);
    const bool regrid = cut_stale(w, K);
    if (regrid && w->grid.ny < d->ranks * min_rows(w, K)) {
        /* th_world_dist_check refuses such a world up front; a host that did not ask gets the
         * same answer here, on every rank at once (the grid is replicated). */
        th_error err = {0};
        th_dist_check(w, &err);
        fprintf(stderr, "throng: %s\n", err.message);
        MPI_Abort(d->comm, 1);
    }
    if (regrid) cut_even(w);
    ensure_row_of(w, w->count);
    th_pool_parallel_for(w->pool, w->count, TH_CHUNK, rows_job, w);
    if (regrid || !d->balanced || w->step % d->rebalance_every == 0) {
        cut_balanced(w);
        d->balanced = true;
    }
    migrate(w);
    /* Ghost counts, so that the arrays hold owned + ghosts before the build. */
    ghost_counts(w);
    w->ghosts = 0;
    world_reserve(w, w->count + d->ghosts_in);
    th_grid *g = &w->grid;
    g->row_local = d->row_local;
    g->key_base = (uint32_t)d->row_lo[d->rank] * (uint32_t)g->nx;
    g->rows_owned = d->row_hi[d->rank] - d->row_lo[d->rank];
    g->rows_local = d->rows_local;
    d->stats.migrate_ms += (double)(th_now_ns() - t0) * 1e-6;
}

/* ---- ghosts ------------------------------------------------------------------------------- */

typedef struct ghost {
    wire_agent agent;
    uint32_t cell;
} ghost;

static void pack_ghosts(const th_world *w, void *ctx, uint32_t from, uint32_t to,
                        unsigned char *p) {
    (void)ctx;
    const th_agents *a = &w->buf[w->cur];
    for (uint32_t k = from; k < to; k++, p += sizeof(ghost)) {
        ghost g = {wire_get(a, k), w->cell[k]};
        memcpy(p, &g, sizeof g);
    }
}

static void unpack_ghosts(th_world *w, void *ctx, uint32_t at, uint32_t n, const unsigned char *p) {
    (void)ctx;
    th_agents *a = &w->buf[w->cur];
    for (uint32_t i = 0; i < n; i++, p += sizeof(ghost)) {
        ghost g;
        memcpy(&g, p, sizeof g);
        const uint32_t k = at + i;
        wire_put(a, k, &g.agent);
        w->cell[k] = g.cell;
    }
}

/* Send each peer the owned agents of the rows it reads and take in those this rank reads:
 * `per` bytes an agent, pack(w, ctx, from, to, out) writing storage slice [from, to) and
 * unpack(w, ctx, first, n, in) reading the n ghosts stored from `first`. The slices are those
 * of this step's grid; the counts are ghost_counts'. Returns the bytes sent and received. */
static uint64_t exchange_rows(th_world *w, size_t per, int tag, th_dist_pack_fn pack,
                              th_dist_unpack_fn unpack, void *ctx) {
    th_dist *d = w->dist;
    const th_grid *g = &w->grid;
    const uint32_t nx = (uint32_t)g->nx;
    const int32_t lo = d->row_lo[d->rank];
    size_t out = 0;
    for (int r = 0; r < d->ranks; r++) out += (size_t)d->peer[r].out * per;
    const size_t in = (size_t)d->ghosts_in * per;
    ensure_bytes(w, &d->sbuf, &d->scap, out);
    ensure_bytes(w, &d->rbuf, &d->rcap, in);
    int nreq = 0;
    size_t at_in = 0, at_out = 0;
    for (int r = 0; r < d->ranks; r++) {
        const peer *p = &d->peer[r];
        if (p->in) {
            MPI_Irecv(d->rbuf + at_in, (int)(p->in * per), MPI_BYTE, r, tag, d->comm,
                      &d->req[nreq++]);
            at_in += p->in * per;
        }
        if (!p->out) continue;
        const size_t first = at_out;
        for (uint32_t i = p->span0; i < p->span0 + p->spans; i++) {
            const uint32_t from = g->cell_start[(uint32_t)(spans(d)[i].lo - lo) * nx];
            const uint32_t to = g->cell_start[(uint32_t)(spans(d)[i].hi - lo) * nx];
            pack(w, ctx, from, to, d->sbuf + at_out);
            at_out += (size_t)(to - from) * per;
        }
        if (at_out - first != p->out * per) rank_abort(d, "ghost rows changed after their count");
        MPI_Isend(d->sbuf + first, (int)(at_out - first), MPI_BYTE, r, tag, d->comm,
                  &d->req[nreq++]);
    }
    MPI_Waitall(nreq, d->req, MPI_STATUSES_IGNORE);
    unpack(w, ctx, w->count, d->ghosts_in, d->rbuf);
    return out + in;
}

void th_dist_ghosts(th_world *w) {
    th_dist *d = w->dist;
    if (!d || d->ranks == 1) return;
    const uint64_t t0 = th_now_ns();
    d->stats.ghost_bytes +=
        exchange_rows(w, sizeof(ghost), TAG_ROWS, pack_ghosts, unpack_ghosts, NULL);
    w->ghosts = d->ghosts_in;
    th_grid_set_ghosts(&w->grid, w->count, w->cell + w->count, w->ghosts);
    d->stats.owned = w->count;
    d->stats.ghosts = w->ghosts;
    d->stats.rows_lo = (uint32_t)d->row_lo[d->rank];
    d->stats.rows_hi = (uint32_t)d->row_hi[d->rank];
    d->stats.steps++;
    d->stats.halo_ms += (double)(th_now_ns() - t0) * 1e-6;
}

/* th_dist_ghost_floats' two arrays (ctx: float *[2]), an agent's pair after another's. */
static void pack_floats(const th_world *w, void *ctx, uint32_t from, uint32_t to,
                        unsigned char *p) {
    (void)w;
    float *const *xy = ctx;
    for (uint32_t k = from; k < to; k++, p += 8) {
        memcpy(p, &xy[0][k], 4);
        memcpy(p + 4, &xy[1][k], 4);
    }
}

static void unpack_floats(th_world *w, void *ctx, uint32_t first, uint32_t n,
                          const unsigned char *p) {
    (void)w;
    float *const *xy = ctx;
    for (uint32_t k = first; k < first + n; k++, p += 8) {
        memcpy(&xy[0][k], p, 4);
        memcpy(&xy[1][k], p + 4, 4);
    }
}

void th_dist_ghost_floats(th_world *w, float *x, float *y) {
    th_dist *d = w->dist;
    if (!d || d->ranks == 1) return;
    float *xy[2] = {x, y};
    d->stats.ghost_bytes += exchange_rows(w, 8u, TAG_FLOATS, pack_floats, unpack_floats, xy);
}

void th_dist_ghost_records(th_world *w, size_t per, th_dist_pack_fn pack, th_dist_unpack_fn unpack,
                           void *ctx) {
    th_dist *d = w->dist;
    if (!d || d->ranks == 1) return;
    d->stats.ghost_bytes += exchange_rows(w, per, TAG_RECORDS, pack, unpack, ctx);
}

void th_dist_gather_u64(const th_world *w, const uint64_t *mine, uint32_t n, uint64_t *all) {
    const th_dist *d = w->dist;
    if (!d || d->ranks == 1) {
        if (n) memcpy(all, mine, n * sizeof *mine);
        return;
    }
    MPI_Allgather(mine, (int)n, MPI_UINT64_T, all, (int)n, MPI_UINT64_T, d->comm);
}

/* ---- reductions --------------------------------------------------------------------------- */

void th_dist_sum_u64(th_world *w, uint64_t *v, uint32_t n) {
    if (!w->dist || w->dist->ranks == 1 || n == 0) return;
    MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_UINT64_T, MPI_SUM, w->dist->comm);
    w->dist->stats.reduce_bytes += (uint64_t)n * 8u;
}

void th_dist_sum_u32(th_world *w, uint32_t *v, uint32_t n) {
    if (!w->dist || w->dist->ranks == 1 || n == 0) return;
    MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_UINT32_T, MPI_SUM, w->dist->comm);
    w->dist->stats.reduce_bytes += (uint64_t)n * 4u;
}

void th_dist_max_f32(th_world *w, float *v, uint32_t n) {
    if (!w->dist || w->dist->ranks == 1 || n == 0) return;
    MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_FLOAT, MPI_MAX, w->dist->comm);
    w->dist->stats.reduce_bytes += (uint64_t)n * 4u;
}

bool th_dist_any(th_world *w, bool v) {
    if (!w->dist || w->dist->ranks == 1) return v;
    int x = v;
    MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_LOR, w->dist->comm);
    w->dist->stats.reduce_bytes += 4u;
    return x != 0;
}

void th_dist_or_u32(th_world *w, uint32_t *v, uint32_t n) {
    if (!w->dist || w->dist->ranks == 1 || n == 0) return;
    MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_UINT32_T, MPI_BOR, w->dist->comm);
    w->dist->stats.reduce_bytes += (uint64_t)n * 4u;
}

void th_dist_count_sent(th_world *w, uint64_t bytes) {
    if (w->dist) w->dist->stats.reduce_bytes += bytes;
}

/* ---- the hash ----------------------------------------------------------------------------- */

typedef struct hashed {
    uint32_t slot, gen, crowd;
    float px, py, vx, vy;
} hashed;

/* Id slots per round of the hash's gather: rank 0 holds at most this many records (28 MiB)
 * whatever the size of the world, and no rank sends more than 2 GiB (MPI's int counts). */
#define TH_HASH_ROUND (1u << 20)

/* One process hashes its agents in id slot order. Over ranks, rank 0 hashes them the same way
 * from the owners' records, gathered in rounds of TH_HASH_ROUND id slots: each rank lists the
 * agents it owns in the round's slot range in slot order (slot_of_id names them; O(slots) per
 * rank over the whole hash), rank 0 files them by slot and hashes the round. */
uint64_t th_dist_hash(const th_world *w, void (*head)(const th_world *, struct th_hasher *),
                      void (*tail)(const th_world *, struct th_hasher *)) {
    const th_dist *d = w->dist;
    const th_agents *a = &w->buf[w->cur];
    const int R = d->ranks;
    const bool root = d->rank == 0;
    const uint32_t most = d->hash_round ? d->hash_round : TH_HASH_ROUND;
    const uint32_t round = w->id_top < most ? w->id_top + 1u : most;
    /* Called between steps: allocating here is allowed. */
    hashed *mine = th_calloc(round, sizeof *mine);
    int *counts = th_calloc((size_t)R, sizeof *counts),
        *displ = th_calloc((size_t)R, sizeof *displ);
    hashed *all = root ? th_calloc(round, sizeof *all) : NULL;
    uint32_t *at = root ? th_calloc(round, sizeof *at) : NULL;
    if (!mine || !counts || !displ || (root && (!all || !at)))
        rank_abort(d, "out of memory for the state hash");
    th_hasher h = th_hash_begin();
    if (root) head(w, &h);
    uint64_t held = 0; /* agents gathered, over all rounds (rank 0) */
    bool ok = true;
    for (uint32_t lo = 0; lo < w->id_top; lo += round) {
        const uint32_t hi = w->id_top - lo < round ? w->id_top : lo + round;
        uint32_t n = 0;
        for (uint32_t s = lo; s < hi; s++) {
            const uint32_t k = w->slot_of_id[s];
            if (k >= w->count) continue; /* free, or stored on another rank */
            mine[n++] = (hashed){
                s, a->id[k].generation, a->crowd[k], a->px[k], a->py[k], a->vx[k], a->vy[k]};
        }
        int nbytes = (int)(n * sizeof(hashed));
        MPI_Gather(&nbytes, 1, MPI_INT, counts, 1, MPI_INT, 0, d->comm);
        size_t total = 0;
        if (root)
            for (int r = 0; r < R; r++) displ[r] = (int)total, total += (size_t)counts[r];
        /* Every agent alive is owned by exactly one rank, so a round holds at most `round`
         * records; more is a broken layout, which a hash must not paper over. */
        if (root && total > (size_t)round * sizeof(hashed))
            rank_abort(d, "ranks hold more agents than id slots (an agent owned twice)");
        MPI_Gatherv(mine, nbytes, MPI_BYTE, all, counts, displ, MPI_BYTE, 0, d->comm);
        if (!root || !ok) continue;
        const uint32_t got = (uint32_t)(total / sizeof(hashed));
        held += got;
        for (uint32_t s = 0; s < hi - lo; s++) at[s] = UINT32_MAX;
        for (uint32_t i = 0; ok && i < got; i++) {
            const uint32_t s = all[i].slot - lo;
            ok = all[i].slot >= lo && s < hi - lo && at[s] == UINT32_MAX;
            if (ok) at[s] = i;
        }
        for (uint32_t s = 0; ok && s < hi - lo; s++) {
            if (at[s] == UINT32_MAX) continue;
            const hashed *e = &all[at[s]];
            th_hash_u64(&h, th_agent_key((th_agent_id){e->slot + 1u, e->gen}));
            th_hash_u32(&h, e->crowd);
            th_hash_f32(&h, e->px);
            th_hash_f32(&h, e->py);
            th_hash_f32(&h, e->vx);
            th_hash_f32(&h, e->vy);
        }
    }
    uint64_t h64 = 0;
    if (root) {
        if (!ok || held != w->total) {
            fprintf(stderr,
                    "throng: ranks hold %llu agents for %u alive (an agent owned twice or by "
                    "none)\n",
                    (unsigned long long)held, w->total);
            MPI_Abort(d->comm, 1);
        }
        tail(w, &h);
        h64 = th_hash_end(&h);
    }
    MPI_Bcast(&h64, 1, MPI_UINT64_T, 0, d->comm);
    th_free(mine);
    th_free(counts);
    th_free(displ);
    th_free(all);
    th_free(at);
    return h64;
}

void th_dist_set_hash_round(th_world *w, uint32_t slots) {
    if (w->dist) w->dist->hash_round = slots;
}

/* ---- whether the world can be split ---------------------------------------------------------- */

/* The running hash of the calls that gave agents their own goals (w->own_call_hash), gathered
 * on every rank. Such a call makes a collective call of its own, which a rank not given it would
 * meet with another (th_world_dist_check's, which starts with this one) and wait for ever:
 * comparing the calls first makes every rank stop instead. One number a call, not the world's
 * digest, so a host giving goals between steps pays a gather of eight bytes a call. */
static bool same_goal_calls(const th_world *w, th_error *err) {
    const th_dist *d = w->dist;
    uint64_t *all = th_calloc((size_t)d->ranks, sizeof *all);
    if (!all) rank_abort(d, "out of memory comparing the ranks' calls");
    const uint64_t mine = w->own_call_hash;
    MPI_Allgather(&mine, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, d->comm);
    bool same = true;
    for (int r = 1; same && r < d->ranks; r++) {
        if (all[r] == all[0]) continue;
        same = false;
        th_error_set(err, TH_ERR_STATE,
                     "the MPI ranks built different worlds: rank %d's differs from rank 0's in "
                     "its own goals",
                     r);
    }
    th_free(all);
    return same;
}

bool th_dist_same_goal_calls(const th_world *w, th_error *err) {
    return !w->dist || w->dist->ranks == 1 || same_goal_calls(w, err);
}

bool th_dist_check(const th_world *w, th_error *err) {
    const th_dist *d = w->dist;
    if (!d || d->ranks == 1) return true;
    const int32_t K = halo_rows(w), m = min_rows(w, K);
    if (w->grid.ny < d->ranks * m) {
        th_error_set(err, TH_ERR_LIMIT,
                     "the world has %d rows of grid cells of %.2f m; %d ranks need at least %d "
                     "(%d per strip)",
                     w->grid.ny, (double)w->grid.cell_h, d->ranks, d->ranks * m, m);
        return false;
    }
    return true;
}
