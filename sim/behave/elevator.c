/* Elevators (elevator.h, include/throng/building.h): the cars, who waits for them, who rides. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/alloc.h"
#include "sim/behave/elevator.h"
#include "sim/behave/own_goal.h"
#include "sim/dist/dist.h"
#include "sim/dist/dist_serial.h"
#include "sim/terrain/world_nav_private.h"

#define DEFAULT_RADIUS_M 1.5f
#define NO_STOP          UINT32_MAX

/* Golden angle, radians: riders stepping out one after another spread around the stop. */
#define GOLDEN_ANGLE 2.39996323f

void th_lifts_free(th_world *w) {
    if (w->lifts) th_free(w->lifts->all);
    th_free(w->lifts);
    w->lifts = NULL;
}

double th_elevator_travel_time(double metres, double speed, double acceleration) {
    if (!(metres > 0.0) || !(speed > 0.0)) return 0.0;
    if (!(acceleration > 0.0)) return metres / speed;
    /* Speeding up and slowing down take speed / acceleration each and cover speed^2 / a. */
    if (metres >= speed * speed / acceleration) return metres / speed + speed / acceleration;
    return 2.0 * sqrt(metres / acceleration);
}

static double travel(const th_world *w, const th_lift *e, uint32_t from, uint32_t to) {
    const float h0 = w->nav.level[e->stop[from].level].elevation;
    const float h1 = w->nav.level[e->stop[to].level].elevation;
    return th_elevator_travel_time(fabs((double)h1 - (double)h0), e->speed, e->acceleration);
}

/* ---- adding ------------------------------------------------------------------------------ */

static th_elevator_id fail(th_error *err, th_error_code code, const char *fmt, const char *name,
                           double a, double b) {
    th_error_set(err, code, fmt, name, a, b);
    return (th_elevator_id){0};
}

static bool in_range(float v, float lo, float hi) { return isfinite(v) && v >= lo && v <= hi; }

/* The per-id arrays once the world has an elevator, for the agents added before. */
static bool create(th_world *w) {
    struct th_lifts *l = th_calloc(1, sizeof *l);
    uint8_t *of = w->id_capacity ? th_calloc(w->id_capacity, sizeof *of) : NULL;
    uint64_t *wait = w->id_capacity ? th_calloc(w->id_capacity, sizeof *wait) : NULL;
    if (!l || (w->id_capacity && (!of || !wait))) {
        th_free(l);
        th_free(of);
        th_free(wait);
        return false;
    }
    w->lifts = l;
    w->lift_of_id = of;
    w->lift_wait = wait;
    return true;
}

