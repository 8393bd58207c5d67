/* Agents a host steers (throng.h "steering agents from the host"):
 *   - a preferred velocity: a lone agent of either model moves v dt per step whatever its
 *     crowd's heading, speeds up to it from rest, is clamped to max_speed, stands at (0, 0),
 *     and walks its heading again once cleared;
 *   - avoidance still applies: two walkers steered head-on never overlap and pass, a walker
 *     steered into a wall stops at it, two boids steered into each other stay apart;
 *   - a teleport: read back at once (th_world_get_agent, th_world_agents, a brute-force
 *     neighbour search), standing; no measurement line crossed; an own goal planned again
 *     from the new place; an agent landed on another is pushed off by the next step with the
 *     invariants checked;
 *   - th_world_agent_neighbors against brute force, in walled and wrap-around worlds;
 *   - refusals: unknown and stale agents, values not finite, places off the world or in
 *     walls, calls from inside a step;
 *   - the same calls at the same steps give the same hash on 1, 2, 4 and 8 threads. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "throng/throng.h"

static th_world *open_world(uint32_t threads, float width, float height, bool wrap) {
    th_error err;
    th_world_def wd = th_default_world_def();
    wd.width = width;
    wd.height = height;
    wd.threads = threads;
    wd.seed = 7;
    wd.bounds = wrap ? TH_BOUNDS_WRAP : TH_BOUNDS_WALLS;
    th_world *w = th_world_create(&wd, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    return w;
}

/* A pedestrian crowd walking west (so a preferred velocity must override it), free speeds all
 * equal; or a boids crowd of 4 m/s. */
static th_crowd_id crowd(th_world *w, bool ped) {
    th_error err;
    th_crowd_def cd = ped ? th_default_pedestrian_def() : th_default_crowd_def();
    if (ped) {
        cd.heading = th_v2(-1.0f, 0.0f);
        cd.desired_speed_sd = 0.0f;
    }
    const th_crowd_id c = th_world_add_crowd(w, &cd, &err);
    ck_assert_msg(th_crowd_id_valid(c), "%s", err.message);
    return c;
}

static th_agent_state state(const th_world *w, th_agent_id id) {
    th_agent_state s;
    ck_assert(th_world_get_agent(w, id, &s));
    return s;
}

static float dist(th_vec2 a, th_vec2 b) { return th_v2_len(th_v2_sub(a, b)); }

/* ---- preferred velocity ------------------------------------------------------------------ */

