/* The public world API (throng/throng.h) as a user sees it: validation of every def, agent ids that
 * survive the engine's reordering, agents kept inside the world, the agent view, the state hash
 * and the statistics; the digest of how a world was built, part by part. */
#include <check.h>
#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/jobs.h"
#include "engine/rng.h"
#include "sim/observe/digest.h"
#include "test_util.h"
#include "throng/throng.h"

/* Case-insensitive substring test for error messages. */
static bool mentions(const char *text, const char *word) {
    size_t n = strlen(word);
    for (const char *p = text; *p; p++) {
        size_t i = 0;
        while (i < n && p[i] && tolower((unsigned char)p[i]) == tolower((unsigned char)word[i]))
            i++;
        if (i == n) return true;
    }
    return false;
}

static th_world *make_world(float w, float h, th_bounds b, uint32_t threads) {
    th_world_def wd = th_default_world_def();
    wd.width = w;
    wd.height = h;
    wd.bounds = b;
    wd.threads = threads;
    th_error err = {0};
    th_world *world = th_world_create(&wd, &err);
    ck_assert_msg(world != NULL, "%s", err.message);
    return world;
}

static int add_crowd(th_world *w, th_crowd_def cd) {
    th_error err = {0};
    int c = IDX(th_world_add_crowd(w, &cd, &err));
    ck_assert_msg(c >= 0, "%s", err.message);
    return c;
}

/* `n` agents spread by a counter-based draw over [x0, x1) x [y0, y1), speeds up to `vmax`. */
static void add_random_agents(th_world *w, uint32_t crowd, uint32_t n, float x0, float x1, float y0,
                              float y1, float vmax, uint64_t seed) {
    th_error err = {0};
    uint32_t first = th_world_agent_count(w);
    for (uint32_t i = 0; i < n; i++) {
        float x = th_rng_range(seed, i, 0, x0, x1);
        float y = th_rng_range(seed, i, 1, y0, y1);
        float vx = th_rng_range(seed, i, 2, -vmax, vmax);
        float vy = th_rng_range(seed, i, 3, -vmax, vmax);
        th_agent_id id = th_world_add_agent(w, CROWD_ID(crowd), th_v2(x, y), th_v2(vx, vy), &err);
        CHECK_MSG(th_agent_id_eq(id, th_test_id(first + i)), "agent %u got id %u.%u: %s", first + i,
                  id.index1, id.generation, err.message);
    }
}

/* ---- world def validation ------------------------------------------------------------- */

typedef struct bad_world {
    const char *what;
    const char *keyword; /* the message must name the offending setting */
    th_world_def def;
} bad_world;

static th_world_def wdef(float w, float h, float dt, uint32_t threads) {
    th_world_def d = th_default_world_def();
    d.width = w;
    d.height = h;
    d.timestep = dt;
    d.threads = threads;
    return d;
}

START_TEST(test_bad_world_defs) {
    const float dt = 1.0f / 60.0f;
    th_world_def bad_bounds = th_default_world_def();
    bad_bounds.bounds = (th_bounds)7;
    th_world_def bad_cap = th_default_world_def();
    bad_cap.agent_capacity = TH_MAX_AGENTS + 1;
    th_world_def stall_neg = th_default_world_def(), stall_nan = stall_neg, stall_huge = stall_neg;
    stall_neg.stall_time = -1.0f;
    stall_nan.stall_time = NAN;
    stall_huge.stall_time = 2e6f;
    const bad_world cases[] = {
        {"zero width", "size", wdef(0.0f, 10.0f, dt, 1)},
        {"zero height", "size", wdef(10.0f, 0.0f, dt, 1)},
        {"negative width", "size", wdef(-5.0f, 10.0f, dt, 1)},
        {"negative height", "size", wdef(10.0f, -0.001f, dt, 1)},
        {"NaN width", "size", wdef(NAN, 10.0f, dt, 1)},
        {"NaN height", "size", wdef(10.0f, NAN, dt, 1)},
        {"infinite width", "size", wdef(INFINITY, 10.0f, dt, 1)},
        {"huge width", "size", wdef(2.0e6f, 10.0f, dt, 1)},
        {"huge height", "size", wdef(10.0f, 1.0e30f, dt, 1)},
        {"zero timestep", "timestep", wdef(10.0f, 10.0f, 0.0f, 1)},
        {"negative timestep", "timestep", wdef(10.0f, 10.0f, -dt, 1)},
        {"NaN timestep", "timestep", wdef(10.0f, 10.0f, NAN, 1)},
        {"infinite timestep", "timestep", wdef(10.0f, 10.0f, INFINITY, 1)},
        {"timestep over 1 s", "timestep", wdef(10.0f, 10.0f, 2.0f, 1)},
        {"65 threads", "threads", wdef(10.0f, 10.0f, dt, TH_MAX_THREADS + 1)},
        {"999 threads", "threads", wdef(10.0f, 10.0f, dt, 999)},
        {"bad bounds", "bounds", bad_bounds},
        {"huge capacity", "capacity", bad_cap},
        {"negative stall time", "stall_time", stall_neg},
        {"NaN stall time", "stall_time", stall_nan},
        {"huge stall time", "stall_time", stall_huge},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        th_error err = {0};
        th_world *w = th_world_create(&cases[i].def, &err);
        ck_assert_msg(w == NULL, "%s accepted", cases[i].what);
        TH_TEST_ERR(err, TH_ERR_INVALID);
        ck_assert_msg(mentions(err.message, cases[i].keyword), "%s: message '%s' lacks '%s'",
                      cases[i].what, err.message, cases[i].keyword);
        /* No error struct: still rejected, no crash. */
        ck_assert_ptr_null(th_world_create(&cases[i].def, NULL));
    }
}
END_TEST

