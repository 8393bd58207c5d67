/* Recordings of runs: what determines a run, written as it happens and replayed step by step
 * (record.h has the format). */
/* realpath */
#define _XOPEN_SOURCE 700

#include "record.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#define RECORD_VERSION   1
/* A recording is a few lines per simulated second; anything this large is not one. */
#define RECORD_MAX_BYTES (256u << 20)

typedef enum change_kind { CHANGE_DESTROY, CHANGE_RESTORE, CHANGE_BREAK } change_kind;

/* A bunker destroyed or restored, or a piece of wall broken, before step `step`. */
typedef struct change {
    uint64_t step;
    change_kind kind;
    uint32_t bunker; /* index1 */
    char name[64];   /* the bunker's name, to check that the scene still calls it that */
    int32_t x0, y0, x1, y1;
} change;

typedef struct check {
    uint64_t step, hash;
} check;

typedef struct digest {
    char *path;
    uint64_t fnv;
} digest;

struct th_recording {
    char scene[4096];
    digest *digest;
    uint32_t digests;
    uint64_t seed;
    uint32_t agents, threads;
    bool allow_outside;
    double timestep;
    uint64_t check_every;      /* recording: a check every this many steps (a simulated second) */
    change *schedule, *action; /* the command line's events; the viewer's, by step */
    uint32_t schedules, schedule_cap, actions, action_cap;
    check *check;
    uint32_t checks, check_cap;
    uint64_t end_step, end_hash;
    bool nomem; /* a change or check could not be kept: the recording cannot be written */
};

/* ---- small helpers ------------------------------------------------------------------------ */

/* FNV-1a 64 of the file at `path`; false when it cannot be read. */
static bool file_fnv(const char *path, uint64_t *out) {
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    uint64_t h = TH_FNV_START;
    unsigned char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) h = th_fnv1a64(h, buf, n);
    bool ok = !ferror(f);
    fclose(f);
    *out = h;
    return ok;
}

/* Append the digest `fnv` of the file at `path`; false when memory is short. */
static bool keep_digest(th_recording *r, const char *path, uint64_t fnv) {
    digest *grown = realloc(r->digest, sizeof *grown * (r->digests + 1));
    if (!grown) return false;
    r->digest = grown;
    char *copy = strdup(path);
    if (!copy) return false;
    r->digest[r->digests++] = (digest){copy, fnv};
    return true;
}

/* The digest of the file the run read at `path`, by its full path, once. */
static bool add_digest(th_recording *r, const char *path, th_error *err) {
    char full[PATH_MAX];
    if (!realpath(path, full)) {
        th_app_error(err, TH_ERR_IO, "--record: cannot find '%s': %s", path, strerror(errno));
        return false;
    }
    for (uint32_t i = 0; i < r->digests; i++)
        if (strcmp(r->digest[i].path, full) == 0) return true;
    uint64_t fnv;
    if (!file_fnv(full, &fnv)) {
        th_app_error(err, TH_ERR_IO, "--record: cannot read '%s' for its digest", full);
        return false;
    }
    if (!keep_digest(r, full, fnv)) {
        th_app_error(err, TH_ERR_NOMEM, "--record: out of memory");
        return false;
    }
    return true;
}

static const char *kind_word(change_kind k) {
    return k == CHANGE_DESTROY ? "destroy" : k == CHANGE_RESTORE ? "restore" : "break";
}

/* ---- recording ---------------------------------------------------------------------------- */

