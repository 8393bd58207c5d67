/* Measurement areas and lines (sim/observe/measure.c). */
#ifndef TH_SIM_MEASURE_H
#define TH_SIM_MEASURE_H

#include "sim/core/world.h"

/* sim/observe/measure.c: measurement areas and lines. Everything is a no-op while w->measure is
 * NULL.
 */
void th_measure_free(th_world *w);
/* The id capacity grew to `cap` slots (the first `keep` hold positions): grow the per-id
 * previous positions with it. False when memory is short. */
bool th_measure_reserve(th_world *w, uint32_t keep, uint32_t cap);
/* A new agent starts its path at `p`. */
void th_measure_agent_added(th_world *w, th_agent_id id, th_vec2 p);
/* Each agent's position after the previous step travels with an agent that changes rank: the
 * measurement's part of a migrant (th_migrant_part; nothing while no line is measured). */
size_t th_measure_wire_size(const th_world *w);
void th_measure_pack(th_world *w, uint32_t slot, unsigned char *p);
bool th_measure_unpack(th_world *w, th_agent_id id, const unsigned char *p);
/* Bookkeeping (serial): areas counted, crossings detected, previous positions advanced. */
void th_measure_update(th_world *w);

#endif
