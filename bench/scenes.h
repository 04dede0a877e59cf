/* The benchmark scenes of shared/scenes.md, each a pure function of its
 * parameters, shared by tessera-bench and the tests. */
#ifndef TS_BENCH_SCENES_H
#define TS_BENCH_SCENES_H

#include "tessera/tessera.h"

typedef struct ts_scene_params {
    int base;   /* large_pyramid, pyramid_3d, many_pyramids: B */
    int grid;   /* many_pyramids: G */
    int height; /* wide_pyramid: H */
    int count;  /* pile, free_fall: N */
    int side;   /* joint_grid: S */
    int stacks; /* sleep_field: K */
} ts_scene_params;

typedef struct ts_scene {
    const char *name;
    const char *missing; /* the feature the scene waits for, or NULL when it runs;
                            with a build function, --collide-only still runs it */
    int warmup_steps;    /* untimed steps before the timed ones */
    int steps;           /* timed steps */
    /* Builds the scene into an empty world; returns the number of bodies made,
     * or -1 on an API error (ts_last_error says which). */
    int (*build)(ts_world_id world, const ts_scene_params *params);
} ts_scene;

/* A scene's default parameters (the values scenes.md gives; free_fall: N = 100,000). */
ts_scene_params ts_scene_default_params(const char *scene_name);

/* All scenes, NULL-terminated by a zero name. */
extern const ts_scene ts_scenes[];

const ts_scene *ts_find_scene(const char *name);

#endif
