/* Pictures for `throng run --results` (app/results.c), drawn with Cairo and written as PNG:
 * a map of values over a level's cells with its legend, and curves over time. */
#ifndef TH_APP_PLOT_H
#define TH_APP_PLOT_H

#include <stdbool.h>
#include <stdint.h>

#include "throng/throng.h"

/** How map values read. */
typedef enum th_plot_scale {
    TH_PLOT_DENSITY = 0, /* persons/m^2, a colour ramp from 0 to 6 and above */
    TH_PLOT_LOS = 1,     /* the same values as Fruin's levels of service A..F */
} th_plot_scale;

/** A place drawn over a map: a rectangle, or the segment (x0, y0)-(x1, y1), and its name. */
typedef struct th_plot_rect {
    float x0, y0, x1, y1; /* metres */
    bool line;
    const char *name;
} th_plot_rect;

typedef struct th_plot_map_def {
    const char *title;
    const float *values; /* cols x rows, row 0 at the south; NaN: a wall (grey); 0: nobody
                            (white) */
    int32_t cols, rows;
    float cell_m;     /* a cell's side, metres */
    float x0_m, y0_m; /* the south-west corner, metres */
    th_plot_scale scale;
    const th_plot_rect *rects;
    uint32_t rect_count;
} th_plot_map_def;

/** Draw a map to the PNG file `path` (written whole or not at all); false with `err` filled. */
bool th_plot_map(const char *path, const th_plot_map_def *m, th_error *err);

typedef struct th_plot_series {
    const char *name;
    const double *x, *y;
    uint32_t n;
} th_plot_series;

typedef struct th_plot_curves_def {
    const char *title, *x_label, *y_label;
    const th_plot_series *series; /* the first drawn boldest */
    uint32_t series_count;
    double mark[3]; /* x of a vertical mark each; < 0: none */
    const char *mark_name[3];
} th_plot_curves_def;

/** Draw curves to the PNG file `path`; false with `err` filled. */
bool th_plot_curves(const char *path, const th_plot_curves_def *c, th_error *err);

/** Free what Cairo and fontconfig keep for drawing text (font caches, the configuration) once
 *  every picture is drawn: a program that ends soon after would leave it to the system, but a
 *  leak checker cannot tell that from a leak. */
void th_plot_done(void);

#endif
