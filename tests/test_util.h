/* Shared by the Check suites: cheap assertions for hot loops, a seedable generator, a runner. */
#ifndef TH_TEST_UTIL_H
#define TH_TEST_UTIL_H

#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "../engine/rng.h"

/* Check's assertions log their location on every call, which costs a system call; inside loops
 * of many thousands of iterations only a failing condition goes through Check. */
#define CHECK(expr)                                                                                \
    do {                                                                                           \
        if (!(expr)) ck_assert(expr);                                                              \
    } while (0)
#define CHECK_MSG(expr, ...)                                                                       \
    do {                                                                                           \
        if (!(expr)) ck_assert_msg(expr, __VA_ARGS__);                                             \
    } while (0)

/* SplitMix64: advance the state, mix it (th_mix64 is SplitMix64's finaliser). */
static inline uint64_t splitmix64(uint64_t *s) { return th_mix64(*s += 0x9e3779b97f4a7c15ull); }

/* Run a suite with Check's defaults; the exit status says whether every test passed. */
static inline int th_test_run(Suite *s) {
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif
