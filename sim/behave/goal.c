/* Crowd goals: where each agent wants to go, as a unit direction that both crowd models read.
 *
 * A goal is a crowd's, its progress an agent's. Shelter and destinations read a precomputed
 * field (the river maps of sim/nav/navfield.c), so they need no state of their own: the direction
 * is the field's flow where the agent stands. Routes and wandering keep a little state per
 * agent id (th_goal_state): which waypoint is next, which heading. That state is written only
 * in integration, by the worker integrating that agent, and read by the same agent's steering
 * in the next step, so the result is the same for any thread count.
 *
 * The direction is model-independent: boids turn it into a steering term (desired velocity
 * dir * max_speed, weighted by flow_weight; th_goal_steer), pedestrians take it
 * as their desired walking direction e0 (sim/behave/ped.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/alloc.h"
#include "engine/rng.h"
#include "sim/behave/elevator.h"
#include "sim/behave/choice.h"
#include "sim/behave/own_goal.h"
#include "sim/behave/forage.h"
#include "sim/behave/goal.h"
#include "sim/behave/movers.h"
#include "sim/core/world.h"
#include "sim/dist/dist.h"

/* Key of the wander heading's random draws (engine/rng.h: keyed by seed, this | id, step). */
#define WANDER_KEY       0x57a4de0000000000ull
/* A wandering pedestrian at a wall whose heading points into it more steeply than 45 degrees
 * (the cosine between the heading and the way out below -WANDER_INTO_WALL) turns off it. */
#define WANDER_INTO_WALL 0.70710678f

static const float k_pi = 3.14159265358979f;

static bool map_blocked(const void *ctx, int32_t x, int32_t y) {
    return th_navmap_is_blocked(ctx, x, y);
}

/* Amanatides and Woo's grid traversal ("A fast voxel traversal algorithm", Eurographics 1987):
 * the cells the segment passes through, in order. Where it passes exactly through a grid corner
 * both side cells count as touched, as in th_nav_line_of_sight (no squeezing between two walls
 * that meet at a corner). */
bool th_goal_leg_blocked(th_vec2 a, th_vec2 b, float cell, int32_t cols, int32_t rows, bool wrap,
                         bool (*blocked)(const void *ctx, int32_t x, int32_t y), const void *ctx,
                         int32_t *bx, int32_t *by) {
    const double inv = 1.0 / (double)cell;
    double dxm = (double)b.x - (double)a.x, dym = (double)b.y - (double)a.y;
    if (wrap) { /* the short way round, as th_min_image */
        const double W = (double)cols * cell, H = (double)rows * cell;
        if (dxm > 0.5 * W) dxm -= W;
        else if (dxm < -0.5 * W) dxm += W;
        if (dym > 0.5 * H) dym -= H;
        else if (dym < -0.5 * H) dym += H;
    }
    const double x0 = a.x * inv, y0 = a.y * inv, x1 = x0 + dxm * inv, y1 = y0 + dym * inv;
    int32_t cx = (int32_t)floor(x0), cy = (int32_t)floor(y0);
    const int32_t ex = (int32_t)floor(x1), ey = (int32_t)floor(y1);
    const int32_t sx = x1 > x0 ? 1 : -1, sy = y1 > y0 ? 1 : -1;
    const double dx = fabs(x1 - x0), dy = fabs(y1 - y0);
    double tdx = dx > 0.0 ? 1.0 / dx : INFINITY, tdy = dy > 0.0 ? 1.0 / dy : INFINITY;
    double tx = dx > 0.0 ? (sx > 0 ? floor(x0) + 1.0 - x0 : x0 - floor(x0)) * tdx : INFINITY;
    double ty = dy > 0.0 ? (sy > 0 ? floor(y0) + 1.0 - y0 : y0 - floor(y0)) * tdy : INFINITY;
#define TOUCH(X, Y)                           \
    do {                                      \
        int32_t X_ = (X), Y_ = (Y);           \
        if (wrap) {                           \
            X_ = ((X_ % cols) + cols) % cols; \
            Y_ = ((Y_ % rows) + rows) % rows; \
        }                                     \
        if (blocked(ctx, X_, Y_)) {           \
            *bx = X_;                         \
            *by = Y_;                         \
            return true;                      \
        }                                     \
    } while (0)
    TOUCH(cx, cy);
    /* Each move enters one new cell (two at a corner), so the end cell is at most this many
     * moves away; the bound also stops the walk should rounding step past it. */
    int64_t left = (int64_t)abs(ex - cx) + (int64_t)abs(ey - cy);
    while (left-- > 0 && (cx != ex || cy != ey)) {
        if (tx < ty) {
            cx += sx;
            tx += tdx;
        } else if (ty < tx) {
            cy += sy;
            ty += tdy;
        } else { /* through a corner */
            TOUCH(cx + sx, cy);
            TOUCH(cx, cy + sy);
            cx += sx;
            cy += sy;
            tx += tdx;
            ty += tdy;
            left--;
        }
        TOUCH(cx, cy);
    }
#undef TOUCH
    return false;
}

