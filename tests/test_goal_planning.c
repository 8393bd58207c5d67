/* The world's goal planning (throng/plan.h th_world_set_goal_planning, sim/behave/own_plan.c):
 *   - 300 walkers, each sent to its own random point on a random 96 x 96 map, get their paths
 *     over several steps without any step spending more than the budget; each path, when it
 *     comes, is within 10 % of a plain Dijkstra's distance (tests/ref_dijkstra.c) from where
 *     the walker then stands, never shorter than the any-angle bound, and never through a
 *     wall; sixty walkers pressed round a corner all arrive;
 *   - requests of higher priority are answered first, and no more are searched at once than
 *     max_requests;
 *   - while waiting, a walker walks the coarse route (it does not stand), never into a wall,
 *     and arrives once answered;
 *   - a point walled off: answered unreachable, the walker stands; a wall built across a path
 *     already given sends it back to the planner, and the walker still arrives;
 *   - turning it off plans the waiting goals at once; the same hash on 1, 2, 3 and 8 threads;
 *     no allocation in the steps; refusals. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/alloc.h"
#include "engine/rng.h"
#include "test_util.h"
#include "tests/ref_dijkstra.h"
#include "throng/building.h"
#include "throng/plan.h"
#include "throng/throng.h"

static th_error err;

/* w x h one-metre cells, `pct` % of them starting a wall bar of 1 to 6 cells. */
static th_world *random_world(uint32_t threads, uint64_t seed, int32_t w, int32_t h, uint32_t pct) {
    th_world *wo = th_test_metre_world(threads, seed, w, h);
    uint64_t ctr = 0;
    for (int32_t y = 0; y < h; y++) {
        for (int32_t x = 0; x < w; x++) {
            if (th_test_rnd(seed, 1, &ctr, 100) >= pct) continue;
            const int32_t len = 1 + (int32_t)th_test_rnd(seed, 2, &ctr, 6);
            const bool across = th_test_rnd(seed, 3, &ctr, 2);
            for (int32_t i = 0; i < len; i++) {
                const int32_t bx = across ? x + i : x, by = across ? y : y + i;
                if (bx < w && by < h) th_world_set_cell(wo, bx, by, TH_CELL_WALL, 0, NULL);
            }
        }
    }
    return wo;
}

static uint16_t *read_map(const th_world *wo, int32_t w, int32_t h) {
    uint16_t *c = malloc(sizeof *c * (size_t)(w * h));
    for (int32_t y = 0; y < h; y++)
        for (int32_t x = 0; x < w; x++)
            c[y * w + x] = th_world_cell(wo, x, y, NULL) == TH_CELL_WALL ? 0 : 1;
    return c;
}

/* Reference metres from every cell to the cell of `p` (unit costs: 140 units a metre). */
static uint64_t *ref_to(const uint16_t *map, int32_t w, int32_t h, th_vec2 p) {
    uint64_t *d = malloc(sizeof *d * (size_t)(w * h));
    const th_ref_goal g = {(int)p.x, (int)p.y, 0};
    ck_assert_int_eq(th_ref_dijkstra(w, h, map, &g, 1, d), 0);
    return d;
}

static double ref_at(const uint64_t *d, int32_t w, th_vec2 p) {
    const uint64_t u = d[(int)p.y * w + (int)p.x];
    return u == TH_REF_INF ? INFINITY : (double)u / 140.0;
}

/* A segment kept off walls: sampled every 5 cm, no sample in a wall cell. */
static bool clear(const uint16_t *map, int32_t w, th_vec2 a, th_vec2 b) {
    const float len = th_v2_len(th_v2_sub(b, a));
    const int n = 1 + (int)(len / 0.05f);
    for (int i = 0; i <= n; i++) {
        const float t = (float)i / (float)n;
        const th_vec2 q = th_v2(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t);
        if (!map[(int)q.y * w + (int)q.x]) return false;
    }
    return true;
}

static th_crowd_id walkers(th_world *w) {
    th_crowd_def cd = th_default_pedestrian_def();
    const th_crowd_id c = th_world_add_crowd(w, &cd, &err);
    ck_assert_msg(c.index1, "%s", err.message);
    return c;
}

/* A random open cell's centre, with the reference field to it when `d` is given. */
static th_vec2 open_point(const uint16_t *map, int32_t w, int32_t h, uint64_t seed, uint64_t *ctr) {
    for (;;) {
        const int32_t x = (int32_t)th_test_rnd(seed, 7, ctr, (uint32_t)w);
        const int32_t y = (int32_t)th_test_rnd(seed, 7, ctr, (uint32_t)h);
        if (map[y * w + x]) return th_v2((float)x + 0.5f, (float)y + 0.5f);
    }
}

enum { N = 300, S = 96 };

