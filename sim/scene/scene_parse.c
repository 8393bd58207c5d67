/* Scene files: the YAML tree checked key by key and turned into a th_scene.
 *
 * Every value is checked for its type and range where it is read, and reported at its own
 * line and column with its key path ("crowds[2].count"). Unknown keys are errors, with the
 * nearest known key suggested. Nothing is defaulted silently: defaults are the documented
 * ones (docs/scene-format.md), and a key that is present must be valid. */
#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/alloc.h"
#include "sim/core/crowd_params.h"
#include "sim/core/distrib.h"
#include "sim/core/error.h"
#include "sim/scene/scene_internal.h"

/* ---- reporting ------------------------------------------------------------------------- */

static bool scene_fail(const th_scene *s, const th_ynode *at, const char *path, th_error *err,
                       th_error_code code, const char *fmt, va_list ap) {
    if (!err) return false;
    char what[400], whole[1024];
    vsnprintf(what, sizeof what, fmt, ap);
    /* A problem with no node of its own (the file as a whole) is placed at its start. */
    const uint32_t line = at ? at->line : 1, column = at ? at->column : 1;
    snprintf(whole, sizeof whole, "%s:%u:%u: %s: %s", s->doc.path, line, column, path, what);
    err->code = code;
    err->line = line;
    err->column = column;
    /* Keys and values quoted from the file may hold escapes, C1 controls or bidi overrides; a
     * message must not be able to drive (or reorder) the terminal it is printed on. */
    th_text_escape(err->message, sizeof err->message, whole, strlen(whole));
    return false;
}

bool th_scene_fail(const th_scene *s, const th_ynode *at, const char *path, th_error *err,
                   const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    scene_fail(s, at, path, err, TH_ERR_SCENE_VALUE, fmt, ap);
    va_end(ap);
    return false;
}

bool th_scene_fail_code(const th_scene *s, const th_ynode *at, const char *path, th_error *err,
                        th_error_code code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    scene_fail(s, at, path, err, code, fmt, ap);
    va_end(ap);
    return false;
}

/* How a node reads in a message: 'text' for a scalar (shortened), else its kind. */
static const char *found(const th_ynode *n, char *buf, size_t cap) {
    if (n->kind == TH_Y_MAPPING) return "a mapping";
    if (n->kind == TH_Y_SEQUENCE) return "a list";
    if (n->len == 0) return "an empty value";
    /* Shortened at a character boundary, so the message stays valid UTF-8. */
    int shown = n->len > 40 ? 40 : (int)n->len;
    while (shown < (int)n->len && shown > 0 && ((unsigned char)n->text[shown] & 0xc0) == 0x80)
        shown--;
    buf[0] = '\'';
    th_text_escape(buf + 1, cap - 5, n->text, (size_t)shown);
    strcat(buf, shown < (int)n->len ? "...'" : "'");
    return buf;
}

#define FAIL(s, n, path, err, ...) th_scene_fail((s), (n), (path), (err), __VA_ARGS__)

static bool expect(const th_scene *s, const th_ynode *n, th_ynode_kind kind, const char *path,
                   th_error *err) {
    if (n->kind == kind) return true;
    char buf[64];
    const char *want = kind == TH_Y_MAPPING    ? "a mapping"
                       : kind == TH_Y_SEQUENCE ? "a list"
                                               : "a value";
    return FAIL(s, n, path, err, "expected %s, found %s", want, found(n, buf, sizeof buf));
}

/* ---- unknown keys ---------------------------------------------------------------------- */

static size_t edit_distance(const char *a, size_t la, const char *b) {
    size_t lb = strlen(b);
    if (la > 40 || lb > 40) return 99;
    size_t row[41];
    for (size_t j = 0; j <= lb; j++) row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t sub = diag + (a[i - 1] != b[j - 1]);
            size_t best = up + 1 < row[j - 1] + 1 ? up + 1 : row[j - 1] + 1;
            row[j] = sub < best ? sub : best;
            diag = up;
        }
    }
    return row[lb];
}

/* Every key of `map` must be in `allowed` (NULL-terminated). */
static bool known_keys(const th_scene *s, const th_ynode *map, const char *path,
                       const char *const *allowed, th_error *err) {
    if (s->key_hook) s->key_hook(s->key_user, path, allowed);
    for (uint32_t i = 0; i < map->count; i++) {
        const th_ynode *k = th_ynode_key(map, i);
        bool ok = false;
        const char *near = NULL;
        size_t best = 3; /* suggest only near misses */
        for (const char *const *a = allowed; *a; a++) {
            if (strlen(*a) == k->len && memcmp(*a, k->text, k->len) == 0) {
                ok = true;
                break;
            }
            size_t d = edit_distance(k->text, k->len, *a);
            if (d < best) {
                best = d;
                near = *a;
            }
        }
        if (ok) continue;
        char full[160], buf[64];
        snprintf(full, sizeof full, "%s%s%.*s", path, path[0] ? "." : "",
                 k->len > 60 ? 60 : (int)k->len, k->text);
        if (near)
            return th_scene_fail_code(s, k, full, err, TH_ERR_SCENE_KEY,
                                      "unknown key %s (did you mean '%s'?)",
                                      found(k, buf, sizeof buf), near);
        char list[300] = "";
        for (const char *const *a = allowed; *a; a++) {
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                     a == allowed ? "" : ", ", *a);
        }
        return th_scene_fail_code(s, k, full, err, TH_ERR_SCENE_KEY,
                                  "unknown key %s; expected one of: %s", found(k, buf, sizeof buf),
                                  list);
    }
    return true;
}

/* ---- scalars --------------------------------------------------------------------------- */

/* A decimal number: [+-]digits[.digits][e[+-]digits]. strtod alone would also take "nan",
 * "inf", hex floats and leading blanks, none of which belong in a scene. */
bool th_scene_is_decimal(const char *t, size_t len, bool integer) {
    size_t i = 0, digits = 0;
    if (i < len && (t[i] == '+' || t[i] == '-')) i++;
    while (i < len && isdigit((unsigned char)t[i])) i++, digits++;
    if (!integer && i < len && t[i] == '.') {
        i++;
        while (i < len && isdigit((unsigned char)t[i])) i++, digits++;
    }
    if (digits == 0) return false;
    if (!integer && i < len && (t[i] == 'e' || t[i] == 'E')) {
        i++;
        if (i < len && (t[i] == '+' || t[i] == '-')) i++;
        size_t exp = 0;
        while (i < len && isdigit((unsigned char)t[i])) i++, exp++;
        if (exp == 0) return false;
    }
    return i == len;
}

static bool scalar_float(const th_scene *s, const th_ynode *n, const char *path, double lo,
                         double hi, double *out, th_error *err) {
    char buf[64];
    if (n->kind != TH_Y_SCALAR || n->quoted || !th_scene_is_decimal(n->text, n->len, false)) {
        return FAIL(s, n, path, err, "expected a number in [%g, %g], found %s", lo, hi,
                    found(n, buf, sizeof buf));
    }
    double v = strtod(n->text, NULL);
    if (!isfinite(v) || v < lo || v > hi) {
        return FAIL(s, n, path, err, "expected a number in [%g, %g], found %s", lo, hi,
                    found(n, buf, sizeof buf));
    }
    *out = v;
    return true;
}

bool th_scene_u64(const th_scene *s, const th_ynode *n, const char *path, uint64_t lo, uint64_t hi,
                  uint64_t *out, th_error *err) {
    char buf[64];
    bool ok = n->kind == TH_Y_SCALAR && !n->quoted && th_scene_is_decimal(n->text, n->len, true) &&
              n->text[0] != '-';
    if (ok) {
        const char *t = n->text + (n->text[0] == '+');
        /* strtoull would wrap a 21-digit number silently; count digits first. */
        size_t digits = n->len - (size_t)(t - n->text);
        ok = digits <= 20;
        if (ok) {
            unsigned long long v = strtoull(t, NULL, 10);
            ok = !(digits == 20 && strcmp(t, "18446744073709551615") > 0) && v >= lo && v <= hi;
            *out = v;
        }
    }
    if (!ok) {
        return FAIL(s, n, path, err, "expected a whole number in [%llu, %llu], found %s",
                    (unsigned long long)lo, (unsigned long long)hi, found(n, buf, sizeof buf));
    }
    return true;
}

static bool scalar_name(const th_scene *s, const th_ynode *n, const char *path, char *out,
                        size_t cap, th_error *err) {
    char buf[64];
    if (n->kind != TH_Y_SCALAR || n->len == 0 || n->len >= cap || memchr(n->text, '\0', n->len)) {
        return FAIL(s, n, path, err, "expected a name of 1 to %zu characters, found %s", cap - 1,
                    found(n, buf, sizeof buf));
    }
    if (!th_text_safe(n->text, n->len)) {
        return FAIL(s, n, path, err,
                    "expected a name without control or bidirectional characters, found %s",
                    found(n, buf, sizeof buf));
    }
    memcpy(out, n->text, n->len + 1);
    return true;
}

/* One of `words` (NULL-terminated); returns its index through *out. */
static bool scalar_word(const th_scene *s, const th_ynode *n, const char *path,
                        const char *const *words, int *out, th_error *err) {
    if (n->kind == TH_Y_SCALAR) {
        for (int i = 0; words[i]; i++) {
            if (strlen(words[i]) == n->len && memcmp(words[i], n->text, n->len) == 0) {
                *out = i;
                return true;
            }
        }
    }
    char list[200] = "", buf[64];
    for (int i = 0; words[i]; i++) {
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", words[i]);
    }
    return FAIL(s, n, path, err, "expected one of %s, found %s", list, found(n, buf, sizeof buf));
}

