/* Sources and sinks: spawners that add agents at a steady rate, exits that remove them.
 *
 * Spawning runs serially at the start of a step (events phase), after the map events, so a
 * spawner sees this step's walls. Each spawner owes an exact integer count at every step (the
 * formula in include/throng/throng.h) and places as many of them as its area has room for; the rest
 * wait. Exits are looked up per agent in integration and again after the contacts phase moved a
 * body (each agent writes only its own mark), and the marked agents leave in the admit phase
 * through th_world_drop_marked, in storage order, like sheltered ones. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/alloc.h"
#include "engine/hash.h"
#include "engine/rng.h"
#include "sim/core/world.h"
#include "sim/dist/dist_serial.h"
#include "sim/scenario/flow.h"

/* Most cells in a spawner's or exit's list. */
#define TH_FLOW_MAX_CELLS 65536u
/* The key space of spawn draws, apart from the scene's random spawns (crowd << 32 | index) and
 * the desired speeds (0x5e3d0000 + id). */
#define TH_SPAWN_KEY      0x5f10000000000000ull

typedef struct th_spawner {
    char name[64];
    uint32_t crowd;
    float x0, y0, x1, y1;
    th_cell_ref *cells; /* owned, or NULL for the rectangle */
    uint32_t cell_count;
    uint64_t q;      /* persons per step, fixed point of 2^-32 */
    uint64_t s0, s1; /* start and stop step; s1 = UINT64_MAX: never stops */
    uint64_t limit;  /* UINT64_MAX: none */
    uint64_t total;  /* agents it adds in all; UINT64_MAX: endless */
    th_vec2 velocity;
    uint32_t emitted;
    uint64_t due;
    uint32_t attempts; /* steps the head of the queue has waited: fresh draws each time */
} th_spawner;

typedef struct th_exit {
    char name[64];
    bool by_cell; /* cells (a bitmap over their bounding box), else the rectangle */
    float x0, y0, x1, y1;
    int32_t cx0, cy0, cx1, cy1;
    uint8_t *bits; /* owned: bit (y - cy0) * width + (x - cx0) set for an exit cell */
    uint32_t exited;
    uint64_t first, last;
    th_door_limit limit; /* th_exit_def.max_flow */
} th_exit;

struct th_flow {
    th_spawner sp[TH_MAX_SPAWNERS];
    uint32_t spawner_count;
    th_exit ex[TH_MAX_EXITS];
    uint32_t exit_count;
    uint64_t all_exits;                  /* exits that take every crowd */
    uint64_t crowd_exits[TH_MAX_CROWDS]; /* exits that name this crowd */
    /* Spawning scratch: the bodies near the area being filled, as (x, y, radius) copies (under
     * split agents they come from every rank, and the agents just spawned are stored only by
     * their owners). */
    float *near;
    uint32_t near_count;
    /* ... hashed on cells at least one reach wide (a body's radius plus the largest), so that
     * a try looks at the bodies in the 3 x 3 cells around it, not at every one near the area:
     * head[hash of a cell] is its first body + 1 (0: none), link[b] the next + 1. The cells
     * tile the world exactly (nx x ny of them), so that wrap-around neighbours are cells too. */
    uint32_t *head, *link;
    uint32_t head_cap, link_cap, head_mask;
    float cell_w, cell_h;
    int32_t nx, ny;
    /* [k]: steps after which the (k+1)-th agent left; one entry per id at most. */
    uint32_t *exited_at;
    uint32_t capacity; /* bodies `near` holds */
    uint32_t history;  /* entries exited_at holds: one per agent ever added */
};

th_spawner_def th_default_spawner_def(void) { return (th_spawner_def){.stop = INFINITY}; }

th_exit_def th_default_exit_def(void) { return (th_exit_def){.field = {0}}; }

void th_flow_free(th_world *w) {
    th_flow *f = w->flow;
    if (!f) return;
    for (uint32_t i = 0; i < f->spawner_count; i++) th_free(f->sp[i].cells);
    for (uint32_t i = 0; i < f->exit_count; i++) th_free(f->ex[i].bits);
    th_free(f->near);
    th_free(f->head);
    th_free(f->link);
    th_free(f->exited_at);
    th_free(f);
    w->flow = NULL;
}

/* Room in the body index for every body `near` can hold: a link each, and a head table of a
 * power of two at least twice that. */
static bool near_links_fit(th_flow *f) {
    if (f->link_cap < f->capacity) {
        if (!th_grow_array((void **)&f->link, sizeof *f->link, f->link_cap, f->capacity))
            return false;
        f->link_cap = f->capacity;
    }
    uint32_t want = 64;
    while (want < 2u * (uint64_t)f->capacity && want < (1u << 31)) want *= 2;
    if (f->head_cap < want) {
        /* Kept: an agent added while a spawner fills its queue can grow this, and the
         * index in use (its mask unchanged) stays valid. */
        if (!th_grow_array((void **)&f->head, sizeof *f->head, f->head_cap, want)) return false;
        f->head_cap = want;
    }
    return true;
}

