/* Fire hazards (throng/hazard.h, docs/hazards.md): smoke and toxic gases over rectangles of the
 * map, given at times; the dose each agent breathes in, and the speed smoke leaves it.
 *
 * The world keeps, per map cell, the hazard that covers it last (0 = clean air), and per hazard
 * the air of the current step, worked out once at the start of the step (th_hazard_update, in
 * the events phase, serial). Agents read both in the integrate phase and write only their own
 * slot of hazard_state: the dose sums the same numbers in the same order whatever the thread
 * count. */
#ifndef TH_SIM_HAZARD_H
#define TH_SIM_HAZARD_H

#include "sim/core/world.h"
#include "throng/hazard.h"

/* The air of one hazard in the current step. */
typedef struct th_hazard_now {
    th_air air;
    double fed_rate; /* dose per second */
    float smoke;     /* air.extinction, kept beside the rate for the agents' loop */
} th_hazard_now;

typedef struct th_hazard_area {
    uint32_t key0, keys; /* its keys: hazards->key[key0, key0 + keys) */
} th_hazard_area;

struct th_hazards {
    th_hazard_area *area;
    th_hazard_now *now;
    uint32_t count, cap, now_cap; /* area[] holds cap, now[] now_cap */
    th_hazard_key *key;
    uint32_t key_count, key_cap;
    uint32_t *cell; /* per map cell: the hazard covering it last, + 1; 0 = clean air */
};

/* events phase: the air of every hazard at the step's start time. */
void th_hazard_update(th_world *w);

/* world.c: free the hazards. */
void th_hazard_free(th_world *w);

/* The hazard covering position p (+ 1), 0 for clean air. */
static inline uint32_t th_hazard_at(const th_world *w, th_vec2 p) {
    return w->hazard->cell[th_navmap_cell_of(&w->nav.map, p, NULL, NULL)];
}

/* Smoke's speed factor for crowd c in extinction k. */
static inline float th_hazard_smoke_factor(const th_crowd_def *c, float k) {
    const float f = 1.0f - c->smoke_slope * k;
    return f > c->smoke_min_factor ? f : c->smoke_min_factor;
}

/* The pedestrian model's speed factor where the agent stands (ped.c): 0 once incapacitated. */
static inline float th_hazard_walk_factor(const th_world *w, uint32_t crowd, uint32_t slot,
                                          th_vec2 p) {
    if (w->hazard_state[slot].down_step) return 0.0f;
    const uint32_t h = th_hazard_at(w, p);
    return h ? th_hazard_smoke_factor(&w->crowd_def[crowd], w->hazard->now[h - 1].smoke) : 1.0f;
}

/* integrate phase: one step of exposure for the agent in slot `slot` of `crowd` at p. Adds the
 * dose; returns the factor on its speed: 0 when it is (or just became) incapacitated. */
static inline float th_hazard_expose(th_world *w, uint32_t crowd, uint32_t slot, th_vec2 p,
                                     double dt) {
    th_hazard_state *st = &w->hazard_state[slot];
    if (st->down_step) return 0.0f;
    const uint32_t h = th_hazard_at(w, p);
    if (!h) return 1.0f;
    const th_hazard_now *now = &w->hazard->now[h - 1];
    if (now->fed_rate > 0.0) {
        st->fed += now->fed_rate * dt;
        if (st->fed >= 1.0) {
            st->down_step = w->step + 1; /* the end of this step */
            return 0.0f;
        }
    }
    return th_hazard_smoke_factor(&w->crowd_def[crowd], now->smoke);
}

#endif
