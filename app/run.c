/* `throng run`: run a scene, in the viewer when a display is there, and report what happened. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "throng/clock.h"
#include "throng/viewer.h"
#include "throng/throng.h"
#include "app.h"
#include "ranks.h"
#include "args.h"
#include "output.h"
#include "progress.h"
#include "record.h"
#include "report.h"
#include "results.h"
#include "shot.h"

static const char k_run_help_head[] =
    "usage: throng run [SCENE] [options]\n"
    "\n"
    "Run SCENE and report what happened: for scenes with bunkers, how many agents are\n"
    "sheltered, en route or stranded (and why), when 50%, 90% and all of those who could\n"
    "reach a bunker were in, each bunker's count and when it was destroyed, restored or\n"
    "filled, when each squad arrived; then the steps run, wall time, throughput in\n"
    "agent-steps/s, milliseconds per step in each phase, and the final state hash.\n"
    "\n";

static const char k_run_help_opts[] =
    "\n"
    "Every option also takes the form --option=VALUE.\n"
    "\n"
    "options:\n"
    "  --steps N     most steps to simulate (default: the scene's `steps`; 0 only builds\n"
    "                it); the run ends earlier once the scene is over: no agent left that\n"
    "                could move, no spawner or event still to come\n"
    "  --fixed-steps run exactly N steps even when the scene is over (benchmarks)\n"
    "  --fail-on-stall\n"
    "                exit 1 when agents are stalled at the end (no progress toward their\n"
    "                goal for the scene's stall_time); --validate does the same\n"
    "  --threads T   worker threads, 1..64, or 0 for every core (default: the scene's,\n"
    "                else every core)\n"
    "  --seed S      random seed keying every random draw (default: the scene's)\n"
    "  --agents N    scale the scene's randomly spawned crowds to N agents in all\n"
    "  --headless    never open the viewer (it opens when a display is available; without\n"
    "                one, run says 'no display: running headless')\n"
    "  --json FILE   also write the report as JSON, with the machine (CPU, cores) and the\n"
    "                build (version, commit, build type, compiler)\n"
    "  --progress, --no-progress\n"
    "                a progress line on stderr once a run has taken 2 s, every second (steps,\n"
    "                simulated time, agents sheltered, throughput); default: only when stderr\n"
    "                is a terminal\n"
    "  --allow-outside-paths\n"
    "                let the scene read files outside its folder (map images, hazard\n"
    "                tables: absolute paths, '..', links); refused by default\n"
    "  --rebalance N under mpirun: re-cut the ranks' strips of grid rows by agent count every\n"
    "                N steps (default 50; results do not depend on it)\n"
    "  --validate    check the invariants inside every step; stop at the first violation\n"
    "                (exit 1) and report peak memory at the start and the end\n"
    "  --destroy-bunker NAME@WHEN, --restore-bunker NAME@WHEN\n"
    "                destroy or restore bunker NAME before step WHEN, or at WHEN seconds of\n"
    "                simulated time with an 's' (north@600, north@10s, north@2.5s);\n"
    "                repeatable\n"
    "\n"
    "screenshots (no display needed; the file is checked before the run):\n"
    "  --screenshot FILE\n"
    "                after the steps, render one frame to FILE (PNG)\n"
    "  --overlays LIST\n"
    "                comma-separated overlays to add to the default (hud, legend, agents), or\n"
    "                with a '-' to take away: flow, density, grid, walldist, squads, profiler,\n"
    "                hud, legend, help, agents, pheromone, all, none (e.g.\n"
    "                flow,density,-legend); also the overlays the viewer opens with\n"
    "  --flow-field NAME\n"
    "                the field the flow overlay shows: nearest (default), a bunker's own\n"
    "                field, or the destination field of the crowd called NAME\n"
    "  --no-hud      no panels (HUD, legend, profiler, help): the map alone\n"
    "  --size WxH    image (and viewer window) size in pixels, 64..8192 a side\n"
    "                (default 1280x800)\n"
    "  --view X0,Y0,X1,Y1\n"
    "                frame this world rectangle (metres) instead of the whole world; the\n"
    "                map only, without panels\n"
    "  --level NAME  draw the building's level NAME alone, framed (docs/buildings.md); also\n"
    "                the level the viewer opens on\n";

/* The help goes on here: one string would pass the 4095 bytes C11 promises to compile. */
static const char k_run_help_files[] =
    "\n"
    "output files (opened before the run; any of them means --headless):\n"
    "  --measure FILE.csv\n"
    "                write the scene's measurement areas and lines (its `measure:` section)\n"
    "                to FILE: one row per sampled step (docs/measurement.md)\n"
    "  --measure-every N\n"
    "                sample the measurements every N steps (default 1)\n"
    "  --trajectories FILE\n"
    "                write every agent's position and velocity, one row per agent per\n"
    "                sampled step: CSV step,time,id,crowd,x,y,vx,vy, or PedPy's text format\n"
    "                when FILE ends in .txt\n"
    "  --trajectory-every N\n"
    "                sample the trajectories every N steps (default 1)\n"
    "  --trajectory-format csv|pedpy\n"
    "                choose the trajectory format whatever FILE's extension\n"
    "  --results DIR write what an engineer reports into folder DIR (made if missing):\n"
    "                flows and queues at every exit, bunker, stair and measurement line\n"
    "                over time, the evacuation curve, a table of every agent, mean and\n"
    "                highest density and Fruin's level of service per level (CSV and PNG),\n"
    "                and index.html gathering them (docs/results.md)\n"
    "  --record FILE write what determines the run (the scene and its files' digests, the\n"
    "                seed, the bunkers destroyed or restored and the walls broken by hand\n"
    "                in the viewer, at their steps) and its state hash every simulated\n"
    "                second, for `throng replay FILE`; in the viewer and headless\n"
    "  -h, --help    show this help\n"
    "\n"
    "Ctrl-C, SIGTERM or SIGHUP (a closed terminal) stops a headless run after the current\n"
    "step, with its files and the report so far (a second one: at once). Exit codes: 0\n"
    "done, 1 runtime failure, 2 usage error, 130 interrupted (143 by SIGTERM, 129 by\n"
    "SIGHUP).\n";

