/* `throng verify`: the verification tests of evacuation models (docs/verification.md). */
#ifndef TH_APP_VERIFY_H
#define TH_APP_VERIFY_H

/** Run the tests `argv` selects and print the table; returns the exit code. */
int th_cmd_verify(int argc, char **argv);

#endif
