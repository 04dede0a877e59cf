/* The public queries of tessera/query.h: argument checks, then the collide
 * layer's ray casts (ray_cast.h, ray_batch.h) and shape queries
 * (shape_query.h). Every query only reads the world. */
#include "api/world.h"
#include "base/validate.h"
#include "base/timer.h"
#include "collide/ray_batch.h"
#include "collide/ray_cast.h"
#include "collide/shape_query.h"
#include "tessera/tessera.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

ts_query_filter ts_default_query_filter(void) { return (ts_query_filter){1u, UINT64_MAX, NULL, NULL}; }

static const ts_query_filter *filter_or_default(const ts_query_filter *filter, ts_query_filter *storage)
{
    if (filter != NULL) {
        return filter;
    }
    *storage = ts_default_query_filter();
    return storage;
}

/* ---- checks ---- */

/* origin, direction and length of a ray (`which` names it in batches). */
static ts_result check_ray(ts_vec3 origin, ts_vec3 direction, float length, ts_ray *ray, const char *fn,
                           const char *which)
{
    if (!ts_vec3_is_finite(origin)) {
        return ts_fail(TS_ERROR_NOT_FINITE, fn, "%sorigin has a NaN or infinite component (%g, %g, %g)", which,
                       (double)origin.x, (double)origin.y, (double)origin.z);
    }
    if (!ts_vec3_is_finite(direction)) {
        return ts_fail(TS_ERROR_NOT_FINITE, fn, "%sdirection has a NaN or infinite component (%g, %g, %g)", which,
                       (double)direction.x, (double)direction.y, (double)direction.z);
    }
    if (!ts_is_finite(length)) {
        return ts_fail(TS_ERROR_NOT_FINITE, fn, "%slength is %g (must be finite)", which, (double)length);
    }
    if (!(length > 0.0f)) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, fn, "%slength is %g (must be > 0)", which, (double)length);
    }
    if (!ts_ray_prepare(origin, direction, length, ray)) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, fn, "%sdirection (%g, %g, %g) has zero length", which,
                       (double)direction.x, (double)direction.y, (double)direction.z);
    }
    return TS_OK;
}

/* A query shape: a known type with the sizes its create call accepts. */
static ts_result check_query_shape(const ts_query_shape *shape, const char *fn)
{
    TS_CHECK_NOT_NULL(shape, fn);
    switch (shape->type) {
    case TS_SHAPE_SPHERE: return ts_check_positive(shape->geometry.sphere.radius, fn, "shape->geometry.sphere.radius");
    case TS_SHAPE_BOX:
        TS_TRY(ts_check_positive(shape->geometry.box.half_extents.x, fn, "shape->geometry.box.half_extents.x"));
        TS_TRY(ts_check_positive(shape->geometry.box.half_extents.y, fn, "shape->geometry.box.half_extents.y"));
        return ts_check_positive(shape->geometry.box.half_extents.z, fn, "shape->geometry.box.half_extents.z");
    case TS_SHAPE_CAPSULE:
        TS_TRY(ts_check_positive(shape->geometry.capsule.radius, fn, "shape->geometry.capsule.radius"));
        return ts_check_non_negative(shape->geometry.capsule.half_height, fn, "shape->geometry.capsule.half_height");
    default:
        return ts_fail(TS_ERROR_OUT_OF_RANGE, fn, "shape->type is %d (not a ts_shape_type)", (int)shape->type);
    }
}

static ts_result check_pose(ts_transform pose, ts_transform *checked, const char *fn)
{
    TS_TRY(ts_check_finite_vec3(pose.p, fn, "pose.p"));
    checked->p = pose.p;
    return ts_check_rotation(pose.q, &checked->q, fn, "pose.q");
}

/* ---- rays ---- */

#define WORLD_LOOKUP(id, world)                                                                                \
    ts_world *world = ts_world_lookup(id, __func__);                                                           \
    if (world == NULL) {                                                                                       \
        return TS_ERROR_STALE_ID;                                                                              \
    }

