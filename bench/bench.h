/* The `throng bench` command. */
#ifndef TH_BENCH_H
#define TH_BENCH_H

#include "throng/throng.h"

/** Builds the world of one benchmark configuration: the scene named by --scene, with
 *  opts->agents agents (0 never occurs), opts->threads workers and opts->seed. Returns NULL
 *  with `err` filled when the scene is unknown or cannot be built. th_demo_create has this
 *  shape and serves the built-in demos. */
typedef th_world *th_bench_build_fn(const char *scene, const th_demo_opts *opts, th_error *err);

/** Run `throng bench` with the arguments after the command name, building every world through
 *  `build`; returns the exit code (0, 1 on a runtime failure, 2 on a usage error). */
int th_bench_run(int argc, char **argv, th_bench_build_fn *build);

#endif
