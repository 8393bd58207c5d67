/* Reynolds boids over the uniform grid.
 *
 * For agent i, with position p_i, velocity v_i and crowd c:
 *   seen(j)     j != i, 0 < |d| where d = p_j - p_i (minimum image on a torus), and j inside
 *               i's view cone: angle(v_i, d) <= fov / 2 (a still agent sees all around),
 *               evaluated without a root as documented in visit() below;
 *   separation  over seen j of any crowd with |d| < separation_radius: sum of -d / |d|^2
 *               (a push that grows as 1/distance);
 *   alignment   over seen j of i's type with |d| < neighbor_radius: mean of v_j (a crowd's
 *               type is its own unless set, so by default crowds flock apart);
 *   cohesion    over the same j: mean of d (the offset to their centre);
 *   leader test for crowds with a target: same-type j with 0 < |d| < lead_radius inside the
 *               front view, v_i.d >= 0 and (v_i.d)^2 >= cos^2(lead_fov / 2) |v_i|^2 |d|^2
 *               (view cone regardless of fov); none => i leads this step. An agent at rest
 *               (|v_i| = 0) looks, in place of v_i, the way it would pursue its target
 *               (th_pursuit_dir), so the front of a standing crowd leads it off.
 * Each term becomes a Reynolds steering force: desired = unit(term) * max_speed,
 * steer = desired - v_i, clamped to max_force; the acceleration is the weighted sum of the
 * three (a leader pursues its target instead of aligning and cohering; see below), a flight
 * term away from predators (sum of -d / |d|^2 over predator types within flee_radius, seen all
 * around), plus the terrain terms (flow to shelter, wall push; see th_goal_steer in goal.c),
 * clamped to max_force again. Terms with nobody to act on contribute nothing.
 *
 * Agent i walks the (2k+1) x (2k+1) block of grid cells around its own, k = its crowd's
 * `block` (the cells its neighbour, separation and leader radii span; grid_setup.c sizes cells by
 * the smallest boids reach / 2, so k is 2 for the crowd with the smallest reach unless
 * pedestrians' or bodies' 3x3 blocks need larger cells). Cells of one
 * row are consecutive in storage, so each row of the block is one contiguous index range (two
 * on a torus when the block straddles the seam). Predators are looked up apart, in the
 * predator grid (th_boids_prepare below): a flee radius is long, and walking the main grid
 * that far would inspect every prey in reach to find a few predators. */
#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include "sim/behave/behavior.h"
#include "sim/behave/boids.h"
#include "sim/behave/goal.h"
#include "sim/behave/squad.h"
#include "sim/core/step.h"
#include "sim/core/world.h"
#include "sim/dist/dist_pred.h"

/* This file is compiled three times on x86-64: as itself, for the baseline (or any other
 * target), and through sim/behave/boids_avx2.c and sim/behave/boids_avx512.c with -march=x86-64-v3
 * and -v4 for the whole translation unit. Whole-file compilation, not per-function target clones,
 * is what keeps each copy in its instruction set all the way down: every static helper
 * (block_spans, visit, the steering maths) is compiled for it, so the per-agent loop never
 * calls SSE code with dirty upper vector halves (target_clones compiled the non-inlined
 * helpers for the baseline only, which made the AVX2 clone 2x slower on Intel server cores).
 * The -v4 copy keeps 8 lanes but compares into mask registers: 12% faster than -v3 where
 * AVX-512 exists. th_boids_steer picks a copy per chunk. */
#ifndef TH_BOIDS_KERNEL
#define TH_BOIDS_KERNEL     th_boids_steer_base
#define TH_BOIDS_DISPATCHER 1
#endif

/* Reynolds steering toward `dir` at full speed, from velocity v, clamped to max_force. */
static inline th_vec2 steer_toward(th_vec2 dir, th_vec2 v, float max_speed, float max_force) {
    th_vec2 desired = th_v2_scale(th_v2_norm(dir), max_speed);
    return th_v2_clamp_len(th_v2_sub(desired, v), max_force);
}

