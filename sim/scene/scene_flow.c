/* The scene's `spawners` and `exits` sections: where agents enter and leave a continuous flow.
 *
 *     spawners:
 *       - name: west_gate
 *         crowd: walkers
 *         rect: [x, y, width, height]     # metres; or cells: "S" (a legend key's open cells)
 *         rate: 1.5                       # persons per second
 *         start: 0                        # seconds; default 0
 *         stop: 120                       # seconds; default: never
 *         limit: 150                      # most agents in all; default: none
 *         velocity: [1.0, 0.0]            # m/s; default [0, 0]
 *     exits:
 *       - name: east_gate
 *         cells: "E"                      # or rect: [x, y, width, height]
 *         crowds: [walkers]               # default: every crowd
 *
 * Both read after the crowds (they name them) and the map (legend keys). Everything the world
 * would refuse is checked here, so an error points at the value (file:line:column); the world
 * then gets the same values through the public API. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/arena.h"
#include "sim/scene/scene_internal.h"

#define FAIL(s, n, path, err, ...) th_scene_fail((s), (n), (path), (err), __VA_ARGS__)

/* Most cells of one spawner's or exit's legend key (th_world_add_spawner's bound). */
#define MAX_FLOW_CELLS 65536u

static bool crowd_index(const th_scene *s, const th_ynode *n, const char *path, th_crowd_id *out,
                        th_error *err) {
    char buf[64];
    if (n->kind == TH_Y_SCALAR) {
        for (uint32_t c = 0; c < s->crowd_count; c++) {
            if (strlen(s->crowd[c].name) == n->len &&
                memcmp(s->crowd[c].name, n->text, n->len) == 0) {
                *out = (th_crowd_id){c + 1};
                return true;
            }
        }
    }
    return FAIL(s, n, path, err, "expected the name of a crowd, found %s",
                th_scene_found(n, buf, sizeof buf));
}

/* A name, not used by an earlier entry of the same section. */
static bool entry_name(const th_scene *s, const th_ynode *e, const char *path, const char *what,
                       char out[64], const char *names, size_t stride, uint32_t count,
                       const th_ynode *const *nodes_of, th_error *err) {
    char sub[128];
    snprintf(sub, sizeof sub, "%s.name", path);
    const th_ynode *n = th_ynode_get(e, "name");
    if (!n)
        return TH_SCENE_MISSING(s, e, sub, err, "missing: every %s has a name (the report uses it)",
                                what);
    if (!th_scene_name(s, n, sub, out, 64, err)) return false;
    for (uint32_t i = 0; i < count; i++) {
        if (strcmp(names + i * stride, out) == 0) {
            return FAIL(s, n, sub, err, "the name '%s' is used twice (first at line %u)", out,
                        nodes_of[i]->line);
        }
    }
    return true;
}

/* The open cells of legend entry `entry`, in row-major order: NULL with *n = 0 when it has
 * none, NULL with *n > 0 when memory is short. Scenes with many such areas on a large map
 * would otherwise scan the map twice per area. */
static th_cell_ref *key_cells(th_scene *s, uint8_t entry, uint32_t *n) {
    struct th_scene_key_cells *k = &s->key_cells;
    if (!k->counted) {
        for (uint32_t e = 0; e < TH_SCENE_MAX_LEGEND; e++) k->row0[e] = s->rows, k->row1[e] = -1;
        for (int32_t y = 0; y < s->rows; y++) {
            const size_t row = (size_t)y * (size_t)s->cols;
            for (int32_t x = 0; x < s->cols; x++) {
                const uint8_t l = s->legend[row + (size_t)x];
                if (l >= TH_SCENE_MAX_LEGEND || s->kind[row + (size_t)x] != TH_CELL_OPEN) continue;
                k->open[l]++;
                if (y < k->row0[l]) k->row0[l] = y;
                k->row1[l] = y;
            }
        }
        k->counted = true;
    }
    *n = entry < TH_SCENE_MAX_LEGEND ? k->open[entry] : 0;
    if (*n == 0 || *n > MAX_FLOW_CELLS || k->list[entry]) return k->list[entry];
    th_cell_ref *c = th_arena_alloc(&s->doc.arena, *n * sizeof *c);
    if (!c) return NULL;
    uint32_t i = 0;
    for (int32_t y = k->row0[entry]; y <= k->row1[entry]; y++) {
        const size_t row = (size_t)y * (size_t)s->cols;
        for (int32_t x = 0; x < s->cols; x++) {
            if (s->legend[row + (size_t)x] == entry && s->kind[row + (size_t)x] == TH_CELL_OPEN)
                c[i++] = (th_cell_ref){x, y};
        }
    }
    return k->list[entry] = c;
}

