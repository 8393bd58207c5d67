/* Stalled agents: who has made no progress toward its goal for the world's stall_time; and who
 * queues: no progress of its own, but behind others who progress.
 *
 * Gridlocked walkers do not stand still: in a jam the contact and repulsion terms flip their
 * velocity every step while their position stays put, so speed says nothing. Progress is
 * judged on where the agent is, by its own goal:
 *  - shelter and destinations: the remaining route cost, in metres, read from the goal's field
 *    between the centres of the four nearest cells (so it falls smoothly while the agent
 *    walks, not once per cell). Progress is a drop of PROGRESS_M below the best reached so far;
 *    a slow queue at a bottleneck crosses 0.2 m in seconds, an oscillating walker never does,
 *    nor one pushed back and walking up again. When the field has risen by RESET_M at the spot
 *    where the best was reached (a destroyed bunker, a wall: the goal changed under the agent),
 *    the agent starts afresh from where it stands;
 *  - routes: the distance to the waypoint walked to, likewise; reaching a waypoint is progress;
 *    waypoint walkers heading for their destination node and crash-and-turn walkers heading
 *    for their point: the distance to it, likewise;
 *  - wanderers, other movers, foragers, agents with goals of their own and members of a
 *    marching squad: moving MOVE_M from where the agent last did (a wanderer has no goal to
 *    approach, but a stuck one stays put).
 * Never stalled: agents without a goal (flocks, walkers with a heading), stranded agents
 * (reported as stranded), agents at their goal or within 1.5 m of it (a destination without an
 * exit, filled by those who came first; the last waypoint of a one-way route; an elevator's
 * stop only within reach of it, where its car boards them; an exit or an open bunker only while
 * it took someone within the stall time; near one that has not, the agent's own approach is
 * progress only until it first goes the stall time without any: nobody stands by an exit it
 * cannot pass as arrived), members of a
 * squad that arrived, has no route or has no room at its goal (its report line says so),
 * agents waiting out their pre-movement time,
 * incapacitated or riding an elevator.
 *
 * Queuing is not stalling. An agent judged by its goal's cost (the first two kinds above) that
 * has made no progress of its own for the stall time *queues* when, among the bodies ahead of
 * it (nearer to its goal by its own measure, with a gap to it under AHEAD_WIDTHS of its body
 * widths: a standing crowd of this model keeps gaps of 0.1-0.5 m), one walks to the same goal
 * (the same field, or the same point) and at the last look was at that goal, progressing
 * (progress of its own within the stall time) or queuing itself. A queue is thus traced from a
 * head that progresses, or rests at the goal, back through every body pressed behind it: a slow
 * queue at a narrow door, where a walker far back may wait longer than the stall time between
 * steps of 0.2 m, queues as long as its head passes the door. Stalled stays for no progress at
 * all: a walker against bodies coming the other way, or whose whole chain ahead is stuck too
 * (a gridlock, a clog at a door too narrow for a body), or with nobody ahead (against a wall).
 * A queuing agent's clock reads as if it had last progressed a stall time ago, so that it is
 * judged afresh at every judgement and, once the bodies ahead of it are stuck, stalled at once,
 * for about the time since its queue last moved. One that finds nobody ahead any more (a gap
 * opened that it has yet to close) stays queuing until a stall time has passed since it last
 * found its queue moving.
 *
 * A judgement is two serial passes over the agents in the bookkeeping phase, every
 * JUDGE_EVERY_S of simulated time (every step at timesteps of that or more). The first judges
 * every agent's own progress and records its standing (at goal, progressing, or to be
 * resolved) in its per-id `stall` state; the agents without progress for the stall time are
 * listed. The second resolves each listed agent judged by cost as queuing or stalled, looking
 * at the bodies around it in this step's grid: those not listed by their standing of this
 * judgement, those listed by their standing of the last one (kept beside it), so the verdict
 * does not depend on the order of the pass, and a stuck queue is found stalled from its head
 * back, one body a judgement. The per-agent cost is a few loads and compares, plus, for a
 * listed agent only, one look at the grid cells around it; nothing is allocated (the list is
 * `stall_list`, rewritten by each judgement), and the result does not depend on the thread
 * count. Progress over a quarter second is as telling as over a step, and judged every step
 * the pass cost a seventh of a walker's step. The ids found stalled are kept in `stall_list`,
 * so that the steps between judgements mark the same agents (those still here) for the viewer
 * and the report; the counts, the longest time and the box are the last judgement's.
 *
 * Over the run (th_stall_run, kept with the run history): the stalled count after every step
 * summed (agent-steps, an integer: agent-seconds once multiplied by the timestep), the most
 * stalled at once and the step it was first reached, the longest single stall (the longest
 * time any agent had gone without progress at a judgement that found it stalled: a stall is
 * at its longest at its last judgement before it ends, or at the end of the run), and the
 * queuing count and its peak.
 *
 * It reads positions only and never enters the state hash. Agents are counted in storage
 * order. Under several ranks each rank judges its own agents, whose stall state travels with
 * them from rank to rank; between the two passes every rank lends the ghosts of its agents
 * their standing and goal (th_dist_ghost_records), so the second pass reads a neighbour on
 * another rank as one process would; the ids found stalled are gathered from every rank in rank
 * order (one process's storage order), the queuing counts summed, and the longest time and the
 * box taken over every rank, so counts, marks, times, box and the run's figures are one
 * process's. */
