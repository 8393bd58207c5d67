/* Built-in demo worlds, built through the public API only. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/rng.h"
#include "sim/core/error.h"
#include "throng/throng.h"

const char *const th_demo_names[] = {"flock", "evac", "pedestrians", NULL};

/* Same-crowd neighbours wanted inside the neighbour radius on average. */
#define FLOCK_DENSITY_NEIGHBORS 20.0

/* Random draws of the demo builders use their own stream, keyed by agent index. */
enum { STREAM_X, STREAM_Y, STREAM_HEADING, STREAM_SPEED };

/* A wrap-around square of `side` metres for n agents; its def in *wd. */
static th_world *torus(const th_demo_opts *o, uint32_t n, double side, th_world_def *wd,
                       th_error *err) {
    *wd = th_default_world_def();
    wd->width = wd->height = (float)side;
    wd->bounds = TH_BOUNDS_WRAP;
    wd->seed = o->seed;
    wd->threads = o->threads;
    wd->agent_capacity = n;
    wd->dist = o->dist;
    return th_world_create(wd, err);
}

static th_world *build_flock(const th_demo_opts *o, th_error *err) {
    uint32_t n = o->agents ? o->agents : 10000;
    th_crowd_def cd = th_default_crowd_def();
    cd.name = "boids";
    /* Square side such that N agents spread uniformly put FLOCK_DENSITY_NEIGHBORS of them in a
     * disc of the neighbour radius: N * pi r^2 / L^2 = k. */
    double r = cd.neighbor_radius;
    double side = sqrt((double)n * TH_PI * r * r / FLOCK_DENSITY_NEIGHBORS);
    th_world_def wd;
    th_world *w = torus(o, n, fmax(side, 4.0 * r), &wd, err);
    if (!w) return NULL;
    th_crowd_id crowd = th_world_add_crowd(w, &cd, err);
    if (!th_crowd_id_valid(crowd)) {
        th_world_destroy(w);
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++) {
        float x = th_rng_range(wd.seed, i, STREAM_X, 0.0f, wd.width);
        float y = th_rng_range(wd.seed, i, STREAM_Y, 0.0f, wd.height);
        float a = th_rng_range(wd.seed, i, STREAM_HEADING, 0.0f, 2.0f * (float)TH_PI);
        float s = th_rng_range(wd.seed, i, STREAM_SPEED, 0.5f, 1.0f) * cd.max_speed;
        if (!th_agent_id_valid(
                th_world_add_agent(w, crowd, th_v2(x, y), th_v2(cosf(a) * s, sinf(a) * s), err))) {
            th_world_destroy(w);
            return NULL;
        }
    }
    return w;
}

/* ---- pedestrians: four crossing streams on a torus ------------------------------------- */

/* Persons per square metre of the pedestrians demo: a busy square, where everyone has a few
 * people within reach and walking is already slower than free (Weidmann: 1.06 m/s). */
#define PED_DENSITY 1.0

static th_world *build_pedestrians(const th_demo_opts *o, th_error *err) {
    uint32_t n = o->agents ? o->agents : 10000;
    th_crowd_def cd = th_default_pedestrian_def();
    th_world_def wd;
    th_world *w = torus(o, n, fmax(sqrt((double)n / PED_DENSITY), 8.0), &wd, err);
    if (!w) return NULL;
    static const char *const names[4] = {"eastbound", "northbound", "westbound", "southbound"};
    static const uint32_t colors[4] = {0xffcc55, 0x66ccff, 0xff7766, 0x88dd88};
    for (int k = 0; k < 4; k++) {
        cd.name = names[k];
        cd.color = colors[k];
        cd.heading = th_v2(k == 0   ? 1.0f
                           : k == 2 ? -1.0f
                                    : 0.0f,
                           k == 1   ? 1.0f
                           : k == 3 ? -1.0f
                                    : 0.0f);
        if (!th_crowd_id_valid(th_world_add_crowd(w, &cd, err))) {
            th_world_destroy(w);
            return NULL;
        }
    }
    /* A jittered lattice: nobody starts on anybody else. */
    uint32_t cols = (uint32_t)ceil(sqrt((double)n));
    float pitch = wd.width / (float)cols;
    for (uint32_t i = 0; i < n; i++) {
        float jx = th_rng_range(wd.seed, i, STREAM_X, -0.2f, 0.2f) * pitch;
        float jy = th_rng_range(wd.seed, i, STREAM_Y, -0.2f, 0.2f) * pitch;
        float x = ((float)(i % cols) + 0.5f) * pitch + jx,
              y = ((float)(i / cols) + 0.5f) * pitch + jy;
        if (!th_agent_id_valid(th_world_add_agent(
                w, (th_crowd_id){i % 4u + 1u},
                th_v2(fminf(x, nextafterf(wd.width, 0.0f)), fminf(y, nextafterf(wd.height, 0.0f))),
                th_v2(0.0f, 0.0f), err))) {
            th_world_destroy(w);
            return NULL;
        }
    }
    return w;
}

/* ---- evac: a city maze with four bunkers ----------------------------------------------- */

enum {
    EVAC_SIDE = 256, /* cells (and metres) per side */
    EVAC_PITCH = 16, /* a block plus its street */
    EVAC_STREET = 4, /* street width, cells */
    EVAC_BUNKER = 3, /* bunker side, cells */
};

/* Street cells are those within EVAC_STREET of a multiple of EVAC_PITCH; the rest are
 * buildings. A building whose block index is a multiple of 3 is destructible (rubble can be
 * cleared through it), and some street segments are barricaded to turn the grid into a maze. */
