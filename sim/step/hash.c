/* The world's state hash: the agents by id slot (the same order for any thread count, as
 * storage order is not), then the bunkers, colonies, spawners and exits, and elevators, whose
 * state the models and scenario features keep. Under several ranks the ranks' hash combines the
 * same parts (th_dist_hash). */
#include "engine/hash.h"
#include "sim/behave/elevator.h"
#include "sim/behave/forage.h"
#include "sim/core/world.h"
#include "sim/dist/dist.h"
#include "sim/scenario/flow.h"

/* What the hash reads besides the agents: one process and the ranks' hash share these. */
static void hash_head(const th_world *w, th_hasher *h) {
    th_hash_u64(h, w->step);
    th_hash_u32(h, w->dist ? w->total : w->count);
}

static void hash_tail(const th_world *w, th_hasher *h) {
    for (uint32_t b = 0; b < w->nav.bunker_count; b++) {
        const th_bunker *bk = &w->nav.bunker[b];
        th_hash_u32(h, bk->sheltered);
        th_hash_u32(h, (uint32_t)bk->destroyed | (uint32_t)bk->full << 1);
    }
    if (w->colonies) th_forage_hash(w, h);
    if (w->flow) th_flow_hash(w, h);
    if (w->lifts) th_lifts_hash(w, h);
}

uint64_t th_world_hash(const th_world *w) {
    if (!w) return 0;
    if (w->dist) return th_dist_hash(w, hash_head, hash_tail);
    th_hasher h = th_hash_begin();
    hash_head(w, &h);
    const th_agents *a = &w->buf[w->cur];
    /* By slot: the same order for any thread count, as storage order is not. */
    for (uint32_t slot = 0; slot < w->id_top; slot++) {
        uint32_t k = w->slot_of_id[slot];
        if (k >= w->count) continue;
        th_hash_u64(&h, th_agent_key(a->id[k]));
        th_hash_u32(&h, a->crowd[k]);
        th_hash_f32(&h, a->px[k]);
        th_hash_f32(&h, a->py[k]);
        th_hash_f32(&h, a->vx[k]);
        th_hash_f32(&h, a->vy[k]);
    }
    hash_tail(w, &h);
    return th_hash_end(&h);
}