th_recording *th_record_begin(const char *scene, const char *scene_file,
                              const th_scene_open_opts *so, const th_world *w,
                              const th_file_inputs *reads, th_error *err) {
    th_recording *r = calloc(1, sizeof *r);
    if (!r) {
        th_app_error(err, TH_ERR_NOMEM, "--record: out of memory");
        return NULL;
    }
    bool ok = true;
    if (scene_file) {
        /* The replay opens the file by its full path, from any folder. */
        if (!realpath(scene_file, r->scene)) {
            th_app_error(err, TH_ERR_IO, "--record: cannot find '%s': %s", scene_file,
                         strerror(errno));
            ok = false;
        }
        ok = ok && add_digest(r, scene_file, err);
    } else {
        snprintf(r->scene, sizeof r->scene, "%s", scene); /* a built-in demo */
    }
    for (size_t i = 0; ok && reads && i < reads->n; i++) ok = add_digest(r, reads->path[i], err);
    if (ok && reads && reads->nomem) {
        th_app_error(err, TH_ERR_NOMEM, "--record: out of memory");
        ok = false;
    }
    if (!ok) {
        th_record_free(r);
        return NULL;
    }
    const th_world_def d = th_world_get_def(w);
    r->seed = d.seed;
    r->agents = so->agents;
    r->allow_outside = so->allow_outside_paths;
    r->threads = d.threads;
    r->timestep = d.timestep;
    r->check_every = (uint64_t)llround(1.0 / (d.timestep > 0 ? d.timestep : 1.0));
    if (r->check_every < 1) r->check_every = 1;
    return r;
}

static void keep(th_recording *r, change **list, uint32_t *n, uint32_t *cap, change c) {
    if (!th_app_grow((void **)list, sizeof **list, cap, *n + 1)) {
        r->nomem = true;
        return;
    }
    (*list)[(*n)++] = c;
}

bool th_record_schedule(th_recording *r, uint64_t step, bool destroy, th_bunker_id bunker,
                        const char *name) {
    change c = {
        .step = step, .kind = destroy ? CHANGE_DESTROY : CHANGE_RESTORE, .bunker = bunker.index1};
    snprintf(c.name, sizeof c.name, "%s", name);
    keep(r, &r->schedule, &r->schedules, &r->schedule_cap, c);
    return !r->nomem;
}

void th_record_action(th_recording *r, const th_world *w, const th_view_action *a) {
    if (!r || !a) return;
    if (a->kind == TH_VIEW_ACTION_RESTART) {
        /* The fresh world is the scene as opened, without the command line's schedule: the
         * recording is of the run from here. */
        r->schedules = r->actions = r->checks = 0;
        return;
    }
    change c = {.step = a->step};
    if (a->kind == TH_VIEW_ACTION_BREAK_WALLS) {
        c.kind = CHANGE_BREAK;
        c.x0 = a->x0;
        c.y0 = a->y0;
        c.x1 = a->x1;
        c.y1 = a->y1;
    } else {
        c.kind = a->kind == TH_VIEW_ACTION_DESTROY_BUNKER ? CHANGE_DESTROY : CHANGE_RESTORE;
        c.bunker = a->bunker.index1;
        th_bunker_info bi;
        if (th_world_get_bunker(w, a->bunker, &bi)) snprintf(c.name, sizeof c.name, "%s", bi.name);
    }
    keep(r, &r->action, &r->actions, &r->action_cap, c);
}

void th_record_step(th_recording *r, const th_world *w) {
    if (!r) return;
    uint64_t s = th_world_step_count(w);
    if (s % r->check_every != 0) return;
    if (r->checks && r->check[r->checks - 1].step >= s) return;
    if (!th_app_grow((void **)&r->check, sizeof *r->check, &r->check_cap, r->checks + 1)) {
        r->nomem = true;
        return;
    }
    r->check[r->checks++] = (check){s, th_world_hash(w)};
}

static void write_change(FILE *f, const char *word, const change *c) {
    if (c->kind == CHANGE_BREAK)
        fprintf(f, "%s %" PRIu64 " break %d %d %d %d\n", word, c->step, c->x0, c->y0, c->x1, c->y1);
    else
        fprintf(f, "%s %" PRIu64 " %s %u %s\n", word, c->step, kind_word(c->kind), c->bunker,
                c->name);
}

