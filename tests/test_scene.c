/* Scene files: the library loads and runs, broken scenes are reported at the exact line,
 * column and key, YAML and API builds agree, image and generated maps match their sources. */
#include <check.h>
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/observe/digest.h"
#include "sim/scene/scene_internal.h"
#include "test_util.h"
#include "throng/throng.h"

#ifndef THRONG_SCENES_DIR
#error "THRONG_SCENES_DIR must name the scene library"
#endif

static th_world *load_text(const char *yaml, th_error *err) {
    const char *path = th_test_write("scene.yaml", yaml, strlen(yaml));
    return th_scene_load(path, &(th_scene_opts){.threads = 1}, NULL, err);
}

/* ---- the library ----------------------------------------------------------------------- */

START_TEST(every_library_scene_loads_and_runs) {
    static th_test_path scenes[TH_TEST_MAX_SCENES];
    const uint32_t n = th_test_scenes(THRONG_SCENES_DIR, scenes);
    for (uint32_t i = 0; i < n; i++) {
        const char *name = strrchr(scenes[i], '/') + 1;
        th_scene_info info;
        /* Large scenes are scaled down to 3,000 agents so the suite stays quick under the
         * sanitizers; spawning, map, bunkers and events are the file's own. */
        th_world *w = th_test_load(scenes[i], (th_scene_opts){.threads = 2}, 3000, &info);
        ck_assert_uint_eq(th_world_agent_count(w), info.agents);
        ck_assert_str_ne(info.name, "");
        uint64_t h0 = th_world_hash(w);
        th_world_set_validation(w, true); /* every invariant, inside every step */
        for (int s = 0; s < th_test_steps(100); s++) th_world_step(w);
        ck_assert_msg(th_world_validation_error(w) == NULL, "%s: %s", name,
                      th_world_validation_error(w));
        th_world_stats st = th_world_get_stats(w);
        ck_assert_uint_eq(st.agents + st.sheltered + st.removed + st.exited, st.spawned);
        ck_assert(th_world_hash(w) != h0);
        th_world_destroy(w);
    }
    ck_assert_uint_ge(n, 4);
}
END_TEST

/* ---- broken scenes --------------------------------------------------------------------- */

typedef struct bad_case {
    const char *what;
    const char *yaml;
    unsigned line, column;
    const char *path;   /* the key path named in the message */
    th_error_code code; /* what kind of problem */
} bad_case;

#define HEAD   "name: t\nworld:\n  size: [100, 100]\n"
#define CROWD  "crowds:\n  - name: a\n    count: 5\n    spawn: {rect: [0, 0, 10, 10]}\n"
#define MCROWD "crowds:\n  - name: a\n    count: 5\n    spawn: {rect: [1, 1, 1, 1]}\n"
#define MAP(rows) \
    "name: t\nmap:\n  cell_size: 1\n  legend: {'#': wall, '.': open, 'x': destructible, 'B': {bunker: b}}\n  ascii: |\n" rows

