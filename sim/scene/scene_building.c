/* The scene's `levels`, `stairs` and `elevators` sections: a building drawn on the one map
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
 *     elevators:
 *       - name: lift
 *         stops: [{level: ground, cell: [14, 9]}, {level: first, cell: [45, 9]}]
 *         capacity: 8
 *         speed: 1.0               # m/s; door_time, dwell, board_time, acceleration, radius
 *         policy: collective       # stops on the way down for those who called (or shuttle)
 *         patience: 60             # s an agent waits before it takes the stairs (0: for ever)
 *         crowds: [staff]          # the crowds it serves
 *
 * The shapes of the values are checked here at their line and column; what depends on the map
 * (walls where the seam must be, overlapping levels) is checked by the world and reported at
 * the entry that asked for it. */
#include <stddef.h>
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

/* ---- elevators --------------------------------------------------------------------------- */

/* A level by name (a scalar node), or -1. */
static int find_level(const th_scene *s, const th_ynode *v) {
    if (v->kind != TH_Y_SCALAR) return -1;
    for (uint32_t l = 0; l < s->level_count; l++) {
        if (strlen(s->level[l].name) == v->len && memcmp(s->level[l].name, v->text, v->len) == 0)
            return (int)l;
    }
    return -1;
}

/* The stop on level `v` (a level's name), or a failure at v. */
static bool stop_named(const th_scene *s, const th_scene_elevator *el, const th_ynode *v,
                       const char *sub, uint32_t *out, th_error *err) {
    char buf[64];
    const int l = find_level(s, v);
    for (uint32_t i = 0; l >= 0 && i < el->stop_count; i++) {
        if (el->stop_level[i] == (uint32_t)l) {
            *out = i;
            return true;
        }
    }
    return FAIL(s, v, sub, err, "expected the level of one of the elevator's stops, found %s",
                th_scene_found(v, buf, sizeof buf));
}

static bool parse_stops(th_scene *s, th_scene_elevator *el, const th_ynode *n, const char *path,
                        th_error *err) {
    char sub[128], buf[64];
    if (!th_scene_expect(s, n, TH_Y_SEQUENCE, path, err)) return false;
    if (n->count < 2 || n->count > TH_MAX_ELEVATOR_STOPS)
        return FAIL(s, n, path, err, "expected 2 to %d stops, found %u", TH_MAX_ELEVATOR_STOPS,
                    n->count);
    static const char *const keys[] = {"level", "cell", NULL};
    for (uint32_t i = 0; i < n->count; i++) {
        const th_ynode *e = n->items[i], *v;
        char at[112];
        snprintf(at, sizeof at, "%s[%u]", path, i);
        if (!th_scene_expect(s, e, TH_Y_MAPPING, at, err) ||
            !th_scene_known_keys(s, e, at, keys, err))
            return false;
        snprintf(sub, sizeof sub, "%s.level", at);
        if (!(v = required(s, e, "level", at, err))) return false;
        const int l = find_level(s, v);
        if (l < 0)
            return FAIL(s, v, sub, err, "expected the name of a level, found %s",
                        th_scene_found(v, buf, sizeof buf));
        for (uint32_t j = 0; j < i; j++) {
            if (el->stop_level[j] == (uint32_t)l)
                return FAIL(s, v, sub, err, "level '%s' has a stop already (stop %u); one a level",
                            s->level[l].name, j);
        }
        el->stop_level[i] = (uint32_t)l;
        snprintf(sub, sizeof sub, "%s.cell", at);
        if (!(v = required(s, e, "cell", at, err)) || !cells(s, v, sub, 2, el->stop_cell[i], err))
            return false;
        const int32_t *r = s->level[l].rect, x = el->stop_cell[i][0], y = el->stop_cell[i][1];
        if (x < r[0] || x > r[2] || y < r[1] || y > r[3])
            return FAIL(s, v, sub, err, "cell (%d, %d) is not on level '%s' [%d, %d, %d, %d]", x, y,
                        s->level[l].name, r[0], r[1], r[2], r[3]);
        el->stop_count++;
    }
    return true;
}

