/* The pedestrian model: the collision-free speed model of Tordeux, Chraibi and Seyfried (2016),
 * "Collision-free speed model for pedestrian dynamics", in: Traffic and Granular Flow '15,
 * Springer, pp. 225-232 (arXiv:1512.05597), with the speeding-up relaxation of a first-order
 * model made second-order only where it cannot cause a collision.
 *
 * For pedestrian i at x_i with body radius r_i, free speed v0_i (drawn per agent) and goal
 * direction e0_i (its crowd goal's direction, sim/behave/goal.c; the crowd's heading without one):
 *
 *   direction   e_i = unit(e0_i + sum_j a exp((l_ij - d_ij) / D) n_ji
 *                               + a_w exp((r_i - d_iw) / D_w) n_wi)
 *               over neighbours j at distance d_ij, l_ij = r_i + r_j, n_ji the unit vector
 *               from j to i; and the nearest wall point w at distance d_iw, n_wi away from it;
 *   spacing     the neighbours j ahead that the body would hit walking along e_i: along =
 *               e_i . (x_j - x_i) > 0 and lateral offset |e_i x (x_j - x_i)| < l_ij;
 *   speed       u_i = min(v0_i, max(0, min_j th_ped_gap_speed(along, lateral, l_ij, T)))
 *               (T = time_gap): the free run to contact over a time gap that shrinks with how
 *               much of j's body is in i's way, (s - l) / T directly behind (sim/behave/ped.h);
 *   velocity    v_i = u_i e_i.
 *
 * In the original model the velocity jumps to u_i e_i. Here a faster u_i is approached with
 * the relaxation time tau (speed += (u_i - speed) dt / tau), as walkers accelerate in about
 * half a second (Helbing & Molnar 1995; Weidmann 1993); a slower u_i is taken at once, so the
 * model's guarantee that nobody walks into the one ahead is kept. The direction chosen turns at
 * most TH_PED_TURN / speed radians a second; the wall's push bends it at once, and pushes back
 * at most what drives the walker into the wall (a wall stops a body, it does not throw it off).
 * The walker goes at full speed while the sum that sets its direction is at least
 * TH_PED_WANT_FULL, slower in proportion below: where goal, pushes and sidesteps all but cancel
 * (held back in a queue), it stands rather than walking off at full speed in whatever direction
 * is left, which would flip from step to step. With no goal the agent walks only as fast as the
 * push asks, min(1, |sum|) v0_i, so a standing group spreads gently instead of scattering.
 *
 * Further terms keep crowds moving where the plain model gridlocks (docs/pedestrians.md has the
 * measurements):
 *   counterflow   walkers anticipate those coming the other way (their closest approach within
 *                 the crowd's `anticipation` time: Xu, Chraibi & Seyfried 2021, "Anticipation
 *                 in a velocity-based model for pedestrian dynamics", Transp. Res. C 133) and
 *                 step aside from the side they will pass on; meeting the other stream makes
 *                 them aware of it, awareness passes back to those behind and fades over a few
 *                 seconds, and an aware walker in the left half of its walkway keeps right
 *                 (`keep_right`) and holds back until it is on its side; of two walkers coming
 *                 toward each other the one with the larger share of neighbours coming the
 *                 other way has the way, and the other gives it: lanes, and passages through
 *                 waiting crowds;
 *   narrow doors  the push of a walker that another goes before keeps only its forward part,
 *                 and a walker pressed against a wall its river map leads into heads for the
 *                 cheapest nearby spot its body fits in;
 *   exits         those who just left by an exit still walk on for the spacing of those behind
 *                 them (sim/behave/leavers.c).
 *
 * The step's contacts phase (sim/behave/contacts.c) then removes whatever overlap remains (pushes
 * from behind, from the side, from walls): the speed law keeps bodies apart in the walking
 * direction, the contacts phase everywhere.
 *
 * The model reproduces the fundamental diagram with one set of defaults (the validation suite
 * compares it with Weidmann's curve): its speed-density relation comes out of the time-gap law.
 * docs/pedestrians.md has the parameters, their sources and the measured curve. */
#include <math.h>
#include <string.h>
#if defined(__SSE__)
#include <immintrin.h>
#endif

#include "sim/behave/contacts.h"
#include "sim/behave/elevator.h"
#include "sim/behave/goal.h"
#include "sim/behave/group.h"
#include "sim/behave/leavers.h"
#include "sim/behave/own_goal.h"
#include "sim/behave/ped.h"
#include "sim/core/world.h"
#include "sim/scenario/hazard.h"

/* Weight of the sideways step around a slower walker ahead, against the unit goal direction. */
#define TH_PED_OVERTAKE 0.5f

/* Anticipation: the step aside from a walker coming the other way weighs
 * exp((l - miss) / TH_PED_MISS_RANGE) (1 - t / anticipation), against the unit goal direction,
 * for a predicted closest approach `miss` at t seconds; closer than TH_PED_TIE to dead ahead,
 * the step goes to the right. */
#define TH_PED_MISS_RANGE 0.2f
#define TH_PED_TIE        0.05f

/* Counterflow: a walker within 60 degrees of our goal direction (cosine above TH_PED_ALONG)
 * goes our way (one more than 120 degrees off comes the other way: TH_PED_OPPOSED, ped.h);
 * awareness passes back to the walker behind at TH_PED_RELAY of its strength. */
#define TH_PED_ALONG 0.5f
#define TH_PED_RELAY 0.9f

/* Keeping right looks this far across the walkway (metres) for its walls: a walker keeps to
 * its right only while it is in the walkway's left half, measured where the walkway ahead, up to
 * TH_PED_WALKWAY_AHEAD metres on, is narrowest. */
#define TH_PED_WALKWAY       12.0f
#define TH_PED_WALKWAY_AHEAD 2.0f

/* Keeping to one's side: an aware walker in the left half of its walkway holds back its forward
 * step by TH_PED_HOLD times its awareness times how deep in that half it is (0 in the middle,
 * 1 at the wall), at most all of it. */
#define TH_PED_HOLD 10.0f

/* Giving way: a walker with one that has the way over it ahead, within TH_PED_GIVE_BAND contact
 * distances of its line, steps aside with weight TH_PED_GIVE (against the unit goal direction)
 * times how near it is, and stops pressing forward by as much. */
#define TH_PED_GIVE_BAND 1.5f
#define TH_PED_GIVE      3.0f

/* A sidestep (keeping right, stepping aside for those coming the other way, overtaking) never
 * leads into a wall nearer than this beyond the body (metres): its part toward it is dropped. */
#define TH_PED_SIDESTEP_WALL 0.15f

/* Share of a plain goal's drive from which a walker walks at full speed (below it, slower in
 * proportion): the sum of its goal, pushes and sidesteps. */
#define TH_PED_WANT_FULL 0.5f

/* Turning: a walker's direction turns at most TH_PED_TURN / speed radians a second (a lateral
 * acceleration of TH_PED_TURN m/s^2), and freely below TH_PED_TURN_SLOW m/s. */
#define TH_PED_TURN      8.0f
#define TH_PED_TURN_SLOW 0.05f
/* Band around cos(the most a walker turns in a step) within which turn() works out the angle
 * itself: wider than the rounding of the unit vectors' dot product. */
#define TH_PED_TURN_EPS  1e-5f

/* Awareness below this is none: it fades out, instead of lingering for minutes. */
#define TH_PED_AWARE_MIN 0.01f

/* A walker closer than (1 + TH_PED_WALL_CLEAR) radii to a wall its goal leads into looks for a
 * spot its body fits in (clear_direction). */
#define TH_PED_WALL_CLEAR 0.25f

/* The pushes from walkers one goes before keep only their forward part where the map's cells
 * are at most TH_PED_ORDER_CELL radii wide, and elsewhere within TH_PED_JAMB radii of a wall
 * (see the push in pass 1). */
#define TH_PED_ORDER_CELL 3.0f
#define TH_PED_JAMB       0.75f

