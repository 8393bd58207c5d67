/* Walkers who just left the world by an exit or into a bunker, as those behind them still see
 * them.
 *
 * An agent leaves the world the step its centre enters an exit or a bunker. Seen from behind,
 * a real walker passing a door goes on walking away, and the next one keeps its time gap to it;
 * taken out of the world at once, it leaves an empty space, and the next one walks into the door
 * at its free speed. A door drawn as the exit itself (a thin wall whose opening is the exit)
 * then let out 40-50 % more people than the same door with a yard behind it
 * (docs/pedestrians.md, "Doors"). So for a little while the walker who left is still there for
 * the spacing of the pedestrians behind it, and only for that: it walks on from where it left,
 * in the direction it was going, speeding up from its speed to its free speed with its crowd's
 * relaxation time, through walls if need be (it is not in the world), until it is beyond every
 * walker's reach. It pushes no one, is in no count, no measurement and no hash.
 *
 * Leavers are added in the admit phase in the order agents leave (under several ranks, in the
 * replayed global order: every rank holds the same list). A walker's speed is the least over the
 * leavers ahead, which does not depend on their order. Before each steering, the grid cells
 * within a walker's block of a leaver are marked, so a walker elsewhere looks at none. */
#include "sim/behave/leavers.h"

#include <math.h>
#include <string.h>

#include "engine/alloc.h"
#include "sim/behave/ped.h"

/* Leavers kept at once: a few seconds of the fastest exits' flows (a 10 m exit lets out about
 * 20 persons a second, each in reach for about 2 s). When full, the oldest is forgotten. */
#define TH_LEAVERS_MAX 1024u

/* Seconds after which a leaver is forgotten whatever its speed (one that left standing still,
 * with no free speed, would otherwise stay for ever). */
#define TH_LEAVER_LIFE 10.0f

bool th_leavers_setup(th_world *w) {
    bool bodies = false;
    float reach = 0.0f;
    int32_t block = 1;
    for (uint32_t c = 0; c < w->crowd_count; c++) {
        const th_crowd_rt *rt = &w->crowd_rt[c];
        if (!rt->ped) continue;
        bodies |= rt->radius > 0.0f;
        if (rt->ped_reach > reach) reach = rt->ped_reach;
        if (rt->block > block) block = rt->block;
    }
    if (!bodies) return true;
    struct th_leavers *l = w->leavers;
    if (!l) {
        l = th_calloc(1, sizeof *l);
        if (!l) return false;
        l->list = th_calloc(TH_LEAVERS_MAX, sizeof *l->list);
        if (!l->list) {
            th_free(l);
            return false;
        }
        l->cap = TH_LEAVERS_MAX;
        w->leavers = l;
    }
    /* Room to mark every leaver's block: nothing is allocated in a step. */
    const uint32_t side = 2u * (uint32_t)block + 1u;
    if (!th_array_reserve((void **)&l->marked, sizeof *l->marked, 0, &l->marked_cap,
                          l->cap * side * side, 64, UINT32_MAX))
        return false;
    l->block = block;
    l->reach = reach;
    /* A new grid: the marks follow its cells (none set). */
    const uint32_t cells = w->grid.ncells;
    if (cells != l->cells) {
        uint8_t *near = th_calloc(cells ? cells : 1, 1);
        if (!near) return false;
        th_free(l->near);
        l->near = near;
        l->cells = cells;
    }
    memset(l->near, 0, l->cells);
    l->marked_count = 0;
    return true;
}

void th_leavers_free(th_world *w) {
    struct th_leavers *l = w->leavers;
    if (!l) return;
    th_free(l->list);
    th_free(l->near);
    th_free(l->marked);
    th_free(l);
    w->leavers = NULL;
}

bool th_leaver_of(const th_world *w, uint32_t k, th_leaver *out) {
    if (!w->leavers) return false;
    const th_agents *a = &w->buf[w->cur];
    const th_crowd_rt *c = &w->crowd_rt[a->crowd[k]];
    if (!c->ped || c->radius <= 0.0f) return false;
    /* The way it was going: its goal direction of the last step, else its velocity. */
    th_vec2 d = th_v2(a->hx[k], a->hy[k]);
    const th_vec2 v = th_v2(a->vx[k], a->vy[k]);
    if (th_v2_len2(d) < 1e-6f) d = v;
    if (th_v2_len2(d) < 1e-6f) return false;
    d = th_v2_norm(d);
    *out = (th_leaver){
        .x = a->px[k],
        .y = a->py[k],
        .dx = d.x,
        .dy = d.y,
        .s0 = th_v2_len(v),
        .v0 = w->desired_speed[th_id_slot(a->id[k])],
        .crowd = a->crowd[k],
        .level = w->nav.level_count ? w->level[k] : 0,
    };
    return true;
}

