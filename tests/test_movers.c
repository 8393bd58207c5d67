/* The classic movers (sim/behave/movers.c): wall following against a discrete wall follower written
 * here, crash and turn around a block, breadcrumbs around a corner, the waypoint next-hop table
 * against Floyd-Warshall; the same hash on 1, 2 and 3 threads for each mover and both crowd
 * models; no allocation in a step; bad defs and scene keys refused with their place. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/alloc.h"
#include "throng/throng.h"
#include "test_util.h"

#ifndef THRONG_SCENES_DIR
#error "THRONG_SCENES_DIR must name the scene library"
#endif

/* ---- helpers ------------------------------------------------------------------------------ */

static th_crowd_def model_def(bool ped) {
    th_crowd_def d = ped ? th_default_pedestrian_def() : th_default_crowd_def();
    if (!ped) {
        /* Slow, nimble boids: they turn within a fraction of a cell. */
        d.max_speed = 1.5f;
        d.max_force = 30.0f;
        d.flow_weight = 3.0f;
        d.separation_radius = 0.6f;
    }
    return d;
}

static int cell_at(th_vec2 p, int W) { return (int)floorf(p.y) * W + (int)floorf(p.x); }

static th_agent_state agent(const th_world *w, th_agent_id id) {
    th_agent_state s;
    ck_assert(th_world_get_agent(w, id, &s));
    return s;
}

/* The reference wall follower on the grid: straight on until the cell ahead is blocked, then
 * keep the wall at `right` (or left) hand: at every cell try the hand side, straight, the other
 * side, back. Directions 0..3 = east, north, west, south. Writes the cells visited (start
 * first) and returns how many. */
static int ref_follow(const uint8_t *open, int W, int H, int x, int y, int dir, bool right,
                      int *seq, int max) {
    int n = 0;
    seq[n++] = y * W + x;
    bool seeking = true;
    while (n < max) {
        static const int ddx[4] = {1, 0, -1, 0}, ddy[4] = {0, 1, 0, -1};
#define OPEN(a, b) ((a) >= 0 && (b) >= 0 && (a) < W && (b) < H && open[(b)*W + (a)])
        if (seeking) {
            if (OPEN(x + ddx[dir], y + ddy[dir])) {
                x += ddx[dir];
                y += ddy[dir];
                seq[n++] = y * W + x;
                continue;
            }
            seeking = false;
            dir = right ? (dir + 1) % 4 : (dir + 3) % 4; /* the wall now at hand */
        }
        const int hand = right ? 3 : 1, other = right ? 1 : 3;
        const int tries[4] = {(dir + hand) % 4, dir, (dir + other) % 4, (dir + 2) % 4};
        int k = 0;
        while (k < 4 && !OPEN(x + ddx[tries[k]], y + ddy[tries[k]])) k++;
        if (k == 4) break;
        dir = tries[k];
        x += ddx[dir];
        y += ddy[dir];
        seq[n++] = y * W + x;
#undef OPEN
    }
    return n;
}

/* ---- wall following ------------------------------------------------------------------------ */

/* The agent's cells, each new one appended, until it has been in `want` cells or the steps run
 * out; returns the count. */
static int walk_cells(th_world *w, th_agent_id id, int W, int *cells, int want, int max_steps) {
    int n = 0;
    for (int s = 0; s < max_steps && n < want; s++) {
        const int c = cell_at(agent(w, id).position, W);
        if (n == 0 || cells[n - 1] != c) cells[n++] = c;
        th_world_step(w);
    }
    return n;
}

static void wall_follow_matches_reference(bool ped, bool right, uint64_t seed) {
    enum { W = 15, H = 15, MAX = 4096 };
    uint8_t open[W * H];
    th_test_maze(open, W, H, seed);
    static int ref[MAX], got[MAX];
    const int exit_cell = (H - 2) * W + (W - 2);
    const int n_ref = ref_follow(open, W, H, 1, 1, 0, right, ref, MAX);
    /* The reference reaches the exit (a perfect maze's walls are one connected piece). */
    int to_exit = 0;
    while (to_exit < n_ref && ref[to_exit] != exit_cell) to_exit++;
    ck_assert_int_lt(to_exit, n_ref);
    const int want = to_exit + 1;

    th_world *w = th_test_open_cells(th_test_metre_world(1, 1, W, H), open);
    th_world_set_validation(w, true);
    th_crowd_def d = model_def(ped);
    d.goal.kind = TH_GOAL_WALL_FOLLOW;
    d.goal.hand = right ? TH_HAND_RIGHT : TH_HAND_LEFT;
    th_error err;
    const int crowd = IDX(th_world_add_crowd(w, &d, &err));
    ck_assert_msg(crowd >= 0, "%s", err.message);
    const th_agent_id id =
        th_world_add_agent(w, CROWD_ID(crowd), th_v2(1.5f, 1.5f), th_v2(0, 0), &err);
    ck_assert(th_agent_id_valid(id));
    /* A cell a second is slow for both models; 4x that is the budget. */
    const int n = walk_cells(w, id, W, got, want, want * 4 * 60);
    ck_assert_msg(th_world_validation_error(w) == NULL, "%s", th_world_validation_error(w));
    ck_assert_msg(n == want, "%s %s hand: %d cells of %d to the exit", ped ? "pedestrian" : "boid",
                  right ? "right" : "left", n, want);
    for (int i = 0; i < want; i++) {
        ck_assert_msg(got[i] == ref[i], "%s %s hand, cell %d: (%d, %d), reference (%d, %d)",
                      ped ? "pedestrian" : "boid", right ? "right" : "left", i, got[i] % W,
                      got[i] / W, ref[i] % W, ref[i] / W);
    }
    ck_assert_int_eq(got[want - 1], exit_cell);
    th_world_destroy(w);
}

START_TEST(wall_follower_visits_the_reference_cells_to_the_exit) {
    for (uint64_t seed = 1; seed <= 3; seed++) {
        wall_follow_matches_reference(true, true, seed);
        wall_follow_matches_reference(true, false, seed);
        wall_follow_matches_reference(false, true, seed);
        wall_follow_matches_reference(false, false, seed);
    }
}
END_TEST

/* ---- crash and turn ---------------------------------------------------------------------- */

/* A 100 x 24 m room with a block at x 18..23, y 6..15: walkers start west of it heading east. */
static void room_with_block(uint8_t *open, int W, int H) {
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            const bool edge = x == 0 || y == 0 || x == W - 1 || y == H - 1;
            const bool block = x >= 18 && x <= 23 && y >= 6 && y <= 15;
            open[y * W + x] = !edge && !block;
        }
    }
}

