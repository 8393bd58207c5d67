/* Agent ids from the id table: slots freed when agents leave are reused (the last freed first)
 * with the next generation; a stale id is refused everywhere; nothing of a slot's last agent
 * reaches its next one; ids are the same for any thread count. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "throng/throng.h"
#include "sim/core/world.h"
#include "test_util.h"

static th_world *plain_world(uint32_t threads, bool map) {
    th_world_def wd = th_default_world_def();
    wd.width = wd.height = 40.0f;
    wd.threads = threads;
    if (map) wd.cell_size = 1.0f;
    th_error err;
    th_world *w = th_world_create(&wd, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    th_crowd_def cd = th_default_crowd_def();
    cd.separation_weight = cd.alignment_weight = cd.cohesion_weight = 0.0f;
    cd.flow_weight = cd.wall_weight = 0.0f;
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), 0);
    th_world_set_validation(w, true);
    return w;
}

static th_agent_id add_at(th_world *w, float x, float y) {
    th_error err;
    th_agent_id id = th_world_add_agent(w, CROWD_ID(0), th_v2(x, y), th_v2(0, 0), &err);
    ck_assert_msg(th_agent_id_valid(id), "%s", err.message);
    return id;
}

/* The handle helpers: a zeroed id is null, equality is slot and generation. */
START_TEST(handle_helpers) {
    th_agent_id none = {0};
    ck_assert(!th_agent_id_valid(none));
    ck_assert(!th_agent_id_valid(TH_INVALID_AGENT));
    ck_assert(th_agent_id_eq(none, TH_INVALID_AGENT));
    ck_assert(th_agent_id_valid((th_agent_id){1, 1}));
    ck_assert(!th_agent_id_eq((th_agent_id){3, 1}, (th_agent_id){3, 2}));
    ck_assert(!th_agent_id_eq((th_agent_id){3, 1}, (th_agent_id){4, 1}));
    ck_assert(th_agent_id_eq((th_agent_id){3, 2}, (th_agent_id){3, 2}));
}
END_TEST

/* Which slot each new agent gets, against a model of the free list written here: the removal
 * pass at the start of the next step walks the agents in storage order (the view's order before
 * the step) and pushes each freed slot; adding pops the last pushed, and takes a fresh slot only
 * when none is free. */
START_TEST(freed_slots_are_reused_last_freed_first) {
    th_world *w = plain_world(2, false);
    enum { N = 40 };
    for (uint32_t i = 0; i < N; i++) {
        th_agent_id id = add_at(w, 1.0f + (float)(i % 8) * 4.5f, 1.0f + (float)(i / 8) * 6.0f);
        ck_assert(th_agent_id_eq(id, th_test_id(i))); /* a new world: creation order */
    }
    th_world_step(w);
    ck_assert_uint_eq(th_world_id_slots(w), N);
    /* Remove the agents at view positions 3, 11, 17, 30 (storage order). */
    th_agent_view v = th_world_agents(w);
    const uint32_t at[4] = {3, 11, 17, 30};
    th_agent_id gone[4];
    uint32_t stack[4], top = 0;
    for (uint32_t i = 0; i < 4; i++) gone[i] = v.id[at[i]];
    /* Asked for in another order than storage order: the pass goes by storage order anyway. */
    for (int i = 3; i >= 0; i--) ck_assert(th_world_remove_agent(w, gone[i], NULL));
    th_world_step(w);
    for (uint32_t i = 0; i < 4; i++) stack[top++] = th_test_slot(gone[i]);
    ck_assert_uint_eq(th_world_agent_count(w), N - 4);
    ck_assert_uint_eq(th_world_id_slots(w), N);
    for (uint32_t i = 0; i < 4; i++) {
        th_agent_state s;
        ck_assert(!th_world_get_agent(w, gone[i], &s));
    }
    for (uint32_t i = 0; i < 5; i++) {
        th_agent_id id = add_at(w, 20.0f, 20.0f + 0.5f * (float)i);
        if (top > 0) {
            const uint32_t slot = stack[--top];
            ck_assert_uint_eq(th_test_slot(id), slot);
            ck_assert_uint_eq(id.generation, 2);
        } else { /* none free: a fresh slot, first generation */
            ck_assert(th_agent_id_eq(id, th_test_id(N)));
        }
    }
    ck_assert_uint_eq(th_world_id_slots(w), N + 1);
    ck_assert_uint_eq(th_world_agent_count(w), N + 1);
    th_world_step(w); /* validation checks the table: no failure */
    ck_assert_msg(th_world_validation_error(w) == NULL, "%s", th_world_validation_error(w));
    ck_assert_uint_eq(th_world_get_stats(w).spawned, N + 5);
    th_world_destroy(w);
}
END_TEST

