/* Walkers who just left the world by an exit or into a bunker, as those behind them still see
 * them (sim/behave/leavers.c). */
#ifndef TH_SIM_LEAVERS_H
#define TH_SIM_LEAVERS_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/core/world.h"

/* th_leaver, a walker who left, is the world's data (sim/core/world.h). */

/* Make room for the leavers and the marks of the grid cells near them, sized to the current
 * grid, when the world has a pedestrian crowd with bodies (else nothing). Called whenever the
 * grid is set up again. False when memory is short. */
bool th_leavers_setup(th_world *w);
void th_leavers_free(th_world *w);

/* The leaver agent k of this process's storage leaves behind, when it is a pedestrian with a
 * body that walks somewhere: false otherwise. Serial, while k is still stored. */
bool th_leaver_of(const th_world *w, uint32_t k, th_leaver *out);

/* One more leaver (serial: in the admit phase, in the order agents leave). */
void th_leavers_add(th_world *w, const th_leaver *l);

/* Before the steering: leavers beyond every walker's reach are forgotten, and the grid cells
 * whose walkers can reach one of the others are marked (serial). */
void th_leavers_prepare(th_world *w);

/* Whether a walker in grid cell `cell` may have a leaver within reach this step. */
static inline bool th_leavers_near(const th_world *w, uint32_t cell);

/* The speed a walker at p, of body radius r on level `level`, walking along unit e with the
 * time-gap law `gap_speed` (sim/behave/ped.c), may keep behind the leavers in its way: the
 * smallest of u and what each leaver ahead allows. */
float th_leavers_speed(const th_world *w, th_vec2 p, th_vec2 e, float r, uint8_t level,
                       float inv_time_gap, float reach, float u);

/* ---- inline --------------------------------------------------------------------------------- */

struct th_leavers {
    th_leaver *list; /* live leavers, oldest first */
    uint32_t count, cap;
    uint8_t *near;    /* per grid cell: a leaver may be within a walker's reach */
    uint32_t *marked; /* cells marked in `near` by the last prepare, room for cap blocks */
    uint32_t marked_count, marked_cap, cells;
    int32_t block; /* cells marked on each side of a leaver's: the walkers' widest block */
    float reach;   /* the farthest a walker looks, metres */
};

static inline bool th_leavers_near(const th_world *w, uint32_t cell) {
    const struct th_leavers *l = w->leavers;
    return l && l->count && cell < l->cells && l->near[cell];
}

#endif