void th_leavers_add(th_world *w, const th_leaver *l) {
    struct th_leavers *s = w->leavers;
    if (!s) return;
    if (s->count == s->cap) { /* full: forget the oldest */
        memmove(s->list, s->list + 1, (size_t)(s->count - 1) * sizeof *s->list);
        s->count--;
    }
    th_leaver *n = &s->list[s->count++];
    *n = *l;
    n->born = w->step;
}

/* Metres a leaver has walked on after `t` seconds: from speed s0 toward v0 with its crowd's
 * relaxation time tau, x(t) = v0 t - (v0 - s0) tau (1 - e^(-t/tau)) (at once without one). */
static float walked(const th_world *w, const th_leaver *l, float t) {
    const float tau = w->crowd_def[l->crowd].relaxation;
    if (!(tau > 0.0f)) return l->v0 * t;
    return l->v0 * t - (l->v0 - l->s0) * tau * (1.0f - expf(-t / tau));
}

static th_vec2 where(const th_world *w, const th_leaver *l) {
    const float s = walked(w, l, (float)(w->step - l->born) * w->def.timestep);
    return th_v2(l->x + l->dx * s, l->y + l->dy * s);
}

void th_leavers_prepare(th_world *w) {
    struct th_leavers *s = w->leavers;
    if (!s) return;
    for (uint32_t k = 0; k < s->marked_count; k++) s->near[s->marked[k]] = 0;
    s->marked_count = 0;
    if (!s->count) return;
    const float dt = w->def.timestep;
    uint32_t kept = 0;
    for (uint32_t k = 0; k < s->count; k++) {
        const th_leaver *l = &s->list[k];
        const float t = (float)(w->step - l->born) * dt;
        /* Beyond the reach of anyone who could have been behind it where it left: forgotten. */
        if (t > TH_LEAVER_LIFE || walked(w, l, t) > s->reach + 2.0f * w->crowd_radius[l->crowd])
            continue;
        s->list[kept++] = *l;
    }
    s->count = kept;
    const th_grid *g = &w->grid;
    const int32_t block = s->block;
    for (uint32_t k = 0; k < kept; k++) {
        const th_vec2 p = where(w, &s->list[k]);
        const int32_t cx = th_grid_cx(g, p.x), cy = th_grid_cy(g, p.y);
        for (int32_t y = cy - block; y <= cy + block; y++) {
            for (int32_t x = cx - block; x <= cx + block; x++) {
                int32_t gx = x, gy = y;
                if (w->wrap) {
                    gx = (gx % g->nx + g->nx) % g->nx;
                    gy = (gy % g->ny + g->ny) % g->ny;
                } else if (gx < 0 || gy < 0 || gx >= g->nx || gy >= g->ny) {
                    continue;
                }
                const uint32_t cell = (uint32_t)gy * (uint32_t)g->nx + (uint32_t)gx;
                if (s->near[cell]) continue;
                s->near[cell] = 1;
                s->marked[s->marked_count++] = cell;
            }
        }
    }
}

float th_leavers_speed(const th_world *w, th_vec2 p, th_vec2 e, float r, uint8_t level,
                       float inv_time_gap, float reach, float u) {
    const struct th_leavers *s = w->leavers;
    for (uint32_t k = 0; k < s->count; k++) {
        const th_leaver *l = &s->list[k];
        if (l->level != level) continue;
        const th_vec2 q = where(w, l);
        const th_vec2 d = th_min_image(th_v2_sub(q, p), w->wrap, w->def.width, w->def.height);
        const float along = th_v2_dot(e, d), lat = e.x * d.y - e.y * d.x;
        const float contact = r + w->crowd_radius[l->crowd];
        if (!(along > 0.0f && along < reach && fabsf(lat) < contact)) continue;
        const float uj = th_ped_gap_speed(along, lat, contact, inv_time_gap);
        if (uj < u) u = uj;
    }
    return u;
}
