/* `throng run --results DIR`: what an engineer puts in a report, gathered while the run steps
 * and written at its end (docs/results.md): flows and queues at every exit, bunker, stair and
 * measurement line over time, the evacuation curve, a table of every occupant, time-averaged
 * and maximum density maps and Fruin's level of service per level, and a page that gathers
 * them. Read from the world through the public API after each step: nothing in the simulation
 * changes (the state hash is the same with or without it). */
#ifndef TH_APP_RESULTS_H
#define TH_APP_RESULTS_H

#include <stdbool.h>
#include <stdint.h>

#include "output.h"
#include "report.h"
#include "throng/throng.h"

/* Below this speed (m/s) a walker that has started is waiting, not walking: its queuing time
 * grows, and it counts in the queue of the place nearest to it (within TH_RESULTS_QUEUE_REACH
 * metres on its level). The first step at or above it is when it started moving. */
#define TH_RESULTS_SLOW         0.3f
#define TH_RESULTS_QUEUE_REACH  5.0f
/* Seconds between rows of flows.csv and evacuation.csv, over which flows are averaged. */
#define TH_RESULTS_ROW_S        1.0
/* Seconds between density samples. */
#define TH_RESULTS_DENSITY_S    0.5
/* Side of a density cell, at least (metres): whole map cells, the fewest that reach it. */
#define TH_RESULTS_DENSITY_CELL 1.0f

typedef struct th_results th_results;

/** Check that `dir` can hold the results: a folder, or a name in a folder this user may write
 *  into (th_results_start makes it). False with `err` filled. */
bool th_results_check_dir(const char *dir, th_error *err);

/** Whether none of the files the results are written to in `dir` is one of `use` (the run's
 *  other files, inputs and outputs) or of `in` (the files the scene reads): a scene or map
 *  image called flows.csv in that folder is never written over. False with `err` filled. */
bool th_results_check_files(const char *dir, const th_file_use *use, size_t n,
                            const th_file_inputs *in, th_error *err);

/** Start gathering for world `w` (built, before its first step), writing into `dir` (made
 *  when missing). NULL with `err` filled when memory is short or the folder cannot be made. */
th_results *th_results_start(const th_world *w, const char *dir, th_error *err);

/** After each step. False with `err` filled when memory is short. */
bool th_results_step(th_results *r, const th_world *w, th_error *err);

/** Write every file (the run's facts come from the report's). False with `err` naming the file
 *  that could not be written. */
bool th_results_write(th_results *r, const th_world *w, const th_run_facts *facts, uint64_t seed,
                      uint32_t threads, th_error *err);

void th_results_free(th_results *r);

#endif
