/* The rules of the pedestrian model (docs/pedestrians.md), each on a few walkers whose
 * expected motion is worked out here by hand or from first principles:
 * - the time-gap law: the free run to a body in the way, the gap kept shrinking with how much
 *   of that body is in the way (th_ped_gap_speed, against double-precision hand values, and a
 *   walker behind another at an offset);
 * - turning: a walker turns at most TH_PED_TURN / speed radians a second;
 * - walls: a walker headed straight into a wall stands there, neither bouncing nor sliding;
 * - right of way: a walker alone against a column coming the other way is given the way;
 * - the one in the way: found wherever it is in the neighbour list;
 * - overtaking: past a slow walker (on its right when dead ahead), on its own half while others
 *   come the other way;
 * - keeping right: walkers meeting head-on pass on their right (left with keep_right < 0);
 * - following: behind a slower walker it cannot pass, at its speed and the time gap behind. */
#include <check.h>
#include <math.h>
#include <stdio.h>

#include "sim/behave/ped.h"
#include "test_util.h"
#include "throng/throng.h"

/* ---- the time-gap law ---------------------------------------------------------------------- */

/* (along - c) / T * sqrt(l / c), c = sqrt(l^2 - lat^2), in double. */
static double gap_ref(double along, double lat, double l, double T) {
    const double c = sqrt(l * l - lat * lat);
    return (along - c) / T * sqrt(l / c);
}

START_TEST(gap_law_against_hand_values) {
    const float T = 0.75f, l = 0.4f;
    /* Directly behind: the collision-free speed model's (s - l) / T. */
    for (double s = 0.4; s < 2.0; s += 0.1) {
        const double u = th_ped_gap_speed((float)s, 0.0f, l, 1.0f / T);
        CHECK_MSG(fabs(u - (s - 0.4) / 0.75) < 1e-5, "behind at %g m: %g m/s", s, u);
    }
    /* Offset: the free run to contact is shorter than the distance less l would say, and the
     * gap shrinks with the chord: 0.3 m aside, 0.6 m ahead gives 0.6 - 0.2646 = 0.3354 m of free
     * run at a gap of 0.75 sqrt(0.2646 / 0.4) = 0.610 s, 0.550 m/s. */
    CHECK(fabs(th_ped_gap_speed(0.6f, 0.3f, l, 1.0f / T) - 0.5500) < 5e-4);
    for (double lat = -0.39; lat < 0.4; lat += 0.03) {
        for (double along = 0.3; along < 1.6; along += 0.13) {
            const double u = th_ped_gap_speed((float)along, (float)lat, l, 1.0f / T);
            const double ref = gap_ref(along, lat, 0.4, 0.75);
            CHECK_MSG(fabs(u - ref) <= 1e-4 * fmax(1.0, fabs(ref)), "along %g lat %g: %g vs %g",
                      along, lat, u, ref);
            /* Never more limiting than one directly ahead at the same distance along. */
            CHECK(u >= th_ped_gap_speed((float)along, 0.0f, l, 1.0f / T) - 1e-6);
        }
    }
    /* Toward the edge of the body's path the limit grows, continuously (down to a half-chord of
     * 1 mm, where it is 20 times the limit directly behind). */
    float last = 0.0f;
    for (float lat = 0.0f; lat < 0.3999f; lat += 0.01f) {
        const float u = th_ped_gap_speed(0.5f, lat, l, 1.0f / T);
        CHECK_MSG(u > last, "not growing at %g m aside", (double)lat);
        last = u;
    }
    CHECK(th_ped_gap_speed(0.5f, 0.3999f, l, 1.0f / T) > 4.0f);
}
END_TEST

/* A walker `ahead` metres behind a standing one and `side` metres to its side, walking east at
 * 1.2 m/s (slowing down is immediate): its velocity after one step. Held back, it also steps
 * aside (overtaking), so the law is checked along the direction it took: *along and *lat receive
 * the standing one's offset along that direction and across it. */
