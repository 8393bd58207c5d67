#define _GNU_SOURCE /* RUSAGE_THREAD */
#include "jobs.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/resource.h>
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

/* A worker that the owner waited for in this way was off its core in the middle of a chunk,
 * and nothing can take a chunk over once begun: while fewer cores are free than the pool has
 * workers, every phase would wait a time slice for such a worker. So the owner of a pool larger
 * than ALONE_MAX_WORKERS (a small one measures instead, below) rests that worker: it takes no part
 * in the next REST_JOBS jobs (its slice is dealt to the others), sleeping, and so frees a core for
 * those that work. Each time it comes back and is late again within CALM_JOBS jobs, its rest
 * doubles, up to REST_JOBS << REST_MAX_DOUBLINGS (a few seconds of steps); CALM_JOBS jobs in time
 * and it starts over. A machine that frees its cores gets its workers back after one rest. Which
 * workers run a chunk never changes what the chunk computes, so results stay the same. */
enum { REST_JOBS = 16, REST_MAX_DOUBLINGS = 8 };

/* Shared or alone, by measurement. While fewer cores are free than the pool has workers, a
 * thread that shares its core with another program is taken off it for a time slice in the
 * middle of its chunks, the owner's included, and a phase that waits for it runs no faster on
 * two workers than on one, often slower. A small pool (up to ALONE_MAX_WORKERS, where the owner
 * alone does a fair share) therefore measures which is faster. Each kind of job (its function
 * and the power of two of its item count: the phases of a step) keeps what an item costs in
 * wall time shared and on the owner alone. When the pool's threads have been taken off their
 * cores (at least SWITCHES_CONTENDED involuntary context switches in LOOK_JOBS jobs, or a
 * contended wait, below), it runs TRIAL_JOBS jobs the other way (after SETTLE_JOBS, while the
 * scheduler places the threads anew, which are not measured), prices a round of every kind both
 * ways (items x cost) and keeps the way cheaper by SWITCH_MARGIN, so that noise does not toggle
 * it; a trial whose jobs run TRIAL_WORSE times slower than the chosen way, TRIAL_WORSE_JOBS of
 * them, stops there (idle cores, a program that ran a moment). Running alone, it tries shared again
 * now and then, as nothing else tells it the cores are free again. Trials come at least
 * TRIAL_GAP_MIN jobs apart after a change of mind, twice as far each time a trial confirms it, up
 * to TRIAL_GAP_MAX. Either way holds for every job, not each kind its own: a worker woken for one
 * phase and not the next keeps the scheduler moving threads. Idle cores see no trial. Which thread
 * runs a chunk never changes what it computes, so results are the same either way. */
enum {
    ALONE_MAX_WORKERS = 4,
    PHASES = 64,
    LOOK_JOBS = 64,
    SWITCHES_CONTENDED = 4,
    SETTLE_JOBS = 4,
    TRIAL_JOBS = 48,
    TRIAL_WORSE_JOBS = 4,
    TRIAL_GAP_MIN = 256,
    TRIAL_GAP_MAX = 16384
};
#define SWITCH_MARGIN 0.9
#define TRIAL_WORSE   1.5

