#include "sim/scene/ydoc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "engine/alloc.h"
#include "sim/core/error.h"
#include "sim/scene/scene_internal.h" /* th_ydoc_load_memory */

/* Nodes under construction: a stack of open collections with their children gathered in a
 * growable list, moved into the arena when the collection closes. */
typedef struct open_node {
    th_ynode *node;
    th_ynode **kids;
    uint32_t count, capacity;
} open_node;

typedef struct builder {
    th_ydoc *doc;
    th_error *err;
    open_node stack[TH_YDOC_MAX_DEPTH + 1];
    int depth;
    uint32_t nodes;
} builder;

static bool fail_code(builder *b, yaml_mark_t m, th_error_code code, const char *what) {
    th_error_set(b->err, code, "%s:%zu:%zu: %s", b->doc->path, m.line + 1, m.column + 1, what);
    th_error_place(b->err, (uint32_t)m.line + 1, (uint32_t)m.column + 1);
    return false;
}

/* Text that is not YAML a scene can be: invalid YAML, anchors, past a bound. */
static bool fail_at(builder *b, yaml_mark_t m, const char *what) {
    return fail_code(b, m, TH_ERR_SCENE_SYNTAX, what);
}

static bool fail_nomem(builder *b, yaml_mark_t m, const char *what) {
    return fail_code(b, m, TH_ERR_NOMEM, what);
}

static bool add_child(builder *b, th_ynode *n, yaml_mark_t m) {
    if (++b->nodes > TH_YDOC_MAX_NODES) return fail_at(b, m, "more than 4,194,304 YAML nodes");
    if (b->depth == 0) {
        if (b->doc->root) return fail_at(b, m, "a second YAML document; a scene is one document");
        b->doc->root = n;
        return true;
    }
    open_node *o = &b->stack[b->depth - 1];
    if (!th_array_reserve((void **)&o->kids, sizeof *o->kids, o->count, &o->capacity, o->count + 1,
                          8, UINT32_MAX))
        return fail_nomem(b, m, "out of memory");
    o->kids[o->count++] = n;
    return true;
}

static th_ynode *new_node(builder *b, th_ynode_kind kind, yaml_mark_t m) {
    th_ynode *n = th_arena_alloc(&b->doc->arena, sizeof *n);
    if (!n) {
        fail_nomem(b, m, "out of memory (the scene is too large)");
        return NULL;
    }
    n->kind = kind;
    n->line = (uint32_t)m.line + 1;
    n->column = (uint32_t)m.column + 1;
    return n;
}

/* Orders mapping keys by text, then by position in the mapping, so that equal keys sit side by
 * side with their first occurrence leading. */
typedef struct key_ref {
    const th_ynode *key;
    uint32_t index;
} key_ref;

static int key_ref_cmp(const void *pa, const void *pb) {
    const key_ref *a = pa, *b = pb;
    size_t n = a->key->len < b->key->len ? a->key->len : b->key->len;
    int c = memcmp(a->key->text, b->key->text, n);
    if (c) return c;
    if (a->key->len != b->key->len) return a->key->len < b->key->len ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

static bool same_text(const th_ynode *a, const th_ynode *b) {
    return a->len == b->len && memcmp(a->text, b->text, a->len) == 0;
}

size_t th_text_unsafe(const char *t, size_t len) {
    const unsigned char *u = (const unsigned char *)t;
    if (u[0] < 0x20 || u[0] == 0x7f) return 1;
    if (u[0] < 0x80) return 0;
    /* The decoded code point, or 1 for a byte that starts no valid UTF-8 character (which a
     * terminal may read as an 8-bit C1 control). */
    size_t n = u[0] >= 0xf0 ? 4 : u[0] >= 0xe0 ? 3 : u[0] >= 0xc2 ? 2 : 0;
    if (n == 0 || n > len || u[0] > 0xf4) return 1;
    uint32_t cp = u[0] & (0x7f >> n);
    for (size_t i = 1; i < n; i++) {
        if ((u[i] & 0xc0) != 0x80) return 1;
        cp = cp << 6 | (u[i] & 0x3f);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
        (cp >= 0xd800 && cp <= 0xdfff)) {
        return 1; /* overlong or a surrogate */
    }
    if (cp <= 0x9f || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069)) return n;
    return 0;
}

bool th_text_safe(const char *t, size_t len) {
    for (size_t i = 0; i < len;) {
        if (th_text_unsafe(t + i, len - i)) return false;
        unsigned char c = (unsigned char)t[i];
        i += c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
    }
    return true;
}

