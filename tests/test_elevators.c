/* Elevators: evacuations by car against their hand calculation (trips of travel, doors,
 * boarding, dwell and stepping out), the order stops are served in, riders out of everyone's
 * reach, the same state at 1, 2, 3 and 8 threads, and the refusals (stops on a stair's seam
 * among them). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "throng/building.h"
#include "throng/throng.h"
#include "test_util.h"

/* Travel by hand: a car reaching its top speed spends v / a speeding up and as long slowing
 * down, covering v^2 / a, and the rest at v; one that does not reaches sqrt(h a) at half way. */
static double hand_travel(double h, double v, double a) {
    if (a <= 0.0) return h / v;
    if (h >= v * v / a) return (h - v * v / a) / v + 2.0 * v / a;
    return 2.0 * sqrt(h / a);
}

/* The `policy` line of the towers built next, or NULL for the default (shuttle). */
static const char *tower_policy;
/* Per storey of the towers built next: a line added to its crowd (NULL: none), and whether it
 * is left empty. */
static const char *tower_crowd_line[8];
static bool tower_empty[8];

/* A building of `levels` storeys 4 m apart, drawn side by side (21 x 10 cells of 0.5 m each),
 * the ground's west wall an exit; one elevator with a stop by each east wall; `per_floor`
 * occupants on each upper storey, next to the stop (within 3.6 m of it). */
static const char *tower(const char *name, int levels, int per_floor, uint32_t capacity,
                         double speed, double accel, double board, double rise) {
    static char text[16384];
    char map[10][160];
    const int w = 21 * levels;
    for (int r = 0; r < 10; r++) {
        for (int x = 0; x < w; x++) {
            const int lx = x % 21;
            const bool wall = r == 0 || r == 9 || lx == 0 || lx == 20;
            map[r][x] = wall ? '#' : '.';
            if (x == 0 && (r == 4 || r == 5)) map[r][x] = 'E';
        }
        map[r][w] = '\0';
    }
    int n = snprintf(text, sizeof text,
                     "name: %s\nseed: 5\ntimestep: 0.05\nsteps: 20000\nmap:\n  cell_size: 0.5\n"
                     "  legend: {'#': wall, '.': open, 'E': {bunker: exit}}\n  ascii: |\n",
                     name);
    for (int r = 0; r < 10; r++) n += snprintf(text + n, sizeof text - n, "    %s\n", map[r]);
    n += snprintf(text + n, sizeof text - n, "levels:\n");
    for (int l = 0; l < levels; l++)
        n += snprintf(text + n, sizeof text - n,
                      "  - {name: l%d, cells: [%d, 0, %d, 9], elevation: %g}\n", l, 21 * l,
                      21 * l + 20, rise * l);
    n += snprintf(text + n, sizeof text - n, "elevators:\n  - name: car\n    stops: [");
    for (int l = 0; l < levels; l++)
        n += snprintf(text + n, sizeof text - n, "%s{level: l%d, cell: [%d, 5]}", l ? ", " : "", l,
                      21 * l + 18);
    n += snprintf(text + n, sizeof text - n,
                  "]\n    capacity: %u\n    speed: %g\n    acceleration: %g\n    door_time: 1.5\n"
                  "    dwell: 2.5\n    board_time: %g\n    radius: 3\n",
                  capacity, speed, accel, board);
    if (tower_policy) n += snprintf(text + n, sizeof text - n, "    policy: %s\n", tower_policy);
    n += snprintf(text + n, sizeof text - n, "    crowds: [");
    for (int l = 1; l < levels; l++)
        n += snprintf(text + n, sizeof text - n, "%sf%d", l > 1 ? ", " : "", l);
    n += snprintf(text + n, sizeof text - n, "]\ncrowds:\n");
    const double spread = per_floor > 16 ? 3.2 : 1.6; /* metres west of the stop's east edge */
    for (int l = 1; l < levels; l++)
        n += snprintf(text + n, sizeof text - n,
                      "  - name: f%d\n    model: pedestrian\n    behavior: flee\n    count: %d\n"
                      "    spawn: {rect: [%g, 1.2, %g, 2.6]}\n%s%s",
                      l, l < 8 && tower_empty[l] ? 0 : per_floor, 10.5 * l + 9.2 - spread, spread,
                      l < 8 && tower_crowd_line[l] ? tower_crowd_line[l] : "",
                      l < 8 && tower_crowd_line[l] ? "\n" : "");
    return th_test_write_text(name, text);
}

