/* Groups of walkers that keep together (group.h). */
#include <math.h>
#include <string.h>

#include "engine/alloc.h"
#include "engine/jobs.h"
#include "sim/behave/goal.h"
#include "sim/behave/group.h"
#include "sim/core/error.h"

#define DEFAULT_SPREAD_M 1.5f
#define GROUP_CHUNK      64u

void th_groups_free(th_world *w) {
    if (!w->groups) return;
    th_free(w->groups->group);
    th_free(w->groups->member);
    th_free(w->groups);
    w->groups = NULL;
}

/* The per-id arrays once the world has a group, for the agents added before. */
static bool create(th_world *w) {
    struct th_groups *g = th_calloc(1, sizeof *g);
    uint32_t *of = w->id_capacity ? th_calloc(w->id_capacity, sizeof *of) : NULL;
    float *pace = w->id_capacity ? th_calloc(w->id_capacity, sizeof *pace) : NULL;
    if (!g || (w->id_capacity && (!of || !pace))) {
        th_free(g);
        th_free(of);
        th_free(pace);
        return false;
    }
    w->groups = g;
    w->group_of_id = of;
    w->group_pace = pace;
    return true;
}

th_group_id th_world_add_group(th_world *w, const th_group_def *def, th_error *err) {
    const th_group_id none = {0};
    if (!w || !def || !def->members) {
        th_error_set(err, TH_ERR_INVALID, "null world, group or members");
        return none;
    }
    if (w->stepping) {
        th_error_set(err, TH_ERR_STATE, "groups are added between steps");
        return none;
    }
    if (w->dist) {
        th_error_set(err, TH_ERR_STATE, "groups are not supported over several MPI ranks");
        return none;
    }
    if (def->count < 2 || def->count > TH_MAX_GROUP_SIZE) {
        th_error_set(err, TH_ERR_INVALID, "a group has 2 to %d members, got %u", TH_MAX_GROUP_SIZE,
                     def->count);
        return none;
    }
    const float spread = def->spread == 0.0f ? DEFAULT_SPREAD_M : def->spread;
    if (!(isfinite(spread) && spread > 0.0f && spread <= 50.0f)) {
        th_error_set(err, TH_ERR_INVALID, "a group's spread must be in (0, 50] metres, got %g",
                     (double)def->spread);
        return none;
    }
    const th_agents *a = &w->buf[w->cur];
    for (uint32_t i = 0; i < def->count; i++) {
        const th_agent_id id = def->members[i];
        const uint32_t k = th_agent_index(w, id);
        if (k == UINT32_MAX) {
            th_error_set(err, TH_ERR_HANDLE, "group member %u: no agent %u (generation %u)", i,
                         id.index1, id.generation);
            return none;
        }
        if (!w->crowd_rt[a->crowd[k]].ped) {
            th_error_set(err, TH_ERR_INVALID,
                         "group member %u is of crowd '%s': groups are of pedestrian crowds", i,
                         w->crowd_name[a->crowd[k]]);
            return none;
        }
        if (w->groups && w->group_of_id[th_id_slot(id)]) {
            th_error_set(err, TH_ERR_INVALID, "group member %u (agent %u) is already in group %u",
                         i, id.index1, w->group_of_id[th_id_slot(id)] - 1u);
            return none;
        }
        for (uint32_t j = 0; j < i; j++) {
            if (def->members[j].index1 == id.index1) {
                th_error_set(err, TH_ERR_INVALID, "group member %u repeats member %u", i, j);
                return none;
            }
        }
    }
    if (!w->groups && !create(w)) {
        th_error_set(err, TH_ERR_NOMEM, "out of memory");
        return none;
    }
    struct th_groups *g = w->groups;
    if (g->count >= UINT32_MAX - 1u ||
        !th_array_reserve((void **)&g->group, sizeof *g->group, g->count, &g->cap, g->count + 1, 16,
                          UINT32_MAX - 1u) ||
        !th_array_reserve((void **)&g->member, sizeof *g->member, g->member_count, &g->member_cap,
                          g->member_count + def->count, 64, UINT32_MAX)) {
        th_error_set(err, TH_ERR_NOMEM, "out of memory");
        return none;
    }
    const uint32_t index = g->count++;
    g->group[index] = (th_group){g->member_count, def->count, spread, 0.0f, 0};
    memcpy(&g->member[g->member_count], def->members, def->count * sizeof *def->members);
    g->member_count += def->count;
    for (uint32_t i = 0; i < def->count; i++) {
        const uint32_t slot = th_id_slot(def->members[i]);
        w->group_of_id[slot] = index + 1u;
        w->group_pace[slot] = 1.0f;
    }
    return (th_group_id){index + 1u};
}

