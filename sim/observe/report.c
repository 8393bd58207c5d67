/* Run history: when bunkers were destroyed, restored and filled, when squads arrived, when
 * agents were buried, and after how many steps each sheltered agent got in; and the stall
 * figures over the run, which sim/observe/stall.c keeps here (every world has them).
 *
 * Everything is found by comparing the world's state at the end of each step (the history phase)
 * with what was seen at the end of the step before, serially, so no hook is needed in the
 * event, shelter or squad code and the record cannot disagree with the state it describes.
 * Sheltering is monotonic: agents are admitted in the admit phase of the step they arrive in,
 * so the k-th sheltered agent's step is known the moment the count passes k and the list is
 * sorted by construction. Its array is sized with the departure history (th_report_reserve,
 * called from the world's reserve_history), never inside a step. */
#include <string.h>

#include "engine/alloc.h"
#include "sim/behave/squad.h"
#include "sim/core/world.h"
#include "sim/observe/report.h"

struct th_report {
    uint32_t *sheltered_at; /* [k]: steps after which the (k+1)-th agent was sheltered; sized
                               with the history capacity in worlds with a map, else NULL */
    uint32_t recorded;      /* entries of sheltered_at filled (== stats.sheltered) */
    uint32_t buried_seen;   /* stats.buried at the last look */
    bool destroyed[TH_MAX_BUNKERS], full[TH_MAX_BUNKERS];
    bool arrived[TH_MAX_SQUADS];
    th_history_entry log[TH_MAX_HISTORY];
    uint32_t log_count, dropped;
    th_stall_run stalls; /* written by th_stall_update alone */
};

void th_report_free(th_world *w) {
    if (!w->report) return;
    th_free(w->report->sheltered_at);
    th_free(w->report);
    w->report = NULL;
}

bool th_report_reserve(th_world *w, uint32_t keep, uint32_t cap) {
    if (!w->report) {
        w->report = th_calloc(1, sizeof *w->report);
        if (!w->report) return false;
    }
    if (!w->nav.present) return true; /* no bunkers: no sheltering times to record */
    /* At most one entry per agent ever added: `cap` is the world's history capacity. */
    return th_grow_array((void **)&w->report->sheltered_at, sizeof *w->report->sheltered_at, keep,
                         cap);
}

static void log_entry(struct th_report *r, uint64_t step, th_history_kind kind, uint32_t index,
                      uint32_t count) {
    if (r->log_count == TH_MAX_HISTORY) {
        r->dropped++;
        return;
    }
    const bool squad = kind == TH_HISTORY_SQUAD_ARRIVED,
               bunker = kind != TH_HISTORY_BURIED && !squad;
    r->log[r->log_count++] = (th_history_entry){
        .step = step,
        .kind = kind,
        .bunker = th_bunker_handle(bunker ? (int)index : -1),
        .squad = th_squad_handle(squad ? (int)index : -1),
        .count = count,
    };
}

th_stall_run *th_report_stalls(th_world *w) { return w->report ? &w->report->stalls : NULL; }

const th_stall_run *th_report_stalls_of(const th_world *w) {
    return w->report ? &w->report->stalls : NULL;
}

void th_report_update(th_world *w) {
    struct th_report *r = w->report;
    if (!r) return;
    uint64_t done = w->step;              /* steps completed, this one included */
    uint64_t began = done ? done - 1 : 0; /* the step that applied this step's events */
    uint32_t at = done > UINT32_MAX ? UINT32_MAX : (uint32_t)done;
    while (r->recorded < w->stats.sheltered) r->sheltered_at[r->recorded++] = at;
    if (w->stats.buried != r->buried_seen) {
        log_entry(r, began, TH_HISTORY_BURIED, 0, w->stats.buried - r->buried_seen);
        r->buried_seen = w->stats.buried;
    }
    const th_world_nav *n = &w->nav;
    for (uint32_t b = 0; b < n->bunker_count; b++) {
        const th_bunker *bk = &n->bunker[b];
        if (bk->destroyed != r->destroyed[b]) {
            log_entry(r, began,
                      bk->destroyed ? TH_HISTORY_BUNKER_DESTROYED : TH_HISTORY_BUNKER_RESTORED, b,
                      0);
            r->destroyed[b] = bk->destroyed;
        }
        if (bk->full != r->full[b]) {
            if (bk->full) log_entry(r, done, TH_HISTORY_BUNKER_FULL, b, 0);
            r->full[b] = bk->full;
        }
    }
    for (uint32_t q = 0; q < w->squad_count; q++) {
        bool arrived = w->squad[q]->arrived;
        if (arrived && !r->arrived[q]) log_entry(r, done, TH_HISTORY_SQUAD_ARRIVED, q, 0);
        r->arrived[q] = arrived;
    }
}

uint32_t th_world_history(const th_world *w, uint32_t first, th_history_entry *out, uint32_t max,
                          uint32_t *total, uint32_t *dropped) {
    if (!w) return 0;
    const struct th_report *r = w->report;
    uint32_t kept = r ? r->log_count : 0;
    if (total) *total = kept;
    if (dropped) *dropped = r ? r->dropped : 0;
    if (!r || !out || first >= kept) return 0;
    uint32_t n = kept - first < max ? kept - first : max;
    memcpy(out, r->log + first, n * sizeof *out);
    return n;
}

uint64_t th_world_sheltered_by(const th_world *w, uint32_t k) {
    if (!w) return 0;
    const struct th_report *r = w->report;
    if (!r || k == 0 || k > r->recorded) return 0;
    return r->sheltered_at[k - 1];
}