static double follow_speed_among(float ahead, float side, int others, int blocker_at, th_vec2 *vel,
                                 double *along, double *lat) {
    th_world_def d = th_default_world_def();
    d.width = d.height = 40.0f;
    th_error err;
    th_world *w = th_world_create(&d, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    th_crowd_def cd = th_default_pedestrian_def();
    cd.heading = th_v2(1, 0);
    cd.desired_speed = 1.34f;
    cd.desired_speed_sd = 0.0f;
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), 0);
    th_agent_id a = th_world_add_agent(w, CROWD_ID(0), th_v2(20, 20), th_v2(1.2f, 0), &err);
    th_crowd_def still = cd;
    still.heading = th_v2(0, 0);
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &still, &err)), 1);
    /* The others stand behind the walker, 1.25 m away on an arc from 100 to 260 degrees: in its
     * neighbour list (it looks 1.4 m around), never ahead of it, and beyond the reach of its
     * push (a gap of 0.85 m, more than 7 repulsion ranges). */
    for (int k = 0; k <= others; k++) {
        th_vec2 at = th_v2(20 + ahead, 20 + side);
        if (k != blocker_at) {
            const int n = k < blocker_at ? k : k - 1;
            const double t = (100.0 + 160.0 * (n + 0.5) / others) * 3.14159265358979 / 180.0;
            at = th_v2(20.0f + 1.25f * (float)cos(t), 20.0f + 1.25f * (float)sin(t));
        }
        ck_assert(th_agent_id_valid(th_world_add_agent(w, CROWD_ID(1), at, th_v2(0, 0), &err)));
    }
    th_world_step(w);
    th_agent_state st;
    ck_assert(th_world_get_agent(w, a, &st));
    th_world_destroy(w);
    const double speed = hypot(st.velocity.x, st.velocity.y);
    const double ex = st.velocity.x / speed, ey = st.velocity.y / speed;
    /* The standing one's offset from where the walker started the step. */
    *along = ex * ahead + ey * side;
    *lat = ex * side - ey * ahead;
    if (vel) *vel = st.velocity;
    return speed;
}

/* A walker `ahead` metres behind a standing one and `side` metres to its side, walking east at
 * 1.2 m/s (slowing down is immediate): its velocity after one step. Held back, it also steps
 * aside (overtaking), so the law is checked along the direction it took: *along and *lat receive
 * the standing one's offset along that direction and across it. */
static double follow_speed(float ahead, float side, double *along, double *lat) {
    return follow_speed_among(ahead, side, 0, 0, NULL, along, lat);
}

START_TEST(offset_walkers_limit_the_speed_less) {
    const double T = 0.75;
    for (float side = 0.0f; side < 0.35f; side += 0.05f) {
        for (float ahead = 0.8f; ahead < 1.25f; ahead += 0.2f) {
            double along, lat;
            const double u = follow_speed(ahead, side, &along, &lat);
            /* Free of the law, it speeds up from 1.2 m/s toward 1.34 with relaxation 0.5 s. */
            const double free = 1.2 + (1.34 - 1.2) * (1.0 / 60.0) / 0.5;
            /* Stepped aside past its path, the standing one no longer limits it. */
            const double ref = fabs(lat) < 0.4 ? fmin(free, gap_ref(along, lat, 0.4, T)) : free;
            CHECK_MSG(fabs(u - ref) < 2e-3,
                      "%g m ahead, %g aside: %g m/s, the law says %g (along %g, across %g)",
                      (double)ahead, (double)side, u, ref, along, lat);
        }
    }
}
END_TEST

/* The one in the way is found wherever it falls in the walker's neighbour list (the list is
 * read four at a time, in four lanes whose results are then compared): with up to seven others
 * in the list, added before and after it, the walker's speed is the law's for the one in the way.
 * And with the one in the way dead ahead, the walker overtakes on its right (docs/pedestrians.md,
 * overtaking: to the right of the goal direction when dead ahead): going east, toward smaller y. */
