/* Pedestrians with bodies, checked against published experiments and guidelines:
 * - RiMEA tests 1, 4, 6 and 12 (RiMEA e.V., "Guideline for Microscopic Evacuation Analysis",
 *   3rd edition, 2016), with the scenes in scenes/validation/;
 * - Weidmann's speed-density relation (U. Weidmann, "Transporttechnik der Fussgaenger",
 *   ETH Zuerich, 1993): v(rho) = 1.34 (1 - exp(-1.913 (1/rho - 1/5.4))) m/s;
 * - measured flows through 1 m doors, 1.3 to 1.9 persons/s (Seyfried et al. 2009, Kretz et al.
 *   2006), bounded here by 1.2 and 2.0.
 * Overlaps, wall contacts and crossings are computed here from positions read through the
 * public API, by brute force, independently of the engine's grid and contact lists. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "throng/throng.h"
#include "test_util.h"

#define VALIDATION_DIR THRONG_SCENES_DIR "/validation"

static th_world *load(const char *name, th_scene_opts o) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s.yaml", VALIDATION_DIR, name);
    th_error err;
    th_world *w = th_scene_load(path, &o, NULL, &err);
    ck_assert_msg(w != NULL, "%s: %s", name, err.message);
    return w;
}

static double weidmann(double rho) { return 1.34 * (1.0 - exp(-1.913 * (1.0 / rho - 1.0 / 5.4))); }

/* The deepest overlap between two bodies of radius r (all agents), brute force, as a share of
 * the diameter; on a torus of W x H by the nearest image when wrap. */
static double worst_overlap(const th_world *w, float r, bool wrap) {
    th_agent_view v = th_world_agents(w);
    th_world_def d = th_world_get_def(w);
    double worst = 0.0;
    for (uint32_t i = 0; i < v.count; i++) {
        for (uint32_t j = i + 1; j < v.count; j++) {
            double dx = v.px[j] - v.px[i], dy = v.py[j] - v.py[i];
            if (wrap) {
                if (dx > d.width / 2) dx -= d.width;
                if (dx < -d.width / 2) dx += d.width;
                if (dy > d.height / 2) dy -= d.height;
                if (dy < -d.height / 2) dy += d.height;
            }
            double ov = (2.0 * r - sqrt(dx * dx + dy * dy)) / (2.0 * r);
            if (ov > worst) worst = ov;
        }
    }
    return worst;
}

/* How deep the disc (p, r) reaches into the nearest blocked cell (0 when it touches none),
 * from the map's cells read one by one. */
static double wall_penetration(const th_world *w, th_vec2 p, float r) {
    int32_t cols, rows;
    float cs;
    ck_assert(th_world_map_size(w, &cols, &rows, &cs));
    double worst = 0.0;
    for (int32_t y = (int32_t)floorf((p.y - r) / cs); y <= (int32_t)floorf((p.y + r) / cs); y++) {
        for (int32_t x = (int32_t)floorf((p.x - r) / cs); x <= (int32_t)floorf((p.x + r) / cs);
             x++) {
            /* On a torus the cells past an edge are those at the other edge. */
            int32_t cx = x, cy = y;
            if (th_world_get_def(w).bounds == TH_BOUNDS_WRAP) {
                cx = ((x % cols) + cols) % cols;
                cy = ((y % rows) + rows) % rows;
            }
            if (th_world_cell(w, cx, cy, NULL) == TH_CELL_OPEN) continue;
            double qx = fmax(x * cs, fmin(p.x, (x + 1) * cs));
            double qy = fmax(y * cs, fmin(p.y, (y + 1) * cs));
            double d = hypot(p.x - qx, p.y - qy);
            if (r - d > worst) worst = r - d;
        }
    }
    return worst;
}

/* Seconds until `n` agents have been sheltered, or -1 within `max_steps`. */
static double time_until_sheltered(th_world *w, uint32_t n, uint32_t max_steps) {
    float dt = th_world_get_def(w).timestep;
    for (uint32_t s = 0; s < max_steps; s++) {
        th_world_step(w);
        if (th_world_get_stats(w).sheltered >= n) return (double)th_world_step_count(w) * dt;
    }
    return -1.0;
}

