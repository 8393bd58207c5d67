/* A digest of how a world was built, in parts (sim/core/digest.c): under several MPI ranks the
 * ranks compare it before the first step (th_world_dist_check), since ranks that built
 * different worlds would make different collective calls, or the same calls with different
 * counts, and wait for each other for ever. Not part of the state hash. */
#ifndef TH_SIM_DIGEST_H
#define TH_SIM_DIGEST_H

#include <stdint.h>

#include "sim/core/world.h"

/* The parts, in the order a difference is reported. */
typedef enum th_digest_part {
    TH_DIGEST_WORLD = 0,    /* size, edges, timestep, cell size, stall time */
    TH_DIGEST_SEED,         /* the seed */
    TH_DIGEST_MAP,          /* map size and every cell's kind, cost and speed */
    TH_DIGEST_CROWDS,       /* every crowd's parameters and goal, the colonies' food */
    TH_DIGEST_TARGETS,      /* targets */
    TH_DIGEST_BUNKERS,      /* bunkers and their state */
    TH_DIGEST_DESTINATIONS, /* destination fields' goals */
    TH_DIGEST_EVENTS,       /* the events still to come */
    TH_DIGEST_SPAWNERS,     /* spawners */
    TH_DIGEST_EXITS,        /* exits */
    TH_DIGEST_MEASURE,      /* measurement areas and lines */
    TH_DIGEST_SQUADS,       /* squads and their members */
    TH_DIGEST_AGENTS,       /* the agents: the arguments of every call that added or removed
                               one (each rank made them all), counts, the id table */
    TH_DIGEST_PARTS
} th_digest_part;

/* Fill out[TH_DIGEST_PARTS]. Reads what every rank holds alike; no collective call. */
void th_world_digest(const th_world *w, uint64_t out[TH_DIGEST_PARTS]);
/* What part `p` covers, for a message ("its spawners"). */
const char *th_digest_part_name(uint32_t p);

#endif
