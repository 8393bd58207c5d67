/* Typed handles at the API boundary: adders hand out {1}, {2}, ... in order (null on failure),
 * and every call taking a crowd, bunker, target, squad, destination field, measurement area or
 * line, spawner or exit handle refuses the null handle and one the world never issued, with
 * TH_ERR_HANDLE and a message naming the kind, or the false, NULL, 0 or INFINITY its
 * documentation gives. (That one kind cannot be passed for another is checked at compile
 * time: compile_fail_handles.c.) */
#include <math.h>

#include "test_util.h"

/* A 40 x 40 m world of 1 m cells, all open, with two bunkers, one point target, one crowd with
 * one agent, one destination field and one squad: one of each kind, so that handle {2} is
 * out of range for every kind. */
typedef struct fixture {
    th_world *w;
    th_crowd_id crowd;
    th_bunker_id bunker[2];
    th_target_id target;
    th_field_id field;
    th_squad_id squad;
    th_agent_id agent;
} fixture;

static fixture make(void) {
    fixture f = {0};
    th_error err;
    th_world_def wd = th_default_world_def();
    wd.width = wd.height = 40.0f;
    wd.cell_size = 1.0f;
    wd.threads = 1;
    f.w = th_world_create(&wd, &err);
    ck_assert_msg(f.w != NULL, "%s", err.message);
    const th_bunker_def b0 = {.name = "west", .x0 = 1, .y0 = 18, .x1 = 2, .y1 = 21};
    const th_bunker_def b1 = {.name = "east", .x0 = 37, .y0 = 18, .x1 = 38, .y1 = 21};
    f.bunker[0] = th_world_add_bunker(f.w, &b0, &err);
    ck_assert_msg(f.bunker[0].index1 == 1, "%s", err.message);
    f.bunker[1] = th_world_add_bunker(f.w, &b1, &err);
    ck_assert_msg(f.bunker[1].index1 == 2, "%s", err.message);
    const th_target_def td = {.kind = TH_TARGET_POINT, .position = {20, 20}};
    f.target = th_world_add_target(f.w, &td, &err);
    ck_assert_msg(f.target.index1 == 1, "%s", err.message);
    const th_destination goal = {20, 38, 0.0f};
    f.field = th_world_add_destinations(f.w, &goal, 1, &err);
    ck_assert_msg(f.field.index1 == 1, "%s", err.message);
    th_crowd_def cd = th_default_crowd_def();
    cd.target = f.target;
    f.crowd = th_world_add_crowd(f.w, &cd, &err);
    ck_assert_msg(f.crowd.index1 == 1, "%s", err.message);
    f.agent = th_world_add_agent(f.w, f.crowd, th_v2(10, 10), th_v2(0, 0), &err);
    /* Agent ids are {slot + 1, generation}: compared with th_agent_id_eq, not as numbers. */
    ck_assert_msg(th_agent_id_eq(f.agent, th_test_id(0)), "%s", err.message);
    ck_assert_uint_eq(th_world_agent_count(f.w), 1);
    th_squad_def sd = th_default_squad_def();
    sd.crowd = f.crowd;
    sd.count = 4;
    sd.start = th_v2(20, 10);
    sd.goal = th_v2(20, 30);
    f.squad = th_world_add_squad(f.w, &sd, &err);
    ck_assert_msg(f.squad.index1 == 1, "%s", err.message);
    return f;
}

/* `err` was filled by a refused handle: TH_ERR_HANDLE, with `fragment` naming the kind. */
static void refused(const th_error *err, const char *fragment) {
    TH_TEST_ERR(*err, TH_ERR_HANDLE);
    ck_assert_msg(strstr(err->message, fragment) != NULL, "expected '%s' in: '%s'", fragment,
                  err->message);
}