/* An id whose agent left and whose slot now holds another agent: every call taking an id
 * refuses it and leaves the new agent alone. */
START_TEST(stale_id_is_refused) {
    th_world *w = plain_world(2, true);
    th_squad_def sd = th_default_squad_def();
    sd.crowd = CROWD_ID(0);
    sd.count = 4;
    sd.start = th_v2(10, 10);
    sd.goal = th_v2(30, 30);
    th_error err;
    ck_assert_int_eq(IDX(th_world_add_squad(w, &sd, &err)), 0);
    th_agent_id old = add_at(w, 20.0f, 5.0f);
    th_agent_id other = add_at(w, 25.0f, 5.0f);
    th_target_def td = {.kind = TH_TARGET_AGENT, .agent = old};
    ck_assert_int_eq(IDX(th_world_add_target(w, &td, &err)), 0);
    th_world_step(w);
    th_vec2 tp, tv;
    ck_assert(
        th_world_get_target(w, TARGET_ID(0), &tp, &tv)); /* follows its agent while it lives */
    ck_assert(th_world_remove_agent(w, old, &err));
    th_world_step(w);
    th_agent_id now = add_at(w, 5.0f, 30.0f);
    ck_assert_uint_eq(now.index1, old.index1);
    ck_assert_uint_eq(now.generation, old.generation + 1);
    th_agent_state s;
    ck_assert(!th_world_get_agent(w, old, &s));
    ck_assert(th_world_get_agent(w, now, &s));
    ck_assert(th_agent_id_eq(s.id, now));
    err = (th_error){0};
    ck_assert(!th_world_remove_agent(w, old, &err));
    TH_TEST_ERR(err, TH_ERR_HANDLE);
    err = (th_error){0};
    ck_assert(!th_world_squad_join(w, SQUAD_ID(0), old, &err));
    TH_TEST_ERR(err, TH_ERR_HANDLE);
    /* A zeroed id, a slot never used, a generation never reached: refused the same way. */
    const th_agent_id bad[] = {{0, 0}, {0, 1}, {500, 1}, {now.index1, now.generation + 1}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ck_assert(!th_world_get_agent(w, bad[i], &s));
        err = (th_error){0};
        ck_assert(!th_world_remove_agent(w, bad[i], &err));
        TH_TEST_ERR(err, TH_ERR_HANDLE);
        err = (th_error){0};
        ck_assert(!th_world_squad_join(w, SQUAD_ID(0), bad[i], &err));
        TH_TEST_ERR(err, TH_ERR_HANDLE);
    }
    /* A target can name an agent yet to come, but never a null id. */
    const th_agent_id nulls[] = {{0, 0}, {0, 1}, {3, 0}};
    for (size_t i = 0; i < sizeof nulls / sizeof *nulls; i++) {
        th_target_def nt = {.kind = TH_TARGET_AGENT, .agent = nulls[i]};
        err = (th_error){0};
        ck_assert_int_eq(IDX(th_world_add_target(w, &nt, &err)), -1);
        TH_TEST_ERR(err, TH_ERR_HANDLE);
    }
    th_world_step(w);
    /* The target named the old agent: absent, not following the slot's new one. */
    ck_assert(!th_world_get_target(w, TARGET_ID(0), &tp, &tv));
    ck_assert(th_world_get_agent(w, now, &s)); /* none of the refusals removed it */
    ck_assert(th_world_get_agent(w, other, &s));
    ck_assert_uint_eq(th_world_agent_count(w), 4 + 2);
    /* The new agent is in no squad (its slot's last agent was not either, but one is now). */
    ck_assert(th_world_squad_join(w, SQUAD_ID(0), now, &err));
    th_squad_info si;
    ck_assert(th_world_get_squad(w, SQUAD_ID(0), &si));
    ck_assert_uint_eq(si.members, 5);
    /* Joined, it is taken: a second join is refused for the world's state, not for its id. */
    err = (th_error){0};
    ck_assert(!th_world_squad_join(w, SQUAD_ID(0), now, &err));
    TH_TEST_ERR(err, TH_ERR_STATE);
    th_world_destroy(w);
}
END_TEST

