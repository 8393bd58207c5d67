/* The classic movers: crash and turn, wall following, breadcrumbs and waypoint navigation,
 * each a crowd goal (sim/behave/goal.c calls in here for their kinds; docs/movers.md has the rules
 * and their sources).
 *
 * They follow the goals' contract: an agent's direction at step t is a function of its state
 * as of step t and its position, and its state (th_goal_state, by id) is written only when that
 * agent is integrated, by the worker integrating it. The two cell walkers (crash and turn while
 * it follows a boundary, wall following) decide their next cell only once the agent is within
 * `radius` of its current cell's centre, so a decision is a function of the cell and the facing
 * alone: the discrete wall follower, whatever the crowd model makes of the straight legs
 * between centres. Breadcrumbs are dropped serially in bookkeeping into a ring allocated with
 * the crowd; the waypoint table is built when the crowd is added. Nothing here allocates in a
 * step. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "engine/alloc.h"
#include "sim/behave/movers.h"
#include "sim/core/world.h"

/* Phases (th_goal_state.mode). 0 = not yet integrated for every mover. */
enum {
    MODE_NEW = 0,
    MODE_FREE = 1,   /* crash and turn: walking its heading */
    MODE_SEEK = 2,   /* cell walker: straight on (facing) until the cell ahead is blocked */
    MODE_FOLLOW = 3, /* cell walker: hand on the wall */
    MODE_WALK = 4,   /* waypoints: walking to node `index` */
};

#define NO_HOP UINT16_MAX

struct th_mover {
    th_goal_kind kind;
    float r2; /* reached within this distance, squared (metres^2) */
    /* Cell walkers. */
    th_hand hand;
    th_vec2 heading; /* crash and turn: unit, unless to_point */
    float lookahead; /* metres */
    bool to_point;   /* crash and turn: toward `point`, reached within sqrt(point_r2) */
    th_vec2 point;
    float point_r2;
    /* Breadcrumbs: crumb k (a sequence number) is crumb[k % trail] while k + trail > dropped. */
    uint32_t target;
    float spacing2;
    uint32_t trail;
    uint32_t dropped;
    bool have_prev;
    th_vec2 prev; /* the target's position at the last bookkeeping */
    th_vec2 *crumb;
    /* Waypoints. */
    uint32_t n, dest;
    th_vec2 *node;
    uint32_t *edge; /* the def's pairs, copied; NULL for automatic edges */
    uint32_t edge_count;
    uint16_t *next; /* next[from * n + to]: the node after `from` toward `to`, or NO_HOP */
    float *cost;    /* cost[from * n + to]: metres of the cheapest route, INFINITY when none */
    bool own_table; /* next and cost are in this block, not an earlier crowd's with the same
                       graph */
};

/* ---- setup ------------------------------------------------------------------------------ */

static size_t align8(size_t x) { return (x + 7u) & ~(size_t)7u; }

static bool inside_world(const th_world *w, th_vec2 q) {
    return q.x >= 0.0f && q.x < w->def.width && q.y >= 0.0f && q.y < w->def.height;
}

static int32_t cell_x(const th_navmap *m, th_vec2 p) {
    int32_t x, y;
    th_navmap_cell_of(m, p, &x, &y);
    return x;
}

static int32_t cell_y(const th_navmap *m, th_vec2 p) {
    int32_t x, y;
    th_navmap_cell_of(m, p, &x, &y);
    return y;
}

/* Whether node i and node j are joined by an automatic edge. */
static bool sees(const th_world *w, th_vec2 a, th_vec2 b) {
    if (!w->nav.present) return true;
    const th_navmap *m = &w->nav.map;
    return th_nav_line_of_sight(m, cell_x(m, a), cell_y(m, a), cell_x(m, b), cell_y(m, b));
}

/* The all-pairs next-hop table: Dijkstra rooted at every node `to` over the undirected graph
 * (dense, O(n^2) per root, O(n^3) in all), so the tree's parent of `from` is the first hop from
 * `from` toward `to`. Ties go to the lower node index (the scan order), so the table is a pure
 * function of the graph. `len` is n x n edge lengths, INFINITY where there is no edge; `dist`,
 * `pred` and `done` are n long. */
static void build_table(struct th_mover *m, const double *len, double *dist, uint16_t *pred,
                        uint8_t *done) {
    const uint32_t n = m->n;
    for (uint32_t t = 0; t < n; t++) {
        for (uint32_t i = 0; i < n; i++) {
            dist[i] = INFINITY;
            done[i] = 0;
            pred[i] = NO_HOP;
        }
        dist[t] = 0.0;
        pred[t] = (uint16_t)t;
        for (;;) {
            uint32_t u = n;
            double best = INFINITY;
            for (uint32_t i = 0; i < n; i++) {
                if (!done[i] && dist[i] < best) {
                    best = dist[i];
                    u = i;
                }
            }
            if (u == n) break;
            done[u] = 1;
            const double *row = len + (size_t)u * n;
            for (uint32_t i = 0; i < n; i++) {
                const double via = best + row[i]; /* INFINITY where there is no edge */
                if (via < dist[i] && !done[i]) {
                    dist[i] = via;
                    pred[i] = (uint16_t)u; /* from i, go to u first */
                }
            }
        }
        for (uint32_t i = 0; i < n; i++) {
            m->next[(size_t)i * n + t] = pred[i];
            m->cost[(size_t)i * n + t] = (float)dist[i];
        }
    }
}