/* The neighbour loop runs 8 candidates at a time on GCC/Clang vector extensions, which lower
 * to AVX, SSE or NEON as the target allows (and to scalar code elsewhere) with identical
 * results: every lane does the same IEEE operations in the same order, and the 8 lane sums are
 * combined in one fixed order. Branch-free lanes replace the scalar loop's unpredictable
 * "is it in range" branch, which cost a misprediction on about a third of all candidates. */
#if defined(__GNUC__)
/* GCC and Clang note that passing 32-byte vectors changes the ABI when AVX is off; these
 * helpers are all static and inlined, so no ABI boundary is crossed. */
#pragma GCC diagnostic ignored "-Wpsabi"
#endif
typedef float v8f __attribute__((vector_size(32)));
typedef int32_t v8i __attribute__((vector_size(32)));
typedef uint16_t v8u16 __attribute__((vector_size(16)));

/* Forced inline: each target clone of th_boids_steer must get its own copy of the vector code
 * (an out-of-line helper would be compiled once, for the baseline only). */
#define TH_INLINE static inline __attribute__((always_inline))

TH_INLINE v8f sel(v8i m, v8f a, v8f b) { return (v8f)(((v8i)a & m) | ((v8i)b & ~m)); }

TH_INLINE v8f load8(const float *p) {
    v8f v;
    memcpy(&v, p, sizeof v);
    return v;
}

TH_INLINE float hsum(v8f v) {
    return ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
}

TH_INLINE int32_t hsum_i(v8i v) {
    return ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
}

/* Accumulated sums of one agent's neighbourhood. */
typedef struct sums {
    v8f sep_x, sep_y, ali_x, ali_y, coh_x, coh_y;
    v8i n_sep, n_flock;
} sums;

/* Sums of the leader test, apart so that plain flocking keeps its accumulators in
 * registers. */
typedef struct extra_sums {
    v8i n_front;
} extra_sums;

/* Per-agent constants of the neighbour loop. */
typedef struct probe {
    float x, y, vx, vy;
    int32_t type;
    float sense_r2, separation_r2, neighbor_r2;
    bool lead; /* count same-type agents in the front view (leader test) */
    float lead_r2;
    float lead_k;       /* cos(half front view)^2 * |v|^2 */
    uint32_t flee_mask; /* predator types; 0 = none */
    float flee_r2;
    float evade;   /* horizon, seconds; 0 = flee where predators are */
    v8i all_round; /* all lanes set: the view cone is skipped */
    v8i narrow;    /* all lanes set: view angle <= 180 degrees (cos(half) >= 0) */
    float cone_k;  /* cos(half)^2 * |v|^2 */
} probe;

/* Offsets d = p_j - p_i of the 8 candidates from j on; on a torus the nearest image. */
TH_INLINE void offsets(const th_agents *a, uint32_t j, const probe *p, bool wrap, float W, float H,
                       v8f *dx, v8f *dy) {
    v8f x = load8(a->px + j) - p->x, y = load8(a->py + j) - p->y;
    if (wrap) {
        const float hw = 0.5f * W, hh = 0.5f * H;
        x = sel(x > hw, x - W, sel(x < -hw, x + W, x));
        y = sel(y > hh, y - H, sel(y < -hh, y + H, y));
    }
    *dx = x;
    *dy = y;
}

/* Visit candidates [begin, end). Arrays are padded by TH_SIMD_PAD so a block may read past
 * `end`; lanes past it are masked off. */
