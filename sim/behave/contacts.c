/* Bodies: after integration, overlaps between bodies and between bodies and walls are removed
 * by a few Jacobi rounds of position projection (as in position-based dynamics: Mueller et al.
 * 2007, "Position based dynamics", J. Vis. Commun. Image R. 18(2); and the contact handling of
 * crowd simulators built on it, e.g. Weiss et al. 2017, "Position-based multi-agent dynamics
 * for real-time crowd simulation", MIG '17).
 *
 * Round r reads every position of round r - 1 and writes only the agent's own slot:
 *   each pair i, j of bodies closer than l = r_i + r_j moves apart by half the overlap each,
 *   along the line between them; the pushes on i are summed and scaled by
 *   TH_CONTACT_RELAX / ceil(contacts / 2), so a body squeezed from many sides is not thrown
 *   across its neighbours; then i's disc is pushed out of the blocked cells it overlaps, cell
 *   by cell.
 * A walking crowd needs TH_CONTACT_ROUNDS rounds, one kept apart by its model (overlaps below
 * TH_CONTACT_QUIET of the bound) two; while overlaps remain above half the bound
 * that validation checks, more rounds follow, up to TH_CONTACT_MAX_ROUNDS, or up to
 * TH_CONTACT_SETTLE_ROUNDS in the first step after agents were added (bodies placed on top of
 * each other).
 * The result does not depend on the order agents are visited in, or on the thread count. The
 * last round moves each agent from its integrated position to its resolved one by sliding
 * along blocked cells (so a centre never enters one, whatever the pushes), adds the correction
 * to its velocity (what an observer would measure), and marks agents that stepped into an open
 * bunker.
 *
 * Neighbours are looked for once per step, before the rounds, in the 3x3 block of grid cells
 * the grid phase assigned at the start of the step: the grid's cells are at least three body
 * radii plus two steps of travel wide (th_world_add_crowd), so every body that can touch
 * another is in its block. Each agent keeps the bodies within 1.5 contact distances in a short
 * list (a Verlet list) that the rounds walk instead of the block.
 *
 * Scratch positions live in the other agent buffer, which is dead between the grid phase's
 * gather and the next step's: rounds alternate between its px/py and its vx/vy arrays, and the
 * integrated positions in buf[cur] stay untouched until the last round. */
#include <math.h>

#include "sim/behave/contacts.h"
#include "sim/behave/elevator.h"
#include "sim/behave/goal.h"
#include "sim/behave/ped.h"
#include "sim/core/step.h"
#include "sim/core/world.h"
#include "sim/dist/dist.h"
#include "sim/dist/dist_serial.h"
#include "sim/scenario/flow.h"

/* Rounds between two listings of the bodies near each agent, in a long settling. */
#define TH_CONTACT_RELIST 8u

/* Overlap, as a share of the validated bound, below which two rounds are enough: one more
 * halves what is left, and the bound is twenty times as much. */
#define TH_CONTACT_QUIET 0.05f

/* Share of the summed pushes applied per round: under-relaxed Jacobi converges where plain
 * Jacobi overshoots in a crowd pressed from all sides. */
#define TH_CONTACT_RELAX 0.8f

/* What the jobs read and write, taken from the world once per phase, so that each job names
 * what it touches; the terrain and exit helpers get the world, read-only. */
typedef struct contact_ctx {
    const th_world *w;
    th_agents *a; /* this step's integrated state (written by the last round only) */
    const th_crowd_rt *crowd_rt;
    const float *crowd_radius, *own_radius; /* th_body_radius_of's */
    const th_grid *grid;
    const uint32_t *cell; /* grid cell of each agent */
    uint32_t *contact;    /* TH_CONTACT_LIST bodies per agent */
    uint8_t *contact_count;
    uint8_t *shelter;
    const uint8_t *level; /* with elevators: each agent's level, TH_LEVEL_RIDING in a car */
    th_chunk_stats *chunk_stats;
    float W, H;
    bool wrap, terrain, exits;
    const float *rx, *ry; /* positions of the last round */
    float *wx, *wy;       /* positions of this round */
    bool pedestrians;     /* some crowd uses the pedestrian model (right of way) */
} contact_ctx;

