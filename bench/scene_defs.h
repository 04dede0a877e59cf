/* The scenes of shared/scenes.md (and free_fall), each a pure function of its
 * parameters that fills an engine-neutral scene_desc. */
#ifndef BENCH_SCENE_DEFS_H
#define BENCH_SCENE_DEFS_H

#include "scene_desc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Scene parameters, named as in scenes.md (and on the command line). */
typedef struct scene_params {
    int base;   /* large_pyramid, pyramid_3d, many_pyramids: B */
    int grid;   /* many_pyramids: G (>= 2) */
    int height; /* wide_pyramid: H */
    int count;  /* pile, free_fall: N */
    int side;   /* joint_grid: S */
    int stacks; /* sleep_field: K */
    int layers; /* convex_pile: L */
} scene_params;

/* Each fills desc (initialised by the caller with scene_desc_init). */
typedef void scene_define_fn(const scene_params *params, scene_desc *desc);

scene_define_fn scene_define_free_fall;
scene_define_fn scene_define_large_pyramid;
scene_define_fn scene_define_large_pyramid_2d;
scene_define_fn scene_define_pyramid_3d;
scene_define_fn scene_define_many_pyramids;
scene_define_fn scene_define_wide_pyramid;
scene_define_fn scene_define_pile;
scene_define_fn scene_define_joint_grid;
scene_define_fn scene_define_sleep_field;
scene_define_fn scene_define_convex_pile;  /* scene_defs_shapes.c */
scene_define_fn scene_define_mesh_terrain;

/* convex_pile's hull: 32 points of its generator (seed 42) on a sphere of `radius`. */
#define SCENE_PILE_POINTS 32
void scene_convex_pile_points(scene_vec3 out[SCENE_PILE_POINTS], float radius);

/* mesh_terrain: vertices per side of its grid, and its height function at a vertex. */
#define SCENE_TERRAIN_SIDE 101
float scene_terrain_height(float x, float z);

#ifdef __cplusplus
}
#endif

#endif
