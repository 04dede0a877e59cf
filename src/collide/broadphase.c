/* The broadphase: proxies of shapes in two AABB trees, the move buffer, and
 * the pair update that turns moved shapes into new contacts (see broadphase.h). */
#include "collide/broadphase.h"

#include "api/world.h"
#include "base/error.h"
#include "base/math3.h"
#include "base/parallel.h"
#include "collide/contact.h"
#include "soa/array.h"

#include <simde/x86/sse.h>
#include <stdlib.h>
#include <string.h>

bool ts_broadphase_init(ts_broadphase *bp, const ts_allocator *allocator, int32_t shape_capacity)
{
    *bp = (ts_broadphase){0};
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
    ts_array_free(allocator, (void **)&bp->new_ids, &bp->new_id_capacity, sizeof(int32_t));
    ts_array_free(allocator, (void **)&bp->enlarged_slots, &bp->enlarged_capacity, sizeof(uint8_t));
    ts_array_free(allocator, (void **)&bp->enlarged_list, &bp->enlarged_list_capacity, sizeof(int32_t));
    for (int w = 0; w < TS_MAX_THREADS; ++w) {
        ts_pair_buffer *buffer = bp->worker_pairs + w;
        ts_array_free(allocator, (void **)&buffer->keys, &buffer->capacity, sizeof(uint64_t));
        buffer->count = 0;
    }
    bp->move_count = 0;
    bp->new_pair_count = 0;
}

/* ---- bounds ---- */

static ts_transform body_sim_transform(const ts_world *world, int32_t body)
{
    const ts_body_store *s = &world->store;
    int32_t i = s->table.slot_of_id[body];
    return (ts_transform){{s->px[i], s->py[i], s->pz[i]}, {s->qx[i], s->qy[i], s->qz[i], s->qw[i]}};
}

/* The absolute rotation matrix |R| of a unit quaternion, row by row: a box
 * of half-extents h turned by R spans |R| h along the world axes. */
static void abs_rotation(ts_quat q, ts_vec3 rows[3])
{
    float xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
    float xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
    float wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
    rows[0] = ts_abs3(ts_v3(1.0f - 2.0f * (yy + zz), 2.0f * (xy - wz), 2.0f * (xz + wy)));
    rows[1] = ts_abs3(ts_v3(2.0f * (xy + wz), 1.0f - 2.0f * (xx + zz), 2.0f * (yz - wx)));
    rows[2] = ts_abs3(ts_v3(2.0f * (xz - wy), 2.0f * (yz + wx), 1.0f - 2.0f * (xx + yy)));
}

/* |R| h: the extent along each world axis of a box of half-extents h
 * turned by q. */
static ts_vec3 box_extent(ts_quat q, ts_vec3 h)
{
    ts_vec3 rows[3];
    abs_rotation(q, rows);
    return ts_v3(ts_dot(rows[0], h), ts_dot(rows[1], h), ts_dot(rows[2], h));
}

/* At the centre of mass (a body's only shape always is). */
static bool is_centred(const ts_shape *shape)
{
    ts_vec3 p = shape->sim_local.p;
    return p.x == 0.0f && p.y == 0.0f && p.z == 0.0f;
}

/* Per body and step, so kept cheap: a sphere needs only its centre (no
 * rotation at all when it sits at the centre of mass, as a body's only
 * shape does), a box one rotation matrix instead of three turned axes. */
static ts_aabb shape_bounds(const ts_shape *shape, ts_transform body)
{
    const ts_transform *local = &shape->sim_local;
    ts_vec3 center = is_centred(shape) ? body.p : ts_transform_point(body, local->p);
    ts_vec3 extent;
    switch (shape->type) {
    case TS_SHAPE_SPHERE: {
        float r = shape->geometry.sphere.radius;
        extent = ts_v3(r, r, r);
        break;
    }
    case TS_SHAPE_CAPSULE: {
        /* segment end offset R (0, h, 0), grown by the radius */
        ts_quat q = ts_quat_mul(body.q, local->q);
        ts_vec3 axis = ts_abs3(ts_rotate(q, ts_v3(0.0f, shape->geometry.capsule.half_height, 0.0f)));
        float r = shape->geometry.capsule.radius;
        extent = ts_add(axis, ts_v3(r, r, r));
        break;
    }
    default: {
        extent = box_extent(ts_quat_mul(body.q, local->q), shape->geometry.box.half_extents);
        break;
    }
    }
    return (ts_aabb){ts_sub(center, extent), ts_add(center, extent)};
}

