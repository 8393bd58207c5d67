/* The run report: the outcome in plain words (en route, sheltered, stranded, removed), when the
 * crowd got in, what happened to each bunker and squad, and then the cost of the run. Every
 * figure comes from the world's own counts and history (throng/throng.h), once. */
#include "report.h"
#include "throng/building.h"
#include "throng/plan.h"
#include "ranks.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifndef THRONG_VERSION
#define THRONG_VERSION "unknown"
#endif
#ifndef THRONG_COMMIT
#define THRONG_COMMIT "unknown"
#endif
#ifndef THRONG_BUILD_TYPE
#define THRONG_BUILD_TYPE "unknown"
#endif

static const double k_fractions[3] = {0.5, 0.9, 1.0};

void th_outcome_count(const th_world *w, th_outcome *o) {
    memset(o, 0, sizeof *o);
    th_world_stats st = th_world_get_stats(w);
    o->spawned = st.spawned;
    o->sheltered = st.sheltered;
    o->buried = st.buried;
    o->removed = st.removed - st.buried;
    uint32_t bunkers = th_world_bunker_count(w);
    /* World time at the end of the last step: an agent whose start time is later waits. */
    const double now = (double)th_world_step_count(w) * th_world_get_def(w).timestep;
    const bool hazards = th_world_hazard_count(w) > 0;
    th_agent_view v = th_world_agents(w);
    for (uint32_t k = 0; k < v.count; k++) {
        const th_crowd_def *c = th_world_get_crowd(w, (th_crowd_id){v.crowd[k] + 1u});
        if (!c || c->behavior != TH_BEHAVIOR_FLEE || bunkers == 0) {
            o->other++;
            continue;
        }
        th_agent_state a;
        if (hazards && th_world_get_agent(w, v.id[k], &a) && a.incapacitated) {
            o->incapacitated++; /* its dose reached 1: it goes nowhere */
            continue;
        }
        th_agent_goal own;
        if (th_world_get_agent_goal(w, v.id[k], &own) &&
            (own.kind == TH_AGENT_GOAL_POINT ||
             (own.kind == TH_AGENT_GOAL_FOLLOW && th_world_get_agent(w, own.follow, &a)))) {
            o->own_goal++; /* its own goal leads it, not a bunker */
            const float r = own.radius > 0.0f ? own.radius : 1.0f;
            o->own_goal_there += own.kind == TH_AGENT_GOAL_POINT &&
                                 th_v2_len(th_v2_sub(own.point, th_v2(v.px[k], v.py[k]))) <= r;
            o->own_goal_no_way += (v.flags[k] & TH_AGENT_STRANDED) != 0;
            continue;
        }
        if (!(v.flags[k] & TH_AGENT_STRANDED)) {
            if (c->pre_movement.kind != TH_DISTRIB_NONE && th_world_get_agent(w, v.id[k], &a) &&
                a.start_time > now) {
                o->waiting++; /* not walking yet: its pre-movement time has not come */
                continue;
            }
            o->en_route++;
            o->en_route_stalled += (v.flags[k] & TH_AGENT_STALLED) != 0;
            o->en_route_riding += th_world_agent_elevator(w, v.id[k]).index1 != 0;
            continue;
        }
        o->stranded++;
        /* Why: a bunker's own river map answers whether it could be walked to were it open. */
        bool any = false;
        th_vec2 p = th_v2(v.px[k], v.py[k]), dir;
        for (uint32_t b = 0; b < bunkers; b++) {
            if (th_world_bunker_flow(w, (th_bunker_id){b + 1}, p, &dir)) {
                o->cut_off_by[b]++;
                any = true;
            }
        }
        if (any) o->cut_off++;
        else o->walled_in++;
    }
    /* Under mpirun each rank counted its own agents. */
    uint32_t sums[12 + TH_MAX_BUNKERS] = {
        o->en_route,  o->stranded,         o->other,           o->cut_off,
        o->walled_in, o->en_route_stalled, o->waiting,         o->incapacitated,
        o->own_goal,  o->own_goal_there,   o->own_goal_no_way, o->en_route_riding};
    memcpy(sums + 12, o->cut_off_by, sizeof o->cut_off_by);
    th_app_sum_u32(sums, 12 + TH_MAX_BUNKERS);
    o->en_route = sums[0], o->stranded = sums[1], o->other = sums[2], o->cut_off = sums[3];
    o->walled_in = sums[4], o->en_route_stalled = sums[5], o->waiting = sums[6];
    o->incapacitated = sums[7], o->own_goal = sums[8], o->own_goal_there = sums[9];
    o->own_goal_no_way = sums[10], o->en_route_riding = sums[11];
    memcpy(o->cut_off_by, sums + 12, sizeof o->cut_off_by);
    o->reachable = o->sheltered + o->en_route + o->waiting;
    double dt = th_world_get_def(w).timestep;
    for (int i = 0; i < 3; i++) {
        o->time_at[i] = -1.0;
        if (o->reachable == 0) continue;
        /* The smallest count that is at least the fraction (rounded up: 50 % of 3 is 2). */
        uint32_t k = (uint32_t)ceil(k_fractions[i] * (double)o->reachable - 1e-9);
        if (k == 0) k = 1;
        uint64_t s = th_world_sheltered_by(w, k);
        if (s > 0) o->time_at[i] = (double)s * dt;
    }
}

th_refuge_words th_refuge_words_of(const th_world *w) {
    th_refuge_words r = {0};
    uint32_t bunkers = th_world_bunker_count(w), exits = 0;
    for (uint32_t b = 0; b < bunkers; b++) {
        th_bunker_info bi;
        th_world_get_bunker(w, (th_bunker_id){b + 1}, &bi);
        if (!bi.exit) continue;
        exits++;
        r.exit_taken += bi.sheltered;
    }
    const bool all = bunkers > 0 && exits == bunkers, some = exits > 0 && !all;
    r.all_exits = all;
    r.place = all ? "exit" : (some ? "bunker or exit" : "bunker");
    r.place_article = all ? "an" : "a";
    r.in = all ? "out" : (some ? "sheltered or out" : "sheltered");
    return r;
}

double th_report_stepping_s(const th_world *w, uint64_t steps) {
    double ms = 0.0;
    for (int p = 0; p < TH_PHASE_COUNT; p++) ms += th_world_phase_ms(w, (th_phase)p);
    return ms * (double)steps * 1e-3;
}

/* Agents that sheltered part-way count for the steps they were simulated; the figure uses the
 * mean of the counts at start and end, an honest bound for a steadily falling crowd. */
static double agent_steps(const th_world *w, const th_run_facts *f) {
    th_world_stats st = th_world_get_stats(w);
    return 0.5 * ((double)f->agents_start + (double)st.agents) * (double)f->steps_run;
}

/* The time the throughput is measured over: the loop for headless runs, the steps themselves
 * in the viewer (whose session also waits, draws and pauses). */
static double measured_s(const th_world *w, const th_run_facts *f) {
    return f->viewer ? th_report_stepping_s(w, f->steps_run) : f->wall_s;
}

static uint32_t history(const th_world *w, th_history_entry *h, uint32_t max) {
    return th_world_history(w, 0, h, max, NULL, NULL);
}

static const char *kind_word(th_history_kind k) {
    switch (k) {
    case TH_HISTORY_BUNKER_DESTROYED: return "destroyed";
    case TH_HISTORY_BUNKER_RESTORED: return "restored";
    case TH_HISTORY_BUNKER_FULL: return "full";
    case TH_HISTORY_SQUAD_ARRIVED: return "arrived";
    case TH_HISTORY_BURIED: return "buried";
    }
    return "?";
}

static bool bunker_kind(th_history_kind k) {
    return k == TH_HISTORY_BUNKER_DESTROYED || k == TH_HISTORY_BUNKER_RESTORED ||
           k == TH_HISTORY_BUNKER_FULL;
}

