/* The scene's `hazards` section: smoke and toxic gases over rectangles of the map, given at
 * times (throng/hazard.h, docs/hazards.md).
 *
 *     hazards:
 *       - rect: [x, y, width, height]                  # metres
 *         air: {extinction: 1.0, co: 500, co2: 2, o2: 18, hcn: 0}
 *       - rect: [...]
 *         keys:                                        # linear in between, held outside
 *           - {time: 0, extinction: 0}
 *           - {time: 120, extinction: 2.5, co: 800, co2: 3, o2: 17}
 *       - file: fire.csv                               # rectangles and keys from a table
 *
 * A field left out is clean air's (no smoke, CO or HCN; 0.04 % CO2, 20.9 % O2). Later hazards
 * cover earlier ones where they overlap. Everything the world would refuse is checked here
 * first, so the error points at the value (file:line:column). */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/alloc.h"
#include "engine/arena.h"
#include "sim/scene/scene_internal.h"
#include "throng/hazard.h"

#define FAIL(s, n, path, err, ...) th_scene_fail((s), (n), (path), (err), __VA_ARGS__)

/* The air fields of a mapping (the others are the caller's to check): those present replace
 * clean air's. */
static bool parse_air(th_scene *s, const th_ynode *n, const char *path, th_air *out,
                      th_error *err) {
    static const char *const name[5] = {"extinction", "co", "co2", "o2", "hcn"};
    static const double hi[5] = {1000.0, 1.0e6, 100.0, 100.0, 1.0e6};
    float *dst[5] = {&out->extinction, &out->co, &out->co2, &out->o2, &out->hcn};
    *out = th_clean_air();
    char sub[160];
    for (int k = 0; k < 5; k++) {
        const th_ynode *v = th_ynode_get(n, name[k]);
        if (!v) continue;
        snprintf(sub, sizeof sub, "%s.%s", path, name[k]);
        double d;
        if (!th_scene_float(s, v, sub, 0.0, hi[k], &d, err)) return false;
        *dst[k] = (float)d;
    }
    return true;
}

static bool parse_keys(th_scene *s, const th_ynode *n, const char *path, th_scene_hazard *h,
                       th_error *err) {
    if (!th_scene_expect(s, n, TH_Y_SEQUENCE, path, err)) return false;
    if (n->count == 0 || n->count > TH_MAX_HAZARD_KEYS) {
        return FAIL(s, n, path, err, "expected 1 to %u keys, found %u", TH_MAX_HAZARD_KEYS,
                    n->count);
    }
    h->keys = th_arena_alloc(&s->doc.arena, n->count * sizeof *h->keys);
    if (!h->keys) return TH_SCENE_NOMEM(s, n, path, err, "out of memory");
    static const char *const keys[] = {"time", "extinction", "co", "co2", "o2", "hcn", NULL};
    char sub[128], tpath[160];
    for (uint32_t i = 0; i < n->count; i++) {
        const th_ynode *e = n->items[i];
        snprintf(sub, sizeof sub, "%s[%u]", path, i);
        if (!th_scene_expect(s, e, TH_Y_MAPPING, sub, err) ||
            !th_scene_known_keys(s, e, sub, keys, err))
            return false;
        snprintf(tpath, sizeof tpath, "%s.time", sub);
        const th_ynode *t = th_ynode_get(e, "time");
        if (!t)
            return TH_SCENE_MISSING(s, e, tpath, err, "missing: every key has a time (seconds)");
        double d;
        if (!th_scene_float(s, t, tpath, 0.0, 1.0e9, &d, err)) return false;
        if (i > 0 && !((float)d > h->keys[i - 1].time)) {
            return FAIL(s, t, tpath, err,
                        "expected a time after the key before it (%g s), found %g s",
                        (double)h->keys[i - 1].time, d);
        }
        h->keys[i].time = (float)d;
        if (!parse_air(s, e, sub, &h->keys[i].air, err)) return false;
    }
    h->key_count = n->count;
    return true;
}

/* Whether [x, y, width, height] = d (metres) makes a hazard in this scene's world: a positive
 * size inside it, holding a cell centre. If not, why in `why`. */
