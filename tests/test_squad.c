/* Squads: formations held by potential fields, A* marches, arrival without oscillation. */
#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "throng/throng.h"
#include "sim/core/world.h"
#include "test_util.h"

#ifndef THRONG_SOURCE_DIR
#error "THRONG_SOURCE_DIR must name the source tree"
#endif

/* Worker threads of the worlds map_world builds. */
static uint32_t g_threads = 2;

/* A walled map of w x h one-metre cells (`walls` lists cell rectangles x0, y0, x1, y1) with
 * the soldiers' crowd. */
static th_world *squad_world(int32_t w, int32_t h, const int32_t (*walls)[4], int nwalls) {
    th_world *world = th_test_wall_rects(th_test_metre_world(g_threads, 1, w, h), walls, nwalls);
    th_error err;
    th_crowd_def cd = th_default_crowd_def();
    cd.name = "soldiers";
    cd.separation_radius = 0.8f;
    cd.max_speed = 3;
    cd.max_force = 12;
    ck_assert_int_eq(IDX(th_world_add_crowd(world, &cd, &err)), 0);
    return world;
}

static void assert_members_outside_walls(const th_world *w, uint32_t squad) {
    th_squad_info si;
    th_world_get_squad(w, SQUAD_ID(squad), &si);
    for (uint32_t i = 0; i < si.members; i++) {
        th_agent_id id;
        th_agent_state a;
        ck_assert(th_world_get_squad_member(w, SQUAD_ID(squad), i, &id, NULL));
        ck_assert(th_world_get_agent(w, id, &a));
        ck_assert_msg(th_world_cell(w, (int32_t)a.position.x, (int32_t)a.position.y, NULL) ==
                          TH_CELL_OPEN,
                      "member %u at (%g, %g) is inside a wall", th_test_slot(id),
                      (double)a.position.x, (double)a.position.y);
    }
}

/* Independent measure of the formation error: mean member-to-slot distance. */
static double formation_error(const th_world *w, uint32_t squad) {
    th_squad_info si;
    th_world_get_squad(w, SQUAD_ID(squad), &si);
    double sum = 0;
    for (uint32_t i = 0; i < si.members; i++) {
        th_agent_id id;
        th_vec2 slot;
        th_agent_state a;
        th_world_get_squad_member(w, SQUAD_ID(squad), i, &id, &slot);
        th_world_get_agent(w, id, &a);
        sum += hypot(a.position.x - slot.x, a.position.y - slot.y);
    }
    return sum / si.members;
}

/* Step until the squad arrives (or `limit` steps); returns the steps taken. */
static int march(th_world *w, uint32_t squad, int limit, double *worst_error) {
    int s = 0;
    th_squad_info si;
    for (; s < limit; s++) {
        th_world_step(w);
        assert_members_outside_walls(w, squad);
        double e = formation_error(w, squad);
        if (worst_error && e > *worst_error) *worst_error = e;
        th_world_get_squad(w, SQUAD_ID(squad), &si);
        if (si.arrived) break;
    }
    return s;
}

START_TEST(every_formation_holds_on_open_ground) {
    const th_formation shapes[] = {TH_FORMATION_LINE, TH_FORMATION_COLUMN, TH_FORMATION_WEDGE,
                                   TH_FORMATION_BOX, TH_FORMATION_CIRCLE};
    for (size_t f = 0; f < sizeof shapes / sizeof shapes[0]; f++) {
        th_world *w = squad_world(80, 60, NULL, 0);
        th_squad_def sd = th_default_squad_def();
        sd.crowd = CROWD_ID(0);
        sd.count = 12;
        sd.formation = shapes[f];
        sd.start = th_v2(25, 30);
        sd.goal = th_v2(60, 35);
        th_error err;
        int q = IDX(th_world_add_squad(w, &sd, &err));
        ck_assert_msg(q == 0, "%s", err.message);
        /* Spawned on their slots: no error at the start. */
        ck_assert(formation_error(w, 0) < 1e-4);
        int steps = march(w, 0, 60 * 60, NULL);
        ck_assert_msg(steps < 60 * 60, "formation %d never arrived", (int)shapes[f]);
        th_squad_info si;
        th_world_get_squad(w, SQUAD_ID(0), &si);
        ck_assert(hypot(si.centre.x - 60, si.centre.y - 35) < 1e-3);
        ck_assert_msg(formation_error(w, 0) < sd.tolerance, "formation %d error %.2f",
                      (int)shapes[f], formation_error(w, 0));
        th_world_destroy(w);
    }
}
END_TEST

START_TEST(column_breaks_at_a_pillar_and_reforms) {
    /* A pillar just off the column's line: the centre walks around it and the trailing slots
     * swing through it, so members must leave their slots and rejoin beyond. */
    const int32_t pillar[1][4] = {{38, 27, 41, 31}};
    th_world *w = squad_world(90, 60, pillar, 1);
    th_squad_def sd = th_default_squad_def();
    sd.crowd = CROWD_ID(0);
    sd.count = 10;
    sd.formation = TH_FORMATION_COLUMN;
    sd.spacing = 1.5f;
    sd.start = th_v2(20, 30.5f);
    sd.goal = th_v2(75, 30.5f);
    ck_assert_int_eq(IDX(th_world_add_squad(w, &sd, NULL)), 0);
    th_squad_info si;
    th_world_get_squad(w, SQUAD_ID(0), &si);
    ck_assert_uint_gt(si.waypoints, 2); /* the path bends around the pillar */
    double worst = 0;
    int steps = march(w, 0, 60 * 90, &worst);
    ck_assert_msg(steps < 60 * 90, "the column never arrived");
    ck_assert_msg(worst > sd.tolerance, "the column never broke (worst error %.2f m)", worst);
    ck_assert_msg(formation_error(w, 0) < sd.tolerance, "not re-formed: error %.2f m",
                  formation_error(w, 0));
    th_world_destroy(w);
}
END_TEST

