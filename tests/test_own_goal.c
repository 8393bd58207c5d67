/* An agent's own goal (sim/behave/own_goal.c, th_world_set_agent_goal):
 *   - agents of a fleeing crowd and of a flock, each sent to its own point across a walled map,
 *     arrive within their radius and stay, while the rest of their crowd keeps its goal; their
 *     remaining metres fall to 0 and their path is the planned one (no longer than a plain
 *     Dijkstra's cost plus a cell, never through a wall);
 *   - a wall built across its path makes it plan again and still arrive; a point walled in
 *     leaves it stranded, not stalled-then-lost;
 *   - a way longer than a path's 256 waypoints: planned on from its end, it arrives;
 *   - following another agent: it keeps within its radius of the other, then returns to its
 *     crowd's goal once the other has gone; an exit set and given back to the crowd;
 *   - goals given for a later step: made at the start of that step, in the order given, with
 *     no allocation in the step; an agent gone by then passed over, counted;
 *   - the same hash on 1, 2, 3 and 8 threads; refusals. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/alloc.h"
#include "test_util.h"
#include "throng/throng.h"

/* 40 x 30 m, 1 m cells; a wall at x = 20 from y = 0 to 24 (a gap at the top); a bunker in the
 * south-west corner. */
static th_world *walled(uint32_t threads, th_error *err) {
    th_world_def wd = th_default_world_def();
    wd.width = 40;
    wd.height = 30;
    wd.cell_size = 1.0f;
    wd.threads = threads;
    wd.seed = 6;
    th_world *w = th_world_create(&wd, err);
    ck_assert_msg(w != NULL, "%s", err->message);
    for (int y = 0; y < 25; y++) ck_assert(th_world_set_cell(w, 20, y, TH_CELL_WALL, 0, err));
    const th_bunker_def b = {.name = "sw", .x0 = 0, .y0 = 0, .x1 = 1, .y1 = 1};
    ck_assert(th_world_add_bunker(w, &b, err).index1 == 1);
    return w;
}

static th_crowd_id crowd(th_world *w, bool flee, th_model model) {
    th_crowd_def cd =
        model == TH_MODEL_PEDESTRIAN ? th_default_pedestrian_def() : th_default_crowd_def();
    if (flee) cd.behavior = TH_BEHAVIOR_FLEE;
    if (model == TH_MODEL_BOIDS) cd.max_speed = 2.0f;
    th_error err;
    th_crowd_id c = th_world_add_crowd(w, &cd, &err);
    ck_assert_msg(c.index1, "%s", err.message);
    return c;
}

