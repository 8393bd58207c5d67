/*
 * Every public function called with NULL for each pointer argument, and with no world: no
 * crash, and the answer docs/robustness.md ("The API") gives for its return kind. A handle
 * comes back null with TH_ERR_INVALID, a bool false, a pointer NULL, a count 0, a void call
 * does nothing; an optional argument documented as such keeps its meaning.
 *
 * The table below names every TH_API function of the public headers: `every_function_is_listed`
 * reads the headers and fails for a name missing from it, so a new function cannot be left out.
 */
#include "include/throng/api.h"
#include "include/throng/building.h"
#include "include/throng/clock.h"
#include "include/throng/hazard.h"
#include "include/throng/throng.h"
#include "include/throng/version.h"
#include "include/throng/viewer.h"
#ifdef THRONG_MPI
#include "include/throng/dist.h"
#endif

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static th_error err;

/* A world with a map, bunkers, agents, a spawner, an exit, a measurement area and line, a
 * target, a destination field, stepped once: a valid handle reaches past every range check. */
static th_world *world(void) {
    th_demo_opts o = {.agents = 40, .seed = 1, .threads = 1};
    th_world *w = th_demo_create("evac", &o, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    th_spawner_def sd = th_default_spawner_def();
    sd.crowd = (th_crowd_id){1};
    sd.x0 = 0.0f, sd.y0 = 0.0f, sd.x1 = 4.0f, sd.y1 = 4.0f, sd.rate = 1.0f;
    ck_assert_msg(th_world_add_spawner(w, &sd, &err).index1 != 0, "%s", err.message);
    th_exit_def ed = th_default_exit_def();
    ed.x0 = 0.0f, ed.y0 = 0.0f, ed.x1 = 2.0f, ed.y1 = 2.0f;
    ck_assert_msg(th_world_add_exit(w, &ed, &err).index1 != 0, "%s", err.message);
    th_measure_area_def ad = {.name = "a", .x0 = 0.0f, .y0 = 0.0f, .x1 = 5.0f, .y1 = 5.0f};
    ck_assert_msg(th_world_add_measure_area(w, &ad, &err).index1 != 0, "%s", err.message);
    th_measure_line_def ld = {.name = "l", .a = {1.0f, 1.0f}, .b = {3.0f, 1.0f}};
    ck_assert_msg(th_world_add_measure_line(w, &ld, &err).index1 != 0, "%s", err.message);
    th_target_def td = {.kind = TH_TARGET_POINT, .position = {1.0f, 1.0f}};
    ck_assert_msg(th_world_add_target(w, &td, &err).index1 != 0, "%s", err.message);
    th_world_step(w);
    return w;
}

#define REFUSED() ck_assert_int_eq(err.code, TH_ERR_INVALID)
#define CLEAR()   memset(&err, 0, sizeof err)
static const th_vec2 P0 = {1.0f, 1.0f};
static th_vec2 pts[64];
static uint32_t n32;
static const th_crowd_id C1 = {1};

typedef void probe_fn(th_world *w);
#define PROBE(name) static void p_##name(th_world *w __attribute__((unused)))

PROBE(th_set_allocator) {
    (void)w;
    th_set_allocator(NULL); /* NULL: the default allocator */
}
PROBE(th_set_assert_hook) {
    (void)w;
    th_set_assert_hook(NULL, NULL); /* NULL: the default */
}
PROBE(th_clock_make) {
    (void)w;
    (void)th_clock_make(0.01, 4);
}
PROBE(th_clock_advance) {
    (void)w;
    ck_assert_int_eq(th_clock_advance(NULL, 1.0), 0);
}
PROBE(th_clock_alpha) {
    (void)w;
    ck_assert(th_clock_alpha(NULL) == 0.0);
}
PROBE(th_now_ns) {
    (void)w;
    (void)th_now_ns();
}
#ifdef THRONG_MPI
PROBE(th_world_rank) {
    (void)w;
    ck_assert_int_eq(th_world_rank(NULL), 0);
}
PROBE(th_world_ranks) {
    (void)w;
    ck_assert_int_eq(th_world_ranks(NULL), 0);
}
PROBE(th_world_dist_check) {
    (void)w;
    CLEAR();
    ck_assert(!th_world_dist_check(NULL, &err));
    REFUSED();
}
PROBE(th_world_dist_stats) {
    (void)w;
    th_dist_stats s = th_world_dist_stats(NULL);
    th_dist_stats z;
    memset(&z, 0, sizeof z);
    ck_assert(memcmp(&s, &z, sizeof s) == 0);
}
#endif
PROBE(th_error_code_name) {
    (void)w;
    ck_assert_ptr_nonnull(th_error_code_name(TH_ERR_INVALID));
}
PROBE(th_error_code_message) {
    (void)w;
    ck_assert_ptr_nonnull(th_error_code_message(TH_ERR_INVALID));
}
PROBE(th_default_world_def) {
    (void)w;
    (void)th_default_world_def();
}
PROBE(th_default_crowd_def) {
    (void)w;
    (void)th_default_crowd_def();
}
PROBE(th_default_pedestrian_def) {
    (void)w;
    (void)th_default_pedestrian_def();
}
PROBE(th_default_squad_def) {
    (void)w;
    (void)th_default_squad_def();
}
PROBE(th_default_spawner_def) {
    (void)w;
    (void)th_default_spawner_def();
}
PROBE(th_default_exit_def) {
    (void)w;
    (void)th_default_exit_def();
}
PROBE(th_world_create) {
    (void)w;
    th_world *d = th_world_create(NULL, &err); /* NULL: the default def */
    ck_assert_ptr_nonnull(d);
    th_world_destroy(d);
}
PROBE(th_world_destroy) {
    (void)w;
    th_world_destroy(NULL);
}
PROBE(th_world_add_crowd) {
    th_crowd_def d = th_default_crowd_def();
    CLEAR();
    ck_assert_uint_eq(th_world_add_crowd(NULL, &d, &err).index1, 0);
    REFUSED();
    ck_assert_uint_ne(th_world_add_crowd(w, NULL, &err).index1, 0); /* NULL: the default def */
}
PROBE(th_world_crowd_count) {
    (void)w;
    ck_assert_uint_eq(th_world_crowd_count(NULL), 0);
}
PROBE(th_world_get_crowd) {
    (void)w;
    ck_assert_ptr_null(th_world_get_crowd(NULL, C1));
}
PROBE(th_world_crowd) {
    (void)w;
    ck_assert_ptr_null(th_world_crowd(NULL, C1));
}
PROBE(th_world_waypoint_hop) {
    uint32_t next;
    float cost;
    ck_assert(!th_world_waypoint_hop(NULL, C1, 0, 1, &next, &cost));
    (void)th_world_waypoint_hop(w, C1, 0, 1, NULL, NULL); /* both optional */
}
PROBE(th_world_breadcrumbs) {
    ck_assert_uint_eq(th_world_breadcrumbs(NULL, C1, pts, 64), 0);
    ck_assert_uint_eq(th_world_breadcrumbs(w, C1, NULL, 64), 0);
}
PROBE(th_world_add_agent) {
    CLEAR();
    ck_assert_uint_eq(th_world_add_agent(NULL, C1, P0, P0, &err).index1, 0);
    REFUSED();
}
PROBE(th_world_step) {
    (void)w;
    th_world_step(NULL);
}
PROBE(th_world_agent_count) {
    (void)w;
    ck_assert_uint_eq(th_world_agent_count(NULL), 0);
}
PROBE(th_world_id_slots) {
    (void)w;
    ck_assert_uint_eq(th_world_id_slots(NULL), 0);
}
PROBE(th_world_step_count) {
    (void)w;
    ck_assert_uint_eq(th_world_step_count(NULL), 0);
}
PROBE(th_world_get_agent) {
    th_agent_state s;
    th_agent_view v = th_world_agents(w);
    ck_assert(!th_world_get_agent(NULL, v.id[0], &s));
    ck_assert(!th_world_get_agent(w, v.id[0], NULL));
}
PROBE(th_world_agents) {
    (void)w;
    th_agent_view v = th_world_agents(NULL);
    ck_assert_uint_eq(v.count, 0);
}
PROBE(th_world_get_stats) {
    (void)w;
    th_world_stats s = th_world_get_stats(NULL);
    ck_assert_uint_eq(s.agents, 0);
}
PROBE(th_world_get_stall_info) {
    th_stall_info s;
    ck_assert(!th_world_get_stall_info(NULL, &s));
    ck_assert(!th_world_get_stall_info(w, NULL));
}
PROBE(th_world_stall_info) {
    ck_assert(!th_world_stall_info(NULL, NULL));
    ck_assert(!th_world_stall_info(w, NULL));
}
PROBE(th_world_scene_over) {
    (void)w;
    ck_assert(!th_world_scene_over(NULL));
}
PROBE(th_world_get_def) {
    (void)w;
    th_world_def d = th_world_get_def(NULL);
    ck_assert(d.width == 0.0f);
}
PROBE(th_world_hash) {
    (void)w;
    ck_assert_uint_eq(th_world_hash(NULL), 0);
}
PROBE(th_world_set_validation) {
    (void)w;
    th_world_set_validation(NULL, true);
}
PROBE(th_world_validation_error) {
    (void)w;
    ck_assert_ptr_null(th_world_validation_error(NULL));
}
PROBE(th_world_step_error) {
    th_error e = {0};
    ck_assert(!th_world_step_error(NULL, &e));
    ck_assert(!th_world_step_error(w, NULL));
}
PROBE(th_phase_name) {
    (void)w;
    (void)th_phase_name(TH_PHASE_COUNT);
}
PROBE(th_world_phase_ms) {
    (void)w;
    ck_assert(th_world_phase_ms(NULL, 0) == 0.0);
}
PROBE(th_world_phase_last_ms) {
    (void)w;
    ck_assert(th_world_phase_last_ms(NULL, 0) == 0.0);
}
PROBE(th_world_reset_profile) {
    (void)w;
    th_world_reset_profile(NULL);
}
PROBE(th_world_add_target) {
    th_target_def d = {.kind = TH_TARGET_POINT, .position = P0};
    CLEAR();
    ck_assert_uint_eq(th_world_add_target(NULL, &d, &err).index1, 0);
    REFUSED();
    CLEAR();
    ck_assert_uint_eq(th_world_add_target(w, NULL, &err).index1, 0);
    REFUSED();
}
PROBE(th_world_get_target) {
    th_vec2 p;
    ck_assert(!th_world_get_target(NULL, (th_target_id){1}, &p, &p));
    ck_assert(th_world_get_target(w, (th_target_id){1}, NULL, NULL)); /* both optional */
}
PROBE(th_world_target_state) {
    ck_assert(!th_world_target_state(NULL, (th_target_id){1}, NULL, NULL));
    ck_assert(th_world_target_state(w, (th_target_id){1}, NULL, NULL));
}
PROBE(th_world_add_squad) {
    th_squad_def d = th_default_squad_def();
    d.crowd = C1;
    CLEAR();
    ck_assert_uint_eq(th_world_add_squad(NULL, &d, &err).index1, 0);
    REFUSED();
    CLEAR();
    ck_assert_uint_eq(th_world_add_squad(w, NULL, &err).index1, 0);
    REFUSED();
}
PROBE(th_world_get_pre_movement) {
    th_pre_movement_info p;
    ck_assert(!th_world_get_pre_movement(NULL, C1, &p));
    ck_assert(!th_world_get_pre_movement(w, C1, NULL));
    ck_assert(!th_world_get_pre_movement(w, (th_crowd_id){0}, &p));
}

PROBE(th_clean_air) { ck_assert(th_clean_air().o2 == TH_AIR_O2_PERCENT); }
PROBE(th_world_add_hazard) {
    const th_hazard_key k = {0.0f, th_clean_air()};
    const th_hazard_def d = {0.0f, 0.0f, 4.0f, 4.0f, &k, 1};
    CLEAR();
    ck_assert(!th_world_add_hazard(NULL, &d, &err));
    REFUSED();
    CLEAR();
    ck_assert(!th_world_add_hazard(w, NULL, &err));
    REFUSED();
    const th_hazard_def nk = {0.0f, 0.0f, 4.0f, 4.0f, NULL, 1};
    CLEAR();
    ck_assert(!th_world_add_hazard(w, &nk, &err));
    REFUSED();
}
PROBE(th_world_hazard_count) { ck_assert_uint_eq(th_world_hazard_count(NULL), 0); }
PROBE(th_world_air) {
    th_air a;
    ck_assert(!th_world_air(NULL, P0, &a));
    ck_assert(!th_world_air(w, P0, NULL));
}
PROBE(th_fed_rate) { ck_assert(th_fed_rate(NULL) == 0.0); }
PROBE(th_world_smoke_factor) {
    ck_assert(th_world_smoke_factor(NULL, C1, 1.0f) == 1.0f);
    ck_assert(th_world_smoke_factor(w, (th_crowd_id){0}, 1.0f) == 1.0f);
}
PROBE(th_world_get_hazard_info) {
    th_hazard_info h;
    ck_assert(!th_world_get_hazard_info(NULL, C1, &h));
    ck_assert(!th_world_get_hazard_info(w, C1, NULL));
}
PROBE(th_world_agent_fed) {
    double f, t;
    ck_assert(!th_world_agent_fed(NULL, (th_agent_id){1, 1}, &f, &t));
    ck_assert(!th_world_agent_fed(w, (th_agent_id){0, 0}, &f, &t));
}

PROBE(th_world_set_agent_exit) {
    CLEAR();
    ck_assert(!th_world_set_agent_exit(NULL, (th_agent_id){1, 1}, (th_bunker_id){1}, &err));
    REFUSED();
    ck_assert(!th_world_set_agent_exit(w, (th_agent_id){0, 0}, (th_bunker_id){1}, &err));
}

PROBE(th_world_add_group) {
    const th_agent_id ids[2] = {{1, 1}, {2, 1}};
    const th_group_def d = {ids, 2, 0.0f};
    CLEAR();
    ck_assert(!th_world_add_group(NULL, &d, &err).index1);
    REFUSED();
    CLEAR();
    ck_assert(!th_world_add_group(w, NULL, &err).index1);
    REFUSED();
}
PROBE(th_world_set_agents_goal) {
    const th_agent_goal g = {.kind = TH_AGENT_GOAL_CROWD};
    const th_agent_id ids[1] = {{1, 1}};
    uint32_t done = 7;
    CLEAR();
    ck_assert(!th_world_set_agents_goal(NULL, ids, 1, &g, &done, &err));
    REFUSED();
    ck_assert_uint_eq(done, 0);
    CLEAR();
    ck_assert(!th_world_set_agents_goal(w, NULL, 1, &g, NULL, &err));
    REFUSED();
    CLEAR();
    ck_assert(!th_world_set_agents_goal(w, ids, 1, NULL, NULL, &err));
    REFUSED();
}
PROBE(th_world_add_level) {
    const th_level_def d = {"ground", 0, 0, 3, 3, 0.0f};
    CLEAR();
    ck_assert(!th_world_add_level(NULL, &d, &err).index1);
    REFUSED();
    CLEAR();
    ck_assert(!th_world_add_level(w, NULL, &err).index1);
    REFUSED();
}
PROBE(th_world_level_count) { ck_assert_uint_eq(th_world_level_count(NULL), 0); }
PROBE(th_world_get_level) {
    th_level_info l;
    ck_assert(!th_world_get_level(NULL, (th_level_id){1}, &l));
    ck_assert(!th_world_get_level(w, (th_level_id){1}, NULL));
}
PROBE(th_world_find_level) {
    ck_assert(!th_world_find_level(NULL, "ground").index1);
    ck_assert(!th_world_find_level(w, NULL).index1);
}
PROBE(th_world_level_at) { ck_assert(!th_world_level_at(NULL, th_v2(1.0f, 1.0f)).index1); }
PROBE(th_world_add_stair) {
    const th_stair_def d = {"s", 1, 1, 2, 2, TH_STAIR_NORTH, 5, 5, 0.0f, 0.0f, 0.0f};
    CLEAR();
    ck_assert(!th_world_add_stair(NULL, &d, &err).index1);
    REFUSED();
    CLEAR();
    ck_assert(!th_world_add_stair(w, NULL, &err).index1);
    REFUSED();
}
PROBE(th_world_stair_count) { ck_assert_uint_eq(th_world_stair_count(NULL), 0); }
PROBE(th_world_get_stair) {
    th_stair_info st;
    ck_assert(!th_world_get_stair(NULL, (th_stair_id){1}, &st));
    ck_assert(!th_world_get_stair(w, (th_stair_id){1}, NULL));
}
PROBE(th_world_find_stair) {
    ck_assert(!th_world_find_stair(NULL, "s").index1);
    ck_assert(!th_world_find_stair(w, NULL).index1);
}
PROBE(th_world_stair_at) { ck_assert(!th_world_stair_at(NULL, th_v2(1.0f, 1.0f)).index1); }
PROBE(th_world_add_elevator) {
    const th_elevator_def d = {.name = "e", .stop_count = 2, .capacity = 1, .speed = 1.0f};
    CLEAR();
    ck_assert(!th_world_add_elevator(NULL, &d, &err).index1);
    REFUSED();
    CLEAR();
    ck_assert(!th_world_add_elevator(w, NULL, &err).index1);
    REFUSED();
}
PROBE(th_world_elevator_count) { ck_assert_uint_eq(th_world_elevator_count(NULL), 0); }
PROBE(th_world_get_elevator) {
    th_elevator_info e;
    ck_assert(!th_world_get_elevator(NULL, (th_elevator_id){1}, &e));
    ck_assert(!th_world_get_elevator(w, (th_elevator_id){1}, NULL));
}
PROBE(th_world_find_elevator) {
    ck_assert(!th_world_find_elevator(NULL, "e").index1);
    ck_assert(!th_world_find_elevator(w, NULL).index1);
}
PROBE(th_world_agent_elevator) {
    ck_assert(!th_world_agent_elevator(NULL, (th_agent_id){1, 1}).index1);
    ck_assert(!th_world_agent_elevator(w, (th_agent_id){0, 0}).index1);
}
PROBE(th_elevator_travel_time) {
    ck_assert(th_elevator_travel_time(NAN, 1.0, 1.0) == 0.0);
    ck_assert(th_elevator_travel_time(1.0, 0.0, 1.0) == 0.0);
}
PROBE(th_world_group_count) { ck_assert_uint_eq(th_world_group_count(NULL), 0); }
PROBE(th_world_get_group) {
    th_group_info g;
    ck_assert(!th_world_get_group(NULL, (th_group_id){1}, &g));
    ck_assert(!th_world_get_group(w, (th_group_id){1}, NULL));
}

PROBE(th_world_agent_next_step) {
    th_vec2 d;
    ck_assert(!th_world_agent_next_step(NULL, (th_agent_id){1, 1}, &d));
    ck_assert(!th_world_agent_next_step(w, (th_agent_id){1, 1}, NULL));
}
PROBE(th_world_agent_remaining) {
    ck_assert(isinf(th_world_agent_remaining(NULL, (th_agent_id){1, 1})));
}
PROBE(th_world_agent_path) {
    CLEAR();
    ck_assert(!th_world_agent_path(NULL, (th_agent_id){1, 1}, pts, 64, &n32, &err));
    REFUSED();
    CLEAR();
    ck_assert(!th_world_agent_path(w, (th_agent_id){1, 1}, NULL, 64, &n32, &err));
    REFUSED();
    CLEAR();
    ck_assert(!th_world_agent_path(w, (th_agent_id){1, 1}, pts, 64, NULL, &err));
    REFUSED();
}
PROBE(th_world_set_agent_speed) {
    CLEAR();
    ck_assert(!th_world_set_agent_speed(NULL, (th_agent_id){1, 1}, 1.0f, &err));
    REFUSED();
}

PROBE(th_world_set_agent_preferred_velocity) {
    CLEAR();
    ck_assert(!th_world_set_agent_preferred_velocity(NULL, (th_agent_id){1, 1}, P0, &err));
    REFUSED();
}
PROBE(th_world_clear_agent_preferred_velocity) {
    CLEAR();
    ck_assert(!th_world_clear_agent_preferred_velocity(NULL, (th_agent_id){1, 1}, &err));
    REFUSED();
}
PROBE(th_world_get_agent_preferred_velocity) {
    th_vec2 v;
    ck_assert(!th_world_get_agent_preferred_velocity(NULL, (th_agent_id){1, 1}, &v));
    ck_assert(!th_world_get_agent_preferred_velocity(w, (th_agent_id){1, 1}, NULL));
}
PROBE(th_world_set_agent_position) {
    CLEAR();
    ck_assert(!th_world_set_agent_position(NULL, (th_agent_id){1, 1}, P0, &err));
    REFUSED();
}
PROBE(th_world_set_agent_radius) {
    CLEAR();
    ck_assert(!th_world_set_agent_radius(NULL, (th_agent_id){1, 1}, 0.1f, &err));
    REFUSED();
    ck_assert(!th_world_set_agent_radius(w, (th_agent_id){999, 1}, 0.1f, NULL)); /* no err: fine */
}
PROBE(th_world_agent_radius) {
    ck_assert_float_eq(th_world_agent_radius(NULL, (th_agent_id){1, 1}), -1.0f);
    ck_assert_float_eq(th_world_agent_radius(w, TH_INVALID_AGENT), -1.0f);
}
PROBE(th_world_agent_neighbors) {
    th_agent_id ids[4];
    CLEAR();
    ck_assert(!th_world_agent_neighbors(NULL, (th_agent_id){1, 1}, 1.0f, ids, 4, &n32, &err));
    REFUSED();
    CLEAR();
    ck_assert(!th_world_agent_neighbors(w, (th_agent_id){1, 1}, 1.0f, NULL, 4, &n32, &err));
    REFUSED();
    CLEAR();
    ck_assert(!th_world_agent_neighbors(w, (th_agent_id){1, 1}, 1.0f, ids, 4, NULL, &err));
    REFUSED();
    /* No room asked for: out may be NULL. */
    ck_assert(th_world_agent_neighbors(w, th_world_agents(w).id[0], 1.0f, NULL, 0, &n32, &err));
}

PROBE(th_world_set_agent_goal) {
    const th_agent_goal g = {.kind = TH_AGENT_GOAL_CROWD};
    CLEAR();
    ck_assert(!th_world_set_agent_goal(NULL, (th_agent_id){1, 1}, &g, &err));
    REFUSED();
    CLEAR();
    ck_assert(!th_world_set_agent_goal(w, (th_agent_id){1, 1}, NULL, &err));
    REFUSED();
}
PROBE(th_world_schedule_agents_goal) {
    const th_agent_goal g = {.kind = TH_AGENT_GOAL_CROWD};
    const th_agent_id id = {1, 1};
    CLEAR();
    ck_assert(!th_world_schedule_agents_goal(NULL, 0, &id, 1, &g, &err));
    REFUSED();
    CLEAR();
    ck_assert(!th_world_schedule_agents_goal(w, 0, NULL, 1, &g, &err));
    REFUSED();
    CLEAR();
    ck_assert(!th_world_schedule_agents_goal(w, 0, &id, 1, NULL, &err));
    REFUSED();
}
PROBE(th_world_goal_changes) {
    uint64_t p = 7, m = 7, q = 7;
    th_world_goal_changes(NULL, &p, &m, &q);
    ck_assert(p == 0 && m == 0 && q == 0);
    th_world_goal_changes(w, NULL, NULL, NULL);
}
PROBE(th_world_own_goal_counts) {
    const th_own_goal_counts c = th_world_own_goal_counts(NULL);
    ck_assert(c.given == 0 && c.reached == 0 && c.walking == 0 && c.unreachable == 0);
    ck_assert_uint_eq(th_world_own_goal_counts(w).given, 0);
}
PROBE(th_world_get_agent_goal) {
    th_agent_goal g;
    ck_assert(!th_world_get_agent_goal(NULL, (th_agent_id){1, 1}, &g));
    ck_assert(!th_world_get_agent_goal(w, (th_agent_id){1, 1}, NULL));
}

PROBE(th_world_get_squad) {
    th_squad_info s;
    ck_assert(!th_world_get_squad(NULL, (th_squad_id){1}, &s));
    ck_assert(!th_world_get_squad(w, (th_squad_id){1}, NULL));
}
PROBE(th_world_get_squad_member) {
    th_agent_id id;
    ck_assert(!th_world_get_squad_member(NULL, (th_squad_id){1}, 0, &id, NULL));
    (void)th_world_get_squad_member(w, (th_squad_id){1}, 0, NULL, NULL);
}
PROBE(th_world_squad_member) {
    ck_assert(!th_world_squad_member(NULL, (th_squad_id){1}, 0, NULL, NULL));
    (void)th_world_squad_member(w, (th_squad_id){1}, 0, NULL, NULL);
}
PROBE(th_world_squad_waypoint) {
    ck_assert(!th_world_squad_waypoint(NULL, (th_squad_id){1}, 0, pts));
    ck_assert(!th_world_squad_waypoint(w, (th_squad_id){1}, 0, NULL));
}
PROBE(th_world_squad_join) {
    (void)w;
    CLEAR();
    ck_assert(!th_world_squad_join(NULL, (th_squad_id){1}, (th_agent_id){1, 0}, &err));
    REFUSED();
}
PROBE(th_world_remove_agent) {
    (void)w;
    CLEAR();
    ck_assert(!th_world_remove_agent(NULL, (th_agent_id){1, 0}, &err));
    REFUSED();
}
PROBE(th_world_map_size) {
    int32_t c, r;
    float s;
    ck_assert(!th_world_map_size(NULL, &c, &r, &s));
    ck_assert(th_world_map_size(w, NULL, NULL, NULL)); /* each optional */
}
PROBE(th_world_set_cell) {
    (void)w;
    CLEAR();
    ck_assert(!th_world_set_cell(NULL, 0, 0, TH_CELL_OPEN, 1, &err));
    REFUSED();
}
PROBE(th_world_set_cell_speed) {
    (void)w;
    CLEAR();
    ck_assert(!th_world_set_cell_speed(NULL, 0, 0, 1.0f, &err));
    REFUSED();
}
PROBE(th_world_cell_speed) {
    (void)w;
    ck_assert(th_world_cell_speed(NULL, 0, 0) == 0.0f);
}
PROBE(th_world_cell) {
    uint32_t c;
    ck_assert_int_eq(th_world_cell(NULL, 0, 0, &c), TH_CELL_WALL);
    (void)th_world_cell(w, 0, 0, NULL); /* optional */
}
PROBE(th_world_add_bunker) {
    th_bunker_def d = {0};
    CLEAR();
    ck_assert_uint_eq(th_world_add_bunker(NULL, &d, &err).index1, 0);
    REFUSED();
    CLEAR();
    ck_assert_uint_eq(th_world_add_bunker(w, NULL, &err).index1, 0);
    REFUSED();
}
PROBE(th_world_bunker_count) {
    (void)w;
    ck_assert_uint_eq(th_world_bunker_count(NULL), 0);
}
PROBE(th_world_get_bunker) {
    th_bunker_info b;
    ck_assert(!th_world_get_bunker(NULL, (th_bunker_id){1}, &b));
    ck_assert(!th_world_get_bunker(w, (th_bunker_id){1}, NULL));
}
PROBE(th_world_find_bunker) {
    ck_assert_uint_eq(th_world_find_bunker(NULL, "north").index1, 0);
    ck_assert_uint_eq(th_world_find_bunker(w, NULL).index1, 0);
}
PROBE(th_world_schedule) {
    th_event_def e = {.type = TH_EVENT_BREAK_WALLS};
    CLEAR();
    ck_assert(!th_world_schedule(NULL, 5, &e, &err));
    REFUSED();
    CLEAR();
    ck_assert(!th_world_schedule(w, 5, NULL, &err));
    REFUSED();
}
PROBE(th_world_schedule_crowd) {
    th_crowd_tune t = {.fields = TH_TUNE_MAX_FORCE, .max_force = 4.0f};
    CLEAR();
    ck_assert(!th_world_schedule_crowd(NULL, 5, C1, &t, &err));
    REFUSED();
    CLEAR();
    ck_assert(!th_world_schedule_crowd(w, 5, C1, NULL, &err));
    REFUSED();
}
PROBE(th_world_crowd_changes) {
    uint64_t last = 7;
    ck_assert_uint_eq(th_world_crowd_changes(NULL, C1, &last), 0);
    ck_assert_uint_eq(last, 0);
    ck_assert_uint_eq(th_world_crowd_changes(w, C1, NULL), 0);
}
PROBE(th_world_pending_events) {
    (void)w;
    ck_assert_uint_eq(th_world_pending_events(NULL), 0);
}
PROBE(th_world_destroy_bunker) {
    (void)w;
    CLEAR();
    ck_assert(!th_world_destroy_bunker(NULL, (th_bunker_id){1}, &err));
    REFUSED();
}
PROBE(th_world_restore_bunker) {
    (void)w;
    CLEAR();
    ck_assert(!th_world_restore_bunker(NULL, (th_bunker_id){1}, &err));
    REFUSED();
}
PROBE(th_world_break_walls) {
    (void)w;
    CLEAR();
    ck_assert(!th_world_break_walls(NULL, 0, 0, 1, 1, &err));
    REFUSED();
}
PROBE(th_world_block_cells) {
    (void)w;
    CLEAR();
    ck_assert(!th_world_block_cells(NULL, 0, 0, 1, 1, &err));
    REFUSED();
}
PROBE(th_world_open_cells) {
    (void)w;
    CLEAR();
    ck_assert(!th_world_open_cells(NULL, 0, 0, 1, 1, &err));
    REFUSED();
}
PROBE(th_world_set_cost) {
    (void)w;
    CLEAR();
    ck_assert(!th_world_set_cost(NULL, 0, 0, 1, 1, 2, &err));
    REFUSED();
}
PROBE(th_world_flow) {
    th_vec2 d;
    ck_assert(!th_world_flow(NULL, P0, &d));
    ck_assert(!th_world_flow(w, P0, NULL));
}
PROBE(th_world_bunker_flow) {
    th_vec2 d;
    ck_assert(!th_world_bunker_flow(NULL, (th_bunker_id){1}, P0, &d));
    ck_assert(!th_world_bunker_flow(w, (th_bunker_id){1}, P0, NULL));
}
PROBE(th_world_cost_to_shelter) {
    (void)w;
    ck_assert(isinf(th_world_cost_to_shelter(NULL, P0)));
}
PROBE(th_world_nearest_bunker) {
    (void)w;
    ck_assert_uint_eq(th_world_nearest_bunker(NULL, P0).index1, 0);
}
PROBE(th_world_shelter_path) {
    CLEAR();
    ck_assert(!th_world_shelter_path(NULL, P0, pts, 64, &n32, &err));
    REFUSED();
    CLEAR();
    ck_assert(!th_world_shelter_path(w, P0, NULL, 64, &n32, &err));
    REFUSED();
    CLEAR();
    ck_assert(!th_world_shelter_path(w, P0, pts, 64, NULL, &err));
    REFUSED();
}
PROBE(th_world_add_destinations) {
    th_destination g = {0};
    CLEAR();
    ck_assert_uint_eq(th_world_add_destinations(NULL, &g, 1, &err).index1, 0);
    REFUSED();
    CLEAR();
    ck_assert_uint_eq(th_world_add_destinations(w, NULL, 1, &err).index1, 0);
    REFUSED();
}
PROBE(th_world_destination_count) {
    (void)w;
    ck_assert_uint_eq(th_world_destination_count(NULL), 0);
}
PROBE(th_world_destination_flow) {
    th_vec2 d;
    ck_assert(!th_world_destination_flow(NULL, (th_field_id){1}, P0, &d));
    ck_assert(!th_world_destination_flow(w, (th_field_id){1}, P0, NULL));
}
PROBE(th_world_destination_cost) {
    (void)w;
    ck_assert(isinf(th_world_destination_cost(NULL, (th_field_id){1}, P0)));
}
PROBE(th_world_destination_path) {
    CLEAR();
    ck_assert(!th_world_destination_path(NULL, (th_field_id){1}, P0, pts, 64, &n32, &err));
    REFUSED();
    CLEAR();
    ck_assert(!th_world_destination_path(w, (th_field_id){1}, P0, NULL, 64, &n32, &err));
    REFUSED();
    CLEAR();
    ck_assert(!th_world_destination_path(w, (th_field_id){1}, P0, pts, 64, NULL, &err));
    REFUSED();
}
PROBE(th_world_find_path) {
    float c;
    CLEAR();
    ck_assert(!th_world_find_path(NULL, P0, P0, pts, 64, &n32, &c, &err));
    REFUSED();
    CLEAR();
    ck_assert(!th_world_find_path(w, P0, P0, NULL, 64, &n32, &c, &err));
    REFUSED();
    CLEAR();
    ck_assert(!th_world_find_path(w, P0, P0, pts, 64, NULL, &c, &err));
    REFUSED();
}
PROBE(th_world_find_path_ida) {
    float c;
    CLEAR();
    ck_assert(!th_world_find_path_ida(NULL, P0, P0, 0, pts, 64, &n32, &c, &err));
    REFUSED();
    CLEAR();
    ck_assert(!th_world_find_path_ida(w, P0, P0, 0, NULL, 64, &n32, &c, &err));
    REFUSED();
    CLEAR();
    ck_assert(!th_world_find_path_ida(w, P0, P0, 0, pts, 64, NULL, &c, &err));
    REFUSED();
}
PROBE(th_default_plan_def) {
    (void)w;
    (void)th_default_plan_def();
}
PROBE(th_planner_create) {
    CLEAR();
    ck_assert_ptr_null(th_planner_create(NULL, NULL, &err));
    REFUSED();
    th_planner *p = th_planner_create(w, NULL, &err); /* NULL def: the defaults */
    ck_assert_ptr_nonnull(p);
    th_planner_destroy(p);
}
PROBE(th_planner_destroy) {
    (void)w;
    th_planner_destroy(NULL);
}
PROBE(th_planner_refresh) {
    CLEAR();
    ck_assert(!th_planner_refresh(NULL, w, &err));
    REFUSED();
    th_planner *p = th_planner_create(w, NULL, &err);
    CLEAR();
    ck_assert(!th_planner_refresh(p, NULL, &err));
    REFUSED();
    th_planner_destroy(p);
}
PROBE(th_planner_cells_changed) {
    CLEAR();
    ck_assert(!th_planner_cells_changed(NULL, w, 0, 0, 1, 1, &err));
    REFUSED();
    th_planner *p = th_planner_create(w, NULL, &err);
    CLEAR();
    ck_assert(!th_planner_cells_changed(p, NULL, 0, 0, 1, 1, &err));
    REFUSED();
    th_planner_destroy(p);
}
PROBE(th_planner_find_path) {
    float c;
    th_planner *p = th_planner_create(w, NULL, &err);
    CLEAR();
    ck_assert(!th_planner_find_path(NULL, w, P0, P0, pts, 64, &n32, &c, &err));
    REFUSED();
    CLEAR();
    ck_assert(!th_planner_find_path(p, NULL, P0, P0, pts, 64, &n32, &c, &err));
    REFUSED();
    CLEAR();
    ck_assert(!th_planner_find_path(p, w, P0, P0, NULL, 64, &n32, &c, &err));
    REFUSED();
    CLEAR();
    ck_assert(!th_planner_find_path(p, w, P0, P0, pts, 64, NULL, &c, &err));
    REFUSED();
    th_planner_destroy(p);
}
PROBE(th_planner_submit) {
    th_planner *p = th_planner_create(w, NULL, &err);
    CLEAR();
    ck_assert_uint_eq(th_planner_submit(NULL, w, P0, P0, 0, &err).index1, 0);
    REFUSED();
    CLEAR();
    ck_assert_uint_eq(th_planner_submit(p, NULL, P0, P0, 0, &err).index1, 0);
    REFUSED();
    th_planner_destroy(p);
}
PROBE(th_planner_update) {
    th_planner *p = th_planner_create(w, NULL, &err);
    CLEAR();
    ck_assert_uint_eq(th_planner_update(NULL, w, 10, &err), 0);
    REFUSED();
    CLEAR();
    ck_assert_uint_eq(th_planner_update(p, NULL, 10, &err), 0);
    REFUSED();
    th_planner_destroy(p);
}
PROBE(th_planner_result) {
    th_planner *p = th_planner_create(w, NULL, &err);
    th_plan_id id = th_planner_submit(p, w, P0, P0, 0, &err);
    ck_assert_uint_ne(id.index1, 0);
    float c;
    CLEAR();
    ck_assert_int_eq(th_planner_result(NULL, id, pts, 64, &n32, &c, &err), TH_PLAN_INVALID);
    REFUSED();
    (void)th_planner_update(p, w, 100, &err);
    /* NULL out, count and cost are optional. */
    ck_assert_int_eq(th_planner_result(p, id, NULL, 0, NULL, NULL, &err), TH_PLAN_DONE);
    th_planner_destroy(p);
}
PROBE(th_planner_direction) {
    th_vec2 d;
    th_planner *p = th_planner_create(w, NULL, &err);
    th_plan_id id = th_planner_submit(p, w, P0, th_v2(5.0f, 5.0f), 0, &err);
    ck_assert(!th_planner_direction(NULL, id, &d));
    ck_assert(!th_planner_direction(p, id, NULL));
    th_planner_destroy(p);
}
PROBE(th_planner_release) {
    th_planner *p = th_planner_create(w, NULL, &err);
    th_plan_id id = th_planner_submit(p, w, P0, P0, 0, &err);
    CLEAR();
    ck_assert(!th_planner_release(NULL, id, &err));
    REFUSED();
    ck_assert(th_planner_release(p, id, &err));
    ck_assert(!th_planner_release(p, id, &err)); /* stale now */
    th_planner_destroy(p);
}
PROBE(th_world_set_goal_planning) {
    const th_goal_planning d = {.budget = 10};
    ck_assert(!th_world_set_goal_planning(NULL, &d, &err));
    REFUSED();
    /* def NULL: off, which it already is */
    ck_assert(th_world_set_goal_planning(w, NULL, &err));
}
PROBE(th_world_goal_planning_info) {
    th_goal_planning_info i = th_world_goal_planning_info(NULL);
    ck_assert(i.def.budget == 0 && i.answered == 0 && i.waiting == 0);
}
PROBE(th_world_agent_path_pending) {
    ck_assert(!th_world_agent_path_pending(NULL, (th_agent_id){1, 1}));
    ck_assert(!th_world_agent_path_pending(w, (th_agent_id){0, 0}));
}
PROBE(th_planner_info) {
    (void)w;
    th_plan_info i = th_planner_info(NULL);
    ck_assert_uint_eq(i.nodes, 0);
}
PROBE(th_planner_set_anytime) {
    th_planner *p = th_planner_create(w, NULL, &err);
    th_plan_id id = th_planner_submit(p, w, P0, th_v2(5.0f, 5.0f), 0, &err);
    CLEAR();
    ck_assert(!th_planner_set_anytime(NULL, id, true, &err));
    REFUSED();
    ck_assert(th_planner_set_anytime(p, id, true, &err));
    th_planner_destroy(p);
}
PROBE(th_planner_get_progress) {
    th_plan_progress pr;
    th_planner *p = th_planner_create(w, NULL, &err);
    th_plan_id id = th_planner_submit(p, w, P0, th_v2(5.0f, 5.0f), 0, &err);
    CLEAR();
    ck_assert(!th_planner_get_progress(NULL, id, &pr, &err));
    REFUSED();
    CLEAR();
    ck_assert(!th_planner_get_progress(p, id, NULL, &err));
    REFUSED();
    th_planner_destroy(p);
}
PROBE(th_planner_find_tour) {
    th_plan_reward r = {P0, 1.0f};
    uint32_t taken;
    float net;
    th_planner *p = th_planner_create(w, NULL, &err);
    CLEAR();
    ck_assert(!th_planner_find_tour(NULL, w, P0, P0, &r, 1, pts, 64, &n32, &taken, &net, &err));
    REFUSED();
    CLEAR();
    ck_assert(!th_planner_find_tour(p, NULL, P0, P0, &r, 1, pts, 64, &n32, &taken, &net, &err));
    REFUSED();
    CLEAR();
    ck_assert(!th_planner_find_tour(p, w, P0, P0, NULL, 1, pts, 64, &n32, &taken, &net, &err));
    REFUSED();
    CLEAR();
    ck_assert(!th_planner_find_tour(p, w, P0, P0, &r, 1, NULL, 64, &n32, &taken, &net, &err));
    REFUSED();
    CLEAR();
    ck_assert(!th_planner_find_tour(p, w, P0, P0, &r, 1, pts, 64, NULL, &taken, &net, &err));
    REFUSED();
    /* No points at all, and the taken set and net cost are optional. */
    ck_assert(th_planner_find_tour(p, w, P0, P0, NULL, 0, pts, 64, &n32, NULL, NULL, &err));
    th_planner_destroy(p);
}
PROBE(th_planner_note_trouble) {
    th_planner *p = th_planner_create(w, NULL, &err);
    CLEAR();
    ck_assert(!th_planner_note_trouble(NULL, w, P0, 1.0f, &err));
    REFUSED();
    CLEAR();
    ck_assert(!th_planner_note_trouble(p, NULL, P0, 1.0f, &err));
    REFUSED();
    th_planner_destroy(p);
}
PROBE(th_planner_get_trouble) {
    (void)w;
    ck_assert(th_planner_get_trouble(NULL, P0) == 0.0f);
}
PROBE(th_world_wall_distance) {
    th_vec2 a;
    ck_assert(th_world_wall_distance(NULL, P0, &a) == 0.0f);
    (void)th_world_wall_distance(w, P0, NULL); /* optional */
}
PROBE(th_world_get_forage) {
    th_forage_info f;
    ck_assert(!th_world_get_forage(NULL, C1, &f));
    ck_assert(!th_world_get_forage(w, C1, NULL));
}
PROBE(th_world_forage_info) {
    ck_assert(!th_world_forage_info(NULL, C1, NULL));
    ck_assert(!th_world_forage_info(w, C1, NULL));
}
PROBE(th_world_get_food_source) {
    th_food_info f;
    ck_assert(!th_world_get_food_source(NULL, C1, 0, &f));
    ck_assert(!th_world_get_food_source(w, C1, 0, NULL));
}
PROBE(th_world_food_source) {
    ck_assert(!th_world_food_source(NULL, C1, 0, NULL));
    ck_assert(!th_world_food_source(w, C1, 0, NULL));
}
PROBE(th_world_pheromone) {
    int32_t c, r;
    float s;
    ck_assert_ptr_null(th_world_pheromone(NULL, C1, &c, &r, &s));
    (void)th_world_pheromone(w, C1, NULL, NULL, NULL); /* each optional */
}
PROBE(th_world_add_pheromone) {
    (void)w;
    CLEAR();
    ck_assert(!th_world_add_pheromone(NULL, C1, P0, 1.0f, &err));
    REFUSED();
}
PROBE(th_world_grid_size) {
    int32_t c = 7, r = 7;
    float cw = 7.0f, ch = 7.0f;
    th_world_grid_size(NULL, &c, &r, &cw, &ch);
    th_world_grid_size(w, NULL, NULL, NULL, NULL); /* each optional */
}
PROBE(th_world_trace_start) {
    (void)w;
    CLEAR();
    ck_assert(!th_world_trace_start(NULL, 16, &err));
    REFUSED();
}
PROBE(th_world_trace_spans) {
    ck_assert_ptr_null(th_world_trace_spans(NULL, &n32));
    (void)th_world_trace_spans(w, NULL); /* optional */
}
PROBE(th_world_trace_stop) {
    (void)w;
    th_world_trace_stop(NULL);
}
PROBE(th_world_add_measure_area) {
    th_measure_area_def d = {.name = "b", .x1 = 1.0f, .y1 = 1.0f};
    CLEAR();
    ck_assert_uint_eq(th_world_add_measure_area(NULL, &d, &err).index1, 0);
    REFUSED();
    CLEAR();
    ck_assert_uint_eq(th_world_add_measure_area(w, NULL, &err).index1, 0);
    REFUSED();
}
PROBE(th_world_set_measure_lanes) {
    CLEAR();
    ck_assert(!th_world_set_measure_lanes(NULL, (th_measure_area_id){1}, NULL, &err));
    REFUSED();
    CLEAR();
    ck_assert(!th_world_set_measure_lanes(w, (th_measure_area_id){1}, NULL, &err));
    REFUSED();
}
PROBE(th_world_add_measure_line) {
    th_measure_line_def d = {.name = "m", .a = {0.0f, 0.0f}, .b = {1.0f, 0.0f}};
    CLEAR();
    ck_assert_uint_eq(th_world_add_measure_line(NULL, &d, &err).index1, 0);
    REFUSED();
    CLEAR();
    ck_assert_uint_eq(th_world_add_measure_line(w, NULL, &err).index1, 0);
    REFUSED();
}
PROBE(th_world_measure_area_count) {
    (void)w;
    ck_assert_uint_eq(th_world_measure_area_count(NULL), 0);
}
PROBE(th_world_measure_line_count) {
    (void)w;
    ck_assert_uint_eq(th_world_measure_line_count(NULL), 0);
}
PROBE(th_world_get_measure_area) {
    th_measure_area_info i;
    ck_assert(!th_world_get_measure_area(NULL, (th_measure_area_id){1}, &i));
    ck_assert(!th_world_get_measure_area(w, (th_measure_area_id){1}, NULL));
}
PROBE(th_world_measure_area) {
    ck_assert(!th_world_measure_area(NULL, (th_measure_area_id){1}, NULL));
    ck_assert(!th_world_measure_area(w, (th_measure_area_id){1}, NULL));
}
PROBE(th_world_get_measure_line) {
    th_measure_line_info i;
    ck_assert(!th_world_get_measure_line(NULL, (th_measure_line_id){1}, &i));
    ck_assert(!th_world_get_measure_line(w, (th_measure_line_id){1}, NULL));
}
PROBE(th_world_measure_line) {
    ck_assert(!th_world_measure_line(NULL, (th_measure_line_id){1}, NULL));
    ck_assert(!th_world_measure_line(w, (th_measure_line_id){1}, NULL));
}
PROBE(th_world_add_spawner) {
    th_spawner_def d = th_default_spawner_def();
    CLEAR();
    ck_assert_uint_eq(th_world_add_spawner(NULL, &d, &err).index1, 0);
    REFUSED();
    CLEAR();
    ck_assert_uint_eq(th_world_add_spawner(w, NULL, &err).index1, 0);
    REFUSED();
}
PROBE(th_world_spawner_count) {
    (void)w;
    ck_assert_uint_eq(th_world_spawner_count(NULL), 0);
}
PROBE(th_world_get_spawner) {
    th_spawner_info i;
    ck_assert(!th_world_get_spawner(NULL, (th_spawner_id){1}, &i));
    ck_assert(!th_world_get_spawner(w, (th_spawner_id){1}, NULL));
}
PROBE(th_world_add_exit) {
    th_exit_def d = th_default_exit_def();
    CLEAR();
    ck_assert_uint_eq(th_world_add_exit(NULL, &d, &err).index1, 0);
    REFUSED();
    CLEAR();
    ck_assert_uint_eq(th_world_add_exit(w, NULL, &err).index1, 0);
    REFUSED();
}
PROBE(th_world_exit_count) {
    (void)w;
    ck_assert_uint_eq(th_world_exit_count(NULL), 0);
}
PROBE(th_world_spawner_covers) {
    (void)w;
    ck_assert(!th_world_spawner_covers(NULL, (th_spawner_id){1}, 0, 0));
}
PROBE(th_world_exit_covers) {
    (void)w;
    ck_assert(!th_world_exit_covers(NULL, (th_exit_id){1}, 0, 0));
}
PROBE(th_world_get_exit) {
    th_exit_info i;
    ck_assert(!th_world_get_exit(NULL, (th_exit_id){1}, &i));
    ck_assert(!th_world_get_exit(w, (th_exit_id){1}, NULL));
}
PROBE(th_world_exited_by) {
    (void)w;
    ck_assert_uint_eq(th_world_exited_by(NULL, 0), 0);
}
PROBE(th_world_history) {
    th_history_entry h[4];
    uint32_t t, d;
    ck_assert_uint_eq(th_world_history(NULL, 0, h, 4, &t, &d), 0);
    ck_assert_uint_eq(th_world_history(w, 0, NULL, 4, NULL, NULL), 0);
}
PROBE(th_world_sheltered_by) {
    (void)w;
    ck_assert_uint_eq(th_world_sheltered_by(NULL, 0), 0);
}
PROBE(th_scene_load) {
    (void)w;
    CLEAR();
    ck_assert_ptr_null(th_scene_load(NULL, NULL, NULL, &err));
    REFUSED();
}
PROBE(th_scene_check) {
    (void)w;
    CLEAR();
    ck_assert(!th_scene_check(NULL, NULL, NULL, &err));
    REFUSED();
}
PROBE(th_text_escape) {
    (void)w;
    char out[8] = "x";
    ck_assert_ptr_null(th_text_escape(NULL, 8, "abc", 3));
    ck_assert_ptr_eq(th_text_escape(out, sizeof out, NULL, 3), out);
    ck_assert_str_eq(out, "");
}
PROBE(th_demo_create) {
    (void)w;
    CLEAR();
    ck_assert_ptr_null(th_demo_create(NULL, NULL, &err));
    ck_assert_int_ne(err.code, TH_OK);
}
PROBE(th_version) {
    (void)w;
    ck_assert_ptr_nonnull(th_version());
}
PROBE(th_version_number) {
    (void)w;
    (void)th_version_number();
}
PROBE(th_view_default_opts) {
    (void)w;
    (void)th_view_default_opts();
}
PROBE(th_view_display_available) {
    (void)w;
    (void)th_view_display_available();
}
PROBE(th_view_run) {
    (void)w;
    ck_assert_int_ne(th_view_run(NULL, NULL), 0);
}
PROBE(th_view_screenshot) {
    CLEAR();
    ck_assert(!th_view_screenshot(NULL, NULL, "/nonexistent/x.png", 0, &err));
    REFUSED();
    CLEAR();
    ck_assert(!th_view_screenshot(w, NULL, NULL, 0, &err));
    REFUSED();
}
PROBE(th_view_render_pixels) {
    CLEAR();
    ck_assert(!th_view_render_pixels(NULL, NULL, 0, NULL, &err));
    REFUSED();
    CLEAR();
    ck_assert(!th_view_render_pixels(w, NULL, 0, NULL, &err));
    REFUSED();
}
PROBE(th_view_time_frames) {
    double ms;
    CLEAR();
    ck_assert(!th_view_time_frames(NULL, NULL, 0, 1, &ms, &err));
    REFUSED();
}
PROBE(th_view_world_to_screen) {
    (void)w;
    th_vec2 s = th_view_world_to_screen(NULL, 100, 100, P0); /* no world: the centre */
    ck_assert(s.x == 50.0f && s.y == 50.0f);
}
PROBE(th_view_get_layout) {
    th_view_layout l;
    CLEAR();
    ck_assert(!th_view_get_layout(NULL, NULL, 0, &l, &err));
    REFUSED();
    CLEAR();
    ck_assert(!th_view_get_layout(w, NULL, 0, NULL, &err));
    REFUSED();
}
PROBE(th_view_layout_to_screen) {
    (void)w;
    th_vec2 s = th_view_layout_to_screen(NULL, P0);
    ck_assert(s.x == 0.0f && s.y == 0.0f);
}
PROBE(th_view_crowd_color) {
    (void)w;
    (void)th_view_crowd_color(C1);
}
PROBE(th_view_cell_color) {
    (void)w;
    (void)th_view_cell_color(TH_CELL_OPEN);
}

#define E(name) \
    { #name, p_##name }
static const struct {
    const char *name;
    probe_fn *probe;
} probes[] = {
    E(th_set_allocator),
    E(th_set_assert_hook),
    E(th_clock_make),
    E(th_clock_advance),
    E(th_clock_alpha),
    E(th_now_ns),
#ifdef THRONG_MPI
    E(th_world_rank),
    E(th_world_ranks),
    E(th_world_dist_check),
    E(th_world_dist_stats),
#endif
    E(th_error_code_name),
    E(th_error_code_message),
    E(th_default_world_def),
    E(th_default_crowd_def),
    E(th_default_pedestrian_def),
    E(th_default_squad_def),
    E(th_default_spawner_def),
    E(th_default_exit_def),
    E(th_world_create),
    E(th_world_destroy),
    E(th_world_add_crowd),
    E(th_world_crowd_count),
    E(th_world_get_crowd),
    E(th_world_crowd),
    E(th_world_waypoint_hop),
    E(th_world_breadcrumbs),
    E(th_world_add_agent),
    E(th_world_step),
    E(th_world_agent_count),
    E(th_world_id_slots),
    E(th_world_step_count),
    E(th_world_get_agent),
    E(th_world_agents),
    E(th_world_get_stats),
    E(th_world_get_stall_info),
    E(th_world_stall_info),
    E(th_world_scene_over),
    E(th_world_get_def),
    E(th_world_hash),
    E(th_world_set_validation),
    E(th_world_validation_error),
    E(th_world_step_error),
    E(th_phase_name),
    E(th_world_phase_ms),
    E(th_world_phase_last_ms),
    E(th_world_reset_profile),
    E(th_world_add_target),
    E(th_world_get_target),
    E(th_world_target_state),
    E(th_world_add_squad),
    E(th_world_get_pre_movement),
    E(th_world_set_agent_exit),
    E(th_world_agent_next_step),
    E(th_world_agent_remaining),
    E(th_world_agent_path),
    E(th_world_set_agent_speed),
    E(th_world_set_agent_preferred_velocity),
    E(th_world_clear_agent_preferred_velocity),
    E(th_world_get_agent_preferred_velocity),
    E(th_world_set_agent_position),
    E(th_world_set_agent_radius),
    E(th_world_agent_radius),
    E(th_world_agent_neighbors),
    E(th_world_set_agent_goal),
    E(th_world_schedule_agents_goal),
    E(th_world_goal_changes),
    E(th_world_own_goal_counts),
    E(th_world_get_agent_goal),
    E(th_world_set_agents_goal),
    E(th_world_add_level),
    E(th_world_level_count),
    E(th_world_get_level),
    E(th_world_find_level),
    E(th_world_level_at),
    E(th_world_add_stair),
    E(th_world_stair_count),
    E(th_world_get_stair),
    E(th_world_find_stair),
    E(th_world_stair_at),
    E(th_world_add_elevator),
    E(th_world_elevator_count),
    E(th_world_get_elevator),
    E(th_world_find_elevator),
    E(th_world_agent_elevator),
    E(th_elevator_travel_time),
    E(th_world_add_group),
    E(th_world_group_count),
    E(th_world_get_group),
    E(th_clean_air),
    E(th_world_add_hazard),
    E(th_world_hazard_count),
    E(th_world_air),
    E(th_fed_rate),
    E(th_world_smoke_factor),
    E(th_world_get_hazard_info),
    E(th_world_agent_fed),
    E(th_world_get_squad),
    E(th_world_get_squad_member),
    E(th_world_squad_member),
    E(th_world_squad_waypoint),
    E(th_world_squad_join),
    E(th_world_remove_agent),
    E(th_world_map_size),
    E(th_world_set_cell),
    E(th_world_set_cell_speed),
    E(th_world_cell_speed),
    E(th_world_cell),
    E(th_world_add_bunker),
    E(th_world_bunker_count),
    E(th_world_get_bunker),
    E(th_world_find_bunker),
    E(th_world_schedule),
    E(th_world_schedule_crowd),
    E(th_world_crowd_changes),
    E(th_world_pending_events),
    E(th_world_destroy_bunker),
    E(th_world_restore_bunker),
    E(th_world_break_walls),
    E(th_world_block_cells),
    E(th_world_open_cells),
    E(th_world_set_cost),
    E(th_world_flow),
    E(th_world_bunker_flow),
    E(th_world_cost_to_shelter),
    E(th_world_nearest_bunker),
    E(th_world_shelter_path),
    E(th_world_add_destinations),
    E(th_world_destination_count),
    E(th_world_destination_flow),
    E(th_world_destination_cost),
    E(th_world_destination_path),
    E(th_world_find_path),
    E(th_world_find_path_ida),
    E(th_default_plan_def),
    E(th_planner_create),
    E(th_planner_destroy),
    E(th_planner_refresh),
    E(th_planner_cells_changed),
    E(th_planner_find_path),
    E(th_planner_submit),
    E(th_planner_update),
    E(th_planner_result),
    E(th_planner_direction),
    E(th_planner_release),
    E(th_world_set_goal_planning),
    E(th_world_goal_planning_info),
    E(th_world_agent_path_pending),
    E(th_planner_info),
    E(th_planner_set_anytime),
    E(th_planner_get_progress),
    E(th_planner_find_tour),
    E(th_planner_note_trouble),
    E(th_planner_get_trouble),
    E(th_world_wall_distance),
    E(th_world_get_forage),
    E(th_world_forage_info),
    E(th_world_get_food_source),
    E(th_world_food_source),
    E(th_world_pheromone),
    E(th_world_add_pheromone),
    E(th_world_grid_size),
    E(th_world_trace_start),
    E(th_world_trace_spans),
    E(th_world_trace_stop),
    E(th_world_add_measure_area),
    E(th_world_set_measure_lanes),
    E(th_world_add_measure_line),
    E(th_world_measure_area_count),
    E(th_world_measure_line_count),
    E(th_world_get_measure_area),
    E(th_world_measure_area),
    E(th_world_get_measure_line),
    E(th_world_measure_line),
    E(th_world_add_spawner),
    E(th_world_spawner_count),
    E(th_world_get_spawner),
    E(th_world_add_exit),
    E(th_world_exit_count),
    E(th_world_spawner_covers),
    E(th_world_exit_covers),
    E(th_world_get_exit),
    E(th_world_exited_by),
    E(th_world_history),
    E(th_world_sheltered_by),
    E(th_scene_load),
    E(th_scene_check),
    E(th_text_escape),
    E(th_demo_create),
    E(th_version),
    E(th_version_number),
    E(th_view_default_opts),
    E(th_view_display_available),
    E(th_view_run),
    E(th_view_screenshot),
    E(th_view_render_pixels),
    E(th_view_time_frames),
    E(th_view_world_to_screen),
    E(th_view_get_layout),
    E(th_view_layout_to_screen),
    E(th_view_crowd_color),
    E(th_view_cell_color),
};
#define PROBES (int)(sizeof probes / sizeof probes[0])

/* Run in a child process of its own (Check's fork mode): a crash fails this function alone. */
START_TEST(each_function_survives_null) {
    th_world *w = world();
    printf("%s\n", probes[_i].name);
    probes[_i].probe(w);
    th_world_destroy(w);
}
END_TEST

/* The exported data, not a function: a NULL-terminated list of names. */
static const char *const not_functions[] = {"th_demo_names"};

static bool listed(const char *name) {
    for (int i = 0; i < PROBES; i++)
        if (strcmp(probes[i].name, name) == 0) return true;
    for (size_t i = 0; i < sizeof not_functions / sizeof not_functions[0]; i++)
        if (strcmp(not_functions[i], name) == 0) return true;
    return false;
}

/* Every name a TH_API declaration of a public header introduces: the identifier just before
 * the first '(' or '[' after the marker. */
START_TEST(every_function_is_listed) {
    /* dist.h declares the functions of the MPI build only. */
    static const char *const headers[] = {"api.h",     "clock.h",    "error.h", "throng.h",
                                          "version.h", "viewer.h",   "vec2.h",  "plan.h",
                                          "hazard.h",  "building.h",
#ifdef THRONG_MPI
                                          "dist.h"
#endif
    };
    int found = 0;
    for (size_t h = 0; h < sizeof headers / sizeof headers[0]; h++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", THRONG_INCLUDE_DIR, headers[h]);
        FILE *f = fopen(path, "r");
        ck_assert_msg(f != NULL, "cannot read %s", path);
        char line[1024];
        while (fgets(line, sizeof line, f)) {
            const char *m = strstr(line, "TH_API ");
            if (!m || m != line) continue; /* declarations start their line with the marker */
            const char *end = strpbrk(m, "([");
            ck_assert_msg(end != NULL, "%s: no name in: %s", headers[h], line);
            const char *start = end;
            while (start > m && (start[-1] == '_' || (start[-1] >= 'a' && start[-1] <= 'z') ||
                                 (start[-1] >= 'A' && start[-1] <= 'Z') ||
                                 (start[-1] >= '0' && start[-1] <= '9')))
                start--;
            char name[128];
            snprintf(name, sizeof name, "%.*s", (int)(end - start), start);
            ck_assert_msg(listed(name), "%s declares %s, which test_api_null.c does not call",
                          headers[h], name);
            found++;
        }
        fclose(f);
    }
    ck_assert_int_eq(found, PROBES + 1);
}
END_TEST

int main(void) {
    Suite *s = suite_create("api_null");
    TCase *tc = tcase_create("null");
    tcase_set_timeout(tc, 0);
    tcase_add_loop_test(tc, each_function_survives_null, 0, PROBES);
    tcase_add_test(tc, every_function_is_listed);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
