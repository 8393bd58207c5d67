/* The command under mpirun (builds with THRONG_MPI=ON): every rank runs the same command on
 * its share of one world; rank 0 alone prints, writes files and reads Ctrl-C. Without MPI, or
 * when not launched by mpirun, these are the one-process answers. */
#ifndef TH_APP_RANKS_H
#define TH_APP_RANKS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "throng/throng.h"

/** Start MPI when launched by mpirun (MPI_THREAD_FUNNELED: only the stepping thread calls it).
 *  Ranks other than 0 get their stdout and stderr sent to /dev/null. Returns false (after
 *  printing why) when MPI cannot start. */
bool th_app_ranks_init(int *argc, char ***argv);
/** MPI_Finalize when MPI was started; returns rc. A failure (rc != 0) under several ranks
 *  before th_app_dist_check was reached, or a usage error (2) after it other than its own
 *  refusal, may be this rank's alone, with the others waiting for it in a collective call:
 *  MPI_Abort then stops every rank (with rc), so nothing hangs. */
int th_app_ranks_end(int rc);
/** A failure on one rank (under several ranks the others would wait for it at the next
 *  collective call): its message on its own stderr, then MPI_Abort stops every rank. Returns
 *  only without MPI. */
void th_app_abort(const char *what);

int th_app_rank(void);
int th_app_ranks(void);
/** The def that shares a world between the ranks, or NULL for one process. */
const struct th_dist_def *th_app_dist(uint32_t rebalance_every);
/** Whether every rank stops before step `step` (0-based): rank 0's `stop` is broadcast every 16
 *  steps, so all ranks stop at the same step. */
bool th_app_stop(bool stop, uint64_t step);
/** Sum counters over ranks, in place. */
void th_app_sum_u32(uint32_t *v, uint32_t n);
/** The largest value over ranks. */
double th_app_max(double v);
/** Replace *v (this rank's agents) with every rank's, on rank 0, in rank order (one process's
 *  storage order); other ranks keep their own view. Collective. False when memory is short. */
bool th_app_gather_agents(th_agent_view *v);
/** Under several ranks, the "ranks" lines of the report: strips, ghosts, bytes exchanged per
 *  step, time in the exchanges (collective; rank 0 prints). `secs`: the run's stepping time. */
void th_app_dist_print(FILE *out, const th_world *w, double secs);
/** What the ranks of one run must agree on besides the world they built: the options that
 *  decide which collective calls the run makes and when, or how it ends. */
typedef struct th_app_terms {
    uint64_t steps;     /* the steps asked for (--steps, else the scene's) */
    uint64_t rebalance; /* --rebalance (0: the default) */
    bool fixed_steps, validate, fail_on_stall, json, trajectories;
    uint64_t trajectory_every;
    const void *events; /* the command line's bunker events: zero-initialised records, so that */
    size_t event_bytes; /* equal lists are equal bytes */
} th_app_terms;
/** Before the first step, on every rank (collective under several ranks): false with err set
 *  when the ranks built different worlds (th_world_dist_check compares their digests) or were
 *  given different `terms`, each rank then saying so on its own stderr as well; or when the
 *  world has too few grid rows for the ranks. */
bool th_app_dist_check(const th_world *w, const th_app_terms *terms, th_error *err);

#endif
