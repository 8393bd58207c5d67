/* Chrome trace-event output for th_world_trace_spans (bench/trace.c). */
#ifndef TH_BENCH_TRACE_H
#define TH_BENCH_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "throng/throng.h"

/** Write `count` spans of a world with `workers` workers to `out` as a Chrome trace-event
 *  JSON object: one track per worker ("tid" = worker index, named by thread_name metadata) and
 *  one complete ("X") event per span, named after its phase, with its step in "args". Times
 *  are microseconds from the earliest span. `title` names the process track. Opens in
 *  https://ui.perfetto.dev and chrome://tracing. Returns false when a write fails. */
bool th_bench_write_trace(FILE *out, const th_trace_span *spans, uint32_t count, uint32_t workers,
                          const char *title);

/** Write `s` as a JSON string literal, quotes included. */
void th_bench_json_string(FILE *out, const char *s);

#endif