char *th_text_escape(char *out, size_t cap, const char *t, size_t len) {
    if (!out) return NULL;
    if (!t) len = 0;
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        size_t bad = th_text_unsafe(t + i, len - i);
        char esc[8];
        size_t step, w;
        if (bad == 1) {
            w = (size_t)snprintf(esc, sizeof esc, "\\x%02x", (unsigned char)t[i]);
            step = 1;
        } else if (bad) {
            uint32_t cp = bad == 2 ? ((uint32_t)(t[i] & 0x1f) << 6 | (t[i + 1] & 0x3f))
                                   : ((uint32_t)(t[i] & 0x0f) << 12 |
                                      (uint32_t)(t[i + 1] & 0x3f) << 6 | (t[i + 2] & 0x3f));
            w = (size_t)snprintf(esc, sizeof esc, "\\u%04x", (unsigned)cp);
            step = bad;
        } else {
            /* A whole safe character, copied as it is (never split). */
            unsigned char c = (unsigned char)t[i];
            step = c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
            memcpy(esc, t + i, step);
            w = step;
        }
        if (o + w + 1 > cap) break;
        memcpy(out + o, esc, w);
        o += w;
        i += step;
    }
    if (cap) out[o < cap ? o : cap - 1] = '\0';
    return out;
}

/* A key as it reads in a message: at most 60 bytes, escaped so a hostile key cannot write
 * escape sequences to a terminal. */
static void printable_key(const th_ynode *key, char *out, size_t cap) {
    size_t n = key->len > 60 ? 60 : key->len;
    while (n < key->len && n > 0 && ((unsigned char)key->text[n] & 0xc0) == 0x80) n--;
    th_text_escape(out, cap - 3, key->text, n);
    if (key->len > n) strcat(out, "...");
}

/* The first key (in file order) that repeats an earlier one, or -1. Sorting instead of
 * comparing every pair: a mapping may hold millions of keys, and a pairwise check of those
 * would run for hours. */
static int64_t duplicate_key(builder *b, th_ynode **kids, uint32_t count, uint32_t *first, bool *ok,
                             yaml_mark_t m) {
    if (count < 2) return -1;
    key_ref *refs = th_alloc(count * sizeof *refs);
    if (!refs) {
        *ok = fail_nomem(b, m, "out of memory");
        return -1;
    }
    for (uint32_t i = 0; i < count; i++) refs[i] = (key_ref){kids[2 * i], i};
    qsort(refs, count, sizeof *refs, key_ref_cmp);
    int64_t dup = -1;
    for (uint32_t i = 0; i + 1 < count; i++) {
        /* A run of equal keys starts with the first occurrence; the next one is its repeat. */
        bool starts_run = i == 0 || !same_text(refs[i - 1].key, refs[i].key);
        if (starts_run && same_text(refs[i].key, refs[i + 1].key) &&
            (dup < 0 || refs[i + 1].index < (uint32_t)dup)) {
            dup = refs[i + 1].index;
            *first = refs[i].index;
        }
    }
    th_free(refs);
    return dup;
}

/* Close the innermost collection: a mapping's children alternate key, value; store keys
 * first, then values, and refuse duplicate keys. */
static bool close_node(builder *b, yaml_mark_t m) {
    open_node *o = &b->stack[--b->depth];
    th_ynode *n = o->node;
    bool ok = true;
    if (n->kind == TH_Y_MAPPING) n->count = o->count / 2;
    else n->count = o->count;
    if (o->count) {
        n->items = th_arena_alloc(&b->doc->arena, o->count * sizeof *n->items);
        if (!n->items) ok = fail_nomem(b, m, "out of memory (the scene is too large)");
    }
    if (ok && n->kind == TH_Y_MAPPING) {
        for (uint32_t i = 0; i < n->count && ok; i++) {
            th_ynode *key = o->kids[2 * i];
            if (key->kind != TH_Y_SCALAR) {
                yaml_mark_t km = {0, key->line - 1, key->column - 1};
                ok = fail_at(b, km, "mapping keys must be plain names");
                break;
            }
            n->items[i] = key;
            n->items[n->count + i] = o->kids[2 * i + 1];
        }
        uint32_t first = 0;
        int64_t dup = ok ? duplicate_key(b, o->kids, n->count, &first, &ok, m) : -1;
        if (dup >= 0) {
            const th_ynode *key = n->items[dup];
            char shown[256], msg[320];
            printable_key(key, shown, sizeof shown);
            snprintf(msg, sizeof msg, "duplicate key '%s' (first at line %u)", shown,
                     n->items[first]->line);
            yaml_mark_t km = {0, key->line - 1, key->column - 1};
            ok = fail_at(b, km, msg);
        }
    } else if (ok && o->count) { /* an empty list has no items array, and memcpy wants one */
        memcpy(n->items, o->kids, o->count * sizeof *n->items);
    }
    th_free(o->kids);
    o->kids = NULL;
    return ok;
}

