/* The "no allocation inside a step" contract, and the allocation hook itself.
 *
 * A counting allocator is installed with th_set_allocator. It forwards to aligned_alloc / free
 * and keeps a table of live blocks, so the test sees every allocation the engine makes (the
 * hook's own count must agree with th_alloc_count), can assert that steps after the first make
 * none, and that destroying a world hands every block back through the same hook. */
#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/alloc.h"
#include "engine/rng.h"
#include "throng/throng.h"
#include "test_util.h"

/* ---- counting allocator --------------------------------------------------------------- */

#define MAX_LIVE 65536

typedef struct counting {
    atomic_uint_fast64_t allocs, frees;
    atomic_uint_fast64_t bad_frees;  /* pointers freed that this hook never handed out */
    atomic_uint_fast64_t misaligned; /* blocks not 64-byte aligned */
    pthread_mutex_t lock;            /* guards live[] (workers free from their own threads) */
    void *live[MAX_LIVE];
    uint32_t nlive;
} counting;

static counting g_counting = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void *counting_alloc(size_t size, void *user) {
    counting *c = user;
    size_t rounded = (size + 63u) & ~(size_t)63u;
    if (rounded < size) return NULL;
    void *p = aligned_alloc(64, rounded);
    if (!p) return NULL;
    if ((uintptr_t)p % 64 != 0) atomic_fetch_add(&c->misaligned, 1);
    pthread_mutex_lock(&c->lock);
    bool stored = c->nlive < MAX_LIVE;
    if (stored) c->live[c->nlive++] = p;
    pthread_mutex_unlock(&c->lock);
    if (!stored) {
        free(p);
        return NULL;
    }
    atomic_fetch_add(&c->allocs, 1);
    return p;
}

static void counting_free(void *ptr, void *user) {
    counting *c = user;
    if (!ptr) return;
    bool found = false;
    pthread_mutex_lock(&c->lock);
    for (uint32_t i = c->nlive; i-- > 0;) {
        if (c->live[i] == ptr) {
            c->live[i] = c->live[--c->nlive];
            found = true;
            break;
        }
    }
    pthread_mutex_unlock(&c->lock);
    if (!found) {
        /* Not ours: leak it rather than hand an unknown pointer to free(). */
        atomic_fetch_add(&c->bad_frees, 1);
        return;
    }
    atomic_fetch_add(&c->frees, 1);
    free(ptr);
}

static void install_counting(void) {
    counting *c = &g_counting;
    atomic_store(&c->allocs, 0);
    atomic_store(&c->frees, 0);
    atomic_store(&c->bad_frees, 0);
    atomic_store(&c->misaligned, 0);
    c->nlive = 0;
    th_set_allocator(&(th_allocator){counting_alloc, counting_free, c});
}

static uint32_t live_blocks(void) {
    pthread_mutex_lock(&g_counting.lock);
    uint32_t n = g_counting.nlive;
    pthread_mutex_unlock(&g_counting.lock);
    return n;
}

static uint64_t hook_allocs(void) { return atomic_load(&g_counting.allocs); }

/* After the world is gone every block must have come back through the hook. */
static void assert_balanced(void) {
    ck_assert_uint_eq(atomic_load(&g_counting.bad_frees), 0);
    ck_assert_uint_eq(atomic_load(&g_counting.misaligned), 0);
    ck_assert_msg(live_blocks() == 0, "%u blocks leaked through the hook", live_blocks());
    ck_assert_uint_eq(atomic_load(&g_counting.allocs), atomic_load(&g_counting.frees));
}

/* Step once (warm-up may allocate), then `steps` more with neither the engine's counter nor the
 * hook seeing an allocation. */
static void assert_steps_allocate_nothing(th_world *w, int steps) {
    th_world_step(w);
    uint64_t engine = th_alloc_count(), hook = hook_allocs();
    for (int s = 0; s < steps; s++) {
        th_world_step(w);
        ck_assert_msg(th_alloc_count() == engine, "step %d allocated %llu times", s + 2,
                      (unsigned long long)(th_alloc_count() - engine));
        ck_assert_msg(hook_allocs() == hook, "step %d allocated through the hook", s + 2);
    }
}

/* ---- worlds --------------------------------------------------------------------------- */

