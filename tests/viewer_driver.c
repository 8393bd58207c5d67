/* Drives the real viewer window for tests/test_viewer_x11.sh, and times the headless renderer.
 *
 *   viewer_driver [MAX_FRAMES] [SIM_SPEED] [SCENE]
 *   viewer_driver --bench SCENE AGENTS [FRAMES]    headless ms per 1280 x 800 frame
 *
 * Builds the evac demo with 500 agents, runs 300 warm-up steps (so bunkers already shelter
 * people), or loads SCENE (a scene file) as it is, prints where each bunker lies on screen in the
 * viewer's initial fit, opens the viewer with event printing, and after it returns prints the final
 * state:
 *
 *   window 800 600
 *   bunker north 400 31          (name, window x, window y of the bunker's centre)
 *   ...
 *   ready
 *   event ...                    (from the viewer)
 *   final step 1234
 *   final bunker north destroyed 1 sheltered 17
 *
 * Exits with the viewer's exit code. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "throng/viewer.h"

enum { WIDTH = 800, HEIGHT = 600, AGENTS = 500, WARMUP = 300 };

static int bench(const char *scene, uint32_t agents, int frames) {
    th_error err;
    th_world *w =
        th_demo_create(scene, &(th_demo_opts){.agents = agents, .seed = 1, .threads = 2}, &err);
    if (!w) {
        fprintf(stderr, "viewer_driver: %s\n", err.message);
        return 2;
    }
    for (int i = 0; i < 60; i++) th_world_step(w);
    th_view_opts o = th_view_default_opts();
    const struct {
        const char *name;
        uint32_t overlays;
    } sets[] = {
        {"agents+hud", TH_VIEW_OVERLAY_AGENTS | TH_VIEW_OVERLAY_HUD},
        {"all overlays", TH_VIEW_OVERLAY_ALL & ~TH_VIEW_OVERLAY_HELP},
    };
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
        double ms = 0;
        if (!th_view_time_frames(w, &o, sets[i].overlays, frames, &ms, &err)) {
            fprintf(stderr, "viewer_driver: %s\n", err.message);
            th_world_destroy(w);
            return 1;
        }
        printf("%-6s %7u agents  %-12s %7.2f ms/frame (%d x %d, software)\n", scene, agents,
               sets[i].name, ms, o.width, o.height);
    }
    th_world_destroy(w);
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 4 && strcmp(argv[1], "--bench") == 0)
        return bench(argv[2], (uint32_t)strtoul(argv[3], NULL, 10), argc > 4 ? atoi(argv[4]) : 50);
    int max_frames = argc > 1 ? atoi(argv[1]) : 0;
    double speed = argc > 2 ? atof(argv[2]) : 2.0;
    const char *scene = argc > 3 ? argv[3] : NULL;
    th_error err;
    th_world *w =
        scene ? th_scene_load(scene, &(th_scene_opts){.threads = 2}, NULL, &err)
              : th_demo_create("evac", &(th_demo_opts){.agents = AGENTS, .seed = 1, .threads = 2},
                               &err);
    if (!w) {
        fprintf(stderr, "viewer_driver: %s\n", err.message);
        return 2;
    }
    for (int i = 0; i < (scene ? 0 : WARMUP); i++) th_world_step(w);
    int32_t cols, rows;
    float cs;
    th_world_map_size(w, &cols, &rows, &cs);
    th_view_opts o = th_view_default_opts();
    o.width = WIDTH;
    o.height = HEIGHT;
    o.title = "throng-viewer-test";
    o.max_frames = max_frames;
    o.sim_speed = speed;
    o.print_events = true;
    /* Bunkers where the window shows them: the map is framed beside the panels. */
    th_view_layout lay;
    if (!th_view_get_layout(w, &o, o.overlays, &lay, &err)) {
        fprintf(stderr, "viewer_driver: %s\n", err.message);
        return 2;
    }
    printf("window %d %d\n", WIDTH, HEIGHT);
    for (uint32_t b = 0; b < th_world_bunker_count(w); b++) {
        th_bunker_info bi;
        th_world_get_bunker(w, (th_bunker_id){b + 1}, &bi);
        th_vec2 c =
            th_v2((float)(bi.x0 + bi.x1 + 1) * 0.5f * cs, (float)(bi.y0 + bi.y1 + 1) * 0.5f * cs);
        th_vec2 s = th_view_layout_to_screen(&lay, c);
        printf("bunker %s %d %d\n", bi.name, (int)s.x, (int)s.y);
    }
    printf("ready\n");
    fflush(stdout);

    int rc = th_view_run(&w, &o);

    printf("final step %llu\n", (unsigned long long)th_world_step_count(w));
    for (uint32_t b = 0; b < th_world_bunker_count(w); b++) {
        th_bunker_info bi;
        th_world_get_bunker(w, (th_bunker_id){b + 1}, &bi);
        printf("final bunker %s destroyed %d sheltered %u\n", bi.name, bi.destroyed, bi.sheltered);
    }
    th_world_destroy(w);
    return rc;
}
