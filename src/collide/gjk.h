/* tessera: GJK distance between two convex point sets (Gilbert, Johnson,
 * Keerthi 1988), for the round shapes against hulls and for queries.
 *
 * A proxy is a hull (its vertices through ts_hull_support) or a few points
 * (a segment's ends, a single point); both proxies are in one frame. The
 * result is the distance between their convex hulls and the closest points
 * on each; overlapping sets give distance 0 (overlap true) and no useful
 * points. Only + - * / and sqrtf: deterministic. */
#ifndef TS_COLLIDE_GJK_H
#define TS_COLLIDE_GJK_H

#include "collide/hull.h"

typedef struct tsn_proxy {
    const ts_vec3 *points;   /* when hull is NULL: count points */
    int count;
    const ts_hull_data *hull; /* or a hull */
} tsn_proxy;

typedef struct tsn_distance {
    ts_vec3 point_a; /* on A, closest to B */
    ts_vec3 point_b; /* on B, closest to A */
    float distance;
    bool overlap;    /* the sets overlap or touch: distance 0 */
    int iterations;
} tsn_distance;

void tsn_gjk(const tsn_proxy *a, const tsn_proxy *b, tsn_distance *out);

/* The closest point to p on triangle (a, b, c) and its feature: 0..2 the
 * vertex a, b, c; 3..5 the edge a-b, b-c, c-a; 6 the face (Ericson, Real-
 * Time Collision Detection 5.1.5, by Voronoi regions). */
ts_vec3 tsn_closest_on_triangle(ts_vec3 p, ts_vec3 a, ts_vec3 b, ts_vec3 c, int *feature);

#endif
