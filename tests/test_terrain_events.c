/* Terrain cost events: fields repaired to exactly what a map built with the new costs gives,
 * checked against plain Dijkstra; A* after a change; determinism; bad input. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/alloc.h"
#include "engine/rng.h"
#include "throng/throng.h"
#include "sim/core/world.h"
#include "ref_dijkstra.h"
#include "test_util.h"

enum { MW = 48, MH = 36 };

/* Walls: a frame, and short wall pieces drawn from a fixed seed, kept clear of the bunkers
 * (two 3 x 3 rooms at opposite corners) and of the destination goals. */
static bool wall_at(int32_t x, int32_t y) {
    if (x == 0 || y == 0 || x == MW - 1 || y == MH - 1) return true;
    if ((x < 6 && y < 6) || (x > MW - 7 && y > MH - 7)) return false;
    if (x >= 20 && x <= 26 && y >= 14 && y <= 20) return false;
    uint64_t r = th_rng_u64(4242, (uint64_t)(y / 3) * 64 + (uint64_t)(x / 3), 0);
    return r % 5 == 0 && (r >> 8) % 3 != 0;
}

static const th_bunker_def k_bunkers[2] = {
    {.name = "sw", .x0 = 2, .y0 = 2, .x1 = 4, .y1 = 4, .capacity = 0},
    {.name = "ne", .x0 = MW - 5, .y0 = MH - 5, .x1 = MW - 3, .y1 = MH - 3, .capacity = 0}};
static const th_destination k_goals[2] = {{22, 16, 0.0f}, {25, 19, 2.5f}};

/* A world over the walls above with open cells of cost `cost[y * MW + x]` (0: a wall too;
 * NULL: all 1),
 * both bunkers, the destination field and `agents` fleeing agents. */
static th_world *build(uint32_t threads, const uint16_t *cost, uint32_t agents, uint64_t seed) {
    th_world_def wd = th_default_world_def();
    wd.width = MW;
    wd.height = MH;
    wd.cell_size = 1.0f;
    wd.threads = threads;
    wd.seed = seed;
    th_error err;
    th_world *w = th_world_create(&wd, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    for (int32_t y = 0; y < MH; y++) {
        for (int32_t x = 0; x < MW; x++) {
            if (wall_at(x, y) || (cost && cost[y * MW + x] == 0))
                ck_assert(th_world_set_cell(w, x, y, TH_CELL_WALL, 1, &err));
            else if (cost)
                ck_assert(th_world_set_cell(w, x, y, TH_CELL_OPEN, cost[y * MW + x], &err));
        }
    }
    for (int b = 0; b < 2; b++)
        ck_assert_int_eq(IDX(th_world_add_bunker(w, &k_bunkers[b], &err)), b);
    ck_assert_int_eq(IDX(th_world_add_destinations(w, k_goals, 2, &err)), 0);
    th_crowd_def cd = th_default_crowd_def();
    cd.behavior = TH_BEHAVIOR_FLEE;
    cd.max_speed = 3.0f;
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), 0);
    for (uint32_t i = 0, draw = 0; i < agents; draw++) {
        float x = th_rng_range(seed, draw, 0, 0.0f, MW), y = th_rng_range(seed, draw, 1, 0.0f, MH);
        if (th_world_cell(w, (int32_t)x, (int32_t)y, NULL) != TH_CELL_OPEN) continue;
        ck_assert(
            th_agent_id_valid(th_world_add_agent(w, CROWD_ID(0), th_v2(x, y), th_v2(0, 0), &err)));
        i++;
    }
    return w;
}

/* The map's costs as the world reports them (0 = wall). */
static void read_costs(const th_world *w, uint16_t *cost) {
    for (int32_t y = 0; y < MH; y++) {
        for (int32_t x = 0; x < MW; x++) {
            uint32_t c = 0;
            th_world_cell(w, x, y, &c);
            cost[y * MW + x] = (uint16_t)c;
        }
    }
}

/* The documented conversion: TH_NAV_UNITS_PER_CELL (140) units are one metre of cost-1 ground
 * on this 1 m map; unreachable is INFINITY. */
