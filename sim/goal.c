/* Crowd goals: where each agent wants to go, as a unit direction that both crowd models read.
 *
 * A goal is a crowd's, its progress an agent's. Shelter and destinations read a precomputed
 * field (the river maps of sim/navfield.c), so they need no state of their own: the direction
 * is the field's flow where the agent stands. Routes and wandering keep a little state per
 * agent id (th_goal_state): which waypoint is next, which heading. That state is written only
 * in integration, by the worker integrating that agent, and read by the same agent's steering
 * in the next step, so the result is the same for any thread count.
 *
 * The direction is model-independent: boids turn it into a steering term (desired velocity
 * dir * max_speed, weighted by flow_weight; sim/world_nav.c th_nav_steer), pedestrians take it
 * as their desired walking direction e0 (sim/ped.c). */
#include <math.h>
#include <string.h>

#include "../engine/alloc.h"
#include "../engine/rng.h"
#include "world_internal.h"

/* Key of the wander heading's random draws (engine/rng.h: keyed by seed, this | id, step). */
#define WANDER_KEY 0x57a4de0000000000ull

static const float k_pi = 3.14159265358979f;

bool th_goal_setup(const th_world *w, const th_goal_def *g, th_crowd_rt *c, th_vec2 **route_copy,
                   th_error *err) {
    *route_copy = NULL;
    c->goal = g->kind;
    c->goal_field = 0;
    c->route = NULL;
    c->route_count = 0;
    c->route_mode = TH_ROUTE_ONCE;
    c->route_r2 = 0.0f;
    c->wander_sigma = 0.0f;
    c->mover = NULL;
    switch (g->kind) {
    case TH_GOAL_NONE:
        return true;
    case TH_GOAL_SHELTER:
        if (!w->nav.present) {
            th_error_set(err, "goal shelter needs a terrain map with bunkers");
            return false;
        }
        return true;
    case TH_GOAL_DESTINATIONS:
        if (g->field >= w->nav.dest_count) {
            th_error_set(err, "goal destinations: no destination field %u (the world has %u)",
                         g->field, w->nav.dest_count);
            return false;
        }
        c->goal_field = g->field;
        return true;
    case TH_GOAL_ROUTE: {
        if (!g->points || g->point_count < 1 || g->point_count > TH_MAX_ROUTE_POINTS) {
            th_error_set(err, "goal route needs 1 to %d waypoints, got %u", TH_MAX_ROUTE_POINTS,
                         g->points ? g->point_count : 0u);
            return false;
        }
        if (g->mode != TH_ROUTE_ONCE && g->mode != TH_ROUTE_LOOP && g->mode != TH_ROUTE_PATROL) {
            th_error_set(err, "goal route: unknown mode %d", (int)g->mode);
            return false;
        }
        const float r = g->radius == 0.0f ? 1.0f : g->radius;
        if (!(isfinite(r) && r > 0.0f && r <= 1000.0f)) {
            th_error_set(err, "goal route: radius must be in (0, 1000] metres, got %g",
                         (double)g->radius);
            return false;
        }
        for (uint32_t i = 0; i < g->point_count; i++) {
            th_vec2 q = g->points[i];
            if (!(q.x >= 0.0f && q.x < w->def.width && q.y >= 0.0f && q.y < w->def.height)) {
                th_error_set(err, "goal route: waypoint %u (%g, %g) is outside the world [0, %g) x "
                             "[0, %g)", i, (double)q.x, (double)q.y, (double)w->def.width,
                             (double)w->def.height);
                return false;
            }
            if (w->nav.present && th_navmap_blocked_at(&w->nav.map, q)) {
                th_error_set(err, "goal route: waypoint %u (%g, %g) is inside a wall", i,
                             (double)q.x, (double)q.y);
                return false;
            }
        }
        th_vec2 *copy = th_alloc(g->point_count * sizeof *copy);
        if (!copy) {
            th_error_set(err, "out of memory");
            return false;
        }
        memcpy(copy, g->points, g->point_count * sizeof *copy);
        *route_copy = copy;
        c->route = copy;
        c->route_count = g->point_count;
        c->route_mode = g->mode;
        c->route_r2 = r * r;
        return true;
    }
    case TH_GOAL_WANDER: {
        const float rate = g->wander_rate == 0.0f ? 90.0f : g->wander_rate;
        if (!(isfinite(rate) && rate > 0.0f && rate <= 10000.0f)) {
            th_error_set(err, "goal wander: wander_rate must be in (0, 10000] degrees per "
                         "square-root second, got %g", (double)g->wander_rate);
            return false;
        }
        /* A random walk of the angle: its spread grows as rate * sqrt(time), so one step of dt
         * draws a deviate of rate * sqrt(dt). */
        c->wander_sigma = rate * (k_pi / 180.0f) * sqrtf(w->def.timestep);
        return true;
    }
    case TH_GOAL_CRASH_AND_TURN:
    case TH_GOAL_WALL_FOLLOW:
    case TH_GOAL_BREADCRUMBS:
    case TH_GOAL_WAYPOINTS:
        return th_mover_setup(w, g, c, route_copy, err);
    }
    th_error_set(err, "unknown goal kind %d", (int)g->kind);
    return false;
}

