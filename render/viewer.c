/* The viewer window: the frame loop with its fixed-step clock, input, and the headless
 * screenshot renderer.
 *
 * The loop follows "fix your timestep": real elapsed time (times the sim speed) feeds an
 * accumulator clock that grants whole steps of the world's timestep; the frame then draws the
 * agents interpolated between the last two steps by the clock's alpha. So the simulation rate
 * is independent of the frame rate, and motion is smooth at any refresh rate. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "throng/clock.h"
#include "view_internal.h"

#define SPEED_MIN (1.0 / 64)
#define SPEED_MAX 64.0

th_view_opts th_view_default_opts(void) {
    return (th_view_opts){
        .width = 1280,
        .height = 800,
        .sim_speed = 1.0,
        .title = "throng",
        .overlays = TH_VIEW_OVERLAY_HUD | TH_VIEW_OVERLAY_LEGEND | TH_VIEW_OVERLAY_AGENTS,
        .screenshot_prefix = "throng",
        .flow_bunker = -1,
    };
}

static bool check_opts(const th_view_opts *o, th_error *err) {
    if (o->width < TH_VIEW_MIN_DIM || o->width > TH_VIEW_MAX_DIM || o->height < TH_VIEW_MIN_DIM ||
        o->height > TH_VIEW_MAX_DIM) {
        tv_error(err, TH_ERR_INVALID, "view size: expected %d..%d pixels a side, found %d x %d",
                 TH_VIEW_MIN_DIM, TH_VIEW_MAX_DIM, o->width, o->height);
        return false;
    }
    if (!(o->sim_speed >= SPEED_MIN && o->sim_speed <= SPEED_MAX)) {
        tv_error(err, TH_ERR_INVALID, "sim speed: expected %g..%g, found %g", SPEED_MIN, SPEED_MAX,
                 o->sim_speed);
        return false;
    }
    if (o->max_frames < 0) {
        tv_error(err, TH_ERR_INVALID, "max frames: expected >= 0, found %d", o->max_frames);
        return false;
    }
    if (o->timeline && !o->timeline->seek) {
        tv_error(err, TH_ERR_INVALID, "timeline: expected a seek function, found none");
        return false;
    }
    return true;
}

/* opts->level names a level of `w`, or none. */
static bool check_level(const th_world *w, const th_view_opts *o, th_error *err) {
    th_level_info li;
    if (!o->level.index1 || th_world_get_level(w, o->level, &li)) return true;
    tv_error(err, TH_ERR_INVALID, "level: this world has no level %u (it has %u)", o->level.index1,
             th_world_level_count(w));
    return false;
}

/* Whether the video driver SDL started shows windows to anyone: not its dummy, offscreen or
 * evdev drivers, and with at least one display. */
static bool video_shows_windows(void) {
    const char *drv = SDL_GetCurrentVideoDriver();
    return drv && strcmp(drv, "dummy") != 0 && strcmp(drv, "offscreen") != 0 &&
           strcmp(drv, "evdev") != 0 && SDL_GetNumVideoDisplays() > 0;
}

bool th_view_display_available(void) {
    if (SDL_InitSubSystem(SDL_INIT_VIDEO) != 0) return false;
    bool ok = video_shows_windows();
    SDL_QuitSubSystem(SDL_INIT_VIDEO);
    SDL_Quit();
    return ok;
}

/* Start SDL's video on a driver that shows windows. An X server with no other client (Xvfb, a
 * bare Xorg) resets when its last client leaves, such as th_view_display_available's probe,
 * and refuses connections while it does: SDL then falls back to its offscreen driver, and the
 * viewer would run in a window nobody sees. So a start on such a driver is undone and tried
 * again, for up to a second. On failure *drv names the last driver tried, or is "" when SDL's
 * video did not start at all (SDL_GetError says why). */
static bool video_start(char *drv, size_t cap) {
    for (int attempt = 0; attempt < 20; attempt++) {
        if (attempt) SDL_Delay(50);
        drv[0] = '\0';
        if (SDL_Init(SDL_INIT_VIDEO) != 0) continue;
        if (video_shows_windows()) return true;
        const char *d = SDL_GetCurrentVideoDriver();
        snprintf(drv, cap, "%s", d ? d : "");
        SDL_Quit();
    }
    return false;
}

/* ---- headless ---------------------------------------------------------------------------- */

/* Render one frame of `w` into a new software surface; the caller frees it. */
static SDL_Surface *render_surface(const th_world *w, const th_view_opts *o, uint32_t overlays,
                                   th_error *err) {
    SDL_Surface *s =
        SDL_CreateRGBSurfaceWithFormat(0, o->width, o->height, 32, SDL_PIXELFORMAT_ARGB8888);
    if (!s) {
        tv_error(err, TH_ERR_SYSTEM, "cannot create a %d x %d surface: %s", o->width, o->height,
                 SDL_GetError());
        return NULL;
    }
    SDL_Renderer *r = SDL_CreateSoftwareRenderer(s);
    if (!r) {
        tv_error(err, TH_ERR_SYSTEM, "cannot create the software renderer: %s", SDL_GetError());
        SDL_FreeSurface(s);
        return NULL;
    }
    tv_ctx c;
    bool ok = tv_ctx_init(&c, r, o->width, o->height, err);
    if (ok) {
        c.overlays = overlays;
        c.flow_bunker = o->flow_bunker;
        c.level = o->level.index1;
        c.title = o->title;
        tv_camera_fit(&c.cam, w);
        tv_rates rates = {.speed = o->sim_speed, .live = false};
        tv_record_profile(&c, w);
        tv_draw_frame(&c, w, 1.0, &rates);
        SDL_RenderPresent(r);
    }
    tv_ctx_free(&c);
    SDL_DestroyRenderer(r);
    if (!ok) {
        SDL_FreeSurface(s);
        return NULL;
    }
    return s;
}

