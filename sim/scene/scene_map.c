/* Scene maps from three sources: ASCII art with a legend, a PNG image with a colour legend,
 * or a generated city. All three fill the same per-cell arrays of th_scene. */
#include <ctype.h>
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/alloc.h"
#include "engine/rng.h"
#include "sim/core/error.h"
#include "sim/nav/nav.h"
#include "sim/scene/scene_internal.h"

#define FAIL(s, n, path, err, ...) th_scene_fail((s), (n), (path), (err), __VA_ARGS__)
/* A PNG that cannot be decoded, or whose size or colours do not make a map. */
#define IMAGE_FAIL(s, n, path, err, ...) \
    th_scene_fail_code((s), (n), (path), (err), TH_ERR_SCENE_IMAGE, __VA_ARGS__)

/* The world's size in metres for `cells` cells: cells x cell_size rounded to a float, then
 * nudged down by an ulp at a time until the world, which divides it by the cell size again
 * (in float and in double), finds exactly `cells` cells. Without this, half of all map sizes
 * at a cell size such as 0.01 come out one cell wider in the world, and a 4096-cell side
 * becomes 4097 and is refused. */
static float fit_extent(int32_t cells, float cell_size) {
    float e = (float)cells * cell_size;
    for (int i = 0; i < 64; i++) {
        if (ceilf(e / cell_size) <= (float)cells && ceil((double)e / cell_size) <= cells) break;
        e = nextafterf(e, 0.0f);
    }
    return e;
}

static bool alloc_cells(th_scene *s, const th_ynode *at, const char *path, int32_t cols,
                        int32_t rows, th_error *err) {
    if (cols < 1 || rows < 1 || cols > TH_NAV_MAX_DIM || rows > TH_NAV_MAX_DIM) {
        return FAIL(s, at, path, err, "expected a map of 1 to %d cells a side, found %d x %d",
                    TH_NAV_MAX_DIM, cols, rows);
    }
    double metres = (double)(cols > rows ? cols : rows) * s->cell_size;
    if (metres > TH_MAX_WORLD_DIM) {
        return FAIL(s, at, path, err, "the map would be %g m across, more than %g m", metres,
                    (double)TH_MAX_WORLD_DIM);
    }
    size_t n = (size_t)cols * (size_t)rows;
    s->cols = cols;
    s->rows = rows;
    s->width = fit_extent(cols, s->cell_size);
    s->height = fit_extent(rows, s->cell_size);
    s->kind = th_calloc(n, 1);
    s->cost = th_calloc(n, sizeof *s->cost);
    s->legend = th_alloc(n);
    if (!s->kind || !s->cost || !s->legend)
        return TH_SCENE_NOMEM(s, at, path, err, "out of memory for %d x %d cells", cols, rows);
    memset(s->legend, TH_SCENE_NO_LEGEND, n);
    for (size_t i = 0; i < n; i++) s->cost[i] = 1;
    return true;
}

static void set_cell(th_scene *s, int32_t x, int32_t y, uint32_t entry) {
    size_t i = (size_t)y * (size_t)s->cols + (size_t)x;
    const th_legend_entry *e = &s->legend_entry[entry];
    s->kind[i] = (uint8_t)e->kind;
    s->cost[i] = e->cost;
    s->legend[i] = (uint8_t)entry;
}

bool th_scene_open_at(const th_scene *s, float x, float y, bool no_bunker) {
    if (!s->has_map) return true;
    /* The world's own cell lookup (th_navmap_cell_of): a multiply by the reciprocal, in
     * floats, with the east and north edges folded into the last cell. */
    float inv = 1.0f / s->cell_size, fx = x * inv, fy = y * inv;
    if (!(fx >= 0.0f && fy >= 0.0f && fx < (float)s->cols && fy < (float)s->rows)) return false;
    int32_t cx = fx >= 1.0f ? (int32_t)fx : 0, cy = fy >= 1.0f ? (int32_t)fy : 0;
    if (cx >= s->cols) cx = s->cols - 1;
    if (cy >= s->rows) cy = s->rows - 1;
    size_t i = (size_t)cy * (size_t)s->cols + (size_t)cx;
    uint8_t l = s->legend[i];
    bool bunker = l != TH_SCENE_NO_LEGEND && s->legend_entry[l].bunker >= 0;
    return s->kind[i] == TH_CELL_OPEN && !(no_bunker && bunker);
}

