/* The engine's side of running one world over several MPI ranks (docs/architecture.md,
 * "Distribution"). sim/dist/dist_mpi.c implements it with MPI (THRONG_MPI=ON);
 * sim/dist/dist_none.c is the single-process build, where every call is a no-op for one rank,
 * so that the step has no #ifdef and the default build links no MPI.
 *
 * Layout under R > 1 ranks: rank r owns the main-grid rows [row_lo, row_hi) (a strip; strips
 * follow rank order bottom to top and are cut by agent count) and stores its agents in
 * [0, count), then copies of the agents in the rows it reads but does not own (ghosts) in
 * [count, count + ghosts), in ascending global row, each row in its owner's storage order: the
 * `halo` rows on each side of the strip, and in a building the rows across each stair's seam
 * that its walkers look into.
 * Ghosts are read as neighbours only: never stepped, integrated, hashed or counted. The grid
 * maps global rows to local rows (th_grid.row_local), owned rows first.
 *
 * Order contract: after the grid phase every rank's owned agents are in (global cell, id slot)
 * order, the order of one process (sim/step/step.c, the grid part), whatever order they were
 * stored in before it: migrants may arrive in any order. Ghost rows are contiguous slices of
 * their owner's sorted storage, so every cell, owned or ghost, holds the same agents in the
 * same order as in one process, and the kernels, which read whole cells (lane sums, capped
 * lists), give the same bits. Across ranks, the global storage order is rank 0's agents, then
 * rank 1's, ...: strips ascend with the rank.
 *
 * Replicated on every rank: ids and the free list (every call that adds or removes an agent
 * runs on every rank; the agent is stored only by its owner), the map and its fields (the
 * congestion-aware ones from agent counts summed over ranks), the predator index (every
 * rank's predators gathered to all: sim/dist/dist_pred.h), bunkers, targets, spawners,
 * measurement totals, squads (updated from their members gathered from every rank,
 * sim/behave/squad.c), foraging colonies (pheromone grids, food left, counts), the step counter.
 * Collective calls (every rank, same order): th_dist_migrate, th_dist_ghosts, th_dist_ghost_floats,
 * th_dist_ghost_records, th_dist_gather_u64, th_dist_sum_*, th_dist_max_f32, th_dist_any,
 * th_dist_or_u32, th_dist_hash. */
#ifndef TH_SIM_DIST_H
#define TH_SIM_DIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/core/error.h"
#include "throng/throng.h"

typedef struct th_dist th_dist;

/** Attach the ranks of `def` to the world being created (w->dist). False with `err` set when
 *  the build has no MPI or MPI fails. With def NULL nothing happens. */
bool th_dist_create(th_world *w, const struct th_dist_def *def, th_error *err);
void th_dist_destroy(th_world *w);

/** Rank and rank count (0 and 1 without ranks). */
int th_dist_rank(const th_world *w);
int th_dist_ranks(const th_world *w);

/** Whether this rank stores an agent added at `p` now (always true for one rank). */
bool th_dist_owns(th_world *w, th_vec2 p);

/** Grid phase, before the grid build: re-cut the strips when due, send agents that left the
 *  strip to their owners and take in those that arrived, keeping the order contract. Sets the
 *  grid's row map. */
void th_dist_migrate(th_world *w);
/** Grid phase, after the gather: exchange ghost rows with every rank that reads this strip's
 *  rows or owns rows this one reads; ghosts are stored after the owned agents and entered in
 *  the grid. */
void th_dist_ghosts(th_world *w);

/** Refresh ghosts' x[count..count + ghosts), y[..] from their owners' values of the same
 *  agents (same slices and order as this step's ghost rows). */
void th_dist_ghost_floats(th_world *w, float *x, float *y);

/** Records of `per` bytes an agent for the ghosts of this step's rows, from their owners:
 *  pack(w, ctx, from, to, out) writes owned storage slice [from, to), unpack(w, ctx, first, n,
 *  in) reads the n ghosts stored from `first` (same slices and order as this step's ghost
 *  rows). What an observer lends the neighbours of its agents (stall judgement's standing). */
typedef void (*th_dist_pack_fn)(const th_world *w, void *ctx, uint32_t from, uint32_t to,
                                unsigned char *out);
typedef void (*th_dist_unpack_fn)(th_world *w, void *ctx, uint32_t first, uint32_t n,
                                  const unsigned char *in);
void th_dist_ghost_records(th_world *w, size_t per, th_dist_pack_fn pack, th_dist_unpack_fn unpack,
                           void *ctx);

/** Every rank's n words, gathered on every rank into all[rank * n + i] (a copy for one rank). */
void th_dist_gather_u64(const th_world *w, const uint64_t *mine, uint32_t n, uint64_t *all);

/** Element-wise sums and maximum over ranks, in place (no-ops for one rank). */
void th_dist_sum_u64(th_world *w, uint64_t *v, uint32_t n);
void th_dist_sum_u32(th_world *w, uint32_t *v, uint32_t n);
void th_dist_max_f32(th_world *w, float *v, uint32_t n);
/** Logical or over ranks. */
bool th_dist_any(th_world *w, bool v);
/** Element-wise bitwise or over ranks, in place: the id slots each rank holds (validation), or
 *  the exact transfer of values one rank holds (the others give zeros). */
void th_dist_or_u32(th_world *w, uint32_t *v, uint32_t n);
/** Count `bytes` sent by a collective made outside this file's calls (th_dist_gather_all) in
 *  the step's reductions and gathers (th_dist_stats.reduce_bytes). */
void th_dist_count_sent(th_world *w, uint64_t bytes);

/** th_world_hash over ranks: every owned agent's (id, crowd, position, velocity) gathered on
 *  rank 0 in rounds of id slots, hashed there in id slot order exactly as one process does,
 *  the result broadcast.
 *  `head` and `tail` hash what is replicated before and after the agents. */
struct th_hasher;
uint64_t th_dist_hash(const th_world *w, void (*head)(const th_world *, struct th_hasher *),
                      void (*tail)(const th_world *, struct th_hasher *));

/** Tests: gather the hash's records in rounds of `slots` id slots (0 = the default, 2^20), to
 *  check the rounds on small worlds. */
void th_dist_set_hash_round(th_world *w, uint32_t slots);

/** The strips of `ranks` ranks over `ny` grid rows holding hist[y] agents each: rank r gets rows
 *  [row_lo[r], row_lo[r + 1]) (row_lo has ranks + 1 entries; row_lo[ranks] = ny). Rank r starts
 *  at the first row where the count below reaches r / ranks of all agents, then every strip is
 *  pushed to at least min_rows rows (ny >= ranks * min_rows). Pure: every rank computes the
 *  same cut from the same summed histogram. */
void th_dist_cut(const uint32_t *hist, int32_t ny, int ranks, int32_t min_rows, int32_t *row_lo);

/** Whether the world can be split over its ranks: false with `err` when it has too few grid
 *  rows for them (every strip needs its ghost rows on both sides). True for one rank. */
bool th_dist_check(const th_world *w, th_error *err);

/** Whether every rank made the same calls giving agents their own goals so far (a running hash
 *  of them): false with `err` naming the first rank that differs from rank 0. Collective under
 *  several ranks, and the same answer on every rank; true for one rank. Such a call makes a
 *  collective call of its own: it makes this one first, so that a rank that was not given the
 *  call meets it at the start of th_world_dist_check, which compares the same hash first. */
bool th_dist_same_goal_calls(const th_world *w, th_error *err);

#endif