START_TEST(agents_walk_to_their_own_points) {
    th_error err;
    th_world *w = walled(2, &err);
    const th_crowd_id fleeing = crowd(w, true, TH_MODEL_PEDESTRIAN);
    const th_crowd_id flock = crowd(w, false, TH_MODEL_BOIDS);
    th_agent_id mine = th_world_add_agent(w, fleeing, th_v2(10.5f, 5.5f), th_v2(0, 0), &err);
    th_agent_id rest = th_world_add_agent(w, fleeing, th_v2(12.5f, 8.5f), th_v2(0, 0), &err);
    th_agent_id bird = th_world_add_agent(w, flock, th_v2(8.5f, 20.5f), th_v2(0, 0), &err);
    const th_agent_goal to_east = {
        .kind = TH_AGENT_GOAL_POINT, .point = {30.5f, 5.5f}, .radius = 0.5f};
    const th_agent_goal bird_to = {
        .kind = TH_AGENT_GOAL_POINT, .point = {35.5f, 15.5f}, .radius = 1.0f};
    ck_assert_msg(th_world_set_agent_goal(w, mine, &to_east, &err), "%s", err.message);
    ck_assert_msg(th_world_set_agent_goal(w, bird, &bird_to, &err), "%s", err.message);
    th_agent_goal back;
    ck_assert(th_world_get_agent_goal(w, mine, &back) && back.kind == TH_AGENT_GOAL_POINT &&
              back.point.x == 30.5f);
    ck_assert(th_world_get_agent_goal(w, rest, &back) && back.kind == TH_AGENT_GOAL_CROWD);
    th_world_step(w);
    /* Around the wall's top: about 10 + 19.5 + 19.5 m, more than the 20 m straight. */
    const float left = th_world_agent_remaining(w, mine);
    ck_assert_msg(left > 45.0f && left < 52.0f, "%g m left", (double)left);
    th_vec2 path[64];
    uint32_t n;
    ck_assert_msg(th_world_agent_path(w, mine, path, 64, &n, &err), "%s", err.message);
    ck_assert(n >= 3 && path[n - 1].x == 30.5f && path[n - 1].y == 5.5f);
    for (uint32_t i = 1; i < n; i++) /* each leg on one side of the wall or over its top */
        ck_assert(
            !((path[i - 1].x < 20) != (path[i].x < 20) && fminf(path[i - 1].y, path[i].y) < 24.5f));
    for (int s = 0; s < 60 * 60; s++) {
        th_world_step(w);
        th_stall_info si;
        ck_assert(th_world_get_stall_info(w, &si));
        ck_assert_msg(si.stalled == 0, "%u stalled at step %d", si.stalled, s);
    }
    th_agent_state a;
    ck_assert(th_world_get_agent(w, mine, &a));
    ck_assert_msg(th_v2_len(th_v2_sub(a.position, to_east.point)) <= 0.6f, "at (%g, %g)",
                  (double)a.position.x, (double)a.position.y);
    ck_assert(th_world_agent_remaining(w, mine) < 0.6f);
    ck_assert(th_world_get_agent(w, bird, &a));
    ck_assert_msg(th_v2_len(th_v2_sub(a.position, bird_to.point)) <= 3.0f, "bird at (%g, %g)",
                  (double)a.position.x, (double)a.position.y);
    /* The rest of the crowd sheltered. */
    ck_assert(!th_world_get_agent(w, rest, &a));
    /* Back to the crowd's goal: it shelters too. */
    const th_agent_goal crowd_goal = {.kind = TH_AGENT_GOAL_CROWD};
    ck_assert(th_world_set_agent_goal(w, mine, &crowd_goal, &err));
    for (int s = 0; s < 80 * 60; s++) th_world_step(w);
    ck_assert_msg(!th_world_get_agent(w, mine, &a), "still at (%g, %g)", (double)a.position.x,
                  (double)a.position.y);
    th_world_destroy(w);
}
END_TEST

START_TEST(paths_are_planned_again_after_walls) {
    th_error err;
    th_world *w = walled(1, &err);
    const th_crowd_id c = crowd(w, false, TH_MODEL_PEDESTRIAN);
    th_agent_id id = th_world_add_agent(w, c, th_v2(10.5f, 20.5f), th_v2(0, 0), &err);
    const th_agent_goal g = {.kind = TH_AGENT_GOAL_POINT, .point = {30.5f, 20.5f}, .radius = 0.5f};
    ck_assert_msg(th_world_set_agent_goal(w, id, &g, &err), "%s", err.message);
    th_world_step(w);
    /* Close the gap over the wall but one cell at the very top, in the walker's way. */
    ck_assert(th_world_block_cells(w, 20, 25, 20, 28, &err));
    for (int s = 0; s < 60 * 60; s++) th_world_step(w);
    th_agent_state a;
    ck_assert(th_world_get_agent(w, id, &a));
    ck_assert_msg(th_v2_len(th_v2_sub(a.position, g.point)) <= 0.6f, "at (%g, %g)",
                  (double)a.position.x, (double)a.position.y);
    /* A point walled in: refused when set; walled in later, it stands stranded. */
    ck_assert(th_world_block_cells(w, 34, 10, 36, 12, &err));
    th_world_step(w);
    const th_agent_goal sealed = {.kind = TH_AGENT_GOAL_POINT, .point = {35.5f, 11.5f}};
    ck_assert(!th_world_set_agent_goal(w, id, &sealed, &err));
    ck_assert(err.code == TH_ERR_BLOCKED);
    th_agent_goal still;
    ck_assert(th_world_get_agent_goal(w, id, &still) && still.point.x == 30.5f);
    th_world_destroy(w);
}
END_TEST

/* A way longer than the 256 waypoints a path holds: a zig-zag of 150 walls across a long
 * corridor. The walker plans on from the end of the first part and arrives. Sent to an exit
 * and given back to its crowd, it walks to the nearest bunker again. */
