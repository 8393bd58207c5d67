/* The world's storage and grids, grown between steps (sim/core/storage.c, sim/core/grid_setup.c):
 * what sim/step/world.c, sim/step/crowd.c and agents.c share. th_world_reserve,
 * th_world_reserve_predators and th_grow_array, which other rooms call too, are in
 * sim/core/world.h. */
#ifndef TH_SIM_STORAGE_H
#define TH_SIM_STORAGE_H

#include "sim/core/world.h"

/* storage.c: room for n agents stored (the agent arrays and what is sized with them: chunk
 * statistics, the spawning scratch, contact lists, the grids' index arrays). */
bool th_world_reserve_agents(th_world *w, uint32_t n);
/* storage.c: room for n id slots (the id table, the per-id arrays, the measured positions). */
bool th_world_reserve_ids(th_world *w, uint32_t n);
/* storage.c: room for the departure times of n agents ever added. */
bool th_world_reserve_history(th_world *w, uint32_t n);
/* storage.c: the contacts phase's per-agent lists once a crowd has bodies (radius: the largest
 * body radius, counting one about to be added). */
bool th_world_reserve_contacts(th_world *w, float radius);
/* storage.c: free the agent arrays, the id table and the per-id arrays. */
void th_world_free_agents(th_world *w);
/* grid_setup.c: (re)build the grids for the current capacity and crowds. */
bool th_world_setup_grid(th_world *w);

/* The cell an agent added since the last grid phase carries until its first gather: above
 * every grid cell (TH_GRID_MAX_CELLS is 2^24), in the order agents were added. Storage order
 * is then (cell, slot) for every agent alive between two grid phases: the gathered agents in
 * the grid's (cell, id) order, followed by the added ones in the order they came. */
#define TH_CELL_ADDED 0x80000000u
static inline uint32_t th_cell_added(uint32_t spawned) {
    return TH_CELL_ADDED | (spawned & 0x7FFFFFFFu);
}

#endif
