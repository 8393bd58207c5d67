/* Recordings of runs (`throng run --record FILE`, `throng replay FILE`).
 *
 * A run is determined by its scene, the scene's overrides (seed, agent count) and what the user
 * changed by hand while it ran, at the step they did it: same scene + seed = same state for any
 * thread count. A recording keeps exactly that, not the agents' positions, and so stays a few
 * kilobytes for any crowd; a replay runs the scene again and applies each change at its step.
 * The state hash (th_world_hash) is written once per simulated second and at the end, so that a
 * replay knows whether it is still the recorded run: a different build, or a scene or map file
 * edited since, shows as a different hash at the first check after the difference (the files'
 * digests are checked before that, naming the file).
 *
 * The file is text, one record per line (docs/results.md, "Recording and replay"):
 *
 *     throng-recording 1
 *     scene /abs/path/scenes/tower.yaml       (or a built-in demo's name)
 *     digest 9f2c0d1e2a3b4c5d /abs/path/scenes/tower.yaml  (FNV-1a 64 of each file it read)
 *     seed 7
 *     agents 0
 *     allow-outside-paths 0
 *     timestep 0.05
 *     threads 2
 *     schedule 120 destroy 1 north     (the command line's --destroy-bunker / --restore-bunker)
 *     action 340 restore 1 north       (a bunker key or click in the viewer)
 *     action 410 break 12 30 15 30     (a wall piece broken by a click: cells x0 y0 x1 y1)
 *     check 20 0123456789abcdef        (the state hash after 20 steps)
 *     end 1900 0123456789abcdef        (the steps run and the final hash)
 */
#ifndef TH_APP_RECORD_H
#define TH_APP_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include "throng/viewer.h"
#include "app.h"
#include "output.h"

typedef struct th_recording th_recording;

/* ---- recording a run ---------------------------------------------------------------------- */

/** Start recording the run of `w`, just opened from scene argument `scene` (`scene_file`: the
 *  file it resolved to, NULL for a built-in demo) with overrides `so`; `reads` lists the files
 *  the scene read (map images, tables). NULL with `err` filled when a file cannot be read for
 *  its digest or memory runs out. */
th_recording *th_record_begin(const char *scene, const char *scene_file,
                              const th_scene_open_opts *so, const th_world *w,
                              const th_file_inputs *reads, th_error *err);

/** The command line's bunker event, scheduled before step `step`. */
bool th_record_schedule(th_recording *r, uint64_t step, bool destroy, th_bunker_id bunker,
                        const char *name);

/** A change the user made in the viewer (th_view_opts.on_action, with the recording as user):
 *  kept with its step; a restart (R) starts the recording again with the fresh world. */
void th_record_action(th_recording *r, const th_world *w, const th_view_action *a);

/** Before each step of the recorded run: the state hash, once per simulated second. */
void th_record_step(th_recording *r, const th_world *w);

/** Write the recording of the run so far (`w` after its last step) to `path`, whole or not at
 *  all. False with `err` filled when it cannot be written or memory ran out while recording. */
bool th_record_write(const th_recording *r, const th_world *w, const char *path, th_error *err);

void th_record_free(th_recording *r);

/* ---- replaying one ------------------------------------------------------------------------ */

/** Read the recording at `path`. NULL with `err` filled ("path:line:column: expected ...,
 *  found ...") when it is not one. */
th_recording *th_record_read(const char *path, th_error *err);

/** Open the recorded scene as it was opened for the run (`threads` 0: the recorded number),
 *  with its schedule, after checking the files' digests. NULL with `err` filled. */
th_world *th_record_open(const th_recording *r, uint32_t threads, th_scene_info *info,
                         th_error *err);

/** Before each step of a replay: the changes made by hand at this step applied, the state
 *  checked where the recording has a check. False with `err` filled when a change cannot be
 *  applied or the state is not the recorded one: the replay has left the recorded run. */
bool th_record_before_step(const th_recording *r, th_world *w, th_error *err);

/** Check `w`, at the recording's last step, against its final hash. */
bool th_record_check_end(const th_recording *r, const th_world *w, th_error *err);

/** The recording's figures: its steps, its changes made by hand, its checks; its scene. */
uint64_t th_record_last_step(const th_recording *r);
uint32_t th_record_action_count(const th_recording *r);
uint32_t th_record_check_count(const th_recording *r);
const char *th_record_scene(const th_recording *r);

#endif
