/* One fixed step: events -> nav -> grid -> steer -> integrate -> contacts -> bookkeeping ->
 * admit -> squads -> history.
 *
 * The agent set changes only in serial phases, so every parallel phase sees a fixed set:
 *   - events: removals asked for through the API since the last step, then agents a block
 *     event walls in (buried), then spawners' new agents. Removed agents must be gone before
 *     anyone senses them this step, so these cannot wait for the admit phase.
 *   - admit: agents that stepped into an open bunker (until it is full) or an exit this step,
 *     after bookkeeping has counted and measured them with everyone else.
 * Each of these is one storage-order pass (th_world_drop_marked) at most: one in events for
 * removals asked for, one more there only when a block event buries agents, and one in admit.
 *
 * Every parallel phase is a th_pool_parallel_for over TH_CHUNK-sized chunks of the agent
 * arrays; its return is the barrier before the next phase. Each phase is a run of named parts
 * in the table k_parts, which the step loops over with one step context (th_step_ctx). No part
 * allocates, but the spawn part of an endless spawner, which grows storage by doubling. */
#include <math.h>
#include <string.h>

#include "sim/behave/behavior.h"
#include "sim/behave/boids.h"
#include "sim/behave/choice.h"
#include "sim/behave/contacts.h"
#include "sim/behave/elevator.h"
#include "sim/behave/forage.h"
#include "sim/behave/goal.h"
#include "sim/behave/group.h"
#include "sim/behave/leavers.h"
#include "sim/behave/movers.h"
#include "sim/behave/own_goal.h"
#include "sim/behave/own_plan.h"
#include "sim/behave/ped.h"
#include "sim/behave/squad.h"
#include "sim/core/step.h"
#include "sim/core/trace.h"
#include "sim/core/world.h"
#include "sim/dist/dist.h"
#include "sim/dist/dist_serial.h"
#include "sim/observe/measure.h"
#include "sim/observe/report.h"
#include "sim/observe/stall.h"
#include "sim/observe/validate.h"
#include "sim/scenario/flow.h"
#include "sim/scenario/hazard.h"
#include "sim/step/drop.h"

/* ---- step context ----------------------------------------------------------------------- */

/* The step context (th_step_ctx) is declared in step.h, for the kernels that take it. */

/* Before the first part: what is fixed for the whole step. */
static void step_ctx_init(th_step_ctx *x, th_world *w) {
    *x = (th_step_ctx){
        .w = w,
        .dt = w->def.timestep,
        .width = w->def.width,
        .height = w->def.height,
        .wrap = w->wrap,
        .terrain = w->nav.present,
        .slow = w->nav.present && (w->nav.speed || w->nav.stair_count),
        .goal_state = w->goal_state != NULL,
        .exits = w->flow != NULL,
        .pedestrians = w->pedestrians,
        .hazards = w->hazard != NULL,
        .levels = w->nav.present && w->nav.level_count && w->pedestrians,
    };
}

/* In the grid part, after the flip: the agent arrays as they are for the rest of the step. */
static void step_ctx_bind(th_step_ctx *x) {
    th_world *w = x->w;
    x->src = &w->buf[w->cur ^ 1]; /* cur was flipped before the gather */
    x->a = &w->buf[w->cur];
    x->ax = w->ax;
    x->ay = w->ay;
    x->cell = w->cell;
    x->shelter = w->shelter;
    x->chunk_stats = w->chunk_stats;
    x->order = w->grid.order;
    x->key = w->grid.key;
    x->slot_of_id = w->slot_of_id;
    x->key_base = w->grid.key_base;
}

/* ---- grid: index, then gather agent arrays into cell order ------------------------------ */

/* The gather also leaves, in the grid's key array, where each agent went: key[s] is read once,
 * by the k with order[k] == s, and is dead after that (the key of an agent moves to cell[k]),
 * so it is overwritten with k. The old storage index s is last step's cell order, close to k,
 * so these writes stay within each worker's own stretch of the array. */
/* Each agent's level in [begin, end), so the pedestrians' sensing compares a byte per
 * neighbour: its cell's, TH_LEVEL_RIDING in a car (riders are on no level). */
