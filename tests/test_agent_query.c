/* One agent's way (sim/behave/agent_query.c, throng.h "one agent's way"):
 *   - fleeing agents on a random map, each sent to one of two exits: the metres left equal a
 *     plain Dijkstra from that exit's cells (tests/ref_dijkstra.c) to the agent's cell; the
 *     path starts at the agent, ends in the exit, every leg crosses open cells only, and is no
 *     longer than the metres left nor shorter than the straight line; the next step is that
 *     exit's flow;
 *   - a route: the legs left, summed here; a waypoint walker: its node plus the graph's cost
 *     (th_world_waypoint_hop); a wanderer: no end;
 *   - th_world_set_agent_speed: the walker settles at its own speed; refusals. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ref_dijkstra.h"
#include "test_util.h"
#include "throng/throng.h"

enum { W = 48, H = 32 };

/* Metres of a reference distance (70 units a straight step per unit cost, two cells' costs). */
static double ref_metres(uint64_t d, float cell) { return (double)d / 140.0 * cell; }

/* Whether the segment a-b crosses only open cells (sampled every 5 cm). */
static bool open_leg(const th_world *w, th_vec2 a, th_vec2 b) {
    const float len = th_v2_len(th_v2_sub(b, a));
    const int n = (int)(len / 0.05f) + 1;
    for (int i = 0; i <= n; i++) {
        const th_vec2 q = th_v2_add(a, th_v2_scale(th_v2_sub(b, a), (float)i / (float)n));
        if (th_world_cell(w, (int32_t)floorf(q.x), (int32_t)floorf(q.y), NULL) == TH_CELL_WALL)
            return false;
    }
    return true;
}

START_TEST(fleeing_agents_match_dijkstra) {
    th_error err;
    th_world_def wd = th_default_world_def();
    wd.width = W;
    wd.height = H;
    wd.cell_size = 1.0f;
    wd.seed = 12;
    th_world *w = th_world_create(&wd, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    uint64_t rng = 99;
    static uint16_t cost[W * H];
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            const bool wall = (splitmix64(&rng) % 100) < 22 && x > 3 && x < W - 4;
            cost[y * W + x] = wall ? 0 : 1;
            if (wall) ck_assert(th_world_set_cell(w, x, y, TH_CELL_WALL, 0, &err));
        }
    }
    const th_bunker_def west = {.name = "west", .x0 = 0, .y0 = 14, .x1 = 1, .y1 = 17};
    const th_bunker_def east = {.name = "east", .x0 = W - 2, .y0 = 14, .x1 = W - 1, .y1 = 17};
    ck_assert(th_world_add_bunker(w, &west, &err).index1 == 1);
    ck_assert(th_world_add_bunker(w, &east, &err).index1 == 2);
    th_crowd_def cd = th_default_pedestrian_def();
    cd.behavior = TH_BEHAVIOR_FLEE;
    cd.pre_movement = (th_distribution){TH_DISTRIB_CONSTANT, 100, 0, 0, 0};
    const th_crowd_id c = th_world_add_crowd(w, &cd, &err);
    ck_assert_msg(c.index1, "%s", err.message);
    th_agent_id ids[60];
    int n = 0;
    while (n < 60) {
        const int x = 4 + (int)(splitmix64(&rng) % (W - 8)), y = (int)(splitmix64(&rng) % H);
        if (!cost[y * W + x]) continue;
        ids[n] =
            th_world_add_agent(w, c, th_v2((float)x + 0.5f, (float)y + 0.5f), th_v2(0, 0), &err);
        if (!ids[n].index1) continue;
        ck_assert(th_world_set_agent_exit(w, ids[n], (th_bunker_id){(uint32_t)(n % 2) + 1u}, &err));
        n++;
    }
    th_world_step(w); /* builds the fields; everyone still stands (pre-movement) */
    static uint64_t dist[2][W * H];
    for (int b = 0; b < 2; b++) {
        th_ref_goal g[8];
        int ng = 0;
        const int x = b ? W - 2 : 0;
        for (int dx = 0; dx < 2; dx++)
            for (int y = 14; y <= 17; y++) g[ng++] = (th_ref_goal){x + dx, y, 0};
        ck_assert(th_ref_dijkstra(W, H, cost, g, ng, dist[b]) == 0);
    }
    static th_vec2 path[W * H];
    int reachable = 0;
    for (int i = 0; i < n; i++) {
        th_agent_state a;
        ck_assert(th_world_get_agent(w, ids[i], &a));
        const int b = i % 2;
        ck_assert_uint_eq(a.exit.index1, (uint32_t)b + 1u);
        const int cell = (int)a.position.y * W + (int)a.position.x;
        const float left = th_world_agent_remaining(w, ids[i]);
        uint32_t count;
        const bool have = th_world_agent_path(w, ids[i], path, W * H, &count, &err);
        if (dist[b][cell] == TH_REF_INF) {
            ck_assert_msg(isinf(left), "agent %d: %g m left to an exit out of reach", i,
                          (double)left);
            ck_assert(!have && err.code == TH_ERR_UNREACHABLE);
            continue;
        }
        reachable++;
        const double want = ref_metres(dist[b][cell], 1.0f);
        ck_assert_msg(fabs(left - want) < 1e-3 * want + 1e-4, "agent %d: %g m left, Dijkstra %g", i,
                      (double)left, want);
        ck_assert_msg(have, "agent %d: %s", i, err.message);
        ck_assert(count >= 1 && path[0].x == a.position.x && path[0].y == a.position.y);
        const th_vec2 end = path[count - 1];
        ck_assert_msg(b ? end.x > W - 2 : end.x < 2, "agent %d ends at (%g, %g)", i, (double)end.x,
                      (double)end.y);
        double len = 0;
        for (uint32_t k = 1; k < count; k++) {
            ck_assert_msg(open_leg(w, path[k - 1], path[k]), "agent %d: leg %u crosses a wall", i,
                          k);
            len += th_v2_len(th_v2_sub(path[k], path[k - 1]));
        }
        ck_assert_msg(len <= want + 0.75, "agent %d: path %g m, field %g m", i, len, want);
        ck_assert(len + 1e-3 >= th_v2_len(th_v2_sub(end, a.position)));
        th_vec2 dir, flow;
        ck_assert(th_world_agent_next_step(w, ids[i], &dir));
        ck_assert(th_world_bunker_flow(w, (th_bunker_id){(uint32_t)b + 1u}, a.position, &flow));
        ck_assert(fabsf(dir.x - flow.x) < 1e-6f && fabsf(dir.y - flow.y) < 1e-6f);
    }
    ck_assert_msg(reachable > 40, "only %d agents could reach their exit", reachable);
    uint32_t count;
    ck_assert(!th_world_agent_path(w, ids[0], path, 1, &count, &err) || count == 1);
    th_world_destroy(w);
}
END_TEST

