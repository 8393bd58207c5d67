/* `throng validate`: the model against published experiments. Each case runs a scene of
 * scenes/validation/ (or a family of them) with the engine's default parameters over several
 * seeds, measures what the experiments measured and prints it beside the published values
 * (app/validate_data.c) with the tolerance it is judged by. docs/validation.md gives each
 * case's set-up, criterion and sources. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "args.h"
#include "output.h"
#include "progress.h"
#include "validate.h"
#include "verify_stats.h"

#ifndef THRONG_SCENES_DIR
#define THRONG_SCENES_DIR "scenes"
#endif

static const char k_validate_help[] =
    "usage: throng validate [options]\n"
    "\n"
    "Run the validation cases: bottleneck flow against width, the corridor's fundamental\n"
    "diagram, counterflow, a T-junction and a corner, from the scenes in scenes/validation/ with\n"
    "the engine's default parameters over several seeds, and print one table: case, result,\n"
    "the seeds' mean and range, the criterion, and the published measurements beside them with\n"
    "their sources. docs/validation.md has the set-ups, the criteria and the data.\n"
    "\n"
    "options:\n"
    "  --only PATTERN  run only the cases whose id matches PATTERN (a shell pattern such as\n"
    "                  'bottleneck-1.0' or 'fd-*'; several separated by commas)\n"
    "  --seeds N       at most N seeds per case, 1 to 3 (default: each case's own, 2 or 3)\n"
    "  --json FILE     also write the table, the per-seed values and the published data as JSON\n"
    "  --threads N     worker threads, 0 to 64 (0 = every core; the results are the same)\n"
    "  --list          list the cases and exit\n"
    "  -h, --help      show this help\n"
    "\n"
    "Progress goes to stderr. Ctrl-C, SIGTERM or SIGHUP stops it after the case that is\n"
    "running, without a table; --json is written only once whole. Exit codes: 0 when every\n"
    "case passes, 1 when a case fails or a scene cannot be run, 2 usage error, 128 + the\n"
    "signal when stopped (130 for Ctrl-C).\n";

/* ---- results ----------------------------------------------------------------------------- */

typedef struct vopts {
    uint32_t threads;
    int seeds; /* most seeds per case; 0: each case's own */
} vopts;

typedef enum cstatus { C_PASS = 0, C_FAIL, C_ERROR } cstatus;

static const char *const k_status_name[] = {"pass", "fail", "error"};

#define TXT       360
#define MAX_SEEDS 3
#define MAX_EXTRA 12
#define MAX_SRC   8

/* A case's row: what it measured over its seeds, the published values, the tolerance. */
typedef struct vrow {
    cstatus status;
    const char *unit;
    int nseeds;
    int seed[MAX_SEEDS];
    double per_seed[MAX_SEEDS];
    double mean, min, max;
    char measured[TXT];
    double pub_value, pub_low, pub_high;
    char published[TXT];
    const char *sources[MAX_SRC];
    int nsources;
    double tol_low, tol_high;
    char tolerance[TXT];
    int nextra;
    const char *extra_name[MAX_EXTRA];
    double extra[MAX_EXTRA];
} vrow;

typedef void (*vjudge)(const vopts *o, double param, vrow *r);

typedef struct vcase {
    const char *id;
    const char *what;
    vjudge judge;
    double param; /* the width or density of a case of a family */
} vcase;

static void addf(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Append to the text in buf (cap bytes), cut when it is full. */
static void addf(char *buf, size_t cap, const char *fmt, ...) {
    size_t len = strlen(buf);
    if (len + 1 >= cap) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, cap - len, fmt, ap);
    va_end(ap);
}

/* Copy text `src` into dst (cap bytes), cut when it is longer. */
static void copy_text(char *dst, size_t cap, const char *src) {
    size_t n = strlen(src);
    if (n >= cap) n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static void row_init(vrow *r) {
    memset(r, 0, sizeof *r);
    r->mean = r->min = r->max = NAN;
    r->pub_value = r->pub_low = r->pub_high = NAN;
    r->tol_low = r->tol_high = NAN;
    r->unit = "";
}

static void row_extra(vrow *r, const char *name, double v) {
    if (r->nextra >= MAX_EXTRA) return;
    r->extra_name[r->nextra] = name;
    r->extra[r->nextra++] = v;
}

static void row_source(vrow *r, const char *id) {
    for (int i = 0; i < r->nsources; i++)
        if (strcmp(r->sources[i], id) == 0) return;
    if (r->nsources < MAX_SRC) r->sources[r->nsources++] = id;
}

/* The seeds' values v[0..n) into the row: per seed, mean, least and greatest. */
static void row_values(vrow *r, const int *seeds, const double *v, int n) {
    r->nseeds = n;
    double sum = 0.0;
    r->min = INFINITY;
    r->max = -INFINITY;
    for (int k = 0; k < n; k++) {
        r->seed[k] = seeds[k];
        r->per_seed[k] = v[k];
        sum += v[k];
        r->min = fmin(r->min, v[k]);
        r->max = fmax(r->max, v[k]);
    }
    r->mean = n ? sum / n : NAN;
    if (!n) r->min = r->max = NAN;
}

static void row_error(vrow *r, const char *why) {
    r->status = C_ERROR;
    copy_text(r->measured, sizeof r->measured, why);
}

/* How many of a case's `own` seeds run (1..own), under --seeds. */
static int seeds_for(const vopts *o, int own) {
    return o->seeds > 0 && o->seeds < own ? o->seeds : own;
}

/* ---- running a scene --------------------------------------------------------------------- */

#define MAX_AREAS 4

/* A world opened from a scene in scenes/validation/, and every agent present at the start,
 * followed by id: the first time each crossed the scene's gate line from the side it started
 * on (interpolated within the step), and per step the density and mean speed of the areas
 * asked for. */
typedef struct vrun {
    th_world *w;
    double dt, t;
    uint32_t n, crossed, lost; /* lost: left the world without crossing the gate */
    th_agent_id *id;
    double *x, *y, *t_cross;
    signed char *side; /* +1: started left of the gate (looking from its `from` to its `to`) */
    bool gate;
    double ax, ay, bx, by;
    int areas;
    th_measure_area_id area[MAX_AREAS];
    double *rho[MAX_AREAS], *spd[MAX_AREAS], *time;
    size_t samples, cap;
    char error[300];
} vrun;

static bool scene_path(const char *name, char *path, size_t cap) {
    const char *dirs[] = {"scenes", THRONG_SCENES_DIR};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        snprintf(path, cap, "%s/validation/%s.yaml", dirs[i], name);
        if (access(path, R_OK) == 0) return true;
    }
    return false;
}

static void run_close(vrun *s) {
    if (s->w) th_world_destroy(s->w);
    free(s->id);
    free(s->x);
    free(s->y);
    free(s->t_cross);
    free(s->side);
    for (int a = 0; a < MAX_AREAS; a++) {
        free(s->rho[a]);
        free(s->spd[a]);
    }
    free(s->time);
    memset(s, 0, sizeof *s);
}

