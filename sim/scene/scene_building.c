/* The scene's `levels` and `stairs` sections: a building drawn on the one map
 * (include/throng/building.h, docs/buildings.md).
 *
 *     levels:
 *       - {name: ground, cells: [0, 0, 29, 19], elevation: 0}
 *       - {name: first, cells: [31, 0, 60, 19], elevation: 3.5}
 *     stairs:
 *       - name: west
 *         cells: [2, 4, 3, 11]     # the flight, on its lower level
 *         up: north                # the way up it
 *         landing: [33, 12]        # the landing's first cell, across the flight's top edge
 *         speed_up: 0.5            # along the slope, times the free speed (default Weidmann's)
 *
 * The shapes of the values are checked here at their line and column; what depends on the map
 * (walls where the seam must be, overlapping levels) is checked by the world and reported at
 * the entry that asked for it. */
#include <stdio.h>
#include <string.h>

#include "engine/arena.h"
#include "sim/scene/scene_internal.h"

#define FAIL(s, n, path, err, ...) th_scene_fail((s), (n), (path), (err), __VA_ARGS__)

/* A rectangle of whole cells [x0, y0, x1, y1] (or one cell [x, y] when `count` is 2). */
static bool cells(const th_scene *s, const th_ynode *v, const char *path, int count, int32_t *out,
                  th_error *err) {
    double d[4];
    if (th_scene_numbers(s, v, path, count, 0, 4095, d, err) < 0) return false;
    for (int i = 0; i < count; i++) {
        if (d[i] != (double)(int32_t)d[i])
            return FAIL(s, v, path, err, "expected whole cell numbers, found %g", d[i]);
        out[i] = (int32_t)d[i];
    }
    if (count == 4 && (out[0] > out[2] || out[1] > out[3]))
        return FAIL(s, v, path, err, "expected x0 <= x1 and y0 <= y1, found [%d, %d, %d, %d]",
                    out[0], out[1], out[2], out[3]);
    const int32_t xs = count == 4 ? out[2] : out[0], ys = count == 4 ? out[3] : out[1];
    if (xs >= s->cols || ys >= s->rows)
        return FAIL(s, v, path, err, "cell (%d, %d) is off the %d x %d map", xs, ys, s->cols,
                    s->rows);
    return true;
}

static const th_ynode *required(const th_scene *s, const th_ynode *e, const char *key,
                                const char *path, th_error *err) {
    const th_ynode *v = th_ynode_get(e, key);
    if (!v) TH_SCENE_MISSING(s, e, path, err, "missing: expected `%s`", key);
    return v;
}

bool th_scene_parse_levels(th_scene *s, const th_ynode *n, th_error *err) {
    if (!th_scene_expect(s, n, TH_Y_SEQUENCE, "levels", err)) return false;
    if (!s->has_map)
        return FAIL(s, n, "levels", err, "levels are regions of the map; the scene has no `map`");
    if (n->count < 1 || n->count > TH_MAX_LEVELS)
        return FAIL(s, n, "levels", err, "expected 1 to %d levels, found %u", TH_MAX_LEVELS,
                    n->count);
    s->level = th_arena_alloc(&s->doc.arena, n->count * sizeof *s->level);
    if (!s->level) return TH_SCENE_NOMEM(s, n, "levels", err, "out of memory");
    static const char *const keys[] = {"name", "cells", "elevation", NULL};
    for (uint32_t i = 0; i < n->count; i++) {
        const th_ynode *e = n->items[i], *v;
        char path[64], sub[96];
        snprintf(path, sizeof path, "levels[%u]", i);
        if (!th_scene_expect(s, e, TH_Y_MAPPING, path, err) ||
            !th_scene_known_keys(s, e, path, keys, err))
            return false;
        th_scene_level *l = &s->level[i];
        memset(l, 0, sizeof *l);
        l->node = e;
        snprintf(sub, sizeof sub, "%s.name", path);
        if (!(v = required(s, e, "name", path, err)) ||
            !th_scene_name(s, v, sub, l->name, sizeof l->name, err))
            return false;
        for (uint32_t j = 0; j < i; j++) {
            if (strcmp(s->level[j].name, l->name) == 0)
                return FAIL(s, v, sub, err, "level '%s' is named twice (first at line %u)", l->name,
                            s->level[j].node->line);
        }
        snprintf(sub, sizeof sub, "%s.cells", path);
        if (!(v = required(s, e, "cells", path, err)) || !cells(s, v, sub, 4, l->rect, err))
            return false;
        if ((v = th_ynode_get(e, "elevation"))) {
            double d;
            snprintf(sub, sizeof sub, "%s.elevation", path);
            if (!th_scene_float(s, v, sub, -1.0e4, 1.0e4, &d, err)) return false;
            l->elevation = (float)d;
        }
        s->level_count++;
    }
    return true;
}

