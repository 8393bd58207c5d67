/* `throng run --results DIR` (docs/results.md): gathered after every step from the public API,
 * written at the end of the run. */
#include "results.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output.h"
#include "plot.h"
#include "throng/building.h"

#define NONE UINT32_MAX

typedef enum place_kind { PLACE_EXIT, PLACE_BUNKER, PLACE_STAIR, PLACE_LINE } place_kind;
static const char *const kind_name[] = {"exit", "bunker", "stair", "line"};

/* Somewhere agents leave by or pass through. */
typedef struct place {
    place_kind kind;
    uint32_t index; /* the handle's index (index1 - 1) */
    char name[64];
    float x0, y0, x1, y1;  /* metres: its rectangle or bounding box (a line: its ends a, b) */
    uint32_t part0, parts; /* its rectangles in th_results.part: an exit given by cells has
                              one for each row's run of cells, the others one */
    uint32_t level;        /* index of the level it stands on, NONE when off every level */
    uint32_t last;         /* exits, bunkers: the count after the previous step */
    uint32_t queue_max;    /* most walkers in its queue in any row */
    double queue_max_t;    /* when */
    bool exit;             /* a bunker the scene calls an exit: named "exit" in the tables */
    double max_flow;       /* exits, bunkers: its flow limit, persons/s (0: none) */
} place;

/* What the tables call a place: its kind, or "exit" for a bunker the scene calls one. */
static const char *kind_of(const place *p) { return p->exit ? "exit" : kind_name[p->kind]; }

/* One agent, from the step it was first seen to the step it left. What changes every step is
 * kept by id slot (tracked, below) and copied here when it leaves or the run ends. */
typedef struct occupant {
    th_agent_id id;
    uint32_t crowd;     /* index */
    uint32_t level;     /* where it started; NONE off every level */
    int32_t place;      /* the place it left by; -1 still in the world, -2 removed */
    uint8_t flags;      /* TH_AGENT_* of the last step it was seen */
    float x0, y0, x, y; /* first and last seen, metres */
    double added;       /* seconds when first seen */
    double start;       /* seconds of world time from which it moves (pre-movement) */
    double moved;       /* seconds when it first walked at TH_RESULTS_SLOW or faster; < 0 never */
    double left;        /* seconds when it left; < 0 still in */
    double distance;    /* metres walked */
    double queuing;     /* seconds spent below TH_RESULTS_SLOW after its start */
} occupant;

/* The agent in an id slot, as of the last update that saw it: small, so that the pass over
 * every agent each step stays in cache. */
typedef struct tracked {
    double distance; /* metres walked */
    float x, y;      /* metres */
    float start;     /* seconds: its pre-movement ends */
    uint32_t rec;    /* its occupant record; NONE: none yet */
    uint32_t generation;
    uint32_t stamp;  /* the last update that saw it */
    uint32_t waited; /* steps below TH_RESULTS_SLOW after its start */
    uint8_t flags;
    bool moved; /* it has walked at TH_RESULTS_SLOW or faster */
} tracked;

/* A level's density raster: cells of `m` x `m` map cells from the level's corner. */
typedef struct level_map {
    char name[64], file[80]; /* its name; the name made safe for file names */
    int32_t x0, y0, x1, y1;  /* its map cells, inclusive */
    int32_t cols, rows;
    float *open;     /* per cell: walkable area, m^2 */
    uint32_t *count; /* per cell: agents in it in the current sample (0 between samples) */
    uint32_t *stamp; /* per cell: the sample whose window density was taken last */
    double *sum;     /* per cell: window densities summed over samples */
    float *max;      /* per cell: the largest window density */
    uint32_t *busy;  /* cells with a count in the current sample */
    uint32_t busy_count;
} level_map;

struct th_results {
    char dir[4096];
    double dt;
    bool wrap;           /* a wrap-around world */
    float width, height; /* its size, metres */
    uint64_t row_every, density_every, step;
    uint32_t update; /* updates made: occupants' stamps */
    place *places;
    uint32_t place_count;
    th_plot_rect *part; /* the places' rectangles, metres */
    uint32_t part_count, part_cap;
    occupant *occ;
    uint32_t occ_count, occ_cap;
    tracked *slot; /* per id slot */
    uint32_t slots;
    uint32_t *alive; /* records still in the world */
    uint32_t alive_count, alive_cap;
    uint32_t *gone; /* records that left in this update */
    uint32_t gone_cap;
    /* Rows of flows.csv and evacuation.csv. */
    double *row_t;
    int64_t *row_count;  /* [row * place_count + p] */
    uint32_t *row_queue; /* the same */
    uint64_t *row_out, *row_in;
    uint32_t rows, row_cap;
    int64_t *counts; /* scratch: each place's count now */
    uint32_t *queue; /* scratch: each place's queue now */
    /* Density. */
    level_map *levels;
    uint32_t level_count, samples;
    int32_t m; /* map cells per density cell side */
    float cell_size;
    float density_cell; /* metres */
    bool nomem;
};

/* ---- the folder -------------------------------------------------------------------------- */

bool th_results_check_dir(const char *dir, th_error *err) {
    struct stat st;
    if (!dir[0]) {
        th_app_error(err, TH_ERR_INVALID, "--results: expected a folder, got an empty path");
        return false;
    }
    if (strlen(dir) > 3000) {
        th_app_error(err, TH_ERR_INVALID, "--results: the path is too long (more than 3000 bytes)");
        return false;
    }
    if (stat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) {
            th_app_error(err, TH_ERR_IO, "--results: '%s' is not a folder", dir);
            return false;
        }
        return true;
    }
    if (errno != ENOENT) {
        th_app_error(err, TH_ERR_IO, "--results: cannot reach '%s': %s", dir, strerror(errno));
        return false;
    }
    /* Made when the run starts (th_results_start); checked now, so that an impossible folder
     * fails before any work and a scene that does not load leaves no folder behind: its
     * parent must be a folder this user may write into. */
    char parent[4096];
    snprintf(parent, sizeof parent, "%s", dir);
    size_t n = strlen(parent);
    while (n > 1 && parent[n - 1] == '/') parent[--n] = '\0';
    char *slash = strrchr(parent, '/');
    if (!slash) snprintf(parent, sizeof parent, ".");
    else if (slash == parent) parent[1] = '\0';
    else *slash = '\0';
    struct stat ps;
    if (stat(parent, &ps) != 0 || !S_ISDIR(ps.st_mode)) {
        th_app_error(err, TH_ERR_IO, "--results: cannot make the folder '%s': no folder '%s'", dir,
                     parent);
        return false;
    }
    if (access(parent, W_OK | X_OK) != 0) {
        th_app_error(err, TH_ERR_IO, "--results: cannot make the folder '%s': %s", dir,
                     strerror(errno));
        return false;
    }
    return true;
}

/* Make the results folder when it does not exist yet. */
static bool make_dir(const char *dir, th_error *err) {
    if (mkdir(dir, 0777) == 0 || errno == EEXIST) return true;
    th_app_error(err, TH_ERR_IO, "--results: cannot make the folder '%s': %s", dir,
                 strerror(errno));
    return false;
}

/* Whether `path` names a file `dir` would hold of the results: same folder, and a name the
 * results use (index.html, flows.csv, evacuation.csv/png, occupants.csv, density_*). */
