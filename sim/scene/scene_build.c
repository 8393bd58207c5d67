/* A parsed scene made into a world through the public API, so a scene file and the same
 * scene built by hand in C give the same world, step for step. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/alloc.h"
#include "engine/jobs.h"
#include "engine/rng.h"
#include "sim/core/error.h"
#include "sim/core/world.h"
#include "sim/nav/nav.h"
#include "sim/scene/scene_internal.h"

/* Random spawns: agent i of crowd c draws from keys (c << 32 | i), counters 4 * attempt + k for
 * k = 0 (x), 1 (y), 2 (heading); a point on a wall or in a bunker is drawn again. */
enum { SPAWN_TRIES = 64 };

/* Memory a world takes, measured on a 4096 x 4096 map (docs/robustness.md): per cell the
 * terrain, wall-distance and bunker tables; per cell and bunker a river map (distance and
 * direction); per cell and worker the scratch of a river-map computation; per agent both
 * state buffers, grid keys and bookkeeping. */
enum {
    WORLD_BYTES_PER_CELL = 32,
    WORLD_BYTES_PER_CELL_BUNKER = 5,
    WORLD_BYTES_PER_CELL_WORKER = 16,
    WORLD_BYTES_PER_AGENT = 256,
    WORLD_BYTES_PER_CELL_BLOCK =
        10, /* with block events: the displacement list and table, kept costs */
    WORLD_BYTES_PER_CELL_PATHS = 37, /* with squads: A*'s cell records, a path and its waypoints,
                                        the formation fitting's marks and queue */
    WORLD_BYTES_PER_CELL_LANDMARKS = 34, /* and A*'s landmarks, up to TH_ASTAR_LANDMARK_BUDGET */
    WORLD_BYTES_PER_CELL_RIGID = 8,      /* with rigid squads: their planning map */
};
/* A scene whose world would need more is refused before anything is allocated: past this,
 * an ordinary machine starts swapping or the kernel kills the process, which is a crash by
 * another name. */
#define TH_SCENE_MAX_WORLD_BYTES (4ull << 30)

/* Cells of every legend entry a spawn region names, gathered in one pass over the map: entry
 * e's cells, in index order, are cells[first[e] .. first[e + 1]) (empty for entries no region
 * names). One pass, however many crowds and regions ask (256 crowds x 16 regions each scanning
 * a 4096 x 4096 map would take minutes), and none when no region names an entry: a list of
 * every cell of a 4096 x 4096 map would be 64 MiB written for nothing. */
typedef struct legend_cells {
    uint32_t first[TH_SCENE_MAX_LEGEND + 1];
    uint32_t *cells;
} legend_cells;

static bool gather_legend_cells(const th_scene *s, legend_cells *lc) {
    memset(lc, 0, sizeof *lc);
    if (!s->has_map) return true;
    bool wanted[256] = {false}, any = false; /* by legend byte: TH_SCENE_NO_LEGEND stays false */
    for (uint32_t c = 0; c < s->crowd_count; c++) {
        for (uint32_t r = 0; r < s->crowd[c].region_count; r++) {
            if (s->crowd[c].region[r].kind != TH_REGION_LEGEND) continue;
            wanted[s->crowd[c].region[r].legend] = any = true;
        }
    }
    size_t n = any ? (size_t)s->cols * (size_t)s->rows : 0;
    uint32_t count[TH_SCENE_MAX_LEGEND] = {0};
    for (size_t i = 0; i < n; i++) {
        if (wanted[s->legend[i]]) count[s->legend[i]]++;
    }
    uint32_t total = 0;
    for (uint32_t e = 0; e < TH_SCENE_MAX_LEGEND; e++) {
        lc->first[e] = total;
        total += count[e];
    }
    lc->first[TH_SCENE_MAX_LEGEND] = total;
    lc->cells = th_alloc((total ? total : 1) * sizeof *lc->cells);
    if (!lc->cells) return false;
    uint32_t at[TH_SCENE_MAX_LEGEND];
    memcpy(at, lc->first, sizeof at);
    for (size_t i = 0; i < n; i++) {
        if (wanted[s->legend[i]]) lc->cells[at[s->legend[i]]++] = (uint32_t)i;
    }
    return true;
}

bool th_scene_refused(const th_scene *s, const th_ynode *at, const char *path, th_error *err) {
    if (!err) return false;
    char why[sizeof err->message];
    memcpy(why, err->message, sizeof why);
    return th_scene_fail_code(s, at, path, err, err->code, "the world refused it: %s", why);
}

