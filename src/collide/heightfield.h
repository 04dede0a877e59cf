/* tessera: heightfields, a grid of heights collided like a mesh without
 * storing its triangles.
 *
 * Vertex (i, k) is at (i sx, h[k nx + i], k sz) with the heights already
 * scaled; cell (i, k) holds two triangles split along the diagonal from
 * vertex (i, k) to (i + 1, k + 1):
 *     triangle 2 c:     (i, k), (i, k + 1), (i + 1, k + 1)
 *     triangle 2 c + 1: (i, k), (i + 1, k + 1), (i + 1, k)
 * with c = k (nx - 1) + i, both counter-clockwise seen from +y. Their edge
 * flags (mesh.h) are worked out once per cell from the neighbouring heights
 * and kept, 3 bits per triangle. */
#ifndef TS_COLLIDE_HEIGHTFIELD_H
#define TS_COLLIDE_HEIGHTFIELD_H

#include "collide/mesh.h"

typedef struct ts_heightfield_data {
    int32_t count_x, count_z; /* vertices along x and z */
    ts_vec3 scale;
    ts_aabb bounds; /* shape frame */
    float radius;   /* the farthest vertex from the shape origin */
    const float *heights;       /* count_x * count_z, scaled */
    const uint8_t *cell_flags;  /* per cell: bits 0..2 its first triangle's edges, 3..5 its second's */
} ts_heightfield_data;

/* Checks a heightfield definition (ts_fail naming `function`). */
ts_result ts_heightfield_check(const ts_heightfield_def *def, const char *function);

size_t ts_heightfield_block_size(int count_x, int count_z);

const ts_heightfield_data *ts_heightfield_write(const ts_heightfield_def *def, void *memory);

/* Triangle `id` (2 cell + 0 or 1) of the grid. */
void ts_heightfield_triangle(const ts_heightfield_data *hf, int32_t id, ts_triangle *out);

/* Every triangle whose cell's box overlaps `box` (shape frame), cell by cell. */
void ts_heightfield_query(const ts_heightfield_data *hf, ts_aabb box, ts_triangle_visit_fn *visit, void *context);

#endif
