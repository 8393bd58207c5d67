/* Ant-colony foraging: a crowd goal (TH_GOAL_FORAGE) on a pheromone grid of the crowd's own.
 *
 * The model is the one of Deneubourg, Aron, Goss and Pasteels (1990) and of Resnick's StarLogo
 * ants, as docs/ants.md describes: an ant searches, walking a heading that drifts at random,
 * until it steps into a food source with food left; it takes one unit and walks home to the
 * nest, marking every pheromone cell it enters; at the nest it drops the food and turns back.
 * A searching ant samples the pheromone ahead of it, to the left and to the right, and with
 * probability `follow` per step turns toward the strongest sample; every cell loses its
 * pheromone as exp(-evaporation t), so a trail that nobody reinforces fades.
 *
 * Who writes what, and when (the determinism contract):
 *   - steering (parallel) reads an ant's state and the grid, writes nothing here;
 *   - integration (parallel) turns each searching ant's heading, in its own th_goal_state
 *     slot, reading the grid and the food left (neither is written in that phase);
 *   - bookkeeping (serial) evaporates the grid (in parallel over cells: each cell is its own
 *     product, so the split does not matter), then walks the agents in storage order for
 *     pickups, drops and deposits. Storage order is the grid's cell order, the same for any
 *     thread count, so the first ants in it get the last units of a source.
 * Nothing here allocates after th_forage_create, except the exchange buffers of a world split
 * over ranks, which grow to their high-water mark and are then reused (update_split). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "engine/alloc.h"
#include "engine/hash.h"
#include "engine/rng.h"
#include "sim/behave/forage.h"
#include "sim/core/world.h"
#include "sim/dist/dist.h"
#include "sim/dist/dist_serial.h"

typedef struct th_colony th_colony;

/* Key of a searching ant's random draws: counter 2 step follows-or-not, 2 step + 1 the drift. */
#define FORAGE_KEY 0xa4750000000000ull

/* Most pheromone cells of a colony (64 MiB of floats) and most nest cells in its field. */
#define MAX_PHEROMONE_CELLS (1u << 24)
#define MAX_NEST_CELLS      65536u

/* Cells per evaporation job: 64 KiB of floats, whole cache lines each side of every cut. */
#define EVAPORATE_CHUNK 16384u

/* Pheromone below this is set to 0: an old trail would otherwise decay into subnormal floats,
 * which are slow to multiply on some machines, for hours. */
#define PHEROMONE_FLOOR 1e-20f

static const float k_pi = 3.14159265358979f;

struct th_colony {
    th_forage_def def; /* defaults filled in; food points at `food` */
    th_food_source food[TH_MAX_FOOD_SOURCES];
    uint32_t remaining[TH_MAX_FOOD_SOURCES];
    int32_t cols, rows;
    float cell, inv_cell;
    float *pher; /* cols x rows, row-major from the south-west corner */
    float keep;  /* exp(-evaporation dt): what a cell keeps of its pheromone per step */
    float nest_r2;
    float sense_angle; /* radians */
    float turn;        /* radians a following ant turns per step, at most sense_angle */
    int32_t field;     /* the nest's destination field, or -1 without a map */
    uint64_t taken, delivered;
};

static float wrap_angle(float a) {
    if (a > k_pi) a -= 2.0f * k_pi;
    else if (a <= -k_pi) a += 2.0f * k_pi;
    return a;
}

static bool in_range(float v, float lo, float hi) { return isfinite(v) && v > lo && v <= hi; }

/* Defaults for zero fields (th_forage_def documents them). */
static th_forage_def with_defaults(const th_forage_def *f) {
    th_forage_def d = *f;
    if (d.nest_radius == 0.0f) d.nest_radius = 2.0f;
    if (d.deposit == 0.0f) d.deposit = 1.0f;
    if (d.evaporation == 0.0f) d.evaporation = 0.05f;
    if (d.follow == 0.0f) d.follow = 0.9f;
    if (d.sense_angle == 0.0f) d.sense_angle = 45.0f;
    if (d.sense_distance == 0.0f) d.sense_distance = 2.0f;
    if (d.turn_rate == 0.0f) d.turn_rate = 360.0f;
    if (d.sensitivity == 0.0f) d.sensitivity = 0.01f * d.deposit;
    return d;
}