/* Bodies placed so far, hashed on a grid of cells at least one body diameter wide, so that a
 * random spawn can look for a spot where a body does not overlap another one. */
typedef struct placed_bodies {
    float cell, inv_cell;
    int32_t nx, ny;
    uint32_t *head, *next; /* per cell: first body + 1 (0 = none); per body: next + 1 */
    float *x, *y, *r;
    uint32_t n, cap;
} placed_bodies;

static bool bodies_init(placed_bodies *b, const th_scene *s, uint32_t cap, float max_r) {
    memset(b, 0, sizeof *b);
    if (cap == 0 || max_r <= 0.0f) return true;
    /* At most 2^22 cells: a coarser grid for a huge sparse world is only slower. */
    float cell = fmaxf(2.0f * max_r, sqrtf(s->width * s->height / 4194304.0f));
    b->cell = cell;
    b->inv_cell = 1.0f / cell;
    b->nx = (int32_t)ceilf(s->width / cell) + 1;
    b->ny = (int32_t)ceilf(s->height / cell) + 1;
    b->cap = cap;
    b->head = th_calloc((size_t)b->nx * (size_t)b->ny, sizeof *b->head);
    b->next = th_calloc(cap, sizeof *b->next);
    b->x = th_calloc(cap, sizeof *b->x);
    b->y = th_calloc(cap, sizeof *b->y);
    b->r = th_calloc(cap, sizeof *b->r);
    return b->head && b->next && b->x && b->y && b->r;
}

static void bodies_free(placed_bodies *b) {
    th_free(b->head);
    th_free(b->next);
    th_free(b->x);
    th_free(b->y);
    th_free(b->r);
}

static int32_t bodies_coord(const placed_bodies *b, float v, int32_t n) {
    int32_t c = (int32_t)(v * b->inv_cell);
    return c < 0 ? 0 : (c >= n ? n - 1 : c);
}

/* How deep a body of radius r at (x, y) would overlap those placed before (0: not at all). */
static float bodies_overlap(const placed_bodies *b, float x, float y, float r) {
    float worst = 0.0f;
    if (!b->head || r <= 0.0f) return worst;
    int32_t cx = bodies_coord(b, x, b->nx), cy = bodies_coord(b, y, b->ny);
    for (int32_t yy = cy - 1; yy <= cy + 1; yy++) {
        for (int32_t xx = cx - 1; xx <= cx + 1; xx++) {
            if (xx < 0 || yy < 0 || xx >= b->nx || yy >= b->ny) continue;
            for (uint32_t k = b->head[(size_t)yy * (size_t)b->nx + (size_t)xx]; k;
                 k = b->next[k - 1]) {
                float dx = b->x[k - 1] - x, dy = b->y[k - 1] - y, l = b->r[k - 1] + r;
                if (dx * dx + dy * dy < l * l) worst = fmaxf(worst, l - sqrtf(dx * dx + dy * dy));
            }
        }
    }
    return worst;
}

static void bodies_add(placed_bodies *b, float x, float y, float r) {
    if (!b->head || r <= 0.0f || b->n == b->cap) return;
    size_t cell =
        (size_t)bodies_coord(b, y, b->ny) * (size_t)b->nx + (size_t)bodies_coord(b, x, b->nx);
    b->x[b->n] = x;
    b->y[b->n] = y;
    b->r[b->n] = r;
    b->next[b->n] = b->head[cell];
    b->head[cell] = ++b->n;
}

/* Random spawns. A crowd with bodies looks, within SPAWN_TRIES draws, for a spot where its body
 * overlaps no other; a region too full for that takes the open spot drawn where it overlaps
 * least, and the contacts phase pushes the bodies apart in the first steps. */
