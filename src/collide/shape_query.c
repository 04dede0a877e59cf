/* Shape casts and overlap queries (see shape_query.h). */
#include "collide/shape_query.h"

#include "collide/dynamic_tree_ray.h"
#include "collide/query_gjk.h"
#include "collide/narrowphase.h"
#include "collide/query_filter.h"
#include "collide/ray.h"
#include "collide/shape_bounds.h"

#include <stdint.h>

/* Conservative advancement gives up after this many moves (a sweep that
 * grazes a round shape closes its gap ever more slowly). */
#define CAST_MAX_ITERATIONS 64

const void *ts_query_shape_geometry(const ts_query_shape *shape)
{
    switch (shape->type) {
    case TS_SHAPE_SPHERE: return &shape->geometry.sphere;
    case TS_SHAPE_BOX: return &shape->geometry.box;
    default: return &shape->geometry.capsule;
    }
}

const void *ts_shape_record_geometry(const ts_shape *shape)
{
    switch (shape->type) {
    case TS_SHAPE_HULL: return shape->geometry.hull.data;
    case TS_SHAPE_MESH: return shape->geometry.mesh.data;
    case TS_SHAPE_HEIGHTFIELD: return shape->geometry.heightfield.data;
    default: return &shape->geometry;
    }
}

static const void *record_geometry(const ts_shape *shape) { return ts_shape_record_geometry(shape); }

/* Convex pairs: the GJK distance of the cores against the radii. A mesh or
 * heightfield (not convex) goes through the narrowphase, whose manifold
 * has a point exactly when the shapes are closer than its margin. */
bool ts_shapes_overlap(ts_shape_type type_a, const void *geometry_a, ts_transform xf_a, ts_shape_type type_b,
                       const void *geometry_b, ts_transform xf_b)
{
    ts_gjk_proxy a, b;
    if (!ts_gjk_proxy_of(type_a, geometry_a, xf_a, &a) || !ts_gjk_proxy_of(type_b, geometry_b, xf_b, &b)) {
        ts_manifold m;
        ts_collide_shapes(type_a, geometry_a, xf_a, type_b, geometry_b, xf_b, TS_QUERY_TOUCH, &m);
        return m.point_count > 0;
    }
    ts_gjk_result r;
    ts_gjk_distance(&a, ts_v3(0.0f, 0.0f, 0.0f), &b, &r);
    return r.distance - a.radius - b.radius <= TS_QUERY_TOUCH;
}

/* The tight world box of a query shape at a pose (ts_shape_bounds on a
 * record that holds only what it reads). */
static ts_aabb query_bounds(const ts_query_shape *shape, ts_transform pose)
{
    ts_shape record = {.type = shape->type, .sim_local = {{0.0f, 0.0f, 0.0f}, TS_QUAT_IDENTITY}};
    switch (shape->type) {
    case TS_SHAPE_SPHERE: record.geometry.sphere = shape->geometry.sphere; break;
    case TS_SHAPE_BOX: record.geometry.box = shape->geometry.box; break;
    default: record.geometry.capsule = shape->geometry.capsule; break;
    }
    return ts_shape_bounds(&record, pose);
}

/* ---- shape casts ---- */

/* Conservative advancement of A along translation towards B: at fraction t
 * the cores are d apart along n (from A to B), the shapes gap = d - radii;
 * they cannot touch before gap / (translation . n) more (convex shapes under
 * a translation: the gap shrinks at most that fast), so move that far and
 * repeat. Once the gap is below TS_QUERY_TOUCH the last move is taken as
 * exact. Returns the fraction of first touch, or a value > 1 for none. */
static float advance(const ts_gjk_proxy *a, ts_vec3 translation, const ts_gjk_proxy *b)
{
    float radii = a->radius + b->radius;
    float t = 0.0f;
    for (int iteration = 0; iteration < CAST_MAX_ITERATIONS; ++iteration) {
        ts_gjk_result r;
        ts_gjk_distance(a, ts_scale(t, translation), b, &r);
        float gap = r.distance - radii;
        float closing = 0.0f;
        if (r.distance > 0.0f) {
            closing = ts_dot(translation, ts_scale(1.0f / r.distance, ts_sub(r.point_b, r.point_a)));
        }
        if (gap <= TS_QUERY_TOUCH) {
            if (gap > 0.0f && closing > 0.0f) {
                t += gap / closing;
            }
            return t;
        }
        if (!(closing > 0.0f)) {
            return 2.0f; /* moving apart along the closest points: never closer */
        }
        t += gap / closing;
        if (t > 1.0f) {
            return 2.0f;
        }
    }
    return 2.0f;
}

