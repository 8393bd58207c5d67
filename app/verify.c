/* `throng verify`: the published verification tests of evacuation models (RiMEA 4.1.1, ISO
 * 20414:2020, NIST TN 1822, IMO MSC.1/Circ.1533), run from the scenes in scenes/verification/
 * with the engine's default parameters, each criterion computed here, one table printed.
 * docs/verification.md gives each test's source, set-up and criterion. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "throng/building.h"
#include "throng/hazard.h"

#include "app.h"
#include "args.h"
#include "output.h"
#include "progress.h"
#include "verify.h"
#include "verify_judge.h"
#include "verify_stats.h"

#ifndef THRONG_SCENES_DIR
#define THRONG_SCENES_DIR "scenes"
#endif

static const char k_verify_help[] =
    "usage: throng verify [options]\n"
    "\n"
    "Run the verification tests of evacuation models (RiMEA 4.1.1 tests 1-16, ISO 20414:2020\n"
    "tests 1-17, NIST TN 1822, IMO MSC.1/Circ.1533 tests 1-11) from the scenes in\n"
    "scenes/verification/, with the engine's default parameters, and print one table: suite,\n"
    "test, what is checked, the criterion, the measured value and the result (pass, fail, or\n"
    "needs-feature with the feature the test needs). docs/verification.md has the sources.\n"
    "\n"
    "options:\n"
    "  --only PATTERN  run only the tests whose id matches PATTERN (a shell pattern such as\n"
    "                  'rimea-4' or 'iso-*'; several separated by commas)\n"
    "  --json FILE     also write the table as JSON\n"
    "  --threads N     worker threads, 0 to 64 (0 = every core; the results are the same)\n"
    "  --list          list the tests and exit\n"
    "  -h, --help      show this help\n"
    "\n"
    "Progress goes to stderr. Ctrl-C, SIGTERM or SIGHUP stops it after the test that is\n"
    "running, without a table; --json is written only once whole. Exit codes: 0 when no test\n"
    "fails (needs-feature is not a failure), 1 when a test fails or a scene cannot be run,\n"
    "2 usage error, 128 + the signal when stopped (130 for Ctrl-C).\n";

/* ---- options and results ----------------------------------------------------------------- */

typedef struct vopts {
    uint32_t threads;
} vopts;

typedef enum vstatus { V_PASS = 0, V_FAIL, V_NEEDS, V_ERROR } vstatus;

static const char *const k_status_name[] = {"pass", "fail", "needs-feature", "error"};

#define MEASURED_CAP 1000

/* The crowd tests whose criterion is an ordering or a bound on one run judge it at each of
 * these seeds: every seed must meet it. */
#define CROWD_SEEDS 3

/* Accounting: every scene opened counts one run; a row is charged the runs its judge made and
 * those behind the cached figures it read (tests sharing figures each show them all). */
static uint64_t g_runs, g_reused;

/* A test's judge: runs (or reuses) its simulations and writes what it measured. */
typedef vstatus (*vjudge)(const vopts *o, char *measured, size_t cap);

typedef struct vtest {
    const char *suite;
    const char *id;
    const char *checked;   /* what is checked, short */
    const char *criterion; /* the criterion, short (docs/verification.md has the source) */
    vjudge judge;          /* NULL: needs a feature */
    const char *needs;     /* the missing feature when judge is NULL */
} vtest;

/* Copy text `src` into dst (cap bytes), cut when it is longer. */
static void copy_text(char *dst, size_t cap, const char *src) {
    size_t n = strlen(src);
    if (n >= cap) n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* ---- running a scene --------------------------------------------------------------------- */

#define MAX_GATES 4

/* A world opened from a scene in scenes/verification/ and every agent present at the start,
 * followed by id from step to step: where it is, when it left, when it first crossed each gate,
 * and how far any body reached into a wall. */
typedef struct sim {
    th_world *w;
    double dt, t;
    uint32_t n;
    th_agent_id *id;
    uint16_t *crowd;
    float *radius;
    double *x, *y, *t_out;
    uint32_t left;
    int gates;
    int gate_axis[MAX_GATES]; /* 0: x, 1: y */
    double gate_at[MAX_GATES];
    int gate_dir[MAX_GATES]; /* +1: crossing toward larger values, -1: smaller */
    double *t_gate[MAX_GATES];
    bool wall_check;
    bool zone_on;
    double zone[4];    /* x0, y0, x1, y1: an area whose visitors are marked */
    bool *visited;     /* per agent: it was inside the zone after some step */
    double worst_wall; /* metres a body reached into a wall, the most over the run */
    char error[300];
} sim;

/* Path of scene `name` (no folder, no .yaml) in scenes/verification/ of the working directory,
 * else of the source tree. */
static bool scene_path(const char *name, char *path, size_t cap) {
    const char *dirs[] = {"scenes", THRONG_SCENES_DIR};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        snprintf(path, cap, "%s/verification/%s.yaml", dirs[i], name);
        if (access(path, R_OK) == 0) return true;
    }
    return false;
}

static void sim_close(sim *s) {
    if (s->w) th_world_destroy(s->w);
    free(s->id);
    free(s->crowd);
    free(s->radius);
    free(s->x);
    free(s->y);
    free(s->t_out);
    for (int g = 0; g < MAX_GATES; g++) free(s->t_gate[g]);
    free(s->visited);
    memset(s, 0, sizeof *s);
}

/* Open scene `name`; seed 0 keeps the scene's, agents 0 its counts. False with s->error. */
static bool open_sim(sim *s, const char *name, const vopts *o, uint64_t seed, uint32_t agents) {
    memset(s, 0, sizeof *s);
    g_runs++;
    char path[4096];
    if (!scene_path(name, path, sizeof path)) {
        snprintf(s->error, sizeof s->error, "scene verification/%s.yaml not found", name);
        return false;
    }
    th_scene_open_opts so = {
        .threads = o->threads, .has_seed = seed != 0, .seed = seed, .agents = agents};
    th_scene_info info;
    th_error err;
    s->w = th_scene_open(path, &so, &info, &err);
    if (!s->w) {
        copy_text(s->error, sizeof s->error, err.message);
        return false;
    }
    s->dt = info.timestep;
    th_agent_view v = th_world_agents(s->w);
    s->n = v.count;
    size_t n = s->n ? s->n : 1;
    s->id = malloc(n * sizeof *s->id);
    s->crowd = malloc(n * sizeof *s->crowd);
    s->radius = malloc(n * sizeof *s->radius);
    s->x = malloc(n * sizeof *s->x);
    s->y = malloc(n * sizeof *s->y);
    s->t_out = malloc(n * sizeof *s->t_out);
    if (!s->id || !s->crowd || !s->radius || !s->x || !s->y || !s->t_out) {
        snprintf(s->error, sizeof s->error, "out of memory");
        sim_close(s);
        return false;
    }
    for (uint32_t i = 0; i < s->n; i++) {
        s->id[i] = v.id[i];
        s->crowd[i] = v.crowd[i];
        s->radius[i] = th_world_get_crowd(s->w, (th_crowd_id){v.crowd[i] + 1u})->body_radius;
        s->x[i] = v.px[i];
        s->y[i] = v.py[i];
        s->t_out[i] = NAN;
    }
    return true;
}

/* open_sim, and on failure its message in `why` (cap bytes) for the judge's row. */
static bool sim_open(sim *s, const char *name, const vopts *o, uint64_t seed, uint32_t agents,
                     char *why, size_t cap) {
    if (open_sim(s, name, o, seed, agents)) return true;
    copy_text(why, cap, s->error);
    return false;
}

/* Record the first time each agent crosses `at` on `axis` in direction `dir`. */
static bool sim_gate(sim *s, int axis, double at, int dir) {
    if (s->gates >= MAX_GATES) return false;
    int g = s->gates++;
    s->gate_axis[g] = axis;
    s->gate_at[g] = at;
    s->gate_dir[g] = dir;
    s->t_gate[g] = malloc((s->n ? s->n : 1) * sizeof(double));
    if (!s->t_gate[g]) return false;
    for (uint32_t i = 0; i < s->n; i++) s->t_gate[g][i] = NAN;
    return true;
}

/* Mark the agents that are ever inside [x0, x1) x [y0, y1). */
static bool sim_zone(sim *s, double x0, double y0, double x1, double y1) {
    s->visited = calloc(s->n ? s->n : 1, sizeof *s->visited);
    if (!s->visited) return false;
    s->zone_on = true;
    s->zone[0] = x0;
    s->zone[1] = y0;
    s->zone[2] = x1;
    s->zone[3] = y1;
    return true;
}

/* How deep disc (x, y, r) reaches into the nearest blocked map cell (0 when it touches none). */
static double wall_penetration(const th_world *w, double px, double py, double r) {
    int32_t cols, rows;
    float cs;
    if (r <= 0.0 || !th_world_map_size(w, &cols, &rows, &cs)) return 0.0;
    double worst = 0.0;
    for (int32_t y = (int32_t)floor((py - r) / cs); y <= (int32_t)floor((py + r) / cs); y++) {
        for (int32_t x = (int32_t)floor((px - r) / cs); x <= (int32_t)floor((px + r) / cs); x++) {
            if (x < 0 || y < 0 || x >= cols || y >= rows) continue;
            if (th_world_cell(w, x, y, NULL) == TH_CELL_OPEN) continue;
            double qx = fmax(x * cs, fmin(px, (x + 1) * cs));
            double qy = fmax(y * cs, fmin(py, (y + 1) * cs));
            double d = hypot(px - qx, py - qy);
            if (r - d > worst) worst = r - d;
        }
    }
    return worst;
}

static void sim_step(sim *s) {
    th_world_step(s->w);
    double t0 = s->t;
    s->t += s->dt;
    for (uint32_t i = 0; i < s->n; i++) {
        if (!isnan(s->t_out[i])) continue;
        th_agent_state a;
        if (!th_world_get_agent(s->w, s->id[i], &a)) {
            s->t_out[i] = s->t;
            s->left++;
            continue;
        }
        double nx = a.position.x, ny = a.position.y;
        for (int g = 0; g < s->gates; g++) {
            if (!isnan(s->t_gate[g][i])) continue;
            double p = s->gate_axis[g] ? s->y[i] : s->x[i], q = s->gate_axis[g] ? ny : nx;
            double at = s->gate_at[g];
            bool crossed = s->gate_dir[g] > 0 ? (p < at && q >= at) : (p > at && q <= at);
            if (crossed) s->t_gate[g][i] = t0 + s->dt * (at - p) / (q - p);
        }
        s->x[i] = nx;
        s->y[i] = ny;
        if (s->zone_on && nx >= s->zone[0] && nx < s->zone[2] && ny >= s->zone[1] &&
            ny < s->zone[3])
            s->visited[i] = true;
        if (s->wall_check) {
            double pen = wall_penetration(s->w, nx, ny, s->radius[i]);
            if (pen > s->worst_wall) s->worst_wall = pen;
        }
    }
}

/* Step until every agent followed has left, the scene is over, or `max_s` seconds. */
static void sim_run(sim *s, double max_s) {
    uint64_t steps = (uint64_t)llround(max_s / s->dt);
    for (uint64_t k = 0; k < steps; k++) {
        sim_step(s);
        if (s->left == s->n || th_world_scene_over(s->w)) break;
    }
}

/* The latest time an agent of crowd `crowd` (-1: any) left; NaN when one has not. */
static double last_out(const sim *s, int crowd) {
    double t = 0.0;
    for (uint32_t i = 0; i < s->n; i++) {
        if (crowd >= 0 && s->crowd[i] != crowd) continue;
        if (isnan(s->t_out[i])) return NAN;
        if (s->t_out[i] > t) t = s->t_out[i];
    }
    return t;
}

/* Persons a second from the a-th to the b-th (a < b) of sorted passage times t: those after
 * the a-th over the time between; NaN when no time passes. */
static double flow_between(const double *t, size_t a, size_t b) {
    return t[b] > t[a] ? (double)(b - a) / (t[b] - t[a]) : NAN;
}

/* Flow over sorted passage times t[0..n): persons after the first per second until the last. */
static double flow_of(const double *t, size_t n) { return n < 2 ? NAN : flow_between(t, 0, n - 1); }

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorted passage times of gate g (those that crossed) into out; returns how many. */
static size_t gate_times(const sim *s, int g, double *out) {
    size_t k = 0;
    for (uint32_t i = 0; i < s->n; i++)
        if (!isnan(s->t_gate[g][i])) out[k++] = s->t_gate[g][i];
    qsort(out, k, sizeof *out, by_value);
    return k;
}

/* Sorted times the agents followed left the world (those that did) into out; how many. */
static size_t out_times(const sim *s, double *out) {
    size_t k = 0;
    for (uint32_t i = 0; i < s->n; i++)
        if (!isnan(s->t_out[i])) out[k++] = s->t_out[i];
    qsort(out, k, sizeof *out, by_value);
    return k;
}

/* A cached figure: each simulation runs once per `throng verify`, however many tests read it. */
typedef struct vcache {
    bool done, ok;
    bool counted;         /* runs below is known */
    uint64_t start, runs; /* g_runs when it began; scenes it opened */
    char error[300];
} vcache;

#define MAX_CACHES 16
static vcache *g_cache[MAX_CACHES];
static uint32_t g_caches;

/* True when the figures are cached (their runs charged to the reading row); else marks them
 * begun, to be counted when the judge that computes them returns (cache_settle). */
static bool cache_begin(vcache *c) {
    if (c->done) {
        g_reused += c->runs;
        return true;
    }
    c->done = true;
    c->start = g_runs;
    if (g_caches < MAX_CACHES) g_cache[g_caches++] = c;
    return false;
}

static void cache_settle(void) {
    for (uint32_t i = 0; i < g_caches; i++) {
        if (g_cache[i]->counted) continue;
        g_cache[i]->runs = g_runs - g_cache[i]->start;
        g_cache[i]->counted = true;
    }
}

static vstatus error_out(const vcache *c, char *m, size_t cap) {
    copy_text(m, cap, c->error);
    return V_ERROR;
}

/* ---- single walkers: speed in a corridor and on stairs ---------------------------------- */

