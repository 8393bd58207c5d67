/* Test reference: a plain Dijkstra on a binary heap, written independently of sim/nav*.c.
 *
 * Same graph as the navigation layer, restated here from its definition rather than shared:
 * 8 neighbours; a diagonal needs both orthogonal cells open; the move between open cells a and
 * b costs (cost(a) + cost(b)) * 70 straight or * 99 diagonal; goals start at their weight.
 * Distances are exact 64-bit integers with no cap; th_ref_to_field maps them to the engine's
 * convention (above the cap = unreachable). */
#ifndef TH_REF_DIJKSTRA_H
#define TH_REF_DIJKSTRA_H

#include <stdint.h>

#define TH_REF_INF UINT64_MAX

typedef struct th_ref_goal {
    int x, y;
    uint64_t weight;
} th_ref_goal;

/** Fill `dist` (w*h) with the cheapest cost from each cell to any goal; TH_REF_INF when none.
 *  `cost[i]` == 0 means blocked. Returns 0, or -1 when memory is short. */
int th_ref_dijkstra(int w, int h, const uint16_t *cost, const th_ref_goal *goals, int ngoals,
                    uint64_t *dist);

/** Two cells joined as if neighbours: a straight step between them (levels joined by stairs). */
typedef struct th_ref_join {
    int a, b;
} th_ref_join;

/** th_ref_dijkstra on the grid plus the joined pairs. */
int th_ref_dijkstra_joined(int w, int h, const uint16_t *cost, const th_ref_goal *goals, int ngoals,
                           const th_ref_join *joins, int njoins, uint64_t *dist);

/** The engine's value for a reference distance: TH_NAV-style UINT32_MAX above `cap`. */
uint32_t th_ref_to_field(uint64_t d, uint32_t cap);

#endif