uint32_t th_world_group_count(const th_world *w) { return w && w->groups ? w->groups->count : 0; }

bool th_world_get_group(const th_world *w, th_group_id group, th_group_info *out) {
    if (!w || !out || !w->groups || group.index1 == 0 || group.index1 > w->groups->count)
        return false;
    const th_group *gr = &w->groups->group[group.index1 - 1u];
    uint32_t present = 0; /* now, not as of the last step's grid part */
    for (uint32_t i = 0; i < gr->count; i++)
        present += th_agent_index(w, w->groups->member[gr->first + i]) != UINT32_MAX;
    *out = (th_group_info){gr->count, present, gr->stretch, gr->waiting};
    return true;
}

/* One group's paces. */
static void update_group(th_world *w, th_group *gr) {
    const th_agents *a = &w->buf[w->cur];
    const th_agent_id *ids = &w->groups->member[gr->first];
    float along[TH_MAX_GROUP_SIZE];
    uint32_t at[TH_MAX_GROUP_SIZE], n = 0;
    bool fields = true;
    const uint32_t *field = NULL;
    th_vec2 heading = th_v2(0.0f, 0.0f);
    for (uint32_t i = 0; i < gr->count; i++) {
        const uint32_t k = th_agent_index(w, ids[i]);
        if (k == UINT32_MAX) continue; /* left the world */
        const uint32_t slot = th_id_slot(ids[i]);
        w->group_pace[slot] = 1.0f;
        /* Who cannot walk on holds nobody back, nor does one in an elevator's car. */
        if ((w->hazard && w->hazard_state[slot].down_step) || (w->lifts && w->lift_of_id[slot]))
            continue;
        const th_crowd_rt *c = &w->crowd_rt[a->crowd[k]];
        /* Route costs compare only on one field: members bound for different exits are
         * measured along the heading instead. */
        const uint32_t *f = th_goal_agent_cost_field(w, c, slot, th_v2(a->px[k], a->py[k]));
        if (n == 0) field = f;
        if (!f || f != field ||
            !th_field_metres(&w->nav.map, f, th_v2(a->px[k], a->py[k]), &along[n]))
            fields = false;
        heading = th_v2_add(heading, th_v2(a->vx[k], a->vy[k]));
        at[n++] = k;
    }
    gr->waiting = 0;
    gr->stretch = 0.0f;
    if (n < 2) return;
    if (!fields) {
        /* No route cost for someone: how far back each is along the group's mean heading. */
        if (th_v2_len2(heading) < 1e-6f) return; /* standing: nobody is ahead */
        const th_vec2 u = th_v2_norm(heading);
        for (uint32_t i = 0; i < n; i++) along[i] = -(a->px[at[i]] * u.x + a->py[at[i]] * u.y);
    }
    float rear = along[0], front = along[0];
    for (uint32_t i = 1; i < n; i++) {
        rear = along[i] > rear ? along[i] : rear;
        front = along[i] < front ? along[i] : front;
    }
    gr->stretch = rear - front;
    for (uint32_t i = 0; i < n; i++) {
        const float ahead = rear - along[i];
        float pace = (2.0f * gr->spread - ahead) / gr->spread;
        pace = pace > 1.0f ? 1.0f : (pace < 0.0f ? 0.0f : pace);
        w->group_pace[th_id_slot(a->id[at[i]])] = pace;
        gr->waiting += pace < 1.0f;
    }
}

static void groups_job(void *ctx, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    th_world *w = ctx;
    for (uint32_t i = begin; i < end; i++) update_group(w, &w->groups->group[i]);
}

void th_groups_update(th_world *w) {
    if (!w->groups || !w->groups->count) return;
    th_pool_parallel_for(w->pool, w->groups->count, GROUP_CHUNK, groups_job, w);
}
