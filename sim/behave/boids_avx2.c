/* The boids kernel for x86-64-v3 CPUs (AVX2): sim/behave/boids.c compiled again, with
 * -march=x86-64-v3 for this whole file (set in CMakeLists.txt, with TH_BOIDS_SIMD_KERNELS, on
 * x86-64 GCC/Clang builds). Elsewhere, or when a build compiles sim/ by hand, it is empty and
 * th_boids_steer runs the baseline copy. */
#if defined(TH_BOIDS_SIMD_KERNELS)
#define TH_BOIDS_KERNEL th_boids_steer_avx2
#include "boids.c"
#else
typedef int th_boids_avx2_unused; /* ISO C forbids an empty file */
#endif
