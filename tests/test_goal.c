/* Crowd goals: destinations chosen as a plain Dijkstra says, weights moving a crowd between
 * exits, routes walked in the order their mode defines, wander drifting by the stated rate,
 * groups keeping to their own exits, congestion-aware exit choice, determinism at 1-3 threads,
 * no allocation in a step, and scene errors at the exact place. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/alloc.h"
#include "throng/throng.h"
#include "ref_dijkstra.h"
#include "test_util.h"

#ifndef THRONG_SCENES_DIR
#error "THRONG_SCENES_DIR must name the scene library"
#endif

static const double k_pi = 3.14159265358979323846;

static const char *write_scene(const char *name, const char *yaml) {
    return th_test_write_text(name, yaml);
}

static th_world *load_text(const char *yaml, uint32_t threads, th_error *err) {
    return th_scene_load(write_scene("scene.yaml", yaml), &(th_scene_opts){.threads = threads},
                         NULL, err);
}

/* ---- destination choice against a plain Dijkstra per goal ------------------------------ */

#define MW    20
#define MH    15
#define MAX_G 5

/* Cost of the move between adjacent cells, restated from the definition (sim/nav/nav.h). */
static uint64_t move_cost(const uint16_t *cost, int a, int b) {
    const int ax = a % MW, ay = a / MW, bx = b % MW, by = b / MW;
    const int diagonal = ax != bx && ay != by;
    return ((uint64_t)cost[a] + cost[b]) * (diagonal ? 99u : 70u);
}

static bool legal_move(const uint16_t *cost, int a, int b) {
    const int ax = a % MW, ay = a / MW, bx = b % MW, by = b / MW;
    if (abs(ax - bx) > 1 || abs(ay - by) > 1 || a == b || !cost[a] || !cost[b]) return false;
    if (ax != bx && ay != by) return cost[ay * MW + bx] && cost[by * MW + ax];
    return true;
}

START_TEST(destination_choice_matches_brute_force) {
    uint64_t rs = 0x60a1u;
    uint32_t checked = 0, unreachable = 0, by_weight = 0;
    for (int map = 0; map < 30; map++) {
        th_world_def wd = th_default_world_def();
        wd.width = MW;
        wd.height = MH;
        wd.cell_size = 1.0f;
        wd.threads = 1;
        th_error err;
        th_world *w = th_world_create(&wd, &err);
        ck_assert_msg(w != NULL, "%s", err.message);
        uint16_t cost[MW * MH];
        for (int i = 0; i < MW * MH; i++) {
            const uint64_t r = splitmix64(&rs) % 100;
            cost[i] = r < 22 ? 0 : r < 80 ? 1 : r < 92 ? 2 : 5;
            ck_assert(th_world_set_cell(w, i % MW, i / MW, cost[i] ? TH_CELL_OPEN : TH_CELL_WALL,
                                        cost[i] ? cost[i] : 1, &err));
        }
        /* Distinct open goal cells with whole-metre weights (exact in cost units). */
        th_destination goal[MAX_G];
        const int ng = 2 + (int)(splitmix64(&rs) % (MAX_G - 1));
        for (int g = 0; g < ng; g++) {
            int c;
            bool again;
            do {
                c = (int)(splitmix64(&rs) % (MW * MH));
                again = cost[c] == 0;
                for (int h = 0; h < g; h++) again |= goal[h].y * MW + goal[h].x == c;
            } while (again);
            goal[g] = (th_destination){c % MW, c / MW, (float)(splitmix64(&rs) % 12)};
        }
        const int field = IDX(th_world_add_destinations(w, goal, (uint32_t)ng, &err));
        ck_assert_msg(field == 0, "%s", err.message);

        /* One reference field per goal, weight left out: the total is added here. */
        static uint64_t ref[MAX_G][MW * MH];
        for (int g = 0; g < ng; g++) {
            th_ref_goal rg = {goal[g].x, goal[g].y, 0};
            ck_assert_int_eq(th_ref_dijkstra(MW, MH, cost, &rg, 1, ref[g]), 0);
        }
        for (int c = 0; c < MW * MH; c++) {
            if (!cost[c]) continue;
            uint64_t best = TH_REF_INF;
            int nearest = -1; /* the goal nearest without weights, to count weight-made choices */
            for (int g = 0; g < ng; g++) {
                if (ref[g][c] == TH_REF_INF) continue;
                const uint64_t total = ref[g][c] + (uint64_t)goal[g].weight * 140u;
                if (total < best) best = total;
                if (nearest < 0 || ref[g][c] < ref[nearest][c]) nearest = g;
            }
            const th_vec2 p = th_v2((float)(c % MW) + 0.5f, (float)(c / MW) + 0.5f);
            th_vec2 path[MW * MH];
            uint32_t len = 0;
            const bool ok = th_world_destination_path(w, FIELD_ID(0), p, path, MW * MH, &len, &err);
            if (best == TH_REF_INF) {
                CHECK_MSG(!ok, "map %d cell %d: a path although no goal is reachable", map, c);
                unreachable++;
                continue;
            }
            CHECK_MSG(ok, "map %d cell %d: %s", map, c, err.message);
            /* Walk the path: every move legal, its cost summed by the definition. */
            uint64_t walked = 0;
            int at = c;
            for (uint32_t k = 1; k < len; k++) {
                const int next = (int)path[k].y * MW + (int)path[k].x;
                CHECK_MSG(legal_move(cost, at, next), "map %d: illegal move %d -> %d", map, at,
                          next);
                walked += move_cost(cost, at, next);
                at = next;
            }
            int reached = -1;
            for (int g = 0; g < ng; g++) {
                if (goal[g].y * MW + goal[g].x == at) reached = g;
            }
            CHECK_MSG(reached >= 0, "map %d cell %d: the path ends off every goal", map, c);
            const uint64_t total = ref[reached][c] + (uint64_t)goal[reached].weight * 140u;
            CHECK_MSG(total == best,
                      "map %d cell %d: reached goal %d at %llu, the cheapest costs %llu", map, c,
                      reached, (unsigned long long)total, (unsigned long long)best);
            /* The path itself is a cheapest route to the goal it reaches. */
            CHECK_MSG(walked == ref[reached][c], "map %d cell %d: path cost %llu, shortest %llu",
                      map, c, (unsigned long long)walked, (unsigned long long)ref[reached][c]);
            if (reached != nearest && ref[nearest][c] < ref[reached][c]) by_weight++;

            /* The flow, followed from cell centre to cell centre, reaches an argmin goal too. */
            int fc = c;
            for (int k = 0; k < MW * MH; k++) {
                th_vec2 d;
                const th_vec2 q = th_v2((float)(fc % MW) + 0.5f, (float)(fc / MW) + 0.5f);
                CHECK(th_world_destination_flow(w, FIELD_ID(0), q, &d));
                if (d.x == 0.0f && d.y == 0.0f) break;
                const int dx = d.x > 0.38f ? 1 : d.x < -0.38f ? -1 : 0;
                const int dy = d.y > 0.38f ? 1 : d.y < -0.38f ? -1 : 0;
                const int next = fc + dy * MW + dx;
                CHECK_MSG(legal_move(cost, fc, next), "map %d: flow leads %d -> %d", map, fc, next);
                fc = next;
            }
            int freached = -1;
            for (int g = 0; g < ng; g++) {
                if (goal[g].y * MW + goal[g].x == fc) freached = g;
            }
            CHECK_MSG(
                freached >= 0 && ref[freached][c] + (uint64_t)goal[freached].weight * 140u == best,
                "map %d cell %d: the flow reaches goal %d, not a cheapest one", map, c, freached);
            checked++;
        }
        th_world_destroy(w);
    }
    /* The maps exercised what they should: many cells, some cut off, weights that mattered. */
    ck_assert_uint_gt(checked, 4000);
    ck_assert_uint_gt(unreachable, 10);
    ck_assert_uint_gt(by_weight, 50);
}
END_TEST

