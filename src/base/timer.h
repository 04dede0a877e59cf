/* Wall-clock time for the step profile (monotonic, milliseconds). */
#ifndef TS_TIMER_H
#define TS_TIMER_H

#include <time.h>

static inline double ts_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1000.0 + (double)t.tv_nsec * 1.0e-6;
}

#endif
