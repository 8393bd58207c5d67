/* The pedestrian model (sim/behave/ped.c). */
#ifndef TH_SIM_PED_H
#define TH_SIM_PED_H

#include "sim/core/world.h"

/* The pedestrian model (sim/behave/ped.c): accelerations of the pedestrian agents in [begin, end).
 */
void th_ped_steer(th_world *w, uint32_t begin, uint32_t end, th_chunk_stats *stats);

#endif
