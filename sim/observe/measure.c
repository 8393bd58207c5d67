/* Measurement areas and lines: counted once per step, serially, in storage order.
 *
 * Why the figures do not depend on the thread count or on the order agents are stored in:
 * counts are integers, and speeds are summed in fixed point (units of 2^-24 m/s, rounded per
 * agent), so every sum is exact and the same in any order. The pass can then walk the agents
 * in storage order, sequentially; walking them in id order instead (scattered reads) took
 * 4.5 ms per step at 100k agents against 25 ms of steering. Nothing runs in worlds that
 * measure nothing.
 *
 * Crossings need each agent's position after the previous step. It is kept by id slot in arrays
 * sized with the id capacity (grown by th_world_add_agent's reserve, never in a step), and
 * set when an agent is added, so a crossing in an agent's first step counts too. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/alloc.h"
#include "sim/behave/elevator.h"
#include "sim/core/world.h"
#include "sim/dist/dist.h"
#include "sim/dist/dist_serial.h"
#include "sim/observe/measure.h"

typedef struct measure_area {
    char name[64];
    float x0, y0, x1, y1;
    uint32_t count;
    int64_t speed_sum; /* units of SPEED_UNIT: 1000 m/s x 2^24 x 2^24 agents < 2^63 */
    th_lane_def lanes; /* axis TH_LANE_OFF: none; otherwise defaults filled in */
    uint64_t lane_sum; /* sum of phi_j in units of LANE_UNIT: 2^32 x 2^24 agents < 2^64 */
    uint32_t lane_n;   /* agents with a neighbour in their band (phi_j defined) */
    uint32_t lane_fwd, lane_bwd;
} measure_area;

#define LANE_UNIT 0x1p-32

/* One agent of a lane-measured area: its coordinates along and across the axis, the sign of
 * its velocity along it, and the neighbours counted in its band. */
typedef struct lane_pt {
    float along, across;
    int32_t dir;
    uint32_t same, opp;
} lane_pt;

#define SPEED_UNIT     0x1p-24
#define PREFETCH_AHEAD 16u

typedef struct measure_line {
    char name[64];
    th_vec2 a, b;
    uint32_t window_steps;
    int32_t *ring;       /* net crossings of each of the last window_steps steps */
    uint32_t ring_at;    /* slot the next step writes */
    int64_t ring_sum;    /* sum of the ring */
    uint64_t steps_seen; /* steps measured since the line was added */
    int32_t crossed;
    uint32_t forward, backward;
    int64_t crossed_total;
    uint64_t forward_total, backward_total;
} measure_line;

struct th_measure {
    measure_area area[TH_MAX_MEASURE_AREAS];
    uint32_t area_count;
    measure_line line[TH_MAX_MEASURE_LINES];
    uint32_t line_count;
    th_vec2 *prev; /* by id, w->id_capacity entries; NULL until the first line. One array of
                      pairs, not two: the step reads it scattered, and x and y then share
                      a cache line (two arrays cost a second miss per agent) */
    lane_pt *lane; /* scratch for the lane order parameter, w->id_capacity entries (no
                      more agents than id slots are alive); NULL until the first area with
                      lanes */
    uint32_t lane_cap;
};

void th_measure_free(th_world *w) {
    struct th_measure *m = w->measure;
    if (!m) return;
    for (uint32_t l = 0; l < m->line_count; l++) th_free(m->line[l].ring);
    th_free(m->prev);
    th_free(m->lane);
    th_free(m);
    w->measure = NULL;
}

bool th_measure_reserve(th_world *w, uint32_t keep, uint32_t cap) {
    struct th_measure *m = w->measure;
    if (!m) return true;
    if (m->lane) {
        if (!th_grow_array((void **)&m->lane, sizeof *m->lane, 0, cap)) return false;
        m->lane_cap = cap;
    }
    if (!m->prev) return true;
    return th_grow_array((void **)&m->prev, sizeof *m->prev, keep, cap);
}

