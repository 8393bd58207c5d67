/* Adding a crowd: its def checked and turned into the runtime values the step reads
 * (th_crowd_rt), with what its goal, its exit choice, its colony and its movers need, and the
 * grids and the leavers' marks set up again for its reach. It sets up every model's part of a
 * crowd, so it sits with the step; the crowds' readers are the world's data
 * (sim/core/world_read.c). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/alloc.h"
#include "sim/behave/choice.h"
#include "sim/behave/forage.h"
#include "sim/behave/goal.h"
#include "sim/behave/leavers.h"
#include "sim/behave/movers.h"
#include "sim/core/crowd_params.h"
#include "sim/core/distrib.h"
#include "sim/core/storage.h"
#include "sim/core/world.h"

/* A crowd def checked before anything is taken for it: every key against its range and the
 * rules between keys, the handles it names, and what the world must have for it. `d` comes out
 * normalised: fleeing is the shelter goal, whichever of the two fields says so. */
static bool check_crowd(const th_world *w, th_crowd_def *d, th_error *err) {
    if (!th_between_steps(w, err)) return false;
    if (w->crowd_count >= TH_MAX_CROWDS) {
        th_error_set(err, TH_ERR_LIMIT, "at most %d crowds", TH_MAX_CROWDS);
        return false;
    }
    if (d->behavior != TH_BEHAVIOR_FLOCK && d->behavior != TH_BEHAVIOR_FLEE) {
        th_error_set(err, TH_ERR_INVALID, "unknown behavior %d", (int)d->behavior);
        return false;
    }
    if (d->behavior == TH_BEHAVIOR_FLEE && !w->nav.present) {
        th_error_set(err, TH_ERR_STATE,
                     "a fleeing crowd needs a terrain map with bunkers (set cell_size)");
        return false;
    }
    /* Fleeing is the shelter goal; the behavior field says so for older code. */
    if (d->behavior == TH_BEHAVIOR_FLEE) {
        if (d->goal.kind != TH_GOAL_NONE && d->goal.kind != TH_GOAL_SHELTER) {
            th_error_set(err, TH_ERR_INVALID,
                         "behavior FLEE is the shelter goal; goal kind %d contradicts it",
                         (int)d->goal.kind);
            return false;
        }
        d->goal.kind = TH_GOAL_SHELTER;
    } else if (d->goal.kind == TH_GOAL_SHELTER) {
        d->behavior = TH_BEHAVIOR_FLEE;
    }
    if (d->model != TH_MODEL_BOIDS && d->model != TH_MODEL_PEDESTRIAN) {
        th_error_set(err, TH_ERR_INVALID, "unknown model %d", (int)d->model);
        return false;
    }
    /* Every numeric parameter against its row of the one table (crowd_params.h). */
    if (!th_crowd_params_check(d, err)) return false;
    if (!th_distrib_check(&d->pre_movement, "pre_movement", err)) return false;
    if (d->pre_movement.kind == TH_DISTRIB_AGE) {
        th_error_set(err, TH_ERR_INVALID,
                     "pre_movement: the age table gives walking speeds (free_speed), not times");
        return false;
    }
    if (d->model == TH_MODEL_PEDESTRIAN && d->free_speed.kind != TH_DISTRIB_NONE) {
        const th_distribution f = th_crowd_free_speed(d);
        if (!th_distrib_check(&d->free_speed, "free_speed", err) ||
            !th_distrib_check(&f, "free_speed (at most max_speed)", err))
            return false;
    }
    if (d->type != TH_TYPE_OWN && d->type >= TH_MAX_TYPES) {
        th_error_set(err, TH_ERR_INVALID, "type must be below %d (or TH_TYPE_OWN), got %u",
                     TH_MAX_TYPES, d->type);
        return false;
    }
    /* A null target is none (no leaders). */
    if (d->target.index1 > w->target_count) {
        th_error_set(err, TH_ERR_HANDLE, "no target %u (the world has %u)", TH_INDEX(d->target),
                     w->target_count);
        return false;
    }
    if (d->pursuit != TH_PURSUIT_CHASE && d->pursuit != TH_PURSUIT_INTERCEPT) {
        th_error_set(err, TH_ERR_INVALID, "unknown pursuit %d", (int)d->pursuit);
        return false;
    }
    /* The rules between keys; each key's own range was checked above. */
    const char *broken;
    if (!th_crowd_params_rules(d, &broken, err)) return false;
    if (d->model == TH_MODEL_PEDESTRIAN && w->def.timestep > TH_PED_MAX_TIMESTEP) {
        th_error_set(err, TH_ERR_INVALID,
                     "a pedestrian crowd needs a timestep of at most %g s, the world's is %g s: "
                     "over longer steps bodies overlap in dense crowds (docs/pedestrians.md)",
                     (double)TH_PED_MAX_TIMESTEP, (double)w->def.timestep);
        return false;
    }
    if (d->model == TH_MODEL_PEDESTRIAN) {
        if (!(isfinite(d->heading.x) && isfinite(d->heading.y) && fabsf(d->heading.x) <= 1e6f &&
              fabsf(d->heading.y) <= 1e6f)) {
            th_error_set(err, TH_ERR_INVALID, "heading must be a finite direction");
            return false;
        }
    }
    if (d->target.index1 && w->target_def[TH_INDEX(d->target)].kind == TH_TARGET_SHELTER &&
        !w->nav.present) {
        th_error_set(err, TH_ERR_STATE, "a shelter target needs a terrain map with bunkers");
        return false;
    }
    return true;
}