/* ---- a two-exit corridor: weights move the split ------------------------------------------ */

/* Corridor 60 x 3 open cells between walls; exits are the end columns. Returns agents whose
 * first second of walking went west, and fills `expect_west` with the brute-force count over
 * the agents whose choice is not a near tie (`decided`). */
static void corridor_split(float west_weight, uint32_t *went_west, uint32_t *expect_west,
                           uint32_t *decided, uint32_t *agents) {
    enum { CW = 62, CH = 5 };
    th_world_def wd = th_default_world_def();
    wd.width = CW;
    wd.height = CH;
    wd.cell_size = 1.0f;
    wd.threads = 2;
    th_error err;
    th_world *w = th_world_create(&wd, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    uint16_t cost[CW * CH];
    for (int y = 0; y < CH; y++) {
        for (int x = 0; x < CW; x++) {
            const bool open = x >= 1 && x <= CW - 2 && y >= 1 && y <= CH - 2;
            cost[y * CW + x] = open ? 1 : 0;
            ck_assert(th_world_set_cell(w, x, y, open ? TH_CELL_OPEN : TH_CELL_WALL, 1, &err));
        }
    }
    th_destination goal[6];
    for (int k = 0; k < 3; k++) {
        goal[k] = (th_destination){1, 1 + k, west_weight};
        goal[3 + k] = (th_destination){CW - 2, 1 + k, 0.0f};
    }
    ck_assert_int_eq(IDX(th_world_add_destinations(w, goal, 6, &err)), 0);
    th_crowd_def cd = th_default_pedestrian_def();
    cd.name = "walkers";
    cd.goal.kind = TH_GOAL_DESTINATIONS;
    cd.goal.field = FIELD_ID(0);
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), 0);
    /* Brute force: a plain Dijkstra from each exit, the weight added to the west one. */
    th_ref_goal west[3], east[3];
    for (int k = 0; k < 3; k++) {
        west[k] = (th_ref_goal){1, 1 + k, 0};
        east[k] = (th_ref_goal){CW - 2, 1 + k, 0};
    }
    static uint64_t dw[CW * CH], de[CW * CH];
    ck_assert_int_eq(th_ref_dijkstra(CW, CH, cost, west, 3, dw), 0);
    ck_assert_int_eq(th_ref_dijkstra(CW, CH, cost, east, 3, de), 0);
    *expect_west = *decided = *agents = 0;
    uint32_t n = 0;
    float x0[64];
    bool predicted[64], clear[64];
    for (int x = 4; x <= CW - 5; x++) {
        const int c = 2 * CW + x;
        const uint64_t cw = dw[c] + (uint64_t)lrintf(west_weight * 140.0f), ce = de[c];
        predicted[n] = cw < ce;
        /* A cell from the tie may start either way: an agent is not at its cell's centre for
         * long, so only choices clear by two cells are compared. */
        clear[n] = (cw > ce ? cw - ce : ce - cw) >= 2u * 140u;
        x0[n] = (float)x + 0.5f;
        ck_assert(th_agent_id_eq(
            th_world_add_agent(w, CROWD_ID(0), th_v2(x0[n], 2.5f), th_v2(0, 0), &err),
            th_test_id(n)));
        n++;
    }
    for (int s = 0; s < 60; s++) th_world_step(w);
    *went_west = 0;
    for (uint32_t i = 0; i < n; i++) {
        th_agent_state a;
        ck_assert(th_world_get_agent(w, th_test_id(i), &a));
        const bool west_now = a.position.x < x0[i];
        *went_west += west_now;
        if (!clear[i]) continue;
        (*decided)++;
        *expect_west += predicted[i];
        ck_assert_msg(west_now == predicted[i],
                      "weight %g: agent at x %.1f went %s, brute force "
                      "says %s",
                      (double)west_weight, (double)x0[i], west_now ? "west" : "east",
                      predicted[i] ? "west" : "east");
    }
    *agents = n;
    th_world_destroy(w);
}

START_TEST(weights_move_the_split_between_exits) {
    uint32_t west0, expect0, decided0, n0, west1, expect1, decided1, n1;
    corridor_split(0.0f, &west0, &expect0, &decided0, &n0);
    corridor_split(20.0f, &west1, &expect1, &decided1, &n1);
    /* Without weights the corridor splits in the middle; 20 m on the west exit moves the split
     * 10 m west: 10 agents change sides. */
    ck_assert_uint_ge(decided0, n0 - 4);
    ck_assert_uint_ge(decided1, n1 - 4);
    ck_assert_uint_ge(west0, n0 / 2 - 2);
    ck_assert_uint_le(west0, n0 / 2 + 2);
    ck_assert_uint_ge(west0 - west1, 8);
    ck_assert_uint_le(west0 - west1, 12);
}
END_TEST

/* ---- routes --------------------------------------------------------------------------------- */

/* The k-th waypoint a route visits, from its definition. */
static uint32_t route_expected(th_route_mode mode, uint32_t n, uint32_t k) {
    switch (mode) {
    case TH_ROUTE_ONCE: return k < n ? k : n - 1;
    case TH_ROUTE_LOOP: return k % n;
    case TH_ROUTE_PATROL: {
        const uint32_t period = 2 * n - 2, r = k % period;
        return r < n ? r : period - r;
    }
    }
    return 0;
}