th_elevator_id th_world_add_elevator(th_world *w, const th_elevator_def *def, th_error *err) {
    if (!w || !def) {
        th_error_set(err, TH_ERR_INVALID, "no world or no elevator def");
        return (th_elevator_id){0};
    }
    if (!th_between_steps(w, err) || !th_nav_need_map(w, err)) return (th_elevator_id){0};
    if (w->step > 0) {
        th_error_set(err, TH_ERR_STATE, "elevators are added before the first step");
        return (th_elevator_id){0};
    }
    const char *name = def->name ? def->name : "";
    if (!name[0] || strlen(name) > 63 || th_world_find_elevator(w, name).index1) {
        th_error_set(err, TH_ERR_INVALID,
                     "elevator name '%s' is empty, longer than 63 bytes or taken", name);
        return (th_elevator_id){0};
    }
    if (th_world_elevator_count(w) >= TH_MAX_ELEVATORS) {
        th_error_set(err, TH_ERR_LIMIT, "at most %d elevators", TH_MAX_ELEVATORS);
        return (th_elevator_id){0};
    }
    th_world_nav *n = &w->nav;
    if (def->stop_count < 2 || def->stop_count > TH_MAX_ELEVATOR_STOPS)
        return fail(err, TH_ERR_INVALID, "elevator '%s' has %g stops; expected 2 to %g", name,
                    def->stop_count, TH_MAX_ELEVATOR_STOPS);
    if (def->discharge >= def->stop_count || def->start >= def->stop_count)
        return fail(err, TH_ERR_INVALID,
                    "elevator '%s': discharge stop %g or start stop %g is not one of its stops",
                    name, def->discharge, def->start);
    uint8_t on_level[TH_MAX_LEVELS] = {0};
    for (uint32_t s = 0; s < def->stop_count; s++) {
        const th_elevator_stop *st = &def->stops[s];
        const uint32_t l = st->level.index1;
        if (l == 0 || l > n->level_count) {
            th_error_set(err, TH_ERR_INVALID, "elevator '%s' stop %u: no such level", name, s);
            return (th_elevator_id){0};
        }
        const th_level *lv = &n->level[l - 1];
        if (st->x < lv->x0 || st->x > lv->x1 || st->y < lv->y0 || st->y > lv->y1 ||
            th_navmap_is_blocked(&n->map, st->x, st->y)) {
            th_error_set(err, TH_ERR_BLOCKED,
                         "elevator '%s' stop %u: cell (%d, %d) is not an open cell of level '%s'",
                         name, s, st->x, st->y, lv->name);
            return (th_elevator_id){0};
        }
        /* A stair's seam: the flight's top row and its landing, whose edges are glued across
         * (the blocked cells beyond them are walls, refused above). */
        if (n->map.flags[(uint32_t)st->y * (uint32_t)n->map.w + (uint32_t)st->x] &
            TH_NAV_FLAG_LINK) {
            th_error_set(err, TH_ERR_BLOCKED,
                         "elevator '%s' stop %u: cell (%d, %d) of level '%s' is on a stair's "
                         "seam (a landing or a flight's top row); expected a cell off every "
                         "stair's seam",
                         name, s, st->x, st->y, lv->name);
            return (th_elevator_id){0};
        }
        if (on_level[l - 1]) {
            th_error_set(err, TH_ERR_INVALID,
                         "elevator '%s' stops %u and %u are both on level '%s'; one stop a level",
                         name, on_level[l - 1] - 1u, s, lv->name);
            return (th_elevator_id){0};
        }
        on_level[l - 1] = (uint8_t)(s + 1);
    }
    if (def->capacity < 1 || def->capacity > TH_MAX_CAR)
        return fail(err, TH_ERR_INVALID, "elevator '%s' capacity %g; expected 1 to %g riders", name,
                    def->capacity, TH_MAX_CAR);
    if (!in_range(def->speed, 0.01f, 100.0f) || !in_range(def->acceleration, 0.0f, 100.0f))
        return fail(err, TH_ERR_INVALID,
                    "elevator '%s' speed %g m/s or acceleration %g m/s^2 out of range "
                    "(0.01..100, 0..100)",
                    name, def->speed, def->acceleration);
    if (!in_range(def->door_time, 0.0f, 600.0f) || !in_range(def->dwell, 0.0f, 3600.0f))
        return fail(err, TH_ERR_INVALID,
                    "elevator '%s' door_time %g s or dwell %g s out of range (0..600, 0..3600)",
                    name, def->door_time, def->dwell);
    if (!in_range(def->patience, 0.0f, 86400.0f)) {
        th_error_set(err, TH_ERR_INVALID,
                     "elevator '%s' patience %g s out of range (0..86400; 0 = for ever)", name,
                     (double)def->patience);
        return (th_elevator_id){0};
    }
    if (!in_range(def->board_time, 0.0f, 600.0f) || !in_range(def->radius, 0.0f, 50.0f))
        return fail(err, TH_ERR_INVALID,
                    "elevator '%s' board_time %g s or radius %g m out of range (0..600, 0..50)",
                    name, def->board_time, def->radius);
    if ((unsigned)def->policy > TH_ELEVATOR_COLLECTIVE) {
        th_error_set(err, TH_ERR_INVALID,
                     "elevator '%s' policy %u: expected TH_ELEVATOR_SHUTTLE or "
                     "TH_ELEVATOR_COLLECTIVE",
                     name, (unsigned)def->policy);
        return (th_elevator_id){0};
    }
    if (def->crowd_count < 1 || def->crowd_count > TH_MAX_CROWDS || !def->crowds)
        return fail(err, TH_ERR_INVALID, "elevator '%s' serves %g crowds; expected 1 to %g", name,
                    def->crowds ? def->crowd_count : 0, TH_MAX_CROWDS);
    for (uint32_t i = 0; i < def->crowd_count; i++) {
        const uint32_t c = def->crowds[i].index1;
        if (c == 0 || c > w->crowd_count) {
            th_error_set(err, TH_ERR_INVALID, "elevator '%s' crowd %u: no such crowd", name, i);
            return (th_elevator_id){0};
        }
        if (!w->crowd_rt[c - 1].ped || w->crowd_rt[c - 1].lift) {
            th_error_set(err, TH_ERR_INVALID,
                         "elevator '%s': crowd '%s' is %s; an elevator serves pedestrian crowds, "
                         "each crowd at most one elevator",
                         name, w->crowd_name[c - 1],
                         w->crowd_rt[c - 1].ped ? "served by another elevator"
                                                : "not a pedestrian crowd");
            return (th_elevator_id){0};
        }
    }
    if (n->dest_count + def->stop_count - 1 > TH_MAX_DESTINATION_FIELDS)
        return fail(err, TH_ERR_LIMIT,
                    "elevator '%s' needs %g destination fields, one a stop but its discharge "
                    "stop; %g are left",
                    name, def->stop_count - 1, TH_MAX_DESTINATION_FIELDS - n->dest_count);
    if (!w->lifts && !create(w)) {
        th_error_set(err, TH_ERR_NOMEM, "out of memory for elevators");
        return (th_elevator_id){0};
    }
    th_lift e = {0};
    snprintf(e.name, sizeof e.name, "%s", name);
    e.stops = def->stop_count;
    e.discharge = def->discharge;
    e.capacity = def->capacity;
    e.speed = def->speed;
    e.acceleration = def->acceleration;
    e.door_time = def->door_time;
    e.dwell = def->dwell;
    e.board_time = def->board_time;
    e.radius = def->radius > 0.0f ? def->radius : DEFAULT_RADIUS_M;
    e.policy = def->policy;
    e.patience = def->patience;
    e.state = TH_ELEVATOR_IDLE;
    e.at = e.to = def->start;
    e.last_out = -1.0;
    memcpy(e.stop_on_level, on_level, sizeof on_level);
    const float cs = n->map.cell_size;
    for (uint32_t s = 0; s < e.stops; s++) {
        const th_elevator_stop *st = &def->stops[s];
        th_lift_stop *ls = &e.stop[s];
        ls->level = st->level.index1 - 1;
        ls->x = st->x;
        ls->y = st->y;
        ls->at = th_v2(((float)st->x + 0.5f) * cs, ((float)st->y + 0.5f) * cs);
        if (s == e.discharge) continue;
        const th_destination d = {st->x, st->y, 0.0f};
        const int f = th_nav_add_destinations(w, &d, 1, err);
        if (f < 0) return (th_elevator_id){0};
        ls->field = (uint32_t)f;
    }
    for (uint32_t i = 0; i < def->crowd_count; i++)
        w->crowd_rt[def->crowds[i].index1 - 1].lift = (uint8_t)(w->lifts->count + 1);
    w->lifts->lift[w->lifts->count] = e;
    return (th_elevator_id){++w->lifts->count};
}