/* ---- RiMEA ------------------------------------------------------------------------------- */

START_TEST(rimea1_walker_arrives_in_time) {
    th_world *w = load("rimea1_corridor", (th_scene_opts){.threads = 1});
    /* The walkway is 40 m: the walker starts at its start and is sheltered past its end. */
    double t = time_until_sheltered(w, 1, 60 * 60);
    ck_assert_msg(t >= 26.0 && t <= 34.0, "arrived after %.2f s", t);
    th_world_destroy(w);
}
END_TEST

/* Mean speed and density in a 2 m x 2 m area in the middle of the periodic corridor, over 40 s
 * after 20 s of warm-up, for the nominal density rho (the corridor's walkway is 20 m x 3 m; the
 * density in the area is measured, as RiMEA test 4 asks: walkers keep off the walls a little,
 * so the middle holds a little less than the nominal density). */
static double corridor_speed(double rho, uint64_t seed, double *measured) {
    th_scene_opts o = {
        .threads = 2, .agents = (uint32_t)lround(rho * 60.0), .override_seed = true, .seed = seed};
    th_world *w = load("rimea4_corridor", o);
    double sum = 0.0;
    long n = 0, samples = 0;
    for (int s = 0; s < 3600; s++) {
        th_world_step(w);
        if (s < 1200) continue;
        samples++;
        th_agent_view v = th_world_agents(w);
        for (uint32_t k = 0; k < v.count; k++) {
            if (v.px[k] >= 9 && v.px[k] < 11 && v.py[k] >= 2 && v.py[k] < 4) {
                sum += hypot(v.vx[k], v.vy[k]);
                n++;
            }
        }
    }
    th_world_destroy(w);
    ck_assert_int_gt(n, 0);
    *measured = (double)n / (double)samples / 4.0;
    return sum / (double)n;
}

START_TEST(rimea4_speed_follows_weidmann) {
    static const double rho[] = {0.5, 1, 2, 3, 4};
    double at;
    const double v = corridor_speed(rho[_i], 21, &at), ref = weidmann(at);
    const double tol = fmax(0.25 * ref, 0.1);
    /* The measured density stays near the nominal one (the test is about the density asked). */
    ck_assert_msg(fabs(at - rho[_i]) < 0.25 * rho[_i], "density %.1f: measured %.2f", rho[_i], at);
    ck_assert_msg(fabs(v - ref) <= tol,
                  "density %.1f (measured %.2f): mean speed %.3f m/s, Weidmann %.3f +- %.3f",
                  rho[_i], at, v, ref, tol);
}
END_TEST

START_TEST(rimea6_no_body_overlaps_the_walls) {
    th_world *w = load("rimea6_corner", (th_scene_opts){.threads = 2});
    const float r = th_world_get_crowd(w, CROWD_ID(0))->body_radius;
    double worst = 0.0;
    for (int s = 0; s < 3600 && th_world_agent_count(w) > 0; s++) {
        th_world_step(w);
        th_agent_view v = th_world_agents(w);
        for (uint32_t k = 0; k < v.count; k++) {
            double pen = wall_penetration(w, th_v2(v.px[k], v.py[k]), r);
            if (pen > worst) worst = pen;
        }
    }
    ck_assert_msg(worst <= 0.01 * r, "a body reached %.4f m into a wall", worst);
    ck_assert_uint_eq(th_world_get_stats(w).sheltered, 20); /* and everyone got round */
    th_world_destroy(w);
}
END_TEST

/* Flow over a set of passage times: people after the first per second until the last. */
static double flow_of(const double *t, uint32_t n) { return (double)(n - 1) / (t[n - 1] - t[0]); }

