/* The world's terrain: map building, bunkers, the event queue, river-map upkeep between steps,
 * and the per-agent terrain terms (flow, wall push, collision, sheltering). The grid
 * algorithms themselves live in navmap.c, navfield.c and astar.c. */
#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "engine/alloc.h"
#include "sim/behave/goal.h"
#include "sim/core/validate.h"
#include "sim/core/world.h"
#include "sim/dist/dist.h"
#include "sim/dist/dist_serial.h"

/* ---- lifetime --------------------------------------------------------------------------- */

bool th_nav_world_init(th_world *w) {
    th_world_nav *n = &w->nav;
    float cs = w->def.cell_size;
    /* In double, as th_world_create checked the size: a float division can round across an
     * integer and disagree with that check by a column. */
    int32_t cols = (int32_t)ceil((double)w->def.width / cs);
    int32_t rows = (int32_t)ceil((double)w->def.height / cs);
    if (th_navmap_init(&n->map, cols, rows, cs) != TH_NAV_OK) return false;
    /* Cells are set one by one while the world is built: the move masks are redone in one
     * pass when first needed (th_nav_update, path finding, destination fields) rather than
     * nine at every cell set. */
    th_navmap_defer_moves(&n->map);
    n->present = true;
    n->scratch = th_calloc(w->workers, sizeof *n->scratch);
    n->bunker_at = th_alloc(n->map.ncells);
    n->opened = th_calloc(TH_NAV_REPAIR_MAX, sizeof *n->opened);
    if (!n->scratch || !n->bunker_at || !n->opened) return false;
    memset(n->bunker_at, -1, n->map.ncells);
    for (uint32_t i = 0; i < w->workers; i++) {
        if (!(n->scratch[i] = th_nav_scratch_create(&n->map))) return false;
    }
    if (th_nav_combined_init(&n->combined, &n->map) != TH_NAV_OK) return false;
    n->fields_stale = n->combined_stale = n->walls_stale = true;
    return true;
}

void th_nav_world_free(th_world *w) {
    th_world_nav *n = &w->nav;
    for (uint32_t b = 0; b < n->bunker_count; b++) th_nav_field_free(&n->field[b]);
    for (uint32_t d = 0; d < n->dest_count; d++) th_nav_field_free(&n->dest[d]);
    if (n->scratch) {
        for (uint32_t i = 0; i < w->workers; i++) th_nav_scratch_destroy(n->scratch[i]);
    }
    th_free(n->scratch);
    th_nav_combined_free(&n->combined);
    th_astar_destroy(n->astar);
    th_free(n->path);
    th_free(n->waypoints);
    th_free(n->bunker_at);
    th_free(n->speed);
    th_free(n->opened);
    th_free(n->blocked_list);
    th_free(n->blocked_near);
    th_free(n->events);
    th_navmap_free(&n->map);
    memset(n, 0, sizeof *n);
}

/* ---- building --------------------------------------------------------------------------- */

th_error_code th_nav_error_code(th_nav_status rc) {
    switch (rc) {
    case TH_NAV_OK: return TH_OK;
    case TH_NAV_EINVAL:
    case TH_NAV_ERANGE: return TH_ERR_INVALID;
    case TH_NAV_ENOMEM: return TH_ERR_NOMEM;
    case TH_NAV_ENOPATH: return TH_ERR_UNREACHABLE;
    case TH_NAV_ETOOLONG: return TH_ERR_LIMIT;  /* the caller's buffer */
    case TH_NAV_EDENIED: return TH_ERR_BLOCKED; /* not a wall that can be opened */
    }
    return TH_ERR_INVALID;
}

static bool need_map(const th_world *w, th_error *err) {
    if (w->nav.present) return true;
    th_error_set(err, TH_ERR_STATE,
                 "the world has no terrain map (set cell_size in the world def)");
    return false;
}

static bool in_map(const th_world *w, int32_t x, int32_t y) {
    return x >= 0 && y >= 0 && x < w->nav.map.w && y < w->nav.map.h;
}

bool th_world_map_size(const th_world *w, int32_t *cols, int32_t *rows, float *cell_size) {
    if (!w->nav.present) return false;
    if (cols) *cols = w->nav.map.w;
    if (rows) *rows = w->nav.map.h;
    if (cell_size) *cell_size = w->nav.map.cell_size;
    return true;
}

/* Per-cell space for moving agents out of blocked cells: allocated here, between steps, so a
 * step never allocates, and only in worlds that schedule a block. */
static bool alloc_displacement(th_world *w, th_error *err) {
    th_world_nav *n = &w->nav;
    n->blocked_list = th_alloc(n->map.ncells * sizeof *n->blocked_list);
    n->blocked_near = th_alloc(n->map.ncells * sizeof *n->blocked_near);
    if (!n->blocked_list || !n->blocked_near) {
        th_free(n->blocked_list);
        th_free(n->blocked_near);
        n->blocked_list = n->blocked_near = NULL;
        th_error_set(err, TH_ERR_NOMEM, "out of memory for a block event on a %d x %d map",
                     n->map.w, n->map.h);
        return false;
    }
    memset(n->blocked_near, 0xff, n->map.ncells * sizeof *n->blocked_near); /* none blocked */
    n->blocked_count = 0;
    return true;
}

/* A cell that turned from open to blocked since the last step, for displace_agents. */
static void list_blocked(th_world_nav *n, uint32_t cell) {
    n->blocked_near[cell] = TH_UNREACHED | n->blocked_count;
    n->blocked_list[n->blocked_count++] = cell;
}

/* A listed cell opened again before the step that would move agents out of it. */
static void unlist_blocked(th_world_nav *n, uint32_t cell) {
    if (!n->blocked_near || n->blocked_near[cell] == TH_NOT_NEWLY_BLOCKED) return;
    uint32_t at = n->blocked_near[cell] & ~TH_UNREACHED, last = n->blocked_list[--n->blocked_count];
    n->blocked_list[at] = last;
    n->blocked_near[last] = TH_UNREACHED | at;
    n->blocked_near[cell] = TH_NOT_NEWLY_BLOCKED;
}

/* A cell that may be set while building the world: there is a map, no step has run, and
 * (x, y) is on the map. `after_start` says what to do instead once stepping has begun. */
