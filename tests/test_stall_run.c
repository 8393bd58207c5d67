/* Stall figures over the whole run (th_stall_info's peak, peak_time, agent_seconds, longest_run,
 * queued, queued_peak) against what a caller computes by polling th_world_get_stall_info and the
 * agents' flags after every step; and queuing against stalling on three scenes of tests/data:
 * walkers clogging a door too narrow for their bodies until it is widened (stalled during the
 * run, none at the end), a slow queue of 100 walkers at a door 0.6 m wide (walkers go longer
 * than the stall time without moving 0.2 m, yet nobody is ever stalled: they queue), and the
 * clog left alone (those pressing in behind the stuck ones are stalled too, not queuing). The
 * figures are the same at 1 and 2 threads. The remaining cost between cell centres against a
 * bilinear field it must reproduce exactly, and a stall first reported at the stall time. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/alloc.h"
#include "sim/nav/nav.h"
#include "sim/observe/stall.h"
#include "test_util.h"
#include "throng/throng.h"

#ifndef THRONG_TEST_DATA
#define THRONG_TEST_DATA "tests/data"
#endif

#define MAX_SLOTS 256u

/* What a caller sees by polling after every step. */
typedef struct polled {
    double agent_seconds;   /* the stalled count times the timestep, summed over the steps */
    uint32_t peak;          /* most stalled after a step */
    uint64_t peak_step;     /* the first step after which `peak` was seen */
    float longest;          /* the largest `longest` seen */
    uint32_t queued_peak;   /* most queuing after a step */
    uint32_t ever_stalled;  /* steps after which some agent was stalled */
    uint64_t last_stalled;  /* the last of them */
    uint32_t flag_mismatch; /* steps whose TH_AGENT_STALLED flags did not count `stalled` */
    /* The longest time any agent stood within 0.2 m of one spot (it cannot have progressed
     * 0.2 m toward its goal meanwhile), seconds: by id slot, the spot and when it stood there. */
    float px[MAX_SLOTS], py[MAX_SLOTS];
    uint64_t since[MAX_SLOTS];
    uint32_t gen[MAX_SLOTS];
    double longest_stand;
    uint64_t steps;
} polled;

static th_world *load(const char *name, uint32_t threads) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", THRONG_TEST_DATA, name);
    th_error err;
    th_scene_opts so = {.threads = threads};
    th_world *w = th_scene_load(path, &so, NULL, &err);
    ck_assert_msg(w != NULL, "%s: %s", path, err.message);
    return w;
}

static void poll_step(th_world *w, polled *p) {
    const double dt = (double)th_world_get_def(w).timestep;
    th_world_step(w);
    const uint64_t step = th_world_step_count(w);
    th_stall_info si;
    ck_assert(th_world_get_stall_info(w, &si));
    p->steps = step;
    p->agent_seconds += (double)si.stalled * dt;
    if (si.stalled > p->peak) {
        p->peak = si.stalled;
        p->peak_step = step;
    }
    if (si.stalled) {
        p->ever_stalled++;
        p->last_stalled = step;
    }
    if (si.longest > p->longest) p->longest = si.longest;
    if (si.queued > p->queued_peak) p->queued_peak = si.queued;
    CHECK_MSG(si.stalled == 0 || si.longest >= si.stall_time,
              "step %llu: %u stalled for %g s, under the stall time", (unsigned long long)step,
              si.stalled, (double)si.longest);
    const th_agent_view v = th_world_agents(w);
    uint32_t flagged = 0;
    for (uint32_t i = 0; i < v.count; i++) {
        flagged += (v.flags[i] & TH_AGENT_STALLED) != 0;
        const uint32_t s = th_test_slot(v.id[i]);
        ck_assert_uint_lt(s, MAX_SLOTS);
        const float dx = v.px[i] - p->px[s], dy = v.py[i] - p->py[s];
        if (p->gen[s] != v.id[i].generation || dx * dx + dy * dy > 0.2f * 0.2f) {
            p->gen[s] = v.id[i].generation;
            p->px[s] = v.px[i];
            p->py[s] = v.py[i];
            p->since[s] = step;
        }
        const double stood = (double)(step - p->since[s]) * dt;
        if (stood > p->longest_stand) p->longest_stand = stood;
    }
    /* Nobody leaves these scenes while stalled: every stalled agent is flagged. */
    if (flagged != si.stalled) p->flag_mismatch++;
}

/* Step until the scene is over or `steps` have run. */
static void run_polled(th_world *w, uint64_t steps, polled *p) {
    memset(p, 0, sizeof *p);
    for (uint64_t s = 0; s < steps && !th_world_scene_over(w); s++) poll_step(w, p);
}

