/* th_grid: the uniform grid built by a stable counting sort.
 *
 * Each scenario (a grid geometry and a point set) is built with 1 worker and 1 partition, and
 * that result is checked against references computed here: the cell of every point (by double
 * division, allowing only a one-cell disagreement right at a cell border), the cell ranges, the
 * permutation and its stability, and a 3x3 neighbour query against brute force. Every other
 * pool size and partition count must then reproduce the same arrays bit for bit. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/grid.h"
#include "engine/jobs.h"
#include "test_util.h"

static float randf(uint64_t *s, float lo, float hi) {
    float u = (float)(splitmix64(s) >> 40) * (1.0f / 16777216.0f);
    float v = lo + (hi - lo) * u;
    return v < hi ? v : nextafterf(hi, lo);
}

/* ---- scenarios ------------------------------------------------------------------------ */

typedef struct geometry {
    float ox, oy, cw, ch;
    int32_t nx, ny;
} geometry;

typedef struct points {
    uint32_t n, cap;
    float *x, *y;
} points;

static void push(points *p, float x, float y) {
    if (p->n == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 64;
        p->x = realloc(p->x, p->cap * sizeof *p->x);
        p->y = realloc(p->y, p->cap * sizeof *p->y);
        ck_assert(p->x && p->y);
    }
    p->x[p->n] = x;
    p->y[p->n] = y;
    p->n++;
}

static void free_points(points *p) {
    free(p->x);
    free(p->y);
    memset(p, 0, sizeof *p);
}

static float extent_x(const geometry *g) { return g->ox + g->cw * (float)g->nx; }
static float extent_y(const geometry *g) { return g->oy + g->ch * (float)g->ny; }

static void gen_uniform(points *p, const geometry *g, uint32_t n, uint64_t seed) {
    for (uint32_t i = 0; i < n; i++) {
        float x = randf(&seed, g->ox, extent_x(g));
        float y = randf(&seed, g->oy, extent_y(g));
        push(p, x, y);
    }
}

/* Points on every cell border (x = origin + k * cell_w), one ulp either side of it, and pairs
 * exactly one cell apart: the cases where rounding decides the cell. */
static void gen_borders(points *p, const geometry *g) {
    for (int32_t kx = 0; kx <= g->nx; kx++) {
        float bx = g->ox + (float)kx * g->cw;
        for (int32_t ky = 0; ky <= g->ny; ky++) {
            float by = g->oy + (float)ky * g->ch;
            push(p, bx, by);
            push(p, nextafterf(bx, -INFINITY), by);
            push(p, bx, nextafterf(by, INFINITY));
            push(p, nextafterf(bx, INFINITY), nextafterf(by, -INFINITY));
            push(p, bx, g->oy + ((float)ky + 0.5f) * g->ch);
        }
    }
}

/* The four world edges: 0 and the last float below the extent on each axis, plus the corners
 * and points just outside. */
static void gen_edges(points *p, const geometry *g, uint64_t seed) {
    float X = extent_x(g), Y = extent_y(g);
    float top_x = nextafterf(X, -INFINITY), top_y = nextafterf(Y, -INFINITY);
    for (int i = 0; i < 60; i++) {
        float rx = randf(&seed, g->ox, X), ry = randf(&seed, g->oy, Y);
        push(p, g->ox, ry);
        push(p, top_x, ry);
        push(p, rx, g->oy);
        push(p, rx, top_y);
    }
    push(p, g->ox, g->oy);
    push(p, top_x, g->oy);
    push(p, g->ox, top_y);
    push(p, top_x, top_y);
    push(p, X, Y);
    push(p, nextafterf(g->ox, -INFINITY), nextafterf(g->oy, -INFINITY));
    push(p, g->ox - 0.25f * g->cw, g->oy + 0.5f * g->ch);
    push(p, X + 0.25f * g->cw, top_y);
}

/* A few tight blobs: most cells stay empty, a few hold many points. */
static void gen_blobs(points *p, const geometry *g, uint32_t n, uint64_t seed) {
    float cx[3], cy[3];
    for (int b = 0; b < 3; b++) {
        cx[b] = randf(&seed, g->ox, extent_x(g));
        cy[b] = randf(&seed, g->oy, extent_y(g));
    }
    for (uint32_t i = 0; i < n; i++) {
        int b = (int)(splitmix64(&seed) % 3);
        float x = cx[b] + randf(&seed, -1.5f, 1.5f) * g->cw;
        float y = cy[b] + randf(&seed, -1.5f, 1.5f) * g->ch;
        push(p, x, y);
    }
}

/* Every point inside one cell (cx, cy). */
static void gen_one_cell(points *p, const geometry *g, int32_t cx, int32_t cy, uint32_t n,
                         uint64_t seed) {
    float x0 = g->ox + (float)cx * g->cw, y0 = g->oy + (float)cy * g->ch;
    for (uint32_t i = 0; i < n; i++) {
        push(p, randf(&seed, x0 + 0.01f * g->cw, x0 + 0.99f * g->cw),
             randf(&seed, y0 + 0.01f * g->ch, y0 + 0.99f * g->ch));
    }
}

/* Coordinates no world should contain, mixed with ordinary points. */
static void gen_hostile(points *p, const geometry *g, uint64_t seed) {
    const float bad[] = {NAN,      -NAN,  INFINITY, -INFINITY, 1e30f,    -1e30f, FLT_MAX,
                         -FLT_MAX, 1e10f, -1e10f,   FLT_MIN,   -FLT_MIN, 0.0f,   -0.0f};
    const size_t nb = sizeof bad / sizeof bad[0];
    for (size_t i = 0; i < nb; i++) {
        for (size_t j = 0; j < nb; j++) push(p, bad[i], bad[j]);
        push(p, bad[i], randf(&seed, g->oy, extent_y(g)));
        push(p, randf(&seed, g->ox, extent_x(g)), bad[i]);
    }
    gen_uniform(p, g, 300, seed);
}

