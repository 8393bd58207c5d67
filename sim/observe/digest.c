/* The digest of how a world was built (sim/observe/digest.h): one hash per part of
 * TH_DIGEST_PART_LIST, each by the function of the same name below. Values are hashed field by
 * field (floats by their bits), never as structs, so padding and pointers never enter it: two
 * worlds built alike digest alike on any rank. */
#include "sim/observe/digest.h"

#include <string.h>

#include "engine/hash.h"
#include "sim/behave/elevator.h"
#include "sim/behave/forage.h"
#include "sim/behave/group.h"
#include "sim/behave/own_plan.h"
#include "sim/behave/squad.h"
#include "sim/core/crowd_params.h"
#include "sim/scenario/flow.h"
#include "sim/scenario/hazard.h"

static void hash_text(th_hasher *h, const char *s) {
    const size_t n = s ? strlen(s) : 0;
    th_hash_u64(h, n);
    for (size_t i = 0; i < n; i++) th_hash_u32(h, (unsigned char)s[i]);
}

static void hash_vec(th_hasher *h, th_vec2 v) {
    th_hash_f32(h, v.x);
    th_hash_f32(h, v.y);
}

static void hash_distribution(th_hasher *h, const th_distribution *d) {
    th_hash_u32(h, (uint32_t)d->kind);
    th_hash_f32(h, d->a);
    th_hash_f32(h, d->b);
    th_hash_f32(h, d->min);
    th_hash_f32(h, d->max);
}

static void hash_forage(th_hasher *h, const th_forage_def *f) {
    hash_vec(h, f->nest);
    th_hash_f32(h, f->nest_radius);
    th_hash_u32(h, f->food_count);
    for (uint32_t i = 0; f->food && i < f->food_count; i++) {
        hash_vec(h, f->food[i].at);
        th_hash_f32(h, f->food[i].radius);
        th_hash_u32(h, f->food[i].amount);
    }
    th_hash_f32(h, f->cell_size);
    th_hash_f32(h, f->deposit);
    th_hash_f32(h, f->evaporation);
    th_hash_f32(h, f->follow);
    th_hash_f32(h, f->sense_angle);
    th_hash_f32(h, f->sense_distance);
    th_hash_f32(h, f->turn_rate);
    th_hash_f32(h, f->sensitivity);
}

static void hash_goal(th_hasher *h, const th_goal_def *g) {
    th_hash_u32(h, (uint32_t)g->kind);
    th_hash_u32(h, g->field.index1);
    th_hash_u32(h, g->point_count);
    for (uint32_t i = 0; g->points && i < g->point_count; i++) hash_vec(h, g->points[i]);
    th_hash_u32(h, (uint32_t)g->mode);
    th_hash_f32(h, g->radius);
    th_hash_f32(h, g->wander_rate);
    th_hash_f32(h, g->congestion_weight);
    th_hash_u32(h, g->congestion_every);
    hash_vec(h, g->heading);
    th_hash_u32(h, g->use_point);
    hash_vec(h, g->point);
    th_hash_f32(h, g->arrive_radius);
    th_hash_u32(h, (uint32_t)g->hand);
    th_hash_f32(h, g->lookahead);
    th_hash_u32(h, g->target.index1);
    th_hash_f32(h, g->spacing);
    th_hash_u32(h, g->trail);
    th_hash_u32(h, g->node_count);
    for (uint32_t i = 0; g->nodes && i < g->node_count; i++) hash_vec(h, g->nodes[i]);
    th_hash_u32(h, g->edge_count);
    th_hash_u32(h, g->edges != NULL);
    for (uint32_t i = 0; g->edges && i < 2 * g->edge_count; i++) th_hash_u32(h, g->edges[i]);
    th_hash_u32(h, g->destination);
    th_hash_u32(h, g->forage != NULL);
    if (g->forage) hash_forage(h, g->forage);
}

