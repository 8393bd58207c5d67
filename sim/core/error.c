/* Filling a th_error: every failing call of the library describes what went wrong here. */
#include <stdarg.h>
#include <stdio.h>

#include "sim/core/error.h"

void th_error_set(th_error *err, const char *fmt, ...) {
    if (!err) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
}