/* ---- reading ----------------------------------------------------------------------------- */

uint32_t th_world_elevator_count(const th_world *w) { return w && w->lifts ? w->lifts->count : 0; }

th_elevator_id th_world_find_elevator(const th_world *w, const char *name) {
    if (!name) return (th_elevator_id){0};
    for (uint32_t e = 0; e < th_world_elevator_count(w); e++) {
        if (strcmp(w->lifts->lift[e].name, name) == 0) return (th_elevator_id){e + 1};
    }
    return (th_elevator_id){0};
}

th_elevator_id th_world_agent_elevator(const th_world *w, th_agent_id id) {
    if (!w || !w->lifts || th_agent_index(w, id) == UINT32_MAX) return (th_elevator_id){0};
    return (th_elevator_id){w->lift_of_id[th_id_slot(id)]};
}

bool th_world_get_elevator(const th_world *w, th_elevator_id elevator, th_elevator_info *out) {
    if (!out || elevator.index1 == 0 || elevator.index1 > th_world_elevator_count(w)) return false;
    const th_lift *e = &w->lifts->lift[elevator.index1 - 1];
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", e->name);
    out->stop_count = e->stops;
    for (uint32_t s = 0; s < e->stops; s++) {
        out->stops[s] = (th_elevator_stop){{e->stop[s].level + 1}, e->stop[s].x, e->stop[s].y};
        out->stop_waiting[s] = e->stop[s].waiting;
        out->waiting += e->stop[s].waiting;
    }
    out->discharge = e->discharge;
    out->capacity = e->capacity;
    out->speed = e->speed;
    out->acceleration = e->acceleration;
    out->door_time = e->door_time;
    out->dwell = e->dwell;
    out->board_time = e->board_time;
    out->radius = e->radius;
    out->policy = e->policy;
    out->patience = e->patience;
    out->gave_up = e->gave_up;
    out->state = e->state;
    out->at = e->at;
    out->to = e->state == TH_ELEVATOR_MOVING ? e->to : e->at;
    out->riders = e->alighting ? e->alighting : e->riders; /* stepping out: those still in */
    out->trips = e->trips;
    out->carried = e->carried;
    out->last_out = e->last_out;
    out->walking = e->walking;
    return true;
}

