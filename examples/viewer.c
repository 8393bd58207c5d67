/* A host program with the viewer: it builds its own world (a plaza with three exits), runs it
 * headless for a while with the fixed-step clock from throng/clock.h, as a game loop would,
 * then opens the SDL2 viewer on the same world (or, without a display, saves a screenshot).
 *
 *   cc viewer.c $(pkg-config --cflags --libs throng-viewer) -o viewer && ./viewer
 */
#include <stdio.h>
#include <throng/clock.h>
#include <throng/viewer.h>

int main(void) {
    th_error err;
    th_world_def wd = th_default_world_def();
    wd.width = 40.0f;
    wd.height = 40.0f;
    wd.cell_size = 1.0f;
    th_world *w = th_world_create(&wd, &err);
    if (!w) {
        fprintf(stderr, "viewer: %s: %s\n", th_error_code_name(err.code), err.message);
        return 1;
    }
    /* Three exits on the plaza's edge, one made less attractive by a weight of 10 m. */
    th_destination exits[] = {{0, 20, 0.0f}, {39, 20, 0.0f}, {20, 39, 10.0f}};
    th_field_id field = th_world_add_destinations(w, exits, 3, &err);
    th_crowd_def cd = th_default_pedestrian_def();
    cd.name = "visitors";
    cd.goal.kind = TH_GOAL_DESTINATIONS;
    cd.goal.field = field;
    th_crowd_id crowd =
        th_field_id_valid(field) ? th_world_add_crowd(w, &cd, &err) : (th_crowd_id){0};
    if (!th_crowd_id_valid(crowd)) {
        fprintf(stderr, "viewer: %s: %s\n", th_error_code_name(err.code), err.message);
        th_world_destroy(w);
        return 1;
    }
    for (int i = 0; i < 300; i++) {
        th_vec2 p = th_v2(12.0f + 0.8f * (float)(i % 20), 8.0f + 0.8f * (float)(i / 20));
        th_world_add_agent(w, crowd, p, th_v2(0, 0), NULL);
    }

    /* The host's own loop: 2 s of frames of 1/30 s, each running the steps the clock grants. */
    th_clock clock = th_clock_make(wd.timestep, 8);
    for (int frame = 0; frame < 60; frame++) {
        for (int n = th_clock_advance(&clock, 1.0 / 30.0); n > 0; n--) th_world_step(w);
    }
    printf("after %llu steps the viewer takes over\n", (unsigned long long)th_world_step_count(w));

    th_view_opts vo = th_view_default_opts();
    vo.title = "plaza with three exits";
    vo.overlays |= TH_VIEW_OVERLAY_FLOW;
    /* Show the exits' field: the viewer numbers fields after the bunkers, from 0. */
    vo.flow_bunker = (int)(th_world_bunker_count(w) + field.index1 - 1);
    int rc = 0;
    if (th_view_display_available()) {
        rc = th_view_run(&w, &vo);
    } else if (!th_view_screenshot(w, &vo, "plaza.png", vo.overlays, &err)) {
        fprintf(stderr, "viewer: %s: %s\n", th_error_code_name(err.code), err.message);
        rc = 1;
    } else {
        printf("no display: wrote plaza.png\n");
    }
    th_world_destroy(w);
    return rc;
}