/* ---- legend ---------------------------------------------------------------------------- */

/* Bunkers drawn with the legend get an entry (name only); their rectangles are found later. */
static int legend_bunker(th_scene *s, const th_ynode *name, const char *path, th_error *err) {
    char buf[64];
    bool ok = name->kind == TH_Y_SCALAR && name->len > 0 && name->len < sizeof s->bunker[0].name;
    ok = ok && th_text_safe(name->text, name->len);
    if (!ok) {
        if (name->kind != TH_Y_SCALAR)
            snprintf(buf, sizeof buf, "a %s", name->kind == TH_Y_SEQUENCE ? "list" : "mapping");
        else if (name->len == 0) snprintf(buf, sizeof buf, "an empty value");
        else if (name->len >= sizeof s->bunker[0].name)
            snprintf(buf, sizeof buf, "a name of %zu characters", name->len);
        else snprintf(buf, sizeof buf, "a name with control or bidirectional characters");
        FAIL(s, name, path, err, "expected a bunker name of 1 to 63 characters, found %s", buf);
        return -1;
    }
    for (uint32_t b = 0; b < s->bunker_count; b++) {
        if (strlen(s->bunker[b].name) == name->len &&
            memcmp(s->bunker[b].name, name->text, name->len) == 0) {
            FAIL(s, name, path, err, "two legend entries draw bunker '%s'", s->bunker[b].name);
            return -1;
        }
    }
    if (s->bunker_count == TH_MAX_BUNKERS) {
        FAIL(s, name, path, err, "more than %d bunkers", TH_MAX_BUNKERS);
        return -1;
    }
    th_scene_bunker *b = &s->bunker[s->bunker_count];
    memset(b, 0, sizeof *b);
    memcpy(b->name, name->text, name->len);
    b->x0 = b->y0 = INT32_MAX;
    b->x1 = b->y1 = -1;
    return (int)s->bunker_count++;
}