static bool written_here(const char *dir, const char *path) {
    if (!path) return false;
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    static const char *const fixed[] = {"index.html", "flows.csv", "evacuation.csv",
                                        "evacuation.png", "occupants.csv"};
    bool ours = strncmp(base, "density_", 8) == 0;
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) ours |= strcmp(base, fixed[i]) == 0;
    if (!ours) return false;
    char folder[4096];
    if (slash) snprintf(folder, sizeof folder, "%.*s", (int)(slash - path), path);
    else snprintf(folder, sizeof folder, ".");
    if (!folder[0]) snprintf(folder, sizeof folder, "/");
    struct stat a, b;
    return stat(dir, &a) == 0 && stat(folder, &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

bool th_results_check_files(const char *dir, const th_file_use *use, size_t n,
                            const th_file_inputs *in, th_error *err) {
    for (size_t i = 0; i < n; i++) {
        if (written_here(dir, use[i].path)) {
            th_app_error(err, TH_ERR_IO, "--results: the folder would write over %s '%s'",
                         use[i].output ? "another output" : "an input", use[i].path);
            return false;
        }
    }
    for (size_t i = 0; i < in->n; i++) {
        if (written_here(dir, in->path[i])) {
            th_app_error(err, TH_ERR_IO, "--results: the folder would write over %s '%s'",
                         "a file the scene reads", in->path[i]);
            return false;
        }
    }
    return true;
}

/* ---- setting up -------------------------------------------------------------------------- */

static uint32_t level_of(const th_world *w, float x, float y) {
    th_level_id l = th_world_level_at(w, th_v2(x, y));
    return l.index1 ? l.index1 - 1 : NONE;
}

static bool add_part(th_results *r, float x0, float y0, float x1, float y1) {
    if (!th_app_grow((void **)&r->part, sizeof *r->part, &r->part_cap, r->part_count + 1))
        return false;
    r->part[r->part_count++] = (th_plot_rect){.x0 = x0, .y0 = y0, .x1 = x1, .y1 = y1};
    return true;
}

/* Add place p, with its rectangle as its one part unless parts were added for it already. */
static bool add_place(th_results *r, place p) {
    if (p.parts == 0) {
        p.part0 = r->part_count;
        p.parts = 1;
        if (!add_part(r, p.x0, p.y0, p.x1, p.y1)) return false;
    }
    place *np = realloc(r->places, (r->place_count + 1) * sizeof *np);
    if (!np) return false;
    r->places = np;
    r->places[r->place_count++] = p;
    return true;
}

static bool find_places(th_results *r, const th_world *w) {
    float cs = r->cell_size;
    for (uint32_t i = 0; i < th_world_exit_count(w); i++) {
        th_exit_info e;
        if (!th_world_get_exit(w, (th_exit_id){i + 1}, &e)) continue;
        place p = {.kind = PLACE_EXIT,
                   .index = i,
                   .x0 = e.x0,
                   .y0 = e.y0,
                   .x1 = e.x1,
                   .y1 = e.y1,
                   .max_flow = e.max_flow};
        snprintf(p.name, sizeof p.name, "%s", e.name);
        p.level = level_of(w, 0.5f * (e.x0 + e.x1), 0.5f * (e.y0 + e.y1));
        /* Given by cells: each row's runs of them (an exit may be doors far apart). */
        p.part0 = r->part_count;
        const int32_t cx0 = (int32_t)floorf(e.x0 / cs), cx1 = (int32_t)ceilf(e.x1 / cs) - 1;
        const int32_t cy0 = (int32_t)floorf(e.y0 / cs), cy1 = (int32_t)ceilf(e.y1 / cs) - 1;
        for (int32_t y = cy0; y <= cy1; y++) {
            for (int32_t x = cx0; x <= cx1; x++) {
                if (!th_world_exit_covers(w, (th_exit_id){i + 1}, x, y)) continue;
                int32_t end = x;
                while (end + 1 <= cx1 && th_world_exit_covers(w, (th_exit_id){i + 1}, end + 1, y))
                    end++;
                if (!add_part(r, (float)x * cs, (float)y * cs, (float)(end + 1) * cs,
                              (float)(y + 1) * cs))
                    return false;
                if (p.parts++ == 0)
                    p.level = level_of(w, ((float)x + 0.5f) * cs, ((float)y + 0.5f) * cs);
                x = end;
            }
        }
        if (!add_place(r, p)) return false;
    }
    for (uint32_t i = 0; i < th_world_bunker_count(w); i++) {
        th_bunker_info b;
        if (!th_world_get_bunker(w, (th_bunker_id){i + 1}, &b)) continue;
        place p = {.kind = PLACE_BUNKER,
                   .index = i,
                   .x0 = (float)b.x0 * cs,
                   .y0 = (float)b.y0 * cs,
                   .x1 = (float)(b.x1 + 1) * cs,
                   .y1 = (float)(b.y1 + 1) * cs,
                   .last = b.sheltered,
                   .exit = b.exit,
                   .max_flow = b.max_flow};
        snprintf(p.name, sizeof p.name, "%s", b.name);
        p.level = level_of(w, 0.5f * (p.x0 + p.x1), 0.5f * (p.y0 + p.y1));
        if (!add_place(r, p)) return false;
    }
    for (uint32_t i = 0; i < th_world_stair_count(w); i++) {
        th_stair_info s;
        if (!th_world_get_stair(w, (th_stair_id){i + 1}, &s)) continue;
        place p = {.kind = PLACE_STAIR,
                   .index = i,
                   .x0 = (float)s.x0 * cs,
                   .y0 = (float)s.y0 * cs,
                   .x1 = (float)(s.x1 + 1) * cs,
                   .y1 = (float)(s.y1 + 1) * cs,
                   .level = s.lower.index1 ? s.lower.index1 - 1 : NONE};
        snprintf(p.name, sizeof p.name, "%s", s.name);
        if (!add_place(r, p)) return false;
    }
    for (uint32_t i = 0; i < th_world_measure_line_count(w); i++) {
        th_measure_line_info l;
        if (!th_world_get_measure_line(w, (th_measure_line_id){i + 1}, &l)) continue;
        place p = {
            .kind = PLACE_LINE, .index = i, .x0 = l.a.x, .y0 = l.a.y, .x1 = l.b.x, .y1 = l.b.y};
        snprintf(p.name, sizeof p.name, "%s", l.name);
        p.level = level_of(w, 0.5f * (l.a.x + l.b.x), 0.5f * (l.a.y + l.b.y));
        if (!add_place(r, p)) return false;
    }
    return true;
}

/* A level's name as part of a file name: letters, digits, '-' and '_' kept, the rest '_'. */
static void file_name(char *out, size_t cap, const char *name) {
    size_t n = 0;
    for (const char *c = name; *c && n + 1 < cap; c++) {
        char ch = *c;
        bool keep = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                    (ch >= '0' && ch <= '9') || ch == '-' || ch == '_';
        out[n++] = keep ? ch : '_';
    }
    out[n] = 0;
}

static bool world_has_map(const th_world *w) {
    int32_t c, rr;
    float cs;
    return th_world_map_size(w, &c, &rr, &cs);
}

static bool setup_level(th_results *r, const th_world *w, level_map *L) {
    const int32_t m = r->m;
    L->cols = (L->x1 - L->x0 + 1 + m - 1) / m;
    L->rows = (L->y1 - L->y0 + 1 + m - 1) / m;
    const size_t n = (size_t)L->cols * (size_t)L->rows;
    L->open = calloc(n, sizeof *L->open);
    L->count = calloc(n, sizeof *L->count);
    L->stamp = calloc(n, sizeof *L->stamp);
    L->sum = calloc(n, sizeof *L->sum);
    L->max = calloc(n, sizeof *L->max);
    L->busy = calloc(n, sizeof *L->busy);
    if (!L->open || !L->count || !L->stamp || !L->sum || !L->max || !L->busy) return false;
    const float a = r->cell_size * r->cell_size;
    const bool map = world_has_map(w); /* without one, every cell is open */
    for (int32_t y = L->y0; y <= L->y1; y++)
        for (int32_t x = L->x0; x <= L->x1; x++)
            if (!map || th_world_cell(w, x, y, NULL) == TH_CELL_OPEN)
                L->open[(size_t)((y - L->y0) / m) * (size_t)L->cols + (size_t)((x - L->x0) / m)] +=
                    a;
    return true;
}

static bool find_levels(th_results *r, const th_world *w) {
    int32_t cols = 0, rows = 0;
    float cs = 0.0f;
    if (!th_world_map_size(w, &cols, &rows, &cs)) {
        /* No map: the world rectangle in cells of TH_RESULTS_DENSITY_CELL. */
        th_world_def d = th_world_get_def(w);
        cs = TH_RESULTS_DENSITY_CELL;
        cols = (int32_t)ceilf(d.width / cs);
        rows = (int32_t)ceilf(d.height / cs);
        r->m = 1;
    } else {
        r->m = (int32_t)ceilf(TH_RESULTS_DENSITY_CELL / cs - 1e-4f);
        if (r->m < 1) r->m = 1;
    }
    r->cell_size = cs;
    r->density_cell = (float)r->m * cs;
    uint32_t n = th_world_level_count(w);
    r->levels = calloc(n ? n : 1, sizeof *r->levels);
    if (!r->levels) return false;
    if (n == 0) {
        level_map *L = &r->levels[0];
        snprintf(L->name, sizeof L->name, "map");
        snprintf(L->file, sizeof L->file, "map");
        L->x1 = cols - 1;
        L->y1 = rows - 1;
        r->level_count = 1;
        return setup_level(r, w, L);
    }
    for (uint32_t i = 0; i < n; i++) {
        th_level_info li;
        if (!th_world_get_level(w, (th_level_id){i + 1}, &li)) return false;
        level_map *L = &r->levels[r->level_count++];
        snprintf(L->name, sizeof L->name, "%s", li.name);
        /* The index keeps two names that differ only in dropped characters apart. */
        char safe[64];
        file_name(safe, sizeof safe, li.name);
        snprintf(L->file, sizeof L->file, "%u_%s", i + 1, safe);
        L->x0 = li.x0;
        L->y0 = li.y0;
        L->x1 = li.x1;
        L->y1 = li.y1;
        if (!setup_level(r, w, L)) return false;
    }
    return true;
}

th_results *th_results_start(const th_world *w, const char *dir, th_error *err) {
    if (!make_dir(dir, err)) return NULL;
    th_results *r = calloc(1, sizeof *r);
    if (!r) goto nomem;
    snprintf(r->dir, sizeof r->dir, "%s", dir);
    const th_world_def def = th_world_get_def(w);
    r->dt = (double)def.timestep;
    r->wrap = def.bounds == TH_BOUNDS_WRAP;
    r->width = def.width;
    r->height = def.height;
    r->row_every = (uint64_t)llround(TH_RESULTS_ROW_S / r->dt);
    if (r->row_every < 1) r->row_every = 1;
    r->density_every = (uint64_t)llround(TH_RESULTS_DENSITY_S / r->dt);
    if (r->density_every < 1) r->density_every = 1;
    r->step = th_world_step_count(w);
    if (!find_levels(r, w)) goto nomem;
    if (world_has_map(w) && !find_places(r, w)) goto nomem;
    r->counts = calloc(r->place_count + 1, sizeof *r->counts);
    r->queue = calloc(r->place_count + 1, sizeof *r->queue);
    if (!r->counts || !r->queue) goto nomem;
    if (!th_results_step(r, w, err)) {
        th_results_free(r);
        return NULL;
    }
    return r;
nomem:
    th_results_free(r);
    th_app_error(err, TH_ERR_NOMEM, "--results: out of memory");
    return NULL;
}

static void free_level(level_map *L) {
    free(L->open);
    free(L->count);
    free(L->stamp);
    free(L->sum);
    free(L->max);
    free(L->busy);
}

void th_results_free(th_results *r) {
    if (!r) return;
    for (uint32_t i = 0; i < r->level_count; i++) free_level(&r->levels[i]);
    free(r->levels);
    free(r->places);
    free(r->part);
    free(r->occ);
    free(r->slot);
    free(r->alive);
    free(r->gone);
    free(r->row_t);
    free(r->row_count);
    free(r->row_queue);
    free(r->row_out);
    free(r->row_in);
    free(r->counts);
    free(r->queue);
    free(r);
}

/* ---- after each step --------------------------------------------------------------------- */

/* Distance from (x, y) to a place: to the nearest of its rectangles, or to a line's segment. */
static float place_distance(const th_results *r, const place *p, float x, float y) {
    if (p->kind == PLACE_LINE) {
        float ax = p->x0, ay = p->y0, bx = p->x1 - ax, by = p->y1 - ay;
        float l2 = bx * bx + by * by, t = l2 > 0 ? ((x - ax) * bx + (y - ay) * by) / l2 : 0.0f;
        t = t < 0 ? 0 : (t > 1 ? 1 : t);
        return hypotf(x - ax - t * bx, y - ay - t * by);
    }
    float best = INFINITY;
    for (uint32_t i = 0; i < p->parts; i++) {
        const th_plot_rect *q = &r->part[p->part0 + i];
        float dx = x < q->x0 ? q->x0 - x : (x > q->x1 ? x - q->x1 : 0.0f);
        float dy = y < q->y0 ? q->y0 - y : (y > q->y1 ? y - q->y1 : 0.0f);
        float d = hypotf(dx, dy);
        if (d < best) best = d;
    }
    return best;
}

static uint32_t place_count_now(const th_world *w, const place *p, int64_t *count) {
    switch (p->kind) {
    case PLACE_EXIT: {
        th_exit_info e;
        th_world_get_exit(w, (th_exit_id){p->index + 1}, &e);
        *count = e.exited;
        return e.exited;
    }
    case PLACE_BUNKER: {
        th_bunker_info b;
        th_world_get_bunker(w, (th_bunker_id){p->index + 1}, &b);
        *count = b.sheltered;
        return b.sheltered;
    }
    case PLACE_STAIR: {
        th_stair_info s;
        th_world_get_stair(w, (th_stair_id){p->index + 1}, &s);
        *count = (int64_t)s.crossed_down - (int64_t)s.crossed_up;
        return 0;
    }
    case PLACE_LINE: {
        th_measure_line_info l;
        th_world_get_measure_line(w, (th_measure_line_id){p->index + 1}, &l);
        *count = l.crossed_total;
        return 0;
    }
    }
    return 0;
}

/* A new record for an agent seen for the first time. */
static uint32_t new_occupant(th_results *r, const th_world *w, th_agent_id id, uint32_t crowd,
                             float x, float y, double t) {
    if (!th_app_grow((void **)&r->occ, sizeof *r->occ, &r->occ_cap, r->occ_count + 1) ||
        !th_app_grow((void **)&r->alive, sizeof *r->alive, &r->alive_cap, r->alive_count + 1))
        return NONE;
    th_agent_state st;
    double start = t;
    if (th_world_get_agent(w, id, &st) && (double)st.start_time > start)
        start = (double)st.start_time;
    uint32_t k = r->occ_count++;
    r->occ[k] = (occupant){.id = id,
                           .crowd = crowd,
                           .level = level_of(w, x, y),
                           .place = -1,
                           .x0 = x,
                           .y0 = y,
                           .x = x,
                           .y = y,
                           .added = t,
                           .start = start,
                           .moved = -1.0,
                           .left = -1.0};
    r->alive[r->alive_count++] = k;
    r->slot[id.index1 - 1] =
        (tracked){.x = x, .y = y, .start = (float)start, .rec = k, .generation = id.generation};
    return k;
}

/* Copy what slot s tracked into its record (it left, or the run ends). */
static void retire(th_results *r, uint32_t s) {
    const tracked *tr = &r->slot[s];
    if (tr->rec == NONE) return;
    occupant *o = &r->occ[tr->rec];
    o->x = tr->x;
    o->y = tr->y;
    o->distance = tr->distance;
    o->flags = tr->flags;
    o->queuing = (double)tr->waited * r->dt;
}

/* Who left in this update, and by which exit or bunker: the counts that grew are shared out
 * among the leavers, each to the nearest such place to where it was last seen (exact whenever
 * one place took agents in the step, and the nearest otherwise). Leavers no count accounts for
 * were removed (th_world_remove_agent, walled in). */
static void attribute(th_results *r, const th_world *w, uint32_t gone, double t) {
    uint32_t delta[TH_MAX_EXITS + TH_MAX_BUNKERS];
    uint32_t nd = 0;
    for (uint32_t p = 0; p < r->place_count; p++) {
        place *pl = &r->places[p];
        if (pl->kind != PLACE_EXIT && pl->kind != PLACE_BUNKER) continue;
        int64_t c;
        uint32_t now = place_count_now(w, pl, &c);
        if (nd < TH_MAX_EXITS + TH_MAX_BUNKERS) delta[nd++] = now > pl->last ? now - pl->last : 0;
        pl->last = now;
    }
    for (uint32_t g = 0; g < gone; g++) {
        occupant *o = &r->occ[r->gone[g]];
        o->left = t;
        o->place = -2;
        float best = INFINITY;
        uint32_t d = 0;
        for (uint32_t p = 0; p < r->place_count; p++) {
            place *pl = &r->places[p];
            if (pl->kind != PLACE_EXIT && pl->kind != PLACE_BUNKER) continue;
            float dist = place_distance(r, pl, o->x, o->y);
            if (d < nd && delta[d] > 0 && dist < best) {
                best = dist;
                o->place = (int32_t)p;
            }
            d++;
        }
        if (o->place >= 0) {
            d = 0;
            for (int32_t p = 0; p < o->place; p++)
                if (r->places[p].kind == PLACE_EXIT || r->places[p].kind == PLACE_BUNKER) d++;
            delta[d]--;
        }
    }
}

/* Agents in each place's queue now: those that have started, walk slower than
 * TH_RESULTS_SLOW and stand within TH_RESULTS_QUEUE_REACH of a place on their level, each
 * counted at the nearest. */
static void count_queues(th_results *r, const th_world *w, th_agent_view v) {
    memset(r->queue, 0, r->place_count * sizeof *r->queue);
    /* Before the first step nobody has had a step to walk in: everyone stands, nobody waits. */
    if (r->place_count == 0 || r->update == 1) return;
    const double t = (double)r->step * r->dt;
    for (uint32_t i = 0; i < v.count; i++) {
        float s = hypotf(v.vx[i], v.vy[i]);
        if (s >= TH_RESULTS_SLOW) continue;
        if (t < (double)r->slot[v.id[i].index1 - 1].start) continue;
        uint32_t lv = level_of(w, v.px[i], v.py[i]);
        float best = TH_RESULTS_QUEUE_REACH;
        uint32_t at = NONE;
        for (uint32_t p = 0; p < r->place_count; p++) {
            if (r->places[p].level != lv) continue;
            float d = place_distance(r, &r->places[p], v.px[i], v.py[i]);
            if (d <= best) {
                best = d;
                at = p;
            }
        }
        if (at != NONE) r->queue[at]++;
    }
}

static bool add_row(th_results *r, const th_world *w, th_agent_view v) {
    uint32_t cap = r->row_cap;
    if (r->rows == cap) {
        uint32_t nc = cap ? 2 * cap : 256;
        double *t = realloc(r->row_t, nc * sizeof *t);
        if (t) r->row_t = t;
        uint64_t *o = realloc(r->row_out, nc * sizeof *o);
        if (o) r->row_out = o;
        uint64_t *in = realloc(r->row_in, nc * sizeof *in);
        if (in) r->row_in = in;
        size_t pc = r->place_count ? r->place_count : 1;
        int64_t *c = realloc(r->row_count, nc * pc * sizeof *c);
        if (c) r->row_count = c;
        uint32_t *q = realloc(r->row_queue, nc * pc * sizeof *q);
        if (q) r->row_queue = q;
        if (!t || !o || !in || !c || !q) return false;
        r->row_cap = nc;
    }
    const uint32_t k = r->rows++;
    const double t = (double)r->step * r->dt;
    r->row_t[k] = t;
    count_queues(r, w, v);
    th_world_stats st = th_world_get_stats(w);
    uint64_t out = 0;
    for (uint32_t p = 0; p < r->place_count; p++) {
        int64_t c;
        out += place_count_now(w, &r->places[p], &c);
        r->row_count[(size_t)k * r->place_count + p] = c;
        r->row_queue[(size_t)k * r->place_count + p] = r->queue[p];
        if (r->queue[p] > r->places[p].queue_max) {
            r->places[p].queue_max = r->queue[p];
            r->places[p].queue_max_t = t;
        }
    }
    r->row_out[k] = out;
    r->row_in[k] = st.agents;
    return true;
}

/* One density sample: the agents binned, and for each cell within one of a busy cell the
 * density over its 3 x 3 window (people over walkable area) added to its sum and maximum. */
static void sample_density(th_results *r, th_agent_view v) {
    r->samples++;
    const float inv = 1.0f / r->cell_size;
    for (uint32_t i = 0; i < v.count; i++) {
        int32_t x = (int32_t)floorf(v.px[i] * inv), y = (int32_t)floorf(v.py[i] * inv);
        for (uint32_t l = 0; l < r->level_count; l++) {
            level_map *L = &r->levels[l];
            if (x < L->x0 || x > L->x1 || y < L->y0 || y > L->y1) continue;
            size_t c =
                (size_t)((y - L->y0) / r->m) * (size_t)L->cols + (size_t)((x - L->x0) / r->m);
            if (L->count[c]++ == 0) L->busy[L->busy_count++] = (uint32_t)c;
            break;
        }
    }
    for (uint32_t l = 0; l < r->level_count; l++) {
        level_map *L = &r->levels[l];
        for (uint32_t b = 0; b < L->busy_count; b++) {
            int32_t cx = (int32_t)(L->busy[b] % (uint32_t)L->cols);
            int32_t cy = (int32_t)(L->busy[b] / (uint32_t)L->cols);
            for (int32_t y = cy - 1; y <= cy + 1; y++) {
                for (int32_t x = cx - 1; x <= cx + 1; x++) {
                    if (x < 0 || y < 0 || x >= L->cols || y >= L->rows) continue;
                    size_t c = (size_t)y * (size_t)L->cols + (size_t)x;
                    if (L->stamp[c] == r->samples) continue;
                    L->stamp[c] = r->samples;
                    double n = 0.0, a = 0.0;
                    for (int32_t yy = y - 1; yy <= y + 1; yy++) {
                        for (int32_t xx = x - 1; xx <= x + 1; xx++) {
                            if (xx < 0 || yy < 0 || xx >= L->cols || yy >= L->rows) continue;
                            size_t cc = (size_t)yy * (size_t)L->cols + (size_t)xx;
                            n += L->count[cc];
                            a += L->open[cc];
                        }
                    }
                    float d = a > 0.0 ? (float)(n / a) : 0.0f;
                    L->sum[c] += d;
                    if (d > L->max[c]) L->max[c] = d;
                }
            }
        }
        for (uint32_t b = 0; b < L->busy_count; b++) L->count[L->busy[b]] = 0;
        L->busy_count = 0;
    }
}

bool th_results_step(th_results *r, const th_world *w, th_error *err) {
    r->step = th_world_step_count(w);
    const double t = (double)r->step * r->dt;
    const uint32_t upd = ++r->update;
    th_agent_view v = th_world_agents(w);
    uint32_t slots = th_world_id_slots(w);
    if (slots > r->slots) {
        tracked *p = realloc(r->slot, (size_t)slots * sizeof *p);
        if (!p) goto nomem;
        for (uint32_t s = r->slots; s < slots; s++) p[s] = (tracked){.rec = NONE};
        r->slot = p;
        r->slots = slots;
    }
    for (uint32_t i = 0; i < v.count; i++) {
        th_agent_id id = v.id[i];
        const uint32_t s = id.index1 - 1;
        tracked *tr = &r->slot[s];
        if (tr->rec == NONE || tr->generation != id.generation) {
            retire(r, s); /* the slot's last agent left in this step */
            if (new_occupant(r, w, id, v.crowd[i], v.px[i], v.py[i], t) == NONE) goto nomem;
        }
        float dx = v.px[i] - tr->x, dy = v.py[i] - tr->y;
        if (r->wrap) { /* the step across a seam is the short way round */
            dx -= r->width * rintf(dx / r->width);
            dy -= r->height * rintf(dy / r->height);
        }
        tr->distance += (double)hypotf(dx, dy);
        tr->x = v.px[i];
        tr->y = v.py[i];
        tr->flags = v.flags[i];
        tr->stamp = upd;
        if (upd > 1 && t > (double)tr->start) {
            /* The step just taken ran after its start: walked or waited. */
            if (hypotf(v.vx[i], v.vy[i]) < TH_RESULTS_SLOW) {
                tr->waited++;
            } else if (!tr->moved) {
                tr->moved = true;
                r->occ[tr->rec].moved = t - r->dt;
            }
        }
    }
    /* Those not seen left in the step. */
    uint32_t kept = 0, gone = 0;
    if (!th_app_grow((void **)&r->gone, sizeof *r->gone, &r->gone_cap, r->alive_count)) goto nomem;
    for (uint32_t a = 0; a < r->alive_count; a++) {
        const uint32_t k = r->alive[a], s = r->occ[k].id.index1 - 1;
        if (r->slot[s].rec == k && r->slot[s].stamp == upd) {
            r->alive[kept++] = k;
            continue;
        }
        if (r->slot[s].rec == k) retire(r, s); /* else retired when its slot was taken */
        r->gone[gone++] = k;
    }
    r->alive_count = kept;
    attribute(r, w, gone, t);
    if (upd == 1 || r->step % r->row_every == 0)
        if (!add_row(r, w, v)) goto nomem;
    if (upd == 1 || r->step % r->density_every == 0) sample_density(r, v);
    return true;
nomem:
    th_app_error(err, TH_ERR_NOMEM, "--results: out of memory after %" PRIu64 " steps", r->step);
    return false;
}

/* ---- writing ----------------------------------------------------------------------------- */

/* A CSV field: quoted when it holds a comma, a quote or a line break. */
static void csv_str(FILE *f, const char *s) {
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (const char *c = s; *c; c++) {
        if (*c == '"') fputc('"', f);
        fputc(*c, f);
    }
    fputc('"', f);
}

static void html_str(FILE *f, const char *s) {
    char safe[256];
    th_text_escape(safe, sizeof safe, s, strlen(s));
    for (const char *c = safe; *c; c++) {
        switch (*c) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*c, f);
        }
    }
}