static bool spawn_crowd(th_world *w, const th_scene *s, const legend_cells *lc, uint32_t c,
                        uint32_t count, uint64_t seed, placed_bodies *bodies, th_error *err) {
    const th_scene_crowd *cr = &s->crowd[c];
    const uint32_t *cells[TH_SCENE_MAX_REGIONS] = {0};
    uint32_t ncells[TH_SCENE_MAX_REGIONS] = {0};
    bool ok = true;
    for (uint32_t r = 0; r < cr->region_count; r++) {
        if (cr->region[r].kind != TH_REGION_LEGEND) continue;
        uint8_t e = cr->region[r].legend;
        cells[r] = lc->cells + lc->first[e];
        ncells[r] = lc->first[e + 1] - lc->first[e];
    }
    /* Discs dropped at random and pushed apart jam at random close packing, an area fraction
     * of about 0.82 in two dimensions (Berryman 1983), 6.5 persons/m2 for 0.2 m bodies: a
     * region asked to hold more (a scene scaled up with --agents, say) cannot be settled, so
     * say so now rather than let the first step's overlap check say it less clearly. */
    const float radius = cr->def.body_radius;
    for (uint32_t r = 0; radius > 0.0f && r < cr->region_count && count > 0; r++) {
        const th_scene_region *g = &cr->region[r];
        const uint32_t here = count / cr->region_count + (r < count % cr->region_count);
        const double area = g->kind == TH_REGION_RECT ? (double)g->w * g->h
                            : g->kind == TH_REGION_CIRCLE
                                ? TH_PI * (double)g->r * g->r
                                : (double)ncells[r] * s->cell_size * s->cell_size;
        const double densest = 0.82 / (TH_PI * (double)radius * radius);
        if ((double)here > area * densest) {
            char path[64];
            snprintf(path, sizeof path, "crowds[%u].spawn", c);
            return th_scene_fail(s, g->node, path, err,
                                 "%u agents of crowd '%s' with %g m bodies in %.1f m2 would be "
                                 "%.2f persons/m2; at most %.2f fit (random close packing)",
                                 here, cr->name, (double)radius, area, (double)here / area,
                                 densest);
        }
    }
    for (uint32_t i = 0; i < count && ok; i++) {
        uint32_t r = i % cr->region_count;
        const th_scene_region *g = &cr->region[r];
        uint64_t key = (uint64_t)c << 32 | i;
        float x = 0, y = 0, open_x = 0, open_y = 0, least = INFINITY;
        bool placed = false, open = false;
        for (uint32_t t = 0; t < SPAWN_TRIES && !placed; t++) {
            float u = th_rng_f01(seed, key, 4u * t), v = th_rng_f01(seed, key, 4u * t + 1);
            if (g->kind == TH_REGION_RECT) {
                x = g->x + u * g->w;
                y = g->y + v * g->h;
            } else if (g->kind == TH_REGION_CIRCLE) {
                float rad = g->r * sqrtf(u), ang = 2.0f * (float)TH_PI * v;
                x = g->x + rad * cosf(ang);
                y = g->y + rad * sinf(ang);
            } else {
                if (ncells[r] == 0) break;
                uint32_t cell = cells[r][th_rng_u64(seed, key, 4u * t) % ncells[r]];
                x = ((float)(cell % (uint32_t)s->cols) + v) * s->cell_size;
                y = ((float)(cell / (uint32_t)s->cols) + th_rng_f01(seed, key, 4u * t + 3)) *
                    s->cell_size;
            }
            if (!(x >= 0 && y >= 0 && x < s->width && y < s->height &&
                  th_scene_open_at(s, x, y, true)))
                continue;
            open = true;
            const float depth = bodies_overlap(bodies, x, y, radius);
            if (depth < least) {
                least = depth;
                open_x = x;
                open_y = y;
            }
            placed = depth == 0.0f;
        }
        if (!placed && open) {
            x = open_x;
            y = open_y;
            placed = true;
        }
        if (!placed) {
            char path[64];
            snprintf(path, sizeof path, "crowds[%u].spawn", c);
            ok = th_scene_fail(
                s, g->node, path, err,
                "could not place agent %u of crowd '%s' on open ground in %d tries: the region is (almost) all walls or bunkers",
                i, cr->name, SPAWN_TRIES);
            break;
        }
        float heading = 2.0f * (float)TH_PI * th_rng_f01(seed, key, 2);
        th_vec2 vel = th_v2(cr->initial_speed * cosf(heading), cr->initial_speed * sinf(heading));
        if (!th_agent_id_valid(
                th_world_add_agent(w, (th_crowd_id){c + 1}, th_v2(x, y), vel, err))) {
            char path[64];
            snprintf(path, sizeof path, "crowds[%u].spawn", c);
            ok = th_scene_refused(s, g->node, path, err);
        }
        bodies_add(bodies, x, y, radius);
    }
    return ok;
}

static int event_order(const void *pa, const void *pb) {
    const th_scene_event *a = *(const th_scene_event *const *)pa;
    const th_scene_event *b = *(const th_scene_event *const *)pb;
    if (a->step != b->step) return a->step < b->step ? -1 : 1;
    return a < b ? -1 : a > b; /* file order among events of one step */
}

/* The event (in `order`, before index `before`) that last closed or opened cell (x, y), or
 * NULL: whether a block still holds it closed when a later event comes. */