START_TEST(paths_within_the_budget_near_dijkstra) {
    th_world *w = random_world(2, 11, S, S, 7);
    uint16_t *map = read_map(w, S, S);
    const th_crowd_id c = walkers(w);
    static th_agent_id ids[N];
    static th_vec2 goal[N];
    static uint64_t *ref[N];
    uint64_t ctr = 0;
    int placed = 0;
    while (placed < N) {
        const th_vec2 a = open_point(map, S, S, 11, &ctr);
        const th_vec2 b = open_point(map, S, S, 11, &ctr);
        uint64_t *d = ref_to(map, S, S, b);
        if (!isfinite(ref_at(d, S, a)) || ref_at(d, S, a) < 20.0) { /* joined, and not near */
            free(d);
            continue;
        }
        ids[placed] = th_world_add_agent(w, c, a, th_v2(0, 0), &err);
        ck_assert_msg(ids[placed].index1, "%s", err.message);
        goal[placed] = b;
        ref[placed++] = d;
    }
    const th_goal_planning gp = {.budget = 400, .max_requests = 64};
    ck_assert_msg(th_world_set_goal_planning(w, &gp, &err), "%s", err.message);
    for (int i = 0; i < N; i++) {
        const th_agent_goal g = {.kind = TH_AGENT_GOAL_POINT, .point = goal[i], .radius = 0.5f};
        ck_assert_msg(th_world_set_agent_goal(w, ids[i], &g, &err), "%s", err.message);
        ck_assert(th_world_agent_path_pending(w, ids[i]));
    }
    static bool done[N];
    int answered = 0, steps = 0;
    double worst = 0.0, sum = 0.0;
    while (answered < N) {
        th_world_step(w);
        steps++;
        ck_assert_msg(steps < 5000, "%d answered after %d steps", answered, steps);
        const th_goal_planning_info gi = th_world_goal_planning_info(w);
        ck_assert_msg(gi.last_expanded <= gp.budget, "%u expansions", gi.last_expanded);
        ck_assert(gi.searching <= gp.max_requests);
        ck_assert_int_eq(gi.waiting, N - (int)gi.answered);
        for (int i = 0; i < N; i++) {
            if (done[i] || th_world_agent_path_pending(w, ids[i])) continue;
            done[i] = true;
            answered++;
            th_agent_state a;
            ck_assert(th_world_get_agent(w, ids[i], &a));
            th_vec2 path[TH_AGENT_PATH_POINTS];
            uint32_t n = 0;
            ck_assert_msg(th_world_agent_path(w, ids[i], path, TH_AGENT_PATH_POINTS, &n, &err),
                          "%s", err.message);
            ck_assert(n >= 1 && path[n - 1].x == goal[i].x && path[n - 1].y == goal[i].y);
            double len = 0.0;
            th_vec2 from = a.position;
            for (uint32_t k = 0; k < n; k++) {
                if (k > 0) ck_assert_msg(clear(map, S, path[k - 1], path[k]), "leg %u of %d", k, i);
                len += th_v2_len(th_v2_sub(path[k], from));
                from = path[k];
            }
            const double r = ref_at(ref[i], S, a.position);
            /* Within 10 % (and the first leg's half cell) of the optimum, and no shorter than
             * the any-angle bound (octile over straight at most 1.0824). */
            ck_assert_msg(len <= 1.10 * r + 1.0 && len >= r / 1.0824 - 1.0,
                          "agent %d: %.2f m against %.2f m", i, len, r);
            const double ratio = len / (r + 1e-9);
            sum += ratio;
            if (ratio > worst) worst = ratio;
        }
    }
    const th_goal_planning_info gi = th_world_goal_planning_info(w);
    ck_assert(gi.answered == N && gi.unreachable == 0 && gi.at_once == 0 && gi.waiting == 0);
    /* Sliced: the budget could not have served them in one step. */
    ck_assert_msg(steps > 3 && gi.most_steps > 3, "%d steps", steps);
    ck_assert(gi.expanded <= (uint64_t)steps * gp.budget);
    ck_assert_msg(sum / N < 1.03, "mean ratio %.4f, worst %.4f", sum / N, worst);
    for (int i = 0; i < N; i++) free(ref[i]);
    free(map);
    th_world_destroy(w);
}
END_TEST

/* A crowd round a corner: sixty walkers in a 4 m corridor that turns north at a right angle,
 * each sent to its own point in the room past the turn. Pressed together at the corner, some
 * are pushed out of sight of their next waypoint; planned again from there, every one
 * arrives. */
START_TEST(a_crowd_round_a_corner_arrives) {
    th_world_def wd = th_default_world_def();
    wd.width = 40;
    wd.height = 40;
    wd.cell_size = 1.0f;
    wd.threads = 2;
    th_world *w = th_world_create(&wd, &err);
    ck_assert(w);
    /* Walls everywhere but the corridor y in [2, 6), x in [0, 30), the shaft x in [26, 30),
     * y in [2, 24) and the room y in [24, 40). */
    for (int y = 0; y < 40; y++)
        for (int x = 0; x < 40; x++) {
            const bool open = (y >= 2 && y < 6 && x < 30) || (x >= 26 && x < 30 && y < 24) ||
                              (y >= 24 && y < 39 && x >= 1 && x < 39);
            if (!open) ck_assert(th_world_set_cell(w, x, y, TH_CELL_WALL, 0, &err));
        }
    const th_crowd_id c = walkers(w);
    th_agent_id ids[60];
    th_vec2 goal[60];
    for (int i = 0; i < 60; i++) {
        ids[i] = th_world_add_agent(
            w, c, th_v2(1.5f + (float)(i / 4) * 1.0f, 2.5f + (float)(i % 4)), th_v2(0, 0), &err);
        goal[i] = th_v2(3.5f + (float)(i % 12) * 3.0f, 26.5f + (float)(i / 12) * 2.5f);
    }
    const th_goal_planning gp = {.budget = 200, .cluster_size = 8};
    ck_assert(th_world_set_goal_planning(w, &gp, &err));
    for (int i = 0; i < 60; i++) {
        const th_agent_goal g = {.kind = TH_AGENT_GOAL_POINT, .point = goal[i], .radius = 0.5f};
        ck_assert_msg(th_world_set_agent_goal(w, ids[i], &g, &err), "%s", err.message);
    }
    int there = 0;
    for (int s = 0; s < 180 * 60 && there < 60; s++) {
        th_world_step(w);
        there = 0;
        for (int i = 0; i < 60; i++) {
            th_agent_state a;
            ck_assert(th_world_get_agent(w, ids[i], &a));
            there += th_v2_len(th_v2_sub(a.position, goal[i])) <= 0.6f;
        }
    }
    ck_assert_msg(there == 60, "%d of 60 there", there);
    th_world_destroy(w);
}
END_TEST

