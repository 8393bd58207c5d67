/* The headless renderer: frames of known scenes sampled at positions computed with the
 * documented world-to-screen transform (th_view_world_to_screen), overlays that must react to
 * events, PNG output, and argument errors. Needs no display: SDL_VIDEODRIVER=dummy. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "throng/hazard.h"
#include "throng/viewer.h"
#include "test_util.h"

enum { W = 800, H = 600 };

static th_world *evac(uint32_t agents, int steps) {
    th_error err;
    th_world *w =
        th_demo_create("evac", &(th_demo_opts){.agents = agents, .seed = 1, .threads = 2}, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    for (int i = 0; i < steps; i++) th_world_step(w);
    return w;
}

static th_view_opts small_opts(void) {
    th_view_opts o = th_view_default_opts();
    o.width = W;
    o.height = H;
    return o;
}

static uint32_t *render(const th_world *w, uint32_t overlays) {
    uint32_t *px = malloc(sizeof(uint32_t) * W * H);
    ck_assert_ptr_nonnull(px);
    th_view_opts o = small_opts();
    th_error err = {0};
    ck_assert_msg(th_view_render_pixels(w, &o, overlays, px, &err), "%s", err.message);
    return px;
}

static uint32_t pixel_at(const uint32_t *px, th_vec2 s) {
    int x = (int)floorf(s.x), y = (int)floorf(s.y);
    ck_assert(x >= 0 && y >= 0 && x < W && y < H);
    return px[y * W + x] | 0xFF000000u;
}

/* Every cell within `r` of (x, y) is of kind `k`. */
static bool block_of(const th_world *w, int32_t x, int32_t y, int32_t r, th_cell_kind k) {
    for (int32_t dy = -r; dy <= r; dy++)
        for (int32_t dx = -r; dx <= r; dx++)
            if (th_world_cell(w, x + dx, y + dy, NULL) != k) return false;
    return true;
}

/* Screen point `s` may lie under a bunker's marker or its label (about 90 x 45 px). */
static bool near_bunker_label(const th_world *w, th_vec2 s) {
    for (uint32_t b = 0; b < th_world_bunker_count(w); b++) {
        th_bunker_info bi;
        th_world_get_bunker(w, BUNKER_ID(b), &bi);
        th_vec2 o = th_view_world_to_screen(w, W, H, th_v2((float)bi.x0, (float)bi.y0));
        if (fabsf(o.x - s.x) < 90 && fabsf(o.y - s.y) < 60) return true;
    }
    return false;
}

START_TEST(test_walls_where_walls_are) {
    th_world *w = evac(500, 30);
    uint32_t *px = render(w, TH_VIEW_OVERLAY_AGENTS);
    int32_t cols, rows;
    float cs;
    ck_assert(th_world_map_size(w, &cols, &rows, &cs));
    int walls = 0, rubble = 0;
    /* Cells deep inside buildings: no agent or edge can be drawn over them. */
    for (int32_t y = 3; y < rows - 3; y += 7) {
        for (int32_t x = 3; x < cols - 3; x += 7) {
            th_cell_kind k = th_world_cell(w, x, y, NULL);
            if (k == TH_CELL_OPEN || !block_of(w, x, y, 3, k)) continue;
            th_vec2 s = th_view_world_to_screen(w, W, H, th_v2((x + 0.5f) * cs, (y + 0.5f) * cs));
            if (near_bunker_label(w, s)) continue;
            ck_assert_msg(pixel_at(px, s) == th_view_cell_color(k),
                          "cell %d,%d kind %d: pixel %08x, expected %08x", x, y, k, pixel_at(px, s),
                          th_view_cell_color(k));
            if (k == TH_CELL_WALL) walls++;
            else rubble++;
        }
    }
    ck_assert_int_gt(walls, 20);
    ck_assert_int_gt(rubble, 5);
    free(px);
    th_world_destroy(w);
}
END_TEST

START_TEST(test_agents_where_agents_are) {
    th_world *w = evac(500, 30);
    uint32_t *px = render(w, TH_VIEW_OVERLAY_AGENTS);
    th_agent_view v = th_world_agents(w);
    int sampled = 0, matched = 0;
    for (uint32_t i = 0; i < v.count && sampled < 60; i++) {
        th_vec2 s = th_view_world_to_screen(w, W, H, th_v2(v.px[i], v.py[i]));
        /* Isolated agents only: no other triangle (7 px long) can cover this one's pixel, and
         * far from the bunkers, whose labels are drawn over agents. */
        bool alone = true;
        for (uint32_t j = 0; j < v.count && alone; j++) {
            if (j == i) continue;
            th_vec2 o = th_view_world_to_screen(w, W, H, th_v2(v.px[j], v.py[j]));
            if (fabsf(o.x - s.x) < 12 && fabsf(o.y - s.y) < 12) alone = false;
        }
        if (!alone || near_bunker_label(w, s)) continue;
        sampled++;
        /* The software rasteriser snaps vertices to whole pixels, which can move a triangle's
         * edge by up to a pixel: the agent's pixel or one next to it has its colour. */
        bool hit = false;
        for (int dy = -1; dy <= 1 && !hit; dy++)
            for (int dx = -1; dx <= 1 && !hit; dx++)
                hit = pixel_at(px, th_v2(s.x + dx, s.y + dy)) ==
                      th_view_crowd_color(CROWD_ID(v.crowd[i]));
        if (hit) matched++;
    }
    ck_assert_int_ge(sampled, 15);
    ck_assert_int_eq(matched, sampled);
    free(px);
    th_world_destroy(w);
}
END_TEST

/* Pixels that differ between two frames inside the screen box of world rectangle
 * [x0, x1] x [y0, y1]. */
static int diff_in(const th_world *w, const uint32_t *a, const uint32_t *b, float x0, float y0,
                   float x1, float y1) {
    th_vec2 tl = th_view_world_to_screen(w, W, H, th_v2(x0, y1));
    th_vec2 br = th_view_world_to_screen(w, W, H, th_v2(x1, y0));
    int n = 0;
    for (int y = (int)tl.y; y < (int)br.y; y++)
        for (int x = (int)tl.x; x < (int)br.x; x++)
            if (a[y * W + x] != b[y * W + x]) n++;
    return n;
}

START_TEST(test_flow_overlay_follows_bunker_destruction) {
    th_world *w = evac(200, 1);
    uint32_t *before = render(w, TH_VIEW_OVERLAY_FLOW);
    int north = IDX(th_world_find_bunker(w, "north"));
    ck_assert_int_ge(north, 0);
    th_bunker_info bi;
    ck_assert(th_world_get_bunker(w, BUNKER_ID(north), &bi));
    th_error err;
    ck_assert_msg(th_world_destroy_bunker(w, BUNKER_ID(north), &err), "%s", err.message);
    th_world_step(w);
    uint32_t *after = render(w, TH_VIEW_OVERLAY_FLOW);
    /* North's basin, below its marker and label: the arrows there turn to other bunkers. */
    float cx = (bi.x0 + bi.x1 + 1) * 0.5f;
    int basin = diff_in(w, before, after, cx - 48, (float)bi.y0 - 64, cx + 48, (float)bi.y0 - 8);
    ck_assert_int_gt(basin, 500);
    /* Around the south bunker nothing changed. */
    th_bunker_info south;
    ck_assert(th_world_get_bunker(w, th_world_find_bunker(w, "south"), &south));
    float sx = (south.x0 + south.x1 + 1) * 0.5f;
    ck_assert_int_eq(diff_in(w, before, after, sx - 24, 6, sx + 24, 40), 0);
    free(before);
    free(after);
    th_world_destroy(w);
}
END_TEST

