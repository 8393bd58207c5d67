/* Squads: formations held by potential fields, a centre that walks an A* path, arrival with
 * hysteresis, members that find their way back when cut off.
 *
 * Per step, after integration (serial, in squad order): drop lost members and give their slots
 * to the nearest remaining ones; measure the formation error; move the centre along its path
 * unless members lag; decide arrival; place the slots for the next step; watch each member's
 * line of sight to its slot and plan a way back for those cut off. Steering reads the slots
 * (th_squad_steer), so a member's pull is computed from step-t state like every other term. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/alloc.h"
#include "sim/behave/goal.h"
#include "sim/behave/squad.h"
#include "sim/core/world.h"
#include "sim/dist/dist.h"
#include "sim/dist/dist_serial.h"

/* A member out of sight of its slot this long walks an A* path back. */
#define CUTOFF_SECONDS   1.0f
/* The centre waits while the formation error exceeds this many spacings. */
#define LAG_SPACINGS     2.0f
/* After arrival the squad counts as broken (members move again; the centre never does) only
 * past this many tolerances: the gap between the two thresholds is the hysteresis. */
#define REARRIVE_FACTOR  3.0f
/* Gain of the pull to the slot, 1/s: the desired speed is the distance times this. */
#define SLOT_GAIN        1.5f
/* Rigid squads: a held member closes the gap to its slot within this many steps; the centre
 * uses this share of the members' max_speed and max_force (the rest is left to correct
 * errors); every slot of a pose keeps this margin (metres) from blocked cells; the point where
 * a move stops fitting is found to 2^-this of the look-ahead; headings closer than this
 * (radians) count as aligned. */
#define RIGID_HOLD_STEPS 3.0f
#define RIGID_SHARE      0.8f
#define RIGID_MARGIN     0.25f
#define RIGID_BISECT     12
#define RIGID_ALIGNED    1e-4f

th_squad_def th_default_squad_def(void) {
    return (th_squad_def){
        .crowd = {0},
        .count = 0,
        .formation = TH_FORMATION_BOX,
        .files = 0,
        .spacing = 1.5f,
        .speed = 1.5f,
        .tolerance = 0.5f,
        .slot_weight = 3.0f,
        .rigid = false,
    };
}

/* Slot i of n in the squad's own frame (x ahead, y to the left), centred on the slots'
 * centroid so that the squad centre is the formation's middle. */
static void template_slots(const th_squad_def *d, th_vec2 *out) {
    uint32_t n = d->count;
    float s = d->spacing;
    uint32_t files = d->files ? d->files : (uint32_t)ceilf(sqrtf((float)n));
    for (uint32_t i = 0; i < n; i++) {
        float x = 0.0f, y = 0.0f;
        switch (d->formation) {
        case TH_FORMATION_LINE: y = ((float)i - 0.5f * (float)(n - 1)) * s; break;
        case TH_FORMATION_COLUMN: x = -(float)i * s; break;
        case TH_FORMATION_WEDGE: {
            float row = (float)((i + 1) / 2);
            x = -row * s;
            y = (i % 2 ? 1.0f : -1.0f) * row * s;
            if (i == 0) y = 0.0f;
            break;
        }
        case TH_FORMATION_BOX:
            x = -(float)(i / files) * s;
            y = ((float)(i % files) - 0.5f * (float)(files - 1)) * s;
            break;
        case TH_FORMATION_CIRCLE: {
            float r = fmaxf(s, (float)n * s / (2.0f * (float)TH_PI));
            float a = 2.0f * (float)TH_PI * (float)i / (float)n;
            x = r * cosf(a);
            y = r * sinf(a);
            break;
        }
        }
        out[i] = th_v2(x, y);
    }
    th_vec2 c = th_v2(0.0f, 0.0f);
    for (uint32_t i = 0; i < n; i++) c = th_v2_add(c, out[i]);
    c = th_v2_scale(c, 1.0f / (float)n);
    for (uint32_t i = 0; i < n; i++) out[i] = th_v2_sub(out[i], c);
}

static th_vec2 place(th_vec2 centre, th_vec2 heading, th_vec2 local) {
    return th_v2(centre.x + local.x * heading.x - local.y * heading.y,
                 centre.y + local.x * heading.y + local.y * heading.x);
}

static void place_slots(th_squad *q) {
    for (uint32_t i = 0; i < q->def.count; i++) {
        q->slot_pos[i] = place(q->centre, q->heading, q->slot_local[i]);
    }
}

/* In a building with stairs: whether a and b lie on two different levels. */
static bool other_level(const th_world *w, th_vec2 a, th_vec2 b) {
    return w->nav.stair_count && th_nav_other_level(w, a, b);
}

static bool blocked(const th_world *w, th_vec2 p) {
    if (!(p.x >= 0.0f && p.y >= 0.0f && p.x < w->def.width && p.y < w->def.height)) return true;
    return w->nav.present && th_navmap_blocked_at(&w->nav.map, p);
}

static bool sees(const th_world *w, th_vec2 a, th_vec2 b) {
    if (!w->nav.present) return true;
    int32_t ax, ay, bx, by;
    th_navmap_cell_of(&w->nav.map, a, &ax, &ay);
    th_navmap_cell_of(&w->nav.map, b, &bx, &by);
    return th_nav_line_of_sight(&w->nav.map, ax, ay, bx, by);
}

/* ---- slots the members can take ------------------------------------------------------------
 *
 * The template turned to the heading can put a slot in a wall, off the map, or behind a wall
 * where no member gets from the squad (a column that ends facing a border wall, a box rounding
 * a corner). A member pulled at such a slot presses into the wall for ever, and the squad,
 * judged on it, never arrives. So once the slots are placed, any slot that is not open ground
 * reachable from the centre moves to the nearest open cell centre reachable from the centre,
 * both while marching and at the goal; arrival is judged on the slots so placed.
 *
 * A moved slot must also be one a member can hold. Members push each other apart within their
 * crowd's separation radius, so a moved slot keeps that gap from every other slot of the squad
 * and of the other squads (two slots closer than it would leave both members off their slots
 * for ever). At the goal, where arrival asks every member to be within tolerance of its slot,
 * a slot must moreover be one where the walls' push does not hold its member further off than
 * half the tolerance (holds_slot); template slots that fail this move too. Slots moved so
 * change the formation's shape where the template does not fit: in a corridor or a dead end
 * the members line up along it. When some slot finds no such cell within the formation's span,
 * all the slots move, each in template order to the nearest cell still clear, searched as far
 * as a single file of the members would need; when even that holds too few cells, the squad
 * has no room (th_squad_info.no_room, reported): the slots left over take the nearest
 * reachable cells, as close as they come.
 *
 * Reachable: a breadth-first search over the map's moves from the centre's cell, kept inside
 * the square of cells the formation spans around the centre (plus two), so a slot across a
 * wall counts as out of reach even when a long way round exists. It runs only when a slot is
 * blocked, out of the centre's sight or (at the goal) not held, serial, in squad order, over
 * memory sized with the first squad. A moved slot takes the nearest reached cell (distance from
 * the slot to the cell centre, ties to the earlier cell of the search) that is clear of the
 * other slots. */

/* Damped steps of the balance between slot pull and wall push (holds_slot); a member held
 * further from its slot than this share of the tolerance does not count as holding it. */
#define REST_STEPS 16
#define REST_SHARE 0.5f

static float template_radius(const th_squad *q) {
    float r2 = 0.0f;
    for (uint32_t i = 0; i < q->def.count; i++) r2 = fmaxf(r2, th_v2_len2(q->slot_local[i]));
    return sqrtf(r2);
}

/* The gap members keep from each other: their crowd's separation radius. */
static float slot_gap(const th_world *w, const th_squad *q) {
    return sqrtf(w->crowd_rt[TH_INDEX(q->def.crowd)].separation_r2);
}

/* Whether a member pulled to a slot at p comes to rest within REST_SHARE of the tolerance of
 * it. At rest the pull (slot_weight * SLOT_GAIN per metre, th_squad_steer) balances the walls'
 * push (th_goal_wall_push, which changes by up to max_force * wall_weight / wall_radius per
 * metre and wall); damped steps no longer than the stiffness of the pull and two walls allow
 * (a corridor's walls push from both sides) find the balance. */
