/* th_pool: the persistent job pool and its parallel_for.
 *
 * Every property is observed from the outside: per-item atomic counters for "each item runs
 * exactly once", the OS thread behind each worker index for "stable worker index", plain
 * (non-atomic) writes read back after return for "each call is a barrier" (ThreadSanitizer
 * reports a race if the barrier does not order them), the process's thread list for
 * "destroy joins every thread" and "one worker means no thread at all", and a worker held in a
 * signal handler, as a thread the scheduler keeps from its core, for "a call does not wait for
 * a worker that has nothing left to do", and helpers slow in every chunk for "the pool stops
 * waiting for workers that hold every job up". */
#include <check.h>
#include <dirent.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/jobs.h"
#include "test_util.h"

static void sleep_us(long us) {
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

/* Number of threads of this process, from /proc/self/task; -1 when it cannot be read. */
static int thread_count(void) {
    DIR *d = opendir("/proc/self/task");
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] != '.') n++;
    }
    closedir(d);
    return n;
}

/* Wait up to ~2 s for the thread count to reach `want`: a joined thread can linger in
 * /proc/self/task for a moment after pthread_join returns. Returns the last count seen. */
static int wait_thread_count(int want) {
    int n = thread_count();
    for (int i = 0; i < 2000 && n != want; i++) {
        sleep_us(1000);
        n = thread_count();
    }
    return n;
}

/* ---- exactly once, with chunk bookkeeping ---------------------------------------------- */

typedef struct once_ctx {
    atomic_uint *hits;      /* per item */
    atomic_uint calls;      /* callbacks made */
    atomic_uint bad_ranges; /* callbacks whose range is not one whole chunk */
    atomic_uint bad_worker; /* callbacks with worker >= workers */
    uint32_t count, chunk, workers;
    uint32_t *chunk_worker;  /* per chunk: worker index that ran it */
    pthread_t *chunk_thread; /* per chunk: OS thread that ran it */
} once_ctx;

static void once_job(void *p, uint32_t begin, uint32_t end, uint32_t worker) {
    once_ctx *c = p;
    atomic_fetch_add_explicit(&c->calls, 1, memory_order_relaxed);
    uint32_t chunk = c->chunk ? c->chunk : 1;
    /* Fixed-size chunks: [k * chunk, min((k + 1) * chunk, count)). */
    uint32_t want_end = c->count - begin < chunk ? c->count : begin + chunk;
    if (begin % chunk != 0 || end != want_end || begin >= end) {
        atomic_fetch_add_explicit(&c->bad_ranges, 1, memory_order_relaxed);
        return;
    }
    if (worker >= c->workers) atomic_fetch_add_explicit(&c->bad_worker, 1, memory_order_relaxed);
    uint32_t k = begin / chunk;
    c->chunk_worker[k] = worker;
    c->chunk_thread[k] = pthread_self();
    for (uint32_t i = begin; i < end; i++) {
        atomic_fetch_add_explicit(&c->hits[i], 1, memory_order_relaxed);
    }
}

/* Run one parallel_for and check every item ran once, every callback got one whole chunk, and
 * each worker index stood for exactly one OS thread (the caller for index 0). */