/* "#rrggbb" -> 0xRRGGBB. */
static bool scalar_color(const th_scene *s, const th_ynode *n, const char *path, uint32_t *out,
                         th_error *err) {
    char buf[64];
    bool ok = n->kind == TH_Y_SCALAR && n->len == 7 && n->text[0] == '#';
    for (size_t i = 1; ok && i < 7; i++) ok = isxdigit((unsigned char)n->text[i]) != 0;
    if (!ok) {
        return FAIL(s, n, path, err, "expected a colour written #rrggbb, found %s",
                    found(n, buf, sizeof buf));
    }
    *out = (uint32_t)strtoul(n->text + 1, NULL, 16);
    return true;
}

/* A list of exactly `count` numbers (or `alt` numbers when alt > 0). Returns how many. */
static int number_list(const th_scene *s, const th_ynode *n, const char *path, int count, int alt,
                       double lo, double hi, double *out, th_error *err) {
    char buf[64];
    if (n->kind != TH_Y_SEQUENCE ||
        !((int)n->count == count || (alt > 0 && (int)n->count == alt))) {
        if (alt > 0) {
            FAIL(s, n, path, err, "expected a list of %d or %d numbers, found %s", alt, count,
                 n->kind == TH_Y_SEQUENCE ? "a list of another length" : found(n, buf, sizeof buf));
        } else {
            FAIL(s, n, path, err, "expected a list of %d numbers, found %s", count,
                 n->kind == TH_Y_SEQUENCE ? "a list of another length" : found(n, buf, sizeof buf));
        }
        return -1;
    }
    for (uint32_t i = 0; i < n->count; i++) {
        char sub[160];
        snprintf(sub, sizeof sub, "%s[%u]", path, i);
        if (!scalar_float(s, n->items[i], sub, lo, hi, &out[i], err)) return -1;
    }
    return (int)n->count;
}

/* ---- sections -------------------------------------------------------------------------- */

typedef struct ctx {
    th_scene *s;
    th_error *err;
} ctx;

static bool parse_world(ctx *c, const th_ynode *n) {
    static const char *const keys[] = {"size", "bounds", NULL};
    if (!expect(c->s, n, TH_Y_MAPPING, "world", c->err) ||
        !known_keys(c->s, n, "world", keys, c->err))
        return false;
    const th_ynode *size = th_ynode_get(n, "size");
    if (!size)
        return TH_SCENE_MISSING(c->s, n, "world.size", c->err,
                                "missing: expected [width, height] in metres");
    double wh[2];
    if (number_list(c->s, size, "world.size", 2, 0, 0.001, TH_MAX_WORLD_DIM, wh, c->err) < 0)
        return false;
    c->s->width = (float)wh[0];
    c->s->height = (float)wh[1];
    const th_ynode *b = th_ynode_get(n, "bounds");
    if (b) {
        static const char *const words[] = {"walls", "wrap", NULL};
        int v;
        if (!scalar_word(c->s, b, "world.bounds", words, &v, c->err)) return false;
        c->s->bounds = v == 1 ? TH_BOUNDS_WRAP : TH_BOUNDS_WALLS;
    }
    return true;
}

/* A bunker's cells: [x, y] or [x0, y0, x1, y1], inside the map. */
static bool cell_rect(ctx *c, const th_ynode *n, const char *path, int32_t r[4]) {
    double v[4];
    int got = number_list(c->s, n, path, 4, 2, -1e9, 1e9, v, c->err);
    if (got < 0) return false;
    for (int i = 0; i < got; i++) {
        if (v[i] != floor(v[i])) {
            return FAIL(c->s, n->items[i], path, c->err, "expected whole cell numbers, found %g",
                        v[i]);
        }
    }
    r[0] = (int32_t)v[0];
    r[1] = (int32_t)v[1];
    r[2] = got == 4 ? (int32_t)v[2] : r[0];
    r[3] = got == 4 ? (int32_t)v[3] : r[1];
    if (r[0] > r[2] || r[1] > r[3]) {
        return FAIL(c->s, n, path, c->err, "expected x0 <= x1 and y0 <= y1, found [%d, %d, %d, %d]",
                    r[0], r[1], r[2], r[3]);
    }
    if (c->s->has_map && (r[0] < 0 || r[1] < 0 || r[2] >= c->s->cols || r[3] >= c->s->rows)) {
        return FAIL(c->s, n, path, c->err, "cells [%d, %d, %d, %d] are off the %d x %d map", r[0],
                    r[1], r[2], r[3], c->s->cols, c->s->rows);
    }
    return true;
}

static int find_bunker(const th_scene *s, const char *name, size_t len) {
    for (uint32_t b = 0; b < s->bunker_count; b++) {
        if (strlen(s->bunker[b].name) == len && memcmp(s->bunker[b].name, name, len) == 0)
            return (int)b;
    }
    return -1;
}

static bool parse_bunkers(ctx *c, const th_ynode *n) {
    th_scene *s = c->s;
    if (!expect(s, n, TH_Y_SEQUENCE, "bunkers", c->err)) return false;
    for (uint32_t i = 0; i < n->count; i++) {
        static const char *const keys[] = {"name", "cells", "capacity", "exit", "max_flow", NULL};
        const th_ynode *b = n->items[i];
        char path[64], sub[96];
        snprintf(path, sizeof path, "bunkers[%u]", i);
        if (!expect(s, b, TH_Y_MAPPING, path, c->err) || !known_keys(s, b, path, keys, c->err))
            return false;
        if (!s->has_map)
            return FAIL(s, b, path, c->err, "bunkers need a map (add a `map` section)");
        const th_ynode *name = th_ynode_get(b, "name");
        snprintf(sub, sizeof sub, "%s.name", path);
        if (!name) return TH_SCENE_MISSING(s, b, sub, c->err, "missing: every bunker has a name");
        char nm[64];
        if (!scalar_name(s, name, sub, nm, sizeof nm, c->err)) return false;
        /* A bunker drawn in the legend is already known: this entry adds its capacity. */
        int known = find_bunker(s, nm, strlen(nm));
        th_scene_bunker *bk;
        if (known >= 0 && s->bunker[known].node) {
            return FAIL(s, name, sub, c->err, "bunker '%s' is listed twice (first at line %u)", nm,
                        s->bunker[known].node->line);
        }
        if (known >= 0) {
            bk = &s->bunker[known];
        } else {
            if (s->bunker_count == TH_MAX_BUNKERS) {
                return FAIL(s, b, path, c->err, "more than %d bunkers", TH_MAX_BUNKERS);
            }
            bk = &s->bunker[s->bunker_count++];
            memcpy(bk->name, nm, sizeof nm);
        }
        bk->node = b;
        const th_ynode *cells = th_ynode_get(b, "cells");
        snprintf(sub, sizeof sub, "%s.cells", path);
        if (cells && bk->placed) {
            return FAIL(s, cells, sub, c->err,
                        "bunker '%s' is drawn on the map already; remove `cells`", nm);
        }
        if (!cells && !bk->placed) {
            return TH_SCENE_MISSING(
                s, b, sub, c->err,
                "missing: where is bunker '%s'? give cells [x0, y0, x1, y1] or draw it with a legend entry {bunker: %s}",
                nm, nm);
        }
        if (cells) {
            int32_t r[4];
            if (!cell_rect(c, cells, sub, r)) return false;
            /* Overlaps first: 64 bunkers each covering a whole 4096 x 4096 map would
             * otherwise cost a billion cell reads before the overlap is noticed. */
            for (uint32_t o = 0; o < s->bunker_count; o++) {
                const th_scene_bunker *q = &s->bunker[o];
                if (q == bk || !q->placed) continue;
                if (r[0] <= q->x1 && q->x0 <= r[2] && r[1] <= q->y1 && q->y0 <= r[3]) {
                    return FAIL(s, cells, sub, c->err, "bunker '%s' overlaps bunker '%s'", nm,
                                q->name);
                }
            }
            bk->x0 = r[0];
            bk->y0 = r[1];
            bk->x1 = r[2];
            bk->y1 = r[3];
            bk->placed = true;
            for (int32_t y = r[1]; y <= r[3]; y++) {
                for (int32_t x = r[0]; x <= r[2]; x++) {
                    if (s->kind[(size_t)y * (size_t)s->cols + (size_t)x] != TH_CELL_OPEN) {
                        return FAIL(s, cells, sub, c->err,
                                    "bunker '%s' covers cell (%d, %d), which is a wall", nm, x, y);
                    }
                }
            }
        }
        const th_ynode *cap = th_ynode_get(b, "capacity");
        if (cap) {
            uint64_t v;
            snprintf(sub, sizeof sub, "%s.capacity", path);
            if (!th_scene_u64(s, cap, sub, 0, TH_MAX_AGENTS, &v, c->err)) return false;
            bk->capacity = (uint32_t)v;
        }
        const th_ynode *mf = th_ynode_get(b, "max_flow");
        if (mf) {
            double v;
            snprintf(sub, sizeof sub, "%s.max_flow", path);
            if (!th_scene_float(s, mf, sub, TH_SCENE_MIN_FLOW, TH_SCENE_MAX_FLOW, &v, c->err))
                return false;
            bk->max_flow = (float)v;
        }
        const th_ynode *ex = th_ynode_get(b, "exit");
        if (ex) {
            char buf[64];
            snprintf(sub, sizeof sub, "%s.exit", path);
            const bool t =
                ex->kind == TH_Y_SCALAR && ex->len == 4 && memcmp(ex->text, "true", 4) == 0;
            const bool f =
                ex->kind == TH_Y_SCALAR && ex->len == 5 && memcmp(ex->text, "false", 5) == 0;
            if (!t && !f)
                return FAIL(s, ex, sub, c->err, "expected true or false, found %s",
                            th_scene_found(ex, buf, sizeof buf));
            bk->exit = t;
        }
    }
    /* Overlaps between bunkers: one cell, one bunker. */
    for (uint32_t a = 0; a < s->bunker_count; a++) {
        for (uint32_t b = a + 1; b < s->bunker_count; b++) {
            const th_scene_bunker *p = &s->bunker[a], *q = &s->bunker[b];
            if (p->x0 <= q->x1 && q->x0 <= p->x1 && p->y0 <= q->y1 && q->y0 <= p->y1) {
                char path[64];
                snprintf(path, sizeof path, "bunkers[%u]", b);
                return FAIL(s, q->node, path, c->err, "bunker '%s' overlaps bunker '%s'", q->name,
                            p->name);
            }
        }
    }
    return true;
}