static void crash_and_turn_goes_round(bool ped, bool right) {
    enum { W = 100, H = 24 };
    uint8_t open[W * H];
    room_with_block(open, W, H);
    th_world *w = th_test_open_cells(th_test_metre_world(1, 1, W, H), open);
    th_world_set_validation(w, true);
    th_crowd_def d = model_def(ped);
    d.goal.kind = TH_GOAL_CRASH_AND_TURN;
    d.goal.heading = th_v2(2.0f, 0.0f);
    d.goal.hand = right ? TH_HAND_RIGHT : TH_HAND_LEFT;
    th_error err;
    const int crowd = IDX(th_world_add_crowd(w, &d, &err));
    ck_assert_msg(crowd >= 0, "%s", err.message);
    th_agent_id ids[4];
    for (int i = 0; i < 4; i++) {
        ids[i] = th_world_add_agent(
            w, CROWD_ID(crowd), th_v2(3.5f + 2.0f * (float)i, 8.5f + (float)i), th_v2(0, 0), &err);
        ck_assert(th_agent_id_valid(ids[i]));
    }
    float min_y[4], max_y[4];
    for (int i = 0; i < 4; i++) {
        min_y[i] = INFINITY;
        max_y[i] = -INFINITY;
    }
    for (int s = 0; s < 50 * 60; s++) {
        th_world_step(w);
        for (int i = 0; i < 4; i++) {
            const th_vec2 p = agent(w, ids[i]).position;
            ck_assert_msg(open[cell_at(p, W)], "agent %d in the wall at (%g, %g)", i, (double)p.x,
                          (double)p.y);
            if (p.x >= 18.0f && p.x < 24.0f) { /* beside the block */
                if (p.y < min_y[i]) min_y[i] = p.y;
                if (p.y > max_y[i]) max_y[i] = p.y;
            }
        }
    }
    ck_assert_msg(th_world_validation_error(w) == NULL, "%s", th_world_validation_error(w));
    for (int i = 0; i < 4; i++) {
        const th_agent_state a = agent(w, ids[i]);
        /* Past the block, back on the heading: going east. */
        ck_assert_msg(a.position.x > 30.0f, "%s %s agent %d stuck at (%g, %g)",
                      ped ? "pedestrian" : "boid", right ? "right" : "left", i,
                      (double)a.position.x, (double)a.position.y);
        const float speed = th_v2_len(a.velocity);
        ck_assert_msg(speed > 0.3f && a.velocity.x > 0.9f * speed, "agent %d velocity (%g, %g)", i,
                      (double)a.velocity.x, (double)a.velocity.y);
        /* Right hand on the wall: it turned left, north of the block; left hand: south. */
        if (right)
            ck_assert_msg(min_y[i] > 15.5f, "agent %d went south of the block (y %g)", i,
                          (double)min_y[i]);
        else
            ck_assert_msg(max_y[i] < 6.5f, "agent %d went north of the block (y %g)", i,
                          (double)max_y[i]);
    }
    th_world_destroy(w);
}

/* The reference crash-and-turn walker for an eastward heading on the grid: east while the cell
 * ahead is open; at a blocked one, turn away from the hand and follow the outline by the wall
 * follower's rule, leaving it at the first cell after the crash cell whose east side is open. */
static int ref_crash_east(const uint8_t *open, int W, int x, int y, bool right, int *seq, int max) {
    static const int ddx[4] = {1, 0, -1, 0}, ddy[4] = {0, 1, 0, -1};
    int n = 0, dir = 0;
    bool following = false;
    seq[n++] = y * W + x;
    while (n < max) {
        if (!following) {
            if (open[y * W + x + 1]) {
                seq[n++] = y * W + ++x;
                continue;
            }
            following = true;
            dir = right ? 1 : 3;
        } else if (open[y * W + x + 1]) {
            following = false;
            continue;
        }
        const int tries[4] = {(dir + (right ? 3 : 1)) % 4, dir, (dir + (right ? 1 : 3)) % 4,
                              (dir + 2) % 4};
        int k = 0;
        while (k < 4 && !open[(y + ddy[tries[k]]) * W + x + ddx[tries[k]]]) k++;
        if (k == 4) break;
        dir = tries[k];
        x += ddx[dir];
        y += ddy[dir];
        seq[n++] = y * W + x;
    }
    return n;
}

START_TEST(crash_and_turn_visits_the_reference_cells) {
    enum { W = 64, H = 32, MAX = 4096 };
    static int ref[MAX], got[MAX];
    uint64_t rs = 12;
    for (int trial = 0; trial < 6; trial++) {
        /* A walled room with eight random blocks, none in the first three columns. */
        uint8_t open[W * H];
        for (int y = 0; y < H; y++) {
            for (int x = 0; x < W; x++) open[y * W + x] = x > 0 && y > 0 && x < W - 1 && y < H - 1;
        }
        for (int b = 0; b < 8; b++) {
            const int x0 = 4 + (int)(splitmix64(&rs) % (W - 14)),
                      y0 = 2 + (int)(splitmix64(&rs) % (H - 8));
            const int w = 1 + (int)(splitmix64(&rs) % 6), h = 1 + (int)(splitmix64(&rs) % 8);
            for (int y = y0; y < y0 + h && y < H - 2; y++) {
                for (int x = x0; x < x0 + w; x++) open[y * W + x] = 0;
            }
        }
        const int y = 3 + (int)(splitmix64(&rs) % (H - 6));
        /* Pedestrians: their walking direction is their goal's, so after leaving an outline
         * they walk the heading along the row they left from. A boid's inertia can carry it a
         * cell aside before it turns onto the heading (its cells are checked by the next
         * test). */
        const bool right = trial % 2 == 0, ped = true;
        /* Compared up to the first cell of the last three columns: at the room's east wall the
         * walker follows it for good. */
        int n_ref = ref_crash_east(open, W, 1, y, right, ref, MAX);
        int want = 0;
        while (want < n_ref && ref[want] % W < W - 4) want++;
        ck_assert_int_lt(want, n_ref);
        want++;
        th_world *w = th_test_open_cells(th_test_metre_world(1, 1, W, H), open);
        th_crowd_def d = model_def(ped);
        d.goal.kind = TH_GOAL_CRASH_AND_TURN;
        d.goal.heading = th_v2(1.0f, 0.0f);
        d.goal.hand = right ? TH_HAND_RIGHT : TH_HAND_LEFT;
        th_error err;
        const int crowd = IDX(th_world_add_crowd(w, &d, &err));
        ck_assert_msg(crowd >= 0, "%s", err.message);
        const th_agent_id id =
            th_world_add_agent(w, CROWD_ID(crowd), th_v2(1.5f, (float)y + 0.5f), th_v2(0, 0), &err);
        const int n = walk_cells(w, id, W, got, want, want * 4 * 60);
        ck_assert_msg(n == want, "trial %d: %d cells of %d", trial, n, want);
        for (int i = 0; i < want; i++) {
            ck_assert_msg(got[i] == ref[i],
                          "trial %d (%s, %s hand), cell %d: (%d, %d), reference (%d, %d)", trial,
                          ped ? "pedestrian" : "boid", right ? "right" : "left", i, got[i] % W,
                          got[i] / W, ref[i] % W, ref[i] / W);
        }
        th_world_destroy(w);
    }
}
END_TEST

START_TEST(crash_and_turn_goes_round_the_block_on_its_hand_side) {
    crash_and_turn_goes_round(true, true);
    crash_and_turn_goes_round(true, false);
    crash_and_turn_goes_round(false, true);
    crash_and_turn_goes_round(false, false);
}
END_TEST

/* ---- breadcrumbs --------------------------------------------------------------------------- */