static bool holds_slot(const th_world *w, const th_squad *q, th_vec2 p) {
    const th_crowd_rt *c = &w->crowd_rt[TH_INDEX(q->def.crowd)];
    const float k = SLOT_GAIN * q->def.slot_weight;
    if (!(c->w_wall > 0.0f) || !(k > 0.0f)) return true;
    const float g = 2.0f * c->w_wall * c->max_force / fmaxf(c->wall_radius, 1e-3f);
    th_vec2 r = p;
    for (int i = 0; i < REST_STEPS; i++) {
        th_vec2 push, f = th_v2_scale(th_v2_sub(p, r), k);
        if (th_goal_wall_push(w, c, r, &push)) f = th_v2_add(f, push);
        r = th_v2_add(r, th_v2_scale(f, 1.0f / (k + g)));
    }
    return th_v2_len(th_v2_sub(r, p)) <= REST_SHARE * q->def.tolerance && !blocked(w, r);
}

/* Cells of the search (marked `seen`) whose centre lies within `gap` of p, and p's own cell,
 * marked `held`: no moved slot goes there. */
static void hold_around(const th_navmap *m, uint32_t *mark, uint32_t seen, uint32_t held, th_vec2 p,
                        float gap) {
    int32_t px, py;
    th_navmap_cell_of(m, p, &px, &py);
    const int32_t r = (int32_t)ceilf(gap * m->inv_cell_size) + 1;
    for (int32_t y = py - r; y <= py + r; y++) {
        for (int32_t x = px - r; x <= px + r; x++) {
            if (x < 0 || y < 0 || x >= m->w || y >= m->h) continue;
            const uint32_t c = (uint32_t)y * (uint32_t)m->w + (uint32_t)x;
            if (mark[c] != seen) continue;
            const th_vec2 d = th_v2_sub(th_navmap_cell_centre(m, x, y), p);
            if ((x == px && y == py) || th_v2_len2(d) < gap * gap) mark[c] = held;
        }
    }
}

/* Breadth-first search from cell `start` (cx, cy) over the map's moves within `reach` cells of
 * it: the reached cells in queue[0, return), marked `seen`. */
static uint32_t reach_cells(th_world *w, uint32_t start, int32_t cx, int32_t cy, int32_t reach,
                            uint32_t seen, uint32_t held) {
    th_world_nav *nv = &w->nav;
    const th_navmap *m = &nv->map;
    const uint32_t cols = (uint32_t)m->w;
    uint32_t *mark = nv->reach_mark, *queue = nv->reach_queue;
    uint32_t head = 0, tail = 0;
    queue[tail++] = start;
    mark[start] = seen;
    while (head < tail) {
        const uint32_t c = queue[head++];
        const int32_t x = (int32_t)(c % cols), y = (int32_t)(c / cols);
        for (int k = 0; k < 8; k++) {
            if (!(m->moves[c] & (1u << k))) continue;
            const int32_t nx = x + th_nav_move_dx[k], ny = y + th_nav_move_dy[k];
            if (abs(nx - cx) > reach || abs(ny - cy) > reach) continue;
            const uint32_t nc = (uint32_t)ny * cols + (uint32_t)nx;
            if (mark[nc] == seen || mark[nc] == held) continue;
            mark[nc] = seen;
            queue[tail++] = nc;
        }
    }
    return tail;
}

/* A fresh pair of marks (seen, seen + 1) for a search. */
static uint32_t next_marks(th_world_nav *nv) {
    nv->reach_epoch += 2;
    if (nv->reach_epoch < 2) { /* wrapped: no old mark may look current */
        memset(nv->reach_mark, 0, (size_t)nv->map.ncells * sizeof *nv->reach_mark);
        nv->reach_epoch = 2;
    }
    return nv->reach_epoch;
}

/* Whether slot i may stay where the template put it. */
static bool slot_open(const th_world *w, const th_squad *q, uint32_t i, bool at_goal) {
    const th_vec2 p = q->slot_pos[i];
    return !blocked(w, p) && sees(w, q->centre, p) && (!at_goal || holds_slot(w, q, p));
}

/* One fitting over the cells within `reach` of the centre's cell, keeping the slots that may
 * stay (keep) or moving all of them; false when some slot found no cell clear of the others
 * (it then took the nearest reached cell). */
static bool fit_within(th_world *w, th_squad *q, uint32_t start, int32_t cx, int32_t cy,
                       int32_t reach, bool at_goal, bool keep) {
    th_world_nav *nv = &w->nav;
    const th_navmap *m = &nv->map;
    const uint32_t n = q->def.count, cols = (uint32_t)m->w;
    const uint32_t seen = next_marks(nv), held = seen + 1;
    uint32_t *mark = nv->reach_mark, *queue = nv->reach_queue;
    const uint32_t tail = reach_cells(w, start, cx, cy, reach, seen, held);
    const float gap = slot_gap(w, q);
    /* Slots on reached cells that their members can hold stay; the rest are marked to move.
     * The slots that stay, and the other squads', hold the cells around them. */
    uint8_t *moves = q->taken; /* assign_slots' scratch, free between its calls */
    for (uint32_t i = 0; i < n; i++) {
        moves[i] = 1;
        if (!keep || !slot_open(w, q, i, at_goal)) continue;
        const uint32_t c = th_navmap_cell_of(m, q->slot_pos[i], NULL, NULL);
        if (mark[c] != seen && mark[c] != held) continue;
        moves[i] = 0;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (!moves[i]) hold_around(m, mark, seen, held, q->slot_pos[i], gap);
    }
    for (uint32_t s = 0; s < w->squad_count; s++) {
        const th_squad *o = w->squad[s];
        if (o == q) continue;
        for (uint32_t i = 0; i < o->member_count; i++) {
            int32_t x, y;
            th_navmap_cell_of(m, o->slot_pos[i], &x, &y);
            if (abs(x - cx) > reach + 1 || abs(y - cy) > reach + 1) continue;
            hold_around(m, mark, seen, held, o->slot_pos[i], gap);
        }
    }
    bool fitted = true;
    for (uint32_t i = 0; i < n; i++) {
        if (!moves[i]) continue;
        uint32_t near = UINT32_MAX, any = UINT32_MAX;
        float near_d2 = INFINITY, any_d2 = INFINITY;
        for (uint32_t j = 0; j < tail; j++) {
            const uint32_t c = queue[j];
            const th_vec2 at = th_navmap_cell_centre(m, (int32_t)(c % cols), (int32_t)(c / cols));
            const float d2 = th_v2_len2(th_v2_sub(at, q->slot_pos[i]));
            if (d2 < any_d2) {
                any_d2 = d2;
                any = c;
            }
            if (d2 >= near_d2 || mark[c] == held) continue;
            if (at_goal && !holds_slot(w, q, at)) continue;
            near_d2 = d2;
            near = c;
        }
        if (near == UINT32_MAX) {
            fitted = false;
            near = any;
        }
        q->slot_pos[i] = th_navmap_cell_centre(m, (int32_t)(near % cols), (int32_t)(near / cols));
        hold_around(m, mark, seen, held, q->slot_pos[i], gap);
    }
    return fitted;
}

static void fit_slots(th_world *w, th_squad *q) {
    q->no_room = false;
    th_world_nav *nv = &w->nav;
    if (!nv->present || !nv->reach_mark) return;
    const uint32_t n = q->def.count;
    const bool at_goal = q->path_next >= q->path_count && !q->stuck;
    bool fits = true;
    for (uint32_t i = 0; i < n && fits; i++) fits = slot_open(w, q, i, at_goal);
    if (fits) return;
    const th_navmap *m = &nv->map;
    int32_t cx, cy;
    const uint32_t start = th_navmap_cell_of(m, q->centre, &cx, &cy);
    if (th_navmap_is_blocked(m, cx, cy)) return; /* re-planning moves the centre out first */
    const float span = (template_radius(q) + q->def.spacing) * m->inv_cell_size;
    const int32_t reach = (int32_t)fminf(ceilf(span), (float)TH_NAV_MAX_DIM) + 2;
    if (fit_within(w, q, start, cx, cy, reach, at_goal, true)) return;
    /* Too little room around the slots that stayed: every slot moves, packed from the front of
     * the template, as far as a single file of the members reaches. */
    const float file = (float)n * fmaxf(slot_gap(w, q), q->def.spacing) * m->inv_cell_size;
    const int32_t wide = (int32_t)fminf(ceilf(file), (float)TH_NAV_MAX_DIM) + 2;
    place_slots(q);
    if (fit_within(w, q, start, cx, cy, wide > reach ? wide : reach, at_goal, false)) return;
    q->no_room = at_goal;
}

