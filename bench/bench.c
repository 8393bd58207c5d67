/* `throng bench`: agent throughput over a sweep of agent and thread counts.
 *
 * Each configuration builds the scene afresh, runs warm-up steps (untimed: the first steps pay
 * for page faults and for the initial uniform spread turning into flocks), then `reps` timed
 * runs of `steps` steps. Figures are medians over the repetitions, with the min-max spread.
 * Speed-ups against 1 thread and against the naive O(N^2) reference are measured in the same
 * process run, so they compare like with like on a shared, noisy machine. */
#include "bench.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../app/args.h"
#include "../engine/jobs.h"
#include "../engine/profile.h"
#include "../sim/throng.h"
#include "../tests/ref_boids.h"

#define MAX_LIST 16
#define MAX_REPS 99

typedef struct bench_opts {
    const char *scene;
    uint32_t agents[MAX_LIST], n_agents;
    uint32_t threads[MAX_LIST], n_threads;
    uint64_t steps, warmup, reps, naive_max, seed;
    const char *csv;
} bench_opts;

typedef struct result {
    uint32_t agents, threads;
    double rate[MAX_REPS]; /* agent-steps/s of each repetition */
    double median, lo, hi;
    double phase_ms[TH_PHASE_COUNT];
    double neighbors;
    double speedup; /* against 1 thread, same agents; 0 when 1 thread was not measured */
} result;

static const char k_help[] =
    "usage: throng bench [options]\n"
    "\n"
    "Measure agent throughput of a scene over a sweep of agent and thread counts, and the\n"
    "speed-up over the naive O(N^2) reference at the smaller sizes, in one run.\n"
    "\n"
    "options:\n"
    "  --scene NAME       built-in demo to run (default flock)\n"
    "  --agents LIST      comma-separated agent counts (default 10000,100000)\n"
    "  --threads LIST     comma-separated thread counts (default 1,2)\n"
    "  --steps N          timed steps per repetition (default 100)\n"
    "  --warmup N         untimed steps before timing (default 20)\n"
    "  --reps N           repetitions, 1..99; figures are medians (default 3)\n"
    "  --naive-max N      run the naive reference for agent counts up to N (default 10000,\n"
    "                     0 disables it)\n"
    "  --seed S           random seed (default 1)\n"
    "  --csv FILE         also write the results as CSV\n"
    "  -h, --help         show this help\n";

static bool parse_list(const char *flag, const char *text, uint64_t lo, uint64_t hi,
                       uint32_t *out, uint32_t *n) {
    char buf[256];
    if (strlen(text) >= sizeof buf) {
        fprintf(stderr, "throng bench: %s: list too long\n", flag);
        return false;
    }
    strcpy(buf, text);
    *n = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        uint64_t v;
        if (*n == MAX_LIST) {
            fprintf(stderr, "throng bench: %s: at most %d values\n", flag, MAX_LIST);
            return false;
        }
        if (!th_arg_u64(flag, tok, lo, hi, &v)) return false;
        out[(*n)++] = (uint32_t)v;
    }
    if (*n == 0) {
        fprintf(stderr, "throng bench: %s: expected a comma-separated list, got '%s'\n", flag, text);
        return false;
    }
    return true;
}