static const bad_case k_bad[] = {
    {"empty file", "", 1, 1, "(file)", TH_ERR_SCENE_VALUE},
    {"a list at the top", "- a\n- b\n", 1, 1, "(file)", TH_ERR_SCENE_VALUE},
    {"misspelt top-level key", "nmae: t\n", 1, 1, "nmae", TH_ERR_SCENE_KEY},
    {"unknown top-level key", HEAD CROWD "gravity: 9.81\n", 8, 1, "gravity", TH_ERR_SCENE_KEY},
    {"missing name", "world:\n  size: [10, 10]\n" CROWD, 1, 1, "name", TH_ERR_SCENE_MISSING},
    {"name is a list", "name: [a, b]\n", 1, 7, "name", TH_ERR_SCENE_VALUE},
    {"negative seed", "name: t\nseed: -1\n", 2, 7, "seed", TH_ERR_SCENE_VALUE},
    {"zero timestep", "name: t\ntimestep: 0\n", 2, 11, "timestep", TH_ERR_SCENE_VALUE},
    {"too many threads", "name: t\nthreads: 65\n", 2, 10, "threads", TH_ERR_SCENE_VALUE},
    {"world and map", HEAD "map: {cell_size: 1}\n", 3, 3, "world", TH_ERR_SCENE_VALUE},
    {"neither world nor map", "name: t\n" CROWD, 1, 1, "world", TH_ERR_SCENE_MISSING},
    {"world size of one number", "name: t\nworld:\n  size: [100]\n", 3, 9, "world.size",
     TH_ERR_SCENE_VALUE},
    {"world size negative", "name: t\nworld:\n  size: [100, -5]\n", 3, 15, "world.size[1]",
     TH_ERR_SCENE_VALUE},
    {"unknown bounds", "name: t\nworld:\n  size: [10, 10]\n  bounds: torus\n", 4, 11,
     "world.bounds", TH_ERR_SCENE_VALUE},
    {"no crowds", HEAD, 1, 1, "crowds", TH_ERR_SCENE_MISSING},
    {"empty crowd list", HEAD "crowds: []\n", 4, 9, "crowds", TH_ERR_SCENE_VALUE},
    {"count is a word", HEAD "crowds:\n  - name: a\n    count: lots\n", 6, 12, "crowds[0].count",
     TH_ERR_SCENE_VALUE},
    {"count beyond the bound", HEAD "crowds:\n  - name: a\n    count: 99999999\n", 6, 12,
     "crowds[0].count", TH_ERR_SCENE_VALUE},
    {"count negative", HEAD "crowds:\n  - name: a\n    count: -5\n", 6, 12, "crowds[0].count",
     TH_ERR_SCENE_VALUE},
    {"misspelt crowd key", HEAD "crowds:\n  - name: a\n    cout: 5\n", 6, 5, "crowds[0].cout",
     TH_ERR_SCENE_KEY},
    {"unknown behaviour", HEAD CROWD "    behavior: dance\n", 8, 15, "crowds[0].behavior",
     TH_ERR_SCENE_VALUE},
    {"fov over 360", HEAD CROWD "    fov: 400\n", 8, 10, "crowds[0].fov", TH_ERR_SCENE_VALUE},
    {"NaN speed", HEAD CROWD "    max_speed: .nan\n", 8, 16, "crowds[0].max_speed",
     TH_ERR_SCENE_VALUE},
    {"infinite force", HEAD CROWD "    max_force: .inf\n", 8, 16, "crowds[0].max_force",
     TH_ERR_SCENE_VALUE},
    {"huge radius", HEAD CROWD "    neighbor_radius: 1e300\n", 8, 22, "crowds[0].neighbor_radius",
     TH_ERR_SCENE_VALUE},
    {"colour by name", HEAD CROWD "    color: red\n", 8, 12, "crowds[0].color", TH_ERR_SCENE_VALUE},
    {"duplicate crowd name", HEAD CROWD "  - name: a\n", 8, 11, "crowds[1].name",
     TH_ERR_SCENE_VALUE},
    {"agents but no spawn", HEAD "crowds:\n  - name: a\n    count: 5\n", 5, 5, "crowds[0].spawn",
     TH_ERR_SCENE_MISSING},
    {"spawn rect off the world",
     HEAD "crowds:\n  - name: a\n    count: 5\n    spawn: {rect: [90, 90, 20, 5]}\n", 7, 19,
     "crowds[0].spawn.rect", TH_ERR_SCENE_VALUE},
    {"spawn circle with no radius",
     HEAD "crowds:\n  - name: a\n    count: 5\n    spawn: {circle: [50, 50, 0]}\n", 7, 21,
     "crowds[0].spawn.circle", TH_ERR_SCENE_VALUE},
    {"spawn with two shapes",
     HEAD
     "crowds:\n  - name: a\n    count: 5\n    spawn: {rect: [0, 0, 1, 1], circle: [5, 5, 1]}\n",
     7, 12, "crowds[0].spawn", TH_ERR_SCENE_VALUE},
    {"fleeing without a map", HEAD CROWD "    behavior: flee\n", 8, 15, "crowds[0].behavior",
     TH_ERR_SCENE_VALUE},
    {"explicit agent off the world", HEAD "crowds:\n  - name: a\n    agents: [[5, 5], [150, 5]]\n",
     6, 22, "crowds[0].agents[1]", TH_ERR_SCENE_VALUE},
    {"duplicate key", "name: t\nname: u\n", 2, 1, "", TH_ERR_SCENE_SYNTAX},
    {"alias", "name: &n t\nworld: *n\n", 1, 7, "", TH_ERR_SCENE_SYNTAX},
    {"unclosed list", "name: [t\n", 2, 1, "", TH_ERR_SCENE_SYNTAX},
    {"map without cell size", "name: t\nmap:\n  ascii: '.'\n", 3, 3, "map.cell_size",
     TH_ERR_SCENE_MISSING},
    {"map with two sources",
     "name: t\nmap:\n  cell_size: 1\n  ascii: '.'\n  generate: {city: {size: [8, 8]}}\n", 3, 3,
     "map", TH_ERR_SCENE_VALUE},
    {"ascii map without legend", "name: t\nmap:\n  cell_size: 1\n  ascii: '.'\n", 3, 3,
     "map.legend", TH_ERR_SCENE_MISSING},
    {"ragged rows", MAP("    #####\n    #...#\n    #..#\n    #####\n") MCROWD, 8, 9, "map.ascii",
     TH_ERR_SCENE_VALUE},
    {"character not in the legend", MAP("    #####\n    #.?.#\n    #####\n") MCROWD, 7, 7,
     "map.ascii", TH_ERR_SCENE_VALUE},
    {"unknown legend kind", "name: t\nmap:\n  cell_size: 1\n  legend: {'#': brick}\n  ascii: '#'\n",
     4, 17, "map.legend['#']", TH_ERR_SCENE_VALUE},
    {"two-character legend key",
     "name: t\nmap:\n  cell_size: 1\n  legend: {'##': wall}\n  ascii: '#'\n", 4, 12,
     "map.legend['##']", TH_ERR_SCENE_VALUE},
    {"bunker drawn in two pieces", MAP("    #B#B#\n    #...#\n    #####\n") MCROWD, 4, 53,
     "map.legend['B']", TH_ERR_SCENE_VALUE},
    {"bunker cells on a wall",
     MAP("    #####\n    #.B.#\n    #####\n") "bunkers:\n  - {name: c, cells: [0, 0]}\n" MCROWD, 10,
     22, "bunkers[0].cells", TH_ERR_SCENE_VALUE},
    {"bunker with no place",
     MAP("    #####\n    #.B.#\n    #####\n") "bunkers:\n  - {name: c}\n" MCROWD, 10, 5,
     "bunkers[0].cells", TH_ERR_SCENE_MISSING},
    {"bunker cells off the map",
     MAP("    #####\n    #.B.#\n    #####\n") "bunkers:\n  - {name: c, cells: [1, 1, 9, 1]}\n" MCROWD,
     10, 22, "bunkers[0].cells", TH_ERR_SCENE_VALUE},
    {"bunker exit not a boolean",
     MAP("    #####\n    #.B.#\n    #####\n") "bunkers:\n  - {name: b, exit: maybe}\n" MCROWD, 10,
     21, "bunkers[0].exit", TH_ERR_SCENE_VALUE},
    {"event for an unknown bunker",
     MAP("    #####\n    #.B.#\n    #####\n") MCROWD
     "events:\n  - {at: 2s, destroy_bunker: nope}\n",
     14, 30, "events[0].destroy_bunker", TH_ERR_SCENE_VALUE},
    {"event with two times",
     MAP("    #####\n    #.B.#\n    #####\n") MCROWD
     "events:\n  - {at: 2s, at_step: 5, destroy_bunker: b}\n",
     14, 5, "events[0]", TH_ERR_SCENE_VALUE},
    {"event with no action",
     MAP("    #####\n    #.B.#\n    #####\n") MCROWD "events:\n  - {at: 2s}\n", 14, 5, "events[0]",
     TH_ERR_SCENE_MISSING},
    {"event time in minutes",
     MAP("    #####\n    #.B.#\n    #####\n") MCROWD
     "events:\n  - {at: 2 minutes, destroy_bunker: b}\n",
     14, 10, "events[0].at", TH_ERR_SCENE_VALUE},
    {"wall break off the map",
     MAP("    #####\n    #.B.#\n    #####\n") MCROWD
     "events:\n  - {at_step: 9, break_wall: [7, 7]}\n",
     14, 30, "events[0].break_wall", TH_ERR_SCENE_VALUE},
    {"set_cost without a cost",
     MAP("    #####\n    #.B.#\n    #####\n") MCROWD
     "events:\n  - {at: 1s, set_cost: {cells: [1, 1]}}\n",
     14, 24, "events[0].set_cost.cost", TH_ERR_SCENE_MISSING},
    {"set_cost of zero",
     MAP("    #####\n    #.B.#\n    #####\n") MCROWD
     "events:\n  - {at: 1s, set_cost: {cells: [1, 1], cost: 0}}\n",
     14, 46, "events[0].set_cost.cost", TH_ERR_SCENE_VALUE},
    {"set_cost too dear",
     MAP("    #####\n    #.B.#\n    #####\n") MCROWD
     "events:\n  - {at: 1s, set_cost: {cells: [1, 1], cost: 1001}}\n",
     14, 46, "events[0].set_cost.cost", TH_ERR_SCENE_VALUE},
    {"set_cost cells off the map",
     MAP("    #####\n    #.B.#\n    #####\n") MCROWD
     "events:\n  - {at: 1s, set_cost: {cells: [1, 1, 5, 1], cost: 3}}\n",
     14, 32, "events[0].set_cost.cells", TH_ERR_SCENE_VALUE},
    {"set_cost as a bare rectangle",
     MAP("    #####\n    #.B.#\n    #####\n") MCROWD "events:\n  - {at: 1s, set_cost: [1, 1]}\n",
     14, 24, "events[0].set_cost", TH_ERR_SCENE_VALUE},
    {"set_cost with a misspelt key",
     MAP("    #####\n    #.B.#\n    #####\n") MCROWD
     "events:\n  - {at: 1s, set_cost: {cells: [1, 1], csot: 3}}\n",
     14, 40, "events[0].set_cost.csot", TH_ERR_SCENE_KEY},
    {"set_cost beside block",
     MAP("    #####\n    #.B.#\n    #####\n") MCROWD
     "events:\n  - {at: 1s, block: [1, 1], set_cost: {cells: [1, 1], cost: 3}}\n",
     14, 39, "events[0]", TH_ERR_SCENE_VALUE},
    {"events without a map", HEAD CROWD "events:\n  - {at: 1s, destroy_bunker: b}\n", 9, 5,
     "events[0]", TH_ERR_SCENE_VALUE},
    {"generated city too large",
     "name: t\nmap:\n  cell_size: 1\n  generate: {city: {size: [5000, 10]}}\n", 4, 28,
     "map.generate.city.size", TH_ERR_SCENE_VALUE},
    {"missing image",
     "name: t\nmap:\n  cell_size: 1\n  legend: {'#000000': wall}\n  image: nowhere.png\n", 5, 10,
     "map.image", TH_ERR_IO},
    {"spawn where only walls are",
     "name: t\nmap: {cell_size: 1, legend: {'#': wall, '.': open}, ascii: \"##.\"}\ncrowds:\n  - {name: a, count: 5, spawn: {rect: [0, 0, 2, 1]}}\n",
     4, 32, "crowds[0].spawn", TH_ERR_SCENE_VALUE},
    {"bodies packed past random close packing",
     HEAD
     "crowds:\n  - name: a\n    model: pedestrian\n    count: 50\n    spawn: {rect: [0, 0, 2, 2]}\n",
     8, 12, "crowds[0].spawn", TH_ERR_SCENE_VALUE},
    {"deep nesting",
     "name: t\nx: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]\n",
     2, 67, "", TH_ERR_SCENE_SYNTAX},
};

