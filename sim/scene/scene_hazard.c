/* The scene's `hazards` section: smoke and toxic gases over rectangles of the map, given at
 * times (throng/hazard.h, docs/hazards.md).
 *
 *     hazards:
 *       - rect: [x, y, width, height]                  # metres
 *         air: {extinction: 1.0, co: 500, co2: 2, o2: 18, hcn: 0}
 *       - rect: [...]
 *         keys:                                        # linear in between, held outside
 *           - {time: 0, extinction: 0}
 *           - {time: 120, extinction: 2.5, co: 800, co2: 3, o2: 17}
 *
 * A field left out is clean air's (no smoke, CO or HCN; 0.04 % CO2, 20.9 % O2). Later hazards
 * cover earlier ones where they overlap. Everything the world would refuse is checked here
 * first, so the error points at the value (file:line:column). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/arena.h"
#include "sim/scene/scene_internal.h"
#include "throng/hazard.h"

#define FAIL(s, n, path, err, ...) th_scene_fail((s), (n), (path), (err), __VA_ARGS__)

/* The air fields of a mapping (the others are the caller's to check): those present replace
 * clean air's. */
static bool parse_air(th_scene *s, const th_ynode *n, const char *path, th_air *out,
                      th_error *err) {
    static const char *const name[5] = {"extinction", "co", "co2", "o2", "hcn"};
    static const double hi[5] = {1000.0, 1.0e6, 100.0, 100.0, 1.0e6};
    float *dst[5] = {&out->extinction, &out->co, &out->co2, &out->o2, &out->hcn};
    *out = th_clean_air();
    char sub[160];
    for (int k = 0; k < 5; k++) {
        const th_ynode *v = th_ynode_get(n, name[k]);
        if (!v) continue;
        snprintf(sub, sizeof sub, "%s.%s", path, name[k]);
        double d;
        if (!th_scene_float(s, v, sub, 0.0, hi[k], &d, err)) return false;
        *dst[k] = (float)d;
    }
    return true;
}

static bool parse_keys(th_scene *s, const th_ynode *n, const char *path, th_scene_hazard *h,
                       th_error *err) {
    if (!th_scene_expect(s, n, TH_Y_SEQUENCE, path, err)) return false;
    if (n->count == 0 || n->count > TH_MAX_HAZARD_KEYS) {
        return FAIL(s, n, path, err, "expected 1 to %u keys, found %u", TH_MAX_HAZARD_KEYS,
                    n->count);
    }
    h->keys = th_arena_alloc(&s->doc.arena, n->count * sizeof *h->keys);
    if (!h->keys) return TH_SCENE_NOMEM(s, n, path, err, "out of memory");
    static const char *const keys[] = {"time", "extinction", "co", "co2", "o2", "hcn", NULL};
    char sub[128], tpath[160];
    for (uint32_t i = 0; i < n->count; i++) {
        const th_ynode *e = n->items[i];
        snprintf(sub, sizeof sub, "%s[%u]", path, i);
        if (!th_scene_expect(s, e, TH_Y_MAPPING, sub, err) ||
            !th_scene_known_keys(s, e, sub, keys, err))
            return false;
        snprintf(tpath, sizeof tpath, "%s.time", sub);
        const th_ynode *t = th_ynode_get(e, "time");
        if (!t)
            return TH_SCENE_MISSING(s, e, tpath, err, "missing: every key has a time (seconds)");
        double d;
        if (!th_scene_float(s, t, tpath, 0.0, 1.0e9, &d, err)) return false;
        if (i > 0 && !((float)d > h->keys[i - 1].time)) {
            return FAIL(s, t, tpath, err,
                        "expected a time after the key before it (%g s), found %g s",
                        (double)h->keys[i - 1].time, d);
        }
        h->keys[i].time = (float)d;
        if (!parse_air(s, e, sub, &h->keys[i].air, err)) return false;
    }
    h->key_count = n->count;
    return true;
}

