/* The library's version (throng/version.h): the numbers this copy of the library was built
 * with, to compare with the TH_VERSION_* macros a program was compiled with. */
#include "throng/version.h"

const char *th_version(void) { return TH_VERSION_STRING; }

int th_version_number(void) { return TH_VERSION_NUMBER; }
