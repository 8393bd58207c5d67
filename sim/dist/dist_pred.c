/* Predators over several ranks (sim/dist/dist_pred.h).
 *
 * A prey's flight term sums over every predator of its flee types within its flee radius
 * (sim/behave/boids.c, visit_predators), and a flee radius (12 m by default) reaches past a
 * strip's ghost rows, which are as wide as the flocking reach only. So every rank indexes every
 * predator: each rank's own predators (position, velocity for evading prey, type, id slot:
 * 24 B) are gathered to all ranks each step. Predators are few: two hawks cost 48 B per rank per
 * step, a thousand 24 KB.
 *
 * Order: the records arrive in rank order, each rank's in its storage order, not in the order
 * one process lists them; the predator grid is built tied by id slot within a cell
 * (th_grid_build_tied), so its order is (predator cell, id slot) whatever the input order, the
 * same on every rank and in one process, and so are the prey's sums over it. Positions are the
 * owners' values after the gather, bit for bit those one process indexes. */
#include "sim/dist/dist_pred.h"

#include "sim/core/world.h"
#include "sim/dist/dist_serial.h"

/* One predator on the wire. */
typedef struct pred_rec {
    float px, py;
    float vx, vy;
    uint32_t type; /* < TH_MAX_TYPES */
    uint32_t slot; /* id slot + 1 (th_agent_id.index1): the predator grid's tie key */
} pred_rec;
_Static_assert(sizeof(pred_rec) == 24, "a predator record is 24 bytes, no padding");

uint32_t th_dist_predators(th_world *w, uint32_t n) {
    if (!th_dist_serial_active(w) && !th_dist_serial_forced(w)) return n;
    if (!th_dist_room(&w->pred_mine, &w->pred_mine_cap, sizeof(pred_rec), n + 1)) {
        th_dist_out_of_memory(w, "for the predators");
        return n;
    }
    pred_rec *mine = w->pred_mine;
    for (uint32_t k = 0; k < n; k++) {
        mine[k] = (pred_rec){w->pred_px[k],  w->pred_py[k],    w->pred_pvx[k],
                             w->pred_pvy[k], w->pred_ptype[k], w->pred_pid[k]};
    }
    uint32_t total = 0;
    const pred_rec *all =
        th_dist_gather_all(w, mine, n, sizeof *mine, &w->pred_all, &w->pred_all_cap, 0, &total);
    if (!all) {
        th_dist_out_of_memory(w, "gathering the predators");
        return n;
    }
    /* More predators than this rank's capacity: the index grows (doubling), once per new high. */
    if (!th_world_reserve_predators(w, total)) {
        th_dist_out_of_memory(w, "for the predator index");
        return 0;
    }
    for (uint32_t k = 0; k < total; k++) {
        w->pred_px[k] = all[k].px;
        w->pred_py[k] = all[k].py;
        w->pred_pvx[k] = all[k].vx;
        w->pred_pvy[k] = all[k].vy;
        w->pred_ptype[k] = (uint16_t)all[k].type;
        w->pred_pid[k] = all[k].slot;
    }
    return total;
}
