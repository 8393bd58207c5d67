/* World lifetime, crowds, agents and read access. The step itself lives in step.c. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/alloc.h"
#include "engine/hash.h"
#include "engine/rng.h"
#include "sim/behave/contacts.h"
#include "sim/behave/forage.h"
#include "sim/behave/goal.h"
#include "sim/behave/movers.h"
#include "sim/behave/squad.h"
#include "sim/core/crowd_params.h"
#include "sim/core/flow.h"
#include "sim/core/measure.h"
#include "sim/core/report.h"
#include "sim/core/validate.h"
#include "sim/core/stall.h"
#include "sim/core/world.h"
#include "sim/dist/dist_serial.h"
#include "sim/dist/dist.h"

static const char *const k_phase_names[TH_PHASE_COUNT] = {
    "events",   "nav",         "grid",  "steer",  "integrate",
    "contacts", "bookkeeping", "admit", "squads", "history",
};
/* The profiler would silently stop timing the phases past its capacity. */
_Static_assert(TH_PHASE_COUNT <= TH_PROF_MAX_PHASES,
               "raise TH_PROF_MAX_PHASES in engine/profile.h");

th_world_def th_default_world_def(void) {
    return (th_world_def){
        .width = 100.0f,
        .height = 100.0f,
        .bounds = TH_BOUNDS_WALLS,
        .timestep = 1.0f / 60.0f,
        .seed = 1,
        .threads = 0,
        .agent_capacity = 0,
        .cell_size = 0.0f,
    };
}

th_crowd_def th_default_crowd_def(void) {
    return (th_crowd_def){
        .name = "crowd",
        .behavior = TH_BEHAVIOR_FLOCK,
        .neighbor_radius = 4.0f,
        .separation_radius = 1.5f,
        .fov_deg = 270.0f,
        .separation_weight = 1.5f,
        .alignment_weight = 1.0f,
        .cohesion_weight = 1.0f,
        .max_speed = 4.0f,
        .max_force = 8.0f,
        .flow_weight = 2.0f,
        .wall_radius = 1.5f,
        .wall_weight = 1.0f,
        .type = TH_TYPE_OWN,
        .target = {0},
        .pursuit = TH_PURSUIT_CHASE,
        .pursuit_weight = 2.0f,
        .lead_fov_deg = 60.0f,
        .lead_radius = 0.0f,
        .flee_types = 0,
        .flee_radius = 12.0f,
        .flee_weight = 3.0f,
        .desired_speed = 1.34f,
        .desired_speed_sd = 0.26f,
        .time_gap = 0.7f,
        .relaxation = 0.5f,
        .repulsion = 5.0f,
        .repulsion_range = 0.1f,
        .wall_repulsion = 5.0f,
        .wall_repulsion_range = 0.02f,
        .anticipation = 1.0f,
        .keep_right = 2.0f,
    };
}

th_crowd_def th_default_pedestrian_def(void) {
    th_crowd_def d = th_default_crowd_def();
    d.name = "pedestrians";
    d.model = TH_MODEL_PEDESTRIAN;
    d.body_radius = 0.2f;
    d.max_speed = 2.5f;
    d.neighbor_radius = 2.0f;
    d.separation_radius = 0.5f;
    return d;
}

const char *th_phase_name(th_phase phase) {
    return (unsigned)phase < TH_PHASE_COUNT ? k_phase_names[phase] : "?";
}

/* ---- storage ---------------------------------------------------------------------------- */

/* Replace *p with a fresh array of `n` elements holding the first `keep` old ones. */
bool th_grow_array(void **p, size_t elem, size_t keep, size_t n) {
    void *q = th_calloc(n, elem);
    if (!q) return false;
    if (*p && keep) memcpy(q, *p, keep * elem);
    th_free(*p);
    *p = q;
    return true;
}

/* Grow the buffered agent arrays of `a` (each by TH_SIMD_PAD more) and, with `w` non-NULL, the
 * world's own: every array of TH_AGENT_ARRAYS of those kinds. */
static bool grow_agents(th_world *w, th_agents *a, uint32_t keep, uint32_t n) {
#define GROW_BUF(name, T, kind) \
    TH_AGENT_KIND(              \
        BUF, kind,              \
        if (!th_grow_array((void **)&a->name, sizeof(T), keep, n + TH_SIMD_PAD)) return false;)
#define GROW_ONE(name, T, kind) \
    TH_AGENT_KIND(ONE, kind,    \
                  if (w && !th_grow_array((void **)&w->name, sizeof(T), keep, n)) return false;)
    TH_AGENT_ARRAYS(GROW_BUF)
    TH_AGENT_ARRAYS(GROW_ONE)
#undef GROW_BUF
#undef GROW_ONE
    return true;
}

static void free_agents(th_world *w) {
#define FREE_BUF(name, T, kind) \
    TH_AGENT_KIND(BUF, kind, th_free(w->buf[0].name); th_free(w->buf[1].name);)
#define FREE_ONE(name, T, kind) TH_AGENT_KIND(ONE, kind, th_free(w->name);)
    TH_AGENT_ARRAYS(FREE_BUF)
    TH_AGENT_ARRAYS(FREE_ONE)
#undef FREE_BUF
#undef FREE_ONE
#define FREE_ID(name, T, wanted) th_free(w->name);
    TH_ID_TABLE(FREE_ID)
    TH_ID_ARRAYS(FREE_ID)
#undef FREE_ID
}

