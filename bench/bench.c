/* `throng bench`: agent throughput over a sweep of agent and thread counts.
 *
 * Each configuration builds the scene afresh, runs warm-up steps (untimed: the first steps pay
 * for page faults and for the initial uniform spread turning into flocks), then `reps` timed
 * runs of `steps` steps. Figures are medians over the repetitions, with the min-max spread.
 * Speed-ups against 1 thread, against the naive O(N^2) reference and against the plain scalar
 * grid reference (tests/ref_grid_boids.c, the fair baseline: what simple single-threaded code
 * with a uniform grid achieves) are measured in the same process run, so they compare like
 * with like on a shared, noisy machine.
 *
 * Memory is counted through the engine's allocation hook: the bench installs a wrapper that
 * keeps the live and peak bytes the engine has asked for, and resets the peak before each
 * world is built. That gives each configuration its own footprint in any order. The process's
 * VmHWM was the rejected alternative: it never goes down, so after a 1M-agent run every smaller
 * configuration would report the 1M figure (or the sweep would have to run in increasing size
 * order and still carry the bench's own and earlier runs' memory). VmHWM is reported once, for
 * the whole run. */
#include "bench.h"

#include "app/report.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/args.h"
#include "app/output.h"
#include "app/progress.h"
#include "engine/alloc.h"
#include "engine/jobs.h"
#include "engine/profile.h"
#include "sim/behave/boids.h"
#include "tests/ref_boids.h"
#include "tests/ref_grid_boids.h"
#include "trace.h"

#define MAX_LIST        16
#define MAX_REPS        99
/* Spans a --trace recording may hold (32 bytes each): 4M spans, 128 MiB. */
#define MAX_TRACE_SPANS (1u << 22)

typedef struct bench_opts {
    const char *scene;
    uint32_t agents[MAX_LIST], n_agents;
    uint32_t threads[MAX_LIST], n_threads;
    uint64_t steps, warmup, reps, naive_max, grid_ref_max, seed, contend;
    const char *isa;
    const char *csv, *json, *trace;
    th_bench_build_fn *build;
    th_bench_files_fn *files;
} bench_opts;

/* One configuration: per-repetition samples and their summary. */
typedef struct row {
    uint32_t agents, threads;
    double rate[MAX_REPS];                  /* agent-steps/s of each repetition */
    double wall[MAX_REPS];                  /* seconds of the timed steps of each repetition */
    double phase[MAX_REPS][TH_PHASE_COUNT]; /* ms/step of each phase, each repetition */
    double rate_med, rate_min, rate_max, wall_med;
    double phase_med[TH_PHASE_COUNT];
    double alive;         /* mean agents alive over the timed steps, last repetition */
    double neighbors;     /* same-crowd neighbours per agent, last step of the last repetition */
    uint64_t peak_bytes;  /* most engine heap bytes live at once, largest over repetitions */
    uint64_t hash;        /* state hash after warm-up and timed steps, last repetition */
    double speedup;       /* against 1 thread, same agents; NAN when 1 thread was not measured */
    double naive_rate;    /* naive reference agent-steps/s at these agents; NAN when not run */
    double grid_ref_rate; /* scalar grid reference agent-steps/s; NAN when not run */
} row;

static const char k_help[] =
    "usage: throng bench [options]\n"
    "\n"
    "Measure agent throughput of a scene over a sweep of agent and thread counts, and the\n"
    "speed-up over the naive O(N^2) reference at the smaller sizes, in one run.\n"
    "\n"
    "options:\n"
    "  --scene NAME       a built-in demo, flock (default: its field grows with the agents to\n"
    "                     keep ~20 neighbours each) or evac, or a scene file or library name\n"
    "                     (its crowds scaled to each agent count in the scene's own world)\n"
    "  --agents LIST      comma-separated agent counts (default 10000,100000)\n"
    "  --threads LIST     comma-separated thread counts, 1..64; counts above the number of\n"
    "                     cores show oversubscription (default 1,2)\n"
    "  --steps N          timed steps per repetition (default 100)\n"
    "  --warmup N         untimed steps before timing (default 20)\n"
    "  --reps N           repetitions, 1..99; figures are medians (default 3)\n"
    "  --naive-max N      run the naive reference for agent counts up to N (default 10000,\n"
    "                     0 disables it)\n"
    "  --grid-ref-max N   run the plain scalar grid reference (1 thread) for agent counts up\n"
    "                     to N (default 1000000, 0 disables it); the engine's 1-thread\n"
    "                     figure is reported against it\n"
    "  --isa NAME         boids kernel copy: auto (default), baseline, x86-64-v3, x86-64-v4\n"
    "  --contend N        N busy threads spin for the whole run, as other programs holding N\n"
    "                     cores would (0..64, default 0): whether more workers than free\n"
    "                     cores still run at least as fast as fewer\n"
    "  --seed S           random seed (default 1)\n"
    "  --csv FILE         also write one row per configuration as CSV\n"
    "  --json FILE        also write the run and its rows as JSON\n"
    "  --trace FILE       record one extra, untimed run of the last configuration (last agent\n"
    "                     count, last thread count) as a Chrome trace (Perfetto,\n"
    "                     chrome://tracing): a track per worker, a span per phase per step\n"
    "  -h, --help         show this help\n"
    "\n"
    "Columns: agent-steps/s in millions (median, min and max of the runs); ns per agent-step;\n"
    "speed-up and efficiency (speed-up / threads) against 1 thread at the same agent count;\n"
    "neighbours seen per agent; peak engine heap in MiB and bytes per agent (counted through\n"
    "the allocation hook, per configuration); mean ms per step of each phase.\n"
    "\n"
    "Exit code: 0 done, 1 runtime failure, 2 usage error, 128 + the signal when SIGINT,\n"
    "SIGTERM or SIGHUP stopped it (at the next step: the configurations measured so far are\n"
    "printed, and no --csv, --json or --trace file is written).\n";

