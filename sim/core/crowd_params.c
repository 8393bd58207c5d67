/* The crowd parameter table (crowd_params.h) and the checks both the API and the scene parser
 * make with it. */
#include "sim/core/crowd_params.h"

#include <stddef.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/core/error.h"
#include "sim/core/world.h"

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

bool th_crowd_params_rules(const th_crowd_def *d, const char **key, th_error *err) {
    if (d->model != TH_MODEL_PEDESTRIAN) return true;
    if (d->desired_speed > d->max_speed) {
        *key = "desired_speed";
        th_error_set(err, TH_ERR_INVALID, "desired_speed %g m/s is above max_speed %g m/s",
                     (double)d->desired_speed, (double)d->max_speed);
        return false;
    }
    if (d->desired_speed_sd > d->desired_speed) {
        *key = "desired_speed_sd";
        th_error_set(err, TH_ERR_INVALID, "desired_speed_sd %g m/s is above desired_speed %g m/s",
                     (double)d->desired_speed_sd, (double)d->desired_speed);
        return false;
    }
    return true;
}

th_crowd_reach th_crowd_params_reach(const th_crowd_def *d, bool leads, float timestep) {
    /* Boids: their neighbourhood, the leader test and the predators they flee. Pedestrians
     * steer by their own model alone (below); their neighbor_radius only counts the neighbours
     * reported, within the model's reach. */
    const float lead_r = d->lead_radius > 0.0f ? d->lead_radius : d->neighbor_radius;
    float reach = 0.0f;
    if (d->model == TH_MODEL_BOIDS) {
        reach =
            d->neighbor_radius > d->separation_radius ? d->neighbor_radius : d->separation_radius;
        if (leads && lead_r > reach) reach = lead_r;
    }
    th_crowd_reach r = {.block = reach};
    /* The flee radius is looked up in the predator grid, not the block. */
    if (d->model == TH_MODEL_BOIDS && d->flee_types && d->flee_radius > reach)
        reach = d->flee_radius;
    /* Pedestrians look as far as their fastest walker gets in one time gap (the spacing term)
     * and as far as the repulsion is felt (below 1/1000 of its strength: 7 ranges). On a torus
     * a neighbour is seen at its nearest image, so a periodic corridor needs walls at least as
     * thick as its walkway is wide; that is the map's business, not a bound checked here. */
    const float fastest = fminf(d->max_speed, d->desired_speed + 2.0f * d->desired_speed_sd);
    r.ped = d->model == TH_MODEL_PEDESTRIAN
                ? 2.0f * d->body_radius + fmaxf(fastest * d->time_gap, 7.0f * d->repulsion_range)
                : 0.0f;
    if (r.ped > reach) reach = r.ped;
    /* Bodies: the contacts phase looks for overlaps in the 3x3 cells the grid phase assigned,
     * after the agents moved: a cell must cover two bodies, a step's travel of both and the
     * pushes of the rounds (at most a body's radius). */
    const float contact_reach = 3.0f * d->body_radius + 2.0f * d->max_speed * timestep;
    if (d->body_radius > 0.0f && contact_reach > reach) reach = contact_reach;
    r.near = d->body_radius > 0.0f ? contact_reach : 0.0f;
    r.largest = reach;
    return r;
}

bool th_crowd_params_wrap_ok(float largest, float width, float height, th_error *err) {
    if (!(2.0f * largest > width || 2.0f * largest > height)) return true;
    th_error_set(err, TH_ERR_INVALID,
                 "a wrap-around world must be at least twice the largest radius (%g m) on each "
                 "side",
                 (double)largest);
    return false;
}

/* ---- changes at run time (TH_EVENT_SET_CROWD) --------------------------------------------- */

typedef struct tune_row {
    uint32_t bit;
    const char *key; /* the th_crowd_def member's scene key, which bounds the value */
    size_t offset;   /* of the value in th_crowd_tune */
} tune_row;

