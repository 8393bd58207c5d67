/* Measurement areas and lines, checked against independent computations over the positions the
 * API reports: area counts, densities and speeds by brute force over th_world_agents, line
 * crossings by a parametric segment intersection over positions recorded step by step (the
 * engine uses orientation tests). Also: the same figures for any thread count, no allocation
 * in a step, the hash untouched by measuring, API and scene-file errors, and the output files
 * (trajectory CSV and PedPy text) read back bit-exact against the API. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/output.h"
#include "engine/alloc.h"
#include "throng/throng.h"
#include "test_util.h"

/* ---- worlds ----------------------------------------------------------------------------- */

#define W_WIDTH  40.0f
#define W_HEIGHT 30.0f

/* Boids at random positions and headings; areas and lines at odd coordinates so that no float
 * position lands exactly on a line (where two correct implementations may break ties apart). */
static th_world *make_world(uint32_t threads, bool wrap, uint32_t agents, uint64_t seed) {
    th_world_def wd = th_default_world_def();
    wd.width = W_WIDTH;
    wd.height = W_HEIGHT;
    wd.bounds = wrap ? TH_BOUNDS_WRAP : TH_BOUNDS_WALLS;
    wd.threads = threads;
    wd.seed = seed;
    th_error err;
    th_world *w = th_world_create(&wd, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    th_crowd_def cd = th_default_crowd_def();
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), 0);
    uint64_t s = seed;
    for (uint32_t i = 0; i < agents; i++) {
        float x = (float)((double)(splitmix64(&s) >> 11) * 0x1p-53 * W_WIDTH);
        float y = (float)((double)(splitmix64(&s) >> 11) * 0x1p-53 * W_HEIGHT);
        double h = (double)(splitmix64(&s) >> 11) * 0x1p-53 * 6.283185307179586;
        ck_assert(th_agent_id_valid(th_world_add_agent(
            w, CROWD_ID(0), th_v2(x, y), th_v2(3.5f * (float)cos(h), 3.5f * (float)sin(h)), &err)));
    }
    const th_measure_area_def areas[] = {
        {"centre", 10.3f, 8.7f, 29.9f, 21.1f},
        {"corner", 0.0f, 0.0f, 5.5f, 4.25f},
        {"whole", 0.0f, 0.0f, W_WIDTH, W_HEIGHT},
        {"sliver", 33.01f, 2.0f, 33.02f, 2.01f}, /* almost always empty */
    };
    for (uint32_t i = 0; i < sizeof areas / sizeof areas[0]; i++) {
        ck_assert_int_eq(IDX(th_world_add_measure_area(w, &areas[i], &err)), (int)i);
    }
    const th_measure_line_def lines[] = {
        {"mid", th_v2(20.123f, 0.0f), th_v2(20.123f, W_HEIGHT), 0.0f},
        {"seam_x", th_v2(0.0f, 0.0f), th_v2(0.0f, W_HEIGHT), 0.5f},
        {"seam_y", th_v2(W_WIDTH, 0.0f), th_v2(0.0f, 0.0f), 0.0f},
        {"diag", th_v2(3.3f, 2.9f), th_v2(37.7f, 26.1f), 2.0f},
        {"short", th_v2(11.1f, 13.7f), th_v2(14.3f, 15.9f), 0.0f},
        /* A hair inside the north and east edges: in a wrap-around world, moves across the
         * south and west seams meet the copies of these a world-height (width) below (to the
         * west of) them. */
        {"near_north", th_v2(0.0f, W_HEIGHT - 0.01f), th_v2(W_WIDTH, W_HEIGHT - 0.01f), 0.0f},
        {"near_east", th_v2(W_WIDTH - 0.01f, W_HEIGHT), th_v2(W_WIDTH - 0.01f, 0.0f), 0.0f},
    };
    for (uint32_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        ck_assert_int_eq(IDX(th_world_add_measure_line(w, &lines[i], &err)), (int)i);
    }
    return w;
}

/* ---- areas against a brute-force count ---------------------------------------------------- */

static void check_areas(const th_world *w) {
    th_agent_view v = th_world_agents(w);
    for (uint32_t i = 0; i < th_world_measure_area_count(w); i++) {
        th_measure_area_info a;
        ck_assert(th_world_get_measure_area(w, AREA_ID(i), &a));
        uint32_t n = 0;
        double sum = 0.0;
        for (uint32_t k = 0; k < v.count; k++) {
            if (v.px[k] >= a.x0 && v.px[k] < a.x1 && v.py[k] >= a.y0 && v.py[k] < a.y1) {
                n++;
                sum += hypot(v.vx[k], v.vy[k]);
            }
        }
        CHECK_MSG(a.count == n, "area %s: %u, brute force %u", a.name, a.count, n);
        double size = ((double)a.x1 - a.x0) * ((double)a.y1 - a.y0);
        CHECK(fabs(a.density - n / size) <= 1e-12 * (n / size));
        if (n == 0) {
            CHECK_MSG(isnan(a.mean_speed), "empty area %s: speed %g", a.name, a.mean_speed);
        } else {
            /* The engine sums in fixed point, 2^-24 m/s per agent: agree to that rounding. */
            CHECK_MSG(fabs(a.mean_speed - sum / n) <= 0x1p-24, "area %s: %.17g vs %.17g", a.name,
                      a.mean_speed, sum / n);
        }
    }
}

START_TEST(areas_match_brute_force) {
    for (int wrap = 0; wrap < 2; wrap++) {
        th_world *w = make_world(2, wrap, 600, 11 + (uint64_t)wrap);
        check_areas(w); /* as of when they were added */
        for (int s = 0; s < th_test_steps(120); s++) {
            th_world_step(w);
            check_areas(w);
        }
        th_measure_area_info whole;
        ck_assert(th_world_get_measure_area(w, AREA_ID(2), &whole));
        ck_assert_uint_eq(whole.count, 600);
        th_world_destroy(w);
    }
}
END_TEST

/* ---- the lane order parameter against brute force ----------------------------------------- */

/* Rex & Löwen's order parameter straight from its definition, over ordered pairs of the agents
 * the view reports (the engine compares each unordered pair once, on its own gathered copy). */