static const th_scene_event *last_door_event(const th_scene_event **order, uint32_t before,
                                             int32_t x, int32_t y) {
    for (uint32_t k = before; k-- > 0;) {
        const th_event_def *d = &order[k]->def;
        if ((d->type == TH_EVENT_BLOCK_CELLS || d->type == TH_EVENT_OPEN_CELLS) && x >= d->x0 &&
            x <= d->x1 && y >= d->y0 && y <= d->y1)
            return order[k];
    }
    return NULL;
}

/* A break_wall breaks only destructible walls of the map: one whose rectangle holds none would
 * do nothing, silently. Refused at the event, naming the block that closed the cells when an
 * earlier block did (those reopen with `open`). Called before the world's first step, so the
 * world's cells are the map's. */
static bool breaks_a_wall(const th_world *w, const th_scene *s, const th_scene_event **order,
                          uint32_t e, th_error *err) {
    const th_scene_event *ev = order[e];
    const th_event_def *d = &ev->def;
    for (int32_t y = d->y0; y <= d->y1; y++) {
        for (int32_t x = d->x0; x <= d->x1; x++) {
            if (th_world_cell(w, x, y, NULL) == TH_CELL_DESTRUCTIBLE) return true;
        }
    }
    char path[64];
    snprintf(path, sizeof path, "events[%u].break_wall", (uint32_t)(ev - s->event));
    const th_ynode *at = th_ynode_get(ev->node, "break_wall");
    for (int32_t y = d->y0; y <= d->y1; y++) {
        for (int32_t x = d->x0; x <= d->x1; x++) {
            if (th_world_cell(w, x, y, NULL) != TH_CELL_OPEN) continue;
            const th_scene_event *door = last_door_event(order, e, x, y);
            if (!door || door->def.type != TH_EVENT_BLOCK_CELLS) continue;
            return th_scene_fail(s, at, path, err,
                                 "expected a destructible wall of the map in cells [%d..%d] x "
                                 "[%d..%d], found none: cell (%d, %d) is closed by the block of "
                                 "events[%u], which break_wall cannot undo; use `open: [%d, %d, "
                                 "%d, %d]` to reopen blocked cells",
                                 d->x0, d->x1, d->y0, d->y1, x, y, (uint32_t)(door - s->event),
                                 door->def.x0, door->def.y0, door->def.x1, door->def.y1);
        }
    }
    return th_scene_fail(s, at, path, err,
                         "expected a destructible wall of the map in cells [%d..%d] x [%d..%d], "
                         "found none (break_wall opens only `destructible` cells)",
                         d->x0, d->x1, d->y0, d->y1);
}

/* Events handed to the world in step order. The world inserts each after those due no later,
 * so a timeline written latest-first would cost it a quadratic number of moves (65,536
 * events: seconds); sorted, every insert is an append. */
static bool schedule_events(th_world *w, const th_scene *s, th_error *err) {
    if (s->event_count == 0) return true;
    const th_scene_event **order = th_alloc(s->event_count * sizeof *order);
    if (!order) return TH_SCENE_NOMEM(s, NULL, "events", err, "out of memory");
    for (uint32_t e = 0; e < s->event_count; e++) order[e] = &s->event[e];
    qsort(order, s->event_count, sizeof *order, event_order);
    bool ok = true;
    for (uint32_t e = 0; e < s->event_count && ok; e++) {
        const th_scene_event *ev = order[e];
        if (ev->crowd < 0 && ev->def.type == TH_EVENT_BREAK_WALLS &&
            !breaks_a_wall(w, s, order, e, err)) {
            ok = false;
        } else if (ev->crowd >= 0 ? !th_world_schedule_crowd(w, ev->step,
                                                             (th_crowd_id){(uint32_t)ev->crowd + 1},
                                                             &ev->tune, err)
                                  : !th_world_schedule(w, ev->step, &ev->def, err)) {
            char path[64];
            snprintf(path, sizeof path, "events[%u]", (uint32_t)(order[e] - s->event));
            ok = th_scene_refused(s, order[e]->node, path, err);
        }
    }
    th_free(order);
    return ok;
}

/* The agents a world is built for, by where they come from: its memory bound names them. */
typedef struct agent_sources {
    uint64_t crowds;   /* crowd counts (after --agents) and agents placed by hand */
    uint64_t spawners; /* spawners with a stop or a limit, and ... */
    uint64_t endless;  /* ... those with neither, over the scene's `steps` */
    uint32_t scaled;   /* --agents, 0 when not given */
} agent_sources;

static double mib(uint64_t bytes) { return (double)bytes / (1024.0 * 1024.0); }

/* Refuse a world that would not fit in TH_SCENE_MAX_WORLD_BYTES (see the byte counts above),
 * naming what takes the room. */