/* Distance from p to segment ab. */
/* A hall with a block across the straight line from west to east, reaching `up` cells above
 * row 14 and `down` below it: the way round is shorter on the side it reaches less far. */
static void hall_with_block(uint8_t *open, int W, int H, int up, int down) {
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            const bool edge = x == 0 || y == 0 || x == W - 1 || y == H - 1;
            const bool block = x >= 28 && x <= 31 && y >= 14 - down && y <= 14 + up;
            open[y * W + x] = !edge && !block;
        }
    }
}

/* Crash and turn to a point: every walker goes round on the side `side` (+1 north, -1 south)
 * and ends within the point's reach (or pressed close behind those that are). */
static void crash_to_point(bool ped, int up, int down, th_hand hand, int side) {
    enum { W = 60, H = 30, N = 4 };
    uint8_t open[W * H];
    hall_with_block(open, W, H, up, down);
    th_world *w = th_test_open_cells(th_test_metre_world(2, 1, W, H), open);
    th_world_set_validation(w, true);
    th_crowd_def d = model_def(ped);
    d.goal.kind = TH_GOAL_CRASH_AND_TURN;
    d.goal.use_point = true;
    d.goal.point = th_v2(54.5f, 14.5f);
    d.goal.hand = hand;
    th_error err;
    const int crowd = IDX(th_world_add_crowd(w, &d, &err));
    ck_assert_msg(crowd >= 0, "%s", err.message);
    th_agent_id ids[N];
    for (int i = 0; i < N; i++) {
        ids[i] = th_world_add_agent(w, CROWD_ID(crowd), th_v2(3.5f + 2.0f * (float)i, 14.2f),
                                    th_v2(0, 0), &err);
        ck_assert(th_agent_id_valid(ids[i]));
    }
    bool north[N] = {false}, south[N] = {false};
    for (int s = 0; s < 80 * 60; s++) {
        th_world_step(w);
        for (int i = 0; i < N; i++) {
            const th_vec2 p = agent(w, ids[i]).position;
            ck_assert_msg(open[cell_at(p, W)], "agent %d in the wall at (%g, %g)", i, (double)p.x,
                          (double)p.y);
            if (p.x >= 28.0f && p.x < 32.0f) {
                north[i] |= p.y > 14.5f;
                south[i] |= p.y < 14.5f;
            }
        }
    }
    ck_assert_msg(th_world_validation_error(w) == NULL, "%s", th_world_validation_error(w));
    for (int i = 0; i < N; i++) {
        const th_agent_state a = agent(w, ids[i]);
        const float dist = th_v2_len(th_v2_sub(a.position, d.goal.point));
        ck_assert_msg(dist < 1.0f + 0.1f * N, "%s agent %d ended %g m from the point",
                      ped ? "pedestrian" : "boid", i, (double)dist);
        ck_assert_msg(side > 0 ? north[i] && !south[i] : south[i] && !north[i],
                      "%s agent %d, block %d up %d down, hand %d: passed %s%s",
                      ped ? "pedestrian" : "boid", i, up, down, (int)hand, north[i] ? "north " : "",
                      south[i] ? "south" : "");
    }
    th_world_destroy(w);
}

START_TEST(crash_and_turn_to_a_point_takes_the_nearer_side) {
    for (int ped = 0; ped < 2; ped++) {
        /* The block reaches 3 cells up and 8 down: north is nearer; then mirrored. */
        crash_to_point(ped, 3, 8, TH_HAND_NEAREST, +1);
        crash_to_point(ped, 8, 3, TH_HAND_NEAREST, -1);
        /* A fixed hand still goes its own way, the longer one here. */
        crash_to_point(ped, 3, 8, TH_HAND_LEFT, -1);
        crash_to_point(ped, 8, 3, TH_HAND_RIGHT, +1);
    }
}
END_TEST

static float seg_dist(th_vec2 p, th_vec2 a, th_vec2 b) {
    const th_vec2 ab = th_v2_sub(b, a), ap = th_v2_sub(p, a);
    float t = th_v2_dot(ap, ab) / th_v2_dot(ab, ab);
    t = t < 0.0f ? 0.0f : t > 1.0f ? 1.0f : t;
    return th_v2_len(th_v2_sub(p, th_v2_add(a, th_v2_scale(ab, t))));
}

static void breadcrumbs_keep_to_the_trail(bool ped) {
    /* A 40 x 40 m yard, a block at x 8..29, y 8..29; the target walks an L round its west
     * and south sides: down x = 3.5 from y = 36, then east along y = 3.5. The straight line
     * from the L's first leg to its second crosses the block; one that slides along the
     * block's walls instead is 4 m off the L. */
    enum { W = 40, H = 40 };
    uint8_t open[W * H];
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            const bool edge = x == 0 || y == 0 || x == W - 1 || y == H - 1;
            open[y * W + x] = !edge && !(x >= 8 && x <= 29 && y >= 8 && y <= 29);
        }
    }
    th_world *w = th_test_open_cells(th_test_metre_world(1, 1, W, H), open);
    th_world_set_validation(w, true);
    const th_vec2 L[3] = {th_v2(3.5f, 36.0f), th_v2(3.5f, 3.5f), th_v2(36.0f, 3.5f)};
    th_target_def td = {.kind = TH_TARGET_PATH, .points = L, .point_count = 3, .speed = 2.5f};
    th_error err;
    const int t = IDX(th_world_add_target(w, &td, &err));
    ck_assert_msg(t >= 0, "%s", err.message);
    th_crowd_def d = model_def(ped);
    d.goal.kind = TH_GOAL_BREADCRUMBS;
    d.goal.target = TARGET_ID(t);
    d.goal.spacing = 2.0f;
    d.goal.trail = 64;
    const int crowd = IDX(th_world_add_crowd(w, &d, &err));
    ck_assert_msg(crowd >= 0, "%s", err.message);
    enum { N = 5 };
    th_agent_id ids[N];
    for (int i = 0; i < N; i++) {
        ids[i] = th_world_add_agent(w, CROWD_ID(crowd), th_v2(3.5f, 36.6f + 0.4f * (float)i),
                                    th_v2(0, 0), &err);
        ck_assert(th_agent_id_valid(ids[i]));
    }
    float worst = 0.0f;
    th_vec2 crumbs[64];
    const th_vec2 top = th_v2(3.5f, 38.5f); /* the trail with the followers' start before it */
    for (int s = 0; s < 75 * 60; s++) {
        th_world_step(w);
        for (int i = 0; i < N; i++) {
            const th_vec2 p = agent(w, ids[i]).position;
            ck_assert_msg(open[cell_at(p, W)], "follower %d in the wall at (%g, %g)", i,
                          (double)p.x, (double)p.y);
            const float dist = fminf(seg_dist(p, top, L[1]), seg_dist(p, L[1], L[2]));
            if (dist > worst) worst = dist;
        }
        /* The ring holds at most `trail` crumbs, every one on the L. */
        const uint32_t held = th_world_breadcrumbs(w, CROWD_ID(crowd), crumbs, 64);
        ck_assert_uint_le(held, 64);
        for (uint32_t k = 0; k < held; k++) {
            CHECK(fminf(seg_dist(crumbs[k], L[0], L[1]), seg_dist(crumbs[k], L[1], L[2])) < 1e-3f);
        }
    }
    ck_assert_msg(th_world_validation_error(w) == NULL, "%s", th_world_validation_error(w));
    /* Never farther from the trail than a body or two: no corner cut (cutting it would take a
     * follower 10 m and more off the L). */
    ck_assert_msg(worst < 1.5f, "%s follower %g m off the trail", ped ? "pedestrian" : "boid",
                  (double)worst);
    /* They got round: near the end of the L (the target, faster than they, stopped there at
     * 24 s; the followers lag ever farther behind it, so their newest crumb is round the corner
     * long before they are). */
    for (int i = 0; i < N; i++) {
        const th_vec2 p = agent(w, ids[i]).position;
        ck_assert_msg(p.x > 28.0f && p.y < 6.0f, "follower %d at (%g, %g)", i, (double)p.x,
                      (double)p.y);
    }
    th_world_destroy(w);
}

