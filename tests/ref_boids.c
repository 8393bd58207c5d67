#include "ref_boids.h"

#include <math.h>
#include <stddef.h>

static void steer(double dx, double dy, double vx, double vy, double max_speed, double max_force,
                  double *outx, double *outy) {
    double len = sqrt(dx * dx + dy * dy);
    double ux = 0.0, uy = 0.0;
    if (len > 0.0) {
        ux = dx / len;
        uy = dy / len;
    }
    double sx = ux * max_speed - vx, sy = uy * max_speed - vy;
    double s = sqrt(sx * sx + sy * sy);
    if (s > max_force) {
        sx *= max_force / s;
        sy *= max_force / s;
    }
    *outx = sx;
    *outy = sy;
}

void ref_boids_accel(const ref_world *w, uint32_t n, const float *px, const float *py,
                     const float *vx, const float *vy, const uint16_t *crowd, float *ax, float *ay,
                     uint32_t *neighbors) {
    for (uint32_t i = 0; i < n; i++) {
        const ref_crowd *c = &w->crowds[crowd[i]];
        float rn = c->neighbor_radius, rs = c->separation_radius;
        float speed2 = vx[i] * vx[i] + vy[i] * vy[i];
        bool all_round = c->fov_deg >= 360.0f || speed2 <= 1e-12f;
        float cos_half = cosf(c->fov_deg * 0.5f * (float)(3.14159265358979323846 / 180.0));
        double sepx = 0, sepy = 0, alx = 0, aly = 0, cox = 0, coy = 0;
        uint32_t nsep = 0, nfl = 0;
        for (uint32_t j = 0; j < n; j++) {
            if (j == i) continue;
            float dx = px[j] - px[i], dy = py[j] - py[i];
            if (w->wrap) {
                if (dx > 0.5f * w->width) dx -= w->width;
                else if (dx < -0.5f * w->width) dx += w->width;
                if (dy > 0.5f * w->height) dy -= w->height;
                else if (dy < -0.5f * w->height) dy += w->height;
            }
            float d2 = dx * dx + dy * dy;
            if (d2 <= 0.0f) continue;
            bool near_sep = d2 < rs * rs, near_flock = d2 < rn * rn;
            if (!near_sep && !near_flock) continue;
            if (!all_round) {
                /* angle(v, d) <= half, i.e. v.d >= cos(half)|v||d|, in the squared form the
                 * definition states (so rounding at the cone's edge matches). */
                float dot = vx[i] * dx + vy[i] * dy;
                float k = cos_half * cos_half * speed2;
                bool seen = cos_half >= 0.0f ? (dot >= 0.0f && dot * dot >= k * d2)
                                             : (dot >= 0.0f || dot * dot <= k * d2);
                if (!seen) continue;
            }
            if (near_sep) {
                sepx -= dx / (double)d2;
                sepy -= dy / (double)d2;
                nsep++;
            }
            if (near_flock && crowd[j] == crowd[i]) {
                alx += vx[j];
                aly += vy[j];
                cox += dx;
                coy += dy;
                nfl++;
            }
        }
        double accx = 0, accy = 0, sx, sy;
        if (nsep) {
            steer(sepx, sepy, vx[i], vy[i], c->max_speed, c->max_force, &sx, &sy);
            accx += c->w_sep * sx;
            accy += c->w_sep * sy;
        }
        if (nfl) {
            steer(alx / nfl, aly / nfl, vx[i], vy[i], c->max_speed, c->max_force, &sx, &sy);
            accx += c->w_ali * sx;
            accy += c->w_ali * sy;
            steer(cox / nfl, coy / nfl, vx[i], vy[i], c->max_speed, c->max_force, &sx, &sy);
            accx += c->w_coh * sx;
            accy += c->w_coh * sy;
        }
        double a = sqrt(accx * accx + accy * accy);
        if (a > c->max_force) {
            accx *= c->max_force / a;
            accy *= c->max_force / a;
        }
        ax[i] = (float)accx;
        ay[i] = (float)accy;
        if (neighbors) neighbors[i] = nfl;
    }
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

void ref_boids_step(const ref_world *w, float dt, uint32_t n, float *px, float *py, float *vx,
                    float *vy, const uint16_t *crowd, float *ax, float *ay) {
    ref_boids_accel(w, n, px, py, vx, vy, crowd, ax, ay, NULL);
    for (uint32_t i = 0; i < n; i++) {
        const ref_crowd *c = &w->crowds[crowd[i]];
        float nvx = vx[i] + ax[i] * dt, nvy = vy[i] + ay[i] * dt;
        float s = sqrtf(nvx * nvx + nvy * nvy);
        if (s > c->max_speed) {
            nvx *= c->max_speed / s;
            nvy *= c->max_speed / s;
        }
        px[i] += nvx * dt;
        py[i] += nvy * dt;
        bound(&px[i], &nvx, w->width, w->wrap);
        bound(&py[i], &nvy, w->height, w->wrap);
        vx[i] = nvx;
        vy[i] = nvy;
    }
}