START_TEST(test_flock_demo) {
    install_counting();
    uint64_t engine0 = th_alloc_count();
    th_error err = {0};
    th_world *w =
        th_demo_create("flock", &(th_demo_opts){.agents = 5000, .seed = 3, .threads = 2}, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    ck_assert_uint_eq(th_world_agent_count(w), 5000);
    /* Building the world went through the hook, and th_alloc_count saw the same calls. */
    ck_assert_uint_gt(hook_allocs(), 0);
    ck_assert_uint_eq(th_alloc_count() - engine0, hook_allocs());
    assert_steps_allocate_nothing(w, 50);
    ck_assert_uint_eq(th_world_step_count(w), 51);
    th_world_destroy(w);
    assert_balanced();
    th_set_allocator(NULL);
}
END_TEST

/* A walled world with two crowds of different radii and view angles, filled agent by agent
 * without reserving capacity, so the arrays grow while agents are added. */
/* Steps that apply events (bunker destroyed and restored, walls broken, cells blocked) and
 * shelter agents repair river maps and compact arrays without allocating: queueing an event
 * may allocate, applying it must not. */
START_TEST(test_evac_with_events) {
    install_counting();
    th_error err = {0};
    th_world *w =
        th_demo_create("evac", &(th_demo_opts){.agents = 3000, .seed = 5, .threads = 2}, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    th_world_step(w);
    for (int round = 0; round < 4; round++) {
        ck_assert(th_world_destroy_bunker(w, BUNKER_ID(round), &err));
        ck_assert(th_world_break_walls(w, 0, 0, 40 + 30 * round, 255, &err));
        ck_assert(th_world_block_cells(w, 100, 100 + round, 103, 100 + round, &err));
        ck_assert(th_world_restore_bunker(w, BUNKER_ID(round), &err));
        /* Every step counts, the first above all: it is the one that applies the events. */
        uint64_t engine = th_alloc_count(), hook = hook_allocs();
        for (int s = 0; s < 30; s++) {
            th_world_step(w);
            ck_assert_msg(th_alloc_count() == engine && hook_allocs() == hook,
                          "round %d: step %d after the events allocated", round, s);
        }
    }
    /* Agents did shelter during those steps, so compaction ran too. */
    ck_assert_uint_gt(th_world_get_stats(w).sheltered, 0);
    th_world_destroy(w);
    assert_balanced();
    th_set_allocator(NULL);
}
END_TEST

static th_world *walled_two_crowds(uint32_t threads, uint32_t agents) {
    th_world_def wd = th_default_world_def();
    wd.width = 120.0f;
    wd.height = 80.0f;
    wd.bounds = TH_BOUNDS_WALLS;
    wd.threads = threads;
    wd.seed = 11;
    th_error err = {0};
    th_world *w = th_world_create(&wd, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    th_crowd_def a = th_default_crowd_def();
    a.name = "walkers";
    th_crowd_def b = th_default_crowd_def();
    b.name = "runners";
    b.neighbor_radius = 6.0f;
    b.separation_radius = 2.0f;
    b.fov_deg = 360.0f;
    b.max_speed = 7.0f;
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &a, &err)), 0);
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &b, &err)), 1);
    for (uint32_t i = 0; i < agents; i++) {
        float x = th_rng_range(5, i, 0, 0.0f, wd.width);
        float y = th_rng_range(5, i, 1, 0.0f, wd.height);
        float vx = th_rng_range(5, i, 2, -3.0f, 3.0f);
        float vy = th_rng_range(5, i, 3, -3.0f, 3.0f);
        th_agent_id id = th_world_add_agent(w, CROWD_ID(i % 2), th_v2(x, y), th_v2(vx, vy), &err);
        ck_assert_msg(th_agent_id_eq(id, th_test_id(i)), "agent %u: %s", i, err.message);
    }
    return w;
}

START_TEST(test_walled_two_crowds) {
    install_counting();
    th_world *w = walled_two_crowds(2, 3000);
    assert_steps_allocate_nothing(w, 50);
    th_world_destroy(w);
    assert_balanced();
    th_set_allocator(NULL);
}
END_TEST

/* Worker counts other than 2, including the inline single worker. */
START_TEST(test_other_thread_counts) {
    const uint32_t threads[] = {1, 3, 4};
    for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
        install_counting();
        th_world *w = walled_two_crowds(threads[t], 2000);
        assert_steps_allocate_nothing(w, 30);
        th_world_destroy(w);
        assert_balanced();
        th_set_allocator(NULL);
    }
}
END_TEST

/* Growing the world between steps (more agents, a crowd with a larger radius that forces a new
 * grid) may allocate in those calls, but the next steps again allocate nothing. */