static uint64_t crowds_part(const th_world *w) {
    th_hasher h = th_hash_begin();
    th_hash_u32(&h, w->crowd_count);
    for (uint32_t c = 0; c < w->crowd_count; c++) {
        const th_crowd_def *d = &w->crowd_def[c];
        hash_text(&h, w->crowd_name[c]);
        th_hash_u32(&h, (uint32_t)d->behavior);
        th_hash_u32(&h, (uint32_t)d->model);
#define TH_DIGEST_PARAM(key, field, lo, lo_open, hi, hi_open, boids, ped, note, unit, model, doc) \
    th_hash_f32(&h, d->field);
        TH_CROWD_PARAMS(TH_DIGEST_PARAM)
#undef TH_DIGEST_PARAM
        th_hash_u32(&h, d->color);
        th_hash_u32(&h, d->type);
        th_hash_u32(&h, d->target.index1);
        th_hash_u32(&h, (uint32_t)d->pursuit);
        th_hash_u32(&h, d->flee_types);
        hash_vec(&h, d->heading);
        hash_distribution(&h, &d->free_speed);
        hash_goal(&h, &d->goal);
    }
    /* The food the colonies hold, and their pheromone (a host may have laid some). */
    if (w->colonies) th_forage_hash(w, &h);
    return th_hash_end(&h);
}

static uint64_t world_part(const th_world *w) {
    th_hasher h = th_hash_begin();
    th_hash_f32(&h, w->def.width);
    th_hash_f32(&h, w->def.height);
    th_hash_u32(&h, (uint32_t)w->def.bounds);
    th_hash_f32(&h, w->def.timestep);
    th_hash_f32(&h, w->def.cell_size);
    th_hash_f32(&h, w->stall_time);
    th_hash_u64(&h, w->step);
    return th_hash_end(&h);
}

static uint64_t map_part(const th_world *w) {
    th_hasher h = th_hash_begin();
    const th_navmap *m = &w->nav.map;
    th_hash_u32(&h, w->nav.present);
    if (w->nav.present) {
        th_hash_u32(&h, (uint32_t)m->w);
        th_hash_u32(&h, (uint32_t)m->h);
        th_hash_f32(&h, m->cell_size);
        for (uint32_t i = 0; i < m->ncells; i++) {
            th_hash_u32(&h, (uint32_t)m->cost[i] << 8 | m->flags[i]);
            if (w->nav.speed) th_hash_f32(&h, w->nav.speed[i]);
        }
    }
    return th_hash_end(&h);
}

static uint64_t targets_part(const th_world *w) {
    th_hasher h = th_hash_begin();
    th_hash_u32(&h, w->target_count);
    for (uint32_t t = 0; t < w->target_count; t++) {
        const th_target_def *d = &w->target_def[t];
        th_hash_u32(&h, (uint32_t)d->kind);
        hash_vec(&h, d->position);
        hash_vec(&h, d->velocity);
        th_hash_u32(&h, d->point_count);
        for (uint32_t i = 0; w->target_points[t] && i < d->point_count; i++)
            hash_vec(&h, w->target_points[t][i]);
        th_hash_f32(&h, d->speed);
        th_hash_u32(&h, d->loop);
        th_hash_u64(&h, (uint64_t)d->agent.index1 << 32 | d->agent.generation);
    }
    return th_hash_end(&h);
}

static uint64_t bunkers_part(const th_world *w) {
    th_hasher h = th_hash_begin();
    th_hash_u32(&h, w->nav.bunker_count);
    for (uint32_t b = 0; b < w->nav.bunker_count; b++) {
        const th_bunker *k = &w->nav.bunker[b];
        hash_text(&h, k->name);
        th_hash_u32(&h, (uint32_t)k->x0);
        th_hash_u32(&h, (uint32_t)k->y0);
        th_hash_u32(&h, (uint32_t)k->x1);
        th_hash_u32(&h, (uint32_t)k->y1);
        th_hash_u32(&h, k->capacity);
        th_hash_u32(&h, k->sheltered);
        th_hash_u32(&h, (uint32_t)k->destroyed | (uint32_t)k->full << 1 | (uint32_t)k->exit << 2);
        if (k->limit.rate > 0.0f) { /* as for exits (sim/scenario/flow.c) */
            th_hash_f32(&h, k->limit.rate);
            th_hash_f64(&h, k->limit.credit);
            th_hash_u64(&h, k->limit.step);
        }
    }
    return th_hash_end(&h);
}

static uint64_t destinations_part(const th_world *w) {
    th_hasher h = th_hash_begin();
    th_hash_u32(&h, w->nav.dest_count);
    for (uint32_t f = 0; f < w->nav.dest_count; f++) {
        const th_nav_field *d = &w->nav.dest[f];
        th_hash_u32(&h, d->goal_count);
        for (uint32_t i = 0; i < d->goal_count; i++) {
            th_hash_u32(&h, (uint32_t)d->goals[i].x);
            th_hash_u32(&h, (uint32_t)d->goals[i].y);
            th_hash_u32(&h, d->goals[i].weight);
        }
    }
    return th_hash_end(&h);
}