static void run_route(th_model model, th_route_mode mode) {
    th_world_def wd = th_default_world_def();
    wd.width = 40.0f;
    wd.height = 40.0f;
    wd.threads = 2;
    th_error err;
    th_world *w = th_world_create(&wd, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    const th_vec2 pts[4] = {{10, 10}, {18, 10}, {18, 18}, {10, 18}};
    th_crowd_def cd =
        model == TH_MODEL_PEDESTRIAN ? th_default_pedestrian_def() : th_default_crowd_def();
    cd.goal = (th_goal_def){
        .kind = TH_GOAL_ROUTE, .points = pts, .point_count = 4, .mode = mode, .radius = 1.0f};
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), 0);
    enum { N = 6 };
    for (uint32_t i = 0; i < N; i++) {
        const th_vec2 p = th_v2(4.0f + 2.0f * (float)i, 4.0f);
        ck_assert(th_agent_id_eq(th_world_add_agent(w, CROWD_ID(0), p, th_v2(0, 0), &err),
                                 th_test_id(i)));
    }
    uint32_t seen[N], visits[N];
    for (uint32_t i = 0; i < N; i++) {
        seen[i] = 0; /* th_agent_state.waypoint starts at the first waypoint */
        visits[i] = 0;
    }
    const int steps = model == TH_MODEL_PEDESTRIAN ? 3600 : 2400;
    for (int s = 0; s < steps; s++) {
        th_world_step(w);
        for (uint32_t i = 0; i < N; i++) {
            th_agent_state a;
            ck_assert(th_world_get_agent(w, th_test_id(i), &a));
            if (a.waypoint == seen[i]) continue;
            /* A change of waypoint goes to the next one the mode defines, never skips one. */
            const uint32_t want = route_expected(mode, 4, visits[i] + 1);
            ck_assert_msg(a.waypoint == want,
                          "mode %d model %d agent %u: waypoint %u after %u "
                          "changes, the route says %u",
                          (int)mode, (int)model, i, a.waypoint, visits[i], want);
            seen[i] = a.waypoint;
            visits[i]++;
        }
    }
    for (uint32_t i = 0; i < N; i++) {
        th_agent_state a;
        ck_assert(th_world_get_agent(w, th_test_id(i), &a));
        if (mode == TH_ROUTE_ONCE) {
            /* Walked to the end and holds it: the last waypoint, within its radius. */
            ck_assert_uint_eq(visits[i], 3);
            ck_assert_uint_eq(a.waypoint, 3);
            const float d = hypotf(a.position.x - pts[3].x, a.position.y - pts[3].y);
            ck_assert_msg(d < 1.5f, "agent %u holds %.2f m from the last waypoint", i, (double)d);
        } else {
            /* Past the end and round again: loop wraps to 0, patrol turns back at both ends
             * (seven changes: 1 2 3 2 1 0 1). */
            ck_assert_msg(visits[i] >= 7,
                          "mode %d model %d agent %u: only %u waypoints in %d steps", (int)mode,
                          (int)model, i, visits[i], steps);
        }
    }
    th_world_destroy(w);
}

START_TEST(routes_follow_their_mode) {
    const th_model models[2] = {TH_MODEL_BOIDS, TH_MODEL_PEDESTRIAN};
    const th_route_mode modes[3] = {TH_ROUTE_ONCE, TH_ROUTE_LOOP, TH_ROUTE_PATROL};
    run_route(models[_i / 3], modes[_i % 3]);
}
END_TEST

/* ---- wander ------------------------------------------------------------------------------- */

/* Pedestrians alone on open ground walk their goal direction, so their velocity's heading is
 * the wander heading: its change over T seconds is a sum of T / dt independent steps of
 * variance (rate pi / 180)^2 dt each, total (rate pi / 180)^2 T. */
START_TEST(wander_heading_spreads_at_its_rate) {
    const double rate = 60.0, T = 1.0;
    th_world_def wd = th_default_world_def();
    wd.width = 400.0f;
    wd.height = 400.0f;
    wd.bounds = TH_BOUNDS_WRAP;
    wd.threads = 2;
    wd.seed = 77;
    th_error err;
    th_world *w = th_world_create(&wd, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    th_crowd_def cd = th_default_pedestrian_def();
    cd.goal.kind = TH_GOAL_WANDER;
    cd.goal.wander_rate = (float)rate;
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), 0);
    enum { SIDE = 20, N = SIDE * SIDE };
    for (uint32_t i = 0; i < N; i++) {
        const th_vec2 p =
            th_v2(10.0f + 20.0f * (float)(i % SIDE), 10.0f + 20.0f * (float)(i / SIDE));
        ck_assert(th_agent_id_eq(th_world_add_agent(w, CROWD_ID(0), p, th_v2(0, 0), &err),
                                 th_test_id(i)));
    }
    for (int s = 0; s < 30; s++) th_world_step(w); /* up to speed */
    const int per = (int)lround(T / (double)wd.timestep), windows = 4;
    static double heading[N], unwrapped[N], start[N];
    for (uint32_t i = 0; i < N; i++) {
        th_agent_state a;
        ck_assert(th_world_get_agent(w, th_test_id(i), &a));
        heading[i] = atan2((double)a.velocity.y, (double)a.velocity.x);
        unwrapped[i] = start[i] = 0.0;
    }
    double sum = 0.0, sum2 = 0.0;
    uint32_t samples = 0;
    for (int win = 0; win < windows; win++) {
        for (int s = 0; s < per; s++) {
            th_world_step(w);
            for (uint32_t i = 0; i < N; i++) {
                th_agent_state a;
                ck_assert(th_world_get_agent(w, th_test_id(i), &a));
                const double h = atan2((double)a.velocity.y, (double)a.velocity.x);
                double d = h - heading[i];
                while (d > k_pi) d -= 2.0 * k_pi;
                while (d < -k_pi) d += 2.0 * k_pi;
                unwrapped[i] += d;
                heading[i] = h;
            }
        }
        for (uint32_t i = 0; i < N; i++) {
            const double change = unwrapped[i] - start[i];
            sum += change;
            sum2 += change * change;
            start[i] = unwrapped[i];
            samples++;
        }
    }
    const double mean = sum / samples, var = sum2 / samples - mean * mean;
    const double expect = (rate * k_pi / 180.0) * (rate * k_pi / 180.0) * T;
    /* The sample variance of n normal-ish values has a relative standard error of sqrt(2 / n),
     * 3.5 % here; four of them allowed. The mean is 0 within four standard errors. */
    const double rel = sqrt(2.0 / samples);
    ck_assert_msg(fabs(var / expect - 1.0) < 4.0 * rel,
                  "heading variance %.4f rad^2 over %.1f s, "
                  "expected %.4f",
                  var, T, expect);
    ck_assert_msg(fabs(mean) < 4.0 * sqrt(expect / samples), "mean heading change %.4f", mean);
    th_world_destroy(w);
}
END_TEST