static void run_once_case(th_pool *pool, uint32_t count, uint32_t chunk) {
    uint32_t workers = th_pool_workers(pool);
    uint32_t eff = chunk ? chunk : 1;
    uint32_t chunks = count / eff + (count % eff != 0);
    once_ctx c = {.count = count, .chunk = chunk, .workers = workers};
    c.hits = calloc(count ? count : 1, sizeof *c.hits);
    c.chunk_worker = calloc(chunks ? chunks : 1, sizeof *c.chunk_worker);
    c.chunk_thread = calloc(chunks ? chunks : 1, sizeof *c.chunk_thread);
    ck_assert(c.hits && c.chunk_worker && c.chunk_thread);
    for (uint32_t i = 0; i < count; i++) atomic_init(&c.hits[i], 0);
    atomic_init(&c.calls, 0);
    atomic_init(&c.bad_ranges, 0);
    atomic_init(&c.bad_worker, 0);

    th_pool_parallel_for(pool, count, chunk, once_job, &c);

    const char *fmt = "workers %u count %u chunk %u: %s";
    ck_assert_msg(atomic_load(&c.bad_ranges) == 0, fmt, workers, count, chunk,
                  "a callback got a range that is not one whole chunk");
    ck_assert_msg(atomic_load(&c.calls) == chunks, fmt, workers, count, chunk,
                  "callbacks != chunks");
    ck_assert_msg(atomic_load(&c.bad_worker) == 0, fmt, workers, count, chunk,
                  "worker index out of range");
    for (uint32_t i = 0; i < count; i++) {
        unsigned h = atomic_load_explicit(&c.hits[i], memory_order_relaxed);
        CHECK_MSG(h == 1, "workers %u count %u chunk %u: item %u ran %u times", workers, count,
                  chunk, i, h);
    }
    /* Worker index <-> OS thread is one-to-one within the call. */
    pthread_t owner[TH_POOL_MAX_WORKERS];
    bool seen[TH_POOL_MAX_WORKERS] = {false};
    for (uint32_t k = 0; k < chunks; k++) {
        uint32_t wi = c.chunk_worker[k];
        if (!seen[wi]) {
            seen[wi] = true;
            owner[wi] = c.chunk_thread[k];
        }
        CHECK_MSG(pthread_equal(owner[wi], c.chunk_thread[k]), "worker index %u ran on two threads",
                  wi);
    }
    for (uint32_t a = 0; a < workers; a++) {
        for (uint32_t b = a + 1; b < workers; b++) {
            if (seen[a] && seen[b]) {
                CHECK_MSG(!pthread_equal(owner[a], owner[b]),
                          "worker indices %u and %u ran on one thread", a, b);
            }
        }
    }
    if (seen[0])
        ck_assert_msg(pthread_equal(owner[0], pthread_self()),
                      "worker 0 is not the calling thread");
    for (uint32_t wi = 1; wi < workers; wi++) {
        if (seen[wi])
            ck_assert_msg(!pthread_equal(owner[wi], pthread_self()),
                          "worker %u ran on the calling thread", wi);
    }
    free(c.hits);
    free(c.chunk_worker);
    free(c.chunk_thread);
}

static const uint32_t k_pool_sizes[] = {1, 2, 3, 8};
static const uint32_t k_counts[] = {0, 1, 7, 1000, 100003};
/* Chunk counts fall below, at and above every pool size; 0 is taken as 1. */
static const uint32_t k_chunks[] = {0, 1, 3, 7, 8, 64, 125, 1000, 4096, 100003, 200000};

START_TEST(test_every_chunk_once) {
    uint32_t workers = k_pool_sizes[_i];
    th_pool *pool = th_pool_create(workers);
    ck_assert_ptr_nonnull(pool);
    ck_assert_uint_eq(th_pool_workers(pool), workers);
    for (size_t n = 0; n < sizeof k_counts / sizeof k_counts[0]; n++) {
        for (size_t c = 0; c < sizeof k_chunks / sizeof k_chunks[0]; c++) {
            run_once_case(pool, k_counts[n], k_chunks[c]);
        }
    }
    /* Chunk count exactly equal to, one below and one above the worker count. */
    for (int d = -1; d <= 1; d++) {
        uint32_t chunks = workers + (uint32_t)d;
        if (chunks == 0) continue;
        run_once_case(pool, chunks * 10, 10);
        run_once_case(pool, chunks * 10 - 3, 10);
    }
    th_pool_destroy(pool);
}
END_TEST

/* ---- stable worker index as a scratch slot ---------------------------------------------- */

typedef struct scratch_ctx {
    /* One padded slot per worker, updated without atomics: correct only if no two threads
     * ever share an index at the same time. */
    struct {
        uint64_t sum;
        uint64_t items;
        char pad[48];
    } slot[TH_POOL_MAX_WORKERS];
    const uint32_t *values;
} scratch_ctx;

static void scratch_job(void *p, uint32_t begin, uint32_t end, uint32_t worker) {
    scratch_ctx *c = p;
    for (uint32_t i = begin; i < end; i++) {
        /* Read-modify-write spread over the chunk, so overlapping users of a slot lose
         * updates. */
        uint64_t s = c->slot[worker].sum;
        s += c->values[i];
        c->slot[worker].sum = s;
        c->slot[worker].items++;
    }
}

