/* The world's planner of agents' own point goals (own_plan.h). */
#include <string.h>

#include "engine/alloc.h"
#include "sim/behave/own_plan.h"
#include "sim/core/error.h"
#include "sim/terrain/plan_world.h"
#include "sim/terrain/world_nav_private.h"

#define DEFAULT_REQUESTS 64u
#define MAX_REQUESTS     (1u << 20)

/* The planner's hierarchy crosses the map's stairs (glued edges) when it has a node slot for
 * each of them; stairs added after goal planning was set may outgrow the slots sized then, and
 * goals are then planned at once (with A*, which crosses every stair). */
static bool can_defer(const th_world *w) {
    return w->nav.present && th_plan_holds_map(w->own_plan->planner, w);
}

bool th_own_plan_defers(const th_world *w) { return w->own_plan && can_defer(w); }

bool th_own_plan_defer(th_world *w, th_own_goal *g) {
    struct th_own_planning *P = w->own_plan;
    if (!P) return false;
    if (!can_defer(w)) {
        P->at_once++;
        return false;
    }
    g->req = (th_plan_id){0, 0};
    g->pending = true;
    g->since = w->step;
    g->seq = ++P->given;
    g->count = 0;
    g->next = 0;
    g->cut = g->stuck = g->replan = false;
    P->maybe_waiting = true;
    return true;
}

void th_own_plan_drop(th_world *w, th_own_goal *g) {
    if (g->req.index1 && w->own_plan) th_planner_release(w->own_plan->planner, g->req, NULL);
    g->req = (th_plan_id){0, 0};
    g->pending = false;
}

bool th_own_plan_aim(const th_world *w, const th_own_goal *g, th_vec2 *at) {
    const struct th_own_planning *P = w->own_plan;
    if (P && g->req.index1) return th_plan_heading_point(P->planner, g->req, at);
    *at = g->goal.point; /* queued for a slot: straight at the goal */
    return true;
}

/* Entry i's agent, or UINT32_MAX once the entry is free or its agent has gone. */
static uint32_t agent_of(const th_world *w, uint32_t i) {
    const th_own_goal *g = &w->own->goal[i];
    if (!g->used || w->own_of_id[th_id_slot(g->id)] != i + 1u) return UINT32_MAX;
    return th_agent_index(w, g->id);
}

/* Whether waiting goal a goes before b: higher priority first, then in the order given. */
static bool before(th_own_order a, th_own_order b) {
    if (a.priority != b.priority) return a.priority > b.priority;
    return a.seq < b.seq;
}

/* Drop the requests of entries whose agent has gone (before the budget is spent on them),
 * then submit pending entries without a request while the planner has slots: highest priority
 * first, then in the order given. */
static void submit(th_world *w, struct th_own_planning *P) {
    struct th_own_goals *o = w->own;
    const th_agents *a = &w->buf[w->cur];
    for (uint32_t i = 0; i < o->count; i++)
        if (o->goal[i].pending && agent_of(w, i) == UINT32_MAX) th_own_plan_drop(w, &o->goal[i]);
    const uint32_t room = th_plan_free_slots(P->planner);
    if (!room) return;
    /* The first `room` of them in that order, kept sorted as the table is read (a few slots
     * free up each step: far fewer than the goals waiting). */
    uint32_t n = 0;
    for (uint32_t i = 0; i < o->count; i++) {
        th_own_goal *g = &o->goal[i];
        if (!g->pending || g->req.index1) continue;
        const th_own_order c = {g->goal.priority, i, g->seq};
        if (n == room && !before(c, o->order[n - 1])) continue;
        uint32_t j = n < room ? n++ : n - 1;
        for (; j > 0 && before(c, o->order[j - 1]); j--) o->order[j] = o->order[j - 1];
        o->order[j] = c;
    }
    for (uint32_t j = 0; j < n; j++) {
        th_own_goal *g = &o->goal[o->order[j].entry];
        const uint32_t k = agent_of(w, o->order[j].entry);
        g->req = th_plan_submit_in(P->planner, w, th_v2(a->px[k], a->py[k]), g->goal.point,
                                   g->goal.priority);
        if (!g->req.index1) return;
    }
}

