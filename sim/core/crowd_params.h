/* The crowd's numeric parameters, described once. th_world_add_crowd validates them from this
 * table, the scene parser reads and range-checks each crowd key from it, and the crowd key
 * table of docs/scene-format.md is generated from it (tests/gen_crowd_params.c; a test fails
 * when the document drifts). th_default_crowd_def and th_default_pedestrian_def take their
 * values from it. The rules that tie keys together (desired_speed <= max_speed,
 * desired_speed_sd <= desired_speed, the crowd's reach against a wrap-around world) are here too,
 * once, for the API and the parser alike.
 *
 * X(key, field, lo, lo_open, hi, hi_open, boids, ped, note, unit, model, doc):
 *   key      the scene key
 *   field    the th_crowd_def member (every one a float)
 *   lo, hi   the bounds, inclusive unless lo_open / hi_open (then exclusive)
 *   boids    th_default_crowd_def()'s value; ped: th_default_pedestrian_def()'s
 *   note     when not NULL, what the default means (a 0 that defers to another key)
 *   unit     "m", "m/s", "m/s²", "deg", "s" or "" (a dimensionless weight)
 *   model    the models it drives: TH_PARAM_BOTH, TH_PARAM_BOIDS (a pedestrian crowd accepts and
 *            ignores it) or TH_PARAM_PED (ignored by the API for boids; refused by the parser
 *            on a boids crowd)
 *   doc      one line for the document
 * The order is the order the parser reads them, and so which of two bad keys it reports. */
#ifndef TH_CROWD_PARAMS_H
#define TH_CROWD_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "throng/throng.h"

typedef enum th_param_model {
    TH_PARAM_BOTH = 0,
    TH_PARAM_BOIDS = 1,
    TH_PARAM_PED = 2,
} th_param_model;