/* A* + string pulling from a to b on map `m` (the world's, or the rigid squads' copy) into
 * `out` (at most max points); 0 when there is no path. Uses the world's path-finding memory,
 * created when the first squad was added. */
static uint32_t plan_on(th_world *w, const th_navmap *m, th_vec2 a, th_vec2 b, th_vec2 *out,
                        uint32_t max) {
    th_world_nav *n = &w->nav;
    if (!n->present) {
        if (max < 2) return 0;
        out[0] = a;
        out[1] = b;
        return 2;
    }
    int32_t sx, sy, gx, gy;
    th_navmap_cell_of(m, a, &sx, &sy);
    th_navmap_cell_of(m, b, &gx, &gy);
    uint32_t len = 0;
    if (th_astar_find(n->astar, m, sx, sy, gx, gy, n->path, m->ncells, &len, NULL) != TH_NAV_OK) {
        return 0;
    }
    uint32_t pulled = th_nav_string_pull(m, n->path, len, n->waypoints);
    /* A way longer than `max` points is cut; walking it ends in sight of the rest, or a new
     * plan is made from there. */
    uint32_t k = pulled < max ? pulled : max;
    memcpy(out, n->waypoints, k * sizeof *out);
    if (k > 0 && k == pulled) out[k - 1] = b; /* the exact goal, not its cell's centre */
    return k;
}

static uint32_t plan(th_world *w, th_vec2 a, th_vec2 b, th_vec2 *out, uint32_t max) {
    return plan_on(w, &w->nav.map, a, b, out, max);
}

uint32_t th_path_plan(th_world *w, th_vec2 a, th_vec2 b, th_vec2 *out, uint32_t max) {
    return plan(w, a, b, out, max);
}

/* The centre's path: for a rigid squad first on the map with the cells too near a wall for
 * the whole shape blocked (a cell stays open when its centre is at least the template's radius
 * plus the margin's and a cell's half-diagonals from every blocked cell's centre: then every
 * slot of a pose centred anywhere in it clears the walls by the margin, whatever the heading),
 * so the body does not graze corners it cannot pass; where no such way exists, on the map
 * itself (the squad then waits where its shape does not fit). */
static bool clear_segment(const th_world *w, th_vec2 a, th_vec2 b);
static bool nearest_open(const th_navmap *m, int32_t x, int32_t y, int32_t *ox, int32_t *oy);

/* The cell of the planning map `r` nearest to p (p's own when open), as its centre, when the
 * straight way from p to it is clear on the world's map. */
static bool onto_rigid_map(const th_world *w, const th_navmap *r, th_vec2 p, th_vec2 *out) {
    int32_t x, y, ox, oy;
    th_navmap_cell_of(r, p, &x, &y);
    if (!nearest_open(r, x, y, &ox, &oy)) return false;
    *out = ox == x && oy == y ? p : th_navmap_cell_centre(r, ox, oy);
    return clear_segment(w, p, *out);
}

static uint32_t plan_centre(th_world *w, th_squad *q, th_vec2 from) {
    th_world_nav *n = &w->nav;
    if (q->def.rigid && n->present && n->rigid_map.ncells) {
        th_navmap *r = &n->rigid_map;
        const th_navmap *m = &n->map;
        if (m->walls_dirty) th_navmap_update_walls(&n->map, w->pool);
        const float clear = template_radius(q) + RIGID_MARGIN + 0.5f * m->cell_size;
        th_navmap_defer_moves(r);
        for (int32_t y = 0; y < m->h; y++) {
            for (int32_t x = 0; x < m->w; x++) {
                const uint32_t c = (uint32_t)y * (uint32_t)m->w + (uint32_t)x;
                if (m->cost[c] != 0 && m->wall_dist[c] >= clear)
                    th_navmap_set_cost(r, x, y, m->cost[c]);
                else th_navmap_set_blocked(r, x, y, false);
            }
        }
        th_navmap_update_moves(r, w->pool);
        /* From the start straight onto the planning map, along it, and straight off it to the
         * goal: start and goal may lie nearer a wall than the whole shape's reach. */
        th_vec2 a, b;
        if (onto_rigid_map(w, r, from, &a) && onto_rigid_map(w, r, q->def.goal, &b)) {
            const uint32_t max = TH_SQUAD_PATH_POINTS - 2;
            uint32_t k = plan_on(w, r, a, b, q->path + 1, max);
            if (k > 0 && k < max) {
                q->path[0] = from;
                if (th_v2_len2(th_v2_sub(q->path[k], q->def.goal)) > 0.0f)
                    q->path[++k] = q->def.goal;
                k++;
                /* The plan starts at a cell centre near `from`: skip it when the way past it
                 * is straight and clear (no turn on the spot for a step aside). */
                if (k > 2 && clear_segment(w, from, q->path[2])) {
                    memmove(q->path + 1, q->path + 2, (k - 2) * sizeof *q->path);
                    k--;
                }
                return k;
            }
        }
    }
    return plan(w, from, q->def.goal, q->path, TH_SQUAD_PATH_POINTS);
}

/* ---- where the members are -----------------------------------------------------------------
 *
 * The squads phase and a join read each member's position and whether it is still alive.
 * One process reads them from storage. Under several MPI ranks a rank stores only the agents
 * of its strip, but every rank holds every squad (built from the same scene, changed by the
 * same calls, sim/dist/dist.h) and must update it to the same bits: each rank sends the
 * members it stores, (squad, member, position), to every rank, and every rank files them by
 * squad and member, so the order they arrive in does not matter. A member no rank sent has
 * left the world (its owner found its id stale) and is dropped on every rank alike. The rest
 * of the update then reads only replicated state: the map, the squads, these positions. */

/* One member as its owner sends it: 12 bytes. */
typedef struct member_at {
    uint32_t who; /* squad << 16 | member index (TH_MAX_SQUAD_MEMBERS <= 65536) */
    float x, y;
} member_at;

/* Kept between steps, grown to the most members seen (doubling): no step allocates once the
 * squads have had their first. */
struct th_squad_gather {
    member_at *mine, *all;
    uint32_t mine_cap, all_cap;
};

void th_squad_gather_free(th_world *w) {
    struct th_squad_gather *g = w->squad_gather;
    if (!g) return;
    th_free(g->mine);
    th_free(g->all);
    th_free(g);
    w->squad_gather = NULL;
}

/* Fill at[] and seen[] of squads [first, end) with their members as they are now. Under
 * several ranks a collective: every rank calls it at the same point with the same range. One
 * process takes the gather path too when th_dist_serial_force asked for it (tests). */