START_TEST(long_ways_and_exits_given_back) {
    th_error err;
    th_world_def wd = th_default_world_def();
    wd.width = 610;
    wd.height = 6;
    wd.cell_size = 1.0f;
    th_world *w = th_world_create(&wd, &err);
    for (int i = 0; i < 150; i++) {
        const int x = 4 + 4 * i, open_y = i % 2 ? 0 : 5; /* the gap alternates north and south */
        for (int y = 0; y < 6; y++)
            if (y != open_y) ck_assert(th_world_set_cell(w, x, y, TH_CELL_WALL, 0, &err));
    }
    const th_bunker_def west = {.name = "west", .x0 = 0, .y0 = 2, .x1 = 0, .y1 = 3};
    const th_bunker_def east = {.name = "east", .x0 = 609, .y0 = 2, .x1 = 609, .y1 = 3};
    ck_assert(th_world_add_bunker(w, &west, &err).index1 == 1);
    ck_assert(th_world_add_bunker(w, &east, &err).index1 == 2);
    th_crowd_def cd = th_default_pedestrian_def();
    cd.desired_speed = 2.0f;
    cd.desired_speed_sd = 0;
    const th_crowd_id c = th_world_add_crowd(w, &cd, &err);
    const th_agent_id id = th_world_add_agent(w, c, th_v2(1.5f, 2.5f), th_v2(0, 0), &err);
    const th_agent_goal far = {
        .kind = TH_AGENT_GOAL_POINT, .point = {607.5f, 2.5f}, .radius = 0.5f};
    ck_assert_msg(th_world_set_agent_goal(w, id, &far, &err), "%s", err.message);
    th_vec2 path[300];
    uint32_t n;
    ck_assert(th_world_agent_path(w, id, path, 300, &n, &err));
    ck_assert_msg(n == 256 && path[n - 1].x < 600, "%u points, the last at x %g", n,
                  (double)path[n - 1].x);
    for (int s = 0; s < 30 * 60 * 60 && th_world_agent_remaining(w, id) > 0.5f; s++)
        th_world_step(w);
    th_agent_state a;
    ck_assert(th_world_get_agent(w, id, &a));
    ck_assert_msg(th_v2_len(th_v2_sub(a.position, far.point)) <= 0.6f, "at (%g, %g)",
                  (double)a.position.x, (double)a.position.y);
    th_world_destroy(w);

    /* An exit given back. */
    w = walled(1, &err);
    const th_bunker_def ne = {.name = "ne", .x0 = 38, .y0 = 28, .x1 = 39, .y1 = 29};
    ck_assert(th_world_add_bunker(w, &ne, &err).index1 == 2);
    const th_crowd_id f = crowd(w, true, TH_MODEL_PEDESTRIAN);
    const th_agent_id me = th_world_add_agent(w, f, th_v2(5.5f, 5.5f), th_v2(0, 0), &err);
    const th_agent_goal to_ne = {.kind = TH_AGENT_GOAL_EXIT, .exit = {2}};
    ck_assert_msg(th_world_set_agent_goal(w, me, &to_ne, &err), "%s", err.message);
    th_agent_goal back;
    ck_assert(th_world_get_agent_goal(w, me, &back) && back.kind == TH_AGENT_GOAL_EXIT &&
              back.exit.index1 == 2);
    ck_assert(th_world_get_agent(w, me, &a) && a.exit.index1 == 2);
    const th_agent_goal crowd_goal = {.kind = TH_AGENT_GOAL_CROWD};
    ck_assert(th_world_set_agent_goal(w, me, &crowd_goal, &err));
    ck_assert(th_world_get_agent_goal(w, me, &back) && back.kind == TH_AGENT_GOAL_CROWD);
    ck_assert(th_world_get_agent(w, me, &a) && a.exit.index1 == 0);
    for (int s = 0; s < 30 * 60; s++) th_world_step(w);
    th_bunker_info bi;
    ck_assert(th_world_get_bunker(w, (th_bunker_id){1}, &bi) && bi.sheltered == 1);
    th_world_destroy(w);
}
END_TEST

