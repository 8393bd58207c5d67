/* throng: buildings, levels joined by stairs (docs/buildings.md).
 *
 * A building is drawn on the world's one map: each level (floor) is a rectangle of its cells,
 * side by side like the floor plans of a drawing, with its own name and elevation. A stair is
 * a flight of cells on its lower level, climbing one way (east, north, west or south); the
 * edge at its top is glued to the landing on the level above. Every route, river map,
 * destination field and walker crosses that seam as if the flight's top row and the landing
 * were neighbours, so one field spans every level and a bunker or exit on the ground floor
 * draws walkers down from the floors above. Events that block or open cells re-route across
 * levels at once.
 *
 * On a flight, walkers move along the slope at `up_factor` or `down_factor` times their free
 * speed (going the way of `up` or against it); their pace over the plan is that times the
 * plan length over the slope length. Unset, the factors give Weidmann's (1993) mean
 * horizontal speeds on stairs, 0.610 m/s up and 0.694 m/s down against 1.34 m/s on the flat,
 * as shares of each walker's own free speed.
 *
 * An elevator is a car in a shaft with a stop on several levels. Each stop is an open cell in
 * front of the car's doors on its level. The crowds an elevator serves walk, from any level with
 * one of its stops, to that stop; there they wait, board one at a time, ride, and step out at
 * its discharge stop (the ground floor of an evacuation), then walk on to their crowd's goal.
 * The car serves the stop that called first, carries at most `capacity` riders, and takes the
 * time its speed, acceleration, doors, dwell and boarding give (th_elevator_def). A rider is out
 * of the map while it rides: no one sees or touches it.
 *
 * Levels, stairs and elevators are added after the map's cells and before the first step. A
 * world with no levels is one flat map, as before. Units: metres, seconds, cells of the map. */
#ifndef THRONG_BUILDING_H
#define THRONG_BUILDING_H

#include "throng.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Most levels, and most stairs, of one world. */
#define TH_MAX_LEVELS         64
#define TH_MAX_STAIRS         250
/** Most elevators of one world, stops of one elevator, and riders of one car. */
#define TH_MAX_ELEVATORS      16
#define TH_MAX_ELEVATOR_STOPS 16
#define TH_MAX_CAR            64

/** Handles: index1 = index + 1 (0 = null). */
typedef struct th_level_id {
    uint32_t index1;
} th_level_id;
typedef struct th_stair_id {
    uint32_t index1;
} th_stair_id;
typedef struct th_elevator_id {
    uint32_t index1;
} th_elevator_id;

/** The four ways a flight can climb. */
typedef enum th_stair_way {
    TH_STAIR_EAST = 0,
    TH_STAIR_NORTH = 1,
    TH_STAIR_WEST = 2,
    TH_STAIR_SOUTH = 3
} th_stair_way;

/** A level: a rectangle of the map's cells, not overlapping another level's. */
typedef struct th_level_def {
    const char *name;       /* unique, 1..63 bytes */
    int32_t x0, y0, x1, y1; /* its cells, inclusive */
    float elevation;        /* metres, of its floor */
} th_level_def;

/** A stair: a flight of open cells on one level whose top edge is glued to a landing on a
 *  higher level. The cells beyond the flight's top on its own level, and behind the landing on
 *  the upper one (the stairwell), must be walls. */
typedef struct th_stair_def {
    const char *name;       /* unique, 1..63 bytes */
    int32_t x0, y0, x1, y1; /* the flight's cells, inclusive, all on one level */
    th_stair_way up;        /* the way up the flight */
    int32_t top_x, top_y;   /* the landing cell across the top edge from the flight's top row's
                               first cell (least x, or least y); the landing runs along the
                               edge as wide as the flight, on a higher level */
    float length;           /* metres along the slope; 0 = from the plan length and the rise */
    float up_factor;        /* speed along the slope going up, times the free speed, in
                               (0, 2]; 0 = Weidmann's */
    float down_factor;      /* the same going down */
} th_stair_def;

/** A level as it stands. */
typedef struct th_level_info {
    char name[64];
    int32_t x0, y0, x1, y1;
    float elevation;
    uint32_t agents; /* this process's agents standing on it now */
} th_level_info;

