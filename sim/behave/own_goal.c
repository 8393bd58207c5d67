/* Agents' own goals (own_goal.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/alloc.h"
#include "engine/hash.h"
#include "sim/behave/choice.h"
#include "sim/behave/own_goal.h"
#include "sim/behave/own_plan.h"
#include "sim/behave/squad.h"
#include "sim/core/error.h"
#include "sim/dist/dist.h"
#include "sim/terrain/world_nav_private.h"
#include "throng/building.h"

void th_own_free(th_world *w) {
    if (!w->own) return;
    th_free(w->own->goal);
    th_free(w->own->path);
    th_free(w->own->order);
    th_free(w->own->due);
    th_free(w->own->due_ids);
    th_free(w->own->due_spare);
    th_free(w->own);
    w->own = NULL;
}

/* The table and own_of_id, for the agents added before. */
static bool create(th_world *w) {
    struct th_own_goals *o = th_calloc(1, sizeof *o);
    uint32_t *of = w->id_capacity ? th_calloc(w->id_capacity, sizeof *of) : NULL;
    if (!o || (w->id_capacity && !of)) {
        th_free(o);
        th_free(of);
        return false;
    }
    w->own = o;
    w->own_of_id = of;
    return true;
}

/* Room for `n` entries (goals and their paths), so that adding them allocates nothing. */
static bool reserve_entries(th_world *w, uint32_t n) {
    struct th_own_goals *o = w->own;
    if (n <= o->cap) return true;
    const uint32_t old_cap = o->cap;
    if (!th_array_reserve((void **)&o->goal, sizeof *o->goal, o->count, &o->cap, n, 16, 1u << 20) ||
        o->cap < n) /* past the most entries the table holds */
        return false;
    if (o->cap != old_cap &&
        (!th_grow_array((void **)&o->path, sizeof *o->path * TH_AGENT_PATH_POINTS, o->count,
                        o->cap) ||
         !th_grow_array((void **)&o->order, sizeof *o->order, 0, o->cap))) {
        o->cap = old_cap; /* the goals grew, the rest did not: keep within the rest */
        return false;
    }
    return true;
}

/* An entry for the agent: its own, a free one, or one whose agent has gone. `arriving`: agents
 * are arriving from other ranks (th_own_unpack), not all of them stored yet, so an entry's
 * agent counts as gone only when it has left the world (the replicated id table). */
static th_own_goal *entry_for_in(th_world *w, th_agent_id id, bool arriving) {
    struct th_own_goals *o = w->own;
    const uint32_t slot = th_id_slot(id);
    if (w->own_of_id[slot]) return &o->goal[w->own_of_id[slot] - 1u];
    /* A new entry while the table has room for it past the entries goals given for a later
     * step may take. Once it has none, before it grows: one whose agent has gone or went back
     * to its crowd's goal, looked for from where the last look ended (so giving many goals
     * does not look over the whole table each time). */
    for (uint32_t n = 0; o->count + 1u + o->due_pending > o->cap && n < o->count; n++) {
        const uint32_t i = (o->reuse + n) % o->count;
        th_own_goal *g = &o->goal[i];
        const bool alive = g->used && (arriving ? th_agent_known(w, g->id)
                                                : th_agent_index(w, g->id) != UINT32_MAX &&
                                                      w->own_of_id[th_id_slot(g->id)] == i + 1u);
        if (!alive) {
            th_own_plan_drop(w, g);
            o->reuse = i + 1u;
            w->own_of_id[slot] = i + 1u;
            return g;
        }
    }
    if (!reserve_entries(w, o->count + 1u + o->due_pending)) return NULL;
    w->own_of_id[slot] = ++o->count;
    return &o->goal[o->count - 1u];
}

static th_own_goal *entry_for(th_world *w, th_agent_id id) { return entry_for_in(w, id, false); }

bool th_own_plan_at_once(th_world *w, th_own_goal *g, th_vec2 p) {
    g->pending = false;
    th_vec2 *path = th_own_path(w, g);
    const uint32_t k = th_path_plan(w, p, g->goal.point, path, TH_AGENT_PATH_POINTS);
    g->stuck = k == 0;
    g->count = k;
    /* A path longer than the room is cut: its last point is on the way, not the goal. */
    g->cut = k > 0 && (path[k - 1].x != g->goal.point.x || path[k - 1].y != g->goal.point.y);
    g->replan = false;
    /* The plan starts at p's cell centre: head for the next waypoint at once. */
    g->next = k > 1 ? 1 : 0;
    return k > 0;
}

