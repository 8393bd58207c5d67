/* The boids kernel's instruction-set copies (sim/boids.c, sim/boids_avx2.c), internal to sim/.
 * th_boids_steer (world_internal.h) runs the AVX2 copy where the CPU has AVX2 and the build has
 * that copy (x86-64 with GCC or Clang), else the baseline one; both give bit-identical
 * results. Tests force each to compare them. */
#ifndef TH_BOIDS_H
#define TH_BOIDS_H

#include <stdbool.h>
#include <stdint.h>

typedef enum th_boids_isa {
    TH_BOIDS_ISA_AUTO = 0, /* AVX2 when available, else baseline */
    TH_BOIDS_ISA_BASELINE,
    TH_BOIDS_ISA_AVX2,
} th_boids_isa;

/** Force a copy of the kernel for every later step of every world (AUTO undoes it). Returns
 *  false, changing nothing, when that copy is not built in or the CPU cannot run it. Call
 *  between steps. */
bool th_boids_force_isa(th_boids_isa isa);

/** The copy th_boids_steer runs now. */
th_boids_isa th_boids_active_isa(void);

struct th_world;
struct th_chunk_stats;
void th_boids_steer_base(struct th_world *w, uint32_t begin, uint32_t end,
                         struct th_chunk_stats *stats);
void th_boids_steer_avx2(struct th_world *w, uint32_t begin, uint32_t end,
                         struct th_chunk_stats *stats);

#endif