#define MAX_SCHEDULED       64
#define TH_EXIT_INTERRUPTED 130

/* A bunker event the command line schedules: before a step, or at a simulated time. */
typedef struct scheduled {
    char bunker[64];
    uint64_t step;
    double seconds; /* >= 0: a time, converted to a step once the scene's timestep is known */
    bool destroy;
} scheduled;

typedef struct run_opts {
    const char *scene;
    uint64_t steps, threads, seed, agents, rebalance;
    bool has_steps, has_seed, has_threads, headless, validate, allow_outside_paths;
    bool fail_on_stall, fixed_steps;
    const char *screenshot, *json, *results, *record;
    th_progress_mode progress;
    th_shot_opts shot;
    scheduled events[MAX_SCHEDULED];
    uint32_t event_count;
    th_output out; /* --measure, --trajectories */
} run_opts;

/* Parse NAME@STEP or NAME@SECONDSs into the schedule. */
static bool parse_event(const char *flag, const char *text, bool destroy, run_opts *o) {
    const char *at = strrchr(text, '@');
    if (!at || at == text || (size_t)(at - text) >= sizeof o->events[0].bunker || !at[1]) {
        fprintf(stderr, "throng run: %s: expected NAME@STEP or NAME@SECONDSs, got '%s'\n", flag,
                text);
        return false;
    }
    if (o->event_count == MAX_SCHEDULED) {
        fprintf(stderr, "throng run: %s: at most %d scheduled bunker events\n", flag,
                MAX_SCHEDULED);
        return false;
    }
    scheduled *e = &o->events[o->event_count];
    size_t n = strlen(at + 1);
    e->seconds = -1.0;
    if (at[n] == 's') {
        char num[64];
        char *end = NULL;
        bool ok = n - 1 > 0 && n - 1 < sizeof num && at[1] >= '0' && at[1] <= '9';
        if (ok) {
            memcpy(num, at + 1, n - 1);
            num[n - 1] = '\0';
            errno = 0;
            e->seconds = strtod(num, &end);
            ok = errno == 0 && end && *end == '\0' && isfinite(e->seconds) && e->seconds <= 1.0e9;
        }
        if (!ok) {
            fprintf(stderr,
                    "throng run: %s: expected seconds from 0 to 1e9 before the 's' in "
                    "NAME@SECONDSs, got '%s'\n",
                    flag, text);
            return false;
        }
    } else if (!th_arg_u64(flag, at + 1, 0, 1000000000ull, &e->step)) {
        return false;
    }
    memcpy(e->bunker, text, (size_t)(at - text));
    e->bunker[at - text] = '\0';
    e->destroy = destroy;
    o->event_count++;
    return true;
}

/* Parse X0,Y0,X1,Y1 (metres). */
static bool parse_view(const char *flag, const char *text, th_shot_opts *s) {
    double v[4];
    const char *p = text;
    for (int i = 0; i < 4; i++) {
        char *end = NULL;
        errno = 0;
        v[i] = strtod(p, &end);
        if (end == p || errno || !isfinite(v[i]) || *end != (i < 3 ? ',' : '\0')) {
            fprintf(stderr, "throng run: %s: expected X0,Y0,X1,Y1 in metres, got '%s'\n", flag,
                    text);
            return false;
        }
        p = end + 1;
    }
    if (!(v[0] < v[2] && v[1] < v[3])) {
        fprintf(stderr, "throng run: %s: expected X0 < X1 and Y0 < Y1, got '%s'\n", flag, text);
        return false;
    }
    s->has_view = true;
    s->x0 = v[0];
    s->y0 = v[1];
    s->x1 = v[2];
    s->y1 = v[3];
    return true;
}

