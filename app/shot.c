/* Screenshots for the command line. The whole-world frame is the viewer's own
 * (th_view_screenshot). A view rectangle is cut out of a larger whole-world frame rendered at
 * the scale that makes the rectangle fill the image: the renderer offers only the initial
 * fit, and cutting keeps every drawing rule (agent sizes, overlays, colours) the viewer's.
 * Panels are left out there, since they belong to the larger frame's corners. */
#include "shot.h"

#include <errno.h>
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "throng/viewer.h"

static const struct {
    const char *name;
    uint32_t bits;
} k_overlays[] = {
    {"flow", TH_VIEW_OVERLAY_FLOW},
    {"density", TH_VIEW_OVERLAY_DENSITY},
    {"grid", TH_VIEW_OVERLAY_GRID},
    {"walldist", TH_VIEW_OVERLAY_WALLDIST},
    {"squads", TH_VIEW_OVERLAY_SQUADS},
    {"profiler", TH_VIEW_OVERLAY_PROFILER},
    {"hud", TH_VIEW_OVERLAY_HUD},
    {"legend", TH_VIEW_OVERLAY_LEGEND},
    {"help", TH_VIEW_OVERLAY_HELP},
    {"agents", TH_VIEW_OVERLAY_AGENTS},
    {"pheromone", TH_VIEW_OVERLAY_PHEROMONE},
    {"all", TH_VIEW_OVERLAY_ALL},
    {"none", TH_VIEW_OVERLAY_ALL},
};

#define PANELS \
    (TH_VIEW_OVERLAY_HUD | TH_VIEW_OVERLAY_LEGEND | TH_VIEW_OVERLAY_PROFILER | TH_VIEW_OVERLAY_HELP)

void th_shot_defaults(th_shot_opts *s) {
    th_view_opts vo = th_view_default_opts();
    memset(s, 0, sizeof *s);
    s->width = vo.width;
    s->height = vo.height;
    s->overlays = vo.overlays;
    s->flow_index = -1;
}

bool th_shot_parse_overlays(const char *flag, const char *list, th_shot_opts *s) {
    const char *p = list;
    do {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        bool remove = len > 0 && p[0] == '-';
        const char *name = p + remove;
        size_t n = len - remove;
        bool found = false;
        for (size_t i = 0; i < sizeof k_overlays / sizeof k_overlays[0]; i++) {
            if (strlen(k_overlays[i].name) != n || strncmp(k_overlays[i].name, name, n) != 0)
                continue;
            found = true;
            bool none = strcmp(k_overlays[i].name, "none") == 0;
            if (remove || none) s->overlays &= ~k_overlays[i].bits;
            else s->overlays |= k_overlays[i].bits;
        }
        if (!found) {
            fprintf(stderr,
                    "throng run: %s: unknown overlay '%.*s' in '%s' (expected a comma-"
                    "separated list of: ",
                    flag, (int)len, p, list);
            for (size_t i = 0; i < sizeof k_overlays / sizeof k_overlays[0]; i++)
                fprintf(stderr, "%s%s", i ? ", " : "", k_overlays[i].name);
            fprintf(stderr, "; '-NAME' takes one away)\n");
            return false;
        }
        p = end ? end + 1 : NULL;
    } while (p);
    return true;
}

uint32_t th_shot_overlays(const th_shot_opts *s) {
    return s->overlays & ~((s->no_hud || s->has_view) ? (uint32_t)PANELS : 0u);
}