/* A point target crossing open ground at 2 m/s: crumbs every metre (to within the 3.3 cm it
 * moves per step), at most `trail` kept, the newest where the target was. */
START_TEST(breadcrumb_ring_keeps_the_newest_crumbs_a_spacing_apart) {
    th_world_def wd = th_default_world_def();
    wd.threads = 1;
    th_world *w = th_world_create(&wd, NULL);
    th_target_def td = {
        .kind = TH_TARGET_POINT, .position = {1.0f, 50.0f}, .velocity = {2.0f, 0.0f}};
    th_error err;
    const int t = IDX(th_world_add_target(w, &td, &err));
    th_crowd_def d = th_default_crowd_def();
    d.goal = (th_goal_def){
        .kind = TH_GOAL_BREADCRUMBS, .target = TARGET_ID(t), .spacing = 1.0f, .trail = 8};
    const int crowd = IDX(th_world_add_crowd(w, &d, &err));
    ck_assert_msg(crowd >= 0, "%s", err.message);
    ck_assert_uint_eq(th_world_breadcrumbs(w, CROWD_ID(crowd), NULL, 0), 0);
    th_vec2 c[8], ref[700];
    uint32_t nref = 0;
    for (int s = 1; s <= 600; s++) {
        th_world_step(w);
        /* The rule, replayed on the target's positions: a crumb where it was at the step's
         * start, once a metre or more from the last. */
        th_vec2 pos;
        ck_assert(th_world_get_target(w, TARGET_ID(t), &pos, NULL));
        if (nref == 0 || th_v2_len(th_v2_sub(pos, ref[nref - 1])) >= 1.0f) ref[nref++] = pos;
        const uint32_t held = th_world_breadcrumbs(w, CROWD_ID(crowd), c, 8);
        ck_assert_uint_eq(held, nref < 8 ? nref : 8);
        for (uint32_t k = 0; k < held; k++) {
            CHECK(c[k].x == ref[nref - held + k].x && c[k].y == ref[nref - held + k].y);
            if (k > 0) {
                const float gap = c[k].x - c[k - 1].x;
                CHECK_MSG(gap >= 1.0f - 1e-4f && gap < 1.0f + 2.0f / 60.0f + 1e-4f, "gap %g",
                          (double)gap);
            }
        }
    }
    ck_assert_uint_eq(th_world_breadcrumbs(w, CROWD_ID(crowd), c, 8), 8);
    ck_assert_float_gt(c[0].x, 10.0f); /* the oldest were overwritten */
    th_world_destroy(w);
}
END_TEST

START_TEST(breadcrumb_followers_keep_to_the_trail_round_the_corner) {
    breadcrumbs_keep_to_the_trail(true);
    breadcrumbs_keep_to_the_trail(false);
}
END_TEST

/* ---- waypoints ------------------------------------------------------------------------------ */

/* Floyd-Warshall with path reconstruction, in doubles. */
static void floyd_warshall(int n, const double *len, double *d, int *nxt) {
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            d[i * n + j] = i == j ? 0.0 : len[i * n + j];
            nxt[i * n + j] = i == j ? j : isfinite(len[i * n + j]) ? j : -1;
        }
    }
    for (int k = 0; k < n; k++) {
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                if (d[i * n + k] + d[k * n + j] < d[i * n + j]) {
                    d[i * n + j] = d[i * n + k] + d[k * n + j];
                    nxt[i * n + j] = nxt[i * n + k];
                }
            }
        }
    }
}

START_TEST(next_hop_table_matches_floyd_warshall_on_random_graphs) {
    uint64_t rs = 77;
    for (int trial = 0; trial < 12; trial++) {
        const int n = trial == 11 ? 256 : 1 + (int)(splitmix64(&rs) % 60);
        const double p = (double)(splitmix64(&rs) % 100) / 400.0 + 2.0 / n; /* sparse to dense */
        th_vec2 *nodes = malloc(sizeof *nodes * (size_t)n);
        uint32_t *edges = malloc(sizeof *edges * 2 * (size_t)n * n);
        double *len = malloc(sizeof *len * (size_t)n * n), *d = malloc(sizeof *d * (size_t)n * n);
        int *nxt = malloc(sizeof *nxt * (size_t)n * n);
        for (int i = 0; i < n; i++) {
            nodes[i] = th_v2((float)(splitmix64(&rs) % 100000) / 1000.0f,
                             (float)(splitmix64(&rs) % 100000) / 1000.0f);
        }
        for (int k = 0; k < n * n; k++) len[k] = INFINITY;
        uint32_t ec = 0;
        for (int a = 0; a < n; a++) {
            for (int b = a + 1; b < n; b++) {
                if ((double)(splitmix64(&rs) % 1000000) / 1e6 >= p) continue;
                /* Either order: the graph is undirected. */
                const bool swap = splitmix64(&rs) & 1;
                edges[2 * ec] = (uint32_t)(swap ? b : a);
                edges[2 * ec + 1] = (uint32_t)(swap ? a : b);
                ec++;
                len[a * n + b] = len[b * n + a] =
                    hypot((double)nodes[a].x - nodes[b].x, (double)nodes[a].y - nodes[b].y);
            }
        }
        floyd_warshall(n, len, d, nxt);

        th_world_def wd = th_default_world_def();
        wd.threads = 1;
        th_world *w = th_world_create(&wd, NULL);
        th_crowd_def cd = th_default_crowd_def();
        cd.goal.kind = TH_GOAL_WAYPOINTS;
        cd.goal.nodes = nodes;
        cd.goal.node_count = (uint32_t)n;
        cd.goal.edges = edges;
        cd.goal.edge_count = ec;
        cd.goal.destination = (uint32_t)(splitmix64(&rs) % (uint64_t)n);
        th_error err;
        const int crowd = IDX(th_world_add_crowd(w, &cd, &err));
        ck_assert_msg(crowd >= 0, "%s", err.message);
        /* The world keeps its own copies. */
        memset(nodes, 0xff, sizeof *nodes * (size_t)n);
        memset(edges, 0xff, sizeof *edges * 2 * ec);
        int reachable = 0;
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                uint32_t hop;
                float cost;
                const bool ok = th_world_waypoint_hop(w, CROWD_ID(crowd), (uint32_t)i, (uint32_t)j,
                                                      &hop, &cost);
                CHECK_MSG(ok == isfinite(d[i * n + j]), "n %d: %d -> %d reachable %d, reference %g",
                          n, i, j, ok, d[i * n + j]);
                if (!ok) continue;
                reachable++;
                CHECK_MSG(fabs(cost - d[i * n + j]) <= 1e-5 * (1.0 + d[i * n + j]),
                          "n %d: %d -> %d costs %g, reference %g", n, i, j, (double)cost,
                          d[i * n + j]);
                /* The same path, hop by hop, and its length the cost. */
                int a = i, hops = 0;
                double walked = 0.0;
                while (a != j && hops <= n) {
                    uint32_t h;
                    ck_assert(th_world_waypoint_hop(w, CROWD_ID(crowd), (uint32_t)a, (uint32_t)j,
                                                    &h, NULL));
                    CHECK_MSG((int)h == nxt[a * n + j],
                              "n %d: %d -> %d hops %d at %d, reference %d", n, i, j, h, a,
                              nxt[a * n + j]);
                    CHECK(isfinite(len[a * n + (int)h]));
                    walked += len[a * n + (int)h];
                    a = (int)h;
                    hops++;
                }
                CHECK(a == j);
                CHECK(fabs(walked - d[i * n + j]) <= 1e-9 * (1.0 + walked));
            }
        }
        ck_assert_int_ge(reachable, n);
        ck_assert(!th_world_waypoint_hop(w, CROWD_ID(crowd), (uint32_t)n, 0, NULL, NULL));
        th_world_destroy(w);
        free(nodes);
        free(edges);
        free(len);
        free(d);
        free(nxt);
    }
}
END_TEST