bool th_flow_reserve(th_world *w, uint32_t cap, uint32_t history) {
    th_flow *f = w->flow;
    if (!f) return true;
    if (cap > f->capacity) {
        if (!th_grow_array((void **)&f->near, 3 * sizeof *f->near, f->near_count, cap))
            return false;
        f->capacity = cap;
    }
    if (!near_links_fit(f)) return false;
    if (history > f->history) {
        if (!th_grow_array((void **)&f->exited_at, sizeof *f->exited_at, w->stats.exited, history))
            return false;
        f->history = history;
    }
    return true;
}

static th_flow *flow_get(th_world *w, th_error *err) {
    if (w->flow) return w->flow;
    w->flow = th_calloc(1, sizeof *w->flow);
    if (!w->flow || !th_flow_reserve(w, w->capacity, w->history_capacity)) {
        th_flow_free(w);
        th_error_set(err, TH_ERR_NOMEM, "out of memory");
        return NULL;
    }
    return w->flow;
}

/* A rectangle inside the world, or a list of cells inside the map. */
static bool check_area(const th_world *w, const char *what, float x0, float y0, float x1, float y1,
                       const th_cell_ref *cells, uint32_t n, th_error *err) {
    if (n > 0) {
        int32_t cols, rows;
        float cs;
        if (!th_world_map_size(w, &cols, &rows, &cs)) {
            th_error_set(err, TH_ERR_STATE, "%s: cells need a world with a terrain map", what);
            return false;
        }
        if (!cells || n > TH_FLOW_MAX_CELLS) {
            th_error_set(err, TH_ERR_INVALID, "%s: expected 1 to %u cells, got %u", what,
                         TH_FLOW_MAX_CELLS, n);
            return false;
        }
        for (uint32_t i = 0; i < n; i++) {
            if (cells[i].x < 0 || cells[i].y < 0 || cells[i].x >= cols || cells[i].y >= rows) {
                th_error_set(err, TH_ERR_BLOCKED, "%s: cell (%d, %d) is off the %d x %d map", what,
                             cells[i].x, cells[i].y, cols, rows);
                return false;
            }
        }
        return true;
    }
    if (!(isfinite(x0) && isfinite(y0) && isfinite(x1) && isfinite(y1) && x0 >= 0.0f &&
          y0 >= 0.0f && x0 < x1 && y0 < y1 && x1 <= w->def.width && y1 <= w->def.height)) {
        th_error_set(err, TH_ERR_INVALID,
                     "%s: expected an area 0 <= x0 < x1 <= %g, 0 <= y0 < y1 <= %g metres, "
                     "got [%g, %g, %g, %g]",
                     what, (double)w->def.width, (double)w->def.height, (double)x0, (double)y0,
                     (double)x1, (double)y1);
        return false;
    }
    return true;
}

/* Agents owed by the start of the step that leaves step n, before the limit. */
static uint64_t owed_by(const th_spawner *s, uint64_t n) {
    if (n > s->s1) n = s->s1;
    if (n <= s->s0) return 0;
    /* (k * q) >> 32 exactly, in 64-bit pieces: k < 2^44 (1e9 s at the smallest timestep) and
     * q < 2^46 (the largest rate at the largest timestep), so no piece overflows. */
    const uint64_t k = n - s->s0, qh = s->q >> 32, ql = s->q & 0xFFFFFFFFu;
    const uint64_t kh = k >> 32, kl = k & 0xFFFFFFFFu;
    return k * qh + kh * ql + ((kl * ql) >> 32);
}

static uint64_t capped(const th_spawner *s, uint64_t due) {
    return due < s->limit ? due : s->limit;
}

/* Whole steps in `seconds`, to the nearest. */
static uint64_t to_steps(double seconds, double dt) { return (uint64_t)llround(seconds / dt); }