static double ref_lanes(const th_world *w, const th_measure_area_info *a, uint32_t *fwd,
                        uint32_t *bwd) {
    th_agent_view v = th_world_agents(w);
    th_world_def d = th_world_get_def(w);
    bool ax = a->lanes.axis == TH_LANE_X, wrap = d.bounds == TH_BOUNDS_WRAP;
    double La = ax ? d.width : d.height, Lc = ax ? d.height : d.width;
    double sum = 0.0;
    uint32_t n = 0;
    *fwd = *bwd = 0;
#define IN_LANES(k)                                                                \
    (v.px[k] >= a->x0 && v.px[k] < a->x1 && v.py[k] >= a->y0 && v.py[k] < a->y1 && \
     fabs(ax ? v.vx[k] : v.vy[k]) >= a->lanes.min_speed)
    for (uint32_t j = 0; j < v.count; j++) {
        if (!IN_LANES(j)) continue;
        int dj = (ax ? v.vx[j] : v.vy[j]) > 0.0f ? 1 : -1;
        *fwd += dj > 0;
        *bwd += dj < 0;
        int same = 0, opp = 0;
        for (uint32_t k = 0; k < v.count; k++) {
            if (k == j || !IN_LANES(k)) continue;
            double along = fabs((double)(ax ? v.px[k] : v.py[k]) - (ax ? v.px[j] : v.py[j]));
            double across = fabs((double)(ax ? v.py[k] : v.px[k]) - (ax ? v.py[j] : v.px[j]));
            if (wrap) {
                along = fmin(along, La - along);
                across = fmin(across, Lc - across);
            }
            if (!(2.0 * across < a->lanes.width && 2.0 * along < a->lanes.length)) continue;
            int dk = (ax ? v.vx[k] : v.vy[k]) > 0.0f ? 1 : -1;
            if (dk == dj) same++;
            else opp++;
        }
        if (same + opp == 0) continue;
        double phi = (double)(same - opp) / (same + opp);
        sum += phi * phi;
        n++;
    }
#undef IN_LANES
    return n ? sum / n : NAN;
}

static void check_lanes(const th_world *w, th_measure_area_id id) {
    th_measure_area_info a;
    ck_assert(th_world_get_measure_area(w, id, &a));
    uint32_t fwd, bwd;
    double ref = ref_lanes(w, &a, &fwd, &bwd);
    CHECK_MSG(a.lane_forward == fwd && a.lane_backward == bwd, "area %s: %u/%u agents, ref %u/%u",
              a.name, a.lane_forward, a.lane_backward, fwd, bwd);
    if (isnan(ref)) CHECK_MSG(isnan(a.lane_order), "area %s: %g, ref NaN", a.name, a.lane_order);
    else /* phi_j rounded to 2^-32 each */
        CHECK_MSG(fabs(a.lane_order - ref) <= 0x1p-31, "area %s: %.12g, ref %.12g", a.name,
                  a.lane_order, ref);
}

/* A walled 20 x 10 m world holding the agents given, one area [2, 18) x [1, 9) with lanes. */
static th_world *lane_world(const float (*xyv)[3], uint32_t n, th_lane_axis axis) {
    th_world_def wd = th_default_world_def();
    wd.width = 20.0f;
    wd.height = 10.0f;
    wd.threads = 1;
    th_error err;
    th_world *w = th_world_create(&wd, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    th_crowd_def cd = th_default_crowd_def();
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), 0);
    for (uint32_t i = 0; i < n; i++) {
        th_vec2 v = axis == TH_LANE_Y ? th_v2(0.0f, xyv[i][2]) : th_v2(xyv[i][2], 0.0f);
        ck_assert(th_agent_id_valid(
            th_world_add_agent(w, CROWD_ID(0), th_v2(xyv[i][0], xyv[i][1]), v, &err)));
    }
    th_measure_area_id id =
        th_world_add_measure_area(w, &(th_measure_area_def){"band", 2.0f, 1.0f, 18.0f, 9.0f}, &err);
    ck_assert_int_eq(IDX(id), 0);
    ck_assert_msg(th_world_set_measure_lanes(w, id, &(th_lane_def){axis, 0, 0, 0}, &err), "%s",
                  err.message);
    return w;
}

static double lanes_of(const th_world *w) {
    th_measure_area_info a;
    ck_assert(th_world_get_measure_area(w, AREA_ID(0), &a));
    return a.lane_order;
}

/* The area is half-open, [x0, x1) x [y0, y1), for the counts as for the lanes: agents exactly
 * on its east or north edge are outside (docs/measurement.md), those on its west and south
 * edges inside. Here, beside two inside moving east, one on each edge moving west. */
START_TEST(lanes_leave_out_the_far_edges) {
    const float p[][3] = {
        {17.0f, 5.0f, 1.3f},  {17.5f, 5.3f, 1.3f},  /* inside, east */
        {18.0f, 5.2f, -1.3f}, {17.2f, 9.0f, -1.3f}, /* on the east and the north edge: out */
        {2.0f, 5.1f, 1.3f},   {2.4f, 1.0f, 1.3f},   /* on the west and the south edge: in */
    };
    th_world *w = lane_world(p, sizeof p / sizeof p[0], TH_LANE_X);
    th_measure_area_info a;
    ck_assert(th_world_get_measure_area(w, AREA_ID(0), &a));
    ck_assert_uint_eq(a.count, 4);
    ck_assert_uint_eq(a.lane_forward, 4);
    ck_assert_uint_eq(a.lane_backward, 0);
    check_areas(w);
    check_lanes(w, AREA_ID(0));
    th_world_destroy(w);
}
END_TEST

/* Hand-built arrangements with known answers: rows 0.7 m apart, 0.5 m spacing along them. */
START_TEST(lanes_of_known_arrangements) {
    enum { ROWS = 8, COLS = 24 };
    float(*p)[3] = malloc(sizeof *p * ROWS * COLS);
    ck_assert_ptr_nonnull(p);
    for (int kind = 0; kind < 4; kind++) {
        uint32_t n = 0;
        for (int r = 0; r < ROWS; r++) {
            for (int c = 0; c < COLS; c++) {
                float dir;
                switch (kind) {
                case 0: dir = r % 2 ? 1.3f : -1.3f; break;        /* lanes, one per row */
                case 1: dir = (r + c) % 2 ? 1.3f : -1.3f; break;  /* checkerboard */
                case 2: dir = 1.3f; break;                        /* one direction only */
                default: dir = (r + c) % 2 ? 1.3f : 0.05f; break; /* slow agents left out */
                }
                p[n][0] = 3.0f + 0.5f * (float)c;
                p[n][1] = 1.5f + 0.7f * (float)r;
                p[n][2] = dir;
                n++;
            }
        }
        th_world *w = lane_world((const float(*)[3])p, n, TH_LANE_X);
        double phi = lanes_of(w);
        check_lanes(w, AREA_ID(0));
        th_measure_area_info a;
        th_world_get_measure_area(w, AREA_ID(0), &a);
        switch (kind) {
        case 0:
        case 2:
        case 3: ck_assert_double_eq(phi, 1.0); break;
        default:
            /* Inside a row the neighbours within 2 m alternate: 4 opposite, 2 (or fewer at the
             * row's ends) alike: phi_j = 1/9 for most, never above 1/3. */
            CHECK_MSG(phi > 0.05 && phi < 0.2, "checkerboard: %g", phi);
        }
        if (kind == 3) ck_assert_uint_eq(a.lane_backward, 0);
        else if (kind != 2) ck_assert_uint_eq(a.lane_forward, a.lane_backward);
        th_world_destroy(w);
    }
    /* The same lanes turned a quarter: measured along y they are lanes, along x a crowd moving
     * sideways (nobody moves along x: NaN). */
    uint32_t n = 0;
    for (int r = 0; r < ROWS; r++) {
        for (int c = 0; c < COLS / 2; c++) {
            p[n][0] = 3.0f + 0.7f * (float)r;
            p[n][1] = 2.0f + 0.5f * (float)c;
            p[n][2] = r % 2 ? 1.3f : -1.3f;
            n++;
        }
    }
    th_world *w = lane_world((const float(*)[3])p, n, TH_LANE_Y);
    ck_assert_double_eq(lanes_of(w), 1.0);
    check_lanes(w, AREA_ID(0));
    ck_assert(th_world_set_measure_lanes(w, AREA_ID(0), &(th_lane_def){TH_LANE_X, 0, 0, 0}, NULL));
    ck_assert(isnan(lanes_of(w)));
    /* Off: NaN, and the axis reads back as off. */
    ck_assert(th_world_set_measure_lanes(w, AREA_ID(0), &(th_lane_def){0}, NULL));
    th_measure_area_info a;
    th_world_get_measure_area(w, AREA_ID(0), &a);
    ck_assert_int_eq(a.lanes.axis, TH_LANE_OFF);
    ck_assert(isnan(a.lane_order));
    th_world_destroy(w);
    /* Empty area and a lone walker: NaN (nobody has a neighbour in the band). */
    w = lane_world(NULL, 0, TH_LANE_X);
    ck_assert(isnan(lanes_of(w)));
    th_world_destroy(w);
    const float lone[1][3] = {{5.0f, 5.0f, 1.0f}};
    w = lane_world(lone, 1, TH_LANE_X);
    ck_assert(isnan(lanes_of(w)));
    th_world_destroy(w);
    free(p);
}
END_TEST

