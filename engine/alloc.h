/* Allocation through one overridable hook.
 *
 * Every allocation the engine and the simulation make goes through th_alloc / th_free, so a
 * host can route memory to its own allocator and tests can count allocations (the "no
 * allocation inside a step" contract is checked that way). */
#ifndef TH_ALLOC_H
#define TH_ALLOC_H

#include <stddef.h>
#include <stdint.h>

#include "throng/api.h" /* th_allocator, th_set_allocator: public */

/** Allocate `size` bytes aligned to 64 bytes (cache line). Returns NULL on failure or size 0. */
void *th_alloc(size_t size);
/** Allocate `count * size` zeroed bytes; NULL on overflow or failure. */
void *th_calloc(size_t count, size_t size);
/** Free memory from th_alloc / th_calloc. NULL is ignored. */
void th_free(void *ptr);

/** Number of successful th_alloc / th_calloc calls since start (all threads). */
uint64_t th_alloc_count(void);

#endif