static bool headless_args(const th_world *w, const th_view_opts **o, th_view_opts *def,
                          th_error *err) {
    if (!*o) {
        *def = th_view_default_opts();
        *o = def;
    }
    if (!w) {
        tv_error(err, TH_ERR_INVALID, "no world to render");
        return false;
    }
    return check_opts(*o, err) && check_level(w, *o, err);
}

bool th_view_render_pixels(const th_world *w, const th_view_opts *opts, uint32_t overlays,
                           uint32_t *pixels, th_error *err) {
    th_view_opts def;
    if (!headless_args(w, &opts, &def, err)) return false;
    if (!pixels) {
        tv_error(err, TH_ERR_INVALID, "no pixel buffer");
        return false;
    }
    SDL_Surface *s = render_surface(w, opts, overlays, err);
    if (!s) return false;
    for (int y = 0; y < s->h; y++)
        memcpy(pixels + (size_t)y * (size_t)s->w, (const uint8_t *)s->pixels + (size_t)y * s->pitch,
               (size_t)s->w * 4);
    SDL_FreeSurface(s);
    return true;
}

bool th_view_screenshot(const th_world *w, const th_view_opts *opts, const char *png_path,
                        uint32_t overlays, th_error *err) {
    th_view_opts def;
    if (!headless_args(w, &opts, &def, err)) return false;
    if (!png_path || !png_path[0]) {
        tv_error(err, TH_ERR_INVALID, "no PNG path");
        return false;
    }
    SDL_Surface *s = render_surface(w, opts, overlays, err);
    if (!s) return false;
    bool ok = tv_write_png(png_path, s->pixels, s->w, s->h, s->pitch, err);
    SDL_FreeSurface(s);
    return ok;
}

bool th_view_get_layout(const th_world *w, const th_view_opts *opts, uint32_t overlays,
                        th_view_layout *out, th_error *err) {
    th_view_opts def;
    if (!headless_args(w, &opts, &def, err)) return false;
    if (!out) {
        tv_error(err, TH_ERR_INVALID, "nowhere to store the layout");
        return false;
    }
    SDL_Surface *s =
        SDL_CreateRGBSurfaceWithFormat(0, opts->width, opts->height, 32, SDL_PIXELFORMAT_ARGB8888);
    SDL_Renderer *r = s ? SDL_CreateSoftwareRenderer(s) : NULL;
    if (!r) tv_error(err, TH_ERR_SYSTEM, "cannot create the software renderer: %s", SDL_GetError());
    tv_ctx c;
    bool ok = r && tv_ctx_init(&c, r, opts->width, opts->height, err);
    if (ok) {
        /* The whole frame, as th_view_screenshot draws it: labels are placed while drawing. */
        c.overlays = overlays;
        c.flow_bunker = opts->flow_bunker;
        c.level = opts->level.index1;
        c.title = opts->title;
        tv_rates rates = {.speed = opts->sim_speed, .live = false};
        tv_record_profile(&c, w);
        tv_draw_frame(&c, w, 1.0, &rates);
        memset(out, 0, sizeof *out);
        const SDL_FRect *src[] = {&c.lay.hud, &c.lay.legend, &c.lay.prof, &c.lay.free};
        const uint32_t bits[] = {TH_VIEW_OVERLAY_HUD, TH_VIEW_OVERLAY_LEGEND,
                                 TH_VIEW_OVERLAY_PROFILER, 0};
        th_view_rect *dst[] = {&out->hud, &out->legend, &out->profiler, &out->map};
        for (int i = 0; i < 4; i++)
            if (!bits[i] || (overlays & bits[i]))
                *dst[i] = (th_view_rect){src[i]->x, src[i]->y, src[i]->w, src[i]->h};
        out->scale = c.cam.scale;
        th_vec2 o = tv_to_screen(&c.cam, 0, 0);
        out->ox = o.x;
        out->oy = o.y;
        out->place_labels = c.place_label_count;
        out->place_labels_left_out = c.place_label_left_out;
        for (uint32_t i = 0; i < c.place_label_count; i++)
            out->place_label[i] = (th_view_rect){c.place_label[i].x, c.place_label[i].y,
                                                 c.place_label[i].w, c.place_label[i].h};
        out->labels = c.label_count;
        for (uint32_t b = 0; b < c.label_count; b++)
            out->label[b] = (th_view_rect){c.label[b].x, c.label[b].y, c.label[b].w, c.label[b].h};
    }
    if (r) tv_ctx_free(&c);
    if (r) SDL_DestroyRenderer(r);
    if (s) SDL_FreeSurface(s);
    return ok;
}

th_vec2 th_view_layout_to_screen(const th_view_layout *l, th_vec2 p) {
    if (!l) return th_v2(0.0f, 0.0f);
    return th_v2((float)(l->ox + p.x * l->scale), (float)(l->oy - p.y * l->scale));
}

