/* Output files of `throng run`: the measurement table (--measure) and agent trajectories
 * (--trajectories). The formats are documented in docs/measurement.md.
 *
 * Floats are printed with %.9g: nine significant digits are enough for every float to read
 * back to the same bits (FLT_DECIMAL_DIG), so a trajectory file holds exactly the positions
 * and velocities the engine had, and tests can compare them bit for bit. */
#include "output.h"
#include "throng/building.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
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
        fprintf(f, ",%s_crossed,%s_flow,%s_forward,%s_backward", l.name, l.name, l.name, l.name);
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
        fprintf(f, ",%" PRIu64 ",%" PRIu64, l.forward_total, l.backward_total);
    }
    fputc('\n', f);
}

/* An agent's number in the files: index1 - 1 + 2^24 (generation - 1). Slots are below
 * TH_MAX_AGENTS = 2^24, so every agent of a run has its own number (a slot's later agents get
 * new ones, as PedPy wants one person per id), and an agent in a slot used for the first time,
 * every agent of a run where none leaves, is numbered by its slot: 0, 1, ... in order of
 * creation. */
uint64_t th_agent_number(th_agent_id id) {
    return (uint64_t)(id.index1 - 1) + (uint64_t)(id.generation - 1) * TH_MAX_AGENTS;
}

/* Agents in id slot order: the file is the same whatever order the engine keeps them in. */
static bool traj_rows(th_output *o, const th_world *w) {
    FILE *f = o->traj;
    uint64_t step = th_world_step_count(w);
    double t = time_of(w, step);
    bool pedpy = resolve_format(o) == TH_TRAJ_PEDPY;
    const bool levels = th_world_level_count(w) > 0;
    float elevation[TH_MAX_LEVELS] = {0.0f};
    for (uint32_t l = 0; l < th_world_level_count(w) && l < TH_MAX_LEVELS; l++) {
        th_level_info li;
        if (th_world_get_level(w, (th_level_id){l + 1}, &li)) elevation[l] = li.elevation;
    }
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
        const uint64_t id = th_agent_number(v.id[k]);
        /* In a building: the level (index in the scene's list, -1 off every level), and in
         * PedPy's z column its elevation. */
        const th_level_id level =
            levels ? th_world_level_at(w, th_v2(v.px[k], v.py[k])) : (th_level_id){0};
        if (pedpy) {
            fprintf(f, "%" PRIu64 " %" PRIu64 " %.9g %.9g %.9g\n", id, frame, (double)v.px[k],
                    (double)v.py[k], level.index1 ? (double)elevation[level.index1 - 1] : 0.0);
        } else {
            fprintf(f, "%" PRIu64 ",%.9g,%" PRIu64 ",%u,%.9g,%.9g,%.9g,%.9g", step, t, id,
                    v.crowd[k], (double)v.px[k], (double)v.py[k], (double)v.vx[k], (double)v.vy[k]);
            if (levels) fprintf(f, ",%d", (int)level.index1 - 1);
            fputc('\n', f);
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
        fputs(th_world_level_count(w) ? "step,time,id,crowd,x,y,vx,vy,level\n"
                                      : "step,time,id,crowd,x,y,vx,vy\n",
              f);
    }
}

static void append_errno(th_error *err, int e) {
    if (!err) return;
    size_t n = strlen(err->message);
    snprintf(err->message + n, sizeof err->message - n, ": %s", strerror(e));
}

/* The reason a write failed, as strerror says it; errno 0 (a stream's error flag set by a call
 * whose errno is gone) says so plainly. */
static const char *write_reason(int e) { return e ? strerror(e) : "an earlier write failed"; }

/* The folder part of `path` into dir ("." without a slash, "/" for a file at the root) and
 * a pointer to the name after it. */
static const char *split_path(const char *path, char *dir, size_t cap) {
    const char *slash = strrchr(path, '/');
    if (!slash) snprintf(dir, cap, ".");
    else if (slash == path) snprintf(dir, cap, "/");
    else snprintf(dir, cap, "%.*s", (int)(slash - path), path);
    return slash ? slash + 1 : path;
}

