/* Output files of `throng run`: the measurement table (--measure) and agent trajectories
 * (--trajectories). The formats are documented in docs/measurement.md.
 *
 * Floats are printed with %.9g: nine significant digits are enough for every float to read
 * back to the same bits (FLT_DECIMAL_DIG), so a trajectory file holds exactly the positions
 * and velocities the engine had, and tests can compare them bit for bit. */
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ranks.h"
#include "throng/throng.h"

/* Every failure here is an output file that cannot be written. */
static void set_err(th_error *err, const char *fmt, const char *a, const char *b) {
    if (!err) return;
    *err = (th_error){.code = TH_ERR_IO};
    snprintf(err->message, sizeof err->message, fmt, a, b);
}

bool th_output_parse_format(const char *text, th_traj_format *out) {
    if (strcmp(text, "csv") == 0) *out = TH_TRAJ_CSV;
    else if (strcmp(text, "pedpy") == 0) *out = TH_TRAJ_PEDPY;
    else {
        fprintf(stderr, "throng: --trajectory-format: expected csv or pedpy, got '%s'\n", text);
        return false;
    }
    return true;
}

bool th_output_wanted(const th_output *o) { return o->measure_path || o->traj_path; }

static th_traj_format resolve_format(const th_output *o) {
    if (o->traj_format != TH_TRAJ_AUTO) return o->traj_format;
    size_t n = strlen(o->traj_path);
    return n >= 4 && strcmp(o->traj_path + n - 4, ".txt") == 0 ? TH_TRAJ_PEDPY : TH_TRAJ_CSV;
}

/* A double as the table writes it: %.9g, and "nan" for an empty area's speed (printf may
 * write "-nan", which some readers refuse). */
static void put_num(FILE *f, double v) {
    if (isnan(v)) fputs(",nan", f);
    else fprintf(f, ",%.9g", v);
}

static void measure_header(FILE *f, const th_world *w) {
    fputs("step,time", f);
    for (uint32_t i = 0; i < th_world_measure_area_count(w); i++) {
        th_measure_area_info a;
        th_world_get_measure_area(w, (th_measure_area_id){i + 1}, &a);
        fprintf(f, ",%s_count,%s_density,%s_speed", a.name, a.name, a.name);
        if (a.lanes.axis != TH_LANE_OFF)
            fprintf(f, ",%s_lanes,%s_lanes_forward,%s_lanes_backward", a.name, a.name, a.name);
    }
    for (uint32_t i = 0; i < th_world_measure_line_count(w); i++) {
        th_measure_line_info l;
        th_world_get_measure_line(w, (th_measure_line_id){i + 1}, &l);
        fprintf(f, ",%s_crossed,%s_flow", l.name, l.name);
    }
    fputc('\n', f);
}

static double time_of(const th_world *w, uint64_t step) {
    return (double)step * (double)th_world_get_def(w).timestep;
}

static void measure_row(FILE *f, const th_world *w) {
    uint64_t step = th_world_step_count(w);
    fprintf(f, "%" PRIu64 ",%.9g", step, time_of(w, step));
    for (uint32_t i = 0; i < th_world_measure_area_count(w); i++) {
        th_measure_area_info a;
        th_world_get_measure_area(w, (th_measure_area_id){i + 1}, &a);
        fprintf(f, ",%u", a.count);
        put_num(f, a.density);
        put_num(f, a.mean_speed);
        if (a.lanes.axis != TH_LANE_OFF) {
            put_num(f, a.lane_order);
            fprintf(f, ",%u,%u", a.lane_forward, a.lane_backward);
        }
    }
    for (uint32_t i = 0; i < th_world_measure_line_count(w); i++) {
        th_measure_line_info l;
        th_world_get_measure_line(w, (th_measure_line_id){i + 1}, &l);
        fprintf(f, ",%" PRId64, l.crossed_total);
        put_num(f, l.flow);
    }
    fputc('\n', f);
}