START_TEST(test_worker_index_as_scratch) {
    const uint32_t n = 200000;
    uint32_t *values = malloc(n * sizeof *values);
    ck_assert_ptr_nonnull(values);
    uint64_t seed = 42, expect = 0;
    for (uint32_t i = 0; i < n; i++) {
        values[i] = (uint32_t)(splitmix64(&seed) >> 40);
        expect += values[i];
    }
    for (size_t p = 0; p < sizeof k_pool_sizes / sizeof k_pool_sizes[0]; p++) {
        th_pool *pool = th_pool_create(k_pool_sizes[p]);
        ck_assert_ptr_nonnull(pool);
        for (int rep = 0; rep < 20; rep++) {
            scratch_ctx *c = calloc(1, sizeof *c);
            ck_assert_ptr_nonnull(c);
            c->values = values;
            th_pool_parallel_for(pool, n, 97, scratch_job, c);
            uint64_t sum = 0, items = 0;
            for (uint32_t w = 0; w < TH_POOL_MAX_WORKERS; w++) {
                if (w >= th_pool_workers(pool)) { CHECK(c->slot[w].items == 0); }
                sum += c->slot[w].sum;
                items += c->slot[w].items;
            }
            CHECK_MSG(items == n, "%u workers: %llu items", k_pool_sizes[p],
                      (unsigned long long)items);
            CHECK(sum == expect);
            free(c);
        }
        th_pool_destroy(pool);
    }
    free(values);
}
END_TEST

/* ---- barrier --------------------------------------------------------------------------- */

typedef struct barrier_ctx {
    uint32_t n;
    uint64_t gen;
    uint64_t *a; /* written by phase 1 */
    uint64_t *b; /* written by phase 2 from a */
    pthread_t caller;
} barrier_ctx;

static uint64_t mix_index(uint64_t i, uint64_t n) { return (i * 7919u + 13u) % n; }

static void phase1_job(void *p, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    barrier_ctx *c = p;
    /* A chunk run by a helper thread dawdles, so an early return of the owner would be seen. */
    if (begin == 0 && !pthread_equal(pthread_self(), c->caller)) sleep_us(200);
    for (uint32_t i = begin; i < end; i++) c->a[i] = c->gen * 1000003u + i;
}

static void phase2_job(void *p, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    barrier_ctx *c = p;
    for (uint32_t i = begin; i < end; i++) {
        /* Read an item far away, most likely written by another chunk and thread. */
        c->b[i] = c->a[mix_index(i, c->n)] + 1;
    }
}

START_TEST(test_each_call_is_a_barrier) {
    uint32_t workers = k_pool_sizes[_i];
    th_pool *pool = th_pool_create(workers);
    ck_assert_ptr_nonnull(pool);
    barrier_ctx c = {.n = 20011, .caller = pthread_self()};
    c.a = calloc(c.n, sizeof *c.a);
    c.b = calloc(c.n, sizeof *c.b);
    ck_assert(c.a && c.b);
    for (uint64_t gen = 1; gen <= 150; gen++) {
        c.gen = gen;
        th_pool_parallel_for(pool, c.n, 256, phase1_job, &c);
        for (uint32_t i = 0; i < c.n; i++) {
            CHECK_MSG(c.a[i] == gen * 1000003u + i, "gen %llu: a[%u] not visible after return",
                      (unsigned long long)gen, i);
        }
        th_pool_parallel_for(pool, c.n, 256, phase2_job, &c);
        for (uint32_t i = 0; i < c.n; i++) {
            uint64_t want = gen * 1000003u + mix_index(i, c.n) + 1;
            CHECK_MSG(c.b[i] == want, "gen %llu: b[%u] saw a stale a", (unsigned long long)gen, i);
        }
    }
    free(c.a);
    free(c.b);
    th_pool_destroy(pool);
}
END_TEST

/* ---- single worker --------------------------------------------------------------------- */

