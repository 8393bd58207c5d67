/* Shared by the Check suites: cheap assertions for hot loops, a seedable generator, a runner. */
#ifndef TH_TEST_UTIL_H
#define TH_TEST_UTIL_H

#include <check.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/rng.h"
#include "throng/throng.h"

/* Check's assertions log their location on every call, which costs a system call; inside loops
 * of many thousands of iterations only a failing condition goes through Check. */
#define CHECK(expr)                   \
    do {                              \
        if (!(expr)) ck_assert(expr); \
    } while (0)
#define CHECK_MSG(expr, ...)                           \
    do {                                               \
        if (!(expr)) ck_assert_msg(expr, __VA_ARGS__); \
    } while (0)

/* Handles by index, for tests that number what they add: the index a handle stands for (-1 for
 * the null handle), and the handle of the i-th thing of a kind (i = -1 gives the null handle). */
#define IDX(h)        ((int)(h).index1 - 1)
#define CROWD_ID(i)   ((th_crowd_id){(uint32_t)(i) + 1u})
#define BUNKER_ID(i)  ((th_bunker_id){(uint32_t)(i) + 1u})
#define TARGET_ID(i)  ((th_target_id){(uint32_t)(i) + 1u})
#define SQUAD_ID(i)   ((th_squad_id){(uint32_t)(i) + 1u})
#define FIELD_ID(i)   ((th_field_id){(uint32_t)(i) + 1u})
#define AREA_ID(i)    ((th_measure_area_id){(uint32_t)(i) + 1u})
#define LINE_ID(i)    ((th_measure_line_id){(uint32_t)(i) + 1u})
#define SPAWNER_ID(i) ((th_spawner_id){(uint32_t)(i) + 1u})
#define EXIT_ID(i)    ((th_exit_id){(uint32_t)(i) + 1u})

/* The id of agent n (from 0) of a world none of whose agents has left yet: slots are handed
 * out in order of creation, each in its first generation. */
/* The draw *ctr of the counter-based stream (seed, key), in [0, n); advances *ctr. */
static inline uint32_t th_test_rnd(uint64_t seed, uint64_t key, uint64_t *ctr, uint32_t n) {
    return (uint32_t)(th_rng_u64(seed, key, (*ctr)++) % n);
}

/* A world of w x h metres on a map of one-metre open cells, `threads` workers, `seed`. */
static inline th_world *th_test_metre_world(uint32_t threads, uint64_t seed, int32_t w, int32_t h) {
    th_world_def wd = th_default_world_def();
    wd.width = (float)w;
    wd.height = (float)h;
    wd.cell_size = 1.0f;
    wd.threads = threads;
    wd.seed = seed;
    th_error e;
    th_world *wo = th_world_create(&wd, &e);
    ck_assert_msg(wo != NULL, "%s", e.message);
    return wo;
}

/* Wall every cell of `w` that `open` (row-major from (0, 0), one byte per cell of the map) says
 * is not open; returns `w`. */
static inline th_world *th_test_open_cells(th_world *w, const uint8_t *open) {
    int32_t cols = 0, rows = 0;
    float cs;
    ck_assert(th_world_map_size(w, &cols, &rows, &cs));
    th_error e;
    for (int32_t y = 0; y < rows; y++)
        for (int32_t x = 0; x < cols; x++)
            if (!open[(size_t)y * (size_t)cols + (size_t)x])
                ck_assert_msg(th_world_set_cell(w, x, y, TH_CELL_WALL, 1, &e), "%s", e.message);
    return w;
}

/* Wall the `n` cell rectangles x0, y0, x1, y1 (inclusive) of `walls`; returns `w`. */
static inline th_world *th_test_wall_rects(th_world *w, const int32_t (*walls)[4], int n) {
    for (int i = 0; i < n; i++)
        for (int32_t y = walls[i][1]; y <= walls[i][3]; y++)
            for (int32_t x = walls[i][0]; x <= walls[i][2]; x++)
                th_world_set_cell(w, x, y, TH_CELL_WALL, 1, NULL);
    return w;
}