static int add_spawner(th_world *w, const th_spawner_def *def, th_error *err) {
    if (!th_between_steps(w, err)) return -1;
    if (!def) {
        th_error_set(err, TH_ERR_INVALID, "spawner: no def");
        return -1;
    }
    const th_spawner_def d = *def;
    if (w->flow && w->flow->spawner_count == TH_MAX_SPAWNERS) {
        th_error_set(err, TH_ERR_LIMIT, "at most %d spawners", TH_MAX_SPAWNERS);
        return -1;
    }
    if (!d.crowd.index1) {
        th_error_set(err, TH_ERR_HANDLE, "spawner: no crowd given (null handle)");
        return -1;
    }
    if (TH_INDEX(d.crowd) >= w->crowd_count) {
        th_error_set(err, TH_ERR_HANDLE, "spawner: no crowd %u (the world has %u)",
                     TH_INDEX(d.crowd), w->crowd_count);
        return -1;
    }
    if (!check_area(w, "spawner", d.x0, d.y0, d.x1, d.y1, d.cells, d.cell_count, err)) return -1;
    if (!(isfinite(d.rate) && d.rate > 0.0 && d.rate <= TH_MAX_SPAWN_RATE)) {
        th_error_set(err, TH_ERR_INVALID,
                     "spawner: rate must be in (0, %g] persons per second, got %g",
                     TH_MAX_SPAWN_RATE, d.rate);
        return -1;
    }
    /* 1e9 s is 30 years: far past any run, far inside the step counter. */
    if (!(isfinite(d.start) && d.start >= 0.0 && d.start <= 1e9)) {
        th_error_set(err, TH_ERR_INVALID, "spawner: start must be in [0, 1e9] seconds, got %g",
                     d.start);
        return -1;
    }
    if (!(d.stop > d.start && (isinf(d.stop) || d.stop <= 1e9))) {
        th_error_set(err, TH_ERR_INVALID,
                     "spawner: stop must be after start (%g s) and at most 1e9 s, or "
                     "infinite, got %g",
                     d.start, d.stop);
        return -1;
    }
    /* Whole steps stay far inside 64 bits (the count formula needs k < 2^44). */
    if (d.start / w->def.timestep > 1e13 || (isfinite(d.stop) && d.stop / w->def.timestep > 1e13)) {
        th_error_set(err, TH_ERR_INVALID,
                     "spawner: start and stop must be at most 1e13 steps of %g s",
                     (double)w->def.timestep);
        return -1;
    }
    if (!isfinite(d.velocity.x) || !isfinite(d.velocity.y)) {
        th_error_set(err, TH_ERR_INVALID, "spawner: velocity must be finite");
        return -1;
    }
    th_flow *f = flow_get(w, err);
    if (!f) return -1;
    const double dt = w->def.timestep;
    th_spawner s = {
        .crowd = TH_INDEX(d.crowd),
        .x0 = d.x0,
        .y0 = d.y0,
        .x1 = d.x1,
        .y1 = d.y1,
        .cell_count = d.cell_count,
        .q = (uint64_t)ceil(d.rate * dt * 4294967296.0),
        .s0 = to_steps(d.start, dt),
        .s1 = isinf(d.stop) ? UINT64_MAX : to_steps(d.stop, dt),
        .limit = d.limit ? d.limit : UINT64_MAX,
        .velocity = d.velocity,
    };
    s.total = s.s1 == UINT64_MAX ? s.limit : capped(&s, owed_by(&s, s.s1));
    /* Room for everything a bounded spawner will add, so that no step allocates for it. Other
     * bounded spawners' agents still to come count too: reserve rounds up to a power of two.
     * Under several ranks each agent to come takes an id slot on every rank and may be stored
     * on any: the id table needs room beside the agents of the whole world, and each rank's
     * arrays beside its own. */
    if (s.total != UINT64_MAX) {
        uint64_t coming = s.total;
        for (uint32_t i = 0; i < f->spawner_count; i++) {
            const th_spawner *o = &f->sp[i];
            if (o->total != UINT64_MAX) coming += o->total - o->emitted;
        }
        uint64_t stored = (uint64_t)w->count + coming, ids = th_world_agent_count(w) + coming;
        if (stored > TH_MAX_AGENTS) stored = TH_MAX_AGENTS;
        if (ids > TH_MAX_AGENTS) ids = TH_MAX_AGENTS;
        if (!th_world_reserve(w, (uint32_t)stored, (uint32_t)ids)) {
            th_error_set(err, TH_ERR_NOMEM, "spawner: out of memory for %llu agents",
                         (unsigned long long)ids);
            return -1;
        }
    }
    if (d.cell_count) {
        s.cells = th_alloc(d.cell_count * sizeof *s.cells);
        if (!s.cells) {
            th_error_set(err, TH_ERR_NOMEM, "out of memory");
            return -1;
        }
        memcpy(s.cells, d.cells, d.cell_count * sizeof *s.cells);
    }
    uint32_t i = f->spawner_count;
    if (d.name) snprintf(s.name, sizeof s.name, "%s", d.name);
    else snprintf(s.name, sizeof s.name, "spawner %u", i);
    f->sp[i] = s;
    f->spawner_count++;
    return (int)i;
}

th_spawner_id th_world_add_spawner(th_world *w, const th_spawner_def *def, th_error *err) {
    return th_spawner_handle(add_spawner(w, def, err));
}

uint32_t th_world_spawner_count(const th_world *w) {
    if (!w) return 0;
    return w->flow ? w->flow->spawner_count : 0;
}

bool th_world_get_spawner(const th_world *w, th_spawner_id handle, th_spawner_info *out) {
    if (!w || !out) return false;
    const uint32_t spawner = TH_INDEX(handle);
    if (!w->flow || spawner >= w->flow->spawner_count) return false;
    const th_spawner *s = &w->flow->sp[spawner];
    *out = (th_spawner_info){
        .name = s->name,
        .crowd = th_crowd_handle((int)s->crowd),
        .emitted = s->emitted,
        .due = s->due,
        .waiting = s->due - s->emitted,
        .total = s->total,
        .done = s->total != UINT64_MAX && s->emitted >= s->total,
        .x0 = s->x0,
        .y0 = s->y0,
        .x1 = s->x1,
        .y1 = s->y1,
    };
    if (s->cell_count > 0) {
        int32_t cx0 = s->cells[0].x, cy0 = s->cells[0].y, cx1 = cx0, cy1 = cy0;
        for (uint32_t k = 1; k < s->cell_count; k++) {
            cx0 = s->cells[k].x < cx0 ? s->cells[k].x : cx0;
            cx1 = s->cells[k].x > cx1 ? s->cells[k].x : cx1;
            cy0 = s->cells[k].y < cy0 ? s->cells[k].y : cy0;
            cy1 = s->cells[k].y > cy1 ? s->cells[k].y : cy1;
        }
        const float cs = w->nav.map.cell_size;
        out->x0 = (float)cx0 * cs;
        out->y0 = (float)cy0 * cs;
        out->x1 = (float)(cx1 + 1) * cs;
        out->y1 = (float)(cy1 + 1) * cs;
    }
    return true;
}

