/* The movers' goals in a scene file (sim/behave/movers.c, docs/movers.md).
 *
 *     goal: {crash_and_turn: {heading: [1, 0], hand: right, lookahead: 1.0, radius: 0.3}}
 *     goal: {crash_and_turn: {to: [40, 12], arrive_radius: 1.0, hand: nearest}}  # a point
 *     goal: {wall_follow: {hand: left, radius: 0.3}}
 *     goal: {breadcrumbs: {target: NAME, spacing: 1.0, trail: 256, radius: 0.5}}
 *     goal:
 *       waypoints:
 *         nodes: [[x, y], ...]              # metres, on open ground
 *         edges: [[0, 1], [1, 2], ...]      # or `auto` (the default): pairs in line of sight
 *         destination: 2                    # a node's index
 *         radius: 1.0
 *
 * As in scene_goal.c, everything the world would refuse is checked here, at the value. */
#include <stdio.h>
#include <string.h>

#include "engine/arena.h"
#include "sim/scene/scene_internal.h"

#define FAIL(s, n, path, err, ...) th_scene_fail((s), (n), (path), (err), __VA_ARGS__)

static const char *const k_movers[] = {"crash_and_turn", "wall_follow", "breadcrumbs", "waypoints",
                                       NULL};

bool th_scene_mover_goal(const th_ynode *goal) {
    if (goal->kind != TH_Y_MAPPING) return false;
    for (int i = 0; k_movers[i]; i++) {
        if (th_ynode_get(goal, k_movers[i])) return true;
    }
    return false;
}

static bool word(th_scene *s, const th_ynode *v, const char *path, const char *const *words,
                 int *out, th_error *err) {
    char buf[64], list[128] = "";
    for (int i = 0; words[i]; i++) {
        if (v->kind == TH_Y_SCALAR && strlen(words[i]) == v->len &&
            memcmp(words[i], v->text, v->len) == 0) {
            *out = i;
            return true;
        }
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? " or " : "",
                 words[i]);
    }
    return FAIL(s, v, path, err, "expected %s, found %s", list, th_scene_found(v, buf, sizeof buf));
}

static bool opt_float(th_scene *s, const th_ynode *m, const char *path, const char *key, double lo,
                      double hi, float *out, th_error *err) {
    const th_ynode *v = th_ynode_get(m, key);
    if (!v) return true;
    char sub[192];
    snprintf(sub, sizeof sub, "%s.%s", path, key);
    double d;
    if (!th_scene_float(s, v, sub, lo, hi, &d, err)) return false;
    *out = (float)d;
    return true;
}

static bool opt_hand(th_scene *s, const th_ynode *m, const char *path, bool nearest, th_hand *out,
                     th_error *err) {
    static const char *const words[] = {"right", "left", "nearest", NULL};
    static const char *const two[] = {"right", "left", NULL};
    const th_ynode *v = th_ynode_get(m, "hand");
    if (!v) return true;
    char sub[192];
    snprintf(sub, sizeof sub, "%s.hand", path);
    int h;
    if (!word(s, v, sub, nearest ? words : two, &h, err)) return false;
    *out = h == 0 ? TH_HAND_RIGHT : h == 1 ? TH_HAND_LEFT : TH_HAND_NEAREST;
    return true;
}

static bool parse_crash(th_scene *s, th_goal_def *g, const th_ynode *m, const char *path,
                        th_error *err) {
    static const char *const keys[] = {"heading", "to", "arrive_radius", "hand", "lookahead",
                                       "radius",  NULL};
    if (!th_scene_known_keys(s, m, path, keys, err)) return false;
    char sub[192];
    const th_ynode *v = th_ynode_get(m, "heading"), *to = th_ynode_get(m, "to");
    g->kind = TH_GOAL_CRASH_AND_TURN;
    if (v && to) {
        snprintf(sub, sizeof sub, "%s.to", path);
        return FAIL(s, to, sub, err,
                    "expected `heading` or `to`, not both: walk along a heading or to a point");
    }
    if (to) {
        snprintf(sub, sizeof sub, "%s.to", path);
        if (!th_scene_open_point(s, to, sub, "crash and turn's point", &g->point, err))
            return false;
        g->use_point = true;
    } else {
        snprintf(sub, sizeof sub, "%s.heading", path);
        if (!v)
            return TH_SCENE_MISSING(s, m, sub, err,
                                    "missing: the direction to walk, [x, y] (or `to`, a point)");
        double xy[2];
        if (th_scene_numbers(s, v, sub, 2, -1e6, 1e6, xy, err) < 0) return false;
        if (xy[0] == 0.0 && xy[1] == 0.0)
            return FAIL(s, v, sub, err, "expected a non-zero direction, found [0, 0]");
        g->heading = th_v2((float)xy[0], (float)xy[1]);
    }
    if (!to && th_ynode_get(m, "arrive_radius")) {
        snprintf(sub, sizeof sub, "%s.arrive_radius", path);
        return FAIL(s, th_ynode_get(m, "arrive_radius"), sub, err,
                    "expected `arrive_radius` only with `to`: a heading has no point to reach");
    }
    return opt_hand(s, m, path, true, &g->hand, err) &&
           opt_float(s, m, path, "arrive_radius", 0.01, 1000.0, &g->arrive_radius, err) &&
           opt_float(s, m, path, "lookahead", 0.01, 1000.0, &g->lookahead, err) &&
           opt_float(s, m, path, "radius", 0.01, 1000.0, &g->radius, err);
}

