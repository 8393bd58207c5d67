/* Maps and curves for `throng run --results`, drawn with Cairo (text by its font machinery,
 * fontconfig's sans-serif face) and written as PNG through th_file_begin / th_file_commit. */
#include "plot.h"

#include <cairo.h>
#include <fontconfig/fontconfig.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"

static const char *const font = "sans-serif";

static void set_err(th_error *err, const char *path, const char *why) {
    if (!err) return;
    *err = (th_error){.code = TH_ERR_IO};
    snprintf(err->message, sizeof err->message, "--results: cannot write '%s': %s", path, why);
}

static cairo_status_t to_file(void *closure, const unsigned char *data, unsigned int length) {
    return fwrite(data, 1, length, closure) == length ? CAIRO_STATUS_SUCCESS
                                                      : CAIRO_STATUS_WRITE_ERROR;
}

/* Write the surface to `path` whole or not at all. */
static bool save(cairo_surface_t *s, const char *path, th_error *err) {
    char tmp[4400];
    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
        set_err(err, path, cairo_status_to_string(cairo_surface_status(s)));
        return false;
    }
    FILE *f = th_file_begin(path, tmp, sizeof tmp);
    if (!f) {
        set_err(err, path, strerror(errno));
        return false;
    }
    cairo_status_t st = cairo_surface_write_to_png_stream(s, to_file, f);
    if (st != CAIRO_STATUS_SUCCESS) {
        fclose(f);
        remove(tmp);
        set_err(err, path, cairo_status_to_string(st));
        return false;
    }
    if (!th_file_commit(f, tmp, path)) {
        set_err(err, path, "the write failed");
        return false;
    }
    return true;
}

static void rgb(cairo_t *cr, unsigned hex) {
    cairo_set_source_rgb(cr, ((hex >> 16) & 255) / 255.0, ((hex >> 8) & 255) / 255.0,
                         (hex & 255) / 255.0);
}

/* Text with its left edge (align 0), centre (0.5) or right edge (1) at x, baseline at y. */
static void text(cairo_t *cr, double x, double y, double align, const char *s) {
    cairo_text_extents_t e;
    cairo_text_extents(cr, s, &e);
    cairo_move_to(cr, x - align * e.x_advance, y);
    cairo_show_text(cr, s);
}

static void font_size(cairo_t *cr, double size, bool bold) {
    cairo_select_font_face(cr, font, CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, size);
}

/* ---- maps -------------------------------------------------------------------------------- */

#define WALL        0x8c8c8c
#define NOBODY      0xffffff
#define DENSITY_TOP 6.0

/* Density ramp (ColorBrewer YlOrRd, one stop a person/m^2 from 0 to 6). */
static const unsigned ramp[7] = {0xffffcc, 0xfed976, 0xfeb24c, 0xfd8d3c,
                                 0xf03b20, 0xbd0026, 0x67000d};
/* Fruin's levels A..F, and where each ends (persons/m^2; F has no end). */
static const unsigned los_colour[6] = {0x2c7bb6, 0xabd9e9, 0xa6d96a, 0xffffbf, 0xfdae61, 0xd7191c};
static const double los_end[5] = {1.0 / 3.25, 1.0 / 2.32, 1.0 / 1.39, 1.0 / 0.93, 1.0 / 0.46};

/* A density's colour on the ramp, 0xRRGGBB. */
static unsigned density_rgb(double d) {
    if (d >= DENSITY_TOP) return ramp[6];
    int i = (int)d;
    double f = d - i;
    unsigned a = ramp[i], b = ramp[i + 1], out = 0;
    for (int sh = 16; sh >= 0; sh -= 8) {
        double c = (1 - f) * ((a >> sh) & 255) + f * ((b >> sh) & 255);
        out |= (unsigned)lround(c) << sh;
    }
    return out;
}

static void density_colour(cairo_t *cr, double d) { rgb(cr, density_rgb(d)); }

static int los_class(double d) {
    for (int i = 0; i < 5; i++)
        if (d < los_end[i]) return i;
    return 5;
}