static bool read_legend(th_scene *s, const th_ynode *legend, bool colours, th_error *err) {
    char buf[64];
    if (legend->kind != TH_Y_MAPPING) {
        return FAIL(s, legend, "map.legend", err,
                    "expected a mapping from %s to cell kinds, found %s",
                    colours ? "colours (#rrggbb)" : "characters",
                    legend->kind == TH_Y_SEQUENCE ? "a list" : "a value");
    }
    if (legend->count == 0 || legend->count > TH_SCENE_MAX_LEGEND) {
        return FAIL(s, legend, "map.legend", err, "expected 1 to %d entries, found %u",
                    TH_SCENE_MAX_LEGEND, legend->count);
    }
    for (uint32_t i = 0; i < legend->count; i++) {
        const th_ynode *k = th_ynode_key(legend, i), *v = th_ynode_value(legend, i);
        char path[96];
        snprintf(path, sizeof path, "map.legend['%.*s']", k->len > 16 ? 16 : (int)k->len, k->text);
        th_legend_entry *e = &s->legend_entry[s->legend_count];
        *e = (th_legend_entry){
            .kind = TH_CELL_OPEN, .cost = 1, .speed = 1.0f, .bunker = -1, .node = k};
        if (colours) {
            bool ok = k->len == 7 && k->text[0] == '#';
            for (size_t j = 1; ok && j < 7; j++) ok = isxdigit((unsigned char)k->text[j]) != 0;
            if (!ok) return FAIL(s, k, path, err, "expected a colour key written #rrggbb");
            e->key = (uint32_t)strtoul(k->text + 1, NULL, 16);
        } else {
            if (k->len != 1 || (unsigned char)k->text[0] < 32 || (unsigned char)k->text[0] > 126) {
                return FAIL(s, k, path, err, "expected a single printable character as key");
            }
            e->key = (unsigned char)k->text[0];
        }
        for (uint32_t j = 0; j < s->legend_count; j++) {
            if (s->legend_entry[j].key == e->key)
                return FAIL(s, k, path, err, "this key appears twice in the legend");
        }
        if (v->kind == TH_Y_SCALAR) {
            static const char *const words[] = {"open", "wall", "destructible", "spawn"};
            int w = -1;
            for (int j = 0; j < 4; j++) {
                if (strlen(words[j]) == v->len && memcmp(words[j], v->text, v->len) == 0) w = j;
            }
            if (w < 0) {
                snprintf(buf, sizeof buf, "'%.*s'", v->len > 30 ? 30 : (int)v->len, v->text);
                return FAIL(
                    s, v, path, err,
                    "expected open, wall, destructible, spawn, {terrain: cost, speed: factor} or {bunker: name}, found %s",
                    buf);
            }
            e->kind = w == 1 ? TH_CELL_WALL : w == 2 ? TH_CELL_DESTRUCTIBLE : TH_CELL_OPEN;
        } else if (v->kind == TH_Y_MAPPING &&
                   (th_ynode_get(v, "terrain") || th_ynode_get(v, "speed")) &&
                   v->count ==
                       (uint32_t)(!!th_ynode_get(v, "terrain") + !!th_ynode_get(v, "speed"))) {
            /* Open ground: a routing cost, a walking speed factor, or both. */
            const th_ynode *sp = th_ynode_get(v, "speed");
            if (sp) {
                bool number = sp->kind == TH_Y_SCALAR && !sp->quoted &&
                              th_scene_is_decimal(sp->text, sp->len, false);
                double f = number ? strtod(sp->text, NULL) : NAN;
                if (!(f > 0.0 && f <= 1.0)) {
                    snprintf(path + strlen(path), sizeof path - strlen(path), ".speed");
                    if (sp->kind == TH_Y_SCALAR)
                        snprintf(buf, sizeof buf, "'%.*s'", sp->len > 20 ? 20 : (int)sp->len,
                                 sp->text);
                    else
                        snprintf(buf, sizeof buf, "a %s",
                                 sp->kind == TH_Y_SEQUENCE ? "list" : "mapping");
                    return FAIL(s, sp, path, err,
                                "expected a walking speed factor in (0, 1], found %s", buf);
                }
                e->speed = (float)f;
            }
            const th_ynode *c = th_ynode_get(v, "terrain");
            long cost = 1;
            if (c) cost = 0;
            if (c && c->kind == TH_Y_SCALAR && !c->quoted && c->len <= 5 &&
                th_scene_is_decimal(c->text, c->len, true)) {
                cost = strtol(c->text, NULL, 10);
            }
            if (cost < 1 || cost > TH_CELL_COST_MAX) {
                snprintf(path + strlen(path), sizeof path - strlen(path), ".terrain");
                if (c->kind == TH_Y_SCALAR)
                    snprintf(buf, sizeof buf, "'%.*s'", c->len > 20 ? 20 : (int)c->len, c->text);
                else
                    snprintf(buf, sizeof buf, "a %s",
                             c->kind == TH_Y_SEQUENCE ? "list" : "mapping");
                return FAIL(s, c, path, err, "expected a whole terrain cost in [1, %d], found %s",
                            TH_CELL_COST_MAX, buf);
            }
            e->cost = (uint16_t)cost;
        } else if (v->kind == TH_Y_MAPPING && v->count == 1 && th_ynode_get(v, "bunker")) {
            snprintf(path + strlen(path), sizeof path - strlen(path), ".bunker");
            e->bunker = legend_bunker(s, th_ynode_get(v, "bunker"), path, err);
            if (e->bunker < 0) return false;
        } else {
            return FAIL(
                s, v, path, err,
                "expected open, wall, destructible, spawn, {terrain: cost, speed: factor} or {bunker: name}");
        }
        s->legend_count++;
    }
    return true;
}