/* A squad member lost and its slot reused in the same events phase (removal, then a spawner):
 * the squad drops the member, and the agent now in the slot is not taken for it. */
START_TEST(lost_member_slot_reused_by_spawner) {
    th_world *w = plain_world(2, true);
    th_squad_def sd = th_default_squad_def();
    sd.count = 4;
    sd.start = th_v2(10, 10);
    sd.goal = th_v2(10, 30);
    sd.crowd = CROWD_ID(0);
    th_error err;
    ck_assert_int_eq(IDX(th_world_add_squad(w, &sd, &err)), 0);
    th_world_step(w);
    th_agent_id lost;
    ck_assert(th_world_get_squad_member(w, SQUAD_ID(0), 1, &lost, NULL));
    ck_assert(th_world_remove_agent(w, lost, &err));
    th_spawner_def sp = th_default_spawner_def();
    sp.crowd = CROWD_ID(0);
    sp.x0 = 30, sp.x1 = 31, sp.y0 = 30, sp.y1 = 31;
    sp.rate = 1000.0;
    sp.limit = 1;
    ck_assert_int_eq(IDX(th_world_add_spawner(w, &sp, &err)), 0);
    th_world_step(w); /* removal frees the slot, the spawner takes it, the squad drops it */
    th_agent_view v = th_world_agents(w);
    ck_assert_uint_eq(v.count, 4);
    uint32_t reused = 0;
    for (uint32_t k = 0; k < v.count; k++) {
        if (v.id[k].index1 != lost.index1) continue;
        reused++;
        ck_assert_uint_eq(v.id[k].generation, lost.generation + 1);
        ck_assert(v.px[k] >= 30.0f && v.py[k] >= 30.0f); /* the spawner's agent */
    }
    ck_assert_uint_eq(reused, 1);
    th_squad_info si;
    ck_assert(th_world_get_squad(w, SQUAD_ID(0), &si));
    ck_assert_uint_eq(si.members, 3);
    for (uint32_t i = 0; i < 3; i++) {
        th_agent_id m;
        ck_assert(th_world_get_squad_member(w, SQUAD_ID(0), i, &m, NULL));
        ck_assert(!th_agent_id_eq(m, lost));
        ck_assert_uint_ne(m.index1, lost.index1);
    }
    for (int s = 0; s < 30; s++) th_world_step(w);
    ck_assert_msg(th_world_validation_error(w) == NULL, "%s", th_world_validation_error(w));
    th_world_destroy(w);
}
END_TEST

/* Nothing of a slot's last agent reaches its next one: the route walker's waypoint starts at 0
 * again, and a pedestrian's desired speed is drawn anew (the key holds the generation). */