/* 40 x 30 m: a wall at x = 20 from y = 0 to 24 (a gap at the top). */
static th_world *walled(uint32_t threads) {
    th_world_def wd = th_default_world_def();
    wd.width = 40;
    wd.height = 30;
    wd.cell_size = 1.0f;
    wd.threads = threads;
    wd.seed = 6;
    th_world *w = th_world_create(&wd, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    for (int y = 0; y < 25; y++) ck_assert(th_world_set_cell(w, 20, y, TH_CELL_WALL, 0, &err));
    return w;
}

START_TEST(priority_first_and_slots_held) {
    th_world *w = walled(1);
    const th_crowd_id c = walkers(w);
    th_agent_id ids[40];
    for (int i = 0; i < 40; i++)
        ids[i] = th_world_add_agent(
            w, c, th_v2(2.5f + (float)(i % 8) * 2.0f, 2.5f + (float)(i / 8)), th_v2(0, 0), &err);
    const th_goal_planning gp = {.budget = 6, .max_requests = 3, .cluster_size = 8};
    ck_assert_msg(th_world_set_goal_planning(w, &gp, &err), "%s", err.message);
    /* Given low first: the even agents' goals are urgent. */
    for (int i = 0; i < 40; i++) {
        const th_agent_goal g = {.kind = TH_AGENT_GOAL_POINT,
                                 .point = {25.5f + (float)(i % 10), 3.5f + (float)(i / 10)},
                                 .priority = i % 2 ? 0 : 5};
        ck_assert(th_world_set_agent_goal(w, ids[i], &g, &err));
    }
    int last_high = -1, first_low = -1;
    bool got[40] = {0};
    for (int s = 0; s < 2000; s++) {
        th_world_step(w);
        const th_goal_planning_info gi = th_world_goal_planning_info(w);
        ck_assert(gi.searching <= 3 && gi.last_expanded <= 6);
        int left = 0;
        for (int i = 0; i < 40; i++) {
            if (got[i] || th_world_agent_path_pending(w, ids[i])) {
                left += !got[i];
                continue;
            }
            got[i] = true;
            if (i % 2 == 0) last_high = s;
            else if (first_low < 0) first_low = s;
        }
        if (!left) break;
    }
    ck_assert_msg(last_high >= 0 && first_low >= 0 && last_high <= first_low,
                  "last urgent at step %d, first other at %d", last_high, first_low);
    for (int i = 0; i < 40; i++) ck_assert(got[i]);
    th_world_destroy(w);
}
END_TEST

/* The order goals were given, not where their entries lie: B is given its point after A,
 * then A a new one, so B's comes first; with one request slot B is answered first. An agent
 * removed while its request is searched gives its slot up at once. */
START_TEST(the_order_given_and_slots_given_up) {
    th_world *w = walled(1);
    const th_crowd_id c = walkers(w);
    const th_agent_id a = th_world_add_agent(w, c, th_v2(3.5f, 3.5f), th_v2(0, 0), &err);
    const th_agent_id b = th_world_add_agent(w, c, th_v2(3.5f, 8.5f), th_v2(0, 0), &err);
    const th_agent_id d = th_world_add_agent(w, c, th_v2(3.5f, 13.5f), th_v2(0, 0), &err);
    const th_goal_planning gp = {.budget = 2, .max_requests = 1, .cluster_size = 4};
    ck_assert(th_world_set_goal_planning(w, &gp, &err));
    const th_agent_goal east = {.kind = TH_AGENT_GOAL_POINT, .point = {35.5f, 5.5f}};
    const th_agent_goal north_east = {.kind = TH_AGENT_GOAL_POINT, .point = {35.5f, 20.5f}};
    ck_assert(th_world_set_agent_goal(w, a, &east, &err));
    ck_assert(th_world_set_agent_goal(w, b, &east, &err));
    ck_assert(th_world_set_agent_goal(w, a, &north_east, &err));
    int s = 0;
    while (th_world_agent_path_pending(w, b)) {
        th_world_step(w);
        ck_assert_msg(th_world_agent_path_pending(w, a) || !th_world_agent_path_pending(w, b),
                      "A answered before B");
        ck_assert(++s < 2000);
    }
    while (th_world_agent_path_pending(w, a)) {
        th_world_step(w);
        ck_assert(++s < 4000);
    }
    /* D's request searched, a step at a time; D leaves: A's new one takes the slot at once. */
    ck_assert(th_world_set_agent_goal(w, d, &east, &err));
    th_world_step(w);
    ck_assert(th_world_agent_path_pending(w, d));
    ck_assert(th_world_set_agent_goal(w, a, &east, &err));
    ck_assert(th_world_remove_agent(w, d, &err));
    th_world_step(w);
    const th_goal_planning_info gi = th_world_goal_planning_info(w);
    ck_assert_msg(gi.searching == 1 && gi.waiting == 1, "%u searching, %u waiting", gi.searching,
                  gi.waiting);
    th_world_destroy(w);
}
END_TEST

/* Goals given for a later step, planned on or not: the step that makes them allocates
 * nothing, forty at once. */
START_TEST(goals_for_a_later_step_allocate_nothing) {
    for (int planned = 0; planned < 2; planned++) {
        th_world *w = walled(2);
        const th_crowd_id c = walkers(w);
        th_agent_id ids[40];
        for (int i = 0; i < 40; i++)
            ids[i] = th_world_add_agent(w, c, th_v2(2.5f + (float)(i % 10), 2.5f + (float)(i / 10)),
                                        th_v2(0, 0), &err);
        const th_goal_planning gp = {.budget = 30};
        if (planned) ck_assert(th_world_set_goal_planning(w, &gp, &err));
        const th_agent_goal east = {.kind = TH_AGENT_GOAL_POINT, .point = {30.5f, 5.5f}};
        ck_assert(th_world_schedule_agents_goal(w, 3, ids, 40, &east, &err));
        const uint64_t allocs = th_alloc_count();
        for (int s = 0; s < 10; s++) th_world_step(w);
        ck_assert_msg(th_alloc_count() == allocs, "%llu allocations (planning %d)",
                      (unsigned long long)(th_alloc_count() - allocs), planned);
        th_agent_goal g;
        ck_assert(th_world_get_agent_goal(w, ids[39], &g) && g.kind == TH_AGENT_GOAL_POINT);
        th_world_destroy(w);
    }
}
END_TEST

START_TEST(waiting_walkers_walk_meanwhile) {
    th_world *w = walled(1);
    const th_crowd_id c = walkers(w);
    const th_agent_id id = th_world_add_agent(w, c, th_v2(10.5f, 5.5f), th_v2(0, 0), &err);
    th_agent_id others[6];
    for (int i = 0; i < 6; i++)
        others[i] =
            th_world_add_agent(w, c, th_v2(3.5f, 3.5f + 3.0f * (float)i), th_v2(0, 0), &err);
    /* Searched first, one expansion a step. */
    const th_goal_planning gp = {.budget = 1, .max_requests = 8, .cluster_size = 4};
    ck_assert(th_world_set_goal_planning(w, &gp, &err));
    const th_agent_goal far = {.kind = TH_AGENT_GOAL_POINT, .point = {36.5f, 26.5f}};
    for (int i = 0; i < 6; i++) ck_assert(th_world_set_agent_goal(w, others[i], &far, &err));
    const th_agent_goal east = {.kind = TH_AGENT_GOAL_POINT, .point = {30.5f, 5.5f}, .priority = 1};
    ck_assert(th_world_set_agent_goal(w, id, &east, &err));
    int s = 0;
    th_agent_state a;
    for (; s < 600 && th_world_agent_path_pending(w, id); s++) {
        th_world_step(w);
        ck_assert(th_world_get_agent(w, id, &a));
        ck_assert_msg(a.position.x < 19.6f, "through the wall at (%g, %g)", (double)a.position.x,
                      (double)a.position.y);
        ck_assert(th_world_agent_remaining(w, id) > 0.0f);
    }
    ck_assert_msg(s > 5 && s < 600, "answered after %d steps", s);
    /* Meanwhile it walked the coarse route: it did not stand waiting. */
    ck_assert_msg(th_v2_len(a.velocity) > 0.2f &&
                      th_v2_len(th_v2_sub(a.position, th_v2(10.5f, 5.5f))) > 0.05f,
                  "at %g m/s", (double)th_v2_len(a.velocity));
    for (int k = 0; k < 90 * 60; k++) th_world_step(w);
    ck_assert(th_world_get_agent(w, id, &a));
    ck_assert_msg(th_v2_len(th_v2_sub(a.position, east.point)) <= 1.1f, "at (%g, %g)",
                  (double)a.position.x, (double)a.position.y);
    th_world_destroy(w);
}
END_TEST

START_TEST(unreachable_points_and_walls_built_later) {
    th_world *w = walled(2);
    const th_crowd_id c = walkers(w);
    /* A room at (30..34, 10..14) walled round: its middle is open, but joined to nothing. */
    for (int x = 30; x <= 34; x++) {
        ck_assert(th_world_set_cell(w, x, 10, TH_CELL_WALL, 0, &err));
        ck_assert(th_world_set_cell(w, x, 14, TH_CELL_WALL, 0, &err));
    }
    for (int y = 10; y <= 14; y++) {
        ck_assert(th_world_set_cell(w, 30, y, TH_CELL_WALL, 0, &err));
        ck_assert(th_world_set_cell(w, 34, y, TH_CELL_WALL, 0, &err));
    }
    const th_agent_id shut = th_world_add_agent(w, c, th_v2(5.5f, 5.5f), th_v2(0, 0), &err);
    const th_agent_id walker = th_world_add_agent(w, c, th_v2(10.5f, 20.5f), th_v2(0, 0), &err);
    const th_goal_planning gp = {.budget = 100};
    ck_assert(th_world_set_goal_planning(w, &gp, &err));
    /* Planned at once this is refused; given to the planner it is accepted, then found
     * unreachable: the walker stands. */
    const th_agent_goal in_room = {.kind = TH_AGENT_GOAL_POINT, .point = {32.5f, 12.5f}};
    ck_assert(th_world_set_agent_goal(w, shut, &in_room, &err));
    const th_agent_goal east = {
        .kind = TH_AGENT_GOAL_POINT, .point = {30.5f, 20.5f}, .radius = 0.5f};
    ck_assert(th_world_set_agent_goal(w, walker, &east, &err));
    for (int s = 0; s < 10; s++) th_world_step(w);
    ck_assert(!th_world_agent_path_pending(w, shut) && !th_world_agent_path_pending(w, walker));
    th_goal_planning_info gi = th_world_goal_planning_info(w);
    ck_assert(gi.answered == 1 && gi.unreachable == 1);
    th_vec2 pts[8];
    uint32_t n;
    ck_assert(!th_world_agent_path(w, shut, pts, 8, &n, &err));
    th_agent_state a;
    ck_assert(th_world_get_agent(w, shut, &a));
    const th_vec2 stood = a.position;
    for (int s = 0; s < 120; s++) th_world_step(w);
    ck_assert(th_world_get_agent(w, shut, &a));
    ck_assert(th_v2_len(th_v2_sub(a.position, stood)) < 0.3f);
    /* The gap over the wall closed but for its top cell, across the walker's given path:
     * planned again by the planner, and it still arrives. */
    ck_assert(th_world_block_cells(w, 20, 25, 20, 28, &err));
    th_world_step(w);
    gi = th_world_goal_planning_info(w);
    ck_assert_msg(gi.answered == 2 || th_world_agent_path_pending(w, walker), "%llu answered",
                  (unsigned long long)gi.answered);
    for (int s = 0; s < 90 * 60; s++) th_world_step(w);
    ck_assert(th_world_get_agent(w, walker, &a));
    ck_assert_msg(th_v2_len(th_v2_sub(a.position, east.point)) <= 0.6f, "at (%g, %g)",
                  (double)a.position.x, (double)a.position.y);
    ck_assert(th_world_goal_planning_info(w).answered >= 2);
    th_world_destroy(w);
}
END_TEST

START_TEST(turned_off_the_waiting_are_planned_at_once) {
    th_world *w = walled(1);
    const th_crowd_id c = walkers(w);
    th_agent_id ids[5];
    for (int i = 0; i < 5; i++)
        ids[i] = th_world_add_agent(w, c, th_v2(5.5f, 3.5f + (float)i * 2.0f), th_v2(0, 0), &err);
    const th_goal_planning gp = {.budget = 50};
    ck_assert(th_world_set_goal_planning(w, &gp, &err));
    const th_agent_goal east = {.kind = TH_AGENT_GOAL_POINT, .point = {30.5f, 5.5f}};
    ck_assert(th_world_set_agents_goal(w, ids, 5, &east, NULL, &err));
    /* New settings: the waiting go to the new planner. */
    const th_goal_planning more = {.budget = 80, .cluster_size = 8};
    ck_assert(th_world_set_goal_planning(w, &more, &err));
    ck_assert(th_world_goal_planning_info(w).def.cluster_size == 8);
    for (int i = 0; i < 5; i++) ck_assert(th_world_agent_path_pending(w, ids[i]));
    ck_assert(th_world_set_goal_planning(w, NULL, &err));
    ck_assert(th_world_goal_planning_info(w).def.budget == 0);
    for (int i = 0; i < 5; i++) {
        ck_assert(!th_world_agent_path_pending(w, ids[i]));
        /* Around the wall's top: well over the 25 m straight. */
        ck_assert(th_world_agent_remaining(w, ids[i]) > 40.0f);
    }
    th_world_destroy(w);
}
END_TEST

static uint64_t planned_hash(uint32_t threads) {
    th_world *w = random_world(threads, 5, 64, 64, 6);
    uint16_t *map = read_map(w, 64, 64);
    const th_crowd_id c = walkers(w);
    const th_goal_planning gp = {.budget = 150, .max_requests = 16};
    ck_assert(th_world_set_goal_planning(w, &gp, &err));
    uint64_t ctr = 0;
    th_agent_id ids[120];
    for (int i = 0; i < 120; i++)
        ids[i] = th_world_add_agent(w, c, open_point(map, 64, 64, 5, &ctr), th_v2(0, 0), &err);
    for (int i = 0; i < 120; i++) {
        const th_agent_goal g = {.kind = TH_AGENT_GOAL_POINT,
                                 .point = open_point(map, 64, 64, 5, &ctr),
                                 .priority = (int32_t)(i % 3)};
        th_world_set_agent_goal(w, ids[i], &g, NULL); /* some are walled in: refused */
    }
    for (int s = 0; s < th_test_steps(30 * 60); s++) {
        if (s == 200) ck_assert(th_world_block_cells(w, 20, 0, 21, 40, &err));
        if (s == 400) th_world_remove_agent(w, ids[7], NULL);
        th_world_step(w);
    }
    const uint64_t h = th_world_hash(w);
    free(map);
    th_world_destroy(w);
    return h;
}

START_TEST(same_hash_on_1_2_3_8_threads) {
    const uint64_t h = planned_hash(1);
    ck_assert(planned_hash(2) == h);
    ck_assert(planned_hash(3) == h);
    ck_assert(planned_hash(8) == h);
}
END_TEST

START_TEST(no_allocation_in_the_steps) {
    th_world *w = walled(2);
    const th_crowd_id c = walkers(w);
    th_agent_id ids[60];
    for (int i = 0; i < 60; i++)
        ids[i] = th_world_add_agent(w, c, th_v2(2.5f + (float)(i % 10), 2.5f + (float)(i / 10)),
                                    th_v2(0, 0), &err);
    const th_goal_planning gp = {.budget = 20, .max_requests = 4};
    ck_assert(th_world_set_goal_planning(w, &gp, &err));
    const th_agent_goal east = {.kind = TH_AGENT_GOAL_POINT, .point = {30.5f, 5.5f}};
    ck_assert(th_world_set_agents_goal(w, ids, 60, &east, NULL, &err));
    th_world_step(w);
    uint64_t allocs = th_alloc_count();
    for (int s = 0; s < 200; s++) {
        if (s == 50) {
            const uint64_t before = th_alloc_count();
            th_world_remove_agent(w, ids[59], NULL);
            allocs += th_alloc_count() - before; /* the removal's own, between steps */
        }
        th_world_step(w);
    }
    ck_assert_msg(th_alloc_count() == allocs, "%llu allocations",
                  (unsigned long long)(th_alloc_count() - allocs));
    ck_assert(th_world_goal_planning_info(w).answered >= 30);
    th_world_destroy(w);
}
END_TEST

/* A building of two levels side by side on a 64 x 24 map of one-metre cells: the ground floor
 * (cells 0..31) and the upper floor (32..63), walls round each and a few wall bars inside; two
 * stairs climb north on the ground floor (flights x 3..4 and 26..27, rows 8..14) to landings on
 * the upper floor (x 35..36 and 58..59, row 15). `joins` (8) gets the glued cell pairs. */
enum { BW = 64, BH = 24 };
static th_world *two_floors(uint32_t threads, uint64_t seed, th_ref_join *joins) {
    th_world *wo = th_test_metre_world(threads, seed, BW, BH);
    uint64_t ctr = 0;
    for (int32_t y = 0; y < BH; y++) {
        for (int32_t x = 0; x < BW; x++) {
            const bool edge = x == 0 || x == 31 || x == 32 || x == 63 || y == 0 || y == BH - 1;
            /* Stairwells: beyond each flight's top, behind each landing. */
            const bool well = (y == 15 && ((x >= 3 && x <= 4) || (x >= 26 && x <= 27))) ||
                              (y == 14 && ((x >= 35 && x <= 36) || (x >= 58 && x <= 59)));
            const bool keep = (y >= 7 && y <= 16 &&
                               ((x >= 2 && x <= 5) || (x >= 25 && x <= 28) ||
                                (x >= 34 && x <= 37) || (x >= 57 && x <= 60)));
            if (edge || well || (!keep && th_test_rnd(seed, 1, &ctr, 100) < 4))
                th_world_set_cell(wo, x, y, TH_CELL_WALL, 0, NULL);
        }
    }
    const th_level_def ground = {"ground", 0, 0, 31, BH - 1, 0.0f};
    const th_level_def upper = {"upper", 32, 0, 63, BH - 1, 3.5f};
    ck_assert_msg(th_world_add_level(wo, &ground, &err).index1, "%s", err.message);
    ck_assert_msg(th_world_add_level(wo, &upper, &err).index1, "%s", err.message);
    const th_stair_def west = {"west", 3, 8, 4, 14, TH_STAIR_NORTH, 35, 15, 0, 0, 0};
    const th_stair_def east = {"east", 26, 8, 27, 14, TH_STAIR_NORTH, 58, 15, 0, 0, 0};
    ck_assert_msg(th_world_add_stair(wo, &west, &err).index1, "%s", err.message);
    ck_assert_msg(th_world_add_stair(wo, &east, &err).index1, "%s", err.message);
    const int32_t fx[4] = {3, 4, 26, 27}, tx[4] = {35, 36, 58, 59};
    for (int i = 0; i < 4; i++) joins[i] = (th_ref_join){14 * BW + fx[i], 15 * BW + tx[i]};
    return wo;
}

/* A random open cell's centre on the level whose cells run from x0 to x1. */
static th_vec2 point_on(const uint16_t *map, int32_t x0, int32_t x1, uint64_t seed, uint64_t *ctr) {
    for (;;) {
        const int32_t x = x0 + (int32_t)th_test_rnd(seed, 8, ctr, (uint32_t)(x1 - x0 + 1));
        const int32_t y = (int32_t)th_test_rnd(seed, 8, ctr, BH);
        if (map[y * BW + x]) return th_v2((float)x + 0.5f, (float)y + 0.5f);
    }
}

/* Metres of the joined reference from p to the goal field d; INFINITY when cut off. */
static double joined_ref(const uint16_t *map, const th_ref_join *j, th_vec2 from, th_vec2 to) {
    uint64_t *d = malloc(sizeof *d * BW * BH);
    const th_ref_goal g = {(int)to.x, (int)to.y, 0};
    ck_assert_int_eq(th_ref_dijkstra_joined(BW, BH, map, &g, 1, j, 4, d), 0);
    const uint64_t v = d[(int)from.y * BW + (int)from.x];
    free(d);
    return v == TH_REF_INF ? INFINITY : (double)v / 140.0;
}

/* The public planner on a building: paths from one floor to the other cost at least the
 * optimum (A* on the cells, which crosses seams exactly; a plain Dijkstra over the joined graph
 * says which goals are reachable) and at most 1.5 times it (or two clusters' worth more), and
 * cross a stair; anytime requests end at exactly the optimum; a tour without points costs
 * exactly it too. */
START_TEST(planner_crosses_stairs) {
    th_ref_join joins[4];
    th_world *w = two_floors(2, 21, joins);
    uint16_t *map = read_map(w, BW, BH);
    th_plan_def pd = th_default_plan_def();
    pd.cluster_size = 8;
    th_planner *p = th_planner_create(w, &pd, &err);
    ck_assert_msg(p != NULL, "%s", err.message);
    uint64_t ctr = 0;
    th_vec2 pts[256];
    double sum = 0.0, worst = 0.0;
    int routes = 0;
    th_plan_id ids[12];
    double opt[12];
    int nids = 0;
    for (int k = 0; k < 40; k++) {
        const bool up = k % 2 == 0;
        const th_vec2 a = point_on(map, up ? 1 : 33, up ? 30 : 62, 21, &ctr);
        const th_vec2 b = point_on(map, up ? 33 : 1, up ? 62 : 30, 21, &ctr);
        /* The optimum: A* on the cells, exact across seams; the plain Dijkstra over the joined
         * graph says whether a route exists at all. */
        float astar = 0.0f;
        uint32_t na = 0;
        const bool reach = isfinite(joined_ref(map, joins, a, b));
        ck_assert(th_world_find_path(w, a, b, pts, 256, &na, &astar, NULL) == reach);
        const double best = reach ? astar : INFINITY;
        uint32_t n = 0;
        float cost = 0.0f;
        const bool found = th_planner_find_path(p, w, a, b, pts, 256, &n, &cost, &err);
        if (!isfinite(best)) {
            ck_assert(!found);
            TH_TEST_ERR(err, TH_ERR_UNREACHABLE);
            continue;
        }
        ck_assert_msg(found, "%s", err.message);
        ck_assert_msg(cost >= best - 1e-3 && (cost <= 1.5 * best || cost <= best + 2 * 8 * 1.5),
                      "cost %g against %g", (double)cost, best);
        /* Waypoints on both floors: a stair was crossed. */
        bool on_ground = false, on_upper = false;
        for (uint32_t i = 0; i < n; i++) {
            on_ground |= pts[i].x < 31.0f;
            on_upper |= pts[i].x > 32.0f;
        }
        ck_assert(on_ground && on_upper);
        sum += cost / best;
        worst = cost / best > worst ? cost / best : worst;
        routes++;
        if (nids < 12) {
            ids[nids] = th_planner_submit(p, w, a, b, 0, &err);
            ck_assert_msg(ids[nids].index1, "%s", err.message);
            ck_assert(th_planner_set_anytime(p, ids[nids], true, &err));
            opt[nids++] = best;
        }
        if (k < 6) { /* a tour without points is the optimum itself */
            uint32_t cnt = 0, taken = 1;
            float net = 0.0f;
            ck_assert_msg(
                th_planner_find_tour(p, w, a, b, NULL, 0, pts, 256, &cnt, &taken, &net, &err), "%s",
                err.message);
            ck_assert_msg(fabs(net - best) < 1e-3 * best + 1e-3, "tour %g against %g", (double)net,
                          best);
            ck_assert_uint_eq(taken, 0);
        }
    }
    ck_assert_int_gt(routes, 30);
    printf("planner across stairs: %d routes, cost / optimum mean %.4f, max %.4f\n", routes,
           sum / routes, worst);
    for (int round = 0; round < 10000; round++) {
        bool all = true;
        for (int i = 0; i < nids; i++) {
            th_plan_progress pr;
            ck_assert(th_planner_get_progress(p, ids[i], &pr, &err));
            all = all && pr.final;
        }
        if (all) break;
        th_planner_update(p, w, 500, &err);
    }
    for (int i = 0; i < nids; i++) {
        th_plan_progress pr;
        ck_assert(th_planner_get_progress(p, ids[i], &pr, &err));
        ck_assert(pr.final);
        uint32_t n = 0;
        float cost = 0.0f;
        ck_assert_int_eq(th_planner_result(p, ids[i], pts, 256, &n, &cost, &err), TH_PLAN_DONE);
        ck_assert_msg(fabs(cost - opt[i]) < 1e-3 * opt[i], "anytime %g against %g", (double)cost,
                      opt[i]);
    }
    th_planner_destroy(p);
    free(map);
    th_world_destroy(w);
}
END_TEST

/* Goal planning on scenes/office.yaml (two floors side by side, two stairs): every walker is
 * sent to a point on the other floor; as many arrive as with paths planned at once, every path
 * from the planner (none planned at once); the state hash is the same at 1, 2, 3 and 8
 * threads. */
static uint64_t office_run(uint32_t threads, uint32_t *arrived, uint32_t *sent, bool planned) {
    th_scene_opts o = {0};
    o.threads = threads;
    o.agents = 24;
    /* The scene beside this file's folder (tests/ -> scenes/). */
    char path[4096];
    const char *slash = strrchr(__FILE__, '/');
    snprintf(path, sizeof path, "%.*s/../scenes/office.yaml", (int)(slash ? slash - __FILE__ : 1),
             slash ? __FILE__ : ".");
    th_world *w = th_scene_load(path, &o, NULL, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    const th_goal_planning gp = {.budget = 40, .max_requests = 8, .cluster_size = 8};
    if (planned) ck_assert_msg(th_world_set_goal_planning(w, &gp, &err), "%s", err.message);
    const th_agent_view v = th_world_agents(w);
    const uint32_t n = v.count;
    th_agent_id ids[64];
    th_vec2 goal[64];
    ck_assert_uint_le(n, 64);
    for (uint32_t i = 0; i < n; i++) ids[i] = v.id[i];
    *sent = 0;
    for (uint32_t i = 0; i < n; i++) {
        th_agent_state st;
        ck_assert(th_world_get_agent(w, ids[i], &st));
        /* The ground floor's room spans x 2..10 m, the first floor's 13.5..22.5 m. */
        const bool up = st.position.x < 12.0f;
        goal[i] = up ? th_v2(14.25f + (float)(i % 8), 1.25f + (float)(i / 8) * 1.5f)
                     : th_v2(2.75f + (float)(i % 8), 2.25f + (float)(i / 8) * 0.5f);
        const th_agent_goal g = {.kind = TH_AGENT_GOAL_POINT, .point = goal[i], .radius = 0.4f};
        ck_assert_msg(th_world_set_agent_goal(w, ids[i], &g, &err), "%s", err.message);
        (*sent)++;
    }
    for (int s = 0; s < 2400; s++) th_world_step(w);
    *arrived = 0;
    for (uint32_t i = 0; i < n; i++) {
        th_agent_state st;
        if (th_world_get_agent(w, ids[i], &st) && th_v2_len(th_v2_sub(st.position, goal[i])) < 0.8f)
            (*arrived)++;
    }
    if (planned) {
        const th_goal_planning_info info = th_world_goal_planning_info(w);
        ck_assert_uint_eq(info.at_once, 0);
        ck_assert_uint_eq(info.unreachable, 0);
        ck_assert_uint_ge(info.answered, *sent);
    }
    const uint64_t h = th_world_hash(w);
    th_world_destroy(w);
    return h;
}

START_TEST(goal_planning_on_a_building) {
    uint32_t arrived = 0, sent = 0, a0 = 0, s0 = 0;
    (void)office_run(2, &a0, &s0, false);
    const uint64_t h = office_run(1, &arrived, &sent, true);
    printf("office, walkers to the other floor: %u of %u arrive planned, %u at once\n", arrived,
           sent, a0);
    ck_assert_uint_gt(sent, 15);
    /* As many arrive as when every path is planned at once with A* (walkers that end short
     * are held up in the crowd at the stairs either way), and most do. */
    ck_assert_uint_ge(arrived, a0);
    ck_assert_uint_ge(4 * arrived, 3 * sent);
    const uint32_t threads[3] = {2, 3, 8};
    for (int i = 0; i < 3; i++) {
        uint32_t a2 = 0, s2 = 0;
        ck_assert(office_run(threads[i], &a2, &s2, true) == h);
        ck_assert_uint_eq(a2, arrived);
    }
}
END_TEST

START_TEST(bad_settings_are_refused) {
    th_world_def wd = th_default_world_def();
    th_world *bare = th_world_create(&wd, &err);
    ck_assert(bare);
    const th_goal_planning gp = {.budget = 10};
    ck_assert(!th_world_set_goal_planning(bare, &gp, &err));
    ck_assert(err.code != 0);
    th_world_destroy(bare);
    th_world *w = walled(1);
    const th_goal_planning big = {.budget = 10, .max_requests = (1u << 20) + 1u};
    ck_assert(!th_world_set_goal_planning(w, &big, &err));
    TH_TEST_ERR(err, TH_ERR_INVALID);
    const th_goal_planning tiny = {.budget = 10, .cluster_size = 3};
    ck_assert(!th_world_set_goal_planning(w, &tiny, &err));
    TH_TEST_ERR(err, TH_ERR_INVALID);
    ck_assert(th_world_goal_planning_info(w).def.budget == 0); /* nothing was set */
    th_world_destroy(w);
}
END_TEST

int main(void) {
    Suite *s = suite_create("goal_planning");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, paths_within_the_budget_near_dijkstra);
    /* Under ThreadSanitizer not the tests that step one-thread worlds, nor the walks until
     * walkers arrive: the planner's passes run on 2, 3 and 8 threads in the hash test. */
    if (!TH_TEST_TSAN) tcase_add_test(tc, a_crowd_round_a_corner_arrives);
    if (!TH_TEST_TSAN) tcase_add_test(tc, priority_first_and_slots_held);
    if (!TH_TEST_TSAN) tcase_add_test(tc, the_order_given_and_slots_given_up);
    tcase_add_test(tc, goals_for_a_later_step_allocate_nothing);
    if (!TH_TEST_TSAN) tcase_add_test(tc, waiting_walkers_walk_meanwhile);
    tcase_add_test(tc, unreachable_points_and_walls_built_later);
    if (!TH_TEST_TSAN) tcase_add_test(tc, turned_off_the_waiting_are_planned_at_once);
    tcase_add_test(tc, same_hash_on_1_2_3_8_threads);
    tcase_add_test(tc, no_allocation_in_the_steps);
    if (!TH_TEST_TSAN) tcase_add_test(tc, bad_settings_are_refused);
    tcase_add_test(tc, planner_crosses_stairs);
    if (!TH_TEST_TSAN) tcase_add_test(tc, goal_planning_on_a_building);
    suite_add_tcase(s, tc);
    return th_test_run(s);
}