/** A stair as it stands. */
typedef struct th_stair_info {
    char name[64];
    th_level_id lower, upper;
    int32_t x0, y0, x1, y1;
    th_stair_way up;
    int32_t top_x, top_y;
    float plan_length, rise, length;   /* metres */
    float up_factor, down_factor;      /* along the slope, as used */
    uint32_t agents;                   /* this process's agents on the flight now */
    uint64_t crossed_up, crossed_down; /* crossings of its top edge so far, each way: a walker
                                          that steps back and forth in a queue counts each
                                          time, so crossed_down - crossed_up is the net number
                                          of walkers gone down */
} th_stair_info;

/** Add a level (before the first step; needs a map). The null handle with `err` filled on a bad
 *  name (empty, too long, taken), a rectangle off the map or overlapping another level. */
TH_API th_level_id th_world_add_level(th_world *w, const th_level_def *def, th_error *err);
TH_API uint32_t th_world_level_count(const th_world *w);
TH_API bool th_world_get_level(const th_world *w, th_level_id level, th_level_info *out);
/** The level named `name`, or the null handle. */
TH_API th_level_id th_world_find_level(const th_world *w, const char *name);
/** The level whose cells hold `p`, or the null handle (off every level, or no levels). */
TH_API th_level_id th_world_level_at(const th_world *w, th_vec2 p);

/** Add a stair (before the first step, after its levels and the map's cells). The null handle
 *  with `err` filled when the flight is not all open cells of one level, the landing is not
 *  open cells of a higher level, a cell across the glued edge on either side is open
 *  (TH_ERR_BLOCKED), the edge is glued already, an elevator has a stop on the flight's top row
 *  or the landing, or a length or factor is out of range. */
TH_API th_stair_id th_world_add_stair(th_world *w, const th_stair_def *def, th_error *err);
TH_API uint32_t th_world_stair_count(const th_world *w);
TH_API bool th_world_get_stair(const th_world *w, th_stair_id stair, th_stair_info *out);
/** The stair named `name`, or the null handle. */
TH_API th_stair_id th_world_find_stair(const th_world *w, const char *name);
/** The stair whose flight holds `p`, or the null handle. */
TH_API th_stair_id th_world_stair_at(const th_world *w, th_vec2 p);

/** One stop of an elevator: the open cell in front of its doors on one level, off every
 *  stair's seam (not a landing's cell nor a flight's top row). Riders wait within the
 *  elevator's `radius` of the cell's centre, or within a body's width of the cell, board there,
 *  and step out there. */
typedef struct th_elevator_stop {
    th_level_id level;
    int32_t x, y;
} th_elevator_stop;

/** The car's state. */
typedef enum th_elevator_state {
    TH_ELEVATOR_IDLE = 0, /* doors closed, no call */
    TH_ELEVATOR_MOVING,   /* travelling to a stop */
    TH_ELEVATOR_OPENING,  /* doors opening */
    TH_ELEVATOR_OPEN,     /* doors open: riders step out, waiting ones board, then it dwells */
    TH_ELEVATOR_CLOSING   /* doors closing */
} th_elevator_state;

/** How a car carrying riders goes to its discharge stop. */
typedef enum th_elevator_policy {
    /* Straight there: each trip carries the riders of the one stop it loaded at. */
    TH_ELEVATOR_SHUTTLE = 0,
    /* Down (or up) collective: on its way it stops at each stop it passes whose waiting
     * agents called, nearest first, while it has room; it boards them as at any stop. */
    TH_ELEVATOR_COLLECTIVE
} th_elevator_policy;

/** An elevator. A trip takes: travel (from the stops' elevations, `speed` and `acceleration`),
 *  doors opening (`door_time`), `board_time` per rider out and per rider in, `dwell` with the
 *  doors open after the last of them, doors closing (`door_time`). The car waits at `start`
 *  until a stop calls (an agent it serves waits there); it serves the stop that called first
 *  (equal: the higher one), takes up to `capacity` riders, nearest to the doors first, and
 *  carries them to `discharge`, by the stops on the way that called under
 *  TH_ELEVATOR_COLLECTIVE. With `patience`, an agent that has waited that long gives up and
 *  follows its crowd's goal instead (the stairs, say). */
