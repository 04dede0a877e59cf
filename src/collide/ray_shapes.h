/* Rays against the shapes whose data the SIMD lane tests do not hold:
 * convex hulls, triangle meshes and heightfields. Each test runs in the
 * shape's frame, one shape at a time, for the single-ray queries and the
 * batched ones alike (so both give the same bits).
 *
 * The rules are ray_lanes.h's: t is the distance along the unit direction
 * (a rotation keeps it), the ray covers t in [0, max_t], a ray that starts
 * inside a hull does not hit it, one that starts on its surface and points
 * in hits it at t = 0. Meshes and heightfields are one-sided, as they
 * collide: a ray hits a triangle's front (counter-clockwise seen from it)
 * only, so a ray from below a terrain passes up through it. These rules
 * stand in for the proxy-box rule of the lane tests (a hit no earlier than
 * the ray enters the shape's broadphase box), which a flat mesh's box, as
 * thin as the mesh, would fail by rounding. */
#ifndef TS_COLLIDE_RAY_SHAPES_H
#define TS_COLLIDE_RAY_SHAPES_H

#include "collide/heightfield.h"
#include "collide/hull.h"
#include "collide/mesh.h"
#include "collide/ray.h"

/* A ray in a shape's frame: origin, unit direction, its end. */
typedef struct ts_local_ray {
    ts_vec3 origin;
    ts_vec3 direction;
    float max_t;
} ts_local_ray;

/* The first t at which the ray enters, and the outward normal there (shape
 * frame); false for no hit within [0, max_t]. */
bool ts_ray_hull(const ts_hull_data *hull, const ts_local_ray *ray, float *t, ts_vec3 *normal);
bool ts_ray_mesh(const ts_mesh_data *mesh, const ts_local_ray *ray, float *t, ts_vec3 *normal);
bool ts_ray_heightfield(const ts_heightfield_data *hf, const ts_local_ray *ray, float *t, ts_vec3 *normal);

/* The geometry these tests read of a hull, mesh or heightfield shape
 * (NULL for the other types). */
const void *ts_ray_shape_data(const ts_shape *shape);

/* A world ray against shape data of `type` (hull, mesh or heightfield)
 * whose frame has its origin at center and axes axis[0..2] (the columns of
 * its world rotation): the ray is taken into that frame, tested, and the
 * normal brought back. Returns whether it hits within the ray's length. */
bool ts_ray_test_local(const ts_ray *ray, ts_shape_type type, const void *data, ts_vec3 center, const ts_vec3 *axis,
                       float *t, ts_vec3 *normal);

#endif
