/** @file
 * Shapes for real worlds: convex hulls (and cylinders made as hulls),
 * static triangle meshes and heightfields (see docs/shapes.md).
 *
 * - A hull is the convex hull of up to TS_HULL_MAX_POINTS points; it
 *   collides with every shape and has exact mass properties. Shapes made
 *   from the same points share one copy of the hull.
 * - A mesh is a set of triangles with a bounding volume tree, built once; a
 *   heightfield is a grid of heights collided like a mesh without storing
 *   triangles. Both are for static (or kinematic) bodies: they have no
 *   mass, and collide with spheres, capsules, boxes and hulls, not with
 *   each other. Their triangles are one-sided: the front is where
 *   (b - a) x (c - a) points for a triangle a b c; a shape whose centre is
 *   behind a triangle does not touch it. Edges between triangles in one
 *   plane, and creases that fold inward, are not collided as edges, so a
 *   body slides across them without bumps.
 * Calls follow tessera.h's conventions: a failed call returns the null id
 * or an error code, ts_last_error() names the argument, and nothing
 * changed. */
#ifndef TESSERA_SHAPES_H
#define TESSERA_SHAPES_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The most points a hull is built from, and so its most vertices. */
#define TS_HULL_MAX_POINTS 64

/** A convex hull to build: the smallest convex polyhedron holding the
 * points (quickhull). Points inside it or in the middle of its faces or
 * edges are dropped; triangles in one plane (within 1e-5 of the points'
 * extent) merge into one polygon face. Duplicate points are fine. */
typedef struct ts_hull_def {
    const ts_vec3 *points; /**< in the shape frame; copied */
    int point_count;       /**< 4 .. TS_HULL_MAX_POINTS */
} ts_hull_def;

/** Attaches the convex hull of hull->points to the body and recomputes its
 * mass (the hull's own centroid and inertia, exactly). Returns the null id
 * on failure: as ts_create_sphere_shape(), and TS_ERROR_NULL_POINTER (hull
 * or hull->points), TS_ERROR_NOT_FINITE (a point), TS_ERROR_OUT_OF_RANGE
 * (fewer than 4 or more than TS_HULL_MAX_POINTS points, or points that span
 * no volume: all in one spot, on one line or in one plane; the message
 * says which). */
TS_API ts_shape_id ts_create_hull_shape(ts_body_id body, const ts_shape_def *def, const ts_hull_def *hull);

/** A cylinder along the shape's y axis, made as a hull: two regular
 * polygons of `sides` corners at y = -half_height and +half_height. Its
 * volume is the polygon's area times the height, a little less than
 * pi r^2 h (0.4% less at 32 sides). */
typedef struct ts_cylinder {
    float half_height; /**< > 0 */
    float radius;      /**< > 0: the polygons' corners lie on this circle */
    int sides;         /**< 3 .. 32; 0 takes 16 */
} ts_cylinder;

/** Attaches a cylinder (a hull shape: ts_shape_get_type() says
 * TS_SHAPE_HULL). Fails as ts_create_hull_shape(), and
 * TS_ERROR_NULL_POINTER (cylinder), TS_ERROR_NOT_FINITE or
 * TS_ERROR_OUT_OF_RANGE (half_height, radius, sides). */
TS_API ts_shape_id ts_create_cylinder_shape(ts_body_id body, const ts_shape_def *def, const ts_cylinder *cylinder);

/** What ts_shape_get_hull() reports of a hull. */
typedef struct ts_hull_info {
    int vertex_count;  /**< at most TS_HULL_MAX_POINTS */
    int face_count;    /**< polygon faces */
    int edge_count;    /**< edges (each between two faces) */
    float volume;      /**< m^3 */
    ts_vec3 centroid;  /**< the centre of its volume, in the shape frame */
} ts_hull_info;

/** A hull shape's counts, volume and centroid in *info, and up to capacity
 * of its vertices (shape frame) in vertices (NULL when capacity is 0).
 * TS_ERROR_NULL_POINTER (info, or vertices with capacity > 0),
 * TS_ERROR_OUT_OF_RANGE (capacity < 0), TS_ERROR_STALE_ID,
 * TS_ERROR_INVALID_OPERATION (not a hull). */
TS_API ts_result ts_shape_get_hull(ts_shape_id shape, ts_hull_info *info, ts_vec3 *vertices, int capacity);

/** A triangle mesh to build (copied; the arrays may be freed afterwards). */
typedef struct ts_mesh_def {
    const ts_vec3 *vertices; /**< in the shape frame, finite */
    int vertex_count;        /**< >= 3 */
    const int32_t *indices;  /**< 3 per triangle, each in [0, vertex_count) */
    int triangle_count;      /**< >= 1; no triangle may have zero area */
} ts_mesh_def;

/** Attaches a static triangle mesh to a static or kinematic body. Returns
 * the null id on failure: TS_ERROR_NULL_POINTER (def, mesh or its arrays),
 * TS_ERROR_UNINITIALIZED_DEF, TS_ERROR_STALE_ID (body), TS_ERROR_NOT_FINITE
 * (a vertex), TS_ERROR_OUT_OF_RANGE (too few vertices or triangles, an
 * index out of range, a triangle of zero area: the message names it),
 * TS_ERROR_INVALID_OPERATION (a dynamic body), TS_ERROR_CAPACITY,
 * TS_ERROR_OUT_OF_MEMORY. */
TS_API ts_shape_id ts_create_mesh_shape(ts_body_id body, const ts_shape_def *def, const ts_mesh_def *mesh);

/** A grid of heights: vertex (i, k) for 0 <= i < count_x, 0 <= k < count_z
 * is at (i scale.x, heights[k count_x + i] scale.y, k scale.z) in the
 * shape frame; cell (i, k) is split into two triangles along its diagonal
 * from vertex (i, k) to (i + 1, k + 1). Its front faces +y. */
typedef struct ts_heightfield_def {
    const float *heights; /**< count_x * count_z finite values, copied */
    int count_x;          /**< >= 2 */
    int count_z;          /**< >= 2 */
    ts_vec3 scale;        /**< each > 0 */
} ts_heightfield_def;

/** Attaches a heightfield to a static or kinematic body. Fails as
 * ts_create_mesh_shape(): TS_ERROR_OUT_OF_RANGE for counts below 2 or a
 * grid of more than 2^26 cells, or a scale that is not positive. */
TS_API ts_shape_id ts_create_heightfield_shape(ts_body_id body, const ts_shape_def *def,
                                               const ts_heightfield_def *heightfield);

/** The triangles of a mesh or heightfield shape, for drawing them: their
 * count in *count, and the first min(count, capacity) of them in corners,
 * three corners each (3 * capacity entries), in the shape frame,
 * counter-clockwise seen from the front. A mesh's come in the order of its
 * ts_mesh_def; a heightfield's two per cell, cell (i, k) at index
 * k (count_x - 1) + i.
 * TS_ERROR_NULL_POINTER (count, or corners with capacity > 0),
 * TS_ERROR_OUT_OF_RANGE (capacity < 0), TS_ERROR_STALE_ID,
 * TS_ERROR_INVALID_OPERATION (neither a mesh nor a heightfield). */
TS_API ts_result ts_shape_get_triangles(ts_shape_id shape, int *count, ts_vec3 *corners, int capacity);

#ifdef __cplusplus
}
#endif

#endif