TH_INLINE void visit(const th_agents *a, uint32_t begin, uint32_t end, const probe *p, bool wrap,
                     float W, float H, sums *s) {
    const v8i lane = {0, 1, 2, 3, 4, 5, 6, 7};
    for (uint32_t j = begin; j < end; j += 8) {
        const v8i live = lane < (int32_t)(end - j);
        v8f dx, dy;
        offsets(a, j, p, wrap, W, H, &dx, &dy);
        const v8f d2 = dx * dx + dy * dy;
        v8i in = live & (d2 < p->sense_r2) & (d2 > 0.0f);
        const v8f vx = load8(a->vx + j), vy = load8(a->vy + j);
        /* View cone, angle(v, d) <= half:  v.d >= cos(half) |v| |d|, squared to avoid a root:
         * narrow cone (cos >= 0): v.d >= 0 and (v.d)^2 >= k |d|^2;
         * wide cone (cos < 0):    v.d >= 0 or  (v.d)^2 <= k |d|^2. */
        const v8f dot = p->vx * dx + p->vy * dy;
        const v8f dd = dot * dot, kd2 = p->cone_k * d2;
        const v8i ahead = dot >= 0.0f;
        const v8i seen =
            p->all_round | (p->narrow & ahead & (dd >= kd2)) | (~p->narrow & (ahead | (dd <= kd2)));
        in &= seen;
        v8u16 t16;
        memcpy(&t16, a->type + j, sizeof t16);
        const v8i same = __builtin_convertvector(t16, v8i) == p->type;
        const v8i sep = in & (d2 < p->separation_r2);
        const v8i flock = in & same & (d2 < p->neighbor_r2);
        const v8f inv = 1.0f / sel(sep, d2, (v8f){1, 1, 1, 1, 1, 1, 1, 1});
        const v8f zero = {0};
        s->sep_x -= sel(sep, dx * inv, zero);
        s->sep_y -= sel(sep, dy * inv, zero);
        s->n_sep -= sep;
        s->ali_x += sel(flock, vx, zero);
        s->ali_y += sel(flock, vy, zero);
        s->coh_x += sel(flock, dx, zero);
        s->coh_y += sel(flock, dy, zero);
        s->n_flock -= flock;
    }
}

/* Both copies of this file do the same IEEE operations per lane (no FMA: -ffp-contract=off;
 * lane sums in one fixed order), so they give bit-identical results (tested by forcing each).
 * Without AVX, GCC splits 8-lane arithmetic into SSE pairs but 8-lane comparisons into scalar
 * ones: the baseline copy is the slow one, for pre-AVX2 CPUs only. */

/* The leader test, for the crowds that have a target: a second pass over the same cells, out
 * of line. Folding it into visit(), or even inlining this pass beside it, made GCC compile the
 * plain loop worse: 11% more instructions for plain flocking with the tests never run
 * (callgrind, 5,000 boids). */
__attribute__((noinline)) static void visit_extras(const th_agents *a, uint32_t begin, uint32_t end,
                                                   const probe *p, bool wrap, float W, float H,
                                                   extra_sums *x) {
    const v8i lane = {0, 1, 2, 3, 4, 5, 6, 7};
    for (uint32_t j = begin; j < end; j += 8) {
        const v8i live = lane < (int32_t)(end - j);
        v8f dx, dy;
        offsets(a, j, p, wrap, W, H, &dx, &dy);
        const v8f d2 = dx * dx + dy * dy;
        const v8f dot = p->vx * dx + p->vy * dy;
        const v8f dd = dot * dot;
        const v8i ahead = dot >= 0.0f;
        v8u16 t16;
        memcpy(&t16, a->type + j, sizeof t16);
        const v8i type = __builtin_convertvector(t16, v8i);
        const v8i same = type == p->type;
        /* The narrow front view is at most 180 degrees wide: ahead, and inside the cone. */
        const v8i front =
            live & same & (d2 > 0.0f) & (d2 < p->lead_r2) & ahead & (dd >= p->lead_k * d2);
        x->n_front -= front;
    }
}

/* The predator term: the predators of i's flee types within flee_r, from the 3x3 block of the
 * predator grid around i (its cells are at least the largest flee radius). Predators are few,
 * so this is a scalar loop over their own packed arrays in that grid's order; the sums run in
 * that fixed order, the same in every instruction-set copy. Returns the predators inspected. */