static void agent_levels(th_world *w, const th_agents *a, uint32_t begin, uint32_t end) {
    const th_navmap *m = &w->nav.map;
    const uint8_t *level_of = w->nav.level_of;
    const uint8_t *lift_of_id = w->lift_of_id;
    uint8_t *level = w->level;
    for (uint32_t k = begin; k < end; k++) {
        level[k] = lift_of_id && lift_of_id[th_id_slot(a->id[k])]
                       ? (uint8_t)TH_LEVEL_RIDING
                       : level_of[th_navmap_cell_of(m, th_v2(a->px[k], a->py[k]), NULL, NULL)];
    }
}

static void gather_job(void *ctx, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    const th_step_ctx *x = ctx;
    const th_agents *src = x->src;
    th_agents *dst = x->a;
    const uint32_t *order = x->order;
    uint32_t *key = x->key;
    uint32_t *cell = x->cell;
    const uint32_t key_base = x->key_base;
    /* Every buffered array of TH_AGENT_ARRAYS (the pedestrians' only where there are any); the
     * others are written afresh by the step. */
    if (x->pedestrians) {
        for (uint32_t k = begin; k < end; k++) {
            const uint32_t s = order[k];
#define GATHER(name, T, kind) TH_AGENT_KIND(PED, kind, dst->name[k] = src->name[s];)
            TH_AGENT_ARRAYS(GATHER)
#undef GATHER
        }
    }
    for (uint32_t k = begin; k < end; k++) {
        const uint32_t s = order[k];
#define GATHER(name, T, kind) TH_AGENT_KIND(GATHER, kind, dst->name[k] = src->name[s];)
        TH_AGENT_ARRAYS(GATHER)
#undef GATHER
        cell[k] = key[s] + key_base; /* the global cell */
        key[s] = k;
    }
    if (x->levels) agent_levels(x->w, dst, begin, end);
}

/* slot_of_id follows the agents, by id slot range: slot_of_id[id] = new slot of its old slot.
 * Writing slot_of_id[id] = k in the gather instead sends every worker's writes to ids scattered
 * over the whole array, so two workers keep writing the same cache lines: that gather took 0.57 ms
 * per step on 2 threads against 0.36 ms on 1 at 100k agents. Here each worker writes a
 * contiguous id range and only reads scattered. Removed agents (UINT32_MAX) stay removed. */
static void slot_job(void *ctx, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    const th_step_ctx *x = ctx;
    const uint32_t *new_slot = x->key;
    uint32_t *slot = x->slot_of_id;
    for (uint32_t id = begin; id < end; id++) {
        uint32_t s = slot[id];
        if (s != UINT32_MAX) slot[id] = new_slot[s];
    }
}

/* Ids per slot_job chunk: 8 KiB of slot_of_id, whole cache lines on both sides of every cut. */
#define TH_ID_CHUNK 2048u

/* The tie key of the neighbour order, read in place from the ids. */
#define TH_ID_STRIDE (sizeof(th_agent_id) / sizeof(uint32_t))
_Static_assert(sizeof(th_agent_id) % sizeof(uint32_t) == 0, "ids are whole uint32 words");

/* Storage order after the gather is (grid cell, id slot): within a cell, agents in the order of
 * their id slots (index1, unique among agents alive). With the stable scatter alone a cell would
 * keep last step's storage order, i.e. the agents' history (the cells they came from, the order
 * they were added in): two worlds with equal agents stored differently would step differently.
 * Keyed by id, everything that reads neighbours in storage order (lane sums, capped lists,
 * ties) is a function of the agents alone, which is also what lets several processes, each
 * holding part of the world, reproduce one process's order. */
static void part_grid(th_step_ctx *x) {
    th_world *w = x->w;
    const th_agents *a = &w->buf[w->cur];
    th_grid_build_tied(&w->grid, w->pool, a->px, a->py, &a->id[0].index1, TH_ID_STRIDE, w->count);
    w->cur ^= 1;
    step_ctx_bind(x);
    th_pool_parallel_for(w->pool, w->count, TH_CHUNK, gather_job, x);
    th_pool_parallel_for(w->pool, w->id_top, TH_ID_CHUNK, slot_job, x);
}

/* ---- steer ------------------------------------------------------------------------------ */

static void steer_job(void *ctx, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    const th_step_ctx *x = ctx;
    th_chunk_stats *cs = &x->chunk_stats[begin / TH_CHUNK];
    *cs = (th_chunk_stats){0};
    th_boids_steer(x, begin, end, cs);
    if (x->pedestrians) th_ped_steer(x, begin, end, cs);
}

