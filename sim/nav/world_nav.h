/* The world's navigation state (struct th_world_nav) and what the rest of sim/ calls in it:
 * terrain, bunkers, the event queue, river-map upkeep between steps, and the terrain terms of
 * each agent's step. One file per concept implements it (sim/terrain/world_nav.c lists them);
 * navigation knows nothing of behaviour: the step asks behaviour for what follows from it. */
#ifndef TH_SIM_WORLD_NAV_H
#define TH_SIM_WORLD_NAV_H

#include "sim/nav/nav.h"
#include "throng/throng.h"

typedef struct th_crowd_rt th_crowd_rt;

/* blocked_near values besides an open cell's index (cell indices stay below 2^24). */
#define TH_NOT_NEWLY_BLOCKED UINT32_MAX
#define TH_UNREACHED         0x80000000u

/* Raising events (block, dearer set_cost) one step remembers by rectangle for squads; more in
 * one step and every squad re-plans. */
#define TH_NAV_RAISED_RECTS 32u

/* A scheduled change: applied at the start of the step that leaves step `step`. */
/* A crowd change's type in th_event.def (th_world_schedule_crowd), past the public ones. */
#define TH_EVENT_CROWD ((th_event_type)64)

typedef struct th_event {
    uint64_t step;
    uint64_t seq;      /* scheduling order: ties at one step go first-scheduled first */
    th_event_def def;  /* rectangle clipped to the map */
    th_crowd_id crowd; /* TH_EVENT_CROWD: the crowd and its change */
    th_crowd_tune tune;
} th_event;

/* A door's flow limit (th_bunker_def.max_flow, th_exit_def.max_flow): at most `rate` persons a
 * second pass. `credit` grows by rate x dt a step and one person passes for each whole unit of
 * it; while someone is at the door every step the fraction carries over, so a queue passes at
 * `rate` on average whatever the step; a door left idle holds at most one unit, so the first to
 * come passes at once and no burst follows. Kept lazily: `step` is the step it was last asked
 * at (0: never; the admit phase runs at steps 1, 2, ...). */
typedef struct th_door_limit {
    float rate; /* 0: no limit */
    double credit;
    uint64_t step;
} th_door_limit;
/* A limit of `rate` persons a second, idle (the first passes at once). */
th_door_limit th_door_limit_make(float rate);
/* Whether one more person may pass at step `step` (steps of dt seconds); counts it when so. */
bool th_door_pass(th_door_limit *d, uint64_t step, double dt);
/* A bunker's admission rule, the one process's and the replay's over ranks alike: an agent at
 * its door is refused while the bunker is full or destroyed or its flow limit holds it back;
 * else it is counted, and the bunker turns full at its capacity (0 = none). 0: refused,
 * 1: let in, 2: let in and now full. */
int th_bunker_take(uint32_t capacity, uint32_t *sheltered, bool *full, bool destroyed,
                   th_door_limit *limit, uint64_t step, double dt);

typedef struct th_bunker {
    char name[64];
    int32_t x0, y0, x1, y1;
    uint32_t capacity, sheltered;
    bool destroyed, full;
    bool exit;           /* th_bunker_def.exit: how it is shown and reported, nothing else */
    th_door_limit limit; /* th_bunker_def.max_flow */
} th_bunker;

/* A level of a building: a rectangle of the map's cells (sim/terrain/levels.c). */
typedef struct th_level {
    char name[64];
    int32_t x0, y0, x1, y1;
    float elevation;
} th_level;

/* A stair: a flight on its lower level, its top edge glued to the landing above. */
typedef struct th_stair {
    char name[64];
    uint32_t lower, upper; /* level indices */
    int32_t x0, y0, x1, y1;
    uint8_t up; /* straight move 0..3 up the flight */
    int32_t top_x, top_y;
    float plan_length, rise, length;
    float up_factor, down_factor;      /* along the slope */
    float up_plan, down_plan;          /* the same over the plan: times plan_length / length */
    uint64_t crossed_up, crossed_down; /* crossings of the top edge, added to atomically in the
                                    integrate phase */
    th_vec2 shift;       /* a point by the flight's top plus this: where the landing side sees it */
    float flight_box[4]; /* metres, x0 y0 x1 y1: the flight, where the landing side looks */
    float beyond_box[4]; /* metres: beyond the landing's edge on the upper level, as wide as
                            the flight and TH_STAIR_SENSE deep, where the flight looks */
    int32_t near_rows[2][2]; /* first and last map row of the cells near the seam (seam_near),
                                [0] on the flight's side, [1] on the landing's: where walkers
                                look across it (several ranks hand those rows' walkers over) */
} th_stair;