static bool setup_waypoints(const th_world *w, const th_goal_def *g, struct th_mover *m,
                            th_error *err) {
    const uint32_t n = m->n;
    for (uint32_t i = 0; i < n; i++) {
        const th_vec2 q = g->nodes[i];
        if (!inside_world(w, q)) {
            th_error_set(err, th_error_point_code(q),
                         "goal waypoints: node %u (%g, %g) is outside the world [0, %g) x "
                         "[0, %g)",
                         i, (double)q.x, (double)q.y, (double)w->def.width, (double)w->def.height);
            return false;
        }
        if (w->nav.present && th_navmap_blocked_at(&w->nav.map, q)) {
            th_error_set(err, TH_ERR_BLOCKED, "goal waypoints: node %u (%g, %g) is inside a wall",
                         i, (double)q.x, (double)q.y);
            return false;
        }
        m->node[i] = q;
    }
    for (uint32_t e = 0; g->edges && e < g->edge_count; e++) {
        const uint32_t a = g->edges[2 * e], b = g->edges[2 * e + 1];
        if (a >= n || b >= n || a == b) {
            th_error_set(err, TH_ERR_INVALID,
                         "goal waypoints: edge %u (%u, %u) must join two different nodes "
                         "of the %u",
                         e, a, b, n);
            return false;
        }
        m->edge[2 * e] = a;
        m->edge[2 * e + 1] = b;
    }
    if (!m->own_table) return true; /* an earlier crowd's table serves this graph */
    /* Scratch for the build only (this is crowd setup, not a step). */
    double *len = th_alloc((size_t)n * n * sizeof *len + (size_t)n * (sizeof(double) + 3));
    if (!len) {
        th_error_set(err, TH_ERR_NOMEM, "out of memory");
        return false;
    }
    double *dist = len + (size_t)n * n;
    uint16_t *pred = (uint16_t *)(dist + n);
    uint8_t *done = (uint8_t *)(pred + n);
    for (size_t k = 0; k < (size_t)n * n; k++) len[k] = INFINITY;
    if (g->edges) {
        for (uint32_t e = 0; e < g->edge_count; e++) {
            const uint32_t a = m->edge[2 * e], b = m->edge[2 * e + 1];
            const double d =
                hypot((double)m->node[a].x - m->node[b].x, (double)m->node[a].y - m->node[b].y);
            len[(size_t)a * n + b] = len[(size_t)b * n + a] = d;
        }
    } else {
        for (uint32_t a = 0; a < n; a++) {
            for (uint32_t b = a + 1; b < n; b++) {
                if (!sees(w, m->node[a], m->node[b])) continue;
                const double d =
                    hypot((double)m->node[a].x - m->node[b].x, (double)m->node[a].y - m->node[b].y);
                len[(size_t)a * n + b] = len[(size_t)b * n + a] = d;
            }
        }
    }
    build_table(m, len, dist, pred, done);
    th_free(len);
    return true;
}

/* An earlier crowd's waypoint mover over the same nodes and edges (its table is shared: it
 * does not depend on the destination, and crowds are never removed), or NULL. */
static const struct th_mover *same_graph(const th_world *w, const th_goal_def *g) {
    for (uint32_t k = 0; k < w->crowd_count; k++) {
        const struct th_mover *o = w->crowd_rt[k].mover;
        if (!o || o->kind != TH_GOAL_WAYPOINTS || !o->own_table || o->n != g->node_count ||
            (o->edge != NULL) != (g->edges != NULL) || (g->edges && o->edge_count != g->edge_count))
            continue;
        if (memcmp(o->node, g->nodes, (size_t)o->n * sizeof *o->node) != 0) continue;
        if (g->edges && memcmp(o->edge, g->edges, (size_t)o->edge_count * 2 * sizeof *o->edge) != 0)
            continue;
        return o;
    }
    return NULL;
}

