/* `throng check SCENE...`: validate scene files without running them. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "args.h"
#include "report.h"

static const char k_check_help[] =
    "usage: throng check [--threads T] [--allow-outside-paths] SCENE...\n"
    "\n"
    "Load each scene (a file, or a name in scenes/) and report whether it is valid: the first\n"
    "problem of a bad file is printed as file:line:column: key: what was expected and found.\n"
    "Exit code 0 when all are valid, 2 otherwise. A scene is checked as `throng run` would\n"
    "build it (the same memory estimate, for the same thread count), so check refuses what\n"
    "run refuses. What loads but is most likely a mistake (a pedestrian crowd with no goal and\n"
    "no heading beside bunkers or exits) gets a warning on stderr, and exit code 0.\n"
    "\n"
    "  --threads T            worker threads, 1..64 or 0 for every core, as for run\n"
    "                         (default: the scene's, else every core)\n"
    "  --allow-outside-paths  let scenes read files outside their own folder (map.image,\n"
    "                         hazard tables: absolute paths, '..', symbolic links); refused\n"
    "                         by default\n";

int th_cmd_check(int argc, char **argv) {
    if (argc == 0) {
        fputs(k_check_help, stderr);
        return TH_EXIT_USAGE;
    }
    int bad = 0, scenes = 0;
    bool outside = false;
    uint64_t threads = 0;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(k_check_help, stdout);
            return 0;
        }
    }
    /* Flags first, then every other argument is a scene. */
    char **names = argv;
    for (int i = 0; i < argc; i++) {
        const char *v;
        int m;
        if ((m = th_arg_flag("throng check", argc, argv, &i, "--allow-outside-paths", false, &v))) {
            if (m < 0) return TH_EXIT_USAGE;
            outside = true;
        } else if ((m = th_arg_flag("throng check", argc, argv, &i, "--threads", true, &v))) {
            if (m < 0 || !th_arg_u64("--threads", v, 0, TH_MAX_THREADS, &threads))
                return TH_EXIT_USAGE;
            /* 0 is every core, as for run. */
            if (threads == 0) {
                long n = sysconf(_SC_NPROCESSORS_ONLN);
                threads = n < 1 ? 1 : (n > TH_MAX_THREADS ? TH_MAX_THREADS : (uint64_t)n);
            }
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "throng check: unknown option '%s' (see 'throng check --help')\n",
                    argv[i]);
            return TH_EXIT_USAGE;
        } else {
            names[scenes++] = argv[i];
        }
    }
    if (scenes == 0) {
        fputs(k_check_help, stderr);
        return TH_EXIT_USAGE;
    }
    for (int i = 0; i < scenes; i++) {
        char path[4096];
        th_error err = {0};
        th_scene_info info;
        if (!th_scene_resolve(names[i], path, sizeof path)) {
            fprintf(stderr, "%s: no such scene file or scene name; ", names[i]);
            th_scene_list_print(stderr, false);
            bad++;
            continue;
        }
        /* The thread count run would use: the memory estimate (and so the answer) depends on
         * it. Checking with one thread approved scenes that run then refused. */
        /* Built as run builds it, every check made, without what only running needs. */
        if (!th_scene_check(
                path,
                &(th_scene_opts){.threads = (uint32_t)threads, .allow_outside_paths = outside},
                &info, &err)) {
            fprintf(stderr, "%s\n", err.message);
            bad++;
            continue;
        }
        /* Names are refused when unsafe; the path is the user's, but may hold anything. */
        char shown_path[1024], shown_name[256];
        th_text_escape(shown_path, sizeof shown_path, path, strlen(path));
        th_text_escape(shown_name, sizeof shown_name, info.name, strlen(info.name));
        printf("ok  %s: '%s', %u agents in %u crowd(s), ", shown_path, shown_name, info.agents,
               info.crowds);
        if (info.map_cols) printf("map %d x %d, ", info.map_cols, info.map_rows);
        else printf("open ground, ");
        printf("%u bunker(s), %u event(s)\n", info.bunkers, info.events);
        th_report_warnings(stderr, "warning: ", info.warnings, info.warning);
    }
    return bad ? TH_EXIT_USAGE : 0;
}