START_TEST(a_lone_agent_moves_at_its_preferred_velocity) {
    for (int ped = 0; ped < 2; ped++) {
        th_error err;
        th_world *w = open_world(1, 60, 60, false);
        const th_crowd_id c = crowd(w, ped);
        const float dt = th_world_get_def(w).timestep;
        const th_vec2 v = th_v2(0.9f, 0.5f);
        /* Moving at v already: it keeps v exactly, step after step. */
        const th_agent_id a = th_world_add_agent(w, c, th_v2(10, 10), v, &err);
        ck_assert_msg(th_world_set_agent_preferred_velocity(w, a, v, &err), "%s", err.message);
        th_vec2 got;
        ck_assert(th_world_get_agent_preferred_velocity(w, a, &got));
        ck_assert(got.x == v.x && got.y == v.y);
        /* From rest: it speeds up to v. */
        const th_agent_id b = th_world_add_agent(w, c, th_v2(10, 40), th_v2(0, 0), &err);
        ck_assert(th_world_set_agent_preferred_velocity(w, b, v, &err));
        for (int s = 0; s < 240; s++) {
            const th_vec2 was = state(w, a).position;
            th_world_step(w);
            const th_vec2 d = th_v2_sub(state(w, a).position, was);
            ck_assert_msg(fabsf(d.x - v.x * dt) < 1e-4f && fabsf(d.y - v.y * dt) < 1e-4f,
                          "%s step %d: moved (%g, %g), expected (%g, %g)",
                          ped ? "pedestrian" : "boid", s, (double)d.x, (double)d.y,
                          (double)(v.x * dt), (double)(v.y * dt));
        }
        const th_vec2 vb = state(w, b).velocity;
        ck_assert_msg(dist(vb, v) < 0.01f, "from rest: (%g, %g)", (double)vb.x, (double)vb.y);
        /* Never judged stalled while steered. */
        ck_assert_uint_eq(th_world_get_stats(w).stalled, 0);

        /* Longer than max_speed: clamped, direction kept. */
        const float top = th_world_get_crowd(w, c)->max_speed;
        ck_assert(th_world_set_agent_preferred_velocity(w, b, th_v2(30, 40), &err));
        ck_assert(th_world_get_agent_preferred_velocity(w, b, &got));
        ck_assert_msg(fabsf(got.x - 0.6f * top) < 1e-5f && fabsf(got.y - 0.8f * top) < 1e-5f,
                      "clamped to (%g, %g)", (double)got.x, (double)got.y);
        ck_assert(th_world_set_agent_preferred_velocity(w, b, th_v2(3e38f, 3e38f), &err));
        ck_assert(th_world_get_agent_preferred_velocity(w, b, &got));
        ck_assert(fabsf(got.x - got.y) < 1e-5f && fabsf(th_v2_len(got) - top) < 1e-4f);

        /* (0, 0): it stands. (The other one leaves first: nobody near to flock with.) */
        ck_assert(th_world_remove_agent(w, b, &err));
        ck_assert(th_world_set_agent_preferred_velocity(w, a, th_v2(0, 0), &err));
        for (int s = 0; s < 360; s++) th_world_step(w);
        ck_assert_msg(th_v2_len(state(w, a).velocity) < 1e-3f, "still moves at %g m/s",
                      (double)th_v2_len(state(w, a).velocity));

        /* Cleared: its crowd steers it again (pedestrians walk west; a lone boid flocks with
         * nobody and keeps the velocity it has). */
        ck_assert(th_world_set_agent_preferred_velocity(w, a, th_v2(0, 1), &err));
        for (int s = 0; s < 360; s++) th_world_step(w);
        ck_assert(th_world_clear_agent_preferred_velocity(w, a, &err));
        ck_assert(!th_world_get_agent_preferred_velocity(w, a, &got));
        ck_assert(th_world_clear_agent_preferred_velocity(w, a, &err)); /* again: no-op */
        for (int s = 0; s < 180; s++) th_world_step(w);
        const th_vec2 va = state(w, a).velocity;
        if (ped) {
            ck_assert_msg(va.x < -1.0f && fabsf(va.y) < 0.05f, "cleared: (%g, %g)", (double)va.x,
                          (double)va.y);
        } else {
            ck_assert_msg(dist(va, th_v2(0, 1)) < 0.01f, "cleared: (%g, %g)", (double)va.x,
                          (double)va.y);
        }
        th_world_destroy(w);
    }
}
END_TEST

START_TEST(avoidance_and_walls_still_apply) {
    th_error err;
    /* Two walkers steered head-on, nearly on one line: they never overlap, and pass. */
    {
        th_world *w = open_world(1, 60, 60, false);
        const th_crowd_id c = crowd(w, true);
        const float r = th_world_get_crowd(w, c)->body_radius;
        const th_agent_id a = th_world_add_agent(w, c, th_v2(20, 30), th_v2(0, 0), &err);
        const th_agent_id b = th_world_add_agent(w, c, th_v2(30, 30.05f), th_v2(0, 0), &err);
        ck_assert(th_world_set_agent_preferred_velocity(w, a, th_v2(1.2f, 0), &err));
        ck_assert(th_world_set_agent_preferred_velocity(w, b, th_v2(-1.2f, 0), &err));
        float closest = INFINITY, aside = 0.0f;
        for (int s = 0; s < 900; s++) {
            th_world_step(w);
            const th_vec2 pa = state(w, a).position, pb = state(w, b).position;
            closest = fminf(closest, dist(pa, pb));
            aside = fmaxf(aside, fabsf(pa.y - 30.0f));
        }
        ck_assert_msg(closest >= 2.0f * r * 0.9f, "closest %g m", (double)closest);
        ck_assert_msg(aside > 0.05f, "nobody stepped aside (%g m)", (double)aside);
        ck_assert_msg(state(w, a).position.x > state(w, b).position.x + 1.0f, "they did not pass");
        th_world_destroy(w);
    }
    /* A walker steered into a wall stops at it. */
    {
        th_world *w = th_test_metre_world(1, 3, 30, 20);
        for (int32_t y = 0; y < 20; y++)
            ck_assert(th_world_set_cell(w, 15, y, TH_CELL_WALL, 0, &err));
        const th_crowd_id c = crowd(w, true);
        const float r = th_world_get_crowd(w, c)->body_radius;
        const th_agent_id a = th_world_add_agent(w, c, th_v2(10, 10), th_v2(0, 0), &err);
        ck_assert(th_world_set_agent_preferred_velocity(w, a, th_v2(1.5f, 0), &err));
        for (int s = 0; s < 600; s++) {
            th_world_step(w);
            CHECK_MSG(state(w, a).position.x + r <= 15.0f + 0.02f, "into the wall at x %g",
                      (double)state(w, a).position.x);
        }
        ck_assert_msg(state(w, a).position.x > 14.0f, "stopped at x %g",
                      (double)state(w, a).position.x);
        th_world_destroy(w);
    }
    /* Two boids with bodies steered into each other stay apart. */
    {
        th_world *w = open_world(1, 60, 60, false);
        th_crowd_def cd = th_default_crowd_def();
        cd.body_radius = 0.5f;
        const th_crowd_id c = th_world_add_crowd(w, &cd, &err);
        const th_agent_id a = th_world_add_agent(w, c, th_v2(20, 30), th_v2(0, 0), &err);
        const th_agent_id b = th_world_add_agent(w, c, th_v2(26, 30), th_v2(0, 0), &err);
        ck_assert(th_world_set_agent_preferred_velocity(w, a, th_v2(2, 0), &err));
        ck_assert(th_world_set_agent_preferred_velocity(w, b, th_v2(-2, 0), &err));
        for (int s = 0; s < 300; s++) {
            th_world_step(w);
            const float d = dist(state(w, a).position, state(w, b).position);
            CHECK_MSG(d >= 1.0f * 0.9f, "step %d: %g m apart", s, (double)d);
        }
        th_world_destroy(w);
    }
}
END_TEST