static void members_at(th_world *w, uint32_t first, uint32_t end) {
    const th_agents *a = &w->buf[w->cur];
    if (!th_dist_serial_active(w) && !th_dist_serial_forced(w)) {
        for (uint32_t s = first; s < end; s++) {
            th_squad *q = w->squad[s];
            for (uint32_t m = 0; m < q->member_count; m++) {
                const uint32_t k = th_agent_index(w, q->member[m]);
                q->seen[m] = k != UINT32_MAX;
                if (k != UINT32_MAX) q->at[m] = th_v2(a->px[k], a->py[k]);
            }
        }
        return;
    }
    uint32_t members = 0;
    for (uint32_t s = first; s < end; s++) members += w->squad[s]->member_count;
    if (!w->squad_gather) w->squad_gather = th_calloc(1, sizeof *w->squad_gather);
    struct th_squad_gather *g = w->squad_gather;
    if (!g || !th_dist_room((void **)&g->mine, &g->mine_cap, sizeof *g->mine, members)) {
        th_dist_out_of_memory(w, "gathering the squads' members");
        return;
    }
    uint32_t n = 0;
    for (uint32_t s = first; s < end; s++) {
        const th_squad *q = w->squad[s];
        for (uint32_t m = 0; m < q->member_count; m++) {
            const uint32_t k = th_agent_index(w, q->member[m]);
            if (k != UINT32_MAX) g->mine[n++] = (member_at){s << 16 | m, a->px[k], a->py[k]};
        }
    }
    uint32_t total = 0;
    const member_at *all = th_dist_gather_all(w, g->mine, n, sizeof *g->mine, (void **)&g->all,
                                              &g->all_cap, 0, &total);
    if (!all) {
        th_dist_out_of_memory(w, "gathering the squads' members");
        return;
    }
    for (uint32_t s = first; s < end; s++) memset(w->squad[s]->seen, 0, w->squad[s]->member_count);
    for (uint32_t i = 0; i < total; i++) {
        th_squad *q = w->squad[all[i].who >> 16];
        const uint32_t m = all[i].who & 0xFFFFu;
        q->seen[m] = 1;
        q->at[m] = th_v2(all[i].x, all[i].y);
    }
}

/* At the goal, members on their way to slots the fitting moved meet one another head on in a
 * corridor and block each other. Two members whose slots, exchanged, bring them closer (the
 * sum of their squared distances falls by more than SWAP_GAIN m^2) exchange them; the sum over
 * the squad only falls, so no pair swaps back and forth. A swapped member's way back is
 * dropped: it was to the other slot. */
#define SWAP_GAIN 0.01f

static void swap_slots(th_squad *q) {
    const uint32_t n = q->member_count;
    for (uint32_t a = 0; a < n; a++) {
        for (uint32_t b = a + 1; b < n; b++) {
            const th_vec2 sa = q->slot_pos[q->slot_of_member[a]];
            const th_vec2 sb = q->slot_pos[q->slot_of_member[b]];
            const float now =
                th_v2_len2(th_v2_sub(q->at[a], sa)) + th_v2_len2(th_v2_sub(q->at[b], sb));
            const float swapped =
                th_v2_len2(th_v2_sub(q->at[a], sb)) + th_v2_len2(th_v2_sub(q->at[b], sa));
            if (!(swapped < now - SWAP_GAIN)) continue;
            const uint32_t t = q->slot_of_member[a];
            q->slot_of_member[a] = q->slot_of_member[b];
            q->slot_of_member[b] = t;
            q->back_count[a] = q->back_count[b] = 0;
            q->cutoff[a] = q->cutoff[b] = 0.0f;
        }
    }
}

/* Give every slot the nearest member not yet placed, slot by slot in order (ties to the lower
 * id), so losses and joins move as few members as far as little as a greedy pass can. */
static void assign_slots(th_squad *q) {
    uint32_t n = q->member_count;
    for (uint32_t i = 0; i < n; i++) q->taken[i] = 0;
    for (uint32_t s = 0; s < n; s++) {
        uint32_t best = UINT32_MAX;
        float best_d = INFINITY;
        for (uint32_t m = 0; m < n; m++) {
            if (q->taken[m]) continue;
            float d = th_v2_len2(th_v2_sub(q->at[m], q->slot_pos[s]));
            if (d < best_d) {
                best_d = d;
                best = m;
            }
        }
        q->taken[best] = 1;
        q->slot_of_member[best] = s;
    }
}

static int add_squad(th_world *w, const th_squad_def *def, th_error *err) {
    if (!th_between_steps(w, err)) return -1;
    th_squad_def d = *def;
    if (w->squad_count >= TH_MAX_SQUADS) {
        th_error_set(err, TH_ERR_LIMIT, "at most %d squads", TH_MAX_SQUADS);
        return -1;
    }
    if (!th_handle_given(d.crowd.index1, "crowd", err)) return -1;
    if (TH_INDEX(d.crowd) >= w->crowd_count) {
        th_error_set(err, TH_ERR_HANDLE, "no crowd %u for the squad's members", TH_INDEX(d.crowd));
        return -1;
    }
    if (d.count < 1 || d.count > TH_MAX_SQUAD_MEMBERS || d.formation > TH_FORMATION_CIRCLE ||
        !(isfinite(d.spacing) && d.spacing > 0.0f && d.spacing <= 100.0f) ||
        !(isfinite(d.speed) && d.speed > 0.0f && d.speed <= 1000.0f) ||
        !(isfinite(d.tolerance) && d.tolerance > 0.0f && d.tolerance <= 100.0f) ||
        !(isfinite(d.slot_weight) && d.slot_weight >= 0.0f && d.slot_weight <= 1000.0f) ||
        d.files > TH_MAX_SQUAD_MEMBERS) {
        th_error_set(err, TH_ERR_INVALID,
                     "a squad takes 1 to %d members, a formation, spacing in (0, 100] m, "
                     "speed in (0, 1000] m/s, tolerance in (0, 100] m, slot_weight in [0, 1000]",
                     TH_MAX_SQUAD_MEMBERS);
        return -1;
    }
    if (blocked(w, d.start) || blocked(w, d.goal)) {
        th_error_set(err, TH_ERR_BLOCKED,
                     "the squad's start (%g, %g) and goal (%g, %g) must be open ground",
                     (double)d.start.x, (double)d.start.y, (double)d.goal.x, (double)d.goal.y);
        return -1;
    }
    if (w->nav.present && !th_nav_path_ready(w, err)) return -1;
    if (w->nav.present && !w->nav.reach_mark) {
        uint32_t *mark = th_calloc(w->nav.map.ncells, sizeof *mark);
        uint32_t *queue = th_calloc(w->nav.map.ncells, sizeof *queue);
        if (!mark || !queue) {
            th_free(mark);
            th_free(queue);
            th_error_set(err, TH_ERR_NOMEM, "out of memory for the squads' formation fitting");
            return -1;
        }
        w->nav.reach_mark = mark;
        w->nav.reach_queue = queue;
    }
    th_squad *q = th_calloc(1, sizeof *q);
    uint32_t c = d.count;
    if (q) {
        q->slot_local = th_calloc(c, sizeof *q->slot_local);
        q->slot_pos = th_calloc(c, sizeof *q->slot_pos);
        q->member = th_calloc(c, sizeof *q->member);
        q->slot_of_member = th_calloc(c, sizeof *q->slot_of_member);
        q->taken = th_calloc(c, 1);
        q->cutoff = th_calloc(c, sizeof *q->cutoff);
        q->back = th_calloc((size_t)c * TH_SQUAD_BACK_POINTS, sizeof *q->back);
        q->back_count = th_calloc(c, sizeof *q->back_count);
        q->back_next = th_calloc(c, sizeof *q->back_next);
        q->at = th_calloc(c, sizeof *q->at);
        q->seen = th_calloc(c, 1);
        q->path = th_calloc(TH_SQUAD_PATH_POINTS, sizeof *q->path);
    }
    if (!q || !q->slot_local || !q->slot_pos || !q->member || !q->slot_of_member || !q->taken ||
        !q->cutoff || !q->back || !q->back_count || !q->back_next || !q->at || !q->seen ||
        !q->path) {
        th_squad_free(q);
        th_error_set(err, TH_ERR_NOMEM, "out of memory for a squad of %u", c);
        return -1;
    }
    if (d.rigid && w->nav.present && !w->nav.rigid_map.ncells &&
        th_navmap_init(&w->nav.rigid_map, w->nav.map.w, w->nav.map.h, w->nav.map.cell_size) !=
            TH_NAV_OK) {
        th_squad_free(q);
        th_error_set(err, TH_ERR_NOMEM, "out of memory for a rigid squad's planning map");
        return -1;
    }
    q->def = d;
    q->centre = d.start;
    template_slots(&d, q->slot_local);
    q->path_count = plan_centre(w, q, d.start);
    if (q->path_count == 0) {
        th_squad_free(q);
        th_error_set(err, TH_ERR_UNREACHABLE,
                     "no path from the squad's start (%g, %g) to its goal (%g, %g)",
                     (double)d.start.x, (double)d.start.y, (double)d.goal.x, (double)d.goal.y);
        return -1;
    }
    q->path_next = 1;
    th_vec2 toward = q->path_count > 1 ? th_v2_sub(q->path[1], q->path[0]) : th_v2(1.0f, 0.0f);
    q->heading = th_v2_len2(toward) > 0.0f ? th_v2_norm(toward) : th_v2(1.0f, 0.0f);
    place_slots(q);
    for (uint32_t i = 0; i < c; i++) {
        if (blocked(w, q->slot_pos[i])) {
            th_error_set(err, TH_ERR_BLOCKED,
                         "squad slot %u at (%g, %g) is not open ground: start the squad "
                         "where its formation fits",
                         i, (double)q->slot_pos[i].x, (double)q->slot_pos[i].y);
            th_squad_free(q);
            return -1;
        }
    }
    for (uint32_t i = 0; i < c; i++) {
        th_agent_id id = th_world_add_agent(w, d.crowd, q->slot_pos[i], th_v2(0.0f, 0.0f), err);
        if (!th_agent_id_valid(id)) {
            th_squad_free(q);
            return -1;
        }
        q->member[i] = id;
        q->slot_of_member[i] = i;
    }
    q->member_count = c;
    q->capacity = c;
    for (uint32_t i = 0; i < c; i++) {
        w->squad_of_id[th_id_slot(q->member[i])] = (uint8_t)(w->squad_count + 1);
        w->member_of_id[th_id_slot(q->member[i])] = (uint16_t)i;
    }
    w->squad[w->squad_count] = q;
    return (int)w->squad_count++;
}