bool th_world_spawner_covers(const th_world *w, th_spawner_id handle, int32_t x, int32_t y) {
    if (!w) return false;
    const uint32_t spawner = TH_INDEX(handle);
    if (!w->flow || spawner >= w->flow->spawner_count) return false;
    const th_spawner *s = &w->flow->sp[spawner];
    for (uint32_t k = 0; k < s->cell_count; k++) {
        if (s->cells[k].x == x && s->cells[k].y == y) return true;
    }
    return false;
}

static int add_exit(th_world *w, const th_exit_def *def, th_error *err) {
    if (!th_between_steps(w, err)) return -1;
    if (!def) {
        th_error_set(err, TH_ERR_INVALID, "exit: no def");
        return -1;
    }
    const th_exit_def d = *def;
    if (!(d.max_flow >= 0.0f && d.max_flow <= 1e6f)) {
        th_error_set(err, TH_ERR_INVALID,
                     "exit: max_flow %g persons/s is not a number from 0 (no limit) up",
                     (double)d.max_flow);
        return -1;
    }
    if (w->flow && w->flow->exit_count == TH_MAX_EXITS) {
        th_error_set(err, TH_ERR_LIMIT, "at most %d exits", TH_MAX_EXITS);
        return -1;
    }
    const th_cell_ref *cells = d.cells;
    uint32_t n = d.cell_count;
    th_cell_ref *goal_cells = NULL;
    if (d.field.index1) {
        if (TH_INDEX(d.field) >= w->nav.dest_count) {
            th_error_set(err, TH_ERR_HANDLE, "exit: no destination field %u (the world has %u)",
                         TH_INDEX(d.field), w->nav.dest_count);
            return -1;
        }
        const th_nav_field *fd = &w->nav.dest[TH_INDEX(d.field)];
        n = fd->goal_count;
        goal_cells = th_alloc((n ? n : 1) * sizeof *goal_cells);
        if (!goal_cells) {
            th_error_set(err, TH_ERR_NOMEM, "out of memory");
            return -1;
        }
        for (uint32_t k = 0; k < n; k++)
            goal_cells[k] = (th_cell_ref){fd->goals[k].x, fd->goals[k].y};
        cells = goal_cells;
    }
    bool ok = check_area(w, "exit", d.x0, d.y0, d.x1, d.y1, cells, n, err);
    for (uint32_t k = 0; ok && k < d.crowd_count; k++) {
        if (d.crowds && !d.crowds[k].index1) {
            th_error_set(err, TH_ERR_HANDLE, "exit: crowds[%u] is the null handle", k);
            ok = false;
        } else if (!d.crowds || TH_INDEX(d.crowds[k]) >= w->crowd_count) {
            th_error_set(err, TH_ERR_HANDLE, "exit: no crowd %u (the world has %u)",
                         d.crowds ? TH_INDEX(d.crowds[k]) : 0, w->crowd_count);
            ok = false;
        }
    }
    th_flow *f = ok ? flow_get(w, err) : NULL;
    if (!f) {
        th_free(goal_cells);
        return -1;
    }
    uint32_t i = f->exit_count;
    th_exit e = {.by_cell = n > 0,
                 .x0 = d.x0,
                 .y0 = d.y0,
                 .x1 = d.x1,
                 .y1 = d.y1,
                 .limit = th_door_limit_make(d.max_flow)};
    if (n > 0) {
        e.cx0 = e.cx1 = cells[0].x;
        e.cy0 = e.cy1 = cells[0].y;
        for (uint32_t k = 1; k < n; k++) {
            if (cells[k].x < e.cx0) e.cx0 = cells[k].x;
            if (cells[k].x > e.cx1) e.cx1 = cells[k].x;
            if (cells[k].y < e.cy0) e.cy0 = cells[k].y;
            if (cells[k].y > e.cy1) e.cy1 = cells[k].y;
        }
        const size_t bw = (size_t)(e.cx1 - e.cx0 + 1), bh = (size_t)(e.cy1 - e.cy0 + 1);
        e.bits = th_calloc((bw * bh + 7) / 8, 1);
        if (!e.bits) {
            th_free(goal_cells);
            th_error_set(err, TH_ERR_NOMEM, "out of memory");
            return -1;
        }
        for (uint32_t k = 0; k < n; k++) {
            const size_t b = (size_t)(cells[k].y - e.cy0) * bw + (size_t)(cells[k].x - e.cx0);
            e.bits[b >> 3] |= (uint8_t)(1u << (b & 7));
        }
    }
    th_free(goal_cells);
    if (d.name) snprintf(e.name, sizeof e.name, "%s", d.name);
    else snprintf(e.name, sizeof e.name, "exit %u", i);
    f->ex[i] = e;
    if (d.crowd_count == 0) f->all_exits |= 1ull << i;
    for (uint32_t k = 0; k < d.crowd_count; k++) f->crowd_exits[TH_INDEX(d.crowds[k])] |= 1ull << i;
    f->exit_count++;
    return (int)i;
}

