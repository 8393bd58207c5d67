/* Filling a th_error: every failing call of the library describes what went wrong here. */
#include <stdarg.h>
#include <stdio.h>

#include "sim/core/error.h"

void th_error_set(th_error *err, th_error_code code, const char *fmt, ...) {
    if (!err) return;
    err->code = code;
    err->line = 0;
    err->column = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
}

/* Both lookups are switches generated from the one table, so a code added there has its name
 * and meaning everywhere, and a value outside it still gets a string. */
const char *th_error_code_name(th_error_code code) {
    switch (code) {
#define TH_ERROR_NAME_(name, value, meaning) \
    case name: return #name;
        TH_ERROR_CODES(TH_ERROR_NAME_)
#undef TH_ERROR_NAME_
    }
    return "TH_ERR_UNKNOWN";
}

const char *th_error_code_message(th_error_code code) {
    switch (code) {
#define TH_ERROR_MESSAGE_(name, value, meaning) \
    case name: return meaning;
        TH_ERROR_CODES(TH_ERROR_MESSAGE_)
#undef TH_ERROR_MESSAGE_
    }
    return "unknown error code";
}
