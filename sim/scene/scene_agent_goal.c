/* The scene's `agent_goals` section: agents with goals of their own, from the start or from a
 * time on (th_world_set_agent_goal, th_world_schedule_agents_goal; docs/goals.md "An agent's
 * own goal").
 *
 *     agent_goals:
 *       - {agent: [visitors, 3], point: [40, 12], radius: 0.5}
 *       - {agent: [visitors, 4], follow: [guides, 0], radius: 2}
 *       - {agent: [staff, 0], exit: back door}
 *       - {crowd: cleaners, point: [5, 5]}      # every agent of a crowd, as a selection
 *       - {crowd: cleaners, crowd_goal: true, at: 60}   # back to their crowd's goal at 60 s
 *       - {crowd: couriers, point: [90, 80], priority: 2}
 *     goal_planning: {budget: 2000, cluster_size: 16, max_requests: 4096}
 *
 * With `goal_planning`, points are planned by the world's goal planner over the steps, a
 * budget of expansions a step, by priority (throng/plan.h th_world_set_goal_planning).
 * An agent is a crowd's name and its index among that crowd's agents, as `groups` and
 * `targets` number them. What the world would refuse is checked here where it can be, at its
 * line and column; a point with no path to it, or an index beyond the crowd's agents, is
 * reported when the goals are given, at the entry. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/alloc.h"
#include "engine/arena.h"
#include "sim/scene/scene_internal.h"
#include "throng/plan.h"

#define FAIL(s, n, path, err, ...) th_scene_fail((s), (n), (path), (err), __VA_ARGS__)

/* `[crowd, index]` into (crowd, index). */
static bool agent_ref(th_scene *s, const th_ynode *v, const char *path, uint32_t out[2],
                      th_error *err) {
    char buf[64];
    if (v->kind != TH_Y_SEQUENCE || v->count != 2)
        return FAIL(s, v, path, err, "expected [crowd, index], found %s",
                    th_scene_found(v, buf, sizeof buf));
    const int c = th_scene_find_crowd(s, v->items[0]);
    if (c < 0)
        return FAIL(s, v->items[0], path, err, "expected the name of a crowd, found %s",
                    th_scene_found(v->items[0], buf, sizeof buf));
    uint64_t idx;
    if (!th_scene_u64(s, v->items[1], path, 0, TH_MAX_AGENTS - 1, &idx, err)) return false;
    out[0] = (uint32_t)c;
    out[1] = (uint32_t)idx;
    return true;
}

/* Which entries give goals to whom at which step, to find two for one agent at one time in
 * time linear in the entries: a hash table of (crowd, agent, step) keys, each holding the first
 * entry with it. An entry for a whole crowd has the agent WHOLE; every entry also marks
 * (crowd, ANY, step), so a whole-crowd entry finds any earlier entry of its crowd and step. */
#define GOAL_ANY (TH_SCENE_WHOLE_CROWD - 1u)
typedef struct goal_key {
    uint64_t step;
    uint32_t crowd, agent;
    uint32_t entry; /* index + 1 of the first entry with the key; 0: a free slot */
} goal_key;

typedef struct goal_keys {
    goal_key *slot;
    uint32_t mask;
} goal_keys;

static goal_key *goal_slot(const goal_keys *k, uint32_t crowd, uint32_t agent, uint64_t step) {
    uint64_t h = step * 0x9e3779b97f4a7c15u ^ ((uint64_t)crowd << 32 | agent);
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9u;
    h ^= h >> 32;
    for (uint32_t i = (uint32_t)h & k->mask;; i = (i + 1u) & k->mask) {
        goal_key *e = &k->slot[i];
        if (!e->entry || (e->crowd == crowd && e->agent == agent && e->step == step)) return e;
    }
}

/* The first earlier entry (index + 1) with (crowd, agent, step), 0 when none; then the key is
 * held for entry i. */
static uint32_t goal_mark(goal_keys *k, uint32_t crowd, uint32_t agent, uint64_t step, uint32_t i) {
    goal_key *e = goal_slot(k, crowd, agent, step);
    if (e->entry) return e->entry;
    *e = (goal_key){step, crowd, agent, i + 1u};
    return 0;
}