/* The share of the overlap of pedestrians i and j that i undoes: 0 when i has the right of way
 * over j, 1 when j has it over i, else a half. As in the pedestrian model (sim/behave/ped.c): two
 * walkers of crowds bound for different places, whose goal directions are more than 120 degrees
 * apart, and whose shares of neighbours coming the other way (`against`, this step's) differ by
 * more than TH_PED_RIGHT_OF_WAY: the larger share goes first. */
static float right_of_way(const contact_ctx *cc, uint32_t i, uint32_t j) {
    const th_agents *a = cc->a;
    const th_crowd_rt *ci = &cc->crowd_rt[a->crowd[i]], *cj = &cc->crowd_rt[a->crowd[j]];
    if (!ci->ped || !cj->ped || a->crowd[i] == a->crowd[j]) return 0.5f;
    if (a->hx[i] * a->hx[j] + a->hy[i] * a->hy[j] >= TH_PED_OPPOSED) return 0.5f;
    const float gi = a->against[i], gj = a->against[j];
    if (gi <= gj + TH_PED_RIGHT_OF_WAY && gj <= gi + TH_PED_RIGHT_OF_WAY) return 0.5f;
    const uint32_t *fi = th_goal_cost_field(cc->w, ci), *fj = th_goal_cost_field(cc->w, cj);
    if (fi && fi == fj) return 0.5f;
    return gi > gj ? 0.0f : 1.0f;
}

/* The pushes on agent i from the bodies in its list and from walls, with positions (rx, ry);
 * *worst receives the largest overlap seen, as a share of the smaller diameter. */
static th_vec2 resolve_one(const contact_ctx *cc, const float *rx, const float *ry, uint32_t i,
                           float *worst) {
    const th_agents *a = cc->a;
    th_vec2 p = th_v2(rx[i], ry[i]);
    const float ri = th_body_radius_of(cc->crowd_radius, cc->own_radius, a, i);
    if (ri <= 0.0f) return p;
    const bool wrap = cc->wrap;
    const float W = cc->W, H = cc->H;
    const uint32_t *list = cc->contact + (size_t)i * TH_CONTACT_LIST;
    const uint32_t n = cc->contact_count[i];
    th_vec2 push = th_v2(0.0f, 0.0f);
    uint32_t contacts = 0;
    for (uint32_t k = 0; k < n; k++) {
        const uint32_t j = list[k];
        const float rj = th_body_radius_of(cc->crowd_radius, cc->own_radius, a, j);
        const th_vec2 d = th_min_image(th_v2(rx[j] - p.x, ry[j] - p.y), wrap, W, H);
        const float l = ri + rj;
        const float d2 = th_v2_len2(d);
        if (d2 >= l * l) continue;
        const float dist = sqrtf(d2);
        const float share = (l - dist) / (2.0f * fminf(ri, rj));
        if (share > *worst) *worst = share;
        th_vec2 away = dist > 1e-6f ? th_v2_scale(d, -1.0f / dist)
                                    : th_v2(a->id[i].index1 < a->id[j].index1 ? -1.0f : 1.0f, 0.0f);
        /* Of two walkers coming toward each other, the one given the way moves the other aside:
         * the overlap is the other's to undo, while it stays below half the bound (deeper ones
         * part evenly, so a crush resolves as before). */
        float share_i = 0.5f;
        if (cc->pedestrians && share < 0.5f * TH_MAX_OVERLAP) share_i = right_of_way(cc, i, j);
        push = th_v2_add(push, th_v2_scale(away, share_i * (l - dist)));
        contacts++;
    }
    if (contacts > 0) {
        const float k = TH_CONTACT_RELAX / (float)(contacts > 1 ? (contacts + 1) / 2 : 1);
        p = th_v2_add(p, th_v2_scale(push, k));
    }
    return th_nav_push_out_of_walls(cc->w, p, ri);
}

/* Agent i's list: the bodies within 1.5 contact distances in its 3x3 block of grid cells, at
 * positions (rx, ry), nearest first (then by id slot) when more than TH_CONTACT_LIST are
 * that close. */