/* Time over [gate 0, gate 1] of the one walker of `scene`: the speed it held over `len`. */
static bool segment_time(const vopts *o, const char *scene, int axis, double a, double b,
                         double *time, char *error, size_t cap) {
    sim s;
    if (!sim_open(&s, scene, o, 0, 0, error, cap)) return false;
    int dir = b > a ? 1 : -1;
    sim_gate(&s, axis, a, dir);
    sim_gate(&s, axis, b, dir);
    sim_run(&s, 300.0);
    bool ok = s.n == 1 && !isnan(s.t_gate[0][0]) && !isnan(s.t_gate[1][0]);
    *time = ok ? s.t_gate[1][0] - s.t_gate[0][0] : NAN;
    if (!ok) snprintf(error, cap, "the walker did not cross both ends of the segment");
    sim_close(&s);
    return ok;
}

/* RiMEA 1: 1.33 m/s over the 40 m corridor, the whole walk from its start to the exit. */
static vstatus judge_rimea1(const vopts *o, char *m, size_t cap) {
    sim s;
    if (!sim_open(&s, "rimea1_corridor", o, 0, 0, m, cap)) return V_ERROR;
    sim_run(&s, 120.0);
    double t = last_out(&s, -1);
    sim_close(&s);
    if (isnan(t)) {
        snprintf(m, cap, "the walker did not arrive within 120 s");
        return V_FAIL;
    }
    snprintf(m, cap, "travel time %.2f s", t);
    return t >= 26.0 && t <= 34.0 ? V_PASS : V_FAIL;
}

static struct {
    vcache c;
    double t;
} corridor_1ms;

/* ISO 2, NIST 2.1, IMO 1: 1.0 m/s over the 40 m measured between x = 10.5 and 50.5 m. */
static bool run_corridor_1ms(const vopts *o) {
    if (!cache_begin(&corridor_1ms.c)) {
        corridor_1ms.c.ok = segment_time(o, "corridor_1ms", 0, 10.5, 50.5, &corridor_1ms.t,
                                         corridor_1ms.c.error, sizeof corridor_1ms.c.error);
    }
    return corridor_1ms.c.ok;
}

static vstatus judge_corridor_speed(const vopts *o, char *m, size_t cap) {
    if (!run_corridor_1ms(o)) return error_out(&corridor_1ms.c, m, cap);
    double v = 40.0 / corridor_1ms.t;
    snprintf(m, cap, "%.3f m/s over 40 m (%.2f s)", v, corridor_1ms.t);
    return fabs(v - 1.0) <= 0.05 ? V_PASS : V_FAIL;
}

static vstatus judge_imo1(const vopts *o, char *m, size_t cap) {
    if (!run_corridor_1ms(o)) return error_out(&corridor_1ms.c, m, cap);
    snprintf(m, cap, "%.2f s over 40 m", corridor_1ms.t);
    return fabs(corridor_1ms.t - 40.0) <= 2.0 ? V_PASS : V_FAIL;
}

/* Stairs: a 10 m flight (length along the slope, 8 m of plan rising 6 m) between a ground
 * level and an upper one, walked at 1.0 m/s with the stair speeds the tests assign (0.5 up,
 * 0.75 down): 20 s up, 13.33 s down, timed on the flight itself (from stepping onto it to
 * crossing its top going up; from crossing its top to leaving its foot going down). */
static struct {
    vcache c;
    double up, down;
} stairs;

static bool flight_time(const vopts *o, const char *scene, bool up, double *time, char *error,
                        size_t cap) {
    sim s;
    if (!sim_open(&s, scene, o, 0, 0, error, cap)) return false;
    const th_stair_id flight = th_world_find_stair(s.w, "flight");
    th_stair_info st;
    bool ok = s.n == 1 && th_world_get_stair(s.w, flight, &st);
    double t0 = NAN, t1 = NAN;
    for (uint64_t k = 0; ok && isnan(t1) && k < (uint64_t)llround(120.0 / s.dt); k++) {
        sim_step(&s);
        th_agent_state a;
        if (!th_world_get_agent(s.w, s.id[0], &a)) break;
        const bool on = th_world_stair_at(s.w, a.position).index1 == flight.index1;
        const uint32_t level = th_world_level_at(s.w, a.position).index1;
        if (up) {
            if (isnan(t0) && on) t0 = s.t;
            if (!isnan(t0) && level == st.upper.index1) t1 = s.t;
        } else {
            if (isnan(t0) && on && level == st.lower.index1) t0 = s.t;
            if (!isnan(t0) && !on) t1 = s.t;
        }
    }
    ok = ok && !isnan(t1);
    *time = ok ? t1 - t0 : NAN;
    if (!ok) snprintf(error, cap, "the walker did not walk the whole flight within 120 s");
    sim_close(&s);
    return ok;
}

static bool run_stairs(const vopts *o) {
    if (!cache_begin(&stairs.c)) {
        stairs.c.ok =
            flight_time(o, "stairs_up", true, &stairs.up, stairs.c.error, sizeof stairs.c.error) &&
            flight_time(o, "stairs_down", false, &stairs.down, stairs.c.error,
                        sizeof stairs.c.error);
    }
    return stairs.c.ok;
}

static vstatus stairs_judge(const vopts *o, char *m, size_t cap, bool up, bool down) {
    if (!run_stairs(o)) return error_out(&stairs.c, m, cap);
    bool ok = true;
    char a[80] = "", b[80] = "";
    if (up) {
        snprintf(a, sizeof a, "up %.2f s (expected 20.00)", stairs.up);
        ok &= fabs(stairs.up - 20.0) <= 0.05 * 20.0;
    }
    if (down) {
        snprintf(b, sizeof b, "%sdown %.2f s (expected 13.33)", up ? ", " : "", stairs.down);
        ok &= fabs(stairs.down - 10.0 / 0.75) <= 0.05 * 10.0 / 0.75;
    }
    snprintf(m, cap, "%s%s", a, b);
    return ok ? V_PASS : V_FAIL;
}

static vstatus judge_stairs_up(const vopts *o, char *m, size_t cap) {
    return stairs_judge(o, m, cap, true, false);
}
static vstatus judge_stairs_down(const vopts *o, char *m, size_t cap) {
    return stairs_judge(o, m, cap, false, true);
}
static vstatus judge_stairs_both(const vopts *o, char *m, size_t cap) {
    return stairs_judge(o, m, cap, true, true);
}

/* ---- the fundamental diagram ------------------------------------------------------------- */

#define FD_POINTS 6
static const double k_fd_density[FD_POINTS] = {0.5, 1.0, 2.0, 3.0, 4.0, 5.0};

/* RiMEA 4's periodic corridor at each density: density and mean speed in its 2 m x 2 m area,
 * averaged over 40 s after 20 s of warm-up (one seed). */
static struct {
    vcache c;
    double rho[FD_POINTS], v[FD_POINTS];
} fd;

static bool run_fd(const vopts *o) {
    if (cache_begin(&fd.c)) return fd.c.ok;
    for (int p = 0; p < FD_POINTS; p++) {
        sim s;
        uint32_t agents = (uint32_t)lround(k_fd_density[p] * 60.0); /* walkway 60 m2 */
        if (!sim_open(&s, "rimea4_corridor", o, 0, agents, fd.c.error, sizeof fd.c.error))
            return false;
        th_measure_area_id area = {1};
        double sr = 0.0, sv = 0.0;
        uint32_t nr = 0, nv = 0;
        uint64_t warm = (uint64_t)llround(20.0 / s.dt), total = (uint64_t)llround(60.0 / s.dt);
        for (uint64_t k = 0; k < total; k++) {
            th_world_step(s.w);
            if (k + 1 < warm) continue;
            th_measure_area_info a;
            if (!th_world_get_measure_area(s.w, area, &a)) break;
            sr += a.density;
            nr++;
            if (!isnan(a.mean_speed)) {
                sv += a.mean_speed;
                nv++;
            }
        }
        sim_close(&s);
        if (nr == 0 || nv == 0) {
            snprintf(fd.c.error, sizeof fd.c.error, "the corridor's measurement area is missing");
            return false;
        }
        fd.rho[p] = sr / nr;
        fd.v[p] = sv / nv;
    }
    fd.c.ok = true;
    return true;
}

static vstatus judge_rimea4(const vopts *o, char *m, size_t cap) {
    if (!run_fd(o)) return error_out(&fd.c, m, cap);
    bool ok = true;
    size_t used = 0;
    for (int p = 0; p < FD_POINTS; p++) {
        double w = th_vs_weidmann_speed(fd.rho[p]);
        bool in = fabs(fd.v[p] - w) <= fmax(0.25 * w, 0.1);
        ok &= in;
        int k = snprintf(m + used, cap - used, "%s%.2f/m2 %.2f m/s (W %.2f)%s", p ? ", " : "",
                         fd.rho[p], fd.v[p], w, in ? "" : " out");
        if (k > 0 && (size_t)k < cap - used) used += (size_t)k;
    }
    return ok ? V_PASS : V_FAIL;
}

/* ISO 13: the corridor's speed-density relation consistent with the model's input, Weidmann's
 * curve, on which its time gap is calibrated (docs/pedestrians.md): speed falling as the
 * density rises, each point within 20 % or 0.1 m/s of the curve (th_vj_iso13_point). */
static vstatus judge_iso13(const vopts *o, char *m, size_t cap) {
    if (!run_fd(o)) return error_out(&fd.c, m, cap);
    bool ok = true;
    size_t used = 0;
    for (int p = 0; p < FD_POINTS; p++) {
        const bool in = th_vj_iso13_point(fd.rho[p], fd.v[p]);
        ok &= in;
        if (p) ok &= fd.v[p] <= fd.v[p - 1] && fd.rho[p] > fd.rho[p - 1];
        int k = snprintf(m + used, cap - used, "%s%.2f/m2 %.2f m/s%s", p ? ", " : "", fd.rho[p],
                         fd.v[p], in ? "" : " out");
        if (k > 0 && (size_t)k < cap - used) used += (size_t)k;
    }
    return ok ? V_PASS : V_FAIL;
}

/* ---- corners ----------------------------------------------------------------------------- */

static struct {
    vcache c;
    uint32_t n, arrived;  /* over seeds 1-3 */
    double worst, radius; /* the deepest reach into a wall over them; the body radius */
} corner;

static bool run_corner(const vopts *o) {
    if (cache_begin(&corner.c)) return corner.c.ok;
    corner.radius = INFINITY;
    for (int seed = 0; seed < CROWD_SEEDS; seed++) {
        sim s;
        if (!sim_open(&s, "corner", o, (uint64_t)seed + 1, 0, corner.c.error,
                      sizeof corner.c.error))
            return false;
        s.wall_check = true;
        sim_run(&s, 120.0);
        corner.n += s.n;
        corner.arrived += s.left;
        corner.worst = fmax(corner.worst, s.worst_wall);
        for (uint32_t i = 0; i < s.n; i++) corner.radius = fmin(corner.radius, s.radius[i]);
        sim_close(&s);
    }
    corner.c.ok = true;
    return true;
}

static vstatus judge_corner(const vopts *o, char *m, size_t cap) {
    if (!run_corner(o)) return error_out(&corner.c, m, cap);
    snprintf(m, cap, "seeds 1-3: %u of %u round the corner, deepest reach into a wall %.4f m",
             corner.arrived, corner.n, corner.worst);
    return corner.n > 0 && corner.arrived == corner.n && corner.worst <= 0.01 * corner.radius
               ? V_PASS
               : V_FAIL;
}

/* ---- demographics: the free speeds drawn against the assigned distribution -------------- */

#define DEMO_SEEDS 3
static struct {
    vcache c;
    double mean, sd, p[DEMO_SEEDS], median_p;
    size_t n;
} demo;

static bool run_demo(const vopts *o) {
    if (cache_begin(&demo.c)) return demo.c.ok;
    double *all = NULL;
    size_t n_all = 0;
    for (int k = 0; k < DEMO_SEEDS; k++) {
        sim s;
        if (!sim_open(&s, "demographics", o, (uint64_t)k + 1, 0, demo.c.error,
                      sizeof demo.c.error)) {
            free(all);
            return false;
        }
        /* Each walker's speed over the 50 m from x = 40 to 90 m, far past its first second. */
        sim_gate(&s, 0, 40.0, 1);
        sim_gate(&s, 0, 90.0, 1);
        sim_run(&s, 400.0);
        double *v = malloc((s.n ? s.n : 1) * sizeof *v);
        double *grown = realloc(all, (n_all + s.n + 1) * sizeof *all);
        if (!v || !grown) {
            free(v);
            free(grown ? grown : all);
            sim_close(&s);
            snprintf(demo.c.error, sizeof demo.c.error, "out of memory");
            return false;
        }
        all = grown;
        size_t nv = 0;
        for (uint32_t i = 0; i < s.n; i++) {
            double a = s.t_gate[0][i], b = s.t_gate[1][i];
            if (!isnan(a) && !isnan(b) && b > a) v[nv++] = 50.0 / (b - a);
        }
        memcpy(all + n_all, v, nv * sizeof *v);
        n_all += nv;
        demo.p[k] = nv == s.n
                        ? th_vs_ks_pvalue(th_vs_ks_statistic(v, nv, th_vs_normal_cdf, 1.2, 0.2), nv)
                        : 0.0;
        free(v);
        sim_close(&s);
    }
    demo.n = n_all;
    demo.mean = th_vs_mean(all, n_all);
    demo.sd = th_vs_sd(all, n_all);
    free(all);
    double p[DEMO_SEEDS];
    memcpy(p, demo.p, sizeof p);
    qsort(p, DEMO_SEEDS, sizeof *p, by_value);
    demo.median_p = p[DEMO_SEEDS / 2];
    demo.c.ok = true;
    return true;
}

static vstatus judge_demo(const vopts *o, char *m, size_t cap) {
    if (!run_demo(o)) return error_out(&demo.c, m, cap);
    snprintf(m, cap, "%zu walkers over %d seeds: mean %.3f, sd %.3f m/s; KS p %.2f %.2f %.2f",
             demo.n, DEMO_SEEDS, demo.mean, demo.sd, demo.p[0], demo.p[1], demo.p[2]);
    bool ok = demo.n == 100 * DEMO_SEEDS && fabs(demo.mean - 1.2) < 0.05 &&
              fabs(demo.sd - 0.2) < 0.05 && demo.median_p > 0.05;
    return ok ? V_PASS : V_FAIL;
}

/* RiMEA 7: the walkers of each age group (crowd g) hold a speed within its range +- 0.03 m/s
 * over x = 20-60 m, and the groups' mean speeds fall with age. */