/* The wander rate of a wandering (or foraging) goal, checked, as the spread of one step's turn:
 * a random walk of the angle spreads as rate * sqrt(time), so one step of dt draws a deviate of
 * rate * sqrt(dt). */
static bool wander_setup(const th_world *w, const th_goal_def *g, const char *kind, th_crowd_rt *c,
                         th_error *err) {
    const float rate = g->wander_rate == 0.0f ? 90.0f : g->wander_rate;
    if (!(isfinite(rate) && rate > 0.0f && rate <= 10000.0f)) {
        th_error_set(err, TH_ERR_INVALID,
                     "goal %s: wander_rate must be in (0, 10000] degrees per square-root second, "
                     "got %g",
                     kind, (double)g->wander_rate);
        return false;
    }
    c->wander_sigma = rate * (k_pi / 180.0f) * sqrtf(w->def.timestep);
    return true;
}

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
    c->congestion = 0;
    if (g->congestion_weight != 0.0f || g->congestion_every != 0) {
        if (g->kind != TH_GOAL_DESTINATIONS) {
            th_error_set(err, TH_ERR_INVALID, "congestion applies to the destinations goal only");
            return false;
        }
        if (!(isfinite(g->congestion_weight) && g->congestion_weight >= 0.0f &&
              g->congestion_weight <= 100.0f) ||
            g->congestion_every > 100000u) {
            th_error_set(err, TH_ERR_INVALID,
                         "goal destinations: congestion weight must be in [0, 100] square "
                         "metres per person and every in [1, 100000] steps, got %g and %u",
                         (double)g->congestion_weight, g->congestion_every);
            return false;
        }
    }
    switch (g->kind) {
    case TH_GOAL_NONE: return true;
    case TH_GOAL_SHELTER:
        if (!w->nav.present) {
            th_error_set(err, TH_ERR_STATE, "goal shelter needs a terrain map with bunkers");
            return false;
        }
        return true;
    case TH_GOAL_DESTINATIONS:
        if (!g->field.index1) {
            th_error_set(err, TH_ERR_HANDLE,
                         "goal destinations: no destination field given (null handle)");
            return false;
        }
        if (TH_INDEX(g->field) >= w->nav.dest_count) {
            th_error_set(err, TH_ERR_HANDLE,
                         "goal destinations: no destination field %u (the world has %u)",
                         TH_INDEX(g->field), w->nav.dest_count);
            return false;
        }
        c->goal_field = TH_INDEX(g->field);
        return true;
    case TH_GOAL_ROUTE: {
        if (!g->points || g->point_count < 1 || g->point_count > TH_MAX_ROUTE_POINTS) {
            th_error_set(err, TH_ERR_INVALID, "goal route needs 1 to %d waypoints, got %u",
                         TH_MAX_ROUTE_POINTS, g->points ? g->point_count : 0u);
            return false;
        }
        if (g->mode != TH_ROUTE_ONCE && g->mode != TH_ROUTE_LOOP && g->mode != TH_ROUTE_PATROL) {
            th_error_set(err, TH_ERR_INVALID, "goal route: unknown mode %d", (int)g->mode);
            return false;
        }
        const float r = g->radius == 0.0f ? 1.0f : g->radius;
        if (!(isfinite(r) && r > 0.0f && r <= 1000.0f)) {
            th_error_set(err, TH_ERR_INVALID,
                         "goal route: radius must be in (0, 1000] metres, got %g",
                         (double)g->radius);
            return false;
        }
        for (uint32_t i = 0; i < g->point_count; i++) {
            th_vec2 q = g->points[i];
            if (!(q.x >= 0.0f && q.x < w->def.width && q.y >= 0.0f && q.y < w->def.height)) {
                th_error_set(err, th_error_point_code(q),
                             "goal route: waypoint %u (%g, %g) is outside the world [0, %g) x "
                             "[0, %g)",
                             i, (double)q.x, (double)q.y, (double)w->def.width,
                             (double)w->def.height);
                return false;
            }
            if (w->nav.present && th_navmap_blocked_at(&w->nav.map, q)) {
                th_error_set(err, TH_ERR_BLOCKED,
                             "goal route: waypoint %u (%g, %g) is inside a wall", i, (double)q.x,
                             (double)q.y);
                return false;
            }
        }
        /* Agents walk each leg straight (they do not path-find between waypoints), so a leg
         * through a wall is a route nobody can walk: refuse it here rather than leave agents
         * pressed against the wall. A loop also walks back from the last to the first. */
        const uint32_t legs =
            g->point_count - 1u + (g->mode == TH_ROUTE_LOOP && g->point_count > 2u);
        for (uint32_t i = 0; w->nav.present && i < legs; i++) {
            const uint32_t j = (i + 1u) % g->point_count;
            int32_t bx, by;
            if (th_goal_leg_blocked(g->points[i], g->points[j], w->nav.map.cell_size, w->nav.map.w,
                                    w->nav.map.h, w->wrap, map_blocked, &w->nav.map, &bx, &by)) {
                th_error_set(err, TH_ERR_BLOCKED,
                             "goal route: the leg from waypoint %u (%g, %g) to waypoint %u "
                             "(%g, %g) crosses blocked cell (%d, %d)",
                             i, (double)g->points[i].x, (double)g->points[i].y, j,
                             (double)g->points[j].x, (double)g->points[j].y, bx, by);
                return false;
            }
        }
        th_vec2 *copy = th_alloc(g->point_count * sizeof *copy);
        if (!copy) {
            th_error_set(err, TH_ERR_NOMEM, "out of memory");
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
    case TH_GOAL_WANDER: return wander_setup(w, g, "wander", c, err);
    case TH_GOAL_CRASH_AND_TURN:
    case TH_GOAL_WALL_FOLLOW:
    case TH_GOAL_BREADCRUMBS:
    case TH_GOAL_WAYPOINTS: return th_mover_setup(w, g, c, route_copy, err);
    case TH_GOAL_FORAGE: {
        /* Searching ants drift as wanderers do (sim/behave/forage.c). */
        return wander_setup(w, g, "forage", c, err) && th_forage_check(w, g, err);
    }
    }
    th_error_set(err, TH_ERR_INVALID, "unknown goal kind %d", (int)g->kind);
    return false;
}

void th_goal_agent_added(th_world *w, th_agent_id id, const th_crowd_rt *c, th_vec2 v) {
    if (!w->goal_state) return;
    th_goal_state *s = &w->goal_state[th_id_slot(id)];
    *s = (th_goal_state){.index = 0, .dir = 1};
    if (c->goal == TH_GOAL_WANDER) {
        /* Start along the initial velocity, or in a random direction when standing. */
        s->angle =
            v.x != 0.0f || v.y != 0.0f
                ? atan2f(v.y, v.x)
                : th_rng_range(w->def.seed, WANDER_KEY ^ th_agent_key(id), UINT64_MAX, -k_pi, k_pi);
    }
    if (th_mover_kind(c->goal)) th_mover_agent_added(w, s, c, v);
    if (c->goal == TH_GOAL_FORAGE) th_forage_agent_added(w, id, v);
}

bool th_goal_direction(const th_world *w, th_agent_id id, const th_crowd_rt *c, th_vec2 p,
                       th_vec2 *dir) {
    *dir = th_v2(0.0f, 0.0f);
    const th_own_goal *own = th_own_active(w, th_id_slot(id));
    if (own) return th_own_direction(w, own, p, dir);
    const th_nav_field *lift = th_lift_field(w, c, th_id_slot(id), p);
    if (lift) return th_nav_flow_sample(lift, &w->nav.map, p, dir);
    switch (c->goal) {
    case TH_GOAL_NONE: return true;
    case TH_GOAL_SHELTER:
        return th_nav_flow_sample(th_choice_field(w, th_id_slot(id)), &w->nav.map, p, dir);
    case TH_GOAL_DESTINATIONS:
        return th_nav_flow_sample(c->congestion ? &w->cong[c->congestion - 1].field
                                                : &w->nav.dest[c->goal_field],
                                  &w->nav.map, p, dir);
    case TH_GOAL_ROUTE: {
        const th_goal_state *s = &w->goal_state[th_id_slot(id)];
        th_vec2 d =
            th_min_image(th_v2_sub(c->route[s->index], p), w->wrap, w->def.width, w->def.height);
        /* The last waypoint of a route walked once is held, not circled: inside its radius the
         * agent wants to go nowhere. */
        if (c->route_mode == TH_ROUTE_ONCE && s->index + 1 == c->route_count &&
            th_v2_len2(d) <= c->route_r2)
            return true;
        *dir = th_v2_norm(d);
        return true;
    }
    case TH_GOAL_WANDER: {
        const float a = w->goal_state[th_id_slot(id)].angle;
        *dir = th_v2(cosf(a), sinf(a));
        return true;
    }
    case TH_GOAL_CRASH_AND_TURN:
    case TH_GOAL_WALL_FOLLOW:
    case TH_GOAL_BREADCRUMBS:
    case TH_GOAL_WAYPOINTS: return th_mover_direction(w, &w->goal_state[th_id_slot(id)], c, p, dir);
    case TH_GOAL_FORAGE: return th_forage_direction(w, id, c, p, dir);
    }
    return true;
}

th_vec2 th_goal_steer(const th_world *w, th_agent_id id, const th_crowd_rt *c, th_vec2 p, th_vec2 v,
                      bool *stranded) {
    th_vec2 acc = th_v2(0.0f, 0.0f);
    *stranded = false;
    if (c->goal != TH_GOAL_NONE || th_own_active(w, th_id_slot(id))) {
        th_vec2 dir;
        bool route = th_goal_direction(w, id, c, p, &dir);
        /* No route: stay put (brake) rather than wander into a dead end. */
        th_vec2 desired = route ? th_v2_scale(dir, c->max_speed) : th_v2(0.0f, 0.0f);
        th_vec2 f = th_v2_clamp_len(th_v2_sub(desired, v), c->max_force);
        acc = th_v2_scale(f, c->w_flow);
        *stranded = !route;
    }
    th_vec2 push;
    if (th_goal_wall_push(w, c, p, &push)) acc = th_v2_add(acc, push);
    return acc;
}

bool th_goal_wall_push(const th_world *w, const th_crowd_rt *c, th_vec2 p, th_vec2 *push) {
    const th_world_nav *n = &w->nav;
    if (!n->present || !(c->w_wall > 0.0f)) return false;
    /* A cell walker's rules keep it off walls: it aims at the centres of open cells, and a push
     * off the wall beside them would hold it short of them on a fine map, or of the wall it
     * must meet to turn. */
    if (c->goal == TH_GOAL_CRASH_AND_TURN || c->goal == TH_GOAL_WALL_FOLLOW) return false;
    th_vec2 away;
    /* The distance field sees walls past the map's edges; a wrap-around world has none. */
    float d = c->wall_radius;
    if (!w->wrap) d = th_navmap_wall_sample(&n->map, p, &away);
    else if (!th_nav_nearest_wall(w, p, c->wall_radius, &d, &away)) d = c->wall_radius;
    if (!(d < c->wall_radius)) return false;
    *push = th_v2_scale(away, c->max_force * (1.0f - d / c->wall_radius) * c->w_wall);
    return true;
}

void th_goal_agent_placed(th_world *w, th_agent_id id, const th_crowd_rt *c) {
    if (!w->goal_state || !th_mover_kind(c->goal)) return;
    th_goal_state *s = &w->goal_state[th_id_slot(id)];
    *s = (th_goal_state){.index = 0, .dir = 1};
    th_mover_agent_added(w, s, c, th_v2(0.0f, 0.0f));
}

const uint32_t *th_goal_agent_cost_field(const th_world *w, const th_crowd_rt *c, uint32_t slot,
                                         th_vec2 p) {
    if (th_own_active(w, slot)) return NULL; /* its own goal has no field */
    if (c->lift) {
        /* On its way to an elevator: the stop's field. */
        const th_nav_field *f = th_lift_field(w, c, slot, p);
        if (f) return f->dist;
    }
    if (w->nav.present && c->goal == TH_GOAL_SHELTER) return th_choice_field(w, slot)->dist;
    return th_goal_cost_field(w, c);
}

const uint32_t *th_goal_cost_field(const th_world *w, const th_crowd_rt *c) {
    if (!w->nav.present) return NULL;
    if (c->goal == TH_GOAL_SHELTER) return w->nav.combined.nearest.dist;
    if (c->goal == TH_GOAL_DESTINATIONS)
        return c->congestion ? w->cong[c->congestion - 1].field.dist
                             : w->nav.dest[c->goal_field].dist;
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
    case TH_ROUTE_LOOP: s->index = s->index + 1 < n ? s->index + 1 : 0; break;
    case TH_ROUTE_PATROL:
        if ((s->dir > 0 && s->index + 1 == n) || (s->dir < 0 && s->index == 0)) s->dir = -s->dir;
        s->index = (uint32_t)((int32_t)s->index + s->dir);
        break;
    }
}