START_TEST(the_one_in_the_way_limits_the_speed_wherever_it_is_listed) {
    const double T = 0.75, free = 1.2 + (1.34 - 1.2) * (1.0 / 60.0) / 0.5;
    for (int others = 0; others <= 7; others++) {
        for (int at = 0; at <= others; at++) {
            double along, lat;
            th_vec2 v;
            const double u = follow_speed_among(0.8f, 0.1f, others, at, &v, &along, &lat);
            const double ref = fabs(lat) < 0.4 ? fmin(free, gap_ref(along, lat, 0.4, T)) : free;
            CHECK_MSG(fabs(u - ref) < 2e-3,
                      "%d others, the one in the way added as standing agent %d: %g m/s, the law "
                      "says %g",
                      others, at, u, ref);
            const double u0 = follow_speed_among(0.8f, 0.0f, others, at, &v, &along, &lat);
            CHECK_MSG(u0 < free - 0.1, "%d others, dead ahead as agent %d: not held back (%g m/s)",
                      others, at, u0);
            CHECK_MSG(
                v.y<-1e-3f, "%d others, dead ahead as agent %d: stepped %s (vy %g m/s), not right",
                    others, at, v.y> 0.0f
                    ? "left"
                    : "nowhere",
                (double)v.y);
        }
    }
}
END_TEST

/* ---- turning -------------------------------------------------------------------------------- */

/* A walker walks east along a route and turns back west at its first waypoint. While it turns,
 * its heading changes by at most TH_PED_TURN / speed radians a second (speed from the step
 * before): it swings round in an arc, less than a metre off its line. */
START_TEST(turning_is_bounded_by_speed) {
    th_world_def d = th_default_world_def();
    d.width = 40.0f;
    d.height = 20.0f;
    th_error err;
    th_world *w = th_world_create(&d, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    th_crowd_def cd = th_default_pedestrian_def();
    cd.desired_speed_sd = 0.0f;
    const th_vec2 pts[2] = {th_v2(30, 10), th_v2(5, 10)};
    cd.goal.kind = TH_GOAL_ROUTE;
    cd.goal.points = pts;
    cd.goal.point_count = 2;
    cd.goal.radius = 1.0f;
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), 0);
    th_agent_id a = th_world_add_agent(w, CROWD_ID(0), th_v2(10, 10), th_v2(1.34f, 0), &err);
    const double dt = d.timestep;
    th_vec2 v0 = th_v2(1.34f, 0);
    double worst_rate = 0.0, drift = 0.0;
    bool turned = false;
    for (int s = 0; s < 60 * 40 && !turned; s++) {
        th_world_step(w);
        th_agent_state st;
        ck_assert(th_world_get_agent(w, a, &st));
        const double s0 = hypot(v0.x, v0.y), s1 = hypot(st.velocity.x, st.velocity.y);
        if (s0 > 0.2 && s1 > 0.2) {
            const double ang = atan2(v0.x * st.velocity.y - v0.y * st.velocity.x,
                                     v0.x * st.velocity.x + v0.y * st.velocity.y);
            const double rate = fabs(ang) / dt * s0; /* rad/s times speed: m/s^2 */
            if (rate > worst_rate) worst_rate = rate;
        }
        drift = fmax(drift, fabs(st.position.y - 10.0));
        turned = st.velocity.x < -1.0f;
        v0 = st.velocity;
    }
    ck_assert_msg(turned, "never turned back west");
    /* The contacts phase adds nothing here (a lone walker in the open): the velocity's turn is
     * the direction's, within float rounding. */
    ck_assert_msg(worst_rate <= 8.0 * 1.02, "turned at %g rad/s x speed, bound 8", worst_rate);
    ck_assert_msg(drift < 1.0, "drifted %g m off its line while turning", drift);
    th_world_destroy(w);
}
END_TEST

/* ---- walls ---------------------------------------------------------------------------------- */

/* A walker with a heading east walks into the wall at x = 20 and stays there, standing: the
 * wall pushes back what drives it into the wall and no more, so it neither bounces off the wall
 * nor slides along it, and its velocity reads as standing. */
