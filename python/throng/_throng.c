/* throng._throng: the C side of the Python package (CPython C API and numpy's C API).
 *
 * One type, World, holding a th_world. Everything here is thin: arguments are checked and
 * converted, the library is called, a failure becomes throng.Error (the class is defined in
 * throng/__init__.py and handed over by _set_error_class). The Python layer (__init__.py)
 * adds the keyword arguments, names and docstrings users see.
 *
 * Threads: a World is used by one thread at a time. step() releases the GIL while the world
 * steps, so other Python threads (stepping other worlds, say) run meanwhile; a call on the same
 * world from another thread during that time raises RuntimeError instead of racing. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "throng/building.h"
#include "throng/clock.h"
#include "throng/hazard.h"
#include "throng/throng.h"
#include "report.h"
#include "results.h"

static PyObject *g_error_class; /* throng.Error */

typedef struct PlannerObject PlannerObject;

typedef struct {
    PyObject_HEAD th_world *w;
    int busy;       /* stepping with the GIL released */
    int scene_over; /* the last run() stopped because the scene was over */
    uint64_t asked; /* steps asked for by step() and run() */
    double wall_s;  /* seconds spent stepping */
    uint32_t agents_start;
    int started;          /* agents_start recorded */
    uint64_t scene_steps; /* the scene's `steps` (loaded worlds), else 0 */
    char name[64];
    char *argument;
    uint32_t warnings; /* the loader's warnings (th_scene_info) and the first, for the report */
    char warning[512];
    PlannerObject *planners; /* planners made for this world (destroyed before it) */
    th_results *results;     /* start_results: gathered after every step until written */
    char *results_dir;
} WorldObject;

static PyTypeObject WorldType;
static int put(PyObject *d, const char *k, PyObject *v);
static PyObject *str_of(const char *s);
static PyObject *index_or_none(uint32_t index1);

/* Raise throng.Error from a th_error. */
static PyObject *raise_error(const th_error *err) {
    PyObject *cls = g_error_class ? g_error_class : PyExc_RuntimeError;
    PyObject *e = PyObject_CallFunction(cls, "issII", (int)err->code, th_error_code_name(err->code),
                                        err->message, err->line, err->column);
    if (!e) return NULL;
    PyErr_SetObject((PyObject *)Py_TYPE(e), e);
    Py_DECREF(e);
    return NULL;
}

/* Unsigned integer arguments ("O&" converters): a negative one, or one too large for its C
 * type, raises OverflowError naming its range (the "I" and "K" formats would wrap it: a seed
 * of 2**64 became 0, threads=2**32 + 1 one thread). Anything but an int raises TypeError. */
static int conv_u64(PyObject *o, void *out) {
    if (!PyLong_Check(o)) {
        PyErr_Format(PyExc_TypeError, "expected an integer, got %s", Py_TYPE(o)->tp_name);
        return 0;
    }
    unsigned long long v = PyLong_AsUnsignedLongLong(o);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_OverflowError, "expected an integer in [0, 2**64 - 1], got %R", o);
        return 0;
    }
    *(unsigned long long *)out = v;
    return 1;
}

static int conv_u32(PyObject *o, void *out) {
    unsigned long long v;
    if (!conv_u64(o, &v)) {
        if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_OverflowError, "expected an integer in [0, 2**32 - 1], got %R", o);
        }
        return 0;
    }
    if (v > 0xffffffffu) {
        PyErr_Format(PyExc_OverflowError, "expected an integer in [0, 2**32 - 1], got %R", o);
        return 0;
    }
    *(unsigned int *)out = (unsigned int)v;
    return 1;
}

static PyObject *raise_invalid(const char *msg) {
    th_error err = {.code = TH_ERR_INVALID};
    snprintf(err.message, sizeof err.message, "%s", msg);
    return raise_error(&err);
}

/* throng.Error TH_ERR_STATE: a call the world's state does not allow now. */
static PyObject *raise_state(const char *msg) {
    th_error err = {.code = TH_ERR_STATE};
    snprintf(err.message, sizeof err.message, "%s", msg);
    return raise_error(&err);
}

/* The world, or NULL with RuntimeError when closed or stepping in another thread. */
static th_world *world_of(WorldObject *self) {
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError,
                        "the world is stepping in another thread; a world is used by one "
                        "thread at a time");
        return NULL;
    }
    if (!self->w) {
        PyErr_SetString(PyExc_RuntimeError, "the world is closed");
        return NULL;
    }
    return self->w;
}

static WorldObject *wrap(th_world *w) {
    WorldObject *o = PyObject_New(WorldObject, &WorldType);
    if (!o) {
        th_world_destroy(w);
        return NULL;
    }
    o->w = w;
    o->busy = 0;
    o->scene_over = 0;
    o->asked = 0;
    o->wall_s = 0.0;
    o->agents_start = 0;
    o->started = 0;
    o->scene_steps = 0;
    o->name[0] = '\0';
    o->argument = NULL;
    o->planners = NULL;
    o->results = NULL;
    o->results_dir = NULL;
    return o;
}

static void destroy_planners(WorldObject *w);

static void World_dealloc(WorldObject *self) {
    /* A world cannot be collected while it steps: step() holds a reference to it. */
    destroy_planners(self); /* none left: each holds a reference to its world */
    th_results_free(self->results);
    free(self->results_dir);
    th_world_destroy(self->w);
    free(self->argument);
    PyObject_Free(self);
}

/* ---- making worlds ------------------------------------------------------------------ */

static PyObject *mod_create(PyObject *mod, PyObject *args, PyObject *kw) {
    (void)mod;
    static char *kws[] = {"width",    "height", "cell_size",  "seed",           "threads",
                          "timestep", "wrap",   "stall_time", "agent_capacity", NULL};
    th_world_def d = th_default_world_def();
    double width = d.width, height = d.height, cell = d.cell_size, timestep = d.timestep,
           stall = d.stall_time;
    unsigned long long seed = d.seed;
    unsigned int threads = d.threads, capacity = d.agent_capacity;
    int wrap_edges = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|dddO&O&dpdO&", kws, &width, &height, &cell,
                                     conv_u64, &seed, conv_u32, &threads, &timestep, &wrap_edges,
                                     &stall, conv_u32, &capacity))
        return NULL;
    d.width = (float)width;
    d.height = (float)height;
    d.cell_size = (float)cell;
    d.seed = seed;
    d.threads = threads;
    d.timestep = (float)timestep;
    d.bounds = wrap_edges ? TH_BOUNDS_WRAP : TH_BOUNDS_WALLS;
    d.stall_time = (float)stall;
    d.agent_capacity = capacity;
    th_error err = {0};
    th_world *w;
    Py_BEGIN_ALLOW_THREADS w = th_world_create(&d, &err);
    Py_END_ALLOW_THREADS if (!w) return raise_error(&err);
    WorldObject *o = wrap(w);
    if (o) snprintf(o->name, sizeof o->name, "world");
    return (PyObject *)o;
}

static PyObject *mod_load(PyObject *mod, PyObject *args, PyObject *kw) {
    (void)mod;
    static char *kws[] = {"path", "seed", "threads", "agents", "allow_outside_paths", NULL};
    PyObject *path_obj = NULL, *seed_obj = Py_None;
    unsigned int threads = 0, agents = 0;
    int outside = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|OO&O&p", kws, PyUnicode_FSConverter, &path_obj,
                                     &seed_obj, conv_u32, &threads, conv_u32, &agents, &outside))
        return NULL;
    th_scene_opts so = {.threads = threads, .agents = agents, .allow_outside_paths = outside};
    if (seed_obj != Py_None) {
        so.override_seed = true;
        unsigned long long seed;
        if (!conv_u64(seed_obj, &seed)) {
            Py_DECREF(path_obj);
            return NULL;
        }
        so.seed = seed;
    }
    const char *path = PyBytes_AS_STRING(path_obj);
    th_scene_info info;
    th_error err = {0};
    th_world *w;
    Py_BEGIN_ALLOW_THREADS w = th_scene_load(path, &so, &info, &err);
    Py_END_ALLOW_THREADS if (!w) {
        Py_DECREF(path_obj);
        return raise_error(&err);
    }
    WorldObject *o = wrap(w);
    if (o) {
        snprintf(o->name, sizeof o->name, "%s", info.name);
        o->scene_steps = info.steps;
        o->argument = strdup(path);
        o->warnings = info.warnings;
        snprintf(o->warning, sizeof o->warning, "%s", info.warning);
        /* What loads but is most likely a mistake: a Python warning, as the command line's. */
        if (info.warnings && PyErr_WarnEx(PyExc_UserWarning, info.warning, 1) < 0) {
            Py_DECREF(o);
            o = NULL;
        }
    }
    Py_DECREF(path_obj);
    return (PyObject *)o;
}

static PyObject *mod_demo(PyObject *mod, PyObject *args) {
    (void)mod;
    const char *name;
    th_demo_opts o = {0};
    unsigned long long seed;
    if (!PyArg_ParseTuple(args, "sO&O&O&", &name, conv_u32, &o.agents, conv_u64, &seed, conv_u32,
                          &o.threads))
        return NULL;
    o.seed = seed;
    th_error err = {0};
    th_world *w;
    Py_BEGIN_ALLOW_THREADS w = th_demo_create(name, &o, &err);
    Py_END_ALLOW_THREADS if (!w) return raise_error(&err);
    WorldObject *obj = wrap(w);
    if (obj) {
        snprintf(obj->name, sizeof obj->name, "%s", name);
        obj->argument = strdup(name);
    }
    return (PyObject *)obj;
}

/* check(path, seed or None, threads, agents, allow_outside_paths) -> the scene's summary */
static PyObject *mod_check(PyObject *mod, PyObject *args) {
    (void)mod;
    PyObject *path_obj = NULL, *seed_obj;
    unsigned int threads, agents;
    int outside;
    if (!PyArg_ParseTuple(args, "O&OO&O&p", PyUnicode_FSConverter, &path_obj, &seed_obj, conv_u32,
                          &threads, conv_u32, &agents, &outside))
        return NULL;
    th_scene_opts so = {.threads = threads, .agents = agents, .allow_outside_paths = outside};
    if (seed_obj != Py_None) {
        unsigned long long seed;
        if (!conv_u64(seed_obj, &seed)) {
            Py_DECREF(path_obj);
            return NULL;
        }
        so.override_seed = true;
        so.seed = seed;
    }
    th_scene_info info;
    th_error err = {0};
    bool ok;
    const char *path = PyBytes_AS_STRING(path_obj);
    Py_BEGIN_ALLOW_THREADS ok = th_scene_check(path, &so, &info, &err);
    Py_END_ALLOW_THREADS Py_DECREF(path_obj);
    if (!ok) return raise_error(&err);
    return Py_BuildValue("{sNsKsdsIsIsIsIsisisNsIsN}", "name", str_of(info.name), "steps",
                         (unsigned long long)info.steps, "timestep", (double)info.timestep,
                         "agents", info.agents, "crowds", info.crowds, "bunkers", info.bunkers,
                         "events", info.events, "map_cols", info.map_cols, "map_rows",
                         info.map_rows, "map_image", str_of(info.map_image), "warnings",
                         info.warnings, "warning", str_of(info.warning));
}

/* ---- stepping ----------------------------------------------------------------------- */

static void note_start(WorldObject *self) {
    if (!self->started) {
        self->agents_start = th_world_agent_count(self->w);
        self->started = 1;
    }
}

/* step(n): n steps with the GIL released. */
/* Stepping releases the GIL; about every SIGNAL_CHECK_NS of it the loop takes the GIL back to
 * run Python's signal handlers, so Ctrl-C (KeyboardInterrupt) ends a long step(n) or run(n)
 * within that time, the steps taken so far kept. */
#define SIGNAL_CHECK_NS 50000000ull

/* True when a signal handler raised (the exception is set); `ts` is the saved thread state. */
static bool interrupted(PyThreadState **ts) {
    PyEval_RestoreThread(*ts);
    bool raised = PyErr_CheckSignals() < 0;
    *ts = PyEval_SaveThread();
    return raised;
}