/* Plan g's path from p: through the world's goal planner when it is on (found in a later part
 * of a step; true meanwhile), else at once; false when there is none. */
static bool plan_point(th_world *w, th_own_goal *g, th_vec2 p) {
    th_own_plan_drop(w, g);
    return th_own_plan_defer(w, g) || th_own_plan_at_once(w, g, p);
}

/* Over several ranks: a point and the crowd's goal again. An exit, or an agent to follow,
 * would need what only the agent's owner knows (its crowd; where the other is). */
static bool dist_kind_ok(const th_world *w, const th_agent_goal *goal, th_error *err) {
    if (!w->dist || goal->kind == TH_AGENT_GOAL_POINT || goal->kind == TH_AGENT_GOAL_CROWD)
        return true;
    th_error_set(err, TH_ERR_STATE, "%s is not supported over several MPI ranks",
                 goal->kind == TH_AGENT_GOAL_EXIT ? "an agent's own exit"
                                                  : "following another agent");
    return false;
}

/* Whether `id` names an agent of the world. Over several ranks only its owner stores it: the
 * others know it from the id table every rank keeps (as th_world_remove_agent does). */
static bool known(const th_world *w, th_agent_id id) {
    return w->dist ? th_agent_known(w, id) : th_agent_index(w, id) != UINT32_MAX;
}

/* A call that gives `id` (at step `step`: 0 now) its own goal, into w->own_call_hash: every
 * rank makes the same calls, and the ranks compare the hash (sim/observe/digest.c). */
static void note_call(th_world *w, uint64_t step, th_agent_id id, const th_agent_goal *g) {
    th_hasher h = {w->own_call_hash};
    th_hash_u64(&h, step);
    th_hash_u64(&h, (uint64_t)id.index1 << 32 | id.generation);
    th_hash_u32(&h, (uint32_t)g->kind);
    th_hash_f32(&h, g->point.x);
    th_hash_f32(&h, g->point.y);
    th_hash_f32(&h, g->radius);
    th_hash_u32(&h, g->exit.index1);
    th_hash_u64(&h, (uint64_t)g->follow.index1 << 32 | g->follow.generation);
    th_hash_u32(&h, (uint32_t)g->priority);
    w->own_call_hash = h.h;
}

static bool set_goal(th_world *w, th_agent_id id, const th_agent_goal *goal, th_error *err);
static bool set_goal_in(th_world *w, th_agent_id id, const th_agent_goal *goal, bool ready,
                        th_error *err);

bool th_world_set_agents_goal(th_world *w, const th_agent_id *ids, uint32_t count,
                              const th_agent_goal *goal, uint32_t *done, th_error *err) {
    if (done) *done = 0;
    if (!w || !goal || (count && !ids)) {
        th_error_set(err, TH_ERR_INVALID, "null world, goal or selection");
        return false;
    }
    for (uint32_t i = 0; i < count; i++) {
        if (!known(w, ids[i])) {
            th_error_set(err, TH_ERR_HANDLE,
                         "agent %u of the selection: no agent %u (generation %u); none changed", i,
                         ids[i].index1, ids[i].generation);
            return false;
        }
    }
    /* The path memory made ready once for the whole selection, not once an agent. */
    const bool ready =
        count && goal->kind == TH_AGENT_GOAL_POINT && w->nav.present && !w->stepping && !w->dist;
    if (ready && !th_nav_path_ready(w, err)) return false;
    for (uint32_t i = 0; i < count; i++) {
        if (ready) note_call(w, 0, ids[i], goal);
        if (ready ? !set_goal_in(w, ids[i], goal, true, err)
                  : !th_world_set_agent_goal(w, ids[i], goal, err)) {
            char why[sizeof err->message];
            snprintf(why, sizeof why, "%s", err ? err->message : "");
            if (err) {
                snprintf(err->message, sizeof err->message,
                         "agent %u of the selection (the first %u have the goal): %.400s", i, i,
                         why);
            }
            return false;
        }
        if (done) *done = i + 1u;
    }
    return true;
}

