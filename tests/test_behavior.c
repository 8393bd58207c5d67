/* Leaders, pursuit, types, predators. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "engine/rng.h"
#include "sim/behave/boids.h"
#include "throng/throng.h"
#include "test_util.h"

static th_world *open_world(float side, th_bounds bounds) {
    th_world_def wd = th_default_world_def();
    wd.width = wd.height = side;
    wd.bounds = bounds;
    wd.threads = 2;
    th_error err;
    th_world *w = th_world_create(&wd, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    return w;
}

/* ---- leader election ------------------------------------------------------------------- */

/* The definition, written independently: j is in front of an agent at p heading along h
 * (unit) when 0 < |d| < radius and the angle between h and d is at most half the view. */
static bool in_front(double px, double py, double hx, double hy, double jx, double jy,
                     double radius, double fov_deg) {
    double dx = jx - px, dy = jy - py, d = sqrt(dx * dx + dy * dy);
    if (d <= 0 || d >= radius) return false;
    double angle = acos((hx * dx + hy * dy) / d) * 180.0 / 3.14159265358979323846;
    return angle <= fov_deg / 2;
}

typedef struct layout {
    const char *what;
    float dist, angle_deg; /* the other agent, relative to the probe's heading */
    bool same_type;
} layout;

static const layout k_layouts[] = {
    {"alone", 0, 0, true},
    {"one straight ahead", 3.0f, 0.0f, true},
    {"one inside the angle", 3.0f, 28.0f, true},
    {"one just outside the angle", 3.0f, 32.0f, true},
    {"one just inside the radius", 4.9f, 0.0f, true},
    {"one just beyond the radius", 5.1f, 0.0f, true},
    {"one behind", 3.0f, 180.0f, true},
    {"a different type ahead", 3.0f, 0.0f, false},
};

START_TEST(leader_election_matches_the_definition) {
    const layout *l = &k_layouts[_i];
    th_world *w = open_world(100, TH_BOUNDS_WALLS);
    th_target_def td = {.kind = TH_TARGET_POINT, .position = th_v2(90, 90)};
    int target = IDX(th_world_add_target(w, &td, NULL));
    th_crowd_def cd = th_default_crowd_def();
    cd.target = TARGET_ID(target);
    cd.lead_fov_deg = 60;
    cd.lead_radius = 5;
    cd.neighbor_radius = 6;
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, NULL)), 0);
    th_crowd_def other = th_default_crowd_def(); /* a type of its own */
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &other, NULL)), 1);
    /* The probe heads along a direction that is not an axis, so rounding is exercised. */
    double heading = 0.4;
    double hx = cos(heading), hy = sin(heading);
    th_vec2 p = th_v2(40, 40);
    th_agent_id probe =
        th_world_add_agent(w, CROWD_ID(0), p, th_v2((float)(2 * hx), (float)(2 * hy)), NULL);
    bool expect_leader = true;
    if (l->dist > 0) {
        double a = heading + l->angle_deg * 3.14159265358979323846 / 180.0;
        th_vec2 q = th_v2((float)(p.x + l->dist * cos(a)), (float)(p.y + l->dist * sin(a)));
        th_world_add_agent(w, CROWD_ID(l->same_type ? 0 : 1), q, th_v2(0, 0), NULL);
        expect_leader = !(l->same_type && in_front(p.x, p.y, hx, hy, q.x, q.y, 5, 60));
    }
    th_world_step(w);
    th_agent_state s;
    ck_assert(th_world_get_agent(w, probe, &s));
    ck_assert_msg(s.leader == expect_leader, "%s: leader %d, definition says %d", l->what, s.leader,
                  expect_leader);
    th_world_destroy(w);
}
END_TEST

/* A crowd spawned standing still, 400 agents on a jittered 20 x 20 grid, with a target to the
 * east (a point, or with `shelter` the nearest bunker of a map, east too). After one step,
 * leaders are exactly the agents with no same-type agent in the front view of the way they
 * would pursue (toward the target, or along the river map's flow), checked over all pairs;
 * there are some, and each stands in the crowd's front rank. Returns the leader count. */
