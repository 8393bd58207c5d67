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
 *               (view cone regardless of fov); none => i leads this step.
 * Each term becomes a Reynolds steering force: desired = unit(term) * max_speed,
 * steer = desired - v_i, clamped to max_force; the acceleration is the weighted sum of the
 * three (a leader pursues its target instead of aligning and cohering; see below), a flight
 * term away from predators (sum of -d / |d|^2 over predator types within flee_radius, seen all
 * around), plus the terrain terms (flow to shelter, wall push; see world_nav.c), clamped to
 * max_force again. Terms with nobody to act on contribute nothing.
 *
 * Cells are at least the largest radius, so the 3x3 cells around i's cell hold every agent in
 * reach. Cells of one row are consecutive in storage, so each row of the 3x3 block is one
 * contiguous index range (two on a torus when the block straddles the seam). */
#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include "boids.h"
#include "world_internal.h"

/* This file is compiled three times on x86-64: as itself, for the baseline (or any other
 * target), and through sim/boids_avx2.c and sim/boids_avx512.c with -march=x86-64-v3 and -v4
 * for the whole translation unit. Whole-file compilation, not per-function target clones, is
 * what keeps each copy in its instruction set all the way down: every static helper
 * (block_spans, visit, the steering maths) is compiled for it, so the per-agent loop never
 * calls SSE code with dirty upper vector halves (target_clones compiled the non-inlined
 * helpers for the baseline only, which made the AVX2 clone 2x slower on Intel server cores).
 * The -v4 copy keeps 8 lanes but compares into mask registers: 12% faster than -v3 where
 * AVX-512 exists. th_boids_steer picks a copy per chunk. */
#ifndef TH_BOIDS_KERNEL
#define TH_BOIDS_KERNEL th_boids_steer_base
#define TH_BOIDS_DISPATCHER 1
#endif

typedef struct span {
    uint32_t begin, end;
} span;

/* Index spans of the cells in row `row` from column `c0` to `c1` inclusive (no wrap). */
static inline span row_span(const th_grid *g, int32_t row, int32_t c0, int32_t c1) {
    const uint32_t base = (uint32_t)row * (uint32_t)g->nx;
    return (span){g->cell_start[base + (uint32_t)c0], g->cell_start[base + (uint32_t)c1 + 1]};
}

/* The index spans of the 3x3 block around (cx, cy): at most 3 rows of at most 2 spans. Inlined
 * into the per-agent loop: a call per agent is as costly as the smaller spans it finds. */
static inline __attribute__((always_inline)) uint32_t block_spans(const th_grid *g, int32_t cx, int32_t cy, bool wrap, span out[6]) {
    int32_t rows[3], nrows = 0;
    if (wrap && g->ny < 3) {
        for (int32_t r = 0; r < g->ny; r++) rows[nrows++] = r;
    } else {
        for (int32_t d = -1; d <= 1; d++) {
            int32_t r = cy + d;
            if (wrap) r = r < 0 ? r + g->ny : (r >= g->ny ? r - g->ny : r);
            else if (r < 0 || r >= g->ny) continue;
            rows[nrows++] = r;
        }
    }
    uint32_t n = 0;
    for (int32_t i = 0; i < nrows; i++) {
        int32_t r = rows[i];
        if (wrap && g->nx < 3) {
            out[n++] = row_span(g, r, 0, g->nx - 1);
        } else if (wrap && cx == 0) {
            out[n++] = row_span(g, r, 0, 1);
            out[n++] = row_span(g, r, g->nx - 1, g->nx - 1);
        } else if (wrap && cx == g->nx - 1) {
            out[n++] = row_span(g, r, 0, 0);
            out[n++] = row_span(g, r, cx - 1, cx);
        } else {
            int32_t c0 = cx > 0 ? cx - 1 : 0;
            int32_t c1 = cx < g->nx - 1 ? cx + 1 : g->nx - 1;
            out[n++] = row_span(g, r, c0, c1);
        }
    }
    return n;
}

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

TH_INLINE v8i sel_i(v8i m, v8i a, v8i b) { return (a & m) | (b & ~m); }

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

/* Sums of the leader and predator tests, apart so that plain flocking keeps its accumulators
 * in registers. */
