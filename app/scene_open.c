/* Finding and opening the scene a command names: a file path, a name in the scene library, or
 * a built-in demo. */
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app.h"

#ifndef THRONG_SCENES_DIR
#define THRONG_SCENES_DIR "scenes"
#endif

const char *const th_default_scene = "air_raid";

/* The scene library `cmake --install` puts beside an installed command: PREFIX/share/throng/
 * scenes for PREFIX/bin/throng ("" when this binary's path cannot be read). */
static const char *installed_dir(void) {
    static char dir[4096];
    static bool done;
    if (done) return dir;
    done = true;
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return dir;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/'); /* PREFIX/bin/throng -> PREFIX/bin */
    if (!slash) return dir;
    *slash = '\0';
    slash = strrchr(exe, '/'); /* -> PREFIX */
    if (!slash) return dir;
    *slash = '\0';
    snprintf(dir, sizeof dir, "%.4000s/share/throng/scenes", exe);
    return dir;
}

bool th_scene_resolve(const char *name, char *path, size_t cap) {
    if (access(name, R_OK) == 0) {
        snprintf(path, cap, "%s", name);
        return true;
    }
    if (strchr(name, '/') || strstr(name, ".yaml")) return false;
    /* The library next to the working directory first (a checkout), then the one this binary
     * was built from, then the one installed beside it. */
    const char *dirs[] = {"scenes", THRONG_SCENES_DIR, installed_dir()};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        if (!dirs[i][0]) continue;
        snprintf(path, cap, "%s/%s.yaml", dirs[i], name);
        if (access(path, R_OK) == 0) return true;
    }
    return false;
}

/* The library folder `throng run NAME` reads: the one in the working directory (a checkout)
 * first, then the one this binary was built from, then the installed one; NULL when none
 * exists. */
static const char *library_dir(void) {
    const char *dirs[] = {"scenes", THRONG_SCENES_DIR, installed_dir()};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        if (!dirs[i][0]) continue;
        struct stat sb;
        if (stat(dirs[i], &sb) == 0 && S_ISDIR(sb.st_mode)) return dirs[i];
    }
    return NULL;
}

static int by_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

#define MAX_LISTED 256

/* Names (without .yaml) of the scene files in folder `dir`, sorted, joined by ", " into buf. */
static void list_folder(const char *dir, char *buf, size_t cap) {
    buf[0] = '\0';
    DIR *d = opendir(dir);
    if (!d) return;
    char *names[MAX_LISTED];
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < MAX_LISTED) {
        size_t len = strlen(e->d_name);
        if (len <= 5 || e->d_name[0] == '.' || strcmp(e->d_name + len - 5, ".yaml") != 0) continue;
        names[n] = strndup(e->d_name, len - 5);
        if (names[n]) n++;
    }
    closedir(d);
    qsort(names, n, sizeof *names, by_name);
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        int w = snprintf(buf + used, cap - used, "%s%s", i ? ", " : "", names[i]);
        if (w > 0 && (size_t)w < cap - used) used += (size_t)w;
        free(names[i]);
    }
}

static void list_demos(char *buf, size_t cap) {
    size_t used = 0;
    buf[0] = '\0';
    for (const char *const *d = th_demo_names; *d; d++) {
        int w = snprintf(buf + used, cap - used, "%s%s", d == th_demo_names ? "" : ", ", *d);
        if (w > 0 && (size_t)w < cap - used) used += (size_t)w;
    }
}

void th_scene_list_print(FILE *out, bool demos_too) {
    char names[4096], demos[256];
    const char *dir = library_dir();
    list_demos(demos, sizeof demos);
    fprintf(out, "SCENE is a scene file, or a name: ");
    if (dir) {
        list_folder(dir, names, sizeof names);
        fprintf(out, "in %s/: %s (default: %s)", dir, names[0] ? names : "none", th_default_scene);
        char sub[4200];
        snprintf(sub, sizeof sub, "%s/validation", dir);
        list_folder(sub, names, sizeof names);
        if (names[0]) fprintf(out, "; in %s/ (give the path): %s", sub, names);
    } else {
        fprintf(out, "no scenes/ folder found");
    }
    if (demos_too) fprintf(out, "; built-in demos: %s", demos);
    fprintf(out, ".\n");
}

th_world *th_scene_open(const char *name, const th_scene_open_opts *o, th_scene_info *info,
                        th_error *err) {
    char path[4096];
    if (th_scene_resolve(name, path, sizeof path)) {
        th_scene_opts so = {.threads = o->threads,
                            .override_seed = o->has_seed,
                            .seed = o->seed,
                            .agents = o->agents,
                            .allow_outside_paths = o->allow_outside_paths,
                            .dist = o->dist,
                            .file_read = o->file_read,
                            .file_read_user = o->file_read_user};
        return th_scene_load(path, &so, info, err);
    }
    for (const char *const *d = th_demo_names; *d; d++) {
        if (strcmp(*d, name) != 0) continue;
        th_demo_opts demo = {.agents = o->agents,
                             .seed = o->has_seed ? o->seed : 1,
                             .threads = o->threads,
                             .dist = o->dist};
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
    char names[256], demos[128];
    const char *dir = library_dir();
    names[0] = '\0';
    if (dir) list_folder(dir, names, sizeof names);
    list_demos(demos, sizeof demos);
    *err = (th_error){.code = TH_ERR_IO};
    snprintf(err->message, sizeof err->message,
             "no scene '%s': not a readable file, not in %s/ (%s), not a built-in demo (%s)", name,
             dir ? dir : "scenes", names[0] ? names : "none found", demos);
    return NULL;
}
