/* The smallest whole use of throng: build a world with a map and two bunkers, add a crowd of
 * pedestrians who flee to the nearest bunker, step it, destroy a bunker half way, and read
 * what happened. With a scene file as its argument it loads that instead.
 *
 *   cc minimal.c $(pkg-config --cflags --libs throng) -o minimal && ./minimal [scene.yaml]
 */
#include <stdio.h>
#include <throng/throng.h>

static th_world *build(void) {
    th_error err;
    th_world_def wd = th_default_world_def();
    wd.width = 60.0f;
    wd.height = 20.0f;
    wd.cell_size = 1.0f;
    wd.threads = 2;
    th_world *w = th_world_create(&wd, &err);
    if (!w) {
        fprintf(stderr, "minimal: %s: %s\n", th_error_code_name(err.code), err.message);
        return NULL;
    }
    /* A wall across the middle with a door, a bunker at each end, everyone west of the wall. */
    for (int32_t y = 0; y < 20; y++) {
        if (y < 9 || y > 10) th_world_set_cell(w, 30, y, TH_CELL_WALL, 0, NULL);
    }
    th_bunker_def west = {.name = "west", .x0 = 1, .y0 = 8, .x1 = 2, .y1 = 11};
    th_bunker_def east = {.name = "east", .x0 = 57, .y0 = 8, .x1 = 58, .y1 = 11};
    th_crowd_def cd = th_default_pedestrian_def();
    cd.name = "residents";
    cd.goal.kind = TH_GOAL_SHELTER;
    /* Every adder returns a typed handle; a null one (th_*_id_valid false) means it failed. */
    th_crowd_id crowd = {0};
    if (!th_bunker_id_valid(th_world_add_bunker(w, &west, &err)) ||
        !th_bunker_id_valid(th_world_add_bunker(w, &east, &err)) ||
        !th_crowd_id_valid(crowd = th_world_add_crowd(w, &cd, &err))) {
        fprintf(stderr, "minimal: %s: %s\n", th_error_code_name(err.code), err.message);
        th_world_destroy(w);
        return NULL;
    }
    for (int i = 0; i < 200; i++) {
        th_vec2 p = th_v2(5.5f + (float)(i % 24), 2.5f + 0.8f * (float)(i / 24));
        if (!th_agent_id_valid(th_world_add_agent(w, crowd, p, th_v2(0, 0), &err))) {
            /* The code says what kind of failure: a spot in a wall is skipped, the rest stops. */
            if (err.code == TH_ERR_BLOCKED) continue;
            fprintf(stderr, "minimal: %s: %s\n", th_error_code_name(err.code), err.message);
            th_world_destroy(w);
            return NULL;
        }
    }
    return w;
}

int main(int argc, char **argv) {
    th_error err;
    th_world *w = argc > 1 ? th_scene_load(argv[1], NULL, NULL, &err) : build();
    if (!w) {
        if (argc > 1)
            fprintf(stderr, "minimal: %s: %s\n", th_error_code_name(err.code), err.message);
        return 1;
    }
    const int steps = 60 * 60; /* one minute at the default 1/60 s */
    for (int s = 0; s < steps; s++) {
        if (s == steps / 2 && th_world_bunker_count(w) > 0 &&
            !th_world_destroy_bunker(w, th_world_find_bunker(w, "west"), &err)) {
            fprintf(stderr, "minimal: %s: %s\n", th_error_code_name(err.code), err.message);
        }
        th_world_step(w);
    }
    th_world_stats st = th_world_get_stats(w);
    printf("after %llu steps: %u agents walking, %u sheltered, %u stranded\n",
           (unsigned long long)st.step, st.agents, st.sheltered, st.stranded);
    /* Handles are issued in order: the b-th bunker (from 0) is {b + 1}. */
    for (uint32_t b = 0; b < th_world_bunker_count(w); b++) {
        th_bunker_info bi;
        th_world_get_bunker(w, (th_bunker_id){b + 1}, &bi);
        printf("bunker %-8s %u sheltered%s\n", bi.name, bi.sheltered,
               bi.destroyed ? ", destroyed" : "");
    }
    printf("hash 0x%016llx\n", (unsigned long long)th_world_hash(w));
    th_world_destroy(w);
    return 0;
}
