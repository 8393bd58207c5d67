/* The terrain terms of an agent's step, read by steering, integration and contacts from many
 * threads at once: walking speed, wall push-out, the nearest wall, moving with a slide along
 * blocked cells, and the open bunker under a point. */
#include <math.h>

#include "sim/core/world.h"
#include "sim/terrain/world_nav_private.h"

/* Is cell (x, y) blocked? Outside the map it is, unless the world wraps around (then the map's
 * columns and rows repeat: a wrap-around world with a map is a whole number of cells). */
static bool cell_blocked(const th_world *w, int32_t x, int32_t y) {
    const th_navmap *m = &w->nav.map;
    if (w->wrap) {
        x %= m->w;
        y %= m->h;
        if (x < 0) x += m->w;
        if (y < 0) y += m->h;
    }
    return th_navmap_is_blocked(m, x, y);
}

/* Cell coordinate of metres `v`, bounded well inside int32 so that NaN or huge values cannot
 * make the cast undefined (both land outside the map). */
static int32_t cell_coord(float v, float inv_cell) {
    float f = floorf(v * inv_cell);
    return f >= -1.0e6f && f <= 1.0e6f ? (int32_t)f : -1000001;
}

/* Is cell (x, y) a wall to a body near it: blocked, and not the seam across a glued edge (the
 * way goes on there, on another part of the map). */
static bool cell_wall(const th_world *w, int32_t x, int32_t y) {
    if (!cell_blocked(w, x, y)) return false;
    const th_navmap *m = &w->nav.map;
    if (!m->link_count || x < 0 || y < 0 || x >= m->w || y >= m->h) return true;
    return !(m->flags[(uint32_t)y * (uint32_t)m->w + (uint32_t)x] & TH_NAV_FLAG_SEAM);
}

/* Is p in a blocked cell? Wrap-aware th_navmap_blocked_at. */
static bool blocked_at(const th_world *w, th_vec2 p) {
    const float inv = w->nav.map.inv_cell_size;
    return cell_blocked(w, cell_coord(p.x, inv), cell_coord(p.y, inv));
}

float th_nav_speed_at(const th_world *w, th_vec2 p) {
    if (!w->nav.present || !w->nav.speed) return 1.0f;
    return w->nav.speed[th_navmap_cell_of(&w->nav.map, p, NULL, NULL)];
}

/* Whether no blocked cell, nor the ring of virtual ones around the map, comes within r of p, by
 * the wall distance of p's cell: no blocked cell centre is nearer to that cell's centre, and p
 * lies within half a cell diagonal of it, so no blocked cell is nearer to p than that distance
 * less a whole diagonal. A cheap test that most agents pass, away from walls. Only for p on the
 * map and without wrap-around (the wall distance does not look across the seams). */
static bool clear_of_walls(const th_world *w, th_vec2 p, float r) {
    const th_navmap *m = &w->nav.map;
    const float cs = m->cell_size;
    if (w->wrap ||
        !(p.x >= 0.0f && p.y >= 0.0f && p.x < (float)m->w * cs && p.y < (float)m->h * cs))
        return false;
    return m->wall_dist[th_navmap_cell_of(m, p, NULL, NULL)] - 1.4143f * cs >= r;
}

/* Push-out of a disc from one axis-aligned box [x0, x1] x [y0, y1]. */
static th_vec2 push_out_of_box(th_vec2 p, float r, float x0, float y0, float x1, float y1) {
    const th_vec2 q = th_v2(th_clampf(p.x, x0, x1), th_clampf(p.y, y0, y1));
    const th_vec2 d = th_v2_sub(p, q);
    const float d2 = th_v2_len2(d);
    if (d2 >= r * r) return p;
    if (d2 > 1e-14f) {
        const float dist = sqrtf(d2);
        return th_v2_add(p, th_v2_scale(d, (r - dist) / dist));
    }
    /* The centre is inside the box: out through the nearest face. */
    const float left = p.x - x0, right = x1 - p.x, down = p.y - y0, up = y1 - p.y;
    const float m = fminf(fminf(left, right), fminf(down, up));
    if (m == left) return th_v2(x0 - r, p.y);
    if (m == right) return th_v2(x1 + r, p.y);
    if (m == down) return th_v2(p.x, y0 - r);
    return th_v2(p.x, y1 + r);
}

