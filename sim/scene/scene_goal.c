/* A crowd's `goal` in a scene file.
 *
 *     goal: shelter                       # the nearest open bunker (as `behavior: flee`)
 *     goal: wander                        # or {wander: {rate: 90}}
 *     goal:
 *       destinations:                     # the cheapest of these, weights included
 *         - {cells: [x0, y0, x1, y1], weight: 0}
 *         - {legend: "E", weight: 15}     # every cell of a legend key
 *         - {at: [x, y]}                  # the cell holding a point, metres
 *     goal:
 *       destinations: [...]
 *       congestion: {weight: 0.5, every: 10}  # route around crowds (docs/goals.md)
 *     goal: {route: [[x, y], ...], mode: patrol, radius: 1.5}
 *     goal: {destinations: [...], exit: true}  # agents on a goal cell leave
 * (sim/scene/scene_flow.c)
 *
 * Everything the world would refuse is checked here, so that an error points at the value
 * (file:line:column); the world then gets the same values through the public API. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/arena.h"
#include "sim/behave/goal.h"
#include "sim/core/world.h"
#include "sim/scene/scene_internal.h"

#define FAIL(s, n, path, err, ...) th_scene_fail((s), (n), (path), (err), __VA_ARGS__)

/* Most goal cells of one destination field (th_world_add_destinations). */
#define MAX_GOAL_CELLS 65536u

static bool parse_word(th_scene *s, th_scene_crowd *cr, const th_ynode *v, const char *path,
                       th_error *err) {
    static const char *const words[] = {"none", "shelter", "wander", NULL};
    char buf[64];
    for (int i = 0; words[i]; i++) {
        if (strlen(words[i]) == v->len && memcmp(words[i], v->text, v->len) == 0) {
            cr->def.goal.kind = i == 0 ? TH_GOAL_NONE : i == 1 ? TH_GOAL_SHELTER : TH_GOAL_WANDER;
            return true;
        }
    }
    return FAIL(s, v, path, err,
                "expected none, shelter, wander, or a mapping with destinations, "
                "route or wander, found %s",
                th_scene_found(v, buf, sizeof buf));
}

/* Append the open cells of rectangle r to cr->dest (blocked cells are an error: a goal in a wall
 * is a typo, not a wish). */
static bool add_cells(th_scene *s, th_scene_crowd *cr, const th_ynode *at, const char *path,
                      const int32_t r[4], float weight, uint32_t cap, th_error *err) {
    for (int32_t y = r[1]; y <= r[3]; y++) {
        for (int32_t x = r[0]; x <= r[2]; x++) {
            const size_t i = (size_t)y * (size_t)s->cols + (size_t)x;
            if (s->kind[i] != TH_CELL_OPEN) {
                return FAIL(s, at, path, err,
                            "cell (%d, %d) is a wall; destinations must be open "
                            "cells",
                            x, y);
            }
            if (cr->dest_count == cap) {
                return FAIL(s, at, path, err, "more than %u goal cells in one crowd's destinations",
                            MAX_GOAL_CELLS);
            }
            cr->dest[cr->dest_count++] = (th_destination){x, y, weight};
        }
    }
    return true;
}

/* The first `limit` cells of legend entry `entry`, row by row (the order its destinations take
 * them), as x, y pairs: found with one pass over the map, kept for the entries that name the
 * key again, so a list of such entries costs one pass a key, not one an entry. `limit` is one
 * more than a crowd's goal cells, so the cells kept give every entry's cells until its error. */
typedef struct legend_goal_cells {
    int32_t *xy[TH_SCENE_MAX_LEGEND];
    uint32_t count[TH_SCENE_MAX_LEGEND];
    bool found[TH_SCENE_MAX_LEGEND];
} legend_goal_cells;

static bool legend_goal_cells_of(th_scene *s, legend_goal_cells *lc, uint8_t entry,
                                 uint32_t limit) {
    if (lc->found[entry]) return true;
    const size_t cells = (size_t)s->cols * (size_t)s->rows;
    uint32_t n = 0;
    for (size_t i = 0; i < cells && n < limit; i++) n += s->legend[i] == entry;
    int32_t *xy = th_arena_alloc(&s->doc.arena, (n ? n : 1) * 2 * sizeof *xy);
    if (!xy) return false;
    uint32_t k = 0;
    for (int32_t y = 0; y < s->rows && k < n; y++) {
        for (int32_t x = 0; x < s->cols && k < n; x++) {
            if (s->legend[(size_t)y * (size_t)s->cols + (size_t)x] != entry) continue;
            xy[2 * k] = x;
            xy[2 * k + 1] = y;
            k++;
        }
    }
    lc->xy[entry] = xy;
    lc->count[entry] = n;
    lc->found[entry] = true;
    return true;
}