static void print_outcome(FILE *out, const th_world *w, const th_outcome *o,
                          const th_history_entry *h, uint32_t nh) {
    double dt = th_world_get_def(w).timestep;
    uint32_t bunkers = th_world_bunker_count(w);
    uint32_t fleeing = o->sheltered + o->en_route + o->waiting + o->stranded + o->incapacitated;
    const th_refuge_words rw = th_refuge_words_of(w);
    fprintf(out, "outcome   %u %s, %u en route (walking to %s %s", o->sheltered, rw.in, o->en_route,
            rw.place_article, rw.place);
    if (o->en_route_stalled) fprintf(out, "; %u of them stalled", o->en_route_stalled);
    if (o->en_route_riding) fprintf(out, "; %u of them riding an elevator", o->en_route_riding);
    fprintf(out, ")");
    if (o->waiting) fprintf(out, ", %u waiting (pre-movement time not yet over)", o->waiting);
    if (o->own_goal) {
        fprintf(out, ", %u led by goals of their own (%u at their point", o->own_goal,
                o->own_goal_there);
        if (o->own_goal_no_way) fprintf(out, ", %u with no way to it", o->own_goal_no_way);
        fprintf(out, ")");
    }
    fprintf(out, ", %u stranded (no route to an open %s)", o->stranded, rw.place);
    if (o->incapacitated)
        fprintf(out, ", %u incapacitated (fractional effective dose reached 1)", o->incapacitated);
    if (o->removed) fprintf(out, ", %u removed", o->removed);
    if (o->buried) fprintf(out, ", %u buried (walled in by blocked cells)", o->buried);
    if (o->other) fprintf(out, "; %u not fleeing", o->other);
    fprintf(out, "\n");
    if (fleeing > 0) {
        fprintf(out, "%-9s ", rw.all_exits ? "out" : "sheltered");
        if (o->reachable == 0) {
            fprintf(out, "nobody: no fleeing agent could reach %s %s\n", rw.place_article,
                    rw.place);
        } else {
            /* The fractions reached, then one figure for the first not reached. */
            int reached = 0;
            for (int i = 0; i < 3 && o->time_at[i] >= 0.0; i++, reached++) {
                fprintf(out, "%s%s by %.1f s", i ? ", " : "",
                        i == 2 ? "all" : (i == 0 ? "50%" : "90%"), o->time_at[i]);
            }
            if (reached < 3) {
                fprintf(out, "%s%.0f%% by the end, not yet %s", reached ? "; " : "",
                        floor(100.0 * o->sheltered / o->reachable),
                        reached == 2 ? "all" : (reached == 0 ? "50%" : "90%"));
            }
            fprintf(out, " (of the %u who could reach %s %s)\n", o->reachable, rw.place_article,
                    rw.place);
        }
    }
    for (uint32_t b = 0; b < bunkers; b++) {
        th_bunker_info bi;
        th_world_get_bunker(w, (th_bunker_id){b + 1}, &bi);
        /* A bunker the scene calls an exit: those it took are out, destroying closes it. */
        fprintf(out, "%s %-12s %6u %s", bi.exit ? "exit     " : "bunker   ", bi.name, bi.sheltered,
                bi.exit ? "out" : "sheltered");
        if (bi.capacity) fprintf(out, " of %u", bi.capacity);
        if (bi.max_flow > 0.0f) fprintf(out, ", at most %.4g persons/s", (double)bi.max_flow);
        for (uint32_t i = 0; i < nh; i++) {
            if (bunker_kind(h[i].kind) && h[i].bunker.index1 == b + 1) {
                const char *what = kind_word(h[i].kind);
                if (bi.exit && h[i].kind == TH_HISTORY_BUNKER_DESTROYED) what = "closed";
                else if (bi.exit && h[i].kind == TH_HISTORY_BUNKER_RESTORED) what = "reopened";
                fprintf(out, ", %s at %.1f s", what, (double)h[i].step * dt);
            }
        }
        fprintf(out, "\n");
    }
    if (o->stranded) {
        fprintf(out, "stranded  ");
        const char *sep = "";
        if (o->cut_off) {
            fprintf(out, "%u can walk only to closed bunkers (", o->cut_off);
            const char *s2 = "";
            for (uint32_t b = 0; b < bunkers; b++) {
                if (!o->cut_off_by[b]) continue;
                th_bunker_info bi;
                th_world_get_bunker(w, (th_bunker_id){b + 1}, &bi);
                fprintf(out, "%s%s %s: %u", s2, bi.name,
                        bi.destroyed ? "destroyed" : (bi.full ? "full" : "open"), o->cut_off_by[b]);
                s2 = ", ";
            }
            fprintf(out, ")");
            sep = "; ";
        }
        if (o->walled_in) fprintf(out, "%s%u walled off from every bunker", sep, o->walled_in);
        fprintf(out, "\n");
    }
    for (uint32_t i = 0; i < nh; i++) {
        if (h[i].kind == TH_HISTORY_BURIED) {
            fprintf(out, "buried    %u at %.1f s\n", h[i].count, (double)h[i].step * dt);
        }
    }
}

static void print_squads(FILE *out, const th_world *w, const th_history_entry *h, uint32_t nh) {
    double dt = th_world_get_def(w).timestep;
    th_squad_info q;
    for (uint32_t s = 0; th_world_get_squad(w, (th_squad_id){s + 1}, &q); s++) {
        fprintf(out, "squad     %u: %u member(s), ", s + 1, q.members);
        bool first = true;
        for (uint32_t i = 0; i < nh; i++) {
            if (h[i].kind != TH_HISTORY_SQUAD_ARRIVED || h[i].squad.index1 != s + 1) continue;
            fprintf(out, "%s at %.1f s", first ? "arrived" : ", again", (double)h[i].step * dt);
            first = false;
        }
        if (first && q.members == 0) fprintf(out, "no member left: nothing to arrive");
        else if (first)
            fprintf(out, "not arrived (%.1f m from its slots on average%s%s)", (double)q.error,
                    q.stuck ? "; stuck: no way it can take to its goal" : "",
                    q.no_room ? "; no room: its members do not fit at its goal" : "");
        else if (!q.arrived) fprintf(out, ", out of formation at the end");
        fprintf(out, "\n");
    }
}

/* A mover crowd's outcome (docs/movers.md): its agents; for a waypoint graph those within
 * `radius` of the destination node, for breadcrumbs the farthest from the newest crumb, for
 * the cell walkers the mean speed; and those stranded (no node in sight, boxed in). Summed over
 * ranks under mpirun. False for a crowd whose goal is not a mover's. */
typedef struct mover_outcome {
    const char *goal;
    uint32_t agents, arrived, stranded;
    double speed_sum, farthest; /* farthest < 0: no crumb dropped yet */
} mover_outcome;

/* Within this many metres a waypoint walker is at its destination and a crash-and-turn walker
 * at its point: the goal's radius, or its default (docs/movers.md). */
static float mover_reach(const th_goal_def *g) {
    const float r = g->kind == TH_GOAL_WAYPOINTS ? g->radius : g->arrive_radius;
    return r > 0.0f ? r : 1.0f;
}