static int parse(int argc, char **argv, run_opts *o) {
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *v = NULL;
        int m;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(k_run_help_head, stdout);
            th_scene_list_print(stdout, true);
            fputs(k_run_help_opts, stdout);
            fputs(k_run_help_files, stdout);
            return 0;
        } else if ((m = th_arg_flag("throng run", argc, argv, &i, "--headless", false, &v))) {
            if (m < 0) return TH_EXIT_USAGE;
            o->headless = true;
        } else if ((m = th_arg_flag("throng run", argc, argv, &i, "--validate", false, &v))) {
            if (m < 0) return TH_EXIT_USAGE;
            o->validate = true;
        } else if ((m = th_arg_flag("throng run", argc, argv, &i, "--fail-on-stall", false, &v))) {
            if (m < 0) return TH_EXIT_USAGE;
            o->fail_on_stall = true;
        } else if ((m = th_arg_flag("throng run", argc, argv, &i, "--fixed-steps", false, &v))) {
            if (m < 0) return TH_EXIT_USAGE;
            o->fixed_steps = true;
        } else if ((m = th_arg_flag("throng run", argc, argv, &i, "--allow-outside-paths", false,
                                    &v))) {
            if (m < 0) return TH_EXIT_USAGE;
            o->allow_outside_paths = true;
        } else if ((m = th_arg_flag("throng run", argc, argv, &i, "--progress", false, &v))) {
            if (m < 0) return TH_EXIT_USAGE;
            o->progress = TH_PROGRESS_ON;
        } else if ((m = th_arg_flag("throng run", argc, argv, &i, "--no-progress", false, &v))) {
            if (m < 0) return TH_EXIT_USAGE;
            o->progress = TH_PROGRESS_OFF;
        } else if ((m = th_arg_flag("throng run", argc, argv, &i, "--no-hud", false, &v))) {
            if (m < 0) return TH_EXIT_USAGE;
            o->shot.no_hud = true;
        } else if ((m = th_arg_flag("throng run", argc, argv, &i, "--screenshot", true, &v))) {
            if (m < 0) return TH_EXIT_USAGE;
            o->screenshot = v;
        } else if ((m = th_arg_flag("throng run", argc, argv, &i, "--json", true, &v))) {
            if (m < 0) return TH_EXIT_USAGE;
            o->json = v;
        } else if ((m = th_arg_flag("throng run", argc, argv, &i, "--flow-field", true, &v))) {
            if (m < 0) return TH_EXIT_USAGE;
            o->shot.flow_field = v;
        } else if ((m = th_arg_flag("throng run", argc, argv, &i, "--overlays", true, &v))) {
            if (m < 0 || !th_shot_parse_overlays("--overlays", v, &o->shot)) return TH_EXIT_USAGE;
        } else if ((m = th_arg_flag("throng run", argc, argv, &i, "--size", true, &v))) {
            if (m < 0 || !th_shot_parse_size("throng run", "--size", v, &o->shot))
                return TH_EXIT_USAGE;
        } else if ((m = th_arg_flag("throng run", argc, argv, &i, "--view", true, &v))) {
            if (m < 0 || !parse_view("--view", v, &o->shot)) return TH_EXIT_USAGE;
        } else if ((m = th_arg_flag("throng run", argc, argv, &i, "--level", true, &v))) {
            if (m < 0) return TH_EXIT_USAGE;
            o->shot.level_name = v;
        } else if ((m = th_arg_flag("throng run", argc, argv, &i, "--steps", true, &v))) {
            if (m < 0 || !th_arg_u64("--steps", v, 0, 1000000000ull, &o->steps))
                return TH_EXIT_USAGE;
            o->has_steps = true;
        } else if ((m = th_arg_flag("throng run", argc, argv, &i, "--threads", true, &v))) {
            if (m < 0 || !th_arg_u64("--threads", v, 0, TH_MAX_THREADS, &o->threads))
                return TH_EXIT_USAGE;
            o->has_threads = true;
        } else if ((m = th_arg_flag("throng run", argc, argv, &i, "--seed", true, &v))) {
            if (m < 0 || !th_arg_u64("--seed", v, 0, UINT64_MAX, &o->seed)) return TH_EXIT_USAGE;
            o->has_seed = true;
        } else if ((m = th_arg_flag("throng run", argc, argv, &i, "--agents", true, &v))) {
            if (m < 0 || !th_arg_u64("--agents", v, 1, TH_MAX_AGENTS, &o->agents))
                return TH_EXIT_USAGE;
        } else if ((m = th_arg_flag("throng run", argc, argv, &i, "--rebalance", true, &v))) {
            if (m < 0 || !th_arg_u64("--rebalance", v, 1, 1000000000ull, &o->rebalance))
                return TH_EXIT_USAGE;
        } else if ((m = th_arg_flag("throng run", argc, argv, &i, "--measure", true, &v))) {
            if (m < 0) return TH_EXIT_USAGE;
            o->out.measure_path = v;
        } else if ((m = th_arg_flag("throng run", argc, argv, &i, "--trajectories", true, &v))) {
            if (m < 0) return TH_EXIT_USAGE;
            o->out.traj_path = v;
        } else if ((m = th_arg_flag("throng run", argc, argv, &i, "--results", true, &v))) {
            if (m < 0) return TH_EXIT_USAGE;
            o->results = v;
        } else if ((m = th_arg_flag("throng run", argc, argv, &i, "--record", true, &v))) {
            if (m < 0) return TH_EXIT_USAGE;
            o->record = v;
        } else if ((m = th_arg_flag("throng run", argc, argv, &i, "--measure-every", true, &v))) {
            if (m < 0 || !th_arg_u64("--measure-every", v, 1, 1000000000ull, &o->out.measure_every))
                return TH_EXIT_USAGE;
        } else if ((m = th_arg_flag("throng run", argc, argv, &i, "--trajectory-every", true,
                                    &v))) {
            if (m < 0 || !th_arg_u64("--trajectory-every", v, 1, 1000000000ull, &o->out.traj_every))
                return TH_EXIT_USAGE;
        } else if ((m = th_arg_flag("throng run", argc, argv, &i, "--trajectory-format", true,
                                    &v))) {
            if (m < 0 || !th_output_parse_format(v, &o->out.traj_format)) return TH_EXIT_USAGE;
        } else if ((m = th_arg_flag("throng run", argc, argv, &i, "--destroy-bunker", true, &v))) {
            if (m < 0 || !parse_event("--destroy-bunker", v, true, o)) return TH_EXIT_USAGE;
        } else if ((m = th_arg_flag("throng run", argc, argv, &i, "--restore-bunker", true, &v))) {
            if (m < 0 || !parse_event("--restore-bunker", v, false, o)) return TH_EXIT_USAGE;
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "throng run: unknown option '%s' (see 'throng run --help')\n", a);
            return TH_EXIT_USAGE;
        } else if (o->scene) {
            fprintf(stderr, "throng run: one scene at a time, got '%s' and '%s'\n", o->scene, a);
            return TH_EXIT_USAGE;
        } else {
            o->scene = a;
        }
    }
    return -1;
}

