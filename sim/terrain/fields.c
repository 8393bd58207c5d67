/* River-map upkeep between steps (the step's nav phase): the bunkers' fields and the
 * destination fields repaired from cells that opened or recomputed after cells closed, the
 * wall-distance field, and the nearest-open-bunker field. */
#include "engine/check.h"

#include "sim/core/world.h"
#include "sim/terrain/world_nav_private.h"

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
    TH_ASSERT(rc == TH_NAV_OK); /* sizes and scratch are set up to fit: no failure is possible */
}

bool th_nav_update(th_world *w) {
    th_world_nav *n = &w->nav;
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
        int rc = th_nav_combined_build(&n->combined, w->pool, n->field, n->bunker_count, open);
        TH_ASSERT(rc == TH_NAV_OK); /* sized when the bunkers were added */
        n->combined_stale = false;
    }
    return map_changed;
}