/* clang-format off */
#define TH_CROWD_PARAMS(X)                                                                         \
    X("neighbor_radius", neighbor_radius, 0, true, 1000, false, 4.0f, 2.0f, NULL, "m", TH_PARAM_BOTH,   \
      "alignment and cohesion look this far; pedestrians count the neighbours this close")        \
    X("separation_radius", separation_radius, 0, true, 1000, false, 1.5f, 0.5f, NULL, "m", TH_PARAM_BOIDS, \
      "agents of any crowd closer than this push apart")                                          \
    X("fov", fov_deg, 0, true, 360, false, 270.0f, 270.0f, NULL, "deg", TH_PARAM_BOIDS,            \
      "full view angle; agents behind it are not seen")                                           \
    X("separation_weight", separation_weight, 0, false, 1000, false, 1.5f, 1.5f, NULL, "", TH_PARAM_BOIDS, \
      "weight of the separation term")                                                             \
    X("alignment_weight", alignment_weight, 0, false, 1000, false, 1.0f, 1.0f, NULL, "", TH_PARAM_BOIDS, \
      "weight of the alignment term")                                                              \
    X("cohesion_weight", cohesion_weight, 0, false, 1000, false, 1.0f, 1.0f, NULL, "", TH_PARAM_BOIDS, \
      "weight of the cohesion term")                                                               \
    X("max_speed", max_speed, 0, true, TH_MAX_SPEED, false, 4.0f, 2.5f, NULL, "m/s", TH_PARAM_BOTH, \
      "top speed")                                                                                 \
    X("max_force", max_force, 0, true, 1.0e5, false, 8.0f, 8.0f, NULL, "m/s²", TH_PARAM_BOIDS,     \
      "bound on the steering acceleration")                                                        \
    X("flow_weight", flow_weight, 0, false, 1000, false, 2.0f, 2.0f, NULL, "", TH_PARAM_BOIDS,     \
      "weight of the goal's direction (the river map when fleeing)")                              \
    X("wall_radius", wall_radius, 0, false, 1000, false, 1.5f, 1.5f, NULL, "m", TH_PARAM_BOIDS,    \
      "walls closer than this push agents away")                                                   \
    X("wall_weight", wall_weight, 0, false, 1000, false, 1.0f, 1.0f, NULL, "", TH_PARAM_BOIDS,     \
      "weight of the wall push (none for `crash_and_turn` and `wall_follow`, docs/movers.md)")    \
    X("pursuit_weight", pursuit_weight, 0, false, 1000, false, 2.0f, 2.0f, NULL, "", TH_PARAM_BOIDS, \
      "weight of a leader's pursuit of the target")                                               \
    X("lead_fov", lead_fov_deg, 0, true, 180, false, 60.0f, 60.0f, NULL, "deg", TH_PARAM_BOIDS,    \
      "an agent with no same-type agent inside this front view leads")                            \
    X("lead_radius", lead_radius, 0, false, 1000, false, 0.0f, 0.0f, "`neighbor_radius` (0 means that)", \
      "m", TH_PARAM_BOIDS, "reach of the leader test")                                            \
    X("flee_radius", flee_radius, 0, true, 1000, false, 12.0f, 12.0f, NULL, "m", TH_PARAM_BOIDS,   \
      "predators (`flee_types`) closer than this are fled, seen all round")                       \
    X("flee_weight", flee_weight, 0, false, 1000, false, 3.0f, 3.0f, NULL, "", TH_PARAM_BOIDS,     \
      "weight of the flight from predators")                                                       \
    X("evade_horizon", evade_horizon, 0, false, 60, false, 0.0f, 0.0f, "0 (flee where they are)", "s", TH_PARAM_BOIDS, \
      "evade: flee where each predator will be, its velocity times distance / its speed ahead, at most this far") \
    X("body_radius", body_radius, 0, false, TH_MAX_BODY_RADIUS, false, 0.0f, 0.2f, NULL, "m", TH_PARAM_BOTH, \
      "agents are discs of this radius that do not overlap each other or walls; 0 = points")      \
    X("desired_speed", desired_speed, 0, true, TH_MAX_SPEED, false, 1.34f, 1.34f, NULL, "m/s", TH_PARAM_PED, \
      "mean free walking speed (Weidmann 1993), at most `max_speed`")                             \
    X("desired_speed_sd", desired_speed_sd, 0, false, TH_MAX_SPEED, false, 0.26f, 0.26f, NULL, "m/s", TH_PARAM_PED, \
      "spread of the free speeds (normal, clipped to mean +- 2 sd), at most `desired_speed`")     \
    X("time_gap", time_gap, 0.05, false, 10, false, 0.75f, 0.75f, NULL, "s", TH_PARAM_PED,           \
      "time gap kept to the body in one's way: speed = free run to it / time_gap (less gap behind one only partly in the way), when below the free speed") \
    X("relaxation", relaxation, 0, false, 10, false, 0.5f, 0.5f, NULL, "s", TH_PARAM_PED,          \
      "how fast a walker speeds up to its free speed (it slows down at once)")                    \
    X("repulsion", repulsion, 0, false, 1000, false, 5.0f, 5.0f, NULL, "", TH_PARAM_PED,           \
      "strength of the push away from neighbours")                                                 \
    X("repulsion_range", repulsion_range, 0.001, false, 10, false, 0.1f, 0.1f, NULL, "m", TH_PARAM_PED, \
      "the push decays as exp(-gap / range)")                                                      \
    X("wall_repulsion", wall_repulsion, 0, false, 1000, false, 5.0f, 5.0f, NULL, "", TH_PARAM_PED, \
      "strength of the push away from walls")                                                      \
    X("wall_repulsion_range", wall_repulsion_range, 0.001, false, 10, false, 0.005f, 0.005f, NULL, "m", TH_PARAM_PED, \
      "the wall push decays as exp(-gap / range)")                                                \
    X("anticipation", anticipation, 0, false, 10, false, 1.0f, 1.0f, NULL, "s", TH_PARAM_PED,      \
      "how far ahead walkers coming the other way are anticipated; 0 turns counterflow lanes off") \
    X("keep_right", keep_right, -10, false, 10, false, 2.0f, 2.0f, NULL, "", TH_PARAM_PED,         \
      "in counterflow, weight of keeping right of the goal direction (negative: left)")          \
    X("smoke_slope", smoke_slope, 0, false, 10, false, 0.0807f, 0.0807f, NULL, "m", TH_PARAM_BOTH, \
      "in smoke of extinction K (1/m), speed x max(`smoke_min_factor`, 1 - slope K) (Frantzich & Nilsson 2003)") \
    X("smoke_min_factor", smoke_min_factor, 0, true, 1, false, 0.1f, 0.1f, NULL, "", TH_PARAM_BOTH, \
      "the least share of its speed an agent keeps in dense smoke")