START_TEST(following_another_agent) {
    th_error err;
    th_world *w = walled(2, &err);
    const th_crowd_id fleeing = crowd(w, true, TH_MODEL_PEDESTRIAN);
    static const th_vec2 loop[4] = {{5, 26}, {35, 26}, {35, 28}, {5, 28}};
    th_crowd_def gd = th_default_pedestrian_def();
    gd.desired_speed = 0.8f;
    gd.desired_speed_sd = 0;
    gd.goal = (th_goal_def){
        .kind = TH_GOAL_ROUTE, .points = loop, .point_count = 4, .mode = TH_ROUTE_LOOP};
    const th_crowd_id guides = th_world_add_crowd(w, &gd, &err);
    th_agent_id guide = th_world_add_agent(w, guides, th_v2(5.5f, 26.5f), th_v2(0, 0), &err);
    th_agent_id me = th_world_add_agent(w, fleeing, th_v2(8.5f, 20.5f), th_v2(0, 0), &err);
    const th_agent_goal f = {.kind = TH_AGENT_GOAL_FOLLOW, .follow = guide, .radius = 2.0f};
    ck_assert_msg(th_world_set_agent_goal(w, me, &f, &err), "%s", err.message);
    for (int s = 0; s < 40 * 60; s++) {
        th_world_step(w);
        th_agent_state a, b;
        ck_assert(th_world_get_agent(w, me, &a) && th_world_get_agent(w, guide, &b));
        if (s > 10 * 60)
            ck_assert_msg(th_v2_len(th_v2_sub(a.position, b.position)) < 3.5f,
                          "%g m apart at step %d",
                          (double)th_v2_len(th_v2_sub(a.position, b.position)), s);
    }
    /* The guide leaves: its crowd's goal leads it again, and it shelters, never stalled. */
    ck_assert(th_world_remove_agent(w, guide, &err));
    for (int s = 0; s < 80 * 60; s++) {
        th_world_step(w);
        th_stall_info si;
        ck_assert(th_world_get_stall_info(w, &si) && si.stalled == 0);
    }
    th_agent_state a;
    ck_assert(!th_world_get_agent(w, me, &a));
    th_world_destroy(w);
}
END_TEST

START_TEST(goals_given_for_a_later_step) {
    th_error err;
    th_world *w = walled(2, &err);
    const th_crowd_id c = crowd(w, true, TH_MODEL_PEDESTRIAN);
    th_agent_id ids[4];
    for (int i = 0; i < 4; i++)
        ids[i] = th_world_add_agent(w, c, th_v2(10.5f + (float)i, 5.5f), th_v2(0, 0), &err);
    const th_agent_goal east = {.kind = TH_AGENT_GOAL_POINT, .point = {30.5f, 5.5f}};
    const th_agent_goal north = {.kind = TH_AGENT_GOAL_POINT, .point = {10.5f, 27.5f}};
    const th_agent_goal back = {.kind = TH_AGENT_GOAL_CROWD};
    /* Given out of order: step 40 before step 20; at step 20 two changes for agent 0, the
     * later given wins. */
    ck_assert_msg(th_world_schedule_agents_goal(w, 40, ids, 2, &back, &err), "%s", err.message);
    ck_assert(th_world_schedule_agents_goal(w, 20, ids, 4, &east, &err));
    ck_assert(th_world_schedule_agents_goal(w, 20, ids, 1, &north, &err));
    uint64_t pending, made, passed;
    th_world_goal_changes(w, &pending, &made, &passed);
    ck_assert(pending == 7 && made == 0 && passed == 0);
    th_world_remove_agent(w, ids[3], &err); /* gone before its change is due */
    /* Goals given at once to forty others take entries of the own-goal table, and a wall
     * built at step 5 leaves the path-finding landmarks stale: neither may make the step
     * that makes the changes allocate. */
    th_agent_id others[40];
    for (int i = 0; i < 40; i++)
        others[i] = th_world_add_agent(w, c, th_v2(3.5f + (float)(i % 10), 12.5f + (float)(i / 10)),
                                       th_v2(0, 0), &err);
    const th_agent_goal west = {.kind = TH_AGENT_GOAL_POINT, .point = {5.5f, 25.5f}};
    ck_assert_msg(th_world_set_agents_goal(w, others, 40, &west, NULL, &err), "%s", err.message);
    for (int s = 0; s < 20; s++) {
        if (s == 5) ck_assert(th_world_block_cells(w, 25, 10, 26, 12, &err));
        th_world_step(w);
    }
    th_agent_goal g;
    ck_assert(th_world_get_agent_goal(w, ids[0], &g) && g.kind == TH_AGENT_GOAL_CROWD);
    const uint64_t allocs = th_alloc_count();
    th_world_step(w); /* the step from 20 to 21 makes the changes due at 20 */
    ck_assert_msg(th_alloc_count() == allocs, "%llu allocations in the step",
                  (unsigned long long)(th_alloc_count() - allocs));
    ck_assert(th_world_get_agent_goal(w, ids[0], &g) && g.kind == TH_AGENT_GOAL_POINT &&
              g.point.y == 27.5f);
    ck_assert(th_world_get_agent_goal(w, ids[1], &g) && g.kind == TH_AGENT_GOAL_POINT &&
              g.point.x == 30.5f);
    th_world_goal_changes(w, &pending, &made, &passed);
    ck_assert_msg(pending == 2 && made == 4 && passed == 1, "%llu %llu %llu",
                  (unsigned long long)pending, (unsigned long long)made,
                  (unsigned long long)passed);
    for (int s = 0; s < 20; s++) th_world_step(w);
    ck_assert(th_world_get_agent_goal(w, ids[0], &g) && g.kind == TH_AGENT_GOAL_CROWD);
    ck_assert(th_world_get_agent_goal(w, ids[1], &g) && g.kind == TH_AGENT_GOAL_CROWD);
    ck_assert(th_world_get_agent_goal(w, ids[2], &g) && g.kind == TH_AGENT_GOAL_POINT);
    th_world_goal_changes(w, &pending, &made, &passed);
    ck_assert(pending == 0 && made == 6 && passed == 1);
    /* Refused: a step gone by, an unknown agent, a point in the wall, an exit for a flock. */
    ck_assert(!th_world_schedule_agents_goal(w, 3, ids, 1, &east, &err));
    TH_TEST_ERR(err, TH_ERR_INVALID);
    ck_assert(!th_world_schedule_agents_goal(w, 100, ids + 2, 2, &east, &err));
    TH_TEST_ERR(err, TH_ERR_HANDLE);
    ck_assert(strstr(err.message, "agent 1 of the selection"));
    const th_agent_goal wall = {.kind = TH_AGENT_GOAL_POINT, .point = {20.5f, 3.5f}};
    ck_assert(!th_world_schedule_agents_goal(w, 100, ids, 1, &wall, &err));
    TH_TEST_ERR(err, TH_ERR_BLOCKED);
    const th_crowd_id flock = crowd(w, false, TH_MODEL_BOIDS);
    th_agent_id bird = th_world_add_agent(w, flock, th_v2(5.5f, 20.5f), th_v2(0, 0), &err);
    const th_agent_goal exit = {.kind = TH_AGENT_GOAL_EXIT, .exit = {1}};
    ck_assert(!th_world_schedule_agents_goal(w, 100, &bird, 1, &exit, &err));
    ck_assert(strstr(err.message, "does not flee"));
    th_world_goal_changes(w, &pending, NULL, NULL);
    ck_assert(pending == 0); /* nothing refused was kept */
    th_world_destroy(w);
}
END_TEST

