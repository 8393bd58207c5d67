/* The serial phases over split agents (sim/dist/dist_serial.c) without MPI: the replay of
 * departures (bunker admission with capacity, exits, removals, the id free list) against a
 * serial reference written here, for candidates spread over 1 to 4 simulated ranks in any
 * order; and, in one process, a world whose departures go through the replay path (and whose
 * squads read their members through the gather) stepping exactly like one that takes the
 * serial pass, and foraging colonies whose marks, drops and pickups go through the exchange of
 * several ranks stepping like the serial walk. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/behave/squad.h"
#include "sim/core/world.h"
#include "sim/dist/dist_serial.h"
#include "test_util.h"

/* ---- the replay against a serial reference ------------------------------------------------ */

typedef struct ref_agent {
    uint64_t key;
    uint8_t mark;
    uint8_t left;
} ref_agent;

static int ref_cmp(const void *p, const void *q) {
    const ref_agent *a = p, *b = q;
    return a->key < b->key ? -1 : a->key > b->key;
}

/* th_world_drop_marked's rule, as one process runs it over its storage (sorted by key): the
 * outcome per agent, the bunkers after, and the slots freed in the order they are pushed. */
static uint32_t reference(ref_agent *ag, uint32_t n, th_drop_bunker *b, uint32_t *pushed) {
    qsort(ag, n, sizeof *ag, ref_cmp);
    uint32_t np = 0;
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t s = ag[i].mark;
        bool leaves;
        if (s == TH_MARK_REMOVED || (s >= TH_MARK_EXIT && s < TH_MARK_EXIT + TH_MAX_EXITS)) {
            leaves = true;
        } else {
            th_drop_bunker *bk = &b[s - 1];
            leaves = !bk->full && !bk->destroyed;
            if (leaves) {
                bk->sheltered++;
                if (bk->capacity && bk->sheltered >= bk->capacity) bk->full = true;
            }
        }
        ag[i].left = leaves;
        if (leaves) pushed[np++] = (uint32_t)ag[i].key;
    }
    return np;
}

static uint32_t rnd(uint64_t *s, uint32_t n) { return (uint32_t)((splitmix64(s) >> 32) * n >> 32); }

/* Random candidates (bunkers of random capacity, some full or destroyed; exits; removals),
 * dealt to R ranks, each rank's list in a random order (a rank's storage order is its own
 * business); gathered in rank order, sorted and replayed. Every outcome, every bunker and the
 * free list's push order equal the reference's. */