/* Whether the rectangle [x0, x1) x [y0, y1) in metres holds a cell an agent can stand on: with
 * a map, one that is neither wall nor bunker. */
static bool rect_has_ground(const th_scene *s, const float a[4]) {
    if (!s->has_map) return true;
    const float inv = 1.0f / s->cell_size;
    int32_t cx0 = (int32_t)floorf(a[0] * inv), cy0 = (int32_t)floorf(a[1] * inv);
    int32_t cx1 = (int32_t)ceilf(a[2] * inv) - 1, cy1 = (int32_t)ceilf(a[3] * inv) - 1;
    cx0 = cx0 < 0 ? 0 : cx0, cy0 = cy0 < 0 ? 0 : cy0;
    cx1 = cx1 >= s->cols ? s->cols - 1 : cx1, cy1 = cy1 >= s->rows ? s->rows - 1 : cy1;
    for (int32_t y = cy0; y <= cy1; y++) {
        for (int32_t x = cx0; x <= cx1; x++) {
            if (s->kind[(size_t)y * (size_t)s->cols + (size_t)x] == TH_CELL_OPEN) return true;
        }
    }
    return false;
}

/* `rect: [x, y, width, height]` or `cells: KEY` (one of them): the area in metres, or the open
 * cells of a legend key. A rectangle must hold open ground: a spawner there would never place
 * anyone, and no one could reach an exit there. */
static bool parse_area(th_scene *s, const th_ynode *e, const char *path, float area[4],
                       th_cell_ref **cells, uint32_t *count, th_error *err) {
    const th_ynode *r = th_ynode_get(e, "rect"), *k = th_ynode_get(e, "cells");
    char sub[128];
    if ((r != NULL) + (k != NULL) != 1) {
        return FAIL(s, e, path, err, "expected exactly one of rect or cells, found %s",
                    r ? "both" : "neither");
    }
    if (r) {
        snprintf(sub, sizeof sub, "%s.rect", path);
        double d[4];
        if (th_scene_numbers(s, r, sub, 4, 0.0, TH_MAX_WORLD_DIM, d, err) < 0) return false;
        if (!(d[2] > 0.0 && d[3] > 0.0) || (float)(d[0] + d[2]) > s->width ||
            (float)(d[1] + d[3]) > s->height) {
            return FAIL(s, r, sub, err,
                        "expected [x, y, width, height] with a positive size inside "
                        "the %g x %g m world, found [%g, %g, %g, %g]",
                        (double)s->width, (double)s->height, d[0], d[1], d[2], d[3]);
        }
        area[0] = (float)d[0];
        area[1] = (float)d[1];
        area[2] = (float)(d[0] + d[2]);
        area[3] = (float)(d[1] + d[3]);
        if (!rect_has_ground(s, area)) {
            return FAIL(s, r, sub, err,
                        "every map cell in [%g, %g, %g, %g] is wall or bunker: expected an area "
                        "with open ground",
                        d[0], d[1], d[2], d[3]);
        }
        *cells = NULL;
        *count = 0;
        return true;
    }
    snprintf(sub, sizeof sub, "%s.cells", path);
    if (!s->has_map) return FAIL(s, k, sub, err, "cells (a legend key) need a map");
    uint8_t entry;
    if (!th_scene_legend(s, k, sub, &entry, err)) return false;
    uint32_t n;
    th_cell_ref *c = key_cells(s, entry, &n);
    if (n == 0) return FAIL(s, k, sub, err, "no open cell of the map has this legend key");
    if (n > MAX_FLOW_CELLS) {
        return FAIL(s, k, sub, err, "expected at most %u cells, the key has %u", MAX_FLOW_CELLS, n);
    }
    if (!c) return TH_SCENE_NOMEM(s, k, sub, err, "out of memory");
    *cells = c;
    *count = n;
    return true;
}