static uint64_t own_hash(uint32_t threads) {
    th_error err;
    th_world *w = walled(threads, &err);
    const th_crowd_id c = crowd(w, true, TH_MODEL_PEDESTRIAN);
    th_agent_id ids[200];
    for (int i = 0; i < 200; i++)
        ids[i] = th_world_add_agent(w, c, th_v2(3.5f + (float)(i % 15), 3.5f + (float)(i / 15)),
                                    th_v2(0, 0), &err);
    for (int i = 0; i < 200; i += 3) {
        const th_agent_goal g = {.kind = TH_AGENT_GOAL_POINT,
                                 .point = {25.5f + (float)(i % 10), 4.5f + (float)(i / 10)}};
        ck_assert_msg(th_world_set_agent_goal(w, ids[i], &g, &err), "%s", err.message);
    }
    /* Some change course at 20 s and go back to their crowd's goal at 40 s. */
    const th_agent_goal north = {.kind = TH_AGENT_GOAL_POINT, .point = {30.5f, 27.5f}};
    const th_agent_goal back = {.kind = TH_AGENT_GOAL_CROWD};
    ck_assert(th_world_schedule_agents_goal(w, 20 * 60, ids + 100, 40, &north, &err));
    ck_assert(th_world_schedule_agents_goal(w, 40 * 60, ids + 110, 10, &back, &err));
    for (int s = 0; s < 50 * 60; s++) {
        if (s == 600) ck_assert(th_world_block_cells(w, 21, 26, 24, 27, &err));
        th_world_step(w);
    }
    const uint64_t h = th_world_hash(w);
    th_world_destroy(w);
    return h;
}

START_TEST(same_hash_on_1_2_3_8_threads) {
    const uint64_t h = own_hash(1);
    ck_assert(own_hash(2) == h);
    ck_assert(own_hash(3) == h);
    ck_assert(own_hash(8) == h);
}
END_TEST