/* Crowds over the same graph share its table; distinct graphs have a world-wide budget. */
START_TEST(waypoint_tables_are_shared_and_budgeted) {
    th_world_def wd = th_default_world_def();
    wd.threads = 1;
    th_world *w = th_world_create(&wd, NULL);
    static th_vec2 nodes[256];
    for (int i = 0; i < 256; i++)
        nodes[i] = th_v2((float)(i % 16) * 6.0f + 1.0f, (float)(i / 16) * 6.0f + 1.0f);
    th_crowd_def d = th_default_crowd_def();
    d.goal = (th_goal_def){.kind = TH_GOAL_WAYPOINTS, .nodes = nodes, .node_count = 256};
    th_error err;
    /* Four crowds, four destinations, one table: 65,536 pairs in all. */
    for (uint32_t k = 0; k < 4; k++) {
        d.goal.destination = 85 * k;
        ck_assert_msg(IDX(th_world_add_crowd(w, &d, &err)) == (int)k, "%s", err.message);
    }
    for (uint32_t i = 0; i < 256; i += 17) {
        for (uint32_t j = 0; j < 256; j += 13) {
            uint32_t h0, h3;
            float c0, c3;
            ck_assert(th_world_waypoint_hop(w, CROWD_ID(0), i, j, &h0, &c0));
            ck_assert(th_world_waypoint_hop(w, CROWD_ID(3), i, j, &h3, &c3));
            ck_assert_uint_eq(h0, h3);
            ck_assert_float_eq(c0, c3);
        }
    }
    /* Another graph (one node moved) would need a second table. */
    nodes[5].x += 0.5f;
    d.goal.destination = 0;
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &d, &err)), -1);
    TH_TEST_ERR(err, TH_ERR_LIMIT);
    d.goal.node_count = 1;
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &d, &err)), -1);
    th_world_destroy(w);
}
END_TEST

/* A 40 x 30 m walled yard split by two long walls with gaps at opposite ends (an S): from the
 * south-west to the north-east every straight line meets a wall. */
static void s_yard(uint8_t *open, int W, int H) {
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            const bool edge = x == 0 || y == 0 || x == W - 1 || y == H - 1;
            const bool lower = y == 10 && x < 32;
            const bool upper = y == 20 && x > 7;
            open[y * W + x] = !edge && !lower && !upper;
        }
    }
}

static const th_vec2 k_s_nodes[] = {
    {4.5f, 4.5f},   {20.5f, 5.5f}, {35.5f, 5.5f}, {35.5f, 15.5f},
    {20.5f, 15.5f}, {4.5f, 15.5f}, {4.5f, 25.5f}, {35.5f, 25.5f},
};

static void waypoint_walkers_reach(bool ped) {
    enum { W = 40, H = 30 };
    uint8_t open[W * H];
    s_yard(open, W, H);
    th_world *w = th_test_open_cells(th_test_metre_world(1, 1, W, H), open);
    th_world_set_validation(w, true);
    th_crowd_def d = model_def(ped);
    d.goal.kind = TH_GOAL_WAYPOINTS;
    d.goal.nodes = k_s_nodes;
    d.goal.node_count = 8;
    d.goal.destination = 7;
    d.goal.radius = 1.0f;
    th_error err;
    const int crowd = IDX(th_world_add_crowd(w, &d, &err));
    ck_assert_msg(crowd >= 0, "%s", err.message);
    /* Automatic edges: the route from node 0 goes through the two gaps, the long way. */
    float cost;
    ck_assert(th_world_waypoint_hop(w, CROWD_ID(crowd), 0, 7, NULL, &cost));
    ck_assert_float_gt(cost, 60.0f);
    uint32_t hop;
    ck_assert(th_world_waypoint_hop(w, CROWD_ID(crowd), 0, 7, &hop, NULL));
    ck_assert(hop == 1 || hop == 2);
    const th_vec2 starts[4] = {th_v2(2.5f, 2.5f), th_v2(12.5f, 8.5f), th_v2(30.5f, 12.5f),
                               th_v2(8.5f, 17.5f)};
    th_agent_id ids[4];
    for (int i = 0; i < 4; i++) {
        ids[i] = th_world_add_agent(w, CROWD_ID(crowd), starts[i], th_v2(0, 0), &err);
        ck_assert(th_agent_id_valid(ids[i]));
    }
    for (int s = 0; s < 130 * 60; s++) th_world_step(w);
    ck_assert_msg(th_world_validation_error(w) == NULL, "%s", th_world_validation_error(w));
    for (int i = 0; i < 4; i++) {
        const th_vec2 p = agent(w, ids[i]).position;
        ck_assert_msg(th_v2_len(th_v2_sub(p, k_s_nodes[7])) < 2.5f, "%s walker %d at (%g, %g)",
                      ped ? "pedestrian" : "boid", i, (double)p.x, (double)p.y);
    }
    th_world_destroy(w);
}

/* A 20 x 10 m room with a wall at x = 5 below y = 7: node 0 just behind it is the nearest to
 * the agent, node 1 the nearest it can see. */