/* Grow the id table and the per-id arrays that exist to `cap` slots, keeping the slots used. */
static bool grow_ids(th_world *w, uint32_t cap) {
#define GROW_ID(name, T, wanted) \
    if ((wanted) && !th_grow_array((void **)&w->name, sizeof(T), w->id_top, cap)) return false;
    TH_ID_TABLE(GROW_ID)
    TH_ID_ARRAYS(GROW_ID)
#undef GROW_ID
    return true;
}

/* The report's and flow's departure times, one entry per agent that ever left (sheltered,
 * exited): the one record that grows with the agents ever added rather than those alive, four
 * bytes apiece, so that th_world_sheltered_by and th_world_exited_by can answer for any k. Sized
 * for every agent added so far, doubling, grown where agents are added (between steps, or an
 * endless spawner in the events phase). */
static bool reserve_history(th_world *w, uint32_t n) {
    if (n <= w->history_capacity) return true;
    uint32_t cap = w->history_capacity ? w->history_capacity : 1024;
    while (cap < n) cap = cap > UINT32_MAX / 2 ? UINT32_MAX : cap * 2;
    if (!th_report_reserve(w, w->stats.sheltered, cap) || !th_flow_reserve(w, w->capacity, cap))
        return false;
    w->history_capacity = cap;
    return true;
}

/* Cells of the main grid per smallest boids reach: a crowd whose block reach is r walks
 * (2k+1)^2 cells of side c around its own, k = ceil(r / c). With c = r (k = 1) that block is
 * 9 r^2 for a disc of pi r^2, 3.8x the area (3.2x the candidates measured on the flock scene,
 * whose view cone is 270 degrees); with c = r / 2 (k = 2) it is 6.25 r^2, 2.0x-2.7x, and the
 * five row spans per query cost less than the candidates they save (bench/RESULTS.md, "Large
 * radii"). Finer cells (k = 3: 5.4 r^2) gain little more for seven spans per query. */
#define TH_GRID_SPLIT 2.0f

/* Cells tile the world exactly: nx = floor(width / size) columns of width / nx metres, so each
 * cell is at least `size` wide and tall and on a torus the seam falls on a cell border. A
 * hair of margin keeps float rounding in width / nx from making a cell narrower. */
static bool init_tiling(th_world *w, th_grid *g, float size, uint32_t capacity) {
    float W = w->def.width, H = w->def.height;
    float r = size > 0.0f ? size : 1.0f;
    /* A huge sparse world would need more cells than the bound allows: coarser cells are still
     * correct (queries walk fewer of them), only slower to query. */
    float min_r = sqrtf(W * H / (float)TH_GRID_MAX_CELLS) * 1.01f;
    if (r < min_r) r = min_r;
    r *= 1.0002f;
    float fx = floorf(W / r), fy = floorf(H / r);
    int32_t nx = fx < 1.0f ? 1 : (int32_t)fx;
    int32_t ny = fy < 1.0f ? 1 : (int32_t)fy;
    th_grid_free(g);
    return th_grid_init(g, 0.0f, 0.0f, W / (float)nx, H / (float)ny, nx, ny, capacity,
                        w->workers) == 0;
}

/* Cells each side a query must walk to cover `reach` metres on grid g: k = ceil(reach / cell)
 * with a hair of margin for the rounding of positions into cells (cells carry twice that
 * margin, so a reach of exactly k cells' target size stays k). */
static int32_t block_cells(const th_grid *g, float reach) {
    double c = g->cell_w < g->cell_h ? g->cell_w : g->cell_h;
    double k = ceil((double)reach * 1.0001 / c);
    return k < 1.0 ? 1 : (int32_t)k;
}

/* The predator grid and arrays for `cap` predators; their contents are lost (th_boids_prepare
 * fills them afresh each step). */
static bool setup_predators(th_world *w, uint32_t cap) {
    w->pred_capacity = 0;
    if (!init_tiling(w, &w->pred_grid, w->pred_radius, cap)) return false;
    if (cap == 0) return true;
    if (!(th_grow_array((void **)&w->pred_px, sizeof *w->pred_px, 0, cap) &&
          th_grow_array((void **)&w->pred_py, sizeof *w->pred_py, 0, cap) &&
          th_grow_array((void **)&w->pred_ptype, sizeof *w->pred_ptype, 0, cap) &&
          th_grow_array((void **)&w->pred_pid, sizeof *w->pred_pid, 0, cap) &&
          th_grow_array((void **)&w->pred_sx, sizeof *w->pred_sx, 0, cap) &&
          th_grow_array((void **)&w->pred_sy, sizeof *w->pred_sy, 0, cap) &&
          th_grow_array((void **)&w->pred_stype, sizeof *w->pred_stype, 0, cap)))
        return false;
    w->pred_capacity = cap;
    return true;
}