START_TEST(reused_slot_starts_fresh) {
    th_world_def wd = th_default_world_def();
    wd.width = wd.height = 40.0f;
    wd.threads = 2;
    th_error err;
    th_world *w = th_world_create(&wd, &err);
    const th_vec2 pts[2] = {{30, 5}, {30, 35}};
    th_crowd_def cd = th_default_pedestrian_def();
    cd.goal = (th_goal_def){.kind = TH_GOAL_ROUTE,
                            .points = pts,
                            .point_count = 2,
                            .mode = TH_ROUTE_LOOP,
                            .radius = 1.0f};
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), 0);
    th_agent_id first = add_at(w, 29.5f, 5.5f); /* inside the first waypoint's radius */
    const float v0 = w->desired_speed[th_test_slot(first)];
    th_world_step(w);
    th_agent_state s;
    ck_assert(th_world_get_agent(w, first, &s));
    ck_assert_uint_eq(s.waypoint, 1); /* reached waypoint 0, now walks to 1 */
    ck_assert(th_world_remove_agent(w, first, &err));
    th_world_step(w);
    th_agent_id next = add_at(w, 5.0f, 20.0f);
    ck_assert_uint_eq(next.index1, first.index1);
    ck_assert_uint_eq(next.generation, 2);
    ck_assert(th_world_get_agent(w, next, &s));
    ck_assert_uint_eq(s.waypoint, 0);
    const float v1 = w->desired_speed[th_test_slot(next)];
    ck_assert(v1 > 0.0f && v1 != v0);
    th_world_destroy(w);
}
END_TEST

/* Removals by the API, an endless spawner and an exit, pedestrians with their random speeds:
 * every step, the ids in the world (by slot), the id table and the state hash are the same on
 * 1, 2 and 3 threads, and slots really are reused. */
#define RUN_STEPS 600
typedef struct run_record {
    uint64_t hash[RUN_STEPS];
    uint32_t slots[RUN_STEPS];
    uint64_t id_sum[RUN_STEPS]; /* sum over agents of (slot + 1) * generation, a fingerprint */
    uint32_t max_gen;
    uint32_t spawned;
} run_record;

static void run_churn(uint32_t threads, run_record *r) {
    th_world_def wd = th_default_world_def();
    wd.width = 30.0f, wd.height = 12.0f;
    wd.threads = threads;
    th_error err;
    th_world *w = th_world_create(&wd, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    th_crowd_def cd = th_default_pedestrian_def();
    cd.heading = th_v2(1.0f, 0.0f);
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), 0);
    th_spawner_def sd = th_default_spawner_def();
    sd.crowd = CROWD_ID(0);
    sd.x0 = 0.5f, sd.x1 = 3.0f, sd.y0 = 0.5f, sd.y1 = 11.5f;
    sd.rate = 12.0;
    sd.velocity = th_v2(1.2f, 0.0f);
    ck_assert_int_eq(IDX(th_world_add_spawner(w, &sd, &err)), 0);
    th_exit_def ed = th_default_exit_def();
    ed.x0 = 27.0f, ed.x1 = 30.0f, ed.y0 = 0.0f, ed.y1 = 12.0f;
    ck_assert_int_eq(IDX(th_world_add_exit(w, &ed, &err)), 0);
    th_world_set_validation(w, true);
    memset(r, 0, sizeof *r);
    for (int s = 0; s < RUN_STEPS; s++) {
        if (s % 7 == 3) { /* remove every fifth agent in view order */
            th_agent_view v = th_world_agents(w);
            for (uint32_t k = 0; k < v.count; k += 5)
                ck_assert(th_world_remove_agent(w, v.id[k], &err));
        }
        th_world_step(w);
        th_agent_view v = th_world_agents(w);
        r->hash[s] = th_world_hash(w);
        r->slots[s] = th_world_id_slots(w);
        for (uint32_t k = 0; k < v.count; k++) {
            r->id_sum[s] += (uint64_t)v.id[k].index1 * v.id[k].generation;
            if (v.id[k].generation > r->max_gen) r->max_gen = v.id[k].generation;
        }
    }
    ck_assert_msg(th_world_validation_error(w) == NULL, "%s", th_world_validation_error(w));
    r->spawned = th_world_get_stats(w).spawned;
    th_world_destroy(w);
}

START_TEST(ids_identical_across_threads) {
    static run_record rec[3];
    for (uint32_t t = 0; t < 3; t++) run_churn(t + 1, &rec[t]);
    ck_assert_uint_gt(rec[0].max_gen, 2); /* slots were reused, some more than once */
    ck_assert_uint_gt(rec[0].spawned, 2u * rec[0].slots[RUN_STEPS - 1]);
    for (uint32_t t = 1; t < 3; t++) {
        ck_assert_uint_eq(rec[t].spawned, rec[0].spawned);
        ck_assert_uint_eq(rec[t].max_gen, rec[0].max_gen);
        for (int s = 0; s < RUN_STEPS; s++) {
            CHECK_MSG(rec[t].slots[s] == rec[0].slots[s] && rec[t].id_sum[s] == rec[0].id_sum[s] &&
                          rec[t].hash[s] == rec[0].hash[s],
                      "%u threads differ from 1 at step %d", t + 1, s + 1);
        }
    }
}
END_TEST

