/* The scene's `measure` section: areas and lines the world measures in every step.
 *
 *     measure:
 *       areas:
 *         - {name: centre, rect: [x, y, width, height]}
 *         - {name: middle, rect: [...], lanes: {axis: x, width: 0.6, length: 4, min_speed: 0.1}}
 *       lines:
 *         - {name: exit, from: [x, y], to: [x, y], window: 1}
 *
 * Everything the world would refuse is checked here first, so the error points at the
 * offending value (file:line:column); the world then gets the same values through the public
 * API, as a program building the scene by hand would give them. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/arena.h"
#include "sim/scene/scene_internal.h"

#define FAIL(s, n, path, err, ...) th_scene_fail((s), (n), (path), (err), __VA_ARGS__)

/* A name the world accepts (see th_measure_area_def) and not used by an earlier entry. */
static bool measure_name(th_scene *s, const th_ynode *entry, const char *path, char out[64],
                         th_error *err) {
    char sub[160], buf[64];
    snprintf(sub, sizeof sub, "%s.name", path);
    const th_ynode *n = th_ynode_get(entry, "name");
    if (!n) return TH_SCENE_MISSING(s, entry, sub, err, "missing: every area and line has a name");
    if (!th_scene_name(s, n, sub, out, 64, err)) return false;
    for (const char *p = out; *p; p++) {
        char c = *p;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '.')) {
            return FAIL(s, n, sub, err,
                        "expected a name of letters, digits, '_', '-' and '.' "
                        "(it names output columns), found %s",
                        th_scene_found(n, buf, sizeof buf));
        }
    }
    for (uint32_t i = 0; i < s->measure_area_count; i++) {
        if (strcmp(s->measure_area[i].name, out) == 0) {
            return FAIL(s, n, sub, err, "the name '%s' is used twice (first at line %u)", out,
                        s->measure_area[i].node->line);
        }
    }
    for (uint32_t i = 0; i < s->measure_line_count; i++) {
        if (strcmp(s->measure_line[i].name, out) == 0) {
            return FAIL(s, n, sub, err, "the name '%s' is used twice (first at line %u)", out,
                        s->measure_line[i].node->line);
        }
    }
    return true;
}

/* `lanes: {axis: x|y, width: m, length: m, min_speed: m/s}` (every key optional: an empty
 * mapping measures along x with the defaults). */
static bool parse_lanes(th_scene *s, const th_ynode *n, const char *path, th_lane_def *out,
                        th_error *err) {
    static const char *const keys[] = {"axis", "width", "length", "min_speed", NULL};
    if (!th_scene_expect(s, n, TH_Y_MAPPING, path, err) ||
        !th_scene_known_keys(s, n, path, keys, err))
        return false;
    char sub[160], buf[64];
    *out = (th_lane_def){TH_LANE_X, TH_LANE_DEFAULT_WIDTH, TH_LANE_DEFAULT_LENGTH,
                         TH_LANE_DEFAULT_MIN_SPEED};
    const th_ynode *v;
    if ((v = th_ynode_get(n, "axis"))) {
        snprintf(sub, sizeof sub, "%s.axis", path);
        bool x = v->kind == TH_Y_SCALAR && strcmp(v->text, "x") == 0;
        bool y = v->kind == TH_Y_SCALAR && strcmp(v->text, "y") == 0;
        if (!x && !y)
            return FAIL(s, v, sub, err, "expected x or y, found %s",
                        th_scene_found(v, buf, sizeof buf));
        out->axis = x ? TH_LANE_X : TH_LANE_Y;
    }
    const char *names[3] = {"width", "length", "min_speed"};
    float *dst[3] = {&out->width, &out->length, &out->min_speed};
    const double lo[3] = {0.001, 0.001, 0.001},
                 hi[3] = {TH_MAX_WORLD_DIM, TH_MAX_WORLD_DIM, 1000.0};
    for (int k = 0; k < 3; k++) {
        if (!(v = th_ynode_get(n, names[k]))) continue;
        snprintf(sub, sizeof sub, "%s.%s", path, names[k]);
        double d;
        if (!th_scene_float(s, v, sub, lo[k], hi[k], &d, err)) return false;
        *dst[k] = (float)d;
    }
    return true;
}

