/* Errors: what a failing call of the library reports (included by throng/throng.h).
 *
 * Every function that can fail takes a th_error * (NULL when not wanted) and fills it on failure
 * with a code a host program can act on, a message a person can read and, for a scene file, the
 * place in the file. On success it is left as it was.
 *
 * The codes come from one table, TH_ERROR_CODES, which also gives each its name and a one-line
 * meaning (th_error_code_name, th_error_code_message). The set is small on purpose: a code says
 * what kind of thing went wrong, the message says which value, key or handle and why. */
#ifndef THRONG_ERROR_H
#define THRONG_ERROR_H

#include <stdint.h>

#include "api.h"

#ifdef __cplusplus
extern "C" {
#endif

/** X(NAME, value, meaning): every code, in order. Values are stable once published. */
#define TH_ERROR_CODES(X)                                                                          \
    X(TH_OK, 0, "no error")                                                                        \
    X(TH_ERR_NOMEM, 1, "out of memory")                                                            \
    X(TH_ERR_INVALID, 2,                                                                           \
      "an argument is out of range, not finite, unknown or contradicts another")                   \
    X(TH_ERR_HANDLE, 3, "no such crowd, agent, target, squad, bunker, field or other handle")      \
    X(TH_ERR_STATE, 4,                                                                             \
      "not possible in the world's state: during a step, after the first step, or without "        \
      "the map or part the call needs")                                                            \
    X(TH_ERR_LIMIT, 5, "a fixed bound is reached (a TH_MAX_* limit, or the room the caller gave)") \
    X(TH_ERR_BLOCKED, 6, "a position or cell is in a wall or a bunker, or outside the world")      \
    X(TH_ERR_UNREACHABLE, 7, "no route joins the places")                                          \
    X(TH_ERR_IO, 8, "a file could not be opened, read or written")                                 \
    X(TH_ERR_SYSTEM, 9, "the system refused a resource other than memory: threads, a renderer")    \
    X(TH_ERR_SCENE_SYNTAX, 10,                                                                     \
      "the scene file is not YAML a scene can be (invalid YAML, anchors, too large or deep)")      \
    X(TH_ERR_SCENE_KEY, 11, "a scene key is not one the format knows")                             \
    X(TH_ERR_SCENE_MISSING, 12, "a scene key that is required is missing")                         \
    X(TH_ERR_SCENE_VALUE, 13, "a scene value has the wrong type, is out of range or conflicts")    \
    X(TH_ERR_SCENE_IMAGE, 14, "a map image cannot be decoded or has a colour the legend lacks")

typedef enum th_error_code {
#define TH_ERROR_ENUM_(name, value, meaning) name = value,
    TH_ERROR_CODES(TH_ERROR_ENUM_)
#undef TH_ERROR_ENUM_
} th_error_code;

/** Error detail filled by functions that can fail (pass NULL when not wanted). */
typedef struct th_error {
    th_error_code code;    /* what kind of failure (TH_OK only before one) */
    uint32_t line, column; /* scene errors: the place in the file, 1-based; 0 for others */
    char message[512];     /* what failed and why, for a person; scene errors begin
                              "FILE:LINE:COLUMN: KEY: " */
} th_error;

/** The code's name as written in C ("TH_ERR_NOMEM"); "TH_ERR_UNKNOWN" for a value not in the
 *  table. Never NULL. */
TH_API const char *th_error_code_name(th_error_code code);

/** The code's one-line meaning ("out of memory, ..."); "unknown error code" for a value not in
 *  the table. Never NULL. */
TH_API const char *th_error_code_message(th_error_code code);

#ifdef __cplusplus
}
#endif

#endif
