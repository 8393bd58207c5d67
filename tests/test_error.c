/* Error codes: the one table (include/throng/error.h) is consistent, its lookups are safe for
 * any value, navigation results map into it, and each layer fills th_error's code and place. */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sim/nav/world_nav.h"
#include "test_util.h"

/* The table as the test sees it, expanded here on its own, so the lookups are checked against
 * the text of the table and not against themselves. */
typedef struct row {
    th_error_code code;
    int value;
    const char *name, *meaning;
} row;

#define ROW(name, value, meaning) {name, value, #name, meaning},
static const row k_rows[] = {TH_ERROR_CODES(ROW)};
#undef ROW
#define ROWS (sizeof k_rows / sizeof k_rows[0])

START_TEST(table_is_consistent) {
    ck_assert_int_eq(TH_OK, 0);
    ck_assert_int_eq(k_rows[0].code, TH_OK);
    for (size_t i = 0; i < ROWS; i++) {
        const row *r = &k_rows[i];
        /* Values run 0, 1, 2, ... in table order: no gaps, no repeats. */
        ck_assert_int_eq(r->value, (int)i);
        ck_assert_int_eq((int)r->code, r->value);
        ck_assert_str_eq(th_error_code_name(r->code), r->name);
        ck_assert_str_eq(th_error_code_message(r->code), r->meaning);
        ck_assert_msg(strncmp(r->name, i == 0 ? "TH_OK" : "TH_ERR_", i == 0 ? 5 : 7) == 0, "%s",
                      r->name);
        ck_assert_msg(strlen(r->meaning) > 5 && strlen(r->meaning) < 120, "%s: '%s'", r->name,
                      r->meaning);
        for (size_t j = 0; j < i; j++) {
            ck_assert_msg(strcmp(r->name, k_rows[j].name) != 0, "%s twice", r->name);
            ck_assert_msg(strcmp(r->meaning, k_rows[j].meaning) != 0, "%s and %s mean the same",
                          r->name, k_rows[j].name);
        }
    }
}
END_TEST

START_TEST(unknown_values_get_safe_strings) {
    const int bad[] = {-1, (int)ROWS, (int)ROWS + 1, 1000, -2147483647 - 1, 2147483647};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const th_error_code c = (th_error_code)bad[i];
        ck_assert_str_eq(th_error_code_name(c), "TH_ERR_UNKNOWN");
        ck_assert_str_eq(th_error_code_message(c), "unknown error code");
    }
}
END_TEST

START_TEST(nav_results_map_into_the_table) {
    const struct {
        th_nav_status rc;
        th_error_code want;
    } map[] = {
        {TH_NAV_OK, TH_OK},
        {TH_NAV_EINVAL, TH_ERR_INVALID},
        {TH_NAV_ERANGE, TH_ERR_INVALID},
        {TH_NAV_ENOMEM, TH_ERR_NOMEM},
        {TH_NAV_ENOPATH, TH_ERR_UNREACHABLE},
        {TH_NAV_ETOOLONG, TH_ERR_LIMIT},
        {TH_NAV_EDENIED, TH_ERR_BLOCKED},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        ck_assert_int_eq(th_nav_error_code(map[i].rc), map[i].want);
    /* A value the nav layer never returns still maps to a failure, never to TH_OK. */
    ck_assert_int_ne(th_nav_error_code((th_nav_status)-99), TH_OK);
}
END_TEST

/* An API error carries no place, even in a th_error that last held a scene error. */
START_TEST(api_errors_have_no_place) {
    char path[512];
    snprintf(path, sizeof path, "%s",
             th_test_write_text("scene.yaml", "name: t\nworld:\n  size: [10, 10]\n  sise: 3\n"));
    th_error err = {0};
    ck_assert_ptr_null(th_scene_load(path, NULL, NULL, &err));
    th_test_scene_error("misspelt key", &err, "scene.yaml", 4, 3, "world.sise", TH_ERR_SCENE_KEY);
    unlink(path);
    /* The file is gone: an I/O error, with no place in it. */
    ck_assert_ptr_null(th_scene_load(path, NULL, NULL, &err));
    TH_TEST_ERR(err, TH_ERR_IO);
    ck_assert_uint_eq(err.line, 0);

    th_world_def wd = th_default_world_def();
    wd.threads = 1;
    th_world *w = th_world_create(&wd, &err);
    ck_assert_ptr_nonnull(w);
    err.line = err.column = 7;
    ck_assert(
        !th_agent_id_valid(th_world_add_agent(w, CROWD_ID(3), th_v2(1, 1), th_v2(0, 0), &err)));
    TH_TEST_ERR(err, TH_ERR_HANDLE);
    ck_assert_uint_eq(err.line, 0);
    ck_assert_uint_eq(err.column, 0);
    /* No map: calls that need one say so with the state code. */
    ck_assert(!th_world_set_cell(w, 0, 0, TH_CELL_WALL, 1, &err));
    TH_TEST_ERR(err, TH_ERR_STATE);
    th_world_destroy(w);
}
END_TEST

/* A value the parser let through but the world refused is placed at its node and keeps the
 * world's code: a squad whose goal lies behind an unbroken wall has no route. */
START_TEST(world_refusal_keeps_its_code) {
    const char *path = th_test_write_text(
        "scene.yaml",
        "name: t\n"
        "map:\n"
        "  cell_size: 1\n"
        "  legend: {'#': wall, '.': open}\n"
        "  ascii: |\n"
        "    ..........#.........\n"
        "    ..........#.........\n"
        "    ..........#.........\n"
        "    ..........#.........\n"
        "    ..........#.........\n"
        "crowds:\n"
        "  - {name: a, count: 0}\n"
        "squads:\n"
        "  - {crowd: a, count: 1, formation: column, start: [2.5, 2.5], goal: [17.5, 2.5]}\n");
    th_error err = {0};
    th_world *w = th_scene_load(path, NULL, NULL, &err);
    if (w) th_world_destroy(w);
    ck_assert_ptr_null(w);
    th_test_scene_error("squad behind a wall", &err, "scene.yaml", 14, 5, "squads[0]",
                        TH_ERR_UNREACHABLE);
}
END_TEST

/* The message still says what failed: the code is the kind, the text the detail. */
START_TEST(code_and_message_agree) {
    th_world_def wd = th_default_world_def();
    wd.width = -1.0f;
    th_error err = {0};
    ck_assert_ptr_null(th_world_create(&wd, &err));
    TH_TEST_ERR(err, TH_ERR_INVALID);
    ck_assert_msg(strstr(err.message, "world size") != NULL, "%s", err.message);
}
END_TEST

int main(void) {
    if (!th_test_dir_make("error")) return EXIT_FAILURE;
    Suite *s = suite_create("error");
    TCase *tc = tcase_create("table");
    tcase_add_test(tc, table_is_consistent);
    tcase_add_test(tc, unknown_values_get_safe_strings);
    tcase_add_test(tc, nav_results_map_into_the_table);
    tcase_add_test(tc, api_errors_have_no_place);
    tcase_add_test(tc, world_refusal_keeps_its_code);
    tcase_add_test(tc, code_and_message_agree);
    suite_add_tcase(s, tc);
    const int rc = th_test_run(s);
    return th_test_dir_remove() ? rc : EXIT_FAILURE;
}