static float metres(uint64_t units) {
    if (units == TH_REF_INF || units > TH_NAV_DIST_MAX) return INFINITY;
    return (float)((double)units / 140.0);
}

/* Every field the world keeps, cell by cell: equal to a world built afresh with the live map's
 * costs, and to plain Dijkstra on those costs. */
static void check_fields(const th_world *live) {
    static uint16_t cost[MW * MH];
    static uint64_t ref_shelter[MW * MH], ref_dest[MW * MH];
    read_costs(live, cost);
    th_world *fresh = build(1, cost, 0, 1);
    th_world_step(fresh);
    th_ref_goal g[18];
    int ng = 0;
    for (int b = 0; b < 2; b++) {
        for (int32_t y = k_bunkers[b].y0; y <= k_bunkers[b].y1; y++) {
            for (int32_t x = k_bunkers[b].x0; x <= k_bunkers[b].x1; x++)
                g[ng++] = (th_ref_goal){x, y, 0};
        }
    }
    ck_assert_int_eq(th_ref_dijkstra(MW, MH, cost, g, ng, ref_shelter), 0);
    th_ref_goal dg[2] = {{k_goals[0].x, k_goals[0].y, 0},
                         {k_goals[1].x, k_goals[1].y, 350}}; /* 2.5 m */
    ck_assert_int_eq(th_ref_dijkstra(MW, MH, cost, dg, 2, ref_dest), 0);
    for (int32_t y = 0; y < MH; y++) {
        for (int32_t x = 0; x < MW; x++) {
            const th_vec2 p = th_v2(x + 0.5f, y + 0.5f);
            const int i = y * MW + x;
            float a = th_world_cost_to_shelter(live, p), b = th_world_cost_to_shelter(fresh, p);
            ck_assert_msg(a == b || (isinf(a) && isinf(b)),
                          "shelter cost at (%d, %d): %g live, %g afresh", x, y, (double)a,
                          (double)b);
            ck_assert_msg(a == metres(ref_shelter[i]) ||
                              (isinf(a) && isinf(metres(ref_shelter[i]))),
                          "shelter cost at (%d, %d): %g, Dijkstra %g", x, y, (double)a,
                          (double)metres(ref_shelter[i]));
            ck_assert_int_eq(IDX(th_world_nearest_bunker(live, p)),
                             IDX(th_world_nearest_bunker(fresh, p)));
            a = th_world_destination_cost(live, FIELD_ID(0), p);
            b = th_world_destination_cost(fresh, FIELD_ID(0), p);
            ck_assert_msg(a == b || (isinf(a) && isinf(b)),
                          "destination cost at (%d, %d): %g live, %g afresh", x, y, (double)a,
                          (double)b);
            ck_assert_msg(a == metres(ref_dest[i]) || (isinf(a) && isinf(metres(ref_dest[i]))),
                          "destination cost at (%d, %d): %g, Dijkstra %g", x, y, (double)a,
                          (double)metres(ref_dest[i]));
            th_vec2 da, db;
            bool ra = th_world_flow(live, p, &da), rb = th_world_flow(fresh, p, &db);
            ck_assert_int_eq(ra, rb);
            ck_assert(da.x == db.x && da.y == db.y); /* same descent: the same field exactly */
        }
    }
    th_world_destroy(fresh);
}

