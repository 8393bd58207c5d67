/* The embedding API over several MPI ranks (builds with THRONG_MPI=ON; run under mpirun: tests/
 * CMakeLists.txt): what a host program does that the command does not.
 *
 * - A host's own task system (th_scene_opts.enqueue_task) in place of the built-in pool, on
 *   every rank: the parallel phases run on the host's threads, the exchanges stay on the
 *   thread that steps (MPI_THREAD_FUNNELED). The state hash must be that of one process on the
 *   built-in pool with one thread.
 * - Collective calls between steps, made by every rank with the same arguments: adding agents
 *   (stored by one rank only), removing agents (stored on another), joining them to a squad.
 *   The hash after each step must follow one process making the same calls.
 * - Agents' own goals given, refused and given for later steps while their agents cross the
 *   strips: the hash and the goal changes must follow one process. The host's steering calls
 *   (a preferred velocity, a teleport, the neighbours) are refused on every rank.
 * - The planner (throng/plan.h) on the ranks' world: the same paths, queue answers,
 *   improvements and tours on every rank as in one process, before and after a wall.
 * - The state hash gathered in rounds of a few id slots (as a world of millions is: rank 0
 *   never holds more than one round) is the hash of one process, on a world whose free list
 *   reuses slots.
 * - th_world_dist_check refuses worlds the ranks built differently (a spawner's rate, one
 *   agent's position, an event's step, a crowd's speed on the last rank), on every rank, naming
 *   the last rank and the part, and accepts worlds built alike.
 *
 * The references are computed on every rank, by a world of its own without ranks. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/dist/dist.h"
#include "throng/dist.h"
#include "throng/plan.h"

#include "mpi_check.h"

#ifndef THRONG_SCENES_DIR
#error "THRONG_SCENES_DIR must name the scene library"
#endif
#ifndef THRONG_TEST_DATA
#error "THRONG_TEST_DATA must name the test data folder"
#endif

/* ---- a host's task system: WORKERS threads per task, one contiguous share each ------------- */

enum { WORKERS = 3 };

typedef struct job {
    th_task_fn *task;
    void *ctx;
    uint32_t begin[WORKERS], end[WORKERS], worker[WORKERS];
    pthread_t thread[WORKERS];
    bool started[WORKERS];
} job;

typedef struct share {
    job *j;
    uint32_t k;
} share;

static void *share_main(void *arg) {
    share *s = arg;
    s->j->task(s->j->begin[s->k], s->j->end[s->k], s->k, s->j->ctx);
    free(s);
    return NULL;
}

/* Shares of whole `min_range` ranges; the last worker takes the rest. Threads that cannot start
 * leave their share to the stepping thread, in finish. */
static void *host_enqueue(th_task_fn *task, uint32_t items, uint32_t min_range, void *ctx,
                          void *user) {
    (void)user;
    job *j = calloc(1, sizeof *j);
    CHECK(j, "out of memory");
    j->task = task;
    j->ctx = ctx;
    const uint32_t ranges = (items + min_range - 1) / min_range;
    for (uint32_t k = 0; k < WORKERS; k++) {
        uint32_t b = (uint32_t)((uint64_t)ranges * k / WORKERS) * min_range;
        uint32_t e = (uint32_t)((uint64_t)ranges * (k + 1) / WORKERS) * min_range;
        j->begin[k] = b < items ? b : items;
        j->end[k] = e < items ? e : items;
        share *s = malloc(sizeof *s);
        CHECK(s, "out of memory");
        *s = (share){j, k};
        j->started[k] = pthread_create(&j->thread[k], NULL, share_main, s) == 0;
        if (!j->started[k]) free(s);
    }
    return j;
}

static void host_finish(void *handle, void *user) {
    (void)user;
    job *j = handle;
    for (uint32_t k = 0; k < WORKERS; k++) {
        if (j->started[k]) pthread_join(j->thread[k], NULL);
        else j->task(j->begin[k], j->end[k], k, j->ctx);
    }
    free(j);
}

/* ---- worlds ------------------------------------------------------------------------------- */