/* ---- integrate -------------------------------------------------------------------------- */

static void integrate_job(void *ctx, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    const th_step_ctx *x = ctx;
    th_world *w = x->w; /* for the terrain, goal and exit helpers */
    th_agents *a = x->a;
    const float *ax = x->ax, *ay = x->ay;
    uint8_t *shelter = x->shelter;
    const th_crowd_rt *crowd_rt = w->crowd_rt;
    const float dt = x->dt, width = x->width, height = x->height;
    const bool wrap = x->wrap, terrain = x->terrain, slow = x->slow;
    const bool goal_state = x->goal_state, exits = x->exits, hazards = x->hazards;
    const bool own = w->own != NULL;
    const bool stairs = terrain && w->nav.stair_count;
    const bool lifts = w->lifts != NULL;
    const uint64_t step = w->step;
    uint32_t sheltering = 0;
    for (uint32_t k = begin; k < end; k++) {
        const th_crowd_rt *c = &crowd_rt[a->crowd[k]];
        th_vec2 p = th_v2(a->px[k], a->py[k]);
        if (lifts && th_lift_riding(w, k)) continue; /* in a car: the car moves it */
        /* Fire hazards: the dose of this step, waiting or not; smoke's share of the speed. */
        const float air =
            hazards ? th_hazard_expose(w, a->crowd[k], th_id_slot(a->id[k]), p, dt) : 1.0f;
        if (air == 0.0f || (c->premove && step < w->start_step[th_id_slot(a->id[k])])) {
            /* Incapacitated, or before its pre-movement time: it stands (the contacts may
             * still push it). */
            a->vx[k] = 0.0f;
            a->vy[k] = 0.0f;
            continue;
        }
        th_vec2 v = th_v2(a->vx[k] + ax[k] * dt, a->vy[k] + ay[k] * dt);
        const float top = c->max_speed * air;
        v = th_v2_clamp_len(v, slow ? top * th_nav_speed_at(w, p) * th_nav_stair_factor(w, p, v)
                                    : top);
        th_vec2 d = th_v2_scale(v, dt);
        const th_vec2 was = p;
        p = terrain ? th_nav_move(w, p, d, &v, true) : th_v2_add(p, d);
        if (stairs) th_nav_stair_crossed(w, was, p);
        th_bound_axis(&p.x, &v.x, width, wrap);
        th_bound_axis(&p.y, &v.y, height, wrap);
        a->px[k] = p.x;
        a->py[k] = p.y;
        a->vx[k] = v.x;
        a->vy[k] = v.y;
        if (terrain && c->flee) {
            shelter[k] = th_nav_shelter_at(w, p);
            sheltering += shelter[k] != 0;
        }
        if (exits && !shelter[k]) {
            shelter[k] = th_flow_exit_mark(w, a->crowd[k], p);
            sheltering += shelter[k] != 0;
        }
        if (goal_state && th_goal_stateful(c->goal)) th_goal_moved(w, a->id[k], c, p, v);
        if (own) {
            th_own_goal *g = th_own_of(w, th_id_slot(a->id[k]));
            if (g) th_own_moved(w, g, p);
        }
        if (c->ped) {
            a->aware[k] = w->aware_next[k];
            a->against[k] = w->against_next[k];
            a->ex[k] = w->ex_next[k];
            a->ey[k] = w->ey_next[k];
            a->hx[k] = w->hx_next[k];
            a->hy[k] = w->hy_next[k];
        }
    }
    x->chunk_stats[begin / TH_CHUNK].sheltering = sheltering;
}

/* ---- bookkeeping, admit ----------------------------------------------------------------- */

/* Statistics, foraging, measurement and breadcrumbs read the agents just stepped, sheltered and
 * exited ones included: they leave afterwards, in the admit phase. Returns how many agents
 * stepped into a bunker or an exit. */