START_TEST(goal_behind_a_wall_reached_without_oscillation) {
    /* A wall across the map with one gap at the top: the goal is straight across. */
    const int32_t wall[1][4] = {{40, 0, 41, 49}};
    th_world *w = squad_world(80, 60, wall, 1);
    th_squad_def sd = th_default_squad_def();
    sd.crowd = CROWD_ID(0);
    sd.count = 9;
    sd.formation = TH_FORMATION_BOX;
    sd.start = th_v2(20, 20);
    sd.goal = th_v2(60, 20);
    ck_assert_int_eq(IDX(th_world_add_squad(w, &sd, NULL)), 0);
    int steps = march(w, 0, 60 * 120, NULL);
    ck_assert_msg(steps < 60 * 120, "never arrived");
    th_squad_info first;
    th_world_get_squad(w, SQUAD_ID(0), &first);
    /* Held: still arrived every step, the centre fixed, members settled. */
    for (int s = 0; s < 300; s++) {
        th_world_step(w);
        th_squad_info si;
        th_world_get_squad(w, SQUAD_ID(0), &si);
        ck_assert_msg(si.arrived, "arrival lost at step %d after arriving", s);
        ck_assert(si.centre.x == first.centre.x && si.centre.y == first.centre.y);
        ck_assert(formation_error(w, 0) < sd.tolerance);
        assert_members_outside_walls(w, 0);
    }
    double speed = 0;
    for (uint32_t i = 0; i < first.members; i++) {
        th_agent_id id;
        th_agent_state a;
        th_world_get_squad_member(w, SQUAD_ID(0), i, &id, NULL);
        th_world_get_agent(w, id, &a);
        speed = fmax(speed, th_v2_len(a.velocity));
    }
    ck_assert_msg(speed < 0.5, "members still moving at %.2f m/s", speed);
    th_world_destroy(w);
}
END_TEST

START_TEST(lost_members_close_up) {
    th_world *w = squad_world(80, 60, NULL, 0);
    th_squad_def sd = th_default_squad_def();
    sd.crowd = CROWD_ID(0);
    sd.count = 16;
    sd.formation = TH_FORMATION_BOX;
    sd.start = th_v2(20, 30);
    sd.goal = th_v2(60, 30);
    ck_assert_int_eq(IDX(th_world_add_squad(w, &sd, NULL)), 0);
    for (int s = 0; s < 120; s++) th_world_step(w);
    th_agent_id lost[3];
    for (int i = 0; i < 3; i++)
        ck_assert(th_world_get_squad_member(w, SQUAD_ID(0), (uint32_t)(4 * i), &lost[i], NULL));
    for (int i = 0; i < 3; i++) ck_assert(th_world_remove_agent(w, lost[i], NULL));
    th_world_step(w);
    th_squad_info si;
    th_world_get_squad(w, SQUAD_ID(0), &si);
    ck_assert_uint_eq(si.members, 13);
    ck_assert_uint_eq(th_world_get_stats(w).removed, 3);
    for (int i = 0; i < 3; i++) {
        th_agent_state a;
        ck_assert(!th_world_get_agent(w, lost[i], &a));
    }
    /* Every slot has exactly one member. */
    th_vec2 slots[13];
    for (uint32_t i = 0; i < 13; i++) th_world_get_squad_member(w, SQUAD_ID(0), i, NULL, &slots[i]);
    for (uint32_t i = 0; i < 13; i++) {
        for (uint32_t j = i + 1; j < 13; j++) {
            ck_assert(th_v2_len(th_v2_sub(slots[i], slots[j])) > 0.5f);
        }
    }
    int steps = march(w, 0, 60 * 60, NULL);
    ck_assert(steps < 60 * 60);
    ck_assert(formation_error(w, 0) < sd.tolerance);
    th_world_destroy(w);
}
END_TEST

