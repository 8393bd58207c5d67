/* Navigation benchmark: field builds, combined rebuild, incremental repair, wall distance, A*.
 *
 * A deterministic 1024 x 1024 city: 32-cell blocks split by 6-cell streets, buildings as walls
 * (some destructible), parks of grass (cost 3) and a few swamps (cost 5), 8 bunkers of 3x3
 * cells on street crossings. Prints the best and the median of several runs per measurement.
 *
 *   bench_nav [size] [runs]     size in [64, 4096] (default 1024), runs in [1, 50] (default 7) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../engine/alloc.h"
#include "../engine/jobs.h"
#include "../engine/profile.h"
#include "../engine/rng.h"
#include "../sim/nav.h"

enum { BUNKERS = 8, MAX_RUNS = 50, BLOCK = 32, STREET = 6 };

static void build_city(th_navmap *m) {
    int32_t n = m->w;
    for (int32_t y = 0; y < n; y++) {
        for (int32_t x = 0; x < n; x++) {
            int32_t bx = x % BLOCK, by = y % BLOCK;
            if (bx < STREET || by < STREET) continue; /* street */
            uint64_t block = (uint64_t)(y / BLOCK) * 4096u + (uint64_t)(x / BLOCK);
            uint64_t kind = th_rng_u64(7, block, 0) % 10;
            int32_t ix = bx - STREET, iy = by - STREET, side = BLOCK - STREET;
            if (kind < 2) {
                th_navmap_set_cost(m, x, y, 3); /* park */
            } else if (kind == 2) {
                th_navmap_set_cost(m, x, y, 5); /* swamp */
            } else {
                /* A building: a ring of wall with a door, hollow inside, some walls
                 * destructible. */
                bool ring = ix == 1 || iy == 1 || ix == side - 2 || iy == side - 2;
                bool inside = ix > 1 && iy > 1 && ix < side - 2 && iy < side - 2;
                bool door = (ix == side / 2 && iy == 1) && kind % 2 == 0;
                if (ring && !door) {
                    th_navmap_set_blocked(m, x, y, (ix + iy) % 3 == 0);
                } else if (inside && kind == 9) {
                    th_navmap_set_blocked(m, x, y, true); /* solid block */
                }
            }
        }
    }
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void report(const char *what, uint64_t *ns, int runs) {
    qsort(ns, (size_t)runs, sizeof *ns, cmp_u64);
    printf("%-52s best %8.2f ms   median %8.2f ms\n", what, (double)ns[0] / 1e6,
           (double)ns[runs / 2] / 1e6);
}