static void part_statistics(th_step_ctx *x) {
    th_world *w = x->w;
    uint64_t neighbors = 0, candidates = 0;
    uint32_t stranded = 0, sheltering = 0;
    uint32_t chunks = (w->count + TH_CHUNK - 1) / TH_CHUNK;
    for (uint32_t c = 0; c < chunks; c++) {
        neighbors += w->chunk_stats[c].neighbors;
        candidates += w->chunk_stats[c].candidates;
        stranded += w->chunk_stats[c].stranded;
        sheltering += w->chunk_stats[c].sheltering;
    }
    /* Under several ranks: the whole world's sums (integers: the order of the sum is free). */
    uint64_t agents = w->count;
    if (w->dist) {
        uint64_t v[5] = {neighbors, candidates, stranded, sheltering, agents};
        th_dist_sum_u64(w, v, 5);
        neighbors = v[0], candidates = v[1], stranded = (uint32_t)v[2];
        sheltering = (uint32_t)v[3], agents = v[4];
    }
    w->stats.stranded = stranded;
    /* Averages over the agents that were stepped, before sheltered ones leave. */
    double n = agents ? (double)agents : 1.0;
    w->stats.step = w->step;
    w->stats.mean_neighbors = (double)neighbors / n;
    w->stats.mean_candidates = (double)candidates / n;
    x->sheltering = sheltering;
}

/* Admission to bunkers (capacity enforced in storage order) and leaving by exits: one
 * storage-order pass, only in steps where some agent stepped into one. Under several ranks
 * `sheltering` is the whole world's, so every rank takes the same branch, and the pass is a
 * replay over every rank's candidates (sim/dist/dist_serial.c). */
static void part_admit(th_step_ctx *x) {
    th_world *w = x->w;
    if (x->sheltering > 0) th_world_drop_marked(w);
    if (w->dist) {
        uint32_t total = w->count;
        th_dist_sum_u32(w, &total, 1);
        w->total = total;
    } else {
        w->total = w->count;
    }
    w->stats.agents = w->total;
}

/* Agents that this step's block events walled in (marked by th_nav_apply_events) leave
 * storage. Split agents: each process marked its own; the count is summed and the drop (a
 * replay over every process) runs on all of them, whether or not this one buried any. */
static void part_burial(th_step_ctx *x) {
    th_world *w = x->w;
    if (!x->displaced) return;
    uint32_t walled_in = x->walled_in;
    if (th_dist_serial_active(w)) th_dist_sum_u32(w, &walled_in, 1);
    if (walled_in) {
        w->stats.buried += walled_in;
        th_world_drop_marked(w); /* counts them in stats.removed */
    }
}

/* ---- the parts of a step ----------------------------------------------------------------- */

/* Each part is one named piece of work, run in the order of k_parts below. Parts that have
 * nothing to do in a world (no map, no squads, one process) return at once. */

static void part_removals(th_step_ctx *x) { th_world_apply_removals(x->w); }

/* Goals given to agents for this step (serial), before the terrain changes. */
static void part_agent_goals(th_step_ctx *x) {
    if (x->w->own) th_own_due(x->w);
}

static void part_terrain_events(th_step_ctx *x) {
    th_world *w = x->w;
    /* Crowd changes need no map. */
    if (w->nav.present || w->nav.event_count) x->displaced = th_nav_apply_events(w, &x->walled_in);
}

static void part_targets(th_step_ctx *x) {
    if (x->w->target_count) th_targets_update(x->w);
}

/* Fire hazards: the air of this step, before anyone breathes it. */
static void part_hazards(th_step_ctx *x) {
    if (x->w->hazard) th_hazard_update(x->w);
}

static void part_spawn(th_step_ctx *x) {
    if (x->w->flow) th_flow_spawn(x->w);
}

static void part_nav_fields(th_step_ctx *x) {
    if (x->w->nav.present) x->map_changed = th_nav_update(x->w);
}

/* Agents' own paths planned again (serial): those the terrain events can matter to, and those
 * cut short whose end was reached; then the goal planner's budget for the paths it owes. */
static void part_own_paths(th_step_ctx *x) {
    if (x->w->own) th_own_after_terrain(x->w, x->map_changed);
    if (x->w->own_plan) th_own_plan_serve(x->w);
}

/* Congestion-aware destination fields (behaviour's): on their own schedule, and with the others
 * when the map changed (their blocked cells must agree with the map's). */
static void part_congestion(th_step_ctx *x) {
    if (x->w->nav.present) th_goal_congestion_update(x->w, x->map_changed);
}

