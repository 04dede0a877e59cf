/* Wall-clock time and medians for the step timers (POSIX clock_gettime). */
#ifndef BENCH_TIMING_H
#define BENCH_TIMING_H

#include <stdlib.h>
#include <time.h>

static inline double bench_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1000.0 + (double)t.tv_nsec * 1.0e-6;
}

static inline int bench_compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts values in place and returns their median (0 for none). */
static inline double bench_median(double *values, int n)
{
    if (n <= 0) {
        return 0.0;
    }
    qsort(values, (size_t)n, sizeof(double), bench_compare_double);
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

#endif
