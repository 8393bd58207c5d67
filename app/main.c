/* The `throng` command line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench/bench.h"
#include "app.h"
#include "args.h"
#include "output.h"
#include "ranks.h"
#include "report.h"
#include "validate.h"
#include "verify.h"

static const char k_help[] =
    "usage: throng <command> [options]\n"
    "\n"
    "throng is a deterministic, multithreaded crowd simulation engine.\n"
    "\n"
    "commands:\n"
    "  run [SCENE]   run a scene and report what happened (who is sheltered, en route or\n"
    "                stranded, and when), throughput, phase times and the state hash\n"
    "                (see 'throng run --help')\n"
    "  replay FILE   run again a run recorded with 'throng run SCENE --record FILE', in the\n"
    "                viewer with a time slider or headless (see 'throng replay --help')\n"
    "  check SCENE.. validate scene files without running them\n"
    "  bench         measure agent throughput over agent and thread counts, against the\n"
    "                naive O(N^2) reference (see 'throng bench --help')\n"
    "  verify        run the verification tests of evacuation models (RiMEA, ISO 20414,\n"
    "                NIST TN 1822, IMO) and print the table (see 'throng verify --help')\n"
    "  validate      compare the model with published experiments (bottleneck flows, the\n"
    "                corridor's fundamental diagram, counterflow, a T-junction, a corner)\n"
    "                and print the table (see 'throng validate --help')\n"
    "\n"
    "options:\n"
    "  -h, --help    show this help\n"
    "  --version     show the version, commit, build type and compiler\n"
    "\n"
    "With no command, 'throng' shows this help. Exit codes: 0 success, 1 runtime failure,\n"
    "2 usage error (unknown command, flag or value), 130 interrupted (Ctrl-C).\n"
    "Every option takes the form --option VALUE or --option=VALUE.\n";

/* The map image of the scene open_for_bench opened last ("" for none), for check_bench_files. */
static char bench_map_image[2048];

/* `throng bench` worlds: a built-in demo by name first (the flock demo sizes its field to keep
 * ~20 neighbours per boid at any agent count, which a scaling sweep needs), else a scene as
 * `throng run` opens it (its crowds scaled to the agent count in the scene's own world). */
static th_world *open_for_bench(const char *scene, const th_demo_opts *d, th_error *err) {
    for (const char *const *n = th_demo_names; *n; n++) {
        if (strcmp(*n, scene) == 0) return th_demo_create(scene, d, err);
    }
    th_scene_open_opts so = {
        .threads = d->threads, .has_seed = true, .seed = d->seed, .agents = d->agents};
    th_scene_info info;
    th_world *w = th_scene_open(scene, &so, &info, err);
    if (w) snprintf(bench_map_image, sizeof bench_map_image, "%s", info.map_image);
    return w;
}

/* `throng bench`'s files, checked after the first world was built (so the scene's map image
 * is known) and before any is opened: each output writable, and none the scene file, its map
 * image or another output. */
static bool check_bench_files(const char *scene, const char *csv, const char *json,
                              const char *trace) {
    char scene_file[4096];
    bool demo = false;
    for (const char *const *n = th_demo_names; *n; n++) demo |= strcmp(*n, scene) == 0;
    th_file_use files[] = {
        {.name = "--scene", .note = "the scene file being measured"},
        {.name = "map.image", .note = "the scene's map image"},
        {.name = "--csv", .path = csv, .output = true},
        {.name = "--json", .path = json, .output = true},
        {.name = "--trace", .path = trace, .output = true},
    };
    if (!demo && th_scene_resolve(scene, scene_file, sizeof scene_file)) {
        files[0].path = scene_file;
        if (bench_map_image[0]) files[1].path = bench_map_image;
    }
    const size_t n = sizeof files / sizeof files[0];
    th_error err;
    for (size_t i = 0; i < n; i++) {
        if (files[i].output && files[i].path && !th_file_check_writable(&files[i], &err)) {
            fprintf(stderr, "throng bench: %s\n", err.message);
            return false;
        }
    }
    if (!th_file_check_distinct(files, n, &err)) {
        fprintf(stderr, "throng bench: %s\n", err.message);
        return false;
    }
    return true;
}

/* `throng bench` reads every option as `--name VALUE`; `--name=VALUE` is split into that form
 * here, so all three commands take both. */
static char **split_assignments(int argc, char **argv, int *out_argc) {
    char **v = malloc(sizeof *v * (size_t)(2 * argc + 1));
    if (!v) return NULL;
    int n = 0;
    for (int i = 0; i < argc; i++) {
        char *eq = strncmp(argv[i], "--", 2) == 0 ? strchr(argv[i], '=') : NULL;
        if (eq) {
            *eq = '\0';
            v[n++] = argv[i];
            v[n++] = eq + 1;
        } else {
            v[n++] = argv[i];
        }
    }
    v[n] = NULL;
    *out_argc = n;
    return v;
}

/* The command, started once per rank under mpirun. */
static int command(int argc, char **argv) {
    if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
        char line[512];
        th_build_describe(line, sizeof line);
        puts(line);
        return 0;
    }
    if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        fputs(k_help, argc < 2 ? stderr : stdout);
        return argc < 2 ? TH_EXIT_USAGE : 0;
    }
    if (strcmp(argv[1], "run") == 0) return th_cmd_run(argc - 2, argv + 2);
    if (strcmp(argv[1], "check") == 0) return th_cmd_check(argc - 2, argv + 2);
    if (strcmp(argv[1], "replay") == 0) return th_cmd_replay(argc - 2, argv + 2);
    if (strcmp(argv[1], "verify") == 0) return th_cmd_verify(argc - 2, argv + 2);
    if (strcmp(argv[1], "validate") == 0) return th_cmd_validate(argc - 2, argv + 2);
    if (strcmp(argv[1], "bench") == 0) {
        int n = 0;
        char **v = split_assignments(argc - 2, argv + 2, &n);
        if (!v) return 1;
        int rc = th_bench_run(n, v, open_for_bench, check_bench_files);
        free(v);
        return rc;
    }
    fprintf(stderr, "throng: unknown command '%s' (see 'throng --help')\n", argv[1]);
    return TH_EXIT_USAGE;
}

int main(int argc, char **argv) {
    /* Lines reach a pipe as they are printed (`throng run | tee log`), not at exit. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (!th_app_ranks_init(&argc, &argv)) return 1;
    return th_app_ranks_end(command(argc, argv));
}