/* The world's figures over the run are those polled. */
static void check_against_polled(const th_world *w, const polled *p, const char *what) {
    const double dt = (double)th_world_get_def(w).timestep;
    th_stall_info si;
    ck_assert(th_world_get_stall_info(w, &si));
    ck_assert_msg(si.peak == p->peak, "%s: peak %u, polled %u", what, si.peak, p->peak);
    ck_assert_msg(fabs((double)si.peak_time - (double)p->peak_step * dt) < 1e-4,
                  "%s: peak at %g s, polled %g s", what, (double)si.peak_time,
                  (double)p->peak_step * dt);
    ck_assert_msg(fabs(si.agent_seconds - p->agent_seconds) < 1e-6 * (1.0 + p->agent_seconds),
                  "%s: %.6f agent-seconds, polled %.6f", what, si.agent_seconds, p->agent_seconds);
    ck_assert_msg(si.longest_run == p->longest, "%s: longest %g s, polled %g s", what,
                  (double)si.longest_run, (double)p->longest);
    ck_assert_msg(si.queued_peak == p->queued_peak, "%s: queuing at most %u, polled %u", what,
                  si.queued_peak, p->queued_peak);
    ck_assert_msg(p->flag_mismatch == 0, "%s: %u steps flagged another count than `stalled`", what,
                  p->flag_mismatch);
}

START_TEST(stall_info_before_the_first_step) {
    th_stall_info si;
    ck_assert(!th_world_get_stall_info(NULL, &si));
    th_world *w = load("stall_jam.yaml", 1);
    ck_assert(!th_world_get_stall_info(w, NULL));
    /* Before the first step: nothing yet, the threshold the scene's. */
    memset(&si, 0xff, sizeof si);
    ck_assert(th_world_get_stall_info(w, &si));
    ck_assert_uint_eq(si.stalled, 0);
    ck_assert_uint_eq(si.peak, 0);
    ck_assert(si.peak_time == 0.0f && si.agent_seconds == 0.0 && si.longest_run == 0.0f);
    ck_assert_uint_eq(si.queued, 0);
    ck_assert_uint_eq(si.queued_peak, 0);
    ck_assert(si.stall_time == 5.0f);
    th_world_destroy(w);
}
END_TEST

/* Eight walkers with bodies 0.6 m wide press at a door 0.5 m wide and stall; at 25 s the walls
 * beside it are broken and they leave. The end says nobody is stalled; the run's figures keep
 * the jam. */
START_TEST(a_jam_that_dissolves_leaves_its_trace) {
    th_world *w = load("stall_jam.yaml", 2);
    polled p;
    run_polled(w, 5400, &p);
    check_against_polled(w, &p, "jam");
    th_stall_info si;
    th_world_get_stall_info(w, &si);
    ck_assert_msg(th_world_scene_over(w) && th_world_get_stats(w).sheltered == 8,
                  "the walkers did not leave once the door was widened");
    ck_assert_uint_eq(si.stalled, 0);
    ck_assert_msg(si.peak >= 2 && si.peak <= 8, "at most %u stalled", si.peak);
    /* Stalled once a stall time has passed at the door, before it is widened. */
    ck_assert_msg(si.peak_time > si.stall_time && si.peak_time < 25.0f, "peak at %g s",
                  (double)si.peak_time);
    /* The peak's agents stalled from peak_time until about 25 s. */
    ck_assert_msg(si.agent_seconds >= (double)si.peak * (25.0 - (double)si.peak_time) * 0.5 &&
                      si.agent_seconds <= 8.0 * 25.0,
                  "%g agent-seconds, %u at most from %g s", si.agent_seconds, si.peak,
                  (double)si.peak_time);
    ck_assert_msg(si.longest_run > si.stall_time + 5.0f && si.longest_run < 25.0f, "longest %g s",
                  (double)si.longest_run);
    /* Nobody stalled once the door has been wide for a stall time. */
    const double dt = (double)th_world_get_def(w).timestep;
    ck_assert_msg((double)p.last_stalled * dt <= 25.0 + (double)si.stall_time, "stalled at %g s",
                  (double)p.last_stalled * dt);
    th_world_destroy(w);
}
END_TEST

/* 100 walkers through a door 0.6 m wide with a stall time of 3 s: walkers wait longer than that
 * without moving 0.2 m (the independent witness, from positions alone), yet the queue moves and
 * nobody is stalled at any step; they queue. */