bool th_mover_setup(const th_world *w, const th_goal_def *g, th_crowd_rt *c, th_vec2 **mem,
                    th_error *err) {
    const char *name = g->kind == TH_GOAL_CRASH_AND_TURN ? "crash_and_turn"
                       : g->kind == TH_GOAL_WALL_FOLLOW  ? "wall_follow"
                       : g->kind == TH_GOAL_BREADCRUMBS  ? "breadcrumbs"
                                                         : "waypoints";
    const bool walker = g->kind == TH_GOAL_CRASH_AND_TURN || g->kind == TH_GOAL_WALL_FOLLOW;
    if (walker && !w->nav.present) {
        th_error_set(err, TH_ERR_STATE,
                     "goal %s walks the terrain's cells: it needs a map (set cell_size)", name);
        return false;
    }
    if (walker && g->hand != TH_HAND_RIGHT && g->hand != TH_HAND_LEFT &&
        !(g->hand == TH_HAND_NEAREST && g->kind == TH_GOAL_CRASH_AND_TURN)) {
        th_error_set(err, TH_ERR_INVALID, "goal %s: unknown hand %d%s", name, (int)g->hand,
                     g->hand == TH_HAND_NEAREST ? " (the nearest side is crash and turn's)" : "");
        return false;
    }
    const float cell = w->nav.present ? w->nav.map.cell_size : 1.0f;
    float r = g->radius;
    if (r == 0.0f) { r = walker ? 0.3f * cell : g->kind == TH_GOAL_BREADCRUMBS ? 0.5f : 1.0f; }
    if (!(isfinite(r) && r > 0.0f && r <= 1000.0f)) {
        th_error_set(err, TH_ERR_INVALID, "goal %s: radius must be in (0, 1000] metres, got %g",
                     name, (double)g->radius);
        return false;
    }
    /* Sizes of the block's parts. */
    uint32_t trail = 0, n = 0, edges = 0, tables = 0;
    const struct th_mover *same = NULL;
    if (g->kind == TH_GOAL_BREADCRUMBS) {
        trail = g->trail == 0 ? 256u : g->trail;
        if (trail > TH_MAX_BREADCRUMBS) {
            th_error_set(err, TH_ERR_INVALID,
                         "goal breadcrumbs: trail must be 1 to %d crumbs, got %u",
                         TH_MAX_BREADCRUMBS, g->trail);
            return false;
        }
    } else if (g->kind == TH_GOAL_WAYPOINTS) {
        if (!g->nodes || g->node_count < 1 || g->node_count > TH_MAX_WAYPOINT_NODES) {
            th_error_set(err, TH_ERR_INVALID, "goal waypoints needs 1 to %d nodes, got %u",
                         TH_MAX_WAYPOINT_NODES, g->nodes ? g->node_count : 0u);
            return false;
        }
        n = g->node_count;
        if (g->destination >= n) {
            th_error_set(err, TH_ERR_INVALID,
                         "goal waypoints: destination %u is not a node (there are %u)",
                         g->destination, n);
            return false;
        }
        if (!g->edges && g->edge_count > 0) {
            th_error_set(err, TH_ERR_INVALID, "goal waypoints: %u edges but no edge array",
                         g->edge_count);
            return false;
        }
        /* Duplicate pairs are allowed, but no graph needs more than every ordered pair. */
        if (g->edge_count > n * n) {
            th_error_set(err, TH_ERR_INVALID,
                         "goal waypoints: %u edges, more than the %u node pairs", g->edge_count,
                         n * n);
            return false;
        }
        edges = g->edges ? g->edge_count : 0;
        same = same_graph(w, g);
        if (!same) {
            uint64_t pairs = (uint64_t)n * n;
            for (uint32_t k = 0; k < w->crowd_count; k++) {
                const struct th_mover *o = w->crowd_rt[k].mover;
                if (o && o->kind == TH_GOAL_WAYPOINTS && o->own_table)
                    pairs += (uint64_t)o->n * o->n;
            }
            if (pairs > TH_MAX_WAYPOINT_PAIRS) {
                th_error_set(err, TH_ERR_LIMIT,
                             "goal waypoints: the world's waypoint graphs would hold %llu node "
                             "pairs, more than %d (crowds with the same nodes and edges share one "
                             "table)",
                             (unsigned long long)pairs, TH_MAX_WAYPOINT_PAIRS);
                return false;
            }
        }
        tables = same ? 0 : n;
    }
    const size_t off_crumb = align8(sizeof(struct th_mover));
    const size_t off_node = off_crumb + align8((size_t)trail * sizeof(th_vec2));
    const size_t off_edge = off_node + align8((size_t)n * sizeof(th_vec2));
    const size_t off_next = off_edge + align8((size_t)edges * 2 * sizeof(uint32_t));
    const size_t off_cost = off_next + align8((size_t)tables * tables * sizeof(uint16_t));
    const size_t size = off_cost + (size_t)tables * tables * sizeof(float);
    unsigned char *block = th_alloc(size);
    if (!block) {
        th_error_set(err, TH_ERR_NOMEM, "out of memory");
        return false;
    }
    memset(block, 0, size);
    struct th_mover *m = (struct th_mover *)block;
    m->kind = g->kind;
    m->r2 = r * r;
    m->hand = g->hand;
    if (g->kind == TH_GOAL_CRASH_AND_TURN && g->use_point) {
        const th_vec2 q = g->point;
        const char *bad = !(isfinite(q.x) && isfinite(q.y))      ? "is not finite"
                          : !inside_world(w, q)                  ? "is outside the world"
                          : th_navmap_blocked_at(&w->nav.map, q) ? "is on a blocked cell"
                          : (g->heading.x != 0.0f || g->heading.y != 0.0f)
                              ? "is given with a heading (walk to a point or along a "
                                "heading, not both)"
                              : NULL;
        if (bad) {
            th_error_set(err, TH_ERR_INVALID, "goal crash_and_turn: point (%g, %g) %s", (double)q.x,
                         (double)q.y, bad);
            th_free(block);
            return false;
        }
        const float pr = g->arrive_radius == 0.0f ? 1.0f : g->arrive_radius;
        if (!(isfinite(pr) && pr > 0.0f && pr <= 1000.0f)) {
            th_error_set(err, TH_ERR_INVALID,
                         "goal crash_and_turn: arrive_radius must be in (0, 1000] metres, got %g",
                         (double)g->arrive_radius);
            th_free(block);
            return false;
        }
        m->to_point = true;
        m->point = q;
        m->point_r2 = pr * pr;
    } else if (g->kind == TH_GOAL_CRASH_AND_TURN) {
        const float hl = hypotf(g->heading.x, g->heading.y);
        if (!(isfinite(hl) && hl > 0.0f)) {
            th_error_set(err, TH_ERR_INVALID,
                         "goal crash_and_turn: heading must be a finite, non-zero vector, got "
                         "(%g, %g)",
                         (double)g->heading.x, (double)g->heading.y);
            th_free(block);
            return false;
        }
        m->heading = th_v2(g->heading.x / hl, g->heading.y / hl);
    }
    if (g->kind == TH_GOAL_CRASH_AND_TURN) {
        m->lookahead = g->lookahead == 0.0f ? cell : g->lookahead;
        if (!(isfinite(m->lookahead) && m->lookahead > 0.0f && m->lookahead <= 1000.0f)) {
            th_error_set(err, TH_ERR_INVALID,
                         "goal crash_and_turn: lookahead must be in (0, 1000] metres, got %g",
                         (double)g->lookahead);
            th_free(block);
            return false;
        }
    } else if (g->kind == TH_GOAL_BREADCRUMBS) {
        if (!g->target.index1) {
            th_error_set(err, TH_ERR_HANDLE, "goal breadcrumbs: no target given (null handle)");
            th_free(block);
            return false;
        }
        if (TH_INDEX(g->target) >= w->target_count ||
            w->target_def[TH_INDEX(g->target)].kind == TH_TARGET_SHELTER) {
            th_error_set(err,
                         TH_INDEX(g->target) >= w->target_count ? TH_ERR_HANDLE : TH_ERR_INVALID,
                         "goal breadcrumbs: target %u must be a point, path or agent target "
                         "(the world has %u targets)",
                         TH_INDEX(g->target), w->target_count);
            th_free(block);
            return false;
        }
        const float sp = g->spacing == 0.0f ? 1.0f : g->spacing;
        if (!(isfinite(sp) && sp > 0.0f && sp <= 1000.0f)) {
            th_error_set(err, TH_ERR_INVALID,
                         "goal breadcrumbs: spacing must be in (0, 1000] metres, got %g",
                         (double)g->spacing);
            th_free(block);
            return false;
        }
        m->target = TH_INDEX(g->target);
        m->spacing2 = sp * sp;
        m->trail = trail;
        m->crumb = (th_vec2 *)(block + off_crumb);
    } else if (g->kind == TH_GOAL_WAYPOINTS) {
        m->n = n;
        m->dest = g->destination;
        m->node = (th_vec2 *)(block + off_node);
        m->edge = g->edges ? (uint32_t *)(block + off_edge) : NULL;
        m->edge_count = edges;
        m->own_table = same == NULL;
        m->next = same ? same->next : (uint16_t *)(block + off_next);
        m->cost = same ? same->cost : (float *)(block + off_cost);
        if (!setup_waypoints(w, g, m, err)) {
            th_free(block);
            return false;
        }
    }
    c->mover = m;
    *mem = (th_vec2 *)(void *)block;
    return true;
}