th_vec2 th_nav_push_out_of_walls(const th_world *w, th_vec2 p, float r) {
    if (w->nav.present && !clear_of_walls(w, p, r)) {
        const th_navmap *m = &w->nav.map;
        const float cs = m->cell_size, inv = m->inv_cell_size;
        const int32_t x0 = cell_coord(p.x - r, inv), x1 = cell_coord(p.x + r, inv);
        const int32_t y0 = cell_coord(p.y - r, inv), y1 = cell_coord(p.y + r, inv);
        /* A disc of radius <= TH_MAX_BODY_RADIUS covers a bounded number of cells; anything
         * else is NaN or off the world, which the bound below handles. */
        if (x1 - x0 <= 64 && y1 - y0 <= 64 && x0 > -1000001 && y0 > -1000001) {
            for (int32_t y = y0; y <= y1; y++) {
                for (int32_t x = x0; x <= x1; x++) {
                    if (!cell_wall(w, x, y)) continue;
                    p = push_out_of_box(p, r, (float)x * cs, (float)y * cs, (float)(x + 1) * cs,
                                        (float)(y + 1) * cs);
                }
            }
        }
    }
    if (!w->wrap) {
        const float W = w->def.width, H = w->def.height;
        if (W > 2.0f * r) p.x = th_clampf(p.x, r, W - r);
        if (H > 2.0f * r) p.y = th_clampf(p.y, r, H - r);
    }
    return p;
}

bool th_nav_nearest_wall(const th_world *w, th_vec2 p, float range, float *dist, th_vec2 *away) {
    float best2 = range * range;
    th_vec2 best = th_v2(0.0f, 0.0f);
    bool found = false;
    if (w->nav.present) {
        const th_navmap *m = &w->nav.map;
        const float cs = m->cell_size, inv = m->inv_cell_size;
        /* The distance field bounds the search: no blocked cell centre is nearer than the own
         * cell's wall distance, so no blocked cell is nearer than that less a cell diagonal. */
        const uint32_t own = th_navmap_cell_of(m, p, NULL, NULL);
        if (w->wrap || m->wall_dist[own] - 1.4143f * cs < range) {
            const int32_t x0 = cell_coord(p.x - range, inv), x1 = cell_coord(p.x + range, inv);
            const int32_t y0 = cell_coord(p.y - range, inv), y1 = cell_coord(p.y + range, inv);
            if (x1 - x0 <= 64 && y1 - y0 <= 64 && x0 > -1000001 && y0 > -1000001) {
                for (int32_t y = y0; y <= y1; y++) {
                    for (int32_t x = x0; x <= x1; x++) {
                        if (!cell_wall(w, x, y)) continue;
                        const th_vec2 q = th_v2(th_clampf(p.x, (float)x * cs, (float)(x + 1) * cs),
                                                th_clampf(p.y, (float)y * cs, (float)(y + 1) * cs));
                        const th_vec2 d = th_v2_sub(p, q);
                        const float d2 = th_v2_len2(d);
                        if (d2 < best2) {
                            best2 = d2;
                            best = d;
                            found = true;
                        }
                    }
                }
            }
        }
    }
    if (!w->wrap) {
        /* The world's edges are walls too. */
        const float W = w->def.width, H = w->def.height;
        const float e[4] = {p.x, W - p.x, p.y, H - p.y};
        const th_vec2 n[4] = {th_v2(1, 0), th_v2(-1, 0), th_v2(0, 1), th_v2(0, -1)};
        for (int k = 0; k < 4; k++) {
            if (e[k] * e[k] < best2) {
                best2 = e[k] * e[k];
                best = th_v2_scale(n[k], e[k]);
                found = true;
            }
        }
    }
    if (!found) return false;
    *dist = sqrtf(best2);
    *away = th_v2_norm(best);
    return true;
}

