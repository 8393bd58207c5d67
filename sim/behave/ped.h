/* The pedestrian model (sim/behave/ped.c). */
#ifndef TH_SIM_PED_H
#define TH_SIM_PED_H

#include <math.h>

#include "sim/core/step.h"
#include "sim/core/world.h"

/* The pedestrian model (sim/behave/ped.c): accelerations of the pedestrian agents in [begin, end)
 * of the step context's arrays. */
void th_ped_steer(const th_step_ctx *x, uint32_t begin, uint32_t end, th_chunk_stats *stats);

/* A walker whose goal direction is more than 120 degrees off another's (cosine below this)
 * comes the other way. */
#define TH_PED_OPPOSED -0.5f

/* Right of way: of two walkers coming toward each other, bound for different places, the one
 * whose share of neighbours coming the other way is larger by more than this goes first; the
 * other yields (sim/behave/ped.c, sim/behave/contacts.c). */
#define TH_PED_RIGHT_OF_WAY 0.3f

/* Square of the least half-chord the spacing law divides by (1 mm): a body ahead at almost a
 * whole contact distance to the side limits the speed that much and no more. */
#define TH_PED_MIN_CHORD2 1e-6f

/* The time-gap law: the speed a walker may keep behind a body `along` metres ahead of it along
 * its walking direction and `lat` metres to the side (|lat| < l, the contact distance). Its free
 * run is what it can walk before the two touch, along - sqrt(l^2 - lat^2), and the time gap it
 * keeps shrinks with how much of the other's body is in its way: T sqrt(c / l), c that half-chord.
 * Directly behind (lat = 0) this is the collision-free speed model's (s - l) / T; at the edge of
 * the other's path the constraint vanishes smoothly instead of switching off (docs/pedestrians.md,
 * "Spacing"). sim/behave/ped.c computes the same four at a time. */
static inline float th_ped_gap_speed(float along, float lat, float l, float inv_time_gap) {
    float c2 = l * l - lat * lat;
    if (c2 < TH_PED_MIN_CHORD2) c2 = TH_PED_MIN_CHORD2;
    const float c = sqrtf(c2);
    return (along - c) * inv_time_gap * sqrtf(l / c);
}

#endif