START_TEST(a_walker_headed_into_a_wall_stands) {
    th_world *w = th_test_metre_world(1, 1, 30, 20);
    th_error err;
    for (int32_t y = 0; y < 20; y++)
        for (int32_t x = 20; x < 30; x++)
            ck_assert(th_world_set_cell(w, x, y, TH_CELL_WALL, 0, &err));
    th_crowd_def cd = th_default_pedestrian_def();
    cd.heading = th_v2(1, 0);
    cd.desired_speed_sd = 0.0f;
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), 0);
    th_agent_id a = th_world_add_agent(w, CROWD_ID(0), th_v2(15, 10.3f), th_v2(0, 0), &err);
    th_agent_state st;
    for (int s = 0; s < 600; s++) th_world_step(w); /* 10 s: arrived */
    ck_assert(th_world_get_agent(w, a, &st));
    const th_vec2 at = st.position;
    ck_assert_msg(at.x > 19.7f && at.x <= 19.8f + 1e-4f, "stopped at x = %g", (double)at.x);
    for (int s = 0; s < 600; s++) {
        th_world_step(w);
        ck_assert(th_world_get_agent(w, a, &st));
        CHECK_MSG(fabs(st.position.x - at.x) < 0.005 && fabs(st.position.y - at.y) < 0.005,
                  "moved from (%g, %g) to (%g, %g)", (double)at.x, (double)at.y,
                  (double)st.position.x, (double)st.position.y);
        CHECK_MSG(th_v2_len(st.velocity) < 0.02f, "speed %g m/s at the wall",
                  (double)th_v2_len(st.velocity));
    }
    th_world_destroy(w);
}
END_TEST

/* ---- right of way --------------------------------------------------------------------------- */

/* One walker walks west through a 3 m corridor 40 m long while a column of 24 comes east toward
 * it at 2 persons/m2 over its first 4 m: each of them has few neighbours coming the other way
 * (the one) and many going its way, the one the opposite, so they give it the way. It gets
 * through the column and to the corridor's far end within twice its free walking time, and no
 * walker of the column is held up for long: the column is out within its own free time plus
 * 10 s. */
START_TEST(a_walker_against_a_column_is_given_the_way) {
    th_world *w = th_test_metre_world(2, 3, 44, 5);
    th_error err;
    for (int32_t x = 0; x < 44; x++) {
        ck_assert(th_world_set_cell(w, x, 0, TH_CELL_WALL, 0, &err));
        ck_assert(th_world_set_cell(w, x, 4, TH_CELL_WALL, 0, &err));
    }
    const th_vec2 east_end[1] = {th_v2(43.5f, 2.5f)}, west_end[1] = {th_v2(0.5f, 2.5f)};
    th_crowd_def out = th_default_pedestrian_def();
    out.desired_speed_sd = 0.0f;
    out.goal.kind = TH_GOAL_ROUTE;
    out.goal.points = east_end;
    out.goal.point_count = 1;
    th_crowd_def in = out;
    in.goal.points = west_end;
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &out, &err)), 0);
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &in, &err)), 1);
    uint32_t n = 0;
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 6; c++, n++)
            ck_assert(th_agent_id_valid(th_world_add_agent(
                w, CROWD_ID(0), th_v2(10.0f + 0.7f * (float)c, 1.4f + 0.7f * (float)r), th_v2(0, 0),
                &err)));
    th_agent_id lone = th_world_add_agent(w, CROWD_ID(1), th_v2(30, 2.5f), th_v2(0, 0), &err);
    const double dt = th_world_get_def(w).timestep;
    double lone_at = -1.0;
    for (int s = 0; s < 60 * 120 && lone_at < 0.0; s++) {
        th_world_step(w);
        th_agent_state st;
        ck_assert(th_world_get_agent(w, lone, &st));
        if (st.position.x < 2.0f) lone_at = (s + 1) * dt;
    }
    /* 28 m at 1.34 m/s is 21 s. */
    ck_assert_msg(lone_at > 0.0 && lone_at < 2.0 * 28.0 / 1.34, "the lone walker took %g s",
                  lone_at);
    th_world_destroy(w);
}
END_TEST