/* Peak resident memory of the process so far, MiB. */
static double peak_rss_mib(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0;
}

/* The viewer's R key rebuilds the scene as the command line opened it; the recording, if any,
 * hears of the user's changes and of every step. */
typedef struct restart_ctx {
    const char *scene;
    th_scene_open_opts opts;
    th_recording *rec;
} restart_ctx;

static void record_action(void *user, const th_world *w, const th_view_action *a) {
    restart_ctx *r = user;
    th_record_action(r->rec, w, a);
}

static void record_step(void *user, th_world *w) {
    restart_ctx *r = user;
    th_record_step(r->rec, w);
}

static th_world *reopen(void *user) {
    const restart_ctx *r = user;
    th_error err;
    th_world *w = th_scene_open(r->scene, &r->opts, NULL, &err);
    if (!w) fprintf(stderr, "throng run: restart: %s\n", err.message);
    return w;
}

/* Schedule the command line's bunker events; seconds become the first step at or after them. */
static bool schedule_events(th_world *w, const run_opts *o, double dt, th_recording *rec) {
    th_error err;
    for (uint32_t e = 0; e < o->event_count; e++) {
        const scheduled *s = &o->events[e];
        th_bunker_id b = th_world_find_bunker(w, s->bunker);
        if (!th_bunker_id_valid(b)) {
            fprintf(stderr, "throng run: --%s-bunker %s: scene '%s' has no bunker '%s'",
                    s->destroy ? "destroy" : "restore", s->bunker, o->scene, s->bunker);
            const char *sep = " (it has: ";
            for (uint32_t k = 0; k < th_world_bunker_count(w); k++) {
                th_bunker_info bi;
                th_world_get_bunker(w, (th_bunker_id){k + 1}, &bi);
                fprintf(stderr, "%s%s", sep, bi.name);
                sep = ", ";
            }
            fprintf(stderr, "%s\n", th_world_bunker_count(w) ? ")" : " (it has none)");
            return false;
        }
        uint64_t step = s->step;
        if (s->seconds >= 0.0) step = (uint64_t)ceil(s->seconds / dt - 1e-9);
        th_event_def ev = {.type = s->destroy ? TH_EVENT_DESTROY_BUNKER : TH_EVENT_RESTORE_BUNKER,
                           .bunker = b};
        if (!th_world_schedule(w, step, &ev, &err)) {
            fprintf(stderr, "throng run: %s\n", err.message);
            return false;
        }
        if (rec && !th_record_schedule(rec, step, s->destroy, b, s->bunker)) {
            fprintf(stderr, "throng run: --record: out of memory\n");
            return false;
        }
    }
    return true;
}