START_TEST(handles_count_from_one_in_order_and_iterate) {
    fixture f = make();
    th_error err;
    /* A second crowd is {2}; the i-th crowd (from 0) is {i + 1} for i below the count. */
    th_crowd_def cd = th_default_crowd_def();
    cd.name = "second";
    const th_crowd_id second = th_world_add_crowd(f.w, &cd, &err);
    ck_assert_uint_eq(second.index1, 2);
    ck_assert(th_crowd_id_valid(second));
    ck_assert_uint_eq(th_world_crowd_count(f.w), 2);
    const char *names[] = {"crowd", "second"};
    for (uint32_t i = 0; i < th_world_crowd_count(f.w); i++) {
        const th_crowd_def *d = th_world_get_crowd(f.w, (th_crowd_id){i + 1});
        ck_assert_ptr_nonnull(d);
        ck_assert_str_eq(d->name, names[i]);
    }
    /* The stored def keeps the target handle it was given. */
    ck_assert_uint_eq(th_world_get_crowd(f.w, f.crowd)->target.index1, f.target.index1);
    /* Lookups return handles. */
    ck_assert_uint_eq(th_world_find_bunker(f.w, "east").index1, 2);
    ck_assert(!th_bunker_id_valid(th_world_find_bunker(f.w, "north")));
    th_agent_state st;
    ck_assert(th_world_get_agent(f.w, f.agent, &st));
    ck_assert_uint_eq(st.crowd.index1, f.crowd.index1);
    th_world_step(f.w);
    ck_assert_uint_eq(th_world_nearest_bunker(f.w, th_v2(5.5f, 20.5f)).index1, 1);
    ck_assert_uint_eq(th_world_nearest_bunker(f.w, th_v2(34.5f, 20.5f)).index1, 2);
    ck_assert(!th_bunker_id_valid(th_world_nearest_bunker(f.w, th_v2(-1, 20))));
    /* A failed add gives the null handle. */
    cd.max_speed = -1.0f;
    ck_assert(!th_crowd_id_valid(th_world_add_crowd(f.w, &cd, &err)));
    ck_assert(
        !th_bunker_id_valid(th_world_add_bunker(f.w, &(th_bunker_def){.name = "west"}, &err)));
    ck_assert(!th_target_id_valid(
        th_world_add_target(f.w, &(th_target_def){.kind = (th_target_kind)9}, &err)));
    ck_assert(!th_field_id_valid(th_world_add_destinations(f.w, NULL, 0, &err)));
    th_squad_def sd = th_default_squad_def();
    sd.crowd = f.crowd; /* count 0 */
    ck_assert(!th_squad_id_valid(th_world_add_squad(f.w, &sd, &err)));
    /* Defaults that name nothing are null. */
    ck_assert(!th_target_id_valid(th_default_crowd_def().target));
    ck_assert(!th_field_id_valid(th_default_crowd_def().goal.field));
    ck_assert(!th_target_id_valid(th_default_crowd_def().goal.target));
    ck_assert(!th_crowd_id_valid(th_default_squad_def().crowd));
    ck_assert(!th_crowd_id_valid(th_default_spawner_def().crowd));
    ck_assert(!th_field_id_valid(th_default_exit_def().field));
    th_world_destroy(f.w);
}
END_TEST

START_TEST(crowd_handles_refused) {
    fixture f = make();
    const th_crowd_id null = {0}, unknown = {2}, huge = {UINT32_MAX};
    const th_crowd_id bad[] = {null, unknown, huge};
    th_error err;
    const uint32_t agents = th_world_agent_count(f.w); /* the fixture's agent and 4 members */
    ck_assert_uint_eq(agents, 5);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const th_crowd_id c = bad[i];
        err = (th_error){0};
        th_world_add_agent(f.w, c, th_v2(5, 5), th_v2(0, 0), &err);
        ck_assert_uint_eq(th_world_agent_count(f.w), agents);
        refused(&err, c.index1 ? "no crowd" : "null crowd handle");
        ck_assert_ptr_null(th_world_get_crowd(f.w, c));
        ck_assert(!th_world_waypoint_hop(f.w, c, 0, 0, NULL, NULL));
        ck_assert_uint_eq(th_world_breadcrumbs(f.w, c, NULL, 0), 0);
        th_forage_info fi;
        th_food_info food;
        ck_assert(!th_world_get_forage(f.w, c, &fi));
        ck_assert(!th_world_get_food_source(f.w, c, 0, &food));
        ck_assert_ptr_null(th_world_pheromone(f.w, c, NULL, NULL, NULL));
        err = (th_error){0};
        ck_assert(!th_world_add_pheromone(f.w, c, th_v2(5, 5), 1.0f, &err));
        refused(&err, c.index1 ? "no crowd" : "null crowd handle");
        /* Defs that name a crowd. */
        th_squad_def sd = th_default_squad_def();
        sd.crowd = c;
        sd.count = 2;
        sd.start = th_v2(10, 30);
        sd.goal = th_v2(30, 30);
        err = (th_error){0};
        ck_assert(!th_squad_id_valid(th_world_add_squad(f.w, &sd, &err)));
        refused(&err, c.index1 ? "no crowd" : "null crowd handle");
        th_spawner_def sp = th_default_spawner_def();
        sp.crowd = c;
        sp.x0 = sp.y0 = 5, sp.x1 = sp.y1 = 10, sp.rate = 1.0;
        err = (th_error){0};
        ck_assert(!th_spawner_id_valid(th_world_add_spawner(f.w, &sp, &err)));
        refused(&err, c.index1 ? "spawner: no crowd" : "spawner: no crowd given");
        th_exit_def ed = th_default_exit_def();
        ed.x0 = ed.y0 = 5, ed.x1 = ed.y1 = 10;
        const th_crowd_id list[2] = {f.crowd, c};
        ed.crowds = list, ed.crowd_count = 2;
        err = (th_error){0};
        ck_assert(!th_exit_id_valid(th_world_add_exit(f.w, &ed, &err)));
        refused(&err, c.index1 ? "exit: no crowd" : "crowds[1] is the null handle");
    }
    /* A good handle works in the same calls. */
    th_world_add_agent(f.w, f.crowd, th_v2(5, 5), th_v2(0, 0), &err);
    ck_assert_uint_eq(th_world_agent_count(f.w), agents + 1);
    ck_assert_ptr_nonnull(th_world_get_crowd(f.w, f.crowd));
    ck_assert_uint_eq(th_world_spawner_count(f.w), 0);
    ck_assert_uint_eq(th_world_exit_count(f.w), 0);
    th_world_destroy(f.w);
}
END_TEST

