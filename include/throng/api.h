/* TH_API marks what the throng libraries export: built as shared objects they hide every other
 * symbol (-fvisibility=hidden), so only the functions declared in include/throng/ are there to
 * link against. A static library keeps them all; the mark changes nothing there. */
#ifndef THRONG_API_H
#define THRONG_API_H

#if defined(__GNUC__) || defined(__clang__)
#define TH_API __attribute__((visibility("default")))
#else
#define TH_API
#endif

#endif