static bool fits_in_memory(const th_scene *s, uint32_t threads, const agent_sources *a,
                           th_error *err) {
    uint64_t workers = threads ? threads : th_cpu_count();
    uint64_t cells = s->has_map ? (uint64_t)s->cols * (uint64_t)s->rows : 0;
    uint64_t per_cell = WORLD_BYTES_PER_CELL + WORLD_BYTES_PER_CELL_BUNKER * s->bunker_count +
                        WORLD_BYTES_PER_CELL_WORKER * workers;
    for (uint32_t e = 0; e < s->event_count; e++) {
        if (s->event[e].def.type == TH_EVENT_BLOCK_CELLS) {
            per_cell += WORLD_BYTES_PER_CELL_BLOCK;
            break;
        }
    }
    const uint64_t map_bytes = cells * per_cell;
    const uint64_t agents = a->crowds + a->spawners + a->endless;
    const uint64_t agent_bytes = agents * WORLD_BYTES_PER_AGENT;
    uint64_t squad_bytes = 0, forage_bytes = 0;
    if (s->squad_count > 0) {
        uint64_t landmarks = cells * WORLD_BYTES_PER_CELL_LANDMARKS;
        squad_bytes = cells * WORLD_BYTES_PER_CELL_PATHS +
                      (landmarks <= TH_ASTAR_LANDMARK_BUDGET ? landmarks : 0);
        for (uint32_t q = 0; q < s->squad_count; q++) {
            if (s->squad[q].def.rigid) {
                squad_bytes += cells * WORLD_BYTES_PER_CELL_RIGID;
                break;
            }
        }
    }
    /* Foraging crowds: a pheromone grid each (4 bytes per cell: the map's cells, or its own
     * without a map) and with a map the nest's field, costed as a bunker's river map. */
    for (uint32_t c = 0; c < s->crowd_count; c++) {
        const th_goal_def *g = &s->crowd[c].def.goal;
        if (g->kind != TH_GOAL_FORAGE || !g->forage) continue;
        const double cs = g->forage->cell_size > 0.0f ? g->forage->cell_size : 1.0;
        forage_bytes += s->has_map ? cells * (4 + WORLD_BYTES_PER_CELL_BUNKER)
                                   : 4 * (uint64_t)(ceil(s->width / cs) * ceil(s->height / cs));
    }
    const uint64_t bytes = map_bytes + agent_bytes + squad_bytes + forage_bytes;
    if (bytes <= TH_SCENE_MAX_WORLD_BYTES) return true;
    /* Reported where the largest part comes from. */
    const bool map_first = map_bytes + squad_bytes >= agent_bytes + forage_bytes;
    const char *key = s->has_map && map_first ? "map" : "crowds";
    if (!map_first && a->endless + a->spawners > a->crowds && s->spawner_count) key = "spawners";
    char parts[512];
    int n = snprintf(parts, sizeof parts, "%llu agents %.1f MiB (%llu from crowds",
                     (unsigned long long)agents, mib(agent_bytes), (unsigned long long)a->crowds);
    if (a->scaled) n += snprintf(parts + n, sizeof parts - (size_t)n, ", --agents %u", a->scaled);
    if (a->spawners)
        n += snprintf(parts + n, sizeof parts - (size_t)n,
                      ", %llu from spawners with a stop or limit", (unsigned long long)a->spawners);
    if (a->endless) {
        n += snprintf(parts + n, sizeof parts - (size_t)n,
                      ", %llu from endless spawners over the scene's %llu steps",
                      (unsigned long long)a->endless, (unsigned long long)s->steps);
    }
    n += snprintf(parts + n, sizeof parts - (size_t)n, ")");
    if (s->has_map) {
        n +=
            snprintf(parts + n, sizeof parts - (size_t)n,
                     ", map of %d x %d cells with %u bunker(s) on %llu thread(s) %.1f MiB", s->cols,
                     s->rows, s->bunker_count, (unsigned long long)workers, mib(map_bytes));
    }
    if (squad_bytes)
        n += snprintf(parts + n, sizeof parts - (size_t)n, ", squads' paths %.1f MiB",
                      mib(squad_bytes));
    if (forage_bytes)
        snprintf(parts + n, sizeof parts - (size_t)n, ", foraging %.1f MiB", mib(forage_bytes));
    const char *hint = map_first    ? "fewer bunkers, threads or cells, or a coarser cell_size"
                       : a->endless ? "fewer agents, or a stop or limit on the endless spawners"
                                    : "fewer agents";
    /* Just over the bound, the excess in bytes: "4096.0 MiB" alone would read as within. */
    char found[64];
    if (mib(bytes - TH_SCENE_MAX_WORLD_BYTES) < 0.05) {
        snprintf(found, sizeof found, "%llu MiB and %llu bytes",
                 (unsigned long long)(TH_SCENE_MAX_WORLD_BYTES >> 20),
                 (unsigned long long)(bytes - TH_SCENE_MAX_WORLD_BYTES));
    } else {
        snprintf(found, sizeof found, "%.1f MiB", mib(bytes));
    }
    return th_scene_fail(s, th_ynode_get(s->doc.root, key), key, err,
                         "expected a world of at most %llu MiB, found one of %s: %s (%s, make it "
                         "smaller)",
                         (unsigned long long)(TH_SCENE_MAX_WORLD_BYTES >> 20), found, parts, hint);
}