static bool settable_cell(const th_world *w, int32_t x, int32_t y, const char *after_start,
                          th_error *err) {
    if (!need_map(w, err)) return false;
    if (w->step > 0) {
        th_error_set(err, TH_ERR_STATE, "%s", after_start);
        return false;
    }
    if (!in_map(w, x, y)) {
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
        unlist_blocked(&w->nav, cell);
        break;
    case TH_CELL_WALL:
    case TH_CELL_DESTRUCTIBLE:
        /* Agents already placed may stand in the new wall: the first step moves them out,
         * like a block event (worlds built before their agents never need to). */
        if (w->count > 0 && !th_navmap_is_blocked(&w->nav.map, x, y)) {
            if (!w->nav.blocked_near && !alloc_displacement(w, err)) return false;
            list_blocked(&w->nav, cell);
            w->nav.displace = true;
        }
        rc = th_navmap_set_blocked(&w->nav.map, x, y, kind == TH_CELL_DESTRUCTIBLE);
        break;
    default: th_error_set(err, TH_ERR_INVALID, "unknown cell kind %d", (int)kind); return false;
    }
    assert(rc == TH_NAV_OK);
    (void)rc;
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
    if (!w->nav.present || !in_map(w, x, y)) return 0.0f;
    return w->nav.speed ? w->nav.speed[(uint32_t)y * (uint32_t)w->nav.map.w + (uint32_t)x] : 1.0f;
}

th_cell_kind th_world_cell(const th_world *w, int32_t x, int32_t y, uint32_t *cost) {
    uint32_t c = w->nav.present ? th_navmap_cost(&w->nav.map, x, y) : 0;
    if (cost) *cost = c;
    if (c > 0) return TH_CELL_OPEN;
    if (w->nav.present && in_map(w, x, y)) {
        uint32_t cell = (uint32_t)y * (uint32_t)w->nav.map.w + (uint32_t)x;
        if (w->nav.map.flags[cell] & TH_NAV_FLAG_DESTRUCTIBLE) return TH_CELL_DESTRUCTIBLE;
    }
    return TH_CELL_WALL;
}

static int add_bunker(th_world *w, const th_bunker_def *def, th_error *err) {
    if (!th_between_steps(w, err)) return -1;
    th_world_nav *n = &w->nav;
    if (!need_map(w, err)) return -1;
    if (w->step > 0) {
        th_error_set(err, TH_ERR_STATE, "bunkers are added before the first step");
        return -1;
    }
    if (n->bunker_count >= TH_MAX_BUNKERS) {
        th_error_set(err, TH_ERR_LIMIT, "at most %d bunkers", TH_MAX_BUNKERS);
        return -1;
    }
    const char *name = def->name ? def->name : "";
    if (name[0] == '\0' || th_world_find_bunker(w, name).index1) {
        th_error_set(err, TH_ERR_INVALID, "bunker name '%s' is empty or already used", name);
        return -1;
    }
    if (def->x0 > def->x1 || def->y0 > def->y1 || !in_map(w, def->x0, def->y0) ||
        !in_map(w, def->x1, def->y1)) {
        th_error_set(err, TH_ERR_INVALID,
                     "bunker '%s' cells [%d..%d] x [%d..%d] are not a rectangle inside the "
                     "%d x %d map",
                     name, def->x0, def->x1, def->y0, def->y1, n->map.w, n->map.h);
        return -1;
    }
    for (int32_t y = def->y0; y <= def->y1; y++) {
        for (int32_t x = def->x0; x <= def->x1; x++) {
            uint32_t cell = (uint32_t)y * (uint32_t)n->map.w + (uint32_t)x;
            if (th_navmap_is_blocked(&n->map, x, y) || n->bunker_at[cell] >= 0) {
                th_error_set(err, TH_ERR_BLOCKED, "bunker '%s' covers cell (%d, %d), which is %s",
                             name, x, y, n->bunker_at[cell] >= 0 ? "another bunker's" : "a wall");
                return -1;
            }
        }
    }
    uint32_t b = n->bunker_count;
    uint32_t area = (uint32_t)(def->x1 - def->x0 + 1) * (uint32_t)(def->y1 - def->y0 + 1);
    if (area > TH_NAV_MAX_GOALS || th_nav_field_init(&n->field[b], &n->map, area) != TH_NAV_OK ||
        th_nav_field_set_goal_rect(&n->field[b], def->x0, def->y0, def->x1, def->y1, 0) !=
            TH_NAV_OK) {
        th_nav_field_free(&n->field[b]);
        th_error_set(err, area > TH_NAV_MAX_GOALS ? TH_ERR_LIMIT : TH_ERR_NOMEM,
                     "bunker '%s' covers %u cells, more than %u or out of memory", name, area,
                     TH_NAV_MAX_GOALS);
        return -1;
    }
    th_bunker *bk = &n->bunker[b];
    memset(bk, 0, sizeof *bk);
    snprintf(bk->name, sizeof bk->name, "%s", name);
    bk->x0 = def->x0;
    bk->y0 = def->y0;
    bk->x1 = def->x1;
    bk->y1 = def->y1;
    bk->capacity = def->capacity;
    for (int32_t y = def->y0; y <= def->y1; y++) {
        for (int32_t x = def->x0; x <= def->x1; x++) {
            n->bunker_at[(uint32_t)y * (uint32_t)n->map.w + (uint32_t)x] = (int8_t)b;
        }
    }
    n->bunker_count++;
    n->fields_stale = n->combined_stale = true;
    return (int)b;
}

th_bunker_id th_world_add_bunker(th_world *w, const th_bunker_def *def, th_error *err) {
    return th_bunker_handle(add_bunker(w, def, err));
}

uint32_t th_world_bunker_count(const th_world *w) { return w->nav.bunker_count; }

bool th_world_get_bunker(const th_world *w, th_bunker_id handle, th_bunker_info *out) {
    const uint32_t bunker = TH_INDEX(handle);
    if (bunker >= w->nav.bunker_count) return false;
    const th_bunker *b = &w->nav.bunker[bunker];
    *out = (th_bunker_info){b->name,     b->x0,        b->y0,        b->x1,  b->y1,
                            b->capacity, b->sheltered, b->destroyed, b->full};
    return true;
}

th_bunker_id th_world_find_bunker(const th_world *w, const char *name) {
    for (uint32_t b = 0; b < w->nav.bunker_count; b++) {
        if (strcmp(w->nav.bunker[b].name, name) == 0) return th_bunker_handle((int)b);
    }
    return (th_bunker_id){0};
}

/* ---- events ----------------------------------------------------------------------------- */

/* Heap order: by step, then by scheduling order (seq is unique, so the order is total and
 * the result does not depend on the heap's shape). */
