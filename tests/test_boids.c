/* The grid engine's boids accelerations equal the naive O(N^2) reference; the scalar grid
 * reference (the benchmark's baseline) does too; the kernel's instruction-set copies agree bit
 * for bit. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/rng.h"
#include "throng/throng.h"
#include "sim/behave/boids.h"
#include "ref_boids.h"
#include "ref_grid_boids.h"
#include "test_util.h"

typedef struct scenario {
    float width, height;
    bool wrap;
    uint32_t crowds;
    th_crowd_def defs[4];
    uint32_t n;
    float *px, *py, *vx, *vy;
    uint16_t *crowd;
} scenario;

static scenario make(float width, float height, bool wrap, uint32_t n) {
    scenario s = {.width = width, .height = height, .wrap = wrap, .n = n};
    s.px = calloc(n, sizeof(float));
    s.py = calloc(n, sizeof(float));
    s.vx = calloc(n, sizeof(float));
    s.vy = calloc(n, sizeof(float));
    s.crowd = calloc(n, sizeof(uint16_t));
    return s;
}

static void release(scenario *s) {
    free(s->px);
    free(s->py);
    free(s->vx);
    free(s->vy);
    free(s->crowd);
}

static void add_crowd(scenario *s, float rn, float rs, float fov) {
    th_crowd_def d = th_default_crowd_def();
    d.neighbor_radius = rn;
    d.separation_radius = rs;
    d.fov_deg = fov;
    d.separation_weight = 1.7f;
    d.alignment_weight = 0.9f;
    d.cohesion_weight = 1.1f;
    d.max_speed = 3.0f + (float)s->crowds;
    d.max_force = 6.0f + (float)s->crowds;
    s->defs[s->crowds++] = d;
}

static float rnd(uint64_t seed, uint64_t i, uint64_t k, float lo, float hi) {
    return th_rng_range(seed, i, k, lo, hi);
}

/* Uniform positions, random velocities (some exactly zero), random crowds. */
static void fill_random(scenario *s, uint64_t seed) {
    for (uint32_t i = 0; i < s->n; i++) {
        s->px[i] = rnd(seed, i, 0, 0.0f, s->width);
        s->py[i] = rnd(seed, i, 1, 0.0f, s->height);
        bool still = th_rng_f01(seed, i, 2) < 0.05f;
        s->vx[i] = still ? 0.0f : rnd(seed, i, 3, -2.0f, 2.0f);
        s->vy[i] = still ? 0.0f : rnd(seed, i, 4, -2.0f, 2.0f);
        s->crowd[i] = (uint16_t)(th_rng_u64(seed, i, 5) % s->crowds);
    }
}

/* Build the engine world, step once, compare every agent's acceleration and neighbour count
 * with the reference evaluated on the initial state. */
