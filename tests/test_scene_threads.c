/* Every library scene under 2, 4 and 8 worker threads: the same state hash, every invariant
 * held (the suite also runs under ThreadSanitizer), and worlds created and destroyed in a loop
 * leave no thread or memory behind. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "throng/throng.h"
#include "test_util.h"

#ifndef THRONG_SCENES_DIR
#error "THRONG_SCENES_DIR must name the scene library"
#endif

static uint64_t run_scene(const char *path, uint32_t threads) {
    th_world *w = th_test_load(path, (th_scene_opts){.threads = threads}, 1500, NULL);
    ck_assert_uint_eq(th_world_get_def(w).threads, threads);
    th_world_set_validation(w, true);
    for (int s = 0; s < th_test_steps(40); s++) th_world_step(w);
    ck_assert_msg(th_world_validation_error(w) == NULL, "%s: %s", path,
                  th_world_validation_error(w));
    uint64_t h = th_world_hash(w);
    th_world_destroy(w);
    return h;
}

START_TEST(every_scene_same_hash_on_2_4_8_threads) {
    static th_test_path scenes[TH_TEST_MAX_SCENES];
    const uint32_t n = th_test_scenes(THRONG_SCENES_DIR, scenes);
    for (uint32_t i = 0; i < n; i++) {
        uint64_t h2 = run_scene(scenes[i], 2);
        ck_assert_msg(run_scene(scenes[i], 4) == h2, "%s: 4 threads differ from 2", scenes[i]);
        ck_assert_msg(run_scene(scenes[i], 8) == h2, "%s: 8 threads differ from 2", scenes[i]);
    }
    ck_assert_uint_ge(n, 6);
}
END_TEST

START_TEST(worlds_created_and_destroyed_in_a_loop) {
    for (int i = 0; i < 60; i++) {
        th_demo_opts o = {.agents = 300, .seed = (uint64_t)i, .threads = 1 + (uint32_t)(i % 4)};
        th_world *w = th_demo_create(i % 2 ? "evac" : "flock", &o, NULL);
        ck_assert_ptr_nonnull(w);
        for (int s = 0; s < 3; s++) th_world_step(w);
        th_world_destroy(w);
    }
}
END_TEST

int main(void) {
    Suite *s = suite_create("scene_threads");
    TCase *tc = tcase_create("threads");
    tcase_set_timeout(tc, 900);
    tcase_add_test(tc, every_scene_same_hash_on_2_4_8_threads);
    tcase_add_test(tc, worlds_created_and_destroyed_in_a_loop);
    suite_add_tcase(s, tc);
    return th_test_run(s);
}