th_squad_id th_world_add_squad(th_world *w, const th_squad_def *def, th_error *err) {
    if (!w || !def) {
        th_error_set(err, TH_ERR_INVALID, "squad: no world or no def");
        return (th_squad_id){0};
    }
    return th_squad_handle(add_squad(w, def, err));
}

void th_squad_free(th_squad *q) {
    if (!q) return;
    th_free(q->slot_local);
    th_free(q->slot_pos);
    th_free(q->member);
    th_free(q->slot_of_member);
    th_free(q->taken);
    th_free(q->cutoff);
    th_free(q->back);
    th_free(q->back_count);
    th_free(q->back_next);
    th_free(q->at);
    th_free(q->seen);
    th_free(q->path);
    th_free(q);
}

bool th_world_get_squad(const th_world *w, th_squad_id handle, th_squad_info *out) {
    if (!w || !out) return false;
    const uint32_t squad = TH_INDEX(handle);
    if (squad >= w->squad_count) return false;
    const th_squad *q = w->squad[squad];
    *out = (th_squad_info){q->centre,  q->heading,    q->member_count,       q->error,
                           q->arrived, q->path_count, q->stuck || q->wedged, q->no_room};
    return true;
}

bool th_world_get_squad_member(const th_world *w, th_squad_id handle, uint32_t i, th_agent_id *id,
                               th_vec2 *slot) {
    if (!w) return false;
    const uint32_t squad = TH_INDEX(handle);
    if (squad >= w->squad_count || i >= w->squad[squad]->member_count) return false;
    const th_squad *q = w->squad[squad];
    if (id) *id = q->member[i];
    if (slot) *slot = q->slot_pos[q->slot_of_member[i]];
    return true;
}

bool th_world_squad_waypoint(const th_world *w, th_squad_id handle, uint32_t i, th_vec2 *out) {
    if (!w) return false;
    const uint32_t squad = TH_INDEX(handle);
    if (squad >= w->squad_count || i >= w->squad[squad]->path_count) return false;
    *out = w->squad[squad]->path[i];
    return true;
}

/* Grow a squad's per-member arrays to `cap` members (between steps). */
static bool grow_squad(th_squad *q, uint32_t cap) {
    if (cap <= q->capacity) return true;
    size_t n = q->member_count, back = TH_SQUAD_BACK_POINTS;
    bool ok = th_grow_array((void **)&q->slot_local, sizeof *q->slot_local, n, cap) &&
              th_grow_array((void **)&q->slot_pos, sizeof *q->slot_pos, n, cap) &&
              th_grow_array((void **)&q->member, sizeof *q->member, n, cap) &&
              th_grow_array((void **)&q->slot_of_member, sizeof *q->slot_of_member, n, cap) &&
              th_grow_array((void **)&q->taken, sizeof *q->taken, n, cap) &&
              th_grow_array((void **)&q->cutoff, sizeof *q->cutoff, n, cap) &&
              th_grow_array((void **)&q->back, sizeof *q->back, n * back, (size_t)cap * back) &&
              th_grow_array((void **)&q->back_count, sizeof *q->back_count, n, cap) &&
              th_grow_array((void **)&q->back_next, sizeof *q->back_next, n, cap) &&
              th_grow_array((void **)&q->at, sizeof *q->at, n, cap) &&
              th_grow_array((void **)&q->seen, sizeof *q->seen, n, cap);
    if (ok) q->capacity = cap;
    return ok;
}

bool th_world_squad_join(th_world *w, th_squad_id handle, th_agent_id id, th_error *err) {
    if (!th_between_steps(w, err)) return false;
    if (!th_handle_given(handle.index1, "squad", err)) return false;
    const uint32_t squad = TH_INDEX(handle);
    if (squad >= w->squad_count) {
        th_error_set(err, TH_ERR_HANDLE, "no squad %u", squad);
        return false;
    }
    /* Under several ranks only the agent's owner stores it: the ranks agree on what it found
     * (a collective, as the call is made on every rank). */
    if (!th_dist_any(w, th_agent_index(w, id) != UINT32_MAX)) {
        th_error_set(err, TH_ERR_HANDLE, "agent %u.%u does not exist", id.index1, id.generation);
        return false;
    }
    /* The agent is there but taken: a state of the world, not a bad handle. */
    if (w->squad_of_id[th_id_slot(id)]) {
        th_error_set(err, TH_ERR_STATE, "agent %u.%u already belongs to a squad", id.index1,
                     id.generation);
        return false;
    }
    /* Nor one with a goal of its own, which it would keep and never walk to (its owner knows;
     * the ranks agree, as above). */
    th_agent_goal own;
    const bool has_own = th_world_get_agent_goal(w, id, &own) && own.kind != TH_AGENT_GOAL_CROWD;
    if (th_dist_any(w, has_own)) {
        th_error_set(err, TH_ERR_STATE,
                     "agent %u.%u has a goal of its own: return it to its crowd's "
                     "(TH_AGENT_GOAL_CROWD) before it joins a squad",
                     id.index1, id.generation);
        return false;
    }
    th_squad *q = w->squad[squad];
    if (q->member_count >= TH_MAX_SQUAD_MEMBERS) {
        th_error_set(err, TH_ERR_LIMIT, "a squad has at most %d members", TH_MAX_SQUAD_MEMBERS);
        return false;
    }
    /* Any rank short of memory fails the call on every rank (a grown array is harmless). */
    if (th_dist_any(w, !grow_squad(q, q->member_count + 1))) {
        th_error_set(err, TH_ERR_NOMEM, "out of memory");
        return false;
    }
    uint32_t m = q->member_count++;
    q->member[m] = id;
    q->cutoff[m] = 0.0f;
    q->back_count[m] = 0;
    q->back_next[m] = 0;
    w->squad_of_id[th_id_slot(id)] = (uint8_t)(squad + 1);
    w->member_of_id[th_id_slot(id)] = (uint16_t)m;
    q->def.count = q->member_count;
    template_slots(&q->def, q->slot_local);
    place_slots(q);
    if (!q->def.rigid) fit_slots(w, q);
    members_at(w, squad, squad + 1);
    assign_slots(q);
    q->arrived = false;
    return true;
}

/* ---- per step ---------------------------------------------------------------------------- */

