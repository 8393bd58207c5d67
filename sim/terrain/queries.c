/* Read-only queries of the terrain for hosts: wall distance, the flow and cost toward the
 * nearest open bunker or one bunker, the nearest bunker, and the path down a field. */
#include <math.h>

#include "sim/core/world.h"
#include "sim/terrain/world_nav_private.h"

float th_world_wall_distance(const th_world *w, th_vec2 p, th_vec2 *away) {
    if (!w) return 0.0f;
    if (!w->nav.present) {
        if (away) *away = th_v2(0.0f, 0.0f);
        return INFINITY;
    }
    if (!th_nav_on_world(w, p)) { /* off the walled world: as inside a wall */
        if (away) *away = th_v2(0.0f, 0.0f);
        return 0.0f;
    }
    return th_navmap_wall_sample(&w->nav.map, p, away);
}

bool th_world_flow(const th_world *w, th_vec2 p, th_vec2 *dir) {
    if (!w || !dir) return false;
    *dir = th_v2(0.0f, 0.0f);
    if (!w->nav.present || w->step == 0 || !th_nav_on_world(w, p)) return false;
    return th_nav_flow_sample(&w->nav.combined.nearest, &w->nav.map, p, dir);
}

bool th_world_bunker_flow(const th_world *w, th_bunker_id handle, th_vec2 p, th_vec2 *dir) {
    if (!w || !dir) return false;
    const uint32_t bunker = TH_INDEX(handle);
    *dir = th_v2(0.0f, 0.0f);
    if (!w->nav.present || w->step == 0 || bunker >= w->nav.bunker_count ||
        !th_nav_on_world(w, p)) {
        return false;
    }
    return th_nav_flow_sample(&w->nav.field[bunker], &w->nav.map, p, dir);
}

float th_world_cost_to_shelter(const th_world *w, th_vec2 p) {
    if (!w) return INFINITY;
    if (!w->nav.present || w->step == 0 || !th_nav_on_world(w, p)) return INFINITY;
    return th_nav_cost_at(&w->nav.combined.nearest, &w->nav.map, p);
}

th_bunker_id th_world_nearest_bunker(const th_world *w, th_vec2 p) {
    if (!w) return (th_bunker_id){0};
    if (!w->nav.present || w->step == 0 || !th_nav_on_world(w, p)) return (th_bunker_id){0};
    return th_bunker_handle(w->nav.combined.winner[th_navmap_cell_of(&w->nav.map, p, NULL, NULL)]);
}

/* Cell path down field `f` from p's cell, as cell centres: the "full path" query. */
bool th_nav_walk_descent(const th_navmap *m, const th_nav_field *f, th_vec2 p, th_vec2 *out,
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
        const uint32_t next = th_navmap_step(m, (uint32_t)y * (uint32_t)m->w + (uint32_t)x, d);
        x = (int32_t)(next % (uint32_t)m->w);
        y = (int32_t)(next / (uint32_t)m->w);
    }
    *count = len;
    return true;
}

bool th_world_shelter_path(const th_world *w, th_vec2 p, th_vec2 *out, uint32_t max,
                           uint32_t *count, th_error *err) {
    if (!w || !out || !count) {
        th_error_set(err, TH_ERR_INVALID, "shelter path: no world, no output or no count");
        return false;
    }
    if (!th_nav_need_map(w, err)) return false;
    if (w->step == 0) {
        th_error_set(err, TH_ERR_STATE, "river maps are built by the first step");
        return false;
    }
    if (th_nav_off_world(w, p, err)) return false;
    return th_nav_walk_descent(&w->nav.map, &w->nav.combined.nearest, p, out, max, count, err);
}
