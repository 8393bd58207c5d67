/* `throng run`: run a scene, in the viewer when a display is there, and print a summary. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "../engine/profile.h"
#include "../render/viewer.h"
#include "../sim/throng.h"
#include "app.h"
#include "args.h"
#include "output.h"

static const char k_run_help[] =
    "usage: throng run [SCENE] [options]\n"
    "\n"
    "Run SCENE and print a summary: agents, steps, wall time, throughput in agent-steps/s,\n"
    "milliseconds per step in each phase, and the final state hash.\n"
    "\n"
    "SCENE is a scene file, the name of one in scenes/ (air_raid, flock, maze_evac, rubble),\n"
    "or a built-in demo (evac, pedestrians). Default: air_raid.\n"
    "\n"
    "options:\n"
    "  --steps N     steps to simulate (default: the scene's `steps`; 0 only builds it)\n"
    "  --threads T   worker threads, 1..64 (default: the scene's, else the number of cores)\n"
    "  --seed S      random seed keying every random draw (default: the scene's)\n"
    "  --agents N    scale the scene's randomly spawned crowds to N agents in all\n"
    "  --headless    never open the viewer (it opens when a display is available)\n"
    "  --allow-outside-paths\n"
    "                let the scene read files outside its own folder (map.image: absolute\n"
    "                paths, '..', symbolic links); refused by default\n"
    "  --screenshot FILE\n"
    "                after the steps, render one frame to FILE (PNG), no display needed\n"
    "  --validate    check the invariants inside every step; stop at the first violation\n"
    "                (exit 1) and report peak memory at the start and the end\n"
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
    "                (output files are opened before the run; any of them means --headless)\n"
    "  --destroy-bunker NAME@STEP\n"
    "                destroy bunker NAME before step STEP (repeatable)\n"
    "  --restore-bunker NAME@STEP\n"
    "                restore bunker NAME before step STEP (repeatable)\n"
    "  -h, --help    show this help\n";

#define MAX_SCHEDULED 64

/* A bunker event the command line schedules before a given step. */
typedef struct scheduled {
    char bunker[64];
    uint64_t step;
    bool destroy;
} scheduled;

typedef struct run_opts {
    const char *scene;
    uint64_t steps, threads, seed, agents;
    bool has_steps, has_seed, headless, validate, allow_outside_paths;
    const char *screenshot;
    scheduled events[MAX_SCHEDULED];
    uint32_t event_count;
    th_output out; /* --measure, --trajectories */
} run_opts;

/* Parse NAME@STEP into the schedule. */
static bool parse_event(const char *flag, const char *text, bool destroy, run_opts *o) {
    const char *at = strrchr(text, '@');
    if (!at || at == text || (size_t)(at - text) >= sizeof o->events[0].bunker) {
        fprintf(stderr, "throng run: %s: expected NAME@STEP, got '%s'\n", flag, text);
        return false;
    }
    if (o->event_count == MAX_SCHEDULED) {
        fprintf(stderr, "throng run: at most %d scheduled bunker events\n", MAX_SCHEDULED);
        return false;
    }
    scheduled *e = &o->events[o->event_count];
    if (!th_arg_u64(flag, at + 1, 0, 1000000000ull, &e->step)) return false;
    memcpy(e->bunker, text, (size_t)(at - text));
    e->bunker[at - text] = '\0';
    e->destroy = destroy;
    o->event_count++;
    return true;
}

