/* Determinism contract: same world + seed = same state hash, for any worker count. */
#include <check.h>
#include <inttypes.h>
#include <stdlib.h>

#include "engine/rng.h"
#include "throng/throng.h"
#include "test_util.h"

enum { STEPS = 200 };

static uint64_t flock_hash(uint32_t threads, uint64_t seed, uint32_t agents) {
    th_demo_opts o = {.agents = agents, .seed = seed, .threads = threads};
    th_error err;
    th_world *w = th_demo_create("flock", &o, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    ck_assert_uint_eq(th_world_get_def(w).threads, threads);
    for (int i = 0; i < th_test_steps(STEPS); i++) th_world_step(w);
    uint64_t h = th_world_hash(w);
    th_world_destroy(w);
    return h;
}

/* A walled world with three crowds of different reach and view, agents packed near a corner
 * so that bounces, dense cells and sparse cells all occur. */
static uint64_t mixed_hash(uint32_t threads) {
    th_world_def wd = th_default_world_def();
    wd.width = 140.0f;
    wd.height = 90.0f;
    wd.threads = threads;
    wd.seed = 7;
    th_world *w = th_world_create(&wd, NULL);
    ck_assert_ptr_nonnull(w);
    const float radius[3] = {3.0f, 5.0f, 4.0f}, fov[3] = {360.0f, 200.0f, 300.0f};
    for (int c = 0; c < 3; c++) {
        th_crowd_def cd = th_default_crowd_def();
        cd.neighbor_radius = radius[c];
        cd.fov_deg = fov[c];
        cd.max_speed = 3.0f + (float)c;
        ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, NULL)), c);
    }
    for (uint32_t i = 0; i < 4000; i++) {
        float x = th_rng_range(7, i, 0, 0.0f, i % 2 ? 140.0f : 30.0f);
        float y = th_rng_range(7, i, 1, 0.0f, i % 2 ? 90.0f : 20.0f);
        float vx = th_rng_range(7, i, 2, -3.0f, 3.0f), vy = th_rng_range(7, i, 3, -3.0f, 3.0f);
        ck_assert(
            th_agent_id_eq(th_world_add_agent(w, CROWD_ID(i % 3), th_v2(x, y), th_v2(vx, vy), NULL),
                           th_test_id(i)));
    }
    for (int i = 0; i < th_test_steps(STEPS); i++) th_world_step(w);
    uint64_t h = th_world_hash(w);
    th_world_destroy(w);
    return h;
}

START_TEST(flock_hash_same_for_any_thread_count) {
    const uint32_t threads[] = {1, 2, 3, 8};
    uint64_t ref = flock_hash(1, 42, 3000);
    for (size_t i = 0; i < sizeof threads / sizeof threads[0]; i++) {
        uint64_t h = flock_hash(threads[i], 42, 3000);
        ck_assert_msg(h == ref, "threads %u: hash %016" PRIx64 " != %016" PRIx64, threads[i], h,
                      ref);
    }
}
END_TEST

START_TEST(flock_hash_repeatable_and_seed_sensitive) {
    uint64_t a = flock_hash(2, 42, 3000);
    uint64_t b = flock_hash(2, 42, 3000);
    uint64_t c = flock_hash(2, 43, 3000);
    ck_assert_msg(a == b, "repeated run differs");
    ck_assert_msg(a != c, "another seed gives the same hash");
}
END_TEST

START_TEST(mixed_world_hash_same_for_any_thread_count) {
    uint64_t ref = mixed_hash(1);
    const uint32_t threads[] = {2, 3, 8};
    for (size_t i = 0; i < sizeof threads / sizeof threads[0]; i++) {
        ck_assert_msg(mixed_hash(threads[i]) == ref, "threads %u differ", threads[i]);
    }
}
END_TEST

START_TEST(hash_moves_with_state) {
    /* The hash must change step by step: a constant would pass the tests above. */
    th_demo_opts o = {.agents = 1000, .seed = 1, .threads = 2};
    th_world *w = th_demo_create("flock", &o, NULL);
    uint64_t prev = th_world_hash(w);
    for (int i = 0; i < 5; i++) {
        th_world_step(w);
        uint64_t h = th_world_hash(w);
        ck_assert(h != prev);
        prev = h;
    }
    th_world_destroy(w);
}
END_TEST

int main(void) {
    Suite *s = suite_create("determinism");
    TCase *tc = tcase_create("hash");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, flock_hash_same_for_any_thread_count);
    tcase_add_test(tc, flock_hash_repeatable_and_seed_sensitive);
    tcase_add_test(tc, mixed_world_hash_same_for_any_thread_count);
    tcase_add_test(tc, hash_moves_with_state);
    suite_add_tcase(s, tc);
    return th_test_run(s);
}
