/* The boids kernel for x86-64-v4 CPUs (AVX-512): sim/behave/boids.c compiled again, with
 * -march=x86-64-v4 for this whole file (see sim/behave/boids_avx2.c). The vectors stay 8 lanes
 * wide; what AVX-512 brings is comparisons into mask registers and masked blends. */
#if defined(TH_BOIDS_SIMD_KERNELS)
#define TH_BOIDS_KERNEL th_boids_steer_avx512
#include "boids.c"
#else
typedef int th_boids_avx512_unused; /* ISO C forbids an empty file */
#endif