/* Several processes: agents that left this process's strip go to their owners. */
static void part_migration(th_step_ctx *x) {
    if (x->w->dist) th_dist_migrate(x->w);
}

/* Several processes: the rows this one reads of the others' strips (its neighbours' boundary
 * rows, the far sides of the stairs by its walkers), after the owned agents; in a building,
 * the ghosts' levels (lift_of_id is every rank's). */
static void part_ghosts(th_step_ctx *x) {
    th_world *w = x->w;
    if (!w->dist) return;
    th_dist_ghosts(w);
    if (x->levels) agent_levels(w, &w->buf[w->cur], w->count, w->count + w->ghosts);
}

/* Exit choices due this step, over the positions just gathered (serial). */
static void part_exit_choice(th_step_ctx *x) {
    if (x->w->exit_choice_due) th_choice_update(x->w);
}

/* Groups: each member's pace for this step, from the positions just gathered. */
static void part_groups(th_step_ctx *x) {
    if (x->w->groups) th_groups_update(x->w);
}

/* Walkers who left by an exit lately: those out of reach forgotten, the cells near the others
 * marked for the steering. */
static void part_leavers(th_step_ctx *x) { th_leavers_prepare(x->w); }

/* The predator index, from the gathered positions. */
static void part_predators(th_step_ctx *x) { th_boids_prepare(x->w); }

static void part_steer(th_step_ctx *x) {
    th_pool_parallel_for(x->w->pool, x->w->count, TH_CHUNK, steer_job, x);
}

static void part_integrate(th_step_ctx *x) {
    th_pool_parallel_for(x->w->pool, x->w->count, TH_CHUNK, integrate_job, x);
}

static void part_contacts(th_step_ctx *x) {
    if (x->w->max_radius > 0.0f) th_contacts_resolve(x);
}

static void part_step_counter(th_step_ctx *x) { x->w->step++; }

static void part_foraging(th_step_ctx *x) {
    if (x->w->colonies) th_forage_update(x->w);
}

/* Elevators: who waits, boards, rides and steps out, after the contacts placed everyone. */
static void part_elevators(th_step_ctx *x) {
    if (x->w->lifts) th_lifts_update(x->w);
}

static void part_measurement(th_step_ctx *x) {
    if (x->w->measure) th_measure_update(x->w);
}

/* Targets drop breadcrumbs for the movers that follow them. */
static void part_breadcrumbs(th_step_ctx *x) {
    if (x->w->target_count) th_movers_update(x->w);
}

static void part_stalls(th_step_ctx *x) { th_stall_update(x->w); }

static void part_squads(th_step_ctx *x) {
    if (x->w->squad_count) th_squads_update(x->w);
}

static void part_history(th_step_ctx *x) { th_report_update(x->w); }

static void part_validate_grid(th_step_ctx *x) { th_validate_grid(x->w); }

static void part_validate_bodies(th_step_ctx *x) {
    if (x->w->max_radius > 0.0f) th_validate_bodies(x->w);
}

static void part_validate_state(th_step_ctx *x) { th_validate_state(x->w); }

/* Parts outside the timed phases: the invariant checks, run only with validation on. */
#define TH_STEP_VALIDATION TH_PHASE_COUNT

typedef struct step_part {
    const char *name;
    th_phase phase; /* the phase it is timed and traced under, or TH_STEP_VALIDATION */
    void (*run)(th_step_ctx *x);
} step_part;

/* The step, in order. A phase (th_phase: what the profiler, the report and the trace show) is a
 * run of consecutive parts; every phase has at least one. */