/* Step until the car has carried `n` riders and the world is empty, at most `max_s`. */
static void run_until_out(th_world *w, uint64_t n, double max_s) {
    const double dt = th_world_get_def(w).timestep;
    th_elevator_info e;
    for (uint32_t s = 0; s < (uint32_t)(max_s / dt); s++) {
        th_world_step(w);
        ck_assert(th_world_get_elevator(w, (th_elevator_id){1}, &e));
        if (e.carried == n && th_world_agent_count(w) == 0) return;
    }
}

START_TEST(travel_time) {
    ck_assert_double_eq_tol(th_elevator_travel_time(4.0, 1.0, 1.0), 5.0, 1e-12);
    ck_assert_double_eq_tol(th_elevator_travel_time(0.5, 1.0, 1.0), 2.0 * sqrt(0.5), 1e-12);
    ck_assert_double_eq_tol(th_elevator_travel_time(1.0, 1.0, 1.0), 2.0, 1e-12); /* the bound */
    ck_assert_double_eq_tol(th_elevator_travel_time(6.0, 2.0, 0.0), 3.0, 1e-12);
    ck_assert_double_eq_tol(th_elevator_travel_time(0.0, 2.0, 1.0), 0.0, 1e-12);
}
END_TEST

/* One upper storey: trips of up, doors, k boarding, dwell, doors, down, doors, k out; between
 * trips dwell and doors. The last rider out when the hand calculation says, for cars that do
 * and do not reach their top speed, with and without time to board. */
START_TEST(one_floor_against_hand_calculation) {
    static const struct {
        int people;
        uint32_t capacity;
        double speed, accel, board, rise;
    } cases[] = {
        {1, 8, 1.0, 1.0, 1.0, 4.0},   {8, 8, 1.0, 1.0, 1.0, 4.0},  {13, 4, 2.5, 0.8, 0.5, 3.5},
        {6, 10, 1.5, 0.0, 0.0, 4.0},  {9, 2, 4.0, 1.2, 0.75, 3.0}, {5, 3, 1.0, 2.0, 1.25, 0.6},
        {20, 40, 1.0, 1.0, 0.0, 4.0}, /* twenty step out at once, under the body checks */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const double door = 1.5, dwell = 2.5;
        char name[32];
        snprintf(name, sizeof name, "hand%zu.yaml", i);
        th_error err;
        th_scene_opts o = {0};
        o.threads = 2;
        th_world *w =
            th_scene_load(tower(name, 2, cases[i].people, cases[i].capacity, cases[i].speed,
                                cases[i].accel, cases[i].board, cases[i].rise),
                          &o, NULL, &err);
        ck_assert_msg(w != NULL, "%s", err.message);
        th_world_set_validation(w, true);
        const double t = hand_travel(cases[i].rise, cases[i].speed, cases[i].accel);
        double hand = 0.0;
        uint32_t trips = 0;
        for (int left = cases[i].people; left > 0; trips++) {
            const int k = left < (int)cases[i].capacity ? left : (int)cases[i].capacity;
            left -= k;
            hand += (trips ? dwell + door : 0.0) + t + door + k * cases[i].board + dwell + door +
                    t + door + k * cases[i].board;
        }
        run_until_out(w, (uint64_t)cases[i].people, hand + 60.0);
        ck_assert_msg(th_world_validation_error(w) == NULL, "%s", th_world_validation_error(w));
        th_elevator_info e;
        ck_assert(th_world_get_elevator(w, (th_elevator_id){1}, &e));
        ck_assert_msg(e.carried == (uint64_t)cases[i].people && e.trips == trips,
                      "case %zu: %llu carried in %llu trips", i, (unsigned long long)e.carried,
                      (unsigned long long)e.trips);
        ck_assert_msg(fabs(e.last_out - hand) < 1e-4, "case %zu: last out at %.4f s, by hand %.4f",
                      i, e.last_out, hand);
        ck_assert_uint_eq(th_world_agent_count(w), 0); /* and all walked out */
        th_world_destroy(w);
    }
}
END_TEST