/* A map cell's colour, 0xRRGGBB. */
static unsigned value_rgb(th_plot_scale scale, float v) {
    if (isnan(v)) return WALL;
    if (v <= 0.0f) return NOBODY;
    if (scale == TH_PLOT_LOS) return los_colour[los_class(v)];
    return density_rgb(v);
}

static void swatch(cairo_t *cr, double x, double y, double w, double h) {
    cairo_rectangle(cr, x, y, w, h);
    cairo_fill_preserve(cr);
    rgb(cr, 0x444444);
    cairo_set_line_width(cr, 1.0);
    cairo_stroke(cr);
}

static void map_legend(cairo_t *cr, th_plot_scale scale, double x, double y) {
    font_size(cr, 12, true);
    rgb(cr, 0x222222);
    text(cr, x, y, 0, scale == TH_PLOT_LOS ? "level of service" : "persons/m\xc2\xb2");
    font_size(cr, 11, false);
    y += 12;
    if (scale == TH_PLOT_LOS) {
        static const char *const label[6] = {"A  below 0.31",  "B  0.31 - 0.43", "C  0.43 - 0.72",
                                             "D  0.72 - 1.08", "E  1.08 - 2.17", "F  2.17 and up"};
        for (int i = 0; i < 6; i++, y += 22) {
            rgb(cr, los_colour[i]);
            swatch(cr, x, y, 18, 16);
            rgb(cr, 0x222222);
            text(cr, x + 26, y + 12, 0, label[i]);
        }
    } else {
        const double h = 180.0;
        for (int i = 0; i < (int)h; i++) {
            density_colour(cr, DENSITY_TOP * (h - 1 - i) / (h - 1));
            cairo_rectangle(cr, x, y + i, 18, 1.5);
            cairo_fill(cr);
        }
        rgb(cr, 0x444444);
        cairo_rectangle(cr, x, y, 18, h);
        cairo_set_line_width(cr, 1.0);
        cairo_stroke(cr);
        for (int v = 0; v <= 6; v++) {
            double yy = y + h - h * v / DENSITY_TOP;
            char s[16];
            snprintf(s, sizeof s, v == 6 ? "6 and up" : "%d", v);
            cairo_move_to(cr, x + 18, yy);
            cairo_line_to(cr, x + 23, yy);
            cairo_stroke(cr);
            rgb(cr, 0x222222);
            text(cr, x + 27, yy + 4, 0, s);
            rgb(cr, 0x444444);
        }
        y += h + 10;
    }
    rgb(cr, NOBODY);
    swatch(cr, x, y, 18, 16);
    rgb(cr, 0x222222);
    text(cr, x + 26, y + 12, 0, "nobody");
    rgb(cr, WALL);
    swatch(cr, x, y + 22, 18, 16);
    rgb(cr, 0x222222);
    text(cr, x + 26, y + 34, 0, "wall");
}

/* A step between axis ticks: 1, 2 or 5 times a power of ten, about `span` / 6. */
static double nice_step(double span) {
    if (span <= 0.0) return 1.0;
    double raw = span / 6.0, p = pow(10.0, floor(log10(raw))), m = raw / p;
    return (m < 1.5 ? 1.0 : (m < 3.5 ? 2.0 : (m < 7.5 ? 5.0 : 10.0))) * p;
}