static vstatus judge_rimea7(const vopts *o, char *m, size_t cap) {
    static const double lo[6] = {1.60, 1.52, 1.46, 1.39, 1.27, 1.07};
    static const double hi[6] = {1.64, 1.56, 1.50, 1.43, 1.27, 1.07};
    sim s;
    if (!sim_open(&s, "rimea7_demographics", o, 0, 0, m, cap)) return V_ERROR;
    sim_gate(&s, 0, 20.0, 1);
    sim_gate(&s, 0, 60.0, 1);
    sim_run(&s, 150.0);
    double sum[6] = {0}, mean[6];
    uint32_t cnt[6] = {0}, outside = 0, measured = 0;
    for (uint32_t i = 0; i < s.n; i++) {
        double a = s.t_gate[0][i], b = s.t_gate[1][i];
        unsigned g = s.crowd[i];
        if (g >= 6 || isnan(a) || isnan(b) || b <= a) continue;
        double v = 40.0 / (b - a);
        measured++;
        sum[g] += v;
        cnt[g]++;
        if (v < lo[g] - 0.03 || v > hi[g] + 0.03) outside++;
    }
    bool falling = true;
    for (int g = 0; g < 6; g++) {
        mean[g] = cnt[g] ? sum[g] / cnt[g] : NAN;
        if (g) falling &= mean[g] < mean[g - 1];
    }
    snprintf(m, cap,
             "means by age 20-70: %.3f %.3f %.3f %.3f %.3f %.3f m/s; %u of %u outside their "
             "range +- 0.03",
             mean[0], mean[1], mean[2], mean[3], mean[4], mean[5], outside, measured);
    vstatus st = s.n == 50 && measured == s.n && outside == 0 && falling ? V_PASS : V_FAIL;
    sim_close(&s);
    return st;
}

/* IMO 7: each of the 50 (crowd g: group g of the guidelines' table) holds a speed within its
 * group's range +- 0.03 m/s over x = 20-60 m, and the speeds placed within their ranges are
 * uniform on [0, 1] by the one-sample KS test at 5 %. */
static vstatus judge_imo7(const vopts *o, char *m, size_t cap) {
    static const double lo[10] = {0.93, 0.71, 0.56, 0.43, 0.37, 1.11, 0.97, 0.84, 0.64, 0.55};
    static const double hi[10] = {1.55, 1.19, 0.94, 0.71, 0.61, 1.85, 1.62, 1.40, 1.06, 0.91};
    sim s;
    if (!sim_open(&s, "imo7_demographics", o, 0, 0, m, cap)) return V_ERROR;
    sim_gate(&s, 0, 20.0, 1);
    sim_gate(&s, 0, 60.0, 1);
    sim_run(&s, 150.0);
    double u[50];
    uint32_t outside = 0, measured = 0;
    for (uint32_t i = 0; i < s.n && measured < 50; i++) {
        const double a = s.t_gate[0][i], b = s.t_gate[1][i];
        const unsigned g = s.crowd[i];
        if (g >= 10 || isnan(a) || isnan(b) || b <= a) continue;
        const double v = 40.0 / (b - a);
        if (v < lo[g] - 0.03 || v > hi[g] + 0.03) outside++;
        u[measured++] = fmin(1.0, fmax(0.0, (v - lo[g]) / (hi[g] - lo[g])));
    }
    const double d = th_vs_ks_statistic(u, measured, th_vs_uniform_cdf, 0.0, 1.0);
    const double p = th_vs_ks_pvalue(d, measured);
    snprintf(m, cap, "%u of %u measured, %u outside their range +- 0.03; KS D %.3f, p %.2f",
             measured, s.n, outside, d, p);
    const vstatus st = s.n == 50 && measured == 50 && outside == 0 && p > 0.05 ? V_PASS : V_FAIL;
    sim_close(&s);
    return st;
}

/* ---- flows through doors ----------------------------------------------------------------- */

/* IMO 4, ISO 11, NIST 5.2: 100 persons leave an 8 m x 5 m room by a 1 m exit, limited to the
 * regulatory 1.33 persons/s (judged); and the same room without the limit at three cell sizes
 * and three seeds each (reported: the flow the crowd makes by itself). */
#define DOOR_SEEDS 3
#define DOOR_CELLS 3
static const char *const k_door_free[DOOR_CELLS] = {"door_1m_free_050", "door_1m_free_025",
                                                    "door_1m_free_010"};
static const double k_door_cell[DOOR_CELLS] = {0.5, 0.25, 0.1};
static struct {
    vcache c;
    th_vj_door limited;
    float max_flow; /* the judged exit's limit as the scene sets it (0: none) */
    double free_mean[DOOR_CELLS], free_sd[DOOR_CELLS];
} door;

/* (N - 1) / (t_last - t_first) out of `scene` at `seed` (0: the scene's); *out who got out. */
static bool door_flow(const vopts *o, const char *scene, uint64_t seed, double *flow, uint32_t *out,
                      uint32_t *n, float *max_flow) {
    sim s;
    if (!sim_open(&s, scene, o, seed, 0, door.c.error, sizeof door.c.error)) return false;
    th_bunker_info exit = {0};
    th_world_get_bunker(s.w, (th_bunker_id){1}, &exit);
    *max_flow = exit.max_flow;
    sim_run(&s, 400.0);
    double *t = malloc((s.n ? s.n : 1) * sizeof *t);
    const size_t k = t ? out_times(&s, t) : 0;
    *flow = t ? flow_of(t, k) : NAN;
    *out = (uint32_t)k;
    *n = s.n;
    free(t);
    sim_close(&s);
    if (t) return true;
    snprintf(door.c.error, sizeof door.c.error, "out of memory");
    return false;
}

static bool run_door(const vopts *o) {
    if (cache_begin(&door.c)) return door.c.ok;
    door.limited.limit = 1.33;
    if (!door_flow(o, "door_1m", 0, &door.limited.flow, &door.limited.out, &door.limited.n,
                   &door.max_flow))
        return false;
    for (int c = 0; c < DOOR_CELLS; c++) {
        double f[DOOR_SEEDS];
        for (int k = 0; k < DOOR_SEEDS; k++) {
            uint32_t out, n;
            float limit;
            if (!door_flow(o, k_door_free[c], (uint64_t)k + 1, &f[k], &out, &n, &limit))
                return false;
            if (out != n) f[k] = NAN; /* not everyone out: no flow to report */
        }
        door.free_mean[c] = th_vs_mean(f, DOOR_SEEDS);
        door.free_sd[c] = th_vs_sd(f, DOOR_SEEDS);
    }
    door.c.ok = true;
    return true;
}

static vstatus judge_door(const vopts *o, char *m, size_t cap) {
    if (!run_door(o)) return error_out(&door.c, m, cap);
    int k = door.max_flow > 0.0f ? snprintf(m, cap, "exit limited to %.2f: ", (double)door.max_flow)
                                 : snprintf(m, cap, "exit without a limit: ");
    k += snprintf(m + k, cap - (size_t)k, "%.2f persons/s (%u of %u out); without the limit",
                  door.limited.flow, door.limited.out, door.limited.n);
    for (int c = 0; c < DOOR_CELLS && k > 0 && (size_t)k < cap; c++) {
        k += snprintf(m + k, cap - (size_t)k, "%s %.2f +- %.2f at %g m cells", c ? "," : "",
                      door.free_mean[c], door.free_sd[c], k_door_cell[c]);
    }
    if (k > 0 && (size_t)k < cap)
        snprintf(m + k, cap - (size_t)k, " (3 seeds; experiments 1.71-2.02)");
    return th_vj_door_pass(&door.limited) ? V_PASS : V_FAIL;
}

/* RiMEA 9, IMO 9: 1000 persons leave a 30 m x 20 m room by four 1 m exits, then by two. */
static struct {
    vcache c;
    double t4[CROWD_SEEDS], t2[CROWD_SEEDS];
} hall;

static bool run_hall(const vopts *o) {
    if (cache_begin(&hall.c)) return hall.c.ok;
    for (int run = 0; run < 2 * CROWD_SEEDS; run++) {
        const int closed = run % 2, seed = run / 2;
        sim s;
        if (!sim_open(&s, "public_room", o, (uint64_t)seed + 1, 0, hall.c.error,
                      sizeof hall.c.error))
            return false;
        if (closed) {
            const char *names[] = {"exit1", "exit2"};
            for (int k = 0; k < 2; k++) {
                th_error err;
                th_bunker_id b = th_world_find_bunker(s.w, names[k]);
                if (!th_world_destroy_bunker(s.w, b, &err)) {
                    copy_text(hall.c.error, sizeof hall.c.error, err.message);
                    sim_close(&s);
                    return false;
                }
            }
        }
        sim_run(&s, 1200.0);
        double t = last_out(&s, -1);
        sim_close(&s);
        if (closed) hall.t2[seed] = t;
        else hall.t4[seed] = t;
    }
    hall.c.ok = true;
    return true;
}

static vstatus judge_hall(const vopts *o, char *m, size_t cap) {
    if (!run_hall(o)) return error_out(&hall.c, m, cap);
    double r[CROWD_SEEDS];
    int passed = 0;
    for (int k = 0; k < CROWD_SEEDS; k++) {
        r[k] = hall.t2[k] / hall.t4[k];
        passed += !isnan(r[k]) && r[k] >= 1.8 && r[k] <= 2.2;
    }
    snprintf(m, cap,
             "seeds 1-3: 4 exits %.1f, %.1f, %.1f s; 2 exits %.1f, %.1f, %.1f s: ratios %.2f, "
             "%.2f, %.2f",
             hall.t4[0], hall.t4[1], hall.t4[2], hall.t2[0], hall.t2[1], hall.t2[2], r[0], r[1],
             r[2]);
    return passed == CROWD_SEEDS ? V_PASS : V_FAIL;
}

/* RiMEA 12 in parts (app/verify_judge.h), at seeds 1, 2 and 3: the densities in front of the
 * corridor, just past it and in front of room B's exit (areas 1, 2, 3 of the scene) averaged
 * over the steps while the crowd passes (from the 10 % to the 90 % passage of the corridor's
 * end), and the flows at the corridor's end and out of room B from the 10 % to the 90 % person
 * (the first and last few walk alone: their free speeds, not the doors, set their times). Every
 * seed must pass. */
#define R12_MAX_S 400.0

/* Persons a second from the 10 % to the 90 % of sorted times t[0..n). */
static double flow_10_90(const double *t, size_t n) {
    return n < 10 ? NAN : flow_between(t, n / 10, n - 1 - n / 10);
}

/* A crowd's passage past a line: a run of `scene` at `seed` with a gate at `at` on `axis`
 * (crossed toward larger values) and the scene's first three measurement areas. `mean[i]` is
 * area i's density averaged over the steps from the 10 % to the 90 % passage of the gate
 * (NaN when fewer than ten pass); `gate` and `out` the sorted times of the gate's crossings and
 * of leaving. passage_free releases them. */
typedef struct passage {
    uint32_t n;
    double mean[3];
    double *gate, *out;
    size_t ngate, nout;
} passage;

static void passage_free(passage *p) {
    free(p->gate);
    free(p->out);
    p->gate = p->out = NULL;
}

static bool passage_run(const vopts *o, const char *scene, uint64_t seed, int axis, double at,
                        double max_s, passage *p, char *m, size_t cap) {
    memset(p, 0, sizeof *p);
    sim s;
    if (!sim_open(&s, scene, o, seed, 0, m, cap)) return false;
    sim_gate(&s, axis, at, 1);
    const uint64_t steps = (uint64_t)llround(max_s / s.dt);
    double *dens = malloc(3 * steps * sizeof *dens);
    p->gate = malloc((s.n ? s.n : 1) * sizeof *p->gate);
    p->out = malloc((s.n ? s.n : 1) * sizeof *p->out);
    bool ok = dens && p->gate && p->out;
    if (!ok) snprintf(m, cap, "out of memory");
    uint64_t k = 0;
    for (; ok && k < steps && s.left < s.n && !th_world_scene_over(s.w); k++) {
        sim_step(&s);
        for (uint32_t i = 0; i < 3; i++) {
            th_measure_area_info info;
            if (!th_world_get_measure_area(s.w, (th_measure_area_id){i + 1}, &info)) {
                snprintf(m, cap, "%s: expected three measurement areas", scene);
                ok = false;
                break;
            }
            dens[3 * k + i] = info.density;
        }
    }
    if (ok) {
        p->n = s.n;
        p->ngate = gate_times(&s, 0, p->gate);
        p->nout = out_times(&s, p->out);
        double sum[3] = {0, 0, 0};
        uint64_t used = 0;
        if (p->ngate >= 10) {
            const double t0 = p->gate[p->ngate / 10], t1 = p->gate[p->ngate - 1 - p->ngate / 10];
            for (uint64_t i = 0; i < k; i++) {
                const double t = (double)(i + 1) * s.dt;
                if (t < t0 || t > t1) continue;
                for (int j = 0; j < 3; j++) sum[j] += dens[3 * i + j];
                used++;
            }
        }
        for (int j = 0; j < 3; j++) p->mean[j] = used ? sum[j] / (double)used : NAN;
    }
    free(dens);
    sim_close(&s);
    if (!ok) passage_free(p);
    return ok;
}

/* The least and the greatest of each of n figures over runs, taken one run at a time. */
static void span_add(double *lo, double *hi, const double *v, int n) {
    for (int i = 0; i < n; i++) lo[i] = fmin(lo[i], v[i]), hi[i] = fmax(hi[i], v[i]);
}

static bool rimea12_run(const vopts *o, uint64_t seed, th_vj_rimea12 *r, char *m, size_t cap) {
    passage p;
    if (!passage_run(o, "rimea12_bottleneck", seed, 0, 15.5, R12_MAX_S, &p, m, cap)) return false;
    *r = (th_vj_rimea12){.n = p.n,
                         .out = (uint32_t)p.nout,
                         .before = p.mean[0],
                         .after = p.mean[1],
                         .exit_front = p.mean[2],
                         .j_corridor = flow_10_90(p.gate, p.ngate),
                         .j_exit = flow_10_90(p.out, p.nout)};
    passage_free(&p);
    return true;
}

