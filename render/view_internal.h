/* Internal to render/: the drawing context shared by the window loop (viewer.c), the world
 * drawing (draw.c), the HUD (hud.c), the bitmap font (font.c) and PNG output (png.c). */
#ifndef TH_VIEW_INTERNAL_H
#define TH_VIEW_INTERNAL_H

#include <SDL.h>

#include "throng/hazard.h"
#include "throng/viewer.h"

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

/** Most lines of notices (queued events, saved files) shown at once. */
#define TV_MAX_NOTES 3
/** Most queued wall breaks marked on the map. */
#define TV_MAX_MARKS 8

/** Where the panels go and the map area they leave, in screen pixels. A panel with w == 0 is not
 *  shown. Panels sit in columns beside the map when the window has room for them (chosen among
 *  a few arrangements for the largest map), and over the map only when it has not. */
typedef struct tv_layout {
    SDL_FRect hud, legend, prof;
    SDL_FRect free;   /* the map area: the initial fit frames the world in it */
    int hud_scale;    /* font scale of the HUD and profiler: 2, or 1 to leave a larger map */
    int legend_scale; /* font scale of the legend, likewise */
} tv_layout;

/** Everything the drawing code keeps between frames. */
typedef struct tv_ctx {
    SDL_Renderer *r;
    tv_camera cam;
    uint32_t overlays;
    int flow_bunker; /* th_view_opts.flow_bunker: -1 the nearest-bunker field */
    uint32_t level;  /* the level shown alone (its handle's index1), 0 for every level */
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
    float *dens_open;     /* per block: its walkable area, m^2 (the map's open cells in it) */
    bool dens_open_valid; /* false after the map is rebuilt or the blocks change */

    /* Fire hazards' air (smoke and toxic gas), one texel per `air_k` x `air_k` map cells of the
     * visible cell range [air_x0, air_x0 + air_k air_cols) x [air_y0, ...), rebuilt when the
     * world's step, the range or the hazard count change (the air changes only with steps). */
    SDL_Texture *air_tex;
    int32_t air_x0, air_y0, air_cols, air_rows, air_k;
    uint64_t air_step;
    uint32_t air_hazards;
    bool air_valid;

    /* Pheromone heat map (pheromone.c), one texel per cell of a colony's grid. */
    SDL_Texture *pher_tex;
    uint32_t *pher_px;
    size_t pher_cap;

    uint32_t *pixels; /* scratch texels for texture uploads */
    size_t pixels_cap;

    /* Interpolation: positions by agent id slot as of step `prev_step` (the step before the
     * newest). Agents whose slot is >= prev_cap or held another agent then, or when
     * prev_step + 1 is not the world's step, are drawn where they are. */
    float *prev_x, *prev_y;
    uint32_t *prev_gen; /* generation of the agent each prev_x, prev_y belong to (by id slot: a
                           slot reused by a new agent holds nothing to interpolate from) */
    uint32_t prev_cap;
    uint64_t prev_step;
    bool prev_valid;

    /* Phase times of the last TV_PROF_SAMPLES steps, a ring. */
    float prof[TV_PROF_SAMPLES][TH_PHASE_COUNT];
    int prof_head, prof_count;

    tv_layout lay;
    bool at_fit; /* the camera frames the map area: refit when the layout changes */
    /* Bunker labels as placed in the last frame (screen rectangles), by bunker index. */
    SDL_FRect label[TH_MAX_BUNKERS];
    uint32_t label_count;
    /* Stair and elevator labels drawn in the last frame, and those left out (render/levels.c). */
    SDL_FRect place_label[TH_VIEW_MAX_PLACE_LABELS];
    uint32_t place_label_count, place_label_left_out;
    /* Each stair and elevator label's place in this frame and the last, in drawing order (the
     * shift it took, -1: left out): a label stays where it was while that place is as good as
     * any, rather than hopping as agents pass. */
    int8_t place_now[TH_VIEW_MAX_PLACE_LABELS], place_was[TH_VIEW_MAX_PLACE_LABELS];
    uint32_t place_seq, place_was_count;
    /* Likewise the place each bunker label took among its candidates (render/draw.c). */
    int8_t label_was[TH_MAX_BUNKERS];
    /* Set by the window loop each frame: notice lines for the HUD, bunkers with a toggle queued
     * (bit b: the click is not applied yet) and queued wall breaks (world points). */
    char notes[TV_MAX_NOTES][96];
    int note_count;
    uint64_t queued_bunkers;
    th_vec2 marks[TV_MAX_MARKS];
    int mark_count;
    /* The agents drawn this frame, counted per block of TV_COVER_PX x TV_COVER_PX screen pixels
     * (each in every block its body's square touches): labels are placed off them. */
    uint16_t *cover;
    size_t cover_cap;
    int32_t cover_cols, cover_rows;
    bool cover_valid;
} tv_ctx;