START_TEST(broken_scene_reports_exact_place) {
    const bad_case *c = &k_bad[_i];
    th_error err;
    memset(&err, 0, sizeof err);
    th_world *w = load_text(c->yaml, &err);
    if (w) th_world_destroy(w);
    ck_assert_msg(w == NULL, "%s: loaded although broken", c->what);
    th_test_scene_error(c->what, &err, "scene.yaml", c->line, c->column, c->path, c->code);
}
END_TEST

/* The wording, where it is the point: a scene error names the key, says what was expected and
 * quotes what was found, and suggests the nearest key for a misspelt one. */
static const struct {
    const char *what, *yaml, *says;
} k_wording[] = {
    {"range and found value", HEAD CROWD "    fov: 400\n",
     "crowds[0].fov: expected a number in (0, 360] deg, found '400'"},
    {"nearest key", "nmae: t\n", "nmae: unknown key 'nmae' (did you mean 'name'?)"},
    {"allowed keys", HEAD CROWD "gravity: 9.81\n", "expected one of: "},
    {"missing key", "world:\n  size: [10, 10]\n" CROWD, "name: missing: "},
    {"duplicate key", "name: t\nname: u\n", "duplicate key 'name' (first at line 1)"},
    {"YAML error", "name: [t\n", "invalid YAML"},
};

START_TEST(scene_error_wording) {
    th_error err = {0};
    th_world *w = load_text(k_wording[_i].yaml, &err);
    if (w) th_world_destroy(w);
    ck_assert_msg(w == NULL, "%s: loaded although broken", k_wording[_i].what);
    ck_assert_msg(strstr(err.message, k_wording[_i].says) != NULL, "%s: expected '%s' in: %s",
                  k_wording[_i].what, k_wording[_i].says, err.message);
}
END_TEST

START_TEST(bad_scene_table_is_large_enough) {
    ck_assert_uint_ge(sizeof k_bad / sizeof k_bad[0], 30);
}
END_TEST

/* ---- round trip ------------------------------------------------------------------------ */

START_TEST(yaml_and_api_give_the_same_world) {
    static const char yaml[] =
        "name: round trip\n"
        "seed: 99\n"
        "timestep: 0.02\n"
        "map:\n"
        "  cell_size: 2\n"
        "  legend: {'#': wall, '.': open, ',': {terrain: 4}, 'x': destructible, 'H': {bunker: home}}\n"
        "  ascii: |\n"
        "    ##########\n"
        "    #....,,..#\n"
        "    #..##x#..#\n"
        "    #........#\n"
        "    #HH......#\n"
        "    ##########\n"
        "bunkers:\n"
        "  - {name: home, capacity: 3}\n"
        "crowds:\n"
        "  - name: walkers\n"
        "    behavior: flee\n"
        "    max_speed: 2.5\n"
        "    fov: 200\n"
        "    agents: [[3, 3], [5, 7, 1, 0], [15, 9], [17, 3, 0, -1], [11, 5]]\n"
        "events:\n"
        "  - {at_step: 40, break_wall: [5, 3]}\n"
        "  - {at: 1.2s, destroy_bunker: home}\n"
        "  - {at_step: 20, set_cost: {cells: [0, 0, 9, 5], cost: 7}}\n"
        "  - {at_step: 90, set_cost: {cells: [6, 2], cost: 2}}\n";
    th_error err;
    th_world *a = load_text(yaml, &err);
    ck_assert_msg(a != NULL, "%s", err.message);

    /* The same scene through the API, written from the format's documentation. */
    th_world_def wd = th_default_world_def();
    wd.width = 20;
    wd.height = 12;
    wd.cell_size = 2;
    wd.seed = 99;
    wd.timestep = 0.02f;
    wd.threads = 1;
    th_world *b = th_world_create(&wd, &err);
    const char *rows[6] = {"##########", "#....,,..#", "#..##x#..#",
                           "#........#", "#HH......#", "##########"};
    for (int r = 0; r < 6; r++) {
        for (int x = 0; x < 10; x++) {
            int y = 5 - r;
            char ch = rows[r][x];
            if (ch == '#') th_world_set_cell(b, x, y, TH_CELL_WALL, 1, NULL);
            if (ch == 'x') th_world_set_cell(b, x, y, TH_CELL_DESTRUCTIBLE, 1, NULL);
            if (ch == ',') th_world_set_cell(b, x, y, TH_CELL_OPEN, 4, NULL);
        }
    }
    ck_assert_int_eq(
        IDX(th_world_add_bunker(
            b, &(th_bunker_def){.name = "home", .x0 = 1, .y0 = 1, .x1 = 2, .y1 = 1, .capacity = 3},
            &err)),
        0);
    th_crowd_def cd = th_default_crowd_def();
    cd.name = "walkers";
    cd.behavior = TH_BEHAVIOR_FLEE;
    cd.max_speed = 2.5f;
    cd.fov_deg = 200;
    ck_assert_int_eq(IDX(th_world_add_crowd(b, &cd, &err)), 0);
    const float ag[5][4] = {
        {3, 3, 0, 0}, {5, 7, 1, 0}, {15, 9, 0, 0}, {17, 3, 0, -1}, {11, 5, 0, 0}};
    for (int i = 0; i < 5; i++) {
        ck_assert(th_agent_id_valid(th_world_add_agent(b, CROWD_ID(0), th_v2(ag[i][0], ag[i][1]),
                                                       th_v2(ag[i][2], ag[i][3]), &err)));
    }
    th_world_schedule(b, 40, &(th_event_def){TH_EVENT_BREAK_WALLS, {0}, 5, 3, 5, 3, 0}, NULL);
    th_world_schedule(
        b, 60, &(th_event_def){.type = TH_EVENT_DESTROY_BUNKER, .bunker = BUNKER_ID(0)}, NULL);
    th_world_schedule(
        b, 20,
        &(th_event_def){.type = TH_EVENT_SET_COST, .x0 = 0, .y0 = 0, .x1 = 9, .y1 = 5, .cost = 7},
        NULL);
    th_world_schedule(
        b, 90,
        &(th_event_def){.type = TH_EVENT_SET_COST, .x0 = 6, .y0 = 2, .x1 = 6, .y1 = 2, .cost = 2},
        NULL);

    ck_assert(th_world_hash(a) == th_world_hash(b));
    for (int s = 0; s < 150; s++) {
        th_world_step(a);
        th_world_step(b);
        ck_assert_msg(th_world_hash(a) == th_world_hash(b), "worlds part at step %d", s + 1);
    }
    th_bunker_info bi;
    th_world_get_bunker(a, BUNKER_ID(0), &bi);
    ck_assert(bi.destroyed); /* the timeline did run */
    uint32_t cost = 0;
    ck_assert_int_eq(th_world_cell(a, 2, 3, &cost), TH_CELL_OPEN);
    ck_assert_uint_eq(cost, 7); /* re-priced at step 20 */
    ck_assert_int_eq(th_world_cell(a, 6, 2, &cost), TH_CELL_OPEN);
    ck_assert_uint_eq(cost, 2); /* and again at step 90 */
    ck_assert_int_eq(th_world_cell(a, 1, 1, &cost), TH_CELL_OPEN);
    ck_assert_uint_eq(cost, 1);                                   /* a bunker cell keeps its cost */
    ck_assert_int_eq(th_world_cell(a, 4, 3, NULL), TH_CELL_WALL); /* walls stay walls */
    th_world_destroy(a);
    th_world_destroy(b);
}
END_TEST