bool th_plot_map(const char *path, const th_plot_map_def *m, th_error *err) {
    const int32_t big = m->cols > m->rows ? m->cols : m->rows;
    double px = floor(760.0 / (big > 0 ? big : 1));
    if (px < 1.0) px = 760.0 / big;
    if (px > 24.0) px = 24.0;
    const double left = 56, top = 44, right = 190, bottom = 46;
    const double mw = px * m->cols, mh = px * m->rows;
    const int W = (int)ceil(left + mw + right), H = (int)ceil(top + (mh > 300 ? mh : 300) + bottom);
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, H);
    cairo_t *cr = cairo_create(s);
    rgb(cr, 0xffffff);
    cairo_paint(cr);
    /* Cells: one pixel each in an image, row 0 at the bottom, scaled up without smoothing
     * (a 4096 x 4096 map is one paint, not 16 million rectangles). */
    cairo_surface_t *cells = cairo_image_surface_create(CAIRO_FORMAT_RGB24, m->cols, m->rows);
    if (cairo_surface_status(cells) == CAIRO_STATUS_SUCCESS) {
        cairo_surface_flush(cells);
        unsigned char *data = cairo_image_surface_get_data(cells);
        const int stride = cairo_image_surface_get_stride(cells);
        for (int32_t y = 0; y < m->rows; y++) {
            uint32_t *row = (uint32_t *)(void *)(data + (size_t)(m->rows - 1 - y) * (size_t)stride);
            for (int32_t x = 0; x < m->cols; x++)
                row[x] = value_rgb(m->scale, m->values[(size_t)y * (size_t)m->cols + (size_t)x]);
        }
        cairo_surface_mark_dirty(cells);
        cairo_save(cr);
        cairo_rectangle(cr, left, top, mw, mh);
        cairo_clip(cr);
        cairo_translate(cr, left, top);
        cairo_scale(cr, px, px);
        cairo_set_source_surface(cr, cells, 0, 0);
        cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
        cairo_paint(cr);
        cairo_restore(cr);
    }
    cairo_surface_destroy(cells);
    rgb(cr, 0x333333);
    cairo_set_line_width(cr, 1.0);
    cairo_rectangle(cr, left, top, mw, mh);
    cairo_stroke(cr);
    /* Axes in metres. */
    const double scale = px / m->cell_m; /* pixels per metre */
    const double wm = m->cols * m->cell_m, hm = m->rows * m->cell_m;
    font_size(cr, 11, false);
    const double step = nice_step(wm > hm ? wm : hm);
    for (double v = ceil(m->x0_m / step) * step; v <= m->x0_m + wm + 1e-6; v += step) {
        double x = left + (v - m->x0_m) * scale;
        char s[32];
        snprintf(s, sizeof s, "%g", v);
        cairo_move_to(cr, x, top + mh);
        cairo_line_to(cr, x, top + mh + 4);
        cairo_stroke(cr);
        text(cr, x, top + mh + 16, 0.5, s);
    }
    for (double v = ceil(m->y0_m / step) * step; v <= m->y0_m + hm + 1e-6; v += step) {
        double y = top + mh - (v - m->y0_m) * scale;
        char s[32];
        snprintf(s, sizeof s, "%g", v);
        cairo_move_to(cr, left - 4, y);
        cairo_line_to(cr, left, y);
        cairo_stroke(cr);
        text(cr, left - 7, y + 4, 1.0, s);
    }
    text(cr, left + mw / 2, top + mh + 34, 0.5, "x (m)");
    text(cr, left - 8, top - 8, 1.0, "y (m)");
    /* Places: outlined first, then named: above each, else below, else nearby where no name
     * drawn yet lies (names never overprint one another). */
    double(*box)[4] = calloc(m->rect_count + 1, sizeof *box);
    uint32_t boxes = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < m->rect_count; i++) {
            const th_plot_rect *r = &m->rects[i];
            double x0 = left + (r->x0 - m->x0_m) * scale, x1 = left + (r->x1 - m->x0_m) * scale;
            double y0 = top + mh - (r->y0 - m->y0_m) * scale;
            double y1 = top + mh - (r->y1 - m->y0_m) * scale;
            if (pass == 0) {
                rgb(cr, 0x1f3a93);
                cairo_set_line_width(cr, 2.0);
                if (r->line) {
                    cairo_move_to(cr, x0, y0);
                    cairo_line_to(cr, x1, y1);
                } else {
                    cairo_rectangle(cr, x0, y1, x1 - x0, y0 - y1);
                }
                cairo_stroke(cr);
                continue;
            }
            if (!r->name || !r->name[0] || !box) continue;
            font_size(cr, 11, true);
            cairo_text_extents_t e;
            cairo_text_extents(cr, r->name, &e);
            const double w = e.x_advance + 4, h = 14;
            const double hi = y1 < y0 ? y1 : y0, lo = y1 < y0 ? y0 : y1;
            double tx = (x0 + x1) / 2 - w / 2;
            if (tx < left) tx = left;
            if (tx + w > left + mw) tx = left + mw - w;
            /* Candidates: the top of the box's row above, below, then further off each way. */
            double cand[8] = {hi - 3 - h,     lo + 3,         hi - 3 - 2 * h, lo + 3 + h,
                              hi - 3 - 3 * h, lo + 3 + 2 * h, hi - 3 - 4 * h, lo + 3 + 3 * h};
            double ty = cand[0];
            for (int c = 0; c < 8; c++) {
                ty = cand[c];
                if (ty < top || ty + h > top + mh) continue;
                bool clear = true;
                for (uint32_t b = 0; b < boxes && clear; b++)
                    clear = tx + w <= box[b][0] || tx >= box[b][2] || ty + h <= box[b][1] ||
                            ty >= box[b][3];
                if (clear) break;
            }
            box[boxes][0] = tx;
            box[boxes][1] = ty;
            box[boxes][2] = tx + w;
            box[boxes++][3] = ty + h;
            rgb(cr, 0xffffff);
            cairo_rectangle(cr, tx, ty, w, h);
            cairo_fill(cr);
            rgb(cr, 0x1f3a93);
            text(cr, tx + 2, ty + 11, 0, r->name);
        }
    }
    free(box);
    font_size(cr, 14, true);
    rgb(cr, 0x222222);
    text(cr, left, 24, 0, m->title ? m->title : "");
    map_legend(cr, m->scale, left + mw + 24, top + 12);
    cairo_destroy(cr);
    bool ok = save(s, path, err);
    cairo_surface_destroy(s);
    return ok;
}

