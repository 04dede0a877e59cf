/* What the snapshot tests share: a bench scene (bench/scene_defs.c, small
 * variant) built into a world of a given solver, width and thread count,
 * and a world saved to a malloc'd buffer. */
#ifndef TS_SNAPSHOT_SCENES_H
#define TS_SNAPSHOT_SCENES_H

#include "build_tessera.h"
#include "scene_registry.h"
#include "tessera/tessera.h"

#include <stdlib.h>

/* The world of scene s (small variant) on `threads` workers at `width`
 * lanes with `solver`; sleep forced on when `sleep`. The null id when
 * tessera cannot build it. */
static inline ts_world_id snapshot_scene_world(const scene_info *s, ts_solver_type solver, int width, int threads,
                                               bool sleep)
{
    scene_desc desc;
    scene_describe(s, &s->small, &desc);
    desc.sleep = desc.sleep || sleep;
    tessera_settings settings = {threads, 4, 0.0f, width, solver};
    char error[256];
    ts_world_id world = tessera_create_world(&desc, &settings, error, sizeof error);
    ts_body_id *bodies = malloc(sizeof(ts_body_id) * (size_t)(desc.body_count > 0 ? desc.body_count : 1));
    if (!ts_world_id_is_null(world) && !tessera_build_scene(world, &desc, bodies, error, sizeof error)) {
        ts_destroy_world(world);
        world = TS_NULL_WORLD_ID;
    }
    free(bodies);
    scene_desc_free(&desc);
    return world;
}

/* The world's snapshot in a malloc'd buffer (*size bytes), or NULL. */
static inline uint8_t *snapshot_save(ts_world_id world, size_t *size)
{
    if (ts_world_save(world, NULL, 0, size) != TS_OK) {
        return NULL;
    }
    uint8_t *data = malloc(*size);
    if (data != NULL && ts_world_save(world, data, *size, size) != TS_OK) {
        free(data);
        return NULL;
    }
    return data;
}

/* A def for loading: `threads` workers at `width` lanes. */
static inline ts_world_def snapshot_load_def(int width, int threads)
{
    ts_world_def def = ts_default_world_def();
    def.simd_width = width;
    def.threads = threads;
    return def;
}

#endif