/* Which side of the gate (x, y) lies on: +1 left, -1 right or on it (as the engine counts). */
static signed char gate_side(const vrun *s, double x, double y) {
    const double c = (s->bx - s->ax) * (y - s->ay) - (s->by - s->ay) * (x - s->ax);
    return c > 0.0 ? 1 : -1;
}

/* Open scene `name` at `seed` (agents 0: the scene's counts), follow its agents across line
 * `gate` (NULL: none) and sample the areas named in `areas` (NULL-terminated, or NULL). */
static bool run_open(vrun *s, const char *name, const vopts *o, uint64_t seed, uint32_t agents,
                     const char *gate, const char *const *areas) {
    memset(s, 0, sizeof *s);
    char path[4096];
    if (!scene_path(name, path, sizeof path)) {
        snprintf(s->error, sizeof s->error, "scene validation/%s.yaml not found", name);
        return false;
    }
    fprintf(stderr, "throng validate:   %s, seed %llu\n", name, (unsigned long long)seed);
    th_scene_open_opts so = {
        .threads = o->threads, .has_seed = true, .seed = seed, .agents = agents};
    th_scene_info info;
    th_error err;
    s->w = th_scene_open(path, &so, &info, &err);
    if (!s->w) {
        snprintf(s->error, sizeof s->error, "%s: ", name);
        addf(s->error, sizeof s->error, "%s", err.message);
        return false;
    }
    s->dt = info.timestep;
    if (gate) {
        for (uint32_t i = 0; i < th_world_measure_line_count(s->w) && !s->gate; i++) {
            th_measure_line_info li;
            if (th_world_get_measure_line(s->w, (th_measure_line_id){i + 1}, &li) &&
                strcmp(li.name, gate) == 0) {
                s->gate = true;
                s->ax = li.a.x;
                s->ay = li.a.y;
                s->bx = li.b.x;
                s->by = li.b.y;
            }
        }
        if (!s->gate) {
            snprintf(s->error, sizeof s->error, "%s: no measurement line '%s'", name, gate);
            run_close(s);
            return false;
        }
    }
    for (int k = 0; areas && areas[k]; k++) {
        bool found = false;
        for (uint32_t i = 0;
             s->areas < MAX_AREAS && i < th_world_measure_area_count(s->w) && !found; i++) {
            th_measure_area_info ai;
            if (th_world_get_measure_area(s->w, (th_measure_area_id){i + 1}, &ai) &&
                strcmp(ai.name, areas[k]) == 0) {
                s->area[s->areas++] = (th_measure_area_id){i + 1};
                found = true;
            }
        }
        if (!found) {
            snprintf(s->error, sizeof s->error, "%s: no measurement area '%s'", name, areas[k]);
            run_close(s);
            return false;
        }
    }
    th_agent_view v = th_world_agents(s->w);
    s->n = v.count;
    size_t n = s->n ? s->n : 1;
    s->id = malloc(n * sizeof *s->id);
    s->x = malloc(n * sizeof *s->x);
    s->y = malloc(n * sizeof *s->y);
    s->t_cross = malloc(n * sizeof *s->t_cross);
    s->side = malloc(n * sizeof *s->side);
    if (!s->id || !s->x || !s->y || !s->t_cross || !s->side) {
        snprintf(s->error, sizeof s->error, "out of memory");
        run_close(s);
        return false;
    }
    for (uint32_t i = 0; i < s->n; i++) {
        s->id[i] = v.id[i];
        s->x[i] = v.px[i];
        s->y[i] = v.py[i];
        s->t_cross[i] = NAN;
        s->side[i] = s->gate ? gate_side(s, s->x[i], s->y[i]) : 0;
    }
    return true;
}

/* Keep this step's density and mean speed of each area (speed NaN when it is empty). */
static bool run_sample(vrun *s) {
    if (s->areas == 0) return true;
    if (s->samples == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 4096;
        double *t = realloc(s->time, cap * sizeof *t);
        if (!t) return false;
        s->time = t;
        for (int a = 0; a < s->areas; a++) {
            double *r = realloc(s->rho[a], cap * sizeof *r);
            if (!r) return false;
            s->rho[a] = r;
            double *v = realloc(s->spd[a], cap * sizeof *v);
            if (!v) return false;
            s->spd[a] = v;
        }
        s->cap = cap;
    }
    s->time[s->samples] = s->t;
    for (int a = 0; a < s->areas; a++) {
        th_measure_area_info info;
        bool ok = th_world_get_measure_area(s->w, s->area[a], &info);
        s->rho[a][s->samples] = ok ? info.density : NAN;
        s->spd[a][s->samples] = ok ? info.mean_speed : NAN;
    }
    s->samples++;
    return true;
}

static bool run_step(vrun *s) {
    th_world_step(s->w);
    const double t0 = s->t;
    s->t += s->dt;
    for (uint32_t i = 0; i < s->n; i++) {
        if (s->side[i] == 2) continue; /* gone */
        th_agent_state a;
        if (!th_world_get_agent(s->w, s->id[i], &a)) {
            s->side[i] = 2;
            s->lost += isnan(s->t_cross[i]);
            continue;
        }
        const double px = s->x[i], py = s->y[i], qx = a.position.x, qy = a.position.y;
        if (s->gate && isnan(s->t_cross[i]) && gate_side(s, px, py) == s->side[i] &&
            gate_side(s, qx, qy) != s->side[i]) {
            /* This step crossed the gate's line from the agent's side: where its straight path
             * meets the line, and whether that point lies on the gate itself. */
            const double ex = s->bx - s->ax, ey = s->by - s->ay;
            const double cp = ex * (py - s->ay) - ey * (px - s->ax);
            const double cq = ex * (qy - s->ay) - ey * (qx - s->ax);
            const double f = cp != cq ? cp / (cp - cq) : 1.0;
            const double mx = px + f * (qx - px), my = py + f * (qy - py);
            const double u = ((mx - s->ax) * ex + (my - s->ay) * ey) / (ex * ex + ey * ey);
            if (u >= -1e-6 && u <= 1.0 + 1e-6) {
                s->t_cross[i] = t0 + f * s->dt;
                s->crossed++;
            }
        }
        s->x[i] = qx;
        s->y[i] = qy;
    }
    if (!run_sample(s)) {
        snprintf(s->error, sizeof s->error, "out of memory");
        return false;
    }
    return true;
}

/* Step until `stop` agents have crossed the gate (0: until every agent has crossed or left),
 * the scene is over, or `max_s` simulated seconds. */
static bool run_until(vrun *s, double max_s, uint32_t stop) {
    const uint64_t steps = (uint64_t)llround(max_s / s->dt);
    for (uint64_t k = 0; k < steps; k++) {
        if (!run_step(s)) return false;
        if (stop ? s->crossed >= stop : s->crossed + s->lost >= s->n) break;
        if (th_world_scene_over(s->w)) break;
    }
    return true;
}