START_TEST(rimea12_congestion_only_before_the_corridor) {
    th_world *w = load("rimea12_bottleneck", (th_scene_opts){.threads = 2});
    enum { N = 150 };
    const float end_x = 15.5f, dt = th_world_get_def(w).timestep;
    static double cross[N], leave[N];
    static float last_x[N];
    uint32_t crossed = 0, left = 0;
    th_agent_view v = th_world_agents(w);
    for (uint32_t k = 0; k < v.count; k++) last_x[th_test_slot(v.id[k])] = v.px[k];
    for (int s = 0; s < 20000 && left < N; s++) {
        th_world_step(w);
        double t = (double)th_world_step_count(w) * dt;
        v = th_world_agents(w);
        for (uint32_t k = 0; k < v.count; k++) {
            const uint32_t id = th_test_slot(v.id[k]);
            if (last_x[id] < end_x && v.px[k] >= end_x && crossed < N) cross[crossed++] = t;
            last_x[id] = v.px[k];
        }
        uint32_t sheltered = th_world_get_stats(w).sheltered;
        while (left < sheltered && left < N) leave[left++] = t;
    }
    ck_assert_uint_eq(left, N);
    ck_assert_uint_eq(crossed, N); /* everyone came through the corridor, once */
    const double f_corridor = flow_of(cross, N), f_exit = flow_of(leave, N);
    ck_assert_msg(f_corridor >= f_exit - 0.05, "corridor end %.3f persons/s, exit %.3f", f_corridor,
                  f_exit);
    th_world_destroy(w);
}
END_TEST

/* Flow between the 10th and the 190th person out of the door_flow scene `name`. */
static double door_flow(const char *name, uint64_t seed) {
    th_world *w = load(name, (th_scene_opts){.threads = 2, .override_seed = true, .seed = seed});
    double t10 = time_until_sheltered(w, 10, 60 * 300);
    double t190 = time_until_sheltered(w, 190, 60 * 300);
    th_world_destroy(w);
    ck_assert(t10 > 0 && t190 > 0);
    return 180.0 / (t190 - t10);
}

START_TEST(door_flow_matches_experiments) {
    /* Three seeds: the flow is a property of the model, not of one draw. */
    const double flow = door_flow("door_flow", 1 + (uint64_t)_i);
    ck_assert_msg(flow >= 1.2 && flow <= 2.0, "seed %d: %.3f persons/s through a 1 m door", 1 + _i,
                  flow);
}
END_TEST

START_TEST(door_flow_grows_with_width) {
    const double narrow = door_flow("door_flow", 4), wide = door_flow("door_flow_2m", 4);
    ck_assert_msg(wide / 2.0 >= 1.2 && wide / 2.0 <= 2.0, "%.3f persons/s through 2 m", wide);
    ck_assert_msg(wide >= 1.7 * narrow && wide <= 2.5 * narrow,
                  "2 m door %.3f persons/s against %.3f through 1 m", wide, narrow);
}
END_TEST

/* ---- bodies ------------------------------------------------------------------------------ */

/* Dense bodies dropped at random (overlapping) into a walled square, walking in four
 * directions: after a few steps no two overlap by more than a tenth of a diameter. */