START_TEST(joining_members_take_slots) {
    th_world *w = squad_world(80, 60, NULL, 0);
    th_squad_def sd = th_default_squad_def();
    sd.crowd = CROWD_ID(0);
    sd.count = 6;
    sd.formation = TH_FORMATION_LINE;
    sd.start = th_v2(20, 30);
    sd.goal = th_v2(60, 30);
    ck_assert_int_eq(IDX(th_world_add_squad(w, &sd, NULL)), 0);
    th_agent_id recruits[3];
    for (int i = 0; i < 3; i++) {
        recruits[i] =
            th_world_add_agent(w, CROWD_ID(0), th_v2(10.0f + (float)i, 10), th_v2(0, 0), NULL);
    }
    for (int s = 0; s < 60; s++) th_world_step(w);
    th_error err;
    for (int i = 0; i < 3; i++)
        ck_assert_msg(th_world_squad_join(w, SQUAD_ID(0), recruits[i], &err), "%s", err.message);
    /* One already in a squad is refused for the world's state; one that is not there, for its
     * id. */
    err = (th_error){0};
    ck_assert(!th_world_squad_join(w, SQUAD_ID(0), recruits[0], &err));
    TH_TEST_ERR(err, TH_ERR_STATE);
    err = (th_error){0};
    ck_assert(
        !th_world_squad_join(w, SQUAD_ID(0), th_test_id(th_test_slot(recruits[2]) + 1u), &err));
    TH_TEST_ERR(err, TH_ERR_HANDLE);
    err = (th_error){0};
    ck_assert(!th_world_squad_join(w, SQUAD_ID(0), TH_INVALID_AGENT, &err));
    TH_TEST_ERR(err, TH_ERR_HANDLE);
    /* A member takes no goal of its own (it walks to its slot wherever the squad goes), and an
     * agent with one joins no squad; its crowd's goal is still fine for a member, and an agent
     * back on its crowd's goal joins. */
    th_agent_goal point = {.kind = TH_AGENT_GOAL_POINT, .point = th_v2(70, 50)};
    err = (th_error){0};
    ck_assert(!th_world_set_agent_goal(w, recruits[1], &point, &err));
    TH_TEST_ERR(err, TH_ERR_STATE);
    ck_assert_ptr_nonnull(strstr(err.message, "squad"));
    th_agent_goal crowd = {.kind = TH_AGENT_GOAL_CROWD};
    ck_assert_msg(th_world_set_agent_goal(w, recruits[1], &crowd, &err), "%s", err.message);
    th_agent_id loner = th_world_add_agent(w, CROWD_ID(0), th_v2(10, 20), th_v2(0, 0), NULL);
    ck_assert_msg(th_world_set_agent_goal(w, loner, &point, &err), "%s", err.message);
    err = (th_error){0};
    ck_assert(!th_world_squad_join(w, SQUAD_ID(0), loner, &err));
    TH_TEST_ERR(err, TH_ERR_STATE);
    ck_assert_msg(th_world_set_agent_goal(w, loner, &crowd, &err), "%s", err.message);
    ck_assert_msg(th_world_squad_join(w, SQUAD_ID(0), loner, &err), "%s", err.message);
    th_squad_info si;
    th_world_get_squad(w, SQUAD_ID(0), &si);
    ck_assert_uint_eq(si.members, 10);
    int steps = march(w, 0, 60 * 60, NULL);
    ck_assert(steps < 60 * 60);
    ck_assert(formation_error(w, 0) < sd.tolerance);
    /* The recruits walked over from where they stood to a slot of the line. */
    for (int i = 0; i < 3; i++) {
        th_agent_state a;
        th_world_get_agent(w, recruits[i], &a);
        ck_assert(a.position.x > 50);
    }
    th_world_destroy(w);
}
END_TEST

/* Whether the segment a-b passes through a cell of the rectangle [x0, x1] x [y0, y1]: dense
 * sampling, every 1/100 m. */
static bool segment_enters(th_vec2 a, th_vec2 b, int32_t x0, int32_t y0, int32_t x1, int32_t y1) {
    int n = (int)(th_v2_len(th_v2_sub(b, a)) * 100.0f) + 2;
    for (int i = 0; i <= n; i++) {
        th_vec2 q = th_v2_lerp(a, b, (float)i / (float)n);
        int32_t x = (int32_t)floorf(q.x), y = (int32_t)floorf(q.y);
        if (x >= x0 && x <= x1 && y >= y0 && y <= y1) return true;
    }
    return false;
}

/* A box squad marching east along a corridor 18 m wide; 2 s in, a truck blocks the corridor
 * ahead but for a gap at its north side. Returns the worst mean slot error after the block and
 * the seconds it spent above 0.5 m; counts the steps the centre spent in a blocked cell. */
typedef struct march_log {
    double worst, seconds_off;
    int centre_in_wall;
    bool arrived, path_clear;
} march_log;

static march_log corridor_block(bool keep_paths) {
    const int32_t walls[2][4] = {{0, 11, 79, 11}, {0, 30, 79, 30}};
    th_world *w = squad_world(80, 40, walls, 2);
    w->squads_keep_paths = keep_paths;
    th_squad_def sd = th_default_squad_def();
    sd.crowd = CROWD_ID(0);
    sd.count = 9;
    sd.formation = TH_FORMATION_BOX;
    sd.start = th_v2(12, 20.5f);
    sd.goal = th_v2(70, 20.5f);
    ck_assert_int_eq(IDX(th_world_add_squad(w, &sd, NULL)), 0);
    march_log log = {0, 0, 0, false, true};
    for (int s = 0; s < 60 * 90 && !log.arrived; s++) {
        if (s == 120) ck_assert(th_world_block_cells(w, 40, 12, 41, 23, NULL));
        th_world_step(w);
        th_squad_info si;
        th_world_get_squad(w, SQUAD_ID(0), &si);
        log.arrived = si.arrived;
        log.centre_in_wall += th_world_cell(w, (int32_t)floorf(si.centre.x),
                                            (int32_t)floorf(si.centre.y), NULL) != TH_CELL_OPEN;
        if (s == 121) {
            /* The path after the block, from the centre on, keeps out of it. */
            th_vec2 a = si.centre, b;
            for (uint32_t i = 0; th_world_squad_waypoint(w, SQUAD_ID(0), i, &b); i++) {
                if (i > 0 && segment_enters(a, b, 40, 12, 41, 23)) log.path_clear = false;
                a = b;
            }
        }
        if (s > 120) {
            double e = formation_error(w, 0);
            log.worst = fmax(log.worst, e);
            if (e > 0.5) log.seconds_off += 1.0 / 60.0;
        }
    }
    th_world_destroy(w);
    return log;
}

START_TEST(squad_replans_around_a_block) {
    march_log now = corridor_block(false);
    ck_assert_int_eq(now.centre_in_wall, 0);
    ck_assert(now.path_clear);
    ck_assert(now.arrived);
    ck_assert_msg(now.worst < 2.0, "worst slot error %.2f m", now.worst);
    ck_assert_msg(now.seconds_off < 6.0, "%.1f s more than 0.5 m off the slots", now.seconds_off);
    /* The same march holding the old path: the centre walks through the truck and the members,
     * stopped by it, fall metres behind for many seconds. The bounds above tell the two apart. */
    march_log old = corridor_block(true);
    ck_assert_int_gt(old.centre_in_wall, 0);
    ck_assert(!old.path_clear);
    ck_assert_msg(old.worst >= 2.0 && old.seconds_off >= 6.0, "holding the path: %.2f m, %.1f s",
                  old.worst, old.seconds_off);
}
END_TEST

