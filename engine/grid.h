/* Uniform-grid spatial index rebuilt from scratch every step by a stable counting sort.
 *
 * Build: every item gets a cell key; each partition of the input counts its keys into its own
 * histogram, over the window of cells between its smallest and largest key only; a scan in
 * parallel over blocks of cells turns the histograms into write offsets (in cell, then
 * partition order); each partition scatters its items. Callers that keep their items in last
 * build's cell order (as the world does) give each partition a narrow window, so the counting,
 * zeroing and scanning work stays about one pass over the cells whatever the partition count,
 * where full histograms cost partitions x cells and made the sort stop scaling past 8 threads.
 * The result, `order`, lists item indices sorted by cell and, within a cell, by input index,
 * whatever the number of partitions or workers: the sort is stable, so the output is unique.
 * Callers gather their arrays through `order` so that items of one cell (and of one row of cells)
 * sit next to each other in memory.
 *
 * Queries read `cell_start`: items of cell c are order positions [cell_start[c],
 * cell_start[c+1]). Cells of one row are consecutive, so the cells of a row in a block query
 * (th_grid_block: 3x3, 5x5, ... cells) form one contiguous range. After a build the grid is
 * read-only and safe to query from many threads. Nothing is allocated after th_grid_init. */
#ifndef TH_GRID_H
#define TH_GRID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jobs.h"

/** Upper bound on cells, keeps a hostile world size from exhausting memory. Histograms take
 *  partitions x cells counters; partitions are cut so that they never exceed TH_GRID_MAX_CELLS
 *  counters either (at most 2 x 64 MiB of counts in all). */
#define TH_GRID_MAX_CELLS (1u << 24)

typedef struct th_grid {
    float origin_x, origin_y; /* world position of cell (0,0)'s lower corner, metres */
    float cell_w, cell_h;     /* cell extent, metres */
    float inv_cell_w, inv_cell_h;
    int32_t nx, ny;       /* cells per row, rows */
    uint32_t ncells;      /* nx * ny */
    uint32_t capacity;    /* max items per build */
    uint32_t partitions;  /* histograms built in parallel */
    uint32_t *cell_start; /* ncells + 1 */
    uint32_t *order;      /* capacity: sorted position -> input index */
    uint32_t *key;        /* capacity: input index -> cell */
    uint32_t *hist;       /* partitions * ncells, partition-major; partition p's counts of
                             cells window[p].lo.. are at hist + p * ncells */
    struct th_grid_window {
        uint32_t lo, hi;     /* cells with counts in the last build (lo > hi: none) */
        uint32_t pad[14];    /* one cache line each: partitions write theirs in parallel */
    } * window;              /* partitions */
    uint32_t *block_sum;     /* items per scan block of TH_GRID_SCAN_BLOCK cells, then offsets */
    uint32_t min_part_items; /* a build uses at most n / min_part_items partitions (at least
                                1): tiny builds are not split (default 2048; tests lower it) */
    uint32_t parts_used;     /* partitions of the last build */
    /* A local grid (a strip of rows held by one of several processes): NULL = every row, the
     * usual grid. Otherwise row_local[r] is global row r's local row or -1: local rows
     * [0, rows_owned) are the rows th_grid_build indexes (consecutive global rows, the first
     * being key_base / nx), [rows_owned, rows_local) rows entered by th_grid_set_ghosts. Cell
     * coordinates, nx, ny and block queries stay global: a query reads each row through the map,
     * so it returns the same items in the same order as the full grid holding the same rows.
     * rows_local <= ny: ghost rows are distinct global rows outside the owned ones.
     * The owner keeps the map; th_grid_init clears the pointer. */
    const int32_t *row_local;
    uint32_t key_base; /* global cell of local cell 0 */
    int32_t rows_owned, rows_local;
} th_grid;

/** Cells per block of the parallel scan. */
#define TH_GRID_SCAN_BLOCK 2048u

/** Set up a grid covering [origin, origin + (nx * cell_w, ny * cell_h)) for up to `capacity` items,
 *  with `partitions` histograms (use the pool's worker count). Returns 0, or -1 when sizes are
 *  out of bounds or memory is short (the grid is then left zeroed). */
int th_grid_init(th_grid *g, float origin_x, float origin_y, float cell_w, float cell_h, int32_t nx,
                 int32_t ny, uint32_t capacity, uint32_t partitions);

/** Free the grid's arrays. */
void th_grid_free(th_grid *g);

/** Cell coordinate of a world coordinate, clamped into the grid. */
static inline int32_t th_grid_coord(float v, float origin, float inv_cell, int32_t n) {
    /* In double: a float subtraction from a non-zero origin rounds, and can put two points one
     * cell apart into cells two apart, out of each other's 3x3 block. */
    double f = ((double)v - (double)origin) * (double)inv_cell;
    /* Compare before converting: a float-to-int cast of NaN or of a huge value is undefined. */
    if (!(f >= 1.0)) return 0;
    if (f >= (double)n) return n - 1;
    return (int32_t)f;
}
static inline int32_t th_grid_cx(const th_grid *g, float x) {
    return th_grid_coord(x, g->origin_x, g->inv_cell_w, g->nx);
}
static inline int32_t th_grid_cy(const th_grid *g, float y) {
    return th_grid_coord(y, g->origin_y, g->inv_cell_h, g->ny);
}