static vstatus judge_rimea12(const vopts *o, char *m, size_t cap) {
    th_vj_rimea12 r[CROWD_SEEDS];
    uint32_t passed = 0, out = 0, n = 0;
    double lo[5] = {INFINITY, INFINITY, INFINITY, INFINITY, INFINITY}, hi[5] = {0, 0, 0, 0, 0};
    for (int k = 0; k < CROWD_SEEDS; k++) {
        if (!rimea12_run(o, (uint64_t)k + 1, &r[k], m, cap)) return V_ERROR;
        passed += th_vj_rimea12_pass(&r[k]);
        out += r[k].out;
        n += r[k].n;
        const double v[5] = {r[k].before, r[k].after, r[k].exit_front, r[k].j_corridor,
                             r[k].j_exit};
        span_add(lo, hi, v, 5);
    }
    snprintf(m, cap,
             "seeds 1-3: mean density before the corridor %.2f-%.2f, past it %.2f-%.2f, at the "
             "exit %.2f-%.2f /m2; 10-90 %% flow corridor %.2f-%.2f, exit %.2f-%.2f persons/s; %u "
             "of %u out; %u of %d seeds pass",
             lo[0], hi[0], lo[1], hi[1], lo[2], hi[2], lo[3], hi[3], lo[4], hi[4], out, n, passed,
             CROWD_SEEDS);
    return passed == CROWD_SEEDS ? V_PASS : V_FAIL;
}

/* ---- route choice ------------------------------------------------------------------------ */

/* RiMEA 10, ISO 8, NIST 3.1, IMO 10: every person leaves by the exit assigned to its crowd
 * (crowd 0: the main exit, west of x = 4.5 m; crowd 1: the secondary exit, east of 34.5 m). */
static struct {
    vcache c;
    uint32_t n, right, out;
} alloc_r;

static bool run_alloc(const vopts *o) {
    if (cache_begin(&alloc_r.c)) return alloc_r.c.ok;
    sim s;
    if (!sim_open(&s, "route_allocation", o, 0, 0, alloc_r.c.error, sizeof alloc_r.c.error))
        return false;
    sim_run(&s, 300.0);
    alloc_r.n = s.n;
    for (uint32_t i = 0; i < s.n; i++) {
        if (isnan(s.t_out[i])) continue;
        alloc_r.out++;
        bool west = s.x[i]<4.5, east = s.x[i]> 34.5;
        if ((s.crowd[i] == 0 && west) || (s.crowd[i] == 1 && east)) alloc_r.right++;
    }
    sim_close(&s);
    alloc_r.c.ok = true;
    return true;
}

static vstatus judge_alloc(const vopts *o, char *m, size_t cap) {
    if (!run_alloc(o)) return error_out(&alloc_r.c, m, cap);
    snprintf(m, cap, "%u of %u left by their assigned exit (%u out)", alloc_r.right, alloc_r.n,
             alloc_r.out);
    return alloc_r.n > 0 && alloc_r.right == alloc_r.n ? V_PASS : V_FAIL;
}

/* RiMEA 11: most leave by the nearer exit, and some by the other. */
static vstatus judge_rimea11(const vopts *o, char *m, size_t cap) {
    sim s;
    if (!sim_open(&s, "rimea11_exit_choice", o, 0, 0, m, cap)) return V_ERROR;
    sim_run(&s, 1200.0);
    uint32_t near = 0, far = 0;
    for (uint32_t i = 0; i < s.n; i++) {
        if (isnan(s.t_out[i])) continue;
        if (s.x[i] < 15.0) near++;
        else far++;
    }
    snprintf(m, cap, "%u by exit 1 (near), %u by exit 2 (far), %u left of %u", near, far,
             near + far, s.n);
    bool ok = near + far == s.n && near > far && far > 0;
    sim_close(&s);
    return ok ? V_PASS : V_FAIL;
}

/* ISO 9, NIST 4.1: exit 1 closes at 1 s; the occupant leaves by exit 2. */
/* The door variant: a destination goal with a west and an east door, the west one closed by a
 * block event at 1 s and opened again at 4 s. The person turns east while it is closed
 * (crosses x = 7.5 m eastward, from its start at 6.5 m walking west), then back, and leaves by
 * the west door after 4 s. */
static bool dynamic_door(const vopts *o, char *m, size_t cap, bool *ok) {
    sim s;
    if (!sim_open(&s, "dynamic_door", o, 0, 0, m, cap)) return false;
    sim_gate(&s, 0, 7.5, 1);
    sim_run(&s, 60.0);
    th_exit_info west = {0}, east = {0};
    const bool found = th_world_get_exit(s.w, (th_exit_id){1}, &west) &&
                       th_world_get_exit(s.w, (th_exit_id){2}, &east);
    const double turned = s.n ? s.t_gate[0][0] : NAN, out = s.n ? s.t_out[0] : NAN;
    snprintf(m, cap, "; door closed 1-4 s: turned east at %.1f s, left by the %s door at %.1f s",
             turned,
             !found        ? "?"
             : west.exited ? "west"
             : east.exited ? "east"
                           : "no",
             out);
    *ok = found && s.n == 1 && west.exited == 1 && east.exited == 0 && turned > 1.0 &&
          turned < 4.5 && out > 4.0;
    sim_close(&s);
    return true;
}

static vstatus judge_dynamic_exit(const vopts *o, char *m, size_t cap) {
    sim s;
    if (!sim_open(&s, "dynamic_exit", o, 0, 0, m, cap)) return V_ERROR;
    sim_run(&s, 120.0);
    th_bunker_info b1, b2;
    bool ok = th_world_get_bunker(s.w, th_world_find_bunker(s.w, "exit1"), &b1) &&
              th_world_get_bunker(s.w, th_world_find_bunker(s.w, "exit2"), &b2);
    if (!ok) {
        snprintf(m, cap, "the scene lacks bunkers exit1 and exit2");
        sim_close(&s);
        return V_ERROR;
    }
    int k = snprintf(m, cap, "exit 1: %u, exit 2: %u of %u", b1.sheltered, b2.sheltered, s.n);
    vstatus st = s.n == 1 && b2.sheltered == 1 && b1.sheltered == 0 ? V_PASS : V_FAIL;
    sim_close(&s);
    bool door_ok = false;
    if (k < 0 || (size_t)k >= cap || !dynamic_door(o, m + k, cap - (size_t)k, &door_ok))
        return V_ERROR;
    return st == V_PASS && door_ok ? V_PASS : V_FAIL;
}

/* ---- counterflow ------------------------------------------------------------------------- */

#define CF_CASES 4
static const int k_cf_counter[CF_CASES] = {0, 10, 50, 100};
static struct {
    vcache c;
    double t[CROWD_SEEDS][CF_CASES];
} cf;

static bool run_cf(const vopts *o) {
    if (cache_begin(&cf.c)) return cf.c.ok;
    for (int seed = 0; seed < CROWD_SEEDS; seed++) {
        for (int k = 0; k < CF_CASES; k++) {
            char name[64];
            snprintf(name, sizeof name, "counterflow_%d", k_cf_counter[k]);
            sim s;
            if (!sim_open(&s, name, o, (uint64_t)seed + 1, 0, cf.c.error, sizeof cf.c.error))
                return false;
            sim_gate(&s, 0, 20.5, 1); /* the corridor's end at room 2 */
            sim_run(&s, 600.0);
            double t = 0.0;
            for (uint32_t i = 0; i < s.n; i++) {
                if (s.crowd[i] != 0) continue;
                double g = s.t_gate[0][i];
                t = isnan(g) || isnan(t) ? NAN : fmax(t, g);
            }
            cf.t[seed][k] = t;
            sim_close(&s);
        }
    }
    cf.c.ok = true;
    return true;
}

/* ISO 6, NIST 2.8, IMO 8: at each of seeds 1-3, the time for the last of the 100 to cross
 * rises with each step of counter-flow. */
static vstatus judge_cf(const vopts *o, char *m, size_t cap) {
    if (!run_cf(o)) return error_out(&cf.c, m, cap);
    int ordered = 0;
    double mean[CF_CASES] = {0};
    for (int seed = 0; seed < CROWD_SEEDS; seed++) {
        bool ok = !isnan(cf.t[seed][0]);
        for (int k = 1; k < CF_CASES; k++)
            ok &= !isnan(cf.t[seed][k]) && cf.t[seed][k] > cf.t[seed][k - 1];
        ordered += ok;
        for (int k = 0; k < CF_CASES; k++) mean[k] += cf.t[seed][k] / CROWD_SEEDS;
    }
    snprintf(m, cap,
             "100 across against 0/10/50/100, mean of seeds 1-3: %.1f, %.1f, %.1f, %.1f s; "
             "rising at %d of %d seeds",
             mean[0], mean[1], mean[2], mean[3], ordered, CROWD_SEEDS);
    return ordered == CROWD_SEEDS ? V_PASS : V_FAIL;
}

/* ---- people with movement disabilities --------------------------------------------------- */

/* ISO 7, NIST 2.10: a slow walker with a walking aid (crowd 1) ahead of 24 others in a 2 m
 * corridor, and the control run where it walks like them. The expectation stated
 * (th_vj_impaired_pass): the evacuation takes the longer of the control's time and the slow
 * walker's own walk to the exit (its distance to the exit bunker's near edge over its free
 * speed), the others overtaking it. */
static vstatus judge_disability(const vopts *o, char *m, size_t cap) {
    th_vj_impaired d[CROWD_SEEDS] = {0};
    const char *names[2] = {"disability", "disability_control"};
    int passed = 0;
    for (int seed = 0; seed < CROWD_SEEDS; seed++) {
        for (int k = 0; k < 2; k++) {
            sim s;
            if (!sim_open(&s, names[k], o, (uint64_t)seed + 1, 0, m, cap)) return V_ERROR;
            th_bunker_info exit;
            float cs = 0.0f;
            uint32_t slow = UINT32_MAX;
            for (uint32_t i = 0; i < s.n; i++)
                if (s.crowd[i] == 1) slow = i;
            if (slow == UINT32_MAX || !th_world_get_bunker(s.w, (th_bunker_id){1}, &exit) ||
                !th_world_map_size(s.w, NULL, NULL, &cs)) {
                snprintf(m, cap, "%s: expected one walker of crowd 'one' and an exit bunker",
                         names[k]);
                sim_close(&s);
                return V_ERROR;
            }
            const double v0 = th_world_get_crowd(s.w, (th_crowd_id){2})->desired_speed;
            const double walk = ((double)exit.x0 * cs - s.x[slow]) / v0;
            sim_run(&s, 300.0);
            if (k == 0) {
                d[seed].walk = walk;
                d[seed].t_slow = s.t_out[slow];
                d[seed].others_with = last_out(&s, 0);
            } else {
                d[seed].others_alone = last_out(&s, 0);
                d[seed].t_control = last_out(&s, -1);
            }
            sim_close(&s);
        }
        passed += th_vj_impaired_pass(&d[seed]);
    }
    double lo[4] = {INFINITY, INFINITY, INFINITY, INFINITY}, hi[4] = {0, 0, 0, 0};
    for (int seed = 0; seed < CROWD_SEEDS; seed++) {
        const double v[4] = {d[seed].t_slow, d[seed].others_with, d[seed].others_alone,
                             d[seed].t_control};
        span_add(lo, hi, v, 4);
    }
    snprintf(m, cap,
             "seeds 1-3: slow walker out at %.1f-%.1f s (its own walk %.1f s), the others by "
             "%.1f-%.1f s (%.1f-%.1f s without it), control %.1f-%.1f s; %d of %d seeds pass",
             lo[0], hi[0], d[0].walk, lo[1], hi[1], lo[2], hi[2], lo[3], hi[3], passed,
             CROWD_SEEDS);
    return passed == CROWD_SEEDS ? V_PASS : V_FAIL;
}

/* ---- congestion before a stair ----------------------------------------------------------- */

/* ISO 10, NIST 5.1, IMO 11 at seeds 1-3 (th_vj_congestion_pass): the densities in the scene's
 * areas across the room's opening, mid-corridor and before the stair (areas 1, 2, 3) averaged
 * over the steps from the 10 % to the 90 % passage of the stair's foot (y = 12 m), and the
 * exit's flow over the 10-50 % and the 50-90 % persons out. */
#define CONGESTION_FOOT_Y 12.0

static bool congestion_run(const vopts *o, uint64_t seed, th_vj_congestion *c, char *m,
                           size_t cap) {
    passage p;
    if (!passage_run(o, "congestion", seed, 1, CONGESTION_FOOT_Y, 600.0, &p, m, cap)) return false;
    const double *b = p.out;
    const size_t nb = p.nout, p10 = nb / 10, p50 = nb / 2, p90 = nb - 1 - nb / 10;
    *c = (th_vj_congestion){.n = p.n,
                            .out = (uint32_t)nb,
                            .room_exit = p.mean[0],
                            .middle = p.mean[1],
                            .stair_foot = p.mean[2],
                            .j_early = nb >= 10 ? flow_between(b, p10, p50) : NAN,
                            .j_late = nb >= 10 ? flow_between(b, p50, p90) : NAN};
    passage_free(&p);
    return true;
}

static vstatus judge_congestion(const vopts *o, char *m, size_t cap) {
    th_vj_congestion c[CROWD_SEEDS];
    int passed = 0;
    double lo[5] = {INFINITY, INFINITY, INFINITY, INFINITY, INFINITY}, hi[5] = {0, 0, 0, 0, 0};
    uint32_t out = 0, n = 0;
    for (int seed = 0; seed < CROWD_SEEDS; seed++) {
        if (!congestion_run(o, (uint64_t)seed + 1, &c[seed], m, cap)) return V_ERROR;
        passed += th_vj_congestion_pass(&c[seed]);
        out += c[seed].out;
        n += c[seed].n;
        const double v[5] = {c[seed].room_exit, c[seed].stair_foot, c[seed].middle, c[seed].j_early,
                             c[seed].j_late};
        span_add(lo, hi, v, 5);
    }
    snprintf(m, cap,
             "seeds 1-3: mean density at the room's exit %.2f-%.2f, at the stair's foot "
             "%.2f-%.2f, mid-corridor %.2f-%.2f /m2; exit flow 10-50 %% %.2f-%.2f, 50-90 %% "
             "%.2f-%.2f persons/s; %u of %u out; %d of %d seeds pass",
             lo[0], hi[0], lo[1], hi[1], lo[2], hi[2], lo[3], hi[3], lo[4], hi[4], out, n, passed,
             CROWD_SEEDS);
    return passed == CROWD_SEEDS ? V_PASS : V_FAIL;
}