START_TEST(bodies_never_overlap_after_settling) {
    th_world_def wd = th_default_world_def();
    wd.width = wd.height = 20.0f;
    wd.threads = 2;
    th_world *w = th_world_create(&wd, NULL);
    th_crowd_def cd = th_default_pedestrian_def();
    for (int k = 0; k < 4; k++) {
        cd.heading = th_v2(k == 0   ? 1.0f
                           : k == 2 ? -1.0f
                                    : 0.0f,
                           k == 1   ? 1.0f
                           : k == 3 ? -1.0f
                                    : 0.0f);
        ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, NULL)), k);
    }
    uint64_t rng = 7;
    for (int i = 0; i < 1200; i++) { /* 3 persons/m2 */
        float x = 0.2f + 19.6f * (float)(splitmix64(&rng) >> 40) / 16777216.0f;
        float y = 0.2f + 19.6f * (float)(splitmix64(&rng) >> 40) / 16777216.0f;
        ck_assert(th_agent_id_valid(
            th_world_add_agent(w, CROWD_ID(i % 4u), th_v2(x, y), th_v2(0, 0), NULL)));
    }
    double first = 0.0, worst = 0.0;
    for (int s = 0; s < th_test_steps(600); s++) {
        th_world_step(w);
        if (s == 0) first = worst_overlap(w, cd.body_radius, false);
        if (s >= 5 && s % 25 == 0) worst = fmax(worst, worst_overlap(w, cd.body_radius, false));
    }
    ck_assert_msg(worst <= 0.1, "overlap of %.3f diameters", worst);
    ck_assert_msg(first <= 0.5, "first step left an overlap of %.3f diameters", first);
    /* And inside the walled edges, with a radius to spare. */
    th_agent_view v = th_world_agents(w);
    for (uint32_t k = 0; k < v.count; k++) {
        CHECK(v.px[k] >= 0.199f && v.px[k] <= 19.801f && v.py[k] >= 0.199f && v.py[k] <= 19.801f);
    }
    th_world_destroy(w);
}
END_TEST

/* Bodies are not only for pedestrians: a flock of boids with bodies on a torus keeps apart, and
 * its hash does not depend on the thread count. */
/* A world stepped longer than pedestrian bodies hold (TH_PED_MAX_TIMESTEP) refuses a pedestrian
 * crowd, saying why; at the bound it takes one; boids take any timestep. */
START_TEST(pedestrians_refuse_long_timesteps) {
    const float steps[3] = {TH_PED_MAX_TIMESTEP, 0.06f, 1.0f};
    for (int k = 0; k < 3; k++) {
        th_world_def wd = th_default_world_def();
        wd.timestep = steps[k];
        th_world *w = th_world_create(&wd, NULL);
        ck_assert_ptr_nonnull(w);
        th_crowd_def cd = th_default_crowd_def();
        cd.model = TH_MODEL_PEDESTRIAN;
        th_error err;
        const th_crowd_id c = th_world_add_crowd(w, &cd, &err);
        if (k == 0) {
            ck_assert_int_eq(IDX(c), 0);
        } else {
            ck_assert_int_eq(c.index1, 0);
            ck_assert_int_eq(err.code, TH_ERR_INVALID);
            ck_assert_ptr_nonnull(strstr(err.message, "timestep of at most 0.05 s"));
            cd.model = TH_MODEL_BOIDS;
            ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, NULL)), 0);
        }
        th_world_destroy(w);
    }
}
END_TEST

START_TEST(boids_with_bodies_keep_apart) {
    uint64_t hash[2];
    for (int t = 0; t < 2; t++) {
        th_world_def wd = th_default_world_def();
        wd.width = wd.height = 40.0f;
        wd.bounds = TH_BOUNDS_WRAP;
        wd.threads = t == 0 ? 1 : 3;
        th_world *w = th_world_create(&wd, NULL);
        th_crowd_def cd = th_default_crowd_def();
        cd.body_radius = 0.5f;
        ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, NULL)), 0);
        uint64_t rng = 11;
        for (int i = 0; i < 1000; i++) {
            float x = 40.0f * (float)(splitmix64(&rng) >> 40) / 16777216.0f;
            float y = 40.0f * (float)(splitmix64(&rng) >> 40) / 16777216.0f;
            float a = 6.2831853f * (float)(splitmix64(&rng) >> 40) / 16777216.0f;
            th_world_add_agent(w, CROWD_ID(0), th_v2(x, y), th_v2(2.0f * cosf(a), 2.0f * sinf(a)),
                               NULL);
        }
        th_world_set_validation(w, true);
        double worst = 0.0;
        for (int s = 0; s < th_test_steps(300); s++) {
            th_world_step(w);
            if (s % 50 == 49) worst = fmax(worst, worst_overlap(w, cd.body_radius, true));
        }
        ck_assert_msg(th_world_validation_error(w) == NULL, "%s", th_world_validation_error(w));
        ck_assert_msg(worst <= 0.1, "overlap of %.3f diameters", worst);
        hash[t] = th_world_hash(w);
        th_world_destroy(w);
    }
    ck_assert_uint_eq(hash[0], hash[1]);
}
END_TEST

