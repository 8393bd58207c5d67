/* Fire hazards: adding them, the air of each in the current step, and what the API reads
 * (throng/hazard.h; the per-agent part of a step is inline in hazard.h). */
#include <math.h>
#include <string.h>

#include "engine/alloc.h"
#include "sim/core/world.h"
#include "sim/scenario/hazard.h"

th_air th_clean_air(void) {
    return (th_air){0.0f, 0.0f, TH_AIR_CO2_PERCENT, TH_AIR_O2_PERCENT, 0.0f};
}

/* Purser's rates (SFPE Handbook; as FDS+Evac states them: Korhonen, FDS+Evac Technical
 * Reference, section 3.3), per minute, turned to per second. */
double th_fed_rate(const th_air *air) {
    if (!air) return 0.0;
    const double co = air->co > 0.0f ? air->co : 0.0;
    const double hcn = air->hcn > 0.0f ? air->hcn : 0.0;
    const double fed_co = 2.764e-5 * pow(co, 1.036);
    double fed_cn = hcn > 0.0 ? exp(hcn / 43.0) / 220.0 - 0.0045 : 0.0;
    if (fed_cn < 0.0) fed_cn = 0.0;
    const double hv_co2 = exp(0.1903 * (double)air->co2 + 2.0004) / 7.1;
    /* Purser's time to incapacitation by hypoxia is exp(8.13 - 0.54 (20.9 - O2)) minutes. */
    const double fed_o2 = 1.0 / exp(8.13 - 0.54 * (20.9 - (double)air->o2));
    return ((fed_co + fed_cn) * hv_co2 + fed_o2) / 60.0;
}

static float lerp(float a, float b, float t) { return a + (b - a) * t; }

/* The air of hazard `h` at time t: its keys, linear in between, held outside them. */
static th_air air_at(const struct th_hazards *hz, uint32_t h, double t) {
    const th_hazard_key *k = &hz->key[hz->area[h].key0];
    const uint32_t n = hz->area[h].keys;
    if (t <= k[0].time) return k[0].air;
    if (t >= k[n - 1].time) return k[n - 1].air;
    uint32_t lo = 0, hi = n - 1; /* k[lo].time <= t < k[hi].time */
    while (hi - lo > 1) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (k[mid].time <= t) lo = mid;
        else hi = mid;
    }
    const float f = (float)((t - k[lo].time) / (k[hi].time - k[lo].time));
    const th_air *a = &k[lo].air, *b = &k[hi].air;
    return (th_air){lerp(a->extinction, b->extinction, f), lerp(a->co, b->co, f),
                    lerp(a->co2, b->co2, f), lerp(a->o2, b->o2, f), lerp(a->hcn, b->hcn, f)};
}

/* Dose per second in a hazard's air. Clean air, and air no worse than clean, give none. */
static double rate_in(const th_air *a) {
    if (a->co <= 0.0f && a->hcn <= 0.0f && a->co2 <= TH_AIR_CO2_PERCENT &&
        a->o2 >= TH_AIR_O2_PERCENT)
        return 0.0;
    return th_fed_rate(a);
}

static void set_now(th_world *w, uint32_t h) {
    struct th_hazards *hz = w->hazard;
    const th_air a = air_at(hz, h, (double)w->step * (double)w->def.timestep);
    hz->now[h] = (th_hazard_now){a, rate_in(&a), a.extinction};
}

void th_hazard_update(th_world *w) {
    if (!w->hazard) return;
    for (uint32_t h = 0; h < w->hazard->count; h++) set_now(w, h);
}

void th_hazard_free(th_world *w) {
    struct th_hazards *hz = w->hazard;
    if (!hz) return;
    th_free(hz->area);
    th_free(hz->now);
    th_free(hz->key);
    th_free(hz->cell);
    th_free(hz);
    w->hazard = NULL;
}

