/* Phase tracing: one span per phase per worker per step, into a buffer sized up front.
 *
 * Spans come from two sources. The stepping thread (worker 0) opens a span when the step
 * enters a phase. The job pool's tracer reports every worker's share of each parallel_for;
 * a phase can hold several parallel_for calls (the grid has three), so a worker's report
 * extends its latest span when that span is of the same step and phase, and claims a new one
 * otherwise. A span therefore runs from the worker's first chunk of the phase to its last;
 * gaps between spans are time spent waiting at a barrier.
 *
 * Recording claims slots with one atomic counter in a shared buffer: a worker claims at most
 * one slot per phase, so the counter is touched a few times per step and per worker.
 * Per-worker buffers merged at read time were rejected: they would need an ordering pass and
 * a second copy of the spans to keep th_world_trace_spans a plain array. */
#include "sim/core/trace.h"

#include <stdatomic.h>

#include "engine/alloc.h"

/* Most spans one recording may hold: 2^24 spans of 32 bytes, 512 MiB. */
#define TH_TRACE_MAX_SPANS (1u << 24)

#define NO_SPAN UINT32_MAX

typedef struct th_trace {
    th_trace_span *spans;
    uint32_t max;
    /* Spans claimed so far; it may run past `max` once the buffer is full, and is read
     * clamped. */
    _Alignas(64) atomic_uint claimed;
    /* Each worker's latest span (NO_SPAN before the first): written only by that worker, on a
     * line of its own. */
    struct {
        _Alignas(64) uint32_t last;
    } worker[TH_POOL_MAX_WORKERS];
    /* The step and phase being run: written by the stepping thread before the phase's
     * parallel_for calls publish their job, so workers read them after the pool's acquire. */
    _Alignas(64) uint64_t step;
    th_phase phase;
    bool worker0_ran_chunks; /* worker 0 reported a parallel_for share in the current phase */
} th_trace;

static uint32_t claim(th_trace *t) {
    /* Load first so that a full buffer stops the counter instead of letting it wrap. */
    if (atomic_load_explicit(&t->claimed, memory_order_relaxed) >= t->max) return NO_SPAN;
    uint32_t i = atomic_fetch_add_explicit(&t->claimed, 1, memory_order_relaxed);
    return i < t->max ? i : NO_SPAN;
}

/* The pool's tracer: `worker` ran chunks of a parallel_for of the current phase. */
static void on_share(void *user, uint32_t worker, uint64_t begin_ns, uint64_t end_ns) {
    th_trace *t = user;
    if (worker == 0) t->worker0_ran_chunks = true;
    uint32_t i = t->worker[worker].last;
    if (i != NO_SPAN && t->spans[i].step == t->step && t->spans[i].phase == t->phase) {
        t->spans[i].end_ns = end_ns;
        return;
    }
    i = claim(t);
    t->worker[worker].last = i;
    if (i == NO_SPAN) return;
    t->spans[i] = (th_trace_span){.step = t->step,
                                  .begin_ns = begin_ns,
                                  .end_ns = end_ns,
                                  .worker = worker,
                                  .phase = t->phase};
}

void th_trace_enter(th_world *w, th_phase phase, uint64_t now_ns) {
    th_trace *t = w->trace;
    /* Stamped at the first phase: bookkeeping counts the step as done before it ends. */
    if (phase == TH_PHASE_EVENTS) t->step = w->step;
    t->phase = phase;
    t->worker0_ran_chunks = false;
    uint32_t i = claim(t);
    t->worker[0].last = i;
    if (i == NO_SPAN) return;
    t->spans[i] = (th_trace_span){
        .step = t->step, .begin_ns = now_ns, .end_ns = now_ns, .worker = 0, .phase = phase};
}

void th_trace_leave(th_world *w, uint64_t now_ns) {
    th_trace *t = w->trace;
    uint32_t i = t->worker[0].last;
    if (i != NO_SPAN && !t->worker0_ran_chunks) t->spans[i].end_ns = now_ns;
}

bool th_world_trace_start(th_world *w, uint32_t max_spans, th_error *err) {
    if (!th_between_steps(w, err)) return false;
    if (max_spans == 0 || max_spans > TH_TRACE_MAX_SPANS) {
        th_error_set(err, TH_ERR_INVALID, "trace buffer must hold 1..%u spans, got %u",
                     TH_TRACE_MAX_SPANS, max_spans);
        return false;
    }
    th_world_trace_stop(w);
    th_trace *t = th_calloc(1, sizeof *t);
    th_trace_span *spans = th_alloc((size_t)max_spans * sizeof *spans);
    if (!t || !spans) {
        th_free(t);
        th_free(spans);
        th_error_set(err, TH_ERR_NOMEM, "out of memory for %u trace spans", max_spans);
        return false;
    }
    t->spans = spans;
    t->max = max_spans;
    atomic_init(&t->claimed, 0);
    for (uint32_t k = 0; k < TH_POOL_MAX_WORKERS; k++) t->worker[k].last = NO_SPAN;
    w->trace = t;
    th_pool_set_tracer(w->pool, on_share, t);
    return true;
}

const th_trace_span *th_world_trace_spans(const th_world *w, uint32_t *count) {
    if (!w) return NULL;
    const th_trace *t = w->trace;
    if (!t) {
        if (count) *count = 0;
        return NULL;
    }
    uint32_t n = atomic_load_explicit(&t->claimed, memory_order_relaxed);
    if (count) *count = n < t->max ? n : t->max;
    return t->spans;
}

void th_world_trace_stop(th_world *w) {
    if (!w) return;
    th_trace *t = w->trace;
    if (!t) return;
    th_pool_set_tracer(w->pool, NULL, NULL);
    w->trace = NULL;
    th_free(t->spans);
    th_free(t);
}
