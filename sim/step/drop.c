/* Agents leaving the world: those removed, those an exit lets out, those a bunker admits, in
 * storage order, with the id free list pushed in that order; in one process directly, under
 * several ranks by the replay every rank runs on the same gathered list
 * (sim/dist/dist_serial.h). The exits, bunkers, models and ranks meet here, which is why it
 * sits with the step. */
#include "sim/behave/leavers.h"
#include "sim/core/world.h"
#include "sim/dist/dist.h"
#include "sim/dist/dist_serial.h"
#include "sim/scenario/flow.h"
#include "sim/step/drop.h"

/* Free the id slot of an agent leaving the world: stale from now on, reused by the next agent
 * added (id_free holds a place for every slot, so the push needs no room). */
static void free_slot(th_world *w, uint32_t slot) {
    w->slot_of_id[slot] = UINT32_MAX;
    w->id_live[slot] = 0;
    w->id_free[w->id_free_count++] = slot;
}

/* Under several ranks (or when th_dist_serial_force asked for it): gathers every rank's marked
 * agents, replays the serial rule in global storage order on every rank (counts, bunkers,
 * exits, the id free list pushed in that order), then compacts this rank's own agents. */
static void drop_replayed(th_world *w) {
    th_drop_buffers *s = th_dist_drop_buffers(w);
    th_agents *a = &w->buf[w->cur];
    const uint16_t me = (uint16_t)th_dist_rank(w);
    uint32_t n = 0;
    for (uint32_t k = 0; k < w->count; k++) n += w->shelter[k] != 0;
    if (!s || !th_dist_room((void **)&s->mine, &s->mine_cap, sizeof *s->mine, n)) {
        th_dist_out_of_memory(w, "in the replay of departures");
        return;
    }
    n = 0;
    for (uint32_t k = 0; k < w->count; k++) {
        if (!w->shelter[k]) continue;
        s->mine[n] = (th_drop){
            .key = th_drop_key(w->cell[k], th_id_slot(a->id[k])),
            .local = k,
            .rank = me,
            .mark = w->shelter[k],
        };
        if (w->shelter[k] != TH_MARK_REMOVED)
            s->mine[n].wake = th_leaver_of(w, k, &s->mine[n].leaver);
        n++;
    }
    uint32_t total = 0;
    th_drop *all = th_dist_gather_all(w, s->mine, n, sizeof *s->mine, (void **)&s->all, &s->all_cap,
                                      0, &total);
    if (!all) {
        th_dist_out_of_memory(w, "in the replay of departures");
        return;
    }
    th_drop_sort(all, total);

    /* The serial rule on every rank, on the same list: bunkers, counts, free list. */
    th_world_nav *nav = &w->nav;
    th_drop_bunker bk[TH_MAX_BUNKERS];
    for (uint32_t b = 0; b < nav->bunker_count; b++)
        bk[b] =
            (th_drop_bunker){nav->bunker[b].capacity, nav->bunker[b].sheltered, nav->bunker[b].full,
                             nav->bunker[b].destroyed, nav->bunker[b].limit};
    th_door_limit exit_limit[TH_MAX_EXITS];
    const uint32_t exits = th_world_exit_count(w);
    if (exits) th_flow_exit_limits(w, exit_limit);
    if (th_drop_replay(all, total, bk, nav->bunker_count, exit_limit, exits, w->step,
                       (double)w->def.timestep))
        nav->combined_stale = true;
    for (uint32_t b = 0; b < nav->bunker_count; b++) {
        nav->bunker[b].sheltered = bk[b].sheltered;
        nav->bunker[b].full = bk[b].full;
        nav->bunker[b].limit = bk[b].limit;
    }
    if (exits) th_flow_set_exit_limits(w, exit_limit);
    uint32_t left = 0;
    for (uint32_t i = 0; i < total; i++) {
        const th_drop *d = &all[i];
        const uint8_t m = d->mark;
        if (d->rank == me) w->shelter[d->local] = d->left ? m : 0;
        if (!d->left) continue;
        left++;
        if (m == TH_MARK_REMOVED) w->stats.removed++;
        else if (m >= TH_MARK_EXIT && m < TH_MARK_EXIT + TH_MAX_EXITS)
            th_flow_exited(w, m - TH_MARK_EXIT);
        else w->stats.sheltered++;
        if (d->wake) th_leavers_add(w, &d->leaver);
        /* The slot is freed on every rank, in global storage order, so the next agent added
         * gets the same id everywhere. */
        free_slot(w, (uint32_t)(d->key & 0xFFFFFFFFu));
    }

    /* This rank's own agents: the ones left go, the others move down. */
    uint32_t out = 0;
    for (uint32_t k = 0; k < w->count; k++) {
        if (w->shelter[k]) continue;
        if (out != k) th_agent_move_down(w, out, k);
        out++;
    }
    w->count = out;
    if (w->dist) w->total -= left;
}

void th_world_drop_marked(th_world *w) {
    if (th_dist_serial_active(w) || th_dist_serial_forced(w)) {
        drop_replayed(w);
        return;
    }
    th_agents *a = &w->buf[w->cur];
    uint32_t out = 0;
    for (uint32_t k = 0; k < w->count; k++) {
        uint8_t s = w->shelter[k];
        if (s == TH_MARK_REMOVED) {
            w->stats.removed++;
            free_slot(w, th_id_slot(a->id[k]));
            continue;
        }
        th_leaver leaver;
        if (s >= TH_MARK_EXIT && s < TH_MARK_EXIT + TH_MAX_EXITS &&
            th_flow_exit_pass(w, s - TH_MARK_EXIT)) {
            th_flow_exited(w, s - TH_MARK_EXIT);
            if (th_leaver_of(w, k, &leaver)) th_leavers_add(w, &leaver);
            free_slot(w, th_id_slot(a->id[k]));
            continue;
        }
        if (s && s < TH_MARK_EXIT) {
            /* Admitted in storage order until the bunker is full (and as fast as its flow
             * limit allows); the rest stay outside. */
            if (th_nav_admit(&w->nav, s - 1u, w->step, (double)w->def.timestep)) {
                w->stats.sheltered++;
                if (th_leaver_of(w, k, &leaver)) th_leavers_add(w, &leaver);
                free_slot(w, th_id_slot(a->id[k]));
                continue;
            }
        }
        w->shelter[k] = 0; /* held back by a bunker or an exit, or never marked */
        /* Every array moves down with its agent (shelter is 0 for every agent kept). */
        if (out != k) th_agent_move_down(w, out, k);
        out++;
    }
    w->count = out;
}

/* Removals asked for since the last step, applied at the start of this one. */
void th_world_apply_removals(th_world *w) {
    if (w->removal_count == 0) return;
    for (uint32_t i = 0; i < w->removal_count; i++) {
        /* Each id was checked when asked for and no agent leaves between steps, so it still
         * names its agent; one asked for twice is marked twice, harmlessly. */
        uint32_t k = th_agent_index(w, w->removals[i]);
        if (k != UINT32_MAX) w->shelter[k] = TH_MARK_REMOVED;
    }
    w->removal_count = 0;
    th_world_drop_marked(w);
}