bool th_scene_parse_stairs(th_scene *s, const th_ynode *n, th_error *err) {
    if (!th_scene_expect(s, n, TH_Y_SEQUENCE, "stairs", err)) return false;
    if (s->level_count < 2)
        return FAIL(s, n, "stairs", err, "stairs join levels; expected `levels` with at least two");
    if (n->count > TH_MAX_STAIRS)
        return FAIL(s, n, "stairs", err, "expected at most %d stairs, found %u", TH_MAX_STAIRS,
                    n->count);
    s->stair = th_arena_alloc(&s->doc.arena, (n->count ? n->count : 1) * sizeof *s->stair);
    if (!s->stair) return TH_SCENE_NOMEM(s, n, "stairs", err, "out of memory");
    static const char *const keys[] = {"name",   "cells",    "up",         "landing",
                                       "length", "speed_up", "speed_down", NULL};
    static const char *const ways[] = {"east", "north", "west", "south"};
    for (uint32_t i = 0; i < n->count; i++) {
        const th_ynode *e = n->items[i], *v;
        char path[64], sub[96], buf[64];
        snprintf(path, sizeof path, "stairs[%u]", i);
        if (!th_scene_expect(s, e, TH_Y_MAPPING, path, err) ||
            !th_scene_known_keys(s, e, path, keys, err))
            return false;
        th_scene_stair *st = &s->stair[i];
        memset(st, 0, sizeof *st);
        st->node = e;
        snprintf(sub, sizeof sub, "%s.name", path);
        if (!(v = required(s, e, "name", path, err)) ||
            !th_scene_name(s, v, sub, st->name, sizeof st->name, err))
            return false;
        for (uint32_t j = 0; j < i; j++) {
            if (strcmp(s->stair[j].name, st->name) == 0)
                return FAIL(s, v, sub, err, "stair '%s' is named twice (first at line %u)",
                            st->name, s->stair[j].node->line);
        }
        snprintf(sub, sizeof sub, "%s.cells", path);
        if (!(v = required(s, e, "cells", path, err)) || !cells(s, v, sub, 4, st->rect, err))
            return false;
        snprintf(sub, sizeof sub, "%s.up", path);
        if (!(v = required(s, e, "up", path, err))) return false;
        st->up = -1;
        for (int k = 0; k < 4; k++) {
            if (v->kind == TH_Y_SCALAR && strlen(ways[k]) == v->len &&
                memcmp(ways[k], v->text, v->len) == 0)
                st->up = k;
        }
        if (st->up < 0)
            return FAIL(s, v, sub, err, "expected east, north, west or south, found %s",
                        th_scene_found(v, buf, sizeof buf));
        snprintf(sub, sizeof sub, "%s.landing", path);
        if (!(v = required(s, e, "landing", path, err)) || !cells(s, v, sub, 2, st->landing, err))
            return false;
        double d;
        if ((v = th_ynode_get(e, "length"))) {
            snprintf(sub, sizeof sub, "%s.length", path);
            if (!th_scene_float(s, v, sub, 0.01, 1.0e4, &d, err)) return false;
            st->length = (float)d;
        }
        if ((v = th_ynode_get(e, "speed_up"))) {
            snprintf(sub, sizeof sub, "%s.speed_up", path);
            if (!th_scene_float(s, v, sub, 0.01, 2.0, &d, err)) return false;
            st->speed_up = (float)d;
        }
        if ((v = th_ynode_get(e, "speed_down"))) {
            snprintf(sub, sizeof sub, "%s.speed_down", path);
            if (!th_scene_float(s, v, sub, 0.01, 2.0, &d, err)) return false;
            st->speed_down = (float)d;
        }
        s->stair_count++;
    }
    return true;
}

bool th_scene_build_building(th_world *w, const th_scene *s, th_error *err) {
    char path[64];
    for (uint32_t i = 0; i < s->level_count; i++) {
        const th_scene_level *l = &s->level[i];
        th_level_def d = {l->name, l->rect[0], l->rect[1], l->rect[2], l->rect[3], l->elevation};
        snprintf(path, sizeof path, "levels[%u]", i);
        if (!th_world_add_level(w, &d, err).index1) return th_scene_refused(s, l->node, path, err);
    }
    for (uint32_t i = 0; i < s->stair_count; i++) {
        const th_scene_stair *st = &s->stair[i];
        th_stair_def d = {st->name,    st->rect[0],          st->rect[1],    st->rect[2],
                          st->rect[3], (th_stair_way)st->up, st->landing[0], st->landing[1],
                          st->length,  st->speed_up,         st->speed_down};
        snprintf(path, sizeof path, "stairs[%u]", i);
        if (!th_world_add_stair(w, &d, err).index1) return th_scene_refused(s, st->node, path, err);
    }
    return true;
}