ts_aabb ts_shape_compute_aabb(const ts_world *world, int32_t shape)
{
    const ts_shape *s = world->shapes + shape;
    return shape_bounds(s, body_sim_transform(world, s->body));
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

static ts_aabb load_fat_box(const ts_body_store *s, int32_t i)
{
    return (ts_aabb){{s->fat_lx[i], s->fat_ly[i], s->fat_lz[i]}, {s->fat_ux[i], s->fat_uy[i], s->fat_uz[i]}};
}

void ts_body_sync_bounds(ts_world *world, int32_t body)
{
    ts_body_store *s = &world->store;
    int32_t i = s->table.slot_of_id[body];
    int32_t first = world->bodies[body].first_shape;
    float radius = 0.0f; /* the general path */
    ts_vec3 half = {0.0f, 0.0f, 0.0f};
    s->first_shape[i] = first;
    if (first != -1) {
        const ts_shape *shape = world->shapes + first;
        bool alone = shape->next == -1 && shape->proxy >= 0 && is_centred(shape);
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

ts_result ts_shape_buffer_move(ts_world *world, int32_t shape, const char *function)
{
    ts_shape *s = world->shapes + shape;
    if (s->in_move_buffer) {
        return TS_OK;
    }
    ts_broadphase *bp = &world->broadphase;
    if (!ts_array_reserve(&world->allocator, (void **)&bp->move_buffer, &bp->move_capacity, bp->move_count + 1,
                          sizeof(int32_t))) {
        return ts_fail(TS_ERROR_OUT_OF_MEMORY, function, "the allocator returned NULL");
    }
    bp->move_buffer[bp->move_count++] = shape;
    s->in_move_buffer = true;
    return TS_OK;
}

ts_result ts_shape_create_proxy(ts_world *world, int32_t shape, const char *function)
{
    ts_shape *s = world->shapes + shape;
    s->tree = world->bodies[s->body].type == TS_BODY_STATIC ? TS_TREE_STATIC : TS_TREE_MOVABLE;
    s->fat_aabb = ts_aabb_enlarge(ts_shape_compute_aabb(world, shape), margin_of(s));
    s->enlarged = false;
    s->in_move_buffer = false;
    s->proxy = ts_tree_create_proxy(&world->broadphase.trees[s->tree], s->fat_aabb, s->filter.category_bits, shape);
    if (s->proxy < 0) {
        return ts_fail(TS_ERROR_OUT_OF_MEMORY, function, "the allocator returned NULL");
    }
    ts_result r = ts_shape_buffer_move(world, shape, function);
    if (r != TS_OK) {
        ts_tree_destroy_proxy(&world->broadphase.trees[s->tree], s->proxy);
        s->proxy = -1;
    }
    ts_body_sync_bounds(world, s->body);
    return r;
}

void ts_shape_destroy_proxy(ts_world *world, int32_t shape)
{
    ts_shape *s = world->shapes + shape;
    ts_broadphase *bp = &world->broadphase;
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
    ts_body_sync_bounds(world, s->body);
}

ts_result ts_body_refresh_proxies(ts_world *world, int32_t body, const char *function)
{
    ts_result result = TS_OK;
    for (int32_t sh = world->bodies[body].first_shape; sh != -1 && result == TS_OK; sh = world->shapes[sh].next) {
        ts_shape *s = world->shapes + sh;
        s->fat_aabb = ts_aabb_enlarge(ts_shape_compute_aabb(world, sh), margin_of(s));
        ts_tree_move_proxy(&world->broadphase.trees[s->tree], s->proxy, s->fat_aabb);
        result = ts_shape_buffer_move(world, sh, function);
    }
    ts_body_sync_bounds(world, body);
    return result;
}

/* ---- pair update ---- */

typedef struct pair_query {
    ts_world *world;
    int32_t shape;          /* the moved shape that queries */
    ts_pair_buffer *buffer; /* the worker's */
    bool grow;              /* worker 0 (the calling thread) may allocate; helpers only count past capacity */
    bool failed;            /* out of memory */
} pair_query;

/* Whether two shapes may touch at all: different bodies, at least one of
 * them dynamic, no joint between them that forbids it, and each one's
 * category in the other's mask. */
static bool should_collide(const ts_world *world, const ts_shape *a, const ts_shape *b)
{
    if (a->body == b->body) {
        return false;
    }
    if (world->bodies[a->body].type != TS_BODY_DYNAMIC && world->bodies[b->body].type != TS_BODY_DYNAMIC) {
        return false;
    }
    if ((a->filter.category_bits & b->filter.mask_bits) == 0 || (b->filter.category_bits & a->filter.mask_bits) == 0) {
        return false;
    }
    return ts_joint_allows_collision(world, a->body, b->body); /* walks the shorter joint list */
}

static bool collect_pair(int proxy, int32_t other, void *context)
{
    (void)proxy;
    pair_query *q = context;
    const ts_world *world = q->world;
    if (other == q->shape) {
        return true;
    }
    const ts_shape *a = world->shapes + q->shape;
    const ts_shape *b = world->shapes + other;
    /* Both moved: only the lower index reports the pair. */
    if (b->in_move_buffer && other < q->shape) {
        return true;
    }
    if (!should_collide(world, a, b)) {
        return true;
    }
    uint64_t key = ts_pair_key(q->shape, other);
    if (ts_pair_set_find(&world->pairs, key) >= 0) {
        return true;
    }
    ts_pair_buffer *buffer = q->buffer;
    if (q->grow && !ts_array_reserve(&world->allocator, (void **)&buffer->keys, &buffer->capacity, buffer->count + 1,
                                     sizeof(uint64_t))) {
        q->failed = true;
        return false;
    }
    if (buffer->count < buffer->capacity) {
        buffer->keys[buffer->count] = key;
    }
    buffer->count += 1;
    return true;
}

/* Moved shapes per block of the parallel query. */
#define TS_MOVE_BLOCK 16

typedef struct pair_stage {
    ts_world *world;
    int32_t block_size;
    bool failed; /* worker 0 ran out of memory */
} pair_stage;

static void query_block(void *context, int32_t block, int worker)
{
    pair_stage *stage = context;
    ts_world *world = stage->world;
    ts_broadphase *bp = &world->broadphase;
    pair_query q = {world, -1, bp->worker_pairs + worker, worker == 0, false};
    int32_t begin, end;
    ts_block_range(block, stage->block_size, bp->move_count, &begin, &end);
    for (int32_t m = begin; m < end && !q.failed; ++m) {
        int32_t shape = bp->move_buffer[m];
        if (shape < 0) {
            continue;
        }
        const ts_shape *s = world->shapes + shape;
        q.shape = shape;
        ts_tree_query(&bp->trees[TS_TREE_MOVABLE], s->fat_aabb, s->filter.mask_bits, collect_pair, &q);
        if (s->tree == TS_TREE_MOVABLE) {
            ts_tree_query(&bp->trees[TS_TREE_STATIC], s->fat_aabb, s->filter.mask_bits, collect_pair, &q);
        }
    }
    if (q.failed) {
        stage->failed = true; /* worker 0 only */
    }
}

/* The query stage, run again with larger buffers when a helper's filled up
 * (the keys are sorted afterwards, so which worker found a pair, and in
 * which run, does not matter). Returns the keys found, or -1 when out of memory. */
static int32_t find_pairs(ts_world *world)
{
    ts_broadphase *bp = &world->broadphase;
    int workers = world->parallel.worker_count;
    pair_stage stage = {world, ts_block_size(bp->move_count, TS_MOVE_BLOCK), false};
    for (;;) {
        for (int w = 0; w < workers; ++w) {
            bp->worker_pairs[w].count = 0;
        }
        ts_parallel_for(&world->parallel, query_block, &stage, ts_block_count(bp->move_count, stage.block_size));
        if (stage.failed) {
            return -1;
        }
        int32_t total = 0;
        bool overflowed = false;
        for (int w = 0; w < workers; ++w) {
            total += bp->worker_pairs[w].count;
            overflowed |= bp->worker_pairs[w].count > bp->worker_pairs[w].capacity;
        }
        if (!overflowed) {
            /* Which worker finds how many pairs depends on who claimed which
             * blocks, so every buffer gets room for all of them: a later
             * step with no more pairs than this one then allocates nothing,
             * whatever the claims. */
            for (int w = 0; w < workers; ++w) {
                ts_pair_buffer *buffer = bp->worker_pairs + w;
                if (!ts_array_reserve(&world->allocator, (void **)&buffer->keys, &buffer->capacity, total,
                                      sizeof(uint64_t))) {
                    return -1;
                }
            }
            return total;
        }
        for (int w = 1; w < workers; ++w) {
            ts_pair_buffer *buffer = bp->worker_pairs + w;
            if (!ts_array_reserve(&world->allocator, (void **)&buffer->keys, &buffer->capacity, total,
                                  sizeof(uint64_t))) {
                return -1;
            }
        }
    }
}

static int compare_keys(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

ts_result ts_broadphase_find_pairs(ts_world *world)
{
    ts_broadphase *bp = &world->broadphase;
    int32_t found = find_pairs(world);
    for (int32_t m = 0; m < bp->move_count; ++m) {
        if (bp->move_buffer[m] >= 0) {
            world->shapes[bp->move_buffer[m]].in_move_buffer = false;
        }
    }
    bp->move_count = 0;
    bp->new_pair_count = 0;
    /* Room for every key found (repeats included): the registration may then
     * run next to the narrowphase, which must see no array move. */
    if (found < 0 ||
        !ts_array_reserve(&world->allocator, (void **)&bp->new_pairs, &bp->new_pair_capacity, found,
                          sizeof(uint64_t)) ||
        !ts_array_reserve(&world->allocator, (void **)&bp->new_ids, &bp->new_id_capacity, found, sizeof(int32_t)) ||
        !ts_contacts_reserve(world, found)) {
        return ts_fail(TS_ERROR_OUT_OF_MEMORY, "ts_world_step", "the allocator returned NULL while finding pairs");
    }
    for (int w = 0; w < world->parallel.worker_count; ++w) {
        const ts_pair_buffer *buffer = bp->worker_pairs + w;
        for (int32_t i = 0; i < buffer->count; ++i) {
            bp->new_pairs[bp->new_pair_count++] = buffer->keys[i];
        }
    }
    return TS_OK;
}

void ts_broadphase_register_pairs(ts_world *world)
{
    ts_broadphase *bp = &world->broadphase;
    /* A pair can be found twice (two queries of one moved shape, static and
     * movable); sort and drop repeats. */
    qsort(bp->new_pairs, (size_t)bp->new_pair_count, sizeof(uint64_t), compare_keys);
    int32_t unique = 0;
    for (int32_t i = 0; i < bp->new_pair_count; ++i) {
        if (unique == 0 || bp->new_pairs[i] != bp->new_pairs[unique - 1]) {
            bp->new_pairs[unique++] = bp->new_pairs[i];
        }
    }
    bp->new_pair_count = unique;
    /* In key order: ids, the pair map, the body lists and the store slots
     * (cheap bookkeeping). The awake ones take the slots right after the
     * awake range's, in the same order. */
    int32_t *ids = bp->new_ids;
    const ts_soa_table *table = &world->contact_store.table;
    for (int32_t i = 0; i < unique; ++i) {
        uint64_t key = bp->new_pairs[i];
        ids[i] = ts_contact_register(world, (int32_t)(key >> 32), (int32_t)(key & 0xffffffffu));
    }
    /* Those of resting bodies went to the sleeping range (rare): fill them
     * here, the narrowphase fills the others. */
    for (int32_t i = 0; i < unique; ++i) {
        if (table->slot_of_id[ids[i]] >= table->end[TS_CONTACT_RANGE_AWAKE]) {
            ts_contacts_fill(world, ids, i, i + 1);
        }
    }
}

/* New contacts per block of the parallel fill. */
#define TS_FILL_BLOCK 64

typedef struct fill_stage {
    ts_world *world;
    int32_t first; /* the first new awake slot */
    int32_t count;
    int32_t block_size;
} fill_stage;

static void fill_block(void *context, int32_t block, int worker)
{
    (void)worker;
    const fill_stage *stage = context;
    int32_t begin, end;
    ts_block_range(block, stage->block_size, stage->count, &begin, &end);
    ts_contacts_fill_slots(stage->world, stage->first + begin, stage->first + end);
}

ts_result ts_broadphase_update_pairs(ts_world *world)
{
    int32_t first = world->contact_store.table.end[TS_CONTACT_RANGE_AWAKE];
    TS_TRY(ts_broadphase_find_pairs(world));
    ts_broadphase_register_pairs(world);
    int32_t count = world->contact_store.table.end[TS_CONTACT_RANGE_AWAKE] - first;
    fill_stage stage = {world, first, count, ts_block_size(count, TS_FILL_BLOCK)};
    ts_parallel_for(&world->parallel, fill_block, &stage, ts_block_count(count, stage.block_size));
    return TS_OK;
}

/* ---- bounds update after the solver ---- */

/* Steps of motion a fat bound makes room for when it is moved. */
#define TS_LOOK_AHEAD 4.0f

/* The bounds a shape may sweep in the next step: its box and the same box
 * moved by v dt, so that a fast body's pairs exist before it arrives. */
TS_FORCE_INLINE ts_aabb swept(ts_aabb box, ts_vec3 motion)
{
    ts_aabb moved = {ts_add(box.lower, motion), ts_add(box.upper, motion)};
    return ts_aabb_union(box, moved);
}

bool ts_broadphase_reserve_slots(ts_world *world, int32_t awake)
{
    ts_broadphase *bp = &world->broadphase;
    /* + 8: the scan in ts_broadphase_enlarge_proxies reads whole 8-byte words */
    return ts_array_reserve(&world->allocator, (void **)&bp->enlarged_slots, &bp->enlarged_capacity, awake + 8,
                            sizeof(uint8_t)) &&
           ts_array_reserve(&world->allocator, (void **)&bp->enlarged_list, &bp->enlarged_list_capacity, awake,
                            sizeof(int32_t)) &&
           ts_tree_reserve_rebuild(&bp->trees[TS_TREE_MOVABLE]);
}

/* Whether a shape of tight box `box` moving by `motion` leaves its fat box;
 * if so, the new fat box: room for TS_LOOK_AHEAD steps of the same motion,
 * so that a fast body moves its proxy every few steps, not every step. */
TS_FORCE_INLINE bool refatten(ts_aabb *fat, ts_aabb box, ts_vec3 motion)
{
    if (ts_aabb_contains(*fat, swept(box, motion))) {
        return false;
    }
    *fat = ts_aabb_enlarge(swept(box, ts_scale(TS_LOOK_AHEAD, motion)), TS_AABB_MARGIN);
    return true;
}

/* Every shape of the body in slot i, through its shape list. */
static uint8_t shape_list_bounds(ts_world *world, int32_t i, ts_vec3 motion)
{
    const ts_body_store *store = &world->store;
    ts_transform xf = {{store->px[i], store->py[i], store->pz[i]},
                       {store->qx[i], store->qy[i], store->qz[i], store->qw[i]}};
    uint8_t slot_enlarged = 0;
    for (int32_t sh = store->first_shape[i]; sh != -1; sh = world->shapes[sh].next) {
        ts_shape *s = world->shapes + sh;
        if (refatten(&s->fat_aabb, shape_bounds(s, xf), motion)) {
            s->enlarged = true;
            slot_enlarged = 1;
        }
    }
    return slot_enlarged;
}

/* The columns the loop below reads, held in locals: its byte stores could
 * alias the store's pointers, which the compiler would then load again. */
typedef struct bounds_columns {
    const float *px, *py, *pz, *vx, *vy, *vz, *sphere_radius;
    float *lx, *ly, *lz, *ux, *uy, *uz;
    const float *qx, *qy, *qz, *qw, *hx, *hy, *hz;
} bounds_columns;

/* The body in slot i whose only shape is a sphere of radius r at its centre
 * of mass: from the store's columns alone (the same box and the same
 * operations as shape_bounds and the list path, so the same bits); a new fat
 * box stays in the columns until ts_broadphase_enlarge_proxies. */
TS_FORCE_INLINE uint8_t extent_bounds(bounds_columns c, int32_t i, ts_vec3 extent, ts_vec3 motion)
{
    ts_vec3 center = {c.px[i], c.py[i], c.pz[i]};
    ts_aabb box = {ts_sub(center, extent), ts_add(center, extent)};
    ts_aabb fat = {{c.lx[i], c.ly[i], c.lz[i]}, {c.ux[i], c.uy[i], c.uz[i]}};
    if (!refatten(&fat, box, motion)) {
        return 0;
    }
    c.lx[i] = fat.lower.x;
    c.ly[i] = fat.lower.y;
    c.lz[i] = fat.lower.z;
    c.ux[i] = fat.upper.x;
    c.uy[i] = fat.upper.y;
    c.uz[i] = fat.upper.z;
    return 1;
}

/* One axis of four sphere-path slots: the box lower = p - r, upper = p + r
 * swept by motion m (min / max with the moved box), as sphere_bounds does
 * lane by lane. simde_mm_min_ps(a, b) is a < b ? a : b and max a > b ? a : b,
 * as ts_min3 / ts_max3: the same bits. */
typedef struct sweep4 {
    simde__m128 lower, upper;
} sweep4;

TS_FORCE_INLINE sweep4 sweep_axis4(simde__m128 lower, simde__m128 upper, simde__m128 m)
{
    return (sweep4){simde_mm_min_ps(lower, simde_mm_add_ps(lower, m)),
                    simde_mm_max_ps(upper, simde_mm_add_ps(upper, m))};
}

/* Whether the fat interval [fat_lower, fat_upper] holds the swept one, per lane. */
TS_FORCE_INLINE simde__m128 holds4(simde__m128 fat_lower, simde__m128 fat_upper, sweep4 s)
{
    return simde_mm_and_ps(simde_mm_cmple_ps(fat_lower, s.lower), simde_mm_cmple_ps(s.upper, fat_upper));
}

/* One axis of the fat box after the bounds test: the lanes that left get
 * enlarge(swept(box, TS_LOOK_AHEAD m), TS_AABB_MARGIN) as refatten does. */
TS_FORCE_INLINE void refatten_axis4(float *fat_lower, float *fat_upper, simde__m128 lower, simde__m128 upper,
                                    simde__m128 m, simde__m128 left)
{
    simde__m128 margin = simde_mm_set1_ps(TS_AABB_MARGIN);
    sweep4 ahead = sweep_axis4(lower, upper, simde_mm_mul_ps(simde_mm_set1_ps(TS_LOOK_AHEAD), m));
    simde__m128 new_lower = simde_mm_sub_ps(ahead.lower, margin);
    simde__m128 new_upper = simde_mm_add_ps(ahead.upper, margin);
    simde__m128 old_lower = simde_mm_loadu_ps(fat_lower), old_upper = simde_mm_loadu_ps(fat_upper);
    simde_mm_storeu_ps(fat_lower,
                       simde_mm_or_ps(simde_mm_and_ps(left, new_lower), simde_mm_andnot_ps(left, old_lower)));
    simde_mm_storeu_ps(fat_upper,
                       simde_mm_or_ps(simde_mm_and_ps(left, new_upper), simde_mm_andnot_ps(left, old_upper)));
}

/* Slots [i, i + 4), all on a fast path, at once: boxes of extents e about
 * the centres; returns the mask of those that left their fat bounds (lane
 * l: bit l). */
TS_FORCE_INLINE int extent_bounds4(bounds_columns c, int32_t i, simde__m128 ex, simde__m128 ey, simde__m128 ez,
                                   simde__m128 dt)
{
    simde__m128 px = simde_mm_loadu_ps(c.px + i), py = simde_mm_loadu_ps(c.py + i), pz = simde_mm_loadu_ps(c.pz + i);
    simde__m128 mx = simde_mm_mul_ps(dt, simde_mm_loadu_ps(c.vx + i));
    simde__m128 my = simde_mm_mul_ps(dt, simde_mm_loadu_ps(c.vy + i));
    simde__m128 mz = simde_mm_mul_ps(dt, simde_mm_loadu_ps(c.vz + i));
    simde__m128 lx = simde_mm_sub_ps(px, ex), ly = simde_mm_sub_ps(py, ey), lz = simde_mm_sub_ps(pz, ez);
    simde__m128 ux = simde_mm_add_ps(px, ex), uy = simde_mm_add_ps(py, ey), uz = simde_mm_add_ps(pz, ez);
    simde__m128 held_x = holds4(simde_mm_loadu_ps(c.lx + i), simde_mm_loadu_ps(c.ux + i), sweep_axis4(lx, ux, mx));
    simde__m128 held_y = holds4(simde_mm_loadu_ps(c.ly + i), simde_mm_loadu_ps(c.uy + i), sweep_axis4(ly, uy, my));
    simde__m128 held_z = holds4(simde_mm_loadu_ps(c.lz + i), simde_mm_loadu_ps(c.uz + i), sweep_axis4(lz, uz, mz));
    simde__m128 held = simde_mm_and_ps(simde_mm_and_ps(held_x, held_y), held_z);
    int left = ~simde_mm_movemask_ps(held) & 15;
    if (left != 0) {
        /* All ones where not held: a held lane is all ones (a NaN, equal to nothing), the others 0 == 0. */
        simde__m128 mask = simde_mm_cmpeq_ps(held, simde_mm_setzero_ps());
        refatten_axis4(c.lx + i, c.ux + i, lx, ux, mx, mask);
        refatten_axis4(c.ly + i, c.uy + i, ly, uy, my, mask);
        refatten_axis4(c.lz + i, c.uz + i, lz, uz, mz, mask);
    }
    return left;
}

/* |R| h of four box-path slots (abs_rotation and the dot products of
 * shape_bounds, lane by lane: the same bits). */
TS_FORCE_INLINE int box_bounds4(bounds_columns c, int32_t i, simde__m128 dt)
{
    simde__m128 x = simde_mm_loadu_ps(c.qx + i), y = simde_mm_loadu_ps(c.qy + i);
    simde__m128 z = simde_mm_loadu_ps(c.qz + i), w = simde_mm_loadu_ps(c.qw + i);
    simde__m128 one = simde_mm_set1_ps(1.0f), two = simde_mm_set1_ps(2.0f);
    simde__m128 sign = simde_mm_set1_ps(-0.0f);
    simde__m128 xx = simde_mm_mul_ps(x, x), yy = simde_mm_mul_ps(y, y), zz = simde_mm_mul_ps(z, z);
    simde__m128 xy = simde_mm_mul_ps(x, y), xz = simde_mm_mul_ps(x, z), yz = simde_mm_mul_ps(y, z);
    simde__m128 wx = simde_mm_mul_ps(w, x), wy = simde_mm_mul_ps(w, y), wz = simde_mm_mul_ps(w, z);
#define ABS4(v) simde_mm_andnot_ps(sign, (v))
    simde__m128 r00 = ABS4(simde_mm_sub_ps(one, simde_mm_mul_ps(two, simde_mm_add_ps(yy, zz))));
    simde__m128 r01 = ABS4(simde_mm_mul_ps(two, simde_mm_sub_ps(xy, wz)));
    simde__m128 r02 = ABS4(simde_mm_mul_ps(two, simde_mm_add_ps(xz, wy)));
    simde__m128 r10 = ABS4(simde_mm_mul_ps(two, simde_mm_add_ps(xy, wz)));
    simde__m128 r11 = ABS4(simde_mm_sub_ps(one, simde_mm_mul_ps(two, simde_mm_add_ps(xx, zz))));
    simde__m128 r12 = ABS4(simde_mm_mul_ps(two, simde_mm_sub_ps(yz, wx)));
    simde__m128 r20 = ABS4(simde_mm_mul_ps(two, simde_mm_sub_ps(xz, wy)));
    simde__m128 r21 = ABS4(simde_mm_mul_ps(two, simde_mm_add_ps(yz, wx)));
    simde__m128 r22 = ABS4(simde_mm_sub_ps(one, simde_mm_mul_ps(two, simde_mm_add_ps(xx, yy))));
#undef ABS4
    simde__m128 hx = simde_mm_loadu_ps(c.hx + i), hy = simde_mm_loadu_ps(c.hy + i), hz = simde_mm_loadu_ps(c.hz + i);
#define DOT4(a, b, d) simde_mm_add_ps(simde_mm_add_ps(simde_mm_mul_ps(a, hx), simde_mm_mul_ps(b, hy)), simde_mm_mul_ps(d, hz))
    simde__m128 ex = DOT4(r00, r01, r02), ey = DOT4(r10, r11, r12), ez = DOT4(r20, r21, r22);
#undef DOT4
    return extent_bounds4(c, i, ex, ey, ez, dt);
}

/* The same for one slot. */
TS_FORCE_INLINE uint8_t box_bounds(bounds_columns c, int32_t i, ts_vec3 motion)
{
    ts_quat q = {c.qx[i], c.qy[i], c.qz[i], c.qw[i]};
    return extent_bounds(c, i, box_extent(q, ts_v3(c.hx[i], c.hy[i], c.hz[i])), motion);
}

/* Four slots from i all with a positive value in `column` (a fast path's). */
TS_FORCE_INLINE bool four_on(const float *column, int32_t i)
{
    return simde_mm_movemask_ps(simde_mm_cmpgt_ps(simde_mm_loadu_ps(column + i), simde_mm_setzero_ps())) == 15;
}

bool ts_broadphase_compute_bounds(ts_world *world, int32_t begin, int32_t end)
{
    ts_body_store *store = &world->store;
    const bounds_columns c = {store->px,     store->py,     store->pz,     store->vx,     store->vy,
                              store->vz,     store->sphere_radius,         store->fat_lx, store->fat_ly,
                              store->fat_lz, store->fat_ux, store->fat_uy, store->fat_uz, store->qx,
                              store->qy,     store->qz,     store->qw,     store->box_hx, store->box_hy,
                              store->box_hz};
    uint8_t *enlarged_slots = world->broadphase.enlarged_slots;
    float dt = world->step_dt;
    simde__m128 dt4 = simde_mm_set1_ps(dt);
    bool any = false;
    for (int32_t i = begin; i < end;) {
        int left = -1;
        if (end - i >= 4 && c.sphere_radius[i] > 0.0f && four_on(c.sphere_radius, i)) {
            simde__m128 r = simde_mm_loadu_ps(c.sphere_radius + i);
            left = extent_bounds4(c, i, r, r, r, dt4);
        } else if (end - i >= 4 && c.hx[i] > 0.0f && four_on(c.hx, i)) {
            left = box_bounds4(c, i, dt4);
        }
        if (left >= 0) {
            for (int l = 0; l < 4; ++l) {
                enlarged_slots[i + l] = (uint8_t)(left >> l & 1);
            }
            any |= left != 0;
            i += 4;
            continue;
        }
        ts_vec3 motion = ts_scale(dt, ts_v3(c.vx[i], c.vy[i], c.vz[i]));
        float r = c.sphere_radius[i];
        uint8_t slot_enlarged = r > 0.0f        ? extent_bounds(c, i, ts_v3(r, r, r), motion)
                                : c.hx[i] > 0.0f ? box_bounds(c, i, motion)
                                                 : shape_list_bounds(world, i, motion);
        enlarged_slots[i] = slot_enlarged;
        any |= slot_enlarged != 0;
        i += 1;
    }
    return any;
}

/* The marked slots of the bounds update, in order. */
static int32_t list_marked_slots(const ts_broadphase *bp, int32_t awake)
{
    const uint8_t *flags = bp->enlarged_slots;
    int32_t *list = bp->enlarged_list;
    int32_t count = 0;
    for (int32_t i = 0; i < awake; ++i) {
        /* Skip eight quiet slots at a time (most bodies stay in their fat bounds). */
        if ((i & 7) == 0 && i + 8 <= awake) {
            uint64_t word;
            memcpy(&word, flags + i, sizeof(word));
            if (word == 0) {
                i += 7;
                continue;
            }
        }
        if (flags[i] != 0) {
            list[count++] = i;
        }
    }
    return count;
}

/* How far ahead in its block the walk below asks for what it will read:
 * a shape, then (once that arrived) its leaf, then the leaf's parent. Each
 * proxy's reads are scattered, so without this the walk waits on memory
 * for nearly every one. */
#define TS_ENLARGE_AHEAD 12

/* Listed slots per block of the enlarge stage. */
#define TS_ENLARGE_BLOCK 2048

typedef struct enlarge_stage {
    ts_world *world;
    int32_t count;      /* listed slots */
    int32_t move_first; /* listed slot k queues its shape at move_buffer[move_first + k] */
    bool shared;        /* several workers mark the tree at once */
    bool others[TS_MAX_THREADS]; /* per worker: met a listed body that is not a fast path's */
} enlarge_stage;

/* A listed slot whose body has one fast-path shape (a centred sphere or
 * box): its new fat box waits in the store's columns. */
TS_FORCE_INLINE bool fast_path(const ts_body_store *store, int32_t i)
{
    return store->sphere_radius[i] > 0.0f || store->box_hx[i] > 0.0f;
}

/* Gives a fast-path shape its new fat box, marks its proxy and queues it in
 * the listed slot's place of the move buffer; a body of other shapes
 * leaves its place empty (-1) for queue_shapes. */
static void enlarge_block(void *context, int32_t block, int worker)
{
    enlarge_stage *stage = context;
    ts_world *world = stage->world;
    const ts_body_store *store = &world->store;
    ts_broadphase *bp = &world->broadphase;
    ts_dynamic_tree *tree = &bp->trees[TS_TREE_MOVABLE];
    const int32_t *list = bp->enlarged_list;
    const int32_t *first_shape = store->first_shape;
    ts_shape *shapes = world->shapes;
    int32_t *queue = bp->move_buffer + stage->move_first;
    int32_t begin = block * TS_ENLARGE_BLOCK;
    int32_t end = begin + TS_ENLARGE_BLOCK < stage->count ? begin + TS_ENLARGE_BLOCK : stage->count;
    for (int32_t k = begin; k < end; ++k) {
        if (k + TS_ENLARGE_AHEAD < end) {
            TS_PREFETCH(shapes + first_shape[list[k + TS_ENLARGE_AHEAD]]);
        }
        if (k + 2 * TS_ENLARGE_AHEAD / 3 < end) {
            ts_tree_prefetch_proxy(tree, shapes[first_shape[list[k + 2 * TS_ENLARGE_AHEAD / 3]]].proxy);
        }
        if (k + TS_ENLARGE_AHEAD / 3 < end) {
            ts_tree_prefetch_parent(tree, shapes[first_shape[list[k + TS_ENLARGE_AHEAD / 3]]].proxy);
        }
        int32_t i = list[k];
        queue[k] = -1;
        if (!fast_path(store, i)) {
            stage->others[worker] = true; /* written only then: the workers' entries share a line */
            continue;
        }
        int32_t shape = first_shape[i];
        ts_shape *s = shapes + shape;
        s->fat_aabb = load_fat_box(store, i);
        ts_tree_enlarge_proxy_deferred(tree, s->proxy, s->fat_aabb, stage->shared);
        if (!s->in_move_buffer) { /* (the pair update emptied the buffer: always) */
            s->in_move_buffer = true;
            queue[k] = shape;
        }
    }
}

/* The listed bodies of other shapes (with all_bodies, every listed body):
 * their moved shapes marked and queued, in list order. */
static ts_result queue_shapes(ts_world *world, int32_t count, bool all_bodies)
{
    const ts_body_store *store = &world->store;
    const int32_t *list = world->broadphase.enlarged_list;
    ts_dynamic_tree *tree = &world->broadphase.trees[TS_TREE_MOVABLE];
    ts_shape *shapes = world->shapes;
    ts_result result = TS_OK;
    for (int32_t k = 0; k < count; ++k) {
        int32_t i = list[k];
        if (fast_path(store, i)) {
            if (all_bodies) {
                ts_shape *s = shapes + store->first_shape[i];
                s->fat_aabb = load_fat_box(store, i);
                ts_tree_enlarge_proxy_deferred(tree, s->proxy, s->fat_aabb, false);
                ts_result r = ts_shape_buffer_move(world, store->first_shape[i], "ts_world_step");
                result = result == TS_OK ? r : result;
            }
            continue;
        }
        for (int32_t sh = store->first_shape[i]; sh != -1; sh = shapes[sh].next) {
            ts_shape *s = shapes + sh;
            if (!s->enlarged) {
                continue;
            }
            s->enlarged = false;
            ts_tree_enlarge_proxy_deferred(tree, s->proxy, s->fat_aabb, false);
            ts_result r = ts_shape_buffer_move(world, sh, "ts_world_step");
            result = result == TS_OK ? r : result;
        }
    }
    return result;
}

ts_result ts_broadphase_enlarge_proxies(ts_world *world)
{
    ts_broadphase *bp = &world->broadphase;
    int32_t count = list_marked_slots(bp, world->store.table.end[TS_RANGE_AWAKE]);
    if (count == 0) {
        return TS_OK;
    }
    /* A place in the move buffer per listed slot, which the blocks fill.
     * Without room, one by one: every proxy is still marked (the refit must
     * follow), and those the buffer cannot take report the failure. */
    if (!ts_array_reserve(&world->allocator, (void **)&bp->move_buffer, &bp->move_capacity, bp->move_count + count,
                          sizeof(int32_t))) {
        return queue_shapes(world, count, true);
    }
    int32_t blocks = (count + TS_ENLARGE_BLOCK - 1) / TS_ENLARGE_BLOCK;
    enlarge_stage stage = {world, count, bp->move_count, world->parallel.worker_count > 1 && blocks > 1, {false}};
    ts_parallel_for(&world->parallel, enlarge_block, &stage, blocks);
    bp->move_count += count;
    bool others = false;
    for (int w = 0; w < world->parallel.worker_count; ++w) {
        others |= stage.others[w];
    }
    return others ? queue_shapes(world, count, false) : TS_OK;
}

typedef struct rebuild_stage {
    ts_dynamic_tree *tree;
    int level;
} rebuild_stage;

static void split_block(void *context, int32_t block, int worker)
{
    (void)worker;
    const rebuild_stage *stage = context;
    ts_tree_rebuild_split(stage->tree, stage->level, block);
}

static void refit_block(void *context, int32_t block, int worker)
{
    (void)worker;
    const rebuild_stage *stage = context;
    ts_tree_refit_part(stage->tree, block);
}

static void finish_block(void *context, int32_t block, int worker)
{
    (void)worker;
    const rebuild_stage *stage = context;
    ts_tree_rebuild_finish(stage->tree, block);
}

bool ts_broadphase_rebuild_tree(ts_world *world)
{
    rebuild_stage stage = {&world->broadphase.trees[TS_TREE_MOVABLE], 0};
    /* The refit: the subtrees below the top of the enlarged part in one
     * stage, then the top (the answer does not depend on who ran what). */
    int parts = ts_tree_refit_begin(stage.tree);
    if (parts < 0) {
        return true; /* nothing grew */
    }
    ts_parallel_for(&world->parallel, refit_block, &stage, parts);
    if (!ts_tree_refit_end(stage.tree)) {
        return true; /* refitted in shape: good enough until it drifts */
    }
    int levels = ts_tree_rebuild_begin(stage.tree, false);
    if (levels < 0) {
        return levels == -1;
    }
    /* One stage per breadth-first level (its ranges are independent), then
     * one for the ranges left; the tree does not depend on who ran what. */
    for (stage.level = 0; stage.level < levels; ++stage.level) {
        ts_parallel_for(&world->parallel, split_block, &stage, 1 << stage.level);
    }
    ts_parallel_for(&world->parallel, finish_block, &stage, 1 << levels);
    ts_tree_rebuild_end(stage.tree);
    return true;
}