/* ---- curves ------------------------------------------------------------------------------ */

static const unsigned palette[8] = {0x1f77b4, 0xd62728, 0x2ca02c, 0x9467bd,
                                    0xff7f0e, 0x8c564b, 0xe377c2, 0x17becf};

bool th_plot_curves(const char *path, const th_plot_curves_def *c, th_error *err) {
    const int W = 900, H = 520;
    const double left = 70, right = 30, top = 44, bottom = 56;
    const double pw = W - left - right, ph = H - top - bottom;
    double xmax = 0.0, ymax = 0.0;
    for (uint32_t s = 0; s < c->series_count; s++) {
        for (uint32_t i = 0; i < c->series[s].n; i++) {
            if (c->series[s].x[i] > xmax) xmax = c->series[s].x[i];
            if (c->series[s].y[i] > ymax) ymax = c->series[s].y[i];
        }
    }
    const double xs = nice_step(xmax), ys = nice_step(ymax);
    xmax = xmax > 0.0 ? ceil(xmax / xs) * xs : 1.0;
    ymax = ymax > 0.0 ? ceil(ymax / ys) * ys : 1.0;
    cairo_surface_t *surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, H);
    cairo_t *cr = cairo_create(surf);
    rgb(cr, 0xffffff);
    cairo_paint(cr);
    font_size(cr, 11, false);
    cairo_set_line_width(cr, 1.0);
    for (double v = 0.0; v <= xmax + 1e-9; v += xs) {
        double x = left + pw * v / xmax;
        rgb(cr, 0xe6e6e6);
        cairo_move_to(cr, x, top);
        cairo_line_to(cr, x, top + ph);
        cairo_stroke(cr);
        char s[32];
        snprintf(s, sizeof s, "%g", v);
        rgb(cr, 0x333333);
        text(cr, x, top + ph + 16, 0.5, s);
    }
    for (double v = 0.0; v <= ymax + 1e-9; v += ys) {
        double y = top + ph - ph * v / ymax;
        rgb(cr, 0xe6e6e6);
        cairo_move_to(cr, left, y);
        cairo_line_to(cr, left + pw, y);
        cairo_stroke(cr);
        char s[32];
        snprintf(s, sizeof s, "%g", v);
        rgb(cr, 0x333333);
        text(cr, left - 6, y + 4, 1.0, s);
    }
    rgb(cr, 0x333333);
    cairo_rectangle(cr, left, top, pw, ph);
    cairo_stroke(cr);
    text(cr, left + pw / 2, H - 14, 0.5, c->x_label);
    cairo_save(cr);
    cairo_translate(cr, 18, top + ph / 2);
    cairo_rotate(cr, -1.5707963267948966);
    text(cr, 0, 0, 0.5, c->y_label);
    cairo_restore(cr);
    /* Marks first, under the curves. */
    for (int i = 0; i < 3; i++) {
        if (!(c->mark[i] >= 0.0) || c->mark[i] > xmax) continue;
        double x = left + pw * c->mark[i] / xmax;
        static const double dash[2] = {5.0, 4.0};
        cairo_set_dash(cr, dash, 2, 0);
        rgb(cr, 0x777777);
        cairo_move_to(cr, x, top);
        cairo_line_to(cr, x, top + ph);
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
        char s[64];
        snprintf(s, sizeof s, "%s %.1f s", c->mark_name[i] ? c->mark_name[i] : "", c->mark[i]);
        /* Named along the bottom, clear of the curves that rise from there to the right. */
        cairo_text_extents_t e;
        cairo_text_extents(cr, s, &e);
        const double ty = top + ph - 8 - 16 * (2 - i);
        rgb(cr, 0xffffff);
        cairo_rectangle(cr, x + 2, ty - 11, e.x_advance + 4, 14);
        cairo_fill(cr);
        rgb(cr, 0x444444);
        text(cr, x + 4, ty, 0.0, s);
    }
    for (uint32_t s = c->series_count; s-- > 0;) {
        const th_plot_series *se = &c->series[s];
        if (s == 0) {
            rgb(cr, 0x111111);
            cairo_set_line_width(cr, 2.5);
        } else {
            rgb(cr, palette[(s - 1) % 8]);
            cairo_set_line_width(cr, 1.6);
        }
        for (uint32_t i = 0; i < se->n; i++) {
            double x = left + pw * se->x[i] / xmax, y = top + ph - ph * se->y[i] / ymax;
            if (i == 0) cairo_move_to(cr, x, y);
            else cairo_line_to(cr, x, y);
        }
        cairo_stroke(cr);
    }
    /* Legend, top left inside the frame. */
    font_size(cr, 11, false);
    const uint32_t shown = c->series_count < 12 ? c->series_count : 12;
    double lw = 0.0;
    for (uint32_t s = 0; s < shown; s++) {
        cairo_text_extents_t e;
        cairo_text_extents(cr, c->series[s].name, &e);
        if (e.x_advance > lw) lw = e.x_advance;
    }
    rgb(cr, 0xffffff);
    cairo_rectangle(cr, left + 8, top + 8, lw + 44, 16.0 * shown + 8);
    cairo_fill_preserve(cr);
    rgb(cr, 0xcccccc);
    cairo_set_line_width(cr, 1.0);
    cairo_stroke(cr);
    for (uint32_t s = 0; s < shown; s++) {
        double y = top + 20 + 16.0 * s;
        if (s == 0) rgb(cr, 0x111111);
        else rgb(cr, palette[(s - 1) % 8]);
        cairo_set_line_width(cr, s == 0 ? 2.5 : 1.6);
        cairo_move_to(cr, left + 14, y - 4);
        cairo_line_to(cr, left + 34, y - 4);
        cairo_stroke(cr);
        rgb(cr, 0x222222);
        text(cr, left + 40, y, 0, c->series[s].name);
    }
    font_size(cr, 14, true);
    text(cr, left, 26, 0, c->title);
    cairo_destroy(cr);
    bool ok = save(surf, path, err);
    cairo_surface_destroy(surf);
    return ok;
}

void th_plot_done(void) {
    cairo_debug_reset_static_data();
    FcFini();
}