/* ---- references ----------------------------------------------------------------------- */

/* The clamped cell coordinate by double division. `*border` is set when v lies within a hair
 * of a cell border, where float rounding may legitimately pick the neighbouring cell. */
static int32_t ref_coord(float v, float origin, float cell, int32_t n, bool *border) {
    *border = false;
    if (isnan(v)) return 0;
    double f = ((double)v - (double)origin) / (double)cell;
    double fl = floor(f);
    if (fabs(f - fl) < 1e-5 * (fabs(f) + 1.0) || fabs(f - (fl + 1.0)) < 1e-5 * (fabs(f) + 1.0)) {
        *border = true;
    }
    if (f < 0.0) return 0;
    if (f >= (double)n) return n - 1;
    return (int32_t)fl;
}

/* Check the mapping the build used (th_grid_cx / th_grid_cy) is the clamped cell, and return
 * the key of every point by that mapping. */
static void check_keys(const th_grid *g, const points *p, uint32_t *key) {
    for (uint32_t i = 0; i < p->n; i++) {
        int32_t cx = th_grid_cx(g, p->x[i]);
        int32_t cy = th_grid_cy(g, p->y[i]);
        CHECK_MSG(cx >= 0 && cx < g->nx && cy >= 0 && cy < g->ny,
                  "point %u (%g, %g) mapped outside the grid: (%d, %d)", i, (double)p->x[i],
                  (double)p->y[i], cx, cy);
        bool bx, by;
        int32_t rx = ref_coord(p->x[i], g->origin_x, g->cell_w, g->nx, &bx);
        int32_t ry = ref_coord(p->y[i], g->origin_y, g->cell_h, g->ny, &by);
        CHECK_MSG(cx == rx || (bx && abs(cx - rx) == 1), "x %.9g: cell %d, expected %d",
                  (double)p->x[i], cx, rx);
        CHECK_MSG(cy == ry || (by && abs(cy - ry) == 1), "y %.9g: cell %d, expected %d",
                  (double)p->y[i], cy, ry);
        key[i] = (uint32_t)cy * (uint32_t)g->nx + (uint32_t)cx;
    }
}

/* The grid after a build, against the keys: cell_start is the prefix sum of the cell counts,
 * order is a permutation, each cell's range holds exactly its points, in increasing index. */
static void check_structure(const th_grid *g, const points *p, const uint32_t *key) {
    const uint32_t n = p->n, nc = g->ncells;
    uint32_t *count = calloc(nc, sizeof *count);
    bool *seen = calloc(n ? n : 1, sizeof *seen);
    ck_assert(count && seen);
    for (uint32_t i = 0; i < n; i++) {
        CHECK_MSG(g->key[i] == key[i], "key[%u] = %u, expected %u", i, g->key[i], key[i]);
        count[key[i]]++;
    }
    ck_assert_uint_eq(g->cell_start[0], 0);
    ck_assert_uint_eq(g->cell_start[nc], n);
    uint32_t sum = 0;
    for (uint32_t c = 0; c < nc; c++) {
        CHECK_MSG(g->cell_start[c] == sum, "cell_start[%u] = %u, expected %u", c, g->cell_start[c],
                  sum);
        sum += count[c];
        uint32_t b = g->cell_start[c], e = g->cell_start[c + 1];
        CHECK_MSG(e - b == count[c], "cell %u holds %u, expected %u", c, e - b, count[c]);
        for (uint32_t k = b; k < e; k++) {
            uint32_t i = g->order[k];
            CHECK_MSG(i < n, "order[%u] = %u out of range", k, i);
            CHECK_MSG(!seen[i], "index %u appears twice in order", i);
            seen[i] = true;
            CHECK_MSG(key[i] == c, "cell %u's range holds point %u of cell %u", c, i, key[i]);
            if (k > b) CHECK_MSG(g->order[k - 1] < i, "cell %u not in input order at %u", c, k);
        }
    }
    for (uint32_t i = 0; i < n; i++) CHECK_MSG(seen[i], "index %u missing from order", i);
    free(count);
    free(seen);
}

static bool within(const points *p, uint32_t i, uint32_t j, double r2) {
    double dx = (double)p->x[j] - (double)p->x[i];
    double dy = (double)p->y[j] - (double)p->y[i];
    return dx * dx + dy * dy <= r2;
}

/* For query points i, the 3x3 block around i's cell (clamped to the grid; one contiguous order
 * range per row) filtered by distance must be exactly the brute-force set within r. */