bool th_world_set_agent_goal(th_world *w, th_agent_id id, const th_agent_goal *goal,
                             th_error *err) {
    if (!w || !goal) {
        th_error_set(err, TH_ERR_INVALID, "null world or goal");
        return false;
    }
    if (w->stepping) {
        th_error_set(err, TH_ERR_STATE, "an agent's goal is set between steps");
        return false;
    }
    if (!dist_kind_ok(w, goal, err)) return false;
    note_call(w, 0, id, goal);
    if (!w->dist) return set_goal(w, id, goal, err);
    /* The collective call below would meet another in a rank that was given no such call (or
     * another) and wait for ever: the ranks compare the calls first, as every rank does at the
     * start of th_world_dist_check before its first step. */
    if (!th_dist_same_goal_calls(w, err)) return false;
    /* Over several ranks only the owner looks for the way to a point: whether it found one,
     * and whether any rank failed, is every rank's answer (a collective call every rank
     * reaches), so all answer as one process would. */
    if (w->own) w->own->kept = false;
    const bool ok = set_goal(w, id, goal, err);
    const bool kept = ok && w->own && w->own->kept;
    uint32_t why = (uint32_t)kept | (uint32_t)!ok << 1;
    th_dist_or_u32(w, &why, 1);
    if (ok && (why & 1u)) {
        th_error_set(err, TH_ERR_UNREACHABLE, "no path to (%g, %g) from where agent %u stands",
                     (double)goal->point.x, (double)goal->point.y, id.index1);
        return false;
    }
    if (ok && (why & 2u)) {
        th_error_set(err, TH_ERR_NOMEM, "another MPI rank could not give agent %u its goal",
                     id.index1);
        return false;
    }
    return ok;
}

/* th_world_set_agent_goal past its checks of the call: between steps, or for a goal given at a
 * step, in the events phase (then with the memory it needs made ready when it was given). */
/* What set_goal refuses of `goal` for agent `id`, as the world stands, changing nothing (the
 * path to a point is not looked for). */
static bool check_goal(const th_world *w, th_agent_id id, const th_agent_goal *g, th_error *err) {
    const uint32_t k = th_agent_index(w, id);
    if (!known(w, id)) {
        th_error_set(err, TH_ERR_HANDLE, "no agent %u (generation %u)", id.index1, id.generation);
        return false;
    }
    /* A squad member walks to its slot of the formation, wherever its squad goes: a goal of
     * its own would be kept and never walked to. */
    if (g->kind != TH_AGENT_GOAL_CROWD && th_id_slot(id) < w->id_capacity &&
        w->squad_of_id[th_id_slot(id)]) {
        th_error_set(err, TH_ERR_STATE,
                     "agent %u marches in squad %u, which leads it: give the squad its goal "
                     "(th_world_add_squad) or the agent one before it joins",
                     id.index1, (unsigned)w->squad_of_id[th_id_slot(id)] - 1u);
        return false;
    }
    switch (g->kind) {
    case TH_AGENT_GOAL_CROWD: return true;
    case TH_AGENT_GOAL_EXIT: {
        const uint32_t crowd = w->buf[w->cur].crowd[k];
        if (g->exit.index1 > w->nav.bunker_count) {
            th_error_set(err, TH_ERR_HANDLE, "no bunker with handle %u (the world has %u)",
                         g->exit.index1, w->nav.bunker_count);
            return false;
        }
        if (!w->crowd_rt[crowd].flee) {
            th_error_set(err, TH_ERR_STATE, "agent %u is of crowd '%s', which does not flee",
                         id.index1, w->crowd_name[crowd]);
            return false;
        }
        return true;
    }
    case TH_AGENT_GOAL_POINT:
    case TH_AGENT_GOAL_FOLLOW: break;
    default:
        th_error_set(err, TH_ERR_INVALID, "unknown agent goal kind %d", (int)g->kind);
        return false;
    }
    const float r = g->radius == 0.0f ? 1.0f : g->radius;
    if (!(isfinite(r) && r > 0.0f && r <= 1000.0f)) {
        th_error_set(err, TH_ERR_INVALID, "radius must be in (0, 1000] metres, got %g",
                     (double)g->radius);
        return false;
    }
    if (g->kind == TH_AGENT_GOAL_FOLLOW) {
        if (th_agent_index(w, g->follow) == UINT32_MAX || g->follow.index1 == id.index1) {
            th_error_set(err, TH_ERR_HANDLE, "no other agent %u (generation %u) to follow",
                         g->follow.index1, g->follow.generation);
            return false;
        }
        return true;
    }
    const th_vec2 q = g->point;
    if (!(q.x >= 0.0f && q.x < w->def.width && q.y >= 0.0f && q.y < w->def.height)) {
        th_error_set(err, th_error_point_code(q), "the point (%g, %g) is outside the world",
                     (double)q.x, (double)q.y);
        return false;
    }
    if (w->nav.present && th_navmap_blocked_at(&w->nav.map, q)) {
        th_error_set(err, TH_ERR_BLOCKED, "the point (%g, %g) is inside a wall", (double)q.x,
                     (double)q.y);
        return false;
    }
    return true;
}