static bool rect_ok(const th_scene *s, const double d[4], char *why, size_t cap) {
    if (!(d[2] > 0.0 && d[3] > 0.0) || d[0] + d[2] > s->width || d[1] + d[3] > s->height) {
        snprintf(
            why, cap,
            "expected [x, y, width, height] with a positive size inside the %g x %g m world, found [%g, %g, %g, %g]",
            (double)s->width, (double)s->height, d[0], d[1], d[2], d[3]);
        return false;
    }
    /* It must cover a cell centre: the cells it covers are those whose centres lie inside. */
    const double cs = s->cell_size;
    if (ceil((d[0] + d[2]) / cs - 0.5) <= ceil(d[0] / cs - 0.5) ||
        ceil((d[1] + d[3]) / cs - 0.5) <= ceil(d[1] / cs - 0.5)) {
        snprintf(why, cap,
                 "the rectangle [%g, %g, %g, %g] holds no cell centre of the %g m cells: "
                 "a hazard covers the cells whose centres lie inside it",
                 d[0], d[1], d[2], d[3], cs);
        return false;
    }
    return true;
}

/* Add room for `more` hazards. */
static bool reserve_hazards(th_scene *s, uint32_t more) {
    if (more > UINT32_MAX - s->hazard_count) return false;
    return th_array_reserve((void **)&s->hazard, sizeof *s->hazard, s->hazard_count, &s->hazard_cap,
                            s->hazard_count + more, 8, UINT32_MAX);
}

/* ---- hazard tables: `file: NAME.csv` ---------------------------------------------------- */

/* The most a table may hold: bytes, and rows of data (each a key of a rectangle). */
#define TH_SCENE_MAX_HAZARD_FILE_BYTES ((size_t)256 << 20)
#define TH_SCENE_MAX_HAZARD_ROWS       (4u << 20)
#define CSV_COLUMNS                    10

static const char *const csv_column[CSV_COLUMNS] = {"time",       "x",  "y",   "width", "height",
                                                    "extinction", "co", "co2", "o2",    "hcn"};
static const double csv_hi[CSV_COLUMNS] = {1.0e9,
                                           TH_MAX_WORLD_DIM,
                                           TH_MAX_WORLD_DIM,
                                           TH_MAX_WORLD_DIM,
                                           TH_MAX_WORLD_DIM,
                                           1000.0,
                                           1.0e6,
                                           100.0,
                                           100.0,
                                           1.0e6};

/* A distinct rectangle of the table: its keys so far and the last one's time and line. */
typedef struct csv_rect {
    double d[4];
    uint32_t count, last_line;
    float last;
} csv_rect;

typedef struct csv_row {
    uint32_t rect;
    th_hazard_key key;
} csv_row;

typedef struct csv {
    th_scene *s;
    const th_ynode *file;
    const char *path; /* hazards[i].file */
    const char *name; /* the file as read, for messages */
    bool quote;       /* whether messages may quote the file's text */
    th_error *err;
    const char *line_start;
    uint32_t line;
    csv_rect *rect;
    uint32_t rect_count, rect_cap;
    uint32_t *slot; /* hash of rectangles: index + 1, 0 for none */
    uint32_t slot_cap;
    csv_row *row;
    uint32_t row_count, row_cap;
} csv;

/* A problem at `at` on the current line, reported at the scene's `file:` node as
 * "NAME.csv:LINE:COLUMN: what" (the column counts characters, from 1). Returns false. */
static bool csv_fail(const csv *c, const char *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool csv_fail(const csv *c, const char *at, const char *fmt, ...) {
    uint32_t column = 1;
    for (const char *p = c->line_start; p < at; p++) column += ((unsigned char)*p & 0xc0) != 0x80;
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return th_scene_fail(c->s, c->file, c->path, c->err, "%s:%u:%u: %s", c->name, c->line, column,
                         what);
}

/* How a field reads in a message: 'text' (shortened at a character boundary), "an empty
 * field", or "another value" where the file may lie outside the scene's folder (a message must
 * not show the bytes of whatever file a scene names with --allow-outside-paths). */
static const char *csv_found(const csv *c, const char *t, size_t len, char *buf, size_t cap) {
    if (len == 0) return "an empty field";
    if (!c->quote) return "another value";
    size_t shown = len > 24 ? 24 : len;
    while (shown < len && shown > 0 && ((unsigned char)t[shown] & 0xc0) == 0x80) shown--;
    snprintf(buf, cap, "'%.*s%s'", (int)shown, t, shown < len ? "..." : "");
    return buf;
}

/* The fields of the line [p, e): start and end of each (blanks around it left out), at most
 * CSV_COLUMNS + 1 of them; their number. */
static uint32_t csv_split(const char *p, const char *e, const char *fs[CSV_COLUMNS + 1],
                          const char *fe[CSV_COLUMNS + 1]) {
    uint32_t n = 0;
    for (;;) {
        while (p < e && (*p == ' ' || *p == '\t')) p++;
        const char *q = p;
        while (q < e && *q != ',') q++;
        const char *r = q;
        while (r > p && (r[-1] == ' ' || r[-1] == '\t')) r--;
        fs[n] = p;
        fe[n] = r;
        n++;
        if (q == e || n == CSV_COLUMNS + 1) return n;
        p = q + 1;
    }
}

static bool csv_header(const csv *c, const char *p, const char *e) {
    static const char want[] = "time,x,y,width,height,extinction,co,co2,o2,hcn";
    const char *fs[CSV_COLUMNS + 1], *fe[CSV_COLUMNS + 1];
    uint32_t n = csv_split(p, e, fs, fe);
    char buf[64];
    for (uint32_t k = 0; k < n; k++) {
        size_t len = (size_t)(fe[k] - fs[k]);
        if (k == CSV_COLUMNS)
            return csv_fail(c, fs[k], "expected the header line %s, found an 11th column %s", want,
                            csv_found(c, fs[k], len, buf, sizeof buf));
        if (len != strlen(csv_column[k]) || memcmp(fs[k], csv_column[k], len) != 0)
            return csv_fail(c, fs[k], "expected the header line %s, found %s for column %u (%s)",
                            want, csv_found(c, fs[k], len, buf, sizeof buf), k + 1, csv_column[k]);
    }
    if (n < CSV_COLUMNS)
        return csv_fail(c, e, "expected the header line %s, found %u columns", want, n);
    return true;
}

static uint64_t mix(uint64_t h) {
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 33);
}

