/* Internal to render/: the drawing context shared by the window loop (viewer.c), the world
 * drawing (draw.c), the HUD (hud.c), the bitmap font (font.c) and PNG output (png.c). */
#ifndef TH_VIEW_INTERNAL_H
#define TH_VIEW_INTERNAL_H

#include <SDL.h>

#include "viewer.h"

/** Steps of phase times the profiler graph keeps (5 s at 60 Hz). */
#define TV_PROF_SAMPLES 300

/** A growable triangle list drawn with one SDL_RenderGeometry call. Drawing every agent, arrow
 *  or glyph of a layer through one call (rather than one call each) is what keeps 100,000
 *  agents interactive. */
typedef struct tv_batch {
    SDL_Vertex *v;
    int n, cap;
    bool failed; /* an allocation failed: the batch drops triangles, the frame still draws */
} tv_batch;

/** The view's camera: `scale` pixels per metre, world point (cx, cy) at the window centre,
 *  north (+y) up. */
typedef struct tv_camera {
    double scale;
    double cx, cy;
    int w, h; /* window or image size, pixels */
} tv_camera;

/** Frame-rate and step-rate figures for the HUD. */
typedef struct tv_rates {
    double fps;         /* frames per second over the last second; 0 = unknown */
    double steps_per_s; /* simulation steps per second over the last second */
    double speed;       /* sim speed factor */
    bool paused;
    bool live; /* false in screenshots: fps and steps/s are not measured there */
} tv_rates;

/** Everything the drawing code keeps between frames. */
typedef struct tv_ctx {
    SDL_Renderer *r;
    tv_camera cam;
    uint32_t overlays;
    int flow_bunker; /* th_view_opts.flow_bunker: -1 the nearest-bunker field */
    const char *title;
    tv_batch geo;  /* untextured triangles */
    tv_batch text; /* glyph quads on the font atlas */
    SDL_Texture *font;

    /* Map image, one texel per terrain cell, rebuilt when `map_dirty`. */
    SDL_Texture *map_tex;
    SDL_Texture *walldist_tex;
    int32_t map_cols, map_rows;
    float cell_size;
    bool map_dirty, walldist_dirty;

    /* Density heat map, one texel per `dens_k` x `dens_k` spatial-grid cells. */
    SDL_Texture *dens_tex;
    int32_t dens_cols, dens_rows, dens_k;
    uint32_t *dens_count;

    uint32_t *pixels; /* scratch texels for texture uploads */
    size_t pixels_cap;

    /* Interpolation: positions by agent id as of step `prev_step` (the step before the
     * newest). Agents with id >= prev_cap, or when prev_step + 1 is not the world's step, are
     * drawn where they are. */
    float *prev_x, *prev_y;
    uint32_t prev_cap;
    uint64_t prev_step;
    bool prev_valid;

    /* Phase times of the last TV_PROF_SAMPLES steps, a ring. */
    float prof[TV_PROF_SAMPLES][TH_PHASE_COUNT];
    int prof_head, prof_count;
} tv_ctx;

/* ---- draw.c ------------------------------------------------------------------------------ */

/** Set up `c` for renderer `r` of w x h pixels (font atlas made here). False on SDL failure,
 *  with the reason in `err`. */
bool tv_ctx_init(tv_ctx *c, SDL_Renderer *r, int w, int h, th_error *err);
/** Free everything `c` holds (not the renderer). */
void tv_ctx_free(tv_ctx *c);
/** Forget everything tied to one world (map images, interpolation, profiler): after restart. */
void tv_ctx_forget_world(tv_ctx *c);
/** Fit the world into the camera's window (the documented initial transform). */
void tv_camera_fit(tv_camera *cam, const th_world *w);
/** World point to screen pixels, and back. */
th_vec2 tv_to_screen(const tv_camera *cam, double x, double y);
th_vec2 tv_to_world(const tv_camera *cam, double sx, double sy);
/** Remember every agent's position by id as the state before the next step. */
void tv_snapshot_prev(tv_ctx *c, const th_world *w);
/** Append the phase times of the world's last step to the profiler ring. */
void tv_record_profile(tv_ctx *c, const th_world *w);
/** Draw a whole frame: map, overlays, bunkers, agents at interpolation `alpha`, HUD panels. */
void tv_draw_frame(tv_ctx *c, const th_world *w, double alpha, const tv_rates *rates);
/** Bunker whose own field the flow overlay shows, or -1 for the nearest-bunker field (also
 *  when c->flow_bunker names no bunker of `w`, e.g. after a restart). */
int tv_flow_bunker(const tv_ctx *c, const th_world *w);
/** Screen rectangle of bunker `b`'s marker (at least 16 px a side, for clicking). */
bool tv_bunker_marker(const tv_ctx *c, const th_world *w, uint32_t b, SDL_FRect *out);

/* Batches. Colours are 0xAARRGGBB. */
void tv_batch_tri(tv_batch *b, float x0, float y0, float x1, float y1, float x2, float y2,
                  uint32_t argb);
void tv_batch_rect(tv_batch *b, float x, float y, float w, float h, uint32_t argb);
void tv_batch_line(tv_batch *b, float x0, float y0, float x1, float y1, float width, uint32_t argb);
/** Draw and empty the batch (textured with `tex` when not NULL). */
void tv_batch_flush(SDL_Renderer *r, tv_batch *b, SDL_Texture *tex);
void tv_batch_free(tv_batch *b);

/* ---- font.c ------------------------------------------------------------------------------ */

/** Glyph cell of the built-in font at scale 1, pixels: 5 x 7 glyphs, 2 rows of descender. */
#define TV_FONT_W 6
#define TV_FONT_H 9

/** Make the font atlas texture (white glyphs on transparent). NULL on SDL failure. */
SDL_Texture *tv_font_create(SDL_Renderer *r);
/** Queue `text` at (x, y) (top-left) in the text batch, `scale` pixels per font pixel.
 *  Characters outside printable ASCII draw as '?'. Returns the width in pixels. */
float tv_text(tv_ctx *c, float x, float y, int scale, uint32_t argb, const char *text);
/** Width in pixels `text` would take. */
float tv_text_width(int scale, const char *text);

/* ---- hud.c ------------------------------------------------------------------------------- */

/** Draw the HUD, profiler and help panels selected in c->overlays. */
void tv_draw_hud(tv_ctx *c, const th_world *w, const tv_rates *rates);

/* ---- png.c ------------------------------------------------------------------------------- */

/** Write w x h pixels (0xAARRGGBB, row stride `pitch` bytes) as an 8-bit RGB PNG. False with
 *  `err` filled when the file cannot be written. */
bool tv_write_png(const char *path, const uint32_t *pixels, int w, int h, int pitch, th_error *err);

/** Fill `err` (may be NULL) printf-style. */
void tv_error(th_error *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#endif
