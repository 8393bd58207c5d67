#include "grid.h"

#include <stdbool.h>
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
    g->window = th_calloc(partitions, sizeof *g->window);
    g->block_sum = th_calloc((size_t)g->ncells / TH_GRID_SCAN_BLOCK + 2, sizeof *g->block_sum);
    g->min_part_items = 2048;
    if (capacity > 0) {
        g->order = th_calloc(capacity, sizeof *g->order);
        g->key = th_calloc(capacity, sizeof *g->key);
    }
    if (!g->cell_start || !g->hist || !g->window || !g->block_sum ||
        (capacity > 0 && (!g->order || !g->key))) {
        th_grid_free(g);
        return -1;
    }
    return 0;
}

void th_grid_free(th_grid *g) {
    th_free(g->cell_start);
    th_free(g->hist);
    th_free(g->window);
    th_free(g->block_sum);
    th_free(g->order);
    th_free(g->key);
    memset(g, 0, sizeof *g);
}

/* Fewest scan blocks worth a parallel scan. */
#define TH_GRID_PARALLEL_SCAN_BLOCKS 8u

typedef struct build_ctx {
    th_grid *g;
    const float *xs, *ys;
    const uint32_t *tie; /* NULL: cells keep input order */
    size_t tie_stride;
    uint32_t n, parts, blocks;
} build_ctx;

/* Items [begin, end) of partition p. */
static inline void partition_range(const build_ctx *b, uint32_t p, uint32_t *begin, uint32_t *end) {
    uint64_t n = b->n, parts = b->parts;
    *begin = (uint32_t)(n * p / parts);
    *end = (uint32_t)(n * (p + 1) / parts);
}

/* Keys, the partition's window of cells, then its histogram over that window (zeroed here, in
 * parallel, and only there). */
static void count_job(void *ctx, uint32_t pbegin, uint32_t pend, uint32_t worker) {
    (void)worker;
    const build_ctx *b = ctx;
    th_grid *g = b->g;
    for (uint32_t p = pbegin; p < pend; p++) {
        uint32_t begin, end;
        partition_range(b, p, &begin, &end);
        uint32_t lo = UINT32_MAX, hi = 0;
        for (uint32_t i = begin; i < end; i++) {
            uint32_t cx = (uint32_t)th_grid_cx(g, b->xs[i]);
            uint32_t cy = (uint32_t)th_grid_cy(g, b->ys[i]);
            /* With a row map the build covers the owned rows, local rows 0..: their global
             * rows minus the first one's. */
            uint32_t k = cy * (uint32_t)g->nx + cx - g->key_base;
            g->key[i] = k;
            lo = k < lo ? k : lo;
            hi = k > hi ? k : hi;
        }
        if (begin == end) {
            lo = 1;
            hi = 0;
        } else {
            uint32_t *hist = g->hist + (size_t)p * g->ncells;
            memset(hist, 0, ((size_t)hi - lo + 1) * sizeof *hist);
            for (uint32_t i = begin; i < end; i++) hist[g->key[i] - lo]++;
        }
        g->window[p].lo = lo;
        g->window[p].hi = hi;
    }
}

/* Cells [c0, c1) of scan block `blk`. */
static inline void block_range(const build_ctx *b, uint32_t blk, uint32_t *c0, uint32_t *c1) {
    *c0 = blk * TH_GRID_SCAN_BLOCK;
    uint32_t e = *c0 + TH_GRID_SCAN_BLOCK;
    *c1 = e < b->g->ncells ? e : b->g->ncells;
}

/* Items per scan block, over the partitions whose windows meet it. */
static void block_sum_job(void *ctx, uint32_t bbegin, uint32_t bend, uint32_t worker) {
    (void)worker;
    const build_ctx *b = ctx;
    th_grid *g = b->g;
    for (uint32_t blk = bbegin; blk < bend; blk++) {
        uint32_t c0, c1, total = 0;
        block_range(b, blk, &c0, &c1);
        for (uint32_t p = 0; p < b->parts; p++) {
            uint32_t lo = g->window[p].lo, hi = g->window[p].hi;
            uint32_t from = c0 > lo ? c0 : lo, to = c1 - 1 < hi ? c1 - 1 : hi;
            const uint32_t *h = g->hist + (size_t)p * g->ncells;
            if (from > to) continue;
            for (uint32_t c = from; c <= to; c++) total += h[c - lo];
        }
        g->block_sum[blk] = total;
    }
}

/* Within each block, from its offset: cell_start, and each partition's counts turned into its
 * write offsets, in (cell, partition) order: partition p's items of cell c are written after
 * those of partitions < p, which is what makes the sort stable. */
