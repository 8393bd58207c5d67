/* Counter-based random numbers: a pure function of (seed, key, counter).
 *
 * No generator state is carried between calls, so an agent's random draw at a step is the same
 * whichever thread computes it and in whatever order: the determinism contract needs exactly
 * that. Keyed as (seed, agent id, step * streams + stream). The mixer is three rounds of a
 * 64-bit multiply-xorshift finaliser (the SplitMix64 / MurmurHash3 family), strong enough for
 * simulation noise; not for cryptography. */
#ifndef TH_RNG_H
#define TH_RNG_H

#include <stdint.h>

static inline uint64_t th_mix64(uint64_t z) {
    z ^= z >> 30;
    z *= 0xbf58476d1ce4e5b9ull;
    z ^= z >> 27;
    z *= 0x94d049bb133111ebull;
    z ^= z >> 31;
    return z;
}

/** 64 random bits for (seed, key, counter). */
static inline uint64_t th_rng_u64(uint64_t seed, uint64_t key, uint64_t counter) {
    uint64_t h = th_mix64(seed + 0x9e3779b97f4a7c15ull);
    h = th_mix64(h ^ (key * 0xd1b54a32d192ed03ull + 0x632be59bd9b4e019ull));
    h = th_mix64(h ^ (counter * 0xaef17502108ef2d9ull + 0x8cb92ba72f3d8dd7ull));
    return h;
}

/** Uniform float in [0, 1) for (seed, key, counter): 24 random mantissa bits. */
static inline float th_rng_f01(uint64_t seed, uint64_t key, uint64_t counter) {
    return (float)(th_rng_u64(seed, key, counter) >> 40) * (1.0f / 16777216.0f);
}

/** Uniform double in (0, 1), never either end, for (seed, key, counter): 53 random bits, centred
 *  in their interval (what a quantile transform needs: F^-1(0) and F^-1(1) may be infinite). */
static inline double th_rng_open01(uint64_t seed, uint64_t key, uint64_t counter) {
    return ((double)(th_rng_u64(seed, key, counter) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

/** Uniform float in [lo, hi). */
static inline float th_rng_range(uint64_t seed, uint64_t key, uint64_t counter, float lo,
                                 float hi) {
    return lo + (hi - lo) * th_rng_f01(seed, key, counter);
}

#endif