static inline th_agent_id th_test_id(uint32_t n) { return (th_agent_id){n + 1u, 1u}; }

/* An id's slot (index1 - 1), for the tests' own arrays by id. */
static inline uint32_t th_test_slot(th_agent_id id) { return id.index1 - 1u; }

/* SplitMix64: advance the state, mix it (th_mix64 is SplitMix64's finaliser). */
static inline uint64_t splitmix64(uint64_t *s) { return th_mix64(*s += 0x9e3779b97f4a7c15ull); }

/* A perfect maze (one path between any two cells: simply connected walls) on a W x H grid of
 * odd sides into `open` (row-major, 1 = open): rooms at odd coordinates, carved by a randomised
 * depth-first search from (1, 1) drawn from `seed`. */
static inline void th_test_maze(uint8_t *open, int W, int H, uint64_t seed) {
    memset(open, 0, (size_t)W * H);
    int *stack = malloc(sizeof(int) * (size_t)W * H);
    ck_assert_ptr_nonnull(stack);
    int top = 0;
    uint64_t rs = seed;
    open[1 * W + 1] = 1;
    stack[top++] = 1 * W + 1;
    static const int dx[4] = {2, 0, -2, 0}, dy[4] = {0, 2, 0, -2};
    while (top > 0) {
        const int c = stack[top - 1], x = c % W, y = c / W;
        int options[4], n = 0;
        for (int k = 0; k < 4; k++) {
            const int nx = x + dx[k], ny = y + dy[k];
            if (nx > 0 && ny > 0 && nx < W - 1 && ny < H - 1 && !open[ny * W + nx])
                options[n++] = k;
        }
        if (n == 0) {
            top--;
            continue;
        }
        const int k = options[splitmix64(&rs) % (uint64_t)n];
        open[(y + dy[k] / 2) * W + x + dx[k] / 2] = 1;
        open[(y + dy[k]) * W + x + dx[k]] = 1;
        stack[top++] = (y + dy[k]) * W + x + dx[k];
    }
    free(stack);
}

/* The scene files (*.yaml) in `dir`, sorted by name, as paths: up to TH_TEST_MAX_SCENES of
 * them into `out`; returns how many. */
#define TH_TEST_MAX_SCENES 128
typedef char th_test_path[512];

static inline int th_test_path_cmp(const void *a, const void *b) { return strcmp(a, b); }

static inline uint32_t th_test_scenes(const char *dir, th_test_path *out) {
    DIR *d = opendir(dir);
    ck_assert_msg(d != NULL, "cannot list %s", dir);
    uint32_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".yaml") != 0) continue;
        ck_assert_uint_lt(n, TH_TEST_MAX_SCENES);
        snprintf(out[n++], sizeof out[0], "%.300s/%.200s", dir, e->d_name);
    }
    closedir(d);
    qsort(out, n, sizeof out[0], th_test_path_cmp);
    return n;
}

/* Load a scene with `o`, scaled down to `max_agents` agents when it has more (its random
 * spawns scaled; map, bunkers and events are the file's own). `info` may be NULL. */
static inline th_world *th_test_load(const char *path, th_scene_opts o, uint32_t max_agents,
                                     th_scene_info *info) {
    th_error err;
    th_scene_info own;
    th_world *w = th_scene_load(path, &o, &own, &err);
    ck_assert_msg(w != NULL, "%s: %s", path, err.message);
    if (own.agents > max_agents) {
        th_world_destroy(w);
        o.agents = max_agents;
        w = th_scene_load(path, &o, &own, &err);
        ck_assert_msg(w != NULL, "%s: %s", path, err.message);
    }
    if (info) *info = own;
    return w;
}

/* A scene that failed to load as it should: `err` has `code`, points at `line` and `column`
 * and its message begins "FILE:LINE:COLUMN: PATH: " (just the place when `path` is empty), so
 * it names the key. `what` names the case in a failure. What the message says beyond the key
 * is checked where the wording is the point, not here. */