/* ---- memory: a size-tracking allocation hook ---------------------------------------------- */

/* Each block carries its size in a header of one cache line, so the block itself keeps the
 * 64-byte alignment the hook promises. Counters are atomic: worker threads free their own
 * start-up blocks. */
enum { MEM_HEADER = 64 };

static atomic_uint_fast64_t g_mem_live, g_mem_peak;

static void *track_alloc(size_t size, void *user) {
    (void)user;
    size_t rounded = (size + 63u) & ~(size_t)63u;
    if (rounded < size || rounded > SIZE_MAX - MEM_HEADER) return NULL;
    unsigned char *p = aligned_alloc(64, rounded + MEM_HEADER);
    if (!p) return NULL;
    memcpy(p, &size, sizeof size);
    uint_fast64_t live = atomic_fetch_add(&g_mem_live, size) + size;
    uint_fast64_t peak = atomic_load(&g_mem_peak);
    while (live > peak && !atomic_compare_exchange_weak(&g_mem_peak, &peak, live)) {}
    return p + MEM_HEADER;
}

static void track_free(void *ptr, void *user) {
    (void)user;
    if (!ptr) return;
    unsigned char *p = (unsigned char *)ptr - MEM_HEADER;
    size_t size;
    memcpy(&size, p, sizeof size);
    atomic_fetch_sub(&g_mem_live, size);
    free(p);
}

static void mem_reset_peak(void) { atomic_store(&g_mem_peak, atomic_load(&g_mem_live)); }

/* The process's peak resident set (VmHWM) in bytes, 0 when /proc is not there. */
static uint64_t process_hwm(void) {
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return 0;
    char line[256];
    unsigned long long kb = 0;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "VmHWM: %llu kB", &kb) == 1) break;
    }
    fclose(f);
    return (uint64_t)kb * 1024u;
}

/* ---- arguments ------------------------------------------------------------------------------ */

static bool parse_list(const char *flag, const char *text, uint64_t lo, uint64_t hi, uint32_t *out,
                       uint32_t *n) {
    char buf[256];
    if (strlen(text) >= sizeof buf) {
        fprintf(stderr, "throng bench: %s: list too long\n", flag);
        return false;
    }
    strcpy(buf, text);
    *n = 0;
    /* strtok_r would skip empty items ("1,,2"), which are typos worth reporting. */
    for (char *tok = buf;;) {
        char *comma = strchr(tok, ',');
        if (comma) *comma = '\0';
        uint64_t v;
        if (*n == MAX_LIST) {
            fprintf(stderr, "throng bench: %s: at most %d values\n", flag, MAX_LIST);
            return false;
        }
        if (!th_arg_u64(flag, tok, lo, hi, &v)) return false;
        out[(*n)++] = (uint32_t)v;
        if (!comma) break;
        tok = comma + 1;
    }
    return true;
}

static int parse(int argc, char **argv, bench_opts *o) {
    static const char *const k_flags[] = {"--scene",  "--agents",  "--threads",   "--steps",
                                          "--warmup", "--reps",    "--naive-max", "--seed",
                                          "--csv",    "--json",    "--trace",     "--grid-ref-max",
                                          "--isa",    "--contend", NULL};
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(k_help, stdout);
            return 0;
        }
        bool known = false;
        for (int f = 0; k_flags[f]; f++) known = known || strcmp(a, k_flags[f]) == 0;
        if (!known) {
            fprintf(stderr, "throng bench: %s '%s' (see 'throng bench --help')\n",
                    strncmp(a, "--", 2) == 0 ? "unknown option" : "unexpected argument", a);
            return TH_EXIT_USAGE;
        }
        if (!(v = th_arg_value(argc, argv, &i))) return TH_EXIT_USAGE;
        bool ok = true;
        if (strcmp(a, "--scene") == 0) o->scene = v;
        else if (strcmp(a, "--csv") == 0) o->csv = v;
        else if (strcmp(a, "--json") == 0) o->json = v;
        else if (strcmp(a, "--trace") == 0) o->trace = v;
        else if (strcmp(a, "--agents") == 0)
            ok = parse_list(a, v, 1, TH_MAX_AGENTS, o->agents, &o->n_agents);
        else if (strcmp(a, "--threads") == 0)
            ok = parse_list(a, v, 1, TH_MAX_THREADS, o->threads, &o->n_threads);
        else if (strcmp(a, "--steps") == 0) ok = th_arg_u64(a, v, 1, 1000000, &o->steps);
        else if (strcmp(a, "--warmup") == 0) ok = th_arg_u64(a, v, 0, 1000000, &o->warmup);
        else if (strcmp(a, "--reps") == 0) ok = th_arg_u64(a, v, 1, MAX_REPS, &o->reps);
        else if (strcmp(a, "--naive-max") == 0) ok = th_arg_u64(a, v, 0, 200000, &o->naive_max);
        else if (strcmp(a, "--seed") == 0) ok = th_arg_u64(a, v, 0, UINT64_MAX, &o->seed);
        else if (strcmp(a, "--contend") == 0) ok = th_arg_u64(a, v, 0, 64, &o->contend);
        else if (strcmp(a, "--grid-ref-max") == 0)
            ok = th_arg_u64(a, v, 0, TH_MAX_AGENTS, &o->grid_ref_max);
        else if (strcmp(a, "--isa") == 0) {
            th_boids_isa isa = TH_BOIDS_ISA_AUTO;
            ok = false;
            for (int k = TH_BOIDS_ISA_AUTO; k <= TH_BOIDS_ISA_AVX512; k++) {
                if (strcmp(v, th_boids_isa_name((th_boids_isa)k)) == 0) {
                    isa = (th_boids_isa)k;
                    ok = true;
                }
            }
            if (!ok) {
                fprintf(stderr,
                        "throng bench: --isa: expected auto, baseline, x86-64-v3 or "
                        "x86-64-v4, found '%s'\n",
                        v);
            } else if (!th_boids_force_isa(isa)) {
                fprintf(stderr, "throng bench: --isa: this CPU or build cannot run '%s'\n", v);
                ok = false;
            }
        }
        if (!ok) return TH_EXIT_USAGE;
    }
    return -1;
}