START_TEST(routes_graphs_and_wanderers) {
    th_error err;
    th_world_def wd = th_default_world_def();
    wd.width = 60;
    wd.height = 40;
    th_world *w = th_world_create(&wd, &err);
    static const th_vec2 pts[3] = {{20, 5}, {20, 30}, {50, 30}};
    th_crowd_def rd = th_default_pedestrian_def();
    rd.goal = (th_goal_def){.kind = TH_GOAL_ROUTE, .points = pts, .point_count = 3};
    const th_crowd_id r = th_world_add_crowd(w, &rd, &err);
    static const th_vec2 nodes[3] = {{5, 35}, {30, 35}, {55, 5}};
    static const uint32_t edges[4] = {0, 1, 1, 2};
    th_crowd_def gd = th_default_pedestrian_def();
    gd.goal = (th_goal_def){.kind = TH_GOAL_WAYPOINTS,
                            .nodes = nodes,
                            .node_count = 3,
                            .edges = edges,
                            .edge_count = 2,
                            .destination = 2};
    const th_crowd_id g = th_world_add_crowd(w, &gd, &err);
    ck_assert_msg(g.index1, "%s", err.message);
    th_crowd_def wdr = th_default_pedestrian_def();
    wdr.goal = (th_goal_def){.kind = TH_GOAL_WANDER};
    const th_crowd_id wa = th_world_add_crowd(w, &wdr, &err);
    const th_agent_id ra = th_world_add_agent(w, r, th_v2(5, 5), th_v2(0, 0), &err);
    const th_agent_id ga = th_world_add_agent(w, g, th_v2(6, 30), th_v2(0, 0), &err);
    const th_agent_id wan = th_world_add_agent(w, wa, th_v2(40, 10), th_v2(0, 0), &err);
    for (int s = 0; s < 120; s++) th_world_step(w);
    th_agent_state a;
    ck_assert(th_world_get_agent(w, ra, &a));
    const double want = th_v2_len(th_v2_sub(pts[0], a.position)) + 25.0 + 30.0;
    ck_assert_msg(fabs(th_world_agent_remaining(w, ra) - want) < 1e-3, "route: %g m, expected %g",
                  (double)th_world_agent_remaining(w, ra), want);
    th_vec2 out[8];
    uint32_t count;
    ck_assert_msg(th_world_agent_path(w, ra, out, 8, &count, &err), "%s", err.message);
    ck_assert_uint_eq(count, 4);
    ck_assert(out[1].x == 20 && out[1].y == 5 && out[3].x == 50 && out[3].y == 30);
    ck_assert(!th_world_agent_path(w, ra, out, 3, &count, &err) && err.code == TH_ERR_LIMIT);
    /* The waypoint walker heads for node 0, then 1, then 2. */
    ck_assert(th_world_get_agent(w, ga, &a));
    float graph;
    ck_assert(th_world_waypoint_hop(w, g, 0, 2, NULL, &graph));
    const double gwant = th_v2_len(th_v2_sub(nodes[0], a.position)) + graph;
    ck_assert_msg(fabs(th_world_agent_remaining(w, ga) - gwant) < 1e-3, "graph: %g m, expected %g",
                  (double)th_world_agent_remaining(w, ga), gwant);
    ck_assert_msg(th_world_agent_path(w, ga, out, 8, &count, &err), "%s", err.message);
    ck_assert_uint_eq(count, 4);
    ck_assert(out[3].x == 55 && out[3].y == 5);
    ck_assert(isinf(th_world_agent_remaining(w, wan)));
    ck_assert(!th_world_agent_path(w, wan, out, 8, &count, &err) && err.code == TH_ERR_STATE);
    th_vec2 dir;
    ck_assert(th_world_agent_next_step(w, wan, &dir) && fabsf(th_v2_len(dir) - 1.0f) < 1e-4f);
    ck_assert(!th_world_agent_next_step(w, (th_agent_id){77, 1}, &dir));
    ck_assert(isinf(th_world_agent_remaining(w, (th_agent_id){77, 1})));
    th_world_destroy(w);
}
END_TEST

