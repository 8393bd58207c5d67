/* Agents a host steers itself (throng.h "steering agents from the host", docs/embedding.md):
 * a preferred velocity held per id slot (pref_of_id) that the steer phase reads in place of the
 * goal's direction (sim/behave/ped.c, sim/behave/boids.c), a move to another place between
 * steps, and the agents near one. All of it happens between steps, serially, so the same calls
 * at the same steps step alike for any thread count. */
#include <math.h>
#include <stdlib.h>

#include "engine/alloc.h"
#include "sim/behave/goal.h"
#include "sim/behave/own_goal.h"
#include "sim/core/error.h"
#include "sim/core/world.h"

/* The storage index of agent `id` of a world the host may change now, or UINT32_MAX with err:
 * no world, inside its step, split over several ranks (the agent's owner alone knows its
 * crowd and neighbours, and a move may hand it to another), or no such agent. */
static uint32_t agent_for(const th_world *w, th_agent_id id, const char *what, th_error *err) {
    if (!w) {
        th_error_set(err, TH_ERR_INVALID, "no world");
        return UINT32_MAX;
    }
    if (w->stepping) {
        th_error_set(err, TH_ERR_STATE, "%s between steps, not inside the world's own step", what);
        return UINT32_MAX;
    }
    if (w->dist) {
        th_error_set(err, TH_ERR_STATE, "%s is not supported over several MPI ranks", what);
        return UINT32_MAX;
    }
    const uint32_t k = th_agent_index(w, id);
    if (k == UINT32_MAX)
        th_error_set(err, TH_ERR_HANDLE, "no agent %u (generation %u)", id.index1, id.generation);
    return k;
}

/* A per-id array of TH_ID_ARRAYS that exists once `*wanted`: made, zeroed, for every id slot
 * the world has room for the first time it is needed (it then grows with the id table, and is
 * zeroed for every agent added). */
static bool id_array_ready(const th_world *w, bool *wanted, void **array, size_t size) {
    if (*wanted) return true;
    void *p = w->id_capacity ? th_calloc(w->id_capacity, size) : NULL;
    if (w->id_capacity && !p) return false;
    *array = p;
    *wanted = true;
    return true;
}

static bool pref_ready(th_world *w) {
    return id_array_ready(w, &w->pref_wanted, (void **)&w->pref_of_id, sizeof *w->pref_of_id);
}

bool th_world_set_agent_preferred_velocity(th_world *w, th_agent_id id, th_vec2 velocity,
                                           th_error *err) {
    const uint32_t k = agent_for(w, id, "an agent's preferred velocity is set", err);
    if (k == UINT32_MAX) return false;
    if (!isfinite(velocity.x) || !isfinite(velocity.y)) {
        th_error_set(err, TH_ERR_INVALID, "preferred velocity (%g, %g) is not finite",
                     (double)velocity.x, (double)velocity.y);
        return false;
    }
    if (!pref_ready(w)) {
        th_error_set(err, TH_ERR_NOMEM, "out of memory for preferred velocities");
        return false;
    }
    /* Clamped in double, as th_world_add_agent clamps: the float length of a finite vector
     * such as (3e38, 3e38) overflows. */
    const double len = hypot(velocity.x, velocity.y);
    const double top = w->crowd_def[w->buf[w->cur].crowd[k]].max_speed;
    th_pref_velocity *p = &w->pref_of_id[th_id_slot(id)];
    *p = (th_pref_velocity){.on = 1};
    if (len > 0.0) {
        const double s = len > top ? top / len : 1.0;
        p->v = th_v2((float)(velocity.x * s), (float)(velocity.y * s));
        p->dir = th_v2((float)(velocity.x / len), (float)(velocity.y / len));
        p->speed = (float)(len > top ? top : len);
    }
    return true;
}

bool th_world_clear_agent_preferred_velocity(th_world *w, th_agent_id id, th_error *err) {
    const uint32_t k = agent_for(w, id, "an agent's preferred velocity is cleared", err);
    if (k == UINT32_MAX) return false;
    if (w->pref_of_id) w->pref_of_id[th_id_slot(id)] = (th_pref_velocity){0};
    return true;
}

bool th_world_get_agent_preferred_velocity(const th_world *w, th_agent_id id, th_vec2 *out) {
    if (!w || !out || th_agent_index(w, id) == UINT32_MAX) return false;
    const th_pref_velocity *p = th_pref_of(w, th_id_slot(id));
    if (!p) return false;
    *out = p->v;
    return true;
}

bool th_world_set_agent_position(th_world *w, th_agent_id id, th_vec2 position, th_error *err) {
    const uint32_t k = agent_for(w, id, "an agent's position is set", err);
    if (k == UINT32_MAX) return false;
    if (!(position.x >= 0.0f && position.x < w->def.width && position.y >= 0.0f &&
          position.y < w->def.height)) {
        th_error_set(err, th_error_point_code(position),
                     "position (%g, %g) is outside the world [0, %g) x [0, %g)", (double)position.x,
                     (double)position.y, (double)w->def.width, (double)w->def.height);
        return false;
    }
    if (w->nav.present && th_navmap_blocked_at(&w->nav.map, position)) {
        th_error_set(err, TH_ERR_BLOCKED, "position (%g, %g) is inside a wall", (double)position.x,
                     (double)position.y);
        return false;
    }
    const uint32_t slot = th_id_slot(id);
    if (w->lifts && w->lift_of_id[slot]) {
        th_error_set(err, TH_ERR_STATE, "agent %u rides an elevator: the car moves it", id.index1);
        return false;
    }
    /* Its own goal's path, planned from the new place before anything else changes (the one
     * step that may fail). */
    if (!th_own_placed(w, slot, position, err)) return false;
    th_agents *a = &w->buf[w->cur];
    const th_crowd_rt *c = &w->crowd_rt[a->crowd[k]];
    a->px[k] = position.x;
    a->py[k] = position.y;
    /* It arrives standing, with a pedestrian's memory of where it walked and of counterflow
     * cleared, as an agent just added. */
    a->vx[k] = a->vy[k] = 0.0f;
    a->aware[k] = a->against[k] = 0.0f;
    a->ex[k] = a->ey[k] = a->hx[k] = a->hy[k] = 0.0f;
    /* Its progress is judged afresh from here; the jump crosses no measurement line. */
    w->stall[slot] = (th_stall){0};
    w->hooks.agent_placed(w, id, position);
    th_goal_agent_placed(w, id, c);
    /* Bodies it lands on may overlap deeply: the next contacts phase may take more rounds. */
    w->settle = true;
    return true;
}

