/* The serial phases over split agents (sim/dist/dist_serial.h).
 *
 * Everything a serial phase decides from the agents is either an integer sum (counts, the
 * fixed-point speed sums of measurement), a maximum (the contacts' worst overlap), an or (the
 * settle flag), or a walk in storage order with a rule that depends on the order (bunkers
 * admitting until full, the id free list pushed as agents leave). Sums, maxima and ors are
 * exact in any order, so ranks combine them with one collective. Order-dependent walks are
 * replayed: every rank gathers the candidates of all ranks, sorts them by global storage
 * order (grid cell, id slot: the order one process stores them in, docs/architecture.md) and
 * runs the same serial rule on the same list, so every rank ends with the same bunkers, counts
 * and free list, and each applies the outcome to the agents it owns.
 *
 * MPI calls are made only in the MPI build (THRONG_MPI), on the stepping thread, between the
 * parallel phases. In one process every collective is an identity. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/alloc.h"
#include "sim/dist/dist_serial.h"

#include "sim/dist/dist.h"
#ifdef THRONG_MPI
#include "sim/dist/dist_mpi.h"
#endif

/* Buffers of the replay, kept between steps and grown to the largest need seen (doubling):
 * after warm-up no step allocates. */
struct th_dist_serial {
    bool forced;
    th_drop_buffers drops;
    float *near;
    uint32_t near_cap;
    int *counts, *displs; /* per rank, for the gathers */
    uint32_t ranks;
};

static struct th_dist_serial *serial_of(th_world *w) {
    if (!w->dist_serial) w->dist_serial = th_calloc(1, sizeof *w->dist_serial);
    return w->dist_serial;
}

void th_dist_serial_free(th_world *w) {
    struct th_dist_serial *s = w->dist_serial;
    if (!s) return;
    th_free(s->drops.mine);
    th_free(s->drops.all);
    th_free(s->near);
    th_free(s->counts);
    th_free(s->displs);
    th_free(s);
    w->dist_serial = NULL;
}

void th_dist_serial_force(th_world *w, bool on) {
    struct th_dist_serial *s = serial_of(w);
    if (s) s->forced = on;
}

bool th_dist_serial_forced(const th_world *w) { return w->dist_serial && w->dist_serial->forced; }

bool th_dist_room(void **p, uint32_t *cap, size_t elem, uint32_t n) {
    return th_array_reserve(p, elem, 0, cap, n, 256, UINT32_MAX);
}

/* ---- the replay (plain C) -------------------------------------------------------------------- */

/* Record i of the array at p, `size` bytes each. */
static inline unsigned char *rec_at(void *p, size_t size, uint32_t i) {
    return (unsigned char *)p + (size_t)i * size;
}

static inline uint64_t key_at(void *p, size_t size, uint32_t i) {
    uint64_t k;
    memcpy(&k, rec_at(p, size, i), sizeof k);
    return k;
}

static void swap_recs(void *p, size_t size, uint32_t i, uint32_t j) {
    unsigned char t[TH_KEYED_MAX];
    memcpy(t, rec_at(p, size, i), size);
    memcpy(rec_at(p, size, i), rec_at(p, size, j), size);
    memcpy(rec_at(p, size, j), t, size);
}

static void sift(void *p, size_t size, uint32_t at, uint32_t n) {
    for (;;) {
        uint32_t c = 2 * at + 1;
        if (c >= n) return;
        if (c + 1 < n && key_at(p, size, c + 1) > key_at(p, size, c)) c++;
        if (key_at(p, size, at) >= key_at(p, size, c)) return;
        swap_recs(p, size, at, c);
        at = c;
    }
}

void th_sort_keyed(void *items, uint32_t n, size_t size) {
    if (!TH_ASSERT(size >= sizeof(uint64_t) && size <= TH_KEYED_MAX)) return;
    for (uint32_t i = n / 2; i-- > 0;) sift(items, size, i, n);
    for (uint32_t end = n; end > 1; end--) {
        swap_recs(items, size, 0, end - 1);
        sift(items, size, 0, end - 1);
    }
}

void th_drop_sort(th_drop *d, uint32_t n) { th_sort_keyed(d, n, sizeof *d); }

uint32_t th_drop_replay(th_drop *d, uint32_t n, th_drop_bunker *b, uint32_t bunkers,
                        th_door_limit *exit, uint32_t exits, uint64_t step, double dt) {
    uint32_t turned_full = 0;
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t m = d[i].mark;
        d[i].left = 1;
        if (m == TH_MARK_REMOVED) continue;
        if (m >= TH_MARK_EXIT && m < TH_MARK_EXIT + TH_MAX_EXITS) {
            const uint32_t e = m - TH_MARK_EXIT;
            d[i].left = e >= exits || th_door_pass(&exit[e], step, dt);
            continue;
        }
        if (m == 0 || (uint32_t)(m - 1) >= bunkers) { /* not marked: nothing to do */
            d[i].left = 0;
            continue;
        }
        th_drop_bunker *bk = &b[m - 1];
        const int took = th_bunker_take(bk->capacity, &bk->sheltered, &bk->full, bk->destroyed,
                                        &bk->limit, step, dt);
        d[i].left = took != 0;
        turned_full += took == 2;
    }
    return turned_full;
}