typedef struct out_file {
    FILE *f;
    char path[4200], tmp[4300];
} out_file;

static bool open_out(out_file *o, const th_results *r, const char *name, th_error *err) {
    snprintf(o->path, sizeof o->path, "%s/%s", r->dir, name);
    o->f = th_file_begin(o->path, o->tmp, sizeof o->tmp);
    if (!o->f)
        th_app_error(err, TH_ERR_IO, "--results: cannot write '%s': %s", o->path, strerror(errno));
    return o->f != NULL;
}

static bool close_out(out_file *o, th_error *err) {
    if (th_file_commit(o->f, o->tmp, o->path)) return true;
    th_app_error(err, TH_ERR_IO, "--results: writing '%s' failed", o->path);
    return false;
}

/* Flow through place p in row k: its count's change over the rows of the last
 * TH_RESULTS_FLOW_S seconds, per second. */
#define TH_RESULTS_FLOW_S 10.0
static double row_flow(const th_results *r, uint32_t k, uint32_t p) {
    if (k == 0) return 0.0;
    /* In whole steps: the rows' times are step counts times the timestep. */
    const long long window = llround(TH_RESULTS_FLOW_S / r->dt), sk = llround(r->row_t[k] / r->dt);
    uint32_t j = k;
    while (j > 0 && sk - llround(r->row_t[j - 1] / r->dt) <= window) j--;
    if (j == k) j = k - 1;
    const double span = (double)(sk - llround(r->row_t[j] / r->dt)) * r->dt;
    if (span <= 0.0) return 0.0;
    return (double)(r->row_count[(size_t)k * r->place_count + p] -
                    r->row_count[(size_t)j * r->place_count + p]) /
           span;
}

