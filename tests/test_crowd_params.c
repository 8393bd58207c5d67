/* The crowd parameter table (sim/core/crowd_params.h) is the one description of a crowd's numeric
 * keys: for every row, the scene parser and th_world_add_crowd accept a value just inside each
 * bound and refuse one just outside it (the float next to the bound), naming the key; the
 * th_default_*_def() functions give the table's defaults. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/core/crowd_params.h"
#include "sim/scene/scene_internal.h"
#include "test_util.h"

/* ---- defaults ---------------------------------------------------------------------------- */

START_TEST(defaults_agree_with_the_table) {
    th_crowd_def boids = th_default_crowd_def(), ped = th_default_pedestrian_def();
    ck_assert_int_eq(boids.model, TH_MODEL_BOIDS);
    ck_assert_int_eq(ped.model, TH_MODEL_PEDESTRIAN);
    for (uint32_t i = 0; i < th_crowd_param_count; i++) {
        const th_crowd_param *p = &th_crowd_params[i];
        ck_assert_msg(*th_crowd_param_field(p, &boids) == p->def_boids,
                      "%s: boids default %g, table %g", p->key,
                      (double)*th_crowd_param_field(p, &boids), (double)p->def_boids);
        ck_assert_msg(*th_crowd_param_field(p, &ped) == p->def_ped,
                      "%s: pedestrian default %g, table %g", p->key,
                      (double)*th_crowd_param_field(p, &ped), (double)p->def_ped);
        /* a default lies inside its own range */
        ck_assert_msg(th_crowd_param_ok(p, p->def_boids) && th_crowd_param_ok(p, p->def_ped),
                      "%s: a default is outside its range", p->key);
    }
    /* both defaults are accepted by the API as they are */
    th_world *w = th_world_create(
        &(th_world_def){
            .width = 100, .height = 100, .timestep = 1.0f / 60, .seed = 1, .threads = 1},
        NULL);
    ck_assert_ptr_nonnull(w);
    th_error err;
    ck_assert_msg(IDX(th_world_add_crowd(w, &boids, &err)) == 0, "%s", err.message);
    ck_assert_msg(IDX(th_world_add_crowd(w, &ped, &err)) == 1, "%s", err.message);
    th_world_destroy(w);
}
END_TEST

/* The table's rows are distinct, and th_crowd_param_find finds each. */
START_TEST(rows_are_distinct) {
    ck_assert_uint_ge(th_crowd_param_count, 25);
    for (uint32_t i = 0; i < th_crowd_param_count; i++) {
        const th_crowd_param *p = &th_crowd_params[i];
        ck_assert_ptr_eq(th_crowd_param_find(p->key), p);
        ck_assert(p->lo < p->hi);
        for (uint32_t j = 0; j < i; j++) {
            ck_assert_str_ne(th_crowd_params[j].key, p->key);
            ck_assert_uint_ne(th_crowd_params[j].offset, p->offset);
        }
    }
    ck_assert_ptr_null(th_crowd_param_find("no_such_key"));
}
END_TEST

/* ---- bounds, parser and API -------------------------------------------------------------- */

/* Values that keep the cross-key rules (desired_speed_sd <= desired_speed <= max_speed) out of
 * the way while row `p` is set to `v`. */
typedef struct fixup {
    const char *key;
    float v;
} fixup;

static uint32_t fixups(const th_crowd_param *p, bool ped, float v, fixup *f) {
    if (!ped) return 0;
    if (strcmp(p->key, "max_speed") == 0) {
        f[0] = (fixup){"desired_speed", v};
        f[1] = (fixup){"desired_speed_sd", 0};
        return 2;
    }
    if (strcmp(p->key, "desired_speed") == 0) {
        f[0] = (fixup){"max_speed", 1000};
        f[1] = (fixup){"desired_speed_sd", 0};
        return 2;
    }
    if (strcmp(p->key, "desired_speed_sd") == 0) {
        f[0] = (fixup){"max_speed", 1000};
        f[1] = (fixup){"desired_speed", 1000};
        return 2;
    }
    return 0;
}

/* Row p set to v in a crowd of `model`, through a scene file: accepted (with v read exactly)
 * or refused at the key's line and column, naming it. */
static void check_scene(const th_crowd_param *p, bool ped, float v, bool want_ok) {
    char yaml[1024];
    fixup f[2];
    const uint32_t nf = fixups(p, ped, v, f);
    int n =
        snprintf(yaml, sizeof yaml, "name: t\nworld:\n  size: [100, 100]\ncrowds:\n  - name: a\n%s",
                 ped ? "    model: pedestrian\n" : "");
    unsigned line = ped ? 7 : 6;
    for (uint32_t k = 0; k < nf; k++, line++)
        n +=
            snprintf(yaml + n, sizeof yaml - (size_t)n, "    %s: %.9g\n", f[k].key, (double)f[k].v);
    n += snprintf(yaml + n, sizeof yaml - (size_t)n, "    %s: %.9g\n", p->key, (double)v);
    th_scene s;
    th_error err = {0};
    const bool ok = th_scene_parse_memory(&s, "t.yaml", yaml, (size_t)n, &err);
    if (want_ok) {
        ck_assert_msg(ok, "%s = %.9g (%s) refused by the parser: %s", p->key, (double)v,
                      ped ? "pedestrian" : "boids", err.message);
        th_crowd_def d = s.crowd[0].def;
        ck_assert_msg(*th_crowd_param_field(p, &d) == v, "%s read as %.9g, written %.9g", p->key,
                      (double)*th_crowd_param_field(p, &d), (double)v);
    } else {
        char key[96];
        snprintf(key, sizeof key, "crowds[0].%s", p->key);
        ck_assert_msg(!ok, "%s = %.9g (%s) accepted by the parser", p->key, (double)v,
                      ped ? "pedestrian" : "boids");
        th_test_scene_error(p->key, &err, "t.yaml", line, (unsigned)strlen(p->key) + 7, key,
                            TH_ERR_SCENE_VALUE);
    }
    th_scene_free(&s);
}