static bool mover_outcome_of(const th_world *w, uint32_t c, mover_outcome *m) {
    const th_crowd_def *cd = th_world_get_crowd(w, (th_crowd_id){c + 1});
    const th_goal_def *g = &cd->goal;
    static const char *const names[] = {
        [TH_GOAL_CRASH_AND_TURN] = "crash and turn",
        [TH_GOAL_WALL_FOLLOW] = "wall follow",
        [TH_GOAL_BREADCRUMBS] = "breadcrumbs",
        [TH_GOAL_WAYPOINTS] = "waypoints",
    };
    if (g->kind < TH_GOAL_CRASH_AND_TURN || g->kind > TH_GOAL_WAYPOINTS) return false;
    *m = (mover_outcome){.goal = names[g->kind], .farthest = -1.0};
    th_vec2 crumb = {0.0f, 0.0f};
    const bool crumbs = g->kind == TH_GOAL_BREADCRUMBS &&
                        th_world_breadcrumbs(w, (th_crowd_id){c + 1}, &crumb, 1) > 0;
    const float r = mover_reach(g);
    const bool to_point = g->kind == TH_GOAL_CRASH_AND_TURN && g->use_point;
    const th_agent_view v = th_world_agents(w);
    for (uint32_t k = 0; k < v.count; k++) {
        if (v.crowd[k] != c) continue;
        m->agents++;
        m->stranded += (v.flags[k] & TH_AGENT_STRANDED) != 0;
        m->speed_sum += sqrt((double)v.vx[k] * v.vx[k] + (double)v.vy[k] * v.vy[k]);
        if (g->kind == TH_GOAL_WAYPOINTS) {
            th_agent_state a;
            const th_vec2 d = {v.px[k] - g->nodes[g->destination].x,
                               v.py[k] - g->nodes[g->destination].y};
            m->arrived += th_world_get_agent(w, v.id[k], &a) && a.waypoint == g->destination &&
                          d.x * d.x + d.y * d.y <= r * r;
        } else if (to_point) {
            const th_vec2 d = {v.px[k] - g->point.x, v.py[k] - g->point.y};
            m->arrived += d.x * d.x + d.y * d.y <= r * r;
        } else if (crumbs) {
            const double dx = v.px[k] - crumb.x, dy = v.py[k] - crumb.y;
            const double d = sqrt(dx * dx + dy * dy);
            if (d > m->farthest) m->farthest = d;
        }
    }
    th_app_sum_u32(&m->agents, 1);
    th_app_sum_u32(&m->arrived, 1);
    th_app_sum_u32(&m->stranded, 1);
    m->farthest = th_app_max(m->farthest);
    return true;
}

static void print_movers(FILE *out, const th_world *w) {
    mover_outcome m;
    for (uint32_t c = 0; c < th_world_crowd_count(w); c++) {
        if (!mover_outcome_of(w, c, &m)) continue;
        const th_goal_def *g = &th_world_get_crowd(w, (th_crowd_id){c + 1})->goal;
        fprintf(out, "movers    %s (%s): %u agent(s)",
                th_world_get_crowd(w, (th_crowd_id){c + 1})->name, m.goal, m.agents);
        if (g->kind == TH_GOAL_WAYPOINTS) {
            fprintf(out, ", %u at the destination (node %u, within %.1f m), %u on the way",
                    m.arrived, g->destination, (double)mover_reach(g),
                    m.agents - m.arrived - m.stranded);
        } else if (g->kind == TH_GOAL_CRASH_AND_TURN && g->use_point) {
            fprintf(out, ", %u at the point (%.1f, %.1f; within %.1f m), %u on the way", m.arrived,
                    (double)g->point.x, (double)g->point.y, (double)mover_reach(g),
                    m.agents - m.arrived - m.stranded);
        } else if (g->kind == TH_GOAL_BREADCRUMBS) {
            if (m.farthest >= 0.0)
                fprintf(out, ", the farthest %.1f m from the newest crumb", m.farthest);
            else fprintf(out, ", no crumb dropped yet");
        }
        fprintf(out, ", %u stranded", m.stranded);
        /* Speeds summed on this rank only: the mean is one process's under mpirun. */
        if (th_app_ranks() == 1 && m.agents)
            fprintf(out, ", mean speed %.2f m/s", m.speed_sum / m.agents);
        fprintf(out, "\n");
    }
}

/* Crowds with pre-movement times: what was drawn, and who still stands waiting. */
static bool pre_movement_of(const th_world *w, uint32_t c, th_pre_movement_info *p) {
    if (!th_world_get_pre_movement(w, (th_crowd_id){c + 1}, p)) return false;
    th_app_sum_u32(&p->waiting, 1); /* under mpirun each rank counted its own agents */
    return true;
}

static void print_pre_movement(FILE *out, const th_world *w) {
    th_pre_movement_info p;
    for (uint32_t c = 0; c < th_world_crowd_count(w); c++) {
        if (!pre_movement_of(w, c, &p)) continue;
        fprintf(out, "pre-move  %s: %u time(s) drawn",
                th_world_get_crowd(w, (th_crowd_id){c + 1})->name, p.drawn);
        if (p.drawn)
            fprintf(out, ", mean %.1f s (least %.1f s, greatest %.1f s)", p.mean_s, p.min_s,
                    p.max_s);
        fprintf(out, ", %u still waiting\n", p.waiting);
    }
}

/* Groups: how many, who is still in the world, and the most stretched. */
typedef struct groups_outcome {
    uint32_t groups, members, present, waiting;
    float stretch; /* the largest, metres */
} groups_outcome;

static bool groups_of(const th_world *w, groups_outcome *g) {
    *g = (groups_outcome){0};
    g->groups = th_world_group_count(w);
    for (uint32_t i = 0; i < g->groups; i++) {
        th_group_info gi;
        if (!th_world_get_group(w, (th_group_id){i + 1}, &gi)) continue;
        g->members += gi.members;
        g->present += gi.present;
        g->waiting += gi.waiting;
        if (gi.stretch > g->stretch) g->stretch = gi.stretch;
    }
    return g->groups > 0;
}

/* Crowds whose steering events changed: how often, and when last. */
static void print_crowd_changes(FILE *out, const th_world *w) {
    const double dt = th_world_get_def(w).timestep;
    for (uint32_t c = 0; c < th_world_crowd_count(w); c++) {
        uint64_t last;
        const th_crowd_id id = {c + 1};
        const uint32_t n = th_world_crowd_changes(w, id, &last);
        if (!n) continue;
        fprintf(out, "changes   %s: %u steering change(s) by events, the last at %.1f s\n",
                th_world_get_crowd(w, id)->name, n, (double)last * dt);
    }
}

static void print_groups(FILE *out, const th_world *w) {
    groups_outcome g;
    if (!groups_of(w, &g)) return;
    fprintf(out,
            "groups    %u (%u members): %u still in the world, %u of them waiting for their "
            "group; the most stretched %.1f m\n",
            g.groups, g.members, g.present, g.waiting, (double)g.stretch);
}

/* Goals changed at a step, made and passed over: under mpirun each rank counted its own
 * (the changes pending are every rank's). */
static void goal_changes(const th_world *w, uint64_t *pending, uint64_t *made, uint64_t *passed) {
    th_world_goal_changes(w, pending, made, passed);
    uint32_t sums[2] = {(uint32_t)*made, (uint32_t)*passed};
    th_app_sum_u32(sums, 2);
    *made = sums[0];
    *passed = sums[1];
}

/* Agents of every crowd that a goal of their own leads (a point, or another agent still in
 * the world), as the world counts them: reached, still walking, with no way. Summed over
 * ranks. */
static th_own_goal_counts own_goals_of(const th_world *w) {
    const th_own_goal_counts c = th_world_own_goal_counts(w);
    uint32_t sums[4] = {c.given, c.reached, c.walking, c.unreachable};
    th_app_sum_u32(sums, 4);
    return (th_own_goal_counts){sums[0], sums[1], sums[2], sums[3]};
}

static void print_own_goals(FILE *out, const th_world *w) {
    const th_own_goal_counts g = own_goals_of(w);
    if (!g.given) return;
    fprintf(out,
            "own goals %u agent(s) led by goals of their own: %u reached theirs, %u still "
            "walking, %u with no way to it\n",
            g.given, g.reached, g.walking, g.unreachable);
}