static bool write_flows(const th_results *r, th_error *err) {
    out_file o;
    if (!open_out(&o, r, "flows.csv", err)) return false;
    fprintf(o.f, "time_s,kind,name,count,flow_per_s,queue\n");
    for (uint32_t k = 0; k < r->rows; k++) {
        for (uint32_t p = 0; p < r->place_count; p++) {
            fprintf(o.f, "%.3f,%s,", r->row_t[k], kind_of(&r->places[p]));
            csv_str(o.f, r->places[p].name);
            fprintf(o.f, ",%" PRId64 ",%.4f,%u\n", r->row_count[(size_t)k * r->place_count + p],
                    row_flow(r, k, p), r->row_queue[(size_t)k * r->place_count + p]);
        }
    }
    if (!close_out(&o, err)) return false;
    if (!open_out(&o, r, "evacuation.csv", err)) return false;
    fprintf(o.f, "time_s,out,in_world\n");
    for (uint32_t k = 0; k < r->rows; k++)
        fprintf(o.f, "%.3f,%" PRIu64 ",%" PRIu64 "\n", r->row_t[k], r->row_out[k], r->row_in[k]);
    return close_out(&o, err);
}

static const char *occupant_state(const occupant *o) {
    if (o->place == -2) return "removed";
    if (o->place >= 0) return "left";
    if (o->flags & TH_AGENT_STALLED) return "stalled";
    if (o->flags & TH_AGENT_STRANDED) return "stranded";
    return "in_world";
}