static PyObject *World_step(WorldObject *self, PyObject *args) {
    long long n = 1;
    if (!PyArg_ParseTuple(args, "|L", &n)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    if (n < 0) return raise_invalid("step: the number of steps must be 0 or more");
    note_start(self);
    self->busy = 1;
    uint64_t t0 = th_now_ns(), check = t0 + SIGNAL_CHECK_NS;
    long long i = 0;
    bool stop = false;
    th_error rerr = {0};
    bool gathered = true;
    PyThreadState *ts = PyEval_SaveThread();
    while (i < n && !stop) {
        th_world_step(w);
        i++;
        if (self->results && !(gathered = th_results_step(self->results, w, &rerr))) break;
        if (th_now_ns() >= check) {
            stop = interrupted(&ts);
            check = th_now_ns() + SIGNAL_CHECK_NS;
        }
    }
    PyEval_RestoreThread(ts);
    self->busy = 0;
    self->wall_s += (double)(th_now_ns() - t0) * 1e-9;
    self->asked += (uint64_t)i;
    self->scene_over = 0;
    if (!gathered) return raise_error(&rerr);
    if (stop) return NULL;
    Py_RETURN_NONE;
}

/* run(steps, fixed): as `throng run`: at most `steps` steps, fewer when the scene is over
 * (unless fixed); returns the steps run. */
static PyObject *World_run(WorldObject *self, PyObject *args) {
    long long n;
    int fixed = 0;
    if (!PyArg_ParseTuple(args, "L|p", &n, &fixed)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    if (n < 0) return raise_invalid("run: the number of steps must be 0 or more");
    note_start(self);
    self->busy = 1;
    uint64_t t0 = th_now_ns(), check = t0 + SIGNAL_CHECK_NS;
    long long run = 0;
    int over = 0;
    bool stop = false;
    th_error rerr = {0};
    bool gathered = true;
    PyThreadState *ts = PyEval_SaveThread();
    while (run < n && !stop) {
        th_world_step(w);
        run++;
        if (self->results && !(gathered = th_results_step(self->results, w, &rerr))) break;
        if (!fixed && th_world_scene_over(w)) {
            over = 1;
            break;
        }
        if (th_now_ns() >= check) {
            stop = interrupted(&ts);
            check = th_now_ns() + SIGNAL_CHECK_NS;
        }
    }
    PyEval_RestoreThread(ts);
    self->busy = 0;
    self->wall_s += (double)(th_now_ns() - t0) * 1e-9;
    self->asked += stop || !gathered ? (uint64_t)run : (uint64_t)n;
    self->scene_over = over;
    if (!gathered) return raise_error(&rerr);
    if (stop) return NULL;
    return PyLong_FromLongLong(run);
}

static PyObject *World_close(WorldObject *self, PyObject *unused) {
    (void)unused;
    if (self->busy) return (PyObject *)world_of(self); /* raises */
    destroy_planners(self);
    th_results_free(self->results);
    self->results = NULL;
    th_world_destroy(self->w);
    self->w = NULL;
    Py_RETURN_NONE;
}

/* ---- reading ------------------------------------------------------------------------ */

static PyObject *new_array(int nd, npy_intp *dims, int type) {
    return PyArray_SimpleNew(nd, dims, type);
}

/* agents(): copies of the agent arrays, in storage order. */
static PyObject *World_agents(WorldObject *self, PyObject *unused) {
    (void)unused;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_agent_view v = th_world_agents(w);
    npy_intp n = (npy_intp)v.count, dims2[2] = {n, 2};
    PyObject *pos = new_array(2, dims2, NPY_FLOAT32), *vel = new_array(2, dims2, NPY_FLOAT32),
             *ids = new_array(1, &n, NPY_UINT64), *crowd = new_array(1, &n, NPY_UINT16),
             *flags = new_array(1, &n, NPY_UINT8), *out = NULL;
    if (!pos || !vel || !ids || !crowd || !flags) goto done;
    float *p = PyArray_DATA((PyArrayObject *)pos), *q = PyArray_DATA((PyArrayObject *)vel);
    uint64_t *id = PyArray_DATA((PyArrayObject *)ids);
    for (npy_intp i = 0; i < n; i++) {
        p[2 * i] = v.px[i];
        p[2 * i + 1] = v.py[i];
    }
    for (npy_intp i = 0; i < n; i++) {
        q[2 * i] = v.vx[i];
        q[2 * i + 1] = v.vy[i];
    }
    for (npy_intp i = 0; i < n; i++)
        id[i] = (uint64_t)v.id[i].index1 | ((uint64_t)v.id[i].generation << 32);
    if (n) {
        memcpy(PyArray_DATA((PyArrayObject *)crowd), v.crowd, (size_t)n * sizeof *v.crowd);
        memcpy(PyArray_DATA((PyArrayObject *)flags), v.flags, (size_t)n * sizeof *v.flags);
    }
    out = Py_BuildValue("{sOsOsOsOsO}", "position", pos, "velocity", vel, "id", ids, "crowd", crowd,
                        "state", flags);
done:
    Py_XDECREF(pos);
    Py_XDECREF(vel);
    Py_XDECREF(ids);
    Py_XDECREF(crowd);
    Py_XDECREF(flags);
    return out;
}

/* positions(out): positions alone into a float32 (N, 2) array (a new one when out is None). */
static PyObject *World_positions(WorldObject *self, PyObject *args) {
    PyObject *out = Py_None;
    if (!PyArg_ParseTuple(args, "|O", &out)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_agent_view v = th_world_agents(w);
    npy_intp dims[2] = {(npy_intp)v.count, 2};
    PyArrayObject *a;
    if (out == Py_None) {
        a = (PyArrayObject *)new_array(2, dims, NPY_FLOAT32);
        if (!a) return NULL;
    } else {
        if (!PyArray_Check(out) || PyArray_TYPE((PyArrayObject *)out) != NPY_FLOAT32 ||
            PyArray_NDIM((PyArrayObject *)out) != 2 ||
            PyArray_DIM((PyArrayObject *)out, 0) != dims[0] ||
            PyArray_DIM((PyArrayObject *)out, 1) != 2 ||
            !PyArray_IS_C_CONTIGUOUS((PyArrayObject *)out) ||
            !PyArray_ISWRITEABLE((PyArrayObject *)out)) {
            PyErr_Format(PyExc_ValueError,
                         "positions: out must be a writable C-contiguous float32 array of shape "
                         "(%ld, 2)",
                         (long)dims[0]);
            return NULL;
        }
        a = (PyArrayObject *)out;
        Py_INCREF(out);
    }
    float *p = PyArray_DATA(a);
    for (npy_intp i = 0; i < dims[0]; i++) {
        p[2 * i] = v.px[i];
        p[2 * i + 1] = v.py[i];
    }
    return (PyObject *)a;
}

static PyObject *World_agent(WorldObject *self, PyObject *args) {
    unsigned long long id;
    if (!PyArg_ParseTuple(args, "O&", conv_u64, &id)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_agent_state s;
    th_agent_id a = {(uint32_t)id, (uint32_t)(id >> 32)};
    if (!th_world_get_agent(w, a, &s)) Py_RETURN_NONE;
    PyObject *d =
        Py_BuildValue("{s(dd)s(dd)sIsOsOsI}", "position", (double)s.position.x,
                      (double)s.position.y, "velocity", (double)s.velocity.x, (double)s.velocity.y,
                      "crowd", s.crowd.index1 - 1, "stranded", s.stranded ? Py_True : Py_False,
                      "leader", s.leader ? Py_True : Py_False, "neighbors", s.neighbors);
    if (d && (put(d, "acceleration",
                  Py_BuildValue("(dd)", (double)s.acceleration.x, (double)s.acceleration.y)) < 0 ||
              put(d, "waypoint", PyLong_FromUnsignedLong(s.waypoint)) < 0 ||
              put(d, "carrying", PyBool_FromLong(s.carrying)) < 0 ||
              put(d, "start_time", PyFloat_FromDouble((double)s.start_time)) < 0 ||
              put(d, "fed", PyFloat_FromDouble((double)s.fed)) < 0 ||
              put(d, "incapacitated", PyBool_FromLong(s.incapacitated)) < 0 ||
              put(d, "exit", index_or_none(s.exit.index1)) < 0)) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

/* The spatial grid: (cols, rows, cell width, cell height). */
static PyObject *grid_of(const th_world *w) {
    int32_t cols = 0, rows = 0;
    float cw = 0, ch = 0;
    th_world_grid_size(w, &cols, &rows, &cw, &ch);
    return Py_BuildValue("(iidd)", cols, rows, (double)cw, (double)ch);
}

static PyObject *World_counts(WorldObject *self, PyObject *unused) {
    (void)unused;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_world_def d = th_world_get_def(w);
    int32_t cols = 0, rows = 0;
    float cell = 0.0f;
    th_world_map_size(w, &cols, &rows, &cell);
    PyObject *out = Py_BuildValue(
        "{sKsIsIsIsIsIsIsIsdsdsdsIsKsOsisisd}", "step", (unsigned long long)th_world_step_count(w),
        "agents", th_world_agent_count(w), "crowds", th_world_crowd_count(w), "bunkers",
        th_world_bunker_count(w), "spawners", th_world_spawner_count(w), "exits",
        th_world_exit_count(w), "areas", th_world_measure_area_count(w), "lines",
        th_world_measure_line_count(w), "width", (double)d.width, "height", (double)d.height,
        "timestep", (double)d.timestep, "threads", d.threads, "seed", (unsigned long long)d.seed,
        "wrap", d.bounds == TH_BOUNDS_WRAP ? Py_True : Py_False, "cols", cols, "rows", rows,
        "cell_size", (double)cell);
    if (out &&
        (put(out, "levels", PyLong_FromUnsignedLong(th_world_level_count(w))) < 0 ||
         put(out, "stairs", PyLong_FromUnsignedLong(th_world_stair_count(w))) < 0 ||
         put(out, "elevators", PyLong_FromUnsignedLong(th_world_elevator_count(w))) < 0 ||
         put(out, "hazards", PyLong_FromUnsignedLong(th_world_hazard_count(w))) < 0 ||
         put(out, "destinations", PyLong_FromUnsignedLong(th_world_destination_count(w))) < 0 ||
         put(out, "groups", PyLong_FromUnsignedLong(th_world_group_count(w))) < 0 ||
         put(out, "pending_events", PyLong_FromUnsignedLong(th_world_pending_events(w))) < 0 ||
         put(out, "id_slots", PyLong_FromUnsignedLong(th_world_id_slots(w))) < 0 ||
         put(out, "grid", grid_of(w)) < 0)) {
        Py_DECREF(out);
        return NULL;
    }
    return out;
}

static PyObject *World_stats(WorldObject *self, PyObject *unused) {
    (void)unused;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_world_stats s = th_world_get_stats(w);
    return Py_BuildValue("{sKsIsdsdsIsIsIsIsIsIsI}", "step", (unsigned long long)s.step, "agents",
                         s.agents, "mean_neighbors", s.mean_neighbors, "mean_candidates",
                         s.mean_candidates, "spawned", s.spawned, "sheltered", s.sheltered,
                         "stranded", s.stranded, "removed", s.removed, "buried", s.buried, "exited",
                         s.exited, "stalled", s.stalled);
}

static PyObject *World_hash(WorldObject *self, PyObject *unused) {
    (void)unused;
    th_world *w = world_of(self);
    if (!w) return NULL;
    return PyLong_FromUnsignedLongLong(th_world_hash(w));
}

static PyObject *World_scene_over(WorldObject *self, PyObject *unused) {
    (void)unused;
    th_world *w = world_of(self);
    if (!w) return NULL;
    return PyBool_FromLong(th_world_scene_over(w));
}

static PyObject *World_crowd_name(WorldObject *self, PyObject *args) {
    unsigned int i;
    if (!PyArg_ParseTuple(args, "O&", conv_u32, &i)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    const th_crowd_def *c = th_world_get_crowd(w, (th_crowd_id){i + 1});
    if (!c) Py_RETURN_NONE;
    return PyUnicode_DecodeUTF8(c->name, (Py_ssize_t)strlen(c->name), "replace");
}

static PyObject *World_bunker(WorldObject *self, PyObject *args) {
    unsigned int i;
    if (!PyArg_ParseTuple(args, "O&", conv_u32, &i)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_bunker_info b;
    if (!th_world_get_bunker(w, (th_bunker_id){i + 1}, &b)) Py_RETURN_NONE;
    return Py_BuildValue("{sss(iiii)sIsIsOsOsOsd}", "name", b.name, "cells", b.x0, b.y0, b.x1, b.y1,
                         "capacity", b.capacity, "sheltered", b.sheltered, "destroyed",
                         b.destroyed ? Py_True : Py_False, "full", b.full ? Py_True : Py_False,
                         "exit", b.exit ? Py_True : Py_False, "max_flow", (double)b.max_flow);
}

static PyObject *World_find_bunker(WorldObject *self, PyObject *args) {
    const char *name;
    if (!PyArg_ParseTuple(args, "s", &name)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    return PyLong_FromLong((long)th_world_find_bunker(w, name).index1 - 1);
}

static PyObject *World_measure_area(WorldObject *self, PyObject *args) {
    unsigned int i;
    if (!PyArg_ParseTuple(args, "O&", conv_u32, &i)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_measure_area_info a;
    if (!th_world_get_measure_area(w, (th_measure_area_id){i + 1}, &a)) Py_RETURN_NONE;
    return Py_BuildValue("{sss(dddd)sIsdsdsd}", "name", a.name, "area", (double)a.x0, (double)a.y0,
                         (double)a.x1, (double)a.y1, "count", a.count, "density", a.density,
                         "mean_speed", a.mean_speed, "lane_order", a.lane_order);
}

static PyObject *World_measure_line(WorldObject *self, PyObject *args) {
    unsigned int i;
    if (!PyArg_ParseTuple(args, "O&", conv_u32, &i)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_measure_line_info l;
    if (!th_world_get_measure_line(w, (th_measure_line_id){i + 1}, &l)) Py_RETURN_NONE;
    return Py_BuildValue("{sss(dd)s(dd)sdsisIsIsLsKsKsd}", "name", l.name, "a", (double)l.a.x,
                         (double)l.a.y, "b", (double)l.b.x, (double)l.b.y, "window",
                         (double)l.window, "crossed", l.crossed, "forward", l.forward, "backward",
                         l.backward, "crossed_total", (long long)l.crossed_total, "forward_total",
                         (unsigned long long)l.forward_total, "backward_total",
                         (unsigned long long)l.backward_total, "flow", l.flow);
}

/* times(kind): steps after which the k-th agent had sheltered (kind 0) or exited (1), for k =
 * 1 .. that count, as a uint64 array. */
static PyObject *World_times(WorldObject *self, PyObject *args) {
    int kind;
    if (!PyArg_ParseTuple(args, "i", &kind)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_world_stats s = th_world_get_stats(w);
    npy_intp n = kind ? s.exited : s.sheltered;
    PyObject *a = new_array(1, &n, NPY_UINT64);
    if (!a) return NULL;
    uint64_t *t = PyArray_DATA((PyArrayObject *)a);
    for (npy_intp k = 0; k < n; k++)
        t[k] = kind ? th_world_exited_by(w, (uint32_t)k + 1)
                    : th_world_sheltered_by(w, (uint32_t)k + 1);
    return a;
}

/* report_json(path): the run report as `throng run --json` writes it. */
/* The run's facts as the report and the results print them: the world's name and argument, the
 * steps asked for and taken, the stepping time, the agents before the first step. */
static th_run_facts facts_of(const WorldObject *self, const th_world *w) {
    return (th_run_facts){.scene = self->name,
                          .argument = self->argument ? self->argument : "",
                          .steps_asked = self->asked,
                          .steps_run = th_world_step_count(w),
                          .wall_s = self->wall_s,
                          .agents_start =
                              self->started ? self->agents_start : th_world_agent_count(w),
                          .scene_over = self->scene_over != 0,
                          .warnings = self->warnings,
                          .warning = self->warning};
}

static PyObject *World_report_json(WorldObject *self, PyObject *args) {
    const char *path;
    if (!PyArg_ParseTuple(args, "s", &path)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    const th_run_facts f = facts_of(self, w);
    th_error err = {0};
    if (!th_report_write_json(path, w, &f, &err)) return raise_error(&err);
    Py_RETURN_NONE;
}

/* start_results(dir): gather the tables of `throng run --results` after every step from now
 * on; the world must not have stepped yet. */
static PyObject *World_start_results(WorldObject *self, PyObject *args) {
    const char *dir;
    if (!PyArg_ParseTuple(args, "s", &dir)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_error err = {0};
    char msg[512];
    if (self->results) {
        snprintf(msg, sizeof msg, "start_results: results are gathered already (into %.400s)",
                 self->results_dir);
        return raise_state(msg);
    }
    if (th_world_step_count(w) != 0) {
        snprintf(msg, sizeof msg,
                 "start_results: the world has stepped %" PRIu64 " time(s); results are "
                 "gathered from the first step",
                 th_world_step_count(w));
        return raise_state(msg);
    }
    if (!th_results_check_dir(dir, &err)) {
        /* The command line's checks, named as Python calls them. */
        static const char flag[] = "--results: ";
        if (strncmp(err.message, flag, sizeof flag - 1) == 0) {
            char was[sizeof err.message];
            memcpy(was, err.message + sizeof flag - 1, sizeof was - (sizeof flag - 1));
            was[sizeof was - sizeof flag] = '\0';
            snprintf(err.message, sizeof err.message, "start_results: %.480s", was);
        }
        return raise_error(&err);
    }
    char *copy = strdup(dir);
    if (!copy) return PyErr_NoMemory();
    th_results *r = th_results_start(w, dir, &err);
    if (!r) {
        free(copy);
        return raise_error(&err);
    }
    self->results = r;
    self->results_dir = copy;
    Py_RETURN_NONE;
}

/* write_results(): write every file of the results into the folder start_results named, and
 * end the gathering; returns the path of its index.html. */
static PyObject *World_write_results(WorldObject *self, PyObject *unused) {
    (void)unused;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_error err = {0};
    if (!self->results) return raise_state("write_results: no results gathered (start_results)");
    const th_run_facts f = facts_of(self, w);
    const th_world_def def = th_world_get_def(w);
    bool wrote = th_results_write(self->results, w, &f, def.seed, def.threads, &err);
    th_results_free(self->results);
    self->results = NULL;
    char *dir = self->results_dir;
    self->results_dir = NULL;
    if (!wrote) {
        free(dir);
        return raise_error(&err);
    }
    const size_t len = strlen(dir);
    PyObject *index =
        PyUnicode_FromFormat("%s%sindex.html", dir, len && dir[len - 1] == '/' ? "" : "/");
    free(dir);
    return index;
}

static PyObject *World_scene_steps(WorldObject *self, void *closure) {
    (void)closure;
    return PyLong_FromUnsignedLongLong(self->scene_steps);
}

/* ---- building ----------------------------------------------------------------------- */

static PyObject *World_set_cell(WorldObject *self, PyObject *args) {
    int x, y, kind;
    unsigned int cost;
    if (!PyArg_ParseTuple(args, "iiiO&", &x, &y, &kind, conv_u32, &cost)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_error err = {0};
    if (!th_world_set_cell(w, x, y, (th_cell_kind)kind, cost, &err)) return raise_error(&err);
    Py_RETURN_NONE;
}

static PyObject *World_cell(WorldObject *self, PyObject *args) {
    int x, y;
    if (!PyArg_ParseTuple(args, "ii", &x, &y)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    uint32_t cost = 0;
    th_cell_kind k = th_world_cell(w, x, y, &cost);
    return Py_BuildValue("(iI)", (int)k, cost);
}

static PyObject *World_add_bunker(WorldObject *self, PyObject *args) {
    th_bunker_def d = {0};
    int is_exit = 0;
    double max_flow = 0.0;
    if (!PyArg_ParseTuple(args, "siiiiO&|pd", &d.name, &d.x0, &d.y0, &d.x1, &d.y1, conv_u32,
                          &d.capacity, &is_exit, &max_flow))
        return NULL;
    d.exit = is_exit != 0;
    d.max_flow = (float)max_flow;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_error err = {0};
    th_bunker_id b = th_world_add_bunker(w, &d, &err);
    if (!th_bunker_id_valid(b)) return raise_error(&err);
    return PyLong_FromUnsignedLong(b.index1 - 1);
}

/* The float fields of th_crowd_def a Python keyword may set. */
static const struct {
    const char *name;
    size_t offset;
} k_crowd_floats[] = {
#define F(field) \
    { #field, offsetof(th_crowd_def, field) }
    F(body_radius),       F(neighbor_radius),  F(separation_radius), F(fov_deg),
    F(separation_weight), F(alignment_weight), F(cohesion_weight),   F(max_speed),
    F(max_force),         F(flow_weight),      F(wall_radius),       F(wall_weight),
    F(desired_speed),     F(desired_speed_sd), F(time_gap),          F(relaxation),
    F(repulsion),         F(repulsion_range),  F(wall_repulsion),    F(wall_repulsion_range),
    F(anticipation),      F(keep_right),       F(pursuit_weight),    F(lead_fov_deg),
    F(lead_radius),       F(flee_radius),      F(flee_weight),       F(evade_horizon),
    F(smoke_slope),       F(smoke_min_factor),
#undef F
};

static int get_vec2(PyObject *o, th_vec2 *v, const char *what) {
    double x, y;
    if (!PyArg_ParseTuple(o, "dd", &x, &y)) {
        PyErr_Format(PyExc_TypeError, "%s must be a pair of numbers (x, y)", what);
        return 0;
    }
    *v = th_v2((float)x, (float)y);
    return 1;
}

/* add_crowd(name, pedestrian, goal, params, route, mode, radius, heading, field, color,
 * target): a crowd from the pedestrian or boids defaults with `params` ({field: float})
 * applied. */
static PyObject *World_add_crowd(WorldObject *self, PyObject *args) {
    const char *name;
    int pedestrian, goal, mode;
    PyObject *params, *route, *heading;
    double radius, wander;
    unsigned int field, color, target;
    if (!PyArg_ParseTuple(args, "spiO!OidOdO&O&O&", &name, &pedestrian, &goal, &PyDict_Type,
                          &params, &route, &mode, &radius, &heading, &wander, conv_u32, &field,
                          conv_u32, &color, conv_u32, &target))
        return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_crowd_def d = pedestrian ? th_default_pedestrian_def() : th_default_crowd_def();
    d.name = name;
    d.goal.kind = (th_goal_kind)goal;
    d.goal.mode = (th_route_mode)mode;
    d.goal.radius = (float)radius;
    d.goal.wander_rate = (float)wander;
    d.goal.field = (th_field_id){field};
    d.color = color;
    d.target = (th_target_id){target};
    if (heading != Py_None && !get_vec2(heading, &d.heading, "heading")) return NULL;
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(params, &pos, &key, &value)) {
        const char *k = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : NULL;
        if (!k) {
            PyErr_SetString(PyExc_TypeError, "add_crowd: parameter names are strings");
            return NULL;
        }
        /* Distributions come as (kind, a, b, min, max), from throng.World.add_crowd. */
        th_distribution *dist = strcmp(k, "pre_movement") == 0 ? &d.pre_movement
                                : strcmp(k, "free_speed") == 0 ? &d.free_speed
                                                               : NULL;
        if (dist) {
            int kind;
            float a, b, lo, hi;
            if (!PyArg_ParseTuple(value, "iffff", &kind, &a, &b, &lo, &hi)) return NULL;
            *dist = (th_distribution){(th_distrib_kind)kind, a, b, lo, hi};
            continue;
        }
        size_t i = 0, n = sizeof k_crowd_floats / sizeof k_crowd_floats[0];
        while (i < n && strcmp(k_crowd_floats[i].name, k) != 0) i++;
        if (i == n) {
            char msg[256];
            snprintf(msg, sizeof msg, "add_crowd: unknown crowd parameter '%.100s'", k);
            return raise_invalid(msg);
        }
        double v = PyFloat_AsDouble(value);
        if (v == -1.0 && PyErr_Occurred()) return NULL;
        *(float *)((char *)&d + k_crowd_floats[i].offset) = (float)v;
    }
    th_vec2 *points = NULL;
    if (route != Py_None) {
        PyArrayObject *a = (PyArrayObject *)PyArray_FROMANY(
            route, NPY_FLOAT32, 2, 2, NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST);
        if (!a) return NULL;
        if (PyArray_DIM(a, 1) != 2 || PyArray_DIM(a, 0) > TH_MAX_ROUTE_POINTS) {
            Py_DECREF(a);
            return raise_invalid("add_crowd: route must be 1 to 256 points (x, y)");
        }
        npy_intp n = PyArray_DIM(a, 0);
        points = malloc(sizeof *points * (size_t)(n ? n : 1));
        if (!points) {
            Py_DECREF(a);
            return PyErr_NoMemory();
        }
        const float *f = PyArray_DATA(a);
        for (npy_intp i = 0; i < n; i++) points[i] = th_v2(f[2 * i], f[2 * i + 1]);
        d.goal.points = points;
        d.goal.point_count = (uint32_t)n;
        Py_DECREF(a);
    }
    th_error err = {0};
    th_crowd_id c = th_world_add_crowd(w, &d, &err);
    free(points);
    if (!th_crowd_id_valid(c)) return raise_error(&err);
    return PyLong_FromUnsignedLong(c.index1 - 1);
}

/* add_agents(crowd, positions (N, 2), velocities (N, 2) or None) -> uint64 ids. Stops at the
 * first refusal, with its index in the message. */
static PyObject *World_add_agents(WorldObject *self, PyObject *args) {
    unsigned int crowd;
    PyObject *pos_obj, *vel_obj;
    if (!PyArg_ParseTuple(args, "O&OO", conv_u32, &crowd, &pos_obj, &vel_obj)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    PyArrayObject *p = (PyArrayObject *)PyArray_FROMANY(pos_obj, NPY_FLOAT32, 2, 2,
                                                        NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST),
                  *v = NULL;
    if (!p) return NULL;
    npy_intp n = PyArray_DIM(p, 0);
    if (PyArray_DIM(p, 1) != 2) {
        Py_DECREF(p);
        return raise_invalid("add_agents: positions must have shape (N, 2)");
    }
    if (vel_obj != Py_None) {
        v = (PyArrayObject *)PyArray_FROMANY(vel_obj, NPY_FLOAT32, 2, 2,
                                             NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST);
        if (!v || PyArray_DIM(v, 0) != n || PyArray_DIM(v, 1) != 2) {
            Py_DECREF(p);
            if (!v) return NULL;
            Py_DECREF(v);
            return raise_invalid("add_agents: velocities must have the shape of positions");
        }
    }
    PyObject *ids = new_array(1, &n, NPY_UINT64);
    if (!ids) goto fail;
    const float *pp = PyArray_DATA(p), *vv = v ? PyArray_DATA(v) : NULL;
    uint64_t *out = PyArray_DATA((PyArrayObject *)ids);
    for (npy_intp i = 0; i < n; i++) {
        th_error err = {0};
        th_agent_id a =
            th_world_add_agent(w, (th_crowd_id){crowd + 1}, th_v2(pp[2 * i], pp[2 * i + 1]),
                               vv ? th_v2(vv[2 * i], vv[2 * i + 1]) : th_v2(0, 0), &err);
        if (!th_agent_id_valid(a)) {
            char msg[sizeof err.message];
            snprintf(msg, sizeof msg, "agent %ld: %.400s", (long)i, err.message);
            snprintf(err.message, sizeof err.message, "%s", msg);
            raise_error(&err);
            Py_DECREF(ids);
            goto fail;
        }
        out[i] = (uint64_t)a.index1 | ((uint64_t)a.generation << 32);
    }
    Py_DECREF(p);
    Py_XDECREF(v);
    return ids;
fail:
    Py_DECREF(p);
    Py_XDECREF(v);
    return NULL;
}

static PyObject *World_remove_agent(WorldObject *self, PyObject *args) {
    unsigned long long id;
    if (!PyArg_ParseTuple(args, "O&", conv_u64, &id)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_error err = {0};
    if (!th_world_remove_agent(w, (th_agent_id){(uint32_t)id, (uint32_t)(id >> 32)}, &err))
        return raise_error(&err);
    Py_RETURN_NONE;
}

/* ---- steering agents from the host ----------------------------------------------------- */

static th_agent_id agent_of(unsigned long long id) {
    return (th_agent_id){(uint32_t)id, (uint32_t)(id >> 32)};
}

/* set_agent_preferred_velocity(id, (vx, vy)) */
static PyObject *World_set_agent_preferred_velocity(WorldObject *self, PyObject *args) {
    unsigned long long id;
    double vx, vy;
    if (!PyArg_ParseTuple(args, "O&(dd)", conv_u64, &id, &vx, &vy)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_error err = {0};
    if (!th_world_set_agent_preferred_velocity(w, agent_of(id), th_v2((float)vx, (float)vy), &err))
        return raise_error(&err);
    Py_RETURN_NONE;
}

static PyObject *World_clear_agent_preferred_velocity(WorldObject *self, PyObject *args) {
    unsigned long long id;
    if (!PyArg_ParseTuple(args, "O&", conv_u64, &id)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_error err = {0};
    if (!th_world_clear_agent_preferred_velocity(w, agent_of(id), &err)) return raise_error(&err);
    Py_RETURN_NONE;
}

/* agent_preferred_velocity(id) -> (vx, vy) or None */
static PyObject *World_agent_preferred_velocity(WorldObject *self, PyObject *args) {
    unsigned long long id;
    if (!PyArg_ParseTuple(args, "O&", conv_u64, &id)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_vec2 v;
    if (!th_world_get_agent_preferred_velocity(w, agent_of(id), &v)) Py_RETURN_NONE;
    return Py_BuildValue("(dd)", (double)v.x, (double)v.y);
}

/* set_agent_position(id, (x, y)) */
static PyObject *World_set_agent_position(WorldObject *self, PyObject *args) {
    unsigned long long id;
    double x, y;
    if (!PyArg_ParseTuple(args, "O&(dd)", conv_u64, &id, &x, &y)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_error err = {0};
    if (!th_world_set_agent_position(w, agent_of(id), th_v2((float)x, (float)y), &err))
        return raise_error(&err);
    Py_RETURN_NONE;
}

/* agent_neighbors(id, radius) -> uint64 ids, nearest first: counted, then copied. */
static PyObject *World_agent_neighbors(WorldObject *self, PyObject *args) {
    unsigned long long id;
    double radius;
    if (!PyArg_ParseTuple(args, "O&d", conv_u64, &id, &radius)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_error err = {0};
    uint32_t n = 0;
    if (!th_world_agent_neighbors(w, agent_of(id), (float)radius, NULL, 0, &n, &err))
        return raise_error(&err);
    th_agent_id *ids = n ? malloc((size_t)n * sizeof *ids) : NULL;
    if (n && !ids) return PyErr_NoMemory();
    uint32_t got = n;
    if (n && !th_world_agent_neighbors(w, agent_of(id), (float)radius, ids, n, &got, &err)) {
        free(ids);
        return raise_error(&err);
    }
    npy_intp dims = (npy_intp)(got < n ? got : n);
    PyObject *out = new_array(1, &dims, NPY_UINT64);
    if (out) {
        uint64_t *o = PyArray_DATA((PyArrayObject *)out);
        for (npy_intp i = 0; i < dims; i++)
            o[i] = (uint64_t)ids[i].index1 | ((uint64_t)ids[i].generation << 32);
    }
    free(ids);
    return out;
}

static PyObject *World_add_destinations(WorldObject *self, PyObject *args) {
    PyObject *goals;
    if (!PyArg_ParseTuple(args, "O", &goals)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    PyObject *seq = PySequence_Fast(goals, "add_destinations: goals must be a sequence");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    th_destination *g = malloc(sizeof *g * (size_t)(n ? n : 1));
    if (!g) {
        Py_DECREF(seq);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        double weight = 0.0;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "ii|d", &g[i].x, &g[i].y,
                              &weight)) {
            free(g);
            Py_DECREF(seq);
            return NULL;
        }
        g[i].weight = (float)weight;
    }
    Py_DECREF(seq);
    th_error err = {0};
    th_field_id f = th_world_add_destinations(w, g, (uint32_t)n, &err);
    free(g);
    if (!th_field_id_valid(f)) return raise_error(&err);
    return PyLong_FromUnsignedLong(f.index1 - 1);
}

static PyObject *World_add_spawner(WorldObject *self, PyObject *args) {
    th_spawner_def d = th_default_spawner_def();
    unsigned int crowd;
    double x0, y0, x1, y1, vx, vy;
    if (!PyArg_ParseTuple(args, "zO&(dddd)dddO&(dd)", &d.name, conv_u32, &crowd, &x0, &y0, &x1, &y1,
                          &d.rate, &d.start, &d.stop, conv_u32, &d.limit, &vx, &vy))
        return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    d.crowd = (th_crowd_id){crowd + 1};
    d.x0 = (float)x0, d.y0 = (float)y0, d.x1 = (float)x1, d.y1 = (float)y1;
    d.velocity = th_v2((float)vx, (float)vy);
    th_error err = {0};
    th_spawner_id s = th_world_add_spawner(w, &d, &err);
    if (!th_spawner_id_valid(s)) return raise_error(&err);
    return PyLong_FromUnsignedLong(s.index1 - 1);
}

static PyObject *World_add_exit(WorldObject *self, PyObject *args) {
    th_exit_def d = th_default_exit_def();
    double x0, y0, x1, y1;
    PyObject *crowds;
    int field;
    double max_flow = 0.0;
    if (!PyArg_ParseTuple(args, "z(dddd)iO|d", &d.name, &x0, &y0, &x1, &y1, &field, &crowds,
                          &max_flow))
        return NULL;
    d.max_flow = (float)max_flow;
    th_world *w = world_of(self);
    if (!w) return NULL;
    d.x0 = (float)x0, d.y0 = (float)y0, d.x1 = (float)x1, d.y1 = (float)y1;
    if (field >= 0) d.field = (th_field_id){(uint32_t)field + 1};
    th_crowd_id ids[TH_MAX_CROWDS];
    if (crowds != Py_None) {
        PyObject *seq = PySequence_Fast(crowds, "add_exit: crowds must be a sequence");
        if (!seq) return NULL;
        Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
        if (n > TH_MAX_CROWDS) {
            Py_DECREF(seq);
            return raise_invalid("add_exit: more crowds than a world holds");
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            unsigned long c = PyLong_AsUnsignedLong(PySequence_Fast_GET_ITEM(seq, i));
            if (PyErr_Occurred()) {
                Py_DECREF(seq);
                return NULL;
            }
            ids[i] = (th_crowd_id){(uint32_t)c + 1};
        }
        Py_DECREF(seq);
        d.crowds = ids;
        d.crowd_count = (uint32_t)n;
    }
    th_error err = {0};
    th_exit_id e = th_world_add_exit(w, &d, &err);
    if (!th_exit_id_valid(e)) return raise_error(&err);
    return PyLong_FromUnsignedLong(e.index1 - 1);
}

static PyObject *World_add_measure_area(WorldObject *self, PyObject *args) {
    th_measure_area_def d = {0};
    double x0, y0, x1, y1;
    int axis;
    if (!PyArg_ParseTuple(args, "s(dddd)i", &d.name, &x0, &y0, &x1, &y1, &axis)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    d.x0 = (float)x0, d.y0 = (float)y0, d.x1 = (float)x1, d.y1 = (float)y1;
    th_error err = {0};
    th_measure_area_id a = th_world_add_measure_area(w, &d, &err);
    if (!th_measure_area_id_valid(a)) return raise_error(&err);
    if (axis != TH_LANE_OFF) {
        th_lane_def lanes = {.axis = (th_lane_axis)axis};
        if (!th_world_set_measure_lanes(w, a, &lanes, &err)) return raise_error(&err);
    }
    return PyLong_FromUnsignedLong(a.index1 - 1);
}

static PyObject *World_add_measure_line(WorldObject *self, PyObject *args) {
    th_measure_line_def d = {0};
    double ax, ay, bx, by, window;
    if (!PyArg_ParseTuple(args, "s(dd)(dd)d", &d.name, &ax, &ay, &bx, &by, &window)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    d.a = th_v2((float)ax, (float)ay);
    d.b = th_v2((float)bx, (float)by);
    d.window = (float)window;
    th_error err = {0};
    th_measure_line_id l = th_world_add_measure_line(w, &d, &err);
    if (!th_measure_line_id_valid(l)) return raise_error(&err);
    return PyLong_FromUnsignedLong(l.index1 - 1);
}

/* A step argument: None for the world's next step, else a count (false with an exception). */
static bool step_or_next(const th_world *w, PyObject *obj, uint64_t *step) {
    *step = th_world_step_count(w);
    if (obj == Py_None) return true;
    unsigned long long v;
    if (!conv_u64(obj, &v)) return false;
    *step = v;
    return true;
}

/* schedule(step, type, bunker, x0, y0, x1, y1, cost); step None = the next step. */
static PyObject *World_schedule(WorldObject *self, PyObject *args) {
    PyObject *step_obj;
    int type, bunker;
    th_event_def e = {0};
    if (!PyArg_ParseTuple(args, "OiiiiiiO&", &step_obj, &type, &bunker, &e.x0, &e.y0, &e.x1, &e.y1,
                          conv_u32, &e.cost))
        return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    uint64_t step;
    if (!step_or_next(w, step_obj, &step)) return NULL;
    e.type = (th_event_type)type;
    e.bunker = (th_bunker_id){bunker >= 0 ? (uint32_t)bunker + 1 : 0};
    th_error err = {0};
    if (!th_world_schedule(w, step, &e, &err)) return raise_error(&err);
    Py_RETURN_NONE;
}

/* schedule_crowd(step or None, crowd, fields, (9 floats in th_crowd_tune's order)). */
static PyObject *World_schedule_crowd(WorldObject *self, PyObject *args) {
    PyObject *step_obj;
    unsigned int crowd;
    th_crowd_tune t = {0};
    if (!PyArg_ParseTuple(args, "OIO&(fffffffff)", &step_obj, &crowd, conv_u32, &t.fields,
                          &t.separation_weight, &t.alignment_weight, &t.cohesion_weight,
                          &t.flow_weight, &t.wall_weight, &t.pursuit_weight, &t.flee_weight,
                          &t.max_speed, &t.max_force))
        return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    uint64_t step;
    if (!step_or_next(w, step_obj, &step)) return NULL;
    th_error err = {0};
    if (!th_world_schedule_crowd(w, step, (th_crowd_id){crowd + 1}, &t, &err))
        return raise_error(&err);
    Py_RETURN_NONE;
}

/* crowd_changes(crowd) -> (changes, last step) */
static PyObject *World_crowd_changes(WorldObject *self, PyObject *args) {
    unsigned int crowd;
    if (!PyArg_ParseTuple(args, "I", &crowd)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    uint64_t last = 0;
    const uint32_t n = th_world_crowd_changes(w, (th_crowd_id){crowd + 1}, &last);
    return Py_BuildValue("(IK)", n, (unsigned long long)last);
}

/* ---- helpers for the bindings below ------------------------------------------------------ */

/* Put `v` (a new reference, may be NULL after a failure) into dict `d` under `k`; -1 on error. */
static int put(PyObject *d, const char *k, PyObject *v) {
    if (!v) return -1;
    int r = PyDict_SetItemString(d, k, v);
    Py_DECREF(v);
    return r;
}

static PyObject *str_of(const char *s) {
    return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "replace");
}

static PyObject *index_or_none(uint32_t index1) {
    if (!index1) Py_RETURN_NONE;
    return PyLong_FromUnsignedLong(index1 - 1);
}

static uint64_t packed(th_agent_id a) {
    return (uint64_t)a.index1 | ((uint64_t)a.generation << 32);
}

/* Points as a float32 (n, 2) array. */
static PyObject *points_array(const th_vec2 *p, uint32_t n) {
    npy_intp dims[2] = {(npy_intp)n, 2};
    PyObject *a = new_array(2, dims, NPY_FLOAT32);
    if (!a) return NULL;
    float *f = PyArray_DATA((PyArrayObject *)a);
    for (uint32_t i = 0; i < n; i++) {
        f[2 * i] = p[i].x;
        f[2 * i + 1] = p[i].y;
    }
    return a;
}

/* A path query writing up to `max` points and their count; `ctx` carries its arguments. */
typedef bool (*path_fn)(th_world *w, void *ctx, th_vec2 *out, uint32_t max, uint32_t *count,
                        th_error *err);

/* Run a path query with room for 1024 points, doubling the room while it answers TH_ERR_LIMIT;
 * the points as a float32 (n, 2) array. */
static PyObject *grown_path(th_world *w, path_fn f, void *ctx) {
    uint32_t max = 1024;
    for (;;) {
        th_vec2 *buf = malloc(sizeof *buf * max);
        if (!buf) return PyErr_NoMemory();
        uint32_t n = 0;
        th_error err = {0};
        if (f(w, ctx, buf, max, &n, &err)) {
            PyObject *a = points_array(buf, n < max ? n : max);
            free(buf);
            return a;
        }
        free(buf);
        if (err.code != TH_ERR_LIMIT || max >= (1u << 28)) return raise_error(&err);
        max *= 2;
    }
}

/* A direction (dx, dy), or None when `ok` is false. */
static PyObject *dir_or_none(bool ok, th_vec2 d) {
    if (!ok) Py_RETURN_NONE;
    return Py_BuildValue("(dd)", (double)d.x, (double)d.y);
}

/* A float as a Python float (INFINITY kept). */
static PyObject *flt(float v) { return PyFloat_FromDouble((double)v); }

/* ---- buildings: levels, stairs, elevators ---------------------------------------------- */

static const char *const k_ways[] = {"east", "north", "west", "south"};
static const char *const k_elevator_states[] = {"idle", "moving", "opening", "open", "closing"};

/* add_level(name, x0, y0, x1, y1, elevation) */
static PyObject *World_add_level(WorldObject *self, PyObject *args) {
    th_level_def d = {0};
    double elevation;
    if (!PyArg_ParseTuple(args, "s(iiii)d", &d.name, &d.x0, &d.y0, &d.x1, &d.y1, &elevation))
        return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    d.elevation = (float)elevation;
    th_error err = {0};
    th_level_id l = th_world_add_level(w, &d, &err);
    if (!l.index1) return raise_error(&err);
    return PyLong_FromUnsignedLong(l.index1 - 1);
}

static PyObject *World_level(WorldObject *self, PyObject *args) {
    unsigned int i;
    if (!PyArg_ParseTuple(args, "O&", conv_u32, &i)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_level_info l;
    if (i >= th_world_level_count(w) || !th_world_get_level(w, (th_level_id){i + 1}, &l))
        Py_RETURN_NONE;
    return Py_BuildValue("{sNs(iiii)sdsI}", "name", str_of(l.name), "cells", l.x0, l.y0, l.x1, l.y1,
                         "elevation", (double)l.elevation, "agents", l.agents);
}

static PyObject *World_find_level(WorldObject *self, PyObject *args) {
    const char *name;
    if (!PyArg_ParseTuple(args, "s", &name)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    return index_or_none(th_world_find_level(w, name).index1);
}

static PyObject *World_level_at(WorldObject *self, PyObject *args) {
    double x, y;
    if (!PyArg_ParseTuple(args, "(dd)", &x, &y)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    return index_or_none(th_world_level_at(w, th_v2((float)x, (float)y)).index1);
}

/* add_stair(name, (x0, y0, x1, y1), up, (top_x, top_y), length, up_factor, down_factor) */
static PyObject *World_add_stair(WorldObject *self, PyObject *args) {
    th_stair_def d = {0};
    int up;
    double length, upf, downf;
    if (!PyArg_ParseTuple(args, "s(iiii)i(ii)ddd", &d.name, &d.x0, &d.y0, &d.x1, &d.y1, &up,
                          &d.top_x, &d.top_y, &length, &upf, &downf))
        return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    d.up = (th_stair_way)up;
    d.length = (float)length;
    d.up_factor = (float)upf;
    d.down_factor = (float)downf;
    th_error err = {0};
    th_stair_id s = th_world_add_stair(w, &d, &err);
    if (!s.index1) return raise_error(&err);
    return PyLong_FromUnsignedLong(s.index1 - 1);
}

static PyObject *World_stair(WorldObject *self, PyObject *args) {
    unsigned int i;
    if (!PyArg_ParseTuple(args, "O&", conv_u32, &i)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_stair_info s;
    if (i >= th_world_stair_count(w) || !th_world_get_stair(w, (th_stair_id){i + 1}, &s))
        Py_RETURN_NONE;
    PyObject *d = PyDict_New();
    if (!d) return NULL;
    if (put(d, "name", str_of(s.name)) < 0 || put(d, "lower", index_or_none(s.lower.index1)) < 0 ||
        put(d, "upper", index_or_none(s.upper.index1)) < 0 ||
        put(d, "cells", Py_BuildValue("(iiii)", s.x0, s.y0, s.x1, s.y1)) < 0 ||
        put(d, "up", PyUnicode_FromString(k_ways[(unsigned)s.up & 3u])) < 0 ||
        put(d, "landing", Py_BuildValue("(ii)", s.top_x, s.top_y)) < 0 ||
        put(d, "plan_length", flt(s.plan_length)) < 0 || put(d, "rise", flt(s.rise)) < 0 ||
        put(d, "length", flt(s.length)) < 0 || put(d, "up_factor", flt(s.up_factor)) < 0 ||
        put(d, "down_factor", flt(s.down_factor)) < 0 ||
        put(d, "agents", PyLong_FromUnsignedLong(s.agents)) < 0 ||
        put(d, "crossed_up", PyLong_FromUnsignedLongLong(s.crossed_up)) < 0 ||
        put(d, "crossed_down", PyLong_FromUnsignedLongLong(s.crossed_down)) < 0) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

static PyObject *World_find_stair(WorldObject *self, PyObject *args) {
    const char *name;
    if (!PyArg_ParseTuple(args, "s", &name)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    return index_or_none(th_world_find_stair(w, name).index1);
}

static PyObject *World_stair_at(WorldObject *self, PyObject *args) {
    double x, y;
    if (!PyArg_ParseTuple(args, "(dd)", &x, &y)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    return index_or_none(th_world_stair_at(w, th_v2((float)x, (float)y)).index1);
}

/* add_elevator(name, stops [(level, x, y)], crowds [int], discharge, start, capacity, speed,
 *              acceleration, door_time, dwell, board_time, radius, policy, patience) */
static PyObject *World_add_elevator(WorldObject *self, PyObject *args) {
    th_elevator_def d = {0};
    PyObject *stops, *crowds;
    int policy;
    double speed, accel, door, dwell, board, radius, patience;
    if (!PyArg_ParseTuple(args, "sOOO&O&O&ddddddid", &d.name, &stops, &crowds, conv_u32,
                          &d.discharge, conv_u32, &d.start, conv_u32, &d.capacity, &speed, &accel,
                          &door, &dwell, &board, &radius, &policy, &patience))
        return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    d.speed = (float)speed, d.acceleration = (float)accel, d.door_time = (float)door;
    d.dwell = (float)dwell, d.board_time = (float)board, d.radius = (float)radius;
    d.policy = (th_elevator_policy)policy;
    d.patience = (float)patience;
    PyObject *seq = PySequence_Fast(stops, "add_elevator: stops must be a sequence");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n > TH_MAX_ELEVATOR_STOPS) {
        Py_DECREF(seq);
        return raise_invalid("add_elevator: more stops than an elevator has (16)");
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned int level;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "O&ii", conv_u32, &level,
                              &d.stops[i].x, &d.stops[i].y)) {
            Py_DECREF(seq);
            return NULL;
        }
        d.stops[i].level = (th_level_id){level + 1};
    }
    Py_DECREF(seq);
    d.stop_count = (uint32_t)n;
    th_crowd_id ids[TH_MAX_CROWDS];
    seq = PySequence_Fast(crowds, "add_elevator: crowds must be a sequence");
    if (!seq) return NULL;
    n = PySequence_Fast_GET_SIZE(seq);
    if (n > TH_MAX_CROWDS) {
        Py_DECREF(seq);
        return raise_invalid("add_elevator: more crowds than a world holds");
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned int c;
        if (!conv_u32(PySequence_Fast_GET_ITEM(seq, i), &c)) {
            Py_DECREF(seq);
            return NULL;
        }
        ids[i] = (th_crowd_id){c + 1};
    }
    Py_DECREF(seq);
    d.crowds = ids;
    d.crowd_count = (uint32_t)n;
    th_error err = {0};
    th_elevator_id e = th_world_add_elevator(w, &d, &err);
    if (!e.index1) return raise_error(&err);
    return PyLong_FromUnsignedLong(e.index1 - 1);
}

static PyObject *World_elevator(WorldObject *self, PyObject *args) {
    unsigned int i;
    if (!PyArg_ParseTuple(args, "O&", conv_u32, &i)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_elevator_info e;
    if (i >= th_world_elevator_count(w) || !th_world_get_elevator(w, (th_elevator_id){i + 1}, &e))
        Py_RETURN_NONE;
    uint32_t nstops = e.stop_count < TH_MAX_ELEVATOR_STOPS ? e.stop_count : TH_MAX_ELEVATOR_STOPS;
    PyObject *stops = PyList_New(nstops), *waiting = PyList_New(nstops), *d = PyDict_New();
    if (!stops || !waiting || !d) goto fail;
    for (uint32_t k = 0; k < nstops; k++) {
        PyObject *s = Py_BuildValue("{sNs(ii)}", "level", index_or_none(e.stops[k].level.index1),
                                    "cell", e.stops[k].x, e.stops[k].y);
        PyObject *n = PyLong_FromUnsignedLong(e.stop_waiting[k]);
        if (!s || !n) {
            Py_XDECREF(s);
            Py_XDECREF(n);
            goto fail;
        }
        PyList_SET_ITEM(stops, k, s);
        PyList_SET_ITEM(waiting, k, n);
    }
    unsigned st = (unsigned)e.state;
    PyObject *last_out =
        e.last_out < 0 ? (Py_INCREF(Py_None), Py_None) : PyFloat_FromDouble(e.last_out);
    if (put(d, "name", str_of(e.name)) < 0 || put(d, "stops", stops) < 0 ||
        put(d, "discharge", PyLong_FromUnsignedLong(e.discharge)) < 0 ||
        put(d, "capacity", PyLong_FromUnsignedLong(e.capacity)) < 0 ||
        put(d, "speed", flt(e.speed)) < 0 || put(d, "acceleration", flt(e.acceleration)) < 0 ||
        put(d, "door_time", flt(e.door_time)) < 0 || put(d, "dwell", flt(e.dwell)) < 0 ||
        put(d, "board_time", flt(e.board_time)) < 0 || put(d, "radius", flt(e.radius)) < 0 ||
        put(d, "policy",
            PyUnicode_FromString(e.policy == TH_ELEVATOR_COLLECTIVE ? "collective" : "shuttle")) <
            0 ||
        put(d, "state", PyUnicode_FromString(st < 5 ? k_elevator_states[st] : "unknown")) < 0 ||
        put(d, "at", PyLong_FromUnsignedLong(e.at)) < 0 ||
        put(d, "to", PyLong_FromUnsignedLong(e.to)) < 0 ||
        put(d, "riders", PyLong_FromUnsignedLong(e.riders)) < 0 ||
        put(d, "waiting", PyLong_FromUnsignedLong(e.waiting)) < 0 ||
        put(d, "stop_waiting", waiting) < 0 ||
        put(d, "trips", PyLong_FromUnsignedLongLong(e.trips)) < 0 ||
        put(d, "carried", PyLong_FromUnsignedLongLong(e.carried)) < 0 ||
        put(d, "patience", flt(e.patience)) < 0 ||
        put(d, "gave_up", PyLong_FromUnsignedLongLong(e.gave_up)) < 0 ||
        put(d, "last_out", last_out) < 0 ||
        put(d, "walking", PyLong_FromUnsignedLong(e.walking)) < 0) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
fail:
    Py_XDECREF(stops);
    Py_XDECREF(waiting);
    Py_XDECREF(d);
    return NULL;
}

static PyObject *World_find_elevator(WorldObject *self, PyObject *args) {
    const char *name;
    if (!PyArg_ParseTuple(args, "s", &name)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    return index_or_none(th_world_find_elevator(w, name).index1);
}

static PyObject *World_agent_elevator(WorldObject *self, PyObject *args) {
    unsigned long long id;
    if (!PyArg_ParseTuple(args, "O&", conv_u64, &id)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    return index_or_none(th_world_agent_elevator(w, agent_of(id)).index1);
}

static PyObject *mod_elevator_travel_time(PyObject *mod, PyObject *args) {
    (void)mod;
    double m, speed, accel;
    if (!PyArg_ParseTuple(args, "ddd", &m, &speed, &accel)) return NULL;
    return PyFloat_FromDouble(th_elevator_travel_time(m, speed, accel));
}

/* ---- hazards ----------------------------------------------------------------------------- */

static PyObject *air_dict(const th_air *a) {
    return Py_BuildValue("{sdsdsdsdsd}", "extinction", (double)a->extinction, "co", (double)a->co,
                         "co2", (double)a->co2, "o2", (double)a->o2, "hcn", (double)a->hcn);
}

static int parse_air(PyObject *o, th_air *a) {
    double k, co, co2, o2, hcn;
    if (!PyArg_ParseTuple(o, "ddddd", &k, &co, &co2, &o2, &hcn)) return 0;
    *a = (th_air){(float)k, (float)co, (float)co2, (float)o2, (float)hcn};
    return 1;
}

/* add_hazard((x, y, width, height), [(time, (extinction, co, co2, o2, hcn)), ...]) -> index */
static PyObject *World_add_hazard(WorldObject *self, PyObject *args) {
    th_hazard_def d = {0};
    double x, y, wd, ht;
    PyObject *keys;
    if (!PyArg_ParseTuple(args, "(dddd)O", &x, &y, &wd, &ht, &keys)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    PyObject *seq = PySequence_Fast(keys, "add_hazard: keys must be a sequence");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n > (Py_ssize_t)TH_MAX_HAZARD_KEYS) {
        Py_DECREF(seq);
        th_error err = {.code = TH_ERR_LIMIT};
        snprintf(err.message, sizeof err.message, "add_hazard: %ld keys, at most %u", (long)n,
                 TH_MAX_HAZARD_KEYS);
        return raise_error(&err);
    }
    th_hazard_key *k = malloc(sizeof *k * (size_t)(n ? n : 1));
    if (!k) {
        Py_DECREF(seq);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        double t;
        PyObject *air;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "dO", &t, &air) ||
            !parse_air(air, &k[i].air)) {
            free(k);
            Py_DECREF(seq);
            return NULL;
        }
        k[i].time = (float)t;
    }
    Py_DECREF(seq);
    d.x = (float)x, d.y = (float)y, d.width = (float)wd, d.height = (float)ht;
    d.keys = k;
    d.key_count = (uint32_t)n;
    uint32_t before = th_world_hazard_count(w);
    th_error err = {0};
    bool ok = th_world_add_hazard(w, &d, &err);
    free(k);
    if (!ok) return raise_error(&err);
    return PyLong_FromUnsignedLong(before);
}

static PyObject *World_air(WorldObject *self, PyObject *args) {
    double x, y;
    if (!PyArg_ParseTuple(args, "(dd)", &x, &y)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_air a;
    if (!th_world_air(w, th_v2((float)x, (float)y), &a)) {
        th_error err = {.code = TH_ERR_BLOCKED};
        snprintf(err.message, sizeof err.message, "air: (%g, %g) is not on the world", x, y);
        return raise_error(&err);
    }
    return air_dict(&a);
}

static PyObject *mod_clean_air(PyObject *mod, PyObject *unused) {
    (void)mod, (void)unused;
    th_air a = th_clean_air();
    return air_dict(&a);
}

static PyObject *mod_fed_rate(PyObject *mod, PyObject *args) {
    (void)mod;
    th_air a;
    PyObject *o;
    if (!PyArg_ParseTuple(args, "O", &o) || !parse_air(o, &a)) return NULL;
    return PyFloat_FromDouble(th_fed_rate(&a));
}

static int check_crowd(th_world *w, unsigned int c) {
    if (c < th_world_crowd_count(w)) return 1;
    th_error err = {.code = TH_ERR_HANDLE};
    snprintf(err.message, sizeof err.message, "no crowd %u", c);
    raise_error(&err);
    return 0;
}

static PyObject *World_smoke_factor(WorldObject *self, PyObject *args) {
    unsigned int c;
    double k;
    if (!PyArg_ParseTuple(args, "O&d", conv_u32, &c, &k)) return NULL;
    th_world *w = world_of(self);
    if (!w || !check_crowd(w, c)) return NULL;
    return PyFloat_FromDouble((double)th_world_smoke_factor(w, (th_crowd_id){c + 1}, (float)k));
}

static PyObject *World_hazard_info(WorldObject *self, PyObject *args) {
    unsigned int c;
    if (!PyArg_ParseTuple(args, "O&", conv_u32, &c)) return NULL;
    th_world *w = world_of(self);
    if (!w || !check_crowd(w, c)) return NULL;
    th_hazard_info h;
    if (!th_world_get_hazard_info(w, (th_crowd_id){c + 1}, &h)) Py_RETURN_NONE;
    return Py_BuildValue("{sIsdsd}", "incapacitated", h.incapacitated, "first_s", h.first_s,
                         "max_fed", h.max_fed);
}

static PyObject *World_agent_fed(WorldObject *self, PyObject *args) {
    unsigned long long id;
    if (!PyArg_ParseTuple(args, "O&", conv_u64, &id)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    double fed, at;
    if (!th_world_agent_fed(w, agent_of(id), &fed, &at)) Py_RETURN_NONE;
    if (at < 0) return Py_BuildValue("(dO)", fed, Py_None);
    return Py_BuildValue("(dd)", fed, at);
}

/* ---- one agent's goal and way ------------------------------------------------------------ */

static const char *const k_goal_kinds[] = {"crowd", "point", "exit", "follow"};

/* A goal from (kind, (x, y), radius, exit bunker index or -1, follow id, priority). */
static int parse_goal(PyObject *o, th_agent_goal *g) {
    int kind, bunker, priority;
    double x, y, radius;
    unsigned long long follow;
    if (!PyArg_ParseTuple(o, "i(dd)diO&i", &kind, &x, &y, &radius, &bunker, conv_u64, &follow,
                          &priority))
        return 0;
    *g = (th_agent_goal){.kind = (th_agent_goal_kind)kind,
                         .point = th_v2((float)x, (float)y),
                         .radius = (float)radius,
                         .exit = {bunker >= 0 ? (uint32_t)bunker + 1 : 0},
                         .follow = agent_of(follow),
                         .priority = priority};
    return 1;
}

/* Agent ids (uint64, any sequence) as th_agent_id; NULL with an exception. */
static th_agent_id *ids_of(PyObject *o, uint32_t *n) {
    PyArrayObject *a = (PyArrayObject *)PyArray_FROMANY(o, NPY_UINT64, 1, 1,
                                                        NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST);
    if (!a) return NULL;
    npy_intp k = PyArray_DIM(a, 0);
    th_agent_id *ids = malloc(sizeof *ids * (size_t)(k ? k : 1));
    if (!ids) {
        Py_DECREF(a);
        PyErr_NoMemory();
        return NULL;
    }
    const uint64_t *v = PyArray_DATA(a);
    for (npy_intp i = 0; i < k; i++) ids[i] = agent_of(v[i]);
    Py_DECREF(a);
    *n = (uint32_t)k;
    return ids;
}

static PyObject *World_set_agent_goal(WorldObject *self, PyObject *args) {
    unsigned long long id;
    PyObject *goal;
    th_agent_goal g;
    if (!PyArg_ParseTuple(args, "O&O", conv_u64, &id, &goal) || !parse_goal(goal, &g)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_error err = {0};
    if (!th_world_set_agent_goal(w, agent_of(id), &g, &err)) return raise_error(&err);
    Py_RETURN_NONE;
}

/* set_agents_goal(ids, goal) -> agents given it */
static PyObject *World_set_agents_goal(WorldObject *self, PyObject *args) {
    PyObject *ids_obj, *goal;
    th_agent_goal g;
    if (!PyArg_ParseTuple(args, "OO", &ids_obj, &goal) || !parse_goal(goal, &g)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    uint32_t n = 0, done = 0;
    th_agent_id *ids = ids_of(ids_obj, &n);
    if (!ids) return NULL;
    th_error err = {0};
    bool ok = th_world_set_agents_goal(w, ids, n, &g, &done, &err);
    free(ids);
    if (!ok) return raise_error(&err);
    return PyLong_FromUnsignedLong(done);
}

/* schedule_agents_goal(step or None, ids, goal) */
static PyObject *World_schedule_agents_goal(WorldObject *self, PyObject *args) {
    PyObject *step_obj, *ids_obj, *goal;
    th_agent_goal g;
    if (!PyArg_ParseTuple(args, "OOO", &step_obj, &ids_obj, &goal) || !parse_goal(goal, &g))
        return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    uint64_t step;
    if (!step_or_next(w, step_obj, &step)) return NULL;
    uint32_t n = 0;
    th_agent_id *ids = ids_of(ids_obj, &n);
    if (!ids) return NULL;
    th_error err = {0};
    bool ok = th_world_schedule_agents_goal(w, step, ids, n, &g, &err);
    free(ids);
    if (!ok) return raise_error(&err);
    Py_RETURN_NONE;
}

static PyObject *World_agent_goal(WorldObject *self, PyObject *args) {
    unsigned long long id;
    if (!PyArg_ParseTuple(args, "O&", conv_u64, &id)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_agent_goal g;
    if (!th_world_get_agent_goal(w, agent_of(id), &g)) Py_RETURN_NONE;
    unsigned k = (unsigned)g.kind;
    PyObject *point = g.kind == TH_AGENT_GOAL_POINT
                          ? Py_BuildValue("(dd)", (double)g.point.x, (double)g.point.y)
                          : (Py_INCREF(Py_None), Py_None);
    PyObject *follow = g.kind == TH_AGENT_GOAL_FOLLOW
                           ? PyLong_FromUnsignedLongLong(packed(g.follow))
                           : (Py_INCREF(Py_None), Py_None);
    PyObject *exit =
        g.kind == TH_AGENT_GOAL_EXIT ? index_or_none(g.exit.index1) : (Py_INCREF(Py_None), Py_None);
    if (!point || !follow || !exit) {
        Py_XDECREF(point);
        Py_XDECREF(follow);
        Py_XDECREF(exit);
        return NULL;
    }
    return Py_BuildValue("{sssNsdsNsNsi}", "kind", k < 4 ? k_goal_kinds[k] : "unknown", "point",
                         point, "radius", (double)g.radius, "exit", exit, "follow", follow,
                         "priority", (int)g.priority);
}

static PyObject *World_goal_changes(WorldObject *self, PyObject *unused) {
    (void)unused;
    th_world *w = world_of(self);
    if (!w) return NULL;
    uint64_t pending = 0, made = 0, passed = 0;
    th_world_goal_changes(w, &pending, &made, &passed);
    return Py_BuildValue("{sKsKsK}", "pending", (unsigned long long)pending, "made",
                         (unsigned long long)made, "passed", (unsigned long long)passed);
}

static PyObject *World_own_goals(WorldObject *self, PyObject *unused) {
    (void)unused;
    th_world *w = world_of(self);
    if (!w) return NULL;
    const th_own_goal_counts c = th_world_own_goal_counts(w);
    return Py_BuildValue("{sIsIsIsI}", "given", c.given, "reached", c.reached, "walking", c.walking,
                         "unreachable", c.unreachable);
}

/* set_goal_planning(budget, cluster_size, max_requests); budget 0 turns it off. */
static PyObject *World_set_goal_planning(WorldObject *self, PyObject *args) {
    th_goal_planning d = {0};
    if (!PyArg_ParseTuple(args, "O&O&O&", conv_u32, &d.budget, conv_u32, &d.cluster_size, conv_u32,
                          &d.max_requests))
        return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_error err = {0};
    if (!th_world_set_goal_planning(w, d.budget ? &d : NULL, &err)) return raise_error(&err);
    Py_RETURN_NONE;
}

static PyObject *World_goal_planning(WorldObject *self, PyObject *unused) {
    (void)unused;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_goal_planning_info g = th_world_goal_planning_info(w);
    return Py_BuildValue(
        "{sIsIsIsIsIsKsKsKsKsIsIsK}", "budget", g.def.budget, "cluster_size", g.def.cluster_size,
        "max_requests", g.def.max_requests, "waiting", g.waiting, "searching", g.searching,
        "answered", (unsigned long long)g.answered, "unreachable",
        (unsigned long long)g.unreachable, "at_once", (unsigned long long)g.at_once, "expanded",
        (unsigned long long)g.expanded, "last_expanded", g.last_expanded, "most_steps",
        g.most_steps, "wait_steps", (unsigned long long)g.wait_steps);
}

static bool agent_path_fn(th_world *w, void *ctx, th_vec2 *out, uint32_t max, uint32_t *count,
                          th_error *err) {
    return th_world_agent_path(w, *(th_agent_id *)ctx, out, max, count, err);
}

static PyObject *World_agent_path(WorldObject *self, PyObject *args) {
    unsigned long long id;
    if (!PyArg_ParseTuple(args, "O&", conv_u64, &id)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_agent_id a = agent_of(id);
    return grown_path(w, agent_path_fn, &a);
}

static PyObject *World_agent_path_pending(WorldObject *self, PyObject *args) {
    unsigned long long id;
    if (!PyArg_ParseTuple(args, "O&", conv_u64, &id)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    return PyBool_FromLong(th_world_agent_path_pending(w, agent_of(id)));
}

static PyObject *World_agent_remaining(WorldObject *self, PyObject *args) {
    unsigned long long id;
    if (!PyArg_ParseTuple(args, "O&", conv_u64, &id)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    return flt(th_world_agent_remaining(w, agent_of(id)));
}

static PyObject *World_agent_next_step(WorldObject *self, PyObject *args) {
    unsigned long long id;
    if (!PyArg_ParseTuple(args, "O&", conv_u64, &id)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_vec2 d = {0};
    bool ok = th_world_agent_next_step(w, agent_of(id), &d);
    return dir_or_none(ok, d);
}

/* set_agent_exit(id, bunker index or -1) */
static PyObject *World_set_agent_exit(WorldObject *self, PyObject *args) {
    unsigned long long id;
    int bunker;
    if (!PyArg_ParseTuple(args, "O&i", conv_u64, &id, &bunker)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_error err = {0};
    th_bunker_id b = {bunker >= 0 ? (uint32_t)bunker + 1 : 0};
    if (!th_world_set_agent_exit(w, agent_of(id), b, &err)) return raise_error(&err);
    Py_RETURN_NONE;
}

/* (agent id, number): one of the setters th_world_set_agent_speed and _radius. */
static PyObject *set_agent_float(WorldObject *self, PyObject *args,
                                 bool (*set)(th_world *, th_agent_id, float, th_error *)) {
    unsigned long long id;
    double value;
    if (!PyArg_ParseTuple(args, "O&d", conv_u64, &id, &value)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_error err = {0};
    if (!set(w, agent_of(id), (float)value, &err)) return raise_error(&err);
    Py_RETURN_NONE;
}

static PyObject *World_set_agent_speed(WorldObject *self, PyObject *args) {
    return set_agent_float(self, args, th_world_set_agent_speed);
}

static PyObject *World_set_agent_radius(WorldObject *self, PyObject *args) {
    return set_agent_float(self, args, th_world_set_agent_radius);
}

static PyObject *World_agent_radius(WorldObject *self, PyObject *args) {
    unsigned long long id;
    if (!PyArg_ParseTuple(args, "O&", conv_u64, &id)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    const float r = th_world_agent_radius(w, agent_of(id));
    if (r < 0.0f) {
        PyErr_Format(PyExc_KeyError, "no agent %llu", id);
        return NULL;
    }
    return PyFloat_FromDouble(r);
}

static PyObject *World_pre_movement(WorldObject *self, PyObject *args) {
    unsigned int c;
    if (!PyArg_ParseTuple(args, "O&", conv_u32, &c)) return NULL;
    th_world *w = world_of(self);
    if (!w || !check_crowd(w, c)) return NULL;
    th_pre_movement_info p;
    if (!th_world_get_pre_movement(w, (th_crowd_id){c + 1}, &p)) Py_RETURN_NONE;
    return Py_BuildValue("{sIsdsdsdsI}", "drawn", p.drawn, "mean_s", p.mean_s, "min_s", p.min_s,
                         "max_s", p.max_s, "waiting", p.waiting);
}

/* ---- stalls, flows, paths, exits and spawners --------------------------------------------- */

static PyObject *World_stall_info(WorldObject *self, PyObject *unused) {
    (void)unused;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_stall_info s;
    if (!th_world_get_stall_info(w, &s)) Py_RETURN_NONE;
    return Py_BuildValue(
        "{sIsds(dddd)sdsIsdsdsdsIsI}", "stalled", s.stalled, "longest", (double)s.longest, "box",
        (double)s.x0, (double)s.y0, (double)s.x1, (double)s.y1, "stall_time", (double)s.stall_time,
        "peak", s.peak, "peak_time", (double)s.peak_time, "agent_seconds", s.agent_seconds,
        "longest_run", (double)s.longest_run, "queued", s.queued, "queued_peak", s.queued_peak);
}

static PyObject *World_flow(WorldObject *self, PyObject *args) {
    double x, y;
    if (!PyArg_ParseTuple(args, "(dd)", &x, &y)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_vec2 d = {0};
    bool ok = th_world_flow(w, th_v2((float)x, (float)y), &d);
    return dir_or_none(ok, d);
}

static PyObject *World_bunker_flow(WorldObject *self, PyObject *args) {
    unsigned int b;
    double x, y;
    if (!PyArg_ParseTuple(args, "O&(dd)", conv_u32, &b, &x, &y)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_vec2 d = {0};
    bool ok = th_world_bunker_flow(w, (th_bunker_id){b + 1}, th_v2((float)x, (float)y), &d);
    return dir_or_none(ok, d);
}

static PyObject *World_cost_to_shelter(WorldObject *self, PyObject *args) {
    double x, y;
    if (!PyArg_ParseTuple(args, "(dd)", &x, &y)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    return flt(th_world_cost_to_shelter(w, th_v2((float)x, (float)y)));
}

static PyObject *World_nearest_bunker(WorldObject *self, PyObject *args) {
    double x, y;
    if (!PyArg_ParseTuple(args, "(dd)", &x, &y)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    return index_or_none(th_world_nearest_bunker(w, th_v2((float)x, (float)y)).index1);
}

static bool shelter_path_fn(th_world *w, void *ctx, th_vec2 *out, uint32_t max, uint32_t *count,
                            th_error *err) {
    return th_world_shelter_path(w, *(th_vec2 *)ctx, out, max, count, err);
}

static PyObject *World_shelter_path(WorldObject *self, PyObject *args) {
    double x, y;
    if (!PyArg_ParseTuple(args, "(dd)", &x, &y)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_vec2 p = th_v2((float)x, (float)y);
    return grown_path(w, shelter_path_fn, &p);
}

static int check_field(th_world *w, unsigned int f) {
    if (f < th_world_destination_count(w)) return 1;
    th_error err = {.code = TH_ERR_HANDLE};
    snprintf(err.message, sizeof err.message, "no destination field %u", f);
    raise_error(&err);
    return 0;
}

static PyObject *World_destination_flow(WorldObject *self, PyObject *args) {
    unsigned int f;
    double x, y;
    if (!PyArg_ParseTuple(args, "O&(dd)", conv_u32, &f, &x, &y)) return NULL;
    th_world *w = world_of(self);
    if (!w || !check_field(w, f)) return NULL;
    th_vec2 d = {0};
    bool ok = th_world_destination_flow(w, (th_field_id){f + 1}, th_v2((float)x, (float)y), &d);
    return dir_or_none(ok, d);
}

static PyObject *World_destination_cost(WorldObject *self, PyObject *args) {
    unsigned int f;
    double x, y;
    if (!PyArg_ParseTuple(args, "O&(dd)", conv_u32, &f, &x, &y)) return NULL;
    th_world *w = world_of(self);
    if (!w || !check_field(w, f)) return NULL;
    return flt(th_world_destination_cost(w, (th_field_id){f + 1}, th_v2((float)x, (float)y)));
}

struct field_at {
    th_field_id f;
    th_vec2 p;
};

static bool destination_path_fn(th_world *w, void *ctx, th_vec2 *out, uint32_t max, uint32_t *count,
                                th_error *err) {
    const struct field_at *a = ctx;
    return th_world_destination_path(w, a->f, a->p, out, max, count, err);
}

static PyObject *World_destination_path(WorldObject *self, PyObject *args) {
    unsigned int f;
    double x, y;
    if (!PyArg_ParseTuple(args, "O&(dd)", conv_u32, &f, &x, &y)) return NULL;
    th_world *w = world_of(self);
    if (!w || !check_field(w, f)) return NULL;
    struct field_at a = {{f + 1}, th_v2((float)x, (float)y)};
    return grown_path(w, destination_path_fn, &a);
}

struct from_to {
    th_vec2 from, to;
    float cost;
};

static bool find_path_fn(th_world *w, void *ctx, th_vec2 *out, uint32_t max, uint32_t *count,
                         th_error *err) {
    struct from_to *a = ctx;
    return th_world_find_path(w, a->from, a->to, out, max, count, &a->cost, err);
}

/* find_path((x, y), (x, y)) -> (points, cost) */
static PyObject *World_find_path(WorldObject *self, PyObject *args) {
    double fx, fy, tx, ty;
    if (!PyArg_ParseTuple(args, "(dd)(dd)", &fx, &fy, &tx, &ty)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    struct from_to a = {th_v2((float)fx, (float)fy), th_v2((float)tx, (float)ty), 0.0f};
    PyObject *pts = grown_path(w, find_path_fn, &a);
    if (!pts) return NULL;
    return Py_BuildValue("(Nd)", pts, (double)a.cost);
}

/* find_path_ida((x, y), (x, y), max_expansions) -> (points, cost). Not through grown_path:
 * TH_ERR_LIMIT there means "more room", and a retry would repeat a search that gave up; here
 * a too small buffer reports the waypoints it needs, so one retry of that size is enough. */
static PyObject *World_find_path_ida(WorldObject *self, PyObject *args) {
    double fx, fy, tx, ty;
    unsigned long long budget;
    if (!PyArg_ParseTuple(args, "(dd)(dd)O&", &fx, &fy, &tx, &ty, conv_u64, &budget)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    const th_vec2 from = th_v2((float)fx, (float)fy), to = th_v2((float)tx, (float)ty);
    uint32_t max = 1024;
    for (int tries = 0; tries < 2; tries++) {
        th_vec2 *buf = malloc(sizeof *buf * max);
        if (!buf) return PyErr_NoMemory();
        uint32_t n = 0;
        float cost = 0.0f;
        th_error err = {0};
        bool ok = th_world_find_path_ida(w, from, to, budget, buf, max, &n, &cost, &err);
        if (ok) {
            PyObject *a = points_array(buf, n);
            free(buf);
            return a ? Py_BuildValue("(Nd)", a, (double)cost) : NULL;
        }
        free(buf);
        if (err.code != TH_ERR_LIMIT || n <= max) return raise_error(&err);
        max = n; /* too little room: n waypoints are needed */
    }
    PyErr_SetString(PyExc_RuntimeError, "find_path_ida: the path did not fit twice");
    return NULL;
}

static PyObject *World_wall_distance(WorldObject *self, PyObject *args) {
    double x, y;
    if (!PyArg_ParseTuple(args, "(dd)", &x, &y)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_vec2 away = {0};
    float d = th_world_wall_distance(w, th_v2((float)x, (float)y), &away);
    return Py_BuildValue("(d(dd))", (double)d, (double)away.x, (double)away.y);
}

static PyObject *World_set_cell_speed(WorldObject *self, PyObject *args) {
    int x, y;
    double f;
    if (!PyArg_ParseTuple(args, "iid", &x, &y, &f)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_error err = {0};
    if (!th_world_set_cell_speed(w, x, y, (float)f, &err)) return raise_error(&err);
    Py_RETURN_NONE;
}

static PyObject *World_cell_speed(WorldObject *self, PyObject *args) {
    int x, y;
    if (!PyArg_ParseTuple(args, "ii", &x, &y)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    return PyFloat_FromDouble((double)th_world_cell_speed(w, x, y));
}

static PyObject *World_exit(WorldObject *self, PyObject *args) {
    unsigned int i;
    if (!PyArg_ParseTuple(args, "O&", conv_u32, &i)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_exit_info e;
    if (!th_world_get_exit(w, (th_exit_id){i + 1}, &e)) Py_RETURN_NONE;
    return Py_BuildValue("{sNsIsKsKs(dddd)sd}", "name", str_of(e.name ? e.name : ""), "exited",
                         e.exited, "first_step", (unsigned long long)e.first_step, "last_step",
                         (unsigned long long)e.last_step, "area", (double)e.x0, (double)e.y0,
                         (double)e.x1, (double)e.y1, "max_flow", (double)e.max_flow);
}

static PyObject *World_exit_covers(WorldObject *self, PyObject *args) {
    unsigned int i;
    int x, y;
    if (!PyArg_ParseTuple(args, "O&ii", conv_u32, &i, &x, &y)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    return PyBool_FromLong(th_world_exit_covers(w, (th_exit_id){i + 1}, x, y));
}

static PyObject *World_spawner(WorldObject *self, PyObject *args) {
    unsigned int i;
    if (!PyArg_ParseTuple(args, "O&", conv_u32, &i)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_spawner_info s;
    if (!th_world_get_spawner(w, (th_spawner_id){i + 1}, &s)) Py_RETURN_NONE;
    PyObject *total =
        s.total == UINT64_MAX ? PyFloat_FromDouble(INFINITY) : PyLong_FromUnsignedLongLong(s.total);
    if (!total) return NULL;
    return Py_BuildValue("{sNsNsIsKsKsNsOs(dddd)}", "name", str_of(s.name ? s.name : ""), "crowd",
                         index_or_none(s.crowd.index1), "emitted", s.emitted, "due",
                         (unsigned long long)s.due, "waiting", (unsigned long long)s.waiting,
                         "total", total, "done", s.done ? Py_True : Py_False, "area", (double)s.x0,
                         (double)s.y0, (double)s.x1, (double)s.y1);
}

static PyObject *World_spawner_covers(WorldObject *self, PyObject *args) {
    unsigned int i;
    int x, y;
    if (!PyArg_ParseTuple(args, "O&ii", conv_u32, &i, &x, &y)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    return PyBool_FromLong(th_world_spawner_covers(w, (th_spawner_id){i + 1}, x, y));
}

/* ---- groups, squads, targets ------------------------------------------------------------- */

/* add_group(ids, spread) -> index */
static PyObject *World_add_group(WorldObject *self, PyObject *args) {
    PyObject *ids_obj;
    double spread;
    if (!PyArg_ParseTuple(args, "Od", &ids_obj, &spread)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    uint32_t n = 0;
    th_agent_id *ids = ids_of(ids_obj, &n);
    if (!ids) return NULL;
    th_group_def d = {.members = ids, .count = n, .spread = (float)spread};
    th_error err = {0};
    th_group_id g = th_world_add_group(w, &d, &err);
    free(ids);
    if (!g.index1) return raise_error(&err);
    return PyLong_FromUnsignedLong(g.index1 - 1);
}

static PyObject *World_group(WorldObject *self, PyObject *args) {
    unsigned int i;
    if (!PyArg_ParseTuple(args, "O&", conv_u32, &i)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_group_info g;
    if (!th_world_get_group(w, (th_group_id){i + 1}, &g)) Py_RETURN_NONE;
    return Py_BuildValue("{sIsIsdsI}", "members", g.members, "present", g.present, "stretch",
                         (double)g.stretch, "waiting", g.waiting);
}

/* add_squad(crowd, count, formation, files, spacing, (start), (goal), speed, tolerance,
 *           slot_weight, rigid), the rest as th_default_squad_def gives it. */
static PyObject *World_add_squad(WorldObject *self, PyObject *args) {
    th_squad_def d = th_default_squad_def();
    unsigned int crowd;
    int formation, rigid;
    double spacing, sx, sy, gx, gy, speed, tolerance, slot_weight;
    if (!PyArg_ParseTuple(args, "O&O&iO&d(dd)(dd)dddp", conv_u32, &crowd, conv_u32, &d.count,
                          &formation, conv_u32, &d.files, &spacing, &sx, &sy, &gx, &gy, &speed,
                          &tolerance, &slot_weight, &rigid))
        return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    d.crowd = (th_crowd_id){crowd + 1};
    d.formation = (th_formation)formation;
    d.spacing = (float)spacing;
    d.speed = (float)speed;
    d.tolerance = (float)tolerance;
    d.slot_weight = (float)slot_weight;
    d.start = th_v2((float)sx, (float)sy);
    d.goal = th_v2((float)gx, (float)gy);
    d.rigid = rigid != 0;
    th_error err = {0};
    th_squad_id s = th_world_add_squad(w, &d, &err);
    if (!th_squad_id_valid(s)) return raise_error(&err);
    return PyLong_FromUnsignedLong(s.index1 - 1);
}

static PyObject *World_squad(WorldObject *self, PyObject *args) {
    unsigned int i;
    if (!PyArg_ParseTuple(args, "O&", conv_u32, &i)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_squad_info s;
    if (!th_world_get_squad(w, (th_squad_id){i + 1}, &s)) Py_RETURN_NONE;
    return Py_BuildValue("{s(dd)s(dd)sIsdsOsIsOsO}", "centre", (double)s.centre.x,
                         (double)s.centre.y, "heading", (double)s.heading.x, (double)s.heading.y,
                         "members", s.members, "error", (double)s.error, "arrived",
                         s.arrived ? Py_True : Py_False, "waypoints", s.waypoints, "stuck",
                         s.stuck ? Py_True : Py_False, "no_room", s.no_room ? Py_True : Py_False);
}

/* squad_members(squad) -> (uint64 ids, float32 (n, 2) slots), or None for no squad. */
static PyObject *World_squad_members(WorldObject *self, PyObject *args) {
    unsigned int i;
    if (!PyArg_ParseTuple(args, "O&", conv_u32, &i)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_squad_info s;
    th_squad_id sq = {i + 1};
    if (!th_world_get_squad(w, sq, &s)) Py_RETURN_NONE;
    npy_intp n = 0;
    th_agent_id id;
    th_vec2 slot;
    while (n < TH_MAX_SQUAD_MEMBERS && th_world_get_squad_member(w, sq, (uint32_t)n, &id, &slot))
        n++;
    npy_intp dims[2] = {n, 2};
    PyObject *ids = new_array(1, &n, NPY_UINT64), *slots = new_array(2, dims, NPY_FLOAT32);
    if (!ids || !slots) {
        Py_XDECREF(ids);
        Py_XDECREF(slots);
        return NULL;
    }
    uint64_t *o = PyArray_DATA((PyArrayObject *)ids);
    float *f = PyArray_DATA((PyArrayObject *)slots);
    for (npy_intp k = 0; k < n; k++) {
        th_world_get_squad_member(w, sq, (uint32_t)k, &id, &slot);
        o[k] = packed(id);
        f[2 * k] = slot.x;
        f[2 * k + 1] = slot.y;
    }
    return Py_BuildValue("(NN)", ids, slots);
}

/* squad_path(squad) -> float32 (n, 2): the centre's path, start first; None for no squad. */
static PyObject *World_squad_path(WorldObject *self, PyObject *args) {
    unsigned int i;
    if (!PyArg_ParseTuple(args, "O&", conv_u32, &i)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_squad_info s;
    th_squad_id sq = {i + 1};
    if (!th_world_get_squad(w, sq, &s)) Py_RETURN_NONE;
    uint32_t n = 0;
    th_vec2 p;
    while (th_world_squad_waypoint(w, sq, n, &p)) n++;
    th_vec2 *pts = malloc(sizeof *pts * (n ? n : 1));
    if (!pts) return PyErr_NoMemory();
    for (uint32_t k = 0; k < n; k++) th_world_squad_waypoint(w, sq, k, &pts[k]);
    PyObject *a = points_array(pts, n);
    free(pts);
    return a;
}

static PyObject *World_squad_join(WorldObject *self, PyObject *args) {
    unsigned int i;
    unsigned long long id;
    if (!PyArg_ParseTuple(args, "O&O&", conv_u32, &i, conv_u64, &id)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_error err = {0};
    if (!th_world_squad_join(w, (th_squad_id){i + 1}, agent_of(id), &err)) return raise_error(&err);
    Py_RETURN_NONE;
}

/* add_target(kind, (position), (velocity), points or None, speed, loop, agent) -> index */
static PyObject *World_add_target(WorldObject *self, PyObject *args) {
    th_target_def d = {0};
    int kind, loop;
    double px, py, vx, vy, speed;
    PyObject *points;
    unsigned long long agent;
    if (!PyArg_ParseTuple(args, "i(dd)(dd)OdpO&", &kind, &px, &py, &vx, &vy, &points, &speed, &loop,
                          conv_u64, &agent))
        return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    d.kind = (th_target_kind)kind;
    d.position = th_v2((float)px, (float)py);
    d.velocity = th_v2((float)vx, (float)vy);
    d.speed = (float)speed;
    d.loop = loop != 0;
    d.agent = agent_of(agent);
    th_vec2 *pts = NULL;
    if (points != Py_None) {
        PyArrayObject *a = (PyArrayObject *)PyArray_FROMANY(
            points, NPY_FLOAT32, 2, 2, NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST);
        if (!a) return NULL;
        if (PyArray_DIM(a, 1) != 2) {
            Py_DECREF(a);
            return raise_invalid("add_target: points must have shape (N, 2)");
        }
        npy_intp n = PyArray_DIM(a, 0);
        pts = malloc(sizeof *pts * (size_t)(n ? n : 1));
        if (!pts) {
            Py_DECREF(a);
            return PyErr_NoMemory();
        }
        const float *f = PyArray_DATA(a);
        for (npy_intp k = 0; k < n; k++) pts[k] = th_v2(f[2 * k], f[2 * k + 1]);
        Py_DECREF(a);
        d.points = pts;
        d.point_count = (uint32_t)n;
    }
    th_error err = {0};
    th_target_id t = th_world_add_target(w, &d, &err);
    free(pts);
    if (!th_target_id_valid(t)) return raise_error(&err);
    return PyLong_FromUnsignedLong(t.index1 - 1);
}

/* target(t) -> ((x, y), (vx, vy)) or None */
static PyObject *World_target(WorldObject *self, PyObject *args) {
    unsigned int i;
    if (!PyArg_ParseTuple(args, "O&", conv_u32, &i)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_vec2 p, v;
    if (!th_world_get_target(w, (th_target_id){i + 1}, &p, &v)) Py_RETURN_NONE;
    return Py_BuildValue("((dd)(dd))", (double)p.x, (double)p.y, (double)v.x, (double)v.y);
}

/* ---- crowds' trails, graphs and colonies -------------------------------------------------- */

static PyObject *World_breadcrumbs(WorldObject *self, PyObject *args) {
    unsigned int c;
    if (!PyArg_ParseTuple(args, "O&", conv_u32, &c)) return NULL;
    th_world *w = world_of(self);
    if (!w || !check_crowd(w, c)) return NULL;
    th_crowd_id crowd = {c + 1};
    uint32_t n = th_world_breadcrumbs(w, crowd, NULL, 0);
    th_vec2 *pts = malloc(sizeof *pts * (n ? n : 1));
    if (!pts) return PyErr_NoMemory();
    uint32_t got = n ? th_world_breadcrumbs(w, crowd, pts, n) : 0;
    PyObject *a = points_array(pts, got < n ? got : n);
    free(pts);
    return a;
}

/* waypoint_hop(crowd, from, to) -> (next, cost) or None */
static PyObject *World_waypoint_hop(WorldObject *self, PyObject *args) {
    unsigned int c, from, to;
    if (!PyArg_ParseTuple(args, "O&O&O&", conv_u32, &c, conv_u32, &from, conv_u32, &to))
        return NULL;
    th_world *w = world_of(self);
    if (!w || !check_crowd(w, c)) return NULL;
    uint32_t next = 0;
    float cost = 0;
    if (!th_world_waypoint_hop(w, (th_crowd_id){c + 1}, from, to, &next, &cost)) Py_RETURN_NONE;
    return Py_BuildValue("(Id)", next, (double)cost);
}

static PyObject *World_forage(WorldObject *self, PyObject *args) {
    unsigned int c;
    if (!PyArg_ParseTuple(args, "O&", conv_u32, &c)) return NULL;
    th_world *w = world_of(self);
    if (!w || !check_crowd(w, c)) return NULL;
    th_forage_info f;
    if (!th_world_get_forage(w, (th_crowd_id){c + 1}, &f)) Py_RETURN_NONE;
    return Py_BuildValue("{s(dd)sdsIsKsKsIsKsd}", "nest", (double)f.nest.x, (double)f.nest.y,
                         "nest_radius", (double)f.nest_radius, "sources", f.sources, "taken",
                         (unsigned long long)f.taken, "delivered", (unsigned long long)f.delivered,
                         "carried", f.carried, "lost", (unsigned long long)f.lost, "pheromone",
                         f.pheromone);
}

static PyObject *World_food_source(WorldObject *self, PyObject *args) {
    unsigned int c, s;
    if (!PyArg_ParseTuple(args, "O&O&", conv_u32, &c, conv_u32, &s)) return NULL;
    th_world *w = world_of(self);
    if (!w || !check_crowd(w, c)) return NULL;
    th_food_info f;
    if (!th_world_get_food_source(w, (th_crowd_id){c + 1}, s, &f)) Py_RETURN_NONE;
    return Py_BuildValue("{s(dd)sdsIsI}", "at", (double)f.at.x, (double)f.at.y, "radius",
                         (double)f.radius, "amount", f.amount, "remaining", f.remaining);
}

/* pheromone(crowd) -> (float32 (rows, cols) copy, cell_size) or None */
static PyObject *World_pheromone(WorldObject *self, PyObject *args) {
    unsigned int c;
    if (!PyArg_ParseTuple(args, "O&", conv_u32, &c)) return NULL;
    th_world *w = world_of(self);
    if (!w || !check_crowd(w, c)) return NULL;
    int32_t cols = 0, rows = 0;
    float cell = 0;
    const float *g = th_world_pheromone(w, (th_crowd_id){c + 1}, &cols, &rows, &cell);
    if (!g) Py_RETURN_NONE;
    npy_intp dims[2] = {rows, cols};
    PyObject *a = new_array(2, dims, NPY_FLOAT32);
    if (!a) return NULL;
    if (rows > 0 && cols > 0)
        memcpy(PyArray_DATA((PyArrayObject *)a), g, sizeof *g * (size_t)rows * (size_t)cols);
    return Py_BuildValue("(Nd)", a, (double)cell);
}

static PyObject *World_add_pheromone(WorldObject *self, PyObject *args) {
    unsigned int c;
    double x, y, amount;
    if (!PyArg_ParseTuple(args, "O&(dd)d", conv_u32, &c, &x, &y, &amount)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_error err = {0};
    if (!th_world_add_pheromone(w, (th_crowd_id){c + 1}, th_v2((float)x, (float)y), (float)amount,
                                &err))
        return raise_error(&err);
    Py_RETURN_NONE;
}

/* ---- history, checks, profile, trace ------------------------------------------------------ */

static const char *const k_history_kinds[] = {"bunker_destroyed", "bunker_restored", "bunker_full",
                                              "squad_arrived", "buried"};

static PyObject *World_history(WorldObject *self, PyObject *unused) {
    (void)unused;
    th_world *w = world_of(self);
    if (!w) return NULL;
    uint32_t total = 0, dropped = 0;
    th_world_history(w, 0, NULL, 0, &total, &dropped);
    th_history_entry *e = malloc(sizeof *e * (total ? total : 1));
    if (!e) return PyErr_NoMemory();
    uint32_t n = total ? th_world_history(w, 0, e, total, NULL, NULL) : 0;
    PyObject *list = PyList_New(n);
    if (!list) {
        free(e);
        return NULL;
    }
    for (uint32_t k = 0; k < n; k++) {
        unsigned kind = (unsigned)e[k].kind;
        PyObject *d = Py_BuildValue("{sKsssNsNsI}", "step", (unsigned long long)e[k].step, "kind",
                                    kind < 5 ? k_history_kinds[kind] : "unknown", "bunker",
                                    index_or_none(e[k].bunker.index1), "squad",
                                    index_or_none(e[k].squad.index1), "count", e[k].count);
        if (!d) {
            Py_DECREF(list);
            free(e);
            return NULL;
        }
        PyList_SET_ITEM(list, k, d);
    }
    free(e);
    return Py_BuildValue("(NI)", list, dropped);
}

static PyObject *World_set_validation(WorldObject *self, PyObject *args) {
    int on;
    if (!PyArg_ParseTuple(args, "p", &on)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_world_set_validation(w, on != 0);
    Py_RETURN_NONE;
}

static PyObject *World_validation_error(WorldObject *self, PyObject *unused) {
    (void)unused;
    th_world *w = world_of(self);
    if (!w) return NULL;
    const char *e = th_world_validation_error(w);
    if (!e) Py_RETURN_NONE;
    return str_of(e);
}

/* step_error() -> None, or (code, name, message) of the first error inside a step */
static PyObject *World_step_error(WorldObject *self, PyObject *unused) {
    (void)unused;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_error err = {0};
    if (!th_world_step_error(w, &err)) Py_RETURN_NONE;
    return Py_BuildValue("(iss)", (int)err.code, th_error_code_name(err.code), err.message);
}

/* phase_ms(last) -> {phase name: milliseconds} */
static PyObject *World_phase_ms(WorldObject *self, PyObject *args) {
    int last;
    if (!PyArg_ParseTuple(args, "p", &last)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    PyObject *d = PyDict_New();
    if (!d) return NULL;
    for (int p = 0; p < TH_PHASE_COUNT; p++) {
        double ms =
            last ? th_world_phase_last_ms(w, (th_phase)p) : th_world_phase_ms(w, (th_phase)p);
        if (put(d, th_phase_name((th_phase)p), PyFloat_FromDouble(ms)) < 0) {
            Py_DECREF(d);
            return NULL;
        }
    }
    return d;
}

static PyObject *World_reset_profile(WorldObject *self, PyObject *unused) {
    (void)unused;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_world_reset_profile(w);
    Py_RETURN_NONE;
}

static PyObject *World_trace_start(WorldObject *self, PyObject *args) {
    unsigned int max;
    if (!PyArg_ParseTuple(args, "O&", conv_u32, &max)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_error err = {0};
    if (!th_world_trace_start(w, max, &err)) return raise_error(&err);
    Py_RETURN_NONE;
}

/* trace_spans() -> {"step", "begin_ns", "end_ns": uint64, "worker": uint32, "phase": list} */
static PyObject *World_trace_spans(WorldObject *self, PyObject *unused) {
    (void)unused;
    th_world *w = world_of(self);
    if (!w) return NULL;
    uint32_t count = 0;
    const th_trace_span *s = th_world_trace_spans(w, &count);
    if (!s) count = 0;
    npy_intp n = (npy_intp)count;
    PyObject *step = new_array(1, &n, NPY_UINT64), *b = new_array(1, &n, NPY_UINT64),
             *e = new_array(1, &n, NPY_UINT64), *wk = new_array(1, &n, NPY_UINT32),
             *ph = PyList_New(n);
    if (!step || !b || !e || !wk || !ph) goto fail;
    uint64_t *st = PyArray_DATA((PyArrayObject *)step), *bb = PyArray_DATA((PyArrayObject *)b),
             *ee = PyArray_DATA((PyArrayObject *)e);
    uint32_t *ww = PyArray_DATA((PyArrayObject *)wk);
    for (npy_intp k = 0; k < n; k++) {
        st[k] = s[k].step;
        bb[k] = s[k].begin_ns;
        ee[k] = s[k].end_ns;
        ww[k] = s[k].worker;
        PyObject *name = PyUnicode_FromString(th_phase_name(s[k].phase));
        if (!name) goto fail;
        PyList_SET_ITEM(ph, k, name);
    }
    return Py_BuildValue("{sNsNsNsNsN}", "step", step, "begin_ns", b, "end_ns", e, "worker", wk,
                         "phase", ph);
fail:
    Py_XDECREF(step);
    Py_XDECREF(b);
    Py_XDECREF(e);
    Py_XDECREF(wk);
    Py_XDECREF(ph);
    return NULL;
}

static PyObject *World_trace_stop(WorldObject *self, PyObject *unused) {
    (void)unused;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_world_trace_stop(w);
    Py_RETURN_NONE;
}

/* ---- the type and the module ------------------------------------------------------- */

#define M(name, flags) \
    { #name, (PyCFunction)World_##name, flags, NULL }
static PyMethodDef World_methods[] = {
    M(step, METH_VARARGS),
    M(run, METH_VARARGS),
    M(close, METH_NOARGS),
    M(agents, METH_NOARGS),
    M(positions, METH_VARARGS),
    M(agent, METH_VARARGS),
    M(counts, METH_NOARGS),
    M(stats, METH_NOARGS),
    M(hash, METH_NOARGS),
    M(scene_over, METH_NOARGS),
    M(crowd_name, METH_VARARGS),
    M(bunker, METH_VARARGS),
    M(find_bunker, METH_VARARGS),
    M(measure_area, METH_VARARGS),
    M(measure_line, METH_VARARGS),
    M(times, METH_VARARGS),
    M(report_json, METH_VARARGS),
    M(set_cell, METH_VARARGS),
    M(cell, METH_VARARGS),
    M(add_bunker, METH_VARARGS),
    M(add_crowd, METH_VARARGS),
    M(add_agents, METH_VARARGS),
    M(remove_agent, METH_VARARGS),
    M(set_agent_preferred_velocity, METH_VARARGS),
    M(clear_agent_preferred_velocity, METH_VARARGS),
    M(agent_preferred_velocity, METH_VARARGS),
    M(set_agent_position, METH_VARARGS),
    M(agent_neighbors, METH_VARARGS),
    M(add_destinations, METH_VARARGS),
    M(add_spawner, METH_VARARGS),
    M(add_exit, METH_VARARGS),
    M(add_measure_area, METH_VARARGS),
    M(add_measure_line, METH_VARARGS),
    M(schedule, METH_VARARGS),
    M(schedule_crowd, METH_VARARGS),
    M(crowd_changes, METH_VARARGS),
    M(start_results, METH_VARARGS),
    M(write_results, METH_NOARGS),
    M(add_level, METH_VARARGS),
    M(level, METH_VARARGS),
    M(find_level, METH_VARARGS),
    M(level_at, METH_VARARGS),
    M(add_stair, METH_VARARGS),
    M(stair, METH_VARARGS),
    M(find_stair, METH_VARARGS),
    M(stair_at, METH_VARARGS),
    M(add_elevator, METH_VARARGS),
    M(elevator, METH_VARARGS),
    M(find_elevator, METH_VARARGS),
    M(agent_elevator, METH_VARARGS),
    M(add_hazard, METH_VARARGS),
    M(air, METH_VARARGS),
    M(smoke_factor, METH_VARARGS),
    M(hazard_info, METH_VARARGS),
    M(agent_fed, METH_VARARGS),
    M(set_agent_goal, METH_VARARGS),
    M(set_agents_goal, METH_VARARGS),
    M(schedule_agents_goal, METH_VARARGS),
    M(agent_goal, METH_VARARGS),
    M(set_goal_planning, METH_VARARGS),
    M(set_agent_exit, METH_VARARGS),
    M(set_agent_speed, METH_VARARGS),
    M(set_agent_radius, METH_VARARGS),
    M(agent_radius, METH_VARARGS),
    M(agent_path, METH_VARARGS),
    M(agent_path_pending, METH_VARARGS),
    M(agent_remaining, METH_VARARGS),
    M(agent_next_step, METH_VARARGS),
    M(pre_movement, METH_VARARGS),
    M(flow, METH_VARARGS),
    M(bunker_flow, METH_VARARGS),
    M(cost_to_shelter, METH_VARARGS),
    M(nearest_bunker, METH_VARARGS),
    M(shelter_path, METH_VARARGS),
    M(destination_flow, METH_VARARGS),
    M(destination_cost, METH_VARARGS),
    M(destination_path, METH_VARARGS),
    M(find_path, METH_VARARGS),
    M(find_path_ida, METH_VARARGS),
    M(wall_distance, METH_VARARGS),
    M(set_cell_speed, METH_VARARGS),
    M(cell_speed, METH_VARARGS),
    M(exit, METH_VARARGS),
    M(exit_covers, METH_VARARGS),
    M(spawner, METH_VARARGS),
    M(spawner_covers, METH_VARARGS),
    M(goal_changes, METH_NOARGS),
    M(own_goals, METH_NOARGS),
    M(goal_planning, METH_NOARGS),
    M(stall_info, METH_NOARGS),
    M(add_group, METH_VARARGS),
    M(group, METH_VARARGS),
    M(add_squad, METH_VARARGS),
    M(squad, METH_VARARGS),
    M(squad_members, METH_VARARGS),
    M(squad_path, METH_VARARGS),
    M(squad_join, METH_VARARGS),
    M(add_target, METH_VARARGS),
    M(target, METH_VARARGS),
    M(breadcrumbs, METH_VARARGS),
    M(waypoint_hop, METH_VARARGS),
    M(forage, METH_VARARGS),
    M(food_source, METH_VARARGS),
    M(pheromone, METH_VARARGS),
    M(add_pheromone, METH_VARARGS),
    M(set_validation, METH_VARARGS),
    M(phase_ms, METH_VARARGS),
    M(trace_start, METH_VARARGS),
    M(history, METH_NOARGS),
    M(validation_error, METH_NOARGS),
    M(step_error, METH_NOARGS),
    M(reset_profile, METH_NOARGS),
    M(trace_spans, METH_NOARGS),
    M(trace_stop, METH_NOARGS),
    {NULL, NULL, 0, NULL},
};
#undef M

static PyGetSetDef World_getset[] = {
    {"scene_steps", (getter)World_scene_steps, NULL, "the scene's `steps` (0 when built in code)",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject WorldType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "throng._throng.World",
    .tp_doc = "A throng world (low level; use throng.World).",
    .tp_basicsize = sizeof(WorldObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_dealloc = (destructor)World_dealloc,
    .tp_methods = World_methods,
    .tp_getset = World_getset,
};

/* ---- the planner (throng/plan.h) ------------------------------------------------------------
 * A Planner holds a th_planner and a reference to its World, which it needs on every call. The
 * world keeps a list of its planners so that World.close() destroys them first, as plan.h asks;
 * a planner of a closed world raises RuntimeError. */

struct PlannerObject {
    PyObject_HEAD th_planner *p;
    WorldObject *world;
    PlannerObject *next; /* the world's list of planners */
};

static PyTypeObject PlannerType;

static void unlink_planner(PlannerObject *self) {
    if (!self->world) return;
    PlannerObject **at = &self->world->planners;
    while (*at && *at != self) at = &(*at)->next;
    if (*at) *at = self->next;
    self->next = NULL;
}

static void destroy_planners(WorldObject *w) {
    while (w->planners) {
        PlannerObject *p = w->planners;
        w->planners = p->next;
        p->next = NULL;
        th_planner_destroy(p->p);
        p->p = NULL;
    }
}

/* The planner and its world, or NULL with RuntimeError. */
static th_planner *planner_of(PlannerObject *self, th_world **w) {
    *w = world_of(self->world);
    if (!*w) return NULL;
    if (!self->p) {
        PyErr_SetString(PyExc_RuntimeError, "the planner is closed");
        return NULL;
    }
    return self->p;
}

static void Planner_dealloc(PlannerObject *self) {
    unlink_planner(self);
    th_planner_destroy(self->p);
    Py_XDECREF(self->world);
    PyObject_Free(self);
}

/* planner(world, cluster_size, max_requests, max_waypoints, trouble_half_life, stall_trouble,
 *         trouble_interval): zero fields take th_default_plan_def's values. */
static PyObject *mod_planner(PyObject *mod, PyObject *args) {
    (void)mod;
    WorldObject *world;
    th_plan_def d = {0};
    double half, stall, interval;
    if (!PyArg_ParseTuple(args, "O!O&O&O&ddd", &WorldType, &world, conv_u32, &d.cluster_size,
                          conv_u32, &d.max_requests, conv_u32, &d.max_waypoints, &half, &stall,
                          &interval))
        return NULL;
    th_world *w = world_of(world);
    if (!w) return NULL;
    d.trouble_half_life = (float)half;
    d.stall_trouble = (float)stall;
    d.trouble_interval = (float)interval;
    th_error err = {0};
    th_planner *p;
    Py_BEGIN_ALLOW_THREADS p = th_planner_create(w, &d, &err);
    Py_END_ALLOW_THREADS if (!p) return raise_error(&err);
    PlannerObject *o = PyObject_New(PlannerObject, &PlannerType);
    if (!o) {
        th_planner_destroy(p);
        return NULL;
    }
    o->p = p;
    Py_INCREF(world);
    o->world = world;
    o->next = world->planners;
    world->planners = o;
    return (PyObject *)o;
}

static PyObject *Planner_close(PlannerObject *self, PyObject *unused) {
    (void)unused;
    unlink_planner(self);
    th_planner_destroy(self->p);
    self->p = NULL;
    Py_RETURN_NONE;
}

static PyObject *Planner_refresh(PlannerObject *self, PyObject *unused) {
    (void)unused;
    th_world *w;
    th_planner *p = planner_of(self, &w);
    if (!p) return NULL;
    th_error err = {0};
    if (!th_planner_refresh(p, w, &err)) return raise_error(&err);
    Py_RETURN_NONE;
}

static PyObject *Planner_cells_changed(PlannerObject *self, PyObject *args) {
    int x0, y0, x1, y1;
    if (!PyArg_ParseTuple(args, "(iiii)", &x0, &y0, &x1, &y1)) return NULL;
    th_world *w;
    th_planner *p = planner_of(self, &w);
    if (!p) return NULL;
    th_error err = {0};
    if (!th_planner_cells_changed(p, w, x0, y0, x1, y1, &err)) return raise_error(&err);
    Py_RETURN_NONE;
}

struct planner_path {
    th_planner *p;
    th_vec2 from, to;
    float cost;
};

static bool planner_path_fn(th_world *w, void *ctx, th_vec2 *out, uint32_t max, uint32_t *count,
                            th_error *err) {
    struct planner_path *a = ctx;
    return th_planner_find_path(a->p, w, a->from, a->to, out, max, count, &a->cost, err);
}

/* find_path((x, y), (x, y)) -> (points, cost) */
static PyObject *Planner_find_path(PlannerObject *self, PyObject *args) {
    double fx, fy, tx, ty;
    if (!PyArg_ParseTuple(args, "(dd)(dd)", &fx, &fy, &tx, &ty)) return NULL;
    th_world *w;
    th_planner *p = planner_of(self, &w);
    if (!p) return NULL;
    struct planner_path a = {p, th_v2((float)fx, (float)fy), th_v2((float)tx, (float)ty), 0.0f};
    PyObject *pts = grown_path(w, planner_path_fn, &a);
    if (!pts) return NULL;
    return Py_BuildValue("(Nd)", pts, (double)a.cost);
}

static th_plan_id plan_of(unsigned long long id) {
    return (th_plan_id){(uint32_t)id, (uint32_t)(id >> 32)};
}

/* submit((x, y), (x, y), priority) -> request id (index1 | generation << 32) */
static PyObject *Planner_submit(PlannerObject *self, PyObject *args) {
    double fx, fy, tx, ty;
    int priority;
    if (!PyArg_ParseTuple(args, "(dd)(dd)i", &fx, &fy, &tx, &ty, &priority)) return NULL;
    th_world *w;
    th_planner *p = planner_of(self, &w);
    if (!p) return NULL;
    th_error err = {0};
    th_plan_id id = th_planner_submit(p, w, th_v2((float)fx, (float)fy),
                                      th_v2((float)tx, (float)ty), priority, &err);
    if (!id.index1) return raise_error(&err);
    return PyLong_FromUnsignedLongLong((uint64_t)id.index1 | ((uint64_t)id.generation << 32));
}

static PyObject *Planner_update(PlannerObject *self, PyObject *args) {
    unsigned int budget;
    if (!PyArg_ParseTuple(args, "O&", conv_u32, &budget)) return NULL;
    th_world *w;
    th_planner *p = planner_of(self, &w);
    if (!p) return NULL;
    th_error err = {0};
    uint32_t spent = th_planner_update(p, w, budget, &err);
    if (!spent && err.code != TH_OK) return raise_error(&err);
    return PyLong_FromUnsignedLong(spent);
}

static const char *const k_plan_status[] = {"invalid", "waiting", "done", "unreachable",
                                            "too_long"};

/* result(id) -> (status, points or None, cost) */
static PyObject *Planner_result(PlannerObject *self, PyObject *args) {
    unsigned long long id;
    if (!PyArg_ParseTuple(args, "O&", conv_u64, &id)) return NULL;
    th_world *w;
    th_planner *p = planner_of(self, &w);
    if (!p) return NULL;
    th_error err = {0};
    uint32_t n = 0;
    float cost = INFINITY;
    th_plan_status st = th_planner_result(p, plan_of(id), NULL, 0, &n, &cost, &err);
    if (st == TH_PLAN_INVALID) return raise_error(&err);
    if (st != TH_PLAN_DONE)
        return Py_BuildValue("(sOd)", k_plan_status[(unsigned)st < 5 ? st : 0], Py_None,
                             (double)cost);
    th_vec2 *pts = malloc(sizeof *pts * (n ? n : 1));
    if (!pts) return PyErr_NoMemory();
    uint32_t got = 0;
    st = th_planner_result(p, plan_of(id), pts, n, &got, &cost, &err);
    if (st == TH_PLAN_INVALID) {
        free(pts);
        return raise_error(&err);
    }
    PyObject *a = points_array(pts, got < n ? got : n);
    free(pts);
    if (!a) return NULL;
    return Py_BuildValue("(sNd)", "done", a, (double)cost);
}

static PyObject *Planner_direction(PlannerObject *self, PyObject *args) {
    unsigned long long id;
    if (!PyArg_ParseTuple(args, "O&", conv_u64, &id)) return NULL;
    th_world *w;
    th_planner *p = planner_of(self, &w);
    if (!p) return NULL;
    th_vec2 d = {0};
    bool ok = th_planner_direction(p, plan_of(id), &d);
    return dir_or_none(ok, d);
}

static PyObject *Planner_release(PlannerObject *self, PyObject *args) {
    unsigned long long id;
    if (!PyArg_ParseTuple(args, "O&", conv_u64, &id)) return NULL;
    th_world *w;
    th_planner *p = planner_of(self, &w);
    if (!p) return NULL;
    th_error err = {0};
    if (!th_planner_release(p, plan_of(id), &err)) return raise_error(&err);
    Py_RETURN_NONE;
}

static PyObject *Planner_set_anytime(PlannerObject *self, PyObject *args) {
    unsigned long long id;
    int on;
    if (!PyArg_ParseTuple(args, "O&p", conv_u64, &id, &on)) return NULL;
    th_world *w;
    th_planner *p = planner_of(self, &w);
    if (!p) return NULL;
    th_error err = {0};
    if (!th_planner_set_anytime(p, plan_of(id), on != 0, &err)) return raise_error(&err);
    Py_RETURN_NONE;
}

static PyObject *Planner_progress(PlannerObject *self, PyObject *args) {
    unsigned long long id;
    if (!PyArg_ParseTuple(args, "O&", conv_u64, &id)) return NULL;
    th_world *w;
    th_planner *p = planner_of(self, &w);
    if (!p) return NULL;
    th_error err = {0};
    th_plan_progress g;
    if (!th_planner_get_progress(p, plan_of(id), &g, &err)) return raise_error(&err);
    return Py_BuildValue("{sOsOsIsd}", "anytime", g.anytime ? Py_True : Py_False, "final",
                         g.final ? Py_True : Py_False, "iterations", g.iterations, "first_cost",
                         (double)g.first_cost);
}

/* find_tour((x, y), (x, y), [((x, y), reward), ...]) -> (points, taken bits, net cost) */
static PyObject *Planner_find_tour(PlannerObject *self, PyObject *args) {
    double fx, fy, tx, ty;
    PyObject *rewards;
    if (!PyArg_ParseTuple(args, "(dd)(dd)O", &fx, &fy, &tx, &ty, &rewards)) return NULL;
    th_world *w;
    th_planner *p = planner_of(self, &w);
    if (!p) return NULL;
    PyObject *seq = PySequence_Fast(rewards, "find_tour: rewards must be a sequence");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n > (Py_ssize_t)TH_PLAN_MAX_REWARDS) {
        Py_DECREF(seq);
        th_error err = {.code = TH_ERR_LIMIT};
        snprintf(err.message, sizeof err.message, "find_tour: %ld reward points, at most %u",
                 (long)n, TH_PLAN_MAX_REWARDS);
        return raise_error(&err);
    }
    th_plan_reward r[TH_PLAN_MAX_REWARDS];
    for (Py_ssize_t i = 0; i < n; i++) {
        double x, y, v;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "(dd)d", &x, &y, &v)) {
            Py_DECREF(seq);
            return NULL;
        }
        r[i] = (th_plan_reward){th_v2((float)x, (float)y), (float)v};
    }
    Py_DECREF(seq);
    th_vec2 from = th_v2((float)fx, (float)fy), to = th_v2((float)tx, (float)ty);
    uint32_t max = 1024;
    for (;;) {
        th_vec2 *buf = malloc(sizeof *buf * max);
        if (!buf) return PyErr_NoMemory();
        uint32_t count = 0, taken = 0;
        float net = 0;
        th_error err = {0};
        if (th_planner_find_tour(p, w, from, to, n ? r : NULL, (uint32_t)n, buf, max, &count,
                                 &taken, &net, &err)) {
            PyObject *a = points_array(buf, count < max ? count : max);
            free(buf);
            if (!a) return NULL;
            return Py_BuildValue("(NId)", a, taken, (double)net);
        }
        free(buf);
        if (err.code != TH_ERR_LIMIT || count <= max || count > (1u << 28))
            return raise_error(&err);
        max = count;
    }
}

static PyObject *Planner_note_trouble(PlannerObject *self, PyObject *args) {
    double x, y, weight;
    if (!PyArg_ParseTuple(args, "(dd)d", &x, &y, &weight)) return NULL;
    th_world *w;
    th_planner *p = planner_of(self, &w);
    if (!p) return NULL;
    th_error err = {0};
    if (!th_planner_note_trouble(p, w, th_v2((float)x, (float)y), (float)weight, &err))
        return raise_error(&err);
    Py_RETURN_NONE;
}

static PyObject *Planner_trouble(PlannerObject *self, PyObject *args) {
    double x, y;
    if (!PyArg_ParseTuple(args, "(dd)", &x, &y)) return NULL;
    th_world *w;
    th_planner *p = planner_of(self, &w);
    if (!p) return NULL;
    return PyFloat_FromDouble((double)th_planner_get_trouble(p, th_v2((float)x, (float)y)));
}

static PyObject *Planner_info(PlannerObject *self, PyObject *unused) {
    (void)unused;
    th_world *w;
    th_planner *p = planner_of(self, &w);
    if (!p) return NULL;
    th_plan_info i = th_planner_info(p);
    return Py_BuildValue("{sIsIsIsIsKsIsKsKsIsIsKsI}", "cluster_size", i.cluster_size, "clusters",
                         i.clusters, "nodes", i.nodes, "edges", i.edges, "bytes",
                         (unsigned long long)i.bytes, "waiting", i.waiting, "expanded",
                         (unsigned long long)i.expanded, "cells_expanded",
                         (unsigned long long)i.cells_expanded, "rebuilt", i.rebuilt, "improving",
                         i.improving, "improve_expanded", (unsigned long long)i.improve_expanded,
                         "trouble_cells", i.trouble_cells);
}

#define P(name, flags) \
    { #name, (PyCFunction)Planner_##name, flags, NULL }
static PyMethodDef Planner_methods[] = {
    P(close, METH_NOARGS),         P(refresh, METH_NOARGS),    P(cells_changed, METH_VARARGS),
    P(find_path, METH_VARARGS),    P(submit, METH_VARARGS),    P(update, METH_VARARGS),
    P(result, METH_VARARGS),       P(direction, METH_VARARGS), P(release, METH_VARARGS),
    P(set_anytime, METH_VARARGS),  P(progress, METH_VARARGS),  P(find_tour, METH_VARARGS),
    P(note_trouble, METH_VARARGS), P(trouble, METH_VARARGS),   P(info, METH_NOARGS),
    {NULL, NULL, 0, NULL},
};
#undef P

static PyTypeObject PlannerType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "throng._throng.Planner",
    .tp_doc = "A hierarchical path planner on a world's map (low level; use throng.Planner).",
    .tp_basicsize = sizeof(PlannerObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_dealloc = (destructor)Planner_dealloc,
    .tp_methods = Planner_methods,
};

static PyObject *mod_set_error_class(PyObject *mod, PyObject *cls) {
    (void)mod;
    Py_XDECREF(g_error_class);
    Py_INCREF(cls);
    g_error_class = cls;
    Py_RETURN_NONE;
}

static PyObject *mod_error_codes(PyObject *mod, PyObject *unused) {
    (void)mod, (void)unused;
    PyObject *d = PyDict_New();
    if (!d) return NULL;
#define X(name, value, meaning)                              \
    do {                                                     \
        PyObject *v = Py_BuildValue("(is)", value, meaning); \
        if (!v || PyDict_SetItemString(d, #name, v) < 0) {   \
            Py_XDECREF(v);                                   \
            Py_DECREF(d);                                    \
            return NULL;                                     \
        }                                                    \
        Py_DECREF(v);                                        \
    } while (0);
    TH_ERROR_CODES(X)
#undef X
    return d;
}

static PyObject *mod_version(PyObject *mod, PyObject *unused) {
    (void)mod, (void)unused;
    return PyUnicode_FromString(th_version());
}

static PyMethodDef module_methods[] = {
    {"create", (PyCFunction)(void (*)(void))mod_create, METH_VARARGS | METH_KEYWORDS, NULL},
    {"load", (PyCFunction)(void (*)(void))mod_load, METH_VARARGS | METH_KEYWORDS, NULL},
    {"demo", mod_demo, METH_VARARGS, NULL},
    {"_set_error_class", mod_set_error_class, METH_O, NULL},
    {"error_codes", mod_error_codes, METH_NOARGS, NULL},
    {"version", mod_version, METH_NOARGS, NULL},
    {"elevator_travel_time", mod_elevator_travel_time, METH_VARARGS, NULL},
    {"clean_air", mod_clean_air, METH_NOARGS, NULL},
    {"fed_rate", mod_fed_rate, METH_VARARGS, NULL},
    {"check", mod_check, METH_VARARGS, NULL},
    {"planner", mod_planner, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT,
                                        "throng._throng",
                                        "The C side of throng (use the throng package).",
                                        -1,
                                        module_methods,
                                        NULL,
                                        NULL,
                                        NULL,
                                        NULL};

PyMODINIT_FUNC PyInit__throng(void) {
    import_array();
    if (PyType_Ready(&WorldType) < 0 || PyType_Ready(&PlannerType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (!m) return NULL;
    Py_INCREF(&WorldType);
    if (PyModule_AddObject(m, "World", (PyObject *)&WorldType) < 0) {
        Py_DECREF(&WorldType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
