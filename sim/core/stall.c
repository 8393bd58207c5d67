/* Stalled agents: who has made no progress toward its goal for the world's stall_time.
 *
 * Gridlocked walkers do not stand still: in a jam the contact and repulsion terms flip their
 * velocity every step while their position stays put, so speed says nothing. Progress is
 * judged on where the agent is, by its own goal:
 *  - shelter and destinations: the remaining route cost, in metres, read from the goal's field
 *    between the centres of the four nearest cells (so it falls smoothly while the agent
 *    walks, not once per cell). Progress is a drop of PROGRESS_M below the best reached so far;
 *    a slow queue at a bottleneck crosses 0.2 m in seconds, an oscillating walker never does.
 *    A rise of RESET_M (a destroyed bunker, a wall: the field changed under the agent) starts
 *    the agent afresh from there;
 *  - routes: the distance to the waypoint walked to, likewise; reaching a waypoint is progress;
 *  - wanderers, movers, foragers and squad members of a marching squad: moving MOVE_M from
 *    where the agent last did (a wanderer has no goal to approach, but a stuck one stays put).
 * Never stalled: agents without a goal (flocks, walkers with a heading), stranded agents
 * (reported as stranded), agents at their goal or within 1.5 m of it (a destination without an
 * exit, filled by those who came first; the last waypoint of a one-way route) and those queued
 * behind them, body against body, members of a squad that arrived or has no route.
 *
 * A serial pass over the agents in the bookkeeping phase, every JUDGE_EVERY_S of simulated time
 * (every step at timesteps of that or more): a few loads and compares per agent, state in the
 * per-id array `stall` (grown with the others), so nothing is allocated and the result does not
 * depend on the thread count. Progress over a quarter second is as telling as over a step, and
 * judged every step the pass cost a seventh of a walker's step. The ids found stalled are kept
 * in a list, so that the steps between judgements mark the same agents (those still here) for
 * the viewer and the report; the counts, the longest time and the box are the last judgement's.
 * It reads positions only and never enters the state hash. Agents are counted in storage
 * order. Under several ranks each rank judges its own agents, whose stall state travels with
 * them from rank to rank; the ids found stalled are gathered from every rank in rank order
 * (one process's storage order) and the longest time and the box taken over every rank, so
 * counts, marks, times and box are one process's. */
#include <math.h>
#include <string.h>

#include "sim/behave/elevator.h"
#include "sim/behave/goal.h"
#include "sim/behave/movers.h"
#include "sim/behave/squad.h"
#include "sim/behave/own_goal.h"
#include "sim/core/stall.h"
#include "sim/core/world.h"
#include "sim/dist/dist.h"
#include "sim/dist/dist_serial.h"

#define PROGRESS_M    0.2f
#define RESET_M       1.0f
#define MOVE_M        0.5f
/* Remaining cost below which an agent is at its goal, or waiting for room at it (a goal without
 * an exit filled by those who came first): not a stall. */
#define AT_GOAL_M     1.5f
/* Simulated seconds between judgements. */
#define JUDGE_EVERY_S 0.25

/* Remaining cost in metres at p, interpolated between the centres of the four nearest cells
 * (unreachable ones left out); false when none of them is reachable. */
bool th_field_metres(const th_navmap *m, const uint32_t *dist, th_vec2 p, float *out) {
    const float fx = p.x * m->inv_cell_size - 0.5f, fy = p.y * m->inv_cell_size - 0.5f;
    const int32_t x0 = (int32_t)floorf(fx), y0 = (int32_t)floorf(fy);
    const float tx = fx - (float)x0, ty = fy - (float)y0;
    float sum = 0.0f, wsum = 0.0f;
    for (int32_t j = 0; j < 2; j++) {
        for (int32_t i = 0; i < 2; i++) {
            const int32_t x = x0 + i, y = y0 + j;
            if (x < 0 || y < 0 || x >= m->w || y >= m->h) continue;
            const uint32_t d = dist[(size_t)y * (size_t)m->w + (size_t)x];
            if (!th_nav_reachable(d)) continue;
            const float wt = (i ? tx : 1.0f - tx) * (j ? ty : 1.0f - ty);
            sum += wt * (float)d;
            wsum += wt;
        }
    }
    if (wsum <= 1e-6f) {
        int32_t cx, cy;
        const uint32_t d = dist[th_navmap_cell_of(m, p, &cx, &cy)];
        if (!th_nav_reachable(d)) return false;
        sum = (float)d;
        wsum = 1.0f;
    }
    *out = sum / wsum * (m->cell_size / (float)TH_NAV_UNITS_PER_CELL);
    return true;
}