/* ---- neighbours --------------------------------------------------------------------------- */

typedef struct ref_near {
    double d2;
    th_agent_id id;
} ref_near;

static int ref_cmp(const void *p, const void *q) {
    const ref_near *a = p, *b = q;
    if (a->d2 != b->d2) return a->d2 < b->d2 ? -1 : 1;
    return a->id.index1 < b->id.index1 ? -1 : a->id.index1 > b->id.index1;
}

/* The agents within r of agent `id` by brute force over th_world_agents, nearest first, then
 * by id slot; into out (room for all), their number returned. */
static uint32_t ref_neighbors(const th_world *w, th_agent_id id, float r, ref_near *out) {
    const th_agent_view v = th_world_agents(w);
    const th_world_def d = th_world_get_def(w);
    const th_vec2 p = state(w, id).position;
    uint32_t n = 0;
    for (uint32_t j = 0; j < v.count; j++) {
        if (th_agent_id_eq(v.id[j], id)) continue;
        float dx = v.px[j] - p.x, dy = v.py[j] - p.y;
        if (d.bounds == TH_BOUNDS_WRAP) {
            if (dx > 0.5f * d.width) dx -= d.width;
            else if (dx < -0.5f * d.width) dx += d.width;
            if (dy > 0.5f * d.height) dy -= d.height;
            else if (dy < -0.5f * d.height) dy += d.height;
        }
        const double d2 = (double)dx * dx + (double)dy * dy;
        if (d2 <= (double)r * r) out[n++] = (ref_near){d2, v.id[j]};
    }
    qsort(out, n, sizeof *out, ref_cmp);
    return n;
}

static void check_neighbors(const th_world *w, th_agent_id id, float r) {
    static ref_near ref[4096];
    static th_agent_id got[4096];
    th_error err;
    const uint32_t n = ref_neighbors(w, id, r, ref);
    uint32_t count = UINT32_MAX;
    ck_assert_msg(th_world_agent_neighbors(w, id, r, got, 4096, &count, &err), "%s", err.message);
    ck_assert_uint_eq(count, n);
    for (uint32_t i = 0; i < n; i++)
        CHECK_MSG(th_agent_id_eq(got[i], ref[i].id), "radius %g: #%u is %u, expected %u", (double)r,
                  i, got[i].index1, ref[i].id.index1);
    /* Less room: the nearest first, the count still all of them. */
    const uint32_t room = n / 2;
    th_agent_id few[4096];
    ck_assert(th_world_agent_neighbors(w, id, r, room ? few : NULL, room, &count, &err));
    ck_assert_uint_eq(count, n);
    for (uint32_t i = 0; i < room; i++) CHECK(th_agent_id_eq(few[i], ref[i].id));
}

