/* Printing bench_results: one JSON object per run on one line, and the
 * human-readable table (one row per setting, summarising its runs). */
#ifndef BENCH_REPORT_H
#define BENCH_REPORT_H

#include "bench_result.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

void bench_print_json(FILE *out, const bench_result *r);

void bench_print_table_header(FILE *out);

/* One row summarising runs[0..count): median step time min and median across
 * runs, mean, slowest step, and the speedup against reference_ms (the
 * median-of-medians of the first setting; 0 prints no speedup). */
void bench_print_table_row(FILE *out, const bench_result *runs, int count, double reference_ms);

/* Median across runs of each run's median step time. */
double bench_median_of_medians(const bench_result *runs, int count);

/* "pass", "FAIL" or "-" (not evaluated) for a result's quality check. */
const char *bench_quality_word(const quality_result *q);

#ifdef __cplusplus
}
#endif

#endif
