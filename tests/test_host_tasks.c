/* A host's own task system in place of the built-in pool (th_world_def.enqueue_task): every
 * library scene gives the same state hash on the built-in pool and on two hosts written here,
 * one that runs each task inline in a scrambled order of ranges of random sizes, one that runs
 * the ranges on threads of its own and returns a handle to finish. The hosts also check the
 * contract they are given: ranges covering every item once, worker indices below `threads`
 * and never shared by two calls at once. */
#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "throng/throng.h"
#include "test_util.h"

#ifndef THRONG_SCENES_DIR
#error "THRONG_SCENES_DIR must name the scene library"
#endif

enum { WORKERS = 3, MAX_ITEMS = 1 << 16 };

typedef struct host {
    uint32_t calls; /* enqueue calls */
    uint64_t rng;   /* xorshift state for the serial host's splits */
    bool bad;       /* a contract check failed */
    char why[160];
    atomic_int busy[WORKERS]; /* calls running under each worker index */
    uint8_t seen[MAX_ITEMS];  /* times each item was run in the current task */
} host;

static uint32_t next_rand(host *h) {
    h->rng ^= h->rng << 13;
    h->rng ^= h->rng >> 7;
    h->rng ^= h->rng << 17;
    return (uint32_t)h->rng;
}

static void fail_host(host *h, const char *why) {
    if (!h->bad) snprintf(h->why, sizeof h->why, "%s", why);
    h->bad = true;
}

/* Run one range under `worker`, checking that no other call holds that index meanwhile. */
static void run_range(host *h, th_task_fn *task, uint32_t b, uint32_t e, uint32_t worker,
                      void *ctx) {
    if (worker >= WORKERS) fail_host(h, "worker index out of range");
    if (atomic_fetch_add(&h->busy[worker], 1) != 0) fail_host(h, "worker index shared");
    for (uint32_t i = b; i < e && i < MAX_ITEMS; i++) h->seen[i]++;
    task(b, e, worker, ctx);
    atomic_fetch_sub(&h->busy[worker], 1);
}

static void check_cover(host *h, uint32_t items) {
    for (uint32_t i = 0; i < items && i < MAX_ITEMS; i++) {
        if (h->seen[i] != 1) fail_host(h, "an item was not run exactly once");
    }
}

/* The serial host: ranges of 1..5 items (at least min_range), run from the last to the first,
 * worker indices taken in turn; the task is done when enqueue returns (NULL). */
static void *serial_enqueue(th_task_fn *task, uint32_t items, uint32_t min_range, void *ctx,
                            void *user) {
    host *h = user;
    h->calls++;
    memset(h->seen, 0, items < MAX_ITEMS ? items : MAX_ITEMS);
    uint32_t n = 0, at = 0;
    uint32_t *starts = malloc((items + 1) * sizeof *starts);
    if (!starts) {
        fail_host(h, "out of memory");
        return NULL;
    }
    while (at < items) {
        starts[n++] = at;
        uint32_t len = min_range + next_rand(h) % 5;
        at = items - at < len ? items : at + len;
    }
    starts[n] = items;
    for (uint32_t k = n; k-- > 0;) run_range(h, task, starts[k], starts[k + 1], k % WORKERS, ctx);
    free(starts);
    check_cover(h, items);
    return NULL;
}

static void serial_finish(void *handle, void *user) {
    (void)handle;
    fail_host(user, "finish called for a task that ran inline");
}

/* The threaded host: WORKERS threads per task, each one contiguous share of the items. */
typedef struct job job;
typedef struct share {
    job *j;
    uint32_t worker;
} share;

struct job {
    host *h;
    th_task_fn *task;
    void *ctx;
    uint32_t items;
    pthread_t thread[WORKERS];
    bool started[WORKERS];
    uint32_t begin[WORKERS], end[WORKERS];
    share shares[WORKERS];
};