static uint64_t check_neighbours(const th_grid *g, const points *p, float r) {
    const uint32_t n = p->n;
    const double r2 = (double)r * (double)r;
    uint32_t *mark = calloc(n ? n : 1, sizeof *mark);
    ck_assert(mark);
    uint32_t step = n > 1500 ? n / 1500 : 1;
    uint64_t pairs = 0;
    for (uint32_t i = 0; i < n; i += step) {
        uint32_t stamp = i + 1;
        uint32_t found = 0;
        int32_t cx = (int32_t)(g->key[i] % (uint32_t)g->nx);
        int32_t cy = (int32_t)(g->key[i] / (uint32_t)g->nx);
        for (int32_t row = cy - 1; row <= cy + 1; row++) {
            if (row < 0 || row >= g->ny) continue;
            int32_t c0 = cx > 0 ? cx - 1 : 0;
            int32_t c1 = cx < g->nx - 1 ? cx + 1 : g->nx - 1;
            uint32_t base = (uint32_t)row * (uint32_t)g->nx;
            uint32_t b = g->cell_start[base + (uint32_t)c0];
            uint32_t e = g->cell_start[base + (uint32_t)c1 + 1];
            for (uint32_t k = b; k < e; k++) {
                uint32_t j = g->order[k];
                if (j == i || !within(p, i, j, r2)) continue;
                CHECK_MSG(mark[j] != stamp, "point %u found twice for %u", j, i);
                mark[j] = stamp;
                found++;
            }
        }
        uint32_t brute = 0;
        for (uint32_t j = 0; j < n; j++) {
            if (j == i || !within(p, i, j, r2)) continue;
            brute++;
            CHECK_MSG(mark[j] == stamp,
                      "query %u (%.9g, %.9g) missed %u (%.9g, %.9g) at distance %.9g <= %g", i,
                      (double)p->x[i], (double)p->y[i], j, (double)p->x[j], (double)p->y[j],
                      hypot((double)p->x[j] - p->x[i], (double)p->y[j] - p->y[i]), (double)r);
        }
        CHECK_MSG(found == brute, "query %u: grid found %u, brute force %u", i, found, brute);
        pairs += brute;
    }
    free(mark);
    return pairs;
}

/* Distance squared from i to j in double; on a torus of W x H, to j's nearest image. */
static double dist2(const points *p, uint32_t i, uint32_t j, bool wrap, double W, double H) {
    double dx = (double)p->x[j] - (double)p->x[i];
    double dy = (double)p->y[j] - (double)p->y[i];
    if (wrap) {
        dx = dx > 0.5 * W ? dx - W : (dx < -0.5 * W ? dx + W : dx);
        dy = dy > 0.5 * H ? dy - H : (dy < -0.5 * H ? dy + H : dy);
    }
    return dx * dx + dy * dy;
}

/* The (2k+1)^2 block query, th_grid_block, filtered by distance, against brute force: every
 * point within r of query i is in one of the spans, none is in two. */
static uint64_t check_block(const th_grid *g, const points *p, int32_t k, double r, bool wrap) {
    const uint32_t n = p->n;
    const double W = (double)g->cell_w * g->nx, H = (double)g->cell_h * g->ny, r2 = r * r;
    uint32_t *mark = calloc(n ? n : 1, sizeof *mark);
    ck_assert(mark);
    uint32_t step = n > 700 ? n / 700 : 1;
    uint64_t pairs = 0;
    for (uint32_t i = 0; i < n; i += step) {
        const uint32_t stamp = i + 1;
        th_grid_span spans[TH_GRID_MAX_SPANS];
        const uint32_t ns = th_grid_block(g, (int32_t)(g->key[i] % (uint32_t)g->nx),
                                          (int32_t)(g->key[i] / (uint32_t)g->nx), k, wrap, spans);
        CHECK(ns <= TH_GRID_MAX_SPANS);
        uint32_t found = 0;
        for (uint32_t s = 0; s < ns; s++) {
            CHECK(spans[s].begin <= spans[s].end && spans[s].end <= n);
            for (uint32_t q = spans[s].begin; q < spans[s].end; q++) {
                const uint32_t j = g->order[q];
                CHECK_MSG(mark[j] != stamp, "k %d wrap %d: point %u found twice for %u", k,
                          (int)wrap, j, i);
                mark[j] = stamp;
                if (j != i && dist2(p, i, j, wrap, W, H) <= r2) found++;
            }
        }
        uint32_t brute = 0;
        for (uint32_t j = 0; j < n; j++) {
            if (j == i || dist2(p, i, j, wrap, W, H) > r2) continue;
            brute++;
            CHECK_MSG(mark[j] == stamp,
                      "k %d wrap %d: query %u (%.9g, %.9g) missed %u (%.9g, %.9g) at %.9g <= %g", k,
                      (int)wrap, i, (double)p->x[i], (double)p->y[i], j, (double)p->x[j],
                      (double)p->y[j], sqrt(dist2(p, i, j, wrap, W, H)), r);
        }
        CHECK_MSG(found == brute, "k %d: block found %u, brute force %u", k, found, brute);
        pairs += brute;
    }
    free(mark);
    return pairs;
}

/* Queries of several radii on one grid (the world's case: cells sized by the smallest reach,
 * crowds with longer ones walking wider blocks), walled and on a torus: for k = 1 ..
 * TH_GRID_MAX_REACH cells and radii from a fraction of a cell to just under k cells (the world
 * keeps a 1e-4 margin: reach * 1.0001 <= k cells), including points on cell borders and at
 * the edges. On a torus the world is at least twice the radius on each side, as the world
 * enforces; narrower tori than 2k+1 cells take whole rows and columns. */
