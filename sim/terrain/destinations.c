/* Destination fields: weighted goal cells a crowd walks to (the cheapest exit), computed when
 * added and kept up to date with the bunkers' fields (fields.c), and their queries. */
#include <math.h>

#include "engine/alloc.h"

#include "sim/core/world.h"
#include "sim/terrain/world_nav_private.h"

int th_nav_add_destinations(th_world *w, const th_destination *goals, uint32_t count,
                            th_error *err) {
    if (!th_between_steps(w, err)) return -1;
    th_world_nav *n = &w->nav;
    if (!th_nav_need_map(w, err)) return -1;
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
        if (!th_nav_in_map(w, d->x, d->y) || th_navmap_is_blocked(&n->map, d->x, d->y) ||
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
    /* Its distances are read only by steps: a world built to be checked leaves them out. */
    if (rc == TH_NAV_OK && !w->checking) rc = th_nav_field_compute(f, &n->map, n->scratch[0]);
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
    if (!w || (!goals && count > 0)) {
        th_error_set(err, TH_ERR_INVALID, "destinations: no world or no goals");
        return (th_field_id){0};
    }
    return th_field_handle(th_nav_add_destinations(w, goals, count, err));
}

uint32_t th_world_destination_count(const th_world *w) {
    if (!w) return 0;
    return w->nav.dest_count;
}

bool th_world_destination_flow(const th_world *w, th_field_id handle, th_vec2 p, th_vec2 *dir) {
    if (!w || !dir) return false;
    const uint32_t field = TH_INDEX(handle);
    *dir = th_v2(0.0f, 0.0f);
    if (field >= w->nav.dest_count || !th_nav_on_world(w, p)) return false;
    return th_nav_flow_sample(&w->nav.dest[field], &w->nav.map, p, dir);
}

float th_world_destination_cost(const th_world *w, th_field_id handle, th_vec2 p) {
    if (!w) return INFINITY;
    const uint32_t field = TH_INDEX(handle);
    if (field >= w->nav.dest_count || !th_nav_on_world(w, p)) return INFINITY;
    return th_nav_cost_at(&w->nav.dest[field], &w->nav.map, p);
}

bool th_world_destination_path(const th_world *w, th_field_id handle, th_vec2 p, th_vec2 *out,
                               uint32_t max, uint32_t *count, th_error *err) {
    if (!w || !out || !count) {
        th_error_set(err, TH_ERR_INVALID, "destination path: no world, no output or no count");
        return false;
    }
    if (!th_handle_given(handle.index1, "destination field", err)) return false;
    const uint32_t field = TH_INDEX(handle);
    if (field >= w->nav.dest_count) {
        th_error_set(err, TH_ERR_HANDLE, "no destination field %u (the world has %u)", field,
                     w->nav.dest_count);
        return false;
    }
    if (th_nav_off_world(w, p, err)) return false;
    /* A destination field is computed when added, so it is valid before the first step. */
    return th_nav_walk_descent(&w->nav.map, &w->nav.dest[field], p, out, max, count, err);
}
