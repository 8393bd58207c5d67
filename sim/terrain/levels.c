/* Levels of a building and the stairs between them (include/throng/building.h): levels are
 * rectangles of the one map, a stair is a flight on its lower level whose top edge is glued to
 * the landing above (th_navmap_glue), so fields and walkers cross between levels with no
 * special case beyond the seam. Walkers on a flight keep a share of their free speed that
 * depends on the way they go. */
#include <stdio.h>
#include <string.h>
#include <math.h>

#include "engine/alloc.h"

#include "sim/core/world.h"
#include "sim/terrain/world_nav_private.h"
#include "throng/building.h"

/* Weidmann (1993): mean horizontal speed on stairs up and down, and on the flat, m/s. */
#define STAIR_UP_MS   0.610f
#define STAIR_DOWN_MS 0.694f
#define FLAT_MS       1.34f

static const th_vec2 k_way[4] = {{1.0f, 0.0f}, {0.0f, 1.0f}, {-1.0f, 0.0f}, {0.0f, -1.0f}};

/* What adding a level or stair needs: a world with a map, before its first step. */
static bool buildable(th_world *w, const void *def, const char *what, th_error *err) {
    if (!w || !def) {
        th_error_set(err, TH_ERR_INVALID, "no world or no %s def", what);
        return false;
    }
    if (!th_between_steps(w, err) || !th_nav_need_map(w, err)) return false;
    if (w->step > 0) {
        th_error_set(err, TH_ERR_STATE, "%ss are added before the first step", what);
        return false;
    }
    return true;
}

static bool good_name(const char *name, const char *what, bool taken, th_error *err) {
    if (!name || !name[0] || strlen(name) > 63 || taken) {
        th_error_set(err, TH_ERR_INVALID, "%s name '%s' is empty, longer than 63 bytes or taken",
                     what, name ? name : "");
        return false;
    }
    return true;
}

static bool rect_on_map(const th_world *w, int32_t x0, int32_t y0, int32_t x1, int32_t y1) {
    return x0 <= x1 && y0 <= y1 && th_nav_in_map(w, x0, y0) && th_nav_in_map(w, x1, y1);
}

/* ---- levels ----------------------------------------------------------------------------- */

th_level_id th_world_add_level(th_world *w, const th_level_def *def, th_error *err) {
    if (!buildable(w, def, "level", err)) return (th_level_id){0};
    th_world_nav *n = &w->nav;
    if (!good_name(def->name, "level", th_world_find_level(w, def->name ? def->name : "").index1,
                   err))
        return (th_level_id){0};
    if (n->level_count >= TH_MAX_LEVELS) {
        th_error_set(err, TH_ERR_LIMIT, "at most %d levels", TH_MAX_LEVELS);
        return (th_level_id){0};
    }
    if (!rect_on_map(w, def->x0, def->y0, def->x1, def->y1)) {
        th_error_set(err, TH_ERR_INVALID,
                     "level '%s' cells [%d..%d] x [%d..%d] are not a rectangle inside the %d x %d "
                     "map",
                     def->name, def->x0, def->x1, def->y0, def->y1, n->map.w, n->map.h);
        return (th_level_id){0};
    }
    if (!isfinite(def->elevation) || fabsf(def->elevation) > 1.0e5f) {
        th_error_set(err, TH_ERR_INVALID, "level '%s' elevation %g is not a finite height",
                     def->name, (double)def->elevation);
        return (th_level_id){0};
    }
    if (!n->level) {
        n->level = th_calloc(TH_MAX_LEVELS, sizeof *n->level);
        n->level_of = th_calloc(n->map.ncells, 1);
        if (!n->level || !n->level_of) {
            th_error_set(err, TH_ERR_NOMEM, "out of memory for levels");
            return (th_level_id){0};
        }
    }
    for (int32_t y = def->y0; y <= def->y1; y++) {
        for (int32_t x = def->x0; x <= def->x1; x++) {
            uint8_t other = n->level_of[(uint32_t)y * (uint32_t)n->map.w + (uint32_t)x];
            if (other) {
                th_error_set(err, TH_ERR_INVALID, "level '%s' overlaps level '%s' at cell (%d, %d)",
                             def->name, n->level[other - 1].name, x, y);
                return (th_level_id){0};
            }
        }
    }
    const uint32_t l = n->level_count++;
    th_level *lv = &n->level[l];
    snprintf(lv->name, sizeof lv->name, "%s", def->name);
    lv->x0 = def->x0;
    lv->y0 = def->y0;
    lv->x1 = def->x1;
    lv->y1 = def->y1;
    lv->elevation = def->elevation;
    for (int32_t y = def->y0; y <= def->y1; y++) {
        memset(n->level_of + (uint32_t)y * (uint32_t)n->map.w + (uint32_t)def->x0, (int)(l + 1),
               (size_t)(def->x1 - def->x0 + 1));
    }
    return (th_level_id){l + 1};
}