void th_mover_def_stored(th_goal_def *g, const th_crowd_rt *c) {
    const struct th_mover *m = c->mover;
    g->points = NULL; /* the world's goal memory is no route */
    g->point_count = 0;
    if (m && m->kind == TH_GOAL_WAYPOINTS) {
        g->nodes = m->node;
        g->edges = m->edge;
    } else {
        g->nodes = NULL;
        g->node_count = 0;
        g->edges = NULL;
        g->edge_count = 0;
    }
}

/* ---- the cell walkers --------------------------------------------------------------------- */

/* Facing 0..3 = E, N, W, S: th_nav_move_dx/dy's straight moves; +1 is a left turn. */
static const int8_t k_dx[4] = {1, 0, -1, 0};
static const int8_t k_dy[4] = {0, 1, 0, -1};

/* The wall follower's rule: turn toward the hand, else straight on, else away from the hand,
 * else back. Turns relative to the facing, per hand. */
static const uint8_t k_turns[2][4] = {
    {3, 0, 1, 2}, /* right hand: right, straight, left, back */
    {1, 0, 3, 2}, /* left hand: left, straight, right, back */
};

static bool open_cell(const th_navmap *m, int32_t x, int32_t y) {
    return !th_navmap_is_blocked(m, x, y);
}

/* The axis direction nearest to v (x wins ties). */
static uint8_t facing_of(th_vec2 v) {
    if (fabsf(v.x) >= fabsf(v.y)) return v.x < 0.0f ? 2 : 0;
    return v.y < 0.0f ? 3 : 1;
}