static void check_against_reference(const scenario *s, uint32_t threads) {
    th_world_def wd = th_default_world_def();
    wd.width = s->width;
    wd.height = s->height;
    wd.bounds = s->wrap ? TH_BOUNDS_WRAP : TH_BOUNDS_WALLS;
    wd.threads = threads;
    th_error err;
    th_world *w = th_world_create(&wd, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    ref_crowd rc[4];
    for (uint32_t c = 0; c < s->crowds; c++) {
        ck_assert_int_eq(IDX(th_world_add_crowd(w, &s->defs[c], &err)), (int)c);
        const th_crowd_def *d = &s->defs[c];
        rc[c] = (ref_crowd){d->neighbor_radius,   d->separation_radius, d->fov_deg,
                            d->separation_weight, d->alignment_weight,  d->cohesion_weight,
                            d->max_speed,         d->max_force};
    }
    for (uint32_t i = 0; i < s->n; i++) {
        th_agent_id id = th_world_add_agent(w, CROWD_ID(s->crowd[i]), th_v2(s->px[i], s->py[i]),
                                            th_v2(s->vx[i], s->vy[i]), &err);
        ck_assert_msg(th_agent_id_eq(id, th_test_id(i)), "agent %u: %s", i, err.message);
    }
    /* The engine clamps initial velocities to max_speed; give the reference the same input. */
    float *vx = malloc(s->n * sizeof(float)), *vy = malloc(s->n * sizeof(float));
    for (uint32_t i = 0; i < s->n; i++) {
        th_agent_state a;
        ck_assert(th_world_get_agent(w, th_test_id(i), &a));
        vx[i] = a.velocity.x;
        vy[i] = a.velocity.y;
    }
    float *ax = malloc(s->n * sizeof(float)), *ay = malloc(s->n * sizeof(float));
    uint32_t *nb = malloc(s->n * sizeof(uint32_t));
    ref_world rw = {s->width, s->height, s->wrap, rc};
    ref_boids_accel(&rw, s->n, s->px, s->py, vx, vy, s->crowd, ax, ay, nb);

    th_world_step(w);
    uint32_t nonzero = 0;
    for (uint32_t i = 0; i < s->n; i++) {
        th_agent_state a;
        ck_assert(th_world_get_agent(w, th_test_id(i), &a));
        float tol = 1e-5f * fmaxf(1.0f, hypotf(ax[i], ay[i]));
        ck_assert_msg(a.neighbors == nb[i], "agent %u sees %u neighbours, reference %u", i,
                      a.neighbors, nb[i]);
        ck_assert_msg(
            fabsf(a.acceleration.x - ax[i]) <= tol && fabsf(a.acceleration.y - ay[i]) <= tol,
            "agent %u: engine (%.7g, %.7g) reference (%.7g, %.7g)", i, (double)a.acceleration.x,
            (double)a.acceleration.y, (double)ax[i], (double)ay[i]);
        nonzero += ax[i] != 0.0f || ay[i] != 0.0f;
    }
    /* The scenario must exercise steering at all. */
    ck_assert_uint_gt(nonzero, s->n / 2);
    free(vx);
    free(vy);
    free(ax);
    free(ay);
    free(nb);
    th_world_destroy(w);
}

START_TEST(walled_one_crowd) {
    scenario s = make(120.0f, 80.0f, false, 3000);
    add_crowd(&s, 4.0f, 1.5f, 270.0f);
    fill_random(&s, 11);
    check_against_reference(&s, 2);
    release(&s);
}
END_TEST

START_TEST(wrap_three_crowds) {
    scenario s = make(90.0f, 70.0f, true, 3000);
    add_crowd(&s, 4.0f, 1.5f, 270.0f);
    add_crowd(&s, 6.0f, 2.5f, 360.0f);
    add_crowd(&s, 3.0f, 3.5f, 90.0f);
    fill_random(&s, 12);
    /* Crowd the seams: a quarter of the agents within a metre of an edge. */
    for (uint32_t i = 0; i < s.n; i += 4) {
        float e = rnd(99, i, 0, 0.0f, 1.0f);
        if (i % 8 == 0) s.px[i] = (i % 16 == 0) ? e : s.width - e;
        else s.py[i] = (i % 16 == 4) ? e : s.height - e;
    }
    check_against_reference(&s, 3);
    release(&s);
}
END_TEST

START_TEST(dense_cluster_one_cell) {
    scenario s = make(50.0f, 50.0f, false, 400);
    add_crowd(&s, 4.0f, 1.5f, 300.0f);
    add_crowd(&s, 4.0f, 1.0f, 180.0f);
    fill_random(&s, 13);
    for (uint32_t i = 0; i < s.n; i++) {
        s.px[i] = 20.0f + rnd(13, i, 7, 0.0f, 3.0f);
        s.py[i] = 20.0f + rnd(13, i, 8, 0.0f, 3.0f);
    }
    check_against_reference(&s, 2);
    release(&s);
}
END_TEST

START_TEST(tiny_torus_fewer_than_three_cells) {
    /* 2 x 1 cells of at least the radius: the 3x3 block must not visit a cell twice. */
    scenario s = make(9.0f, 8.5f, true, 60);
    add_crowd(&s, 4.0f, 2.0f, 360.0f);
    add_crowd(&s, 4.2f, 2.0f, 200.0f);
    fill_random(&s, 14);
    check_against_reference(&s, 2);
    release(&s);
}
END_TEST

START_TEST(agents_on_cell_borders) {
    /* Width 100 with radius 4 gives cells of exactly 4 m: put agents on the lattice lines. */
    scenario s = make(100.0f, 100.0f, false, 2500);
    add_crowd(&s, 4.0f, 1.5f, 270.0f);
    fill_random(&s, 15);
    for (uint32_t i = 0; i < s.n; i++) {
        if (i % 3 == 0) s.px[i] = 4.0f * (float)(th_rng_u64(15, i, 9) % 25);
        if (i % 5 == 0) s.py[i] = 4.0f * (float)(th_rng_u64(15, i, 10) % 25);
    }
    check_against_reference(&s, 1);
    release(&s);
}
END_TEST

START_TEST(one_step_integration_matches_reference) {
    /* After one step, positions and velocities follow the documented integration rule. */
    scenario s = make(60.0f, 60.0f, true, 800);
    add_crowd(&s, 4.0f, 1.5f, 270.0f);
    fill_random(&s, 16);
    th_world_def wd = th_default_world_def();
    wd.width = s.width;
    wd.height = s.height;
    wd.bounds = TH_BOUNDS_WRAP;
    wd.threads = 2;
    th_world *w = th_world_create(&wd, NULL);
    th_world_add_crowd(w, &s.defs[0], NULL);
    for (uint32_t i = 0; i < s.n; i++) {
        th_world_add_agent(w, CROWD_ID(0), th_v2(s.px[i], s.py[i]), th_v2(s.vx[i], s.vy[i]), NULL);
    }
    th_world_step(w);
    ref_crowd rc = {4.0f, 1.5f, 270.0f, 1.7f, 0.9f, 1.1f, 3.0f, 6.0f};
    ref_world rw = {s.width, s.height, true, &rc};
    float *ax = malloc(s.n * sizeof(float)), *ay = malloc(s.n * sizeof(float));
    ref_boids_step(&rw, wd.timestep, s.n, s.px, s.py, s.vx, s.vy, s.crowd, ax, ay);
    for (uint32_t i = 0; i < s.n; i++) {
        th_agent_state a;
        ck_assert(th_world_get_agent(w, th_test_id(i), &a));
        float dx = fabsf(a.position.x - s.px[i]), dy = fabsf(a.position.y - s.py[i]);
        dx = fminf(dx, s.width - dx); /* either side of the seam */
        dy = fminf(dy, s.height - dy);
        ck_assert_msg(dx < 1e-4f && dy < 1e-4f, "agent %u position off by (%g, %g)", i, (double)dx,
                      (double)dy);
        ck_assert_msg(fabsf(a.velocity.x - s.vx[i]) < 1e-4f &&
                          fabsf(a.velocity.y - s.vy[i]) < 1e-4f,
                      "agent %u velocity differs", i);
    }
    free(ax);
    free(ay);
    th_world_destroy(w);
    release(&s);
}
END_TEST

/* One step of the scalar grid reference lands every agent where one naive step does. */
static void grid_reference_case(bool wrap, uint64_t seed) {
    scenario s = make(70.0f, 50.0f, wrap, 1500);
    add_crowd(&s, 4.0f, 1.5f, 270.0f);
    add_crowd(&s, 3.0f, 2.0f, 120.0f);
    add_crowd(&s, 2.5f, 2.5f, 360.0f);
    fill_random(&s, seed);
    ref_crowd rc[3];
    for (uint32_t c = 0; c < s.crowds; c++) {
        const th_crowd_def *d = &s.defs[c];
        rc[c] = (ref_crowd){d->neighbor_radius,   d->separation_radius, d->fov_deg,
                            d->separation_weight, d->alignment_weight,  d->cohesion_weight,
                            d->max_speed,         d->max_force};
    }
    ref_world rw = {s.width, s.height, wrap, rc};
    ref_grid_boids g;
    ck_assert_int_eq(ref_grid_init(&g, &rw, s.crowds, s.n, s.px, s.py, s.vx, s.vy, s.crowd), 0);
    const float dt = 1.0f / 60.0f;
    ref_grid_step(&g, dt);
    float *ax = malloc(s.n * sizeof(float)), *ay = malloc(s.n * sizeof(float));
    ref_boids_step(&rw, dt, s.n, s.px, s.py, s.vx, s.vy, s.crowd, ax, ay);
    for (uint32_t k = 0; k < s.n; k++) {
        uint32_t i = g.id[k];
        float dx = fabsf(g.px[k] - s.px[i]), dy = fabsf(g.py[k] - s.py[i]);
        if (wrap) {
            dx = fminf(dx, s.width - dx);
            dy = fminf(dy, s.height - dy);
        }
        CHECK_MSG(dx < 1e-4f && dy < 1e-4f, "agent %u position off by (%g, %g)", i, (double)dx,
                  (double)dy);
        CHECK_MSG(fabsf(g.vx[k] - s.vx[i]) < 1e-3f && fabsf(g.vy[k] - s.vy[i]) < 1e-3f,
                  "agent %u velocity (%g, %g) vs (%g, %g)", i, (double)g.vx[k], (double)g.vy[k],
                  (double)s.vx[i], (double)s.vy[i]);
    }
    free(ax);
    free(ay);
    ref_grid_free(&g);
    release(&s);
}

START_TEST(grid_reference_matches_naive_walled) { grid_reference_case(false, 21); }
END_TEST

START_TEST(grid_reference_matches_naive_torus) { grid_reference_case(true, 22); }
END_TEST

/* Crowds of very different reaches in one world: the grid's cells follow the smallest, the
 * others walk wider blocks (up to the grid's limit of cells each side, past which cells grow),
 * walled and on a torus with agents crowding the seams; the accelerations and neighbour counts
 * must still be the naive reference's. */
START_TEST(mixed_radii_walled) {
    scenario s = make(110.0f, 75.0f, false, 3000);
    add_crowd(&s, 1.2f, 0.6f, 300.0f);
    add_crowd(&s, 4.0f, 1.5f, 270.0f);
    add_crowd(&s, 9.0f, 2.0f, 360.0f);
    add_crowd(&s, 2.5f, 5.5f, 120.0f);
    fill_random(&s, 31);
    check_against_reference(&s, 2);
    release(&s);
}
END_TEST

START_TEST(mixed_radii_torus) {
    scenario s = make(60.0f, 45.0f, true, 2500);
    add_crowd(&s, 1.0f, 0.5f, 270.0f);
    add_crowd(&s, 3.0f, 1.5f, 360.0f);
    add_crowd(&s, 7.5f, 3.0f, 200.0f);
    fill_random(&s, 32);
    for (uint32_t i = 0; i < s.n; i += 3) {
        float e = rnd(98, i, 0, 0.0f, 2.0f);
        if (i % 2 == 0) s.px[i] = (i % 4 == 0) ? e : s.width - e;
        else s.py[i] = (i % 4 == 1) ? e : s.height - e;
    }
    check_against_reference(&s, 3);
    release(&s);
}
END_TEST

/* A torus narrower than the long reach's block: 17 x 16 m with a 8 m reach and a 1 m one
 * (cells of 2 m, 8 columns, a block of 9 for the long reach: whole rows, each cell once). */
START_TEST(mixed_radii_narrow_torus) {
    scenario s = make(17.0f, 16.0f, true, 300);
    add_crowd(&s, 1.0f, 0.8f, 360.0f);
    add_crowd(&s, 8.0f, 2.0f, 270.0f);
    fill_random(&s, 33);
    check_against_reference(&s, 2);
    release(&s);
}
END_TEST

/* The flight from predators, looked up in the predator index, against brute force over all
 * agents: only the flee term acts (separation, alignment and cohesion weigh 0; no targets, no
 * terrain), so each agent's acceleration is its flee steering, computed here from the
 * definition (sum of -d / |d|^2 over agents of its flee types within flee_radius, nearest image
 * on a torus, seen all around). Crowd 0 flees types 2 and 3 over 7 m; crowd 1 (type 2) flees
 * its own type over 4 m, so it is in the index it queries and must not flee itself. With
 * `evade` > 0 crowd 0 evades instead, over that horizon: each predator's offset d becomes
 * d + v min(|d| / |v|, horizon), v its velocity (left as d when that is within 1 mm). */
static void flee_case(bool wrap, uint64_t seed, float evade) {
    const float W = 70.0f, H = 55.0f;
    th_world_def wd = th_default_world_def();
    wd.width = W;
    wd.height = H;
    wd.bounds = wrap ? TH_BOUNDS_WRAP : TH_BOUNDS_WALLS;
    wd.threads = 2;
    th_error err;
    th_world *w = th_world_create(&wd, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    const uint32_t types[3] = {1, 2, 3}, flee[3] = {(1u << 2) | (1u << 3), 1u << 2, 0};
    const float radius[3] = {7.0f, 4.0f, 12.0f};
    const uint32_t count[3] = {2000, 10, 6};
    th_crowd_def defs[3];
    for (int c = 0; c < 3; c++) {
        th_crowd_def d = th_default_crowd_def();
        d.type = types[c];
        d.flee_types = flee[c];
        d.flee_radius = radius[c];
        d.flee_weight = 1.5f + (float)c;
        if (c == 0) d.evade_horizon = evade;
        d.separation_weight = d.alignment_weight = d.cohesion_weight = 0.0f;
        d.max_speed = 3.0f + (float)c;
        d.max_force = 5.0f + (float)c;
        defs[c] = d;
        ck_assert_int_eq(IDX(th_world_add_crowd(w, &d, &err)), c);
    }
    uint32_t n = 0;
    for (int c = 0; c < 3; c++) {
        for (uint32_t k = 0; k < count[c]; k++, n++) {
            th_vec2 p = th_v2(rnd(seed, n, 0, 0.0f, W), rnd(seed, n, 1, 0.0f, H));
            if (k % 5 == 0) p.x = rnd(seed, n, 2, 0.0f, 1.5f); /* near the seam */
            th_vec2 v = th_v2(rnd(seed, n, 3, -2.0f, 2.0f), rnd(seed, n, 4, -2.0f, 2.0f));
            ck_assert(
                th_agent_id_eq(th_world_add_agent(w, CROWD_ID(c), p, v, &err), th_test_id(n)));
        }
    }
    th_agent_state *st = malloc(n * sizeof *st);
    ck_assert_ptr_nonnull(st);
    for (uint32_t i = 0; i < n; i++) ck_assert(th_world_get_agent(w, th_test_id(i), &st[i]));
    th_world_step(w);
    uint32_t fleeing = 0;
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t c = (uint32_t)IDX(st[i].crowd);
        const th_crowd_def *d = &defs[c];
        double sx = 0.0, sy = 0.0;
        uint32_t preds = 0;
        for (uint32_t j = 0; j < n; j++) {
            if (!((d->flee_types >> types[IDX(st[j].crowd)]) & 1u)) continue;
            float dx = st[j].position.x - st[i].position.x;
            float dy = st[j].position.y - st[i].position.y;
            if (wrap) {
                dx = dx > 0.5f * W ? dx - W : (dx < -0.5f * W ? dx + W : dx);
                dy = dy > 0.5f * H ? dy - H : (dy < -0.5f * H ? dy + H : dy);
            }
            float d2 = dx * dx + dy * dy;
            if (!(d2 > 0.0f && d2 < d->flee_radius * d->flee_radius)) continue;
            const float vx = st[j].velocity.x, vy = st[j].velocity.y;
            if (d->evade_horizon > 0.0f && vx * vx + vy * vy > 1e-12f) {
                const float t = fminf(sqrtf(d2 / (vx * vx + vy * vy)), d->evade_horizon);
                const float ex = dx + vx * t, ey = dy + vy * t;
                if (ex * ex + ey * ey > 1e-6f) {
                    dx = ex;
                    dy = ey;
                    d2 = ex * ex + ey * ey;
                }
            }
            sx -= dx / (double)d2;
            sy -= dy / (double)d2;
            preds++;
        }
        double ax = 0.0, ay = 0.0;
        if (preds > 0) {
            const double l = hypot(sx, sy);
            double ex = sx / l * d->max_speed - st[i].velocity.x;
            double ey = sy / l * d->max_speed - st[i].velocity.y;
            double el = hypot(ex, ey);
            if (el > d->max_force) ex *= d->max_force / el, ey *= d->max_force / el;
            ax = ex * d->flee_weight;
            ay = ey * d->flee_weight;
            double al = hypot(ax, ay);
            if (al > d->max_force) ax *= d->max_force / al, ay *= d->max_force / al;
            fleeing++;
        }
        th_agent_state a;
        ck_assert(th_world_get_agent(w, th_test_id(i), &a));
        const double tol = 1e-4 * fmax(1.0, hypot(ax, ay));
        ck_assert_msg(fabs(a.acceleration.x - ax) <= tol && fabs(a.acceleration.y - ay) <= tol,
                      "agent %u (crowd %u, %u predators): engine (%.7g, %.7g) brute force "
                      "(%.7g, %.7g)",
                      i, c, preds, (double)a.acceleration.x, (double)a.acceleration.y, ax, ay);
    }
    /* The scenario must make many flee, and leave many out of reach. */
    ck_assert_uint_gt(fleeing, n / 4);
    ck_assert_uint_lt(fleeing, n - n / 10);
    free(st);
    th_world_destroy(w);
}

START_TEST(flee_matches_brute_force_walled) { flee_case(false, 41, 0.0f); }
END_TEST

START_TEST(flee_matches_brute_force_torus) { flee_case(true, 42, 0.0f); }
END_TEST

START_TEST(evade_matches_brute_force) {
    flee_case(false, 43, 1.5f);
    flee_case(true, 44, 3.0f);
}
END_TEST

/* The hawks scene (3,000 pigeons with a 12 m flee radius, two hawks): agents inspect at most
 * 3x as many candidates as the neighbours they see. Counted by the engine, not timed. */
START_TEST(hawks_candidates_bounded) {
    th_error err;
    th_scene_info info;
    th_scene_opts o = {.threads = 2};
    th_world *w = th_scene_load(THRONG_SCENES_DIR "/hawks.yaml", &o, &info, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    double cand = 0.0, seen = 0.0;
    const int steps = th_test_steps(240);
    for (int step = 1; step <= steps; step++) {
        th_world_step(w);
        const th_world_stats st = th_world_get_stats(w);
        ck_assert(st.mean_neighbors > 5.0);
        ck_assert_msg(st.mean_candidates <= 3.0 * st.mean_neighbors,
                      "step %d: %.1f candidates for %.1f seen", step, st.mean_candidates,
                      st.mean_neighbors);
        cand += st.mean_candidates;
        seen += st.mean_neighbors;
    }
    fprintf(stderr, "test_boids: hawks, %.1f candidates per agent for %.1f seen\n", cand / steps,
            seen / steps);
    th_world_destroy(w);
}
END_TEST

/* Hash of a library scene (at most 3,000 agents) after 60 steps on 3 threads. */
static uint64_t scene_hash(const char *path) {
    th_world *w = th_test_load(path, (th_scene_opts){.threads = 3}, 3000, NULL);
    for (int s = 0; s < th_test_steps(60); s++) th_world_step(w);
    uint64_t h = th_world_hash(w);
    th_world_destroy(w);
    return h;
}

/* Every copy of the kernel this CPU can run gives the baseline copy's state, bit for bit, on
 * every library scene (flocking, terrain, leaders, predators, squads). */
START_TEST(kernel_copies_bit_identical) {
    ck_assert(th_boids_force_isa(TH_BOIDS_ISA_BASELINE));
    ck_assert_int_eq(th_boids_active_isa(), TH_BOIDS_ISA_BASELINE);
    th_boids_isa others[2];
    int n_others = 0;
    for (th_boids_isa isa = TH_BOIDS_ISA_AVX2; isa <= TH_BOIDS_ISA_AVX512; isa++) {
        if (th_boids_force_isa(isa)) others[n_others++] = isa;
    }
    ck_assert(th_boids_force_isa(TH_BOIDS_ISA_AUTO));
    if (n_others == 0) {
        fprintf(stderr, "test_boids: only the baseline copy runs here\n");
        return;
    }
    static th_test_path scenes[TH_TEST_MAX_SCENES];
    const uint32_t n = th_test_scenes(THRONG_SCENES_DIR, scenes);
    for (uint32_t i = 0; i < n; i++) {
        th_boids_force_isa(TH_BOIDS_ISA_BASELINE);
        uint64_t base = scene_hash(scenes[i]);
        for (int k = 0; k < n_others; k++) {
            th_boids_force_isa(others[k]);
            uint64_t h = scene_hash(scenes[i]);
            ck_assert_msg(base == h, "%s: baseline 0x%016llx, %s 0x%016llx", scenes[i],
                          (unsigned long long)base, th_boids_isa_name(others[k]),
                          (unsigned long long)h);
        }
        th_boids_force_isa(TH_BOIDS_ISA_AUTO);
    }
    ck_assert_uint_ge(n, 5);
}
END_TEST

int main(void) {
    Suite *s = suite_create("boids");
    TCase *tc = tcase_create("reference");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, walled_one_crowd);
    tcase_add_test(tc, wrap_three_crowds);
    tcase_add_test(tc, dense_cluster_one_cell);
    tcase_add_test(tc, tiny_torus_fewer_than_three_cells);
    if (!TH_TEST_TSAN) tcase_add_test(tc, agents_on_cell_borders); /* one thread */
    tcase_add_test(tc, one_step_integration_matches_reference);
    tcase_add_test(tc, grid_reference_matches_naive_walled);
    tcase_add_test(tc, grid_reference_matches_naive_torus);
    tcase_add_test(tc, kernel_copies_bit_identical);
    tcase_add_test(tc, mixed_radii_walled);
    tcase_add_test(tc, mixed_radii_torus);
    tcase_add_test(tc, mixed_radii_narrow_torus);
    tcase_add_test(tc, flee_matches_brute_force_walled);
    tcase_add_test(tc, flee_matches_brute_force_torus);
    tcase_add_test(tc, evade_matches_brute_force);
    tcase_add_test(tc, hawks_candidates_bounded);
    suite_add_tcase(s, tc);
    return th_test_run(s);
}
