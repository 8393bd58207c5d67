/* One agent's way to its goal, for hosts (throng.h "one agent's way", docs/goals.md): the next
 * step, the metres left and the path, read from the same goal state and fields its step uses. */
#include <math.h>
#include <string.h>

#include "sim/behave/choice.h"
#include "sim/behave/goal.h"
#include "sim/behave/movers.h"
#include "sim/behave/own_goal.h"
#include "sim/core/error.h"
#include "sim/nav/world_nav.h"
#include "sim/terrain/world_nav_private.h"

/* The agent's storage index and crowd, or false with err. */
static bool find(const th_world *w, th_agent_id id, uint32_t *k, const th_crowd_rt **c,
                 th_error *err) {
    if (!w) {
        th_error_set(err, TH_ERR_INVALID, "null world");
        return false;
    }
    *k = th_agent_index(w, id);
    if (*k == UINT32_MAX) {
        th_error_set(err, TH_ERR_HANDLE, "no agent %u (generation %u)", id.index1, id.generation);
        return false;
    }
    *c = &w->crowd_rt[w->buf[w->cur].crowd[*k]];
    return true;
}

bool th_world_agent_next_step(const th_world *w, th_agent_id id, th_vec2 *dir) {
    uint32_t k;
    const th_crowd_rt *c;
    if (!dir || !find(w, id, &k, &c, NULL)) return false;
    const th_agents *a = &w->buf[w->cur];
    if (c->goal == TH_GOAL_NONE && !th_own_active(w, th_id_slot(id))) { /* a heading, or a flock */
        *dir = c->ped ? c->heading : th_v2(0.0f, 0.0f);
        return true;
    }
    return th_goal_direction(w, id, c, th_v2(a->px[k], a->py[k]), dir);
}

/* A route's remaining points after p (the current waypoint on; to the end of a one-way
 * route, to the next waypoint of a loop or patrol), into out (NULL: counted only), and their
 * metres. */
static uint32_t route_plan(const th_world *w, const th_crowd_rt *c, const th_goal_state *s,
                           th_vec2 p, th_vec2 *out, uint32_t max, float *metres) {
    const uint32_t last = c->route_mode == TH_ROUTE_ONCE ? c->route_count - 1u : s->index;
    float m = 0.0f;
    uint32_t n = 0;
    th_vec2 from = p;
    for (uint32_t i = s->index; i <= last; i++) {
        if (out && n == max) return UINT32_MAX - 1u;
        const th_vec2 d =
            th_min_image(th_v2_sub(c->route[i], from), w->wrap, w->def.width, w->def.height);
        m += th_v2_len(d);
        if (out) out[n] = c->route[i];
        n++;
        from = c->route[i];
    }
    *metres = m;
    return n;
}

/* Where a goal without a field still goes: its own goal's, route_plan or th_mover_plan, or
 * UINT32_MAX. */
static uint32_t plan(const th_world *w, const th_crowd_rt *c, uint32_t slot, th_vec2 p,
                     th_vec2 *out, uint32_t max, float *metres) {
    const th_own_goal *own = th_own_active(w, slot);
    if (own) return th_own_plan(w, own, p, out, max, metres);
    if (c->goal == TH_GOAL_ROUTE)
        return route_plan(w, c, &w->goal_state[slot], p, out, max, metres);
    if (th_mover_kind(c->goal)) return th_mover_plan(&w->goal_state[slot], c, p, out, max, metres);
    return UINT32_MAX;
}

/* The field an agent's goal walks down, or NULL. */
static const th_nav_field *agent_field(const th_world *w, const th_crowd_rt *c, uint32_t slot) {
    if (!w->nav.present || th_own_active(w, slot)) return NULL;
    if (c->goal == TH_GOAL_SHELTER) return th_choice_field(w, slot);
    if (c->goal == TH_GOAL_DESTINATIONS)
        return c->congestion ? &w->cong[c->congestion - 1].field : &w->nav.dest[c->goal_field];
    return NULL;
}

float th_world_agent_remaining(const th_world *w, th_agent_id id) {
    uint32_t k;
    const th_crowd_rt *c;
    if (!find(w, id, &k, &c, NULL)) return INFINITY;
    const th_agents *a = &w->buf[w->cur];
    const th_vec2 p = th_v2(a->px[k], a->py[k]);
    const uint32_t slot = th_id_slot(id);
    const th_nav_field *f = agent_field(w, c, slot);
    if (f) {
        float m;
        return th_field_metres(&w->nav.map, f->dist, p, &m) ? m : INFINITY;
    }
    float m;
    return plan(w, c, slot, p, NULL, 0, &m) < UINT32_MAX - 1u ? m : INFINITY;
}