static int by_value(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The ordinal (1-based) of the crossing at fraction q of n: the 10 % of 180 is the 18th. */
static uint32_t ordinal(uint32_t n, double q) {
    long k = lround(q * n);
    return k < 1 ? 1u : (uint32_t)k;
}

/* Flow at the gate from the 10 % to the 90 % crossing of all n agents: the crossings between
 * them over the time between them; NaN when fewer than 90 % crossed. t10, t90 (may be NULL)
 * are the two times. */
static double run_flow(const vrun *s, double *t10, double *t90) {
    const uint32_t a = ordinal(s->n, 0.1), b = ordinal(s->n, 0.9);
    double *t = malloc((s->n ? s->n : 1) * sizeof *t);
    size_t k = 0;
    for (uint32_t i = 0; t && i < s->n; i++)
        if (!isnan(s->t_cross[i])) t[k++] = s->t_cross[i];
    double flow = NAN, ta = NAN, tb = NAN;
    if (t && k >= b && b > a) {
        qsort(t, k, sizeof *t, by_value);
        ta = t[a - 1];
        tb = t[b - 1];
        if (tb > ta) flow = (double)(b - a) / (tb - ta);
    }
    free(t);
    if (t10) *t10 = ta;
    if (t90) *t90 = tb;
    return flow;
}

/* Mean over the steps in [t0, t1] of area a's density times mean speed (an empty area flows
 * nothing) and of its density. */
static void run_area_mean(const vrun *s, int a, double t0, double t1, double *js, double *rho) {
    double sj = 0.0, sr = 0.0;
    size_t n = 0;
    for (size_t k = 0; k < s->samples; k++) {
        if (s->time[k] < t0 || s->time[k] > t1) continue;
        const double r = s->rho[a][k], v = s->spd[a][k];
        sj += isnan(v) ? 0.0 : r * v;
        sr += r;
        n++;
    }
    *js = n ? sj / n : NAN;
    *rho = n ? sr / n : NAN;
}

/* A cached run: each simulation runs once per `throng validate`, however many cases read it. */
typedef struct vcache {
    bool done, ok;
    char error[300];
} vcache;

/* ---- bottlenecks ------------------------------------------------------------------------- */

#define BN_WIDTHS 10
#define BN_SEEDS  3
static const double k_bn_width[BN_WIDTHS] = {0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.2, 1.6, 2.0, 2.4};
static const int k_bn_seed[BN_SEEDS] = {1, 2, 3};

/* The experiments judged against: the two laboratory series with everyday motivation that the
 * defaults follow (Kretz et al. 2006, Seyfried et al. 2009). The others of the compilation, and
 * the wide bottlenecks of Liao et al. in both derivations, are shown beside them: they lie 15-40 %
 * higher at the same width (docs/validation.md, "Where the data disagree"). */
static const char *const k_bn_judged[] = {"kretz2006", "seyfried2009"};
static const char *const k_bn_shown[] = {"mueller1981", "nagai2006", "daamen2010", "liao2014-fig",
                                         "liao2014-data"};
#define BN_NJUDGED (sizeof k_bn_judged / sizeof k_bn_judged[0])
#define BN_NSHOWN  (sizeof k_bn_shown / sizeof k_bn_shown[0])

/* Widths from which the judged series' specific flow stands for wider bottlenecks: Kretz et al.
 * found it constant once two walk abreast, Seyfried et al. a flow linear in the width. */
#define BN_SPECIFIC_FROM 1.0

static struct {
    vcache c;
    double flow;
    uint32_t crossed, n;
} bn[BN_WIDTHS][BN_SEEDS];

static int width_index(double b) {
    for (int k = 0; k < BN_WIDTHS; k++)
        if (fabs(k_bn_width[k] - b) < 1e-9) return k;
    return -1;
}

static bool bn_run(const vopts *o, int w, int k) {
    if (bn[w][k].c.done) return bn[w][k].c.ok;
    bn[w][k].c.done = true;
    char name[64];
    snprintf(name, sizeof name, "bottleneck_b%03ld", lround(k_bn_width[w] * 100.0));
    vrun s;
    if (!run_open(&s, name, o, (uint64_t)k_bn_seed[k], 0, "gate", NULL)) {
        copy_text(bn[w][k].c.error, sizeof bn[w][k].c.error, s.error);
        return false;
    }
    const bool ok = run_until(&s, 600.0, ordinal(s.n, 0.9));
    bn[w][k].flow = run_flow(&s, NULL, NULL);
    bn[w][k].crossed = s.crossed;
    bn[w][k].n = s.n;
    if (!ok) copy_text(bn[w][k].c.error, sizeof bn[w][k].c.error, s.error);
    run_close(&s);
    bn[w][k].c.ok = ok;
    return ok;
}

/* Append source t's value at width b to r's published text (and its citation to r's sources);
 * false when t does not cover b. */
static bool bn_show(const th_val_table *t, double b, vrow *r, double *lo, double *hi) {
    double a, c;
    bool exact;
    if (!t || !th_val_range_at(t, b, &a, &c, &exact)) return false;
    row_source(r, t->id);
    addf(r->published, sizeof r->published, "%s%s %s", r->published[0] ? "; " : "", t->label,
         exact ? "" : "~");
    if (fabs(c - a) < 5e-4) addf(r->published, sizeof r->published, "%.2f", a);
    else addf(r->published, sizeof r->published, "%.2f-%.2f", a, c);
    *lo = a;
    *hi = c;
    return true;
}

/* The band at width b, [0.85 x the least, 1.15 x the greatest] of the judged series that cover
 * b; beyond their widths, b times the band of their specific flows from BN_SPECIFIC_FROM metres
 * on. The shown series follow in r's published text. False when neither covers b. */
static bool bn_band(double b, vrow *r) {
    double lo = INFINITY, hi = -INFINITY;
    for (size_t s = 0; s < BN_NJUDGED; s++) {
        double a, c;
        if (!bn_show(th_val_find(k_bn_judged[s]), b, r, &a, &c)) continue;
        lo = fmin(lo, a);
        hi = fmax(hi, c);
    }
    if (!isfinite(lo)) {
        /* Wider than the judged series: their specific flow at their widest. */
        double slo = INFINITY, shi = -INFINITY;
        for (size_t s = 0; s < BN_NJUDGED; s++) {
            const th_val_table *t = th_val_find(k_bn_judged[s]);
            for (size_t k = 0; t && k < t->n; k++) {
                if (t->rows[k].x0 < BN_SPECIFIC_FROM - 1e-9) continue;
                slo = fmin(slo, t->rows[k].y / t->rows[k].x0);
                shi = fmax(shi, t->rows[k].y / t->rows[k].x0);
            }
        }
        if (!isfinite(slo)) return false;
        lo = slo * b;
        hi = shi * b;
        addf(r->published, sizeof r->published,
             "Kretz 2006, Seyfried 2009 specific flow %.2f-%.2f /(m s) x %.1f m", slo, shi, b);
    }
    r->pub_low = lo;
    r->pub_high = hi;
    r->tol_low = 0.85 * lo;
    r->tol_high = 1.15 * hi;
    /* Shown, not judged. */
    bool any = false;
    for (size_t s = 0; s < BN_NSHOWN; s++) {
        const th_val_table *t = th_val_find(k_bn_shown[s]);
        double a, c;
        if (!t || !th_val_range_at(t, b, &a, &c, NULL)) continue;
        addf(r->published, sizeof r->published, "%s", any ? "" : " | also: ");
        any = true;
        char one[TXT] = "";
        vrow tmp;
        row_init(&tmp);
        if (bn_show(t, b, &tmp, &a, &c)) copy_text(one, sizeof one, tmp.published);
        addf(r->published, sizeof r->published, "%s%s", one, "; ");
    }
    return true;
}

static void judge_bottleneck(const vopts *o, double b, vrow *r) {
    const int w = width_index(b);
    const int n = seeds_for(o, BN_SEEDS);
    double v[MAX_SEEDS];
    r->unit = "1/s";
    for (int k = 0; k < n; k++) {
        if (!bn_run(o, w, k)) {
            row_error(r, bn[w][k].c.error);
            return;
        }
        v[k] = bn[w][k].flow;
    }
    row_values(r, k_bn_seed, v, n);
    row_extra(r, "width", b);
    row_extra(r, "specific_flow", r->mean / b);
    if (!bn_band(b, r)) {
        row_error(r, "no published series covers this width");
        return;
    }
    snprintf(r->tolerance, sizeof r->tolerance, "J in [%.2f, %.2f] /s", r->tol_low, r->tol_high);
    for (int k = 0; k < n; k++) {
        if (isnan(v[k])) {
            snprintf(r->measured, sizeof r->measured,
                     "seed %d: %u of %u through in 600 s, no 10-90 %% flow", k_bn_seed[k],
                     bn[w][k].crossed, bn[w][k].n);
            r->status = C_FAIL;
            return;
        }
    }
    snprintf(r->measured, sizeof r->measured, "J %.2f /s [%.2f, %.2f], J/b %.2f", r->mean, r->min,
             r->max, r->mean / b);
    r->status = r->mean >= r->tol_low && r->mean <= r->tol_high ? C_PASS : C_FAIL;
}

/* The flow rises with the width, and no step of 0.1 m from 0.5 to 1.0 m adds more than 20 %
 * (Seyfried et al. 2009: no stepwise growth). Measured: the largest such step. */
static void judge_growth(const vopts *o, double unused, vrow *r) {
    (void)unused;
    const int n = seeds_for(o, BN_SEEDS);
    double mean[BN_WIDTHS];
    r->unit = "fraction";
    r->tol_high = 0.20;
    row_source(r, "seyfried2009");
    snprintf(r->published, sizeof r->published,
             "Seyfried 2009: the flow grows linearly with the width, not in steps");
    snprintf(r->tolerance, sizeof r->tolerance, "rises; each +0.1 m step 0.5-1.0 m <= +20 %%");
    for (int w = 0; w < BN_WIDTHS; w++) {
        mean[w] = 0.0;
        for (int k = 0; k < n; k++) {
            if (!bn_run(o, w, k)) {
                row_error(r, bn[w][k].c.error);
                return;
            }
            mean[w] += bn[w][k].flow / n;
        }
    }
    for (int w = 0; w < BN_WIDTHS; w++) {
        if (isnan(mean[w])) {
            snprintf(r->measured, sizeof r->measured, "no 10-90 %% flow at %.1f m", k_bn_width[w]);
            r->status = C_FAIL;
            return;
        }
    }
    double step[MAX_SEEDS];
    for (int k = 0; k < n; k++) {
        step[k] = -INFINITY;
        for (int w = 0; w + 1 < BN_WIDTHS && k_bn_width[w + 1] <= 1.0 + 1e-9; w++)
            step[k] = fmax(step[k], bn[w + 1][k].flow / bn[w][k].flow - 1.0);
    }
    row_values(r, k_bn_seed, step, n);
    bool rises = true;
    double largest = -INFINITY, at = NAN;
    for (int w = 0; w + 1 < BN_WIDTHS; w++) {
        rises &= mean[w + 1] > mean[w];
        if (k_bn_width[w + 1] <= 1.0 + 1e-9 && mean[w + 1] / mean[w] - 1.0 > largest) {
            largest = mean[w + 1] / mean[w] - 1.0;
            at = k_bn_width[w];
        }
    }
    /* The row's value is the largest step of the seeds' mean flows; the range is that of each
     * seed's own largest step. */
    r->mean = largest;
    row_extra(r, "rises", rises ? 1.0 : 0.0);
    row_extra(r, "largest_step_from", at);
    snprintf(r->measured, sizeof r->measured,
             "largest step %+.0f %% (%.1f -> %.1f m) [%+.0f, %+.0f %%]; %s", 100.0 * largest, at,
             at + 0.1, 100.0 * r->min, 100.0 * r->max,
             rises ? "rises at every width" : "does not rise at every width");
    r->status = rises && largest <= 0.20 ? C_PASS : C_FAIL;
}

/* ---- the corridor's fundamental diagram -------------------------------------------------- */

#define FD_POINTS 8
#define FD_SEEDS  2
static const double k_fd_density[FD_POINTS] = {0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0};
static const int k_fd_seed[FD_SEEDS] = {1, 2};

/* RiMEA 4's periodic corridor (as `throng verify` measures it): density and mean speed in its
 * 2 m x 2 m area, averaged over 40 s after 20 s of warm-up. */
static struct {
    vcache c;
    double rho, v;
} fd[FD_POINTS][FD_SEEDS];

static bool fd_run(const vopts *o, int p, int k) {
    if (fd[p][k].c.done) return fd[p][k].c.ok;
    fd[p][k].c.done = true;
    const char *const areas[] = {"centre", NULL};
    const uint32_t agents = (uint32_t)lround(k_fd_density[p] * 60.0); /* walkway 60 m2 */
    vrun s;
    if (!run_open(&s, "rimea4_corridor", o, (uint64_t)k_fd_seed[k], agents, NULL, areas)) {
        copy_text(fd[p][k].c.error, sizeof fd[p][k].c.error, s.error);
        return false;
    }
    double sr = 0.0, sv = 0.0;
    uint32_t nr = 0, nv = 0;
    const uint64_t warm = (uint64_t)llround(20.0 / s.dt), total = (uint64_t)llround(60.0 / s.dt);
    for (uint64_t step = 0; step < total; step++) {
        th_world_step(s.w);
        if (step + 1 < warm) continue;
        th_measure_area_info a;
        if (!th_world_get_measure_area(s.w, s.area[0], &a)) break;
        sr += a.density;
        nr++;
        if (!isnan(a.mean_speed)) {
            sv += a.mean_speed;
            nv++;
        }
    }
    run_close(&s);
    if (nr == 0 || nv == 0) {
        snprintf(fd[p][k].c.error, sizeof fd[p][k].c.error, "the corridor's area stayed empty");
        return false;
    }
    fd[p][k].rho = sr / nr;
    fd[p][k].v = sv / nv;
    fd[p][k].c.ok = true;
    return true;
}

static void judge_fd(const vopts *o, double density, vrow *r) {
    int p = 0;
    while (p + 1 < FD_POINTS && fabs(k_fd_density[p] - density) > 1e-9) p++;
    const int n = seeds_for(o, FD_SEEDS);
    double v[MAX_SEEDS], rho = 0.0;
    r->unit = "m/s";
    for (int k = 0; k < n; k++) {
        if (!fd_run(o, p, k)) {
            row_error(r, fd[p][k].c.error);
            return;
        }
        v[k] = fd[p][k].v;
        rho += fd[p][k].rho / n;
    }
    row_values(r, k_fd_seed, v, n);
    const double w = th_vs_weidmann_speed(rho);
    const double tol = fmax(0.25 * w, 0.1);
    r->pub_value = w;
    r->tol_low = w - tol;
    r->tol_high = w + tol;
    row_extra(r, "density", rho);
    for (int k = 0; k < n; k++) row_extra(r, k ? "density_seed2" : "density_seed1", fd[p][k].rho);
    row_extra(r, "weidmann", w);
    snprintf(r->measured, sizeof r->measured, "v %.2f m/s [%.2f, %.2f] at %.2f /m2", r->mean,
             r->min, r->max, rho);
    snprintf(r->published, sizeof r->published, "Weidmann %.2f", w);
    const th_val_table *z = th_val_find("zhang2011-uo-v");
    const th_val_row *bin = th_val_bin(z, rho);
    if (bin) {
        row_source(r, z->id);
        row_extra(r, "zhang", bin->y);
        row_extra(r, "zhang_difference", r->mean / bin->y - 1.0);
        addf(r->published, sizeof r->published, "; Zhang 2011 %.2f (%g-%g /m2): v %+.0f %%", bin->y,
             bin->x0, bin->x1, 100.0 * (r->mean / bin->y - 1.0));
    }
    snprintf(r->tolerance, sizeof r->tolerance, "Weidmann +-%.2f: [%.2f, %.2f] m/s", tol,
             r->tol_low, r->tol_high);
    r->status = fabs(r->mean - w) <= tol ? C_PASS : C_FAIL;
}

/* ---- counterflow between two halls ------------------------------------------------------- */

#define CF_SEEDS 3
static const int k_cf_seed[CF_SEEDS] = {1, 2, 3};

enum { CF_BI, CF_UNI, CF_MINORITY, CF_BALANCED, CF_UNI350, CF_RUNS };
static const struct {
    const char *scene;
    uint32_t agents;
    const char *what;
} k_cf_run[CF_RUNS] = {
    {"counterflow_halls_bi", 0, "200 against 200"},
    {"counterflow_halls_uni", 0, "400 one way"},
    {"counterflow_halls_300_50", 0, "300 against 50"},
    {"counterflow_halls_bi", 350, "175 against 175"},
    {"counterflow_halls_uni", 350, "350 one way"},
};

static struct {
    vcache c;
    double flow;
    uint32_t crossed, n;
} cf[CF_RUNS][CF_SEEDS];

static bool cf_run(const vopts *o, int c, int k) {
    if (cf[c][k].c.done) return cf[c][k].c.ok;
    cf[c][k].c.done = true;
    vrun s;
    if (!run_open(&s, k_cf_run[c].scene, o, (uint64_t)k_cf_seed[k], k_cf_run[c].agents, "middle",
                  NULL)) {
        copy_text(cf[c][k].c.error, sizeof cf[c][k].c.error, s.error);
        return false;
    }
    const bool ok = run_until(&s, 900.0, 0);
    cf[c][k].flow = run_flow(&s, NULL, NULL);
    cf[c][k].crossed = s.crossed;
    cf[c][k].n = s.n;
    if (!ok) copy_text(cf[c][k].c.error, sizeof cf[c][k].c.error, s.error);
    run_close(&s);
    cf[c][k].c.ok = ok;
    return ok;
}

/* The per-seed ratios of run `num`'s flow to run `den`'s; false (with r filled) on an error or
 * a run that did not reach its 90 % crossing. */
static bool cf_ratios(const vopts *o, int num, int den, int n, double *ratio, vrow *r) {
    for (int k = 0; k < n; k++) {
        if (!cf_run(o, num, k)) {
            row_error(r, cf[num][k].c.error);
            return false;
        }
        if (!cf_run(o, den, k)) {
            row_error(r, cf[den][k].c.error);
            return false;
        }
        for (int c = 0; c < 2; c++) {
            const int run = c ? den : num;
            if (isnan(cf[run][k].flow)) {
                snprintf(r->measured, sizeof r->measured,
                         "%s, seed %d: %u of %u crossed in 900 s, no 10-90 %% flow",
                         k_cf_run[run].what, k_cf_seed[k], cf[run][k].crossed, cf[run][k].n);
                r->status = C_FAIL;
                return false;
            }
        }
        ratio[k] = cf[num][k].flow / cf[den][k].flow;
    }
    return true;
}

static double cf_mean_flow(int c, int n) {
    double m = 0.0;
    for (int k = 0; k < n; k++) m += cf[c][k].flow / n;
    return m;
}

static void judge_cf_ratio(const vopts *o, double unused, vrow *r) {
    (void)unused;
    const int n = seeds_for(o, CF_SEEDS);
    double ratio[MAX_SEEDS];
    r->unit = "ratio";
    const th_val_table *uni = th_val_find("zhang2011-uo-js"), *bi = th_val_find("zhang2012-bo-js");
    r->pub_value = th_val_max(bi) / th_val_max(uni);
    r->tol_low = 0.70;
    row_source(r, bi->id);
    row_source(r, uni->id);
    snprintf(r->published, sizeof r->published,
             "Zhang 2012 / 2011: max Js %.2f both ways / %.2f one way = %.2f", th_val_max(bi),
             th_val_max(uni), r->pub_value);
    snprintf(r->tolerance, sizeof r->tolerance, "ratio >= 0.70");
    if (!cf_ratios(o, CF_BI, CF_UNI, n, ratio, r)) return;
    row_values(r, k_cf_seed, ratio, n);
    row_extra(r, "bidirectional_flow", cf_mean_flow(CF_BI, n));
    row_extra(r, "unidirectional_flow", cf_mean_flow(CF_UNI, n));
    snprintf(r->measured, sizeof r->measured, "%.2f [%.2f, %.2f]: %.2f /s both ways, %.2f one way",
             r->mean, r->min, r->max, cf_mean_flow(CF_BI, n), cf_mean_flow(CF_UNI, n));
    r->status = r->mean >= 0.70 ? C_PASS : C_FAIL;
}

static void judge_cf_split(const vopts *o, double unused, vrow *r) {
    (void)unused;
    const int n = seeds_for(o, CF_SEEDS);
    double minority[MAX_SEEDS], balanced[MAX_SEEDS];
    r->unit = "ratio";
    snprintf(r->published, sizeof r->published,
             "Feliciani 2018: the balanced case generally shows the most congestion");
    if (!cf_ratios(o, CF_MINORITY, CF_UNI350, n, minority, r) ||
        !cf_ratios(o, CF_BALANCED, CF_UNI350, n, balanced, r))
        return;
    row_values(r, k_cf_seed, minority, n);
    double mb = 0.0, lo = INFINITY, hi = -INFINITY;
    for (int k = 0; k < n; k++) {
        mb += balanced[k] / n;
        lo = fmin(lo, balanced[k]);
        hi = fmax(hi, balanced[k]);
    }
    r->tol_low = mb - 0.02;
    row_extra(r, "balanced_ratio", mb);
    row_extra(r, "minority_flow", cf_mean_flow(CF_MINORITY, n));
    row_extra(r, "balanced_flow", cf_mean_flow(CF_BALANCED, n));
    row_extra(r, "unidirectional_flow", cf_mean_flow(CF_UNI350, n));
    snprintf(r->measured, sizeof r->measured,
             "300/50 %.2f [%.2f, %.2f], 175/175 %.2f [%.2f, %.2f] of one way (%.2f /s)", r->mean,
             r->min, r->max, mb, lo, hi, cf_mean_flow(CF_UNI350, n));
    snprintf(r->tolerance, sizeof r->tolerance, "300/50 >= 175/175 - 0.02 = %.2f", r->tol_low);
    r->status = r->mean >= r->tol_low ? C_PASS : C_FAIL;
}

/* ---- T-junction and corner --------------------------------------------------------------- */

#define TURN_SEEDS 3
static const int k_turn_seed[TURN_SEEDS] = {1, 2, 3};

/* Specific flows (density x speed) in a scene's areas, averaged from the 10 % to the 90 %
 * crossing of its gate, with the gate's flow. */
typedef struct turn_result {
    vcache c;
    double js[MAX_AREAS], rho[MAX_AREAS], flow;
    uint32_t crossed, n;
} turn_result;

static bool turn_run(const vopts *o, const char *scene, const char *gate, const char *const *areas,
                     int k, turn_result *t) {
    if (t->c.done) return t->c.ok;
    t->c.done = true;
    vrun s;
    if (!run_open(&s, scene, o, (uint64_t)k_turn_seed[k], 0, gate, areas)) {
        copy_text(t->c.error, sizeof t->c.error, s.error);
        return false;
    }
    const bool ok = run_until(&s, 600.0, ordinal(s.n, 0.9));
    double t10, t90;
    t->flow = run_flow(&s, &t10, &t90);
    t->crossed = s.crossed;
    t->n = s.n;
    for (int a = 0; a < s.areas; a++) {
        t->js[a] = t->rho[a] = NAN;
        if (!isnan(t->flow)) run_area_mean(&s, a, t10, t90, &t->js[a], &t->rho[a]);
    }
    if (!ok) copy_text(t->c.error, sizeof t->c.error, s.error);
    run_close(&s);
    t->c.ok = ok;
    return ok;
}

static turn_result tj[TURN_SEEDS], corner[TURN_SEEDS];

/* T-junction, branches and main corridor 2.4 m: the specific flow after the merge against
 * the mean of run ko-240-240-240's main corridor (Zhang et al. 2011), within 25 %. */
static void judge_tjunction(const vopts *o, double unused, vrow *r) {
    (void)unused;
    const char *const areas[] = {"main", "left", "right", NULL};
    const int n = seeds_for(o, TURN_SEEDS);
    double v[MAX_SEEDS], rho = 0.0, branch = 0.0, brho = 0.0, flow = 0.0;
    r->unit = "1/(m s)";
    const th_val_table *runs = th_val_find("zhang-ko-main-runs"),
                       *bins = th_val_find("zhang-ko-main-js"),
                       *br = th_val_find("zhang-ko-branch-js");
    double pub = NAN, pub_hi;
    th_val_range_at(runs, 2.4, &pub, &pub_hi, NULL);
    r->pub_value = pub;
    r->tol_low = 0.75 * pub;
    r->tol_high = 1.25 * pub;
    row_source(r, runs->id);
    row_source(r, bins->id);
    row_source(r, br->id);
    snprintf(r->tolerance, sizeof r->tolerance, "Js within 25 %%: [%.2f, %.2f]", r->tol_low,
             r->tol_high);
    for (int k = 0; k < n; k++) {
        if (!turn_run(o, "tjunction_240", "main_end", areas, k, &tj[k])) {
            row_error(r, tj[k].c.error);
            return;
        }
        if (isnan(tj[k].flow)) {
            snprintf(r->measured, sizeof r->measured,
                     "seed %d: %u of %u past the main area in 600 s, no steady part",
                     k_turn_seed[k], tj[k].crossed, tj[k].n);
            r->status = C_FAIL;
            return;
        }
        v[k] = tj[k].js[0];
        rho += tj[k].rho[0] / n;
        branch += 0.5 * (tj[k].js[1] + tj[k].js[2]) / n;
        brho += 0.5 * (tj[k].rho[1] + tj[k].rho[2]) / n;
        flow += tj[k].flow / n;
    }
    row_values(r, k_turn_seed, v, n);
    row_extra(r, "density", rho);
    row_extra(r, "branch_specific_flow", branch);
    row_extra(r, "branch_density", brho);
    row_extra(r, "line_flow", flow);
    const th_val_row *b = th_val_bin(bins, rho), *bb = th_val_bin(br, brho);
    snprintf(r->measured, sizeof r->measured,
             "Js %.2f [%.2f, %.2f] at %.2f /m2 (line %.2f /s = %.2f per m); branches %.2f at "
             "%.2f /m2",
             r->mean, r->min, r->max, rho, flow, flow / 2.4, branch, brho);
    snprintf(r->published, sizeof r->published, "Zhang 2011 ko-240-240-240 mean %.2f", pub);
    if (b) addf(r->published, sizeof r->published, "; bin %g-%g /m2 %.2f", b->x0, b->x1, b->y);
    addf(r->published, sizeof r->published, "; bin max %.2f", th_val_max(bins));
    if (bb) addf(r->published, sizeof r->published, "; branches %.2f", bb->y);
    r->status = r->mean >= r->tol_low && r->mean <= r->tol_high ? C_PASS : C_FAIL;
}

/* Corner of a 2.4 m corridor: the specific flows before and after agree within 10 %, and the
 * one after reaches 75 % of run eo-240-240-240's (the mean of its two areas). */
static void judge_corner(const vopts *o, double unused, vrow *r) {
    (void)unused;
    const char *const areas[] = {"before", "after", NULL};
    const int n = seeds_for(o, TURN_SEEDS);
    double v[MAX_SEEDS], before = 0.0, rb = 0.0, ra = 0.0, flow = 0.0;
    r->unit = "1/(m s)";
    const th_val_table *run = th_val_find("zhang-eo-240");
    double a1, a2, dummy;
    th_val_range_at(run, 1.0, &a1, &dummy, NULL);
    th_val_range_at(run, 2.0, &a2, &dummy, NULL);
    r->pub_value = 0.5 * (a1 + a2);
    r->pub_low = fmin(a1, a2);
    r->pub_high = fmax(a1, a2);
    r->tol_low = 0.75 * r->pub_value;
    row_source(r, run->id);
    row_source(r, "zhang-eo-area1-js");
    row_source(r, "zhang-eo-area2-js");
    snprintf(r->published, sizeof r->published,
             "Zhang eo-240-240-240: %.2f and %.2f in the two areas (mean %.2f), agreeing", a1, a2,
             r->pub_value);
    snprintf(r->tolerance, sizeof r->tolerance, "after/before within 10 %%; after >= %.3f",
             r->tol_low);
    for (int k = 0; k < n; k++) {
        if (!turn_run(o, "corner_240", "after_end", areas, k, &corner[k])) {
            row_error(r, corner[k].c.error);
            return;
        }
        if (isnan(corner[k].flow)) {
            snprintf(r->measured, sizeof r->measured,
                     "seed %d: %u of %u past the after area in 600 s, no steady part",
                     k_turn_seed[k], corner[k].crossed, corner[k].n);
            r->status = C_FAIL;
            return;
        }
        v[k] = corner[k].js[1];
        before += corner[k].js[0] / n;
        rb += corner[k].rho[0] / n;
        ra += corner[k].rho[1] / n;
        flow += corner[k].flow / n;
    }
    row_values(r, k_turn_seed, v, n);
    const double agree = r->mean / before - 1.0;
    row_extra(r, "before", before);
    row_extra(r, "density_before", rb);
    row_extra(r, "density_after", ra);
    row_extra(r, "after_over_before", r->mean / before);
    row_extra(r, "line_flow", flow);
    snprintf(r->measured, sizeof r->measured,
             "after Js %.2f [%.2f, %.2f] at %.2f /m2, before %.2f at %.2f /m2: %+.0f %%", r->mean,
             r->min, r->max, ra, before, rb, 100.0 * agree);
    r->status = fabs(agree) <= 0.10 && r->mean >= r->tol_low ? C_PASS : C_FAIL;
}

/* ---- the cases --------------------------------------------------------------------------- */

static const vcase k_cases[] = {
    {"bottleneck-0.5", "flow through a 0.5 m bottleneck", judge_bottleneck, 0.5},
    {"bottleneck-0.6", "flow through a 0.6 m bottleneck", judge_bottleneck, 0.6},
    {"bottleneck-0.7", "flow through a 0.7 m bottleneck", judge_bottleneck, 0.7},
    {"bottleneck-0.8", "flow through a 0.8 m bottleneck", judge_bottleneck, 0.8},
    {"bottleneck-0.9", "flow through a 0.9 m bottleneck", judge_bottleneck, 0.9},
    {"bottleneck-1.0", "flow through a 1.0 m bottleneck", judge_bottleneck, 1.0},
    {"bottleneck-1.2", "flow through a 1.2 m bottleneck", judge_bottleneck, 1.2},
    {"bottleneck-1.6", "flow through a 1.6 m bottleneck", judge_bottleneck, 1.6},
    {"bottleneck-2.0", "flow through a 2.0 m bottleneck", judge_bottleneck, 2.0},
    {"bottleneck-2.4", "flow through a 2.4 m bottleneck", judge_bottleneck, 2.4},
    {"bottleneck-growth", "bottleneck flow grows with width, not in steps", judge_growth, 0.0},
    {"fd-0.5", "corridor speed at 0.5 persons/m2", judge_fd, 0.5},
    {"fd-1", "corridor speed at 1 person/m2", judge_fd, 1.0},
    {"fd-1.5", "corridor speed at 1.5 persons/m2", judge_fd, 1.5},
    {"fd-2", "corridor speed at 2 persons/m2", judge_fd, 2.0},
    {"fd-2.5", "corridor speed at 2.5 persons/m2", judge_fd, 2.5},
    {"fd-3", "corridor speed at 3 persons/m2", judge_fd, 3.0},
    {"fd-3.5", "corridor speed at 3.5 persons/m2", judge_fd, 3.5},
    {"fd-4", "corridor speed at 4 persons/m2", judge_fd, 4.0},
    {"counterflow-ratio", "bidirectional / unidirectional flow", judge_cf_ratio, 0.0},
    {"counterflow-split", "a 14 % minority costs less than a balanced split", judge_cf_split, 0.0},
    {"tjunction", "specific flow after a T-junction merge", judge_tjunction, 0.0},
    {"corner", "specific flow before and after a corner", judge_corner, 0.0},
};

#define N_CASES (sizeof k_cases / sizeof k_cases[0])

/* ---- options, output --------------------------------------------------------------------- */

static void json_str(FILE *f, const char *s) {
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
        else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
        else fputc(*p, f);
    }
    fputc('"', f);
}

