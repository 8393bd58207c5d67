/* Ant-colony foraging (sim/behave/forage.c): evaporation against exp(-rate t), food conservation,
 * a spent source's trail fading within the time the decay predicts, ants finding food and
 * forming a trail, trail following, contention for the last units, determinism at 1-3 threads,
 * no allocation in a step, and bad input in scene files and through the API. */
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

static const float k_dt = 1.0f / 60.0f;

/* A colony in a W x H world (a map of 1 m open cells when `map`), nest and one food source;
 * `ants` agents start on the nest, headings spread evenly, at 1 m/s. Returns the world; the
 * crowd is 0. */
typedef struct colony_opts {
    float width, height;
    bool map;
    uint32_t threads;
    th_vec2 nest;
    th_food_source food;
    uint32_t ants;
    float evaporation, follow, wander_rate;
    uint64_t seed;
} colony_opts;

static th_world *make_colony(const colony_opts *o) {
    th_world_def wd = th_default_world_def();
    wd.width = o->width;
    wd.height = o->height;
    wd.timestep = k_dt;
    wd.threads = o->threads;
    wd.seed = o->seed ? o->seed : 11;
    wd.cell_size = o->map ? 1.0f : 0.0f;
    th_error err;
    th_world *w = th_world_create(&wd, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    th_forage_def f = {0};
    f.nest = o->nest;
    f.nest_radius = 2.0f;
    f.food = &o->food;
    f.food_count = 1;
    f.evaporation = o->evaporation;
    f.follow = o->follow;
    th_crowd_def cd = th_default_crowd_def();
    cd.name = "ants";
    cd.alignment_weight = 0.0f;
    cd.cohesion_weight = 0.0f;
    cd.neighbor_radius = 1.0f;
    cd.separation_radius = 0.5f;
    cd.separation_weight = 1.0f;
    cd.max_speed = 3.0f;
    cd.max_force = 8.0f;
    cd.wall_radius = 1.0f;
    cd.goal.kind = TH_GOAL_FORAGE;
    cd.goal.forage = &f;
    cd.goal.wander_rate = o->wander_rate ? o->wander_rate : 30.0f;
    ck_assert_msg(IDX(th_world_add_crowd(w, &cd, &err)) == 0, "%s", err.message);
    for (uint32_t i = 0; i < o->ants; i++) {
        const float a = 6.2831853f * (float)i / (float)o->ants;
        th_vec2 p = th_v2(o->nest.x + 1.2f * cosf(a), o->nest.y + 1.2f * sinf(a));
        ck_assert_msg(
            th_agent_id_valid(th_world_add_agent(w, CROWD_ID(0), p, th_v2(cosf(a), sinf(a)), &err)),
            "%s", err.message);
    }
    return w;
}

static float cell_value(const th_world *w, int32_t x, int32_t y) {
    int32_t cols, rows;
    const float *ph = th_world_pheromone(w, CROWD_ID(0), &cols, &rows, NULL);
    return ph[(size_t)y * (size_t)cols + (size_t)x];
}

static float grid_max(const th_world *w) {
    int32_t cols, rows;
    const float *ph = th_world_pheromone(w, CROWD_ID(0), &cols, &rows, NULL);
    float m = 0.0f;
    for (int32_t i = 0; i < cols * rows; i++) m = fmaxf(m, ph[i]);
    return m;
}

static double grid_sum(const th_world *w) {
    int32_t cols, rows;
    const float *ph = th_world_pheromone(w, CROWD_ID(0), &cols, &rows, NULL);
    double s = 0.0;
    for (int32_t i = 0; i < cols * rows; i++) s += ph[i];
    return s;
}

/* Ants carrying food, counted agent by agent. */
static uint32_t count_carrying(const th_world *w) {
    th_world_stats st = th_world_get_stats(w);
    uint32_t n = 0;
    for (uint32_t id = 0; id < st.spawned; id++) {
        th_agent_state a;
        if (th_world_get_agent(w, th_test_id(id), &a)) n += a.carrying;
    }
    return n;
}

/* ---- evaporation ------------------------------------------------------------------------ */

/* One deposit, no ants: the cell holds amount * exp(-rate t) at every time checked (float
 * products of exp(-rate dt), within 1e-4 relative after 1,200 steps), every other cell 0. */
START_TEST(single_deposit_decays_exponentially) {
    const float rates[] = {0.05f, 0.5f, 2.0f};
    for (int r = 0; r < 3; r++) {
        colony_opts o = {.width = 20,
                         .height = 12,
                         .nest = {3, 3},
                         .food = {{17, 9}, 1.0f, 5},
                         .evaporation = rates[r],
                         .threads = 2};
        th_world *w = make_colony(&o);
        th_error err;
        ck_assert(th_world_add_pheromone(w, CROWD_ID(0), th_v2(7.5f, 4.2f), 10.0f, &err));
        ck_assert_float_eq(cell_value(w, 7, 4), 10.0f);
        const int checks[] = {1, 30, 60, 300, 1200};
        int done = 0;
        for (int c = 0; c < 5; c++) {
            while (done < checks[c]) {
                th_world_step(w);
                done++;
            }
            const double want = 10.0 * exp(-(double)rates[r] * (double)done * (double)k_dt);
            const double got = cell_value(w, 7, 4);
            ck_assert_msg(fabs(got - want) <= 1e-4 * want + 1e-30, "rate %g, step %d: %g, want %g",
                          (double)rates[r], done, got, want);
            ck_assert_double_eq_tol(grid_sum(w), got, 1e-6 * want + 1e-30);
        }
        th_world_destroy(w);
    }
}
END_TEST

/* ---- food -------------------------------------------------------------------------------- */

/* At every check, units taken from the sources = units delivered + ants carrying (counted one
 * by one), and the sources hold what they started with less what was taken. */
START_TEST(food_is_conserved) {
    colony_opts o = {.width = 40,
                     .height = 20,
                     .nest = {5, 10},
                     .food = {{28, 10}, 2.0f, 40},
                     .ants = 60,
                     .threads = 2,
                     .map = true};
    th_world *w = make_colony(&o);
    uint64_t last_taken = 0;
    for (int s = 1; s <= 3600; s++) {
        th_world_step(w);
        if (s % 60) continue;
        th_forage_info fi;
        ck_assert(th_world_get_forage(w, CROWD_ID(0), &fi));
        th_food_info f;
        ck_assert(th_world_get_food_source(w, CROWD_ID(0), 0, &f));
        const uint32_t carrying = count_carrying(w);
        ck_assert_uint_eq(fi.taken, fi.delivered + carrying);
        ck_assert_uint_eq(fi.carried, carrying);
        ck_assert_uint_eq(fi.lost, 0);
        ck_assert_uint_eq(f.amount - f.remaining, fi.taken);
        ck_assert_uint_ge(fi.taken, last_taken);
        last_taken = fi.taken;
    }
    th_forage_info fi;
    th_world_get_forage(w, CROWD_ID(0), &fi);
    ck_assert_uint_gt(fi.delivered, 0);
    th_world_destroy(w);
}
END_TEST

/* Ten ants standing in a source of three units: the step takes exactly three, and the ants
 * that get them are the first three of the crowd in storage order (read after the step:
 * bookkeeping kept the order the step sorted the agents into). */
START_TEST(scarce_food_goes_first_in_storage_order) {
    colony_opts o = {
        .width = 30, .height = 30, .nest = {4, 4}, .food = {{20, 20}, 2.0f, 3}, .threads = 3};
    th_world *w = make_colony(&o);
    for (int i = 0; i < 10; i++) {
        th_vec2 p = th_v2(19.1f + 0.2f * (float)(i % 5), 19.6f + 0.5f * (float)(i / 5));
        ck_assert(th_agent_id_valid(th_world_add_agent(w, CROWD_ID(0), p, th_v2(0, 0), NULL)));
    }
    th_world_step(w);
    th_forage_info fi;
    th_world_get_forage(w, CROWD_ID(0), &fi);
    ck_assert_uint_eq(fi.taken, 3);
    th_agent_view v = th_world_agents(w);
    ck_assert_uint_eq(v.count, 10);
    for (uint32_t k = 0; k < v.count; k++) {
        th_agent_state a;
        ck_assert(th_world_get_agent(w, v.id[k], &a));
        ck_assert_msg(a.carrying == (k < 3), "slot %u (agent %u): carrying %d", k,
                      th_test_slot(v.id[k]), (int)a.carrying);
    }
    /* A carrier removed takes its unit with it: counted as lost, not as carried. */
    for (uint32_t k = 0; k < v.count; k++) {
        th_agent_state a;
        th_world_get_agent(w, v.id[k], &a);
        if (a.carrying) {
            ck_assert(th_world_remove_agent(w, v.id[k], NULL));
            break;
        }
    }
    th_world_step(w);
    th_world_get_forage(w, CROWD_ID(0), &fi);
    ck_assert_uint_eq(fi.lost, 1);
    ck_assert_uint_eq(fi.carried, count_carrying(w));
    ck_assert_uint_eq(fi.taken, fi.delivered + fi.carried + fi.lost);
    th_world_destroy(w);
}
END_TEST

/* Following trails is what makes a colony efficient: the same colony takes more food when its
 * searching ants follow the trails (follow 0.9) than when they almost never do (1e-6), with
 * everything else, the random draws included, the same. */
START_TEST(following_trails_brings_more_food) {
    uint64_t taken[2];
    const float follow[2] = {0.9f, 1e-6f};
    for (int i = 0; i < 2; i++) {
        colony_opts o = {.width = 60,
                         .height = 40,
                         .nest = {8, 20},
                         .food = {{50, 30}, 2.0f, 100000},
                         .ants = 150,
                         .threads = 1,
                         .map = true,
                         .follow = follow[i]};
        th_world *w = make_colony(&o);
        for (int s = 0; s < 60 * 90; s++) th_world_step(w);
        th_forage_info fi;
        th_world_get_forage(w, CROWD_ID(0), &fi);
        taken[i] = fi.taken;
        th_world_destroy(w);
    }
    if (getenv("THRONG_TEST_VERBOSE"))
        printf("taken: following %llu, not %llu\n", (unsigned long long)taken[0],
               (unsigned long long)taken[1]);
    ck_assert_msg(taken[0] * 10 > taken[1] * 13, "following %llu, not %llu",
                  (unsigned long long)taken[0], (unsigned long long)taken[1]);
}
END_TEST

/* A source of six units runs out; once the last unit is home nobody marks a cell again, so the
 * grid decays as exp(-rate t) from there: its strongest cell M falls to the threshold T after
 * n = ln(M / T) / (rate dt) steps, not before n - 1 and by n + 1, and the grid's sum keeps the
 * decay formula the whole way. */
START_TEST(spent_source_trail_fades_in_predicted_time) {
    const float rate = 0.5f, T = 0.01f;
    colony_opts o = {.width = 36,
                     .height = 16,
                     .nest = {4, 8},
                     .food = {{26, 8}, 2.0f, 6},
                     .ants = 40,
                     .threads = 2,
                     .map = true,
                     .evaporation = rate};
    th_world *w = make_colony(&o);
    th_forage_info fi;
    int s = 0;
    do {
        th_world_step(w);
        th_world_get_forage(w, CROWD_ID(0), &fi);
        s++;
    } while ((fi.delivered < 6) && s < 60 * 300);
    ck_assert_msg(fi.delivered == 6, "only %llu of 6 units home after %d steps",
                  (unsigned long long)fi.delivered, s);
    ck_assert_uint_eq(fi.taken, 6);
    ck_assert_uint_eq(fi.carried, 0);
    const float M = grid_max(w);
    const double S = grid_sum(w);
    ck_assert_float_gt(M, T);
    const double n = log((double)M / T) / ((double)rate * (double)k_dt);
    const int before = (int)floor(n) - 1, after = (int)ceil(n) + 1;
    for (int k = 1; k <= after; k++) {
        th_world_step(w);
        const double decay = exp(-(double)rate * (double)k * (double)k_dt);
        ck_assert_double_eq_tol(grid_sum(w), S * decay, 1e-4 * S * decay);
        if (k == before)
            ck_assert_msg(grid_max(w) > T, "below %g already at step %d of %g", (double)T, k, n);
    }
    ck_assert_msg(grid_max(w) <= T, "still %g > %g after %d steps (predicted %g)",
                  (double)grid_max(w), (double)T, after, n);
    th_world_destroy(w);
}
END_TEST

/* ---- trails ------------------------------------------------------------------------------- */

/* Ants wander out of the nest, find the food, deliver some, and the cells between nest and
 * food (a band 3 cells high along the line joining them) hold far more pheromone per cell than
 * cells away from that line. */
START_TEST(ants_find_food_and_form_a_trail) {
    colony_opts o = {.width = 40,
                     .height = 24,
                     .nest = {5, 12},
                     .food = {{33, 12}, 2.0f, 1000},
                     .ants = 80,
                     .threads = 2,
                     .map = true,
                     .evaporation = 0.05f};
    th_world *w = make_colony(&o);
    for (int s = 0; s < 60 * 60; s++) th_world_step(w);
    th_forage_info fi;
    th_world_get_forage(w, CROWD_ID(0), &fi);
    ck_assert_uint_gt(fi.delivered, 10);
    double band = 0.0, away = 0.0;
    int nb = 0, na = 0;
    for (int32_t y = 0; y < 24; y++) {
        for (int32_t x = 8; x <= 30; x++) {
            const float v = cell_value(w, x, y);
            if (abs(y - 12) <= 1) {
                band += v;
                nb++;
            } else if (abs(y - 12) >= 6) {
                away += v;
                na++;
            }
        }
    }
    band /= nb;
    away /= na;
    ck_assert_msg(band > 5.0 * away && band > 1.0, "trail %g per cell, elsewhere %g", band, away);
    th_world_destroy(w);
}
END_TEST

/* Distance of an ant from (30, 30). */
static float radius_of(const th_world *w, th_agent_id id) {
    th_agent_state a;
    ck_assert(th_world_get_agent(w, id, &a));
    return hypotf(a.position.x - 30.0f, a.position.y - 30.0f);
}

/* A circular trail of radius 12 laid by hand; a searching ant starting on it, heading along
 * it, keeps to it for 20 s (two thirds of a lap) when it always follows; with no trail the
 * same ant walks straight off the circle. */
START_TEST(searching_ant_follows_a_trail) {
    for (int trail = 1; trail >= 0; trail--) {
        colony_opts o = {.width = 60,
                         .height = 60,
                         .nest = {3, 3},
                         .food = {{57, 57}, 1.0f, 0},
                         .threads = 1,
                         .follow = 1.0f,
                         .wander_rate = 0.01f};
        th_world *w = make_colony(&o);
        /* A band of cells whose centres lie within 1.5 m of the circle, strongest on it. */
        for (int32_t y = 0; y < 60 && trail; y++) {
            for (int32_t x = 0; x < 60; x++) {
                const float off =
                    fabsf(hypotf((float)x + 0.5f - 30.0f, (float)y + 0.5f - 30.0f) - 12.0f);
                if (off <= 1.5f) {
                    th_vec2 p = th_v2((float)x + 0.5f, (float)y + 0.5f);
                    ck_assert(
                        th_world_add_pheromone(w, CROWD_ID(0), p, 50.0f * (1.6f - off), NULL));
                }
            }
        }
        th_agent_id id =
            th_world_add_agent(w, CROWD_ID(0), th_v2(42.0f, 30.0f), th_v2(0.0f, 2.0f), NULL);
        ck_assert(th_agent_id_valid(id));
        float worst = 0.0f;
        for (int s = 1; s <= 60 * 20; s++) {
            th_world_step(w);
            worst = fmaxf(worst, fabsf(radius_of(w, id) - 12.0f));
            if (!trail && s == 60 * 6) break;
        }
        if (trail) ck_assert_msg(worst < 2.0f, "left the trail by %g m", (double)worst);
        else
            ck_assert_msg(worst > 4.0f, "stayed within %g m of a trail that is not there",
                          (double)worst);
        th_world_destroy(w);
    }
}
END_TEST

/* ---- determinism and allocation ------------------------------------------------------------ */

START_TEST(same_result_at_one_two_three_threads) {
    uint64_t hash[3];
    float *grid[3];
    th_forage_info info[3];
    int32_t cols = 0, rows = 0;
    for (uint32_t t = 1; t <= 3; t++) {
        colony_opts o = {.width = 40,
                         .height = 24,
                         .nest = {5, 12},
                         .food = {{22, 12}, 2.0f, 12},
                         .ants = 300,
                         .threads = t,
                         .map = true,
                         .seed = 5};
        th_world *w = make_colony(&o);
        for (int s = 0; s < 1200; s++) th_world_step(w);
        hash[t - 1] = th_world_hash(w);
        th_world_get_forage(w, CROWD_ID(0), &info[t - 1]);
        const float *ph = th_world_pheromone(w, CROWD_ID(0), &cols, &rows, NULL);
        grid[t - 1] = malloc((size_t)cols * (size_t)rows * sizeof(float));
        memcpy(grid[t - 1], ph, (size_t)cols * (size_t)rows * sizeof(float));
        th_world_destroy(w);
    }
    /* The run must have exercised pickups, contention for the last units and deposits. */
    ck_assert_uint_eq(info[0].taken, 12);
    ck_assert_uint_gt(info[0].delivered, 0);
    for (int t = 1; t < 3; t++) {
        ck_assert_uint_eq(hash[t], hash[0]);
        ck_assert_uint_eq(info[t].taken, info[0].taken);
        ck_assert_uint_eq(info[t].delivered, info[0].delivered);
        ck_assert_int_eq(memcmp(grid[t], grid[0], (size_t)cols * (size_t)rows * sizeof(float)), 0);
    }
    for (int t = 0; t < 3; t++) free(grid[t]);
}
END_TEST

START_TEST(steps_do_not_allocate) {
    for (int map = 0; map <= 1; map++) {
        colony_opts o = {.width = 40,
                         .height = 24,
                         .nest = {5, 12},
                         .food = {{30, 12}, 2.0f, 500},
                         .ants = 300,
                         .threads = 2,
                         .map = map};
        th_world *w = make_colony(&o);
        for (int s = 0; s < 3; s++) th_world_step(w);
        const uint64_t before = th_alloc_count();
        for (int s = 0; s < 1200; s++) th_world_step(w);
        ck_assert_uint_eq(th_alloc_count(), before);
        th_forage_info fi;
        th_world_get_forage(w, CROWD_ID(0), &fi);
        ck_assert_uint_gt(fi.taken, 0); /* pickups and deposits happened in the steps counted */
        th_world_destroy(w);
    }
}
END_TEST

/* ---- the library scene ------------------------------------------------------------------- */

/* The library scene: its ants find food within 45 s (the scene's own thread counts are
 * compared by test_scene_threads). */
START_TEST(ants_scene_forages) {
    th_error err;
    th_world *w =
        th_scene_load(THRONG_SCENES_DIR "/ants.yaml", &(th_scene_opts){.threads = 1}, NULL, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    for (int s = 0; s < 60 * 45; s++) th_world_step(w);
    th_forage_info fi;
    ck_assert(th_world_get_forage(w, CROWD_ID(0), &fi));
    ck_assert_uint_gt(fi.delivered, 0);
    ck_assert_uint_eq(fi.taken, fi.delivered + fi.carried);
    ck_assert_uint_eq(fi.carried, count_carrying(w));
    th_world_destroy(w);
}
END_TEST

/* ---- bad input ------------------------------------------------------------------------------ */

/* Each case: a scene, the text whose first occurrence the error must point at (line:column),
 * and words the message must hold. */
static const char *const k_head = "name: t\n"
                                  "map:\n"
                                  "  cell_size: 1\n"
                                  "  legend: {'#': wall, '.': open}\n"
                                  "  ascii: |\n"
                                  "    ##########\n"
                                  "    #........#\n"
                                  "    #........#\n"
                                  "    #...##...#\n"
                                  "    #........#\n"
                                  "    ##########\n"
                                  "crowds:\n"
                                  "  - name: ants\n"
                                  "    count: 5\n"
                                  "    spawn: {rect: [1, 1, 3, 3]}\n"
                                  "    goal:\n";

START_TEST(scene_errors_point_at_the_value) {
    static const struct {
        const char *goal, *at, *words;
    } cases[] = {
        {"      forage: {food: [{at: [7, 2], amount: 5}]}\n", "{food", "missing: nest"},
        {"      forage: {nest: {at: [4.5, 2.5]}, food: [{at: [7, 2], amount: 5}]}\n", "[4.5, 2.5]",
         "inside a wall"},
        {"      forage: {nest: {at: [2, 2]}, food: [{at: [7, 2], amount: -3}]}\n", "-3",
         "forage.food[0].amount"},
        {"      forage: {nest: {at: [2, 2]}, food: [{at: [7, 2]}]}\n", "{at: [7, 2]}",
         "missing: amount"},
        {"      forage: {nest: {at: [2, 2]}, food: []}\n", "[]}", "1 to 64 food sources"},
        {"      forage: {nest: {at: [2, 2]}, food: [{at: [7, 2], amount: 5}], follow: 0}\n", "0}",
         "forage.follow"},
        {"      forage: {nest: {at: [2, 2]}, food: [{at: [7, 2], amount: 5}], follow: 1.5}\n",
         "1.5", "forage.follow"},
        {"      forage: {nest: {at: [2, 2]}, food: [{at: [7, 2], amount: 5}], evaporation: x}\n",
         "x}", "forage.evaporation"},
        {"      forage: {nest: {at: [2, 2]}, food: [{at: [7, 2], amount: 5}], cell_size: 2}\n",
         "2}", "the map's (1 m)"},
        {"      forage: {nest: {at: [2, 2]}, food: [{at: [7, 2], amount: 5}], smell: 3}\n", "smell",
         "smell"},
        {"      forage: {nest: {at: [2, 2], radius: 0}, food: [{at: [7, 2], amount: 5}]}\n", "0}",
         "nest.radius"},
        {"      forage: {nest: {at: [2, 2]}, food: [{at: [70, 2], amount: 5}]}\n", "[70, 2]",
         "inside the 10 x 6 m world"},
        {"      forage: {nest: {at: [2, 2]}, food: [{at: [7, 2], amount: 5}]}\n"
         "      wander: {}\n",
         "forage", "exactly one of"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[2048], path[300];
        snprintf(text, sizeof text, "%s%s", k_head, cases[i].goal);
        snprintf(path, sizeof path, "%s/case%zu.yaml", th_test_dir(), i);
        FILE *f = fopen(path, "w");
        ck_assert_ptr_nonnull(f);
        fputs(text, f);
        fclose(f);
        /* Where the value is: its line and column, 1-based, found in the text itself. */
        const char *goal_at = text + strlen(k_head);
        const char *hit = strstr(goal_at, cases[i].at);
        ck_assert_msg(hit != NULL, "case %zu: no '%s'", i, cases[i].at);
        unsigned line = 1, col = 1;
        for (const char *p = text; p < hit; p++) {
            if (*p == '\n') {
                line++;
                col = 1;
            } else {
                col++;
            }
        }
        char want[320];
        snprintf(want, sizeof want, "%s:%u:%u: crowds[0].goal", path, line, col);
        th_error err = {0};
        th_world *w = th_scene_load(path, &(th_scene_opts){.threads = 1}, NULL, &err);
        ck_assert_msg(w == NULL, "case %zu loaded", i);
        ck_assert_msg(strstr(err.message, want) == err.message, "case %zu: '%s', want '%s...'", i,
                      err.message, want);
        ck_assert_msg(strstr(err.message, cases[i].words) != NULL, "case %zu: '%s' lacks '%s'", i,
                      err.message, cases[i].words);
        unlink(path);
    }
    /* And the good form loads. */
    char text[1024], path[300];
    snprintf(text, sizeof text, "%s%s", k_head,
             "      forage: {nest: {at: [2, 2], radius: 1}, food: [{at: [7, 2], amount: 5}],\n"
             "               evaporation: 0.1, follow: 0.5, sense_angle: 30, sense_distance: 1,\n"
             "               turn_rate: 90, sensitivity: 0.2, wander_rate: 20, deposit: 3}\n");
    snprintf(path, sizeof path, "%s", th_test_file("good.yaml"));
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    th_error err = {0};
    th_world *w = th_scene_load(path, &(th_scene_opts){.threads = 1}, NULL, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    const th_crowd_def *cd = th_world_get_crowd(w, CROWD_ID(0));
    ck_assert_int_eq(cd->goal.kind, TH_GOAL_FORAGE);
    ck_assert_float_eq(cd->goal.forage->deposit, 3.0f);
    ck_assert_float_eq(cd->goal.forage->sense_angle, 30.0f);
    ck_assert_float_eq(cd->goal.forage->nest_radius, 1.0f);
    ck_assert_float_eq(cd->goal.forage->food[0].radius, 1.5f); /* the default */
    ck_assert_float_eq(cd->goal.forage->cell_size, 1.0f);      /* the map's */
    int32_t cols, rows;
    ck_assert_ptr_nonnull(th_world_pheromone(w, CROWD_ID(0), &cols, &rows, NULL));
    ck_assert_int_eq(cols, 10);
    ck_assert_int_eq(rows, 6);
    th_world_destroy(w);
    unlink(path);
}
END_TEST

/* A colony's nest on a map takes one of the world's 16 destination fields: a 17th colony is
 * refused at its goal, in words that say why, while the scene is read (before its map is built:
 * 16 colonies load). */
START_TEST(scene_seventeenth_colony_on_a_map_refused) {
    for (int colonies = 16; colonies <= 17; colonies++) {
        static char text[17 * 200 + 512];
        int n = snprintf(text, sizeof text, "%s", k_head);
        n -= (int)strlen(
            "  - name: ants\n    count: 5\n    spawn: {rect: [1, 1, 3, 3]}\n    goal:\n");
        for (int c = 0; c < colonies; c++) {
            n += snprintf(
                text + n, sizeof text - (size_t)n,
                "  - {name: c%d, count: 1, spawn: {rect: [1, 1, 3, 3]},\n"
                "     goal: {forage: {nest: {at: [2, 2]}, food: [{at: [7, 2], amount: 5}]}}}\n",
                c);
        }
        char path[300];
        snprintf(path, sizeof path, "%s", th_test_file("colonies.yaml"));
        FILE *f = fopen(path, "w");
        ck_assert_ptr_nonnull(f);
        fputs(text, f);
        fclose(f);
        th_error err = {0};
        th_world *w = th_scene_load(path, &(th_scene_opts){.threads = 1}, NULL, &err);
        if (colonies == 16) {
            ck_assert_msg(w != NULL, "%s", err.message);
            th_world_destroy(w);
        } else {
            ck_assert_ptr_null(w);
            ck_assert_msg(strstr(err.message, "crowds[16].goal: expected at most 16 crowds with a "
                                              "destinations goal or, on a map, a foraging goal"),
                          "%s", err.message);
            ck_assert_uint_eq(err.line, 12 + 2 * 16 + 2); /* the 17th colony's goal line */
        }
        unlink(path);
    }
}
END_TEST

/* Eighty colonies of 2^24 pheromone cells each (64 MiB apiece, 5 GiB in all) are refused
 * before anything is allocated, as every world too large for memory is. */
START_TEST(scene_too_many_large_colonies_refused) {
    static char text[80 * 200 + 256];
    int n = snprintf(text, sizeof text, "name: t\nworld: {size: [100000, 100000]}\ncrowds:\n");
    for (int c = 0; c < 80; c++) {
        n += snprintf(text + n, sizeof text - (size_t)n,
                      "  - {name: c%d, goal: {forage: {nest: {at: [10, 10]}, cell_size: 25,\n"
                      "     food: [{at: [90, 90], amount: 5}]}}}\n",
                      c);
    }
    char path[300];
    snprintf(path, sizeof path, "%s", th_test_file("big.yaml"));
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    th_error err = {0};
    const uint64_t before = th_alloc_count();
    th_world *w = th_scene_load(path, &(th_scene_opts){.threads = 1}, NULL, &err);
    ck_assert_ptr_null(w);
    ck_assert_msg(strstr(err.message, "MiB") != NULL, "%s", err.message);
    /* The parse tree and scene were allocated, no world: far fewer than 80 grids' worth. */
    ck_assert_uint_lt(th_alloc_count() - before, 1000);
    unlink(path);
}
END_TEST

START_TEST(api_refuses_bad_values) {
    th_world_def wd = th_default_world_def();
    wd.width = 30;
    wd.height = 20;
    th_error err;
    th_world *w = th_world_create(&wd, &err);
    const th_food_source food = {{20, 10}, 1.0f, 5};
    th_forage_def good = {.nest = {5, 5}, .food = &food, .food_count = 1};
    th_crowd_def cd = th_default_crowd_def();
    cd.goal.kind = TH_GOAL_FORAGE;
    cd.goal.forage = NULL;
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), -1);
    TH_TEST_ERR(err, TH_ERR_INVALID);
    const struct {
        th_forage_def f;
        const char *words; /* the message names the field */
        th_error_code code;
    } bad[] = {
        {{.nest = {35, 5}, .food = &food, .food_count = 1}, "nest", TH_ERR_BLOCKED},
        {{.nest = {5, 5}, .food = &food, .food_count = 0}, "food sources", TH_ERR_INVALID},
        {{.nest = {5, 5}, .food = &food, .food_count = 1, .evaporation = -1},
         "evaporation",
         TH_ERR_INVALID},
        {{.nest = {5, 5}, .food = &food, .food_count = 1, .follow = 2}, "follow", TH_ERR_INVALID},
        {{.nest = {5, 5}, .food = &food, .food_count = 1, .sense_angle = 120},
         "sense_angle",
         TH_ERR_INVALID},
        {{.nest = {5, 5}, .food = &food, .food_count = 1, .deposit = NAN},
         "deposit",
         TH_ERR_INVALID},
        {{.nest = {5, 5}, .food = &food, .food_count = 1, .cell_size = 0.01f},
         "cell_size",
         TH_ERR_INVALID},
        {{.nest = {5, 5}, .food = &food, .food_count = 1, .nest_radius = -2},
         "nest_radius",
         TH_ERR_INVALID},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cd.goal.forage = &bad[i].f;
        err.message[0] = 0;
        ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), -1);
        TH_TEST_ERR(err, bad[i].code);
        ck_assert_msg(strstr(err.message, bad[i].words) != NULL, "case %zu: '%s'", i, err.message);
    }
    ck_assert_uint_eq(th_world_crowd_count(w), 0);
    /* A crowd that does not forage has no grid and takes no pheromone. */
    cd.goal.kind = TH_GOAL_NONE;
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), 0);
    ck_assert_ptr_null(th_world_pheromone(w, CROWD_ID(0), NULL, NULL, NULL));
    ck_assert(!th_world_add_pheromone(w, CROWD_ID(0), th_v2(1, 1), 1.0f, &err));
    TH_TEST_ERR(err, TH_ERR_STATE);
    th_forage_info fi;
    ck_assert(!th_world_get_forage(w, CROWD_ID(0), &fi));
    cd.goal.kind = TH_GOAL_FORAGE;
    cd.goal.forage = &good;
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), 1);
    ck_assert(!th_world_add_pheromone(w, CROWD_ID(1), th_v2(31, 1), 1.0f, &err));
    TH_TEST_ERR(err, TH_ERR_BLOCKED);
    ck_assert(!th_world_add_pheromone(w, CROWD_ID(1), th_v2(1, 1), INFINITY, &err));
    TH_TEST_ERR(err, TH_ERR_INVALID);
    ck_assert(th_world_add_pheromone(w, CROWD_ID(1), th_v2(1, 1), -5.0f, &err)); /* floored at 0 */
    ck_assert_float_eq(th_world_pheromone(w, CROWD_ID(1), NULL, NULL, NULL)[1 * 30 + 1], 0.0f);
    /* Bounded magnitudes: an amount over TH_MAX_PHEROMONE is refused, and a cell stops at it
     * (before, 3e38 twice made the cell and the colony total +inf). */
    ck_assert(!th_world_add_pheromone(w, CROWD_ID(1), th_v2(1, 1), 3e38f, &err));
    TH_TEST_ERR(err, TH_ERR_INVALID);
    ck_assert(!th_world_add_pheromone(w, CROWD_ID(1), th_v2(1, 1), -3e38f, &err));
    TH_TEST_ERR(err, TH_ERR_INVALID);
    for (int k = 0; k < 3; k++)
        ck_assert(th_world_add_pheromone(w, CROWD_ID(1), th_v2(1, 1), TH_MAX_PHEROMONE, &err));
    ck_assert(th_world_add_pheromone(w, CROWD_ID(1), th_v2(2, 1), TH_MAX_PHEROMONE, &err));
    const float *ph = th_world_pheromone(w, CROWD_ID(1), NULL, NULL, NULL);
    ck_assert_float_eq(ph[1 * 30 + 1], TH_MAX_PHEROMONE);
    th_forage_info big;
    ck_assert(th_world_get_forage(w, CROWD_ID(1), &big));
    ck_assert(isfinite(big.pheromone) && big.pheromone == 2.0 * (double)TH_MAX_PHEROMONE);
    ck_assert(th_world_add_pheromone(w, CROWD_ID(1), th_v2(1, 1), -TH_MAX_PHEROMONE, &err));
    ck_assert(th_world_add_pheromone(w, CROWD_ID(1), th_v2(2, 1), -TH_MAX_PHEROMONE, &err));
    ck_assert_float_eq(ph[1 * 30 + 1], 0.0f);
    th_food_info f;
    ck_assert(th_world_get_food_source(w, CROWD_ID(1), 0, &f));
    ck_assert(!th_world_get_food_source(w, CROWD_ID(1), 1, &f));
    ck_assert_uint_eq(f.remaining, 5);
    th_world_destroy(w);
}
END_TEST