bool th_world_agent_path(th_world *w, th_agent_id id, th_vec2 *out, uint32_t max, uint32_t *count,
                         th_error *err) {
    uint32_t k;
    const th_crowd_rt *c;
    if (!out || !count) {
        th_error_set(err, TH_ERR_INVALID, "agent path: no output or no count");
        return false;
    }
    *count = 0;
    if (!find(w, id, &k, &c, err)) return false;
    if (max < 1) {
        th_error_set(err, TH_ERR_LIMIT, "the path needs room for at least its start");
        return false;
    }
    const th_agents *a = &w->buf[w->cur];
    const th_vec2 p = th_v2(a->px[k], a->py[k]);
    const uint32_t slot = th_id_slot(id);
    out[0] = p;
    const th_nav_field *f = agent_field(w, c, slot);
    if (f) {
        if (w->step == 0) {
            th_error_set(err, TH_ERR_STATE, "fields are built by the first step");
            return false;
        }
        /* The cell path down the field, then string-pulled, in the world's path memory. */
        if (w->stepping) {
            th_error_set(err, TH_ERR_STATE, "an agent's path is asked between steps");
            return false;
        }
        if (!th_nav_path_ready(w, err)) return false;
        const th_navmap *m = &w->nav.map;
        uint32_t *cells = w->nav.path;
        th_vec2 *pulled = w->nav.waypoints;
        int32_t x, y;
        th_navmap_cell_of(m, p, &x, &y);
        uint32_t len = 0;
        for (;;) {
            const uint32_t cell = (uint32_t)y * (uint32_t)m->w + (uint32_t)x;
            const uint8_t d = f->descent[cell];
            if (d == TH_NAV_DESCENT_UNREACHABLE || len == m->ncells) {
                th_error_set(err, TH_ERR_UNREACHABLE, "no goal can be reached from cell (%d, %d)",
                             x, y);
                return false;
            }
            cells[len++] = cell;
            if (d == TH_NAV_DESCENT_GOAL) break;
            const uint32_t next = th_navmap_step(m, cell, d);
            x = (int32_t)(next % (uint32_t)m->w);
            y = (int32_t)(next / (uint32_t)m->w);
        }
        const uint32_t n = th_nav_string_pull(m, cells, len, pulled);
        /* The start is the agent itself, not its cell's centre. */
        if (n > max) {
            th_error_set(err, TH_ERR_LIMIT, "the path is longer than the %u points given room for",
                         max);
            return false;
        }
        for (uint32_t i = 1; i < n; i++) out[i] = pulled[i];
        *count = n > 0 ? n : 1;
        return true;
    }
    float metres;
    const uint32_t n = plan(w, c, slot, p, out + 1, max - 1, &metres);
    if (n == UINT32_MAX - 1u) {
        th_error_set(err, TH_ERR_LIMIT, "the path is longer than the %u points given room for",
                     max);
        return false;
    }
    if (n == UINT32_MAX) {
        th_error_set(err, TH_ERR_STATE, "agent %u's goal has no end to walk to", id.index1);
        return false;
    }
    *count = n + 1;
    return true;
}

bool th_world_set_agent_speed(th_world *w, th_agent_id id, float speed, th_error *err) {
    uint32_t k;
    const th_crowd_rt *c;
    if (!find(w, id, &k, &c, err)) return false;
    if (w->stepping) {
        th_error_set(err, TH_ERR_STATE, "an agent's speed is set between steps");
        return false;
    }
    if (!c->ped) {
        th_error_set(err, TH_ERR_STATE,
                     "agent %u is a boid: its crowd's max_speed is its speed (own speeds are "
                     "pedestrians')",
                     id.index1);
        return false;
    }
    if (!(isfinite(speed) && speed > 0.0f && speed <= c->max_speed)) {
        th_error_set(err, TH_ERR_INVALID,
                     "speed must be in (0, %g] m/s (its crowd's max_speed), got %g",
                     (double)c->max_speed, (double)speed);
        return false;
    }
    w->desired_speed[th_id_slot(id)] = speed;
    return true;
}
