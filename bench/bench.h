/* The `throng bench` command. */
#ifndef TH_BENCH_H
#define TH_BENCH_H

/** Run `throng bench` with the arguments after the command name; returns the exit code. */
int th_cmd_bench(int argc, char **argv);

#endif
