/* The library's base: what it exports, and the two hooks a host installs before making worlds
 * (memory, programmer errors).
 *
 * TH_API marks what the throng libraries export: built as shared objects they hide every other
 * symbol (-fvisibility=hidden), so only the functions declared in include/throng/ are there to
 * link against. A static library keeps them all; the mark changes nothing there. */
#ifndef THRONG_API_H
#define THRONG_API_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define TH_API __attribute__((visibility("default")))
#else
#define TH_API
#endif

/** Allocator hooks: every allocation the engine makes goes through them. `alloc` must return
 *  memory aligned to at least 64 bytes, or NULL. */
typedef struct th_allocator {
    void *(*alloc)(size_t size, void *user);
    void (*free)(void *ptr, void *user);
    void *user;
} th_allocator;

/** Install allocator hooks (NULL restores the default aligned malloc). Not thread-safe: call it
 *  while no world exists. */
TH_API void th_set_allocator(const th_allocator *a);

/** Programmer errors: a contract broken in a way no error return can report, such as a call
 *  that changes a world from inside that world's own step (from a host task, say), or a world
 *  stepped from within its step. The hook hears what was expected and where it was checked.
 *  The default prints that and aborts; a hook that returns makes the call fail (or do nothing)
 *  instead. */
typedef void th_assert_fn(const char *expected, const char *file, int line, void *user);

/** Install the hook (NULL restores the default). Not thread-safe: call it while no world
 *  exists. */
TH_API void th_set_assert_hook(th_assert_fn *fn, void *user);

#ifdef __cplusplus
}
#endif

#endif