/* (Re)build the grids for the current capacity and crowds.
 *
 * Main grid: the contacts phase and the validator walk 3x3 blocks, so a cell is at least
 * interaction_radius (their reach). Boids and pedestrians walk (2k+1)^2 blocks sized by each
 * crowd's own reach: cells are the smallest such reach / TH_GRID_SPLIT, but at least the
 * largest / TH_GRID_MAX_REACH so that no block exceeds TH_GRID_MAX_REACH cells each side. One
 * crowd with a long reach thus costs its own agents a wider block, not everyone a coarser grid
 * (a single grid sized by the largest radius made every agent of the hawks scene inspect 812
 * candidates for 54 neighbours seen).
 *
 * Predator grid: flee radii are long (12 m by default) but only predator types matter to
 * them, a few agents. Walking a block that wide in the main grid still inspects every prey in
 * it (503 candidates per agent on the hawks scene, against 121 this way), so predators get
 * their own grid with cells at least the largest flee radius, queried 3x3. */
static bool setup_grid(th_world *w) {
    float small = 0.0f, large = 0.0f;
    for (uint32_t c = 0; c < w->crowd_count; c++) {
        const th_crowd_rt *rt = &w->crowd_rt[c];
        if (!(rt->block_reach > 0.0f)) continue;
        if (small == 0.0f || rt->block_reach < small) small = rt->block_reach;
        if (rt->block_reach > large) large = rt->block_reach;
    }
    float size = w->interaction_radius;
    if (small / TH_GRID_SPLIT > size) size = small / TH_GRID_SPLIT;
    if (large / (float)TH_GRID_MAX_REACH > size) size = large / (float)TH_GRID_MAX_REACH;
    if (!init_tiling(w, &w->grid, size, w->capacity)) return false;
    for (uint32_t c = 0; c < w->crowd_count; c++) {
        th_crowd_rt *rt = &w->crowd_rt[c];
        rt->block = block_cells(&w->grid, rt->block_reach);
    }
    if (!w->pred_mask) return true;
    return setup_predators(w, w->capacity > w->pred_capacity ? w->capacity : w->pred_capacity);
}

bool th_world_reserve_predators(th_world *w, uint32_t n) {
    if (n <= w->pred_capacity) return true;
    uint32_t cap = w->pred_capacity ? w->pred_capacity : 1024;
    while (cap < n) cap = cap > TH_MAX_AGENTS / 2 ? TH_MAX_AGENTS : cap * 2;
    return setup_predators(w, cap);
}

/* The contacts phase's per-agent lists, sized with the agent arrays once a crowd has bodies
 * (radius: the largest body radius, counting one about to be added). */
static bool reserve_contacts_for(th_world *w, float radius) {
    if (radius <= 0.0f || w->contact_capacity >= w->capacity) return true;
    if (!th_grow_array((void **)&w->contact, sizeof *w->contact, 0,
                       (size_t)w->capacity * TH_CONTACT_LIST) ||
        !th_grow_array((void **)&w->contact_count, sizeof *w->contact_count, 0, w->capacity))
        return false;
    w->contact_capacity = w->capacity;
    return true;
}

/* Capacities grow from 1,024 by doubling, up to TH_MAX_AGENTS. */
static uint32_t grown_capacity(uint32_t cap, uint32_t n) {
    cap = cap ? cap : 1024;
    while (cap < n) cap = cap > TH_MAX_AGENTS / 2 ? TH_MAX_AGENTS : cap * 2;
    return cap;
}

/* Room for n agents stored: the agent arrays and what is sized with them (chunk statistics,
 * the spawning scratch, contact lists, the grids' index arrays, the predator index). */
static bool reserve_agents(th_world *w, uint32_t n) {
    if (n <= w->capacity) return true;
    const uint32_t cap = grown_capacity(w->capacity, n);
    uint32_t keep = w->count;
    uint32_t chunks_old = (w->capacity + TH_CHUNK - 1) / TH_CHUNK;
    uint32_t chunks_new = (cap + TH_CHUNK - 1) / TH_CHUNK;
    bool ok =
        grow_agents(w, &w->buf[w->cur], keep, cap) &&
        grow_agents(NULL, &w->buf[w->cur ^ 1], 0, cap) &&
        th_grow_array((void **)&w->chunk_stats, sizeof *w->chunk_stats, chunks_old, chunks_new) &&
        th_flow_reserve(w, cap, w->history_capacity);
    if (!ok) return false;
    w->capacity = cap;
    return reserve_contacts_for(w, w->max_radius) && setup_grid(w);
}

/* Room for n id slots: the id table, the per-id arrays and the measured positions, keeping the
 * slots used. */
static bool reserve_ids(th_world *w, uint32_t n) {
    if (n <= w->id_capacity) return true;
    const uint32_t cap = grown_capacity(w->id_capacity, n);
    if (!grow_ids(w, cap) || !th_measure_reserve(w, w->id_top, cap)) return false;
    w->id_capacity = cap;
    return true;
}

bool th_world_reserve(th_world *w, uint32_t stored, uint32_t ids) {
    return reserve_agents(w, stored) && reserve_ids(w, ids);
}

/* ---- world ------------------------------------------------------------------------------ */

static bool valid_dim(float v) { return isfinite(v) && v > 0.0f && v <= TH_MAX_WORLD_DIM; }

