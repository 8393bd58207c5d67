/* Compiled, never run, by the compile_fail_handles tests: with no CASE it must compile (so the
 * failing cases fail for the reason they name, not a broken include path); with CASE=n it must
 * not, because each case passes one handle kind, or a bare index, where another is expected. */
#include "throng/throng.h"

int main(void) {
    th_world *w = NULL;
    th_crowd_id crowd = {1};
    th_bunker_id bunker = {1};
    th_field_id field = {1};
    th_agent_id agent = {1, 1};
    (void)crowd, (void)bunker, (void)field, (void)agent;
#if !defined(CASE)
    th_world_add_agent(w, crowd, th_v2(1, 1), th_v2(0, 0), NULL);
    th_world_destroy_bunker(w, bunker, NULL);
    th_world_remove_agent(w, agent, NULL);
    th_crowd_def cd = th_default_crowd_def();
    cd.goal.field = field;
    (void)cd;
#elif CASE == 1 /* a bunker where a crowd is expected */
    th_world_add_agent(w, bunker, th_v2(1, 1), th_v2(0, 0), NULL);
#elif CASE == 2 /* a crowd where a bunker is expected */
    th_world_destroy_bunker(w, crowd, NULL);
#elif CASE == 3 /* a bare index where a crowd is expected */
    th_world_add_agent(w, 0u, th_v2(1, 1), th_v2(0, 0), NULL);
#elif CASE == 4 /* a crowd where a destination field is expected */
    th_crowd_def cd = th_default_crowd_def();
    cd.goal.field = crowd;
#elif CASE == 5 /* a bare number where an agent id is expected */
    th_world_remove_agent(w, 3u, NULL);
#elif CASE == 6 /* an agent id where a crowd is expected */
    th_world_add_agent(w, agent, th_v2(1, 1), th_v2(0, 0), NULL);
#endif
    return 0;
}