static bool parse_destinations(th_scene *s, th_scene_crowd *cr, const th_ynode *n, const char *path,
                               th_error *err) {
    if (!s->has_map)
        return FAIL(s, n, path, err,
                    "destinations need a map (their fields are "
                    "computed over its cells)");
    if (!th_scene_expect(s, n, TH_Y_SEQUENCE, path, err)) return false;
    if (n->count == 0)
        return FAIL(s, n, path, err, "expected at least one destination, found an empty list");
    /* Room for every cell a destination may name: counted first, so the array is allocated once. */
    uint64_t cap = 0;
    static const char *const keys[] = {"cells", "at", "legend", "weight", NULL};
    for (uint32_t i = 0; i < n->count; i++) {
        char item[192];
        snprintf(item, sizeof item, "%s[%u]", path, i);
        const th_ynode *e = n->items[i];
        if (!th_scene_expect(s, e, TH_Y_MAPPING, item, err) ||
            !th_scene_known_keys(s, e, item, keys, err))
            return false;
        uint32_t where = (th_ynode_get(e, "cells") != NULL) + (th_ynode_get(e, "at") != NULL) +
                         (th_ynode_get(e, "legend") != NULL);
        if (where != 1) {
            return FAIL(s, e, item, err, "expected exactly one of cells, at or legend, found %u",
                        where);
        }
    }
    cap = (uint64_t)s->cols * (uint64_t)s->rows;
    if (cap > MAX_GOAL_CELLS) cap = MAX_GOAL_CELLS;
    cr->dest = th_arena_alloc(&s->doc.arena, (size_t)cap * sizeof *cr->dest);
    if (!cr->dest) return TH_SCENE_NOMEM(s, n, path, err, "out of memory");
    cr->dest_count = 0;
    legend_goal_cells by_key = {0};
    for (uint32_t i = 0; i < n->count; i++) {
        char item[192], sub[224];
        snprintf(item, sizeof item, "%s[%u]", path, i);
        const th_ynode *e = n->items[i], *v;
        double weight = 0.0;
        if ((v = th_ynode_get(e, "weight"))) {
            snprintf(sub, sizeof sub, "%s.weight", item);
            /* The field's bound on a weight, in metres: TH_NAV_MAX_WEIGHT units at the map's
             * cell size; 100 km is far inside it for every cell size. */
            if (!th_scene_float(s, v, sub, 0.0, 1e5, &weight, err)) return false;
        }
        if ((v = th_ynode_get(e, "cells"))) {
            snprintf(sub, sizeof sub, "%s.cells", item);
            double d[4];
            if (th_scene_numbers(s, v, sub, 4, -1e9, 1e9, d, err) < 0) return false;
            int32_t r[4];
            for (int k = 0; k < 4; k++) {
                if (d[k] != floor(d[k]))
                    return FAIL(s, v->items[k], sub, err, "expected whole cell numbers, found %g",
                                d[k]);
                r[k] = (int32_t)d[k];
            }
            if (r[0] > r[2] || r[1] > r[3] || r[0] < 0 || r[1] < 0 || r[2] >= s->cols ||
                r[3] >= s->rows) {
                return FAIL(s, v, sub, err,
                            "expected [x0, y0, x1, y1] with x0 <= x1, y0 <= y1 on the "
                            "%d x %d map, found [%d, %d, %d, %d]",
                            s->cols, s->rows, r[0], r[1], r[2], r[3]);
            }
            if (!add_cells(s, cr, v, sub, r, (float)weight, (uint32_t)cap, err)) return false;
        } else if ((v = th_ynode_get(e, "at"))) {
            snprintf(sub, sizeof sub, "%s.at", item);
            double xy[2];
            if (th_scene_numbers(s, v, sub, 2, 0.0, TH_MAX_WORLD_DIM, xy, err) < 0) return false;
            if (!((float)xy[0] < s->width && (float)xy[1] < s->height)) {
                return FAIL(s, v, sub, err,
                            "expected a point inside the %g x %g m world, found [%g, %g]",
                            (double)s->width, (double)s->height, xy[0], xy[1]);
            }
            int32_t x = (int32_t)floorf((float)xy[0] / s->cell_size);
            int32_t y = (int32_t)floorf((float)xy[1] / s->cell_size);
            if (x >= s->cols) x = s->cols - 1;
            if (y >= s->rows) y = s->rows - 1;
            const int32_t r[4] = {x, y, x, y};
            if (!add_cells(s, cr, v, sub, r, (float)weight, (uint32_t)cap, err)) return false;
        } else {
            v = th_ynode_get(e, "legend");
            snprintf(sub, sizeof sub, "%s.legend", item);
            uint8_t entry;
            if (!th_scene_legend(s, v, sub, &entry, err)) return false;
            if (!legend_goal_cells_of(s, &by_key, entry, (uint32_t)cap + 1u))
                return TH_SCENE_NOMEM(s, v, sub, err, "out of memory");
            const int32_t *xy = by_key.xy[entry];
            for (uint32_t k = 0; k < by_key.count[entry]; k++) {
                const int32_t r[4] = {xy[2 * k], xy[2 * k + 1], xy[2 * k], xy[2 * k + 1]};
                if (!add_cells(s, cr, v, sub, r, (float)weight, (uint32_t)cap, err)) return false;
            }
            if (by_key.count[entry] == 0)
                return FAIL(s, v, sub, err, "no cell of the map has this legend key");
        }
    }
    cr->def.goal.kind = TH_GOAL_DESTINATIONS;
    return true;
}