static bool set_goal(th_world *w, th_agent_id id, const th_agent_goal *goal, th_error *err) {
    return set_goal_in(w, id, goal, false, err);
}

/* `ready`: the caller made the path memory ready (a selection, once for all), or it was made
 * ready when a change made in a step (th_own_due) was given; A* works with landmarks gone stale
 * since, so they are not rebuilt inside the step. */
static bool set_goal_in(th_world *w, th_agent_id id, const th_agent_goal *goal, bool ready,
                        th_error *err) {
    if (!check_goal(w, id, goal, err)) return false;
    const uint32_t k = th_agent_index(w, id);
    const uint32_t slot = th_id_slot(id);
    if (k == UINT32_MAX) {
        /* Another rank's agent: its owner makes the change. Every rank keeps the path memory
         * and the table as its owner does, so a later plan and a migrant's record agree. */
        if (goal->kind == TH_AGENT_GOAL_POINT && w->nav.present && !ready &&
            !th_nav_path_ready(w, err))
            return false;
        if (goal->kind == TH_AGENT_GOAL_POINT && !w->own && !create(w)) {
            th_error_set(err, TH_ERR_NOMEM, "out of memory");
            return false;
        }
        return true;
    }
    const th_agents *a = &w->buf[w->cur];
    const th_vec2 p = th_v2(a->px[k], a->py[k]);
    th_agent_goal g = *goal;
    if (g.kind == TH_AGENT_GOAL_CROWD) {
        if (w->own && w->own_of_id[slot]) {
            th_own_plan_drop(w, &w->own->goal[w->own_of_id[slot] - 1u]);
            w->own->goal[w->own_of_id[slot] - 1u].used = false;
            w->own_of_id[slot] = 0;
        }
        /* Its crowd's exit again: the nearest, or the crowd's choice drawn anew. */
        if (w->exit_of_id) {
            w->exit_of_id[slot] = 0;
            th_choice_agent_added(w, a->crowd[k], id);
        }
        return true;
    }
    if (g.kind == TH_AGENT_GOAL_EXIT) {
        /* Its exit steers it (exit_of_id, which drops any own goal it had); the entry is kept
         * so that the goal reads back. */
        if (!th_choice_set_exit(w, id, g.exit, err)) return false;
        th_own_goal *e = w->own || create(w) ? entry_for(w, id) : NULL;
        if (!e) {
            th_error_set(err, TH_ERR_NOMEM, "out of memory");
            return false;
        }
        th_own_plan_drop(w, e);
        *e = (th_own_goal){.id = id, .goal = g, .used = true};
        return true;
    }
    const float r = g.radius == 0.0f ? 1.0f : g.radius;
    g.radius = r;
    /* A point the goal planner takes needs no A* now (the planner made it ready for the paths
     * it leaves to A*). */
    if (g.kind == TH_AGENT_GOAL_POINT && w->nav.present && !ready && !th_own_plan_defers(w) &&
        !th_nav_path_ready(w, err))
        return false;
    if (!w->own && !create(w)) {
        th_error_set(err, TH_ERR_NOMEM, "out of memory");
        return false;
    }
    th_own_goal *e = entry_for(w, id);
    if (!e) {
        th_error_set(err, TH_ERR_NOMEM, "out of memory");
        return false;
    }
    th_own_goal was = *e;
    if (was.pending) was.req = (th_plan_id){0, 0}; /* asked anew should it come back */
    th_own_plan_drop(w, e);
    *e = (th_own_goal){.id = id, .goal = g, .r2 = r * r, .used = true};
    if (g.kind == TH_AGENT_GOAL_POINT && !plan_point(w, e, p)) {
        if (was.used && th_agent_index(w, was.id) == k) { /* its former goal stays */
            *e = was;
            if (was.pending) w->own_plan->maybe_waiting = true;
        } else {
            e->used = false;
            w->own_of_id[slot] = 0;
        }
        /* Over several ranks only the owner looks for the way, and the call's answer must be
         * every rank's: the change is not made, as in one process, but not refused. */
        if (w->dist) {
            w->own->kept = true;
            return true;
        }
        th_error_set(err, TH_ERR_UNREACHABLE, "no path from (%g, %g) to (%g, %g)", (double)p.x,
                     (double)p.y, (double)g.point.x, (double)g.point.y);
        return false;
    }
    return true;
}