typedef enum { JUDGE_NEVER, JUDGE_COST, JUDGE_MOVE } judge;

/* Whether agent k (at p, `metric` metres from its goal by field f, or without a field in a
 * straight line from the point `goal`) touches, within 0.1 m, a body nearer the goal that is
 * at rest there or queued behind one: it waits for room, a queue
 * that grows back from a goal without an exit, not a gridlock. Reads the grid of this step
 * (its cell ranges are storage positions) and the neighbours' last judgement. */
static bool queued(const th_world *w, uint32_t k, th_vec2 p, float metric, const uint32_t *f,
                   th_vec2 goal) {
    const th_agents *a = &w->buf[w->cur];
    const th_grid *g = &w->grid;
    const float ri = w->crowd_radius[a->crowd[k]];
    if (ri <= 0.0f) return false;
    const uint32_t cell = w->cell[k], nx = (uint32_t)g->nx;
    th_grid_span spans[TH_GRID_MAX_SPANS];
    const uint32_t ns =
        th_grid_block(g, (int32_t)(cell % nx), (int32_t)(cell / nx), 1, w->wrap, spans);
    for (uint32_t n = 0; n < ns; n++) {
        for (uint32_t j = spans[n].begin; j < spans[n].end; j++) {
            if (j == k || !w->stall[th_id_slot(a->id[j])].rest) continue;
            const th_vec2 d = th_min_image(th_v2_sub(th_v2(a->px[j], a->py[j]), p), w->wrap,
                                           w->def.width, w->def.height);
            const float reach = ri + w->crowd_radius[a->crowd[j]] + 0.1f;
            if (th_v2_len2(d) >= reach * reach) continue;
            float mj;
            const th_vec2 pj = th_v2(a->px[j], a->py[j]);
            if (f ? th_field_metres(&w->nav.map, f, pj, &mj) && mj < metric
                  : th_v2_len2(th_min_image(th_v2_sub(goal, pj), w->wrap, w->def.width,
                                            w->def.height)) < metric * metric)
                return true;
        }
    }
    return false;
}