bool th_record_write(const th_recording *r, const th_world *w, const char *path, th_error *err) {
    if (r->nomem) {
        th_app_error(err, TH_ERR_NOMEM, "--record %s: out of memory while recording", path);
        return false;
    }
    char tmp[4200];
    FILE *f = th_file_begin(path, tmp, sizeof tmp);
    if (!f) {
        th_app_error(err, TH_ERR_IO, "--record %s: cannot write: %s", path, strerror(errno));
        return false;
    }
    fprintf(f, "# a run of throng: replay it with `throng replay %s`\n", path);
    fprintf(f, "throng-recording %d\n", RECORD_VERSION);
    fprintf(f, "scene %s\n", r->scene);
    for (uint32_t i = 0; i < r->digests; i++)
        fprintf(f, "digest %016" PRIx64 " %s\n", r->digest[i].fnv, r->digest[i].path);
    fprintf(f, "seed %" PRIu64 "\nagents %u\nallow-outside-paths %d\ntimestep %.17g\nthreads %u\n",
            r->seed, r->agents, r->allow_outside ? 1 : 0, r->timestep, r->threads);
    for (uint32_t i = 0; i < r->schedules; i++) write_change(f, "schedule", &r->schedule[i]);
    /* Changes and checks in the order of their steps (a change before the check of its step,
     * as a replay applies it). */
    uint32_t a = 0, c = 0;
    const uint64_t end = th_world_step_count(w);
    while (a < r->actions || c < r->checks) {
        if (a < r->actions && (c == r->checks || r->action[a].step <= r->check[c].step)) {
            /* A change asked after the last step never ran. */
            if (r->action[a].step < end) write_change(f, "action", &r->action[a]);
            a++;
        } else {
            fprintf(f, "check %" PRIu64 " %016" PRIx64 "\n", r->check[c].step, r->check[c].hash);
            c++;
        }
    }
    fprintf(f, "end %" PRIu64 " %016" PRIx64 "\n", end, th_world_hash(w));
    if (!th_file_commit(f, tmp, path)) {
        th_app_error(err, TH_ERR_IO, "--record %s: cannot write: %s", path, strerror(errno));
        return false;
    }
    return true;
}

void th_record_free(th_recording *r) {
    if (!r) return;
    for (uint32_t i = 0; i < r->digests; i++) free(r->digest[i].path);
    free(r->digest);
    free(r->schedule);
    free(r->action);
    free(r->check);
    free(r);
}

/* ---- reading ------------------------------------------------------------------------------ */

typedef struct reader {
    const char *path;
    int line;
    const char *text; /* the line */
    const char *at;   /* the next token */
    th_error *err;
} reader;

/* "path:line:column: expected WHAT, found 'TOKEN'" at the next token. */
static bool bad(reader *rd, const char *what) {
    const char *t = rd->at;
    while (*t == ' ' || *t == '\t') t++;
    size_t n = strcspn(t, " \t");
    th_app_error(rd->err, TH_ERR_INVALID, "%s:%d:%d: expected %s, found %s%.*s%s", rd->path,
                 rd->line, (int)(t - rd->text) + 1, what, n ? "'" : "the end of the line",
                 n > 60 ? 60 : (int)n, t, n ? "'" : "");
    return false;
}

/* The next space-separated token, or NULL at the end of the line. */
static const char *token(reader *rd, size_t *len) {
    while (*rd->at == ' ' || *rd->at == '\t') rd->at++;
    if (!*rd->at) return NULL;
    const char *t = rd->at;
    *len = strcspn(t, " \t");
    rd->at += *len;
    return t;
}

static bool read_u64(reader *rd, const char *what, int base, uint64_t max, uint64_t *out) {
    const char *save = rd->at;
    size_t n;
    const char *t = token(rd, &n);
    char buf[32];
    if (t && n < sizeof buf && ((*t >= '0' && *t <= '9') || (base == 16 && isxdigit(*t)))) {
        memcpy(buf, t, n);
        buf[n] = '\0';
        char *end = NULL;
        errno = 0;
        unsigned long long v = strtoull(buf, &end, base);
        if (errno == 0 && end && *end == '\0' && v <= max) {
            *out = v;
            return true;
        }
    }
    rd->at = save;
    return bad(rd, what);
}

static bool read_i32(reader *rd, const char *what, int32_t *out) {
    uint64_t v;
    if (!read_u64(rd, what, 10, INT32_MAX, &v)) return false;
    *out = (int32_t)v;
    return true;
}