int main(void) {
    if (!th_test_dir_make("forage")) return EXIT_FAILURE;
    Suite *s = suite_create("forage");
    const struct {
        const char *name;
        const TTest *test;
    } tests[] = {
        {"single_deposit_decays_exponentially", single_deposit_decays_exponentially},
        {"food_is_conserved", food_is_conserved},
        {"scarce_food_goes_first_in_storage_order", scarce_food_goes_first_in_storage_order},
        {"spent_source_trail_fades_in_predicted_time", spent_source_trail_fades_in_predicted_time},
        {"following_trails_brings_more_food", following_trails_brings_more_food},
        {"ants_find_food_and_form_a_trail", ants_find_food_and_form_a_trail},
        {"searching_ant_follows_a_trail", searching_ant_follows_a_trail},
        {"same_result_at_one_two_three_threads", same_result_at_one_two_three_threads},
        {"steps_do_not_allocate", steps_do_not_allocate},
        {"ants_scene_forages", ants_scene_forages},
        {"scene_errors_point_at_the_value", scene_errors_point_at_the_value},
        {"scene_too_many_large_colonies_refused", scene_too_many_large_colonies_refused},
        {"scene_seventeenth_colony_on_a_map_refused", scene_seventeenth_colony_on_a_map_refused},
        {"api_refuses_bad_values", api_refuses_bad_values},
    };
    /* Under ThreadSanitizer: not the tests that step one-thread worlds or none, nor the walk
     * until a trail forms (its passes run on 2 and 3 threads in the last two stepping tests). */
    static const char *const tsan_skips[] = {
        "following_trails_brings_more_food",
        "ants_find_food_and_form_a_trail",
        "searching_ant_follows_a_trail",
        "ants_scene_forages",
        "scene_errors_point_at_the_value",
        "scene_too_many_large_colonies_refused",
        "scene_seventeenth_colony_on_a_map_refused",
        "api_refuses_bad_values",
    };
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
        bool skip = false;
        for (size_t k = 0; TH_TEST_TSAN && k < sizeof tsan_skips / sizeof tsan_skips[0]; k++)
            skip |= strcmp(tests[i].name, tsan_skips[k]) == 0;
        if (skip) continue;
        TCase *tc = tcase_create(tests[i].name);
        tcase_set_timeout(tc, 120);
        tcase_add_test(tc, tests[i].test);
        suite_add_tcase(s, tc);
    }
    int rc = th_test_run(s);
    return th_test_dir_remove() ? rc : EXIT_FAILURE;
}