static bool event_before(const th_event *a, const th_event *b) {
    return a->step < b->step || (a->step == b->step && a->seq < b->seq);
}

static bool push_event(th_world *w, th_event e, th_error *err) {
    th_world_nav *n = &w->nav;
    if (n->event_count >= TH_MAX_PENDING_EVENTS) {
        th_error_set(err, TH_ERR_LIMIT, "more than %d events pending", TH_MAX_PENDING_EVENTS);
        return false;
    }
    if (n->event_count == n->event_capacity) {
        uint32_t cap = n->event_capacity ? n->event_capacity * 2 : 64;
        if (!th_grow_array((void **)&n->events, sizeof *n->events, n->event_count, cap)) {
            th_error_set(err, TH_ERR_NOMEM, "out of memory");
            return false;
        }
        n->event_capacity = cap;
    }
    /* A heap insert, O(log n): a sorted insert moved up to every pending event, so events
     * scheduled latest-first cost a quadratic number of moves (65,536 of them: 2.8 s). */
    e.seq = n->event_seq++;
    uint32_t at = n->event_count++;
    while (at > 0 && event_before(&e, &n->events[(at - 1) / 2])) {
        n->events[at] = n->events[(at - 1) / 2];
        at = (at - 1) / 2;
    }
    n->events[at] = e;
    return true;
}

/* Removes the earliest event (the heap's root) into *out. */
static void pop_event(th_world_nav *n, th_event *out) {
    *out = n->events[0];
    th_event last = n->events[--n->event_count];
    uint32_t at = 0;
    for (;;) {
        uint32_t kid = 2 * at + 1;
        if (kid >= n->event_count) break;
        if (kid + 1 < n->event_count && event_before(&n->events[kid + 1], &n->events[kid])) kid++;
        if (!event_before(&n->events[kid], &last)) break;
        n->events[at] = n->events[kid];
        at = kid;
    }
    if (n->event_count) n->events[at] = last;
}

bool th_world_schedule(th_world *w, uint64_t step, const th_event_def *def, th_error *err) {
    if (!th_between_steps(w, err)) return false;
    if (!need_map(w, err)) return false;
    th_validate_call(w, 3u | (uint32_t)def->type << 4, step, def->bunker.index1);
    th_validate_call(w, 4u | def->cost << 4, (uint64_t)(uint32_t)def->x0 << 32 | (uint32_t)def->y0,
                     (uint64_t)(uint32_t)def->x1 << 32 | (uint32_t)def->y1);
    if (step < w->step) {
        th_error_set(err, TH_ERR_INVALID, "step %llu is already past (the world is at step %llu)",
                     (unsigned long long)step, (unsigned long long)w->step);
        return false;
    }
    th_event e = {.step = step, .def = *def};
    if (def->type == TH_EVENT_SET_COST && (def->cost < 1 || def->cost > TH_CELL_COST_MAX)) {
        th_error_set(err, TH_ERR_INVALID, "terrain cost must be in [1, %d], got %u",
                     TH_CELL_COST_MAX, def->cost);
        return false;
    }
    switch (def->type) {
    case TH_EVENT_DESTROY_BUNKER:
    case TH_EVENT_RESTORE_BUNKER:
        if (!th_handle_given(def->bunker.index1, "bunker", err)) return false;
        if (TH_INDEX(def->bunker) >= w->nav.bunker_count) {
            th_error_set(err, TH_ERR_HANDLE, "no bunker %u (the world has %u)",
                         TH_INDEX(def->bunker), w->nav.bunker_count);
            return false;
        }
        break;
    case TH_EVENT_SET_COST:
    case TH_EVENT_BREAK_WALLS:
    case TH_EVENT_BLOCK_CELLS: {
        const th_event_def *d = def;
        if (d->x0 > d->x1 || d->y0 > d->y1) {
            th_error_set(err, TH_ERR_INVALID, "empty cell rectangle [%d..%d] x [%d..%d]", d->x0,
                         d->x1, d->y0, d->y1);
            return false;
        }
        e.def.x0 = d->x0 < 0 ? 0 : d->x0;
        e.def.y0 = d->y0 < 0 ? 0 : d->y0;
        e.def.x1 = d->x1 >= w->nav.map.w ? w->nav.map.w - 1 : d->x1;
        e.def.y1 = d->y1 >= w->nav.map.h ? w->nav.map.h - 1 : d->y1;
        if (e.def.x0 > e.def.x1 || e.def.y0 > e.def.y1) {
            th_error_set(err, TH_ERR_BLOCKED,
                         "cell rectangle [%d..%d] x [%d..%d] lies outside the %d x %d map", d->x0,
                         d->x1, d->y0, d->y1, w->nav.map.w, w->nav.map.h);
            return false;
        }
        break;
    }
    default:
        th_error_set(err, TH_ERR_INVALID, "unknown event type %d", (int)def->type);
        return false;
    }
    if (def->type == TH_EVENT_BLOCK_CELLS && !w->nav.blocked_near && !alloc_displacement(w, err)) {
        return false;
    }
    return push_event(w, e, err);
}

uint32_t th_world_pending_events(const th_world *w) { return w->nav.event_count; }

static bool schedule_now(th_world *w, th_event_def e, th_error *err) {
    return th_world_schedule(w, w->step, &e, err);
}

bool th_world_destroy_bunker(th_world *w, th_bunker_id bunker, th_error *err) {
    return schedule_now(w, (th_event_def){.type = TH_EVENT_DESTROY_BUNKER, .bunker = bunker}, err);
}

bool th_world_restore_bunker(th_world *w, th_bunker_id bunker, th_error *err) {
    return schedule_now(w, (th_event_def){.type = TH_EVENT_RESTORE_BUNKER, .bunker = bunker}, err);
}

bool th_world_break_walls(th_world *w, int32_t x0, int32_t y0, int32_t x1, int32_t y1,
                          th_error *err) {
    return schedule_now(w, (th_event_def){TH_EVENT_BREAK_WALLS, {0}, x0, y0, x1, y1, 0}, err);
}

bool th_world_block_cells(th_world *w, int32_t x0, int32_t y0, int32_t x1, int32_t y1,
                          th_error *err) {
    return schedule_now(w, (th_event_def){TH_EVENT_BLOCK_CELLS, {0}, x0, y0, x1, y1, 0}, err);
}

bool th_world_set_cost(th_world *w, int32_t x0, int32_t y0, int32_t x1, int32_t y1, uint32_t cost,
                       th_error *err) {
    return schedule_now(w, (th_event_def){TH_EVENT_SET_COST, {0}, x0, y0, x1, y1, cost}, err);
}