static bool parse_areas(th_scene *s, const th_ynode *n, th_error *err) {
    if (!th_scene_expect(s, n, TH_Y_SEQUENCE, "measure.areas", err)) return false;
    if (n->count > TH_MAX_MEASURE_AREAS) {
        return FAIL(s, n, "measure.areas", err, "expected at most %d areas, found %u",
                    TH_MAX_MEASURE_AREAS, n->count);
    }
    s->measure_area =
        th_arena_alloc(&s->doc.arena, (n->count ? n->count : 1) * sizeof *s->measure_area);
    if (!s->measure_area) return TH_SCENE_NOMEM(s, n, "measure.areas", err, "out of memory");
    static const char *const keys[] = {"name", "rect", "lanes", NULL};
    for (uint32_t i = 0; i < n->count; i++) {
        const th_ynode *e = n->items[i];
        char path[64], sub[96];
        snprintf(path, sizeof path, "measure.areas[%u]", i);
        if (!th_scene_expect(s, e, TH_Y_MAPPING, path, err) ||
            !th_scene_known_keys(s, e, path, keys, err))
            return false;
        th_scene_measure_area *a = &s->measure_area[s->measure_area_count];
        memset(a, 0, sizeof *a);
        a->node = e;
        if (!measure_name(s, e, path, a->name, err)) return false;
        snprintf(sub, sizeof sub, "%s.rect", path);
        const th_ynode *r = th_ynode_get(e, "rect");
        if (!r)
            return TH_SCENE_MISSING(s, e, sub, err,
                                    "missing: expected [x, y, width, height] in metres");
        double d[4];
        if (th_scene_numbers(s, r, sub, 4, 0.0, TH_MAX_WORLD_DIM, d, err) < 0) return false;
        if (!(d[2] > 0.0 && d[3] > 0.0) || d[0] + d[2] > s->width || d[1] + d[3] > s->height) {
            return FAIL(
                s, r, sub, err,
                "expected [x, y, width, height] with a positive size inside the %g x %g m world, found [%g, %g, %g, %g]",
                (double)s->width, (double)s->height, d[0], d[1], d[2], d[3]);
        }
        float x0 = (float)d[0], y0 = (float)d[1];
        float x1 = (float)(d[0] + d[2]), y1 = (float)(d[1] + d[3]);
        /* Rounding to float can push an edge a hair past the world or make a tiny area empty;
         * the world would refuse those, so they are refused here, where the line is known. */
        if (!(x0 < x1 && y0 < y1 && x1 <= s->width && y1 <= s->height)) {
            return FAIL(
                s, r, sub, err,
                "the rectangle [%g, %g, %g, %g] is too small or too close to the world's edge to be kept in single precision",
                d[0], d[1], d[2], d[3]);
        }
        a->def = (th_measure_area_def){a->name, x0, y0, x1, y1};
        const th_ynode *l = th_ynode_get(e, "lanes");
        snprintf(sub, sizeof sub, "%s.lanes", path);
        if (l && !parse_lanes(s, l, sub, &a->lanes, err)) return false;
        s->measure_area_count++;
    }
    return true;
}