#include <math.h>
#include <string.h>

#include "sim/behave/elevator.h"
#include "sim/behave/goal.h"
#include "sim/behave/movers.h"
#include "sim/behave/own_goal.h"
#include "sim/behave/squad.h"
#include "sim/core/world.h"
#include "sim/dist/dist.h"
#include "sim/dist/dist_serial.h"
#include "sim/observe/report.h"
#include "sim/observe/stall.h"
#include "sim/scenario/flow.h"

#define PROGRESS_M    0.2f
#define RESET_M       1.0f
#define MOVE_M        0.5f
/* Remaining cost below which an agent is at its goal, or waiting for room at it (a goal without
 * an exit, filled by those who came first): not a stall. */
#define AT_GOAL_M     1.5f
/* Body widths of gap, at most, between a queuing agent and a body ahead of it. */
#define AHEAD_WIDTHS  2.0f
/* Simulated seconds between judgements. */
#define JUDGE_EVERY_S 0.25

/* An agent's standing, in its th_stall.rest: bits 0-2 this judgement's, bits 3-5 the last
 * judgement's, and ST_RESOLVING while this one's is being resolved by the second pass (whose
 * readers then take the last one). A ghost's `rest` holds the standing its owner lent it. */
enum { ST_NONE, ST_GOAL, ST_MOVING, ST_QUEUED, ST_STALLED };
#define ST_MASK       7u
#define ST_LAST_SHIFT 3u
#define ST_RESOLVING  0x40u

typedef enum { JUDGE_NEVER, JUDGE_COST, JUDGE_MOVE } judge;

/* What an agent walks to, and how its progress is judged. */
typedef struct goal_view {
    judge how;
    const uint32_t *f; /* the goal's field (shelter, destinations), or NULL */
    th_vec2 goal;      /* without a field: the goal point */
    float metric;      /* metres from the goal, by the field or in a straight line */
    uint32_t index;    /* ROUTE: the waypoint walked to; movers: UINT32_MAX */
    uint32_t key;      /* the goal, the same for all who walk to it; 0: none to queue for */
    bool at_goal;      /* at rest at its goal */
    bool idle_sink;    /* near a goal that takes walkers out (an exit, a bunker) and has taken
                          nobody for the stall time: its own cost counts as progress only until
                          it first goes a stall time without any there */
} goal_view;

/* The key of a field: which of the world's fields it is (the same on every rank), 0 if none. */
static uint32_t field_key(const th_world *w, const uint32_t *f) {
    const th_world_nav *n = &w->nav;
    if (f == n->combined.nearest.dist) return 1u;
    uint32_t key = 2u;
    for (uint32_t d = 0; d < n->dest_count; d++)
        if (f == n->dest[d].dist) return key + d;
    key += TH_MAX_DESTINATION_FIELDS;
    for (uint32_t b = 0; b < n->bunker_count; b++)
        if (f == n->field[b].dist) return key + b;
    key += TH_MAX_BUNKERS;
    for (uint32_t c = 0; c < w->cong_count; c++)
        if (f == w->cong[c].field.dist) return key + c;
    return 0u;
}

