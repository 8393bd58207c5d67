/* Allocation through one overridable hook.
 *
 * Every allocation the engine and the simulation make goes through th_alloc / th_free, so a
 * host can route memory to its own allocator and tests can count allocations (the "no
 * allocation inside a step" contract is checked that way). */
#ifndef TH_ALLOC_H
#define TH_ALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "throng/api.h" /* th_allocator, th_set_allocator: public */

/** Allocate `size` bytes aligned to 64 bytes (cache line). Returns NULL on failure or size 0. */
void *th_alloc(size_t size);
/** Allocate `count * size` zeroed bytes; NULL on overflow or failure. */
void *th_calloc(size_t count, size_t size);
/** Free memory from th_alloc / th_calloc. NULL is ignored. */
void th_free(void *ptr);

/** Replace *p with a zeroed array of n elements holding the first `keep` old ones (the old
 *  array freed). False, *p unchanged, when memory is short. */
bool th_grow_array(void **p, size_t elem, size_t keep, size_t n);

/** The capacity a growable array takes to hold n elements: `cap` (or `first` when 0) doubled
 *  until it does, never past `max` (n above `max` gets `max`). Every growable array in the
 *  engine grows by this rule, so a run of N additions reallocates about log2(N) times. */
static inline uint32_t th_grown_capacity(uint32_t cap, uint32_t n, uint32_t first, uint32_t max) {
    cap = cap ? cap : first;
    while (cap < n && cap < max) cap = cap > max / 2 ? max : cap * 2;
    return cap;
}

/** Make room for n elements in the growable array *p of capacity *cap, of which `keep` are
 *  used and kept: grown to th_grown_capacity(*cap, n, first, max) when n > *cap. False, nothing
 *  changed, when memory is short. */
bool th_array_reserve(void **p, size_t elem, uint32_t keep, uint32_t *cap, uint32_t n,
                      uint32_t first, uint32_t max);

/** Number of successful th_alloc / th_calloc calls since start (all threads). */
uint64_t th_alloc_count(void);

#endif