static bool parse_spawners(th_scene *s, const th_ynode *n, th_error *err) {
    if (!th_scene_expect(s, n, TH_Y_SEQUENCE, "spawners", err)) return false;
    if (n->count > TH_MAX_SPAWNERS) {
        return FAIL(s, n, "spawners", err, "expected at most %d spawners, found %u",
                    TH_MAX_SPAWNERS, n->count);
    }
    s->spawner = th_arena_alloc(&s->doc.arena, (n->count ? n->count : 1) * sizeof *s->spawner);
    if (!s->spawner) return TH_SCENE_NOMEM(s, n, "spawners", err, "out of memory");
    static const char *const keys[] = {"name",  "crowd", "rect",  "cells",    "rate",
                                       "start", "stop",  "limit", "velocity", NULL};
    for (uint32_t i = 0; i < n->count; i++) {
        const th_ynode *e = n->items[i], *v;
        char path[64], sub[96];
        snprintf(path, sizeof path, "spawners[%u]", i);
        if (!th_scene_expect(s, e, TH_Y_MAPPING, path, err) ||
            !th_scene_known_keys(s, e, path, keys, err))
            return false;
        th_scene_spawner *sp = &s->spawner[i];
        memset(sp, 0, sizeof *sp);
        sp->node = e;
        const th_ynode *nodes[TH_MAX_SPAWNERS];
        for (uint32_t k = 0; k < i; k++) nodes[k] = s->spawner[k].node;
        if (!entry_name(s, e, path, "spawner", sp->name, s->spawner[0].name, sizeof *sp, i, nodes,
                        err))
            return false;
        th_spawner_def *d = &sp->def;
        *d = th_default_spawner_def();
        d->name = sp->name;
        snprintf(sub, sizeof sub, "%s.crowd", path);
        if (!(v = th_ynode_get(e, "crowd")))
            return TH_SCENE_MISSING(s, e, sub, err, "missing: the crowd its agents join");
        if (!crowd_index(s, v, sub, &d->crowd, err)) return false;
        float a[4];
        if (!parse_area(s, e, path, a, &sp->cells, &d->cell_count, err)) return false;
        d->x0 = a[0], d->y0 = a[1], d->x1 = a[2], d->y1 = a[3];
        d->cells = sp->cells;
        snprintf(sub, sizeof sub, "%s.rate", path);
        if (!(v = th_ynode_get(e, "rate")))
            return TH_SCENE_MISSING(s, e, sub, err, "missing: persons per second");
        if (!th_scene_float(s, v, sub, 0.0, TH_MAX_SPAWN_RATE, &d->rate, err)) return false;
        if (!(d->rate > 0.0))
            return FAIL(s, v, sub, err, "expected a rate above 0, found %g", d->rate);
        if ((v = th_ynode_get(e, "start"))) {
            snprintf(sub, sizeof sub, "%s.start", path);
            if (!th_scene_float(s, v, sub, 0.0, 1e9, &d->start, err)) return false;
        }
        if ((v = th_ynode_get(e, "stop"))) {
            snprintf(sub, sizeof sub, "%s.stop", path);
            if (!th_scene_float(s, v, sub, 0.0, 1e9, &d->stop, err)) return false;
            if (!(d->stop > d->start)) {
                return FAIL(s, v, sub, err, "expected a stop after the start (%g s), found %g",
                            d->start, d->stop);
            }
        }
        if ((v = th_ynode_get(e, "limit"))) {
            uint64_t u;
            snprintf(sub, sizeof sub, "%s.limit", path);
            if (!th_scene_u64(s, v, sub, 1, TH_MAX_AGENTS, &u, err)) return false;
            d->limit = (uint32_t)u;
        }
        if ((v = th_ynode_get(e, "velocity"))) {
            double xy[2];
            snprintf(sub, sizeof sub, "%s.velocity", path);
            if (th_scene_numbers(s, v, sub, 2, -TH_MAX_SPEED, TH_MAX_SPEED, xy, err) < 0)
                return false;
            d->velocity = th_v2((float)xy[0], (float)xy[1]);
        }
        s->spawner_count++;
    }
    return true;
}