START_TEST(own_speeds) {
    th_error err;
    th_world_def wd = th_default_world_def();
    wd.width = 60;
    wd.height = 10;
    th_world *w = th_world_create(&wd, &err);
    th_crowd_def cd = th_default_pedestrian_def();
    cd.heading = th_v2(1, 0);
    const th_crowd_id c = th_world_add_crowd(w, &cd, &err);
    th_crowd_def bd = th_default_crowd_def();
    const th_crowd_id b = th_world_add_crowd(w, &bd, &err);
    const th_agent_id p = th_world_add_agent(w, c, th_v2(2, 5), th_v2(0, 0), &err);
    const th_agent_id q = th_world_add_agent(w, b, th_v2(2, 8), th_v2(0, 0), &err);
    ck_assert_msg(th_world_set_agent_speed(w, p, 0.45f, &err), "%s", err.message);
    ck_assert(!th_world_set_agent_speed(w, q, 1.0f, &err) && err.code == TH_ERR_STATE);
    ck_assert(!th_world_set_agent_speed(w, p, 0.0f, &err) && err.code == TH_ERR_INVALID);
    ck_assert(!th_world_set_agent_speed(w, p, 3.0f, &err) && err.code == TH_ERR_INVALID);
    ck_assert(!th_world_set_agent_speed(w, (th_agent_id){9, 1}, 1.0f, &err) &&
              err.code == TH_ERR_HANDLE);
    for (int s = 0; s < 6 * 60; s++) th_world_step(w);
    th_agent_state a;
    ck_assert(th_world_get_agent(w, p, &a));
    ck_assert_msg(fabsf(th_v2_len(a.velocity) - 0.45f) < 0.005f, "%g m/s",
                  (double)th_v2_len(a.velocity));
    th_world_destroy(w);
}
END_TEST

int main(void) {
    Suite *s = suite_create("agent_query");
    TCase *tc = tcase_create("agent_query");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, fleeing_agents_match_dijkstra);
    tcase_add_test(tc, routes_graphs_and_wanderers);
    tcase_add_test(tc, own_speeds);
    suite_add_tcase(s, tc);
    return th_test_run(s);
}