/* A cell whose routes only got cheaper (opened, or a lower cost): the fields are repaired
 * outward from it, exactly (th_nav_field_repair_opened). */
static void list_opened(th_world_nav *n, uint32_t cell) {
    if (n->opened_count < TH_NAV_REPAIR_MAX) n->opened[n->opened_count++] = cell;
    else n->fields_stale = true; /* too many to repair one by one */
    n->terrain_lowered = true;
}

static void apply_rect(th_world *w, const th_event_def *e) {
    th_world_nav *n = &w->nav;
    bool raised = false;
    for (int32_t y = e->y0; y <= e->y1; y++) {
        for (int32_t x = e->x0; x <= e->x1; x++) {
            uint32_t cell = (uint32_t)y * (uint32_t)n->map.w + (uint32_t)x;
            if (e->type == TH_EVENT_BREAK_WALLS) {
                if (th_navmap_break_wall(&n->map, x, y) != TH_NAV_OK) continue; /* not a wall */
                unlist_blocked(n, cell);
                list_opened(n, cell);
                n->walls_stale = true;
            } else if (th_navmap_is_blocked(&n->map, x, y) || n->bunker_at[cell] >= 0) {
                continue; /* walls and bunkers are neither blocked again nor re-priced */
            } else if (e->type == TH_EVENT_SET_COST) {
                uint32_t old = n->map.cost[cell];
                if (old == e->cost) continue;
                th_navmap_set_cost(&n->map, x, y, e->cost);
                /* Cheaper: every old cost-to-goal is still the cost of a route that exists, so
                 * the repair from the changed cells is exact. Dearer: old values may be too low
                 * anywhere downstream, so the fields are recomputed in full, like a block. Wall
                 * distances do not change: the cell stays open. */
                if (e->cost < old) list_opened(n, cell);
                else n->fields_stale = raised = true;
            } else {
                th_navmap_set_blocked(&n->map, x, y, false);
                n->fields_stale = n->walls_stale = n->displace = raised = true;
                /* Each cell turns from open to blocked at most once per step, so the list
                 * never holds more than every cell. */
                list_blocked(n, cell);
            }
        }
    }
    if (raised) {
        if (n->raised_count < TH_NAV_RAISED_RECTS) n->raised[n->raised_count++] = *e;
        else n->raised_overflow = true;
    }
}

/* Moving agents out of newly blocked cells.
 *
 * Every agent standing in a cell blocked by this step's events moves to open ground it could
 * walk to: a multi-source breadth-first search from the open cells bordering the newly blocked
 * region inward over that region (4-connected) gives every blocked cell the open cell that
 * reached it first, in one pass over the region whatever its size; each agent then moves into
 * its cell's open cell, to the point of it nearest to where the agent stood. The newly blocked
 * cells were open until now, so the agent's old cell connects to that open cell through them:
 * it is reachable from where the agent was. A blocked cell no search reaches lies in a region
 * the events closed off entirely (no open cell borders it): its agents have no open ground to
 * go to and are removed ("buried"), counted in th_world_stats.buried and .removed.
 *
 * The search needs no queue of its own: the list of newly blocked cells is reordered in place
 * so that its front is the queue (reached cells, in the order reached), and an unreached
 * cell's entry in blocked_near holds its position in the list so it can be swapped forward in
 * constant time. Deterministic: the order depends only on the events. */
static void list_swap(th_world_nav *n, uint32_t i, uint32_t j) {
    uint32_t a = n->blocked_list[i], b = n->blocked_list[j];
    n->blocked_list[i] = b;
    n->blocked_list[j] = a;
    if (n->blocked_near[a] & TH_UNREACHED) n->blocked_near[a] = TH_UNREACHED | j;
    if (n->blocked_near[b] & TH_UNREACHED) n->blocked_near[b] = TH_UNREACHED | i;
}

static void displace_agents(th_world *w) {
    th_world_nav *n = &w->nav;
    const th_navmap *m = &n->map;
    uint32_t *list = n->blocked_list, *near = n->blocked_near, count = n->blocked_count;
    static const int32_t dx[4] = {-1, 1, 0, 0}, dy[4] = {0, 0, -1, 1};
    /* Seeds: blocked cells with an open 4-neighbour, moved to the front of the list. */
    uint32_t reached = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t c = list[i];
        int32_t x = (int32_t)(c % (uint32_t)m->w), y = (int32_t)(c / (uint32_t)m->w);
        for (int d = 0; d < 4; d++) {
            int32_t nx = x + dx[d], ny = y + dy[d];
            if (nx < 0 || ny < 0 || nx >= m->w || ny >= m->h || th_navmap_is_blocked(m, nx, ny)) {
                continue;
            }
            near[c] = (uint32_t)ny * (uint32_t)m->w + (uint32_t)nx;
            list_swap(n, i, reached++);
            break;
        }
    }
    /* Breadth-first over the region: the list's front is the queue. */
    for (uint32_t head = 0; head < reached; head++) {
        uint32_t c = list[head];
        int32_t x = (int32_t)(c % (uint32_t)m->w), y = (int32_t)(c / (uint32_t)m->w);
        for (int d = 0; d < 4; d++) {
            int32_t nx = x + dx[d], ny = y + dy[d];
            if (nx < 0 || ny < 0 || nx >= m->w || ny >= m->h) continue;
            uint32_t e = (uint32_t)ny * (uint32_t)m->w + (uint32_t)nx;
            if (near[e] == TH_NOT_NEWLY_BLOCKED || !(near[e] & TH_UNREACHED)) continue;
            uint32_t at = near[e] & ~TH_UNREACHED;
            near[e] = near[c];
            list_swap(n, at, reached++);
        }
    }
    th_agents *a = &w->buf[w->cur];
    float cs = m->cell_size, inset = 0.25f * cs;
    uint32_t buried = 0;
    for (uint32_t k = 0; k < w->count; k++) {
        uint32_t c = th_navmap_cell_of(m, th_v2(a->px[k], a->py[k]), NULL, NULL);
        uint32_t to = near[c];
        if (to == TH_NOT_NEWLY_BLOCKED) continue;
        if (to & TH_UNREACHED) { /* walled in: no open ground to go to */
            w->shelter[k] = TH_MARK_REMOVED;
            buried++;
            continue;
        }
        /* The point of the open cell nearest to the agent, kept a quarter cell inside it so
         * float rounding cannot put it back on the blocked side of the edge. */
        th_vec2 o = th_navmap_cell_centre(m, (int32_t)(to % (uint32_t)m->w),
                                          (int32_t)(to / (uint32_t)m->w));
        float half = 0.5f * cs - inset;
        float px = th_clampf(a->px[k], o.x - half, o.x + half);
        float py = th_clampf(a->py[k], o.y - half, o.y + half);
        a->px[k] = px < w->def.width ? px : nextafterf(w->def.width, 0.0f);
        a->py[k] = py < w->def.height ? py : nextafterf(w->def.height, 0.0f);
        a->vx[k] = a->vy[k] = 0.0f;
        /* Bodies moved onto the same open cells overlap each other and the new wall: the
         * contacts phase of this step gets the settling rounds agents added together get. */
        w->settle = true;
    }
    for (uint32_t i = 0; i < count; i++) near[list[i]] = TH_NOT_NEWLY_BLOCKED;
    n->blocked_count = 0;
    /* Split agents: each rank buried its own; the count is summed and the drop (a replay over
     * every rank) runs on all of them, whether or not this rank buried any. */
    if (th_dist_serial_active(w)) { th_dist_sum_u32(w, &buried, 1); }
    if (buried) {
        w->stats.buried += buried;
        th_world_drop_marked(w); /* counts them in stats.removed */
    }
}