START_TEST(waypoint_walkers_enter_at_the_nearest_node_in_sight) {
    enum { W = 20, H = 10 };
    uint8_t open[W * H];
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) open[y * W + x] = !(x == 5 && y < 7);
    }
    th_world *w = th_test_open_cells(th_test_metre_world(1, 1, W, H), open);
    static const th_vec2 nodes[4] = {{4.5f, 2.5f}, {12.5f, 2.5f}, {4.5f, 8.5f}, {6.5f, 8.5f}};
    th_crowd_def d = th_default_pedestrian_def();
    d.goal =
        (th_goal_def){.kind = TH_GOAL_WAYPOINTS, .nodes = nodes, .node_count = 4, .destination = 0};
    th_error err;
    const int crowd = IDX(th_world_add_crowd(w, &d, &err));
    ck_assert_msg(crowd >= 0, "%s", err.message);
    /* 0 -> 2 -> 3 (both see 1 too) -> ... : the hidden node is reached through the gap. */
    uint32_t hop;
    ck_assert(th_world_waypoint_hop(w, CROWD_ID(crowd), 1, 0, &hop, NULL));
    ck_assert(hop == 2 || hop == 3);
    /* Moving west at the start, away from node 1: still node 1 from the first step on. */
    const th_agent_id id =
        th_world_add_agent(w, CROWD_ID(crowd), th_v2(6.5f, 2.5f), th_v2(-1, 0), &err);
    th_world_step(w);
    ck_assert_uint_eq(agent(w, id).waypoint, 1);
    ck_assert(!agent(w, id).stranded);
    float max_y = 0.0f;
    for (int s = 0; s < 40 * 60; s++) {
        th_world_step(w);
        const th_vec2 p = agent(w, id).position;
        ck_assert_msg(open[cell_at(p, W)], "in the wall at (%g, %g)", (double)p.x, (double)p.y);
        if (p.y > max_y) max_y = p.y;
    }
    /* Arrived at node 0, the long way: through the gap above the wall. */
    ck_assert_float_gt(max_y, 7.0f);
    ck_assert_float_lt(th_v2_len(th_v2_sub(agent(w, id).position, nodes[0])), 1.0f);
    ck_assert_uint_eq(agent(w, id).waypoint, 0);
    th_world_destroy(w);
}
END_TEST

START_TEST(waypoint_walkers_reach_the_destination_round_the_walls) {
    waypoint_walkers_reach(true);
    waypoint_walkers_reach(false);
}
END_TEST

/* ---- determinism and allocation --------------------------------------------------------- */

enum { MOVER_CRASH, MOVER_WALL, MOVER_CRUMBS, MOVER_WAYPOINTS, MOVER_CRASH_POINT, MOVERS };

/* 1,100 agents (three chunks) of one mover in the S yard. */
static th_world *mover_world(int mover, bool ped, uint32_t threads) {
    enum { W = 40, H = 30 };
    uint8_t open[W * H];
    s_yard(open, W, H);
    th_world *w = th_test_open_cells(th_test_metre_world(threads, 1, W, H), open);
    th_crowd_def d = model_def(ped);
    th_error err;
    switch (mover) {
    case MOVER_CRASH:
        d.goal.kind = TH_GOAL_CRASH_AND_TURN;
        d.goal.heading = th_v2(1.0f, 0.4f);
        d.goal.hand = TH_HAND_LEFT;
        break;
    case MOVER_CRASH_POINT:
        d.goal.kind = TH_GOAL_CRASH_AND_TURN;
        d.goal.use_point = true;
        d.goal.point = th_v2(20.5f, 15.5f);
        d.goal.hand = TH_HAND_NEAREST;
        break;
    case MOVER_WALL: d.goal.kind = TH_GOAL_WALL_FOLLOW; break;
    case MOVER_CRUMBS: {
        static const th_vec2 path[4] = {{3, 3}, {36, 3}, {36, 17}, {3, 17}};
        th_target_def td = {
            .kind = TH_TARGET_PATH, .points = path, .point_count = 4, .speed = 1.5f, .loop = true};
        d.goal.kind = TH_GOAL_BREADCRUMBS;
        d.goal.target = th_world_add_target(w, &td, &err);
        d.goal.trail = 32;
        break;
    }
    default:
        d.goal.kind = TH_GOAL_WAYPOINTS;
        d.goal.nodes = k_s_nodes;
        d.goal.node_count = 8;
        d.goal.destination = 7;
        break;
    }
    const int crowd = IDX(th_world_add_crowd(w, &d, &err));
    ck_assert_msg(crowd >= 0, "%s", err.message);
    uint64_t rs = 5;
    for (int i = 0; i < 1100;) {
        const th_vec2 p = th_v2((float)(splitmix64(&rs) % 38000) / 1000.0f + 1.0f,
                                (float)(splitmix64(&rs) % 28000) / 1000.0f + 1.0f);
        if (!open[cell_at(p, W)]) continue;
        const float a = (float)(splitmix64(&rs) % 6283) / 1000.0f;
        ck_assert(th_agent_id_valid(
            th_world_add_agent(w, CROWD_ID(crowd), p, th_v2(cosf(a), sinf(a)), &err)));
        i++;
    }
    return w;
}

START_TEST(every_mover_same_hash_on_1_2_3_threads) {
    for (int mover = 0; mover < MOVERS; mover++) {
        for (int ped = 0; ped < 2; ped++) {
            uint64_t h[3];
            for (uint32_t t = 1; t <= 3; t++) {
                th_world *w = mover_world(mover, ped, t);
                th_world_set_validation(w, true);
                for (int s = 0; s < th_test_steps(90); s++) th_world_step(w);
                ck_assert_msg(th_world_validation_error(w) == NULL, "%s",
                              th_world_validation_error(w));
                h[t - 1] = th_world_hash(w);
                th_world_destroy(w);
            }
            ck_assert_msg(h[1] == h[0] && h[2] == h[0],
                          "mover %d, %s: hashes differ across threads", mover,
                          ped ? "pedestrians" : "boids");
        }
    }
}
END_TEST

START_TEST(no_allocation_in_a_step) {
    for (int mover = 0; mover < MOVERS; mover++) {
        th_world *w = mover_world(mover, mover % 2 == 0, 2);
        th_world_step(w);
        const uint64_t before = th_alloc_count();
        for (int s = 0; s < th_test_steps(30); s++) th_world_step(w);
        ck_assert_msg(th_alloc_count() == before, "mover %d allocated in a step", mover);
        th_world_destroy(w);
    }
}
END_TEST

/* ---- the library scenes do what they say ---------------------------------------------- */

static th_world *load_library(const char *name, th_scene_info *info) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", THRONG_SCENES_DIR, name);
    th_error err;
    th_world *w = th_scene_load(path, &(th_scene_opts){.threads = 2}, info, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    return w;
}

START_TEST(library_wall_followers_pass_the_exit) {
    th_scene_info info;
    th_world *w = load_library("wall_follow.yaml", &info);
    int cols, rows;
    float cell;
    ck_assert(th_world_map_size(w, &cols, &rows, &cell));
    /* The exit, E: the top right open cell. */
    const int exit_cell = (rows - 2) * cols + (cols - 2);
    bool passed[64] = {false};
    for (uint64_t s = 0; s < info.steps; s++) {
        th_world_step(w);
        const th_agent_view v = th_world_agents(w);
        for (uint32_t k = 0; k < v.count; k++) {
            if (cell_at(th_v2(v.px[k], v.py[k]), cols) == exit_cell)
                passed[th_test_slot(v.id[k])] = true;
        }
    }
    for (uint32_t id = 0; id < info.agents; id++)
        ck_assert_msg(passed[id], "agent %u never passed the exit", id);
    th_world_destroy(w);
}
END_TEST