bool th_scene_parse_agent_goals(th_scene *s, const th_ynode *n, th_error *err) {
    if (!th_scene_expect(s, n, TH_Y_SEQUENCE, "agent_goals", err)) return false;
    s->agent_goal =
        th_arena_alloc(&s->doc.arena, (n->count ? n->count : 1) * sizeof *s->agent_goal);
    if (!s->agent_goal) return TH_SCENE_NOMEM(s, n, "agent_goals", err, "out of memory");
    /* Two keys an entry: at most half the slots taken. */
    uint32_t slots = 16;
    while (slots < 4u * (uint32_t)n->count) slots *= 2u;
    goal_keys keys_seen = {th_arena_alloc(&s->doc.arena, slots * sizeof(goal_key)), slots - 1u};
    if (!keys_seen.slot) return TH_SCENE_NOMEM(s, n, "agent_goals", err, "out of memory");
    memset(keys_seen.slot, 0, slots * sizeof(goal_key));
    static const char *const keys[] = {"agent",      "crowd",  "point", "exit",     "follow",
                                       "crowd_goal", "radius", "at",    "priority", NULL};
    for (uint32_t i = 0; i < n->count; i++) {
        const th_ynode *e = n->items[i], *v;
        char path[64], sub[96], buf[64];
        snprintf(path, sizeof path, "agent_goals[%u]", i);
        if (!th_scene_expect(s, e, TH_Y_MAPPING, path, err) ||
            !th_scene_known_keys(s, e, path, keys, err))
            return false;
        th_scene_agent_goal *g = &s->agent_goal[i];
        memset(g, 0, sizeof *g);
        g->node = e;
        const th_ynode *agent = th_ynode_get(e, "agent"), *crowd = th_ynode_get(e, "crowd");
        if (agent && crowd)
            return FAIL(s, crowd, path, err,
                        "expected `agent: [crowd, index]` or `crowd: NAME` (all of one crowd), "
                        "found both");
        if (crowd) {
            snprintf(sub, sizeof sub, "%s.crowd", path);
            const int c = th_scene_find_crowd(s, crowd);
            if (c < 0)
                return FAIL(s, crowd, sub, err, "expected the name of a crowd, found %s",
                            th_scene_found(crowd, buf, sizeof buf));
            g->agent[0] = (uint32_t)c;
            g->agent[1] = TH_SCENE_WHOLE_CROWD;
        } else {
            snprintf(sub, sizeof sub, "%s.agent", path);
            if (!agent)
                return TH_SCENE_MISSING(s, e, sub, err,
                                        "missing: expected `agent: [crowd, index]` or `crowd: "
                                        "NAME`");
            if (!agent_ref(s, agent, sub, g->agent, err)) return false;
        }
        const th_ynode *point = th_ynode_get(e, "point"), *exit = th_ynode_get(e, "exit"),
                       *follow = th_ynode_get(e, "follow"), *back = th_ynode_get(e, "crowd_goal");
        if ((point != NULL) + (exit != NULL) + (follow != NULL) + (back != NULL) != 1) {
            return FAIL(s, e, path, err,
                        "expected exactly one of `point: [x, y]`, `exit: BUNKER`, "
                        "`follow: [crowd, index]` and `crowd_goal: true`");
        }
        const th_ynode *at = th_ynode_get(e, "at");
        if (at) {
            double secs;
            snprintf(sub, sizeof sub, "%s.at", path);
            if (!th_scene_float(s, at, sub, 0.0, 1.0e9, &secs, err)) return false;
            g->step = (uint64_t)llround(secs / s->timestep);
        }
        if (back) {
            snprintf(sub, sizeof sub, "%s.crowd_goal", path);
            if (back->kind != TH_Y_SCALAR || back->len != 4 || memcmp(back->text, "true", 4) != 0)
                return FAIL(s, back, sub, err,
                            "expected `true` (back to the crowd's goal), found %s",
                            th_scene_found(back, buf, sizeof buf));
            if (g->step == 0) {
                if (at) snprintf(sub, sizeof sub, "%s.at", path);
                return FAIL(s, at ? at : back, sub, err,
                            "an agent follows its crowd's goal from the start already; give "
                            "`at` a time after it (at least half a step, %g s)",
                            0.5 * (double)s->timestep);
            }
            g->goal.kind = TH_AGENT_GOAL_CROWD;
        } else if (point) {
            snprintf(sub, sizeof sub, "%s.point", path);
            g->goal.kind = TH_AGENT_GOAL_POINT;
            if (!th_scene_open_point(s, point, sub, "point", &g->goal.point, err)) return false;
        } else if (exit) {
            snprintf(sub, sizeof sub, "%s.exit", path);
            g->goal.kind = TH_AGENT_GOAL_EXIT;
            int b = -1;
            for (uint32_t k = 0; exit->kind == TH_Y_SCALAR && k < s->bunker_count; k++)
                if (strlen(s->bunker[k].name) == exit->len &&
                    memcmp(s->bunker[k].name, exit->text, exit->len) == 0)
                    b = (int)k;
            if (b < 0)
                return FAIL(s, exit, sub, err, "expected the name of a bunker, found %s",
                            th_scene_found(exit, buf, sizeof buf));
            const th_crowd_def *cd = &s->crowd[g->agent[0]].def;
            if (cd->behavior != TH_BEHAVIOR_FLEE && cd->goal.kind != TH_GOAL_SHELTER)
                return FAIL(s, exit, sub, err,
                            "crowd '%s' does not flee: only fleeing agents walk to a bunker",
                            s->crowd[g->agent[0]].name);
            g->goal.exit = (th_bunker_id){(uint32_t)b + 1u};
        } else {
            snprintf(sub, sizeof sub, "%s.follow", path);
            g->goal.kind = TH_AGENT_GOAL_FOLLOW;
            if (!agent_ref(s, follow, sub, g->follow, err)) return false;
            if (g->follow[0] == g->agent[0] &&
                (g->follow[1] == g->agent[1] || g->agent[1] == TH_SCENE_WHOLE_CROWD))
                return FAIL(s, follow, sub, err,
                            g->agent[1] == TH_SCENE_WHOLE_CROWD
                                ? "expected an agent of another crowd: the crowd given the goal "
                                  "holds it, and it cannot follow itself"
                                : "expected another agent, found the agent itself");
        }
        if ((v = th_ynode_get(e, "radius"))) {
            double r;
            snprintf(sub, sizeof sub, "%s.radius", path);
            if (g->goal.kind == TH_AGENT_GOAL_EXIT || g->goal.kind == TH_AGENT_GOAL_CROWD)
                return FAIL(s, v, sub, err, "%s",
                            g->goal.kind == TH_AGENT_GOAL_EXIT
                                ? "an exit has no radius (its bunker's cells are it)"
                                : "the crowd's goal has no radius of an agent's own");
            if (!th_scene_float(s, v, sub, 0.01, 1000.0, &r, err)) return false;
            g->goal.radius = (float)r;
        }
        if ((v = th_ynode_get(e, "priority"))) {
            uint64_t pr;
            snprintf(sub, sizeof sub, "%s.priority", path);
            if (g->goal.kind != TH_AGENT_GOAL_POINT)
                return FAIL(s, v, sub, err,
                            "only a point has a priority (the order `goal_planning` searches "
                            "paths in)");
            if (!th_scene_u64(s, v, sub, 0, 1000000, &pr, err)) return false;
            g->goal.priority = (int32_t)pr;
            g->priority = v;
        }
        /* The first earlier entry for the same agent at the same step: for a whole crowd any
         * entry of the crowd, else one for the whole crowd or for this agent. */
        const uint32_t c = g->agent[0], a = g->agent[1];
        const bool whole = a == TH_SCENE_WHOLE_CROWD;
        const uint32_t any = goal_mark(&keys_seen, c, GOAL_ANY, g->step, i);
        uint32_t first_whole = 0, first_same = 0;
        if (whole) {
            first_whole = any;
        } else {
            first_whole = goal_slot(&keys_seen, c, TH_SCENE_WHOLE_CROWD, g->step)->entry;
            first_same = goal_slot(&keys_seen, c, a, g->step)->entry;
        }
        if (first_whole && (!first_same || first_whole < first_same))
            return FAIL(s, e, path, err,
                        "crowd '%s' is given goals twice at one time, whole and agent by "
                        "agent or whole twice (line %u)",
                        s->crowd[c].name, s->agent_goal[first_whole - 1u].node->line);
        if (first_same)
            return FAIL(s, e, path, err,
                        "agent %u of crowd '%s' has a goal at that time already (line %u)", a,
                        s->crowd[c].name, s->agent_goal[first_same - 1u].node->line);
        goal_mark(&keys_seen, c, a, g->step, i);
        s->agent_goal_count++;
    }
    return true;
}

