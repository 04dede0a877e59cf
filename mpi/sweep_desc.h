/* The sweep description of tessera-sweep: a small INI file that names scenes,
 * their parameters, run settings and seeds, each as a list of values, and
 * the runs it expands to (every combination of a block's lists).
 *
 *   # comments start with # or ; (also after a value)
 *   steps = 60              <- keys before any section apply to every block
 *   [sweep]                 <- each [sweep] section is one block
 *   scene = pile
 *   count = 100, 200        <- a list: one run per value
 *   substeps = 2..4         <- an integer range, both ends included
 *   solver = soft_step, xpbd
 *
 * Runs are numbered block by block; within a block the first key (those
 * before any section first, then the block's in file order) varies
 * slowest and the last fastest. No MPI here: sweep_main.c parses the same
 * text on every rank, so each rank can decode any run number by itself. */
#ifndef TESSERA_SWEEP_DESC_H
#define TESSERA_SWEEP_DESC_H

#include "run_tessera.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SWEEP_MAX_KEYS 24
#define SWEEP_MAX_BLOCKS 64
#define SWEEP_MAX_RUNS 10000000L

typedef enum sweep_kind {
    SWEEP_INT,
    SWEEP_FLOAT,
    SWEEP_BOOL,
    SWEEP_NAME, /* scene and solver names */
} sweep_kind;

typedef struct sweep_value {
    long i;
    double f;
    char name[32];
} sweep_value;

/* One key and its values, as the file gave them (ranges expanded). */
typedef struct sweep_list {
    char key[24];
    sweep_kind kind;
    int count;
    sweep_value *values;
    int line; /* where it was given, for messages */
} sweep_list;

typedef struct sweep_block {
    int list_count;
    sweep_list lists[SWEEP_MAX_KEYS]; /* the global keys first (unless the block overrides one) */
    long first_run;                   /* run number of the block's first run */
    long run_count;                   /* product of the lists' counts */
    int line;                         /* the [sweep] line */
} sweep_block;

typedef struct sweep_desc {
    sweep_block globals; /* the keys before any section */
    int block_count;
    sweep_block blocks[SWEEP_MAX_BLOCKS];
    long run_count;
} sweep_desc;

/* One run, decoded from its number. */
typedef struct sweep_run {
    long index;
    const scene_info *scene;
    scene_params params;
    tessera_run_config config;
    bool threads_given;  /* false: the driver picks the threads (its share of the cores) */
    bool perturb;        /* a seed or jitter was given */
    uint32_t seed;
    float jitter;        /* m/s: each velocity component of each dynamic body gets up to +-jitter */
    char json[768];      /* "key":value,... of every key the run was given (no braces) */
} sweep_run;

/* Parses text (the whole file). Returns false and writes "line N: why" to
 * error on bad input; desc is then empty (nothing to free). */
bool sweep_parse(const char *text, sweep_desc *desc, char *error, size_t error_size);

/* Decodes run number index (0 <= index < desc->run_count) into run. */
void sweep_get_run(const sweep_desc *desc, long index, sweep_run *run);

void sweep_free(sweep_desc *desc);

#endif