/* ---- one run, stage by stage -------------------------------------------------------------- */

/* A stage returns RUN_ON to go on, or the exit code the run ends with. */
#define RUN_ON (-1)

/* Every file the run reads or writes, in the order of th_cmd_run's files[]. */
enum {
    FILE_SCENE,
    FILE_MAP,
    FILE_MEASURE,
    FILE_TRAJ,
    FILE_JSON,
    FILE_SHOT,
    FILE_RECORD,
    FILE_COUNT
};

typedef struct run_job {
    run_opts o;
    th_file_use files[FILE_COUNT];
    th_scene_open_opts so;
    th_scene_info info;
    th_world *w;
    th_world_def def;
    th_results *results;
    th_recording *rec; /* --record */
    th_run_facts facts;
    bool viewer;           /* the run steps in the viewer's window */
    char scene_file[4096]; /* the scene's path as resolved (files[FILE_SCENE]) */
} run_job;

/* Each output is checked now, before any work, and, once the scene says which files it reads,
 * against the inputs and the other outputs: an output never replaces an input or another
 * output. The paths as given: under mpirun the other ranks write to /dev/null, yet refuse what
 * rank 0 refuses. */
static int check_outputs(run_job *j) {
    const run_opts *o = &j->o;
    j->files[FILE_SCENE] = (th_file_use){.name = "SCENE", .note = "the scene file being run"};
    j->files[FILE_MAP] = (th_file_use){.name = "map.image", .note = "the scene's map image"};
    j->files[FILE_MEASURE] =
        (th_file_use){.name = "--measure", .path = o->out.measure_path, .output = true};
    j->files[FILE_TRAJ] =
        (th_file_use){.name = "--trajectories", .path = o->out.traj_path, .output = true};
    j->files[FILE_JSON] =
        (th_file_use){.name = "--json", .path = o->json, .output = true, .regular = true};
    j->files[FILE_SHOT] = (th_file_use){
        .name = "--screenshot", .path = o->screenshot, .output = true, .regular = true};
    j->files[FILE_RECORD] =
        (th_file_use){.name = "--record", .path = o->record, .output = true, .regular = true};
    for (size_t i = 0; i < FILE_COUNT; i++) {
        th_error ferr;
        if (j->files[i].output && j->files[i].path &&
            !th_file_check_writable(&j->files[i], &ferr)) {
            fprintf(stderr, "throng run: %s\n", ferr.message);
            return TH_EXIT_USAGE;
        }
    }
    if (o->results) {
        th_error rerr;
        if (!th_results_check_dir(o->results, &rerr)) {
            fprintf(stderr, "throng run: %s\n", rerr.message);
            return TH_EXIT_USAGE;
        }
    }
    if (o->shot.has_view && !o->screenshot) {
        fprintf(stderr, "throng run: --view frames a screenshot: add --screenshot FILE\n");
        return TH_EXIT_USAGE;
    }
    return RUN_ON;
}

/* Under mpirun: what needs one process is refused, and the files rank 0 writes go to
 * /dev/null on the others. */
static int check_ranks(run_opts *o) {
    if (th_app_ranks() <= 1) return RUN_ON;
    /* A screenshot draws one process's agents: not on several ranks yet. (--validate runs: the
     * ranks agree on the first violation, so every rank stops at the same step.) */
    if (o->screenshot) {
        fprintf(stderr, "throng run: --screenshot does not run on more than one MPI rank yet "
                        "(run with -np 1)\n");
        return TH_EXIT_USAGE;
    }
    if (o->results) {
        fprintf(stderr, "throng run: --results does not run on more than one MPI rank yet "
                        "(run with -np 1)\n");
        return TH_EXIT_USAGE;
    }
    if (o->record) {
        fprintf(stderr, "throng run: --record does not run on more than one MPI rank yet "
                        "(run with -np 1; the replay is the same run)\n");
        return TH_EXIT_USAGE;
    }
    if (!o->headless) {
        fprintf(stderr, "throng run: under mpirun, throng run needs --headless: the viewer "
                        "shows one process's world\n");
        return TH_EXIT_USAGE;
    }
    /* The measurement table reads totals every rank holds (summed over ranks in the step):
     * rank 0 writes it. */
    if (th_app_rank() != 0 && o->out.measure_path) o->out.measure_path = "/dev/null";
    /* Trajectories: every rank's agents are gathered on rank 0, which writes them. */
    if (th_app_rank() != 0 && o->out.traj_path) o->out.traj_path = "/dev/null";
    return RUN_ON;
}