/* ---- a large crowd round a corner -------------------------------------------------------- */

static vstatus judge_rimea15(const vopts *o, char *m, size_t cap) {
    double t[CROWD_SEEDS][2];
    const char *names[2] = {"rimea15_straight", "rimea15_corner"};
    int slower = 0;
    for (int seed = 0; seed < CROWD_SEEDS; seed++) {
        for (int k = 0; k < 2; k++) {
            sim s;
            if (!sim_open(&s, names[k], o, (uint64_t)seed + 1, 0, m, cap)) return V_ERROR;
            sim_run(&s, 600.0);
            t[seed][k] = last_out(&s, -1);
            sim_close(&s);
        }
        slower += !isnan(t[seed][0]) && !isnan(t[seed][1]) && t[seed][1] > t[seed][0];
    }
    snprintf(m, cap,
             "seeds 1-3: straight %.1f, %.1f, %.1f s; round the corner %.1f, %.1f, %.1f s; "
             "slower at %d of %d seeds",
             t[0][0], t[1][0], t[2][0], t[0][1], t[1][1], t[2][1], slower, CROWD_SEEDS);
    return slower == CROWD_SEEDS ? V_PASS : V_FAIL;
}

/* ---- RiMEA 16: the single-file fundamental diagram ---------------------------------------- */

/* The ring (rimea16_ring.yaml: a periodic corridor 26 m round, its walkway 0.6 m wide) with
 * these many walkers, global densities of 0.38 to 2.0 persons/m, at seeds 1-3; the same on a
 * 0.8 m walkway (rimea16_ring_080.yaml) at seed 1, reported beside the result. */
#define R16_RUNS 9
static const uint32_t k_r16_agents[R16_RUNS] = {10, 15, 20, 26, 31, 36, 41, 46, 52};
#define R16_LAPS    3.0   /* laps the slowest walker walks before the first sample (JuPedSim's) */
#define R16_WARM    900.0 /* s: the first sample at the latest */
#define R16_MEASURE 60.0  /* s of samples */
#define R16_EVERY   0.5   /* s between samples; a speed is taken over the two around a sample */

typedef struct r16_samples {
    double *rho, *v;
    size_t n, cap;
    uint32_t short_runs; /* runs whose slowest walker had not walked R16_LAPS by R16_WARM */
} r16_samples;

static bool r16_push(r16_samples *a, double rho, double v) {
    if (a->n == a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 4096;
        double *r = realloc(a->rho, cap * sizeof *r);
        if (!r) return false;
        a->rho = r;
        double *w = realloc(a->v, cap * sizeof *w);
        if (!w) return false;
        a->v = w;
        a->cap = cap;
    }
    a->rho[a->n] = rho;
    a->v[a->n] = v;
    a->n++;
    return true;
}

typedef struct r16_place {
    double x; /* position along the ring, [0, L) */
    uint32_t i;
} r16_place;

static int by_place(const void *a, const void *b) {
    double x = ((const r16_place *)a)->x, y = ((const r16_place *)b)->x;
    return (x > y) - (x < y);
}

/* One run of ring `scene` with `agents` walkers at `seed`. Each walker's position along the
 * ring is followed unwrapped (where it started plus the metres it has walked east since). Once
 * the slowest has walked R16_LAPS laps, every R16_EVERY s for R16_MEASURE s, the positions are
 * sampled; at each sample but the first and the last, every walker gives one sample: its 1D
 * Voronoi density 1 / (half the gap to the one ahead + half the gap to the one behind, centre to
 * centre) and its speed, the distance it walked from the sample before to the sample after over
 * the time between. */
static bool r16_run(const vopts *o, const char *scene, uint64_t seed, uint32_t agents,
                    r16_samples *out, char *err, size_t cap) {
    sim s;
    if (!sim_open(&s, scene, o, seed, agents, err, cap)) return false;
    int32_t cols, rows;
    float cs;
    const uint32_t n = s.n;
    const size_t nn = n ? n : 1;
    const uint64_t every = (uint64_t)llround(R16_EVERY / s.dt),
                   most = (uint64_t)llround(R16_WARM / s.dt);
    const uint32_t samples = (uint32_t)llround(R16_MEASURE / R16_EVERY) + 1;
    double *u = malloc(nn * sizeof *u), *start = malloc(nn * sizeof *start),
           *at = malloc(samples * nn * sizeof *at);
    r16_place *place = malloc(nn * sizeof *place);
    bool ok = u && start && at && place;
    if (!ok) snprintf(err, cap, "out of memory");
    if (ok && (!th_world_map_size(s.w, &cols, &rows, &cs) || n < 2)) {
        snprintf(err, cap, "the ring needs a map and two walkers or more");
        ok = false;
    }
    const double len = ok ? cols * (double)cs : 0.0;
    for (uint32_t i = 0; ok && i < n; i++) u[i] = start[i] = s.x[i];
    uint64_t warm = 0; /* the step of the first sample, once known */
    for (uint64_t k = 1; ok && (warm == 0 || k <= warm + (samples - 1) * every); k++) {
        th_world_step(s.w);
        for (uint32_t i = 0; i < n; i++) {
            th_agent_state a;
            if (!th_world_get_agent(s.w, s.id[i], &a)) {
                snprintf(err, cap, "a walker left the ring");
                ok = false;
                break;
            }
            double dx = a.position.x - s.x[i]; /* a step across the seam: the short way */
            if (dx < -0.5 * len) dx += len;
            if (dx > 0.5 * len) dx -= len;
            u[i] += dx;
            s.x[i] = a.position.x;
        }
        if (!ok) break;
        if (warm == 0) {
            double least = INFINITY;
            for (uint32_t i = 0; i < n; i++) least = fmin(least, u[i] - start[i]);
            if (least < R16_LAPS * len && k < most) continue;
            warm = k;
            out->short_runs += least < R16_LAPS * len;
        }
        if ((k - warm) % every == 0) memcpy(at + (k - warm) / every * n, u, n * sizeof *u);
    }
    for (uint32_t j = 1; ok && j + 1 < samples; j++) {
        const double *p = at + (size_t)j * n, *before = p - n, *after = p + n;
        for (uint32_t i = 0; i < n; i++) {
            place[i].x = fmod(fmod(p[i], len) + len, len);
            place[i].i = i;
        }
        qsort(place, n, sizeof *place, by_place);
        for (uint32_t r = 0; r < n && ok; r++) {
            double ahead = place[(r + 1) % n].x - place[r].x,
                   behind = place[r].x - place[(r + n - 1) % n].x;
            if (ahead < 0.0 || (ahead == 0.0 && r + 1 == n)) ahead += len;
            if (behind < 0.0 || (behind == 0.0 && r == 0)) behind += len;
            uint32_t i = place[r].i;
            ok = r16_push(out, 2.0 / (ahead + behind), (after[i] - before[i]) / (2.0 * R16_EVERY));
            if (!ok) snprintf(err, cap, "out of memory");
        }
    }
    free(u);
    free(start);
    free(at);
    free(place);
    sim_close(&s);
    return ok;
}

/* Ring `scene` at every count of k_r16_agents and seed `seed`, its samples binned into r and
 * judged (th_vj_rimea16_pass). */
static bool r16_seed(const vopts *o, const char *scene, uint64_t seed, th_vj_rimea16 *r,
                     uint32_t *judged, uint32_t *inside, bool *pass, uint32_t *short_runs,
                     char *err, size_t cap) {
    r16_samples a = {0};
    bool ok = true;
    for (int k = 0; ok && k < R16_RUNS; k++)
        ok = r16_run(o, scene, seed, k_r16_agents[k], &a, err, cap);
    if (ok) {
        th_vj_rimea16_bin(a.rho, a.v, a.n, r);
        *pass = th_vj_rimea16_pass(r, judged, inside);
        *short_runs += a.short_runs;
    }
    free(a.rho);
    free(a.v);
    return ok;
}

