/* The serial phases of a step when the agents are split over several processes (MPI ranks):
 * what every rank must hold identically (counts, bunkers, exits, spawners, targets, the id free
 * list) and how each rank's part of the agents feeds it (sim/dist/dist_serial.c).
 *
 * One process keeps today's code paths; every function here is then a no-op or an identity.
 * The replay of contested resources (th_drop_sort, th_drop_replay) is plain C with a meaning
 * of its own: candidates gathered from every rank, put in global storage order (grid cell, id
 * slot), admitted by the serial rule. It is tested against a serial reference in any build. */
#ifndef TH_SIM_DIST_SERIAL_H
#define TH_SIM_DIST_SERIAL_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/core/storage.h" /* th_cell_added */
#include "sim/core/world.h"

/* An agent marked to leave (th_world_drop_marked), as every rank sees it in the replay. */
typedef struct th_drop {
    uint64_t key; /* first: th_sort_keyed */ /* global storage order: th_drop_key */
    uint32_t local;                          /* storage index on its owner */
    uint16_t rank;                           /* its owner */
    uint8_t mark; /* w->shelter: bunker index + 1, TH_MARK_EXIT + exit, TH_MARK_REMOVED */
    uint8_t left; /* replay outcome: 1 = leaves the world, 0 = stays (a full bunker) */
    uint8_t wake; /* 1: `leaver` holds the walker who leaves, as those behind it see it */
    th_leaver leaver;
} th_drop;

/* A bunker's admission state, as th_drop_replay reads and advances it. */
typedef struct th_drop_bunker {
    uint32_t capacity; /* 0 = no limit */
    uint32_t sheltered;
    bool full, destroyed;
    th_door_limit limit; /* its flow limit (sim/nav/world_nav.h) */
} th_drop_bunker;

/* Global storage order of an agent: its cell (or TH_CELL_ADDED | order added), then its id
 * slot (unique among agents alive). */
static inline uint64_t th_drop_key(uint32_t cell, uint32_t slot) {
    return (uint64_t)cell << 32 | slot;
}

/* Sort n records of `size` bytes (at most TH_KEYED_MAX) by the uint64_t key each starts with,
 * in place, without allocating (heap sort: keys are unique, so the order is the keys'). */
#define TH_KEYED_MAX 64
void th_sort_keyed(void *items, uint32_t n, size_t size);
_Static_assert(sizeof(th_drop) <= TH_KEYED_MAX, "a drop must fit the keyed sort's records");

/* Sort n drops by key (th_sort_keyed). */
void th_drop_sort(th_drop *d, uint32_t n);

/* The serial rule of th_world_drop_marked over drops in key order at step `step` (of dt
 * seconds): removed agents always leave; an agent in exit e leaves while e's flow limit
 * (exit[e]) lets it; an agent in bunker b leaves while b is neither full nor destroyed and its
 * flow limit lets it, b counting it and turning full when it reaches its capacity; the others
 * stay. Sets each drop's `left`, advances the bunkers and exit limits; returns how many bunkers
 * turned full. */
uint32_t th_drop_replay(th_drop *d, uint32_t n, th_drop_bunker *b, uint32_t bunkers,
                        th_door_limit *exit, uint32_t exits, uint64_t step, double dt);

/* More than one rank: the serial phases reduce (sim/dist/dist.h) and replay. */
bool th_dist_serial_active(const th_world *w);

/* ---- the hooks ------------------------------------------------------------------------------ */

/* The replay of departures' buffers (this rank's marked agents, every rank's), kept between
 * steps and grown to the largest need seen (sim/step/drop.c); NULL when out of memory. */
typedef struct th_drop_buffers {
    th_drop *mine, *all;
    uint32_t mine_cap, all_cap;
} th_drop_buffers;
th_drop_buffers *th_dist_drop_buffers(th_world *w);

/* In one process, run th_world_drop_marked through the replay path and the squads phase
 * through the gather of members (a gather of one rank): a white-box check that these paths
 * reproduce the serial ones (tests only). */
void th_dist_serial_force(th_world *w, bool on);
bool th_dist_serial_forced(const th_world *w);

/* Targets that follow an agent: its owner's position and velocity, on every rank. */
void th_dist_targets(th_world *w);

/* Bodies near a spawner's area: *near holds this rank's n of them (x, y, radius; room for
 * *cap); replaced by those of every rank in rank order (grown when they do not fit). Returns
 * their count. The spawner's test is whether any of them overlaps a place: order-free. */
uint32_t th_dist_gather_near(th_world *w, float **near, uint32_t n, uint32_t *cap);

/* ---- building blocks for other serial phases ------------------------------------------------ */

/* Every rank's `n` items of `elem` bytes, concatenated in rank order into *buf (grown as
 * needed, doubling, with room for `extra` more items at its end; *cap counts items); *total
 * gets the count. One process: a copy. Collective: every rank calls it at the same point.
 * Memory running out is fatal (th_dist_out_of_memory). */
void *th_dist_gather_all(th_world *w, const void *mine, uint32_t n, size_t elem, void **buf,
                         uint32_t *cap, uint32_t extra, uint32_t *total);

/* Grow *p (elements of `elem` bytes, *cap of them) to hold n, doubling. False when memory is
 * short: the step cannot go on identically on every rank, so callers treat it as fatal. */
bool th_dist_room(void **p, uint32_t *cap, size_t elem, uint32_t n);

/* Out of memory inside a collective phase: one process cannot go on (the assert hook hears
 * of it); under several ranks the others would wait for this one forever, so every rank
 * stops (a failure on one rank inside a step is fatal). */
void th_dist_out_of_memory(const th_world *w, const char *what);

void th_dist_serial_free(th_world *w);

#endif