static bool write_png(const char *path, const uint32_t *px, int w, int h, th_error *err) {
    FILE *f = fopen(path, "wb");
    if (!f) {
        int e = errno;
        *err = (th_error){.code = TH_ERR_IO};
        snprintf(err->message, sizeof err->message, "cannot write '%s': %s", path, strerror(e));
        return false;
    }
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    unsigned char *row = malloc((size_t)w * 3);
    /* volatile: read after a longjmp out of libpng (a failed fwrite: errno says why). */
    volatile bool ok = png && info && row;
    volatile int e = ok ? 0 : ENOMEM;
    if (ok && setjmp(png_jmpbuf(png))) {
        ok = false;
        e = errno;
    } else if (ok) {
        png_init_io(png, f);
        png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 8, PNG_COLOR_TYPE_RGB,
                     PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
        png_write_info(png, info);
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                uint32_t c = px[(size_t)y * (size_t)w + (size_t)x];
                row[3 * x] = (unsigned char)(c >> 16);
                row[3 * x + 1] = (unsigned char)(c >> 8);
                row[3 * x + 2] = (unsigned char)c;
            }
            png_write_row(png, row);
        }
        png_write_end(png, NULL);
    }
    png_destroy_write_struct(&png, &info);
    free(row);
    errno = 0;
    if (fclose(f) != 0) {
        if (ok || !e) e = errno;
        ok = false;
    }
    if (!ok) {
        *err = (th_error){.code = TH_ERR_IO};
        snprintf(err->message, sizeof err->message, "writing '%s' failed: %s", path,
                 e ? strerror(e) : "libpng refused the image");
    }
    return ok;
}

bool th_shot_check(const th_world *w, const th_shot_opts *s, int *frame_w, int *frame_h,
                   th_error *err) {
    if (!s->has_view) return true;
    th_world_def def = th_world_get_def(w);
    double vw = s->x1 - s->x0, vh = s->y1 - s->y0;
    double scale = fmin((double)s->width / vw, (double)s->height / vh); /* pixels per metre */
    double bw = ceil((double)def.width * scale) + 2 * TH_VIEW_MARGIN;
    double bh = ceil((double)def.height * scale) + 2 * TH_VIEW_MARGIN;
    if (bw > TH_VIEW_MAX_DIM || bh > TH_VIEW_MAX_DIM) {
        *err = (th_error){.code = TH_ERR_INVALID};
        snprintf(err->message, sizeof err->message,
                 "--view: a %.4g x %.4g m rectangle at %d x %d pixels is %.3g pixels/metre; this "
                 "%.0f x %.0f m world would need a %.0f x %.0f frame (at most %d a side): ask "
                 "for a larger rectangle or a smaller --size",
                 vw, vh, s->width, s->height, scale, (double)def.width, (double)def.height, bw, bh,
                 TH_VIEW_MAX_DIM);
        return false;
    }
    if (frame_w) *frame_w = bw < TH_VIEW_MIN_DIM ? TH_VIEW_MIN_DIM : (int)bw;
    if (frame_h) *frame_h = bh < TH_VIEW_MIN_DIM ? TH_VIEW_MIN_DIM : (int)bh;
    return true;
}

bool th_shot_resolve_flow(const th_world *w, th_shot_opts *s, th_error *err) {
    s->flow_index = -1;
    if (!s->flow_field || strcmp(s->flow_field, "nearest") == 0) return true;
    th_bunker_id b = th_world_find_bunker(w, s->flow_field);
    if (th_bunker_id_valid(b)) {
        s->flow_index = (int)b.index1 - 1;
        return true;
    }
    /* Destination fields come after the bunkers in the viewer's numbering. */
    for (uint32_t c = 0; c < th_world_crowd_count(w); c++) {
        const th_crowd_def *d = th_world_get_crowd(w, (th_crowd_id){c + 1});
        if (strcmp(d->name, s->flow_field) == 0 && d->goal.kind == TH_GOAL_DESTINATIONS) {
            s->flow_index = (int)(th_world_bunker_count(w) + d->goal.field.index1 - 1);
            return true;
        }
    }
    *err = (th_error){.code = TH_ERR_INVALID};
    snprintf(err->message, sizeof err->message,
             "--flow-field: '%s' is not 'nearest', a bunker, or a crowd with a destinations goal",
             s->flow_field);
    return false;
}

