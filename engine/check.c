#include "check.h"

#include <stdio.h>
#include <stdlib.h>

#include "throng/api.h"

static th_assert_fn *g_hook;
static void *g_user;

void th_set_assert_hook(th_assert_fn *fn, void *user) {
    g_hook = fn;
    g_user = fn ? user : NULL;
}

void th_assert_failed(const char *expected, const char *file, int line) {
    if (g_hook) {
        g_hook(expected, file, line, g_user);
        return;
    }
    fprintf(stderr, "throng: %s:%d: programmer error: expected %s\n", file, line, expected);
    abort();
}
