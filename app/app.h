/* Subcommands of the `throng` command line. Each returns the process exit code. */
#ifndef TH_APP_H
#define TH_APP_H

int th_cmd_run(int argc, char **argv);

#endif