/* Neighbours within reach of one agent, gathered from its block of grid cells (th_grid_block) by a
 * cheap first pass so that the two passes of the model walk a short list. At the densest packing of
 * 0.2 m bodies (7 per m2) a 1.7 m reach holds about 60 agents; past TH_PED_NEAR the nearest
 * are not preferred, the first in storage order are kept: (cell, id slot) order, a function of
 * the agents, not of where they are stored (and never reached in a crowd of bodies). */
#define TH_PED_NEAR 128u

/* The list, as arrays the passes read four at a time: 3 entries past the last are padded
 * with a far neighbour of no size, so every block of four reads defined numbers. */
#define TH_PED_NEAR_PADDED (TH_PED_NEAR + 3u)

typedef struct ped_near {
    float dx[TH_PED_NEAR_PADDED], dy[TH_PED_NEAR_PADDED], d2[TH_PED_NEAR_PADDED];
    float d[TH_PED_NEAR_PADDED], l[TH_PED_NEAR_PADDED];
    float x[TH_PED_NEAR_PADDED], y[TH_PED_NEAR_PADDED]; /* the neighbours' positions */
    uint32_t j[TH_PED_NEAR_PADDED];
    int32_t before[TH_PED_NEAR_PADDED]; /* -1 where the agent goes before the neighbour (the
                                           walker's goal has a cost field), else 0 */
    int32_t yields[TH_PED_NEAR_PADDED]; /* -1 where the neighbour comes the other way and yields
                                           the way to the agent (right of way), else 0 */
    uint32_t n;
} ped_near;

/* The gather runs 4 candidates at a time on GCC/Clang vector extensions: 4-lane float
 * arithmetic and comparisons are plain SSE2, so every x86-64 CPU runs them natively (8 lanes
 * would fall back to scalar comparisons on CPUs without AVX). Each lane does the same IEEE
 * operations as a scalar loop would, so the list, and everything after it, is the same. */
typedef float v4f __attribute__((vector_size(16)));
typedef int32_t v4i __attribute__((vector_size(16)));
typedef uint32_t v4u __attribute__((vector_size(16)));

static inline v4f load4(const float *p) {
    v4f v;
    memcpy(&v, p, sizeof v);
    return v;
}

static const v4i k_lane = {0, 1, 2, 3};

static inline v4f v4(float s) { return (v4f){s, s, s, s}; }

static inline v4f sel4(v4i m, v4f a, v4f b) { return (v4f)(((v4i)a & m) | ((v4i)b & ~m)); }

static inline v4f abs4(v4f v) { return (v4f)((v4i)v & 0x7fffffff); }

/* e^x, four at a time, for the repulsion: x = n ln 2 + r with |r| <= ln 2 / 2, e^r by the
 * minimax polynomial of Cephes' expf (S. L. Moshier, Cephes Math Library, 1984-2000), 2^n put
 * in the exponent bits. Within 1 ulp of e^x (checked against exp in double at every float in [-87,
 * 20]); plain multiplies and adds, so every x86-64 CPU (and the scalar code a compiler makes
 * elsewhere) gives the same bits. x is clamped to
 * [-87, 20]: below, e^x is a denormal, which no push needs; above, a push of e^20 times the
 * repulsion strength already throws anyone clear, and e^89 would overflow. */
static inline v4f exp4(v4f x) {
    x = sel4(x < -87.0f, v4(-87.0f), sel4(x > 20.0f, v4(20.0f), x));
    const v4f round = v4(12582912.0f); /* 1.5 * 2^23: adding it rounds to an integer */
    const v4f n = (x * 1.44269504088896341f + round) - round;
    const v4f r = (x - n * 0.693359375f) - n * -2.12194440e-4f;
    v4f p = v4(1.9875691500e-4f);
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    const v4f y = p * (r * r) + r + 1.0f;
    const v4i bits = (__builtin_convertvector(n, v4i) + 127) << 23;
    return y * (v4f)bits;
}

/* Square roots, correctly rounded as sqrtf's are (IEEE 754 requires it of both). */
static inline v4f sqrt4(v4f v) {
#if defined(__SSE__)
    return (v4f)_mm_sqrt_ps((__m128)v);
#else
    return (v4f){sqrtf(v[0]), sqrtf(v[1]), sqrtf(v[2]), sqrtf(v[3])};
#endif
}

/* th_ped_gap_speed (sim/behave/ped.h), four at a time, with the same operations in the same order:
 * the speed a walker may keep behind bodies `along` metres ahead of it and `lat` to the side. */
static inline v4f gap_speed4(v4f along, v4f lat, v4f l, v4f inv_time_gap) {
    v4f c2 = l * l - lat * lat;
    c2 = sel4(c2 < TH_PED_MIN_CHORD2, v4(TH_PED_MIN_CHORD2), c2);
    const v4f c = sqrt4(c2);
    return (along - c) * inv_time_gap * sqrt4(l / c);
}

/* The four values of `v` at the indices idx[0..3]. */
static inline v4f pick4(const float *v, const uint32_t *idx) {
    return (v4f){v[idx[0]], v[idx[1]], v[idx[2]], v[idx[3]]};
}

/* Lanes set in a 4-bit mask. A table, not __builtin_popcount: without the POPCNT instruction
 * (not in baseline x86-64) that is a library call, 4 % of the step. */
static const uint8_t k_lanes_set[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};

/* The smaller and the larger of two numbers that are not NaN, inline (fminf and fmaxf are
 * library calls here, a few percent of the step). */
static inline float min_f(float a, float b) { return a < b ? a : b; }
static inline float max_f(float a, float b) { return a > b ? a : b; }

/* Bit k set when lane k of the mask is. */
static inline uint32_t mask_bits(v4i m) {
#if defined(__SSE__)
    return (uint32_t)_mm_movemask_ps((__m128)m);
#else
    return (m[0] ? 1u : 0u) | (m[1] ? 2u : 0u) | (m[2] ? 4u : 0u) | (m[3] ? 8u : 0u);
#endif
}

/* In a building, only the neighbours on one level count: levels drawn side by side on the map
 * may lie within reach of each other across the walls between them. `on`: filter at all (a
 * walker off every level, `want` = 0, filters only in a world with elevators, whose riders,
 * TH_LEVEL_RIDING, no one may see); `level` is each agent's level (the grid phase's). Across a
 * stair's seam, `box` (metres, x0 y0 x1 y1; NULL = none) keeps those on the far side of the glued
 * edge: the flight seen from its landing, the landing's side seen from the flight, not walkers
 * beyond the walls there. */
typedef struct level_filter {
    const uint8_t *level;
    bool on;
    uint8_t want;
    const float *box;
} level_filter;

static uint32_t same_level(const level_filter *lf, uint32_t j, v4f px, v4f py, uint32_t in) {
    uint32_t kept = in;
    for (uint32_t k = 0; k < 4; k++) {
        if (!(in >> k & 1u)) continue;
        if (lf->level[j + k] != lf->want ||
            (lf->box && !(px[k] >= lf->box[0] && px[k] < lf->box[2] && py[k] >= lf->box[1] &&
                          py[k] < lf->box[3])))
            kept &= ~(1u << k);
    }
    return kept;
}

/* Append the candidates [begin, end) within reach2 of (x, y) to nb, in index order. The agent
 * arrays are padded by TH_SIMD_PAD elements, so the last block may read past `end`. */