/* One decision at the centre of cell (x, y): the next cell and facing, by the phase. SEEK goes
 * straight on while it can; at the first blocked cell ahead it turns away from the hand (the
 * wall is then at the hand) and follows from there on. False when all four sides are blocked. */
static bool walker_decide(const th_navmap *nm, th_hand hand, th_goal_state *s) {
    const int32_t x = (int32_t)(s->cell % (uint32_t)nm->w),
                  y = (int32_t)(s->cell / (uint32_t)nm->w);
    uint8_t f = s->facing;
    if (s->mode == MODE_SEEK) {
        if (open_cell(nm, x + k_dx[f], y + k_dy[f])) {
            s->cell = (uint32_t)(y + k_dy[f]) * (uint32_t)nm->w + (uint32_t)(x + k_dx[f]);
            return true;
        }
        s->mode = MODE_FOLLOW;
        f = (uint8_t)((f + (hand == TH_HAND_RIGHT ? 1 : 3)) & 3); /* turn away from the hand */
    }
    for (int k = 0; k < 4; k++) {
        const uint8_t g = (uint8_t)((f + k_turns[hand][k]) & 3);
        if (open_cell(nm, x + k_dx[g], y + k_dy[g])) {
            s->facing = g;
            s->cell = (uint32_t)(y + k_dy[g]) * (uint32_t)nm->w + (uint32_t)(x + k_dx[g]);
            return true;
        }
    }
    s->facing = f;
    return false;
}

static th_vec2 cell_centre(const th_navmap *nm, uint32_t cell) {
    return th_navmap_cell_centre(nm, (int32_t)(cell % (uint32_t)nm->w),
                                 (int32_t)(cell / (uint32_t)nm->w));
}

/* Crash and turn's way from p: along the heading, or straight to the point, with the metres that
 * must be free ahead (the look-ahead, no farther than the point). False at the point: arrived. */
static bool crash_way(const th_world *w, const struct th_mover *m, th_vec2 p, th_vec2 *dir,
                      float *ahead) {
    *ahead = m->lookahead;
    if (!m->to_point) {
        *dir = m->heading;
        return true;
    }
    const th_vec2 d = th_min_image(th_v2_sub(m->point, p), w->wrap, w->def.width, w->def.height);
    const float len2 = th_v2_len2(d);
    if (len2 <= m->point_r2) return false;
    const float len = sqrtf(len2);
    *dir = th_v2_scale(d, 1.0f / len);
    if (len < *ahead) *ahead = len;
    return true;
}

/* Crash and turn: whether the way from p is free for its look-ahead (the segment between the
 * cells of p and of the look-ahead point meets no blocked cell). True at the point. */
static bool way_free(const th_world *w, const struct th_mover *m, th_vec2 p) {
    const th_navmap *nm = &w->nav.map;
    th_vec2 dir;
    float ahead;
    if (!crash_way(w, m, p, &dir, &ahead)) return true;
    const th_vec2 q = th_v2_add(p, th_v2_scale(dir, ahead));
    if (th_navmap_blocked_at(nm, q)) return false;
    return th_nav_line_of_sight(nm, cell_x(nm, p), cell_y(nm, p), cell_x(nm, q), cell_y(nm, q));
}

static float point_distance(const th_world *w, const struct th_mover *m, th_vec2 p) {
    return th_v2_len(th_min_image(th_v2_sub(m->point, p), w->wrap, w->def.width, w->def.height));
}

/* Bug-style leaving: once the walker has walked a cell along the boundary, the first cell
 * centre from which its way is free again ends the detour; toward a point, only a centre
 * closer to it than the crash was (so a detour never ends where it began). Not in the crash
 * cell itself: its centre may lie behind the point that crashed, where the way looks free. */
static bool leaves(const th_world *w, const struct th_mover *m, const th_goal_state *s) {
    if (s->index == 0) return false;
    const th_vec2 c = cell_centre(&w->nav.map, s->cell);
    if (m->to_point && !(point_distance(w, m, c) < s->angle)) return false;
    return way_free(w, m, c);
}

/* TH_HAND_NEAREST: walk the boundary from the crash state with each hand, cell by cell, and
 * take the hand that leaves in fewer cells; the right hand on a tie, or when neither leaves
 * within the map's perimeter. A function of the crash state alone, so deterministic. */