START_TEST(library_waypoint_walkers_arrive) {
    th_scene_info info;
    th_world *w = load_library("waypoints.yaml", &info);
    for (uint64_t s = 0; s < info.steps; s++) th_world_step(w);
    ck_assert_uint_eq(th_world_get_stats(w).stranded, 0);
    const th_agent_view v = th_world_agents(w);
    for (uint32_t k = 0; k < v.count; k++) {
        const th_crowd_def *d = th_world_get_crowd(w, CROWD_ID(v.crowd[k]));
        const th_vec2 dest = d->goal.nodes[d->goal.destination];
        const float r = d->goal.radius > 0.0f ? d->goal.radius : 1.0f;
        const float off = th_v2_len(th_v2_sub(th_v2(v.px[k], v.py[k]), dest));
        ck_assert_msg(off < r + 1.0f, "agent %u of %s %g m from the destination",
                      th_test_slot(v.id[k]), d->name, (double)off);
    }
    th_world_destroy(w);
}
END_TEST

/* ---- bad input ------------------------------------------------------------------------------ */

START_TEST(bad_defs_are_refused_with_a_reason) {
    enum { W = 10, H = 10 };
    uint8_t open[W * H];
    memset(open, 1, sizeof open);
    open[5 * W + 5] = 0;
    th_world *w = th_test_open_cells(th_test_metre_world(1, 1, W, H), open);
    th_world_def wd = th_default_world_def();
    wd.threads = 1;
    th_world *bare = th_world_create(&wd, NULL);
    th_error err;
    th_crowd_def d = th_default_crowd_def();
    static const th_vec2 nodes[2] = {{1.5f, 1.5f}, {5.5f, 5.5f}};
    static const uint32_t self_loop[2] = {1, 1};
    const struct {
        th_world *w;
        th_goal_def g;
        const char *says; /* the message names the field */
        th_error_code code;
    } cases[] = {
        {w, {.kind = TH_GOAL_CRASH_AND_TURN}, "heading", TH_ERR_INVALID},
        {w, {.kind = TH_GOAL_CRASH_AND_TURN, .heading = {NAN, 0}}, "heading", TH_ERR_INVALID},
        {w,
         {.kind = TH_GOAL_CRASH_AND_TURN, .heading = {1, 0}, .lookahead = -1},
         "lookahead",
         TH_ERR_INVALID},
        {w, {.kind = TH_GOAL_WALL_FOLLOW, .hand = (th_hand)7}, "hand", TH_ERR_INVALID},
        {w,
         {.kind = TH_GOAL_WALL_FOLLOW, .hand = TH_HAND_NEAREST},
         "crash and turn's",
         TH_ERR_INVALID},
        {w,
         {.kind = TH_GOAL_CRASH_AND_TURN, .use_point = true, .point = {5.5f, 5.5f}},
         "blocked cell",
         TH_ERR_INVALID},
        {w,
         {.kind = TH_GOAL_CRASH_AND_TURN, .use_point = true, .point = {12, 5}},
         "outside the world",
         TH_ERR_INVALID},
        {w,
         {.kind = TH_GOAL_CRASH_AND_TURN, .use_point = true, .point = {2, 2}, .heading = {1, 0}},
         "not both",
         TH_ERR_INVALID},
        {w,
         {.kind = TH_GOAL_CRASH_AND_TURN, .use_point = true, .point = {2, 2}, .arrive_radius = -1},
         "arrive_radius",
         TH_ERR_INVALID},
        {w, {.kind = TH_GOAL_WALL_FOLLOW, .radius = 2000}, "radius", TH_ERR_INVALID},
        {bare, {.kind = TH_GOAL_WALL_FOLLOW}, "needs a map", TH_ERR_STATE},
        {w, {.kind = TH_GOAL_BREADCRUMBS, .target = TARGET_ID(3)}, "target 3", TH_ERR_HANDLE},
        {w,
         {.kind = TH_GOAL_WAYPOINTS, .nodes = nodes, .node_count = 0},
         "1 to 256 nodes",
         TH_ERR_INVALID},
        {w,
         {.kind = TH_GOAL_WAYPOINTS, .nodes = nodes, .node_count = 2, .destination = 2},
         "destination 2",
         TH_ERR_INVALID},
        {w,
         {.kind = TH_GOAL_WAYPOINTS, .nodes = nodes, .node_count = 2},
         "inside a wall",
         TH_ERR_BLOCKED},
        {w,
         {.kind = TH_GOAL_WAYPOINTS,
          .nodes = nodes,
          .node_count = 1,
          .edges = self_loop,
          .edge_count = 1},
         "edge 0",
         TH_ERR_INVALID},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        d.goal = cases[i].g;
        err.message[0] = 0;
        ck_assert_int_eq(IDX(th_world_add_crowd(cases[i].w, &d, &err)), -1);
        TH_TEST_ERR(err, cases[i].code);
        ck_assert_msg(strstr(err.message, cases[i].says), "case %zu: '%s' lacks '%s'", i,
                      err.message, cases[i].says);
    }
    /* A shelter target drops no trail. */
    th_bunker_def bd = {.name = "b", .x0 = 0, .y0 = 0, .x1 = 0, .y1 = 0};
    ck_assert_int_ge(IDX(th_world_add_bunker(w, &bd, &err)), 0);
    th_target_def sh = {.kind = TH_TARGET_SHELTER};
    const int t = IDX(th_world_add_target(w, &sh, &err));
    d.goal = (th_goal_def){.kind = TH_GOAL_BREADCRUMBS, .target = TARGET_ID(t)};
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &d, &err)), -1);
    TH_TEST_ERR(err, TH_ERR_INVALID);
    ck_assert_uint_eq(th_world_crowd_count(w), 0);
    th_world_destroy(w);
    th_world_destroy(bare);
}
END_TEST

static th_world *load_text(const char *yaml, th_error *err) {
    return th_scene_load(th_test_write_text("scene.yaml", yaml), &(th_scene_opts){.threads = 1},
                         NULL, err);
}

#define MAP_HEAD                         \
    "name: t\n"                          \
    "map:\n"                             \
    "  cell_size: 1\n"                   \
    "  legend: {'#': wall, '.': open}\n" \
    "  ascii: |\n"                       \
    "    ######\n"                       \
    "    #....#\n"                       \
    "    #.##.#\n"                       \
    "    #....#\n"                       \
    "    ######\n"