/* Whether the straight way from p to q is clear of walls (cell centres). */
static bool in_sight(const th_world *w, th_vec2 p, th_vec2 q) {
    int32_t x0, y0, x1, y1;
    th_navmap_cell_of(&w->nav.map, p, &x0, &y0);
    th_navmap_cell_of(&w->nav.map, q, &x1, &y1);
    return th_nav_line_of_sight(&w->nav.map, x0, y0, x1, y1);
}

/* A request ended: its path into the entry, or the agent stands (no way), or, past the
 * entry's room, the path is planned at once (and cut). */
static void collect(th_world *w, struct th_own_planning *P, th_own_goal *g, th_plan_status st,
                    th_vec2 p) {
    th_vec2 *path = th_own_path(w, g);
    uint32_t n = 0;
    if (st == TH_PLAN_DONE &&
        th_planner_result(P->planner, g->req, path, TH_AGENT_PATH_POINTS, &n, NULL, NULL) ==
            TH_PLAN_DONE &&
        n > 0 && n <= TH_AGENT_PATH_POINTS) {
        const uint32_t waited = (uint32_t)(w->step - g->since) + 1u;
        th_own_plan_drop(w, g);
        path[n - 1] = g->goal.point; /* the exact goal, not its cell's centre */
        /* The path starts where the agent stood when its request was made; it has walked the
         * coarse route since. It walks on to the first waypoint after the start when it sees
         * it, else back to the start's cell centre when it sees that; one that sees neither
         * has its path planned at once from where it stands. One already within its radius
         * of the goal, in sight of it, stays. */
        uint32_t next = n > 1 ? 1 : 0;
        if (th_v2_len2(th_v2_sub(g->goal.point, p)) <= g->r2 && in_sight(w, p, g->goal.point))
            next = n - 1;
        else if (n > 1 && !in_sight(w, p, path[1])) next = in_sight(w, p, path[0]) ? 0 : UINT32_MAX;
        if (next == UINT32_MAX) {
            P->at_once++;
            th_own_plan_at_once(w, g, p);
            return;
        }
        g->count = n;
        g->next = next;
        P->answered++;
        P->wait_steps += waited;
        if (waited > P->most_steps) P->most_steps = waited;
        return;
    }
    th_own_plan_drop(w, g);
    if (st == TH_PLAN_UNREACHABLE) {
        g->stuck = true;
        g->count = 0;
        P->unreachable++;
        return;
    }
    P->at_once++;
    th_own_plan_at_once(w, g, p);
}

void th_own_plan_serve(th_world *w) {
    struct th_own_planning *P = w->own_plan;
    if (!P) return;
    P->last_expanded = 0;
    if (!w->own || !P->maybe_waiting) return;
    struct th_own_goals *o = w->own;
    const th_agents *a = &w->buf[w->cur];
    const bool defer = can_defer(w);
    if (defer) {
        submit(w, P);
        P->last_expanded = th_plan_serve(P->planner, w, P->def.budget);
        P->expanded += P->last_expanded;
    }
    uint32_t waiting = 0, searching = 0;
    for (uint32_t i = 0; i < o->count; i++) {
        th_own_goal *g = &o->goal[i];
        if (!g->pending) continue;
        const uint32_t k = agent_of(w, i);
        if (k == UINT32_MAX) {
            th_own_plan_drop(w, g);
            continue;
        }
        const th_vec2 p = th_v2(a->px[k], a->py[k]);
        if (!defer) { /* stairs added since outgrew the hierarchy: planned at once */
            th_own_plan_drop(w, g);
            P->at_once++;
            th_own_plan_at_once(w, g, p);
            continue;
        }
        const th_plan_status st =
            g->req.index1 ? th_planner_result(P->planner, g->req, NULL, 0, NULL, NULL, NULL)
                          : TH_PLAN_WAITING;
        if (st == TH_PLAN_WAITING) {
            waiting++;
            searching += g->req.index1 != 0;
            continue;
        }
        collect(w, P, g, st, p);
    }
    P->waiting = waiting;
    P->searching = searching;
    P->maybe_waiting = waiting > 0;
}

