// SPDX-License-Identifier: MIT
/* The run-time version query: the version of the library a program runs
 * with, which a program built against one header may compare with that
 * header's TS_VERSION_* macros (a shared library swapped underneath it). */
#include "tessera/tessera.h"

const char *ts_version(void) { return TS_VERSION_STRING; }

int ts_version_number(void) { return TS_VERSION_NUMBER; }