/* Goals given to agents for a later step (th_world_schedule_agents_goal, `agent_goals` with
 * `at`): made, passed over, still to come. */
static void print_goal_changes(FILE *out, const th_world *w) {
    uint64_t pending, made, passed;
    goal_changes(w, &pending, &made, &passed);
    if (!pending && !made && !passed) return;
    fprintf(out,
            "goals     %llu given at their time, %llu passed over (the agent had left, had no way "
            "to its point, or its agent to follow had left), %llu still to come\n",
            (unsigned long long)made, (unsigned long long)passed, (unsigned long long)pending);
}

/* The world's goal planning (th_world_set_goal_planning, `goal_planning`): paths given over
 * the steps within the budget, the longest wait, those still waiting. One process. */
static void print_goal_planning(FILE *out, const th_world *w) {
    const th_goal_planning_info g = th_world_goal_planning_info(w);
    if (!g.def.budget) return;
    const double dt = th_world_get_def(w).timestep;
    fprintf(out,
            "planning  %llu paths found over the steps (%llu expansions, at most %u a step), "
            "%llu unreachable, %llu planned at once; waits %.1f steps on average, at most %u "
            "(%.2f s); %u still waiting\n",
            (unsigned long long)g.answered, (unsigned long long)g.expanded, g.def.budget,
            (unsigned long long)g.unreachable, (unsigned long long)g.at_once,
            g.answered ? (double)g.wait_steps / (double)g.answered : 0.0, g.most_steps,
            (double)g.most_steps * dt, g.waiting);
}

/* A building's levels and stairs as they stand: agents on each (summed over ranks under
 * mpirun) and the crossings of each stair's top edge. */
typedef struct building_counts {
    uint32_t level_agents[TH_MAX_LEVELS];
    uint32_t stair_agents[TH_MAX_STAIRS];
    uint32_t up[TH_MAX_STAIRS], down[TH_MAX_STAIRS];
} building_counts;

static void building_of(const th_world *w, building_counts *b) {
    memset(b, 0, sizeof *b);
    const uint32_t nl = th_world_level_count(w), ns = th_world_stair_count(w);
    th_level_info li;
    th_stair_info si;
    for (uint32_t l = 0; l < nl; l++) {
        if (th_world_get_level(w, (th_level_id){l + 1}, &li)) b->level_agents[l] = li.agents;
    }
    for (uint32_t s = 0; s < ns; s++) {
        if (!th_world_get_stair(w, (th_stair_id){s + 1}, &si)) continue;
        b->stair_agents[s] = si.agents;
        b->up[s] = (uint32_t)si.crossed_up;
        b->down[s] = (uint32_t)si.crossed_down;
    }
    th_app_sum_u32(b->level_agents, nl);
    th_app_sum_u32(b->stair_agents, ns);
    th_app_sum_u32(b->up, ns);
    th_app_sum_u32(b->down, ns);
}

static void print_building(FILE *out, const th_world *w) {
    const uint32_t nl = th_world_level_count(w), ns = th_world_stair_count(w);
    if (!nl) return;
    static building_counts b;
    building_of(w, &b);
    th_level_info li;
    th_stair_info si;
    fprintf(out, "levels   ");
    for (uint32_t l = 0; l < nl; l++) {
        if (!th_world_get_level(w, (th_level_id){l + 1}, &li)) continue;
        fprintf(out, "%s %s (%.1f m) %u agent(s)", l ? "," : "", li.name, (double)li.elevation,
                b.level_agents[l]);
    }
    fprintf(out, "\n");
    for (uint32_t s = 0; s < ns; s++) {
        if (!th_world_get_stair(w, (th_stair_id){s + 1}, &si)) continue;
        th_level_info lo, hi;
        th_world_get_level(w, si.lower, &lo);
        th_world_get_level(w, si.upper, &hi);
        fprintf(out,
                "stair     %-16s %s -> %s: %u on it, crossed its top %u time(s) down and %u up "
                "(net %d down)\n",
                si.name, lo.name, hi.name, b.stair_agents[s], b.down[s], b.up[s],
                (int)b.down[s] - (int)b.up[s]);
    }
    static const char *const states[] = {"idle", "moving", "opening", "open", "closing"};
    th_elevator_info ei;
    for (uint32_t e = 0; e < th_world_elevator_count(w); e++) {
        if (!th_world_get_elevator(w, (th_elevator_id){e + 1}, &ei)) continue;
        th_level_info at, to, down;
        th_world_get_level(w, ei.stops[ei.at].level, &at);
        th_world_get_level(w, ei.stops[ei.to].level, &to);
        th_world_get_level(w, ei.stops[ei.discharge].level, &down);
        fprintf(out, "elevator  %-16s %s%llu trip(s), %llu carried to %s", ei.name,
                ei.policy == TH_ELEVATOR_COLLECTIVE ? "(collective) " : "",
                (unsigned long long)ei.trips, (unsigned long long)ei.carried, down.name);
        if (ei.carried) fprintf(out, " (the last stepped out at %.1f s)", ei.last_out);
        if (ei.gave_up)
            fprintf(out, ", %llu gave up waiting after %.0f s", (unsigned long long)ei.gave_up,
                    (double)ei.patience);
        fprintf(out, ", %u riding, %u waiting", ei.riders, ei.waiting);
        if (ei.walking) fprintf(out, ", %u walking to its stops", ei.walking);
        fprintf(out, "; %s %s %s\n", states[ei.state], ei.state == TH_ELEVATOR_MOVING ? "to" : "at",
                ei.state == TH_ELEVATOR_MOVING ? to.name : at.name);
    }
}

/* Crowds in a world with fire hazards: who breathed a dose that incapacitated them. */
static bool hazard_of(const th_world *w, uint32_t c, th_hazard_info *h) {
    if (!th_world_get_hazard_info(w, (th_crowd_id){c + 1}, h)) return false;
    /* Under mpirun each rank counted its own agents: the sum, the earliest and the highest. */
    const double first = h->incapacitated ? h->first_s : INFINITY;
    th_app_sum_u32(&h->incapacitated, 1);
    h->max_fed = th_app_max(h->max_fed);
    const double earliest = -th_app_max(-first);
    h->first_s = h->incapacitated ? earliest : 0.0;
    return true;
}

static void print_hazards(FILE *out, const th_world *w) {
    th_hazard_info h;
    for (uint32_t c = 0; c < th_world_crowd_count(w); c++) {
        if (!hazard_of(w, c, &h)) continue;
        fprintf(out, "hazards   %s: %u incapacitated",
                th_world_get_crowd(w, (th_crowd_id){c + 1})->name, h.incapacitated);
        if (h.incapacitated) fprintf(out, " (the first at %.1f s)", h.first_s);
        fprintf(out, ", highest dose (FED) %.3f\n", h.max_fed);
    }
}

/* Foraging crowds: food home, on the way and left at each source. */
static void print_colonies(FILE *out, const th_world *w) {
    th_forage_info fi;
    for (uint32_t c = 0; c < th_world_crowd_count(w); c++) {
        const th_crowd_id crowd = {c + 1};
        if (!th_world_get_forage(w, crowd, &fi)) continue;
        th_app_sum_u32(&fi.carried, 1); /* under mpirun each rank counted its own ants */
        fprintf(out,
                "colony    %s: %" PRIu64 " unit(s) of food delivered, %u carried, %" PRIu64
                " taken; left at the sources:",
                th_world_get_crowd(w, crowd)->name, fi.delivered, fi.carried, fi.taken);
        th_food_info f;
        for (uint32_t i = 0; th_world_get_food_source(w, crowd, i, &f); i++)
            fprintf(out, "%s %u of %u", i ? "," : "", f.remaining, f.amount);
        fprintf(out, "\n");
    }
}

