/* The list of benchmark scenes: name, parameters, step counts, quality check,
 * and whether tessera can run it yet. Shared by tessera-bench, the Bullet peer
 * and the smoke test. */
#ifndef BENCH_SCENE_REGISTRY_H
#define BENCH_SCENE_REGISTRY_H

#include "scene_defs.h"
#include "scene_quality.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Which scene_params fields shape a scene (printed in the JSON "params"). */
enum {
    SCENE_PARAM_BASE = 1 << 0,
    SCENE_PARAM_GRID = 1 << 1,
    SCENE_PARAM_HEIGHT = 1 << 2,
    SCENE_PARAM_COUNT = 1 << 3,
    SCENE_PARAM_SIDE = 1 << 4,
    SCENE_PARAM_STACKS = 1 << 5,
    SCENE_PARAM_LAYERS = 1 << 6,
};

typedef struct scene_info {
    const char *name;
    /* What tessera still lacks to run the scene, or NULL when it runs. */
    const char *missing;
    unsigned params_used;       /* SCENE_PARAM_* bits */
    scene_params defaults;      /* the defaults of scenes.md */
    scene_params small;         /* the small variant (tests, quick runs) */
    scene_params huge;          /* the huge variant (--huge: ~100k to 1M bodies), all zero when none */
    int warmup_steps;           /* untimed steps before the timed ones */
    int timed_steps;
    int quality_steps;          /* steps simulated in all when the check is taken; 0 = at the last step */
    bool empty_world_reference; /* also time an empty world (sleep_field's cost figure) */
    scene_define_fn *define;
    quality_fn *quality;
} scene_info;

/* Every scene, ended by one with a NULL name. */
extern const scene_info scene_table[];

const scene_info *scene_find(const char *name);

/* Whether the scene has a huge variant (--huge). */
bool scene_has_huge(const scene_info *scene);

/* Initialises desc and fills it with the scene built from params. */
void scene_describe(const scene_info *scene, const scene_params *params, scene_desc *desc);

/* The name of a parameter bit ("base", ...) and its value in params. */
const char *scene_param_name(unsigned bit);
int scene_param_value(const scene_params *params, unsigned bit);

#ifdef __cplusplus
}
#endif

#endif