static bool scene_blocked(const void *ctx, int32_t x, int32_t y) {
    const th_scene *s = ctx;
    if (x < 0 || y < 0 || x >= s->cols || y >= s->rows) return true;
    return s->kind[(size_t)y * (size_t)s->cols + (size_t)x] != TH_CELL_OPEN;
}

/* Agents walk a route's legs in straight lines: a leg through a wall (or a destructible wall
 * still standing) cannot be walked. Reported at the waypoint the leg leads to; a loop's closing
 * leg from the last waypoint back to the first at the last one. */
static bool check_legs(const th_scene *s, const th_ynode *goal, const th_ynode *n, const char *path,
                       const th_vec2 *pts, uint32_t count, th_error *err) {
    bool loop = false;
    const th_ynode *v = th_ynode_get(goal, "mode");
    if (v && v->kind == TH_Y_SCALAR && v->len == 4 && memcmp(v->text, "loop", 4) == 0) loop = true;
    const uint32_t legs = count - 1u + (loop && count > 2u);
    for (uint32_t i = 0; i < legs; i++) {
        const uint32_t j = (i + 1u) % count;
        int32_t bx, by;
        if (!th_goal_leg_blocked(pts[i], pts[j], s->cell_size, s->cols, s->rows,
                                 s->bounds == TH_BOUNDS_WRAP, scene_blocked, s, &bx, &by))
            continue;
        const uint32_t at = j == 0 ? i : j;
        char sub[192];
        snprintf(sub, sizeof sub, "%s[%u]", path, at);
        const bool destructible =
            s->kind[(size_t)by * (size_t)s->cols + (size_t)bx] == TH_CELL_DESTRUCTIBLE;
        return FAIL(s, n->items[at], sub, err,
                    "the %sleg from waypoint %u (%g, %g) to waypoint %u "
                    "(%g, %g) crosses %s cell (%d, %d); routes walk straight legs, so add a "
                    "waypoint that goes around it",
                    j == 0 ? "closing " : "", i, (double)pts[i].x, (double)pts[i].y, j,
                    (double)pts[j].x, (double)pts[j].y, destructible ? "destructible wall" : "wall",
                    bx, by);
    }
    return true;
}

bool th_scene_open_point(th_scene *s, const th_ynode *v, const char *path, const char *what,
                         th_vec2 *out, th_error *err) {
    double xy[2];
    if (th_scene_numbers(s, v, path, 2, 0.0, TH_MAX_WORLD_DIM, xy, err) < 0) return false;
    const float x = (float)xy[0], y = (float)xy[1];
    if (!(x < s->width && y < s->height)) {
        return FAIL(s, v, path, err, "expected a point inside the %g x %g m world, found [%g, %g]",
                    (double)s->width, (double)s->height, xy[0], xy[1]);
    }
    if (s->has_map && !th_scene_open_at(s, x, y, false)) {
        return FAIL(s, v, path, err, "%s (%g, %g) is inside a wall", what, xy[0], xy[1]);
    }
    *out = th_v2(x, y);
    return true;
}