/* The k-th agent to leave for each fraction of those spawned, as a time; -1 when not yet. */
void th_report_exit_times(const th_world *w, double at[3]) {
    th_world_stats st = th_world_get_stats(w);
    double dt = th_world_get_def(w).timestep;
    for (int i = 0; i < 3; i++) {
        at[i] = -1.0;
        if (st.spawned == 0) continue;
        /* Rounded up like the sheltered fractions: 50 % of 3 is 2. */
        uint32_t k = (uint32_t)ceil(k_fractions[i] * (double)st.spawned - 1e-9);
        if (k == 0) k = 1;
        uint64_t s = th_world_exited_by(w, k);
        if (s > 0) at[i] = (double)s * dt;
    }
}

/* Spawners (added, due, waiting at the gate) and exits (how many left each, first and last),
 * then when 50, 90 and 100 % of everyone spawned had left. */
static void print_flow(FILE *out, const th_world *w) {
    uint32_t spawners = th_world_spawner_count(w), exits = th_world_exit_count(w);
    if (spawners == 0 && exits == 0) return;
    double dt = th_world_get_def(w).timestep;
    th_world_stats st = th_world_get_stats(w);
    for (uint32_t i = 0; i < spawners; i++) {
        th_spawner_info si;
        th_world_get_spawner(w, (th_spawner_id){i + 1}, &si);
        fprintf(out, "spawner   %-12s %6u added", si.name, si.emitted);
        if (si.total != UINT64_MAX) fprintf(out, " of %" PRIu64, si.total);
        if (si.waiting) fprintf(out, ", %" PRIu64 " waiting (no room in its area)", si.waiting);
        fprintf(out, "\n");
    }
    for (uint32_t e = 0; e < exits; e++) {
        th_exit_info ei;
        th_world_get_exit(w, (th_exit_id){e + 1}, &ei);
        fprintf(out, "exit      %-12s %6u left", ei.name, ei.exited);
        if (ei.exited) {
            fprintf(out, ", the first by %.1f s, the last by %.1f s", (double)ei.first_step * dt,
                    (double)ei.last_step * dt);
        }
        if (ei.max_flow > 0.0f) fprintf(out, ", at most %.4g persons/s", (double)ei.max_flow);
        fprintf(out, "\n");
    }
    if (exits == 0) return;
    double at[3];
    th_report_exit_times(w, at);
    fprintf(out, "exited    %u of %u spawned, %u still in the world", st.exited, st.spawned,
            st.agents);
    if (st.stalled) fprintf(out, " (%u stalled)", st.stalled);
    int reached = 0;
    for (int i = 0; i < 3 && at[i] >= 0.0; i++, reached++) {
        fprintf(out, "%s%s by %.1f s", i ? ", " : ": ", i == 2 ? "all" : (i == 0 ? "50%" : "90%"),
                at[i]);
    }
    if (reached < 3 && st.spawned > 0) {
        fprintf(out, "%snot yet %s", reached ? "; " : ": ",
                reached == 2 ? "all" : (reached == 0 ? "50%" : "90%"));
    }
    fprintf(out, "\n");
}

/* Stalled agents: always a line, so that a gridlock is never silent and a clean run says so;
 * then the run's figures, so that a jam that came and went leaves its trace; and the queuing
 * agents, when any queued. */
static void print_stalls(FILE *out, const th_world *w) {
    th_stall_info si;
    th_world_get_stall_info(w, &si);
    if (si.stalled == 0) {
        fprintf(out, "stalled   none (no agent without progress toward its goal for %.0f s)\n",
                (double)si.stall_time);
    } else {
        fprintf(out,
                "stalled   %u agent(s) without progress toward their goal for %.0f s or more "
                "(longest %.1f s), within [%.2f, %.2f] x [%.2f, %.2f] m\n",
                si.stalled, (double)si.stall_time, (double)si.longest, (double)si.x0, (double)si.x1,
                (double)si.y0, (double)si.y1);
    }
    if (si.peak == 0) {
        fprintf(out, "stalls    none during the run\n");
    } else {
        fprintf(out, "stalls    ");
        if (si.stalled) fprintf(out, "%u at the end", si.stalled);
        else fprintf(out, "none at the end");
        fprintf(out,
                "; at most %u at once (t = %.1f s), %.1f agent-seconds in all, longest %.1f s\n",
                si.peak, (double)si.peak_time, si.agent_seconds, (double)si.longest_run);
    }
    if (si.queued_peak) {
        fprintf(out,
                "queuing   %u at the end, at most %u at once (without progress of their own, "
                "behind walkers who progress: not stalled)\n",
                si.queued, si.queued_peak);
    }
}

void th_report_warnings(FILE *out, const char *lead, uint32_t count, const char *first) {
    if (!count) return;
    fprintf(out, "%s%s", lead, first);
    if (count > 1) fprintf(out, " (and %u more like it)", count - 1);
    fprintf(out, "\n");
}

void th_report_print(FILE *out, const th_world *w, const th_run_facts *f) {
    th_world_def def = th_world_get_def(w);
    th_world_stats st = th_world_get_stats(w);
    fprintf(out, "run       %" PRIu64 " steps of %.4f s = %.1f s simulated", f->steps_run,
            (double)def.timestep, (double)f->steps_run * def.timestep);
    if (f->interrupted) fprintf(out, " (interrupted: %" PRIu64 " asked)", f->steps_asked);
    else if (f->scene_over)
        fprintf(out, " (scene over at t = %.2f s, step %" PRIu64 ", of %" PRIu64 " allowed)",
                (double)f->steps_run * def.timestep, f->steps_run, f->steps_asked);
    else if (f->viewer) fprintf(out, " in the viewer");
    fprintf(out, ", %u thread(s), seed %" PRIu64 "\n", def.threads, def.seed);
    th_report_warnings(out, "warning   ", f->warnings, f->warning);
    static th_history_entry h[TH_MAX_HISTORY];
    uint32_t nh = history(w, h, TH_MAX_HISTORY);
    if (th_world_bunker_count(w) > 0) {
        th_outcome o;
        th_outcome_count(w, &o);
        print_outcome(out, w, &o, h, nh);
    }
    print_squads(out, w, h, nh);
    print_colonies(out, w);
    print_movers(out, w);
    print_pre_movement(out, w);
    print_crowd_changes(out, w);
    print_groups(out, w);
    print_own_goals(out, w);
    print_goal_changes(out, w);
    print_goal_planning(out, w);
    print_building(out, w);
    print_hazards(out, w);
    print_flow(out, w);
    print_stalls(out, w);
    double secs = th_app_max(measured_s(w, f)); /* the slowest rank under mpirun */
    if (f->viewer) {
        fprintf(out, "wall      %.3f s in the viewer, %.3f s of it stepping the world\n", f->wall_s,
                secs);
    } else {
        fprintf(out, "wall      %.3f s\n", secs);
    }
    fprintf(out, "speed     %.0f agent-steps/s\n", secs > 0.0 ? agent_steps(w, f) / secs : 0.0);
    fprintf(out, "neighbors %.1f per agent seen, %.1f inspected\n", st.mean_neighbors,
            st.mean_candidates);
    fprintf(out, "phases    ms/step:");
    for (int p = 0; p < TH_PHASE_COUNT; p++) {
        fprintf(out, " %s %.3f", th_phase_name((th_phase)p),
                th_app_max(th_world_phase_ms(w, (th_phase)p)));
    }
    fprintf(out, "\n");
    th_app_dist_print(out, w, secs);
    fprintf(out, "hash 0x%016" PRIx64 "\n", th_world_hash(w));
}

/* ---- JSON --------------------------------------------------------------------------------- */

static void json_str(FILE *f, const char *s) {
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
        else if (*p < 0x20 || *p >= 0x7f) fprintf(f, "\\u%04x", *p);
        else fputc(*p, f);
    }
    fputc('"', f);
}