/* Remaining path length from the centre, metres. */
static double path_left(const th_world *w, uint32_t squad) {
    th_squad_info si;
    th_world_get_squad(w, SQUAD_ID(squad), &si);
    th_vec2 a = si.centre, b;
    double len = 0.0;
    bool first = true;
    for (uint32_t i = 0; th_world_squad_waypoint(w, SQUAD_ID(squad), i, &b); i++) {
        if (first) { /* points behind the centre are passed already: start at the nearest ahead */
            first = false;
            continue;
        }
        len += th_v2_len(th_v2_sub(b, a));
        a = b;
    }
    return len;
}

START_TEST(squad_replans_on_cost_events_and_waits_when_cut_off) {
    /* A swamp laid across the way: the centre goes round it, not through. */
    th_world *w = squad_world(80, 40, NULL, 0);
    th_squad_def sd = th_default_squad_def();
    sd.crowd = CROWD_ID(0);
    sd.count = 4;
    sd.files = 2;
    sd.start = th_v2(10, 20.5f);
    sd.goal = th_v2(70, 20.5f);
    ck_assert_int_eq(IDX(th_world_add_squad(w, &sd, NULL)), 0);
    for (int s = 0; s < 60; s++) th_world_step(w);
    ck_assert(th_world_set_cost(w, 35, 5, 45, 35, 200, NULL));
    th_world_step(w);
    th_squad_info si;
    th_world_get_squad(w, SQUAD_ID(0), &si);
    th_vec2 a = si.centre, b;
    for (uint32_t i = 1; th_world_squad_waypoint(w, SQUAD_ID(0), i, &b); i++) {
        ck_assert_msg(!segment_enters(a, b, 35, 5, 45, 35),
                      "waypoint %u: the path crosses the swamp", i);
        a = b;
    }
    double detour = path_left(w, 0);
    ck_assert(detour > 60.0 - 12.0); /* longer than the straight way that is left */
    /* Drained: a shorter way exists again, and the squad takes it. */
    for (int s = 0; s < 60; s++) th_world_step(w);
    double before = path_left(w, 0);
    ck_assert(th_world_set_cost(w, 35, 5, 45, 35, 1, NULL));
    th_world_step(w);
    th_world_get_squad(w, SQUAD_ID(0), &si);
    ck_assert_msg(path_left(w, 0) < before - 1.0, "left %.1f m before draining, %.1f m after",
                  before, path_left(w, 0));
    ck_assert_double_eq_tol(path_left(w, 0), th_v2_len(th_v2_sub(sd.goal, si.centre)), 1.0);
    th_world_destroy(w);

    /* Rubble (destructible) across the map but for a gap, which a truck then blocks: no route
     * is left, so the squad waits, not arrived, its centre out of the walls; when the rubble
     * is cleared it marches on and arrives. */
    w = squad_world(80, 40, NULL, 0);
    for (int32_t y = 4; y < 40; y++) {
        for (int32_t x = 50; x <= 51; x++)
            ck_assert(th_world_set_cell(w, x, y, TH_CELL_DESTRUCTIBLE, 1, NULL));
    }
    sd.start = th_v2(20, 20.5f);
    ck_assert_int_eq(IDX(th_world_add_squad(w, &sd, NULL)), 0);
    for (int s = 0; s < 60; s++) th_world_step(w);
    th_world_get_squad(w, SQUAD_ID(0), &si);
    ck_assert(!si.stuck);
    ck_assert(th_world_block_cells(w, 50, 0, 51, 3, NULL));
    for (int s = 0; s < 60 * 20; s++) {
        th_world_step(w);
        th_world_get_squad(w, SQUAD_ID(0), &si);
        ck_assert(si.stuck);
        ck_assert(!si.arrived);
        ck_assert(th_world_cell(w, (int32_t)floorf(si.centre.x), (int32_t)floorf(si.centre.y),
                                NULL) == TH_CELL_OPEN);
        assert_members_outside_walls(w, 0);
    }
    ck_assert(si.centre.x < 50.0f);
    ck_assert(th_world_break_walls(w, 50, 0, 51, 39, NULL));
    int steps = march(w, 0, 60 * 60, NULL);
    ck_assert_msg(steps < 60 * 60, "never arrived after the rubble was cleared");
    th_world_get_squad(w, SQUAD_ID(0), &si);
    ck_assert(!si.stuck);
    th_world_destroy(w);
}
END_TEST

/* The slots of a formation of n in the squad's frame (x ahead, y to the left), centred on
 * their centroid, as throng.h's formation comments describe them: line across, column behind,
 * wedge a V from the front, box in ranks of `files`, circle a ring of radius
 * max(spacing, n * spacing / 2 pi). */
