/* The event queue: bunker, wall, cost and crowd changes scheduled for a step, held in a binary heap
 * and applied at the start of that step in scheduling order (th_nav_apply_events, the step's events
 * phase). Rectangle events change cells (a block remembers the cost of each cell it closes, which
 * an open event gives back) and mark what the fields must redo (fields.c) and which
 * cells agents must leave (displace.c). */
#include "engine/alloc.h"

#include "sim/core/crowd_params.h"
#include "sim/core/world.h"
#include "sim/terrain/world_nav_private.h"

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
    if (!th_array_reserve((void **)&n->events, sizeof *n->events, n->event_count,
                          &n->event_capacity, n->event_count + 1, 64, UINT32_MAX)) {
        th_error_set(err, TH_ERR_NOMEM, "out of memory");
        return false;
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

bool th_world_schedule_crowd(th_world *w, uint64_t step, th_crowd_id crowd,
                             const th_crowd_tune *tune, th_error *err) {
    if (!w || !tune) {
        th_error_set(err, TH_ERR_INVALID, "crowd change: no world or no tune");
        return false;
    }
    if (!th_between_steps(w, err) || !th_handle_given(crowd.index1, "crowd", err)) return false;
    if (TH_INDEX(crowd) >= w->crowd_count) {
        th_error_set(err, TH_ERR_HANDLE, "no crowd %u (the world has %u)", TH_INDEX(crowd),
                     w->crowd_count);
        return false;
    }
    if (step < w->step) {
        th_error_set(err, TH_ERR_INVALID, "step %llu is already past (the world is at step %llu)",
                     (unsigned long long)step, (unsigned long long)w->step);
        return false;
    }
    if (!th_crowd_tune_check(&w->crowd_def[TH_INDEX(crowd)], tune, err)) return false;
    /* The values, for the ranks' check that every rank made the same calls. */
    th_world_note_call(w, 5u | tune->fields << 4, (uint64_t)crowd.index1 << 40 ^ step,
                       th_crowd_tune_hash(tune));
    return push_event(
        w, (th_event){.step = step, .def = {.type = TH_EVENT_CROWD}, .crowd = crowd, .tune = *tune},
        err);
}

bool th_world_schedule(th_world *w, uint64_t step, const th_event_def *def, th_error *err) {
    if (!w || !def) {
        th_error_set(err, TH_ERR_INVALID, "event: no world or no def");
        return false;
    }
    if (!th_between_steps(w, err)) return false;
    if (!th_nav_need_map(w, err)) return false;
    th_world_note_call(w, 3u | (uint32_t)def->type << 4, step, def->bunker.index1);
    th_world_note_call(w, 4u | def->cost << 4,
                       (uint64_t)(uint32_t)def->x0 << 32 | (uint32_t)def->y0,
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
    case TH_EVENT_BLOCK_CELLS:
    case TH_EVENT_OPEN_CELLS: {
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
    if (def->type == TH_EVENT_BLOCK_CELLS && !w->nav.blocked_near &&
        !th_nav_alloc_displacement(w, err)) {
        return false;
    }
    /* What a block closes is remembered per cell (the cost it had) so that an open event can
     * give it back: sized here, between steps, with the first block; never in a step. */
    if (def->type == TH_EVENT_BLOCK_CELLS && !w->nav.closed_cost) {
        w->nav.closed_cost = th_calloc(w->nav.map.ncells, sizeof *w->nav.closed_cost);
        if (!w->nav.closed_cost) {
            th_error_set(err, TH_ERR_NOMEM, "out of memory");
            return false;
        }
    }
    return push_event(w, e, err);
}

uint32_t th_world_pending_events(const th_world *w) {
    if (!w) return 0;
    return w->nav.event_count;
}

static bool schedule_now(th_world *w, th_event_def e, th_error *err) {
    return th_world_schedule(w, w ? w->step : 0, &e, err);
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

bool th_world_open_cells(th_world *w, int32_t x0, int32_t y0, int32_t x1, int32_t y1,
                         th_error *err) {
    return schedule_now(w, (th_event_def){TH_EVENT_OPEN_CELLS, {0}, x0, y0, x1, y1, 0}, err);
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
            /* The cost a block closed away, 0 for a cell no block closed (an open cell, a wall
             * of the map, or before any block: no memory yet). */
            const uint16_t closed = n->closed_cost ? n->closed_cost[cell] : 0;
            if (e->type == TH_EVENT_BREAK_WALLS) {
                if (th_navmap_break_wall(&n->map, x, y) != TH_NAV_OK) continue; /* not a wall */
                th_nav_unlist_blocked(n, cell);
                list_opened(n, cell);
                n->walls_stale = true;
            } else if (e->type == TH_EVENT_OPEN_CELLS) {
                if (!closed) continue; /* open ground, or a wall of the map: left as it is */
                th_navmap_set_cost(&n->map, x, y, closed);
                n->closed_cost[cell] = 0;
                th_nav_unlist_blocked(n, cell);
                list_opened(n, cell);
                n->walls_stale = true;
            } else if (closed && e->type == TH_EVENT_SET_COST) {
                /* A closed door over re-priced ground: the ground under it takes the new cost,
                 * which it shows once an open event lifts the block. Routes do not change. */
                n->closed_cost[cell] = (uint16_t)e->cost;
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
                /* A block: the cell's cost is kept for the open event that lifts it (the
                 * memory exists: it is sized when the first block is scheduled). */
                n->closed_cost[cell] = (uint16_t)n->map.cost[cell];
                th_navmap_set_blocked(&n->map, x, y, false);
                n->fields_stale = n->walls_stale = n->displace = raised = true;
                /* A cell is listed at most once: an open event in the same step unlists it
                 * before a later block can list it again, so the list never holds more than
                 * every cell. */
                th_nav_list_blocked(n, cell);
            }
        }
    }
    if (raised) {
        if (n->raised_count < TH_NAV_RAISED_RECTS) n->raised[n->raised_count++] = *e;
        else n->raised_overflow = true;
    }
}

bool th_nav_apply_events(th_world *w, uint32_t *walled_in) {
    th_world_nav *n = &w->nav;
    *walled_in = 0;
    n->terrain_lowered = n->raised_overflow = false;
    n->raised_count = 0;
    while (n->event_count > 0 && n->events[0].step <= w->step) {
        th_event ev;
        pop_event(n, &ev);
        const th_event_def *e = &ev.def;
        switch ((uint32_t)e->type) {
        case TH_EVENT_DESTROY_BUNKER:
        case TH_EVENT_RESTORE_BUNKER:
            n->bunker[TH_INDEX(e->bunker)].destroyed = e->type == TH_EVENT_DESTROY_BUNKER;
            n->combined_stale = true;
            break;
        case TH_EVENT_BREAK_WALLS:
        case TH_EVENT_BLOCK_CELLS:
        case TH_EVENT_OPEN_CELLS:
        case TH_EVENT_SET_COST: apply_rect(w, e); break;
        case TH_EVENT_CROWD:
            th_crowd_tune_apply(&w->crowd_rt[TH_INDEX(ev.crowd)], n->present, &ev.tune);
            w->crowd_changes[TH_INDEX(ev.crowd)]++;
            w->crowd_changed[TH_INDEX(ev.crowd)] = w->step;
            break;
        }
    }
    if (!n->displace || !n->blocked_near) return false;
    *walled_in = th_nav_displace_agents(w);
    n->displace = false;
    return true;
}

uint32_t th_world_crowd_changes(const th_world *w, th_crowd_id crowd, uint64_t *last_step) {
    if (last_step) *last_step = 0;
    if (!w || !crowd.index1 || TH_INDEX(crowd) >= w->crowd_count) return 0;
    if (last_step) *last_step = w->crowd_changed[TH_INDEX(crowd)];
    return w->crowd_changes[TH_INDEX(crowd)];
}