static uint64_t rect_hash(const double d[4]) {
    uint64_t h = 0;
    for (int k = 0; k < 4; k++) {
        uint64_t b;
        double v = d[k] + 0.0; /* -0 and 0 alike */
        memcpy(&b, &v, sizeof b);
        h = mix(h ^ b);
    }
    return h;
}

/* The index of rectangle d, added when new (then -2 when it makes no hazard, with `why`); -1
 * when memory runs out. */
static int64_t csv_rect_of(csv *c, const double d[4], char *why, size_t cap) {
    if ((uint64_t)c->rect_count * 2 >= c->slot_cap) {
        uint32_t n = c->slot_cap ? c->slot_cap * 2 : 1024;
        uint32_t *slot = th_calloc(n, sizeof *slot);
        if (!slot) return -1;
        for (uint32_t i = 0; i < c->rect_count; i++) {
            uint64_t j = rect_hash(c->rect[i].d) & (n - 1);
            while (slot[j]) j = (j + 1) & (n - 1);
            slot[j] = i + 1;
        }
        th_free(c->slot);
        c->slot = slot;
        c->slot_cap = n;
    }
    uint64_t j = rect_hash(d) & (c->slot_cap - 1);
    for (; c->slot[j]; j = (j + 1) & (c->slot_cap - 1)) {
        const csv_rect *r = &c->rect[c->slot[j] - 1];
        if (r->d[0] == d[0] && r->d[1] == d[1] && r->d[2] == d[2] && r->d[3] == d[3])
            return c->slot[j] - 1;
    }
    if (!rect_ok(c->s, d, why, cap)) return -2;
    if (!th_array_reserve((void **)&c->rect, sizeof *c->rect, c->rect_count, &c->rect_cap,
                          c->rect_count + 1, 64, UINT32_MAX))
        return -1;
    c->rect[c->rect_count] = (csv_rect){{d[0], d[1], d[2], d[3]}, 0, 0, 0.0f};
    c->slot[j] = c->rect_count + 1;
    return c->rect_count++;
}