/** The side of a block of tv_ctx.cover, pixels. */
#define TV_COVER_PX 8

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
/** Fit world rectangle `box` (x0, y0, x1, y1, metres) into rectangle `r` of the camera's
 *  window, TH_VIEW_MARGIN inside it. */
void tv_camera_fit_box(tv_camera *cam, const float box[4], SDL_FRect r);
/** Compute c->lay for the overlays on, and refit the camera into its map area when c->at_fit. */
void tv_layout_frame(tv_ctx *c, const th_world *w);
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
/* The flow overlay's field in words: "nearest", a bunker's name, or "goal of CROWD" for a
 * destination field (written to buf). */
const char *tv_flow_name(const tv_ctx *c, const th_world *w, char *buf, size_t cap);
/** Spatial-grid lines the grid overlay draws: every k-th (a power of two), at least 5 px apart. */
int32_t tv_grid_stride(const tv_ctx *c, const th_world *w);
/** About how many agents drawn this frame lie under screen rectangle `r` (the agents of the
 *  blocks it touches; 0 when agents are not drawn): what a label placed there would cover. */
uint32_t tv_agents_under(const tv_ctx *c, SDL_FRect r);
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
/** An octagonal ring of radius r and line width t about (x, y). */
void tv_ring(tv_batch *b, float x, float y, float r, float t, uint32_t argb);
/* A filled disc of BODY_SIDES triangles, as agents with bodies are drawn. */
void tv_disc(tv_batch *b, float x, float y, float r, uint32_t argb);
/** The mark of an incapacitated agent of body radius r (pixels) at (x, y). */
void tv_down_mark(tv_batch *b, float x, float y, float r);
/** Yellow corner brackets around `m`: a click queued for the next step. */
void tv_queued_mark(tv_batch *b, SDL_FRect m);
/** Colours shared with the legend: bunker `b`, full and destroyed bunkers, cell kinds and the
 *  slowest ground shade, and a crowd as the scene colours it. */
uint32_t tv_bunker_color(uint32_t b);
uint32_t tv_full_color(void);
uint32_t tv_destroyed_color(void);
uint32_t tv_slow_color(void);
uint32_t tv_scene_crowd_color(const th_world *w, uint32_t crowd);
/** Colour of fire hazards' air over the map (0 for clean air): grey smoke whose opacity rises
 *  with the extinction coefficient, a yellow-green tint where the air gives a dose. */
uint32_t tv_air_color(const th_air *air);
/** `top` (with its alpha) over opaque `base`: an opaque colour. */
uint32_t tv_over(uint32_t base, uint32_t top);
/** Incapacitated agents: a dark fill under a light cross outlined in dark (tv_down_mark); and
 *  the ring of agents whose dose passed TV_FED_WARN. */
#define TV_DOWN_COLOR 0xFF3A3E48u
#define TV_DOWN_CROSS 0xFF101216u
#define TV_DOWN_LIGHT 0xFFF2F4F8u
#define TV_FED_COLOR  0xFFD8FF30u
/** Dose from which an agent is ringed: ISO 13571's threshold for the most sensitive people. */
#define TV_FED_WARN   0.3

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

