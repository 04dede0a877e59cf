/* The settings tessera-bench runs: the command line's, or every combination
 * of its --sweep values (the first sweep outermost). */
#ifndef BENCH_SWEEP_H
#define BENCH_SWEEP_H

#include "bench_cli.h"
#include "run_tessera.h"

#define BENCH_MAX_CONFIGS 64

typedef struct bench_config {
    tessera_run_config run;
    char label[80]; /* "threads=2 width=1", empty without sweeps */
} bench_config;

/* Fills configs; returns how many, or -1 after printing why to stderr. */
int bench_expand_configs(const bench_options *o, bench_config *configs, int capacity);

#endif
