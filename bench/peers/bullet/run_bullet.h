/* One run of one scene on Bullet: the same steps, timing, quality check and
 * state hash as tessera_run (run_tessera.h), filling the same bench_result. */
#ifndef BENCH_RUN_BULLET_H
#define BENCH_RUN_BULLET_H

#include "bench_result.h"

struct bullet_run_config {
    int steps;    /* timed steps; 0 = the scene's own count */
    bool quality; /* step on (untimed) to the check's step, then take it */
};

void bullet_run(const scene_info *scene, const scene_params *params, const bullet_run_config &config, int run,
                bench_result *out);

#endif