START_TEST(neighbors_match_brute_force) {
    for (int wrap = 0; wrap < 2; wrap++) {
        th_error err;
        th_world *w = open_world(2, 40, 30, wrap);
        const th_crowd_id c = crowd(w, false);
        uint64_t ctr = 0;
        th_agent_id ids[500];
        for (int i = 0; i < 500; i++) {
            const float x = (float)th_test_rnd(5, 1, &ctr, 4000) * 0.01f;
            const float y = (float)th_test_rnd(5, 1, &ctr, 3000) * 0.01f;
            const float vx = (float)th_test_rnd(5, 2, &ctr, 400) * 0.01f - 2.0f;
            ids[i] = th_world_add_agent(w, c, th_v2(x, y), th_v2(vx, 1.0f), &err);
            ck_assert_msg(th_agent_id_valid(ids[i]), "%s", err.message);
        }
        for (int s = 0; s < 20; s++) th_world_step(w);
        for (int q = 0; q < 40; q++) {
            const th_agent_id id = ids[th_test_rnd(6, 3, &ctr, 500)];
            check_neighbors(w, id, (float)th_test_rnd(6, 4, &ctr, 800) * 0.01f);
        }
        check_neighbors(w, ids[0], 0.0f);
        check_neighbors(w, ids[0], 100.0f); /* everyone */
        /* A teleported agent is found at its new place at once, not at its old one. */
        const th_vec2 old = state(w, ids[1]).position;
        const th_vec2 to = th_v2(old.x < 20 ? old.x + 15.0f : old.x - 15.0f, old.y);
        ck_assert(th_world_set_agent_position(w, ids[1], to, &err));
        th_agent_id found[500];
        uint32_t n;
        ck_assert(th_world_agent_neighbors(w, ids[1], 2.0f, found, 500, &n, &err));
        for (uint32_t i = 0; i < n; i++)
            ck_assert(dist(state(w, found[i]).position, to) <= 2.0f + 1e-4f);
        check_neighbors(w, ids[1], 2.0f);
        check_neighbors(w, ids[2], 30.0f);
        th_world_destroy(w);
    }
}
END_TEST

/* ---- teleport ------------------------------------------------------------------------------ */

START_TEST(a_teleported_agent_is_at_its_new_place) {
    th_error err;
    th_world *w = th_test_metre_world(2, 4, 40, 20);
    for (int32_t y = 5; y < 8; y++) ck_assert(th_world_set_cell(w, 31, y, TH_CELL_WALL, 0, &err));
    const th_crowd_id c = crowd(w, true);
    th_measure_line_def ld = {.name = "x20", .a = {20, 0}, .b = {20, 20}};
    const th_measure_line_id line = th_world_add_measure_line(w, &ld, &err);
    ck_assert_msg(line.index1, "%s", err.message);
    const th_agent_id a = th_world_add_agent(w, c, th_v2(5, 10), th_v2(-1, 0), &err);
    const th_agent_id other = th_world_add_agent(w, c, th_v2(8, 3), th_v2(0, 0), &err);
    for (int s = 0; s < 10; s++) th_world_step(w);
    const th_vec2 before = state(w, a).position;

    /* Refused: the agent stays where it was. */
    ck_assert(!th_world_set_agent_position(w, a, th_v2(31.5f, 6.5f), &err));
    TH_TEST_ERR(err, TH_ERR_BLOCKED);
    ck_assert(!th_world_set_agent_position(w, a, th_v2(40.0f, 6.5f), &err));
    TH_TEST_ERR(err, TH_ERR_BLOCKED);
    ck_assert(!th_world_set_agent_position(w, a, th_v2(-0.5f, 6.5f), &err));
    TH_TEST_ERR(err, TH_ERR_BLOCKED);
    ck_assert(!th_world_set_agent_position(w, a, th_v2(NAN, 6.5f), &err));
    TH_TEST_ERR(err, TH_ERR_INVALID);
    ck_assert(!th_world_set_agent_position(w, (th_agent_id){9, 1}, th_v2(1, 1), &err));
    TH_TEST_ERR(err, TH_ERR_HANDLE);
    ck_assert(dist(state(w, a).position, before) == 0.0f);

    /* Moved: read back at once, standing. */
    const th_vec2 to = th_v2(25.5f, 10.5f);
    ck_assert_msg(th_world_set_agent_position(w, a, to, &err), "%s", err.message);
    th_agent_state s = state(w, a);
    ck_assert(s.position.x == to.x && s.position.y == to.y);
    ck_assert(s.velocity.x == 0.0f && s.velocity.y == 0.0f);
    const th_agent_view v = th_world_agents(w);
    bool seen = false;
    for (uint32_t i = 0; i < v.count; i++) {
        if (!th_agent_id_eq(v.id[i], a)) continue;
        seen = true;
        ck_assert(v.px[i] == to.x && v.py[i] == to.y);
    }
    ck_assert(seen);
    /* The jump from x 5 to x 25 crosses the line at x 20, and is no crossing. */
    th_world_step(w);
    th_measure_line_info li;
    ck_assert(th_world_get_measure_line(w, line, &li));
    ck_assert_int_eq((int)li.crossed_total, 0);
    /* It walks on (west, its crowd's heading) from there. */
    for (int s2 = 0; s2 < 60; s2++) th_world_step(w);
    s = state(w, a);
    ck_assert_msg(s.position.x < to.x - 0.3f && fabsf(s.position.y - to.y) < 0.1f, "at (%g, %g)",
                  (double)s.position.x, (double)s.position.y);
    /* ... and crosses the line for real. */
    for (int s2 = 0; s2 < 300; s2++) th_world_step(w);
    ck_assert(th_world_get_measure_line(w, line, &li));
    ck_assert_int_eq((int)li.crossed_total, -1);
    (void)other;
    th_world_destroy(w);
}
END_TEST