bool th_view_time_frames(th_world *w, const th_view_opts *opts, uint32_t overlays, int frames,
                         double *ms_per_frame, th_error *err) {
    th_view_opts def;
    if (!headless_args(w, &opts, &def, err)) return false;
    if (frames < 1 || !ms_per_frame) {
        tv_error(err, TH_ERR_INVALID,
                 "frames: expected >= 1 and somewhere to store the time, found %d", frames);
        return false;
    }
    SDL_Surface *s =
        SDL_CreateRGBSurfaceWithFormat(0, opts->width, opts->height, 32, SDL_PIXELFORMAT_ARGB8888);
    SDL_Renderer *r = s ? SDL_CreateSoftwareRenderer(s) : NULL;
    tv_ctx c;
    bool ok = r && tv_ctx_init(&c, r, opts->width, opts->height, err);
    if (!r) tv_error(err, TH_ERR_SYSTEM, "cannot create the software renderer: %s", SDL_GetError());
    if (ok) {
        c.overlays = overlays;
        c.flow_bunker = opts->flow_bunker;
        c.level = opts->level.index1;
        c.title = opts->title;
        tv_camera_fit(&c.cam, w);
        tv_snapshot_prev(&c, w);
        th_world_step(w);
        tv_record_profile(&c, w);
        tv_rates rates = {.speed = opts->sim_speed, .live = true, .fps = 60, .steps_per_s = 60};
        tv_draw_frame(&c, w, 0.5, &rates); /* warm-up: textures built, batches sized */
        uint64_t t0 = SDL_GetPerformanceCounter();
        for (int i = 0; i < frames; i++) tv_draw_frame(&c, w, 0.5, &rates);
        uint64_t t1 = SDL_GetPerformanceCounter();
        *ms_per_frame = (double)(t1 - t0) * 1000.0 / (double)SDL_GetPerformanceFrequency() / frames;
    }
    if (r) tv_ctx_free(&c);
    if (r) SDL_DestroyRenderer(r);
    if (s) SDL_FreeSurface(s);
    return ok;
}

/* ---- interactive ------------------------------------------------------------------------- */

typedef struct viewer {
    th_world **world;
    const th_view_opts *o;
    SDL_Window *win;
    SDL_Renderer *r;
    tv_ctx c;
    th_clock clock;
    double speed;
    bool paused, step_once, quit, shot;
    const char *quit_reason;
    /* Bunker states as the user last asked for them. A click queues an event that applies at
     * the next step; toggling again before that must undo the request, not repeat it. */
    bool wanted_destroyed[TH_MAX_BUNKERS];
    /* Left button: press position, and whether it moved far enough to be a drag. */
    bool pressing, dragged;
    int press_x, press_y, last_x, last_y;
    /* Wall breaks clicked and not yet applied (shown until the world steps past `marks_step`). */
    th_vec2 marks[TV_MAX_MARKS];
    int mark_count;
    uint64_t marks_step;
    /* "saved FILE" for a few seconds after S (and other passing notices). */
    char saved[600];
    uint64_t saved_until; /* SDL performance counter */
    /* A replay's slider held down with the left button: the step under the pointer, gone to
     * when the button is released. */
    bool scrubbing;
    uint64_t scrub_step;
} viewer;