bool th_scene_legend(const th_scene *s, const th_ynode *v, const char *path, uint8_t *entry,
                     th_error *err) {
    char buf[64];
    const char *sub = path;
    if (v->kind != TH_Y_SCALAR || v->len == 0) {
        return FAIL(s, v, sub, err, "expected a legend key, found %s", found(v, buf, sizeof buf));
    }
    uint32_t key = 0;
    bool colour = v->text[0] == '#' && v->len == 7;
    for (size_t i = 1; colour && i < 7; i++) colour = isxdigit((unsigned char)v->text[i]) != 0;
    if (colour) key = (uint32_t)strtoul(v->text + 1, NULL, 16);
    else if (v->len == 1) key = (unsigned char)v->text[0];
    else
        return FAIL(s, v, sub, err, "expected a legend character or #rrggbb colour, found %s",
                    found(v, buf, sizeof buf));
    uint32_t e = 0;
    while (e < s->legend_count && s->legend_entry[e].key != key) e++;
    if (e == s->legend_count) {
        return FAIL(s, v, sub, err, "%s is not in map.legend", found(v, buf, sizeof buf));
    }
    *entry = (uint8_t)e;
    return true;
}

static bool parse_region(ctx *c, th_scene_crowd *cr, const th_ynode *n, const char *path) {
    th_scene *s = c->s;
    static const char *const keys[] = {"rect", "circle", "cells", NULL};
    if (!expect(s, n, TH_Y_MAPPING, path, c->err) || !known_keys(s, n, path, keys, c->err))
        return false;
    if (n->count != 1) {
        return FAIL(s, n, path, c->err,
                    "expected exactly one of rect, circle or cells, found %u keys", n->count);
    }
    if (cr->region_count == TH_SCENE_MAX_REGIONS) {
        return FAIL(s, n, path, c->err, "more than %d spawn regions", TH_SCENE_MAX_REGIONS);
    }
    th_scene_region *r = &cr->region[cr->region_count++];
    r->node = n;
    const th_ynode *v = th_ynode_value(n, 0);
    char sub[160];
    double d[4];
    if (th_ynode_get(n, "rect")) {
        snprintf(sub, sizeof sub, "%s.rect", path);
        if (number_list(s, v, sub, 4, 0, 0.0, TH_MAX_WORLD_DIM, d, c->err) < 0) return false;
        if (!(d[2] > 0 && d[3] > 0) || d[0] + d[2] > s->width || d[1] + d[3] > s->height) {
            return FAIL(
                s, v, sub, c->err,
                "expected [x, y, width, height] with a positive size inside the %g x %g m world, found [%g, %g, %g, %g]",
                (double)s->width, (double)s->height, d[0], d[1], d[2], d[3]);
        }
        *r = (th_scene_region){TH_REGION_RECT, (float)d[0], (float)d[1], (float)d[2],
                               (float)d[3],    0,           0,           n};
    } else if (th_ynode_get(n, "circle")) {
        snprintf(sub, sizeof sub, "%s.circle", path);
        if (number_list(s, v, sub, 3, 0, 0.0, TH_MAX_WORLD_DIM, d, c->err) < 0) return false;
        if (!(d[2] > 0) || d[0] - d[2] < 0 || d[1] - d[2] < 0 || d[0] + d[2] > s->width ||
            d[1] + d[2] > s->height) {
            return FAIL(
                s, v, sub, c->err,
                "expected [x, y, radius] with a positive radius inside the %g x %g m world, found [%g, %g, %g]",
                (double)s->width, (double)s->height, d[0], d[1], d[2]);
        }
        *r = (th_scene_region){TH_REGION_CIRCLE, (float)d[0], (float)d[1], 0, 0, (float)d[2], 0, n};
    } else {
        snprintf(sub, sizeof sub, "%s.cells", path);
        if (!s->has_map) return FAIL(s, v, sub, c->err, "spawning on legend cells needs a map");
        uint8_t e;
        if (!th_scene_legend(s, v, sub, &e, c->err)) return false;
        *r = (th_scene_region){TH_REGION_LEGEND, 0, 0, 0, 0, 0, e, n};
    }
    return true;
}

static bool crowd_float(ctx *c, const th_ynode *cn, const char *path, const char *key, double lo,
                        double hi, float *out) {
    const th_ynode *v = th_ynode_get(cn, key);
    if (!v) return true;
    char sub[128];
    snprintf(sub, sizeof sub, "%s.%s", path, key);
    double d;
    if (!scalar_float(c->s, v, sub, lo, hi, &d, c->err)) return false;
    *out = (float)d;
    return true;
}

/* A crowd key of the parameter table: a number within its row's bounds, checked as the float
 * the world will hold (the API checks the same float with the same row). */
static bool crowd_param(const th_scene *s, const th_crowd_param *p, const th_ynode *n,
                        const char *path, float *out, th_error *err) {
    char buf[64], range[64];
    th_crowd_param_range(p, range, sizeof range);
    bool ok = n->kind == TH_Y_SCALAR && !n->quoted && th_scene_is_decimal(n->text, n->len, false);
    const double dv = ok ? strtod(n->text, NULL) : 0.0;
    /* Beyond the float range the conversion itself would be undefined. */
    ok = ok && isfinite(dv) && fabs(dv) <= FLT_MAX && th_crowd_param_ok(p, (float)dv);
    if (!ok) {
        return FAIL(s, n, path, err, "expected a number in %s%s%s, found %s", range,
                    p->unit[0] ? " " : "", p->unit, found(n, buf, sizeof buf));
    }
    *out = (float)dv;
    return true;
}

/* A per-agent distribution: a crowd's pre-movement times (seconds) or free speeds (m/s), as a
 * number (every agent the same) or a mapping of one distribution and optional bounds:
 *     pre_movement: 30
 *     pre_movement: {uniform: [10, 60]}
 *     pre_movement: {normal: [60, 15], min: 20, max: 120}     # mean, standard deviation
 *     pre_movement: {lognormal: [3.5, 0.5]}                   # mean and sd of ln t
 *     pre_movement: {gamma: [2, 30]}  {weibull: [1.5, 60]}    # shape, scale
 *     free_speed: {uniform: [0.93, 1.55]} */
static bool parse_distribution(const th_scene *s, const th_ynode *v, const char *path,
                               th_distribution *out, th_error *err) {
    static const char *const kinds[] = {"constant", "uniform", "normal", "lognormal",
                                        "gamma",    "weibull", "age",    NULL};
    static const th_distrib_kind kind_of[] = {
        TH_DISTRIB_CONSTANT, TH_DISTRIB_UNIFORM, TH_DISTRIB_NORMAL, TH_DISTRIB_LOGNORMAL,
        TH_DISTRIB_GAMMA,    TH_DISTRIB_WEIBULL, TH_DISTRIB_AGE};
    static const char *const keys[] = {"constant", "uniform", "normal", "lognormal", "gamma",
                                       "weibull",  "age",     "min",    "max",       NULL};
    char sub[192];
    th_distribution d = {0};
    if (v->kind == TH_Y_SCALAR) {
        double t;
        if (!th_scene_float(s, v, path, 0.0, 1e7, &t, err)) return false;
        d = (th_distribution){.kind = TH_DISTRIB_CONSTANT, .a = (float)t};
    } else {
        if (!expect(s, v, TH_Y_MAPPING, path, err) || !known_keys(s, v, path, keys, err))
            return false;
        const th_ynode *kind = NULL;
        int which = -1;
        for (int i = 0; kinds[i]; i++) {
            const th_ynode *k = th_ynode_get(v, kinds[i]);
            if (!k) continue;
            if (kind) {
                snprintf(sub, sizeof sub, "%s.%s", path, kinds[i]);
                return FAIL(s, k, sub, err, "expected one distribution, found `%s` and `%s`",
                            kinds[which], kinds[i]);
            }
            kind = k;
            which = i;
        }
        if (!kind)
            return TH_SCENE_MISSING(s, v, path, err,
                                    "missing: a distribution (constant, uniform, normal, "
                                    "lognormal, gamma, weibull or, for free speeds, age)");
        snprintf(sub, sizeof sub, "%s.%s", path, kinds[which]);
        d.kind = kind_of[which];
        if (d.kind == TH_DISTRIB_CONSTANT) {
            double t;
            if (!th_scene_float(s, kind, sub, 0.0, 1e7, &t, err)) return false;
            d.a = (float)t;
        } else {
            double ab[2];
            if (th_scene_numbers(s, kind, sub, 2, -1e7, 1e7, ab, err) < 0) return false;
            d.a = (float)ab[0];
            d.b = (float)ab[1];
        }
        const th_ynode *b;
        double t;
        if ((b = th_ynode_get(v, "min"))) {
            snprintf(sub, sizeof sub, "%s.min", path);
            if (!th_scene_float(s, b, sub, 0.0, 1e7, &t, err)) return false;
            d.min = (float)t;
        }
        if ((b = th_ynode_get(v, "max"))) {
            snprintf(sub, sizeof sub, "%s.max", path);
            if (!th_scene_float(s, b, sub, 0.0, 1e7, &t, err)) return false;
            if (!(t > 0.0))
                return FAIL(s, b, sub, err,
                            "expected a bound above 0, found 0 (without `max` there is no upper "
                            "bound)");
            d.max = (float)t;
        }
    }
    th_error rule;
    if (!th_distrib_check(&d, NULL, &rule)) return FAIL(s, v, path, err, "%s", rule.message);
    *out = d;
    return true;
}