/* Moving boids (walled and wrap-around worlds), both axes, several bands, every step against
 * the reference; the same figures at 1 and 3 threads. */
START_TEST(lanes_match_brute_force) {
    const th_lane_def defs[] = {
        {TH_LANE_X, 0, 0, 0},
        {TH_LANE_Y, 1.5f, 6.0f, 0.5f},
        {TH_LANE_X, 40.0f, 40.0f, 0.01f}, /* the band covers everything: no wrap confusion */
    };
    for (int wrap = 0; wrap < 2; wrap++) {
        double last[2][4];
        for (uint32_t threads = 1; threads <= 3; threads += 2) {
            th_world *w = make_world(threads, wrap, 600, 21 + (uint64_t)wrap);
            for (uint32_t i = 0; i < 3; i++) {
                th_error err;
                ck_assert_msg(th_world_set_measure_lanes(w, AREA_ID(i), &defs[i], &err), "%s",
                              err.message);
            }
            for (int s = 0; s < th_test_steps(40); s++) {
                th_world_step(w);
                for (uint32_t i = 0; i < 3; i++) check_lanes(w, AREA_ID(i));
            }
            for (uint32_t i = 0; i < 4; i++) {
                th_measure_area_info a;
                th_world_get_measure_area(w, AREA_ID(i), &a);
                last[threads / 3][i] = a.lane_order;
                if (i == 3) ck_assert(isnan(a.lane_order)); /* no lanes asked for */
                else ck_assert(isfinite(a.lane_order) || i == 1);
            }
            th_world_destroy(w);
        }
        ck_assert_mem_eq(last[0], last[1], 3 * sizeof(double));
    }
}
END_TEST

START_TEST(lanes_refuse_bad_defs) {
    const float one[1][3] = {{5.0f, 5.0f, 1.0f}};
    th_world *w = lane_world(one, 1, TH_LANE_X);
    const th_lane_def bad[] = {
        {(th_lane_axis)7, 0, 0, 0}, {TH_LANE_X, -1.0f, 0, 0},    {TH_LANE_X, 0, NAN, 0},
        {TH_LANE_Y, 0, 0, -0.1f},   {TH_LANE_X, INFINITY, 0, 0},
    };
    th_error err;
    for (uint32_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert(!th_world_set_measure_lanes(w, AREA_ID(0), &bad[i], &err));
        ck_assert_int_eq(err.code, TH_ERR_INVALID);
    }
    ck_assert(!th_world_set_measure_lanes(w, AREA_ID(1), &bad[0], &err));
    ck_assert(!th_world_set_measure_lanes(w, AREA_ID(0), NULL, &err));
    th_measure_area_info a;
    th_world_get_measure_area(w, AREA_ID(0), &a);
    ck_assert_int_eq(a.lanes.axis, TH_LANE_X); /* the earlier setting stands */
    ck_assert_float_eq(a.lanes.width, TH_LANE_DEFAULT_WIDTH);
    ck_assert_float_eq(a.lanes.length, TH_LANE_DEFAULT_LENGTH);
    ck_assert_float_eq(a.lanes.min_speed, TH_LANE_DEFAULT_MIN_SPEED);
    th_world_destroy(w);
}
END_TEST

/* ---- lines against an independent computation ------------------------------------------- */

/* Parametric intersection of q + t r with a + u s, t and u in [0, 1]; +1 when the move goes to
 * the right of a->b (cross(s, r) < 0), -1 to the left. */
static int ref_cross(double ax, double ay, double bx, double by, double qx, double qy, double px,
                     double py) {
    double rx = px - qx, ry = py - qy, sx = bx - ax, sy = by - ay;
    double den = rx * sy - ry * sx;
    if (den == 0.0) return 0;
    double t = ((ax - qx) * sy - (ay - qy) * sx) / den;
    double u = ((ax - qx) * ry - (ay - qy) * rx) / den;
    if (t < 0.0 || t > 1.0 || u < 0.0 || u > 1.0) return 0;
    return sx * ry - sy * rx < 0.0 ? 1 : -1;
}

typedef struct line_ref {
    uint32_t forward, backward;
    int64_t total;
    int32_t history[4096];
} line_ref;

