/* --compare bullet: runs the Bullet peer (tessera-bench-bullet, next to
 * tessera-bench) on the same scene with the same parameters, reads its JSON
 * lines, and prints tessera's and Bullet's figures and their ratio. */
#ifndef BENCH_COMPARE_H
#define BENCH_COMPARE_H

#include "bench_cli.h"
#include "bench_result.h"

#include <stdio.h>

/* What the peer reported for one scene, summarised over its runs. */
typedef struct peer_summary {
    bool ok;
    int runs;
    int bodies;
    double min_median, median_median; /* ms per step */
    int quality;                      /* -1 not evaluated, 0 fail, 1 pass */
    double quality_figure;
    char quality_figure_name[48];
    char version[32];
} peer_summary;

/* The peer's path: tessera-bench-bullet in this program's directory.
 * Returns false when there is none. */
bool compare_find_peer(char *path, size_t size);

/* Tells, on stderr, that Bullet is missing and how to get it. */
void compare_print_missing(const char *path);

/* Runs the peer on scene with params (and o's --runs, --steps,
 * --no-quality); echoes its JSON lines to echo when not NULL. */
void compare_run_peer(const char *peer, const scene_info *scene, const scene_params *params, const bench_options *o,
                      FILE *echo, peer_summary *out);

void compare_print_header(FILE *out);

/* One row: tessera's runs (count 0: tessera cannot run the scene yet) next to Bullet's. */
void compare_print_row(FILE *out, const scene_info *scene, const bench_result *runs, int count,
                       const peer_summary *peer);

#endif