/* ---- re-planning after terrain events ------------------------------------------------------
 *
 * The centre's path was planned on the map as it was. A block or a dearer cost can put a wall
 * or a swamp across what is left of it (the centre, a point that no wall stops, would walk
 * through and leave the members pinned against the wall far from their slots); a broken wall
 * or a cheaper cost can open a shorter way anywhere. So after the events of a step: when some
 * cell got cheaper or opened, every squad still marching re-plans (whether a shorter way now
 * exists is a search of its own: A* is that search); otherwise a squad re-plans when the rest
 * of its path (centre, then the waypoints ahead) meets the rectangle of an event that blocked
 * cells or made them dearer. A* runs from the centre's cell with the world's path memory: no
 * allocation, serial, in squad order, so the result is the same for any thread count. */

/* Whether segment a-b meets the closed box [x0, x1] x [y0, y1] (Liang-Barsky clipping). */
static bool segment_meets_box(th_vec2 a, th_vec2 b, float x0, float y0, float x1, float y1) {
    float t0 = 0.0f, t1 = 1.0f;
    const float d[2] = {b.x - a.x, b.y - a.y}, lo[2] = {x0 - a.x, y0 - a.y},
                hi[2] = {x1 - a.x, y1 - a.y};
    for (int k = 0; k < 2; k++) {
        if (d[k] == 0.0f) {
            if (lo[k] > 0.0f || hi[k] < 0.0f) return false;
            continue;
        }
        float ta = lo[k] / d[k], tb = hi[k] / d[k];
        if (ta > tb) {
            float t = ta;
            ta = tb;
            tb = t;
        }
        t0 = fmaxf(t0, ta);
        t1 = fminf(t1, tb);
        if (t0 > t1) return false;
    }
    return true;
}

/* Whether the polyline `from`, pts[0..n) meets a rectangle raised by this step's events. */
bool th_path_meets_raised(const th_world *w, th_vec2 from, const th_vec2 *pts, uint32_t n) {
    const th_world_nav *nv = &w->nav;
    if (nv->raised_overflow) return n > 0;
    const float cs = nv->map.cell_size;
    for (uint32_t i = 0; i < n; i++) {
        for (uint32_t r = 0; r < nv->raised_count; r++) {
            const th_event_def *e = &nv->raised[r];
            if (segment_meets_box(from, pts[i], (float)e->x0 * cs, (float)e->y0 * cs,
                                  (float)(e->x1 + 1) * cs, (float)(e->y1 + 1) * cs)) {
                return true;
            }
        }
        from = pts[i];
    }
    return false;
}

/* Whether the segment a-b (metres) touches only open cells: a traversal of the cells it
 * crosses, both side cells tested where it passes (within rounding) through a corner. */
static bool clear_segment(const th_world *w, th_vec2 a, th_vec2 b) {
    const th_navmap *m = &w->nav.map;
    const double ax = (double)a.x * m->inv_cell_size, ay = (double)a.y * m->inv_cell_size;
    const double bx = (double)b.x * m->inv_cell_size, by = (double)b.y * m->inv_cell_size;
    int32_t x = (int32_t)floor(ax), y = (int32_t)floor(ay);
    const int32_t xe = (int32_t)floor(bx), ye = (int32_t)floor(by);
    const double dx = bx - ax, dy = by - ay;
    const int32_t sx = dx > 0.0 ? 1 : -1, sy = dy > 0.0 ? 1 : -1;
    const double tdx = dx != 0.0 ? fabs(1.0 / dx) : INFINITY,
                 tdy = dy != 0.0 ? fabs(1.0 / dy) : INFINITY;
    double tx = dx != 0.0 ? (sx > 0 ? (double)x + 1.0 - ax : ax - (double)x) * tdx : INFINITY;
    double ty = dy != 0.0 ? (sy > 0 ? (double)y + 1.0 - ay : ay - (double)y) * tdy : INFINITY;
    for (int64_t left = (int64_t)abs(xe - x) + abs(ye - y) + 2; left > 0; left--) {
        if (th_navmap_is_blocked(m, x, y)) return false;
        if (x == xe && y == ye) return true;
        if (fabs(tx - ty) < 1e-9) {
            if (th_navmap_is_blocked(m, x + sx, y) || th_navmap_is_blocked(m, x, y + sy))
                return false;
            x += sx;
            y += sy;
            tx += tdx;
            ty += tdy;
        } else if (tx < ty) {
            x += sx;
            tx += tdx;
        } else {
            y += sy;
            ty += tdy;
        }
    }
    return false;
}

/* The open cell nearest to (x, y) by square rings, each scanned row-major (deterministic);
 * false when the map has none. */
static bool nearest_open(const th_navmap *m, int32_t x, int32_t y, int32_t *ox, int32_t *oy) {
    const int32_t rmax = m->w > m->h ? m->w : m->h;
    for (int32_t r = 0; r <= rmax; r++) {
        for (int32_t yy = y - r; yy <= y + r; yy++) {
            const bool edge = yy == y - r || yy == y + r;
            for (int32_t xx = x - r; xx <= x + r; xx += edge || r == 0 ? 1 : 2 * r) {
                if (!th_navmap_is_blocked(m, xx, yy)) {
                    *ox = xx;
                    *oy = yy;
                    return true;
                }
            }
        }
    }
    return false;
}

static void replan(th_world *w, th_squad *q) {
    const th_navmap *m = &w->nav.map;
    int32_t cx, cy;
    th_navmap_cell_of(m, q->centre, &cx, &cy);
    if (th_navmap_is_blocked(m, cx, cy)) {
        /* A block fell on the centre itself: it moves to the nearest open cell, as the
         * members standing there were moved. */
        int32_t ox, oy;
        if (!nearest_open(m, cx, cy, &ox, &oy)) {
            q->stuck = true;
            return;
        }
        q->centre = th_navmap_cell_centre(m, ox, oy);
    }
    uint32_t k = plan_centre(w, q, q->centre);
    if (k == 0) { /* no route left (or the goal is walled in): wait where it is */
        q->stuck = true;
        return;
    }
    q->stuck = false;
    q->path_count = k;
    /* The plan starts at the centre's cell centre and each leg after it is clear. The centre
     * itself lies elsewhere in that cell: it heads straight for the next waypoint when that
     * way is clear too, else it first steps to the cell centre. */
    q->path_next = k > 1 && clear_segment(w, q->centre, q->path[1]) ? 1 : 0;
}

/* After this step's terrain events: re-plan the centre's path if the change can matter to it,
 * and drop ways back that run into a raised rectangle (the member plans anew at once). */
static void after_terrain_events(th_world *w, th_squad *q) {
    const th_world_nav *nv = &w->nav;
    const bool marching = q->path_next < q->path_count || q->stuck;
    if (marching && (nv->terrain_lowered || q->stuck ||
                     th_path_meets_raised(w, q->centre, q->path + q->path_next,
                                          q->path_count - q->path_next))) {
        replan(w, q);
    }
    if (nv->raised_count == 0 && !nv->raised_overflow) return;
    for (uint32_t m = 0; m < q->member_count; m++) {
        if (q->back_count[m] == 0) continue;
        const th_vec2 *back = q->back + (size_t)m * TH_SQUAD_BACK_POINTS;
        if (th_path_meets_raised(w, q->at[m], back + q->back_next[m],
                                 q->back_count[m] - q->back_next[m])) {
            q->back_count[m] = 0;
            q->cutoff[m] = CUTOFF_SECONDS;
        }
    }
}

/* ---- rigid squads ---------------------------------------------------------------------------
 *
 * The formation as one body (the seed's "whole squadron acts as a single soldier"), but one
 * that walls stop: a pose (centre, heading) is taken only when every slot of it is open ground
 * with RIGID_MARGIN to spare, so the shape never deforms and no slot enters a wall. The centre
 * follows its path segment by segment: aligned with the segment it moves, its speed within
 * RIGID_SHARE of the members' max_speed and the squad's speed, changed by at most RIGID_SHARE
 * of max_force per second and brought to rest at the segment's end (sqrt(2 a d)); off the
 * segment's direction it stands and turns, its turn rate likewise bounded for the outermost
 * slot. A move or turn is taken only as far as the shape fits, braking to stop there; where no
 * part of it fits the squad waits (wedged, reported as stuck) and tries again next step. */

/* Whether every slot of the pose (centre, heading) is open ground `margin` metres into it (the
 * four corners of a square of that half-size around the slot). */