void th_goal_moved(th_world *w, th_agent_id id, const th_crowd_rt *c, th_vec2 p, th_vec2 v) {
    th_goal_state *s = &w->goal_state[th_id_slot(id)];
    if (c->goal == TH_GOAL_ROUTE) {
        th_vec2 d =
            th_min_image(th_v2_sub(c->route[s->index], p), w->wrap, w->def.width, w->def.height);
        if (th_v2_len2(d) <= c->route_r2) route_advance(c, s);
    } else if (c->goal == TH_GOAL_WANDER) {
        /* Uniform on [-sqrt 3, sqrt 3]: variance 1, and one draw per step. */
        const float z = th_rng_range(w->def.seed, WANDER_KEY ^ th_agent_key(id), w->step,
                                     -1.7320508f, 1.7320508f);
        float a = s->angle;
        const th_vec2 h = th_v2(cosf(a), sinf(a));
        /* Turned back by a wall or the world's edge: take the way it is actually going, or it
         * would keep pressing against the wall. A pedestrian at a wall that its wall model
         * pushes back, or that heads into the wall more steeply than 45 degrees (head-on, or
         * into a corner, where it would stand still pressing on), turns off the walls instead,
         * along the wall distance's gradient, which in a corner points out of it (the sampled
         * distance is within a cell of the true one): taking its recoil as the heading would
         * send it back into the wall the next step. One that meets a wall at a shallower angle
         * slides along it. */
        const float along = th_v2_dot(v, h);
        th_vec2 away = th_v2(0.0f, 0.0f);
        if (c->ped && w->nav.present && !w->wrap &&
            (th_navmap_wall_sample(&w->nav.map, p, &away) >= c->radius + w->nav.map.cell_size ||
             (along >= 0.0f && th_v2_dot(h, away) > -WANDER_INTO_WALL))) {
            away = th_v2(0.0f, 0.0f);
        }
        if (th_v2_len2(away) > 0.0f) a = atan2f(away.y, away.x);
        else if (along < 0.0f) a = atan2f(v.y, v.x);
        a += c->wander_sigma * z;
        if (a > k_pi) a -= 2.0f * k_pi;
        else if (a < -k_pi) a += 2.0f * k_pi;
        s->angle = a;
    } else if (th_mover_kind(c->goal)) {
        th_mover_moved(w, s, c, p, v);
    } else if (c->goal == TH_GOAL_FORAGE) {
        th_forage_moved(w, id, c, p, v);
    }
}

