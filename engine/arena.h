/* Bump allocator: many small allocations freed all at once (parse trees, load-time tables).
 *
 * Blocks come from th_alloc; each allocation is carved from the current block, 16-byte
 * aligned. There is no per-allocation free: th_arena_free releases everything. A byte budget
 * bounds the total, so a hostile input cannot grow an arena without limit. */
#ifndef TH_ARENA_H
#define TH_ARENA_H

#include <stddef.h>

typedef struct th_arena_block th_arena_block;

typedef struct th_arena {
    th_arena_block *head; /* current block; older ones chained behind it */
    size_t used;          /* bytes handed out from the head block */
    size_t total;         /* bytes held in all blocks */
    size_t budget;        /* most bytes the arena may hold (0 = no limit) */
} th_arena;

/** An empty arena that may hold at most `budget` bytes (0 = no limit). */
th_arena th_arena_make(size_t budget);

/** `size` bytes, 16-byte aligned, zeroed; NULL when the budget or memory runs out. */
void *th_arena_alloc(th_arena *a, size_t size);

/** Copy of `len` bytes of `s` plus a terminating NUL; NULL when out of budget. */
char *th_arena_strndup(th_arena *a, const char *s, size_t len);

/** Release every block. The arena is empty (and reusable) afterwards. */
void th_arena_free(th_arena *a);

#endif