START_TEST(test_growth_between_steps) {
    install_counting();
    th_world *w = walled_two_crowds(2, 1000);
    assert_steps_allocate_nothing(w, 10);
    th_error err = {0};
    for (uint32_t i = 0; i < 4000; i++) {
        float x = th_rng_range(9, i, 0, 0.0f, 120.0f);
        float y = th_rng_range(9, i, 1, 0.0f, 80.0f);
        ck_assert(th_agent_id_valid(
            th_world_add_agent(w, CROWD_ID(i % 2), th_v2(x, y), th_v2(1.0f, 0.5f), &err)));
    }
    th_crowd_def big = th_default_crowd_def();
    big.neighbor_radius = 9.0f;
    int c = IDX(th_world_add_crowd(w, &big, &err));
    ck_assert_msg(c == 2, "%s", err.message);
    for (uint32_t i = 0; i < 200; i++) {
        ck_assert(th_agent_id_valid(th_world_add_agent(
            w, CROWD_ID(c), th_v2(60.0f, 40.0f + (float)i * 0.1f), th_v2(0.0f, 1.0f), &err)));
    }
    assert_steps_allocate_nothing(w, 20);
    th_world_destroy(w);
    assert_balanced();
    th_set_allocator(NULL);
}
END_TEST

/* Prey and predators: the predator index (its own grid and packed arrays) is rebuilt every
 * step without allocating, also after the agent arrays grew, and is freed with the world. */
START_TEST(test_predator_index) {
    install_counting();
    th_world *w = walled_two_crowds(2, 1000);
    th_error err = {0};
    th_crowd_def prey = th_default_crowd_def();
    prey.type = 1;
    prey.flee_types = 1u << 2;
    prey.flee_radius = 15.0f;
    th_crowd_def hawk = th_default_crowd_def();
    hawk.type = 2;
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &prey, &err)), 2);
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &hawk, &err)), 3);
    for (uint32_t round = 0; round < 2; round++) {
        for (uint32_t i = 0; i < 3000; i++) {
            float x = th_rng_range(11 + round, i, 0, 0.0f, 120.0f);
            float y = th_rng_range(11 + round, i, 1, 0.0f, 80.0f);
            ck_assert(th_agent_id_valid(th_world_add_agent(w, CROWD_ID(i % 50 == 0 ? 3u : 2u),
                                                           th_v2(x, y), th_v2(1.0f, -0.5f), &err)));
        }
        assert_steps_allocate_nothing(w, 20);
    }
    th_world_destroy(w);
    assert_balanced();
    th_set_allocator(NULL);
}
END_TEST

/* A world destroyed before it ever steps, and one that fails validation, leak nothing. */
START_TEST(test_no_leak_without_steps) {
    install_counting();
    th_world *w = walled_two_crowds(3, 500);
    th_world_destroy(w);
    assert_balanced();

    th_world_def bad = th_default_world_def();
    bad.width = -1.0f;
    th_error err = {0};
    ck_assert_ptr_null(th_world_create(&bad, &err));
    th_world *d = th_demo_create("no-such-demo", &(th_demo_opts){.seed = 1, .threads = 2}, &err);
    ck_assert_ptr_null(d);
    assert_balanced();
    th_set_allocator(NULL);
}
END_TEST

/* The hook really routes th_alloc / th_calloc / th_free, th_calloc zeroes, and NULL restores
 * the default allocator. */
START_TEST(test_hook_routes_calls) {
    install_counting();
    uint64_t before = th_alloc_count();
    void *a = th_alloc(100);
    unsigned char *b = th_calloc(37, 3);
    ck_assert(a && b);
    ck_assert_uint_eq((uintptr_t)a % 64, 0);
    ck_assert_uint_eq((uintptr_t)b % 64, 0);
    for (int i = 0; i < 37 * 3; i++) ck_assert_uint_eq(b[i], 0);
    ck_assert_uint_eq(hook_allocs(), 2);
    ck_assert_uint_eq(th_alloc_count() - before, 2);
    ck_assert_ptr_null(th_alloc(0));
    ck_assert_ptr_null(th_calloc(SIZE_MAX / 2, 3));
    ck_assert_uint_eq(th_alloc_count() - before, 2);
    th_free(a);
    th_free(b);
    th_free(NULL);
    assert_balanced();

    th_set_allocator(NULL);
    void *c = th_alloc(10);
    ck_assert_ptr_nonnull(c);
    ck_assert_uint_eq((uintptr_t)c % 64, 0);
    ck_assert_uint_eq(hook_allocs(), 2);
    th_free(c);
    ck_assert_uint_eq(atomic_load(&g_counting.frees), 2);
}
END_TEST

static Suite *alloc_suite(void) {
    Suite *s = suite_create("alloc");
    TCase *tc = tcase_create("no_alloc_in_step");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_flock_demo);
    tcase_add_test(tc, test_walled_two_crowds);
    tcase_add_test(tc, test_evac_with_events);
    tcase_add_test(tc, test_other_thread_counts);
    tcase_add_test(tc, test_growth_between_steps);
    tcase_add_test(tc, test_predator_index);
    suite_add_tcase(s, tc);

    tc = tcase_create("hook");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_no_leak_without_steps);
    tcase_add_test(tc, test_hook_routes_calls);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return th_test_run(alloc_suite()); }