static void check_lines_against_reference(bool wrap, uint64_t seed) {
    enum { AGENTS = 500, STEPS = 400 };
    th_world *w = make_world(2, wrap, AGENTS, seed);
    uint32_t nl = th_world_measure_line_count(w);
    th_measure_line_info li[8];
    for (uint32_t l = 0; l < nl; l++) ck_assert(th_world_get_measure_line(w, LINE_ID(l), &li[l]));
    static float qx[AGENTS], qy[AGENTS];
    for (uint32_t id = 0; id < AGENTS; id++) {
        th_agent_state a;
        ck_assert(th_world_get_agent(w, th_test_id(id), &a));
        qx[id] = a.position.x;
        qy[id] = a.position.y;
    }
    static line_ref ref[8];
    memset(ref, 0, sizeof ref);
    uint64_t crossings = 0;
    double dt = th_world_get_def(w).timestep;
    for (int s = 0; s < STEPS; s++) {
        th_world_step(w);
        for (uint32_t l = 0; l < nl; l++) ref[l].forward = ref[l].backward = 0;
        for (uint32_t id = 0; id < AGENTS; id++) {
            th_agent_state a;
            ck_assert(th_world_get_agent(w, th_test_id(id), &a));
            double dx = (double)a.position.x - qx[id], dy = (double)a.position.y - qy[id];
            if (wrap) { /* the short way round */
                dx -= W_WIDTH * round(dx / W_WIDTH);
                dy -= W_HEIGHT * round(dy / W_HEIGHT);
            }
            for (uint32_t l = 0; l < nl; l++) {
                int c = 0;
                for (int i = -1; i <= 1; i++) {
                    for (int j = -1; j <= 1; j++) {
                        if (!wrap && (i || j)) continue;
                        double ox = i * (double)W_WIDTH, oy = j * (double)W_HEIGHT;
                        c += ref_cross(li[l].a.x + ox, li[l].a.y + oy, li[l].b.x + ox,
                                       li[l].b.y + oy, qx[id], qy[id], qx[id] + dx, qy[id] + dy);
                    }
                }
                if (c > 0) ref[l].forward += (uint32_t)c;
                if (c < 0) ref[l].backward += (uint32_t)-c;
            }
            qx[id] = a.position.x;
            qy[id] = a.position.y;
        }
        for (uint32_t l = 0; l < nl; l++) {
            th_measure_line_info got;
            ck_assert(th_world_get_measure_line(w, LINE_ID(l), &got));
            line_ref *r = &ref[l];
            int32_t net = (int32_t)r->forward - (int32_t)r->backward;
            r->total += net;
            r->history[s] = net;
            crossings += r->forward + r->backward;
            CHECK_MSG(got.forward == r->forward && got.backward == r->backward,
                      "step %d line %s: engine +%u -%u, reference +%u -%u", s + 1, got.name,
                      got.forward, got.backward, r->forward, r->backward);
            CHECK(got.crossed == net);
            CHECK(got.crossed_total == r->total);
            /* Flow: net crossings of the last window (or of every step so far) over its time. */
            int n = s + 1 < (int)got.window_steps ? s + 1 : (int)got.window_steps;
            int64_t sum = 0;
            for (int k = s + 1 - n; k <= s; k++) sum += r->history[k];
            double flow = (double)sum / (n * dt);
            CHECK_MSG(fabs(got.flow - flow) <= 1e-9 * (fabs(flow) + 1.0), "line %s flow %g vs %g",
                      got.name, got.flow, flow);
        }
    }
    /* The test means something only if agents did cross, both ways. */
    ck_assert_uint_gt(crossings, 100);
    th_measure_line_info mid;
    ck_assert(th_world_get_measure_line(w, LINE_ID(0), &mid));
    ck_assert_uint_gt(mid.forward_total, 0);
    ck_assert_uint_gt(mid.backward_total, 0);
    if (wrap) {
        /* Lines on the seams and a hair inside the far edges were crossed. */
        const uint32_t seams[] = {1, 2, 5, 6};
        for (uint32_t i = 0; i < sizeof seams / sizeof seams[0]; i++) {
            th_measure_line_info seam;
            ck_assert(th_world_get_measure_line(w, LINE_ID(seams[i]), &seam));
            CHECK_MSG(seam.forward_total + seam.backward_total > 0, "line %s never crossed",
                      seam.name);
        }
    }
    th_world_destroy(w);
}

START_TEST(lines_match_reference_walls) { check_lines_against_reference(false, 5); }
END_TEST

START_TEST(lines_match_reference_wrap) { check_lines_against_reference(true, 7); }
END_TEST

/* One agent alone (no neighbours: constant velocity) laps a wrap-around world eastward: every
 * lap crosses each northward line once, forward, and the jump across the seam is not read as a
 * walk back across the whole world. Westward, the same counts are backward. */
START_TEST(lone_agent_laps_count_once_per_lap) {
    for (int dir = -1; dir <= 1; dir += 2) {
        th_world_def wd = th_default_world_def();
        wd.width = 20.0f;
        wd.height = 10.0f;
        wd.bounds = TH_BOUNDS_WRAP;
        wd.threads = 1;
        wd.timestep = 0.05f;
        th_world *w = th_world_create(&wd, NULL);
        ck_assert_ptr_nonnull(w);
        th_crowd_def cd = th_default_crowd_def();
        ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, NULL)), 0);
        ck_assert(th_agent_id_eq(
            th_world_add_agent(w, CROWD_ID(0), th_v2(1.0f, 5.0f), th_v2(2.0f * dir, 0.0f), NULL),
            th_test_id(0)));
        th_measure_line_def north = {"north", th_v2(10.5f, 0.0f), th_v2(10.5f, 10.0f), 1.0f};
        th_measure_line_def south = {"south", th_v2(15.5f, 10.0f), th_v2(15.5f, 0.0f), 1.0f};
        th_measure_line_def seam = {"seam", th_v2(0.0f, 0.0f), th_v2(0.0f, 10.0f), 1.0f};
        ck_assert_int_eq(IDX(th_world_add_measure_line(w, &north, NULL)), 0);
        ck_assert_int_eq(IDX(th_world_add_measure_line(w, &south, NULL)), 1);
        ck_assert_int_eq(IDX(th_world_add_measure_line(w, &seam, NULL)), 2);
        /* 2 m/s over 20 m: a lap is 200 steps; 5 laps. */
        for (int s = 0; s < 1000; s++) th_world_step(w);
        th_agent_state a;
        ck_assert(th_world_get_agent(w, th_test_id(0), &a));
        ck_assert_float_eq_tol(fabsf(a.velocity.x), 2.0f, 1e-4f);
        th_measure_line_info n, so, se;
        th_world_get_measure_line(w, LINE_ID(0), &n);
        th_world_get_measure_line(w, LINE_ID(1), &so);
        th_world_get_measure_line(w, LINE_ID(2), &se);
        ck_assert_int_eq(n.crossed_total, 5 * dir);
        ck_assert_int_eq(so.crossed_total, -5 * dir); /* drawn southward: east is negative */
        ck_assert_int_eq(se.crossed_total, 5 * dir);
        ck_assert_uint_eq(n.forward_total + n.backward_total, 5);
        ck_assert_uint_eq(se.forward_total + se.backward_total, 5);
        th_world_destroy(w);
    }
}
END_TEST

/* An agent added between steps counts a crossing in its very first step. */
START_TEST(new_agent_crossing_counts) {
    th_world_def wd = th_default_world_def();
    wd.width = 20.0f;
    wd.height = 10.0f;
    wd.threads = 1;
    th_world *w = th_world_create(&wd, NULL);
    th_crowd_def cd = th_default_crowd_def();
    th_world_add_crowd(w, &cd, NULL);
    th_measure_line_def l = {"l", th_v2(10.0f, 0.0f), th_v2(10.0f, 10.0f), 0.0f};
    ck_assert_int_eq(IDX(th_world_add_measure_line(w, &l, NULL)), 0);
    th_world_step(w);
    /* 3 m/s east for 1/60 s from 0.02 m west of the line. */
    ck_assert(th_agent_id_eq(
        th_world_add_agent(w, CROWD_ID(0), th_v2(9.98f, 5.0f), th_v2(3.0f, 0.0f), NULL),
        th_test_id(0)));
    th_world_step(w);
    th_measure_line_info li;
    th_world_get_measure_line(w, LINE_ID(0), &li);
    ck_assert_int_eq(li.crossed, 1);
    ck_assert_uint_eq(li.forward, 1);
    /* Flow over the 2 steps seen so far (window 1 s = 60 steps). */
    ck_assert_double_eq_tol(li.flow, 1.0 / (2.0 * (double)wd.timestep), 1e-6);
    th_world_destroy(w);
}
END_TEST