bool th_scene_parse_goal_planning(th_scene *s, const th_ynode *n, th_error *err) {
    if (!th_scene_expect(s, n, TH_Y_MAPPING, "goal_planning", err)) return false;
    static const char *const keys[] = {"budget", "cluster_size", "max_requests", NULL};
    if (!th_scene_known_keys(s, n, "goal_planning", keys, err)) return false;
    if (!s->has_map)
        return FAIL(s, n, "goal_planning", err,
                    "goal planning searches paths on a map, and the scene has none");
    const th_ynode *v = th_ynode_get(n, "budget");
    if (!v)
        return TH_SCENE_MISSING(s, n, "goal_planning.budget", err,
                                "missing: expected `budget: EXPANSIONS` a step");
    uint64_t x;
    if (!th_scene_u64(s, v, "goal_planning.budget", 1, UINT32_MAX, &x, err)) return false;
    s->goal_planning.budget = (uint32_t)x;
    if ((v = th_ynode_get(n, "cluster_size"))) {
        if (!th_scene_u64(s, v, "goal_planning.cluster_size", 4, 64, &x, err)) return false;
        s->goal_planning.cluster_size = (uint32_t)x;
    }
    if ((v = th_ynode_get(n, "max_requests"))) {
        if (!th_scene_u64(s, v, "goal_planning.max_requests", 1, 1u << 20, &x, err)) return false;
        s->goal_planning.max_requests = (uint32_t)x;
    }
    s->goal_planning_node = n;
    return true;
}