/* ---- progress ------------------------------------------------------------------------------- */

/* A line on stderr, rewritten in place, only when stderr is a terminal: a log file or a pipe
 * gets nothing. */
static bool g_progress;

static void progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void progress(const char *fmt, ...) {
    if (!g_progress) return;
    va_list ap;
    va_start(ap, fmt);
    fputs("\r\033[K", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fflush(stderr);
}

static void progress_clear(void) {
    if (!g_progress) return;
    fputs("\r\033[K", stderr);
    fflush(stderr);
}

/* ---- measuring ------------------------------------------------------------------------------ */

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(const double *v, uint64_t n, double *lo, double *hi) {
    double sorted[MAX_REPS];
    memcpy(sorted, v, n * sizeof *v);
    qsort(sorted, n, sizeof *sorted, cmp_double);
    if (lo) *lo = sorted[0];
    if (hi) *hi = sorted[n - 1];
    return n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
}

static th_world *build(const bench_opts *o, uint32_t agents, uint32_t threads) {
    th_demo_opts d = {.agents = agents, .seed = o->seed, .threads = threads};
    th_error err = {0};
    th_world *w = o->build(o->scene, &d, &err);
    if (!w) {
        progress_clear();
        fprintf(stderr, "throng bench: scene '%s': %s\n", o->scene, err.message);
    }
    return w;
}

static bool measure(const bench_opts *o, uint32_t agents, uint32_t threads, row *r, uint32_t config,
                    uint32_t configs) {
    memset(r, 0, sizeof *r);
    r->agents = agents;
    r->threads = threads;
    r->speedup = NAN;
    r->naive_rate = NAN;
    r->grid_ref_rate = NAN;
    /* A signal stops it at the next step: the configuration is left unmeasured (false). */
    for (uint64_t rep = 0; rep < o->reps; rep++) {
        if (th_interrupted()) return false;
        progress("bench: configuration %u/%u: %u agents, %u thread%s, run %" PRIu64 "/%" PRIu64,
                 config, configs, agents, threads, threads == 1 ? "" : "s", rep + 1, o->reps);
        mem_reset_peak();
        th_world *w = build(o, agents, threads);
        if (!w) return false;
        for (uint64_t s = 0; s < o->warmup && !th_interrupted(); s++) th_world_step(w);
        th_world_reset_profile(w);
        uint32_t before = th_world_agent_count(w);
        uint64_t t0 = th_now_ns();
        for (uint64_t s = 0; s < o->steps && !th_interrupted(); s++) th_world_step(w);
        double secs = (double)(th_now_ns() - t0) * 1e-9;
        if (th_interrupted()) {
            th_world_destroy(w);
            return false;
        }
        /* Agents alive, not requested: a scene may shelter some during the run; the mean of the
         * counts before and after is the best single figure for the agents stepped. */
        r->alive = 0.5 * ((double)before + (double)th_world_agent_count(w));
        r->wall[rep] = secs;
        r->rate[rep] = r->alive * (double)o->steps / secs;
        for (int p = 0; p < TH_PHASE_COUNT; p++)
            r->phase[rep][p] = th_world_phase_ms(w, (th_phase)p);
        r->neighbors = th_world_get_stats(w).mean_neighbors;
        r->hash = th_world_hash(w);
        uint64_t peak = atomic_load(&g_mem_peak);
        if (peak > r->peak_bytes) r->peak_bytes = peak;
        th_world_destroy(w);
    }
    r->rate_med = median(r->rate, o->reps, &r->rate_min, &r->rate_max);
    r->wall_med = median(r->wall, o->reps, NULL, NULL);
    for (int p = 0; p < TH_PHASE_COUNT; p++) {
        double v[MAX_REPS];
        for (uint64_t rep = 0; rep < o->reps; rep++) v[rep] = r->phase[rep][p];
        r->phase_med[p] = median(v, o->reps, NULL, NULL);
    }
    return true;
}

/* A scene's state after warm-up, 1 thread, as plain arrays for the references. */
typedef struct ref_state {
    uint32_t n, ncrowds;
    float *buf; /* px py vx vy, then 2 n of scratch */
    uint16_t *crowd;
    ref_crowd rc[TH_MAX_CROWDS];
    ref_world rw;
    float dt;
} ref_state;

static bool ref_state_take(const bench_opts *o, uint32_t agents, ref_state *st) {
    memset(st, 0, sizeof *st);
    th_world *w = build(o, agents, 1);
    if (!w) return false;
    for (uint64_t s = 0; s < o->warmup && !th_interrupted(); s++) th_world_step(w);
    th_agent_view v = th_world_agents(w);
    uint32_t n = v.count;
    st->n = n;
    st->buf = malloc((size_t)(n ? n : 1) * 6 * sizeof(float));
    st->crowd = malloc((size_t)(n ? n : 1) * sizeof(uint16_t));
    if (!st->buf || !st->crowd || n == 0) {
        free(st->buf);
        free(st->crowd);
        th_world_destroy(w);
        return false;
    }
    st->ncrowds = th_world_crowd_count(w);
    for (uint32_t c = 0; c < st->ncrowds; c++) {
        const th_crowd_def *d = th_world_get_crowd(w, (th_crowd_id){c + 1});
        st->rc[c] = (ref_crowd){d->neighbor_radius,   d->separation_radius, d->fov_deg,
                                d->separation_weight, d->alignment_weight,  d->cohesion_weight,
                                d->max_speed,         d->max_force};
    }
    memcpy(st->buf, v.px, n * sizeof(float));
    memcpy(st->buf + n, v.py, n * sizeof(float));
    memcpy(st->buf + 2 * (size_t)n, v.vx, n * sizeof(float));
    memcpy(st->buf + 3 * (size_t)n, v.vy, n * sizeof(float));
    memcpy(st->crowd, v.crowd, n * sizeof(uint16_t));
    th_world_def def = th_world_get_def(w);
    st->rw = (ref_world){def.width, def.height, def.bounds == TH_BOUNDS_WRAP, st->rc};
    st->dt = def.timestep;
    th_world_destroy(w);
    return true;
}

static void ref_state_free(ref_state *st) {
    free(st->buf);
    free(st->crowd);
}

/* Agent-steps/s of the naive reference on the same scene's state after warm-up, 1 thread. */
static double measure_naive(const bench_opts *o, uint32_t agents) {
    progress("bench: naive O(N^2) reference, %u agents", agents);
    ref_state st;
    if (!ref_state_take(o, agents, &st)) return NAN;
    const uint32_t n = st.n;
    float *b = st.buf;
    /* O(N^2) per step: a few steps give a stable figure without dominating the run. */
    uint64_t steps = o->steps < 3 ? o->steps : 3;
    uint64_t t0 = th_now_ns();
    for (uint64_t s = 0; s < steps && !th_interrupted(); s++) {
        ref_boids_step(&st.rw, st.dt, n, b, b + n, b + 2 * (size_t)n, b + 3 * (size_t)n, st.crowd,
                       b + 4 * (size_t)n, b + 5 * (size_t)n);
    }
    double secs = (double)(th_now_ns() - t0) * 1e-9;
    ref_state_free(&st);
    return (double)n * (double)steps / secs;
}

/* Agent-steps/s of the plain scalar grid reference, same state, 1 thread: median of three runs
 * of up to 20 steps (it is about as slow per step as the engine on one thread). */
static double measure_grid_ref(const bench_opts *o, uint32_t agents) {
    progress("bench: scalar grid reference, %u agents", agents);
    ref_state st;
    if (!ref_state_take(o, agents, &st)) return NAN;
    const uint32_t n = st.n;
    float *b = st.buf;
    uint64_t steps = o->steps < 20 ? o->steps : 20;
    double rates[3];
    bool ok = true;
    for (int rep = 0; rep < 3 && ok; rep++) {
        ref_grid_boids g;
        if (ref_grid_init(&g, &st.rw, st.ncrowds, n, b, b + n, b + 2 * (size_t)n, b + 3 * (size_t)n,
                          st.crowd) != 0) {
            ok = false;
            break;
        }
        ref_grid_step(&g, st.dt); /* untimed: first touch of its arrays */
        uint64_t t0 = th_now_ns();
        for (uint64_t s = 0; s < steps && !th_interrupted(); s++) ref_grid_step(&g, st.dt);
        double secs = (double)(th_now_ns() - t0) * 1e-9;
        rates[rep] = (double)n * (double)steps / secs;
        ref_grid_free(&g);
    }
    ref_state_free(&st);
    return ok ? median(rates, 3, NULL, NULL) : NAN;
}

/* One extra run of a configuration with tracing on: warm-up untraced, then `steps` traced. */
static bool record_trace(const bench_opts *o, FILE *out, uint32_t agents, uint32_t threads) {
    progress("bench: trace of %u agents, %u threads", agents, threads);
    th_world *w = build(o, agents, threads);
    if (!w) return false;
    for (uint64_t s = 0; s < o->warmup && !th_interrupted(); s++) th_world_step(w);
    uint32_t workers = th_world_get_def(w).threads;
    /* Enough for every worker in every phase of every step; the cap only bites on runs of
     * hundreds of thousands of steps, whose trace no viewer would open anyway. */
    uint64_t want = o->steps * TH_PHASE_COUNT * workers;
    uint32_t max = want < MAX_TRACE_SPANS ? (uint32_t)want : MAX_TRACE_SPANS;
    th_error err = {0};
    if (!th_world_trace_start(w, max, &err)) {
        progress_clear();
        fprintf(stderr, "throng bench: trace: %s\n", err.message);
        th_world_destroy(w);
        return false;
    }
    for (uint64_t s = 0; s < o->steps && !th_interrupted(); s++) th_world_step(w);
    if (th_interrupted()) { /* the caller writes no trace */
        progress_clear();
        th_world_trace_stop(w);
        th_world_destroy(w);
        return false;
    }
    uint32_t count = 0;
    const th_trace_span *spans = th_world_trace_spans(w, &count);
    char title[160];
    snprintf(title, sizeof title, "throng %s: %u agents, %u threads", o->scene, agents, workers);
    bool ok = th_bench_write_trace(out, spans, count, workers, title);
    progress_clear();
    if (count == max && want > max) {
        fprintf(stderr, "throng bench: trace buffer full: %u spans kept, later steps dropped\n",
                count);
    }
    th_world_trace_stop(w);
    th_world_destroy(w);
    return ok;
}

/* ---- output --------------------------------------------------------------------------------- */

static void print_header(void) {
    printf("%9s %8s %9s %8s %8s %9s %8s %6s %6s %8s %8s |", "agents", "threads", "M a-s/s", "min",
           "max", "ns/a-s", "speedup", "eff", "nbrs", "peak MiB", "B/agent");
    for (int p = 0; p < TH_PHASE_COUNT; p++) {
        const char *name = th_phase_name((th_phase)p);
        printf(" %*s", strlen(name) > 8 ? (int)strlen(name) : 8, name);
    }
    printf("\n");
}

static void print_row(const row *r, uint32_t cores) {
    char threads[16];
    snprintf(threads, sizeof threads, "%u%s", r->threads, r->threads > cores ? "*" : "");
    printf("%9u %8s %9.2f %8.2f %8.2f %9.1f ", r->agents, threads, r->rate_med * 1e-6,
           r->rate_min * 1e-6, r->rate_max * 1e-6, 1e9 / r->rate_med);
    if (isnan(r->speedup)) printf("%8s %6s ", "-", "-");
    else printf("%7.2fx %5.0f%% ", r->speedup, 100.0 * r->speedup / r->threads);
    printf("%6.1f %8.1f %8.0f |", r->neighbors, (double)r->peak_bytes / (1024.0 * 1024.0),
           (double)r->peak_bytes / r->agents);
    for (int p = 0; p < TH_PHASE_COUNT; p++) {
        size_t len = strlen(th_phase_name((th_phase)p));
        printf(" %*.3f", len > 8 ? (int)len : 8, r->phase_med[p]);
    }
    printf("\n");
}

/* A JSON number, or null for NaN (no figure): JSON has no NaN. */
static void json_num(FILE *f, const char *fmt, double v) {
    if (isnan(v) || isinf(v)) fputs("null", f);
    else fprintf(f, fmt, v);
}

static void write_csv(FILE *f, const bench_opts *o, const row *rows, uint32_t n) {
    fprintf(f, "scene,agents,threads,steps,warmup,reps,agent_steps_per_s,min,max,wall_s,"
               "ns_per_agent_step,speedup,efficiency,neighbors,peak_bytes,bytes_per_agent,hash,"
               "naive_agent_steps_per_s,speedup_vs_naive");
    for (int p = 0; p < TH_PHASE_COUNT; p++) fprintf(f, ",%s_ms", th_phase_name((th_phase)p));
    fprintf(f, ",grid_ref_agent_steps_per_s,speedup_vs_grid_ref\n");
    for (uint32_t i = 0; i < n; i++) {
        const row *r = &rows[i];
        /* A scene name with a comma or quote is quoted, as RFC 4180 has it. */
        if (strpbrk(o->scene, ",\"\n")) {
            fputc('"', f);
            for (const char *c = o->scene; *c; c++) {
                if (*c == '"') fputc('"', f);
                fputc(*c, f);
            }
            fputc('"', f);
        } else {
            fputs(o->scene, f);
        }
        fprintf(f, ",%u,%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.1f,%.1f,%.1f,%.6f,%.3f,",
                r->agents, r->threads, o->steps, o->warmup, o->reps, r->rate_med, r->rate_min,
                r->rate_max, r->wall_med, 1e9 / r->rate_med);
        if (!isnan(r->speedup)) fprintf(f, "%.4f,%.4f", r->speedup, r->speedup / r->threads);
        else fputs(",", f);
        fprintf(f, ",%.2f,%" PRIu64 ",%.1f,0x%016" PRIx64 ",", r->neighbors, r->peak_bytes,
                (double)r->peak_bytes / r->agents, r->hash);
        if (!isnan(r->naive_rate))
            fprintf(f, "%.1f,%.2f", r->naive_rate, r->rate_med / r->naive_rate);
        else fputs(",", f);
        for (int p = 0; p < TH_PHASE_COUNT; p++) fprintf(f, ",%.4f", r->phase_med[p]);
        if (!isnan(r->grid_ref_rate)) {
            fprintf(f, ",%.1f,%.3f\n", r->grid_ref_rate, r->rate_med / r->grid_ref_rate);
        } else {
            fputs(",,\n", f);
        }
    }
}

static void write_json(FILE *f, const bench_opts *o, const row *rows, uint32_t n, uint64_t hwm) {
    fprintf(f, "{\n  \"tool\": \"throng bench\",\n  \"scene\": ");
    th_bench_json_string(f, o->scene);
    fprintf(f,
            ",\n  \"steps\": %" PRIu64 ",\n  \"warmup\": %" PRIu64 ",\n  \"reps\": %" PRIu64
            ",\n  \"seed\": %" PRIu64 ",\n  \"cores\": %u,\n  \"process_peak_rss_bytes\": %" PRIu64
            ",\n  \"kernel\": \"%s\",\n  \"contend\": %" PRIu64 ",\n",
            o->steps, o->warmup, o->reps, o->seed, (unsigned)th_cpu_count(), hwm,
            th_boids_isa_name(th_boids_active_isa()), o->contend);
    fprintf(f, "  \"memory\": \"peak_bytes: most engine heap bytes live at once while the "
               "configuration was built and run, counted through the allocation hook\",\n");
    th_build_write_json(f);
    fputs(",\n", f);
    fprintf(f, "  \"rows\": [");
    for (uint32_t i = 0; i < n; i++) {
        const row *r = &rows[i];
        fprintf(f, "%s\n    {\"scene\": ", i ? "," : "");
        th_bench_json_string(f, o->scene);
        fprintf(f,
                ", \"agents\": %u, \"threads\": %u, \"steps\": %" PRIu64 ", \"warmup\": %" PRIu64
                ", \"reps\": %" PRIu64 ",\n     \"agent_steps_per_s\": %.1f, \"min\": %.1f, "
                "\"max\": %.1f, \"wall_s\": %.6f, \"ns_per_agent_step\": %.3f,\n     \"speedup\": ",
                r->agents, r->threads, o->steps, o->warmup, o->reps, r->rate_med, r->rate_min,
                r->rate_max, r->wall_med, 1e9 / r->rate_med);
        json_num(f, "%.4f", r->speedup);
        fputs(", \"efficiency\": ", f);
        json_num(f, "%.4f", r->speedup / r->threads);
        fprintf(f,
                ", \"alive\": %.1f, \"neighbors\": %.2f, \"peak_bytes\": %" PRIu64
                ", \"bytes_per_agent\": %.1f, "
                "\"hash\": \"0x%016" PRIx64 "\",\n     \"naive_agent_steps_per_s\": ",
                r->alive, r->neighbors, r->peak_bytes, (double)r->peak_bytes / r->agents, r->hash);
        json_num(f, "%.1f", r->naive_rate);
        fputs(", \"speedup_vs_naive\": ", f);
        json_num(f, "%.2f", r->rate_med / r->naive_rate);
        fputs(", \"grid_ref_agent_steps_per_s\": ", f);
        json_num(f, "%.1f", r->grid_ref_rate);
        fputs(", \"speedup_vs_grid_ref\": ", f);
        json_num(f, "%.3f", r->rate_med / r->grid_ref_rate);
        fputs(",\n     \"phase_ms\": {", f);
        for (int p = 0; p < TH_PHASE_COUNT; p++) {
            fprintf(f, "%s\"%s\": %.4f", p ? ", " : "", th_phase_name((th_phase)p),
                    r->phase_med[p]);
        }
        fputs("}}", f);
    }
    fputs("\n  ]\n}\n", f);
}

/* An output, written whole or not at all once the sweep is done: a regular file (or a new one)
 * under a temporary name beside it, renamed over it when complete (th_file_begin), so a reader
 * never sees part of one and a bench stopped by a signal leaves what was there; a device or a
 * FIFO as it is. */
typedef struct out_file {
    FILE *f;
    const char *path; /* NULL: not asked for */
    bool direct;      /* a device or a FIFO: written in place */
    char tmp[4200];
} out_file;

static bool out_begin(out_file *o, const char *path) {
    memset(o, 0, sizeof *o);
    o->path = path;
    if (!path) return true;
    struct stat st;
    o->direct = stat(path, &st) == 0 && !S_ISREG(st.st_mode);
    errno = 0;
    o->f = o->direct ? fopen(path, "w") : th_file_begin(path, o->tmp, sizeof o->tmp);
    if (!o->f)
        fprintf(stderr, "throng bench: cannot write '%s': %s\n", path,
                errno ? strerror(errno) : "the name is too long");
    return o->f != NULL;
}

/* Give up an output: the temporary file goes, the file at its path stays as it was. */
static void out_abort(out_file *o) {
    if (!o->f) return;
    fclose(o->f);
    if (!o->direct) unlink(o->tmp);
    o->f = NULL;
}

/* Finish an output, reporting a failed write (a full disk shows up here), or where it was
 * written. */
static bool out_end(out_file *o, const char *what) {
    if (!o->f) return true;
    /* Why a write failed: the flush of what is left (a full disk fails it again), else errno
     * as the failed write left it, else the close's or the rename's. */
    errno = 0;
    int e = fflush(o->f) != 0 || ferror(o->f) ? errno : 0;
    bool ok = !ferror(o->f);
    errno = 0;
    if (o->direct) {
        if (fclose(o->f) != 0) {
            if (!e) e = errno;
            ok = false;
        }
    } else if (!ok) {
        out_abort(o);
    } else if (!th_file_commit(o->f, o->tmp, o->path)) {
        e = errno;
        ok = false;
    }
    o->f = NULL;
    if (!ok)
        fprintf(stderr, "throng bench: writing '%s' failed: %s\n", o->path,
                e ? strerror(e) : "an earlier write failed");
    else printf("%-6s %s\n", what, o->path);
    return ok;
}

/* ---- the command ---------------------------------------------------------------------------- */

static int run(bench_opts *o) {
    const uint32_t cores = th_cpu_count();
    const uint32_t configs = o->n_agents * o->n_threads;

    /* The scene is checked before anything is printed or measured: an unknown name is a usage
     * error, not a failure discovered after minutes of sweep. */
    th_demo_opts probe_opts = {.agents = o->agents[0], .seed = o->seed, .threads = 1};
    th_error err = {0};
    th_world *probe = o->build(o->scene, &probe_opts, &err);
    if (!probe) {
        fprintf(stderr, "throng bench: --scene: %s\n", err.message);
        return TH_EXIT_USAGE;
    }
    th_world_destroy(probe);
    /* Before any file is opened: none may be the scene, its map or another output. */
    if (o->files && !o->files(o->scene, o->csv, o->json, o->trace)) return TH_EXIT_USAGE;

    row *rows = calloc(configs, sizeof *rows);
    if (!rows) {
        fprintf(stderr, "throng bench: out of memory\n");
        return 1;
    }

    /* SIGINT, SIGTERM and SIGHUP stop the sweep at the next step: what was measured is
     * printed, marked as interrupted, no output file is written, and the exit code is 128 +
     * the signal. Caught from before the first line, so a signal sent on seeing it is. */
    th_interrupt_install();
    printf("throng bench: scene %s, %" PRIu64 " steps after %" PRIu64 " warm-up, median of %" PRIu64
           " runs, seed %" PRIu64 ", %u cores, boids kernel %s",
           o->scene, o->steps, o->warmup, o->reps, o->seed, (unsigned)cores,
           th_boids_isa_name(th_boids_active_isa()));
    if (o->contend)
        printf(", %" PRIu64 " busy thread%s holding cores", o->contend, o->contend == 1 ? "" : "s");
    printf("\n\n");
    print_header();
    fflush(stdout);

    int status = 0;
    uint32_t n = 0;
    for (uint32_t ai = 0; ai < o->n_agents && status == 0; ai++) {
        /* Rows of one agent count are printed together, once the 1-thread figure they are
         * compared with is known, whatever the order of --threads. */
        uint32_t first = n;
        for (uint32_t ti = 0; ti < o->n_threads; ti++, n++) {
            if (!measure(o, o->agents[ai], o->threads[ti], &rows[n], n + 1, configs)) {
                status = 1;
                break;
            }
        }
        /* Interrupted: the configurations measured so far are shown, without references. */
        if (status && !th_interrupted()) break;
        double one = NAN;
        for (uint32_t i = first; i < n; i++) {
            if (rows[i].threads == 1) one = rows[i].rate_med;
        }
        double naive = o->agents[ai] <= o->naive_max && !th_interrupted()
                           ? measure_naive(o, o->agents[ai])
                           : NAN;
        double grid_ref = o->agents[ai] <= o->grid_ref_max && !isnan(one) && !th_interrupted()
                              ? measure_grid_ref(o, o->agents[ai])
                              : NAN;
        if (th_interrupted()) naive = grid_ref = NAN; /* cut short: no figure */
        for (uint32_t i = first; i < n; i++) {
            rows[i].speedup = rows[i].rate_med / one;
            if (rows[i].threads == 1) {
                rows[i].naive_rate = naive;
                rows[i].grid_ref_rate = grid_ref;
            }
        }
        progress_clear();
        for (uint32_t i = first; i < n; i++) print_row(&rows[i], cores);
        fflush(stdout);
        if (th_interrupted()) status = 128 + th_interrupt_signal();
    }

    /* Every configuration measured: the summary and the files (a failed trace does not keep
     * the CSV and the JSON from being written; a signal does). */
    const bool swept = status == 0;
    if (swept) {
        bool any_naive = false, any_grid_ref = false, over = false;
        for (uint32_t i = 0; i < n; i++) {
            any_naive = any_naive || !isnan(rows[i].naive_rate);
            any_grid_ref = any_grid_ref || !isnan(rows[i].grid_ref_rate);
            over = over || rows[i].threads > cores;
        }
        printf("\nM a-s/s: million agent-steps per second; eff: speed-up / threads; phases in ms "
               "per step.\n");
        if (over) printf("*: more threads than cores (oversubscribed).\n");
        if (any_naive) {
            printf("\nnaive O(N^2) reference (tests/ref_boids.c), 1 thread, same warmed-up "
                   "state:\n");
            printf("%9s %14s %12s %18s %9s\n", "agents", "agent-steps/s", "ns/a-s",
                   "grid 1-thread a-s/s", "grid is");
            for (uint32_t i = 0; i < n; i++) {
                const row *r = &rows[i];
                if (isnan(r->naive_rate)) continue;
                printf("%9u %14.0f %12.1f %18.0f %8.0fx\n", r->agents, r->naive_rate,
                       1e9 / r->naive_rate, r->rate_med, r->rate_med / r->naive_rate);
            }
        }
        if (any_grid_ref) {
            printf(
                "\nplain scalar grid reference (tests/ref_grid_boids.c: counting-sort grid, SoA, "
                "no SIMD), 1 thread, same warmed-up state:\n");
            printf("%9s %14s %12s %18s %9s\n", "agents", "agent-steps/s", "ns/a-s",
                   "engine 1-thread", "engine is");
            for (uint32_t i = 0; i < n; i++) {
                const row *r = &rows[i];
                if (isnan(r->grid_ref_rate)) continue;
                printf("%9u %14.0f %12.1f %18.0f %8.2fx\n", r->agents, r->grid_ref_rate,
                       1e9 / r->grid_ref_rate, r->rate_med, r->rate_med / r->grid_ref_rate);
            }
        }
        out_file trace;
        if (!out_begin(&trace, o->trace)) {
            status = 1;
        } else if (trace.f && !record_trace(o, trace.f, o->agents[o->n_agents - 1],
                                            o->threads[o->n_threads - 1])) {
            out_abort(&trace);
            status = th_interrupted() ? 128 + th_interrupt_signal() : 1;
        } else if (!out_end(&trace, "trace")) {
            status = 1;
        }
    }
    if (swept && !th_interrupted()) {
        uint64_t hwm = process_hwm();
        printf("\nprocess peak resident memory (VmHWM): %.1f MiB\n", (double)hwm / 1048576.0);
        out_file csv, json;
        if (!out_begin(&csv, o->csv)) status = 1;
        else if (csv.f) write_csv(csv.f, o, rows, n);
        if (!out_end(&csv, "csv")) status = 1;
        if (!out_begin(&json, o->json)) status = 1;
        else if (json.f) write_json(json.f, o, rows, n, hwm);
        if (!out_end(&json, "json")) status = 1;
    }
    progress_clear();
    if (status > 128) {
        const int sig = status - 128;
        printf("\nINTERRUPTED by signal %d (%s): %u of %u configurations measured, shown above; "
               "the sweep stopped there%s\n",
               sig, strsignal(sig), n, configs,
               o->csv || o->json || o->trace
                   ? "; no output file was written, those named by --csv, --json and --trace are "
                     "as they were"
                   : "");
        fprintf(stderr,
                "throng bench: interrupted by signal %d: %u of %u configurations measured\n", sig,
                n, configs);
    }
    free(rows);
    return status;
}

/* ---- contention ------------------------------------------------------------------------------ */

/* --contend: threads that spin until told to stop, holding cores as other programs would (the
 * scheduler shares cores among all runnable threads alike, whatever their process). */
typedef struct contenders {
    pthread_t thread[64];
    uint32_t n;
    atomic_bool stop;
} contenders;

static void *contend_main(void *arg) {
    contenders *c = arg;
    volatile uint64_t sink = 1;
    while (!atomic_load_explicit(&c->stop, memory_order_relaxed))
        for (int i = 0; i < 4096; i++) sink = sink * 6364136223846793005u + 1442695040888963407u;
    return NULL;
}

static bool contend_start(contenders *c, uint32_t n) {
    atomic_init(&c->stop, false);
    for (c->n = 0; c->n < n; c->n++)
        if (pthread_create(&c->thread[c->n], NULL, contend_main, c) != 0) break;
    if (c->n == n) return true;
    atomic_store(&c->stop, true);
    for (uint32_t k = 0; k < c->n; k++) pthread_join(c->thread[k], NULL);
    return false;
}

static void contend_stop(contenders *c) {
    atomic_store(&c->stop, true);
    for (uint32_t k = 0; k < c->n; k++) pthread_join(c->thread[k], NULL);
}

int th_bench_run(int argc, char **argv, th_bench_build_fn *build, th_bench_files_fn *files) {
    bench_opts o = {.scene = "flock",
                    .agents = {10000, 100000},
                    .n_agents = 2,
                    .threads = {1, 2},
                    .n_threads = 2,
                    .steps = 100,
                    .warmup = 20,
                    .reps = 3,
                    .naive_max = 10000,
                    .grid_ref_max = 1000000,
                    .seed = 1,
                    .build = build,
                    .files = files};
    int rc = parse(argc, argv, &o);
    if (rc >= 0) return rc;
    g_progress = isatty(STDERR_FILENO);
    /* No world exists yet, as th_set_allocator requires; the default is back before return. */
    th_set_allocator(&(th_allocator){track_alloc, track_free, NULL});
    contenders busy = {0};
    if (!contend_start(&busy, (uint32_t)o.contend)) {
        th_set_allocator(NULL);
        fprintf(stderr, "throng bench: --contend: cannot start %" PRIu64 " threads\n", o.contend);
        return 1;
    }
    rc = run(&o);
    contend_stop(&busy);
    th_set_allocator(NULL);
    th_boids_force_isa(TH_BOIDS_ISA_AUTO);
    return rc;
}
