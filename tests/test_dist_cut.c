/* th_dist_cut: the strips of grid rows several ranks own, balanced by agent count. The hash
 * test cannot see a bad cut (results never depend on it), so it is checked here against its
 * contract and against the best cut found by brute force: every strip contiguous, covering
 * every row once, at least min_rows rows; and the fullest strip holds at most the optimum's
 * fullest plus one row's agents, which is what a greedy cut by prefix counts can promise. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "sim/dist/dist.h"
#include "test_util.h"

/* The least possible fullest strip over every cut of ny rows into R strips of >= m rows. */
static uint64_t best_max(const uint64_t *prefix, int32_t ny, int R, int32_t m, int32_t from) {
    if (R == 1) return prefix[ny] - prefix[from];
    uint64_t best = UINT64_MAX;
    for (int32_t to = from + m; to <= ny - (R - 1) * m; to++) {
        uint64_t here = prefix[to] - prefix[from];
        if (here >= best) break; /* strips only grow with `to` */
        uint64_t rest = best_max(prefix, ny, R - 1, m, to);
        uint64_t worst = here > rest ? here : rest;
        if (worst < best) best = worst;
    }
    return best;
}

START_TEST(test_cut_contract_and_balance) {
    uint64_t seed = 12345;
    uint32_t hist[64];
    uint64_t prefix[65];
    int32_t lo[9];
    for (int trial = 0; trial < 3000; trial++) {
        const int R = 2 + (int)(splitmix64(&seed) % 4);         /* 2..5 */
        const int32_t m = 1 + (int32_t)(splitmix64(&seed) % 4); /* 1..4 */
        const int32_t ny = R * m + (int32_t)(splitmix64(&seed) %
                                             (uint64_t)(40 - R * m + 1 > 1 ? 40 - R * m + 1 : 1));
        /* Rows empty, light or packed, some streaks of each: the shapes of real crowds. */
        const uint32_t shape = (uint32_t)(splitmix64(&seed) % 3);
        uint32_t maxrow = 0;
        prefix[0] = 0;
        for (int32_t y = 0; y < ny; y++) {
            uint64_t r = splitmix64(&seed);
            hist[y] = shape == 0   ? (uint32_t)(r % 50)
                      : shape == 1 ? (r % 4 == 0 ? (uint32_t)(r % 1000) : 0)
                                   : (uint32_t)(r % 7 == 0 ? 0 : r % 20 + 1);
            if (hist[y] > maxrow) maxrow = hist[y];
            prefix[y + 1] = prefix[y] + hist[y];
        }
        th_dist_cut(hist, ny, R, m, lo);
        ck_assert_int_eq(lo[0], 0);
        ck_assert_int_eq(lo[R], ny);
        uint64_t worst = 0;
        for (int r = 0; r < R; r++) {
            CHECK_MSG(lo[r + 1] - lo[r] >= m, "trial %d: strip %d has %d rows, fewer than %d",
                      trial, r, lo[r + 1] - lo[r], m);
            const uint64_t c = prefix[lo[r + 1]] - prefix[lo[r]];
            if (c > worst) worst = c;
        }
        const uint64_t best = best_max(prefix, ny, R, m, 0);
        CHECK_MSG(worst <= best + maxrow,
                  "trial %d (R %d, m %d, ny %d): fullest strip %llu, best possible %llu, a row "
                  "holds at most %u",
                  trial, R, m, ny, (unsigned long long)worst, (unsigned long long)best, maxrow);
    }
}
END_TEST

/* Equal rows split evenly: R strips of ny / R rows (within one row). */
START_TEST(test_cut_uniform_rows) {
    uint32_t hist[60];
    int32_t lo[7];
    for (int32_t y = 0; y < 60; y++) hist[y] = 10;
    for (int R = 2; R <= 6; R++) {
        th_dist_cut(hist, 60, R, 1, lo);
        for (int r = 0; r < R; r++) {
            const int32_t rows = lo[r + 1] - lo[r];
            CHECK_MSG(rows >= 60 / R - 1 && rows <= 60 / R + 1, "R %d: strip %d has %d rows", R, r,
                      rows);
        }
    }
}
END_TEST

static Suite *cut_suite(void) {
    Suite *s = suite_create("dist_cut");
    TCase *tc = tcase_create("cut");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_cut_contract_and_balance);
    tcase_add_test(tc, test_cut_uniform_rows);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return th_test_run(cut_suite()); }