th_world *th_world_create(const th_world_def *def, th_error *err) {
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
    w->def = d;
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
    th_prof_init(&w->prof, k_phase_names, TH_PHASE_COUNT);
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
    if (!reserve_agents(w, (uint32_t)share) || !reserve_ids(w, agents) ||
        (d.cell_size > 0.0f && !th_nav_world_init(w)) || !reserve_history(w, w->id_capacity)) {
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
    th_free(w->pred_stype);
    th_free(w->pred_mine);
    th_free(w->pred_all);
    free_agents(w);
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
    th_dist_serial_free(w);
    th_free(w->validation_bits);
    th_free(w);
}

static int add_crowd(th_world *w, const th_crowd_def *def, th_error *err) {
    if (!th_between_steps(w, err)) return -1;
    if (w->crowd_count >= TH_MAX_CROWDS) {
        th_error_set(err, TH_ERR_LIMIT, "at most %d crowds", TH_MAX_CROWDS);
        return -1;
    }
    th_crowd_def d = def ? *def : th_default_crowd_def();
    if (d.behavior != TH_BEHAVIOR_FLOCK && d.behavior != TH_BEHAVIOR_FLEE) {
        th_error_set(err, TH_ERR_INVALID, "unknown behavior %d", (int)d.behavior);
        return -1;
    }
    if (d.behavior == TH_BEHAVIOR_FLEE && !w->nav.present) {
        th_error_set(err, TH_ERR_STATE,
                     "a fleeing crowd needs a terrain map with bunkers (set cell_size)");
        return -1;
    }
    /* Fleeing is the shelter goal; the behavior field says so for older code. */
    if (d.behavior == TH_BEHAVIOR_FLEE) {
        if (d.goal.kind != TH_GOAL_NONE && d.goal.kind != TH_GOAL_SHELTER) {
            th_error_set(err, TH_ERR_INVALID,
                         "behavior FLEE is the shelter goal; goal kind %d contradicts it",
                         (int)d.goal.kind);
            return -1;
        }
        d.goal.kind = TH_GOAL_SHELTER;
    } else if (d.goal.kind == TH_GOAL_SHELTER) {
        d.behavior = TH_BEHAVIOR_FLEE;
    }
    if (d.model != TH_MODEL_BOIDS && d.model != TH_MODEL_PEDESTRIAN) {
        th_error_set(err, TH_ERR_INVALID, "unknown model %d", (int)d.model);
        return -1;
    }
    /* Every numeric parameter against its row of the one table (crowd_params.h). */
    if (!th_crowd_params_check(&d, err)) return -1;
    if (d.type != TH_TYPE_OWN && d.type >= TH_MAX_TYPES) {
        th_error_set(err, TH_ERR_INVALID, "type must be below %d (or TH_TYPE_OWN), got %u",
                     TH_MAX_TYPES, d.type);
        return -1;
    }
    /* A null target is none (no leaders). */
    const int32_t target = (int32_t)TH_INDEX(d.target);
    if (d.target.index1 > w->target_count) {
        th_error_set(err, TH_ERR_HANDLE, "no target %u (the world has %u)", TH_INDEX(d.target),
                     w->target_count);
        return -1;
    }
    if (d.pursuit != TH_PURSUIT_CHASE && d.pursuit != TH_PURSUIT_INTERCEPT) {
        th_error_set(err, TH_ERR_INVALID, "unknown pursuit %d", (int)d.pursuit);
        return -1;
    }
    if (d.model == TH_MODEL_PEDESTRIAN) {
        /* The rules between keys; each key's own range was checked above. */
        if (d.desired_speed > d.max_speed || d.desired_speed_sd > d.desired_speed) {
            th_error_set(err, TH_ERR_INVALID,
                         "desired_speed must be in (0, max_speed = %g] m/s and desired_speed_sd "
                         "in [0, desired_speed], got %g and %g",
                         (double)d.max_speed, (double)d.desired_speed, (double)d.desired_speed_sd);
            return -1;
        }
        if (!(isfinite(d.heading.x) && isfinite(d.heading.y) && fabsf(d.heading.x) <= 1e6f &&
              fabsf(d.heading.y) <= 1e6f)) {
            th_error_set(err, TH_ERR_INVALID, "heading must be a finite direction");
            return -1;
        }
    }
    if (target >= 0 && w->target_def[target].kind == TH_TARGET_SHELTER && !w->nav.present) {
        th_error_set(err, TH_ERR_STATE, "a shelter target needs a terrain map with bunkers");
        return -1;
    }
    /* How far a crowd looks. Boids: their neighbourhood, the leader test and the predators
     * they flee. Pedestrians steer by their own model alone (below); their neighbor_radius
     * only counts the neighbours reported, within the model's reach. */
    const float lead_r = d.lead_radius > 0.0f ? d.lead_radius : d.neighbor_radius;
    float reach = 0.0f;
    if (d.model == TH_MODEL_BOIDS) {
        reach = d.neighbor_radius > d.separation_radius ? d.neighbor_radius : d.separation_radius;
        if (target >= 0 && lead_r > reach) reach = lead_r;
    }
    /* What the boids block query covers; the flee radius is looked up in the predator grid. */
    const float block_reach = reach;
    if (d.model == TH_MODEL_BOIDS && d.flee_types && d.flee_radius > reach) reach = d.flee_radius;
    /* Pedestrians look as far as their fastest walker gets in one time gap (the spacing term)
     * and as far as the repulsion is felt (below 1/1000 of its strength: 7 ranges). On a torus
     * a neighbour is seen at its nearest image, so a periodic corridor needs walls at least as
     * thick as its walkway is wide; that is the map's business, not a bound checked here. */
    const float fastest = fminf(d.max_speed, d.desired_speed + 2.0f * d.desired_speed_sd);
    const float ped_reach =
        d.model == TH_MODEL_PEDESTRIAN
            ? 2.0f * d.body_radius + fmaxf(fastest * d.time_gap, 7.0f * d.repulsion_range)
            : 0.0f;
    if (ped_reach > reach) reach = ped_reach;
    /* Bodies: the contacts phase looks for overlaps in the 3x3 cells the grid phase assigned,
     * after the agents moved: a cell must cover two bodies, a step's travel of both and the
     * pushes of the rounds (at most a body's radius). */
    const float contact_reach = 3.0f * d.body_radius + 2.0f * d.max_speed * w->def.timestep;
    if (d.body_radius > 0.0f && contact_reach > reach) reach = contact_reach;
    /* What a 3x3 block of main-grid cells must hold: the contacts. */
    const float near = d.body_radius > 0.0f ? contact_reach : 0.0f;
    if (w->wrap && (2.0f * reach > w->def.width || 2.0f * reach > w->def.height)) {
        th_error_set(err, TH_ERR_INVALID,
                     "a wrap-around world must be at least twice the largest radius (%g m) "
                     "on each side",
                     (double)reach);
        return -1;
    }
    th_crowd_rt goal_rt;
    th_vec2 *route = NULL;
    if (!th_goal_setup(w, &d.goal, &goal_rt, &route, err)) return -1;
    /* A foraging crowd's colony: its pheromone grid, food, and the nest's destination field. */
    struct th_colony *colony = NULL;
    if (d.goal.kind == TH_GOAL_FORAGE && !(colony = th_forage_create(w, &d.goal, err))) return -1;
    /* Goal state per id, kept from the first crowd that needs it on (agents of other crowds
     * added before hold zeros they never read). */
    if (th_goal_stateful(d.goal.kind) && !w->goal_state_wanted) {
        if (w->id_capacity > 0 &&
            !th_grow_array((void **)&w->goal_state, sizeof *w->goal_state, 0, w->id_capacity)) {
            th_free(route);
            th_forage_free(colony);
            th_error_set(err, TH_ERR_NOMEM, "out of memory");
            return -1;
        }
        w->goal_state_wanted = true;
    }
    if (!th_goal_congestion_add(w, &d.goal, &goal_rt, err)) {
        th_free(route);
        return -1;
    }
    uint32_t c = w->crowd_count;
    snprintf(w->crowd_name[c], sizeof w->crowd_name[c], "%s", d.name ? d.name : "crowd");
    d.name = w->crowd_name[c];
    w->crowd_def[c] = d;
    float half = d.fov_deg * 0.5f * (float)(TH_PI / 180.0);
    w->crowd_rt[c] = (th_crowd_rt){
        .neighbor_r2 = d.neighbor_radius * d.neighbor_radius,
        .separation_r2 = d.separation_radius * d.separation_radius,
        .sense_r2 = block_reach * block_reach,
        .block_reach = d.model == TH_MODEL_PEDESTRIAN ? ped_reach : block_reach,
        .block = 1,
        .cos_half_fov = cosf(half),
        .omni = d.fov_deg >= 360.0f,
        .w_sep = d.separation_weight,
        .w_ali = d.alignment_weight,
        .w_coh = d.cohesion_weight,
        .max_speed = d.max_speed,
        .max_force = d.max_force,
        .flee = d.behavior == TH_BEHAVIOR_FLEE,
        .w_flow = d.flow_weight,
        .wall_radius = d.wall_radius,
        .w_wall = w->nav.present && d.wall_radius > 0.0f ? d.wall_weight : 0.0f,
        .type = (uint16_t)(d.type == TH_TYPE_OWN ? TH_MAX_TYPES + c : d.type),
        .lead = target >= 0,
        .target = target,
        .pursuit = d.pursuit,
        .w_pursuit = d.pursuit_weight,
        .lead_r2 = lead_r * lead_r,
        .lead_cos2 = cosf(d.lead_fov_deg * 0.5f * (float)(TH_PI / 180.0)) *
                     cosf(d.lead_fov_deg * 0.5f * (float)(TH_PI / 180.0)),
        .flee_mask = d.flee_types,
        .flee_r2 = d.flee_radius * d.flee_radius,
        .w_flee = d.flee_weight,
        .radius = d.body_radius,
        .ped = d.model == TH_MODEL_PEDESTRIAN,
        .inv_time_gap = 1.0f / d.time_gap,
        .relax = d.relaxation > w->def.timestep ? w->def.timestep / d.relaxation : 1.0f,
        .rep = d.repulsion,
        .inv_rep_range = 1.0f / d.repulsion_range,
        .wall_rep = d.wall_repulsion,
        .inv_wall_rep_range = 1.0f / d.wall_repulsion_range,
        .ped_reach = ped_reach,
        /* Movers and ants follow rules of their own, which lanes would break. */
        .anticipation =
            (goal_rt.goal >= TH_GOAL_CRASH_AND_TURN && goal_rt.goal <= TH_GOAL_WAYPOINTS) ||
                    goal_rt.goal == TH_GOAL_FORAGE
                ? 0.0f
                : d.anticipation,
        .keep_right = d.keep_right,
        .aware_decay =
            w->def.timestep < TH_PED_MEMORY ? 1.0f - w->def.timestep / TH_PED_MEMORY : 0.0f,
        .heading = th_v2_norm(d.heading),
        .goal = goal_rt.goal,
        .goal_field = goal_rt.goal_field,
        .route = goal_rt.route,
        .route_count = goal_rt.route_count,
        .route_mode = goal_rt.route_mode,
        .route_r2 = goal_rt.route_r2,
        .wander_sigma = goal_rt.wander_sigma,
        .colony = colony,
        .congestion = goal_rt.congestion,
        .mover = goal_rt.mover,
    };
    w->crowd_route[c] = route;
    if (route) { w->crowd_def[c].goal.points = route; }
    if (colony) w->crowd_def[c].goal.forage = th_forage_def_of(colony);
    if (th_mover_kind(goal_rt.goal)) th_mover_def_stored(&w->crowd_def[c].goal, &w->crowd_rt[c]);
    if (d.body_radius > 0.0f && !reserve_contacts_for(w, d.body_radius)) {
        th_free(route);
        w->crowd_route[c] = NULL;
        th_forage_free(colony);
        w->crowd_rt[c].colony = NULL;
        th_goal_congestion_undo(w, &w->crowd_rt[c]);
        th_error_set(err, TH_ERR_NOMEM, "out of memory");
        return -1;
    }
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
    const float old_near = w->interaction_radius, old_pred_radius = w->pred_radius;
    const uint32_t old_pred_mask = w->pred_mask;
    if (near > w->interaction_radius) w->interaction_radius = near;
    if (d.model == TH_MODEL_BOIDS && d.flee_types) {
        w->pred_mask |= d.flee_types;
        if (d.flee_radius > w->pred_radius) w->pred_radius = d.flee_radius;
    }
    w->crowd_count++;
    if (!setup_grid(w)) {
        w->crowd_count--;
        th_free(route);
        w->crowd_route[c] = NULL;
        th_forage_free(colony);
        w->crowd_rt[c].colony = NULL;
        th_goal_congestion_undo(w, &w->crowd_rt[c]);
        w->interaction_radius = old_near;
        w->pred_radius = old_pred_radius;
        w->pred_mask = old_pred_mask;
        th_error_set(err, TH_ERR_NOMEM, "out of memory");
        return -1;
    }
    if (colony) w->colonies++;
    return (int)c;
}

th_crowd_id th_world_add_crowd(th_world *w, const th_crowd_def *def, th_error *err) {
    return th_crowd_handle(add_crowd(w, def, err));
}

uint32_t th_world_crowd_count(const th_world *w) { return w->crowd_count; }

const th_crowd_def *th_world_crowd(const th_world *w, th_crowd_id crowd) {
    return TH_INDEX(crowd) < w->crowd_count ? &w->crowd_def[TH_INDEX(crowd)] : NULL;
}

/* A pedestrian's free walking speed: normal(mean, sd), clipped to mean +- 2 sd and to
 * (0, max_speed]. The normal deviate is the Irwin-Hall sum of 12 uniforms minus 6 (variance 1,
 * tails cut at 6 sd, which the clip cuts further): only additions, so the draw is bit-identical
 * on every machine, unlike a Box-Muller transform through libm's log and cos. */
static float draw_desired_speed(const th_world *w, const th_crowd_def *d, th_agent_id id) {
    if (d->model != TH_MODEL_PEDESTRIAN) return 0.0f;
    float z = -6.0f;
    for (uint32_t k = 0; k < 12; k++)
        z += th_rng_f01(w->def.seed, 0x5e3d0000u + th_agent_key(id), k);
    float v = d->desired_speed + d->desired_speed_sd * th_clampf(z, -2.0f, 2.0f);
    return th_clampf(v, 0.05f * d->desired_speed, d->max_speed);
}

/* A vector's two floats by their bits, for the call hash. */
static uint64_t vec_bits(th_vec2 v) {
    uint32_t x, y;
    memcpy(&x, &v.x, sizeof x);
    memcpy(&y, &v.y, sizeof y);
    return (uint64_t)y << 32 | x;
}

th_agent_id th_world_add_agent(th_world *w, th_crowd_id crowd, th_vec2 position, th_vec2 velocity,
                               th_error *err) {
    if (!th_between_steps(w, err)) return TH_INVALID_AGENT;
    th_validate_call(w, 1u | crowd.index1 << 4, vec_bits(position), vec_bits(velocity));
    if (!th_handle_given(crowd.index1, "crowd", err)) return TH_INVALID_AGENT;
    return th_agent_add(w, TH_INDEX(crowd), position, velocity, err);
}

th_agent_id th_agent_add(th_world *w, uint32_t crowd, th_vec2 position, th_vec2 velocity,
                         th_error *err) {
    if (crowd >= w->crowd_count) {
        th_error_set(err, TH_ERR_HANDLE, "no crowd %u (the world has %u)", crowd, w->crowd_count);
        return TH_INVALID_AGENT;
    }
    if (!(position.x >= 0.0f && position.x < w->def.width && position.y >= 0.0f &&
          position.y < w->def.height)) {
        th_error_set(err, th_error_point_code(position),
                     "position (%g, %g) is outside the world [0, %g) x [0, %g)", (double)position.x,
                     (double)position.y, (double)w->def.width, (double)w->def.height);
        return TH_INVALID_AGENT;
    }
    if (w->nav.present && th_navmap_blocked_at(&w->nav.map, position)) {
        th_error_set(err, TH_ERR_BLOCKED, "position (%g, %g) is inside a wall", (double)position.x,
                     (double)position.y);
        return TH_INVALID_AGENT;
    }
    if (!isfinite(velocity.x) || !isfinite(velocity.y)) {
        th_error_set(err, TH_ERR_INVALID, "velocity must be finite");
        return TH_INVALID_AGENT;
    }
    if (w->count >= TH_MAX_AGENTS) {
        th_error_set(err, TH_ERR_LIMIT, "at most %u agents", TH_MAX_AGENTS);
        return TH_INVALID_AGENT;
    }
    /* Under several ranks every rank takes the id (the id table is replicated), and only the
     * owner stores the agent: the id table grows with the slots used anywhere, the agent
     * arrays with the agents stored here. A fresh slot is taken only when none is free. */
    const bool own = th_dist_owns(w, position);
    const uint32_t slots = w->id_free_count ? w->id_top : w->id_top + 1;
    if ((own && !reserve_agents(w, w->count + 1)) || !reserve_ids(w, slots) ||
        !reserve_history(w, w->spawned + 1)) {
        th_error_set(err, TH_ERR_NOMEM, "out of memory for %u agents", w->count + 1);
        return TH_INVALID_AGENT;
    }
    /* Clamped in double: the float length of a finite velocity such as (3e38, 3e38) overflows
     * to infinity, and the float clamp then scaled it to (0, 0), losing its direction. */
    th_vec2 v = velocity;
    double len = hypot(velocity.x, velocity.y), top = w->crowd_def[crowd].max_speed;
    if (len > top) v = th_v2((float)(velocity.x * (top / len)), (float)(velocity.y * (top / len)));
    th_agents *a = &w->buf[w->cur];
    /* A free slot if there is one (reserve made room for a fresh one otherwise), with the
     * next generation; 0 is skipped when the count wraps, so the id is never null. */
    uint32_t slot = w->id_free_count ? w->id_free[--w->id_free_count] : w->id_top++;
    uint32_t gen = w->id_gen[slot] + 1u;
    w->id_gen[slot] = gen ? gen : 1u;
    th_agent_id id = {slot + 1u, w->id_gen[slot]};
    w->spawned++;
    w->total++;
#define ZERO_ID(name, T, wanted) \
    if (wanted) memset(&w->name[slot], 0, sizeof(T));
    TH_ID_ARRAYS(ZERO_ID)
#undef ZERO_ID
    w->desired_speed[slot] = draw_desired_speed(w, &w->crowd_def[crowd], id);
    th_goal_agent_added(w, id, &w->crowd_rt[crowd], v);
    w->settle = true;
    if (!own) {
        w->slot_of_id[slot] = UINT32_MAX;
        return id;
    }
    uint32_t k = w->count++;
#define ZERO_AGENT(name, T, kind)                                \
    TH_AGENT_KIND(BUF, kind, memset(&a->name[k], 0, sizeof(T));) \
    TH_AGENT_KIND(ONE, kind, memset(&w->name[k], 0, sizeof(T));)
    TH_AGENT_ARRAYS(ZERO_AGENT)
#undef ZERO_AGENT
    a->px[k] = position.x;
    a->py[k] = position.y;
    a->vx[k] = v.x;
    a->vy[k] = v.y;
    a->crowd[k] = (uint16_t)crowd;
    a->id[k] = id;
    a->type[k] = w->crowd_rt[crowd].type;
    w->slot_of_id[slot] = k;
    /* Until its first grid phase a new agent sorts after every gathered one, in the order
     * agents were added: where one process stores it (sim/dist/dist_serial.h). */
    w->cell[k] = th_cell_added(w->spawned);
    th_measure_agent_added(w, id, position);
    w->stats.agents = w->dist ? w->total : w->count;
    return id;
}

/* Free the slot of an agent leaving the world: stale from now on, reused by the next agent
 * added (id_free holds a place for every slot, so the push needs no room). */
static void free_id(th_world *w, th_agent_id id) {
    const uint32_t s = th_id_slot(id);
    w->slot_of_id[s] = UINT32_MAX;
    w->id_free[w->id_free_count++] = s;
}

void th_world_drop_marked(th_world *w) {
    if (th_dist_serial_active(w) || th_dist_serial_forced(w)) {
        th_dist_drop_marked(w);
        return;
    }
    th_world_nav *n = &w->nav;
    th_agents *a = &w->buf[w->cur];
    uint32_t out = 0;
    for (uint32_t k = 0; k < w->count; k++) {
        uint8_t s = w->shelter[k];
        if (s == TH_MARK_REMOVED) {
            w->stats.removed++;
            free_id(w, a->id[k]);
            continue;
        }
        if (s >= TH_MARK_EXIT && s < TH_MARK_EXIT + TH_MAX_EXITS) {
            th_flow_exited(w, s - TH_MARK_EXIT);
            free_id(w, a->id[k]);
            continue;
        }
        if (s) {
            th_bunker *b = &n->bunker[s - 1];
            /* Admitted in storage order until the bunker is full; the rest stay outside. */
            if (!b->full && !b->destroyed) {
                b->sheltered++;
                w->stats.sheltered++;
                if (b->capacity && b->sheltered >= b->capacity) {
                    b->full = true;
                    n->combined_stale = true;
                }
                free_id(w, a->id[k]);
                continue;
            }
            w->shelter[k] = 0;
        }
        /* Every array moves down with its agent (shelter is 0 for every agent kept). */
        if (out != k) th_agent_move_down(w, out, k);
        out++;
    }
    w->count = out;
}

bool th_world_remove_agent(th_world *w, th_agent_id id, th_error *err) {
    if (!th_between_steps(w, err)) return false;
    th_validate_call(w, 2u, th_agent_key(id), 0);
    /* Under several ranks every rank queues the removal (the call is collective); only the
     * owner stores the agent, so the others check the id against the replicated id table. */
    const uint32_t s = th_id_slot(id);
    const bool known = w->dist ? s < w->id_top && w->id_gen[s] == id.generation &&
                                     (w->slot_of_id[s] != UINT32_MAX || th_dist_ranks(w) > 1)
                               : th_agent_index(w, id) != UINT32_MAX;
    if (!known) {
        th_error_set(err, TH_ERR_HANDLE, "no agent %u.%u", id.index1, id.generation);
        return false;
    }
    if (w->removal_count == w->removal_capacity) {
        uint32_t cap = w->removal_capacity ? w->removal_capacity * 2 : 16;
        if (!th_grow_array((void **)&w->removals, sizeof *w->removals, w->removal_count, cap)) {
            th_error_set(err, TH_ERR_NOMEM, "out of memory");
            return false;
        }
        w->removal_capacity = cap;
    }
    w->removals[w->removal_count++] = id;
    return true;
}

/* Removals asked for since the last step, applied at the start of this one. */
void th_world_apply_removals(th_world *w) {
    if (w->removal_count == 0) return;
    for (uint32_t i = 0; i < w->removal_count; i++) {
        /* Each id was checked when asked for and no agent leaves between steps, so it still
         * names its agent; one asked for twice is marked twice, harmlessly. */
        uint32_t k = th_agent_index(w, w->removals[i]);
        if (k != UINT32_MAX) w->shelter[k] = TH_MARK_REMOVED;
    }
    w->removal_count = 0;
    th_world_drop_marked(w);
}

/* ---- reading ---------------------------------------------------------------------------- */

uint32_t th_world_agent_count(const th_world *w) { return w->dist ? w->total : w->count; }
uint32_t th_world_id_slots(const th_world *w) { return w->id_top; }
uint64_t th_world_step_count(const th_world *w) { return w->step; }
th_world_stats th_world_get_stats(const th_world *w) {
    th_world_stats s = w->stats;
    s.agents = w->dist ? w->total : w->count;
    s.spawned = w->spawned;
    return s;
}
th_world_def th_world_get_def(const th_world *w) { return w->def; }

void th_world_grid_size(const th_world *w, int32_t *cols, int32_t *rows, float *cell_w,
                        float *cell_h) {
    if (cols) *cols = w->grid.nx;
    if (rows) *rows = w->grid.ny;
    if (cell_w) *cell_w = w->grid.cell_w;
    if (cell_h) *cell_h = w->grid.cell_h;
}

bool th_world_get_agent(const th_world *w, th_agent_id id, th_agent_state *out) {
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
    };
    return true;
}