/* Append to m (cap bytes, `*used` of them taken) what printf would write. */
static void m_add(char *m, size_t cap, size_t *used, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void m_add(char *m, size_t cap, size_t *used, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(m + *used, cap - *used, fmt, ap);
    va_end(ap);
    if (k > 0) *used += (size_t)k < cap - *used ? (size_t)k : cap - 1 - *used;
}

/* RiMEA 16: at every seed, the median speed of at least 75 % of the density bins with enough
 * samples inside the experiments' 10-90 % band (th_vj_rimea16_pass). */
static vstatus judge_rimea16(const vopts *o, char *m, size_t cap) {
    th_vj_rimea16 r[CROWD_SEEDS], wide;
    uint32_t judged[CROWD_SEEDS], inside[CROWD_SEEDS], wjudged, winside;
    uint32_t short_runs = 0, wshort = 0;
    int passed = 0;
    bool wpass;
    for (int seed = 0; seed < CROWD_SEEDS; seed++) {
        bool pass;
        if (!r16_seed(o, "rimea16_ring", (uint64_t)seed + 1, &r[seed], &judged[seed], &inside[seed],
                      &pass, &short_runs, m, cap))
            return V_ERROR;
        passed += pass;
    }
    /* The 0.8 m walkway, shown at one seed: it is no single file (docs/verification.md). */
    if (!r16_seed(o, "rimea16_ring_080", 1, &wide, &wjudged, &winside, &wpass, &wshort, m, cap))
        return V_ERROR;
    size_t used = 0;
    m[0] = '\0';
    m_add(m, cap, &used,
          "ring 0.6 m wide, 10-52 walkers on 26 m, seeds 1-3; median m/s per bin from its lower "
          "edge (! outside) [10-90 %% band]:");
    for (int b = 0; b < TH_VJ_R16_BINS; b++) {
        bool any = false;
        for (int seed = 0; seed < CROWD_SEEDS; seed++) any |= r[seed].count[b] >= TH_VJ_R16_MIN;
        if (!any) continue;
        m_add(m, cap, &used, " %.1f", th_vj_r16_band[b].lo);
        for (int seed = 0; seed < CROWD_SEEDS; seed++) {
            if (r[seed].count[b] >= TH_VJ_R16_MIN)
                m_add(m, cap, &used, "%s%.2f%s", seed ? "/" : " ", r[seed].median[b],
                      th_vj_rimea16_inside(&r[seed], b) ? "" : "!");
            else m_add(m, cap, &used, "%s-", seed ? "/" : " ");
        }
        m_add(m, cap, &used, " [%.2f-%.2f];", th_vj_r16_band[b].v10, th_vj_r16_band[b].v90);
    }
    m_add(m, cap, &used, " inside %u/%u, %u/%u, %u/%u bins: %d of %d seeds pass", inside[0],
          judged[0], inside[1], judged[1], inside[2], judged[2], passed, CROWD_SEEDS);
    if (short_runs) m_add(m, cap, &used, " (%u runs short of 3 laps)", short_runs);
    m_add(m, cap, &used, "; 0.8 m wide, seed 1 (two abreast fit): inside %u/%u bins", winside,
          wjudged);
    return passed == CROWD_SEEDS ? V_PASS : V_FAIL;
}

/* ---- stairs: flow against width, and a shortcut -------------------------------------------- */

/* ISO 12: flow out at the top of a stair 1.0, 1.5 and 2.0 m wide. */
/* ISO 12: 100 persons up flights 1.0, 1.5 and 2.0 m wide, seeds 1-3; judged at every seed. */
static vstatus judge_stair_flow(const vopts *o, char *m, size_t cap) {
    static const char *const names[3] = {"stair_flow_10", "stair_flow_15", "stair_flow_20"};
    static const double width[3] = {1.0, 1.5, 2.0};
    double f[CROWD_SEEDS][3], mean[3] = {0.0, 0.0, 0.0}, worst = 0.0;
    uint32_t out = 0, n = 0, passed = 0;
    for (int seed = 0; seed < CROWD_SEEDS; seed++) {
        for (int k = 0; k < 3; k++) {
            sim s;
            if (!sim_open(&s, names[k], o, (uint64_t)seed + 1, 0, m, cap)) return V_ERROR;
            sim_run(&s, 600.0);
            double *t = malloc((s.n ? s.n : 1) * sizeof *t);
            const size_t q = t ? out_times(&s, t) : 0;
            f[seed][k] = t ? flow_of(t, q) : NAN;
            mean[k] += f[seed][k] / CROWD_SEEDS;
            out += (uint32_t)q;
            n += s.n;
            free(t);
            sim_close(&s);
        }
        double spread;
        passed += th_vj_stair_flow_pass(width, f[seed], 3, &spread);
        worst = isnan(spread) || isnan(worst) ? NAN : fmax(worst, spread);
    }
    snprintf(m, cap,
             "1.0 m %.2f, 1.5 m %.2f, 2.0 m %.2f persons/s = %.2f, %.2f, %.2f persons/(m s) "
             "(mean of seeds 1-%d); per metre within %.0f %% of its mean at %u of %d seeds "
             "(widest %.0f %%; %u of %u out)",
             mean[0], mean[1], mean[2], mean[0] / width[0], mean[1] / width[1], mean[2] / width[2],
             CROWD_SEEDS, 100.0 * TH_VJ_STAIR_SPREAD, passed, CROWD_SEEDS, 100.0 * worst, out, n);
    return out == n && passed == CROWD_SEEDS ? V_PASS : V_FAIL;
}

/* ---- levels and stairs ----------------------------------------------------------------- */

/* RiMEA 13: each step, the density on the flight (walkers over its area) and their mean speed
 * along the slope, averaged in density bins of 0.1 from 0.6 to 1.5 persons/m2. */
#define STAIR_BINS 10
typedef struct stair_fd {
    double sum[STAIR_BINS];
    uint32_t steps[STAIR_BINS];
} stair_fd;

static bool run_stair_fd(const vopts *o, const char *scene, uint64_t seed, stair_fd *fd,
                         char *error, size_t cap) {
    memset(fd, 0, sizeof *fd);
    sim s;
    if (!sim_open(&s, scene, o, seed, 0, error, cap)) return false;
    const th_stair_id flight = th_world_find_stair(s.w, "flight");
    th_stair_info st;
    float cs = 0.0f;
    if (!th_world_get_stair(s.w, flight, &st) || !th_world_map_size(s.w, NULL, NULL, &cs)) {
        snprintf(error, cap, "the scene has no stair named 'flight'");
        sim_close(&s);
        return false;
    }
    const double area = (double)(st.x1 - st.x0 + 1) * (st.y1 - st.y0 + 1) * cs * cs;
    const double slope = (double)st.length / st.plan_length;
    for (uint64_t k = 0; k < (uint64_t)llround(300.0 / s.dt) && s.left < s.n; k++) {
        sim_step(&s);
        uint32_t on = 0;
        double v = 0.0;
        for (uint32_t i = 0; i < s.n; i++) {
            th_agent_state a;
            if (!isnan(s.t_out[i]) || !th_world_get_agent(s.w, s.id[i], &a)) continue;
            if (th_world_stair_at(s.w, a.position).index1 != flight.index1) continue;
            on++;
            v += hypot(a.velocity.x, a.velocity.y) * slope;
        }
        const long bin = on ? lround((double)on / area * 10.0) - 6 : -1;
        if (bin >= 0 && bin < STAIR_BINS) {
            fd->sum[bin] += v / on;
            fd->steps[bin]++;
        }
    }
    sim_close(&s);
    return true;
}

/* RiMEA 13: both directions at seeds 1-3, each bin's speed the mean over every step of the three
 * runs that held its density. */
static vstatus judge_rimea13(const vopts *o, char *m, size_t cap) {
    stair_fd up, down;
    memset(&up, 0, sizeof up);
    memset(&down, 0, sizeof down);
    for (int seed = 0; seed < CROWD_SEEDS; seed++) {
        stair_fd u, d;
        if (!run_stair_fd(o, "rimea13_stairs_up", (uint64_t)seed + 1, &u, m, cap) ||
            !run_stair_fd(o, "rimea13_stairs_down", (uint64_t)seed + 1, &d, m, cap))
            return V_ERROR;
        for (int b = 0; b < STAIR_BINS; b++) {
            up.sum[b] += u.sum[b];
            up.steps[b] += u.steps[b];
            down.sum[b] += d.sum[b];
            down.steps[b] += d.steps[b];
        }
    }
    /* Bins both directions held for at least a second at each seed, on average. */
    const uint32_t least = 20 * CROWD_SEEDS;
    uint32_t common = 0, faster = 0;
    double vu[STAIR_BINS], vd[STAIR_BINS];
    double lo_up = INFINITY, hi_up = 0.0, lo_dn = INFINITY, hi_dn = 0.0, rho0 = 0.0, rho1 = 0.0;
    for (int b = 0; b < STAIR_BINS; b++) {
        if (up.steps[b] < least || down.steps[b] < least) continue;
        vu[common] = up.sum[b] / up.steps[b];
        vd[common] = down.sum[b] / down.steps[b];
        if (!common) rho0 = 0.6 + 0.1 * b;
        rho1 = 0.6 + 0.1 * b;
        faster += vd[common] > vu[common];
        lo_up = fmin(lo_up, vu[common]);
        hi_up = fmax(hi_up, vu[common]);
        lo_dn = fmin(lo_dn, vd[common]);
        hi_dn = fmax(hi_dn, vd[common]);
        common++;
    }
    if (common == 0) {
        snprintf(m, cap, "no density between 0.6 and 1.5 persons/m2 held in both directions");
        return V_FAIL;
    }
    snprintf(m, cap,
             "down faster in %u of %u density bins %.1f-%.1f /m2, %d needed (up %.2f-%.2f, down "
             "%.2f-%.2f m/s along the slope; seeds 1-%d)",
             faster, common, rho0, rho1, TH_VJ_STAIR_BINS, lo_up, hi_up, lo_dn, hi_dn, CROWD_SEEDS);
    return th_vj_rimea13_pass(vu, vd, common) ? V_PASS : V_FAIL;
}

/* RiMEA 8: the three-storey building's evacuation time with 90, 180 and 270 persons, and
 * with 180 slower ones: it must rise with the persons and with the slowness, all getting out. */
static vstatus judge_rimea8(const vopts *o, char *m, size_t cap) {
    static const struct {
        const char *scene;
        uint32_t agents;
    } runs[4] = {{"rimea8_building", 90},
                 {"rimea8_building", 180},
                 {"rimea8_building", 270},
                 {"rimea8_building_slow", 180}};
    double t[CROWD_SEEDS][4];
    uint32_t out = 0, n = 0;
    int ordered = 0;
    for (int seed = 0; seed < CROWD_SEEDS; seed++) {
        for (int k = 0; k < 4; k++) {
            sim s;
            if (!sim_open(&s, runs[k].scene, o, (uint64_t)seed + 1, runs[k].agents, m, cap))
                return V_ERROR;
            sim_run(&s, 400.0);
            t[seed][k] = s.left == s.n ? last_out(&s, -1) : NAN;
            out += s.left;
            n += s.n;
            sim_close(&s);
        }
        const double *u = t[seed];
        ordered += u[0] < u[1] && u[1] < u[2] && u[3] > u[1];
    }
    double mean[4] = {0, 0, 0, 0};
    for (int seed = 0; seed < CROWD_SEEDS; seed++)
        for (int k = 0; k < 4; k++) mean[k] += t[seed][k] / CROWD_SEEDS;
    snprintf(m, cap,
             "mean of seeds 1-3: 90, 180, 270 persons %.1f, %.1f, %.1f s; 180 slower %.1f s; "
             "ordered at %d of %d seeds (%u of %u out)",
             mean[0], mean[1], mean[2], mean[3], ordered, CROWD_SEEDS, out, n);
    return out == n && ordered == CROWD_SEEDS ? V_PASS : V_FAIL;
}

/* NIST 2.7: elevator usage. The persons waiting upstairs ride the car down; the last steps out
 * when the hand calculation of the elevator's numbers says. A trip: travel up, doors open,
 * boarding (board_time each), dwell, doors close, travel down, doors open, stepping out (each);
 * between trips the car dwells and closes its doors. The numbers are read from the world. */
static vstatus judge_nist27(const vopts *o, char *m, size_t cap) {
    sim s;
    if (!sim_open(&s, "elevator", o, 0, 0, m, cap)) return V_ERROR;
    th_elevator_info e;
    th_level_info a, b;
    if (!th_world_get_elevator(s.w, (th_elevator_id){1}, &e) || e.stop_count != 2 ||
        !th_world_get_level(s.w, e.stops[0].level, &a) ||
        !th_world_get_level(s.w, e.stops[1].level, &b)) {
        sim_close(&s);
        snprintf(m, cap, "the scene has no elevator with two stops");
        return V_ERROR;
    }
    const double travel = th_elevator_travel_time(fabs((double)b.elevation - (double)a.elevation),
                                                  e.speed, e.acceleration);
    double hand = 0.0;
    uint32_t trips = 0;
    for (uint32_t left = s.n; left > 0; trips++) {
        const uint32_t k = left < e.capacity ? left : e.capacity;
        left -= k;
        if (trips) hand += (double)e.dwell + (double)e.door_time;
        hand += 2.0 * travel + 3.0 * (double)e.door_time + 2.0 * k * (double)e.board_time +
                (double)e.dwell;
    }
    sim_run(&s, hand + 120.0);
    th_world_get_elevator(s.w, (th_elevator_id){1}, &e);
    const double all_out = s.left == s.n ? last_out(&s, -1) : NAN;
    snprintf(m, cap,
             "%u persons, %u trips: the last out of the car at %.2f s, hand calculation %.2f s; "
             "all outside at %.1f s",
             s.n, trips, e.carried ? e.last_out : NAN, hand, all_out);
    const bool ok =
        e.carried == s.n && e.trips == trips && fabs(e.last_out - hand) <= s.dt && s.left == s.n;
    sim_close(&s);
    return ok ? V_PASS : V_FAIL;
}

/* Run `scene` for up to `max_s` seconds and count its agents that stood, after some step, in
 * the zone [x0, x1) x [y0, y1) (`*via`), all of them (`*n`) and those that left (`*left`);
 * V_ERROR with `m` filled when the scene cannot be run. */
static vstatus zone_visits(const vopts *o, const char *scene, double x0, double y0, double x1,
                           double y1, double max_s, uint32_t *via, uint32_t *n, uint32_t *left,
                           char *m, size_t cap) {
    sim s;
    if (!sim_open(&s, scene, o, 0, 0, m, cap)) return V_ERROR;
    if (!sim_zone(&s, x0, y0, x1, y1)) {
        sim_close(&s);
        snprintf(m, cap, "out of memory");
        return V_ERROR;
    }
    sim_run(&s, max_s);
    *via = 0;
    for (uint32_t i = 0; i < s.n; i++) *via += s.visited[i];
    *n = s.n;
    *left = s.left;
    sim_close(&s);
    return V_PASS;
}

/* RiMEA 14: which way the persons took, short (down and up the stairs) or long (the upper
 * level's corridor); the ground level is cells 0-39 (x below 20 m). */
static vstatus judge_rimea14(const vopts *o, char *m, size_t cap) {
    uint32_t stairs_way, n, left;
    if (zone_visits(o, "rimea14_route_choice", 0.0, 0.0, 20.0, 15.0, 150.0, &stairs_way, &n, &left,
                    m, cap) != V_PASS)
        return V_ERROR;
    snprintf(m, cap, "%u of %u by the stairs (short), %u by the corridor (long); %u arrived",
             stairs_way, n, n - stairs_way, left);
    return left == n ? V_PASS : V_FAIL;
}

/* ISO 17: the share that takes the shortcut through the block (its stair cells). */
static vstatus judge_route_choice(const vopts *o, char *m, size_t cap) {
    uint32_t via, n, left;
    if (zone_visits(o, "route_choice", 4.5, 9.5, 20.5, 11.5, 300.0, &via, &n, &left, m, cap) !=
        V_PASS)
        return V_ERROR;
    snprintf(m, cap, "%u of %u by the shortcut, %u arrived", via, n, left);
    return left == n && 2 * via > n ? V_PASS : V_FAIL;
}

/* ---- pre-movement times: start times against the assigned ones -------------------------- */

/* Run scene `name` for at most max_s seconds and note, for each agent, the time it was given
 * (th_agent_state.start_time, read before the first step) and the end of the first step over
 * which it moved by itself (more than 0.1 mm). NaN where it never moved. */
static bool first_moves(const vopts *o, const char *name, double max_s, double **given,
                        double **moved, uint32_t *n, double *dt, char *m, size_t cap) {
    sim s;
    if (!sim_open(&s, name, o, 0, 0, m, cap)) return false;
    *n = s.n;
    *dt = s.dt;
    *given = malloc((s.n ? s.n : 1) * sizeof **given);
    *moved = malloc((s.n ? s.n : 1) * sizeof **moved);
    double *x0 = malloc((s.n ? s.n : 1) * 2 * sizeof *x0);
    if (!*given || !*moved || !x0) {
        free(x0);
        sim_close(&s);
        snprintf(m, cap, "out of memory");
        return false;
    }
    for (uint32_t i = 0; i < s.n; i++) {
        th_agent_state a;
        (*given)[i] = th_world_get_agent(s.w, s.id[i], &a) ? a.start_time : NAN;
        (*moved)[i] = NAN;
        x0[2 * i] = s.x[i];
        x0[2 * i + 1] = s.y[i];
    }
    const uint64_t steps = (uint64_t)llround(max_s / s.dt);
    for (uint64_t k = 0; k < steps && s.left < s.n; k++) {
        sim_step(&s);
        for (uint32_t i = 0; i < s.n; i++) {
            if (!isnan((*moved)[i])) continue;
            if (!isnan(s.t_out[i]) || hypot(s.x[i] - x0[2 * i], s.y[i] - x0[2 * i + 1]) > 1e-4)
                (*moved)[i] = s.t;
        }
    }
    free(x0);
    sim_close(&s);
    return true;
}

/* RiMEA 5, IMO 5: each of the 10 starts within two steps after its time (the first step it may
 * take ends one step after it), none before; the times lie in [10, 100] s. */
static vstatus judge_premove_room(const vopts *o, char *m, size_t cap) {
    double *given = NULL, *moved = NULL, dt = 0.0;
    uint32_t n = 0;
    if (!first_moves(o, "premovement_room", 150.0, &given, &moved, &n, &dt, m, cap)) {
        free(given);
        free(moved);
        return V_ERROR;
    }
    uint32_t on_time = 0, in_range = 0;
    double lo = INFINITY, hi = -INFINITY, worst = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        const double lag = moved[i] - given[i];
        on_time += lag > 0.0 && lag <= 2.0 * dt + 1e-9;
        worst = fmax(worst, isnan(lag) ? INFINITY : fabs(lag));
        in_range += given[i] >= 10.0 && given[i] <= 100.0 + dt;
        lo = fmin(lo, given[i]);
        hi = fmax(hi, given[i]);
    }
    free(given);
    free(moved);
    snprintf(m, cap, "%u of %u start on time (times %.1f-%.1f s, largest lag %.3f s)", on_time, n,
             lo, hi, worst);
    return n == 10 && on_time == n && in_range == n ? V_PASS : V_FAIL;
}

static double lognormal_cdf(double t, double mu, double sigma) {
    return t > 0.0 ? th_vs_normal_cdf(log(t), mu, sigma) : 0.0;
}

/* ISO 1, NIST 1.1: the start times the run produces (the end of the first step moved, less the
 * one step it takes) against the assigned lognormal, by the one-sample KS test at 5 %. */
static vstatus judge_premove_ks(const vopts *o, char *m, size_t cap) {
    static struct {
        vcache c;
        double d, p;
        size_t n, late;
    } r;
    if (!cache_begin(&r.c)) {
        double *given = NULL, *moved = NULL, dt = 0.0;
        uint32_t n = 0;
        r.c.ok = first_moves(o, "premovement_population", 220.0, &given, &moved, &n, &dt, r.c.error,
                             sizeof r.c.error);
        if (r.c.ok) {
            size_t k = 0;
            for (uint32_t i = 0; i < n; i++) {
                if (isnan(moved[i])) continue;
                r.late += moved[i] - given[i] > 2.0 * dt + 1e-9 || moved[i] <= given[i];
                moved[k++] = moved[i] - dt;
            }
            r.n = k;
            r.d = th_vs_ks_statistic(moved, k, lognormal_cdf, 3.5, 0.5);
            r.p = th_vs_ks_pvalue(r.d, k);
        }
        free(given);
        free(moved);
    }
    if (!r.c.ok) return error_out(&r.c, m, cap);
    snprintf(m, cap, "%zu starts: KS D %.4f, p %.2f; %zu off their time", r.n, r.d, r.p, r.late);
    return r.n == 1000 && r.p > 0.05 && r.late == 0 ? V_PASS : V_FAIL;
}