static bool point_ok(const th_world *w, th_vec2 q, const char *what, th_error *err) {
    if (!(q.x >= 0.0f && q.x < w->def.width && q.y >= 0.0f && q.y < w->def.height)) {
        th_error_set(err, th_error_point_code(q),
                     "goal forage: %s (%g, %g) is outside the world [0, %g) x [0, %g)", what,
                     (double)q.x, (double)q.y, (double)w->def.width, (double)w->def.height);
        return false;
    }
    if (w->nav.present && th_navmap_blocked_at(&w->nav.map, q)) {
        th_error_set(err, TH_ERR_BLOCKED, "goal forage: %s (%g, %g) is inside a wall", what,
                     (double)q.x, (double)q.y);
        return false;
    }
    return true;
}

bool th_forage_check(const th_world *w, const th_goal_def *g, th_error *err) {
    if (!g->forage) {
        th_error_set(err, TH_ERR_INVALID, "goal forage needs its parameters (goal.forage is NULL)");
        return false;
    }
    const th_forage_def d = with_defaults(g->forage);
    if (!point_ok(w, d.nest, "nest", err)) return false;
    if (!in_range(d.nest_radius, 0.0f, 1000.0f)) {
        th_error_set(err, TH_ERR_INVALID,
                     "goal forage: nest_radius must be in (0, 1000] metres, got %g",
                     (double)d.nest_radius);
        return false;
    }
    if (!d.food || d.food_count < 1 || d.food_count > TH_MAX_FOOD_SOURCES) {
        th_error_set(err, TH_ERR_INVALID, "goal forage needs 1 to %d food sources, got %u",
                     TH_MAX_FOOD_SOURCES, d.food ? d.food_count : 0u);
        return false;
    }
    for (uint32_t i = 0; i < d.food_count; i++) {
        char what[32];
        snprintf(what, sizeof what, "food source %u", i);
        if (!point_ok(w, d.food[i].at, what, err)) return false;
        const float r = d.food[i].radius;
        if (!(r == 0.0f || in_range(r, 0.0f, 1000.0f))) {
            th_error_set(err, TH_ERR_INVALID,
                         "goal forage: food source %u: radius must be in (0, 1000] metres, "
                         "got %g",
                         i, (double)r);
            return false;
        }
    }
    if (w->nav.present) {
        const float cs = w->nav.map.cell_size;
        if (d.cell_size != 0.0f && !(fabsf(d.cell_size - cs) <= 1e-6f * cs)) {
            th_error_set(err, TH_ERR_INVALID,
                         "goal forage: with a map the pheromone cells are the map's (%g m); "
                         "cell_size %g differs",
                         (double)cs, (double)d.cell_size);
            return false;
        }
    } else {
        const float cs = d.cell_size == 0.0f ? 1.0f : d.cell_size;
        if (!(isfinite(cs) && cs >= 0.1f && cs <= 100.0f)) {
            th_error_set(err, TH_ERR_INVALID,
                         "goal forage: cell_size must be in [0.1, 100] metres, got %g",
                         (double)d.cell_size);
            return false;
        }
        const double cells = ceil((double)w->def.width / cs) * ceil((double)w->def.height / cs);
        if (cells > (double)MAX_PHEROMONE_CELLS) {
            th_error_set(err, TH_ERR_LIMIT,
                         "goal forage: a pheromone grid of %g m cells over %g x %g m would "
                         "have %.0f cells, more than %u",
                         (double)cs, (double)w->def.width, (double)w->def.height, cells,
                         MAX_PHEROMONE_CELLS);
            return false;
        }
    }
    static const struct {
        const char *name, *unit;
        size_t off;
        float lo, hi;
    } ranges[] = {
        {"deposit", "", offsetof(th_forage_def, deposit), 0.0f, 1e6f},
        {"evaporation", " per second", offsetof(th_forage_def, evaporation), 0.0f, 100.0f},
        {"follow", "", offsetof(th_forage_def, follow), 0.0f, 1.0f},
        {"sense_angle", " degrees", offsetof(th_forage_def, sense_angle), 0.0f, 90.0f},
        {"sense_distance", " metres", offsetof(th_forage_def, sense_distance), 0.0f, 100.0f},
        {"turn_rate", " degrees per second", offsetof(th_forage_def, turn_rate), 0.0f, 100000.0f},
        {"sensitivity", "", offsetof(th_forage_def, sensitivity), 0.0f, 1e6f},
    };
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
        float v;
        memcpy(&v, (const char *)&d + ranges[i].off, sizeof v);
        if (!in_range(v, ranges[i].lo, ranges[i].hi)) {
            th_error_set(err, TH_ERR_INVALID, "goal forage: %s must be in (%g, %g]%s, got %g",
                         ranges[i].name, (double)ranges[i].lo, (double)ranges[i].hi, ranges[i].unit,
                         (double)v);
            return false;
        }
    }
    return true;
}