/* ---- collectives ----------------------------------------------------------------------------- */

static int ranks_of(const th_world *w) { return th_dist_ranks(w); }

bool th_dist_serial_active(const th_world *w) { return ranks_of(w) > 1; }

void th_dist_out_of_memory(const th_world *w, const char *what) {
#ifdef THRONG_MPI
    if (ranks_of(w) > 1) {
        fprintf(stderr, "throng: rank %d: out of memory %s\n", th_dist_rank(w), what);
        MPI_Abort(th_dist_comm(w), 1);
    }
#else
    (void)w;
#endif
    (void)TH_ASSERT(!"out of memory in a serial phase over ranks");
    (void)what;
}

void *th_dist_gather_all(th_world *w, const void *mine, uint32_t n, size_t elem, void **buf,
                         uint32_t *cap, uint32_t extra, uint32_t *total) {
    uint32_t all = n;
#ifdef THRONG_MPI
    const int R = ranks_of(w);
    if (R > 1) {
        struct th_dist_serial *s = serial_of(w);
        if (!s) th_dist_out_of_memory(w, "for the gathers");
        if ((uint32_t)R > s->ranks) {
            th_free(s->counts);
            th_free(s->displs);
            s->counts = th_calloc((size_t)R, sizeof *s->counts);
            s->displs = th_calloc((size_t)R, sizeof *s->displs);
            if (!s->counts || !s->displs) th_dist_out_of_memory(w, "for the gathers");
            s->ranks = (uint32_t)R;
        }
        if ((size_t)n * elem > INT_MAX) th_dist_out_of_memory(w, "for a gather over 2 GiB");
        int bytes = (int)(n * elem);
        MPI_Allgather(&bytes, 1, MPI_INT, s->counts, 1, MPI_INT, th_dist_comm(w));
        size_t sum = 0;
        for (int r = 0; r < R; r++) {
            s->displs[r] = (int)sum;
            sum += (size_t)s->counts[r];
        }
        all = (uint32_t)(sum / elem);
        if (!th_dist_room(buf, cap, elem, all + extra + 1))
            th_dist_out_of_memory(w, "for a gather");
        MPI_Allgatherv(mine, bytes, MPI_BYTE, *buf, s->counts, s->displs, MPI_BYTE,
                       th_dist_comm(w));
        th_dist_count_sent(w, 4u + (uint64_t)bytes);
        *total = all;
        return *buf;
    }
#else
    (void)w;
#endif
    if (!th_dist_room(buf, cap, elem, all + extra + 1)) return NULL;
    if (n) memcpy(*buf, mine, n * elem);
    *total = all;
    return *buf;
}

th_drop_buffers *th_dist_drop_buffers(th_world *w) {
    struct th_dist_serial *s = serial_of(w);
    return s ? &s->drops : NULL;
}

/* ---- targets that follow an agent ------------------------------------------------------------ */

void th_dist_targets(th_world *w) {
    if (!th_dist_serial_active(w)) return;
    /* Per target: valid, px, py, vx, vy as bits. Only the owner of the followed agent found it
     * valid; the others contribute zeros, so the or is the owner's values, bit for bit. */
    uint32_t v[TH_MAX_TARGETS * 5];
    const uint32_t n = w->target_count;
    for (uint32_t t = 0; t < n; t++) {
        uint32_t *e = &v[t * 5];
        memset(e, 0, 5 * sizeof *e);
        if (w->target_def[t].kind != TH_TARGET_AGENT || !w->target_valid[t]) continue;
        e[0] = 1;
        memcpy(&e[1], &w->target_pos[t].x, 4);
        memcpy(&e[2], &w->target_pos[t].y, 4);
        memcpy(&e[3], &w->target_vel[t].x, 4);
        memcpy(&e[4], &w->target_vel[t].y, 4);
    }
    th_dist_or_u32(w, v, n * 5); /* the exact transfer of values one rank holds */
    for (uint32_t t = 0; t < n; t++) {
        if (w->target_def[t].kind != TH_TARGET_AGENT) continue;
        const uint32_t *e = &v[t * 5];
        w->target_valid[t] = e[0] != 0;
        memcpy(&w->target_pos[t].x, &e[1], 4);
        memcpy(&w->target_pos[t].y, &e[2], 4);
        memcpy(&w->target_vel[t].x, &e[3], 4);
        memcpy(&w->target_vel[t].y, &e[4], 4);
    }
}

/* ---- spawners ---------------------------------------------------------------------------------
 */

uint32_t th_dist_gather_near(th_world *w, float **near, uint32_t n, uint32_t *cap) {
    struct th_dist_serial *s = serial_of(w);
    uint32_t total = 0;
    float *all = s ? th_dist_gather_all(w, *near, n, 3 * sizeof **near, (void **)&s->near,
                                        &s->near_cap, 0, &total)
                   : NULL;
    if (!all || (total > *cap && !th_grow_array((void **)near, 3 * sizeof **near, 0, total))) {
        th_dist_out_of_memory(w, "gathering the bodies near a spawner");
        return n;
    }
    if (total > *cap) *cap = total;
    memcpy(*near, all, (size_t)total * 3 * sizeof **near);
    return total;
}