static th_world *load(const char *path, bool dist, bool host) {
    struct th_dist_def d = {.comm = MPI_COMM_WORLD, .rebalance_every = 16};
    th_scene_opts o = {.threads = host ? WORKERS : 1, .dist = dist ? &d : NULL};
    if (host) {
        o.enqueue_task = host_enqueue;
        o.finish_task = host_finish;
    }
    th_error err = {0};
    th_world *w = th_scene_load(path, &o, NULL, &err);
    CHECK(w, "%s: %s", path, err.message);
    if (dist) CHECK(th_world_dist_check(w, &err), "%s: %s", path, err.message);
    return w;
}

/* A scene stepped over the ranks on the host's threads against one process on the pool. */
static void host_tasks(const char *path, int steps) {
    th_world *one = load(path, false, false), *all = load(path, true, true);
    for (int s = 1; s <= steps; s++) {
        th_world_step(one);
        th_world_step(all);
        if (s % 50 && s != steps) continue;
        const uint64_t a = th_world_hash(one), b = th_world_hash(all);
        CHECK(a == b, "%s, host tasks: step %d: hash %016llx over %d ranks, one process %016llx",
              path, s, (unsigned long long)b, ranks, (unsigned long long)a);
    }
    th_world_destroy(one);
    th_world_destroy(all);
}

/* Squad member `i` of squad 0, or a null id. */
static th_agent_id member(const th_world *w, uint32_t i) {
    th_agent_id id = {0};
    th_world_get_squad_member(w, (th_squad_id){1}, i, &id, NULL);
    return id;
}

/* Between steps, on both worlds alike: at step 40 a member of squad 0 leaves and two new
 * agents join it, one at the squad's centre and one at the far end of the map (stored by
 * another rank than the centre's); at step 120 the first joiner is
 * removed. An agent already in the squad is refused on every rank. */
static void squad_calls(const char *path, int steps) {
    th_world *w[2] = {load(path, false, false), load(path, true, false)};
    th_agent_id joined[2] = {{0}, {0}};
    for (int s = 1; s <= steps; s++) {
        for (int i = 0; i < 2; i++) {
            th_error err = {0};
            if (s == 40) {
                const th_agent_id gone = member(w[i], 1);
                CHECK(th_agent_id_valid(gone), "squad 0 has no member 1");
                CHECK(th_world_remove_agent(w[i], gone, &err), "%s", err.message);
                th_squad_info q;
                CHECK(th_world_get_squad(w[i], (th_squad_id){1}, &q), "no squad 0");
                const th_vec2 far = {q.centre.x, q.centre.y < 30.0f ? 57.0f : 3.0f};
                const th_vec2 at[2] = {q.centre, far};
                for (int k = 0; k < 2; k++) {
                    const th_agent_id id =
                        th_world_add_agent(w[i], (th_crowd_id){1}, at[k], th_v2(0, 0), &err);
                    CHECK(th_agent_id_valid(id), "%s", err.message);
                    CHECK(th_world_squad_join(w[i], (th_squad_id){1}, id, &err), "%s", err.message);
                    if (k == 0) joined[i] = id;
                }
                CHECK(!th_world_squad_join(w[i], (th_squad_id){1}, joined[i], &err),
                      "a member joined its squad twice");
            }
            if (s == 120) CHECK(th_world_remove_agent(w[i], joined[i], &err), "%s", err.message);
            th_world_step(w[i]);
        }
        const uint64_t a = th_world_hash(w[0]), b = th_world_hash(w[1]);
        CHECK(a == b, "%s, squad calls: step %d: hash %016llx over %d ranks, one process %016llx",
              path, s, (unsigned long long)b, ranks, (unsigned long long)a);
        th_squad_info x, y;
        CHECK(th_world_get_squad(w[0], (th_squad_id){1}, &x) &&
                  th_world_get_squad(w[1], (th_squad_id){1}, &y),
              "no squad 0");
        CHECK(x.members == y.members, "step %d: squad 0 has %u members over ranks, %u in one", s,
              y.members, x.members);
    }
    th_world_destroy(w[0]);
    th_world_destroy(w[1]);
}