static bool parse_lines(th_scene *s, const th_ynode *n, th_error *err) {
    if (!th_scene_expect(s, n, TH_Y_SEQUENCE, "measure.lines", err)) return false;
    if (n->count > TH_MAX_MEASURE_LINES) {
        return FAIL(s, n, "measure.lines", err, "expected at most %d lines, found %u",
                    TH_MAX_MEASURE_LINES, n->count);
    }
    s->measure_line =
        th_arena_alloc(&s->doc.arena, (n->count ? n->count : 1) * sizeof *s->measure_line);
    if (!s->measure_line) return TH_SCENE_NOMEM(s, n, "measure.lines", err, "out of memory");
    static const char *const keys[] = {"name", "from", "to", "window", NULL};
    for (uint32_t i = 0; i < n->count; i++) {
        const th_ynode *e = n->items[i], *v;
        char path[64], sub[96];
        snprintf(path, sizeof path, "measure.lines[%u]", i);
        if (!th_scene_expect(s, e, TH_Y_MAPPING, path, err) ||
            !th_scene_known_keys(s, e, path, keys, err))
            return false;
        th_scene_measure_line *l = &s->measure_line[s->measure_line_count];
        memset(l, 0, sizeof *l);
        l->node = e;
        if (!measure_name(s, e, path, l->name, err)) return false;
        const char *ends[2] = {"from", "to"};
        th_vec2 p[2];
        for (int k = 0; k < 2; k++) {
            snprintf(sub, sizeof sub, "%s.%s", path, ends[k]);
            if (!(v = th_ynode_get(e, ends[k])))
                return TH_SCENE_MISSING(s, e, sub, err, "missing: expected [x, y] in metres");
            double xy[2];
            if (th_scene_numbers(s, v, sub, 2, 0.0, TH_MAX_WORLD_DIM, xy, err) < 0) return false;
            if (xy[0] > s->width || xy[1] > s->height) {
                return FAIL(s, v, sub, err,
                            "expected a point inside the %g x %g m world, found [%g, %g]",
                            (double)s->width, (double)s->height, xy[0], xy[1]);
            }
            p[k] = th_v2((float)xy[0], (float)xy[1]);
        }
        if (p[0].x == p[1].x && p[0].y == p[1].y) {
            snprintf(sub, sizeof sub, "%s.to", path);
            return FAIL(s, th_ynode_get(e, "to"), sub, err,
                        "expected a line of positive length, found both ends at [%g, %g]",
                        (double)p[0].x, (double)p[0].y);
        }
        double window = 1.0;
        if ((v = th_ynode_get(e, "window"))) {
            snprintf(sub, sizeof sub, "%s.window", path);
            if (!th_scene_float(s, v, sub, 0.001, TH_MAX_MEASURE_WINDOW, &window, err))
                return false;
            double steps = floor((double)(float)window / (double)s->timestep + 0.5);
            if (steps > (double)TH_MAX_MEASURE_WINDOW_STEPS) {
                return FAIL(
                    s, v, sub, err,
                    "expected a window of at most %u steps, found %g s = %.0f steps of %g s",
                    TH_MAX_MEASURE_WINDOW_STEPS, window, steps, (double)s->timestep);
            }
        }
        l->def = (th_measure_line_def){l->name, p[0], p[1], (float)window};
        s->measure_line_count++;
    }
    return true;
}

bool th_scene_parse_measure(th_scene *s, const th_ynode *n, th_error *err) {
    static const char *const keys[] = {"areas", "lines", NULL};
    if (!th_scene_expect(s, n, TH_Y_MAPPING, "measure", err) ||
        !th_scene_known_keys(s, n, "measure", keys, err))
        return false;
    const th_ynode *v;
    if ((v = th_ynode_get(n, "areas")) && !parse_areas(s, v, err)) return false;
    if ((v = th_ynode_get(n, "lines")) && !parse_lines(s, v, err)) return false;
    return true;
}

bool th_scene_build_measure(th_world *w, const th_scene *s, th_error *err) {
    char path[64];
    for (uint32_t i = 0; i < s->measure_area_count; i++) {
        const th_scene_measure_area *a = &s->measure_area[i];
        th_measure_area_id id = th_world_add_measure_area(w, &a->def, err);
        if (id.index1 != i + 1 ||
            (a->lanes.axis != TH_LANE_OFF && !th_world_set_measure_lanes(w, id, &a->lanes, err))) {
            snprintf(path, sizeof path, "measure.areas[%u]", i);
            return th_scene_refused(s, s->measure_area[i].node, path, err);
        }
    }
    for (uint32_t i = 0; i < s->measure_line_count; i++) {
        if (th_world_add_measure_line(w, &s->measure_line[i].def, err).index1 != i + 1) {
            snprintf(path, sizeof path, "measure.lines[%u]", i);
            return th_scene_refused(s, s->measure_line[i].node, path, err);
        }
    }
    return true;
}