uint32_t th_lifts_stop_at(const th_world *w, int32_t x, int32_t y) {
    for (uint32_t e = 0; e < th_world_elevator_count(w); e++) {
        const th_lift *l = &w->lifts->lift[e];
        for (uint32_t s = 0; s < l->stops; s++)
            if (l->stop[s].x == x && l->stop[s].y == y) return e + 1u;
    }
    return 0;
}

/* ---- the step ---------------------------------------------------------------------------- */

/* Insert candidate `id` at squared distance d2 into car e's list, nearest first, behind those
 * at the same distance already in it. */
static void add_candidate(th_lift *e, th_agent_id id, float d2) {
    uint32_t i = e->cand_count < TH_MAX_CAR ? e->cand_count++ : TH_MAX_CAR;
    if (i == TH_MAX_CAR) {
        if (!(d2 < e->cand_d2[TH_MAX_CAR - 1])) return;
        i = TH_MAX_CAR - 1;
    }
    for (; i > 0 && d2 < e->cand_d2[i - 1]; i--) {
        e->cand[i] = e->cand[i - 1];
        e->cand_d2[i] = e->cand_d2[i - 1];
    }
    e->cand[i] = id;
    e->cand_d2[i] = d2;
}

/* A candidate as the ranks send it. */
typedef struct lift_cand {
    th_agent_id id;
    float d2;
    uint32_t lift;
} lift_cand;

/* Several ranks: the waiting counts and those who gave up this step summed, and each car's
 * candidates those nearest of every rank's, merged in rank order, which is global storage
 * order: the same list as one process. */
static void share_waiting(th_world *w) {
    struct th_lifts *ls = w->lifts;
    uint32_t waiting[TH_MAX_ELEVATORS * (TH_MAX_ELEVATOR_STOPS + 2)];
    lift_cand mine[TH_MAX_ELEVATORS * TH_MAX_CAR];
    uint32_t n = 0, m = 0;
    for (uint32_t e = 0; e < ls->count; e++) {
        th_lift *l = &ls->lift[e];
        for (uint32_t s = 0; s < l->stops; s++) waiting[n++] = l->stop[s].waiting;
        waiting[n++] = l->quit;
        waiting[n++] = l->walking;
        for (uint32_t i = 0; i < l->cand_count; i++)
            mine[m++] = (lift_cand){l->cand[i], l->cand_d2[i], e};
        l->cand_count = 0;
    }
    th_dist_sum_u32(w, waiting, n);
    uint32_t total = 0;
    const lift_cand *all =
        th_dist_gather_all(w, mine, m, sizeof *mine, (void **)&ls->all, &ls->all_cap, 0, &total);
    n = 0;
    for (uint32_t e = 0; e < ls->count; e++) {
        for (uint32_t s = 0; s < ls->lift[e].stops; s++) ls->lift[e].stop[s].waiting = waiting[n++];
        ls->lift[e].quit = waiting[n++];
        ls->lift[e].walking = waiting[n++];
    }
    for (uint32_t i = 0; i < total; i++)
        add_candidate(&ls->lift[all[i].lift], all[i].id, all[i].d2);
}

