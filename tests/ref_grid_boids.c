#include "ref_grid_boids.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int ref_grid_init(ref_grid_boids *g, const ref_world *w, uint32_t ncrowds, uint32_t n,
                  const float *px, const float *py, const float *vx, const float *vy,
                  const uint16_t *crowd) {
    memset(g, 0, sizeof *g);
    g->w = *w;
    g->n = n;
    float rmax = 0.0f;
    for (uint32_t c = 0; c < ncrowds; c++) {
        rmax = fmaxf(rmax, fmaxf(w->crowds[c].neighbor_radius, w->crowds[c].separation_radius));
    }
    /* Cells a hair wider than the largest radius, tiling the world exactly. */
    float r = rmax * 1.0001f;
    g->nx = r > 0.0f && w->width / r >= 1.0f ? (int32_t)(w->width / r) : 1;
    g->ny = r > 0.0f && w->height / r >= 1.0f ? (int32_t)(w->height / r) : 1;
    if (g->nx > 4096) g->nx = 4096;
    if (g->ny > 4096) g->ny = 4096;
    g->inv_cw = (float)g->nx / w->width;
    g->inv_ch = (float)g->ny / w->height;
    size_t nn = n ? n : 1;
    float **f[] = {&g->px,  &g->py,  &g->vx,  &g->vy, &g->tpx,
                   &g->tpy, &g->tvx, &g->tvy, &g->ax, &g->ay};
    for (size_t i = 0; i < sizeof f / sizeof *f; i++) *f[i] = malloc(nn * sizeof(float));
    g->crowd = malloc(nn * sizeof(uint16_t));
    g->tcrowd = malloc(nn * sizeof(uint16_t));
    g->id = malloc(nn * sizeof(uint32_t));
    g->tid = malloc(nn * sizeof(uint32_t));
    g->key = malloc(nn * sizeof(uint32_t));
    g->cell_start = malloc(((size_t)g->nx * (size_t)g->ny + 1) * sizeof(uint32_t));
    for (size_t i = 0; i < sizeof f / sizeof *f; i++) {
        if (!*f[i]) goto fail;
    }
    if (!g->crowd || !g->tcrowd || !g->id || !g->tid || !g->key || !g->cell_start) goto fail;
    memcpy(g->px, px, n * sizeof(float));
    memcpy(g->py, py, n * sizeof(float));
    memcpy(g->vx, vx, n * sizeof(float));
    memcpy(g->vy, vy, n * sizeof(float));
    memcpy(g->crowd, crowd, n * sizeof(uint16_t));
    for (uint32_t i = 0; i < n; i++) g->id[i] = i;
    return 0;
fail:
    ref_grid_free(g);
    return -1;
}

void ref_grid_free(ref_grid_boids *g) {
    void *p[] = {g->px, g->py, g->vx,    g->vy,     g->tpx, g->tpy, g->tvx, g->tvy,
                 g->ax, g->ay, g->crowd, g->tcrowd, g->id,  g->tid, g->key, g->cell_start};
    for (size_t i = 0; i < sizeof p / sizeof *p; i++) free(p[i]);
    memset(g, 0, sizeof *g);
}

static int32_t cell_of(float v, float inv, int32_t n) {
    float f = v * inv;
    if (!(f >= 0.0f)) return 0;
    if (f >= (float)n) return n - 1;
    return (int32_t)f;
}

#define SWAP(T, a, b) \
    do {              \
        T t_ = a;     \
        a = b;        \
        b = t_;       \
    } while (0)