START_TEST(test_block_query_mixed_radii) {
    const geometry geos[] = {
        {0.0f, 0.0f, 1.0f, 1.0f, 24, 20},
        {0.0f, 0.0f, 0.7f, 1.3f, 31, 9}, /* unequal cells; 9 rows: k = 4 takes all rows */
        {0.0f, 0.0f, 1.0f / 3.0f, 1.0f / 3.0f, 7, 40},
        {3.0f, -2.0f, 2.5f, 2.5f, 12, 12}, /* non-zero origin */
    };
    uint64_t total = 0;
    for (size_t gi = 0; gi < sizeof geos / sizeof geos[0]; gi++) {
        const geometry *geo = &geos[gi];
        points p = {0};
        gen_uniform(&p, geo, 2500, 0x51u + gi);
        gen_blobs(&p, geo, 400, 0x77u + gi);
        gen_borders(&p, geo);
        /* On a torus every position lies inside the world: keep those (the grid clamps the
         * rest into edge cells, which only a walled world has). */
        points in = {0};
        const float X = extent_x(geo), Y = extent_y(geo);
        for (uint32_t i = 0; i < p.n; i++) {
            if (p.x[i] >= geo->ox && p.x[i] < X && p.y[i] >= geo->oy && p.y[i] < Y)
                push(&in, p.x[i], p.y[i]);
        }
        th_pool *pool = th_pool_create(2);
        ck_assert_ptr_nonnull(pool);
        for (int wrap = 0; wrap < 2; wrap++) {
            const points *q = wrap ? &in : &p;
            th_grid g;
            ck_assert_int_eq(
                th_grid_init(&g, geo->ox, geo->oy, geo->cw, geo->ch, geo->nx, geo->ny, q->n, 2), 0);
            th_grid_build(&g, pool, q->x, q->y, q->n);
            const double c = geo->cw < geo->ch ? geo->cw : geo->ch;
            const double W = (double)geo->cw * geo->nx, H = (double)geo->ch * geo->ny;
            for (int32_t k = 1; k <= TH_GRID_MAX_REACH; k++) {
                const double radii[] = {(k - 0.6) * c, (k - 0.01) * c, k * c / 1.0001};
                for (size_t ri = 0; ri < 3; ri++) {
                    const double r = radii[ri];
                    if (!(r > 0.0) || (wrap && (2.0 * r > W || 2.0 * r > H))) continue;
                    total += check_block(&g, q, k, r, wrap != 0);
                }
            }
            th_grid_free(&g);
        }
        th_pool_destroy(pool);
        free_points(&in);
        free_points(&p);
    }
    ck_assert_uint_gt(total, 10000);
}
END_TEST

/* ---- driver --------------------------------------------------------------------------- */

static const uint32_t k_pools[] = {1, 2, 5};

/* Build `p` on geometry `geo`: validate the 1-worker, 1-partition build, then require every
 * other pool size and partition count to match it exactly. Returns the neighbour pairs the
 * reference query found (so scenarios can assert they exercised something). */
static uint64_t run_scenario(const geometry *geo, const points *p, float r) {
    th_pool *pools[3];
    for (int k = 0; k < 3; k++) {
        pools[k] = th_pool_create(k_pools[k]);
        ck_assert_ptr_nonnull(pools[k]);
    }
    th_grid ref;
    ck_assert_int_eq(
        th_grid_init(&ref, geo->ox, geo->oy, geo->cw, geo->ch, geo->nx, geo->ny, p->n, 1), 0);
    th_grid_build(&ref, pools[0], p->x, p->y, p->n);
    uint32_t *key = malloc((p->n ? p->n : 1) * sizeof *key);
    ck_assert_ptr_nonnull(key);
    check_keys(&ref, p, key);
    check_structure(&ref, p, key);
    uint64_t pairs = r > 0.0f ? check_neighbours(&ref, p, r) : 0;

    for (int k = 0; k < 3; k++) {
        for (uint32_t parts = 1; parts <= 8; parts++) {
            th_grid g;
            /* Spare capacity: the build must use n, not capacity. */
            ck_assert_int_eq(th_grid_init(&g, geo->ox, geo->oy, geo->cw, geo->ch, geo->nx, geo->ny,
                                          p->n + 5, parts),
                             0);
            g.min_part_items = 1; /* every partition used, however few the points */
            /* Build twice: a rebuild must not depend on what the previous build left. */
            for (int rep = 0; rep < 2; rep++) {
                th_grid_build(&g, pools[k], p->x, p->y, p->n);
                ck_assert_msg(memcmp(g.cell_start, ref.cell_start,
                                     ((size_t)ref.ncells + 1) * sizeof *g.cell_start) == 0,
                              "cell_start differs with %u workers, %u partitions", k_pools[k],
                              parts);
                ck_assert_msg(p->n == 0 || memcmp(g.order, ref.order, p->n * sizeof *g.order) == 0,
                              "order differs with %u workers, %u partitions", k_pools[k], parts);
                ck_assert_msg(p->n == 0 || memcmp(g.key, ref.key, p->n * sizeof *g.key) == 0,
                              "key differs with %u workers, %u partitions", k_pools[k], parts);
            }
            th_grid_free(&g);
        }
    }
    free(key);
    th_grid_free(&ref);
    for (int k = 0; k < 3; k++) th_pool_destroy(pools[k]);
    return pairs;
}

static float min_cell(const geometry *g) { return g->cw < g->ch ? g->cw : g->ch; }

/* Geometries: unit cells, non-zero origins, cells that are not exact in binary, unequal
 * width and height, single rows and columns, a single cell. */
static const geometry k_geos[] = {
    {0.0f, 0.0f, 1.0f, 1.0f, 16, 16},
    {-10.0f, 3.5f, 0.1f, 0.25f, 40, 17},
    {0.0f, 0.0f, 1.0f / 3.0f, 1.0f / 3.0f, 9, 9},
    {5.0f, -7.0f, 4.0001f, 2.5f, 1, 60},
    {0.0f, 0.0f, 2.0f, 3.0f, 70, 1},
    {0.0f, 0.0f, 2.5f, 2.5f, 1, 1},
    {100.0f, 100.0f, 0.7f, 0.7f, 33, 29},
};
#define GEO_COUNT ((int)(sizeof k_geos / sizeof k_geos[0]))