uint32_t th_world_level_count(const th_world *w) { return w ? w->nav.level_count : 0; }

th_level_id th_world_find_level(const th_world *w, const char *name) {
    if (!w || !name) return (th_level_id){0};
    for (uint32_t l = 0; l < w->nav.level_count; l++) {
        if (strcmp(w->nav.level[l].name, name) == 0) return (th_level_id){l + 1};
    }
    return (th_level_id){0};
}

/* Level index + 1 of the cell holding p, 0 off every level. */
static uint32_t level_cell(const th_world *w, th_vec2 p) {
    if (!w->nav.level_count || !th_nav_on_world(w, p)) return 0;
    return w->nav.level_of[th_navmap_cell_of(&w->nav.map, p, NULL, NULL)];
}

th_level_id th_world_level_at(const th_world *w, th_vec2 p) {
    if (!w) return (th_level_id){0};
    return (th_level_id){level_cell(w, p)};
}

bool th_world_get_level(const th_world *w, th_level_id level, th_level_info *out) {
    if (!w || !out || level.index1 == 0 || level.index1 > w->nav.level_count) return false;
    const th_level *lv = &w->nav.level[level.index1 - 1];
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", lv->name);
    out->x0 = lv->x0;
    out->y0 = lv->y0;
    out->x1 = lv->x1;
    out->y1 = lv->y1;
    out->elevation = lv->elevation;
    const th_agents *a = &w->buf[w->cur];
    for (uint32_t i = 0; i < w->count; i++) {
        /* A rider is in a car, on no level. */
        if (w->lifts && w->lift_of_id[th_id_slot(a->id[i])]) continue;
        out->agents += level_cell(w, th_v2(a->px[i], a->py[i])) == level.index1;
    }
    return true;
}

/* ---- stairs ----------------------------------------------------------------------------- */

th_stair_id th_world_find_stair(const th_world *w, const char *name) {
    if (!w || !name) return (th_stair_id){0};
    for (uint32_t s = 0; s < w->nav.stair_count; s++) {
        if (strcmp(w->nav.stair[s].name, name) == 0) return (th_stair_id){s + 1};
    }
    return (th_stair_id){0};
}

uint32_t th_world_stair_count(const th_world *w) { return w ? w->nav.stair_count : 0; }

/* Distance from p to the segment [a, b]. */
static float segment_distance(th_vec2 p, th_vec2 a, th_vec2 b) {
    const th_vec2 ab = th_v2_sub(b, a);
    const float t = th_clampf(th_v2_dot(th_v2_sub(p, a), ab) / th_v2_len2(ab), 0.0f, 1.0f);
    return th_v2_len(th_v2_sub(p, th_v2_add(a, th_v2_scale(ab, t))));
}

/* Mark the cells of level `level` (index + 1) within TH_STAIR_SENSE of the edge [a, b] as near
 * stair `mark`'s seam: each cell has two slots (a switch-back stairwell puts a landing and the
 * next flight's top within reach of each other); a cell near three seams keeps the first two.
 * rows[0..1] get the first and last map row of the cells marked (none: rows[0] > rows[1]). */