/* Who waits at which stop, and, at the stop each car stands at or goes to, the nearest waiting
 * agents (a storage-order pass: ties keep storage order). */
static void count_waiting(th_world *w) {
    struct th_lifts *ls = w->lifts;
    const th_agents *a = &w->buf[w->cur];
    const th_navmap *m = &w->nav.map;
    const double dt = w->def.timestep;
    for (uint32_t e = 0; e < ls->count; e++) {
        for (uint32_t s = 0; s < ls->lift[e].stops; s++) ls->lift[e].stop[s].waiting = 0;
        ls->lift[e].cand_count = 0;
        ls->lift[e].quit = 0;
        ls->lift[e].walking = 0;
    }
    for (uint32_t k = 0; k < w->count; k++) {
        const th_crowd_rt *c = &w->crowd_rt[a->crowd[k]];
        if (!c->lift) continue;
        const uint32_t slot = th_id_slot(a->id[k]);
        if (w->lift_of_id[slot] || w->lift_wait[slot] == TH_LIFT_GAVE_UP) continue;
        /* Not walking yet (its pre-movement time), incapacitated, walking to a goal of its own,
         * or just arrived in a bunker or at an exit: not waiting either. */
        if ((c->premove && w->step <= w->start_step[slot]) ||
            (w->hazard && w->hazard_state[slot].down_step) || th_own_active(w, slot) ||
            w->shelter[k])
            continue;
        const th_vec2 p = th_v2(a->px[k], a->py[k]);
        const uint32_t l = w->nav.level_of[th_navmap_cell_of(m, p, NULL, NULL)];
        if (!l) continue;
        th_lift *e = &ls->lift[c->lift - 1u];
        const uint32_t s1 = e->stop_on_level[l - 1u];
        if (!s1 || s1 - 1u == e->discharge) continue;
        th_lift_stop *st = &e->stop[s1 - 1u];
        if (!th_lift_in_reach(w, e, st, p, w->crowd_radius[a->crowd[k]])) {
            e->walking++;
            continue;
        }
        const float d2 = th_v2_len2(th_v2_sub(p, st->at));
        /* Its wait counts from the step it first stood within reach of the stop; once it has
         * waited `patience`, it gives up and follows its crowd's goal for good. */
        uint64_t *since = &w->lift_wait[slot];
        if (!*since) *since = w->step + 1u;
        if (e->patience > 0.0f && (double)(w->step + 1u - *since) * dt >= (double)e->patience) {
            *since = TH_LIFT_GAVE_UP;
            e->quit++;
            continue;
        }
        st->waiting++;
        const uint32_t here = e->state == TH_ELEVATOR_MOVING ? e->to : e->at;
        if (s1 - 1u == here) add_candidate(e, a->id[k], d2);
    }
    if (th_dist_serial_active(w)) share_waiting(w);
    for (uint32_t e = 0; e < ls->count; e++) ls->lift[e].gave_up += ls->lift[e].quit;
    for (uint32_t e = 0; e < ls->count; e++) {
        for (uint32_t s = 0; s < ls->lift[e].stops; s++) {
            th_lift_stop *st = &ls->lift[e].stop[s];
            if (!st->waiting) st->call = 0;
            else if (!st->call) st->call = w->step + 1u;
        }
    }
}

/* Where a car with riders goes next from stop `at`: the discharge stop, or under the collective
 * policy with room left the nearest stop on the way there (its level strictly between) whose
 * waiting agents called (equal heights: the first listed). */