START_TEST(bad_goals_are_refused) {
    th_error err;
    th_world *w = walled(1, &err);
    const th_crowd_id c = crowd(w, false, TH_MODEL_PEDESTRIAN);
    th_agent_id id = th_world_add_agent(w, c, th_v2(5.5f, 5.5f), th_v2(0, 0), &err);
    const struct {
        th_agent_goal g;
        th_error_code code;
    } bad[] = {
        {{.kind = TH_AGENT_GOAL_POINT, .point = {50, 5}}, TH_ERR_BLOCKED},
        {{.kind = TH_AGENT_GOAL_POINT, .point = {20.5f, 5.5f}}, TH_ERR_BLOCKED},
        {{.kind = TH_AGENT_GOAL_POINT, .point = {30, 5}, .radius = -1}, TH_ERR_INVALID},
        {{.kind = TH_AGENT_GOAL_FOLLOW, .follow = {1, 1}}, TH_ERR_HANDLE},
        {{.kind = TH_AGENT_GOAL_FOLLOW, .follow = {9, 1}}, TH_ERR_HANDLE},
        {{.kind = TH_AGENT_GOAL_EXIT, .exit = {1}}, TH_ERR_STATE},
        {{.kind = (th_agent_goal_kind)9}, TH_ERR_INVALID},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_msg(!th_world_set_agent_goal(w, id, &bad[i].g, &err), "case %zu accepted", i);
        ck_assert_msg(err.code == bad[i].code, "case %zu: %s", i, err.message);
    }
    const th_agent_goal ok = {.kind = TH_AGENT_GOAL_POINT, .point = {5.5f, 10.5f}};
    ck_assert(!th_world_set_agent_goal(w, (th_agent_id){7, 1}, &ok, &err) &&
              err.code == TH_ERR_HANDLE);
    th_agent_goal g;
    ck_assert(!th_world_get_agent_goal(w, (th_agent_id){7, 1}, &g));
    th_world_destroy(w);
}
END_TEST

/* A selection given one goal: each member's path is planned from where it stands, an unknown
 * member refuses the whole selection, and a failure midway names its place and leaves the
 * members before it changed and the rest as they were. */
START_TEST(a_selection_given_one_goal) {
    th_error err;
    th_world *w = walled(2, &err);
    const th_crowd_id c = crowd(w, true, TH_MODEL_PEDESTRIAN);
    th_agent_id ids[6];
    for (int i = 0; i < 6; i++)
        ids[i] = th_world_add_agent(w, c, th_v2(4.5f + 2.0f * (float)i, 6.5f), th_v2(0, 0), &err);
    const th_agent_goal east = {
        .kind = TH_AGENT_GOAL_POINT, .point = {30.5f, 6.5f}, .radius = 0.5f};
    uint32_t done = 99;
    ck_assert_msg(th_world_set_agents_goal(w, ids, 4, &east, &done, &err), "%s", err.message);
    ck_assert_uint_eq(done, 4);
    th_world_step(w);
    float before = 0.0f;
    for (int i = 0; i < 6; i++) {
        th_agent_goal g;
        ck_assert(th_world_get_agent_goal(w, ids[i], &g));
        ck_assert_int_eq(g.kind, i < 4 ? TH_AGENT_GOAL_POINT : TH_AGENT_GOAL_CROWD);
        if (i < 4) {
            /* Planned from each one's place: the farther west, the longer the way round. */
            const float left = th_world_agent_remaining(w, ids[i]);
            if (i) ck_assert_msg(left < before, "%d: %g after %g", i, (double)left, (double)before);
            before = left;
        }
    }
    /* An unknown member: nobody changes. */
    th_agent_id with_unknown[3] = {ids[4], {60, 1}, ids[5]};
    ck_assert(!th_world_set_agents_goal(w, with_unknown, 3, &east, &done, &err));
    ck_assert_int_eq(err.code, TH_ERR_HANDLE);
    ck_assert_uint_eq(done, 0);
    ck_assert(strstr(err.message, "agent 1 of the selection"));
    th_agent_goal g;
    ck_assert(th_world_get_agent_goal(w, ids[4], &g) && g.kind == TH_AGENT_GOAL_CROWD);
    /* Following: the second member is the one followed, so it cannot follow itself. */
    const th_agent_goal follow = {.kind = TH_AGENT_GOAL_FOLLOW, .follow = ids[5]};
    th_agent_id some[3] = {ids[4], ids[5], ids[0]};
    ck_assert(!th_world_set_agents_goal(w, some, 3, &follow, &done, &err));
    ck_assert_uint_eq(done, 1);
    ck_assert(strstr(err.message, "agent 1 of the selection (the first 1 have the goal)"));
    ck_assert(th_world_get_agent_goal(w, ids[4], &g) && g.kind == TH_AGENT_GOAL_FOLLOW);
    ck_assert(th_world_get_agent_goal(w, ids[0], &g) && g.kind == TH_AGENT_GOAL_POINT);
    ck_assert(!th_world_set_agents_goal(w, NULL, 2, &east, &done, &err));
    ck_assert(th_world_set_agents_goal(w, NULL, 0, &east, &done, &err) && done == 0);
    th_world_destroy(w);
}
END_TEST