/* What the step reads of crowd c (index c among the crowds), from its checked def, its goal's
 * set-up, its colony (foraging; else NULL) and its reach. */
static th_crowd_rt crowd_runtime(const th_world *w, uint32_t c, const th_crowd_def *d,
                                 const th_crowd_rt *goal_rt, struct th_colony *colony,
                                 const th_crowd_reach *reach) {
    const int32_t target = (int32_t)TH_INDEX(d->target);
    const float lead_r = d->lead_radius > 0.0f ? d->lead_radius : d->neighbor_radius;
    const float block_reach = reach->block, ped_reach = reach->ped;
    float half = d->fov_deg * 0.5f * (float)(TH_PI / 180.0);
    return (th_crowd_rt){
        .neighbor_r2 = d->neighbor_radius * d->neighbor_radius,
        .separation_r2 = d->separation_radius * d->separation_radius,
        .sense_r2 = block_reach * block_reach,
        .block_reach = d->model == TH_MODEL_PEDESTRIAN ? ped_reach : block_reach,
        .block = 1,
        .cos_half_fov = cosf(half),
        .omni = d->fov_deg >= 360.0f,
        .w_sep = d->separation_weight,
        .w_ali = d->alignment_weight,
        .w_coh = d->cohesion_weight,
        .max_speed = d->max_speed,
        .max_force = d->max_force,
        .flee = d->behavior == TH_BEHAVIOR_FLEE,
        .w_flow = d->flow_weight,
        .wall_radius = d->wall_radius,
        .w_wall = w->nav.present && d->wall_radius > 0.0f ? d->wall_weight : 0.0f,
        .type = (uint16_t)(d->type == TH_TYPE_OWN ? TH_MAX_TYPES + c : d->type),
        .lead = target >= 0,
        .target = target,
        .pursuit = d->pursuit,
        .w_pursuit = d->pursuit_weight,
        .lead_r2 = lead_r * lead_r,
        .lead_cos2 = cosf(d->lead_fov_deg * 0.5f * (float)(TH_PI / 180.0)) *
                     cosf(d->lead_fov_deg * 0.5f * (float)(TH_PI / 180.0)),
        .flee_mask = d->flee_types,
        .flee_r2 = d->flee_radius * d->flee_radius,
        .w_flee = d->flee_weight,
        .evade = d->evade_horizon,
        .premove = d->pre_movement.kind != TH_DISTRIB_NONE,
        .radius = d->body_radius,
        .ped = d->model == TH_MODEL_PEDESTRIAN,
        .inv_time_gap = 1.0f / d->time_gap,
        .relax = d->relaxation > w->def.timestep ? w->def.timestep / d->relaxation : 1.0f,
        .rep = d->repulsion,
        .inv_rep_range = 1.0f / d->repulsion_range,
        .wall_rep = d->wall_repulsion,
        .inv_wall_rep_range = 1.0f / d->wall_repulsion_range,
        .ped_reach = ped_reach,
        /* Movers and ants follow rules of their own, which lanes would break. */
        .anticipation =
            (goal_rt->goal >= TH_GOAL_CRASH_AND_TURN && goal_rt->goal <= TH_GOAL_WAYPOINTS) ||
                    goal_rt->goal == TH_GOAL_FORAGE
                ? 0.0f
                : d->anticipation,
        .keep_right = d->keep_right,
        .aware_decay =
            w->def.timestep < TH_PED_MEMORY ? 1.0f - w->def.timestep / TH_PED_MEMORY : 0.0f,
        .heading = th_v2_norm(d->heading),
        .goal = goal_rt->goal,
        .goal_field = goal_rt->goal_field,
        .route = goal_rt->route,
        .route_count = goal_rt->route_count,
        .route_mode = goal_rt->route_mode,
        .route_r2 = goal_rt->route_r2,
        .wander_sigma = goal_rt->wander_sigma,
        .colony = colony,
        .congestion = goal_rt->congestion,
        .mover = goal_rt->mover,
    };
}