/* ---- image and generated maps ---------------------------------------------------------- */

static void count_cells(const th_world *w, uint32_t counts[3], uint32_t *slow) {
    int32_t cols, rows;
    ck_assert(th_world_map_size(w, &cols, &rows, NULL));
    counts[0] = counts[1] = counts[2] = 0;
    *slow = 0;
    for (int32_t y = 0; y < rows; y++) {
        for (int32_t x = 0; x < cols; x++) {
            uint32_t cost;
            th_cell_kind k = th_world_cell(w, x, y, &cost);
            counts[k]++;
            *slow += k == TH_CELL_OPEN && cost == 3;
        }
    }
}

START_TEST(image_map_matches_its_pixels) {
    enum { W = 37, H = 23 };
    static unsigned char px[W * H * 3];
    uint32_t expect[3] = {0, 0, 0}, expect_slow = 0;
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            unsigned char *p = px + 3 * (y * W + x);
            int k = (x * 7 + y * 13) % 10;
            /* black wall, grey rubble, green grass (cost 3), white ground; a white border so
             * spawning has room. */
            if (x == 0 || y == 0) k = 9;
            if (k < 2) memcpy(p, "\x00\x00\x00", 3), expect[TH_CELL_WALL]++;
            else if (k < 3) memcpy(p, "\x80\x80\x80", 3), expect[TH_CELL_DESTRUCTIBLE]++;
            else if (k < 5) memcpy(p, "\x00\xa0\x00", 3), expect[TH_CELL_OPEN]++, expect_slow++;
            else memcpy(p, "\xff\xff\xff", 3), expect[TH_CELL_OPEN]++;
        }
    }
    char png_path[512];
    snprintf(png_path, sizeof png_path, "%s", th_test_file("map.png"));
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    img.width = W;
    img.height = H;
    img.format = PNG_FORMAT_RGB;
    ck_assert(png_image_write_to_file(&img, png_path, 0, px, 0, NULL));
    static const char yaml[] =
        "name: image\n"
        "map:\n"
        "  cell_size: 0.5\n"
        "  image: map.png\n"
        "  legend: {'#000000': wall, '#808080': destructible, '#00a000': {terrain: 3}, '#ffffff': open}\n"
        "crowds:\n"
        "  - {name: a, count: 20, spawn: {rect: [0, 0, 18, 11]}}\n";
    th_error err;
    th_world *w = load_text(yaml, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    int32_t cols, rows;
    float cs;
    th_world_map_size(w, &cols, &rows, &cs);
    ck_assert_int_eq(cols, W);
    ck_assert_int_eq(rows, H);
    ck_assert(cs == 0.5f);
    uint32_t got[3], slow;
    count_cells(w, got, &slow);
    for (int k = 0; k < 3; k++) ck_assert_uint_eq(got[k], expect[k]);
    ck_assert_uint_eq(slow, expect_slow);
    /* Image row 0 is the north edge: pixel (3, 0) is map cell (3, H - 1). */
    ck_assert_int_eq(th_world_cell(w, 3, H - 1, NULL), TH_CELL_OPEN); /* border, white */
    int k13 = (13 * 7 + 5 * 13) % 10;                                 /* pixel (13, 5) */
    th_cell_kind want = k13 < 2 ? TH_CELL_WALL : k13 < 3 ? TH_CELL_DESTRUCTIBLE : TH_CELL_OPEN;
    ck_assert_int_eq(th_world_cell(w, 13, H - 1 - 5, NULL), want);
    th_world_destroy(w);

    /* An unknown colour is reported with its pixel, and a truncated file cleanly. */
    px[3 * (4 * W + 9)] = 0x12;
    ck_assert(png_image_write_to_file(&img, png_path, 0, px, 0, NULL));
    ck_assert_ptr_null(load_text(yaml, &err));
    TH_TEST_ERR(err, TH_ERR_SCENE_IMAGE);
    ck_assert_msg(strstr(err.message, "pixel (9, 4)") && strstr(err.message, "not in map.legend"),
                  "%s", err.message);
    FILE *f = fopen(png_path, "r+b");
    ck_assert_int_eq(ftruncate(fileno(f), 60), 0);
    fclose(f);
    ck_assert_ptr_null(load_text(yaml, &err));
    TH_TEST_ERR(err, TH_ERR_SCENE_IMAGE);
    ck_assert_msg(strstr(err.message, "map.image: cannot read"), "%s", err.message);
}
END_TEST