/* The key of a goal point: its coordinates' bits mixed, the top bit set (fields' keys are
 * small). */
static uint32_t point_key(th_vec2 g) {
    uint32_t x, y;
    memcpy(&x, &g.x, sizeof x);
    memcpy(&y, &g.y, sizeof y);
    uint32_t h = x * 0x9E3779B1u ^ (y + 0x7F4A7C15u) * 0x85EBCA77u;
    h ^= h >> 15;
    h *= 0xC2B2AE3Du;
    h ^= h >> 13;
    return h | 0x80000000u;
}

/* Whether the goal cell that field f leads agent k's crowd to from p takes the agent out of the
 * world on entering it (an open bunker of a fleeing crowd, an exit of its crowd: its own goal
 * exit or one of the `exits` over the goal cell): -1 if not; else 1 if it took someone within
 * the last `limit` steps before `now`, 0 if it has not (or never has). The goal cell is found
 * by walking down the field from p's cell to the first cell none of whose eight neighbours is
 * lower. */
static int sink_taking(const th_world *w, uint32_t crowd, const uint32_t *f, th_vec2 p,
                       uint64_t now, uint64_t limit) {
    const th_navmap *m = &w->nav.map;
    int32_t x, y;
    uint32_t d = f[th_navmap_cell_of(m, p, &x, &y)];
    if (!th_nav_reachable(d)) return -1;
    for (;;) {
        int32_t bx = x, by = y;
        for (int32_t j = -1; j <= 1; j++) {
            for (int32_t i = -1; i <= 1; i++) {
                const int32_t nx = x + i, ny = y + j;
                if (nx < 0 || ny < 0 || nx >= m->w || ny >= m->h) continue;
                const uint32_t dn = f[(size_t)ny * (size_t)m->w + (size_t)nx];
                if (th_nav_reachable(dn) && dn < d) {
                    d = dn;
                    bx = nx;
                    by = ny;
                }
            }
        }
        if (bx == x && by == y) break;
        x = bx;
        y = by;
    }
    uint64_t at = 0; /* 1 + the step it last took someone; 0: never */
    if (w->crowd_rt[crowd].flee) {
        const th_world_nav *n = &w->nav;
        for (uint32_t b = 0; b < n->bunker_count; b++) {
            const th_bunker *bk = &n->bunker[b];
            if (x < bk->x0 || x > bk->x1 || y < bk->y0 || y > bk->y1) continue;
            at = w->stall_sheltered_at[b];
            goto found;
        }
    }
    if (!w->flow) return -1;
    const uint8_t mark = th_flow_exit_mark(
        w, crowd, th_v2(((float)x + 0.5f) * m->cell_size, ((float)y + 0.5f) * m->cell_size));
    if (!mark) return -1;
    th_exit_info e;
    if (!th_world_get_exit(w, th_exit_handle((int)(mark - TH_MARK_EXIT)), &e)) return -1;
    at = e.exited ? e.last_step + 1u : 0u;
found:
    return at && now + 1u - at < limit ? 1 : 0;
}