/* Every scene with bodies, shipped or for validation, runs under validation (which checks the
 * overlap bound after every step) and passes an independent brute-force check. */
static void check_scene_dir(const char *dir, int *count) {
    static const char *const names[][2] = {
        {THRONG_SCENES_DIR, "air_raid"},        {THRONG_SCENES_DIR, "maze_evac"},
        {THRONG_SCENES_DIR, "rubble"},          {VALIDATION_DIR, "rimea1_corridor"},
        {VALIDATION_DIR, "rimea4_corridor"},    {VALIDATION_DIR, "rimea6_corner"},
        {VALIDATION_DIR, "rimea12_bottleneck"}, {VALIDATION_DIR, "door_flow"},
        {VALIDATION_DIR, "door_flow_2m"},       {THRONG_SCENES_DIR, "flood"},
    };
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        if (strcmp(names[k][0], dir) != 0) continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s.yaml", dir, names[k][1]);
        th_error err;
        th_scene_info info;
        th_world *w = th_scene_load(path, &(th_scene_opts){.threads = 2, .agents = 0}, &info, &err);
        ck_assert_msg(w != NULL, "%s: %s", path, err.message);
        if (info.agents > 2000) {
            th_world_destroy(w);
            w = th_scene_load(path, &(th_scene_opts){.threads = 2, .agents = 2000}, &info, &err);
        }
        const th_crowd_def *cd = th_world_get_crowd(w, CROWD_ID(0));
        ck_assert_msg(cd->body_radius > 0.0f, "%s has no bodies", path);
        th_world_set_validation(w, true);
        double worst = 0.0;
        for (int s = 0; s < th_test_steps(900); s++) {
            th_world_step(w);
            if (s % 100 == 99) worst = fmax(worst, worst_overlap(w, cd->body_radius, false));
        }
        ck_assert_msg(th_world_validation_error(w) == NULL, "%s: %s", path,
                      th_world_validation_error(w));
        ck_assert_msg(worst <= 0.1, "%s: overlap of %.3f diameters", path, worst);
        th_world_destroy(w);
        (*count)++;
    }
}

START_TEST(every_scene_with_bodies_keeps_the_overlap_bound) {
    int count = 0;
    check_scene_dir(THRONG_SCENES_DIR, &count);
    check_scene_dir(VALIDATION_DIR, &count);
    ck_assert_int_eq(count, 10);
}
END_TEST

START_TEST(same_hash_for_any_thread_count) {
    static const unsigned threads[] = {1, 2, 3, 8};
    uint64_t hash[4];
    for (int t = 0; t < 4; t++) {
        th_world *w =
            _i == 0
                ? load("door_flow", (th_scene_opts){.threads = threads[t]})
                : th_demo_create("pedestrians",
                                 &(th_demo_opts){.agents = 3000, .seed = 3, .threads = threads[t]},
                                 NULL);
        ck_assert_ptr_nonnull(w);
        for (int s = 0; s < th_test_steps(400); s++) th_world_step(w);
        hash[t] = th_world_hash(w);
        th_world_destroy(w);
    }
    for (int t = 1; t < 4; t++) ck_assert_uint_eq(hash[t], hash[0]);
}
END_TEST

/* A pedestrian crowd added to a world that has stepped without one: the pedestrians' own agent
 * arrays (gathered only in worlds with pedestrians) start at zero for every agent there, so the
 * walkers cross the flock the same way on any thread count, at about their free speed. */
