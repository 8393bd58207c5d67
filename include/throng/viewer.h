/* throng viewer: an SDL2 window onto a running world, and a headless screenshot renderer.
 *
 * This is the one public header of the render library. The viewer only reads the world between
 * steps (through throng/throng.h) and changes it only through queued events (bunker destroyed or
 * restored, walls broken); it never reaches into sim internals.
 *
 * Usage:
 *     th_world *w = th_demo_create("evac", &(th_demo_opts){.agents = 10000, .seed = 1}, NULL);
 *     th_view_opts vo = th_view_default_opts();
 *     vo.title = "evac";
 *     if (th_view_display_available()) th_view_run(&w, &vo);
 *     th_world_destroy(w);
 *
 * Screen layout. The window is `width` x `height` pixels. The HUD, legend and profiler panels
 * stand in columns beside the map, or in a row beneath it (a wide world: a building's levels
 * side by side), when the window has room (the arrangement that leaves the largest map is
 * chosen), so they hide no part of it; the map area is what they leave. On
 * opening (and in every screenshot) the world rectangle is fitted into the map area with
 * TH_VIEW_MARGIN pixels on each side, centred, north (+y) up. With no panel on, the map area is
 * the whole window:
 *     scale = min((width - 2 margin) / world_w, (height - 2 margin) / world_h)   pixels/metre
 *     sx = width / 2  + (x - world_w / 2) * scale
 *     sy = height / 2 - (y - world_h / 2) * scale
 * th_view_world_to_screen computes exactly this, and th_view_get_layout the general case, so
 * tests and drivers never restate it. Zooming and panning change scale and centre from there;
 * `0` (or Home) frames the map area again.
 *
 * Buildings (throng/building.h). Every level is drawn where it lies on the map, side by side,
 * outlined and labelled with its name, elevation and the agents on it now; each stair's flight
 * is drawn with treads and chevrons pointing the way up, and its landing on the level above is
 * marked, both labelled with the stair's name. One level can be shown alone
 * (th_view_opts.level, or PageUp / PageDown in the window): the fit then frames that level's
 * rectangle instead of the world (the same formula with the level's rectangle), the rest of the
 * map is left out, and the HUD names the level. Agents on a flight stand on its lower level.
 *
 * Labels (bunkers', stairs', elevator stops') are placed clear of the panels and of one
 * another, and among the places that allows, where they cover fewest agents; a label keeps the
 * place it had in the last frame while that place is as good, so labels do not hop as agents
 * pass. A bunker the scene calls an exit (th_bunker_def.exit) is drawn in the exits' red and
 * labelled "exit NAME" with the count it let out.
 *
 * Keys: Space pause, `.` one step (while paused), `+`/`-` sim speed x2 / x0.5, 1..9 toggle
 * bunker 1..9, F flow arrows, Shift+1..9 flow arrows of bunker 1..9 alone (again: back to the
 * nearest-bunker field), B cycle the flow field through nearest, bunker 1, 2, ... and back,
 * Q squads, D density, G grid, W wall distance, A ant pheromone, P profiler, T HUD, L legend,
 * H help, PageUp or ] the next level up alone, PageDown or [ the next level down alone (past the
 * top or bottom level: all levels again), O all levels side by side, 0 or Home reset the view,
 * R restart, S screenshot, Esc quit. Mouse: click a bunker to destroy / restore it, click a
 * destructible wall to break its whole connected piece, drag to pan, wheel to zoom about the
 * cursor.
 *
 * Replays (th_view_opts.timeline): a time slider runs along the bottom of the map area; click
 * or drag on it to go to that time (the world is replayed there), Left / Right go back or on
 * 5 s, Shift+Left / Shift+Right 1 step, R goes to the
 * start; playback pauses at the end. Nothing the user does changes the recorded run. */
#ifndef THRONG_VIEWER_H
#define THRONG_VIEWER_H

#include "api.h"

#include <stdbool.h>
#include <stdint.h>

#include "building.h"
#include "throng.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Pixels left free around the world rectangle in the initial fit. */
#define TH_VIEW_MARGIN 16

/** Window and screenshot size bounds, pixels a side. */
#define TH_VIEW_MIN_DIM 64
#define TH_VIEW_MAX_DIM 8192