static int parse(int argc, char **argv, run_opts *o) {
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *v;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(k_run_help, stdout);
            return 0;
        } else if (strcmp(a, "--headless") == 0) {
            o->headless = true;
        } else if (strcmp(a, "--validate") == 0) {
            o->validate = true;
        } else if (strcmp(a, "--allow-outside-paths") == 0) {
            o->allow_outside_paths = true;
        } else if (strcmp(a, "--screenshot") == 0) {
            if (!(o->screenshot = th_arg_value(argc, argv, &i))) return TH_EXIT_USAGE;
        } else if (strcmp(a, "--steps") == 0) {
            if (!(v = th_arg_value(argc, argv, &i)) ||
                !th_arg_u64(a, v, 0, 1000000000ull, &o->steps))
                return TH_EXIT_USAGE;
            o->has_steps = true;
        } else if (strcmp(a, "--threads") == 0) {
            if (!(v = th_arg_value(argc, argv, &i)) || !th_arg_u64(a, v, 1, TH_MAX_THREADS, &o->threads))
                return TH_EXIT_USAGE;
        } else if (strcmp(a, "--seed") == 0) {
            if (!(v = th_arg_value(argc, argv, &i)) || !th_arg_u64(a, v, 0, UINT64_MAX, &o->seed))
                return TH_EXIT_USAGE;
            o->has_seed = true;
        } else if (strcmp(a, "--agents") == 0) {
            if (!(v = th_arg_value(argc, argv, &i)) || !th_arg_u64(a, v, 1, TH_MAX_AGENTS, &o->agents))
                return TH_EXIT_USAGE;
        } else if (strcmp(a, "--measure") == 0) {
            if (!(o->out.measure_path = th_arg_value(argc, argv, &i))) return TH_EXIT_USAGE;
        } else if (strcmp(a, "--trajectories") == 0) {
            if (!(o->out.traj_path = th_arg_value(argc, argv, &i))) return TH_EXIT_USAGE;
        } else if (strcmp(a, "--measure-every") == 0 || strcmp(a, "--trajectory-every") == 0) {
            uint64_t *every = a[2] == 'm' ? &o->out.measure_every : &o->out.traj_every;
            if (!(v = th_arg_value(argc, argv, &i)) || !th_arg_u64(a, v, 1, 1000000000ull, every))
                return TH_EXIT_USAGE;
        } else if (strcmp(a, "--trajectory-format") == 0) {
            if (!(v = th_arg_value(argc, argv, &i)) || !th_output_parse_format(v, &o->out.traj_format))
                return TH_EXIT_USAGE;
        } else if (strcmp(a, "--destroy-bunker") == 0 || strcmp(a, "--restore-bunker") == 0) {
            if (!(v = th_arg_value(argc, argv, &i)) ||
                !parse_event(a, v, strcmp(a, "--destroy-bunker") == 0, o))
                return TH_EXIT_USAGE;
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

/* The viewer's R key rebuilds the scene as the command line opened it. */
typedef struct restart_ctx {
    const char *scene;
    th_scene_open_opts opts;
} restart_ctx;

static th_world *reopen(void *user) {
    const restart_ctx *r = user;
    th_error err;
    th_world *w = th_scene_open(r->scene, &r->opts, NULL, &err);
    if (!w) fprintf(stderr, "throng run: restart: %s\n", err.message);
    return w;
}

int th_cmd_run(int argc, char **argv) {
    run_opts o = {.scene = NULL, .out = {.measure_every = 1, .traj_every = 1}};
    int rc = parse(argc, argv, &o);
    if (rc >= 0) return rc;
    if (!o.scene) o.scene = th_default_scene;

    th_error err = {{0}};
    th_scene_info info;
    th_scene_open_opts so = {.threads = (uint32_t)o.threads, .has_seed = o.has_seed,
                             .seed = o.seed, .agents = (uint32_t)o.agents,
                             .allow_outside_paths = o.allow_outside_paths};
    th_world *w = th_scene_open(o.scene, &so, &info, &err);
    if (!w) {
        fprintf(stderr, "throng run: %s\n", err.message);
        return TH_EXIT_USAGE;
    }
    if (!o.has_steps) o.steps = info.steps;
    for (uint32_t e = 0; e < o.event_count; e++) {
        int b = th_world_find_bunker(w, o.events[e].bunker);
        th_event_def ev = {.type = o.events[e].destroy ? TH_EVENT_DESTROY_BUNKER
                                                       : TH_EVENT_RESTORE_BUNKER,
                           .bunker = (uint32_t)b};
        if (b < 0 || !th_world_schedule(w, o.events[e].step, &ev, &err)) {
            fprintf(stderr, "throng run: scene '%s' has no bunker '%s'\n", o.scene,
                    o.events[e].bunker);
            th_world_destroy(w);
            return TH_EXIT_USAGE;
        }
    }
    th_world_def def = th_world_get_def(w);
    printf("scene     %s: %u agents, %u crowd(s), %.0f x %.0f m, %s edges\n", info.name,
           th_world_agent_count(w), th_world_crowd_count(w), (double)def.width,
           (double)def.height, def.bounds == TH_BOUNDS_WRAP ? "wrap-around" : "walled");
    printf("run       %" PRIu64 " steps of %.4f s, %u thread(s), seed %" PRIu64 "\n", o.steps,
           (double)def.timestep, def.threads, def.seed);

    if (th_output_wanted(&o.out)) {
        o.headless = true; /* the viewer steps on its own clock: samples would be lost */
        char scene_path[4096];
        if (th_scene_resolve(o.scene, scene_path, sizeof scene_path)) o.out.scene_path = scene_path;
        if (!th_output_open(&o.out, w, info.name, &err)) {
            fprintf(stderr, "throng run: %s\n", err.message);
            th_world_destroy(w);
            return TH_EXIT_USAGE;
        }
        if (!th_output_sample(&o.out, w, &err)) { /* the state before the first step */
            fprintf(stderr, "throng run: %s\n", err.message);
            th_output_close(&o.out, NULL);
            th_world_destroy(w);
            return 1;
        }
    }
    if (o.validate) {
        th_world_set_validation(w, true);
        printf("memory    peak RSS %.1f MiB after building the scene\n", peak_rss_mib());
    }
    uint64_t t0 = th_now_ns(), steps_run = 0;
    if (!o.headless && !o.screenshot && !o.validate && th_view_display_available()) {
        th_view_opts vo = th_view_default_opts();
        restart_ctx rc_ctx = {o.scene, so};
        vo.title = info.name;
        vo.restart = reopen;
        vo.user = &rc_ctx;
        int vrc = th_view_run(&w, &vo);
        if (vrc != 0) {
            th_world_destroy(w);
            return vrc;
        }
        steps_run = th_world_step_count(w);
    } else {
        for (; steps_run < o.steps; steps_run++) {
            th_world_step(w);
            const char *broken = o.validate ? th_world_validation_error(w) : NULL;
            if (broken) {
                fprintf(stderr, "throng run: invariant broken: %s\n", broken);
                th_output_close(&o.out, NULL);
                th_world_destroy(w);
                return 1;
            }
            if (!th_output_sample(&o.out, w, &err)) break;
        }
    }
    o.steps = steps_run;
    if (!th_output_close(&o.out, &err)) {
        fprintf(stderr, "throng run: %s\n", err.message);
        th_world_destroy(w);
        return 1;
    }
    double secs = (double)(th_now_ns() - t0) * 1e-9;
    if (o.screenshot) {
        th_view_opts vo = th_view_default_opts();
        if (!th_view_screenshot(w, &vo, o.screenshot, vo.overlays, &err)) {
            fprintf(stderr, "throng run: %s\n", err.message);
            th_world_destroy(w);
            return 1;
        }
        printf("screenshot %s\n", o.screenshot);
    }
    if (o.validate) {
        printf("memory    peak RSS %.1f MiB at the end; every invariant held for %" PRIu64
               " steps\n", peak_rss_mib(), o.steps);
    }

    th_world_stats st = th_world_get_stats(w);
    /* Agents that sheltered part-way count for the steps they were simulated; the figure uses
     * the mean of the counts at start and end, an honest bound for a steadily falling crowd. */
    double agent_steps = 0.5 * ((double)st.spawned + (double)st.agents) * (double)o.steps;
    printf("wall      %.3f s\n", secs);
    printf("speed     %.0f agent-steps/s\n", secs > 0.0 ? agent_steps / secs : 0.0);
    printf("neighbors %.1f per agent seen, %.1f inspected\n", st.mean_neighbors,
           st.mean_candidates);
    if (th_world_bunker_count(w) > 0) {
        printf("agents    %u alive, %u sheltered, %u stranded of %u spawned\n", st.agents,
               st.sheltered, st.stranded, st.spawned);
        printf("sheltered %u\nstranded  %u\n", st.sheltered, st.stranded);
        for (uint32_t b = 0; b < th_world_bunker_count(w); b++) {
            th_bunker_info bi;
            th_world_get_bunker(w, b, &bi);
            printf("bunker    %-12s %6u sheltered%s%s\n", bi.name, bi.sheltered,
                   bi.destroyed ? ", destroyed" : "", bi.full ? ", full" : "");
        }
    }
    if (st.buried) { /* agents the scene's events removed: never silent */
        printf("buried    %u\n", st.buried);
        fprintf(stderr,
                "throng run: warning: %u agent(s) were walled in by block events with no open "
                "cell to reach, and were removed\n",
                st.buried);
    }
    printf("phases    ms/step:");
    for (int p = 0; p < TH_PHASE_COUNT; p++) {
        printf(" %s %.3f", th_phase_name((th_phase)p), th_world_phase_ms(w, (th_phase)p));
    }
    printf("\nhash 0x%016" PRIx64 "\n", th_world_hash(w));
    th_world_destroy(w);
    return 0;
}