START_TEST(bunker_handles_refused) {
    fixture f = make();
    th_world_step(f.w);
    const th_bunker_id bad[] = {{0}, {3}, {UINT32_MAX}};
    th_error err;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const th_bunker_id b = bad[i];
        const char *why = b.index1 ? "no bunker" : "null bunker handle";
        th_bunker_info bi;
        ck_assert(!th_world_get_bunker(f.w, b, &bi));
        th_vec2 dir = th_v2(9, 9);
        ck_assert(!th_world_bunker_flow(f.w, b, th_v2(20.5f, 20.5f), &dir));
        ck_assert(dir.x == 0.0f && dir.y == 0.0f);
        err = (th_error){0};
        ck_assert(!th_world_destroy_bunker(f.w, b, &err));
        refused(&err, why);
        err = (th_error){0};
        ck_assert(!th_world_restore_bunker(f.w, b, &err));
        refused(&err, why);
        const th_event_def ev = {.type = TH_EVENT_DESTROY_BUNKER, .bunker = b};
        err = (th_error){0};
        ck_assert(!th_world_schedule(f.w, 5, &ev, &err));
        refused(&err, why);
    }
    ck_assert_uint_eq(th_world_pending_events(f.w), 0);
    th_bunker_info bi;
    ck_assert(th_world_get_bunker(f.w, f.bunker[1], &bi));
    ck_assert_str_eq(bi.name, "east");
    ck_assert(th_world_destroy_bunker(f.w, f.bunker[1], &err));
    th_world_step(f.w);
    ck_assert(th_world_get_bunker(f.w, f.bunker[1], &bi) && bi.destroyed);
    th_world_destroy(f.w);
}
END_TEST

START_TEST(target_handles_refused) {
    fixture f = make();
    th_error err;
    th_world_step(f.w);
    th_vec2 p, v;
    ck_assert(th_world_get_target(f.w, f.target, &p, &v));
    ck_assert(p.x == 20.0f && p.y == 20.0f);
    ck_assert(!th_world_get_target(f.w, (th_target_id){0}, &p, &v));
    ck_assert(!th_world_get_target(f.w, (th_target_id){2}, &p, &v));
    ck_assert(!th_world_get_target(f.w, (th_target_id){UINT32_MAX}, &p, &v));
    /* A crowd's target: null is "no leaders", an unknown one is refused. */
    th_crowd_def cd = th_default_crowd_def();
    cd.target = (th_target_id){2};
    err = (th_error){0};
    ck_assert(!th_crowd_id_valid(th_world_add_crowd(f.w, &cd, &err)));
    refused(&err, "no target 1");
    cd.target = (th_target_id){UINT32_MAX};
    err = (th_error){0};
    ck_assert(!th_crowd_id_valid(th_world_add_crowd(f.w, &cd, &err)));
    refused(&err, "no target");
    cd.target = (th_target_id){0};
    ck_assert(th_crowd_id_valid(th_world_add_crowd(f.w, &cd, &err)));
    /* A breadcrumb goal needs a target: null and unknown are refused. */
    cd.goal = (th_goal_def){.kind = TH_GOAL_BREADCRUMBS};
    err = (th_error){0};
    ck_assert(!th_crowd_id_valid(th_world_add_crowd(f.w, &cd, &err)));
    refused(&err, "goal breadcrumbs: no target given");
    cd.goal.target = (th_target_id){2};
    err = (th_error){0};
    ck_assert(!th_crowd_id_valid(th_world_add_crowd(f.w, &cd, &err)));
    refused(&err, "goal breadcrumbs: target 1");
    cd.goal.target = f.target;
    ck_assert_msg(th_crowd_id_valid(th_world_add_crowd(f.w, &cd, &err)), "%s", err.message);
    th_world_destroy(f.w);
}
END_TEST

