/* 2D vector math on floats. Everything is static inline so the steering loops see through it. */
#ifndef THRONG_VEC2_H
#define THRONG_VEC2_H

#include <math.h>

#define TH_PI 3.14159265358979323846

typedef struct th_vec2 {
    float x, y;
} th_vec2;

/* Written without compound literals so that C++ hosts compile this header too. */
static inline th_vec2 th_v2(float x, float y) {
    th_vec2 v = {x, y};
    return v;
}
static inline th_vec2 th_v2_add(th_vec2 a, th_vec2 b) { return th_v2(a.x + b.x, a.y + b.y); }
static inline th_vec2 th_v2_sub(th_vec2 a, th_vec2 b) { return th_v2(a.x - b.x, a.y - b.y); }
static inline th_vec2 th_v2_scale(th_vec2 a, float s) { return th_v2(a.x * s, a.y * s); }
static inline float th_v2_dot(th_vec2 a, th_vec2 b) { return a.x * b.x + a.y * b.y; }
static inline float th_v2_cross(th_vec2 a, th_vec2 b) { return a.x * b.y - a.y * b.x; }
static inline float th_v2_len2(th_vec2 a) { return a.x * a.x + a.y * a.y; }
static inline float th_v2_len(th_vec2 a) { return sqrtf(th_v2_len2(a)); }
static inline th_vec2 th_v2_perp(th_vec2 a) { return th_v2(-a.y, a.x); }
static inline th_vec2 th_v2_lerp(th_vec2 a, th_vec2 b, float t) {
    return th_v2(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t);
}

/** Unit vector along `a`, or (0,0) when `a` is shorter than 1e-12. */
static inline th_vec2 th_v2_norm(th_vec2 a) {
    float l2 = th_v2_len2(a);
    if (l2 < 1e-24f) return th_v2(0.0f, 0.0f);
    float inv = 1.0f / sqrtf(l2);
    return th_v2(a.x * inv, a.y * inv);
}

/** `a` shortened to at most `max_len` (unchanged when already shorter). */
static inline th_vec2 th_v2_clamp_len(th_vec2 a, float max_len) {
    float l2 = th_v2_len2(a);
    if (l2 <= max_len * max_len || l2 <= 0.0f) return a;
    float s = max_len / sqrtf(l2);
    return th_v2(a.x * s, a.y * s);
}

static inline float th_clampf(float v, float lo, float hi) {
    return v < lo ? lo : (v > hi ? hi : v);
}

#endif