/* Stall counts and the end of a scene through the public API: arguments checked, the default
 * threshold and a set one reported, a flock never stalled and never over, an empty world over. */
START_TEST(test_stall_api) {
    th_stall_info si = {.stalled = 77};
    ck_assert(!th_world_get_stall_info(NULL, &si));
    ck_assert_uint_eq(si.stalled, 77);
    ck_assert(!th_world_scene_over(NULL));
    th_world *w = make_world(40.0f, 40.0f, TH_BOUNDS_WALLS, 2);
    ck_assert(!th_world_get_stall_info(w, NULL));
    ck_assert(th_world_get_stall_info(w, &si));
    ck_assert_float_eq(si.stall_time, 10.0f);
    ck_assert(th_world_scene_over(w)); /* nobody, nothing to come */
    th_crowd_def cd = th_default_crowd_def();
    th_crowd_id crowd = th_world_add_crowd(w, &cd, NULL);
    for (uint64_t i = 0; i < 50; i++) {
        th_vec2 p = th_v2(th_rng_range(9, i, 0, 5.0f, 35.0f), th_rng_range(9, i, 1, 5.0f, 35.0f));
        ck_assert(th_world_add_agent(w, crowd, p, th_v2(0, 0), NULL).index1 != 0);
    }
    for (int s = 0; s < 900; s++) th_world_step(w); /* 15 s: past the threshold */
    ck_assert(th_world_get_stall_info(w, &si));
    ck_assert_uint_eq(si.stalled, 0);
    ck_assert_uint_eq(th_world_get_stats(w).stalled, 0);
    ck_assert(!th_world_scene_over(w)); /* a flock keeps moving */
    th_world_destroy(w);
    th_world_def wd = th_default_world_def();
    wd.stall_time = 3.0f;
    w = th_world_create(&wd, NULL);
    ck_assert_ptr_nonnull(w);
    ck_assert(th_world_get_stall_info(w, &si));
    ck_assert_float_eq(si.stall_time, 3.0f);
    th_world_destroy(w);
}
END_TEST

/* ---- the digest of how a world was built ------------------------------------------------ */