/* Counting sort of the agents by cell into the scratch arrays, which then become the state. */
static void sort_by_cell(ref_grid_boids *g) {
    const uint32_t ncells = (uint32_t)g->nx * (uint32_t)g->ny;
    memset(g->cell_start, 0, ((size_t)ncells + 1) * sizeof(uint32_t));
    for (uint32_t i = 0; i < g->n; i++) {
        uint32_t k = (uint32_t)cell_of(g->py[i], g->inv_ch, g->ny) * (uint32_t)g->nx +
                     (uint32_t)cell_of(g->px[i], g->inv_cw, g->nx);
        g->key[i] = k;
        g->cell_start[k + 1]++;
    }
    for (uint32_t c = 0; c < ncells; c++) g->cell_start[c + 1] += g->cell_start[c];
    /* cell_start[c] is used as the write cursor of cell c, then restored. */
    for (uint32_t i = 0; i < g->n; i++) {
        uint32_t d = g->cell_start[g->key[i]]++;
        g->tpx[d] = g->px[i];
        g->tpy[d] = g->py[i];
        g->tvx[d] = g->vx[i];
        g->tvy[d] = g->vy[i];
        g->tcrowd[d] = g->crowd[i];
        g->tid[d] = g->id[i];
    }
    for (uint32_t c = ncells; c > 0; c--) g->cell_start[c] = g->cell_start[c - 1];
    g->cell_start[0] = 0;
    SWAP(float *, g->px, g->tpx);
    SWAP(float *, g->py, g->tpy);
    SWAP(float *, g->vx, g->tvx);
    SWAP(float *, g->vy, g->tvy);
    SWAP(uint16_t *, g->crowd, g->tcrowd);
    SWAP(uint32_t *, g->id, g->tid);
}

/* The distinct cells among v-1, v, v+1 along an axis of n cells (wrapped or clipped). */
static int axis_cells(int32_t v, int32_t n, bool wrap, int32_t out[3]) {
    int m = 0;
    for (int32_t d = -1; d <= 1; d++) {
        int32_t c = v + d;
        if (wrap) c = (c % n + n) % n;
        else if (c < 0 || c >= n) continue;
        bool dup = false;
        for (int i = 0; i < m; i++) dup = dup || out[i] == c;
        if (!dup) out[m++] = c;
    }
    return m;
}

static void steer(float dx, float dy, float vx, float vy, float max_speed, float max_force,
                  float *ox, float *oy) {
    float l2 = dx * dx + dy * dy, ux = 0.0f, uy = 0.0f;
    if (l2 >= 1e-24f) {
        float inv = 1.0f / sqrtf(l2);
        ux = dx * inv;
        uy = dy * inv;
    }
    float sx = ux * max_speed - vx, sy = uy * max_speed - vy;
    float s2 = sx * sx + sy * sy;
    if (s2 > max_force * max_force) {
        float k = max_force / sqrtf(s2);
        sx *= k;
        sy *= k;
    }
    *ox = sx;
    *oy = sy;
}

