/* tessera: convex hulls, the data the narrowphase reads.
 *
 * A hull is a convex polyhedron of at most TS_HULL_MAX_VERTICES vertices,
 * built once from a point cloud (hull_build.c) and then read-only: shapes
 * that were made from the same points share one copy (geometry_store.h).
 *
 * Topology is a half-edge structure. Half-edges come in pairs: the twin of
 * half-edge 2k is 2k + 1, so the unique edges are the even half-edges. A
 * half-edge runs from `origin` to the origin of its twin, with `face` on
 * its left; following `next` walks a face's loop counter-clockwise seen from
 * outside. Each face has a plane n . x = offset with n the unit outward
 * normal; every vertex satisfies n . v <= offset (within rounding).
 *
 * The vertices are kept twice: as ts_vec3 and as x, y, z columns padded to a
 * multiple of 4 with copies of vertex 0, so that a support query runs four
 * vertices at a time (ts_hull_support). The edges are kept as columns too,
 * for the edge pairs of the separating axis test (collide_hull.c): per
 * unique edge k (half-edge 2k) its two faces' normals u (of 2k) and v (of
 * 2k + 1), v x u, its start point p and its vector d, 15 columns of
 * edge_padded floats (zero past the last edge). Everything lives in one
 * block that this header's pointers point into. */
#ifndef TS_COLLIDE_HULL_H
#define TS_COLLIDE_HULL_H

#include "base/aabb.h"
#include "base/math3.h"

#include <stdint.h>

#define TS_HULL_MAX_VERTICES 64
/* Euler: F <= 2 V - 4 and E <= 3 V - 6 for a polyhedron of V vertices. */
#define TS_HULL_MAX_FACES (2 * TS_HULL_MAX_VERTICES - 4)
#define TS_HULL_MAX_HALF_EDGES (2 * (3 * TS_HULL_MAX_VERTICES - 6))

typedef struct ts_hull_edge {
    uint16_t next;  /* the next half-edge of the same face loop */
    uint16_t twin;  /* the opposite half-edge (index ^ 1) */
    uint8_t origin; /* the vertex it starts at */
    uint8_t face;   /* the face on its left */
} ts_hull_edge;

typedef struct ts_plane {
    ts_vec3 normal; /* unit, outward */
    float offset;   /* normal . x = offset on the plane */
} ts_plane;

typedef struct ts_hull_data {
    int32_t vertex_count;
    int32_t face_count;
    int32_t edge_count;   /* half-edges: twice the number of edges */
    int32_t padded_count; /* vertex_count rounded up to a multiple of 4 (the columns' length) */
    int32_t edge_padded;  /* edge_count / 2 rounded up to a multiple of 4 */
    ts_aabb bounds;       /* in the shape frame */
    float radius;         /* the farthest vertex from the shape origin */
    float center_radius;  /* the farthest vertex from the centre of bounds */
    float inner_radius;   /* the largest sphere about the centroid inside every face */
    /* Mass properties at density 1: the volume, the centroid, and the inertia
     * tensor about the centroid (xx, yy, zz, xy, xz, yz: the tensor's own
     * entries, so the products are -integral(x y) dV). */
    float volume;
    ts_vec3 centroid;
    float inertia[6];
    uint64_t key; /* hash of the input points: shapes with the same points share the hull */
    const ts_vec3 *vertices;
    const float *vx, *vy, *vz; /* padded columns */
    const ts_plane *planes;
    const uint16_t *face_first; /* a half-edge of each face */
    const ts_hull_edge *edges;
    const float *edge_columns; /* 15 columns of edge_padded: ux uy uz vx vy vz bx by bz px py pz dx dy dz */
} ts_hull_data;

enum { TS_EDGE_UX, TS_EDGE_VX = 3, TS_EDGE_BX = 6, TS_EDGE_PX = 9, TS_EDGE_DX = 12, TS_EDGE_COLUMNS = 15 };

/* Fills the edge columns of a hull whose other fields are set. */
void ts_hull_fill_edge_columns(const ts_hull_data *hull, float *columns);

/* The index of the vertex farthest along d (the first one on ties), four at
 * a time: the same index and bits on every build and width. */
int ts_hull_support(const ts_hull_data *hull, ts_vec3 d);

/* The smallest value of d . v over the vertices (the support along -d). */
float ts_hull_min_dot(const ts_hull_data *hull, ts_vec3 d, int *index);

/* The end points of the edge of half-edge h. */
static inline void ts_hull_edge_points(const ts_hull_data *hull, int h, ts_vec3 *p, ts_vec3 *q)
{
    *p = hull->vertices[hull->edges[h].origin];
    *q = hull->vertices[hull->edges[h ^ 1].origin];
}

/* The number of half-edges (= vertices) of face f. */
static inline int ts_hull_face_size(const ts_hull_data *hull, int f)
{
    int first = hull->face_first[f];
    int n = 0;
    int h = first;
    do {
        ++n;
        h = hull->edges[h].next;
    } while (h != first);
    return n;
}

/* A box as a hull on the caller's stack (the narrowphase runs hull code on
 * boxes with it): the 8 corners, 6 faces and 12 edges of a box of half
 * extents h, with a fixed topology. */
typedef struct ts_box_hull {
    ts_hull_data hull;
    ts_vec3 vertices[8];
    float vx[8], vy[8], vz[8];
    ts_plane planes[6];
    float edge_columns[TS_EDGE_COLUMNS * 12];
} ts_box_hull;

void ts_make_box_hull(ts_vec3 half_extents, ts_box_hull *out);

#endif
