/* Elevators (sim/behave/elevator.c, include/throng/building.h): cars in shafts between levels,
 * the agents that walk to them, wait, ride and step out.
 *
 * An agent of a crowd an elevator serves, standing on a level with one of its stops other than
 * the discharge stop, walks that stop's destination field (nav.dest) instead of its crowd's
 * goal. The car is run serially in the bookkeeping phase, after the contacts: it counts who
 * waits at each stop, moves through its states by the step's time, and boards the nearest
 * waiting agents (storage order breaks ties: a function of the agents, so of no thread count).
 * A rider keeps its place in storage, at the spot it boarded, but lift_of_id marks it: the grid
 * phase gives it the level TH_LEVEL_RIDING, which no walker's sensing, contact list or body
 * check matches, and the steer and integrate phases leave it standing. Stepping out puts it
 * at the discharge stop.
 *
 * Over several MPI ranks every rank runs every car alike: the waiting counts are summed, each
 * rank's nearest candidates gathered in rank order (global storage order), and lift_of_id is
 * kept on every rank; only the owner of a rider moves its body. */
#ifndef TH_SIM_ELEVATOR_H
#define TH_SIM_ELEVATOR_H

#include <math.h>

#include "engine/hash.h"
#include "sim/core/world.h"
#include "throng/building.h"

/* The level byte of a rider (sim/core/world.h `level`): no level's index + 1. */
#define TH_LEVEL_RIDING 255u
/* lift_wait of an agent that gave up on its elevator: it follows its crowd's goal for good. */
#define TH_LIFT_GAVE_UP UINT64_MAX

typedef struct th_lift_stop {
    uint32_t level; /* level index */
    int32_t x, y;
    th_vec2 at;     /* the cell's centre, metres */
    uint32_t field; /* index into nav.dest (every stop but the discharge one) */
    uint64_t call;  /* step + 1 from which agents have waited here without a break; 0 = none */
    uint32_t waiting;
} th_lift_stop;

typedef struct th_lift {
    char name[64];
    th_lift_stop stop[TH_MAX_ELEVATOR_STOPS];
    uint32_t stops, discharge, capacity;
    uint8_t stop_on_level[TH_MAX_LEVELS]; /* stop index + 1 on each level, 0 = none */
    float speed, acceleration, door_time, dwell, board_time, radius;
    th_elevator_policy policy;
    float patience;   /* seconds, 0 = for ever */
    uint64_t gave_up; /* agents that gave up waiting, so far */
    uint32_t quit;    /* of them, this step (this rank's until share_waiting sums them) */
    uint32_t walking; /* agents walking to its stops, not yet within reach (summed likewise) */
    th_elevator_state state;
    uint32_t at, to;
    double left;                /* seconds left of the state's timed part */
    double transfer_left;       /* OPEN: seconds until the next rider steps in or out */
    uint32_t riders, alighting; /* in the car; of them still to step out here */
    th_agent_id rider[TH_MAX_CAR];
    uint64_t trips, carried;
    double last_out;
    /* The bookkeeping pass's candidates at the stop the car stands open at, nearest first
     * (ties in storage order, over every rank), and their squared distances. */
    th_agent_id cand[TH_MAX_CAR];
    uint32_t cand_count;
    float cand_d2[TH_MAX_CAR];
} th_lift;

struct th_lifts {
    th_lift lift[TH_MAX_ELEVATORS];
    uint32_t count;
    /* Several ranks: every rank's candidates, gathered (share_waiting); all_cap of them. */
    void *all;
    uint32_t all_cap;
};

/* The stop field agent (slot, crowd c, at p) walks to its elevator by, or NULL: it rides none,
 * rides now, gave up waiting, or stands on no level with a stop of its elevator other than the
 * discharge one. */
static inline const th_nav_field *th_lift_field(const th_world *w, const th_crowd_rt *c,
                                                uint32_t slot, th_vec2 p) {
    if (!c->lift || w->lift_of_id[slot] || w->lift_wait[slot] == TH_LIFT_GAVE_UP) return NULL;
    const uint32_t l = w->nav.level_of[th_navmap_cell_of(&w->nav.map, p, NULL, NULL)];
    if (!l) return NULL;
    const th_lift *e = &w->lifts->lift[c->lift - 1u];
    const uint32_t s = e->stop_on_level[l - 1u];
    if (!s || s - 1u == e->discharge) return NULL;
    return &w->nav.dest[e->stop[s - 1u].field];
}

/* Whether a body of radius `body` at p, on the stop's level, is within reach of stop `st` of
 * car e: within the car's radius of the stop's centre, or within a body's width (2 `body`) of
 * the stop's cell. Walls, the cell's own size and the bodies about keep a walker off the stop's
 * centre: a pedestrian keeps its centre 1.25 radii off a wall its goal leads into, so in a
 * corner it stands up to 1.77 radii from the stop's cell, and its field leads it no further
 * than into that cell. Within a body's width of it, the walker nearest the doors stands as
 * close as it can get, so a radius smaller than a body can reach still loads. */
static inline bool th_lift_in_reach(const th_world *w, const th_lift *e, const th_lift_stop *st,
                                    th_vec2 p, float body) {
    const th_vec2 d = th_v2_sub(p, st->at);
    if (th_v2_len2(d) <= e->radius * e->radius) return true;
    const float half = 0.5f * w->nav.map.cell_size;
    const float gx = fmaxf(fabsf(d.x) - half, 0.0f), gy = fmaxf(fabsf(d.y) - half, 0.0f);
    return gx * gx + gy * gy <= 4.0f * body * body;
}

/* The stop agent (slot, crowd c, at p) walks to, or NULL: as th_lift_field. */
static inline const th_lift_stop *th_lift_stop_for(const th_world *w, const th_crowd_rt *c,
                                                   uint32_t slot, th_vec2 p) {
    if (!th_lift_field(w, c, slot, p)) return NULL;
    const uint32_t l = w->nav.level_of[th_navmap_cell_of(&w->nav.map, p, NULL, NULL)];
    const th_lift *e = &w->lifts->lift[c->lift - 1u];
    return &e->stop[e->stop_on_level[l - 1u] - 1u];
}

/* Whether the agent at storage index k rides a car now (valid from the grid phase on). */
static inline bool th_lift_riding(const th_world *w, uint32_t k) {
    return w->lifts && w->level[k] == TH_LEVEL_RIDING;
}

/* The elevator with a stop at cell (x, y), as its index + 1, or 0: a stair is not glued there. */
uint32_t th_lifts_stop_at(const th_world *w, int32_t x, int32_t y);

/* bookkeeping: run the cars for one step. */
void th_lifts_update(th_world *w);
/* The cars' state and who rides them, into the state hash. */
void th_lifts_hash(const th_world *w, th_hasher *h);
void th_lifts_free(th_world *w);

#endif
