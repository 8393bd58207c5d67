#define _POSIX_C_SOURCE 200809L
#include "jobs.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <unistd.h>

#include "alloc.h"
#include "profile.h"

/* How long a thread polls before it sleeps on a condition variable. Phases of a step follow
 * each other within microseconds; a spin saves the futex round trip on each of them, and the
 * bound keeps an oversubscribed machine from burning whole time slices. Bounded by time, not
 * by a count of pause instructions: a pause takes 10 to 140 cycles depending on the CPU, and
 * 2000 of them were as little as 20 us on some, less than the wait for the slowest worker at
 * the end of a phase on 16 threads, so workers fell asleep between phases and every phase
 * then waited for the last one to wake (100k agents on 16 threads lost ~15 % to that). The
 * clock is read once per SPIN_BATCH pauses. A pool with more workers than cores spins for
 * SPIN_NS_SHARED only: there a spinning worker takes the core from one that has work. */
enum { SPIN_NS = 300000, SPIN_NS_SHARED = 20000, SPIN_BATCH = 64 };

/* Poll `done(arg)` for up to `limit_ns`; true when it became true. */
static inline bool spin_until(bool (*done)(const void *), const void *arg, uint64_t limit_ns);

struct th_pool {
    uint32_t workers;
    /* A host's task system instead of threads (th_pool_create_hosted), or NULL. */
    th_host_enqueue_fn *enqueue;
    th_host_finish_fn *finish;
    void *host_user;
    bool quit;
    uint64_t spin_ns; /* SPIN_NS, or SPIN_NS_SHARED when oversubscribed */
    pthread_t threads[TH_POOL_MAX_WORKERS];
    pthread_mutex_t mutex;
    pthread_cond_t wake; /* workers wait here for a new job */
    pthread_cond_t done; /* the owner waits here for the last worker */

    /* The current job: written by the owner before `generation` is bumped (release), read by
     * workers after they observe the bump (acquire). */
    th_job_fn *fn;
    void *ctx;
    uint32_t count, chunk, chunk_count;

    /* Optional tracer, set by the owner between jobs and so published with the job. */
    th_pool_trace_fn *trace;
    void *trace_user;

    /* Chunks are dealt in contiguous slices, one per worker, each with its own claim counter:
     * a worker gets the same agents in every phase (they stay in its cache from gather to
     * steer to integrate), and steals from the other slices once its own is done, so a
     * slower core does not hold the phase up. */
    struct {
        _Alignas(64) atomic_uint next;
        uint32_t end;
    } slice[TH_POOL_MAX_WORKERS];
    _Alignas(64) atomic_uint pending; /* threads still inside the current job */
    _Alignas(64) atomic_uint_fast64_t generation;
};

typedef struct worker_arg {
    th_pool *pool;
    uint32_t index;
} worker_arg;

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#else
    sched_yield();
#endif
}

static inline bool spin_until(bool (*done)(const void *), const void *arg, uint64_t limit_ns) {
    uint64_t start = 0;
    for (uint32_t i = 0;; i++) {
        if (done(arg)) return true;
        cpu_relax();
        if (i % SPIN_BATCH == SPIN_BATCH - 1) {
            uint64_t now = th_now_ns();
            if (!start) start = now;
            else if (now - start > limit_ns) return false;
        }
    }
}

typedef struct gen_wait {
    const th_pool *p;
    uint64_t seen;
} gen_wait;

static bool generation_moved(const void *arg) {
    const gen_wait *g = arg;
    return atomic_load_explicit(&g->p->generation, memory_order_acquire) != g->seen;
}

static bool none_pending(const void *arg) {
    const th_pool *p = arg;
    return atomic_load_explicit(&p->pending, memory_order_acquire) == 0;
}

static void run_chunk(th_pool *p, uint32_t c, uint32_t worker) {
    uint32_t begin = c * p->chunk;
    uint32_t end = p->count - begin < p->chunk ? p->count : begin + p->chunk;
    p->fn(p->ctx, begin, end, worker);
}

/* Claim chunks from the worker's own slice, then from the others in turn. */
static void claim_chunks(th_pool *p, uint32_t worker) {
    for (uint32_t i = 0; i < p->workers; i++) {
        uint32_t s = (worker + i) % p->workers;
        for (;;) {
            uint32_t c = atomic_fetch_add_explicit(&p->slice[s].next, 1, memory_order_relaxed);
            if (c >= p->slice[s].end) break;
            run_chunk(p, c, worker);
        }
    }
}

/* One worker's share of the current job, timed for the tracer when one is installed. The
 * timing sits here rather than in run_chunk so that a traced job reads the clock twice per
 * worker, not twice per chunk. */
static void run_chunks(th_pool *p, uint32_t worker) {
    th_pool_trace_fn *trace = p->trace;
    if (trace) {
        uint64_t t0 = th_now_ns();
        claim_chunks(p, worker);
        trace(p->trace_user, worker, t0, th_now_ns());
    } else {
        claim_chunks(p, worker);
    }
}

