/* Reading a world between steps: counts, stats, one agent, the agent arrays, the crowds, the
 * phase times. The state hash, which reads every layer's state, is the step's
 * (sim/step/hash.c). */
#include "engine/hash.h"
#include "sim/core/world.h"

uint32_t th_world_agent_count(const th_world *w) {
    if (!w) return 0;
    return w->dist ? w->total : w->count;
}
uint32_t th_world_id_slots(const th_world *w) {
    if (!w) return 0;
    return w->id_top;
}
uint64_t th_world_step_count(const th_world *w) {
    if (!w) return 0;
    return w->step;
}
th_world_stats th_world_get_stats(const th_world *w) {
    if (!w) return (th_world_stats){0};
    th_world_stats s = w->stats;
    s.agents = w->dist ? w->total : w->count;
    s.spawned = w->spawned;
    return s;
}
th_world_def th_world_get_def(const th_world *w) {
    if (!w) return (th_world_def){0};
    return w->def;
}

void th_world_grid_size(const th_world *w, int32_t *cols, int32_t *rows, float *cell_w,
                        float *cell_h) {
    if (!w) return;
    if (cols) *cols = w->grid.nx;
    if (rows) *rows = w->grid.ny;
    if (cell_w) *cell_w = w->grid.cell_w;
    if (cell_h) *cell_h = w->grid.cell_h;
}

bool th_world_get_agent(const th_world *w, th_agent_id id, th_agent_state *out) {
    if (!w || !out) return false;
    uint32_t k = th_agent_index(w, id);
    if (k == UINT32_MAX) return false;
    const th_agents *a = &w->buf[w->cur];
    *out = (th_agent_state){
        .id = id,
        .crowd = th_crowd_handle(a->crowd[k]),
        .position = th_v2(a->px[k], a->py[k]),
        .velocity = th_v2(a->vx[k], a->vy[k]),
        .acceleration = th_v2(w->ax[k], w->ay[k]),
        .neighbors = w->neighbors[k],
        .stranded = (w->flags[k] & TH_AGENT_STRANDED) != 0,
        .leader = (w->flags[k] & TH_AGENT_LEADER) != 0,
        .waypoint = w->goal_state && (w->crowd_rt[a->crowd[k]].goal == TH_GOAL_ROUTE ||
                                      w->crowd_rt[a->crowd[k]].goal == TH_GOAL_WAYPOINTS)
                        ? w->goal_state[th_id_slot(id)].index
                        : 0,
        .carrying = w->goal_state && w->crowd_rt[a->crowd[k]].goal == TH_GOAL_FORAGE &&
                    w->goal_state[th_id_slot(id)].carrying,
        .start_time = (float)((double)w->start_step[th_id_slot(id)] * w->def.timestep),
        .fed = w->hazard ? (float)w->hazard_state[th_id_slot(id)].fed : 0.0f,
        .incapacitated = w->hazard && w->hazard_state[th_id_slot(id)].down_step != 0,
        .exit = {w->exit_of_id && w->exit_of_id[th_id_slot(id)] <= TH_MAX_BUNKERS
                     ? w->exit_of_id[th_id_slot(id)]
                     : 0u},
    };
    return true;
}

th_agent_view th_world_agents(const th_world *w) {
    if (!w) return (th_agent_view){0};
    const th_agents *a = &w->buf[w->cur];
    return (th_agent_view){w->count, a->px,    a->py,
                           a->vx,    a->vy,    a->crowd,
                           a->id,    w->flags, w->radius_wanted ? w->radius_of_id : NULL};
}

double th_world_phase_ms(const th_world *w, th_phase phase) {
    if (!w) return 0.0;
    return th_prof_mean_ms(&w->prof, (uint32_t)phase);
}

double th_world_phase_last_ms(const th_world *w, th_phase phase) {
    if (!w) return 0.0;
    return (unsigned)phase < TH_PHASE_COUNT ? (double)w->prof.last_ns[phase] * 1e-6 : 0.0;
}

void th_world_reset_profile(th_world *w) {
    if (!w) return;
    th_prof_reset(&w->prof);
}

/* ---- phase names ------------------------------------------------------------------------- */

const char *const th_phase_names[TH_PHASE_COUNT] = {
    "events",   "nav",         "grid",  "steer",  "integrate",
    "contacts", "bookkeeping", "admit", "squads", "history",
};
/* The profiler would silently stop timing the phases past its capacity. */
_Static_assert(TH_PHASE_COUNT <= TH_PROF_MAX_PHASES,
               "raise TH_PROF_MAX_PHASES in engine/profile.h");

const char *th_phase_name(th_phase phase) {
    return (unsigned)phase < TH_PHASE_COUNT ? th_phase_names[phase] : "?";
}

/* ---- errors met inside a step ------------------------------------------------------------ */

/* The step cannot return them: the first is kept for th_world_step_error. */
void th_step_fail(th_world *w, th_error_code code, const char *msg) {
    if (w->step_failed) return;
    w->step_failed = true;
    th_error_set(&w->step_error, code, "step %llu: %s", (unsigned long long)w->step, msg);
}

bool th_world_step_error(const th_world *w, th_error *err) {
    if (!w || !w->step_failed) return false;
    if (err) *err = w->step_error;
    return true;
}

uint32_t th_world_crowd_count(const th_world *w) {
    if (!w) return 0;
    return w->crowd_count;
}

const th_crowd_def *th_world_get_crowd(const th_world *w, th_crowd_id crowd) {
    if (!w) return NULL;
    return TH_INDEX(crowd) < w->crowd_count ? &w->crowd_def[TH_INDEX(crowd)] : NULL;
}

bool th_world_get_pre_movement(const th_world *w, th_crowd_id crowd, th_pre_movement_info *out) {
    if (!w || !out || TH_INDEX(crowd) >= w->crowd_count) return false;
    const uint32_t ci = TH_INDEX(crowd);
    const th_crowd_rt *c = &w->crowd_rt[ci];
    if (!c->premove) return false;
    *out = (th_pre_movement_info){
        .drawn = c->pre_drawn,
        .mean_s = c->pre_drawn ? c->pre_sum / c->pre_drawn : 0.0,
        .min_s = c->pre_drawn ? c->pre_min : 0.0,
        .max_s = c->pre_drawn ? c->pre_max : 0.0,
    };
    const th_agents *a = &w->buf[w->cur];
    for (uint32_t k = 0; k < w->count; k++) {
        out->waiting += a->crowd[k] == ci && w->step < w->start_step[th_id_slot(a->id[k])];
    }
    return true;
}

bool th_stall_judged(const th_world *w) {
    if (w->squad_count) return true;
    for (uint32_t c = 0; c < w->crowd_count; c++)
        if (w->crowd_rt[c].goal != TH_GOAL_NONE) return true;
    return false;
}