/* The rest of the line as one string (a path or a name, which may hold spaces). */
static bool read_rest(reader *rd, const char *what, char *out, size_t cap) {
    while (*rd->at == ' ' || *rd->at == '\t') rd->at++;
    size_t n = strlen(rd->at);
    if (n == 0 || n >= cap) return bad(rd, what);
    memcpy(out, rd->at, n + 1);
    rd->at += n;
    return true;
}

static bool line_end(reader *rd) {
    size_t n;
    const char *save = rd->at;
    if (!token(rd, &n)) return true;
    rd->at = save;
    return bad(rd, "the end of the line");
}

/* STEP destroy|restore INDEX NAME, or STEP break X0 Y0 X1 Y1. */
static bool read_change(reader *rd, change *c) {
    if (!read_u64(rd, "a step", 10, UINT64_MAX / 2, &c->step)) return false;
    size_t n;
    const char *save = rd->at;
    const char *t = token(rd, &n);
    if (t && n == 7 && strncmp(t, "destroy", 7) == 0) c->kind = CHANGE_DESTROY;
    else if (t && n == 7 && strncmp(t, "restore", 7) == 0) c->kind = CHANGE_RESTORE;
    else if (t && n == 5 && strncmp(t, "break", 5) == 0) c->kind = CHANGE_BREAK;
    else {
        rd->at = save;
        return bad(rd, "destroy, restore or break");
    }
    if (c->kind == CHANGE_BREAK)
        return read_i32(rd, "a cell column", &c->x0) && read_i32(rd, "a cell row", &c->y0) &&
               read_i32(rd, "a cell column", &c->x1) && read_i32(rd, "a cell row", &c->y1) &&
               line_end(rd);
    uint64_t b;
    if (!read_u64(rd, "a bunker number from 1", 10, TH_MAX_BUNKERS, &b) || b == 0) return false;
    c->bunker = (uint32_t)b;
    return read_rest(rd, "the bunker's name", c->name, sizeof c->name);
}