START_TEST(test_uniform) {
    const geometry *g = &k_geos[_i];
    const uint32_t sizes[] = {2, 17, 1000, 4000};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        points p = {0};
        gen_uniform(&p, g, sizes[s], 0xabc0u + (uint64_t)_i * 977u + s);
        uint64_t pairs = run_scenario(g, &p, min_cell(g));
        if (sizes[s] >= 1000) ck_assert_uint_gt(pairs, 0);
        free_points(&p);
    }
}
END_TEST

START_TEST(test_borders) {
    const geometry *g = &k_geos[_i];
    points p = {0};
    gen_borders(&p, g);
    ck_assert_uint_gt(run_scenario(g, &p, min_cell(g)), 0);
    free_points(&p);
}
END_TEST

START_TEST(test_edges) {
    const geometry *g = &k_geos[_i];
    points p = {0};
    gen_edges(&p, g, 31u + (uint64_t)_i);
    run_scenario(g, &p, min_cell(g));
    free_points(&p);
}
END_TEST

START_TEST(test_empty_cells) {
    const geometry *g = &k_geos[_i];
    points p = {0};
    gen_blobs(&p, g, 1500, 77u + (uint64_t)_i);
    ck_assert_uint_gt(run_scenario(g, &p, min_cell(g) * 0.5f), 0);
    free_points(&p);
}
END_TEST

START_TEST(test_all_in_one_cell) {
    const geometry *g = &k_geos[_i];
    points p = {0};
    gen_one_cell(&p, g, g->nx / 2, g->ny - 1, 800, 5u + (uint64_t)_i);
    run_scenario(g, &p, min_cell(g));
    /* Check the population really sits in one cell, so the scenario is what it says. */
    th_grid grid;
    ck_assert_int_eq(th_grid_init(&grid, g->ox, g->oy, g->cw, g->ch, g->nx, g->ny, p.n, 3), 0);
    th_pool *pool = th_pool_create(2);
    th_grid_build(&grid, pool, p.x, p.y, p.n);
    uint32_t c = (uint32_t)(g->ny - 1) * (uint32_t)g->nx + (uint32_t)(g->nx / 2);
    ck_assert_uint_eq(grid.cell_start[c + 1] - grid.cell_start[c], p.n);
    th_pool_destroy(pool);
    th_grid_free(&grid);
    free_points(&p);
}
END_TEST

START_TEST(test_hostile_coordinates) {
    const geometry *g = &k_geos[_i];
    points p = {0};
    gen_hostile(&p, g, 19u + (uint64_t)_i);
    run_scenario(g, &p, min_cell(g));
    free_points(&p);
}
END_TEST

START_TEST(test_tiny_inputs) {
    const geometry *g = &k_geos[_i];
    points p = {0};
    run_scenario(g, &p, min_cell(g)); /* n = 0 */
    push(&p, g->ox + 0.5f * g->cw, g->oy + 0.5f * g->ch);
    run_scenario(g, &p, min_cell(g)); /* n = 1 */
    free_points(&p);

    /* n = 0 on a grid with no capacity at all. */
    th_grid grid;
    ck_assert_int_eq(th_grid_init(&grid, g->ox, g->oy, g->cw, g->ch, g->nx, g->ny, 0, 4), 0);
    th_pool *pool = th_pool_create(2);
    th_grid_build(&grid, pool, NULL, NULL, 0);
    for (uint32_t c = 0; c <= grid.ncells; c++) CHECK(grid.cell_start[c] == 0);
    th_pool_destroy(pool);
    th_grid_free(&grid);
}
END_TEST

/* A grid that is rebuilt from moving points (as the world does every step) keeps matching a
 * fresh build of the same points. */
START_TEST(test_rebuild_after_motion) {
    const geometry g = {0.0f, 0.0f, 1.0f, 1.0f, 24, 24};
    points p = {0};
    gen_uniform(&p, &g, 3000, 4242);
    th_pool *pool = th_pool_create(5);
    th_grid moving;
    ck_assert_int_eq(th_grid_init(&moving, g.ox, g.oy, g.cw, g.ch, g.nx, g.ny, p.n, 5), 0);
    moving.min_part_items = 1;
    uint64_t seed = 8;
    for (int step = 0; step < 30; step++) {
        for (uint32_t i = 0; i < p.n; i++) {
            p.x[i] = fmodf(p.x[i] + randf(&seed, 0.0f, 0.9f), 24.0f);
            p.y[i] = fmodf(p.y[i] + randf(&seed, 0.0f, 0.9f), 24.0f);
        }
        th_grid_build(&moving, pool, p.x, p.y, p.n);
        uint32_t *key = malloc(p.n * sizeof *key);
        ck_assert_ptr_nonnull(key);
        check_keys(&moving, &p, key);
        check_structure(&moving, &p, key);
        free(key);
    }
    ck_assert_uint_gt(check_neighbours(&moving, &p, 1.0f), 0);
    th_grid_free(&moving);
    th_pool_destroy(pool);
    free_points(&p);
}
END_TEST

/* The world's case: points kept in last build's cell order, so each partition's window of
 * cells is narrow, with a few that jumped across the whole grid (a torus seam) widening some
 * windows to everything. Every partition count gives the 1-partition sort, and windows stay
 * narrow where nothing jumped. */
