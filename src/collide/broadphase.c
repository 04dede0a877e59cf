/* The broadphase: its two trees, shapes' proxies in them, the move buffer,
 * and the bounds columns of the body store that the bounds update reads
 * (see broadphase.h). The pair update is in broadphase_pairs.c, the bounds
 * update after the solver in broadphase_bounds.c and the tree's refit in
 * broadphase_refit.c. */
#include "collide/broadphase.h"

#include "base/array.h"
#include "base/error.h"
#include "collide/shape_bounds.h"

bool ts_broadphase_init(ts_broadphase *bp, const ts_allocator *allocator, int32_t shape_capacity)
{
    *bp = (ts_broadphase){0};
    bp->parallel_sweep_min = TS_PARALLEL_SWEEP;
    bp->parallel_enlarge_min = TS_PARALLEL_ENLARGE;
    if (!ts_tree_init(&bp->trees[TS_TREE_STATIC], allocator, 16) ||
        !ts_tree_init(&bp->trees[TS_TREE_MOVABLE], allocator, shape_capacity) ||
        !ts_array_reserve(allocator, (void **)&bp->move_buffer, &bp->move_capacity, shape_capacity,
                          sizeof(int32_t))) {
        ts_broadphase_destroy(bp, allocator);
        return false;
    }
    return true;
}

void ts_broadphase_destroy(ts_broadphase *bp, const ts_allocator *allocator)
{
    ts_tree_destroy(&bp->trees[TS_TREE_STATIC]);
    ts_tree_destroy(&bp->trees[TS_TREE_MOVABLE]);
    ts_array_free(allocator, (void **)&bp->move_buffer, &bp->move_capacity, sizeof(int32_t));
    ts_array_free(allocator, (void **)&bp->new_pairs, &bp->new_pair_capacity, sizeof(uint64_t));
    ts_array_free(allocator, (void **)&bp->pair_scratch, &bp->pair_scratch_capacity, sizeof(uint64_t));
    ts_array_free(allocator, (void **)&bp->new_ids, &bp->new_id_capacity, sizeof(int32_t));
    ts_array_free(allocator, (void **)&bp->enlarged_slots, &bp->enlarged_capacity, sizeof(uint8_t));
    ts_array_free(allocator, (void **)&bp->enlarged_list, &bp->enlarged_list_capacity, sizeof(int32_t));
    ts_array_free(allocator, (void **)&bp->swept, &bp->swept_capacity, sizeof(uint8_t));
    for (int w = 0; w < TS_MAX_THREADS; ++w) {
        ts_pair_buffer *buffer = bp->worker_pairs + w;
        ts_array_free(allocator, (void **)&buffer->keys, &buffer->capacity, sizeof(uint64_t));
        buffer->count = 0;
    }
    bp->move_count = 0;
    bp->new_pair_count = 0;
}

/* ---- bounds ---- */

static ts_transform body_sim_transform(const ts_records *records, int32_t body)
{
    const ts_body_store *s = &records->store;
    int32_t i = s->table.slot_of_id[body];
    return (ts_transform){{s->px[i], s->py[i], s->pz[i]}, {s->qx[i], s->qy[i], s->qz[i], s->qw[i]}};
}

ts_aabb ts_shape_compute_aabb(const ts_records *records, int32_t shape)
{
    const ts_shape *s = records->shapes + shape;
    return ts_shape_bounds(s, body_sim_transform(records, s->body));
}

static float margin_of(const ts_shape *shape) { return shape->tree == TS_TREE_STATIC ? 0.0f : TS_AABB_MARGIN; }

/* ---- the store's bounds columns ---- */

static void store_fat_box(ts_body_store *s, int32_t i, ts_aabb box)
{
    s->fat_lx[i] = box.lower.x;
    s->fat_ly[i] = box.lower.y;
    s->fat_lz[i] = box.lower.z;
    s->fat_ux[i] = box.upper.x;
    s->fat_uy[i] = box.upper.y;
    s->fat_uz[i] = box.upper.z;
}