/* One line; `seen` counts the keys that must come once. */
static bool read_line(th_recording *r, reader *rd, unsigned *seen) {
    size_t n;
    const char *t = token(rd, &n);
    if (!t || *t == '#') return true;
    static const char *const once[] = {"scene",    "seed",    "agents", "allow-outside-paths",
                                       "timestep", "threads", "end"};
    for (unsigned k = 0; k < sizeof once / sizeof once[0]; k++) {
        if (strlen(once[k]) == n && strncmp(t, once[k], n) == 0) {
            if (*seen & (1u << k)) {
                rd->at = t;
                return bad(rd, "each of scene, seed, agents, allow-outside-paths, timestep, "
                               "threads and end once");
            }
            *seen |= 1u << k;
        }
    }
#define IS(word) (n == sizeof(word) - 1 && strncmp(t, word, n) == 0)
    uint64_t v;
    if (IS("scene")) return read_rest(rd, "the scene's path or name", r->scene, sizeof r->scene);
    if (IS("seed")) return read_u64(rd, "a seed", 10, UINT64_MAX, &r->seed) && line_end(rd);
    if (IS("agents")) {
        if (!read_u64(rd, "an agent count", 10, TH_MAX_AGENTS, &v)) return false;
        r->agents = (uint32_t)v;
        return line_end(rd);
    }
    if (IS("allow-outside-paths")) {
        if (!read_u64(rd, "0 or 1", 10, 1, &v)) return false;
        r->allow_outside = v == 1;
        return line_end(rd);
    }
    if (IS("threads")) {
        if (!read_u64(rd, "a thread count from 1", 10, TH_MAX_THREADS, &v) || v == 0) return false;
        r->threads = (uint32_t)v;
        return line_end(rd);
    }
    if (IS("timestep")) {
        size_t m;
        const char *save = rd->at;
        const char *x = token(rd, &m);
        char buf[64], *end = NULL;
        if (x && m < sizeof buf) {
            memcpy(buf, x, m);
            buf[m] = '\0';
            r->timestep = strtod(buf, &end);
        }
        if (!x || m >= sizeof buf || !end || *end || !(r->timestep > 0 && r->timestep <= 10)) {
            rd->at = save;
            return bad(rd, "a timestep in seconds, above 0 and at most 10");
        }
        return line_end(rd);
    }
    if (IS("digest")) {
        uint64_t fnv;
        char path[PATH_MAX];
        if (!read_u64(rd, "a 16-digit hexadecimal digest", 16, UINT64_MAX, &fnv) ||
            !read_rest(rd, "a file's path", path, sizeof path))
            return false;
        if (!keep_digest(r, path, fnv)) {
            th_app_error(rd->err, TH_ERR_NOMEM, "%s: out of memory", rd->path);
            return false;
        }
        return true;
    }
    if (IS("schedule") || IS("action")) {
        bool sched = IS("schedule");
        change c = {0};
        if (!read_change(rd, &c)) return false;
        change **list = sched ? &r->schedule : &r->action;
        uint32_t *count = sched ? &r->schedules : &r->actions;
        if (!sched && r->actions && c.step < r->action[r->actions - 1].step) {
            th_app_error(
                rd->err, TH_ERR_INVALID,
                "%s:%d:8: expected the actions in the order of their steps, found step %" PRIu64
                " after %" PRIu64,
                rd->path, rd->line, c.step, r->action[r->actions - 1].step);
            return false;
        }
        keep(r, list, count, sched ? &r->schedule_cap : &r->action_cap, c);
        if (r->nomem) th_app_error(rd->err, TH_ERR_NOMEM, "%s: out of memory", rd->path);
        return !r->nomem;
    }
    if (IS("check") || IS("end")) {
        check c;
        if (!read_u64(rd, "a step", 10, UINT64_MAX / 2, &c.step) ||
            !read_u64(rd, "a 16-digit hexadecimal state hash", 16, UINT64_MAX, &c.hash) ||
            !line_end(rd))
            return false;
        if (IS("end")) {
            r->end_step = c.step;
            r->end_hash = c.hash;
            return true;
        }
        if (r->checks && c.step <= r->check[r->checks - 1].step) {
            th_app_error(
                rd->err, TH_ERR_INVALID,
                "%s:%d:7: expected the checks in the order of their steps, found step %" PRIu64
                " after %" PRIu64,
                rd->path, rd->line, c.step, r->check[r->checks - 1].step);
            return false;
        }
        if (!th_app_grow((void **)&r->check, sizeof *r->check, &r->check_cap, r->checks + 1)) {
            th_app_error(rd->err, TH_ERR_NOMEM, "%s: out of memory", rd->path);
            return false;
        }
        r->check[r->checks++] = c;
        return true;
    }
#undef IS
    rd->at = t;
    return bad(rd, "scene, digest, seed, agents, allow-outside-paths, timestep, threads, "
                   "schedule, action, check or end");
}

