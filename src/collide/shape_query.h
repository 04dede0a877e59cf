/* Shape casts and overlap queries over the broadphase's trees (for
 * tessera/query.h), and the exact overlap test that sensors share.
 *
 * Shapes touch when their GJK distance is at most TS_QUERY_TOUCH: floats
 * cannot tell touching from 1e-6 m apart, so touching counts as
 * overlapping and the test says so with room to spare. A shape cast moves
 * its shape by conservative advancement (gjk.h distances; each move is the
 * gap over the closing speed along the closest points' direction, which never
 * passes the first contact of convex shapes under a translation) until the
 * gap is below TS_QUERY_TOUCH; the normal and point at that time come from
 * the narrowphase (narrowphase.h), which has a robust normal for every pair
 * even at zero distance. Read only; no allocation. */
#ifndef TS_COLLIDE_SHAPE_QUERY_H
#define TS_COLLIDE_SHAPE_QUERY_H

#include "collide/broadphase.h"
#include "tessera/query.h"

#define TS_QUERY_TOUCH 1.0e-5f

/* The geometry of a query shape, by its type. */
const void *ts_query_shape_geometry(const ts_query_shape *shape);

/* What ts_shapes_overlap and the narrowphase take for a shape record: its
 * geometry, or for a hull, mesh or heightfield the block it points to. */
const void *ts_shape_record_geometry(const ts_shape *shape);

/* Whether two shapes (geometry by type, as ts_shape_record_geometry gives)
 * at these transforms touch or overlap: every convex pair (sphere, capsule,
 * box, hull) by GJK, a mesh or heightfield by the narrowphase. */
bool ts_shapes_overlap(ts_shape_type type_a, const void *geometry_a, ts_transform xf_a, ts_shape_type type_b,
                       const void *geometry_b, ts_transform xf_b);

/* The closest hit of shape swept from pose by translation (non-zero). */
void ts_shape_cast(const ts_records *records, const ts_broadphase *broadphase, const ts_query_shape *shape,
                   ts_transform pose, ts_vec3 translation, const ts_query_filter *filter, ts_cast_hit *hit);

/* The shapes overlapping shape at pose, each to fn in the trees' order
 * until it returns false. */
void ts_shape_overlap_each(const ts_records *records, const ts_broadphase *broadphase, const ts_query_shape *shape,
                           ts_transform pose, const ts_query_filter *filter, ts_overlap_fn *fn, void *context);

/* The same for a shape given by type and geometry (as
 * ts_shape_record_geometry gives: a sensor's own shape) with its tight
 * world bounds at pose. */
void ts_shape_overlap_each_geometry(const ts_records *records, const ts_broadphase *broadphase, ts_shape_type type,
                                    const void *geometry, ts_transform pose, ts_aabb bounds,
                                    const ts_query_filter *filter, ts_overlap_fn *fn, void *context);

/* The shapes whose tight bounds overlap box, each to fn until it returns false. */
void ts_aabb_overlap_each(const ts_records *records, const ts_broadphase *broadphase, ts_aabb box,
                          const ts_query_filter *filter, ts_overlap_fn *fn, void *context);

/* A collector for the sorted buffer forms: the capacity lowest shape
 * indices, in order, and the count of all (pass ts_overlap_collect as fn). */
typedef struct ts_overlap_collector {
    ts_overlap_hit *hits;
    int capacity;
    int count;
} ts_overlap_collector;
bool ts_overlap_collect(const ts_overlap_hit *hit, void *context);

#endif