static void *share_main(void *arg) {
    share *s = arg;
    job *j = s->j;
    run_range(j->h, j->task, j->begin[s->worker], j->end[s->worker], s->worker, j->ctx);
    return NULL;
}

static void *threaded_enqueue(th_task_fn *task, uint32_t items, uint32_t min_range, void *ctx,
                              void *user) {
    host *h = user;
    (void)min_range;
    h->calls++;
    memset(h->seen, 0, items < MAX_ITEMS ? items : MAX_ITEMS);
    job *j = calloc(1, sizeof *j);
    if (!j) {
        fail_host(h, "out of memory");
        return NULL;
    }
    *j = (job){.h = h, .task = task, .ctx = ctx, .items = items};
    for (uint32_t w = 0; w < WORKERS; w++) {
        j->begin[w] = (uint32_t)((uint64_t)items * w / WORKERS);
        j->end[w] = (uint32_t)((uint64_t)items * (w + 1) / WORKERS);
        j->shares[w] = (share){j, w};
        j->started[w] = pthread_create(&j->thread[w], NULL, share_main, &j->shares[w]) == 0;
        if (!j->started[w]) fail_host(h, "pthread_create");
    }
    return j;
}

static void threaded_finish(void *handle, void *user) {
    job *j = handle;
    (void)user;
    for (uint32_t w = 0; w < WORKERS; w++) {
        if (j->started[w]) pthread_join(j->thread[w], NULL);
    }
    check_cover(j->h, j->items);
    free(j);
}

static uint64_t run_scene(const char *path, th_enqueue_task_fn *enq, th_finish_task_fn *fin,
                          host *h) {
    th_scene_opts o = {.threads = WORKERS, .enqueue_task = enq, .finish_task = fin, .task_user = h};
    th_world *w = th_test_load(path, o, 1200, NULL); /* big scenes scaled down */
    ck_assert_uint_eq(th_world_get_def(w).threads, WORKERS);
    th_world_set_validation(w, true);
    for (int s = 0; s < th_test_steps(30); s++) th_world_step(w);
    ck_assert_msg(th_world_validation_error(w) == NULL, "%s: %s", path,
                  th_world_validation_error(w));
    uint64_t hash = th_world_hash(w);
    th_world_destroy(w);
    return hash;
}

START_TEST(every_scene_same_hash_on_a_host_scheduler) {
    static th_test_path scenes[TH_TEST_MAX_SCENES];
    const uint32_t n = th_test_scenes(THRONG_SCENES_DIR, scenes);
    for (uint32_t i = 0; i < n; i++) {
        const char *path = scenes[i];
        host *serial = calloc(1, sizeof *serial), *threaded = calloc(1, sizeof *threaded);
        ck_assert(serial && threaded);
        serial->rng = 0x9e3779b97f4a7c15ull;
        uint64_t pool = run_scene(path, NULL, NULL, NULL);
        uint64_t a = run_scene(path, serial_enqueue, serial_finish, serial);
        uint64_t b = run_scene(path, threaded_enqueue, threaded_finish, threaded);
        ck_assert_msg(!serial->bad, "%s: serial host: %s", path, serial->why);
        ck_assert_msg(!threaded->bad, "%s: threaded host: %s", path, threaded->why);
        /* More than a task a step: the hosts ran the step's phases. */
        const uint32_t steps = (uint32_t)th_test_steps(30);
        ck_assert_msg(serial->calls > steps && threaded->calls > steps,
                      "%s: the hosts ran %u and %u tasks", path, serial->calls, threaded->calls);
        ck_assert_msg(a == pool && b == pool,
                      "%s: hash %016llx on the pool, %016llx serial host, "
                      "%016llx threaded host",
                      path, (unsigned long long)pool, (unsigned long long)a, (unsigned long long)b);
        free(serial);
        free(threaded);
    }
    ck_assert_uint_ge(n, 5);
}
END_TEST

