/* PNG output through libpng.
 *
 * libpng (Debian: libpng-dev) is the reference PNG codec and the one library this needs.
 * Rejected: SDL2_image's IMG_SavePNG, which would add a second SDL library (and its codec
 * dependencies) for one function; and stb_image_write, which would vendor third-party source
 * into the tree. */
#include <errno.h>
#include <fcntl.h>
#include <png.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "view_internal.h"

void tv_error(th_error *err, th_error_code code, const char *fmt, ...) {
    if (!err) return;
    err->code = code;
    err->line = err->column = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
}

/* libpng reports errors by longjmp; this handler copies the message out first so the caller
 * can say what went wrong. */
typedef struct png_sink {
    th_error *err;
    const char *path;
} png_sink;

static void png_fail(png_structp png, png_const_charp msg) {
    png_sink *s = png_get_error_ptr(png);
    /* libpng's own writer says only "Write Error"; the failed fwrite's errno says why. */
    int e = errno;
    if (e && strcmp(msg, "Write Error") == 0)
        tv_error(s->err, TH_ERR_IO, "cannot write '%s': %s", s->path, strerror(e));
    else tv_error(s->err, TH_ERR_IO, "cannot write '%s': %s", s->path, msg);
    png_longjmp(png, 1);
}

static void png_warn(png_structp png, png_const_charp msg) {
    (void)png;
    (void)msg;
}

bool tv_write_png(const char *path, const uint32_t *pixels, int w, int h, int pitch,
                  th_error *err) {
    if (!path || !pixels || w <= 0 || h <= 0 || pitch < w * 4) {
        tv_error(err, TH_ERR_INVALID, "bad PNG arguments");
        return false;
    }
    /* Converted to RGB rows up front so nothing is allocated between setjmp and longjmp. */
    uint8_t *rgb = malloc((size_t)w * (size_t)h * 3);
    png_bytep *rows = malloc((size_t)h * sizeof *rows);
    if (!rgb || !rows) {
        free(rgb);
        free(rows);
        tv_error(err, TH_ERR_NOMEM, "out of memory writing '%s'", path);
        return false;
    }
    for (int y = 0; y < h; y++) {
        const uint32_t *src = (const uint32_t *)((const uint8_t *)pixels + (size_t)y * pitch);
        uint8_t *dst = rgb + (size_t)y * w * 3;
        for (int x = 0; x < w; x++) {
            dst[3 * x + 0] = (uint8_t)(src[x] >> 16);
            dst[3 * x + 1] = (uint8_t)(src[x] >> 8);
            dst[3 * x + 2] = (uint8_t)src[x];
        }
        rows[y] = dst;
    }
    /* Opened without blocking, then made blocking: a plain fopen of a FIFO nobody reads waits
     * forever (open fails with ENXIO instead). */
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0666);
    FILE *f = fd >= 0 && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) == 0
                  ? fdopen(fd, "wb")
                  : NULL;
    if (!f) {
        int e = errno;
        if (fd >= 0) close(fd);
        tv_error(err, TH_ERR_IO, "cannot write '%s': %s", path,
                 e == ENXIO ? "a FIFO or socket no process is reading" : strerror(e));
        free(rgb);
        free(rows);
        return false;
    }
    png_sink sink = {err, path};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &sink, png_fail, png_warn);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    /* volatile: assigned after setjmp and read after a possible longjmp. */
    volatile bool ok = false;
    if (png && info && setjmp(png_jmpbuf(png)) == 0) {
        png_init_io(png, f);
        png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 8, PNG_COLOR_TYPE_RGB,
                     PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
        /* Level 3: screenshots compress ~5x faster than at the default 6, a few % larger. */
        png_set_compression_level(png, 3);
        png_set_rows(png, info, rows);
        errno = 0;
        png_write_png(png, info, PNG_TRANSFORM_IDENTITY, NULL);
        ok = true;
    } else if (!png || !info) {
        tv_error(err, TH_ERR_NOMEM, "cannot write '%s': out of memory", path);
    }
    png_destroy_write_struct(png ? &png : NULL, info ? &info : NULL);
    errno = 0;
    if (fclose(f) != 0 && ok) {
        tv_error(err, TH_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
        ok = false;
    }
    if (!ok) remove(path);
    free(rgb);
    free(rows);
    return ok;
}
