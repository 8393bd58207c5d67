/* Naive O(N^2) boids: the reference the grid engine is checked and benchmarked against.
 *
 * Written from the definition in sim/behave/boids.c's header comment, with no grid and no shared
 * code: every agent looks at every other agent, sums in double precision. Membership tests
 * (inside a radius, inside the view cone) use the same float expressions as the definition,
 * so an agent lying a rounding error from a boundary is classified the same way by both. */
#ifndef TH_REF_BOIDS_H
#define TH_REF_BOIDS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct ref_crowd {
    float neighbor_radius, separation_radius, fov_deg;
    float w_sep, w_ali, w_coh;
    float max_speed, max_force;
} ref_crowd;

typedef struct ref_world {
    float width, height;
    bool wrap;
    const ref_crowd *crowds;
} ref_world;

/** Steering acceleration of every agent; `neighbors` (may be NULL) receives the same-crowd
 *  agents seen. */
void ref_boids_accel(const ref_world *w, uint32_t n, const float *px, const float *py,
                     const float *vx, const float *vy, const uint16_t *crowd, float *ax, float *ay,
                     uint32_t *neighbors);

/** One full naive step (accelerations, then the same integration rule as the engine), in
 *  place. `ax`, `ay` are scratch of n floats. */
void ref_boids_step(const ref_world *w, float dt, uint32_t n, float *px, float *py, float *vx,
                    float *vy, const uint16_t *crowd, float *ax, float *ay);

#endif
