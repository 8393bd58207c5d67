/* Agents moved out of cells that this step's events blocked, and marked for burial where no
 * open ground is left to them (the step's events phase, th_nav_apply_events), with the
 * per-cell space this needs, allocated between steps. */
#include <math.h>
#include <string.h>

#include "engine/alloc.h"

#include "sim/core/world.h"
#include "sim/terrain/world_nav_private.h"

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
 * go to: they are marked for removal and counted, and the step buries them (the burial phase,
 * sim/step/step.c), which counts them in th_world_stats.buried and .removed.
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

uint32_t th_nav_displace_agents(th_world *w) {
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
        /* A rider is in a car, not at the place it boarded. */
        if (w->lifts && w->lift_of_id[th_id_slot(a->id[k])]) continue;
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
    return buried;
}

/* Per-cell space for moving agents out of blocked cells: allocated here, between steps, so a
 * step never allocates, and only in worlds that schedule a block. */
bool th_nav_alloc_displacement(th_world *w, th_error *err) {
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
void th_nav_list_blocked(th_world_nav *n, uint32_t cell) {
    n->blocked_near[cell] = TH_UNREACHED | n->blocked_count;
    n->blocked_list[n->blocked_count++] = cell;
}

/* A listed cell opened again before the step that would move agents out of it. */
void th_nav_unlist_blocked(th_world_nav *n, uint32_t cell) {
    if (!n->blocked_near || n->blocked_near[cell] == TH_NOT_NEWLY_BLOCKED) return;
    uint32_t at = n->blocked_near[cell] & ~TH_UNREACHED, last = n->blocked_list[--n->blocked_count];
    n->blocked_list[at] = last;
    n->blocked_near[last] = TH_UNREACHED | at;
    n->blocked_near[cell] = TH_NOT_NEWLY_BLOCKED;
}
