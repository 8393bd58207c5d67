/* Squads on A* paths holding a formation (sim/behave/squad.c). */
#ifndef TH_SIM_SQUAD_H
#define TH_SIM_SQUAD_H

#include "sim/core/world.h"

/* A squad (sim/behave/squad.c). */
#define TH_SQUAD_PATH_POINTS 1024 /* the centre's string-pulled path */
#define TH_SQUAD_BACK_POINTS 32   /* a cut-off member's way back */

struct th_squad {
    th_squad_def def;    /* count = members alive */
    th_vec2 *slot_local; /* slots in the squad's frame, centred */
    th_vec2 *slot_pos;   /* slots in the world, for the next step */
    th_agent_id *member; /* members alive */
    uint32_t member_count;
    uint32_t capacity; /* members the per-member arrays hold */
    uint32_t *slot_of_member;
    uint8_t *taken; /* scratch of slot assignment */
    float *cutoff;  /* seconds each member has been out of sight of its slot */
    th_vec2 *back;  /* each member's way back, TH_SQUAD_BACK_POINTS apiece */
    uint32_t *back_count, *back_next;
    th_vec2 *at;   /* each member's position when the squads last read them */
    uint8_t *seen; /* ...and whether it was found alive (sim/behave/squad.c, members_at) */
    th_vec2 *path; /* the centre's path to the goal */
    uint32_t path_count, path_next;
    th_vec2 centre, heading, velocity;
    float error; /* mean distance from members to their slots, metres */
    bool arrived;
    bool stuck; /* a terrain event left no route to the goal: the centre
                   waits (not arrived) until an event opens one */
    /* A rigid squad's motion (def.rigid): the centre's speed along its path (m/s) and its
     * turn rate (rad/s, counter-clockwise positive), and whether the shape did not fit the way
     * ahead this step (it waits). */
    float speed_now, omega;
    bool wedged;
    bool no_room; /* at its goal, some slot found no cell clear of the others that its member
                     can hold (sim/behave/squad.c, fit_slots) */
};

void th_squad_free(th_squad *q);
void th_squad_gather_free(th_world *w); /* the buffers of the gather over ranks */
void th_squads_update(th_world *w);     /* serial, after integration */
th_vec2 th_squad_steer(const th_world *w, th_agent_id id, const th_crowd_rt *c, th_vec2 p,
                       th_vec2 v);

/* Paths for anyone who walks to a point (squads, agents' own goals), with the world's
 * path-finding memory (th_nav_path_ready must have run, between steps): A* from a's cell to
 * b's and string pulling into out, at most max points, the last one b itself; 0 when there is
 * no path. Without a map: a and b. No allocation, so also inside a step (serial). */
uint32_t th_path_plan(th_world *w, th_vec2 a, th_vec2 b, th_vec2 *out, uint32_t max);
/* Whether the way from `from` through pts[0, n) meets a rectangle this step's events blocked
 * or made dearer (sim/nav: raised). */
bool th_path_meets_raised(const th_world *w, th_vec2 from, const th_vec2 *pts, uint32_t n);

#endif