/* An agent's number in the files: index1 - 1 + 2^24 (generation - 1). Slots are below
 * TH_MAX_AGENTS = 2^24, so every agent of a run has its own number (a slot's later agents get
 * new ones, as PedPy wants one person per id), and an agent in a slot used for the first time,
 * every agent of a run where none leaves, is numbered by its slot: 0, 1, ... in order of
 * creation. */
static uint64_t traj_number(th_agent_id id) {
    return (uint64_t)(id.index1 - 1) + (uint64_t)(id.generation - 1) * TH_MAX_AGENTS;
}

/* Agents in id slot order: the file is the same whatever order the engine keeps them in. */
static bool traj_rows(th_output *o, const th_world *w) {
    FILE *f = o->traj;
    uint64_t step = th_world_step_count(w);
    double t = time_of(w, step);
    bool pedpy = resolve_format(o) == TH_TRAJ_PEDPY;
    uint64_t frame = step / o->traj_every;
    /* Under mpirun: every rank's agents, on rank 0 (the others write to /dev/null). */
    th_agent_view v = th_world_agents(w);
    if (!th_app_gather_agents(&v)) return false;
    uint32_t slots = th_world_id_slots(w);
    if (slots > o->by_slot_cap) {
        uint32_t *p = realloc(o->by_slot, (size_t)slots * sizeof *p);
        if (!p) return false;
        o->by_slot = p;
        o->by_slot_cap = slots;
    }
    for (uint32_t s = 0; s < slots; s++) o->by_slot[s] = UINT32_MAX;
    for (uint32_t k = 0; k < v.count; k++) o->by_slot[v.id[k].index1 - 1] = k;
    for (uint32_t s = 0; s < slots; s++) {
        const uint32_t k = o->by_slot[s];
        if (k == UINT32_MAX) continue;
        const uint64_t id = traj_number(v.id[k]);
        if (pedpy) {
            fprintf(f, "%" PRIu64 " %" PRIu64 " %.9g %.9g 0\n", id, frame, (double)v.px[k],
                    (double)v.py[k]);
        } else {
            fprintf(f, "%" PRIu64 ",%.9g,%" PRIu64 ",%u,%.9g,%.9g,%.9g,%.9g\n", step, t, id,
                    v.crowd[k], (double)v.px[k], (double)v.py[k], (double)v.vx[k], (double)v.vy[k]);
        }
    }
    return true;
}

/* PedPy's load_trajectory_from_txt reads the leading '#' lines for the frame rate (the first
 * number on a line containing "framerate") and the unit ("x/m" means metres), then the
 * columns id, frame, x, y (z is ignored). Frames are numbered by sample, so consecutive frames
 * are 1 / framerate seconds apart, as PedPy assumes. */
static void traj_header(const th_output *o, const th_world *w, const char *scene) {
    FILE *f = o->traj;
    th_world_def d = th_world_get_def(w);
    if (resolve_format(o) == TH_TRAJ_PEDPY) {
        /* The frame rate first: PedPy takes the first number of the first line naming it. */
        fprintf(f, "# framerate: %.9g\n", 1.0 / ((double)d.timestep * (double)o->traj_every));
        fprintf(f,
                "# throng trajectories of scene %s, seed %" PRIu64 ", one frame every %" PRIu64
                " step(s) of %.9g s\n",
                scene, d.seed, o->traj_every, (double)d.timestep);
        fputs("# unit: metres\n# id frame x/m y/m z/m\n", f);
    } else {
        fputs("step,time,id,crowd,x,y,vx,vy\n", f);
    }
}

static void append_errno(th_error *err, int e) {
    if (!err) return;
    size_t n = strlen(err->message);
    snprintf(err->message + n, sizeof err->message - n, ": %s", strerror(e));
}

/* An output file: created or replaced, a device (/dev/null, a terminal), or a FIFO a process
 * already reads. The open does not block (a FIFO nobody reads made a plain fopen wait
 * forever) and truncates only after the checks, so it never empties the scene file it was run
 * on nor the file the other output writes (`same`, already open, or NULL). */