static bool evac_street(int32_t v) { return v % EVAC_PITCH < EVAC_STREET; }

static bool evac_build_map(th_world *w, uint64_t seed, th_error *err) {
    for (int32_t y = 0; y < EVAC_SIDE; y++) {
        for (int32_t x = 0; x < EVAC_SIDE; x++) {
            if (evac_street(x) || evac_street(y)) continue;
            int32_t block = (y / EVAC_PITCH) * (EVAC_SIDE / EVAC_PITCH) + x / EVAC_PITCH;
            th_cell_kind kind = block % 3 == 0 ? TH_CELL_DESTRUCTIBLE : TH_CELL_WALL;
            if (!th_world_set_cell(w, x, y, kind, 1, err)) return false;
        }
    }
    /* Barricades: a destructible wall across a quarter of the street segments. */
    const int32_t blocks = EVAC_SIDE / EVAC_PITCH;
    for (int32_t by = 0; by < blocks; by++) {
        for (int32_t bx = 0; bx < blocks; bx++) {
            uint64_t r = th_rng_u64(seed, (uint64_t)(by * blocks + bx), 100);
            if (r % 4 != 0) continue;
            bool vertical = (r >> 8) & 1; /* across a north-south street */
            int32_t x0 = bx * EVAC_PITCH, y0 = by * EVAC_PITCH;
            for (int32_t i = 0; i < EVAC_STREET; i++) {
                int32_t x = vertical ? x0 + i : x0 + EVAC_PITCH / 2;
                int32_t y = vertical ? y0 + EVAC_PITCH / 2 : y0 + i;
                if (!th_world_set_cell(w, x, y, TH_CELL_DESTRUCTIBLE, 1, err)) return false;
            }
        }
    }
    /* Parks: slower ground in the middle of the streets of one district. */
    for (int32_t y = 96; y < 160; y++) {
        for (int32_t x = 96; x < 160; x++) {
            if (th_world_cell(w, x, y, NULL) == TH_CELL_OPEN &&
                !th_world_set_cell(w, x, y, TH_CELL_OPEN, 3, err))
                return false;
        }
    }
    /* Four bunkers on the outer ring street, one per side; the west one is small. */
    const struct {
        const char *name;
        int32_t x, y;
        uint32_t capacity;
    } bunkers[] = {
        {"north", EVAC_SIDE / 2, EVAC_SIDE - EVAC_PITCH, 0},
        {"east", EVAC_SIDE - EVAC_PITCH, EVAC_SIDE / 2, 0},
        {"south", EVAC_SIDE / 2, 0, 0},
        {"west", 0, EVAC_SIDE / 2, 1500},
    };
    for (size_t i = 0; i < sizeof bunkers / sizeof bunkers[0]; i++) {
        th_bunker_def b = {bunkers[i].name,
                           bunkers[i].x,
                           bunkers[i].y,
                           bunkers[i].x + EVAC_BUNKER - 1,
                           bunkers[i].y + EVAC_BUNKER - 1,
                           bunkers[i].capacity,
                           false,
                           0.0f};
        if (!th_bunker_id_valid(th_world_add_bunker(w, &b, err))) return false;
    }
    return true;
}

static th_world *build_evac(const th_demo_opts *o, th_error *err) {
    uint32_t n = o->agents ? o->agents : 10000;
    th_world_def wd = th_default_world_def();
    wd.width = wd.height = (float)EVAC_SIDE;
    wd.cell_size = 1.0f;
    wd.seed = o->seed;
    wd.threads = o->threads;
    wd.agent_capacity = n;
    wd.dist = o->dist;
    th_world *w = th_world_create(&wd, err);
    if (!w) return NULL;
    th_crowd_def cd = th_default_pedestrian_def();
    cd.name = "civilians";
    cd.behavior = TH_BEHAVIOR_FLEE;
    th_crowd_id crowd = {0};
    if (!evac_build_map(w, wd.seed, err) ||
        !th_crowd_id_valid(crowd = th_world_add_crowd(w, &cd, err))) {
        th_world_destroy(w);
        return NULL;
    }
    /* Random open street cells; draws that land on a wall or a bunker are redrawn. */
    uint64_t draw = 0;
    for (uint32_t i = 0; i < n; i++) {
        for (;;) {
            float x = th_rng_range(wd.seed, i, STREAM_X + 4 * draw, 0.0f, wd.width);
            float y = th_rng_range(wd.seed, i, STREAM_Y + 4 * draw, 0.0f, wd.height);
            draw++;
            if (th_world_cell(w, (int32_t)x, (int32_t)y, NULL) != TH_CELL_OPEN) continue;
            if (!th_agent_id_valid(
                    th_world_add_agent(w, crowd, th_v2(x, y), th_v2(0.0f, 0.0f), err))) {
                th_world_destroy(w);
                return NULL;
            }
            break;
        }
    }
    return w;
}

th_world *th_demo_create(const char *name, const th_demo_opts *opts, th_error *err) {
    th_demo_opts o = opts ? *opts : (th_demo_opts){.seed = 1};
    if (o.agents > TH_MAX_AGENTS) {
        th_error_set(err, TH_ERR_INVALID, "agents must be at most %u", TH_MAX_AGENTS);
        return NULL;
    }
    if (name && strcmp(name, "flock") == 0) return build_flock(&o, err);
    if (name && strcmp(name, "evac") == 0) return build_evac(&o, err);
    if (name && strcmp(name, "pedestrians") == 0) return build_pedestrians(&o, err);
    th_error_set(err, TH_ERR_INVALID, "unknown demo '%s' (known: flock, evac, pedestrians)",
                 name ? name : "(null)");
    return NULL;
}