static uint32_t onward(const th_world *w, const th_lift *e) {
    if (e->policy != TH_ELEVATOR_COLLECTIVE || e->riders >= e->capacity) return e->discharge;
    const float h0 = w->nav.level[e->stop[e->at].level].elevation;
    const float h1 = w->nav.level[e->stop[e->discharge].level].elevation;
    uint32_t best = e->discharge;
    float best_d = INFINITY;
    for (uint32_t s = 0; s < e->stops; s++) {
        const float h = w->nav.level[e->stop[s].level].elevation;
        if (!e->stop[s].call || !((h - h0) * (h - h1) < 0.0f)) continue;
        if (fabsf(h - h0) < best_d) {
            best = s;
            best_d = fabsf(h - h0);
        }
    }
    return best;
}

/* The stop an idle car goes to: onward with riders, else the stop that called first (equal:
 * the higher, then the first listed); NO_STOP without a call. */
static uint32_t pick(const th_world *w, const th_lift *e) {
    if (e->riders) return onward(w, e);
    uint32_t best = NO_STOP;
    for (uint32_t s = 0; s < e->stops; s++) {
        const th_lift_stop *st = &e->stop[s];
        if (!st->call) continue;
        if (best == NO_STOP || st->call < e->stop[best].call ||
            (st->call == e->stop[best].call &&
             w->nav.level[st->level].elevation > w->nav.level[e->stop[best].level].elevation))
            best = s;
    }
    return best;
}

/* The next rider out at the discharge stop (first in, first out), at `when` seconds: placed
 * around the stop on a sunflower spiral (Vogel 1979) whose points stand about a body's width
 * apart, as far as the walls let it; the contacts settle what overlap is left. */
static void step_out(th_world *w, th_lift *e, double when) {
    const uint32_t i = e->riders - e->alighting--;
    const th_agent_id id = e->rider[i];
    if (e->alighting == 0) e->riders = 0;
    if (!th_agent_known(w, id)) return; /* removed while it rode */
    w->lift_of_id[th_id_slot(id)] = 0;
    w->lift_wait[th_id_slot(id)] = 0;
    e->carried++;
    e->last_out = when;
    w->settle = true; /* bodies placed close: the settling rounds of agents just added */
    const uint32_t k = th_agent_index(w, id);
    if (k == UINT32_MAX) return; /* another rank's */
    th_agents *a = &w->buf[w->cur];
    const th_lift_stop *st = &e->stop[e->discharge];
    const float r = 1.1f * w->crowd_radius[a->crowd[k]] * sqrtf((float)i);
    const float ang = GOLDEN_ANGLE * (float)i;
    th_vec2 v = th_v2(0.0f, 0.0f);
    const th_vec2 p = th_nav_move(w, st->at, th_v2(r * cosf(ang), r * sinf(ang)), &v, false);
    a->px[k] = p.x;
    a->py[k] = p.y;
    a->vx[k] = a->vy[k] = 0.0f;
    w->level[k] = (uint8_t)(st->level + 1u);
}

/* The nearest waiting agent steps in (on its owner, its body stops). */
static void step_in(th_world *w, th_lift *e, uint32_t lift, uint32_t *next) {
    const th_agent_id id = e->cand[(*next)++];
    w->lift_of_id[th_id_slot(id)] = (uint8_t)(lift + 1u);
    e->rider[e->riders++] = id;
    e->stop[e->at].waiting--;
    const uint32_t k = th_agent_index(w, id);
    if (k == UINT32_MAX) return;
    th_agents *a = &w->buf[w->cur];
    a->vx[k] = a->vy[k] = 0.0f;
    w->level[k] = (uint8_t)TH_LEVEL_RIDING;
}

/* One step of car `lift`: its states in turn, each taking its time out of the step's; what is
 * left of a step carries into the next state, so a trip takes its time to within rounding. */