static void gather(const th_agents *a, uint32_t begin, uint32_t end, uint32_t self, float x,
                   float y, float reach2, float seen2, bool wrap, float W, float H, th_vec2 e0,
                   const level_filter *lf, ped_near *nb, uint32_t *seen, uint32_t *counter) {
    /* wrap: the agent is within reach of a seam (elsewhere no offset needs its image). */
    const v4f hw = {0.5f * W, 0.5f * W, 0.5f * W, 0.5f * W},
              hh = {0.5f * H, 0.5f * H, 0.5f * H, 0.5f * H};
    for (uint32_t j = begin; j < end; j += 4) {
        const v4f px = load4(a->px + j), py = load4(a->py + j);
        v4f dx = px - x, dy = py - y;
        if (wrap) {
            dx = sel4(dx > hw, dx - W, sel4(dx < -hw, dx + W, dx));
            dy = sel4(dy > hh, dy - H, sel4(dy < -hh, dy + H, dy));
        }
        const v4f d2 = dx * dx + dy * dy;
        const v4i idx = (v4i){0, 1, 2, 3} + (int32_t)j;
        const v4i live = (k_lane < (int32_t)(end - j)) & (idx != (int32_t)self);
        uint32_t in = mask_bits((d2 < reach2) & live);
        if (!in) continue;
        uint32_t near = mask_bits((d2 < seen2) & live);
        if (lf->on) {
            in = same_level(lf, j, px, py, in);
            near &= in;
            if (!in) continue;
        }
        *seen += k_lanes_set[near];
        /* Every lane is written at the list's end and kept only if it is in: no branch per
         * candidate (which of them are in is a coin toss to the branch predictor). A full
         * list keeps its first TH_PED_NEAR; the writes past it land in the padding. */
        const v4f d = sqrt4(d2);
        /* Any neighbour aware of counterflow, or whose goal direction turns away from ours by
         * more than 90 degrees: only then is the counterflow part of pass 1 needed. */
        const v4f hdot = load4(a->hx + j) * e0.x + load4(a->hy + j) * e0.y;
        *counter |= in & mask_bits((hdot < 0.0f) | (load4(a->aware + j) > 0.0f));
        uint32_t n = nb->n;
        for (uint32_t k = 0; k < 4; k++) {
            nb->dx[n] = dx[k];
            nb->dy[n] = dy[k];
            nb->d2[n] = d2[k];
            nb->d[n] = d[k];
            nb->x[n] = px[k];
            nb->y[n] = py[k];
            nb->j[n] = j + k;
            n += (in >> k & 1u) & (n < TH_PED_NEAR);
        }
        nb->n = n;
    }
}

/* Sixteen unit vectors, every 22.5 degrees: the spots a walker pressed against a wall looks at
 * (written out: sinf and cosf may differ in the last bit between C libraries). */
#define TH_PED_CLEAR_DIRS 16
static const float k_clear_dir[TH_PED_CLEAR_DIRS][2] = {{1.0f, 0.0f},
                                                        {0.92387953f, 0.38268343f},
                                                        {0.70710678f, 0.70710678f},
                                                        {0.38268343f, 0.92387953f},
                                                        {0.0f, 1.0f},
                                                        {-0.38268343f, 0.92387953f},
                                                        {-0.70710678f, 0.70710678f},
                                                        {-0.92387953f, 0.38268343f},
                                                        {-1.0f, 0.0f},
                                                        {-0.92387953f, -0.38268343f},
                                                        {-0.70710678f, -0.70710678f},
                                                        {-0.38268343f, -0.92387953f},
                                                        {0.0f, -1.0f},
                                                        {0.38268343f, -0.92387953f},
                                                        {0.70710678f, -0.70710678f},
                                                        {0.92387953f, -0.38268343f}};

/* The direction to the cheapest spot (by the goal's cost field) a body of radius r fits in, of
 * those one cell (at least a radius) away from p in TH_PED_CLEAR_DIRS directions and, on cells
 * larger than the body, the centres of the 3 x 3 cells around p's; of equally cheap spots the
 * one nearest to e0. e0 itself when no spot fits. */
static th_vec2 clear_direction(const th_world *w, const uint32_t *cost, th_vec2 p, float r,
                               th_vec2 e0) {
    const th_navmap *m = &w->nav.map;
    const float cs = m->cell_size, rho = fmaxf(cs, r);
    uint32_t best = UINT32_MAX;
    float best_dot = -2.0f;
    th_vec2 out = e0;
    /* The ring of spots, then the centres of the cells around p's (on a map coarser than a
     * body, a door one cell wide has its centre off the ring). */
    const int32_t cx = (int32_t)floorf(p.x / cs), cy = (int32_t)floorf(p.y / cs);
    for (int k = 0; k < TH_PED_CLEAR_DIRS + (cs > r ? 9 : 0); k++) {
        th_vec2 d, q;
        if (k < TH_PED_CLEAR_DIRS) {
            d = th_v2(k_clear_dir[k][0], k_clear_dir[k][1]);
            q = th_v2_add(p, th_v2_scale(d, rho));
        } else {
            const int32_t n = k - TH_PED_CLEAR_DIRS;
            q = th_v2(((float)(cx + n % 3 - 1) + 0.5f) * cs, ((float)(cy + n / 3 - 1) + 0.5f) * cs);
            const th_vec2 to = th_v2_sub(q, p);
            if (th_v2_len2(to) < 1e-6f) continue;
            d = th_v2_norm(to);
        }
        if (!(q.x >= 0.0f && q.y >= 0.0f && q.x < w->def.width && q.y < w->def.height)) continue;
        float wd;
        th_vec2 away;
        if (th_nav_nearest_wall(w, q, r, &wd, &away)) continue;
        const uint32_t cq = cost[th_navmap_cell_of(m, q, NULL, NULL)];
        const float dot = th_v2_dot(d, e0);
        if (cq < best || (cq == best && dot > best_dot)) {
            best = cq;
            best_dot = dot;
            out = d;
        }
    }
    return best == UINT32_MAX ? e0 : out;
}

/* The direction a walker takes when it wants `want` (a unit vector) and walked along `was` in
 * the last step at `speed` m/s: turned toward `want` by at most TH_PED_TURN / speed radians a
 * second. People walking fast do not turn on the spot; below TH_PED_TURN_SLOW m/s they do. */
static th_vec2 turn(th_vec2 was, th_vec2 want, float speed, float dt) {
    if ((was.x == 0.0f && was.y == 0.0f) || (want.x == 0.0f && want.y == 0.0f)) return want;
    const float most = TH_PED_TURN / max_f(speed, TH_PED_TURN_SLOW) * dt;
    if (most >= 3.14159265f) return want;
    /* Within `most` of each other when the cosine of the angle between them is at least
     * cos(most); only close to that bound is the angle itself worked out, so that the test is
     * the angle's own, to its last bit. */
    const float cross = was.x * want.y - was.y * want.x, dot = th_v2_dot(was, want);
    const float cr = cosf(most);
    if (dot > cr + TH_PED_TURN_EPS) return want;
    if (dot >= cr - TH_PED_TURN_EPS && fabsf(atan2f(cross, dot)) <= most) return want;
    const float sr = signbit(cross) ? -sinf(most) : sinf(most);
    return th_v2_norm(th_v2(was.x * cr - was.y * sr, was.x * sr + was.y * cr));
}

/* Metres from q along unit d to the first blocked cell or the world's edge, looked for up to
 * `most` metres: a march by the map's wall distance (no blocked cell is nearer than a cell's
 * distance less its diagonal), at least a quarter cell at a time. */
static float free_run(const th_world *w, th_vec2 q, th_vec2 d, float most) {
    const th_navmap *m = &w->nav.map;
    const float W = w->def.width, H = w->def.height, cs = m->cell_size;
    const float diag = 1.4143f * cs, least = 0.25f * cs;
    float t = 0.0f;
    while (t < most) {
        const th_vec2 x = th_v2_add(q, th_v2_scale(d, t));
        if (!(x.x >= 0.0f && x.y >= 0.0f && x.x < W && x.y < H) || th_navmap_blocked_at(m, x))
            return t;
        const float clear = m->wall_dist[th_navmap_cell_of(m, x, NULL, NULL)] - diag;
        t += clear > least ? clear : least;
    }
    return most;
}

/* How deep a walker at p going along e0 is in the left half of its walkway (`right` is the unit
 * vector to its right): across the walkway, at p and at points up to TH_PED_WALKWAY_AHEAD metres
 * ahead, the narrowest cross-section (each side looked at up to TH_PED_WALKWAY metres), the room
 * on its right less that on its left over the width: 0 in the right half (and in a hall wider
 * than twice TH_PED_WALKWAY), up to 1 at the walkway's left wall. */