START_TEST(replay_matches_serial_reference) {
    enum { CASES = 400, MAXN = 300, MAXB = 8 };
    uint64_t seed = 0x5eed0001u;
    static ref_agent ag[MAXN];
    static th_drop drops[MAXN], byrank[4][MAXN], all[MAXN];
    static uint32_t pushed_ref[MAXN];
    for (uint32_t c = 0; c < CASES; c++) {
        const uint32_t n = rnd(&seed, MAXN + 1), nb = 1 + rnd(&seed, MAXB);
        const uint32_t R = 1 + (uint32_t)_i;
        th_drop_bunker b_ref[MAXB], b_rep[MAXB];
        for (uint32_t b = 0; b < nb; b++) {
            b_ref[b] = (th_drop_bunker){
                .capacity = rnd(&seed, 4) == 0 ? 0 : 1 + rnd(&seed, 12),
                .destroyed = rnd(&seed, 8) == 0,
            };
            b_ref[b].sheltered = b_ref[b].capacity ? rnd(&seed, b_ref[b].capacity + 1) : 0;
            b_ref[b].full = b_ref[b].capacity && b_ref[b].sheltered >= b_ref[b].capacity;
            b_rep[b] = b_ref[b];
        }
        /* Distinct slots; cells with many ties (several agents per cell), some agents added
         * since the last grid phase. */
        for (uint32_t i = 0; i < n; i++) {
            const uint32_t slot = i * 7u + rnd(&seed, 7);
            const uint32_t cell =
                rnd(&seed, 6) == 0 ? th_cell_added(rnd(&seed, 1000)) : rnd(&seed, 1u + n / 4);
            const uint32_t kind = rnd(&seed, 10);
            const uint8_t mark = kind < 6   ? (uint8_t)(1 + rnd(&seed, nb))
                                 : kind < 8 ? (uint8_t)(TH_MARK_EXIT + rnd(&seed, 3))
                                            : TH_MARK_REMOVED;
            ag[i] = (ref_agent){th_drop_key(cell, slot), mark, 0};
        }
        /* Added agents carry unique order numbers: make their keys unique like the engine's. */
        for (uint32_t i = 0; i < n; i++) {
            if ((ag[i].key >> 32) >= TH_CELL_ADDED)
                ag[i].key = th_drop_key(th_cell_added(i), (uint32_t)ag[i].key);
        }
        uint32_t per[4] = {0};
        for (uint32_t i = 0; i < n; i++) {
            const uint32_t r = rnd(&seed, R);
            byrank[r][per[r]] =
                (th_drop){.key = ag[i].key, .rank = (uint16_t)r, .mark = ag[i].mark};
            per[r]++;
        }
        uint32_t total = 0;
        for (uint32_t r = 0; r < R; r++) {
            for (uint32_t i = per[r]; i > 1; i--) { /* shuffle the rank's own list */
                const uint32_t j = rnd(&seed, i);
                const th_drop t = byrank[r][i - 1];
                byrank[r][i - 1] = byrank[r][j];
                byrank[r][j] = t;
            }
            for (uint32_t i = 0; i < per[r]; i++) byrank[r][i].local = i;
            memcpy(all + total, byrank[r], per[r] * sizeof *all);
            total += per[r];
        }
        ck_assert_uint_eq(total, n);
        memcpy(drops, all, n * sizeof *drops);
        th_drop_sort(drops, n);
        for (uint32_t i = 1; i < n; i++) CHECK(drops[i - 1].key < drops[i].key);
        th_drop_replay(drops, n, b_rep, nb, NULL, 0, 1, 0.05);
        const uint32_t np = reference(ag, n, b_ref, pushed_ref);
        uint32_t k = 0;
        for (uint32_t i = 0; i < n; i++) {
            CHECK_MSG(drops[i].key == ag[i].key, "case %u: order differs at %u", c, i);
            CHECK_MSG(drops[i].left == ag[i].left, "case %u: outcome of agent %u differs", c, i);
            /* Each rank finds its own agents' outcomes by their local index. */
            CHECK(drops[i].local < per[drops[i].rank] &&
                  byrank[drops[i].rank][drops[i].local].key == drops[i].key);
            if (drops[i].left) {
                CHECK_MSG(k < np && (uint32_t)drops[i].key == pushed_ref[k],
                          "case %u: free list push %u differs", c, k);
                k++;
            }
        }
        ck_assert_uint_eq(k, np);
        for (uint32_t b = 0; b < nb; b++) {
            CHECK_MSG(b_rep[b].sheltered == b_ref[b].sheltered && b_rep[b].full == b_ref[b].full,
                      "case %u: bunker %u: %u/%d against %u/%d", c, b, b_rep[b].sheltered,
                      b_rep[b].full, b_ref[b].sheltered, b_ref[b].full);
        }
    }
}
END_TEST

/* A hand-computed case: capacity 2, three candidates in one cell: the two lowest slots get in
 * whatever rank or order they arrive from; the bunker turns full; the third stays. */
