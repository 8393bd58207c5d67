/* Agents and their ids: adding an agent (a free id slot or a fresh one, every array zeroed at its
 * index), removals asked for, and the storage-order pass that drops marked agents. */
#include <math.h>
#include <string.h>

#include "engine/rng.h"
#include "sim/core/distrib.h"
#include "sim/core/storage.h"
#include "sim/core/world.h"

/* A pedestrian's free walking speed: normal(mean, sd), clipped to mean +- 2 sd and to
 * (0, max_speed]. The normal deviate is the Irwin-Hall sum of 12 uniforms minus 6 (variance 1,
 * tails cut at 6 sd, which the clip cuts further): only additions, so the draw is bit-identical
 * on every machine, unlike a Box-Muller transform through libm's log and cos. */
static float draw_desired_speed(const th_world *w, const th_crowd_def *d, th_agent_id id) {
    if (d->model != TH_MODEL_PEDESTRIAN) return 0.0f;
    if (d->free_speed.kind != TH_DISTRIB_NONE) {
        /* From the crowd's own distribution (truncated at max_speed: th_crowd_free_speed). */
        const th_distribution f = th_crowd_free_speed(d);
        const double u = th_rng_open01(w->def.seed, 0x5e3e0000u + th_agent_key(id), 0);
        return th_clampf((float)th_distrib_draw(&f, u), 0.01f, d->max_speed);
    }
    float z = -6.0f;
    for (uint32_t k = 0; k < 12; k++)
        z += th_rng_f01(w->def.seed, 0x5e3d0000u + th_agent_key(id), k);
    float v = d->desired_speed + d->desired_speed_sd * th_clampf(z, -2.0f, 2.0f);
    return th_clampf(v, 0.05f * d->desired_speed, d->max_speed);
}

/* An agent's pre-movement time, from one uniform keyed by its id: it may move from the step
 * that many seconds (rounded up to whole steps) after the one it is added before. Every rank
 * draws it (the id table is replicated), so the crowd's tally is the same on all. */
static void draw_pre_movement(th_world *w, uint32_t crowd, th_agent_id id) {
    const double u = th_rng_open01(w->def.seed, 0x9a7e0000u + th_agent_key(id), 0);
    const double t = th_distrib_draw(&w->crowd_def[crowd].pre_movement, u);
    w->start_step[th_id_slot(id)] = w->step + (uint64_t)ceil(t / w->def.timestep - 1e-9);
    th_crowd_rt *c = &w->crowd_rt[crowd];
    c->pre_min = c->pre_drawn ? fmin(c->pre_min, t) : t;
    c->pre_max = c->pre_drawn ? fmax(c->pre_max, t) : t;
    c->pre_sum += t;
    c->pre_drawn++;
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
    if (!w) {
        th_error_set(err, TH_ERR_INVALID, "no world");
        return TH_INVALID_AGENT;
    }
    if (!th_between_steps(w, err)) return TH_INVALID_AGENT;
    th_world_note_call(w, 1u | crowd.index1 << 4, vec_bits(position), vec_bits(velocity));
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
    const bool own = w->hooks.owns(w, position);
    const uint32_t slots = w->id_free_count ? w->id_top : w->id_top + 1;
    if ((own && !th_world_reserve_agents(w, w->count + 1)) || !th_world_reserve_ids(w, slots) ||
        !th_world_reserve_history(w, w->spawned + 1)) {
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
    w->id_live[slot] = 1;
    th_agent_id id = {slot + 1u, w->id_gen[slot]};
    w->spawned++;
    w->total++;
#define ZERO_ID(name, T, wanted) \
    if (wanted) memset(&w->name[slot], 0, sizeof(T));
    TH_ID_ARRAYS(ZERO_ID)
#undef ZERO_ID
    w->desired_speed[slot] = draw_desired_speed(w, &w->crowd_def[crowd], id);
    if (w->crowd_rt[crowd].premove) draw_pre_movement(w, crowd, id);
    w->hooks.agent_added(w, crowd, id, v);
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
    w->hooks.agent_placed(w, id, position);
    w->stats.agents = w->dist ? w->total : w->count;
    return id;
}

bool th_world_remove_agent(th_world *w, th_agent_id id, th_error *err) {
    if (!th_between_steps(w, err)) return false;
    th_world_note_call(w, 2u, th_agent_key(id), 0);
    /* Under several ranks every rank queues the removal (the call is collective); only the
     * owner stores the agent, so the others check the id against the replicated id table. */
    if (!th_agent_known(w, id)) {
        th_error_set(err, TH_ERR_HANDLE, "no agent %u.%u", id.index1, id.generation);
        return false;
    }
    if (!th_array_reserve((void **)&w->removals, sizeof *w->removals, w->removal_count,
                          &w->removal_capacity, w->removal_count + 1, 16, UINT32_MAX)) {
        th_error_set(err, TH_ERR_NOMEM, "out of memory");
        return false;
    }
    w->removals[w->removal_count++] = id;
    return true;
}