/* What agent k walks to and how its progress is judged, at step `now`. */
static void view_goal(const th_world *w, uint32_t k, uint64_t now, goal_view *v) {
    const th_agents *a = &w->buf[w->cur];
    const th_agent_id id = a->id[k];
    const uint32_t slot = th_id_slot(id);
    const th_crowd_rt *c = &w->crowd_rt[a->crowd[k]];
    const th_vec2 p = th_v2(a->px[k], a->py[k]);
    *v = (goal_view){.how = JUDGE_NEVER};
    if ((w->flags[k] & TH_AGENT_STRANDED) || (c->premove && now < w->start_step[slot]) ||
        (w->hazard && w->hazard_state[slot].down_step) || (w->lifts && w->lift_of_id[slot]) ||
        th_pref_of(w, slot)) {
        /* stranded, waiting for its pre-movement time, incapacitated, in an elevator, or
         * steered by the host (its velocity, not its goal, says where it goes) */
        return;
    }
    if (th_own_active(w, slot)) { /* its own goal: it must move, unless it is there */
        v->how = th_own_arrived(w, th_own_active(w, slot), p) ? JUDGE_NEVER : JUDGE_MOVE;
        return;
    }
    if (w->squad_of_id[slot]) {
        const th_squad *q = w->squad[w->squad_of_id[slot] - 1u];
        v->how = q->arrived || q->stuck || q->no_room ? JUDGE_NEVER : JUDGE_MOVE;
        return;
    }
    /* On its way to an elevator, it walks the stop's field as to a destination. */
    const th_lift_stop *stop = th_lift_stop_for(w, c, slot, p);
    switch (stop ? TH_GOAL_DESTINATIONS : c->goal) {
    case TH_GOAL_NONE: return;
    case TH_GOAL_SHELTER:
    case TH_GOAL_DESTINATIONS: {
        /* Standing at its goal (no direction left to walk: a goal cell of a field without an
         * exit, say) or within AT_GOAL_M of it is arrival, not a stall. At an elevator's stop,
         * within reach of it is arrival (the car counts it and boards it), and within AT_GOAL_M
         * only while someone waits there (it stands in the crowd at the doors, whom the car
         * serves): near a stop at which nobody gets within reach, a walker would never board. */
        v->f = th_goal_agent_cost_field(w, c, slot, p);
        th_vec2 dir;
        const bool metres = v->f && th_field_metres(&w->nav.map, v->f, p, &v->metric);
        bool there = metres && v->metric <= AT_GOAL_M;
        /* A goal that takes walkers out of the world (an exit, a bunker) is never filled:
         * within AT_GOAL_M of it a walker waits its turn only while it takes someone (someone
         * left by it within the stall time). Near one that has taken nobody for that long (a
         * gap narrower than a body: those at it jostle, turn about at its front and never
         * pass), its own cost counts as progress only until it first goes a stall time without
         * any there (it walks up, however slowly, then stands): from then the second pass finds
         * it stalled, or queuing behind a walker that still progresses. */
        if (there && !stop) {
            const uint64_t limit = (uint64_t)ceil((double)w->stall_time / (double)w->def.timestep);
            const int sink = sink_taking(w, a->crowd[k], v->f, p, now, limit);
            v->idle_sink = sink == 0;
            there = sink != 0;
        }
        if (stop) {
            const th_lift *e = &w->lifts->lift[c->lift - 1u];
            there = th_lift_in_reach(w, e, stop, p, w->crowd_radius[a->crowd[k]]) ||
                    (there && stop->waiting > 0);
        }
        v->how = metres && !there && th_goal_direction(w, id, c, p, &dir) && th_v2_len2(dir) > 0.25f
                     ? JUDGE_COST
                     : JUDGE_NEVER;
        v->at_goal = v->how == JUDGE_NEVER && v->f;
        if (v->f) v->key = field_key(w, v->f);
        return;
    }
    case TH_GOAL_ROUTE: {
        v->index = w->goal_state[slot].index;
        v->goal = c->route[v->index];
        const th_vec2 d = th_min_image(th_v2_sub(v->goal, p), w->wrap, w->def.width, w->def.height);
        v->metric = sqrtf(d.x * d.x + d.y * d.y);
        /* A one-way route's walker standing at its last waypoint has arrived; those that press
         * on it from behind queue there. */
        v->at_goal = c->route_mode == TH_ROUTE_ONCE && v->index + 1u == c->route_count &&
                     v->metric * v->metric <= c->route_r2;
        v->how = v->at_goal ? JUDGE_NEVER : JUDGE_COST;
        v->key = point_key(v->goal);
        return;
    }
    case TH_GOAL_CRASH_AND_TURN:
    case TH_GOAL_WAYPOINTS: {
        /* The same at a waypoint walker's destination node or a crash-and-turn walker's point;
         * on the way (or walking a heading), it must move. */
        float r2;
        if (!th_mover_destination(c, &w->goal_state[slot], &v->goal, &r2)) {
            v->how = JUDGE_MOVE;
            return;
        }
        const th_vec2 d = th_min_image(th_v2_sub(v->goal, p), w->wrap, w->def.width, w->def.height);
        v->metric = sqrtf(d.x * d.x + d.y * d.y);
        v->index = UINT32_MAX;
        v->at_goal = v->metric * v->metric <= r2;
        v->how = v->at_goal ? JUDGE_NEVER : JUDGE_COST;
        v->key = point_key(v->goal);
        return;
    }
    default: v->how = JUDGE_MOVE; return;
    }
}