START_TEST(squad_handles_refused) {
    fixture f = make();
    th_error err;
    const th_squad_id bad[] = {{0}, {2}, {UINT32_MAX}};
    th_crowd_def cd = th_default_crowd_def();
    cd.name = "loose";
    const th_crowd_id loose = th_world_add_crowd(f.w, &cd, &err);
    const th_agent_id a = th_world_add_agent(f.w, loose, th_v2(30, 5), th_v2(0, 0), &err);
    ck_assert(th_agent_id_eq(a, th_test_id(5))); /* after the fixture's agent and 4 members */
    ck_assert_uint_eq(th_world_agent_count(f.w), 6);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const th_squad_id q = bad[i];
        th_squad_info si;
        th_agent_id id;
        th_vec2 at;
        ck_assert(!th_world_get_squad(f.w, q, &si));
        ck_assert(!th_world_get_squad_member(f.w, q, 0, &id, &at));
        ck_assert(!th_world_squad_waypoint(f.w, q, 0, &at));
        err = (th_error){0};
        ck_assert(!th_world_squad_join(f.w, q, a, &err));
        refused(&err, q.index1 ? "no squad" : "null squad handle");
    }
    th_squad_info si;
    ck_assert(th_world_get_squad(f.w, f.squad, &si));
    ck_assert_uint_eq(si.members, 4);
    ck_assert(th_world_squad_join(f.w, f.squad, a, &err));
    ck_assert(th_world_get_squad(f.w, f.squad, &si));
    ck_assert_uint_eq(si.members, 5);
    th_world_destroy(f.w);
}
END_TEST

START_TEST(field_handles_refused) {
    fixture f = make();
    th_error err;
    const th_field_id bad[] = {{0}, {2}, {UINT32_MAX}};
    th_vec2 path[128];
    uint32_t n = 0;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const th_field_id fl = bad[i];
        th_vec2 dir = th_v2(9, 9);
        ck_assert(!th_world_destination_flow(f.w, fl, th_v2(20.5f, 20.5f), &dir));
        ck_assert(dir.x == 0.0f && dir.y == 0.0f);
        ck_assert(isinf(th_world_destination_cost(f.w, fl, th_v2(20.5f, 20.5f))));
        err = (th_error){0};
        ck_assert(!th_world_destination_path(f.w, fl, th_v2(20.5f, 20.5f), path, 128, &n, &err));
        refused(&err, fl.index1 ? "no destination field" : "null destination field handle");
        th_crowd_def cd = th_default_crowd_def();
        cd.goal = (th_goal_def){.kind = TH_GOAL_DESTINATIONS, .field = fl};
        err = (th_error){0};
        ck_assert(!th_crowd_id_valid(th_world_add_crowd(f.w, &cd, &err)));
        refused(&err, fl.index1 ? "goal destinations: no destination field"
                                : "goal destinations: no destination field given");
    }
    /* An exit over an unknown field is refused; a null field means "not from a field". */
    th_exit_def ed = th_default_exit_def();
    ed.x0 = ed.y0 = 5, ed.x1 = ed.y1 = 10;
    ed.field = (th_field_id){2};
    err = (th_error){0};
    ck_assert(!th_exit_id_valid(th_world_add_exit(f.w, &ed, &err)));
    refused(&err, "exit: no destination field 1");
    ed.field = (th_field_id){0};
    ck_assert_uint_eq(th_world_add_exit(f.w, &ed, &err).index1, 1);
    ed.field = f.field;
    ck_assert_uint_eq(th_world_add_exit(f.w, &ed, &err).index1, 2);
    /* The good handle: the path from (20.5, 20.5) runs straight north to goal cell (20, 38). */
    ck_assert_msg(th_world_destination_path(f.w, f.field, th_v2(20.5f, 20.5f), path, 128, &n, &err),
                  "%s", err.message);
    ck_assert_uint_eq(n, 19);
    ck_assert(path[n - 1].x == 20.5f && path[n - 1].y == 38.5f);
    ck_assert_float_eq_tol(th_world_destination_cost(f.w, f.field, th_v2(20.5f, 20.5f)), 18.0f,
                           1e-3f);
    th_world_destroy(f.w);
}
END_TEST

