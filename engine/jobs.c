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

/* Cores that other programs hold: a worker they keep from its core for a time slice (a
 * millisecond or more) makes the owner wait for the chunk it was running far longer than a
 * chunk takes. After such a wait (longer than CONTENDED_NS and than CONTENDED_CHUNKS of the
 * owner's own chunks) the pool spins for SPIN_NS_SHARED only, so that waiting threads give
 * their cores back to the one with work; after CALM_JOBS jobs without one it spins as before. */
enum { CONTENDED_NS = 500000, CONTENDED_CHUNKS = 4, CALM_JOBS = 256 };

/* Poll `done(arg)` for up to `limit_ns`; true when it became true. */
static inline bool spin_until(bool (*done)(const void *), const void *arg, uint64_t limit_ns);

/* Jobs alternate between two slots, by the parity of their generation. The owner writes a job
 * into its slot and bumps the pool's generation (release); a worker that sees the bump checks in
 * (`active`), makes sure the slot still holds that job (`tag`), and claims chunks. A job is over
 * when all its chunks have run (`done`), not when every worker has looked in: on a machine whose
 * cores other processes hold, a worker can wait milliseconds for a time slice, and the owner,
 * having run its own chunks and taken the rest, need not wait for one that has nothing left to
 * do. Such a worker may look in late; the owner rewrites a slot only after closing it (tag 0)
 * and seeing nobody inside, two jobs later. */
typedef struct job {
    _Alignas(64) atomic_uint_fast64_t tag; /* the generation the slot holds; 0: closed */
    atomic_uint active;                    /* workers inside the slot */
    _Alignas(64) atomic_uint done;         /* chunks run */
    th_job_fn *fn;
    void *ctx;
    uint32_t count, chunk, chunk_count;
    /* The tracer, set by the owner between jobs and so published with the job. */
    th_pool_trace_fn *trace;
    void *trace_user;
    /* Chunks are dealt in contiguous slices, one per worker, each with its own claim counter:
     * a worker gets the same agents in every phase (they stay in its cache from gather to
     * steer to integrate), and steals from the other slices once its own is done, so a slower
     * core, or one that another process holds, does not hold the phase up. */
    struct {
        _Alignas(64) atomic_uint next;
        uint32_t end;
    } slice[TH_POOL_MAX_WORKERS];
} job;

/* What a worker thread is started with: its pool and index (kept in the pool, so a thread
 * that starts late frees nothing behind the owner's back). */
typedef struct worker_arg {
    struct th_pool *pool;
    uint32_t index;
} worker_arg;

struct th_pool {
    uint32_t workers;
    worker_arg arg[TH_POOL_MAX_WORKERS];
    /* A host's task system instead of threads (th_pool_create_hosted), or NULL. */
    th_host_enqueue_fn *enqueue;
    th_host_finish_fn *finish;
    void *host_user;
    bool quit;
    uint64_t spin_base;       /* SPIN_NS, or SPIN_NS_SHARED when oversubscribed */
    _Atomic uint64_t spin_ns; /* spin_base, or SPIN_NS_SHARED while cores are contended */
    uint32_t calm;            /* jobs since the last contended wait (the owner's) */
    pthread_t threads[TH_POOL_MAX_WORKERS];
    pthread_mutex_t mutex;
    pthread_cond_t wake;     /* workers wait here for a new job */
    pthread_cond_t done;     /* the owner waits here for the last chunk */
    th_pool_trace_fn *trace; /* the tracer of the jobs to come */
    void *trace_user;
    job job[2]; /* a hosted pool (th_pool_create_hosted) uses job[0]'s fn, ctx and chunks */
    _Alignas(64) atomic_uint_fast64_t generation;
};

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

static bool all_done(const void *arg) {
    const job *j = arg;
    return atomic_load_explicit(&j->done, memory_order_acquire) == j->chunk_count;
}

static bool nobody_inside(const void *arg) {
    const job *j = arg;
    return atomic_load_explicit(&j->active, memory_order_seq_cst) == 0;
}

static void run_chunk(const job *j, uint32_t c, uint32_t worker) {
    uint32_t begin = c * j->chunk;
    uint32_t end = j->count - begin < j->chunk ? j->count : begin + j->chunk;
    j->fn(j->ctx, begin, end, worker);
}

/* Claim chunks from the worker's own slice, then from the others in turn; how many it ran. */
static uint32_t claim_chunks(job *j, uint32_t workers, uint32_t worker) {
    uint32_t ran = 0;
    for (uint32_t i = 0; i < workers; i++) {
        uint32_t s = (worker + i) % workers;
        for (;;) {
            uint32_t c = atomic_fetch_add_explicit(&j->slice[s].next, 1, memory_order_relaxed);
            if (c >= j->slice[s].end) break;
            run_chunk(j, c, worker);
            ran++;
        }
    }
    return ran;
}

/* One worker's share of a job: its chunks, timed for the tracer when one is installed and the
 * worker ran any (timed here rather than in run_chunk, a traced job reads the clock twice per
 * worker, not twice per chunk), then counted as done. The tracer is called before the count, so
 * what it writes is the owner's once the job is over. True when these were the job's last. */