/* ---- goals given at a step ---------------------------------------------------------------- */

bool th_world_schedule_agents_goal(th_world *w, uint64_t step, const th_agent_id *ids,
                                   uint32_t count, const th_agent_goal *goal, th_error *err) {
    if (!w || !goal || (count && !ids)) {
        th_error_set(err, TH_ERR_INVALID, "null world, goal or selection");
        return false;
    }
    if (!th_between_steps(w, err) || !dist_kind_ok(w, goal, err)) return false;
    if (step < w->step) {
        th_error_set(err, TH_ERR_INVALID, "step %llu is already past (the world is at step %llu)",
                     (unsigned long long)step, (unsigned long long)w->step);
        return false;
    }
    for (uint32_t i = 0; i < count; i++) note_call(w, step + 1, ids[i], goal);
    for (uint32_t i = 0; i < count; i++) {
        if (!check_goal(w, ids[i], goal, err)) {
            char why[sizeof err->message];
            snprintf(why, sizeof why, "%s", err ? err->message : "");
            if (err)
                snprintf(err->message, sizeof err->message, "agent %u of the selection: %.400s", i,
                         why);
            return false;
        }
    }
    /* What the change will need, made ready now: the step that makes it allocates nothing. */
    if ((goal->kind == TH_AGENT_GOAL_EXIT && !th_choice_want_exits(w)) || (!w->own && !create(w))) {
        th_error_set(err, TH_ERR_NOMEM, "out of memory");
        return false;
    }
    if (goal->kind == TH_AGENT_GOAL_POINT && w->nav.present && !th_own_plan_defers(w) &&
        !th_nav_path_ready(w, err))
        return false;
    struct th_own_goals *o = w->own;
    if (o->due_ids_count + (uint64_t)count > (1u << 26) ||
        o->count + (uint64_t)o->due_pending + count > (1u << 20)) {
        th_error_set(err, TH_ERR_LIMIT, "more than %u goal changes pending or own goals held",
                     1u << 20);
        return false;
    }
    /* Every agent given a change may need an entry of its own; the ids are compacted into a
     * spare array of the same size when made (th_own_due). */
    if (!reserve_entries(w, o->count + o->due_pending + count) ||
        !th_array_reserve((void **)&o->due, sizeof *o->due, o->due_count, &o->due_cap,
                          o->due_count + 1u, 16, UINT32_MAX) ||
        !th_array_reserve((void **)&o->due_ids, sizeof *o->due_ids, o->due_ids_count,
                          &o->due_ids_cap, o->due_ids_count + count, 64, UINT32_MAX) ||
        (o->due_spare_cap < o->due_ids_cap &&
         !th_grow_array((void **)&o->due_spare, sizeof *o->due_spare, 0, o->due_ids_cap))) {
        th_error_set(err, TH_ERR_NOMEM, "out of memory");
        return false;
    }
    o->due_spare_cap = o->due_ids_cap;
    if (count) memcpy(o->due_ids + o->due_ids_count, ids, count * sizeof *ids);
    /* Kept by step, then in the order given (a later change for the same step goes after). */
    uint32_t at = o->due_count++;
    for (; at > 0 && o->due[at - 1].step > step; at--) o->due[at] = o->due[at - 1];
    o->due[at] = (th_goal_due){step, *goal, o->due_ids_count, count};
    o->due_ids_count += count;
    o->due_pending += count;
    return true;
}