void th_nav_apply_events(th_world *w) {
    th_world_nav *n = &w->nav;
    n->terrain_lowered = n->raised_overflow = false;
    n->raised_count = 0;
    while (n->event_count > 0 && n->events[0].step <= w->step) {
        th_event ev;
        pop_event(n, &ev);
        const th_event_def *e = &ev.def;
        switch (e->type) {
        case TH_EVENT_DESTROY_BUNKER:
        case TH_EVENT_RESTORE_BUNKER:
            n->bunker[TH_INDEX(e->bunker)].destroyed = e->type == TH_EVENT_DESTROY_BUNKER;
            n->combined_stale = true;
            break;
        case TH_EVENT_BREAK_WALLS:
        case TH_EVENT_BLOCK_CELLS:
        case TH_EVENT_SET_COST: apply_rect(w, e); break;
        }
    }
    if (n->displace && n->blocked_near) {
        displace_agents(w);
        n->displace = false;
    }
}

/* Bring a set of fields up to date with the map: in full, or from the opened cells. */
static void refresh_fields(th_world *w, th_nav_field *fields, uint32_t count) {
    th_world_nav *n = &w->nav;
    if (count == 0) return;
    int rc;
    if (n->fields_stale) {
        rc = th_nav_fields_compute(w->pool, n->scratch, w->workers, fields, count, &n->map);
    } else {
        rc = th_nav_fields_repair_opened(w->pool, n->scratch, w->workers, fields, count, &n->map,
                                         n->opened, n->opened_count);
    }
    assert(rc == TH_NAV_OK); /* sizes and scratch are set up to fit: no failure is possible */
    (void)rc;
}

void th_nav_update(th_world *w) {
    th_world_nav *n = &w->nav;
    int rc = TH_NAV_OK;
    th_navmap_update_moves(&n->map, w->pool);
    const bool map_changed = n->fields_stale || n->opened_count > 0;
    if (map_changed) {
        refresh_fields(w, n->field, n->bunker_count);
        refresh_fields(w, n->dest, n->dest_count);
        n->fields_stale = false;
        n->opened_count = 0;
        n->combined_stale = true;
    }
    if (n->walls_stale) {
        th_navmap_update_walls(&n->map, w->pool);
        n->walls_stale = false;
    }
    if (n->combined_stale) {
        uint8_t open[TH_MAX_BUNKERS];
        for (uint32_t b = 0; b < n->bunker_count; b++) {
            open[b] = !n->bunker[b].destroyed && !n->bunker[b].full;
        }
        rc = th_nav_combined_build(&n->combined, w->pool, n->field, n->bunker_count, open);
        assert(rc == TH_NAV_OK);
        n->combined_stale = false;
    }
    /* Congestion-aware destination fields: on their own schedule, and with the others when
     * the map changed (their blocked cells must agree with the map's). */
    th_goal_congestion_update(w, map_changed);
    (void)rc;
}

/* ---- per-agent terms -------------------------------------------------------------------- */

th_vec2 th_nav_steer(const th_world *w, th_agent_id id, const th_crowd_rt *c, th_vec2 p, th_vec2 v,
                     bool *stranded) {
    th_vec2 acc = th_v2(0.0f, 0.0f);
    *stranded = false;
    const th_world_nav *n = &w->nav;
    if (c->goal != TH_GOAL_NONE) {
        th_vec2 dir;
        bool route = th_goal_direction(w, id, c, p, &dir);
        /* No route: stay put (brake) rather than wander into a dead end. */
        th_vec2 desired = route ? th_v2_scale(dir, c->max_speed) : th_v2(0.0f, 0.0f);
        th_vec2 f = th_v2_clamp_len(th_v2_sub(desired, v), c->max_force);
        acc = th_v2_scale(f, c->w_flow);
        *stranded = !route;
    }
    if (n->present && c->w_wall > 0.0f) {
        th_vec2 away;
        /* The distance field sees walls past the map's edges; a wrap-around world has none. */
        float d = c->wall_radius;
        if (!w->wrap) d = th_navmap_wall_sample(&n->map, p, &away);
        else if (!th_nav_nearest_wall(w, p, c->wall_radius, &d, &away)) d = c->wall_radius;
        if (d < c->wall_radius) {
            float push = c->max_force * (1.0f - d / c->wall_radius) * c->w_wall;
            acc = th_v2_add(acc, th_v2_scale(away, push));
        }
    }
    return acc;
}

/* Is cell (x, y) blocked? Outside the map it is, unless the world wraps around (then the map's
 * columns and rows repeat: a wrap-around world with a map is a whole number of cells). */
static bool cell_blocked(const th_world *w, int32_t x, int32_t y) {
    const th_navmap *m = &w->nav.map;
    if (w->wrap) {
        x %= m->w;
        y %= m->h;
        if (x < 0) x += m->w;
        if (y < 0) y += m->h;
    }
    return th_navmap_is_blocked(m, x, y);
}

/* Cell coordinate of metres `v`, bounded well inside int32 so that NaN or huge values cannot
 * make the cast undefined (both land outside the map). */
static int32_t cell_coord(float v, float inv_cell) {
    float f = floorf(v * inv_cell);
    return f >= -1.0e6f && f <= 1.0e6f ? (int32_t)f : -1000001;
}