void th_goal_agent_added(th_world *w, th_agent_id id, const th_crowd_rt *c, th_vec2 v) {
    if (!w->goal_state) return;
    th_goal_state *s = &w->goal_state[id];
    *s = (th_goal_state){.index = 0, .dir = 1};
    if (c->goal == TH_GOAL_WANDER) {
        /* Start along the initial velocity, or in a random direction when standing. */
        s->angle = v.x != 0.0f || v.y != 0.0f
                       ? atan2f(v.y, v.x)
                       : th_rng_range(w->def.seed, WANDER_KEY | id, UINT64_MAX, -k_pi, k_pi);
    }
    if (th_mover_kind(c->goal)) th_mover_agent_added(w, s, c, v);
}

bool th_goal_direction(const th_world *w, th_agent_id id, const th_crowd_rt *c, th_vec2 p,
                       th_vec2 *dir) {
    *dir = th_v2(0.0f, 0.0f);
    switch (c->goal) {
    case TH_GOAL_NONE:
        return true;
    case TH_GOAL_SHELTER:
        return th_nav_flow_sample(&w->nav.combined.nearest, &w->nav.map, p, dir);
    case TH_GOAL_DESTINATIONS:
        return th_nav_flow_sample(&w->nav.dest[c->goal_field], &w->nav.map, p, dir);
    case TH_GOAL_ROUTE: {
        const th_goal_state *s = &w->goal_state[id];
        th_vec2 d = th_min_image(th_v2_sub(c->route[s->index], p), w->wrap, w->def.width,
                                 w->def.height);
        /* The last waypoint of a route walked once is held, not circled: inside its radius the
         * agent wants to go nowhere. */
        if (c->route_mode == TH_ROUTE_ONCE && s->index + 1 == c->route_count &&
            th_v2_len2(d) <= c->route_r2)
            return true;
        *dir = th_v2_norm(d);
        return true;
    }
    case TH_GOAL_WANDER: {
        const float a = w->goal_state[id].angle;
        *dir = th_v2(cosf(a), sinf(a));
        return true;
    }
    case TH_GOAL_CRASH_AND_TURN:
    case TH_GOAL_WALL_FOLLOW:
    case TH_GOAL_BREADCRUMBS:
    case TH_GOAL_WAYPOINTS:
        return th_mover_direction(w, &w->goal_state[id], c, p, dir);
    }
    return true;
}

const uint32_t *th_goal_cost_field(const th_world *w, const th_crowd_rt *c) {
    if (!w->nav.present) return NULL;
    if (c->goal == TH_GOAL_SHELTER) return w->nav.combined.nearest.dist;
    if (c->goal == TH_GOAL_DESTINATIONS) return w->nav.dest[c->goal_field].dist;
    return NULL;
}

/* Route progress: on reaching waypoint `index`, the next by the route's mode. */
static void route_advance(const th_crowd_rt *c, th_goal_state *s) {
    const uint32_t n = c->route_count;
    if (n == 1) return;
    switch (c->route_mode) {
    case TH_ROUTE_ONCE:
        if (s->index + 1 < n) s->index++;
        break;
    case TH_ROUTE_LOOP:
        s->index = s->index + 1 < n ? s->index + 1 : 0;
        break;
    case TH_ROUTE_PATROL:
        if ((s->dir > 0 && s->index + 1 == n) || (s->dir < 0 && s->index == 0)) s->dir = -s->dir;
        s->index = (uint32_t)((int32_t)s->index + s->dir);
        break;
    }
}

void th_goal_moved(th_world *w, th_agent_id id, const th_crowd_rt *c, th_vec2 p, th_vec2 v) {
    th_goal_state *s = &w->goal_state[id];
    if (c->goal == TH_GOAL_ROUTE) {
        th_vec2 d = th_min_image(th_v2_sub(c->route[s->index], p), w->wrap, w->def.width,
                                 w->def.height);
        if (th_v2_len2(d) <= c->route_r2) route_advance(c, s);
    } else if (c->goal == TH_GOAL_WANDER) {
        /* Uniform on [-sqrt 3, sqrt 3]: variance 1, and one draw per step. */
        const float z = th_rng_range(w->def.seed, WANDER_KEY | id, w->step, -1.7320508f, 1.7320508f);
        float a = s->angle;
        /* Turned back by a wall or the world's edge: take the way it is actually going, or it
         * would keep pressing against the wall. */
        if (v.x * cosf(a) + v.y * sinf(a) < 0.0f) a = atan2f(v.y, v.x);
        a += c->wander_sigma * z;
        if (a > k_pi) a -= 2.0f * k_pi;
        else if (a < -k_pi) a += 2.0f * k_pi;
        s->angle = a;
    } else if (th_mover_kind(c->goal)) {
        th_mover_moved(w, s, c, p, v);
    }
}