static void accel(ref_grid_boids *g, uint32_t i) {
    const ref_world *w = &g->w;
    const ref_crowd *c = &w->crowds[g->crowd[i]];
    const float x = g->px[i], y = g->py[i], vx = g->vx[i], vy = g->vy[i];
    const float rs2 = c->separation_radius * c->separation_radius;
    const float rn2 = c->neighbor_radius * c->neighbor_radius;
    const float speed2 = vx * vx + vy * vy;
    const bool all_round = c->fov_deg >= 360.0f || speed2 <= 1e-12f;
    const float cos_half = cosf(c->fov_deg * 0.5f * (float)(3.14159265358979323846 / 180.0));
    const float k = cos_half * cos_half * speed2;
    const float hw = 0.5f * w->width, hh = 0.5f * w->height;
    float sepx = 0, sepy = 0, alx = 0, aly = 0, cox = 0, coy = 0;
    uint32_t nsep = 0, nfl = 0;
    int32_t cols[3], rows[3];
    int ncol = axis_cells(cell_of(x, g->inv_cw, g->nx), g->nx, w->wrap, cols);
    int nrow = axis_cells(cell_of(y, g->inv_ch, g->ny), g->ny, w->wrap, rows);
    for (int r = 0; r < nrow; r++) {
        for (int q = 0; q < ncol; q++) {
            uint32_t cell = (uint32_t)rows[r] * (uint32_t)g->nx + (uint32_t)cols[q];
            for (uint32_t j = g->cell_start[cell]; j < g->cell_start[cell + 1]; j++) {
                float dx = g->px[j] - x, dy = g->py[j] - y;
                if (w->wrap) {
                    if (dx > hw) dx -= w->width;
                    else if (dx < -hw) dx += w->width;
                    if (dy > hh) dy -= w->height;
                    else if (dy < -hh) dy += w->height;
                }
                float d2 = dx * dx + dy * dy;
                if (d2 <= 0.0f) continue;
                bool near_sep = d2 < rs2, near_flock = d2 < rn2;
                if (!near_sep && !near_flock) continue;
                if (!all_round) {
                    float dot = vx * dx + vy * dy;
                    bool seen = cos_half >= 0.0f ? (dot >= 0.0f && dot * dot >= k * d2)
                                                 : (dot >= 0.0f || dot * dot <= k * d2);
                    if (!seen) continue;
                }
                if (near_sep) {
                    sepx -= dx / d2;
                    sepy -= dy / d2;
                    nsep++;
                }
                if (near_flock && g->crowd[j] == g->crowd[i]) {
                    alx += g->vx[j];
                    aly += g->vy[j];
                    cox += dx;
                    coy += dy;
                    nfl++;
                }
            }
        }
    }
    float accx = 0.0f, accy = 0.0f, sx, sy;
    if (nsep) {
        steer(sepx, sepy, vx, vy, c->max_speed, c->max_force, &sx, &sy);
        accx += c->w_sep * sx;
        accy += c->w_sep * sy;
    }
    if (nfl) {
        float inv = 1.0f / (float)nfl;
        steer(alx * inv, aly * inv, vx, vy, c->max_speed, c->max_force, &sx, &sy);
        accx += c->w_ali * sx;
        accy += c->w_ali * sy;
        steer(cox * inv, coy * inv, vx, vy, c->max_speed, c->max_force, &sx, &sy);
        accx += c->w_coh * sx;
        accy += c->w_coh * sy;
    }
    float a2 = accx * accx + accy * accy;
    if (a2 > c->max_force * c->max_force) {
        float s = c->max_force / sqrtf(a2);
        accx *= s;
        accy *= s;
    }
    g->ax[i] = accx;
    g->ay[i] = accy;
}

static void bound(float *p, float *v, float extent, bool wrap) {
    if (wrap) {
        if (*p < 0.0f) *p += extent;
        else if (*p >= extent) *p -= extent;
        if (!(*p >= 0.0f && *p < extent)) *p = 0.0f;
    } else {
        if (*p < 0.0f) {
            *p = -*p;
            *v = fabsf(*v);
        } else if (*p >= extent) {
            *p = extent - (*p - extent);
            *v = -fabsf(*v);
        }
        if (*p > nextafterf(extent, 0.0f)) *p = nextafterf(extent, 0.0f);
        if (!(*p >= 0.0f)) *p = 0.0f;
    }
}

void ref_grid_step(ref_grid_boids *g, float dt) {
    sort_by_cell(g);
    for (uint32_t i = 0; i < g->n; i++) accel(g, i);
    for (uint32_t i = 0; i < g->n; i++) {
        const ref_crowd *c = &g->w.crowds[g->crowd[i]];
        float nvx = g->vx[i] + g->ax[i] * dt, nvy = g->vy[i] + g->ay[i] * dt;
        float s2 = nvx * nvx + nvy * nvy;
        if (s2 > c->max_speed * c->max_speed) {
            float s = c->max_speed / sqrtf(s2);
            nvx *= s;
            nvy *= s;
        }
        g->px[i] += nvx * dt;
        g->py[i] += nvy * dt;
        bound(&g->px[i], &nvx, g->w.width, g->w.wrap);
        bound(&g->py[i], &nvy, g->w.height, g->w.wrap);
        g->vx[i] = nvx;
        g->vy[i] = nvy;
    }
}