static bool pose_fits(const th_world *w, const th_squad *q, th_vec2 centre, th_vec2 heading,
                      float margin) {
    for (uint32_t i = 0; i < q->def.count; i++) {
        const th_vec2 p = place(centre, heading, q->slot_local[i]);
        for (int k = 0; k < 4; k++) {
            const th_vec2 corner =
                th_v2(p.x + (k & 1 ? margin : -margin), p.y + (k & 2 ? margin : -margin));
            if (blocked(w, corner)) return false;
        }
    }
    return true;
}

/* Heading h turned by angle a (radians, counter-clockwise). */
static th_vec2 turned(th_vec2 h, float a) {
    const float c = cosf(a), s = sinf(a);
    return th_v2_norm(th_v2(h.x * c - h.y * s, h.x * s + h.y * c));
}

/* A rate toward `target` from `now`, changed by at most `dv`. */
static float ramp(float now, float target, float dv) {
    if (target > now + dv) return now + dv;
    if (target < now - dv) return now - dv;
    return target;
}

/* The pose after advancing by u in [0, 1] of a move: along `dir` by u * len, or turned by
 * u * len radians (sign in len). */
typedef struct rigid_move {
    th_vec2 centre, heading, dir;
    float len;
    bool turn;
} rigid_move;

static bool move_fits(const th_world *w, const th_squad *q, const rigid_move *mv, float u,
                      float margin) {
    if (mv->turn) return pose_fits(w, q, mv->centre, turned(mv->heading, u * mv->len), margin);
    return pose_fits(w, q, th_v2_add(mv->centre, th_v2_scale(mv->dir, u * mv->len)), mv->heading,
                     margin);
}

/* How far along a move (0..1) the pose still fits, looking no further than `look` of it: all
 * of it when the end fits, else the last fitting point bisection finds before the first that
 * does not. The body then brakes to stop there, not at the wall. */
static float free_share(const th_world *w, const th_squad *q, const rigid_move *mv, float look,
                        float margin) {
    if (move_fits(w, q, mv, look, margin)) return look;
    float lo = 0.0f, hi = look;
    for (int i = 0; i < RIGID_BISECT; i++) {
        const float mid = 0.5f * (lo + hi);
        if (move_fits(w, q, mv, mid, margin)) lo = mid;
        else hi = mid;
    }
    return lo;
}

/* One step of a rigid squad's march (see above). The stopping distance ahead (v^2 / 2a plus a
 * step, in metres or radians) is looked at first, so the body slows to a stop where its shape
 * stops fitting rather than halting from full speed (its members could not stop as fast). */
static void rigid_march(th_world *w, th_squad *q, float dt) {
    const th_crowd_rt *c = &w->crowd_rt[TH_INDEX(q->def.crowd)];
    const float radius = fmaxf(template_radius(q), 0.5f * q->def.spacing);
    const float vmax = fminf(q->def.speed, RIGID_SHARE * c->max_speed);
    const float amax = RIGID_SHARE * c->max_force;
    const th_vec2 start = q->centre;
    q->wedged = false;
    q->velocity = th_v2(0.0f, 0.0f);
    while (q->path_next < q->path_count &&
           th_v2_len(th_v2_sub(q->path[q->path_next], q->centre)) <= 1e-4f) {
        q->centre = q->path[q->path_next++];
    }
    if (q->path_next >= q->path_count) {
        q->speed_now = q->omega = 0.0f;
        return;
    }
    /* The margin kept from walls; a pose that already lacks it (a start or a block close to a
     * wall) may still move as long as every slot stays on open ground. */
    const float margin = pose_fits(w, q, q->centre, q->heading, RIGID_MARGIN) ? RIGID_MARGIN : 0.0f;
    const th_vec2 to = th_v2_sub(q->path[q->path_next], q->centre);
    const float d = th_v2_len(to);
    const th_vec2 dir = th_v2_scale(to, 1.0f / d);
    const float angle = atan2f(q->heading.x * dir.y - q->heading.y * dir.x,
                               q->heading.x * dir.x + q->heading.y * dir.y);
    const bool turn = fabsf(angle) > RIGID_ALIGNED;
    /* Rates: metres per second along the segment, or radians per second turning (the
     * outermost slot then moves at rate * radius). */
    const float top = turn ? vmax / radius : vmax, acc = turn ? amax / radius : amax;
    const float span = turn ? fabsf(angle) : d;
    float now = turn ? fabsf(q->omega) : q->speed_now;
    if (turn) q->speed_now = 0.0f; /* it stands at each corner (after a re-plan, it stops) */
    else q->heading = dir;
    const rigid_move mv = {q->centre, q->heading, dir, turn ? angle : d, turn};
    const float look = fminf(1.0f, (now * now / (2.0f * acc) + (now + acc * dt) * dt) / span);
    const float free = free_share(w, q, &mv, look, margin) * span;
    if (free <= 1e-5f * span) {
        q->speed_now = q->omega = 0.0f;
        q->wedged = true;
        return;
    }
    now = ramp(now, fminf(top, sqrtf(2.0f * acc * free)), acc * dt);
    const float advance = fminf(fmaxf(now, acc * dt) * dt, free);
    const bool whole = advance >= span;
    if (turn) {
        q->heading = whole ? dir : turned(q->heading, angle < 0.0f ? -advance : advance);
        q->omega = whole ? 0.0f : (angle < 0.0f ? -now : now);
        return;
    }
    q->omega = 0.0f;
    q->centre = whole ? q->path[q->path_next] : th_v2_add(q->centre, th_v2_scale(dir, advance));
    q->speed_now = whole ? 0.0f : now; /* at rest at the corner: it arrives there slowing */
    if (whole) q->path_next++;
    q->velocity = th_v2_scale(th_v2_sub(q->centre, start), 1.0f / dt);
}