START_TEST(walkers_join_a_running_flock) {
    static const unsigned threads[] = {1, 3};
    uint64_t hash[2];
    for (int t = 0; t < 2; t++) {
        th_world_def wd = th_default_world_def();
        wd.width = wd.height = 40.0f;
        wd.threads = threads[t];
        wd.seed = 11;
        th_world *w = th_world_create(&wd, NULL);
        ck_assert_ptr_nonnull(w);
        th_crowd_def boids = th_default_crowd_def();
        ck_assert_int_eq(IDX(th_world_add_crowd(w, &boids, NULL)), 0);
        uint64_t rng = 5;
        for (int i = 0; i < 800; i++) {
            const float x = 40.0f * (float)(splitmix64(&rng) >> 40) / 16777216.0f;
            const float y = 40.0f * (float)(splitmix64(&rng) >> 40) / 16777216.0f;
            ck_assert(th_agent_id_valid(
                th_world_add_agent(w, CROWD_ID(0u), th_v2(x, y), th_v2(1.0f, 0.5f), NULL)));
        }
        for (int s = 0; s < th_test_steps(50); s++) th_world_step(w);
        th_crowd_def cd = th_default_pedestrian_def();
        cd.heading = th_v2(1.0f, 0.0f);
        cd.desired_speed_sd = 0.0f;
        ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, NULL)), 1);
        th_agent_id walker[50];
        for (int i = 0; i < 50; i++) {
            walker[i] = th_world_add_agent(w, CROWD_ID(1u),
                                           th_v2(2.0f + (float)(i % 5), 5.0f + 0.6f * (float)i),
                                           th_v2(0.0f, 0.0f), NULL);
            ck_assert(th_agent_id_valid(walker[i]));
        }
        for (int s = 0; s < 120; s++) th_world_step(w); /* 2 s */
        double moved = 0.0;
        for (int i = 0; i < 50; i++) {
            th_agent_state st;
            ck_assert(th_world_get_agent(w, walker[i], &st));
            moved += st.velocity.x;
        }
        moved /= 50.0;
        ck_assert_msg(moved > 0.5 * cd.desired_speed && moved < 1.2 * cd.desired_speed,
                      "mean speed along the heading %.3f m/s, free speed %.3f", moved,
                      (double)cd.desired_speed);
        hash[t] = th_world_hash(w);
        th_world_destroy(w);
    }
    ck_assert_uint_eq(hash[1], hash[0]);
}
END_TEST

/* ---- terrain and corridors --------------------------------------------------------------- */

START_TEST(stairs_slow_walking_but_not_routing) {
    th_world_def wd = th_default_world_def();
    wd.width = 40.0f;
    wd.height = 4.0f;
    wd.cell_size = 1.0f;
    wd.threads = 1;
    th_error err;
    th_world *w = th_world_create(&wd, &err);
    for (int32_t y = 0; y < 4; y++) {
        for (int32_t x = 15; x < 25; x++) ck_assert(th_world_set_cell_speed(w, x, y, 0.6f, &err));
    }
    ck_assert(!th_world_set_cell_speed(w, 1, 1, 0.0f, &err));
    ck_assert(!th_world_set_cell_speed(w, 1, 1, 1.5f, &err));
    ck_assert(!th_world_set_cell_speed(w, 99, 1, 0.5f, &err));
    ck_assert_float_eq(th_world_cell_speed(w, 20, 2), 0.6f);
    ck_assert_float_eq(th_world_cell_speed(w, 5, 2), 1.0f);
    uint32_t cost = 0;
    ck_assert_int_eq(th_world_cell(w, 20, 2, &cost), TH_CELL_OPEN);
    ck_assert_uint_eq(cost, 1); /* the routing cost is its own */
    th_crowd_def cd = th_default_pedestrian_def();
    cd.desired_speed = 1.2f;
    cd.desired_speed_sd = 0.0f;
    cd.heading = th_v2(1, 0);
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), 0);
    th_agent_id id = th_world_add_agent(w, CROWD_ID(0), th_v2(2, 2), th_v2(0, 0), &err);
    double on_stairs = 0, on_street = 0;
    for (int s = 0; s < 60 * 30; s++) {
        th_world_step(w);
        th_agent_state a;
        ck_assert(th_world_get_agent(w, id, &a));
        float speed = th_v2_len(a.velocity);
        if (a.position.x > 18 && a.position.x < 22) on_stairs = speed;
        if (a.position.x > 30 && a.position.x < 34) on_street = speed;
    }
    ck_assert_msg(fabs(on_stairs - 0.72) < 0.02, "on stairs %.3f m/s", on_stairs);
    ck_assert_msg(fabs(on_street - 1.2) < 0.02, "on the street %.3f m/s", on_street);
    th_world_destroy(w);
}
END_TEST