void th_own_due(th_world *w) {
    struct th_own_goals *o = w->own;
    if (!o || !o->due_count || o->due[0].step > w->step) return;
    uint32_t done = 0;
    for (; done < o->due_count && o->due[done].step <= w->step; done++) {
        const th_goal_due *d = &o->due[done];
        for (uint32_t i = 0; i < d->count; i++) {
            /* Not pending once being made: the entry it may take is within the room reserved
             * for it (entry_for counts the pending ones past it). */
            o->due_pending--;
            /* One that left, whose point it has no way to now, or whose agent to follow left,
             * keeps its goal. Over several ranks each counts what it owns (the report sums
             * them), and the first one the agents gone from every rank. */
            const th_agent_id id = o->due_ids[d->first + i];
            const bool mine = th_agent_index(w, id) != UINT32_MAX;
            o->kept = false;
            const bool ok = set_goal_in(w, id, &d->goal, true, NULL);
            if (ok && !o->kept) o->due_made += mine;
            else if (!w->dist || mine || (th_dist_rank(w) == 0 && !known(w, id))) o->due_passed++;
        }
    }
    memmove(o->due, o->due + done, (o->due_count - done) * sizeof *o->due);
    o->due_count -= done;
    /* The ids of the selections made are dead: once they are most of the array, the rest move
     * to the spare array (as large, so nothing allocates) in the order of the changes. */
    if (o->due_ids_count > 2u * o->due_pending + 64u) {
        uint32_t n = 0;
        for (uint32_t i = 0; i < o->due_count; i++) {
            th_goal_due *d = &o->due[i];
            memcpy(o->due_spare + n, o->due_ids + d->first, d->count * sizeof *o->due_ids);
            d->first = n;
            n += d->count;
        }
        th_agent_id *t = o->due_ids;
        o->due_ids = o->due_spare;
        o->due_spare = t;
        const uint32_t cap = o->due_ids_cap;
        o->due_ids_cap = o->due_spare_cap;
        o->due_spare_cap = cap;
        o->due_ids_count = n;
    }
}

void th_world_goal_changes(const th_world *w, uint64_t *pending, uint64_t *made, uint64_t *passed) {
    const struct th_own_goals *o = w ? w->own : NULL;
    uint64_t n = 0;
    for (uint32_t i = 0; o && i < o->due_count; i++) n += o->due[i].count;
    if (pending) *pending = n;
    if (made) *made = o ? o->due_made : 0;
    if (passed) *passed = o ? o->due_passed : 0;
}

/* Where a followed agent is, or false once it has gone. */
static bool followed_at(const th_world *w, th_agent_id id, th_vec2 *at) {
    const uint32_t k = th_agent_index(w, id);
    if (k == UINT32_MAX) return false;
    const th_agents *a = &w->buf[w->cur];
    *at = th_v2(a->px[k], a->py[k]);
    return true;
}

/* Whether agent k, led by g, stands within the goal's radius: of its point (not of the path's
 * last waypoint, which is short of it on a path cut short) or of the agent it follows. */
static bool own_reached(const th_world *w, const th_own_goal *g, uint32_t k) {
    const th_agents *a = &w->buf[w->cur];
    th_vec2 at = g->goal.point;
    if (g->goal.kind == TH_AGENT_GOAL_FOLLOW && !followed_at(w, g->goal.follow, &at)) return false;
    const th_vec2 d = th_min_image(th_v2_sub(at, th_v2(a->px[k], a->py[k])), w->wrap, w->def.width,
                                   w->def.height);
    return th_v2_len2(d) <= g->r2;
}

th_own_goal_counts th_world_own_goal_counts(const th_world *w) {
    th_own_goal_counts c = {0};
    const struct th_own_goals *o = w ? w->own : NULL;
    for (uint32_t i = 0; o && i < o->count; i++) {
        const th_own_goal *g = &o->goal[i];
        if (!g->used) continue;
        /* An entry left behind by an agent that has gone, or whose slot holds another entry. */
        const uint32_t k = th_agent_index(w, g->id);
        if (k == UINT32_MAX || w->own_of_id[th_id_slot(g->id)] != i + 1u) continue;
        if (th_own_active(w, th_id_slot(g->id)) != g) continue; /* an exit, or followed one gone */
        c.given++;
        if (own_reached(w, g, k)) c.reached++;
        /* No path, none asked of the goal planner: aim() has nowhere to lead it (stranded). */
        else if (g->goal.kind == TH_AGENT_GOAL_POINT && !g->pending && g->count == 0)
            c.unreachable++;
        else c.walking++;
    }
    return c;
}

bool th_world_get_agent_goal(const th_world *w, th_agent_id id, th_agent_goal *out) {
    const uint32_t k = w && out ? th_agent_index(w, id) : UINT32_MAX;
    if (k == UINT32_MAX) return false;
    const uint32_t slot = th_id_slot(id);
    const th_own_goal *g = th_own_of(w, slot);
    *out = g ? g->goal : (th_agent_goal){.kind = TH_AGENT_GOAL_CROWD};
    /* An exit it was sent to (not one its crowd's choice gave it). */
    if (!g && w->exit_of_id && w->exit_of_id[slot] >= 1u &&
        w->exit_of_id[slot] <= w->nav.bunker_count &&
        !w->exit_store[w->buf[w->cur].crowd[k]].listed) {
        out->kind = TH_AGENT_GOAL_EXIT;
        out->exit = (th_bunker_id){w->exit_of_id[slot]};
    }
    return true;
}