typedef struct cast_query {
    const ts_records *records;
    const ts_dynamic_tree *tree;
    const ts_query_filter *filter;
    const ts_query_shape *shape;
    ts_gjk_proxy proxy;
    ts_vec3 translation;
    float length; /* of the translation */
    float best;   /* fraction of the closest so far (1 before any) */
    int32_t best_shape;
} cast_query;

static float cast_leaf(int proxy, int32_t shape, void *context)
{
    (void)proxy;
    cast_query *q = context;
    const ts_shape *s = q->records->shapes + shape;
    ts_gjk_proxy target;
    if (!ts_query_filter_passes(q->filter, s) ||
        !ts_gjk_proxy_of(s->type, record_geometry(s), ts_shape_world_transform(q->records, s), &target)) {
        return q->best * q->length;
    }
    float f = advance(&q->proxy, q->translation, &target);
    if (f > 1.0f || f > q->best || (f == q->best && shape >= q->best_shape) ||
        !ts_query_filter_accepts(q->filter, q->records, shape)) {
        return q->best * q->length;
    }
    q->best = f;
    q->best_shape = shape;
    return f * q->length;
}

/* The normal (on the shape hit, towards the swept one) and the point where
 * the swept shape, moved to fraction f, touches the shape hit: the
 * narrowphase's deepest point, else the GJK closest points. */
static void contact_at(const cast_query *q, ts_transform pose, float f, int32_t shape, ts_cast_hit *hit)
{
    const ts_shape *s = q->records->shapes + shape;
    ts_transform xf_b = ts_shape_world_transform(q->records, s);
    ts_transform xf_a = {ts_mul_add(pose.p, f, q->translation), pose.q};
    ts_manifold m;
    ts_collide_shapes(q->shape->type, ts_query_shape_geometry(q->shape), xf_a, s->type, record_geometry(s), xf_b,
                      TS_SPECULATIVE_DISTANCE, &m);
    if (m.point_count > 0) {
        int deepest = 0;
        for (int k = 1; k < m.point_count; ++k) {
            deepest = m.points[k].separation < m.points[deepest].separation ? k : deepest;
        }
        hit->normal = ts_neg(m.normal);
        hit->point = m.points[deepest].point;
        return;
    }
    ts_gjk_proxy b;
    ts_gjk_proxy_of(s->type, record_geometry(s), xf_b, &b);
    ts_gjk_result r;
    ts_gjk_distance(&q->proxy, ts_scale(f, q->translation), &b, &r);
    ts_vec3 n = ts_normalize(ts_sub(r.point_a, r.point_b));
    hit->normal = ts_vec3_is_zero(n) ? ts_neg(ts_normalize(q->translation)) : n;
    hit->point = ts_mul_add(r.point_b, b.radius, hit->normal);
}

void ts_shape_cast(const ts_records *records, const ts_broadphase *broadphase, const ts_query_shape *shape,
                   ts_transform pose, ts_vec3 translation, const ts_query_filter *filter, ts_cast_hit *hit)
{
    cast_query q = {.records = records, .filter = filter, .shape = shape, .translation = translation,
                    .length = ts_length(translation), .best = 1.0f, .best_shape = INT32_MAX};
    *hit = (ts_cast_hit){0};
    ts_ray ray;
    if (!ts_gjk_proxy_of(shape->type, ts_query_shape_geometry(shape), pose, &q.proxy) ||
        !ts_ray_prepare(ts_v3(0.0f, 0.0f, 0.0f), translation, q.length, &ray)) {
        return;
    }
    /* the swept box: the shape's box centre moving along the translation,
     * every tree box grown by its half extents */
    ts_aabb box = query_bounds(shape, pose);
    ray.origin = ts_aabb_center(box);
    ts_vec3 extent = ts_aabb_extents(box);
    for (int k = 0; k < TS_TREE_COUNT; ++k) {
        q.tree = broadphase->trees + k;
        ts_tree_ray_cast(q.tree, &ray, extent, filter->mask_bits, q.best * q.length, cast_leaf, &q);
    }
    if (q.best_shape == INT32_MAX) {
        return;
    }
    hit->shape = ts_shape_id_of(records, q.best_shape);
    hit->body = ts_body_id_of(records, records->shapes[q.best_shape].body);
    hit->fraction = q.best;
    hit->hit = true;
    contact_at(&q, pose, q.best, q.best_shape, hit);
}