START_TEST(a_slow_queue_at_a_narrow_door_is_never_stalled) {
    th_world *w = load("stall_door_queue.yaml", 2);
    polled p;
    th_world_step(w); /* grids and buffers sized */
    const uint64_t a0 = th_alloc_count();
    run_polled(w, 24000, &p);
    ck_assert_msg(th_alloc_count() == a0, "the steps allocated");
    check_against_polled(w, &p, "door queue");
    th_stall_info si;
    th_world_get_stall_info(w, &si);
    ck_assert_msg(th_world_scene_over(w), "the room did not empty in %llu steps",
                  (unsigned long long)p.steps);
    ck_assert_uint_eq(th_world_get_stats(w).sheltered, 100);
    ck_assert_msg(p.longest_stand > 2.0 * (double)si.stall_time,
                  "no walker stood within 0.2 m of a spot for more than %g s (%g s at most)",
                  2.0 * (double)si.stall_time, p.longest_stand);
    ck_assert_msg(p.ever_stalled == 0, "stalled after %u steps", p.ever_stalled);
    ck_assert_uint_eq(si.peak, 0);
    ck_assert(si.peak_time == 0.0f && si.agent_seconds == 0.0 && si.longest_run == 0.0f);
    ck_assert_msg(si.queued_peak >= 10, "at most %u queuing", si.queued_peak);
    ck_assert_uint_eq(si.queued, 0);
    th_world_destroy(w);
}
END_TEST

/* The clog left alone: the eight are stalled at the end, those pressing in behind the ones at
 * the door included, and none queues. */
START_TEST(a_clog_is_stalled_not_queuing) {
    th_world *w = load("stall_clog.yaml", 2);
    polled p;
    run_polled(w, 5400, &p);
    check_against_polled(w, &p, "clog");
    th_stall_info si;
    th_world_get_stall_info(w, &si);
    ck_assert_uint_eq(th_world_get_stats(w).agents, 8);
    ck_assert_msg(si.stalled >= 6 && si.queued <= 2, "%u stalled and %u queuing of 8", si.stalled,
                  si.queued);
    ck_assert_uint_ge(si.peak, si.stalled);
    ck_assert_msg(si.longest_run >= si.longest && si.longest_run > 4.0f * si.stall_time,
                  "longest %g s now, %g s in the run", (double)si.longest, (double)si.longest_run);
    ck_assert(si.agent_seconds > 8.0 * (double)si.stall_time);
    th_world_destroy(w);
}
END_TEST

/* The same figures, field by field, at 1 and 2 threads. */
START_TEST(the_figures_do_not_depend_on_the_thread_count) {
    static const char *const scenes[] = {"stall_jam.yaml", "stall_clog.yaml",
                                         "stall_door_queue.yaml"};
    static const uint64_t steps[] = {2400, 5400, 2400};
    for (uint32_t s = 0; s < 3; s++) {
        th_stall_info si[2];
        uint64_t hash[2];
        for (uint32_t t = 0; t < 2; t++) {
            th_world *w = load(scenes[s], t + 1);
            for (uint64_t n = 0; n < steps[s]; n++) th_world_step(w);
            th_world_get_stall_info(w, &si[t]);
            hash[t] = th_world_hash(w);
            th_world_destroy(w);
        }
        ck_assert_msg(hash[0] == hash[1], "%s: hashes differ", scenes[s]);
        ck_assert_msg(si[0].stalled == si[1].stalled && si[0].longest == si[1].longest &&
                          si[0].peak == si[1].peak && si[0].peak_time == si[1].peak_time &&
                          si[0].agent_seconds == si[1].agent_seconds &&
                          si[0].longest_run == si[1].longest_run && si[0].queued == si[1].queued &&
                          si[0].queued_peak == si[1].queued_peak && si[0].x0 == si[1].x0 &&
                          si[0].y0 == si[1].y0 && si[0].x1 == si[1].x1 && si[0].y1 == si[1].y1,
                      "%s: the stall figures differ between 1 and 2 threads", scenes[s]);
    }
}
END_TEST

/* The remaining cost read between cell centres (th_field_metres: the stall judgement's measure
 * of progress and the groups' measure of who walks ahead) is the bilinear interpolation of the
 * field over the centres: on a field that is itself bilinear in the cell numbers,
 * d(i, j) = A + B i + C j + D i j, it gives that function at the point's continuous cell
 * coordinates (x / cell - 1/2, y / cell - 1/2) exactly, with unequal weights along x and y. An
 * unreachable cell is left out and the other three weights renormalised. */