static void list_contacts(const contact_ctx *cc, const float *rx, const float *ry, uint32_t i) {
    const th_agents *a = cc->a;
    const float ri = th_body_radius_of(cc->crowd_radius, cc->own_radius, a, i);
    uint32_t *list = cc->contact + (size_t)i * TH_CONTACT_LIST;
    float key[TH_CONTACT_LIST];
    uint32_t n = 0;
    const uint8_t *level = cc->level; /* riders touch no one */
    if (ri > 0.0f && !(level && level[i] == TH_LEVEL_RIDING)) {
        const bool wrap = cc->wrap;
        const float W = cc->W, H = cc->H;
        const float px = rx[i], py = ry[i];
        th_grid_span spans[TH_GRID_MAX_SPANS];
        const uint32_t nx = (uint32_t)cc->grid->nx, cell = cc->cell[i];
        const uint32_t ns =
            th_grid_block(cc->grid, (int32_t)(cell % nx), (int32_t)(cell / nx), 1, wrap, spans);
        for (uint32_t r = 0; r < ns; r++) {
            for (uint32_t j = spans[r].begin; j < spans[r].end; j++) {
                const float rj = th_body_radius_of(cc->crowd_radius, cc->own_radius, a, j);
                if (j == i || rj <= 0.0f || (level && level[j] == TH_LEVEL_RIDING)) continue;
                const th_vec2 d = th_min_image(th_v2(rx[j] - px, ry[j] - py), wrap, W, H);
                const float reach = 1.5f * (ri + rj);
                const float d2 = th_v2_len2(d);
                if (d2 >= reach * reach) continue;
                th_contact_insert(list, key, &n, a->id, j, d2);
            }
        }
    }
    cc->contact_count[i] = (uint8_t)n;
}

/* Lists at the start of the phase: pedestrians' were made while they steered, from the same
 * neighbours. */
static void list_job(void *ctx, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    const contact_ctx *cc = ctx;
    const th_agents *a = cc->a;
    for (uint32_t i = begin; i < end; i++) {
        if (cc->crowd_rt[a->crowd[i]].ped && cc->contact_count[i] != TH_CONTACT_UNLISTED) continue;
        list_contacts(cc, cc->rx, cc->ry, i);
    }
}

/* Lists again, for everyone, from the positions of the last round: bodies pressed apart over
 * many rounds meet others that were not in reach at the start. */
static void relist_job(void *ctx, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    const contact_ctx *cc = ctx;
    for (uint32_t i = begin; i < end; i++) list_contacts(cc, cc->rx, cc->ry, i);
}

static void contact_job(void *ctx, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    const contact_ctx *cc = ctx;
    float worst = 0.0f;
    for (uint32_t i = begin; i < end; i++) {
        th_vec2 p = resolve_one(cc, cc->rx, cc->ry, i, &worst);
        cc->wx[i] = p.x;
        cc->wy[i] = p.y;
    }
    cc->chunk_stats[begin / TH_CHUNK].overlap = worst;
}

/* The last round: resolve, then move each agent there from its integrated position. The
 * velocity keeps the model's value, less any part of it that drove into the bodies or walls
 * that pushed it back (as sliding along a wall does): speeds then say how fast agents really
 * advance in a jam, with no speed made up by the pushes themselves. */
static void contact_last_job(void *ctx, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    const contact_ctx *cc = ctx;
    const th_world *w = cc->w; /* for the terrain and exit helpers */
    th_agents *a = cc->a;
    const bool terrain = cc->terrain, exits = cc->exits, wrap = cc->wrap;
    const float W = cc->W, H = cc->H;
    uint8_t *shelter = cc->shelter;
    uint32_t sheltering = 0;
    for (uint32_t i = begin; i < end; i++) {
        const th_crowd_rt *c = &cc->crowd_rt[a->crowd[i]];
        if (c->radius > 0.0f) {
            const th_vec2 p0 = th_v2(a->px[i], a->py[i]);
            float worst = 0.0f;
            const th_vec2 d =
                th_min_image(th_v2_sub(resolve_one(cc, cc->rx, cc->ry, i, &worst), p0), wrap, W, H);
            th_vec2 v = th_v2(a->vx[i], a->vy[i]);
            const float d2 = th_v2_len2(d);
            if (d2 > 0.0f) {
                const float vd = th_v2_dot(v, d);
                if (vd < 0.0f) v = th_v2_sub(v, th_v2_scale(d, vd / d2));
                th_vec2 p = terrain ? th_nav_move(w, p0, d, &v, false) : th_v2_add(p0, d);
                th_world_bound(w, &p, &v);
                a->px[i] = p.x;
                a->py[i] = p.y;
                a->vx[i] = v.x;
                a->vy[i] = v.y;
                /* Bunker and exit arrival, as integration found them, at the resolved position. */
                uint8_t mark = terrain && c->flee ? th_nav_shelter_at(w, p) : 0;
                if (!mark && exits) mark = th_flow_exit_mark(w, a->crowd[i], p);
                if ((terrain && c->flee) || exits) shelter[i] = mark;
            }
        }
        sheltering += shelter[i] != 0;
    }
    cc->chunk_stats[begin / TH_CHUNK].sheltering = sheltering;
}