/* Whether cell (x, y) of the map belongs to the nest: its centre is within the nest's radius,
 * or it holds the nest's centre. */
static bool nest_cell(const th_navmap *m, const th_colony *col, int32_t x, int32_t y) {
    th_vec2 c = th_navmap_cell_centre(m, x, y);
    th_vec2 d = th_v2_sub(c, col->def.nest);
    if (th_v2_len2(d) <= col->nest_r2) return true;
    int32_t nx, ny;
    th_navmap_cell_of(m, col->def.nest, &nx, &ny);
    return nx == x && ny == y;
}

/* The nest's destination field: one goal per open nest cell. */
static bool make_nest_field(th_world *w, th_colony *col, th_error *err) {
    const th_navmap *m = &w->nav.map;
    const float r = col->def.nest_radius;
    int32_t x0, y0, x1, y1;
    th_navmap_cell_of(m, th_v2(col->def.nest.x - r, col->def.nest.y - r), &x0, &y0);
    th_navmap_cell_of(m, th_v2(col->def.nest.x + r, col->def.nest.y + r), &x1, &y1);
    const uint64_t span = (uint64_t)(x1 - x0 + 1) * (uint64_t)(y1 - y0 + 1);
    th_destination *goals =
        th_alloc((size_t)(span < MAX_NEST_CELLS ? span : MAX_NEST_CELLS) * sizeof *goals);
    if (!goals) {
        th_error_set(err, TH_ERR_NOMEM, "out of memory");
        return false;
    }
    uint32_t n = 0;
    for (int32_t y = y0; y <= y1; y++) {
        for (int32_t x = x0; x <= x1; x++) {
            if (th_navmap_is_blocked(m, x, y) || !nest_cell(m, col, x, y)) continue;
            if (n == MAX_NEST_CELLS) {
                th_free(goals);
                th_error_set(err, TH_ERR_LIMIT,
                             "goal forage: the nest covers more than %u open cells",
                             MAX_NEST_CELLS);
                return false;
            }
            goals[n++] = (th_destination){x, y, 0.0f};
        }
    }
    int field = th_nav_add_destinations(w, goals, n, err);
    th_free(goals);
    if (field < 0) return false;
    col->field = field;
    return true;
}

th_colony *th_forage_create(th_world *w, const th_goal_def *g, th_error *err) {
    th_colony *col = th_calloc(1, sizeof *col);
    if (!col) {
        th_error_set(err, TH_ERR_NOMEM, "out of memory");
        return NULL;
    }
    col->def = with_defaults(g->forage);
    memcpy(col->food, col->def.food, col->def.food_count * sizeof *col->food);
    col->def.food = col->food;
    for (uint32_t i = 0; i < col->def.food_count; i++) {
        if (col->food[i].radius == 0.0f) col->food[i].radius = 1.5f;
        col->remaining[i] = col->food[i].amount;
    }
    if (w->nav.present) {
        col->cols = w->nav.map.w;
        col->rows = w->nav.map.h;
        col->cell = w->nav.map.cell_size;
    } else {
        col->cell = col->def.cell_size == 0.0f ? 1.0f : col->def.cell_size;
        col->cols = (int32_t)ceil((double)w->def.width / col->cell);
        col->rows = (int32_t)ceil((double)w->def.height / col->cell);
    }
    col->def.cell_size = col->cell;
    col->inv_cell = 1.0f / col->cell;
    col->keep = expf(-col->def.evaporation * w->def.timestep);
    col->nest_r2 = col->def.nest_radius * col->def.nest_radius;
    col->sense_angle = col->def.sense_angle * (k_pi / 180.0f);
    col->turn = fminf(col->def.turn_rate * (k_pi / 180.0f) * w->def.timestep, col->sense_angle);
    col->field = -1;
    col->pher = th_calloc((size_t)col->cols * (size_t)col->rows, sizeof *col->pher);
    if (!col->pher || (w->nav.present && !make_nest_field(w, col, err))) {
        if (!col->pher) th_error_set(err, TH_ERR_NOMEM, "out of memory for the pheromone grid");
        th_forage_free(col);
        return NULL;
    }
    return col;
}