/* ---- determinism, hash, allocation -------------------------------------------------------- */

typedef struct snapshot {
    uint32_t count[8];
    double density[8], speed[8], flow[8];
    int64_t total[8];
    uint32_t fwd[8], bwd[8];
} snapshot;

static void take(const th_world *w, snapshot *s) {
    memset(s, 0, sizeof *s);
    for (uint32_t i = 0; i < th_world_measure_area_count(w); i++) {
        th_measure_area_info a;
        th_world_get_measure_area(w, AREA_ID(i), &a);
        s->count[i] = a.count;
        s->density[i] = a.density;
        s->speed[i] = a.mean_speed;
    }
    for (uint32_t i = 0; i < th_world_measure_line_count(w); i++) {
        th_measure_line_info l;
        th_world_get_measure_line(w, LINE_ID(i), &l);
        s->total[i] = l.crossed_total;
        s->fwd[i] = l.forward;
        s->bwd[i] = l.backward;
        s->flow[i] = l.flow;
    }
}

START_TEST(same_figures_for_any_thread_count) {
    /* Enough agents for several TH_CHUNK chunks, so threads really split the work. */
    enum { STEPS = 60 };
    static snapshot base[STEPS];
    static const uint32_t threads[] = {1, 2, 3, 8};
    for (int wrap = 0; wrap < 2; wrap++) {
        uint64_t hash1 = 0;
        for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
            th_world *w = make_world(threads[t], wrap, 3000, 21);
            for (int s = 0; s < th_test_steps(STEPS); s++) {
                th_world_step(w);
                snapshot now;
                take(w, &now);
                if (t == 0) base[s] = now;
                else
                    CHECK_MSG(memcmp(&now, &base[s], sizeof now) == 0,
                              "%u threads differ from 1 at step %d", threads[t], s + 1);
            }
            if (t == 0) hash1 = th_world_hash(w);
            else ck_assert_uint_eq(th_world_hash(w), hash1);
            th_world_destroy(w);
        }
    }
}
END_TEST

START_TEST(measuring_changes_nothing) {
    th_world *m = make_world(2, true, 800, 3);
    th_world_def wd = th_world_get_def(m);
    th_world *p = th_world_create(&wd, NULL);
    th_crowd_def cd = th_default_crowd_def();
    th_world_add_crowd(p, &cd, NULL);
    th_agent_view v = th_world_agents(m);
    for (uint32_t id = 0; id < v.count; id++) {
        th_agent_state a;
        th_world_get_agent(m, th_test_id(id), &a);
        ck_assert(th_agent_id_eq(th_world_add_agent(p, CROWD_ID(0), a.position, a.velocity, NULL),
                                 th_test_id(id)));
    }
    for (int s = 0; s < th_test_steps(50); s++) {
        th_world_step(m);
        th_world_step(p);
    }
    ck_assert_uint_eq(th_world_hash(m), th_world_hash(p));
    th_world_destroy(m);
    th_world_destroy(p);
}
END_TEST

static uint64_t g_allocs;
static void *count_alloc(size_t size, void *user) {
    (void)user;
    __atomic_fetch_add(&g_allocs, 1, __ATOMIC_RELAXED);
    return aligned_alloc(64, (size + 63u) & ~(size_t)63u);
}
static void count_free(void *p, void *user) {
    (void)user;
    free(p);
}

START_TEST(no_allocation_in_a_measured_step) {
    th_set_allocator(&(th_allocator){count_alloc, count_free, NULL});
    th_world *w = make_world(2, true, 2000, 9);
    ck_assert(th_world_set_measure_lanes(w, AREA_ID(0), &(th_lane_def){TH_LANE_X, 0, 0, 0}, NULL));
    th_world_step(w);
    uint64_t before = __atomic_load_n(&g_allocs, __ATOMIC_RELAXED);
    for (int s = 0; s < th_test_steps(100); s++) th_world_step(w);
    uint64_t after = __atomic_load_n(&g_allocs, __ATOMIC_RELAXED);
    th_world_destroy(w);
    th_set_allocator(NULL);
    ck_assert_uint_eq(after - before, 0);
    ck_assert_uint_gt(before, 0); /* the hook did see the world being built */
}
END_TEST

/* ---- API errors ---------------------------------------------------------------------------- */

START_TEST(api_refuses_bad_measures) {
    th_world_def wd = th_default_world_def();
    wd.width = 10.0f;
    wd.height = 8.0f;
    wd.threads = 1;
    th_world *w = th_world_create(&wd, NULL);
    th_error err;
    const struct {
        th_measure_area_def d;
        const char *msg;
    } bad_areas[] = {
        {{"a", 0.0f, 0.0f, 11.0f, 1.0f}, "inside the 10 x 8 m world"},
        {{"a", 2.0f, 0.0f, 2.0f, 1.0f}, "x0 < x1"},
        {{"a", -1.0f, 0.0f, 2.0f, 1.0f}, "inside"},
        {{"a", 0.0f, 0.0f, NAN, 1.0f}, "inside"},
        {{"", 0.0f, 0.0f, 1.0f, 1.0f}, "1 to 63 characters"},
        {{NULL, 0.0f, 0.0f, 1.0f, 1.0f}, "1 to 63 characters"},
        {{"a b", 0.0f, 0.0f, 1.0f, 1.0f}, "only letters"},
        {{"a,b", 0.0f, 0.0f, 1.0f, 1.0f}, "only letters"},
    };
    for (size_t i = 0; i < sizeof bad_areas / sizeof bad_areas[0]; i++) {
        ck_assert_int_eq(IDX(th_world_add_measure_area(w, &bad_areas[i].d, &err)), -1);
        TH_TEST_ERR(err, TH_ERR_INVALID);
        ck_assert_msg(strstr(err.message, bad_areas[i].msg), "case %zu: %s", i, err.message);
    }
    const struct {
        th_measure_line_def d;
        const char *msg;
    } bad_lines[] = {
        {{"l", th_v2(1, 1), th_v2(1, 1), 0}, "zero length"},
        {{"l", th_v2(1, 1), th_v2(10.5f, 1), 0}, "inside the 10 x 8 m world"},
        {{"l", th_v2(1, -0.1f), th_v2(2, 1), 0}, "inside"},
        {{"l", th_v2(1, 1), th_v2(2, 1), -1}, "window"},
        {{"l", th_v2(1, 1), th_v2(2, 1), 4000}, "window"},
        {{"l", th_v2(1, 1), th_v2(2, 1), INFINITY}, "window"},
        {{"l", th_v2(1, 1), th_v2(2, 1), 1200}, "more than 65536"}, /* 72,000 steps of 1/60 s */
    };
    for (size_t i = 0; i < sizeof bad_lines / sizeof bad_lines[0]; i++) {
        ck_assert_int_eq(IDX(th_world_add_measure_line(w, &bad_lines[i].d, &err)), -1);
        TH_TEST_ERR(err, TH_ERR_INVALID);
        ck_assert_msg(strstr(err.message, bad_lines[i].msg), "case %zu: %s", i, err.message);
    }
    ck_assert_uint_eq(th_world_measure_area_count(w), 0);
    ck_assert_uint_eq(th_world_measure_line_count(w), 0);
    ck_assert_int_eq(
        IDX(th_world_add_measure_area(w, &(th_measure_area_def){"x", 0, 0, 10, 8}, &err)), 0);
    ck_assert_int_eq(IDX(th_world_add_measure_line(
                         w, &(th_measure_line_def){"x", th_v2(0, 0), th_v2(10, 8), 0}, &err)),
                     -1);
    TH_TEST_ERR(err, TH_ERR_INVALID);
    ck_assert_ptr_nonnull(strstr(err.message, "used twice"));
    ck_assert_int_eq(IDX(th_world_add_measure_line(
                         w, &(th_measure_line_def){"y", th_v2(0, 0), th_v2(10, 8), 0}, &err)),
                     0);
    th_measure_area_info a;
    th_measure_line_info l;
    ck_assert(!th_world_get_measure_area(w, AREA_ID(1), &a));
    ck_assert(!th_world_get_measure_line(w, LINE_ID(1), &l));
    ck_assert(th_world_get_measure_area(w, AREA_ID(0), &a));
    ck_assert_uint_eq(a.count, 0);
    ck_assert(isnan(a.mean_speed));
    ck_assert(th_world_get_measure_line(w, LINE_ID(0), &l));
    ck_assert_uint_eq(l.window_steps, 60); /* 1 s default at 1/60 s */
    ck_assert_double_eq(l.flow, 0.0);
    th_world_destroy(w);
}
END_TEST