bool th_file_check_writable(const th_file_use *f, th_error *err) {
    struct stat st;
    const char *why = NULL;
    char dir[4096];
    int e = 0;
    if (stat(f->path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) why = "it is a folder, not a regular file";
        else if (f->regular && !S_ISREG(st.st_mode)) why = "it exists and is not a regular file";
        else if (S_ISSOCK(st.st_mode)) why = "it is a socket, not a file";
        else if (!S_ISREG(st.st_mode)) {
            /* A FIFO or a device: opening a FIFO and closing it would end its reader. */
            if (access(f->path, W_OK) != 0) e = errno;
        } else {
            /* No O_TRUNC: the check changes nothing in the file. */
            int fd = open(f->path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
            if (fd >= 0) close(fd);
            else if (errno != ENOENT) e = errno; /* ENOENT: removed meanwhile, created later */
        }
    } else if (errno != ENOENT) {
        e = errno; /* a name too long, a path through a regular file, a loop, no permission */
    } else {
        /* A new file: create it and remove it again, so a name the file system refuses (too
         * long, a read-only place, no permission) fails now and no empty file stays behind. */
        int fd =
            open(f->path, O_WRONLY | O_CREAT | O_EXCL | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0666);
        if (fd >= 0) {
            close(fd);
            unlink(f->path);
        } else if (errno != EEXIST) { /* EEXIST: a dangling symbolic link, or a race */
            e = errno;
            split_path(f->path, dir, sizeof dir);
            if (e == ENOENT && stat(dir, &st) != 0) {
                set_err(err, "%s: cannot write '%s': no folder '", f->name, f->path);
                if (err)
                    snprintf(err->message + strlen(err->message),
                             sizeof err->message - strlen(err->message), "%s'", dir);
                return false;
            }
        }
    }
    if (!why && !e) return true;
    set_err(err, "%s: cannot write '%s'", f->name, f->path);
    if (why && err)
        snprintf(err->message + strlen(err->message), sizeof err->message - strlen(err->message),
                 ": %s", why);
    else append_errno(err, e);
    return false;
}

/* What a path names: the file (device and inode) when it exists, and its folder's (device and
 * inode) with the name in it when the folder exists, so a name not yet created is known by
 * where it will be whatever the path that leads there. */
typedef struct file_id {
    bool exists, has_dir;
    dev_t dev, dir_dev;
    ino_t ino, dir_ino;
    mode_t mode;
    const char *name;
} file_id;

static void identify(const char *path, file_id *id) {
    struct stat st;
    memset(id, 0, sizeof *id);
    if (stat(path, &st) == 0) {
        id->exists = true;
        id->dev = st.st_dev;
        id->ino = st.st_ino;
        id->mode = st.st_mode;
    }
    char dir[4096];
    id->name = split_path(path, dir, sizeof dir);
    if (id->name[0] && strcmp(id->name, ".") != 0 && strcmp(id->name, "..") != 0 &&
        stat(dir, &st) == 0) {
        id->has_dir = true;
        id->dir_dev = st.st_dev;
        id->dir_ino = st.st_ino;
    }
}

/* Whether two uses would clash: the same file, and a file (or a name not yet created) rather
 * than a device, FIFO or socket, which several outputs may share as before. */
static bool clash(const file_id *a, const file_id *b) {
    bool same = (a->has_dir && b->has_dir && a->dir_dev == b->dir_dev && a->dir_ino == b->dir_ino &&
                 strcmp(a->name, b->name) == 0) ||
                (a->exists && b->exists && a->dev == b->dev && a->ino == b->ino);
    if (!same) return false;
    const file_id *x = a->exists ? a : b;
    return !x->exists || S_ISREG(x->mode) || S_ISDIR(x->mode);
}

bool th_file_check_distinct(const th_file_use *use, size_t n, th_error *err) {
    file_id *ids = calloc(n ? n : 1, sizeof *ids);
    if (!ids) {
        if (err) *err = (th_error){.code = TH_ERR_NOMEM};
        if (err) snprintf(err->message, sizeof err->message, "out of memory");
        return false;
    }
    for (size_t i = 0; i < n; i++)
        if (use[i].path) identify(use[i].path, &ids[i]);
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        if (!use[i].path || !use[i].output) continue;
        for (size_t j = 0; j < n && ok; j++) {
            /* Each output against every input, and against the outputs before it. */
            if (j == i || !use[j].path || (use[j].output && j > i)) continue;
            if (!clash(&ids[i], &ids[j])) continue;
            ok = false;
            if (!err) break;
            *err = (th_error){.code = TH_ERR_INVALID};
            const th_file_use *a = use[j].output ? &use[j] : &use[i];
            const th_file_use *b = use[j].output ? &use[i] : &use[j];
            int w = strcmp(a->path, b->path) == 0
                        ? snprintf(err->message, sizeof err->message,
                                   "%s and %s name the same file '%s'", a->name, b->name, a->path)
                        : snprintf(err->message, sizeof err->message,
                                   "%s '%s' and %s '%s' name the same file", a->name, a->path,
                                   b->name, b->path);
            size_t at = w > 0 && (size_t)w < sizeof err->message ? (size_t)w : 0;
            if (!use[j].output)
                snprintf(err->message + at, sizeof err->message - at,
                         " (%s): an output never replaces an input",
                         use[j].note ? use[j].note : "an input");
            else
                snprintf(err->message + at, sizeof err->message - at,
                         ": each output needs a file of its own");
        }
    }
    free(ids);
    return ok;
}

