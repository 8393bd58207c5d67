/* What the files of sim/nav/ that keep the world's navigation state share among themselves
 * (world_nav.c, terrain.c, bunkers.c, events.c, displace.c, fields.c, agent_terms.c, queries.c,
 * destinations.c, pathfind.c); nothing outside sim/nav/ includes it. */
#ifndef TH_SIM_WORLD_NAV_PRIVATE_H
#define TH_SIM_WORLD_NAV_PRIVATE_H

#include <math.h>

#include "sim/core/world.h"

/* Is cell (x, y) on the map? */
static inline bool th_nav_in_map(const th_world *w, int32_t x, int32_t y) {
    return x >= 0 && y >= 0 && x < w->nav.map.w && y < w->nav.map.h;
}

/* A query position the map can answer for: finite and on the world. Off the world (or NaN)
 * the cell lookup would clamp to an edge cell and answer for a place the caller never named,
 * so every query refuses such a point with its documented answer (throng.h). */
static inline bool th_nav_on_world(const th_world *w, th_vec2 p) {
    return isfinite(p.x) && isfinite(p.y) && p.x >= 0.0f && p.y >= 0.0f && p.x < w->def.width &&
           p.y < w->def.height;
}

/* world_nav.c: true when the world has a map; otherwise fills `err` (TH_ERR_STATE). */
bool th_nav_need_map(const th_world *w, th_error *err);
/* world_nav.c: true, with `err` filled, when p is not on the world. */
bool th_nav_off_world(const th_world *w, th_vec2 p, th_error *err);

/* queries.c: the cell path down field `f` from p's cell, as cell centres. */
bool th_nav_walk_descent(const th_navmap *m, const th_nav_field *f, th_vec2 p, th_vec2 *out,
                         uint32_t max, uint32_t *count, th_error *err);

/* displace.c: per-cell space for moving agents out of blocked cells (between steps only). */
bool th_nav_alloc_displacement(th_world *w, th_error *err);
/* displace.c: move agents out of the cells this step's events blocked; those walled in are
 * marked TH_MARK_REMOVED and counted in the return value (this process's agents only). */
uint32_t th_nav_displace_agents(th_world *w);
/* displace.c: a cell that turned from open to blocked since the last step. */
void th_nav_list_blocked(th_world_nav *n, uint32_t cell);
/* displace.c: a listed cell opened again before the step that would move agents out of it. */
void th_nav_unlist_blocked(th_world_nav *n, uint32_t cell);

#endif
