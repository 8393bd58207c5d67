/* Filling a th_error (sim/core/error.c). */
#ifndef TH_SIM_ERROR_H
#define TH_SIM_ERROR_H

#include "throng/throng.h"

void th_error_set(th_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
