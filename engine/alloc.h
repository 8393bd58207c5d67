/* Allocation through one overridable hook.
 *
 * Every allocation the engine and the simulation make goes through th_alloc / th_free, so a
 * host can route memory to its own allocator and tests can count allocations (the "no
 * allocation inside a step" contract is checked that way). */
#ifndef TH_ALLOC_H
#define TH_ALLOC_H

#include <stddef.h>
#include <stdint.h>

/** Allocator hooks. `alloc` must return memory aligned to at least 64 bytes or NULL. */
typedef struct th_allocator {
    void *(*alloc)(size_t size, void *user);
    void (*free)(void *ptr, void *user);
    void *user;
} th_allocator;

/** Install hooks (NULL restores the default aligned malloc). Not thread-safe: call it while no
 *  world exists. */
void th_set_allocator(const th_allocator *a);

/** Allocate `size` bytes aligned to 64 bytes (cache line). Returns NULL on failure or size 0. */
void *th_alloc(size_t size);
/** Allocate `count * size` zeroed bytes; NULL on overflow or failure. */
void *th_calloc(size_t count, size_t size);
/** Free memory from th_alloc / th_calloc. NULL is ignored. */
void th_free(void *ptr);

/** Number of successful th_alloc / th_calloc calls since start (all threads). */
uint64_t th_alloc_count(void);

#endif
