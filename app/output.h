/* `throng run` output files: the measurement table and agent trajectories (docs/measurement.md). */
#ifndef TH_APP_OUTPUT_H
#define TH_APP_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "throng/throng.h"

typedef enum th_traj_format {
    TH_TRAJ_AUTO = 0,  /* by extension: .txt is pedpy, anything else csv */
    TH_TRAJ_CSV = 1,   /* step,time,id,crowd,x,y,vx,vy */
    TH_TRAJ_PEDPY = 2, /* whitespace-separated id frame x y z, '#' header with the frame rate */
} th_traj_format;

typedef struct th_output {
    const char *measure_path; /* NULL: no measurement table */
    uint64_t measure_every;   /* sample every N steps (>= 1) */
    const char *traj_path;    /* NULL: no trajectories */
    uint64_t traj_every;
    th_traj_format traj_format;
    const char *scene_path; /* the scene file read, never to be written over (may be NULL);
                               read by th_output_open only */
    FILE *measure, *traj;   /* open between th_output_open and th_output_close */
    uint32_t *by_slot;      /* trajectories: storage index of the agent in each id slot */
    uint32_t by_slot_cap;
    int measure_errno, traj_errno; /* why the first failed write failed (0: unknown) */
} th_output;

/** A file a command reads or writes. A command lists its inputs (the scene file, its map
 *  image) and its outputs (every file option) and checks them together before any work. */
typedef struct th_file_use {
    const char *name; /* how messages call it: "--json", "SCENE", "map.image" */
    const char *path; /* NULL: not used this time (skipped) */
    const char *note; /* for an input: what it is ("the scene file being run"); may be NULL */
    bool output;
    bool regular; /* an output that must be a regular file (--json, --screenshot) */
} th_file_use;

/** Whether output `f` can be written, found out without changing anything: an existing file is
 *  opened for writing without truncating it (a FIFO or a device is only checked for
 *  permission, since opening a FIFO and closing it again would end its reader), a new one is
 *  created and removed again. False with `err` naming the flag, the path and the reason. */
bool th_file_check_writable(const th_file_use *f, th_error *err);

/** Whether every output is a file of its own: not any input nor any other output. Files are
 *  compared by identity (device and inode when the file exists, else its folder's device and
 *  inode and its name), so `x`, `./x`, `dir/../x`, a symbolic link and a hard link to it are
 *  one file. Devices, FIFOs and sockets may be shared by outputs. False with `err` naming both
 *  uses and the path. */
bool th_file_check_distinct(const th_file_use *use, size_t n, th_error *err);

/** Whether output `out` is none of the regular files in folder `dir` (the inputs a command
 *  reads from there, `note` saying what they are); a folder that does not exist holds none.
 *  False with `err` naming both. */
bool th_file_check_not_in(const th_file_use *out, const char *dir, const char *note, th_error *err);

/** Write a file whole or not at all: th_file_begin opens a new file beside `path` (its name
 *  in `tmp`, `cap` bytes; NULL when it cannot), th_file_commit closes it and renames it over
 *  `path` (true), or removes it when a write failed (false). A reader of `path` sees the old
 *  file or the new one, never a part, and an interrupted command leaves the old. */
FILE *th_file_begin(const char *path, char *tmp, size_t cap);
bool th_file_commit(FILE *f, const char *tmp, const char *path);

/** For the commands that run a suite of scenes (`throng verify`, `throng validate`): whether
 *  --json FILE can be written and is none of the files in the suite's scene folders `dir1`
 *  and `dir2`; false after saying why on stderr, prefixed with `cmd`. */
bool th_suite_json_check(const char *cmd, const char *json, const char *dir1, const char *dir2);

/** th_file_begin for such a command's --json, saying on stderr (prefixed with `cmd`) when the
 *  file cannot be made; close it with th_file_commit. */
FILE *th_suite_json_begin(const char *cmd, const char *json, char *tmp, size_t cap);

/** The files a scene reads, as the loader reports them (th_scene_opts.file_read): pass
 *  th_file_inputs_add as the hook and a zeroed th_file_inputs as its user pointer. */
typedef struct th_file_inputs {
    char **path;
    size_t n, cap;
    bool nomem; /* a path could not be kept: every check with the list fails */
} th_file_inputs;
void th_file_inputs_add(void *user, const char *path);
void th_file_inputs_free(th_file_inputs *in);

/** th_file_check_distinct over `use` and the files of `in` as further inputs. */
bool th_file_check_distinct_with(const th_file_use *use, size_t n, const th_file_inputs *in,
                                 th_error *err);

/** An agent's number in the output files (trajectories, the results' occupant table):
 *  index1 - 1 + 2^24 (generation - 1), one number per agent of a run. */
uint64_t th_agent_number(th_agent_id id);

/** Parse a --trajectory-format value (csv or pedpy); false with a message on stderr. */
bool th_output_parse_format(const char *text, th_traj_format *out);

/** Whether any output file was asked for. */
bool th_output_wanted(const th_output *o);

/** Open the files (before the run, so an unwritable path fails before any work) and write the
 *  headers. False with `err` filled; nothing stays open then. Then call th_output_sample for
 *  the state before the first step, and after every step. */
bool th_output_open(th_output *o, const th_world *w, const char *scene, th_error *err);

/** After a step: write the rows of the steps the sampling intervals pick. False with `err`
 *  filled when writing failed. */
bool th_output_sample(th_output *o, const th_world *w, th_error *err);

/** Flush and close; false with `err` filled when any write failed. Safe to call twice. */
bool th_output_close(th_output *o, th_error *err);

/* ---- small helpers the command's files share ------------------------------------------- */

/** Fill `err` (may be NULL) afresh: `code` and the formatted message, no place. */
__attribute__((format(printf, 3, 4))) void th_app_error(th_error *err, th_error_code code,
                                                        const char *fmt, ...);

/** Grow the array `*p` of `size`-byte items to hold at least `need` (its capacity `*cap`,
 *  doubled from 64); false, with `*p` and `*cap` as they were, when memory is short. */
bool th_app_grow(void **p, size_t size, uint32_t *cap, uint32_t need);

/** FNV-1a 64 of `n` bytes, continued from `h` (TH_FNV_START for a fresh digest). */
#define TH_FNV_START 0xcbf29ce484222325ull
uint64_t th_fnv1a64(uint64_t h, const void *p, size_t n);

#endif
