/* Signs of life for long runs: a progress line on stderr, Ctrl-C handling, and the checks that
 * warn before a run goes badly (a display that is not there, neighbour counts that explode). */
#ifndef TH_APP_PROGRESS_H
#define TH_APP_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

#include "throng/throng.h"

/** Seconds a run must take before the first progress line appears, then between lines. */
#define TH_PROGRESS_AFTER_S 2.0
#define TH_PROGRESS_EVERY_S 1.0

/** Mean same-crowd neighbours seen per agent (th_world_stats.mean_neighbors) above which the
 *  first step's figure earns a warning: the library's scenes see 5 to 30, and steering costs
 *  grow with this number (a scene scaled to 16 M agents in the same field saw ~2,500). */
#define TH_NEIGHBOR_WARN 200.0

/** --progress / --no-progress / neither. */
typedef enum th_progress_mode {
    TH_PROGRESS_AUTO = 0, /* on when stderr is a terminal */
    TH_PROGRESS_ON = 1,
    TH_PROGRESS_OFF = 2,
} th_progress_mode;

typedef struct th_progress {
    bool on, tty;
    uint64_t t0, next;  /* ns */
    uint64_t total;     /* steps asked */
    double agent_steps; /* summed over the steps run */
    int width;          /* characters of the last line on a terminal */
} th_progress;

/** Start timing; `t0` is th_now_ns() at the first step. */
void th_progress_start(th_progress *p, th_progress_mode mode, uint64_t total, uint64_t t0);

/** After each step (reads the clock; prints at most once a second). */
void th_progress_step(th_progress *p, const th_world *w, uint64_t done);

/** Clear the line on a terminal so the report starts on a clean one. */
void th_progress_end(th_progress *p);

/** Catch SIGINT and SIGTERM: the first asks the loop to stop after the current step, so that
 *  the report, the JSON and the output files are completed; a second one kills. */
void th_interrupt_install(void);
/** Whether SIGINT, SIGTERM or SIGHUP was received since th_interrupt_install. */
bool th_interrupted(void);
/** The signal that interrupted the run (SIGINT or SIGTERM), 0 when none did. */
int th_interrupt_signal(void);

/** Warn on stderr (once) when the last step saw more than TH_NEIGHBOR_WARN neighbours per
 *  agent; returns whether it warned. */
bool th_warn_density(const th_world *w);

/** th_view_display_available with SDL's own complaints (e.g. about XDG_RUNTIME_DIR) kept off
 *  stderr: the caller says in its own words that it runs headless. */
bool th_display_available_quiet(void);

#endif
