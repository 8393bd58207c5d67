/* The world's navigation state (struct th_world_nav, sim/nav/world_nav.h): its lifetime and the
 * checks the other files of sim/nav/ share. The concepts live one per file beside it: terrain.c
 * (map cells), bunkers.c, events.c (the event queue and rectangle events), displace.c (agents
 * moved out of newly blocked cells, burial), fields.c (river-map upkeep between steps),
 * agent_terms.c (the terrain terms of an agent's step), queries.c, destinations.c and
 * pathfind.c; the grid algorithms themselves are navmap.c, navfield.c and astar.c. */
#include <math.h>
#include <string.h>

#include "engine/alloc.h"

#include "sim/core/world.h"
#include "sim/terrain/world_nav_private.h"

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
    /* A world built to be checked computes destination fields (on worker 0's scratch) but
     * never steps: one scratch, and no nearest-bunker field. */
    const uint32_t scratches = w->checking ? 1u : w->workers;
    n->scratch = th_calloc(w->workers, sizeof *n->scratch);
    n->bunker_at = th_alloc(n->map.ncells);
    n->opened = th_calloc(TH_NAV_REPAIR_MAX, sizeof *n->opened);
    if (!n->scratch || !n->bunker_at || !n->opened) return false;
    memset(n->bunker_at, -1, n->map.ncells);
    for (uint32_t i = 0; i < scratches; i++) {
        if (!(n->scratch[i] = th_nav_scratch_create(&n->map))) return false;
    }
    if (!w->checking && th_nav_combined_init(&n->combined, &n->map) != TH_NAV_OK) return false;
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
    th_free(n->level);
    th_free(n->level_of);
    th_free(n->stair);
    th_free(n->stair_of);
    th_free(n->seam_near);
    th_free(n->opened);
    th_free(n->blocked_list);
    th_free(n->blocked_near);
    th_free(n->closed_cost);
    th_free(n->reach_mark);
    th_free(n->reach_queue);
    th_navmap_free(&n->rigid_map);
    th_free(n->events);
    th_navmap_free(&n->map);
    memset(n, 0, sizeof *n);
}

/* ---- shared checks ---------------------------------------------------------------------- */

th_error_code th_nav_error_code(th_nav_status rc) {
    switch (rc) {
    case TH_NAV_OK: return TH_OK;
    case TH_NAV_EINVAL:
    case TH_NAV_ERANGE: return TH_ERR_INVALID;
    case TH_NAV_ENOMEM: return TH_ERR_NOMEM;
    case TH_NAV_ENOPATH: return TH_ERR_UNREACHABLE;
    case TH_NAV_ETOOLONG: return TH_ERR_LIMIT;  /* the caller's buffer */
    case TH_NAV_EDENIED: return TH_ERR_BLOCKED; /* not a wall that can be opened */
    case TH_NAV_ELIMIT: return TH_ERR_LIMIT;    /* the caller's bound on work */
    }
    return TH_ERR_INVALID;
}

bool th_nav_need_map(const th_world *w, th_error *err) {
    if (w->nav.present) return true;
    th_error_set(err, TH_ERR_STATE,
                 "the world has no terrain map (set cell_size in the world def)");
    return false;
}

bool th_nav_off_world(const th_world *w, th_vec2 p, th_error *err) {
    if (th_nav_on_world(w, p)) return false;
    th_error_set(err, th_error_point_code(p), "position (%g, %g) is not on the %g x %g m world",
                 (double)p.x, (double)p.y, (double)w->def.width, (double)w->def.height);
    return true;
}
