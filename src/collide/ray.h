/* Rays and the shapes they are tested against, as every ray query reads
 * them: the single-ray queries over the broadphase trees (ray_cast.c) and
 * the batched ones over a wide tree (ray_batch.c) prepare a ray and a shape
 * the same way, and run the same lane tests (ray_lanes.h), so that both give
 * the same bits.
 *
 * A ray covers origin + t direction for t in [0, length], with a unit
 * direction: t is a distance in metres, and the fraction a query reports is
 * t / length. Direction components below TS_RAY_PARALLEL (of the unit
 * direction) are set to zero, and those axes are marked parallel: the slab
 * tests then treat them as an interval test of the origin, never dividing
 * by zero, so no test ever meets a NaN. */
#ifndef TS_COLLIDE_RAY_H
#define TS_COLLIDE_RAY_H

#include "base/aabb.h"
#include "soa/records.h"

/* A direction component smaller than this (of a unit direction) is zero:
 * its inverse stays below 1e30, so (box side - origin) * inverse is finite
 * or infinite, never NaN. */
#define TS_RAY_PARALLEL 1.0e-30f

typedef struct ts_ray {
    ts_vec3 origin;
    ts_vec3 direction; /* unit; components below TS_RAY_PARALLEL are 0 */
    ts_vec3 inverse;   /* 1 / direction per axis, 0 on parallel axes */
    float length;      /* t runs over [0, length] */
    uint32_t parallel; /* bit k: axis k of direction is 0 */
} ts_ray;

/* Prepares a ray (origin, direction and length finite, checked by the
 * caller). Returns false when the direction has no length to normalise. */
bool ts_ray_prepare(ts_vec3 origin, ts_vec3 direction, float length, ts_ray *ray);

/* A shape as the ray tests read it: its world centre and axes (the columns
 * of its world rotation), its size, and the box of its broadphase proxy.
 * size: sphere (radius, 0), box unused (half_extents), capsule (half
 * height, radius). */
typedef struct ts_ray_target {
    ts_vec3 center;
    ts_vec3 axis[3];
    ts_vec3 half_extents; /* boxes */
    float size[2];        /* spheres and capsules */
    ts_aabb box;          /* the proxy's fat box, as the tree holds it */
    const void *data;     /* hulls, meshes, heightfields: their geometry (ray_shapes.h) */
    int32_t shape;
    ts_shape_type type;
} ts_ray_target;

/* The world transform of a shape: its body's simulation frame (the body
 * store) times the shape's placement in it. */
ts_transform ts_shape_world_transform(const ts_records *records, const ts_shape *shape);

/* Fills a target from a shape that has a proxy (box: the proxy's box in
 * `tree_box`, read from the tree by the caller). */
void ts_ray_target_of(const ts_records *records, int32_t shape, ts_aabb tree_box, ts_ray_target *target);

/* Runs the shape's test at width 1: returns true for a hit within the
 * ray's length, with *t the distance and *normal the world surface normal
 * (unit, against the ray). Includes the proxy-box rule of ray_lanes.h. */
bool ts_ray_test_target(const ts_ray *ray, const ts_ray_target *target, float *t, ts_vec3 *normal);

#endif