/* ---- scene files ---------------------------------------------------------------------------- */

#define SCENE_HEAD                                                             \
    "name: t\nworld:\n  size: [40, 30]\ncrowds:\n  - name: a\n    count: 20\n" \
    "    spawn: {rect: [0, 0, 40, 30]}\n"

typedef struct bad_scene {
    const char *what, *yaml;
    unsigned line, column;
    const char *path;
    th_error_code code;
} bad_scene;

static const bad_scene k_bad[] = {
    {"measure is a list", SCENE_HEAD "measure: [1, 2]\n", 8, 10, "measure", TH_ERR_SCENE_VALUE},
    {"unknown key under measure", SCENE_HEAD "measure:\n  area: []\n", 9, 3, "measure.area",
     TH_ERR_SCENE_KEY},
    {"areas is a mapping", SCENE_HEAD "measure:\n  areas: {name: a}\n", 9, 10, "measure.areas",
     TH_ERR_SCENE_VALUE},
    {"area is a number", SCENE_HEAD "measure:\n  areas:\n    - 5\n", 10, 7, "measure.areas[0]",
     TH_ERR_SCENE_VALUE},
    {"unknown key in an area",
     SCENE_HEAD "measure:\n  areas:\n    - name: a\n      rectangle: [0, 0, 1, 1]\n", 11, 7,
     "measure.areas[0].rectangle", TH_ERR_SCENE_KEY},
    {"area without a name", SCENE_HEAD "measure:\n  areas:\n    - rect: [0, 0, 1, 1]\n", 10, 7,
     "measure.areas[0].name", TH_ERR_SCENE_MISSING},
    {"lanes along z",
     SCENE_HEAD "measure:\n  areas:\n    - {name: a, rect: [0, 0, 1, 1], lanes: {axis: z}}\n", 10,
     51, "measure.areas[0].lanes.axis", TH_ERR_SCENE_VALUE},
    {"lanes of width 0",
     SCENE_HEAD "measure:\n  areas:\n    - {name: a, rect: [0, 0, 1, 1], lanes: {width: 0}}\n", 10,
     52, "measure.areas[0].lanes.width", TH_ERR_SCENE_VALUE},
    {"unknown lanes key",
     SCENE_HEAD "measure:\n  areas:\n    - {name: a, rect: [0, 0, 1, 1], lanes: {wide: 1}}\n", 10,
     45, "measure.areas[0].lanes.wide", TH_ERR_SCENE_KEY},
    {"area without a rect", SCENE_HEAD "measure:\n  areas:\n    - name: a\n", 10, 7,
     "measure.areas[0].rect", TH_ERR_SCENE_MISSING},
    {"area name with a comma",
     SCENE_HEAD "measure:\n  areas:\n    - {name: 'a,b', rect: [0, 0, 1, 1]}\n", 10, 14,
     "measure.areas[0].name", TH_ERR_SCENE_VALUE},
    {"rect of words", SCENE_HEAD "measure:\n  areas:\n    - {name: a, rect: [0, x, 1, 1]}\n", 10,
     27, "measure.areas[0].rect[1]", TH_ERR_SCENE_VALUE},
    {"rect of three numbers", SCENE_HEAD "measure:\n  areas:\n    - {name: a, rect: [0, 0, 1]}\n",
     10, 23, "measure.areas[0].rect", TH_ERR_SCENE_VALUE},
    {"area outside the world",
     SCENE_HEAD "measure:\n  areas:\n    - {name: a, rect: [30, 0, 11, 5]}\n", 10, 23,
     "measure.areas[0].rect", TH_ERR_SCENE_VALUE},
    {"area of zero width", SCENE_HEAD "measure:\n  areas:\n    - {name: a, rect: [3, 0, 0, 5]}\n",
     10, 23, "measure.areas[0].rect", TH_ERR_SCENE_VALUE},
    {"area name used twice",
     SCENE_HEAD
     "measure:\n  areas:\n    - {name: a, rect: [0, 0, 1, 1]}\n    - {name: a, rect: [0, 0, 2, 2]}\n",
     11, 14, "measure.areas[1].name", TH_ERR_SCENE_VALUE},
    {"lines is a word", SCENE_HEAD "measure:\n  lines: door\n", 9, 10, "measure.lines",
     TH_ERR_SCENE_VALUE},
    {"line without to", SCENE_HEAD "measure:\n  lines:\n    - {name: l, from: [1, 1]}\n", 10, 7,
     "measure.lines[0].to", TH_ERR_SCENE_MISSING},
    {"unknown key in a line",
     SCENE_HEAD "measure:\n  lines:\n    - {name: l, form: [1, 1], to: [2, 2]}\n", 10, 17,
     "measure.lines[0].form", TH_ERR_SCENE_KEY},
    {"zero-length line",
     SCENE_HEAD "measure:\n  lines:\n    - name: l\n      from: [5, 5]\n      to: [5.0, 5]\n", 12,
     11, "measure.lines[0].to", TH_ERR_SCENE_VALUE},
    {"line end outside the world",
     SCENE_HEAD "measure:\n  lines:\n    - {name: l, from: [1, 1], to: [41, 2]}\n", 10, 35,
     "measure.lines[0].to", TH_ERR_SCENE_VALUE},
    {"line end negative",
     SCENE_HEAD "measure:\n  lines:\n    - {name: l, from: [-1, 1], to: [4, 2]}\n", 10, 24,
     "measure.lines[0].from[0]", TH_ERR_SCENE_VALUE},
    {"line point of one number",
     SCENE_HEAD "measure:\n  lines:\n    - {name: l, from: [1], to: [4, 2]}\n", 10, 23,
     "measure.lines[0].from", TH_ERR_SCENE_VALUE},
    {"zero window",
     SCENE_HEAD "measure:\n  lines:\n    - {name: l, from: [1, 1], to: [4, 2], window: 0}\n", 10,
     51, "measure.lines[0].window", TH_ERR_SCENE_VALUE},
    {"window of too many steps",
     "name: t\ntimestep: 0.001\nworld:\n  size: [40, 30]\ncrowds:\n  - name: a\n    count: 2\n    spawn: {rect: [0, 0, 40, 30]}\nmeasure:\n  lines:\n    - {name: l, from: [1, 1], to: [4, 2], window: 70}\n",
     11, 51, "measure.lines[0].window", TH_ERR_SCENE_VALUE},
    {"window a word",
     SCENE_HEAD "measure:\n  lines:\n    - {name: l, from: [1, 1], to: [4, 2], window: long}\n", 10,
     51, "measure.lines[0].window", TH_ERR_SCENE_VALUE},
    {"line named like an area",
     SCENE_HEAD
     "measure:\n  areas:\n    - {name: a, rect: [0, 0, 1, 1]}\n  lines:\n    - {name: a, from: [1, 1], to: [4, 2]}\n",
     12, 14, "measure.lines[0].name", TH_ERR_SCENE_VALUE},
};