/* Wandering pedestrians in a closed room spread over it, as walkers that turn off walls do: a
 * 10 x 10 m room of 0.25 m cells, 30 walkers of 0.2 m bodies, a slow wander (5 degrees per
 * second: each walks straight for many metres) for 150 s on seeds 1-3. The reachable square
 * (body centres, 9.6 m a side) is cut into three rings by distance from its edge: [0, 1) m,
 * [1, 2.5) m and the rest. Each ring's share of the walkers' time (after 10 s, every 10th
 * step) must be its share of the area within 0.08, and nobody stays within 5 cm of a wall for
 * 20 s running (two sides of the room at a slow walk). Walkers that stood pressed into corners
 * left the centre a tenth of their time where its area is a quarter; walkers turned toward
 * the centre crowd it. */
START_TEST(wanderers_spread_over_a_room) {
    enum { SIDE = 42, N = 30, STEPS = 3000, EVERY = 10 };
    const float cell = 0.25f, r = 0.2f, lo = cell + r, hi = (SIDE - 1) * cell - r, L = hi - lo;
    const float edge[4] = {0.0f, 1.0f, 2.5f, 1e9f};
    double share[3] = {0, 0, 0};
    uint32_t samples = 0, longest = 0;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        th_world_def wd = th_default_world_def();
        wd.width = wd.height = SIDE * cell;
        wd.cell_size = cell;
        wd.threads = 2;
        wd.seed = seed;
        wd.timestep = 0.05f;
        th_error err;
        th_world *w = th_world_create(&wd, &err);
        ck_assert_msg(w != NULL, "%s", err.message);
        for (int y = 0; y < SIDE; y++)
            for (int x = 0; x < SIDE; x++) {
                const bool wall = x == 0 || y == 0 || x == SIDE - 1 || y == SIDE - 1;
                ck_assert(th_world_set_cell(w, x, y, wall ? TH_CELL_WALL : TH_CELL_OPEN, 1, &err));
            }
        th_crowd_def cd = th_default_pedestrian_def();
        cd.body_radius = r;
        cd.goal.kind = TH_GOAL_WANDER;
        cd.goal.wander_rate = 5.0f;
        ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), 0);
        for (uint32_t i = 0; i < N; i++) {
            const th_vec2 p = th_v2(1.5f + 1.4f * (float)(i % 6), 1.5f + 1.4f * (float)(i / 6));
            ck_assert(th_agent_id_valid(th_world_add_agent(w, CROWD_ID(0), p, th_v2(0, 0), &err)));
        }
        static uint32_t at_wall[N];
        memset(at_wall, 0, sizeof at_wall);
        for (int s = 1; s <= STEPS; s++) {
            th_world_step(w);
            const th_agent_view v = th_world_agents(w);
            ck_assert_uint_eq(v.count, N);
            for (uint32_t k = 0; k < v.count; k++) {
                const float x = v.px[k], y = v.py[k];
                float d = fminf(fminf(x - lo, hi - x), fminf(y - lo, hi - y));
                const uint32_t slot = th_test_slot(v.id[k]);
                at_wall[slot] = d < 0.05f ? at_wall[slot] + 1 : 0;
                if (at_wall[slot] > longest) longest = at_wall[slot];
                if (s * wd.timestep < 10.0f || s % EVERY) continue;
                if (d < 0.0f) d = 0.0f;
                for (int ring = 0; ring < 3; ring++)
                    if (d >= edge[ring] && d < edge[ring + 1]) share[ring] += 1.0;
                samples++;
            }
        }
        th_world_destroy(w);
    }
    for (int ring = 0; ring < 3; ring++) {
        const float out = L - 2.0f * edge[ring], in = ring < 2 ? L - 2.0f * edge[ring + 1] : 0.0f;
        const double area = ((double)out * out - (double)in * in) / ((double)L * L);
        ck_assert_msg(fabs(share[ring] / samples - area) < 0.08,
                      "ring %d (%.1f m from the edge on): %.3f of the time, %.3f of the area", ring,
                      (double)edge[ring], share[ring] / samples, area);
    }
    ck_assert_msg(longest * 0.05 < 20.0, "a walker stayed at a wall %.1f s running",
                  longest * 0.05);
}
END_TEST

/* ---- a room with two exits --------------------------------------------------------------- */

/* A 22 x 12 m room (cells x 1..22, y 3..14) with two doors 2 m wide in its south wall, door A
 * at x 7..8 and door B at x 16..17, each onto a yard (rows 0..1) of its own. Fields: 0 = both
 * yards, 1 = yard A, 2 = yard B. */
enum { RW = 24, RH = 16 };