static void mark_seam(th_world_nav *n, th_vec2 a, th_vec2 b, uint32_t level, uint8_t mark,
                      int32_t rows[2]) {
    const float inv = n->map.inv_cell_size, cs = n->map.cell_size, r = TH_STAIR_SENSE;
    const int32_t x0 = th_navmap_clamp_coord((fminf(a.x, b.x) - r) * inv, n->map.w);
    const int32_t x1 = th_navmap_clamp_coord((fmaxf(a.x, b.x) + r) * inv, n->map.w);
    const int32_t y0 = th_navmap_clamp_coord((fminf(a.y, b.y) - r) * inv, n->map.h);
    const int32_t y1 = th_navmap_clamp_coord((fmaxf(a.y, b.y) + r) * inv, n->map.h);
    rows[0] = n->map.h;
    rows[1] = -1;
    for (int32_t y = y0; y <= y1; y++) {
        for (int32_t x = x0; x <= x1; x++) {
            const uint32_t c = (uint32_t)y * (uint32_t)n->map.w + (uint32_t)x;
            const th_vec2 centre = th_v2(((float)x + 0.5f) * cs, ((float)y + 0.5f) * cs);
            if (n->level_of[c] != level || segment_distance(centre, a, b) > r + 0.7072f * cs)
                continue;
            uint8_t *slot = n->seam_near + 2u * (size_t)c;
            rows[0] = y < rows[0] ? y : rows[0];
            rows[1] = y;
            if (!slot[0]) slot[0] = mark;
            else if (!slot[1] && slot[0] != mark) slot[1] = mark;
        }
    }
}

/* A destructible wall cell on the map (off the map: no). */
static bool destructible(const th_navmap *m, int32_t x, int32_t y) {
    if (x < 0 || y < 0 || x >= m->w || y >= m->h) return false;
    return (m->flags[(uint32_t)y * (uint32_t)m->w + (uint32_t)x] & TH_NAV_FLAG_DESTRUCTIBLE) != 0;
}

/* Fail with a message about the stair. */
static th_stair_id stair_fail(th_error *err, th_error_code code, const char *name, const char *what,
                              int32_t x, int32_t y) {
    th_error_set(err, code, "stair '%s': %s (cell (%d, %d))", name, what, x, y);
    return (th_stair_id){0};
}

/* A stair's flight as drawn: the way up, the top row and the landing along it (`along` steps
 * across the flight, `width` cells), its length in plan. */
typedef struct stair_shape {
    uint8_t up;
    int32_t width, plan_cells;
    int32_t top_x, top_y; /* the flight's top row starts here */
    int32_t ax, ay;       /* one step along the top row and the landing */
} stair_shape;

static stair_shape stair_shape_of(const th_stair_def *def) {
    const uint8_t up = (uint8_t)def->up;
    const bool ns = up == 1 || up == 3;
    return (stair_shape){
        .up = up,
        .width = ns ? def->x1 - def->x0 + 1 : def->y1 - def->y0 + 1,
        .plan_cells = ns ? def->y1 - def->y0 + 1 : def->x1 - def->x0 + 1,
        .top_x = up == 0 ? def->x1 : def->x0,
        .top_y = up == 1 ? def->y1 : def->y0,
        .ax = ns ? 1 : 0,
        .ay = ns ? 0 : 1,
    };
}

/* The flight: a rectangle on the map, all on one level (*lower, its index + 1), open, and on no
 * other stair. */