static float left_half(const th_world *w, th_vec2 p, th_vec2 e0, th_vec2 right) {
    const th_navmap *m = &w->nav.map;
    float narrowest = INFINITY, on_right = 0.0f, on_left = 0.0f;
    for (float ahead = 0.0f; ahead <= TH_PED_WALKWAY_AHEAD; ahead += 1.0f) {
        const th_vec2 o = th_v2_add(p, th_v2_scale(e0, ahead));
        if (!(o.x >= 0.0f && o.y >= 0.0f && o.x < w->def.width && o.y < w->def.height) ||
            th_navmap_blocked_at(m, o))
            break;
        const float r = free_run(w, o, right, TH_PED_WALKWAY);
        const float l = free_run(w, o, th_v2_scale(right, -1.0f), TH_PED_WALKWAY);
        if (r + l < narrowest) {
            narrowest = r + l;
            on_right = r;
            on_left = l;
        }
    }
    return narrowest < INFINITY && on_right > on_left ? (on_right - on_left) / narrowest : 0.0f;
}

/* The map cell of each of four positions, as th_navmap_cell_of finds it: a coordinate below
 * one cell (or NaN) is cell 0, one past the map the last cell. */
static inline v4i cell4(const th_navmap *m, v4f x, v4f y) {
    const v4f fx = x * m->inv_cell_size, fy = y * m->inv_cell_size;
    const v4f nx = v4((float)m->w), ny = v4((float)m->h);
    v4f cx = sel4(fx >= 1.0f, fx, v4(0.0f)), cy = sel4(fy >= 1.0f, fy, v4(0.0f));
    cx = sel4(cx >= nx, nx - 1.0f, cx);
    cy = sel4(cy >= ny, ny - 1.0f, cy);
    return __builtin_convertvector(cy, v4i) * m->w + __builtin_convertvector(cx, v4i);
}