bool th_scene_parse_hazards(th_scene *s, const th_ynode *n, th_error *err) {
    if (!th_scene_expect(s, n, TH_Y_SEQUENCE, "hazards", err)) return false;
    if (!s->has_map && n->count > 0) {
        return FAIL(s, n, "hazards", err,
                    "hazards need a `map` (they cover its cells); this scene has open ground");
    }
    s->hazard = th_arena_alloc(&s->doc.arena, (n->count ? n->count : 1) * sizeof *s->hazard);
    if (!s->hazard) return TH_SCENE_NOMEM(s, n, "hazards", err, "out of memory");
    static const char *const keys[] = {"rect", "air", "keys", NULL};
    static const char *const air_keys[] = {"extinction", "co", "co2", "o2", "hcn", NULL};
    for (uint32_t i = 0; i < n->count; i++) {
        const th_ynode *e = n->items[i];
        char path[64], sub[96];
        snprintf(path, sizeof path, "hazards[%u]", i);
        if (!th_scene_expect(s, e, TH_Y_MAPPING, path, err) ||
            !th_scene_known_keys(s, e, path, keys, err))
            return false;
        th_scene_hazard *h = &s->hazard[i];
        memset(h, 0, sizeof *h);
        h->node = e;
        snprintf(sub, sizeof sub, "%s.rect", path);
        const th_ynode *r = th_ynode_get(e, "rect");
        if (!r)
            return TH_SCENE_MISSING(s, e, sub, err,
                                    "missing: expected [x, y, width, height] in metres");
        double d[4];
        if (th_scene_numbers(s, r, sub, 4, 0.0, TH_MAX_WORLD_DIM, d, err) < 0) return false;
        if (!(d[2] > 0.0 && d[3] > 0.0) || d[0] + d[2] > s->width || d[1] + d[3] > s->height) {
            return FAIL(
                s, r, sub, err,
                "expected [x, y, width, height] with a positive size inside the %g x %g m world, found [%g, %g, %g, %g]",
                (double)s->width, (double)s->height, d[0], d[1], d[2], d[3]);
        }
        /* It must cover a cell centre: the cells it covers are those whose centres lie inside. */
        const double cs = s->cell_size;
        if (ceil((d[0] + d[2]) / cs - 0.5) <= ceil(d[0] / cs - 0.5) ||
            ceil((d[1] + d[3]) / cs - 0.5) <= ceil(d[1] / cs - 0.5)) {
            return FAIL(s, r, sub, err,
                        "the rectangle [%g, %g, %g, %g] holds no cell centre of the %g m cells: "
                        "a hazard covers the cells whose centres lie inside it",
                        d[0], d[1], d[2], d[3], cs);
        }
        h->def = (th_hazard_def){(float)d[0], (float)d[1], (float)d[2], (float)d[3], NULL, 0};
        const th_ynode *air = th_ynode_get(e, "air"), *k = th_ynode_get(e, "keys");
        if (!air == !k) {
            return air ? FAIL(s, k, path, err,
                              "expected `air` (constant) or `keys` (at times), found both")
                       : TH_SCENE_MISSING(s, e, path, err,
                                          "missing: expected `air: {extinction, co, co2, o2, "
                                          "hcn}` or `keys: [{time, ...}, ...]`");
        }
        if (air) {
            snprintf(sub, sizeof sub, "%s.air", path);
            if (!th_scene_expect(s, air, TH_Y_MAPPING, sub, err) ||
                !th_scene_known_keys(s, air, sub, air_keys, err))
                return false;
            h->keys = th_arena_alloc(&s->doc.arena, sizeof *h->keys);
            if (!h->keys) return TH_SCENE_NOMEM(s, air, sub, err, "out of memory");
            h->keys[0].time = 0.0f;
            if (!parse_air(s, air, sub, &h->keys[0].air, err)) return false;
            h->key_count = 1;
        } else {
            snprintf(sub, sizeof sub, "%s.keys", path);
            if (!parse_keys(s, k, sub, h, err)) return false;
        }
        h->def.keys = h->keys;
        h->def.key_count = h->key_count;
        s->hazard_count++;
    }
    return true;
}

bool th_scene_build_hazards(th_world *w, const th_scene *s, th_error *err) {
    char path[64];
    for (uint32_t i = 0; i < s->hazard_count; i++) {
        if (!th_world_add_hazard(w, &s->hazard[i].def, err)) {
            snprintf(path, sizeof path, "hazards[%u]", i);
            return th_scene_refused(s, s->hazard[i].node, path, err);
        }
    }
    return true;
}