/* One row of data, the line [p, e). */
static bool csv_data(csv *c, const char *p, const char *e) {
    const char *fs[CSV_COLUMNS + 1], *fe[CSV_COLUMNS + 1];
    uint32_t n = csv_split(p, e, fs, fe);
    if (n > CSV_COLUMNS)
        return csv_fail(c, fs[CSV_COLUMNS], "expected %d fields, found an 11th", CSV_COLUMNS);
    double v[CSV_COLUMNS];
    char buf[64], num[256];
    for (uint32_t k = 0; k < CSV_COLUMNS; k++) {
        if (k >= n)
            return csv_fail(c, e, "expected %d fields, found %u: %s is missing", CSV_COLUMNS, n,
                            csv_column[k]);
        size_t len = (size_t)(fe[k] - fs[k]);
        bool ok = len < sizeof num && th_scene_is_decimal(fs[k], len, false);
        if (ok) {
            memcpy(num, fs[k], len);
            num[len] = '\0';
            v[k] = strtod(num, NULL);
            ok = isfinite(v[k]) && v[k] >= 0.0 && v[k] <= csv_hi[k];
        }
        if (!ok)
            return csv_fail(c, fs[k], "expected a number in [0, %g] for %s, found %s", csv_hi[k],
                            csv_column[k], csv_found(c, fs[k], len, buf, sizeof buf));
    }
    if (c->row_count == TH_SCENE_MAX_HAZARD_ROWS)
        return csv_fail(c, p, "expected at most %u rows of data, found more",
                        TH_SCENE_MAX_HAZARD_ROWS);
    char why[400];
    int64_t id = csv_rect_of(c, v + 1, why, sizeof why);
    if (id == -1) return TH_SCENE_NOMEM(c->s, c->file, c->path, c->err, "out of memory");
    if (id == -2) return csv_fail(c, fs[1], "%s", why);
    csv_rect *r = &c->rect[id];
    if (r->count > 0 && !((float)v[0] > r->last)) {
        return csv_fail(c, fs[0],
                        "expected a time after %g s, that of this rectangle's row on line %u, "
                        "found %g s",
                        (double)r->last, r->last_line, v[0]);
    }
    if (r->count == TH_MAX_HAZARD_KEYS)
        return csv_fail(
            c, p, "expected at most %u rows (keys) for the rectangle [%g, %g, %g, %g], found more",
            TH_MAX_HAZARD_KEYS, r->d[0], r->d[1], r->d[2], r->d[3]);
    if (!th_array_reserve((void **)&c->row, sizeof *c->row, c->row_count, &c->row_cap,
                          c->row_count + 1, 1024, TH_SCENE_MAX_HAZARD_ROWS))
        return TH_SCENE_NOMEM(c->s, c->file, c->path, c->err, "out of memory");
    c->row[c->row_count++] =
        (csv_row){(uint32_t)id,
                  {(float)v[0], {(float)v[5], (float)v[6], (float)v[7], (float)v[8], (float)v[9]}}};
    r->count++;
    r->last = (float)v[0];
    r->last_line = c->line;
    return true;
}

/* The rows of the table in [t, t + len), then its rectangles added as hazards. */
static bool csv_parse(csv *c, const char *t, size_t len, uint32_t entry) {
    const char *p = t, *end = t + len;
    bool header = false;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        if (e > p && e[-1] == '\r') e--;
        c->line++;
        c->line_start = p;
        const char *q = p;
        while (q < e && (*q == ' ' || *q == '\t')) q++;
        if (q < e && *q != '#') {
            if (!(header ? csv_data(c, p, e) : csv_header(c, p, e))) return false;
            header = true;
        }
        p = nl ? nl + 1 : end;
    }
    c->line_start = p;
    if (!header) {
        c->line = 1;
        c->line_start = t;
        return csv_fail(c, t,
                        "expected the header line time,x,y,width,height,extinction,co,co2,"
                        "o2,hcn, found no line but blanks and comments");
    }
    if (c->row_count == 0) {
        c->line++;
        return csv_fail(c, p, "expected rows of data after the header, found none");
    }
    /* Each rectangle's keys together, in the order of its rows. */
    th_hazard_key *keys = th_arena_alloc(&c->s->doc.arena, (size_t)c->row_count * sizeof *keys);
    if (!keys || !reserve_hazards(c->s, c->rect_count))
        return TH_SCENE_NOMEM(c->s, c->file, c->path, c->err, "out of memory");
    uint32_t at = 0;
    for (uint32_t i = 0; i < c->rect_count; i++) {
        csv_rect *r = &c->rect[i];
        th_scene_hazard *h = &c->s->hazard[c->s->hazard_count + i];
        h->keys = keys + at;
        h->key_count = r->count;
        h->node = c->file;
        h->entry = entry;
        h->def = (th_hazard_def){(float)r->d[0], (float)r->d[1], (float)r->d[2],
                                 (float)r->d[3], h->keys,        h->key_count};
        r->count = at; /* from here: where the next key of the rectangle goes */
        at += h->key_count;
    }
    for (uint32_t j = 0; j < c->row_count; j++)
        keys[c->rect[c->row[j].rect].count++] = c->row[j].key;
    c->s->hazard_count += c->rect_count;
    return true;
}

static bool parse_file(th_scene *s, const th_ynode *file, const char *path, uint32_t entry,
                       th_error *err) {
    char name[2048];
    unsigned char *bytes;
    size_t len;
    if (!th_scene_read_file(s, file, path, "CSV", TH_SCENE_MAX_HAZARD_FILE_BYTES, &bytes, &len,
                            name, sizeof name, err))
        return false;
    csv c = {.s = s, .file = file, .path = path, .name = name, .err = err};
    c.quote = !s->allow_outside_paths || !th_scene_outside_by_name(file->text, file->len);
    bool ok = csv_parse(&c, (const char *)bytes, len, entry);
    th_free(c.rect);
    th_free(c.slot);
    th_free(c.row);
    th_free(bytes);
    return ok;
}