/* The world of the scene, with the command line's terms checked against it and its events
 * scheduled; the files it reads checked against those the run writes. */
static int open_world(run_job *j, uint32_t threads) {
    run_opts *o = &j->o;
    th_error err = {0};
    j->so = (th_scene_open_opts){.threads = threads,
                                 .has_seed = o->has_seed,
                                 .seed = o->seed,
                                 .agents = (uint32_t)o->agents,
                                 .allow_outside_paths = o->allow_outside_paths,
                                 .dist = th_app_dist((uint32_t)o->rebalance)};
    th_file_inputs scene_reads = {0}; /* its map image, hazard tables */
    j->so.file_read = th_file_inputs_add;
    j->so.file_read_user = &scene_reads;
    j->w = th_scene_open(o->scene, &j->so, &j->info, &err);
    j->so.file_read = NULL; /* scene_reads ends here: the viewer's restart (R) lists nothing */
    j->so.file_read_user = NULL;
    if (!j->w) {
        th_file_inputs_free(&scene_reads);
        fprintf(stderr, "throng run: %s\n", err.message);
        return TH_EXIT_USAGE;
    }
    if (th_scene_resolve(o->scene, j->scene_file, sizeof j->scene_file))
        j->files[FILE_SCENE].path = j->scene_file;
    if (j->info.map_image[0]) j->files[FILE_MAP].path = j->info.map_image;
    th_error files_err;
    bool files_distinct =
        th_file_check_distinct_with(j->files, FILE_COUNT, &scene_reads, &files_err);
    if (files_distinct && o->results)
        files_distinct =
            th_results_check_files(o->results, j->files, FILE_COUNT, &scene_reads, &files_err);
    if (files_distinct && o->record &&
        !(j->rec = th_record_begin(o->scene, j->files[FILE_SCENE].path, &j->so, j->w, &scene_reads,
                                   &err))) {
        th_file_inputs_free(&scene_reads);
        fprintf(stderr, "throng run: %s\n", err.message);
        return 1;
    }
    th_file_inputs_free(&scene_reads);
    if (!o->has_steps) o->steps = j->info.steps;
    if (!th_app_dist_check(j->w,
                           &(th_app_terms){.steps = o->steps,
                                           .rebalance = o->rebalance,
                                           .fixed_steps = o->fixed_steps,
                                           .validate = o->validate,
                                           .fail_on_stall = o->fail_on_stall,
                                           .json = o->json != NULL,
                                           .trajectories = o->out.traj_path != NULL,
                                           .trajectory_every = o->out.traj_every,
                                           .events = o->events,
                                           .event_bytes = o->event_count * sizeof o->events[0]},
                           &err)) {
        fprintf(stderr, "throng run: %s: %s\n", o->scene, err.message);
        return TH_EXIT_USAGE;
    }
    j->def = th_world_get_def(j->w);
    if (!th_shot_resolve(j->w, &o->shot, &err) ||
        (o->screenshot && !th_shot_check(j->w, &o->shot, NULL, NULL, &err))) {
        fprintf(stderr, "throng run: %s\n", err.message);
        return TH_EXIT_USAGE;
    }
    if (!schedule_events(j->w, o, (double)j->def.timestep, j->rec)) return TH_EXIT_USAGE;
    if (!files_distinct) {
        fprintf(stderr, "throng run: %s\n", files_err.message);
        return TH_EXIT_USAGE;
    }
    printf("scene     %s: %u agents, %u crowd(s), %.0f x %.0f m, %s edges\n", j->info.name,
           th_world_agent_count(j->w), th_world_crowd_count(j->w), (double)j->def.width,
           (double)j->def.height, j->def.bounds == TH_BOUNDS_WRAP ? "wrap-around" : "walled");
    th_report_warnings(stderr, "throng run: warning: ", j->info.warnings, j->info.warning);
    return RUN_ON;
}

/* The viewer or not; the output files opened with the state before the first step; the
 * results gathered; validation on. */
