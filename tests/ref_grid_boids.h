/* Plain scalar grid boids: the fair baseline that `throng bench` measures the engine against.
 *
 * What a competent programmer writes in an afternoon, single-threaded: structure-of-arrays
 * agents, a uniform grid of cells at least as wide as the largest radius rebuilt every step by
 * a counting sort (agents are kept in cell order, like the engine's), a scalar loop over the
 * 3x3 cells around each agent, float sums. No SIMD, no threads, no shared code with the engine.
 * The rules are the ones in sim/behave/boids.c's header comment and tests/ref_boids.c (same
 * membership expressions, same integration), so it does the same work as the engine: the tests
 * check it against the naive reference. */
#ifndef TH_REF_GRID_BOIDS_H
#define TH_REF_GRID_BOIDS_H

#include <stdint.h>

#include "ref_boids.h"

typedef struct ref_grid_boids {
    ref_world w;
    uint32_t n;
    /* Agent state, in cell order after each step; id[k] is the caller's index of agent k. */
    float *px, *py, *vx, *vy;
    uint16_t *crowd;
    uint32_t *id;
    /* Scratch: the other copy of the arrays for the sort, per-agent cells and accelerations. */
    float *tpx, *tpy, *tvx, *tvy;
    uint16_t *tcrowd;
    uint32_t *tid, *key, *cell_start;
    float *ax, *ay;
    int32_t nx, ny;
    float inv_cw, inv_ch;
} ref_grid_boids;

/** Copy n agents (of crowds w->crowds[crowd[i]], `ncrowds` of them) into a new reference world.
 *  Returns 0, or -1 when memory is short. */
int ref_grid_init(ref_grid_boids *g, const ref_world *w, uint32_t ncrowds, uint32_t n,
                  const float *px, const float *py, const float *vx, const float *vy,
                  const uint16_t *crowd);

/** One step: sort by cell, accelerations from the step-t state, then integration. */
void ref_grid_step(ref_grid_boids *g, float dt);

void ref_grid_free(ref_grid_boids *g);

#endif