/* The point it walks to now and whether that is the end of its way. */
static bool aim(const th_world *w, const th_own_goal *g, th_vec2 *at, bool *last) {
    if (g->goal.kind == TH_AGENT_GOAL_FOLLOW) {
        *last = true;
        return followed_at(w, g->goal.follow, at);
    }
    if (g->pending) { /* the goal planner's coarse route meanwhile */
        *last = false;
        return th_own_plan_aim(w, g, at);
    }
    if (g->count == 0) return false;
    const uint32_t i = g->next < g->count ? g->next : g->count - 1u;
    *at = th_own_path(w, g)[i];
    *last = i + 1u == g->count && !g->cut;
    return true;
}

bool th_own_direction(const th_world *w, const th_own_goal *g, th_vec2 p, th_vec2 *dir) {
    *dir = th_v2(0.0f, 0.0f);
    th_vec2 at;
    bool last;
    if (!aim(w, g, &at, &last)) return g->goal.kind == TH_AGENT_GOAL_FOLLOW; /* gone: stand */
    const th_vec2 waypoint = at;
    /* A path over a stair lists the two sides of its seam in a row: walk across it. */
    if (g->goal.kind == TH_AGENT_GOAL_POINT && g->next > 0 && g->next < g->count)
        at = th_nav_seam_aim(w, p, th_own_path(w, g)[g->next - 1u], at);
    const th_vec2 d = th_min_image(th_v2_sub(at, p), w->wrap, w->def.width, w->def.height);
    if (last && th_v2_len2(d) <= g->r2) return true; /* there */
    if (g->pending && th_own_arrived(w, g, p)) return true;
    *dir = th_v2_norm(d);
    /* Bound for a waypoint on its own level: not back across a seam it stands by. */
    if (w->nav.present && w->nav.map.link_count) *dir = th_nav_seam_keep(w, p, waypoint, *dir);
    return true;
}

void th_own_moved(th_world *w, th_own_goal *g, th_vec2 p) {
    if (g->goal.kind != TH_AGENT_GOAL_POINT) return;
    /* A waypoint is passed when within half a cell (a metre without a map) of it. */
    const float reach = w->nav.present ? 0.5f * w->nav.map.cell_size : 1.0f;
    const th_vec2 *path = th_own_path(w, g);
    while (g->next + 1u < g->count) {
        const th_vec2 d = th_v2_sub(path[g->next], p);
        if (th_v2_len2(d) > reach * reach) break;
        g->next++;
    }
    /* At the end of a path cut short: the rest is planned in the next step's nav phase. */
    if (g->cut && g->count > 0 && g->next + 1u == g->count &&
        th_v2_len2(th_v2_sub(path[g->count - 1u], p)) <= reach * reach)
        g->replan = true;
}

bool th_own_placed(th_world *w, uint32_t slot, th_vec2 p, th_error *err) {
    th_own_goal *g = th_own_of(w, slot);
    if (!g || !g->used || g->goal.kind != TH_AGENT_GOAL_POINT) return true;
    /* Between steps, as th_world_set_agent_goal plans: the path memory made ready first. */
    if (w->nav.present && !th_own_plan_defers(w) && !th_nav_path_ready(w, err)) return false;
    plan_point(w, g, p);
    return true;
}

bool th_own_arrived(const th_world *w, const th_own_goal *g, th_vec2 p) {
    if (g->pending) /* no path yet: there when within the radius of the point */
        return th_v2_len2(th_min_image(th_v2_sub(g->goal.point, p), w->wrap, w->def.width,
                                       w->def.height)) <= g->r2;
    th_vec2 at;
    bool last;
    if (!aim(w, g, &at, &last) || !last) return false;
    return th_v2_len2(th_min_image(th_v2_sub(at, p), w->wrap, w->def.width, w->def.height)) <=
           g->r2;
}

