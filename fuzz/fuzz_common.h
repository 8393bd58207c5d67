/* Shared by the fuzz targets: the caps that keep one input fast, and the check that every
 * failure is reported in the scene-error format. */
#ifndef TH_FUZZ_COMMON_H
#define TH_FUZZ_COMMON_H

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/scene/scene_internal.h"

/* The loader accepts up to 4096 x 4096 cells and 2^24 agents; building and stepping worlds
 * that size takes seconds and gigabytes, which would hide real findings behind timeouts. The
 * caps apply after parsing, so the parser still sees every input whole. */
enum {
    FUZZ_MAX_CELLS = 160 * 160,
    FUZZ_MAX_AGENTS = 2000,
    FUZZ_MAX_EVENTS = 64,
    FUZZ_STEPS = 2,
};

static inline bool fuzz_within_caps(const th_scene *s) {
    uint64_t agents = 0;
    for (uint32_t c = 0; c < s->crowd_count; c++) {
        agents += (uint64_t)s->crowd[c].count + s->crowd[c].agent_count;
    }
    uint64_t cells = s->has_map ? (uint64_t)s->cols * (uint64_t)s->rows : 0;
    return agents <= FUZZ_MAX_AGENTS && cells <= FUZZ_MAX_CELLS &&
           s->event_count <= FUZZ_MAX_EVENTS;
}

/* "name:line:column: ..." with a non-empty rest and nothing that could drive a terminal or
 * reorder what it shows. */
static inline void fuzz_check_message(const th_error *err, const char *name) {
    const char *m = err->message;
    size_t n = strlen(name);
    bool ok = strncmp(m, name, n) == 0 && m[n] == ':' && isdigit((unsigned char)m[n + 1]);
    const char *p = m + n + 1;
    while (ok && isdigit((unsigned char)*p)) p++;
    ok = ok && *p == ':' && isdigit((unsigned char)p[1]);
    p++;
    while (ok && isdigit((unsigned char)*p)) p++;
    ok = ok && p[0] == ':' && p[1] == ' ' && p[2] != '\0';
    /* no C0 control, DEL, C1 control, bidi override or isolate, or invalid UTF-8 */
    ok = ok && th_text_safe(m, strlen(m));
    if (!ok) {
        fprintf(stderr, "badly formed error message: \"%s\"\n", m);
        abort();
    }
}

/* The scene's measurement areas and lines: counts within the agents there were, densities and
 * flows finite, a speed only where someone stands, crossings within what the steps allow (a
 * move in a wrap-around world meets up to four copies of a line), and each line's signed total the
 * difference of its forward and backward totals. */
static inline void fuzz_check_measure(const th_world *w, uint32_t most) {
    for (uint32_t i = 0; i < th_world_measure_area_count(w); i++) {
        th_measure_area_info a;
        if (!th_world_get_measure_area(w, (th_measure_area_id){i + 1}, &a) || a.count > most ||
            !isfinite(a.density) || a.density < 0 || (a.count > 0) != !isnan(a.mean_speed) ||
            (a.count > 0 && !(a.mean_speed >= 0 && isfinite(a.mean_speed)))) {
            fprintf(stderr, "measurement area %u is inconsistent\n", i);
            abort();
        }
    }
    for (uint32_t i = 0; i < th_world_measure_line_count(w); i++) {
        th_measure_line_info l;
        if (!th_world_get_measure_line(w, (th_measure_line_id){i + 1}, &l) || !isfinite(l.flow) ||
            l.crossed_total != (int64_t)l.forward_total - (int64_t)l.backward_total ||
            l.forward_total > 4ull * most * FUZZ_STEPS ||
            l.backward_total > 4ull * most * FUZZ_STEPS) {
            fprintf(stderr, "measurement line %u is inconsistent\n", i);
            abort();
        }
    }
}

/* Parse `data` as a scene named `name`; when it is valid and small enough, build its world
 * on one thread and run a few steps. */
static inline void fuzz_scene_bytes(const char *name, const void *data, size_t size) {
    th_scene s;
    th_error err = {0};
    if (!th_scene_parse_memory(&s, name, data, size, &err)) {
        fuzz_check_message(&err, name);
    } else if (fuzz_within_caps(&s)) {
        th_world *w = th_scene_build(&s, &(th_scene_opts){.threads = 1}, false, &err);
        if (!w) {
            fuzz_check_message(&err, name);
        } else {
            for (int i = 0; i < FUZZ_STEPS; i++) th_world_step(w);
            /* The engine's invariants: every agent counted, inside the world, finite, and not
             * in a wall. */
            th_world_stats st = th_world_get_stats(w);
            /* Agents a block walls in are removed (buried): they count too. */
            if ((uint64_t)st.agents + st.sheltered + st.removed != st.spawned) {
                fprintf(stderr, "%u alive + %u sheltered + %u removed != %u spawned\n", st.agents,
                        st.sheltered, st.removed, st.spawned);
                abort();
            }
            fuzz_check_measure(w, st.agents + st.sheltered);
            th_world_def d = th_world_get_def(w);
            th_agent_view v = th_world_agents(w);
            for (uint32_t i = 0; i < v.count; i++) {
                float x = v.px[i], y = v.py[i];
                if (!(x >= 0 && x < d.width && y >= 0 && y < d.height) || !isfinite(v.vx[i]) ||
                    !isfinite(v.vy[i])) {
                    fprintf(stderr, "agent %u at (%g, %g) is off the %g x %g world\n", i, (double)x,
                            (double)y, (double)d.width, (double)d.height);
                    abort();
                }
                if (s.has_map && th_world_cell(w, (int32_t)(x / d.cell_size),
                                               (int32_t)(y / d.cell_size), NULL) != TH_CELL_OPEN) {
                    fprintf(stderr, "agent %u at (%g, %g) is inside a wall\n", i, (double)x,
                            (double)y);
                    abort();
                }
            }
            th_world_destroy(w);
        }
    }
    th_scene_free(&s);
}

#endif