th_world *th_scene_build(const th_scene *s, const th_scene_opts *opts, bool checking,
                         th_error *err) {
    th_scene_opts o = opts ? *opts : (th_scene_opts){0};
    uint64_t random_total = 0, fixed_total = 0;
    for (uint32_t c = 0; c < s->crowd_count; c++) {
        random_total += s->crowd[c].count;
        fixed_total += s->crowd[c].agent_count;
    }
    /* --agents: scale the random-spawn counts, remainders to the first crowds. */
    uint32_t counts[TH_MAX_CROWDS];
    uint64_t target = random_total;
    if (o.agents) {
        if (o.agents < fixed_total || random_total == 0) {
            th_error_set(
                err, TH_ERR_INVALID,
                "%s: cannot scale to %u agents: %llu are placed by hand and %llu spawn at random",
                s->doc.path, o.agents, (unsigned long long)fixed_total,
                (unsigned long long)random_total);
            return NULL;
        }
        target = o.agents - fixed_total;
    }
    uint64_t given = 0;
    for (uint32_t c = 0; c < s->crowd_count; c++) {
        counts[c] = random_total ? (uint32_t)(s->crowd[c].count * target / random_total) : 0;
        given += counts[c];
    }
    for (uint32_t c = 0; given < target && c < s->crowd_count; c++) {
        if (s->crowd[c].count) counts[c]++, given++;
    }

    th_world_def wd = th_default_world_def();
    wd.width = s->width;
    wd.height = s->height;
    wd.bounds = s->bounds;
    wd.timestep = s->timestep;
    wd.stall_time = s->stall_time;
    wd.seed = o.override_seed ? o.seed : s->seed;
    wd.threads = o.threads ? o.threads : s->threads;
    wd.enqueue_task = o.enqueue_task;
    wd.finish_task = o.finish_task;
    wd.task_user = o.task_user;
    wd.dist = o.dist;
    wd.agent_capacity = (uint32_t)(target + fixed_total);
    wd.cell_size = s->has_map ? s->cell_size : 0.0f;
    agent_sources src = {.crowds = target + fixed_total, .scaled = o.agents};
    src.spawners = th_scene_flow_agents(s, &src.endless);
    src.spawners -= src.endless;
    if (!fits_in_memory(s, wd.threads, &src, err)) return NULL;
    legend_cells lc;
    if (!gather_legend_cells(s, &lc)) {
        TH_SCENE_NOMEM(s, NULL, "map", err, "out of memory");
        return NULL;
    }
    th_world *w = th_world_create_checking(&wd, checking, err);
    bool ok = w != NULL;
    if (!ok) th_scene_refused(s, s->doc.root, "(file)", err);
    if (ok && s->has_map) {
        const th_ynode *map = th_ynode_get(s->doc.root, "map");
        for (int32_t y = 0; y < s->rows && ok; y++) {
            for (int32_t x = 0; x < s->cols && ok; x++) {
                size_t i = (size_t)y * (size_t)s->cols + (size_t)x;
                if (s->kind[i] != TH_CELL_OPEN || s->cost[i] != 1) {
                    ok = th_world_set_cell(w, x, y, (th_cell_kind)s->kind[i], s->cost[i], err) ||
                         th_scene_refused(s, map, "map", err);
                }
                const uint8_t l = s->legend ? s->legend[i] : TH_SCENE_NO_LEGEND;
                if (ok && s->kind[i] == TH_CELL_OPEN && l != TH_SCENE_NO_LEGEND &&
                    s->legend_entry[l].speed != 1.0f) {
                    ok = th_world_set_cell_speed(w, x, y, s->legend_entry[l].speed, err) ||
                         th_scene_refused(s, map, "map", err);
                }
            }
        }
        for (uint32_t b = 0; b < s->bunker_count && ok; b++) {
            const th_scene_bunker *sb = &s->bunker[b];
            th_bunker_def bd = {sb->name, sb->x0,       sb->y0,   sb->x1,
                                sb->y1,   sb->capacity, sb->exit, sb->max_flow};
            if (th_world_add_bunker(w, &bd, err).index1 != b + 1) {
                char path[64];
                snprintf(path, sizeof path, "bunkers[%u]", b);
                ok = th_scene_refused(s, sb->node ? sb->node : map, path, err);
            }
        }
        ok = ok && th_scene_build_building(w, s, err);
    }
    /* Targets first (crowds name them). An agent target gets the id its agent will have:
     * ids are handed out crowd by crowd, hand-placed agents first. */
    uint64_t first_id[TH_MAX_CROWDS];
    uint64_t next = 0;
    for (uint32_t c = 0; c < s->crowd_count; c++) {
        first_id[c] = next;
        next += (uint64_t)s->crowd[c].agent_count + counts[c];
    }
    for (uint32_t t = 0; t < s->target_count && ok; t++) {
        const th_scene_target *st = &s->target[t];
        th_target_def td = st->def;
        char path[64];
        snprintf(path, sizeof path, "targets[%u]", t);
        if (td.kind == TH_TARGET_AGENT) {
            uint32_t c = (uint32_t)st->agent_crowd;
            uint64_t n = (uint64_t)s->crowd[c].agent_count + counts[c];
            if (st->agent_index >= n) {
                snprintf(path, sizeof path, "targets[%u].agent.index", t);
                ok = th_scene_fail(s, th_ynode_get(st->node, "agent"), path, err,
                                   "crowd '%s' has %llu agents, so there is no agent %u",
                                   s->crowd[c].name, (unsigned long long)n, st->agent_index);
                break;
            }
            /* The world is new: no slot has been freed, so slots follow creation order. */
            td.agent = (th_agent_id){(uint32_t)(first_id[c] + st->agent_index) + 1u, 1u};
        }
        if (th_world_add_target(w, &td, err).index1 != t + 1)
            ok = th_scene_refused(s, st->node, path, err);
    }
    uint64_t with_bodies = 0;
    float max_r = 0.0f;
    for (uint32_t c = 0; c < s->crowd_count; c++) {
        if (s->crowd[c].def.body_radius <= 0.0f) continue;
        with_bodies += (uint64_t)counts[c] + s->crowd[c].agent_count;
        max_r = fmaxf(max_r, s->crowd[c].def.body_radius);
    }
    placed_bodies bodies = {0};
    if (ok && !bodies_init(&bodies, s, (uint32_t)with_bodies, max_r)) {
        ok = TH_SCENE_NOMEM(s, NULL, "crowds", err, "out of memory");
    }
    for (uint32_t c = 0; c < s->crowd_count && ok; c++) {
        const th_scene_crowd *cr = &s->crowd[c];
        char path[64];
        snprintf(path, sizeof path, "crowds[%u]", c);
        th_crowd_def def = cr->def;
        if (!th_scene_build_goal(w, s, cr, &def, path, err)) ok = false;
        else if (th_world_add_crowd(w, &def, err).index1 != c + 1)
            ok = th_scene_refused(s, cr->node, path, err);
        for (uint32_t i = 0; i < cr->agent_count && ok; i++) {
            const float *a = cr->agents + 4 * (size_t)i;
            if (!th_agent_id_valid(th_world_add_agent(w, (th_crowd_id){c + 1}, th_v2(a[0], a[1]),
                                                      th_v2(a[2], a[3]), err))) {
                snprintf(path, sizeof path, "crowds[%u].agents[%u]", c, i);
                ok = th_scene_refused(s, th_ynode_get(cr->node, "agents")->items[i], path, err);
            }
            bodies_add(&bodies, a[0], a[1], cr->def.body_radius);
        }
        if (ok) ok = spawn_crowd(w, s, &lc, c, counts[c], wd.seed, &bodies, err);
    }
    bodies_free(&bodies);
    if (ok && (s->group_count || s->agent_goal_count || s->goal_planning_node)) {
        uint64_t n[TH_MAX_CROWDS];
        for (uint32_t c = 0; c < s->crowd_count; c++)
            n[c] = (uint64_t)s->crowd[c].agent_count + counts[c];
        ok = th_scene_build_groups(w, s, first_id, n, err) &&
             th_scene_build_agent_goals(w, s, first_id, n, err);
    }
    if (ok) ok = th_scene_build_elevators(w, s, err);
    for (uint32_t q = 0; q < s->squad_count && ok; q++) {
        char path[64];
        snprintf(path, sizeof path, "squads[%u]", q);
        if (th_world_add_squad(w, &s->squad[q].def, err).index1 != q + 1) {
            ok = th_scene_refused(s, s->squad[q].node, path, err);
        }
    }
    if (ok) ok = schedule_events(w, s, err);
    if (ok) ok = th_scene_build_measure(w, s, err);
    if (ok) ok = th_scene_build_hazards(w, s, err);
    if (ok) ok = th_scene_build_flow(w, s, err);
    th_free(lc.cells);
    if (!ok) {
        th_world_destroy(w);
        return NULL;
    }
    return w;
}