ts_result ts_world_cast_ray(ts_world_id id, ts_vec3 origin, ts_vec3 direction, float length,
                            const ts_query_filter *filter, ts_cast_hit *hit)
{
    TS_CHECK_NOT_NULL(hit, __func__);
    ts_ray ray;
    TS_TRY(check_ray(origin, direction, length, &ray, __func__, ""));
    WORLD_LOOKUP(id, world);
    ts_query_filter storage;
    ts_ray_cast_closest(&world->records, &world->collision.broadphase, &ray, filter_or_default(filter, &storage), hit);
    return TS_OK;
}

ts_result ts_world_cast_ray_any(ts_world_id id, ts_vec3 origin, ts_vec3 direction, float length,
                                const ts_query_filter *filter, ts_cast_hit *hit)
{
    TS_CHECK_NOT_NULL(hit, __func__);
    ts_ray ray;
    TS_TRY(check_ray(origin, direction, length, &ray, __func__, ""));
    WORLD_LOOKUP(id, world);
    ts_query_filter storage;
    ts_ray_cast_any(&world->records, &world->collision.broadphase, &ray, filter_or_default(filter, &storage), hit);
    return TS_OK;
}

ts_result ts_world_cast_ray_each(ts_world_id id, ts_vec3 origin, ts_vec3 direction, float length,
                                 const ts_query_filter *filter, ts_cast_hit_fn *fn, void *context)
{
    TS_CHECK_NOT_NULL(fn, __func__);
    ts_ray ray;
    TS_TRY(check_ray(origin, direction, length, &ray, __func__, ""));
    WORLD_LOOKUP(id, world);
    ts_query_filter storage;
    ts_ray_cast_each(&world->records, &world->collision.broadphase, &ray, filter_or_default(filter, &storage), fn,
                     context);
    return TS_OK;
}

/* The end of a buffer query: the count, and TS_ERROR_CAPACITY when the
 * caller's buffer (not a count-only call) was too small. */
static ts_result finish_buffer(const void *buffer, int capacity, int found, int *count, const char *fn)
{
    *count = found;
    if (buffer != NULL && found > capacity) {
        return ts_fail(TS_ERROR_CAPACITY, fn, "%d results do not fit the capacity %d (the %d first were written)",
                       found, capacity, capacity);
    }
    return TS_OK;
}

ts_result ts_world_cast_ray_all(ts_world_id id, ts_vec3 origin, ts_vec3 direction, float length,
                                const ts_query_filter *filter, ts_cast_hit *hits, int capacity, int *count)
{
    TS_CHECK_NOT_NULL(count, __func__);
    TS_TRY(ts_check_output_array(hits, capacity, __func__, "hits"));
    ts_ray ray;
    TS_TRY(check_ray(origin, direction, length, &ray, __func__, ""));
    WORLD_LOOKUP(id, world);
    ts_query_filter storage;
    int found = ts_ray_cast_all(&world->records, &world->collision.broadphase, &ray,
                                filter_or_default(filter, &storage), hits, hits != NULL ? capacity : 0);
    return finish_buffer(hits, capacity, found, count, __func__);
}

/* ---- batched rays ---- */

/* Rays per block of the parallel stage (a multiple of every width). */
#define RAY_BLOCK 64
/* Fewer rays than this run on the calling thread alone. */
#define RAY_PARALLEL_MIN 512

typedef struct ray_job {
    ts_ray_batch batch;
    const ts_broadphase *broadphase;
    ts_parallel *parallel;
    int width;        /* of the kernel */
    bool wide;        /* the wide tree, else ray by ray through the binary trees */
    int32_t count;
    int32_t block_size;
    int32_t blocks;
} ray_job;

static void ray_block(void *context, int32_t block, int worker)
{
    (void)worker;
    const ray_job *job = context;
    int32_t begin, end;
    ts_block_range(block, job->block_size, job->count, &begin, &end);
    if (job->wide) {
        ts_ray_batch_cast(&job->batch, job->width, begin, end);
        return;
    }
    const ts_ray_batch *b = &job->batch;
    for (int32_t i = begin; i < end; ++i) {
        ts_ray ray;
        ts_ray_prepare(b->origins[i], b->directions[i], b->lengths[i], &ray);
        ts_ray_cast_closest(b->records, job->broadphase, &ray, b->filter, b->hits + i);
    }
}

static ts_result ray_stage(void *context)
{
    ray_job *job = context;
    ts_parallel_for(job->parallel, ray_block, job, job->blocks);
    return TS_OK;
}