/* `exit_choice: {weights: {BUNKER: w, ...}, social: s, social_radius: m}` (docs/goals.md). */
static bool parse_exit_choice(ctx *c, const th_ynode *n, const char *path, th_crowd_def *d) {
    th_scene *s = c->s;
    static const char *const keys[] = {"weights", "social", "social_radius", NULL};
    if (!expect(s, n, TH_Y_MAPPING, path, c->err) || !known_keys(s, n, path, keys, c->err))
        return false;
    char sub[160], buf[64];
    if (d->behavior != TH_BEHAVIOR_FLEE && d->goal.kind != TH_GOAL_SHELTER)
        return FAIL(s, n, path, c->err,
                    "only a fleeing crowd chooses among exits (set behavior: flee)");
    const th_ynode *wts = th_ynode_get(n, "weights"), *v;
    snprintf(sub, sizeof sub, "%s.weights", path);
    if (!wts)
        return TH_SCENE_MISSING(s, n, sub, c->err,
                                "missing: expected the exits and their weights, "
                                "{BUNKER: weight, ...}");
    if (!expect(s, wts, TH_Y_MAPPING, sub, c->err)) return false;
    if (wts->count == 0) return FAIL(s, wts, sub, c->err, "expected at least one exit, found none");
    th_bunker_id *ids = th_arena_alloc(&s->doc.arena, wts->count * sizeof *ids);
    float *weights = th_arena_alloc(&s->doc.arena, wts->count * sizeof *weights);
    if (!ids || !weights) return TH_SCENE_NOMEM(s, wts, sub, c->err, "out of memory");
    double sum = 0.0;
    for (uint32_t i = 0; i < wts->count; i++) {
        const th_ynode *key = wts->items[i], *val = wts->items[wts->count + i];
        const int b = find_bunker(s, key->text, key->len);
        if (b < 0)
            return FAIL(s, key, sub, c->err, "expected the name of a bunker, found %s",
                        found(key, buf, sizeof buf));
        char wsub[224];
        snprintf(wsub, sizeof wsub, "%s.%s", sub, s->bunker[b].name);
        double wt;
        if (!scalar_float(s, val, wsub, 0.0, 1e6, &wt, c->err)) return false;
        ids[i] = (th_bunker_id){(uint32_t)b + 1u};
        weights[i] = (float)wt;
        sum += wt;
    }
    if (!(sum > 0.0)) return FAIL(s, wts, sub, c->err, "expected a weight above 0, found all 0");
    d->exit_choice.bunkers = ids;
    d->exit_choice.weights = weights;
    d->exit_choice.count = wts->count;
    double x;
    if ((v = th_ynode_get(n, "social"))) {
        snprintf(sub, sizeof sub, "%s.social", path);
        if (!scalar_float(s, v, sub, 0.0, 100.0, &x, c->err)) return false;
        d->exit_choice.social = (float)x;
    }
    if ((v = th_ynode_get(n, "social_radius"))) {
        snprintf(sub, sizeof sub, "%s.social_radius", path);
        if (!scalar_float(s, v, sub, 0.01, 50.0, &x, c->err)) return false;
        d->exit_choice.social_radius = (float)x;
    }
    return true;
}