START_TEST(set_cost_fields_equal_fields_built_afresh) {
    th_world *w = build(2, NULL, 150, 7);
    th_world_step(w);
    check_fields(w);
    uint64_t ctr = 0;
    for (int round = 0; round < 24; round++) {
        uint64_t r = th_rng_u64(31, (uint64_t)round, ctr++);
        int32_t x = (int32_t)(r % MW) - 2, y = (int32_t)((r >> 8) % MH) - 2;
        int32_t wdt = 2 + (int32_t)((r >> 16) % 12), hgt = 2 + (int32_t)((r >> 24) % 10);
        switch (round % 4) {
        case 0: /* cheaper only: the repair path */
            ck_assert(
                th_world_set_cost(w, x, y, x + wdt, y + hgt, 1 + (uint32_t)((r >> 32) % 2), NULL));
            break;
        case 1: /* dearer only */
            ck_assert(th_world_set_cost(w, x, y, x + wdt, y + hgt, 5 + (uint32_t)((r >> 32) % 200),
                                        NULL));
            break;
        case 2: /* both in one step, overlapping, and a cell set back to what it was */
            ck_assert(th_world_set_cost(w, x, y, x + wdt, y + hgt, 40, NULL));
            ck_assert(th_world_set_cost(w, x + 2, y + 1, x + wdt + 3, y + hgt, 1, NULL));
            ck_assert(th_world_set_cost(w, x + 3, y + 2, x + 3, y + 2, 40, NULL));
            break;
        default: /* a block and a cheaper cost together, and the top of the range */
            ck_assert(th_world_set_cost(w, x, y, x + wdt, y + hgt, (r >> 40) % 2 ? 1000 : 1, NULL));
            ck_assert(th_world_block_cells(w, x + wdt / 2, y, x + wdt / 2, y + hgt / 2, NULL));
            break;
        }
        th_world_step(w);
        check_fields(w);
    }
    /* Walls and bunker cells are never re-priced. */
    ck_assert(th_world_set_cost(w, 0, 0, MW - 1, MH - 1, 9, NULL));
    th_world_step(w);
    uint32_t c = 0;
    ck_assert_int_eq(th_world_cell(w, 3, 3, &c), TH_CELL_OPEN);
    ck_assert_uint_eq(c, 1);
    ck_assert_int_eq(th_world_cell(w, 0, 0, NULL), TH_CELL_WALL);
    ck_assert_int_eq(th_world_cell(w, 10, 30, &c), wall_at(10, 30) ? TH_CELL_WALL : TH_CELL_OPEN);
    check_fields(w);
    th_world_destroy(w);
}
END_TEST

/* A* after a cost event: the path cost equals Dijkstra on the new costs; landmark bounds built
 * on the old costs are not used until rebuilt. */
START_TEST(find_path_follows_cost_events) {
    th_world *w = build(2, NULL, 0, 3);
    static uint16_t cost[MW * MH];
    static uint64_t ref[MW * MH];
    const th_vec2 from = th_v2(8.5f, 8.5f), to = th_v2(36.5f, 26.5f);
    th_vec2 pts[512];
    uint32_t n = 0;
    float c = 0.0f;
    th_error err;
    for (int round = 0; round < 4; round++) {
        ck_assert_msg(th_world_find_path(w, from, to, pts, 512, &n, &c, &err), "%s", err.message);
        ck_assert(th_astar_landmarks_current(w->nav.astar, &w->nav.map));
        read_costs(w, cost);
        th_ref_goal g = {36, 26, 0};
        ck_assert_int_eq(th_ref_dijkstra(MW, MH, cost, &g, 1, ref), 0);
        ck_assert_msg(c == metres(ref[8 * MW + 8]), "round %d: A* %g, Dijkstra %g", round,
                      (double)c, (double)metres(ref[8 * MW + 8]));
        /* A swamp band across the middle, then drained in part, then made dearer again. */
        const uint32_t band[4] = {60, 2, 300, 1};
        ck_assert(th_world_set_cost(w, 10 + round, 5, 30 + round, 30, band[round], NULL));
        th_world_step(w);
        ck_assert(!th_astar_landmarks_current(w->nav.astar, &w->nav.map));
    }
    th_world_destroy(w);
}
END_TEST

/* Random cost and block events, and a squad marching through them and re-planning, with every
 * invariant checked inside every step and nothing allocated by a step after the first: the
 * same state for 1, 2 and 3 threads. */