/* ---- fire hazards: smoke and incapacitation ---------------------------------------------- */

/* NIST 2.5: one walker per corridor, each in smoke of its own extinction K, timed over the 100 m
 * between x = 10 and 110 m. The expected speed is the model's input relation, NIST's equation 1,
 * worked out here from the crowd's inputs (the crowd's smoke_slope and smoke_min_factor and the
 * walker's free speed) and the K the scene gives: v0 max(min_factor, 1 - slope K). */
static vstatus judge_smoke(const vopts *o, char *m, size_t cap) {
    sim s;
    if (!sim_open(&s, "reduced_visibility", o, 0, 0, m, cap)) return V_ERROR;
    double k[8], v0[8];
    const uint32_t n = s.n < 8 ? s.n : 8;
    for (uint32_t i = 0; i < n; i++) {
        th_air air;
        th_world_air(s.w, th_v2((float)s.x[i], (float)s.y[i]), &air);
        k[i] = air.extinction;
        const th_crowd_def *c = th_world_get_crowd(s.w, (th_crowd_id){s.crowd[i] + 1u});
        v0[i] = c->desired_speed * fmax(c->smoke_min_factor, 1.0 - c->smoke_slope * k[i]);
    }
    sim_gate(&s, 0, 10.0, 1);
    sim_gate(&s, 0, 110.0, 1);
    sim_run(&s, 1200.0);
    size_t len = 0;
    bool ok = n >= 2 && n == s.n;
    for (uint32_t i = 0; i < n; i++) {
        const double t = s.t_gate[1][i] - s.t_gate[0][i];
        const double v = 100.0 / t;
        const bool good = isfinite(t) && fabs(v - v0[i]) <= 0.05 * v0[i];
        ok = ok && good;
        len += (size_t)snprintf(m + len, len < cap ? cap - len : 0, "%sK %g: %.3f m/s (%.3f)",
                                i ? ", " : "", k[i], isfinite(t) ? v : 0.0, v0[i]);
        if (len >= cap) len = cap - 1;
    }
    sim_close(&s);
    return ok ? V_PASS : V_FAIL;
}

/* NIST 2.6: the occupant's dose reaches 1 at the hand-calculated time, at most a step after.
 * The hand calculation is Purser's equations (FDS+Evac's statement of them) for the constant
 * air of the scene, written out here apart from the engine's code: 1 / rate. */
static vstatus judge_fed(const vopts *o, char *m, size_t cap) {
    sim s;
    if (!sim_open(&s, "incapacitation", o, 0, 0, m, cap)) return V_ERROR;
    th_air air;
    th_world_air(s.w, th_v2((float)s.x[0], (float)s.y[0]), &air);
    const double per_min = 2.764e-5 * pow(air.co, 1.036) * exp(0.1903 * air.co2 + 2.0004) / 7.1 +
                           1.0 / exp(8.13 - 0.54 * (20.9 - air.o2));
    const double expected = 60.0 / per_min;
    const th_vec2 at = th_v2((float)s.x[0], (float)s.y[0]);
    sim_run(&s, 300.0);
    double fed = 0.0, when = -1.0;
    th_agent_state a;
    const bool there = s.n == 1 && th_world_agent_fed(s.w, s.id[0], &fed, &when) &&
                       th_world_get_agent(s.w, s.id[0], &a);
    const double moved = there ? hypot(a.position.x - at.x, a.position.y - at.y) : INFINITY;
    const double dt = s.dt;
    sim_close(&s);
    if (!there || when < 0.0) {
        snprintf(m, cap, "not incapacitated within 300 s (dose %.3f; expected at %.2f s)", fed,
                 expected);
        return V_FAIL;
    }
    snprintf(m, cap,
             "dose 1 at %.3f s, hand calculation %.3f s (step %.4f s); stood %.3f m from "
             "where it was",
             when, expected, dt, moved);
    return when >= expected && when - expected <= dt + 1e-9 && moved < 1e-3 ? V_PASS : V_FAIL;
}

/* ---- exit choice: social influence and affiliation ----------------------------------------- */

/* Over seeds 1..seeds of `scene`: how many agents of crowd 0 left by the west exit (their last
 * position left of the room's middle, x < 5.5 m) and by the east one; with `east` not NULL,
 * also whether each one (seed by seed, in id order, `per_seed` of them a seed) took the east
 * exit. False with the error. */
static bool exit_use(const vopts *o, const char *scene, uint64_t seeds, uint32_t *west,
                     uint32_t *east_count, bool *east, uint32_t per_seed, char *error, size_t cap) {
    *west = *east_count = 0;
    for (uint64_t seed = 1; seed <= seeds; seed++) {
        sim s;
        if (!sim_open(&s, scene, o, seed, 0, error, cap)) return false;
        sim_run(&s, 120.0);
        uint32_t k = 0;
        for (uint32_t i = 0; i < s.n; i++) {
            if (s.crowd[i] != 0) continue;
            const bool e = !isnan(s.t_out[i]) && s.x[i] >= 5.5;
            if (east && k < per_seed) east[(seed - 1) * per_seed + k] = e;
            k++;
            if (isnan(s.t_out[i])) continue;
            if (e) (*east_count)++;
            else (*west)++;
        }
        sim_close(&s);
    }
    return true;
}

#define SOCIAL_SEEDS 200
static struct {
    vcache c;
    uint32_t w1, e1, w2, e2;
    bool east1[2 * SOCIAL_SEEDS], east2[2 * SOCIAL_SEEDS];
} social;

/* ISO 15, NIST 3.2: the two free occupants' exits over 200 seeds of each scenario. A seed
 * draws the same numbers for the same occupant in both (its exit draw is keyed by seed and
 * id), so the comparison is paired: those who changed exit changed it because of the third
 * occupant, and McNemar's test weighs the switches (th_vj_social_pass). */
static vstatus judge_social(const vopts *o, char *m, size_t cap) {
    if (!cache_begin(&social.c)) {
        social.c.ok = exit_use(o, "social_influence_1", SOCIAL_SEEDS, &social.w1, &social.e1,
                               social.east1, 2, social.c.error, sizeof social.c.error) &&
                      exit_use(o, "social_influence_2", SOCIAL_SEEDS, &social.w2, &social.e2,
                               social.east2, 2, social.c.error, sizeof social.c.error);
    }
    if (!social.c.ok) return error_out(&social.c, m, cap);
    const uint32_t n1 = social.w1 + social.e1, n2 = social.w2 + social.e2;
    const double f1 = n1 ? (double)social.e1 / n1 : NAN, f2 = n2 ? (double)social.e2 / n2 : NAN;
    uint32_t to_east = 0, to_west = 0;
    for (uint32_t i = 0; i < 2 * SOCIAL_SEEDS; i++) {
        to_east += !social.east1[i] && social.east2[i];
        to_west += social.east1[i] && !social.east2[i];
    }
    double p;
    const bool ok = th_vj_social_pass(to_east, to_west, &p);
    snprintf(m, cap,
             "east share of the 2 free occupants, seeds 1-200: alone %.3f (%u of %u), with one "
             "allocated east %.3f (%u of %u); switched east %u, west %u: McNemar p %.2g",
             f1, social.e1, n1, f2, social.e2, n2, to_east, to_west, p);
    return n1 == 2 * SOCIAL_SEEDS && n2 == 2 * SOCIAL_SEEDS && ok ? V_PASS : V_FAIL;
}

static struct {
    vcache c;
    uint32_t w50, e50, w80, e80;
} affil;

/* ISO 16, NIST 3.3: 40 occupants over seeds 1-20; familiarity 50/50 uses both exits within
 * 10 % of each other, 20/80 prefers the east exit (th_vj_affiliation_pass). */
static vstatus judge_affil(const vopts *o, char *m, size_t cap) {
    if (!cache_begin(&affil.c)) {
        affil.c.ok = exit_use(o, "familiar_exits", 20, &affil.w50, &affil.e50, NULL, 0,
                              affil.c.error, sizeof affil.c.error) &&
                     exit_use(o, "familiar_exits_80", 20, &affil.w80, &affil.e80, NULL, 0,
                              affil.c.error, sizeof affil.c.error);
    }
    if (!affil.c.ok) return error_out(&affil.c, m, cap);
    const uint32_t n50 = affil.w50 + affil.e50, n80 = affil.w80 + affil.e80;
    const double diff = n50 ? fabs((double)affil.w50 - affil.e50) / n50 : NAN;
    double p;
    const bool ok = th_vj_affiliation_pass(affil.w50, affil.e50, affil.w80, affil.e80, &p);
    snprintf(m, cap,
             "50/50: west %u, east %u (difference %.1f %%); 20/80: west %u, east %u (binomial "
             "p %.2g)",
             affil.w50, affil.e50, 100.0 * diff, affil.w80, affil.e80, p);
    return n50 == 800 && n80 == 800 && ok ? V_PASS : V_FAIL;
}

/* ---- groups ------------------------------------------------------------------------------ */

/* ISO 14, NIST 2.9: the arrival spread of group 1 (the agents of crowds [0, crowds) of the
 * scene), at most 10 s, everyone out. */
static vstatus judge_group(const vopts *o, const char *scene, uint32_t crowds, char *m,
                           size_t cap) {
    double spread[CROWD_SEEDS], everyone = 0.0;
    int passed = 0;
    for (int seed = 0; seed < CROWD_SEEDS; seed++) {
        sim s;
        if (!sim_open(&s, scene, o, (uint64_t)seed + 1, 0, m, cap)) return V_ERROR;
        sim_run(&s, 300.0);
        double first = INFINITY, last = -INFINITY, all = last_out(&s, -1);
        uint32_t n = 0;
        for (uint32_t i = 0; i < s.n; i++) {
            if (s.crowd[i] >= crowds || isnan(s.t_out[i])) continue;
            first = fmin(first, s.t_out[i]);
            last = fmax(last, s.t_out[i]);
            n++;
        }
        sim_close(&s);
        if (n != 5 || isnan(all)) {
            snprintf(m, cap, "seed %d: %u of group 1's 5 out%s", seed + 1, n,
                     isnan(all) ? "; not everyone out in 300 s" : "");
            return V_FAIL;
        }
        spread[seed] = last - first;
        everyone = fmax(everyone, all);
        passed += spread[seed] <= 10.0;
    }
    snprintf(m, cap,
             "seeds 1-3: group 1's arrivals spread %.1f, %.1f, %.1f s; everyone out by %.1f s "
             "at the latest",
             spread[0], spread[1], spread[2], everyone);
    return passed == CROWD_SEEDS ? V_PASS : V_FAIL;
}

static vstatus judge_group_iso(const vopts *o, char *m, size_t cap) {
    return judge_group(o, "groups_iso", 1, m, cap);
}

static vstatus judge_group_nist(const vopts *o, char *m, size_t cap) {
    return judge_group(o, "groups_nist", 2, m, cap);
}

/* ---- the tests --------------------------------------------------------------------------- */

#define RIMEA "RiMEA"
#define ISO   "ISO"
#define NIST  "NIST"
#define IMO   "IMO"