/* A time or null (JSON has no negative "not yet"). */
static void json_time(FILE *f, double t) {
    if (t >= 0.0) fprintf(f, "%.4f", t);
    else fputs("null", f);
}

/* A door's flow limit, persons a second, or null without one. */
static void json_flow_limit(FILE *f, float max_flow) {
    if (max_flow > 0.0f) fprintf(f, "%.6g", (double)max_flow);
    else fputs("null", f);
}

static void cpu_model(char *buf, size_t cap) {
    snprintf(buf, cap, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) != 0) continue;
        const char *c = strchr(line, ':');
        if (!c) continue;
        c++;
        while (*c == ' ' || *c == '\t') c++;
        snprintf(buf, cap, "%s", c);
        buf[strcspn(buf, "\n")] = '\0';
        break;
    }
    fclose(f);
}

static const char *compiler(void) {
#if defined(__clang__)
    return "clang " __clang_version__;
#elif defined(__GNUC__)
    return "gcc " __VERSION__;
#else
    return "unknown";
#endif
}

void th_build_write_json(FILE *j) {
    char cpu[256];
    cpu_model(cpu, sizeof cpu);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    fprintf(j, "  \"machine\": {\"cpu\": ");
    json_str(j, cpu);
    fprintf(j, ", \"cores\": %ld},\n  \"build\": {\"version\": ", cores);
    json_str(j, THRONG_VERSION);
    fprintf(j, ", \"commit\": ");
    json_str(j, THRONG_COMMIT);
    fprintf(j, ", \"build_type\": ");
    json_str(j, THRONG_BUILD_TYPE);
    fprintf(j, ", \"compiler\": ");
    json_str(j, compiler());
#ifdef THRONG_MPI
    /* Built with THRONG_MPI: how many ranks shared the world. */
    fprintf(j, ", \"mpi\": true, \"ranks\": %d", th_app_ranks());
#endif
    fprintf(j, "}");
}

void th_build_describe(char *buf, size_t cap) {
#ifdef THRONG_MPI
    const char *mpi = ", MPI";
#else
    const char *mpi = "";
#endif
    snprintf(buf, cap, "throng %s (commit %s, %s build, %s%s)", THRONG_VERSION, THRONG_COMMIT,
             THRONG_BUILD_TYPE, compiler(), mpi);
}

/* The building's levels and stairs in the JSON report (after "levels": [). */
static void json_building(FILE *j, const th_world *w) {
    static building_counts bc;
    building_of(w, &bc);
    th_level_info li;
    for (uint32_t l = 0; l < th_world_level_count(w); l++) {
        if (!th_world_get_level(w, (th_level_id){l + 1}, &li)) continue;
        fprintf(j, "%s\n    {\"name\": ", l ? "," : "");
        json_str(j, li.name);
        fprintf(j, ", \"elevation_m\": %.6g, \"cells\": [%d, %d, %d, %d], \"agents\": %u}",
                (double)li.elevation, li.x0, li.y0, li.x1, li.y1, bc.level_agents[l]);
    }
    fprintf(j, "%s],\n  \"stairs\": [", th_world_level_count(w) ? "\n  " : "");
    th_stair_info si;
    for (uint32_t s = 0; s < th_world_stair_count(w); s++) {
        if (!th_world_get_stair(w, (th_stair_id){s + 1}, &si)) continue;
        th_level_info lo, hi;
        th_world_get_level(w, si.lower, &lo);
        th_world_get_level(w, si.upper, &hi);
        fprintf(j, "%s\n    {\"name\": ", s ? "," : "");
        json_str(j, si.name);
        fprintf(j, ", \"lower\": ");
        json_str(j, lo.name);
        fprintf(j, ", \"upper\": ");
        json_str(j, hi.name);
        fprintf(j,
                ", \"plan_length_m\": %.6g, \"length_m\": %.6g, \"rise_m\": %.6g, "
                "\"up_factor\": %.6g, \"down_factor\": %.6g, \"agents\": %u, "
                "\"crossed_up\": %u, \"crossed_down\": %u}",
                (double)si.plan_length, (double)si.length, (double)si.rise, (double)si.up_factor,
                (double)si.down_factor, bc.stair_agents[s], bc.up[s], bc.down[s]);
    }
    fprintf(j, "%s],\n  \"elevators\": [", th_world_stair_count(w) ? "\n  " : "");
    th_elevator_info ei;
    for (uint32_t e = 0; e < th_world_elevator_count(w); e++) {
        if (!th_world_get_elevator(w, (th_elevator_id){e + 1}, &ei)) continue;
        fprintf(j, "%s\n    {\"name\": ", e ? "," : "");
        json_str(j, ei.name);
        fprintf(j, ", \"stops\": [");
        for (uint32_t s = 0; s < ei.stop_count; s++) {
            th_world_get_level(w, ei.stops[s].level, &li);
            fprintf(j, "%s{\"level\": ", s ? ", " : "");
            json_str(j, li.name);
            fprintf(j, ", \"cell\": [%d, %d]}", ei.stops[s].x, ei.stops[s].y);
        }
        th_world_get_level(w, ei.stops[ei.discharge].level, &li);
        fprintf(j, "], \"discharge\": ");
        json_str(j, li.name);
        fprintf(j, ", \"policy\": \"%s\"",
                ei.policy == TH_ELEVATOR_COLLECTIVE ? "collective" : "shuttle");
        fprintf(j,
                ", \"capacity\": %u, \"speed_ms\": %.6g, \"acceleration_ms2\": %.6g, "
                "\"door_time_s\": %.6g, \"dwell_s\": %.6g, \"board_time_s\": %.6g, "
                "\"radius_m\": %.6g, \"trips\": %llu, \"carried\": %llu, \"last_out_s\": ",
                ei.capacity, (double)ei.speed, (double)ei.acceleration, (double)ei.door_time,
                (double)ei.dwell, (double)ei.board_time, (double)ei.radius,
                (unsigned long long)ei.trips, (unsigned long long)ei.carried);
        if (ei.carried) fprintf(j, "%.6f", ei.last_out);
        else fprintf(j, "null");
        fprintf(j,
                ", \"riders\": %u, \"waiting\": %u, \"walking\": %u, \"patience_s\": %.6g, "
                "\"gave_up\": %llu}",
                ei.riders, ei.waiting, ei.walking, (double)ei.patience,
                (unsigned long long)ei.gave_up);
    }
}