static bool parse_exits(th_scene *s, const th_ynode *n, th_error *err) {
    if (!th_scene_expect(s, n, TH_Y_SEQUENCE, "exits", err)) return false;
    /* Room for the exits of `exit: true` goals, made from crowds at build time. */
    uint32_t goal_exits = 0;
    for (uint32_t c = 0; c < s->crowd_count; c++) goal_exits += s->crowd[c].goal_exit;
    if (n->count + goal_exits > TH_MAX_EXITS) {
        return FAIL(s, n, "exits", err, "expected at most %d exits (goal exits included), found %u",
                    TH_MAX_EXITS, n->count + goal_exits);
    }
    s->exit = th_arena_alloc(&s->doc.arena, (n->count ? n->count : 1) * sizeof *s->exit);
    if (!s->exit) return TH_SCENE_NOMEM(s, n, "exits", err, "out of memory");
    static const char *const keys[] = {"name", "rect", "cells", "crowds", "max_flow", NULL};
    for (uint32_t i = 0; i < n->count; i++) {
        const th_ynode *e = n->items[i], *v;
        char path[64], sub[96], item[112];
        snprintf(path, sizeof path, "exits[%u]", i);
        if (!th_scene_expect(s, e, TH_Y_MAPPING, path, err) ||
            !th_scene_known_keys(s, e, path, keys, err))
            return false;
        th_scene_exit *ex = &s->exit[i];
        memset(ex, 0, sizeof *ex);
        ex->node = e;
        const th_ynode *nodes[TH_MAX_EXITS];
        for (uint32_t k = 0; k < i; k++) nodes[k] = s->exit[k].node;
        if (!entry_name(s, e, path, "exit", ex->name, s->exit[0].name, sizeof *ex, i, nodes, err))
            return false;
        /* A crowd whose goal is `exit: true` has an exit of its own name: the report and the
         * JSON name exits, so two of one name would be told apart by nobody. */
        for (uint32_t c = 0; c < s->crowd_count; c++) {
            if (s->crowd[c].goal_exit && strcmp(s->crowd[c].name, ex->name) == 0) {
                snprintf(sub, sizeof sub, "%s.name", path);
                return FAIL(s, th_ynode_get(e, "name"), sub, err,
                            "the name '%s' is the exit of crowd '%s' (its goal has `exit: true`, "
                            "line %u): expected another name",
                            ex->name, s->crowd[c].name, s->crowd[c].goal_node->line);
            }
        }
        th_exit_def *d = &ex->def;
        *d = th_default_exit_def();
        d->name = ex->name;
        float a[4];
        if (!parse_area(s, e, path, a, &ex->cells, &d->cell_count, err)) return false;
        d->x0 = a[0], d->y0 = a[1], d->x1 = a[2], d->y1 = a[3];
        d->cells = ex->cells;
        if ((v = th_ynode_get(e, "crowds"))) {
            snprintf(sub, sizeof sub, "%s.crowds", path);
            if (!th_scene_expect(s, v, TH_Y_SEQUENCE, sub, err)) return false;
            if (v->count == 0 || v->count > TH_MAX_CROWDS) {
                return FAIL(s, v, sub, err, "expected 1 to %d crowd names, found %u", TH_MAX_CROWDS,
                            v->count);
            }
            for (uint32_t k = 0; k < v->count; k++) {
                snprintf(item, sizeof item, "%s[%u]", sub, k);
                if (!crowd_index(s, v->items[k], item, &ex->crowds[k], err)) return false;
                for (uint32_t j = 0; j < k; j++) {
                    if (ex->crowds[j].index1 == ex->crowds[k].index1) {
                        return FAIL(s, v->items[k], item, err, "crowd '%s' is listed twice",
                                    s->crowd[ex->crowds[k].index1 - 1].name);
                    }
                }
            }
            d->crowds = ex->crowds;
            d->crowd_count = v->count;
        }
        if ((v = th_ynode_get(e, "max_flow"))) {
            double q;
            snprintf(sub, sizeof sub, "%s.max_flow", path);
            if (!th_scene_float(s, v, sub, TH_SCENE_MIN_FLOW, TH_SCENE_MAX_FLOW, &q, err))
                return false;
            d->max_flow = (float)q;
        }
        s->exit_count++;
    }
    return true;
}

