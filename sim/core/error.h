/* Filling a th_error (sim/core/error.c). */
#ifndef TH_SIM_ERROR_H
#define TH_SIM_ERROR_H

#include "throng/throng.h"

/* The code (include/throng/error.h) says what kind of failure, the message which value and
 * why; line and column are cleared (scene errors set them after). */
void th_error_set(th_error *err, th_error_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A point refused for lying off the world: not finite is an invalid argument, finite but
 * outside is blocked. */
static inline th_error_code th_error_point_code(th_vec2 p) {
    return isfinite(p.x) && isfinite(p.y) ? TH_ERR_BLOCKED : TH_ERR_INVALID;
}

/* The place in a scene file the error is about (1-based), after th_error_set. */
static inline void th_error_place(th_error *err, uint32_t line, uint32_t column) {
    if (!err) return;
    err->line = line;
    err->column = column;
}

#endif
