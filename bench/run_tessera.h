/* One run of one scene on tessera: describe, build, warm up, time the steps,
 * take the quality check, hash the final state. The one code path shared by
 * tessera-bench and the scene smoke test. */
#ifndef BENCH_RUN_TESSERA_H
#define BENCH_RUN_TESSERA_H

#include "bench_result.h"
#include "build_tessera.h"

typedef struct tessera_run_config {
    tessera_settings settings;
    int steps;         /* timed steps; 0 = the scene's own count */
    bool collide_only; /* gravity off: the scene keeps its initial state; times collision */
    bool quality;      /* step on (untimed) to the check's step, then take it */
    bool sleep;        /* sleeping on, whatever the scene says (--sleep) */
    float rolling_resistance; /* > 0: every dynamic shape's rolling resistance (--rolling-resistance) */
    const char *record_path; /* replay file of this run (tessera_recorder), or NULL */
    bool record_contacts;    /* the replay holds contact points too */
    /* Called on the scene's description before the world is built, NULL for
     * none (tessera-sweep's seeded perturbations, mpi/sweep_run.c). */
    void (*edit_scene)(scene_desc *desc, void *context);
    void *edit_context;
} tessera_run_config;

/* The step of every scene (scenes.md): 1/60 s. */
#define BENCH_DT (1.0f / 60.0f)

/* Fills out. Returns false, with out->error saying why, when the world
 * could not be made or the scene could not be built. */
bool tessera_run(const scene_info *scene, const scene_params *params, const tessera_run_config *config, int run,
                 bench_result *out);

#endif
