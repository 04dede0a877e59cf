/* The scene table. A scene waiting for a tessera feature names it in
 * .missing; when the feature lands, set that scene's .missing to NULL (one
 * line per scene). The Bullet peer runs every scene regardless. */
#include "scene_registry.h"

#include <string.h>


const scene_info scene_table[] = {
    {.name = "free_fall", /* bench only: N free spinning boxes, times integration */
     .missing = NULL,
     .params_used = SCENE_PARAM_COUNT,
     .defaults = {.count = 100000},
     .small = {.count = 1000},
     .huge = {.count = 1000000},
     .warmup_steps = 1, .timed_steps = 200, .quality_steps = 0,
     .define = scene_define_free_fall, .quality = quality_free_fall},
    {.name = "large_pyramid",
     .missing = NULL,
     .params_used = SCENE_PARAM_BASE,
     .defaults = {.base = 100},
     .small = {.base = 20},
     .warmup_steps = 1, .timed_steps = 200, .quality_steps = 600,
     .define = scene_define_large_pyramid, .quality = quality_planar_pyramids},
    {.name = "large_pyramid_2d", /* large_pyramid in a planar world (bench only, 2D) */
     .missing = NULL,
     .params_used = SCENE_PARAM_BASE,
     .defaults = {.base = 100},
     .small = {.base = 20},
     .warmup_steps = 1, .timed_steps = 200, .quality_steps = 600,
     .define = scene_define_large_pyramid_2d, .quality = quality_planar_pyramids},
    {.name = "pyramid_3d",
     .missing = NULL,
     .params_used = SCENE_PARAM_BASE,
     .defaults = {.base = 20},
     .small = {.base = 8},
     .warmup_steps = 1, .timed_steps = 200, .quality_steps = 600,
     .define = scene_define_pyramid_3d, .quality = quality_pyramid_3d},
    {.name = "many_pyramids",
     .missing = NULL,
     .params_used = SCENE_PARAM_GRID | SCENE_PARAM_BASE,
     .defaults = {.grid = 14, .base = 10},
     .small = {.grid = 2, .base = 3},
     .huge = {.grid = 44, .base = 10},
     .warmup_steps = 1, .timed_steps = 100, .quality_steps = 600,
     .define = scene_define_many_pyramids, .quality = quality_planar_pyramids},
    {.name = "wide_pyramid",
     .missing = NULL,
     .params_used = SCENE_PARAM_HEIGHT,
     .defaults = {.height = 15},
     .small = {.height = 3},
     .warmup_steps = 0, .timed_steps = 500, .quality_steps = 500,
     .define = scene_define_wide_pyramid, .quality = quality_wide_pyramid},
    {.name = "pile",
     .missing = NULL,
     .params_used = SCENE_PARAM_COUNT,
     .defaults = {.count = 4000},
     .small = {.count = 200},
     .warmup_steps = 0, .timed_steps = 600, .quality_steps = 600,
     .define = scene_define_pile, .quality = quality_pile},
    {.name = "joint_grid",
     .missing = NULL,
     .params_used = SCENE_PARAM_SIDE,
     .defaults = {.side = 100},
     .small = {.side = 10},
     .warmup_steps = 1, .timed_steps = 100, .quality_steps = 0,
     .define = scene_define_joint_grid, .quality = quality_joint_grid},
    {.name = "sleep_field",
     .missing = NULL,
     .params_used = SCENE_PARAM_STACKS,
     .defaults = {.stacks = 1000},
     .small = {.stacks = 2},
     .warmup_steps = 300, .timed_steps = 300, .quality_steps = 0,
     .empty_world_reference = true,
     .define = scene_define_sleep_field, .quality = quality_sleep_field},
    {.name = "convex_pile",
     .missing = NULL,
     .params_used = SCENE_PARAM_LAYERS,
     .defaults = {.layers = 80},
     .small = {.layers = 4},
     .warmup_steps = 1, .timed_steps = 499, .quality_steps = 500,
     .define = scene_define_convex_pile, .quality = quality_convex_pile},
    {.name = "mesh_terrain",
     .missing = NULL,
     .params_used = SCENE_PARAM_COUNT,
     .defaults = {.count = 2000},
     .small = {.count = 100},
     .warmup_steps = 0, .timed_steps = 600, .quality_steps = 600,
     .define = scene_define_mesh_terrain, .quality = quality_mesh_terrain},
    {.name = NULL},
};

bool scene_has_huge(const scene_info *scene)
{
    static const scene_params none = {0};
    return memcmp(&scene->huge, &none, sizeof none) != 0;
}

const scene_info *scene_find(const char *name)
{
    for (const scene_info *s = scene_table; s->name != NULL; ++s) {
        if (strcmp(s->name, name) == 0) {
            return s;
        }
    }
    return NULL;
}

void scene_describe(const scene_info *scene, const scene_params *params, scene_desc *desc)
{
    scene_desc_init(desc);
    scene->define(params, desc);
}

const char *scene_param_name(unsigned bit)
{
    switch (bit) {
    case SCENE_PARAM_BASE: return "base";
    case SCENE_PARAM_GRID: return "grid";
    case SCENE_PARAM_HEIGHT: return "height";
    case SCENE_PARAM_COUNT: return "count";
    case SCENE_PARAM_SIDE: return "side";
    case SCENE_PARAM_STACKS: return "stacks";
    case SCENE_PARAM_LAYERS: return "layers";
    }
    return "?";
}

int scene_param_value(const scene_params *p, unsigned bit)
{
    switch (bit) {
    case SCENE_PARAM_BASE: return p->base;
    case SCENE_PARAM_GRID: return p->grid;
    case SCENE_PARAM_HEIGHT: return p->height;
    case SCENE_PARAM_COUNT: return p->count;
    case SCENE_PARAM_SIDE: return p->side;
    case SCENE_PARAM_STACKS: return p->stacks;
    case SCENE_PARAM_LAYERS: return p->layers;
    }
    return 0;
}