/* Bunkers drawn in the legend must cover a filled rectangle of cells. */
static bool place_legend_bunkers(th_scene *s, th_error *err) {
    for (uint32_t y = 0; y < (uint32_t)s->rows; y++) {
        for (uint32_t x = 0; x < (uint32_t)s->cols; x++) {
            uint8_t l = s->legend[(size_t)y * (size_t)s->cols + x];
            if (l == TH_SCENE_NO_LEGEND || s->legend_entry[l].bunker < 0) continue;
            th_scene_bunker *b = &s->bunker[s->legend_entry[l].bunker];
            b->x0 = (int32_t)x < b->x0 ? (int32_t)x : b->x0;
            b->y0 = (int32_t)y < b->y0 ? (int32_t)y : b->y0;
            b->x1 = (int32_t)x > b->x1 ? (int32_t)x : b->x1;
            b->y1 = (int32_t)y > b->y1 ? (int32_t)y : b->y1;
        }
    }
    for (uint32_t e = 0; e < s->legend_count; e++) {
        const th_legend_entry *le = &s->legend_entry[e];
        if (le->bunker < 0) continue;
        th_scene_bunker *b = &s->bunker[le->bunker];
        char path[64];
        if (le->node->len == 1) snprintf(path, sizeof path, "map.legend['%c']", (int)le->key);
        else snprintf(path, sizeof path, "map.legend['#%06x']", (unsigned)le->key);
        if (b->x1 < 0)
            return FAIL(s, le->node, path, err, "bunker '%s' is not drawn on the map", b->name);
        for (int32_t y = b->y0; y <= b->y1; y++) {
            for (int32_t x = b->x0; x <= b->x1; x++) {
                if (s->legend[(size_t)y * (size_t)s->cols + (size_t)x] != e) {
                    return FAIL(
                        s, le->node, path, err,
                        "bunker '%s' must be a filled rectangle; cell (%d, %d) inside its bounds [%d, %d, %d, %d] is not part of it",
                        b->name, x, y, b->x0, b->y0, b->x1, b->y1);
                }
            }
        }
        b->placed = true;
    }
    return true;
}

/* ---- ASCII ----------------------------------------------------------------------------- */