START_TEST(an_own_goal_is_planned_again_from_the_new_place) {
    th_error err;
    /* A wall across the world at x 20 with a gap at the top (y 17 to 20). */
    th_world *w = th_test_metre_world(1, 5, 40, 20);
    for (int32_t y = 0; y < 17; y++) ck_assert(th_world_set_cell(w, 20, y, TH_CELL_WALL, 0, &err));
    const th_crowd_id c = crowd(w, true);
    const th_agent_id a = th_world_add_agent(w, c, th_v2(5.5f, 5.5f), th_v2(0, 0), &err);
    th_agent_goal g = {.kind = TH_AGENT_GOAL_POINT, .point = th_v2(35.5f, 5.5f), .radius = 0.5f};
    ck_assert_msg(th_world_set_agent_goal(w, a, &g, &err), "%s", err.message);
    th_world_step(w);
    const float far = th_world_agent_remaining(w, a);
    ck_assert_msg(far > 34.0f, "round the wall: %g m", (double)far);
    ck_assert(th_world_set_agent_position(w, a, th_v2(30.5f, 5.5f), &err));
    /* Straight to the point now: about 5 m, not the way round from where it stood. */
    const float near = th_world_agent_remaining(w, a);
    ck_assert_msg(near > 4.0f && near < 6.5f, "from the new place: %g m", (double)near);
    th_vec2 path[64];
    uint32_t n;
    ck_assert_msg(th_world_agent_path(w, a, path, 64, &n, &err), "%s", err.message);
    ck_assert(n >= 1 && path[0].x == 30.5f && path[0].y == 5.5f);
    for (int s = 0; s < 8 * 60; s++) th_world_step(w);
    ck_assert_msg(dist(state(w, a).position, g.point) < 1.0f, "at (%g, %g)",
                  (double)state(w, a).position.x, (double)state(w, a).position.y);
    th_world_destroy(w);
}
END_TEST

START_TEST(an_agent_dropped_on_others_is_pushed_off) {
    th_error err;
    th_world *w = open_world(2, 40, 40, false);
    const th_crowd_id c = crowd(w, true);
    const float r = th_world_get_crowd(w, c)->body_radius;
    th_agent_id ids[64];
    for (int i = 0; i < 64; i++) {
        ids[i] = th_world_add_agent(
            w, c, th_v2(30.0f + 0.5f * (float)(i % 8), 30.0f + 0.5f * (float)(i / 8)), th_v2(0, 0),
            &err);
        ck_assert(th_world_set_agent_preferred_velocity(w, ids[i], th_v2(0, 0), &err));
    }
    const th_agent_id a = th_world_add_agent(w, c, th_v2(5, 5), th_v2(0, 0), &err);
    th_world_set_validation(w, true);
    for (int s = 0; s < 30; s++) th_world_step(w);
    /* Onto the middle of the block, 5 cm from an agent there: the next step files it under its
     * new cell, sees its neighbours and pushes the bodies apart. */
    const th_vec2 target = state(w, ids[27]).position;
    ck_assert(th_world_set_agent_position(w, a, th_v2_add(target, th_v2(0.05f, 0)), &err));
    for (int s = 0; s < 30; s++) th_world_step(w);
    ck_assert_msg(th_world_validation_error(w) == NULL, "%s", th_world_validation_error(w));
    const th_agent_state sa = state(w, a);
    ck_assert_msg(sa.neighbors > 0, "it sees nobody where it landed");
    for (int i = 0; i < 64; i++) {
        const float d = dist(sa.position, state(w, ids[i]).position);
        CHECK_MSG(d >= 2.0f * r * 0.9f, "%g m from agent %d", (double)d, i);
    }
    th_world_destroy(w);
}
END_TEST

/* ---- body radius ------------------------------------------------------------------------- */

/* Two standing walkers 0.25 m apart, centre to centre, in a crowd of 0.3 m bodies: as they
 * are, the contacts push them apart to 0.6 m; given bodies of 0.1 m each they do not touch,
 * stay where they are, and the overlap invariant (checked every step) holds with their own
 * sizes. The view carries the radii by id slot for the viewer. */