static bool parse_crowd(ctx *c, th_scene_crowd *cr, const th_ynode *n, uint32_t index) {
    th_scene *s = c->s;
    /* The crowd's keys: its own, then every numeric one of the parameter table. */
#define TH_PARAM_KEY(key, field, lo, lo_open, hi, hi_open, boids, ped, note, unit, model, doc) key,
    static const char *const keys[] = {
        "name",       "count",       "behavior",
        "spawn",      "agents",      "initial_speed",
        "color",      "type",        "target",
        "pursuit",    "flee_types",  "model",
        "heading",    "goal",        "pre_movement",
        "free_speed", "exit_choice", TH_CROWD_PARAMS(TH_PARAM_KEY) NULL};
#undef TH_PARAM_KEY
    char path[64], sub[128];
    snprintf(path, sizeof path, "crowds[%u]", index);
    if (!expect(s, n, TH_Y_MAPPING, path, c->err) || !known_keys(s, n, path, keys, c->err))
        return false;
    cr->node = n;
    cr->def = th_default_crowd_def();
    /* The model first: it decides the defaults of every other key. */
    const th_ynode *v = th_ynode_get(n, "model");
    if (v) {
        static const char *const words[] = {"boids", "pedestrian", NULL};
        int m;
        snprintf(sub, sizeof sub, "%s.model", path);
        if (!scalar_word(s, v, sub, words, &m, c->err)) return false;
        if (m == 1) cr->def = th_default_pedestrian_def();
    }
    v = th_ynode_get(n, "name");
    snprintf(sub, sizeof sub, "%s.name", path);
    if (!v) return TH_SCENE_MISSING(s, n, sub, c->err, "missing: every crowd has a name");
    if (!scalar_name(s, v, sub, cr->name, sizeof cr->name, c->err)) return false;
    for (uint32_t k = 0; k < index; k++) {
        if (strcmp(s->crowd[k].name, cr->name) == 0) {
            return FAIL(s, v, sub, c->err, "crowd name '%s' is used twice", cr->name);
        }
    }
    cr->def.name = cr->name;
    if ((v = th_ynode_get(n, "behavior"))) {
        static const char *const words[] = {"flock", "flee", NULL};
        int b;
        snprintf(sub, sizeof sub, "%s.behavior", path);
        if (!scalar_word(s, v, sub, words, &b, c->err)) return false;
        cr->def.behavior = b == 1 ? TH_BEHAVIOR_FLEE : TH_BEHAVIOR_FLOCK;
        if (cr->def.behavior == TH_BEHAVIOR_FLEE && !s->has_map) {
            return FAIL(s, v, sub, c->err, "a fleeing crowd needs a map with bunkers");
        }
    }
    if ((v = th_ynode_get(n, "goal"))) {
        snprintf(sub, sizeof sub, "%s.goal", path);
        if (!th_scene_parse_goal(s, cr, v, sub, c->err)) return false;
    }
    th_crowd_def *d = &cr->def;
    if (!crowd_float(c, n, path, "initial_speed", 0, 1000, &cr->initial_speed)) return false;
    /* The numeric keys, each read and bounded by its row of the table th_world_add_crowd
     * checks with (crowd_params.h). Pedestrian-model rows are refused on a boids crowd. */
    for (uint32_t i = 0; i < th_crowd_param_count; i++) {
        const th_crowd_param *p = &th_crowd_params[i];
        if (!(v = th_ynode_get(n, p->key))) continue;
        snprintf(sub, sizeof sub, "%s.%s", path, p->key);
        if (p->model == TH_PARAM_PED && d->model != TH_MODEL_PEDESTRIAN) {
            return FAIL(s, v, sub, c->err,
                        "'%s' is a pedestrian-model key; add `model: pedestrian`"
                        " to this crowd",
                        p->key);
        }
        if (!crowd_param(s, p, v, sub, th_crowd_param_field(p, d), c->err)) return false;
    }
    /* The rules between keys th_world_add_crowd checks (crowd_params.c), pointed at the key
     * that breaks them: the one named, else the one it is measured against. */
    const char *broken = NULL;
    th_error rule;
    if (!th_crowd_params_rules(d, &broken, &rule)) {
        v = th_ynode_get(n, broken);
        const char *other = strcmp(broken, "desired_speed") == 0 ? "max_speed" : NULL;
        if (!v && other && (v = th_ynode_get(n, other))) broken = other;
        snprintf(sub, sizeof sub, "%s.%s", path, broken);
        return FAIL(s, v ? v : n, sub, c->err, "%s", rule.message);
    }
    if (d->model != TH_MODEL_PEDESTRIAN && (v = th_ynode_get(n, "heading"))) {
        snprintf(sub, sizeof sub, "%s.heading", path);
        return FAIL(s, v, sub, c->err,
                    "'heading' is a pedestrian-model key; add `model: pedestrian`"
                    " to this crowd");
    }
    if ((v = th_ynode_get(n, "heading"))) {
        double xy[2];
        snprintf(sub, sizeof sub, "%s.heading", path);
        if (number_list(s, v, sub, 2, 0, -1e6, 1e6, xy, c->err) < 0) return false;
        if (xy[0] == 0.0 && xy[1] == 0.0)
            return FAIL(s, v, sub, c->err, "expected a direction [x, y], found [0, 0]");
        d->heading = th_v2((float)xy[0], (float)xy[1]);
    }
    if ((v = th_ynode_get(n, "type"))) {
        uint64_t t;
        snprintf(sub, sizeof sub, "%s.type", path);
        if (!th_scene_u64(s, v, sub, 0, TH_MAX_TYPES - 1, &t, c->err)) return false;
        d->type = (uint32_t)t;
    }
    if ((v = th_ynode_get(n, "target"))) {
        char buf[64];
        snprintf(sub, sizeof sub, "%s.target", path);
        int32_t target = -1;
        for (uint32_t t = 0; v->kind == TH_Y_SCALAR && t < s->target_count; t++) {
            if (strlen(s->target[t].name) == v->len &&
                memcmp(s->target[t].name, v->text, v->len) == 0)
                target = (int32_t)t;
        }
        if (target < 0)
            return FAIL(s, v, sub, c->err, "expected the name of a target, found %s",
                        found(v, buf, sizeof buf));
        /* Scene targets are added to the world in order: the t-th is (th_target_id){t + 1}. */
        d->target = (th_target_id){(uint32_t)target + 1};
        if (s->target[target].def.kind == TH_TARGET_SHELTER && s->bunker_count == 0) {
            return FAIL(s, v, sub, c->err,
                        "target '%s' is the nearest shelter, but the scene has no bunkers",
                        s->target[target].name);
        }
    }
    if ((v = th_ynode_get(n, "pursuit"))) {
        static const char *const words[] = {"chase", "intercept", NULL};
        int how;
        snprintf(sub, sizeof sub, "%s.pursuit", path);
        if (!scalar_word(s, v, sub, words, &how, c->err)) return false;
        d->pursuit = how ? TH_PURSUIT_INTERCEPT : TH_PURSUIT_CHASE;
    }
    if ((v = th_ynode_get(n, "flee_types"))) {
        snprintf(sub, sizeof sub, "%s.flee_types", path);
        if (!expect(s, v, TH_Y_SEQUENCE, sub, c->err)) return false;
        for (uint32_t i = 0; i < v->count; i++) {
            uint64_t t;
            char item[160];
            snprintf(item, sizeof item, "%s[%u]", sub, i);
            if (!th_scene_u64(s, v->items[i], item, 0, TH_MAX_TYPES - 1, &t, c->err)) return false;
            d->flee_types |= 1u << t;
        }
    }
    if ((v = th_ynode_get(n, "pre_movement"))) {
        snprintf(sub, sizeof sub, "%s.pre_movement", path);
        if (!parse_distribution(s, v, sub, &d->pre_movement, c->err)) return false;
        if (d->pre_movement.kind == TH_DISTRIB_AGE)
            return FAIL(s, th_ynode_get(v, "age"), sub, c->err,
                        "the age table gives walking speeds (free_speed), not times");
    }
    if ((v = th_ynode_get(n, "free_speed"))) {
        snprintf(sub, sizeof sub, "%s.free_speed", path);
        if (d->model != TH_MODEL_PEDESTRIAN)
            return FAIL(s, v, sub, c->err,
                        "free speeds are the pedestrian model's (set model: pedestrian)");
        if (!parse_distribution(s, v, sub, &d->free_speed, c->err)) return false;
        const th_distribution f = th_crowd_free_speed(d);
        th_error rule;
        if (!th_distrib_check(&f, NULL, &rule))
            return FAIL(s, v, sub, c->err, "%s (max_speed %g m/s caps it)", rule.message,
                        (double)d->max_speed);
    }
    if ((v = th_ynode_get(n, "exit_choice"))) {
        snprintf(sub, sizeof sub, "%s.exit_choice", path);
        if (!parse_exit_choice(c, v, sub, d)) return false;
    }
    if (s->bounds == TH_BOUNDS_WRAP) {
        th_error rule;
        const th_crowd_reach r = th_crowd_params_reach(d, d->target.index1 != 0, s->timestep);
        if (!th_crowd_params_wrap_ok(r.largest, s->width, s->height, &rule))
            return FAIL(s, n, path, c->err, "%s", rule.message);
    }
    if ((v = th_ynode_get(n, "color"))) {
        snprintf(sub, sizeof sub, "%s.color", path);
        if (!scalar_color(s, v, sub, &d->color, c->err)) return false;
    }
    if ((v = th_ynode_get(n, "count"))) {
        uint64_t cnt;
        snprintf(sub, sizeof sub, "%s.count", path);
        if (!th_scene_u64(s, v, sub, 0, TH_MAX_AGENTS, &cnt, c->err)) return false;
        cr->count = (uint32_t)cnt;
    }
    if ((v = th_ynode_get(n, "agents"))) {
        snprintf(sub, sizeof sub, "%s.agents", path);
        if (!expect(s, v, TH_Y_SEQUENCE, sub, c->err)) return false;
        if (v->count > TH_MAX_AGENTS)
            return FAIL(s, v, sub, c->err, "more than %u agents", TH_MAX_AGENTS);
        float *a = th_arena_alloc(&s->doc.arena, (size_t)v->count * 4 * sizeof *a);
        if (v->count && !a) return TH_SCENE_NOMEM(s, v, sub, c->err, "out of memory");
        for (uint32_t i = 0; i < v->count; i++) {
            char item[160];
            double xy[4] = {0, 0, 0, 0};
            snprintf(item, sizeof item, "%s[%u]", sub, i);
            int got = number_list(s, v->items[i], item, 4, 2, -TH_MAX_WORLD_DIM, TH_MAX_WORLD_DIM,
                                  xy, c->err);
            if (got < 0) return false;
            /* Checked as the floats the world will hold: 99.99999999 is inside a 100 m world
             * as a double but rounds to 100, its edge, as a float. */
            float fx = (float)xy[0], fy = (float)xy[1];
            if (!(fx >= 0 && fx < s->width && fy >= 0 && fy < s->height)) {
                return FAIL(s, v->items[i], item, c->err,
                            "position (%g, %g) is off the %g x %g m world", xy[0], xy[1],
                            (double)s->width, (double)s->height);
            }
            if (s->has_map && !th_scene_open_at(s, fx, fy, false)) {
                return FAIL(s, v->items[i], item, c->err, "position (%g, %g) is inside a wall",
                            xy[0], xy[1]);
            }
            for (int k = 0; k < 4; k++) a[4 * i + (uint32_t)k] = (float)xy[k];
        }
        cr->agents = a;
        cr->agent_count = v->count;
    }
    const th_ynode *spawn = th_ynode_get(n, "spawn");
    snprintf(sub, sizeof sub, "%s.spawn", path);
    if (cr->count > 0 && !spawn) {
        return TH_SCENE_MISSING(s, n, sub, c->err,
                                "missing: %u agents need a spawn region (rect, circle or cells)",
                                cr->count);
    }
    if (spawn) {
        cr->spawn_node = spawn;
        if (spawn->kind == TH_Y_SEQUENCE) {
            if (spawn->count == 0)
                return FAIL(s, spawn, sub, c->err,
                            "expected at least one region, found an empty list");
            for (uint32_t i = 0; i < spawn->count; i++) {
                char item[160];
                snprintf(item, sizeof item, "%s[%u]", sub, i);
                if (!parse_region(c, cr, spawn->items[i], item)) return false;
            }
        } else if (!parse_region(c, cr, spawn, sub)) {
            return false;
        }
    }
    return true;
}

static bool parse_crowds(ctx *c, const th_ynode *n) {
    th_scene *s = c->s;
    if (!expect(s, n, TH_Y_SEQUENCE, "crowds", c->err)) return false;
    if (n->count == 0)
        return FAIL(s, n, "crowds", c->err, "expected at least one crowd, found an empty list");
    if (n->count > TH_MAX_CROWDS)
        return FAIL(s, n, "crowds", c->err, "more than %d crowds", TH_MAX_CROWDS);
    s->crowd = th_arena_alloc(&s->doc.arena, n->count * sizeof *s->crowd);
    if (!s->crowd) return TH_SCENE_NOMEM(s, n, "crowds", c->err, "out of memory");
    uint64_t total = 0;
    uint32_t fields = 0;
    for (uint32_t i = 0; i < n->count; i++) {
        if (!parse_crowd(c, &s->crowd[i], n->items[i], i)) return false;
        s->crowd_count = i + 1;
        /* A destinations goal takes a destination field, and so does a colony's nest on a
         * map: refused here, before the world (and its map) is built. */
        const th_goal_kind g = s->crowd[i].def.goal.kind;
        if (g == TH_GOAL_DESTINATIONS || (g == TH_GOAL_FORAGE && s->has_map)) {
            if (++fields > TH_MAX_DESTINATION_FIELDS) {
                char path[64];
                snprintf(path, sizeof path, "crowds[%u].goal", i);
                return FAIL(s, s->crowd[i].goal_node ? s->crowd[i].goal_node : n->items[i], path,
                            c->err,
                            "expected at most %d crowds with a destinations goal or, on a map, a "
                            "foraging goal (each takes one of the world's %d destination fields), "
                            "found a %uth",
                            TH_MAX_DESTINATION_FIELDS, TH_MAX_DESTINATION_FIELDS, fields);
            }
        }
        total += (uint64_t)s->crowd[i].count + s->crowd[i].agent_count;
        if (total > TH_MAX_AGENTS) {
            char path[64];
            snprintf(path, sizeof path, "crowds[%u]", i);
            return FAIL(s, n->items[i], path, c->err, "the crowds hold more than %u agents in all",
                        TH_MAX_AGENTS);
        }
    }
    return true;
}