void th_forage_free(th_colony *col) {
    if (!col) return;
    th_free(col->pher);
    th_free(col);
}

const th_forage_def *th_forage_def_of(const th_colony *col) { return &col->def; }

/* ---- cells ------------------------------------------------------------------------------- */

/* Cell index of a point inside the world (clamped, as the map clamps). */
static uint32_t cell_of(const th_colony *col, th_vec2 p) {
    float fx = p.x * col->inv_cell, fy = p.y * col->inv_cell;
    int32_t x = fx >= 1.0f ? (int32_t)fx : 0, y = fy >= 1.0f ? (int32_t)fy : 0;
    if (!(fx < (float)col->cols)) x = col->cols - 1;
    if (!(fy < (float)col->rows)) y = col->rows - 1;
    return (uint32_t)y * (uint32_t)col->cols + (uint32_t)x;
}

/* Pheromone a sensor at q reads: wrapped around a torus, -1 off a walled world's edges and in
 * walls (a sensor there never wins). */
static float sense(const th_world *w, const th_colony *col, th_vec2 q) {
    const float W = w->def.width, H = w->def.height;
    if (w->wrap) {
        q.x = q.x < 0.0f ? q.x + W : q.x >= W ? q.x - W : q.x;
        q.y = q.y < 0.0f ? q.y + H : q.y >= H ? q.y - H : q.y;
    }
    if (!(q.x >= 0.0f && q.x < W && q.y >= 0.0f && q.y < H)) return -1.0f;
    if (w->nav.present && th_navmap_blocked_at(&w->nav.map, q)) return -1.0f;
    return col->pher[cell_of(col, q)];
}

static bool at_nest(const th_world *w, const th_colony *col, th_vec2 p) {
    th_vec2 d = th_min_image(th_v2_sub(col->def.nest, p), w->wrap, w->def.width, w->def.height);
    if (th_v2_len2(d) <= col->nest_r2) return true;
    if (!w->nav.present) return false;
    int32_t x, y;
    th_navmap_cell_of(&w->nav.map, p, &x, &y);
    return nest_cell(&w->nav.map, col, x, y);
}

/* The food source holding p with food left, lowest index first, or -1. */
static int source_at(const th_world *w, const th_colony *col, th_vec2 p) {
    for (uint32_t i = 0; i < col->def.food_count; i++) {
        if (!col->remaining[i]) continue;
        th_vec2 d =
            th_min_image(th_v2_sub(col->food[i].at, p), w->wrap, w->def.width, w->def.height);
        if (th_v2_len2(d) <= col->food[i].radius * col->food[i].radius) return (int)i;
    }
    return -1;
}

/* ---- agents ------------------------------------------------------------------------------ */

void th_forage_agent_added(th_world *w, th_agent_id id, th_vec2 v) {
    th_goal_state *s = &w->goal_state[th_id_slot(id)];
    s->angle = v.x != 0.0f || v.y != 0.0f ? atan2f(v.y, v.x)
                                          : th_rng_range(w->def.seed, FORAGE_KEY ^ th_agent_key(id),
                                                         UINT64_MAX, -k_pi, k_pi);
    s->mark = UINT32_MAX;
    s->carrying = false;
}