/** Draw the HUD, legend, profiler and help panels selected in c->overlays, where c->lay says. */
void tv_draw_hud(tv_ctx *c, const th_world *w, const tv_rates *rates);
/** Sizes of the panels (pixels), for the layout. The legend's depends on its font scale. */
SDL_FPoint tv_hud_size(const tv_ctx *c, const th_world *w, int scale);
SDL_FPoint tv_legend_size(const tv_ctx *c, const th_world *w, int scale);
SDL_FPoint tv_prof_size(const tv_ctx *c, int scale);
/** True when crowd `crowd` is a predator: some crowd flees its type. */
bool tv_is_predator(const th_world *w, uint32_t crowd);
/** Colour of a density (persons per square metre) and of a wall distance (metres) in their
 *  overlays, shared with the legend's colour scales. */
uint32_t tv_density_color(float per_m2);
uint32_t tv_walldist_color(float metres);
/** Density at the top of the colour scale, persons per square metre. */
#define TV_DENSITY_MAX  6.0f
/** Wall distance beyond which the overlay is clear, metres. */
#define TV_WALLDIST_MAX 8.0f

/* ---- levels.c ---------------------------------------------------------------------------- */

/** The rectangle (x0, y0, x1, y1, metres) of level `index1` of `w`; false when it has none. */
bool tv_level_box(const th_world *w, uint32_t index1, float box[4]);
/** What the fit frames: the level shown alone (c->level), else the whole world. */
void tv_frame_box(const tv_ctx *c, const th_world *w, float box[4]);
/** Whether world point `p` is drawn: inside the level shown alone, or anywhere with none. */
bool tv_shown(const tv_ctx *c, const th_world *w, th_vec2 p);
/** The level after `index1` going up (dir > 0) or down (dir < 0) by elevation: from 0 (every
 *  level) the lowest or the highest; past the top or the bottom, 0 again. 0 without levels. */
uint32_t tv_level_step(const th_world *w, uint32_t index1, int dir);
/** Stair flights (treads, chevrons up the flight) and landings, under the agents. */
void tv_draw_stairs(tv_ctx *c, const th_world *w);
/** Elevator stops and, at its stop, the car with its doors, under the agents. */
void tv_draw_elevators(tv_ctx *c, const th_world *w);
/** With a level shown alone, cover the rest of the map with the background. */
void tv_mask_levels(tv_ctx *c, const th_world *w);
/** Each level's outline and label (name, elevation, agents on it) and the stairs' labels, over
 *  the agents. */
void tv_draw_level_labels(tv_ctx *c, const th_world *w);
/** The background outside the world (and over the levels left out). */
#define TV_BACKGROUND     0xFF0B0E14u
/** The stairs' colour, shared with the legend. */
#define TV_STAIR_COLOR    0xFFE6D7B4u
/** The elevators' colour. */
#define TV_ELEVATOR_COLOR 0xFF7FD8C8u

/* ---- pheromone.c ------------------------------------------------------------------------- */

/** Pheromone overlay: every foraging crowd's grid as a heat map. */
void tv_draw_pheromone(tv_ctx *c, const th_world *w);
/** Every foraging crowd's nest (a double ring in its colour) and food sources (a ring, and a
 *  disc whose area is the share of food left). */
void tv_draw_colonies(tv_ctx *c, const th_world *w);
void tv_pheromone_free(tv_ctx *c);
/** Colour of `deposits` (pheromone over one ant's deposit) in the overlay and its legend. */
uint32_t tv_pheromone_color(float deposits);
/** Deposits at the top of the colour scale. */
#define TV_PHEROMONE_MAX     64.0f
/** Food sources' colour. */
#define TV_FOOD_COLOR        0xFF8BD346u
/* Spawner and exit areas: where agents enter (green) and leave (red). */
#define TV_SPAWNER_COLOR     0xFF40C070u
#define TV_EXIT_COLOR        0xFFE05050u
/* A bunker that is a scene's exit (th_bunker_info.exit), closed: grey, crossed. */
#define TV_EXIT_CLOSED_COLOR 0xFF8C939Eu

/* ---- png.c ------------------------------------------------------------------------------- */

/** Write w x h pixels (0xAARRGGBB, row stride `pitch` bytes) as an 8-bit RGB PNG. False with
 *  `err` filled when the file cannot be written. */
bool tv_write_png(const char *path, const uint32_t *pixels, int w, int h, int pitch, th_error *err);

/** Fill `err` (may be NULL) with `code` and a printf-style message. */
void tv_error(th_error *err, th_error_code code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif
