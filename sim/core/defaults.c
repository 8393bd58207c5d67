/* The defaults of the public def structs: a world, a crowd of boids, a crowd of pedestrians.
 * A crowd's numeric defaults are the columns of the crowd parameter table (crowd_params.h), so
 * the API, the parser and the scene format's document cannot disagree on them. */
#include "sim/core/crowd_params.h"
#include "sim/core/world.h"

th_world_def th_default_world_def(void) {
    return (th_world_def){
        .width = 100.0f,
        .height = 100.0f,
        .bounds = TH_BOUNDS_WALLS,
        .timestep = 1.0f / 60.0f,
        .seed = 1,
        .threads = 0,
        .agent_capacity = 0,
        .cell_size = 0.0f,
    };
}

th_crowd_def th_default_crowd_def(void) {
    th_crowd_def d = {
        .name = "crowd",
        .behavior = TH_BEHAVIOR_FLOCK,
        .type = TH_TYPE_OWN,
        .target = {0},
        .pursuit = TH_PURSUIT_CHASE,
        .flee_types = 0,
        .exit_choice = {.social = 0.5f, .social_radius = 5.0f},
    };
#define TH_DEFAULT_BOIDS(key, field, lo, lo_open, hi, hi_open, boids, ped, note, unit, model, doc) \
    d.field = boids;
    TH_CROWD_PARAMS(TH_DEFAULT_BOIDS)
#undef TH_DEFAULT_BOIDS
    return d;
}

th_crowd_def th_default_pedestrian_def(void) {
    th_crowd_def d = th_default_crowd_def();
    d.name = "pedestrians";
    d.model = TH_MODEL_PEDESTRIAN;
#define TH_DEFAULT_PED(key, field, lo, lo_open, hi, hi_open, boids, ped, note, unit, model, doc) \
    d.field = ped;
    TH_CROWD_PARAMS(TH_DEFAULT_PED)
#undef TH_DEFAULT_PED
    return d;
}