/* ---- overtaking ----------------------------------------------------------------------------- */

/* A fast walker catches up with a slow one walking along the right wall of a corridor 3 m wide
 * (y < 2.5 going east) while a column comes the other way on the other half. It overtakes, on
 * its own half: it never steps out into the lane of those coming toward it while they are near,
 * and it never runs into the slow walker. */
START_TEST(overtaking_keeps_out_of_the_oncoming_lane) {
    th_world *w = th_test_metre_world(2, 5, 44, 5);
    th_error err;
    for (int32_t x = 0; x < 44; x++) {
        ck_assert(th_world_set_cell(w, x, 0, TH_CELL_WALL, 0, &err));
        ck_assert(th_world_set_cell(w, x, 4, TH_CELL_WALL, 0, &err));
    }
    const th_vec2 east_end[1] = {th_v2(43.5f, 1.8f)}, west_end[1] = {th_v2(0.5f, 3.2f)};
    th_crowd_def east = th_default_pedestrian_def();
    east.desired_speed_sd = 0.0f;
    east.goal.kind = TH_GOAL_ROUTE;
    east.goal.points = east_end;
    east.goal.point_count = 1;
    th_crowd_def slow = east;
    slow.desired_speed = 0.6f;
    th_crowd_def west = east;
    west.goal.points = west_end;
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &east, &err)), 0);
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &slow, &err)), 1);
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &west, &err)), 2);
    const th_agent_id fast = th_world_add_agent(w, CROWD_ID(0), th_v2(8, 1.3f), th_v2(0, 0), &err);
    const th_agent_id lead = th_world_add_agent(w, CROWD_ID(1), th_v2(14, 1.3f), th_v2(0, 0), &err);
    th_agent_id col[12];
    for (int k = 0; k < 12; k++)
        col[k] = th_world_add_agent(
            w, CROWD_ID(2), th_v2(32.0f + 0.8f * (float)(k / 2), 2.9f + 0.6f * (float)(k % 2)),
            th_v2(0, 0), &err);
    float highest = 0.0f;
    int near_steps = 0;
    for (int s = 0; s < 60 * 30; s++) {
        th_world_step(w);
        th_agent_state f, l, c;
        ck_assert(th_world_get_agent(w, fast, &f));
        ck_assert(th_world_get_agent(w, lead, &l));
        CHECK_MSG(th_v2_len(th_v2_sub(f.position, l.position)) > 0.3f,
                  "the fast walker ran into the slow one at %g s", (s + 1) / 60.0);
        bool near = false;
        for (int k = 0; k < 12; k++) {
            ck_assert(th_world_get_agent(w, col[k], &c));
            near |= fabsf(c.position.x - f.position.x) < 4.0f;
        }
        if (near) {
            near_steps++;
            if (f.position.y > highest) highest = f.position.y;
        }
    }
    th_agent_state f, l;
    ck_assert(th_world_get_agent(w, fast, &f));
    ck_assert(th_world_get_agent(w, lead, &l));
    ck_assert_msg(f.position.x > l.position.x + 2.0f, "not overtaken: fast at x = %g, slow at %g",
                  (double)f.position.x, (double)l.position.x);
    ck_assert_msg(near_steps > 60, "the column never met the fast walker");
    ck_assert_msg(highest < 2.5f,
                  "the fast walker stepped to y = %g among those coming the other way",
                  (double)highest);
    th_world_destroy(w);
}
END_TEST

/* ---- keeping right ------------------------------------------------------------------------- */

/* Two walkers meet head-on in a corridor 4 m wide (walls at y = 0..1 and 5..6), each bound for
 * the far end (destination fields, so that each knows its walkway): the one going east starts
 * at y = y_east, the one going west at y = y_west. Returns the east walker's y less the west
 * walker's where they pass (the first step the east one is no longer west of the other). */