/* Is p in a blocked cell? Wrap-aware th_navmap_blocked_at. */
static bool blocked_at(const th_world *w, th_vec2 p) {
    const float inv = w->nav.map.inv_cell_size;
    return cell_blocked(w, cell_coord(p.x, inv), cell_coord(p.y, inv));
}

float th_nav_speed_at(const th_world *w, th_vec2 p) {
    if (!w->nav.present || !w->nav.speed) return 1.0f;
    return w->nav.speed[th_navmap_cell_of(&w->nav.map, p, NULL, NULL)];
}

/* Push-out of a disc from one axis-aligned box [x0, x1] x [y0, y1]. */
/* Whether no blocked cell, nor the ring of virtual ones around the map, comes within r of p, by
 * the wall distance of p's cell: no blocked cell centre is nearer to that cell's centre, and p
 * lies within half a cell diagonal of it, so no blocked cell is nearer to p than that distance
 * less a whole diagonal. A cheap test that most agents pass, away from walls. Only for p on the
 * map and without wrap-around (the wall distance does not look across the seams). */
static bool clear_of_walls(const th_world *w, th_vec2 p, float r) {
    const th_navmap *m = &w->nav.map;
    const float cs = m->cell_size;
    if (w->wrap ||
        !(p.x >= 0.0f && p.y >= 0.0f && p.x < (float)m->w * cs && p.y < (float)m->h * cs))
        return false;
    return m->wall_dist[th_navmap_cell_of(m, p, NULL, NULL)] - 1.4143f * cs >= r;
}

static th_vec2 push_out_of_box(th_vec2 p, float r, float x0, float y0, float x1, float y1) {
    const th_vec2 q = th_v2(th_clampf(p.x, x0, x1), th_clampf(p.y, y0, y1));
    const th_vec2 d = th_v2_sub(p, q);
    const float d2 = th_v2_len2(d);
    if (d2 >= r * r) return p;
    if (d2 > 1e-14f) {
        const float dist = sqrtf(d2);
        return th_v2_add(p, th_v2_scale(d, (r - dist) / dist));
    }
    /* The centre is inside the box: out through the nearest face. */
    const float left = p.x - x0, right = x1 - p.x, down = p.y - y0, up = y1 - p.y;
    const float m = fminf(fminf(left, right), fminf(down, up));
    if (m == left) return th_v2(x0 - r, p.y);
    if (m == right) return th_v2(x1 + r, p.y);
    if (m == down) return th_v2(p.x, y0 - r);
    return th_v2(p.x, y1 + r);
}

th_vec2 th_nav_push_out_of_walls(const th_world *w, th_vec2 p, float r) {
    if (w->nav.present && !clear_of_walls(w, p, r)) {
        const th_navmap *m = &w->nav.map;
        const float cs = m->cell_size, inv = m->inv_cell_size;
        const int32_t x0 = cell_coord(p.x - r, inv), x1 = cell_coord(p.x + r, inv);
        const int32_t y0 = cell_coord(p.y - r, inv), y1 = cell_coord(p.y + r, inv);
        /* A disc of radius <= TH_MAX_BODY_RADIUS covers a bounded number of cells; anything
         * else is NaN or off the world, which the bound below handles. */
        if (x1 - x0 <= 64 && y1 - y0 <= 64 && x0 > -1000001 && y0 > -1000001) {
            for (int32_t y = y0; y <= y1; y++) {
                for (int32_t x = x0; x <= x1; x++) {
                    if (!cell_blocked(w, x, y)) continue;
                    p = push_out_of_box(p, r, (float)x * cs, (float)y * cs, (float)(x + 1) * cs,
                                        (float)(y + 1) * cs);
                }
            }
        }
    }
    if (!w->wrap) {
        const float W = w->def.width, H = w->def.height;
        if (W > 2.0f * r) p.x = th_clampf(p.x, r, W - r);
        if (H > 2.0f * r) p.y = th_clampf(p.y, r, H - r);
    }
    return p;
}

bool th_nav_nearest_wall(const th_world *w, th_vec2 p, float range, float *dist, th_vec2 *away) {
    float best2 = range * range;
    th_vec2 best = th_v2(0.0f, 0.0f);
    bool found = false;
    if (w->nav.present) {
        const th_navmap *m = &w->nav.map;
        const float cs = m->cell_size, inv = m->inv_cell_size;
        /* The distance field bounds the search: no blocked cell centre is nearer than the own
         * cell's wall distance, so no blocked cell is nearer than that less a cell diagonal. */
        const uint32_t own = th_navmap_cell_of(m, p, NULL, NULL);
        if (w->wrap || m->wall_dist[own] - 1.4143f * cs < range) {
            const int32_t x0 = cell_coord(p.x - range, inv), x1 = cell_coord(p.x + range, inv);
            const int32_t y0 = cell_coord(p.y - range, inv), y1 = cell_coord(p.y + range, inv);
            if (x1 - x0 <= 64 && y1 - y0 <= 64 && x0 > -1000001 && y0 > -1000001) {
                for (int32_t y = y0; y <= y1; y++) {
                    for (int32_t x = x0; x <= x1; x++) {
                        if (!cell_blocked(w, x, y)) continue;
                        const th_vec2 q = th_v2(th_clampf(p.x, (float)x * cs, (float)(x + 1) * cs),
                                                th_clampf(p.y, (float)y * cs, (float)(y + 1) * cs));
                        const th_vec2 d = th_v2_sub(p, q);
                        const float d2 = th_v2_len2(d);
                        if (d2 < best2) {
                            best2 = d2;
                            best = d;
                            found = true;
                        }
                    }
                }
            }
        }
    }
    if (!w->wrap) {
        /* The world's edges are walls too. */
        const float W = w->def.width, H = w->def.height;
        const float e[4] = {p.x, W - p.x, p.y, H - p.y};
        const th_vec2 n[4] = {th_v2(1, 0), th_v2(-1, 0), th_v2(0, 1), th_v2(0, -1)};
        for (int k = 0; k < 4; k++) {
            if (e[k] * e[k] < best2) {
                best2 = e[k] * e[k];
                best = th_v2_scale(n[k], e[k]);
                found = true;
            }
        }
    }
    if (!found) return false;
    *dist = sqrtf(best2);
    *away = th_v2_norm(best);
    return true;
}

