/* tessera: a convex shape against one triangle, in the shape's frame
 * (collide_triangle.c); collide_mesh.c merges the triangles' contacts into
 * one manifold. */
#ifndef TS_COLLIDE_COLLIDE_TRIANGLE_H
#define TS_COLLIDE_COLLIDE_TRIANGLE_H

#include "collide/collide_hull.h"
#include "collide/mesh.h"

/* Set in the feature id of a point that involves the triangle's edges (its
 * other bits mix in the triangle's id). */
#define TSN_TRI_ID_BIT 0x80000000u

typedef struct tsn_triangle_contact {
    ts_vec3 normal; /* from the triangle to the shape, in the shape's frame */
    ts_manifold_point points[4];
    int count;
    bool face; /* the normal is the triangle's */
} tsn_triangle_contact;

/* A triangle as a two-faced hull (front face 0, back face 1), for the hull
 * code's clipping. */
typedef struct tsn_triangle_hull_data {
    ts_hull_data hull;
    ts_vec3 vertices[3];
    float vx[4], vy[4], vz[4];
    ts_plane planes[2];
} tsn_triangle_hull_data;

void tsn_triangle_hull(const ts_triangle *tri, tsn_triangle_hull_data *out);

/* A sphere (p0 = p1) or capsule core [p0, p1] of radius r against tri. */
void tsn_collide_triangle_round(ts_vec3 p0, ts_vec3 p1, float r, const ts_triangle *tri, float margin,
                                tsn_triangle_contact *out);

/* A hull (or a box as a hull) against tri. */
void tsn_collide_triangle_hull(const ts_hull_data *s, const ts_triangle *tri, float margin,
                               tsn_triangle_contact *out);

/* id with the triangle's id mixed in and TSN_TRI_ID_BIT set. */
uint32_t tsn_triangle_mix_id(uint32_t id, int32_t triangle);

#endif
