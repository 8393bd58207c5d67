/* Exit choice: which bunker each agent of a fleeing crowd walks to (choice.h). */
#include <math.h>
#include <string.h>

#include "engine/alloc.h"
#include "engine/rng.h"
#include "sim/behave/choice.h"
#include "sim/behave/own_goal.h"
#include "sim/behave/own_plan.h"
#include "sim/core/error.h"
#include "sim/dist/dist.h"

/* Keys the choice's draw apart from the agent's other draws. */
#define CHOICE_KEY 0x6578697463686f69ull /* "exitchoi" */

/* exit_of_id once wanted, for agents added before (they hold 0: the nearest bunker). */
static bool want_exits(th_world *w) {
    if (w->exit_choice_wanted) return true;
    if (w->id_capacity > 0 &&
        !th_grow_array((void **)&w->exit_of_id, sizeof *w->exit_of_id, 0, w->id_capacity))
        return false;
    w->exit_choice_wanted = true;
    return true;
}

bool th_choice_setup(th_world *w, uint32_t crowd, th_crowd_def *def, th_error *err) {
    const th_exit_choice *x = &def->exit_choice;
    struct th_exit_store *st = &w->exit_store[crowd];
    memset(st, 0, sizeof *st);
    if (x->count == 0) {
        def->exit_choice = (th_exit_choice){NULL, NULL, 0, x->social, x->social_radius};
        return true;
    }
    if (def->behavior != TH_BEHAVIOR_FLEE) {
        th_error_set(err, TH_ERR_INVALID, "exit_choice: only a fleeing crowd chooses its exit");
        return false;
    }
    if (x->count > TH_MAX_BUNKERS || !x->bunkers || !x->weights) {
        th_error_set(err, TH_ERR_INVALID, "exit_choice: %u exits %s", x->count,
                     x->count > TH_MAX_BUNKERS ? "are more than the bunkers a world may have"
                                               : "given without their bunkers or weights");
        return false;
    }
    const float social = x->social, radius = x->social_radius;
    if (!(isfinite(social) && social >= 0.0f && social <= 100.0f) ||
        !(isfinite(radius) && radius > 0.0f && radius <= 50.0f)) {
        th_error_set(err, TH_ERR_INVALID,
                     "exit_choice: social must be in [0, 100] and social_radius in (0, 50] m, "
                     "got %g and %g",
                     (double)social, (double)radius);
        return false;
    }
    if (social > 0.0f && w->dist) {
        th_error_set(err, TH_ERR_STATE,
                     "exit_choice: social influence is not supported over several MPI ranks "
                     "(set social to 0)");
        return false;
    }
    double sum = 0.0;
    for (uint32_t i = 0; i < x->count; i++) {
        const th_bunker_id b = x->bunkers[i];
        if (b.index1 == 0 || b.index1 > w->nav.bunker_count) {
            th_error_set(err, TH_ERR_HANDLE, "exit_choice: exit %u is no bunker of the world", i);
            return false;
        }
        const float wt = x->weights[i];
        if (!(isfinite(wt) && wt >= 0.0f && wt <= 1e6f)) {
            th_error_set(err, TH_ERR_INVALID,
                         "exit_choice: the weight of '%s' must be in [0, 1e6], got %g",
                         w->nav.bunker[b.index1 - 1u].name, (double)wt);
            return false;
        }
        for (uint32_t j = 0; j < i; j++) {
            if (x->bunkers[j].index1 == b.index1) {
                th_error_set(err, TH_ERR_INVALID, "exit_choice: bunker '%s' listed twice",
                             w->nav.bunker[b.index1 - 1u].name);
                return false;
            }
        }
        st->bunker[i] = b;
        st->weight[i] = wt;
        sum += wt;
    }
    if (!(sum > 0.0)) {
        th_error_set(err, TH_ERR_INVALID, "exit_choice: every weight is 0");
        return false;
    }
    if (!want_exits(w)) {
        th_error_set(err, TH_ERR_NOMEM, "out of memory");
        return false;
    }
    for (uint32_t i = 0; i < x->count; i++)
        st->share[st->bunker[i].index1 - 1u] = (float)(st->weight[i] / sum);
    st->listed = true;
    st->social = social;
    st->social_r2 = radius * radius;
    uint32_t open = 0; /* exits with a chance: with one, nobody's choice depends on others */
    for (uint32_t i = 0; i < x->count; i++) open += st->weight[i] > 0.0f;
    st->social_on = social > 0.0f && open > 1;
    def->exit_choice = (th_exit_choice){st->bunker, st->weight, x->count, social, radius};
    return true;
}

/* The exit of a draw u in [0, 1) over the scores share_b (1 + social n_b). */
static uint8_t draw_exit(const th_world *w, const struct th_exit_store *st, const uint32_t *seen,
                         double u) {
    double score[TH_MAX_BUNKERS], total = 0.0;
    const uint32_t nb = w->nav.bunker_count;
    for (uint32_t b = 0; b < nb; b++) {
        score[b] = (double)st->share[b] * (1.0 + (double)st->social * (seen ? seen[b] : 0u));
        total += score[b];
    }
    double at = u * total;
    uint32_t last = 0;
    for (uint32_t b = 0; b < nb; b++) {
        if (score[b] <= 0.0) continue;
        last = b;
        if (at < score[b]) return (uint8_t)(b + 1u);
        at -= score[b];
    }
    return (uint8_t)(last + 1u); /* rounding left a sliver past the last */
}

static double choice_u(const th_world *w, th_agent_id id) {
    return th_rng_open01(w->def.seed, CHOICE_KEY ^ th_agent_key(id), 0);
}