static ts_result check_rays(const ts_vec3 *origins, const ts_vec3 *directions, const float *lengths, int count,
                            const char *fn)
{
    for (int i = 0; i < count; ++i) {
        ts_ray ray;
        if (ts_vec3_is_finite(origins[i]) && ts_vec3_is_finite(directions[i]) && ts_is_finite(lengths[i]) &&
            lengths[i] > 0.0f && ts_ray_prepare(origins[i], directions[i], lengths[i], &ray)) {
            continue;
        }
        char which[40]; /* only for the message of the first bad ray */
        snprintf(which, sizeof which, "ray %d: ", i);
        return check_ray(origins[i], directions[i], lengths[i], &ray, fn, which);
    }
    return TS_OK;
}

/* Runs the job's blocks on the world's workers, or on this thread for a
 * small batch or when `workers` is false. */
static ts_result run_rays(ts_world *world, ray_job *job, bool workers)
{
    if (workers && world->thread_count > 1 && job->count >= RAY_PARALLEL_MIN) {
        return ts_parallel_run(&world->parallel, &world->records.allocator, world->thread_count, 1, ray_stage, job);
    }
    for (int32_t block = 0; block < job->blocks; ++block) {
        ray_block(job, block, 0);
    }
    return TS_OK;
}

ts_result ts_world_cast_rays(ts_world_id id, const ts_vec3 *origins, const ts_vec3 *directions, const float *lengths,
                             int count, const ts_query_filter *filter, ts_cast_hit *hits)
{
    if (count < 0) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, __func__, "count is %d (must be >= 0)", count);
    }
    if (count > 0) {
        TS_CHECK_NOT_NULL(origins, __func__);
        TS_CHECK_NOT_NULL(directions, __func__);
        TS_CHECK_NOT_NULL(lengths, __func__);
        TS_CHECK_NOT_NULL(hits, __func__);
    }
    TS_TRY(check_rays(origins, directions, lengths, count, __func__));
    WORLD_LOOKUP(id, world);
    if (count == 0) {
        return TS_OK;
    }
    ts_query_filter storage;
    ray_job job = {
        .batch = {NULL, &world->records, filter_or_default(filter, &storage), origins, directions, lengths, hits},
        .broadphase = &world->collision.broadphase,
        .parallel = &world->parallel,
        .width = world->solver.simd_width,
        .count = count,
        .block_size = RAY_BLOCK,
        .blocks = ts_block_count(count, RAY_BLOCK),
    };
    /* The world's workers and its wide tree's memory (kept from the last
     * batch: fresh pages cost more than the build), unless another batch
     * holds them: then this one runs alone in memory of its own. */
    int expected = 0;
    bool owner = atomic_compare_exchange_strong(&world->query_workers, &expected, 1);
    ts_ray_bvh local = {0};
    ts_ray_bvh *bvh = owner ? &world->ray_bvh : &local;
    const ts_allocator *allocator = &world->records.allocator;
    ts_result result = TS_OK;
    /* The wide tree costs about as much as casting a ray per 8 shapes
     * through the binary trees: smaller batches go ray by ray. */
    if ((int64_t)count * 8 >= ts_id_pool_live_count(&world->records.shape_ids)) {
        if (ts_ray_bvh_build(bvh, &world->records, job.broadphase, job.batch.filter, allocator)) {
            job.wide = bvh->depth <= TS_RAY_BATCH_MAX_DEPTH;
            job.batch.bvh = bvh;
        } else {
            result = ts_fail(TS_ERROR_OUT_OF_MEMORY, __func__, "the allocator returned NULL (the wide tree)");
        }
    }
    if (result == TS_OK) {
        result = run_rays(world, &job, owner);
    }
    ts_ray_bvh_free(&local, allocator);
    if (owner) {
        atomic_store(&world->query_workers, 0);
    }
    return result;
}

/* ---- shape casts and overlaps ---- */