static void csv_time(FILE *f, double t) {
    if (t >= 0.0) fprintf(f, ",%.3f", t);
    else fputs(",", f);
}

static bool write_occupants(const th_results *r, const th_world *w, th_error *err) {
    out_file o;
    if (!open_out(&o, r, "occupants.csv", err)) return false;
    fprintf(o.f, "id,crowd,level,x0_m,y0_m,added_s,pre_movement_s,moved_s,left_s,left_by,"
                 "left_kind,distance_m,queuing_s,state\n");
    for (uint32_t k = 0; k < r->occ_count; k++) {
        const occupant *a = &r->occ[k];
        fprintf(o.f, "%" PRIu64 ",", th_agent_number(a->id));
        const th_crowd_def *cd = th_world_get_crowd(w, (th_crowd_id){a->crowd + 1});
        csv_str(o.f, cd && cd->name ? cd->name : "");
        fputc(',', o.f);
        if (a->level != NONE) csv_str(o.f, r->levels[a->level].name);
        fprintf(o.f, ",%.3f,%.3f,%.3f,%.3f", (double)a->x0, (double)a->y0, a->added,
                a->start - a->added);
        csv_time(o.f, a->moved);
        csv_time(o.f, a->left);
        fputc(',', o.f);
        if (a->place >= 0) csv_str(o.f, r->places[a->place].name);
        fprintf(o.f, ",%s,%.3f,%.3f,%s\n", a->place >= 0 ? kind_of(&r->places[a->place]) : "",
                a->distance, a->queuing, occupant_state(a));
    }
    return close_out(&o, err);
}