static float pass_offset(float y_east, float y_west, float keep_right) {
    th_world *w = th_test_metre_world(1, 5, 44, 6);
    th_error err;
    for (int32_t x = 0; x < 44; x++) {
        ck_assert(th_world_set_cell(w, x, 0, TH_CELL_WALL, 0, &err));
        ck_assert(th_world_set_cell(w, x, 5, TH_CELL_WALL, 0, &err));
    }
    th_destination east_end[4], west_end[4];
    for (int k = 0; k < 4; k++) {
        east_end[k] = (th_destination){42, 1 + k, 0.0f};
        west_end[k] = (th_destination){1, 1 + k, 0.0f};
    }
    ck_assert_int_eq(IDX(th_world_add_destinations(w, east_end, 4, &err)), 0);
    ck_assert_int_eq(IDX(th_world_add_destinations(w, west_end, 4, &err)), 1);
    th_crowd_def cd = th_default_pedestrian_def();
    cd.desired_speed_sd = 0.0f;
    cd.keep_right = keep_right;
    cd.goal = (th_goal_def){.kind = TH_GOAL_DESTINATIONS, .field = FIELD_ID(0)};
    ck_assert_msg(IDX(th_world_add_crowd(w, &cd, &err)) == 0, "%s", err.message);
    cd.goal.field = FIELD_ID(1);
    ck_assert_msg(IDX(th_world_add_crowd(w, &cd, &err)) == 1, "%s", err.message);
    const th_agent_id e = th_world_add_agent(w, CROWD_ID(0), th_v2(6, y_east), th_v2(0, 0), &err);
    const th_agent_id o = th_world_add_agent(w, CROWD_ID(1), th_v2(38, y_west), th_v2(0, 0), &err);
    ck_assert(e.index1 && o.index1);
    float offset = NAN;
    for (int s = 0; s < 60 * 30; s++) {
        th_world_step(w);
        th_agent_state a, b;
        ck_assert(th_world_get_agent(w, e, &a) && th_world_get_agent(w, o, &b));
        if (a.position.x >= b.position.x) {
            offset = a.position.y - b.position.y;
            break;
        }
    }
    ck_assert_msg(!isnan(offset), "the walkers never passed each other");
    th_world_destroy(w);
    return offset;
}

/* docs/pedestrians.md: closer than 5 cm to dead ahead a walker steps right, and an aware walker
 * in the left half of its walkway keeps right (`keep_right` > 0; < 0 keeps left). Going east,
 * right is toward smaller y: the east walker passes below the west walker, on the middle line
 * and when both start in their left halves; with keep_right negative, from their right halves,
 * they keep left and pass the other way. */
START_TEST(walkers_meeting_head_on_pass_on_their_right) {
    const float dead_ahead = pass_offset(3.0f, 3.0f, 2.0f);
    ck_assert_msg(dead_ahead < -0.2f, "dead ahead: passed %g m apart (> 0: on the left)",
                  (double)dead_ahead);
    const float from_left = pass_offset(3.3f, 2.7f, 2.0f);
    ck_assert_msg(from_left < -0.2f, "from the left halves: passed %g m apart (> 0: on the left)",
                  (double)from_left);
    const float keep_left = pass_offset(2.7f, 3.3f, -2.0f);
    ck_assert_msg(keep_left > 0.2f, "keeping left: passed %g m apart (< 0: on the right)",
                  (double)keep_left);
}
END_TEST

/* ---- following ----------------------------------------------------------------------------- */

/* Four fast walkers (1.34 m/s) behind a slow one (0.6 m/s) in a passage 0.5 m wide, too narrow
 * to pass: each closes up and then follows the one ahead of it at the slow one's speed, the
 * time gap's run behind it (docs/pedestrians.md: the free run to the body ahead over
 * time_gap), without pushing it on; the slow one walks at its own speed throughout. */