static uint32_t visit_predators(const th_world *w, const probe *p, bool wrap, float W, float H,
                                float *fx, float *fy, uint32_t *n_flee) {
    const th_grid *g = &w->pred_grid;
    th_grid_span spans[TH_GRID_MAX_SPANS];
    const uint32_t ns = th_grid_block(g, th_grid_cx(g, p->x), th_grid_cy(g, p->y), 1, wrap, spans);
    uint32_t n_cand = 0;
    float sx = 0.0f, sy = 0.0f;
    uint32_t n = 0;
    for (uint32_t k = 0; k < ns; k++) {
        n_cand += spans[k].end - spans[k].begin;
        for (uint32_t j = spans[k].begin; j < spans[k].end; j++) {
            const uint32_t t = w->pred_stype[j];
            if (t >= TH_MAX_TYPES || !((p->flee_mask >> t) & 1u)) continue;
            float dx = w->pred_sx[j] - p->x, dy = w->pred_sy[j] - p->y;
            if (wrap) {
                dx = dx > 0.5f * W ? dx - W : (dx < -0.5f * W ? dx + W : dx);
                dy = dy > 0.5f * H ? dy - H : (dy < -0.5f * H ? dy + H : dy);
            }
            float d2 = dx * dx + dy * dy;
            if (!(d2 > 0.0f && d2 < p->flee_r2)) continue;
            if (p->evade > 0.0f) {
                /* Evade: where the predator will be once it has covered the distance at its
                 * speed, looking no farther ahead than the horizon; where it is when standing,
                 * or when that point is the prey's own. */
                const float vx = w->pred_svx[j], vy = w->pred_svy[j];
                const float s2 = vx * vx + vy * vy;
                if (s2 > 1e-12f) {
                    const float t = fminf(sqrtf(d2 / s2), p->evade);
                    const float ex = dx + vx * t, ey = dy + vy * t;
                    const float e2 = ex * ex + ey * ey;
                    if (e2 > 1e-6f) {
                        dx = ex;
                        dy = ey;
                        d2 = e2;
                    }
                }
            }
            sx -= dx * (1.0f / d2);
            sy -= dy * (1.0f / d2);
            n++;
        }
    }
    *fx = sx;
    *fy = sy;
    *n_flee = n;
    return n_cand;
}

/* ---- the step of one agent, stage by stage ------------------------------------------------ */

/* What a stage needs of the world, the same for every agent of a chunk. */
typedef struct boids_chunk {
    th_world *w;
    const th_agents *a;
    const th_grid *g;
    float W, H;
    bool wrap, terrain;
    uint32_t pred_mask; /* the types in the predator index */
} boids_chunk;

/* One agent as the stages work it out, in the order they fill it in. The probe, the block's
 * spans and the neighbour sums, which the neighbour loop reads, are locals of the kernel's loop
 * beside it. */
typedef struct boid {
    uint32_t i;
    const th_crowd_rt *c;
    /* boid_probe */
    float speed2; /* |v|^2 */
    /* boid_neighbours, boid_predators */
    uint32_t n_cand; /* candidates looked at, the agent itself not counted */
    /* boid_steering */
    uint32_t n_flock;
    th_agent_id id;
    const th_pref_velocity *pref; /* the host's velocity, NULL when it set none */
    bool leader;
    /* boid_goal */
    bool stranded;
} boid;

/* The per-agent constants of the neighbour loop, from the agent and its crowd. */
TH_INLINE probe boid_probe(const boids_chunk *k, boid *b) {
    const th_agents *a = k->a;
    const th_crowd_rt *c = b->c;
    const uint32_t i = b->i;
    const float speed2 = a->vx[i] * a->vx[i] + a->vy[i] * a->vy[i];
    b->speed2 = speed2;
    return (probe){
        .x = a->px[i],
        .y = a->py[i],
        .vx = a->vx[i],
        .vy = a->vy[i],
        .type = a->type[i],
        .sense_r2 = c->sense_r2,
        .separation_r2 = c->separation_r2,
        .neighbor_r2 = c->neighbor_r2,
        .lead = c->lead,
        .lead_r2 = c->lead_r2,
        .lead_k = c->lead_cos2 * speed2,
        .flee_mask = c->flee_mask,
        .flee_r2 = c->flee_r2,
        .evade = c->evade,
        .all_round = (v8i){0} - (int32_t)(c->omni || speed2 <= 1e-12f),
        .narrow = (v8i){0} - (int32_t)(c->cos_half_fov >= 0.0f),
        .cone_k = c->cos_half_fov * c->cos_half_fov * speed2,
    };
}