/* Agents' own goals changed by collective calls while their agents cross the ranks' strips:
 * points given to a selection, a point walled off (refused on every rank, as by one process,
 * alone and as the first of a selection), goals given for a later step (one to an agent that
 * leaves before then, one to a point walled over since), some agents back to their crowd's
 * goal. The hash follows one process's every step, and so do the goal changes made and passed
 * over (summed over the ranks). */
static void own_goal_calls(const char *path, int steps) {
    th_world *w[2] = {load(path, false, false), load(path, true, false)};
    th_agent_id couriers[40];
    for (uint32_t i = 0; i < 40; i++) couriers[i] = (th_agent_id){i + 1u, 1u};
    for (int s = 1; s <= steps; s++) {
        for (int i = 0; i < 2; i++) {
            th_error err = {0};
            if (s == 20) /* a ring of walls round (5.5, 50.5) */
                for (int k = 0; k < 4; k++) {
                    const int32_t x0 = k == 1 ? 7 : 3, x1 = k == 3 ? 3 : 7;
                    const int32_t y0 = k == 2 ? 52 : 48, y1 = k == 0 ? 48 : 52;
                    CHECK(th_world_block_cells(w[i], x0, y0, x1, y1, &err), "%s", err.message);
                }
            if (s == 30) {
                const th_agent_goal east = {.kind = TH_AGENT_GOAL_POINT, .point = {36.5f, 45.5f}};
                CHECK(th_world_set_agents_goal(w[i], couriers, 10, &east, NULL, &err), "%s",
                      err.message);
                const th_agent_goal shut = {.kind = TH_AGENT_GOAL_POINT, .point = {5.5f, 50.5f}};
                const bool ok = th_world_set_agent_goal(w[i], couriers[10], &shut, &err);
                CHECK(!ok && err.code == TH_ERR_UNREACHABLE, "a walled-off point: %s (%s)",
                      ok ? "taken" : "refused", err.message);
                /* A selection whose first agent has no way: refused there, the rest unchanged. */
                const th_agent_id sel[3] = {couriers[10], couriers[14], couriers[15]};
                uint32_t done = 99;
                CHECK(!th_world_set_agents_goal(w[i], sel, 3, &shut, &done, &err) && done == 0 &&
                          err.code == TH_ERR_UNREACHABLE,
                      "a selection with a walled-off point: %u done (%s)", done, err.message);
                const th_agent_goal west = {.kind = TH_AGENT_GOAL_POINT, .point = {3.5f, 55.5f}};
                const th_agent_goal back = {.kind = TH_AGENT_GOAL_CROWD};
                CHECK(th_world_schedule_agents_goal(w[i], 200, couriers + 20, 10, &west, &err),
                      "%s", err.message);
                CHECK(th_world_schedule_agents_goal(w[i], 200, couriers + 12, 1, &shut, &err), "%s",
                      err.message);
                CHECK(th_world_schedule_agents_goal(w[i], 400, couriers + 30, 10, &back, &err),
                      "%s", err.message);
                /* Passed over when due: one agent will have left, one point walled over. */
                const th_agent_goal north = {.kind = TH_AGENT_GOAL_POINT, .point = {20.5f, 55.5f}};
                CHECK(th_world_schedule_agents_goal(w[i], 300, couriers + 5, 2, &north, &err), "%s",
                      err.message);
                /* The host's steering calls: refused on every rank, changing nothing (the
                 * hash below still follows the one process, which is not given them). */
                if (i == 1) {
                    th_agent_id near[4];
                    uint32_t n;
                    CHECK(!th_world_set_agent_preferred_velocity(w[i], couriers[2], th_v2(1, 0),
                                                                 &err) &&
                              err.code == TH_ERR_STATE,
                          "a preferred velocity taken over the ranks");
                    CHECK(!th_world_clear_agent_preferred_velocity(w[i], couriers[2], &err) &&
                              err.code == TH_ERR_STATE,
                          "a preferred velocity cleared over the ranks");
                    CHECK(!th_world_set_agent_position(w[i], couriers[2], th_v2(36.5f, 45.5f),
                                                       &err) &&
                              err.code == TH_ERR_STATE,
                          "an agent moved over the ranks");
                    CHECK(!th_world_set_agent_radius(w[i], couriers[2], 0.1f, &err) &&
                              err.code == TH_ERR_STATE &&
                              strstr(err.message, "several MPI ranks") != NULL,
                          "a body radius set over the ranks");
                    CHECK(!th_world_agent_neighbors(w[i], couriers[2], 5.0f, near, 4, &n, &err) &&
                              err.code == TH_ERR_STATE,
                          "neighbours listed over the ranks");
                }
                const th_agent_goal follow = {.kind = TH_AGENT_GOAL_FOLLOW, .follow = couriers[1]};
                CHECK(i == 0 || (!th_world_set_agent_goal(w[i], couriers[0], &follow, &err) &&
                                 err.code == TH_ERR_STATE),
                      "following another agent taken over the ranks");
            }
            if (s == 100) CHECK(th_world_remove_agent(w[i], couriers[5], &err), "%s", err.message);
            if (s == 250)
                CHECK(th_world_block_cells(w[i], 19, 54, 21, 56, &err), "%s", err.message);
            if (s == 260) /* gone from the world: refused on every rank, as in one process */
                CHECK(!th_world_remove_agent(w[i], couriers[5], &err) && err.code == TH_ERR_HANDLE,
                      "a removed agent removed again");
            th_world_step(w[i]);
        }
        const uint64_t a = th_world_hash(w[0]), b = th_world_hash(w[1]);
        CHECK(a == b, "%s, own goals: step %d: hash %016llx over %d ranks, one process %016llx",
              path, s, (unsigned long long)b, ranks, (unsigned long long)a);
    }
    uint64_t pend[2], made[2], passed[2];
    for (int i = 0; i < 2; i++) th_world_goal_changes(w[i], &pend[i], &made[i], &passed[i]);
    uint64_t sums[2] = {made[1], passed[1]};
    MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    CHECK(pend[0] == pend[1] && sums[0] == made[0] && sums[1] == passed[0],
          "goal changes over the ranks %llu made, %llu passed over; one process %llu, %llu",
          (unsigned long long)sums[0], (unsigned long long)sums[1], (unsigned long long)made[0],
          (unsigned long long)passed[0]);
    CHECK(made[0] == 20 && passed[0] == 3, "one process: %llu made, %llu passed over",
          (unsigned long long)made[0], (unsigned long long)passed[0]);
    th_world_destroy(w[0]);
    th_world_destroy(w[1]);
}

