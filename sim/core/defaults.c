/* The defaults of the public def structs: a world, a crowd of boids, a crowd of pedestrians. */
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
    return (th_crowd_def){
        .name = "crowd",
        .behavior = TH_BEHAVIOR_FLOCK,
        .neighbor_radius = 4.0f,
        .separation_radius = 1.5f,
        .fov_deg = 270.0f,
        .separation_weight = 1.5f,
        .alignment_weight = 1.0f,
        .cohesion_weight = 1.0f,
        .max_speed = 4.0f,
        .max_force = 8.0f,
        .flow_weight = 2.0f,
        .wall_radius = 1.5f,
        .wall_weight = 1.0f,
        .type = TH_TYPE_OWN,
        .target = {0},
        .pursuit = TH_PURSUIT_CHASE,
        .pursuit_weight = 2.0f,
        .lead_fov_deg = 60.0f,
        .lead_radius = 0.0f,
        .flee_types = 0,
        .flee_radius = 12.0f,
        .flee_weight = 3.0f,
        .desired_speed = 1.34f,
        .desired_speed_sd = 0.26f,
        .time_gap = 0.7f,
        .relaxation = 0.5f,
        .repulsion = 5.0f,
        .repulsion_range = 0.1f,
        .wall_repulsion = 5.0f,
        .wall_repulsion_range = 0.02f,
        .anticipation = 1.0f,
        .keep_right = 2.0f,
    };
}

th_crowd_def th_default_pedestrian_def(void) {
    th_crowd_def d = th_default_crowd_def();
    d.name = "pedestrians";
    d.model = TH_MODEL_PEDESTRIAN;
    d.body_radius = 0.2f;
    d.max_speed = 2.5f;
    d.neighbor_radius = 2.0f;
    d.separation_radius = 0.5f;
    return d;
}
