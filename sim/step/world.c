/* A world's lifetime: creation from a checked def, and destruction, which reaches every model
 * and the ranks, so it sits above them with the step (step.c), and the hooks through which the
 * world's data reaches the layers above it (th_world_hooks). The world's data has a file per
 * concept in sim/core/: defaults.c, storage.c, grid_setup.c, agents.c, calls.c, world_read.c
 * (with the phases' names and the step's errors). */
#include <math.h>
#include <string.h>

#include "engine/alloc.h"
#include "sim/behave/choice.h"
#include "sim/behave/contacts.h"
#include "sim/behave/elevator.h"
#include "sim/behave/forage.h"
#include "sim/behave/goal.h"
#include "sim/behave/group.h"
#include "sim/behave/leavers.h"
#include "sim/behave/own_goal.h"
#include "sim/behave/own_plan.h"
#include "sim/behave/squad.h"
#include "sim/core/storage.h"
#include "sim/core/world.h"
#include "sim/dist/dist.h"
#include "sim/dist/dist_serial.h"
#include "sim/observe/measure.h"
#include "sim/observe/report.h"
#include "sim/observe/stall.h"
#include "sim/observe/validate.h"
#include "sim/scenario/flow.h"
#include "sim/scenario/hazard.h"

/* ---- what the world's data calls above it ---------------------------------------------- */

static void agent_added(th_world *w, uint32_t crowd, th_agent_id id, th_vec2 velocity) {
    th_goal_agent_added(w, id, &w->crowd_rt[crowd], velocity);
    th_choice_agent_added(w, crowd, id);
}

static bool grow_agents(th_world *w, uint32_t cap) {
    return th_flow_reserve(w, cap, w->history_capacity);
}

static bool grow_ids(th_world *w, uint32_t cap) { return th_measure_reserve(w, w->id_top, cap); }

static bool grow_history(th_world *w, uint32_t cap) {
    return th_report_reserve(w, w->stats.sheltered, cap) && th_flow_reserve(w, w->capacity, cap);
}

static const char *lift_name(const th_world *w, uint32_t lift) { return w->lifts->lift[lift].name; }

static const th_world_hooks world_hooks = {
    .agent_added = agent_added,
    .agent_placed = th_measure_agent_added,
    .grow_agents = grow_agents,
    .grow_ids = grow_ids,
    .grow_history = grow_history,
    .owns = th_dist_owns,
    .lift_stop_at = th_lifts_stop_at,
    .lift_name = lift_name,
    .carried = {{th_own_wire_size, th_own_pack, th_own_unpack},
                {th_measure_wire_size, th_measure_pack, th_measure_unpack}},
};

/* ---- world ------------------------------------------------------------------------------ */

static bool valid_dim(float v) { return isfinite(v) && v > 0.0f && v <= TH_MAX_WORLD_DIM; }

th_world *th_world_create(const th_world_def *def, th_error *err) {
    return th_world_create_checking(def, false, err);
}