/* Two upper storeys calling in the same step: the higher one first; then the lower one. While
 * they ride, riders stand on no level, no one is counted twice, and no body check fails. */
START_TEST(calls_and_riders) {
    th_error err;
    th_scene_opts o = {0};
    o.threads = 3;
    th_world *w = th_scene_load(tower("calls.yaml", 3, 4, 4, 1.0, 0.0, 1.0, 4.0), &o, NULL, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    th_world_set_validation(w, true);
    const th_crowd_id f1 = {1}, f2 = {2}; /* the scene's crowds, in order */
    bool saw_riders = false;
    th_elevator_info e;
    for (int s = 0; s < 4000; s++) {
        th_world_step(w);
        ck_assert(th_world_get_elevator(w, (th_elevator_id){1}, &e));
        th_agent_view v = th_world_agents(w);
        uint32_t riding = 0, on_levels = 0, f1_left = 0, f2_left = 0;
        for (uint32_t k = 0; k < v.count; k++) {
            riding += th_world_agent_elevator(w, v.id[k]).index1 == 1;
            f1_left += v.crowd[k] == f1.index1 - 1;
            f2_left += v.crowd[k] == f2.index1 - 1;
        }
        for (uint32_t l = 0; l < 3; l++) {
            th_level_info li;
            ck_assert(th_world_get_level(w, (th_level_id){l + 1}, &li));
            on_levels += li.agents;
        }
        ck_assert_uint_eq(riding, e.riders);
        ck_assert_uint_eq(on_levels + riding, v.count);
        saw_riders |= riding > 0;
        /* The first trip takes the second floor's four; the first floor's wait for the next. */
        if (e.carried >= 1 && e.carried <= 4) ck_assert_uint_eq(f1_left, 4);
        if (e.carried == 4 && e.riders == 0) ck_assert_uint_eq(e.trips, 1);
        if (e.carried == 8 && v.count == 0) break;
    }
    ck_assert(saw_riders);
    ck_assert_uint_eq(e.carried, 8);
    ck_assert_uint_eq(e.trips, 2);
    ck_assert_msg(th_world_validation_error(w) == NULL, "%s", th_world_validation_error(w));
    th_world_destroy(w);
}
END_TEST

/* The collective policy on three storeys that call in the same step: the car goes up to the
 * second floor, boards its k, stops at the first on the way down while it has room, and carries
 * everyone down in one trip, last out when the hand calculation says. With room for the second
 * floor's riders only it skips the first floor, as a shuttle does: two trips. */
START_TEST(collective_against_hand_calculation) {
    static const struct {
        int k;
        uint32_t capacity;
        double speed, accel, board;
    } cases[] = {
        {3, 8, 1.0, 1.0, 1.0}, {4, 8, 2.0, 0.8, 0.5}, {2, 4, 1.5, 0.0, 0.0}, {3, 3, 1.0, 1.0, 1.0}};
    tower_policy = "collective";
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const double door = 1.5, dwell = 2.5, rise = 4.0, b = cases[i].board;
        const int k = cases[i].k;
        char name[32];
        snprintf(name, sizeof name, "collective%zu.yaml", i);
        th_error err;
        th_scene_opts o = {0};
        o.threads = 2;
        th_world *w = th_scene_load(
            tower(name, 3, k, cases[i].capacity, cases[i].speed, cases[i].accel, b, rise), &o, NULL,
            &err);
        ck_assert_msg(w != NULL, "%s", err.message);
        th_world_set_validation(w, true);
        th_elevator_info e;
        ck_assert(th_world_get_elevator(w, (th_elevator_id){1}, &e));
        ck_assert_int_eq(e.policy, TH_ELEVATOR_COLLECTIVE);
        const double t1 = hand_travel(rise, cases[i].speed, cases[i].accel);
        const double t2 = hand_travel(2.0 * rise, cases[i].speed, cases[i].accel);
        double hand;
        uint64_t trips;
        if (cases[i].capacity >= (uint32_t)(2 * k)) { /* up two floors, down by the first */
            hand = t2 + door + k * b + dwell + door + t1 + door + k * b + dwell + door + t1 + door +
                   2 * k * b;
            trips = 1;
        } else { /* full at the second floor: down, then a trip for the first */
            hand = t2 + door + k * b + dwell + door + t2 + door + k * b + dwell + door + t1 + door +
                   k * b + dwell + door + t1 + door + k * b;
            trips = 2;
        }
        run_until_out(w, (uint64_t)(2 * k), hand + 60.0);
        ck_assert_msg(th_world_validation_error(w) == NULL, "%s", th_world_validation_error(w));
        ck_assert(th_world_get_elevator(w, (th_elevator_id){1}, &e));
        ck_assert_msg(e.carried == (uint64_t)(2 * k) && e.trips == trips,
                      "case %zu: %llu carried in %llu trips", i, (unsigned long long)e.carried,
                      (unsigned long long)e.trips);
        ck_assert_msg(fabs(e.last_out - hand) < 1e-4, "case %zu: last out at %.4f s, by hand %.4f",
                      i, e.last_out, hand);
        th_world_destroy(w);
    }
    tower_policy = NULL;
}
END_TEST