/* The planner (throng/plan.h) on a world split over the ranks, each rank its own: paths found
 * at once, served by the budgeted queue and improved (anytime), and tours, after terrain
 * events, are the same on every rank and the same as one process's, to the last bit. */
static uint64_t mix(uint64_t h, const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static uint64_t plan_digest(th_world *w) {
    th_error err = {0};
    th_planner *p = th_planner_create(w, NULL, &err);
    CHECK(p, "%s", err.message);
    uint64_t h = 1469598103934665603ull;
    th_vec2 pts[256];
    uint32_t n = 0;
    float cost = 0.0f;
    const th_vec2 ends[][2] = {{{2.5f, 2.5f}, {37.5f, 55.5f}},
                               {{35.5f, 5.5f}, {3.5f, 50.5f}},
                               {{20.5f, 10.5f}, {20.5f, 45.5f}},
                               {{5.5f, 40.5f}, {33.5f, 12.5f}}};
    th_plan_id id[4];
    int found = 0, done = 0;
    for (int i = 0; i < 4; i++) {
        if (th_planner_find_path(p, w, ends[i][0], ends[i][1], pts, 256, &n, &cost, &err)) {
            found++;
            h = mix(h, pts, n * sizeof *pts);
            h = mix(h, &cost, sizeof cost);
        }
        id[i] = th_planner_submit(p, w, ends[i][1], ends[i][0], i % 2, &err);
        CHECK(id[i].index1, "%s", err.message);
        if (i == 0) CHECK(th_planner_set_anytime(p, id[i], true, &err), "%s", err.message);
    }
    for (int u = 0; u < 200; u++) {
        const uint32_t spent = th_planner_update(p, w, 7, &err);
        h = mix(h, &spent, sizeof spent);
    }
    for (int i = 0; i < 4; i++) {
        const th_plan_status st = th_planner_result(p, id[i], pts, 256, &n, &cost, &err);
        h = mix(h, &st, sizeof st);
        if (st == TH_PLAN_DONE) h = mix(h, pts, n * sizeof *pts);
        done += st == TH_PLAN_DONE;
    }
    CHECK(found == 4 && done == 4, "%d paths found at once, %d by the queue, of 4", found, done);
    const th_plan_reward r[2] = {{{30.5f, 20.5f}, 12.0f}, {{8.5f, 25.5f}, 30.0f}};
    uint32_t taken = 0;
    if (th_planner_find_tour(p, w, ends[0][0], ends[0][1], r, 2, pts, 256, &n, &taken, &cost, &err))
        h = mix(mix(h, pts, n * sizeof *pts), &taken, sizeof taken);
    th_planner_destroy(p);
    return h;
}

static void planner_on_ranks(const char *path) {
    th_world *w[2] = {load(path, false, false), load(path, true, false)};
    th_error err = {0};
    for (int s = 0; s < 2; s++) {
        uint64_t h[2];
        for (int i = 0; i < 2; i++) h[i] = plan_digest(w[i]);
        uint64_t lo = h[1], hi = h[1];
        MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
        CHECK(lo == hi && hi == h[0],
              "planner, round %d: %016llx..%016llx over the ranks, %016llx "
              "in one process",
              s, (unsigned long long)lo, (unsigned long long)hi, (unsigned long long)h[0]);
        for (int i = 0; i < 2; i++) { /* a wall across the middle, then on */
            CHECK(th_world_block_cells(w[i], 10, 20, 30, 20, &err), "%s", err.message);
            for (int k = 0; k < 30; k++) th_world_step(w[i]);
        }
    }
    th_plan_def d = th_default_plan_def();
    d.stall_trouble = 1.0f;
    th_planner *p = th_planner_create(w[1], &d, &err);
    CHECK(ranks == 1 || (!p && err.code == TH_ERR_STATE), "stall_trouble taken over the ranks");
    th_planner_destroy(p);
    th_world_destroy(w[0]);
    th_world_destroy(w[1]);
}

/* The hash's gather in rounds of `slots` id slots, against one process, every 50 steps. */
static void hash_rounds(const char *path, int steps) {
    th_world *one = load(path, false, false), *all = load(path, true, false);
    const uint32_t rounds[] = {0, 1, 7, 64};
    for (int s = 1; s <= steps; s++) {
        th_world_step(one);
        th_world_step(all);
        if (s % 50) continue;
        const uint64_t ref = th_world_hash(one);
        for (size_t r = 0; r < sizeof rounds / sizeof rounds[0]; r++) {
            th_dist_set_hash_round(all, rounds[r]);
            const uint64_t got = th_world_hash(all);
            CHECK(got == ref,
                  "%s: step %d: hash %016llx in rounds of %u slots, one process %016llx", path, s,
                  (unsigned long long)got, rounds[r], (unsigned long long)ref);
        }
    }
    th_world_destroy(one);
    th_world_destroy(all);
}

/* A 200 x 200 m world on a map, over the ranks: a crowd of `speed` (top speed), 40 agents, the
 * first at x = `x`, a spawner of `rate`, a block event at `step`. */
static th_world *built(float speed, float x, double rate, uint64_t step) {
    struct th_dist_def d = {.comm = MPI_COMM_WORLD};
    th_world_def wd = th_default_world_def();
    wd.width = wd.height = 200.0f;
    wd.cell_size = 1.0f;
    wd.threads = 1;
    wd.dist = &d;
    th_error err = {0};
    th_world *w = th_world_create(&wd, &err);
    CHECK(w, "world: %s", err.message);
    th_crowd_def cd = th_default_crowd_def();
    cd.max_speed = speed;
    const th_crowd_id c = th_world_add_crowd(w, &cd, &err);
    CHECK(th_crowd_id_valid(c), "crowd: %s", err.message);
    for (int i = 0; i < 40; i++) {
        const th_vec2 p = th_v2(i == 0 ? x : 5.0f + 4.5f * (float)i, 10.0f + 4.0f * (float)i);
        CHECK(th_agent_id_valid(th_world_add_agent(w, c, p, th_v2(0.5f, 0.0f), &err)), "agent: %s",
              err.message);
    }
    th_spawner_def sd = th_default_spawner_def();
    sd.crowd = c;
    sd.x0 = sd.y0 = 90.0f;
    sd.x1 = sd.y1 = 110.0f;
    sd.rate = rate;
    CHECK(th_spawner_id_valid(th_world_add_spawner(w, &sd, &err)), "spawner: %s", err.message);
    const th_event_def ev = {
        .type = TH_EVENT_BLOCK_CELLS, .x0 = 150, .y0 = 150, .x1 = 152, .y1 = 152};
    CHECK(th_world_schedule(w, step, &ev, &err), "event: %s", err.message);
    return w;
}

/* Worlds built alike pass the check on every rank; a world that differs on the last rank fails
 * it on every rank, which all name the last rank and what differs. */
static void different_worlds(void) {
    const bool last = rank == ranks - 1;
    const struct {
        float speed, x;
        double rate;
        uint64_t step;
        const char *part; /* NULL: built alike */
    } cases[] = {
        {4.0f, 1.5f, 2.0, 10, NULL},
        {4.0f, 1.5f, last ? 2.5 : 2.0, 10, "its spawners"},
        {4.0f, last ? 1.75f : 1.5f, 2.0, 10, "its agents"},
        {4.0f, 1.5f, 2.0, last ? 11 : 10, "its events"},
        {last ? 4.5f : 4.0f, 1.5f, last ? 3.0 : 2.0, 10, "its crowds and its spawners"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        th_world *w = built(cases[i].speed, cases[i].x, cases[i].rate, cases[i].step);
        th_error err = {0};
        const bool ok = th_world_dist_check(w, &err);
        if (!cases[i].part || ranks == 1) {
            CHECK(ok, "case %zu: the same world refused: %s", i, err.message);
            th_world_step(w);
        } else {
            char want[160];
            snprintf(want, sizeof want,
                     "the MPI ranks built different worlds: rank %d's differs from rank 0's in %s",
                     ranks - 1, cases[i].part);
            CHECK(!ok && err.code == TH_ERR_STATE && strcmp(err.message, want) == 0,
                  "case %zu: expected '%s', got %s '%s'", i, want, ok ? "success" : "error",
                  err.message);
        }
        th_world_destroy(w);
    }
}

int main(int argc, char **argv) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    CHECK(provided >= MPI_THREAD_FUNNELED, "MPI gives no MPI_THREAD_FUNNELED");
    host_tasks(THRONG_TEST_DATA "/mpi/city_boids.yaml", 200);
    host_tasks(THRONG_TEST_DATA "/mpi/shelter_full.yaml", 300);
    host_tasks(THRONG_SCENES_DIR "/squads.yaml", 300);
    squad_calls(THRONG_TEST_DATA "/mpi/squads_cross.yaml", 300);
    own_goal_calls(THRONG_TEST_DATA "/mpi/own_goals.yaml", 600);
    planner_on_ranks(THRONG_TEST_DATA "/mpi/own_goals.yaml");
    hash_rounds(THRONG_TEST_DATA "/mpi/shelter_full.yaml", 400);
    different_worlds();
    if (rank == 0) printf("test_mpi_api: every case passed on %d ranks\n", ranks);
    MPI_Finalize();
    return 0;
}