static void scan_job(void *ctx, uint32_t bbegin, uint32_t bend, uint32_t worker) {
    (void)worker;
    const build_ctx *b = ctx;
    th_grid *g = b->g;
    for (uint32_t blk = bbegin; blk < bend; blk++) {
        uint32_t c0, c1;
        block_range(b, blk, &c0, &c1);
        /* The partitions that have counts in this block, in partition order. */
        uint32_t meet[TH_POOL_MAX_WORKERS], nmeet = 0;
        for (uint32_t p = 0; p < b->parts; p++) {
            if (g->window[p].lo <= g->window[p].hi && g->window[p].lo < c1 &&
                g->window[p].hi >= c0) {
                meet[nmeet++] = p;
            }
        }
        uint32_t sum = g->block_sum[blk];
        for (uint32_t c = c0; c < c1; c++) {
            g->cell_start[c] = sum;
            for (uint32_t m = 0; m < nmeet; m++) {
                const uint32_t p = meet[m], lo = g->window[p].lo;
                if (c < lo || c > g->window[p].hi) continue;
                uint32_t *h = g->hist + (size_t)p * g->ncells + (c - lo);
                uint32_t v = *h;
                *h = sum;
                sum += v;
            }
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
        if (begin == end) continue;
        uint32_t *offset = g->hist + (size_t)p * g->ncells;
        const uint32_t lo = g->window[p].lo;
        for (uint32_t i = begin; i < end; i++) g->order[offset[g->key[i] - lo]++] = i;
    }
}

/* Within each cell of the blocks, items ordered by tie key instead of input index: an insertion
 * sort, since the stable scatter leaves a cell in input order, which for a caller that stores
 * its items in last build's order is already sorted but for the few items that changed cell.
 * Cells never straddle two blocks, so blocks sort independently. */
static void tie_job(void *ctx, uint32_t bbegin, uint32_t bend, uint32_t worker) {
    (void)worker;
    const build_ctx *b = ctx;
    const uint32_t *tie = b->tie, *start = b->g->cell_start;
    const size_t st = b->tie_stride;
    uint32_t *order = b->g->order;
    uint32_t c0, c1, e;
    block_range(b, bbegin, &c0, &e);
    block_range(b, bend - 1, &e, &c1);
    for (uint32_t c = c0; c < c1; c++) {
        const uint32_t lo = start[c], hi = start[c + 1];
        for (uint32_t k = lo + 1; k < hi; k++) {
            const uint32_t item = order[k], t = tie[(size_t)item * st];
            uint32_t j = k;
            while (j > lo && tie[(size_t)order[j - 1] * st] > t) {
                order[j] = order[j - 1];
                j--;
            }
            order[j] = item;
        }
    }
}

static void build(th_grid *g, th_pool *pool, const float *xs, const float *ys, const uint32_t *tie,
                  size_t tie_stride, uint32_t n) {
    if (n > g->capacity) n = g->capacity;
    uint32_t parts = n / (g->min_part_items ? g->min_part_items : 1);
    parts = parts < 1 ? 1 : (parts > g->partitions ? g->partitions : parts);
    build_ctx b = {
        g,          xs, ys,    tie,
        tie_stride, n,  parts, (g->ncells + TH_GRID_SCAN_BLOCK - 1) / TH_GRID_SCAN_BLOCK};
    g->parts_used = parts;
    th_pool_parallel_for(pool, parts, 1, count_job, &b);
    /* A scan of a few blocks runs on the calling thread: two barriers cost more than it. */
    const bool small = b.blocks < TH_GRID_PARALLEL_SCAN_BLOCKS;
    if (small) block_sum_job(&b, 0, b.blocks, 0);
    else th_pool_parallel_for(pool, b.blocks, 1, block_sum_job, &b);
    /* Exclusive scan over the blocks: a few thousand at most. */
    uint32_t sum = 0;
    for (uint32_t blk = 0; blk < b.blocks; blk++) {
        uint32_t v = g->block_sum[blk];
        g->block_sum[blk] = sum;
        sum += v;
    }
    if (small) scan_job(&b, 0, b.blocks, 0);
    else th_pool_parallel_for(pool, b.blocks, 1, scan_job, &b);
    g->cell_start[g->ncells] = sum;
    th_pool_parallel_for(pool, parts, 1, scatter_job, &b);
    if (tie) {
        if (small) tie_job(&b, 0, b.blocks, 0);
        else th_pool_parallel_for(pool, b.blocks, 1, tie_job, &b);
    }
}

void th_grid_build(th_grid *g, th_pool *pool, const float *xs, const float *ys, uint32_t n) {
    build(g, pool, xs, ys, NULL, 0, n);
}

void th_grid_build_tied(th_grid *g, th_pool *pool, const float *xs, const float *ys,
                        const uint32_t *tie, size_t tie_stride, uint32_t n) {
    build(g, pool, xs, ys, tie, tie_stride, n);
}

void th_grid_set_ghosts(th_grid *g, uint32_t first, const uint32_t *cell, uint32_t n) {
    const uint32_t nx = (uint32_t)g->nx;
    const uint32_t c0 = (uint32_t)g->rows_owned * nx, c1 = (uint32_t)g->rows_local * nx;
    uint32_t i = 0;
    for (uint32_t c = c0; c < c1; c++) {
        g->cell_start[c] = first + i;
        while (i < n && th_grid_local_cell(g, cell[i]) == c) i++;
    }
    g->cell_start[c1] = first + n;
}
