/* The `throng bench` command. */
#ifndef TH_BENCH_H
#define TH_BENCH_H

#include <stdbool.h>

#include "throng/throng.h"

/** Builds the world of one benchmark configuration: the scene named by --scene, with
 *  opts->agents agents (0 never occurs), opts->threads workers and opts->seed. Returns NULL
 *  with `err` filled when the scene is unknown or cannot be built. th_demo_create has this
 *  shape and serves the built-in demos. */
typedef th_world *th_bench_build_fn(const char *scene, const th_demo_opts *opts, th_error *err);

/** Checks, before any measurement and after `build` made the first world, the files a sweep
 *  reads and writes: scene `scene` and the outputs `csv`, `json`, `trace` (NULL where not
 *  asked for). False after saying why on stderr: a usage error. */
typedef bool th_bench_files_fn(const char *scene, const char *csv, const char *json,
                               const char *trace);

/** Run `throng bench` with the arguments after the command name, building every world through
 *  `build` and checking its files through `files` (may be NULL); returns the exit code (0, 1 on
 *  a runtime failure, 2 on a usage error). */
int th_bench_run(int argc, char **argv, th_bench_build_fn *build, th_bench_files_fn *files);

#endif