static void template_of(th_formation f, uint32_t n, float s, uint32_t files, th_vec2 *out) {
    th_vec2 c = {0, 0};
    for (uint32_t i = 0; i < n; i++) {
        float x = 0, y = 0, row = (float)((i + 1) / 2);
        float r = fmaxf(s, (float)n * s / (2.0f * (float)TH_PI));
        float a = 2.0f * (float)TH_PI * (float)i / (float)n;
        switch (f) {
        case TH_FORMATION_LINE: y = ((float)i - 0.5f * (float)(n - 1)) * s; break;
        case TH_FORMATION_COLUMN: x = -(float)i * s; break;
        case TH_FORMATION_WEDGE:
            x = -row * s;
            y = i ? (i % 2 ? 1.0f : -1.0f) * row * s : 0.0f;
            break;
        case TH_FORMATION_BOX:
            x = -(float)(i / files) * s;
            y = ((float)(i % files) - 0.5f * (float)(files - 1)) * s;
            break;
        default: x = r * cosf(a), y = r * sinf(a); break;
        }
        out[i] = th_v2(x, y);
        c = th_v2_add(c, out[i]);
    }
    for (uint32_t i = 0; i < n; i++) out[i] = th_v2_sub(out[i], th_v2_scale(c, 1.0f / (float)n));
}

/* A goal in the corner of a walled room, one cell from two border walls: every formation,
 * turned to the heading it arrives with, would put slots in the walls there (checked below
 * from the squad's centre and heading, with the template the docs give). Those slots move to
 * the nearest open cells the squad can reach: every shape arrives, no slot and no member is
 * ever inside a wall, and the arrived members stand within the tolerance of their slots. */
START_TEST(every_formation_arrives_at_a_goal_against_a_wall) {
    const int32_t border[4][4] = {{0, 0, 29, 0}, {0, 19, 29, 19}, {0, 0, 0, 19}, {29, 0, 29, 19}};
    for (int f = TH_FORMATION_LINE; f <= TH_FORMATION_CIRCLE; f++) {
        th_world *w = squad_world(30, 20, border, 4);
        th_squad_def sd = th_default_squad_def();
        sd.crowd = CROWD_ID(0);
        sd.count = 9;
        sd.formation = (th_formation)f;
        sd.spacing = 1.5f;
        sd.start = th_v2(9.0f, 10.0f);
        sd.goal = th_v2(27.5f, 1.5f);
        th_error err;
        ck_assert_msg(IDX(th_world_add_squad(w, &sd, &err)) == 0, "%s", err.message);
        int steps = 0;
        th_squad_info si;
        for (; steps < 3600; steps++) {
            th_world_step(w);
            assert_members_outside_walls(w, 0);
            for (uint32_t i = 0; i < sd.count; i++) {
                th_vec2 slot;
                ck_assert(th_world_get_squad_member(w, SQUAD_ID(0), i, NULL, &slot));
                CHECK_MSG(th_world_cell(w, (int32_t)floorf(slot.x), (int32_t)floorf(slot.y),
                                        NULL) == TH_CELL_OPEN &&
                              slot.x >= 0.0f && slot.y >= 0.0f,
                          "formation %d, step %d: slot at (%g, %g) is not open ground", f, steps,
                          (double)slot.x, (double)slot.y);
            }
            th_world_get_squad(w, SQUAD_ID(0), &si);
            if (si.arrived) break;
        }
        ck_assert_msg(si.arrived, "formation %d has not arrived after 60 s", f);
        ck_assert_float_eq_tol(si.centre.x, sd.goal.x, 1e-3f);
        ck_assert_float_eq_tol(si.centre.y, sd.goal.y, 1e-3f);
        /* The shape as laid out at the goal (template of throng.h's formation comments, centred
         * on its centroid): at least one of its slots falls in a wall, so the test is about
         * moved slots. */
        th_vec2 local[9];
        template_of((th_formation)f, 9, 1.5f, 3, local);
        int in_wall = 0;
        for (int i = 0; i < 9; i++) {
            th_vec2 l = local[i], h = si.heading;
            th_vec2 p =
                th_v2(si.centre.x + l.x * h.x - l.y * h.y, si.centre.y + l.x * h.y + l.y * h.x);
            in_wall += p.x < 1.0f || p.y < 1.0f || p.x >= 29.0f || p.y >= 19.0f;
        }
        ck_assert_msg(in_wall > 0, "formation %d: the goal puts no slot in a wall", f);
        for (uint32_t i = 0; i < sd.count; i++) {
            th_agent_id id;
            th_vec2 slot;
            th_agent_state a;
            ck_assert(th_world_get_squad_member(w, SQUAD_ID(0), i, &id, &slot));
            ck_assert(th_world_get_agent(w, id, &a));
            ck_assert_float_le(hypotf(a.position.x - slot.x, a.position.y - slot.y), sd.tolerance);
        }
        th_world_destroy(w);
    }
}
END_TEST

/* How far a squad's members and slots are from its shape, this step: the largest distance from
 * a member to its slot, and from a slot, seen in the squad's frame (centre, heading), to the
 * nearest template slot (the shape the docs give). Both stay near zero for a rigid squad. */
static void shape_errors(const th_world *w, th_formation f, uint32_t n, float spacing,
                         uint32_t files, float *member_err, float *slot_err) {
    th_vec2 local[16];
    template_of(f, n, spacing, files, local);
    th_squad_info si;
    ck_assert(th_world_get_squad(w, SQUAD_ID(0), &si));
    *member_err = *slot_err = 0.0f;
    for (uint32_t i = 0; i < n; i++) {
        th_agent_id id;
        th_vec2 slot;
        th_agent_state a;
        ck_assert(th_world_get_squad_member(w, SQUAD_ID(0), i, &id, &slot));
        ck_assert(th_world_get_agent(w, id, &a));
        *member_err = fmaxf(*member_err, hypotf(a.position.x - slot.x, a.position.y - slot.y));
        const th_vec2 d = th_v2_sub(slot, si.centre), h = si.heading;
        const th_vec2 own = th_v2(d.x * h.x + d.y * h.y, -d.x * h.y + d.y * h.x);
        float best = INFINITY;
        for (uint32_t k = 0; k < n; k++)
            best = fminf(best, hypotf(own.x - local[k].x, own.y - local[k].y));
        *slot_err = fmaxf(*slot_err, best);
    }
}

