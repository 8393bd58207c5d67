/* One fixed step: events -> nav -> grid -> steer -> integrate -> bookkeeping.
 *
 * Every parallel phase is a th_pool_parallel_for over TH_CHUNK-sized chunks of the agent
 * arrays; its return is the barrier before the next phase. No phase allocates. */
#include <math.h>
#include <string.h>

#include "world_internal.h"

/* ---- grid: index, then gather agent arrays into cell order ------------------------------ */

static void gather_job(void *ctx, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    th_world *w = ctx;
    const th_agents *src = &w->buf[w->cur ^ 1]; /* cur was flipped before the gather */
    th_agents *dst = &w->buf[w->cur];
    const uint32_t *order = w->grid.order;
    const uint32_t *key = w->grid.key;
    for (uint32_t k = begin; k < end; k++) {
        uint32_t s = order[k];
        dst->px[k] = src->px[s];
        dst->py[k] = src->py[s];
        dst->vx[k] = src->vx[s];
        dst->vy[k] = src->vy[s];
        dst->crowd[k] = src->crowd[s];
        th_agent_id id = src->id[s];
        dst->id[k] = id;
        w->cell[k] = key[s];
        w->slot_of_id[id] = k;
    }
}

static void phase_grid(th_world *w) {
    const th_agents *a = &w->buf[w->cur];
    th_grid_build(&w->grid, w->pool, a->px, a->py, w->count);
    w->cur ^= 1;
    th_pool_parallel_for(w->pool, w->count, TH_CHUNK, gather_job, w);
}

/* ---- steer ------------------------------------------------------------------------------ */

static void steer_job(void *ctx, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    th_world *w = ctx;
    th_chunk_stats *cs = &w->chunk_stats[begin / TH_CHUNK];
    *cs = (th_chunk_stats){0};
    th_boids_steer(w, begin, end, cs);
}

/* ---- integrate -------------------------------------------------------------------------- */

/* Keep a coordinate inside [0, extent): bounce off the edges, or wrap around. */
static inline void bound_axis(float *p, float *v, float extent, bool wrap) {
    float x = *p;
    if (wrap) {
        if (x < 0.0f) x += extent;
        else if (x >= extent) x -= extent;
        /* x + extent can round up to extent itself when x is a tiny negative number. */
        if (!(x >= 0.0f && x < extent)) x = 0.0f;
    } else {
        if (x < 0.0f) {
            x = -x;
            *v = fabsf(*v);
        } else if (x >= extent) {
            x = extent - (x - extent);
            *v = -fabsf(*v);
        }
        /* Largest float below extent: positions are half-open [0, extent). */
        float top = nextafterf(extent, 0.0f);
        if (!(x >= 0.0f)) x = 0.0f;
        if (x > top) x = top;
    }
    *p = x;
}

static void integrate_job(void *ctx, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    th_world *w = ctx;
    th_agents *a = &w->buf[w->cur];
    const float dt = w->def.timestep;
    const float W = w->def.width, H = w->def.height;
    const bool wrap = w->wrap;
    const bool terrain = w->nav.present;
    uint32_t sheltering = 0;
    for (uint32_t k = begin; k < end; k++) {
        const th_crowd_rt *c = &w->crowd_rt[a->crowd[k]];
        th_vec2 v = th_v2(a->vx[k] + w->ax[k] * dt, a->vy[k] + w->ay[k] * dt);
        v = th_v2_clamp_len(v, c->max_speed);
        th_vec2 p = th_v2(a->px[k], a->py[k]);
        th_vec2 d = th_v2_scale(v, dt);
        p = terrain ? th_nav_move(w, p, d, &v) : th_v2_add(p, d);
        bound_axis(&p.x, &v.x, W, wrap);
        bound_axis(&p.y, &v.y, H, wrap);
        a->px[k] = p.x;
        a->py[k] = p.y;
        a->vx[k] = v.x;
        a->vy[k] = v.y;
        if (terrain && c->flee) {
            w->shelter[k] = th_nav_shelter_at(w, p);
            sheltering += w->shelter[k] != 0;
        }
    }
    w->chunk_stats[begin / TH_CHUNK].sheltering = sheltering;
}

/* ---- bookkeeping ------------------------------------------------------------------------ */

static void phase_bookkeeping(th_world *w) {
    uint64_t neighbors = 0, candidates = 0;
    uint32_t stranded = 0, sheltering = 0;
    uint32_t chunks = (w->count + TH_CHUNK - 1) / TH_CHUNK;
    for (uint32_t c = 0; c < chunks; c++) {
        neighbors += w->chunk_stats[c].neighbors;
        candidates += w->chunk_stats[c].candidates;
        stranded += w->chunk_stats[c].stranded;
        sheltering += w->chunk_stats[c].sheltering;
    }
    w->stats.stranded = stranded;
    /* Averages over the agents that were stepped, before sheltered ones leave. */
    double n = w->count ? (double)w->count : 1.0;
    w->stats.step = w->step;
    w->stats.mean_neighbors = (double)neighbors / n;
    w->stats.mean_candidates = (double)candidates / n;
    if (sheltering > 0) th_nav_admit_sheltered(w);
    w->stats.agents = w->count;
}

void th_world_step(th_world *w) {
    th_profiler *p = &w->prof;
    th_prof_begin(p);
    if (w->nav.present) {
        th_nav_apply_events(w);
        th_prof_end(p, TH_PHASE_EVENTS);
        th_nav_update(w);
        th_prof_end(p, TH_PHASE_NAV);
    } else {
        th_prof_end(p, TH_PHASE_EVENTS);
        th_prof_end(p, TH_PHASE_NAV);
    }
    phase_grid(w);
    th_prof_end(p, TH_PHASE_GRID);
    th_pool_parallel_for(w->pool, w->count, TH_CHUNK, steer_job, w);
    th_prof_end(p, TH_PHASE_STEER);
    th_pool_parallel_for(w->pool, w->count, TH_CHUNK, integrate_job, w);
    th_prof_end(p, TH_PHASE_INTEGRATE);
    w->step++;
    phase_bookkeeping(w);
    th_prof_end(p, TH_PHASE_BOOKKEEPING);
    th_prof_step_done(p);
}