START_TEST(an_own_body_radius_sets_the_spacing) {
    for (int own = 0; own <= 1; own++) {
        th_error err;
        th_world *w = open_world(2, 20, 20, false);
        th_crowd_def cd = th_default_pedestrian_def();
        cd.body_radius = 0.3f;
        const th_crowd_id c = th_world_add_crowd(w, &cd, &err);
        ck_assert_msg(th_crowd_id_valid(c), "%s", err.message);
        th_agent_id ids[2];
        for (int i = 0; i < 2; i++) {
            ids[i] =
                th_world_add_agent(w, c, th_v2(10.0f + 0.25f * (float)i, 10.0f), th_v2(0, 0), &err);
            ck_assert(th_world_set_agent_preferred_velocity(w, ids[i], th_v2(0, 0), &err));
            if (own)
                ck_assert_msg(th_world_set_agent_radius(w, ids[i], 0.1f, &err), "%s", err.message);
        }
        th_agent_view v = th_world_agents(w);
        if (own) {
            ck_assert_ptr_nonnull(v.own_radius);
            ck_assert_float_eq(v.own_radius[ids[1].index1 - 1], 0.1f);
        } else {
            ck_assert_ptr_null(v.own_radius);
        }
        th_world_set_validation(w, true);
        for (int s = 0; s < 40; s++) th_world_step(w);
        ck_assert_msg(th_world_validation_error(w) == NULL, "%s", th_world_validation_error(w));
        const float d = dist(state(w, ids[0]).position, state(w, ids[1]).position);
        if (own) CHECK_MSG(d > 0.2f && d < 0.3f, "own radii 0.1 m: %g m apart", (double)d);
        else CHECK_MSG(d > 0.6f * 0.95f, "crowd radii 0.3 m: %g m apart", (double)d);
        th_world_destroy(w);
    }
}
END_TEST

/* ---- refusals ------------------------------------------------------------------------------ */

typedef struct meddler {
    th_world *w;
    th_agent_id id;
    int refused;
} meddler;

/* A host scheduler that runs each task at once, after trying the calls inside the step. */
static void *meddling_enqueue(th_task_fn *task, uint32_t items, uint32_t min_range, void *ctx,
                              void *user) {
    (void)min_range;
    meddler *m = user;
    if (m->w) {
        th_error err = {0};
        if (!th_world_set_agent_preferred_velocity(m->w, m->id, th_v2(1, 0), &err) &&
            err.code == TH_ERR_STATE)
            m->refused++;
        if (!th_world_clear_agent_preferred_velocity(m->w, m->id, &err) && err.code == TH_ERR_STATE)
            m->refused++;
        if (!th_world_set_agent_position(m->w, m->id, th_v2(3, 3), &err) &&
            err.code == TH_ERR_STATE)
            m->refused++;
        if (!th_world_set_agent_radius(m->w, m->id, 0.1f, &err) && err.code == TH_ERR_STATE)
            m->refused++;
    }
    task(0, items, 0, ctx);
    return NULL;
}

static void serial_finish(void *handle, void *user) {
    (void)handle;
    (void)user;
}