static void sorted_input_case(const geometry geo) {
    points p = {0};
    gen_uniform(&p, &geo, 20000, 77);
    th_pool *pool = th_pool_create(4);
    th_grid ref;
    ck_assert_int_eq(th_grid_init(&ref, geo.ox, geo.oy, geo.cw, geo.ch, geo.nx, geo.ny, p.n, 1), 0);
    th_grid_build(&ref, pool, p.x, p.y, p.n);
    /* Reorder the points into cell order, as the world's gather does. */
    points s = {0};
    gen_uniform(&s, &geo, p.n, 1);
    for (uint32_t k = 0; k < p.n; k++) {
        s.x[k] = p.x[ref.order[k]];
        s.y[k] = p.y[ref.order[k]];
    }
    /* Three points jump to the far corner. */
    uint32_t jumpers[] = {5, 9000, 19990};
    for (int j = 0; j < 3; j++) {
        s.x[jumpers[j]] = (float)geo.nx - 0.5f;
        s.y[jumpers[j]] = jumpers[j] == 5 ? (float)geo.ny - 0.5f : 0.5f;
    }
    th_grid_build(&ref, pool, s.x, s.y, s.n);
    for (uint32_t parts = 2; parts <= 16; parts += 7) {
        th_grid g;
        ck_assert_int_eq(
            th_grid_init(&g, geo.ox, geo.oy, geo.cw, geo.ch, geo.nx, geo.ny, s.n, parts), 0);
        g.min_part_items = 1;
        th_grid_build(&g, pool, s.x, s.y, s.n);
        ck_assert_uint_eq(g.parts_used, parts);
        ck_assert(memcmp(g.cell_start, ref.cell_start,
                         ((size_t)g.ncells + 1) * sizeof *g.cell_start) == 0);
        ck_assert(memcmp(g.order, ref.order, s.n * sizeof *g.order) == 0);
        /* Only the partitions holding a jumper span the grid. */
        for (uint32_t q = 0; q < parts; q++) {
            uint32_t begin = (uint32_t)((uint64_t)s.n * q / parts);
            uint32_t end = (uint32_t)((uint64_t)s.n * (q + 1) / parts);
            bool jumper = false;
            for (int j = 0; j < 3; j++)
                jumper = jumper || (jumpers[j] >= begin && jumpers[j] < end);
            uint32_t width = g.window[q].hi - g.window[q].lo + 1;
            if (!jumper) {
                ck_assert_msg(width <= g.ncells / parts + 2 * (uint32_t)geo.nx,
                              "partition %u of %u: window of %u cells", q, parts, width);
            } else {
                ck_assert_uint_gt(width, g.ncells / parts + 2 * (uint32_t)geo.nx);
            }
        }
        th_grid_free(&g);
    }
    th_grid_free(&ref);
    th_pool_destroy(pool);
    free_points(&p);
    free_points(&s);
}

/* A grid of a few scan blocks (scanned on the calling thread) and one of many (scanned in
 * parallel over blocks). */
START_TEST(test_sorted_input_narrow_windows) {
    sorted_input_case((geometry){0.0f, 0.0f, 1.0f, 1.0f, 64, 48});
    sorted_input_case((geometry){0.0f, 0.0f, 1.0f, 1.0f, 256, 160});
}
END_TEST

START_TEST(test_init_rejects_bad_sizes) {
    th_grid g;
    ck_assert_int_eq(th_grid_init(&g, 0, 0, 0.0f, 1.0f, 4, 4, 10, 1), -1);
    ck_assert_int_eq(th_grid_init(&g, 0, 0, 1.0f, -1.0f, 4, 4, 10, 1), -1);
    ck_assert_int_eq(th_grid_init(&g, 0, 0, NAN, 1.0f, 4, 4, 10, 1), -1);
    ck_assert_int_eq(th_grid_init(&g, 0, 0, 1.0f, 1.0f, 0, 4, 10, 1), -1);
    ck_assert_int_eq(th_grid_init(&g, 0, 0, 1.0f, 1.0f, 4, -3, 10, 1), -1);
    ck_assert_int_eq(th_grid_init(&g, 0, 0, 1.0f, 1.0f, 4, 4, 10, 0), -1);
    ck_assert_int_eq(th_grid_init(&g, 0, 0, 1.0f, 1.0f, 1 << 13, 1 << 12, 10, 1), -1);
    ck_assert_ptr_null(g.cell_start);
    ck_assert_ptr_null(g.order);
    ck_assert_int_eq(th_grid_init(&g, 0, 0, 1.0f, 1.0f, 1 << 12, 1 << 12, 10, 1), 0);
    ck_assert_uint_eq(g.ncells, TH_GRID_MAX_CELLS);
    th_grid_free(&g);
    ck_assert_ptr_null(g.cell_start);
}
END_TEST

/* th_grid_build_tied: each cell's items ordered by a distinct tie key, against a brute-force
 * sort of every item by (reference cell, key), for random points with many per cell (so ties
 * within cells are the rule), keys a random permutation read with a stride, given in several
 * input orders, with 1-4 workers and partitions. The order must be the items', not the input's:
 * a shuffled input gives the same (cell, key) sequence. */
typedef struct tied_item {
    uint32_t cell, key;
} tied_item;

static int tied_cmp(const void *pa, const void *pb) {
    const tied_item *a = pa, *b = pb;
    if (a->cell != b->cell) return a->cell < b->cell ? -1 : 1;
    return a->key < b->key ? -1 : a->key > b->key;
}

