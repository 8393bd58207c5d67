/* Bunkers: rectangles of open cells, each with its own river map, added before the first step
 * and found by handle or name. Destroying and restoring them are events (events.c); admission
 * into them (th_nav_admit) happens where marked agents leave storage (sim/step/drop.c). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/core/world.h"
#include "sim/terrain/world_nav_private.h"

static int add_bunker(th_world *w, const th_bunker_def *def, th_error *err) {
    if (!th_between_steps(w, err)) return -1;
    th_world_nav *n = &w->nav;
    if (!th_nav_need_map(w, err)) return -1;
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
    if (!(def->max_flow >= 0.0f && def->max_flow <= 1e6f)) {
        th_error_set(err, TH_ERR_INVALID,
                     "bunker '%s': max_flow %g persons/s is not a number from 0 (no limit) up",
                     name, (double)def->max_flow);
        return -1;
    }
    if (def->x0 > def->x1 || def->y0 > def->y1 || !th_nav_in_map(w, def->x0, def->y0) ||
        !th_nav_in_map(w, def->x1, def->y1)) {
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
    bk->exit = def->exit;
    bk->limit = th_door_limit_make(def->max_flow);
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
    if (!w || !def) {
        th_error_set(err, TH_ERR_INVALID, "bunker: no world or no def");
        return (th_bunker_id){0};
    }
    return th_bunker_handle(add_bunker(w, def, err));
}

uint32_t th_world_bunker_count(const th_world *w) {
    if (!w) return 0;
    return w->nav.bunker_count;
}

bool th_world_get_bunker(const th_world *w, th_bunker_id handle, th_bunker_info *out) {
    if (!w || !out) return false;
    const uint32_t bunker = TH_INDEX(handle);
    if (bunker >= w->nav.bunker_count) return false;
    const th_bunker *b = &w->nav.bunker[bunker];
    *out = (th_bunker_info){b->name,      b->x0,        b->y0,   b->x1,   b->y1,        b->capacity,
                            b->sheltered, b->destroyed, b->full, b->exit, b->limit.rate};
    return true;
}

th_bunker_id th_world_find_bunker(const th_world *w, const char *name) {
    if (!w || !name) return (th_bunker_id){0};
    for (uint32_t b = 0; b < w->nav.bunker_count; b++) {
        if (strcmp(w->nav.bunker[b].name, name) == 0) return th_bunker_handle((int)b);
    }
    return (th_bunker_id){0};
}

th_door_limit th_door_limit_make(float rate) {
    return (th_door_limit){.rate = rate, .credit = 1.0, .step = 0};
}

bool th_door_pass(th_door_limit *d, uint64_t step, double dt) {
    if (d->rate <= 0.0f) return true;
    if (step != d->step) {
        const double grown = d->credit + (double)d->rate * dt * (double)(step - d->step);
        /* Asked the step before (a queue at the door): the fraction carries on, so the queue
         * passes at the rate whatever the step. Idle since (or never asked, step 0): one
         * person's worth at most, the next through at once and no burst behind it. */
        d->credit = d->step > 0 && step == d->step + 1 ? grown : fmin(grown, 1.0);
        d->step = step;
    }
    /* A whole person, less rounding: rate x dt summed over steps reaches 1 up to a few ulps. */
    if (d->credit < 1.0 - 1e-9) return false;
    d->credit -= 1.0;
    return true;
}

int th_bunker_take(uint32_t capacity, uint32_t *sheltered, bool *full, bool destroyed,
                   th_door_limit *limit, uint64_t step, double dt) {
    if (*full || destroyed || !th_door_pass(limit, step, dt)) return 0;
    (*sheltered)++;
    if (!capacity || *sheltered < capacity) return 1;
    *full = true;
    return 2;
}

bool th_nav_admit(th_world_nav *n, uint32_t bunker, uint64_t step, double dt) {
    th_bunker *b = &n->bunker[bunker];
    const int took =
        th_bunker_take(b->capacity, &b->sheltered, &b->full, b->destroyed, &b->limit, step, dt);
    if (took == 2)
        n->combined_stale = true; /* the nearest-open-bunker field no longer leads here */
    return took != 0;
}