/* Crowds whose agents will stand where they start in a scene that has somewhere to go: walkers
 * with no goal (no behaviour, no destination, no own goals given them) and no heading, beside
 * bunkers or exits. Legal (a standing crowd is a scene's choice), but most often a forgotten
 * `behavior: flee`. Counts them; the first is described in `first` as file:line:column. */
static uint32_t standing_crowds(const th_scene *s, char *first, size_t cap) {
    uint32_t n = 0;
    first[0] = '\0';
    if (s->bunker_count == 0 && s->exit_count == 0) return 0;
    for (uint32_t i = 0; i < s->crowd_count; i++) {
        const th_scene_crowd *c = &s->crowd[i];
        const th_crowd_def *d = &c->def;
        if (d->model != TH_MODEL_PEDESTRIAN || d->goal.kind != TH_GOAL_NONE ||
            d->behavior == TH_BEHAVIOR_FLEE || d->heading.x != 0.0f || d->heading.y != 0.0f)
            continue;
        const uint32_t agents = c->count + c->agent_count;
        if (agents == 0) continue;
        bool given = false; /* own goals name its agents */
        for (uint32_t g = 0; g < s->agent_goal_count && !given; g++)
            given = s->agent_goal[g].agent[0] == i;
        if (given) continue;
        if (n++ == 0) {
            char where[32];
            snprintf(where, sizeof where, "crowds[%u]", i);
            th_error e = {0};
            th_scene_fail(s, c->node, where, &e,
                          "crowd '%s' has no goal and no heading: its %u agent(s) will stand where "
                          "they start, though the scene has %u bunker(s) and %u exit(s) "
                          "(`behavior: flee` or a `goal` sends them there)",
                          c->name, agents, s->bunker_count, s->exit_count);
            snprintf(first, cap, "%s", e.message);
        }
    }
    return n;
}