START_TEST(test_tied_order_is_cell_then_key) {
    const geometry geo = {-3.0f, 2.0f, 1.5f, 1.0f, 70, 40};
    const uint32_t n = 9000;
    uint64_t seed = 91;
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    uint32_t *tie = malloc(2 * n * sizeof *tie), *perm = malloc(n * sizeof *perm);
    tied_item *want = malloc(n * sizeof *want);
    ck_assert(x && y && tie && perm && want);
    for (uint32_t i = 0; i < n; i++) perm[i] = i;
    for (uint32_t i = n; i > 1; i--) { /* keys: a random permutation of 0..n-1 */
        uint32_t j = (uint32_t)(splitmix64(&seed) % i), t = perm[i - 1];
        perm[i - 1] = perm[j];
        perm[j] = t;
    }
    for (uint32_t i = 0; i < n; i++) {
        /* Half the points in a corner of 4x4 cells: ~280 per cell there. */
        const bool dense = i % 2 == 0;
        x[i] = randf(&seed, geo.ox, dense ? geo.ox + 4.0f * geo.cw : extent_x(&geo));
        y[i] = randf(&seed, geo.oy, dense ? geo.oy + 4.0f * geo.ch : extent_y(&geo));
        tie[2 * i] = perm[i] * 3u + 7u; /* distinct, not dense, stride 2 */
        tie[2 * i + 1] = UINT32_MAX;    /* the other word of each pair is never read as a key */
    }
    for (uint32_t pool_n = 1; pool_n <= 4; pool_n++) {
        th_pool *pool = th_pool_create(pool_n);
        ck_assert_ptr_nonnull(pool);
        for (uint32_t parts = 1; parts <= 4; parts++) {
            th_grid g;
            ck_assert_int_eq(
                th_grid_init(&g, geo.ox, geo.oy, geo.cw, geo.ch, geo.nx, geo.ny, n, parts), 0);
            g.min_part_items = 1;
            th_grid_build_tied(&g, pool, x, y, tie, 2, n);
            for (uint32_t i = 0; i < n; i++) {
                bool bx, by;
                const int32_t cx = ref_coord(x[i], geo.ox, geo.cw, geo.nx, &bx);
                const int32_t cy = ref_coord(y[i], geo.oy, geo.ch, geo.ny, &by);
                /* A point on a cell border may go either way: take the build's cell there. */
                want[i].cell = bx || by ? g.key[i] : (uint32_t)cy * (uint32_t)geo.nx + (uint32_t)cx;
                want[i].key = tie[2 * i];
            }
            qsort(want, n, sizeof *want, tied_cmp);
            for (uint32_t k = 0; k < n; k++) {
                const uint32_t i = g.order[k];
                ck_assert_uint_lt(i, n);
                CHECK_MSG(g.key[i] == want[k].cell && tie[2 * i] == want[k].key,
                          "%u workers, %u parts: order[%u] is (cell %u, key %u), expected (%u, %u)",
                          pool_n, parts, k, g.key[i], tie[2 * i], want[k].cell, want[k].key);
                CHECK_MSG(k >= g.cell_start[want[k].cell] && k < g.cell_start[want[k].cell + 1],
                          "order[%u] outside its cell's range", k);
            }
            th_grid_free(&g);
        }
        th_pool_destroy(pool);
    }
    free(x);
    free(y);
    free(tie);
    free(perm);
    free(want);
}
END_TEST

/* A strip's local grid (row_local, th_grid_set_ghosts), as one of several processes holds it:
 * rows [lo, hi) built from the strip's items alone, given in a shuffled order, then copies of
 * the items of the K rows on each side appended in the full grid's order. Every block query
 * (k = 1..K) around every cell of the strip must return the same items in the same order and
 * in the same spans as the full grid built from all items: random worlds, torus and walled,
 * random cuts of 2-4 strips of at least K rows (2K for two strips on a torus, whose rows above
 * and below are the same strip). */