START_TEST(periodic_corridor_keeps_walkers_between_its_walls) {
    th_world *w = load("rimea4_corridor", (th_scene_opts){.threads = 2, .agents = 60});
    const float r = th_world_get_crowd(w, CROWD_ID(0))->body_radius;
    uint32_t wraps = 0;
    static float last_x[60];
    th_agent_view v = th_world_agents(w);
    for (uint32_t k = 0; k < v.count; k++) last_x[th_test_slot(v.id[k])] = v.px[k];
    for (int s = 0; s < 1800; s++) {
        th_world_step(w);
        v = th_world_agents(w);
        for (uint32_t k = 0; k < v.count; k++) {
            if (v.px[k] < last_x[th_test_slot(v.id[k])] - 10.0f)
                wraps++; /* came back in at the west end */
            last_x[th_test_slot(v.id[k])] = v.px[k];
            CHECK(v.py[k] >= 1.5f + 0.99f * r && v.py[k] <= 4.5f - 0.99f * r);
            CHECK(wall_penetration(w, th_v2(v.px[k], v.py[k]), r) <= 0.01 * r);
        }
    }
    ck_assert_uint_eq(th_world_agent_count(w), 60);
    ck_assert_uint_ge(wraps, 60); /* 30 s at about 1.2 m/s: everyone rounds the 20 m torus */
    th_world_destroy(w);
}
END_TEST

/* ---- bad input --------------------------------------------------------------------------- */

START_TEST(bad_pedestrian_parameters_are_refused) {
    th_world *w = th_world_create(
        &(th_world_def){.width = 10, .height = 10, .timestep = 0.02f, .seed = 1}, NULL);
    th_error err;
    th_crowd_def cd = th_default_pedestrian_def();
    cd.body_radius = -0.1f;
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), -1);
    TH_TEST_ERR(err, TH_ERR_INVALID);
    ck_assert_ptr_nonnull(strstr(err.message, "body_radius"));
    cd = th_default_pedestrian_def();
    cd.desired_speed = 3.0f; /* above max_speed 2.5 */
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), -1);
    TH_TEST_ERR(err, TH_ERR_INVALID);
    cd = th_default_pedestrian_def();
    cd.time_gap = 0.0f;
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), -1);
    cd = th_default_pedestrian_def();
    cd.heading = th_v2(NAN, 0);
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), -1);
    cd = th_default_pedestrian_def();
    cd.model = (th_model)7;
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), -1);
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &(th_crowd_def){0}, &err)), -1);
    ck_assert_int_eq(IDX(th_world_add_crowd(w, NULL, &err)), 0); /* the default def */
    th_world_destroy(w);
}
END_TEST

typedef struct bad_case {
    const char *what, *yaml;
    unsigned line, column;
    th_error_code code;
} bad_case;

#define PED_HEAD \
    "name: t\nworld:\n  size: [20, 20]\ncrowds:\n  - name: a\n    count: 5\n    spawn: {rect: [1, 1, 5, 5]}\n"