START_TEST(host_callbacks_are_checked) {
    th_error err;
    th_world_def wd = th_default_world_def();
    wd.enqueue_task = serial_enqueue; /* finish missing */
    ck_assert_ptr_null(th_world_create(&wd, &err));
    TH_TEST_ERR(err, TH_ERR_INVALID);
    ck_assert(strstr(err.message, "finish_task") != NULL);
    wd.finish_task = serial_finish;
    wd.threads = 0; /* the host must say how many worker indices it uses */
    ck_assert_ptr_null(th_world_create(&wd, &err));
    TH_TEST_ERR(err, TH_ERR_INVALID);
}
END_TEST

/* ---- calls from inside a step -------------------------------------------------------- */

typedef struct meddler {
    th_world *w;
    int hooks;          /* times the assert hook was called */
    int refused;        /* calls from inside the step that failed with an error */
    char expected[128]; /* what the first hook call said was expected */
} meddler;

static meddler g_meddler;

static void record_hook(const char *expected, const char *file, int line, void *user) {
    (void)file;
    (void)line;
    meddler *m = user;
    if (m->hooks++ == 0) snprintf(m->expected, sizeof m->expected, "%s", expected);
}

/* A host that, while running a task of the step, calls back into the world as a careless
 * engine might: adds an agent, schedules an event, steps it again. */
static void *meddling_enqueue(th_task_fn *task, uint32_t items, uint32_t min_range, void *ctx,
                              void *user) {
    (void)min_range;
    meddler *m = user;
    if (m->w) {
        th_error err = {0};
        if (!th_agent_id_valid(
                th_world_add_agent(m->w, CROWD_ID(0), th_v2(5, 5), th_v2(0, 0), &err)) &&
            err.code == TH_ERR_STATE)
            m->refused++;
        if (!th_world_remove_agent(m->w, th_test_id(0), &err)) m->refused++;
        th_world_step(m->w); /* refused: nothing happens */
    }
    task(0, items, 0, ctx);
    return NULL;
}

START_TEST(calls_from_inside_a_step_are_refused) {
    memset(&g_meddler, 0, sizeof g_meddler);
    th_set_assert_hook(record_hook, &g_meddler);
    th_error err;
    th_world_def wd = th_default_world_def();
    wd.threads = 1;
    wd.enqueue_task = meddling_enqueue;
    wd.finish_task = serial_finish;
    wd.task_user = &g_meddler;
    th_world *w = th_world_create(&wd, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    th_crowd_def cd = th_default_crowd_def();
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), 0);
    for (int i = 0; i < 50; i++) {
        ck_assert(th_agent_id_valid(th_world_add_agent(
            w, CROWD_ID(0), th_v2(10.0f + (float)(i % 10), 10.0f + (float)(i / 10)), th_v2(1, 0),
            &err)));
    }
    /* Between steps every call works and no hook is heard. */
    ck_assert_int_eq(g_meddler.hooks, 0);
    g_meddler.w = w;
    th_world_step(w);
    g_meddler.w = NULL;
    ck_assert_int_gt(g_meddler.hooks, 0);
    ck_assert_int_gt(g_meddler.refused, 0);
    ck_assert_msg(strstr(g_meddler.expected, "stepping") != NULL, "hook said: %s",
                  g_meddler.expected);
    /* The world is as if nobody had meddled: one step, the same agents. */
    ck_assert_uint_eq(th_world_step_count(w), 1);
    ck_assert_uint_eq(th_world_agent_count(w), 50);
    ck_assert_uint_eq(th_world_get_stats(w).removed, 0);
    th_world_destroy(w);
    th_set_assert_hook(NULL, NULL);
}
END_TEST

int main(void) {
    Suite *s = suite_create("host_tasks");
    TCase *tc = tcase_create("host");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, every_scene_same_hash_on_a_host_scheduler);
    tcase_add_test(tc, host_callbacks_are_checked);
    if (!TH_TEST_TSAN) tcase_add_test(tc, calls_from_inside_a_step_are_refused); /* one thread */
    suite_add_tcase(s, tc);
    return th_test_run(s);
}