START_TEST(bad_measure_sections_point_at_the_value) {
    const bad_scene *c = &k_bad[_i];
    th_error err = {0};
    const char *path = th_test_write_text("scene.yaml", c->yaml);
    th_world *w = th_scene_load(path, &(th_scene_opts){.threads = 1}, NULL, &err);
    ck_assert_msg(w == NULL, "%s: loaded although broken", c->what);
    th_test_scene_error(c->what, &err, "scene.yaml", c->line, c->column, c->path, c->code);
}
END_TEST

START_TEST(scene_measure_builds_the_same_as_the_api) {
    const char *path =
        th_test_write_text("good.yaml", SCENE_HEAD
                           "measure:\n  areas:\n    - {name: c, rect: [10, 5, 20, 10]}\n"
                           "  lines:\n    - {name: l, from: [20, 0], to: [20, 30], window: 0.5}\n");
    th_error err;
    th_world *w = th_scene_load(path, &(th_scene_opts){.threads = 1}, NULL, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    ck_assert_uint_eq(th_world_measure_area_count(w), 1);
    ck_assert_uint_eq(th_world_measure_line_count(w), 1);
    th_measure_area_info a;
    th_measure_line_info l;
    th_world_get_measure_area(w, AREA_ID(0), &a);
    th_world_get_measure_line(w, LINE_ID(0), &l);
    ck_assert_str_eq(a.name, "c");
    ck_assert(a.x0 == 10.0f && a.y0 == 5.0f && a.x1 == 30.0f && a.y1 == 15.0f);
    ck_assert_str_eq(l.name, "l");
    ck_assert(l.a.x == 20.0f && l.a.y == 0.0f && l.b.x == 20.0f && l.b.y == 30.0f);
    ck_assert_uint_eq(l.window_steps, 30);
    check_areas(w);
    for (int s = 0; s < 30; s++) {
        th_world_step(w);
        check_areas(w);
    }
    th_world_destroy(w);
}
END_TEST

/* ---- output files read back ---------------------------------------------------------------- */

typedef struct sample {
    uint64_t step;
    uint32_t n;
    th_agent_state a[64];
} sample;

static bool float_exact(const char *text, float want) {
    char *end;
    float got = strtof(text, &end);
    return end != text && memcmp(&got, &want, sizeof got) == 0;
}

START_TEST(trajectory_files_round_trip) {
    enum { EVERY = 3, STEPS = 31 };
    const char *scene = th_test_write_text(
        "traj.yaml", "name: traj\nseed: 4\nworld:\n  size: [20, 20]\n  bounds: wrap\n"
                     "crowds:\n  - name: a\n    count: 30\n    spawn: {rect: [0, 0, 20, 20]}\n"
                     "    initial_speed: 2\n  - name: b\n    count: 12\n"
                     "    spawn: {rect: [5, 5, 3, 3]}\n    initial_speed: 1\n"
                     "measure:\n  areas:\n    - {name: box, rect: [5, 5, 10, 10]}\n"
                     "  lines:\n    - {name: cut, from: [10, 0], to: [10, 20]}\n");
    th_error err;
    th_scene_info info;
    th_world *w = th_scene_load(scene, &(th_scene_opts){.threads = 2}, &info, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    char csv[512], txt[512], mcsv[512];
    snprintf(csv, sizeof csv, "%s", th_test_file("t.csv"));
    snprintf(txt, sizeof txt, "%s", th_test_file("t.txt"));
    snprintf(mcsv, sizeof mcsv, "%s", th_test_file("m.csv"));
    th_output oc = {
        .measure_path = mcsv, .measure_every = EVERY, .traj_path = csv, .traj_every = EVERY};
    th_output ot = {.measure_every = 1, .traj_path = txt, .traj_every = EVERY}; /* .txt: pedpy */
    ck_assert_msg(th_output_open(&oc, w, info.name, &err), "%s", err.message);
    ck_assert_msg(th_output_open(&ot, w, info.name, &err), "%s", err.message);
    ck_assert(th_output_sample(&oc, w, &err) && th_output_sample(&ot, w, &err));
    static sample samples[STEPS / EVERY + 1];
    static uint32_t box[STEPS / EVERY + 1];
    static int64_t cut[STEPS / EVERY + 1];
    static uint64_t cut_fwd[STEPS / EVERY + 1], cut_bwd[STEPS / EVERY + 1];
    uint32_t ns = 0;
    for (uint64_t step = 0; step <= STEPS; step++) {
        if (step > 0) {
            th_world_step(w);
            ck_assert(th_output_sample(&oc, w, &err));
            ck_assert(th_output_sample(&ot, w, &err));
        }
        if (step % EVERY) continue;
        sample *s = &samples[ns];
        s->step = step;
        s->n = 0;
        for (uint32_t id = 0; id < 42; id++) {
            if (th_world_get_agent(w, th_test_id(id), &s->a[s->n])) s->n++;
        }
        th_measure_area_info a;
        th_measure_line_info l;
        th_world_get_measure_area(w, AREA_ID(0), &a);
        th_world_get_measure_line(w, LINE_ID(0), &l);
        box[ns] = a.count;
        cut[ns] = l.crossed_total;
        cut_fwd[ns] = l.forward_total;
        cut_bwd[ns] = l.backward_total;
        ns++;
    }
    ck_assert(th_output_close(&oc, &err));
    ck_assert(th_output_close(&ot, &err));
    double dt = th_world_get_def(w).timestep;
    th_world_destroy(w);

    /* CSV: header, then every agent of every sampled step in id order, bit-exact. */
    FILE *f = fopen(csv, "r");
    ck_assert_ptr_nonnull(f);
    char line[512];
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    ck_assert_str_eq(line, "step,time,id,crowd,x,y,vx,vy\n");
    uint32_t rows = 0;
    for (uint32_t si = 0; si < ns; si++) {
        for (uint32_t k = 0; k < samples[si].n; k++) {
            const th_agent_state *a = &samples[si].a[k];
            ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
            char *fld[8], *save = NULL;
            int nf = 0;
            for (char *t = strtok_r(line, ",\n", &save); t && nf < 8;
                 t = strtok_r(NULL, ",\n", &save))
                fld[nf++] = t;
            ck_assert_int_eq(nf, 8);
            ck_assert_uint_eq(strtoull(fld[0], NULL, 10), samples[si].step);
            ck_assert_double_eq_tol(strtod(fld[1], NULL), samples[si].step * dt, 1e-9);
            ck_assert_uint_eq(strtoul(fld[2], NULL, 10), th_test_slot(a->id));
            ck_assert_int_eq((int)strtol(fld[3], NULL, 10), IDX(a->crowd));
            ck_assert_msg(
                float_exact(fld[4], a->position.x) && float_exact(fld[5], a->position.y) &&
                    float_exact(fld[6], a->velocity.x) && float_exact(fld[7], a->velocity.y),
                "step %llu agent %u not bit-exact", (unsigned long long)samples[si].step,
                th_test_slot(a->id));
            rows++;
        }
    }
    ck_assert(fgets(line, sizeof line, f) == NULL);
    fclose(f);
    ck_assert_uint_eq(rows, 42 * ns);

    /* PedPy text: '#' lines with the frame rate and the unit, then id frame x y z. */
    f = fopen(txt, "r");
    ck_assert_ptr_nonnull(f);
    bool rate = false, unit = false;
    uint32_t si = 0, k = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') {
            ck_assert_uint_eq(si + k, 0); /* comments only at the top */
            double fr;
            if (sscanf(line, "# framerate: %lf", &fr) == 1) {
                rate = true;
                ck_assert_double_eq_tol(fr, 1.0 / (dt * EVERY), 1e-6);
            }
            if (strstr(line, "x/m")) unit = true;
            ck_assert_ptr_null(strstr(line, "x/cm"));
            continue;
        }
        ck_assert_uint_lt(si, ns);
        const th_agent_state *a = &samples[si].a[k];
        unsigned id;
        unsigned long long frame;
        char xs[64], ys[64], zs[64];
        ck_assert_int_eq(sscanf(line, "%u %llu %63s %63s %63s", &id, &frame, xs, ys, zs), 5);
        ck_assert_uint_eq(id, th_test_slot(a->id));
        ck_assert_uint_eq(frame, samples[si].step / EVERY);
        ck_assert(float_exact(xs, a->position.x) && float_exact(ys, a->position.y));
        ck_assert_str_eq(zs, "0");
        if (++k == samples[si].n) k = 0, si++;
    }
    fclose(f);
    ck_assert(rate && unit);
    ck_assert_uint_eq(si, ns);

    /* Measurement table: one row per sampled step, matching the API at that step. */
    f = fopen(mcsv, "r");
    ck_assert_ptr_nonnull(f);
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    ck_assert_str_eq(
        line,
        "step,time,box_count,box_density,box_speed,cut_crossed,cut_flow,cut_forward,cut_backward\n");
    for (uint32_t r = 0; r < ns; r++) {
        unsigned long long step, fwd, bwd;
        unsigned count;
        long long crossed;
        ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
        ck_assert_int_eq(sscanf(line, "%llu,%*[^,],%u,%*[^,],%*[^,],%lld,%*[^,],%llu,%llu", &step,
                                &count, &crossed, &fwd, &bwd),
                         5);
        ck_assert_uint_eq(step, samples[r].step);
        ck_assert_uint_eq(count, box[r]);
        ck_assert_int_eq(crossed, cut[r]);
        ck_assert_uint_eq(fwd, cut_fwd[r]);
        ck_assert_uint_eq(bwd, cut_bwd[r]);
        ck_assert_int_eq((long long)fwd - (long long)bwd, crossed);
    }
    ck_assert(fgets(line, sizeof line, f) == NULL);
    fclose(f);
}
END_TEST

