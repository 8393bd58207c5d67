/* The grids' set-up: the main grid's cells sized from every crowd's reach, each crowd's block
 * of cells, and the predator grid with its arrays. */
#include <math.h>

#include "sim/core/storage.h"
#include "sim/core/world.h"

/* Cells of the main grid per smallest boids reach: a crowd whose block reach is r walks
 * (2k+1)^2 cells of side c around its own, k = ceil(r / c). With c = r (k = 1) that block is
 * 9 r^2 for a disc of pi r^2, 3.8x the area (3.2x the candidates measured on the flock scene,
 * whose view cone is 270 degrees); with c = r / 2 (k = 2) it is 6.25 r^2, 2.0x-2.7x, and the
 * five row spans per query cost less than the candidates they save (bench/RESULTS.md, "Large
 * radii"). Finer cells (k = 3: 5.4 r^2) gain little more for seven spans per query. */
#define TH_GRID_SPLIT 2.0f

/* Cells tile the world exactly: nx = floor(width / size) columns of width / nx metres, so each
 * cell is at least `size` wide and tall and on a torus the seam falls on a cell border. A
 * hair of margin keeps float rounding in width / nx from making a cell narrower. */
static bool init_tiling(th_world *w, th_grid *g, float size, uint32_t capacity) {
    float W = w->def.width, H = w->def.height;
    float r = size > 0.0f ? size : 1.0f;
    /* A huge sparse world would need more cells than the bound allows: coarser cells are still
     * correct (queries walk fewer of them), only slower to query. */
    float min_r = sqrtf(W * H / (float)TH_GRID_MAX_CELLS) * 1.01f;
    if (r < min_r) r = min_r;
    r *= 1.0002f;
    float fx = floorf(W / r), fy = floorf(H / r);
    int32_t nx = fx < 1.0f ? 1 : (int32_t)fx;
    int32_t ny = fy < 1.0f ? 1 : (int32_t)fy;
    th_grid_free(g);
    return th_grid_init(g, 0.0f, 0.0f, W / (float)nx, H / (float)ny, nx, ny, capacity,
                        w->workers) == 0;
}

/* Cells each side a query must walk to cover `reach` metres on grid g: k = ceil(reach / cell)
 * with a hair of margin for the rounding of positions into cells (cells carry twice that
 * margin, so a reach of exactly k cells' target size stays k). */
static int32_t block_cells(const th_grid *g, float reach) {
    double c = g->cell_w < g->cell_h ? g->cell_w : g->cell_h;
    double k = ceil((double)reach * 1.0001 / c);
    return k < 1.0 ? 1 : (int32_t)k;
}

/* The predator grid and arrays for `cap` predators; their contents are lost (th_boids_prepare
 * fills them afresh each step). */
static bool setup_predators(th_world *w, uint32_t cap) {
    w->pred_capacity = 0;
    if (!init_tiling(w, &w->pred_grid, w->pred_radius, cap)) return false;
    if (cap == 0) return true;
    if (!(th_grow_array((void **)&w->pred_px, sizeof *w->pred_px, 0, cap) &&
          th_grow_array((void **)&w->pred_py, sizeof *w->pred_py, 0, cap) &&
          th_grow_array((void **)&w->pred_ptype, sizeof *w->pred_ptype, 0, cap) &&
          th_grow_array((void **)&w->pred_pid, sizeof *w->pred_pid, 0, cap) &&
          th_grow_array((void **)&w->pred_sx, sizeof *w->pred_sx, 0, cap) &&
          th_grow_array((void **)&w->pred_sy, sizeof *w->pred_sy, 0, cap) &&
          th_grow_array((void **)&w->pred_pvx, sizeof *w->pred_pvx, 0, cap) &&
          th_grow_array((void **)&w->pred_pvy, sizeof *w->pred_pvy, 0, cap) &&
          th_grow_array((void **)&w->pred_svx, sizeof *w->pred_svx, 0, cap) &&
          th_grow_array((void **)&w->pred_svy, sizeof *w->pred_svy, 0, cap) &&
          th_grow_array((void **)&w->pred_stype, sizeof *w->pred_stype, 0, cap)))
        return false;
    w->pred_capacity = cap;
    return true;
}

/* (Re)build the grids for the current capacity and crowds.
 *
 * Main grid: the contacts phase and the validator walk 3x3 blocks, so a cell is at least
 * interaction_radius (their reach). Boids and pedestrians walk (2k+1)^2 blocks sized by each
 * crowd's own reach: cells are the smallest such reach / TH_GRID_SPLIT, but at least the
 * largest / TH_GRID_MAX_REACH so that no block exceeds TH_GRID_MAX_REACH cells each side. One
 * crowd with a long reach thus costs its own agents a wider block, not everyone a coarser grid
 * (a single grid sized by the largest radius made every agent of the hawks scene inspect 812
 * candidates for 54 neighbours seen).
 *
 * Predator grid: flee radii are long (12 m by default) but only predator types matter to
 * them, a few agents. Walking a block that wide in the main grid still inspects every prey in
 * it (503 candidates per agent on the hawks scene, against 121 this way), so predators get
 * their own grid with cells at least the largest flee radius, queried 3x3. */
bool th_world_setup_grid(th_world *w) {
    float small = 0.0f, large = 0.0f;
    for (uint32_t c = 0; c < w->crowd_count; c++) {
        const th_crowd_rt *rt = &w->crowd_rt[c];
        if (!(rt->block_reach > 0.0f)) continue;
        if (small == 0.0f || rt->block_reach < small) small = rt->block_reach;
        if (rt->block_reach > large) large = rt->block_reach;
    }
    float size = w->interaction_radius;
    if (small / TH_GRID_SPLIT > size) size = small / TH_GRID_SPLIT;
    if (large / (float)TH_GRID_MAX_REACH > size) size = large / (float)TH_GRID_MAX_REACH;
    if (!init_tiling(w, &w->grid, size, w->capacity)) return false;
    for (uint32_t c = 0; c < w->crowd_count; c++) {
        th_crowd_rt *rt = &w->crowd_rt[c];
        rt->block = block_cells(&w->grid, rt->block_reach);
    }
    if (!w->pred_mask) return true;
    return setup_predators(w, w->capacity > w->pred_capacity ? w->capacity : w->pred_capacity);
}

bool th_world_reserve_predators(th_world *w, uint32_t n) {
    if (n <= w->pred_capacity) return true;
    return setup_predators(w, th_grown_capacity(w->pred_capacity, n, 1024, TH_MAX_AGENTS));
}