/* An output file: created or replaced, a device (/dev/null, a terminal), or a FIFO a process
 * already reads. The open does not block (a FIFO nobody reads made a plain fopen wait
 * forever) and does not truncate: th_output_open truncates only once every file opened, so a
 * refusal never empties one file for the other's sake. It never opens the scene file it was
 * run on nor the file the other output writes (`same`, an open descriptor, or -1): run checks
 * that before, and this stays as a guard. `*created`: the open made a new file. */
static int open_out(const char *flag, const char *path, const char *scene_path, int same,
                    bool *created, th_error *err) {
    *created = false;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0666);
    if (fd >= 0) *created = true;
    else if (errno == EEXIST) fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    /* A dangling symbolic link: "exists" for O_EXCL, created through as fopen would. */
    if (fd < 0 && errno == ENOENT)
        fd = open(path, O_WRONLY | O_CREAT | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0666);
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
        return -1;
    }
    struct stat st, other;
    const char *why = NULL;
    if (fstat(fd, &st) != 0) why = "cannot stat it";
    else if (S_ISDIR(st.st_mode) || S_ISSOCK(st.st_mode)) why = "not a file";
    else if (scene_path && stat(scene_path, &other) == 0 && other.st_dev == st.st_dev &&
             other.st_ino == st.st_ino)
        why = "it is the scene file being run";
    else if (same >= 0 && fstat(same, &other) == 0 && other.st_dev == st.st_dev &&
             other.st_ino == st.st_ino && S_ISREG(st.st_mode))
        why = "--measure and --trajectories name the same file";
    if (!why && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0)
        why = "cannot make it blocking";
    if (why) {
        set_err(err, "%s: cannot write '%s': ", flag, path);
        if (err)
            snprintf(err->message + strlen(err->message),
                     sizeof err->message - strlen(err->message), "%s", why);
        close(fd);
        if (*created) unlink(path);
        *created = false;
        return -1;
    }
    return fd;
}

/* Empty an opened output (a regular file) and make it a stream; NULL with errno set. */
static FILE *start_out(int fd) {
    struct stat st;
    if (fstat(fd, &st) != 0 || (S_ISREG(st.st_mode) && ftruncate(fd, 0) != 0)) return NULL;
    return fdopen(fd, "w");
}

bool th_output_open(th_output *o, const th_world *w, const char *scene, th_error *err) {
    o->measure = o->traj = NULL;
    o->measure_errno = o->traj_errno = 0;
    if (o->measure_path && th_world_measure_area_count(w) + th_world_measure_line_count(w) == 0) {
        set_err(
            err,
            "--measure: scene '%s' measures nothing: add a `measure:` section with areas or lines (docs/measurement.md)%s",
            scene, "");
        return false;
    }
    int mfd = -1, tfd = -1;
    bool mnew = false, tnew = false;
    if (o->measure_path &&
        (mfd = open_out("--measure", o->measure_path, o->scene_path, -1, &mnew, err)) < 0)
        return false;
    if (o->traj_path &&
        (tfd = open_out("--trajectories", o->traj_path, o->scene_path, mfd, &tnew, err)) < 0) {
        if (mfd >= 0) close(mfd);
        if (mnew) unlink(o->measure_path);
        return false;
    }
    /* Every file is open: only now is any emptied. */
    if (mfd >= 0 && !(o->measure = start_out(mfd))) {
        set_err(err, "--measure: cannot write '%s'%s", o->measure_path, "");
        append_errno(err, errno);
        close(mfd);
        if (tfd >= 0) close(tfd);
        if (tnew) unlink(o->traj_path);
        return false;
    }
    if (tfd >= 0 && !(o->traj = start_out(tfd))) {
        set_err(err, "--trajectories: cannot write '%s'%s", o->traj_path, "");
        append_errno(err, errno);
        close(tfd);
        if (tnew) unlink(o->traj_path);
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
    /* errno after a stream's first failed write is that write's reason (what a later failing
     * write of the same stream would say too): kept for the message, here or at the close. */
    errno = 0;
    if (o->measure && step % o->measure_every == 0) measure_row(o->measure, w);
    if (o->measure && ferror(o->measure) && !o->measure_errno) o->measure_errno = errno;
    errno = 0;
    if (o->traj && step % o->traj_every == 0 && !traj_rows(o, w)) {
        set_err(err, "writing %s failed: out of memory%s", o->traj_path, "");
        return false;
    }
    if (o->traj && ferror(o->traj) && !o->traj_errno) o->traj_errno = errno;
    if ((o->measure && ferror(o->measure)) || (o->traj && ferror(o->traj))) {
        bool m = o->measure && ferror(o->measure);
        set_err(err, "writing %s failed: %s", m ? o->measure_path : o->traj_path,
                write_reason(m ? o->measure_errno : o->traj_errno));
        return false;
    }
    return true;
}

static bool close_one(FILE **f, const char *path, int seen, th_error *err, bool ok) {
    if (!*f) return ok;
    bool bad = ferror(*f) != 0;
    errno = 0;
    if (fclose(*f) != 0) {
        bad = true;
        if (!seen) seen = errno;
    }
    *f = NULL;
    if (bad && ok) set_err(err, "writing %s failed: %s", path, write_reason(seen));
    return ok && !bad;
}

bool th_output_close(th_output *o, th_error *err) {
    bool ok = close_one(&o->measure, o->measure_path, o->measure_errno, err, true);
    free(o->by_slot);
    o->by_slot = NULL;
    o->by_slot_cap = 0;
    return close_one(&o->traj, o->traj_path, o->traj_errno, err, ok);
}

bool th_file_check_not_in(const th_file_use *out, const char *dir, const char *note,
                          th_error *err) {
    DIR *d = opendir(dir);
    if (!d) return true; /* no such folder: nothing in it to protect */
    bool ok = true;
    struct dirent *e;
    char path[4096];
    while (ok && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
        const th_file_use pair[2] = {{.name = "an input", .path = path, .note = note}, *out};
        ok = th_file_check_distinct(pair, 2, err);
    }
    closedir(d);
    return ok;
}

FILE *th_file_begin(const char *path, char *tmp, size_t cap) {
    if (snprintf(tmp, cap, "%s.XXXXXX", path) >= (int)cap) return NULL;
    int fd = mkstemp(tmp);
    if (fd < 0) return NULL;
    /* mkstemp makes the file 0600: give it the mode a plain fopen would. */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        unlink(tmp);
    }
    return f;
}

