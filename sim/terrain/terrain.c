/* The world's terrain map, cell by cell: kinds, costs and walking speeds set while the world is
 * built, and read back. Changes after the first step go through events (events.c). */
#include <string.h>

#include "engine/alloc.h"
#include "engine/check.h"

#include "sim/core/world.h"
#include "sim/terrain/world_nav_private.h"

bool th_world_map_size(const th_world *w, int32_t *cols, int32_t *rows, float *cell_size) {
    if (!w) return false;
    if (!w->nav.present) return false;
    if (cols) *cols = w->nav.map.w;
    if (rows) *rows = w->nav.map.h;
    if (cell_size) *cell_size = w->nav.map.cell_size;
    return true;
}

/* A cell that may be set while building the world: there is a map, no step has run, and
 * (x, y) is on the map. `after_start` says what to do instead once stepping has begun. */
static bool settable_cell(const th_world *w, int32_t x, int32_t y, const char *after_start,
                          th_error *err) {
    if (!w) {
        th_error_set(err, TH_ERR_INVALID, "no world");
        return false;
    }
    if (!th_nav_need_map(w, err)) return false;
    if (w->step > 0) {
        th_error_set(err, TH_ERR_STATE, "%s", after_start);
        return false;
    }
    if (!th_nav_in_map(w, x, y)) {
        th_error_set(err, TH_ERR_BLOCKED, "cell (%d, %d) is outside the %d x %d map", x, y,
                     w->nav.map.w, w->nav.map.h);
        return false;
    }
    return true;
}

bool th_world_set_cell(th_world *w, int32_t x, int32_t y, th_cell_kind kind, uint32_t cost,
                       th_error *err) {
    if (!th_between_steps(w, err)) return false;
    if (!settable_cell(w, x, y, "cells are set before the first step; use the events afterwards",
                       err))
        return false;
    uint32_t cell = (uint32_t)y * (uint32_t)w->nav.map.w + (uint32_t)x;
    if (w->nav.map.flags[cell] & TH_NAV_FLAG_SEAM) {
        th_error_set(err, TH_ERR_BLOCKED,
                     "cell (%d, %d) is the wall across a stair's glued edge and must stay a wall",
                     x, y);
        return false;
    }
    if (kind != TH_CELL_OPEN && w->nav.bunker_at[cell] >= 0) {
        th_error_set(err, TH_ERR_BLOCKED, "cell (%d, %d) belongs to bunker '%s' and must stay open",
                     x, y, w->nav.bunker[w->nav.bunker_at[cell]].name);
        return false;
    }
    int rc;
    switch (kind) {
    case TH_CELL_OPEN:
        if (cost < 1 || cost > TH_CELL_COST_MAX) {
            th_error_set(err, TH_ERR_INVALID, "cell cost must be in [1, %d], got %u",
                         TH_CELL_COST_MAX, cost);
            return false;
        }
        rc = th_navmap_set_cost(&w->nav.map, x, y, cost);
        th_nav_unlist_blocked(&w->nav, cell);
        break;
    case TH_CELL_WALL:
    case TH_CELL_DESTRUCTIBLE:
        /* Agents already placed may stand in the new wall: the first step moves them out,
         * like a block event (worlds built before their agents never need to). */
        if (w->count > 0 && !th_navmap_is_blocked(&w->nav.map, x, y)) {
            if (!w->nav.blocked_near && !th_nav_alloc_displacement(w, err)) return false;
            th_nav_list_blocked(&w->nav, cell);
            w->nav.displace = true;
        }
        rc = th_navmap_set_blocked(&w->nav.map, x, y, kind == TH_CELL_DESTRUCTIBLE);
        break;
    default: th_error_set(err, TH_ERR_INVALID, "unknown cell kind %d", (int)kind); return false;
    }
    TH_ASSERT(rc == TH_NAV_OK); /* on the map, checked above */
    w->nav.fields_stale = w->nav.walls_stale = w->nav.combined_stale = true;
    return true;
}

bool th_world_set_cell_speed(th_world *w, int32_t x, int32_t y, float factor, th_error *err) {
    if (!settable_cell(w, x, y, "cell speeds are set before the first step", err)) return false;
    if (!(factor > 0.0f && factor <= 1.0f)) {
        th_error_set(err, TH_ERR_INVALID, "a walking speed factor must be in (0, 1], got %g",
                     (double)factor);
        return false;
    }
    th_world_nav *n = &w->nav;
    if (!n->speed) {
        if (factor == 1.0f) return true;
        n->speed = th_calloc(n->map.ncells, sizeof *n->speed);
        if (!n->speed) {
            th_error_set(err, TH_ERR_NOMEM, "out of memory");
            return false;
        }
        for (uint32_t i = 0; i < n->map.ncells; i++) n->speed[i] = 1.0f;
    }
    n->speed[(uint32_t)y * (uint32_t)n->map.w + (uint32_t)x] = factor;
    return true;
}

float th_world_cell_speed(const th_world *w, int32_t x, int32_t y) {
    if (!w) return 0.0f;
    if (!w->nav.present || !th_nav_in_map(w, x, y)) return 0.0f;
    return w->nav.speed ? w->nav.speed[(uint32_t)y * (uint32_t)w->nav.map.w + (uint32_t)x] : 1.0f;
}

th_cell_kind th_world_cell(const th_world *w, int32_t x, int32_t y, uint32_t *cost) {
    if (!w) return TH_CELL_WALL;
    uint32_t c = w->nav.present ? th_navmap_cost(&w->nav.map, x, y) : 0;
    if (cost) *cost = c;
    if (c > 0) return TH_CELL_OPEN;
    if (w->nav.present && th_nav_in_map(w, x, y)) {
        uint32_t cell = (uint32_t)y * (uint32_t)w->nav.map.w + (uint32_t)x;
        if (w->nav.map.flags[cell] & TH_NAV_FLAG_DESTRUCTIBLE) return TH_CELL_DESTRUCTIBLE;
    }
    return TH_CELL_WALL;
}
