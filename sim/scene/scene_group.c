/* The scene's `groups` section: walkers that keep together (throng.h "groups", docs/goals.md).
 *
 *     groups:
 *       - members: [[family, 0], [family, 1], [grandad, 0]]   # crowd, index among its agents
 *         spread: 1.5
 *       - crowd: visitors        # every agent of the crowd, in groups of neighbours
 *         size: [2, 5]           # sizes drawn uniformly from 2 to 5 (default)
 *
 * A crowd's agents are numbered as `targets` number them: the hand-placed ones (`agents`)
 * first, then the spawned ones. Everything checkable before the world exists is checked here,
 * at its line and column; an index beyond the crowd's agents (its count can change on the
 * command line) is reported when the groups are built. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/alloc.h"
#include "engine/arena.h"
#include "engine/rng.h"
#include "sim/scene/scene_internal.h"

#define FAIL(s, n, path, err, ...) th_scene_fail((s), (n), (path), (err), __VA_ARGS__)

/* Keys the sizes of a crowd's groups apart from the scene's other draws. */
#define GROUP_SIZE_KEY 0x67726f7570736973ull /* "groupsis" */

static bool parse_members(th_scene *s, const th_ynode *v, const char *path, th_scene_group *g,
                          th_error *err) {
    if (!th_scene_expect(s, v, TH_Y_SEQUENCE, path, err)) return false;
    if (v->count < 2 || v->count > TH_MAX_GROUP_SIZE)
        return FAIL(s, v, path, err, "expected 2 to %d members, found %u", TH_MAX_GROUP_SIZE,
                    v->count);
    g->member = th_arena_alloc(&s->doc.arena, 2 * v->count * sizeof *g->member);
    if (!g->member) return TH_SCENE_NOMEM(s, v, path, err, "out of memory");
    char sub[160], buf[64];
    for (uint32_t i = 0; i < v->count; i++) {
        const th_ynode *m = v->items[i];
        snprintf(sub, sizeof sub, "%s[%u]", path, i);
        if (m->kind != TH_Y_SEQUENCE || m->count != 2)
            return FAIL(s, m, sub, err, "expected [crowd, index], found %s",
                        th_scene_found(m, buf, sizeof buf));
        const int c = th_scene_find_crowd(s, m->items[0]);
        if (c < 0)
            return FAIL(s, m->items[0], sub, err, "expected the name of a crowd, found %s",
                        th_scene_found(m->items[0], buf, sizeof buf));
        if (s->crowd[c].def.model != TH_MODEL_PEDESTRIAN)
            return FAIL(s, m->items[0], sub, err,
                        "crowd '%s' is not of the pedestrian model: groups walk as pedestrians",
                        s->crowd[c].name);
        uint64_t idx;
        if (!th_scene_u64(s, m->items[1], sub, 0, TH_MAX_AGENTS - 1, &idx, err)) return false;
        for (uint32_t j = 0; j < i; j++) {
            if (g->member[2 * j] == (uint32_t)c && g->member[2 * j + 1] == (uint32_t)idx)
                return FAIL(s, m, sub, err, "agent %llu of crowd '%s' is listed twice",
                            (unsigned long long)idx, s->crowd[c].name);
        }
        g->member[2 * i] = (uint32_t)c;
        g->member[2 * i + 1] = (uint32_t)idx;
    }
    g->count = v->count;
    return true;
}

bool th_scene_parse_groups(th_scene *s, const th_ynode *n, th_error *err) {
    if (!th_scene_expect(s, n, TH_Y_SEQUENCE, "groups", err)) return false;
    s->group = th_arena_alloc(&s->doc.arena, (n->count ? n->count : 1) * sizeof *s->group);
    if (!s->group) return TH_SCENE_NOMEM(s, n, "groups", err, "out of memory");
    static const char *const keys[] = {"members", "crowd", "size", "spread", NULL};
    for (uint32_t i = 0; i < n->count; i++) {
        const th_ynode *e = n->items[i], *v;
        char path[64], sub[96], buf[64];
        snprintf(path, sizeof path, "groups[%u]", i);
        if (!th_scene_expect(s, e, TH_Y_MAPPING, path, err) ||
            !th_scene_known_keys(s, e, path, keys, err))
            return false;
        th_scene_group *g = &s->group[i];
        *g = (th_scene_group){.node = e, .crowd = -1, .size_lo = 2, .size_hi = 5};
        const th_ynode *members = th_ynode_get(e, "members"), *crowd = th_ynode_get(e, "crowd");
        if (!members == !crowd) {
            return members ? FAIL(s, crowd, path, err,
                                  "expected `members` (listed) or `crowd` (all of one crowd), "
                                  "found both")
                           : TH_SCENE_MISSING(s, e, path, err,
                                              "missing: expected `members: [[crowd, index], "
                                              "...]` or `crowd: NAME`");
        }
        if (members) {
            snprintf(sub, sizeof sub, "%s.members", path);
            if (!parse_members(s, members, sub, g, err)) return false;
            if ((v = th_ynode_get(e, "size"))) {
                snprintf(sub, sizeof sub, "%s.size", path);
                return FAIL(s, v, sub, err,
                            "`size` goes with `crowd`; a listed group's size is "
                            "its members'");
            }
        } else {
            snprintf(sub, sizeof sub, "%s.crowd", path);
            g->crowd = th_scene_find_crowd(s, crowd);
            if (g->crowd < 0)
                return FAIL(s, crowd, sub, err, "expected the name of a crowd, found %s",
                            th_scene_found(crowd, buf, sizeof buf));
            if (s->crowd[g->crowd].def.model != TH_MODEL_PEDESTRIAN)
                return FAIL(s, crowd, sub, err,
                            "crowd '%s' is not of the pedestrian model: groups walk as "
                            "pedestrians",
                            s->crowd[g->crowd].name);
            for (uint32_t j = 0; j < i; j++) {
                if (s->group[j].crowd == g->crowd)
                    return FAIL(s, crowd, sub, err,
                                "crowd '%s' is grouped twice (first at line %u)",
                                s->crowd[g->crowd].name, s->group[j].node->line);
            }
            if ((v = th_ynode_get(e, "size"))) {
                double d[2];
                snprintf(sub, sizeof sub, "%s.size", path);
                if (th_scene_numbers(s, v, sub, 2, 2, TH_MAX_GROUP_SIZE, d, err) < 0) return false;
                if (d[0] != floor(d[0]) || d[1] != floor(d[1]) || d[0] > d[1])
                    return FAIL(s, v, sub, err,
                                "expected [least, most], whole numbers with least <= most, found "
                                "[%g, %g]",
                                d[0], d[1]);
                g->size_lo = (uint32_t)d[0];
                g->size_hi = (uint32_t)d[1];
            }
        }
        if ((v = th_ynode_get(e, "spread"))) {
            double d;
            snprintf(sub, sizeof sub, "%s.spread", path);
            if (!th_scene_float(s, v, sub, 0.01, 50.0, &d, err)) return false;
            g->spread = (float)d;
        }
        s->group_count++;
    }
    return true;
}