bool th_report_write_json(const char *path, const th_world *w, const th_run_facts *f,
                          th_error *err) {
    FILE *j = fopen(path, "w");
    if (!j) {
        int e = errno;
        *err = (th_error){.code = TH_ERR_IO};
        snprintf(err->message, sizeof err->message, "--json: cannot write '%s': %s", path,
                 strerror(e));
        return false;
    }
    th_world_def def = th_world_get_def(w);
    th_world_stats st = th_world_get_stats(w);
    double dt = def.timestep;
    fprintf(j, "{\n  \"scene\": {\"name\": ");
    json_str(j, f->scene);
    fprintf(j, ", \"argument\": ");
    json_str(j, f->argument);
    fprintf(j,
            ", \"agents\": %u, \"crowds\": %u, \"width_m\": %.6g, \"height_m\": %.6g, "
            "\"edges\": \"%s\", \"warnings\": %u, \"warning\": ",
            f->agents_start, th_world_crowd_count(w), (double)def.width, (double)def.height,
            def.bounds == TH_BOUNDS_WRAP ? "wrap" : "walls", f->warnings);
    if (f->warnings) json_str(j, f->warning);
    else fprintf(j, "null");
    fprintf(j, "},\n");
    fprintf(j,
            "  \"run\": {\"steps\": %" PRIu64 ", \"steps_asked\": %" PRIu64
            ", \"timestep_s\": %.9g, \"simulated_s\": %.6f, \"threads\": %u, \"seed\": %" PRIu64
            ", \"interrupted\": %s, \"viewer\": %s, \"scene_over\": %s, \"scene_over_s\": ",
            f->steps_run, f->steps_asked, dt, (double)f->steps_run * dt, def.threads, def.seed,
            f->interrupted ? "true" : "false", f->viewer ? "true" : "false",
            f->scene_over ? "true" : "false");
    json_time(j, f->scene_over ? (double)f->steps_run * dt : -1.0);
    fprintf(j, "},\n");
    th_stall_info si;
    th_world_get_stall_info(w, &si);
    fprintf(j,
            "  \"stalls\": {\"stalled\": %u, \"stall_time_s\": %.6g, \"longest_s\": %.4f, "
            "\"box_m\": ",
            si.stalled, (double)si.stall_time, (double)si.longest);
    if (si.stalled)
        fprintf(j, "[%.4f, %.4f, %.4f, %.4f]", (double)si.x0, (double)si.y0, (double)si.x1,
                (double)si.y1);
    else fprintf(j, "null");
    fprintf(j, ",\n             \"peak\": %u, \"peak_s\": ", si.peak);
    json_time(j, si.peak ? (double)si.peak_time : -1.0);
    fprintf(j,
            ", \"agent_seconds\": %.4f, \"longest_run_s\": %.4f, \"queued\": %u, "
            "\"queued_peak\": %u},\n",
            si.agent_seconds, (double)si.longest_run, si.queued, si.queued_peak);
    static th_history_entry h[TH_MAX_HISTORY];
    uint32_t dropped = 0, nh = th_world_history(w, 0, h, TH_MAX_HISTORY, NULL, &dropped);
    uint32_t bunkers = th_world_bunker_count(w);
    th_outcome o;
    th_outcome_count(w, &o);
    fprintf(j,
            "  \"outcome\": {\"spawned\": %u, \"sheltered\": %u, \"en_route\": %u, "
            "\"stranded\": %u, \"removed\": %u, \"buried\": %u, \"not_fleeing\": %u, "
            "\"reachable\": %u, \"en_route_stalled\": %u, \"en_route_riding\": %u, "
            "\"waiting\": %u, \"incapacitated\": %u, \"own_goal\": %u, \"own_goal_there\": %u, "
            "\"own_goal_no_way\": %u, \"sheltered_50_s\": ",
            o.spawned, o.sheltered, o.en_route, o.stranded, o.removed, o.buried, o.other,
            o.reachable, o.en_route_stalled, o.en_route_riding, o.waiting, o.incapacitated,
            o.own_goal, o.own_goal_there, o.own_goal_no_way);
    json_time(j, o.time_at[0]);
    fprintf(j, ", \"sheltered_90_s\": ");
    json_time(j, o.time_at[1]);
    fprintf(j, ", \"sheltered_100_s\": ");
    json_time(j, o.time_at[2]);
    fprintf(j, ",\n              \"stranded_cut_off\": %u, \"stranded_walled_in\": %u},\n",
            o.cut_off, o.walled_in);
    fprintf(j, "  \"bunkers\": [");
    for (uint32_t b = 0; b < bunkers; b++) {
        th_bunker_info bi;
        th_world_get_bunker(w, (th_bunker_id){b + 1}, &bi);
        fprintf(j, "%s\n    {\"name\": ", b ? "," : "");
        json_str(j, bi.name);
        fprintf(j, ", \"exit\": %s, \"sheltered\": %u, \"capacity\": %u, \"max_flow\": ",
                bi.exit ? "true" : "false", bi.sheltered, bi.capacity);
        json_flow_limit(j, bi.max_flow);
        fprintf(j, ", \"destroyed\": %s, \"full\": %s, \"stranded_could_reach\": %u, \"events\": [",
                bi.destroyed ? "true" : "false", bi.full ? "true" : "false", o.cut_off_by[b]);
        const char *sep = "";
        for (uint32_t i = 0; i < nh; i++) {
            if (!bunker_kind(h[i].kind) || h[i].bunker.index1 != b + 1) continue;
            fprintf(j, "%s{\"event\": \"%s\", \"step\": %" PRIu64 ", \"time_s\": %.4f}", sep,
                    kind_word(h[i].kind), h[i].step, (double)h[i].step * dt);
            sep = ", ";
        }
        fprintf(j, "]}");
    }
    fprintf(j, "%s],\n  \"squads\": [", bunkers ? "\n  " : "");
    th_squad_info q;
    uint32_t s = 0;
    for (; th_world_get_squad(w, (th_squad_id){s + 1}, &q); s++) {
        double first = -1.0;
        for (uint32_t i = 0; i < nh && first < 0.0; i++) {
            if (h[i].kind == TH_HISTORY_SQUAD_ARRIVED && h[i].squad.index1 == s + 1)
                first = (double)h[i].step * dt;
        }
        fprintf(j,
                "%s\n    {\"squad\": %u, \"members\": %u, \"arrived\": %s, \"stuck\": %s, "
                "\"no_room\": %s, \"arrived_s\": ",
                s ? "," : "", s + 1, q.members, q.arrived ? "true" : "false",
                q.stuck ? "true" : "false", q.no_room ? "true" : "false");
        json_time(j, first);
        fprintf(j, "}");
    }
    fprintf(j, "%s],\n  \"buried\": [", s ? "\n  " : "");
    const char *sep = "";
    for (uint32_t i = 0; i < nh; i++) {
        if (h[i].kind != TH_HISTORY_BURIED) continue;
        fprintf(j, "%s{\"agents\": %u, \"step\": %" PRIu64 ", \"time_s\": %.4f}", sep, h[i].count,
                h[i].step, (double)h[i].step * dt);
        sep = ", ";
    }
    fprintf(j, "],\n  \"spawners\": [");
    for (uint32_t i = 0; i < th_world_spawner_count(w); i++) {
        th_spawner_info si;
        th_world_get_spawner(w, (th_spawner_id){i + 1}, &si);
        fprintf(j, "%s\n    {\"name\": ", i ? "," : "");
        json_str(j, si.name);
        fprintf(j,
                ", \"crowd\": %u, \"added\": %u, \"due\": %" PRIu64 ", \"waiting\": %" PRIu64
                ", \"total\": ",
                si.crowd.index1 - 1, si.emitted, si.due, si.waiting);
        if (si.total == UINT64_MAX) fprintf(j, "null}");
        else fprintf(j, "%" PRIu64 "}", si.total);
    }
    fprintf(j, "%s],\n  \"exits\": [", th_world_spawner_count(w) ? "\n  " : "");
    for (uint32_t e = 0; e < th_world_exit_count(w); e++) {
        th_exit_info ei;
        th_world_get_exit(w, (th_exit_id){e + 1}, &ei);
        fprintf(j, "%s\n    {\"name\": ", e ? "," : "");
        json_str(j, ei.name);
        fprintf(j, ", \"exited\": %u, \"first_s\": ", ei.exited);
        json_time(j, ei.exited ? (double)ei.first_step * dt : -1.0);
        fprintf(j, ", \"last_s\": ");
        json_time(j, ei.exited ? (double)ei.last_step * dt : -1.0);
        fprintf(j, ", \"max_flow\": ");
        json_flow_limit(j, ei.max_flow);
        fprintf(j, "}");
    }
    fprintf(j, "%s],\n  \"colonies\": [", th_world_exit_count(w) ? "\n  " : "");
    uint32_t colonies = 0;
    for (uint32_t c = 0; c < th_world_crowd_count(w); c++) {
        const th_crowd_id crowd = {c + 1};
        th_forage_info fi;
        if (!th_world_get_forage(w, crowd, &fi)) continue;
        /* Under mpirun each rank counted its own ants: carried, and lost from it. */
        th_app_sum_u32(&fi.carried, 1);
        fi.lost = fi.taken - fi.delivered - fi.carried;
        fprintf(j, "%s\n    {\"crowd\": ", colonies++ ? "," : "");
        json_str(j, th_world_get_crowd(w, crowd)->name);
        fprintf(j,
                ", \"delivered\": %" PRIu64 ", \"carried\": %u, \"taken\": %" PRIu64
                ", \"lost\": %" PRIu64 ", \"sources\": [",
                fi.delivered, fi.carried, fi.taken, fi.lost);
        th_food_info f;
        for (uint32_t i = 0; th_world_get_food_source(w, crowd, i, &f); i++)
            fprintf(j, "%s{\"amount\": %u, \"remaining\": %u}", i ? ", " : "", f.amount,
                    f.remaining);
        fprintf(j, "]}");
    }
    fprintf(j, "%s],\n  \"movers\": [", colonies ? "\n  " : "");
    uint32_t movers = 0;
    mover_outcome m;
    for (uint32_t c = 0; c < th_world_crowd_count(w); c++) {
        if (!mover_outcome_of(w, c, &m)) continue;
        fprintf(j, "%s\n    {\"crowd\": ", movers++ ? "," : "");
        json_str(j, th_world_get_crowd(w, (th_crowd_id){c + 1})->name);
        fprintf(j, ", \"goal\": ");
        json_str(j, m.goal);
        fprintf(j,
                ", \"agents\": %u, \"arrived\": %u, \"stranded\": %u, \"farthest_m\": ", m.agents,
                m.arrived, m.stranded);
        json_time(j, m.farthest);
        fprintf(j, "}");
    }
    fprintf(j, "%s],\n  \"crowd_changes\": [", movers ? "\n  " : "");
    uint32_t changed = 0;
    for (uint32_t c = 0; c < th_world_crowd_count(w); c++) {
        uint64_t last;
        const uint32_t n = th_world_crowd_changes(w, (th_crowd_id){c + 1}, &last);
        if (!n) continue;
        fprintf(j, "%s\n    {\"crowd\": ", changed++ ? "," : "");
        json_str(j, th_world_get_crowd(w, (th_crowd_id){c + 1})->name);
        fprintf(j, ", \"changes\": %u, \"last_s\": %.6g}", n, (double)last * dt);
    }
    fprintf(j, "%s],\n  \"pre_movement\": [", changed ? "\n  " : "");
    uint32_t pres = 0;
    th_pre_movement_info pm;
    for (uint32_t c = 0; c < th_world_crowd_count(w); c++) {
        if (!pre_movement_of(w, c, &pm)) continue;
        fprintf(j, "%s\n    {\"crowd\": ", pres++ ? "," : "");
        json_str(j, th_world_get_crowd(w, (th_crowd_id){c + 1})->name);
        fprintf(j,
                ", \"drawn\": %u, \"mean_s\": %.6g, \"min_s\": %.6g, \"max_s\": %.6g, "
                "\"waiting\": %u}",
                pm.drawn, pm.mean_s, pm.min_s, pm.max_s, pm.waiting);
    }
    groups_outcome go;
    groups_of(w, &go);
    fprintf(j,
            "%s],\n  \"groups\": {\"groups\": %u, \"members\": %u, \"present\": %u, "
            "\"waiting\": %u, \"max_stretch_m\": %.4f},\n",
            pres ? "\n  " : "", go.groups, go.members, go.present, go.waiting, (double)go.stretch);
    uint64_t pending, made, passed;
    goal_changes(w, &pending, &made, &passed);
    const th_own_goal_counts og = own_goals_of(w);
    fprintf(j,
            "  \"own_goals\": {\"given\": %u, \"reached\": %u, \"walking\": %u, "
            "\"unreachable\": %u, \"passed_over\": %llu},\n",
            og.given, og.reached, og.walking, og.unreachable, (unsigned long long)passed);
    fprintf(j, "  \"goal_changes\": {\"made\": %llu, \"passed_over\": %llu, \"pending\": %llu},\n",
            (unsigned long long)made, (unsigned long long)passed, (unsigned long long)pending);
    const th_goal_planning_info gp = th_world_goal_planning_info(w);
    fprintf(j,
            "  \"goal_planning\": {\"budget\": %u, \"cluster_size\": %u, \"max_requests\": %u, "
            "\"answered\": %llu, \"unreachable\": %llu, \"at_once\": %llu, \"expanded\": %llu, "
            "\"waiting\": %u, \"wait_steps_mean\": %.4f, \"wait_steps_max\": %u},\n"
            "  \"levels\": [",
            gp.def.budget, gp.def.cluster_size, gp.def.max_requests,
            (unsigned long long)gp.answered, (unsigned long long)gp.unreachable,
            (unsigned long long)gp.at_once, (unsigned long long)gp.expanded, gp.waiting,
            gp.answered ? (double)gp.wait_steps / (double)gp.answered : 0.0, gp.most_steps);
    json_building(j, w);
    fprintf(j, "%s],\n  \"hazards\": [", th_world_elevator_count(w) ? "\n  " : "");
    uint32_t hazards = 0;
    th_hazard_info hz;
    for (uint32_t c = 0; c < th_world_crowd_count(w); c++) {
        if (!hazard_of(w, c, &hz)) continue;
        fprintf(j, "%s\n    {\"crowd\": ", hazards++ ? "," : "");
        json_str(j, th_world_get_crowd(w, (th_crowd_id){c + 1})->name);
        fprintf(j, ", \"incapacitated\": %u, \"first_incapacitated_s\": ", hz.incapacitated);
        json_time(j, hz.incapacitated ? hz.first_s : -1.0);
        fprintf(j, ", \"max_fed\": %.6g}", hz.max_fed);
    }
    double exit_at[3];
    th_report_exit_times(w, exit_at);
    fprintf(j, "%s],\n  \"exited\": {\"agents\": %u, \"exited_50_s\": ", hazards ? "\n  " : "",
            st.exited);
    json_time(j, exit_at[0]);
    fprintf(j, ", \"exited_90_s\": ");
    json_time(j, exit_at[1]);
    fprintf(j, ", \"exited_100_s\": ");
    json_time(j, exit_at[2]);
    fprintf(j, "},\n  \"history_dropped\": %u,\n", dropped);
    double secs = measured_s(w, f);
    fprintf(j,
            "  \"performance\": {\"wall_s\": %.6f, \"stepping_s\": %.6f, "
            "\"agent_steps_per_s\": %.1f, \"mean_neighbors\": %.3f, \"mean_candidates\": %.3f, "
            "\"phases_ms_per_step\": {",
            f->wall_s, th_report_stepping_s(w, f->steps_run),
            secs > 0.0 ? agent_steps(w, f) / secs : 0.0, st.mean_neighbors, st.mean_candidates);
    for (int p = 0; p < TH_PHASE_COUNT; p++) {
        fprintf(j, "%s\"%s\": %.6f", p ? ", " : "", th_phase_name((th_phase)p),
                th_world_phase_ms(w, (th_phase)p));
    }
    fprintf(j, "}},\n  \"hash\": \"0x%016" PRIx64 "\",\n", th_world_hash(w));
    th_build_write_json(j);
    fprintf(j, "\n}\n");
    /* Say why a write failed: the flush of what is left (a full disk fails it again), else
     * errno as the failed write left it. */
    errno = 0;
    int e = fflush(j) != 0 || ferror(j) ? errno : 0;
    bool ok = !ferror(j);
    errno = 0;
    if (fclose(j) != 0) {
        if (!e) e = errno;
        ok = false;
    }
    if (!ok) {
        *err = (th_error){.code = TH_ERR_IO};
        snprintf(err->message, sizeof err->message, "--json: writing '%s' failed: %s", path,
                 e ? strerror(e) : "an earlier write failed");
    }
    return ok;
}