/* "20s", "1500ms", or plain seconds. */
static bool parse_time(ctx *c, const th_ynode *n, const char *path, double *seconds) {
    char buf[64];
    if (n->kind == TH_Y_SCALAR && !n->quoted) {
        size_t len = n->len;
        double scale = 1.0;
        if (len > 2 && memcmp(n->text + len - 2, "ms", 2) == 0) len -= 2, scale = 1e-3;
        else if (len > 1 && n->text[len - 1] == 's') len -= 1;
        if (th_scene_is_decimal(n->text, len, false)) {
            double v = strtod(n->text, NULL) * scale;
            if (isfinite(v) && v >= 0 && v <= 1e7) {
                *seconds = v;
                return true;
            }
        }
    }
    return FAIL(c->s, n, path, c->err,
                "expected a time such as 20s, 1500ms or 12.5 (seconds, 0 to 1e7), found %s",
                found(n, buf, sizeof buf));
}

static bool point(ctx *c, const th_ynode *n, const char *path, th_vec2 *out) {
    double xy[2];
    if (number_list(c->s, n, path, 2, 0, -TH_MAX_WORLD_DIM, TH_MAX_WORLD_DIM, xy, c->err) < 0)
        return false;
    *out = th_v2((float)xy[0], (float)xy[1]);
    return true;
}

static bool parse_targets(ctx *c, const th_ynode *n) {
    th_scene *s = c->s;
    if (!expect(s, n, TH_Y_SEQUENCE, "targets", c->err)) return false;
    if (n->count > TH_MAX_TARGETS)
        return FAIL(s, n, "targets", c->err, "more than %d targets", TH_MAX_TARGETS);
    static const char *const keys[] = {"name", "point", "velocity", "path", "speed",
                                       "loop", "agent", "shelter",  NULL};
    for (uint32_t i = 0; i < n->count; i++) {
        const th_ynode *t = n->items[i], *v;
        char path[64], sub[128];
        snprintf(path, sizeof path, "targets[%u]", i);
        if (!expect(s, t, TH_Y_MAPPING, path, c->err) || !known_keys(s, t, path, keys, c->err))
            return false;
        th_scene_target *st = &s->target[s->target_count];
        memset(st, 0, sizeof *st);
        st->node = t;
        st->agent_crowd = -1;
        snprintf(sub, sizeof sub, "%s.name", path);
        if (!(v = th_ynode_get(t, "name")))
            return TH_SCENE_MISSING(s, t, sub, c->err, "missing: every target has a name");
        if (!scalar_name(s, v, sub, st->name, sizeof st->name, c->err)) return false;
        for (uint32_t k = 0; k < s->target_count; k++) {
            if (strcmp(s->target[k].name, st->name) == 0)
                return FAIL(s, v, sub, c->err, "target name '%s' is used twice", st->name);
        }
        const th_ynode *pt = th_ynode_get(t, "point"), *pa = th_ynode_get(t, "path"),
                       *ag = th_ynode_get(t, "agent"), *sh = th_ynode_get(t, "shelter");
        int kinds = !!pt + !!pa + !!ag + !!sh;
        if (kinds != 1)
            return FAIL(s, t, path, c->err,
                        "expected exactly one of point, path, agent or shelter, found %d", kinds);
        if (pt) {
            st->def.kind = TH_TARGET_POINT;
            snprintf(sub, sizeof sub, "%s.point", path);
            if (!point(c, pt, sub, &st->def.position)) return false;
            if ((v = th_ynode_get(t, "velocity"))) {
                snprintf(sub, sizeof sub, "%s.velocity", path);
                if (!point(c, v, sub, &st->def.velocity)) return false;
                if (hypot(st->def.velocity.x, st->def.velocity.y) > TH_MAX_SPEED) {
                    return FAIL(s, v, sub, c->err, "expected a velocity of at most %g m/s",
                                (double)TH_MAX_SPEED);
                }
            }
        } else if (pa) {
            st->def.kind = TH_TARGET_PATH;
            snprintf(sub, sizeof sub, "%s.path", path);
            if (!expect(s, pa, TH_Y_SEQUENCE, sub, c->err)) return false;
            if (pa->count < 1 || pa->count > TH_MAX_PATH_POINTS)
                return FAIL(s, pa, sub, c->err, "expected 1 to %d points, found %u",
                            TH_MAX_PATH_POINTS, pa->count);
            th_vec2 *pts = th_arena_alloc(&s->doc.arena, pa->count * sizeof *pts);
            if (!pts) return TH_SCENE_NOMEM(s, pa, sub, c->err, "out of memory");
            for (uint32_t k = 0; k < pa->count; k++) {
                char item[160];
                snprintf(item, sizeof item, "%s[%u]", sub, k);
                if (!point(c, pa->items[k], item, &pts[k])) return false;
            }
            st->def.points = pts;
            st->def.point_count = pa->count;
            st->def.speed = 1.0f;
            double speed;
            if ((v = th_ynode_get(t, "speed"))) {
                snprintf(sub, sizeof sub, "%s.speed", path);
                if (!scalar_float(s, v, sub, 0, 1000, &speed, c->err)) return false;
                st->def.speed = (float)speed;
            }
            if ((v = th_ynode_get(t, "loop"))) {
                static const char *const words[] = {"false", "true", NULL};
                int b;
                snprintf(sub, sizeof sub, "%s.loop", path);
                if (!scalar_word(s, v, sub, words, &b, c->err)) return false;
                st->def.loop = b == 1;
            }
        } else if (ag) {
            static const char *const akeys[] = {"crowd", "index", NULL};
            st->def.kind = TH_TARGET_AGENT;
            snprintf(sub, sizeof sub, "%s.agent", path);
            if (!expect(s, ag, TH_Y_MAPPING, sub, c->err) || !known_keys(s, ag, sub, akeys, c->err))
                return false;
            /* The crowd is looked up once the crowds are read (it may come later). */
            if (!th_ynode_get(ag, "crowd"))
                return TH_SCENE_MISSING(s, ag, sub, c->err, "missing: {crowd: NAME, index: N}");
            uint64_t idx = 0;
            if ((v = th_ynode_get(ag, "index"))) {
                char item[160];
                snprintf(item, sizeof item, "%s.index", sub);
                if (!th_scene_u64(s, v, item, 0, TH_MAX_AGENTS - 1, &idx, c->err)) return false;
            }
            st->agent_index = (uint32_t)idx;
        } else {
            static const char *const words[] = {"true", NULL};
            int b;
            snprintf(sub, sizeof sub, "%s.shelter", path);
            if (!scalar_word(s, sh, sub, words, &b, c->err)) return false;
            if (!s->has_map)
                return FAIL(s, sh, sub, c->err, "a shelter target needs a map with bunkers");
            st->def.kind = TH_TARGET_SHELTER;
        }
        s->target_count++;
    }
    return true;
}

static int find_crowd(const th_scene *s, const th_ynode *name) {
    for (uint32_t k = 0; name->kind == TH_Y_SCALAR && k < s->crowd_count; k++) {
        if (strlen(s->crowd[k].name) == name->len &&
            memcmp(s->crowd[k].name, name->text, name->len) == 0)
            return (int)k;
    }
    return -1;
}

/* Agent targets: their crowd by name, now that the crowds are read. */
static bool resolve_agent_targets(ctx *c) {
    th_scene *s = c->s;
    for (uint32_t t = 0; t < s->target_count; t++) {
        th_scene_target *st = &s->target[t];
        if (st->def.kind != TH_TARGET_AGENT) continue;
        const th_ynode *name = th_ynode_get(th_ynode_get(st->node, "agent"), "crowd");
        char path[96], buf[64];
        snprintf(path, sizeof path, "targets[%u].agent.crowd", t);
        st->agent_crowd = find_crowd(s, name);
        if (st->agent_crowd < 0)
            return FAIL(s, name, path, c->err, "expected the name of a crowd, found %s",
                        found(name, buf, sizeof buf));
    }
    return true;
}

