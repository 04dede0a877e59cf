/* The batched ray cast kernel (see ray_batch.h), built once per width: each
 * ray walks the wide tree nearest child first, testing a node's 8 boxes and
 * a packet's shapes of one type TS_W lanes at a time with ray_lanes.h's
 * tests, and keeps the closest hit by (t, shape index), exactly as the
 * single-ray query does (ray_cast.c). Width 16 has no kernel of its own
 * (a node has 8 lanes): ray_batch.c sends it to width 8's. */
#include "collide/ray_batch.h"

#include "collide/query_filter.h"
#include "collide/ray_cast.h"
#include "collide/ray_lanes.h"
#include "collide/ray_shapes.h"

#include <stdint.h>

#if TS_W <= TS_RAY_LANES

/* The lanes of this width within a byte of lane bits. */
#define LANE_MASK ((1u << TS_W) - 1u)

typedef struct best_hit {
    float t;       /* the ray's end: its length, or the best hit's t */
    int32_t shape; /* INT32_MAX for none */
    int32_t packet, lane;
    ts_vec3 normal;
} best_hit;

static inline ts_wv3 load3(const float rows[3][TS_RAY_LANES], int j)
{
    return (ts_wv3){ts_w_load(rows[0] + j), ts_w_load(rows[1] + j), ts_w_load(rows[2] + j)};
}

static inline void store3(float rows[3][TS_RAY_LANES], int j, ts_wv3 v)
{
    ts_w_store(rows[0] + j, v.x);
    ts_w_store(rows[1] + j, v.y);
    ts_w_store(rows[2] + j, v.z);
}

static inline ts_ray_axes load_axes(const ts_ray_packet *p, int j)
{
    ts_ray_axes a;
    for (int i = 0; i < 3; ++i) {
        a.col[i] = (ts_wv3){ts_w_load(p->axis[3 * i] + j), ts_w_load(p->axis[3 * i + 1] + j),
                            ts_w_load(p->axis[3 * i + 2] + j)};
    }
    return a;
}

/* The lane test of one shape type over lanes [j, j + TS_W) of a packet: one
 * case per type (a new type adds its case). */
TS_FORCE_INLINE ts_wf test_type(ts_shape_type type, const ts_ray_lanes *r, const ts_ray_packet *p, int j,
                                ts_wv3 *normal)
{
    ts_wv3 c = load3(p->center, j);
    switch (type) {
    case TS_SHAPE_SPHERE: return ts_ray_sphere_lanes(r, c, ts_w_load(p->size[0] + j), normal);
    case TS_SHAPE_BOX: {
        ts_ray_axes a = load_axes(p, j);
        return ts_ray_box_lanes(r, c, &a, load3(p->size, j), normal);
    }
    case TS_SHAPE_CAPSULE: {
        ts_ray_axes a = load_axes(p, j);
        return ts_ray_capsule_lanes(r, c, &a, ts_w_load(p->size[0] + j), ts_w_load(p->size[1] + j), normal);
    }
    default: *normal = (ts_wv3){ts_w_zero(), ts_w_zero(), ts_w_zero()}; return ts_w_splat(INFINITY);
    }
}

/* Lanes of a type without a lane test (hulls, meshes, heightfields): each
 * shape's test in its frame, with the packet lane's centre and axes (the
 * single-ray query's, float for float). Returns the lanes that hit, their
 * t and normals in t and n. */
static uint32_t test_lanes_local(const ts_ray_batch *batch, const ts_ray *ray, const ts_ray_packet *p,
                                 ts_shape_type type, uint32_t lanes, float t[TS_RAY_LANES], float n[3][TS_RAY_LANES])
{
    uint32_t hits = 0;
    for (; lanes != 0; lanes &= lanes - 1u) {
        int l = ts_ctz32(lanes);
        ts_vec3 axis[3];
        for (int i = 0; i < 3; ++i) {
            axis[i] = (ts_vec3){p->axis[3 * i][l], p->axis[3 * i + 1][l], p->axis[3 * i + 2][l]};
        }
        ts_vec3 center = {p->center[0][l], p->center[1][l], p->center[2][l]};
        const void *data = ts_ray_shape_data(batch->records->shapes + p->shape[l]);
        float hit;
        ts_vec3 normal;
        if (data == NULL || !ts_ray_test_local(ray, type, data, center, axis, &hit, &normal)) {
            continue; /* (their own inside rule: no proxy-box rule, ray_shapes.h) */
        }
        t[l] = hit;
        n[0][l] = normal.x;
        n[1][l] = normal.y;
        n[2][l] = normal.z;
        hits |= 1u << l;
    }
    return hits;
}

/* The packet's shapes against the ray: the proxy-box rule for every lane,
 * then each present type's test, then the closest-hit rule for the lanes
 * that hit (the same rule, in the same terms, as ray_cast.c's). */