static th_world *make_room(uint32_t threads, uint64_t seed) {
    th_world_def wd = th_default_world_def();
    wd.width = RW;
    wd.height = RH;
    wd.cell_size = 1.0f;
    wd.threads = threads;
    wd.seed = seed;
    wd.timestep = 0.05f;
    th_error err;
    th_world *w = th_world_create(&wd, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    for (int y = 0; y < RH; y++) {
        for (int x = 0; x < RW; x++) {
            const bool room = x >= 1 && x <= 22 && y >= 3 && y <= 14;
            const bool door = y == 2 && (x == 7 || x == 8 || x == 16 || x == 17);
            const bool yard = y <= 1 && ((x >= 6 && x <= 9) || (x >= 15 && x <= 18));
            const bool open = room || door || yard;
            ck_assert(th_world_set_cell(w, x, y, open ? TH_CELL_OPEN : TH_CELL_WALL, 1, &err));
        }
    }
    th_destination a[8], b[8];
    for (int k = 0; k < 8; k++) {
        a[k] = (th_destination){6 + k % 4, k / 4, 0.0f};
        b[k] = (th_destination){15 + k % 4, k / 4, 0.0f};
    }
    th_destination both[16];
    memcpy(both, a, sizeof a);
    memcpy(both + 8, b, sizeof b);
    ck_assert_int_eq(IDX(th_world_add_destinations(w, both, 16, &err)), 0);
    ck_assert_int_eq(IDX(th_world_add_destinations(w, a, 8, &err)), 1);
    ck_assert_int_eq(IDX(th_world_add_destinations(w, b, 8, &err)), 2);
    return w;
}

/* Agents that reached a yard leave the world (the test is the sink); per crowd, the exit each
 * one used. Returns the agents still inside after `steps`. */
typedef struct departures {
    uint32_t by[2][2]; /* [crowd][exit A = 0, B = 1] */
    uint32_t emptied;  /* steps until the last one reached a yard, 0 if some never did */
} departures;

static uint32_t run_with_sink(th_world *w, int steps, departures *out) {
    memset(out, 0, sizeof *out);
    out->emptied = 0;
    static bool gone[4096];
    memset(gone, 0, sizeof gone);
    th_error err;
    for (int s = 0; s < steps && th_world_agent_count(w) > 0; s++) {
        th_world_step(w);
        const th_agent_view v = th_world_agents(w);
        for (uint32_t k = 0; k < v.count; k++) {
            if (v.py[k] >= 2.0f || gone[th_test_slot(v.id[k])]) continue;
            gone[th_test_slot(v.id[k])] = true;
            out->by[v.crowd[k] & 1u][v.px[k] < 12.0f ? 0 : 1]++;
            ck_assert(th_world_remove_agent(w, v.id[k], &err));
        }
        if (!out->emptied && v.count > 0) {
            bool all = true;
            for (uint32_t k = 0; k < v.count && all; k++) all = gone[th_test_slot(v.id[k])];
            if (all) out->emptied = (uint32_t)s + 1;
        }
    }
    return th_world_agent_count(w);
}

START_TEST(groups_use_their_own_exits) {
    th_world *w = make_room(2, 5);
    th_error err;
    for (uint32_t g = 0; g < 2; g++) {
        th_crowd_def cd = th_default_pedestrian_def();
        cd.name = g ? "to_b" : "to_a";
        cd.goal = (th_goal_def){.kind = TH_GOAL_DESTINATIONS, .field = FIELD_ID(1 + g)};
        ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), (int)g);
    }
    /* Mixed over the whole room: half of each group starts nearer the other group's door. */
    uint32_t n = 0;
    for (int j = 0; j < 5; j++) {
        for (int i = 0; i < 20; i++) {
            const th_vec2 p = th_v2(2.0f + (float)i, 5.0f + 2.0f * (float)j);
            ck_assert(
                th_agent_id_eq(th_world_add_agent(w, CROWD_ID((i + j) & 1u), p, th_v2(0, 0), &err),
                               th_test_id(n)));
            n++;
        }
    }
    departures d;
    const uint32_t left = run_with_sink(w, 1600, &d);
    ck_assert_uint_eq(left, 0);
    /* Each group leaves by its own door, but for the odd agent that the packed crowd at the
     * other door sweeps through it (bodies push: over seeds 1-12, 0 to 3 of a group of 50 do;
     * it is a property of the model, seed 1 sent 2 with storage-history order too): at most 3. */
    ck_assert_uint_eq(d.by[0][0] + d.by[0][1], n / 2);
    ck_assert_uint_eq(d.by[1][0] + d.by[1][1], n / 2);
    ck_assert_uint_le(d.by[0][1], 3); /* group A by door B ... */
    ck_assert_uint_le(d.by[1][0], 3); /* ... and group B by door A: the odd one */
    th_world_destroy(w);
}
END_TEST

/* ---- congestion-aware exit choice ----------------------------------------------------------- */

/* 78 pedestrians packed (2.8 per square metre) in front of door A, door B 9 m further east. */
static th_world *packed_room(uint32_t threads, float congestion) {
    th_world *w = make_room(threads, 9);
    th_error err;
    th_crowd_def cd = th_default_pedestrian_def();
    cd.goal = (th_goal_def){.kind = TH_GOAL_DESTINATIONS,
                            .field = FIELD_ID(0),
                            .congestion_weight = congestion,
                            .congestion_every = 10};
    ck_assert_msg(IDX(th_world_add_crowd(w, &cd, &err)) == 0, "%s", err.message);
    uint32_t n = 0;
    for (int j = 0; j < 6; j++) {
        for (int i = 0; i < 13; i++) {
            const th_vec2 p = th_v2(3.4f + 0.6f * (float)i, 3.4f + 0.6f * (float)j);
            ck_assert(th_agent_id_eq(th_world_add_agent(w, CROWD_ID(0), p, th_v2(0, 0), &err),
                                     th_test_id(n)));
            n++;
        }
    }
    return w;
}

START_TEST(congestion_spreads_the_crowd_over_both_exits) {
    departures off, on;
    th_world *w = packed_room(2, 0.0f);
    const uint32_t left_off = run_with_sink(w, 1200, &off);
    th_world_destroy(w);
    w = packed_room(2, 1.0f);
    const uint32_t left_on = run_with_sink(w, 1200, &on);
    th_world_destroy(w);
    const uint32_t total_off = off.by[0][0] + off.by[0][1], total_on = on.by[0][0] + on.by[0][1];
    printf("congestion off: door A %u, door B %u, room empty after %.2f s; on: door A %u, "
           "door B %u, empty after %.2f s\n",
           off.by[0][0], off.by[0][1], 0.05 * off.emptied, on.by[0][0], on.by[0][1],
           0.05 * on.emptied);
    /* Without congestion everyone queues for the nearer door. */
    ck_assert_uint_gt(total_off, 60);
    ck_assert_msg(off.by[0][1] * 20 <= total_off, "without congestion %u of %u took door B",
                  off.by[0][1], total_off);
    /* With it, the far door takes a real share, and the room empties no later. */
    ck_assert_msg(on.by[0][1] * 5 >= total_on, "with congestion only %u of %u took door B",
                  on.by[0][1], total_on);
    ck_assert_uint_gt(on.by[0][0], on.by[0][1]);
    ck_assert_uint_eq(left_off, 0);
    ck_assert_uint_eq(left_on, 0);
    /* Two doors empty the room sooner than one. */
    ck_assert_uint_gt(off.emptied, 0);
    ck_assert_uint_gt(on.emptied, 0);
    ck_assert_uint_lt(on.emptied, off.emptied);
}
END_TEST

START_TEST(congestion_is_deterministic_across_threads) {
    uint64_t hash[3];
    departures d[3];
    for (uint32_t t = 1; t <= 3; t++) {
        th_world *w = packed_room(t, 1.0f);
        run_with_sink(w, 400, &d[t - 1]);
        hash[t - 1] = th_world_hash(w);
        th_world_destroy(w);
    }
    ck_assert_uint_eq(hash[0], hash[1]);
    ck_assert_uint_eq(hash[0], hash[2]);
    ck_assert_mem_eq(&d[0], &d[1], sizeof d[0]);
    ck_assert_mem_eq(&d[0], &d[2], sizeof d[0]);
}
END_TEST

/* ---- every goal kind in one scene: determinism and no allocation -------------------------- */

#define GOAL_MAP                                                            \
    "map:\n"                                                                \
    "  cell_size: 1\n"                                                      \
    "  legend: {'#': wall, '.': open, 'B': {bunker: shelter}, 'E': open}\n" \
    "  ascii: |\n"                                                          \
    "    ##############################\n"                                  \
    "    #............................E\n"                                  \
    "    #............................E\n"                                  \
    "    #.......#######..............#\n"                                  \
    "    #.......#.....#..............#\n"                                  \
    "    #.......#.....#..............#\n"                                  \
    "    #..............##....##......#\n"                                  \
    "    #..............##....##......#\n"                                  \
    "    #............................#\n"                                  \
    "    #BB..........................#\n"                                  \
    "    #BB..........................#\n"                                  \
    "    ##############################\n"