static bool check_flight(const th_world *w, const th_stair_def *def, uint32_t *lower,
                         th_error *err) {
    const th_world_nav *n = &w->nav;
    const char *name = def->name;
    if (!rect_on_map(w, def->x0, def->y0, def->x1, def->y1)) {
        th_error_set(err, TH_ERR_INVALID,
                     "stair '%s' cells [%d..%d] x [%d..%d] are not a rectangle inside the %d x %d "
                     "map",
                     name, def->x0, def->x1, def->y0, def->y1, n->map.w, n->map.h);
        return false;
    }
    const uint32_t W = (uint32_t)n->map.w;
    *lower = n->level_of[(uint32_t)def->y0 * W + (uint32_t)def->x0];
    for (int32_t y = def->y0; y <= def->y1; y++) {
        for (int32_t x = def->x0; x <= def->x1; x++) {
            const uint32_t c = (uint32_t)y * W + (uint32_t)x;
            if (!*lower || n->level_of[c] != *lower) {
                stair_fail(err, TH_ERR_INVALID, name, "the flight is not all on one level", x, y);
                return false;
            }
            if (n->map.cost[c] == 0) {
                stair_fail(err, TH_ERR_BLOCKED, name, "the flight covers a wall", x, y);
                return false;
            }
            if (n->stair_of && n->stair_of[c]) {
                stair_fail(err, TH_ERR_INVALID, name, "the flight overlaps another stair", x, y);
                return false;
            }
        }
    }
    return true;
}

/* The landing along the flight's top edge: on the map, all on one level (*upper), open, with
 * walls that nothing breaks beyond the flight's top and behind the landing, no elevator stop on
 * either side of the seam, and neither edge glued already. */
static bool check_landing(const th_world *w, const th_stair_def *def, const stair_shape *sh,
                          uint32_t *upper, th_error *err) {
    const th_world_nav *n = &w->nav;
    const char *name = def->name;
    const uint8_t up = sh->up;
    const int32_t ax = sh->ax, ay = sh->ay, top_x = sh->top_x, top_y = sh->top_y;
    if (!th_nav_in_map(w, def->top_x, def->top_y) ||
        !th_nav_in_map(w, def->top_x + ax * (sh->width - 1), def->top_y + ay * (sh->width - 1))) {
        stair_fail(err, TH_ERR_INVALID, name, "the landing runs off the map", def->top_x,
                   def->top_y);
        return false;
    }
    const uint32_t W = (uint32_t)n->map.w;
    *upper = n->level_of[(uint32_t)def->top_y * W + (uint32_t)def->top_x];
    for (int32_t i = 0; i < sh->width; i++) {
        const int32_t lx = def->top_x + ax * i, ly = def->top_y + ay * i;
        const uint32_t c = (uint32_t)ly * W + (uint32_t)lx;
        if (!*upper || n->level_of[c] != *upper) {
            stair_fail(err, TH_ERR_INVALID, name, "the landing is not all on one level", lx, ly);
            return false;
        }
        if (n->map.cost[c] == 0) {
            stair_fail(err, TH_ERR_BLOCKED, name, "the landing is a wall", lx, ly);
            return false;
        }
        const int32_t sx = top_x + ax * i + th_nav_move_dx[up];
        const int32_t sy = top_y + ay * i + th_nav_move_dy[up];
        if (!th_navmap_is_blocked(&n->map, sx, sy)) {
            stair_fail(err, TH_ERR_BLOCKED, name,
                       "the cell beyond the flight's top is open; it must be a wall", sx, sy);
            return false;
        }
        const int32_t bx = lx - th_nav_move_dx[up], by = ly - th_nav_move_dy[up];
        if (!th_navmap_is_blocked(&n->map, bx, by)) {
            stair_fail(err, TH_ERR_BLOCKED, name,
                       "the cell behind the landing is open; the stairwell must be a wall", bx, by);
            return false;
        }
        /* A seam that opened later would make the glued move and the plain one two ways out of
         * one cell: its walls must be ones nothing breaks. */
        if (destructible(&n->map, sx, sy) || destructible(&n->map, bx, by)) {
            const bool top = destructible(&n->map, sx, sy);
            stair_fail(err, TH_ERR_BLOCKED, name,
                       top ? "the wall beyond the flight's top is destructible; it must be one "
                             "that cannot be broken"
                           : "the stairwell's wall behind the landing is destructible; it must "
                             "be one that cannot be broken",
                       top ? sx : bx, top ? sy : by);
            return false;
        }
        /* An elevator's stop must stay off every seam (th_world_add_elevator). */
        for (int32_t side = 0; side < 2; side++) {
            const int32_t ex = side ? lx : top_x + ax * i, ey = side ? ly : top_y + ay * i;
            const uint32_t e = w->hooks.lift_stop_at(w, ex, ey);
            if (e) {
                char what[128];
                snprintf(what, sizeof what, "%s is a stop of elevator '%s'",
                         side ? "the landing" : "the flight's top row",
                         w->hooks.lift_name(w, e - 1));
                stair_fail(err, TH_ERR_INVALID, name, what, ex, ey);
                return false;
            }
        }
        if (th_navmap_link(&n->map, (uint32_t)(top_y + ay * i) * W + (uint32_t)(top_x + ax * i),
                           up)) {
            stair_fail(err, TH_ERR_INVALID, name, "the flight's top edge is glued already",
                       top_x + ax * i, top_y + ay * i);
            return false;
        }
        if (th_navmap_link(&n->map, c, (uint8_t)((up + 2u) & 3u))) {
            stair_fail(err, TH_ERR_INVALID, name, "the landing's edge is glued already", lx, ly);
            return false;
        }
    }
    return true;
}