static const tune_row k_tune[] = {
    {TH_TUNE_SEPARATION_WEIGHT, "separation_weight", offsetof(th_crowd_tune, separation_weight)},
    {TH_TUNE_ALIGNMENT_WEIGHT, "alignment_weight", offsetof(th_crowd_tune, alignment_weight)},
    {TH_TUNE_COHESION_WEIGHT, "cohesion_weight", offsetof(th_crowd_tune, cohesion_weight)},
    {TH_TUNE_FLOW_WEIGHT, "flow_weight", offsetof(th_crowd_tune, flow_weight)},
    {TH_TUNE_WALL_WEIGHT, "wall_weight", offsetof(th_crowd_tune, wall_weight)},
    {TH_TUNE_PURSUIT_WEIGHT, "pursuit_weight", offsetof(th_crowd_tune, pursuit_weight)},
    {TH_TUNE_FLEE_WEIGHT, "flee_weight", offsetof(th_crowd_tune, flee_weight)},
    {TH_TUNE_MAX_SPEED, "max_speed", offsetof(th_crowd_tune, max_speed)},
    {TH_TUNE_MAX_FORCE, "max_force", offsetof(th_crowd_tune, max_force)},
};
enum { TUNE_ROWS = sizeof k_tune / sizeof k_tune[0] };

uint32_t th_crowd_tune_bit(const char *key) {
    for (uint32_t i = 0; i < TUNE_ROWS; i++)
        if (strcmp(k_tune[i].key, key) == 0) return k_tune[i].bit;
    return 0;
}

float *th_crowd_tune_value(th_crowd_tune *t, uint32_t bit) {
    for (uint32_t i = 0; i < TUNE_ROWS; i++)
        if (k_tune[i].bit == bit) return (float *)(void *)((char *)t + k_tune[i].offset);
    return NULL;
}

uint64_t th_crowd_tune_hash(const th_crowd_tune *t) {
    uint64_t h = 0xcbf29ce484222325ull ^ t->fields;
    for (uint32_t i = 0; i < TUNE_ROWS; i++) {
        uint32_t u;
        memcpy(&u, (const char *)t + k_tune[i].offset, sizeof u);
        h = (h ^ u) * 0x100000001B3ull;
    }
    return h;
}

bool th_crowd_tune_check(const th_crowd_def *d, const th_crowd_tune *t, th_error *err) {
    if (d->model != TH_MODEL_BOIDS) {
        th_error_set(err, TH_ERR_INVALID,
                     "crowd '%s' walks the pedestrian model: its steering weights are the boids'",
                     d->name ? d->name : "");
        return false;
    }
    const uint32_t known = (1u << TUNE_ROWS) - 1u;
    if (t->fields == 0 || (t->fields & ~known)) {
        th_error_set(err, TH_ERR_INVALID,
                     "crowd change: fields 0x%x (expected TH_TUNE_* bits, "
                     "at least one)",
                     t->fields);
        return false;
    }
    for (uint32_t i = 0; i < TUNE_ROWS; i++) {
        if (!(t->fields & k_tune[i].bit)) continue;
        const float v = *(const float *)(const void *)((const char *)t + k_tune[i].offset);
        const th_crowd_param *p = th_crowd_param_find(k_tune[i].key);
        char range[64];
        if (!th_crowd_param_ok(p, v)) {
            th_error_set(err, TH_ERR_INVALID, "%s must be in %s, got %g", p->key,
                         th_crowd_param_range(p, range, sizeof range), (double)v);
            return false;
        }
    }
    if ((t->fields & TH_TUNE_MAX_SPEED) && t->max_speed > d->max_speed) {
        th_error_set(err, TH_ERR_INVALID,
                     "max_speed %g m/s is above the crowd's own %g m/s (how far its agents look "
                     "and move in a step were sized for that; add the crowd with the highest)",
                     (double)t->max_speed, (double)d->max_speed);
        return false;
    }
    return true;
}

void th_crowd_tune_apply(struct th_crowd_rt *rt, bool walls, const th_crowd_tune *t) {
    const uint32_t f = t->fields;
    if (f & TH_TUNE_SEPARATION_WEIGHT) rt->w_sep = t->separation_weight;
    if (f & TH_TUNE_ALIGNMENT_WEIGHT) rt->w_ali = t->alignment_weight;
    if (f & TH_TUNE_COHESION_WEIGHT) rt->w_coh = t->cohesion_weight;
    if (f & TH_TUNE_FLOW_WEIGHT) rt->w_flow = t->flow_weight;
    if (f & TH_TUNE_WALL_WEIGHT)
        rt->w_wall = walls && rt->wall_radius > 0.0f ? t->wall_weight : 0.0f;
    if (f & TH_TUNE_PURSUIT_WEIGHT) rt->w_pursuit = t->pursuit_weight;
    if (f & TH_TUNE_FLEE_WEIGHT) rt->w_flee = t->flee_weight;
    if (f & TH_TUNE_MAX_SPEED) rt->max_speed = t->max_speed;
    if (f & TH_TUNE_MAX_FORCE) rt->max_force = t->max_force;
}