START_TEST(test_one_worker_runs_inline) {
    int before = thread_count();
    th_pool *pool = th_pool_create(1);
    ck_assert_ptr_nonnull(pool);
    ck_assert_uint_eq(th_pool_workers(pool), 1);
    if (before > 0) ck_assert_int_eq(thread_count(), before);
    const uint32_t count = 5000, chunk = 7;
    uint32_t chunks = count / chunk + 1;
    once_ctx c = {.count = count, .chunk = chunk, .workers = 1};
    c.hits = calloc(count, sizeof *c.hits);
    c.chunk_worker = calloc(chunks, sizeof *c.chunk_worker);
    c.chunk_thread = calloc(chunks, sizeof *c.chunk_thread);
    ck_assert(c.hits && c.chunk_worker && c.chunk_thread);
    th_pool_parallel_for(pool, count, chunk, once_job, &c);
    ck_assert_uint_eq(atomic_load(&c.calls), chunks);
    for (uint32_t k = 0; k < chunks; k++) {
        CHECK(c.chunk_worker[k] == 0);
        CHECK_MSG(pthread_equal(c.chunk_thread[k], pthread_self()),
                  "chunk %u ran off the calling thread", k);
    }
    if (before > 0) ck_assert_int_eq(thread_count(), before);
    free(c.hits);
    free(c.chunk_worker);
    free(c.chunk_thread);
    th_pool_destroy(pool);
}
END_TEST

/* ---- lifetime -------------------------------------------------------------------------- */

typedef struct sum_ctx {
    atomic_uint_fast64_t sum;
} sum_ctx;

static void sum_job(void *p, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    sum_ctx *c = p;
    uint64_t s = 0;
    for (uint32_t i = begin; i < end; i++) s += i;
    atomic_fetch_add_explicit(&c->sum, s, memory_order_relaxed);
}

START_TEST(test_create_destroy_many) {
    /* A first pool lets any lazily started runtime thread (sanitizers) appear before the
     * baseline is taken. */
    th_pool_destroy(th_pool_create(2));
    int base = wait_thread_count(thread_count());
    for (int i = 0; i < 200; i++) {
        uint32_t workers = 1 + (uint32_t)i % 8;
        th_pool *pool = th_pool_create(workers);
        ck_assert_ptr_nonnull(pool);
        ck_assert_uint_eq(th_pool_workers(pool), workers);
        /* Some pools are destroyed before their threads ever got work (maybe before they even
         * started running); the others run a few jobs first. */
        if (i % 3 != 0) {
            uint32_t n = 1000 + (uint32_t)i * 37;
            for (int rep = 0; rep < 3; rep++) {
                sum_ctx c;
                atomic_init(&c.sum, 0);
                th_pool_parallel_for(pool, n, 16, sum_job, &c);
                CHECK(atomic_load(&c.sum) == (uint64_t)n * (n - 1) / 2);
            }
        }
        th_pool_destroy(pool);
        if (base > 0 && i % 20 == 0) {
            int now = wait_thread_count(base);
            ck_assert_msg(now == base, "after destroying pool %d: %d threads, %d before", i, now,
                          base);
        }
    }
    if (base > 0) ck_assert_int_eq(wait_thread_count(base), base);
}
END_TEST

START_TEST(test_worker_count_bounds) {
    th_pool *pool = th_pool_create(0);
    ck_assert_ptr_nonnull(pool);
    uint32_t cores = th_cpu_count();
    ck_assert_uint_ge(cores, 1);
    ck_assert_uint_eq(th_pool_workers(pool),
                      cores < TH_POOL_MAX_WORKERS ? cores : TH_POOL_MAX_WORKERS);
    th_pool_destroy(pool);

    pool = th_pool_create(TH_POOL_MAX_WORKERS + 100);
    ck_assert_ptr_nonnull(pool);
    ck_assert_uint_eq(th_pool_workers(pool), TH_POOL_MAX_WORKERS);
    run_once_case(pool, 10007, 3);
    th_pool_destroy(pool);

    th_pool_destroy(NULL);
}
END_TEST

/* ---- ranges at the top of uint32 -------------------------------------------------------- */

typedef struct edge_ctx {
    uint32_t count, chunk;
    atomic_uint calls;
    atomic_uint_fast64_t covered;
} edge_ctx;

