/* The older names of the world's readers (include/throng/throng.h, "older names"), kept for one
 * release. th_world_stall_info keeps its definition in stall.c; its new name calls it. */
#include "sim/core/world.h"

bool th_world_get_stall_info(const th_world *w, th_stall_info *out) {
    return th_world_stall_info(w, out);
}

const th_crowd_def *th_world_crowd(const th_world *w, th_crowd_id crowd) {
    if (!w) return NULL;
    return th_world_get_crowd(w, crowd);
}

bool th_world_measure_area(const th_world *w, th_measure_area_id area, th_measure_area_info *out) {
    return th_world_get_measure_area(w, area, out);
}

bool th_world_measure_line(const th_world *w, th_measure_line_id line, th_measure_line_info *out) {
    return th_world_get_measure_line(w, line, out);
}

bool th_world_forage_info(const th_world *w, th_crowd_id crowd, th_forage_info *out) {
    return th_world_get_forage(w, crowd, out);
}

bool th_world_food_source(const th_world *w, th_crowd_id crowd, uint32_t source,
                          th_food_info *out) {
    return th_world_get_food_source(w, crowd, source, out);
}

bool th_world_target_state(const th_world *w, th_target_id target, th_vec2 *position,
                           th_vec2 *velocity) {
    return th_world_get_target(w, target, position, velocity);
}

bool th_world_squad_member(const th_world *w, th_squad_id squad, uint32_t i, th_agent_id *id,
                           th_vec2 *slot) {
    return th_world_get_squad_member(w, squad, i, id, slot);
}
