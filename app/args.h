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

/** Whether argv[*i] is option `name`, as `--name`, or `--name=VALUE` / `--name VALUE` when
 *  `takes_value`. Returns 0 when it is another argument, 1 when it matched (the value in
 *  `*value`, *i advanced past a separate one), -1 after printing an error naming `cmd`
 *  (a missing value, or a value given to an option that takes none). */
int th_arg_flag(const char *cmd, int argc, char **argv, int *i, const char *name, bool takes_value,
                const char **value);

#endif