static void edge_job(void *p, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    edge_ctx *c = p;
    unsigned k = atomic_fetch_add(&c->calls, 1);
    /* A chunk index that wrapped past 2^32 shows up as a repeated or overlong run of calls;
     * stop it here rather than spin forever. */
    uint32_t chunks = c->count / c->chunk + (c->count % c->chunk != 0);
    if (k >= chunks)
        ck_abort_msg("count %u chunk %u: more than %u callbacks (range wrapped)", c->count,
                     c->chunk, chunks);
    if (begin >= end || end > c->count) ck_abort_msg("bad range [%u, %u)", begin, end);
    atomic_fetch_add(&c->covered, (uint64_t)(end - begin));
}

/* Counts near UINT32_MAX whose last chunk ends past 2^32 when rounded up to whole chunks:
 * the chunk arithmetic must not overflow. */
START_TEST(test_ranges_near_uint32_max) {
    static const uint32_t cases[][2] = {
        {UINT32_MAX, 0x80000000u},
        {UINT32_MAX, 0xFFFFFFFFu},
        {UINT32_MAX - 5, 0x10000000u},
        {0xF0000001u, 0x10000000u},
    };
    for (size_t p = 0; p < 2; p++) {
        th_pool *pool = th_pool_create(p == 0 ? 1 : 3);
        ck_assert_ptr_nonnull(pool);
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            edge_ctx c = {.count = cases[i][0], .chunk = cases[i][1]};
            atomic_init(&c.calls, 0);
            atomic_init(&c.covered, 0);
            th_pool_parallel_for(pool, c.count, c.chunk, edge_job, &c);
            ck_assert_msg(atomic_load(&c.covered) == c.count, "%u workers: count %u chunk %u",
                          th_pool_workers(pool), c.count, c.chunk);
        }
        th_pool_destroy(pool);
    }
}
END_TEST

/* ---- a worker kept from its core --------------------------------------------------------- */

/* Worker 1 is held in a signal handler, as a thread that other processes keep from its core
 * would be: a parallel_for must not wait for it once worker 0 has run every chunk, and worker 1
 * must do no harm when it looks in late. */
static sem_t g_release;
static atomic_bool g_held;

static void hold_here(int sig) {
    (void)sig;
    atomic_store(&g_held, true);
    while (sem_wait(&g_release) != 0) {}
}

typedef struct away_ctx {
    atomic_bool worker1_ran;
    pthread_t worker1;
    atomic_uint hits[64];
    atomic_uint on_worker1;
} away_ctx;

/* Two chunks: worker 0 waits in its own until worker 1 has run the other, so worker 1 is known
 * to have come this far (left every earlier job). */
static void meet_job(void *p, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)begin;
    (void)end;
    away_ctx *c = p;
    if (worker == 1) {
        c->worker1 = pthread_self();
        atomic_store(&c->worker1_ran, true);
    } else {
        while (!atomic_load(&c->worker1_ran)) sleep_us(100);
    }
}

static void count_job(void *p, uint32_t begin, uint32_t end, uint32_t worker) {
    away_ctx *c = p;
    for (uint32_t i = begin; i < end; i++) atomic_fetch_add(&c->hits[i], 1);
    if (worker != 0) atomic_fetch_add(&c->on_worker1, 1);
}

START_TEST(test_no_wait_for_a_worker_away) {
    th_pool *pool = th_pool_create(2);
    ck_assert_ptr_nonnull(pool);
    ck_assert_int_eq(sem_init(&g_release, 0, 0), 0);
    struct sigaction sa = {0};
    sa.sa_handler = hold_here;
    sigemptyset(&sa.sa_mask);
    ck_assert_int_eq(sigaction(SIGUSR1, &sa, NULL), 0);
    static away_ctx c;
    atomic_store(&c.worker1_ran, false);
    th_pool_parallel_for(pool, 2, 1, meet_job, &c);
    ck_assert(atomic_load(&c.worker1_ran));
    atomic_store(&g_held, false);
    ck_assert_int_eq(pthread_kill(c.worker1, SIGUSR1), 0);
    while (!atomic_load(&g_held)) sleep_us(100);
    /* Worker 1 is away: the next call returns with every chunk run by worker 0 (before, it
     * waited for worker 1 to look in, and would never have returned). Only the next: worker 1
     * may be held while still inside the slot of the job it met in (ThreadSanitizer delivers a
     * signal at the next call it intercepts, such as the lock taken after the job's last
     * chunk), and the call after next reuses that slot once nobody is inside it. */
    th_pool_parallel_for(pool, 64, 4, count_job, &c);
    for (uint32_t i = 0; i < 64; i++) ck_assert_uint_eq(atomic_load(&c.hits[i]), 1);
    ck_assert_uint_eq(atomic_load(&c.on_worker1), 0);
    /* Back: it looks into the jobs it missed late, and takes part in the next ones. */
    ck_assert_int_eq(sem_post(&g_release), 0);
    for (int round = 0; round < 200; round++) {
        for (uint32_t i = 0; i < 64; i++) atomic_store(&c.hits[i], 0);
        th_pool_parallel_for(pool, 64, 1, count_job, &c);
        for (uint32_t i = 0; i < 64; i++) ck_assert_uint_eq(atomic_load(&c.hits[i]), 1);
    }
    th_pool_destroy(pool);
    sem_destroy(&g_release);
}
END_TEST