/* A small world with a map of 0.5 m cells (or `def` when given), a crowd and an agent. */
static th_world *digest_world(const th_world_def *def, float max_speed) {
    th_world_def wd = th_default_world_def();
    wd.width = 20.0f;
    wd.height = 10.0f;
    wd.cell_size = 0.5f;
    wd.threads = 1;
    if (def) wd = *def;
    th_error err;
    th_world *w = th_world_create(&wd, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    th_crowd_def cd = th_default_pedestrian_def();
    cd.max_speed = max_speed;
    cd.desired_speed_sd = 0.0f; /* speeds drawn from the seed would enter the agents part */
    ck_assert_msg(IDX(th_world_add_crowd(w, &cd, &err)) == 0, "%s", err.message);
    ck_assert(th_world_add_agent(w, CROWD_ID(0), th_v2(3, 3), th_v2(0, 0), &err).index1);
    return w;
}

/* Two worlds built alike but for one thing: the digest part that covers it differs, and every
 * part that does not cover it is the same. */
static void digest_differs(th_world *a, th_world *b, th_digest_part part, const char *what,
                           bool others_same) {
    uint64_t da[TH_DIGEST_PARTS], db[TH_DIGEST_PARTS];
    th_world_digest(a, da);
    th_world_digest(b, db);
    ck_assert_msg(da[part] != db[part], "%s: the %s part is the same", what,
                  th_digest_part_name(part));
    for (uint32_t p = 0; others_same && p < TH_DIGEST_PARTS; p++)
        ck_assert_msg(p == (uint32_t)part || da[p] == db[p], "%s: the %s part differs too", what,
                      th_digest_part_name(p));
    th_world_destroy(a);
    th_world_destroy(b);
}

START_TEST(test_digest_parts_follow_their_fields) {
    th_world_def base = th_default_world_def();
    base.width = 20.0f;
    base.height = 10.0f;
    base.cell_size = 0.5f;
    base.threads = 1;
    th_world_def d = base;
    /* Built alike: every part the same. */
    uint64_t da[TH_DIGEST_PARTS], db[TH_DIGEST_PARTS];
    th_world *a = digest_world(&base, 2.0f), *b = digest_world(&base, 2.0f);
    th_world_digest(a, da);
    th_world_digest(b, db);
    for (uint32_t p = 0; p < TH_DIGEST_PARTS; p++)
        ck_assert_msg(da[p] == db[p], "built alike, the %s part differs", th_digest_part_name(p));
    th_world_destroy(a);
    th_world_destroy(b);
    /* The world part: size, edges, timestep, cell size, stall time, step. A new size or cell
     * size draws another map, so only the world part is asked for there. */
    d.width = 21.0f;
    digest_differs(digest_world(&base, 2.0f), digest_world(&d, 2.0f), TH_DIGEST_WORLD, "width",
                   false);
    d = base;
    d.height = 11.0f;
    digest_differs(digest_world(&base, 2.0f), digest_world(&d, 2.0f), TH_DIGEST_WORLD, "height",
                   false);
    d = base;
    d.bounds = base.bounds == TH_BOUNDS_WRAP ? TH_BOUNDS_WALLS : TH_BOUNDS_WRAP;
    digest_differs(digest_world(&base, 2.0f), digest_world(&d, 2.0f), TH_DIGEST_WORLD, "edges",
                   true);
    d = base;
    d.timestep = base.timestep * 0.5f;
    digest_differs(digest_world(&base, 2.0f), digest_world(&d, 2.0f), TH_DIGEST_WORLD, "timestep",
                   true);
    d = base;
    d.cell_size = 1.0f;
    digest_differs(digest_world(&base, 2.0f), digest_world(&d, 2.0f), TH_DIGEST_WORLD, "cell size",
                   false);
    d = base;
    d.stall_time = 7.0f;
    digest_differs(digest_world(&base, 2.0f), digest_world(&d, 2.0f), TH_DIGEST_WORLD, "stall time",
                   true);
    d = base;
    d.seed = base.seed + 1u;
    digest_differs(digest_world(&base, 2.0f), digest_world(&d, 2.0f), TH_DIGEST_SEED, "seed", true);
    /* The map: one cell walled, or slowed. */
    a = digest_world(&base, 2.0f);
    b = digest_world(&base, 2.0f);
    ck_assert(th_world_set_cell(b, 30, 15, TH_CELL_WALL, 0, NULL));
    digest_differs(a, b, TH_DIGEST_MAP, "a wall", true);
    a = digest_world(&base, 2.0f);
    b = digest_world(&base, 2.0f);
    ck_assert(th_world_set_cell(b, 30, 15, TH_CELL_OPEN, 3, NULL));
    digest_differs(a, b, TH_DIGEST_MAP, "a cell's cost", true);
    /* A crowd's parameter. */
    digest_differs(digest_world(&base, 2.0f), digest_world(&base, 2.5f), TH_DIGEST_CROWDS,
                   "max speed", true);
    /* One agent more. */
    a = digest_world(&base, 2.0f);
    b = digest_world(&base, 2.0f);
    ck_assert(th_world_add_agent(b, CROWD_ID(0), th_v2(6, 6), th_v2(0, 0), NULL).index1);
    digest_differs(a, b, TH_DIGEST_AGENTS, "an agent", true);
}
END_TEST

START_TEST(test_good_world_defs) {
    /* NULL def means defaults, which are valid. */
    th_world *w = th_world_create(NULL, NULL);
    ck_assert_ptr_nonnull(w);
    th_world_def d = th_world_get_def(w);
    th_world_def def = th_default_world_def();
    ck_assert(d.width == def.width && d.height == def.height);
    ck_assert_uint_ge(d.threads, 1);
    ck_assert_uint_eq(th_world_agent_count(w), 0);
    ck_assert_uint_eq(th_world_crowd_count(w), 0);
    th_world_step(w); /* an empty world steps */
    ck_assert_uint_eq(th_world_step_count(w), 1);
    th_world_destroy(w);
    th_world_destroy(NULL);

    /* Bounds of the valid ranges are accepted; threads resolve to the actual worker count. */
    w = make_world(TH_MAX_WORLD_DIM, 1.0f, TH_BOUNDS_WALLS, 1);
    th_world_destroy(w);
    w = make_world(20.0f, 20.0f, TH_BOUNDS_WALLS, TH_MAX_THREADS);
    ck_assert_uint_eq(th_world_get_def(w).threads, TH_MAX_THREADS);
    th_world_destroy(w);
    th_world_def one = wdef(0.5f, 0.5f, 1.0f, 3);
    w = th_world_create(&one, NULL);
    ck_assert_ptr_nonnull(w);
    ck_assert_uint_eq(th_world_get_def(w).threads, 3);
    ck_assert(th_world_get_def(w).timestep == 1.0f);
    th_world_destroy(w);
    w = make_world(10.0f, 10.0f, TH_BOUNDS_WRAP, 0);
    uint32_t cores = th_cpu_count();
    ck_assert_uint_eq(th_world_get_def(w).threads, cores < TH_MAX_THREADS ? cores : TH_MAX_THREADS);
    th_world_destroy(w);
}
END_TEST

/* ---- crowd def validation ------------------------------------------------------------- */

typedef struct bad_crowd {
    const char *what;
    const char *keyword;
    th_crowd_def def;
} bad_crowd;

START_TEST(test_bad_crowd_defs) {
    bad_crowd cases[32];
    size_t n = 0;
#define BAD_CROWD(desc, key, field, value)       \
    do {                                         \
        th_crowd_def d = th_default_crowd_def(); \
        d.field = value;                         \
        cases[n++] = (bad_crowd){desc, key, d};  \
    } while (0)
    BAD_CROWD("zero neighbour radius", "radi", neighbor_radius, 0.0f);
    BAD_CROWD("negative neighbour radius", "radi", neighbor_radius, -1.0f);
    BAD_CROWD("NaN neighbour radius", "radi", neighbor_radius, NAN);
    BAD_CROWD("infinite neighbour radius", "radi", neighbor_radius, INFINITY);
    BAD_CROWD("zero separation radius", "radi", separation_radius, 0.0f);
    BAD_CROWD("negative separation radius", "radi", separation_radius, -2.0f);
    BAD_CROWD("NaN separation radius", "radi", separation_radius, NAN);
    BAD_CROWD("fov 0", "fov", fov_deg, 0.0f);
    BAD_CROWD("negative fov", "fov", fov_deg, -90.0f);
    BAD_CROWD("fov over 360", "fov", fov_deg, 360.5f);
    BAD_CROWD("NaN fov", "fov", fov_deg, NAN);
    BAD_CROWD("NaN separation weight", "weight", separation_weight, NAN);
    BAD_CROWD("NaN alignment weight", "weight", alignment_weight, NAN);
    BAD_CROWD("NaN cohesion weight", "weight", cohesion_weight, NAN);
    BAD_CROWD("infinite cohesion weight", "weight", cohesion_weight, INFINITY);
    BAD_CROWD("negative alignment weight", "weight", alignment_weight, -1.0f);
    BAD_CROWD("zero max speed", "max_speed", max_speed, 0.0f);
    BAD_CROWD("NaN max speed", "max_speed", max_speed, NAN);
    BAD_CROWD("zero max force", "max_force", max_force, 0.0f);
    BAD_CROWD("bad behaviour", "behavior", behavior, (th_behavior)42);
#undef BAD_CROWD
    th_world *w = make_world(50.0f, 50.0f, TH_BOUNDS_WALLS, 1);
    for (size_t i = 0; i < n; i++) {
        th_error err = {0};
        ck_assert_msg(IDX(th_world_add_crowd(w, &cases[i].def, &err)) == -1, "%s accepted",
                      cases[i].what);
        TH_TEST_ERR(err, TH_ERR_INVALID);
        ck_assert_msg(mentions(err.message, cases[i].keyword), "%s: message '%s' lacks '%s'",
                      cases[i].what, err.message, cases[i].keyword);
        ck_assert_int_eq(IDX(th_world_add_crowd(w, &cases[i].def, NULL)), -1);
    }
    ck_assert_uint_eq(th_world_crowd_count(w), 0);
    /* Nothing rejected left a trace: the first good crowd is still index 0. */
    ck_assert_int_eq(add_crowd(w, th_default_crowd_def()), 0);
    th_world_destroy(w);
}
END_TEST

START_TEST(test_wrap_world_needs_twice_the_radius) {
    th_world *w = make_world(10.0f, 30.0f, TH_BOUNDS_WRAP, 1);
    th_crowd_def d = th_default_crowd_def();
    d.neighbor_radius = 5.5f; /* 11 m > 10 m wide */
    th_error err = {0};
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &d, &err)), -1);
    TH_TEST_ERR(err, TH_ERR_INVALID);
    ck_assert(mentions(err.message, "wrap"));
    d.neighbor_radius = 1.0f;
    d.separation_radius = 5.01f; /* the separation radius counts too */
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &d, &err)), -1);
    d.separation_radius = 1.0f;
    d.neighbor_radius = 5.0f; /* exactly twice fits */
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &d, &err)), 0);
    th_world_destroy(w);

    /* The same radius is fine in a walled world of the same size. */
    w = make_world(10.0f, 30.0f, TH_BOUNDS_WALLS, 1);
    d.neighbor_radius = 5.5f;
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &d, &err)), 0);
    th_world_destroy(w);
}
END_TEST

