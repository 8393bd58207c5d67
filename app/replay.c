/* `throng replay FILE`: a recorded run (`throng run --record FILE`) run again, in the viewer with
 * a time slider, or headless to check it and report. */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "throng/clock.h"
#include "throng/viewer.h"
#include "app.h"
#include "args.h"
#include "progress.h"
#include "ranks.h"
#include "record.h"
#include "report.h"
#include "shot.h"

static const char k_replay_help[] =
    "usage: throng replay FILE [options]\n"
    "\n"
    "Run again a run recorded with `throng run SCENE --record FILE`: the same scene (its file\n"
    "and the files it reads must be as they were), seed and agent count, with each bunker\n"
    "destroyed or restored and each wall broken by hand in the viewer applied at the step it\n"
    "was. The state hash is checked against the recording's every simulated second and at\n"
    "the end: a replay that leaves the recorded run (another build, an edited scene) stops\n"
    "with exit code 1, naming the step.\n"
    "\n"
    "In the viewer (when a display is there) the run plays with a time slider under the\n"
    "map: click or drag on it to go to any time, Left / Right for 5 s back or on, Shift+Left\n"
    "/ Shift+Right one step, R to the start; playback pauses at the end. Going back runs the\n"
    "scene again from the start. Headless, it runs to the end (or --steps) and prints\n"
    "`throng run`'s report.\n"
    "\n"
    "options:\n"
    "  --steps N     stop after N steps (headless), or open the viewer at step N\n"
    "  --threads T   worker threads, 1..64, or 0 for every core (default: the recorded\n"
    "                run's); the run is the same for any number\n"
    "  --headless    never open the viewer\n"
    "  --screenshot FILE\n"
    "                after the steps, render one frame to FILE (PNG); means --headless\n"
    "  --overlays LIST, --size WxH, --level NAME, --no-hud\n"
    "                as for `throng run`: the screenshot's or the viewer's\n"
    "  -h, --help    show this help\n"
    "\n"
    "Exit codes: 0 the replay is the recorded run, 1 it is not (or a runtime failure), 2\n"
    "usage error or a file that is not a recording, 130 interrupted.\n";

typedef struct replay_opts {
    const char *file, *screenshot;
    uint64_t steps, threads;
    bool has_steps, has_threads, headless;
    th_shot_opts shot;
} replay_opts;

static int parse(int argc, char **argv, replay_opts *o) {
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        int m;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(k_replay_help, stdout);
            return 0;
        } else if ((m = th_arg_flag("throng replay", argc, argv, &i, "--headless", false, &v))) {
            if (m < 0) return TH_EXIT_USAGE;
            o->headless = true;
        } else if ((m = th_arg_flag("throng replay", argc, argv, &i, "--no-hud", false, &v))) {
            if (m < 0) return TH_EXIT_USAGE;
            o->shot.no_hud = true;
        } else if ((m = th_arg_flag("throng replay", argc, argv, &i, "--steps", true, &v))) {
            if (m < 0 || !th_arg_u64("--steps", v, 0, 1000000000ull, &o->steps))
                return TH_EXIT_USAGE;
            o->has_steps = true;
        } else if ((m = th_arg_flag("throng replay", argc, argv, &i, "--threads", true, &v))) {
            if (m < 0 || !th_arg_u64("--threads", v, 0, TH_MAX_THREADS, &o->threads))
                return TH_EXIT_USAGE;
            o->has_threads = true;
        } else if ((m = th_arg_flag("throng replay", argc, argv, &i, "--screenshot", true, &v))) {
            if (m < 0) return TH_EXIT_USAGE;
            o->screenshot = v;
        } else if ((m = th_arg_flag("throng replay", argc, argv, &i, "--overlays", true, &v))) {
            if (m < 0 || !th_shot_parse_overlays("--overlays", v, &o->shot)) return TH_EXIT_USAGE;
        } else if ((m = th_arg_flag("throng replay", argc, argv, &i, "--size", true, &v))) {
            if (m < 0 || !th_shot_parse_size("throng replay", "--size", v, &o->shot))
                return TH_EXIT_USAGE;
        } else if ((m = th_arg_flag("throng replay", argc, argv, &i, "--level", true, &v))) {
            if (m < 0) return TH_EXIT_USAGE;
            o->shot.level_name = v;
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "throng replay: unknown option '%s' (see 'throng replay --help')\n", a);
            return TH_EXIT_USAGE;
        } else if (o->file) {
            fprintf(stderr, "throng replay: one recording at a time, got '%s' and '%s'\n", o->file,
                    a);
            return TH_EXIT_USAGE;
        } else {
            o->file = a;
        }
    }
    if (!o->file) {
        fprintf(stderr, "throng replay: expected a recording (throng run SCENE --record FILE), "
                        "found none (see 'throng replay --help')\n");
        return TH_EXIT_USAGE;
    }
    return -1;
}