/* How far from a stair's glued edge walkers see each other across it, metres: beyond every
 * default pedestrian reach (two radii and a time gap's walk, or seven repulsion ranges). */
#define TH_STAIR_SENSE 4.0f

/* Terrain, river maps and bunkers (all unused when the world has no map). */
typedef struct th_world_nav {
    bool present;
    th_navmap map;
    th_nav_field field[TH_MAX_BUNKERS]; /* one river map per bunker */
    th_nav_combined combined;           /* nearest open bunker, per cell */
    th_nav_scratch **scratch;           /* one per worker */
    int8_t *bunker_at;                  /* per cell: bunker index or -1 */
    th_bunker bunker[TH_MAX_BUNKERS];
    uint32_t bunker_count;
    th_nav_field dest[TH_MAX_DESTINATION_FIELDS]; /* weighted destination fields */
    uint32_t dest_count;

    th_event *events; /* scheduled: a binary min-heap on (step, seq), so same-step events are
                         applied in the order they were scheduled */
    uint32_t event_count, event_capacity;
    uint64_t event_seq; /* events scheduled so far */

    uint32_t *opened; /* cells opened since the fields were last brought up to date */
    uint32_t opened_count;
    bool fields_stale;   /* recompute every river map in full */
    bool combined_stale; /* rebuild the nearest-bunker field */
    bool walls_stale;    /* recompute the wall-distance field */
    bool displace;       /* cells were blocked: move agents out of them */
    /* Cells blocked by this step's events, for moving agents out of them. Allocated when the
     * first block event is scheduled (between steps), 8 bytes per cell. */
    uint32_t *blocked_list; /* the newly blocked cells, in the order they were blocked */
    uint32_t blocked_count;
    uint32_t *blocked_near; /* per cell: TH_NOT_NEWLY_BLOCKED, TH_UNREACHED | index in the
                               list (newly blocked, no open cell found yet), or the open cell
                               its agents move to */

    /* Per cell: the terrain cost a block event closed away (so an open event can give it
     * back), 0 for a cell no block closed. Allocated when the first block is scheduled. */
    uint16_t *closed_cost;

    float *speed; /* per cell: walking speed factor in (0, 1], or NULL while all are 1 */

    /* Levels and stairs (sim/terrain/levels.c): allocated with the first of each. */
    th_level *level;
    uint32_t level_count;
    uint8_t *level_of; /* per cell: level index + 1, or 0 off every level */
    th_stair *stair;
    uint32_t stair_count;
    uint8_t *stair_of;  /* per cell: stair index + 1 on a flight, else 0 */
    uint8_t *seam_near; /* per cell, two slots: stair index + 1 of up to two stairs within
                           TH_STAIR_SENSE of whose glued edge (either side) it lies, else 0 */

    /* What this step's events did to the routes, for squads to re-plan by (sim/behave/squad.c);
     * reset when the next step's events are applied. */
    bool terrain_lowered; /* a cell opened or got cheaper: a shorter way may exist anywhere */
    bool raised_overflow; /* more raising events than `raised` holds: treat every path as hit */
    uint32_t raised_count;
    th_event_def raised[TH_NAV_RAISED_RECTS]; /* rectangles of events that blocked cells or made
                                                 them dearer (clipped to the map) */

    /* Squads' formation fitting (sim/behave/squad.c): per cell, the epoch of the last search
     * that reached it (even: reached, odd: and a slot took it); the search's queue. Allocated
     * with the first squad, 8 bytes per cell. */
    uint32_t *reach_mark, *reach_queue;
    uint32_t reach_epoch;
    /* Rigid squads plan on the map with every cell closer to a wall than the formation's
     * reach blocked (sim/behave/squad.c): rebuilt for each such plan, allocated with the first
     * rigid squad (ncells == 0 until then). */
    th_navmap rigid_map;

    th_astar_ctx *astar; /* for th_world_find_path, created on first use */
    uint32_t *path;      /* its cell path buffer, ncells long */
    th_vec2 *waypoints;  /* string-pulled path, ncells long */
} th_world_nav;

/* sim/terrain/agent_terms.c: walking speed factor of the terrain at p (1 without a map or speeds).
 */
