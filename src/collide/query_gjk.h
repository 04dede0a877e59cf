/* GJK distance between two convex shapes, for shape casts, overlap queries
 * and sensors (Gilbert, Johnson, Keerthi 1988; the closest point on the
 * simplex by Voronoi regions, as in Ericson's Real-Time Collision
 * Detection, ch. 5 and 9).
 *
 * A shape is a core (a point cloud: its convex hull) swept by a radius:
 * a sphere is its centre with its radius, a capsule its segment's two ends
 * with its radius, a box its 8 corners with radius 0, a hull (and so a
 * cylinder) its vertices (at most TS_HULL_MAX_VERTICES) with radius 0.
 *
 * Pure geometry in world coordinates; deterministic; no allocation.
 * collide/gjk.h is the narrowphase's GJK for hulls (support functions over
 * hull data); the two grew apart in parallel and should become one. */
#ifndef TS_COLLIDE_QUERY_GJK_H
#define TS_COLLIDE_QUERY_GJK_H

#include "collide/hull.h"
#include "tessera/types.h"

#define TS_GJK_MAX_POINTS TS_HULL_MAX_VERTICES

typedef struct ts_gjk_proxy {
    ts_vec3 points[TS_GJK_MAX_POINTS];
    int count;
    float radius;
} ts_gjk_proxy;

typedef struct ts_gjk_result {
    ts_vec3 point_a;  /* closest point of A's core */
    ts_vec3 point_b;  /* closest point of B's core */
    float distance;   /* between the cores (0 when they overlap); the shapes are distance - radii apart */
    int iterations;
} ts_gjk_result;

/* The proxy of a shape (geometry: ts_sphere / ts_box / ts_capsule per type,
 * the ts_hull_data of a hull)
 * at a world transform. Returns false for a type without one (meshes, heightfields). */
bool ts_gjk_proxy_of(ts_shape_type type, const void *geometry, ts_transform xf, ts_gjk_proxy *proxy);

/* Distance between A's core moved by offset_a and B's core. */
void ts_gjk_distance(const ts_gjk_proxy *a, ts_vec3 offset_a, const ts_gjk_proxy *b, ts_gjk_result *result);

#endif