static int parse(int argc, char **argv, bench_opts *o) {
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(k_help, stdout);
            return 0;
        }
        if (strncmp(a, "--", 2) != 0) {
            fprintf(stderr, "throng bench: unexpected argument '%s' (see 'throng bench --help')\n", a);
            return TH_EXIT_USAGE;
        }
        bool known = strcmp(a, "--scene") == 0 || strcmp(a, "--agents") == 0 ||
                     strcmp(a, "--threads") == 0 || strcmp(a, "--steps") == 0 ||
                     strcmp(a, "--warmup") == 0 || strcmp(a, "--reps") == 0 ||
                     strcmp(a, "--naive-max") == 0 || strcmp(a, "--seed") == 0 ||
                     strcmp(a, "--csv") == 0;
        if (!known) {
            fprintf(stderr, "throng bench: unknown option '%s' (see 'throng bench --help')\n", a);
            return TH_EXIT_USAGE;
        }
        if (!(v = th_arg_value(argc, argv, &i))) return TH_EXIT_USAGE;
        bool ok = true;
        if (strcmp(a, "--scene") == 0) o->scene = v;
        else if (strcmp(a, "--csv") == 0) o->csv = v;
        else if (strcmp(a, "--agents") == 0)
            ok = parse_list(a, v, 1, TH_MAX_AGENTS, o->agents, &o->n_agents);
        else if (strcmp(a, "--threads") == 0)
            ok = parse_list(a, v, 1, TH_MAX_THREADS, o->threads, &o->n_threads);
        else if (strcmp(a, "--steps") == 0) ok = th_arg_u64(a, v, 1, 1000000, &o->steps);
        else if (strcmp(a, "--warmup") == 0) ok = th_arg_u64(a, v, 0, 1000000, &o->warmup);
        else if (strcmp(a, "--reps") == 0) ok = th_arg_u64(a, v, 1, MAX_REPS, &o->reps);
        else if (strcmp(a, "--naive-max") == 0) ok = th_arg_u64(a, v, 0, 200000, &o->naive_max);
        else if (strcmp(a, "--seed") == 0) ok = th_arg_u64(a, v, 0, UINT64_MAX, &o->seed);
        if (!ok) return TH_EXIT_USAGE;
    }
    return -1;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static th_world *build(const bench_opts *o, uint32_t agents, uint32_t threads) {
    th_demo_opts d = {.agents = agents, .seed = o->seed, .threads = threads};
    th_error err;
    th_world *w = th_demo_create(o->scene, &d, &err);
    if (!w) fprintf(stderr, "throng bench: %s\n", err.message);
    return w;
}

static bool measure(const bench_opts *o, uint32_t agents, uint32_t threads, result *r) {
    memset(r, 0, sizeof *r);
    r->agents = agents;
    r->threads = threads;
    for (uint64_t rep = 0; rep < o->reps; rep++) {
        th_world *w = build(o, agents, threads);
        if (!w) return false;
        for (uint64_t s = 0; s < o->warmup; s++) th_world_step(w);
        th_world_reset_profile(w);
        uint64_t t0 = th_now_ns();
        for (uint64_t s = 0; s < o->steps; s++) th_world_step(w);
        double secs = (double)(th_now_ns() - t0) * 1e-9;
        r->rate[rep] = (double)agents * (double)o->steps / secs;
        /* Phase times and neighbour counts of the last repetition: they vary far less than
         * the total, which is what the median is for. */
        for (int p = 0; p < TH_PHASE_COUNT; p++) r->phase_ms[p] = th_world_phase_ms(w, (th_phase)p);
        r->neighbors = th_world_get_stats(w).mean_neighbors;
        th_world_destroy(w);
    }
    double sorted[MAX_REPS];
    memcpy(sorted, r->rate, o->reps * sizeof(double));
    qsort(sorted, o->reps, sizeof(double), cmp_double);
    r->lo = sorted[0];
    r->hi = sorted[o->reps - 1];
    r->median = o->reps % 2 ? sorted[o->reps / 2]
                            : 0.5 * (sorted[o->reps / 2 - 1] + sorted[o->reps / 2]);
    return true;
}

/* Agent-steps/s of the naive reference on the same scene's state after warm-up, 1 thread. */
static double measure_naive(const bench_opts *o, uint32_t agents) {
    th_world *w = build(o, agents, 1);
    if (!w) return 0.0;
    for (uint64_t s = 0; s < o->warmup; s++) th_world_step(w);
    th_agent_view v = th_world_agents(w);
    uint32_t n = v.count;
    float *buf = malloc((size_t)n * 6 * sizeof(float));
    uint16_t *crowd = malloc((size_t)n * sizeof(uint16_t));
    ref_crowd rc[TH_MAX_CROWDS];
    uint32_t nc = th_world_crowd_count(w);
    for (uint32_t c = 0; c < nc; c++) {
        const th_crowd_def *d = th_world_crowd(w, c);
        rc[c] = (ref_crowd){d->neighbor_radius, d->separation_radius, d->fov_deg,
                            d->separation_weight, d->alignment_weight, d->cohesion_weight,
                            d->max_speed, d->max_force};
    }
    float *px = buf, *py = buf + n, *vx = buf + 2 * n, *vy = buf + 3 * n;
    memcpy(px, v.px, n * sizeof(float));
    memcpy(py, v.py, n * sizeof(float));
    memcpy(vx, v.vx, n * sizeof(float));
    memcpy(vy, v.vy, n * sizeof(float));
    memcpy(crowd, v.crowd, n * sizeof(uint16_t));
    th_world_def def = th_world_get_def(w);
    ref_world rw = {def.width, def.height, def.bounds == TH_BOUNDS_WRAP, rc};
    /* O(N^2) per step: a few steps give a stable figure without dominating the run. */
    uint64_t steps = o->steps < 3 ? o->steps : 3;
    uint64_t t0 = th_now_ns();
    for (uint64_t s = 0; s < steps; s++) {
        ref_boids_step(&rw, def.timestep, n, px, py, vx, vy, crowd, buf + 4 * n, buf + 5 * n);
    }
    double secs = (double)(th_now_ns() - t0) * 1e-9;
    free(buf);
    free(crowd);
    th_world_destroy(w);
    return (double)n * (double)steps / secs;
}