/* clang-format on */

typedef struct th_crowd_param {
    const char *key;   /* scene key */
    const char *field; /* th_crowd_def member */
    size_t offset;     /* of that member */
    double lo, hi;
    bool lo_open, hi_open;
    float def_boids, def_ped;
    const char *note;
    const char *unit;
    th_param_model model;
    const char *doc;
} th_crowd_param;

extern const th_crowd_param th_crowd_params[];
extern const uint32_t th_crowd_param_count;

/* The table's row for a scene key, or NULL. */
const th_crowd_param *th_crowd_param_find(const char *key);

/* Whether `v` is finite and within the row's bounds. */
bool th_crowd_param_ok(const th_crowd_param *p, float v);

/* The row's range as "(0, 1000]" into buf; returns buf. */
const char *th_crowd_param_range(const th_crowd_param *p, char *buf, size_t size);

/* The row's field in a def. */
static inline float *th_crowd_param_field(const th_crowd_param *p, th_crowd_def *d) {
    return (float *)(void *)((char *)d + p->offset);
}

/* Every row that applies to `model` within its bounds; otherwise false with err naming the
 * field, its range and the value. Pedestrian rows are skipped for boids crowds. */
bool th_crowd_params_check(const th_crowd_def *d, th_error *err);

/* The rules between keys, for a def whose every key is in its own range: a pedestrian's
 * desired_speed at most its max_speed, desired_speed_sd at most desired_speed. False with err
 * filled and *key the scene key that breaks the rule. */
bool th_crowd_params_rules(const th_crowd_def *d, const char **key, th_error *err);

/* How far a crowd's agents look (metres), from its radii, speeds and the timestep.
 *   block    what the boids' block query covers (neighbours, separation, the leader test);
 *   ped      the pedestrian model's reach (0 for boids);
 *   near     what a 3x3 block of main-grid cells must hold: the contacts (0 without bodies);
 *   largest  the largest of these and the flee radius: what a wrap-around world must hold
 *            twice on each side. */
typedef struct th_crowd_reach {
    float block, ped, near, largest;
} th_crowd_reach;
/* `leads`: the crowd has a target (its leader test reaches lead_radius). */
th_crowd_reach th_crowd_params_reach(const th_crowd_def *d, bool leads, float timestep);
/* Whether a wrap-around world of width x height holds a crowd of that largest reach; false with
 * err filled. */
bool th_crowd_params_wrap_ok(float largest, float width, float height, th_error *err);

/* TH_EVENT_SET_CROWD (th_crowd_tune): the bit of a scene key a crowd change may set, or 0. */
uint32_t th_crowd_tune_bit(const char *key);
/* The member of `t` that bit `bit` sets (NULL for a bit that is none of them). */
float *th_crowd_tune_value(th_crowd_tune *t, uint32_t bit);
/* A hash of `t`'s fields and every value, set or not (for the ranks' checks). */
uint64_t th_crowd_tune_hash(const th_crowd_tune *t);
/* Whether `t` may change a crowd added with `d`: a boids crowd, known bits only, each value in
 * its member's bounds, max_speed at most d's; false with err filled. */
bool th_crowd_tune_check(const th_crowd_def *d, const th_crowd_tune *t, th_error *err);
/* Apply `t` to the crowd's step values; `walls`: the world has a map (walls push). */
struct th_crowd_rt;
void th_crowd_tune_apply(struct th_crowd_rt *rt, bool walls, const th_crowd_tune *t);

#endif