static bool air_ok(const th_air *a, uint32_t i, th_error *err) {
    const float v[5] = {a->extinction, a->co, a->co2, a->o2, a->hcn};
    static const char *const name[5] = {"extinction", "co", "co2", "o2", "hcn"};
    static const float hi[5] = {1000.0f, 1.0e6f, 100.0f, 100.0f, 1.0e6f};
    for (int j = 0; j < 5; j++) {
        if (!(isfinite(v[j]) && v[j] >= 0.0f && v[j] <= hi[j])) {
            th_error_set(err, TH_ERR_INVALID, "hazard key %u: %s %g is not in [0, %g]", i, name[j],
                         (double)v[j], (double)hi[j]);
            return false;
        }
    }
    return true;
}

static bool def_ok(const th_world *w, const th_hazard_def *d, int32_t box[4], th_error *err) {
    if (!w->nav.present) {
        th_error_set(err, TH_ERR_STATE, "hazards need a map: the world's cell_size is 0");
        return false;
    }
    if (!(isfinite(d->x) && isfinite(d->y) && isfinite(d->width) && isfinite(d->height)) ||
        !(d->width > 0.0f && d->height > 0.0f)) {
        th_error_set(err, TH_ERR_INVALID,
                     "hazard rectangle [%g, %g, %g, %g]: expected finite values and a positive "
                     "width and height",
                     (double)d->x, (double)d->y, (double)d->width, (double)d->height);
        return false;
    }
    if (!d->keys || d->key_count == 0 || d->key_count > TH_MAX_HAZARD_KEYS) {
        th_error_set(err, d->key_count > TH_MAX_HAZARD_KEYS ? TH_ERR_LIMIT : TH_ERR_INVALID,
                     "a hazard needs 1 to %u keys, found %u", TH_MAX_HAZARD_KEYS,
                     d->keys ? d->key_count : 0);
        return false;
    }
    for (uint32_t i = 0; i < d->key_count; i++) {
        const float t = d->keys[i].time;
        if (!(isfinite(t) && t >= 0.0f) || (i > 0 && !(t > d->keys[i - 1].time))) {
            th_error_set(err, TH_ERR_INVALID,
                         "hazard key %u: time %g is not finite, negative or not after the key "
                         "before it",
                         i, (double)t);
            return false;
        }
        if (!air_ok(&d->keys[i].air, i, err)) return false;
    }
    /* The cells whose centres lie inside: x0 = ceil(x / s - 0.5), x1 = ceil((x + wd) / s - 0.5)
     * (exclusive), clipped to the map. */
    const th_navmap *m = &w->nav.map;
    const double inv = m->inv_cell_size;
    double c[4] = {ceil(d->x * inv - 0.5), ceil(d->y * inv - 0.5),
                   ceil(((double)d->x + d->width) * inv - 0.5),
                   ceil(((double)d->y + d->height) * inv - 0.5)};
    const double lim[4] = {m->w, m->h, m->w, m->h};
    for (int j = 0; j < 4; j++) box[j] = (int32_t)(c[j] < 0 ? 0 : c[j] > lim[j] ? lim[j] : c[j]);
    if (box[0] >= box[2] || box[1] >= box[3]) {
        th_error_set(err, TH_ERR_INVALID,
                     "hazard rectangle [%g, %g, %g, %g] covers no cell centre of the map",
                     (double)d->x, (double)d->y, (double)d->width, (double)d->height);
        return false;
    }
    return true;
}

/* The world's hazards and the agents' doses, created with the first hazard. */
static bool create(th_world *w) {
    struct th_hazards *hz = th_calloc(1, sizeof *hz);
    if (!hz) return false;
    const size_t cells = (size_t)w->nav.map.w * (size_t)w->nav.map.h;
    hz->cell = th_calloc(cells, sizeof *hz->cell);
    th_hazard_state *st =
        w->id_capacity ? th_calloc(w->id_capacity, sizeof(th_hazard_state)) : NULL;
    if (!hz->cell || (w->id_capacity && !st)) {
        th_free(hz->cell);
        th_free(hz);
        th_free(st);
        return false;
    }
    w->hazard = hz;
    w->hazard_state = st;
    return true;
}