static bool parse_squads(ctx *c, const th_ynode *n) {
    th_scene *s = c->s;
    if (!expect(s, n, TH_Y_SEQUENCE, "squads", c->err)) return false;
    if (n->count > TH_MAX_SQUADS)
        return FAIL(s, n, "squads", c->err, "more than %d squads", TH_MAX_SQUADS);
    s->squad = th_arena_alloc(&s->doc.arena, (n->count ? n->count : 1) * sizeof *s->squad);
    if (!s->squad) return TH_SCENE_NOMEM(s, n, "squads", c->err, "out of memory");
    static const char *const keys[] = {"crowd",     "count",       "formation", "files",
                                       "spacing",   "start",       "goal",      "speed",
                                       "tolerance", "slot_weight", "rigid",     NULL};
    for (uint32_t i = 0; i < n->count; i++) {
        const th_ynode *q = n->items[i], *v;
        char path[64], sub[128], buf[64];
        snprintf(path, sizeof path, "squads[%u]", i);
        if (!expect(s, q, TH_Y_MAPPING, path, c->err) || !known_keys(s, q, path, keys, c->err))
            return false;
        th_squad_def d = th_default_squad_def();
        snprintf(sub, sizeof sub, "%s.crowd", path);
        if (!(v = th_ynode_get(q, "crowd")))
            return TH_SCENE_MISSING(s, q, sub, c->err, "missing: the crowd the members belong to");
        int cr = find_crowd(s, v);
        if (cr < 0)
            return FAIL(s, v, sub, c->err, "expected the name of a crowd, found %s",
                        found(v, buf, sizeof buf));
        d.crowd = (th_crowd_id){(uint32_t)cr + 1};
        uint64_t u;
        snprintf(sub, sizeof sub, "%s.count", path);
        if (!(v = th_ynode_get(q, "count")))
            return TH_SCENE_MISSING(s, q, sub, c->err, "missing: how many members");
        if (!th_scene_u64(s, v, sub, 1, TH_MAX_SQUAD_MEMBERS, &u, c->err)) return false;
        d.count = (uint32_t)u;
        if ((v = th_ynode_get(q, "formation"))) {
            static const char *const words[] = {"line", "column", "wedge", "box", "circle", NULL};
            int f;
            snprintf(sub, sizeof sub, "%s.formation", path);
            if (!scalar_word(s, v, sub, words, &f, c->err)) return false;
            d.formation = (th_formation)f;
        }
        if ((v = th_ynode_get(q, "files"))) {
            snprintf(sub, sizeof sub, "%s.files", path);
            if (!th_scene_u64(s, v, sub, 1, TH_MAX_SQUAD_MEMBERS, &u, c->err)) return false;
            d.files = (uint32_t)u;
        }
        const struct {
            const char *key;
            float *out;
            double lo, hi;
        } floats[] = {{"spacing", &d.spacing, 0.01, 100},
                      {"speed", &d.speed, 0.01, 1000},
                      {"tolerance", &d.tolerance, 0.01, 100},
                      {"slot_weight", &d.slot_weight, 0, 1000}};
        for (size_t f = 0; f < sizeof floats / sizeof floats[0]; f++) {
            if (!(v = th_ynode_get(q, floats[f].key))) continue;
            double x;
            snprintf(sub, sizeof sub, "%s.%s", path, floats[f].key);
            if (!scalar_float(s, v, sub, floats[f].lo, floats[f].hi, &x, c->err)) return false;
            *floats[f].out = (float)x;
        }
        if ((v = th_ynode_get(q, "rigid"))) {
            static const char *const words[] = {"false", "true", NULL};
            int r;
            snprintf(sub, sizeof sub, "%s.rigid", path);
            if (!scalar_word(s, v, sub, words, &r, c->err)) return false;
            d.rigid = r == 1;
        }
        const char *ends[2] = {"start", "goal"};
        th_vec2 *at[2] = {&d.start, &d.goal};
        for (int e = 0; e < 2; e++) {
            snprintf(sub, sizeof sub, "%s.%s", path, ends[e]);
            if (!(v = th_ynode_get(q, ends[e])))
                return TH_SCENE_MISSING(s, q, sub, c->err, "missing: [x, y] in metres");
            if (!point(c, v, sub, at[e])) return false;
            if (!th_scene_open_at(s, at[e]->x, at[e]->y, false)) {
                return FAIL(s, v, sub, c->err, "(%g, %g) is not open ground inside the world",
                            (double)at[e]->x, (double)at[e]->y);
            }
        }
        s->squad[s->squad_count++] = (th_scene_squad){d, q};
    }
    return true;
}

/* set_crowd: {crowd: NAME, KEY: VALUE, ...}: a boids crowd's steering weights and speeds, each
 * KEY one of the crowd keys th_crowd_tune holds, bounded as that key is. */
static bool parse_set_crowd(ctx *c, const th_ynode *v, const char *path, th_scene_event *ev) {
    th_scene *s = c->s;
    static const char *const keys[] = {
        "crowd",       "separation_weight", "alignment_weight", "cohesion_weight", "flow_weight",
        "wall_weight", "pursuit_weight",    "flee_weight",      "max_speed",       "max_force",
        NULL};
    char key[160], buf[64];
    if (!expect(s, v, TH_Y_MAPPING, path, c->err) || !known_keys(s, v, path, keys, c->err))
        return false;
    const th_ynode *name = th_ynode_get(v, "crowd");
    snprintf(key, sizeof key, "%s.crowd", path);
    if (!name)
        return TH_SCENE_MISSING(s, v, key, c->err, "missing: the name of the crowd to change");
    ev->crowd = find_crowd(s, name);
    if (ev->crowd < 0)
        return FAIL(s, name, key, c->err, "expected the name of a crowd, found %s",
                    found(name, buf, sizeof buf));
    const th_crowd_def *d = &s->crowd[ev->crowd].def;
    if (d->model != TH_MODEL_BOIDS)
        return FAIL(s, name, key, c->err,
                    "crowd '%s' walks the pedestrian model; set_crowd changes boids' steering",
                    s->crowd[ev->crowd].name);
    for (const char *const *k = keys + 1; *k; k++) {
        const th_ynode *x = th_ynode_get(v, *k);
        if (!x) continue;
        const uint32_t bit = th_crowd_tune_bit(*k);
        float *val = th_crowd_tune_value(&ev->tune, bit);
        snprintf(key, sizeof key, "%s.%s", path, *k);
        if (!crowd_param(s, th_crowd_param_find(*k), x, key, val, c->err)) return false;
        if (bit == TH_TUNE_MAX_SPEED && *val > d->max_speed)
            return FAIL(s, x, key, c->err,
                        "expected at most the crowd's own max_speed, %g m/s (how far it looks and "
                        "moves in a step were sized for that), found %g",
                        (double)d->max_speed, (double)*val);
        ev->tune.fields |= bit;
    }
    if (!ev->tune.fields)
        return TH_SCENE_MISSING(s, v, path, c->err,
                                "missing: at least one steering key to change (separation_weight, "
                                "alignment_weight, ..., max_speed, max_force)");
    return true;
}

static bool parse_events(ctx *c, const th_ynode *n) {
    th_scene *s = c->s;
    if (!expect(s, n, TH_Y_SEQUENCE, "events", c->err)) return false;
    if (n->count > TH_MAX_PENDING_EVENTS)
        return FAIL(s, n, "events", c->err, "more than %d events", TH_MAX_PENDING_EVENTS);
    s->event = th_arena_alloc(&s->doc.arena, (n->count ? n->count : 1) * sizeof *s->event);
    if (!s->event) return TH_SCENE_NOMEM(s, n, "events", c->err, "out of memory");
    static const char *const keys[] = {"at",         "at_step", "destroy_bunker", "restore_bunker",
                                       "break_wall", "block",   "set_cost",       "open",
                                       "set_crowd",  NULL};
    static const char *const actions[] = {"destroy_bunker", "restore_bunker", "break_wall", "block",
                                          "set_cost",       "open",           "set_crowd"};
    enum { ACTIONS = sizeof actions / sizeof actions[0] };
    static const char *const cost_keys[] = {"cells", "cost", NULL};
    for (uint32_t i = 0; i < n->count; i++) {
        const th_ynode *e = n->items[i];
        char path[64], sub[96];
        snprintf(path, sizeof path, "events[%u]", i);
        if (!expect(s, e, TH_Y_MAPPING, path, c->err) || !known_keys(s, e, path, keys, c->err))
            return false;
        if (!s->has_map && !th_ynode_get(e, "set_crowd"))
            return FAIL(s, e, path, c->err, "events change the map; this scene has none");
        th_scene_event *ev = &s->event[s->event_count];
        *ev = (th_scene_event){.node = e, .crowd = -1};
        const th_ynode *at = th_ynode_get(e, "at"), *at_step = th_ynode_get(e, "at_step");
        if (!!at == !!at_step) {
            return FAIL(s, e, path, c->err,
                        "expected exactly one of `at` (time) or `at_step`, found %s",
                        at ? "both" : "neither");
        }
        if (at) {
            double secs = 0.0;
            snprintf(sub, sizeof sub, "%s.at", path);
            if (!parse_time(c, at, sub, &secs)) return false;
            ev->step = (uint64_t)llround(secs / s->timestep);
        } else {
            snprintf(sub, sizeof sub, "%s.at_step", path);
            if (!th_scene_u64(s, at_step, sub, 0, 1000000000000ull, &ev->step, c->err))
                return false;
        }
        int action = -1;
        const th_ynode *v = NULL;
        for (int a = 0; a < ACTIONS; a++) {
            const th_ynode *x = th_ynode_get(e, actions[a]);
            if (!x) continue;
            if (v)
                return FAIL(s, x, path, c->err,
                            "expected one action per event, found `%s` and `%s`", actions[action],
                            actions[a]);
            v = x;
            action = a;
        }
        if (!v)
            return TH_SCENE_MISSING(
                s, e, path, c->err,
                "missing action: expected one of destroy_bunker, restore_bunker, break_wall, block, "
                "set_cost, open, set_crowd");
        snprintf(sub, sizeof sub, "%s.%s", path, actions[action]);
        if (action <= 1) {
            char buf[64];
            int b = v->kind == TH_Y_SCALAR ? find_bunker(s, v->text, v->len) : -1;
            if (b < 0)
                return FAIL(s, v, sub, c->err, "expected the name of a bunker, found %s",
                            found(v, buf, sizeof buf));
            ev->def = (th_event_def){.type = action == 0 ? TH_EVENT_DESTROY_BUNKER
                                                         : TH_EVENT_RESTORE_BUNKER,
                                     .bunker = {(uint32_t)b + 1}};
        } else if (action <= 3 || action == 5) {
            int32_t r[4];
            if (!cell_rect(c, v, sub, r)) return false;
            ev->def = (th_event_def){action == 2   ? TH_EVENT_BREAK_WALLS
                                     : action == 3 ? TH_EVENT_BLOCK_CELLS
                                                   : TH_EVENT_OPEN_CELLS,
                                     {0},
                                     r[0],
                                     r[1],
                                     r[2],
                                     r[3],
                                     0};
        } else if (action == 6) {
            if (!parse_set_crowd(c, v, sub, ev)) return false;
        } else {
            /* set_cost: {cells: [x0, y0, x1, y1], cost: c} */
            char key[112];
            if (!expect(s, v, TH_Y_MAPPING, sub, c->err) ||
                !known_keys(s, v, sub, cost_keys, c->err))
                return false;
            const th_ynode *cells = th_ynode_get(v, "cells"), *cost = th_ynode_get(v, "cost");
            snprintf(key, sizeof key, "%s.cells", sub);
            if (!cells)
                return TH_SCENE_MISSING(
                    s, v, key, c->err,
                    "missing: the cells to re-price, [x, y] or [x0, y0, x1, y1]");
            int32_t r[4];
            if (!cell_rect(c, cells, key, r)) return false;
            snprintf(key, sizeof key, "%s.cost", sub);
            if (!cost)
                return TH_SCENE_MISSING(s, v, key, c->err,
                                        "missing: the new terrain cost, a whole number in [1, %d]",
                                        TH_CELL_COST_MAX);
            uint64_t u;
            if (!th_scene_u64(s, cost, key, 1, TH_CELL_COST_MAX, &u, c->err)) return false;
            ev->def = (th_event_def){TH_EVENT_SET_COST, {0}, r[0], r[1], r[2], r[3], (uint32_t)u};
        }
        s->event_count++;
    }
    return true;
}

