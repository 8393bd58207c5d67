/* throng's side of bench/peers/jupedsim/run.sh: load a scene file (or build a built-in demo,
 * as `throng bench --scene` does), step it on one thread and time the stepping alone by the
 * process's CPU time, as bench.cc times JuPedSim.
 *
 * Usage: throng_room SCENE.yaml|DEMO [warmup=20] [steps=100] [agents]
 * DEMO is flock, evac or pedestrians (seed 1, `agents` agents, the demo's default without);
 * a scene file takes `agents` as `throng run --agents` does (scaled in the scene's world).
 * Prints one line (the fields of bench.cc's, then the state hash):
 *   RESULT N dt steps agent_steps cpu_s Mrate mean_alive wall_s hash
 * N is the agent count after loading, cpu_s the process's CPU time (user + sys,
 * CLOCK_PROCESS_CPUTIME_ID) over the timed steps, Mrate the agent-steps done in them (agents
 * present before each step, summed) per CPU second, in millions. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <throng/throng.h>

static double now(clockid_t clk) {
    struct timespec ts;
    clock_gettime(clk, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: throng_room SCENE.yaml|DEMO [warmup=20] [steps=100] [agents]\n");
        return 2;
    }
    int warmup = argc > 2 ? atoi(argv[2]) : 20;
    int steps = argc > 3 ? atoi(argv[3]) : 100;
    if (warmup < 0 || steps < 1) {
        fprintf(stderr, "throng_room: bad arguments\n");
        return 2;
    }
    uint32_t agents = argc > 4 ? (uint32_t)strtoul(argv[4], NULL, 10) : 0;
    bool demo = false;
    for (const char *const *d = th_demo_names; *d; d++) demo = demo || strcmp(*d, argv[1]) == 0;
    th_error err;
    th_world *w;
    if (demo) {
        th_demo_opts d = {.agents = agents, .seed = 1, .threads = 1};
        w = th_demo_create(argv[1], &d, &err);
    } else {
        th_scene_opts so = {.threads = 1, .agents = agents};
        w = th_scene_load(argv[1], &so, NULL, &err);
    }
    if (!w) {
        fprintf(stderr, "throng_room: %s: %s\n", argv[1], err.message);
        return 1;
    }
    uint32_t n = th_world_agent_count(w);
    for (int s = 0; s < warmup; s++) th_world_step(w);
    uint64_t agent_steps = 0;
    double c0 = now(CLOCK_PROCESS_CPUTIME_ID), w0 = now(CLOCK_MONOTONIC);
    for (int s = 0; s < steps; s++) {
        agent_steps += th_world_agent_count(w);
        th_world_step(w);
    }
    double cpu = now(CLOCK_PROCESS_CPUTIME_ID) - c0, wall = now(CLOCK_MONOTONIC) - w0;
    printf("RESULT %" PRIu32 " %g %d %" PRIu64 " %.6f %.4f %.1f %.6f 0x%016" PRIx64 "\n", n,
           (double)th_world_get_def(w).timestep, steps, agent_steps, cpu, (double)agent_steps / cpu * 1e-6,
           (double)agent_steps / steps, wall, th_world_hash(w));
    th_world_destroy(w);
    return 0;
}