static int add_crowd(th_world *w, const th_crowd_def *def, th_error *err) {
    th_crowd_def d = def ? *def : th_default_crowd_def();
    if (!check_crowd(w, &d, err)) return -1;
    const bool leads = d.target.index1 != 0;
    /* How far a crowd looks (crowd_params.c), and what a wrap-around world must hold. */
    const th_crowd_reach reach = th_crowd_params_reach(&d, leads, w->def.timestep);
    const float near = reach.near;
    if (w->wrap && !th_crowd_params_wrap_ok(reach.largest, w->def.width, w->def.height, err))
        return -1;
    /* What the crowd takes from here on, all undone at `fail` (the one way out after this). */
    th_crowd_rt goal_rt = {0};
    th_vec2 *route = NULL;
    struct th_colony *colony = NULL;
    const uint32_t c = w->crowd_count;
    const float old_near = w->interaction_radius, old_pred_radius = w->pred_radius;
    const float old_max_radius = w->max_radius;
    const uint32_t old_pred_mask = w->pred_mask;
    const bool old_pedestrians = w->pedestrians;
    if (!th_goal_setup(w, &d.goal, &goal_rt, &route, err)) goto fail;
    /* A foraging crowd's colony: its pheromone grid, food, and the nest's destination field. */
    if (d.goal.kind == TH_GOAL_FORAGE && !(colony = th_forage_create(w, &d.goal, err))) goto fail;
    /* Goal state per id, kept from the first crowd that needs it on (agents of other crowds
     * added before hold zeros they never read). */
    if (th_goal_stateful(d.goal.kind) && !w->goal_state_wanted) {
        if (w->id_capacity > 0 &&
            !th_grow_array((void **)&w->goal_state, sizeof *w->goal_state, 0, w->id_capacity)) {
            goto nomem;
        }
        w->goal_state_wanted = true;
    }
    if (!th_goal_congestion_add(w, &d.goal, &goal_rt, err)) goto fail;
    if (!th_choice_setup(w, c, &d, err)) goto fail;
    snprintf(w->crowd_name[c], sizeof w->crowd_name[c], "%s", d.name ? d.name : "crowd");
    d.name = w->crowd_name[c];
    w->crowd_def[c] = d;
    w->crowd_rt[c] = crowd_runtime(w, c, &d, &goal_rt, colony, &reach);
    w->crowd_route[c] = route;
    if (route) { w->crowd_def[c].goal.points = route; }
    if (colony) w->crowd_def[c].goal.forage = th_forage_def_of(colony);
    if (th_mover_kind(goal_rt.goal)) th_mover_def_stored(&w->crowd_def[c].goal, &w->crowd_rt[c]);
    if (d.body_radius > 0.0f && !th_world_reserve_contacts(w, d.body_radius)) goto nomem;
    w->crowd_radius[c] = d.body_radius;
    if (d.body_radius > w->max_radius) w->max_radius = d.body_radius;
    if (d.model == TH_MODEL_PEDESTRIAN && !w->pedestrians) {
        /* The pedestrians' arrays were not gathered so far: zero them for the agents there. */
#define ZERO_PED(name, T, kind)                                                       \
    TH_AGENT_KIND(PED, kind, memset(w->buf[0].name, 0, (size_t)w->count * sizeof(T)); \
                  memset(w->buf[1].name, 0, (size_t)w->count * sizeof(T));)
        if (w->count) { TH_AGENT_ARRAYS(ZERO_PED) }
#undef ZERO_PED
        w->pedestrians = true;
    }
    /* Every crowd can change the cell size (a smaller or larger boids reach, a longer body
     * reach) and so every crowd's block: set both up again. */
    if (near > w->interaction_radius) w->interaction_radius = near;
    if (d.model == TH_MODEL_BOIDS && d.flee_types) {
        w->pred_mask |= d.flee_types;
        if (d.flee_radius > w->pred_radius) w->pred_radius = d.flee_radius;
    }
    w->crowd_count++;
    if (!th_world_setup_grid(w) || !th_leavers_setup(w)) {
        w->crowd_count--;
        goto nomem;
    }
    if (colony) w->colonies++;
    return (int)c;

nomem:
    th_error_set(err, TH_ERR_NOMEM, "out of memory");
fail:
    /* The world as it was: what was taken above is given back and the values changed restored;
     * slot c is unused again (crowd_count was not raised, or was lowered). */
    th_free(route);
    th_forage_free(colony);
    th_goal_congestion_undo(w, &goal_rt);
    w->crowd_route[c] = NULL;
    w->crowd_rt[c] = (th_crowd_rt){0};
    memset(&w->exit_store[c], 0, sizeof w->exit_store[c]);
    w->interaction_radius = old_near;
    w->pred_radius = old_pred_radius;
    w->pred_mask = old_pred_mask;
    w->max_radius = old_max_radius;
    w->pedestrians = old_pedestrians;
    return -1;
}

th_crowd_id th_world_add_crowd(th_world *w, const th_crowd_def *def, th_error *err) {
    return th_crowd_handle(add_crowd(w, def, err));
}