/* ---- overlaps ---- */

typedef struct overlap_query {
    const ts_records *records;
    const ts_query_filter *filter;
    ts_shape_type type;   /* the shape query's shape */
    const void *geometry; /* NULL: the box query */
    ts_transform pose;
    ts_aabb box;
    ts_overlap_fn *fn;
    void *context;
    bool stop;
} overlap_query;

static bool overlap_leaf(int proxy, int32_t shape, void *context)
{
    (void)proxy;
    overlap_query *q = context;
    const ts_shape *s = q->records->shapes + shape;
    if (!ts_query_filter_passes(q->filter, s)) {
        return true;
    }
    bool overlaps = q->geometry != NULL ? ts_shapes_overlap(q->type, q->geometry, q->pose, s->type, record_geometry(s),
                                                            ts_shape_world_transform(q->records, s))
                                        : ts_aabb_overlaps(q->box, ts_shape_compute_aabb(q->records, shape));
    if (!overlaps || !ts_query_filter_accepts(q->filter, q->records, shape)) {
        return true;
    }
    ts_overlap_hit hit = {ts_shape_id_of(q->records, shape), ts_body_id_of(q->records, s->body)};
    if (!q->fn(&hit, q->context)) {
        q->stop = true;
        return false;
    }
    return true;
}

static void overlap_walk(const ts_broadphase *broadphase, overlap_query *q)
{
    for (int k = 0; k < TS_TREE_COUNT && !q->stop; ++k) {
        ts_tree_query(broadphase->trees + k, q->box, q->filter->mask_bits, overlap_leaf, q);
    }
}

void ts_shape_overlap_each(const ts_records *records, const ts_broadphase *broadphase, const ts_query_shape *shape,
                           ts_transform pose, const ts_query_filter *filter, ts_overlap_fn *fn, void *context)
{
    ts_shape_overlap_each_geometry(records, broadphase, shape->type, ts_query_shape_geometry(shape), pose,
                                   query_bounds(shape, pose), filter, fn, context);
}

void ts_shape_overlap_each_geometry(const ts_records *records, const ts_broadphase *broadphase, ts_shape_type type,
                                    const void *geometry, ts_transform pose, ts_aabb bounds,
                                    const ts_query_filter *filter, ts_overlap_fn *fn, void *context)
{
    overlap_query q = {records, filter, type, geometry, pose, ts_aabb_enlarge(bounds, TS_QUERY_TOUCH), fn, context,
                       false};
    overlap_walk(broadphase, &q);
}

void ts_aabb_overlap_each(const ts_records *records, const ts_broadphase *broadphase, ts_aabb box,
                          const ts_query_filter *filter, ts_overlap_fn *fn, void *context)
{
    overlap_query q = {records, filter, TS_SHAPE_SPHERE, NULL, {{0.0f, 0.0f, 0.0f}, TS_QUAT_IDENTITY}, box, fn, context, false};
    overlap_walk(broadphase, &q);
}

bool ts_overlap_collect(const ts_overlap_hit *hit, void *context)
{
    ts_overlap_collector *c = context;
    c->count += 1;
    int n = c->count - 1 < c->capacity ? c->count - 1 : c->capacity;
    if (n == c->capacity && (n == 0 || hit->shape.index1 >= c->hits[n - 1].shape.index1)) {
        return true;
    }
    int k = n == c->capacity ? n - 1 : n;
    while (k > 0 && hit->shape.index1 < c->hits[k - 1].shape.index1) {
        c->hits[k] = c->hits[k - 1];
        --k;
    }
    c->hits[k] = *hit;
    return true;
}