void ts_body_sync_bounds(ts_records *records, int32_t body)
{
    ts_body_store *s = &records->store;
    int32_t i = s->table.slot_of_id[body];
    int32_t first = records->bodies[body].first_shape;
    float radius = 0.0f; /* the general path */
    ts_vec3 half = {0.0f, 0.0f, 0.0f};
    s->first_shape[i] = first;
    if (first != -1) {
        const ts_shape *shape = records->shapes + first;
        bool alone = shape->next == -1 && shape->proxy >= 0 && ts_shape_is_centred(shape);
        ts_quat q = shape->sim_local.q;
        if (alone && shape->type == TS_SHAPE_SPHERE) {
            radius = shape->geometry.sphere.radius; /* > 0: checked at creation */
            store_fat_box(s, i, shape->fat_aabb);
        } else if (alone && shape->type == TS_SHAPE_BOX && q.x == 0.0f && q.y == 0.0f && q.z == 0.0f &&
                   q.w == 1.0f) {
            /* its world rotation is the body's (the product with the
             * identity changes no bit of |R|: box_bounds4) */
            half = shape->geometry.box.half_extents; /* > 0: checked at creation */
            store_fat_box(s, i, shape->fat_aabb);
        }
    }
    s->sphere_radius[i] = radius;
    s->box_hx[i] = half.x;
    s->box_hy[i] = half.y;
    s->box_hz[i] = half.z;
}

/* ---- proxies and the move buffer ---- */

ts_result ts_shape_buffer_move(ts_records *records, ts_broadphase *bp, int32_t shape, const char *function)
{
    ts_shape *s = records->shapes + shape;
    if (s->in_move_buffer || s->proxy < 0) { /* queued already, or in no tree (a faulted body's shape) */
        return TS_OK;
    }
    if (!ts_array_reserve(&records->allocator, (void **)&bp->move_buffer, &bp->move_capacity, bp->move_count + 1,
                          sizeof(int32_t))) {
        return ts_fail(TS_ERROR_OUT_OF_MEMORY, function, "the allocator returned NULL");
    }
    bp->move_buffer[bp->move_count++] = shape;
    s->in_move_buffer = true;
    return TS_OK;
}

ts_result ts_shape_create_proxy(ts_records *records, ts_broadphase *bp, int32_t shape, const char *function)
{
    ts_shape *s = records->shapes + shape;
    s->tree = records->bodies[s->body].type == TS_BODY_STATIC ? TS_TREE_STATIC : TS_TREE_MOVABLE;
    s->fat_aabb = ts_aabb_enlarge(ts_shape_compute_aabb(records, shape), margin_of(s));
    s->enlarged = false;
    s->in_move_buffer = false;
    s->proxy = ts_tree_create_proxy(&bp->trees[s->tree], s->fat_aabb, s->filter.category_bits, shape);
    if (s->proxy < 0) {
        return ts_fail(TS_ERROR_OUT_OF_MEMORY, function, "the allocator returned NULL");
    }
    ts_result r = ts_shape_buffer_move(records, bp, shape, function);
    if (r != TS_OK) {
        ts_tree_destroy_proxy(&bp->trees[s->tree], s->proxy);
        s->proxy = -1;
    }
    ts_body_sync_bounds(records, s->body);
    return r;
}

void ts_shape_destroy_proxy(ts_records *records, ts_broadphase *bp, int32_t shape)
{
    ts_shape *s = records->shapes + shape;
    if (s->in_move_buffer) {
        for (int32_t i = 0; i < bp->move_count; ++i) {
            if (bp->move_buffer[i] == shape) {
                bp->move_buffer[i] = -1;
                break;
            }
        }
        s->in_move_buffer = false;
    }
    if (s->proxy >= 0) {
        ts_tree_destroy_proxy(&bp->trees[s->tree], s->proxy);
        s->proxy = -1;
    }
    ts_body_sync_bounds(records, s->body);
}

ts_result ts_body_refresh_proxies(ts_records *records, ts_broadphase *bp, int32_t body, const char *function)
{
    ts_result result = TS_OK;
    for (int32_t sh = records->bodies[body].first_shape; sh != -1 && result == TS_OK; sh = records->shapes[sh].next) {
        ts_shape *s = records->shapes + sh;
        if (s->proxy < 0) {
            continue; /* out of the trees (a faulted body's shape) */
        }
        s->fat_aabb = ts_aabb_enlarge(ts_shape_compute_aabb(records, sh), margin_of(s));
        ts_tree_move_proxy(&bp->trees[s->tree], s->proxy, s->fat_aabb);
        result = ts_shape_buffer_move(records, bp, sh, function);
    }
    ts_body_sync_bounds(records, body);
    return result;
}
