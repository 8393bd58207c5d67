/* Built-in demo worlds, built through the public API only. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../engine/rng.h"
#include "throng.h"

const char *const th_demo_names[] = {"flock", NULL};

/* Same-crowd neighbours wanted inside the neighbour radius on average. */
#define FLOCK_DENSITY_NEIGHBORS 20.0

/* Random draws of the demo builders use their own stream, keyed by agent index. */
enum { STREAM_X, STREAM_Y, STREAM_HEADING, STREAM_SPEED };

static th_world *build_flock(const th_demo_opts *o, th_error *err) {
    uint32_t n = o->agents ? o->agents : 10000;
    th_crowd_def cd = th_default_crowd_def();
    cd.name = "boids";
    /* Square side such that N agents spread uniformly put FLOCK_DENSITY_NEIGHBORS of them in a
     * disc of the neighbour radius: N * pi r^2 / L^2 = k. */
    double r = cd.neighbor_radius;
    double side = sqrt((double)n * TH_PI * r * r / FLOCK_DENSITY_NEIGHBORS);
    if (side < 4.0 * r) side = 4.0 * r;
    th_world_def wd = th_default_world_def();
    wd.width = wd.height = (float)side;
    wd.bounds = TH_BOUNDS_WRAP;
    wd.seed = o->seed;
    wd.threads = o->threads;
    wd.agent_capacity = n;
    th_world *w = th_world_create(&wd, err);
    if (!w) return NULL;
    int crowd = th_world_add_crowd(w, &cd, err);
    if (crowd < 0) {
        th_world_destroy(w);
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++) {
        float x = th_rng_range(wd.seed, i, STREAM_X, 0.0f, wd.width);
        float y = th_rng_range(wd.seed, i, STREAM_Y, 0.0f, wd.height);
        float a = th_rng_range(wd.seed, i, STREAM_HEADING, 0.0f, 2.0f * (float)TH_PI);
        float s = th_rng_range(wd.seed, i, STREAM_SPEED, 0.5f, 1.0f) * cd.max_speed;
        if (th_world_add_agent(w, (uint32_t)crowd, th_v2(x, y), th_v2(cosf(a) * s, sinf(a) * s),
                               err) == TH_INVALID_AGENT) {
            th_world_destroy(w);
            return NULL;
        }
    }
    return w;
}

th_world *th_demo_create(const char *name, const th_demo_opts *opts, th_error *err) {
    th_demo_opts o = opts ? *opts : (th_demo_opts){.seed = 1};
    if (o.agents > TH_MAX_AGENTS) {
        if (err) snprintf(err->message, sizeof err->message, "agents must be at most %u", TH_MAX_AGENTS);
        return NULL;
    }
    if (name && strcmp(name, "flock") == 0) return build_flock(&o, err);
    if (err) {
        snprintf(err->message, sizeof err->message, "unknown demo '%s' (known: flock)",
                 name ? name : "(null)");
    }
    return NULL;
}
