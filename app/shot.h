/* `throng run --screenshot`: which overlays, what size, which part of the world. */
#ifndef TH_APP_SHOT_H
#define TH_APP_SHOT_H

#include <stdbool.h>
#include <stdint.h>

#include "throng/building.h"
#include "throng/throng.h"

typedef struct th_shot_opts {
    int width, height; /* pixels */
    uint32_t overlays; /* TH_VIEW_OVERLAY_* bits */
    bool no_hud;       /* drop every panel (HUD, legend, profiler, help) */
    bool has_view;     /* frame [x0, x1] x [y0, y1] (metres) instead of the whole world */
    double x0, y0, x1, y1;
    const char *flow_field; /* --flow-field: "nearest", a bunker's name or a crowd's (its
                               destination field); NULL = nearest */
    int flow_index;         /* flow_field resolved by th_shot_check: th_view_opts.flow_bunker */
    const char *level_name; /* --level: the level drawn alone; NULL = every level */
    th_level_id level;      /* level_name resolved by th_shot_resolve: th_view_opts.level */
} th_shot_opts;

/** The viewer's defaults: 1280 x 800, HUD, legend and agents. */
void th_shot_defaults(th_shot_opts *s);

/** Apply an --overlays list (names added, '-name' taken away, all, none); false with a message
 *  on stderr naming `flag` and the known names. */
bool th_shot_parse_overlays(const char *flag, const char *list, th_shot_opts *s);

/** Parse --size WxH (each TH_VIEW_MIN_DIM..TH_VIEW_MAX_DIM) into s->width, s->height; false
 *  with a message on stderr naming `cmd` and `flag`. */
bool th_shot_parse_size(const char *cmd, const char *flag, const char *text, th_shot_opts *s);

/** The overlay bits to draw: panels dropped for --no-hud and --view. */
uint32_t th_shot_overlays(const th_shot_opts *s);

/** Resolve --flow-field against `w` into s->flow_index. False with `err` filled when no bunker
 *  or destinations crowd has that name. */
bool th_shot_resolve_flow(const th_world *w, th_shot_opts *s, th_error *err);

/** Resolve --flow-field (th_shot_resolve_flow) and --level against `w`. False with `err` filled
 *  for an unknown field, a level `w` lacks (the message names those it has), --level on a scene
 *  without levels, or --level with --view. */
bool th_shot_resolve(const th_world *w, th_shot_opts *s, th_error *err);

/** Whether a --view rectangle can be drawn for `w` (the frame it is cut from fits
 *  TH_VIEW_MAX_DIM); the frame's size in `*frame_w`, `*frame_h` (may be NULL). False with `err`
 *  filled. Always true without a view. */
bool th_shot_check(const th_world *w, const th_shot_opts *s, int *frame_w, int *frame_h,
                   th_error *err);

/** Render `w` to a PNG at `path`, titled `title` (the scene's name). False with `err` filled. */
bool th_shot_write(const th_world *w, const char *title, const th_shot_opts *s, const char *path,
                   th_error *err);

#endif