/* A number, or null for NaN and infinities (which JSON lacks). */
static void json_num(FILE *f, double v) {
    if (isfinite(v)) fprintf(f, "%.6g", v);
    else fputs("null", f);
}

static void json_row(FILE *f, const vcase *c, const vrow *r) {
    fprintf(f, "    {\"id\": ");
    json_str(f, c->id);
    fprintf(f, ", \"what\": ");
    json_str(f, c->what);
    fprintf(f, ", \"status\": ");
    json_str(f, k_status_name[r->status]);
    fprintf(f, ", \"unit\": ");
    json_str(f, r->unit);
    fprintf(f, ",\n     \"seeds\": [");
    for (int k = 0; k < r->nseeds; k++) fprintf(f, "%s%d", k ? ", " : "", r->seed[k]);
    fprintf(f, "], \"per_seed\": [");
    for (int k = 0; k < r->nseeds; k++) {
        if (k) fputs(", ", f);
        json_num(f, r->per_seed[k]);
    }
    fprintf(f, "], \"measured\": ");
    json_num(f, r->mean);
    fprintf(f, ", \"measured_min\": ");
    json_num(f, r->min);
    fprintf(f, ", \"measured_max\": ");
    json_num(f, r->max);
    fprintf(f, ", \"measured_text\": ");
    json_str(f, r->measured);
    fprintf(f, ",\n     \"published\": {\"value\": ");
    json_num(f, r->pub_value);
    fprintf(f, ", \"low\": ");
    json_num(f, r->pub_low);
    fprintf(f, ", \"high\": ");
    json_num(f, r->pub_high);
    fprintf(f, ", \"text\": ");
    json_str(f, r->published);
    fprintf(f, ", \"sources\": [");
    for (int k = 0; k < r->nsources; k++) {
        if (k) fputs(", ", f);
        json_str(f, r->sources[k]);
    }
    fprintf(f, "]},\n     \"tolerance\": {\"low\": ");
    json_num(f, r->tol_low);
    fprintf(f, ", \"high\": ");
    json_num(f, r->tol_high);
    fprintf(f, ", \"text\": ");
    json_str(f, r->tolerance);
    fprintf(f, "},\n     \"extra\": {");
    for (int k = 0; k < r->nextra; k++) {
        fprintf(f, "%s", k ? ", " : "");
        json_str(f, r->extra_name[k]);
        fputs(": ", f);
        json_num(f, r->extra[k]);
    }
    fputs("}}", f);
}