static int open_outputs(run_job *j) {
    run_opts *o = &j->o;
    th_error err = {0};
    /* The viewer steps on its own clock: with output files, samples would be lost. */
    if (th_output_wanted(&o->out) || o->results) o->headless = true;
    j->viewer = false;
    if (!o->headless && !o->screenshot && !o->validate) {
        j->viewer = th_display_available_quiet();
        if (!j->viewer) fprintf(stderr, "throng run: no display: running headless\n");
    }
    /* From here a signal ends the run after the current step, with its files whole: the first
     * samples below may already be in the files. */
    if (!j->viewer) th_interrupt_install();
    if (th_output_wanted(&o->out)) {
        o->out.scene_path = j->files[FILE_SCENE].path;
        if (!th_output_open(&o->out, j->w, j->info.name, &err)) {
            fprintf(stderr, "throng run: %s\n", err.message);
            return TH_EXIT_USAGE;
        }
        if (!th_output_sample(&o->out, j->w, &err)) { /* the state before the first step */
            fprintf(stderr, "throng run: %s\n", err.message);
            return 1;
        }
    }
    if (o->results && !(j->results = th_results_start(j->w, o->results, &err))) {
        fprintf(stderr, "throng run: %s\n", err.message);
        return 1;
    }
    if (o->validate) {
        th_world_set_validation(j->w, true);
        printf("memory    peak RSS %.1f MiB after building the scene\n", peak_rss_mib());
    }
    j->facts = (th_run_facts){.scene = j->info.name,
                              .argument = o->scene,
                              .steps_asked = o->steps,
                              .agents_start = th_world_agent_count(j->w),
                              .warnings = j->info.warnings,
                              .warning = j->info.warning};
    return RUN_ON;
}

/* The viewer steps the world until its window is closed (R restarts the scene). */
static int run_viewer(run_job *j) {
    th_view_opts vo = th_view_default_opts();
    restart_ctx rc_ctx = {j->o.scene, j->so, j->rec};
    vo.title = j->info.name;
    vo.restart = reopen;
    vo.user = &rc_ctx;
    if (j->rec) {
        vo.on_action = record_action;
        vo.before_step = record_step;
    }
    vo.width = j->o.shot.width;
    vo.height = j->o.shot.height;
    vo.overlays = th_shot_overlays(&j->o.shot);
    vo.flow_bunker = j->o.shot.flow_index;
    vo.level = j->o.shot.level;
    int vrc = th_view_run(&j->w, &vo);
    if (vrc != 0) return vrc;
    /* After R the world is the restarted one: report it, and say so through the counts. */
    j->facts.steps_run = th_world_step_count(j->w);
    j->facts.viewer = true;
    j->facts.agents_start = th_world_get_stats(j->w).spawned;
    return RUN_ON;
}

/* Headless: the steps, each sampled into the outputs, until the count, the scene's end or a
 * signal. */
static int run_steps(run_job *j, uint64_t t0) {
    run_opts *o = &j->o;
    th_world *w = j->w;
    th_error err = {0};
    uint64_t steps_run = 0;
    int rc = RUN_ON;
    th_progress pr;
    th_progress_start(&pr, o->progress, o->steps, t0);
    for (; steps_run < o->steps; steps_run++) {
        if (th_app_stop(th_interrupted(), steps_run)) break;
        th_record_step(j->rec, w);
        th_world_step(w);
        if (steps_run == 0) th_warn_density(w);
        th_error step_err;
        if (th_world_step_error(w, &step_err)) { /* work a step could not do: no silent loss */
            th_progress_end(&pr);
            fprintf(stderr, "throng run: %s\n", step_err.message);
            if (th_app_ranks() > 1) th_app_abort(step_err.message);
            return 1;
        }
        const char *broken = o->validate ? th_world_validation_error(w) : NULL;
        if (broken) {
            th_progress_end(&pr);
            fprintf(stderr, "throng run: invariant broken: %s\n", broken);
            return 1;
        }
        if (j->results && !th_results_step(j->results, w, &err)) {
            th_progress_end(&pr);
            fprintf(stderr, "throng run: %s\n", err.message);
            return 1;
        }
        if (!th_output_sample(&o->out, w, &err)) {
            /* Under mpirun the other ranks would wait for this one forever. */
            if (th_app_ranks() > 1) th_app_abort(err.message);
            break;
        }
        th_progress_step(&pr, w, steps_run + 1);
        if (!o->fixed_steps && th_world_scene_over(w)) { /* the steps are a limit */
            steps_run++;
            j->facts.scene_over = true;
            break;
        }
    }
    th_progress_end(&pr);
    /* Under mpirun a rank that stopped short was stopped by another's interrupt, unless the
     * scene was over (on every rank at once: its counts are summed). */
    j->facts.interrupted =
        th_interrupted() || (th_app_ranks() > 1 && steps_run < o->steps && !j->facts.scene_over);
    j->facts.steps_run = steps_run;
    return rc;
}

