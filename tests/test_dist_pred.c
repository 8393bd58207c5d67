/* The predator index (sim/behave/boids.c th_boids_prepare) and its gather over ranks
 * (sim/dist/dist_pred.c) without MPI: the index holds exactly the predators of the world in
 * (predator-grid cell, id slot) order, checked against a brute-force list, whether its records
 * come straight from storage or through the gather path; a world whose predators go through
 * the gather, with its index grown past its capacity mid-run, steps exactly like one whose
 * predators do not, at 1 to 3 threads. Under several ranks tests/test_mpi.sh compares hashes. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "sim/behave/boids.h"
#include "sim/core/world.h"
#include "sim/dist/dist_serial.h"
#include "test_util.h"

typedef struct ref_pred {
    uint32_t cell, slot;
    float x, y;
    uint16_t type;
} ref_pred;

static int ref_cmp(const void *p, const void *q) {
    const ref_pred *a = p, *b = q;
    if (a->cell != b->cell) return a->cell < b->cell ? -1 : 1;
    return a->slot < b->slot ? -1 : a->slot > b->slot;
}

static th_world *load(const char *path, uint32_t threads, uint32_t agents) {
    th_scene_opts o = {.threads = threads};
    return th_test_load(path, o, agents, NULL);
}

/* Every agent of a predator type, where the predator grid puts it, sorted by (cell, slot): the
 * order the index must have whatever order the records came in. */
static void check_index(th_world *w) {
    const th_agents *a = &w->buf[w->cur];
    const th_grid *g = &w->pred_grid;
    ref_pred *ref = calloc(w->count + 1, sizeof *ref);
    ck_assert_ptr_nonnull(ref);
    uint32_t n = 0;
    for (uint32_t k = 0; k < w->count; k++) {
        const uint16_t t = a->type[k];
        if (t >= TH_MAX_TYPES || !((w->pred_mask >> t) & 1u)) continue;
        const uint32_t cell =
            (uint32_t)th_grid_cy(g, a->py[k]) * (uint32_t)g->nx + (uint32_t)th_grid_cx(g, a->px[k]);
        ref[n++] = (ref_pred){cell, th_id_slot(a->id[k]), a->px[k], a->py[k], t};
    }
    qsort(ref, n, sizeof *ref, ref_cmp);
    ck_assert_uint_gt(n, 0);
    ck_assert_uint_eq(w->pred_count, n);
    ck_assert_uint_eq(g->cell_start[g->ncells], n);
    for (uint32_t i = 0; i < n; i++) {
        CHECK(w->pred_sx[i] == ref[i].x && w->pred_sy[i] == ref[i].y);
        CHECK(w->pred_stype[i] == ref[i].type);
        /* In its cell's range of the grid. */
        CHECK(g->cell_start[ref[i].cell] <= i && i < g->cell_start[ref[i].cell + 1]);
    }
    free(ref);
}

static const char *const k_scenes[] = {THRONG_TEST_DATA "/mpi/predators.yaml",
                                       THRONG_SCENES_DIR "/hawks.yaml"};

/* The index rebuilt between steps from the positions after the last one, by both paths. */
START_TEST(index_matches_brute_force) {
    for (int forced = 0; forced < 2; forced++) {
        th_world *w = load(k_scenes[_i], 2, 1600);
        th_dist_serial_force(w, forced != 0);
        for (uint32_t s = 0; s < 60; s++) {
            th_world_step(w);
            if (s % 20 == 19) {
                th_boids_prepare(w);
                check_index(w);
            }
        }
        th_world_destroy(w);
    }
}
END_TEST

/* The gather path (one rank: the records copied, then unpacked) and an index grown past the
 * world's capacity give the hashes of the plain path. */
START_TEST(gather_path_steps_like_one_process) {
    /* The hawks reach the pigeons only after about 1,050 steps: the flock scene's predators
     * are among prey from the start. */
    const uint32_t threads = 1 + (uint32_t)_i;
    const char *path = k_scenes[0];
    th_world *a = load(path, threads, 1600);
    th_world *b = load(path, threads, 1600);
    th_dist_serial_force(b, true);
    for (uint32_t s = 1; s <= 150; s++) {
        if (s == 70) {
            const uint32_t cap = b->pred_capacity;
            ck_assert(th_world_reserve_predators(b, 2 * cap + 1));
            ck_assert_uint_ge(b->pred_capacity, 2 * cap + 1);
            ck_assert_uint_ge(b->pred_grid.capacity, b->pred_capacity);
            ck_assert_uint_eq(a->pred_capacity, cap);
        }
        th_world_step(a);
        th_world_step(b);
        if (s % 10 == 0)
            ck_assert_msg(th_world_hash(a) == th_world_hash(b), "%s: hash differs at step %u", path,
                          s);
    }
    ck_assert_uint_eq(a->pred_count, b->pred_count);
    th_world_destroy(a);
    th_world_destroy(b);
}
END_TEST

int main(void) {
    Suite *s = suite_create("dist_pred");
    TCase *t = tcase_create("predators");
    tcase_set_timeout(t, 60);
    tcase_add_loop_test(t, index_matches_brute_force, 0, 2);
    tcase_add_loop_test(t, gather_path_steps_like_one_process, 0, 3);
    suite_add_tcase(s, t);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