static void json_sources(FILE *f) {
    fprintf(f, "  \"sources\": [\n");
    for (size_t k = 0; k < th_val_table_count; k++) {
        const th_val_table *t = th_val_tables[k];
        fprintf(f, "    {\"id\": ");
        json_str(f, t->id);
        fprintf(f, ", \"label\": ");
        json_str(f, t->label);
        fprintf(f, ", \"provenance\": ");
        json_str(f, t->provenance);
        fprintf(f, ", \"x\": ");
        json_str(f, t->x_what);
        fprintf(f, ", \"y\": ");
        json_str(f, t->y_what);
        fprintf(f, ",\n     \"citation\": ");
        json_str(f, t->citation);
        fprintf(f, ",\n     \"origin\": ");
        json_str(f, t->origin);
        fprintf(f, ",\n     \"rows\": [");
        for (size_t i = 0; i < t->n; i++)
            fprintf(f, "%s[%g, %g, %g]", i ? ", " : "", t->rows[i].x0, t->rows[i].x1, t->rows[i].y);
        fprintf(f, "]}%s\n", k + 1 < th_val_table_count ? "," : "");
    }
    fprintf(f, "  ],\n");
}

static int g_id_w = 4, g_measured_w = 8, g_tolerance_w = 9;

static void print_row(const char *id, const char *status, const char *measured,
                      const char *tolerance, const char *published) {
    printf("%-*s  %-6s  %-*s  %-*s  %s\n", g_id_w, id, status, g_measured_w, measured,
           g_tolerance_w, tolerance, published);
}