static uint8_t nearest_side(const th_world *w, const struct th_mover *m, const th_goal_state *s) {
    const th_navmap *nm = &w->nav.map;
    const uint32_t cap = 2u * ((uint32_t)nm->w + (uint32_t)nm->h);
    uint32_t cells[2];
    for (int h = 0; h < 2; h++) {
        th_goal_state t = *s;
        cells[h] = UINT32_MAX;
        while (t.index < cap) {
            if (leaves(w, m, &t)) {
                cells[h] = t.index;
                break;
            }
            if (!walker_decide(nm, (th_hand)h, &t)) break;
            t.index++;
        }
    }
    return cells[TH_HAND_LEFT] < cells[TH_HAND_RIGHT] ? TH_HAND_LEFT : TH_HAND_RIGHT;
}

/* The walker's state after arriving near its cell's centre (or on its first integration). */
static void walker_moved(const th_world *w, const struct th_mover *m, th_goal_state *s, th_vec2 p) {
    const th_navmap *nm = &w->nav.map;
    if (s->mode == MODE_NEW) {
        s->mode = m->kind == TH_GOAL_CRASH_AND_TURN ? MODE_FREE : MODE_SEEK;
        s->cell = th_navmap_cell_of(nm, p, NULL, NULL);
        s->index = 0;
    }
    if (s->mode == MODE_FREE) {
        if (way_free(w, m, p)) return;
        /* Crashed: from this cell, straight on along the way's axis to the obstacle, then
         * hand on it. */
        th_vec2 dir;
        float ahead;
        crash_way(w, m, p, &dir, &ahead);
        s->mode = MODE_SEEK;
        s->facing = facing_of(dir);
        s->cell = th_navmap_cell_of(nm, p, NULL, NULL);
        s->index = 0;
        if (m->to_point) s->angle = point_distance(w, m, p);
        if (m->hand == TH_HAND_NEAREST) s->side = nearest_side(w, m, s);
    }
    /* A wall event may have closed the target cell: decide again from where the agent is. */
    if (th_navmap_cost(nm, (int32_t)(s->cell % (uint32_t)nm->w),
                       (int32_t)(s->cell / (uint32_t)nm->w)) == 0)
        s->cell = th_navmap_cell_of(nm, p, NULL, NULL);
    const th_vec2 d = th_v2_sub(cell_centre(nm, s->cell), p);
    if (th_v2_len2(d) > m->r2) return;
    if (m->kind == TH_GOAL_CRASH_AND_TURN && leaves(w, m, s)) {
        s->mode = MODE_FREE;
        return;
    }
    if (walker_decide(nm, (th_hand)s->side, s) && s->index < UINT32_MAX) s->index++;
}

static bool walker_direction(const th_world *w, const struct th_mover *m, const th_goal_state *s,
                             th_vec2 p, th_vec2 *dir) {
    const th_navmap *nm = &w->nav.map;
    if (m->kind == TH_GOAL_CRASH_AND_TURN && (s->mode == MODE_NEW || s->mode == MODE_FREE)) {
        /* Walking its way (before the first integration too); at the point it stays. */
        float ahead;
        if (!crash_way(w, m, p, dir, &ahead)) *dir = th_v2(0.0f, 0.0f);
        return true;
    }
    if (s->mode == MODE_NEW) {
        *dir = th_v2((float)k_dx[s->facing], (float)k_dy[s->facing]); /* straight on */
        return true;
    }
    const int32_t x = (int32_t)(s->cell % (uint32_t)nm->w),
                  y = (int32_t)(s->cell / (uint32_t)nm->w);
    /* Boxed in on all four sides: nowhere to go. */
    bool boxed = true;
    for (int k = 0; k < 4 && boxed; k++) boxed = !open_cell(nm, x + k_dx[k], y + k_dy[k]);
    if (boxed && th_navmap_cell_of(nm, p, NULL, NULL) == s->cell) return false;
    *dir = th_v2_norm(th_v2_sub(th_navmap_cell_centre(nm, x, y), p));
    return true;
}

/* ---- breadcrumbs ------------------------------------------------------------------------- */

static uint32_t oldest_crumb(const struct th_mover *m) {
    return m->dropped > m->trail ? m->dropped - m->trail : 0;
}

static th_vec2 crumb_at(const struct th_mover *m, uint32_t k) { return m->crumb[k % m->trail]; }

static bool crumbs_direction(const th_world *w, const struct th_mover *m, const th_goal_state *s,
                             th_vec2 p, th_vec2 *dir) {
    if (m->dropped == 0) return true; /* no trail yet: stand */
    uint32_t k = s->index < oldest_crumb(m) ? oldest_crumb(m) : s->index;
    const bool last = k >= m->dropped - 1;
    if (k >= m->dropped) k = m->dropped - 1;
    const th_vec2 d =
        th_min_image(th_v2_sub(crumb_at(m, k), p), w->wrap, w->def.width, w->def.height);
    /* At the newest crumb the follower waits for the next, as at a route's end. */
    if (last && th_v2_len2(d) <= m->r2) return true;
    *dir = th_v2_norm(d);
    return true;
}