/* Judge one agent; true when it is stalled after this step. */
static bool judge_agent(th_world *w, uint32_t k, uint64_t now, uint64_t prev, uint64_t limit) {
    const th_agents *a = &w->buf[w->cur];
    const th_agent_id id = a->id[k];
    const uint32_t slot = th_id_slot(id);
    th_stall *s = &w->stall[slot];
    const th_crowd_rt *c = &w->crowd_rt[a->crowd[k]];
    const th_vec2 p = th_v2(a->px[k], a->py[k]);
    judge how = JUDGE_NEVER;
    const uint32_t *f = NULL;           /* the goal's field (shelter, destinations) */
    bool at_goal = false, ends = false; /* at rest at its goal; a goal a queue can form at */
    th_vec2 goal = th_v2(0.0f, 0.0f);   /* without a field: the goal point */
    float metric = 0.0f;
    uint32_t index = 0;
    if ((w->flags[k] & TH_AGENT_STRANDED) || (c->premove && now < w->start_step[slot]) ||
        (w->hazard && w->hazard_state[slot].down_step) || (w->lifts && w->lift_of_id[slot])) {
        /* stranded, waiting for its pre-movement time, incapacitated, or in an elevator */
        how = JUDGE_NEVER;
    } else if (th_own_active(w, slot)) { /* its own goal: it must move, unless it is there */
        how = th_own_arrived(w, th_own_active(w, slot), p) ? JUDGE_NEVER : JUDGE_MOVE;
    } else if (w->squad_of_id[slot]) {
        const th_squad *q = w->squad[w->squad_of_id[slot] - 1u];
        how = q->arrived || q->stuck ? JUDGE_NEVER : JUDGE_MOVE;
    } else {
        /* On its way to an elevator, it walks the stop's field as to a destination. */
        switch (th_lift_field(w, c, slot, p) ? TH_GOAL_DESTINATIONS : c->goal) {
        case TH_GOAL_NONE: how = JUDGE_NEVER; break;
        case TH_GOAL_SHELTER:
        case TH_GOAL_DESTINATIONS: {
            /* Standing at its goal (no direction left to walk: a goal cell of a field without
             * an exit, say) or within AT_GOAL_M of it is arrival, not a stall. */
            f = th_goal_agent_cost_field(w, c, slot, p);
            th_vec2 dir;
            how = f && th_goal_direction(w, id, c, p, &dir) && th_v2_len2(dir) > 0.25f &&
                          th_field_metres(&w->nav.map, f, p, &metric) && metric > AT_GOAL_M
                      ? JUDGE_COST
                      : JUDGE_NEVER;
            at_goal = how == JUDGE_NEVER && f;
            break;
        }
        case TH_GOAL_ROUTE: {
            index = w->goal_state[slot].index;
            const th_vec2 d =
                th_min_image(th_v2_sub(c->route[index], p), w->wrap, w->def.width, w->def.height);
            metric = sqrtf(d.x * d.x + d.y * d.y);
            /* A one-way route's walker standing at its last waypoint has arrived; those that
             * press on it from behind queue there. */
            ends = c->route_mode == TH_ROUTE_ONCE && index + 1u == c->route_count;
            goal = c->route[index];
            at_goal = ends && metric * metric <= c->route_r2;
            how = at_goal ? JUDGE_NEVER : JUDGE_COST;
            break;
        }
        case TH_GOAL_CRASH_AND_TURN:
        case TH_GOAL_WAYPOINTS: {
            /* The same at a waypoint walker's destination node or a crash-and-turn walker's
             * point; on the way (or walking a heading), it must move. */
            float r2;
            if (!th_mover_destination(c, &w->goal_state[slot], &goal, &r2)) {
                how = JUDGE_MOVE;
                break;
            }
            const th_vec2 d =
                th_min_image(th_v2_sub(goal, p), w->wrap, w->def.width, w->def.height);
            metric = sqrtf(d.x * d.x + d.y * d.y);
            index = UINT32_MAX;
            ends = true;
            at_goal = metric * metric <= r2;
            how = at_goal ? JUDGE_NEVER : JUDGE_COST;
            break;
        }
        default: how = JUDGE_MOVE; break;
        }
    }
    const bool fresh = !s->init || s->seen != prev;
    s->seen = now;
    if (how == JUDGE_NEVER || fresh) {
        *s = (th_stall){.best = metric,
                        .ax = p.x,
                        .ay = p.y,
                        .since = now,
                        .seen = now,
                        .index = index,
                        .init = how != JUDGE_NEVER,
                        .rest = at_goal};
        return false;
    }
    if (how == JUDGE_COST) {
        /* Queued stays queued until it makes progress, or its queue is found gone when it is
         * judged again a stall time later: a queue several bodies long is recognised from its
         * head back, one judgement at a time. */
        if (index != s->index || metric <= s->best - PROGRESS_M || metric >= s->best + RESET_M) {
            s->best = metric;
            s->index = index;
            s->since = now;
            s->rest = 0;
        } else if ((f || ends) && now - s->since >= limit) {
            s->rest = queued(w, k, p, metric, f, goal);
            if (s->rest) s->since = now;
        }
    } else {
        s->rest = 0;
        const th_vec2 d =
            th_min_image(th_v2_sub(p, th_v2(s->ax, s->ay)), w->wrap, w->def.width, w->def.height);
        if (d.x * d.x + d.y * d.y >= MOVE_M * MOVE_M) {
            s->ax = p.x;
            s->ay = p.y;
            s->since = now;
        }
    }
    return now - s->since >= limit;
}

bool th_stall_judged(const th_world *w) {
    if (w->squad_count) return true;
    for (uint32_t c = 0; c < w->crowd_count; c++)
        if (w->crowd_rt[c].goal != TH_GOAL_NONE) return true;
    return false;
}

