/* Targets and pursuit: what leaders close on, and how.
 *
 * A target is evaluated once at the start of each step (serial), so every leader of that step
 * sees the same position and velocity whichever worker steers it. */
#include <math.h>
#include <string.h>

#include "engine/alloc.h"
#include "sim/behave/behavior.h"
#include "sim/core/world.h"
#include "sim/dist/dist_serial.h"

/* Intercept looks at most this far ahead: a target that outruns its pursuer would otherwise
 * push the aim point out without bound. */
#define INTERCEPT_HORIZON_S 10.0f

static bool finite2(th_vec2 v) { return isfinite(v.x) && isfinite(v.y); }

/* Magnitudes, not just finiteness: a finite 3e38 m/s target velocity made the intercept aim
 * point infinite and the leaders' velocities NaN some steps later. */
static bool valid_point(th_vec2 p) {
    return finite2(p) && fabsf(p.x) <= TH_MAX_COORD && fabsf(p.y) <= TH_MAX_COORD;
}
static bool valid_velocity(th_vec2 v) { return finite2(v) && hypot(v.x, v.y) <= TH_MAX_SPEED; }

static int add_target(th_world *w, const th_target_def *def, th_error *err) {
    if (!th_between_steps(w, err)) return -1;
    if (w->target_count >= TH_MAX_TARGETS) {
        th_error_set(err, TH_ERR_LIMIT, "at most %d targets", TH_MAX_TARGETS);
        return -1;
    }
    th_target_def d = *def;
    th_vec2 *points = NULL;
    switch (d.kind) {
    case TH_TARGET_POINT:
        if (!valid_point(d.position) || !valid_velocity(d.velocity)) {
            th_error_set(err, TH_ERR_INVALID,
                         "a point target needs a position within %g m of the origin on each "
                         "axis and a velocity of at most %g m/s",
                         (double)TH_MAX_COORD, (double)TH_MAX_SPEED);
            return -1;
        }
        break;
    case TH_TARGET_PATH:
        if (!d.points || d.point_count < 1 || d.point_count > TH_MAX_PATH_POINTS ||
            !(isfinite(d.speed) && d.speed >= 0.0f && d.speed <= 1000.0f)) {
            th_error_set(err, TH_ERR_INVALID,
                         "a path target needs 1 to %d points and a speed in [0, 1000] m/s",
                         TH_MAX_PATH_POINTS);
            return -1;
        }
        for (uint32_t i = 0; i < d.point_count; i++) {
            if (!valid_point(d.points[i])) {
                th_error_set(err, TH_ERR_INVALID,
                             "path point %u is not finite or beyond %g m on an axis", i,
                             (double)TH_MAX_COORD);
                return -1;
            }
        }
        points = th_alloc(d.point_count * sizeof *points);
        if (!points) {
            th_error_set(err, TH_ERR_NOMEM, "out of memory");
            return -1;
        }
        memcpy(points, d.points, d.point_count * sizeof *points);
        d.points = points;
        break;
    case TH_TARGET_AGENT:
        /* The agent may be added later (a scene builds targets before crowds); until it exists,
         * and after it is gone, the target is absent and leaders hold their course. A later
         * agent in the same slot has another generation: the target never follows it. */
        if (d.agent.index1 == 0 || d.agent.generation == 0) {
            th_error_set(err, TH_ERR_HANDLE,
                         "agent id %u.%u names no agent: index1 and generation start at 1",
                         d.agent.index1, d.agent.generation);
            return -1;
        }
        if (d.agent.index1 > TH_MAX_AGENTS) {
            th_error_set(err, TH_ERR_HANDLE, "agent id %u.%u is beyond the %u agent bound",
                         d.agent.index1, d.agent.generation, TH_MAX_AGENTS);
            return -1;
        }
        break;
    case TH_TARGET_SHELTER:
        if (!w->nav.present) {
            th_error_set(err, TH_ERR_STATE, "a shelter target needs a terrain map with bunkers");
            return -1;
        }
        break;
    default: th_error_set(err, TH_ERR_INVALID, "unknown target kind %d", (int)d.kind); return -1;
    }
    uint32_t t = w->target_count++;
    w->target_def[t] = d;
    w->target_points[t] = points;
    w->target_valid[t] = false;
    return (int)t;
}

th_target_id th_world_add_target(th_world *w, const th_target_def *def, th_error *err) {
    if (!w || !def) {
        th_error_set(err, TH_ERR_INVALID, "target: no world or no def");
        return (th_target_id){0};
    }
    return th_target_handle(add_target(w, def, err));
}

bool th_world_get_target(const th_world *w, th_target_id handle, th_vec2 *position,
                         th_vec2 *velocity) {
    if (!w) return false;
    const uint32_t target = TH_INDEX(handle);
    if (target >= w->target_count || !w->target_valid[target]) return false;
    if (position) *position = w->target_pos[target];
    if (velocity) *velocity = w->target_vel[target];
    return true;
}

