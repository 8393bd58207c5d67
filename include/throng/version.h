/* The version of the throng headers a program was compiled with (included by throng/throng.h),
 * and th_version(), the version of the library it runs with. They differ when a program built
 * against one release runs with another's shared library.
 *
 *     #if TH_VERSION_NUMBER >= TH_MAKE_VERSION(0, 2, 0)
 *     ...
 *     #endif
 *
 * CMakeLists.txt refuses to configure when these numbers are not the project's version. */
#ifndef THRONG_VERSION_H
#define THRONG_VERSION_H

#include "api.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TH_VERSION_MAJOR                     0
#define TH_VERSION_MINOR                     1
#define TH_VERSION_PATCH                     0
/** "MAJOR.MINOR.PATCH". */
#define TH_VERSION_STRING                    "0.1.0"
/** One number that orders versions: MAJOR * 10000 + MINOR * 100 + PATCH. */
#define TH_MAKE_VERSION(major, minor, patch) ((major)*10000 + (minor)*100 + (patch))
#define TH_VERSION_NUMBER                    TH_MAKE_VERSION(TH_VERSION_MAJOR, TH_VERSION_MINOR, TH_VERSION_PATCH)

/** The library's version, "MAJOR.MINOR.PATCH" (TH_VERSION_STRING as the library was built).
 *  Never NULL. */
TH_API const char *th_version(void);

/** The library's version as TH_VERSION_NUMBER (as the library was built). */
TH_API int th_version_number(void);

#ifdef __cplusplus
}
#endif

#endif