bool th_forage_direction(const th_world *w, th_agent_id id, const th_crowd_rt *c, th_vec2 p,
                         th_vec2 *dir) {
    const th_colony *col = c->colony;
    const th_goal_state *s = &w->goal_state[th_id_slot(id)];
    if (!s->carrying) {
        *dir = th_v2(cosf(s->angle), sinf(s->angle));
        return true;
    }
    if (col->field >= 0) return th_nav_flow_sample(&w->nav.dest[col->field], &w->nav.map, p, dir);
    *dir =
        th_v2_norm(th_min_image(th_v2_sub(col->def.nest, p), w->wrap, w->def.width, w->def.height));
    return true;
}

void th_forage_moved(th_world *w, th_agent_id id, const th_crowd_rt *c, th_vec2 p, th_vec2 v) {
    const th_colony *col = c->colony;
    th_goal_state *s = &w->goal_state[th_id_slot(id)];
    if (s->carrying) {
        /* Carried home by the field; the heading follows the way walked, so that the ant turns
         * back along it when it drops the food. */
        if (v.x != 0.0f || v.y != 0.0f) s->angle = atan2f(v.y, v.x);
        return;
    }
    float a = s->angle;
    /* Turned back by a wall or the world's edge: take the way it is actually going (as the
     * wander goal does), or it would keep pressing against the wall. */
    if (v.x * cosf(a) + v.y * sinf(a) < 0.0f) a = atan2f(v.y, v.x);
    /* Food within reach of the sensors draws the ant straight in: the nearest source. */
    float best = INFINITY;
    th_vec2 to_food = th_v2(0.0f, 0.0f);
    for (uint32_t i = 0; i < col->def.food_count; i++) {
        if (!col->remaining[i]) continue;
        th_vec2 d =
            th_min_image(th_v2_sub(col->food[i].at, p), w->wrap, w->def.width, w->def.height);
        const float reach = col->food[i].radius + col->def.sense_distance;
        const float d2 = th_v2_len2(d);
        if (d2 <= reach * reach && d2 < best) {
            best = d2;
            to_food = d;
        }
    }
    if (best < INFINITY) {
        if (to_food.x != 0.0f || to_food.y != 0.0f) a = atan2f(to_food.y, to_food.x);
        s->angle = wrap_angle(a);
        return;
    }
    /* The three sensors: ahead, and sense_angle to either side, sense_distance away. */
    const float r = col->def.sense_distance, t = col->sense_angle;
    const float mid = sense(w, col, th_v2(p.x + r * cosf(a), p.y + r * sinf(a)));
    const float left = sense(w, col, th_v2(p.x + r * cosf(a + t), p.y + r * sinf(a + t)));
    const float right = sense(w, col, th_v2(p.x + r * cosf(a - t), p.y + r * sinf(a - t)));
    const float top = fmaxf(mid, fmaxf(left, right));
    const uint64_t seed = w->def.seed, key = FORAGE_KEY ^ th_agent_key(id);
    if (top >= col->def.sensitivity && th_rng_f01(seed, key, 2 * w->step) < col->def.follow) {
        /* Follow: keep going while ahead is strongest, else turn toward the stronger side
         * (ties go left, a fixed rule). */
        if (mid < top) a += left >= right ? col->turn : -col->turn;
    } else {
        /* Uniform on [-sqrt 3, sqrt 3]: variance 1, as the wander goal draws it. */
        a += c->wander_sigma * th_rng_range(seed, key, 2 * w->step + 1, -1.7320508f, 1.7320508f);
    }
    s->angle = wrap_angle(a);
}

/* ---- bookkeeping ------------------------------------------------------------------------- */

static void evaporate_job(void *ctx, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    th_colony *col = ctx;
    const float keep = col->keep;
    float *p = col->pher;
    for (uint32_t i = begin; i < end; i++) {
        const float v = p[i] * keep;
        p[i] = v < PHEROMONE_FLOOR ? 0.0f : v;
    }
}

/* ---- bookkeeping over split agents ------------------------------------------------------- */