/* The separation, alignment and cohesion sums over the agent's block of grid cells, and the
 * candidates looked at. Returns the number of spans of the block (the leader test walks it
 * again). */
TH_INLINE uint32_t boid_neighbours(const boids_chunk *k, boid *b, const probe *p,
                                   th_grid_span *spans, sums *s) {
    const th_grid *g = k->g;
    const bool wrap = k->wrap;
    const uint32_t cell = k->w->cell[b->i];
    const uint32_t ns = th_grid_block(g, (int32_t)(cell % (uint32_t)g->nx),
                                      (int32_t)(cell / (uint32_t)g->nx), b->c->block, wrap, spans);
    uint32_t n_cand = 0;
    for (uint32_t q = 0; q < ns; q++) {
        n_cand += spans[q].end - spans[q].begin;
        visit(k->a, spans[q].begin, spans[q].end, p, wrap, k->W, k->H, s);
    }
    b->n_cand = n_cand - 1; /* i itself */
    return ns;
}

/* Separation: away from those too close, of any type. Worked out right after the sums, before
 * the leader test and the predators, so that the separation sums are dead from there on: added
 * in boid_steering instead, GCC allocated the neighbour loop's registers worse (1% more
 * instructions in a plain flock, callgrind). */
TH_INLINE th_vec2 boid_separation(const boid *b, const probe *p, const sums *s) {
    const th_crowd_rt *c = b->c;
    const uint32_t n_sep = (uint32_t)hsum_i(s->n_sep);
    th_vec2 acc = th_v2(0.0f, 0.0f);
    if (n_sep > 0) {
        th_vec2 f = steer_toward(th_v2(hsum(s->sep_x), hsum(s->sep_y)), th_v2(p->vx, p->vy),
                                 c->max_speed, c->max_force);
        acc = th_v2_add(acc, th_v2_scale(f, c->w_sep));
    }
    return acc;
}

/* The leader test: the same-type agents in the front view, over the same block. Called after
 * boid_neighbours, not from its loop: a call there would spill the accumulators (every vector
 * register is caller-saved) on every span. */
TH_INLINE int32_t boid_front(const boids_chunk *k, const boid *b, const probe *p,
                             const th_grid_span *spans, uint32_t ns) {
    probe q = *p; /* a copy escapes to the call, not the probe the loop reads */
    if (b->speed2 <= 1e-12f) {
        /* At rest the velocity names no front, and the cone test would take everyone around
         * as ahead: a crowd spawned standing would elect nobody. The front is then the way
         * the agent would pursue its target, so a standing group elects its front rank.
         * Without one (target absent or reached) nobody is ahead only when nobody is near, as
         * before. */
        const th_vec2 f = th_pursuit_dir(k->w, b->c, th_v2(p->x, p->y));
        const float f2 = f.x * f.x + f.y * f.y;
        if (f2 > 0.0f) {
            q.vx = f.x;
            q.vy = f.y;
            q.lead_k = b->c->lead_cos2 * f2;
        }
    }
    extra_sums x = {0};
    for (uint32_t j = 0; j < ns; j++) {
        visit_extras(k->a, spans[j].begin, spans[j].end, &q, k->wrap, k->W, k->H, &x);
    }
    return hsum_i(x.n_front);
}

/* The predators to flee (visit_predators): the sum of their pushes into *fx, *fy; returns how
 * many. Adds the predators looked at to the candidates. */