/* A squad member takes no goal of its own, given now, to a selection or for a later step:
 * each call refuses it (TH_ERR_STATE, naming the squad) and changes nothing, so the member's
 * queries answer for its crowd's goal and the squad arrives. */
START_TEST(a_squad_member_takes_no_goal_of_its_own) {
    th_error err;
    th_world *w = walled(2, &err);
    const th_crowd_id c = crowd(w, false, TH_MODEL_PEDESTRIAN);
    th_crowd_def soldiers = th_default_crowd_def(); /* as tests/test_squad.c marches them */
    soldiers.separation_radius = 0.8f;
    soldiers.max_speed = 3;
    soldiers.max_force = 12;
    th_squad_def sd = th_default_squad_def();
    sd.crowd = th_world_add_crowd(w, &soldiers, &err);
    sd.count = 4;
    sd.start = th_v2(6.0f, 10.0f);
    sd.goal = th_v2(12.0f, 18.0f);
    const th_squad_id q = th_world_add_squad(w, &sd, &err);
    ck_assert_msg(q.index1 == 1, "%s", err.message);
    th_agent_id member, loner = th_world_add_agent(w, c, th_v2(4.5f, 25.5f), th_v2(0, 0), &err);
    ck_assert(th_world_get_squad_member(w, q, 1, &member, NULL));
    const th_agent_goal to = {.kind = TH_AGENT_GOAL_POINT, .point = {30.5f, 5.5f}};
    const th_agent_goal follow = {.kind = TH_AGENT_GOAL_FOLLOW, .follow = loner};
    ck_assert(!th_world_set_agent_goal(w, member, &to, &err));
    ck_assert_int_eq(err.code, TH_ERR_STATE);
    ck_assert_msg(strstr(err.message, "squad 0"), "%s", err.message);
    ck_assert(!th_world_set_agent_goal(w, member, &follow, &err) && err.code == TH_ERR_STATE);
    const th_agent_id both[2] = {loner, member};
    uint32_t done = 99;
    ck_assert(!th_world_set_agents_goal(w, both, 2, &to, &done, &err) && err.code == TH_ERR_STATE);
    ck_assert_uint_eq(done, 1); /* the loner before it took the goal */
    ck_assert(!th_world_schedule_agents_goal(w, 30, &member, 1, &to, &err) &&
              err.code == TH_ERR_STATE);
    uint64_t pending;
    th_world_goal_changes(w, &pending, NULL, NULL);
    ck_assert_uint_eq(pending, 0);
    th_agent_goal g;
    ck_assert(th_world_get_agent_goal(w, member, &g) && g.kind == TH_AGENT_GOAL_CROWD);
    /* Its crowd's goal is no change, and is taken. */
    const th_agent_goal back = {.kind = TH_AGENT_GOAL_CROWD};
    ck_assert_msg(th_world_set_agent_goal(w, member, &back, &err), "%s", err.message);
    int steps = 0;
    th_squad_info si;
    for (; steps < 60 * 60 && th_world_get_squad(w, q, &si) && !si.arrived; steps++)
        th_world_step(w);
    ck_assert_msg(si.arrived, "the squad never arrived");
    /* The loner's own goal is counted; no member's is. */
    const th_own_goal_counts n = th_world_own_goal_counts(w);
    ck_assert_uint_eq(n.given, 1);
    th_world_destroy(w);
}
END_TEST

/* th_world_own_goal_counts against the agents' places: a point reached, one too far to reach
 * yet, one walled in after it was given, a follower beside its leader. */
