#include "progress.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "throng/clock.h"
#include "throng/viewer.h"

void th_progress_start(th_progress *p, th_progress_mode mode, uint64_t total, uint64_t t0) {
    memset(p, 0, sizeof *p);
    p->tty = isatty(STDERR_FILENO) == 1;
    p->on = mode == TH_PROGRESS_ON || (mode == TH_PROGRESS_AUTO && p->tty);
    p->t0 = t0;
    p->next = t0 + (uint64_t)(TH_PROGRESS_AFTER_S * 1e9);
    p->total = total;
}

void th_progress_step(th_progress *p, const th_world *w, uint64_t done) {
    p->agent_steps += (double)th_world_agent_count(w);
    if (!p->on) return;
    uint64_t now = th_now_ns();
    if (now < p->next) return;
    p->next = now + (uint64_t)(TH_PROGRESS_EVERY_S * 1e9);
    double secs = (double)(now - p->t0) * 1e-9;
    th_world_stats st = th_world_get_stats(w);
    char line[256];
    int n = snprintf(line, sizeof line, "throng run: step %llu of %llu (%.0f%%), %.1f s simulated",
                     (unsigned long long)done, (unsigned long long)p->total,
                     p->total ? 100.0 * (double)done / (double)p->total : 100.0,
                     (double)done * th_world_get_def(w).timestep);
    if (th_world_bunker_count(w) > 0 && n > 0 && (size_t)n < sizeof line)
        n += snprintf(line + n, sizeof line - (size_t)n, ", %u sheltered", st.sheltered);
    if (n > 0 && (size_t)n < sizeof line)
        n += snprintf(line + n, sizeof line - (size_t)n, ", %.2fM agent-steps/s",
                      secs > 0.0 ? p->agent_steps / secs * 1e-6 : 0.0);
    if (n < 0) return;
    if (p->tty) {
        /* Rewrite one line in place; pad over a longer previous one. */
        fprintf(stderr, "\r%s%*s", line, p->width > n ? p->width - n : 0, "");
        p->width = n;
    } else {
        fprintf(stderr, "%s\n", line);
    }
    fflush(stderr);
}

void th_progress_end(th_progress *p) {
    if (p->on && p->tty && p->width) {
        fprintf(stderr, "\r%*s\r", p->width, "");
        fflush(stderr);
    }
    p->width = 0;
}

static volatile sig_atomic_t g_interrupted; /* the signal number, 0 until one came */

static void on_interrupt(int sig) {
    if (!g_interrupted) g_interrupted = sig;
    /* A second signal is not waited on: a step can take minutes in a scene gone wrong. */
    signal(sig, SIG_DFL);
}

void th_interrupt_install(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    /* A closed terminal or ssh session: the run ends as with Ctrl-C, its files written. */
    sigaction(SIGHUP, &sa, NULL);
}

bool th_interrupted(void) { return g_interrupted != 0; }

int th_interrupt_signal(void) { return (int)g_interrupted; }

bool th_warn_density(const th_world *w) {
    th_world_stats st = th_world_get_stats(w);
    if (!(st.mean_neighbors > TH_NEIGHBOR_WARN)) return false;
    fprintf(stderr,
            "throng run: warning: each agent sees %.0f neighbours on average (more than %.0f): "
            "the crowd is far denser than its radii were made for, and every step costs in "
            "proportion (%.0f agents inspected per agent). Fewer agents (--agents) or a larger "
            "world keep it fast.\n",
            st.mean_neighbors, TH_NEIGHBOR_WARN, st.mean_candidates);
    return true;
}

bool th_display_available_quiet(void) {
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    int null = open("/dev/null", O_WRONLY);
    if (saved >= 0 && null >= 0) dup2(null, STDERR_FILENO);
    bool ok = th_view_display_available();
    fflush(stderr);
    if (saved >= 0) {
        dup2(saved, STDERR_FILENO);
        close(saved);
    }
    if (null >= 0) close(null);
    return ok;
}