TH_INLINE uint32_t boid_predators(const boids_chunk *k, boid *b, const probe *p, float *fx,
                                  float *fy) {
    const probe q = *p;
    uint32_t n_flee;
    b->n_cand += visit_predators(k->w, &q, k->wrap, k->W, k->H, fx, fy, &n_flee);
    /* i itself, when its type is in the predator index. */
    if (p->type < TH_MAX_TYPES && ((k->pred_mask >> p->type) & 1u)) b->n_cand -= 1;
    return n_flee;
}

/* Alignment and cohesion, added to acc: toward the mean velocity of the n_flock flockmates
 * and toward their centre. */
TH_INLINE th_vec2 boid_flock(const th_crowd_rt *c, const sums *s, uint32_t n_flock, th_vec2 v,
                             th_vec2 acc) {
    const float inv_n = 1.0f / (float)n_flock;
    th_vec2 fa = steer_toward(th_v2(hsum(s->ali_x) * inv_n, hsum(s->ali_y) * inv_n), v,
                              c->max_speed, c->max_force);
    th_vec2 fc = steer_toward(th_v2(hsum(s->coh_x) * inv_n, hsum(s->coh_y) * inv_n), v,
                              c->max_speed, c->max_force);
    acc = th_v2_add(acc, th_v2_scale(fa, c->w_ali));
    return th_v2_add(acc, th_v2_scale(fc, c->w_coh));
}

/* The steering added to separation (acc): the first that applies of the host's velocity, the
 * squad slot, the leader's pursuit and alignment with cohesion; then flight from the n_flee
 * predators, whose pushes sum to flee. */
TH_INLINE th_vec2 boid_steering(const boids_chunk *k, boid *b, const probe *p, const sums *s,
                                th_vec2 acc, int32_t n_front, th_vec2 flee, uint32_t n_flee) {
    const th_world *w = k->w;
    const th_crowd_rt *c = b->c;
    b->n_flock = (uint32_t)hsum_i(s->n_flock);
    const th_vec2 v = th_v2(p->vx, p->vy), pos = th_v2(p->x, p->y);
    /* A leader: its crowd has a target and nobody of its type is in its front view. It
     * pursues the target instead of aligning and cohering; the others follow the flock. */
    const th_agent_id id = k->a->id[b->i];
    b->id = id;
    /* The host's velocity (th_world_set_agent_preferred_velocity) steers it in place of
     * flocking, leading, its squad slot, fleeing and its goal: toward it as toward a goal. */
    const th_pref_velocity *pref = th_pref_of(w, th_id_slot(id));
    b->pref = pref;
    b->leader = !pref && c->lead && n_front == 0;
    if (pref) {
        th_vec2 f = th_v2_clamp_len(th_v2_sub(pref->v, v), c->max_force);
        acc = th_v2_add(acc, th_v2_scale(f, c->w_flow));
    } else if (w->squad_count && w->squad_of_id[th_id_slot(id)]) {
        /* A squad member: pulled to its slot (or along its way back) instead of flocking. */
        acc = th_v2_add(acc, th_squad_steer(w, id, c, pos, v));
    } else if (b->leader) {
        acc = th_v2_add(acc, th_pursuit_steer(w, c, pos, v));
    } else if (b->n_flock > 0) {
        acc = boid_flock(c, s, b->n_flock, v, acc);
    }
    if (n_flee > 0 && !pref) {
        th_vec2 f = steer_toward(flee, v, c->max_speed, c->max_force);
        acc = th_v2_add(acc, th_v2_scale(f, c->w_flee));
    }
    return acc;
}

/* The terrain's and the goal's terms added to acc (th_goal_steer: flow to the goal, the walls'
 * push); under the host's velocity, the walls' push alone. */
TH_INLINE th_vec2 boid_goal(const boids_chunk *k, boid *b, const probe *p, th_vec2 acc,
                            th_chunk_stats *stats) {
    const th_crowd_rt *c = b->c;
    const th_vec2 pos = th_v2(p->x, p->y);
    bool stranded = false;
    if (b->pref) {
        th_vec2 push;
        if (k->terrain && th_goal_wall_push(k->w, c, pos, &push)) acc = th_v2_add(acc, push);
    } else if (k->terrain || c->goal != TH_GOAL_NONE) {
        acc = th_v2_add(acc, th_goal_steer(k->w, b->id, c, pos, th_v2(p->vx, p->vy), &stranded));
        stats->stranded += stranded;
    }
    b->stranded = stranded;
    return acc;
}