/* What the viewer's callbacks share: the recording, how to open its world, and the first
 * departure from it (said once). */
typedef struct replayer {
    const th_recording *rec;
    uint32_t threads;
    bool left; /* the replay has left the recorded run */
} replayer;

/* Before each step: the recorded changes, and the check. */
static void before_step(void *user, th_world *w) {
    replayer *p = user;
    th_error err = {0};
    if (!th_record_before_step(p->rec, w, &err) && !p->left) {
        fprintf(stderr, "throng replay: %s\n", err.message);
        p->left = true;
    }
}

/* The viewer's seek: on from here, or again from the start for a step behind. */
static bool seek(void *user, th_world **world, uint64_t step) {
    replayer *p = user;
    if (step < th_world_step_count(*world)) {
        th_error err = {0};
        th_world *fresh = th_record_open(p->rec, p->threads, NULL, &err);
        if (!fresh) {
            fprintf(stderr, "throng replay: %s\n", err.message);
            return false;
        }
        th_world_destroy(*world);
        *world = fresh;
    }
    while (th_world_step_count(*world) < step) {
        before_step(p, *world);
        th_world_step(*world);
    }
    return true;
}

/* The outcome line, and the exit code: 0 as recorded, 1 not. */
static int verdict(const th_recording *rec, const th_world *w, const replayer *p,
                   const th_run_facts *f) {
    const uint64_t at = th_world_step_count(w), last = th_record_last_step(rec);
    th_error err = {0};
    if (!p->left && at == last && !th_record_check_end(rec, w, &err)) {
        fprintf(stderr, "throng replay: %s\n", err.message);
        printf("replay    left the recorded run at its end\n");
        return 1;
    }
    if (p->left) {
        printf("replay    left the recorded run (the first difference is on stderr)\n");
        return 1;
    }
    if (at == last)
        printf("replay    %" PRIu64 " steps, state hash %016" PRIx64 " as recorded (%u checks)\n",
               at, th_world_hash(w), th_record_check_count(rec));
    else
        printf("replay    %" PRIu64 " of the recording's %" PRIu64
               " steps, as recorded up to here\n",
               at, last);
    if (f->interrupted) return th_interrupt_signal() == SIGINT ? 130 : 128 + th_interrupt_signal();
    return 0;
}

static int replay_viewer(th_world **w, const replay_opts *o, replayer *p, const char *title,
                         uint64_t last) {
    th_view_timeline tl = {.last_step = last, .seek = seek};
    th_view_opts vo = th_view_default_opts();
    vo.title = title;
    vo.user = p;
    vo.before_step = before_step;
    vo.timeline = &tl;
    vo.start_paused = true; /* Space plays: a presenter starts when ready */
    vo.width = o->shot.width;
    vo.height = o->shot.height;
    vo.overlays = th_shot_overlays(&o->shot);
    vo.level = o->shot.level;
    return th_view_run(w, &vo);
}