static bool too_large(const char *path, th_error *err) {
    th_error_set(err, TH_ERR_SCENE_SYNTAX,
                 "%s:1:1: expected a scene of at most %u bytes (64 MiB), found a larger file", path,
                 TH_YDOC_MAX_BYTES);
    th_error_place(err, 1, 1);
    return false;
}

/* The whole file, NUL-terminated. Reads at most one byte past the bound, so a huge file costs
 * no more than the bound. Opened without blocking and checked before reading: a FIFO would
 * block open() until a writer came, and a device or /dev/stdin never ends, so anything but a
 * regular file is refused at once. */
static bool read_file(th_ydoc *doc, th_error *err) {
    int fd = open(doc->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        th_error_set(err, TH_ERR_IO, "%s: cannot open: %s", doc->path, strerror(errno));
        return false;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        th_error_set(err, TH_ERR_IO, "%s: cannot open: %s", doc->path, strerror(errno));
        close(fd);
        return false;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        th_error_set(err, TH_ERR_IO, "%s:1:1: expected a regular file, found %s", doc->path,
                     S_ISDIR(st.st_mode)                          ? "a directory"
                     : S_ISFIFO(st.st_mode)                       ? "a FIFO"
                     : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                                                                  : "a socket or special file");
        th_error_place(err, 1, 1);
        return false;
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        th_error_set(err, TH_ERR_IO, "%s: cannot open: %s", doc->path, strerror(errno));
        close(fd);
        return false;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = th_alloc(cap);
    bool ok = buf != NULL, big = false;
    while (ok) {
        if (len + 1 == cap) {
            if (len > TH_YDOC_MAX_BYTES) {
                big = true;
                break;
            }
            size_t grown =
                cap * 2 > (size_t)TH_YDOC_MAX_BYTES + 2 ? (size_t)TH_YDOC_MAX_BYTES + 2 : cap * 2;
            char *bigger = th_alloc(grown);
            if (!bigger) {
                ok = false;
                break;
            }
            memcpy(bigger, buf, len);
            th_free(buf);
            buf = bigger;
            cap = grown;
        }
        size_t got = fread(buf + len, 1, cap - 1 - len, f);
        len += got;
        if (got == 0) {
            if (ferror(f)) {
                th_error_set(err, TH_ERR_IO, "%s: read error: %s", doc->path, strerror(errno));
                ok = false;
            }
            break;
        }
    }
    fclose(f);
    if (ok && (big || len > TH_YDOC_MAX_BYTES)) ok = too_large(doc->path, err);
    if (!ok) {
        if (err && !err->message[0])
            th_error_set(err, TH_ERR_NOMEM, "%s: out of memory", doc->path);
        th_free(buf);
        return false;
    }
    buf[len] = '\0';
    doc->source = buf;
    doc->source_len = len;
    return true;
}

/* Build the tree from doc->source. */
/* Line and column (from 0, the column in characters, as libyaml counts them) of byte
 * `offset` of the source: libyaml's reader reports a byte that is not text by its offset. */
static yaml_mark_t mark_of(const th_ydoc *doc, size_t offset) {
    yaml_mark_t m = {.index = offset};
    if (offset > doc->source_len) offset = doc->source_len;
    for (size_t i = 0; i < offset; i++) {
        const unsigned char c = (unsigned char)doc->source[i];
        if (c == '\n') {
            m.line++;
            m.column = 0;
        } else if ((c & 0xC0) != 0x80) { /* not a continuation byte: a new character */
            m.column++;
        }
    }
    return m;
}

static bool parse_source(th_ydoc *doc, th_error *err) {
    const char *path = doc->path;
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        th_error_set(err, TH_ERR_NOMEM, "%s: out of memory", path);
        return false;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)doc->source, doc->source_len);
    builder b = {.doc = doc, .err = err};
    bool ok = true, done = false;
    while (ok && !done) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev)) {
            char msg[300];
            if (parser.error == YAML_READER_ERROR) { /* a byte that is not text: no mark */
                snprintf(msg, sizeof msg, "invalid YAML: %s (byte 0x%02X)",
                         parser.problem ? parser.problem : "?",
                         parser.problem_offset < doc->source_len
                             ? (unsigned char)doc->source[parser.problem_offset]
                             : 0u);
                ok = fail_at(&b, mark_of(doc, parser.problem_offset), msg);
                break;
            }
            snprintf(msg, sizeof msg, "invalid YAML: %s%s%s", parser.problem ? parser.problem : "?",
                     parser.context ? " " : "", parser.context ? parser.context : "");
            ok = fail_at(&b, parser.problem_mark, msg);
            break;
        }
        yaml_mark_t m = ev.start_mark;
        switch (ev.type) {
        case YAML_STREAM_END_EVENT: done = true; break;
        case YAML_ALIAS_EVENT:
            ok = fail_at(&b, m, "YAML aliases (*name) are not supported in scenes");
            break;
        case YAML_SCALAR_EVENT: {
            if (ev.data.scalar.anchor) {
                ok = fail_at(&b, m, "YAML anchors (&name) are not supported in scenes");
                break;
            }
            th_ynode *n = new_node(&b, TH_Y_SCALAR, m);
            ok = n != NULL;
            if (!ok) break;
            n->len = ev.data.scalar.length;
            n->text = th_arena_strndup(&doc->arena, (const char *)ev.data.scalar.value, n->len);
            n->quoted = ev.data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
            ok = n->text ? add_child(&b, n, m)
                         : fail_nomem(&b, m, "out of memory (the scene is too large)");
            break;
        }
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT: {
            bool seq = ev.type == YAML_SEQUENCE_START_EVENT;
            if (seq ? ev.data.sequence_start.anchor != NULL
                    : ev.data.mapping_start.anchor != NULL) {
                ok = fail_at(&b, m, "YAML anchors (&name) are not supported in scenes");
                break;
            }
            if (b.depth == TH_YDOC_MAX_DEPTH) {
                ok = fail_at(&b, m, "nested more than 64 levels deep");
                break;
            }
            th_ynode *n = new_node(&b, seq ? TH_Y_SEQUENCE : TH_Y_MAPPING, m);
            ok = n && add_child(&b, n, m);
            if (ok) b.stack[b.depth++] = (open_node){.node = n};
            break;
        }
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT: ok = close_node(&b, m); break;
        default: /* stream/document start and end carry nothing we keep */ break;
        }
        yaml_event_delete(&ev);
    }
    for (int i = 0; i < b.depth; i++) th_free(b.stack[i].kids);
    yaml_parser_delete(&parser);
    if (!ok) {
        th_ydoc_free(doc);
        doc->path = path;
    }
    return ok;
}