static bool run_share(job *j, uint32_t workers, uint32_t worker, uint32_t *ran_out) {
    th_pool_trace_fn *trace = j->trace;
    uint64_t t0 = trace ? th_now_ns() : 0;
    uint32_t ran = claim_chunks(j, workers, worker);
    *ran_out = ran;
    if (!ran) return false;
    if (trace) trace(j->trace_user, worker, t0, th_now_ns());
    return atomic_fetch_add_explicit(&j->done, ran, memory_order_acq_rel) + ran == j->chunk_count;
}

static void *worker_main(void *arg) {
    th_pool *p = ((worker_arg *)arg)->pool;
    uint32_t index = ((worker_arg *)arg)->index;
    uint64_t seen = 0;
    for (;;) {
        gen_wait gw = {p, seen};
        uint64_t gen = seen;
        if (spin_until(generation_moved, &gw,
                       atomic_load_explicit(&p->spin_ns, memory_order_relaxed))) {
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
        /* Check in, then make sure the slot still holds this job (with the owner's close and
         * look, sequentially consistent: one of the two sees the other). */
        job *j = &p->job[gen & 1u];
        atomic_fetch_add_explicit(&j->active, 1, memory_order_seq_cst);
        uint32_t ran;
        if (atomic_load_explicit(&j->tag, memory_order_seq_cst) == gen &&
            run_share(j, p->workers, index, &ran)) {
            pthread_mutex_lock(&p->mutex);
            pthread_cond_signal(&p->done);
            pthread_mutex_unlock(&p->mutex);
        }
        atomic_fetch_sub_explicit(&j->active, 1, memory_order_release);
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
    p->spin_base = workers > th_cpu_count() ? SPIN_NS_SHARED : SPIN_NS;
    atomic_init(&p->spin_ns, p->spin_base);
    pthread_mutex_init(&p->mutex, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->done, NULL);
    for (uint32_t i = 1; i < workers; i++) {
        p->arg[i] = (worker_arg){p, i};
        if (pthread_create(&p->threads[i], NULL, worker_main, &p->arg[i]) != 0) break;
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
    const job *j = &p->job[0];
    uint64_t t0 = p->trace ? th_now_ns() : 0;
    for (uint32_t c = begin; c < end && c < j->chunk_count; c++) run_chunk(j, c, worker);
    if (p->trace) p->trace(p->trace_user, worker, t0, th_now_ns());
}

void th_pool_parallel_for(th_pool *p, uint32_t count, uint32_t chunk, th_job_fn *fn, void *ctx) {
    if (count == 0) return;
    if (chunk == 0) chunk = 1;
    uint32_t chunk_count = count / chunk + (count % chunk != 0);
    if (p->enqueue) {
        job *j = &p->job[0];
        j->fn = fn;
        j->ctx = ctx;
        j->count = count;
        j->chunk = chunk;
        j->chunk_count = chunk_count;
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
    const uint64_t gen = atomic_load_explicit(&p->generation, memory_order_relaxed) + 1u;
    job *j = &p->job[gen & 1u];
    /* Close the slot and wait for any worker still looking into the job it held, two jobs ago
     * (one that was kept from a core all that while). */
    atomic_store_explicit(&j->tag, 0, memory_order_seq_cst);
    const uint64_t spin = atomic_load_explicit(&p->spin_ns, memory_order_relaxed);
    if (!spin_until(nobody_inside, j, spin))
        while (!nobody_inside(j)) sched_yield();
    j->fn = fn;
    j->ctx = ctx;
    j->count = count;
    j->chunk = chunk;
    j->chunk_count = chunk_count;
    j->trace = p->trace;
    j->trace_user = p->trace_user;
    for (uint32_t w = 0; w < p->workers; w++) {
        uint64_t first = (uint64_t)chunk_count * w / p->workers;
        j->slice[w].end = (uint32_t)((uint64_t)chunk_count * (w + 1) / p->workers);
        atomic_store_explicit(&j->slice[w].next, (uint32_t)first, memory_order_relaxed);
    }
    atomic_store_explicit(&j->done, 0, memory_order_relaxed);
    atomic_store_explicit(&j->tag, gen, memory_order_release);
    pthread_mutex_lock(&p->mutex);
    atomic_store_explicit(&p->generation, gen, memory_order_release);
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mutex);

    const uint64_t t0 = th_now_ns();
    uint32_t ran;
    const bool last = run_share(j, p->workers, 0, &ran);
    const uint64_t t1 = th_now_ns();
    if (!last && !spin_until(all_done, j, spin)) {
        pthread_mutex_lock(&p->mutex);
        while (!all_done(j)) pthread_cond_wait(&p->done, &p->mutex);
        pthread_mutex_unlock(&p->mutex);
    }
    /* Contended or calm: the wait for the others' last chunks against the owner's own. */
    const uint64_t waited = last ? 0 : th_now_ns() - t1;
    if (ran && waited > CONTENDED_NS && waited > CONTENDED_CHUNKS * ((t1 - t0) / ran)) {
        p->calm = 0;
        atomic_store_explicit(&p->spin_ns, SPIN_NS_SHARED, memory_order_relaxed);
    } else if (p->calm < CALM_JOBS && ++p->calm == CALM_JOBS) {
        atomic_store_explicit(&p->spin_ns, p->spin_base, memory_order_relaxed);
    }
}