/* The agent's results: its flags, its acceleration (at most max_force) and its flockmates. */
TH_INLINE void boid_write(const boids_chunk *k, const boid *b, th_vec2 acc) {
    th_world *w = k->w;
    const uint32_t i = b->i;
    w->flags[i] =
        (uint8_t)((b->leader ? TH_AGENT_LEADER : 0u) | (b->stranded ? TH_AGENT_STRANDED : 0u));
    acc = th_v2_clamp_len(acc, b->c->max_force);
    w->ax[i] = acc.x;
    w->ay[i] = acc.y;
    w->neighbors[i] = (uint16_t)(b->n_flock > UINT16_MAX ? UINT16_MAX : b->n_flock);
}

void TH_BOIDS_KERNEL(const th_step_ctx *x, uint32_t begin, uint32_t end, th_chunk_stats *stats) {
    th_world *w = x->w; /* for the grid, the crowds, and the goal, squad and pursuit terms */
    const boids_chunk k = {
        .w = w,
        .a = x->a,
        .g = &w->grid,
        .W = x->width,
        .H = x->height,
        .wrap = x->wrap,
        .terrain = x->terrain,
        .pred_mask = w->pred_mask,
    };
    uint64_t neighbors_total = 0, candidates_total = 0;

    for (uint32_t i = begin; i < end; i++) {
        const th_crowd_rt *c = &w->crowd_rt[k.a->crowd[i]];
        if (c->ped) continue; /* sim/behave/ped.c */
        /* Each stage fills in its own fields of b. */
        boid b;
        b.i = i;
        b.c = c;
        const probe p = boid_probe(&k, &b);
        th_grid_span spans[TH_GRID_MAX_SPANS];
        sums s = {0};
        const uint32_t ns = boid_neighbours(&k, &b, &p, spans, &s);
        th_vec2 acc = boid_separation(&b, &p, &s);
        const int32_t n_front = p.lead ? boid_front(&k, &b, &p, spans, ns) : 0;
        float flee_x = 0.0f, flee_y = 0.0f;
        const uint32_t n_flee = p.flee_mask ? boid_predators(&k, &b, &p, &flee_x, &flee_y) : 0;
        acc = boid_steering(&k, &b, &p, &s, acc, n_front, th_v2(flee_x, flee_y), n_flee);
        acc = boid_goal(&k, &b, &p, acc, stats);
        boid_write(&k, &b, acc);
        neighbors_total += b.n_flock;
        candidates_total += b.n_cand;
    }
    stats->neighbors += neighbors_total;
    stats->candidates += candidates_total;
}

#ifdef TH_BOIDS_DISPATCHER
/* 0: automatic; otherwise a th_boids_isa forced by th_boids_force_isa. Relaxed: it is set
 * between steps, and the pool's barrier orders it before any worker reads it. */
static atomic_int g_forced_isa;
/* The best copy this CPU runs, plus one (0: not looked up yet). Every thread that looks it up
 * finds the same value, so a race on the first look is harmless. */
static atomic_int g_best_isa;

static th_boids_isa best_isa(void) {
    int best = atomic_load_explicit(&g_best_isa, memory_order_relaxed);
    if (best) return (th_boids_isa)(best - 1);
    th_boids_isa isa = TH_BOIDS_ISA_BASELINE;
#if defined(TH_BOIDS_SIMD_KERNELS)
    /* The copies are built for x86-64-v3 and -v4; these are the features GCC may use there
     * (LZCNT, MOVBE and F16C come with every CPU that has the rest). */
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
        __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2")) {
        isa = TH_BOIDS_ISA_AVX2;
        if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
            __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
            __builtin_cpu_supports("avx512cd")) {
            isa = TH_BOIDS_ISA_AVX512;
        }
    }