static bool parse_route(th_scene *s, th_scene_crowd *cr, const th_ynode *goal, const th_ynode *n,
                        const char *gpath, th_error *err) {
    char path[160], sub[192];
    snprintf(path, sizeof path, "%s.route", gpath);
    if (!th_scene_expect(s, n, TH_Y_SEQUENCE, path, err)) return false;
    if (n->count == 0 || n->count > TH_MAX_ROUTE_POINTS) {
        return FAIL(s, n, path, err, "expected 1 to %d waypoints, found %u", TH_MAX_ROUTE_POINTS,
                    n->count);
    }
    th_vec2 *pts = th_arena_alloc(&s->doc.arena, n->count * sizeof *pts);
    if (!pts) return TH_SCENE_NOMEM(s, n, path, err, "out of memory");
    for (uint32_t i = 0; i < n->count; i++) {
        snprintf(sub, sizeof sub, "%s[%u]", path, i);
        if (!th_scene_open_point(s, n->items[i], sub, "waypoint", &pts[i], err)) return false;
    }
    if (s->has_map && !check_legs(s, goal, n, path, pts, n->count, err)) return false;
    th_goal_def *g = &cr->def.goal;
    g->kind = TH_GOAL_ROUTE;
    g->points = pts;
    g->point_count = n->count;
    const th_ynode *v;
    if ((v = th_ynode_get(goal, "mode"))) {
        static const char *const words[] = {"once", "loop", "patrol", NULL};
        char buf[64];
        snprintf(sub, sizeof sub, "%s.mode", gpath);
        int m = -1;
        for (int i = 0; words[i] && v->kind == TH_Y_SCALAR; i++) {
            if (strlen(words[i]) == v->len && memcmp(words[i], v->text, v->len) == 0) m = i;
        }
        if (m < 0)
            return FAIL(s, v, sub, err, "expected once, loop or patrol, found %s",
                        th_scene_found(v, buf, sizeof buf));
        g->mode = m == 0 ? TH_ROUTE_ONCE : m == 1 ? TH_ROUTE_LOOP : TH_ROUTE_PATROL;
    }
    if ((v = th_ynode_get(goal, "radius"))) {
        double r;
        snprintf(sub, sizeof sub, "%s.radius", gpath);
        if (!th_scene_float(s, v, sub, 0.01, 1000.0, &r, err)) return false;
        g->radius = (float)r;
    }
    return true;
}

/* congestion: {weight: W, every: K}; both optional (weight 1 m^2 per person, every 10 steps). */
static bool parse_congestion(th_scene *s, th_scene_crowd *cr, const th_ynode *n, const char *gpath,
                             th_error *err) {
    char path[160], sub[192];
    snprintf(path, sizeof path, "%s.congestion", gpath);
    static const char *const keys[] = {"weight", "every", NULL};
    if (!th_scene_expect(s, n, TH_Y_MAPPING, path, err) ||
        !th_scene_known_keys(s, n, path, keys, err))
        return false;
    double weight = 1.0;
    uint64_t every = 10;
    const th_ynode *v;
    if ((v = th_ynode_get(n, "weight"))) {
        snprintf(sub, sizeof sub, "%s.weight", path);
        if (!th_scene_float(s, v, sub, 0.001, 100.0, &weight, err)) return false;
    }
    if ((v = th_ynode_get(n, "every"))) {
        snprintf(sub, sizeof sub, "%s.every", path);
        if (!th_scene_u64(s, v, sub, 1, 100000, &every, err)) return false;
    }
    cr->def.goal.congestion_weight = (float)weight;
    cr->def.goal.congestion_every = (uint32_t)every;
    return true;
}

