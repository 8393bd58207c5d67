#include "ranks.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#ifdef THRONG_MPI
#include <mpi.h>

#include "output.h"
#include "throng/dist.h"

static bool g_mpi;
static int g_rank, g_ranks = 1;
static int g_err_fd = 2; /* this rank's own stderr, kept for th_app_abort */
static struct th_dist_def g_def;
static bool g_compared; /* the ranks reached th_app_dist_check together */
static bool g_refused;  /* ...and it refused the run on every rank */

/* Launched by mpirun (Open MPI, MPICH or a PMI launcher): a singleton run stays one process. */
static bool launched(void) {
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK");
}

bool th_app_ranks_init(int *argc, char ***argv) {
    if (!launched()) return true;
    int provided = 0;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "throng: MPI_Init_thread failed\n");
        return false;
    }
    if (provided < MPI_THREAD_FUNNELED) {
        fprintf(stderr, "throng: the MPI library gives thread level %d, FUNNELED (%d) is needed\n",
                provided, MPI_THREAD_FUNNELED);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    g_mpi = true;
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_ranks);
    if (g_rank != 0) {
        /* Every rank runs the same command; one report is printed. */
        g_err_fd = dup(2);
        if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr)) {
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    return true;
}

int th_app_ranks_end(int rc) {
    if (!g_mpi) return rc;
    fflush(stdout);
    fflush(stderr);
    /* A rank that failed before the ranks compared their worlds (a scene that does not load,
     * a refused option), or with a usage error after it that th_app_dist_check did not give
     * every rank (a file only rank 0 opens), may have failed alone: the others then wait for
     * it in a collective call, and MPI_Finalize would wait for them. Stop them all instead.
     * The failures every rank reaches together (the ranks' refusal, a broken invariant, an
     * interruption) end as one process does. */
    if (rc != 0 && g_ranks > 1 && (!g_compared || (rc == 2 && !g_refused))) {
        if (g_rank != 0) {
            dprintf(g_err_fd,
                    "throng: rank %d of %d: stopped with exit code %d, which stops every rank "
                    "(this rank's messages go to /dev/null: run its command without mpirun to "
                    "see them)\n",
                    g_rank, g_ranks, rc);
        }
        MPI_Abort(MPI_COMM_WORLD, rc);
    }
    MPI_Finalize();
    return rc;
}