th_exit_id th_world_add_exit(th_world *w, const th_exit_def *def, th_error *err) {
    return th_exit_handle(add_exit(w, def, err));
}

uint32_t th_world_exit_count(const th_world *w) {
    if (!w) return 0;
    return w->flow ? w->flow->exit_count : 0;
}

bool th_world_get_exit(const th_world *w, th_exit_id handle, th_exit_info *out) {
    if (!w || !out) return false;
    const uint32_t exit = TH_INDEX(handle);
    if (!w->flow || exit >= w->flow->exit_count) return false;
    const th_exit *e = &w->flow->ex[exit];
    *out = (th_exit_info){e->name, e->exited, e->first, e->last,      e->x0,
                          e->y0,   e->x1,     e->y1,    e->limit.rate};
    if (e->by_cell) {
        const float cs = w->nav.map.cell_size;
        out->x0 = (float)e->cx0 * cs;
        out->y0 = (float)e->cy0 * cs;
        out->x1 = (float)(e->cx1 + 1) * cs;
        out->y1 = (float)(e->cy1 + 1) * cs;
    }
    return true;
}

bool th_world_exit_covers(const th_world *w, th_exit_id handle, int32_t x, int32_t y) {
    if (!w) return false;
    const uint32_t exit = TH_INDEX(handle);
    if (!w->flow || exit >= w->flow->exit_count) return false;
    const th_exit *e = &w->flow->ex[exit];
    if (!e->by_cell || x < e->cx0 || x > e->cx1 || y < e->cy0 || y > e->cy1) return false;
    const size_t b = (size_t)(y - e->cy0) * (size_t)(e->cx1 - e->cx0 + 1) + (size_t)(x - e->cx0);
    return (e->bits[b >> 3] >> (b & 7)) & 1u;
}

uint64_t th_world_exited_by(const th_world *w, uint32_t k) {
    if (!w) return 0;
    if (!w->flow || k == 0 || k > w->stats.exited) return 0;
    return w->flow->exited_at[k - 1];
}

/* ---- exits, in integration and admission -------------------------------------------------- */

static bool in_exit(const th_world *w, const th_exit *e, th_vec2 p) {
    if (!e->by_cell) return p.x >= e->x0 && p.x < e->x1 && p.y >= e->y0 && p.y < e->y1;
    int32_t x, y;
    th_navmap_cell_of(&w->nav.map, p, &x, &y);
    if (x < e->cx0 || x > e->cx1 || y < e->cy0 || y > e->cy1) return false;
    const size_t b = (size_t)(y - e->cy0) * (size_t)(e->cx1 - e->cx0 + 1) + (size_t)(x - e->cx0);
    return (e->bits[b >> 3] >> (b & 7)) & 1u;
}

uint8_t th_flow_exit_mark(const th_world *w, uint32_t crowd, th_vec2 p) {
    const th_flow *f = w->flow;
    uint64_t m = f->all_exits | f->crowd_exits[crowd];
    while (m) {
        const uint32_t i = (uint32_t)__builtin_ctzll(m);
        if (in_exit(w, &f->ex[i], p)) return (uint8_t)(TH_MARK_EXIT + i);
        m &= m - 1;
    }
    return 0;
}

bool th_flow_exit_pass(th_world *w, uint32_t exit) {
    return th_door_pass(&w->flow->ex[exit].limit, w->step, (double)w->def.timestep);
}

void th_flow_exit_limits(const th_world *w, th_door_limit *out) {
    for (uint32_t i = 0; i < w->flow->exit_count; i++) out[i] = w->flow->ex[i].limit;
}

void th_flow_set_exit_limits(th_world *w, const th_door_limit *in) {
    for (uint32_t i = 0; i < w->flow->exit_count; i++) w->flow->ex[i].limit = in[i];
}

void th_flow_exited(th_world *w, uint32_t exit) {
    th_flow *f = w->flow;
    th_exit *e = &f->ex[exit];
    const uint32_t at = w->step > UINT32_MAX ? UINT32_MAX : (uint32_t)w->step;
    if (e->exited++ == 0) e->first = w->step;
    e->last = w->step;
    /* Never past the end: at most one entry per agent added, and the history holds them all. */
    if (w->stats.exited < f->history) f->exited_at[w->stats.exited] = at;
    w->stats.exited++;
}

/* ---- spawning, at the start of a step ---------------------------------------------------- */