int th_cmd_validate(int argc, char **argv) {
    th_suite_args args;
    int usage = th_suite_args_parse("throng validate", argc, argv, MAX_SEEDS, &args);
    if (usage) return usage;
    if (args.help) {
        fputs(k_validate_help, stdout);
        return 0;
    }
    const char *only = args.only, *json = args.json;
    uint64_t threads = args.threads, seeds = args.seeds;
    bool list = args.list;
    size_t chosen = 0;
    for (size_t k = 0; k < N_CASES; k++) chosen += th_arg_selected(only, k_cases[k].id);
    if (chosen == 0) {
        fprintf(stderr,
                "throng validate: --only '%s' matches no case (ids such as bottleneck-1.0, fd-2, "
                "counterflow-ratio, corner; see 'throng validate --list')\n",
                only);
        return TH_EXIT_USAGE;
    }
    if (list) {
        for (size_t k = 0; k < N_CASES; k++)
            if (th_arg_selected(only, k_cases[k].id))
                printf("%-18s %s\n", k_cases[k].id, k_cases[k].what);
        return 0;
    }
    if (json && !th_suite_json_check("throng validate", json, "scenes/validation",
                                     THRONG_SCENES_DIR "/validation"))
        return TH_EXIT_USAGE;
    if (threads == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        threads = n < 1 ? 1 : (n > TH_MAX_THREADS ? TH_MAX_THREADS : (uint64_t)n);
    }
    const vopts o = {.threads = (uint32_t)threads, .seeds = (int)seeds};

    vrow *rows = calloc(N_CASES, sizeof *rows);
    if (!rows) {
        fprintf(stderr, "throng validate: out of memory\n");
        return 1;
    }
    /* A signal (Ctrl-C, SIGTERM, SIGHUP) stops the suite after the case that is running. */
    th_interrupt_install();
    size_t done = 0;
    for (size_t k = 0; k < N_CASES && !th_interrupted(); k++) {
        const vcase *c = &k_cases[k];
        if (!th_arg_selected(only, c->id)) continue;
        fprintf(stderr, "throng validate: [%zu/%zu] %s: %s\n", ++done, chosen, c->id, c->what);
        row_init(&rows[k]);
        c->judge(&o, c->param, &rows[k]);
    }

    if (th_interrupted()) {
        fprintf(stderr, "throng validate: interrupted during case %zu of %zu: no table%s\n", done,
                chosen, json ? ", and --json left as it was" : "");
        free(rows);
        return 128 + th_interrupt_signal();
    }
    size_t count[3] = {0, 0, 0};
    for (size_t k = 0; k < N_CASES; k++) {
        if (!th_arg_selected(only, k_cases[k].id)) continue;
        int a = (int)strlen(k_cases[k].id), b = (int)strlen(rows[k].measured),
            t = (int)strlen(rows[k].tolerance);
        if (a > g_id_w) g_id_w = a;
        if (b > g_measured_w) g_measured_w = b;
        if (t > g_tolerance_w) g_tolerance_w = t;
    }
    print_row("case", "result", "measured: seeds' mean [range]", "criterion", "published");
    for (size_t k = 0; k < N_CASES; k++) {
        if (!th_arg_selected(only, k_cases[k].id)) continue;
        count[rows[k].status]++;
        print_row(k_cases[k].id, k_status_name[rows[k].status], rows[k].measured, rows[k].tolerance,
                  rows[k].published);
    }
    printf("validate  %zu pass, %zu fail, %zu error, of %zu case(s)\n", count[C_PASS],
           count[C_FAIL], count[C_ERROR], chosen);

    int rc = count[C_FAIL] || count[C_ERROR] ? 1 : 0;
    char tmp[4200];
    FILE *jf = json ? th_suite_json_begin("throng validate", json, tmp, sizeof tmp) : NULL;
    if (json && !jf) rc = 1;
    if (jf) {
        fprintf(jf, "{\n  \"threads\": %u,\n  \"seeds_limit\": ", o.threads);
        if (o.seeds) fprintf(jf, "%d", o.seeds);
        else fputs("null", jf);
        fprintf(jf, ",\n  \"cases\": [\n");
        bool first = true;
        for (size_t k = 0; k < N_CASES; k++) {
            if (!th_arg_selected(only, k_cases[k].id)) continue;
            if (!first) fputs(",\n", jf);
            first = false;
            json_row(jf, &k_cases[k], &rows[k]);
        }
        fprintf(jf,
                "\n  ],\n  \"counts\": {\"pass\": %zu, \"fail\": %zu, \"error\": %zu, \"total\": "
                "%zu},\n",
                count[C_PASS], count[C_FAIL], count[C_ERROR], chosen);
        json_sources(jf);
        fprintf(jf, "  \"weidmann\": {\"formula\": \"v = 1.34 (1 - exp(-1.913 (1/rho - 1/5.4)))\", "
                    "\"citation\": \"U. Weidmann, Transporttechnik der Fussgaenger, Schriftenreihe "
                    "des IVT Nr. 90, ETH Zuerich (1993)\"},\n");
        fprintf(jf, "  \"exit_code\": %d\n}\n", rc);
        if (!th_file_commit(jf, tmp, json)) {
            fprintf(stderr, "throng validate: writing %s failed\n", json);
            free(rows);
            return 1;
        }
    }
    free(rows);
    return rc;
}