static uint64_t events_part(const th_world *w) {
    th_hasher h = th_hash_begin();
    th_hash_u32(&h, w->nav.event_count);
    th_hash_u64(&h, w->nav.event_seq);
    /* The heap's layout follows from the calls that filled it: the same calls, the same
     * array. */
    for (uint32_t i = 0; i < w->nav.event_count; i++) {
        const th_event *e = &w->nav.events[i];
        th_hash_u64(&h, e->step);
        th_hash_u64(&h, e->seq);
        th_hash_u32(&h, (uint32_t)e->def.type);
        th_hash_u32(&h, e->def.bunker.index1);
        th_hash_u32(&h, (uint32_t)e->def.x0);
        th_hash_u32(&h, (uint32_t)e->def.y0);
        th_hash_u32(&h, (uint32_t)e->def.x1);
        th_hash_u32(&h, (uint32_t)e->def.y1);
        th_hash_u32(&h, e->def.cost);
        th_hash_u32(&h, e->crowd.index1); /* a crowd change's crowd and values */
        th_hash_u64(&h, th_crowd_tune_hash(&e->tune));
    }
    /* Changes already made, in the crowds' steering values. */
    for (uint32_t c = 0; c < w->crowd_count; c++) {
        th_hash_u32(&h, w->crowd_changes[c]);
        th_hash_u64(&h, w->crowd_changed[c]);
    }
    return th_hash_end(&h);
}

static uint64_t measure_part(const th_world *w) {
    th_hasher h = th_hash_begin();
    const uint32_t areas = th_world_measure_area_count(w), lines = th_world_measure_line_count(w);
    th_hash_u32(&h, areas);
    for (uint32_t i = 0; i < areas; i++) {
        th_measure_area_info a;
        if (!th_world_get_measure_area(w, (th_measure_area_id){i + 1}, &a)) continue;
        hash_text(&h, a.name);
        th_hash_f32(&h, a.x0);
        th_hash_f32(&h, a.y0);
        th_hash_f32(&h, a.x1);
        th_hash_f32(&h, a.y1);
        th_hash_u32(&h, (uint32_t)a.lanes.axis);
        th_hash_f32(&h, a.lanes.width);
        th_hash_f32(&h, a.lanes.length);
        th_hash_f32(&h, a.lanes.min_speed);
    }
    th_hash_u32(&h, lines);
    for (uint32_t i = 0; i < lines; i++) {
        th_measure_line_info l;
        if (!th_world_get_measure_line(w, (th_measure_line_id){i + 1}, &l)) continue;
        hash_text(&h, l.name);
        hash_vec(&h, l.a);
        hash_vec(&h, l.b);
        th_hash_u32(&h, l.window_steps);
    }
    return th_hash_end(&h);
}

static uint64_t squads_part(const th_world *w) {
    th_hasher h = th_hash_begin();
    th_hash_u32(&h, w->squad_count);
    for (uint32_t s = 0; s < w->squad_count; s++) {
        const th_squad *q = w->squad[s];
        const th_squad_def *d = &q->def;
        th_hash_u32(&h, d->crowd.index1);
        th_hash_u32(&h, d->count);
        th_hash_u32(&h, (uint32_t)d->formation);
        th_hash_u32(&h, d->files);
        th_hash_f32(&h, d->spacing);
        hash_vec(&h, d->start);
        hash_vec(&h, d->goal);
        th_hash_f32(&h, d->speed);
        th_hash_f32(&h, d->tolerance);
        th_hash_f32(&h, d->slot_weight);
        th_hash_u32(&h, q->member_count);
        for (uint32_t i = 0; i < q->member_count; i++)
            th_hash_u64(&h, (uint64_t)q->member[i].index1 << 32 | q->member[i].generation);
    }
    return th_hash_end(&h);
}

/* What every rank holds of the agents: the arguments of each call that added or removed one
 * (agent_call_hash: every rank makes them all, and only the owner stores the agent), the
 * counts and the id table. */