/** Overlay bits (th_view_opts.overlays, th_view_screenshot). */
enum {
    TH_VIEW_OVERLAY_FLOW = 1u << 0,       /* flow arrows of the nearest-bunker field, coloured by
                                             the bunker whose basin the cell lies in; or of one
                                             bunker's own field (th_view_opts.flow_bunker) in
                                             that bunker's colour */
    TH_VIEW_OVERLAY_DENSITY = 1u << 1,    /* agents per spatial-grid cell as a heat map */
    TH_VIEW_OVERLAY_GRID = 1u << 2,       /* the spatial grid's cell borders */
    TH_VIEW_OVERLAY_WALLDIST = 1u << 3,   /* distance to the nearest wall as a heat map */
    TH_VIEW_OVERLAY_PROFILER = 1u << 4,   /* stacked graph of the phase times of the last steps */
    TH_VIEW_OVERLAY_HUD = 1u << 5,        /* text panel: fps, steps/s, agents, phase times */
    TH_VIEW_OVERLAY_HELP = 1u << 6,       /* key help panel */
    TH_VIEW_OVERLAY_AGENTS = 1u << 7,     /* the agents themselves (on unless cleared) */
    TH_VIEW_OVERLAY_SQUADS = 1u << 8,     /* per squad: the centre's path, each member's slot as a
                                             cross in its crowd's colour, and a line from each
                                             member to its slot */
    TH_VIEW_OVERLAY_LEGEND = 1u << 9,     /* what the colours mean: cell kinds, crowds, leaders and
                                             predators, bunker states, and the colour scale (with
                                             units) of each overlay on */
    TH_VIEW_OVERLAY_PHEROMONE = 1u << 10, /* foraging crowds' pheromone grids as a heat map
                                             (logarithmic in deposits) */
};

/** Every overlay bit above. */
#define TH_VIEW_OVERLAY_ALL 0x7FFu

/** What a user did to the world in the viewer (th_view_opts.on_action). */
typedef enum th_view_action_kind {
    TH_VIEW_ACTION_DESTROY_BUNKER = 0, /* th_world_destroy_bunker(`bunker`) */
    TH_VIEW_ACTION_RESTORE_BUNKER = 1, /* th_world_restore_bunker(`bunker`) */
    TH_VIEW_ACTION_BREAK_WALLS = 2,    /* th_world_break_walls(x0, y0, x1, y1): cells */
    TH_VIEW_ACTION_RESTART = 3,        /* R replaced the world with a fresh one (step 0) */
} th_view_action_kind;

typedef struct th_view_action {
    th_view_action_kind kind;
    uint64_t step; /* the world's step count when it was asked: the step from `step` to
                      `step` + 1 applies it */
    th_bunker_id bunker;
    int32_t x0, y0, x1, y1;
} th_view_action;

/** A recorded run the viewer plays back (th_view_opts.timeline). */
typedef struct th_view_timeline {
    uint64_t last_step; /* the run's length in steps: playback stops there */
    /* Bring `*world` to exactly `step` (<= last_step) steps: step it on, or replace it with a
     * fresh world stepped from the start (destroying the old one). The slider, the arrow keys
     * and R call it. False when it could not (the world is then left as it was). */
    bool (*seek)(void *user, th_world **world, uint64_t step);
} th_view_timeline;

/** Viewer options. Start from th_view_default_opts(); zero is not a valid size. */
typedef struct th_view_opts {
    int width, height;                /* window or image size, pixels, in [TH_VIEW_MIN_DIM,
                                         TH_VIEW_MAX_DIM]; default 1280 x 800 */
    double sim_speed;                 /* simulated seconds per real second, in [1/64, 64];
                                         default 1 (real time) */
    th_world *(*restart)(void *user); /* R key: build a fresh scene (NULL: R does nothing). The
                                         viewer destroys the old world when this succeeds and
                                         keeps it when this returns NULL */
    void *user;                       /* passed to restart, on_action, before_step and the
                                         timeline's seek */
    const char *title;                /* window title and HUD heading: the scene's name;
                                         default "throng" */
    int max_frames;                   /* quit after this many frames; 0 = until the user quits */
    bool print_events;                /* print one line per user action to stdout, e.g.
                                         "event destroy_bunker north step 123" */
    uint32_t overlays;                /* TH_VIEW_OVERLAY_* bits shown at start; default HUD,
                                         legend and agents */
    const char *screenshot_prefix;    /* S key writes PREFIX-STEP.png; default "throng" */
    bool start_paused;                /* open paused; default false */
    int flow_bunker;                  /* field the flow overlay shows: -1 the nearest-bunker
                                         field (th_world_flow), k >= 0 bunker k's own field
                                         (th_world_bunker_flow), then destination field
                                         k - bunkers (th_world_destination_flow); an index
                                         past the last field shows the nearest one. Default -1 */
    th_level_id level;                /* a level shown alone, framed in the map area with the
                                         rest of the map left out; the null handle (default)
                                         shows every level side by side. A handle the world
                                         lacks is a bad option */
    /* Recording and replaying a session (what `throng run --record` and `throng replay` use).
     * Each may be NULL. */
    void (*on_action)(void *user, const th_world *world, const th_view_action *action);
    /* each change the user asked of `world`, once it was
       accepted (it applies in the next step), and each
       restart (R: `world` is the fresh one) */
    void (*before_step)(void *user, th_world *world); /* before every step the viewer takes */
    const th_view_timeline *timeline; /* a replay: the viewer plays a recorded run of
                                         `timeline->last_step` steps with a time slider beneath
                                         the map, pauses at its end, and leaves the world as
                                         recorded (bunker keys, clicks and R only move the
                                         time); NULL for a live run */
} th_view_opts;

/** Options with every default filled in. */
TH_API th_view_opts th_view_default_opts(void);

