/* Engine-neutral description of a benchmark scene (shared/scenes.md).
 *
 * A scene is defined once, as a pure function that fills a scene_desc
 * (scene_defs.c); each engine has a builder that turns the description into
 * its own world: build_tessera.c for tessera, peers/bullet/build_bullet.cpp
 * for Bullet. Plain C structs, usable from C and C++. */
#ifndef BENCH_SCENE_DESC_H
#define BENCH_SCENE_DESC_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct scene_vec3 {
    float x, y, z;
} scene_vec3;

/* Unit quaternion, scalar last (the convention of tessera and Bullet). */
typedef struct scene_quat {
    float x, y, z, w;
} scene_quat;

typedef enum scene_body_type {
    SCENE_STATIC = 0,
    SCENE_DYNAMIC = 1,
} scene_body_type;

typedef enum scene_shape_type {
    SCENE_SPHERE = 0,
    SCENE_BOX = 1,
    SCENE_CAPSULE = 2, /* along local y: segment (0, +-half_height, 0) swept by radius */
    SCENE_HULL = 3,    /* the convex hull of a geometry's points */
    SCENE_MESH = 4,    /* a static triangle mesh: a geometry's points and triangles */
} scene_shape_type;

/* Points (and for meshes triangles, 3 indices each) that hull and mesh
 * shapes refer to by index; the description owns them. */
typedef struct scene_geometry {
    scene_vec3 *points;
    int point_count;
    int32_t *indices;
    int triangle_count;
} scene_geometry;

typedef struct scene_shape {
    scene_shape_type type;
    scene_vec3 half_extents; /* box */
    float radius;            /* sphere, capsule */
    float half_height;       /* capsule: half the distance between its sphere centres */
    int geometry;            /* hull, mesh: index into scene_desc.geometries */
    float density;           /* kg/m^3 */
    float friction;          /* combined as the geometric mean (scenes.md) */
    float restitution;
    float rolling_resistance; /* 0 in every scene of scenes.md; tessera-bench --rolling-resistance sets it */
    uint64_t category_bits;  /* A and B touch when A.category & B.mask and B.category & A.mask */
    uint64_t mask_bits;
} scene_shape;

/* One body with one shape centred on its origin (so the origin is the centre of mass). */
typedef struct scene_body {
    scene_body_type type;
    scene_vec3 position;
    scene_quat rotation;
    scene_vec3 linear_velocity;
    scene_vec3 angular_velocity;
    scene_shape shape;
} scene_body;

/* A ball (spherical) joint: the two local anchors are kept together. */
typedef struct scene_joint {
    int body_a, body_b; /* indices into scene_desc.bodies */
    scene_vec3 local_anchor_a, local_anchor_b;
} scene_joint;

typedef struct scene_desc {
    scene_vec3 gravity;
    bool sleep; /* sleeping on (scenes.md: off unless the scene says otherwise) */
    /* a 2D scene: every dynamic body kept in its x-y plane, turning about z
     * only (tessera: ts_world_def.planar; Bullet: linear and angular factors) */
    bool planar;
    int body_count, body_capacity;
    scene_body *bodies; /* in creation order */
    int joint_count, joint_capacity;
    scene_joint *joints;
    int geometry_count, geometry_capacity;
    scene_geometry *geometries;
    /* For the quality checks: dynamic bodies [first_dynamic, body_count) form
     * consecutive groups of group_size bodies (one pyramid each); a group's
     * last body is its top. group_size 0: one group of every dynamic body. */
    int first_dynamic;
    int group_size;
} scene_desc;

/* An empty description with scenes.md's common settings (gravity (0, -10, 0), sleeping off). */
void scene_desc_init(scene_desc *desc);
void scene_desc_free(scene_desc *desc);

/* Appends a body; returns its index. Aborts when memory runs out. */
int scene_add_body(scene_desc *desc, const scene_body *body);
void scene_add_joint(scene_desc *desc, const scene_joint *joint);
/* Appends a copy of the points (and triangles: 3 indices each, or NULL and
 * 0); returns its index for scene_shape.geometry. */
int scene_add_geometry(scene_desc *desc, const scene_vec3 *points, int point_count, const int32_t *indices,
                       int triangle_count);

/* The defaults of scenes.md: a dynamic unit box (density 1, friction 0.6, restitution 0,
 * every filter bit) at position, unrotated and at rest. */
scene_body scene_default_box(scene_vec3 position, scene_vec3 half_extents, float density);
scene_body scene_default_sphere(scene_vec3 position, float radius, float density);
/* Appends a static box (the ground, walls). */
int scene_add_static_box(scene_desc *desc, scene_vec3 position, scene_vec3 half_extents);

/* Volume of a shape and so its mass (density * volume). */
float scene_shape_volume(const scene_shape *shape);

int scene_dynamic_count(const scene_desc *desc);

/* A new description holding only the static bodies of `from` (the ground):
 * the "empty world" that sleep_field's cost is measured against. */
void scene_desc_static_part(const scene_desc *from, scene_desc *to);

#ifdef __cplusplus
}
#endif

#endif
