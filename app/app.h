/* Subcommands of the `throng` command line. Each returns the process exit code. */
#ifndef TH_APP_H
#define TH_APP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "throng/throng.h"

int th_cmd_run(int argc, char **argv);
int th_cmd_check(int argc, char **argv);
int th_cmd_replay(int argc, char **argv);

/** The scene `throng run` opens when none is named. */
extern const char *const th_default_scene;

/** Overrides a command line applies to a scene. */
typedef struct th_scene_open_opts {
    uint32_t threads; /* 0 = the scene's */
    bool has_seed;
    uint64_t seed;
    uint32_t agents;          /* 0 = the scene's */
    bool allow_outside_paths; /* --allow-outside-paths: files a scene names may lie elsewhere */
    const struct th_dist_def *dist;                  /* under mpirun: the ranks sharing the world */
    void (*file_read)(void *user, const char *path); /* th_scene_opts' hook (scene files) */
    void *file_read_user;
} th_scene_open_opts;

/** Path of the scene called `name`: `name` itself when it is a readable file, else
 *  scenes/NAME.yaml in the working directory or in the source tree. */
bool th_scene_resolve(const char *name, char *path, size_t cap);

/** Print where scenes come from: the scene library's names (read from its folder now), the
 *  validation scenes, and the built-in demos when `demos` (run opens them; check does not). */
void th_scene_list_print(FILE *out, bool demos);

/** Open scene `name` (a file, a library name, or a built-in demo). */
th_world *th_scene_open(const char *name, const th_scene_open_opts *o, th_scene_info *info,
                        th_error *err);

#endif
