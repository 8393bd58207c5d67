/* Finding and opening the scene a command names: a file path, a name in the scene library, or
 * a built-in demo. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "app.h"

#ifndef THRONG_SCENES_DIR
#define THRONG_SCENES_DIR "scenes"
#endif

const char *const th_default_scene = "air_raid";

bool th_scene_resolve(const char *name, char *path, size_t cap) {
    if (access(name, R_OK) == 0) {
        snprintf(path, cap, "%s", name);
        return true;
    }
    if (strchr(name, '/') || strstr(name, ".yaml")) return false;
    /* The library next to the working directory first (a checkout), then the one this binary
     * was built from. */
    const char *dirs[] = {"scenes", THRONG_SCENES_DIR};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        snprintf(path, cap, "%s/%s.yaml", dirs[i], name);
        if (access(path, R_OK) == 0) return true;
    }
    return false;
}

th_world *th_scene_open(const char *name, const th_scene_open_opts *o, th_scene_info *info,
                        th_error *err) {
    char path[4096];
    if (th_scene_resolve(name, path, sizeof path)) {
        th_scene_opts so = {.threads = o->threads, .override_seed = o->has_seed, .seed = o->seed,
                            .agents = o->agents, .allow_outside_paths = o->allow_outside_paths};
        return th_scene_load(path, &so, info, err);
    }
    for (const char *const *d = th_demo_names; *d; d++) {
        if (strcmp(*d, name) != 0) continue;
        th_demo_opts demo = {.agents = o->agents, .seed = o->has_seed ? o->seed : 1,
                             .threads = o->threads};
        th_world *w = th_demo_create(name, &demo, err);
        if (w && info) {
            memset(info, 0, sizeof *info);
            snprintf(info->name, sizeof info->name, "%s (built-in)", name);
            info->steps = 600;
            info->timestep = th_world_get_def(w).timestep;
            info->agents = th_world_agent_count(w);
            info->crowds = th_world_crowd_count(w);
            info->bunkers = th_world_bunker_count(w);
            th_world_map_size(w, &info->map_cols, &info->map_rows, NULL);
        }
        return w;
    }
    snprintf(err->message, sizeof err->message,
             "no scene '%s': not a readable file, not in scenes/, not a built-in demo (flock, evac)",
             name);
    return NULL;
}