static th_world *load(const char *path, const th_scene_opts *opts, bool checking,
                      th_scene_info *info, th_error *err) {
    if (!path) {
        th_error_set(err, TH_ERR_INVALID, "scene: no path");
        return NULL;
    }
    th_scene s;
    if (!th_scene_parse_ex(&s, path, opts, err)) {
        th_scene_free(&s);
        return NULL;
    }
    th_world *w = th_scene_build(&s, opts, checking, err);
    if (w && info) {
        memset(info, 0, sizeof *info);
        memcpy(info->name, s.name, sizeof info->name);
        info->steps = s.steps;
        info->timestep = s.timestep;
        info->agents = th_world_agent_count(w);
        info->crowds = s.crowd_count;
        info->bunkers = s.bunker_count;
        info->events = s.event_count;
        info->map_cols = s.has_map ? s.cols : 0;
        info->map_rows = s.has_map ? s.rows : 0;
        info->warnings = standing_crowds(&s, info->warning, sizeof info->warning);
        /* The image's path as read_image builds it: next to the scene file unless absolute. */
        const th_ynode *image = th_ynode_get(th_ynode_get(s.doc.root, "map"), "image");
        const char *dir = s.doc.path, *slash = strrchr(dir, '/');
        if (image && image->kind == TH_Y_SCALAR && image->len > 0)
            snprintf(info->map_image, sizeof info->map_image, "%.*s%s%.*s",
                     image->text[0] == '/' || !slash ? 0 : (int)(slash - dir), dir,
                     image->text[0] == '/' || !slash ? "" : "/", (int)image->len, image->text);
    }
    th_scene_free(&s);
    return w;
}

th_world *th_scene_load(const char *path, const th_scene_opts *opts, th_scene_info *info,
                        th_error *err) {
    return load(path, opts, false, info, err);
}

bool th_scene_check(const char *path, const th_scene_opts *opts, th_scene_info *info,
                    th_error *err) {
    th_world *w = load(path, opts, true, info, err);
    th_world_destroy(w);
    return w != NULL;
}
