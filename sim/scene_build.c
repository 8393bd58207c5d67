/* A parsed scene made into a world through the public API, so a scene file and the same
 * scene built by hand in C give the same world, step for step. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../engine/alloc.h"
#include "../engine/rng.h"
#include "scene_internal.h"
#include "world_internal.h"

/* Random spawns: agent i of crowd c draws from keys (c << 32 | i), counters 4 * attempt + k for
 * k = 0 (x), 1 (y), 2 (heading); a point on a wall or in a bunker is drawn again. */
enum { SPAWN_TRIES = 64 };

static bool open_ground(const th_scene *s, float x, float y) {
    if (!s->has_map) return true;
    int32_t cx = (int32_t)(x / s->cell_size), cy = (int32_t)(y / s->cell_size);
    if (cx < 0 || cy < 0 || cx >= s->cols || cy >= s->rows) return false;
    size_t i = (size_t)cy * (size_t)s->cols + (size_t)cx;
    uint8_t l = s->legend[i];
    return s->kind[i] == TH_CELL_OPEN && (l == TH_SCENE_NO_LEGEND || s->legend_entry[l].bunker < 0);
}

/* Cells of legend entry `e`, in index order. */
static uint32_t *legend_cells(const th_scene *s, uint8_t e, uint32_t *count) {
    size_t n = (size_t)s->cols * (size_t)s->rows;
    uint32_t k = 0;
    for (size_t i = 0; i < n; i++) k += s->legend[i] == e;
    *count = k;
    uint32_t *cells = th_alloc((k ? k : 1) * sizeof *cells);
    if (!cells) return NULL;
    k = 0;
    for (size_t i = 0; i < n; i++) {
        if (s->legend[i] == e) cells[k++] = (uint32_t)i;
    }
    return cells;
}

static bool spawn_crowd(th_world *w, const th_scene *s, uint32_t c, uint32_t count, uint64_t seed,
                        th_error *err) {
    const th_scene_crowd *cr = &s->crowd[c];
    uint32_t *cells[TH_SCENE_MAX_REGIONS] = {0}, ncells[TH_SCENE_MAX_REGIONS] = {0};
    bool ok = true;
    for (uint32_t r = 0; r < cr->region_count && ok; r++) {
        if (cr->region[r].kind != TH_REGION_LEGEND) continue;
        cells[r] = legend_cells(s, cr->region[r].legend, &ncells[r]);
        ok = cells[r] != NULL;
        if (!ok) th_error_set(err, "out of memory");
    }
    for (uint32_t i = 0; i < count && ok; i++) {
        uint32_t r = i % cr->region_count;
        const th_scene_region *g = &cr->region[r];
        uint64_t key = (uint64_t)c << 32 | i;
        float x = 0, y = 0;
        bool placed = false;
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
                y = ((float)(cell / (uint32_t)s->cols) + th_rng_f01(seed, key, 4u * t + 3)) * s->cell_size;
            }
            placed = x >= 0 && y >= 0 && x < s->width && y < s->height && open_ground(s, x, y);
        }
        if (!placed) {
            char path[64];
            snprintf(path, sizeof path, "crowds[%u].spawn", c);
            ok = th_scene_fail(s, g->node, path, err,
                               "could not place agent %u of crowd '%s' on open ground in %d tries: the region is (almost) all walls or bunkers",
                               i, cr->name, SPAWN_TRIES);
            break;
        }
        float heading = 2.0f * (float)TH_PI * th_rng_f01(seed, key, 2);
        th_vec2 vel = th_v2(cr->initial_speed * cosf(heading), cr->initial_speed * sinf(heading));
        ok = th_world_add_agent(w, c, th_v2(x, y), vel, err) != TH_INVALID_AGENT;
    }
    for (uint32_t r = 0; r < cr->region_count; r++) th_free(cells[r]);
    return ok;
}

th_world *th_scene_build(const th_scene *s, const th_scene_opts *opts, th_error *err) {
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
            th_error_set(err, "%s: cannot scale to %u agents: %llu are placed by hand and %llu spawn at random",
                         s->doc.path, o.agents, (unsigned long long)fixed_total, (unsigned long long)random_total);
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
    wd.seed = o.override_seed ? o.seed : s->seed;
    wd.threads = o.threads ? o.threads : s->threads;
    wd.agent_capacity = (uint32_t)(target + fixed_total);
    wd.cell_size = s->has_map ? s->cell_size : 0.0f;
    th_world *w = th_world_create(&wd, err);
    if (!w) return NULL;
    bool ok = true;
    if (s->has_map) {
        for (int32_t y = 0; y < s->rows && ok; y++) {
            for (int32_t x = 0; x < s->cols && ok; x++) {
                size_t i = (size_t)y * (size_t)s->cols + (size_t)x;
                if (s->kind[i] != TH_CELL_OPEN || s->cost[i] != 1) {
                    ok = th_world_set_cell(w, x, y, (th_cell_kind)s->kind[i], s->cost[i], err);
                }
            }
        }
        for (uint32_t b = 0; b < s->bunker_count && ok; b++) {
            const th_scene_bunker *sb = &s->bunker[b];
            th_bunker_def bd = {sb->name, sb->x0, sb->y0, sb->x1, sb->y1, sb->capacity};
            ok = th_world_add_bunker(w, &bd, err) == (int)b;
        }
    }
    for (uint32_t c = 0; c < s->crowd_count && ok; c++) {
        const th_scene_crowd *cr = &s->crowd[c];
        ok = th_world_add_crowd(w, &cr->def, err) == (int)c;
        for (uint32_t i = 0; i < cr->agent_count && ok; i++) {
            const float *a = cr->agents + 4 * (size_t)i;
            ok = th_world_add_agent(w, c, th_v2(a[0], a[1]), th_v2(a[2], a[3]), err) != TH_INVALID_AGENT;
        }
        if (ok) ok = spawn_crowd(w, s, c, counts[c], wd.seed, err);
    }
    for (uint32_t e = 0; e < s->event_count && ok; e++) {
        ok = th_world_schedule(w, s->event[e].step, &s->event[e].def, err);
    }
    if (!ok) {
        th_world_destroy(w);
        return NULL;
    }
    return w;
}

th_world *th_scene_load(const char *path, const th_scene_opts *opts, th_scene_info *info,
                        th_error *err) {
    th_scene s;
    if (!th_scene_parse(&s, path, err)) {
        th_scene_free(&s);
        return NULL;
    }
    th_world *w = th_scene_build(&s, opts, err);
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
    }
    th_scene_free(&s);
    return w;
}