/* Append a body to the spawning scratch. In one process there is room (the scratch grows with
 * the agents in th_flow_reserve); bodies gathered from other ranks may need more, grown here
 * (doubling, so only until the largest need is seen). False when memory is short: an error of
 * the step (th_step_fail), not a programmer's, and the spawner waits for the next step. */
static bool near_add(th_world *w, th_flow *f, float x, float y, float r) {
    if (!th_array_reserve((void **)&f->near, 3 * sizeof *f->near, f->near_count, &f->capacity,
                          f->near_count + 1, 256, UINT32_MAX)) {
        th_step_fail(w, TH_ERR_NOMEM, "out of memory for the bodies near a spawner");
        return false;
    }
    float *b = &f->near[3 * (size_t)f->near_count++];
    b[0] = x;
    b[1] = y;
    b[2] = r;
    return true;
}

/* The index cell of a coordinate along an axis of n cells of width cw. */
static int32_t near_cell(float x, float cw, int32_t n) {
    const int32_t c = (int32_t)floorf(x / cw);
    return c < 0 ? 0 : c >= n ? n - 1 : c;
}

static uint32_t near_slot(const th_flow *f, int32_t cx, int32_t cy) {
    const uint64_t key = (uint64_t)(uint32_t)cy * (uint64_t)(uint32_t)f->nx + (uint32_t)cx;
    return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & f->head_mask;
}

static void near_link(th_flow *f, uint32_t b) {
    const float *p = &f->near[3 * (size_t)b];
    const uint32_t h =
        near_slot(f, near_cell(p[0], f->cell_w, f->nx), near_cell(p[1], f->cell_h, f->ny));
    f->link[b] = f->head[h];
    f->head[h] = b + 1;
}

/* Index the bodies in `near` on cells at least `reach` wide (with a margin for rounding). A
 * table of a power of two at least twice the bodies, cleared here: the cost is the bodies'. */
static bool near_index(th_world *w, th_flow *f, float reach) {
    if (!near_links_fit(f)) {
        th_step_fail(w, TH_ERR_NOMEM, "out of memory for the bodies near a spawner");
        return false;
    }
    const float cell = reach * 1.001f + 1e-6f;
    const double nx = floor((double)w->def.width / cell), ny = floor((double)w->def.height / cell);
    f->nx = nx < 1.0 ? 1 : nx > 1e9 ? 1000000000 : (int32_t)nx;
    f->ny = ny < 1.0 ? 1 : ny > 1e9 ? 1000000000 : (int32_t)ny;
    f->cell_w = w->def.width / (float)f->nx;
    f->cell_h = w->def.height / (float)f->ny;
    uint32_t size = 64;
    while (size < 2u * (uint64_t)f->near_count && 2u * (uint64_t)size <= f->head_cap) size *= 2;
    f->head_mask = size - 1;
    memset(f->head, 0, size * sizeof *f->head);
    for (uint32_t b = 0; b < f->near_count; b++) near_link(f, b);
    return true;
}

/* Add a body just placed to `near` and its index (indexed afresh when the table grew). */
static bool near_place(th_world *w, th_flow *f, float x, float y, float r, float reach) {
    if (!near_add(w, f, x, y, r)) return false;
    const uint32_t table = f->head_cap;
    if (!near_links_fit(f)) {
        f->near_count--;
        th_step_fail(w, TH_ERR_NOMEM, "out of memory for the bodies near a spawner");
        return false;
    }
    if (f->head_cap != table) return near_index(w, f, reach);
    near_link(f, f->near_count - 1);
    return true;
}

/* Draw try `t` of the agent at the head of spawner i's queue. */
static th_vec2 draw(const th_world *w, const th_spawner *s, uint32_t i, uint32_t t) {
    const uint64_t key = TH_SPAWN_KEY | (uint64_t)i << 32 | s->emitted;
    const uint64_t c = ((uint64_t)s->attempts * TH_SPAWN_TRIES + t) * 2u;
    const float u = th_rng_f01(w->def.seed, key, c), v = th_rng_f01(w->def.seed, key, c + 1);
    if (!s->cells) return th_v2(s->x0 + u * (s->x1 - s->x0), s->y0 + v * (s->y1 - s->y0));
    const uint64_t r = th_rng_u64(w->def.seed, key ^ 0x8000000000000000ull, c);
    const th_cell_ref cell = s->cells[((r >> 32) * s->cell_count) >> 32];
    const float cs = w->nav.map.cell_size;
    return th_v2(((float)cell.x + u) * cs, ((float)cell.y + v) * cs);
}

/* The bodies that could touch a body of radius r placed in the area: their nearest image lies
 * within the area's half extent plus r and the largest radius. */