static uint32_t standing_leaders(bool shelter, uint32_t threads) {
    th_world_def wd = th_default_world_def();
    wd.width = wd.height = 100;
    wd.threads = threads;
    if (shelter) wd.cell_size = 1.0f;
    th_error err;
    th_world *w = th_world_create(&wd, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    th_target_def td = {.kind = TH_TARGET_POINT, .position = th_v2(95, 51)};
    if (shelter) {
        td = (th_target_def){.kind = TH_TARGET_SHELTER};
        th_bunker_def bd = {.name = "east", .x0 = 90, .y0 = 44, .x1 = 95, .y1 = 56, .capacity = 0};
        ck_assert_int_eq(IDX(th_world_add_bunker(w, &bd, &err)), 0);
    }
    int target = IDX(th_world_add_target(w, &td, &err));
    ck_assert_msg(target >= 0, "%s", err.message);
    th_crowd_def cd = th_default_crowd_def();
    cd.target = TARGET_ID(target); /* lead_radius = neighbor_radius = 4 m, front view 60 degrees */
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, NULL)), 0);
    enum { N = 400 };
    static th_vec2 pos[N];
    for (uint32_t i = 0; i < N; i++) {
        pos[i] = th_v2(30.0f + 1.2f * (float)(i % 20) + th_rng_range(17, i, 0, -0.3f, 0.3f),
                       38.0f + 1.2f * (float)(i / 20) + th_rng_range(17, i, 1, -0.3f, 0.3f));
        ck_assert(th_agent_id_eq(th_world_add_agent(w, CROWD_ID(0), pos[i], th_v2(0, 0), NULL),
                                 th_test_id(i)));
    }
    th_world_step(w);
    uint32_t leaders = 0, unsure = 0;
    for (uint32_t i = 0; i < N; i++) {
        double fx, fy;
        if (shelter) {
            th_vec2 f;
            ck_assert(th_world_flow(w, pos[i], &f));
            fx = f.x;
            fy = f.y;
        } else {
            fx = 95.0 - pos[i].x;
            fy = 51.0 - pos[i].y;
        }
        double fl = hypot(fx, fy);
        fx /= fl;
        fy /= fl;
        bool ahead = false, close_call = false;
        for (uint32_t j = 0; j < N; j++) {
            if (j == i) continue;
            ahead |= in_front(pos[i].x, pos[i].y, fx, fy, pos[j].x, pos[j].y, 4, 60);
            /* Pairs within rounding of the cone's edge or of the radius can go either way. */
            double dx = pos[j].x - pos[i].x, dy = pos[j].y - pos[i].y, d = hypot(dx, dy);
            double angle =
                acos(fmin(1.0, (fx * dx + fy * dy) / d)) * 180.0 / 3.14159265358979323846;
            close_call |= (fabs(angle - 30.0) < 1e-3 && d < 4.0) || fabs(d - 4.0) < 1e-4;
        }
        th_agent_state st;
        ck_assert(th_world_get_agent(w, th_test_id(i), &st));
        if (close_call && st.leader != !ahead) {
            unsure++;
            continue;
        }
        ck_assert_msg(st.leader == !ahead, "agent %u at (%.2f, %.2f): leader %d, %s ahead", i,
                      (double)pos[i].x, (double)pos[i].y, st.leader, ahead ? "someone" : "nobody");
        leaders += st.leader;
    }
    ck_assert_uint_le(unsure, 2);
    th_world_destroy(w);
    return leaders;
}

START_TEST(standing_crowd_elects_its_front_rank) {
    /* Every copy of the kernel, each thread count the same. */
    const th_boids_isa isas[] = {TH_BOIDS_ISA_BASELINE, TH_BOIDS_ISA_AVX2, TH_BOIDS_ISA_AVX512};
    for (size_t k = 0; k < sizeof isas / sizeof isas[0]; k++) {
        if (!th_boids_force_isa(isas[k])) continue;
        for (int shelter = 0; shelter < 2; shelter++) {
            uint32_t n = standing_leaders(shelter, 1);
            /* The east edge of a 20-wide block, at least: about one agent in twenty. */
            ck_assert_msg(n >= 10 && n < 200, "%s: %u leaders", shelter ? "shelter" : "point", n);
            ck_assert_uint_eq(standing_leaders(shelter, 2), n);
            ck_assert_uint_eq(standing_leaders(shelter, 3), n);
        }
    }
    ck_assert(th_boids_force_isa(TH_BOIDS_ISA_AUTO));
}
END_TEST

