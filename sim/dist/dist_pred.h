/* The predator index over several ranks (sim/dist/dist_pred.c). */
#ifndef TH_SIM_DIST_PRED_H
#define TH_SIM_DIST_PRED_H

#include <stdint.h>

#include "throng/throng.h"

/* th_boids_prepare's predators: w->pred_px, pred_py, pred_ptype, pred_pid hold this rank's n
 * own predators; replaced by those of every rank (the arrays grown to hold them). Returns their
 * count. One process: n, nothing touched (unless th_dist_serial_force asked for the gather
 * path). Collective: every rank calls it at the same point of every step of a world with
 * predator types. */
uint32_t th_dist_predators(th_world *w, uint32_t n);

#endif
