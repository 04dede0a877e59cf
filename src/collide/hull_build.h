/* tessera: building a convex hull from a point cloud (setup code, never in
 * a step).
 *
 * ts_hull_compute runs quickhull in double precision over at most
 * TS_HULL_MAX_VERTICES points, merges coplanar triangles into polygon faces
 * and drops vertices that end up in the middle of an edge or a face, then
 * checks the result (every point inside, Euler's formula). ts_hull_write lays
 * the result out as a ts_hull_data block (hull.h) with its mass properties. */
#ifndef TS_COLLIDE_HULL_BUILD_H
#define TS_COLLIDE_HULL_BUILD_H

#include "collide/hull.h"
#include "tessera/types.h"

#include <stddef.h>

/* A hull before it is packed: fixed capacity, about 5 KB (fine on a stack). */
typedef struct ts_hull_topology {
    int vertex_count;
    int face_count;
    int edge_count; /* half-edges */
    ts_vec3 vertices[TS_HULL_MAX_VERTICES];
    ts_plane planes[TS_HULL_MAX_FACES];
    uint16_t face_first[TS_HULL_MAX_FACES];
    ts_hull_edge edges[TS_HULL_MAX_HALF_EDGES];
} ts_hull_topology;

/* The hull of points[0 .. count). Fails (ts_fail naming `function`) on NULL
 * points, count < 4 or > TS_HULL_MAX_VERTICES, a NaN or infinite
 * coordinate (TS_ERROR_NOT_FINITE), or points that span no volume: all
 * within a tiny distance of one point, one line or one plane
 * (TS_ERROR_OUT_OF_RANGE, saying which). */
ts_result ts_hull_compute(const ts_vec3 *points, int count, ts_hull_topology *out, const char *function);

/* Bytes of the ts_hull_data block of a topology (a multiple of 64). */
size_t ts_hull_block_size(const ts_hull_topology *topology);

/* Writes the block into memory (ts_hull_block_size bytes, 64-byte aligned):
 * the ts_hull_data at its start, its arrays after it, and its mass
 * properties. key is stored as the hull's key. */
const ts_hull_data *ts_hull_write(const ts_hull_topology *topology, uint64_t key, void *memory);

/* Volume, centroid and inertia (density 1, about the centroid: xx yy zz xy
 * xz yz) of a closed convex polyhedron, exactly (hull_mass.c). */
void ts_hull_mass_properties(const ts_hull_topology *topology, float *volume, ts_vec3 *centroid, float inertia[6]);

#endif