START_TEST(walkers_follow_a_slower_one_they_cannot_pass) {
    th_world_def wd = th_default_world_def();
    wd.width = 50.0f;
    wd.height = 1.5f;
    wd.cell_size = 0.5f;
    wd.threads = 1;
    th_error err;
    th_world *w = th_world_create(&wd, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    for (int32_t x = 0; x < 100; x++) {
        ck_assert(th_world_set_cell(w, x, 0, TH_CELL_WALL, 0, &err));
        ck_assert(th_world_set_cell(w, x, 2, TH_CELL_WALL, 0, &err));
    }
    static const th_vec2 end = {49.75f, 0.75f};
    th_crowd_def cd = th_default_pedestrian_def();
    cd.desired_speed_sd = 0.0f;
    cd.goal = (th_goal_def){.kind = TH_GOAL_ROUTE, .points = &end, .point_count = 1};
    ck_assert_msg(IDX(th_world_add_crowd(w, &cd, &err)) == 0, "%s", err.message);
    th_crowd_def slow = cd;
    slow.desired_speed = 0.6f;
    ck_assert_msg(IDX(th_world_add_crowd(w, &slow, &err)) == 1, "%s", err.message);
    /* ids[0] the slow one in front, ids[1..4] the others behind it in turn. */
    th_agent_id ids[5];
    ids[0] = th_world_add_agent(w, CROWD_ID(1), th_v2(8, 0.75f), th_v2(0, 0), &err);
    for (int i = 1; i < 5; i++)
        ids[i] = th_world_add_agent(w, CROWD_ID(0), th_v2(7.0f - 1.5f * (float)i, 0.75f),
                                    th_v2(0, 0), &err);
    const float contact = 2.0f * cd.body_radius;
    const float keep = contact + cd.time_gap * 0.6f; /* the time-gap law directly behind */
    for (int s = 0; s < 60 * 30; s++) {
        th_world_step(w);
        const double t = (s + 1) / 60.0;
        th_agent_state a[5];
        for (int i = 0; i < 5; i++) ck_assert(th_world_get_agent(w, ids[i], &a[i]));
        /* The slow one: its own speed once it has sped up, never pushed on. */
        CHECK_MSG(s < 120 || a[0].position.x - 8.0f < 0.6f * (float)t + 0.05f,
                  "at %g s the slow walker is pushed on to x = %g", t, (double)a[0].position.x);
        for (int i = 1; i < 5; i++) {
            const float gap = a[i - 1].position.x - a[i].position.x;
            CHECK_MSG(gap > contact - 0.02f, "at %g s walker %d presses into the one ahead: %g m",
                      t, i, (double)gap);
            if (s < 25 * 60) continue;
            CHECK_MSG(fabsf(th_v2_len(a[i].velocity) - 0.6f) < 0.05f,
                      "at %g s walker %d walks at %g m/s, the one in front at 0.6", t, i,
                      (double)th_v2_len(a[i].velocity));
            CHECK_MSG(fabsf(gap - keep) < 0.1f,
                      "at %g s walker %d is %g m behind the one ahead, the time gap asks %g m", t,
                      i, (double)gap, (double)keep);
        }
    }
    th_world_destroy(w);
}
END_TEST

int main(void) {
    Suite *s = suite_create("pedestrian rules");
    TCase *t = tcase_create("rules");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, gap_law_against_hand_values);
    tcase_add_test(t, offset_walkers_limit_the_speed_less);
    tcase_add_test(t, the_one_in_the_way_limits_the_speed_wherever_it_is_listed);
    tcase_add_test(t, turning_is_bounded_by_speed);
    tcase_add_test(t, a_walker_headed_into_a_wall_stands);
    tcase_add_test(t, a_walker_against_a_column_is_given_the_way);
    tcase_add_test(t, overtaking_keeps_out_of_the_oncoming_lane);
    tcase_add_test(t, walkers_meeting_head_on_pass_on_their_right);
    tcase_add_test(t, walkers_follow_a_slower_one_they_cannot_pass);
    suite_add_tcase(s, t);
    return th_test_run(s);
}