/* The same through th_world_add_crowd: accepted, or refused naming the field and its range. */
static void check_api(const th_crowd_param *p, bool ped, float v, bool want_ok) {
    th_world *w = th_world_create(
        &(th_world_def){
            .width = 100, .height = 100, .timestep = 1.0f / 60, .seed = 1, .threads = 1},
        NULL);
    ck_assert_ptr_nonnull(w);
    th_crowd_def d = ped ? th_default_pedestrian_def() : th_default_crowd_def();
    fixup f[2];
    const uint32_t nf = fixups(p, ped, v, f);
    for (uint32_t k = 0; k < nf; k++)
        *th_crowd_param_field(th_crowd_param_find(f[k].key), &d) = f[k].v;
    *th_crowd_param_field(p, &d) = v;
    th_error err = {0};
    const int got = IDX(th_world_add_crowd(w, &d, &err));
    if (want_ok) {
        ck_assert_msg(got == 0, "%s = %.9g (%s) refused by the API: %s", p->field, (double)v,
                      ped ? "pedestrian" : "boids", err.message);
    } else {
        char range[64];
        th_crowd_param_range(p, range, sizeof range);
        ck_assert_msg(got == -1, "%s = %.9g (%s) accepted by the API", p->field, (double)v,
                      ped ? "pedestrian" : "boids");
        TH_TEST_ERR(err, TH_ERR_INVALID);
        ck_assert_msg(strncmp(err.message, p->field, strlen(p->field)) == 0 &&
                          strstr(err.message, range) != NULL,
                      "expected '%s' and '%s' in: %s", p->field, range, err.message);
    }
    th_world_destroy(w);
}

START_TEST(each_bound_holds_in_parser_and_api) {
    const th_crowd_param *p = &th_crowd_params[_i];
    /* The floats on either side of each bound, found by stepping from the bound's own float
     * (0.05 is not a float: [0.05, ...] starts at the float above it). */
    const float lo = (float)p->lo, hi = (float)p->hi;
    float lo_in = lo;
    if (p->lo_open ? !((double)lo_in > p->lo) : !((double)lo_in >= p->lo))
        lo_in = nextafterf(lo, INFINITY);
    const float lo_out = nextafterf(lo_in, -INFINITY);
    float hi_in = hi;
    if (p->hi_open ? !((double)hi_in < p->hi) : !((double)hi_in <= p->hi))
        hi_in = nextafterf(hi, -INFINITY);
    const float hi_out = nextafterf(hi_in, INFINITY);
    const float in[] = {lo_in, hi_in}, out[] = {lo_out, hi_out, NAN, INFINITY};
    for (int ped = 0; ped < 2; ped++) {
        if (p->model == TH_PARAM_PED && !ped) continue;
        for (size_t k = 0; k < sizeof in / sizeof in[0]; k++) {
            check_scene(p, ped, in[k], true);
            check_api(p, ped, in[k], true);
        }
        for (size_t k = 0; k < sizeof out / sizeof out[0]; k++) {
            if (isfinite(out[k]))
                check_scene(p, ped, out[k], false); /* YAML has no NaN syntax here */
            check_api(p, ped, out[k], false);
        }
    }
}
END_TEST

/* A pedestrian-model row on a boids crowd: the parser refuses the key (it would be ignored),
 * the API ignores the field, as th_crowd_def documents. */
START_TEST(pedestrian_rows_on_a_boids_crowd) {
    uint32_t rows = 0;
    for (uint32_t i = 0; i < th_crowd_param_count; i++) {
        const th_crowd_param *p = &th_crowd_params[i];
        if (p->model != TH_PARAM_PED) continue;
        rows++;
        char yaml[256], where[160];
        int n = snprintf(yaml, sizeof yaml,
                         "name: t\nworld:\n  size: [100, 100]\ncrowds:\n"
                         "  - name: a\n    %s: %.9g\n",
                         p->key, (double)p->def_ped);
        th_scene s;
        th_error err = {0};
        ck_assert(!th_scene_parse_memory(&s, "t.yaml", yaml, (size_t)n, &err));
        snprintf(where, sizeof where, "t.yaml:6:%zu: crowds[0].%s: '%s' is a pedestrian-model key",
                 strlen(p->key) + 7, p->key, p->key);
        TH_TEST_ERR(err, TH_ERR_SCENE_VALUE);
        ck_assert_msg(strstr(err.message, where) != NULL, "expected '%s' in: %s", where,
                      err.message);
        th_scene_free(&s);
        check_api(p, false, -1.0f, true);
    }
    ck_assert_uint_eq(rows, 10);
}
END_TEST

int main(void) {
    Suite *s = suite_create("crowd_params");
    TCase *tc = tcase_create("table");
    tcase_add_test(tc, defaults_agree_with_the_table);
    tcase_add_test(tc, rows_are_distinct);
    tcase_add_loop_test(tc, each_bound_holds_in_parser_and_api, 0, (int)th_crowd_param_count);
    tcase_add_test(tc, pedestrian_rows_on_a_boids_crowd);
    suite_add_tcase(s, tc);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? 1 : 0;
}