static bool read_ascii(th_scene *s, const th_ynode *art, th_error *err) {
    char buf[64];
    if (art->kind != TH_Y_SCALAR || art->len == 0) {
        return FAIL(s, art, "map.ascii", err,
                    "expected rows of characters in a block (ascii: |), found %s",
                    art->kind == TH_Y_SCALAR    ? "an empty value"
                    : art->kind == TH_Y_MAPPING ? "a mapping"
                                                : "a list");
    }
    /* Rows: split on newlines; a block scalar ends with one. */
    const char *t = art->text;
    size_t len = art->len;
    if (t[len - 1] == '\n') len--;
    int32_t rows = 1, cols = -1;
    for (size_t i = 0; i < len; i++) rows += t[i] == '\n';
    /* Positions of row starts in the source, for messages: a block scalar's rows begin on the
     * line after its indicator, at the indentation of its first row. */
    bool block = art->quoted && s->doc.source[0] && art->line > 0;
    uint32_t indent = 0;
    if (block) {
        size_t ll;
        const char *line = th_ydoc_line(&s->doc, art->line + 1, &ll);
        while (line && indent < ll && line[indent] == ' ') indent++;
        block = line != NULL;
    }
    /* Entry per byte: a table instead of a scan of the legend for each of up to 16M cells. */
    uint8_t entry_of[256];
    memset(entry_of, TH_SCENE_NO_LEGEND, sizeof entry_of);
    for (uint32_t e = 0; e < s->legend_count; e++)
        entry_of[s->legend_entry[e].key & 0xff] = (uint8_t)e;
    const char *row = t;
    for (int32_t r = 0; r < rows; r++) {
        const char *nl = memchr(row, '\n', (size_t)(t + len - row));
        size_t rl = (size_t)((nl ? nl : t + len) - row);
        th_ynode at = *art;
        if (block) {
            at.line = art->line + 1 + (uint32_t)r;
            at.column = indent + 1;
        }
        if (cols < 0) {
            cols = (int32_t)rl;
            if (cols == 0) return FAIL(s, &at, "map.ascii", err, "the first row is empty");
            if (cols > TH_NAV_MAX_DIM || rows > TH_NAV_MAX_DIM) {
                return FAIL(
                    s, art, "map.ascii", err,
                    "expected at most %d rows of at most %d characters, found %d rows of %d",
                    TH_NAV_MAX_DIM, TH_NAV_MAX_DIM, rows, cols);
            }
            if (!alloc_cells(s, art, "map.ascii", cols, rows, err)) return false;
        } else if ((int32_t)rl != cols) {
            at.column += (uint32_t)(rl < (size_t)cols ? rl : (size_t)cols);
            return FAIL(s, &at, "map.ascii", err,
                        "row %d has %zu characters, expected %d like the first row", r + 1, rl,
                        cols);
        }
        for (size_t k = 0; k < rl; k++) {
            uint32_t e = entry_of[(unsigned char)row[k]];
            if (e == TH_SCENE_NO_LEGEND) {
                th_ynode cell = at;
                cell.column += (uint32_t)k;
                snprintf(buf, sizeof buf, "'%c'", isprint((unsigned char)row[k]) ? row[k] : '?');
                return FAIL(s, &cell, "map.ascii", err,
                            "character %s at row %d, column %zu is not in map.legend", buf, r + 1,
                            k + 1);
            }
            set_cell(s, (int32_t)k, rows - 1 - r, e);
        }
        row = nl ? nl + 1 : t + len;
    }
    return true;
}

/* ---- PNG ------------------------------------------------------------------------------- */

/* A 4096 x 4096 RGBA PNG stored without compression is about 64 MiB; anything larger is not a
 * map this loader could accept. */
#define TH_SCENE_MAX_PNG_BYTES (80u << 20)

typedef struct colour_entry {
    uint32_t rgb;
    uint32_t entry;
} colour_entry;

static int colour_cmp(const void *a, const void *b) {
    uint32_t x = ((const colour_entry *)a)->rgb, y = ((const colour_entry *)b)->rgb;
    return x < y ? -1 : x > y;
}