/* A migrant carries where it was after the last step, for its next crossing of a line. */
size_t th_measure_wire_size(const th_world *w) {
    return w->measure && w->measure->prev ? sizeof(th_vec2) : 0;
}

void th_measure_pack(th_world *w, uint32_t slot, unsigned char *p) {
    if (th_measure_wire_size(w)) memcpy(p, &w->measure->prev[slot], sizeof(th_vec2));
}

bool th_measure_unpack(th_world *w, th_agent_id id, const unsigned char *p) {
    if (th_measure_wire_size(w)) memcpy(&w->measure->prev[th_id_slot(id)], p, sizeof(th_vec2));
    return true;
}

void th_measure_agent_added(th_world *w, th_agent_id id, th_vec2 p) {
    struct th_measure *m = w->measure;
    if (!m || !m->prev) return;
    m->prev[th_id_slot(id)] = p;
}

/* ---- geometry ---------------------------------------------------------------------------- */

/* Twice the signed area of (a, b, p): > 0 when p is left of a->b. Computed in double from float
 * inputs; the same inputs give the same answer on every run, which is what the counts need. */
static inline double orient(double ax, double ay, double bx, double by, double px, double py) {
    return (bx - ax) * (py - ay) - (by - ay) * (px - ax);
}

/* +1 when the move q -> p crosses line (a, b) from its left to its right, -1 for right to left,
 * 0 when it does not cross. Left is orient > 0; a point on the line is on the right, so the
 * sides partition the plane and a path's crossings add up to where it ends. */
static int crossing(double ax, double ay, double bx, double by, double qx, double qy, double px,
                    double py) {
    bool left_q = orient(ax, ay, bx, by, qx, qy) > 0.0;
    bool left_p = orient(ax, ay, bx, by, px, py) > 0.0;
    if (left_q == left_p) return 0;
    /* The move's supporting line separates (or touches) the line's ends: it meets the segment. */
    double oa = orient(qx, qy, px, py, ax, ay), ob = orient(qx, qy, px, py, bx, by);
    if ((oa > 0.0 && ob > 0.0) || (oa < 0.0 && ob < 0.0)) return 0;
    return left_q ? 1 : -1;
}

/* Crossings of the move q -> q + d, d the minimum-image displacement. In a wrap-around world
 * the move may leave the rectangle past the seam; the part beyond it is where the copy of the
 * line one world-width (or height) over is met, so those copies are tested too. */
static int line_crossing(const measure_line *L, double qx, double qy, double dx, double dy,
                         double W, double H) {
    double px = qx + dx, py = qy + dy;
    double ox[2] = {0.0, 0.0}, oy[2] = {0.0, 0.0};
    int nx = 1, ny = 1;
    if (px < 0.0) ox[nx++] = -W;
    else if (px >= W) ox[nx++] = W;
    if (py < 0.0) oy[ny++] = -H;
    else if (py >= H) oy[ny++] = H;
    int sum = 0;
    for (int i = 0; i < nx; i++) {
        for (int j = 0; j < ny; j++) {
            sum += crossing((double)L->a.x + ox[i], (double)L->a.y + oy[j], (double)L->b.x + ox[i],
                            (double)L->b.y + oy[j], qx, qy, px, py);
        }
    }
    return sum;
}

/* ---- the step's pass --------------------------------------------------------------------- */

/* The lane order parameter of area r (Rex & Löwen 2007): the agents inside moving along the
 * axis are gathered (storage order), then every pair is compared once: O(n^2) in the n agents
 * inside, no allocation. Each phi_j comes from two integer counts and is rounded to LANE_UNIT,
 * so the sum is exact and the result the same in any storage order. */
