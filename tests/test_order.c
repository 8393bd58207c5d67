/* The neighbour order is (grid cell, id slot): a function of the agents, not of the order they
 * happen to be stored in. Two copies of each library scene step side by side; one has its
 * storage shuffled every few steps (white box: every agent array of TH_AGENT_ARRAYS and the id
 * table permuted together, which changes nothing about the agents themselves). Their hashes
 * must stay equal. With the cells in last step's storage order, as the grid's stable sort alone
 * leaves them, they part at the first step after a shuffle in most scenes. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "sim/core/world.h"
#include "test_util.h"

#ifndef THRONG_SCENES_DIR
#define THRONG_SCENES_DIR "scenes"
#endif

enum { STEPS = 60, SHUFFLE_EVERY = 7, MAX_AGENTS = 1500 };

/* Move storage slot p[k] to slot k, for every agent array, and follow it in slot_of_id. */
static void shuffle_storage(th_world *w, uint64_t seed) {
    const uint32_t n = w->count;
    if (n < 2) return;
    uint32_t *p = malloc(n * sizeof *p);
    ck_assert_ptr_nonnull(p);
    for (uint32_t k = 0; k < n; k++) p[k] = k;
    for (uint32_t k = n; k > 1; k--) {
        const uint32_t j = (uint32_t)(splitmix64(&seed) % k), t = p[k - 1];
        p[k - 1] = p[j];
        p[j] = t;
    }
    th_agents *a = &w->buf[w->cur];
#define PERMUTE(arr, T)                                         \
    do {                                                        \
        T *tmp_ = malloc(n * sizeof(T));                        \
        ck_assert_ptr_nonnull(tmp_);                            \
        for (uint32_t k = 0; k < n; k++) tmp_[k] = (arr)[p[k]]; \
        memcpy((arr), tmp_, n * sizeof(T));                     \
        free(tmp_);                                             \
    } while (0)
#define PERMUTE_ROW(name, T, kind) \
    TH_AGENT_KIND(BUF, kind, PERMUTE(a->name, T);) TH_AGENT_KIND(ONE, kind, PERMUTE(w->name, T);)
    TH_AGENT_ARRAYS(PERMUTE_ROW)
#undef PERMUTE_ROW
#undef PERMUTE
    for (uint32_t k = 0; k < n; k++) w->slot_of_id[th_id_slot(a->id[k])] = k;
    free(p);
}

static uint32_t check_scene(const char *path, uint32_t threads) {
    th_world *A = th_test_load(path, (th_scene_opts){.threads = threads}, MAX_AGENTS, NULL);
    th_world *B = th_test_load(path, (th_scene_opts){.threads = threads}, MAX_AGENTS, NULL);
    uint32_t shuffles = 0;
    for (int i = 0; i < th_test_steps(STEPS); i++) {
        if (i % SHUFFLE_EVERY == 3 && B->count > 1) {
            shuffle_storage(B, (uint64_t)i + 1);
            shuffles++;
        }
        th_world_step(A);
        th_world_step(B);
        ck_assert_msg(th_world_hash(A) == th_world_hash(B),
                      "%s, %u threads: storage order changed the state at step %d", path, threads,
                      i + 1);
    }
    ck_assert_uint_eq(th_world_hash(A), th_world_hash(B));
    th_world_destroy(A);
    th_world_destroy(B);
    return shuffles;
}

START_TEST(storage_order_does_not_change_results) {
    static th_test_path scenes[TH_TEST_MAX_SCENES];
    const uint32_t n = th_test_scenes(THRONG_SCENES_DIR, scenes);
    ck_assert_uint_ge(n, 10);
    const uint32_t threads = _i == 0 ? 1 : 3;
    uint32_t shuffled = 0; /* scenes that start empty may have no agents to shuffle yet */
    for (uint32_t i = 0; i < n; i++) shuffled += check_scene(scenes[i], threads) > 0;
    ck_assert_uint_ge(shuffled, n - 2);
}
END_TEST

/* The check itself can fail: a world whose storage is shuffled without moving slot_of_id along
 * is a different world (ids name other agents), and its hash differs at once. */
START_TEST(shuffle_is_seen_by_the_hash) {
    th_world *A = th_test_load(THRONG_SCENES_DIR "/flock.yaml", (th_scene_opts){.threads = 1},
                               MAX_AGENTS, NULL);
    const uint64_t h = th_world_hash(A);
    th_agents *a = &A->buf[A->cur];
    const float x = a->px[0];
    a->px[0] = a->px[1];
    a->px[1] = x;
    ck_assert_uint_ne(th_world_hash(A), h);
    th_world_destroy(A);
}
END_TEST

int main(void) {
    Suite *s = suite_create("order");
    TCase *tc = tcase_create("storage");
    tcase_set_timeout(tc, 300);
    /* 1 and 3 threads; only 3 under ThreadSanitizer (one thread has no race to find). */
    tcase_add_loop_test(tc, storage_order_does_not_change_results, TH_TEST_TSAN ? 1 : 0, 2);
    tcase_add_test(tc, shuffle_is_seen_by_the_hash);
    suite_add_tcase(s, tc);
    return th_test_run(s);
}