void th_own_after_terrain(th_world *w, bool map_changed) {
    struct th_own_goals *o = w->own;
    if (!o) return;
    const th_world_nav *nv = &w->nav;
    const th_agents *a = &w->buf[w->cur];
    for (uint32_t i = 0; i < o->count; i++) {
        th_own_goal *g = &o->goal[i];
        /* A pending one: the goal planner takes the change into its view itself. */
        if (!g->used || g->goal.kind != TH_AGENT_GOAL_POINT || g->pending) continue;
        const uint32_t k = th_agent_index(w, g->id);
        if (k == UINT32_MAX || w->own_of_id[th_id_slot(g->id)] != i + 1u) continue;
        const th_vec2 p = th_v2(a->px[k], a->py[k]);
        const th_vec2 *path = th_own_path(w, g);
        /* Stalled (no progress for the stall time) with a wall between it and its waypoint:
         * pushed off its way, by the crowd or round a corner (or, on a stair, by walkers
         * coming the other way). Planned again from where it stands, once a stall. A waypoint
         * on another level is the far side of a seam, which the near side, listed before it,
         * sees only through the seam: then the near side must be in sight. */
        bool unstick = false;
        if (!(w->flags[k] & TH_AGENT_STALLED)) g->unstuck = false;
        else if (!g->unstuck && nv->present && g->count > 0) {
            th_vec2 to = path[g->next];
            if (nv->map.link_count && g->next > 0 &&
                th_world_level_at(w, p).index1 != th_world_level_at(w, to).index1)
                to = path[g->next - 1u];
            int32_t x, y, tx, ty;
            th_navmap_cell_of(&nv->map, p, &x, &y);
            th_navmap_cell_of(&nv->map, to, &tx, &ty);
            unstick = g->unstuck = !th_nav_line_of_sight(&nv->map, x, y, tx, ty);
        }
        if (g->replan || unstick ||
            (map_changed && nv->present &&
             (nv->terrain_lowered || g->stuck ||
              th_path_meets_raised(w, p, path + g->next, g->count - g->next))))
            plan_point(w, g, p);
    }
}

uint32_t th_own_plan(const th_world *w, const th_own_goal *g, th_vec2 p, th_vec2 *out, uint32_t max,
                     float *metres) {
    th_vec2 at;
    bool last;
    if (g->pending) { /* no path yet: the straight way to the point (at least) */
        if (out && max == 0) return UINT32_MAX - 1u;
        if (out) out[0] = g->goal.point;
        *metres = th_v2_len(
            th_min_image(th_v2_sub(g->goal.point, p), w->wrap, w->def.width, w->def.height));
        return 1;
    }
    if (!aim(w, g, &at, &last)) return UINT32_MAX;
    const th_vec2 *path = g->goal.kind == TH_AGENT_GOAL_POINT ? th_own_path(w, g) : &at;
    const uint32_t first = g->goal.kind == TH_AGENT_GOAL_POINT ? g->next : 0;
    const uint32_t end = g->goal.kind == TH_AGENT_GOAL_POINT ? g->count : 1;
    float m = 0.0f;
    uint32_t n = 0;
    th_vec2 from = p;
    for (uint32_t i = first; i < end; i++) {
        if (out && n == max) return UINT32_MAX - 1u;
        m +=
            th_v2_len(th_min_image(th_v2_sub(path[i], from), w->wrap, w->def.width, w->def.height));
        if (out) out[n] = path[i];
        n++;
        from = path[i];
    }
    /* A path cut short: the rest, not planned yet, counts as the straight way (at least). */
    if (g->goal.kind == TH_AGENT_GOAL_POINT && g->cut)
        m += th_v2_len(th_v2_sub(g->goal.point, from));
    *metres = m;
    return n;
}

/* ---- over several ranks: an own goal travels with its agent -------------------------------- */

size_t th_own_wire_size(const th_world *w) {
    return w->own ? 1u + sizeof(th_own_goal) + TH_AGENT_PATH_POINTS * sizeof(th_vec2) : 0u;
}

void th_own_pack(th_world *w, uint32_t slot, unsigned char *p) {
    if (!w->own) return;
    th_own_goal *g = th_own_of(w, slot);
    memset(p, 0, th_own_wire_size(w)); /* every byte sent is written */
    if (!g) return;
    p[0] = 1;
    memcpy(p + 1, g, sizeof *g);
    memcpy(p + 1 + sizeof *g, th_own_path(w, g), g->count * sizeof(th_vec2));
    g->used = false; /* the agent leaves this rank: its entry is free */
    w->own_of_id[slot] = 0;
}

bool th_own_unpack(th_world *w, th_agent_id id, const unsigned char *p) {
    if (!w->own || !p[0]) return true;
    th_own_goal in;
    memcpy(&in, p + 1, sizeof in);
    th_own_goal *e = entry_for_in(w, id, true);
    if (!e) return false;
    *e = in;
    memcpy(th_own_path(w, e), p + 1 + sizeof in, in.count * sizeof(th_vec2));
    return true;
}