static inline v4i load4i(const int32_t *p) {
    v4i v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline void store4i(int32_t *p, v4i v) { memcpy(p, &v, sizeof v); }

/* For listed neighbours k to k + 3, whether walker i (cost my_cost in its goal's field, id
 * slot mine) goes before each: its cell is farther from i's goal, or as far and its id slot is
 * higher (the padding is i itself: never). */
static inline v4i goes_before(const th_world *w, const th_agents *a, const uint32_t *cost,
                              uint32_t my_cost, uint32_t mine, const ped_near *nb, uint32_t k) {
    const v4i cell = cell4(&w->nav.map, load4(nb->x + k), load4(nb->y + k));
    const uint32_t *j = nb->j + k;
    const v4u cj = {cost[(uint32_t)cell[0]], cost[(uint32_t)cell[1]], cost[(uint32_t)cell[2]],
                    cost[(uint32_t)cell[3]]};
    const v4u idj = {a->id[j[0]].index1, a->id[j[1]].index1, a->id[j[2]].index1,
                     a->id[j[3]].index1};
    return (cj > my_cost) | ((cj == my_cost) & (idj > mine));
}

/* goes_before of neighbours k to k + 3, worked out the first time a pass asks for it and kept
 * in nb->before: bit k / 4 of *known says that block's is there. */
static inline v4i goes_before_once(const th_world *w, const th_agents *a, const uint32_t *cost,
                                   uint32_t my_cost, uint32_t mine, ped_near *nb, uint64_t *known,
                                   uint32_t k) {
    if (!(*known >> (k / 4) & 1u)) {
        store4i(nb->before + k, goes_before(w, a, cost, my_cost, mine, nb, k));
        *known |= UINT64_C(1) << (k / 4);
    }
    return load4i(nb->before + k);
}

/* ---- the step of one walker, stage by stage ----------------------------------------------- */

/* What a stage needs of the world, the same for every walker of a chunk. */
typedef struct ped_chunk {
    th_world *w;
    const th_agents *a;
    const th_grid *g;
    float W, H, dt, inv_dt;
    bool wrap, terrain, levels, stairs;
} ped_chunk;

/* One walker as the stages work it out, in the order they fill it in. */
typedef struct ped_walker {
    uint32_t i;
    const th_crowd_rt *c;
    th_agent_id id;
    th_vec2 p, v;
    float ri;
    /* walker_goal */
    float v0;             /* free speed here (terrain, smoke, group, stair) */
    th_vec2 e0;           /* goal direction (or the host's), unit or zero */
    bool stranded;        /* a goal with no route from here */
    const uint32_t *cost; /* the goal's cost field; NULL for other goals and host-steered */
    uint32_t my_cost;     /* this walker's cell in it */
    /* walker_wall */
    bool have_wall; /* a wall within reach: its distance and the way away from it */
    float wall_d;
    th_vec2 wall_away;
    bool ordered; /* the pushes of those it goes before keep their forward part */
    /* walker_neighbours */
    uint32_t cell;      /* grid cell */
    uint8_t level;      /* its level (0: none) */
    uint32_t own_level; /* nb's first own_level entries are on its level */
    uint32_t n_cand, seen, counter;
    uint64_t known; /* the blocks of nb.before worked out (goes_before_once) */
} ped_walker;

/* Pass 1's counterflow terms (walker_oncoming), four lanes each where they are sums. */
typedef struct ped_oncoming {
    v4f lat, threat, relay; /* anticipation's sidestep; its weight from those coming; awareness */
    uint32_t n_along, n_against;
    bool yielded;          /* some neighbour yields the way to this walker */
    float give, give_side; /* in the way of one that has the way: how near, which side */
} ped_oncoming;

/* A walker carried by an elevator car steers nothing and touches no one until it steps out. */
static inline void walker_riding(const ped_chunk *k, uint32_t i) {
    th_world *w = k->w;
    w->ax[i] = w->ay[i] = 0.0f;
    w->hx_next[i] = w->hy_next[i] = w->aware_next[i] = 0.0f;
    w->flags[i] = 0u;
    w->neighbors[i] = 0u;
    if (w->contact) w->contact_count[i] = TH_CONTACT_UNLISTED;
}

/* The free speed here and the goal direction; the goal's cost field and this walker's cost in it.
 */
static inline __attribute__((always_inline)) void walker_goal(const ped_chunk *k, ped_walker *wk) {
    th_world *w = k->w;
    const th_crowd_rt *c = wk->c;
    const uint32_t slot = th_id_slot(wk->id);
    /* The host's velocity (th_world_set_agent_preferred_velocity), when it set one, is the
     * free speed and the goal direction; everything below still bends and slows it. */
    const th_pref_velocity *pref = th_pref_of(w, slot);
    float v0 = pref ? pref->speed : w->desired_speed[slot];
    if (k->terrain && w->nav.speed) v0 *= th_nav_speed_at(w, wk->p);
    if (w->hazard) v0 *= th_hazard_walk_factor(w, k->a->crowd[wk->i], slot, wk->p);
    if (w->groups) v0 *= th_group_pace(w, slot);

    th_vec2 e0 = c->heading;
    wk->stranded = false;
    if (pref) {
        e0 = pref->dir;
    } else if (c->goal != TH_GOAL_NONE || th_own_active(w, slot) ||
               (c->lift && th_lift_field(w, c, slot, wk->p))) {
        th_vec2 dir;
        wk->stranded = !th_goal_direction(w, wk->id, c, wk->p, &dir);
        e0 = dir;
    }
    /* On a stair's flight, the share of the free speed the way up or down keeps. */
    if (k->terrain && w->nav.stair_count) v0 *= th_nav_stair_factor(w, wk->p, e0);
    wk->v0 = v0;
    wk->e0 = e0;

    /* The goal's cost field (river map or destination field), NULL for other goals and for a
     * walker the host steers. */
    wk->cost = pref ? NULL : th_goal_agent_cost_field(w, c, slot, wk->p);
    wk->my_cost = wk->cost ? wk->cost[th_navmap_cell_of(&w->nav.map, wk->p, NULL, NULL)] : 0;
}

/* The nearest wall. A river map is made for points: beside a door's jamb it may lead a body into
 * the wall, where the wall stops it for good. Pressed against a wall while its goal leads into
 * it, a walker heads for the cheapest nearby spot its body fits in. */
static inline __attribute__((always_inline)) void walker_wall(const ped_chunk *k, ped_walker *wk) {
    th_world *w = k->w;
    const th_crowd_rt *c = wk->c;
    const float ri = wk->ri;
    /* Found into locals: the walker's record stays out of memory that calls may write. */
    float wall_d = INFINITY;
    th_vec2 wall_away = th_v2(0.0f, 0.0f);
    bool have_wall = false;
    if (c->wall_rep > 0.0f || k->terrain) {
        const float range =
            ri + max_f(7.0f / c->inv_wall_rep_range, max_f(TH_PED_WALL_CLEAR, TH_PED_JAMB) * ri);
        have_wall = th_nav_nearest_wall(w, wk->p, range, &wall_d, &wall_away);
        if (have_wall && wk->cost && wall_d < ri * (1.0f + TH_PED_WALL_CLEAR) &&
            th_v2_dot(wk->e0, wall_away) < 0.0f)
            wk->e0 = clear_direction(w, wk->cost, wk->p, ri, wk->e0);
    }
    wk->have_wall = have_wall;
    wk->wall_d = wall_d;
    wk->wall_away = wall_away;
    /* Whether the pushes of those i goes before keep only their forward part (pass 1). */
    wk->ordered = wk->cost && (w->nav.map.cell_size <= TH_PED_ORDER_CELL * ri ||
                               (wk->have_wall && wk->wall_d < ri * (1.0f + TH_PED_JAMB)));
}

/* The neighbours within reach, from the walker's block of grid cells and, near a stair's glued
 * edge, from across it; the list padded for the passes' blocks of four. */
static inline __attribute__((always_inline)) void walker_neighbours(const ped_chunk *k,
                                                                    ped_walker *wk, ped_near *nb) {
    th_world *w = k->w;
    const th_agents *a = k->a;
    const th_grid *g = k->g;
    const th_crowd_rt *c = wk->c;
    const uint32_t i = wk->i;
    const th_vec2 p = wk->p;
    th_grid_span spans[TH_GRID_MAX_SPANS];
    const uint32_t cell = w->cell[i], nx = (uint32_t)g->nx;
    const uint32_t ns =
        th_grid_block(g, (int32_t)(cell % nx), (int32_t)(cell / nx), c->block, k->wrap, spans);
    const float reach2 = c->ped_reach * c->ped_reach;
    const float seen2 = min_f(c->neighbor_r2, reach2); /* neighbours reported */
    const bool near_seam = k->wrap && !(p.x >= c->ped_reach && p.x <= k->W - c->ped_reach &&
                                        p.y >= c->ped_reach && p.y <= k->H - c->ped_reach);
    uint32_t n_cand = 0, seen = 0, counter = 0;
    nb->n = 0;
    const uint8_t mine = k->levels ? w->level[i] : 0;
    level_filter lf = {w->level, mine != 0 || w->lifts, mine, NULL};
    for (uint32_t s = 0; s < ns; s++) {
        n_cand += spans[s].end - spans[s].begin;
        gather(a, spans[s].begin, spans[s].end, i, p.x, p.y, reach2, seen2, near_seam, k->W, k->H,
               wk->e0, &lf, nb, &seen, &counter);
    }
    /* Bodies touch on their own level only: the contacts' list ends here. */
    wk->own_level = nb->n;
    /* Near a stair's glued edge, the walkers on the other side are near too: seen from a point
     * shifted across the seam, at their places relative to this walker. */
    const uint8_t *seams =
        k->stairs ? w->nav.seam_near + 2u * (size_t)th_navmap_cell_of(&w->nav.map, p, NULL, NULL)
                  : NULL;
    for (uint32_t s = 0; seams && s < 2 && seams[s]; s++) {
        const th_stair *st = &w->nav.stair[seams[s] - 1];
        const bool below = lf.want == st->lower + 1u;
        const th_vec2 q = below ? th_v2_add(p, st->shift) : th_v2_sub(p, st->shift);
        level_filter other = {w->level, true, (uint8_t)((below ? st->upper : st->lower) + 1u),
                              below ? st->beyond_box : st->flight_box};
        th_grid_span across[TH_GRID_MAX_SPANS];
        const uint32_t na =
            th_grid_block(g, th_grid_cx(g, q.x), th_grid_cy(g, q.y), c->block, false, across);
        for (uint32_t t = 0; t < na; t++) {
            n_cand += across[t].end - across[t].begin;
            gather(a, across[t].begin, across[t].end, i, q.x, q.y, reach2, seen2, false, k->W, k->H,
                   wk->e0, &other, nb, &seen, &counter);
        }
    }
    const float ri = wk->ri;
    /* Contact distances; bodies of their own only where a host gave some (a loop apart, so
     * the common one stays as lean as it was). */
    const float *crowd_radius = w->crowd_radius, *own = th_own_radii(w);
    if (!own)
        for (uint32_t s = 0; s < nb->n; s++) nb->l[s] = ri + crowd_radius[a->crowd[nb->j[s]]];
    else
        for (uint32_t s = 0; s < nb->n; s++)
            nb->l[s] = ri + th_body_radius_of(crowd_radius, own, a, nb->j[s]);
    for (uint32_t s = nb->n; s < nb->n + 3u; s++) {
        nb->dx[s] = nb->dy[s] = 0.0f;
        nb->d2[s] = nb->d[s] = 1.0f;
        nb->l[s] = 0.0f;
        nb->x[s] = p.x;
        nb->y[s] = p.y;
        nb->j[s] = i;
    }
    wk->cell = cell;
    wk->level = mine;
    wk->n_cand = n_cand;
    wk->seen = seen;
    wk->counter = counter;
    wk->known = 0;
}

/* The contacts phase's list of bodies that may touch this one (sim/behave/contacts.c), from the
 * same neighbours, when they reach far enough for the largest bodies about. */
static inline __attribute__((always_inline)) void walker_contacts(const ped_chunk *k,
                                                                  const ped_walker *wk,
                                                                  const ped_near *nb) {
    th_world *w = k->w;
    if (!w->contact) return;
    const float ri = wk->ri;
    uint32_t n = TH_CONTACT_UNLISTED;
    if (ri > 0.0f && 1.5f * (ri + w->max_radius) <= wk->c->ped_reach) {
        uint32_t *list = w->contact + (size_t)wk->i * TH_CONTACT_LIST;
        float key[TH_CONTACT_LIST];
        n = 0;
        for (uint32_t s = 0; s < wk->own_level; s++) {
            const float reach = 1.5f * nb->l[s];
            if (nb->l[s] > ri && nb->d2[s] < reach * reach) {
                th_contact_insert(list, key, &n, k->a->id, nb->j[s], nb->d2[s]);
            }
        }
    }
    w->contact_count[wk->i] = (uint8_t)n;
}

/* Pass 1, the counterflow part, four neighbours at a time; only when some neighbour comes the
 * other way or this walker is aware of counterflow (a loop of its own, so that the common case
 * keeps its registers): anticipation of walkers coming the other way, the awareness of those
 * ahead, the share of the neighbours coming the other way, and who of them yields the way to
 * this walker. Sums run in four lane sums, then across them: lane q holds neighbours q, q + 4,
 * ... of a list whose order the grid fixes, so the sum is the same for any thread count. */
static inline __attribute__((always_inline)) void walker_oncoming(const ped_chunk *k,
                                                                  const ped_walker *wk,
                                                                  ped_near *nb, ped_oncoming *o) {
    const th_world *w = k->w;
    const th_agents *a = k->a;
    const th_crowd_rt *c = wk->c;
    const uint32_t i = wk->i;
    const uint32_t *cost = wk->cost;
    const th_vec2 e0 = wk->e0;
    const float inv_reach = 1.0f / c->ped_reach;
    const float ta = c->anticipation;
    const v4f ex = v4(e0.x), ey = v4(e0.y);
    const v4f mvx = v4(e0.x * wk->v0), mvy = v4(e0.y * wk->v0);
    const float my_against = a->against[i];
    for (uint32_t k4 = 0; k4 < nb->n; k4 += 4) {
        const v4i valid = k_lane < (int32_t)(nb->n - k4);
        const v4f dx = load4(nb->dx + k4), dy = load4(nb->dy + k4);
        const v4f l = load4(nb->l + k4);
        const v4i front = valid & (ex * dx + ey * dy > 0.0f);
        /* Awareness passed back from those ahead. */
        const v4f awj = sel4(front, pick4(a->aware, nb->j + k4), v4(0.0f));
        o->relay = sel4(awj > o->relay, awj, o->relay);
        /* Who goes this way and who comes the other way, bound elsewhere than this walker
         * (walkers bound for the same place merge, at a door; they do not meet head-on): the
         * share of the latter is this walker's `against`, and an oncoming walker whose share is
         * smaller by more than TH_PED_RIGHT_OF_WAY yields the way to it. A walker in a stream of
         * its own kind, against a few coming the other way, gives way to them; one walking
         * against a crowd, or a lane coming out into a waiting crowd, is given way: each of the
         * many steps aside once, rather than the few stopping for each of them. */
        const v4f hjx = pick4(a->hx, nb->j + k4), hjy = pick4(a->hy, nb->j + k4);
        const v4f hdot = hjx * ex + hjy * ey;
        o->n_along += k_lanes_set[mask_bits(valid & (hdot > TH_PED_ALONG))];
        v4i oncoming = valid & (hdot < TH_PED_OPPOSED);
        v4i yields = {0, 0, 0, 0};
        const v4f agj = pick4(a->against, nb->j + k4);
        for (uint32_t m = mask_bits(oncoming); m; m &= m - 1) {
            const uint32_t q = (uint32_t)__builtin_ctz(m);
            const uint16_t cj = a->crowd[nb->j[k4 + q]];
            if (cj == a->crowd[i] || (cost && th_goal_cost_field(w, &w->crowd_rt[cj]) == cost)) {
                oncoming[q] = 0;
                continue;
            }
            o->n_against++;
            if (agj[q] + TH_PED_RIGHT_OF_WAY < my_against) yields[q] = -1;
            /* One that has the way over this walker, ahead and within 1.5 contact distances of
             * its line: this walker stands in its way. */
            const float side_q = ex[q] * dy[q] - ey[q] * dx[q];
            if (my_against + TH_PED_RIGHT_OF_WAY < agj[q] && front[q] &&
                fabsf(side_q) < TH_PED_GIVE_BAND * l[q]) {
                const float near_q = 1.0f - nb->d[k4 + q] * inv_reach;
                if (near_q > o->give) {
                    o->give = near_q;
                    o->give_side = side_q;
                }
            }
        }
        store4i(nb->yields + k4, yields);
        o->yielded |= mask_bits(yields) != 0;
        /* Anticipation, of walkers ahead coming the other way who come nearer: their closest
         * approach within `ta` seconds if i walks on toward its goal at its free speed and j
         * keeps its velocity. */
        const v4f vjx = pick4(a->vx, nb->j + k4), vjy = pick4(a->vy, nb->j + k4);
        const v4f rvx = vjx - mvx, rvy = vjy - mvy;
        const v4f rdot = dx * rvx + dy * rvy;
        const v4i approach =
            front & (rdot < 0.0f) & (hdot < 0.0f) & (hjx * hjx + hjy * hjy > 0.25f);
        if (ta > 0.0f && mask_bits(approach)) {
            const v4f rv2 = rvx * rvx + rvy * rvy;
            v4f tau = -rdot / sel4(approach, rv2, v4(1.0f));
            tau = sel4(tau > v4(ta), v4(ta), tau);
            const v4f qx = dx + rvx * tau, qy = dy + rvy * tau;
            const v4f s = sqrt4(qx * qx + qy * qy);
            /* Passing wider than 7 ranges apart weighs below 1/1000: left out. */
            const v4i near = approach & (s - l < 7.0f * TH_PED_MISS_RANGE);
            if (mask_bits(near)) {
                const v4f side = ex * qy - ey * qx; /* > 0: j passes on i's left */
                const v4f mag = sel4(
                    near, exp4((l - s) * (1.0f / TH_PED_MISS_RANGE)) * (1.0f - tau * (1.0f / ta)),
                    v4(0.0f));
                /* Step away from the side j will pass on; dead ahead, to the right. */
                o->lat += sel4(side < -TH_PED_TIE, mag, -mag);
                /* Counterflow: j heads back where i comes from (more than 120 degrees off) and
                 * is bound elsewhere. */
                o->threat += sel4(oncoming, mag, v4(0.0f));
            }
        }
    }
}

/* Pass 1, four neighbours at a time: repulsion from the neighbours (returned), and the one ahead
 * on the goal direction that limits the speed most, for overtaking (*block_u, the speed it
 * allows, and *block_side, the side it is on). */
static inline __attribute__((always_inline)) th_vec2 walker_pushes(const ped_chunk *k,
                                                                   ped_walker *wk, ped_near *nb,
                                                                   bool yielded, float *block_u,
                                                                   float *block_side) {
    const th_world *w = k->w;
    const th_agents *a = k->a;
    const th_crowd_rt *c = wk->c;
    const v4f ex = v4(wk->e0.x), ey = v4(wk->e0.y), inv_tg = v4(c->inv_time_gap);
    v4f lane_u = v4(wk->v0), lane_side = v4(0.0f);
    v4i lane_at = k_lane + (int32_t)TH_PED_NEAR_PADDED;
    v4f push_x = v4(0.0f), push_y = v4(0.0f);
    const v4f inv_rr = v4(c->inv_rep_range), rep = v4(c->rep);
    for (uint32_t k4 = 0; k4 < nb->n; k4 += 4) {
        const v4i valid = k_lane < (int32_t)(nb->n - k4);
        const v4f dx = load4(nb->dx + k4), dy = load4(nb->dy + k4);
        const v4f d = load4(nb->d + k4), l = load4(nb->l + k4);
        const v4f side0 = ex * dy - ey * dx;
        const v4i ahead = valid & (ex * dx + ey * dy > 0.0f) & (abs4(side0) < l);
        /* The one in the way that slows us most, per lane: the first of the lane's least (most
         * groups of four have nobody in the way: no gap law to work out). */
        if (mask_bits(ahead)) {
            const v4f uj = gap_speed4(ex * dx + ey * dy, side0, l, inv_tg);
            const v4i take = ahead & (uj < lane_u);
            lane_u = sel4(take, uj, lane_u);
            lane_side = sel4(take, side0, lane_side);
            lane_at = (take & (k_lane + (int32_t)k4)) | (~take & lane_at);
        }
        /* Below 1/1000 of its strength the push is left out: past 7 ranges of gap. */
        const v4f gap = d - l;
        const v4i felt = valid & (gap * inv_rr <= 7.0f);
        if (!mask_bits(felt)) continue;
        /* Deep overlaps are left to the contacts phase: the push stops growing once the overlap
         * reaches a whole contact distance. */
        const v4f x = sel4(gap > -l, -gap * inv_rr, l * inv_rr);
        v4f ax = -dx / d, ay = -dy / d;
        for (uint32_t m = mask_bits(felt & (d <= 1e-6f)); m; m &= m - 1) {
            /* Coincident agents part along a direction fixed by their ids. */
            const uint32_t q = (uint32_t)__builtin_ctz(m);
            ax[q] = wk->id.index1 < a->id[nb->j[k4 + q]].index1 ? -1.0f : 1.0f;
            ay[q] = 0.0f;
        }
        const v4f f = rep * exp4(x);
        if (wk->ordered) {
            /* The push of a walker that i goes before (by the same rule as the spacing in
             * pass 2) keeps only its forward part: at a narrow door, two walkers at the jambs
             * otherwise push each other into the walls for good, and the crowd behind presses
             * those in front across the door's mouth. The order comes from the cost of the
             * walkers' cells: on cells wider than a body and a half, walkers abreast share a
             * cell and their order falls to their ids, and one-sided pushes among them jam
             * streams where streets merge; there the rule holds only at a jamb. */
            const v4i before =
                goes_before_once(w, a, wk->cost, wk->my_cost, wk->id.index1, nb, &wk->known, k4);
            const v4f fwd = ax * ex + ay * ey;
            const v4f fpos = sel4(fwd > 0.0f, fwd, v4(0.0f));
            ax = sel4(before, fpos * ex, ax);
            ay = sel4(before, fpos * ey, ay);
        }
        if (yielded) {
            /* The push of a walker that yields the way to i keeps only its part across i's way:
             * it does not push i back. */
            const v4i yields = load4i(nb->yields + k4);
            const v4f fwd = ax * ex + ay * ey;
            ax = sel4(yields, ax - fwd * ex, ax);
            ay = sel4(yields, ay - fwd * ey, ay);
        }
        push_x += sel4(felt, ax * f, v4(0.0f));
        push_y += sel4(felt, ay * f, v4(0.0f));
    }
    /* Across the lanes, the least; of equals, the first in the list: as one scalar pass keeping
     * the first strictly slower would have found. */
    float bu = lane_u[0], bs = lane_side[0];
    int32_t at = lane_at[0];
    for (int q = 1; q < 4; q++) {
        if (lane_u[q] < bu || (lane_u[q] == bu && lane_at[q] < at)) {
            bu = lane_u[q];
            bs = lane_side[q];
            at = lane_at[q];
        }
    }
    *block_u = bu;
    *block_side = bs;
    return th_v2((push_x[0] + push_x[1]) + (push_x[2] + push_x[3]),
                 (push_y[0] + push_y[1]) + (push_y[2] + push_y[3]));
}

/* Keeping to one's side in counterflow (right; left when keep_right < 0): the sidestep toward
 * the right, in units of the goal direction, while the walker is in the left half of its walkway,
 * never into cells farther from the goal; there it also holds back its forward step (*dir). */
static inline __attribute__((always_inline)) float walker_keep_side(const ped_chunk *k,
                                                                    const ped_walker *wk,
                                                                    float aware, th_vec2 *dir) {
    float keep = wk->c->keep_right * aware;
    if (keep == 0.0f || !wk->cost) return keep;
    const th_world *w = k->w;
    const th_navmap *m = &w->nav.map;
    const th_vec2 e0 = wk->e0, p = wk->p;
    const float ri = wk->ri;
    const float sgn = keep > 0.0f ? 1.0f : -1.0f;
    const th_vec2 right = th_v2(sgn * e0.y, -sgn * e0.x);
    const th_vec2 q = th_v2_add(p, th_v2_scale(right, max_f(m->cell_size, ri)));
    float depth = 0.0f;
    if (!(q.x >= 0.0f && q.y >= 0.0f && q.x < k->W && q.y < k->H) ||
        wk->cost[th_navmap_cell_of(m, q, NULL, NULL)] > wk->my_cost ||
        (depth = left_half(w, p, e0, right)) <= 0.0f)
        keep = 0.0f;
    /* In the left half it also holds back: it does not walk on into the way of those coming the
     * other way but steps over first. A crowd waiting to enter a corridor thus queues on its own
     * side of the entrance and leaves the other side to those coming out. Not with a wall at its
     * right, where stepping over is no longer possible: it would wait there, pressed into the
     * wall, for good. */
    const bool walled_right = wk->have_wall && wk->wall_d < ri + TH_PED_SIDESTEP_WALL &&
                              th_v2_dot(right, wk->wall_away) < -0.5f;
    if (depth > 0.0f && !walled_right)
        *dir = th_v2_sub(*dir, th_v2_scale(e0, min_f(1.0f, TH_PED_HOLD * aware * depth)));
    return keep;
}

/* The sidestep `side` (toward the left of the goal direction, in its units), never into a wall
 * close by: the part toward it is dropped. At a door's jamb a walker stepping aside would press
 * into the wall for good; in a corridor too narrow to pass, one stepping aside to overtake or to
 * give way would bounce between the wall's push and its own step, or walk into the wall on the
 * spot. */
static inline __attribute__((always_inline)) th_vec2 walker_sidestep(const ped_chunk *k,
                                                                     const ped_walker *wk,
                                                                     float side) {
    const th_vec2 e0 = wk->e0;
    const float ri = wk->ri;
    th_vec2 step = th_v2_scale(th_v2(-e0.y, e0.x), side);
    if (wk->have_wall && wk->wall_d < ri + TH_PED_SIDESTEP_WALL) {
        const float into = th_v2_dot(step, wk->wall_away);
        if (into < 0.0f) step = th_v2_sub(step, th_v2_scale(wk->wall_away, into));
        /* Between two walls (a passage barely wider than the body) the nearer one is not the only
         * one: the wall where the step leads counts too. */
        const float len = th_v2_len(step);
        float dq;
        th_vec2 aq;
        if (len > 0.0f && th_nav_nearest_wall(
                              k->w, th_v2_add(wk->p, th_v2_scale(step, TH_PED_SIDESTEP_WALL / len)),
                              ri, &dq, &aq)) {
            const float into_q = th_v2_dot(step, aq);
            if (into_q < 0.0f) step = th_v2_sub(step, th_v2_scale(aq, into_q));
        }
    }
    return step;
}

/* The direction the walker wants (unnormalised: its length is how strongly): the goal less what
 * giving way takes of it, the pushes, and the sidesteps of giving way, keeping to its side and
 * overtaking, none of them into a wall close by. Works out and keeps the walker's counterflow
 * awareness and its share of neighbours coming the other way. */
static inline __attribute__((always_inline)) th_vec2 walker_direction(const ped_chunk *k,
                                                                      const ped_walker *wk,
                                                                      const ped_oncoming *o,
                                                                      th_vec2 push, float block_u,
                                                                      float block_side) {
    th_world *w = k->w;
    const th_crowd_rt *c = wk->c;
    const uint32_t i = wk->i;
    const th_vec2 e0 = wk->e0;
    const float v0 = wk->v0;
    /* Giving way: a walker in the way of one that has the way over it stops pressing toward it
     * and steps out of its way, away from the side it is on, the more the nearer it is. A crowd
     * waiting at a door thus opens a passage for those coming out, instead of holding its place
     * until pushed. */
    th_vec2 dir = th_v2_add(th_v2_scale(e0, 1.0f - o->give), push);
    const float give_step =
        o->give > 0.0f ? (o->give_side > 0.0f ? -TH_PED_GIVE : TH_PED_GIVE) * o->give : 0.0f;

    /* Counterflow awareness, 0 to 1: from the walkers coming the other way, passed back by
     * those ahead (each hand-on weaker), and remembered for a while. An aware walker keeps to
     * its side of the walkway, as people do in counterflow, so that lanes form. */
    const float ta = c->anticipation;
    const float own = min_f(1.0f, (o->threat[0] + o->threat[1]) + (o->threat[2] + o->threat[3]));
    const float passed =
        TH_PED_RELAY * max_f(max_f(o->relay[0], o->relay[1]), max_f(o->relay[2], o->relay[3]));
    float aware = ta > 0.0f ? max_f(max_f(own, passed), k->a->aware[i] * c->aware_decay) : 0.0f;
    if (aware < TH_PED_AWARE_MIN) aware = 0.0f;
    w->aware_next[i] = aware;
    w->against_next[i] = (float)o->n_against / (float)(o->n_against + o->n_along + 1u);
    /* Sidesteps (stepping aside for those coming the other way, giving way, keeping right),
     * toward the left of e0 in units of the goal direction. */
    float side = (o->lat[0] + o->lat[1]) + (o->lat[2] + o->lat[3]) + give_step;
    side -= walker_keep_side(k, wk, aware, &dir);
    /* Overtaking: held back by someone ahead, step aside, away from the side they are on (to
     * the right of the goal direction when dead ahead), the more the slower it makes us walk.
     * In a dense crowd every way is blocked and the pushes cancel out. In counterflow nobody
     * overtakes on the side of those coming the other way: a walker aware of them steps out of
     * its lane toward them the less, the more aware it is. */
    if (block_u < v0 && v0 > 0.0f) {
        float kk = TH_PED_OVERTAKE * (1.0f - max_f(block_u, 0.0f) / v0);
        if (block_side < 0.0f) kk = -kk; /* > 0: toward the right of e0 */
        if (kk * c->keep_right < 0.0f) kk *= 1.0f - aware;
        side -= kk;
    }
    if (side != 0.0f) dir = th_v2_add(dir, walker_sidestep(k, wk, side));
    return dir;
}

/* The heading: `dir` turned within the walker's rate (kept for the next step), then bent at once
 * by the push of the nearest wall (a body meeting a wall does not wait to turn). Returns the
 * share of the free speed that what drives the walker allows (*e: the heading). */
static inline __attribute__((always_inline)) float walker_heading(const ped_chunk *k,
                                                                  const ped_walker *wk, th_vec2 dir,
                                                                  th_vec2 *e_out) {
    th_world *w = k->w;
    const th_crowd_rt *c = wk->c;
    const float ri = wk->ri;
    float will = th_v2_len(dir);
    const th_vec2 chosen =
        turn(th_v2(k->a->ex[wk->i], k->a->ey[wk->i]), th_v2_norm(dir), th_v2_len(wk->v), k->dt);
    w->ex_next[wk->i] = chosen.x;
    w->ey_next[wk->i] = chosen.y;
    th_vec2 e = chosen;
    if (wk->have_wall) {
        const float gap = wk->wall_d - ri;
        const float x = gap > -ri ? -gap * c->inv_wall_rep_range : ri * c->inv_wall_rep_range;
        /* Against the direction with the weight it was chosen with (the goal's and the
         * neighbours' pushes together), as if added before turning. */
        if (x > -7.0f) {
            /* The wall pushes back at most what drives the walker into it, as a wall does: it
             * stops the walker and lets it slide along, and never throws it off (which, against
             * the neighbours pressing it there, would make it bounce from one step to the next). */
            const th_vec2 ed = th_v2_scale(e, th_v2_len(dir));
            const float f = min_f(c->wall_rep * expf(min_f(x, 20.0f)),
                                  max_f(0.0f, -th_v2_dot(ed, wk->wall_away)));
            const th_vec2 ew = th_v2_add(ed, th_v2_scale(wk->wall_away, f));
            e = th_v2_norm(ew);
            will = th_v2_len(ew);
        }
    }
    *e_out = e;
    /* Full speed while what drives the walker (its goal, the pushes, the sidesteps, the wall)
     * adds up to at least TH_PED_WANT_FULL of a plain goal, and slower the less: where those
     * terms all but cancel (held back in a queue, pressed between a neighbour and a wall), what
     * is left of them is a direction of no weight, which walked at full speed would flip from
     * one step to the next. Without a goal, the pushes alone set it. */
    return wk->e0.x == 0.0f && wk->e0.y == 0.0f
               ? th_clampf(th_v2_len(dir), 0.0f, 1.0f)
               : th_clampf(will * (1.0f / TH_PED_WANT_FULL), 0.0f, 1.0f);
}

/* Pass 2: the speed the spacing ahead along e allows, at most u, four neighbours at a time (a
 * minimum: the same in any order), by the time-gap law of gap_speed4. Fleeing walkers yield only
 * to those nearer the shelter than they are (by the river map's cost of their cells, then by
 * id): where routes converge, at a door, two walkers each in the other's way would otherwise
 * both stop for good, an arch that no push undoes. Walkers coming the other way who yield the
 * way to this one do not hold it back. */
static inline __attribute__((always_inline)) float walker_spacing(const ped_chunk *k,
                                                                  ped_walker *wk, ped_near *nb,
                                                                  bool yielded, th_vec2 e,
                                                                  float u) {
    if (e.x == 0.0f && e.y == 0.0f) return 0.0f;
    const th_world *w = k->w;
    const th_crowd_rt *c = wk->c;
    const v4f fx = v4(e.x), fy = v4(e.y), inv_tg = v4(c->inv_time_gap);
    v4f umin = v4(u);
    for (uint32_t k4 = 0; k4 < nb->n; k4 += 4) {
        const v4f dx = load4(nb->dx + k4), dy = load4(nb->dy + k4);
        const v4f l = load4(nb->l + k4);
        v4i ahead = (k_lane < (int32_t)(nb->n - k4)) & (fx * dx + fy * dy > 0.0f) &
                    (abs4(fx * dy - fy * dx) < l);
        if (wk->cost && mask_bits(ahead)) {
            ahead &= ~goes_before_once(w, k->a, wk->cost, wk->my_cost, wk->id.index1, nb,
                                       &wk->known, k4);
        }
        if (yielded) ahead &= ~load4i(nb->yields + k4);
        if (!mask_bits(ahead)) continue;
        const v4f uj = gap_speed4(fx * dx + fy * dy, fx * dy - fy * dx, l, inv_tg);
        umin = sel4(ahead & (uj < umin), uj, umin);
    }
    u = min_f(min_f(umin[0], umin[1]), min_f(umin[2], umin[3]));
    /* Those who just left by an exit ahead still walk on, for the spacing. */
    if (th_leavers_near(w, wk->cell))
        u = th_leavers_speed(w, wk->p, e, wk->ri, wk->level, c->inv_time_gap, c->ped_reach, u);
    return u;
}

void th_ped_steer(const th_step_ctx *x, uint32_t begin, uint32_t end, th_chunk_stats *stats) {
    th_world *w = x->w; /* for the grid, the crowds, the terrain and the goals */
    const ped_chunk k = {
        .w = w,
        .a = x->a,
        .g = &w->grid,
        .W = x->width,
        .H = x->height,
        .dt = x->dt,
        .inv_dt = 1.0f / x->dt,
        .wrap = x->wrap,
        .terrain = x->terrain,
        .levels = w->nav.present && w->nav.level_count,
        .stairs = w->nav.present && w->nav.stair_count,
    };
    const th_agents *a = k.a;
    uint64_t neighbors_total = 0, candidates_total = 0;
    ped_near nb;

    for (uint32_t i = begin; i < end; i++) {
        const th_crowd_rt *c = &w->crowd_rt[a->crowd[i]];
        if (!c->ped) continue;
        if (c->lift && w->level[i] == TH_LEVEL_RIDING) {
            walker_riding(&k, i);
            continue;
        }
        /* Each stage fills in its own fields; a zeroed record per walker would cost a pass. */
        ped_walker wk;
        wk.i = i;
        wk.c = c;
        wk.id = a->id[i];
        wk.p = th_v2(a->px[i], a->py[i]);
        wk.v = th_v2(a->vx[i], a->vy[i]);
        wk.ri = th_body_radius(w, a, i);
        walker_goal(&k, &wk);
        walker_wall(&k, &wk);
        walker_neighbours(&k, &wk, &nb);
        walker_contacts(&k, &wk, &nb);

        ped_oncoming o = {.lat = v4(0.0f), .threat = v4(0.0f), .relay = v4(0.0f)};
        if (wk.counter != 0 || a->aware[i] > 0.0f) walker_oncoming(&k, &wk, &nb, &o);
        float block_u, block_side;
        const th_vec2 push = walker_pushes(&k, &wk, &nb, o.yielded, &block_u, &block_side);
        const th_vec2 dir = walker_direction(&k, &wk, &o, push, block_u, block_side);
        th_vec2 e;
        const float want = walker_heading(&k, &wk, dir, &e);
        float u = walker_spacing(&k, &wk, &nb, o.yielded, e, wk.v0 * want);
        if (u < 0.0f) u = 0.0f;

        /* Speeding up follows the driving term of the social force model, an acceleration
         * (v0 - speed) / tau toward the free speed, up to what the spacing allows; slowing down
         * is immediate. */
        const float speed = th_v2_len(wk.v);
        if (u > speed) u = min_f(u, speed + (wk.v0 * want - speed) * c->relax);
        w->hx_next[i] = wk.e0.x; /* the goal direction, as neighbours will read it */
        w->hy_next[i] = wk.e0.y;
        const th_vec2 vn = th_v2_scale(e, u);
        w->ax[i] = (vn.x - wk.v.x) * k.inv_dt;
        w->ay[i] = (vn.y - wk.v.y) * k.inv_dt;
        w->flags[i] = wk.stranded ? TH_AGENT_STRANDED : 0u;
        stats->stranded += wk.stranded;
        w->neighbors[i] = (uint16_t)(wk.seen > UINT16_MAX ? UINT16_MAX : wk.seen);
        neighbors_total += wk.seen;
        candidates_total += wk.n_cand - 1;
    }
    stats->neighbors += neighbors_total;
    stats->candidates += candidates_total;
}