/* Every pending entry planned at once (goal planning turned off) or sent to a new planner. */
static void reset_pending(th_world *w, bool at_once) {
    struct th_own_goals *o = w->own;
    const th_agents *a = &w->buf[w->cur];
    for (uint32_t i = 0; o && i < o->count; i++) {
        th_own_goal *g = &o->goal[i];
        if (!g->pending) continue;
        const uint32_t k = agent_of(w, i);
        th_own_plan_drop(w, g);
        if (k == UINT32_MAX) continue;
        if (at_once) {
            th_own_plan_at_once(w, g, th_v2(a->px[k], a->py[k]));
        } else { /* asked anew, keeping when it was given */
            const uint64_t since = g->since, seq = g->seq;
            th_own_plan_defer(w, g);
            g->since = since;
            g->seq = seq;
        }
    }
}

void th_own_plan_free(th_world *w) {
    if (!w->own_plan) return;
    th_planner_destroy(w->own_plan->planner);
    th_free(w->own_plan);
    w->own_plan = NULL;
}

bool th_world_set_goal_planning(th_world *w, const th_goal_planning *def, th_error *err) {
    if (!w) {
        th_error_set(err, TH_ERR_INVALID, "goal planning: no world");
        return false;
    }
    if (!th_between_steps(w, err)) return false;
    th_goal_planning d = def ? *def : (th_goal_planning){0};
    if (!d.budget) {
        if (w->own_plan) {
            th_planner *old = w->own_plan->planner;
            reset_pending(w, true);
            th_planner_destroy(old);
            th_free(w->own_plan);
            w->own_plan = NULL;
        }
        return true;
    }
    if (w->dist) {
        th_error_set(err, TH_ERR_STATE, "goal planning is not supported over several MPI ranks");
        return false;
    }
    if (!th_nav_need_map(w, err)) return false;
    if (!d.max_requests) d.max_requests = DEFAULT_REQUESTS;
    if (d.max_requests > MAX_REQUESTS) {
        th_error_set(err, TH_ERR_INVALID, "goal planning: max_requests %u is above %u",
                     d.max_requests, MAX_REQUESTS);
        return false;
    }
    if (d.cluster_size && (d.cluster_size < 4 || d.cluster_size > 64)) {
        th_error_set(err, TH_ERR_INVALID, "goal planning: cluster_size %u is outside [4, 64]",
                     d.cluster_size);
        return false;
    }
    /* A* stays ready for the paths planned at once (past an own path's room, or stairs that
     * outgrew the hierarchy). */
    if (!th_nav_path_ready(w, err)) return false;
    th_plan_def pd = th_default_plan_def();
    if (d.cluster_size) pd.cluster_size = d.cluster_size;
    d.cluster_size = pd.cluster_size;
    pd.max_requests = d.max_requests;
    pd.max_waypoints = TH_AGENT_PATH_POINTS;
    struct th_own_planning *P = w->own_plan ? w->own_plan : th_calloc(1, sizeof *P);
    th_planner *planner = P ? th_planner_create(w, &pd, err) : NULL;
    if (!planner) {
        if (!P) th_error_set(err, TH_ERR_NOMEM, "goal planning: out of memory");
        else if (!w->own_plan) th_free(P);
        return false;
    }
    if (w->own_plan) { /* goals waiting in the old planner go to the new one */
        reset_pending(w, false);
        th_planner_destroy(P->planner);
    }
    P->planner = planner;
    P->def = d;
    w->own_plan = P;
    P->maybe_waiting = true;
    return true;
}

th_goal_planning_info th_world_goal_planning_info(const th_world *w) {
    th_goal_planning_info i;
    memset(&i, 0, sizeof i);
    const struct th_own_planning *P = w ? w->own_plan : NULL;
    if (!P) return i;
    i.def = P->def;
    i.waiting = P->waiting;
    i.searching = P->searching;
    i.answered = P->answered;
    i.unreachable = P->unreachable;
    i.at_once = P->at_once;
    i.expanded = P->expanded;
    i.last_expanded = P->last_expanded;
    i.most_steps = P->most_steps;
    i.wait_steps = P->wait_steps;
    return i;
}

bool th_world_agent_path_pending(const th_world *w, th_agent_id id) {
    if (!w || th_agent_index(w, id) == UINT32_MAX) return false;
    const th_own_goal *g = th_own_of(w, th_id_slot(id));
    return g && g->pending;
}