START_TEST(measure_spawner_exit_handles_refused) {
    fixture f = make();
    th_error err;
    const th_measure_area_def ad = {.name = "hall", .x0 = 0, .y0 = 0, .x1 = 20, .y1 = 20};
    const th_measure_line_def ld = {.name = "door", .a = {20, 0}, .b = {20, 40}};
    const th_measure_area_id area = th_world_add_measure_area(f.w, &ad, &err);
    ck_assert_msg(area.index1 == 1, "%s", err.message);
    const th_measure_line_id line = th_world_add_measure_line(f.w, &ld, &err);
    ck_assert_msg(line.index1 == 1, "%s", err.message);
    /* A taken name fails: the null handle. */
    ck_assert(!th_measure_area_id_valid(th_world_add_measure_area(f.w, &ad, &err)));
    ck_assert(!th_measure_line_id_valid(th_world_add_measure_line(f.w, &ld, &err)));
    th_spawner_def sp = th_default_spawner_def();
    sp.crowd = f.crowd;
    sp.cells = &(th_cell_ref){5, 5}, sp.cell_count = 1, sp.rate = 1.0;
    const th_spawner_id spawner = th_world_add_spawner(f.w, &sp, &err);
    ck_assert_msg(spawner.index1 == 1, "%s", err.message);
    th_exit_def ed = th_default_exit_def();
    ed.cells = &(th_cell_ref){30, 5}, ed.cell_count = 1;
    const th_exit_id exit = th_world_add_exit(f.w, &ed, &err);
    ck_assert_msg(exit.index1 == 1, "%s", err.message);
    th_measure_area_info ai;
    th_measure_line_info li;
    th_spawner_info si;
    th_exit_info ei;
    ck_assert(th_world_get_measure_area(f.w, area, &ai) && strcmp(ai.name, "hall") == 0);
    ck_assert(th_world_get_measure_line(f.w, line, &li) && strcmp(li.name, "door") == 0);
    ck_assert(th_world_get_spawner(f.w, spawner, &si) && si.crowd.index1 == f.crowd.index1);
    ck_assert(th_world_get_exit(f.w, exit, &ei));
    ck_assert(th_world_spawner_covers(f.w, spawner, 5, 5));
    ck_assert(th_world_exit_covers(f.w, exit, 30, 5));
    const uint32_t bad[] = {0, 2, UINT32_MAX};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert(!th_world_get_measure_area(f.w, (th_measure_area_id){bad[i]}, &ai));
        ck_assert(!th_world_get_measure_line(f.w, (th_measure_line_id){bad[i]}, &li));
        ck_assert(!th_world_get_spawner(f.w, (th_spawner_id){bad[i]}, &si));
        ck_assert(!th_world_get_exit(f.w, (th_exit_id){bad[i]}, &ei));
        ck_assert(!th_world_spawner_covers(f.w, (th_spawner_id){bad[i]}, 5, 5));
        ck_assert(!th_world_exit_covers(f.w, (th_exit_id){bad[i]}, 30, 5));
    }
    th_world_destroy(f.w);
}
END_TEST

int main(void) {
    Suite *s = suite_create("handles");
    TCase *tc = tcase_create("handles");
    tcase_add_test(tc, handles_count_from_one_in_order_and_iterate);
    tcase_add_test(tc, crowd_handles_refused);
    tcase_add_test(tc, bunker_handles_refused);
    tcase_add_test(tc, target_handles_refused);
    tcase_add_test(tc, squad_handles_refused);
    tcase_add_test(tc, field_handles_refused);
    tcase_add_test(tc, measure_spawner_exit_handles_refused);
    suite_add_tcase(s, tc);
    return th_test_run(s);
}
