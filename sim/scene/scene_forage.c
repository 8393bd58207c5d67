/* A crowd's `goal: {forage: ...}` in a scene file: ant-colony foraging (sim/behave/forage.c).
 *
 *     goal:
 *       forage:
 *         nest: {at: [x, y], radius: 2}
 *         food:
 *           - {at: [x, y], radius: 1.5, amount: 200}
 *         deposit: 1            # the rest are optional (th_forage_def has the defaults)
 *         evaporation: 0.05     # per second
 *         follow: 0.9           # probability per step
 *         sense_angle: 45       # degrees
 *         sense_distance: 2     # metres
 *         turn_rate: 360        # degrees per second
 *         sensitivity: 0.01
 *         wander_rate: 90       # degrees per square-root second
 *         cell_size: 1          # metres, without a map only
 *
 * As for the other goals, everything the world would refuse is checked here, so that an error
 * points at the value (file:line:column). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/arena.h"
#include "sim/scene/scene_internal.h"

#define FAIL(s, n, path, err, ...) th_scene_fail((s), (n), (path), (err), __VA_ARGS__)

/* {at: [x, y], radius: r} (and `amount` for food): a disc. */
static bool parse_disc(th_scene *s, const th_ynode *n, const char *path, bool food, th_vec2 *at,
                       float *radius, uint32_t *amount, th_error *err) {
    static const char *const nest_keys[] = {"at", "radius", NULL};
    static const char *const food_keys[] = {"at", "radius", "amount", NULL};
    char sub[224];
    if (!th_scene_expect(s, n, TH_Y_MAPPING, path, err) ||
        !th_scene_known_keys(s, n, path, food ? food_keys : nest_keys, err))
        return false;
    const th_ynode *v = th_ynode_get(n, "at");
    if (!v) return TH_SCENE_MISSING(s, n, path, err, "missing: at: [x, y], the centre in metres");
    snprintf(sub, sizeof sub, "%s.at", path);
    if (!th_scene_open_point(s, v, sub, "centre", at, err)) return false;
    if ((v = th_ynode_get(n, "radius"))) {
        double r;
        snprintf(sub, sizeof sub, "%s.radius", path);
        if (!th_scene_float(s, v, sub, 0.01, 1000.0, &r, err)) return false;
        *radius = (float)r;
    }
    if (food) {
        v = th_ynode_get(n, "amount");
        if (!v)
            return TH_SCENE_MISSING(s, n, path, err,
                                    "missing: amount, the units of food the source holds");
        uint64_t a;
        snprintf(sub, sizeof sub, "%s.amount", path);
        if (!th_scene_u64(s, v, sub, 0, 1000000000u, &a, err)) return false;
        *amount = (uint32_t)a;
    }
    return true;
}

