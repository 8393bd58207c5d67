#include "grid.h"

#include <string.h>

#include "alloc.h"

int th_grid_init(th_grid *g, float origin_x, float origin_y, float cell_w, float cell_h, int32_t nx,
                 int32_t ny, uint32_t capacity, uint32_t partitions) {
    memset(g, 0, sizeof *g);
    if (!(cell_w > 0.0f) || !(cell_h > 0.0f) || nx < 1 || ny < 1 || partitions < 1) return -1;
    if ((uint64_t)nx * (uint64_t)ny > TH_GRID_MAX_CELLS) return -1;
    if (partitions > TH_POOL_MAX_WORKERS) partitions = TH_POOL_MAX_WORKERS;
    /* A huge sparse grid gets fewer histograms: memory stays bounded whatever the thread count,
     * and the sort is stable, so its result does not depend on the partition count. */
    uint64_t cells = (uint64_t)nx * (uint64_t)ny;
    uint64_t max_parts = TH_GRID_MAX_CELLS / cells;
    if (max_parts < 1) max_parts = 1;
    if (partitions > max_parts) partitions = (uint32_t)max_parts;
    g->origin_x = origin_x;
    g->origin_y = origin_y;
    g->cell_w = cell_w;
    g->cell_h = cell_h;
    g->inv_cell_w = 1.0f / cell_w;
    g->inv_cell_h = 1.0f / cell_h;
    g->nx = nx;
    g->ny = ny;
    g->ncells = (uint32_t)nx * (uint32_t)ny;
    g->capacity = capacity;
    g->partitions = partitions;
    g->cell_start = th_calloc((size_t)g->ncells + 1, sizeof *g->cell_start);
    g->hist = th_calloc((size_t)g->ncells * partitions, sizeof *g->hist);
    if (capacity > 0) {
        g->order = th_calloc(capacity, sizeof *g->order);
        g->key = th_calloc(capacity, sizeof *g->key);
    }
    if (!g->cell_start || !g->hist || (capacity > 0 && (!g->order || !g->key))) {
        th_grid_free(g);
        return -1;
    }
    return 0;
}

void th_grid_free(th_grid *g) {
    th_free(g->cell_start);
    th_free(g->hist);
    th_free(g->order);
    th_free(g->key);
    memset(g, 0, sizeof *g);
}

typedef struct build_ctx {
    th_grid *g;
    const float *xs, *ys;
    uint32_t n;
} build_ctx;

/* Items [begin, end) of partition p. */
static inline void partition_range(const build_ctx *b, uint32_t p, uint32_t *begin, uint32_t *end) {
    uint64_t n = b->n, parts = b->g->partitions;
    *begin = (uint32_t)(n * p / parts);
    *end = (uint32_t)(n * (p + 1) / parts);
}

static void count_job(void *ctx, uint32_t pbegin, uint32_t pend, uint32_t worker) {
    (void)worker;
    const build_ctx *b = ctx;
    th_grid *g = b->g;
    for (uint32_t p = pbegin; p < pend; p++) {
        uint32_t begin, end;
        partition_range(b, p, &begin, &end);
        uint32_t *hist = g->hist + (size_t)p * g->ncells;
        for (uint32_t i = begin; i < end; i++) {
            uint32_t cx = (uint32_t)th_grid_cx(g, b->xs[i]);
            uint32_t cy = (uint32_t)th_grid_cy(g, b->ys[i]);
            uint32_t k = cy * (uint32_t)g->nx + cx;
            g->key[i] = k;
            hist[k]++;
        }
    }
}

static void scatter_job(void *ctx, uint32_t pbegin, uint32_t pend, uint32_t worker) {
    (void)worker;
    const build_ctx *b = ctx;
    th_grid *g = b->g;
    for (uint32_t p = pbegin; p < pend; p++) {
        uint32_t begin, end;
        partition_range(b, p, &begin, &end);
        uint32_t *offset = g->hist + (size_t)p * g->ncells;
        for (uint32_t i = begin; i < end; i++) g->order[offset[g->key[i]]++] = i;
    }
}

void th_grid_build(th_grid *g, th_pool *pool, const float *xs, const float *ys, uint32_t n) {
    if (n > g->capacity) n = g->capacity;
    build_ctx b = {g, xs, ys, n};
    size_t hist_len = (size_t)g->ncells * g->partitions;
    memset(g->hist, 0, hist_len * sizeof *g->hist);
    th_pool_parallel_for(pool, g->partitions, 1, count_job, &b);

    /* Exclusive scan in (cell, partition) order: partition p's items of cell c are written
     * after those of partitions < p, which is what makes the sort stable. Histograms are
     * stored partition-major so that workers counting and scattering in parallel never write
     * to the same cache line (cell-major counters of one cell would sit side by side). */
    uint32_t sum = 0;
    const size_t stride = g->ncells;
    for (uint32_t c = 0; c < g->ncells; c++) {
        g->cell_start[c] = sum;
        uint32_t *h = g->hist + c;
        for (uint32_t p = 0; p < g->partitions; p++) {
            uint32_t v = h[p * stride];
            h[p * stride] = sum;
            sum += v;
        }
    }
    g->cell_start[g->ncells] = sum;

    th_pool_parallel_for(pool, g->partitions, 1, scatter_job, &b);
}
