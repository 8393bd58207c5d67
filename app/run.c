/* `throng run`: run a scene headless and print a summary. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../engine/profile.h"
#include "../sim/throng.h"
#include "app.h"
#include "args.h"

static const char k_run_help[] =
    "usage: throng run [SCENE] [options]\n"
    "\n"
    "Run SCENE and print a summary: agents, steps, wall time, throughput in agent-steps/s,\n"
    "milliseconds per step in each phase, and the final state hash.\n"
    "\n"
    "SCENE is a built-in demo: flock (default). Runs are headless.\n"
    "\n"
    "options:\n"
    "  --steps N     steps to simulate (default 600; 0 only builds the scene)\n"
    "  --threads T   worker threads, 1..64 (default: number of cores)\n"
    "  --seed S      random seed keying every random draw (default 1)\n"
    "  --agents N    agent count for demos that take one (flock: default 10000)\n"
    "  --headless    run without a viewer\n"
    "  -h, --help    show this help\n";

typedef struct run_opts {
    const char *scene;
    uint64_t steps, threads, seed, agents;
} run_opts;

static int parse(int argc, char **argv, run_opts *o) {
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *v;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(k_run_help, stdout);
            return 0;
        } else if (strcmp(a, "--headless") == 0) {
            continue;
        } else if (strcmp(a, "--steps") == 0) {
            if (!(v = th_arg_value(argc, argv, &i)) ||
                !th_arg_u64(a, v, 0, 1000000000ull, &o->steps))
                return TH_EXIT_USAGE;
        } else if (strcmp(a, "--threads") == 0) {
            if (!(v = th_arg_value(argc, argv, &i)) || !th_arg_u64(a, v, 1, TH_MAX_THREADS, &o->threads))
                return TH_EXIT_USAGE;
        } else if (strcmp(a, "--seed") == 0) {
            if (!(v = th_arg_value(argc, argv, &i)) || !th_arg_u64(a, v, 0, UINT64_MAX, &o->seed))
                return TH_EXIT_USAGE;
        } else if (strcmp(a, "--agents") == 0) {
            if (!(v = th_arg_value(argc, argv, &i)) || !th_arg_u64(a, v, 1, TH_MAX_AGENTS, &o->agents))
                return TH_EXIT_USAGE;
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "throng run: unknown option '%s' (see 'throng run --help')\n", a);
            return TH_EXIT_USAGE;
        } else if (o->scene) {
            fprintf(stderr, "throng run: one scene at a time, got '%s' and '%s'\n", o->scene, a);
            return TH_EXIT_USAGE;
        } else {
            o->scene = a;
        }
    }
    return -1;
}

int th_cmd_run(int argc, char **argv) {
    run_opts o = {.scene = NULL, .steps = 600, .threads = 0, .seed = 1, .agents = 0};
    int rc = parse(argc, argv, &o);
    if (rc >= 0) return rc;
    if (!o.scene) o.scene = "flock";

    th_error err = {{0}};
    th_demo_opts demo = {.agents = (uint32_t)o.agents, .seed = o.seed, .threads = (uint32_t)o.threads};
    th_world *w = th_demo_create(o.scene, &demo, &err);
    if (!w) {
        fprintf(stderr, "throng run: %s\n", err.message);
        return TH_EXIT_USAGE;
    }
    th_world_def def = th_world_get_def(w);
    printf("scene     %s: %u agents, %u crowd(s), %.0f x %.0f m, %s edges\n", o.scene,
           th_world_agent_count(w), th_world_crowd_count(w), (double)def.width,
           (double)def.height, def.bounds == TH_BOUNDS_WRAP ? "wrap-around" : "walled");
    printf("run       %" PRIu64 " steps of %.4f s, %u thread(s), seed %" PRIu64 "\n", o.steps,
           (double)def.timestep, def.threads, def.seed);

    uint64_t t0 = th_now_ns();
    for (uint64_t s = 0; s < o.steps; s++) th_world_step(w);
    double secs = (double)(th_now_ns() - t0) * 1e-9;

    double agent_steps = (double)th_world_agent_count(w) * (double)o.steps;
    th_world_stats st = th_world_get_stats(w);
    printf("wall      %.3f s\n", secs);
    printf("speed     %.0f agent-steps/s\n", secs > 0.0 ? agent_steps / secs : 0.0);
    printf("neighbors %.1f per agent seen, %.1f inspected\n", st.mean_neighbors,
           st.mean_candidates);
    printf("phases    ms/step:");
    for (int p = 0; p < TH_PHASE_COUNT; p++) {
        printf(" %s %.3f", th_phase_name((th_phase)p), th_world_phase_ms(w, (th_phase)p));
    }
    printf("\nhash 0x%016" PRIx64 "\n", th_world_hash(w));
    th_world_destroy(w);
    return 0;
}