static uint64_t agents_part(const th_world *w) {
    th_hasher h = th_hash_begin();
    th_hash_u64(&h, w->agent_call_hash);
    th_hash_u32(&h, w->spawned);
    th_hash_u32(&h, w->dist ? w->total : w->count);
    th_hash_u32(&h, w->stats.sheltered);
    th_hash_u32(&h, w->stats.removed);
    th_hash_u32(&h, w->stats.exited);
    th_hash_u32(&h, w->id_top);
    th_hash_u32(&h, w->id_free_count);
    for (uint32_t i = 0; i < w->id_free_count; i++) th_hash_u32(&h, w->id_free[i]);
    for (uint32_t s = 0; s < w->id_top; s++) {
        th_hash_u32(&h, w->id_gen[s]);
        th_hash_f32(&h, w->desired_speed[s]);
    }
    return th_hash_end(&h);
}

static uint64_t seed_part(const th_world *w) {
    th_hasher h = th_hash_begin();
    th_hash_u64(&h, w->def.seed);
    return th_hash_end(&h);
}

static uint64_t spawners_part(const th_world *w) {
    th_hasher sp = th_hash_begin(), ex = th_hash_begin();
    if (w->flow) th_flow_digest(w, &sp, &ex);
    return th_hash_end(&sp);
}

static uint64_t exits_part(const th_world *w) {
    th_hasher sp = th_hash_begin(), ex = th_hash_begin();
    if (w->flow) th_flow_digest(w, &sp, &ex);
    return th_hash_end(&ex);
}

static void hash_rect(th_hasher *h, int32_t x0, int32_t y0, int32_t x1, int32_t y1) {
    th_hash_u32(h, (uint32_t)x0);
    th_hash_u32(h, (uint32_t)y0);
    th_hash_u32(h, (uint32_t)x1);
    th_hash_u32(h, (uint32_t)y1);
}

static uint64_t levels_part(const th_world *w) {
    th_hasher h = th_hash_begin();
    th_hash_u32(&h, w->nav.level_count);
    for (uint32_t i = 0; i < w->nav.level_count; i++) {
        const th_level *l = &w->nav.level[i];
        hash_text(&h, l->name);
        hash_rect(&h, l->x0, l->y0, l->x1, l->y1);
        th_hash_f32(&h, l->elevation);
    }
    return th_hash_end(&h);
}

static uint64_t stairs_part(const th_world *w) {
    th_hasher h = th_hash_begin();
    th_hash_u32(&h, w->nav.stair_count);
    for (uint32_t i = 0; i < w->nav.stair_count; i++) {
        const th_stair *s = &w->nav.stair[i];
        hash_text(&h, s->name);
        th_hash_u32(&h, s->lower);
        th_hash_u32(&h, s->upper);
        hash_rect(&h, s->x0, s->y0, s->x1, s->y1);
        th_hash_u32(&h, s->up);
        th_hash_u32(&h, (uint32_t)s->top_x);
        th_hash_u32(&h, (uint32_t)s->top_y);
        th_hash_f32(&h, s->plan_length);
        th_hash_f32(&h, s->rise);
        th_hash_f32(&h, s->length);
        th_hash_f32(&h, s->up_factor);
        th_hash_f32(&h, s->down_factor);
    }
    return th_hash_end(&h);
}

static uint64_t pre_movement_part(const th_world *w) {
    th_hasher h = th_hash_begin();
    th_hash_u32(&h, w->crowd_count);
    for (uint32_t c = 0; c < w->crowd_count; c++)
        hash_distribution(&h, &w->crowd_def[c].pre_movement);
    return th_hash_end(&h);
}

static uint64_t exit_choice_part(const th_world *w) {
    th_hasher h = th_hash_begin();
    th_hash_u32(&h, w->exit_choice_wanted);
    for (uint32_t c = 0; c < w->crowd_count; c++) {
        const struct th_exit_store *st = &w->exit_store[c];
        th_hash_u32(&h, (uint32_t)st->listed | (uint32_t)st->social_on << 1);
        th_hash_f32(&h, st->social);
        th_hash_f32(&h, st->social_r2);
        for (uint32_t b = 0; st->listed && b < TH_MAX_BUNKERS; b++) {
            th_hash_u32(&h, st->bunker[b].index1);
            th_hash_f32(&h, st->weight[b]);
            th_hash_f32(&h, st->share[b]);
        }
    }
    return th_hash_end(&h);
}