#endif
    atomic_store_explicit(&g_best_isa, (int)isa + 1, memory_order_relaxed);
    return isa;
}

bool th_boids_force_isa(th_boids_isa isa) {
    if (isa < TH_BOIDS_ISA_AUTO || isa > TH_BOIDS_ISA_AVX512 || isa > best_isa()) return false;
    atomic_store_explicit(&g_forced_isa, (int)isa, memory_order_relaxed);
    return true;
}

th_boids_isa th_boids_active_isa(void) {
    th_boids_isa isa = (th_boids_isa)atomic_load_explicit(&g_forced_isa, memory_order_relaxed);
    return isa != TH_BOIDS_ISA_AUTO ? isa : best_isa();
}

const char *th_boids_isa_name(th_boids_isa isa) {
    switch (isa) {
    case TH_BOIDS_ISA_AUTO: return "auto";
    case TH_BOIDS_ISA_BASELINE: return "baseline";
    case TH_BOIDS_ISA_AVX2: return "x86-64-v3";
    case TH_BOIDS_ISA_AVX512: return "x86-64-v4";
    }
    return "?";
}

/* The predator index: every agent whose type some crowd flees, in storage order (a serial
 * pass: one 2-byte load per agent, and predators are few), then sorted into the predator
 * grid's cells, by id slot within a cell (as the main grid: the order is the agents', not their
 * storage's), and packed in that order, so the prey's lookups read contiguous floats. Under
 * several ranks each rank's own predators are gathered to all (sim/dist/dist_pred.c): the
 * tie by id slot makes the index the same as one process's whatever order they arrive in.
 * Nothing is allocated in one process: the arrays have at least the world's agent capacity
 * (grid_setup.c, th_world_setup_grid); under ranks they grow, doubling, to the most predators seen.
 */
void th_boids_prepare(th_world *w) {
    const uint32_t mask = w->pred_mask;
    if (!mask) return;
    const th_agents *a = &w->buf[w->cur];
    uint32_t n = 0;
    for (uint32_t i = 0; i < w->count; i++) {
        const uint32_t t = a->type[i];
        if (t >= TH_MAX_TYPES || !((mask >> t) & 1u)) continue;
        w->pred_px[n] = a->px[i];
        w->pred_py[n] = a->py[i];
        w->pred_pvx[n] = a->vx[i];
        w->pred_pvy[n] = a->vy[i];
        w->pred_ptype[n] = (uint16_t)t;
        w->pred_pid[n] = a->id[i].index1;
        n++;
    }
    n = th_dist_predators(w, n);
    th_grid_build_tied(&w->pred_grid, w->pool, w->pred_px, w->pred_py, w->pred_pid, 1, n);
    const uint32_t *order = w->pred_grid.order;
    for (uint32_t k = 0; k < n; k++) {
        w->pred_sx[k] = w->pred_px[order[k]];
        w->pred_sy[k] = w->pred_py[order[k]];
        w->pred_svx[k] = w->pred_pvx[order[k]];
        w->pred_svy[k] = w->pred_pvy[order[k]];
        w->pred_stype[k] = w->pred_ptype[order[k]];
    }
    w->pred_count = n;
}

/* Chosen per chunk (a few hundred agents): two relaxed loads, and unlike an ifunc resolver it
 * is safe under every sanitizer. */
void th_boids_steer(const th_step_ctx *x, uint32_t begin, uint32_t end, th_chunk_stats *stats) {
#if defined(TH_BOIDS_SIMD_KERNELS)
    switch (th_boids_active_isa()) {
    case TH_BOIDS_ISA_AVX512: th_boids_steer_avx512(x, begin, end, stats); return;
    case TH_BOIDS_ISA_AVX2: th_boids_steer_avx2(x, begin, end, stats); return;
    default: break;
    }
#endif
    th_boids_steer_base(x, begin, end, stats);
}
#endif