static const step_part k_parts[] = {
    {"removals", TH_PHASE_EVENTS, part_removals},
    {"agent goals", TH_PHASE_EVENTS, part_agent_goals},
    {"terrain events", TH_PHASE_EVENTS, part_terrain_events},
    {"burial", TH_PHASE_EVENTS, part_burial},
    {"targets", TH_PHASE_EVENTS, part_targets},
    {"spawn", TH_PHASE_EVENTS, part_spawn},
    {"hazards", TH_PHASE_EVENTS, part_hazards},
    {"nav fields", TH_PHASE_NAV, part_nav_fields},
    {"congestion", TH_PHASE_NAV, part_congestion},
    {"own paths", TH_PHASE_NAV, part_own_paths},
    {"migration", TH_PHASE_GRID, part_migration},
    {"grid", TH_PHASE_GRID, part_grid},
    {"ghosts", TH_PHASE_GRID, part_ghosts},
    {"predators", TH_PHASE_GRID, part_predators},
    {"exit choice", TH_PHASE_GRID, part_exit_choice},
    {"groups", TH_PHASE_GRID, part_groups},
    {"leavers", TH_PHASE_GRID, part_leavers},
    {"validate grid", TH_STEP_VALIDATION, part_validate_grid},
    {"steer", TH_PHASE_STEER, part_steer},
    {"integrate", TH_PHASE_INTEGRATE, part_integrate},
    {"contacts", TH_PHASE_CONTACTS, part_contacts},
    {"validate bodies", TH_STEP_VALIDATION, part_validate_bodies},
    {"step counter", TH_PHASE_BOOKKEEPING, part_step_counter},
    {"elevators", TH_PHASE_BOOKKEEPING, part_elevators},
    {"statistics", TH_PHASE_BOOKKEEPING, part_statistics},
    {"foraging", TH_PHASE_BOOKKEEPING, part_foraging},
    {"measurement", TH_PHASE_BOOKKEEPING, part_measurement},
    {"breadcrumbs", TH_PHASE_BOOKKEEPING, part_breadcrumbs},
    {"stalls", TH_PHASE_BOOKKEEPING, part_stalls},
    {"admit", TH_PHASE_ADMIT, part_admit},
    {"squads", TH_PHASE_SQUADS, part_squads},
    {"history", TH_PHASE_HISTORY, part_history},
    {"validate state", TH_STEP_VALIDATION, part_validate_state},
};
#define TH_STEP_PARTS (sizeof k_parts / sizeof k_parts[0])

/* ---- the step ---------------------------------------------------------------------------- */

/* Phase boundaries: the profiler's clock read closes one phase and opens the next, and a traced
 * step hands the same time stamps to the trace, so tracing adds no clock reads of its own on
 * the stepping thread. */
static inline __attribute__((always_inline)) void enter(th_world *w, bool traced, th_phase ph) {
    if (traced) th_trace_enter(w, ph, w->prof.started_ns);
}

static inline __attribute__((always_inline)) void leave(th_world *w, bool traced, th_phase ph) {
    th_prof_end(&w->prof, (uint32_t)ph);
    if (traced) th_trace_leave(w, w->prof.started_ns);
}

/* The body is inlined twice with `traced` a constant, so the untraced copy carries no trace
 * code and the choice costs one branch per step (in th_world_step). A test at each of the
 * phase boundaries was the alternative; it is as cheap in practice but puts trace code
 * in the hot path's instruction stream. Timing is written here once: a phase is entered at
 * its first part and left when the next part belongs to another; validation parts run between
 * phases, and the clock restarts after them, so checking never counts as a phase's time. */
static inline __attribute__((always_inline)) void step_body(th_world *w, bool traced) {
    th_profiler *p = &w->prof;
    th_step_ctx x;
    step_ctx_init(&x, w);
    uint32_t open = TH_STEP_VALIDATION; /* the phase being timed, or none */
    th_prof_begin(p);
    for (uint32_t i = 0; i < TH_STEP_PARTS; i++) {
        const step_part *part = &k_parts[i];
        if ((uint32_t)part->phase == TH_STEP_VALIDATION && !w->validate) continue;
        if ((uint32_t)part->phase != open) {
            if (open != TH_STEP_VALIDATION) leave(w, traced, (th_phase)open);
            else if (i > 0) th_prof_begin(p); /* after validation: restart the clock */
            open = (uint32_t)part->phase;
            if (open != TH_STEP_VALIDATION) enter(w, traced, part->phase);
        }
        part->run(&x);
    }
    if (open != TH_STEP_VALIDATION) leave(w, traced, (th_phase)open);
    th_prof_step_done(p);
}

void th_world_step(th_world *w) {
    if (!w) return;
    if (!TH_ASSERT(!w->stepping)) return; /* stepped from inside its own step */
    if (w->checking) {
        th_step_fail(w, TH_ERR_STATE, "a world built only to be checked is never stepped");
        return;
    }
    w->stepping = true;
    if (w->trace) step_body(w, true);
    else step_body(w, false);
    w->stepping = false;
}
