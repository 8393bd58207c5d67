/* The crowd parameter table (crowd_params.h) and the checks both the API and the scene parser
 * make with it. */
#include "sim/core/crowd_params.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/core/error.h"

/* Every row's field is a float: the table reads and writes it through a float pointer. */
#define TH_PARAM_IS_FLOAT(key, field, ...)                                       \
    _Static_assert(_Generic(((th_crowd_def *)0)->field, float : 1, default : 0), \
                   "crowd parameter " key " is not a float");
TH_CROWD_PARAMS(TH_PARAM_IS_FLOAT)

#define TH_PARAM_ROW(key, field, lo, lo_open, hi, hi_open, boids, ped, note, unit, model, doc) \
    {                                                                                          \
        key,     #field, offsetof(th_crowd_def, field),                                        \
        lo,      hi,     lo_open,                                                              \
        hi_open, boids,  ped,                                                                  \
        note,    unit,   model,                                                                \
        doc},
const th_crowd_param th_crowd_params[] = {TH_CROWD_PARAMS(TH_PARAM_ROW)};
const uint32_t th_crowd_param_count = sizeof th_crowd_params / sizeof th_crowd_params[0];

const th_crowd_param *th_crowd_param_find(const char *key) {
    for (uint32_t i = 0; i < th_crowd_param_count; i++) {
        if (strcmp(th_crowd_params[i].key, key) == 0) return &th_crowd_params[i];
    }
    return NULL;
}

/* Compared as the float the world holds: a scene's 1e-50 is a double above 0 but a float 0. */
bool th_crowd_param_ok(const th_crowd_param *p, float v) {
    if (!isfinite(v)) return false;
    if (p->lo_open ? !(v > p->lo) : !(v >= p->lo)) return false;
    if (p->hi_open ? !(v < p->hi) : !(v <= p->hi)) return false;
    return true;
}

const char *th_crowd_param_range(const th_crowd_param *p, char *buf, size_t size) {
    snprintf(buf, size, "%c%g, %g%c", p->lo_open ? '(' : '[', p->lo, p->hi, p->hi_open ? ')' : ']');
    return buf;
}

bool th_crowd_params_check(const th_crowd_def *d, th_error *err) {
    for (uint32_t i = 0; i < th_crowd_param_count; i++) {
        const th_crowd_param *p = &th_crowd_params[i];
        if (p->model == TH_PARAM_PED && d->model != TH_MODEL_PEDESTRIAN) continue;
        float v;
        memcpy(&v, (const char *)d + p->offset, sizeof v);
        if (!th_crowd_param_ok(p, v)) {
            char range[64];
            th_error_set(err, TH_ERR_INVALID, "%s must be in %s%s%s, got %g", p->field,
                         th_crowd_param_range(p, range, sizeof range), p->unit[0] ? " " : "",
                         p->unit, (double)v);
            return false;
        }
    }
    return true;
}
