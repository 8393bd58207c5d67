/* A YAML document as a small tree with source positions, built from libyaml's event stream.
 *
 * libyaml's own document loader was rejected: it resolves aliases into shared nodes (a
 * "billion laughs" file would make any tree walk exponential) and keeps no depth bound. Here
 * anchors and aliases are refused, and the file size, nesting depth and node count are
 * bounded, so a hostile file fails with an error instead of exhausting memory or the stack. */
#ifndef TH_YDOC_H
#define TH_YDOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/arena.h"
#include "throng/throng.h"

/** Bounds on a scene file. */
#define TH_YDOC_MAX_BYTES (64u << 20) /* 64 MiB */
#define TH_YDOC_MAX_DEPTH 64
#define TH_YDOC_MAX_NODES (4u << 20)

typedef enum th_ynode_kind { TH_Y_SCALAR, TH_Y_SEQUENCE, TH_Y_MAPPING } th_ynode_kind;

typedef struct th_ynode th_ynode;
struct th_ynode {
    th_ynode_kind kind;
    uint32_t line, column; /* 1-based position of the node's first character */
    bool quoted;           /* a scalar written in quotes (or as a block): always a string */
    const char *text;      /* scalar text, NUL-terminated (it may also contain NULs: see len) */
    size_t len;
    th_ynode **items; /* sequence: count items; mapping: count keys, then values at [count + i] */
    uint32_t count;
};

typedef struct th_ydoc {
    th_arena arena;
    th_ynode *root;   /* NULL for an empty file */
    const char *path; /* as given to th_ydoc_load */
    char *source;     /* the file's bytes, NUL-terminated (for pointing into lines) */
    size_t source_len;
} th_ydoc;

/** Parse the YAML file at `path`. On failure fills `err` with "path:line:column: what" and
 *  returns false (the doc is then empty and safe to free). */
bool th_ydoc_load(th_ydoc *doc, const char *path, th_error *err);

/** Parse `len` bytes of YAML at `data` (copied) as if read from a file called `name`, which
 *  messages name and which must outlive the doc. Same bounds and errors as th_ydoc_load. */
bool th_ydoc_load_memory(th_ydoc *doc, const char *name, const void *data, size_t len,
                         th_error *err);

/** Free everything the document holds. */
void th_ydoc_free(th_ydoc *doc);

/** Value of `key` in a mapping, or NULL. */
const th_ynode *th_ynode_get(const th_ynode *map, const char *key);

/** Key node i and value node i of a mapping. */
static inline const th_ynode *th_ynode_key(const th_ynode *map, uint32_t i) {
    return map->items[i];
}
static inline const th_ynode *th_ynode_value(const th_ynode *map, uint32_t i) {
    return map->items[map->count + i];
}

/** Length in bytes of the character at t[0, len) when it must not reach a terminal raw, else
 *  0: a C0 control, DEL, a C1 control (U+0080 to U+009F, e.g. CSI), a bidirectional override
 *  or isolate (U+202A to U+202E, U+2066 to U+2069), or a byte that does not start a valid
 *  UTF-8 character. `len` must be at least 1. */
size_t th_text_unsafe(const char *t, size_t len);

/** Whether all of t[0, len) may be printed raw (no character th_text_unsafe names). */
bool th_text_safe(const char *t, size_t len);

/* th_text_escape (include/throng/throng.h) escapes each character th_text_unsafe names; every
 * message quoting a file goes through it. */

/** Text of source line `line` (1-based) and its length, or NULL past the end. */
const char *th_ydoc_line(const th_ydoc *doc, uint32_t line, size_t *len);

#endif
