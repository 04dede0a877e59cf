/* tessera: static triangle meshes and the triangles the narrowphase reads
 * from meshes and heightfields.
 *
 * A mesh keeps its vertices, its triangles (three vertex indices each, in
 * the order of its tree's leaves), the user's index of each triangle, and
 * per triangle which of its edges are collided as edges (the edge flags):
 * an edge on the mesh's boundary, an edge of more than two triangles, and
 * a crease that folds outward (convex) by more than TS_MESH_FLAT_SIN. An
 * edge between triangles in one plane, or folding inward, is never the
 * first thing a shape touches there (the neighbour's face is as close or
 * closer), so contacts on it are dropped or moved to the face: that is what
 * lets a body slide across a flat mesh without bumps (collide_mesh.c).
 *
 * The tree is a flat bounding volume hierarchy built once by the surface
 * area heuristic (mesh_build.c): node 0 is the root, an inner node's
 * children are nodes `index` and `index + 1`, a leaf holds triangles
 * [index, index + count). */
#ifndef TS_COLLIDE_MESH_H
#define TS_COLLIDE_MESH_H

#include "base/aabb.h"
#include "tessera/shapes.h"

#include <stddef.h>
#include <stdint.h>

/* A crease folding outward by more than this sine of its angle is collided
 * as an edge (~0.06 degrees: anything but a flat or rounding-flat joint). */
#define TS_MESH_FLAT_SIN 1.0e-3f
/* Triangles per leaf of a mesh's tree. */
#define TS_MESH_LEAF_SIZE 4

typedef struct ts_mesh_node {
    ts_aabb box;
    int32_t index; /* inner: first child; leaf: first triangle */
    int32_t count; /* 0 for an inner node, else the leaf's triangles */
} ts_mesh_node;

typedef struct ts_mesh_data {
    int32_t vertex_count;
    int32_t triangle_count;
    int32_t node_count;
    ts_aabb bounds; /* shape frame */
    float radius;   /* the farthest vertex from the shape origin */
    const ts_vec3 *vertices;
    const int32_t *triangles;    /* 3 vertex indices per triangle, in tree order */
    const int32_t *triangle_ids; /* the user's index of each triangle */
    const uint8_t *edge_flags;   /* bit k: edge k (vertex k to k + 1) is collided as an edge */
    const ts_mesh_node *nodes;
} ts_mesh_data;

/* One triangle as the narrowphase sees it (from a mesh or a heightfield). */
typedef struct ts_triangle {
    ts_vec3 v[3];       /* counter-clockwise seen from the front */
    uint8_t edge_flags; /* bit k: edge v[k] -> v[k + 1] is collided as an edge */
    int32_t id;         /* stable per triangle of its shape (feature ids use it) */
} ts_triangle;

/* Called for each triangle whose bounds overlap the query box; return false to stop. */
typedef bool ts_triangle_visit_fn(void *context, const ts_triangle *triangle);

/* Every triangle of the mesh whose box overlaps `box` (shape frame), in
 * tree order. */
void ts_mesh_query(const ts_mesh_data *mesh, ts_aabb box, ts_triangle_visit_fn *visit, void *context);

/* Checks a mesh definition (ts_fail naming `function` and the argument). */
ts_result ts_mesh_check(const ts_mesh_def *def, const char *function);

/* Bytes of the block of a mesh of this size (a multiple of 64). */
size_t ts_mesh_block_size(int vertex_count, int triangle_count);

/* Bytes of scratch memory ts_mesh_write needs (the edge search, the tree build). */
size_t ts_mesh_scratch_size(int triangle_count);

/* Builds the mesh of a checked definition into memory (ts_mesh_block_size
 * bytes, 64-byte aligned), using scratch (ts_mesh_scratch_size bytes). */
const ts_mesh_data *ts_mesh_write(const ts_mesh_def *def, void *memory, int32_t *scratch);

/* Whether the edge a -> b of triangle (a, b, c) is collided as an edge,
 * given the third vertex d of the triangle on its other side. */
bool ts_mesh_edge_is_active(ts_vec3 a, ts_vec3 b, ts_vec3 c, ts_vec3 d);

#endif