/* ---- congestion-aware destinations ---------------------------------------------------------
 *
 * Hughes (2002, "A continuum theory for the flow of pedestrians", Transportation Research B 36)
 * has pedestrians walk down a potential whose cost per metre is 1 / f(rho), the inverse of the
 * speed the local density allows: routing through a crowd costs the time it takes. Kretz (2009,
 * "Pedestrian traffic: on the quickest path", J. Stat. Mech. P03012) computes such a dynamic
 * potential on a grid from the current density and recomputes it as the crowd moves. Here the
 * cost of a cell is its terrain cost times (1 + weight * rho), rho the agents in the cell per
 * square metre: 1 / f(rho) for a speed that falls as v0 / (1 + weight * rho), the first-order
 * form of any speed-density relation near free flow. The counts are integers and the cost is a
 * function of the count alone, so the field is the same for any thread count; it is recomputed
 * from the start of every `every`-th step, a dynamic potential that lags the crowd by at most
 * that long. */

bool th_goal_congestion_add(th_world *w, const th_goal_def *g, th_crowd_rt *c, th_error *err) {
    c->congestion = 0;
    if (g->kind != TH_GOAL_DESTINATIONS || g->congestion_weight == 0.0f) return true;
    const th_navmap *m = &w->nav.map;
    if (!w->cell_agents && !(w->cell_agents = th_calloc(m->ncells, sizeof *w->cell_agents))) {
        th_error_set(err, TH_ERR_NOMEM, "out of memory");
        return false;
    }
    th_congestion *k = &w->cong[w->cong_count];
    *k = (th_congestion){.source = TH_INDEX(g->field),
                         .every = g->congestion_every ? g->congestion_every : 10u,
                         .weight = g->congestion_weight};
    /* Costs are integers in [1, TH_NAV_COST_MAX]: scaled by up to 10, a raise of a tenth of a
     * cell's cost (one person in a 1 m cell at weight 0.1) still shows, while the dearest
     * terrain of the map as it is now stays below the bound (dearer cells set later clip). */
    uint32_t top = TH_NAV_COST_MAX;
    while (top > 1 && m->cost_count[top] == 0) top--;
    k->scale = TH_NAV_COST_MAX / top < 10u ? TH_NAV_COST_MAX / top : 10u;
    const th_nav_field *src = &w->nav.dest[TH_INDEX(g->field)];
    k->cost = th_alloc(m->ncells * sizeof *k->cost);
    if (!k->cost || th_nav_field_init(&k->field, m, src->goal_count) != TH_NAV_OK) {
        th_free(k->cost);
        th_nav_field_free(&k->field);
        th_error_set(err, TH_ERR_NOMEM, "out of memory for a congestion field");
        return false;
    }
    /* The source's goals, weights scaled like the costs (their order is kept: scaling is
     * monotone, and the bound is far above any weight a scene can give). */
    for (uint32_t i = 0; i < src->goal_count; i++) {
        th_nav_goal q = src->goals[i];
        const uint64_t wt = (uint64_t)q.weight * k->scale;
        q.weight = wt > TH_NAV_MAX_WEIGHT ? TH_NAV_MAX_WEIGHT : (uint32_t)wt;
        k->field.goals[i] = q;
    }
    k->field.goal_count = src->goal_count;
    /* Valid from now on: the plain costs, scaled, until the first refresh counts the crowd. */
    for (uint32_t i = 0; i < m->ncells; i++) k->cost[i] = (uint16_t)(m->cost[i] * k->scale);
    th_navmap cm = *m;
    cm.cost = k->cost;
    /* Read only by steps: a world built to be checked leaves it out. */
    const int rc =
        w->checking ? TH_NAV_OK : th_nav_field_compute(&k->field, &cm, w->nav.scratch[0]);
    if (rc != TH_NAV_OK) {
        th_free(k->cost);
        th_nav_field_free(&k->field);
        th_error_set(err, th_nav_error_code(rc), "could not compute the congestion field");
        return false;
    }
    c->congestion = ++w->cong_count;
    return true;
}

