/* Golden hashes: every library scene (scenes/ and scenes/validation/) run a fixed number of
 * steps gives the state hash pinned in tests/data/golden.txt. Determinism across thread counts
 * is tested elsewhere; this pins the results themselves, so a change that alters what any
 * scene does, even by one bit, is seen and made on purpose.
 *
 * When a change is meant to alter results (a model fixed, a default changed), write the new
 * hashes and commit them with it, saying why in the commit message:
 *
 *     THRONG_GOLDEN_UPDATE=1 build/release/tests/test_golden
 *
 * A scene without a line fails the test, so new scenes are pinned as they are added. */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "throng/throng.h"
#include "test_util.h"

#ifndef THRONG_SOURCE_DIR
#error "THRONG_SOURCE_DIR must name the source tree"
#endif

#define GOLDEN THRONG_SOURCE_DIR "/tests/data/golden.txt"
enum { STEPS = 240, MAX_AGENTS = 2000, MAX_SCENES = 128 };

typedef struct pin {
    char scene[128]; /* relative to the source tree */
    uint64_t hash;
} pin;

static uint64_t scene_hash(const char *rel) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", THRONG_SOURCE_DIR, rel);
    th_world *w = th_test_load(path, (th_scene_opts){.threads = 2}, MAX_AGENTS, NULL);
    for (int s = 0; s < STEPS; s++) th_world_step(w);
    uint64_t h = th_world_hash(w);
    th_world_destroy(w);
    return h;
}

/* The library's scenes, sorted, as paths relative to the source tree. */
static uint32_t list_scenes(char out[][128]) {
    static const char *const dirs[] = {"scenes", "scenes/validation"};
    static th_test_path found[TH_TEST_MAX_SCENES];
    const size_t root = strlen(THRONG_SOURCE_DIR) + 1;
    uint32_t n = 0;
    for (int d = 0; d < 2; d++) {
        char dir[512];
        snprintf(dir, sizeof dir, "%s/%s", THRONG_SOURCE_DIR, dirs[d]);
        const uint32_t k = th_test_scenes(dir, found);
        for (uint32_t i = 0; i < k; i++) {
            ck_assert_uint_lt(n, MAX_SCENES);
            snprintf(out[n++], 128, "%.127s", found[i] + root);
        }
    }
    return n;
}

START_TEST(every_scene_gives_its_pinned_hash) {
    static char scenes[MAX_SCENES][128];
    const uint32_t n = list_scenes(scenes);
    ck_assert_uint_ge(n, 5);
    if (getenv("THRONG_GOLDEN_UPDATE")) {
        FILE *f = fopen(GOLDEN, "w");
        ck_assert_msg(f != NULL, "cannot write %s", GOLDEN);
        fprintf(
            f,
            "# scene, then its th_world_hash after %d steps at 2 threads (at most %d agents).\n"
            "# Written by THRONG_GOLDEN_UPDATE=1 tests/test_golden (see tests/test_golden.c).\n",
            STEPS, MAX_AGENTS);
        for (uint32_t i = 0; i < n; i++) {
            fprintf(f, "%s 0x%016" PRIx64 "\n", scenes[i], scene_hash(scenes[i]));
        }
        ck_assert_int_eq(fclose(f), 0);
        fprintf(stderr, "test_golden: wrote %u hashes to %s\n", n, GOLDEN);
        return;
    }
    static pin pins[MAX_SCENES];
    uint32_t np = 0;
    FILE *f = fopen(GOLDEN, "r");
    ck_assert_msg(f != NULL, "cannot read %s", GOLDEN);
    char line[256];
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n') continue;
        ck_assert_uint_lt(np, MAX_SCENES);
        ck_assert_msg(sscanf(line, "%127s 0x%" SCNx64, pins[np].scene, &pins[np].hash) == 2,
                      "%s: bad line: %s", GOLDEN, line);
        np++;
    }
    fclose(f);
    uint32_t failed = 0;
    for (uint32_t i = 0; i < n; i++) {
        const pin *p = NULL;
        for (uint32_t k = 0; k < np && !p; k++) {
            if (strcmp(pins[k].scene, scenes[i]) == 0) p = &pins[k];
        }
        if (!p) {
            fprintf(stderr,
                    "test_golden: %s has no pinned hash (THRONG_GOLDEN_UPDATE=1 to add it)\n",
                    scenes[i]);
            failed++;
            continue;
        }
        const uint64_t h = scene_hash(scenes[i]);
        if (h != p->hash) {
            fprintf(stderr, "test_golden: %s gives 0x%016" PRIx64 ", pinned 0x%016" PRIx64 "\n",
                    scenes[i], h, p->hash);
            failed++;
        }
    }
    ck_assert_msg(failed == 0, "%u scene(s) differ from tests/data/golden.txt (stderr lists them)",
                  failed);
}
END_TEST

int main(void) {
    Suite *s = suite_create("golden");
    TCase *tc = tcase_create("scenes");
    tcase_set_timeout(tc, 900);
    tcase_add_test(tc, every_scene_gives_its_pinned_hash);
    suite_add_tcase(s, tc);
    return th_test_run(s);
}