START_TEST(replay_by_hand) {
    th_drop d[4] = {
        {.key = th_drop_key(5, 9), .rank = 0, .mark = 1},
        {.key = th_drop_key(5, 3), .rank = 1, .mark = 1},
        {.key = th_drop_key(th_cell_added(0), 1), .rank = 1, .mark = TH_MARK_REMOVED},
        {.key = th_drop_key(5, 4), .rank = 2, .mark = 1},
    };
    th_drop_bunker b = {.capacity = 2};
    th_drop_sort(d, 4);
    ck_assert_uint_eq(th_drop_replay(d, 4, &b, 1, NULL, 0, 1, 0.05), 1);
    ck_assert_uint_eq((uint32_t)d[0].key, 3);
    ck_assert_uint_eq((uint32_t)d[1].key, 4);
    ck_assert_uint_eq((uint32_t)d[2].key, 9);
    ck_assert_uint_eq((uint32_t)d[3].key, 1); /* added since the grid phase: last */
    ck_assert(d[0].left && d[1].left && !d[2].left && d[3].left);
    ck_assert(b.full);
    ck_assert_uint_eq(b.sheltered, 2);
}
END_TEST

/* Flow limits in the replay: a bunker and an exit of 1 person a second, at 0.25 s steps. The
 * first candidate of each passes at once (an idle door), the next waits until its credit is
 * whole again: 4 steps later, not 3. */
START_TEST(replay_holds_to_the_door_limits) {
    th_drop_bunker b = {.limit = th_door_limit_make(1.0f)};
    th_door_limit exit = th_door_limit_make(1.0f);
    for (uint64_t step = 1; step <= 9; step++) {
        th_drop d[4] = {
            {.key = th_drop_key(2, 1), .mark = 1},
            {.key = th_drop_key(2, 2), .mark = 1},
            {.key = th_drop_key(3, 5), .mark = TH_MARK_EXIT},
            {.key = th_drop_key(3, 6), .mark = TH_MARK_EXIT},
        };
        th_drop_sort(d, 4);
        th_drop_replay(d, 4, &b, 1, &exit, 1, step, 0.25);
        const bool due = step == 1 || step == 5 || step == 9;
        ck_assert_msg(d[0].left == due && !d[1].left, "bunker at step %u", (unsigned)step);
        ck_assert_msg(d[2].left == due && !d[3].left, "exit at step %u", (unsigned)step);
    }
    ck_assert_uint_eq(b.sheltered, 3);
}
END_TEST

/* A queue that is always there passes at the limit's rate on average whatever the step, also
 * when the rate is not a whole number of steps (0.75 s a person at 0.05 s steps: a fixed step
 * count would give 0.8 s or 0.75 s only by luck); a door idle for a long time lets one person
 * through at once, not a burst. */
START_TEST(door_limit_keeps_its_rate) {
    const double dts[3] = {0.05, 0.1, 0.0333};
    for (int k = 0; k < 3; k++) {
        th_door_limit d = th_door_limit_make(1.33f);
        uint32_t passed = 0;
        const uint64_t steps = (uint64_t)llround(600.0 / dts[k]);
        for (uint64_t s = 1; s <= steps; s++) passed += th_door_pass(&d, s, dts[k]);
        const double rate = (passed - 1) / 600.0; /* the first passes at once */
        ck_assert_msg(fabs(rate - 1.33) < 0.005, "dt %g: %.4f persons/s", dts[k], rate);
    }
    th_door_limit d = th_door_limit_make(2.0f);
    ck_assert(th_door_pass(&d, 1, 0.05));
    ck_assert(th_door_pass(&d, 100000, 0.05));
    ck_assert(!th_door_pass(&d, 100000, 0.05));
    th_door_limit none = th_door_limit_make(0.0f);
    for (int i = 0; i < 100; i++) ck_assert(th_door_pass(&none, 1, 0.05));
}
END_TEST

/* The heap sort against qsort on random keys with many equal cells. */
START_TEST(sort_matches_qsort) {
    enum { N = 2000 };
    static th_drop d[N];
    static ref_agent r[N];
    uint64_t seed = 77;
    for (uint32_t n = 0; n <= N; n += 97) {
        for (uint32_t i = 0; i < n; i++) {
            d[i] = (th_drop){.key = th_drop_key(rnd(&seed, 50), i), .local = i};
            r[i] = (ref_agent){.key = d[i].key};
        }
        th_drop_sort(d, n);
        qsort(r, n, sizeof *r, ref_cmp);
        for (uint32_t i = 0; i < n; i++) CHECK(d[i].key == r[i].key);
    }
}
END_TEST