bool th_scene_parse_goal(th_scene *s, th_scene_crowd *cr, const th_ynode *goal, const char *path,
                         th_error *err) {
    cr->goal_node = goal;
    if (goal->kind == TH_Y_SCALAR) {
        if (!parse_word(s, cr, goal, path, err)) return false;
    } else if (th_scene_mover_goal(goal)) {
        if (!th_scene_parse_mover(s, cr, goal, path, err)) return false;
    } else {
        static const char *const keys[] = {"destinations", "route",       "mode",
                                           "radius",       "wander",      "exit",
                                           "max_flow",     "congestion",  "crash_and_turn",
                                           "wall_follow",  "breadcrumbs", "waypoints",
                                           "forage",       NULL};
        if (!th_scene_expect(s, goal, TH_Y_MAPPING, path, err) ||
            !th_scene_known_keys(s, goal, path, keys, err))
            return false;
        const th_ynode *dest = th_ynode_get(goal, "destinations");
        const th_ynode *route = th_ynode_get(goal, "route");
        const th_ynode *wander = th_ynode_get(goal, "wander");
        const th_ynode *forage = th_ynode_get(goal, "forage");
        const uint32_t kinds =
            (dest != NULL) + (route != NULL) + (wander != NULL) + (forage != NULL);
        if (kinds != 1) {
            return FAIL(s, goal, path, err,
                        "expected exactly one of destinations, route, wander or "
                        "forage, found %u",
                        kinds);
        }
        char sub[160];
        static const char *const route_only[] = {"mode", "radius", NULL};
        for (uint32_t k = 0; !route && route_only[k]; k++) {
            const th_ynode *v = th_ynode_get(goal, route_only[k]);
            if (v) {
                snprintf(sub, sizeof sub, "%s.%s", path, route_only[k]);
                return FAIL(s, v, sub, err, "'%s' belongs to a route", route_only[k]);
            }
        }
        const th_ynode *ex = th_ynode_get(goal, "exit");
        if (ex) {
            char buf[64];
            snprintf(sub, sizeof sub, "%s.exit", path);
            if (!dest) return FAIL(s, ex, sub, err, "'exit' belongs to destinations");
            const bool t =
                ex->kind == TH_Y_SCALAR && ex->len == 4 && memcmp(ex->text, "true", 4) == 0;
            const bool f =
                ex->kind == TH_Y_SCALAR && ex->len == 5 && memcmp(ex->text, "false", 5) == 0;
            if (!t && !f)
                return FAIL(s, ex, sub, err, "expected true or false, found %s",
                            th_scene_found(ex, buf, sizeof buf));
            cr->goal_exit = t;
        }
        const th_ynode *mf = th_ynode_get(goal, "max_flow");
        if (mf) {
            snprintf(sub, sizeof sub, "%s.max_flow", path);
            if (!cr->goal_exit)
                return FAIL(s, mf, sub, err,
                            "'max_flow' limits the exit that `exit: true` makes of the goal "
                            "cells: expected `exit: true` in this goal");
            double q;
            if (!th_scene_float(s, mf, sub, TH_SCENE_MIN_FLOW, TH_SCENE_MAX_FLOW, &q, err))
                return false;
            cr->goal_exit_max_flow = (float)q;
        }
        const th_ynode *cong = th_ynode_get(goal, "congestion");
        if (cong && !dest) {
            snprintf(sub, sizeof sub, "%s.congestion", path);
            return FAIL(s, cong, sub, err, "'congestion' belongs to destinations");
        }
        if (dest) {
            snprintf(sub, sizeof sub, "%s.destinations", path);
            if (!parse_destinations(s, cr, dest, sub, err)) return false;
            if (cong && !parse_congestion(s, cr, cong, path, err)) return false;
        } else if (route) {
            if (!parse_route(s, cr, goal, route, path, err)) return false;
        } else if (forage) {
            snprintf(sub, sizeof sub, "%s.forage", path);
            if (!th_scene_parse_forage(s, cr, forage, sub, err)) return false;
        } else {
            snprintf(sub, sizeof sub, "%s.wander", path);
            static const char *const wkeys[] = {"rate", NULL};
            if (!th_scene_expect(s, wander, TH_Y_MAPPING, sub, err) ||
                !th_scene_known_keys(s, wander, sub, wkeys, err))
                return false;
            cr->def.goal.kind = TH_GOAL_WANDER;
            const th_ynode *v = th_ynode_get(wander, "rate");
            if (v) {
                double rate;
                snprintf(sub, sizeof sub, "%s.wander.rate", path);
                if (!th_scene_float(s, v, sub, 0.001, 10000.0, &rate, err)) return false;
                cr->def.goal.wander_rate = (float)rate;
            }
        }
    }
    /* `behavior: flee` is the shelter goal: the two keys must agree. */
    const th_ynode *b = th_ynode_get(cr->node, "behavior");
    if (b && cr->def.behavior == TH_BEHAVIOR_FLEE && cr->def.goal.kind != TH_GOAL_SHELTER &&
        cr->def.goal.kind != TH_GOAL_NONE) {
        return FAIL(s, goal, path, err,
                    "`behavior: flee` already gives this crowd the shelter goal; "
                    "drop one of the two");
    }
    if (cr->def.goal.kind == TH_GOAL_SHELTER) {
        if (!s->has_map)
            return FAIL(s, goal, path, err, "the shelter goal needs a map with bunkers");
        cr->def.behavior = TH_BEHAVIOR_FLEE;
    }
    return true;
}

bool th_scene_build_goal(th_world *w, const th_scene *s, const th_scene_crowd *cr,
                         th_crowd_def *def, const char *path, th_error *err) {
    if (def->goal.kind != TH_GOAL_DESTINATIONS) return true;
    th_field_id field = th_world_add_destinations(w, cr->dest, cr->dest_count, err);
    if (!th_field_id_valid(field)) {
        char sub[96];
        snprintf(sub, sizeof sub, "%s.goal", path);
        return th_scene_refused(s, cr->goal_node, sub, err);
    }
    def->goal.field = field;
    return true;
}
