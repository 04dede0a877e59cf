/* tessera: narrowphase dispatch by shape type.
 *
 * One function per pair of convex types in the order sphere < capsule <
 * box < hull (sphere-capsule, sphere-box, capsule-box, the same-type pairs
 * and every pair with a hull), and one for any convex shape against a mesh
 * or a heightfield (collide_mesh.c); meshes and heightfields do not collide
 * with each other. A pair in the other order calls the implemented function
 * with the shapes swapped and negates the normal, so it still points from A
 * to B; points and feature ids are unchanged (points sit midway between the
 * surfaces, so they do not depend on which shape is first). */
#include "collide/narrowphase.h"
#include "base/math3.h"
#include "collide/collide_hull.h"
#include "collide/collide_mesh.h"

#include <stddef.h>

static bool is_triangles(ts_shape_type t) { return t == TS_SHAPE_MESH || t == TS_SHAPE_HEIGHTFIELD; }

/* Pair in implemented order (lo, hi). Returns false for an unknown pair. */
static bool collide_ordered(ts_shape_type ta, const void *ga, ts_transform xfa, ts_shape_type tb, const void *gb,
                            ts_transform xfb, float margin, ts_manifold *m, ts_sat_cache *cache)
{
    if (is_triangles(tb)) {
        if (is_triangles(ta)) {
            return false;
        }
        ts_collide_convex_triangles(ta, ga, xfa, tb, gb, xfb, margin, m);
        return true;
    }
    switch (ta) {
    case TS_SHAPE_SPHERE:
        switch (tb) {
        case TS_SHAPE_SPHERE: ts_collide_spheres(ga, xfa, gb, xfb, margin, m); return true;
        case TS_SHAPE_CAPSULE: ts_collide_sphere_capsule(ga, xfa, gb, xfb, margin, m); return true;
        case TS_SHAPE_BOX: ts_collide_sphere_box(ga, xfa, gb, xfb, margin, m); return true;
        case TS_SHAPE_HULL: ts_collide_sphere_hull(ga, xfa, gb, xfb, margin, m); return true;
        default: return false;
        }
    case TS_SHAPE_CAPSULE:
        switch (tb) {
        case TS_SHAPE_CAPSULE: ts_collide_capsules(ga, xfa, gb, xfb, margin, m); return true;
        case TS_SHAPE_BOX: ts_collide_capsule_box(ga, xfa, gb, xfb, margin, m); return true;
        case TS_SHAPE_HULL: ts_collide_capsule_hull(ga, xfa, gb, xfb, margin, m); return true;
        default: return false;
        }
    case TS_SHAPE_BOX:
        switch (tb) {
        case TS_SHAPE_BOX: ts_collide_boxes(ga, xfa, gb, xfb, margin, m); return true;
        case TS_SHAPE_HULL: ts_collide_box_hull(ga, xfa, gb, xfb, margin, m, cache); return true;
        default: return false;
        }
    case TS_SHAPE_HULL:
        if (tb == TS_SHAPE_HULL) {
            ts_collide_hulls_cached(ga, xfa, gb, xfb, margin, m, cache);
            return true;
        }
        return false;
    default:
        return false;
    }
}

/* Rank of a type in the implemented order. */
static int type_rank(ts_shape_type t)
{
    switch (t) {
    case TS_SHAPE_SPHERE: return 0;
    case TS_SHAPE_CAPSULE: return 1;
    case TS_SHAPE_BOX: return 2;
    case TS_SHAPE_HULL: return 3;
    case TS_SHAPE_MESH: return 4;
    case TS_SHAPE_HEIGHTFIELD: return 5;
    default: return -1;
    }
}

void ts_collide_shapes_cached(ts_shape_type type_a, const void *geom_a, ts_transform xfa, ts_shape_type type_b,
                              const void *geom_b, ts_transform xfb, float margin, ts_manifold *m,
                              struct ts_sat_cache *cache)
{
    m->point_count = 0;
    int rank_a = type_rank(type_a);
    int rank_b = type_rank(type_b);
    if (geom_a == NULL || geom_b == NULL || rank_a < 0 || rank_b < 0) {
        return;
    }
    if (rank_a <= rank_b) {
        collide_ordered(type_a, geom_a, xfa, type_b, geom_b, xfb, margin, m, cache);
        return;
    }
    /* The cache names features of the pair in implemented order, so the
     * same cache serves either order. */
    if (collide_ordered(type_b, geom_b, xfb, type_a, geom_a, xfa, margin, m, cache)) {
        m->normal = ts_neg(m->normal);
    }
}

void ts_collide_shapes(ts_shape_type type_a, const void *geom_a, ts_transform xfa, ts_shape_type type_b,
                       const void *geom_b, ts_transform xfb, float margin, ts_manifold *m)
{
    ts_collide_shapes_cached(type_a, geom_a, xfa, type_b, geom_b, xfb, margin, m, NULL);
}