/* ---- one process: the replay path steps like the serial pass ------------------------------- */

/* Two copies of a scene, one dropping through the replay (gather of one rank, sort by cell and
 * slot, serial rule, free list in that order): the same hash at every check point, the same
 * counts, and the same ids for agents added after departures (the free list). Storage order
 * within a cell is by id since neighbour order is (cell, id), which the replay's order relies
 * on. */
static void same_as_serial(const char *name, uint32_t agents, uint32_t steps, uint32_t threads) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", THRONG_SCENES_DIR, name);
    th_scene_opts o = {.threads = threads};
    th_world *a = th_test_load(path, o, agents, NULL);
    th_world *b = th_test_load(path, o, agents, NULL);
    th_dist_serial_force(b, true);
    for (uint32_t s = 1; s <= steps; s++) {
        th_world_step(a);
        th_world_step(b);
        if (s % 20 == 0 || s == steps) {
            ck_assert_msg(th_world_hash(a) == th_world_hash(b), "%s: hash differs at step %u", name,
                          s);
        }
        if (s % 60 == 0) {
            /* Remove a few agents by id, step, then add where others stand: the new ids come
             * from the free list the departures filled. */
            const th_agent_view v = th_world_agents(a);
            th_vec2 at[3];
            uint16_t crowd[3];
            const uint32_t adds = v.count < 3 ? v.count : 3;
            for (uint32_t k = 0; k < adds; k++) {
                at[k] = th_v2(v.px[k], v.py[k]);
                crowd[k] = v.crowd[k];
            }
            for (uint32_t k = 0; 3 * k + 1 < v.count && k < 5; k++) {
                th_error err;
                const th_agent_id id = v.id[v.count - 1 - 3 * k];
                ck_assert(th_world_remove_agent(a, id, &err));
                ck_assert(th_world_remove_agent(b, id, &err));
            }
            th_world_step(a);
            th_world_step(b);
            s++;
            for (uint32_t k = 0; k < adds; k++) {
                th_error err;
                th_agent_id ia =
                    th_world_add_agent(a, CROWD_ID(crowd[k]), at[k], th_v2(0, 0), &err);
                th_agent_id ib =
                    th_world_add_agent(b, CROWD_ID(crowd[k]), at[k], th_v2(0, 0), &err);
                ck_assert(th_agent_id_eq(ia, ib));
            }
        }
    }
    th_world_stats sa = th_world_get_stats(a), sb = th_world_get_stats(b);
    ck_assert_uint_eq(sa.agents, sb.agents);
    ck_assert_uint_eq(sa.sheltered, sb.sheltered);
    ck_assert_uint_eq(sa.removed, sb.removed);
    ck_assert_uint_eq(sa.exited, sb.exited);
    ck_assert_uint_eq(sa.buried, sb.buried);
    ck_assert_uint_eq(th_world_id_slots(a), th_world_id_slots(b));
    th_world_destroy(a);
    th_world_destroy(b);
}

static const char *const k_scenes[] = {"air_raid.yaml", "maze_evac.yaml", "exits.yaml",
                                       "corridor_flow.yaml", "rubble.yaml"};

START_TEST(replay_path_steps_like_serial) {
    if (TH_TEST_TSAN && _i % 3 == 0) return; /* one thread: no race to find */
    same_as_serial(k_scenes[_i], 1500, (uint32_t)th_test_steps(240), 1 + (uint32_t)_i % 3);
}
END_TEST

/* Squads reading their members through the gather (sim/behave/squad.c, members_at) step like
 * squads reading storage: the same hash and the same squads (centre, members, error, arrival,
 * path) at every check point, through members lost to removals and agents joining. */