/* Fruin's walkway levels of service by density (persons/m^2): upper bounds of A..E; F above.
 * Fruin (1971), "Pedestrian Planning and Design": A at 3.25 m^2 a person or more, B 2.32,
 * C 1.39, D 0.93, E 0.46, F less. */
static const double los_upper[5] = {1.0 / 3.25, 1.0 / 2.32, 1.0 / 1.39, 1.0 / 0.93, 1.0 / 0.46};

static char los_of(double d) {
    for (int i = 0; i < 5; i++)
        if (d < los_upper[i]) return (char)('A' + i);
    return 'F';
}

/* Whether a density cell is walkable enough to be shown: a quarter of its area or more. */
static bool shown(const th_results *r, const level_map *L, size_t c) {
    return L->open[c] >= 0.25f * r->density_cell * r->density_cell;
}

/* The places drawn on level l's maps (every place when the world has no levels): each of
 * their rectangles, the first named. */
static uint32_t place_rects(const th_results *r, const th_world *w, uint32_t l,
                            th_plot_rect *rects) {
    uint32_t n = 0;
    for (uint32_t p = 0; p < r->place_count; p++) {
        const place *pl = &r->places[p];
        if (th_world_level_count(w) > 0 && pl->level != l) continue;
        for (uint32_t i = 0; i < pl->parts; i++) {
            rects[n] = r->part[pl->part0 + i];
            rects[n].line = pl->kind == PLACE_LINE;
            rects[n++].name = i == 0 ? pl->name : NULL;
        }
    }
    return n;
}

static bool write_density(const th_results *r, const th_world *w, th_error *err) {
    const double n = r->samples ? (double)r->samples : 1.0;
    for (uint32_t l = 0; l < r->level_count; l++) {
        const level_map *L = &r->levels[l];
        char name[128];
        snprintf(name, sizeof name, "density_%s.csv", L->file);
        out_file o;
        if (!open_out(&o, r, name, err)) return false;
        fprintf(o.f, "x_m,y_m,mean_density,max_density,los\n");
        const size_t cells = (size_t)L->cols * (size_t)L->rows;
        float *mean = malloc(cells * sizeof *mean), *max = malloc(cells * sizeof *max);
        if (!mean || !max) {
            free(mean);
            free(max);
            fclose(o.f);
            remove(o.tmp);
            th_app_error(err, TH_ERR_NOMEM, "--results: out of memory for the maps");
            return false;
        }
        for (int32_t y = 0; y < L->rows; y++) {
            for (int32_t x = 0; x < L->cols; x++) {
                size_t c = (size_t)y * (size_t)L->cols + (size_t)x;
                if (!shown(r, L, c)) {
                    mean[c] = max[c] = NAN;
                    continue;
                }
                mean[c] = (float)(L->sum[c] / n);
                max[c] = L->max[c];
                if (!(max[c] > 0.0f)) continue; /* nobody came near: drawn white, not listed */
                double cx = ((double)L->x0 * r->cell_size) + ((double)x + 0.5) * r->density_cell;
                double cy = ((double)L->y0 * r->cell_size) + ((double)y + 0.5) * r->density_cell;
                fprintf(o.f, "%.3f,%.3f,%.4f,%.4f,%c\n", cx, cy, (double)mean[c], (double)max[c],
                        los_of(max[c]));
            }
        }
        bool ok = close_out(&o, err);
        th_plot_map_def m = {.values = mean,
                             .cols = L->cols,
                             .rows = L->rows,
                             .cell_m = r->density_cell,
                             .x0_m = (float)L->x0 * r->cell_size,
                             .y0_m = (float)L->y0 * r->cell_size};
        th_plot_rect *rects = malloc((r->part_count + 1) * sizeof *rects);
        if (!rects) {
            free(mean);
            free(max);
            th_app_error(err, TH_ERR_NOMEM, "--results: out of memory for the maps");
            return false;
        }
        m.rects = rects;
        m.rect_count = place_rects(r, w, l, rects);
        char png[4300], title[200];
        const char *what[3] = {"mean", "max", "los"};
        for (int i = 0; i < 3 && ok; i++) {
            snprintf(png, sizeof png, "%s/density_%s_%s.png", r->dir, what[i], L->file);
            m.values = i == 0 ? mean : max;
            m.scale = i == 2 ? TH_PLOT_LOS : TH_PLOT_DENSITY;
            snprintf(title, sizeof title, "%s: %s", L->name,
                     i == 0   ? "mean density over the run"
                     : i == 1 ? "highest density"
                              : "Fruin level of service at the highest density");
            m.title = title;
            ok = th_plot_map(png, &m, err);
        }
        free(rects);
        free(mean);
        free(max);
        if (!ok) return false;
    }
    return true;
}

