/* A streaming 64-bit hash for state fingerprints (determinism checks, golden values).
 *
 * Values are fed as 32- or 64-bit words; floats by their bit pattern, so -0.0 and 0.0 or two
 * NaN payloads hash apart: a state hash must see every bit that could diverge. */
#ifndef TH_HASH_H
#define TH_HASH_H

#include <stdint.h>
#include <string.h>

#include "rng.h"

typedef struct th_hasher {
    uint64_t h;
} th_hasher;

static inline th_hasher th_hash_begin(void) { return (th_hasher){0x6a09e667f3bcc908ull}; }

static inline void th_hash_u64(th_hasher *s, uint64_t v) {
    s->h = (s->h ^ th_mix64(v + 0x9e3779b97f4a7c15ull)) * 0x100000001b3ull;
}
static inline void th_hash_u32(th_hasher *s, uint32_t v) { th_hash_u64(s, v); }
static inline void th_hash_f32(th_hasher *s, float v) {
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    th_hash_u64(s, bits);
}
static inline void th_hash_f64(th_hasher *s, double v) {
    uint64_t word;
    memcpy(&word, &v, sizeof word);
    th_hash_u64(s, word);
}
static inline uint64_t th_hash_end(const th_hasher *s) { return th_mix64(s->h); }

#endif