int th_cmd_replay(int argc, char **argv) {
    replay_opts o = {0};
    th_shot_defaults(&o.shot);
    int rc = parse(argc, argv, &o);
    if (rc >= 0) return rc;
    signal(SIGPIPE, SIG_IGN);
    if (th_app_ranks() > 1) {
        fprintf(stderr, "throng replay: runs in one process (run it without mpirun)\n");
        return TH_EXIT_USAGE;
    }
    th_error err = {0};
    th_file_use files[2] = {
        {.name = "FILE", .path = o.file, .note = "the recording"},
        {.name = "--screenshot", .path = o.screenshot, .output = true, .regular = true}};
    if (o.screenshot &&
        (!th_file_check_writable(&files[1], &err) || !th_file_check_distinct(files, 2, &err))) {
        fprintf(stderr, "throng replay: %s\n", err.message);
        return TH_EXIT_USAGE;
    }
    th_recording *rec = th_record_read(o.file, &err);
    if (!rec) {
        fprintf(stderr, "throng replay: %s\n", err.message);
        return TH_EXIT_USAGE;
    }
    const uint64_t last = th_record_last_step(rec);
    if (o.has_steps && o.steps > last) {
        fprintf(stderr,
                "throng replay: --steps: expected at most the recording's %" PRIu64
                " steps, got %" PRIu64 "\n",
                last, o.steps);
        th_record_free(rec);
        return TH_EXIT_USAGE;
    }
    uint32_t threads = (uint32_t)o.threads;
    if (o.has_threads && threads == 0) threads = th_arg_cores();
    th_scene_info info;
    th_world *w = th_record_open(rec, threads, &info, &err);
    if (!w) {
        fprintf(stderr, "throng replay: %s: %s\n", o.file, err.message);
        th_record_free(rec);
        return 1;
    }
    if (!th_shot_resolve(w, &o.shot, &err)) {
        fprintf(stderr, "throng replay: %s\n", err.message);
        th_world_destroy(w);
        th_record_free(rec);
        return TH_EXIT_USAGE;
    }
    const th_world_def d = th_world_get_def(w);
    printf("replay    %s: scene %s, %" PRIu64 " steps (%.1f s), %u change(s) made by hand\n",
           o.file, th_record_scene(rec), last, (double)last * d.timestep,
           th_record_action_count(rec));
    const uint64_t target = o.has_steps ? o.steps : last;
    bool viewer = false;
    if (!o.headless && !o.screenshot) {
        viewer = th_display_available_quiet();
        if (!viewer) fprintf(stderr, "throng replay: no display: running headless\n");
    }
    replayer p = {.rec = rec, .threads = threads};
    th_run_facts facts = {.scene = info.name,
                          .argument = o.file,
                          .steps_asked = target,
                          .agents_start = th_world_agent_count(w),
                          .warnings = info.warnings,
                          .warning = info.warning};
    const uint64_t t0 = th_now_ns();
    rc = -1;
    if (viewer) {
        if (o.has_steps) seek(&p, &w, target);
        rc = replay_viewer(&w, &o, &p, info.name, last);
        facts.viewer = true;
        facts.agents_start = th_world_get_stats(w).spawned;
        if (rc == 0) rc = -1;
    } else {
        th_interrupt_install();
        while (th_world_step_count(w) < target && !p.left) {
            if (th_interrupted()) {
                facts.interrupted = true;
                break;
            }
            before_step(&p, w);
            if (p.left) break;
            th_world_step(w);
        }
    }
    facts.wall_s = (double)(th_now_ns() - t0) * 1e-9;
    facts.steps_run = th_world_step_count(w);
    if (rc < 0 && o.screenshot && !facts.interrupted) {
        if (!th_shot_write(w, info.name, &o.shot, o.screenshot, &err)) {
            fprintf(stderr, "throng replay: --screenshot: %s\n", err.message);
            rc = 1;
        } else {
            printf("screenshot %s\n", o.screenshot);
        }
    }
    if (rc < 0) {
        th_report_print(stdout, w, &facts);
        rc = verdict(rec, w, &p, &facts);
    }
    th_world_destroy(w);
    th_record_free(rec);
    return rc;
}