/* A move from p to q that leaves p's cell straight across a glued edge, into the seam cell
 * beyond it: q carried over to the other side of the seam (true), when it lands on open ground
 * there. A move into any other cell (a diagonal one included) is not a crossing: it slides. */
static bool cross_seam(const th_navmap *m, th_vec2 p, th_vec2 *q) {
    const float inv = m->inv_cell_size;
    const int32_t px = cell_coord(p.x, inv), py = cell_coord(p.y, inv);
    const int32_t qx = cell_coord(q->x, inv), qy = cell_coord(q->y, inv);
    if (px < 0 || py < 0 || px >= m->w || py >= m->h) return false;
    const uint32_t c = (uint32_t)py * (uint32_t)m->w + (uint32_t)px;
    if (!(m->flags[c] & TH_NAV_FLAG_LINK)) return false;
    const int32_t dx = qx - px, dy = qy - py;
    if ((dx != 0) == (dy != 0) || dx < -1 || dx > 1 || dy < -1 || dy > 1) return false;
    /* Moves 0..3 are E, N, W, S. */
    const uint8_t dir = dx > 0 ? 0 : dx < 0 ? 2 : dy > 0 ? 1 : 3;
    const th_nav_link *l = th_navmap_link(m, c, dir);
    if (!l) return false;
    /* The seam's two sides are one edge: a point past it by some amount lies that far into
     * the other cell. */
    const int32_t tx = (int32_t)(l->to % (uint32_t)m->w), ty = (int32_t)(l->to / (uint32_t)m->w);
    const float cs = m->cell_size;
    const th_vec2 r = th_v2(q->x + (float)(tx - qx) * cs, q->y + (float)(ty - qy) * cs);
    if (th_navmap_blocked_at(m, r)) return false;
    *q = r;
    return true;
}

th_vec2 th_nav_move(const th_world *w, th_vec2 p, th_vec2 d, th_vec2 *v, bool seams) {
    const th_navmap *m = &w->nav.map;
    /* Sub-steps of at most half a cell, so no move can jump over a one-cell wall. */
    enum { MAX_SUBSTEPS = 256 };
    float len = th_v2_len(d);
    float half = 0.5f * m->cell_size;
    uint32_t steps = len > half ? (uint32_t)ceilf(len / half) : 1u;
    if (steps > MAX_SUBSTEPS) steps = MAX_SUBSTEPS;
    th_vec2 s = th_v2_scale(d, 1.0f / (float)steps);
    for (uint32_t i = 0; i < steps; i++) {
        th_vec2 q = th_v2_add(p, s);
        if (!blocked_at(w, q)) {
            p = q;
            continue;
        }
        if (seams && m->link_count && cross_seam(m, p, &q)) {
            p = q;
            continue;
        }
        /* Slide: keep the axis that is free, stop the one that hit. */
        if (!blocked_at(w, th_v2(q.x, p.y))) {
            p.x = q.x;
            s.y = 0.0f;
            v->y = 0.0f;
        } else if (!blocked_at(w, th_v2(p.x, q.y))) {
            p.y = q.y;
            s.x = 0.0f;
            v->x = 0.0f;
        } else {
            *v = th_v2(0.0f, 0.0f);
            break;
        }
    }
    return p;
}

uint8_t th_nav_shelter_at(const th_world *w, th_vec2 p) {
    const th_world_nav *n = &w->nav;
    uint32_t cell = th_navmap_cell_of(&n->map, p, NULL, NULL);
    int b = n->bunker_at[cell];
    if (b < 0 || n->bunker[b].destroyed || n->bunker[b].full) return 0;
    return (uint8_t)(b + 1);
}
