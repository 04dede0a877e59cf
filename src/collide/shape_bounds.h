/* A shape's world bounds at its body's pose, for the broadphase: the tight
 * box of a sphere, capsule or box placed by its simulation-frame transform.
 * Inline, since the bounds update after the solver runs them per body and
 * step (collide/broadphase_bounds.c) as does ts_shape_compute_aabb. */
#ifndef TS_SHAPE_BOUNDS_H
#define TS_SHAPE_BOUNDS_H

#include "base/math3.h"
#include "collide/heightfield.h"
#include "collide/hull.h"
#include "collide/mesh.h"
#include "soa/records.h"

#include <float.h>

/* The absolute rotation matrix |R| of a unit quaternion, row by row: a box
 * of half-extents h turned by R spans |R| h along the world axes. */
static inline void ts_abs_rotation(ts_quat q, ts_vec3 rows[3])
{
    float xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
    float xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
    float wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
    rows[0] = ts_abs3(ts_v3(1.0f - 2.0f * (yy + zz), 2.0f * (xy - wz), 2.0f * (xz + wy)));
    rows[1] = ts_abs3(ts_v3(2.0f * (xy + wz), 1.0f - 2.0f * (xx + zz), 2.0f * (yz - wx)));
    rows[2] = ts_abs3(ts_v3(2.0f * (xz - wy), 2.0f * (yz + wx), 1.0f - 2.0f * (xx + yy)));
}

/* |R| h: the extent along each world axis of a box of half-extents h
 * turned by q. */
static inline ts_vec3 ts_box_extent(ts_quat q, ts_vec3 h)
{
    ts_vec3 rows[3];
    ts_abs_rotation(q, rows);
    return ts_v3(ts_dot(rows[0], h), ts_dot(rows[1], h), ts_dot(rows[2], h));
}

/* At the centre of mass (a body's only shape always is). */
static inline bool ts_shape_is_centred(const ts_shape *shape)
{
    ts_vec3 p = shape->sim_local.p;
    return p.x == 0.0f && p.y == 0.0f && p.z == 0.0f;
}

/* Per body and step, so kept cheap: a sphere needs only its centre (no
 * rotation at all when it sits at the centre of mass, as a body's only
 * shape does), a box one rotation matrix instead of three turned axes. */
/* A local box (lower, upper) turned and moved by xf, its extent per world
 * axis capped at `radius` (a sphere about the box's centre that holds the
 * shape too: a round hull's box turned by 45 degrees would be 1.4 times too
 * wide, its sphere is not). */
static inline ts_aabb ts_local_box_bounds(ts_aabb box, float radius, ts_transform xf)
{
    ts_vec3 middle = ts_scale(0.5f, ts_add(box.lower, box.upper));
    ts_vec3 half = ts_scale(0.5f, ts_sub(box.upper, box.lower));
    ts_vec3 center = ts_transform_point(xf, middle);
    ts_vec3 extent = ts_min3(ts_box_extent(xf.q, half), ts_v3(radius, radius, radius));
    return (ts_aabb){ts_sub(center, extent), ts_add(center, extent)};
}

static inline ts_aabb ts_shape_bounds(const ts_shape *shape, ts_transform body)
{
    const ts_transform *local = &shape->sim_local;
    switch (shape->type) {
    case TS_SHAPE_HULL: {
        const ts_hull_data *h = shape->geometry.hull.data;
        return ts_local_box_bounds(h->bounds, h->center_radius, ts_transform_mul(body, *local));
    }
    case TS_SHAPE_MESH: {
        const ts_mesh_data *m = shape->geometry.mesh.data;
        return ts_local_box_bounds(m->bounds, FLT_MAX, ts_transform_mul(body, *local));
    }
    case TS_SHAPE_HEIGHTFIELD: {
        const ts_heightfield_data *hf = shape->geometry.heightfield.data;
        return ts_local_box_bounds(hf->bounds, FLT_MAX, ts_transform_mul(body, *local));
    }
    default: break;
    }
    ts_vec3 center = ts_shape_is_centred(shape) ? body.p : ts_transform_point(body, local->p);
    ts_vec3 extent;
    switch (shape->type) {
    case TS_SHAPE_SPHERE: {
        float r = shape->geometry.sphere.radius;
        extent = ts_v3(r, r, r);
        break;
    }
    case TS_SHAPE_CAPSULE: {
        /* segment end offset R (0, h, 0), grown by the radius */
        ts_quat q = ts_quat_mul(body.q, local->q);
        ts_vec3 axis = ts_abs3(ts_rotate(q, ts_v3(0.0f, shape->geometry.capsule.half_height, 0.0f)));
        float r = shape->geometry.capsule.radius;
        extent = ts_add(axis, ts_v3(r, r, r));
        break;
    }
    default: {
        extent = ts_box_extent(ts_quat_mul(body.q, local->q), shape->geometry.box.half_extents);
        break;
    }
    }
    return (ts_aabb){ts_sub(center, extent), ts_add(center, extent)};
}

#endif
