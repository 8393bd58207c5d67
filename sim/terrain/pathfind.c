/* Path finding on the world's map: A* working memory created on first use, landmark bounds
 * kept current, and th_world_find_path with its string-pulled waypoints. */
#include <string.h>

#include "engine/alloc.h"

#include "sim/core/world.h"
#include "sim/terrain/world_nav_private.h"

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
    if (!w || !out || !count) {
        th_error_set(err, TH_ERR_INVALID, "path: no world, no output or no count");
        return false;
    }
    if (!th_between_steps(w, err)) return false;
    th_world_nav *n = &w->nav;
    if (!th_nav_need_map(w, err)) return false;
    if (th_nav_off_world(w, from, err) || th_nav_off_world(w, to, err)) return false;
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

/* IDA*'s cell path pulled into `out`; false with err filled when `max` is too small (then
 * *count is the waypoints needed). The waypoints take memory for the route only. */
static bool pull_route(const th_navmap *m, const th_ida *ida, th_vec2 *out, uint32_t max,
                       uint32_t *count, th_error *err) {
    th_vec2 *pts = th_alloc((size_t)ida->len * sizeof *pts);
    if (!pts) {
        th_error_set(err, TH_ERR_NOMEM, "out of memory for the path's waypoints");
        return false;
    }
    uint32_t pulled = th_nav_string_pull(m, ida->path, ida->len, pts);
    bool fits = pulled <= max;
    if (fits) memcpy(out, pts, pulled * sizeof *out);
    else
        th_error_set(err, TH_ERR_LIMIT,
                     "the path has %u waypoints, more than the %u given room for", pulled, max);
    th_free(pts);
    *count = pulled;
    return fits;
}

bool th_world_find_path_ida(th_world *w, th_vec2 from, th_vec2 to, uint64_t max_expansions,
                            th_vec2 *out, uint32_t max, uint32_t *count, float *cost,
                            th_error *err) {
    if (!w || !out || !count) {
        th_error_set(err, TH_ERR_INVALID, "IDA* path: no world, no output or no count");
        return false;
    }
    *count = 0;
    if (max_expansions > TH_IDA_MAX_EXPANSIONS) {
        th_error_set(err, TH_ERR_INVALID, "IDA* path: at most %llu expansions, not %llu",
                     (unsigned long long)TH_IDA_MAX_EXPANSIONS, (unsigned long long)max_expansions);
        return false;
    }
    if (!th_between_steps(w, err)) return false;
    th_world_nav *n = &w->nav;
    if (!th_nav_need_map(w, err)) return false;
    if (th_nav_off_world(w, from, err) || th_nav_off_world(w, to, err)) return false;
    th_navmap_update_moves(&n->map, w->pool);
    int32_t sx, sy, gx, gy;
    th_navmap_cell_of(&n->map, from, &sx, &sy);
    th_navmap_cell_of(&n->map, to, &gx, &gy);
    const uint64_t budget = max_expansions ? max_expansions : TH_IDA_DEFAULT_EXPANSIONS;
    /* A*'s landmarks when th_world_find_path built them for this map; never built here, as
     * they take memory per cell of the map, which is what IDA* is chosen to avoid. */
    th_ida ida = {0};
    uint32_t units = 0;
    int rc = th_ida_find(&ida, &n->map, n->astar, sx, sy, gx, gy, budget, &units);
    bool ok = rc == TH_NAV_OK;
    if (rc == TH_NAV_ELIMIT) {
        th_error_set(err, TH_ERR_LIMIT,
                     "IDA* gave up after %llu expansions from cell (%d, %d) to cell (%d, %d)",
                     (unsigned long long)ida.expanded, sx, sy, gx, gy);
    } else if (rc != TH_NAV_OK) {
        th_error_set(err, th_nav_error_code(rc), "no path from cell (%d, %d) to cell (%d, %d)", sx,
                     sy, gx, gy);
    }
    if (ok) ok = pull_route(&n->map, &ida, out, max, count, err);
    if (ok && cost) *cost = th_nav_units_to_metres(&n->map, units);
    th_ida_free(&ida);
    return ok;
}