bool th_file_commit(FILE *f, const char *tmp, const char *path) {
    bool ok = !ferror(f);
    ok = fclose(f) == 0 && ok;
    if (ok && rename(tmp, path) == 0) return true;
    unlink(tmp);
    return false;
}

bool th_suite_json_check(const char *cmd, const char *json, const char *dir1, const char *dir2) {
    th_file_use use = {.name = "--json", .path = json, .output = true, .regular = true};
    th_error err;
    if (!th_file_check_writable(&use, &err) ||
        !th_file_check_not_in(&use, dir1, "a scene the command reads", &err) ||
        !th_file_check_not_in(&use, dir2, "a scene the command reads", &err)) {
        fprintf(stderr, "%s: %s\n", cmd, err.message);
        return false;
    }
    return true;
}

FILE *th_suite_json_begin(const char *cmd, const char *json, char *tmp, size_t cap) {
    FILE *f = th_file_begin(json, tmp, cap);
    if (!f) fprintf(stderr, "%s: --json: cannot write '%s'\n", cmd, json);
    return f;
}

void th_file_inputs_add(void *user, const char *path) {
    th_file_inputs *in = user;
    if (in->n == in->cap) {
        size_t cap = in->cap ? 2 * in->cap : 8;
        char **p = realloc(in->path, cap * sizeof *p);
        if (!p) {
            in->nomem = true;
            return;
        }
        in->path = p;
        in->cap = cap;
    }
    char *copy = strdup(path);
    if (!copy) {
        in->nomem = true;
        return;
    }
    in->path[in->n++] = copy;
}

void th_file_inputs_free(th_file_inputs *in) {
    for (size_t i = 0; i < in->n; i++) free(in->path[i]);
    free(in->path);
    *in = (th_file_inputs){0};
}

bool th_file_check_distinct_with(const th_file_use *use, size_t n, const th_file_inputs *in,
                                 th_error *err) {
    th_file_use *all = in->nomem ? NULL : malloc((n + in->n) * sizeof *all);
    if (!all) {
        if (err) *err = (th_error){.code = TH_ERR_NOMEM};
        if (err) snprintf(err->message, sizeof err->message, "out of memory");
        return false;
    }
    memcpy(all, use, n * sizeof *all);
    for (size_t i = 0; i < in->n; i++)
        all[n + i] = (th_file_use){.name = "a file the scene reads",
                                   .path = in->path[i],
                                   .note = "its map image or a hazard table"};
    bool ok = th_file_check_distinct(all, n + in->n, err);
    free(all);
    return ok;
}

void th_app_error(th_error *err, th_error_code code, const char *fmt, ...) {
    if (!err) return;
    *err = (th_error){.code = code};
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
}

bool th_app_grow(void **p, size_t size, uint32_t *cap, uint32_t need) {
    if (need <= *cap) return true;
    uint32_t c = *cap ? *cap : 64;
    while (c < need) c = c > UINT32_MAX / 2 ? need : 2 * c;
    void *np = realloc(*p, (size_t)c * size);
    if (!np) return false;
    *p = np;
    *cap = c;
    return true;
}

uint64_t th_fnv1a64(uint64_t h, const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}