/* The measure of goal v (metres of its field, or in a straight line to its point) at q;
 * INFINITY where its field is unreachable. */
static float measure_at(const th_world *w, const goal_view *v, th_vec2 q) {
    float m;
    if (v->f) return th_field_metres(&w->nav.map, v->f, q, &m) ? m : INFINITY;
    const th_vec2 d = th_min_image(th_v2_sub(v->goal, q), w->wrap, w->def.width, w->def.height);
    return sqrtf(d.x * d.x + d.y * d.y);
}

/* The standing of agent j (owned or ghost) that the second pass of the judgement at `now` reads:
 * this judgement's, or the last one's for an agent being resolved; none for an agent not judged
 * now. */
static unsigned standing(const th_world *w, uint32_t j, uint64_t now) {
    const th_stall *s = &w->stall[th_id_slot(w->buf[w->cur].id[j])];
    if (j >= w->count) return s->rest & ST_MASK; /* a ghost: as its owner lent it */
    if (s->seen != now) return ST_NONE;
    return s->rest & ST_RESOLVING ? (s->rest >> ST_LAST_SHIFT) & ST_MASK : s->rest & ST_MASK;
}

/* The goal key of agent j (owned: worked out; a ghost: as its owner lent it). */
static uint32_t goal_key(const th_world *w, uint32_t j, uint64_t now) {
    if (j >= w->count) return w->stall[th_id_slot(w->buf[w->cur].id[j])].index;
    goal_view v;
    view_goal(w, j, now, &v);
    return v.key;
}

/* What stands ahead of a queuing candidate: nobody, a body of its queue that moves (at its goal,
 * progressing or queuing), or only bodies that do not. */
typedef enum { AHEAD_NONE, AHEAD_MOVES, AHEAD_STUCK } ahead;

/* What stands ahead of agent k (without progress of its own for the stall time, walking to goal
 * v): the bodies nearer to its goal by its own measure with a gap to k under two of k's body
 * widths (a standing crowd keeps gaps of 0.1-0.5 m between bodies). AHEAD_MOVES when one of
 * them walks to the same goal and rests at it, progresses or queues; AHEAD_STUCK when there are
 * some but none such. `rmax` is the largest body radius. Reads the grid of this step (its cell
 * ranges are storage positions) over the cells that reach covers, at most the crowd's own
 * block (what ghost rows hold under several ranks). */
