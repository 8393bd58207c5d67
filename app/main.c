/* The `throng` command line. */
#include <stdio.h>
#include <string.h>

#include "../bench/bench.h"
#include "app.h"
#include "args.h"

static const char k_help[] =
    "usage: throng <command> [options]\n"
    "\n"
    "throng is a deterministic, multithreaded crowd simulation engine.\n"
    "\n"
    "commands:\n"
    "  run [SCENE]   run a scene and report throughput, phase times and the state hash\n"
    "                (see 'throng run --help')\n"
    "  check SCENE.. validate scene files without running them\n"
    "  bench         measure agent throughput over agent and thread counts, against the\n"
    "                naive O(N^2) reference (see 'throng bench --help')\n"
    "\n"
    "options:\n"
    "  -h, --help    show this help\n"
    "\n"
    "With no command, 'throng' shows this help. Exit codes: 0 success, 1 runtime failure,\n"
    "2 usage error (unknown command, flag or value).\n";

int main(int argc, char **argv) {
    if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        fputs(k_help, argc < 2 ? stderr : stdout);
        return argc < 2 ? TH_EXIT_USAGE : 0;
    }
    if (strcmp(argv[1], "run") == 0) return th_cmd_run(argc - 2, argv + 2);
    if (strcmp(argv[1], "check") == 0) return th_cmd_check(argc - 2, argv + 2);
    if (strcmp(argv[1], "bench") == 0) return th_cmd_bench(argc - 2, argv + 2);
    fprintf(stderr, "throng: unknown command '%s' (see 'throng --help')\n", argv[1]);
    return TH_EXIT_USAGE;
}