/* A whole crowd in groups of neighbours: in id order, each agent not yet grouped starts a group
 * of a drawn size and takes the nearest ungrouped agents of its crowd. */
static bool group_crowd(th_world *w, const th_scene *s, const th_scene_group *g, uint64_t first,
                        uint64_t n, const char *path, th_error *err) {
    if (n > 20000) {
        return th_scene_fail(s, g->node, path, err,
                             "crowd '%s' has %llu agents; whole-crowd groups take at most 20000",
                             s->crowd[g->crowd].name, (unsigned long long)n);
    }
    th_vec2 *p = th_alloc((n ? n : 1) * sizeof *p);
    bool *taken = th_calloc(n ? n : 1, sizeof *taken);
    bool ok = p && taken;
    if (!ok) th_scene_fail_code(s, g->node, path, err, TH_ERR_NOMEM, "out of memory");
    for (uint64_t i = 0; ok && i < n; i++) {
        th_agent_state a;
        ok = th_world_get_agent(w, (th_agent_id){(uint32_t)(first + i) + 1u, 1u}, &a);
        p[i] = a.position;
    }
    uint64_t drawn = 0;
    for (uint64_t i = 0; ok && i < n; i++) {
        if (taken[i]) continue;
        const uint32_t span = g->size_hi - g->size_lo + 1u;
        uint32_t size =
            g->size_lo + (uint32_t)(th_rng_u64(th_world_get_def(w).seed,
                                               GROUP_SIZE_KEY ^ (uint64_t)g->crowd, drawn++) %
                                    span);
        th_agent_id ids[TH_MAX_GROUP_SIZE];
        uint32_t m = 0;
        ids[m++] = (th_agent_id){(uint32_t)(first + i) + 1u, 1u};
        taken[i] = true;
        while (m < size) {
            uint64_t best = n;
            float best_d = INFINITY;
            for (uint64_t j = i + 1; j < n; j++) {
                if (taken[j]) continue;
                const float d = th_v2_len2(th_v2_sub(p[j], p[i]));
                if (d < best_d) best_d = d, best = j;
            }
            if (best == n) break;
            taken[best] = true;
            ids[m++] = (th_agent_id){(uint32_t)(first + best) + 1u, 1u};
        }
        if (m < 2) break; /* the last agent alone walks alone */
        const th_group_def def = {ids, m, g->spread};
        if (!th_world_add_group(w, &def, err).index1) ok = th_scene_refused(s, g->node, path, err);
    }
    th_free(p);
    th_free(taken);
    return ok;
}

bool th_scene_build_groups(th_world *w, const th_scene *s, const uint64_t *first_id,
                           const uint64_t *n, th_error *err) {
    char path[64];
    for (uint32_t i = 0; i < s->group_count; i++) {
        const th_scene_group *g = &s->group[i];
        snprintf(path, sizeof path, "groups[%u]", i);
        if (g->crowd >= 0) {
            if (!group_crowd(w, s, g, first_id[g->crowd], n[g->crowd], path, err)) return false;
            continue;
        }
        th_agent_id ids[TH_MAX_GROUP_SIZE];
        for (uint32_t k = 0; k < g->count; k++) {
            const uint32_t c = g->member[2 * k], idx = g->member[2 * k + 1];
            if (idx >= n[c]) {
                char sub[96];
                snprintf(sub, sizeof sub, "%s.members[%u]", path, k);
                return th_scene_fail(s, th_ynode_get(g->node, "members")->items[k], sub, err,
                                     "crowd '%s' has %llu agents, so there is no agent %u",
                                     s->crowd[c].name, (unsigned long long)n[c], idx);
            }
            ids[k] = (th_agent_id){(uint32_t)(first_id[c] + idx) + 1u, 1u};
        }
        const th_group_def def = {ids, g->count, g->spread};
        if (!th_world_add_group(w, &def, err).index1)
            return th_scene_refused(s, g->node, path, err);
    }
    return true;
}
