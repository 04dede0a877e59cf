/** @file
 * Queries on a world's shapes: ray casts (one ray, or many at once), shape
 * casts and overlap tests (included by tessera.h; see docs/queries.md).
 *
 * Every query reads the world as the last step (or call) left it: bodies
 * where they are now, in the broadphase trees. Sensor shapes
 * (ts_shape_def::is_sensor) are never reported.
 *
 * Filters: a shape is reported when (its category_bits & filter.mask_bits)
 * != 0 and (filter.category_bits & its mask_bits) != 0 (the same rule as two
 * shapes that may touch), and then, when filter.fn is set, when
 * fn(shape, filter.context) returns true. fn is asked only about shapes the
 * query hits or overlaps; a closest-hit query asks only when the shape would
 * be the closest so far, so it may not see every shape the ray crosses. A
 * NULL filter pointer means ts_default_query_filter(): every shape.
 *
 * Rays start inside: a shape is hit where the ray enters it. A ray that
 * starts inside a shape does not hit that shape (it reports what it enters
 * next); one that starts on a surface counts as outside, so it hits that
 * shape at fraction 0 when it points into it.
 *
 * Threads: queries only read the world. Between steps any number of
 * threads may run queries on one world at once (this is the exception to
 * tessera.h's one-thread-per-world rule); none may run while the world
 * steps or while any other call changes it, and none from inside a step's
 * task callbacks. ts_world_cast_rays spreads its rays over the world's
 * workers (ts_world_def::threads); when another ts_world_cast_rays of the
 * same world holds them at that moment, it runs on the calling thread
 * alone, with the same results. The filter callback of ts_world_cast_rays
 * may then be called from several threads at once. Queries allocate only
 * in ts_world_cast_rays (its wide tree, through the world's allocator; the
 * memory is kept by the world for the next batch and freed with the world,
 * except a batch that runs alone while another holds the workers, which
 * frees its own before it returns; the default allocator is thread safe).
 *
 * Results are deterministic: the same world and query give the same bits on
 * any thread count and SIMD width, and ts_world_cast_rays gives each ray
 * bit for bit what ts_world_cast_ray gives it. Closest hits at the same
 * fraction go to the shape of lower index (creation slot). */
#ifndef TESSERA_QUERY_H
#define TESSERA_QUERY_H

#include "tessera/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A query's own filter callback: return false to skip the shape. */
typedef bool ts_query_filter_fn(ts_shape_id shape, void *context);

/** Which shapes a query reports (see the file comment for the rule). */
typedef struct ts_query_filter {
    uint64_t category_bits; /**< what the query is; default 1 */
    uint64_t mask_bits;     /**< the categories it reports; default all */
    ts_query_filter_fn *fn; /**< optional per-shape test; default NULL */
    void *context;          /**< passed to fn */
} ts_query_filter;

/** Category 1, every mask bit, no callback: reports every shape whose mask
 * has bit 0 (the default shape filter's). */
TS_API ts_query_filter ts_default_query_filter(void);

/** Where a ray or a swept shape hits a shape. */
typedef struct ts_cast_hit {
    ts_shape_id shape; /**< the shape hit (the null id when hit is false) */
    ts_body_id body;   /**< its body */
    ts_vec3 point;     /**< world point of the hit (ray: origin + fraction length direction) */
    ts_vec3 normal;    /**< unit surface normal of the shape hit at point, against the ray or sweep */
    float fraction;    /**< of the ray's length (or of the translation), in [0, 1] */
    bool hit;          /**< false: nothing was hit (the other fields are zero) */
} ts_cast_hit;

/** Called for each hit of ts_world_cast_ray_each; return false to stop. */
typedef bool ts_cast_hit_fn(const ts_cast_hit *hit, void *context);

/** What an overlap query found. */
typedef struct ts_overlap_hit {
    ts_shape_id shape; /**< the shape */
    ts_body_id body;   /**< its body */
} ts_overlap_hit;

/** Called for each shape an overlap query finds; return false to stop. */
typedef bool ts_overlap_fn(const ts_overlap_hit *hit, void *context);

/* ---- rays ---- */

/** The closest shape hit by the ray from origin along direction (any
 * non-zero length; it is normalised) over `length` metres. *hit gets
 * hit = false when nothing is hit. TS_ERROR_NULL_POINTER (hit),
 * TS_ERROR_NOT_FINITE (origin, direction, length),
 * TS_ERROR_OUT_OF_RANGE (a zero direction, length <= 0), TS_ERROR_STALE_ID. */
TS_API ts_result ts_world_cast_ray(ts_world_id world, ts_vec3 origin, ts_vec3 direction, float length,
                                   const ts_query_filter *filter, ts_cast_hit *hit);

/** Some shape the ray hits, not necessarily the closest (the first the
 * walk meets): the cheapest "is the line of sight blocked". Errors as
 * ts_world_cast_ray(). */
TS_API ts_result ts_world_cast_ray_any(ts_world_id world, ts_vec3 origin, ts_vec3 direction, float length,
                                       const ts_query_filter *filter, ts_cast_hit *hit);

/** Every shape the ray hits, each once, passed to fn in the order the walk
 * meets them (nearer boxes first, not sorted by fraction); fn returns
 * false to stop. Errors as ts_world_cast_ray(), TS_ERROR_NULL_POINTER for
 * fn. */
TS_API ts_result ts_world_cast_ray_each(ts_world_id world, ts_vec3 origin, ts_vec3 direction, float length,
                                        const ts_query_filter *filter, ts_cast_hit_fn *fn, void *context);