int main(int argc, char **argv) {
    int32_t size = argc > 1 ? atoi(argv[1]) : 1024;
    int runs = argc > 2 ? atoi(argv[2]) : 7;
    if (size < 64 || size > TH_NAV_MAX_DIM || runs < 1 || runs > MAX_RUNS) {
        fprintf(stderr, "usage: bench_nav [size 64..4096] [runs 1..50]\n");
        return 2;
    }
    th_navmap m;
    if (th_navmap_init(&m, size, size, 1.0f) != TH_NAV_OK) return 1;
    build_city(&m);
    th_pool *pool = th_pool_create(2);
    if (!pool) return 1;
    th_nav_scratch *scratch[2] = {th_nav_scratch_create(&m), th_nav_scratch_create(&m)};
    th_nav_field fields[BUNKERS];
    for (int k = 0; k < BUNKERS; k++) {
        if (th_nav_field_init(&fields[k], &m, 16) != TH_NAV_OK) return 1;
        /* Street crossings spread over the map. */
        int32_t cx = ((k % 4) * 2 + 1) * size / 8, cy = ((k / 4) * 2 + 1) * size / 4;
        cx = cx / BLOCK * BLOCK + 1;
        cy = cy / BLOCK * BLOCK + 1;
        th_nav_field_set_goal_rect(&fields[k], cx, cy, cx + 2, cy + 2, 0);
    }
    th_nav_combined comb;
    if (!scratch[0] || !scratch[1] || th_nav_combined_init(&comb, &m) != TH_NAV_OK) return 1;
    uint64_t ns[MAX_RUNS];
    printf("map %d x %d, %d bunkers, %u open cells, cpus %u\n", size, size, BUNKERS,
           m.ncells - m.cost_count[0], th_cpu_count());

    th_navmap_update_walls(&m, NULL);
    for (int r = 0; r < runs; r++) {
        uint64_t t = th_now_ns();
        th_navmap_update_walls(&m, NULL);
        ns[r] = th_now_ns() - t;
    }
    report("wall distance, 1 thread", ns, runs);
    for (int r = 0; r < runs; r++) {
        uint64_t t = th_now_ns();
        th_navmap_update_walls(&m, pool);
        ns[r] = th_now_ns() - t;
    }
    report("wall distance, 2 threads", ns, runs);

    for (int r = 0; r < runs; r++) {
        uint64_t t = th_now_ns();
        th_nav_fields_compute(NULL, scratch, 1, fields, BUNKERS, &m);
        ns[r] = th_now_ns() - t;
    }
    report("all 8 fields, 1 thread", ns, runs);
    for (int r = 0; r < runs; r++) {
        uint64_t t = th_now_ns();
        th_nav_fields_compute(pool, scratch, 2, fields, BUNKERS, &m);
        ns[r] = th_now_ns() - t;
    }
    report("all 8 fields, 2 threads", ns, runs);

    uint8_t alive[BUNKERS];
    memset(alive, 1, sizeof alive);
    th_nav_combined_build(&comb, pool, fields, BUNKERS, alive);
    for (int r = 0; r < runs; r++) {
        alive[r % BUNKERS] = 0; /* a bunker is destroyed */
        uint64_t t = th_now_ns();
        th_nav_combined_build(&comb, NULL, fields, BUNKERS, alive);
        ns[r] = th_now_ns() - t;
        alive[r % BUNKERS] = 1;
    }
    report("combined rebuild after bunker loss, 1 thread", ns, runs);
    for (int r = 0; r < runs; r++) {
        alive[r % BUNKERS] = 0;
        uint64_t t = th_now_ns();
        th_nav_combined_build(&comb, pool, fields, BUNKERS, alive);
        ns[r] = th_now_ns() - t;
        alive[r % BUNKERS] = 1;
    }
    report("combined rebuild after bunker loss, 2 threads", ns, runs);

    /* Wall breaks: pick destructible walls in a fixed scan order. */
    uint32_t walls[64], nwalls = 0;
    for (uint32_t c = m.ncells / 3; c < m.ncells && nwalls < 64; c += 997) {
        if (m.cost[c] == 0 && (m.flags[c] & TH_NAV_FLAG_DESTRUCTIBLE)) walls[nwalls++] = c;
    }
    uint32_t batches[2] = {1, 16};
    uint32_t used = 0;
    for (int b = 0; b < 2; b++) {
        uint32_t nb = batches[b];
        int done = 0;
        for (int r = 0; r < runs && used + nb <= nwalls; r++, done++) {
            for (uint32_t i = 0; i < nb; i++) {
                uint32_t c = walls[used + i];
                th_navmap_break_wall(&m, (int32_t)(c % (uint32_t)size),
                                     (int32_t)(c / (uint32_t)size));
            }
            uint64_t t = th_now_ns();
            th_nav_fields_repair_opened(pool, scratch, 2, fields, BUNKERS, &m, walls + used, nb);
            ns[r] = th_now_ns() - t;
            used += nb;
        }
        if (done) {
            char label[96];
            snprintf(label, sizeof label, "repair 8 fields after %u wall break(s), 2 threads", nb);
            report(label, ns, done);
        }
    }
    for (int r = 0; r < runs; r++) {
        uint64_t t = th_now_ns();
        th_nav_fields_compute(pool, scratch, 2, fields, BUNKERS, &m);
        ns[r] = th_now_ns() - t;
    }
    report("full recompute of 8 fields (for comparison), 2 thr", ns, runs);

    th_astar_ctx *a = th_astar_create(&m);
    uint32_t *path = th_alloc(sizeof *path * m.ncells);
    if (!a || !path) return 1;
    uint32_t len = 0, cost = 0;
    for (int r = 0; r < runs; r++) {
        /* Street cells (x % BLOCK < STREET) near opposite corners. */
        int32_t sx = 2 + r % 4, g = size - BLOCK + 2 + r % 4;
        uint64_t t = th_now_ns();
        th_astar_find(a, &m, sx, 2, g, g, path, m.ncells, &len, &cost);
        ns[r] = th_now_ns() - t;
    }
    report("A* corner to corner", ns, runs);
    printf("last A* path: %u cells, cost %.1f m-equivalent\n", len,
           (double)th_nav_units_to_metres(&m, cost));

    th_free(path);
    th_astar_destroy(a);
    th_nav_combined_free(&comb);
    for (int k = 0; k < BUNKERS; k++)
        th_nav_field_free(&fields[k]);
    th_nav_scratch_destroy(scratch[0]);
    th_nav_scratch_destroy(scratch[1]);
    th_pool_destroy(pool);
    th_navmap_free(&m);
    return 0;
}