th_agent_view th_world_agents(const th_world *w) {
    const th_agents *a = &w->buf[w->cur];
    return (th_agent_view){w->count, a->px, a->py, a->vx, a->vy, a->crowd, a->id, w->flags};
}

/* What the hash reads besides the agents: one process and the ranks' hash share these. */
static void hash_head(const th_world *w, th_hasher *h) {
    th_hash_u64(h, w->step);
    th_hash_u32(h, w->dist ? w->total : w->count);
}

static void hash_tail(const th_world *w, th_hasher *h) {
    for (uint32_t b = 0; b < w->nav.bunker_count; b++) {
        const th_bunker *bk = &w->nav.bunker[b];
        th_hash_u32(h, bk->sheltered);
        th_hash_u32(h, (uint32_t)bk->destroyed | (uint32_t)bk->full << 1);
    }
    if (w->colonies) th_forage_hash(w, h);
    if (w->flow) th_flow_hash(w, h);
}

uint64_t th_world_hash(const th_world *w) {
    if (w->dist) return th_dist_hash(w, hash_head, hash_tail);
    th_hasher h = th_hash_begin();
    hash_head(w, &h);
    const th_agents *a = &w->buf[w->cur];
    /* By slot: the same order for any thread count, as storage order is not. */
    for (uint32_t slot = 0; slot < w->id_top; slot++) {
        uint32_t k = w->slot_of_id[slot];
        if (k >= w->count) continue;
        th_hash_u64(&h, th_agent_key(a->id[k]));
        th_hash_u32(&h, a->crowd[k]);
        th_hash_f32(&h, a->px[k]);
        th_hash_f32(&h, a->py[k]);
        th_hash_f32(&h, a->vx[k]);
        th_hash_f32(&h, a->vy[k]);
    }
    hash_tail(w, &h);
    return th_hash_end(&h);
}

double th_world_phase_ms(const th_world *w, th_phase phase) {
    return th_prof_mean_ms(&w->prof, (uint32_t)phase);
}

double th_world_phase_last_ms(const th_world *w, th_phase phase) {
    return (unsigned)phase < TH_PHASE_COUNT ? (double)w->prof.last_ns[phase] * 1e-6 : 0.0;
}

void th_world_reset_profile(th_world *w) { th_prof_reset(&w->prof); }
