/* Persistent job pool on pthreads.
 *
 * A pool owns `workers - 1` threads; the calling thread is worker 0 and takes part in every
 * parallel_for, so a pool of 1 worker runs everything inline with no thread at all.
 * th_pool_parallel_for splits [0, count) into fixed-size chunks that workers claim with atomic
 * counters (each first from its own contiguous slice, then from the others), and returns only
 * when every chunk has run: each call is a barrier between phases. It does not wait for a worker
 * with nothing left to do (one that other programs keep from its core, say). The chunk size, never
 * the worker count, decides how work is cut, so results that depend on chunking (reductions) are
 * identical for any number of workers. */
#ifndef TH_JOBS_H
#define TH_JOBS_H

#include <stdint.h>

typedef struct th_pool th_pool;

/** Work callback: process items [begin, end). `worker` is in [0, th_pool_workers()) and is
 *  stable for the duration of the call, so it can index per-worker scratch memory. */
typedef void th_job_fn(void *ctx, uint32_t begin, uint32_t end, uint32_t worker);

/** Upper bound on workers in one pool. */
#define TH_POOL_MAX_WORKERS 64

/** Number of online CPU cores (at least 1). */
uint32_t th_cpu_count(void);

/** Create a pool of `workers` workers (0 = th_cpu_count(); clamped to TH_POOL_MAX_WORKERS).
 *  Returns NULL when memory or threads cannot be had. */
th_pool *th_pool_create(uint32_t workers);

/** A host's task system in the pool's place (include/throng/throng.h: th_enqueue_task_fn).
 *  Items handed to the host are chunk indices. */
typedef void th_host_task_fn(uint32_t begin, uint32_t end, uint32_t worker, void *task_ctx);
typedef void *th_host_enqueue_fn(th_host_task_fn *task, uint32_t item_count, uint32_t min_range,
                                 void *task_ctx, void *user);
typedef void th_host_finish_fn(void *handle, void *user);

/** A pool that starts no thread: each parallel_for is one task given to the host's `enqueue`
 *  (then `finish`), with `workers` worker indices (1..TH_POOL_MAX_WORKERS). NULL when memory
 *  is short or an argument is bad. */
th_pool *th_pool_create_hosted(uint32_t workers, th_host_enqueue_fn *enqueue,
                               th_host_finish_fn *finish, void *user);

/** Stop and join every thread, free the pool. NULL is ignored. */
void th_pool_destroy(th_pool *pool);

/** Number of workers, including the calling thread. */
uint32_t th_pool_workers(const th_pool *pool);

/** Run fn over [0, count) in chunks of `chunk` items (0 is taken as 1). Blocks until all chunks
 *  are done. Must be called from one thread at a time (the pool's owner); fn must not call back
 *  into the same pool. */
void th_pool_parallel_for(th_pool *pool, uint32_t count, uint32_t chunk, th_job_fn *fn, void *ctx);

/** Parallel jobs run so far with a worker at rest: one that was kept from its core in the middle
 *  of a chunk (other programs hold the cores) takes no part for a while, so that the phase does
 *  not wait a time slice for it again. Which worker runs a chunk never changes its result. */
uint64_t th_pool_rested_jobs(const th_pool *pool);

/** Parallel jobs run on the calling thread alone, with workers free, because running that kind
 *  of job alone had been measured faster than shared (cores held by other programs, or a job
 *  too small to share). */
uint64_t th_pool_alone_jobs(const th_pool *pool);

/** Tracer callback: `worker` took part in a parallel_for from `begin_ns` to `end_ns`
 *  (th_now_ns clock), i.e. from before it claimed its first chunk to after its last one. Called
 *  once per worker per parallel_for that the worker ran chunks of (a worker that found none
 *  left, or was kept from its core until the others had run them all, is not called), from
 *  that worker's thread, before the call's barrier: whatever it writes is visible to the owner
 *  when parallel_for returns. */
typedef void th_pool_trace_fn(void *user, uint32_t worker, uint64_t begin_ns, uint64_t end_ns);

/** Install a tracer (NULL removes it). Call from the owner between parallel_for calls. With no
 *  tracer a parallel_for pays one predictable branch per worker and reads no clock. */
void th_pool_set_tracer(th_pool *pool, th_pool_trace_fn *fn, void *user);

#endif