/** Most cells a block query reaches on each side of its centre cell: a query for radius r on
 *  cells of width c walks the (2k+1) x (2k+1) cells around its own, k = ceil(r / c) <= this. */
#define TH_GRID_MAX_REACH 4
/** Spans a block query may return: one per row, two where a row straddles a torus seam. */
#define TH_GRID_MAX_SPANS (2 * (2 * TH_GRID_MAX_REACH + 1))

/** A range [begin, end) of sorted positions (`order` indices). */
typedef struct th_grid_span {
    uint32_t begin, end;
} th_grid_span;

/** The (2k+1) x (2k+1) block of cells around cell (cx, cy), 1 <= k <= TH_GRID_MAX_REACH, as
 *  ranges of sorted positions: one per row (cells of a row are consecutive), two where a row
 *  straddles the seam of a torus (`wrap`); clamped to the grid otherwise. Every cell is
 *  visited once, also on a torus fewer than 2k+1 cells wide or tall (then the whole row or
 *  column range is taken). Rows in increasing order from cy - k, so a caller's sums run in a
 *  fixed order. Returns the number of spans (at most TH_GRID_MAX_SPANS). Forced inline: the
 *  boids kernel's instruction-set copies each get their own copy in their own instruction set. */
static inline __attribute__((always_inline)) uint32_t th_grid_block(const th_grid *g, int32_t cx,
                                                                    int32_t cy, int32_t k,
                                                                    bool wrap, th_grid_span *out) {
    const int32_t nx = g->nx, ny = g->ny;
    int32_t r0 = cy - k, r1 = cy + k, c0 = cx - k, c1 = cx + k;
    if (wrap) {
        if (2 * k + 1 >= ny) r0 = 0, r1 = ny - 1;
        if (2 * k + 1 >= nx) c0 = 0, c1 = nx - 1;
    } else {
        r0 = r0 < 0 ? 0 : r0;
        r1 = r1 >= ny ? ny - 1 : r1;
        c0 = c0 < 0 ? 0 : c0;
        c1 = c1 >= nx ? nx - 1 : c1;
    }
    uint32_t n = 0;
    for (int32_t r = r0; r <= r1; r++) {
        int32_t row = r < 0 ? r + ny : (r >= ny ? r - ny : r);
        /* A strip's queries never reach an unmapped row: the halo covers every block. */
        if (g->row_local) row = g->row_local[row];
        const uint32_t *start = g->cell_start + (uint32_t)row * (uint32_t)nx;
        if (c0 < 0) { /* only on a torus: the left part sits at the row's far end */
            out[n++] = (th_grid_span){start[c0 + nx], start[nx]};
            out[n++] = (th_grid_span){start[0], start[c1 + 1]};
        } else if (c1 >= nx) {
            out[n++] = (th_grid_span){start[c0], start[nx]};
            out[n++] = (th_grid_span){start[0], start[c1 - nx + 1]};
        } else {
            out[n++] = (th_grid_span){start[c0], start[c1 + 1]};
        }
    }
    return n;
}

/** Rebuild from `n` points (n <= capacity). Points outside the grid are clamped to edge cells;
 *  NaN coordinates land in cell 0. */
void th_grid_build(th_grid *g, th_pool *pool, const float *xs, const float *ys, uint32_t n);

/** th_grid_build, then the items of each cell ordered by tie key instead of input index: item
 *  i's key is tie[i * tie_stride] (a stride lets the key be one field of an array of structs),
 *  and keys must be distinct among the items. `order` is then a function of the items alone,
 *  (cell, key), not of the order they were given in. */
void th_grid_build_tied(th_grid *g, th_pool *pool, const float *xs, const float *ys,
                        const uint32_t *tie, size_t tie_stride, uint32_t n);

/** With a row map: enter `n` items stored at positions [first, first + n) that lie in local
 *  rows [rows_owned, rows_local) (ghost rows), `cell` their global cells, sorted by local cell.
 *  Sets cell_start of those rows and of the end of the last one; one pass, no allocation.
 *  Every item of the owned rows must be below `first` (th_grid_build put them there). */
void th_grid_set_ghosts(th_grid *g, uint32_t first, const uint32_t *cell, uint32_t n);

/** Local cell of a global cell under the row map (the cell itself without one). */
static inline uint32_t th_grid_local_cell(const th_grid *g, uint32_t cell) {
    if (!g->row_local) return cell;
    const uint32_t nx = (uint32_t)g->nx;
    return (uint32_t)g->row_local[cell / nx] * nx + cell % nx;
}

#endif
