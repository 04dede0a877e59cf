/* tessera: a convex shape against a mesh or heightfield (collide_mesh.c). */
#ifndef TS_COLLIDE_COLLIDE_MESH_H
#define TS_COLLIDE_COLLIDE_MESH_H

#include "collide/manifold.h"
#include "tessera/types.h"

/* Shape A (sphere, capsule, box or hull; geometry as ts_collide_shapes
 * takes it) against the triangles of B (a ts_mesh_data or
 * ts_heightfield_data): one manifold of at most 4 points, the normal from
 * A to B. */
void ts_collide_convex_triangles(ts_shape_type type_a, const void *geom_a, ts_transform xfa, ts_shape_type type_b,
                                 const void *geom_b, ts_transform xfb, float margin, ts_manifold *m);

#endif