ts_result ts_world_cast_shape(ts_world_id id, const ts_query_shape *shape, ts_transform pose, ts_vec3 translation,
                              const ts_query_filter *filter, ts_cast_hit *hit)
{
    TS_CHECK_NOT_NULL(hit, __func__);
    TS_TRY(check_query_shape(shape, __func__));
    ts_transform checked;
    TS_TRY(check_pose(pose, &checked, __func__));
    TS_TRY(ts_check_finite_vec3(translation, __func__, "translation"));
    if (ts_vec3_is_zero(translation) || !(ts_dot(translation, translation) > 0.0f)) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, __func__, "translation (%g, %g, %g) has zero length",
                       (double)translation.x, (double)translation.y, (double)translation.z);
    }
    WORLD_LOOKUP(id, world);
    ts_query_filter storage;
    ts_shape_cast(&world->records, &world->collision.broadphase, shape, checked, translation,
                  filter_or_default(filter, &storage), hit);
    return TS_OK;
}

ts_result ts_world_overlap_shape_each(ts_world_id id, const ts_query_shape *shape, ts_transform pose,
                                      const ts_query_filter *filter, ts_overlap_fn *fn, void *context)
{
    TS_CHECK_NOT_NULL(fn, __func__);
    TS_TRY(check_query_shape(shape, __func__));
    ts_transform checked;
    TS_TRY(check_pose(pose, &checked, __func__));
    WORLD_LOOKUP(id, world);
    ts_query_filter storage;
    ts_shape_overlap_each(&world->records, &world->collision.broadphase, shape, checked,
                          filter_or_default(filter, &storage), fn, context);
    return TS_OK;
}

ts_result ts_world_overlap_shape(ts_world_id id, const ts_query_shape *shape, ts_transform pose,
                                 const ts_query_filter *filter, ts_overlap_hit *hits, int capacity, int *count)
{
    TS_CHECK_NOT_NULL(count, __func__);
    TS_TRY(ts_check_output_array(hits, capacity, __func__, "hits"));
    TS_TRY(check_query_shape(shape, __func__));
    ts_transform checked;
    TS_TRY(check_pose(pose, &checked, __func__));
    WORLD_LOOKUP(id, world);
    ts_query_filter storage;
    ts_overlap_collector collector = {hits, hits != NULL ? capacity : 0, 0};
    ts_shape_overlap_each(&world->records, &world->collision.broadphase, shape, checked,
                          filter_or_default(filter, &storage), ts_overlap_collect, &collector);
    return finish_buffer(hits, capacity, collector.count, count, __func__);
}

static ts_result check_box(ts_vec3 lower, ts_vec3 upper, const char *fn)
{
    TS_TRY(ts_check_finite_vec3(lower, fn, "lower"));
    TS_TRY(ts_check_finite_vec3(upper, fn, "upper"));
    if (lower.x > upper.x || lower.y > upper.y || lower.z > upper.z) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, fn, "lower (%g, %g, %g) is above upper (%g, %g, %g) on an axis",
                       (double)lower.x, (double)lower.y, (double)lower.z, (double)upper.x, (double)upper.y,
                       (double)upper.z);
    }
    return TS_OK;
}

ts_result ts_world_overlap_aabb_each(ts_world_id id, ts_vec3 lower, ts_vec3 upper, const ts_query_filter *filter,
                                     ts_overlap_fn *fn, void *context)
{
    TS_CHECK_NOT_NULL(fn, __func__);
    TS_TRY(check_box(lower, upper, __func__));
    WORLD_LOOKUP(id, world);
    ts_query_filter storage;
    ts_aabb_overlap_each(&world->records, &world->collision.broadphase, (ts_aabb){lower, upper},
                         filter_or_default(filter, &storage), fn, context);
    return TS_OK;
}

ts_result ts_world_overlap_aabb(ts_world_id id, ts_vec3 lower, ts_vec3 upper, const ts_query_filter *filter,
                                ts_overlap_hit *hits, int capacity, int *count)
{
    TS_CHECK_NOT_NULL(count, __func__);
    TS_TRY(ts_check_output_array(hits, capacity, __func__, "hits"));
    TS_TRY(check_box(lower, upper, __func__));
    WORLD_LOOKUP(id, world);
    ts_query_filter storage;
    ts_overlap_collector collector = {hits, hits != NULL ? capacity : 0, 0};
    ts_aabb_overlap_each(&world->records, &world->collision.broadphase, (ts_aabb){lower, upper},
                         filter_or_default(filter, &storage), ts_overlap_collect, &collector);
    return finish_buffer(hits, capacity, collector.count, count, __func__);
}