static void *worker_main(void *arg) {
    th_pool *p = ((worker_arg *)arg)->pool;
    uint32_t index = ((worker_arg *)arg)->index;
    th_free(arg);
    uint64_t seen = 0;
    for (;;) {
        gen_wait gw = {p, seen};
        uint64_t gen = seen;
        if (spin_until(generation_moved, &gw, p->spin_ns)) {
            gen = atomic_load_explicit(&p->generation, memory_order_acquire);
        } else {
            pthread_mutex_lock(&p->mutex);
            while ((gen = atomic_load_explicit(&p->generation, memory_order_acquire)) == seen &&
                   !p->quit) {
                pthread_cond_wait(&p->wake, &p->mutex);
            }
            bool quit = p->quit;
            pthread_mutex_unlock(&p->mutex);
            if (quit) return NULL;
        }
        seen = gen;
        run_chunks(p, index);
        if (atomic_fetch_sub_explicit(&p->pending, 1, memory_order_acq_rel) == 1) {
            pthread_mutex_lock(&p->mutex);
            pthread_cond_signal(&p->done);
            pthread_mutex_unlock(&p->mutex);
        }
    }
}

uint32_t th_cpu_count(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1u : (uint32_t)n;
}

th_pool *th_pool_create(uint32_t workers) {
    if (workers == 0) workers = th_cpu_count();
    if (workers > TH_POOL_MAX_WORKERS) workers = TH_POOL_MAX_WORKERS;
    th_pool *p = th_calloc(1, sizeof *p);
    if (!p) return NULL;
    p->workers = 1;
    p->spin_ns = workers > th_cpu_count() ? SPIN_NS_SHARED : SPIN_NS;
    pthread_mutex_init(&p->mutex, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->done, NULL);
    for (uint32_t i = 1; i < workers; i++) {
        worker_arg *a = th_alloc(sizeof *a);
        if (!a) break;
        a->pool = p;
        a->index = i;
        if (pthread_create(&p->threads[i], NULL, worker_main, a) != 0) {
            th_free(a);
            break;
        }
        p->workers++;
    }
    if (p->workers != workers) {
        th_pool_destroy(p);
        return NULL;
    }
    return p;
}

void th_pool_destroy(th_pool *p) {
    if (!p) return;
    if (p->enqueue) {
        th_free(p);
        return;
    }
    pthread_mutex_lock(&p->mutex);
    p->quit = true;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mutex);
    for (uint32_t i = 1; i < p->workers; i++) pthread_join(p->threads[i], NULL);
    pthread_cond_destroy(&p->done);
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->mutex);
    th_free(p);
}

uint32_t th_pool_workers(const th_pool *p) { return p->workers; }

void th_pool_set_tracer(th_pool *p, th_pool_trace_fn *fn, void *user) {
    p->trace = fn;
    p->trace_user = fn ? user : NULL;
}

th_pool *th_pool_create_hosted(uint32_t workers, th_host_enqueue_fn *enqueue,
                               th_host_finish_fn *finish, void *user) {
    if (!enqueue || !finish || workers < 1 || workers > TH_POOL_MAX_WORKERS) return NULL;
    th_pool *p = th_calloc(1, sizeof *p);
    if (!p) return NULL;
    p->workers = workers;
    p->enqueue = enqueue;
    p->finish = finish;
    p->host_user = user;
    return p;
}

/* The task a hosted pool hands over: chunks [begin, end) of the current job. Traced per call
 * (a host may call it several times per worker). */
static void host_task(uint32_t begin, uint32_t end, uint32_t worker, void *task_ctx) {
    th_pool *p = task_ctx;
    uint64_t t0 = p->trace ? th_now_ns() : 0;
    for (uint32_t c = begin; c < end && c < p->chunk_count; c++) run_chunk(p, c, worker);
    if (p->trace) p->trace(p->trace_user, worker, t0, th_now_ns());
}

void th_pool_parallel_for(th_pool *p, uint32_t count, uint32_t chunk, th_job_fn *fn, void *ctx) {
    if (count == 0) return;
    if (chunk == 0) chunk = 1;
    uint32_t chunk_count = count / chunk + (count % chunk != 0);
    if (p->enqueue) {
        p->fn = fn;
        p->ctx = ctx;
        p->count = count;
        p->chunk = chunk;
        p->chunk_count = chunk_count;
        void *handle = p->enqueue(host_task, chunk_count, 1, p, p->host_user);
        if (handle) p->finish(handle, p->host_user);
        return;
    }
    if (p->workers == 1 || chunk_count == 1) {
        uint64_t t0 = p->trace ? th_now_ns() : 0;
        /* Counted by chunk index: `begin += chunk` would wrap past 2^32 and start over. */
        for (uint32_t c = 0; c < chunk_count; c++) {
            uint32_t begin = c * chunk;
            fn(ctx, begin, count - begin < chunk ? count : begin + chunk, 0);
        }
        if (p->trace) p->trace(p->trace_user, 0, t0, th_now_ns());
        return;
    }
    p->fn = fn;
    p->ctx = ctx;
    p->count = count;
    p->chunk = chunk;
    p->chunk_count = chunk_count;
    for (uint32_t w = 0; w < p->workers; w++) {
        uint64_t first = (uint64_t)chunk_count * w / p->workers;
        p->slice[w].end = (uint32_t)((uint64_t)chunk_count * (w + 1) / p->workers);
        atomic_store_explicit(&p->slice[w].next, (uint32_t)first, memory_order_relaxed);
    }
    atomic_store_explicit(&p->pending, p->workers - 1, memory_order_relaxed);
    pthread_mutex_lock(&p->mutex);
    atomic_fetch_add_explicit(&p->generation, 1, memory_order_release);
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mutex);

    run_chunks(p, 0);

    if (spin_until(none_pending, p, p->spin_ns)) return;
    pthread_mutex_lock(&p->mutex);
    while (atomic_load_explicit(&p->pending, memory_order_acquire) != 0) {
        pthread_cond_wait(&p->done, &p->mutex);
    }
    pthread_mutex_unlock(&p->mutex);
}
