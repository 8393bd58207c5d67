/* Chrome trace-event writer.
 *
 * The JSON object form ({"traceEvents": [...]}) is used rather than the bare array form: it
 * carries displayTimeUnit, and both viewers accept it. Spans become complete events ("ph":"X",
 * begin and duration) rather than begin/end pairs: half the events, and nothing to mismatch
 * when the recording buffer filled up in the middle of a step. */
#include "trace.h"

#include <inttypes.h>

void th_bench_json_string(FILE *out, const char *s) {
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') fprintf(out, "\\%c", *p);
        else if (*p < 0x20) fprintf(out, "\\u%04x", *p);
        else fputc(*p, out);
    }
    fputc('"', out);
}

/* Nanoseconds as microseconds with three decimals: exact, and free of floating-point noise. */
static void put_us(FILE *out, uint64_t ns) {
    fprintf(out, "%" PRIu64 ".%03u", ns / 1000u, (unsigned)(ns % 1000u));
}

bool th_bench_write_trace(FILE *out, const th_trace_span *spans, uint32_t count, uint32_t workers,
                          const char *title) {
    uint64_t t0 = UINT64_MAX;
    for (uint32_t i = 0; i < count; i++) {
        if (spans[i].begin_ns < t0) t0 = spans[i].begin_ns;
    }
    fputs("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n", out);
    fputs("{\"ph\":\"M\",\"pid\":1,\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":", out);
    th_bench_json_string(out, title);
    fputs("}}", out);
    for (uint32_t k = 0; k < workers; k++) {
        fprintf(out,
                ",\n{\"ph\":\"M\",\"pid\":1,\"tid\":%u,\"name\":\"thread_name\","
                "\"args\":{\"name\":\"worker %u%s\"}}",
                k, k, k == 0 ? " (stepping thread)" : "");
        fprintf(out,
                ",\n{\"ph\":\"M\",\"pid\":1,\"tid\":%u,\"name\":\"thread_sort_index\","
                "\"args\":{\"sort_index\":%u}}",
                k, k);
    }
    for (uint32_t i = 0; i < count; i++) {
        const th_trace_span *s = &spans[i];
        fprintf(out,
                ",\n{\"ph\":\"X\",\"pid\":1,\"tid\":%u,\"cat\":\"phase\",\"name\":\"%s\",\"ts\":",
                s->worker, th_phase_name(s->phase));
        put_us(out, s->begin_ns - t0);
        fputs(",\"dur\":", out);
        put_us(out, s->end_ns - s->begin_ns);
        fprintf(out, ",\"args\":{\"step\":%" PRIu64 "}}", s->step);
    }
    fputs("\n]}\n", out);
    return !ferror(out);
}