/* ---- pursuit --------------------------------------------------------------------------- */

/* Steps until a lone pursuer comes within 1 m of a target crossing its path, or `limit`. */
static int steps_to_catch(th_pursuit how, int limit, float *closest_after_10s) {
    th_world *w = open_world(200, TH_BOUNDS_WALLS);
    th_target_def td = {
        .kind = TH_TARGET_POINT, .position = th_v2(120, 20), .velocity = th_v2(0, 3)};
    int target = IDX(th_world_add_target(w, &td, NULL));
    th_crowd_def cd = th_default_crowd_def();
    cd.target = TARGET_ID(target);
    cd.pursuit = how;
    cd.max_speed = 4;
    cd.max_force = 20;
    th_world_add_crowd(w, &cd, NULL);
    th_agent_id a = th_world_add_agent(w, CROWD_ID(0), th_v2(40, 100), th_v2(0, 0), NULL);
    int s = 0;
    for (; s < limit; s++) {
        th_world_step(w);
        th_agent_state st;
        th_vec2 tp;
        th_world_get_agent(w, a, &st);
        ck_assert(st.leader); /* alone: always leads */
        ck_assert(th_world_get_target(w, TARGET_ID(target), &tp, NULL));
        float d = th_v2_len(th_v2_sub(tp, st.position));
        if (s == 600 && closest_after_10s) *closest_after_10s = d;
        if (d < 1.0f) break;
    }
    th_world_destroy(w);
    return s;
}

START_TEST(chase_closes_and_intercept_is_faster) {
    float chase_gap = 1e9f;
    int chase = steps_to_catch(TH_PURSUIT_CHASE, 6000, &chase_gap);
    int intercept = steps_to_catch(TH_PURSUIT_INTERCEPT, 6000, NULL);
    /* Initial gap ~113 m; the pursuer is faster, so chase catches too, only later. */
    ck_assert_msg(chase < 6000, "chase never caught the target");
    ck_assert_msg(intercept < chase, "intercept took %d steps, chase %d", intercept, chase);
}
END_TEST

START_TEST(path_and_agent_targets_move) {
    th_world *w = open_world(100, TH_BOUNDS_WALLS);
    const th_vec2 pts[3] = {{10, 10}, {90, 10}, {90, 90}};
    th_target_def path = {.kind = TH_TARGET_PATH, .points = pts, .point_count = 3, .speed = 10};
    int tp = IDX(th_world_add_target(w, &path, NULL));
    th_crowd_def cd = th_default_crowd_def();
    th_world_add_crowd(w, &cd, NULL);
    th_agent_id runner = th_world_add_agent(w, CROWD_ID(0), th_v2(50, 50), th_v2(3, 0), NULL);
    th_target_def follow = {.kind = TH_TARGET_AGENT, .agent = runner};
    int ta = IDX(th_world_add_target(w, &follow, NULL));
    for (int s = 0; s < 60 * 3; s++) th_world_step(w); /* 3 s: 30 m along the path */
    th_vec2 pos, vel;
    ck_assert(th_world_get_target(w, TARGET_ID(tp), &pos, &vel));
    /* Evaluated at the start of the last step, t = 179 / 60 s. */
    float t = 179.0f / 60.0f;
    ck_assert(fabsf(pos.x - (10 + 10 * t)) < 1e-3f && fabsf(pos.y - 10) < 1e-3f);
    ck_assert(fabsf(vel.x - 10) < 1e-4f && fabsf(vel.y) < 1e-4f);
    ck_assert(th_world_get_target(w, TARGET_ID(ta), &pos, &vel));
    ck_assert(pos.x > 50); /* the runner moved east */
    th_target_def bad = {.kind = TH_TARGET_PATH, .points = pts, .point_count = 0, .speed = 1};
    th_error err;
    ck_assert_int_eq(IDX(th_world_add_target(w, &bad, &err)), -1);
    bad = (th_target_def){.kind = TH_TARGET_AGENT, .agent = {TH_MAX_AGENTS + 1u, 1u}};
    ck_assert_int_eq(IDX(th_world_add_target(w, &bad, &err)), -1);
    TH_TEST_ERR(err, TH_ERR_HANDLE);
    /* An agent not yet in the world: the target is absent until it is. */
    th_target_def later = {.kind = TH_TARGET_AGENT, .agent = {2, 1}};
    int tl = IDX(th_world_add_target(w, &later, &err));
    ck_assert_int_ge(tl, 0);
    th_world_step(w);
    ck_assert(!th_world_get_target(w, TARGET_ID(tl), &pos, &vel));
    th_world_add_agent(w, CROWD_ID(0), th_v2(20, 20), th_v2(1, 0), NULL);
    th_world_step(w);
    ck_assert(th_world_get_target(w, TARGET_ID(tl), &pos, &vel));
    th_world_destroy(w);
}
END_TEST