/* The stair's record: its levels, shape and lengths, Weidmann's speed factors unless given, the
 * flight's cost on the map, its cells, and the boxes and seam marks that let walkers on either
 * side of the glued edge see each other. */
static void stair_record(th_world_nav *n, uint32_t s, const th_stair_def *def,
                         const stair_shape *sh, uint32_t lower, uint32_t upper, float plan,
                         float rise, float length) {
    const uint8_t up = sh->up;
    const int32_t ax = sh->ax, ay = sh->ay, top_x = sh->top_x, top_y = sh->top_y;
    const uint32_t W = (uint32_t)n->map.w;
    const float fu = def->up_factor, fd = def->down_factor;
    th_stair *st = &n->stair[s];
    memset(st, 0, sizeof *st);
    snprintf(st->name, sizeof st->name, "%s", def->name);
    st->lower = lower - 1;
    st->upper = upper - 1;
    st->x0 = def->x0;
    st->y0 = def->y0;
    st->x1 = def->x1;
    st->y1 = def->y1;
    st->up = up;
    st->top_x = def->top_x;
    st->top_y = def->top_y;
    st->plan_length = plan;
    st->rise = rise;
    st->length = length;
    /* Weidmann's speeds are horizontal: over the plan, a share of the flat speed. */
    st->up_factor = fu > 0.0f ? fu : STAIR_UP_MS / FLAT_MS * length / plan;
    st->down_factor = fd > 0.0f ? fd : STAIR_DOWN_MS / FLAT_MS * length / plan;
    st->up_plan = st->up_factor * plan / length;
    st->down_plan = st->down_factor * plan / length;
    /* River maps weigh a flight by the time it takes: its cells cost the mean of the inverses
     * of the two plan speeds (a route cost is symmetric), rounded, at least what the map gave
     * them. Without it a stair would cost what the same floor does. */
    const float slow = 0.5f * (1.0f / st->up_plan + 1.0f / st->down_plan);
    const uint32_t stair_cost = (uint32_t)fminf(lroundf(slow), (float)TH_NAV_COST_MAX);
    for (int32_t y = def->y0; y <= def->y1; y++) {
        for (int32_t x = def->x0; x <= def->x1; x++) {
            if (th_navmap_cost(&n->map, x, y) < stair_cost)
                th_navmap_set_cost(&n->map, x, y, stair_cost);
        }
    }
    for (int32_t y = def->y0; y <= def->y1; y++) {
        memset(n->stair_of + (uint32_t)y * W + (uint32_t)def->x0, (int)(s + 1),
               (size_t)(def->x1 - def->x0 + 1));
    }
    const float cs = n->map.cell_size;
    const int32_t sx = top_x + th_nav_move_dx[up], sy = top_y + th_nav_move_dy[up];
    st->shift = th_v2((float)(def->top_x - sx) * cs, (float)(def->top_y - sy) * cs);
    /* The glued edge as a segment on the flight's side, and the same on the landing's. */
    const float ex = (float)(top_x + (up == 0)) * cs, ey = (float)(top_y + (up == 1)) * cs;
    const th_vec2 e0 = th_v2(ex, ey);
    const th_vec2 e1 =
        th_v2_add(e0, th_v2((float)(ax * sh->width) * cs, (float)(ay * sh->width) * cs));
    st->flight_box[0] = (float)def->x0 * cs;
    st->flight_box[1] = (float)def->y0 * cs;
    st->flight_box[2] = (float)(def->x1 + 1) * cs;
    st->flight_box[3] = (float)(def->y1 + 1) * cs;
    {
        /* The landing's edge, and TH_STAIR_SENSE on up from it. */
        const th_vec2 a = th_v2_add(e0, st->shift), b = th_v2_add(e1, st->shift);
        const th_vec2 c = th_v2_add(a, th_v2_scale(k_way[up], TH_STAIR_SENSE));
        st->beyond_box[0] = fminf(fminf(a.x, b.x), c.x);
        st->beyond_box[1] = fminf(fminf(a.y, b.y), c.y);
        st->beyond_box[2] = fmaxf(fmaxf(a.x, b.x), c.x);
        st->beyond_box[3] = fmaxf(fmaxf(a.y, b.y), c.y);
    }
    mark_seam(n, e0, e1, lower, (uint8_t)(s + 1), st->near_rows[0]);
    mark_seam(n, th_v2_add(e0, st->shift), th_v2_add(e1, st->shift), upper, (uint8_t)(s + 1),
              st->near_rows[1]);
}