typedef struct extra_sums {
    v8f flee_x, flee_y;
    v8i n_front, n_flee;
} extra_sums;

/* Per-agent constants of the neighbour loop. */
typedef struct probe {
    float x, y, vx, vy;
    int32_t type;
    float sense_r2, separation_r2, neighbor_r2;
    bool lead;          /* count same-type agents in the front view (leader test) */
    float lead_r2;
    float lead_k;       /* cos(half front view)^2 * |v|^2 */
    uint32_t flee_mask; /* predator types; 0 = none */
    float flee_r2;
    v8i all_round;  /* all lanes set: the view cone is skipped */
    v8i narrow;     /* all lanes set: view angle <= 180 degrees (cos(half) >= 0) */
    float cone_k;   /* cos(half)^2 * |v|^2 */
} probe;

/* Offsets d = p_j - p_i of the 8 candidates from j on; on a torus the nearest image. */
TH_INLINE void offsets(const th_agents *a, uint32_t j, const probe *p, bool wrap, float W,
                       float H, v8f *dx, v8f *dy) {
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
TH_INLINE void visit(const th_agents *a, uint32_t begin, uint32_t end, const probe *p,
                         bool wrap, float W, float H, sums *s) {
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
        const v8i seen = p->all_round | (p->narrow & ahead & (dd >= kd2)) |
                         (~p->narrow & (ahead | (dd <= kd2)));
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

/* The leader test and the predator term, for the crowds that have them: a second pass over
 * the same cells, out of line. Folding them into visit(), or even inlining this pass beside
 * it, made GCC compile the plain loop worse: 11% more instructions for plain flocking with the
 * tests never run (callgrind, 5,000 boids). */
__attribute__((noinline)) static void
visit_extras(const th_agents *a, uint32_t begin, uint32_t end, const probe *p, bool wrap, float W,
             float H, extra_sums *x) {
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
        if (p->lead) {
            /* The narrow front view is at most 180 degrees wide: ahead, and inside the cone. */
            const v8i front = live & same & (d2 > 0.0f) & (d2 < p->lead_r2) & ahead &
                              (dd >= p->lead_k * d2);
            x->n_front -= front;
        }
        if (p->flee_mask) {
            /* Predators of explicit types (below 32); shift counts clamped to stay defined. */
            const v8i explicit_type = type < TH_MAX_TYPES;
            const v8i shift = sel_i(explicit_type, type, (v8i){0});
            const v8i mask = (v8i){0} + (int32_t)p->flee_mask;
            const v8i bit = (mask >> shift) & 1;
            const v8i pred = live & explicit_type & (bit != 0) & (d2 > 0.0f) & (d2 < p->flee_r2);
            const v8f inv2 = 1.0f / sel(pred, d2, (v8f){1, 1, 1, 1, 1, 1, 1, 1});
            x->flee_x -= sel(pred, dx * inv2, (v8f){0});
            x->flee_y -= sel(pred, dy * inv2, (v8f){0});
            x->n_flee -= pred;
        }
    }
}

void TH_BOIDS_KERNEL(th_world *w, uint32_t begin, uint32_t end, th_chunk_stats *stats) {
    const th_agents *a = &w->buf[w->cur];
    const th_grid *g = &w->grid;
    const bool wrap = w->wrap;
    const float W = w->def.width, H = w->def.height;
    uint64_t neighbors_total = 0, candidates_total = 0;

    for (uint32_t i = begin; i < end; i++) {
        const th_crowd_rt *c = &w->crowd_rt[a->crowd[i]];
        if (c->ped) continue; /* sim/ped.c */
        const float speed2 = a->vx[i] * a->vx[i] + a->vy[i] * a->vy[i];
        const probe p = {
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
            .all_round = (v8i){0} - (int32_t)(c->omni || speed2 <= 1e-12f),
            .narrow = (v8i){0} - (int32_t)(c->cos_half_fov >= 0.0f),
            .cone_k = c->cos_half_fov * c->cos_half_fov * speed2,
        };
        sums s = {0};
        const uint32_t cell = w->cell[i];
        span spans[6];
        uint32_t ns = block_spans(g, (int32_t)(cell % (uint32_t)g->nx),
                                  (int32_t)(cell / (uint32_t)g->nx), wrap, spans);
        uint32_t n_cand = 0;
        for (uint32_t k = 0; k < ns; k++) {
            n_cand += spans[k].end - spans[k].begin;
            visit(a, spans[k].begin, spans[k].end, &p, wrap, W, H, &s);
        }
        /* After, not inside, the loop above: a call there would spill its accumulators (every
         * vector register is caller-saved) on every span. */
        extra_sums x = {0};
        if (p.lead || p.flee_mask) {
            const probe q = p; /* a copy escapes to the call, not the probe the loop reads */
            for (uint32_t k = 0; k < ns; k++) {
                visit_extras(a, spans[k].begin, spans[k].end, &q, wrap, W, H, &x);
            }
        }
        n_cand -= 1; /* i itself */

        const uint32_t n_sep = (uint32_t)hsum_i(s.n_sep);
        const uint32_t n_flock = (uint32_t)hsum_i(s.n_flock);
        const th_vec2 v = th_v2(p.vx, p.vy);
        th_vec2 acc = th_v2(0.0f, 0.0f);
        if (n_sep > 0) {
            th_vec2 f = steer_toward(th_v2(hsum(s.sep_x), hsum(s.sep_y)), v, c->max_speed,
                                     c->max_force);
            acc = th_v2_add(acc, th_v2_scale(f, c->w_sep));
        }
        /* A leader: its crowd has a target and nobody of its type is in its front view. It
         * pursues the target instead of aligning and cohering; the others follow the flock. */
        const bool leader = c->lead && hsum_i(x.n_front) == 0;
        const th_agent_id id = a->id[i];
        if (w->squad_count && w->squad_of_id[id]) {
            /* A squad member: pulled to its slot (or along its way back) instead of flocking. */
            acc = th_v2_add(acc, th_squad_steer(w, id, c, th_v2(p.x, p.y), v));
        } else if (leader) {
            acc = th_v2_add(acc, th_pursuit_steer(w, c, th_v2(p.x, p.y), v));
        } else if (n_flock > 0) {
            const float inv_n = 1.0f / (float)n_flock;
            th_vec2 fa = steer_toward(th_v2(hsum(s.ali_x) * inv_n, hsum(s.ali_y) * inv_n), v,
                                      c->max_speed, c->max_force);
            th_vec2 fc = steer_toward(th_v2(hsum(s.coh_x) * inv_n, hsum(s.coh_y) * inv_n), v,
                                      c->max_speed, c->max_force);
            acc = th_v2_add(acc, th_v2_scale(fa, c->w_ali));
            acc = th_v2_add(acc, th_v2_scale(fc, c->w_coh));
        }
        if (c->flee_mask && hsum_i(x.n_flee) > 0) {
            th_vec2 f = steer_toward(th_v2(hsum(x.flee_x), hsum(x.flee_y)), v, c->max_speed,
                                     c->max_force);
            acc = th_v2_add(acc, th_v2_scale(f, c->w_flee));
        }
        bool stranded = false;
        if (w->nav.present) {
            acc = th_v2_add(acc, th_nav_steer(w, i, c, th_v2(p.x, p.y), v, &stranded));
            stats->stranded += stranded;
        }
        w->flags[i] = (uint8_t)((leader ? TH_AGENT_LEADER : 0u) | (stranded ? TH_AGENT_STRANDED : 0u));
        acc = th_v2_clamp_len(acc, c->max_force);
        w->ax[i] = acc.x;
        w->ay[i] = acc.y;
        w->neighbors[i] = (uint16_t)(n_flock > UINT16_MAX ? UINT16_MAX : n_flock);
        neighbors_total += n_flock;
        candidates_total += n_cand;
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

/* Chosen per chunk (a few hundred agents): two relaxed loads, and unlike an ifunc resolver it
 * is safe under every sanitizer. */
void th_boids_steer(th_world *w, uint32_t begin, uint32_t end, th_chunk_stats *stats) {
#if defined(TH_BOIDS_SIMD_KERNELS)
    switch (th_boids_active_isa()) {
    case TH_BOIDS_ISA_AVX512: th_boids_steer_avx512(w, begin, end, stats); return;
    case TH_BOIDS_ISA_AVX2: th_boids_steer_avx2(w, begin, end, stats); return;
    default: break;
    }
#endif
    th_boids_steer_base(w, begin, end, stats);
}
#endif