static uint64_t run_events(uint32_t threads) {
    th_world *w = build(threads, NULL, 400, 5);
    th_crowd_def cd = th_default_crowd_def();
    cd.name = "squad";
    cd.separation_radius = 0.8f;
    cd.max_speed = 3.0f;
    cd.max_force = 12.0f;
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, NULL)), 1);
    th_squad_def sd = th_default_squad_def();
    sd.crowd = CROWD_ID(1);
    sd.count = 6;
    sd.files = 3;
    sd.spacing = 1.0f;
    sd.start = th_v2(23.5f, 17.5f);
    sd.goal = th_v2(7.5f, 32.5f);
    th_error err;
    ck_assert_msg(IDX(th_world_add_squad(w, &sd, &err)) == 0, "%s", err.message);
    th_world_set_validation(w, true);
    uint64_t step_allocs = 0;
    for (int s = 0; s < 300; s++) {
        uint64_t r = th_rng_u64(55, (uint64_t)s, 0);
        int32_t x = (int32_t)((r >> 16) % MW), y = (int32_t)((r >> 24) % MH);
        switch (r % 11) {
        case 0:
            th_world_set_cost(w, x - 3, y - 3, x + 3, y + 3, 1 + (uint32_t)(r >> 40) % 50, NULL);
            break;
        case 1: th_world_set_cost(w, x - 5, y - 2, x + 5, y + 2, 1, NULL); break;
        case 2: th_world_block_cells(w, x, y, x + 1, y, NULL); break;
        case 3: th_world_open_cells(w, x - 4, y - 4, x + 4, y + 4, NULL); break;
        default: break;
        }
        uint64_t before = th_alloc_count();
        th_world_step(w);
        if (s > 0) step_allocs += th_alloc_count() - before; /* re-planning allocates nothing */
        ck_assert_msg(th_world_validation_error(w) == NULL, "%s", th_world_validation_error(w));
    }
    ck_assert_uint_eq(step_allocs, 0);
    uint64_t h = th_world_hash(w);
    th_world_destroy(w);
    return h;
}

START_TEST(cost_events_keep_determinism_across_thread_counts) {
    uint64_t ref = run_events(1);
    ck_assert(run_events(2) == ref);
    ck_assert(run_events(3) == ref);
}
END_TEST

START_TEST(bad_cost_events_are_rejected) {
    th_world *w = build(1, NULL, 0, 1);
    th_error err;
    ck_assert(!th_world_set_cost(w, 5, 5, 6, 6, 0, &err));
    TH_TEST_ERR(err, TH_ERR_INVALID);
    ck_assert_ptr_nonnull(strstr(err.message, "[1, 1000]"));
    ck_assert(!th_world_set_cost(w, 5, 5, 6, 6, 1001, &err));
    TH_TEST_ERR(err, TH_ERR_INVALID);
    ck_assert(!th_world_set_cost(w, 6, 5, 5, 6, 3, &err));
    TH_TEST_ERR(err, TH_ERR_INVALID);
    ck_assert(!th_world_set_cost(w, 100, 100, 200, 200, 3, &err));
    TH_TEST_ERR(err, TH_ERR_BLOCKED);
    ck_assert(!th_world_schedule(
        w, 0, &(th_event_def){.type = TH_EVENT_SET_COST, .x0 = 1, .y0 = 1, .x1 = 2, .y1 = 2},
        &err));
    TH_TEST_ERR(err, TH_ERR_INVALID);
    ck_assert_uint_eq(th_world_pending_events(w), 0);
    /* Partly off the map: clipped, like the wall events. */
    ck_assert(th_world_set_cost(w, -10, -10, 3, 3, 4, &err));
    th_world_step(w);
    uint32_t c = 0;
    ck_assert_int_eq(th_world_cell(w, 1, 1, &c), TH_CELL_OPEN);
    ck_assert_uint_eq(c, 4);
    th_world_destroy(w);
    th_world_def wd = th_default_world_def();
    w = th_world_create(&wd, &err);
    ck_assert(!th_world_set_cost(w, 0, 0, 1, 1, 3, &err));
    TH_TEST_ERR(err, TH_ERR_STATE);
    th_world_destroy(w);
}
END_TEST

/* ---- doors that reopen ------------------------------------------------------------------- */

/* The cells as the events leave them, kept by the test on its own: cost (0 = blocked) and what
 * a block closed (0 = nothing). An event applies to the cells of its clipped rectangle as
 * documented in throng.h: a block closes open, non-bunker cells and remembers their cost; an
 * open gives back what a block closed; a set_cost re-prices open, non-bunker ground, or the
 * ground under a closed door; a break_wall has no destructible wall to break here. */