bool th_scene_parse_forage(th_scene *s, th_scene_crowd *cr, const th_ynode *n, const char *path,
                           th_error *err) {
    static const char *const keys[] = {
        "nest",        "food",           "cell_size", "deposit",     "evaporation", "follow",
        "sense_angle", "sense_distance", "turn_rate", "sensitivity", "wander_rate", NULL};
    if (!th_scene_expect(s, n, TH_Y_MAPPING, path, err) ||
        !th_scene_known_keys(s, n, path, keys, err))
        return false;
    th_forage_def *f = th_arena_alloc(&s->doc.arena, sizeof *f);
    if (!f) return TH_SCENE_NOMEM(s, n, path, err, "out of memory");
    memset(f, 0, sizeof *f);
    char sub[192], item[208];
    const th_ynode *v = th_ynode_get(n, "nest");
    if (!v) return TH_SCENE_MISSING(s, n, path, err, "missing: nest: {at: [x, y], radius: r}");
    snprintf(sub, sizeof sub, "%s.nest", path);
    if (!parse_disc(s, v, sub, false, &f->nest, &f->nest_radius, NULL, err)) return false;

    v = th_ynode_get(n, "food");
    if (!v)
        return TH_SCENE_MISSING(s, n, path, err,
                                "missing: food: a list of {at: [x, y], amount: n}");
    snprintf(sub, sizeof sub, "%s.food", path);
    if (!th_scene_expect(s, v, TH_Y_SEQUENCE, sub, err)) return false;
    if (v->count < 1 || v->count > TH_MAX_FOOD_SOURCES) {
        return FAIL(s, v, sub, err, "expected 1 to %d food sources, found %u", TH_MAX_FOOD_SOURCES,
                    v->count);
    }
    th_food_source *food = th_arena_alloc(&s->doc.arena, v->count * sizeof *food);
    if (!food) return TH_SCENE_NOMEM(s, v, sub, err, "out of memory");
    for (uint32_t i = 0; i < v->count; i++) {
        snprintf(item, sizeof item, "%s[%u]", sub, i);
        food[i] = (th_food_source){th_v2(0.0f, 0.0f), 0.0f, 0};
        if (!parse_disc(s, v->items[i], item, true, &food[i].at, &food[i].radius, &food[i].amount,
                        err))
            return false;
    }
    f->food = food;
    f->food_count = v->count;

    if ((v = th_ynode_get(n, "cell_size"))) {
        snprintf(sub, sizeof sub, "%s.cell_size", path);
        double cs;
        if (!th_scene_float(s, v, sub, 0.1, 100.0, &cs, err)) return false;
        if (s->has_map && fabs(cs - (double)s->cell_size) > 1e-6 * (double)s->cell_size) {
            return FAIL(s, v, sub, err,
                        "with a map the pheromone cells are the map's (%g m); "
                        "drop cell_size or make it %g",
                        (double)s->cell_size, (double)s->cell_size);
        }
        const double cells = ceil((double)s->width / cs) * ceil((double)s->height / cs);
        if (cells > (double)(1u << 24)) {
            return FAIL(s, v, sub, err,
                        "a pheromone grid of %g m cells over the %g x %g m world "
                        "would have %.0f cells, more than %u",
                        cs, (double)s->width, (double)s->height, cells, 1u << 24);
        }
        f->cell_size = (float)cs;
    } else if (!s->has_map &&
               ceil((double)s->width) * ceil((double)s->height) > (double)(1u << 24)) {
        return FAIL(s, n, path, err,
                    "the world is too large for 1 m pheromone cells (more than "
                    "%u); give a larger cell_size",
                    1u << 24);
    }

    /* The tunables: name, bounds (lo excluded), where the value goes. */
    const struct {
        const char *name;
        double lo, hi;
        float *out;
    } nums[] = {
        {"deposit", 0.0, 1e6, &f->deposit},
        {"evaporation", 0.0, 100.0, &f->evaporation},
        {"follow", 0.0, 1.0, &f->follow},
        {"sense_angle", 0.0, 90.0, &f->sense_angle},
        {"sense_distance", 0.0, 100.0, &f->sense_distance},
        {"turn_rate", 0.0, 100000.0, &f->turn_rate},
        {"sensitivity", 0.0, 1e6, &f->sensitivity},
        {"wander_rate", 0.0, 10000.0, &cr->def.goal.wander_rate},
    };
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        if (!(v = th_ynode_get(n, nums[i].name))) continue;
        snprintf(sub, sizeof sub, "%s.%s", path, nums[i].name);
        double x;
        if (!th_scene_float(s, v, sub, nums[i].lo, nums[i].hi, &x, err)) return false;
        /* Zero means "the default" to the API; here it is a value out of range. */
        if (!(x > nums[i].lo)) {
            return FAIL(s, v, sub, err, "expected a number in (%g, %g], found %g", nums[i].lo,
                        nums[i].hi, x);
        }
        *nums[i].out = (float)x;
    }
    cr->def.goal.kind = TH_GOAL_FORAGE;
    cr->def.goal.forage = f;
    return true;
}