static void crumbs_moved(const th_world *w, const struct th_mover *m, th_goal_state *s, th_vec2 p) {
    uint32_t k = s->index < oldest_crumb(m) ? oldest_crumb(m) : s->index;
    while (k < m->dropped) {
        const th_vec2 d =
            th_min_image(th_v2_sub(crumb_at(m, k), p), w->wrap, w->def.width, w->def.height);
        if (th_v2_len2(d) > m->r2) break;
        k++;
    }
    s->index = k;
}

static void drop(struct th_mover *m, th_vec2 q) {
    m->crumb[m->dropped % m->trail] = q;
    if (m->dropped < UINT32_MAX) m->dropped++;
}

/* Whether a straight walk from a to b stays off blocked cells (always, without a map). */
static bool clear_between(const th_world *w, th_vec2 a, th_vec2 b) {
    if (!w->nav.present || w->wrap) return true;
    return sees(w, a, b);
}

void th_movers_update(th_world *w) {
    for (uint32_t c = 0; c < w->crowd_count; c++) {
        struct th_mover *m = w->crowd_rt[c].mover;
        if (!m || m->kind != TH_GOAL_BREADCRUMBS || !w->target_valid[m->target]) continue;
        const th_vec2 q = w->target_pos[m->target];
        /* Only where a follower can stand: a point target may leave the world. */
        if (!inside_world(w, q) || (w->nav.present && th_navmap_blocked_at(&w->nav.map, q))) {
            m->have_prev = false;
            continue;
        }
        if (m->dropped == 0) {
            drop(m, q);
        } else {
            const th_vec2 last = crumb_at(m, m->dropped - 1);
            /* Around a corner the straight line from the last crumb would cut through the
             * wall: the target's previous position, still in sight of it, becomes a crumb. */
            if (!clear_between(w, last, q) && m->have_prev &&
                (m->prev.x != last.x || m->prev.y != last.y))
                drop(m, m->prev);
            const th_vec2 newest = crumb_at(m, m->dropped - 1);
            const th_vec2 d =
                th_min_image(th_v2_sub(q, newest), w->wrap, w->def.width, w->def.height);
            if (th_v2_len2(d) >= m->spacing2 || !clear_between(w, newest, q)) drop(m, q);
        }
        m->prev = q;
        m->have_prev = true;
    }
}

uint32_t th_world_breadcrumbs(const th_world *w, th_crowd_id crowd, th_vec2 *out, uint32_t max) {
    if (!w) return 0;
    if (TH_INDEX(crowd) >= w->crowd_count) return 0;
    const struct th_mover *m = w->crowd_rt[TH_INDEX(crowd)].mover;
    if (!m || m->kind != TH_GOAL_BREADCRUMBS) return 0;
    const uint32_t first = oldest_crumb(m), held = m->dropped - first;
    for (uint32_t i = 0; i < held && i < max; i++) out[i] = crumb_at(m, first + i);
    return held;
}

/* ---- waypoints ---------------------------------------------------------------------------- */

/* The nearest node visible from p's cell that has a route to the destination (lower index on
 * ties), or n when there is none. */
static uint32_t entry_node(const th_world *w, const struct th_mover *m, th_vec2 p) {
    uint32_t best = m->n;
    float best_d2 = INFINITY;
    for (uint32_t i = 0; i < m->n; i++) {
        if (!isfinite(m->cost[(size_t)i * m->n + m->dest])) continue;
        const th_vec2 d =
            th_min_image(th_v2_sub(m->node[i], p), w->wrap, w->def.width, w->def.height);
        const float d2 = th_v2_len2(d);
        if (d2 < best_d2 && sees(w, p, m->node[i])) {
            best = i;
            best_d2 = d2;
        }
    }
    return best;
}

/* An agent that found no node in sight looks again every this many steps (staggered by id):
 * the search is n line-of-sight walks, too many to repeat every step for a stranded crowd. */
#define ENTRY_RETRY_STEPS 64u

static bool waypoints_direction(const th_world *w, const struct th_mover *m, const th_goal_state *s,
                                th_vec2 p, th_vec2 *dir) {
    const uint32_t i = s->index;
    /* Its entry node is chosen at its first integration; until then it stands. `facing` marks
     * a search that found no node in sight: stranded until one does. */
    if (s->mode == MODE_NEW) return s->facing == 0;
    const th_vec2 d = th_min_image(th_v2_sub(m->node[i], p), w->wrap, w->def.width, w->def.height);
    if (i == m->dest && th_v2_len2(d) <= m->r2) return true; /* arrived: hold */
    *dir = th_v2_norm(d);
    return true;
}

bool th_mover_destination(const th_crowd_rt *c, const th_goal_state *s, th_vec2 *at, float *r2) {
    const struct th_mover *m = c->mover;
    if (m && m->kind == TH_GOAL_CRASH_AND_TURN && m->to_point && s->mode == MODE_FREE) {
        *at = m->point;
        *r2 = m->point_r2;
        return true;
    }
    if (!m || m->kind != TH_GOAL_WAYPOINTS || s->mode == MODE_NEW || s->index != m->dest)
        return false;
    *at = m->node[m->dest];
    *r2 = m->r2;
    return true;
}

