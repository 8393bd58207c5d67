#include "alloc.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* The default hooks take one line more than asked from malloc and keep the block malloc
 * returned just below the aligned pointer, so that zeroed memory can come from calloc: for a
 * large request glibc maps fresh pages, which the kernel hands out zeroed, and skips the
 * memset. A big zeroed array (a map's worth of search state) then costs page faults only where
 * it is used; aligned_alloc followed by memset faulted in and wrote every page up front. */
#define SLACK (64u + sizeof(void *))

static void *aligned_in(void *raw) {
    if (!raw) return NULL;
    uintptr_t at = ((uintptr_t)raw + sizeof(void *) + 63u) & ~(uintptr_t)63u;
    ((void **)at)[-1] = raw;
    return (void *)at;
}

static void *default_alloc(size_t size, void *user) {
    (void)user;
    if (size > SIZE_MAX - SLACK) return NULL;
    return aligned_in(malloc(size + SLACK));
}

static void *default_zeroed(size_t size) {
    if (size > SIZE_MAX - SLACK) return NULL;
    return aligned_in(calloc(1, size + SLACK));
}

static void default_free(void *ptr, void *user) {
    (void)user;
    free(((void **)ptr)[-1]);
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
    if (count * size == 0) return NULL;
    if (g_alloc.alloc == default_alloc) {
        void *p = default_zeroed(count * size);
        if (p) atomic_fetch_add_explicit(&g_count, 1, memory_order_relaxed);
        return p;
    }
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

bool th_grow_array(void **p, size_t elem, size_t keep, size_t n) {
    void *q = th_calloc(n, elem);
    if (!q) return false;
    if (*p && keep) memcpy(q, *p, keep * elem);
    th_free(*p);
    *p = q;
    return true;
}

bool th_array_reserve(void **p, size_t elem, uint32_t keep, uint32_t *cap, uint32_t n,
                      uint32_t first, uint32_t max) {
    if (n <= *cap) return true;
    const uint32_t c = th_grown_capacity(*cap, n, first, max);
    if (!th_grow_array(p, elem, keep, c)) return false;
    *cap = c;
    return true;
}
