/* Ray casts through the dynamic AABB tree (dynamic_tree.h): the leaves
 * whose boxes a ray passes, nearest box first, with the ray cut short as
 * the caller finds hits. A swept box (a shape cast) walks the same way with
 * every node box grown by the moving box's half extents. */
#ifndef TS_COLLIDE_DYNAMIC_TREE_RAY_H
#define TS_COLLIDE_DYNAMIC_TREE_RAY_H

#include "collide/dynamic_tree.h"
#include "collide/ray.h"

/* Called for each leaf whose box (grown by the extent) the ray passes over
 * [0, max] (category bits sharing a bit with the mask), with max the
 * current end of the ray. Returns the new end: max to go on, less to cut the
 * ray short, a negative value to stop. */
typedef float ts_tree_ray_fn(int proxy, int32_t user_id, void *context);

/* Walks the tree depth first, at each node the child the ray enters first
 * before the other, skipping every node entered after the ray's end (a
 * node entered exactly there is visited). extent: the half extents that
 * every box is grown by (zero for a ray: the boxes are then used bit for
 * bit as stored). Reads the tree only: any number of threads may cast at
 * once while nobody writes. */
void ts_tree_ray_cast(const ts_dynamic_tree *tree, const ts_ray *ray, ts_vec3 extent, uint64_t mask_bits, float max,
                      ts_tree_ray_fn *fn, void *context);

#endif