static bool collect_near(th_world *w, const th_spawner *s, float r) {
    th_flow *f = w->flow;
    const th_agents *a = &w->buf[w->cur];
    float x0 = s->x0, y0 = s->y0, x1 = s->x1, y1 = s->y1;
    if (s->cells) {
        const float cs = w->nav.map.cell_size;
        x0 = y0 = INFINITY;
        x1 = y1 = -INFINITY;
        for (uint32_t k = 0; k < s->cell_count; k++) {
            x0 = fminf(x0, (float)s->cells[k].x * cs);
            y0 = fminf(y0, (float)s->cells[k].y * cs);
            x1 = fmaxf(x1, (float)(s->cells[k].x + 1) * cs);
            y1 = fmaxf(y1, (float)(s->cells[k].y + 1) * cs);
        }
    }
    const th_vec2 c = th_v2(0.5f * (x0 + x1), 0.5f * (y0 + y1));
    const float reach = r + w->max_radius;
    const float hx = 0.5f * (x1 - x0) + reach, hy = 0.5f * (y1 - y0) + reach;
    f->near_count = 0;
    for (uint32_t k = 0; k < w->count; k++) {
        const float r_k = w->crowd_radius[a->crowd[k]];
        if (r_k <= 0.0f) continue;
        const th_vec2 d = th_min_image(th_v2(a->px[k] - c.x, a->py[k] - c.y), w->wrap, w->def.width,
                                       w->def.height);
        if (fabsf(d.x) <= hx && fabsf(d.y) <= hy && !near_add(w, f, a->px[k], a->py[k], r_k))
            return false;
    }
    if (th_dist_serial_active(w))
        f->near_count = th_dist_gather_near(w, &f->near, f->near_count, &f->capacity);
    return near_index(w, f, reach);
}

/* Whether an agent of radius r may appear at p. */
static bool free_at(const th_world *w, th_vec2 p, float r) {
    if (!(p.x >= 0.0f && p.x < w->def.width && p.y >= 0.0f && p.y < w->def.height)) return false;
    if (w->nav.present && th_navmap_blocked_at(&w->nav.map, p)) return false;
    if (r <= 0.0f) return true;
    float dist;
    th_vec2 away;
    if (th_nav_nearest_wall(w, p, r, &dist, &away)) return false;
    if (!w->wrap && (p.x < r || p.y < r || p.x > w->def.width - r || p.y > w->def.height - r))
        return false;
    /* The bodies in the 3 x 3 cells around p (across the edges of a wrap-around world): any
     * that touches a body of radius r at p is within a reach, so in one of them. A cell seen
     * twice in a narrow world, or a slot two cells share, costs a repeated test, not an error. */
    const th_flow *f = w->flow;
    const int32_t cx = near_cell(p.x, f->cell_w, f->nx), cy = near_cell(p.y, f->cell_h, f->ny);
    for (int32_t dy = -1; dy <= 1; dy++) {
        int32_t y = cy + dy;
        if (y < 0 || y >= f->ny) {
            if (!w->wrap) continue;
            y = (y + f->ny) % f->ny;
        }
        for (int32_t dx = -1; dx <= 1; dx++) {
            int32_t x = cx + dx;
            if (x < 0 || x >= f->nx) {
                if (!w->wrap) continue;
                x = (x + f->nx) % f->nx;
            }
            for (uint32_t n = f->head[near_slot(f, x, y)]; n; n = f->link[n - 1]) {
                const float *b = &f->near[3 * (size_t)(n - 1)];
                const float rk = b[2];
                const th_vec2 d = th_min_image(th_v2(b[0] - p.x, b[1] - p.y), w->wrap, w->def.width,
                                               w->def.height);
                if (th_v2_len2(d) < (r + rk) * (r + rk)) return false;
            }
        }
    }
    return true;
}

void th_flow_spawn(th_world *w) {
    th_flow *f = w->flow;
    /* New bodies never touch anything, so the contacts phase needs no settling rounds for them
     * (th_world_add_agent asks for those, for bodies dropped at random). */
    const bool settle = w->settle;
    th_error e; /* written by th_agent_add only when it fails */
    e.code = TH_OK;
    for (uint32_t i = 0; i < f->spawner_count; i++) {
        th_spawner *s = &f->sp[i];
        s->due = capped(s, owed_by(s, w->step));
        if (s->emitted >= s->due) continue;
        const float r = w->crowd_radius[s->crowd];
        /* Without every body near the gate known, none is placed: the spawner waits. */
        if (r > 0.0f && !collect_near(w, s, r)) continue;
        while (s->emitted < s->due) {
            bool placed = false;
            th_vec2 p = th_v2(0.0f, 0.0f);
            for (uint32_t t = 0; t < TH_SPAWN_TRIES && !placed; t++) {
                p = draw(w, s, i, t);
                /* x0 + u (x1 - x0) can round up to x1, which is not in [x0, x1). */
                placed = (s->cells || (p.x < s->x1 && p.y < s->y1)) && free_at(w, p, r);
            }
            /* No room (or no id left): the rest of the queue waits for the next step. */
            if (!placed || !th_agent_id_valid(th_agent_add(w, s->crowd, p, s->velocity, &e))) {
                if (placed && e.code == TH_ERR_NOMEM) {
                    char why[sizeof e.message + 96];
                    snprintf(why, sizeof why, "spawner '%s' could not add its agent %u: %s",
                             s->name, s->emitted + 1, e.message);
                    th_step_fail(w, e.code, why);
                }
                s->attempts++;
                break;
            }
            /* On every rank: the new body is stored only by its owner. */
            s->emitted++;
            s->attempts = 0;
            /* Without room to remember the body, the next could be placed on it: the rest of
             * the queue waits for the next step, which collects the bodies afresh. */
            if (r > 0.0f && !near_place(w, f, p.x, p.y, r, r + w->max_radius)) break;
        }
    }
    w->settle = settle;
}