static const char k_all_goals[] =
    "name: goals\n"
    "seed: 4\n" GOAL_MAP "crowds:\n"
    "  - {name: shelter, count: 40, spawn: {rect: [2, 6, 6, 4]}, goal: shelter}\n"
    "  - name: exits\n"
    "    model: pedestrian\n"
    "    count: 60\n"
    "    spawn: {rect: [10, 1.5, 15, 3]}\n"
    "    goal: {destinations: [{legend: E}, {at: [1.5, 10.5], weight: 8}], congestion: {weight: 1, every: 3}}\n"
    "  - name: plain\n"
    "    count: 30\n"
    "    spawn: {rect: [20, 2, 5, 5]}\n"
    "    goal: {destinations: [{cells: [28, 1, 28, 2]}]}\n"
    "  - {name: once, count: 10, spawn: {rect: [2, 2, 3, 3]}, goal: {route: [[4, 4], [12, 2.5], [25, 2.5]]}}\n"
    "  - {name: loop, model: pedestrian, count: 10, spawn: {rect: [16, 8, 3, 2]}, goal: {route: [[17, 9], [26, 9], [26, 2], [17, 2]], mode: loop}}\n"
    "  - {name: patrol, count: 10, spawn: {rect: [3, 8, 3, 2]}, goal: {route: [[4, 9], [13, 9.5]], mode: patrol, radius: 0.5}}\n"
    "  - {name: wander, model: pedestrian, count: 20, spawn: {rect: [18, 3, 8, 2]}, goal: {wander: {rate: 120}}}\n"
    "  - {name: wander_boids, count: 20, spawn: {rect: [18, 3, 8, 2]}, goal: wander}\n";

START_TEST(every_goal_kind_same_hash_at_1_2_3_threads) {
    uint64_t hash[3];
    for (uint32_t t = 1; t <= 3; t++) {
        th_error err;
        th_world *w = load_text(k_all_goals, t, &err);
        ck_assert_msg(w != NULL, "%s", err.message);
        th_world_set_validation(w, true);
        for (int s = 0; s < 300; s++) th_world_step(w);
        ck_assert_msg(th_world_validation_error(w) == NULL, "%s", th_world_validation_error(w));
        hash[t - 1] = th_world_hash(w);
        th_world_destroy(w);
    }
    ck_assert_uint_eq(hash[0], hash[1]);
    ck_assert_uint_eq(hash[0], hash[2]);
}
END_TEST

START_TEST(goal_steps_allocate_nothing) {
    th_error err;
    th_world *w = load_text(k_all_goals, 2, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    th_world_step(w);
    /* Congestion fields refresh every 3 steps; a wall event refreshes them out of turn.
     * Scheduling it may allocate (the first block event's buffers), applying it must not. */
    ck_assert(th_world_block_cells(w, 20, 6, 20, 6, &err));
    const uint64_t before = th_alloc_count();
    for (int s = 0; s < 60; s++) th_world_step(w);
    ck_assert_msg(th_alloc_count() == before, "%llu allocations in 60 steps",
                  (unsigned long long)(th_alloc_count() - before));
    th_world_destroy(w);
}
END_TEST

/* ---- route legs through walls ------------------------------------------------------------ */

START_TEST(route_legs_through_walls_are_refused_by_the_api) {
    th_world_def wd = th_default_world_def();
    wd.width = 20;
    wd.height = 10;
    wd.cell_size = 1.0f;
    wd.threads = 1;
    th_error err;
    th_world *w = th_world_create(&wd, &err);
    ck_assert(w != NULL);
    for (int y = 0; y < 8; y++) ck_assert(th_world_set_cell(w, 10, y, TH_CELL_WALL, 1, &err));
    th_crowd_def cd = th_default_crowd_def();
    /* Around the wall's open end: fine. */
    const th_vec2 ok[3] = {{5, 5}, {10.5f, 9}, {15, 5}};
    cd.goal = (th_goal_def){
        .kind = TH_GOAL_ROUTE, .points = ok, .point_count = 3, .mode = TH_ROUTE_PATROL};
    ck_assert_msg(IDX(th_world_add_crowd(w, &cd, &err)) == 0, "%s", err.message);
    /* Straight through it. */
    const th_vec2 bad[2] = {{5, 5}, {15, 5}};
    cd.goal.points = bad;
    cd.goal.point_count = 2;
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), -1);
    TH_TEST_ERR(err, TH_ERR_BLOCKED);
    ck_assert_msg(strstr(err.message, "waypoint 0") && strstr(err.message, "waypoint 1") &&
                      strstr(err.message, "blocked cell (10, 5)"),
                  "%s", err.message);
    /* A loop's closing leg from the last waypoint to the first cuts the wall's corner. */
    const th_vec2 loop[3] = {{5, 5}, {10.5f, 9}, {15, 9}};
    cd.goal.points = loop;
    cd.goal.point_count = 3;
    cd.goal.mode = TH_ROUTE_LOOP;
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), -1);
    TH_TEST_ERR(err, TH_ERR_BLOCKED);
    ck_assert_msg(strstr(err.message, "waypoint 2") && strstr(err.message, "waypoint 0"), "%s",
                  err.message);
    cd.goal.mode = TH_ROUTE_ONCE; /* walked once, the same points are fine */
    ck_assert_msg(IDX(th_world_add_crowd(w, &cd, &err)) == 1, "%s", err.message);
    /* Congestion belongs to destinations only. */
    cd.goal = (th_goal_def){.kind = TH_GOAL_WANDER, .congestion_weight = 1.0f};
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), -1);
    TH_TEST_ERR(err, TH_ERR_INVALID);
    th_world_destroy(w);
}
END_TEST

/* Whether the segment a-b (cell units) meets the closed unit square of cell (x, y): Liang and
 * Barsky's clipping of the segment's parameter range against the square's four sides. */
static bool segment_meets_cell(double ax, double ay, double bx, double by, int x, int y) {
    double t0 = 0.0, t1 = 1.0;
    const double p[4] = {-(bx - ax), bx - ax, -(by - ay), by - ay};
    const double q[4] = {ax - x, x + 1.0 - ax, ay - y, y + 1.0 - ay};
    for (int k = 0; k < 4; k++) {
        if (p[k] == 0.0) {
            if (q[k] < 0.0) return false;
        } else {
            const double t = q[k] / p[k];
            if (p[k] < 0.0) t0 = t > t0 ? t : t0;
            else t1 = t < t1 ? t : t1;
        }
    }
    return t0 <= t1;
}