static void row_map_case(bool wrap, int32_t K, uint64_t seed) {
    const geometry geo = {0.0f, 0.0f, 1.0f, 1.25f, 23, 37};
    const uint32_t n = 3000;
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    float *lx = malloc(n * sizeof *lx), *ly = malloc(n * sizeof *ly);
    uint32_t *tie = malloc(n * sizeof *tie), *ltie = malloc(n * sizeof *ltie);
    uint32_t *item = malloc(n * sizeof *item);   /* local input index -> item */
    uint32_t *store = malloc(n * sizeof *store); /* local storage position -> item */
    uint32_t *cell = malloc(n * sizeof *cell);   /* ghosts' global cells */
    int32_t *row_local = malloc((size_t)geo.ny * sizeof *row_local);
    ck_assert(x && y && lx && ly && tie && ltie && item && store && cell && row_local);
    for (uint32_t i = 0; i < n; i++) {
        x[i] = randf(&seed, 0.0f, extent_x(&geo));
        y[i] = randf(&seed, 0.0f, extent_y(&geo));
        tie[i] = (uint32_t)(splitmix64(&seed) >> 40) * 4096u + i; /* distinct */
    }
    th_pool *pool = th_pool_create(2);
    ck_assert_ptr_nonnull(pool);
    th_grid full;
    ck_assert_int_eq(th_grid_init(&full, geo.ox, geo.oy, geo.cw, geo.ch, geo.nx, geo.ny, n, 2), 0);
    th_grid_build_tied(&full, pool, x, y, tie, 1, n);
    const uint32_t nx = (uint32_t)geo.nx;
    for (int R = 2; R <= 4; R++) {
        const int32_t m = R == 2 && wrap ? 2 * K : K;
        if (geo.ny < R * m) continue;
        /* A random cut: each strip at least m rows. */
        int32_t lo_of[5], spare = geo.ny - R * m, at = 0;
        for (int r = 0; r < R; r++) {
            int32_t extra =
                r == R - 1 ? spare : (int32_t)(splitmix64(&seed) % (uint64_t)(spare + 1));
            lo_of[r] = at;
            at += m + extra;
            spare -= extra;
        }
        lo_of[R] = geo.ny;
        for (int r = 0; r < R; r++) {
            const int32_t lo = lo_of[r], hi = lo_of[r + 1], own = hi - lo;
            for (int32_t row = 0; row < geo.ny; row++) row_local[row] = -1;
            for (int32_t row = lo; row < hi; row++) row_local[row] = row - lo;
            /* Rows past a wall do not exist: they get no local row. */
            int32_t ghost_row[8], rows_local = own;
            for (int32_t i = 0; i < 2 * K; i++) {
                int32_t row = i < K ? lo - K + i : hi + (i - K);
                if (wrap) row = (row + geo.ny) % geo.ny;
                ghost_row[i] = row >= 0 && row < geo.ny ? row : -1;
                if (ghost_row[i] >= 0) row_local[ghost_row[i]] = rows_local++;
            }
            /* The strip's items, shuffled. */
            uint32_t nl = 0;
            for (uint32_t i = 0; i < n; i++) {
                const int32_t row = (int32_t)(full.key[i] / nx);
                if (row >= lo && row < hi) item[nl++] = i;
            }
            for (uint32_t i = nl; i > 1; i--) {
                uint32_t j = (uint32_t)(splitmix64(&seed) % i), t = item[i - 1];
                item[i - 1] = item[j];
                item[j] = t;
            }
            for (uint32_t i = 0; i < nl; i++) {
                lx[i] = x[item[i]];
                ly[i] = y[item[i]];
                ltie[i] = tie[item[i]];
            }
            th_grid g;
            ck_assert_int_eq(
                th_grid_init(&g, geo.ox, geo.oy, geo.cw, geo.ch, geo.nx, geo.ny, nl ? nl : 1, 2),
                0);
            g.min_part_items = 64;
            g.row_local = row_local;
            g.key_base = (uint32_t)lo * nx;
            g.rows_owned = own;
            g.rows_local = rows_local;
            th_grid_build_tied(&g, pool, lx, ly, ltie, 1, nl);
            for (uint32_t k = 0; k < nl; k++) store[k] = item[g.order[k]];
            /* Ghost rows: whole rows of the full grid, low side then high side. */
            uint32_t ng = 0;
            for (int32_t i = 0; i < 2 * K; i++) {
                if (ghost_row[i] < 0) continue;
                const uint32_t a0 = full.cell_start[(uint32_t)ghost_row[i] * nx];
                const uint32_t a1 = full.cell_start[((uint32_t)ghost_row[i] + 1) * nx];
                for (uint32_t p = a0; p < a1; p++) {
                    store[nl + ng] = full.order[p];
                    cell[ng++] = full.key[full.order[p]];
                }
            }
            th_grid_set_ghosts(&g, nl, cell, ng);
            for (int32_t cy = lo; cy < hi; cy++) {
                for (int32_t cx = 0; cx < geo.nx; cx++) {
                    for (int32_t k = 1; k <= K; k++) {
                        th_grid_span a[TH_GRID_MAX_SPANS], b[TH_GRID_MAX_SPANS];
                        const uint32_t na = th_grid_block(&full, cx, cy, k, wrap, a);
                        const uint32_t nb = th_grid_block(&g, cx, cy, k, wrap, b);
                        CHECK_MSG(na == nb, "R %d strip %d cell (%d, %d) k %d: %u spans, full %u",
                                  R, r, cx, cy, k, nb, na);
                        for (uint32_t s2 = 0; s2 < na; s2++) {
                            CHECK_MSG(a[s2].end - a[s2].begin == b[s2].end - b[s2].begin,
                                      "R %d strip %d cell (%d, %d) k %d span %u: %u items, full %u",
                                      R, r, cx, cy, k, s2, b[s2].end - b[s2].begin,
                                      a[s2].end - a[s2].begin);
                            for (uint32_t q = 0; q < a[s2].end - a[s2].begin; q++) {
                                const uint32_t want = full.order[a[s2].begin + q];
                                const uint32_t got = store[b[s2].begin + q];
                                CHECK_MSG(want == got,
                                          "R %d strip %d cell (%d, %d) k %d span %u item %u: %u, "
                                          "full %u",
                                          R, r, cx, cy, k, s2, q, got, want);
                            }
                        }
                    }
                }
            }
            th_grid_free(&g);
        }
    }
    th_grid_free(&full);
    th_pool_destroy(pool);
    free(x);
    free(y);
    free(lx);
    free(ly);
    free(tie);
    free(ltie);
    free(item);
    free(store);
    free(cell);
    free(row_local);
}

START_TEST(test_row_map_queries_match_full_grid) {
    for (int32_t K = 1; K <= TH_GRID_MAX_REACH; K++) {
        row_map_case(true, K, 1000u + (uint64_t)K);
        row_map_case(false, K, 2000u + (uint64_t)K);
    }
}
END_TEST

static Suite *grid_suite(void) {
    Suite *s = suite_create("grid");
    TCase *tc = tcase_create("build");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, test_uniform, 0, GEO_COUNT);
    tcase_add_loop_test(tc, test_borders, 0, GEO_COUNT);
    tcase_add_loop_test(tc, test_edges, 0, GEO_COUNT);
    tcase_add_loop_test(tc, test_empty_cells, 0, GEO_COUNT);
    tcase_add_loop_test(tc, test_all_in_one_cell, 0, GEO_COUNT);
    tcase_add_loop_test(tc, test_hostile_coordinates, 0, GEO_COUNT);
    tcase_add_loop_test(tc, test_tiny_inputs, 0, GEO_COUNT);
    tcase_add_test(tc, test_rebuild_after_motion);
    tcase_add_test(tc, test_init_rejects_bad_sizes);
    tcase_add_test(tc, test_sorted_input_narrow_windows);
    tcase_add_test(tc, test_block_query_mixed_radii);
    tcase_add_test(tc, test_tied_order_is_cell_then_key);
    tcase_add_test(tc, test_row_map_queries_match_full_grid);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return th_test_run(grid_suite()); }
