/* A digest of how a world was built, in parts (sim/observe/digest.c): under several MPI ranks the
 * ranks compare it before the first step (th_world_dist_check), since ranks that built
 * different worlds would make different collective calls, or the same calls with different
 * counts, and wait for each other for ever, or run on to totals that match neither world. Not
 * part of the state hash. */
#ifndef TH_SIM_DIGEST_H
#define TH_SIM_DIGEST_H

#include <stdint.h>

#include "sim/core/world.h"

/* Every part of a world, once, in the order a difference is reported: X(ID, name, hash), where
 * `name` says what the part covers in a message ("its levels") and `hash` is the function of
 * sim/observe/digest.c that digests it. The enum, the names and the comparison of the ranks all
 * follow this list: a part added here is digested, named and compared. Everything a scene or
 * the API can set before the first step belongs to one part (tests/test_scene.c varies every
 * scene key and checks that the digest follows). */
#define TH_DIGEST_PART_LIST(X)                                                               \
    X(WORLD, "world (size, edges, timestep, cell size, stall time)", world_part)             \
    X(SEED, "seed", seed_part)                                                               \
    X(MAP, "map", map_part)                                                                  \
    X(LEVELS, "levels", levels_part)                                                         \
    X(STAIRS, "stairs", stairs_part)                                                         \
    X(CROWDS, "crowds", crowds_part)                                                         \
    X(PRE_MOVEMENT, "pre-movement times", pre_movement_part)                                 \
    X(EXIT_CHOICE, "exit choice", exit_choice_part)                                          \
    X(TARGETS, "targets", targets_part)                                                      \
    X(BUNKERS, "bunkers", bunkers_part)                                                      \
    X(DESTINATIONS, "destination fields", destinations_part)                                 \
    X(EVENTS, "events", events_part)                                                         \
    X(SPAWNERS, "spawners", spawners_part)                                                   \
    X(EXITS, "exits", exits_part)                                                            \
    X(MEASURE, "measurement areas and lines", measure_part)                                  \
    X(SQUADS, "squads", squads_part)                                                         \
    X(GROUPS, "groups", groups_part)                                                         \
    X(OWN_GOALS, "own goals (agent goals and goal planning)", own_goals_part)                \
    X(ELEVATORS, "elevators", elevators_part)                                                \
    X(HAZARDS, "hazards", hazards_part)                                                      \
    /* the arguments of every call that added or removed an agent (each rank made them all), \
     * counts, the id table */                                                               \
    X(AGENTS, "agents", agents_part)

typedef enum th_digest_part {
#define TH_DIGEST_ENUM_(id, name, hash) TH_DIGEST_##id,
    TH_DIGEST_PART_LIST(TH_DIGEST_ENUM_)
#undef TH_DIGEST_ENUM_
        TH_DIGEST_PARTS
} th_digest_part;

/* Fill out[TH_DIGEST_PARTS]. Reads what every rank holds alike; no collective call. */
void th_world_digest(const th_world *w, uint64_t out[TH_DIGEST_PARTS]);
/* What part `p` covers, for a message ("its spawners"). */
const char *th_digest_part_name(uint32_t p);

#endif