th_vec2 th_nav_move(const th_world *w, th_vec2 p, th_vec2 d, th_vec2 *v) {
    const th_navmap *m = &w->nav.map;
    /* Sub-steps of at most half a cell, so no move can jump over a one-cell wall. */
    enum { MAX_SUBSTEPS = 256 };
    float len = th_v2_len(d);
    float half = 0.5f * m->cell_size;
    uint32_t steps = len > half ? (uint32_t)ceilf(len / half) : 1u;
    if (steps > MAX_SUBSTEPS) steps = MAX_SUBSTEPS;
    th_vec2 s = th_v2_scale(d, 1.0f / (float)steps);
    for (uint32_t i = 0; i < steps; i++) {
        th_vec2 q = th_v2_add(p, s);
        if (!blocked_at(w, q)) {
            p = q;
            continue;
        }
        /* Slide: keep the axis that is free, stop the one that hit. */
        if (!blocked_at(w, th_v2(q.x, p.y))) {
            p.x = q.x;
            s.y = 0.0f;
            v->y = 0.0f;
        } else if (!blocked_at(w, th_v2(p.x, q.y))) {
            p.y = q.y;
            s.x = 0.0f;
            v->x = 0.0f;
        } else {
            *v = th_v2(0.0f, 0.0f);
            break;
        }
    }
    return p;
}

uint8_t th_nav_shelter_at(const th_world *w, th_vec2 p) {
    const th_world_nav *n = &w->nav;
    uint32_t cell = th_navmap_cell_of(&n->map, p, NULL, NULL);
    int b = n->bunker_at[cell];
    if (b < 0 || n->bunker[b].destroyed || n->bunker[b].full) return 0;
    return (uint8_t)(b + 1);
}

/* ---- queries ---------------------------------------------------------------------------- */

/* A query position the map can answer for: finite and on the world. Off the world (or NaN)
 * the cell lookup would clamp to an edge cell and answer for a place the caller never named,
 * so every query refuses such a point with its documented answer (throng.h). */
static bool on_world(const th_world *w, th_vec2 p) {
    return isfinite(p.x) && isfinite(p.y) && p.x >= 0.0f && p.y >= 0.0f && p.x < w->def.width &&
           p.y < w->def.height;
}

static bool off_world(const th_world *w, th_vec2 p, th_error *err) {
    if (on_world(w, p)) return false;
    th_error_set(err, th_error_point_code(p), "position (%g, %g) is not on the %g x %g m world",
                 (double)p.x, (double)p.y, (double)w->def.width, (double)w->def.height);
    return true;
}

float th_world_wall_distance(const th_world *w, th_vec2 p, th_vec2 *away) {
    if (!w->nav.present) {
        if (away) *away = th_v2(0.0f, 0.0f);
        return INFINITY;
    }
    if (!on_world(w, p)) { /* off the walled world: as inside a wall */
        if (away) *away = th_v2(0.0f, 0.0f);
        return 0.0f;
    }
    return th_navmap_wall_sample(&w->nav.map, p, away);
}

bool th_world_flow(const th_world *w, th_vec2 p, th_vec2 *dir) {
    *dir = th_v2(0.0f, 0.0f);
    if (!w->nav.present || w->step == 0 || !on_world(w, p)) return false;
    return th_nav_flow_sample(&w->nav.combined.nearest, &w->nav.map, p, dir);
}

bool th_world_bunker_flow(const th_world *w, th_bunker_id handle, th_vec2 p, th_vec2 *dir) {
    const uint32_t bunker = TH_INDEX(handle);
    *dir = th_v2(0.0f, 0.0f);
    if (!w->nav.present || w->step == 0 || bunker >= w->nav.bunker_count || !on_world(w, p)) {
        return false;
    }
    return th_nav_flow_sample(&w->nav.field[bunker], &w->nav.map, p, dir);
}

float th_world_cost_to_shelter(const th_world *w, th_vec2 p) {
    if (!w->nav.present || w->step == 0 || !on_world(w, p)) return INFINITY;
    return th_nav_cost_at(&w->nav.combined.nearest, &w->nav.map, p);
}

th_bunker_id th_world_nearest_bunker(const th_world *w, th_vec2 p) {
    if (!w->nav.present || w->step == 0 || !on_world(w, p)) return (th_bunker_id){0};
    return th_bunker_handle(w->nav.combined.winner[th_navmap_cell_of(&w->nav.map, p, NULL, NULL)]);
}

/* Cell path down field `f` from p's cell, as cell centres: the "full path" query. */
static bool walk_descent(const th_navmap *m, const th_nav_field *f, th_vec2 p, th_vec2 *out,
                         uint32_t max, uint32_t *count, th_error *err) {
    int32_t x, y;
    th_navmap_cell_of(m, p, &x, &y);
    uint32_t len = 0;
    for (;;) {
        uint8_t d = f->descent[(uint32_t)y * (uint32_t)m->w + (uint32_t)x];
        if (d == TH_NAV_DESCENT_UNREACHABLE) {
            th_error_set(err, TH_ERR_UNREACHABLE, "no goal can be reached from cell (%d, %d)", x,
                         y);
            return false;
        }
        if (len == max) {
            th_error_set(err, TH_ERR_LIMIT, "the path is longer than the %u points given room for",
                         max);
            return false;
        }
        out[len++] = th_navmap_cell_centre(m, x, y);
        if (d == TH_NAV_DESCENT_GOAL) break;
        x += th_nav_move_dx[d];
        y += th_nav_move_dy[d];
    }
    *count = len;
    return true;
}

bool th_world_shelter_path(const th_world *w, th_vec2 p, th_vec2 *out, uint32_t max,
                           uint32_t *count, th_error *err) {
    if (!need_map(w, err)) return false;
    if (w->step == 0) {
        th_error_set(err, TH_ERR_STATE, "river maps are built by the first step");
        return false;
    }
    if (off_world(w, p, err)) return false;
    return walk_descent(&w->nav.map, &w->nav.combined.nearest, p, out, max, count, err);
}

