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

/** Cores online, 1..TH_MAX_THREADS: what `--threads 0` asks for. */
uint32_t th_arg_cores(void);

/** Fetch the value after flag argv[*i] (advancing *i); prints an error when it is missing. */
const char *th_arg_value(int argc, char **argv, int *i);

/** Whether argv[*i] is option `name`, as `--name`, or `--name=VALUE` / `--name VALUE` when
 *  `takes_value`. Returns 0 when it is another argument, 1 when it matched (the value in
 *  `*value`, *i advanced past a separate one), -1 after printing an error naming `cmd`
 *  (a missing value, or a value given to an option that takes none). */
int th_arg_flag(const char *cmd, int argc, char **argv, int *i, const char *name, bool takes_value,
                const char **value);

/** Whether `id` matches one of the comma-separated shell patterns in `only` (fnmatch); a NULL
 *  `only` matches every id. */
bool th_arg_selected(const char *only, const char *id);

/** The options of the commands that run a suite of cases (`throng verify`, `throng validate`). */
typedef struct th_suite_args {
    const char *only; /**< --only PATTERNS, or NULL */
    const char *json; /**< --json FILE, or NULL */
    uint64_t threads; /**< --threads N, 0 when not given */
    uint64_t seeds;   /**< --seeds N, 0 when not given */
    bool list;        /**< --list */
    bool help;        /**< -h or --help (nothing else is parsed) */
} th_suite_args;

/** Parse the options of `cmd` ("throng verify"): --only, --json, --threads, --list, and --seeds
 *  up to `max_seeds` where it is above 0. Returns 0, or TH_EXIT_USAGE after saying on stderr
 *  what was wrong (an unknown option, a missing or bad value, a scene given). */
int th_suite_args_parse(const char *cmd, int argc, char **argv, uint64_t max_seeds,
                        th_suite_args *out);

#endif