/* Where a path target is after travelling `s` metres along it. */
static void path_at(const th_target_def *d, double s, th_vec2 *pos, th_vec2 *vel) {
    uint32_t n = d->point_count;
    *vel = th_v2(0.0f, 0.0f);
    if (n == 1 || d->speed <= 0.0f) {
        *pos = d->points[0];
        return;
    }
    uint32_t segments = d->loop ? n : n - 1;
    double total = 0.0;
    for (uint32_t i = 0; i < segments; i++) {
        total += th_v2_len(th_v2_sub(d->points[(i + 1) % n], d->points[i]));
    }
    if (total <= 0.0) {
        *pos = d->points[0];
        return;
    }
    if (d->loop) s = fmod(s, total);
    else if (s >= total) {
        *pos = d->points[n - 1];
        return;
    }
    for (uint32_t i = 0; i < segments; i++) {
        th_vec2 a = d->points[i], b = d->points[(i + 1) % n];
        double len = th_v2_len(th_v2_sub(b, a));
        if (s <= len || i + 1 == segments) {
            float t = len > 0.0 ? (float)(s / len) : 0.0f;
            *pos = th_v2_lerp(a, b, t > 1.0f ? 1.0f : t);
            *vel = th_v2_scale(th_v2_norm(th_v2_sub(b, a)), d->speed);
            return;
        }
        s -= len;
    }
}

void th_targets_update(th_world *w) {
    const double time = (double)w->step * (double)w->def.timestep;
    const th_agents *a = &w->buf[w->cur];
    for (uint32_t t = 0; t < w->target_count; t++) {
        const th_target_def *d = &w->target_def[t];
        th_vec2 pos = th_v2(0.0f, 0.0f), vel = pos;
        bool valid = true;
        switch (d->kind) {
        case TH_TARGET_POINT:
            vel = d->velocity;
            pos = th_v2_add(d->position, th_v2_scale(vel, (float)time));
            break;
        case TH_TARGET_PATH: path_at(d, (double)d->speed * time, &pos, &vel); break;
        case TH_TARGET_AGENT: {
            uint32_t k = th_agent_index(w, d->agent);
            valid = k != UINT32_MAX;
            if (valid) {
                pos = th_v2(a->px[k], a->py[k]);
                vel = th_v2(a->vx[k], a->vy[k]);
            }
            break;
        }
        case TH_TARGET_SHELTER:
            valid = false; /* no single point: leaders read the river map where they stand */
            break;
        }
        w->target_pos[t] = pos;
        w->target_vel[t] = vel;
        w->target_valid[t] = valid;
    }
    /* Split agents: only the followed agent's owner found it; it tells the others. */
    th_dist_targets(w);
}

th_vec2 th_pursuit_dir(const th_world *w, const th_crowd_rt *c, th_vec2 p) {
    const th_target_def *d = &w->target_def[c->target];
    th_vec2 dir = th_v2(0.0f, 0.0f);
    if (d->kind == TH_TARGET_SHELTER) {
        if (!th_nav_flow_sample(&w->nav.combined.nearest, &w->nav.map, p, &dir))
            dir = th_v2(0.0f, 0.0f);
    } else if (w->target_valid[c->target]) {
        th_vec2 tp = w->target_pos[c->target], tv = w->target_vel[c->target];
        th_vec2 r = th_v2_sub(tp, p);
        if (w->wrap) { /* the nearest image of the target on a torus */
            float W = w->def.width, H = w->def.height;
            r.x = r.x > 0.5f * W ? r.x - W : (r.x < -0.5f * W ? r.x + W : r.x);
            r.y = r.y > 0.5f * H ? r.y - H : (r.y < -0.5f * H ? r.y + H : r.y);
        }
        if (c->pursuit == TH_PURSUIT_INTERCEPT) {
            /* Closing time: distance over the speed at which it shrinks when heading straight
             * at the target at full speed. */
            float dist = th_v2_len(r);
            th_vec2 u = th_v2_norm(r);
            float closing = c->max_speed - th_v2_dot(tv, u);
            float t = closing > 1e-3f ? dist / closing : INTERCEPT_HORIZON_S;
            if (t > INTERCEPT_HORIZON_S) t = INTERCEPT_HORIZON_S;
            r = th_v2_add(r, th_v2_scale(tv, t));
        }
        dir = th_v2_norm(r);
    }
    return dir;
}

th_vec2 th_pursuit_steer(const th_world *w, const th_crowd_rt *c, th_vec2 p, th_vec2 v) {
    const th_vec2 desired = th_v2_scale(th_pursuit_dir(w, c, p), c->max_speed);
    th_vec2 f = th_v2_clamp_len(th_v2_sub(desired, v), c->max_force);
    return th_v2_scale(f, c->w_pursuit);
}
