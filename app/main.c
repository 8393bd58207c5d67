/* The `throng` command line. */
#include <stdio.h>
#include <string.h>

#include "../bench/bench.h"
#include "app.h"
#include "args.h"

static const char k_help[] =
    "usage: throng <command> [options]\n"
    "\n"
    "throng is a deterministic, multithreaded crowd simulation engine.\n"
    "\n"
    "commands:\n"
    "  run [SCENE]   run a scene and report throughput, phase times and the state hash\n"
    "                (see 'throng run --help')\n"
    "  check SCENE.. validate scene files without running them\n"
    "  bench         measure agent throughput over agent and thread counts, against the\n"
    "                naive O(N^2) reference (see 'throng bench --help')\n"
    "\n"
    "options:\n"
    "  -h, --help    show this help\n"
    "\n"
    "With no command, 'throng' shows this help. Exit codes: 0 success, 1 runtime failure,\n"
    "2 usage error (unknown command, flag or value).\n";

/* `throng bench` worlds: a built-in demo by name first (the flock demo sizes its field to keep
 * ~20 neighbours per boid at any agent count, which a scaling sweep needs), else a scene as
 * `throng run` opens it (its crowds scaled to the agent count in the scene's own world). */
static th_world *open_for_bench(const char *scene, const th_demo_opts *d, th_error *err) {
    for (const char *const *n = th_demo_names; *n; n++) {
        if (strcmp(*n, scene) == 0) return th_demo_create(scene, d, err);
    }
    th_scene_open_opts so = {.threads = d->threads, .has_seed = true, .seed = d->seed,
                             .agents = d->agents};
    return th_scene_open(scene, &so, NULL, err);
}

int main(int argc, char **argv) {
    if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        fputs(k_help, argc < 2 ? stderr : stdout);
        return argc < 2 ? TH_EXIT_USAGE : 0;
    }
    if (strcmp(argv[1], "run") == 0) return th_cmd_run(argc - 2, argv + 2);
    if (strcmp(argv[1], "check") == 0) return th_cmd_check(argc - 2, argv + 2);
    if (strcmp(argv[1], "bench") == 0) return th_bench_run(argc - 2, argv + 2, open_for_bench);
    fprintf(stderr, "throng: unknown command '%s' (see 'throng --help')\n", argv[1]);
    return TH_EXIT_USAGE;
}