static bool parse_wall(th_scene *s, th_goal_def *g, const th_ynode *m, const char *path,
                       th_error *err) {
    static const char *const keys[] = {"hand", "radius", NULL};
    if (!th_scene_known_keys(s, m, path, keys, err)) return false;
    g->kind = TH_GOAL_WALL_FOLLOW;
    return opt_hand(s, m, path, false, &g->hand, err) &&
           opt_float(s, m, path, "radius", 0.01, 1000.0, &g->radius, err);
}

static bool parse_crumbs(th_scene *s, th_goal_def *g, const th_ynode *m, const char *path,
                         th_error *err) {
    static const char *const keys[] = {"target", "spacing", "trail", "radius", NULL};
    if (!th_scene_known_keys(s, m, path, keys, err)) return false;
    char sub[192], buf[64];
    snprintf(sub, sizeof sub, "%s.target", path);
    const th_ynode *v = th_ynode_get(m, "target");
    if (!v)
        return TH_SCENE_MISSING(s, m, sub, err,
                                "missing: the name of the target whose trail is walked");
    int32_t t = -1;
    for (uint32_t k = 0; v->kind == TH_Y_SCALAR && k < s->target_count; k++) {
        if (strlen(s->target[k].name) == v->len && memcmp(s->target[k].name, v->text, v->len) == 0)
            t = (int32_t)k;
    }
    if (t < 0)
        return FAIL(s, v, sub, err, "expected the name of a target, found %s",
                    th_scene_found(v, buf, sizeof buf));
    if (s->target[t].def.kind == TH_TARGET_SHELTER) {
        return FAIL(s, v, sub, err,
                    "target '%s' is the nearest shelter, which is no single point "
                    "and drops no trail; expected a point, path or agent target",
                    s->target[t].name);
    }
    g->kind = TH_GOAL_BREADCRUMBS;
    g->target = (th_target_id){(uint32_t)t + 1};
    if ((v = th_ynode_get(m, "trail"))) {
        uint64_t u;
        snprintf(sub, sizeof sub, "%s.trail", path);
        if (!th_scene_u64(s, v, sub, 1, TH_MAX_BREADCRUMBS, &u, err)) return false;
        g->trail = (uint32_t)u;
    }
    return opt_float(s, m, path, "spacing", 0.01, 1000.0, &g->spacing, err) &&
           opt_float(s, m, path, "radius", 0.01, 1000.0, &g->radius, err);
}

