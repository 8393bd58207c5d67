/* Running one world over several MPI processes (ranks). Installed only by builds configured
 * with THRONG_MPI=ON; including it includes <mpi.h>.
 *
 * Every rank creates the world with the same def (or loads the same scene with the same opts)
 * and a th_dist_def naming the communicator; each then stores only the agents of its strip of
 * grid rows, plus copies of its neighbours' boundary rows. Results are those of one process
 * bit for bit: th_world_hash is the same for any number of ranks and threads per rank.
 *
 * Under more than one rank, calls that add or remove agents, add squads or join agents to
 * them, schedule events, turn validation on or off or step are collective: every rank makes the
 * same calls with the same arguments in the same order (with validation on, the ranks compare a
 * running hash of the arguments of th_world_add_agent, th_world_remove_agent and
 * th_world_schedule after every step, and a difference is a violation). Squads are held by
 * every rank (th_world_get_squad answers everywhere).
 *
 * Threads: the engine makes its MPI calls on the thread that steps the world (between the
 * parallel phases, never inside them), so MPI_THREAD_FUNNELED suffices when that thread is the
 * one that initialised MPI. A host's own task system (th_world_def.enqueue_task) runs only the
 * parallel phases and works under ranks as in one process.
 *
 * th_world_hash, th_world_get_stats and th_world_agent_count are collective too and answer
 * for the whole world on every rank. th_world_get_agent answers only on the agent's owner, and
 * th_world_agents views this rank's own agents (ghost copies are not in it); so does
 * th_world_forage_info's `carried` (and `lost`, which it implies): sum `carried` over ranks.
 * Pheromone grids, food and the other colony totals are the whole world's on every rank. */
#ifndef THRONG_DIST_H
#define THRONG_DIST_H

#include <mpi.h>

#include "throng/throng.h"

#ifdef __cplusplus
extern "C" {
#endif

struct th_dist_def {
    MPI_Comm comm;            /* the ranks that share the world (duplicated by the world) */
    uint32_t rebalance_every; /* steps between re-cuts of the strips by agent count; 0 = 50 */
};

/** Bytes and time of the exchanges, summed over this rank's steps. */
typedef struct th_dist_stats {
    int rank, ranks;
    uint32_t owned, ghosts;     /* agents stored by this rank after the last grid phase */
    uint32_t rows_lo, rows_hi;  /* its strip of main-grid rows [rows_lo, rows_hi) */
    uint64_t steps;             /* steps counted */
    uint64_t ghost_bytes;       /* sent and received: boundary rows */
    uint64_t migrate_bytes;     /* sent and received: agents changing owner */
    uint64_t reduce_bytes;      /* sent: reductions and gathers of the step */
    uint64_t migrants;          /* agents sent to another rank */
    uint64_t rebalances;        /* re-cuts of the strips */
    double halo_ms, migrate_ms; /* wall time inside the exchanges */
    uint32_t grows;             /* buffers grown inside a step (0 after warm-up) */
} th_dist_stats;

/** This process's rank among the world's ranks (0 without a th_dist_def). */
TH_API int th_world_rank(const th_world *w);
/** Number of ranks sharing the world (1 without a th_dist_def). */
TH_API int th_world_ranks(const th_world *w);
/** Whether the world can be split over its ranks: false with `err` when it has too few grid
 *  rows for them (each rank's strip needs as many rows as the widest neighbour search, on both
 *  sides), or (TH_ERR_STATE) when the ranks built different worlds, which would make them wait
 *  for each other for ever: every rank's digest of its world (def, seed, map, levels, stairs,
 *  crowds, pre-movement, exit choice, targets, bunkers, destination fields, pending events,
 *  spawners, exits, measurement, squads, groups, own goals, elevators, hazards, the calls that
 *  added agents) is compared, and `err` names the first rank that differs from
 *  rank 0 and in what. Collective under several ranks: call it on every rank, before the
 *  first step; every rank gets the same answer. True for one rank. Every feature of the engine
 *  runs on several ranks. */
TH_API bool th_world_dist_check(const th_world *w, th_error *err);
/** This rank's exchange figures. */
TH_API th_dist_stats th_world_dist_stats(const th_world *w);

#ifdef __cplusplus
}
#endif

#endif
