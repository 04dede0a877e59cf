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

#include <stdint.h>

#if TS_W <= TS_RAY_LANES

/* The lanes of this width within a byte of lane bits. */
#define LANE_MASK ((1u << TS_W) - 1u)

typedef struct best_hit {
    float t;       /* the ray's end: its length, or the best hit's t */
    int32_t shape; /* INT32_MAX for none */
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

/* The packet's shapes against the ray: the proxy-box rule for every lane,
 * then each present type's test, then the closest-hit rule lane by lane. */
static void test_packet(const ts_ray_batch *batch, const ts_ray *ray, const ts_ray_lanes *r, const ts_ray_packet *p,
                        best_hit *best)
{
    float enter[TS_RAY_LANES], t[TS_RAY_LANES], n[3][TS_RAY_LANES];
    uint32_t boxes = 0;
    for (int j = 0; j < TS_RAY_LANES; j += TS_W) {
        ts_wf e;
        ts_wm m = ts_ray_slab(ray, r, load3(p->lower, j), load3(p->upper, j), r->length, &e);
        ts_w_store(enter + j, e);
        boxes |= ts_w_mask_bits(m) << j;
    }
    boxes &= (1u << p->count) - 1u;
    for (int type = 0; type < TS_SHAPE_TYPE_COUNT && boxes != 0; ++type) {
        uint32_t lanes = p->type_lanes[type] & boxes;
        if (lanes == 0) {
            continue;
        }
        for (int j = 0; j < TS_RAY_LANES; j += TS_W) {
            if (((lanes >> j) & LANE_MASK) != 0) {
                ts_wv3 normal;
                ts_w_store(t + j, test_type((ts_shape_type)type, r, p, j, &normal));
                store3(n, j, normal);
            }
        }
        for (int l = 0; l < TS_RAY_LANES; ++l) {
            if (((lanes >> l) & 1u) == 0) {
                continue;
            }
            int32_t shape = p->shape[l];
            if (!(t[l] <= ray->length) || !(enter[l] <= t[l]) || t[l] > best->t ||
                (t[l] == best->t && shape >= best->shape) ||
                !ts_query_filter_accepts(batch->filter, batch->records, shape)) {
                continue;
            }
            best->t = t[l];
            best->shape = shape;
            best->normal = (ts_vec3){n[0][l], n[1][l], n[2][l]};
        }
    }
}

typedef struct stack_entry {
    int32_t ref; /* >= 0 node, < 0 packet -1 - ref */
    float enter;
} stack_entry;

/* The node's children the ray enters before its end, pushed farthest first
 * (so the nearest is popped first; lane order on a tie). */
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
    stack_entry sorted[TS_RAY_LANES];
    int n = 0;
    for (int l = 0; l < TS_RAY_LANES; ++l) {
        if (((bits >> l) & 1u) == 0) {
            continue;
        }
        stack_entry e = {node->child[l], enter[l]};
        int k = n++;
        while (k > 0 && sorted[k - 1].enter > e.enter) {
            sorted[k] = sorted[k - 1];
            --k;
        }
        sorted[k] = e;
    }
    while (n > 0) {
        stack[count++] = sorted[--n];
    }
    return count;
}

static void cast_one(const ts_ray_batch *batch, int32_t i)
{
    ts_ray ray;
    ts_ray_prepare(batch->origins[i], batch->directions[i], batch->lengths[i], &ray);
    ts_ray_lanes r = ts_ray_lanes_of(&ray);
    best_hit best = {ray.length, INT32_MAX, {0.0f, 0.0f, 0.0f}};
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
            test_packet(batch, &ray, &r, bvh->packets + (-1 - e.ref), &best);
        } else {
            count = visit_node(&ray, &r, bvh->nodes + e.ref, best.t, stack, count);
        }
    }
    batch->hits[i] = best.shape == INT32_MAX ? (ts_cast_hit){0}
                                             : ts_ray_make_hit(batch->records, &ray, best.shape, best.t, best.normal);
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