static bool parse_waypoints(th_scene *s, th_goal_def *g, const th_ynode *m, const char *path,
                            th_error *err) {
    static const char *const keys[] = {"nodes", "edges", "destination", "radius", NULL};
    if (!th_scene_known_keys(s, m, path, keys, err)) return false;
    char sub[192], item[224];
    snprintf(sub, sizeof sub, "%s.nodes", path);
    const th_ynode *v = th_ynode_get(m, "nodes");
    if (!v) return TH_SCENE_MISSING(s, m, sub, err, "missing: the graph's nodes, [[x, y], ...]");
    if (!th_scene_expect(s, v, TH_Y_SEQUENCE, sub, err)) return false;
    if (v->count == 0 || v->count > TH_MAX_WAYPOINT_NODES) {
        return FAIL(s, v, sub, err, "expected 1 to %d nodes, found %u", TH_MAX_WAYPOINT_NODES,
                    v->count);
    }
    const uint32_t n = v->count;
    th_vec2 *nodes = th_arena_alloc(&s->doc.arena, n * sizeof *nodes);
    if (!nodes) return TH_SCENE_NOMEM(s, v, sub, err, "out of memory");
    for (uint32_t i = 0; i < n; i++) {
        snprintf(item, sizeof item, "%s[%u]", sub, i);
        if (!th_scene_open_point(s, v->items[i], item, "node", &nodes[i], err)) return false;
    }
    g->kind = TH_GOAL_WAYPOINTS;
    g->nodes = nodes;
    g->node_count = n;
    g->edges = NULL;
    g->edge_count = 0;
    if ((v = th_ynode_get(m, "edges"))) {
        snprintf(sub, sizeof sub, "%s.edges", path);
        if (v->kind == TH_Y_SCALAR) {
            static const char *const words[] = {"auto", NULL};
            int w;
            if (!word(s, v, sub, words, &w, err)) return false;
        } else {
            if (!th_scene_expect(s, v, TH_Y_SEQUENCE, sub, err)) return false;
            if (v->count > n * n) {
                return FAIL(s, v, sub, err, "expected at most %u edges for %u nodes, found %u",
                            n * n, n, v->count);
            }
            /* An empty list is a graph without edges: only the destination's own node leads
             * there. */
            uint32_t *edges =
                th_arena_alloc(&s->doc.arena, (v->count ? v->count : 1) * 2 * sizeof *edges);
            if (!edges) return TH_SCENE_NOMEM(s, v, sub, err, "out of memory");
            for (uint32_t e = 0; e < v->count; e++) {
                snprintf(item, sizeof item, "%s[%u]", sub, e);
                double ab[2];
                if (th_scene_numbers(s, v->items[e], item, 2, 0.0, n - 1.0, ab, err) < 0)
                    return false;
                if (ab[0] != (double)(uint32_t)ab[0] || ab[1] != (double)(uint32_t)ab[1]) {
                    return FAIL(s, v->items[e], item, err,
                                "expected two node indices, found [%g, %g]", ab[0], ab[1]);
                }
                if (ab[0] == ab[1])
                    return FAIL(s, v->items[e], item, err,
                                "an edge joins two different nodes, found [%g, %g]", ab[0], ab[1]);
                edges[2 * e] = (uint32_t)ab[0];
                edges[2 * e + 1] = (uint32_t)ab[1];
            }
            g->edges = edges;
            g->edge_count = v->count;
        }
    }
    snprintf(sub, sizeof sub, "%s.destination", path);
    if (!(v = th_ynode_get(m, "destination")))
        return TH_SCENE_MISSING(s, m, sub, err, "missing: the index of the node to walk to");
    uint64_t d;
    if (!th_scene_u64(s, v, sub, 0, n - 1, &d, err)) return false;
    g->destination = (uint32_t)d;
    return opt_float(s, m, path, "radius", 0.01, 1000.0, &g->radius, err);
}

bool th_scene_parse_mover(th_scene *s, th_scene_crowd *cr, const th_ynode *goal, const char *path,
                          th_error *err) {
    static const char *const kinds[] = {"destinations",   "route",       "wander",
                                        "crash_and_turn", "wall_follow", "breadcrumbs",
                                        "waypoints",      NULL};
    uint32_t count = 0;
    for (int i = 0; kinds[i]; i++) count += th_ynode_get(goal, kinds[i]) != NULL;
    if (count != 1) {
        return FAIL(s, goal, path, err,
                    "expected exactly one of destinations, route, wander, "
                    "crash_and_turn, wall_follow, breadcrumbs or waypoints, found %u",
                    count);
    }
    if (!th_scene_known_keys(s, goal, path, k_movers, err)) return false;
    int which = 0;
    while (!th_ynode_get(goal, k_movers[which])) which++;
    const th_ynode *m = th_ynode_get(goal, k_movers[which]);
    char sub[160];
    snprintf(sub, sizeof sub, "%s.%s", path, k_movers[which]);
    if (which <= 1 && !s->has_map) {
        return FAIL(s, m, sub, err, "%s walks the terrain's cells: it needs a map",
                    k_movers[which]);
    }
    if (!th_scene_expect(s, m, TH_Y_MAPPING, sub, err)) return false;
    th_goal_def *g = &cr->def.goal;
    switch (which) {
    case 0: return parse_crash(s, g, m, sub, err);
    case 1: return parse_wall(s, g, m, sub, err);
    case 2: return parse_crumbs(s, g, m, sub, err);
    default: return parse_waypoints(s, g, m, sub, err);
    }
}