float th_nav_speed_at(const th_world *w, th_vec2 p);
/* Push the disc (p, r) out of the blocked cells it overlaps, cell by cell in a fixed order.
 * Returns the moved centre. Also keeps it off the world's edges in a walled world. */
th_vec2 th_nav_push_out_of_walls(const th_world *w, th_vec2 p, float r);
/* Path-finding memory (A*, the path and its waypoints) created on first use, and landmark
 * bounds built again if the map changed since they were: outside any step (it allocates and
 * may take a quarter of a second). Squads plan with what it left; false when out of memory. */
bool th_nav_path_ready(th_world *w, th_error *err);

/* The th_error code for a navigation layer's result (th_nav_status): the one place where nav
 * results become th_errors, so a status means the same wherever it surfaces. */
th_error_code th_nav_error_code(th_nav_status rc);
/* Nearest wall points: distance (metres) from p to the closest blocked cell (or walled world
 * edge) within `range`, and the unit direction away from it; false when none is that close. */
bool th_nav_nearest_wall(const th_world *w, th_vec2 p, float range, float *dist, th_vec2 *away);

bool th_nav_world_init(th_world *w); /* map, scratch: at creation when cell_size > 0 */
void th_nav_world_free(th_world *w);
/* Step phase "events" (sim/terrain/events.c): the events due applied, agents moved out of cells
 * they blocked. True when agents were moved (on every process alike), with *walled_in the
 * number of this process's agents left no open ground, marked TH_MARK_REMOVED: the step buries
 * them. */
bool th_nav_apply_events(th_world *w, uint32_t *walled_in);
/* Step phase "nav" (sim/terrain/fields.c): the fields brought up to date with the map. True when
 * the map changed since the last call (so fields that depend on it must follow). */
bool th_nav_update(th_world *w);
/* sim/terrain/levels.c: the share of the free speed a walker keeps at p heading `dir` (a flight's
 * speed over the plan, up or down by the sign of dir along the way up); 1 off the flights. */
float th_nav_stair_factor(const th_world *w, th_vec2 p, th_vec2 dir);
/* sim/terrain/levels.c: count a walker that moved from p to q across a stair's top edge. Safe from
 * many threads (atomic counts). */
void th_nav_stair_crossed(th_world *w, th_vec2 p, th_vec2 q);
/* sim/terrain/levels.c: where a walker at p heads for waypoint `to` after waypoint `from`: the seam
 * cell beyond `from` while the two are the sides of a glued edge and p is not yet on `to`'s
 * level, else `to` itself. */
th_vec2 th_nav_seam_aim(const th_world *w, th_vec2 p, th_vec2 from, th_vec2 to);
/* sim/terrain/levels.c: the unit heading `dir` of a walker at p bound for `to` on its own level,
 * less any part that would carry it across a glued edge of p's cell (a leg that grazes the end
 * of a seam would take it to the other level); `dir` itself when p's cell has no glued edge,
 * `to` lies on another level, or nothing but that part is left. */
th_vec2 th_nav_seam_keep(const th_world *w, th_vec2 p, th_vec2 to, th_vec2 dir);
/* sim/terrain/levels.c: whether a and b lie on two different levels (each on one: ground off every
 * level belongs to none), and whether their cells are the two sides of a stair's seam. */
bool th_nav_other_level(const th_world *w, th_vec2 a, th_vec2 b);
bool th_nav_glued(const th_world *w, th_vec2 a, th_vec2 b);
/* Move from p by d, sliding along blocked cells; updates *v when blocked on an axis. With
 * `seams`, a move across a glued edge carries on at the other side (walking); without, the
 * seam stops it like a wall (bodies pushed apart stay on their level). */
th_vec2 th_nav_move(const th_world *w, th_vec2 p, th_vec2 d, th_vec2 *v, bool seams);
/* th_world_add_destinations returning the field's index, or -1 with `err` filled. */
int th_nav_add_destinations(th_world *w, const th_destination *goals, uint32_t count,
                            th_error *err);
/* sim/terrain/bunkers.c: admit one agent into bunker `bunker` (an index) at step `step` (of dt
 * seconds): false when it is full or destroyed or its flow limit holds the agent back; the
 * bunker turns full at its capacity, and the nearest-bunker field follows. */
bool th_nav_admit(th_world_nav *n, uint32_t bunker, uint64_t step, double dt);
/* Bunker index + 1 when p is in an open bunker, else 0. */
uint8_t th_nav_shelter_at(const th_world *w, th_vec2 p);

#endif