/* A collective car with riders goes down, not up: four storeys, three waiting on the second
 * floor from the start, three on the third who call only after a pre-movement of 8 s, while the
 * car is on its way up to the second. It boards the second floor's three and takes them down to
 * the discharge stop (a call above is not on its way), then fetches the third floor's: two
 * trips, the second floor's riders out before anyone from the third boards. */
START_TEST(collective_passes_calls_off_its_way) {
    tower_policy = "collective";
    tower_empty[1] = true;
    tower_crowd_line[3] = "    pre_movement: 8";
    th_error err;
    th_scene_opts o = {0};
    o.threads = 2;
    th_world *w = th_scene_load(tower("offway.yaml", 4, 3, 8, 1.0, 1.0, 1.0, 4.0), &o, NULL, &err);
    tower_policy = NULL;
    tower_empty[1] = false;
    tower_crowd_line[3] = NULL;
    ck_assert_msg(w != NULL, "%s", err.message);
    const double dt = th_world_get_def(w).timestep;
    th_elevator_info e;
    bool third_boarded_before = false;
    for (uint32_t s = 0; s < (uint32_t)(300.0 / dt); s++) {
        th_world_step(w);
        ck_assert(th_world_get_elevator(w, (th_elevator_id){1}, &e));
        /* Riders from the third floor aboard while the second floor's are not yet out. */
        if (e.carried < 3 && e.riders > 3) third_boarded_before = true;
        if (e.carried == 6 && th_world_agent_count(w) == 0) break;
    }
    ck_assert_uint_eq(e.carried, 6);
    ck_assert_msg(e.trips == 2 && !third_boarded_before,
                  "%llu trips; third floor aboard before the second's were out: %d",
                  (unsigned long long)e.trips, third_boarded_before);
    th_world_destroy(w);
}
END_TEST

/* Patience: eight wait by the first floor's stop from the first step, a car of two serves
 * them. Those still waiting `patience` seconds on give up together, in the step the hand
 * calculation says (no one earlier), and only the two the first trip took are carried. */