bool th_shot_resolve(const th_world *w, th_shot_opts *s, th_error *err) {
    if (!th_shot_resolve_flow(w, s, err)) return false;
    s->level = (th_level_id){0};
    if (!s->level_name) return true;
    *err = (th_error){.code = TH_ERR_INVALID};
    if (s->has_view) {
        snprintf(err->message, sizeof err->message,
                 "--level and --view both frame the screenshot: give one of them");
        return false;
    }
    const uint32_t n = th_world_level_count(w);
    if (n == 0) {
        snprintf(err->message, sizeof err->message,
                 "--level: '%s': this scene has no levels (a building's `levels:` section, "
                 "docs/buildings.md)",
                 s->level_name);
        return false;
    }
    s->level = th_world_find_level(w, s->level_name);
    if (s->level.index1) {
        *err = (th_error){0};
        return true;
    }
    int len = snprintf(err->message, sizeof err->message,
                       "--level: no level '%s' in this scene (its levels: ", s->level_name);
    for (uint32_t i = 0; i < n && len >= 0 && (size_t)len < sizeof err->message; i++) {
        th_level_info li;
        if (!th_world_get_level(w, (th_level_id){i + 1}, &li)) continue;
        len += snprintf(err->message + len, sizeof err->message - (size_t)len, "%s%s",
                        i ? ", " : "", li.name);
    }
    if (len >= 0 && (size_t)len < sizeof err->message)
        snprintf(err->message + len, sizeof err->message - (size_t)len, ")");
    return false;
}

bool th_shot_write(const th_world *w, const char *title, const th_shot_opts *s, const char *path,
                   th_error *err) {
    th_view_opts vo = th_view_default_opts();
    vo.title = title;
    vo.flow_bunker = s->flow_index;
    vo.level = s->level;
    vo.width = s->width;
    vo.height = s->height;
    uint32_t overlays = th_shot_overlays(s);
    if (!s->has_view) return th_view_screenshot(w, &vo, path, overlays, err);

    int bw, bh;
    if (!th_shot_check(w, s, &bw, &bh, err)) return false;
    th_view_opts big = vo;
    big.width = bw;
    big.height = bh;
    th_view_layout lay;
    if (!th_view_get_layout(w, &big, overlays, &lay, err)) return false;
    uint32_t *px = malloc((size_t)big.width * (size_t)big.height * sizeof *px);
    uint32_t *out = malloc((size_t)s->width * (size_t)s->height * sizeof *out);
    if (!px || !out) {
        free(px);
        free(out);
        *err = (th_error){.code = TH_ERR_NOMEM};
        snprintf(err->message, sizeof err->message, "out of memory for a %d x %d frame", big.width,
                 big.height);
        return false;
    }
    bool ok = th_view_render_pixels(w, &big, overlays, px, err);
    if (ok) {
        /* The rectangle's centre goes to the image's centre; outside the frame is background. */
        th_vec2 c = th_view_layout_to_screen(
            &lay, th_v2((float)(0.5 * (s->x0 + s->x1)), (float)(0.5 * (s->y0 + s->y1))));
        long ox = lround(c.x - 0.5 * s->width), oy = lround(c.y - 0.5 * s->height);
        uint32_t bg = px[0];
        for (int y = 0; y < s->height; y++) {
            for (int x = 0; x < s->width; x++) {
                long bx = ox + x, by = oy + y;
                out[(size_t)y * (size_t)s->width + (size_t)x] =
                    bx >= 0 && by >= 0 && bx < big.width && by < big.height
                        ? px[(size_t)by * (size_t)big.width + (size_t)bx]
                        : bg;
            }
        }
        ok = write_png(path, out, s->width, s->height, err);
    }
    free(px);
    free(out);
    return ok;
}

bool th_shot_parse_size(const char *cmd, const char *flag, const char *text, th_shot_opts *s) {
    unsigned a = 0, b = 0;
    char x = 0, extra = 0;
    if (sscanf(text, "%u%c%u%c", &a, &x, &b, &extra) != 3 || x != 'x' || a < TH_VIEW_MIN_DIM ||
        a > TH_VIEW_MAX_DIM || b < TH_VIEW_MIN_DIM || b > TH_VIEW_MAX_DIM || text[0] < '0' ||
        text[0] > '9') {
        fprintf(stderr, "%s: %s: expected WIDTHxHEIGHT, each %d..%d pixels, got '%s'\n", cmd, flag,
                TH_VIEW_MIN_DIM, TH_VIEW_MAX_DIM, text);
        return false;
    }
    s->width = (int)a;
    s->height = (int)b;
    return true;
}