th_world *th_world_create_checking(const th_world_def *def, bool checking, th_error *err) {
    th_world_def d = def ? *def : th_default_world_def();
    if (!valid_dim(d.width) || !valid_dim(d.height)) {
        th_error_set(err, TH_ERR_INVALID, "world size must be in (0, %g] metres, got %g x %g",
                     (double)TH_MAX_WORLD_DIM, (double)d.width, (double)d.height);
        return NULL;
    }
    if (!(isfinite(d.timestep) && d.timestep > 0.0f && d.timestep <= 1.0f)) {
        th_error_set(err, TH_ERR_INVALID, "timestep must be in (0, 1] seconds, got %g",
                     (double)d.timestep);
        return NULL;
    }
    if (!(isfinite(d.stall_time) && d.stall_time >= 0.0f && d.stall_time <= TH_STALL_TIME_MAX)) {
        th_error_set(err, TH_ERR_INVALID, "stall_time must be in [0, %g] seconds, got %g",
                     (double)TH_STALL_TIME_MAX, (double)d.stall_time);
        return NULL;
    }
    if (d.bounds != TH_BOUNDS_WALLS && d.bounds != TH_BOUNDS_WRAP) {
        th_error_set(err, TH_ERR_INVALID, "bounds must be walls or wrap");
        return NULL;
    }
    if (d.threads > TH_MAX_THREADS) {
        th_error_set(err, TH_ERR_INVALID, "threads must be at most %d, got %u", TH_MAX_THREADS,
                     d.threads);
        return NULL;
    }
    if ((d.enqueue_task != NULL) != (d.finish_task != NULL) ||
        (d.enqueue_task && (d.threads < 1 || d.threads > TH_MAX_THREADS))) {
        th_error_set(err, TH_ERR_INVALID,
                     "a host task system needs both enqueue_task and finish_task, and "
                     "threads in [1, %d] (the worker indices it uses), got threads %u",
                     TH_MAX_THREADS, d.threads);
        return NULL;
    }
    if (d.agent_capacity > TH_MAX_AGENTS) {
        th_error_set(err, TH_ERR_INVALID, "agent_capacity must be at most %u, got %u",
                     TH_MAX_AGENTS, d.agent_capacity);
        return NULL;
    }
    if (!(isfinite(d.cell_size) && d.cell_size >= 0.0f &&
          (d.cell_size == 0.0f ||
           (d.cell_size >= TH_NAV_MIN_CELL_SIZE && d.cell_size <= TH_NAV_MAX_CELL_SIZE)))) {
        th_error_set(
            err, TH_ERR_INVALID, "cell_size must be 0 (no map) or in [%g, %g] metres, got %g",
            (double)TH_NAV_MIN_CELL_SIZE, (double)TH_NAV_MAX_CELL_SIZE, (double)d.cell_size);
        return NULL;
    }
    if (d.cell_size > 0.0f) {
        double cols = ceil((double)d.width / d.cell_size),
               rows = ceil((double)d.height / d.cell_size);
        /* On a torus the map's cells repeat across the seam: they must tile the world exactly. */
        if (d.bounds == TH_BOUNDS_WRAP &&
            (fabs(cols * d.cell_size - d.width) > 1e-4 * d.cell_size ||
             fabs(rows * d.cell_size - d.height) > 1e-4 * d.cell_size)) {
            th_error_set(err, TH_ERR_INVALID,
                         "a wrap-around world with a terrain map must be a whole number of "
                         "cells: %g x %g m is not a multiple of cell_size %g",
                         (double)d.width, (double)d.height, (double)d.cell_size);
            return NULL;
        }
        if (cols > TH_NAV_MAX_DIM || rows > TH_NAV_MAX_DIM) {
            th_error_set(err, TH_ERR_LIMIT,
                         "the terrain map would be %.0f x %.0f cells, more than %d per side", cols,
                         rows, TH_NAV_MAX_DIM);
            return NULL;
        }
    }
    th_world *w = th_calloc(1, sizeof *w);
    if (!w) {
        th_error_set(err, TH_ERR_NOMEM, "out of memory");
        return NULL;
    }
    w->hooks = world_hooks;
    w->def = d;
    w->checking = checking;
    w->stall_time = d.stall_time > 0.0f ? d.stall_time : TH_STALL_TIME_DEFAULT;
    w->wrap = d.bounds == TH_BOUNDS_WRAP;
    /* The host's callbacks have the engine's task types (same parameters), so they are passed
     * as they are. */
    w->pool = d.enqueue_task
                  ? th_pool_create_hosted(d.threads, (th_host_enqueue_fn *)d.enqueue_task,
                                          (th_host_finish_fn *)d.finish_task, d.task_user)
                  : th_pool_create(d.threads);
    if (!w->pool) {
        th_error_set(err, TH_ERR_SYSTEM, "could not start %u worker threads", d.threads);
        th_free(w);
        return NULL;
    }
    w->workers = th_pool_workers(w->pool);
    w->def.threads = w->workers;
    th_prof_init(&w->prof, th_phase_names, TH_PHASE_COUNT);
    if (d.dist && !th_dist_create(w, d.dist, err)) {
        th_world_destroy(w);
        return NULL;
    }
    /* agent_capacity counts the agents of the whole world: every rank holds their ids, and
     * stores its share of an even cut, with the room for strips to come and go that the
     * exchanges keep (sim/dist/dist_mpi.c); a rank given more grows as agents are added. */
    const uint32_t agents = d.agent_capacity ? d.agent_capacity : 1024;
    const uint32_t ranks = (uint32_t)th_dist_ranks(w);
    uint64_t share = ((uint64_t)agents + ranks - 1) / ranks;
    if (ranks > 1) share += share / 4;
    if (!th_world_reserve_agents(w, (uint32_t)share) || !th_world_reserve_ids(w, agents) ||
        (d.cell_size > 0.0f && !th_nav_world_init(w)) ||
        !th_world_reserve_history(w, w->id_capacity)) {
        th_error_set(err, TH_ERR_NOMEM, "out of memory");
        th_world_destroy(w);
        return NULL;
    }
    return w;
}

void th_world_destroy(th_world *w) {
    if (!w || !TH_ASSERT(!w->stepping)) return;
    th_world_trace_stop(w); /* before the pool: it removes the pool's tracer */
    th_pool_destroy(w->pool);
    th_dist_destroy(w);
    th_nav_world_free(w);
    th_grid_free(&w->grid);
    th_grid_free(&w->pred_grid);
    th_free(w->pred_px);
    th_free(w->pred_py);
    th_free(w->pred_ptype);
    th_free(w->pred_pid);
    th_free(w->pred_sx);
    th_free(w->pred_sy);
    th_free(w->pred_pvx);
    th_free(w->pred_pvy);
    th_free(w->pred_svx);
    th_free(w->pred_svy);
    th_free(w->pred_stype);
    th_free(w->pred_mine);
    th_free(w->pred_all);
    th_free(w->stall_all);
    th_world_free_agents(w);
    th_hazard_free(w);
    th_groups_free(w);
    th_lifts_free(w);
    th_own_plan_free(w);
    th_own_free(w);
    for (uint32_t q = 0; q < w->squad_count; q++) th_squad_free(w->squad[q]);
    th_squad_gather_free(w);
    th_free(w->removals);
    for (uint32_t t = 0; t < w->target_count; t++) th_free(w->target_points[t]);
    for (uint32_t c = 0; c < w->crowd_count; c++) th_free(w->crowd_route[c]);
    for (uint32_t c = 0; c < w->crowd_count; c++) th_forage_free(w->crowd_rt[c].colony);
    th_forage_replay_free(w);
    th_goal_free(w);
    th_free(w->contact);
    th_free(w->contact_count);
    th_free(w->chunk_stats);
    th_measure_free(w);
    th_report_free(w);
    th_flow_free(w);
    th_leavers_free(w);
    th_dist_serial_free(w);
    th_free(w->validation_bits);
    th_free(w);
}