/* ---- types ----------------------------------------------------------------------------- */

/* Mean heading (radians) of crowd c. */
static double mean_heading(const th_world *w, uint16_t c) {
    th_agent_view v = th_world_agents(w);
    double x = 0, y = 0;
    for (uint32_t k = 0; k < v.count; k++) {
        if (v.crowd[k] != c) continue;
        x += v.vx[k];
        y += v.vy[k];
    }
    return atan2(y, x);
}

/* Two crowds mixed in one box, one heading east and one north. With their own types they keep
 * apart in heading (no alignment across types); sharing one type they align into one flock. */
static double heading_gap_after(uint32_t type_a, uint32_t type_b) {
    th_world *w = open_world(60, TH_BOUNDS_WRAP);
    for (int c = 0; c < 2; c++) {
        th_crowd_def cd = th_default_crowd_def();
        cd.type = c == 0 ? type_a : type_b;
        cd.alignment_weight = 3;
        cd.cohesion_weight = 0;
        cd.separation_weight = 0.5f;
        cd.fov_deg = 360;
        th_world_add_crowd(w, &cd, NULL);
    }
    for (uint32_t i = 0; i < 1200; i++) {
        th_vec2 p = th_v2(th_rng_range(3, i, 0, 0, 60), th_rng_range(3, i, 1, 0, 60));
        th_world_add_agent(w, CROWD_ID(i % 2), p, i % 2 ? th_v2(0, 3) : th_v2(3, 0), NULL);
    }
    for (int s = 0; s < 300; s++) th_world_step(w);
    double gap = fabs(mean_heading(w, 0) - mean_heading(w, 1));
    th_world_destroy(w);
    return gap > 3.14159265358979323846 ? 2 * 3.14159265358979323846 - gap : gap;
}

START_TEST(types_flock_apart) {
    double apart = heading_gap_after(TH_TYPE_OWN, TH_TYPE_OWN);
    double together = heading_gap_after(4, 4);
    ck_assert_msg(apart > 1.2, "own types: headings %.2f rad apart, expected ~pi/2", apart);
    ck_assert_msg(together < 0.3, "one type: headings still %.2f rad apart", together);
}
END_TEST

/* ---- predators ------------------------------------------------------------------------- */

static double prey_distance(uint32_t flee_types) {
    th_world *w = open_world(100, TH_BOUNDS_WALLS);
    th_crowd_def hawk = th_default_crowd_def();
    hawk.type = 1;
    hawk.max_speed = 0.01f; /* a hawk that stays put */
    th_world_add_crowd(w, &hawk, NULL);
    th_crowd_def pigeon = th_default_crowd_def();
    pigeon.type = 2;
    pigeon.flee_types = flee_types;
    pigeon.flee_radius = 15;
    th_world_add_crowd(w, &pigeon, NULL);
    th_world_add_agent(w, CROWD_ID(0), th_v2(50, 50), th_v2(0, 0), NULL);
    for (uint32_t i = 0; i < 200; i++) {
        th_vec2 p = th_v2(th_rng_range(5, i, 0, 44, 56), th_rng_range(5, i, 1, 44, 56));
        th_world_add_agent(w, CROWD_ID(1), p, th_v2(0, 0), NULL);
    }
    for (int s = 0; s < 240; s++) th_world_step(w);
    th_agent_view v = th_world_agents(w);
    double sum = 0;
    uint32_t n = 0;
    for (uint32_t k = 0; k < v.count; k++) {
        if (v.crowd[k] != 1) continue;
        sum += hypot(v.px[k] - 50.0, v.py[k] - 50.0);
        n++;
    }
    th_world_destroy(w);
    return sum / n;
}

