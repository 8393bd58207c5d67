/* Programmer errors, reported through the hook of include/throng/api.h (th_set_assert_hook).
 *
 * TH_ASSERT(cond) is an expression: true when cond holds; otherwise it calls the hook (which by
 * default prints and aborts) and, if the hook returns, is false, so the caller can refuse the
 * call instead of going on in a broken state:
 *
 *     if (!TH_ASSERT(!w->stepping)) return false;
 *
 * Unlike assert(), it stays in release builds: the checks guard API entry points, not loops. */
#ifndef TH_CHECK_H
#define TH_CHECK_H

#include <stdbool.h>

/** Report a broken expectation (the hook, or print and abort). */
void th_assert_failed(const char *expected, const char *file, int line);

#define TH_ASSERT(cond) ((cond) ? true : (th_assert_failed(#cond, __FILE__, __LINE__), false))

#endif