/* n agents on a lattice of 1 m, 39 to a row, starting at (x0, x0). */
static void fill_lattice(th_world *w, uint32_t n, float x0) {
    for (uint32_t i = 0; i < n; i++) add_at(w, x0 + (float)(i % 39), x0 + (float)(i / 39));
}

/* The agent arrays (what a rank stores) and the id table (what every rank holds) have a
 * capacity each. In one process a fresh slot is taken only when none is free, so both grow at
 * the same adds, doubling from 1,024; grown apart (as a rank grows its arrays for the agents it
 * takes in), each keeps what it held and no result changes. */
START_TEST(agent_and_id_capacities_grow_apart) {
    th_world *w = plain_world(2, false), *twin = plain_world(2, false);
    ck_assert_uint_eq(w->capacity, 1024);
    ck_assert_uint_eq(w->id_capacity, 1024);
    fill_lattice(w, 1500, 0.5f);
    fill_lattice(twin, 1500, 0.5f);
    ck_assert_uint_eq(w->capacity, 2048);
    ck_assert_uint_eq(w->id_capacity, 2048);
    /* Leave 500 slots free and take them again: neither capacity moves. */
    th_error err;
    for (uint32_t i = 0; i < 1500; i += 3) {
        ck_assert(th_world_remove_agent(w, th_test_id(i), &err));
        ck_assert(th_world_remove_agent(twin, th_test_id(i), &err));
    }
    th_world_step(w);
    th_world_step(twin);
    ck_assert_uint_eq(th_world_agent_count(w), 1000);
    fill_lattice(w, 500, 0.25f);
    fill_lattice(twin, 500, 0.25f);
    ck_assert_uint_eq(th_world_id_slots(w), 1500);
    ck_assert_uint_eq(w->capacity, 2048);
    ck_assert_uint_eq(w->id_capacity, 2048);
    /* Ids alone, then agents alone. */
    ck_assert(th_world_reserve(w, 0, 5000));
    ck_assert_uint_eq(w->capacity, 2048);
    ck_assert_uint_eq(w->id_capacity, 8192);
    ck_assert(th_world_reserve(w, 3000, 0));
    ck_assert_uint_eq(w->capacity, 4096);
    ck_assert_uint_eq(w->id_capacity, 8192);
    /* Every agent is still found by its id, where the twin has it. */
    const th_agent_view tv = th_world_agents(twin);
    ck_assert_uint_eq(tv.count, 1500);
    for (uint32_t k = 0; k < tv.count; k++) {
        th_agent_state a;
        ck_assert(th_world_get_agent(w, tv.id[k], &a));
        ck_assert(a.position.x == tv.px[k] && a.position.y == tv.py[k]);
    }
    for (int s = 0; s < 20; s++) {
        th_world_step(w);
        th_world_step(twin);
        ck_assert_msg(th_world_hash(w) == th_world_hash(twin), "step %d", s + 1);
    }
    ck_assert_msg(th_world_validation_error(w) == NULL, "%s", th_world_validation_error(w));
    th_world_destroy(w);
    th_world_destroy(twin);
}
END_TEST

int main(void) {
    Suite *s = suite_create("ids");
    TCase *t = tcase_create("ids");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, handle_helpers);
    tcase_add_test(t, freed_slots_are_reused_last_freed_first);
    tcase_add_test(t, stale_id_is_refused);
    tcase_add_test(t, lost_member_slot_reused_by_spawner);
    tcase_add_test(t, reused_slot_starts_fresh);
    tcase_add_test(t, ids_identical_across_threads);
    tcase_add_test(t, agent_and_id_capacities_grow_apart);
    suite_add_tcase(s, t);
    return th_test_run(s);
}
