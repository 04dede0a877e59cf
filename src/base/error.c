/* The thread-local "last error" message behind ts_last_error(). This and the
 * world slot table are the library's only global state. */
#include "base/error.h"

#include "tessera/tessera.h"

#include <stdarg.h>
#include <stdio.h>

static TS_THREAD_LOCAL char last_error[512];

ts_result ts_fail(ts_result code, const char *function, const char *format, ...)
{
    int used = snprintf(last_error, sizeof last_error, "%s: %s: ", function, ts_result_name(code));
    if (used < 0 || (size_t)used >= sizeof last_error) {
        return code;
    }
    va_list args;
    va_start(args, format);
    vsnprintf(last_error + used, sizeof last_error - (size_t)used, format, args);
    va_end(args);
    return code;
}

const char *ts_last_error(void) { return last_error; }

const char *ts_result_name(ts_result result)
{
    switch (result) {
    case TS_OK: return "TS_OK";
    case TS_ERROR_NULL_POINTER: return "TS_ERROR_NULL_POINTER";
    case TS_ERROR_UNINITIALIZED_DEF: return "TS_ERROR_UNINITIALIZED_DEF";
    case TS_ERROR_STALE_ID: return "TS_ERROR_STALE_ID";
    case TS_ERROR_WRONG_WORLD: return "TS_ERROR_WRONG_WORLD";
    case TS_ERROR_NOT_FINITE: return "TS_ERROR_NOT_FINITE";
    case TS_ERROR_OUT_OF_RANGE: return "TS_ERROR_OUT_OF_RANGE";
    case TS_ERROR_INVALID_OPERATION: return "TS_ERROR_INVALID_OPERATION";
    case TS_ERROR_UNSUPPORTED: return "TS_ERROR_UNSUPPORTED";
    case TS_ERROR_OUT_OF_MEMORY: return "TS_ERROR_OUT_OF_MEMORY";
    case TS_ERROR_CAPACITY: return "TS_ERROR_CAPACITY";
    case TS_ERROR_INVALID_DATA: return "TS_ERROR_INVALID_DATA";
    case TS_ERROR_IO: return "TS_ERROR_IO";
    }
    return "TS_ERROR_UNKNOWN";
}
