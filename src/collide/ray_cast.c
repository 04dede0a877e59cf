/* Single-ray queries over the broadphase's trees (see ray_cast.h). Each
 * query walks the static tree, then the movable one, with one callback per
 * leaf whose box the ray passes: the filter's bits, then the shape's test
 * (ray.h, width 1), then the query's rule for what to keep. */
#include "collide/ray_cast.h"

#include "collide/dynamic_tree_ray.h"
#include "collide/query_filter.h"

#include <stdint.h>

ts_cast_hit ts_ray_make_hit(const ts_records *records, const ts_ray *ray, int32_t shape, float t, ts_vec3 normal)
{
    return (ts_cast_hit){
        .shape = ts_shape_id_of(records, shape),
        .body = ts_body_id_of(records, records->shapes[shape].body),
        .point = ts_mul_add(ray->origin, t, ray->direction),
        .normal = normal,
        .fraction = t / ray->length,
        .hit = true,
    };
}

typedef struct ray_query {
    const ts_records *records;
    const ts_dynamic_tree *tree; /* the tree being walked */
    const ts_ray *ray;
    const ts_query_filter *filter;
    float max;       /* the ray's end: its length, or the best hit's t */
    int32_t best;    /* closest: the best shape so far, INT32_MAX for none */
    ts_vec3 normal;  /* its normal */
    bool stop;       /* any, each: the walk is over */
    ts_cast_hit_fn *fn;
    void *context;
    ts_cast_hit *hits; /* all: the caller's buffer, nearest first */
    int capacity;
    int count;
} ray_query;

/* The shape of a leaf, if the filter's bits pass and the ray hits it. */
static bool test_leaf(const ray_query *q, int proxy, int32_t shape, float *t, ts_vec3 *normal)
{
    if (!ts_query_filter_passes(q->filter, q->records->shapes + shape)) {
        return false;
    }
    ts_ray_target target;
    ts_ray_target_of(q->records, shape, q->tree->nodes[proxy].aabb, &target);
    return ts_ray_test_target(q->ray, &target, t, normal);
}

static void walk(ray_query *q, const ts_broadphase *broadphase, ts_tree_ray_fn *fn)
{
    for (int k = 0; k < TS_TREE_COUNT && !q->stop; ++k) {
        q->tree = broadphase->trees + k;
        ts_tree_ray_cast(q->tree, q->ray, ts_v3(0.0f, 0.0f, 0.0f), q->filter->mask_bits, q->max, fn, q);
    }
}

/* ---- closest ---- */

static float closest_leaf(int proxy, int32_t shape, void *context)
{
    ray_query *q = context;
    float t;
    ts_vec3 normal;
    if (!test_leaf(q, proxy, shape, &t, &normal) || t > q->max || (t == q->max && shape >= q->best) ||
        !ts_query_filter_accepts(q->filter, q->records, shape)) {
        return q->max;
    }
    q->max = t;
    q->best = shape;
    q->normal = normal;
    return t;
}

void ts_ray_cast_closest(const ts_records *records, const ts_broadphase *broadphase, const ts_ray *ray,
                         const ts_query_filter *filter, ts_cast_hit *hit)
{
    ray_query q = {.records = records, .ray = ray, .filter = filter, .max = ray->length, .best = INT32_MAX};
    walk(&q, broadphase, closest_leaf);
    *hit = q.best == INT32_MAX ? (ts_cast_hit){0} : ts_ray_make_hit(records, ray, q.best, q.max, q.normal);
}

/* ---- any ---- */

static float any_leaf(int proxy, int32_t shape, void *context)
{
    ray_query *q = context;
    float t;
    ts_vec3 normal;
    if (!test_leaf(q, proxy, shape, &t, &normal) || !ts_query_filter_accepts(q->filter, q->records, shape)) {
        return q->max;
    }
    q->best = shape;
    q->normal = normal;
    q->max = t;
    q->stop = true;
    return -1.0f;
}

void ts_ray_cast_any(const ts_records *records, const ts_broadphase *broadphase, const ts_ray *ray,
                     const ts_query_filter *filter, ts_cast_hit *hit)
{
    ray_query q = {.records = records, .ray = ray, .filter = filter, .max = ray->length, .best = INT32_MAX};
    walk(&q, broadphase, any_leaf);
    *hit = q.best == INT32_MAX ? (ts_cast_hit){0} : ts_ray_make_hit(records, ray, q.best, q.max, q.normal);
}

/* ---- each ---- */

static float each_leaf(int proxy, int32_t shape, void *context)
{
    ray_query *q = context;
    float t;
    ts_vec3 normal;
    if (!test_leaf(q, proxy, shape, &t, &normal) || !ts_query_filter_accepts(q->filter, q->records, shape)) {
        return q->max;
    }
    ts_cast_hit hit = ts_ray_make_hit(q->records, q->ray, shape, t, normal);
    if (!q->fn(&hit, q->context)) {
        q->stop = true;
        return -1.0f;
    }
    return q->max;
}

void ts_ray_cast_each(const ts_records *records, const ts_broadphase *broadphase, const ts_ray *ray,
                      const ts_query_filter *filter, ts_cast_hit_fn *fn, void *context)
{
    ray_query q = {.records = records, .ray = ray, .filter = filter, .max = ray->length, .fn = fn, .context = context};
    walk(&q, broadphase, each_leaf);
}

/* ---- all, sorted ---- */

static bool nearer(const ts_cast_hit *a, const ts_cast_hit *b)
{
    return a->fraction < b->fraction || (a->fraction == b->fraction && a->shape.index1 < b->shape.index1);
}

/* Keeps the capacity nearest hits in order: insertion from the back, the
 * farthest falling off the end. */
static bool collect_hit(const ts_cast_hit *hit, void *context)
{
    ray_query *q = context;
    q->count += 1;
    int n = q->count - 1 < q->capacity ? q->count - 1 : q->capacity;
    if (n == q->capacity && (n == 0 || !nearer(hit, q->hits + n - 1))) {
        return true;
    }
    int k = n == q->capacity ? n - 1 : n;
    while (k > 0 && nearer(hit, q->hits + k - 1)) {
        q->hits[k] = q->hits[k - 1];
        --k;
    }
    q->hits[k] = *hit;
    return true;
}

int ts_ray_cast_all(const ts_records *records, const ts_broadphase *broadphase, const ts_ray *ray,
                    const ts_query_filter *filter, ts_cast_hit *hits, int capacity)
{
    ray_query q = {.hits = hits, .capacity = capacity};
    ts_ray_cast_each(records, broadphase, ray, filter, collect_hit, &q);
    return q.count;
}