/* Under several ranks each rank walks only its own ants, but the grids, the food left and the
 * colony counts are replicated and must end as one process leaves them. Of the walk's effects,
 * only pickups depend on the order: a source with less food than the ants stepping into it
 * feeds the first in storage order. Deposits do not: every deposit on a colony's grid adds the
 * same `deposit`, so a cell ends at its evaporated value plus `deposit` added once per mark,
 * the same floats in whatever order the marks come. Drops are counts. So every rank lists its
 * marks, drops and pickup candidates, the lists of all ranks are gathered, the candidates are
 * sorted by global storage order (grid cell, id slot: th_drop_key) and the serial pickup rule
 * runs over them on every rank, which then also applies every mark and drop of every rank. Each
 * rank turns its own candidates that got food into carriers. */

enum { ITEM_PICKUP, ITEM_MARK, ITEM_DROP };

typedef struct forage_item {
    uint64_t key;     /* ITEM_PICKUP: global storage order (th_drop_key); first: th_sort_keyed */
    uint64_t sources; /* ITEM_PICKUP: bit i = the ant stands in source i, which had food */
    uint32_t cell;    /* ITEM_PICKUP, ITEM_MARK: the pheromone cell it marks */
    uint32_t local;   /* ITEM_PICKUP: storage index on its owner */
    uint16_t rank;    /* ITEM_PICKUP: its owner */
    uint8_t crowd;
    uint8_t kind;
    uint32_t zero; /* named, so that no padding byte goes out uninitialised */
} forage_item;

_Static_assert(TH_MAX_CROWDS <= 256, "a crowd index fits forage_item.crowd");
_Static_assert(TH_MAX_FOOD_SOURCES <= 64, "a colony's sources fit forage_item.sources");
_Static_assert(sizeof(forage_item) == 32, "forage_item has no padding");
_Static_assert(offsetof(forage_item, key) == 0 && sizeof(forage_item) <= TH_KEYED_MAX,
               "th_sort_keyed sorts forage_item by its key");

/* Buffers of the exchange, kept with the world and grown doubling (no allocation once warm). */
struct th_forage_replay {
    forage_item *mine, *all;
    uint32_t mine_cap, all_cap;
};

void th_forage_replay_free(th_world *w) {
    if (!w->forage_replay) return;
    th_free(w->forage_replay->mine);
    th_free(w->forage_replay->all);
    th_free(w->forage_replay);
    w->forage_replay = NULL;
}

/* The food sources holding p that have food left, as bits. */
static uint64_t sources_at(const th_world *w, const th_colony *col, th_vec2 p) {
    uint64_t m = 0;
    for (uint32_t i = 0; i < col->def.food_count; i++) {
        if (!col->remaining[i]) continue;
        th_vec2 d =
            th_min_image(th_v2_sub(col->food[i].at, p), w->wrap, w->def.width, w->def.height);
        if (th_v2_len2(d) <= col->food[i].radius * col->food[i].radius) m |= 1ull << i;
    }
    return m;
}