START_TEST(prey_flee_predators) {
    double fleeing = prey_distance(1u << 1);
    double calm = prey_distance(0);
    ck_assert_msg(fleeing > 12.0, "prey stay %.1f m from the hawk on average", fleeing);
    ck_assert_msg(fleeing > calm + 4.0, "fleeing %.1f m vs calm %.1f m", fleeing, calm);
}
END_TEST

/* A hawk 8 m west of a standing pigeon flies north at 4 m/s. Fleeing, the pigeon turns away
 * from where the hawk is: east. Evading over a 2 s horizon, it turns away from where the hawk
 * will be once it has flown the 8 m, (42, 58): south-east, at 45 degrees. */
static th_vec2 pigeon_turns(float evade) {
    th_world *w = open_world(100, TH_BOUNDS_WALLS);
    th_crowd_def hawk = th_default_crowd_def();
    hawk.type = 1;
    hawk.max_speed = 4.0f;
    th_crowd_def pigeon = th_default_crowd_def();
    pigeon.type = 2;
    pigeon.flee_types = 1u << 1;
    pigeon.flee_radius = 15;
    pigeon.evade_horizon = evade;
    th_error err;
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &hawk, &err)), 0);
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &pigeon, &err)), 1);
    th_world_add_agent(w, CROWD_ID(0), th_v2(42, 50), th_v2(0, 4), &err);
    const th_agent_id p = th_world_add_agent(w, CROWD_ID(1), th_v2(50, 50), th_v2(0, 0), &err);
    th_world_step(w);
    th_agent_state a;
    ck_assert(th_world_get_agent(w, p, &a));
    th_world_destroy(w);
    return a.acceleration;
}

START_TEST(evaders_flee_where_the_predator_will_be) {
    const th_vec2 flee = pigeon_turns(0.0f), evade = pigeon_turns(2.0f);
    const float fl = th_v2_len(flee), el = th_v2_len(evade);
    ck_assert_msg(fl > 0.1f && flee.x > 0.99f * fl, "fleeing: (%g, %g), expected east",
                  (double)flee.x, (double)flee.y);
    ck_assert_msg(el > 0.1f && fabsf(evade.x / el - 0.7071f) < 0.01f &&
                      fabsf(evade.y / el + 0.7071f) < 0.01f,
                  "evading: (%g, %g), expected south-east", (double)evade.x, (double)evade.y);
}
END_TEST

START_TEST(bad_behaviour_parameters_are_rejected) {
    th_world *w = open_world(100, TH_BOUNDS_WALLS);
    th_error err;
    th_crowd_def cd = th_default_crowd_def();
    cd.type = 40;
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), -1);
    cd = th_default_crowd_def();
    cd.target = TARGET_ID(3); /* no such target */
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), -1);
    cd = th_default_crowd_def();
    cd.lead_fov_deg = 200;
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), -1);
    th_target_def shelter = {.kind = TH_TARGET_SHELTER};
    ck_assert_int_eq(IDX(th_world_add_target(w, &shelter, &err)), -1); /* no map */
    th_world_destroy(w);
}
END_TEST

int main(void) {
    Suite *s = suite_create("behavior");
    TCase *tc = tcase_create("leaders");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, leader_election_matches_the_definition, 0,
                        (int)(sizeof k_layouts / sizeof k_layouts[0]));
    tcase_add_test(tc, standing_crowd_elects_its_front_rank);
    tcase_add_test(tc, chase_closes_and_intercept_is_faster);
    tcase_add_test(tc, path_and_agent_targets_move);
    tcase_add_test(tc, types_flock_apart);
    tcase_add_test(tc, prey_flee_predators);
    tcase_add_test(tc, evaders_flee_where_the_predator_will_be);
    tcase_add_test(tc, bad_behaviour_parameters_are_rejected);
    suite_add_tcase(s, tc);
    return th_test_run(s);
}
