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

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "throng/clock.h"
#include "throng/throng.h"
#include "report.h"

static PyObject *g_error_class; /* throng.Error */

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
} WorldObject;

static PyTypeObject WorldType;

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
    return o;
}

static void World_dealloc(WorldObject *self) {
    /* A world cannot be collected while it steps: step() holds a reference to it. */
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
    PyThreadState *ts = PyEval_SaveThread();
    while (i < n && !stop) {
        th_world_step(w);
        i++;
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
    PyThreadState *ts = PyEval_SaveThread();
    while (run < n && !stop) {
        th_world_step(w);
        run++;
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
    self->asked += stop ? (uint64_t)run : (uint64_t)n;
    self->scene_over = over;
    if (stop) return NULL;
    return PyLong_FromLongLong(run);
}

static PyObject *World_close(WorldObject *self, PyObject *unused) {
    (void)unused;
    if (self->busy) return (PyObject *)world_of(self); /* raises */
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
    return Py_BuildValue("{s(dd)s(dd)sIsOsOsI}", "position", (double)s.position.x,
                         (double)s.position.y, "velocity", (double)s.velocity.x,
                         (double)s.velocity.y, "crowd", s.crowd.index1 - 1, "stranded",
                         s.stranded ? Py_True : Py_False, "leader", s.leader ? Py_True : Py_False,
                         "neighbors", s.neighbors);
}

static PyObject *World_counts(WorldObject *self, PyObject *unused) {
    (void)unused;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_world_def d = th_world_get_def(w);
    int32_t cols = 0, rows = 0;
    float cell = 0.0f;
    th_world_map_size(w, &cols, &rows, &cell);
    return Py_BuildValue(
        "{sKsIsIsIsIsIsIsIsdsdsdsIsKsOsisisd}", "step", (unsigned long long)th_world_step_count(w),
        "agents", th_world_agent_count(w), "crowds", th_world_crowd_count(w), "bunkers",
        th_world_bunker_count(w), "spawners", th_world_spawner_count(w), "exits",
        th_world_exit_count(w), "areas", th_world_measure_area_count(w), "lines",
        th_world_measure_line_count(w), "width", (double)d.width, "height", (double)d.height,
        "timestep", (double)d.timestep, "threads", d.threads, "seed", (unsigned long long)d.seed,
        "wrap", d.bounds == TH_BOUNDS_WRAP ? Py_True : Py_False, "cols", cols, "rows", rows,
        "cell_size", (double)cell);
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
    const th_crowd_def *c = th_world_crowd(w, (th_crowd_id){i + 1});
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
    return Py_BuildValue("{sss(iiii)sIsIsOsO}", "name", b.name, "cells", b.x0, b.y0, b.x1, b.y1,
                         "capacity", b.capacity, "sheltered", b.sheltered, "destroyed",
                         b.destroyed ? Py_True : Py_False, "full", b.full ? Py_True : Py_False);
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
    if (!th_world_measure_area(w, (th_measure_area_id){i + 1}, &a)) Py_RETURN_NONE;
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
    if (!th_world_measure_line(w, (th_measure_line_id){i + 1}, &l)) Py_RETURN_NONE;
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
static PyObject *World_report_json(WorldObject *self, PyObject *args) {
    const char *path;
    if (!PyArg_ParseTuple(args, "s", &path)) return NULL;
    th_world *w = world_of(self);
    if (!w) return NULL;
    th_run_facts f = {.scene = self->name,
                      .argument = self->argument ? self->argument : "",
                      .steps_asked = self->asked,
                      .steps_run = th_world_step_count(w),
                      .wall_s = self->wall_s,
                      .agents_start = self->started ? self->agents_start : th_world_agent_count(w),
                      .scene_over = self->scene_over != 0,
                      .warnings = self->warnings,
                      .warning = self->warning};
    th_error err = {0};
    if (!th_report_write_json(path, w, &f, &err)) return raise_error(&err);
    Py_RETURN_NONE;
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
    if (!PyArg_ParseTuple(args, "siiiiO&", &d.name, &d.x0, &d.y0, &d.x1, &d.y1, conv_u32,
                          &d.capacity))
        return NULL;
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
    F(anticipation),      F(keep_right),
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

/* add_crowd(name, pedestrian, goal, params, route, mode, radius, heading, field, color): a
 * crowd from the pedestrian or boids defaults with `params` ({field: float}) applied. */
static PyObject *World_add_crowd(WorldObject *self, PyObject *args) {
    const char *name;
    int pedestrian, goal, mode;
    PyObject *params, *route, *heading;
    double radius, wander;
    unsigned int field, color;
    if (!PyArg_ParseTuple(args, "spiO!OidOdO&O&", &name, &pedestrian, &goal, &PyDict_Type, &params,
                          &route, &mode, &radius, &heading, &wander, conv_u32, &field, conv_u32,
                          &color))
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
    if (heading != Py_None && !get_vec2(heading, &d.heading, "heading")) return NULL;
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(params, &pos, &key, &value)) {
        const char *k = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : NULL;
        if (!k) {
            PyErr_SetString(PyExc_TypeError, "add_crowd: parameter names are strings");
            return NULL;
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
    if (!PyArg_ParseTuple(args, "z(dddd)iO", &d.name, &x0, &y0, &x1, &y1, &field, &crowds))
        return NULL;
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
    uint64_t step = th_world_step_count(w);
    if (step_obj != Py_None) {
        unsigned long long v;
        if (!conv_u64(step_obj, &v)) return NULL;
        step = v;
    }
    e.type = (th_event_type)type;
    e.bunker = (th_bunker_id){bunker >= 0 ? (uint32_t)bunker + 1 : 0};
    th_error err = {0};
    if (!th_world_schedule(w, step, &e, &err)) return raise_error(&err);
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
    if (PyType_Ready(&WorldType) < 0) return NULL;
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