static void update_split(th_world *w) {
    if (!w->forage_replay) w->forage_replay = th_calloc(1, sizeof *w->forage_replay);
    struct th_forage_replay *r = w->forage_replay;
    if (!r || !th_dist_room((void **)&r->mine, &r->mine_cap, sizeof *r->mine, w->count)) {
        th_dist_out_of_memory(w, "in the exchange of foraging");
        return;
    }
    const th_agents *a = &w->buf[w->cur];
    const uint16_t me = (uint16_t)th_dist_rank(w);
    uint32_t n = 0;
    for (uint32_t k = 0; k < w->count; k++) {
        th_colony *col = w->crowd_rt[a->crowd[k]].colony;
        if (!col) continue;
        const th_vec2 p = th_v2(a->px[k], a->py[k]);
        th_goal_state *s = &w->goal_state[th_id_slot(a->id[k])];
        const uint32_t cell = cell_of(col, p);
        const uint8_t crowd = (uint8_t)a->crowd[k];
        if (s->carrying) {
            if (at_nest(w, col, p)) { /* the drop touches only this ant: done here */
                s->carrying = false;
                s->angle = wrap_angle(s->angle + k_pi);
                s->mark = UINT32_MAX;
                r->mine[n++] = (forage_item){.crowd = crowd, .kind = ITEM_DROP};
            } else if (cell != s->mark) {
                s->mark = cell;
                r->mine[n++] = (forage_item){.cell = cell, .crowd = crowd, .kind = ITEM_MARK};
            }
            continue;
        }
        const uint64_t m = sources_at(w, col, p);
        if (!m) continue;
        r->mine[n++] = (forage_item){
            .key = th_drop_key(w->cell[k], th_id_slot(a->id[k])),
            .sources = m,
            .cell = cell,
            .local = k,
            .rank = me,
            .crowd = crowd,
            .kind = ITEM_PICKUP,
        };
    }
    uint32_t total = 0;
    forage_item *all = th_dist_gather_all(w, r->mine, n, sizeof *r->mine, (void **)&r->all,
                                          &r->all_cap, 0, &total);
    if (!all) {
        th_dist_out_of_memory(w, "in the exchange of foraging");
        return;
    }
    /* Marks and drops in any order; the candidates to the front, in global storage order. */
    uint32_t picks = 0;
    for (uint32_t i = 0; i < total; i++) {
        th_colony *col = w->crowd_rt[all[i].crowd].colony;
        if (all[i].kind == ITEM_DROP) col->delivered++;
        else if (all[i].kind == ITEM_MARK) col->pher[all[i].cell] += col->def.deposit;
        else {
            const forage_item t = all[picks];
            all[picks++] = all[i];
            all[i] = t;
        }
    }
    th_sort_keyed(all, picks, sizeof *all);
    for (uint32_t i = 0; i < picks; i++) {
        const forage_item *e = &all[i];
        th_colony *col = w->crowd_rt[e->crowd].colony;
        /* source_at's rule: the lowest source holding the ant that still has food. */
        uint64_t m = e->sources;
        while (m && !col->remaining[__builtin_ctzll(m)]) m &= m - 1;
        if (!m) continue;
        col->remaining[__builtin_ctzll(m)]--;
        col->taken++;
        col->pher[e->cell] += col->def.deposit; /* it marks the food's cell as it turns */
        if (e->rank != me) continue;
        th_goal_state *s = &w->goal_state[th_id_slot(a->id[e->local])];
        s->carrying = true;
        s->angle = wrap_angle(s->angle + k_pi);
        s->mark = e->cell;
    }
}

void th_forage_update(th_world *w) {
    for (uint32_t c = 0; c < w->crowd_count; c++) {
        th_colony *col = w->crowd_rt[c].colony;
        if (col)
            th_pool_parallel_for(w->pool, (uint32_t)col->cols * (uint32_t)col->rows,
                                 EVAPORATE_CHUNK, evaporate_job, col);
    }
    if (th_dist_serial_active(w) || th_dist_serial_forced(w)) {
        update_split(w);
        return;
    }
    const th_agents *a = &w->buf[w->cur];
    for (uint32_t k = 0; k < w->count; k++) {
        th_colony *col = w->crowd_rt[a->crowd[k]].colony;
        if (!col) continue;
        const th_vec2 p = th_v2(a->px[k], a->py[k]);
        th_goal_state *s = &w->goal_state[th_id_slot(a->id[k])];
        const uint32_t cell = cell_of(col, p);
        if (s->carrying) {
            if (at_nest(w, col, p)) {
                s->carrying = false;
                col->delivered++;
                s->angle = wrap_angle(s->angle + k_pi); /* back the way it came */
                s->mark = UINT32_MAX;
                continue;
            }
        } else {
            const int src = source_at(w, col, p);
            if (src < 0) continue;
            col->remaining[src]--;
            col->taken++;
            s->carrying = true;
            s->angle = wrap_angle(s->angle + k_pi);
            s->mark = UINT32_MAX;
        }
        /* Carrying: mark each cell once on entering it (the food's own cell included), so the
         * trail's strength counts the ants that walked it, not how slowly they walked. */
        if (cell != s->mark) {
            col->pher[cell] += col->def.deposit;
            s->mark = cell;
        }
    }
}

void th_forage_hash(const th_world *w, th_hasher *h) {
    for (uint32_t c = 0; c < w->crowd_count; c++) {
        const th_colony *col = w->crowd_rt[c].colony;
        if (!col) continue;
        th_hash_u64(h, col->taken);
        th_hash_u64(h, col->delivered);
        for (uint32_t i = 0; i < col->def.food_count; i++) th_hash_u32(h, col->remaining[i]);
        const uint32_t n = (uint32_t)col->cols * (uint32_t)col->rows;
        for (uint32_t i = 0; i < n; i++) th_hash_f32(h, col->pher[i]);
    }
}