static const vtest k_tests[] = {
    {RIMEA, "rimea-1", "speed in a corridor", "travel time in [26, 34] s", judge_rimea1, NULL},
    {RIMEA, "rimea-2", "speed up stairs", "10 m at 0.5 x 1 m/s: 20 s +-5 %", judge_stairs_up, NULL},
    {RIMEA, "rimea-3", "speed down stairs", "10 m at 0.75 x 1 m/s: 13.33 s +-5 %",
     judge_stairs_down, NULL},
    {RIMEA, "rimea-4", "fundamental diagram", "Weidmann +-25 % or 0.1 m/s, 0.5-5 /m2", judge_rimea4,
     NULL},
    {RIMEA, "rimea-5", "pre-movement time", "each starts at its time, U[10, 100] s",
     judge_premove_room, NULL},
    {RIMEA, "rimea-6", "rounding a corner", "all arrive, no body >1 % r in a wall, seeds 1-3",
     judge_corner, NULL},
    {RIMEA, "rimea-7", "demographics", "speeds in age-table ranges +-0.03, falling", judge_rimea7,
     NULL},
    {RIMEA, "rimea-8", "parameter study", "time rises with persons, slowness; seeds 1-3",
     judge_rimea8, NULL},
    {RIMEA, "rimea-9", "leaving a public room", "2 of 4 exits closed: time x[1.8, 2.2], seeds 1-3",
     judge_hall, NULL},
    {RIMEA, "rimea-10", "exit allocation", "everyone by the assigned exit", judge_alloc, NULL},
    {RIMEA, "rimea-11", "choice of exit", "nearer exit most used, other used", judge_rimea11, NULL},
    {RIMEA, "rimea-12", "effect of bottlenecks", "queue before (>1.08 /m2), none after; 3 seeds",
     judge_rimea12, NULL},
    {RIMEA, "rimea-13", "fundamental diagram on stairs", "down faster than up in 5+ density bins",
     judge_rimea13, NULL},
    {RIMEA, "rimea-14", "route choice over floors", "everyone arrives; the way documented",
     judge_rimea14, NULL},
    {RIMEA, "rimea-15", "large crowd round a corner", "corner slower than straight, seeds 1-3",
     judge_rimea15, NULL},
    {RIMEA, "rimea-16", "1D fundamental diagram",
     "bin medians in the 10-90 % band: >=75 % of bins, seeds 1-3", judge_rimea16, NULL},

    {ISO, "iso-1", "pre-evacuation times", "KS p > 0.05 against the assigned lognormal",
     judge_premove_ks, NULL},
    {ISO, "iso-2", "speed in a corridor", "1.0 +- 0.05 m/s over 40 m", judge_corridor_speed, NULL},
    {ISO, "iso-3", "speed on stairs", "up 20 s, down 13.33 s, +-5 %", judge_stairs_both, NULL},
    {ISO, "iso-4", "movement round a corner", "all arrive, no body >1 % r in a wall, seeds 1-3",
     judge_corner, NULL},
    {ISO, "iso-5", "assigned demographics", "N(1.2, 0.2): mean, sd +-0.05, KS p > 0.05", judge_demo,
     NULL},
    {ISO, "iso-6", "counter-flow", "crossing time rises, seeds 1-3", judge_cf, NULL},
    {ISO, "iso-7", "movement disabilities", "max(control, slow walk) +-10 %, passed; seeds 1-3",
     judge_disability, NULL},
    {ISO, "iso-8", "exit route allocation", "everyone by the assigned exit", judge_alloc, NULL},
    {ISO, "iso-9", "dynamic exit availability", "exit 2 once 1 closes; back to 1 when it opens",
     judge_dynamic_exit, NULL},
    {ISO, "iso-10", "congestion", "queues at exit and stair (>1.08 /m2), steady; seeds 1-3",
     judge_congestion, NULL},
    {ISO, "iso-11", "maximum flow, 1 m exit", "limited to 1.33: flow <= 1.33 persons/s", judge_door,
     NULL},
    {ISO, "iso-12", "stair flow rates", "flow grows in proportion to width", judge_stair_flow,
     NULL},
    {ISO, "iso-13", "corridor fundamental diagram", "input (Weidmann) +-20 % or 0.1 m/s, falling",
     judge_iso13, NULL},
    {ISO, "iso-14", "group behaviour", "group 1 arrives within 10 s, seeds 1-3", judge_group_iso,
     NULL},
    {ISO, "iso-15", "social influence", "others' choice shifts exit use: McNemar p < 0.05",
     judge_social, NULL},
    {ISO, "iso-16", "affiliation", "50/50 within 10 %; 20/80 familiar preferred, p < 0.05",
     judge_affil, NULL},
    {ISO, "iso-17", "route choice by layout", "shortcut via stairs taken by most",
     judge_route_choice, NULL},

    {NIST, "nist-1.1", "pre-evacuation distributions", "KS p > 0.05 against the lognormal",
     judge_premove_ks, NULL},
    {NIST, "nist-2.1", "speed in a corridor", "1.0 +- 0.05 m/s over 40 m", judge_corridor_speed,
     NULL},
    {NIST, "nist-2.2", "speed on stairs", "up 20 s, down 13.33 s, +-5 %", judge_stairs_both, NULL},
    {NIST, "nist-2.3", "movement round a corner", "all arrive, no body >1 % r in a wall, seeds 1-3",
     judge_corner, NULL},
    {NIST, "nist-2.4", "assigned demographics", "N(1.2, 0.2): mean, sd +-0.05, KS p > 0.05",
     judge_demo, NULL},
    {NIST, "nist-2.5", "reduced visibility", "speed v0 c(K) +-5 % over 100 m, each K", judge_smoke,
     NULL},
    {NIST, "nist-2.6", "occupant incapacitation", "FED 1 within a step after hand calculation",
     judge_fed, NULL},
    {NIST, "nist-2.7", "elevator usage", "last out of the car at the hand calculation's time",
     judge_nist27, NULL},
    {NIST, "nist-2.8", "horizontal counter-flows", "crossing time rises, seeds 1-3", judge_cf,
     NULL},
    {NIST, "nist-2.9", "group behaviours", "mixed group 1 within 10 s, seeds 1-3", judge_group_nist,
     NULL},
    {NIST, "nist-2.10", "people with movement disabilities",
     "max(control, slow walk) +-10 %, passed; seeds 1-3", judge_disability, NULL},
    {NIST, "nist-3.1", "exit route allocation", "everyone by the assigned exit", judge_alloc, NULL},
    {NIST, "nist-3.2", "social influence", "others' choice shifts exit use: McNemar p < 0.05",
     judge_social, NULL},
    {NIST, "nist-3.3", "affiliation", "50/50 within 10 %; 20/80 familiar preferred, p < 0.05",
     judge_affil, NULL},
    {NIST, "nist-4.1", "dynamic exit availability", "exit 2 once 1 closes; back to 1 when it opens",
     judge_dynamic_exit, NULL},
    {NIST, "nist-5.1", "congestion", "queues at exit and stair (>1.08 /m2), steady; seeds 1-3",
     judge_congestion, NULL},
    {NIST, "nist-5.2", "maximum flow rates", "limited to 1.33: flow <= 1.33 persons/s", judge_door,
     NULL},

    {IMO, "imo-1", "speed in a corridor", "40 m at 1 m/s: 40 +- 2 s", judge_imo1, NULL},
    {IMO, "imo-2", "speed up a staircase", "10 m at 0.5 x 1 m/s: 20 s +-5 %", judge_stairs_up,
     NULL},
    {IMO, "imo-3", "speed down a staircase", "10 m at 0.75 x 1 m/s: 13.33 s +-5 %",
     judge_stairs_down, NULL},
    {IMO, "imo-4", "exit flow rate", "limited to 1.33: flow <= 1.33 persons/s", judge_door, NULL},
    {IMO, "imo-5", "response time", "each starts at its time, U[10, 100] s", judge_premove_room,
     NULL},
    {IMO, "imo-6", "rounding corners", "all arrive, no body >1 % r in a wall, seeds 1-3",
     judge_corner, NULL},
    {IMO, "imo-7", "population demographics", "speeds in the table's ranges, KS uniform p > 0.05",
     judge_imo7, NULL},
    {IMO, "imo-8", "counterflow", "crossing time rises, seeds 1-3", judge_cf, NULL},
    {IMO, "imo-9", "exit flow: public room", "2 of 4 exits closed: time x[1.8, 2.2], seeds 1-3",
     judge_hall, NULL},
    {IMO, "imo-10", "exit route allocation", "everyone by the assigned exit", judge_alloc, NULL},
    {IMO, "imo-11", "staircase congestion",
     "queues at exit and stair (>1.08 /m2), steady; seeds 1-3", judge_congestion, NULL},
};

#define N_TESTS (sizeof k_tests / sizeof k_tests[0])

static const char *const k_suites[] = {RIMEA, ISO, NIST, IMO};
static const char *const k_suite_long[] = {"RiMEA 4.1.1", "ISO 20414:2020", "NIST TN 1822",
                                           "IMO MSC.1/Circ.1533"};

/* ---- options, output --------------------------------------------------------------------- */

/* A JSON string, escaped. */
static void json_str(FILE *f, const char *s) {
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
        else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
        else fputc(*p, f);
    }
    fputc('"', f);
}

/* Widths of the table's text columns: the longest `checked` and `criterion` of all tests. */
static int g_checked_w = 7, g_criterion_w = 9;

static void print_row(FILE *f, const char *suite, const char *id, const char *status,
                      const char *runs, const char *checked, const char *criterion,
                      const char *measured) {
    fprintf(f, "%-6s %-9s  %-13s  %4s  %-*s  %-*s  %s\n", suite, id, status, runs, g_checked_w,
            checked, g_criterion_w, criterion, measured);
}

int th_cmd_verify(int argc, char **argv) {
    th_suite_args args;
    int usage = th_suite_args_parse("throng verify", argc, argv, 0, &args);
    if (usage) return usage;
    if (args.help) {
        fputs(k_verify_help, stdout);
        return 0;
    }
    const char *only = args.only, *json = args.json;
    uint64_t threads = args.threads;
    bool list = args.list;
    size_t chosen = 0;
    for (size_t k = 0; k < N_TESTS; k++) chosen += th_arg_selected(only, k_tests[k].id);
    if (chosen == 0) {
        fprintf(stderr,
                "throng verify: --only '%s' matches no test (ids such as rimea-4, iso-11, "
                "nist-2.1, imo-8; see 'throng verify --list')\n",
                only);
        return TH_EXIT_USAGE;
    }
    if (list) {
        for (size_t k = 0; k < N_TESTS; k++)
            if (th_arg_selected(only, k_tests[k].id))
                printf("%-10s %-6s %s\n", k_tests[k].id, k_tests[k].suite, k_tests[k].checked);
        return 0;
    }
    if (json && !th_suite_json_check("throng verify", json, "scenes/verification",
                                     THRONG_SCENES_DIR "/verification"))
        return TH_EXIT_USAGE;
    if (threads == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        threads = n < 1 ? 1 : (n > TH_MAX_THREADS ? TH_MAX_THREADS : (uint64_t)n);
    }
    vopts o = {.threads = (uint32_t)threads};

    vstatus *st = calloc(N_TESTS, sizeof *st);
    uint64_t *runs = calloc(N_TESTS, sizeof *runs);
    char(*measured)[MEASURED_CAP] = calloc(N_TESTS, MEASURED_CAP);
    if (!st || !runs || !measured) {
        free(st);
        free(runs);
        free(measured);
        fprintf(stderr, "throng verify: out of memory\n");
        return 1;
    }
    /* A signal (Ctrl-C, SIGTERM, SIGHUP) stops the suite after the test that is running. */
    th_interrupt_install();
    size_t done = 0;
    for (size_t k = 0; k < N_TESTS && !th_interrupted(); k++) {
        const vtest *t = &k_tests[k];
        if (!th_arg_selected(only, t->id)) continue;
        done++;
        if (!t->judge) {
            st[k] = V_NEEDS;
            snprintf(measured[k], MEASURED_CAP, "needs %s", t->needs);
            continue;
        }
        fprintf(stderr, "throng verify: [%zu/%zu] %s: %s\n", done, chosen, t->id, t->checked);
        const uint64_t runs0 = g_runs, reused0 = g_reused;
        st[k] = t->judge(&o, measured[k], MEASURED_CAP);
        cache_settle();
        runs[k] = (g_runs - runs0) + (g_reused - reused0);
    }

    if (th_interrupted()) {
        fprintf(stderr, "throng verify: interrupted during test %zu of %zu: no table%s\n", done,
                chosen, json ? ", and --json left as it was" : "");
        free(st);
        free(runs);
        free(measured);
        return 128 + th_interrupt_signal();
    }
    size_t count[4] = {0, 0, 0, 0};
    for (size_t k = 0; k < N_TESTS; k++) {
        int a = (int)strlen(k_tests[k].checked), b = (int)strlen(k_tests[k].criterion);
        if (a > g_checked_w) g_checked_w = a;
        if (b > g_criterion_w) g_criterion_w = b;
    }
    print_row(stdout, "suite", "test", "result", "runs", "checked", "criterion", "measured");
    uint64_t total_runs = g_runs;
    for (size_t k = 0; k < N_TESTS; k++) {
        if (!th_arg_selected(only, k_tests[k].id)) continue;
        count[st[k]]++;
        char r[24];
        snprintf(r, sizeof r, "%" PRIu64, runs[k]);
        print_row(stdout, k_tests[k].suite, k_tests[k].id, k_status_name[st[k]], r,
                  k_tests[k].checked, k_tests[k].criterion, measured[k]);
    }
    printf("verify    %zu pass, %zu fail, %zu needs-feature, %zu error, of %zu test(s); %" PRIu64
           " simulation run(s) in all\n",
           count[V_PASS], count[V_FAIL], count[V_NEEDS], count[V_ERROR], chosen, total_runs);

    int rc = count[V_FAIL] || count[V_ERROR] ? 1 : 0;
    char tmp[4200];
    FILE *jf = json ? th_suite_json_begin("throng verify", json, tmp, sizeof tmp) : NULL;
    if (json && !jf) rc = 1;
    if (jf) {
        fprintf(jf, "{\n  \"suites\": [");
        for (size_t s = 0; s < sizeof k_suites / sizeof k_suites[0]; s++) {
            fprintf(jf, "%s{\"name\": ", s ? ", " : "");
            json_str(jf, k_suites[s]);
            fprintf(jf, ", \"standard\": ");
            json_str(jf, k_suite_long[s]);
            size_t c[4] = {0, 0, 0, 0};
            for (size_t k = 0; k < N_TESTS; k++)
                if (th_arg_selected(only, k_tests[k].id) &&
                    strcmp(k_tests[k].suite, k_suites[s]) == 0)
                    c[st[k]]++;
            fprintf(jf, ", \"pass\": %zu, \"fail\": %zu, \"needs_feature\": %zu, \"error\": %zu}",
                    c[V_PASS], c[V_FAIL], c[V_NEEDS], c[V_ERROR]);
        }
        fprintf(jf, "],\n  \"threads\": %u,\n  \"tests\": [\n", o.threads);
        bool first = true;
        for (size_t k = 0; k < N_TESTS; k++) {
            const vtest *t = &k_tests[k];
            if (!th_arg_selected(only, t->id)) continue;
            fprintf(jf, "%s    {\"suite\": ", first ? "" : ",\n");
            first = false;
            json_str(jf, t->suite);
            fprintf(jf, ", \"id\": ");
            json_str(jf, t->id);
            fprintf(jf, ", \"checked\": ");
            json_str(jf, t->checked);
            fprintf(jf, ", \"criterion\": ");
            json_str(jf, t->criterion);
            fprintf(jf, ", \"measured\": ");
            json_str(jf, measured[k]);
            fprintf(jf, ", \"status\": ");
            json_str(jf, k_status_name[st[k]]);
            fprintf(jf, ", \"runs\": %" PRIu64, runs[k]);
            fprintf(jf, ", \"needs\": ");
            if (t->needs) json_str(jf, t->needs);
            else fputs("null", jf);
            fputc('}', jf);
        }
        fprintf(jf,
                "\n  ],\n  \"counts\": {\"pass\": %zu, \"fail\": %zu, \"needs_feature\": %zu, "
                "\"error\": %zu, \"total\": %zu, \"runs\": %" PRIu64 "},\n",
                count[V_PASS], count[V_FAIL], count[V_NEEDS], count[V_ERROR], chosen, total_runs);
        /* The fundamental diagram's points, when it ran (for plots). */
        fprintf(jf, "  \"fundamental_diagram\": [");
        if (fd.c.ok) {
            for (int p = 0; p < FD_POINTS; p++)
                fprintf(jf,
                        "%s{\"nominal\": %.2f, \"density\": %.4f, \"speed\": %.4f, "
                        "\"weidmann\": %.4f}",
                        p ? ", " : "", k_fd_density[p], fd.rho[p], fd.v[p],
                        th_vs_weidmann_speed(fd.rho[p]));
        }
        fprintf(jf, "],\n  \"exit_code\": %d\n}\n", rc);
        if (!th_file_commit(jf, tmp, json)) {
            fprintf(stderr, "throng verify: writing %s failed\n", json);
            rc = 1;
        }
    }
    free(st);
    free(runs);
    free(measured);
    return rc;
}