int th_cmd_bench(int argc, char **argv) {
    bench_opts o = {.scene = "flock",
                    .agents = {10000, 100000},
                    .n_agents = 2,
                    .threads = {1, 2},
                    .n_threads = 2,
                    .steps = 100,
                    .warmup = 20,
                    .reps = 3,
                    .naive_max = 10000,
                    .seed = 1};
    int rc = parse(argc, argv, &o);
    if (rc >= 0) return rc;

    FILE *csv = NULL;
    if (o.csv) {
        csv = fopen(o.csv, "w");
        if (!csv) {
            fprintf(stderr, "throng bench: cannot write '%s'\n", o.csv);
            return 1;
        }
        fprintf(csv, "scene,agents,threads,steps,reps,agent_steps_per_s,min,max,ns_per_agent_step,"
                     "speedup,neighbors");
        for (int p = 0; p < TH_PHASE_COUNT; p++) fprintf(csv, ",%s_ms", th_phase_name((th_phase)p));
        fprintf(csv, "\n");
    }

    printf("scene %s, %" PRIu64 " steps after %" PRIu64 " warm-up, median of %" PRIu64
           " runs, %u cores\n\n",
           o.scene, o.steps, o.warmup, o.reps, (unsigned)th_cpu_count());
    printf("%9s %7s %14s %19s %8s %8s %7s  ms/step:", "agents", "threads", "agent-steps/s",
           "(min-max)", "ns/a-s", "speedup", "nbrs");
    for (int p = 0; p < TH_PHASE_COUNT; p++) printf(" %s", th_phase_name((th_phase)p));
    printf("\n");

    int status = 0;
    for (uint32_t ai = 0; ai < o.n_agents && status == 0; ai++) {
        double one_thread = 0.0;
        for (uint32_t ti = 0; ti < o.n_threads; ti++) {
            result r;
            if (!measure(&o, o.agents[ai], o.threads[ti], &r)) {
                status = TH_EXIT_USAGE;
                break;
            }
            if (r.threads == 1) one_thread = r.median;
            r.speedup = one_thread > 0.0 ? r.median / one_thread : 0.0;
            printf("%9u %7u %14.0f %9.2e-%-9.2e %8.1f ", r.agents, r.threads, r.median, r.lo, r.hi,
                   1e9 / r.median);
            if (r.speedup > 0.0) printf("%7.2fx", r.speedup);
            else printf("%8s", "-");
            printf(" %7.1f          ", r.neighbors);
            for (int p = 0; p < TH_PHASE_COUNT; p++) printf(" %.3f", r.phase_ms[p]);
            printf("\n");
            fflush(stdout);
            if (csv) {
                fprintf(csv, "%s,%u,%u,%" PRIu64 ",%" PRIu64 ",%.0f,%.0f,%.0f,%.2f,%.3f,%.2f",
                        o.scene, r.agents, r.threads, o.steps, o.reps, r.median, r.lo, r.hi,
                        1e9 / r.median, r.speedup, r.neighbors);
                for (int p = 0; p < TH_PHASE_COUNT; p++) fprintf(csv, ",%.4f", r.phase_ms[p]);
                fprintf(csv, "\n");
            }
            if (ti + 1 == o.n_threads && o.agents[ai] <= o.naive_max) {
                /* Against the best grid figure of this agent count. */
                double naive = measure_naive(&o, o.agents[ai]);
                double best_1t = one_thread > 0.0 ? one_thread : r.median;
                printf("%9u %7u %14.0f   naive O(N^2) reference, 1 thread: grid is %.0fx faster "
                       "on 1 thread\n",
                       o.agents[ai], 1u, naive, naive > 0.0 ? best_1t / naive : 0.0);
            }
        }
    }
    if (csv) fclose(csv);
    return status;
}