/* ---- public reads ------------------------------------------------------------------------ */

static const th_colony *colony_of(const th_world *w, uint32_t crowd) {
    return crowd < w->crowd_count ? w->crowd_rt[crowd].colony : NULL;
}

bool th_world_get_forage(const th_world *w, th_crowd_id handle, th_forage_info *out) {
    if (!w || !out) return false;
    const uint32_t crowd = TH_INDEX(handle);
    const th_colony *col = colony_of(w, crowd);
    if (!col) return false;
    const th_agents *a = &w->buf[w->cur];
    uint32_t carried = 0;
    for (uint32_t k = 0; k < w->count; k++)
        carried += a->crowd[k] == crowd && w->goal_state[th_id_slot(a->id[k])].carrying;
    double sum = 0.0;
    const uint32_t n = (uint32_t)col->cols * (uint32_t)col->rows;
    for (uint32_t i = 0; i < n; i++) sum += col->pher[i];
    *out = (th_forage_info){
        .nest = col->def.nest,
        .nest_radius = col->def.nest_radius,
        .sources = col->def.food_count,
        .taken = col->taken,
        .delivered = col->delivered,
        .carried = carried,
        .lost = col->taken - col->delivered - carried,
        .pheromone = sum,
    };
    return true;
}

bool th_world_get_food_source(const th_world *w, th_crowd_id crowd, uint32_t source,
                              th_food_info *out) {
    if (!w || !out) return false;
    const th_colony *col = colony_of(w, TH_INDEX(crowd));
    if (!col || source >= col->def.food_count) return false;
    *out = (th_food_info){col->food[source].at, col->food[source].radius, col->food[source].amount,
                          col->remaining[source]};
    return true;
}

const float *th_world_pheromone(const th_world *w, th_crowd_id crowd, int32_t *cols, int32_t *rows,
                                float *cell_size) {
    if (!w) return NULL;
    const th_colony *col = colony_of(w, TH_INDEX(crowd));
    if (!col) return NULL;
    if (cols) *cols = col->cols;
    if (rows) *rows = col->rows;
    if (cell_size) *cell_size = col->cell;
    return col->pher;
}

bool th_world_add_pheromone(th_world *w, th_crowd_id handle, th_vec2 p, float amount,
                            th_error *err) {
    if (!th_between_steps(w, err)) return false;
    if (!th_handle_given(handle.index1, "crowd", err)) return false;
    const uint32_t crowd = TH_INDEX(handle);
    if (crowd >= w->crowd_count) {
        th_error_set(err, TH_ERR_HANDLE, "no crowd %u (the world has %u)", crowd, w->crowd_count);
        return false;
    }
    th_colony *col = w->crowd_rt[crowd].colony;
    if (!col) {
        th_error_set(err, TH_ERR_STATE, "crowd %u does not forage", crowd);
        return false;
    }
    if (!(p.x >= 0.0f && p.x < w->def.width && p.y >= 0.0f && p.y < w->def.height)) {
        th_error_set(err, th_error_point_code(p),
                     "point (%g, %g) is outside the world [0, %g) x [0, %g)", (double)p.x,
                     (double)p.y, (double)w->def.width, (double)w->def.height);
        return false;
    }
    if (!(fabsf(amount) <= TH_MAX_PHEROMONE)) {
        th_error_set(err, TH_ERR_INVALID, "pheromone amount must be in [-%g, %g], got %g",
                     (double)TH_MAX_PHEROMONE, (double)TH_MAX_PHEROMONE, (double)amount);
        return false;
    }
    /* Adding stops at TH_MAX_PHEROMONE, but never lowers a cell that deposits took above it;
     * taking away stops at 0. Both terms are bounded, so the sum is finite. */
    float *v = &col->pher[cell_of(col, p)];
    const float sum = *v + amount;
    *v = sum <= 0.0f ? 0.0f : amount > 0.0f ? fmaxf(*v, fminf(sum, TH_MAX_PHEROMONE)) : sum;
    return true;
}
