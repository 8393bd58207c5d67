/* The step (sim/step/step.c): its context, which kernels take, and what other modules use. */
#ifndef TH_SIM_STEP_H
#define TH_SIM_STEP_H

#include <math.h>

#include "sim/core/world.h"

/* The step context: built once before the first part of a step and passed to every part (and
 * through the pool to every parallel job). It holds what stays fixed for the step (timestep,
 * world size, edge rule, which optional features are present), what one part hands to a later
 * one (agents walled in, whether the map changed, agents stepping into bunkers and exits), and
 * the views of the agent arrays the jobs read and write. Those views are bound by the grid part
 * (step_ctx_bind), after the buffers flip: the events phase before it may still grow the arrays
 * (an endless spawner), and nothing reallocates after it. The jobs read these fields instead of
 * chasing the world's, so each job names what it touches; helpers that need more (terrain,
 * goals, exits) get `w`. */
typedef struct th_step_ctx {
    th_world *w;
    /* Handed from part to part. */
    uint32_t walled_in;  /* events -> burial: this process's agents walled in (marked) */
    bool displaced;      /* events -> burial: agents were moved out of blocked cells */
    bool map_changed;    /* nav -> congestion: the map's cells changed this step */
    uint32_t sheltering; /* statistics -> admit: agents that stepped into a bunker or exit */
    /* Array views, bound by the grid part. */
    const th_agents *src; /* gather: last step's state, last step's storage order */
    th_agents *a;         /* this step's state, cell order: gathered, then stepped in place */
    float *ax, *ay;
    uint32_t *cell;
    uint8_t *shelter;
    th_chunk_stats *chunk_stats;
    const uint32_t *order; /* grid: sorted position -> storage index of last step */
    uint32_t *key;         /* grid: storage index -> cell, then -> new slot (gather_job) */
    uint32_t *slot_of_id;
    uint32_t key_base; /* grid: global cell of local key 0 (0 but in a strip of rows) */
    float dt, width, height;
    bool wrap;
    bool terrain, slow; /* a map; one whose cells slow walking */
    bool goal_state;    /* some crowd's goal keeps state */
    bool exits;         /* spawners or exits exist */
    bool pedestrians;   /* some crowd uses the pedestrian model: its arrays are gathered */
    bool hazards;       /* fire hazards exist: agents breathe them in the integrate phase */
    bool levels;        /* a building with pedestrians: the grid phase notes each one's level */
} th_step_ctx;

/* Keep a position inside the world: bounce off walled edges, wrap on a torus (the integrate
 * part and the contacts, for every agent twice a step: inline). */
/* Keep a coordinate inside [0, extent): bounce off the edges, or wrap around. */
static inline void th_bound_axis(float *p, float *v, float extent, bool wrap) {
    float x = *p;
    if (wrap) {
        if (x < 0.0f) x += extent;
        else if (x >= extent) x -= extent;
        /* x + extent can round up to extent itself when x is a tiny negative number. */
        if (!(x >= 0.0f && x < extent)) x = 0.0f;
    } else {
        if (x < 0.0f) {
            x = -x;
            *v = fabsf(*v);
        } else if (x >= extent) {
            x = extent - (x - extent);
            *v = -fabsf(*v);
        }
        /* Positions are half-open [0, extent): one at extent or beyond goes to the largest
         * float below it (worked out only then: every agent passes here twice a step). */
        if (!(x >= 0.0f)) x = 0.0f;
        else if (!(x < extent)) x = nextafterf(extent, 0.0f);
    }
    *p = x;
}

static inline void th_world_bound(const th_world *w, th_vec2 *p, th_vec2 *v) {
    th_bound_axis(&p->x, &v->x, w->def.width, w->wrap);
    th_bound_axis(&p->y, &v->y, w->def.height, w->wrap);
}

#endif