/* A room with a pillar block in the middle: the squad walks round it, turning at the corners of
 * its path. Rigid, every member stays within 0.1 m of its slot and every slot on the template's
 * shape for the whole march (the lag is one step's walk, 2.5 cm), no member enters a wall, and
 * it arrives. The same squad held by potential fields strays further: the test tells them
 * apart. */
static float rigid_march_run(bool rigid, th_formation f, bool *arrived, uint64_t *hash) {
    const int32_t walls[5][4] = {
        {0, 0, 59, 0}, {0, 39, 59, 39}, {0, 0, 0, 39}, {59, 0, 59, 39}, {26, 17, 33, 22}};
    th_world *w = squad_world(60, 40, walls, 5);
    th_squad_def sd = th_default_squad_def();
    sd.crowd = CROWD_ID(0);
    sd.count = 9;
    sd.formation = f;
    sd.spacing = 1.5f;
    sd.start = th_v2(12.0f, 12.0f);
    sd.goal = th_v2(48.0f, 28.0f);
    sd.rigid = rigid;
    th_error err;
    ck_assert_msg(IDX(th_world_add_squad(w, &sd, &err)) == 0, "%s", err.message);
    float worst = 0.0f;
    th_squad_info si = {0};
    for (int s = 0; s < 90 * 60 && !si.arrived; s++) {
        th_world_step(w);
        assert_members_outside_walls(w, 0);
        float me, se;
        shape_errors(w, f, 9, 1.5f, 3, &me, &se);
        worst = fmaxf(worst, me);
        if (rigid) CHECK_MSG(se < 1e-3f, "step %d: a slot is %g m off the shape", s, (double)se);
        th_world_get_squad(w, SQUAD_ID(0), &si);
        if (rigid) CHECK(!si.stuck);
    }
    *arrived = si.arrived;
    if (hash) *hash = th_world_hash(w);
    th_world_destroy(w);
    return worst;
}

START_TEST(rigid_formation_moves_as_one_body) {
    const th_formation shapes[] = {TH_FORMATION_BOX, TH_FORMATION_LINE, TH_FORMATION_COLUMN,
                                   TH_FORMATION_WEDGE, TH_FORMATION_CIRCLE};
    for (size_t f = 0; f < sizeof shapes / sizeof shapes[0]; f++) {
        bool arrived = false;
        float worst = rigid_march_run(true, shapes[f], &arrived, NULL);
        ck_assert_msg(arrived, "rigid formation %d never arrived", (int)shapes[f]);
        ck_assert_msg(worst < 0.1f, "rigid formation %d: a member %.3f m off its slot",
                      (int)shapes[f], (double)worst);
    }
    bool arrived = false;
    float loose = rigid_march_run(false, TH_FORMATION_BOX, &arrived, NULL);
    ck_assert_msg(loose > 0.1f, "potential-field box: %.3f m at worst", (double)loose);
    /* Deterministic: the same state for 1, 2, 3 and 8 threads. */
    uint64_t ref = 0, h = 0;
    const uint32_t threads[4] = {1, 2, 3, 8};
    for (int t = 0; t < 4; t++) {
        g_threads = threads[t];
        rigid_march_run(true, TH_FORMATION_WEDGE, &arrived, t ? &h : &ref);
        if (t) ck_assert_msg(h == ref, "%u threads give another state", threads[t]);
    }
    g_threads = 2;
}
END_TEST

/* The only way to the goal is a corridor two cells wide; a rigid box three slots (3 m) wide
 * waits at its mouth, shape kept and reported stuck, and never arrives; the same box held by
 * potential fields squeezes through and arrives. */
static th_world *corridor_world(bool rigid) {
    const int32_t walls[6][4] = {{0, 0, 39, 0},   {0, 19, 39, 19}, {0, 0, 0, 19},
                                 {39, 0, 39, 19}, {18, 1, 22, 8},  {18, 11, 22, 18}};
    th_world *w = squad_world(40, 20, walls, 6);
    th_squad_def sd = th_default_squad_def();
    sd.crowd = CROWD_ID(0);
    sd.count = 9;
    sd.spacing = 1.5f;
    sd.start = th_v2(6.0f, 10.0f);
    sd.goal = th_v2(33.0f, 10.0f);
    sd.rigid = rigid;
    th_error err;
    ck_assert_msg(IDX(th_world_add_squad(w, &sd, &err)) == 0, "%s", err.message);
    return w;
}

START_TEST(rigid_formation_waits_at_a_corridor_narrower_than_its_shape) {
    th_world *w = corridor_world(true);
    th_squad_info si = {0};
    for (int s = 0; s < 60 * 60; s++) {
        th_world_step(w);
        assert_members_outside_walls(w, 0);
        float me, se;
        shape_errors(w, TH_FORMATION_BOX, 9, 1.5f, 3, &me, &se);
        CHECK_MSG(me < 0.1f && se < 1e-3f, "step %d: member %g m, slot %g m off the shape", s,
                  (double)me, (double)se);
        th_world_get_squad(w, SQUAD_ID(0), &si);
        CHECK(!si.arrived);
    }
    ck_assert(si.stuck);
    /* It stands before the corridor, its slots clear of the corridor's walls. */
    ck_assert_float_lt(si.centre.x, 18.0f - 1.5f);
    th_world_destroy(w);
    w = corridor_world(false);
    for (int s = 0; s < 60 * 60 && !si.arrived; s++) {
        th_world_step(w);
        th_world_get_squad(w, SQUAD_ID(0), &si);
    }
    ck_assert_msg(si.arrived, "the potential-field box did not squeeze through");
    th_world_destroy(w);
}
END_TEST