START_TEST(output_refuses_unwritable_and_empty) {
    const char *scene = th_test_write_text("plain.yaml", SCENE_HEAD);
    th_error err;
    th_world *w = th_scene_load(scene, &(th_scene_opts){.threads = 1}, NULL, &err);
    ck_assert_ptr_nonnull(w);
    th_output o = {.measure_path = th_test_file("m.csv"), .measure_every = 1, .traj_every = 1};
    ck_assert(!th_output_open(&o, w, "plain", &err));
    ck_assert_ptr_nonnull(strstr(err.message, "measures nothing"));
    th_output o2 = {.measure_every = 1, .traj_path = "/nonexistent-dir/t.csv", .traj_every = 1};
    ck_assert(!th_output_open(&o2, w, "plain", &err));
    TH_TEST_ERR(err, TH_ERR_IO);
    ck_assert_ptr_nonnull(strstr(err.message, "cannot write '/nonexistent-dir/t.csv'"));
    ck_assert(th_output_close(&o2, &err)); /* nothing open: nothing to do */
    th_world_destroy(w);
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("measure");
    TCase *t = tcase_create("measure");
    tcase_set_timeout(t, 300);
    /* Under ThreadSanitizer the tests that step worlds on one thread only are left out. */
    tcase_add_test(t, areas_match_brute_force);
    if (!TH_TEST_TSAN) tcase_add_test(t, lanes_of_known_arrangements);
    if (!TH_TEST_TSAN) tcase_add_test(t, lanes_leave_out_the_far_edges);
    tcase_add_test(t, lanes_match_brute_force);
    if (!TH_TEST_TSAN) tcase_add_test(t, lanes_refuse_bad_defs);
    tcase_add_test(t, lines_match_reference_walls);
    tcase_add_test(t, lines_match_reference_wrap);
    if (!TH_TEST_TSAN) tcase_add_test(t, lone_agent_laps_count_once_per_lap);
    if (!TH_TEST_TSAN) tcase_add_test(t, new_agent_crossing_counts);
    tcase_add_test(t, same_figures_for_any_thread_count);
    tcase_add_test(t, measuring_changes_nothing);
    tcase_add_test(t, no_allocation_in_a_measured_step);
    if (!TH_TEST_TSAN) tcase_add_test(t, api_refuses_bad_measures);
    if (!TH_TEST_TSAN)
        tcase_add_loop_test(t, bad_measure_sections_point_at_the_value, 0,
                            (int)(sizeof k_bad / sizeof k_bad[0]));
    if (!TH_TEST_TSAN) tcase_add_test(t, scene_measure_builds_the_same_as_the_api);
    tcase_add_test(t, trajectory_files_round_trip);
    if (!TH_TEST_TSAN) tcase_add_test(t, output_refuses_unwritable_and_empty);
    suite_add_tcase(s, t);
    return s;
}

int main(void) {
    if (!th_test_dir_make("measure")) return EXIT_FAILURE;
    int rc = th_test_run(suite());
    if (!th_test_dir_remove()) rc = EXIT_FAILURE;
    return rc;
}