th_stair_id th_world_add_stair(th_world *w, const th_stair_def *def, th_error *err) {
    if (!buildable(w, def, "stair", err)) return (th_stair_id){0};
    th_world_nav *n = &w->nav;
    const char *name = def->name;
    if (!good_name(name, "stair", th_world_find_stair(w, name ? name : "").index1, err))
        return (th_stair_id){0};
    if (n->stair_count >= TH_MAX_STAIRS) {
        th_error_set(err, TH_ERR_LIMIT, "at most %d stairs", TH_MAX_STAIRS);
        return (th_stair_id){0};
    }
    if (n->level_count < 2) {
        th_error_set(err, TH_ERR_STATE, "stair '%s' needs two levels to join; the world has %u",
                     name, n->level_count);
        return (th_stair_id){0};
    }
    if ((unsigned)def->up > 3u) {
        th_error_set(err, TH_ERR_INVALID, "stair '%s': unknown way up %d", name, (int)def->up);
        return (th_stair_id){0};
    }
    uint32_t lower = 0, upper = 0;
    if (!check_flight(w, def, &lower, err)) return (th_stair_id){0};
    const stair_shape sh = stair_shape_of(def);
    if (!check_landing(w, def, &sh, &upper, err)) return (th_stair_id){0};
    if (upper == lower) {
        return stair_fail(err, TH_ERR_INVALID, name, "the landing is on the flight's own level",
                          def->top_x, def->top_y);
    }
    const float rise = n->level[upper - 1].elevation - n->level[lower - 1].elevation;
    if (!(rise > 0.0f)) {
        th_error_set(err, TH_ERR_INVALID,
                     "stair '%s' climbs from level '%s' to level '%s', which is not higher", name,
                     n->level[lower - 1].name, n->level[upper - 1].name);
        return (th_stair_id){0};
    }
    const float plan = (float)sh.plan_cells * n->map.cell_size;
    const float slope = sqrtf(plan * plan + rise * rise);
    if (!(def->length == 0.0f || (def->length >= plan && def->length <= 1.0e4f))) {
        th_error_set(err, TH_ERR_INVALID,
                     "stair '%s' length %g m must be 0 (from the plan and the rise) or at least "
                     "the plan length %g m",
                     name, (double)def->length, (double)plan);
        return (th_stair_id){0};
    }
    const float length = def->length > 0.0f ? def->length : slope;
    const float fu = def->up_factor, fd = def->down_factor;
    if (!(fu == 0.0f || (fu > 0.0f && fu <= 2.0f)) || !(fd == 0.0f || (fd > 0.0f && fd <= 2.0f))) {
        th_error_set(err, TH_ERR_INVALID,
                     "stair '%s' speed factors must be in (0, 2] or 0 (Weidmann's), got up %g "
                     "and down %g",
                     name, (double)fu, (double)fd);
        return (th_stair_id){0};
    }
    if (w->wrap) {
        th_error_set(err, TH_ERR_STATE, "stairs are not supported in a wrap-around world");
        return (th_stair_id){0};
    }
    if (!n->stair) {
        n->stair = th_calloc(TH_MAX_STAIRS, sizeof *n->stair);
        n->stair_of = th_calloc(n->map.ncells, 1);
        n->seam_near = th_calloc(n->map.ncells, 2);
        if (!n->stair || !n->stair_of || !n->seam_near) {
            th_error_set(err, TH_ERR_NOMEM, "out of memory for stairs");
            return (th_stair_id){0};
        }
    }
    /* Glue the edge cell by cell; the checks above and the room made here leave nothing to
     * refuse, so no stair is ever half glued. */
    const int reserved = th_navmap_reserve_links(&n->map, 2u * (uint32_t)sh.width);
    if (reserved != TH_NAV_OK) {
        th_error_set(err, reserved == TH_NAV_ERANGE ? TH_ERR_LIMIT : TH_ERR_NOMEM,
                     "stair '%s': its %d glued cells would pass the map's %u glued edges or "
                     "memory",
                     name, sh.width, TH_NAV_MAX_LINKS / 2u);
        return (th_stair_id){0};
    }
    for (int32_t i = 0; i < sh.width; i++) {
        int rc = th_navmap_glue(&n->map, sh.top_x + sh.ax * i, sh.top_y + sh.ay * i, sh.up,
                                def->top_x + sh.ax * i, def->top_y + sh.ay * i);
        if (rc != TH_NAV_OK) {
            th_error_set(err, th_nav_error_code(rc), "stair '%s': its top edge cannot be glued",
                         name);
            return (th_stair_id){0};
        }
    }
    const uint32_t s = n->stair_count++;
    stair_record(n, s, def, &sh, lower, upper, plan, rise, length);
    n->fields_stale = n->combined_stale = n->walls_stale = true;
    return (th_stair_id){s + 1};
}