th_recording *th_record_read(const char *path, th_error *err) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        th_app_error(err, TH_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    /* Too large to be a recording: refused before reading it (a line is read whole). */
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) &&
        (uint64_t)st.st_size > RECORD_MAX_BYTES) {
        fclose(f);
        th_app_error(err, TH_ERR_INVALID,
                     "%s:1:1: expected a recording of at most %u MiB, found %llu bytes", path,
                     RECORD_MAX_BYTES >> 20, (unsigned long long)st.st_size);
        return NULL;
    }
    th_recording *r = calloc(1, sizeof *r);
    if (!r) {
        fclose(f);
        th_app_error(err, TH_ERR_NOMEM, "%s: out of memory", path);
        return NULL;
    }
    char *line = NULL;
    size_t cap = 0;
    reader rd = {.path = path, .err = err};
    unsigned seen = 0;
    bool ok = true, header = false;
    size_t bytes = 0;
    ssize_t got;
    while (ok && (got = getline(&line, &cap, f)) != -1) {
        rd.line++;
        size_t n = (size_t)got;
        bytes += n;
        if (bytes > RECORD_MAX_BYTES) {
            th_app_error(err, TH_ERR_INVALID, "%s:%d:1: expected a recording of at most %u MiB",
                         path, rd.line, RECORD_MAX_BYTES >> 20);
            ok = false;
            break;
        }
        if (n > 8192) {
            th_app_error(err, TH_ERR_INVALID, "%s:%d:1: expected lines of at most 8192 characters",
                         path, rd.line);
            ok = false;
            break;
        }
        if (strlen(line) != n) {
            th_app_error(err, TH_ERR_INVALID, "%s:%d:%zu: expected text, found a NUL byte", path,
                         rd.line, strlen(line) + 1);
            ok = false;
            break;
        }
        while (n && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = '\0';
        rd.text = rd.at = line;
        if (!header) {
            size_t m;
            const char *t = token(&rd, &m);
            if (!t || *t == '#') continue;
            uint64_t v;
            if (!(m == 16 && strncmp(t, "throng-recording", 16) == 0)) {
                rd.at = t;
                ok = bad(&rd, "'throng-recording 1' (a file written by throng run --record)");
            } else if (!read_u64(&rd, "version 1", 10, UINT32_MAX, &v) || v != RECORD_VERSION) {
                if (ok && v != RECORD_VERSION) {
                    th_app_error(err, TH_ERR_INVALID,
                                 "%s:%d:18: expected version %d, found %" PRIu64
                                 " (a recording of another throng)",
                                 path, rd.line, RECORD_VERSION, v);
                }
                ok = false;
            } else {
                ok = line_end(&rd);
            }
            header = true;
            continue;
        }
        ok = read_line(r, &rd, &seen);
    }
    if (ok && ferror(f)) {
        th_app_error(err, TH_ERR_IO, "%s: cannot read", path);
        ok = false;
    }
    fclose(f);
    free(line);
    if (ok && !header) {
        th_app_error(err, TH_ERR_INVALID,
                     "%s:1:1: expected 'throng-recording 1', found an empty file", path);
        ok = false;
    }
    static const char *const names[] = {"scene",    "seed",    "agents", "allow-outside-paths",
                                        "timestep", "threads", "end"};
    for (unsigned k = 0; ok && k < sizeof names / sizeof names[0]; k++) {
        if (!(seen & (1u << k))) {
            th_app_error(err, TH_ERR_INVALID,
                         "%s:%d:1: expected a line '%s', found the end of the file%s", path,
                         rd.line + 1, names[k],
                         k == 6 ? " (the recorded run did not finish writing it)" : "");
            ok = false;
        }
    }
    for (uint32_t i = 0; ok && i < r->checks; i++) {
        if (r->check[i].step > r->end_step) {
            th_app_error(err, TH_ERR_INVALID,
                         "%s: a check at step %" PRIu64 " after the end (step %" PRIu64 ")", path,
                         r->check[i].step, r->end_step);
            ok = false;
        }
    }
    if (!ok) {
        th_record_free(r);
        return NULL;
    }
    return r;
}

/* ---- replaying ---------------------------------------------------------------------------- */

static bool apply(th_world *w, const change *c, bool scheduled, th_error *err) {
    if (c->kind == CHANGE_BREAK) return th_world_break_walls(w, c->x0, c->y0, c->x1, c->y1, err);
    th_bunker_info bi;
    th_bunker_id id = {c->bunker};
    bool found = th_world_get_bunker(w, id, &bi);
    if (!found || strcmp(bi.name, c->name) != 0) {
        th_app_error(err, TH_ERR_INVALID,
                     "the recording would %s bunker %u '%s' at step %" PRIu64
                     ", but the scene's bunker %u is %s%s%s",
                     kind_word(c->kind), c->bunker, c->name, c->step, c->bunker,
                     found ? "'" : "missing", found ? bi.name : "", found ? "'" : "");
        return false;
    }
    if (scheduled) {
        th_event_def ev = {.type = c->kind == CHANGE_DESTROY ? TH_EVENT_DESTROY_BUNKER
                                                             : TH_EVENT_RESTORE_BUNKER,
                           .bunker = id};
        return th_world_schedule(w, c->step, &ev, err);
    }
    return c->kind == CHANGE_DESTROY ? th_world_destroy_bunker(w, id, err)
                                     : th_world_restore_bunker(w, id, err);
}