/* The evacuation curve: everyone out over time, and each exit's and bunker's count. */
static bool write_curve(const th_results *r, const double at[3], uint32_t of, th_error *err) {
    uint32_t places = 0;
    for (uint32_t p = 0; p < r->place_count; p++)
        if (r->places[p].kind == PLACE_EXIT || r->places[p].kind == PLACE_BUNKER) places++;
    const uint32_t ns = 1 + (places > 1 ? places : 0);
    th_plot_series *s = calloc(ns, sizeof *s);
    double *y = malloc(((size_t)ns * r->rows + 1) * sizeof *y);
    if (!s || !y) {
        free(s);
        free(y);
        th_app_error(err, TH_ERR_NOMEM, "--results: out of memory for the curve");
        return false;
    }
    for (uint32_t k = 0; k < r->rows; k++) y[k] = (double)r->row_out[k];
    s[0] = (th_plot_series){.name = "everyone", .x = r->row_t, .y = y, .n = r->rows};
    uint32_t i = 1;
    for (uint32_t p = 0; p < r->place_count && ns > 1; p++) {
        if (r->places[p].kind != PLACE_EXIT && r->places[p].kind != PLACE_BUNKER) continue;
        double *yy = y + (size_t)i * r->rows;
        for (uint32_t k = 0; k < r->rows; k++)
            yy[k] = (double)r->row_count[(size_t)k * r->place_count + p];
        s[i++] = (th_plot_series){.name = r->places[p].name, .x = r->row_t, .y = yy, .n = r->rows};
    }
    char path[4300], title[128];
    snprintf(path, sizeof path, "%s/evacuation.png", r->dir);
    snprintf(title, sizeof title, "Evacuation: agents out of %u", of);
    th_plot_curves_def c = {.title = title,
                            .x_label = "time (s)",
                            .y_label = "agents out",
                            .series = s,
                            .series_count = ns};
    static const char *const mark_name[3] = {"50%", "90%", "100%"};
    for (int m = 0; m < 3; m++) {
        c.mark[m] = at[m];
        c.mark_name[m] = mark_name[m];
    }
    bool ok = th_plot_curves(path, &c, err);
    free(s);
    free(y);
    return ok;
}

static void html_time(FILE *f, double t) {
    if (t >= 0.0) fprintf(f, "%.1f s", t);
    else fputs("not within the run", f);
}

static void html_row(FILE *f, const char *key, const char *value) {
    fprintf(f, "<tr><th>%s</th><td>", key);
    html_str(f, value);
    fputs("</td></tr>\n", f);
}

/* What the occupants who left by place p (or, p = NONE, every occupant) went through. */
typedef struct tally {
    uint32_t n, left;
    double first, last, queuing, queuing_max, pre, distance, evac;
} tally;

static tally tally_of(const th_results *r, int32_t p, uint32_t crowd) {
    tally t = {.first = -1.0, .last = -1.0};
    for (uint32_t k = 0; k < r->occ_count; k++) {
        const occupant *o = &r->occ[k];
        if (p != -1 && o->place != p) continue;
        if (crowd != NONE && o->crowd != crowd) continue;
        t.n++;
        t.queuing += o->queuing;
        if (o->queuing > t.queuing_max) t.queuing_max = o->queuing;
        t.pre += o->start - o->added;
        t.distance += o->distance;
        if (o->place >= 0) {
            t.left++;
            t.evac += o->left - o->added;
            if (t.first < 0.0 || o->left < t.first) t.first = o->left;
            if (o->left > t.last) t.last = o->left;
        }
    }
    return t;
}

static double peak_flow(const th_results *r, uint32_t p) {
    double best = 0.0;
    for (uint32_t k = 1; k < r->rows; k++) {
        double f = row_flow(r, k, p);
        if (f > best) best = f;
    }
    return best;
}

static const char page_style[] =
    "body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}"
    "h1{font-size:1.6em}h2{font-size:1.25em;margin-top:2em;border-bottom:1px solid #ccc}"
    "table{border-collapse:collapse;margin:0.5em 0}th,td{padding:3px 10px;text-align:left;"
    "border-bottom:1px solid #e4e4e4;vertical-align:top}td.n{text-align:right;"
    "font-variant-numeric:tabular-nums}img{max-width:100%;border:1px solid #ddd;margin:0.5em 0}"
    ".warn{color:#a40}.note{color:#555;font-size:0.9em}figure{margin:1em 0}";