/* Reads the members through at[] and seen[] (members_at), never the agent arrays. */
static void update_squad(th_world *w, th_squad *q) {
    const float dt = w->def.timestep;
    /* Lost members leave; their slots close up around the rest. A lost member's id slot may
     * already hold an agent spawned this step: the generation tells them apart. */
    uint32_t kept = 0;
    for (uint32_t m = 0; m < q->member_count; m++) {
        if (!q->seen[m]) continue;
        q->member[kept] = q->member[m];
        q->at[kept] = q->at[m];
        w->member_of_id[th_id_slot(q->member[m])] = (uint16_t)kept;
        q->cutoff[kept] = q->cutoff[m];
        q->back_count[kept] = q->back_count[m];
        q->back_next[kept] = q->back_next[m];
        memmove(q->back + (size_t)kept * TH_SQUAD_BACK_POINTS,
                q->back + (size_t)m * TH_SQUAD_BACK_POINTS, TH_SQUAD_BACK_POINTS * sizeof *q->back);
        kept++;
    }
    if (kept == 0) {
        q->member_count = 0;
        return;
    }
    const bool lost = kept != q->member_count;
    if (lost) {
        q->member_count = kept;
        q->def.count = kept;
        template_slots(&q->def, q->slot_local);
        place_slots(q);
        if (!q->def.rigid) fit_slots(w, q);
        assign_slots(q);
    }
    const th_world_nav *nv = &w->nav;
    if (nv->present && !w->squads_keep_paths &&
        (nv->terrain_lowered || nv->raised_count || nv->raised_overflow)) {
        after_terrain_events(w, q);
    }
    /* Formation error, and the centre's march. The centre waits for members that lag behind
     * slots they can stand on; a slot swung into a wall (rounding a corner) cannot be reached,
     * and waiting for it would stop the squad for good. */
    float err = 0.0f, worst = 0.0f, lag = 0.0f;
    uint32_t reachable = 0;
    for (uint32_t m = 0; m < q->member_count; m++) {
        th_vec2 slot = q->slot_pos[q->slot_of_member[m]];
        float d = th_v2_len(th_v2_sub(q->at[m], slot));
        err += d;
        worst = fmaxf(worst, d);
        if (!blocked(w, slot)) {
            lag += d;
            reachable++;
        }
    }
    q->error = err / (float)q->member_count;
    lag = reachable ? lag / (float)reachable : 0.0f;
    bool at_goal = q->path_next >= q->path_count && !q->stuck;
    /* The slots judged below were fitted for the goal only if the centre stood there already:
     * on the step it gets there they still sit where the march put them. */
    const bool settled = at_goal;
    q->velocity = th_v2(0.0f, 0.0f);
    if (q->def.rigid) {
        if (!at_goal && !q->stuck && lag <= LAG_SPACINGS * q->def.spacing) {
            rigid_march(w, q, dt);
        } else {
            q->speed_now = q->omega = 0.0f;
            q->wedged = false;
        }
        at_goal = q->path_next >= q->path_count && !q->stuck;
    } else if (!at_goal && !q->stuck && lag <= LAG_SPACINGS * q->def.spacing) {
        float left = q->def.speed * dt;
        th_vec2 start = q->centre;
        while (left > 0.0f && q->path_next < q->path_count) {
            /* At a stair's seam the next waypoint is on the other level: the centre steps
             * across, as a walker does, and the slots follow it there. */
            if (th_nav_glued(w, q->centre, q->path[q->path_next])) {
                q->centre = q->path[q->path_next++];
                start = q->centre; /* the step across is no speed of the squad's */
                continue;
            }
            th_vec2 to = th_v2_sub(q->path[q->path_next], q->centre);
            float d = th_v2_len(to);
            if (d > 1e-6f) q->heading = th_v2_scale(to, 1.0f / d);
            if (d <= left) {
                q->centre = q->path[q->path_next++];
                left -= d;
            } else {
                q->centre = th_v2_add(q->centre, th_v2_scale(q->heading, left));
                left = 0.0f;
            }
        }
        q->velocity = th_v2_scale(th_v2_sub(q->centre, start), 1.0f / dt);
        at_goal = q->path_next >= q->path_count;
    }
    /* Arrival with hysteresis: arrive once every member is within tolerance; only a breakup
     * beyond REARRIVE_FACTOR tolerances counts as not arrived again. */
    /* Slots that found no room (no_room, from the fitting that placed them) are not ones the
     * members can hold: the squad does not arrive on them, it says it has no room. */
    const bool judged = at_goal && (q->def.rigid || (settled && !q->no_room));
    if (judged && !q->arrived && worst <= q->def.tolerance) q->arrived = true;
    else if (q->arrived && worst > REARRIVE_FACTOR * q->def.tolerance) q->arrived = false;
    /* At the goal the slots stay as fitted: the centre stands still, so a new fitting would
     * find the same cells at the cost of a search each step. They are fitted again when the
     * terrain changed, members were lost, or the last fitting found no room (the cells another
     * squad held then may be free now). */
    const bool terrain = nv->terrain_lowered || nv->raised_count || nv->raised_overflow;
    if (q->def.rigid || !(settled && at_goal) || q->no_room || terrain || lost) {
        place_slots(q);
        if (!q->def.rigid) fit_slots(w, q);
    }
    if (!q->def.rigid && at_goal && !q->arrived) swap_slots(q);
    /* Cut-off members: out of sight of their slot (or the slot is in a wall) for a second. */
    for (uint32_t m = 0; m < q->member_count; m++) {
        th_vec2 p = q->at[m], slot = q->slot_pos[q->slot_of_member[m]];
        th_vec2 *back = q->back + (size_t)m * TH_SQUAD_BACK_POINTS;
        /* A slot on another level (the centre crossed a stair): the way there is planned at
         * once, over the stair. */
        const bool across = other_level(w, p, slot);
        bool cut = across || blocked(w, slot) || !sees(w, p, slot);
        if (!cut) {
            q->cutoff[m] = 0.0f;
            q->back_count[m] = 0;
            continue;
        }
        q->cutoff[m] += dt;
        if (q->back_count[m] > 0) {
            /* Walking back: next waypoint once close to this one. At the end of the way and
             * still cut off (the slot moved on meanwhile), drop it: a new plan follows. Before
             * a stair's seam (the next waypoint on the other level), close means in the
             * waypoint's cell: the crossing is a straight step out of it. */
            const uint32_t at = q->back_next[m];
            const bool seam = at + 1 < q->back_count[m] && th_nav_glued(w, back[at], back[at + 1]);
            const float reach = seam ? 0.5f * w->nav.map.cell_size : 0.75f;
            if (th_v2_len(th_v2_sub(back[at], p)) < reach) {
                if (q->back_next[m] + 1 < q->back_count[m]) q->back_next[m]++;
                else q->back_count[m] = 0;
            }
            continue;
        }
        if (q->cutoff[m] >= CUTOFF_SECONDS || across) {
            /* Back to the slot if it is open ground, else to the squad centre. */
            th_vec2 goal = blocked(w, slot) ? q->centre : slot;
            q->back_count[m] = plan(w, p, goal, back, TH_SQUAD_BACK_POINTS);
            q->back_next[m] = q->back_count[m] > 1 ? 1 : 0;
            q->cutoff[m] = 0.0f;
        }
    }
}

void th_squads_update(th_world *w) {
    members_at(w, 0, w->squad_count);
    for (uint32_t s = 0; s < w->squad_count; s++) update_squad(w, w->squad[s]);
}

th_vec2 th_squad_steer(const th_world *w, th_agent_id id, const th_crowd_rt *c, th_vec2 p,
                       th_vec2 v) {
    const th_squad *q = w->squad[w->squad_of_id[th_id_slot(id)] - 1];
    uint32_t m = w->member_of_id[th_id_slot(id)];
    th_vec2 goal;
    bool walking_back = q->back_count[m] > 0;
    if (q->def.rigid && !walking_back) {
        /* Held on the slot: aim to be where the slot will be after this step (its velocity,
         * the centre's plus the turn's, and the gap closed within RIGID_HOLD_STEPS). */
        const float dt = w->def.timestep;
        const th_vec2 slot = q->slot_pos[q->slot_of_member[m]];
        const th_vec2 arm = th_v2_sub(slot, q->centre);
        const th_vec2 slot_v = th_v2_add(q->velocity, th_v2(-q->omega * arm.y, q->omega * arm.x));
        const th_vec2 gap = th_v2_sub(slot, p);
        th_vec2 desired = th_v2_add(slot_v, th_v2_scale(gap, 1.0f / (RIGID_HOLD_STEPS * dt)));
        desired = th_v2_clamp_len(desired, c->max_speed);
        const th_vec2 f =
            th_v2_clamp_len(th_v2_scale(th_v2_sub(desired, v), 1.0f / dt), c->max_force);
        return th_v2_scale(f, q->def.slot_weight);
    }
    if (walking_back) {
        /* Across a stair's seam: into the seam cell beyond the waypoint before it. */
        const th_vec2 *back = q->back + (size_t)m * TH_SQUAD_BACK_POINTS;
        const uint32_t next = q->back_next[m];
        goal = back[next];
        if (w->nav.stair_count && next > 0) goal = th_nav_seam_aim(w, p, back[next - 1], goal);
    } else {
        goal = q->slot_pos[q->slot_of_member[m]];
    }
    th_vec2 to = th_v2_sub(goal, p);
    float d = th_v2_len(to);
    float speed = walking_back ? c->max_speed : fminf(c->max_speed, d * SLOT_GAIN);
    /* At the goal, a member still beyond tolerance of its slot comes at full speed: the pull,
     * weak that close, is held off by the walls' push where its way into a corridor or a
     * dead end passes a corner, and the squad would wait there for ever. Within tolerance
     * the pull is the usual one, so members settle where holds_slot found they do. */
    const bool settling = q->path_next >= q->path_count && !q->stuck && !q->arrived;
    if (!walking_back && settling && d > q->def.tolerance) speed = c->max_speed;
    th_vec2 desired = d > 1e-6f ? th_v2_scale(to, speed / d) : th_v2(0.0f, 0.0f);
    if (!walking_back) desired = th_v2_clamp_len(th_v2_add(desired, q->velocity), c->max_speed);
    th_vec2 f = th_v2_clamp_len(th_v2_sub(desired, v), c->max_force);
    return th_v2_scale(f, q->def.slot_weight);
}
