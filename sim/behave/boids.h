/* The boids kernel's instruction-set copies (sim/behave/boids.c, boids_avx2.c, boids_avx512.c),
 * internal to sim/. th_boids_steer runs the best copy the CPU can run and
 * the build has (the SIMD copies exist on x86-64 with GCC or Clang); all give bit-identical
 * results. Tests force each to compare them. */
#ifndef TH_BOIDS_H
#define TH_BOIDS_H

#include <stdbool.h>
#include <stdint.h>

typedef enum th_boids_isa {
    TH_BOIDS_ISA_AUTO = 0, /* AVX2 when available, else baseline */
    TH_BOIDS_ISA_BASELINE,
    TH_BOIDS_ISA_AVX2,   /* x86-64-v3: AVX2, FMA (never contracted), BMI */
    TH_BOIDS_ISA_AVX512, /* x86-64-v4: AVX-512 F/VL/BW/DQ/CD, still 8-lane vectors */
} th_boids_isa;

/** Force a copy of the kernel for every later step of every world (AUTO undoes it). Returns
 *  false, changing nothing, when that copy is not built in or the CPU cannot run it. Call
 *  between steps. */
bool th_boids_force_isa(th_boids_isa isa);

/** The copy th_boids_steer runs now. */
th_boids_isa th_boids_active_isa(void);

/** "baseline", "x86-64-v3", "x86-64-v4" (or "auto"). */
const char *th_boids_isa_name(th_boids_isa isa);

struct th_world;
struct th_chunk_stats;
struct th_step_ctx;
void th_boids_steer_base(const struct th_step_ctx *x, uint32_t begin, uint32_t end,
                         struct th_chunk_stats *stats);
void th_boids_steer_avx2(const struct th_step_ctx *x, uint32_t begin, uint32_t end,
                         struct th_chunk_stats *stats);
void th_boids_steer_avx512(const struct th_step_ctx *x, uint32_t begin, uint32_t end,
                           struct th_chunk_stats *stats);

/* Compute accelerations for storage indices [begin, end) of the step context's arrays, with the
 * copy above that th_boids_active_isa names; agents of pedestrian crowds are skipped. */
void th_boids_steer(const struct th_step_ctx *x, uint32_t begin, uint32_t end,
                    struct th_chunk_stats *stats);

/* After the grid phase's gather: rebuild the predator index (w->pred_grid) from buf[cur].
 * Does nothing when no crowd flees anyone. */
void th_boids_prepare(struct th_world *w);

#endif