bool th_scene_parse_flow(th_scene *s, const th_ynode *root, th_error *err) {
    const th_ynode *v;
    if ((v = th_ynode_get(root, "spawners")) && !parse_spawners(s, v, err)) return false;
    if ((v = th_ynode_get(root, "exits")) && !parse_exits(s, v, err)) return false;
    uint32_t goal_exits = 0;
    for (uint32_t c = 0; c < s->crowd_count; c++) goal_exits += s->crowd[c].goal_exit;
    if (!v && goal_exits > TH_MAX_EXITS) {
        return FAIL(s, root, "crowds", err, "more than %d crowds have `exit: true` goals",
                    TH_MAX_EXITS);
    }
    return true;
}

uint64_t th_scene_flow_agents(const th_scene *s, uint64_t *endless) {
    uint64_t total = 0;
    *endless = 0;
    for (uint32_t i = 0; i < s->spawner_count; i++) {
        const th_spawner_def *d = &s->spawner[i].def;
        /* A bound on the world's count (th_world_add_spawner has the exact one). A spawner
         * with neither stop nor limit adds agents for as long as the run lasts: counted for
         * the scene's `steps`. */
        const bool open = isinf(d->stop) && !d->limit;
        const double until = isinf(d->stop) ? (double)s->steps * s->timestep : d->stop;
        double n = until > d->start ? ceil(d->rate * (until - d->start)) + 1.0 : 0.0;
        if (d->limit && (double)d->limit < n) n = d->limit;
        const uint64_t k = n < (double)TH_MAX_AGENTS ? (uint64_t)n : TH_MAX_AGENTS;
        total += k;
        if (open) *endless += k;
    }
    return total;
}

bool th_scene_build_flow(th_world *w, const th_scene *s, th_error *err) {
    char path[64];
    /* Goal exits first, crowd by crowd: they are part of the crowds. */
    for (uint32_t c = 0; c < s->crowd_count; c++) {
        if (!s->crowd[c].goal_exit) continue;
        th_exit_def d = th_default_exit_def();
        d.name = s->crowd[c].name;
        const th_crowd_id crowd = {c + 1};
        d.field = th_world_get_crowd(w, crowd)->goal.field;
        d.crowds = &crowd;
        d.crowd_count = 1;
        d.max_flow = s->crowd[c].goal_exit_max_flow;
        if (!th_exit_id_valid(th_world_add_exit(w, &d, err))) {
            snprintf(path, sizeof path, "crowds[%u].goal.exit", c);
            return th_scene_refused(s, s->crowd[c].goal_node, path, err);
        }
    }
    for (uint32_t i = 0; i < s->exit_count; i++) {
        if (!th_exit_id_valid(th_world_add_exit(w, &s->exit[i].def, err))) {
            snprintf(path, sizeof path, "exits[%u]", i);
            return th_scene_refused(s, s->exit[i].node, path, err);
        }
    }
    for (uint32_t i = 0; i < s->spawner_count; i++) {
        if (!th_spawner_id_valid(th_world_add_spawner(w, &s->spawner[i].def, err))) {
            snprintf(path, sizeof path, "spawners[%u]", i);
            return th_scene_refused(s, s->spawner[i].node, path, err);
        }
    }
    return true;
}