static uint64_t groups_part(const th_world *w) {
    th_hasher h = th_hash_begin();
    const struct th_groups *g = w->groups;
    th_hash_u32(&h, g ? g->count : 0);
    for (uint32_t i = 0; g && i < g->count; i++) {
        th_hash_u32(&h, g->group[i].first);
        th_hash_u32(&h, g->group[i].count);
        th_hash_f32(&h, g->group[i].spread);
    }
    th_hash_u32(&h, g ? g->member_count : 0);
    for (uint32_t i = 0; g && i < g->member_count; i++)
        th_hash_u64(&h, (uint64_t)g->member[i].index1 << 32 | g->member[i].generation);
    return th_hash_end(&h);
}

/* Own goals: the arguments of every call that gave one (each rank makes them all, and only
 * the owner keeps the goal of a point), and the goal planning set. */
static uint64_t own_goals_part(const th_world *w) {
    th_hasher h = th_hash_begin();
    th_hash_u64(&h, w->own_call_hash);
    const struct th_own_planning *p = w->own_plan;
    th_hash_u32(&h, p ? p->def.budget : 0);
    th_hash_u32(&h, p ? p->def.cluster_size : 0);
    th_hash_u32(&h, p ? p->def.max_requests : 0);
    return th_hash_end(&h);
}

static uint64_t elevators_part(const th_world *w) {
    th_hasher h = th_hash_begin();
    const struct th_lifts *ls = w->lifts;
    th_hash_u32(&h, ls ? ls->count : 0);
    for (uint32_t e = 0; ls && e < ls->count; e++) {
        const th_lift *l = &ls->lift[e];
        hash_text(&h, l->name);
        th_hash_u32(&h, l->stops);
        for (uint32_t s = 0; s < l->stops; s++) {
            th_hash_u32(&h, l->stop[s].level);
            th_hash_u32(&h, (uint32_t)l->stop[s].x);
            th_hash_u32(&h, (uint32_t)l->stop[s].y);
        }
        th_hash_u32(&h, l->discharge);
        th_hash_u32(&h, l->capacity);
        th_hash_f32(&h, l->speed);
        th_hash_f32(&h, l->acceleration);
        th_hash_f32(&h, l->door_time);
        th_hash_f32(&h, l->dwell);
        th_hash_f32(&h, l->board_time);
        th_hash_f32(&h, l->radius);
        th_hash_u32(&h, (uint32_t)l->policy);
        th_hash_f32(&h, l->patience);
        /* Where the car stands at the start (the scene's `start`), and what it does. */
        th_hash_u32(&h, (uint32_t)l->state);
        th_hash_u32(&h, l->at);
        th_hash_u32(&h, l->to);
    }
    /* The crowds each serves. */
    for (uint32_t c = 0; c < w->crowd_count; c++) th_hash_u32(&h, w->crowd_rt[c].lift);
    return th_hash_end(&h);
}

static uint64_t hazards_part(const th_world *w) {
    th_hasher h = th_hash_begin();
    const struct th_hazards *z = w->hazard;
    th_hash_u32(&h, z ? z->count : 0);
    for (uint32_t i = 0; z && i < z->count; i++) {
        const th_hazard_area *a = &z->area[i];
        th_hash_u32(&h, a->keys);
        for (uint32_t k = a->key0; k < a->key0 + a->keys; k++) {
            const th_hazard_key *key = &z->key[k];
            th_hash_f32(&h, key->time);
            th_hash_f32(&h, key->air.extinction);
            th_hash_f32(&h, key->air.co);
            th_hash_f32(&h, key->air.co2);
            th_hash_f32(&h, key->air.o2);
            th_hash_f32(&h, key->air.hcn);
        }
    }
    /* Which hazard covers each cell: the rectangles as clipped to the map. */
    for (uint32_t i = 0; z && z->cell && w->nav.present && i < w->nav.map.ncells; i++)
        th_hash_u32(&h, z->cell[i]);
    return th_hash_end(&h);
}

void th_world_digest(const th_world *w, uint64_t out[TH_DIGEST_PARTS]) {
#define TH_DIGEST_FILL_(id, name, hash) out[TH_DIGEST_##id] = hash(w);
    TH_DIGEST_PART_LIST(TH_DIGEST_FILL_)
#undef TH_DIGEST_FILL_
}

const char *th_digest_part_name(uint32_t p) {
    static const char *const names[TH_DIGEST_PARTS] = {
#define TH_DIGEST_NAME_(id, name, hash) [TH_DIGEST_##id] = name,
        TH_DIGEST_PART_LIST(TH_DIGEST_NAME_)
#undef TH_DIGEST_NAME_
    };
    return p < TH_DIGEST_PARTS ? names[p] : "definition";
}