/** Every shape the ray hits into hits[], sorted by fraction (then shape
 * index); *count gets how many there are. hits may be NULL with capacity 0
 * to count only. When more than capacity are hit, the capacity nearest are
 * written, *count says how many there are, and the call returns
 * TS_ERROR_CAPACITY. Errors as ts_world_cast_ray(), TS_ERROR_NULL_POINTER
 * (count, or hits with capacity > 0), TS_ERROR_OUT_OF_RANGE (capacity < 0). */
TS_API ts_result ts_world_cast_ray_all(ts_world_id world, ts_vec3 origin, ts_vec3 direction, float length,
                                       const ts_query_filter *filter, ts_cast_hit *hits, int capacity, int *count);

/** Casts count rays at once: ray i from origins[i] along directions[i]
 * over lengths[i], its closest hit into hits[i], exactly what
 * ts_world_cast_ray() gives it. The shape tests run on SIMD lanes through a
 * wide tree built for the call (a batch of fewer rays than an eighth of
 * the shapes goes ray by ray through the broadphase trees), and the rays are spread over the world's
 * workers; results are in input order and the same for any thread count and
 * SIMD width. Every ray is checked first: on failure nothing is written.
 * TS_ERROR_NULL_POINTER (an array, unless count is 0), TS_ERROR_OUT_OF_RANGE
 * (count < 0; a zero direction or length <= 0: the message names the ray),
 * TS_ERROR_NOT_FINITE (the message names the ray), TS_ERROR_STALE_ID,
 * TS_ERROR_OUT_OF_MEMORY (the wide tree). */
TS_API ts_result ts_world_cast_rays(ts_world_id world, const ts_vec3 *origins, const ts_vec3 *directions,
                                    const float *lengths, int count, const ts_query_filter *filter,
                                    ts_cast_hit *hits);

/* ---- shape casts and overlaps ---- */

/** A shape for shape casts and overlap queries: type names the member of
 * geometry that is read (sizes as for ts_create_*_shape). */
typedef struct ts_query_shape {
    ts_shape_type type; /**< TS_SHAPE_SPHERE, TS_SHAPE_BOX or TS_SHAPE_CAPSULE */
    /** The shape's size. */
    union {
        ts_sphere sphere;   /**< type TS_SHAPE_SPHERE */
        ts_box box;         /**< type TS_SHAPE_BOX */
        ts_capsule capsule; /**< type TS_SHAPE_CAPSULE */
    } geometry;
} ts_query_shape;

/** The closest shape a shape hits when swept from pose by translation
 * (no rotation): fraction is the time of impact as a fraction of the
 * translation, point a point where they touch then, normal the surface
 * normal of the shape hit there (pointing back at the swept shape). Shapes
 * the swept shape overlaps at pose already are hit at fraction 0 (normal:
 * how the narrowphase would push them apart). Found by conservative
 * advancement on GJK distances, to within 1e-5 m of touching.
 * TS_ERROR_NULL_POINTER (shape, hit), TS_ERROR_NOT_FINITE (pose,
 * translation), TS_ERROR_OUT_OF_RANGE (a shape type or size that
 * ts_create_*_shape would refuse, a rotation not within 1% of unit length,
 * a zero translation), TS_ERROR_STALE_ID. */
TS_API ts_result ts_world_cast_shape(ts_world_id world, const ts_query_shape *shape, ts_transform pose,
                                     ts_vec3 translation, const ts_query_filter *filter, ts_cast_hit *hit);

/** The shapes that overlap the shape at pose (touching counts: closer than
 * 1e-5 m), sorted by shape index, into hits[]; capacity, count and
 * TS_ERROR_CAPACITY as for ts_world_cast_ray_all(). Errors as
 * ts_world_cast_shape() (no translation), TS_ERROR_NULL_POINTER (count,
 * or hits with capacity > 0), TS_ERROR_OUT_OF_RANGE (capacity < 0). */
TS_API ts_result ts_world_overlap_shape(ts_world_id world, const ts_query_shape *shape, ts_transform pose,
                                        const ts_query_filter *filter, ts_overlap_hit *hits, int capacity,
                                        int *count);

/** The same shapes passed to fn, in the trees' order; fn returns false to
 * stop. Errors as ts_world_cast_shape(), TS_ERROR_NULL_POINTER for fn. */
TS_API ts_result ts_world_overlap_shape_each(ts_world_id world, const ts_query_shape *shape, ts_transform pose,
                                             const ts_query_filter *filter, ts_overlap_fn *fn, void *context);

/** The shapes whose bounding box (the tight world box of the shape, not
 * its fat broadphase box) overlaps the box [lower, upper] (touching
 * counts), sorted by shape index; capacity, count and TS_ERROR_CAPACITY as
 * for ts_world_cast_ray_all(). TS_ERROR_NOT_FINITE (lower, upper),
 * TS_ERROR_OUT_OF_RANGE (lower above upper on an axis, capacity < 0),
 * TS_ERROR_NULL_POINTER (count, or hits with capacity > 0),
 * TS_ERROR_STALE_ID. */
TS_API ts_result ts_world_overlap_aabb(ts_world_id world, ts_vec3 lower, ts_vec3 upper,
                                       const ts_query_filter *filter, ts_overlap_hit *hits, int capacity, int *count);

/** The same shapes passed to fn, in the trees' order; fn returns false to
 * stop. Errors as ts_world_overlap_aabb(), TS_ERROR_NULL_POINTER for fn. */
TS_API ts_result ts_world_overlap_aabb_each(ts_world_id world, ts_vec3 lower, ts_vec3 upper,
                                            const ts_query_filter *filter, ts_overlap_fn *fn, void *context);

#ifdef __cplusplus
}
#endif

#endif