START_TEST(remaining_cost_is_bilinear_between_cell_centres) {
    th_navmap m;
    const float cs = 0.5f;
    ck_assert_int_eq(th_navmap_init(&m, 7, 5, cs), TH_NAV_OK);
    const double A = 1000.0, B = 140.0, C = 37.0, D = 11.0;
    uint32_t dist[7 * 5];
    for (int32_t j = 0; j < 5; j++)
        for (int32_t i = 0; i < 7; i++) dist[j * 7 + i] = (uint32_t)(A + B * i + C * j + D * i * j);
    const double to_m = (double)cs / (double)TH_NAV_UNITS_PER_CELL;
    int checked = 0;
    for (double fy = 0.0; fy <= 4.0; fy += 0.3) {
        for (double fx = 0.0; fx <= 6.0; fx += 0.37) {
            const th_vec2 p = th_v2((float)((fx + 0.5) * cs), (float)((fy + 0.5) * cs));
            float got = -1.0f;
            ck_assert(th_field_metres(&m, dist, p, &got));
            const double want = (A + B * fx + C * fy + D * fx * fy) * to_m;
            CHECK_MSG(fabs(got - want) < 1e-5 * want, "at cell coordinates (%g, %g): %g m, want %g",
                      fx, fy, (double)got, want);
            checked++;
        }
    }
    ck_assert_int_gt(checked, 200);
    /* Cell (2, 1) unreachable: a quarter of the way from its centre to that of (3, 2), only the
     * other three count, by their weights (3, 1) 0.25 x 0.75, (2, 2) 0.75 x 0.25 and (3, 2)
     * 0.25 x 0.25, renormalised. */
    dist[1 * 7 + 2] = TH_NAV_UNREACHABLE;
    const double w30 = 0.25 * 0.75, w21 = 0.75 * 0.25, w31 = 0.25 * 0.25;
    const double want = (w30 * dist[1 * 7 + 3] + w21 * dist[2 * 7 + 2] + w31 * dist[2 * 7 + 3]) /
                        (w30 + w21 + w31) * to_m;
    float got;
    ck_assert(th_field_metres(&m, dist, th_v2(2.75f * cs, 1.75f * cs), &got));
    ck_assert_msg(fabs(got - want) < 1e-5 * want, "beside an unreachable cell: %g m, want %g",
                  (double)got, want);
    th_navmap_free(&m);
}
END_TEST

/* An agent pressed against a wall, its route's waypoint behind it, makes no progress from the
 * first judgement on. It is first reported stalled at the judgement when exactly the stall time
 * has passed since it last progressed (judgements every 0.25 s divide the stall time here), so
 * the longest stall reported then is the stall time itself, not a judgement more. */
START_TEST(a_stall_is_first_reported_at_the_stall_time) {
    th_world_def wd = th_default_world_def();
    wd.width = 10.0f;
    wd.height = 6.0f;
    wd.cell_size = 0.5f;
    wd.timestep = 0.05f;
    wd.stall_time = 1.5f;
    th_error err;
    th_world *w = th_world_create(&wd, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    for (int32_t y = 0; y < 12; y++) ck_assert(th_world_set_cell(w, 10, y, TH_CELL_WALL, 0, &err));
    static const th_vec2 behind = {8.0f, 3.0f};
    th_crowd_def cd = th_default_pedestrian_def();
    cd.desired_speed_sd = 0.0f;
    cd.goal = (th_goal_def){.kind = TH_GOAL_ROUTE, .points = &behind, .point_count = 1};
    ck_assert_msg(IDX(th_world_add_crowd(w, &cd, &err)) == 0, "%s", err.message);
    ck_assert(th_world_add_agent(w, CROWD_ID(0), th_v2(4.75f, 3.0f), th_v2(0, 0), &err).index1);
    th_stall_info si = {0};
    int s = 0;
    for (; s < 200 && si.stalled == 0; s++) {
        th_world_step(w);
        ck_assert(th_world_get_stall_info(w, &si));
    }
    ck_assert_msg(si.stalled == 1, "never stalled in %d steps", s);
    ck_assert_msg(fabsf(si.longest - wd.stall_time) < 1e-4f,
                  "first reported stalled for %g s, the stall time is %g s", (double)si.longest,
                  (double)wd.stall_time);
    th_world_destroy(w);
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("stall_run");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, stall_info_before_the_first_step);
    tcase_add_test(tc, remaining_cost_is_bilinear_between_cell_centres);
    tcase_add_test(tc, a_stall_is_first_reported_at_the_stall_time);
    tcase_add_test(tc, a_jam_that_dissolves_leaves_its_trace);
    tcase_add_test(tc, a_slow_queue_at_a_narrow_door_is_never_stalled);
    tcase_add_test(tc, a_clog_is_stalled_not_queuing);
    tcase_add_test(tc, the_figures_do_not_depend_on_the_thread_count);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return th_test_run(suite()); }