static const bad_case k_bad[] = {
    {"unknown model", PED_HEAD "    model: robots\n", 8, 12, TH_ERR_SCENE_VALUE},
    {"pedestrian key on boids", PED_HEAD "    time_gap: 1\n", 8, 15, TH_ERR_SCENE_VALUE},
    {"body radius too large", PED_HEAD "    body_radius: 7\n", 8, 18, TH_ERR_SCENE_VALUE},
    {"desired speed above max", PED_HEAD "    model: pedestrian\n    desired_speed: 3\n", 9, 20,
     TH_ERR_SCENE_VALUE},
    {"spread above the mean", PED_HEAD "    model: pedestrian\n    desired_speed_sd: 2\n", 9, 23,
     TH_ERR_SCENE_VALUE},
    {"zero heading", PED_HEAD "    model: pedestrian\n    heading: [0, 0]\n", 9, 14,
     TH_ERR_SCENE_VALUE},
    {"heading of one number", PED_HEAD "    model: pedestrian\n    heading: [1]\n", 9, 14,
     TH_ERR_SCENE_VALUE},
    {"legend speed above 1",
     "name: t\nmap:\n  cell_size: 1\n  legend: {'.': open, 's': {speed: 1.5}}\n  ascii: '.s'\n", 4,
     36, TH_ERR_SCENE_VALUE},
    {"legend speed and a bunker",
     "name: t\nmap:\n  cell_size: 1\n  legend: {'.': open, 's': {speed: 0.5, bunker: b}}\n  ascii: '.s'\n",
     4, 28, TH_ERR_SCENE_VALUE},
    {"map bounds unknown",
     "name: t\nmap:\n  cell_size: 1\n  bounds: torus\n  legend: {'.': open}\n  ascii: '..'\n", 4,
     11, TH_ERR_SCENE_VALUE},
};

START_TEST(bad_scene_keys_name_their_place) {
    const bad_case *c = &k_bad[_i];
    th_error err = {0};
    th_world *w = th_scene_load(th_test_write_text("scene.yaml", c->yaml), NULL, NULL, &err);
    if (w) th_world_destroy(w);
    ck_assert_msg(w == NULL, "%s: loaded although broken", c->what);
    th_test_scene_error(c->what, &err, "scene.yaml", c->line, c->column, "", c->code);
}
END_TEST

/* Under ThreadSanitizer (ten times slower) the model's validation against experiments is left
 * to the other builds: races would show in the threaded cases of "bodies" just as well. */
int main(void) {
    if (!th_test_dir_make("pedestrian")) return EXIT_FAILURE;
    Suite *s = suite_create("pedestrian");
    TCase *t;
    if (!TH_TEST_TSAN) {
        t = tcase_create("rimea");
        tcase_set_timeout(t, 600);
        tcase_add_test(t, rimea1_walker_arrives_in_time);
        tcase_add_loop_test(t, rimea4_speed_follows_weidmann, 0, 5);
        tcase_add_test(t, rimea6_no_body_overlaps_the_walls);
        tcase_add_test(t, rimea12_congestion_only_before_the_corridor);
        tcase_add_loop_test(t, door_flow_matches_experiments, 0, 3);
        tcase_add_test(t, door_flow_grows_with_width);
        suite_add_tcase(s, t);
    }
    t = tcase_create("bodies");
    tcase_set_timeout(t, 600);
    tcase_add_test(t, bodies_never_overlap_after_settling);
    tcase_add_test(t, every_scene_with_bodies_keeps_the_overlap_bound);
    tcase_add_test(t, pedestrians_refuse_long_timesteps);
    tcase_add_test(t, boids_with_bodies_keep_apart);
    tcase_add_loop_test(t, same_hash_for_any_thread_count, 0, 2);
    if (!TH_TEST_TSAN) tcase_add_test(t, stairs_slow_walking_but_not_routing); /* one thread */
    tcase_add_test(t, periodic_corridor_keeps_walkers_between_its_walls);
    tcase_add_test(t, walkers_join_a_running_flock);
    suite_add_tcase(s, t);
    t = tcase_create("input");
    tcase_add_test(t, bad_pedestrian_parameters_are_refused);
    tcase_add_loop_test(t, bad_scene_keys_name_their_place, 0,
                        (int)(sizeof k_bad / sizeof k_bad[0]));
    suite_add_tcase(s, t);
    const int rc = th_test_run(s);
    return th_test_dir_remove() ? rc : EXIT_FAILURE;
}
