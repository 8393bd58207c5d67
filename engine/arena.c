#include "arena.h"

#include <string.h>

#include "alloc.h"

struct th_arena_block {
    th_arena_block *next;
    size_t size; /* payload bytes */
    _Alignas(16) unsigned char data[];
};

/* Blocks grow to at least this, so small allocations do not each cost a th_alloc. */
enum { BLOCK_MIN = 64 * 1024 };

th_arena th_arena_make(size_t budget) { return (th_arena){NULL, 0, 0, budget}; }

void *th_arena_alloc(th_arena *a, size_t size) {
    size_t need = (size + 15u) & ~(size_t)15u;
    if (need < size) return NULL;
    if (!a->head || a->head->size - a->used < need) {
        size_t payload = need > BLOCK_MIN ? need : BLOCK_MIN;
        if (a->budget && (payload > a->budget || a->total > a->budget - payload)) return NULL;
        th_arena_block *b = th_alloc(sizeof *b + payload);
        if (!b) return NULL;
        b->next = a->head;
        b->size = payload;
        a->head = b;
        a->used = 0;
        a->total += payload;
    }
    void *p = a->head->data + a->used;
    a->used += need;
    memset(p, 0, size);
    return p;
}

char *th_arena_strndup(th_arena *a, const char *s, size_t len) {
    if (len == SIZE_MAX) return NULL;
    char *p = th_arena_alloc(a, len + 1);
    if (!p) return NULL;
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

void th_arena_free(th_arena *a) {
    th_arena_block *b = a->head;
    while (b) {
        th_arena_block *next = b->next;
        th_free(b);
        b = next;
    }
    a->head = NULL;
    a->used = a->total = 0;
}