/* ---- squads where their formation does not fit --------------------------------------------
 *
 * A yard (x < 15) with, east of it, either a dead-end corridor `size` metres wide (open to
 * x = 34) or a door 2 m wide into a square room `size` metres across; `cell` metres a cell. One
 * squad of 7 starts in the yard and has its goal at the far end of the corridor or in the
 * middle of the room. */
enum { SITE_DEAD_END, SITE_ROOM };

static th_world *site_world(int site, float size, float cell, uint64_t seed) {
    th_world_def wd = th_default_world_def();
    wd.width = 40.0f;
    wd.height = 14.0f;
    wd.cell_size = cell;
    wd.threads = g_threads;
    wd.seed = seed;
    th_error err;
    th_world *w = th_world_create(&wd, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    const int32_t cols = (int32_t)(40.0f / cell), rows = (int32_t)(14.0f / cell);
    for (int32_t j = 0; j < rows; j++) {
        for (int32_t i = 0; i < cols; i++) {
            const float x = ((float)i + 0.5f) * cell, y = fabsf(((float)j + 0.5f) * cell - 7.0f);
            bool open = x < 15.0f;
            if (site == SITE_DEAD_END) open = open || (x < 34.0f && y < 0.5f * size);
            else open = open || (x < 17.0f && y < 1.0f) || (x < 17.0f + size && y < 0.5f * size);
            if (!open) ck_assert(th_world_set_cell(w, i, j, TH_CELL_WALL, 1, &err));
        }
    }
    th_crowd_def cd = th_default_crowd_def();
    cd.name = "soldiers";
    cd.separation_radius = 0.8f;
    cd.max_speed = 3;
    cd.max_force = 12;
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), 0);
    return w;
}

/* The closest two slots of a squad (metres), from the slots the API gives. */
static float closest_slots(const th_world *w, uint32_t squad, uint32_t n) {
    float best = INFINITY;
    for (uint32_t a = 0; a < n; a++) {
        th_vec2 sa, sb;
        ck_assert(th_world_get_squad_member(w, SQUAD_ID(squad), a, NULL, &sa));
        for (uint32_t b = a + 1; b < n; b++) {
            ck_assert(th_world_get_squad_member(w, SQUAD_ID(squad), b, NULL, &sb));
            best = fminf(best, hypotf(sa.x - sb.x, sa.y - sb.y));
        }
    }
    return best;
}

/* Whether the squad arrives within `limit` steps (else it must say it has no room at its
 * goal, at the end); at every step, unless it has no room, no two of its slots are closer than
 * the members' separation radius. On arrival every member stands within tolerance of its slot
 * (a slot the room cannot hold may stand in the door or the yard before it). */
static bool fit_run(int site, float size, float cell, uint64_t seed, th_formation f, int limit) {
    th_world *w = site_world(site, size, cell, seed);
    th_squad_def sd = th_default_squad_def();
    sd.crowd = CROWD_ID(0);
    sd.count = 7;
    sd.formation = f;
    sd.start = th_v2(6.0f, 7.0f);
    sd.goal = site == SITE_DEAD_END ? th_v2(33.0f, 7.0f) : th_v2(17.0f + 0.5f * size, 7.0f);
    th_error err;
    ck_assert_msg(IDX(th_world_add_squad(w, &sd, &err)) == 0, "%s", err.message);
    th_squad_info si = {0};
    for (int step = 0; step < limit && !si.arrived; step++) {
        th_world_step(w);
        th_world_get_squad(w, SQUAD_ID(0), &si);
        if (si.no_room) continue;
        const float gap = closest_slots(w, 0, si.members);
        CHECK_MSG(gap >= 0.8f - 1e-4f,
                  "site %d size %g cell %g formation %d step %d: two slots %g m apart", site,
                  (double)size, (double)cell, f, step, (double)gap);
    }
    if (si.arrived) {
        for (uint32_t i = 0; i < si.members; i++) {
            th_agent_id id;
            th_vec2 slot;
            th_agent_state a;
            ck_assert(th_world_get_squad_member(w, SQUAD_ID(0), i, &id, &slot));
            ck_assert(th_world_get_agent(w, id, &a));
            ck_assert_float_le(hypotf(a.position.x - slot.x, a.position.y - slot.y), sd.tolerance);
        }
    } else {
        ck_assert_msg(si.no_room,
                      "site %d size %g cell %g seed %" PRIu64 " formation %d: neither arrived "
                      "in %d steps nor said it has no room (%.2f m from its slots)",
                      site, (double)size, (double)cell, seed, f, limit, (double)si.error);
    }
    th_world_destroy(w);
    return si.arrived;
}

/* Box and column squads sent into dead ends 1.5 to 4 m wide and into rooms of several sizes,
 * on 0.25 and 0.5 m cells, two seeds: each arrives within 60 s, its slots never closer than
 * the members' separation, or says it has no room at its goal (fit_run). Where it certainly
 * fits (any dead end here: 19 m of corridor; the 8 m room) it arrives. */