void th_app_abort(const char *what) {
    if (!g_mpi) return;
    dprintf(g_err_fd, "throng: rank %d of %d: %s\n", g_rank, g_ranks, what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

int th_app_rank(void) { return g_rank; }
int th_app_ranks(void) { return g_ranks; }

const struct th_dist_def *th_app_dist(uint32_t rebalance_every) {
    if (!g_mpi) return NULL;
    g_def = (struct th_dist_def){.comm = MPI_COMM_WORLD, .rebalance_every = rebalance_every};
    return &g_def;
}

bool th_app_stop(bool stop, uint64_t step) {
    if (!g_mpi || g_ranks == 1) return stop;
    if (step % 16 != 0) return false;
    int s = stop;
    MPI_Bcast(&s, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return s != 0;
}

void th_app_sum_u32(uint32_t *v, uint32_t n) {
    if (!g_mpi || g_ranks == 1) return;
    MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_UINT32_T, MPI_SUM, MPI_COMM_WORLD);
}

double th_app_max(double v) {
    if (!g_mpi || g_ranks == 1) return v;
    MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return v;
}

/* The terms as words, and what each is called in a message. */
enum { TERM_WORDS = 9 };
static const char *const k_term_names[TERM_WORDS] = {"--steps (or the scene's steps)",
                                                     "--rebalance",
                                                     "--fixed-steps",
                                                     "--validate",
                                                     "--fail-on-stall",
                                                     "--json",
                                                     "--trajectories",
                                                     "--trajectory-every",
                                                     "--destroy-bunker and --restore-bunker"};

/* The first rank whose terms differ from rank 0's, and in what (collective; every rank finds
 * the same): false with err set. */
static bool same_terms(const th_app_terms *t, th_error *err) {
    const uint64_t mine[TERM_WORDS] = {t->steps,
                                       t->rebalance,
                                       t->fixed_steps,
                                       t->validate,
                                       t->fail_on_stall,
                                       t->json,
                                       t->trajectories,
                                       t->trajectories ? t->trajectory_every : 0,
                                       th_fnv1a64(TH_FNV_START, t->events, t->event_bytes)};
    uint64_t *all = calloc((size_t)g_ranks * TERM_WORDS, sizeof *all);
    if (!all) th_app_abort("out of memory comparing the ranks' options");
    MPI_Allgather(mine, TERM_WORDS, MPI_UINT64_T, all, TERM_WORDS, MPI_UINT64_T, MPI_COMM_WORLD);
    bool same = true;
    for (int r = 1; same && r < g_ranks; r++) {
        const uint64_t *other = all + (size_t)r * TERM_WORDS;
        char names[384] = "";
        size_t at = 0;
        int listed = 0, differ = 0;
        for (int k = 0; k < TERM_WORDS; k++) differ += other[k] != all[k];
        for (int k = 0; k < TERM_WORDS && at < sizeof names; k++) {
            if (other[k] == all[k]) continue;
            const char *sep = listed == 0 ? "" : listed + 1 == differ ? " and " : ", ";
            int n = snprintf(names + at, sizeof names - at, "%s%s", sep, k_term_names[k]);
            if (n > 0) at += (size_t)n;
            listed++;
        }
        if (differ == 0) continue;
        same = false;
        err->code = TH_ERR_INVALID;
        snprintf(err->message, sizeof err->message,
                 "the MPI ranks were given different options: rank %d's differ from rank 0's "
                 "in %s (every rank must run the same command)",
                 r, names);
    }
    free(all);
    return same;
}

bool th_app_dist_check(const th_world *w, const th_app_terms *terms, th_error *err) {
    if (!g_mpi || g_ranks == 1) return th_world_dist_check(w, err);
    g_compared = true; /* from here every rank meets the same collective calls */
    /* The worlds first (a world too thin for the ranks is refused there, alike on every rank
     * once the worlds agree), then the options: each verdict is the same on every rank, so
     * every rank reaches the same collective calls and stops at the same one. */
    if (th_world_dist_check(w, err) && same_terms(terms, err)) return true;
    g_refused = true;
    /* Ranks that built or were given something else: every rank says so on its own stderr
     * (rank 0's caller prints it). */
    if (g_rank != 0 && err->code != TH_ERR_LIMIT)
        dprintf(g_err_fd, "throng run: rank %d of %d: %s\n", g_rank, g_ranks, err->message);
    return false;
}

/* Gathered agents, grown as needed (between steps): one array per field. */
static struct {
    uint32_t cap;
    float *px, *py, *vx, *vy;
    uint16_t *crowd;
    th_agent_id *id;
    int *counts, *displ;
} g_all;

static bool grow_all(uint32_t n) {
    if (n <= g_all.cap) return true;
    uint32_t cap = g_all.cap ? g_all.cap : 1024;
    while (cap < n) cap *= 2;
#define GROW(f)                                                    \
    do {                                                           \
        void *p = realloc(g_all.f, (size_t)cap * sizeof *g_all.f); \
        if (!p) return false;                                      \
        g_all.f = p;                                               \
    } while (0)
    GROW(px);
    GROW(py);
    GROW(vx);
    GROW(vy);
    GROW(crowd);
    GROW(id);
#undef GROW
    g_all.cap = cap;
    return true;
}

/* Gatherv of one field of `elem` bytes per agent; counts[] hold agents. */
static void gather_field(const void *mine, uint32_t n, void *all, size_t elem) {
    int *bytes = g_all.counts + g_ranks, *at = g_all.displ + g_ranks;
    for (int r = 0; r < g_ranks; r++) {
        bytes[r] = (int)((size_t)g_all.counts[r] * elem);
        at[r] = (int)((size_t)g_all.displ[r] * elem);
    }
    MPI_Gatherv(mine, (int)((size_t)n * elem), MPI_BYTE, all, bytes, at, MPI_BYTE, 0,
                MPI_COMM_WORLD);
}

bool th_app_gather_agents(th_agent_view *v) {
    if (!g_mpi || g_ranks == 1) return true;
    if (!g_all.counts) {
        g_all.counts = calloc(2 * (size_t)g_ranks, sizeof *g_all.counts);
        g_all.displ = calloc(2 * (size_t)g_ranks, sizeof *g_all.displ);
        if (!g_all.counts || !g_all.displ) th_app_abort("out of memory gathering agents");
    }
    int n = (int)v->count;
    MPI_Gather(&n, 1, MPI_INT, g_all.counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    uint32_t total = 0;
    if (g_rank == 0) {
        for (int r = 0; r < g_ranks; r++) {
            g_all.displ[r] = (int)total;
            total += (uint32_t)g_all.counts[r];
        }
        if (!grow_all(total + 1)) th_app_abort("out of memory gathering agents");
    }
    gather_field(v->px, v->count, g_all.px, sizeof(float));
    gather_field(v->py, v->count, g_all.py, sizeof(float));
    gather_field(v->vx, v->count, g_all.vx, sizeof(float));
    gather_field(v->vy, v->count, g_all.vy, sizeof(float));
    gather_field(v->crowd, v->count, g_all.crowd, sizeof(uint16_t));
    gather_field(v->id, v->count, g_all.id, sizeof(th_agent_id));
    if (g_rank == 0) {
        /* Flags and own radii are not gathered (radii of agents' own are refused over ranks). */
        *v = (th_agent_view){.count = total,
                             .px = g_all.px,
                             .py = g_all.py,
                             .vx = g_all.vx,
                             .vy = g_all.vy,
                             .crowd = g_all.crowd,
                             .id = g_all.id};
    }
    return true;
}

void th_app_dist_print(FILE *out, const th_world *w, double secs) {
    if (!g_mpi || g_ranks == 1) return;
    th_dist_stats s = th_world_dist_stats(w);
    const double steps = s.steps ? (double)s.steps : 1.0;
    /* Per rank: owned, ghosts; summed: bytes; largest: time in exchanges. */
    double mine[4] = {(double)s.owned, (double)s.ghosts, s.halo_ms, s.migrate_ms};
    double lo[4], hi[4], sum[4];
    MPI_Reduce(mine, lo, 4, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(mine, hi, 4, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(mine, sum, 4, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    uint64_t bytes[5] = {s.ghost_bytes, s.migrate_bytes, s.reduce_bytes, s.migrants, s.grows};
    uint64_t tot[5];
    MPI_Reduce(bytes, tot, 5, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    if (g_rank != 0) return;
    const double mean = sum[0] / g_ranks;
    fprintf(out,
            "ranks     %d: owned agents %.0f..%.0f (max/mean %.3f), ghosts %.0f..%.0f; rebalanced "
            "%" PRIu64 " time(s)\n",
            g_ranks, lo[0], hi[0], mean > 0 ? hi[0] / mean : 0.0, lo[1], hi[1], s.rebalances);
    /* Bytes are counted by sender and receiver both: halve for what crossed. */
    fprintf(out,
            "exchange  per step, all ranks: ghosts %.1f KB, migrants %.1f KB (%.1f agents), "
            "reductions %.2f KB; halo %.3f ms + migration %.3f ms on the slowest rank (%.1f%% "
            "of step time)\n",
            (double)tot[0] / 2e3 / steps, (double)tot[1] / 2e3 / steps, (double)tot[3] / steps,
            (double)tot[2] / 1e3 / steps, hi[2] / steps, hi[3] / steps,
            secs > 0 ? 100.0 * (hi[2] + hi[3]) * 1e-3 / secs : 0.0);
    if (tot[4])
        fprintf(out, "exchange  %" PRIu64 " buffer growth(s) after the first step\n", tot[4]);
}

#else

bool th_app_ranks_init(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    return true;
}
int th_app_ranks_end(int rc) { return rc; }
void th_app_abort(const char *what) { (void)what; }
int th_app_rank(void) { return 0; }
int th_app_ranks(void) { return 1; }
const struct th_dist_def *th_app_dist(uint32_t rebalance_every) {
    (void)rebalance_every;
    return NULL;
}
bool th_app_stop(bool stop, uint64_t step) {
    (void)step;
    return stop;
}
void th_app_sum_u32(uint32_t *v, uint32_t n) {
    (void)v;
    (void)n;
}
double th_app_max(double v) { return v; }
bool th_app_dist_check(const th_world *w, const th_app_terms *terms, th_error *err) {
    (void)w;
    (void)terms;
    (void)err;
    return true;
}
bool th_app_gather_agents(th_agent_view *v) {
    (void)v;
    return true;
}
void th_app_dist_print(FILE *out, const th_world *w, double secs) {
    (void)out;
    (void)w;
    (void)secs;
}

#endif