static void lane_order(const th_world *w, struct th_measure *m, measure_area *r) {
    r->lane_sum = 0;
    r->lane_n = r->lane_fwd = r->lane_bwd = 0;
    if (th_dist_serial_active(w)) return; /* the area's agents may be on several ranks */
    const th_agents *a = &w->buf[w->cur];
    const bool ax = r->lanes.axis == TH_LANE_X;
    const float vmin = r->lanes.min_speed;
    uint32_t n = 0;
    for (uint32_t k = 0; k < w->count; k++) {
        float x = a->px[k], y = a->py[k];
        if (!(x >= r->x0 && x < r->x1 && y >= r->y0 && y < r->y1)) continue;
        if (th_lift_riding(w, k)) continue; /* in a car */
        float v = ax ? a->vx[k] : a->vy[k];
        if (!(fabsf(v) >= vmin)) continue;
        if (n == m->lane_cap) return; /* cannot happen: fewer agents than id slots */
        m->lane[n++] = (lane_pt){ax ? x : y, ax ? y : x, v > 0.0f ? 1 : -1, 0, 0};
    }
    const double half_w = 0.5 * (double)r->lanes.width, half_l = 0.5 * (double)r->lanes.length;
    const double La = ax ? w->def.width : w->def.height, Lc = ax ? w->def.height : w->def.width;
    for (uint32_t i = 0; i < n; i++) {
        lane_pt *p = &m->lane[i];
        if (p->dir > 0) r->lane_fwd++;
        else r->lane_bwd++;
        for (uint32_t j = i + 1; j < n; j++) {
            lane_pt *q = &m->lane[j];
            double dc = fabs((double)q->across - p->across), da = fabs((double)q->along - p->along);
            if (w->wrap) { /* the nearest image, as the model sees neighbours */
                if (dc > 0.5 * Lc) dc = Lc - dc;
                if (da > 0.5 * La) da = La - da;
            }
            if (!(dc < half_w && da < half_l)) continue;
            if (p->dir == q->dir) p->same++, q->same++;
            else p->opp++, q->opp++;
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        const lane_pt *p = &m->lane[i];
        uint32_t t = p->same + p->opp;
        if (!t) continue;
        double d = ((double)p->same - (double)p->opp) / (double)t;
        r->lane_sum += (uint64_t)llround(d * d / LANE_UNIT);
        r->lane_n++;
    }
}

static void count_areas(th_world *w, struct th_measure *m) {
    for (uint32_t i = 0; i < m->area_count; i++) {
        m->area[i].count = 0;
        m->area[i].speed_sum = 0;
    }
    const th_agents *a = &w->buf[w->cur];
    for (uint32_t k = 0; k < w->count; k++) {
        float x = a->px[k], y = a->py[k];
        if (th_lift_riding(w, k)) continue; /* in a car, out of every area */
        for (uint32_t i = 0; i < m->area_count; i++) {
            measure_area *r = &m->area[i];
            if (x >= r->x0 && x < r->x1 && y >= r->y0 && y < r->y1) {
                double vx = a->vx[k], vy = a->vy[k];
                r->count++;
                r->speed_sum += llround(sqrt(vx * vx + vy * vy) / SPEED_UNIT);
            }
        }
    }
    /* Split agents: integer sums over ranks, exact in any order. */
    if (th_dist_serial_active(w)) {
        uint64_t v[2 * TH_MAX_MEASURE_AREAS];
        for (uint32_t i = 0; i < m->area_count; i++) {
            v[2 * i] = m->area[i].count;
            v[2 * i + 1] = (uint64_t)m->area[i].speed_sum; /* >= 0 */
        }
        th_dist_sum_u64(w, v, 2 * m->area_count);
        for (uint32_t i = 0; i < m->area_count; i++) {
            m->area[i].count = (uint32_t)v[2 * i];
            m->area[i].speed_sum = (int64_t)v[2 * i + 1];
        }
    }
    for (uint32_t i = 0; i < m->area_count; i++) {
        if (m->area[i].lanes.axis != TH_LANE_OFF) lane_order(w, m, &m->area[i]);
    }
}

void th_measure_update(th_world *w) {
    struct th_measure *m = w->measure;
    if (!m) return;
    if (m->area_count) count_areas(w, m);
    if (!m->line_count) return;
    for (uint32_t l = 0; l < m->line_count; l++) {
        measure_line *L = &m->line[l];
        L->forward = L->backward = 0;
    }
    const th_agents *a = &w->buf[w->cur];
    const double W = w->def.width, H = w->def.height;
    const bool wrap = w->wrap;
    const bool levels = w->nav.present && w->nav.level_count;
    for (uint32_t k = 0; k < w->count; k++) {
        const uint32_t id = th_id_slot(a->id[k]);
        /* prev is read by id, scattered: without a prefetch the wait for it was half of this
         * pass (perf, 100k agents). PREFETCH_AHEAD agents cover the miss latency. */
        if (k + PREFETCH_AHEAD < w->count)
            __builtin_prefetch(&m->prev[th_id_slot(a->id[k + PREFETCH_AHEAD])], 1);
        double qx = m->prev[id].x, qy = m->prev[id].y;
        double dx = (double)a->px[k] - qx, dy = (double)a->py[k] - qy;
        if (wrap) {
            if (dx > 0.5 * W) dx -= W;
            else if (dx < -0.5 * W) dx += W;
            if (dy > 0.5 * H) dy -= H;
            else if (dy < -0.5 * H) dy += H;
        }
        /* Bounding-box reject first: most agents are nowhere near most lines. */
        double lo_x = dx < 0.0 ? qx + dx : qx, hi_x = dx < 0.0 ? qx : qx + dx;
        double lo_y = dy < 0.0 ? qy + dy : qy, hi_y = dy < 0.0 ? qy : qy + dy;
        bool seam = wrap && (lo_x < 0.0 || hi_x >= W || lo_y < 0.0 || hi_y >= H);
        int jump = levels ? -1 : 0; /* -1: not looked at yet */
        for (uint32_t l = 0; l < m->line_count; l++) {
            measure_line *L = &m->line[l];
            if (!seam && (hi_x < fmin(L->a.x, L->b.x) || lo_x > fmax(L->a.x, L->b.x) ||
                          hi_y < fmin(L->a.y, L->b.y) || lo_y > fmax(L->a.y, L->b.y)))
                continue;
            /* A move from one level to another (across a stair's seam, out of an elevator)
             * jumps across the map: it crosses no line. */
            if (jump < 0)
                jump =
                    th_nav_other_level(w, th_v2((float)qx, (float)qy), th_v2(a->px[k], a->py[k]));
            if (jump) break;
            int c = line_crossing(L, qx, qy, dx, dy, W, H);
            if (c > 0) L->forward += (uint32_t)c;
            else if (c < 0) L->backward += (uint32_t)-c;
        }
        m->prev[id] = th_v2(a->px[k], a->py[k]);
    }
    /* Split agents: each rank counted the crossings of its own agents (prev travels with an
     * agent that changes rank); the counts are summed. */
    if (th_dist_serial_active(w)) {
        uint32_t v[2 * TH_MAX_MEASURE_LINES];
        for (uint32_t l = 0; l < m->line_count; l++) {
            v[2 * l] = m->line[l].forward;
            v[2 * l + 1] = m->line[l].backward;
        }
        th_dist_sum_u32(w, v, 2 * m->line_count);
        for (uint32_t l = 0; l < m->line_count; l++) {
            m->line[l].forward = v[2 * l];
            m->line[l].backward = v[2 * l + 1];
        }
    }
    for (uint32_t l = 0; l < m->line_count; l++) {
        measure_line *L = &m->line[l];
        L->crossed = (int32_t)L->forward - (int32_t)L->backward;
        L->forward_total += L->forward;
        L->backward_total += L->backward;
        L->crossed_total += L->crossed;
        L->ring_sum += (int64_t)L->crossed - L->ring[L->ring_at];
        L->ring[L->ring_at] = L->crossed;
        L->ring_at = L->ring_at + 1 == L->window_steps ? 0 : L->ring_at + 1;
        L->steps_seen++;
    }
}

/* ---- adding ------------------------------------------------------------------------------ */

static bool get_measure(th_world *w, th_error *err) {
    if (w->measure) return true;
    w->measure = th_calloc(1, sizeof *w->measure);
    if (!w->measure) th_error_set(err, TH_ERR_NOMEM, "out of memory");
    return w->measure != NULL;
}

/* Names become CSV column prefixes: keep them to characters no CSV reader quotes. */
static bool check_name(const th_world *w, const char *name, th_error *err) {
    size_t n = name ? strlen(name) : 0;
    if (n == 0 || n > 63) {
        th_error_set(err, TH_ERR_INVALID, "a measurement name has 1 to 63 characters, got %zu", n);
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '_' || c == '-' || c == '.';
        if (!ok) {
            th_error_set(err, TH_ERR_INVALID,
                         "measurement name '%s': only letters, digits, '_', '-' and '.' "
                         "are allowed (it names output columns)",
                         name);
            return false;
        }
    }
    const struct th_measure *m = w->measure;
    for (uint32_t i = 0; m && i < m->area_count; i++) {
        if (strcmp(m->area[i].name, name) == 0) {
            th_error_set(err, TH_ERR_INVALID, "measurement name '%s' is used twice (area %u)", name,
                         i);
            return false;
        }
    }
    for (uint32_t i = 0; m && i < m->line_count; i++) {
        if (strcmp(m->line[i].name, name) == 0) {
            th_error_set(err, TH_ERR_INVALID, "measurement name '%s' is used twice (line %u)", name,
                         i);
            return false;
        }
    }
    return true;
}

static int add_measure_area(th_world *w, const th_measure_area_def *def, th_error *err) {
    if (!th_between_steps(w, err)) return -1;
    if (!def) {
        th_error_set(err, TH_ERR_INVALID, "no area def");
        return -1;
    }
    if (w->measure && w->measure->area_count == TH_MAX_MEASURE_AREAS) {
        th_error_set(err, TH_ERR_LIMIT, "at most %d measurement areas", TH_MAX_MEASURE_AREAS);
        return -1;
    }
    if (!check_name(w, def->name, err)) return -1;
    float W = w->def.width, H = w->def.height;
    if (!(def->x0 >= 0.0f && def->x0 < def->x1 && def->x1 <= W && def->y0 >= 0.0f &&
          def->y0 < def->y1 && def->y1 <= H)) {
        th_error_set(err, TH_ERR_INVALID,
                     "area '%s' [%g, %g] x [%g, %g] must have x0 < x1, y0 < y1 and lie "
                     "inside the %g x %g m world",
                     def->name, (double)def->x0, (double)def->x1, (double)def->y0, (double)def->y1,
                     (double)W, (double)H);
        return -1;
    }
    if (!get_measure(w, err)) return -1;
    struct th_measure *m = w->measure;
    measure_area *r = &m->area[m->area_count];
    memset(r, 0, sizeof *r);
    snprintf(r->name, sizeof r->name, "%s", def->name);
    r->x0 = def->x0;
    r->y0 = def->y0;
    r->x1 = def->x1;
    r->y1 = def->y1;
    m->area_count++;
    /* Figures as of now, until the next step: every area is recounted, which is the same as
     * counting the new one (the others were counted at this state already or at the last step,
     * and the state has not moved since, except by added agents, which now count too). */
    count_areas(w, m);
    return (int)(m->area_count - 1);
}

bool th_world_set_measure_lanes(th_world *w, th_measure_area_id handle, const th_lane_def *def,
                                th_error *err) {
    if (!th_between_steps(w, err)) return false;
    struct th_measure *m = w->measure;
    const uint32_t area = TH_INDEX(handle);
    if (!m || area >= m->area_count) {
        th_error_set(err, TH_ERR_HANDLE, "no such measurement area");
        return false;
    }
    if (!def) {
        th_error_set(err, TH_ERR_INVALID, "no lane def");
        return false;
    }
    measure_area *r = &m->area[area];
    th_lane_def lanes = *def;
    if (lanes.axis == TH_LANE_OFF) {
        r->lanes = (th_lane_def){0};
        return true;
    }
    if (lanes.axis != TH_LANE_X && lanes.axis != TH_LANE_Y) {
        th_error_set(err, TH_ERR_INVALID, "area '%s': lane axis %d is not x or y", r->name,
                     (int)lanes.axis);
        return false;
    }
    if (lanes.width == 0.0f) lanes.width = TH_LANE_DEFAULT_WIDTH;
    if (lanes.length == 0.0f) lanes.length = TH_LANE_DEFAULT_LENGTH;
    if (lanes.min_speed == 0.0f) lanes.min_speed = TH_LANE_DEFAULT_MIN_SPEED;
    if (!(isfinite(lanes.width) && lanes.width > 0.0f && lanes.width <= TH_MAX_WORLD_DIM &&
          isfinite(lanes.length) && lanes.length > 0.0f && lanes.length <= TH_MAX_WORLD_DIM &&
          isfinite(lanes.min_speed) && lanes.min_speed > 0.0f && lanes.min_speed <= 1000.0f)) {
        th_error_set(err, TH_ERR_INVALID,
                     "area '%s': lanes need a width and a length in (0, %g] m and a min_speed "
                     "in (0, 1000] m/s, got %g, %g, %g",
                     r->name, (double)TH_MAX_WORLD_DIM, (double)lanes.width, (double)lanes.length,
                     (double)lanes.min_speed);
        return false;
    }
    if (!m->lane) {
        uint32_t cap = w->id_capacity ? w->id_capacity : 1;
        if (!th_grow_array((void **)&m->lane, sizeof *m->lane, 0, cap)) {
            th_error_set(err, TH_ERR_NOMEM, "out of memory");
            return false;
        }
        m->lane_cap = cap;
    }
    r->lanes = lanes;
    count_areas(w, m);
    return true;
}

th_measure_area_id th_world_add_measure_area(th_world *w, const th_measure_area_def *def,
                                             th_error *err) {
    return th_measure_area_handle(add_measure_area(w, def, err));
}

static int add_measure_line(th_world *w, const th_measure_line_def *def, th_error *err) {
    if (!th_between_steps(w, err)) return -1;
    if (!def) {
        th_error_set(err, TH_ERR_INVALID, "no line def");
        return -1;
    }
    if (w->measure && w->measure->line_count == TH_MAX_MEASURE_LINES) {
        th_error_set(err, TH_ERR_LIMIT, "at most %d measurement lines", TH_MAX_MEASURE_LINES);
        return -1;
    }
    if (!check_name(w, def->name, err)) return -1;
    float W = w->def.width, H = w->def.height;
    th_vec2 a = def->a, b = def->b;
    bool inside = a.x >= 0.0f && a.x <= W && a.y >= 0.0f && a.y <= H && b.x >= 0.0f && b.x <= W &&
                  b.y >= 0.0f && b.y <= H;
    if (!inside) {
        th_error_set(err, TH_ERR_INVALID,
                     "line '%s' from (%g, %g) to (%g, %g) must lie inside the %g x %g m world",
                     def->name, (double)a.x, (double)a.y, (double)b.x, (double)b.y, (double)W,
                     (double)H);
        return -1;
    }
    if (a.x == b.x && a.y == b.y) {
        th_error_set(err, TH_ERR_INVALID, "line '%s' has zero length: both ends at (%g, %g)",
                     def->name, (double)a.x, (double)a.y);
        return -1;
    }
    float window = def->window;
    if (!(isfinite(window) && window >= 0.0f && window <= TH_MAX_MEASURE_WINDOW)) {
        th_error_set(err, TH_ERR_INVALID,
                     "line '%s': window must be in [0, %g] seconds (0 = 1 s), got %g", def->name,
                     (double)TH_MAX_MEASURE_WINDOW, (double)window);
        return -1;
    }
    if (window == 0.0f) window = 1.0f;
    double steps = floor((double)window / (double)w->def.timestep + 0.5);
    if (steps > (double)TH_MAX_MEASURE_WINDOW_STEPS) {
        /* The ring holds one count per step: a long window at a tiny timestep would take
         * memory without bound (3600 s at 0.1 ms is 36 million steps per line). */
        th_error_set(err, TH_ERR_INVALID,
                     "line '%s': a window of %g s is %.0f steps of %g s, more than %u", def->name,
                     (double)window, steps, (double)w->def.timestep, TH_MAX_MEASURE_WINDOW_STEPS);
        return -1;
    }
    uint32_t window_steps = steps < 1.0 ? 1u : (uint32_t)steps;
    if (!get_measure(w, err)) return -1;
    struct th_measure *m = w->measure;
    int32_t *ring = th_calloc(window_steps, sizeof *ring);
    if (!ring) {
        th_error_set(err, TH_ERR_NOMEM, "out of memory");
        return -1;
    }
    if (!m->prev) {
        /* The first line: every agent's path starts where it is now. */
        if (!th_grow_array((void **)&m->prev, sizeof *m->prev, 0, w->id_capacity)) {
            th_free(ring);
            th_error_set(err, TH_ERR_NOMEM, "out of memory");
            return -1;
        }
        const th_agents *ag = &w->buf[w->cur];
        for (uint32_t k = 0; k < w->count; k++) {
            m->prev[th_id_slot(ag->id[k])] = th_v2(ag->px[k], ag->py[k]);
        }
    }
    measure_line *L = &m->line[m->line_count];
    memset(L, 0, sizeof *L);
    snprintf(L->name, sizeof L->name, "%s", def->name);
    L->a = a;
    L->b = b;
    L->window_steps = window_steps;
    L->ring = ring;
    m->line_count++;
    return (int)(m->line_count - 1);
}

th_measure_line_id th_world_add_measure_line(th_world *w, const th_measure_line_def *def,
                                             th_error *err) {
    return th_measure_line_handle(add_measure_line(w, def, err));
}

/* ---- reading ----------------------------------------------------------------------------- */

uint32_t th_world_measure_area_count(const th_world *w) {
    if (!w) return 0;
    return w->measure ? w->measure->area_count : 0;
}

uint32_t th_world_measure_line_count(const th_world *w) {
    if (!w) return 0;
    return w->measure ? w->measure->line_count : 0;
}

bool th_world_get_measure_area(const th_world *w, th_measure_area_id handle,
                               th_measure_area_info *out) {
    if (!w || !out) return false;
    const uint32_t area = TH_INDEX(handle);
    const struct th_measure *m = w->measure;
    if (!m || area >= m->area_count) return false;
    const measure_area *r = &m->area[area];
    double size = ((double)r->x1 - r->x0) * ((double)r->y1 - r->y0);
    *out = (th_measure_area_info){
        .name = r->name,
        .x0 = r->x0,
        .y0 = r->y0,
        .x1 = r->x1,
        .y1 = r->y1,
        .count = r->count,
        .density = (double)r->count / size,
        .mean_speed = r->count ? (double)r->speed_sum * SPEED_UNIT / (double)r->count : NAN,
        .lanes = r->lanes,
        .lane_order = r->lane_n ? (double)r->lane_sum * LANE_UNIT / (double)r->lane_n : NAN,
        .lane_forward = r->lane_fwd,
        .lane_backward = r->lane_bwd,
    };
    return true;
}

bool th_world_get_measure_line(const th_world *w, th_measure_line_id handle,
                               th_measure_line_info *out) {
    if (!w || !out) return false;
    const uint32_t line = TH_INDEX(handle);
    const struct th_measure *m = w->measure;
    if (!m || line >= m->line_count) return false;
    const measure_line *L = &m->line[line];
    uint64_t n = L->steps_seen < L->window_steps ? L->steps_seen : L->window_steps;
    double dt = w->def.timestep;
    *out = (th_measure_line_info){
        .name = L->name,
        .a = L->a,
        .b = L->b,
        .window = (float)((double)L->window_steps * dt),
        .window_steps = L->window_steps,
        .crossed = L->crossed,
        .forward = L->forward,
        .backward = L->backward,
        .crossed_total = L->crossed_total,
        .forward_total = L->forward_total,
        .backward_total = L->backward_total,
        .flow = n ? (double)L->ring_sum / ((double)n * dt) : 0.0,
    };
    return true;
}