/* With opts->print_events: one line "event WHAT step N[ DETAIL]" per user action. */
static void say(const viewer *v, const char *what, const char *detail_fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void say(const viewer *v, const char *what, const char *detail_fmt, ...) {
    if (!v->o->print_events) return;
    printf("event %s step %llu", what, (unsigned long long)th_world_step_count(*v->world));
    if (detail_fmt) {
        va_list ap;
        va_start(ap, detail_fmt);
        putchar(' ');
        vprintf(detail_fmt, ap);
        va_end(ap);
    }
    putchar('\n');
    fflush(stdout);
}

/* A notice in the HUD for a few seconds. */
static void notice(viewer *v, const char *text) {
    snprintf(v->saved, sizeof v->saved, "%s", text);
    v->saved_until = SDL_GetPerformanceCounter() + 4 * SDL_GetPerformanceFrequency();
}

/* Tell opts->on_action what the user asked of the world. */
static void report_action(const viewer *v, th_view_action a) {
    if (v->o->on_action) v->o->on_action(v->o->user, *v->world, &a);
}

/* In a replay the world is the recorded run's: what would change it is refused. */
static bool read_only(viewer *v) {
    if (!v->o->timeline) return false;
    notice(v, "replay: the recorded run cannot be changed");
    say(v, "read_only", NULL);
    return true;
}

static void sync_bunkers(viewer *v) {
    uint32_t n = th_world_bunker_count(*v->world);
    for (uint32_t b = 0; b < n && b < TH_MAX_BUNKERS; b++) {
        th_bunker_info bi;
        if (th_world_get_bunker(*v->world, (th_bunker_id){b + 1}, &bi))
            v->wanted_destroyed[b] = bi.destroyed;
    }
}

static void toggle_bunker(viewer *v, uint32_t b) {
    th_bunker_info bi;
    const th_bunker_id id = {b + 1};
    if (b >= TH_MAX_BUNKERS || !th_world_get_bunker(*v->world, id, &bi) || read_only(v)) return;
    th_error err = {0};
    bool destroy = !v->wanted_destroyed[b];
    bool ok = destroy ? th_world_destroy_bunker(*v->world, id, &err)
                      : th_world_restore_bunker(*v->world, id, &err);
    if (!ok) {
        fprintf(stderr, "viewer: %s\n", err.message);
        return;
    }
    v->wanted_destroyed[b] = destroy;
    report_action(v, (th_view_action){.kind = destroy ? TH_VIEW_ACTION_DESTROY_BUNKER
                                                      : TH_VIEW_ACTION_RESTORE_BUNKER,
                                      .step = th_world_step_count(*v->world),
                                      .bunker = id});
    char what[96];
    snprintf(what, sizeof what, "%s %s", destroy ? "destroy_bunker" : "restore_bunker", bi.name);
    say(v, what, "sheltered %u", bi.sheltered);
}

/* Break the 4-connected piece of destructible wall containing cell (x, y): one break event per
 * row run of the piece, so the rectangle of each event holds only cells of this piece.
 * Rejected: one event for the piece's bounding box, which would also break other rubble inside
 * it. The piece is capped at 65,536 cells so a huge rubble field cannot stall a frame. */
static void break_piece(viewer *v, int32_t x, int32_t y) {
    th_world *w = *v->world;
    int32_t cols, rows;
    float cs;
    if (!th_world_map_size(w, &cols, &rows, &cs)) return;
    enum { MAX_PIECE = 65536 };
    int32_t *stack = malloc(sizeof(int32_t) * 2 * MAX_PIECE);
    uint8_t *seen = calloc((size_t)cols * (size_t)rows, 1);
    if (!stack || !seen) {
        fprintf(stderr, "viewer: out of memory breaking walls\n");
        free(stack);
        free(seen);
        return;
    }
    int n = 0, cells = 0;
    stack[n++] = x;
    stack[n++] = y;
    seen[(size_t)y * cols + x] = 1;
    th_error err = {0};
    bool ok = true;
    while (n > 0 && ok) {
        int32_t cy = stack[--n], cx = stack[--n];
        /* Extend to the whole row run, then push the runs above and below. */
        int32_t x0 = cx, x1 = cx;
        while (x0 > 0 && !seen[(size_t)cy * cols + x0 - 1] &&
               th_world_cell(w, x0 - 1, cy, NULL) == TH_CELL_DESTRUCTIBLE)
            seen[(size_t)cy * cols + --x0] = 1;
        while (x1 + 1 < cols && !seen[(size_t)cy * cols + x1 + 1] &&
               th_world_cell(w, x1 + 1, cy, NULL) == TH_CELL_DESTRUCTIBLE)
            seen[(size_t)cy * cols + ++x1] = 1;
        ok = th_world_break_walls(w, x0, cy, x1, cy, &err);
        if (ok)
            report_action(v, (th_view_action){.kind = TH_VIEW_ACTION_BREAK_WALLS,
                                              .step = th_world_step_count(w),
                                              .x0 = x0,
                                              .y0 = cy,
                                              .x1 = x1,
                                              .y1 = cy});
        cells += x1 - x0 + 1;
        for (int32_t dy = -1; dy <= 1 && ok; dy += 2) {
            int32_t ny = cy + dy;
            if (ny < 0 || ny >= rows) continue;
            for (int32_t nx = x0; nx <= x1; nx++) {
                if (seen[(size_t)ny * cols + nx] || cells + n / 2 >= MAX_PIECE ||
                    th_world_cell(w, nx, ny, NULL) != TH_CELL_DESTRUCTIBLE)
                    continue;
                seen[(size_t)ny * cols + nx] = 1;
                stack[n++] = nx;
                stack[n++] = ny;
            }
        }
    }
    free(stack);
    free(seen);
    if (!ok) fprintf(stderr, "viewer: %s\n", err.message);
    if (ok && v->mark_count < TV_MAX_MARKS) {
        v->marks[v->mark_count++] = th_v2(((float)x + 0.5f) * cs, ((float)y + 0.5f) * cs);
        v->marks_step = th_world_step_count(w);
    }
    say(v, "break_walls", "cell %d %d cells %d", x, y, cells);
}

static void click(viewer *v, int sx, int sy) {
    th_world *w = *v->world;
    /* Nothing of a level left out can be clicked: it is not drawn. */
    if (!tv_shown(&v->c, w, tv_to_world(&v->c.cam, sx, sy))) return;
    uint32_t n = th_world_bunker_count(w);
    for (uint32_t b = 0; b < n; b++) {
        SDL_FRect m;
        if (tv_bunker_marker(&v->c, w, b, &m) && sx >= m.x && sx <= m.x + m.w && sy >= m.y &&
            sy <= m.y + m.h) {
            toggle_bunker(v, b);
            return;
        }
    }
    int32_t cols, rows;
    float cs;
    if (!th_world_map_size(w, &cols, &rows, &cs)) return;
    th_vec2 p = tv_to_world(&v->c.cam, sx, sy);
    if (!(p.x >= 0 && p.y >= 0 && p.x < cols * cs && p.y < rows * cs)) return;
    int32_t cx = (int32_t)(p.x / cs), cy = (int32_t)(p.y / cs);
    if (cx < cols && cy < rows && th_world_cell(w, cx, cy, NULL) == TH_CELL_DESTRUCTIBLE &&
        !read_only(v))
        break_piece(v, cx, cy);
}

static void zoom_at(viewer *v, int sx, int sy, double factor) {
    tv_camera *cam = &v->c.cam;
    th_vec2 before = tv_to_world(cam, sx, sy);
    double s = cam->scale * factor;
    if (s < 1e-4 || s > 1e4) return;
    cam->scale = s;
    th_vec2 after = tv_to_world(cam, sx, sy);
    /* Keep the world point under the cursor where it was. */
    cam->cx += before.x - after.x;
    cam->cy += before.y - after.y;
    v->c.at_fit = false;
}

/* What the HUD tells this frame: clicks not applied yet, and a screenshot just saved. */
static void set_notes(viewer *v) {
    tv_ctx *c = &v->c;
    th_world *w = *v->world;
    c->note_count = 0;
    c->queued_bunkers = 0;
    if (v->mark_count && th_world_step_count(w) > v->marks_step) v->mark_count = 0;
    uint32_t n = th_world_bunker_count(w);
    for (uint32_t b = 0; b < n && b < TH_MAX_BUNKERS; b++) {
        th_bunker_info bi;
        if (!th_world_get_bunker(w, (th_bunker_id){b + 1}, &bi) ||
            bi.destroyed == v->wanted_destroyed[b])
            continue;
        if (b < 64) c->queued_bunkers |= 1ull << b;
        if (c->note_count < TV_MAX_NOTES)
            snprintf(c->notes[c->note_count++], sizeof c->notes[0], "queued: %s bunker %s",
                     v->wanted_destroyed[b] ? "destroy" : "restore", bi.name);
    }
    for (int i = 0; i < v->mark_count; i++) {
        c->marks[i] = v->marks[i];
        if (c->note_count < TV_MAX_NOTES)
            snprintf(c->notes[c->note_count++], sizeof c->notes[0],
                     "queued: break wall at %.0f,%.0f", (double)v->marks[i].x,
                     (double)v->marks[i].y);
    }
    c->mark_count = v->mark_count;
    if (v->saved[0] && SDL_GetPerformanceCounter() < v->saved_until && c->note_count < TV_MAX_NOTES)
        snprintf(c->notes[c->note_count++], sizeof c->notes[0], "%.90s", v->saved);
}

static void set_speed(viewer *v, double s) {
    if (s < SPEED_MIN) s = SPEED_MIN;
    if (s > SPEED_MAX) s = SPEED_MAX;
    v->speed = s;
    /* Enough catch-up steps for this speed at 30 fps; more would let a slow world stall. */
    th_world_def d = th_world_get_def(*v->world);
    double per_frame = s / (30.0 * (d.timestep > 0 ? d.timestep : 1.0 / 60));
    int max_steps = (int)ceil(per_frame) + 1;
    if (max_steps > 128) max_steps = 128;
    double acc = v->clock.accumulator;
    v->clock = th_clock_make(d.timestep, max_steps);
    v->clock.accumulator = acc;
}

/* A replay: go to `step` of the recorded run (clamped to its end). */
static void seek_to(viewer *v, uint64_t step) {
    const th_view_timeline *t = v->o->timeline;
    if (step > t->last_step) step = t->last_step;
    const th_world *before = *v->world;
    if (!t->seek(v->o->user, v->world, step)) {
        fprintf(stderr, "viewer: cannot go to step %llu of the replay\n", (unsigned long long)step);
        return;
    }
    /* A fresh world shares nothing drawn with the old one; the same world stepped on keeps
     * its map, but not the state to interpolate from. */
    if (*v->world != before) tv_ctx_forget_world(&v->c);
    v->c.prev_valid = false;
    v->c.map_dirty = true;
    float box[4];
    if (v->c.level && !tv_level_box(*v->world, v->c.level, box)) v->c.level = 0;
    v->mark_count = 0;
    sync_bunkers(v);
    v->clock.accumulator = 0;
    say(v, "seek", "%llu", (unsigned long long)step);
}

static void restart(viewer *v) {
    if (v->o->timeline) {
        seek_to(v, 0);
        return;
    }
    if (!v->o->restart) {
        say(v, "restart_unavailable", NULL);
        return;
    }
    th_world *nw = v->o->restart(v->o->user);
    if (!nw) {
        fprintf(stderr, "viewer: restart failed, keeping the current scene\n");
        return;
    }
    th_world_destroy(*v->world);
    *v->world = nw;
    tv_ctx_forget_world(&v->c);
    v->c.at_fit = true;
    float box[4];
    if (v->c.level && !tv_level_box(nw, v->c.level, box)) v->c.level = 0;
    v->mark_count = 0;
    sync_bunkers(v);
    set_speed(v, v->speed);
    v->clock.accumulator = 0;
    report_action(v, (th_view_action){.kind = TH_VIEW_ACTION_RESTART});
    say(v, "restart", NULL);
}

static void toggle_overlay(viewer *v, uint32_t bit, const char *name) {
    v->c.overlays ^= bit;
    char what[64];
    snprintf(what, sizeof what, "overlay %s %s", name, (v->c.overlays & bit) ? "on" : "off");
    say(v, what, NULL);
}

/* Show field `b` in the flow overlay: bunker b's own field, a destination field (numbered after
 * the bunkers), or the nearest-bunker field for -1 (or a field the world lacks). Choosing a
 * field turns the overlay on: the choice would be invisible otherwise. */
static void choose_flow(viewer *v, int b) {
    const th_world *w = *v->world;
    const int nb = (int)th_world_bunker_count(w), fields = nb + (int)th_world_destination_count(w);
    if (b < 0 || b >= fields) b = -1;
    v->c.flow_bunker = b;
    if (!(v->c.overlays & TH_VIEW_OVERLAY_FLOW)) toggle_overlay(v, TH_VIEW_OVERLAY_FLOW, "flow");
    char name[96], what[128];
    snprintf(what, sizeof what, "flow_field %s%s", b >= 0 && b < nb ? "bunker " : "",
             tv_flow_name(&v->c, w, name, sizeof name));
    say(v, what, NULL);
}

/* Show level `index1` alone (0: every level) and frame it. */
static void show_level(viewer *v, uint32_t index1) {
    const th_world *w = *v->world;
    if (th_world_level_count(w) == 0) {
        say(v, "level", "none: the scene has no levels");
        return;
    }
    v->c.level = index1;
    v->c.at_fit = true;
    th_level_info li;
    if (index1 && th_world_get_level(w, (th_level_id){index1}, &li)) say(v, "level", "%s", li.name);
    else say(v, "level", "all");
}

static void on_key(viewer *v, const SDL_KeyboardEvent *k) {
    SDL_Keycode s = k->keysym.sym;
    if (k->repeat && s != SDLK_PERIOD && s != SDLK_LEFT && s != SDLK_RIGHT) return;
    switch (s) {
    case SDLK_ESCAPE:
        v->quit = true;
        v->quit_reason = "key";
        break;
    case SDLK_SPACE:
        v->paused = !v->paused;
        say(v, v->paused ? "pause" : "resume", NULL);
        break;
    case SDLK_PERIOD:
        if (v->paused) v->step_once = true;
        break;
    case SDLK_PLUS:
    case SDLK_EQUALS:
    case SDLK_KP_PLUS:
        set_speed(v, v->speed * 2);
        say(v, "speed", "%g", v->speed);
        break;
    case SDLK_MINUS:
    case SDLK_KP_MINUS:
        set_speed(v, v->speed / 2);
        say(v, "speed", "%g", v->speed);
        break;
    case SDLK_f: toggle_overlay(v, TH_VIEW_OVERLAY_FLOW, "flow"); break;
    case SDLK_b: {
        /* nearest -> bunker 0 -> ... -> last bunker -> destination field 0 -> ... -> nearest */
        int cur = tv_flow_bunker(&v->c, *v->world);
        int fields =
            (int)(th_world_bunker_count(*v->world) + th_world_destination_count(*v->world));
        int next = cur + 1 < fields ? cur + 1 : -1;
        choose_flow(v, next);
        break;
    }
    case SDLK_q: toggle_overlay(v, TH_VIEW_OVERLAY_SQUADS, "squads"); break;
    case SDLK_d: toggle_overlay(v, TH_VIEW_OVERLAY_DENSITY, "density"); break;
    case SDLK_g: toggle_overlay(v, TH_VIEW_OVERLAY_GRID, "grid"); break;
    case SDLK_a: toggle_overlay(v, TH_VIEW_OVERLAY_PHEROMONE, "pheromone"); break;
    case SDLK_w: toggle_overlay(v, TH_VIEW_OVERLAY_WALLDIST, "wall_distance"); break;
    case SDLK_p: toggle_overlay(v, TH_VIEW_OVERLAY_PROFILER, "profiler"); break;
    case SDLK_t: toggle_overlay(v, TH_VIEW_OVERLAY_HUD, "hud"); break;
    case SDLK_h: toggle_overlay(v, TH_VIEW_OVERLAY_HELP, "help"); break;
    case SDLK_l: toggle_overlay(v, TH_VIEW_OVERLAY_LEGEND, "legend"); break;
    case SDLK_0:
    case SDLK_KP_0:
    case SDLK_HOME:
        /* Frame the map area again (the next frame refits, and keeps refitting on panel toggles
         * and window resizes until the next pan or zoom). */
        v->c.at_fit = true;
        say(v, "reset_view", NULL);
        break;
    case SDLK_PAGEUP:
    case SDLK_RIGHTBRACKET: show_level(v, tv_level_step(*v->world, v->c.level, 1)); break;
    case SDLK_PAGEDOWN:
    case SDLK_LEFTBRACKET: show_level(v, tv_level_step(*v->world, v->c.level, -1)); break;
    case SDLK_o: show_level(v, 0); break;
    case SDLK_r: restart(v); break;
    case SDLK_s: v->shot = true; break;
    case SDLK_LEFT:
    case SDLK_RIGHT:
        if (v->o->timeline) {
            /* 5 s of the run, or one step with Shift. */
            const th_world_def d = th_world_get_def(*v->world);
            uint64_t by = (k->keysym.mod & KMOD_SHIFT)
                              ? 1
                              : (uint64_t)ceil(5.0 / (d.timestep > 0 ? d.timestep : 1.0 / 60));
            uint64_t now = th_world_step_count(*v->world);
            if (s == SDLK_LEFT) seek_to(v, now > by ? now - by : 0);
            else seek_to(v, now + by);
        }
        break;
    default:
        if (s >= SDLK_1 && s <= SDLK_9 && (k->keysym.mod & KMOD_SHIFT)) {
            /* Shift+k on the field already shown goes back to the nearest field. */
            int b = (int)(s - SDLK_1);
            choose_flow(v, tv_flow_bunker(&v->c, *v->world) == b ? -1 : b);
        } else if (s >= SDLK_1 && s <= SDLK_9) {
            toggle_bunker(v, (uint32_t)(s - SDLK_1));
        } else if (s >= SDLK_KP_1 && s <= SDLK_KP_9) {
            toggle_bunker(v, (uint32_t)(s - SDLK_KP_1));
        }
        break;
    }
}

/* ---- a replay's time slider -------------------------------------------------------------- */

#define SLIDER_H      18.0f /* the bar, pixels */
#define SLIDER_MARGIN 12.0f /* from the map area's edges */

/* The slider's bar: along the bottom of the map area. */
static SDL_FRect slider_rect(const viewer *v) {
    const SDL_FRect f = v->c.lay.free;
    float x = f.x + SLIDER_MARGIN, w = f.w - 2.0f * SLIDER_MARGIN;
    if (w < 32.0f) w = 32.0f;
    return (SDL_FRect){x, f.y + f.h - SLIDER_MARGIN - SLIDER_H, w, SLIDER_H};
}

static bool on_slider(const viewer *v, int x, int y) {
    if (!v->o->timeline) return false;
    SDL_FRect r = slider_rect(v);
    return x >= r.x - 4 && x <= r.x + r.w + 4 && y >= r.y - 4 && y <= r.y + r.h + 4;
}

/* The step under screen column x. */
static uint64_t slider_step(const viewer *v, int x) {
    SDL_FRect r = slider_rect(v);
    double f = ((double)x - r.x) / r.w;
    if (f < 0) f = 0;
    if (f > 1) f = 1;
    return (uint64_t)llround(f * (double)v->o->timeline->last_step);
}

/* The bar, the run so far filled, a knob at the step shown (or held), and the times. */
static void draw_slider(viewer *v) {
    tv_ctx *c = &v->c;
    const uint64_t last = v->o->timeline->last_step;
    const uint64_t now = th_world_step_count(*v->world);
    const uint64_t at = v->scrubbing ? v->scrub_step : now;
    const th_world_def d = th_world_get_def(*v->world);
    SDL_FRect r = slider_rect(v);
    float f = last ? (float)((double)(at < last ? at : last) / (double)last) : 1.0f;
    tv_batch_rect(&c->geo, r.x, r.y, r.w, r.h, 0xC0181C24u);
    tv_batch_rect(&c->geo, r.x + 2, r.y + r.h / 2 - 2, r.w - 4, 4, 0xFF3A4050u);
    tv_batch_rect(&c->geo, r.x + 2, r.y + r.h / 2 - 2, (r.w - 4) * f, 4, 0xFF8FB4FFu);
    float kx = r.x + 2 + (r.w - 4) * f;
    tv_batch_rect(&c->geo, kx - 3, r.y + 1, 6, r.h - 2, 0xFFF2F4F8u);
    char text[128];
    snprintf(text, sizeof text, "replay %.1f / %.1f s  step %llu / %llu%s", (double)at * d.timestep,
             (double)last * d.timestep, (unsigned long long)at, (unsigned long long)last,
             now >= last && !v->scrubbing ? "  (end)" : "");
    float tw = tv_text_width(1, text);
    tv_batch_rect(&c->geo, r.x, r.y - TV_FONT_H - 4, tw + 8, TV_FONT_H + 4, 0xC0181C24u);
    tv_text(c, r.x + 4, r.y - TV_FONT_H - 2, 1, 0xFFF2F4F8u, text);
    tv_batch_flush(c->r, &c->geo, NULL);
    tv_batch_flush(c->r, &c->text, c->font);
}

static void on_event(viewer *v, const SDL_Event *e) {
    switch (e->type) {
    case SDL_QUIT:
        v->quit = true;
        v->quit_reason = "window";
        break;
    case SDL_WINDOWEVENT:
        if (e->window.event == SDL_WINDOWEVENT_SIZE_CHANGED) {
            int w = 0, h = 0;
            if (SDL_GetRendererOutputSize(v->r, &w, &h) == 0 && w > 0 && h > 0) {
                /* Keep the same world point at the centre. */
                v->c.cam.w = w;
                v->c.cam.h = h;
            }
        }
        break;
    case SDL_KEYDOWN: on_key(v, &e->key); break;
    case SDL_MOUSEBUTTONDOWN:
        if (e->button.button == SDL_BUTTON_LEFT && on_slider(v, e->button.x, e->button.y)) {
            v->scrubbing = true;
            v->scrub_step = slider_step(v, e->button.x);
        } else if (e->button.button == SDL_BUTTON_LEFT) {
            v->pressing = true;
            v->dragged = false;
            v->press_x = v->last_x = e->button.x;
            v->press_y = v->last_y = e->button.y;
        }
        break;
    case SDL_MOUSEMOTION:
        if (v->scrubbing) v->scrub_step = slider_step(v, e->motion.x);
        if (v->pressing) {
            int dx = e->motion.x - v->press_x, dy = e->motion.y - v->press_y;
            if (dx * dx + dy * dy > 16) v->dragged = true;
            if (v->dragged) {
                v->c.at_fit = false;
                v->c.cam.cx -= (e->motion.x - v->last_x) / v->c.cam.scale;
                v->c.cam.cy += (e->motion.y - v->last_y) / v->c.cam.scale;
            }
            v->last_x = e->motion.x;
            v->last_y = e->motion.y;
        }
        break;
    case SDL_MOUSEBUTTONUP:
        if (e->button.button == SDL_BUTTON_LEFT && v->scrubbing) {
            v->scrubbing = false;
            seek_to(v, slider_step(v, e->button.x));
        } else if (e->button.button == SDL_BUTTON_LEFT && v->pressing) {
            v->pressing = false;
            if (!v->dragged) click(v, e->button.x, e->button.y);
        }
        break;
    case SDL_MOUSEWHEEL: {
        int mx = 0, my = 0;
        SDL_GetMouseState(&mx, &my);
        float dy = e->wheel.preciseY;
        if (dy != 0) zoom_at(v, mx, my, pow(1.15, dy));
        break;
    }
    default: break;
    }
}

static void save_shot(viewer *v) {
    v->shot = false;
    int w = v->c.cam.w, h = v->c.cam.h;
    uint32_t *px = malloc((size_t)w * (size_t)h * 4);
    char path[512];
    snprintf(path, sizeof path, "%s-%06llu.png", v->o->screenshot_prefix,
             (unsigned long long)th_world_step_count(*v->world));
    th_error err = {0};
    if (!px) {
        fprintf(stderr, "viewer: out of memory for a screenshot\n");
        return;
    }
    if (SDL_RenderReadPixels(v->r, NULL, SDL_PIXELFORMAT_ARGB8888, px, w * 4) != 0) {
        fprintf(stderr, "viewer: cannot read the frame back: %s\n", SDL_GetError());
    } else if (!tv_write_png(path, px, w, h, w * 4, &err)) {
        fprintf(stderr, "viewer: %s\n", err.message);
    } else {
        say(v, "screenshot", "%s", path);
        char text[600];
        snprintf(text, sizeof text, "saved %.590s", path);
        notice(v, text);
    }
    free(px);
}

/* Run whole steps granted by the clock; the state before the last one is kept for
 * interpolation. */
static int run_steps(viewer *v, int n) {
    const th_view_timeline *t = v->o->timeline;
    for (int i = 0; i < n; i++) {
        if (t && th_world_step_count(*v->world) >= t->last_step) {
            /* The end of a replay: the recorded run goes no further. */
            if (!v->paused) say(v, "end", NULL);
            v->paused = true;
            n = i;
            break;
        }
        if (i == n - 1) tv_snapshot_prev(&v->c, *v->world);
        if (v->o->before_step) v->o->before_step(v->o->user, *v->world);
        th_world_step(*v->world);
        tv_record_profile(&v->c, *v->world);
        /* A full bunker or a timeline event may change the map or bunkers: redraw the map
         * from time to time (it is one pass over the cells). */
        if (th_world_step_count(*v->world) % 30 == 0) v->c.map_dirty = true;
    }
    if (n > 0) sync_bunkers(v);
    return n;
}

int th_view_run(th_world **world, const th_view_opts *opts) {
    th_view_opts def = th_view_default_opts();
    const th_view_opts *o = opts ? opts : &def;
    th_error err = {0};
    if (!world || !*world) {
        fprintf(stderr, "viewer: no world to show\n");
        return 2;
    }
    if (!check_opts(o, &err) || !check_level(*world, o, &err)) {
        fprintf(stderr, "viewer: %s\n", err.message);
        return 2;
    }
    char drv[32];
    if (!video_start(drv, sizeof drv)) {
        if (drv[0])
            fprintf(stderr,
                    "viewer: no display to open a window on (SDL's video started only on its "
                    "'%s' driver)\n",
                    drv);
        else fprintf(stderr, "viewer: cannot start SDL video: %s\n", SDL_GetError());
        return 1;
    }
    viewer v = {.world = world, .o = o, .paused = o->start_paused};
    v.win = SDL_CreateWindow(o->title ? o->title : "throng", SDL_WINDOWPOS_CENTERED,
                             SDL_WINDOWPOS_CENTERED, o->width, o->height, SDL_WINDOW_RESIZABLE);
    /* Vsync paces frames to the display; without it (software rendering) the loop caps
     * itself at ~144 fps below, so the viewer does not take a core from the workers. */
    if (v.win) v.r = SDL_CreateRenderer(v.win, -1, SDL_RENDERER_PRESENTVSYNC);
    if (v.win && !v.r) v.r = SDL_CreateRenderer(v.win, -1, 0);
    if (!v.win || !v.r) {
        fprintf(stderr, "viewer: cannot open a window: %s\n", SDL_GetError());
        if (v.win) SDL_DestroyWindow(v.win);
        SDL_Quit();
        return 1;
    }
    int rw = o->width, rh = o->height;
    SDL_GetRendererOutputSize(v.r, &rw, &rh);
    if (!tv_ctx_init(&v.c, v.r, rw, rh, &err)) {
        fprintf(stderr, "viewer: %s\n", err.message);
        SDL_DestroyRenderer(v.r);
        SDL_DestroyWindow(v.win);
        SDL_Quit();
        return 1;
    }
    v.c.overlays = o->overlays;
    v.c.flow_bunker = o->flow_bunker;
    v.c.level = o->level.index1;
    v.c.title = o->title;
    tv_camera_fit(&v.c.cam, *world);
    set_speed(&v, o->sim_speed);
    sync_bunkers(&v);

    const double freq = (double)SDL_GetPerformanceFrequency();
    uint64_t last = SDL_GetPerformanceCounter(), rate_t0 = last;
    int frames = 0, rate_frames = 0, rate_steps = 0;
    tv_rates rates = {.speed = v.speed, .live = true};
    double alpha = 1.0;
    while (!v.quit) {
        SDL_Event e;
        while (SDL_PollEvent(&e)) on_event(&v, &e);
        if (v.quit) break;
        uint64_t now = SDL_GetPerformanceCounter();
        double elapsed = (double)(now - last) / freq;
        last = now;
        if (v.paused) {
            if (v.step_once) {
                rate_steps += run_steps(&v, 1);
                say(&v, "step", NULL);
            }
            alpha = 1.0;
        } else {
            rate_steps += run_steps(&v, th_clock_advance(&v.clock, elapsed * v.speed));
            alpha = th_clock_alpha(&v.clock);
        }
        v.step_once = false;
        double since = (double)(now - rate_t0) / freq;
        if (since >= 0.5) {
            rates.fps = rate_frames / since;
            rates.steps_per_s = rate_steps / since;
            rate_frames = rate_steps = 0;
            rate_t0 = now;
        }
        rates.speed = v.speed;
        rates.paused = v.paused;
        set_notes(&v);
        tv_draw_frame(&v.c, *world, alpha, &rates);
        if (o->timeline) draw_slider(&v);
        if (v.shot) save_shot(&v);
        SDL_RenderPresent(v.r);
        frames++;
        rate_frames++;
        if (o->max_frames > 0 && frames >= o->max_frames) {
            v.quit = true;
            v.quit_reason = "frames";
        }
        double spent = (double)(SDL_GetPerformanceCounter() - now) / freq;
        if (spent < 1.0 / 144) SDL_Delay((Uint32)((1.0 / 144 - spent) * 1000.0) + 1);
    }
    say(&v, "quit", "%s", v.quit_reason ? v.quit_reason : "key");
    tv_ctx_free(&v.c);
    SDL_DestroyRenderer(v.r);
    SDL_DestroyWindow(v.win);
    SDL_Quit();
    return 0;
}