/* ---- shared with the other scene sources (scene_measure.c) ------------------------------- */

bool th_scene_expect(const th_scene *s, const th_ynode *n, th_ynode_kind kind, const char *path,
                     th_error *err) {
    return expect(s, n, kind, path, err);
}

bool th_scene_known_keys(const th_scene *s, const th_ynode *map, const char *path,
                         const char *const *allowed, th_error *err) {
    return known_keys(s, map, path, allowed, err);
}

bool th_scene_float(const th_scene *s, const th_ynode *n, const char *path, double lo, double hi,
                    double *out, th_error *err) {
    return scalar_float(s, n, path, lo, hi, out, err);
}

int th_scene_numbers(const th_scene *s, const th_ynode *n, const char *path, int count, double lo,
                     double hi, double *out, th_error *err) {
    return number_list(s, n, path, count, 0, lo, hi, out, err);
}

bool th_scene_name(const th_scene *s, const th_ynode *n, const char *path, char *out, size_t cap,
                   th_error *err) {
    return scalar_name(s, n, path, out, cap, err);
}

const char *th_scene_found(const th_ynode *n, char *buf, size_t cap) { return found(n, buf, cap); }

int th_scene_find_crowd(const th_scene *s, const th_ynode *name) { return find_crowd(s, name); }

/* ---- the file -------------------------------------------------------------------------- */

static bool parse_tree(th_scene *s, th_error *err);

bool th_scene_parse(th_scene *s, const char *path, th_error *err) {
    return th_scene_parse_ex(s, path, NULL, err);
}

bool th_scene_parse_ex(th_scene *s, const char *path, const th_scene_opts *opts, th_error *err) {
    memset(s, 0, sizeof *s);
    if (opts) {
        s->allow_outside_paths = opts->allow_outside_paths;
        s->file_read = opts->file_read;
        s->file_read_user = opts->file_read_user;
    }
    return th_ydoc_load(&s->doc, path, err) && parse_tree(s, err);
}

bool th_scene_parse_memory(th_scene *s, const char *name, const void *data, size_t len,
                           th_error *err) {
    memset(s, 0, sizeof *s);
    return th_ydoc_load_memory(&s->doc, name, data, len, err) && parse_tree(s, err);
}

bool th_scene_parse_keys(th_scene *s, const char *name, const void *data, size_t len,
                         void (*hook)(void *user, const char *path, const char *const *allowed),
                         void *user, th_error *err) {
    memset(s, 0, sizeof *s);
    s->key_hook = hook;
    s->key_user = user;
    return th_ydoc_load_memory(&s->doc, name, data, len, err) && parse_tree(s, err);
}

/* Everything after the YAML: the tree checked key by key. */
static bool parse_tree(th_scene *s, th_error *err) {
    ctx c = {s, err};
    const th_ynode *root = s->doc.root;
    if (!root)
        return FAIL(s, NULL, "(file)", err,
                    "the file is empty; expected a mapping with name, crowds, ...");
    if (!expect(s, root, TH_Y_MAPPING, "(file)", err)) return false;
    static const char *const keys[] = {
        "name",        "seed",     "timestep", "threads",    "steps",         "world",
        "map",         "bunkers",  "targets",  "crowds",     "squads",        "events",
        "measure",     "spawners", "exits",    "stall_time", "hazards",       "groups",
        "agent_goals", "levels",   "stairs",   "elevators",  "goal_planning", NULL};
    if (!known_keys(s, root, "", keys, err)) return false;

    const th_ynode *v = th_ynode_get(root, "name");
    if (!v) return TH_SCENE_MISSING(s, root, "name", err, "missing: every scene has a name");
    if (!scalar_name(s, v, "name", s->name, sizeof s->name, err)) return false;
    s->seed = 1;
    s->timestep = 1.0f / 60.0f;
    s->steps = 600;
    double d;
    uint64_t u;
    if ((v = th_ynode_get(root, "seed")) &&
        !th_scene_u64(s, v, "seed", 0, UINT64_MAX, &s->seed, err))
        return false;
    if ((v = th_ynode_get(root, "timestep"))) {
        if (!scalar_float(s, v, "timestep", 1e-4, 1.0, &d, err)) return false;
        s->timestep = (float)d;
    }
    if ((v = th_ynode_get(root, "stall_time"))) {
        if (!scalar_float(s, v, "stall_time", 0.01, 1e6, &d, err)) return false;
        s->stall_time = (float)d;
    }
    if ((v = th_ynode_get(root, "threads"))) {
        if (!th_scene_u64(s, v, "threads", 0, TH_MAX_THREADS, &u, err)) return false;
        s->threads = (uint32_t)u;
    }
    if ((v = th_ynode_get(root, "steps")) &&
        !th_scene_u64(s, v, "steps", 0, 1000000000ull, &s->steps, err))
        return false;

    const th_ynode *world = th_ynode_get(root, "world"), *map = th_ynode_get(root, "map");
    if (world && map)
        return FAIL(
            s, world, "world", err,
            "a scene has a `world` (open ground) or a `map`, not both: the map sets the world's size");
    if (!world && !map)
        return TH_SCENE_MISSING(s, root, "world", err,
                                "missing: expected `world: {size: [w, h]}` or a `map`");
    if (world && !parse_world(&c, world)) return false;
    if (map) {
        s->bounds = TH_BOUNDS_WALLS;
        if (!th_scene_read_map(s, map, err)) return false; /* sets width, height and bounds */
    }
    if ((v = th_ynode_get(root, "levels")) && !th_scene_parse_levels(s, v, err)) return false;
    if ((v = th_ynode_get(root, "stairs")) && !th_scene_parse_stairs(s, v, err)) return false;
    if ((v = th_ynode_get(root, "bunkers")) && !parse_bunkers(&c, v)) return false;
    for (uint32_t b = 0; b < s->bunker_count; b++) {
        if (!s->bunker[b].placed) {
            return FAIL(s, s->bunker[b].node, "bunkers", err, "bunker '%s' has no cells",
                        s->bunker[b].name);
        }
    }
    if ((v = th_ynode_get(root, "targets")) && !parse_targets(&c, v)) return false;
    v = th_ynode_get(root, "crowds");
    if (!v)
        return TH_SCENE_MISSING(s, root, "crowds", err, "missing: a scene has at least one crowd");
    if (!parse_crowds(&c, v)) return false;
    if (!resolve_agent_targets(&c)) return false;
    if ((v = th_ynode_get(root, "squads")) && !parse_squads(&c, v)) return false;
    for (uint32_t i = 0; i < s->crowd_count; i++) {
        if (s->crowd[i].def.behavior == TH_BEHAVIOR_FLEE && s->bunker_count == 0) {
            char path2[64];
            const th_ynode *b = th_ynode_get(s->crowd[i].node, "behavior");
            snprintf(path2, sizeof path2, "crowds[%u].%s", i, b ? "behavior" : "goal");
            return FAIL(s, b ? b : s->crowd[i].goal_node, path2, err,
                        "crowd '%s' flees, but the scene has no bunkers", s->crowd[i].name);
        }
    }
    if ((v = th_ynode_get(root, "events")) && !parse_events(&c, v)) return false;
    if ((v = th_ynode_get(root, "measure")) && !th_scene_parse_measure(s, v, err)) return false;
    if ((v = th_ynode_get(root, "hazards")) && !th_scene_parse_hazards(s, v, err)) return false;
    if ((v = th_ynode_get(root, "groups")) && !th_scene_parse_groups(s, v, err)) return false;
    if ((v = th_ynode_get(root, "agent_goals")) && !th_scene_parse_agent_goals(s, v, err))
        return false;
    if ((v = th_ynode_get(root, "goal_planning")) && !th_scene_parse_goal_planning(s, v, err))
        return false;
    for (uint32_t i = 0; i < s->agent_goal_count && !s->goal_planning_node; i++) {
        if (!s->agent_goal[i].priority) continue;
        char path[64];
        snprintf(path, sizeof path, "agent_goals[%u].priority", i);
        return FAIL(s, s->agent_goal[i].priority, path, err,
                    "a priority orders the searches of `goal_planning`, and the scene has none");
    }
    if ((v = th_ynode_get(root, "elevators")) && !th_scene_parse_elevators(s, v, err)) return false;
    if (!th_scene_parse_flow(s, root, err)) return false;
    return true;
}

void th_scene_free(th_scene *s) {
    th_free(s->hazard);
    th_free(s->kind);
    th_free(s->cost);
    th_free(s->legend);
    th_ydoc_free(&s->doc);
    memset(s, 0, sizeof *s);
}