typedef struct th_elevator_def {
    const char *name; /* unique, 1..63 bytes */
    uint32_t stop_count;
    th_elevator_stop stops[TH_MAX_ELEVATOR_STOPS]; /* 2 or more, each on its own level */
    uint32_t discharge;                            /* index into stops: where riders are taken */
    uint32_t start;            /* index into stops: where the car waits at the start */
    uint32_t capacity;         /* riders, 1..TH_MAX_CAR */
    float speed;               /* metres/second, > 0 */
    float acceleration;        /* metres/second^2; 0 = full speed at once */
    float door_time;           /* seconds to open, and again to close */
    float dwell;               /* seconds the doors stay open after the last rider in or out */
    float board_time;          /* seconds per rider stepping in or out; 0 = all at once */
    float radius;              /* metres around a stop's cell centre where riders wait and board
                                  (and within a body's width of the cell at any radius);
                                  0 = 1.5 m */
    const th_crowd_id *crowds; /* the crowds it serves (pedestrian crowds), crowd_count of them */
    uint32_t crowd_count;
    th_elevator_policy policy; /* 0: TH_ELEVATOR_SHUTTLE */
    float patience; /* seconds an agent waits at a stop before it gives up on the car and follows
                       its crowd's goal (the stairs) for good; 0 = it waits for ever */
} th_elevator_def;

/** An elevator as it stands. */
typedef struct th_elevator_info {
    char name[64];
    uint32_t stop_count;
    th_elevator_stop stops[TH_MAX_ELEVATOR_STOPS];
    uint32_t discharge, capacity;
    float speed, acceleration, door_time, dwell, board_time, radius;
    th_elevator_policy policy;
    th_elevator_state state;
    uint32_t at;      /* the stop it stands at, or left last (MOVING: `to` is where it goes) */
    uint32_t to;      /* MOVING: the stop it travels to; else `at` */
    uint32_t riders;  /* agents in the car now */
    uint32_t waiting; /* agents it serves waiting at its stops now */
    uint32_t stop_waiting[TH_MAX_ELEVATOR_STOPS]; /* of them, at each stop */
    uint64_t trips;   /* trips that carried riders to the discharge stop */
    uint64_t carried; /* riders stepped out at the discharge stop so far */
    float patience;   /* seconds; 0 = agents wait for ever */
    uint64_t gave_up; /* agents that waited `patience` and took their crowd's goal instead */
    double last_out;  /* world time of the last rider stepping out, seconds; -1 before */
    uint32_t walking; /* agents it serves walking to one of its stops, not yet within reach */
} th_elevator_info;

/** Add an elevator (before the first step, after its levels and crowds). The null handle with
 *  `err` filled when a stop is not an open cell of its level or lies on a stair's seam
 *  (TH_ERR_BLOCKED), two stops share a level, a crowd is not a pedestrian crowd or is served
 *  by another elevator, or a number is out of range. Each stop but the discharge one takes a
 *  destination field (TH_MAX_DESTINATION_FIELDS). */
TH_API th_elevator_id th_world_add_elevator(th_world *w, const th_elevator_def *def, th_error *err);
TH_API uint32_t th_world_elevator_count(const th_world *w);
TH_API bool th_world_get_elevator(const th_world *w, th_elevator_id elevator,
                                  th_elevator_info *out);
/** The elevator named `name`, or the null handle. */
TH_API th_elevator_id th_world_find_elevator(const th_world *w, const char *name);
/** The elevator agent `id` rides now, or the null handle. */
TH_API th_elevator_id th_world_agent_elevator(const th_world *w, th_agent_id id);
/** Seconds a car takes to travel `metres` at top `speed` with `acceleration` (0 = none):
 *  metres / speed + speed / acceleration when it reaches its top speed, else
 *  2 sqrt(metres / acceleration). For hand calculations. */
TH_API double th_elevator_travel_time(double metres, double speed, double acceleration);

#ifdef __cplusplus
}
#endif

#endif
