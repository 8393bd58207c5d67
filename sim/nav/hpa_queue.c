/* The budgeted request queue of the hierarchical planner (see hpa.h). */
#include "sim/nav/hpa.h"

#include "engine/alloc.h"

typedef struct request {
    int32_t sx, sy, gx, gy;
    int32_t priority;
    uint64_t seq; /* submission order */
    uint32_t tag;
} request;

struct th_hpa_queue {
    int32_t w, h;
    request *heap; /* waiting, keyed (priority descending, seq ascending) */
    uint32_t n, capacity;
    uint64_t seq;
    bool active; /* `cur` is being searched */
    bool started;
    request cur;
    th_hpa_query *query;
    uint32_t *path;
    uint32_t path_max;
};

void th_hpa_queue_destroy(th_hpa_queue *q) {
    if (!q) return;
    th_free(q->heap);
    th_free(q->path);
    th_hpa_query_destroy(q->query);
    th_free(q);
}

th_hpa_queue *th_hpa_queue_create(const th_hpa *h, const th_navmap *m, uint32_t capacity,
                                  uint32_t cache) {
    if (!h || !m || !m->cost || capacity == 0) return NULL;
    th_hpa_queue *q = th_calloc(1, sizeof *q);
    if (!q) return NULL;
    q->w = m->w;
    q->h = m->h;
    q->capacity = capacity;
    q->query = th_hpa_query_create(h, cache);
    q->heap = th_alloc((size_t)capacity * sizeof *q->heap);
    /* Written only as far as a path reaches: its pages stay untouched beyond. */
    q->path_max = m->ncells;
    q->path = th_alloc((size_t)m->ncells * sizeof *q->path);
    if (!q->query || !q->heap || !q->path) {
        th_hpa_queue_destroy(q);
        return NULL;
    }
    return q;
}

static bool before(const request *a, const request *b) {
    if (a->priority != b->priority) return a->priority > b->priority;
    return a->seq < b->seq;
}

static void sift_up(th_hpa_queue *q, uint32_t i) {
    request v = q->heap[i];
    while (i > 0) {
        uint32_t p = (i - 1) / 2;
        if (!before(&v, &q->heap[p])) break;
        q->heap[i] = q->heap[p];
        i = p;
    }
    q->heap[i] = v;
}

static void sift_down(th_hpa_queue *q, uint32_t i) {
    request v = q->heap[i];
    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        const request *mv = &v;
        if (l < q->n && before(&q->heap[l], mv)) {
            m = l;
            mv = &q->heap[l];
        }
        if (r < q->n && before(&q->heap[r], mv)) m = r;
        if (m == i) break;
        q->heap[i] = q->heap[m];
        i = m;
    }
    q->heap[i] = v;
}

int th_hpa_queue_submit(th_hpa_queue *q, int32_t sx, int32_t sy, int32_t gx, int32_t gy,
                        int32_t priority, uint32_t tag) {
    if (!q) return TH_NAV_EINVAL;
    if ((sx < 0 || sy < 0 || gx < 0 || gy < 0 || sx >= q->w || sy >= q->h || gx >= q->w ||
         gy >= q->h)) {
        return TH_NAV_ERANGE;
    }
    if (q->n == q->capacity) return TH_NAV_ETOOLONG;
    q->heap[q->n] = (request){sx, sy, gx, gy, priority, q->seq++, tag};
    sift_up(q, q->n++);
    return TH_NAV_OK;
}

bool th_hpa_queue_cancel(th_hpa_queue *q, uint32_t tag) {
    if (!q) return false;
    if (q->active && q->cur.tag == tag) {
        q->active = false;
        return true;
    }
    for (uint32_t i = 0; i < q->n; i++) {
        if (q->heap[i].tag != tag) continue;
        q->heap[i] = q->heap[--q->n];
        if (i < q->n) {
            sift_down(q, i);
            sift_up(q, i);
        }
        return true;
    }
    return false;
}

void th_hpa_queue_restart(th_hpa_queue *q) {
    if (q) q->started = false;
}

uint32_t th_hpa_queue_waiting(const th_hpa_queue *q) {
    return q ? q->n + (q->active ? 1u : 0u) : 0;
}

const th_hpa_query *th_hpa_queue_query(const th_hpa_queue *q) { return q ? q->query : NULL; }

bool th_hpa_queue_next_node(const th_hpa_queue *q, const th_hpa *h, uint32_t tag, int32_t *x,
                            int32_t *y) {
    if (!q || !q->active || !q->started || q->cur.tag != tag || !x || !y) return false;
    return th_hpa_search_next_node(q->query, h, x, y);
}

uint64_t th_hpa_queue_update(th_hpa_queue *q, const th_hpa *h, const th_navmap *m, uint64_t budget,
                             th_hpa_done_fn *done, void *user) {
    if (!q || !h || !m || !m->cost || !th_hpa_built(h)) return 0;
    if (m->w != q->w || m->h != q->h) return 0;
    uint64_t used = 0;
    for (;;) {
        if (!q->active) {
            if (!q->n) break;
            q->cur = q->heap[0];
            q->heap[0] = q->heap[--q->n];
            if (q->n) sift_down(q, 0);
            q->active = true;
            q->started = false;
        }
        if (!q->started) {
            /* Starting costs one expansion (the ends' insertion is not counted otherwise):
             * however many requests end at their start, one call starts at most `budget`. */
            if (used >= budget) break;
            used++;
            int rc =
                th_hpa_search_start(q->query, h, m, q->cur.sx, q->cur.sy, q->cur.gx, q->cur.gy);
            if (rc != TH_NAV_OK) {
                q->active = false;
                if (done) done(user, q->cur.tag, rc, NULL, 0, TH_NAV_UNREACHABLE);
                continue;
            }
            q->started = true;
        }
        if (th_hpa_search_state(q->query) == TH_HPA_RUNNING) {
            if (used >= budget) break;
            used += th_hpa_search_run(q->query, h, m, budget - used);
        }
        th_hpa_state st = th_hpa_search_state(q->query);
        if (st == TH_HPA_RUNNING) break; /* the budget ran out */
        uint32_t len = 0, cost = TH_NAV_UNREACHABLE;
        int rc = th_hpa_search_path(q->query, h, m, q->path, q->path_max, &len, &cost);
        q->active = false;
        if (done) done(user, q->cur.tag, rc, rc == TH_NAV_OK ? q->path : NULL, len, cost);
    }
    return used;
}