/* ---- a worker that holds every job up --------------------------------------------------- */

/* Each chunk a helper (a worker other than 0) runs takes 2 ms, as if other programs kept it from
 * its core in the middle of every chunk; worker 0's take no time. Waiting for helpers makes each
 * job 2 ms long where worker 0 alone would run it in microseconds: the pool must stop waiting
 * for them, and every item must still run exactly once. A pool of 2 learns to run alone (it
 * measures both ways); a larger one rests each late helper for longer each time it is late. */
typedef struct late_ctx {
    atomic_uint hits[64];
    atomic_uint on_helpers;
} late_ctx;

static void late_job(void *p, uint32_t begin, uint32_t end, uint32_t worker) {
    late_ctx *c = p;
    if (worker != 0) {
        atomic_fetch_add(&c->on_helpers, 1);
        sleep_us(2000);
    }
    for (uint32_t i = begin; i < end; i++) atomic_fetch_add(&c->hits[i], 1);
}

START_TEST(test_late_worker_not_waited_for) {
    const uint32_t workers = _i == 0 ? 2 : 6;
    th_pool *pool = th_pool_create(workers);
    ck_assert_ptr_nonnull(pool);
    static late_ctx c;
    const int jobs = 600, judged = 200;
    int with_helpers = 0;
    for (int job = 0; job < jobs; job++) {
        for (uint32_t i = 0; i < 64; i++) atomic_store(&c.hits[i], 0);
        atomic_store(&c.on_helpers, 0);
        th_pool_parallel_for(pool, 64, 1, late_job, &c);
        for (uint32_t i = 0; i < 64; i++) ck_assert_uint_eq(atomic_load(&c.hits[i]), 1);
        if (job >= jobs - judged) with_helpers += atomic_load(&c.on_helpers) > 0;
    }
    /* Trials and rests come twice as far apart each time they confirm a late helper (from 16
     * jobs): after the first few hundred jobs, a few of 200 jobs wait for helpers at most. */
    CHECK_MSG(with_helpers <= judged / 10, "%u workers: helpers held up %d of the last %d jobs",
              workers, with_helpers, judged);
    if (workers == 2) CHECK(th_pool_alone_jobs(pool) >= (uint64_t)judged);
    else CHECK(th_pool_rested_jobs(pool) >= (uint64_t)(jobs - judged));
    th_pool_destroy(pool);
}
END_TEST

static Suite *jobs_suite(void) {
    Suite *s = suite_create("jobs");
    const int pools = (int)(sizeof k_pool_sizes / sizeof k_pool_sizes[0]);

    TCase *tc = tcase_create("exactly_once");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, test_every_chunk_once, 0, pools);
    tcase_add_test(tc, test_worker_count_bounds);
    tcase_add_test(tc, test_ranges_near_uint32_max);
    suite_add_tcase(s, tc);

    tc = tcase_create("worker_index");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_worker_index_as_scratch);
    tcase_add_test(tc, test_one_worker_runs_inline);
    suite_add_tcase(s, tc);

    tc = tcase_create("barrier");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, test_each_call_is_a_barrier, 0, pools);
    suite_add_tcase(s, tc);

    tc = tcase_create("away");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_no_wait_for_a_worker_away);
    tcase_add_loop_test(tc, test_late_worker_not_waited_for, 0, 2);
    suite_add_tcase(s, tc);

    tc = tcase_create("lifetime");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_create_destroy_many);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return th_test_run(jobs_suite()); }