static bool write_index(const th_results *r, const th_world *w, const th_run_facts *fa,
                        uint64_t seed, uint32_t threads, const double at[3], uint32_t of,
                        const char *of_what, th_error *err) {
    out_file o;
    if (!open_out(&o, r, "index.html", err)) return false;
    FILE *f = o.f;
    const th_world_stats st = th_world_get_stats(w);
    const th_world_def d = th_world_get_def(w);
    char buf[512];
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>throng "
          "results: ",
          f);
    html_str(f, fa->scene);
    fprintf(f, "</title>\n<style>%s</style></head><body>\n<h1>throng results: ", page_style);
    html_str(f, fa->scene);
    fputs("</h1>\n<h2>The run</h2>\n<table>\n", f);
    html_row(f, "scene", fa->argument);
    th_build_describe(buf, sizeof buf);
    html_row(f, "build", buf);
    snprintf(buf, sizeof buf, "%" PRIu64 ", %u thread(s) (results do not depend on threads)", seed,
             threads);
    html_row(f, "seed", buf);
    snprintf(buf, sizeof buf, "%" PRIu64 " steps of %.4g s: %.1f s simulated%s", fa->steps_run,
             (double)d.timestep, (double)fa->steps_run * (double)d.timestep,
             fa->scene_over ? " (the scene was over)"
                            : (fa->interrupted ? " (interrupted)" : " (the step limit)"));
    html_row(f, "time", buf);
    snprintf(buf, sizeof buf, "%.2f s", fa->wall_s);
    html_row(f, "wall time", buf);
    /* Bunkers the scene calls exits let people out; they are not sheltered. */
    const th_refuge_words rw = th_refuge_words_of(w);
    snprintf(buf, sizeof buf,
             "%u at the start, %u in all; %u out by exits, %u sheltered, %u removed, %u still "
             "in the world",
             fa->agents_start, st.spawned, st.exited + rw.exit_taken, st.sheltered - rw.exit_taken,
             st.removed, st.agents);
    html_row(f, "agents", buf);
    fprintf(f, "<tr><th>evacuation</th><td>of the %u %s: 50%% ", of, of_what);
    html_time(f, at[0]);
    fputs(", 90% ", f);
    html_time(f, at[1]);
    fputs(", all ", f);
    html_time(f, at[2]);
    fputs("</td></tr>\n", f);
    th_stall_info si;
    th_world_get_stall_info(w, &si);
    if (si.peak)
        snprintf(buf, sizeof buf,
                 "%u at the end; at most %u at once, at %.1f s (no progress toward their goal "
                 "for %.0f s: standing in a queue that moves is waiting, not stalling)",
                 si.stalled, si.peak, (double)si.peak_time, (double)si.stall_time);
    else
        snprintf(buf, sizeof buf, "none (no agent went %.0f s without progress toward its goal)",
                 (double)si.stall_time);
    html_row(f, "stalled", buf);
    if (fa->warnings) {
        fputs("<tr><th>warnings</th><td class=\"warn\">", f);
        html_str(f, fa->warning);
        if (fa->warnings > 1) fprintf(f, " (and %u more)", fa->warnings - 1);
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);

    if (r->place_count) {
        fputs("<h2>Exits, bunkers, stairs and lines</h2>\n<table>\n<tr><th>kind</th><th>name"
              "</th><th>level</th><th>count</th><th>first out</th><th>last out</th><th>mean "
              "flow</th><th>flow limit</th><th>peak flow (10 s)</th><th>longest queue</th>"
              "<th>mean / longest wait</th></tr>\n",
              f);
        for (uint32_t p = 0; p < r->place_count; p++) {
            const place *pl = &r->places[p];
            tally t = tally_of(r, (int32_t)p, NONE);
            int64_t count = r->rows ? r->row_count[(size_t)(r->rows - 1) * r->place_count + p] : 0;
            fprintf(f, "<tr><td>%s</td><td>", kind_of(pl));
            html_str(f, pl->name);
            fputs("</td><td>", f);
            if (pl->level != NONE && th_world_level_count(w))
                html_str(f, r->levels[pl->level].name);
            fprintf(f, "</td><td class=\"n\">%" PRId64 "</td>", count);
            if (t.left) {
                fprintf(f, "<td class=\"n\">%.1f s</td><td class=\"n\">%.1f s</td>", t.first,
                        t.last);
                if (t.last > t.first)
                    fprintf(f, "<td class=\"n\">%.2f /s</td>", (t.left - 1) / (t.last - t.first));
                else fputs("<td></td>", f);
            } else {
                fputs("<td></td><td></td><td></td>", f);
            }
            if (pl->max_flow > 0.0) fprintf(f, "<td class=\"n\">%.2f /s</td>", pl->max_flow);
            else fputs("<td></td>", f);
            fprintf(f, "<td class=\"n\">%.2f /s</td><td class=\"n\">%u at %.0f s</td>",
                    peak_flow(r, p), pl->queue_max, pl->queue_max_t);
            if (t.left)
                fprintf(f, "<td class=\"n\">%.1f / %.1f s</td></tr>\n", t.queuing / t.left,
                        t.queuing_max);
            else fputs("<td></td></tr>\n", f);
        }
        fputs("</table>\n<p class=\"note\">Counts: agents out (exits, bunkers), net walkers gone "
              "down (stairs), net crossings (lines). Mean flow: (n &minus; 1) over the time "
              "from the first to the last out. Flow limit: the door's max_flow, the most it "
              "lets through. Queue: agents that have started, walk slower "
              "than 0.3 m/s and stand within 5 m, each counted at the nearest place. Wait: "
              "the time those who left by it spent below 0.3 m/s.</p>\n",
              f);
    }
    fputs("<h2>Evacuation curve</h2>\n<figure><img src=\"evacuation.png\" alt=\"agents out over "
          "time\"></figure>\n<p>Tables: <a href=\"evacuation.csv\">evacuation.csv</a>, <a "
          "href=\"flows.csv\">flows.csv</a>.</p>\n",
          f);

    fputs("<h2>Occupants</h2>\n<table>\n<tr><th>crowd</th><th>agents</th><th>out</th><th>mean "
          "pre-movement</th><th>mean time to leave</th><th>mean distance</th><th>mean / "
          "longest wait</th></tr>\n",
          f);
    for (uint32_t c = 0; c < th_world_crowd_count(w); c++) {
        tally t = tally_of(r, -1, c);
        if (t.n == 0) continue;
        const th_crowd_def *cd = th_world_get_crowd(w, (th_crowd_id){c + 1});
        fputs("<tr><td>", f);
        html_str(f, cd && cd->name ? cd->name : "");
        fprintf(f,
                "</td><td class=\"n\">%u</td><td class=\"n\">%u</td><td class=\"n\">%.1f "
                "s</td><td class=\"n\">",
                t.n, t.left, t.pre / t.n);
        if (t.left) fprintf(f, "%.1f s", t.evac / t.left);
        fprintf(f, "</td><td class=\"n\">%.1f m</td><td class=\"n\">%.1f / %.1f s</td></tr>\n",
                t.distance / t.n, t.queuing / t.n, t.queuing_max);
    }
    fputs("</table>\n<p>Every agent, one row each: <a href=\"occupants.csv\">occupants.csv</a>."
          "</p>\n",
          f);

    fputs("<h2>Density and level of service</h2>\n", f);
    fprintf(f,
            "<p class=\"note\">Density: people in a %.2g m cell and its eight neighbours over "
            "their walkable area, every %.1f s; the mean is over the whole run, the highest "
            "over any sample. Walls are grey. Levels of service after Fruin (1971), walkways: A "
            "below 0.31, B 0.43, C 0.72, D 1.08, E 2.17 persons/m&sup2;, F above.</p>\n",
            (double)r->density_cell, TH_RESULTS_DENSITY_S);
    for (uint32_t l = 0; l < r->level_count; l++) {
        const level_map *L = &r->levels[l];
        fputs("<h3>", f);
        html_str(f, L->name);
        fputs("</h3>\n", f);
        const char *what[3] = {"mean", "max", "los"};
        for (int i = 0; i < 3; i++) {
            fprintf(f, "<figure><img src=\"density_%s_", what[i]);
            html_str(f, L->file);
            fprintf(f, ".png\" alt=\"%s\"></figure>\n",
                    i == 0 ? "mean density" : (i == 1 ? "highest density" : "level of service"));
        }
        fputs("<p>Table: <a href=\"density_", f);
        html_str(f, L->file);
        fputs(".csv\">density_", f);
        html_str(f, L->file);
        fputs(".csv</a></p>\n", f);
    }
    fputs("<p class=\"note\">Columns of every table: docs/results.md.</p>\n</body></html>\n", f);
    return close_out(&o, err);
}

bool th_results_write(th_results *r, const th_world *w, const th_run_facts *facts, uint64_t seed,
                      uint32_t threads, th_error *err) {
    /* The last row: where the run ended, when the rows' interval did not land on it. */
    if (r->rows == 0 || r->row_t[r->rows - 1] < (double)r->step * r->dt - 1e-9) {
        th_agent_view v = th_world_agents(w);
        if (!add_row(r, w, v)) {
            th_app_error(err, TH_ERR_NOMEM, "--results: out of memory");
            return false;
        }
    }
    for (uint32_t a = 0; a < r->alive_count; a++) retire(r, r->occ[r->alive[a]].id.index1 - 1);
    double at[3];
    uint32_t of = 0;
    const char *of_what = "spawned";
    char reach[64];
    if (th_world_exit_count(w) > 0) {
        th_report_exit_times(w, at);
        of = th_world_get_stats(w).spawned;
    } else {
        th_outcome oc;
        th_outcome_count(w, &oc);
        for (int i = 0; i < 3; i++) at[i] = oc.time_at[i];
        of = oc.reachable;
        const th_refuge_words rw = th_refuge_words_of(w);
        snprintf(reach, sizeof reach, "who could reach %s %s", rw.place_article, rw.place);
        of_what = reach;
    }
    const bool ok = write_flows(r, err) && write_occupants(r, w, err) && write_density(r, w, err) &&
                    write_curve(r, at, of, err) &&
                    write_index(r, w, facts, seed, threads, at, of, of_what, err);
    th_plot_done();
    return ok;
}