START_TEST(test_crowd_def_is_copied) {
    th_world *w = make_world(50.0f, 50.0f, TH_BOUNDS_WALLS, 1);
    char name[100];
    memset(name, 'q', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    th_crowd_def d = th_default_crowd_def();
    d.name = name;
    d.max_speed = 3.25f;
    ck_assert_int_eq(add_crowd(w, d), 0);
    name[0] = 'Z';
    const th_crowd_def *got = th_world_get_crowd(w, CROWD_ID(0));
    ck_assert_ptr_nonnull(got);
    ck_assert_uint_eq(strlen(got->name), 63);
    ck_assert_int_eq(got->name[0], 'q');
    ck_assert(got->max_speed == 3.25f);
    ck_assert_ptr_null(th_world_get_crowd(w, CROWD_ID(1)));
    ck_assert_ptr_null(th_world_get_crowd(w, CROWD_ID(UINT32_MAX)));
    th_world_destroy(w);
}
END_TEST

/* ---- add_agent validation ------------------------------------------------------------- */

START_TEST(test_add_agent_rejects) {
    const float W = 40.0f, H = 25.0f;
    th_world *w = make_world(W, H, TH_BOUNDS_WALLS, 1);
    int c = add_crowd(w, th_default_crowd_def());
    th_error err = {0};
    ck_assert(th_agent_id_eq(th_world_add_agent(w, CROWD_ID(c), th_v2(1, 1), th_v2(0, 0), &err),
                             th_test_id(0)));
    const th_vec2 bad_pos[] = {
        {-0.001f, 5.0f}, {5.0f, -0.001f}, {W, 5.0f},        {5.0f, H},         {W + 100, H + 100},
        {NAN, 5.0f},     {5.0f, NAN},     {INFINITY, 5.0f}, {5.0f, -INFINITY}, {-1e30f, 1e30f},
    };
    for (size_t i = 0; i < sizeof bad_pos / sizeof bad_pos[0]; i++) {
        err = (th_error){0};
        th_agent_id id = th_world_add_agent(w, CROWD_ID(c), bad_pos[i], th_v2(0, 0), &err);
        ck_assert_msg(!th_agent_id_valid(id), "position (%g, %g) accepted", (double)bad_pos[i].x,
                      (double)bad_pos[i].y);
        /* Off the world is a blocked position; NaN or infinite is no position at all. */
        const bool finite = isfinite(bad_pos[i].x) && isfinite(bad_pos[i].y);
        TH_TEST_ERR(err, finite ? TH_ERR_BLOCKED : TH_ERR_INVALID);
        ck_assert(
            !th_agent_id_valid(th_world_add_agent(w, CROWD_ID(c), bad_pos[i], th_v2(0, 0), NULL)));
    }
    const th_vec2 bad_vel[] = {{NAN, 0.0f}, {0.0f, INFINITY}, {-INFINITY, NAN}};
    for (size_t i = 0; i < sizeof bad_vel / sizeof bad_vel[0]; i++) {
        err = (th_error){0};
        ck_assert(
            !th_agent_id_valid(th_world_add_agent(w, CROWD_ID(c), th_v2(2, 2), bad_vel[i], &err)));
        TH_TEST_ERR(err, TH_ERR_INVALID);
    }
    const uint32_t bad_crowd[] = {1, 2, 255, 256, UINT32_MAX};
    for (size_t i = 0; i < sizeof bad_crowd / sizeof bad_crowd[0]; i++) {
        err = (th_error){0};
        ck_assert(!th_agent_id_valid(
            th_world_add_agent(w, CROWD_ID(bad_crowd[i]), th_v2(2, 2), th_v2(0, 0), &err)));
        TH_TEST_ERR(err, TH_ERR_HANDLE);
    }
    /* Rejections consume no ids and add no agents; positions on the closed edges are fine. */
    ck_assert_uint_eq(th_world_agent_count(w), 1);
    ck_assert(th_agent_id_eq(th_world_add_agent(w, CROWD_ID(c), th_v2(0, 0), th_v2(0, 0), &err),
                             th_test_id(1)));
    ck_assert(
        th_agent_id_eq(th_world_add_agent(w, CROWD_ID(c), th_v2(nextafterf(W, 0), nextafterf(H, 0)),
                                          th_v2(0, 0), &err),
                       th_test_id(2)));
    ck_assert_uint_eq(th_world_agent_count(w), 3);
    th_agent_state s;
    ck_assert(!th_world_get_agent(w, th_test_id(3), &s));
    ck_assert(!th_world_get_agent(w, TH_INVALID_AGENT, &s));
    th_world_destroy(w);
}
END_TEST

/* Velocities above the crowd's max_speed are clamped on entry, keeping direction. */
START_TEST(test_add_agent_clamps_speed) {
    th_world *w = make_world(40.0f, 40.0f, TH_BOUNDS_WALLS, 1);
    th_crowd_def d = th_default_crowd_def();
    d.max_speed = 2.0f;
    int c = add_crowd(w, d);
    th_agent_id id = th_world_add_agent(w, CROWD_ID(c), th_v2(20, 20), th_v2(30, 40), NULL);
    th_agent_state s;
    ck_assert(th_world_get_agent(w, id, &s));
    ck_assert_float_eq_tol(hypotf(s.velocity.x, s.velocity.y), 2.0f, 1e-5f);
    ck_assert_float_eq_tol(s.velocity.x / s.velocity.y, 0.75f, 1e-5f);
    th_world_destroy(w);
}
END_TEST

/* ---- ids through reordering ----------------------------------------------------------- */

/* A lone agent far from everyone else sees nobody, so its acceleration is zero and it moves at
 * constant velocity: x += v * dt each step, in float, exactly. Meanwhile a flock elsewhere keeps
 * the storage order churning, so its id must be followed through every reorder. */
START_TEST(test_lone_agent_moves_as_integrated) {
    const uint32_t threads[] = {1, 3};
    for (size_t t = 0; t < 2; t++) {
        th_world *w = make_world(200.0f, 200.0f, TH_BOUNDS_WALLS, threads[t]);
        int c = add_crowd(w, th_default_crowd_def());
        add_random_agents(w, (uint32_t)c, 400, 0.0f, 40.0f, 0.0f, 40.0f, 2.5f, 17);
        const th_vec2 p0[] = {{150.0f, 150.0f}, {120.5f, 180.25f}, {190.0f, 60.0f}};
        const th_vec2 v0[] = {{1.5f, -0.75f}, {-0.3f, 0.1f}, {-2.0f, 3.0f}};
        th_agent_id ids[3];
        for (int k = 0; k < 3; k++) {
            ids[k] = th_world_add_agent(w, CROWD_ID(c), p0[k], v0[k], NULL);
            ck_assert(th_agent_id_eq(ids[k], th_test_id(400u + (uint32_t)k)));
        }
        const float dt = th_world_get_def(w).timestep;
        float px[3], py[3];
        for (int k = 0; k < 3; k++) {
            px[k] = p0[k].x;
            py[k] = p0[k].y;
        }
        for (int step = 1; step <= 200; step++) {
            th_world_step(w);
            for (int k = 0; k < 3; k++) {
                px[k] = px[k] + v0[k].x * dt;
                py[k] = py[k] + v0[k].y * dt;
                th_agent_state s;
                CHECK(th_world_get_agent(w, ids[k], &s));
                CHECK(th_agent_id_eq(s.id, ids[k]));
                CHECK_MSG(s.position.x == px[k] && s.position.y == py[k],
                          "step %d agent %u at (%.9g, %.9g), expected (%.9g, %.9g)", step,
                          th_test_slot(ids[k]), (double)s.position.x, (double)s.position.y,
                          (double)px[k], (double)py[k]);
                CHECK(s.velocity.x == v0[k].x && s.velocity.y == v0[k].y);
                CHECK(s.acceleration.x == 0.0f && s.acceleration.y == 0.0f);
                CHECK(s.neighbors == 0);
            }
        }
        th_world_destroy(w);
    }
}
END_TEST

/* Every id's state from th_world_get_agent matches the view's entry carrying that id, and the
 * view holds each id exactly once, across many steps of reordering. */
START_TEST(test_ids_and_view) {
    th_world *w = make_world(60.0f, 60.0f, TH_BOUNDS_WRAP, 2);
    int a = add_crowd(w, th_default_crowd_def());
    th_crowd_def d = th_default_crowd_def();
    d.neighbor_radius = 6.0f;
    int b = add_crowd(w, d);
    add_random_agents(w, (uint32_t)a, 1500, 0.0f, 60.0f, 0.0f, 60.0f, 4.0f, 3);
    add_random_agents(w, (uint32_t)b, 700, 0.0f, 60.0f, 0.0f, 60.0f, 4.0f, 4);
    const uint32_t n = th_world_agent_count(w);
    ck_assert_uint_eq(n, 2200);
    uint32_t *where = malloc(n * sizeof *where);
    ck_assert_ptr_nonnull(where);
    bool reordered = false;
    for (int step = 0; step <= 120; step++) {
        if (step > 0) th_world_step(w);
        if (step % 20 != 0) continue;
        th_agent_view v = th_world_agents(w);
        ck_assert_uint_eq(v.count, n);
        for (uint32_t i = 0; i < n; i++) where[i] = UINT32_MAX;
        for (uint32_t k = 0; k < v.count; k++) {
            CHECK_MSG(v.id[k].generation == 1, "view slot %u holds generation %u", k,
                      v.id[k].generation);
            uint32_t id = th_test_slot(v.id[k]);
            CHECK_MSG(id < n, "view slot %u holds id %u", k, id);
            CHECK_MSG(where[id] == UINT32_MAX, "id %u twice in the view", id);
            where[id] = k;
            if (id != k) reordered = true;
        }
        for (uint32_t id = 0; id < n; id++) {
            uint32_t k = where[id];
            CHECK_MSG(k != UINT32_MAX, "id %u missing from the view", id);
            th_agent_state s;
            CHECK(th_world_get_agent(w, th_test_id(id), &s));
            CHECK(th_agent_id_eq(s.id, th_test_id(id)));
            CHECK_MSG(IDX(s.crowd) == v.crowd[k] && IDX(s.crowd) == (id < 1500 ? 0 : 1),
                      "id %u: crowd %d", id, IDX(s.crowd));
            CHECK(s.position.x == v.px[k] && s.position.y == v.py[k]);
            CHECK(s.velocity.x == v.vx[k] && s.velocity.y == v.vy[k]);
        }
    }
    /* Otherwise the test would not have exercised the id mapping at all. */
    ck_assert(reordered);
    free(where);
    th_world_destroy(w);
}
END_TEST

/* ---- staying inside ------------------------------------------------------------------- */

static void check_inside(th_bounds bounds, float dt) {
    const float W = 37.0f, H = 23.0f;
    th_world_def wd = wdef(W, H, dt, 2);
    wd.bounds = bounds;
    th_world *w = th_world_create(&wd, NULL);
    ck_assert_ptr_nonnull(w);
    th_crowd_def d = th_default_crowd_def();
    d.max_speed = 1000.0f;
    d.max_force = 1.0e5f;
    d.neighbor_radius = 3.0f;
    d.separation_radius = 2.0f;
    int c = add_crowd(w, d);
    add_random_agents(w, (uint32_t)c, 1000, 0.0f, W, 0.0f, H, 1000.0f, 23);
    /* Some agents start exactly on the edges, moving outwards at full speed. */
    th_world_add_agent(w, CROWD_ID(c), th_v2(0.0f, 0.0f), th_v2(-1000.0f, -1.0f), NULL);
    th_world_add_agent(w, CROWD_ID(c), th_v2(nextafterf(W, 0), nextafterf(H, 0)),
                       th_v2(700.0f, 700.0f), NULL);
    th_world_add_agent(w, CROWD_ID(c), th_v2(0.0f, nextafterf(H, 0)), th_v2(-1e-30f, 5e-39f), NULL);
    const uint32_t n = th_world_agent_count(w);
    for (int step = 1; step <= th_test_steps(500); step++) {
        th_world_step(w);
        th_agent_view v = th_world_agents(w);
        CHECK(v.count == n);
        for (uint32_t k = 0; k < v.count; k++) {
            CHECK_MSG(v.px[k] >= 0.0f && v.px[k] < W && v.py[k] >= 0.0f && v.py[k] < H,
                      "%s dt %g step %d: agent %u at (%.9g, %.9g)",
                      bounds == TH_BOUNDS_WRAP ? "wrap" : "walls", (double)dt, step,
                      th_test_slot(v.id[k]), (double)v.px[k], (double)v.py[k]);
            CHECK_MSG(isfinite(v.vx[k]) && isfinite(v.vy[k]), "agent %u velocity not finite",
                      th_test_slot(v.id[k]));
            CHECK(hypotf(v.vx[k], v.vy[k]) <= 1000.0f * 1.0001f);
        }
    }
    th_world_destroy(w);
}

START_TEST(test_agents_stay_inside_walls) {
    check_inside(TH_BOUNDS_WALLS, 1.0f / 60.0f);
    check_inside(TH_BOUNDS_WALLS, 1.0f);
}
END_TEST

START_TEST(test_agents_stay_inside_wrap) {
    check_inside(TH_BOUNDS_WRAP, 1.0f / 60.0f);
    check_inside(TH_BOUNDS_WRAP, 1.0f);
}
END_TEST

/* ---- hash ----------------------------------------------------------------------------- */

static th_world *hash_world(uint32_t threads, float nudge_vx_of_17) {
    th_world *w = make_world(50.0f, 50.0f, TH_BOUNDS_WALLS, threads);
    int c = add_crowd(w, th_default_crowd_def());
    for (uint32_t i = 0; i < 600; i++) {
        float x = th_rng_range(77, i, 0, 0.0f, 50.0f);
        float y = th_rng_range(77, i, 1, 0.0f, 50.0f);
        float vx = th_rng_range(77, i, 2, -3.0f, 3.0f);
        float vy = th_rng_range(77, i, 3, -3.0f, 3.0f);
        if (i == 17 && nudge_vx_of_17 != 0.0f) vx = nextafterf(vx, nudge_vx_of_17);
        th_world_add_agent(w, CROWD_ID(c), th_v2(x, y), th_v2(vx, vy), NULL);
    }
    return w;
}

START_TEST(test_hash_sees_one_ulp) {
    th_world *base = hash_world(1, 0.0f);
    th_world *same = hash_world(3, 0.0f);
    th_world *up = hash_world(1, INFINITY);
    th_world *down = hash_world(2, -INFINITY);
    th_agent_state s0, s1;
    ck_assert(th_world_get_agent(base, th_test_id(17), &s0) &&
              th_world_get_agent(up, th_test_id(17), &s1));
    ck_assert(s0.velocity.x != s1.velocity.x); /* the nudge really happened */

    ck_assert_uint_eq(th_world_hash(base), th_world_hash(same));
    ck_assert_uint_ne(th_world_hash(base), th_world_hash(up));
    ck_assert_uint_ne(th_world_hash(base), th_world_hash(down));
    ck_assert_uint_ne(th_world_hash(up), th_world_hash(down));
    /* Stepping keeps equal worlds equal, whatever the thread count. (A one-ulp difference may
     * legitimately be rounded away by a later step, so only the initial state is compared for
     * inequality.) */
    for (int s = 0; s < th_test_steps(30); s++) {
        th_world_step(base);
        th_world_step(same);
    }
    ck_assert_uint_eq(th_world_hash(base), th_world_hash(same));
    /* The step count is part of the state. */
    uint64_t h = th_world_hash(base);
    th_world *fresh = hash_world(1, 0.0f);
    ck_assert_uint_ne(th_world_hash(fresh), h);
    th_world_destroy(fresh);
    th_world_destroy(base);
    th_world_destroy(same);
    th_world_destroy(up);
    th_world_destroy(down);
}
END_TEST

/* ---- statistics ----------------------------------------------------------------------- */

START_TEST(test_flock_stats) {
    th_error err = {0};
    th_world *w =
        th_demo_create("flock", &(th_demo_opts){.agents = 6000, .seed = 5, .threads = 2}, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    const uint32_t n = th_world_agent_count(w);
    ck_assert_uint_eq(n, 6000);
    const int steps = th_test_steps(120);
    for (int step = 1; step <= steps; step++) {
        th_world_step(w);
        if (step != 1 && step != steps) continue;
        th_world_stats st = th_world_get_stats(w);
        ck_assert_uint_eq(st.step, (uint64_t)step);
        ck_assert_uint_eq(st.step, th_world_step_count(w));
        ck_assert_uint_eq(st.agents, n);
        ck_assert_msg(st.mean_neighbors >= 10.0 && st.mean_neighbors <= 40.0,
                      "step %d: mean neighbours %g", step, st.mean_neighbors);
        /* Inspected candidates include every neighbour. */
        ck_assert(st.mean_candidates >= st.mean_neighbors);
        /* The mean agrees with the per-agent counts. */
        uint64_t sum = 0;
        for (uint32_t id = 0; id < n; id++) {
            th_agent_state s;
            CHECK(th_world_get_agent(w, th_test_id(id), &s));
            sum += s.neighbors;
        }
        ck_assert_double_eq_tol(st.mean_neighbors, (double)sum / n, 1e-9);
    }
    th_world_destroy(w);
}
END_TEST

START_TEST(test_demo_options) {
    th_error err = {0};
    ck_assert_ptr_null(th_demo_create("nope", &(th_demo_opts){.seed = 1, .threads = 1}, &err));
    TH_TEST_ERR(err, TH_ERR_INVALID);
    ck_assert(mentions(err.message, "nope"));
    ck_assert_ptr_null(th_demo_create(NULL, NULL, &err));
    ck_assert_ptr_null(
        th_demo_create("flock", &(th_demo_opts){.agents = TH_MAX_AGENTS + 1, .threads = 1}, &err));
    TH_TEST_ERR(err, TH_ERR_INVALID);
    bool listed = false;
    for (const char *const *name = th_demo_names; *name; name++) {
        if (strcmp(*name, "flock") == 0) listed = true;
    }
    ck_assert(listed);
    th_world *a =
        th_demo_create("flock", &(th_demo_opts){.agents = 300, .seed = 1, .threads = 1}, &err);
    th_world *b =
        th_demo_create("flock", &(th_demo_opts){.agents = 300, .seed = 2, .threads = 1}, &err);
    ck_assert(a && b);
    ck_assert_uint_eq(th_world_agent_count(a), 300);
    ck_assert_uint_ne(th_world_hash(a), th_world_hash(b));
    th_world_destroy(a);
    th_world_destroy(b);
}
END_TEST

static Suite *world_suite(void) {
    Suite *s = suite_create("world");
    TCase *tc = tcase_create("validation");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_bad_world_defs);
    tcase_add_test(tc, test_good_world_defs);
    tcase_add_test(tc, test_bad_crowd_defs);
    tcase_add_test(tc, test_wrap_world_needs_twice_the_radius);
    tcase_add_test(tc, test_crowd_def_is_copied);
    tcase_add_test(tc, test_add_agent_rejects);
    tcase_add_test(tc, test_add_agent_clamps_speed);
    tcase_add_test(tc, test_demo_options);
    suite_add_tcase(s, tc);

    tc = tcase_create("agents");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_lone_agent_moves_as_integrated);
    tcase_add_test(tc, test_ids_and_view);
    tcase_add_test(tc, test_agents_stay_inside_walls);
    tcase_add_test(tc, test_agents_stay_inside_wrap);
    suite_add_tcase(s, tc);

    tc = tcase_create("state");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_hash_sees_one_ulp);
    tcase_add_test(tc, test_flock_stats);
    tcase_add_test(tc, test_stall_api);
    tcase_add_test(tc, test_digest_parts_follow_their_fields);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return th_test_run(world_suite()); }