typedef struct door_model {
    uint16_t cost[MW * MH], closed[MW * MH];
} door_model;

static bool bunker_cell(int32_t x, int32_t y) {
    for (int b = 0; b < 2; b++) {
        if (x >= k_bunkers[b].x0 && x <= k_bunkers[b].x1 && y >= k_bunkers[b].y0 &&
            y <= k_bunkers[b].y1)
            return true;
    }
    return false;
}

static void model_event(door_model *m, th_event_type type, int32_t x0, int32_t y0, int32_t x1,
                        int32_t y1, uint16_t cost) {
    for (int32_t y = y0 < 0 ? 0 : y0; y <= y1 && y < MH; y++) {
        for (int32_t x = x0 < 0 ? 0 : x0; x <= x1 && x < MW; x++) {
            const int i = y * MW + x;
            if (bunker_cell(x, y)) continue;
            if (type == TH_EVENT_BLOCK_CELLS && m->cost[i]) {
                m->closed[i] = m->cost[i];
                m->cost[i] = 0;
            } else if (type == TH_EVENT_OPEN_CELLS && m->closed[i]) {
                m->cost[i] = m->closed[i];
                m->closed[i] = 0;
            } else if (type == TH_EVENT_SET_COST) {
                if (m->closed[i]) m->closed[i] = cost;
                else if (m->cost[i]) m->cost[i] = cost;
            }
        }
    }
}

/* Blocks, opens, re-pricings and blocks again in every order, several in one step: after each
 * step the map holds exactly what the model says, and every field equals the fields of a world
 * built afresh on that map and plain Dijkstra. Once every door is open again and the costs are
 * set back, the map and its fields are those of the untouched map. */
START_TEST(open_gives_back_what_block_closed) {
    th_world *w = build(2, NULL, 120, 11);
    th_world_step(w);
    static door_model m;
    static uint16_t untouched[MW * MH], live[MW * MH];
    read_costs(w, untouched);
    memcpy(m.cost, untouched, sizeof m.cost);
    memset(m.closed, 0, sizeof m.closed);
    /* Terrain first: a swamp the doors close over, so the cost given back is not just 1. */
    ck_assert(th_world_set_cost(w, 8, 6, 30, 20, 7, NULL));
    model_event(&m, TH_EVENT_SET_COST, 8, 6, 30, 20, 7);
    th_world_step(w);
    uint64_t ctr = 0, step_allocs = 0;
    for (int round = 0; round < 30; round++) {
        const int events = 1 + round % 3;
        for (int e = 0; e < events; e++) {
            uint64_t r = th_rng_u64(77, (uint64_t)round, ctr++);
            int32_t x = (int32_t)(r % MW) - 2, y = (int32_t)((r >> 8) % MH) - 2;
            int32_t x1 = x + 1 + (int32_t)((r >> 16) % 9), y1 = y + 1 + (int32_t)((r >> 24) % 7);
            const th_event_type kinds[4] = {TH_EVENT_BLOCK_CELLS, TH_EVENT_OPEN_CELLS,
                                            TH_EVENT_SET_COST, TH_EVENT_OPEN_CELLS};
            th_event_type type = kinds[(r >> 32) % 4];
            for (int g = 0; g < 2; g++) { /* destination goals stay open: fields need them */
                if (type == TH_EVENT_BLOCK_CELLS && k_goals[g].x >= x && k_goals[g].x <= x1 &&
                    k_goals[g].y >= y && k_goals[g].y <= y1)
                    type = TH_EVENT_OPEN_CELLS;
            }
            const uint16_t cost = (uint16_t)(1 + (r >> 40) % 20);
            th_event_def d = {type, {0}, x, y, x1, y1, type == TH_EVENT_SET_COST ? cost : 0};
            ck_assert(th_world_schedule(w, th_world_step_count(w), &d, NULL));
            model_event(&m, type, x, y, x1, y1, cost);
        }
        uint64_t before = th_alloc_count();
        th_world_step(w);
        step_allocs += th_alloc_count() - before;
        read_costs(w, live);
        for (int i = 0; i < MW * MH; i++)
            ck_assert_msg(live[i] == m.cost[i], "round %d, cell (%d, %d): cost %u, expected %u",
                          round, i % MW, i / MW, live[i], m.cost[i]);
        check_fields(w);
    }
    ck_assert_uint_eq(step_allocs, 0);
    /* Every door open, every cost set back: the untouched map, and its fields. */
    ck_assert(th_world_open_cells(w, 0, 0, MW - 1, MH - 1, NULL));
    ck_assert(th_world_set_cost(w, 0, 0, MW - 1, MH - 1, 1, NULL)); /* every cost back to 1 */
    th_world_step(w);
    read_costs(w, live);
    ck_assert(memcmp(live, untouched, sizeof live) == 0);
    check_fields(w);
    th_world *fresh = build(1, NULL, 0, 1);
    th_world_step(fresh);
    for (int32_t y = 0; y < MH; y++) {
        for (int32_t x = 0; x < MW; x++) {
            const th_vec2 p = th_v2(x + 0.5f, y + 0.5f);
            float a = th_world_cost_to_shelter(w, p), b = th_world_cost_to_shelter(fresh, p);
            ck_assert(a == b || (isinf(a) && isinf(b)));
            a = th_world_destination_cost(w, FIELD_ID(0), p);
            b = th_world_destination_cost(fresh, FIELD_ID(0), p);
            ck_assert(a == b || (isinf(a) && isinf(b)));
        }
    }
    th_world_destroy(fresh);
    th_world_destroy(w);
}
END_TEST