static bool read_image(th_scene *s, const th_ynode *file, th_error *err) {
    char path[2048];
    unsigned char *bytes;
    size_t len;
    if (!th_scene_read_file(s, file, "map.image", "PNG", TH_SCENE_MAX_PNG_BYTES, &bytes, &len, path,
                            sizeof path, err))
        return false;
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&img, bytes, len)) {
        th_free(bytes);
        return IMAGE_FAIL(s, file, "map.image", err, "cannot read '%s': %s", path, img.message);
    }
    if (img.width < 1 || img.height < 1 || img.width > TH_NAV_MAX_DIM ||
        img.height > TH_NAV_MAX_DIM) {
        png_image_free(&img);
        th_free(bytes);
        return IMAGE_FAIL(s, file, "map.image", err,
                          "expected an image of 1 to %d pixels a side, found %u x %u",
                          TH_NAV_MAX_DIM, img.width, img.height);
    }
    img.format = PNG_FORMAT_RGB;
    size_t size = PNG_IMAGE_SIZE(img);
    unsigned char *px = th_alloc(size);
    if (!px) {
        png_image_free(&img);
        th_free(bytes);
        return TH_SCENE_NOMEM(s, file, "map.image", err, "out of memory for a %u x %u image",
                              img.width, img.height);
    }
    bool ok = png_image_finish_read(&img, NULL, px, 0, NULL) != 0;
    th_free(bytes); /* libpng reads from it until finish_read returns */
    if (!ok) {
        th_free(px);
        return IMAGE_FAIL(s, file, "map.image", err, "cannot read '%s': %s", path, img.message);
    }
    /* Colours sorted for a binary search per pixel, instead of a scan of up to 64 entries. */
    colour_entry colours[TH_SCENE_MAX_LEGEND];
    for (uint32_t e = 0; e < s->legend_count; e++)
        colours[e] = (colour_entry){s->legend_entry[e].key, e};
    qsort(colours, s->legend_count, sizeof colours[0], colour_cmp);
    int32_t cols = (int32_t)img.width, rows = (int32_t)img.height;
    ok = alloc_cells(s, file, "map.image", cols, rows, err);
    /* Maps come in runs of one colour: the previous pixel's entry answers most lookups. */
    const colour_entry *hit = NULL;
    for (int32_t y = 0; ok && y < rows; y++) {
        for (int32_t x = 0; ok && x < cols; x++) {
            const unsigned char *p = px + 3 * ((size_t)y * (size_t)cols + (size_t)x);
            colour_entry want = {(uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2], 0};
            if (!hit || hit->rgb != want.rgb)
                hit = bsearch(&want, colours, s->legend_count, sizeof colours[0], colour_cmp);
            if (!hit) {
                /* The colour itself is not shown: with --allow-outside-paths a message
                 * would otherwise leak bytes of whatever file was named. */
                ok = IMAGE_FAIL(s, file, "map.image", err,
                                "pixel (%d, %d) has a colour that is not in map.legend", x, y);
                break;
            }
            set_cell(s, x, rows - 1 - y, hit->entry); /* image row 0 is the north edge */
        }
    }
    th_free(px);
    return ok;
}

/* ---- generated city -------------------------------------------------------------------- */

/* A small whole number written plainly, or -1 (every caller's range starts at 0 or 1). */
static long whole(const th_ynode *n) {
    if (n->kind != TH_Y_SCALAR || n->quoted || n->len > 9 ||
        !th_scene_is_decimal(n->text, n->len, true)) {
        return -1;
    }
    return strtol(n->text, NULL, 10);
}

/* Blocks of `block` cells separated by streets `street` wide. Each block is, by a draw keyed on
 * its index: a park (open, cost 3) with probability `parks`, else rubble (destructible) with
 * probability `rubble`, else a building (wall). */