static void squads_same_as_serial(const char *name, uint32_t steps, uint32_t threads) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", THRONG_SCENES_DIR, name);
    th_scene_opts o = {.threads = threads};
    th_world *w[2] = {th_test_load(path, o, 100000, NULL), th_test_load(path, o, 100000, NULL)};
    th_dist_serial_force(w[1], true);
    ck_assert_uint_gt(w[0]->squad_count, 0);
    for (uint32_t s = 1; s <= steps; s++) {
        for (int i = 0; i < 2; i++) th_world_step(w[i]);
        if (s == steps / 3) {
            /* A member of each squad leaves; a new agent joins the first squad. */
            for (uint32_t q = 0; q < w[0]->squad_count; q++) {
                th_agent_id id;
                th_error err;
                ck_assert(th_world_get_squad_member(w[0], SQUAD_ID(q), 1, &id, NULL));
                for (int i = 0; i < 2; i++) ck_assert(th_world_remove_agent(w[i], id, &err));
            }
            th_squad_info info;
            ck_assert(th_world_get_squad(w[0], SQUAD_ID(0), &info));
            for (int i = 0; i < 2; i++) {
                th_error err;
                const th_agent_id id = th_world_add_agent(w[i], w[i]->squad[0]->def.crowd,
                                                          info.centre, th_v2(0, 0), &err);
                ck_assert_msg(th_agent_id_valid(id), "%s", err.message);
                ck_assert_msg(th_world_squad_join(w[i], SQUAD_ID(0), id, &err), "%s", err.message);
            }
        }
        if (s % 25 && s != steps) continue;
        ck_assert_msg(th_world_hash(w[0]) == th_world_hash(w[1]), "%s: hash differs at step %u",
                      name, s);
        for (uint32_t q = 0; q < w[0]->squad_count; q++) {
            th_squad_info x, y;
            ck_assert(th_world_get_squad(w[0], SQUAD_ID(q), &x));
            ck_assert(th_world_get_squad(w[1], SQUAD_ID(q), &y));
            ck_assert_msg(memcmp(&x.centre, &y.centre, sizeof x.centre) == 0 &&
                              x.members == y.members && x.error == y.error &&
                              x.arrived == y.arrived && x.waypoints == y.waypoints &&
                              x.stuck == y.stuck,
                          "%s: squad %u differs at step %u", name, q, s);
        }
    }
    th_world_destroy(w[0]);
    th_world_destroy(w[1]);
}

static const char *const k_squad_scenes[] = {"squads.yaml", "flood.yaml"};

START_TEST(squads_gather_steps_like_serial) {
    if (TH_TEST_TSAN && _i % 3 == 0) return; /* one thread: no race to find */
    squads_same_as_serial(k_squad_scenes[_i / 3], (uint32_t)th_test_steps(400),
                          1 + (uint32_t)_i % 3);
}
END_TEST

/* ---- one process: foraging through the exchange path ---------------------------------------- */

/* Ants inside disc (c, r) of crowd 0 now. */
static uint32_t ants_in(const th_world *w, th_vec2 c, float r) {
    const th_agent_view v = th_world_agents(w);
    uint32_t n = 0;
    for (uint32_t k = 0; k < v.count; k++) {
        const float dx = v.px[k] - c.x, dy = v.py[k] - c.y;
        n += dx * dx + dy * dy <= r * r;
    }
    return n;
}

/* Two copies of a foraging scene, one whose bookkeeping goes through the path of several ranks
 * (marks, drops and pickup candidates listed, gathered from one rank, candidates sorted by
 * global storage order and the pickup rule replayed): the same hash at every check point (the
 * pheromone grids and food left are hashed with the world) and the same colony totals. In the
 * narrow scene more ants stand in the first source than it holds from the first step, so the
 * order of the replay decides who gets food. */