void th_goal_congestion_undo(th_world *w, th_crowd_rt *c) {
    if (!c->congestion) return;
    th_congestion *k = &w->cong[--w->cong_count];
    th_free(k->cost);
    th_nav_field_free(&k->field);
    c->congestion = 0;
}

void th_goal_free(th_world *w) {
    for (uint32_t i = 0; i < w->cong_count; i++) {
        th_free(w->cong[i].cost);
        th_nav_field_free(&w->cong[i].field);
    }
    w->cong_count = 0;
    th_free(w->cell_agents);
    w->cell_agents = NULL;
}

typedef struct cong_job {
    th_world *w;
    uint32_t due[TH_MAX_CROWDS];
} cong_job;

/* One congestion field per task: its costs from the shared counts, then Dijkstra on the
 * worker's scratch. Each task writes only its own field. */
static void cong_field_job(void *ctx, uint32_t begin, uint32_t end, uint32_t worker) {
    cong_job *j = ctx;
    th_world *w = j->w;
    const th_navmap *m = &w->nav.map;
    const float inv_area = 1.0f / (m->cell_size * m->cell_size);
    for (uint32_t t = begin; t < end; t++) {
        th_congestion *k = &w->cong[j->due[t]];
        const float per_agent = k->weight * inv_area;
        for (uint32_t i = 0; i < m->ncells; i++) {
            const uint32_t base = m->cost[i] * k->scale;
            if (base == 0) {
                k->cost[i] = 0;
                continue;
            }
            const float raised = (float)base * (1.0f + per_agent * (float)w->cell_agents[i]);
            k->cost[i] = raised >= (float)TH_NAV_COST_MAX ? (uint16_t)TH_NAV_COST_MAX
                                                          : (uint16_t)lrintf(raised);
        }
        th_navmap cm = *m;
        cm.cost = k->cost;
        int rc = th_nav_field_compute(&k->field, &cm, w->nav.scratch[worker]);
        (void)rc; /* sizes and scratch fit the map: it cannot fail */
    }
}

void th_goal_congestion_update(th_world *w, bool map_changed) {
    if (w->cong_count == 0) return;
    cong_job j;
    j.w = w;
    uint32_t n = 0;
    for (uint32_t i = 0; i < w->cong_count; i++) {
        if (map_changed || w->step % w->cong[i].every == 0) j.due[n++] = i;
    }
    if (n == 0) return;
    /* Agents per cell after the last step: an integer count, whatever order they are in. */
    const th_navmap *m = &w->nav.map;
    memset(w->cell_agents, 0, m->ncells * sizeof *w->cell_agents);
    const th_agents *a = &w->buf[w->cur];
    for (uint32_t k = 0; k < w->count; k++) {
        w->cell_agents[th_navmap_cell_of(m, th_v2(a->px[k], a->py[k]), NULL, NULL)]++;
    }
    /* Under several ranks each counted its own agents: the sum over ranks is the count of one
     * process (integers, exact in any order), and every rank then computes the same fields.
     * Every rank reaches this at the same steps: `due` reads only the replicated step, schedule
     * and map state. 4 B per map cell, every `every` steps. */
    th_dist_sum_u32(w, w->cell_agents, m->ncells);
    th_pool_parallel_for(w->pool, n, 1, cong_field_job, &j);
}