START_TEST(squads_arrive_where_they_fit_and_say_when_they_do_not) {
    const float cells[] = {0.25f, 0.5f};
    const th_formation shapes[] = {TH_FORMATION_BOX, TH_FORMATION_COLUMN};
    const float dead_ends[] = {1.5f, 2.0f, 3.0f, 4.0f};
    for (int c = 0; c < 2; c++) {
        for (int f = 0; f < 2; f++) {
            for (uint64_t seed = 1; seed <= 2; seed++) {
                for (int d = 0; d < 4; d++) {
                    const bool in =
                        fit_run(SITE_DEAD_END, dead_ends[d], cells[c], seed, shapes[f], 3600);
                    ck_assert_msg(in, "dead end %g m, cell %g, formation %d: not arrived",
                                  (double)dead_ends[d], (double)cells[c], shapes[f]);
                }
                const bool big = fit_run(SITE_ROOM, 8.0f, cells[c], seed, shapes[f], 3600);
                ck_assert_msg(big, "8 m room, cell %g, formation %d: not arrived", (double)cells[c],
                              shapes[f]);
                (void)fit_run(SITE_ROOM, 4.0f, cells[c], seed, shapes[f], 3600);
                (void)fit_run(SITE_ROOM, 2.0f, cells[c], seed, shapes[f], 3600);
            }
        }
    }
}
END_TEST

/* The flood scene (scenes/flood.yaml): its rescue column, turned by the flood onto the hill
 * road, has slots moved off the walls on the way; they keep the rescuers' separation (0.8 m)
 * from one another at every step, and the squad still arrives within the scene's 60 s with
 * every member within tolerance of its slot. */
START_TEST(flood_squad_keeps_its_slots_apart_and_arrives) {
    th_world *w = th_test_load(THRONG_SOURCE_DIR "/scenes/flood.yaml",
                               (th_scene_opts){.threads = g_threads}, 100000, NULL);
    th_squad_info si = {0};
    int step = 0;
    for (; step < 3600 && !si.arrived; step++) {
        th_world_step(w);
        ck_assert(th_world_get_squad(w, SQUAD_ID(0), &si));
        ck_assert(!si.no_room);
        const float gap = closest_slots(w, 0, si.members);
        CHECK_MSG(gap >= 0.8f - 1e-4f, "step %d: two slots %g m apart", step, (double)gap);
    }
    ck_assert_msg(si.arrived, "the flood's squad has not arrived in 60 s");
    for (uint32_t i = 0; i < si.members; i++) {
        th_agent_id id;
        th_vec2 slot;
        th_agent_state a;
        ck_assert(th_world_get_squad_member(w, SQUAD_ID(0), i, &id, &slot));
        ck_assert(th_world_get_agent(w, id, &a));
        ck_assert_float_le(hypotf(a.position.x - slot.x, a.position.y - slot.y), 1.0f);
    }
    th_world_destroy(w);
}
END_TEST

START_TEST(bad_squads_are_rejected) {
    const int32_t wall[1][4] = {{40, 0, 41, 59}}; /* no gap */
    th_world *w = squad_world(80, 60, wall, 1);
    th_error err;
    th_squad_def sd = th_default_squad_def();
    sd.crowd = CROWD_ID(0);
    sd.count = 0;
    sd.start = th_v2(20, 20);
    sd.goal = th_v2(30, 20);
    ck_assert_int_eq(IDX(th_world_add_squad(w, &sd, &err)), -1);
    sd.count = 4;
    sd.goal = th_v2(60, 20); /* behind an unbroken wall */
    ck_assert_int_eq(IDX(th_world_add_squad(w, &sd, &err)), -1);
    TH_TEST_ERR(err, TH_ERR_UNREACHABLE);
    sd.goal = th_v2(30, 20);
    sd.start = th_v2(36.5f, 20); /* heading west, the column's tail would stand in the wall */
    sd.formation = TH_FORMATION_COLUMN;
    sd.spacing = 4; /* tail slot at x = 36.5 + 4 = 40.5, in the wall */
    sd.count = 3;
    ck_assert_int_eq(IDX(th_world_add_squad(w, &sd, &err)), -1);
    sd.start = th_v2(20, 20);
    sd.crowd = CROWD_ID(5);
    ck_assert_int_eq(IDX(th_world_add_squad(w, &sd, &err)), -1);
    ck_assert(!th_world_remove_agent(w, th_test_id(12345), &err));
    TH_TEST_ERR(err, TH_ERR_HANDLE);
    th_world_destroy(w);
}
END_TEST

int main(void) {
    Suite *s = suite_create("squad");
    TCase *tc = tcase_create("formations");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, every_formation_holds_on_open_ground);
    /* Under ThreadSanitizer not the long walks to a goal or a corridor: their passes run on
     * 2 threads in the other tests and on 1, 2, 3 and 8 in the rigid formation's. */
    if (!TH_TEST_TSAN) tcase_add_test(tc, column_breaks_at_a_pillar_and_reforms);
    if (!TH_TEST_TSAN) tcase_add_test(tc, goal_behind_a_wall_reached_without_oscillation);
    tcase_add_test(tc, lost_members_close_up);
    tcase_add_test(tc, joining_members_take_slots);
    tcase_add_test(tc, bad_squads_are_rejected);
    if (!TH_TEST_TSAN) tcase_add_test(tc, squads_arrive_where_they_fit_and_say_when_they_do_not);
    if (!TH_TEST_TSAN) tcase_add_test(tc, flood_squad_keeps_its_slots_apart_and_arrives);
    if (!TH_TEST_TSAN) tcase_add_test(tc, every_formation_arrives_at_a_goal_against_a_wall);
    tcase_add_test(tc, rigid_formation_moves_as_one_body);
    if (!TH_TEST_TSAN)
        tcase_add_test(tc, rigid_formation_waits_at_a_corridor_narrower_than_its_shape);
    if (!TH_TEST_TSAN) tcase_add_test(tc, squad_replans_around_a_block);
    tcase_add_test(tc, squad_replans_on_cost_events_and_waits_when_cut_off);
    suite_add_tcase(s, tc);
    return th_test_run(s);
}
