/* The run report `throng run` prints at the end (and writes as JSON with --json): what
 * happened to the agents and when, then what the run cost. */
#ifndef TH_APP_REPORT_H
#define TH_APP_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "throng/hazard.h"
#include "throng/throng.h"

/** How a run went, as the command line saw it. */
typedef struct th_run_facts {
    const char *scene;     /* the scene's name */
    const char *argument;  /* what the user named (file, library name or demo) */
    uint64_t steps_asked;  /* steps requested (headless), or the scene's steps (viewer) */
    uint64_t steps_run;    /* steps actually simulated in the world reported on */
    bool interrupted;      /* stopped early by SIGINT */
    bool viewer;           /* stepped by the interactive viewer */
    double wall_s;         /* headless: the stepping loop; viewer: the session, pauses included */
    uint32_t agents_start; /* agents before the first step */
    bool scene_over;       /* the run stopped because the scene was over (th_world_scene_over),
                              after steps_run steps */
    uint32_t warnings;     /* the loader's warnings (th_scene_info), and the first (read only
                              when warnings > 0) */
    const char *warning;
} th_run_facts;

/** Where a run's fleeing agents are, read from the world at the end. */
typedef struct th_outcome {
    uint32_t spawned, en_route, sheltered, stranded, removed, buried, other;
    uint32_t en_route_stalled;   /* of en_route: stalled (th_world_get_stall_info) */
    uint32_t en_route_riding;    /* of en_route: in an elevator's car (one process: elevators
                                    are refused over ranks) */
    uint32_t waiting;            /* with a way in, still standing out their pre-movement time
                                    (not counted in en_route) */
    uint32_t incapacitated;      /* their dose of the fire hazards reached 1: they stand for good
                                    (not counted in en_route, waiting or reachable) */
    uint32_t own_goal;           /* led by a goal of their own (a point, or an agent followed
                                    that is still in the world), not by a bunker: not counted
                                    in en_route, stranded or reachable */
    uint32_t own_goal_there;     /* of own_goal: standing within the radius of their point */
    uint32_t own_goal_no_way;    /* of own_goal: with no way to their point */
    uint32_t reachable;          /* sheltered + en route + waiting: those with a way in at the
                                    end */
    uint32_t walled_in, cut_off; /* stranded: no bunker reachable at all / only closed ones */
    uint32_t cut_off_by[TH_MAX_BUNKERS]; /* stranded agents that could walk to bunker b */
    double time_at[3];                   /* seconds when 50 %, 90 %, 100 % of `reachable` were
                                            sheltered; < 0 when not within the run */
} th_outcome;

/** Count the outcome (a pass over the agents and, for stranded ones, the bunkers' own maps). */
void th_outcome_count(const th_world *w, th_outcome *o);

/** How the outcome names where fleeing agents go: bunkers shelter, bunkers the scene calls
 *  exits let out. `place` is "bunker", "exit" or "bunker or exit"; `in` is "sheltered", "out"
 *  or "sheltered or out"; `exit_taken` sums the agents the exit-bunkers took. */
typedef struct th_refuge_words {
    const char *place, *place_article, *in;
    uint32_t exit_taken;
    bool all_exits; /* every bunker is an exit */
} th_refuge_words;
th_refuge_words th_refuge_words_of(const th_world *w);

/** Seconds when 50 %, 90 % and 100 % of the agents spawned had left by exits (at[i] < 0: not
 *  yet); fractions rounded up (50 % of 3 is 2). */
void th_report_exit_times(const th_world *w, double at[3]);

/** Seconds spent inside th_world_step, from the world's profile (pauses and drawing excluded). */
double th_report_stepping_s(const th_world *w, uint64_t steps);

/** The loader's warnings (th_scene_info) as one line on `out`: `lead`, the first, and how many
 *  more; nothing when `count` is 0. */
void th_report_warnings(FILE *out, const char *lead, uint32_t count, const char *first);

/** Print the report on `out`. */
void th_report_print(FILE *out, const th_world *w, const th_run_facts *f);

/** Write the report with the machine and build as JSON to `path`; false with `err` filled when
 *  the file cannot be written. */
bool th_report_write_json(const char *path, const th_world *w, const th_run_facts *f,
                          th_error *err);

/** The members "machine" (CPU model, cores online) and "build" (version, commit, build type,
 *  compiler) of a JSON object, indented two spaces, with no comma or newline after them. */
void th_build_write_json(FILE *j);

/** One line naming this build: version, commit, build type, compiler. */
void th_build_describe(char *buf, size_t cap);

#endif
