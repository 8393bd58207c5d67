#include "ydoc.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <yaml.h>

#include "../engine/alloc.h"
#include "world_internal.h"

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

static bool fail_at(builder *b, yaml_mark_t m, const char *what) {
    th_error_set(b->err, "%s:%zu:%zu: %s", b->doc->path, m.line + 1, m.column + 1, what);
    return false;
}

static bool add_child(builder *b, th_ynode *n, yaml_mark_t m) {
    if (++b->nodes > TH_YDOC_MAX_NODES) return fail_at(b, m, "more than 4,194,304 YAML nodes");
    if (b->depth == 0) {
        if (b->doc->root) return fail_at(b, m, "a second YAML document; a scene is one document");
        b->doc->root = n;
        return true;
    }
    open_node *o = &b->stack[b->depth - 1];
    if (o->count == o->capacity) {
        uint32_t cap = o->capacity ? o->capacity * 2 : 8;
        th_ynode **k = th_alloc(cap * sizeof *k);
        if (!k) return fail_at(b, m, "out of memory");
        if (o->count) memcpy(k, o->kids, o->count * sizeof *k);
        th_free(o->kids);
        o->kids = k;
        o->capacity = cap;
    }
    o->kids[o->count++] = n;
    return true;
}

static th_ynode *new_node(builder *b, th_ynode_kind kind, yaml_mark_t m) {
    th_ynode *n = th_arena_alloc(&b->doc->arena, sizeof *n);
    if (!n) {
        fail_at(b, m, "out of memory (the scene is too large)");
        return NULL;
    }
    n->kind = kind;
    n->line = (uint32_t)m.line + 1;
    n->column = (uint32_t)m.column + 1;
    return n;
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
        if (!n->items) ok = fail_at(b, m, "out of memory (the scene is too large)");
    }
    if (ok && n->kind == TH_Y_MAPPING) {
        for (uint32_t i = 0; i < n->count && ok; i++) {
            th_ynode *key = o->kids[2 * i];
            if (key->kind != TH_Y_SCALAR) {
                yaml_mark_t km = {0, key->line - 1, key->column - 1};
                ok = fail_at(b, km, "mapping keys must be plain names");
                break;
            }
            for (uint32_t j = 0; j < i; j++) {
                const th_ynode *other = n->items[j];
                if (other->len == key->len && memcmp(other->text, key->text, key->len) == 0) {
                    char msg[160];
                    snprintf(msg, sizeof msg, "duplicate key '%.60s' (first at line %u)",
                             key->text, other->line);
                    yaml_mark_t km = {0, key->line - 1, key->column - 1};
                    ok = fail_at(b, km, msg);
                    break;
                }
            }
            n->items[i] = key;
            n->items[n->count + i] = o->kids[2 * i + 1];
        }
    } else if (ok) {
        memcpy(n->items, o->kids, o->count * sizeof *n->items);
    }
    th_free(o->kids);
    o->kids = NULL;
    return ok;
}

static bool read_file(th_ydoc *doc, th_error *err) {
    FILE *f = fopen(doc->path, "rb");
    if (!f) {
        th_error_set(err, "%s: cannot open: %s", doc->path, strerror(errno));
        return false;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = th_alloc(cap);
    bool ok = buf != NULL;
    while (ok) {
        if (len + 1 == cap) {
            if (cap > TH_YDOC_MAX_BYTES) {
                th_error_set(err, "%s: larger than %u bytes", doc->path, TH_YDOC_MAX_BYTES);
                ok = false;
                break;
            }
            char *bigger = th_alloc(cap * 2);
            if (!bigger) {
                ok = false;
                break;
            }
            memcpy(bigger, buf, len);
            th_free(buf);
            buf = bigger;
            cap *= 2;
        }
        size_t got = fread(buf + len, 1, cap - 1 - len, f);
        len += got;
        if (got == 0) {
            if (ferror(f)) {
                th_error_set(err, "%s: read error", doc->path);
                ok = false;
            }
            break;
        }
    }
    fclose(f);
    if (!ok) {
        if (buf && err && !err->message[0]) th_error_set(err, "%s: out of memory", doc->path);
        th_free(buf);
        return false;
    }
    buf[len] = '\0';
    doc->source = buf;
    doc->source_len = len;
    return true;
}

bool th_ydoc_load(th_ydoc *doc, const char *path, th_error *err) {
    memset(doc, 0, sizeof *doc);
    doc->path = path;
    doc->arena = th_arena_make((size_t)TH_YDOC_MAX_BYTES * 4);
    if (err) err->message[0] = '\0';
    if (!read_file(doc, err)) return false;

    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        th_error_set(err, "%s: out of memory", path);
        return false;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)doc->source, doc->source_len);
    builder b = {.doc = doc, .err = err};
    bool ok = true, done = false;
    while (ok && !done) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev)) {
            char msg[300];
            snprintf(msg, sizeof msg, "invalid YAML: %s%s%s", parser.problem ? parser.problem : "?",
                     parser.context ? " " : "", parser.context ? parser.context : "");
            ok = fail_at(&b, parser.problem_mark, msg);
            break;
        }
        yaml_mark_t m = ev.start_mark;
        switch (ev.type) {
        case YAML_STREAM_END_EVENT:
            done = true;
            break;
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
                         : fail_at(&b, m, "out of memory (the scene is too large)");
            break;
        }
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT: {
            bool seq = ev.type == YAML_SEQUENCE_START_EVENT;
            if (seq ? ev.data.sequence_start.anchor != NULL : ev.data.mapping_start.anchor != NULL) {
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
        case YAML_MAPPING_END_EVENT:
            ok = close_node(&b, m);
            break;
        default: /* stream/document start and end carry nothing we keep */
            break;
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