uint32_t th_mover_plan(const th_goal_state *s, const th_crowd_rt *c, th_vec2 p, th_vec2 *out,
                       uint32_t max, float *metres) {
    const struct th_mover *m = c->mover;
    if (m && m->kind == TH_GOAL_CRASH_AND_TURN && m->to_point) {
        if (out && max < 1) return UINT32_MAX - 1u;
        if (out) out[0] = m->point;
        *metres = th_v2_len(th_v2_sub(m->point, p));
        return 1;
    }
    if (!m || m->kind != TH_GOAL_WAYPOINTS || s->mode != MODE_WALK) return UINT32_MAX;
    uint32_t at = s->index, n = 0;
    float cost = th_v2_len(th_v2_sub(m->node[at], p));
    const float rest = m->cost[(size_t)at * m->n + m->dest];
    if (!isfinite(rest)) return UINT32_MAX;
    for (;;) {
        if (out && n == max) return UINT32_MAX - 1u;
        if (out) out[n] = m->node[at];
        n++;
        if (at == m->dest) break;
        at = m->next[(size_t)at * m->n + m->dest];
    }
    *metres = cost + rest;
    return n;
}

static void waypoints_moved(const th_world *w, const struct th_mover *m, th_goal_state *s,
                            th_vec2 p) {
    if (s->mode == MODE_NEW) {
        const uint32_t id = (uint32_t)(s - w->goal_state);
        if (s->facing != 0 && (w->step + id) % ENTRY_RETRY_STEPS != 0) return;
        const uint32_t i = entry_node(w, m, p);
        s->facing = i == m->n;
        if (i == m->n) return;
        s->index = i;
        s->mode = MODE_WALK;
    }
    const th_vec2 d =
        th_min_image(th_v2_sub(m->node[s->index], p), w->wrap, w->def.width, w->def.height);
    if (s->index != m->dest && th_v2_len2(d) <= m->r2)
        s->index = m->next[(size_t)s->index * m->n + m->dest];
}

bool th_world_waypoint_hop(const th_world *w, th_crowd_id crowd, uint32_t from, uint32_t to,
                           uint32_t *next, float *cost) {
    if (!w) return false;
    if (TH_INDEX(crowd) >= w->crowd_count) return false;
    const struct th_mover *m = w->crowd_rt[TH_INDEX(crowd)].mover;
    if (!m || m->kind != TH_GOAL_WAYPOINTS || from >= m->n || to >= m->n) return false;
    const size_t k = (size_t)from * m->n + to;
    if (m->next[k] == NO_HOP) return false;
    if (next) *next = m->next[k];
    if (cost) *cost = m->cost[k];
    return true;
}

/* ---- the goal hooks ------------------------------------------------------------------------ */

void th_mover_agent_added(const th_world *w, th_goal_state *s, const th_crowd_rt *c, th_vec2 v) {
    (void)w;
    const struct th_mover *m = c->mover;
    s->mode = MODE_NEW;
    s->index = 0;
    s->cell = 0;
    s->side = (uint8_t)(m->hand == TH_HAND_LEFT ? TH_HAND_LEFT : TH_HAND_RIGHT);
    /* A wall follower starts straight on along its initial velocity (east when standing). */
    s->facing = m->kind == TH_GOAL_CRASH_AND_TURN ? facing_of(m->heading)
                : m->kind == TH_GOAL_WALL_FOLLOW  ? facing_of(v)
                                                  : 0;
}

bool th_mover_direction(const th_world *w, const th_goal_state *s, const th_crowd_rt *c, th_vec2 p,
                        th_vec2 *dir) {
    const struct th_mover *m = c->mover;
    *dir = th_v2(0.0f, 0.0f);
    switch (m->kind) {
    case TH_GOAL_CRASH_AND_TURN:
    case TH_GOAL_WALL_FOLLOW: return walker_direction(w, m, s, p, dir);
    case TH_GOAL_BREADCRUMBS: return crumbs_direction(w, m, s, p, dir);
    case TH_GOAL_WAYPOINTS: return waypoints_direction(w, m, s, p, dir);
    default: return true;
    }
}

void th_mover_moved(const th_world *w, th_goal_state *s, const th_crowd_rt *c, th_vec2 p,
                    th_vec2 v) {
    (void)v;
    const struct th_mover *m = c->mover;
    switch (m->kind) {
    case TH_GOAL_CRASH_AND_TURN:
    case TH_GOAL_WALL_FOLLOW: walker_moved(w, m, s, p); break;
    case TH_GOAL_BREADCRUMBS: crumbs_moved(w, m, s, p); break;
    case TH_GOAL_WAYPOINTS: waypoints_moved(w, m, s, p); break;
    default: break;
    }
}