static ahead look_ahead(const th_world *w, uint32_t k, const goal_view *v, uint64_t now,
                        float rmax) {
    const th_agents *a = &w->buf[w->cur];
    const th_grid *g = &w->grid;
    const float ri = th_body_radius(w, a, k);
    if (ri <= 0.0f) return AHEAD_NONE;
    const th_vec2 p = th_v2(a->px[k], a->py[k]);
    const uint32_t cell = w->cell[k], nx = (uint32_t)g->nx;
    const float cw = g->cell_w < g->cell_h ? g->cell_w : g->cell_h;
    const int32_t own = w->crowd_rt[a->crowd[k]].block;
    int32_t cells = (int32_t)ceilf((AHEAD_WIDTHS * 2.0f * ri + ri + rmax) / cw);
    if (cells > own) cells = own;
    if (cells > TH_GRID_MAX_REACH) cells = TH_GRID_MAX_REACH;
    if (cells < 1) cells = 1;
    th_grid_span spans[TH_GRID_MAX_SPANS];
    const uint32_t ns =
        th_grid_block(g, (int32_t)(cell % nx), (int32_t)(cell / nx), cells, w->wrap, spans);
    ahead found = AHEAD_NONE;
    for (uint32_t n = 0; n < ns; n++) {
        for (uint32_t j = spans[n].begin; j < spans[n].end; j++) {
            if (j == k) continue;
            const th_vec2 pj = th_v2(a->px[j], a->py[j]);
            const th_vec2 d = th_min_image(th_v2_sub(pj, p), w->wrap, w->def.width, w->def.height);
            const float reach = AHEAD_WIDTHS * 2.0f * ri + ri + th_body_radius(w, a, j);
            if (th_v2_len2(d) >= reach * reach) continue;
            float mj;
            if (!(v->f ? th_field_metres(&w->nav.map, v->f, pj, &mj) && mj < v->metric
                       : th_v2_len2(th_min_image(th_v2_sub(v->goal, pj), w->wrap, w->def.width,
                                                 w->def.height)) < v->metric * v->metric))
                continue;
            found = AHEAD_STUCK;
            const unsigned st = standing(w, j, now);
            if ((st == ST_GOAL || st == ST_MOVING || st == ST_QUEUED) && v->key &&
                goal_key(w, j, now) == v->key)
                return AHEAD_MOVES;
        }
    }
    return found;
}

typedef enum { VERDICT_NONE, VERDICT_STALLED, VERDICT_RESOLVE } verdict;

static uint8_t standing_byte(unsigned last, unsigned now) {
    return (uint8_t)(last << ST_LAST_SHIFT | now);
}

/* The first pass: judge agent k's own progress. VERDICT_STALLED: stalled (judged by where it
 * moved); VERDICT_RESOLVE: judged by cost, without progress for the stall time: queuing or
 * stalled, for the second pass to say. */
static verdict judge_agent(th_world *w, uint32_t k, uint64_t now, uint64_t prev, uint64_t limit) {
    const th_agents *a = &w->buf[w->cur];
    th_stall *s = &w->stall[th_id_slot(a->id[k])];
    const th_vec2 p = th_v2(a->px[k], a->py[k]);
    goal_view v;
    view_goal(w, k, now, &v);
    const bool fresh = !s->init || s->seen != prev;
    const unsigned last = fresh ? ST_NONE : s->rest & ST_MASK;
    s->seen = now;
    if (v.how == JUDGE_NEVER || fresh) {
        *s = (th_stall){.best = v.metric,
                        .ax = p.x,
                        .ay = p.y,
                        .since = now,
                        .seen = now,
                        .index = v.index,
                        .init = v.how != JUDGE_NEVER,
                        .near = v.idle_sink ? 1u : 0u,
                        .rest = standing_byte(last, v.at_goal              ? ST_GOAL
                                                    : v.how != JUDGE_NEVER ? ST_MOVING
                                                                           : ST_NONE)};
        return VERDICT_NONE;
    }
    if (!v.idle_sink) s->near = 0;
    else if (!s->near) s->near = 1;
    if (v.how == JUDGE_COST) {
        /* Progress: a new waypoint, or PROGRESS_M below the best. A goal that changed under the
         * agent (its field risen by RESET_M where the best was reached: a bunker destroyed, a
         * wall built) starts it afresh; being pushed back does not. Near an exit that takes
         * nobody, its own approach counts only until it first goes a stall time without any
         * (it walks up to the exit, however slowly, and then stands there). */
        const bool own = s->near != 2;
        if (v.index != s->index || (own && v.metric <= s->best - PROGRESS_M) ||
            measure_at(w, &v, th_v2(s->ax, s->ay)) >= s->best + RESET_M) {
            s->best = v.metric;
            s->ax = p.x;
            s->ay = p.y;
            s->index = v.index;
            s->since = now;
        }
        if (now - s->since >= limit) {
            if (s->near) s->near = 2;
            s->rest = (uint8_t)(standing_byte(last, ST_NONE) | ST_RESOLVING);
            return VERDICT_RESOLVE;
        }
    } else {
        const th_vec2 d =
            th_min_image(th_v2_sub(p, th_v2(s->ax, s->ay)), w->wrap, w->def.width, w->def.height);
        if (d.x * d.x + d.y * d.y >= MOVE_M * MOVE_M) {
            s->ax = p.x;
            s->ay = p.y;
            s->since = now;
        }
        if (now - s->since >= limit) {
            s->rest = standing_byte(last, ST_STALLED);
            return VERDICT_STALLED;
        }
    }
    s->rest = standing_byte(last, ST_MOVING);
    return VERDICT_NONE;
}

