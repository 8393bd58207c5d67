#define _POSIX_C_SOURCE 200809L
#include "profile.h"

#include <string.h>
#include <time.h>

uint64_t th_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void th_prof_init(th_profiler *p, const char *const *names, uint32_t count) {
    memset(p, 0, sizeof *p);
    if (count > TH_PROF_MAX_PHASES) count = TH_PROF_MAX_PHASES;
    p->phase_count = count;
    for (uint32_t i = 0; i < count; i++) p->names[i] = names[i];
}

void th_prof_reset(th_profiler *p) {
    memset(p->last_ns, 0, sizeof p->last_ns);
    memset(p->total_ns, 0, sizeof p->total_ns);
    p->steps = 0;
}

double th_prof_mean_ms(const th_profiler *p, uint32_t phase) {
    if (phase >= p->phase_count || p->steps == 0) return 0.0;
    return (double)p->total_ns[phase] / (double)p->steps * 1e-6;
}