static inline void th_test_scene_error(const char *what, const th_error *err, const char *file,
                                       unsigned line, unsigned column, const char *path,
                                       th_error_code code) {
    ck_assert_msg(err->code == code, "%s: expected %s, found %s: %s", what,
                  th_error_code_name(code), th_error_code_name(err->code), err->message);
    ck_assert_msg(err->line == line && err->column == column,
                  "%s: expected line %u column %u, found %u, %u: %s", what, line, column,
                  (unsigned)err->line, (unsigned)err->column, err->message);
    char want[256];
    if (path[0]) snprintf(want, sizeof want, "%s:%u:%u: %s: ", file, line, column, path);
    else snprintf(want, sizeof want, "%s:%u:%u: ", file, line, column);
    ck_assert_msg(strstr(err->message, want) != NULL, "%s: expected '%s' in: %s", what, want,
                  err->message);
}

/* A call that failed as it should: `err` has `code`. */
#define TH_TEST_ERR(err, want)                                                                 \
    ck_assert_msg((err).code == (want), "expected %s, found %s: %s", th_error_code_name(want), \
                  th_error_code_name((err).code), (err).message)

/* ---- the suite's temporary folder ------------------------------------------------------ */

/* The folder (th_test_dir_make), empty until made. */
static inline char *th_test_dir(void) {
    static char dir[256];
    return dir;
}

/* Make the suite's own temporary folder, /tmp/throng_NAME_XXXXXX, before its tests run (they
 * run in forked children that inherit it); false when it cannot be made. */
static inline bool th_test_dir_make(const char *name) {
    snprintf(th_test_dir(), 256, "/tmp/throng_%.40s_XXXXXX", name);
    return mkdtemp(th_test_dir()) != NULL;
}

/* Remove the folder and what the tests left in it; false when that failed. */
static inline bool th_test_dir_remove(void) {
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", th_test_dir());
    return system(cmd) == 0;
}

/* The path of `name` in the folder. Two buffers taken in turn, so two paths can be held. */
static inline const char *th_test_file(const char *name) {
    static char path[2][512];
    static int which;
    which ^= 1;
    snprintf(path[which], sizeof path[which], "%s/%s", th_test_dir(), name);
    return path[which];
}

/* Write `len` bytes to `name` in the folder; returns its path (as th_test_file). */
static inline const char *th_test_write(const char *name, const void *data, size_t len) {
    const char *path = th_test_file(name);
    FILE *f = fopen(path, "wb");
    ck_assert_msg(f != NULL, "cannot write %s", path);
    if (len) ck_assert_uint_eq(fwrite(data, 1, len, f), len);
    fclose(f);
    return path;
}

/* Write a text to `name` in the folder; returns its path. */
static inline const char *th_test_write_text(const char *name, const char *text) {
    return th_test_write(name, text, strlen(text));
}

/* ---- under ThreadSanitizer ---------------------------------------------------------------- */

/* TH_TEST_TSAN is 1 in a ThreadSanitizer build. There a suite is run for its races, and every
 * step of a world runs the same parallel passes: a walk finds no race its first steps would not,
 * and a world on one thread finds none at all. So under ThreadSanitizer tests that step only
 * one-thread worlds are left out, and walks whose assertion holds at any length (hashes equal
 * over thread counts, invariants such as no overlap) are cut with th_test_steps. Walks whose
 * assertion needs their whole length (someone arrives, a count is reached) keep it, or are left
 * out where another test runs the same passes on several threads (docs/robustness.md). */
#if defined(__SANITIZE_THREAD__)
#define TH_TEST_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TH_TEST_TSAN 1
#endif
#endif
#ifndef TH_TEST_TSAN
#define TH_TEST_TSAN 0
#endif

/* `n` steps, or a quarter of them (at least one) under ThreadSanitizer. */
static inline int th_test_steps(int n) { return TH_TEST_TSAN ? (n + 3) / 4 : n; }

/* Run a suite with Check's defaults; the exit status says whether every test passed. */
static inline int th_test_run(Suite *s) {
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif
