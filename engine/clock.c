#include "throng/clock.h"

#include <math.h>

th_clock th_clock_make(double dt, int max_steps) {
    th_clock c = {0};
    c.dt = dt > 0.0 ? dt : 1.0 / 60.0;
    c.max_steps = max_steps >= 1 ? max_steps : 1;
    return c;
}

int th_clock_advance(th_clock *c, double elapsed) {
    if (!c) return 0;
    if (!(elapsed > 0.0) || !isfinite(elapsed)) elapsed = 0.0;
    c->accumulator += elapsed;
    int n = 0;
    while (c->accumulator >= c->dt && n < c->max_steps) {
        c->accumulator -= c->dt;
        n++;
    }
    if (c->accumulator >= c->dt) {
        /* Over the catch-up bound: keep the fractional part so alpha stays meaningful. */
        double rest = fmod(c->accumulator, c->dt);
        c->dropped += c->accumulator - rest;
        c->accumulator = rest;
    }
    c->steps += (uint64_t)n;
    return n;
}

double th_clock_alpha(const th_clock *c) {
    if (!c) return 0.0;
    double a = c->accumulator / c->dt;
    return a < 0.0 ? 0.0 : (a >= 1.0 ? 0.0 : a);
}