static void start(th_ydoc *doc, const char *path, th_error *err) {
    memset(doc, 0, sizeof *doc);
    doc->path = path;
    /* Room for the node bound to be the one that trips: each node takes 48 bytes, its text at
     * least 16 more and a slot in its parent's item array 8; the text itself is at most the
     * file's size. */
    doc->arena = th_arena_make((size_t)TH_YDOC_MAX_BYTES * 2 + (size_t)TH_YDOC_MAX_NODES * 80);
    if (err) *err = (th_error){TH_OK, 0, 0, ""};
}

bool th_ydoc_load(th_ydoc *doc, const char *path, th_error *err) {
    start(doc, path, err);
    return read_file(doc, err) && parse_source(doc, err);
}

bool th_ydoc_load_memory(th_ydoc *doc, const char *name, const void *data, size_t len,
                         th_error *err) {
    start(doc, name, err);
    if (len > TH_YDOC_MAX_BYTES) return too_large(name, err);
    doc->source = th_alloc(len + 1);
    if (!doc->source) {
        th_error_set(err, TH_ERR_NOMEM, "%s: out of memory", name);
        return false;
    }
    if (len) memcpy(doc->source, data, len);
    doc->source[len] = '\0';
    doc->source_len = len;
    return parse_source(doc, err);
}

void th_ydoc_free(th_ydoc *doc) {
    th_arena_free(&doc->arena);
    th_free(doc->source);
    doc->source = NULL;
    doc->root = NULL;
}

const th_ynode *th_ynode_get(const th_ynode *map, const char *key) {
    if (!map || map->kind != TH_Y_MAPPING) return NULL;
    size_t len = strlen(key);
    for (uint32_t i = 0; i < map->count; i++) {
        const th_ynode *k = map->items[i];
        if (k->len == len && memcmp(k->text, key, len) == 0) return map->items[map->count + i];
    }
    return NULL;
}

const char *th_ydoc_line(const th_ydoc *doc, uint32_t line, size_t *len) {
    const char *p = doc->source, *end = doc->source + doc->source_len;
    for (uint32_t l = 1; l < line && p < end; l++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) return NULL;
        p = nl + 1;
    }
    if (!p || p >= end) return NULL;
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    *len = (size_t)((nl ? nl : end) - p);
    return p;
}