typedef struct phase {
    th_job_fn *fn; /* NULL: a free entry */
    uint32_t size_class;
    uint32_t items;    /* the last run's */
    double ns[2];      /* wall ns per item, [0] shared, [1] alone; 0: not measured */
    uint32_t trial[2]; /* the trial in which ns[] was last measured */
} phase;

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
    uint64_t members;                      /* bit w: worker w takes part (the owner always) */
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
        uint64_t finished_ns; /* when the worker ran its last chunk; 0: it ran none */
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
    uint64_t jobs;            /* parallel jobs started (the owner's count) */
    /* What the owner knows of each worker: whether it rests (see REST_JOBS; the one field the
     * worker reads) and how often it was taken off its core (which the worker writes). */
    struct {
        atomic_bool resting;
        uint32_t strikes; /* late returns in a row */
        uint64_t until;   /* the job at which it takes part again */
        uint64_t back;    /* the job at which it came back */
        atomic_long switches;
    } ws[TH_POOL_MAX_WORKERS];
    uint64_t rested_jobs; /* jobs that ran with a worker at rest */
    uint64_t alone_jobs;  /* jobs that ran on the owner alone because that was faster */
    phase phases[PHASES]; /* the owner's; a full table leaves later kinds unmeasured */
    bool alone;           /* the way chosen */
    bool contended;       /* the pool's threads were taken off their cores since the last trial */
    long switches;        /* their involuntary context switches at the last look */
    uint32_t trial;       /* trials so far */
    uint32_t trial_left;  /* jobs left in the trial under way (0: none) */
    uint32_t trial_worse; /* its jobs that ran far worse than the chosen way */
    uint64_t next_trial;  /* the first job that may start a trial */
    uint32_t gap;
    pthread_t threads[TH_POOL_MAX_WORKERS];
    pthread_mutex_t mutex;
    pthread_cond_t wake;     /* workers wait here for a new job */
    pthread_cond_t done;     /* the owner waits here for the last chunk */
    pthread_cond_t wake_up;  /* resting workers wait here */
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

/* Involuntary context switches of the calling thread so far (0 where the system keeps none). */
static long thread_switches(void) {
#ifdef RUSAGE_THREAD
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) == 0) return ru.ru_nivcsw;
#endif
    return 0;
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
    const uint64_t t1 = th_now_ns();
    j->slice[worker].finished_ns = t1;
    if (trace) trace(j->trace_user, worker, t0, t1);
    return atomic_fetch_add_explicit(&j->done, ran, memory_order_acq_rel) + ran == j->chunk_count;
}