static void test_packet(const ts_ray_batch *batch, const ts_ray *ray, const ts_ray_lanes *r, const ts_ray_bvh *bvh,
                        int32_t index, best_hit *best)
{
    const ts_ray_packet *p = bvh->packets + index;
    float enter[TS_RAY_LANES], t[TS_RAY_LANES], n[3][TS_RAY_LANES];
    uint32_t boxes = 0;
    for (int j = 0; j < TS_RAY_LANES; j += TS_W) {
        ts_wf e;
        ts_wm m = ts_ray_slab(ray, r, load3(p->lower, j), load3(p->upper, j), r->length, &e);
        ts_w_store(enter + j, e);
        boxes |= ts_w_mask_bits(m) << j;
    }
    boxes &= (1u << p->count) - 1u;
    if (boxes == 0) {
        return;
    }
    for (uint32_t types = p->types; types != 0; types &= types - 1u) {
        int type = ts_ctz32(types);
        uint32_t lanes = p->type_lanes[type] & boxes;
        uint32_t hits = 0;
        if (type >= TS_SHAPE_HULL) { /* no lane test: the shape's own data, lane by lane (ray_shapes.h) */
            hits = test_lanes_local(batch, ray, p, (ts_shape_type)type, lanes, t, n);
            lanes = 0;
        }
        for (int j = 0; j < TS_RAY_LANES && (lanes >> j) != 0; j += TS_W) {
            if (((lanes >> j) & LANE_MASK) == 0) {
                continue;
            }
            ts_wv3 normal;
            ts_wf tt = test_type((ts_shape_type)type, r, p, j, &normal);
            /* a hit within the ray, entering the proxy's box no later */
            ts_wm ok = ts_w_and(ts_w_ge(r->length, tt), ts_w_ge(tt, ts_w_load(enter + j)));
            ts_w_store(t + j, tt);
            store3(n, j, normal);
            hits |= (ts_w_mask_bits(ok) << j) & lanes;
        }
        /* now, before the next type's test overwrites t and n in a group of
         * TS_W lanes that holds both types */
        for (; hits != 0; hits &= hits - 1u) {
            int l = ts_ctz32(hits);
            int32_t shape = p->shape[l];
            if (t[l] > best->t || (t[l] == best->t && shape >= best->shape) ||
                !ts_query_filter_accepts(batch->filter, batch->records, shape)) {
                continue;
            }
            *best = (best_hit){t[l], shape, index, l, {n[0][l], n[1][l], n[2][l]}};
        }
    }
}

typedef struct stack_entry {
    int32_t ref; /* >= 0 node, < 0 packet -1 - ref */
    float enter;
} stack_entry;

/* The node's children the ray enters before its end, pushed farthest first
 * (so the nearest is popped first; on a tie the higher lane first: the
 * closest-hit rule, not the order, picks between equal hits). */
static int visit_node(const ts_ray *ray, const ts_ray_lanes *r, const ts_ray_node *node, float max, stack_entry *stack,
                      int count)
{
    float enter[TS_RAY_LANES];
    uint32_t bits = 0;
    ts_wf end = ts_w_splat(max);
    for (int j = 0; j < TS_RAY_LANES; j += TS_W) {
        ts_wf e;
        ts_wm m = ts_ray_slab(ray, r, load3(node->lower, j), load3(node->upper, j), end, &e);
        ts_w_store(enter + j, e);
        bits |= ts_w_mask_bits(m) << j;
    }
    bits &= (1u << node->count) - 1u;
    /* insertion by enter into the stack's top, kept in descending order */
    int base = count;
    for (; bits != 0; bits &= bits - 1u) {
        int l = ts_ctz32(bits);
        stack_entry e = {node->child[l], enter[l]};
        int k = count++;
        while (k > base && stack[k - 1].enter < e.enter) {
            stack[k] = stack[k - 1];
            --k;
        }
        stack[k] = e;
    }
    return count;
}

static void cast_one(const ts_ray_batch *batch, int32_t i)
{
    ts_ray ray;
    ts_ray_prepare(batch->origins[i], batch->directions[i], batch->lengths[i], &ray);
    ts_ray_lanes r = ts_ray_lanes_of(&ray);
    best_hit best = {ray.length, INT32_MAX, -1, -1, {0.0f, 0.0f, 0.0f}};
    const ts_ray_bvh *bvh = batch->bvh;
    stack_entry stack[TS_RAY_BATCH_STACK];
    int count = 0;
    if (bvh->root >= 0) {
        stack[count++] = (stack_entry){bvh->root, 0.0f};
    }
    while (count > 0) {
        stack_entry e = stack[--count];
        if (e.enter > best.t) {
            continue; /* the ray was cut short since this child was pushed */
        }
        if (e.ref < 0) {
            test_packet(batch, &ray, &r, bvh, -1 - e.ref, &best);
        } else {
            count = visit_node(&ray, &r, bvh->nodes + e.ref, best.t, stack, count);
        }
    }
    if (best.shape == INT32_MAX) {
        batch->hits[i] = (ts_cast_hit){0};
        return;
    }
    const ts_ray_packet_ids *ids = bvh->ids + best.packet;
    batch->hits[i] = (ts_cast_hit){
        .shape = ids->shape[best.lane],
        .body = ids->body[best.lane],
        .point = ts_mul_add(ray.origin, best.t, ray.direction),
        .normal = best.normal,
        .fraction = best.t / ray.length,
        .hit = true,
    };
}

void TS_WIDE(ts_ray_batch_cast)(const ts_ray_batch *batch, int32_t begin, int32_t end)
{
    for (int32_t i = begin; i < end; ++i) {
        cast_one(batch, i);
    }
}

#else

/* No 16-lane kernel (see ray_batch.h): keeps the translation unit non-empty. */
typedef int ts_ray_batch_no_w16;

#endif