bool th_scene_parse_elevators(th_scene *s, const th_ynode *n, th_error *err) {
    if (!th_scene_expect(s, n, TH_Y_SEQUENCE, "elevators", err)) return false;
    if (s->level_count < 2)
        return FAIL(s, n, "elevators", err,
                    "elevators join levels; expected `levels` with at least two");
    if (n->count > TH_MAX_ELEVATORS)
        return FAIL(s, n, "elevators", err, "expected at most %d elevators, found %u",
                    TH_MAX_ELEVATORS, n->count);
    s->elevator = th_arena_alloc(&s->doc.arena, (n->count ? n->count : 1) * sizeof *s->elevator);
    if (!s->elevator) return TH_SCENE_NOMEM(s, n, "elevators", err, "out of memory");
    static const char *const keys[] = {
        "name",   "stops",        "discharge", "start",    "capacity",
        "speed",  "acceleration", "door_time", "dwell",    "board_time",
        "radius", "crowds",       "policy",    "patience", NULL};
    static const struct {
        const char *key;
        double lo, hi;
        size_t at;
    } nums[] = {
        {"speed", 0.01, 100.0, offsetof(th_scene_elevator, speed)},
        {"acceleration", 0.0, 100.0, offsetof(th_scene_elevator, acceleration)},
        {"door_time", 0.0, 600.0, offsetof(th_scene_elevator, door_time)},
        {"dwell", 0.0, 3600.0, offsetof(th_scene_elevator, dwell)},
        {"board_time", 0.0, 600.0, offsetof(th_scene_elevator, board_time)},
        {"radius", 0.1, 50.0, offsetof(th_scene_elevator, radius)},
        {"patience", 0.0, 86400.0, offsetof(th_scene_elevator, patience)},
    };
    for (uint32_t i = 0; i < n->count; i++) {
        const th_ynode *e = n->items[i], *v;
        char path[64], sub[96], buf[64];
        snprintf(path, sizeof path, "elevators[%u]", i);
        if (!th_scene_expect(s, e, TH_Y_MAPPING, path, err) ||
            !th_scene_known_keys(s, e, path, keys, err))
            return false;
        th_scene_elevator *el = &s->elevator[i];
        memset(el, 0, sizeof *el);
        el->node = e;
        /* The defaults (docs/scene-format.md). */
        el->door_time = 2.0f;
        el->dwell = 2.0f;
        el->board_time = 1.0f;
        el->radius = 1.5f;
        snprintf(sub, sizeof sub, "%s.name", path);
        if (!(v = required(s, e, "name", path, err)) ||
            !th_scene_name(s, v, sub, el->name, sizeof el->name, err))
            return false;
        for (uint32_t j = 0; j < i; j++) {
            if (strcmp(s->elevator[j].name, el->name) == 0)
                return FAIL(s, v, sub, err, "elevator '%s' is named twice (first at line %u)",
                            el->name, s->elevator[j].node->line);
        }
        snprintf(sub, sizeof sub, "%s.stops", path);
        if (!(v = required(s, e, "stops", path, err)) || !parse_stops(s, el, v, sub, err))
            return false;
        /* The discharge stop: named, or the lowest (the first listed of equals). */
        el->discharge = 0;
        for (uint32_t k = 1; k < el->stop_count; k++) {
            if (s->level[el->stop_level[k]].elevation <
                s->level[el->stop_level[el->discharge]].elevation)
                el->discharge = k;
        }
        if ((v = th_ynode_get(e, "discharge"))) {
            snprintf(sub, sizeof sub, "%s.discharge", path);
            if (!stop_named(s, el, v, sub, &el->discharge, err)) return false;
        }
        el->start = el->discharge;
        if ((v = th_ynode_get(e, "start"))) {
            snprintf(sub, sizeof sub, "%s.start", path);
            if (!stop_named(s, el, v, sub, &el->start, err)) return false;
        }
        uint64_t u;
        snprintf(sub, sizeof sub, "%s.capacity", path);
        if (!(v = required(s, e, "capacity", path, err)) ||
            !th_scene_u64(s, v, sub, 1, TH_MAX_CAR, &u, err))
            return false;
        el->capacity = (uint32_t)u;
        if (!required(s, e, "speed", path, err)) return false;
        for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++) {
            double d;
            if (!(v = th_ynode_get(e, nums[k].key))) continue;
            snprintf(sub, sizeof sub, "%s.%s", path, nums[k].key);
            if (!th_scene_float(s, v, sub, nums[k].lo, nums[k].hi, &d, err)) return false;
            *(float *)((char *)el + nums[k].at) = (float)d;
        }
        if ((v = th_ynode_get(e, "policy"))) {
            snprintf(sub, sizeof sub, "%s.policy", path);
            if (v->kind == TH_Y_SCALAR && v->len == 7 && memcmp(v->text, "shuttle", 7) == 0)
                el->policy = TH_ELEVATOR_SHUTTLE;
            else if (v->kind == TH_Y_SCALAR && v->len == 10 &&
                     memcmp(v->text, "collective", 10) == 0)
                el->policy = TH_ELEVATOR_COLLECTIVE;
            else
                return FAIL(s, v, sub, err, "expected shuttle or collective, found %s",
                            th_scene_found(v, buf, sizeof buf));
        }
        snprintf(sub, sizeof sub, "%s.crowds", path);
        if (!(v = required(s, e, "crowds", path, err)) ||
            !th_scene_expect(s, v, TH_Y_SEQUENCE, sub, err))
            return false;
        if (v->count < 1 || v->count > TH_MAX_CROWDS)
            return FAIL(s, v, sub, err, "expected 1 to %d crowds, found %u", TH_MAX_CROWDS,
                        v->count);
        for (uint32_t k = 0; k < v->count; k++) {
            const th_ynode *cn = v->items[k];
            char at[112];
            snprintf(at, sizeof at, "%s[%u]", sub, k);
            const int c = th_scene_find_crowd(s, cn);
            if (c < 0)
                return FAIL(s, cn, at, err, "expected the name of a crowd, found %s",
                            th_scene_found(cn, buf, sizeof buf));
            if (s->crowd[c].def.model != TH_MODEL_PEDESTRIAN)
                return FAIL(s, cn, at, err,
                            "crowd '%s' is not of the pedestrian model: elevators carry "
                            "pedestrians",
                            s->crowd[c].name);
            for (uint32_t j = 0; j <= i; j++) {
                const th_scene_elevator *o = &s->elevator[j];
                for (uint32_t m = 0; m < (j == i ? k : o->crowd_count); m++) {
                    if (o->crowd[m] == (uint32_t)c)
                        return FAIL(s, cn, at, err,
                                    "crowd '%s' is served by elevator '%s' already; a crowd "
                                    "rides one elevator",
                                    s->crowd[c].name, o->name);
                }
            }
            el->crowd[el->crowd_count++] = (uint32_t)c;
        }
        s->elevator_count++;
    }
    return true;
}