/** True when a real display can be opened (SDL's video subsystem starts with a driver other
 *  than "dummy", "offscreen" or "evdev" and reports at least one display). Cheap enough to call
 *  once at start-up; it initialises and shuts down SDL's video subsystem. */
TH_API bool th_view_display_available(void);

/** Open a window on `*world` and run it interactively until Esc, window close, or
 *  `opts->max_frames` frames. The world is stepped at `sim_speed` times real time with a fixed
 *  step (the world's timestep) whatever the frame rate, and drawn interpolated between the
 *  last two steps. On R the world is replaced through `opts->restart` and `*world` updated, so
 *  the caller always owns (and destroys) the current `*world`. `opts` may be NULL (defaults).
 *  Returns 0 on a normal quit, 1 when the window or renderer cannot be created (message on
 *  stderr; also when SDL's video starts only on a driver that shows no window, such as
 *  "dummy" or "offscreen", retried for up to a second), 2 on bad options or a NULL world. */
TH_API int th_view_run(th_world **world, const th_view_opts *opts);

/** Render one frame of `w` as the viewer would draw it on opening (initial fit, no
 *  interpolation), with the TH_VIEW_OVERLAY_* bits in `overlays`, to a PNG file at `png_path`
 *  of opts->width x opts->height pixels. Uses SDL's software renderer onto a memory surface:
 *  no display is needed. `opts` may be NULL (defaults). Returns false with `err` (may be NULL)
 *  filled on bad arguments, when SDL fails, or when the file cannot be written. */
TH_API bool th_view_screenshot(const th_world *w, const th_view_opts *opts, const char *png_path,
                               uint32_t overlays, th_error *err);

/** Like th_view_screenshot, but into memory: `pixels` receives opts->width x opts->height
 *  pixels, row-major from the top-left, each 0xAARRGGBB. For tests and tools that compare
 *  images without touching files. */
TH_API bool th_view_render_pixels(const th_world *w, const th_view_opts *opts, uint32_t overlays,
                                  uint32_t *pixels, th_error *err);

/** Measure the headless renderer: draw `frames` frames of `w` (initial fit, agents interpolated
 *  half-way between the last two steps, overlays as given) with one software renderer, as the
 *  window loop does minus presenting, and store the mean milliseconds per frame in
 *  `*ms_per_frame`. Steps the world once first (to have two states to interpolate). False with
 *  `err` filled on bad arguments or SDL failure. */
TH_API bool th_view_time_frames(th_world *w, const th_view_opts *opts, uint32_t overlays,
                                int frames, double *ms_per_frame, th_error *err);

/** Where world point `p` (metres) lands on screen in the initial fit of a view of
 *  width x height pixels showing every level (the formula in this header's comment). A world
 *  without a positive size maps everything to the window centre. th_view_get_layout gives the
 *  fit of one level alone. */
TH_API th_vec2 th_view_world_to_screen(const th_world *w, int width, int height, th_vec2 p);

/** A screen rectangle, pixels; w == 0 for something not shown. */
typedef struct th_view_rect {
    float x, y, w, h;
} th_view_rect;

/** The initial frame's layout: where the panels are, where the world is, and where each
 *  bunker's label went. */
/** Stair and elevator labels th_view_layout reports. */
#define TH_VIEW_MAX_PLACE_LABELS 64

typedef struct th_view_layout {
    th_view_rect hud, legend, profiler; /* panels (w == 0: off) */
    th_view_rect map;                   /* the map area the panels leave */
    double scale;                       /* pixels per metre */
    double ox, oy;                      /* screen point of world (0, 0) */
    uint32_t labels;                    /* bunker labels placed, by bunker index */
    th_view_rect label[TH_MAX_BUNKERS];
    /* The labels of stair ends and elevator stops drawn, in drawing order (the first
     * TH_VIEW_MAX_PLACE_LABELS), and how many found no place clear of those before them and
     * were left out rather than drawn over one. */
    uint32_t place_labels, place_labels_left_out;
    th_view_rect place_label[TH_VIEW_MAX_PLACE_LABELS];
} th_view_layout;

/** Lay out the first frame of `w` as th_view_screenshot draws it with `overlays`. False with
 *  `err` filled on bad arguments or SDL failure. */
TH_API bool th_view_get_layout(const th_world *w, const th_view_opts *opts, uint32_t overlays,
                               th_view_layout *out, th_error *err);

/** Where world point `p` lands on screen in `layout`. */
TH_API th_vec2 th_view_layout_to_screen(const th_view_layout *layout, th_vec2 p);

/** Colour (0xAARRGGBB) in which agents of crowd `crowd` are drawn, at the centre of their
 *  triangle, when its def gives no colour of its own; grey for the null handle. */
TH_API uint32_t th_view_crowd_color(th_crowd_id crowd);

/** Colour (0xAARRGGBB) of a map cell of kind `kind` and terrain cost 1 (walls, destructible
 *  walls, open street) as drawn with no overlay covering it. */
TH_API uint32_t th_view_cell_color(th_cell_kind kind);

#ifdef __cplusplus
}
#endif

#endif