void th_flow_hash(const th_world *w, th_hasher *h) {
    const th_flow *f = w->flow;
    for (uint32_t i = 0; i < f->spawner_count; i++) th_hash_u32(h, f->sp[i].emitted);
    for (uint32_t i = 0; i < f->exit_count; i++) th_hash_u32(h, f->ex[i].exited);
}

static void hash_name(th_hasher *h, const char *s) {
    const size_t n = strlen(s);
    th_hash_u64(h, n);
    for (size_t i = 0; i < n; i++) th_hash_u32(h, (unsigned char)s[i]);
}

void th_flow_digest(const th_world *w, th_hasher *spawners, th_hasher *exits) {
    const th_flow *f = w->flow;
    th_hash_u32(spawners, f->spawner_count);
    for (uint32_t i = 0; i < f->spawner_count; i++) {
        const th_spawner *s = &f->sp[i];
        hash_name(spawners, s->name);
        th_hash_u32(spawners, s->crowd);
        /* The rectangle, or the cells: a cell spawner's rectangle is whatever the def held, and
         * is never read. */
        th_hash_u32(spawners, s->cell_count);
        if (!s->cells) {
            th_hash_f32(spawners, s->x0);
            th_hash_f32(spawners, s->y0);
            th_hash_f32(spawners, s->x1);
            th_hash_f32(spawners, s->y1);
        }
        for (uint32_t k = 0; s->cells && k < s->cell_count; k++) {
            th_hash_u32(spawners, (uint32_t)s->cells[k].x);
            th_hash_u32(spawners, (uint32_t)s->cells[k].y);
        }
        th_hash_u64(spawners, s->q);
        th_hash_u64(spawners, s->s0);
        th_hash_u64(spawners, s->s1);
        th_hash_u64(spawners, s->limit);
        th_hash_u64(spawners, s->total);
        th_hash_f32(spawners, s->velocity.x);
        th_hash_f32(spawners, s->velocity.y);
        th_hash_u32(spawners, s->emitted);
        th_hash_u64(spawners, s->due);
        th_hash_u32(spawners, s->attempts);
    }
    th_hash_u32(exits, f->exit_count);
    th_hash_u64(exits, f->all_exits);
    for (uint32_t c = 0; c < w->crowd_count; c++) th_hash_u64(exits, f->crowd_exits[c]);
    for (uint32_t i = 0; i < f->exit_count; i++) {
        const th_exit *e = &f->ex[i];
        hash_name(exits, e->name);
        th_hash_u32(exits, e->by_cell);
        th_hash_u32(exits, e->exited);
        /* A flow limit and how far it is used (nothing without one: digests of worlds without
         * limits read as before they existed). */
        if (e->limit.rate > 0.0f) {
            th_hash_f32(exits, e->limit.rate);
            th_hash_f64(exits, e->limit.credit);
            th_hash_u64(exits, e->limit.step);
        }
        if (!e->by_cell) { /* the rectangle, or the cells (as for spawners) */
            th_hash_f32(exits, e->x0);
            th_hash_f32(exits, e->y0);
            th_hash_f32(exits, e->x1);
            th_hash_f32(exits, e->y1);
            continue;
        }
        th_hash_u32(exits, (uint32_t)e->cx0);
        th_hash_u32(exits, (uint32_t)e->cy0);
        th_hash_u32(exits, (uint32_t)e->cx1);
        th_hash_u32(exits, (uint32_t)e->cy1);
        const size_t bw = (size_t)(e->cx1 - e->cx0 + 1), bh = (size_t)(e->cy1 - e->cy0 + 1);
        for (size_t b = 0; b < (bw * bh + 7) / 8; b++) th_hash_u32(exits, e->bits[b]);
    }
}

bool th_flow_validate(const th_world *w, char *msg, size_t cap) {
    const th_flow *f = w->flow;
    uint64_t exited = 0;
    for (uint32_t i = 0; i < f->exit_count; i++) exited += f->ex[i].exited;
    if (exited != w->stats.exited) {
        snprintf(msg, cap, "exits count %llu agents out, the world counts %u exited",
                 (unsigned long long)exited, w->stats.exited);
        return false;
    }
    uint64_t emitted = 0;
    for (uint32_t i = 0; i < f->spawner_count; i++) {
        const th_spawner *s = &f->sp[i];
        emitted += s->emitted;
        if (s->emitted > s->due || (s->total != UINT64_MAX && s->emitted > s->total)) {
            snprintf(msg, cap, "spawner '%s' added %u agents, more than the %llu due", s->name,
                     s->emitted, (unsigned long long)s->due);
            return false;
        }
    }
    if (emitted > w->spawned) {
        snprintf(msg, cap, "spawners added %llu agents, the world added %u in all",
                 (unsigned long long)emitted, w->spawned);
        return false;
    }
    return true;
}
