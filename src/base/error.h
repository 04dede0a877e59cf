/* The thread-local "last error" message behind ts_last_error(). */
#ifndef TS_ERROR_H
#define TS_ERROR_H

#include "base/core.h"

/* Records "function: message" as this thread's last error and returns code,
 * so a failing call can end with `return ts_fail(CODE, __func__, "...")`. */
ts_result ts_fail(ts_result code, const char *function, const char *format, ...) TS_PRINTF_LIKE(3, 4);

/* Evaluates a check and returns its error, if any. */
#define TS_TRY(expression)                                                                                     \
    do {                                                                                                       \
        ts_result ts_try_result_ = (expression);                                                               \
        if (ts_try_result_ != TS_OK) {                                                                         \
            return ts_try_result_;                                                                             \
        }                                                                                                      \
    } while (0)

#endif