/* A route's legs are refused exactly when they meet a blocked cell: random legs on random maps
 * against the clipping test above, cell by cell; in a wrap-around world the leg runs the short
 * way across the seam. */
START_TEST(route_leg_check_matches_segment_clipping) {
    uint64_t rs = 0x1e9u;
    uint32_t refused = 0, accepted = 0;
    for (int map = 0; map < 16; map++) {
        const bool wrap = map % 4 == 3;
        th_world_def wd = th_default_world_def();
        wd.width = MW;
        wd.height = MH;
        wd.cell_size = 1.0f;
        wd.threads = 1;
        wd.bounds = wrap ? TH_BOUNDS_WRAP : TH_BOUNDS_WALLS;
        th_error err;
        th_world *w = th_world_create(&wd, &err);
        ck_assert_msg(w != NULL, "%s", err.message);
        bool blocked[MW * MH];
        for (int i = 0; i < MW * MH; i++) {
            blocked[i] = splitmix64(&rs) % 100 < 12;
            ck_assert(th_world_set_cell(w, i % MW, i / MW, blocked[i] ? TH_CELL_WALL : TH_CELL_OPEN,
                                        1, &err));
        }
        for (int k = 0; k < 200; k++) {
            th_vec2 pt[2];
            for (int e = 0; e < 2; e++) {
                do {
                    pt[e] = th_v2((float)(splitmix64(&rs) % 100000) * (MW / 100000.0f),
                                  (float)(splitmix64(&rs) % 100000) * (MH / 100000.0f));
                } while (blocked[(int)pt[e].y * MW + (int)pt[e].x]);
            }
            double dx = (double)pt[1].x - pt[0].x, dy = (double)pt[1].y - pt[0].y;
            if (wrap) {
                if (dx > 0.5 * MW) dx -= MW;
                else if (dx < -0.5 * MW) dx += MW;
                if (dy > 0.5 * MH) dy -= MH;
                else if (dy < -0.5 * MH) dy += MH;
            }
            /* Every image of every blocked cell the (unwrapped) leg can reach. */
            bool meets = false;
            for (int c = 0; c < MW * MH && !meets; c++) {
                if (!blocked[c]) continue;
                const int images = wrap ? 1 : 0;
                for (int ix = -images; ix <= images && !meets; ix++) {
                    for (int iy = -images; iy <= images && !meets; iy++) {
                        meets = segment_meets_cell(pt[0].x, pt[0].y, pt[0].x + dx, pt[0].y + dy,
                                                   c % MW + ix * MW, c / MW + iy * MH);
                    }
                }
            }
            th_crowd_def cd = th_default_crowd_def();
            cd.goal = (th_goal_def){.kind = TH_GOAL_ROUTE, .points = pt, .point_count = 2};
            const int crowd = IDX(th_world_add_crowd(w, &cd, &err));
            CHECK_MSG((crowd < 0) == meets,
                      "map %d%s: leg (%g, %g) -> (%g, %g) %s, clipping says "
                      "it %s a wall",
                      map, wrap ? " (wrap)" : "", (double)pt[0].x, (double)pt[0].y, (double)pt[1].x,
                      (double)pt[1].y, crowd < 0 ? "refused" : "accepted",
                      meets ? "meets" : "misses");
            if (crowd < 0) {
                CHECK_MSG(err.code == TH_ERR_BLOCKED, "%s", err.message);
                refused++;
            } else {
                accepted++;
            }
        }
        th_world_destroy(w);
    }
    ck_assert_uint_gt(refused, 500);
    ck_assert_uint_gt(accepted, 500);
}
END_TEST

/* ---- scene errors ------------------------------------------------------------------------- */

typedef struct bad_case {
    const char *what;
    const char *yaml;
    unsigned line, column;
    const char *path;
    th_error_code code;
} bad_case;

#define SMAP                                                           \
    "name: t\n"                                                        \
    "map:\n"                                                           \
    "  cell_size: 1\n"                                                 \
    "  legend: {'#': wall, '.': open, 'E': open, 'x': destructible}\n" \
    "  ascii: |\n"                                                     \
    "    ##########\n"                                                 \
    "    #....#...E\n"                                                 \
    "    #....x...#\n"                                                 \
    "    #........#\n"                                                 \
    "    ##########\n"                                                 \
    "crowds:\n"                                                        \
    "  - name: a\n"                                                    \
    "    count: 3\n"                                                   \
    "    spawn: {rect: [1, 1, 2, 2]}\n"
/* SMAP ends on line 14; a crowd's goal is on line 15. */