/* A 60 x 40 m map with one crowd and a 9-member box squad marching from (15,20) to (45,20). */
static th_world *squad_world(void) {
    th_error err = {0};
    th_world_def wd = th_default_world_def();
    wd.width = 60;
    wd.height = 40;
    wd.cell_size = 1;
    th_world *w = th_world_create(&wd, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    th_crowd_def cd = th_default_crowd_def();
    ck_assert_msg(IDX(th_world_add_crowd(w, &cd, &err)) >= 0, "%s", err.message);
    th_squad_def sd = th_default_squad_def();
    sd.crowd = CROWD_ID(0);
    sd.count = 9;
    sd.start = th_v2(15, 20);
    sd.goal = th_v2(45, 20);
    ck_assert_msg(IDX(th_world_add_squad(w, &sd, &err)) >= 0, "%s", err.message);
    th_world_step(w);
    return w;
}

/* Hue in degrees [0, 360) of 0xAARRGGBB, or -1 for a grey. */
static float hue_of(uint32_t argb) {
    float r = (float)((argb >> 16) & 0xFF), g = (float)((argb >> 8) & 0xFF),
          b = (float)(argb & 0xFF);
    float mx = fmaxf(r, fmaxf(g, b)), mn = fminf(r, fminf(g, b)), d = mx - mn;
    if (d < 8) return -1;
    float h = mx == r ? fmodf((g - b) / d + 6, 6) : mx == g ? (b - r) / d + 2 : (r - g) / d + 4;
    return h * 60;
}

START_TEST(test_squad_overlay_marks_slots) {
    th_world *w = squad_world();
    /* Without agents, so the slot's pixel shows the overlay rather than the member on it. */
    uint32_t *off = render(w, 0);
    uint32_t *on = render(w, TH_VIEW_OVERLAY_SQUADS);
    if (getenv("THRONG_TEST_PNG")) {
        th_view_opts o = small_opts();
        ck_assert(th_view_screenshot(w, &o, getenv("THRONG_TEST_PNG"),
                                     TH_VIEW_OVERLAY_SQUADS | TH_VIEW_OVERLAY_AGENTS, NULL));
    }
    float want = hue_of(th_view_crowd_color(CROWD_ID(0)));
    th_agent_id id;
    th_vec2 slot;
    uint32_t members = 0;
    for (uint32_t i = 0; th_world_get_squad_member(w, SQUAD_ID(0), i, &id, &slot); i++, members++) {
        th_vec2 s = th_view_world_to_screen(w, W, H, slot);
        int changed = 0;
        for (int dy = -4; dy <= 4; dy++)
            for (int dx = -4; dx <= 4; dx++)
                if (pixel_at(off, th_v2(s.x + dx, s.y + dy)) !=
                    pixel_at(on, th_v2(s.x + dx, s.y + dy)))
                    changed++;
        ck_assert_int_gt(changed, 8);
        uint32_t p = pixel_at(on, s);
        ck_assert_msg(fabsf(hue_of(p) - want) < 10, "slot %u pixel %08x, crowd colour %08x", i, p,
                      th_view_crowd_color(CROWD_ID(0)));
    }
    ck_assert_uint_eq(members, 9);
    free(off);
    free(on);
    th_world_destroy(w);
}
END_TEST

START_TEST(test_flow_overlay_of_one_bunker) {
    th_world *w = evac(200, 1);
    int north = IDX(th_world_find_bunker(w, "north")),
        south = IDX(th_world_find_bunker(w, "south"));
    ck_assert_int_ge(north, 0);
    ck_assert_int_ge(south, 0);
    uint32_t *nearest = render(w, TH_VIEW_OVERLAY_FLOW);
    uint32_t *chosen = malloc(sizeof(uint32_t) * W * H);
    ck_assert_ptr_nonnull(chosen);
    th_view_opts o = small_opts();
    o.flow_bunker = north;
    th_error err = {0};
    ck_assert_msg(th_view_render_pixels(w, &o, TH_VIEW_OVERLAY_FLOW, chosen, &err), "%s",
                  err.message);
    /* Around the south bunker, far from north: the nearest field points into south, north's
     * own field away toward north, in another colour. */
    th_bunker_info sb;
    ck_assert(th_world_get_bunker(w, BUNKER_ID(south), &sb));
    float sx = (sb.x0 + sb.x1 + 1) * 0.5f;
    ck_assert_int_gt(diff_in(w, nearest, chosen, sx - 24, 6, sx + 24, 40), 300);
    /* A bunker index past the last one shows the nearest field. */
    o.flow_bunker = (int)th_world_bunker_count(w);
    ck_assert(th_view_render_pixels(w, &o, TH_VIEW_OVERLAY_FLOW, chosen, &err));
    ck_assert(memcmp(nearest, chosen, sizeof(uint32_t) * W * H) == 0);
    free(nearest);
    free(chosen);
    th_world_destroy(w);
}
END_TEST

START_TEST(test_screenshot_png) {
    th_world *w = evac(300, 10);
    th_view_opts o = small_opts();
    o.title = "test";
    char path[512];
    snprintf(path, sizeof path, "%s", th_test_file("shot.png"));
    th_error err = {0};
    ck_assert_msg(th_view_screenshot(w, &o, path, TH_VIEW_OVERLAY_ALL, &err), "%s", err.message);
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    unsigned char sig[8] = {0};
    ck_assert_int_eq(fread(sig, 1, 8, f), 8);
    ck_assert(memcmp(sig, "\x89PNG\r\n\x1a\n", 8) == 0);
    fseek(f, 0, SEEK_END);
    ck_assert_int_gt(ftell(f), 1000);
    fclose(f);
    remove(path);
    th_world_destroy(w);
}
END_TEST

START_TEST(test_flock_all_overlays) {
    th_error err;
    th_world *w =
        th_demo_create("flock", &(th_demo_opts){.agents = 2000, .seed = 1, .threads = 1}, &err);
    ck_assert_ptr_nonnull(w);
    for (int i = 0; i < 5; i++) th_world_step(w);
    /* Every overlay on a world without a map or squads: nothing to crash on. */
    free(render(w, TH_VIEW_OVERLAY_ALL));
    uint32_t *px = render(w, TH_VIEW_OVERLAY_AGENTS | TH_VIEW_OVERLAY_DENSITY |
                                 TH_VIEW_OVERLAY_GRID | TH_VIEW_OVERLAY_FLOW);
    /* Agents sit on top of the density and grid layers: most agents' pixels show their colour
     * (the rest are covered by a neighbour's triangle, of the same crowd here). */
    th_agent_view v = th_world_agents(w);
    int found = 0;
    for (uint32_t i = 0; i < v.count; i++) {
        th_vec2 s = th_view_world_to_screen(w, W, H, th_v2(v.px[i], v.py[i]));
        if (pixel_at(px, s) == th_view_crowd_color(CROWD_ID(0))) found++;
    }
    ck_assert_int_gt(found, (int)v.count * 9 / 10);
    free(px);
    th_world_destroy(w);
}
END_TEST

START_TEST(test_transform_is_the_documented_fit) {
    th_world *w = evac(10, 0);
    /* 256 m square in 800 x 600: scale (600 - 2 margin) / 256, centred. */
    double scale = (H - 2.0 * TH_VIEW_MARGIN) / 256.0;
    th_vec2 o = th_view_world_to_screen(w, W, H, th_v2(0, 0));
    th_vec2 c = th_view_world_to_screen(w, W, H, th_v2(256, 256));
    ck_assert_float_eq_tol(o.x, W / 2.0 - 128 * scale, 1e-3);
    ck_assert_float_eq_tol(o.y, H - TH_VIEW_MARGIN, 1e-3);
    ck_assert_float_eq_tol(c.x, W / 2.0 + 128 * scale, 1e-3);
    ck_assert_float_eq_tol(c.y, TH_VIEW_MARGIN, 1e-3);
    th_world_destroy(w);
}
END_TEST

START_TEST(test_bad_arguments) {
    th_world *w = evac(10, 0);
    th_error err = {0};
    th_view_opts o = small_opts();
    o.width = 0;
    ck_assert(!th_view_screenshot(w, &o, "/tmp/x.png", 0, &err));
    TH_TEST_ERR(err, TH_ERR_INVALID);
    o = small_opts();
    o.sim_speed = NAN;
    ck_assert(!th_view_screenshot(w, &o, "/tmp/x.png", 0, &err));
    TH_TEST_ERR(err, TH_ERR_INVALID);
    ck_assert(!th_view_screenshot(NULL, NULL, "/tmp/x.png", 0, &err));
    ck_assert(!th_view_screenshot(w, NULL, NULL, 0, &err));
    ck_assert(!th_view_render_pixels(w, NULL, 0, NULL, &err));
    o = small_opts();
    ck_assert(!th_view_screenshot(w, &o, "/nonexistent-dir/shot.png", 0, &err));
    TH_TEST_ERR(err, TH_ERR_IO);
    ck_assert_ptr_nonnull(strstr(err.message, "/nonexistent-dir/shot.png"));
    /* A NULL world or options never reach SDL. */
    th_world *none = NULL;
    ck_assert_int_eq(th_view_run(&none, NULL), 2);
    o.max_frames = -1;
    ck_assert_int_eq(th_view_run(&w, &o), 2);
    th_world_destroy(w);
}
END_TEST

START_TEST(test_no_display_under_dummy_driver) { ck_assert(!th_view_display_available()); }
END_TEST

/* The viewer never runs in a window nobody sees: where SDL's video starts only on a driver that
 * shows no window (dummy here; offscreen when an X server refuses the connection), it returns 1
 * with a message instead of stepping the world through frames nobody sees. */
START_TEST(test_viewer_refuses_a_driver_that_shows_no_window) {
    th_world *w = evac(10, 0);
    th_view_opts o = small_opts();
    o.max_frames = 3;
    ck_assert_int_eq(th_view_run(&w, &o), 1);
    ck_assert_uint_eq(th_world_step_count(w), 0);
    th_world_destroy(w);
}
END_TEST

/* ---- layout, legend, marks and font ------------------------------------------------------ */

static th_world *scene(const char *name, uint32_t agents, int steps) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s.yaml", THRONG_SCENES_DIR, name);
    th_error err = {0};
    th_scene_opts so = {.threads = 2, .agents = agents};
    th_world *w = th_scene_load(path, &so, NULL, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    for (int i = 0; i < steps; i++) th_world_step(w);
    return w;
}

static bool rects_overlap(th_view_rect a, th_view_rect b) {
    return a.w > 0 && b.w > 0 && a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h &&
           b.y < a.y + a.h;
}

/* Pixels of `px` (an iw-wide frame) inside rectangle r equal to `argb`. */
static int count_color(const uint32_t *px, int iw, int ih, th_view_rect r, uint32_t argb) {
    int n = 0;
    for (int y = (int)r.y; y < (int)(r.y + r.h) && y < ih; y++)
        for (int x = (int)r.x; x < (int)(r.x + r.w) && x < iw; x++)
            if (y >= 0 && x >= 0 && (px[y * iw + x] | 0xFF000000u) == (argb | 0xFF000000u)) n++;
    return n;
}

static uint32_t *render_at(const th_world *w, int iw, int ih, uint32_t overlays) {
    uint32_t *px = malloc(sizeof(uint32_t) * (size_t)iw * (size_t)ih);
    ck_assert_ptr_nonnull(px);
    th_view_opts o = th_view_default_opts();
    o.width = iw;
    o.height = ih;
    th_error err = {0};
    ck_assert_msg(th_view_render_pixels(w, &o, overlays, px, &err), "%s", err.message);
    return px;
}

static th_view_layout layout_at(const th_world *w, int iw, int ih, uint32_t overlays) {
    th_view_opts o = th_view_default_opts();
    o.width = iw;
    o.height = ih;
    th_view_layout l;
    th_error err = {0};
    ck_assert_msg(th_view_get_layout(w, &o, overlays, &l, &err), "%s", err.message);
    return l;
}

/* The map, its bunkers and their labels never sit under a panel; labels do not overlap each
 * other; each label's white first line is on screen (drawn, not covered). At the default
 * window size and a small one, with and without the profiler. */
START_TEST(test_panels_leave_the_map_clear) {
    th_world *w = scene("air_raid", 3000, 5);
    const int sizes[][2] = {{1280, 800}, {800, 600}};
    const uint32_t sets[] = {
        TH_VIEW_OVERLAY_HUD | TH_VIEW_OVERLAY_LEGEND | TH_VIEW_OVERLAY_AGENTS,
        TH_VIEW_OVERLAY_HUD | TH_VIEW_OVERLAY_LEGEND | TH_VIEW_OVERLAY_PROFILER |
            TH_VIEW_OVERLAY_AGENTS,
    };
    th_world_def d = th_world_get_def(w);
    for (int si = 0; si < 2; si++) {
        for (int oi = 0; oi < 2; oi++) {
            int iw = sizes[si][0], ih = sizes[si][1];
            th_view_layout l = layout_at(w, iw, ih, sets[oi]);
            th_view_rect panels[3] = {l.hud, l.legend, l.profiler};
            ck_assert(l.hud.w > 0 && l.legend.w > 0);
            ck_assert((l.profiler.w > 0) == ((sets[oi] & TH_VIEW_OVERLAY_PROFILER) != 0));
            /* The world's rectangle on screen, from the layout's own transform. */
            th_vec2 tl = th_view_layout_to_screen(&l, th_v2(0, d.height));
            th_vec2 br = th_view_layout_to_screen(&l, th_v2(d.width, 0));
            th_view_rect world = {tl.x, tl.y, br.x - tl.x, br.y - tl.y};
            ck_assert(world.w > iw / 4.0f);
            ck_assert(tl.x >= 0 && tl.y >= 0 && br.x <= iw && br.y <= ih);
            uint32_t *px = render_at(w, iw, ih, sets[oi]);
            ck_assert_uint_eq(l.labels, th_world_bunker_count(w));
            for (int p = 0; p < 3; p++) {
                ck_assert_msg(!rects_overlap(world, panels[p]),
                              "%dx%d set %d: panel %d over the map", iw, ih, oi, p);
                for (uint32_t b = 0; b < l.labels; b++)
                    ck_assert_msg(!rects_overlap(l.label[b], panels[p]),
                                  "%dx%d set %d: label %u under panel %d", iw, ih, oi, b, p);
            }
            for (uint32_t b = 0; b < l.labels; b++) {
                th_view_rect r = l.label[b];
                ck_assert(r.w > 0 && r.x >= 0 && r.y >= 0 && r.x + r.w <= iw && r.y + r.h <= ih);
                for (uint32_t o = b + 1; o < l.labels; o++)
                    ck_assert_msg(!rects_overlap(r, l.label[o]),
                                  "%dx%d set %d: labels %u and %u overlap", iw, ih, oi, b, o);
                ck_assert_int_gt(count_color(px, iw, ih, r, 0xFFFFFFFFu), 40);
            }
            free(px);
        }
    }
    th_world_destroy(w);
}
END_TEST

/* With no panel on, the map area is the whole window: the documented fit. */
START_TEST(test_layout_without_panels_is_the_fit) {
    th_world *w = evac(10, 0);
    th_view_layout l = layout_at(w, W, H, TH_VIEW_OVERLAY_AGENTS);
    ck_assert(l.hud.w == 0 && l.legend.w == 0 && l.profiler.w == 0);
    th_vec2 a = th_view_layout_to_screen(&l, th_v2(37, 201));
    th_vec2 b = th_view_world_to_screen(w, W, H, th_v2(37, 201));
    ck_assert_float_eq_tol(a.x, b.x, 1e-3);
    ck_assert_float_eq_tol(a.y, b.y, 1e-3);
    th_world_destroy(w);
}
END_TEST

START_TEST(test_legend_drawn) {
    th_world *w = scene("air_raid", 3000, 1);
    const int iw = 1280, ih = 800;
    uint32_t ov = TH_VIEW_OVERLAY_LEGEND | TH_VIEW_OVERLAY_AGENTS;
    th_view_layout l = layout_at(w, iw, ih, ov);
    ck_assert(l.legend.w > 0 && l.legend.h > 0);
    uint32_t *with = render_at(w, iw, ih, ov);
    /* A swatch of each cell kind and the crowd's colour inside the legend's panel. */
    ck_assert_int_gt(count_color(with, iw, ih, l.legend, th_view_cell_color(TH_CELL_WALL)), 50);
    ck_assert_int_gt(count_color(with, iw, ih, l.legend, th_view_cell_color(TH_CELL_DESTRUCTIBLE)),
                     50);
    ck_assert_int_gt(count_color(with, iw, ih, l.legend, th_view_cell_color(TH_CELL_OPEN)), 50);
    const th_crowd_def *cd = th_world_get_crowd(w, CROWD_ID(0));
    ck_assert_ptr_nonnull(cd);
    uint32_t crowd = cd->color ? 0xFF000000u | cd->color : th_view_crowd_color(CROWD_ID(0));
    ck_assert_int_gt(count_color(with, iw, ih, l.legend, crowd), 5);
    /* Turned off, it has no place. */
    th_view_layout l0 = layout_at(w, iw, ih, TH_VIEW_OVERLAY_AGENTS);
    ck_assert_float_eq(l0.legend.w, 0);
    /* The density overlay adds its colour scale with units: the legend grows. */
    th_view_layout ld = layout_at(w, iw, ih, ov | TH_VIEW_OVERLAY_DENSITY);
    ck_assert_float_gt(ld.legend.h, l.legend.h);
    free(with);
    th_world_destroy(w);
}
END_TEST

/* Hawks: the predators and the flock's leaders get a white ring; the pixel at each one's
 * centre still shows its crowd's colour, and white pixels surround it. */
START_TEST(test_leader_ring_keeps_crowd_colour) {
    th_world *w = scene("hawks", 0, 60);
    const int iw = 1280, ih = 800;
    uint32_t ov = TH_VIEW_OVERLAY_AGENTS;
    th_view_layout l = layout_at(w, iw, ih, ov);
    uint32_t *px = render_at(w, iw, ih, ov);
    th_agent_view v = th_world_agents(w);
    int checked = 0;
    for (uint32_t i = 0; i < v.count; i++) {
        bool leader = v.flags && (v.flags[i] & TH_AGENT_LEADER);
        const th_crowd_def *cd = th_world_get_crowd(w, CROWD_ID(v.crowd[i]));
        bool predator = false;
        for (uint32_t k = 0; th_world_get_crowd(w, CROWD_ID(k)); k++)
            if (cd->type < 32 && ((th_world_get_crowd(w, CROWD_ID(k))->flee_types >> cd->type) & 1))
                predator = true;
        if (!leader && !predator) continue;
        th_vec2 s = th_view_layout_to_screen(&l, th_v2(v.px[i], v.py[i]));
        bool alone = true;
        for (uint32_t j = 0; j < v.count && alone; j++) {
            if (j == i) continue;
            th_vec2 o = th_view_layout_to_screen(&l, th_v2(v.px[j], v.py[j]));
            /* Another triangle (7 px long, 0.6 of it ahead of its point) could cover this
             * one's centre from up to ~5 px away. */
            if (fabsf(o.x - s.x) < 8 && fabsf(o.y - s.y) < 8) alone = false;
        }
        if (!alone || s.x < 20 || s.y < 20 || s.x > iw - 20 || s.y > ih - 20) continue;
        uint32_t want =
            cd->color ? 0xFF000000u | cd->color : th_view_crowd_color(CROWD_ID(v.crowd[i]));
        ck_assert_uint_ne(want, 0xFFFFFFFFu);
        bool centre = false;
        for (int dy = -1; dy <= 1 && !centre; dy++)
            for (int dx = -1; dx <= 1 && !centre; dx++)
                centre = (px[((int)s.y + dy) * iw + (int)s.x + dx] | 0xFF000000u) == want;
        ck_assert_msg(centre, "agent %u (%s): centre pixel %08x, crowd colour %08x", i,
                      predator ? "predator" : "leader", px[(int)s.y * iw + (int)s.x], want);
        th_view_rect around = {s.x - 12, s.y - 12, 24, 24};
        ck_assert_int_gt(count_color(px, iw, ih, around, 0xFFFFFFFFu), 8);
        checked++;
    }
    ck_assert_int_ge(checked, 3);
    free(px);
    th_world_destroy(w);
}
END_TEST

/* The HUD's second line reads "step N" at font scale 2 (hud.c: 10 px padding, 20 px lines,
 * glyphs 6 x 9 font pixels). The 'p' (4th glyph) must have ink in its two descender rows and in
 * its loop's right column (the column the old atlas lost, making "step" read "stef"); the 's'
 * before it must have none below the line. */
START_TEST(test_font_descenders) {
    th_world *w = evac(50, 3);
    const int iw = 1280, ih = 800;
    uint32_t ov = TH_VIEW_OVERLAY_HUD;
    th_view_layout l = layout_at(w, iw, ih, ov);
    uint32_t *px = render_at(w, iw, ih, ov);
    const uint32_t text = 0xFFE8ECF4u;
    int x0 = (int)l.hud.x + 10, y0 = (int)l.hud.y + 10 + 20;
    th_view_rect p_desc = {(float)(x0 + 3 * 12), (float)(y0 + 14), 10, 4};
    th_view_rect p_right = {(float)(x0 + 3 * 12 + 8), (float)(y0 + 6), 2, 6};
    th_view_rect s_desc = {(float)x0, (float)(y0 + 14), 10, 4};
    th_view_rect s_body = {(float)x0, (float)y0, 10, 14};
    ck_assert_int_gt(count_color(px, iw, ih, s_body, text), 10); /* the line is where we look */
    ck_assert_int_ge(count_color(px, iw, ih, p_desc, text), 8);
    ck_assert_int_ge(count_color(px, iw, ih, p_right, text), 6);
    ck_assert_int_eq(count_color(px, iw, ih, s_desc, text), 0);
    free(px);
    th_world_destroy(w);
}
END_TEST

/* Pixels visibly different (a colour channel apart by 24 or more) between two iw-wide frames
 * inside rectangle r. */
static int diff_rect(const uint32_t *a, const uint32_t *b, int iw, th_view_rect r) {
    int n = 0;
    for (int y = (int)r.y; y < (int)(r.y + r.h); y++) {
        for (int x = (int)r.x; x < (int)(r.x + r.w); x++) {
            uint32_t p = a[y * iw + x], q = b[y * iw + x];
            for (int sh = 0; sh < 24; sh += 8) {
                if (abs((int)((p >> sh) & 0xFF) - (int)((q >> sh) & 0xFF)) >= 24) {
                    n++;
                    break;
                }
            }
        }
    }
    return n;
}

/* At the default window and zoom, the density and grid overlays change a visible share of the
 * map. In this scene they used to change 10 % and 0 % of it: density cells of a few pixels lay
 * under the agents that filled them, and grid lines were skipped below 5 px. */
START_TEST(test_density_and_grid_visible_at_default_zoom) {
    th_world *w = scene("air_raid", 0, 60);
    const int iw = 1280, ih = 800;
    uint32_t base = th_view_default_opts().overlays;
    th_view_layout l = layout_at(w, iw, ih, base);
    th_world_def d = th_world_get_def(w);
    th_vec2 tl = th_view_layout_to_screen(&l, th_v2(0, d.height));
    th_vec2 br = th_view_layout_to_screen(&l, th_v2(d.width, 0));
    th_view_rect world = {tl.x, tl.y, br.x - tl.x, br.y - tl.y};
    int area = (int)(world.w * world.h);
    uint32_t *a = render_at(w, iw, ih, base);
    uint32_t *dn = render_at(w, iw, ih, base | TH_VIEW_OVERLAY_DENSITY);
    uint32_t *gr = render_at(w, iw, ih, base | TH_VIEW_OVERLAY_GRID);
    int dd = diff_rect(a, dn, iw, world), dg = diff_rect(a, gr, iw, world);
    const char *dir = getenv("THRONG_TEST_PNG_DIR");
    if (dir) {
        /* For a person to look at: each overlay with the panels on. */
        th_view_opts o = th_view_default_opts();
        const uint32_t sets[] = {TH_VIEW_OVERLAY_DENSITY, TH_VIEW_OVERLAY_GRID,
                                 TH_VIEW_OVERLAY_WALLDIST, TH_VIEW_OVERLAY_FLOW,
                                 TH_VIEW_OVERLAY_PROFILER | TH_VIEW_OVERLAY_HELP};
        for (int i = 0; i < 5; i++) {
            char path[512];
            snprintf(path, sizeof path, "%s/overlay%d.png", dir, i);
            ck_assert(th_view_screenshot(w, &o, path, o.overlays | sets[i], NULL));
        }
    }
    if (getenv("THRONG_TEST_VERBOSE"))
        printf("density changes %d of %d map pixels, grid %d\n", dd, area, dg);
    ck_assert_int_gt(dd, area * 3 / 10);
    ck_assert_int_gt(dg, area / 10);
    free(a);
    free(dn);
    free(gr);
    th_world_destroy(w);
}
END_TEST

/* The density overlay leaves walls clear and reads a crowd against a wall as dense as it is:
 * a 20 x 10 m room whose northern 6 m are a thick wall, 120 walkers packed into the 3 m strip
 * below it. With the overlay on, the wall's pixels a block or more in from its face are the
 * wall's colour still (they were tinted when blocks were divided by their whole area and
 * smoothed across the wall), and the strip is drawn in the colours of 2 persons/m2 or more. */
START_TEST(test_density_overlay_leaves_walls_clear) {
    th_error err = {0};
    th_world_def wd = th_default_world_def();
    wd.width = 20;
    wd.height = 10;
    wd.cell_size = 0.5f;
    wd.threads = 1;
    th_world *w = th_world_create(&wd, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    for (int32_t y = 8; y < 20; y++)
        for (int32_t x = 0; x < 40; x++)
            ck_assert(th_world_set_cell(w, x, y, TH_CELL_WALL, 1, &err));
    th_crowd_def cd = th_default_pedestrian_def();
    ck_assert_msg(IDX(th_world_add_crowd(w, &cd, &err)) >= 0, "%s", err.message);
    for (int i = 0; i < 120; i++) {
        th_vec2 p = th_v2(2.0f + 0.4f * (float)(i % 40), 0.6f + 0.9f * (float)(i / 40));
        ck_assert(IDX(th_world_add_agent(w, CROWD_ID(0), p, th_v2(0, 0), &err)) >= 0);
    }
    const int iw = W, ih = H;
    uint32_t base = TH_VIEW_OVERLAY_AGENTS;
    th_view_layout l = layout_at(w, iw, ih, base);
    /* The wall from 2 m above its face (one block of the overlay at most) to 0.5 m below the
     * world's top, between x = 2 and 18 m. */
    th_vec2 tl = th_view_layout_to_screen(&l, th_v2(2, 9.5f));
    th_vec2 br = th_view_layout_to_screen(&l, th_v2(18, 6));
    th_view_rect wall = {tl.x, tl.y, br.x - tl.x, br.y - tl.y};
    uint32_t *a = render_at(w, iw, ih, base);
    uint32_t *d = render_at(w, iw, ih, base | TH_VIEW_OVERLAY_DENSITY);
    int wall_px = count_color(a, iw, ih, wall, th_view_cell_color(TH_CELL_WALL));
    ck_assert_int_gt(wall_px, (int)(wall.w * wall.h) * 9 / 10);
    ck_assert_int_eq(count_color(d, iw, ih, wall, th_view_cell_color(TH_CELL_WALL)), wall_px);
    /* The crowd's strip: about 120 / (16 x 2.7) = 2.8 persons/m2; sampled between agents'
     * rows, where the overlay's colour shows over the dark ground: orange to red, its red
     * channel well above its green (at 1 person/m2 and below the ramp is pale yellow, the two
     * within 20 of each other). */
    int dense = 0, sampled = 0;
    for (float x = 3.0f; x < 17.0f; x += 0.5f) {
        th_vec2 s = th_view_layout_to_screen(&l, th_v2(x, 1.05f));
        uint32_t p = pixel_at(d, s), q = pixel_at(a, s);
        if (q != th_view_cell_color(TH_CELL_OPEN)) continue; /* an agent there */
        sampled++;
        if (getenv("THRONG_TEST_VERBOSE")) printf("density strip %08x\n", p);
        dense += (int)((p >> 16) & 0xFF) - (int)((p >> 8) & 0xFF) > 50;
    }
    ck_assert_int_gt(sampled, 5);
    ck_assert_int_ge(dense, sampled * 8 / 10);
    free(a);
    free(d);
    th_world_destroy(w);
}
END_TEST

/* The tower's stair ends and elevator stops are all labelled, and no label lies over another
 * or over a bunker's label: at the default size every level shown side by side leaves the
 * labels of the first floor's four stair ends and its lift stop on a narrow strip, where they
 * used to overprint one another. Also with one level shown alone. */
START_TEST(test_stair_labels_never_overprint) {
    th_world *w = scene("tower", 0, 400);
    for (uint32_t level = 0; level <= th_world_level_count(w); level++) {
        th_view_opts o = th_view_default_opts();
        o.level = (th_level_id){level};
        th_view_layout l;
        th_error err = {0};
        ck_assert_msg(th_view_get_layout(w, &o, o.overlays, &l, &err), "%s", err.message);
        /* Every level: 4 stairs x 2 ends + 3 lift stops; one level: what it holds. */
        ck_assert_uint_eq(l.place_labels_left_out, 0);
        ck_assert_uint_ge(l.place_labels, level == 0 ? 11 : 3);
        for (uint32_t i = 0; i < l.place_labels; i++) {
            ck_assert_float_gt(l.place_label[i].w, 0);
            for (uint32_t j = i + 1; j < l.place_labels; j++)
                ck_assert_msg(!rects_overlap(l.place_label[i], l.place_label[j]),
                              "level view %u: labels %u and %u overlap", level, i, j);
            for (uint32_t b = 0; b < l.labels; b++)
                ck_assert(!rects_overlap(l.place_label[i], l.label[b]));
        }
    }
    th_world_destroy(w);
}
END_TEST

/* A building's levels side by side make a wide world: shown all together at the default
 * window, they span its width, with the panels in a row beneath them rather than in a column
 * beside them (which left the tower's three floors a strip across a third of the window), and
 * no panel covers them. A square world keeps its panels beside it. */
START_TEST(test_wide_world_spans_the_window) {
    th_world *w = scene("tower", 0, 0);
    th_view_opts o = th_view_default_opts();
    const th_world_def d = th_world_get_def(w);
    th_view_layout l;
    th_error err = {0};
    ck_assert_msg(th_view_get_layout(w, &o, o.overlays, &l, &err), "%s", err.message);
    const double full = ((double)o.width - 2.0 * TH_VIEW_MARGIN) / (double)d.width;
    ck_assert_msg(l.scale >= 0.97 * full, "scale %g px/m, the window's width gives %g", l.scale,
                  full);
    th_vec2 tl = th_view_layout_to_screen(&l, th_v2(0, d.height));
    th_vec2 br = th_view_layout_to_screen(&l, th_v2(d.width, 0));
    th_view_rect map = {tl.x, tl.y, br.x - tl.x, br.y - tl.y};
    ck_assert(!rects_overlap(map, l.hud) && !rects_overlap(map, l.legend) &&
              !rects_overlap(map, l.profiler));
    ck_assert_float_gt(l.hud.y, map.y + map.h - 1);
    /* Its bunker (the door out) is labelled by name; its key, "[1] ", only with the keys shown
     * (H): alone it read as an invitation to destroy a healthy exit. */
    th_view_layout lh;
    ck_assert(th_view_get_layout(w, &o, o.overlays | TH_VIEW_OVERLAY_HELP, &lh, &err));
    ck_assert_uint_eq(l.labels, 1);
    ck_assert_uint_eq(lh.labels, 1);
    ck_assert_float_gt(lh.label[0].w, l.label[0].w + 3.5f * 8);
    th_world_destroy(w);
    w = scene("exits", 0, 0);
    ck_assert_msg(th_view_get_layout(w, &o, o.overlays, &l, &err), "%s", err.message);
    ck_assert_float_lt(l.hud.y, 50); /* the HUD in the top-left corner, beside the map */
    th_world_destroy(w);
}
END_TEST

/* The pheromone overlay marks exactly the cells holding a trail: cell by cell across the ants
 * scene's grid, the pixel at a cell's centre changes with the overlay on if and only if the
 * cell holds at least a hundredth of a deposit (the colour scale's floor). Cells near the nest
 * and food markers, drawn over the overlay, are left out; agents are not drawn. */
START_TEST(test_pheromone_overlay_marks_trail_cells) {
    th_world *w = scene("ants", 0, 60 * 50);
    int32_t cols, rows;
    float cs;
    const float *ph = th_world_pheromone(w, CROWD_ID(0), &cols, &rows, &cs);
    ck_assert_ptr_nonnull(ph);
    const float deposit = th_world_get_crowd(w, CROWD_ID(0))->goal.forage->deposit;
    th_forage_info fi;
    ck_assert(th_world_get_forage(w, CROWD_ID(0), &fi));
    uint32_t *off = render(w, 0), *on = render(w, TH_VIEW_OVERLAY_PHEROMONE);
    int trail = 0, bare = 0;
    for (int32_t y = 0; y < rows; y++) {
        for (int32_t x = 0; x < cols; x++) {
            th_vec2 c = th_v2(((float)x + 0.5f) * cs, ((float)y + 0.5f) * cs);
            bool near_marker = hypotf(c.x - fi.nest.x, c.y - fi.nest.y) < fi.nest_radius + 2.0f;
            th_food_info f;
            for (uint32_t i = 0; th_world_get_food_source(w, CROWD_ID(0), i, &f); i++)
                near_marker |= hypotf(c.x - f.at.x, c.y - f.at.y) < f.radius + 2.0f;
            if (near_marker) continue;
            th_vec2 sp = th_view_world_to_screen(w, W, H, c);
            const bool changed = pixel_at(off, sp) != pixel_at(on, sp);
            const bool marked = ph[(size_t)y * (size_t)cols + (size_t)x] >= 0.01f * deposit;
            ck_assert_msg(changed == marked, "cell (%d, %d): %g pheromone, pixel %s", x, y,
                          (double)ph[(size_t)y * (size_t)cols + (size_t)x],
                          changed ? "changed" : "unchanged");
            trail += marked;
            bare += !marked;
        }
    }
    /* The scene must have formed trails for this to mean anything. */
    ck_assert_int_gt(trail, 100);
    ck_assert_int_gt(bare, 1000);
    free(off);
    free(on);
    th_world_destroy(w);
}
END_TEST

/* A 30 x 10 m open map: smoke alone over x in [0, 10) (K = 6 /m), deadly hydrogen cyanide
 * without smoke over [10, 20), clean air beyond. One standing pedestrian in the gas (with
 * `hazards`) and one in clean air at x = 25; `steps` steps. */
static th_world *hazard_world(bool hazards, int steps, th_agent_id *gassed, th_agent_id *clean) {
    th_error err = {0};
    th_world_def wd = th_default_world_def();
    wd.width = 30;
    wd.height = 10;
    wd.cell_size = 0.5f;
    wd.threads = 1;
    th_world *w = th_world_create(&wd, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    th_crowd_def cd = th_default_pedestrian_def();
    ck_assert_msg(IDX(th_world_add_crowd(w, &cd, &err)) >= 0, "%s", err.message);
    *gassed = th_world_add_agent(w, CROWD_ID(0), th_v2(15, 5), th_v2(0, 0), &err);
    *clean = th_world_add_agent(w, CROWD_ID(0), th_v2(25, 5), th_v2(0, 0), &err);
    ck_assert(IDX(*gassed) >= 0 && IDX(*clean) >= 0);
    if (hazards) {
        th_hazard_key smoke = {.time = 0, .air = th_clean_air()};
        smoke.air.extinction = 6.0f;
        th_hazard_key gas = {.time = 0, .air = th_clean_air()};
        gas.air.hcn = 400.0f; /* about 50 doses a minute */
        const th_hazard_def a = {0, 0, 10, 10, &smoke, 1}, b = {10, 0, 10, 10, &gas, 1};
        ck_assert_msg(th_world_add_hazard(w, &a, &err), "%s", err.message);
        ck_assert_msg(th_world_add_hazard(w, &b, &err), "%s", err.message);
    }
    for (int i = 0; i < steps; i++) th_world_step(w);
    return w;
}

static int channel(uint32_t argb, int shift) { return (int)((argb >> shift) & 0xFF); }

/* Pixels of colour `argb` within `r` px of screen point s. */
static int color_near(const uint32_t *px, th_vec2 s, int r, uint32_t argb) {
    int n = 0;
    for (int dy = -r; dy <= r; dy++)
        for (int dx = -r; dx <= r; dx++)
            n += pixel_at(px, th_v2(s.x + (float)dx, s.y + (float)dy)) == argb;
    return n;
}

/* Fire hazards on the map: smoke lightens the floor toward grey, gas without smoke tints it
 * yellow-green, clean air is left as it was; an incapacitated agent is not drawn in its crowd's
 * colour, a healthy one is. Compared against the same world without hazards. */
START_TEST(test_hazards_drawn) {
    th_agent_id gassed, clean, g0, c0;
    const int steps = 240; /* 4 s at the default timestep: the gassed agent is down in ~1.2 s */
    th_world *w = hazard_world(true, steps, &gassed, &clean);
    th_world *w0 = hazard_world(false, steps, &g0, &c0);
    th_agent_state st;
    ck_assert(th_world_get_agent(w, gassed, &st));
    ck_assert_msg(st.incapacitated, "dose %g after %d steps", (double)st.fed, steps);
    ck_assert(th_world_get_agent(w, clean, &st));
    ck_assert(!st.incapacitated && st.fed == 0.0f);
    th_air air;
    ck_assert(th_world_air(w, th_v2(5, 5), &air) && air.extinction == 6.0f);
    uint32_t *on = render(w, TH_VIEW_OVERLAY_AGENTS), *off = render(w0, TH_VIEW_OVERLAY_AGENTS);
    if (getenv("THRONG_TEST_PNG")) {
        th_view_opts o = small_opts();
        ck_assert(th_view_screenshot(w, &o, getenv("THRONG_TEST_PNG"), o.overlays, NULL));
    }
    int smoky = 0, gassy = 0, clear = 0;
    for (float y = 1.25f; y < 9.0f; y += 1.0f) {
        for (float x = 1.25f; x < 30.0f; x += 1.0f) {
            const th_vec2 p = th_v2(x, y);
            if (hypotf(x - 15, y - 5) < 1.5f || hypotf(x - 25, y - 5) < 1.5f) continue;
            const th_vec2 s = th_view_world_to_screen(w, W, H, p);
            const uint32_t a = pixel_at(on, s), b = pixel_at(off, s);
            const int ra = channel(a, 16), ga = channel(a, 8), ba = channel(a, 0);
            const int rb = channel(b, 16), gb = channel(b, 8), bb = channel(b, 0);
            if (x < 10) {
                /* Greyer: lighter, and its channels no farther apart than the floor's. */
                ck_assert_msg(ra + ga + ba > rb + gb + bb + 150, "smoke at %g,%g: %08x over %08x",
                              (double)x, (double)y, a, b);
                int spread_a = abs(ra - ba) + abs(ga - ba), spread_b = abs(rb - bb) + abs(gb - bb);
                ck_assert_int_le(spread_a, spread_b);
                smoky++;
            } else if (x < 20) {
                /* Yellow-green: green leads blue, unlike the bluish floor. */
                ck_assert_msg(ga > ba + 10 && gb < bb, "gas at %g,%g: %08x over %08x", (double)x,
                              (double)y, a, b);
                gassy++;
            } else {
                ck_assert_msg(a == b, "clean air at %g,%g: %08x, without hazards %08x", (double)x,
                              (double)y, a, b);
                clear++;
            }
        }
    }
    ck_assert_int_gt(smoky, 50);
    ck_assert_int_gt(gassy, 50);
    ck_assert_int_gt(clear, 50);
    const uint32_t crowd = th_view_crowd_color(CROWD_ID(0));
    const th_vec2 sg = th_view_world_to_screen(w, W, H, th_v2(15, 5));
    const th_vec2 sc = th_view_world_to_screen(w, W, H, th_v2(25, 5));
    /* Without hazards both show the crowd's colour; with them only the healthy one does. */
    ck_assert_int_gt(color_near(off, sg, 3, crowd), 4);
    ck_assert_int_gt(color_near(on, sc, 3, crowd), 4);
    ck_assert_int_eq(color_near(on, sg, 6, crowd), 0);
    /* And the incapacitated one is marked: its pixels differ from the floor's around it. */
    int marked = 0;
    for (int dy = -5; dy <= 5; dy++)
        for (int dx = -5; dx <= 5; dx++)
            marked += pixel_at(on, th_v2(sg.x + (float)dx, sg.y + (float)dy)) !=
                      pixel_at(on, th_v2(sg.x + 20.0f, sg.y));
    ck_assert_int_gt(marked, 20);
    free(on);
    free(off);
    th_world_destroy(w);
    th_world_destroy(w0);
}
END_TEST

/* ---- buildings: levels and stairs --------------------------------------------------------- */

static th_view_rect level_rect(const th_world *w, const th_view_layout *l, th_level_id id) {
    th_level_info li;
    int32_t cols, rows;
    float cs;
    ck_assert(th_world_get_level(w, id, &li));
    ck_assert(th_world_map_size(w, &cols, &rows, &cs));
    th_vec2 tl = th_view_layout_to_screen(l, th_v2((float)li.x0 * cs, (float)(li.y1 + 1) * cs));
    th_vec2 br = th_view_layout_to_screen(l, th_v2((float)(li.x1 + 1) * cs, (float)li.y0 * cs));
    return (th_view_rect){tl.x, tl.y, br.x - tl.x, br.y - tl.y};
}

static uint32_t *render_opts(const th_world *w, const th_view_opts *o, uint32_t overlays) {
    uint32_t *px = malloc(sizeof(uint32_t) * (size_t)o->width * (size_t)o->height);
    ck_assert_ptr_nonnull(px);
    th_error err = {0};
    ck_assert_msg(th_view_render_pixels(w, o, overlays, px, &err), "%s", err.message);
    return px;
}

/* Every level side by side: each labelled above its rectangle in the level colour; every
 * stair's flight and landing drawn in the stair colour over ground that is plain elsewhere. */
START_TEST(test_levels_and_stairs_drawn) {
    th_world *w = scene("office", 0, 0);
    ck_assert_uint_eq(th_world_level_count(w), 2);
    ck_assert_uint_gt(th_world_stair_count(w), 0);
    const int iw = 1280, ih = 800;
    th_view_opts o = th_view_default_opts();
    o.width = iw;
    o.height = ih;
    th_view_layout l;
    th_error err = {0};
    ck_assert_msg(th_view_get_layout(w, &o, 0, &l, &err), "%s", err.message);
    uint32_t *px = render_opts(w, &o, 0);
    for (uint32_t i = 0; i < th_world_level_count(w); i++) {
        th_view_rect r = level_rect(w, &l, (th_level_id){i + 1});
        th_view_rect above = {r.x, r.y - 30, r.w, 30};
        ck_assert_int_gt(count_color(px, iw, ih, above, 0xFF5FD0FFu), 40);
    }
    int32_t cols, rows;
    float cs;
    ck_assert(th_world_map_size(w, &cols, &rows, &cs));
    const uint32_t street = th_view_cell_color(TH_CELL_OPEN) | 0xFF000000u;
    for (uint32_t s = 0; s < th_world_stair_count(w); s++) {
        th_stair_info si;
        ck_assert(th_world_get_stair(w, (th_stair_id){s + 1}, &si));
        /* No cell of the flight or of the landing looks like plain ground at its centre. */
        for (int32_t y = si.y0; y <= si.y1; y++) {
            for (int32_t x = si.x0; x <= si.x1; x++) {
                th_vec2 p = th_view_layout_to_screen(&l, th_v2((x + 0.5f) * cs, (y + 0.5f) * cs));
                ck_assert(p.x >= 0 && p.y >= 0 && p.x < iw && p.y < ih);
                ck_assert_msg((px[(int)p.y * iw + (int)p.x] | 0xFF000000u) != street,
                              "stair %s: flight cell %d,%d drawn as plain ground", si.name, x, y);
            }
        }
        th_vec2 p =
            th_view_layout_to_screen(&l, th_v2((si.top_x + 0.5f) * cs, (si.top_y + 0.5f) * cs));
        ck_assert_msg((px[(int)p.y * iw + (int)p.x] | 0xFF000000u) != street,
                      "stair %s: landing drawn as plain ground", si.name);
    }
    /* Plain ground elsewhere: the middle of the ground floor. */
    th_vec2 mid = th_view_layout_to_screen(&l, th_v2(12 * cs, 6.5f * cs));
    ck_assert_uint_eq(px[(int)mid.y * iw + (int)mid.x] | 0xFF000000u, street);
    free(px);
    th_world_destroy(w);
}
END_TEST

/* An elevator: every stop drawn over ground that is plain elsewhere, and the car solid in the
 * elevators' colour at the stop it waits at (the ground floor, at the start). */
START_TEST(test_elevator_drawn) {
    th_world *w = scene("tower", 0, 0);
    ck_assert_uint_eq(th_world_elevator_count(w), 1);
    const int iw = 1600, ih = 600;
    th_view_opts o = th_view_default_opts();
    o.width = iw;
    o.height = ih;
    th_view_layout l;
    th_error err = {0};
    ck_assert_msg(th_view_get_layout(w, &o, 0, &l, &err), "%s", err.message);
    uint32_t *px = render_opts(w, &o, 0);
    int32_t cols, rows;
    float cs;
    ck_assert(th_world_map_size(w, &cols, &rows, &cs));
    const uint32_t street = th_view_cell_color(TH_CELL_OPEN) | 0xFF000000u;
    th_elevator_info e;
    ck_assert(th_world_get_elevator(w, (th_elevator_id){1}, &e));
    ck_assert_uint_eq(e.state, TH_ELEVATOR_IDLE);
    for (uint32_t s = 0; s < e.stop_count; s++) {
        const th_elevator_stop *st = &e.stops[s];
        th_vec2 p = th_view_layout_to_screen(&l, th_v2((st->x + 0.5f) * cs, (st->y + 0.5f) * cs));
        ck_assert(p.x >= 0 && p.y >= 0 && p.x < iw && p.y < ih);
        const uint32_t c = px[(int)p.y * iw + (int)p.x] | 0xFF000000u;
        ck_assert_msg(c != street, "stop %u drawn as plain ground", s);
        if (s == e.at) ck_assert_uint_eq(c, 0xFF7FD8C8u); /* the car, closed */
        else ck_assert_uint_ne(c, 0xFF7FD8C8u);
    }
    free(px);
    th_world_destroy(w);
}
END_TEST

/* One level alone: its rectangle is what the fit frames (the documented formula with the
 * level's rectangle), and nothing of the other level is drawn where it would be on screen,
 * while the frame of every level draws it there. A handle the world lacks is refused. */
/* Agents drawn under label rectangle `r` of layout `l` (their centres). */
static uint32_t agents_under(const th_world *w, const th_view_layout *l, th_view_rect r) {
    const th_agent_view v = th_world_agents(w);
    uint32_t n = 0;
    for (uint32_t i = 0; i < v.count; i++) {
        if (th_world_agent_elevator(w, v.id[i]).index1) continue; /* in a car: not drawn */
        th_vec2 s = th_view_layout_to_screen(l, th_v2(v.px[i], v.py[i]));
        n += s.x >= r.x && s.x <= r.x + r.w && s.y >= r.y && s.y <= r.y + r.h;
    }
    return n;
}

/* Labels keep off agents: a bunker in an open room takes its label above its marker, but with
 * a crowd standing there the label goes where it covers nobody; in the tower with its crowds
 * at the stairs the stair and lift labels cover less than half the agents they would in their
 * first places, and no bunker label covers one. */
START_TEST(test_labels_keep_off_agents) {
    char path[512];
    snprintf(path, sizeof path, "%s", th_test_file("labels.yaml"));
    for (int crowded = 0; crowded <= 1; crowded++) {
        FILE *f = fopen(path, "w");
        ck_assert_ptr_nonnull(f);
        fputs(
            "name: labels\nmap:\n  cell_size: 0.5\n  legend: {'#': wall, '.': open, 'A': {bunker: "
            "shelter}}\n  ascii: |\n",
            f);
        for (int y = 0; y < 24; y++) {
            fputs("    ", f);
            for (int x = 0; x < 40; x++)
                fputc(x == 0 || y == 0 || x == 39 || y == 23         ? '#'
                      : (y == 12 || y == 13) && (x == 19 || x == 20) ? 'A'
                                                                     : '.',
                      f);
            fputc('\n', f);
        }
        /* Rows 12-13 (top down) are y 5-6 m: the crowd stands on y 6.5-7 m, just above the
         * marker, where its label would go. */
        fputs("bunkers:\n  - {name: shelter, capacity: 100}\ncrowds:\n  - name: c\n    agents: [",
              f);
        for (int i = 0; crowded && i < 40; i++)
            fprintf(f, "%s[%.2f, %.2f]", i ? ", " : "", 7.75 + 0.25 * (i % 20),
                    6.5 + 0.5 * (i / 20));
        fputs("]\n", f);
        fclose(f);
        th_error err = {0};
        th_world *w = th_scene_load(path, &(th_scene_opts){.threads = 1}, NULL, &err);
        ck_assert_msg(w != NULL, "%s", err.message);
        th_view_opts o = small_opts();
        th_view_layout l;
        ck_assert_msg(th_view_get_layout(w, &o, TH_VIEW_OVERLAY_AGENTS, &l, &err), "%s",
                      err.message);
        ck_assert_uint_eq(l.labels, 1);
        const th_vec2 marker = th_view_layout_to_screen(&l, th_v2(10.0f, 6.0f));
        if (!crowded) ck_assert_float_lt(l.label[0].y + l.label[0].h, marker.y); /* above */
        else ck_assert_uint_eq(agents_under(w, &l, l.label[0]), 0);
        ck_assert_uint_eq(th_world_agent_count(w), crowded ? 40u : 0u);
        th_world_destroy(w);
    }
    unlink(path);
    /* The tower with its crowds at the stairs: laid out without agents, the stair and lift
     * labels take their first places; with agents, they move where they cover fewer: less than
     * half as many in all. */
    th_world *w = scene("tower", 0, 200);
    th_view_opts o = th_view_default_opts();
    th_view_layout bare, l;
    th_error err = {0};
    ck_assert_msg(th_view_get_layout(w, &o, o.overlays & ~TH_VIEW_OVERLAY_AGENTS, &bare, &err),
                  "%s", err.message);
    ck_assert_msg(th_view_get_layout(w, &o, o.overlays, &l, &err), "%s", err.message);
    ck_assert_uint_ge(l.place_labels, 11);
    ck_assert_uint_eq(l.place_labels, bare.place_labels);
    uint32_t covered = 0, covered_bare = 0, moved = 0;
    for (uint32_t i = 0; i < l.place_labels; i++) {
        covered += agents_under(w, &l, l.place_label[i]);
        covered_bare += agents_under(w, &l, bare.place_label[i]);
        moved += l.place_label[i].y != bare.place_label[i].y;
    }
    ck_assert_uint_gt(moved, 0);
    ck_assert_msg(2 * covered < covered_bare, "labels cover %u agents (%u in their first places)",
                  covered, covered_bare);
    for (uint32_t b = 0; b < l.labels; b++) ck_assert_uint_eq(agents_under(w, &l, l.label[b]), 0);
    th_world_destroy(w);
}
END_TEST

/* A bunker the scene calls an exit (the tower's door) is drawn in the exits' red, not a
 * shelter's colour, and once closed (destroyed) in grey, not the destroyed shelters' red. */
START_TEST(test_exit_bunker_drawn_as_exit) {
    th_world *w = scene("tower", 0, 0);
    th_bunker_info bi;
    ck_assert(th_world_get_bunker(w, BUNKER_ID(0), &bi));
    ck_assert(bi.exit);
    const float cs = 0.5f;
    /* The door's middle, and a point near its west end clear of the closed mark's cross. */
    const th_vec2 mid = th_v2((float)(bi.x0 + bi.x1 + 1) * 0.5f * cs, (float)(bi.y0 + 0.5f) * cs);
    const th_vec2 end = th_v2((float)bi.x0 * cs + 0.1f, (float)(bi.y0 + 0.5f) * cs);
    uint32_t *px = render(w, 0);
    ck_assert_uint_eq(pixel_at(px, th_view_world_to_screen(w, W, H, mid)), 0xFFE05050u);
    free(px);
    th_error err = {0};
    ck_assert_msg(th_world_destroy_bunker(w, BUNKER_ID(0), &err), "%s", err.message);
    th_world_step(w);
    px = render(w, 0);
    ck_assert_uint_eq(pixel_at(px, th_view_world_to_screen(w, W, H, end)), 0xFF8C939Eu);
    free(px);
    th_world_destroy(w);
}
END_TEST

/* A body drawn to its own radius (th_world_set_agent_radius): a walker of a crowd of 0.5 m
 * bodies covers a point 0.35 m to its side; given a 0.2 m body it no longer does. */
START_TEST(test_own_body_radius_drawn) {
    for (int own = 0; own <= 1; own++) {
        th_error err;
        th_world_def wd = th_default_world_def();
        wd.width = wd.height = 20.0f;
        wd.threads = 1;
        th_world *w = th_world_create(&wd, &err);
        ck_assert_msg(w != NULL, "%s", err.message);
        th_crowd_def cd = th_default_pedestrian_def();
        cd.body_radius = 0.5f;
        cd.color = 0x20C040;
        const th_crowd_id c = th_world_add_crowd(w, &cd, &err);
        const th_agent_id a = th_world_add_agent(w, c, th_v2(10, 10), th_v2(0, 0), &err);
        ck_assert(th_agent_id_valid(a));
        if (own) ck_assert_msg(th_world_set_agent_radius(w, a, 0.2f, &err), "%s", err.message);
        uint32_t *px = render(w, TH_VIEW_OVERLAY_AGENTS);
        const uint32_t side = pixel_at(px, th_view_world_to_screen(w, W, H, th_v2(9.65f, 10.0f)));
        const uint32_t centre = pixel_at(px, th_view_world_to_screen(w, W, H, th_v2(10.0f, 10.0f)));
        ck_assert_uint_eq(centre, 0xFF20C040u);
        if (own) ck_assert_uint_ne(side, 0xFF20C040u);
        else ck_assert_uint_eq(side, 0xFF20C040u);
        free(px);
        th_world_destroy(w);
    }
}
END_TEST

START_TEST(test_one_level_alone) {
    th_world *w = scene("office", 0, 60);
    /* Wide and low: the level fills the height, so the other level would show beside it. */
    const int iw = 1600, ih = 400;
    th_view_opts o = th_view_default_opts();
    o.width = iw;
    o.height = ih;
    o.level = th_world_find_level(w, "first");
    ck_assert_uint_ne(o.level.index1, 0);
    th_view_layout l;
    th_error err = {0};
    ck_assert_msg(th_view_get_layout(w, &o, TH_VIEW_OVERLAY_AGENTS, &l, &err), "%s", err.message);
    th_view_rect r = level_rect(w, &l, o.level);
    ck_assert_float_eq_tol(r.h, ih - 2.0 * TH_VIEW_MARGIN, 1e-2);
    ck_assert_float_eq_tol(r.x + r.w / 2, iw / 2.0, 1e-2);
    ck_assert_float_eq_tol(r.y, TH_VIEW_MARGIN, 1e-2);
    th_view_rect other = level_rect(w, &l, th_world_find_level(w, "ground"));
    ck_assert_float_lt(other.x + other.w, r.x + 1);
    ck_assert_float_gt(other.x + other.w, 100); /* on screen, where it is left out */
    uint32_t *alone = render_opts(w, &o, TH_VIEW_OVERLAY_AGENTS);
    int drawn = 0, total = 0;
    for (int y = (int)r.y + 2; y < (int)(r.y + r.h) - 2; y++) {
        for (int x = 0; x < (int)(other.x + other.w) - 1; x++) {
            total++;
            drawn += (alone[y * iw + x] | 0xFF000000u) != 0xFF0B0E14u;
        }
    }
    ck_assert_int_gt(total, 10000);
    ck_assert_msg(drawn == 0, "%d of %d pixels of the other level drawn", drawn, total);
    /* The level itself is drawn: walls and floor inside its rectangle. */
    th_view_rect inner = {r.x + 4, r.y + 4, r.w - 8, r.h - 8};
    ck_assert_int_gt(count_color(alone, iw, ih, inner, th_view_cell_color(TH_CELL_WALL)), 1000);
    ck_assert_int_gt(count_color(alone, iw, ih, inner, th_view_cell_color(TH_CELL_OPEN)), 1000);
    /* The frame of every level (the same size) differs, and draws the ground floor. */
    th_view_opts all = o;
    all.level = (th_level_id){0};
    uint32_t *every = render_opts(w, &all, TH_VIEW_OVERLAY_AGENTS);
    ck_assert(memcmp(alone, every, sizeof(uint32_t) * iw * ih) != 0);
    th_view_layout la;
    ck_assert(th_view_get_layout(w, &all, TH_VIEW_OVERLAY_AGENTS, &la, &err));
    th_view_rect g = level_rect(w, &la, th_world_find_level(w, "ground"));
    ck_assert_int_gt(count_color(every, iw, ih, g, th_view_cell_color(TH_CELL_WALL)), 500);
    /* Panels stay with a level alone, and the HUD names it. */
    ck_assert(th_view_get_layout(w, &o, TH_VIEW_OVERLAY_HUD | TH_VIEW_OVERLAY_AGENTS, &l, &err));
    ck_assert_float_gt(l.hud.w, 0);
    /* A level the world lacks. */
    o.level = (th_level_id){99};
    ck_assert(!th_view_render_pixels(w, &o, 0, alone, &err));
    TH_TEST_ERR(err, TH_ERR_INVALID);
    ck_assert_ptr_nonnull(strstr(err.message, "level"));
    ck_assert(!th_view_get_layout(w, &o, 0, &l, &err));
    free(alone);
    free(every);
    th_world_destroy(w);
    /* A world without levels: any level is refused; the null handle is every level. */
    th_world *flat = evac(10, 0);
    o.level = (th_level_id){1};
    ck_assert(!th_view_screenshot(flat, &o, "/tmp/never-written.png", 0, &err));
    TH_TEST_ERR(err, TH_ERR_INVALID);
    th_world_destroy(flat);
}
END_TEST

int main(void) {
    /* Headless: SDL must never try to reach a display from these tests. */
    setenv("SDL_VIDEODRIVER", "dummy", 1);
    if (!th_test_dir_make("viewer")) return EXIT_FAILURE;
    Suite *s = suite_create("viewer");
    TCase *tc = tcase_create("headless");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_walls_where_walls_are);
    tcase_add_test(tc, test_agents_where_agents_are);
    tcase_add_test(tc, test_flow_overlay_follows_bunker_destruction);
    tcase_add_test(tc, test_squad_overlay_marks_slots);
    tcase_add_test(tc, test_flow_overlay_of_one_bunker);
    tcase_add_test(tc, test_screenshot_png);
    tcase_add_test(tc, test_flock_all_overlays);
    tcase_add_test(tc, test_transform_is_the_documented_fit);
    tcase_add_test(tc, test_bad_arguments);
    tcase_add_test(tc, test_no_display_under_dummy_driver);
    tcase_add_test(tc, test_viewer_refuses_a_driver_that_shows_no_window);
    tcase_add_test(tc, test_panels_leave_the_map_clear);
    tcase_add_test(tc, test_layout_without_panels_is_the_fit);
    tcase_add_test(tc, test_legend_drawn);
    tcase_add_test(tc, test_leader_ring_keeps_crowd_colour);
    tcase_add_test(tc, test_font_descenders);
    tcase_add_test(tc, test_density_and_grid_visible_at_default_zoom);
    tcase_add_test(tc, test_density_overlay_leaves_walls_clear);
    tcase_add_test(tc, test_stair_labels_never_overprint);
    tcase_add_test(tc, test_wide_world_spans_the_window);
    tcase_add_test(tc, test_pheromone_overlay_marks_trail_cells);
    tcase_add_test(tc, test_hazards_drawn);
    tcase_add_test(tc, test_levels_and_stairs_drawn);
    tcase_add_test(tc, test_elevator_drawn);
    tcase_add_test(tc, test_one_level_alone);
    tcase_add_test(tc, test_labels_keep_off_agents);
    tcase_add_test(tc, test_exit_bunker_drawn_as_exit);
    tcase_add_test(tc, test_own_body_radius_drawn);
    suite_add_tcase(s, tc);
    const int rc = th_test_run(s);
    return th_test_dir_remove() ? rc : EXIT_FAILURE;
}