START_TEST(scene_keys_parse_and_errors_point_at_the_value) {
    th_error err;
    th_world *w = load_text(
        MAP_HEAD
        "targets: [{name: lead, path: [[1.5, 1.5], [4.5, 1.5]]}]\n"
        "crowds:\n"
        "  - {name: a, count: 3, spawn: {rect: [1, 1, 4, 1]}, goal: {crash_and_turn: {heading: [1, 0], hand: left, lookahead: 1.5}}}\n"
        "  - {name: b, count: 3, spawn: {rect: [1, 1, 4, 1]}, goal: {wall_follow: {hand: right, radius: 0.2}}}\n"
        "  - {name: c, count: 3, spawn: {rect: [1, 1, 4, 1]}, goal: {breadcrumbs: {target: lead, spacing: 0.5, trail: 16}}}\n"
        "  - {name: d, count: 3, spawn: {rect: [1, 1, 4, 1]}, goal: {waypoints: {nodes: [[1.5, 1.5], [4.5, 3.5]], edges: [[0, 1]], destination: 1}}}\n",
        &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    const th_crowd_def *a = th_world_get_crowd(w, CROWD_ID(0)),
                       *b = th_world_get_crowd(w, CROWD_ID(1)),
                       *c = th_world_get_crowd(w, CROWD_ID(2)),
                       *dd = th_world_get_crowd(w, CROWD_ID(3));
    ck_assert_int_eq(a->goal.kind, TH_GOAL_CRASH_AND_TURN);
    ck_assert_int_eq(a->goal.hand, TH_HAND_LEFT);
    ck_assert_float_eq(a->goal.lookahead, 1.5f);
    ck_assert_int_eq(b->goal.kind, TH_GOAL_WALL_FOLLOW);
    ck_assert_float_eq(b->goal.radius, 0.2f);
    ck_assert_int_eq(c->goal.kind, TH_GOAL_BREADCRUMBS);
    ck_assert_uint_eq(c->goal.trail, 16);
    ck_assert_int_eq(dd->goal.kind, TH_GOAL_WAYPOINTS);
    ck_assert_uint_eq(dd->goal.node_count, 2);
    ck_assert_float_eq(dd->goal.nodes[1].x, 4.5f);
    ck_assert_uint_eq(dd->goal.edges[1], 1);
    float cost;
    ck_assert(th_world_waypoint_hop(w, CROWD_ID(3), 0, 1, NULL, &cost));
    ck_assert_float_eq_tol(cost, sqrtf(13.0f), 1e-5f);
    for (int s = 0; s < 30; s++) th_world_step(w);
    th_world_destroy(w);

    static const struct {
        const char *crowd;
        unsigned line, column;
        const char *says;
    } bad[] = {
        {"  - {name: a, count: 1, spawn: {rect: [1, 1, 4, 1]}, goal: {crash_and_turn: {hand: right}}}\n",
         13, 77, "missing"},
        {"  - {name: a, count: 1, spawn: {rect: [1, 1, 4, 1]}, goal: {crash_and_turn: {heading: [0, 0]}}}\n",
         13, 87, "non-zero"},
        {"  - {name: a, count: 1, spawn: {rect: [1, 1, 4, 1]}, goal: {wall_follow: {hand: middle}}}\n",
         13, 81, "expected right or left"},
        {"  - {name: a, count: 1, spawn: {rect: [1, 1, 4, 1]}, goal: {wall_folow: {}}}\n", 13, 61,
         "did you mean 'wall_follow'"},
        {"  - {name: a, count: 1, spawn: {rect: [1, 1, 4, 1]}, goal: {wall_follow: {}, route: [[1, 1]]}}\n",
         13, 60, "exactly one of"},
        {"  - {name: a, count: 1, spawn: {rect: [1, 1, 4, 1]}, goal: {breadcrumbs: {target: nobody}}}\n",
         13, 83, "name of a target"},
        {"  - {name: a, count: 1, spawn: {rect: [1, 1, 4, 1]}, goal: {waypoints: {nodes: [[1.5, 1.5], [2.5, 2.5]], destination: 0}}}\n",
         13, 93, "inside a wall"},
        {"  - {name: a, count: 1, spawn: {rect: [1, 1, 4, 1]}, goal: {waypoints: {nodes: [[1.5, 1.5]], destination: 1}}}\n",
         13, 107, "whole number"},
        {"  - {name: a, count: 1, spawn: {rect: [1, 1, 4, 1]}, goal: {waypoints: {nodes: [[1.5, 1.5], [4.5, 1.5]], edges: [[0, 0]], destination: 1}}}\n",
         13, 114, "two different nodes"},
        {"  - {name: a, count: 1, spawn: {rect: [1, 1, 4, 1]}, goal: {waypoints: {nodes: [[1.5, 1.5]], edges: some, destination: 0}}}\n",
         13, 101, "expected auto"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char yaml[1024];
        snprintf(yaml, sizeof yaml,
                 MAP_HEAD "targets: [{name: lead, point: [1.5, 1.5]}]\ncrowds:\n%s", bad[i].crowd);
        ck_assert_ptr_null(load_text(yaml, &err));
        char where[64];
        snprintf(where, sizeof where, "scene.yaml:%u:%u: ", bad[i].line, bad[i].column);
        ck_assert_msg(strstr(err.message, where) && strstr(err.message, bad[i].says),
                      "case %zu: '%s' lacks '%s' or '%s'", i, err.message, where, bad[i].says);
    }
}
END_TEST

int main(void) {
    if (!th_test_dir_make("movers")) return EXIT_FAILURE;
    Suite *s = suite_create("movers");
    TCase *tc = tcase_create("movers");
    tcase_set_timeout(tc, 300);
    /* Under ThreadSanitizer only the tests that step every mover on several threads: the others
     * step one-thread worlds, or walk to the end (crash and turn to a point, the library scenes)
     * through passes the hash test runs on 2 and 3 threads. */
    if (!TH_TEST_TSAN) {
        tcase_add_test(tc, wall_follower_visits_the_reference_cells_to_the_exit);
        tcase_add_test(tc, crash_and_turn_visits_the_reference_cells);
        tcase_add_test(tc, crash_and_turn_goes_round_the_block_on_its_hand_side);
        tcase_add_test(tc, crash_and_turn_to_a_point_takes_the_nearer_side);
        tcase_add_test(tc, breadcrumb_ring_keeps_the_newest_crumbs_a_spacing_apart);
        tcase_add_test(tc, breadcrumb_followers_keep_to_the_trail_round_the_corner);
        tcase_add_test(tc, next_hop_table_matches_floyd_warshall_on_random_graphs);
        tcase_add_test(tc, waypoint_tables_are_shared_and_budgeted);
        tcase_add_test(tc, waypoint_walkers_enter_at_the_nearest_node_in_sight);
        tcase_add_test(tc, waypoint_walkers_reach_the_destination_round_the_walls);
    }
    tcase_add_test(tc, every_mover_same_hash_on_1_2_3_threads);
    tcase_add_test(tc, no_allocation_in_a_step);
    if (!TH_TEST_TSAN) {
        tcase_add_test(tc, library_wall_followers_pass_the_exit);
        tcase_add_test(tc, library_waypoint_walkers_arrive);
        tcase_add_test(tc, bad_defs_are_refused_with_a_reason);
        tcase_add_test(tc, scene_keys_parse_and_errors_point_at_the_value);
    }
    suite_add_tcase(s, tc);
    int rc = th_test_run(s);
    return th_test_dir_remove() ? rc : EXIT_FAILURE;
}