/* Several ranks: what the judgement under way lends a ghost of an owned agent (its standing
 * and the goal it walks to), 8 bytes packed by its owner and stored on the ranks that read it
 * as a neighbour (th_dist_ghost_records, between the two passes of a judgement). */
static void pack_ghosts(const th_world *w, void *ctx, uint32_t from, uint32_t to,
                        unsigned char *p) {
    (void)ctx;
    for (uint32_t k = from; k < to; k++, p += 8) {
        const unsigned st = standing(w, k, w->step);
        const uint32_t v[2] = {
            st, st == ST_GOAL || st == ST_MOVING || st == ST_QUEUED ? goal_key(w, k, w->step) : 0u};
        memcpy(p, v, 8);
    }
}

static void unpack_ghosts(th_world *w, void *ctx, uint32_t first, uint32_t n,
                          const unsigned char *p) {
    (void)ctx;
    for (uint32_t k = first; k < first + n; k++, p += 8) {
        uint32_t v[2];
        memcpy(v, p, 8);
        th_stall *s = &w->stall[th_id_slot(w->buf[w->cur].id[k])];
        s->rest = (uint8_t)(v[0] & ST_MASK);
        s->index = v[1];
    }
}

void th_stall_update(th_world *w) {
    const th_agents *a = &w->buf[w->cur];
    const double dt = (double)w->def.timestep;
    const uint64_t limit = (uint64_t)ceil((double)w->stall_time / dt);
    const uint64_t now = w->step;
    const uint64_t every = dt < JUDGE_EVERY_S ? (uint64_t)llround(JUDGE_EVERY_S / dt) : 1u;
    th_stall_run *run = th_report_stalls(w);
    if (now % every != 0) {
        /* Between judgements: mark the agents the last one found stalled, those still here. */
        for (uint32_t n = 0; n < w->stall_listed; n++) {
            const uint32_t k = th_agent_index(w, w->stall_list[n]);
            if (k != UINT32_MAX) w->flags[k] |= TH_AGENT_STALLED;
        }
        if (run) run->stalled_steps += w->stats.stalled;
        return;
    }
    const uint64_t prev = now >= every ? now - every : UINT64_MAX;
    /* When each bunker last took someone (its count grew since the last judgement). */
    for (uint32_t b = 0; b < w->nav.bunker_count; b++) {
        if (w->nav.bunker[b].sheltered == w->stall_sheltered[b]) continue;
        w->stall_sheltered[b] = w->nav.bunker[b].sheltered;
        w->stall_sheltered_at[b] = now + 1u;
    }
    /* Agents of crowds without a goal are never judged (nor is their state read) unless they
     * may be squad members: skip them without touching their state, which would be a scattered
     * write per agent. Their state is left as it was; should one be judged again, its last
     * judgement is not the previous one and it starts afresh. A crowd's goal is fixed. */
    bool skip[TH_MAX_CROWDS];
    for (uint32_t c = 0; c < w->crowd_count; c++)
        skip[c] = w->squad_count == 0 && w->crowd_rt[c].goal == TH_GOAL_NONE;
    /* First pass: every agent's own progress; those without any for the stall time listed. */
    uint32_t listed = 0;
    for (uint32_t k = 0; k < w->count; k++) {
        if (skip[a->crowd[k]] || judge_agent(w, k, now, prev, limit) == VERDICT_NONE) continue;
        w->stall_list[listed++] = a->id[k];
    }
    /* Ghosts take their owners' standing and goals (a no-op in one process). */
    if (th_stall_judged(w)) th_dist_ghost_records(w, 8u, pack_ghosts, unpack_ghosts, NULL);
    /* Second pass, over the listed agents in storage order: queuing or stalled. The stalled
     * ones' ids are written back over the list, never ahead of the one read. */
    uint32_t stalled = 0, queued = 0;
    uint64_t longest = 0;
    float rmax = 0.0f;
    for (uint32_t c = 0; c < w->crowd_count; c++)
        if (w->crowd_radius[c] > rmax) rmax = w->crowd_radius[c];
    float x0 = 0.0f, y0 = 0.0f, x1 = 0.0f, y1 = 0.0f;
    for (uint32_t n = 0; n < listed; n++) {
        const th_agent_id id = w->stall_list[n];
        const uint32_t k = th_agent_index(w, id);
        th_stall *s = &w->stall[th_id_slot(id)];
        if (s->rest & ST_RESOLVING) {
            goal_view v;
            view_goal(w, k, now, &v);
            const ahead ah = look_ahead(w, k, &v, now, rmax);
            /* Behind a body of its queue that moves: queuing, its clock set as if it had last
             * progressed a stall time ago (judged afresh next time, stalled at once should its
             * queue stop). With nobody ahead any more (a gap opened, or it heads the queue
             * beside a door's jamb), one that queued stays queuing until a stall time has
             * passed since its queue last moved. */
            const bool q = ah == AHEAD_MOVES ||
                           (ah == AHEAD_NONE && (s->rest >> ST_LAST_SHIFT & ST_MASK) == ST_QUEUED &&
                            now - s->since < 2u * limit);
            if (ah == AHEAD_MOVES) s->since = now - limit;
            s->rest = (uint8_t)((s->rest & ~ST_MASK) | (q ? ST_QUEUED : ST_STALLED));
            if (q) {
                queued++;
                continue;
            }
        }
        w->flags[k] |= TH_AGENT_STALLED;
        w->stall_list[stalled] = id;
        const float px = a->px[k], py = a->py[k];
        if (stalled == 0) {
            x0 = x1 = px;
            y0 = y1 = py;
        } else {
            x0 = fminf(x0, px), x1 = fmaxf(x1, px);
            y0 = fminf(y0, py), y1 = fmaxf(y1, py);
        }
        stalled++;
        const uint64_t for_steps = now - s->since;
        if (for_steps > longest) longest = for_steps;
    }
    float box[5] = {-x0, -y0, x1, y1, (float)((double)longest * dt)};
    if (w->dist) {
        /* Every rank's stalled ids, in rank order (global storage order), so that every rank
         * marks its own of them until the next judgement, whichever rank judged them; the
         * longest time and the box over every rank's (a rank with none gives no box); the
         * queuing agents summed. */
        uint32_t total = 0;
        const th_agent_id *all =
            th_dist_gather_all(w, w->stall_list, stalled, sizeof *w->stall_list, &w->stall_all,
                               &w->stall_all_cap, 0, &total);
        memcpy(w->stall_list, all, (size_t)total * sizeof *w->stall_list);
        if (!stalled) box[0] = box[1] = box[2] = box[3] = -INFINITY;
        th_dist_max_f32(w, box, 5);
        th_dist_sum_u32(w, &queued, 1);
        stalled = total;
        if (!stalled) box[0] = box[1] = box[2] = box[3] = 0.0f;
    }
    w->stall_listed = stalled;
    w->stats.stalled = stalled;
    w->stall_longest = box[4];
    w->stall_box[0] = -box[0], w->stall_box[1] = -box[1], w->stall_box[2] = box[2];
    w->stall_box[3] = box[3];
    if (run) {
        run->stalled_steps += stalled;
        if (stalled > run->peak) {
            run->peak = stalled;
            run->peak_step = now;
        }
        if (stalled && box[4] > run->longest) run->longest = box[4];
        run->queued = queued;
        if (queued > run->queued_peak) run->queued_peak = queued;
    }
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
    const th_stall_run *run = th_report_stalls_of(w);
    if (run) {
        const double dt = (double)w->def.timestep;
        out->peak = run->peak;
        out->peak_time = run->peak ? (float)((double)run->peak_step * dt) : 0.0f;
        out->agent_seconds = (double)run->stalled_steps * dt;
        out->longest_run = run->longest;
        out->queued = run->queued;
        out->queued_peak = run->queued_peak;
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