void th_choice_agent_added(th_world *w, uint32_t crowd, th_agent_id id) {
    const struct th_exit_store *st = &w->exit_store[crowd];
    if (!st->listed) return; /* exit_of_id (if any) was zeroed: the nearest */
    const uint32_t slot = th_id_slot(id);
    if (st->social_on) {
        w->exit_of_id[slot] = TH_EXIT_PENDING;
        w->exit_choice_due = true;
    } else {
        w->exit_of_id[slot] = draw_exit(w, st, NULL, choice_u(w, id));
    }
}

/* Agents within the crowd's social radius of storage index k heading to each bunker, by the
 * choices made before this pass, over the grid of this step (one process: cells hold storage
 * ranges in cell order). */
static void count_seen(const th_world *w, const struct th_exit_store *st, uint32_t k,
                       uint32_t *seen) {
    const th_agents *a = &w->buf[w->cur];
    const th_grid *g = &w->grid;
    const float px = a->px[k], py = a->py[k];
    const float r = sqrtf(st->social_r2);
    const int32_t x0 = th_grid_coord(px - r, g->origin_x, g->inv_cell_w, g->nx);
    const int32_t x1 = th_grid_coord(px + r, g->origin_x, g->inv_cell_w, g->nx);
    const int32_t y0 = th_grid_coord(py - r, g->origin_y, g->inv_cell_h, g->ny);
    const int32_t y1 = th_grid_coord(py + r, g->origin_y, g->inv_cell_h, g->ny);
    memset(seen, 0, w->nav.bunker_count * sizeof *seen);
    for (int32_t y = y0; y <= y1; y++) {
        for (int32_t x = x0; x <= x1; x++) {
            const uint32_t c = (uint32_t)y * (uint32_t)g->nx + (uint32_t)x;
            for (uint32_t j = g->cell_start[c]; j < g->cell_start[c + 1]; j++) {
                if (j == k) continue;
                const uint32_t e = w->exit_of_id[th_id_slot(a->id[j])];
                if (e < 1u || e > w->nav.bunker_count) continue; /* nearest, pending, fresh */
                const float dx = a->px[j] - px, dy = a->py[j] - py;
                if (dx * dx + dy * dy <= st->social_r2) seen[e - 1u]++;
            }
        }
    }
}

void th_choice_update(th_world *w) {
    if (!w->exit_choice_due) return;
    const th_agents *a = &w->buf[w->cur];
    const uint64_t step = w->step;
    uint32_t seen[TH_MAX_BUNKERS], pending = 0, fresh = 0;
    for (uint32_t k = 0; k < w->count; k++) {
        const uint32_t slot = th_id_slot(a->id[k]);
        if (w->exit_of_id[slot] != TH_EXIT_PENDING) continue;
        const uint32_t crowd = a->crowd[k];
        if (w->crowd_rt[crowd].premove && step < w->start_step[slot]) {
            pending++; /* chooses when it starts */
            continue;
        }
        const struct th_exit_store *st = &w->exit_store[crowd];
        count_seen(w, st, k, seen);
        w->exit_of_id[slot] =
            (uint8_t)(TH_EXIT_FRESH | draw_exit(w, st, seen, choice_u(w, a->id[k])));
        fresh++;
    }
    /* The choices of this pass become visible to the next. */
    for (uint32_t k = 0; fresh && k < w->count; k++) {
        uint8_t *e = &w->exit_of_id[th_id_slot(a->id[k])];
        if (*e != TH_EXIT_PENDING && (*e & TH_EXIT_FRESH)) {
            *e &= (uint8_t)~TH_EXIT_FRESH;
            fresh--;
        }
    }
    w->exit_choice_due = pending > 0;
}

bool th_world_set_agent_exit(th_world *w, th_agent_id id, th_bunker_id exit, th_error *err) {
    if (!w) {
        th_error_set(err, TH_ERR_INVALID, "null world");
        return false;
    }
    if (w->stepping) {
        th_error_set(err, TH_ERR_STATE, "an agent's exit is set between steps");
        return false;
    }
    if (w->dist) {
        th_error_set(err, TH_ERR_STATE,
                     "an agent's exit cannot be set in a world split over several ranks");
        return false;
    }
    return th_choice_set_exit(w, id, exit, err);
}

bool th_choice_want_exits(th_world *w) { return want_exits(w); }

bool th_choice_set_exit(th_world *w, th_agent_id id, th_bunker_id exit, th_error *err) {
    const uint32_t k = th_agent_index(w, id);
    if (k == UINT32_MAX) {
        th_error_set(err, TH_ERR_HANDLE, "no agent %u (generation %u)", id.index1, id.generation);
        return false;
    }
    if (exit.index1 > w->nav.bunker_count) {
        th_error_set(err, TH_ERR_HANDLE, "no bunker with handle %u (the world has %u)", exit.index1,
                     w->nav.bunker_count);
        return false;
    }
    const th_agents *a = &w->buf[w->cur];
    if (!w->crowd_rt[a->crowd[k]].flee) {
        th_error_set(err, TH_ERR_STATE, "agent %u is of crowd '%s', which does not flee", id.index1,
                     w->crowd_name[a->crowd[k]]);
        return false;
    }
    if (!want_exits(w)) {
        th_error_set(err, TH_ERR_NOMEM, "out of memory");
        return false;
    }
    w->exit_of_id[th_id_slot(id)] = (uint8_t)exit.index1;
    th_own_goal *own = th_own_of(w, th_id_slot(id)); /* an exit in place of its own goal */
    if (own) {
        th_own_plan_drop(w, own); /* a path the goal planner owed it is not wanted now */
        own->used = false;
        w->own_of_id[th_id_slot(id)] = 0;
    }
    return true;
}