bool th_scene_parse_hazards(th_scene *s, const th_ynode *n, th_error *err) {
    if (!th_scene_expect(s, n, TH_Y_SEQUENCE, "hazards", err)) return false;
    if (!s->has_map && n->count > 0) {
        return FAIL(s, n, "hazards", err,
                    "hazards need a `map` (they cover its cells); this scene has open ground");
    }
    static const char *const keys[] = {"rect", "air", "keys", "file", NULL};
    static const char *const air_keys[] = {"extinction", "co", "co2", "o2", "hcn", NULL};
    for (uint32_t i = 0; i < n->count; i++) {
        const th_ynode *e = n->items[i];
        char path[64], sub[96], why[400];
        snprintf(path, sizeof path, "hazards[%u]", i);
        if (!th_scene_expect(s, e, TH_Y_MAPPING, path, err) ||
            !th_scene_known_keys(s, e, path, keys, err))
            return false;
        const th_ynode *file = th_ynode_get(e, "file");
        if (file) {
            for (int k = 0; k < 3; k++) {
                const th_ynode *other = th_ynode_get(e, keys[k]);
                if (other) {
                    return FAIL(s, other, path, err,
                                "expected `file` alone (its rows give the rectangles and their "
                                "keys), found `%s` too",
                                keys[k]);
                }
            }
            snprintf(sub, sizeof sub, "%s.file", path);
            if (!parse_file(s, file, sub, i, err)) return false;
            continue;
        }
        if (!reserve_hazards(s, 1)) return TH_SCENE_NOMEM(s, e, path, err, "out of memory");
        th_scene_hazard *h = &s->hazard[s->hazard_count];
        memset(h, 0, sizeof *h);
        h->node = e;
        h->entry = i;
        snprintf(sub, sizeof sub, "%s.rect", path);
        const th_ynode *r = th_ynode_get(e, "rect");
        if (!r)
            return TH_SCENE_MISSING(
                s, e, sub, err,
                "missing: expected [x, y, width, height] in metres (or `file: NAME.csv`)");
        double d[4];
        if (th_scene_numbers(s, r, sub, 4, 0.0, TH_MAX_WORLD_DIM, d, err) < 0) return false;
        if (!rect_ok(s, d, why, sizeof why)) return FAIL(s, r, sub, err, "%s", why);
        h->def = (th_hazard_def){(float)d[0], (float)d[1], (float)d[2], (float)d[3], NULL, 0};
        const th_ynode *air = th_ynode_get(e, "air"), *k = th_ynode_get(e, "keys");
        if (!air == !k) {
            return air ? FAIL(s, k, path, err,
                              "expected `air` (constant) or `keys` (at times), found both")
                       : TH_SCENE_MISSING(s, e, path, err,
                                          "missing: expected `air: {extinction, co, co2, o2, "
                                          "hcn}` or `keys: [{time, ...}, ...]`");
        }
        if (air) {
            snprintf(sub, sizeof sub, "%s.air", path);
            if (!th_scene_expect(s, air, TH_Y_MAPPING, sub, err) ||
                !th_scene_known_keys(s, air, sub, air_keys, err))
                return false;
            h->keys = th_arena_alloc(&s->doc.arena, sizeof *h->keys);
            if (!h->keys) return TH_SCENE_NOMEM(s, air, sub, err, "out of memory");
            h->keys[0].time = 0.0f;
            if (!parse_air(s, air, sub, &h->keys[0].air, err)) return false;
            h->key_count = 1;
        } else {
            snprintf(sub, sizeof sub, "%s.keys", path);
            if (!parse_keys(s, k, sub, h, err)) return false;
        }
        h->def.keys = h->keys;
        h->def.key_count = h->key_count;
        s->hazard_count++;
    }
    return true;
}

bool th_scene_build_hazards(th_world *w, const th_scene *s, th_error *err) {
    char path[64];
    for (uint32_t i = 0; i < s->hazard_count; i++) {
        if (!th_world_add_hazard(w, &s->hazard[i].def, err)) {
            const th_scene_hazard *h = &s->hazard[i];
            snprintf(path, sizeof path, "hazards[%u]%s", h->entry,
                     h->node->kind == TH_Y_SCALAR ? ".file" : "");
            return th_scene_refused(s, h->node, path, err);
        }
    }
    return true;
}