bool th_world_add_hazard(th_world *w, const th_hazard_def *def, th_error *err) {
    if (!w || !def) {
        th_error_set(err, TH_ERR_INVALID, "null world or hazard");
        return false;
    }
    if (w->stepping) {
        th_error_set(err, TH_ERR_STATE, "hazards are added between steps");
        return false;
    }
    int32_t box[4];
    if (!def_ok(w, def, box, err)) return false;
    if (!w->hazard && !create(w)) {
        th_error_set(err, TH_ERR_NOMEM, "out of memory");
        return false;
    }
    struct th_hazards *hz = w->hazard;
    if (!th_array_reserve((void **)&hz->area, sizeof *hz->area, hz->count, &hz->cap, hz->count + 1,
                          16, UINT32_MAX - 1u) ||
        !th_array_reserve((void **)&hz->now, sizeof *hz->now, hz->count, &hz->now_cap,
                          hz->count + 1, 16, UINT32_MAX - 1u) ||
        !th_array_reserve((void **)&hz->key, sizeof *hz->key, hz->key_count, &hz->key_cap,
                          hz->key_count + def->key_count, 64, UINT32_MAX)) {
        th_error_set(err, hz->count >= UINT32_MAX - 1u ? TH_ERR_LIMIT : TH_ERR_NOMEM,
                     hz->count >= UINT32_MAX - 1u ? "too many hazards" : "out of memory");
        return false;
    }
    const uint32_t h = hz->count++;
    hz->area[h] = (th_hazard_area){hz->key_count, def->key_count};
    memcpy(&hz->key[hz->key_count], def->keys, def->key_count * sizeof *def->keys);
    hz->key_count += def->key_count;
    const int32_t cols = w->nav.map.w;
    for (int32_t y = box[1]; y < box[3]; y++)
        for (int32_t x = box[0]; x < box[2]; x++)
            hz->cell[(size_t)y * (size_t)cols + (size_t)x] = h + 1;
    set_now(w, h);
    return true;
}

uint32_t th_world_hazard_count(const th_world *w) { return w && w->hazard ? w->hazard->count : 0; }

bool th_world_air(const th_world *w, th_vec2 p, th_air *out) {
    if (out) *out = th_clean_air();
    if (!w || !out || !(p.x >= 0.0f && p.x < w->def.width && p.y >= 0.0f && p.y < w->def.height))
        return false;
    if (!w->hazard) return true;
    const uint32_t h = th_hazard_at(w, p);
    if (h) *out = air_at(w->hazard, h - 1, (double)w->step * (double)w->def.timestep);
    return true;
}

float th_world_smoke_factor(const th_world *w, th_crowd_id crowd, float k) {
    if (!w || crowd.index1 == 0 || crowd.index1 > w->crowd_count || !(k >= 0.0f)) return 1.0f;
    return th_hazard_smoke_factor(&w->crowd_def[crowd.index1 - 1], k);
}

bool th_world_get_hazard_info(const th_world *w, th_crowd_id crowd, th_hazard_info *out) {
    if (!w || !out || !w->hazard || crowd.index1 == 0 || crowd.index1 > w->crowd_count)
        return false;
    *out = (th_hazard_info){0};
    const uint32_t ci = crowd.index1 - 1;
    const th_agents *a = &w->buf[w->cur];
    uint64_t first = 0;
    for (uint32_t k = 0; k < w->count; k++) {
        if (a->crowd[k] != ci) continue;
        const th_hazard_state *st = &w->hazard_state[th_id_slot(a->id[k])];
        if (st->fed > out->max_fed) out->max_fed = st->fed;
        if (st->down_step) {
            out->incapacitated++;
            if (!first || st->down_step < first) first = st->down_step;
        }
    }
    out->first_s = (double)first * (double)w->def.timestep;
    return true;
}

bool th_world_agent_fed(const th_world *w, th_agent_id id, double *fed, double *incapacitated_at) {
    if (!w || !w->hazard || th_agent_index(w, id) == UINT32_MAX) return false;
    const th_hazard_state *st = &w->hazard_state[th_id_slot(id)];
    if (fed) *fed = st->fed;
    if (incapacitated_at)
        *incapacitated_at = st->down_step ? (double)st->down_step * (double)w->def.timestep : -1.0;
    return true;
}