/* Stair index + 1 of the flight holding p, 0 elsewhere. */
static uint32_t stair_cell(const th_world *w, th_vec2 p) {
    if (!w->nav.stair_count || !th_nav_on_world(w, p)) return 0;
    return w->nav.stair_of[th_navmap_cell_of(&w->nav.map, p, NULL, NULL)];
}

th_stair_id th_world_stair_at(const th_world *w, th_vec2 p) {
    if (!w) return (th_stair_id){0};
    return (th_stair_id){stair_cell(w, p)};
}

bool th_world_get_stair(const th_world *w, th_stair_id stair, th_stair_info *out) {
    if (!w || !out || stair.index1 == 0 || stair.index1 > w->nav.stair_count) return false;
    const th_stair *st = &w->nav.stair[stair.index1 - 1];
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", st->name);
    out->lower = (th_level_id){st->lower + 1};
    out->upper = (th_level_id){st->upper + 1};
    out->x0 = st->x0;
    out->y0 = st->y0;
    out->x1 = st->x1;
    out->y1 = st->y1;
    out->up = (th_stair_way)st->up;
    out->top_x = st->top_x;
    out->top_y = st->top_y;
    out->plan_length = st->plan_length;
    out->rise = st->rise;
    out->length = st->length;
    out->up_factor = st->up_factor;
    out->down_factor = st->down_factor;
    out->crossed_up = __atomic_load_n(&st->crossed_up, __ATOMIC_RELAXED);
    out->crossed_down = __atomic_load_n(&st->crossed_down, __ATOMIC_RELAXED);
    const th_agents *a = &w->buf[w->cur];
    for (uint32_t i = 0; i < w->count; i++) {
        out->agents += stair_cell(w, th_v2(a->px[i], a->py[i])) == stair.index1;
    }
    return true;
}