static FILE *open_out(const char *flag, const char *path, const char *scene_path, FILE *same,
                      th_error *err) {
    int fd = open(path, O_WRONLY | O_CREAT | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0666);
    if (fd < 0) {
        int e = errno;
        set_err(err, "%s: cannot write '%s'", flag, path);
        if (e == ENXIO) {
            if (err)
                snprintf(err->message + strlen(err->message),
                         sizeof err->message - strlen(err->message),
                         ": a FIFO or socket no process is reading");
        } else {
            append_errno(err, e);
        }
        return NULL;
    }
    struct stat st, other;
    const char *why = NULL;
    if (fstat(fd, &st) != 0) why = "cannot stat it";
    else if (S_ISDIR(st.st_mode) || S_ISSOCK(st.st_mode)) why = "not a file";
    else if (scene_path && stat(scene_path, &other) == 0 && other.st_dev == st.st_dev &&
             other.st_ino == st.st_ino)
        why = "it is the scene file being run";
    else if (same && fstat(fileno(same), &other) == 0 && other.st_dev == st.st_dev &&
             other.st_ino == st.st_ino && S_ISREG(st.st_mode))
        why = "--measure and --trajectories name the same file";
    if (!why && S_ISREG(st.st_mode) && ftruncate(fd, 0) != 0) why = "cannot truncate it";
    if (!why && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0)
        why = "cannot make it blocking";
    FILE *f = why ? NULL : fdopen(fd, "w");
    if (!f) {
        if (!why) why = strerror(errno);
        set_err(err, "%s: cannot write '%s': ", flag, path);
        if (err)
            snprintf(err->message + strlen(err->message),
                     sizeof err->message - strlen(err->message), "%s", why);
        close(fd);
    }
    return f;
}

bool th_output_open(th_output *o, const th_world *w, const char *scene, th_error *err) {
    o->measure = o->traj = NULL;
    if (o->measure_path) {
        if (th_world_measure_area_count(w) + th_world_measure_line_count(w) == 0) {
            set_err(
                err,
                "--measure: scene '%s' measures nothing: add a `measure:` section with areas or lines (docs/measurement.md)%s",
                scene, "");
            return false;
        }
        if (!(o->measure = open_out("--measure", o->measure_path, o->scene_path, NULL, err)))
            return false;
    }
    if (o->traj_path &&
        !(o->traj = open_out("--trajectories", o->traj_path, o->scene_path, o->measure, err))) {
        if (o->measure) fclose(o->measure);
        o->measure = NULL;
        return false;
    }
    if (o->measure) measure_header(o->measure, w);
    if (o->traj) traj_header(o, w, scene);
    return true;
}

bool th_output_sample(th_output *o, const th_world *w, th_error *err) {
    uint64_t step = th_world_step_count(w);
    if (o->measure && step % o->measure_every == 0) measure_row(o->measure, w);
    if (o->traj && step % o->traj_every == 0 && !traj_rows(o, w)) {
        set_err(err, "writing %s failed: out of memory%s", o->traj_path, "");
        return false;
    }
    if ((o->measure && ferror(o->measure)) || (o->traj && ferror(o->traj))) {
        set_err(err, "writing %s failed%s",
                o->measure && ferror(o->measure) ? o->measure_path : o->traj_path, "");
        return false;
    }
    return true;
}

static bool close_one(FILE **f, const char *path, th_error *err, bool ok) {
    if (!*f) return ok;
    bool bad = ferror(*f) != 0;
    bad |= fclose(*f) != 0;
    *f = NULL;
    if (bad && ok) set_err(err, "writing %s failed%s", path, "");
    return ok && !bad;
}

bool th_output_close(th_output *o, th_error *err) {
    bool ok = close_one(&o->measure, o->measure_path, err, true);
    free(o->by_slot);
    o->by_slot = NULL;
    o->by_slot_cap = 0;
    return close_one(&o->traj, o->traj_path, err, ok);
}
