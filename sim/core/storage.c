/* The world's storage: the agent arrays (TH_AGENT_ARRAYS), the id table and per-id arrays
 * (TH_ID_TABLE, TH_ID_ARRAYS), the departure history and the contact lists, grown by doubling
 * between steps (or in the events phase for an endless spawner), never otherwise inside a step. */
#include <string.h>

#include "engine/alloc.h"
#include "sim/core/storage.h"
#include "sim/core/world.h"

/* Grow the buffered agent arrays of `a` (each by TH_SIMD_PAD more) and, with `w` non-NULL, the
 * world's own: every array of TH_AGENT_ARRAYS of those kinds. */
static bool grow_agents(th_world *w, th_agents *a, uint32_t keep, uint32_t n) {
#define GROW_BUF(name, T, kind) \
    TH_AGENT_KIND(              \
        BUF, kind,              \
        if (!th_grow_array((void **)&a->name, sizeof(T), keep, n + TH_SIMD_PAD)) return false;)
#define GROW_ONE(name, T, kind) \
    TH_AGENT_KIND(ONE, kind,    \
                  if (w && !th_grow_array((void **)&w->name, sizeof(T), keep, n)) return false;)
    TH_AGENT_ARRAYS(GROW_BUF)
    TH_AGENT_ARRAYS(GROW_ONE)
#undef GROW_BUF
#undef GROW_ONE
    return true;
}

void th_world_free_agents(th_world *w) {
#define FREE_BUF(name, T, kind) \
    TH_AGENT_KIND(BUF, kind, th_free(w->buf[0].name); th_free(w->buf[1].name);)
#define FREE_ONE(name, T, kind) TH_AGENT_KIND(ONE, kind, th_free(w->name);)
    TH_AGENT_ARRAYS(FREE_BUF)
    TH_AGENT_ARRAYS(FREE_ONE)
#undef FREE_BUF
#undef FREE_ONE
#define FREE_ID(name, T, wanted) th_free(w->name);
    TH_ID_TABLE(FREE_ID)
    TH_ID_ARRAYS(FREE_ID)
#undef FREE_ID
}

/* Grow the id table and the per-id arrays that exist to `cap` slots, keeping the slots used. */
static bool grow_ids(th_world *w, uint32_t cap) {
#define GROW_ID(name, T, wanted) \
    if ((wanted) && !th_grow_array((void **)&w->name, sizeof(T), w->id_top, cap)) return false;
    TH_ID_TABLE(GROW_ID)
    TH_ID_ARRAYS(GROW_ID)
#undef GROW_ID
    return true;
}

/* The report's and flow's departure times, one entry per agent that ever left (sheltered,
 * exited): the one record that grows with the agents ever added rather than those alive, four
 * bytes apiece, so that th_world_sheltered_by and th_world_exited_by can answer for any k. Sized
 * for every agent added so far, doubling, grown where agents are added (between steps, or an
 * endless spawner in the events phase). */
bool th_world_reserve_history(th_world *w, uint32_t n) {
    if (n <= w->history_capacity) return true;
    const uint32_t cap = th_grown_capacity(w->history_capacity, n, 1024, UINT32_MAX);
    if (!w->hooks.grow_history(w, cap)) return false;
    w->history_capacity = cap;
    return true;
}

/* The contacts phase's per-agent lists, sized with the agent arrays once a crowd has bodies
 * (radius: the largest body radius, counting one about to be added). */
bool th_world_reserve_contacts(th_world *w, float radius) {
    if (radius <= 0.0f || w->contact_capacity >= w->capacity) return true;
    if (!th_grow_array((void **)&w->contact, sizeof *w->contact, 0,
                       (size_t)w->capacity * TH_CONTACT_LIST) ||
        !th_grow_array((void **)&w->contact_count, sizeof *w->contact_count, 0, w->capacity))
        return false;
    w->contact_capacity = w->capacity;
    return true;
}

/* Capacities grow from 1,024 by doubling, up to TH_MAX_AGENTS. */
static uint32_t grown_capacity(uint32_t cap, uint32_t n) {
    return th_grown_capacity(cap, n, 1024, TH_MAX_AGENTS);
}

/* Room for n agents stored: the agent arrays and what is sized with them (chunk statistics,
 * the spawning scratch, contact lists, the grids' index arrays, the predator index). */
bool th_world_reserve_agents(th_world *w, uint32_t n) {
    if (n <= w->capacity) return true;
    const uint32_t cap = grown_capacity(w->capacity, n);
    uint32_t keep = w->count;
    uint32_t chunks_old = (w->capacity + TH_CHUNK - 1) / TH_CHUNK;
    uint32_t chunks_new = (cap + TH_CHUNK - 1) / TH_CHUNK;
    bool ok =
        grow_agents(w, &w->buf[w->cur], keep, cap) &&
        grow_agents(NULL, &w->buf[w->cur ^ 1], 0, cap) &&
        th_grow_array((void **)&w->chunk_stats, sizeof *w->chunk_stats, chunks_old, chunks_new) &&
        w->hooks.grow_agents(w, cap);
    if (!ok) return false;
    w->capacity = cap;
    return th_world_reserve_contacts(w, w->max_radius) && th_world_setup_grid(w);
}

/* Room for n id slots: the id table, the per-id arrays and the measured positions, keeping the
 * slots used. */
bool th_world_reserve_ids(th_world *w, uint32_t n) {
    if (n <= w->id_capacity) return true;
    const uint32_t cap = grown_capacity(w->id_capacity, n);
    if (!grow_ids(w, cap) || !w->hooks.grow_ids(w, cap)) return false;
    w->id_capacity = cap;
    return true;
}

bool th_world_reserve(th_world *w, uint32_t stored, uint32_t ids) {
    return th_world_reserve_agents(w, stored) && th_world_reserve_ids(w, ids);
}