/* Walls of the map stay walls under an open event; a destructible one opens only by break_wall;
 * open ground is left as it is. */
START_TEST(open_leaves_walls_of_the_map) {
    th_world *w = build(1, NULL, 0, 1);
    th_error err;
    ck_assert(th_world_set_cell(w, 10, 3, TH_CELL_DESTRUCTIBLE, 1, &err));
    ck_assert(th_world_set_cell(w, 11, 3, TH_CELL_OPEN, 5, &err));
    th_world_step(w);
    ck_assert_msg(th_world_open_cells(w, 0, 0, 20, 3, &err), "%s", err.message);
    th_world_step(w);
    uint32_t c = 0;
    ck_assert_int_eq(th_world_cell(w, 0, 0, NULL), TH_CELL_WALL);
    ck_assert_int_eq(th_world_cell(w, 10, 3, NULL), TH_CELL_DESTRUCTIBLE);
    ck_assert_int_eq(th_world_cell(w, 11, 3, &c), TH_CELL_OPEN);
    ck_assert_uint_eq(c, 5);
    /* A block on the destructible wall changes nothing: break_wall still opens it. */
    ck_assert(th_world_block_cells(w, 10, 3, 11, 3, &err));
    th_world_step(w);
    ck_assert_int_eq(th_world_cell(w, 11, 3, NULL), TH_CELL_WALL);
    ck_assert(th_world_break_walls(w, 10, 3, 11, 3, &err));
    th_world_step(w);
    ck_assert_int_eq(th_world_cell(w, 10, 3, NULL), TH_CELL_OPEN);
    ck_assert_int_eq(th_world_cell(w, 11, 3, NULL), TH_CELL_WALL); /* the block stays */
    ck_assert(th_world_open_cells(w, 11, 3, 11, 3, &err));
    th_world_step(w);
    ck_assert_int_eq(th_world_cell(w, 11, 3, &c), TH_CELL_OPEN);
    ck_assert_uint_eq(c, 5);
    /* Bad rectangles are refused like the other terrain events'. */
    ck_assert(!th_world_open_cells(w, 6, 5, 5, 6, &err));
    TH_TEST_ERR(err, TH_ERR_INVALID);
    ck_assert(!th_world_open_cells(w, 100, 100, 200, 200, &err));
    TH_TEST_ERR(err, TH_ERR_BLOCKED);
    th_world_destroy(w);
}
END_TEST

/* A hall behind a wall with one door: the crowd fleeing to the hall's bunker waits behind the
 * blocked door (nobody crosses, nobody shelters) and goes through once it opens. */