void th_stall_update(th_world *w) {
    const th_agents *a = &w->buf[w->cur];
    const double dt = (double)w->def.timestep;
    const uint64_t limit = (uint64_t)ceil((double)w->stall_time / dt);
    const uint64_t now = w->step;
    const uint64_t every = dt < JUDGE_EVERY_S ? (uint64_t)llround(JUDGE_EVERY_S / dt) : 1u;
    if (now % every != 0) {
        /* Between judgements: mark the agents the last one found stalled, those still here. */
        for (uint32_t n = 0; n < w->stall_listed; n++) {
            const uint32_t k = th_agent_index(w, w->stall_list[n]);
            if (k != UINT32_MAX) w->flags[k] |= TH_AGENT_STALLED;
        }
        return;
    }
    const uint64_t prev = now >= every ? now - every : UINT64_MAX;
    uint32_t stalled = 0;
    uint64_t longest = 0;
    float x0 = 0.0f, y0 = 0.0f, x1 = 0.0f, y1 = 0.0f;
    /* Agents of crowds without a goal are never judged (nor is their state read) unless they
     * may be squad members: skip them without touching their state, which would be a scattered
     * write per agent. Their state is left as it was; should one be judged again, its last
     * judgement is not the previous one and it starts afresh. A crowd's goal is fixed. */
    bool skip[TH_MAX_CROWDS];
    for (uint32_t c = 0; c < w->crowd_count; c++)
        skip[c] = w->squad_count == 0 && w->crowd_rt[c].goal == TH_GOAL_NONE;
    for (uint32_t k = 0; k < w->count; k++) {
        if (skip[a->crowd[k]] || !judge_agent(w, k, now, prev, limit)) continue;
        w->flags[k] |= TH_AGENT_STALLED;
        w->stall_list[stalled] = a->id[k];
        const float px = a->px[k], py = a->py[k];
        if (stalled == 0) {
            x0 = x1 = px;
            y0 = y1 = py;
        } else {
            x0 = fminf(x0, px), x1 = fmaxf(x1, px);
            y0 = fminf(y0, py), y1 = fmaxf(y1, py);
        }
        stalled++;
        const uint64_t for_steps = now - w->stall[th_id_slot(a->id[k])].since;
        if (for_steps > longest) longest = for_steps;
    }
    float box[5] = {-x0, -y0, x1, y1, (float)((double)longest * dt)};
    if (w->dist) {
        /* Every rank's stalled ids, in rank order (global storage order), so that every rank
         * marks its own of them until the next judgement, whichever rank judged them; the
         * longest time and the box over every rank's (a rank with none gives no box). */
        uint32_t total = 0;
        const th_agent_id *all =
            th_dist_gather_all(w, w->stall_list, stalled, sizeof *w->stall_list, &w->stall_all,
                               &w->stall_all_cap, 0, &total);
        memcpy(w->stall_list, all, (size_t)total * sizeof *w->stall_list);
        if (!stalled) box[0] = box[1] = box[2] = box[3] = -INFINITY;
        th_dist_max_f32(w, box, 5);
        stalled = total;
        if (!stalled) box[0] = box[1] = box[2] = box[3] = 0.0f;
    }
    w->stall_listed = stalled;
    w->stats.stalled = stalled;
    w->stall_longest = box[4];
    w->stall_box[0] = -box[0], w->stall_box[1] = -box[1], w->stall_box[2] = box[2];
    w->stall_box[3] = box[3];
}

bool th_world_stall_info(const th_world *w, th_stall_info *out) {
    if (!w || !out) return false;
    *out = (th_stall_info){.stalled = w->stats.stalled,
                           .longest = w->stats.stalled ? w->stall_longest : 0.0f,
                           .stall_time = w->stall_time};
    if (w->stats.stalled) {
        out->x0 = w->stall_box[0], out->y0 = w->stall_box[1];
        out->x1 = w->stall_box[2], out->y1 = w->stall_box[3];
    }
    return true;
}

bool th_world_scene_over(const th_world *w) {
    if (!w) return false;
    if (w->nav.present && w->nav.event_count > 0) return false;
    const uint32_t spawners = th_world_spawner_count(w);
    for (uint32_t s = 0; s < spawners; s++) {
        th_spawner_info info;
        if (th_world_get_spawner(w, th_spawner_handle((int)s), &info) && !info.done) return false;
    }
    const th_world_stats st = th_world_get_stats(w);
    return st.agents <= st.stranded;
}