static void forage_same_as_serial(const char *path, uint32_t steps, uint32_t threads,
                                  bool contested) {
    th_scene_opts o = {.threads = threads};
    th_world *a = th_test_load(path, o, 100000, NULL);
    th_world *b = th_test_load(path, o, 100000, NULL);
    th_dist_serial_force(b, true);
    th_food_info f0;
    ck_assert(th_world_get_food_source(a, CROWD_ID(0), 0, &f0));
    for (uint32_t s = 1; s <= steps; s++) {
        th_world_step(a);
        th_world_step(b);
        if (s == 1 && contested) {
            /* Every ant in the source after the first step stood in it for the pickups (an ant
             * moves 5 cm a step): more of them than units, and no unit left. */
            th_food_info f;
            ck_assert(th_world_get_food_source(a, CROWD_ID(0), 0, &f));
            ck_assert_uint_gt(ants_in(a, f0.at, f0.radius - 0.1f), f0.amount);
            ck_assert_uint_eq(f.remaining, 0);
        }
        if (s % 20 == 0 || s == steps)
            ck_assert_msg(th_world_hash(a) == th_world_hash(b), "%s: hash differs at step %u", path,
                          s);
    }
    th_forage_info ia, ib;
    ck_assert(th_world_get_forage(a, CROWD_ID(0), &ia));
    ck_assert(th_world_get_forage(b, CROWD_ID(0), &ib));
    ck_assert_uint_eq(ia.taken, ib.taken);
    ck_assert_uint_eq(ia.delivered, ib.delivered);
    ck_assert_uint_eq(ia.carried, ib.carried);
    ck_assert(ia.pheromone == ib.pheromone);
    ck_assert_uint_gt(ia.delivered, 0); /* ants came home: drops and marks were exercised */
    for (uint32_t i = 0; i < ia.sources; i++) {
        th_food_info fa, fb;
        ck_assert(th_world_get_food_source(a, CROWD_ID(0), i, &fa));
        ck_assert(th_world_get_food_source(b, CROWD_ID(0), i, &fb));
        ck_assert_uint_eq(fa.remaining, fb.remaining);
    }
    th_world_destroy(a);
    th_world_destroy(b);
}

START_TEST(forage_exchange_path_steps_like_serial) {
    if (TH_TEST_TSAN && _i == 0) return; /* one thread: no race to find */
    forage_same_as_serial(THRONG_TEST_DATA "/mpi/forage_border.yaml", 600, 1 + (uint32_t)_i, true);
}
END_TEST

/* The library colony until ants have come home from its southern source. */
START_TEST(forage_exchange_path_ants_scene) {
    forage_same_as_serial(THRONG_SCENES_DIR "/ants.yaml", 1800, 1, false);
}
END_TEST

int main(void) {
    Suite *s = suite_create("dist_serial");
    TCase *t = tcase_create("replay");
    tcase_set_timeout(t, 60);
    tcase_add_loop_test(t, replay_matches_serial_reference, 0, 4);
    tcase_add_test(t, replay_by_hand);
    tcase_add_test(t, replay_holds_to_the_door_limits);
    tcase_add_test(t, door_limit_keeps_its_rate);
    tcase_add_test(t, sort_matches_qsort);
    tcase_add_loop_test(t, replay_path_steps_like_serial, 0,
                        (int)(sizeof k_scenes / sizeof k_scenes[0]));
    tcase_add_loop_test(t, squads_gather_steps_like_serial, 0,
                        3 * (int)(sizeof k_squad_scenes / sizeof k_squad_scenes[0]));
    suite_add_tcase(s, t);
    TCase *f = tcase_create("forage");
    tcase_set_timeout(f, 60);
    tcase_add_loop_test(f, forage_exchange_path_steps_like_serial, 0, 3);
    if (!TH_TEST_TSAN) tcase_add_test(f, forage_exchange_path_ants_scene); /* one thread */
    suite_add_tcase(s, f);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