float th_nav_stair_factor(const th_world *w, th_vec2 p, th_vec2 dir) {
    const uint32_t s = stair_cell(w, p);
    if (!s) return 1.0f;
    const th_stair *st = &w->nav.stair[s - 1];
    return th_v2_dot(dir, k_way[st->up]) >= 0.0f ? st->up_plan : st->down_plan;
}

void th_nav_stair_crossed(th_world *w, th_vec2 p, th_vec2 q) {
    const uint32_t from = level_cell(w, p), to = level_cell(w, q);
    if (from == to) return;
    /* Up: from a flight's top row onto its landing; down: the other way. */
    const uint32_t s_up = stair_cell(w, p), s_down = stair_cell(w, q);
    if (s_up && w->nav.stair[s_up - 1].upper + 1 == to) {
        __atomic_fetch_add(&w->nav.stair[s_up - 1].crossed_up, 1, __ATOMIC_RELAXED);
    } else if (s_down && w->nav.stair[s_down - 1].upper + 1 == from) {
        __atomic_fetch_add(&w->nav.stair[s_down - 1].crossed_down, 1, __ATOMIC_RELAXED);
    }
}

th_vec2 th_nav_seam_keep(const th_world *w, th_vec2 p, th_vec2 to, th_vec2 dir) {
    const th_navmap *m = &w->nav.map;
    uint32_t n = 0;
    const th_nav_link *l = th_navmap_links_of(m, th_navmap_cell_of(m, p, NULL, NULL), &n);
    if (!n || level_cell(w, p) != level_cell(w, to)) return dir;
    th_vec2 kept = dir;
    for (uint32_t i = 0; i < n; i++) {
        const float into = th_v2_dot(kept, k_way[l[i].dir]);
        if (into > 0.0f) kept = th_v2_sub(kept, th_v2_scale(k_way[l[i].dir], into));
    }
    return th_v2_len2(kept) > 1e-6f ? th_v2_norm(kept) : dir;
}

th_vec2 th_nav_seam_aim(const th_world *w, th_vec2 p, th_vec2 from, th_vec2 to) {
    const th_navmap *m = &w->nav.map;
    if (!w->nav.stair_count || level_cell(w, p) == level_cell(w, to)) return to;
    const uint32_t a = th_navmap_cell_of(m, from, NULL, NULL),
                   b = th_navmap_cell_of(m, to, NULL, NULL);
    uint32_t n = 0;
    const th_nav_link *l = th_navmap_links_of(m, a, &n);
    for (uint32_t i = 0; i < n; i++) {
        if (l[i].to != b) continue;
        /* The seam cell beyond `from`: stepping into it crosses to `to`. */
        return th_v2_add(from, th_v2_scale(k_way[l[i].dir], m->cell_size));
    }
    return to;
}

bool th_nav_other_level(const th_world *w, th_vec2 a, th_vec2 b) {
    const uint32_t la = level_cell(w, a), lb = level_cell(w, b);
    return la && lb && la != lb;
}

bool th_nav_glued(const th_world *w, th_vec2 a, th_vec2 b) {
    const th_navmap *m = &w->nav.map;
    if (!w->nav.stair_count || !th_nav_on_world(w, a) || !th_nav_on_world(w, b)) return false;
    const uint32_t ca = th_navmap_cell_of(m, a, NULL, NULL),
                   cb = th_navmap_cell_of(m, b, NULL, NULL);
    uint32_t n = 0;
    const th_nav_link *l = th_navmap_links_of(m, ca, &n);
    for (uint32_t i = 0; i < n; i++) {
        if (l[i].to == cb) return true;
    }
    return false;
}