int th_nav_add_destinations(th_world *w, const th_destination *goals, uint32_t count,
                            th_error *err) {
    if (!th_between_steps(w, err)) return -1;
    th_world_nav *n = &w->nav;
    if (!need_map(w, err)) return -1;
    if (n->dest_count >= TH_MAX_DESTINATION_FIELDS) {
        th_error_set(err, TH_ERR_LIMIT, "at most %d destination fields", TH_MAX_DESTINATION_FIELDS);
        return -1;
    }
    if (count < 1 || count > TH_NAV_MAX_GOALS) {
        th_error_set(err, TH_ERR_INVALID, "a destination field takes 1 to %u goals, got %u",
                     TH_NAV_MAX_GOALS, count);
        return -1;
    }
    th_nav_goal *g = th_alloc(count * sizeof *g);
    if (!g) {
        th_error_set(err, TH_ERR_NOMEM, "out of memory");
        return -1;
    }
    /* Weights in cost units: TH_NAV_UNITS_PER_CELL units are one cell of cost-1 ground. */
    float units_per_metre = (float)TH_NAV_UNITS_PER_CELL / n->map.cell_size;
    for (uint32_t i = 0; i < count; i++) {
        const th_destination *d = &goals[i];
        float u = d->weight * units_per_metre;
        if (!in_map(w, d->x, d->y) || th_navmap_is_blocked(&n->map, d->x, d->y) ||
            !(u >= 0.0f && u <= (float)TH_NAV_MAX_WEIGHT)) {
            th_error_set(err, TH_ERR_INVALID,
                         "goal %u: cell (%d, %d) must be an open cell of the map and its "
                         "weight in [0, %g] metres, got %g",
                         i, d->x, d->y, (double)((float)TH_NAV_MAX_WEIGHT / units_per_metre),
                         (double)d->weight);
            th_free(g);
            return -1;
        }
        g[i] = (th_nav_goal){d->x, d->y, (uint32_t)lrintf(u)};
    }
    th_nav_field *f = &n->dest[n->dest_count];
    int rc = th_nav_field_init(f, &n->map, count);
    if (rc == TH_NAV_OK) rc = th_nav_field_set_goals(f, g, count);
    th_navmap_update_moves(&n->map, w->pool);
    if (rc == TH_NAV_OK) rc = th_nav_field_compute(f, &n->map, n->scratch[0]);
    th_free(g);
    if (rc != TH_NAV_OK) {
        th_nav_field_free(f);
        th_error_set(err, th_nav_error_code(rc), "out of memory for a destination field");
        return -1;
    }
    return (int)n->dest_count++;
}

th_field_id th_world_add_destinations(th_world *w, const th_destination *goals, uint32_t count,
                                      th_error *err) {
    return th_field_handle(th_nav_add_destinations(w, goals, count, err));
}

uint32_t th_world_destination_count(const th_world *w) { return w->nav.dest_count; }

bool th_world_destination_flow(const th_world *w, th_field_id handle, th_vec2 p, th_vec2 *dir) {
    const uint32_t field = TH_INDEX(handle);
    *dir = th_v2(0.0f, 0.0f);
    if (field >= w->nav.dest_count || !on_world(w, p)) return false;
    return th_nav_flow_sample(&w->nav.dest[field], &w->nav.map, p, dir);
}

float th_world_destination_cost(const th_world *w, th_field_id handle, th_vec2 p) {
    const uint32_t field = TH_INDEX(handle);
    if (field >= w->nav.dest_count || !on_world(w, p)) return INFINITY;
    return th_nav_cost_at(&w->nav.dest[field], &w->nav.map, p);
}

bool th_world_destination_path(const th_world *w, th_field_id handle, th_vec2 p, th_vec2 *out,
                               uint32_t max, uint32_t *count, th_error *err) {
    if (!th_handle_given(handle.index1, "destination field", err)) return false;
    const uint32_t field = TH_INDEX(handle);
    if (field >= w->nav.dest_count) {
        th_error_set(err, TH_ERR_HANDLE, "no destination field %u (the world has %u)", field,
                     w->nav.dest_count);
        return false;
    }
    if (off_world(w, p, err)) return false;
    /* A destination field is computed when added, so it is valid before the first step. */
    return walk_descent(&w->nav.map, &w->nav.dest[field], p, out, max, count, err);
}

bool th_nav_path_ready(th_world *w, th_error *err) {
    th_world_nav *n = &w->nav;
    th_navmap_update_moves(&n->map, w->pool);
    if (!n->waypoints) { /* first use: A* working memory */
        n->astar = th_astar_create(&n->map);
        /* Written before read, and only as far as a path reaches: left unzeroed, their pages
         * are never touched beyond that (192 MiB on a 4096 x 4096 map). */
        n->path = th_alloc(n->map.ncells * sizeof *n->path);
        n->waypoints = th_alloc(n->map.ncells * sizeof *n->waypoints);
        if (!n->astar || !n->path || !n->waypoints) {
            th_astar_destroy(n->astar);
            th_free(n->path);
            th_free(n->waypoints);
            n->astar = NULL;
            n->path = NULL;
            n->waypoints = NULL;
            th_error_set(err, TH_ERR_NOMEM, "out of memory for path finding");
            return false;
        }
    }
    /* Landmark bounds for the map as it is now: built on first use and again after the map
     * changed (a quarter of a second on a 1024 x 1024 map, on the world's threads). They are
     * optional: over their memory budget, or out of memory, queries keep the octile bound. */
    if (!th_astar_landmarks_current(n->astar, &n->map))
        (void)th_astar_landmarks_build(n->astar, &n->map, w->pool, TH_ASTAR_LANDMARK_BUDGET);
    return true;
}

bool th_world_find_path(th_world *w, th_vec2 from, th_vec2 to, th_vec2 *out, uint32_t max,
                        uint32_t *count, float *cost, th_error *err) {
    if (!th_between_steps(w, err)) return false;
    th_world_nav *n = &w->nav;
    if (!need_map(w, err)) return false;
    if (off_world(w, from, err) || off_world(w, to, err)) return false;
    if (!th_nav_path_ready(w, err)) return false;
    int32_t sx, sy, gx, gy;
    th_navmap_cell_of(&n->map, from, &sx, &sy);
    th_navmap_cell_of(&n->map, to, &gx, &gy);
    uint32_t len = 0, units = 0;
    int rc = th_astar_find(n->astar, &n->map, sx, sy, gx, gy, n->path, n->map.ncells, &len, &units);
    if (rc != TH_NAV_OK) {
        th_error_set(err, th_nav_error_code(rc), "no path from cell (%d, %d) to cell (%d, %d)", sx,
                     sy, gx, gy);
        return false;
    }
    uint32_t pulled = th_nav_string_pull(&n->map, n->path, len, n->waypoints);
    if (pulled > max) {
        th_error_set(err, TH_ERR_LIMIT,
                     "the path has %u waypoints, more than the %u given room for", pulled, max);
        return false;
    }
    memcpy(out, n->waypoints, pulled * sizeof *out);
    *count = pulled;
    if (cost) *cost = th_nav_units_to_metres(&n->map, units);
    return true;
}
