#include "alloc.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static void *default_alloc(size_t size, void *user) {
    (void)user;
    /* aligned_alloc wants a size that is a multiple of the alignment. */
    size_t rounded = (size + 63u) & ~(size_t)63u;
    if (rounded < size) return NULL;
    return aligned_alloc(64, rounded);
}

static void default_free(void *ptr, void *user) {
    (void)user;
    free(ptr);
}

static th_allocator g_alloc = {default_alloc, default_free, NULL};
static atomic_uint_fast64_t g_count;

void th_set_allocator(const th_allocator *a) {
    if (a && a->alloc && a->free) {
        g_alloc = *a;
    } else {
        g_alloc = (th_allocator){default_alloc, default_free, NULL};
    }
}

void *th_alloc(size_t size) {
    if (size == 0) return NULL;
    void *p = g_alloc.alloc(size, g_alloc.user);
    if (p) atomic_fetch_add_explicit(&g_count, 1, memory_order_relaxed);
    return p;
}

void *th_calloc(size_t count, size_t size) {
    if (size != 0 && count > SIZE_MAX / size) return NULL;
    void *p = th_alloc(count * size);
    if (p) memset(p, 0, count * size);
    return p;
}

void th_free(void *ptr) {
    if (ptr) g_alloc.free(ptr, g_alloc.user);
}

uint64_t th_alloc_count(void) {
    return (uint64_t)atomic_load_explicit(&g_count, memory_order_relaxed);
}