START_TEST(generated_city_matches_its_rule) {
    static const char yaml[] =
        "name: city\n"
        "map:\n"
        "  cell_size: 1\n"
        "  generate: {city: {size: [203, 150], block: 9, street: 3, rubble: 0.3, parks: 0.2, seed: 5}}\n"
        "crowds:\n"
        "  - {name: a, count: 10, spawn: {rect: [0, 0, 203, 150]}}\n";
    th_error err;
    th_world *w = load_text(yaml, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    int32_t cols, rows;
    th_world_map_size(w, &cols, &rows, NULL);
    ck_assert_int_eq(cols, 203);
    ck_assert_int_eq(rows, 150);
    /* Streets are exactly the cells within 3 of a multiple of 12, on either axis. */
    uint32_t streets = 0, expect_streets = 0, walls = 0, rubble = 0, parks = 0;
    for (int32_t y = 0; y < rows; y++) {
        for (int32_t x = 0; x < cols; x++) {
            bool street = x % 12 < 3 || y % 12 < 3;
            uint32_t cost;
            th_cell_kind k = th_world_cell(w, x, y, &cost);
            expect_streets += street;
            if (street) {
                ck_assert_int_eq(k, TH_CELL_OPEN);
                ck_assert_uint_eq(cost, 1);
                streets++;
            } else {
                walls += k == TH_CELL_WALL;
                rubble += k == TH_CELL_DESTRUCTIBLE;
                parks += k == TH_CELL_OPEN && cost == 3;
                /* A block is one thing throughout. */
                int32_t bx = x - x % 12 + 3, by = y - y % 12 + 3;
                uint32_t c0;
                ck_assert_int_eq(th_world_cell(w, bx, by, &c0), k);
            }
        }
    }
    ck_assert_uint_eq(streets, expect_streets);
    uint32_t blocks_cells = (uint32_t)(cols * rows) - streets;
    ck_assert_uint_eq(walls + rubble + parks, blocks_cells);
    /* All three kinds occur at roughly their shares (289 blocks). */
    ck_assert(parks > blocks_cells / 10 && parks < blocks_cells * 3 / 10);
    ck_assert(rubble > blocks_cells / 8);
    ck_assert(walls > blocks_cells / 3);
    th_world_destroy(w);
}
END_TEST

START_TEST(scaling_and_overrides) {
    char path[512];
    snprintf(path, sizeof path, "%s/maze_evac.yaml", THRONG_SCENES_DIR);
    th_error err;
    th_scene_info info;
    th_world *w = th_scene_load(path, &(th_scene_opts){.threads = 1}, &info, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    uint64_t h1 = th_world_hash(w);
    ck_assert_uint_eq(th_world_get_def(w).seed, 3);
    th_world_destroy(w);
    w = th_scene_load(
        path, &(th_scene_opts){.threads = 2, .override_seed = true, .seed = 4, .agents = 777},
        &info, &err);
    ck_assert_uint_eq(th_world_agent_count(w), 777);
    ck_assert_uint_eq(th_world_get_def(w).seed, 4);
    ck_assert_uint_eq(th_world_get_def(w).threads, 2);
    ck_assert(th_world_hash(w) != h1);
    ck_assert_uint_eq(th_world_pending_events(w), 1);
    th_world_destroy(w);
}
END_TEST

/* ---- every scene key reaches the ranks' comparison -------------------------------------- */

/* The keys of a scene that do not shape the world the ranks compare, each with its reason.
 * Every other key the parser accepts must be met in a scene below and changed there to a value
 * that loads, and each such change must change the world's digest (sim/observe/digest.h). */
static const struct {
    const char *key, *why;
} k_not_world[] = {
    {"name", "the scene's title, for reports"},
    {"steps", "how long to run: the ranks compare it with the run's options (app/ranks.c)"},
    {"threads", "worker threads: the same world and results on any number"},
    {"targets.name", "a target's label, resolved to the target where the scene names it (crowds' "
                     "`target`, breadcrumbs): the world keeps no name"},
    {"crowds.pre_movement.age", "in the distributions' key list, but refused for pre-movement "
                                "(ages give free speeds only)"},
};

static bool not_world(const char *key) {
    for (size_t e = 0; e < sizeof k_not_world / sizeof k_not_world[0]; e++)
        if (strcmp(k_not_world[e].key, key) == 0) return true;
    return false;
}

/* Keys by path with indices dropped ("crowds.goal.route.mode"): met (in a scene below) or
 * accepted by the parser somewhere. */
enum { KEYS_MAX = 1024, KEY_LEN = 96 };
typedef struct key_set {
    char key[KEYS_MAX][KEY_LEN];
    uint32_t count;
} key_set;

static void key_norm(const char *path, const char *key, char *out) {
    size_t n = 0;
    for (const char *p = path; *p && n + 1 < KEY_LEN; p++) {
        if (*p == '[') {
            while (*p && *p != ']') p++;
            if (!*p) break;
            continue;
        }
        out[n++] = *p;
    }
    snprintf(out + n, KEY_LEN - n, "%s%s", n ? "." : "", key);
}

static bool key_has(const key_set *s, const char *key) {
    for (uint32_t i = 0; i < s->count; i++)
        if (strcmp(s->key[i], key) == 0) return true;
    return false;
}

static bool key_add(key_set *s, const char *key) {
    if (key_has(s, key)) return false;
    ck_assert_uint_lt(s->count, KEYS_MAX);
    snprintf(s->key[s->count++], KEY_LEN, "%s", key);
    return true;
}

static void accepted_hook(void *user, const char *path, const char *const *allowed) {
    char k[KEY_LEN];
    for (const char *const *a = allowed; *a; a++) {
        key_norm(path, *a, k);
        key_add(user, k);
    }
}

/* The digest of the world `yaml` builds, or false when it does not load. */
static bool digest_of(const char *name, const char *yaml, size_t len, uint64_t *out,
                      key_set *accepted) {
    th_scene s;
    th_error err = {0};
    bool ok =
        th_scene_parse_keys(&s, name, yaml, len, accepted ? accepted_hook : NULL, accepted, &err);
    th_world *w = NULL;
    if (ok) {
        uint64_t fixed = 0, random = 0;
        for (uint32_t c = 0; c < s.crowd_count; c++) {
            fixed += s.crowd[c].agent_count;
            random += s.crowd[c].count;
        }
        /* Few agents keep it quick (hand-placed ones all stay), as many more as the crowds'
         * counts differ. */
        th_scene_opts o = {.threads = 1};
        if (random > 64) o.agents = (uint32_t)(fixed + 64 + random % 97);
        w = th_scene_build(&s, &o, false, &err);
    }
    th_scene_free(&s);
    if (!w) return false;
    th_world_digest(w, out);
    th_world_destroy(w);
    return true;
}

/* The parts a key may change, by the longest prefix of its path: a value of a section that
 * changed only an unrelated part would be digested in the wrong place (or by accident). */
#define P(id) (1u << TH_DIGEST_##id)
static const struct {
    const char *prefix;
    uint32_t parts;
} k_key_parts[] = {
    {"seed", P(SEED)},
    {"timestep", P(WORLD)},
    {"stall_time", P(WORLD)},
    {"world", P(WORLD)},
    /* The map is where bunkers, destinations, spawners, exits, levels and hazards lie. */
    {"map", P(WORLD) | P(MAP) | P(LEVELS) | P(STAIRS) | P(BUNKERS) | P(DESTINATIONS) | P(SPAWNERS) |
                P(EXITS) | P(ELEVATORS) | P(HAZARDS)},
    {"bunkers", P(BUNKERS)},
    {"levels", P(LEVELS)},
    {"stairs", P(STAIRS)},
    {"elevators", P(ELEVATORS)},
    {"crowds", P(CROWDS) | P(AGENTS)},
    {"crowds.name", P(CROWDS)},
    {"crowds.pre_movement", P(PRE_MOVEMENT)},
    {"crowds.exit_choice", P(EXIT_CHOICE)},
    {"crowds.goal.destinations", P(DESTINATIONS) | P(CROWDS)},
    {"crowds.goal.exit", P(EXITS)},
    {"crowds.goal.max_flow", P(EXITS)},
    {"targets", P(TARGETS)},
    {"events", P(EVENTS)},
    {"spawners", P(SPAWNERS)},
    {"exits", P(EXITS)},
    {"measure", P(MEASURE)},
    {"squads", P(SQUADS) | P(AGENTS)},
    {"groups", P(GROUPS)},
    {"agent_goals", P(OWN_GOALS)},
    {"goal_planning", P(OWN_GOALS)},
    {"hazards", P(HAZARDS)},
};
#undef P

static uint32_t key_parts(const char *key) {
    size_t best = 0;
    uint32_t parts = 0;
    for (size_t i = 0; i < sizeof k_key_parts / sizeof k_key_parts[0]; i++) {
        const size_t n = strlen(k_key_parts[i].prefix);
        if (n > best && strncmp(key, k_key_parts[i].prefix, n) == 0 &&
            (key[n] == '\0' || key[n] == '.')) {
            best = n;
            parts = k_key_parts[i].parts;
        }
    }
    return parts;
}

/* A change of a scene's text: the edits (`len` bytes at `at` become `text`, in order, apart). */
enum { EDITS_MAX = 64, VARIANTS_MAX = 48, NAMES_MAX = 128, VAL_LEN = 80 };
typedef struct variant {
    struct {
        size_t at, len;
        char text[VAL_LEN];
    } e[EDITS_MAX];
    uint32_t n;
    bool everywhere; /* a name renamed with every use of it */
} variant;

typedef struct vary_ctx {
    const char *name, *text;
    size_t len;
    const th_ynode *root;
    const uint64_t *base;
    key_set *met, *accepted, *varied, *unvaried;
    uint32_t unchanged, misplaced;
    /* The names a reference may point to: every `name` value and legend key of the scene. */
    char names[NAMES_MAX][VAL_LEN];
    uint32_t name_count;
} vary_ctx;

/* Byte offset of (line, column) in text. */
static size_t offset_of(const char *text, uint32_t line, uint32_t column) {
    size_t at = 0;
    for (uint32_t l = 1; l < line; l++) at = (size_t)(strchr(text + at, '\n') - text) + 1;
    return at + column - 1;
}

static bool is_block(const vary_ctx *c, const th_ynode *f) {
    const char ch = c->text[offset_of(c->text, f->line, f->column)];
    return f->quoted && (ch == '|' || ch == '>');
}

/* A variant replacing scalar `f` by `text`. */
static variant *one_edit(const vary_ctx *c, variant *v, const th_ynode *f, const char *text) {
    memset(v, 0, sizeof *v);
    v->e[0].at = offset_of(c->text, f->line, f->column);
    v->e[0].len = f->len + (f->quoted ? 2 : 0); /* the quotes */
    snprintf(v->e[0].text, VAL_LEN, "%s", text);
    v->n = 1;
    return v;
}

/* Every scalar value (not key) equal to `f`, renamed. */
static void rename_all(const vary_ctx *c, variant *v, const th_ynode *n, const th_ynode *f,
                       const char *to) {
    if (n->kind == TH_Y_SCALAR) {
        if (n->len == f->len && memcmp(n->text, f->text, f->len) == 0 && v->n < EDITS_MAX &&
            !is_block(c, n)) {
            v->e[v->n].at = offset_of(c->text, n->line, n->column);
            v->e[v->n].len = n->len + (n->quoted ? 2 : 0);
            snprintf(v->e[v->n].text, VAL_LEN, "%s", to);
            v->n++;
        }
        return;
    }
    /* Keys too: the bunkers of `exit_choice.weights` are named by theirs. */
    const uint32_t items = n->kind == TH_Y_MAPPING ? 2 * n->count : n->count;
    for (uint32_t i = 0; i < items; i++) rename_all(c, v, n->items[i], f, to);
}

static void collect_names(vary_ctx *c, const th_ynode *n) {
    if (n->kind == TH_Y_SEQUENCE)
        for (uint32_t i = 0; i < n->count; i++) collect_names(c, n->items[i]);
    if (n->kind != TH_Y_MAPPING) return;
    for (uint32_t i = 0; i < n->count; i++) {
        const th_ynode *k = th_ynode_key(n, i), *v = th_ynode_value(n, i);
        if (strcmp(k->text, "name") == 0 && v->kind == TH_Y_SCALAR && c->name_count < NAMES_MAX)
            snprintf(c->names[c->name_count++], VAL_LEN, "'%.*s'", (int)(VAL_LEN - 3), v->text);
        if (strcmp(k->text, "legend") == 0 && v->kind == TH_Y_MAPPING)
            for (uint32_t j = 0; j < v->count && c->name_count < NAMES_MAX; j++)
                snprintf(c->names[c->name_count++], VAL_LEN, "'%.*s'", (int)(VAL_LEN - 3),
                         th_ynode_key(v, j)->text);
        collect_names(c, v);
    }
}

/* Other values for scalar `f`, tried in turn until one loads: numbers (seconds with their
 * unit) moved, words of the same choice, a colour, a file with a 2 before its extension, each
 * other name of the scene (a reference pointed elsewhere), the text with a 2, that text in
 * every place the value is written (a name renamed with its references), and for a block (an
 * ASCII map) two neighbouring characters swapped. */
static uint32_t variants_of(const vary_ctx *c, const th_ynode *k, const th_ynode *f,
                            const char *key, variant *out) {
    /* Keys that take one value: the key and value become another kind's. */
    static const struct {
        const char *key, *instead;
    } pairs[] = {
        {"targets.shelter", "point: [20, 15]"},
        {"agent_goals.crowd_goal", "point: [20.5, 15.5]"},
    };
    static const char *const words[][6] = {
        {"walls", "wrap"},
        {"boids", "pedestrian"},
        {"flock", "flee"},
        {"chase", "intercept"},
        {"once", "loop", "patrol"},
        {"false", "true"},
        {"east", "north", "west", "south"},
        {"right", "left", "nearest"},
        {"line", "column", "wedge", "box", "circle"},
        {"shuttle", "collective"},
        {"x", "y"},
        /* Terrain 7: above a stair's cost (which a lower one would leave as it is). */
        {"open", "wall", "destructible", "{terrain: 7}", "{speed: 0.5}"},
        {"auto", "[[0, 1]]"},
        {"shelter", "wander", "{wander: {rate: 30}}"},
    };
    uint32_t n = 0;
    if (is_block(c, f)) {
        /* Lines of the block in the source: after the indicator, as many as the text has. */
        size_t at = offset_of(c->text, f->line, f->column);
        at = (size_t)(strchr(c->text + at, '\n') - c->text) + 1;
        size_t lines = 0;
        for (size_t i = 0; i < f->len; i++) lines += f->text[i] == '\n';
        size_t end = at;
        for (size_t l = 0; l < lines && c->text[end]; l++) {
            const char *nl = strchr(c->text + end, '\n');
            end = nl ? (size_t)(nl - c->text) + 1 : c->len;
        }
        size_t spots[4096], count = 0;
        for (size_t i = at; i + 1 < end && count < 4096; i++) {
            const char a = c->text[i], b = c->text[i + 1];
            if (a != b && a > ' ' && b > ' ') spots[count++] = i;
        }
        for (uint32_t k = 1; k <= 7 && count; k++) {
            const size_t i = spots[count * k / 8];
            variant *v = &out[n++];
            memset(v, 0, sizeof *v);
            v->e[0].at = i;
            v->e[0].len = 2;
            v->e[0].text[0] = c->text[i + 1];
            v->e[0].text[1] = c->text[i];
            v->n = 1;
        }
        return n;
    }
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        if (k && strcmp(key, pairs[i].key) == 0) {
            variant *v = one_edit(c, &out[n++], f, pairs[i].instead);
            const size_t at = offset_of(c->text, k->line, k->column);
            v->e[0].len += v->e[0].at - at;
            v->e[0].at = at;
        }
    char v[VAL_LEN], alt[VAL_LEN + 8];
    snprintf(v, sizeof v, "%.*s", (int)(f->len < VAL_LEN - 1 ? f->len : VAL_LEN - 1), f->text);
    char *end;
    const double d = strtod(v, &end);
    if (f->len && end != v && (*end == '\0' || strcmp(end, "s") == 0 || strcmp(end, "ms") == 0)) {
        const bool whole = !strpbrk(v, ".eE");
        const double m[] = {d + 1, d - 1, whole ? d + 2 : d * 1.5, whole ? d + 3 : d * 0.5,
                            whole ? d + 4 : d + 0.25};
        for (int i = 0; i < 5; i++) {
            snprintf(alt, sizeof alt, whole ? "%.0f%s" : "%.6g%s", m[i], end);
            if (strcmp(alt, v) != 0) one_edit(c, &out[n++], f, alt);
        }
        return n;
    }
    for (size_t g = 0; g < sizeof words / sizeof words[0]; g++) {
        bool in = false;
        for (int i = 0; i < 6 && words[g][i]; i++) in |= strcmp(words[g][i], v) == 0;
        if (!in) continue;
        for (int i = 0; i < 6 && words[g][i] && n < VARIANTS_MAX; i++)
            if (strcmp(words[g][i], v) != 0) one_edit(c, &out[n++], f, words[g][i]);
    }
    if (v[0] == '#' && f->len == 7) {
        snprintf(alt, sizeof alt, "'#%05x1'", (unsigned)strtoul(v + 1, NULL, 16) >> 4);
        one_edit(c, &out[n++], f, alt);
    }
    const char *dot = strrchr(v, '.');
    if (dot && dot > v && dot[1] && !strchr(v, ' ')) {
        snprintf(alt, sizeof alt, "%.*s2%s", (int)(dot - v), v, dot);
        one_edit(c, &out[n++], f, alt);
    }
    snprintf(alt, sizeof alt, "'%s'", v);
    for (uint32_t i = 0; i < c->name_count && n + 2 < VARIANTS_MAX; i++)
        if (strcmp(c->names[i], alt) != 0) one_edit(c, &out[n++], f, c->names[i]);
    snprintf(alt, sizeof alt, "'%.60s2'", v); /* a name still: output columns are named so */
    one_edit(c, &out[n++], f, alt);
    variant *all = &out[n];
    memset(all, 0, sizeof *all);
    rename_all(c, all, c->root, f, alt);
    all->everywhere = true;
    if (all->n > 1) n++;
    return n;
}

static int edit_order(const void *a, const void *b) {
    const size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* The scene's text with variant `v` applied (the caller frees it). */
static char *apply(const vary_ctx *c, variant *v, size_t *len) {
    qsort(v->e, v->n, sizeof v->e[0], edit_order); /* `at` leads each edit */
    size_t n = c->len;
    for (uint32_t i = 0; i < v->n; i++) n = n - v->e[i].len + strlen(v->e[i].text);
    char *t = malloc(n + 1);
    ck_assert_ptr_nonnull(t);
    size_t from = 0, to = 0;
    for (uint32_t i = 0; i < v->n; i++) {
        memcpy(t + to, c->text + from, v->e[i].at - from);
        to += v->e[i].at - from;
        const size_t k = strlen(v->e[i].text);
        memcpy(t + to, v->e[i].text, k);
        to += k;
        from = v->e[i].at + v->e[i].len;
    }
    memcpy(t + to, c->text + from, c->len - from + 1);
    *len = n;
    return t;
}

static void vary_scalar(vary_ctx *c, const th_ynode *k, const th_ynode *f, const char *key) {
    static variant alt[VARIANTS_MAX];
    const uint32_t n = variants_of(c, k, f, key, alt);
    bool built = false;
    for (uint32_t a = 0; a < n && !built; a++) {
        size_t len;
        char *t = apply(c, &alt[a], &len);
        uint64_t d[TH_DIGEST_PARTS];
        built = digest_of(c->name, t, len, d, c->accepted);
        free(t);
        if (!built) continue;
        key_add(c->varied, key);
        uint32_t changed = 0;
        for (uint32_t p = 0; p < TH_DIGEST_PARTS; p++) changed |= (d[p] != c->base[p]) << p;
        const uint32_t want = key_parts(key);
        if (!changed) {
            fprintf(stderr, "%s:%u:%u: %s: %.*s -> %s%s leaves the world's digest as it was\n",
                    c->name, f->line, f->column, key, (int)f->len, f->text, alt[a].e[0].text,
                    alt[a].everywhere ? " (everywhere)" : "");
            c->unchanged++;
        } else if (!(changed & want) && !alt[a].everywhere) { /* a rename reaches its uses */
            fprintf(stderr,
                    "%s:%u:%u: %s: %.*s -> %s%s changes none of the parts of its "
                    "section (parts changed: 0x%x, expected among 0x%x)\n",
                    c->name, f->line, f->column, key, (int)f->len, f->text, alt[a].e[0].text,
                    alt[a].everywhere ? " (everywhere)" : "", changed, want);
            c->misplaced++;
        }
    }
    if (!built) key_add(c->unvaried, key);
}

/* The first scalar in a value of scalars and sequences of them; NULL when a mapping is in it
 * (its keys are varied one by one instead). */
static const th_ynode *first_scalar(const th_ynode *v) {
    if (v->kind == TH_Y_SCALAR) return v;
    if (v->kind == TH_Y_MAPPING) return NULL;
    const th_ynode *first = NULL;
    for (uint32_t i = 0; i < v->count; i++) {
        if (v->items[i]->kind == TH_Y_MAPPING) return NULL;
        const th_ynode *f = first_scalar(v->items[i]);
        if (!f) return NULL;
        if (!first) first = f;
    }
    return first;
}

static void vary_map(vary_ctx *c, const th_ynode *map, const char *path) {
    for (uint32_t i = 0; i < map->count; i++) {
        const th_ynode *k = th_ynode_key(map, i), *v = th_ynode_value(map, i);
        char key[KEY_LEN], sub[KEY_LEN];
        snprintf(sub, sizeof sub, "%s%s%.*s", path, path[0] ? "." : "", (int)k->len, k->text);
        key_norm(path, k->text, key);
        if (v->kind != TH_Y_SCALAR) key_add(c->met, key); /* by what it holds */
        if (v->kind == TH_Y_MAPPING) {
            vary_map(c, v, sub);
            continue;
        }
        const th_ynode *f = first_scalar(v);
        if (!f) {
            for (uint32_t j = 0; j < v->count; j++)
                if (v->items[j]->kind == TH_Y_MAPPING) vary_map(c, v->items[j], sub);
            continue;
        }
        if (!key_add(c->met, key)) continue; /* once per key and scene */
        if (!not_world(key)) vary_scalar(c, f == v ? k : NULL, f, key);
    }
}

/* Every key the parser accepts, met in the library's scenes or in tests/data/digest (written to
 * use every key) and varied there: each variant that loads must change the digest the MPI ranks
 * compare (sim/observe/digest.h), in a part of the key's section, so no part of a world can differ
 * between ranks unseen. A key no scene uses, or none can vary, fails unless it is one of
 * k_not_world. */
START_TEST(every_scene_key_changes_the_world_digest) {
    static th_test_path scenes[2 * TH_TEST_MAX_SCENES];
    uint32_t n = th_test_scenes(THRONG_SCENES_DIR, scenes);
    n += th_test_scenes(THRONG_SCENES_DIR "/../tests/data/digest", scenes + n);
    static key_set accepted, met, met_here, varied, unvaried;
    memset(&accepted, 0, sizeof accepted);
    memset(&met, 0, sizeof met);
    memset(&varied, 0, sizeof varied);
    memset(&unvaried, 0, sizeof unvaried);
    uint32_t unchanged = 0, misplaced = 0;
    for (uint32_t i = 0; i < n; i++) {
        FILE *f = fopen(scenes[i], "rb");
        ck_assert_ptr_nonnull(f);
        static char text[1 << 20];
        const size_t len = fread(text, 1, sizeof text - 1, f);
        fclose(f);
        text[len] = '\0';
        uint64_t base[TH_DIGEST_PARTS];
        ck_assert_msg(digest_of(scenes[i], text, len, base, &accepted), "%s does not load",
                      scenes[i]);
        th_scene s;
        th_error err = {0};
        ck_assert(th_scene_parse_memory(&s, scenes[i], text, len, &err));
        memset(&met_here, 0, sizeof met_here);
        static vary_ctx c;
        memset(&c, 0, sizeof c);
        c.name = scenes[i];
        c.text = text;
        c.len = len;
        c.root = s.doc.root;
        c.base = base;
        c.met = &met_here;
        c.accepted = &accepted;
        c.varied = &varied;
        c.unvaried = &unvaried;
        collect_names(&c, s.doc.root);
        vary_map(&c, s.doc.root, "");
        th_scene_free(&s);
        unchanged += c.unchanged;
        misplaced += c.misplaced;
        for (uint32_t k = 0; k < met_here.count; k++) key_add(&met, met_here.key[k]);
    }
    uint32_t missing = 0, stuck = 0;
    for (uint32_t k = 0; k < accepted.count; k++)
        if (!key_has(&met, accepted.key[k]) && !not_world(accepted.key[k]))
            fprintf(stderr, "never met: %s\n", accepted.key[k]), missing++;
    for (uint32_t k = 0; k < unvaried.count; k++)
        if (!key_has(&varied, unvaried.key[k]) && !not_world(unvaried.key[k]))
            fprintf(stderr, "no variant loads: %s\n", unvaried.key[k]), stuck++;
    fprintf(stderr, "scene keys: %u accepted, %u met, %u varied\n", accepted.count, met.count,
            varied.count);
    /* The parser's own key lists were reached (a hook that heard nothing would pass anything). */
    ck_assert_uint_gt(accepted.count, 200);
    ck_assert_msg(missing == 0, "%u scene keys are in no scene (tests/data/digest)", missing);
    ck_assert_msg(stuck == 0, "%u scene keys have no other value that loads", stuck);
    ck_assert_msg(unchanged == 0, "%u changes of a scene leave the world's digest as it was",
                  unchanged);
    ck_assert_msg(misplaced == 0, "%u changes of a scene change no part of their section",
                  misplaced);
}
END_TEST

int main(void) {
    if (!th_test_dir_make("scene")) return EXIT_FAILURE;
    Suite *s = suite_create("scene");
    TCase *tc = tcase_create("files");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, every_library_scene_loads_and_runs);
    tcase_add_loop_test(tc, broken_scene_reports_exact_place, 0,
                        (int)(sizeof k_bad / sizeof k_bad[0]));
    tcase_add_loop_test(tc, scene_error_wording, 0, (int)(sizeof k_wording / sizeof k_wording[0]));
    tcase_add_test(tc, bad_scene_table_is_large_enough);
    tcase_add_test(tc, yaml_and_api_give_the_same_world);
    tcase_add_test(tc, image_map_matches_its_pixels);
    tcase_add_test(tc, generated_city_matches_its_rule);
    tcase_add_test(tc, scaling_and_overrides);
    /* One-thread worlds built and never stepped: nothing for ThreadSanitizer to find. */
    if (!TH_TEST_TSAN) tcase_add_test(tc, every_scene_key_changes_the_world_digest);
    suite_add_tcase(s, tc);
    int rc = th_test_run(s);
    if (!th_test_dir_remove()) return EXIT_FAILURE;
    return rc;
}