START_TEST(patience_against_hand_calculation) {
    const double patience = 25.0, dt = 0.05;
    const char *path = tower("patience.yaml", 2, 8, 2, 1.0, 1.0, 1.0, 4.0);
    char text[16384];
    FILE *f = fopen(path, "r");
    ck_assert(f != NULL);
    const size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    /* The same tower, its car patient for 25 s. */
    char *at = strstr(text, "    crowds: [");
    ck_assert(at != NULL);
    char out[16500];
    snprintf(out, sizeof out, "%.*s    patience: %g\n%s", (int)(at - text), text, patience, at);
    th_error err;
    th_scene_opts o = {0};
    o.threads = 2;
    th_world *w = th_scene_load(th_test_write_text("patience2.yaml", out), &o, NULL, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    th_elevator_info e;
    ck_assert(th_world_get_elevator(w, (th_elevator_id){1}, &e));
    ck_assert_double_eq_tol(e.patience, patience, 1e-6);
    /* Everyone stands within reach of the stop at the first count (after step 1), so each has
     * waited (s - 1) steps after step s: they give up after step 1 + patience / dt. The first
     * trip boards its two at 7.5 and 8.5 s; the car is back only at 31.5 s. */
    const uint32_t quit_step = 1u + (uint32_t)lround(patience / dt);
    for (uint32_t s = 1; s <= quit_step + 10; s++) {
        th_world_step(w);
        ck_assert(th_world_get_elevator(w, (th_elevator_id){1}, &e));
        if (s < quit_step)
            ck_assert_msg(e.gave_up == 0, "step %u: %llu gave up", s,
                          (unsigned long long)e.gave_up);
        else
            ck_assert_msg(e.gave_up == 6, "step %u: %llu gave up", s,
                          (unsigned long long)e.gave_up);
    }
    for (uint32_t s = 0; s < 2000; s++) th_world_step(w);
    ck_assert(th_world_get_elevator(w, (th_elevator_id){1}, &e));
    ck_assert_uint_eq(e.carried, 2);
    ck_assert_uint_eq(e.gave_up, 6);
    ck_assert_uint_eq(e.waiting, 0); /* those who gave up wait no more */
    ck_assert_uint_eq(e.trips, 1);
    th_world_destroy(w);
}
END_TEST

/* Thirty riders of a car for forty stepping out in the same step, waiting close to the stop
 * (radius 1 m): placed a body's width apart and settled, no two bodies overlap past the
 * bound the body checks allow. */
START_TEST(many_step_out_at_once) {
    const char *path = tower("crowded.yaml", 2, 30, 40, 1.0, 1.0, 0.0, 4.0);
    FILE *f = fopen(path, "r");
    ck_assert(f != NULL);
    static char text[16384];
    const size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    char *r = strstr(text, "radius: 3");
    ck_assert(r != NULL);
    memcpy(r, "radius: 1", 9); /* the same length: radius 1 m */
    th_error err;
    th_scene_opts o = {0};
    o.threads = 2;
    th_world *w = th_scene_load(th_test_write_text("crowded.yaml", text), &o, NULL, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    th_world_set_validation(w, true);
    th_elevator_info e;
    uint64_t most = 0, before = 0;
    for (int s = 0; s < 4000 && th_world_agent_count(w) > 0; s++) {
        th_world_step(w);
        ck_assert(th_world_get_elevator(w, (th_elevator_id){1}, &e));
        if (e.carried - before > most) most = e.carried - before;
        before = e.carried;
        ck_assert_msg(th_world_validation_error(w) == NULL, "step %d: %s", s,
                      th_world_validation_error(w));
    }
    ck_assert_uint_eq(e.carried, 30);
    ck_assert_uint_ge(most, 10); /* many in one step */
    th_world_destroy(w);
}
END_TEST

/* Riders are in no measurement area, and stepping out on the ground floor crosses no line on
 * the first floor between the stop and where they step out. */
START_TEST(riders_out_of_measurement) {
    th_error err;
    th_scene_opts o = {0};
    o.threads = 2;
    th_world *w = th_scene_load(tower("measure.yaml", 2, 8, 4, 1.0, 1.0, 1.0, 4.0), &o, NULL, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    /* The first floor spans x = 10.5-21 m; its stop is at (19.75, 2.75), its walkers east of
     * x = 18; the ground floor's stop is at (9.25, 2.75), its exit at x = 0. */
    const th_measure_line_def ld = {"upper", {15.0f, 0.5f}, {15.0f, 4.5f}, 1.0f};
    const th_measure_line_id line = th_world_add_measure_line(w, &ld, &err);
    ck_assert_msg(line.index1, "%s", err.message);
    const th_measure_area_def ad = {"lobby", 16.5f, 0.5f, 20.5f, 4.5f};
    const th_measure_area_id area = th_world_add_measure_area(w, &ad, &err);
    ck_assert_msg(area.index1, "%s", err.message);
    bool rode = false;
    th_elevator_info e;
    for (int s = 0; s < 3000 && th_world_agent_count(w) > 0; s++) {
        th_world_step(w);
        th_agent_view v = th_world_agents(w);
        uint32_t walking_inside = 0;
        for (uint32_t k = 0; k < v.count; k++) {
            const bool riding = th_world_agent_elevator(w, v.id[k]).index1 != 0;
            rode |= riding;
            walking_inside +=
                !riding && v.px[k] >= 16.5f && v.px[k] < 20.5f && v.py[k] >= 0.5f && v.py[k] < 4.5f;
        }
        th_measure_area_info ai;
        ck_assert(th_world_get_measure_area(w, area, &ai));
        ck_assert_uint_eq(ai.count, walking_inside);
    }
    ck_assert(rode);
    ck_assert(th_world_get_elevator(w, (th_elevator_id){1}, &e));
    ck_assert_uint_eq(e.carried, 8);
    th_measure_line_info li;
    ck_assert(th_world_get_measure_line(w, line, &li));
    ck_assert_uint_eq(li.forward_total + li.backward_total, 0);
    th_world_destroy(w);
}
END_TEST

START_TEST(same_state_at_any_thread_count) {
    uint64_t first = 0;
    const uint32_t threads[4] = {1, 2, 3, 8};
    const char *path = tower("threads.yaml", 3, 15, 6, 1.2, 0.9, 0.8, 3.5);
    for (int i = 0; i < 4; i++) {
        th_scene_opts o = {0};
        o.threads = threads[i];
        th_error err;
        th_world *w = th_scene_load(path, &o, NULL, &err);
        ck_assert_msg(w != NULL, "%s", err.message);
        for (int s = 0; s < 1500; s++) th_world_step(w);
        th_elevator_info e;
        ck_assert(th_world_get_elevator(w, (th_elevator_id){1}, &e));
        ck_assert(e.carried > 0 && e.carried < 30); /* mid-evacuation */
        const uint64_t h = th_world_hash(w);
        if (i == 0) first = h;
        ck_assert_msg(h == first, "%u threads: hash %llx, 1 thread %llx", threads[i],
                      (unsigned long long)h, (unsigned long long)first);
        th_world_destroy(w);
    }
}
END_TEST

START_TEST(refusals) {
    th_world_def wd = th_default_world_def();
    wd.width = 20.0f;
    wd.height = 5.0f;
    wd.cell_size = 0.5f;
    th_error err;
    th_world *w = th_world_create(&wd, &err);
    ck_assert(w != NULL);
    th_level_def a = {"a", 0, 0, 19, 9, 0.0f}, b = {"b", 20, 0, 39, 9, 3.0f};
    ck_assert(th_world_add_level(w, &a, &err).index1 == 1);
    ck_assert(th_world_add_level(w, &b, &err).index1 == 2);
    th_crowd_def cd = th_default_crowd_def();
    cd.model = TH_MODEL_PEDESTRIAN;
    cd.body_radius = 0.2f;
    const th_crowd_id walkers = th_world_add_crowd(w, &cd, &err);
    ck_assert_msg(walkers.index1, "%s", err.message);
    const th_crowd_def bd = th_default_crowd_def();
    const th_crowd_id boids = th_world_add_crowd(w, &bd, &err);
    ck_assert(boids.index1);
    ck_assert(th_world_set_cell(w, 30, 5, TH_CELL_WALL, 0, &err));
    th_elevator_def d = {.name = "car",
                         .stop_count = 2,
                         .capacity = 4,
                         .speed = 1.0f,
                         .crowds = &walkers,
                         .crowd_count = 1};
    d.stops[0] = (th_elevator_stop){{1}, 10, 5};
    d.stops[1] = (th_elevator_stop){{2}, 31, 5};
    th_elevator_def bad = d;
    bad.stops[1].level = (th_level_id){1}; /* both on level a */
    bad.stops[1].x = 11;
    ck_assert(!th_world_add_elevator(w, &bad, &err).index1);
    ck_assert(strstr(err.message, "both on level 'a'"));
    bad = d;
    bad.stops[1].x = 30; /* a wall */
    ck_assert(!th_world_add_elevator(w, &bad, &err).index1);
    TH_TEST_ERR(err, TH_ERR_BLOCKED);
    bad = d;
    bad.stops[1].x = 12; /* on level a, not b */
    ck_assert(!th_world_add_elevator(w, &bad, &err).index1);
    TH_TEST_ERR(err, TH_ERR_BLOCKED);
    bad = d;
    bad.stop_count = 1;
    ck_assert(!th_world_add_elevator(w, &bad, &err).index1);
    TH_TEST_ERR(err, TH_ERR_INVALID);
    bad = d;
    bad.capacity = 0;
    ck_assert(!th_world_add_elevator(w, &bad, &err).index1);
    bad = d;
    bad.speed = 0.0f;
    ck_assert(!th_world_add_elevator(w, &bad, &err).index1);
    bad = d;
    bad.dwell = NAN;
    ck_assert(!th_world_add_elevator(w, &bad, &err).index1);
    bad = d;
    bad.discharge = 2;
    ck_assert(!th_world_add_elevator(w, &bad, &err).index1);
    bad = d;
    bad.crowds = &boids;
    ck_assert(!th_world_add_elevator(w, &bad, &err).index1);
    ck_assert(strstr(err.message, "not a pedestrian crowd"));
    bad = d;
    bad.crowd_count = 0;
    ck_assert(!th_world_add_elevator(w, &bad, &err).index1);
    ck_assert_msg(th_world_add_elevator(w, &d, &err).index1 == 1, "%s", err.message);
    ck_assert_uint_eq(th_world_elevator_count(w), 1);
    ck_assert_uint_eq(th_world_find_elevator(w, "car").index1, 1);
    ck_assert_uint_eq(th_world_find_elevator(w, "lift").index1, 0);
    bad = d;
    bad.name = "second";
    ck_assert(!th_world_add_elevator(w, &bad, &err).index1); /* the crowd has its elevator */
    ck_assert(strstr(err.message, "served by another elevator"));
    ck_assert(!th_world_add_elevator(w, &d, &err).index1); /* the name is taken */
    th_elevator_info e;
    ck_assert(th_world_get_elevator(w, (th_elevator_id){1}, &e));
    ck_assert_uint_eq(e.state, TH_ELEVATOR_IDLE);
    ck_assert(e.last_out < 0.0);
    ck_assert(!th_world_get_elevator(w, (th_elevator_id){2}, &e));
    th_world_step(w);
    d.name = "late";
    ck_assert(!th_world_add_elevator(w, &d, &err).index1);
    TH_TEST_ERR(err, TH_ERR_STATE);
    th_world_destroy(w);
}
END_TEST

/* Two levels of 20 x 10 cells of 0.5 m, a: x 0-19, b: x 20-39 (3 m up), a pedestrian crowd,
 * and the walls of a stair `up` the flight (2, 2)-(2, 6) on a to the landing (22, 7) on b: the
 * cell beyond the flight's top and the stairwell's cell behind the landing. */
static th_world *stair_world(th_crowd_id *walkers, th_stair_def *up) {
    th_world_def wd = th_default_world_def();
    wd.width = 20.0f;
    wd.height = 5.0f;
    wd.cell_size = 0.5f;
    th_error err;
    th_world *w = th_world_create(&wd, &err);
    ck_assert(w != NULL);
    th_level_def a = {"a", 0, 0, 19, 9, 0.0f}, b = {"b", 20, 0, 39, 9, 3.0f};
    ck_assert(th_world_add_level(w, &a, &err).index1 == 1);
    ck_assert(th_world_add_level(w, &b, &err).index1 == 2);
    th_crowd_def cd = th_default_crowd_def();
    cd.model = TH_MODEL_PEDESTRIAN;
    cd.body_radius = 0.2f;
    *walkers = th_world_add_crowd(w, &cd, &err);
    ck_assert_msg(walkers->index1, "%s", err.message);
    ck_assert(th_world_set_cell(w, 2, 7, TH_CELL_WALL, 0, &err));
    ck_assert(th_world_set_cell(w, 22, 6, TH_CELL_WALL, 0, &err));
    *up = (th_stair_def){.name = "up", 2, 2, 2, 6, TH_STAIR_NORTH, 22, 7, 0.0f, 0.0f, 0.0f};
    return w;
}

/* No stop on a stair's seam, whichever comes first: the stair, then a stop on its landing or on
 * its flight's top row; or the stop, then a stair glued at it. A stop next to the landing, or
 * on the flight below its top row, is fine. */
START_TEST(stops_off_the_seams) {
    th_crowd_id walkers;
    th_stair_def up;
    th_error err;
    th_world *w = stair_world(&walkers, &up);
    ck_assert_msg(th_world_add_stair(w, &up, &err).index1 == 1, "%s", err.message);
    th_elevator_def d = {.name = "car",
                         .stop_count = 2,
                         .capacity = 4,
                         .speed = 1.0f,
                         .crowds = &walkers,
                         .crowd_count = 1};
    d.stops[0] = (th_elevator_stop){{1}, 10, 5};
    d.stops[1] = (th_elevator_stop){{2}, 22, 7}; /* the landing */
    ck_assert(!th_world_add_elevator(w, &d, &err).index1);
    TH_TEST_ERR(err, TH_ERR_BLOCKED);
    ck_assert_msg(strstr(err.message, "cell (22, 7) of level 'b' is on a stair's seam"), "%s",
                  err.message);
    d.stops[0] = (th_elevator_stop){{1}, 2, 6}; /* the flight's top row */
    d.stops[1] = (th_elevator_stop){{2}, 30, 5};
    ck_assert(!th_world_add_elevator(w, &d, &err).index1);
    TH_TEST_ERR(err, TH_ERR_BLOCKED);
    ck_assert_msg(strstr(err.message, "cell (2, 6) of level 'a' is on a stair's seam"), "%s",
                  err.message);
    d.stops[0] = (th_elevator_stop){{1}, 2, 5};  /* on the flight, below its top row */
    d.stops[1] = (th_elevator_stop){{2}, 22, 8}; /* beyond the landing */
    ck_assert_msg(th_world_add_elevator(w, &d, &err).index1 == 1, "%s", err.message);
    th_world_destroy(w);

    w = stair_world(&walkers, &up);
    d.crowds = &walkers;
    d.stops[0] = (th_elevator_stop){{1}, 10, 5};
    d.stops[1] = (th_elevator_stop){{2}, 22, 7};
    ck_assert_msg(th_world_add_elevator(w, &d, &err).index1 == 1, "%s", err.message);
    ck_assert(!th_world_add_stair(w, &up, &err).index1);
    TH_TEST_ERR(err, TH_ERR_INVALID);
    ck_assert_msg(strstr(err.message, "the landing is a stop of elevator 'car' (cell (22, 7))"),
                  "%s", err.message);
    ck_assert_uint_eq(th_world_stair_count(w), 0);
    th_world_destroy(w);

    w = stair_world(&walkers, &up);
    d.crowds = &walkers;
    d.stops[0] = (th_elevator_stop){{1}, 2, 6};
    d.stops[1] = (th_elevator_stop){{2}, 30, 5};
    ck_assert_msg(th_world_add_elevator(w, &d, &err).index1 == 1, "%s", err.message);
    ck_assert(!th_world_add_stair(w, &up, &err).index1);
    ck_assert_msg(strstr(err.message, "the flight's top row is a stop of elevator 'car'"), "%s",
                  err.message);
    th_world_destroy(w);
}
END_TEST

static void setup(void) { ck_assert(th_test_dir_make("elevators")); }
static void teardown(void) { th_test_dir_remove(); }

static Suite *elevators_suite(void) {
    Suite *s = suite_create("elevators");
    TCase *tc = tcase_create("elevators");
    tcase_set_timeout(tc, 300);
    tcase_add_unchecked_fixture(tc, setup, teardown);
    tcase_add_test(tc, travel_time);
    tcase_add_test(tc, one_floor_against_hand_calculation);
    tcase_add_test(tc, collective_against_hand_calculation);
    tcase_add_test(tc, collective_passes_calls_off_its_way);
    tcase_add_test(tc, patience_against_hand_calculation);
    tcase_add_test(tc, calls_and_riders);
    tcase_add_test(tc, riders_out_of_measurement);
    tcase_add_test(tc, many_step_out_at_once);
    tcase_add_test(tc, same_state_at_any_thread_count);
    tcase_add_test(tc, refusals);
    tcase_add_test(tc, stops_off_the_seams);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return th_test_run(elevators_suite()); }
