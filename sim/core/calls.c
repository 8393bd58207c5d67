/* The running hashes of the calls that shape a world: under several ranks every such call is
 * collective, and validation compares the hash across ranks after every step
 * (sim/observe/validate.c); in every world the digest covers the agents added
 * (sim/observe/digest.c). */
#include "engine/hash.h"
#include "sim/core/world.h"

void th_world_note_call(th_world *w, uint32_t call, uint64_t a, uint64_t b) {
    if (w->dist) {
        th_hasher h = {w->call_hash};
        th_hash_u32(&h, call);
        th_hash_u64(&h, a);
        th_hash_u64(&h, b);
        w->call_hash = h.h;
    }
    /* In every world: the digest covers the agents added (sim/observe/digest.c). */
    if ((call & 15u) == 1u || (call & 15u) == 2u) { /* th_world_add_agent, th_world_remove_agent */
        th_hasher g = {w->agent_call_hash};
        th_hash_u32(&g, call);
        th_hash_u64(&g, a);
        th_hash_u64(&g, b);
        w->agent_call_hash = g.h;
    }
}