static void run_car(th_world *w, th_lift *e, uint32_t lift) {
    const double dt = w->def.timestep;
    const double end = (double)w->step * dt; /* world time at the end of this step */
    double t = dt;                           /* of this step, still to spend */
    uint32_t next = 0;                       /* candidates taken */
    for (uint32_t guard = 0; guard < 4u * TH_MAX_CAR + 16u; guard++) {
        switch (e->state) {
        case TH_ELEVATOR_IDLE: {
            const uint32_t to = pick(w, e);
            if (to == NO_STOP) return;
            if (to == e->at) {
                e->state = TH_ELEVATOR_OPENING;
                e->left = e->door_time;
            } else {
                e->state = TH_ELEVATOR_MOVING;
                e->to = to;
                e->left = travel(w, e, e->at, to);
            }
            break;
        }
        case TH_ELEVATOR_MOVING:
        case TH_ELEVATOR_OPENING:
        case TH_ELEVATOR_CLOSING:
            if (e->left > t) {
                e->left -= t;
                return;
            }
            t -= e->left;
            e->left = 0.0;
            if (e->state == TH_ELEVATOR_MOVING) {
                e->at = e->to;
                e->state = TH_ELEVATOR_OPENING;
                e->left = e->door_time;
            } else if (e->state == TH_ELEVATOR_OPENING) {
                e->state = TH_ELEVATOR_OPEN;
                e->left = e->dwell;
                e->transfer_left = e->board_time;
                if (e->at == e->discharge && e->riders) {
                    e->alighting = e->riders;
                    e->trips++;
                }
            } else if (e->riders) {
                e->state = TH_ELEVATOR_MOVING;
                e->to = onward(w, e);
                e->left = travel(w, e, e->at, e->to);
            } else {
                /* Closed empty: this stop's call was answered (anyone still there calls again
                 * in the next step), so a car with no time to spend cannot go round for ever. */
                e->stop[e->at].call = 0;
                e->state = TH_ELEVATOR_IDLE;
            }
            break;
        case TH_ELEVATOR_OPEN: {
            const bool boarding =
                e->at != e->discharge && e->riders < e->capacity && next < e->cand_count;
            /* A blocked stop (a block event on it): no one steps out until it opens. */
            const th_lift_stop *here = &e->stop[e->at];
            if (e->alighting && th_navmap_is_blocked(&w->nav.map, here->x, here->y)) return;
            if (e->alighting || boarding) {
                if (e->transfer_left > t) {
                    e->transfer_left -= t;
                    return;
                }
                t -= e->transfer_left;
                if (e->alighting) step_out(w, e, end - t);
                else step_in(w, e, lift, &next);
                e->transfer_left = e->board_time;
                e->left = e->dwell;
                break;
            }
            /* No one to move: the time per rider starts again with the next one. */
            e->transfer_left = e->board_time;
            if (e->left > t) {
                e->left -= t;
                return;
            }
            t -= e->left;
            e->state = TH_ELEVATOR_CLOSING;
            e->left = e->door_time;
            break;
        }
        }
    }
}

void th_lifts_hash(const th_world *w, th_hasher *h) {
    for (uint32_t i = 0; i < w->lifts->count; i++) {
        const th_lift *e = &w->lifts->lift[i];
        th_hash_u32(h, (uint32_t)e->state << 16 | e->at << 8 | e->to);
        th_hash_u64(h, (uint64_t)llrint(e->left * 1e6));
        th_hash_u64(h, (uint64_t)llrint(e->transfer_left * 1e6));
        th_hash_u64(h, e->carried);
        th_hash_u64(h, e->trips);
        th_hash_u32(h, e->riders);
        th_hash_u32(h, e->alighting);
        for (uint32_t s = 0; s < e->stops; s++) th_hash_u64(h, e->stop[s].call);
        if (e->patience > 0.0f) th_hash_u64(h, e->gave_up);
        for (uint32_t r = 0; r < e->riders; r++) th_hash_u64(h, th_agent_key(e->rider[r]));
    }
}

void th_lifts_update(th_world *w) {
    if (!w->lifts) return;
    count_waiting(w);
    for (uint32_t e = 0; e < w->lifts->count; e++) run_car(w, &w->lifts->lift[e], e);
}