bool th_scene_build_elevators(th_world *w, const th_scene *s, th_error *err) {
    for (uint32_t i = 0; i < s->elevator_count; i++) {
        const th_scene_elevator *el = &s->elevator[i];
        th_elevator_def d = {
            .name = el->name,
            .stop_count = el->stop_count,
            .discharge = el->discharge,
            .start = el->start,
            .capacity = el->capacity,
            .speed = el->speed,
            .acceleration = el->acceleration,
            .door_time = el->door_time,
            .dwell = el->dwell,
            .board_time = el->board_time,
            .radius = el->radius,
            .crowd_count = el->crowd_count,
            .policy = el->policy,
            .patience = el->patience,
        };
        th_crowd_id crowds[TH_MAX_CROWDS];
        for (uint32_t k = 0; k < el->crowd_count; k++) crowds[k] = (th_crowd_id){el->crowd[k] + 1};
        d.crowds = crowds;
        for (uint32_t k = 0; k < el->stop_count; k++) {
            d.stops[k] = (th_elevator_stop){
                {el->stop_level[k] + 1}, el->stop_cell[k][0], el->stop_cell[k][1]};
        }
        char path[64];
        snprintf(path, sizeof path, "elevators[%u]", i);
        if (!th_world_add_elevator(w, &d, err).index1)
            return th_scene_refused(s, el->node, path, err);
    }
    return true;
}