START_TEST(own_goals_counted_where_they_stand) {
    th_error err;
    th_world *w = walled(2, &err);
    const th_crowd_id c = crowd(w, false, TH_MODEL_PEDESTRIAN);
    th_agent_id a[4];
    for (int i = 0; i < 4; i++)
        a[i] = th_world_add_agent(w, c, th_v2(4.5f + 2.0f * (float)i, 10.5f), th_v2(0, 0), &err);
    const th_agent_goal near = {.kind = TH_AGENT_GOAL_POINT, .point = {6.5f, 14.5f}, .radius = 1},
                        far = {.kind = TH_AGENT_GOAL_POINT, .point = {35.5f, 5.5f}, .radius = 1},
                        pocket = {.kind = TH_AGENT_GOAL_POINT, .point = {10.5f, 27.5f}},
                        follow = {.kind = TH_AGENT_GOAL_FOLLOW, .follow = a[0], .radius = 3};
    ck_assert_msg(th_world_set_agent_goal(w, a[0], &near, &err), "%s", err.message);
    ck_assert_msg(th_world_set_agent_goal(w, a[1], &far, &err), "%s", err.message);
    ck_assert_msg(th_world_set_agent_goal(w, a[2], &pocket, &err), "%s", err.message);
    ck_assert_msg(th_world_set_agent_goal(w, a[3], &follow, &err), "%s", err.message);
    th_own_goal_counts n = th_world_own_goal_counts(w);
    ck_assert_uint_eq(n.given, 4);
    ck_assert_uint_eq(n.reached + n.walking + n.unreachable, 4);
    /* The pocket's point walled in after the first step: cells 9..11 x 26..28 round it. */
    th_world_step(w);
    ck_assert(th_world_block_cells(w, 9, 26, 11, 26, &err));
    ck_assert(th_world_block_cells(w, 9, 28, 11, 28, &err));
    ck_assert(th_world_block_cells(w, 9, 27, 9, 27, &err));
    ck_assert(th_world_block_cells(w, 11, 27, 11, 27, &err));
    for (int s = 0; s < 10 * 60; s++) th_world_step(w);
    n = th_world_own_goal_counts(w);
    uint32_t reached = 0;
    th_agent_state s0, s;
    ck_assert(th_world_get_agent(w, a[0], &s0));
    reached += th_v2_len(th_v2_sub(s0.position, near.point)) <= 1.0f;
    ck_assert(th_world_get_agent(w, a[1], &s));
    ck_assert(th_v2_len(th_v2_sub(s.position, far.point)) > 1.0f); /* 40 m and more in 10 s */
    ck_assert(th_world_get_agent(w, a[3], &s));
    reached += th_v2_len(th_v2_sub(s.position, s0.position)) <= 3.0f;
    ck_assert_uint_eq(n.given, 4);
    ck_assert_uint_eq(n.reached, reached);
    ck_assert_uint_eq(n.unreachable, 1);
    ck_assert_uint_eq(n.walking, 4 - reached - 1);
    ck_assert_uint_ge(reached, 1);
    /* Back to the crowd's goal: no longer counted. */
    const th_agent_goal back = {.kind = TH_AGENT_GOAL_CROWD};
    ck_assert(th_world_set_agent_goal(w, a[1], &back, &err));
    ck_assert_uint_eq(th_world_own_goal_counts(w).given, 3);
    ck_assert_uint_eq(th_world_own_goal_counts(NULL).given, 0);
    th_world_destroy(w);
}
END_TEST

int main(void) {
    Suite *s = suite_create("own_goal");
    TCase *tc = tcase_create("own_goal");
    tcase_set_timeout(tc, 180);
    /* Under ThreadSanitizer not the tests that step one-thread worlds, nor the walk to the
     * points: the hash test walks own points on 2, 3 and 8 threads. */
    if (!TH_TEST_TSAN) tcase_add_test(tc, agents_walk_to_their_own_points);
    if (!TH_TEST_TSAN) tcase_add_test(tc, paths_are_planned_again_after_walls);
    if (!TH_TEST_TSAN) tcase_add_test(tc, long_ways_and_exits_given_back);
    tcase_add_test(tc, following_another_agent);
    tcase_add_test(tc, goals_given_for_a_later_step);
    tcase_add_test(tc, same_hash_on_1_2_3_8_threads);
    if (!TH_TEST_TSAN) tcase_add_test(tc, bad_goals_are_refused);
    tcase_add_test(tc, a_selection_given_one_goal);
    tcase_add_test(tc, a_squad_member_takes_no_goal_of_its_own);
    tcase_add_test(tc, own_goals_counted_where_they_stand);
    suite_add_tcase(s, tc);
    return th_test_run(s);
}