static bool generate_city(th_scene *s, const th_ynode *g, th_error *err) {
    static const char *const keys[] = {"size", "block", "street", "seed", "rubble", "parks", NULL};
    if (g->kind != TH_Y_MAPPING || g->count != 1 || !th_ynode_get(g, "city")) {
        return FAIL(s, g, "map.generate", err, "expected {city: {size: [w, h], ...}}, found %s",
                    g->kind == TH_Y_MAPPING    ? "another generator"
                    : g->kind == TH_Y_SEQUENCE ? "a list"
                                               : "a value");
    }
    const th_ynode *c = th_ynode_get(g, "city");
    if (c->kind != TH_Y_MAPPING)
        return FAIL(s, c, "map.generate.city", err,
                    "expected a mapping of size, block, street, seed, rubble, parks");
    for (uint32_t i = 0; i < c->count; i++) {
        const th_ynode *k = th_ynode_key(c, i);
        bool known = false;
        for (const char *const *a = keys; *a; a++)
            known |= strlen(*a) == k->len && memcmp(*a, k->text, k->len) == 0;
        if (!known) {
            return th_scene_fail_code(
                s, k, "map.generate.city", err, TH_ERR_SCENE_KEY,
                "unknown key '%.*s'; expected size, block, street, seed, rubble or parks",
                k->len > 30 ? 30 : (int)k->len, k->text);
        }
    }
    const th_ynode *size = th_ynode_get(c, "size");
    if (!size || size->kind != TH_Y_SEQUENCE || size->count != 2) {
        return FAIL(s, size ? size : c, "map.generate.city.size", err, "expected [columns, rows]");
    }
    long v[2], block = 12, street = 4;
    double rubble = 0.25, parks = 0.1;
    uint64_t seed = s->seed;
    for (int i = 0; i < 2; i++) {
        const th_ynode *n = size->items[i];
        v[i] = whole(n);
        if (v[i] < 1 || v[i] > TH_NAV_MAX_DIM) {
            return FAIL(s, n, "map.generate.city.size", err,
                        "expected whole numbers of cells in [1, %d]", TH_NAV_MAX_DIM);
        }
    }
    const struct {
        const char *key;
        long *out;
        long lo, hi;
    } ints[] = {{"block", &block, 1, 256}, {"street", &street, 1, 64}};
    for (size_t i = 0; i < 2; i++) {
        const th_ynode *n = th_ynode_get(c, ints[i].key);
        if (!n) continue;
        long x = whole(n);
        if (x < ints[i].lo || x > ints[i].hi) {
            char path[64];
            snprintf(path, sizeof path, "map.generate.city.%s", ints[i].key);
            return FAIL(s, n, path, err, "expected a whole number in [%ld, %ld]", ints[i].lo,
                        ints[i].hi);
        }
        *ints[i].out = x;
    }
    const struct {
        const char *key;
        double *out;
    } fracs[] = {{"rubble", &rubble}, {"parks", &parks}};
    for (size_t i = 0; i < 2; i++) {
        const th_ynode *n = th_ynode_get(c, fracs[i].key);
        if (!n) continue;
        bool number =
            n->kind == TH_Y_SCALAR && !n->quoted && th_scene_is_decimal(n->text, n->len, false);
        double x = number ? strtod(n->text, NULL) : -1.0;
        if (!(x >= 0.0 && x <= 1.0)) {
            char path[64];
            snprintf(path, sizeof path, "map.generate.city.%s", fracs[i].key);
            return FAIL(s, n, path, err, "expected a fraction in [0, 1]");
        }
        *fracs[i].out = x;
    }
    const th_ynode *sn = th_ynode_get(c, "seed");
    if (sn && !th_scene_u64(s, sn, "map.generate.city.seed", 0, UINT64_MAX, &seed, err))
        return false;
    if (!alloc_cells(s, size, "map.generate.city.size", (int32_t)v[0], (int32_t)v[1], err))
        return false;
    long pitch = block + street;
    long blocks_x = (v[0] + pitch - 1) / pitch;
    for (int32_t y = 0; y < s->rows; y++) {
        for (int32_t x = 0; x < s->cols; x++) {
            size_t i = (size_t)y * (size_t)s->cols + (size_t)x;
            if (x % pitch < street || y % pitch < street) continue; /* street: open, cost 1 */
            uint64_t b = (uint64_t)(y / pitch) * (uint64_t)blocks_x + (uint64_t)(x / pitch);
            float r = th_rng_f01(seed, b, 0);
            if (r < parks) s->cost[i] = 3;
            else if (r < parks + (1.0 - parks) * rubble) s->kind[i] = TH_CELL_DESTRUCTIBLE;
            else s->kind[i] = TH_CELL_WALL;
        }
    }
    return true;
}