th_world *th_record_open(const th_recording *r, uint32_t threads, th_scene_info *info,
                         th_error *err) {
    for (uint32_t i = 0; i < r->digests; i++) {
        uint64_t h;
        if (!file_fnv(r->digest[i].path, &h)) {
            th_app_error(err, TH_ERR_IO, "the recorded run read '%s', which cannot be read now",
                         r->digest[i].path);
            return NULL;
        }
        if (h != r->digest[i].fnv) {
            th_app_error(err, TH_ERR_INVALID,
                         "'%s' has changed since the run was recorded (digest %016" PRIx64
                         ", recorded %016" PRIx64 "): the replay would not be that run",
                         r->digest[i].path, h, r->digest[i].fnv);
            return NULL;
        }
    }
    th_scene_open_opts so = {.threads = threads ? threads : r->threads,
                             .has_seed = true,
                             .seed = r->seed,
                             .agents = r->agents,
                             .allow_outside_paths = r->allow_outside};
    th_world *w = th_scene_open(r->scene, &so, info, err);
    if (!w) return NULL;
    const th_world_def d = th_world_get_def(w);
    if (fabs(d.timestep - r->timestep) > 1e-12 * r->timestep) {
        th_app_error(err, TH_ERR_INVALID, "the scene's timestep is %g s, the recording's %g s",
                     (double)d.timestep, r->timestep);
        th_world_destroy(w);
        return NULL;
    }
    for (uint32_t i = 0; i < r->schedules; i++) {
        if (!apply(w, &r->schedule[i], true, err)) {
            th_world_destroy(w);
            return NULL;
        }
    }
    return w;
}

/* The first of `n` items of `size` bytes (each starting with its uint64_t step, in step order)
 * at or after `step`. */
static uint32_t first_at(const void *items, uint32_t n, size_t size, uint64_t step) {
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        uint64_t s;
        memcpy(&s, (const char *)items + (size_t)mid * size, sizeof s);
        if (s < step) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

bool th_record_before_step(const th_recording *r, th_world *w, th_error *err) {
    const uint64_t s = th_world_step_count(w);
    bool ok = true;
    for (uint32_t i = first_at(r->action, r->actions, sizeof *r->action, s);
         i < r->actions && r->action[i].step == s; i++) {
        th_error e = {0};
        if (!apply(w, &r->action[i], false, &e) && ok) {
            th_app_error(err, e.code, "step %" PRIu64 ": %s", s, e.message);
            ok = false;
        }
    }
    uint32_t c = first_at(r->check, r->checks, sizeof *r->check, s);
    if (ok && c < r->checks && r->check[c].step == s) {
        uint64_t h = th_world_hash(w);
        if (h != r->check[c].hash) {
            th_app_error(
                err, TH_ERR_INVALID,
                "after %" PRIu64 " steps the state hash is %016" PRIx64
                " where the recording has %016" PRIx64
                ": the replay has left the recorded run (a build that simulates differently?)",
                s, h, r->check[c].hash);
            ok = false;
        }
    }
    return ok;
}

bool th_record_check_end(const th_recording *r, const th_world *w, th_error *err) {
    uint64_t h = th_world_hash(w);
    if (th_world_step_count(w) == r->end_step && h != r->end_hash) {
        th_app_error(err, TH_ERR_INVALID,
                     "after %" PRIu64 " steps the state hash is %016" PRIx64
                     " where the recording ends with %016" PRIx64,
                     r->end_step, h, r->end_hash);
        return false;
    }
    return true;
}

uint64_t th_record_last_step(const th_recording *r) { return r->end_step; }
uint32_t th_record_action_count(const th_recording *r) { return r->actions; }
uint32_t th_record_check_count(const th_recording *r) { return r->checks; }
const char *th_record_scene(const th_recording *r) { return r->scene; }