static const bad_case k_bad[] = {
    {"unknown goal word", SMAP "    goal: fly\n", 15, 11, "crowds[0].goal", TH_ERR_SCENE_VALUE},
    {"two goal kinds", SMAP "    goal: {wander: {}, route: [[2, 2]]}\n", 15, 11, "crowds[0].goal",
     TH_ERR_SCENE_VALUE},
    {"empty destinations", SMAP "    goal: {destinations: []}\n", 15, 26,
     "crowds[0].goal.destinations", TH_ERR_SCENE_VALUE},
    {"destination in a wall", SMAP "    goal: {destinations: [{cells: [0, 0, 1, 1]}]}\n", 15, 35,
     "crowds[0].goal.destinations[0].cells", TH_ERR_SCENE_VALUE},
    {"destination legend not on the map", SMAP "    goal: {destinations: [{legend: Q}]}\n", 15, 36,
     "crowds[0].goal.destinations[0].legend", TH_ERR_SCENE_VALUE},
    {"negative weight", SMAP "    goal: {destinations: [{legend: E, weight: -1}]}\n", 15, 47,
     "crowds[0].goal.destinations[0].weight", TH_ERR_SCENE_VALUE},
    {"destinations without a map",
     "name: t\nworld: {size: [10, 10]}\ncrowds:\n  - {name: a, count: 1, spawn: {rect: [1, 1, 1, 1]}, goal: {destinations: [{at: [1, 1]}]}}\n",
     4, 75, "crowds[0].goal.destinations", TH_ERR_SCENE_VALUE},
    {"route with no waypoint", SMAP "    goal: {route: []}\n", 15, 19, "crowds[0].goal.route",
     TH_ERR_SCENE_VALUE},
    {"waypoint in a wall", SMAP "    goal: {route: [[2, 2], [0.5, 0.5]]}\n", 15, 28,
     "crowds[0].goal.route[1]", TH_ERR_SCENE_VALUE},
    {"leg through a wall", SMAP "    goal: {route: [[2, 3.5], [8, 3.5]]}\n", 15, 30,
     "crowds[0].goal.route[1]", TH_ERR_SCENE_VALUE},
    {"leg through a destructible wall", SMAP "    goal: {route: [[2, 2.5], [8, 2.5]]}\n", 15, 30,
     "crowds[0].goal.route[1]", TH_ERR_SCENE_VALUE},
    {"loop's closing leg through a wall",
     SMAP "    goal: {route: [[7, 3.5], [7, 1.5], [2, 1.5]], mode: loop}\n", 15, 40,
     "crowds[0].goal.route[2]", TH_ERR_SCENE_VALUE},
    {"unknown route mode", SMAP "    goal: {route: [[2, 2]], mode: pingpong}\n", 15, 35,
     "crowds[0].goal.mode", TH_ERR_SCENE_VALUE},
    {"zero radius", SMAP "    goal: {route: [[2, 2]], radius: 0}\n", 15, 37,
     "crowds[0].goal.radius", TH_ERR_SCENE_VALUE},
    {"mode without a route", SMAP "    goal: {wander: {}, mode: loop}\n", 15, 30,
     "crowds[0].goal.mode", TH_ERR_SCENE_VALUE},
    {"wander rate zero", SMAP "    goal: {wander: {rate: 0}}\n", 15, 27,
     "crowds[0].goal.wander.rate", TH_ERR_SCENE_VALUE},
    {"unknown wander key", SMAP "    goal: {wander: {speed: 3}}\n", 15, 21,
     "crowds[0].goal.wander.speed", TH_ERR_SCENE_KEY},
    {"congestion on a route", SMAP "    goal: {route: [[2, 2]], congestion: {weight: 1}}\n", 15, 41,
     "crowds[0].goal.congestion", TH_ERR_SCENE_VALUE},
    {"congestion weight too large",
     SMAP "    goal: {destinations: [{legend: E}], congestion: {weight: 500}}\n", 15, 62,
     "crowds[0].goal.congestion.weight", TH_ERR_SCENE_VALUE},
    {"congestion every zero",
     SMAP "    goal: {destinations: [{legend: E}], congestion: {every: 0}}\n", 15, 61,
     "crowds[0].goal.congestion.every", TH_ERR_SCENE_VALUE},
    {"congestion as a word", SMAP "    goal: {destinations: [{legend: E}], congestion: yes}\n", 15,
     53, "crowds[0].goal.congestion", TH_ERR_SCENE_VALUE},
    {"flee and a route", SMAP "    behavior: flee\n    goal: {route: [[2, 2]]}\n", 16, 11,
     "crowds[0].goal", TH_ERR_SCENE_VALUE},
};

START_TEST(bad_goals_report_exact_place) {
    const bad_case *c = &k_bad[_i];
    th_error err;
    memset(&err, 0, sizeof err);
    th_world *w = load_text(c->yaml, 1, &err);
    if (w) th_world_destroy(w);
    ck_assert_msg(w == NULL, "%s: loaded although broken", c->what);
    th_test_scene_error(c->what, &err, "scene.yaml", c->line, c->column, c->path, c->code);
}
END_TEST

/* ---- the library scenes --------------------------------------------------------------------- */

/* RiMEA test 10: every person leaves by the exit assigned to its group. */
START_TEST(rimea10_everyone_uses_the_assigned_exit) {
    th_error err;
    th_scene_info info;
    th_world *w = th_scene_load(THRONG_SCENES_DIR "/validation/rimea10_routes.yaml",
                                &(th_scene_opts){.threads = 2}, &info, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    ck_assert_uint_eq(info.agents, 23);
    for (uint64_t s = 0; s < info.steps; s++) th_world_step(w);
    /* The scene's lines count everyone through each exit, one group per exit. */
    uint32_t through[2] = {0, 0};
    for (uint32_t l = 0; l < th_world_measure_line_count(w); l++) {
        th_measure_line_info li;
        ck_assert(th_world_get_measure_line(w, LINE_ID(l), &li));
        if (strcmp(li.name, "main_exit") == 0) through[0] = (uint32_t)li.forward_total;
        if (strcmp(li.name, "secondary_exit") == 0) through[1] = (uint32_t)li.forward_total;
    }
    uint32_t group[2] = {0, 0};
    const th_agent_view v = th_world_agents(w);
    for (uint32_t k = 0; k < v.count; k++) {
        const th_crowd_def *cd = th_world_get_crowd(w, CROWD_ID(v.crowd[k]));
        const bool main = strcmp(cd->name, "to_main") == 0;
        group[main ? 0 : 1]++;
        /* In the yard beyond its own exit: x in [0, 4) m west of the main exit, [35, 39) m east
         * of the secondary one, both yards y in [3, 11) m. */
        const bool in_yard =
            (main ? v.px[k] < 4.0f : v.px[k] >= 35.0f) && v.py[k] >= 3.0f && v.py[k] < 11.0f;
        ck_assert_msg(in_yard, "%s agent %u at (%.1f, %.1f)", cd->name, th_test_slot(v.id[k]),
                      (double)v.px[k], (double)v.py[k]);
    }
    ck_assert_uint_eq(group[0] + group[1], 23);
    ck_assert_uint_eq(through[0], group[0]);
    ck_assert_uint_eq(through[1], group[1]);
    th_world_destroy(w);
}
END_TEST

int main(void) {
    if (!th_test_dir_make("goal")) return EXIT_FAILURE;
    Suite *s = suite_create("goal");
    TCase *tc = tcase_create("goals");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, destination_choice_matches_brute_force);
    tcase_add_test(tc, weights_move_the_split_between_exits);
    tcase_add_loop_test(tc, routes_follow_their_mode, 0, 6);
    tcase_add_test(tc, wander_heading_spreads_at_its_rate);
    tcase_add_test(tc, wanderers_spread_over_a_room);
    tcase_add_test(tc, groups_use_their_own_exits);
    tcase_add_test(tc, congestion_spreads_the_crowd_over_both_exits);
    tcase_add_test(tc, congestion_is_deterministic_across_threads);
    tcase_add_test(tc, every_goal_kind_same_hash_at_1_2_3_threads);
    tcase_add_test(tc, goal_steps_allocate_nothing);
    tcase_add_test(tc, route_legs_through_walls_are_refused_by_the_api);
    tcase_add_test(tc, route_leg_check_matches_segment_clipping);
    tcase_add_loop_test(tc, bad_goals_report_exact_place, 0, (int)(sizeof k_bad / sizeof k_bad[0]));
    tcase_add_test(tc, rimea10_everyone_uses_the_assigned_exit);
    suite_add_tcase(s, tc);
    const int rc = th_test_run(s);
    return th_test_dir_remove() ? rc : EXIT_FAILURE;
}