/* The first squad of crowd c (index + 1), 0 when none. Squads add their members after the
 * goals are given, so `agent` and `crowd` never reach them: a squad member walks to its slot
 * wherever its squad goes, and the world refuses it a goal of its own. */
static uint32_t squad_of_crowd(const th_scene *s, uint32_t c) {
    for (uint32_t q = 0; q < s->squad_count; q++)
        if (s->squad[q].def.crowd.index1 == c + 1u) return q + 1u;
    return 0;
}

/* An entry that could only mean squad members (an index past the crowd's own agents, or a
 * whole crowd that has none but them), refused rather than given to nobody. */
static bool refuse_squad_members(const th_scene *s, const th_scene_agent_goal *g, const char *path,
                                 uint64_t agents, th_error *err) {
    const uint32_t c = g->agent[0], q = squad_of_crowd(s, c);
    const unsigned line = s->squad[q - 1u].node->line;
    if (g->agent[1] == TH_SCENE_WHOLE_CROWD)
        return th_scene_fail(s, g->node, path, err,
                             "crowd '%s' has no agents but the members of its squad (line %u), "
                             "and a squad member takes no goal of its own (it walks to its slot "
                             "wherever the squad goes): give the squad its `goal`",
                             s->crowd[c].name, line);
    return th_scene_fail(s, g->node, path, err,
                         "crowd '%s' has %llu agents of its own, so there is no agent %u; the "
                         "members of its squad (line %u) are not numbered here and take no goal "
                         "of their own (they walk to their slots wherever the squad goes): give "
                         "the squad its `goal`",
                         s->crowd[c].name, (unsigned long long)agents, g->agent[1], line);
}

bool th_scene_build_agent_goals(th_world *w, const th_scene *s, const uint64_t *first_id,
                                const uint64_t *n, th_error *err) {
    char path[64];
    if (s->goal_planning_node && !th_world_set_goal_planning(w, &s->goal_planning, err))
        return th_scene_refused(s, s->goal_planning_node, "goal_planning", err);
    for (uint32_t i = 0; i < s->agent_goal_count; i++) {
        const th_scene_agent_goal *g = &s->agent_goal[i];
        snprintf(path, sizeof path, "agent_goals[%u]", i);
        const uint32_t refs[2][2] = {{g->agent[0], g->agent[1]}, {g->follow[0], g->follow[1]}};
        th_agent_id ids[2] = {{0, 0}, {0, 0}};
        const bool whole = g->agent[1] == TH_SCENE_WHOLE_CROWD;
        if (squad_of_crowd(s, g->agent[0]) &&
            (whole ? n[g->agent[0]] == 0 : g->agent[1] >= n[g->agent[0]]))
            return refuse_squad_members(s, g, path, n[g->agent[0]], err);
        for (int r = whole ? 1 : 0; r < (g->goal.kind == TH_AGENT_GOAL_FOLLOW ? 2 : 1); r++) {
            const uint32_t c = refs[r][0], idx = refs[r][1];
            if (idx >= n[c]) {
                return th_scene_fail(s, g->node, path, err,
                                     "crowd '%s' has %llu agents, so there is no agent %u",
                                     s->crowd[c].name, (unsigned long long)n[c], idx);
            }
            ids[r] = (th_agent_id){(uint32_t)(first_id[c] + idx) + 1u, 1u};
        }
        th_agent_goal goal = g->goal;
        goal.follow = ids[1];
        if (whole) {
            /* Every agent of the crowd at the start: ids are handed out in a row. */
            const uint32_t c = g->agent[0], count = (uint32_t)n[c];
            th_agent_id *sel = th_alloc((count ? count : 1) * sizeof *sel);
            if (!sel)
                return th_scene_fail_code(s, g->node, path, err, TH_ERR_NOMEM, "out of memory");
            for (uint32_t k = 0; k < count; k++)
                sel[k] = (th_agent_id){(uint32_t)(first_id[c] + k) + 1u, 1u};
            const bool ok = g->step
                                ? th_world_schedule_agents_goal(w, g->step, sel, count, &goal, err)
                                : th_world_set_agents_goal(w, sel, count, &goal, NULL, err);
            th_free(sel);
            if (!ok) return th_scene_refused(s, g->node, path, err);
            continue;
        }
        if (g->step ? !th_world_schedule_agents_goal(w, g->step, ids, 1, &goal, err)
                    : !th_world_set_agent_goal(w, ids[0], &goal, err))
            return th_scene_refused(s, g->node, path, err);
    }
    return true;
}