bool th_scene_read_map(th_scene *s, const th_ynode *map, th_error *err) {
    static const char *const keys[] = {"cell_size", "ascii",  "image", "generate",
                                       "legend",    "bounds", NULL};
    char buf[64];
    if (map->kind != TH_Y_MAPPING)
        return FAIL(s, map, "map", err,
                    "expected a mapping with cell_size and ascii, image or generate");
    for (uint32_t i = 0; i < map->count; i++) {
        const th_ynode *k = th_ynode_key(map, i);
        bool known = false;
        for (const char *const *a = keys; *a; a++)
            known |= strlen(*a) == k->len && memcmp(*a, k->text, k->len) == 0;
        if (!known) {
            snprintf(buf, sizeof buf, "'%.*s'", k->len > 30 ? 30 : (int)k->len, k->text);
            return th_scene_fail_code(
                s, k, "map", err, TH_ERR_SCENE_KEY,
                "unknown key %s; expected cell_size, ascii, image, generate, legend or bounds",
                buf);
        }
    }
    /* A map's world is walled unless it wraps around: a periodic corridor between walls. */
    const th_ynode *bounds = th_ynode_get(map, "bounds");
    if (bounds) {
        bool wrap =
            bounds->kind == TH_Y_SCALAR && bounds->len == 4 && memcmp(bounds->text, "wrap", 4) == 0;
        bool walls = bounds->kind == TH_Y_SCALAR && bounds->len == 5 &&
                     memcmp(bounds->text, "walls", 5) == 0;
        if (!wrap && !walls) {
            if (bounds->kind == TH_Y_SCALAR)
                snprintf(buf, sizeof buf, "'%.*s'", bounds->len > 30 ? 30 : (int)bounds->len,
                         bounds->text);
            else
                snprintf(buf, sizeof buf, "a %s",
                         bounds->kind == TH_Y_SEQUENCE ? "list" : "mapping");
            return FAIL(s, bounds, "map.bounds", err, "expected walls or wrap, found %s", buf);
        }
        s->bounds = wrap ? TH_BOUNDS_WRAP : TH_BOUNDS_WALLS;
    }
    const th_ynode *cs = th_ynode_get(map, "cell_size");
    if (!cs)
        return TH_SCENE_MISSING(s, map, "map.cell_size", err,
                                "missing: the side of a cell in metres");
    /* The same number syntax as every other key: strtod alone would also take "nan", "inf"
     * and hex floats. */
    bool number =
        cs->kind == TH_Y_SCALAR && !cs->quoted && th_scene_is_decimal(cs->text, cs->len, false);
    double size = number ? strtod(cs->text, NULL) : NAN;
    if (!(size >= TH_NAV_MIN_CELL_SIZE && size <= TH_NAV_MAX_CELL_SIZE)) {
        if (cs->kind == TH_Y_SCALAR)
            snprintf(buf, sizeof buf, "'%.*s'", cs->len > 30 ? 30 : (int)cs->len, cs->text);
        else snprintf(buf, sizeof buf, "a %s", cs->kind == TH_Y_SEQUENCE ? "list" : "mapping");
        return FAIL(s, cs, "map.cell_size", err, "expected metres in [%g, %g], found %s",
                    (double)TH_NAV_MIN_CELL_SIZE, (double)TH_NAV_MAX_CELL_SIZE, buf);
    }
    s->cell_size = (float)size;
    s->has_map = true;
    const th_ynode *ascii = th_ynode_get(map, "ascii"), *image = th_ynode_get(map, "image"),
                   *gen = th_ynode_get(map, "generate"), *legend = th_ynode_get(map, "legend");
    int sources = !!ascii + !!image + !!gen;
    if (sources != 1) {
        return FAIL(s, map, "map", err,
                    "expected exactly one of ascii, image or generate, found %d", sources);
    }
    if (gen) {
        if (legend) return FAIL(s, legend, "map.legend", err, "a generated map has no legend");
        return generate_city(s, gen, err);
    }
    if (!legend)
        return TH_SCENE_MISSING(s, map, "map.legend", err, "missing: what each %s stands for",
                                ascii ? "character" : "colour");
    if (!read_legend(s, legend, image != NULL, err)) return false;
    if (!(ascii ? read_ascii(s, ascii, err) : read_image(s, image, err))) return false;
    return place_legend_bunkers(s, err);
}