START_TEST(bad_calls_are_refused) {
    th_error err;
    th_world *w = open_world(1, 20, 20, false);
    const th_crowd_id c = crowd(w, true);
    const th_agent_id a = th_world_add_agent(w, c, th_v2(5, 5), th_v2(0, 0), &err);
    const th_agent_id b = th_world_add_agent(w, c, th_v2(9, 5), th_v2(0, 0), &err);
    const th_agent_id none = {9, 1}, null = TH_INVALID_AGENT;
    th_vec2 v;
    uint32_t n = 7;
    th_agent_id out[4];
    ck_assert(!th_world_set_agent_preferred_velocity(w, none, th_v2(1, 0), &err));
    TH_TEST_ERR(err, TH_ERR_HANDLE);
    ck_assert(!th_world_set_agent_preferred_velocity(w, null, th_v2(1, 0), &err));
    TH_TEST_ERR(err, TH_ERR_HANDLE);
    ck_assert(!th_world_clear_agent_preferred_velocity(w, none, &err));
    TH_TEST_ERR(err, TH_ERR_HANDLE);
    ck_assert(!th_world_get_agent_preferred_velocity(w, none, &v));
    ck_assert(!th_world_set_agent_preferred_velocity(w, a, th_v2(NAN, 0), &err));
    TH_TEST_ERR(err, TH_ERR_INVALID);
    ck_assert(!th_world_set_agent_preferred_velocity(w, a, th_v2(0, INFINITY), &err));
    TH_TEST_ERR(err, TH_ERR_INVALID);
    ck_assert(!th_world_get_agent_preferred_velocity(w, a, &v)); /* none was kept */
    ck_assert(!th_world_agent_neighbors(w, none, 1.0f, out, 4, &n, &err));
    TH_TEST_ERR(err, TH_ERR_HANDLE);
    ck_assert_uint_eq(n, 0);
    ck_assert(!th_world_agent_neighbors(w, a, -1.0f, out, 4, &n, &err));
    TH_TEST_ERR(err, TH_ERR_INVALID);
    ck_assert(!th_world_agent_neighbors(w, a, NAN, out, 4, &n, &err));
    TH_TEST_ERR(err, TH_ERR_INVALID);
    ck_assert(th_world_agent_neighbors(w, a, 4.0f, out, 4, &n, &err) && n == 1 &&
              th_agent_id_eq(out[0], b));
    /* A stale id: the agent was removed, and its slot taken by a new one. */
    ck_assert(th_world_set_agent_preferred_velocity(w, b, th_v2(1, 0), &err));
    ck_assert(th_world_remove_agent(w, b, &err));
    th_world_step(w);
    const th_agent_id b2 = th_world_add_agent(w, c, th_v2(12, 5), th_v2(0, 0), &err);
    ck_assert_uint_eq(b2.index1, b.index1);
    ck_assert(!th_world_set_agent_position(w, b, th_v2(1, 1), &err));
    TH_TEST_ERR(err, TH_ERR_HANDLE);
    ck_assert(!th_world_set_agent_preferred_velocity(w, b, th_v2(1, 0), &err));
    TH_TEST_ERR(err, TH_ERR_HANDLE);
    /* The new agent in the slot starts without its predecessor's velocity. */
    ck_assert(!th_world_get_agent_preferred_velocity(w, b2, &v));
    /* Body radii: at most the crowd's, above 0, finite; a crowd without bodies has none to
     * change; a stale or unknown id. */
    const float r = th_world_get_crowd(w, c)->body_radius;
    static const float bad_r[] = {0.0f, -0.1f, NAN, INFINITY, 1.0f};
    for (size_t i = 0; i < sizeof bad_r / sizeof bad_r[0]; i++) {
        ck_assert(!th_world_set_agent_radius(w, a, bad_r[i] == 1.0f ? r + 0.01f : bad_r[i], &err));
        TH_TEST_ERR(err, TH_ERR_INVALID);
    }
    ck_assert_float_eq(th_world_agent_radius(w, a), r);
    ck_assert(!th_world_set_agent_radius(w, b, 0.1f, &err));
    TH_TEST_ERR(err, TH_ERR_HANDLE);
    ck_assert_float_eq(th_world_agent_radius(w, b), -1.0f);
    ck_assert_float_eq(th_world_agent_radius(NULL, a), -1.0f);
    const th_crowd_id boids = crowd(w, false);
    const th_agent_id boid = th_world_add_agent(w, boids, th_v2(15, 15), th_v2(0, 0), &err);
    ck_assert(!th_world_set_agent_radius(w, boid, 0.1f, &err));
    TH_TEST_ERR(err, TH_ERR_STATE);
    ck_assert_float_eq(th_world_agent_radius(w, boid), 0.0f);
    /* A slot's next agent starts with its crowd's body. */
    ck_assert(th_world_set_agent_radius(w, b2, 0.1f, &err));
    ck_assert_float_eq(th_world_agent_radius(w, b2), 0.1f);
    ck_assert(th_world_remove_agent(w, b2, &err));
    th_world_step(w);
    const th_agent_id b3 = th_world_add_agent(w, c, th_v2(12, 5), th_v2(0, 0), &err);
    ck_assert_uint_eq(b3.index1, b2.index1);
    ck_assert_float_eq(th_world_agent_radius(w, b3), r);
    th_world_destroy(w);

    /* From inside a step (a host task): refused, the world stepped as if nobody had asked. */
    static meddler m;
    memset(&m, 0, sizeof m);
    th_world_def wd = th_default_world_def();
    wd.threads = 1;
    wd.enqueue_task = meddling_enqueue;
    wd.finish_task = serial_finish;
    wd.task_user = &m;
    w = th_world_create(&wd, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    const th_crowd_id c2 = crowd(w, true);
    m.id = th_world_add_agent(w, c2, th_v2(5, 5), th_v2(0, 0), &err);
    m.w = w;
    th_world_step(w);
    m.w = NULL;
    ck_assert_int_gt(m.refused, 0);
    ck_assert_int_eq(m.refused % 4, 0);
    ck_assert_float_eq(th_world_agent_radius(w, m.id), th_world_get_crowd(w, c2)->body_radius);
    ck_assert(!th_world_get_agent_preferred_velocity(w, m.id, &v));
    ck_assert(state(w, m.id).position.x != 3.0f);
    th_world_destroy(w);
}
END_TEST

/* ---- determinism --------------------------------------------------------------------------- */

enum { CHECKPOINTS = 3 };

/* A map world with walkers and a flock, steered, moved and released at fixed steps (or left
 * alone, `calls` false); the hash at each checkpoint. */
static void steered_run(uint32_t threads, bool calls, uint64_t hash[CHECKPOINTS]) {
    th_error err;
    th_world *w = th_test_metre_world(threads, 11, 60, 40);
    for (int32_t y = 10; y < 30; y++) ck_assert(th_world_set_cell(w, 30, y, TH_CELL_WALL, 0, &err));
    const th_crowd_id walkers = crowd(w, true), flock = crowd(w, false);
    enum { N = 600 };
    static th_agent_id ids[N];
    uint64_t ctr = 0;
    for (int i = 0; i < N; i++) {
        th_vec2 p;
        do {
            p = th_v2((float)th_test_rnd(8, 1, &ctr, 6000) * 0.01f,
                      (float)th_test_rnd(8, 1, &ctr, 4000) * 0.01f);
        } while (p.x >= 29.5f && p.x < 31.5f && p.y >= 9.5f && p.y < 30.5f);
        ids[i] = th_world_add_agent(w, i % 3 ? walkers : flock, p, th_v2(0, 0), &err);
        ck_assert_msg(th_agent_id_valid(ids[i]), "%s", err.message);
    }
    const int steps = th_test_steps(40);
    for (int k = 0; k < CHECKPOINTS; k++) {
        for (int i = 0; calls && i < N; i++) {
            if (k == 0 && i % 5 == 0) {
                const th_vec2 v =
                    th_v2((float)(i % 7) * 0.3f - 0.9f, (float)(i % 11) * 0.2f - 1.0f);
                ck_assert(th_world_set_agent_preferred_velocity(w, ids[i], v, &err));
            }
            if (k == 0 && i % 3 && i % 4 == 1)
                ck_assert_msg(th_world_set_agent_radius(w, ids[i], 0.12f, &err), "%s", err.message);
            if (k == 1 && i % 9 == 0) {
                const th_vec2 to = th_v2(5.5f + (float)(i % 20), 2.0f + (float)(i % 37) * 0.25f);
                ck_assert_msg(th_world_set_agent_position(w, ids[i], to, &err), "%s", err.message);
            }
            if (k == 2 && i % 10 == 0)
                ck_assert(th_world_clear_agent_preferred_velocity(w, ids[i], &err));
        }
        for (int s = 0; s < steps; s++) th_world_step(w);
        hash[k] = th_world_hash(w);
    }
    th_world_destroy(w);
}

START_TEST(the_same_calls_step_alike_on_any_thread_count) {
    uint64_t one[CHECKPOINTS], alone[CHECKPOINTS];
    steered_run(1, true, one);
    steered_run(1, false, alone);
    for (int k = 0; k < CHECKPOINTS; k++) ck_assert(one[k] != alone[k]); /* the calls count */
    static const uint32_t threads[] = {2, 4, 8};
    for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
        uint64_t h[CHECKPOINTS];
        steered_run(threads[t], true, h);
        for (int k = 0; k < CHECKPOINTS; k++)
            ck_assert_msg(h[k] == one[k], "%u threads, checkpoint %d: %016llx, one thread %016llx",
                          threads[t], k, (unsigned long long)h[k], (unsigned long long)one[k]);
    }
}
END_TEST

int main(void) {
    Suite *s = suite_create("host_steer");
    TCase *tc = tcase_create("host_steer");
    tcase_set_timeout(tc, 300);
    if (!TH_TEST_TSAN) {
        tcase_add_test(tc, a_lone_agent_moves_at_its_preferred_velocity);
        tcase_add_test(tc, avoidance_and_walls_still_apply);
        tcase_add_test(tc, a_teleported_agent_is_at_its_new_place);
        tcase_add_test(tc, an_own_goal_is_planned_again_from_the_new_place);
        tcase_add_test(tc, bad_calls_are_refused);
    }
    tcase_add_test(tc, neighbors_match_brute_force);
    tcase_add_test(tc, an_agent_dropped_on_others_is_pushed_off);
    tcase_add_test(tc, an_own_body_radius_sets_the_spacing);
    tcase_add_test(tc, the_same_calls_step_alike_on_any_thread_count);
    suite_add_tcase(s, tc);
    return th_test_run(s);
}