void th_contacts_resolve(const th_step_ctx *x) {
    th_world *w = x->w;
    th_agents *a = x->a;
    th_agents *scratch = &w->buf[w->cur ^ 1]; /* the other buffer: last step's, now free */
    float *bx[2] = {scratch->px, scratch->vx}, *by[2] = {scratch->py, scratch->vy};
    contact_ctx cc = {
        .w = w,
        .a = a,
        .crowd_rt = w->crowd_rt,
        .crowd_radius = w->crowd_radius,
        .own_radius = th_own_radii(w),
        .grid = &w->grid,
        .cell = x->cell,
        .contact = w->contact,
        .contact_count = w->contact_count,
        .shelter = x->shelter,
        .level = w->lifts ? w->level : NULL,
        .chunk_stats = x->chunk_stats,
        .W = x->width,
        .H = x->height,
        .wrap = x->wrap,
        .terrain = x->terrain,
        .exits = x->exits,
        .pedestrians = w->pedestrians,
        .rx = a->px,
        .ry = a->py,
        .wx = bx[0],
        .wy = by[0],
    };
    /* Split agents: ghost bodies (stored after the owned ones, in lists but never resolved
     * here) take their owners' integrated positions, and after each round their owners' round
     * positions, so every body near a border sees what one process would. */
    const bool dist = th_dist_serial_active(w);
    if (dist) th_dist_ghost_floats(w, a->px, a->py);
    th_pool_parallel_for(w->pool, w->count, TH_CHUNK, list_job, &cc);
    const uint32_t chunks = (w->count + TH_CHUNK - 1) / TH_CHUNK;
    const bool settle = dist ? th_dist_any(w, w->settle) : w->settle;
    const uint32_t max_rounds = settle ? TH_CONTACT_SETTLE_ROUNDS : TH_CONTACT_MAX_ROUNDS;
    w->settle = false;
    for (uint32_t r = 0; r + 1 < max_rounds; r++) {
        if (r > 0 && r % TH_CONTACT_RELIST == 0)
            th_pool_parallel_for(w->pool, w->count, TH_CHUNK, relist_job, &cc);
        cc.wx = bx[r & 1];
        cc.wy = by[r & 1];
        th_pool_parallel_for(w->pool, w->count, TH_CHUNK, contact_job, &cc);
        if (dist) th_dist_ghost_floats(w, cc.wx, cc.wy);
        cc.rx = cc.wx;
        cc.ry = cc.wy;
        /* More rounds only while the positions this round started from still overlap by more
         * than half the bound: a crush (or agents added on top of each other) gets up to
         * TH_CONTACT_MAX_ROUNDS, a walking crowd TH_CONTACT_ROUNDS, and a crowd whose model
         * kept it apart (no overlap above TH_CONTACT_QUIET of the bound) only this round and
         * the last. Not when settling: bodies just placed may overlap others beyond their
         * lists, which only relisting finds. The maximum over chunks does not depend on their
         * order, so neither does the number of rounds. */
        float worst = 0.0f;
        for (uint32_t c = 0; c < chunks; c++) worst = fmaxf(worst, w->chunk_stats[c].overlap);
        /* Every rank runs as many rounds as the worst overlap anywhere asks for. */
        if (dist) th_dist_max_f32(w, &worst, 1);
        if (!settle && worst <= TH_CONTACT_QUIET * TH_MAX_OVERLAP) break;
        if (r + 2 < TH_CONTACT_ROUNDS) continue;
        if (worst <= 0.5f * TH_MAX_OVERLAP) break;
    }
    th_pool_parallel_for(w->pool, w->count, TH_CHUNK, contact_last_job, &cc);
    /* The validator checks overlaps with ghosts too: give it their resolved positions. */
    if (dist && w->validate) th_dist_ghost_floats(w, a->px, a->py);
}