/* The files closed and written, the report printed. */
static int finish(run_job *j) {
    run_opts *o = &j->o;
    th_world *w = j->w;
    th_error err = {0};
    if (!th_output_close(&o->out, &err)) {
        if (th_app_ranks() > 1) th_app_abort(err.message);
        fprintf(stderr, "throng run: %s\n", err.message);
        return 1;
    }
    if (j->rec) {
        if (!th_record_write(j->rec, w, o->record, &err)) {
            fprintf(stderr, "throng run: %s\n", err.message);
            return 1;
        }
        printf("record    %s (replay it with: throng replay %s)\n", o->record, o->record);
    }
    if (o->screenshot && !j->facts.interrupted) {
        if (!th_shot_write(w, j->info.name, &o->shot, o->screenshot, &err)) {
            fprintf(stderr, "throng run: --screenshot: %s\n", err.message);
            return 1;
        }
        printf("screenshot %s\n", o->screenshot);
    }
    if (o->validate) {
        printf("memory    peak RSS %.1f MiB at the end; every invariant held for %" PRIu64
               " steps\n",
               peak_rss_mib(), j->facts.steps_run);
    }
    th_report_print(stdout, w, &j->facts);
    if (th_world_get_stats(w).buried) { /* agents the scene's events removed: never silent */
        fprintf(stderr,
                "throng run: warning: %u agent(s) were walled in by block events with no open "
                "cell to reach, and were removed\n",
                th_world_get_stats(w).buried);
    }
    if (o->json) {
        /* Every rank takes part in the collective calls; rank 0 writes the file. */
        if (!th_report_write_json(th_app_rank() == 0 ? o->json : "/dev/null", w, &j->facts, &err)) {
            if (th_app_ranks() > 1) th_app_abort(err.message);
            fprintf(stderr, "throng run: %s\n", err.message);
            return 1;
        }
        printf("json      %s\n", o->json);
    }
    if (j->results) {
        bool wrote = th_results_write(j->results, w, &j->facts, j->def.seed, j->def.threads, &err);
        th_results_free(j->results);
        j->results = NULL;
        if (!wrote) {
            fprintf(stderr, "throng run: %s\n", err.message);
            return 1;
        }
        const size_t len = strlen(o->results);
        printf("results   %s%sindex.html\n", o->results,
               len && o->results[len - 1] == '/' ? "" : "/");
    }
    return RUN_ON;
}

/* The exit code of a run that went to its end: 128 + the signal that stopped it (as a shell
 * reports a process the signal ended), 1 for agents stalled at the end under --fail-on-stall
 * or --validate, else 0. */
static int exit_code(const run_job *j, const th_stall_info *stall) {
    if (j->facts.interrupted)
        return th_interrupt_signal() == SIGINT ? TH_EXIT_INTERRUPTED : 128 + th_interrupt_signal();
    if ((j->o.fail_on_stall || j->o.validate) && stall->stalled > 0) {
        fprintf(stderr,
                "throng run: %u agent(s) stalled at the end of the run: no progress toward "
                "their goal for %.0f s or more (longest %.1f s), within [%.2f, %.2f] x "
                "[%.2f, %.2f] m (%s)\n",
                stall->stalled, (double)stall->stall_time, (double)stall->longest,
                (double)stall->x0, (double)stall->x1, (double)stall->y0, (double)stall->y1,
                j->o.validate ? "--validate" : "--fail-on-stall");
        return 1;
    }
    return 0;
}

int th_cmd_run(int argc, char **argv) {
    run_job j = {.o = {.scene = NULL, .out = {.measure_every = 1, .traj_every = 1}}};
    th_shot_defaults(&j.o.shot);
    int rc = parse(argc, argv, &j.o);
    if (rc >= 0) return rc;
    if (!j.o.scene) j.o.scene = th_default_scene;
    /* A reader of stdout that goes away makes writes to it fail, not the run end unfinished. */
    signal(SIGPIPE, SIG_IGN);
    if ((rc = check_outputs(&j)) != RUN_ON) return rc;
    /* --threads 0 is every core, as `threads: 0` in a scene; without the flag the scene's. */
    uint32_t threads = (uint32_t)j.o.threads;
    if (j.o.has_threads && threads == 0) threads = th_arg_cores();
    if ((rc = check_ranks(&j.o)) != RUN_ON) return rc;

    rc = open_world(&j, threads);
    if (rc == RUN_ON) rc = open_outputs(&j);
    if (rc == RUN_ON) {
        const uint64_t t0 = th_now_ns();
        rc = j.viewer ? run_viewer(&j) : run_steps(&j, t0);
        j.facts.wall_s = (double)(th_now_ns() - t0) * 1e-9;
    }
    if (rc == RUN_ON) rc = finish(&j);
    th_output_close(&j.o.out, NULL);
    th_results_free(j.results);
    th_record_free(j.rec);
    th_stall_info stall = {0};
    if (rc == RUN_ON) th_world_get_stall_info(j.w, &stall);
    th_world_destroy(j.w);
    return rc == RUN_ON ? exit_code(&j, &stall) : rc;
}
