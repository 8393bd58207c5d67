/* Strict command-line value parsing: the whole string must be a number within bounds. */
#ifndef TH_APP_ARGS_H
#define TH_APP_ARGS_H

#include <stdbool.h>
#include <stdint.h>

/** Exit code for a usage error (unknown flag, bad value). */
#define TH_EXIT_USAGE 2

/** Parse a decimal unsigned integer in [lo, hi]. On failure prints
 *  "throng: <flag>: expected <what>, got '<text>'" to stderr and returns false. */
bool th_arg_u64(const char *flag, const char *text, uint64_t lo, uint64_t hi, uint64_t *out);

/** Fetch the value after flag argv[*i] (advancing *i); prints an error when it is missing. */
const char *th_arg_value(int argc, char **argv, int *i);

#endif