static void *worker_main(void *arg) {
    th_pool *p = ((worker_arg *)arg)->pool;
    uint32_t index = ((worker_arg *)arg)->index;
    uint64_t seen = 0;
    for (;;) {
        if (atomic_load_explicit(&p->ws[index].resting, memory_order_acquire)) {
            pthread_mutex_lock(&p->mutex);
            while (atomic_load_explicit(&p->ws[index].resting, memory_order_acquire) && !p->quit) {
                pthread_cond_wait(&p->wake_up, &p->mutex);
            }
            bool quit = p->quit;
            pthread_mutex_unlock(&p->mutex);
            if (quit) return NULL;
        }
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
            (j->members >> index & 1u) && run_share(j, p->workers, index, &ran)) {
            pthread_mutex_lock(&p->mutex);
            pthread_cond_signal(&p->done);
            pthread_mutex_unlock(&p->mutex);
        }
        atomic_fetch_sub_explicit(&j->active, 1, memory_order_release);
        if (gen % LOOK_JOBS == 0)
            atomic_store_explicit(&p->ws[index].switches, thread_switches(), memory_order_relaxed);
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
    p->gap = TRIAL_GAP_MIN;
    p->switches = thread_switches();
    atomic_init(&p->spin_ns, p->spin_base);
    pthread_mutex_init(&p->mutex, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->done, NULL);
    pthread_cond_init(&p->wake_up, NULL);
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
    pthread_cond_broadcast(&p->wake_up);
    pthread_mutex_unlock(&p->mutex);
    for (uint32_t i = 1; i < p->workers; i++) pthread_join(p->threads[i], NULL);
    pthread_cond_destroy(&p->wake_up);
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

static void run_shared(th_pool *p, uint64_t members, uint32_t member_count, uint32_t count,
                       uint32_t chunk, uint32_t chunk_count, th_job_fn *fn, void *ctx);

/* The workers that take part in the next job: the owner and every worker not at rest, waking
 * those whose rest is over. */
static uint64_t next_members(th_pool *p) {
    uint64_t members = 1u;
    bool woke = false;
    for (uint32_t w = 1; w < p->workers; w++) {
        if (p->ws[w].until) {
            if (p->jobs < p->ws[w].until) continue;
            p->ws[w].until = 0;
            p->ws[w].back = p->jobs;
            atomic_store_explicit(&p->ws[w].resting, false, memory_order_release);
            woke = true;
        }
        members |= 1ull << w;
    }
    if (woke) {
        pthread_mutex_lock(&p->mutex);
        pthread_cond_broadcast(&p->wake_up);
        pthread_mutex_unlock(&p->mutex);
    }
    return members;
}

/* After a job the owner waited for: rest each worker that ran its last chunk more than `limit`
 * after the owner's own (`owner_done`); one back in time for CALM_JOBS jobs starts over. */
static void rest_late_workers(th_pool *p, const job *j, uint64_t owner_done, uint64_t limit) {
    for (uint32_t w = 1; w < p->workers; w++) {
        if (!(j->members >> w & 1u) || j->slice[w].finished_ns <= owner_done + limit) continue;
        if (p->jobs - p->ws[w].back >= CALM_JOBS) p->ws[w].strikes = 0;
        uint32_t d = p->ws[w].strikes;
        if (d < REST_MAX_DOUBLINGS) p->ws[w].strikes++;
        p->ws[w].until = p->jobs + ((uint64_t)REST_JOBS << d);
        atomic_store_explicit(&p->ws[w].resting, true, memory_order_release);
    }
}

/* The entry of a kind of job; NULL when the table is full. */
static phase *phase_of(th_pool *p, th_job_fn *fn, uint32_t count) {
    const uint32_t size_class = 31u - (uint32_t)__builtin_clz(count);
    uintptr_t h = ((uintptr_t)fn >> 4) * 0x9E3779B97F4A7C15ull + size_class;
    for (uint32_t i = 0; i < PHASES; i++) {
        phase *ph = &p->phases[(h + i) % PHASES];
        if (ph->fn == fn && ph->size_class == size_class) return ph;
        if (!ph->fn) {
            *ph = (phase){.fn = fn, .size_class = size_class};
            return ph;
        }
    }
    return NULL;
}

/* Every LOOK_JOBS jobs: were the pool's threads taken off their cores? */
static void look_for_contention(th_pool *p) {
    if (p->jobs % LOOK_JOBS) return;
    long sum = thread_switches();
    for (uint32_t w = 1; w < p->workers; w++)
        sum += atomic_load_explicit(&p->ws[w].switches, memory_order_relaxed);
    if (sum - p->switches >= SWITCHES_CONTENDED) p->contended = true;
    p->switches = sum;
}

/* Whether the next job runs alone: the way chosen, or the other during a trial. */
static bool next_alone(th_pool *p) {
    if (p->workers > ALONE_MAX_WORKERS) return false;
    if (!p->trial_left) {
        look_for_contention(p);
        if (p->jobs >= p->next_trial && (p->alone || p->contended)) {
            p->trial_left = SETTLE_JOBS + TRIAL_JOBS;
            p->trial++;
        }
    }
    return p->trial_left ? !p->alone : p->alone;
}

/* A round of every kind measured both ways, priced each way. */
static void price_round(const th_pool *p, double cost[2]) {
    cost[0] = cost[1] = 0;
    for (uint32_t i = 0; i < PHASES; i++) {
        const phase *ph = &p->phases[i];
        if (!ph->fn || !(ph->ns[0] > 0) || !(ph->ns[1] > 0)) continue;
        cost[0] += ph->items * ph->ns[0];
        cost[1] += ph->items * ph->ns[1];
    }
}

/* Learn from a job of kind `ph` that took `ns` for `items`, alone or shared; close a trial. */
static void learn(th_pool *p, phase *ph, bool alone, uint64_t ns, uint32_t items) {
    const bool trying = p->trial_left != 0;
    if (ph && (!trying || p->trial_left <= TRIAL_JOBS)) {
        const double x = (double)ns / (double)items;
        /* A trial far worse than the chosen way, job after job, is cut short. */
        if (trying && ph->ns[!alone] > 0 && x > TRIAL_WORSE * ph->ns[!alone] &&
            ++p->trial_worse == TRIAL_WORSE_JOBS)
            p->trial_left = 1;
        /* A trial's figures start afresh; the chosen way's are an average over its recent runs. */
        const bool fresh = !(ph->ns[alone] > 0) || (trying && ph->trial[alone] != p->trial);
        ph->ns[alone] = fresh ? x : ph->ns[alone] + (x - ph->ns[alone]) / 4;
        ph->trial[alone] = p->trial;
        ph->items = items;
    }
    if (!trying || --p->trial_left) return;
    double cost[2];
    price_round(p, cost);
    const bool change = cost[!p->alone] < SWITCH_MARGIN * cost[p->alone];
    if (change) p->alone = !p->alone;
    p->gap = change ? TRIAL_GAP_MIN : p->gap < TRIAL_GAP_MAX ? p->gap * 2 : TRIAL_GAP_MAX;
    p->next_trial = p->jobs + p->gap;
    p->contended = false;
    p->trial_worse = 0;
}

/* Run every chunk on the calling thread. */
static void run_inline(th_pool *p, uint32_t count, uint32_t chunk, uint32_t chunk_count,
                       th_job_fn *fn, void *ctx) {
    uint64_t t0 = p->trace ? th_now_ns() : 0;
    /* Counted by chunk index: `begin += chunk` would wrap past 2^32 and start over. */
    for (uint32_t c = 0; c < chunk_count; c++) {
        uint32_t begin = c * chunk;
        fn(ctx, begin, count - begin < chunk ? count : begin + chunk, 0);
    }
    if (p->trace) p->trace(p->trace_user, 0, t0, th_now_ns());
}

uint64_t th_pool_rested_jobs(const th_pool *p) { return p->rested_jobs; }

uint64_t th_pool_alone_jobs(const th_pool *p) { return p->alone_jobs; }

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
        run_inline(p, count, chunk, chunk_count, fn, ctx);
        return;
    }
    p->jobs++;
    const uint64_t members = next_members(p);
    const uint32_t member_count = (uint32_t)__builtin_popcountll(members);
    if (member_count < p->workers) p->rested_jobs++;
    /* Only a small pool measures its jobs (see ALONE_MAX_WORKERS). */
    const bool measures = p->workers <= ALONE_MAX_WORKERS;
    phase *ph = measures ? phase_of(p, fn, count) : NULL;
    const bool alone = next_alone(p) || member_count == 1;
    const uint64_t start = measures ? th_now_ns() : 0;
    if (alone) {
        p->alone_jobs += member_count > 1;
        run_inline(p, count, chunk, chunk_count, fn, ctx);
    } else {
        run_shared(p, members, member_count, count, chunk, chunk_count, fn, ctx);
    }
    if (measures) learn(p, ph, alone, th_now_ns() - start, count);
}

/* One job over the members' threads, the owner among them; returns when every chunk has run. */
static void run_shared(th_pool *p, uint64_t members, uint32_t member_count, uint32_t count,
                       uint32_t chunk, uint32_t chunk_count, th_job_fn *fn, void *ctx) {
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
    j->members = members;
    for (uint32_t w = 0, k = 0; w < p->workers; w++) {
        uint64_t first = 0, end = 0;
        if (members >> w & 1u) {
            first = (uint64_t)chunk_count * k / member_count;
            end = (uint64_t)chunk_count * (k + 1) / member_count;
            k++;
        }
        j->slice[w].end = (uint32_t)end;
        j->slice[w].finished_ns = 0;
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
    const uint64_t per_chunk = ran ? (t1 - t0) / ran : 0;
    if (ran && waited > CONTENDED_NS && waited > CONTENDED_CHUNKS * per_chunk) {
        p->contended = true;
        p->calm = 0;
        atomic_store_explicit(&p->spin_ns, SPIN_NS_SHARED, memory_order_relaxed);
        /* A small pool measures instead (below): resting would make it run alone unasked. */
        const uint64_t limit = CONTENDED_CHUNKS * per_chunk;
        if (p->workers > ALONE_MAX_WORKERS)
            rest_late_workers(p, j, t1, limit > CONTENDED_NS ? limit : CONTENDED_NS);
    } else if (p->calm < CALM_JOBS && ++p->calm == CALM_JOBS) {
        atomic_store_explicit(&p->spin_ns, p->spin_base, memory_order_relaxed);
    }
}