static th_world *door_world(uint32_t threads) {
    th_world_def wd = th_default_world_def();
    wd.width = 24;
    wd.height = 12;
    wd.cell_size = 1.0f;
    wd.threads = threads;
    wd.seed = 3;
    th_error err;
    th_world *w = th_world_create(&wd, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    for (int32_t y = 0; y < 12; y++) {
        if (y != 6) ck_assert(th_world_set_cell(w, 12, y, TH_CELL_WALL, 1, &err));
    }
    ck_assert(th_world_set_cell(w, 12, 6, TH_CELL_OPEN, 3, &err)); /* a doorstep of cost 3 */
    th_bunker_def bd = {.name = "hall", .x0 = 19, .y0 = 4, .x1 = 22, .y1 = 8, .capacity = 0};
    ck_assert_int_eq(IDX(th_world_add_bunker(w, &bd, &err)), 0);
    th_crowd_def cd = th_default_crowd_def();
    cd.behavior = TH_BEHAVIOR_FLEE;
    cd.max_speed = 2.0f;
    ck_assert_int_eq(IDX(th_world_add_crowd(w, &cd, &err)), 0);
    for (uint32_t i = 0; i < 24; i++) {
        th_vec2 p = th_v2(2.5f + (float)(i % 6), 3.5f + (float)(i / 6));
        ck_assert(th_agent_id_valid(th_world_add_agent(w, CROWD_ID(0), p, th_v2(0, 0), &err)));
    }
    return w;
}

static uint64_t door_run(uint32_t threads) {
    th_world *w = door_world(threads);
    th_error err;
    ck_assert_msg(th_world_block_cells(w, 12, 6, 12, 6, &err), "%s", err.message);
    for (int s = 0; s < 600; s++) th_world_step(w); /* 10 s */
    th_world_stats st = th_world_get_stats(w);
    ck_assert_uint_eq(st.sheltered, 0);
    th_agent_view v = th_world_agents(w);
    for (uint32_t i = 0; i < v.count; i++) ck_assert_float_lt(v.px[i], 12.0f);
    ck_assert(isinf(th_world_cost_to_shelter(w, th_v2(5.5f, 6.5f))));
    ck_assert_msg(th_world_open_cells(w, 12, 6, 12, 6, &err), "%s", err.message);
    th_world_step(w);
    uint32_t c = 0;
    ck_assert_int_eq(th_world_cell(w, 12, 6, &c), TH_CELL_OPEN);
    ck_assert_uint_eq(c, 3);
    ck_assert(isfinite(th_world_cost_to_shelter(w, th_v2(5.5f, 6.5f))));
    for (int s = 0; s < 2400; s++) th_world_step(w); /* 40 s more */
    st = th_world_get_stats(w);
    ck_assert_uint_eq(st.sheltered, 24);
    uint64_t h = th_world_hash(w);
    th_world_destroy(w);
    return h;
}

START_TEST(crowd_waits_at_a_blocked_door_and_goes_through_when_it_opens) {
    uint64_t ref = door_run(1);
    ck_assert(door_run(2) == ref);
    ck_assert(door_run(3) == ref);
    ck_assert(door_run(8) == ref);
}
END_TEST

/* ---- crowd changes (th_world_schedule_crowd) --------------------------------------------- */

/* Bad changes are refused with the reason; a good one, in a world without a map, applies in the
 * step that leaves its step and not before (the world's state up to it is the plain world's),
 * bounds every boid's speed from then on, and is counted with its step. */
START_TEST(crowd_changes_are_checked_and_applied) {
    enum { N = 100 };
    th_world *ws[2];
    th_agent_id ids[N];
    for (int k = 0; k < 2; k++) {
        th_world_def wd = th_default_world_def();
        wd.width = wd.height = 40.0f;
        wd.bounds = TH_BOUNDS_WRAP;
        wd.threads = 2;
        th_error err;
        ws[k] = th_world_create(&wd, &err);
        ck_assert_msg(ws[k] != NULL, "%s", err.message);
        th_crowd_def cd = th_default_crowd_def();
        cd.max_speed = 3.0f;
        ck_assert_int_eq(IDX(th_world_add_crowd(ws[k], &cd, &err)), 0);
        th_crowd_def pd = th_default_pedestrian_def();
        ck_assert_int_eq(IDX(th_world_add_crowd(ws[k], &pd, &err)), 1);
        for (uint32_t i = 0; i < N; i++) {
            const th_vec2 at = th_v2(4.0f + (float)(i % 10) * 3.0f, 4.0f + (float)(i / 10) * 3.0f);
            const th_vec2 v = th_v2(2.5f * cosf((float)i), 2.5f * sinf((float)i));
            ids[i] = th_world_add_agent(ws[k], (th_crowd_id){1}, at, v, &err);
            ck_assert(th_agent_id_valid(ids[i]));
        }
    }
    th_world *w = ws[1];
    th_error err;
    const th_crowd_tune slow = {.fields = TH_TUNE_MAX_SPEED | TH_TUNE_ALIGNMENT_WEIGHT,
                                .max_speed = 1.0f};
    struct {
        th_crowd_id crowd;
        th_crowd_tune tune;
        const char *says;
    } bad[] = {
        {{0}, slow, "crowd"},
        {{3}, slow, "no crowd 2"},
        {{2}, slow, "pedestrian"},
        {{1}, {.fields = 0}, "at least one"},
        {{1}, {.fields = 1u << 20, .max_speed = 1.0f}, "TH_TUNE_"},
        {{1}, {.fields = TH_TUNE_MAX_SPEED, .max_speed = 3.5f}, "above the crowd's own"},
        {{1}, {.fields = TH_TUNE_COHESION_WEIGHT, .cohesion_weight = -1.0f}, "cohesion_weight"},
        {{1}, {.fields = TH_TUNE_MAX_FORCE, .max_force = NAN}, "max_force"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_msg(!th_world_schedule_crowd(w, 10, bad[i].crowd, &bad[i].tune, &err), "%zu", i);
        ck_assert_msg(strstr(err.message, bad[i].says), "%zu: %s", i, err.message);
    }
    ck_assert_uint_eq(th_world_pending_events(w), 0);
    ck_assert(th_world_schedule_crowd(w, 10, (th_crowd_id){1}, &slow, &err));
    for (int s = 0; s < 10; s++) {
        th_world_step(ws[0]);
        th_world_step(w);
    }
    ck_assert_uint_eq(th_world_hash(ws[0]), th_world_hash(w));
    ck_assert_uint_eq(th_world_crowd_changes(w, (th_crowd_id){1}, NULL), 0);
    ck_assert(!th_world_schedule_crowd(w, 9, (th_crowd_id){1}, &slow, &err)); /* past */
    th_world_step(ws[0]);
    th_world_step(w);
    ck_assert_uint_ne(th_world_hash(ws[0]), th_world_hash(w));
    uint64_t last = 0;
    ck_assert_uint_eq(th_world_crowd_changes(w, (th_crowd_id){1}, &last), 1);
    ck_assert_uint_eq(last, 10);
    ck_assert_uint_eq(th_world_crowd_changes(w, (th_crowd_id){2}, &last), 0);
    for (int s = 0; s < 60; s++) {
        th_world_step(w);
        for (uint32_t i = 0; i < N; i++) {
            th_agent_state a;
            ck_assert(th_world_get_agent(w, ids[i], &a));
            ck_assert_float_le(th_v2_len(a.velocity), 1.0f + 1e-5f);
        }
    }
    th_world_destroy(ws[0]);
    th_world_destroy(w);
}
END_TEST

int main(void) {
    Suite *s = suite_create("terrain_events");
    TCase *tc = tcase_create("cost");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, set_cost_fields_equal_fields_built_afresh);
    tcase_add_test(tc, find_path_follows_cost_events);
    tcase_add_test(tc, cost_events_keep_determinism_across_thread_counts);
    tcase_add_test(tc, bad_cost_events_are_rejected);
    tcase_add_test(tc, open_gives_back_what_block_closed);
    tcase_add_test(tc, open_leaves_walls_of_the_map);
    tcase_add_test(tc, crowd_waits_at_a_blocked_door_and_goes_through_when_it_opens);
    tcase_add_test(tc, crowd_changes_are_checked_and_applied);
    suite_add_tcase(s, tc);
    return th_test_run(s);
}