bool th_world_set_agent_radius(th_world *w, th_agent_id id, float radius, th_error *err) {
    const uint32_t k = agent_for(w, id, "an agent's body radius is set", err);
    if (k == UINT32_MAX) return false;
    const th_agents *a = &w->buf[w->cur];
    const float crowd = w->crowd_radius[a->crowd[k]];
    if (crowd <= 0.0f) {
        th_error_set(err, TH_ERR_STATE,
                     "agent %u's crowd has no bodies (body_radius 0): give the crowd one first",
                     id.index1);
        return false;
    }
    if (!(isfinite(radius) && radius > 0.0f && radius <= crowd)) {
        th_error_set(err, TH_ERR_INVALID,
                     "body radius must be in (0, %g] m (its crowd's body_radius: the crowd's "
                     "routes and doors are made for it), got %g",
                     (double)crowd, (double)radius);
        return false;
    }
    if (!id_array_ready(w, &w->radius_wanted, (void **)&w->radius_of_id, sizeof *w->radius_of_id)) {
        th_error_set(err, TH_ERR_NOMEM, "out of memory for body radii");
        return false;
    }
    w->radius_of_id[th_id_slot(id)] = radius;
    return true;
}

float th_world_agent_radius(const th_world *w, th_agent_id id) {
    if (!w) return -1.0f;
    const uint32_t k = th_agent_index(w, id);
    return k == UINT32_MAX ? -1.0f : th_body_radius(w, &w->buf[w->cur], k);
}

/* An agent within reach: its squared distance and id, sorted nearest first, then by id slot. */
typedef struct near_agent {
    double d2;
    th_agent_id id;
} near_agent;

static int near_cmp(const void *p, const void *q) {
    const near_agent *a = p, *b = q;
    if (a->d2 != b->d2) return a->d2 < b->d2 ? -1 : 1;
    return a->id.index1 < b->id.index1 ? -1 : a->id.index1 > b->id.index1;
}

bool th_world_agent_neighbors(const th_world *w, th_agent_id id, float radius, th_agent_id *out,
                              uint32_t max, uint32_t *count, th_error *err) {
    if (!count || (max && !out)) {
        th_error_set(err, TH_ERR_INVALID, "agent neighbours: no count, or no room for %u ids", max);
        return false;
    }
    *count = 0;
    if (!w) {
        th_error_set(err, TH_ERR_INVALID, "no world");
        return false;
    }
    if (w->dist) {
        th_error_set(err, TH_ERR_STATE,
                     "an agent's neighbours are not asked over several MPI ranks (each holds "
                     "its own strip)");
        return false;
    }
    const uint32_t k = th_agent_index(w, id);
    if (k == UINT32_MAX) {
        th_error_set(err, TH_ERR_HANDLE, "no agent %u (generation %u)", id.index1, id.generation);
        return false;
    }
    if (!(isfinite(radius) && radius >= 0.0f)) {
        th_error_set(err, TH_ERR_INVALID, "radius must be finite and at least 0, got %g",
                     (double)radius);
        return false;
    }
    const th_agents *a = &w->buf[w->cur];
    const th_vec2 p = th_v2(a->px[k], a->py[k]);
    const double r2 = (double)radius * radius;
    /* Twice over the agents: counted, then (when any are asked for) listed and sorted. */
    uint32_t n = 0;
    for (uint32_t j = 0; j < w->count; j++) {
        if (j == k) continue;
        const th_vec2 d = th_min_image(th_v2_sub(th_v2(a->px[j], a->py[j]), p), w->wrap,
                                       w->def.width, w->def.height);
        n += (double)d.x * d.x + (double)d.y * d.y <= r2;
    }
    *count = n;
    if (n == 0 || max == 0) return true;
    near_agent *list = th_alloc((size_t)n * sizeof *list);
    if (!list) {
        th_error_set(err, TH_ERR_NOMEM, "out of memory for %u neighbours", n);
        *count = 0;
        return false;
    }
    uint32_t m = 0;
    for (uint32_t j = 0; j < w->count; j++) {
        if (j == k) continue;
        const th_vec2 d = th_min_image(th_v2_sub(th_v2(a->px[j], a->py[j]), p), w->wrap,
                                       w->def.width, w->def.height);
        const double d2 = (double)d.x * d.x + (double)d.y * d.y;
        if (d2 <= r2) list[m++] = (near_agent){d2, a->id[j]};
    }
    qsort(list, m, sizeof *list, near_cmp);
    for (uint32_t i = 0; i < m && i < max; i++) out[i] = list[i].id;
    th_free(list);
    return true;
}
