/* Turns a scene description (scene_desc.h) into a tessera world, and tells
 * which SIMD path and width a world uses. */
#ifndef BENCH_BUILD_TESSERA_H
#define BENCH_BUILD_TESSERA_H

#include "scene_desc.h"
#include "tessera/tessera.h"

#include <stddef.h>

/* The world settings a run chooses (the rest comes from the description). */
typedef struct tessera_settings {
    int threads;  /* 0 = every core */
    int substeps;
    float contact_hertz; /* > 0: the world's contact_hertz (capped at a quarter of the substep rate); 0 = default */
    int width;    /* SIMD lanes (1, 4, 8, 16); 0 = TESSERA_SIMD, else the widest the CPU runs */
    ts_solver_type solver;
} tessera_settings;

/* Creates an empty world with desc's gravity and the settings. Returns the
 * null id and writes the reason to error on failure. */
ts_world_id tessera_create_world(const scene_desc *desc, const tessera_settings *settings, char *error,
                                 size_t error_size);

/* Creates every body of desc, in order, writing their ids to bodies
 * (desc->body_count of them). Returns false and writes the reason to error
 * when tessera refuses a body or lacks a feature the scene needs. */
bool tessera_build_scene(ts_world_id world, const scene_desc *desc, ts_body_id *bodies, char *error,
                         size_t error_size);

/* The SIMD path and lane count a world's step uses. */
const char *tessera_simd_path(ts_world_id world);
int tessera_width(ts_world_id world);

/* "soft_step" / "xpbd" and back; -1 for an unknown name. */
const char *tessera_solver_name(ts_solver_type solver);
int tessera_solver_from_name(const char *name);

#endif
