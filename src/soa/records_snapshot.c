/* Snapshots of the records: id pools, bodies, shapes, joints and the
 * bodies' edge lists (see records_snapshot.h; the stores and contacts are
 * in store_snapshot.c). */
#include "soa/records_snapshot.h"

#include "soa/snapshot_ranges.h"

#include "tessera/limits.h"
#include "tessera/motion_locks.h"

#include "base/alloc.h"
#include "base/math3.h"

#include <string.h>

static bool same_f32(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }

static void put_vec3(ts_writer *w, ts_vec3 v)
{
    ts_put_f32(w, v.x);
    ts_put_f32(w, v.y);
    ts_put_f32(w, v.z);
}

static ts_vec3 get_vec3(ts_reader *r) { return (ts_vec3){ts_get_f32(r), ts_get_f32(r), ts_get_f32(r)}; }

static void put_quat(ts_writer *w, ts_quat q)
{
    ts_put_f32(w, q.x);
    ts_put_f32(w, q.y);
    ts_put_f32(w, q.z);
    ts_put_f32(w, q.w);
}

static ts_quat get_quat(ts_reader *r) { return (ts_quat){ts_get_f32(r), ts_get_f32(r), ts_get_f32(r), ts_get_f32(r)}; }

static void put_transform(ts_writer *w, ts_transform t)
{
    put_vec3(w, t.p);
    put_quat(w, t.q);
}

static ts_transform get_transform(ts_reader *r)
{
    ts_transform t;
    t.p = get_vec3(r);
    t.q = get_quat(r);
    return t;
}

static bool finite_transform(ts_transform t)
{
    return ts_is_finite(t.p.x) && ts_is_finite(t.p.y) && ts_is_finite(t.p.z) && ts_is_finite(t.q.x) &&
           ts_is_finite(t.q.y) && ts_is_finite(t.q.z) && ts_is_finite(t.q.w);
}

static bool same_transform(ts_transform a, ts_transform b) { return memcmp(&a, &b, sizeof a) == 0; }

static const ts_transform identity = {{0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f, 1.0f}};

/* ---- id pools ---- */

void ts_id_pool_save(ts_writer *w, const ts_id_pool *pool)
{
    ts_put_varint(w, (uint64_t)pool->next_index);
    ts_put_varint(w, (uint64_t)pool->free_count);
    for (int32_t k = 0; k < pool->free_count; ++k) {
        ts_put_varint(w, (uint64_t)pool->free_ids[k]);
    }
}

ts_load_status ts_id_pool_load(ts_reader *r, ts_id_pool *pool, const ts_allocator *allocator, int32_t limit,
                               const char *what)
{
    int32_t next = ts_get_count(r, limit, 1, what);
    int32_t free_count = ts_get_count(r, next < 0 ? 0 : next, 1, "the count of free ids");
    if (r->failed) {
        return TS_LOAD_INVALID;
    }
    if (!ts_id_pool_reserve(pool, allocator, next)) {
        return TS_LOAD_NO_MEMORY;
    }
    pool->next_index = next;
    pool->free_count = free_count;
    for (int32_t k = 0; k < free_count; ++k) {
        pool->free_ids[k] = ts_get_index(r, 0, next, "a free id");
    }
    return r->failed ? TS_LOAD_INVALID : TS_LOAD_OK;
}

/* The free stack names exactly the dead records, once each. */
static bool check_free_ids(ts_reader *r, const ts_id_pool *pool, const bool *alive_of, size_t stride,
                           const char *what)
{
    int32_t dead = 0;
    for (int32_t i = 0; i < pool->next_index; ++i) {
        dead += *(const bool *)((const char *)alive_of + (size_t)i * stride) ? 0 : 1;
    }
    if (dead != pool->free_count) {
        return ts_reader_fail(r, "%d %s are dead but %d ids are free", (int)dead, what, (int)pool->free_count);
    }
    for (int32_t k = 0; k < pool->free_count; ++k) {
        if (*(const bool *)((const char *)alive_of + (size_t)pool->free_ids[k] * stride)) {
            return ts_reader_fail(r, "free id %d names a live one of the %s", (int)pool->free_ids[k], what);
        }
    }
    return true; /* with the ids distinct (free_ids_distinct), the free ones are exactly the dead ones */
}

/* Arrays of records sized exactly for `count` ids. */
static bool alloc_records(const ts_allocator *a, void **data, int32_t *capacity, int32_t count, size_t size)
{
    if (count == 0) {
        return true;
    }
    void *p = ts_alloc(a, (size_t)count * size);
    if (p == NULL) {
        return false;
    }
    memset(p, 0, (size_t)count * size);
    *data = p;
    *capacity = count;
    return true;
}

/* A bit per id: whether a free stack repeats one (marks in scratch, zeroed). */
static bool free_ids_distinct(ts_reader *r, const ts_id_pool *pool, const ts_allocator *a, bool *no_memory)
{
    if (pool->free_count < 2) {
        return true;
    }
    size_t bytes = (size_t)pool->next_index;
    uint8_t *seen = ts_alloc(a, bytes);
    if (seen == NULL) {
        *no_memory = true;
        return false;
    }
    memset(seen, 0, bytes);
    bool ok = true;
    for (int32_t k = 0; k < pool->free_count && ok; ++k) {
        int32_t id = pool->free_ids[k];
        ok = seen[id] == 0 || ts_reader_fail(r, "free id %d is listed twice", (int)id);
        seen[id] = 1;
    }
    ts_free(a, seen, bytes);
    return ok;
}

static ts_load_status check_pool(ts_reader *r, const ts_id_pool *pool, const ts_allocator *a, const bool *alive_of,
                                 size_t stride, const char *what)
{
    bool no_memory = false;
    if (!free_ids_distinct(r, pool, a, &no_memory)) {
        return no_memory ? TS_LOAD_NO_MEMORY : TS_LOAD_INVALID;
    }
    return check_free_ids(r, pool, alive_of, stride, what) ? TS_LOAD_OK : TS_LOAD_INVALID;
}

/* ---- bodies ---- */

enum {
    BODY_LINEAR_DAMPING = 1,
    BODY_ANGULAR_DAMPING = 2,
    BODY_GRAVITY_SCALE = 4,
    BODY_NO_SLEEP = 8,
    BODY_SLEEP_THRESHOLD = 16,
    BODY_USER_DATA = 32,
    BODY_MASS = 64, /* mass data written (else: the same as the last one written) */
    BODY_LOCKS = 128, /* format 2: the user's motion locks (a byte; else none) */
};

static void put_mass(ts_writer *w, const ts_mass_data *m)
{
    ts_put_f32(w, m->mass);
    put_vec3(w, m->center);
    put_vec3(w, m->principal_inertia);
    put_quat(w, m->principal_rotation);
}

static ts_mass_data get_mass(ts_reader *r)
{
    ts_mass_data m;
    m.mass = ts_get_f32(r);
    m.center = get_vec3(r);
    m.principal_inertia = get_vec3(r);
    m.principal_rotation = get_quat(r);
    return m;
}

void ts_bodies_save(ts_writer *w, const ts_records *records)
{
    ts_id_pool_save(w, &records->body_ids);
    ts_mass_data last = {0.0f, {0, 0, 0}, {0, 0, 0}, {0, 0, 0, 1}};
    for (int32_t i = 0; i < records->body_ids.next_index; ++i) {
        const ts_body *b = records->bodies + i;
        ts_put_varint(w, b->generation);
        ts_put_u8(w, b->alive ? 1 : 0);
        if (!b->alive) {
            continue;
        }
        uint32_t mask = (!same_f32(b->linear_damping, 0.0f) ? BODY_LINEAR_DAMPING : 0) |
                        (!same_f32(b->angular_damping, 0.0f) ? BODY_ANGULAR_DAMPING : 0) |
                        (!same_f32(b->gravity_scale, 1.0f) ? BODY_GRAVITY_SCALE : 0) |
                        (!b->enable_sleep ? BODY_NO_SLEEP : 0) |
                        (!same_f32(b->sleep_threshold, 0.05f) ? BODY_SLEEP_THRESHOLD : 0) |
                        (b->user_data != NULL ? BODY_USER_DATA : 0) |
                        (memcmp(&b->mass_data, &last, sizeof last) != 0 ? BODY_MASS : 0) |
                        (b->motion_locks != 0 ? BODY_LOCKS : 0);
        ts_put_u8(w, (uint8_t)b->type);
        ts_put_u8(w, (uint8_t)mask);
        if (mask & BODY_LINEAR_DAMPING) ts_put_f32(w, b->linear_damping);
        if (mask & BODY_ANGULAR_DAMPING) ts_put_f32(w, b->angular_damping);
        if (mask & BODY_GRAVITY_SCALE) ts_put_f32(w, b->gravity_scale);
        if (mask & BODY_SLEEP_THRESHOLD) ts_put_f32(w, b->sleep_threshold);
        if (mask & BODY_USER_DATA) ts_put_u64(w, (uint64_t)(uintptr_t)b->user_data);
        if (mask & BODY_MASS) {
            put_mass(w, &b->mass_data);
            last = b->mass_data;
        }
        if (mask & BODY_LOCKS) ts_put_u8(w, (uint8_t)b->motion_locks);
        ts_put_svarint(w, b->first_shape);
    }
}

ts_load_status ts_bodies_load(ts_reader *r, ts_records *records)
{
    const ts_allocator *a = &records->allocator;
    ts_load_status status = ts_id_pool_load(r, &records->body_ids, a, TS_MAX_OBJECTS, "the body count");
    if (status != TS_LOAD_OK) {
        return status;
    }
    int32_t n = records->body_ids.next_index;
    if (!alloc_records(a, (void **)&records->bodies, &records->body_capacity, n, sizeof(ts_body))) {
        return TS_LOAD_NO_MEMORY;
    }
    ts_mass_data last = {0.0f, {0, 0, 0}, {0, 0, 0}, {0, 0, 0, 1}};
    for (int32_t i = 0; i < n && !r->failed; ++i) {
        ts_body *b = records->bodies + i;
        *b = (ts_body){.first_shape = -1, .last_shape = -1, .contact_head = -1, .island = -1, .island_prev = -1,
                       .island_next = -1, .joint_head = -1};
        uint64_t generation = ts_get_varint(r);
        b->generation = (uint32_t)generation;
        b->alive = ts_get_bool(r, "a body's alive flag");
        if (generation > UINT32_MAX) {
            ts_reader_fail(r, "body %d's generation is %llu", (int)i, (unsigned long long)generation);
        }
        if (!b->alive) {
            continue;
        }
        uint8_t type = ts_get_u8(r);
        uint8_t mask = ts_get_u8(r);
        if (type > TS_BODY_DYNAMIC || (r->version < 2 && (mask & BODY_LOCKS) != 0)) {
            ts_reader_fail(r, "body %d has type %u and settings mask %u", (int)i, (unsigned)type, (unsigned)mask);
            break;
        }
        b->type = (ts_body_type)type;
        b->gravity_scale = 1.0f;
        b->enable_sleep = (mask & BODY_NO_SLEEP) == 0;
        b->sleep_threshold = 0.05f;
        if (mask & BODY_LINEAR_DAMPING) b->linear_damping = ts_get_f32(r);
        if (mask & BODY_ANGULAR_DAMPING) b->angular_damping = ts_get_f32(r);
        if (mask & BODY_GRAVITY_SCALE) b->gravity_scale = ts_get_f32(r);
        if (mask & BODY_SLEEP_THRESHOLD) b->sleep_threshold = ts_get_f32(r);
        if (mask & BODY_USER_DATA) b->user_data = (void *)(uintptr_t)ts_get_u64(r);
        if (mask & BODY_MASS) {
            last = get_mass(r);
        }
        if (mask & BODY_LOCKS) {
            b->motion_locks = ts_get_u8(r);
            if (b->motion_locks == 0 || (b->motion_locks & ~TS_LOCK_ALL) != 0 || b->type == TS_BODY_STATIC) {
                ts_reader_fail(r, "body %d (type %d) has motion locks %u", (int)i, (int)b->type,
                               (unsigned)b->motion_locks);
            }
        }
        b->mass_data = last;
        b->first_shape = ts_get_index(r, -1, TS_MAX_OBJECTS, "a body's first shape");
        if (!(b->linear_damping >= 0.0f) || !(b->angular_damping >= 0.0f) || !ts_is_finite(b->gravity_scale) ||
            !(b->gravity_scale >= -TS_MAX_GRAVITY_SCALE && b->gravity_scale <= TS_MAX_GRAVITY_SCALE) ||
            !(b->sleep_threshold >= 0.0f) || !ts_is_finite(b->linear_damping) ||
            !ts_is_finite(b->angular_damping) || !ts_is_finite(b->sleep_threshold)) {
            ts_reader_fail(r, "body %d has a setting out of range", (int)i);
        }
        const ts_mass_data *m = &b->mass_data;
        if (!ts_is_finite(m->mass) || !ts_is_finite(m->center.x) || !ts_is_finite(m->center.y) ||
            !ts_is_finite(m->center.z) || !ts_is_finite(m->principal_inertia.x) ||
            !ts_is_finite(m->principal_inertia.y) || !ts_is_finite(m->principal_inertia.z) ||
            !finite_transform((ts_transform){m->center, m->principal_rotation})) {
            ts_reader_fail(r, "body %d has a non-finite mass", (int)i);
        }
    }
    if (r->failed) {
        return TS_LOAD_INVALID;
    }
    return check_pool(r, &records->body_ids, a, n > 0 ? &records->bodies[0].alive : NULL, sizeof(ts_body), "bodies");
}

/* ---- shapes ---- */

enum {
    SHAPE_LOCAL = 1,     /* local transform written (else identity) */
    SHAPE_SIM_LOCAL = 2, /* written (else what the body's mass data gives) */
    SHAPE_DENSITY = 4,
    SHAPE_FRICTION = 8,
    SHAPE_RESTITUTION = 16,
    SHAPE_FILTER = 32,
    SHAPE_USER_DATA = 64,
    SHAPE_TREE_MOVABLE = 128,
    SHAPE_ENLARGED = 256,
    SHAPE_IN_MOVE_BUFFER = 512,
    SHAPE_SENSOR = 1024, /* format 3 */
    SHAPE_ROLLING = 2048, /* format 3: rolling resistance written (else 0) */
};

/* The shape's frame in its body's simulation frame, as the mass update
 * places it (api/body_mass.c). */
static ts_transform predicted_sim_local(const ts_records *records, const ts_shape *s)
{
    const ts_mass_data *md = &records->bodies[s->body].mass_data;
    ts_transform sim_in_body = {md->center, md->principal_rotation};
    return ts_transform_inv_mul(sim_in_body, s->local);
}

static const ts_filter default_filter = {1u, ~(uint64_t)0};

static void put_geometry(ts_writer *w, const ts_shape *s)
{
    switch (s->type) {
    case TS_SHAPE_SPHERE: ts_put_f32(w, s->geometry.sphere.radius); break;
    case TS_SHAPE_BOX: put_vec3(w, s->geometry.box.half_extents); break;
    case TS_SHAPE_CAPSULE:
        ts_put_f32(w, s->geometry.capsule.half_height);
        ts_put_f32(w, s->geometry.capsule.radius);
        break;
    default: break; /* hulls, meshes, heightfields: their blocks in the GEOM section (collide/geometry_snapshot.c) */
    }
}

/* The geometry of one type, checked as the create calls check it. */
static void get_geometry(ts_reader *r, ts_shape *s, int32_t index)
{
    bool ok = true;
    switch (s->type) {
    case TS_SHAPE_SPHERE:
        s->geometry.sphere.radius = ts_get_f32(r);
        ok = s->geometry.sphere.radius > 0.0f && ts_is_finite(s->geometry.sphere.radius);
        break;
    case TS_SHAPE_BOX: {
        ts_vec3 h = get_vec3(r);
        s->geometry.box.half_extents = h;
        ok = h.x > 0.0f && h.y > 0.0f && h.z > 0.0f && ts_is_finite(h.x) && ts_is_finite(h.y) && ts_is_finite(h.z);
        break;
    }
    case TS_SHAPE_CAPSULE:
        s->geometry.capsule.half_height = ts_get_f32(r);
        s->geometry.capsule.radius = ts_get_f32(r);
        ok = s->geometry.capsule.half_height >= 0.0f && s->geometry.capsule.radius > 0.0f &&
             ts_is_finite(s->geometry.capsule.half_height) && ts_is_finite(s->geometry.capsule.radius);
        break;
    default: /* format 3's hulls, meshes and heightfields: built from the GEOM section */
        ok = r->version >= 3 && s->type < TS_SHAPE_TYPE_COUNT;
        s->geometry.hull.data = NULL;
        break;
    }
    if (!ok) {
        ts_reader_fail(r, "shape %d (type %d) has a size out of range", (int)index, (int)s->type);
    }
}

static void put_aabb(ts_writer *w, ts_aabb box)
{
    put_vec3(w, box.lower);
    put_vec3(w, box.upper);
}

void ts_shapes_save(ts_writer *w, const ts_records *records)
{
    ts_id_pool_save(w, &records->shape_ids);
    for (int32_t i = 0; i < records->shape_ids.next_index; ++i) {
        const ts_shape *s = records->shapes + i;
        ts_put_varint(w, s->generation);
        ts_put_u8(w, s->alive ? 1 : 0);
        if (!s->alive) {
            continue;
        }
        uint32_t mask = (!same_transform(s->local, identity) ? SHAPE_LOCAL : 0) |
                        (!same_transform(s->sim_local, predicted_sim_local(records, s)) ? SHAPE_SIM_LOCAL : 0) |
                        (!same_f32(s->density, 1.0f) ? SHAPE_DENSITY : 0) |
                        (!same_f32(s->friction, 0.6f) ? SHAPE_FRICTION : 0) |
                        (!same_f32(s->restitution, 0.0f) ? SHAPE_RESTITUTION : 0) |
                        (memcmp(&s->filter, &default_filter, sizeof default_filter) != 0 ? SHAPE_FILTER : 0) |
                        (s->user_data != NULL ? SHAPE_USER_DATA : 0) |
                        (s->tree == 1 ? SHAPE_TREE_MOVABLE : 0) | (s->enlarged ? SHAPE_ENLARGED : 0) |
                        (s->in_move_buffer ? SHAPE_IN_MOVE_BUFFER : 0) | (s->is_sensor ? SHAPE_SENSOR : 0) |
                        (!same_f32(s->rolling_resistance, 0.0f) ? SHAPE_ROLLING : 0);
        ts_put_u8(w, (uint8_t)s->type);
        ts_put_varint(w, mask);
        ts_put_varint(w, (uint64_t)s->body);
        ts_put_svarint(w, s->next);
        ts_put_svarint(w, s->proxy);
        put_geometry(w, s);
        if (mask & SHAPE_LOCAL) put_transform(w, s->local);
        if (mask & SHAPE_SIM_LOCAL) put_transform(w, s->sim_local);
        if (mask & SHAPE_DENSITY) ts_put_f32(w, s->density);
        if (mask & SHAPE_FRICTION) ts_put_f32(w, s->friction);
        if (mask & SHAPE_RESTITUTION) ts_put_f32(w, s->restitution);
        if (mask & SHAPE_FILTER) {
            ts_put_u64(w, s->filter.category_bits);
            ts_put_u64(w, s->filter.mask_bits);
        }
        if (mask & SHAPE_USER_DATA) ts_put_u64(w, (uint64_t)(uintptr_t)s->user_data);
        if (mask & SHAPE_ROLLING) ts_put_f32(w, s->rolling_resistance);
        put_aabb(w, s->fat_aabb);
    }
    ts_put_u8(w, records->rolling ? 1 : 0); /* format 3: some shape had rolling resistance (never cleared) */
}

static bool finite_aabb(ts_aabb b)
{
    return ts_is_finite(b.lower.x) && ts_is_finite(b.lower.y) && ts_is_finite(b.lower.z) &&
           ts_is_finite(b.upper.x) && ts_is_finite(b.upper.y) && ts_is_finite(b.upper.z) && b.lower.x <= b.upper.x &&
           b.lower.y <= b.upper.y && b.lower.z <= b.upper.z;
}

/* Every alive body's shape list: from first_shape through next, each shape
 * of that body once, no shape in two lists; sets prev, last and count. */
static bool link_shape_lists(ts_reader *r, ts_records *records)
{
    int32_t listed = 0, alive = 0;
    for (int32_t i = 0; i < records->shape_ids.next_index; ++i) {
        alive += records->shapes[i].alive ? 1 : 0;
        records->shapes[i].prev = -2; /* not reached yet */
    }
    for (int32_t b = 0; b < records->body_ids.next_index; ++b) {
        ts_body *body = records->bodies + b;
        if (!body->alive) {
            continue;
        }
        int32_t prev = -1;
        for (int32_t sh = body->first_shape; sh != -1; sh = records->shapes[sh].next) {
            if (sh < 0 || sh >= records->shape_ids.next_index || !records->shapes[sh].alive ||
                records->shapes[sh].body != b || records->shapes[sh].prev != -2) {
                return ts_reader_fail(r, "body %d's shape list is broken at shape %d", (int)b, (int)sh);
            }
            records->shapes[sh].prev = prev;
            prev = sh;
            body->shape_count += 1;
            listed += 1;
        }
        body->last_shape = prev;
    }
    return listed == alive || ts_reader_fail(r, "%d shapes are in no body's list", (int)(alive - listed));
}

ts_load_status ts_shapes_load(ts_reader *r, ts_records *records)
{
    const ts_allocator *a = &records->allocator;
    ts_load_status status = ts_id_pool_load(r, &records->shape_ids, a, TS_MAX_OBJECTS, "the shape count");
    if (status != TS_LOAD_OK) {
        return status;
    }
    int32_t n = records->shape_ids.next_index;
    if (!alloc_records(a, (void **)&records->shapes, &records->shape_capacity, n, sizeof(ts_shape))) {
        return TS_LOAD_NO_MEMORY;
    }
    for (int32_t i = 0; i < n && !r->failed; ++i) {
        ts_shape *s = records->shapes + i;
        *s = (ts_shape){.body = -1, .prev = -1, .next = -1, .proxy = -1};
        uint64_t generation = ts_get_varint(r);
        s->generation = (uint32_t)generation;
        s->alive = ts_get_bool(r, "a shape's alive flag");
        if (generation > UINT32_MAX) {
            ts_reader_fail(r, "shape %d's generation is %llu", (int)i, (unsigned long long)generation);
        }
        if (!s->alive) {
            continue;
        }
        uint8_t type = ts_get_u8(r);
        uint64_t mask = ts_get_varint(r);
        if (type >= TS_SHAPE_TYPE_COUNT || mask >= (r->version >= 3 ? 4096u : 1024u)) {
            ts_reader_fail(r, "shape %d has type %u and mask %llu", (int)i, (unsigned)type, (unsigned long long)mask);
            break;
        }
        s->type = (ts_shape_type)type;
        s->body = ts_get_index(r, 0, records->body_ids.next_index, "a shape's body");
        s->next = ts_get_index(r, -1, n, "a shape's next");
        s->proxy = ts_get_index(r, -1, INT32_MAX, "a shape's proxy");
        if (r->failed || !records->bodies[s->body].alive) {
            ts_reader_fail(r, "shape %d's body is not alive", (int)i);
            break;
        }
        get_geometry(r, s, i);
        s->local = (mask & SHAPE_LOCAL) ? get_transform(r) : identity;
        s->sim_local = (mask & SHAPE_SIM_LOCAL) ? get_transform(r) : predicted_sim_local(records, s);
        s->density = (mask & SHAPE_DENSITY) ? ts_get_f32(r) : 1.0f;
        s->friction = (mask & SHAPE_FRICTION) ? ts_get_f32(r) : 0.6f;
        s->restitution = (mask & SHAPE_RESTITUTION) ? ts_get_f32(r) : 0.0f;
        s->filter = default_filter;
        if (mask & SHAPE_FILTER) {
            s->filter.category_bits = ts_get_u64(r);
            s->filter.mask_bits = ts_get_u64(r);
        }
        if (mask & SHAPE_USER_DATA) s->user_data = (void *)(uintptr_t)ts_get_u64(r);
        s->rolling_resistance = (mask & SHAPE_ROLLING) ? ts_get_f32(r) : 0.0f;
        if (!r->failed && !(s->rolling_resistance >= 0.0f && s->rolling_resistance <= TS_MAX_ROLLING_RESISTANCE)) {
            ts_reader_fail(r, "shape %d's rolling resistance is %g (must be in [0, TS_MAX_ROLLING_RESISTANCE])",
                           (int)i, (double)s->rolling_resistance);
        }
        s->tree = (mask & SHAPE_TREE_MOVABLE) ? 1 : 0;
        s->enlarged = (mask & SHAPE_ENLARGED) != 0;
        s->in_move_buffer = (mask & SHAPE_IN_MOVE_BUFFER) != 0;
        s->is_sensor = (mask & SHAPE_SENSOR) != 0;
        if (!r->failed && (s->type == TS_SHAPE_MESH || s->type == TS_SHAPE_HEIGHTFIELD) &&
            records->bodies[s->body].type == TS_BODY_DYNAMIC) {
            ts_reader_fail(r, "shape %d is a mesh or heightfield on dynamic body %d (the API refuses it)", (int)i,
                           (int)s->body);
        }
        s->fat_aabb.lower = get_vec3(r);
        s->fat_aabb.upper = get_vec3(r);
        if (!r->failed && (!finite_transform(s->local) || !finite_transform(s->sim_local) ||
                           !finite_aabb(s->fat_aabb) || !(s->density > 0.0f) || !ts_is_finite(s->density) ||
                           !(s->friction >= 0.0f) || !ts_is_finite(s->friction) || !(s->restitution >= 0.0f) ||
                           !(s->restitution <= 1.0f))) {
            ts_reader_fail(r, "shape %d has a value out of range", (int)i);
        }
        /* its frame as the API takes it (within TS_MAX_OFFSET, a unit
         * rotation); in its body's simulation frame, which the mass centre
         * (among the shapes' own) moves by less than 2 TS_MAX_OFFSET more */
        if (!r->failed && (!ts_within_reach(s->local.p, TS_MAX_OFFSET) || !ts_unit_rotation(s->local.q) ||
                           !ts_within_reach(s->sim_local.p, 4.0f * TS_MAX_OFFSET) ||
                           !ts_unit_rotation(s->sim_local.q))) {
            ts_reader_fail(r, "shape %d's frame leaves TS_MAX_OFFSET or its rotation is not unit", (int)i);
        }
    }
    records->rolling = r->version >= 3 && ts_get_bool(r, "the rolling resistance flag");
    for (int32_t i = 0; i < n && !r->failed; ++i) {
        if (records->shapes[i].alive && records->shapes[i].rolling_resistance > 0.0f && !records->rolling) {
            ts_reader_fail(r, "shape %d has rolling resistance but the world's flag is off", (int)i);
        }
    }
    if (r->failed) {
        return TS_LOAD_INVALID;
    }
    status = check_pool(r, &records->shape_ids, a, n > 0 ? &records->shapes[0].alive : NULL, sizeof(ts_shape), "shapes");
    if (status != TS_LOAD_OK) {
        return status;
    }
    return link_shape_lists(r, records) ? TS_LOAD_OK : TS_LOAD_INVALID;
}

/* ---- joints ---- */

static void put_axis(ts_writer *w, const ts_joint_axis_settings *s)
{
    ts_put_u8(w, (uint8_t)((s->enable_limit ? 1 : 0) | (s->enable_motor ? 2 : 0) | (s->enable_spring ? 4 : 0)));
    float values[7] = {s->lower, s->upper, s->motor_speed, s->max_motor_force, s->spring_hertz,
                       s->spring_damping_ratio, s->target};
    ts_put_f32_array(w, values, 7);
}

static void get_axis(ts_reader *r, ts_joint_axis_settings *s)
{
    uint8_t flags = ts_get_u8(r);
    if (flags >= 8) {
        ts_reader_fail(r, "a joint's axis flags are %u", (unsigned)flags);
    }
    float v[7];
    ts_get_f32_array(r, v, 7);
    *s = (ts_joint_axis_settings){(flags & 1) != 0, v[0], v[1], (flags & 2) != 0, v[2], v[3], (flags & 4) != 0,
                                  v[4], v[5], v[6]};
    for (int k = 0; k < 7; ++k) {
        if (!ts_is_finite(v[k])) {
            ts_reader_fail(r, "a joint's axis setting is not finite");
        }
    }
    if (!(s->lower <= s->upper) || !(s->max_motor_force >= 0.0f) || !(s->spring_hertz >= 0.0f) ||
        !(s->spring_damping_ratio >= 0.0f)) {
        ts_reader_fail(r, "a joint's axis settings are out of range (as the API refuses them)");
    }
}

static int32_t *joint_head(ts_records *records, int32_t body) { return &records->bodies[body].joint_head; }
static int32_t *joint_count(ts_records *records, int32_t body) { return &records->bodies[body].joint_count; }
static int32_t *joint_edge(ts_records *records, int32_t key) { return &records->joints[key >> 1].edges[key & 1].body; }
static bool joint_alive(const ts_records *records, int32_t index) { return records->joints[index].alive; }

/* Side 1 of a one-body custom constraint is in no list (api/joint.c). */
static bool joint_listed(const ts_records *records, int32_t key)
{
    const ts_joint *j = records->joints + (key >> 1);
    return (key & 1) == 0 || j->edges[1].body != j->edges[0].body;
}

static ts_edge_lists joint_lists(const ts_records *records)
{
    return (ts_edge_lists){joint_head, joint_count, joint_edge, joint_alive, records->joint_ids.next_index,
                           joint_listed};
}

void ts_joints_save(ts_writer *w, const ts_records *records)
{
    ts_id_pool_save(w, &records->joint_ids);
    for (int32_t i = 0; i < records->joint_ids.next_index; ++i) {
        const ts_joint *j = records->joints + i;
        ts_put_varint(w, j->generation);
        ts_put_u8(w, j->alive ? 1 : 0);
        if (!j->alive) {
            continue;
        }
        ts_put_u8(w, (uint8_t)j->type);
        ts_put_u8(w, j->collide_connected ? 1 : 0);
        ts_put_varint(w, (uint64_t)j->edges[0].body);
        ts_put_varint(w, (uint64_t)j->edges[1].body);
        put_transform(w, j->local_frame[0]);
        put_transform(w, j->local_frame[1]);
        if (j->type == TS_JOINT_CUSTOM) { /* format 3: all but the callback, whose context goes as a number */
            ts_put_u8(w, (uint8_t)j->custom.row_count);
            ts_put_u8(w, (uint8_t)((j->custom.dropped ? 1 : 0) | (j->custom.reported ? 2 : 0)));
            ts_put_u64(w, (uint64_t)(uintptr_t)j->custom.context);
        } else {
            put_axis(w, &j->axis);
        }
        ts_put_f32(w, j->length);
        ts_put_u64(w, (uint64_t)(uintptr_t)j->user_data);
        put_vec3(w, j->impulses.linear);
        put_vec3(w, j->impulses.angular);
        float rows[4] = {j->impulses.lower, j->impulses.upper, j->impulses.motor, j->impulses.spring};
        ts_put_f32_array(w, rows, 4);
        put_vec3(w, j->reaction_force);
        put_vec3(w, j->reaction_torque);
    }
    ts_edge_lists lists = joint_lists(records);
    ts_edge_lists_save(w, records, &lists);
}

ts_load_status ts_joints_load(ts_reader *r, ts_records *records)
{
    const ts_allocator *a = &records->allocator;
    ts_load_status status = ts_id_pool_load(r, &records->joint_ids, a, TS_MAX_OBJECTS, "the joint count");
    if (status != TS_LOAD_OK) {
        return status;
    }
    int32_t n = records->joint_ids.next_index, bodies = records->body_ids.next_index;
    if (!alloc_records(a, (void **)&records->joints, &records->joint_capacity, n, sizeof(ts_joint))) {
        return TS_LOAD_NO_MEMORY;
    }
    for (int32_t i = 0; i < n && !r->failed; ++i) {
        ts_joint *j = records->joints + i;
        *j = (ts_joint){.color = -1, .color_index = -1, .graph_body = {-1, -1}};
        uint64_t generation = ts_get_varint(r);
        j->generation = (uint32_t)generation;
        j->alive = ts_get_bool(r, "a joint's alive flag");
        if (generation > UINT32_MAX) {
            ts_reader_fail(r, "joint %d's generation is %llu", (int)i, (unsigned long long)generation);
        }
        if (!j->alive) {
            continue;
        }
        uint8_t type = ts_get_u8(r);
        if (type >= TS_JOINT_TYPE_COUNT || (type == TS_JOINT_CUSTOM && r->version < 3)) {
            ts_reader_fail(r, "joint %d has type %u", (int)i, (unsigned)type);
            break;
        }
        j->type = (ts_joint_type)type;
        j->collide_connected = ts_get_bool(r, "a joint's collide_connected");
        for (int side = 0; side < 2; ++side) {
            j->edges[side] = (ts_joint_edge){ts_get_index(r, 0, bodies, "a joint's body"), -1, -1};
            if (!r->failed && !records->bodies[j->edges[side].body].alive) {
                ts_reader_fail(r, "joint %d's body %d is not alive", (int)i, (int)j->edges[side].body);
            }
        }
        /* a custom constraint on one body takes it twice, its side 1 in no list */
        if (!r->failed && j->edges[0].body == j->edges[1].body && j->type != TS_JOINT_CUSTOM) {
            ts_reader_fail(r, "joint %d joins body %d to itself", (int)i, (int)j->edges[0].body);
        }
        j->local_frame[0] = get_transform(r);
        j->local_frame[1] = get_transform(r);
        if (j->type == TS_JOINT_CUSTOM) {
            uint8_t rows = ts_get_u8(r), flags = ts_get_u8(r);
            uint64_t context = ts_get_u64(r);
            if (rows < 1 || rows > TS_CONSTRAINT_MAX_ROWS || flags > 3) {
                ts_reader_fail(r, "custom constraint %d has %u rows and flags %u", (int)i, (unsigned)rows,
                               (unsigned)flags);
            }
            /* the callback is the program's: ts_world_load_with's resolver gives it back (api/snapshot.c) */
            j->custom = (ts_joint_custom){NULL, (void *)(uintptr_t)context, rows, (flags & 1) != 0, (flags & 2) != 0};
        } else {
            get_axis(r, &j->axis);
        }
        j->length = ts_get_f32(r);
        j->user_data = (void *)(uintptr_t)ts_get_u64(r);
        j->impulses.linear = get_vec3(r);
        j->impulses.angular = get_vec3(r);
        float rows[4];
        ts_get_f32_array(r, rows, 4);
        j->impulses.lower = rows[0];
        j->impulses.upper = rows[1];
        j->impulses.motor = rows[2];
        j->impulses.spring = rows[3];
        j->reaction_force = get_vec3(r);
        j->reaction_torque = get_vec3(r);
        if (!r->failed && (!finite_transform(j->local_frame[0]) || !finite_transform(j->local_frame[1]) ||
                           !ts_is_finite(j->length))) {
            ts_reader_fail(r, "joint %d has a non-finite frame or length", (int)i);
        }
        if (!r->failed) {
            /* the API's ranges; kept impulses finite, within TS_MAX_FORCE (a NaN
             * warm start made NaN bodies: the fuzzer's find) and what the bodies can take */
            ts_check_loaded_joint(r, records, j, i);
        }
    }
    if (r->failed) {
        return TS_LOAD_INVALID;
    }
    status = check_pool(r, &records->joint_ids, a, n > 0 ? &records->joints[0].alive : NULL, sizeof(ts_joint),
                        "joints");
    if (status != TS_LOAD_OK) {
        return status;
    }
    ts_edge_lists lists = joint_lists(records);
    return ts_edge_lists_load(r, records, &lists);
}

/* ---- the bodies' edge lists ---- */

void ts_edge_lists_save(ts_writer *w, const ts_records *records, const ts_edge_lists *lists)
{
    ts_records *m = (ts_records *)records; /* the accessors give writable pointers; nothing is written */
    for (int32_t b = 0; b < records->body_ids.next_index; ++b) {
        if (!records->bodies[b].alive) {
            continue;
        }
        ts_put_varint(w, (uint64_t)*lists->count(m, b));
        for (int32_t key = *lists->head(m, b); key != -1; key = lists->edge(m, key)[2]) {
            ts_put_varint(w, (uint64_t)key);
        }
    }
}

ts_load_status ts_edge_lists_load(ts_reader *r, ts_records *records, const ts_edge_lists *lists)
{
    int32_t keys = lists->objects * 2, listed = 0, alive = 0;
    for (int32_t i = 0; i < lists->objects; ++i) {
        for (int side = 0; side < 2 && lists->alive(records, i); ++side) {
            int32_t key = i << 1 | side;
            if (lists->listed == NULL || lists->listed(records, key)) {
                alive += 1;
                lists->edge(records, key)[1] = -2; /* prev -2: not listed yet */
            }
        }
    }
    for (int32_t b = 0; b < records->body_ids.next_index && !r->failed; ++b) {
        if (!records->bodies[b].alive) {
            continue;
        }
        int32_t count = ts_get_count(r, alive - listed, 1, "a body's list length");
        int32_t prev = -1;
        *lists->head(records, b) = -1;
        *lists->count(records, b) = count < 0 ? 0 : count;
        for (int32_t k = 0; k < count && !r->failed; ++k) {
            int32_t key = ts_get_index(r, 0, keys, "a list key");
            if (r->failed) {
                break;
            }
            int32_t *edge = lists->edge(records, key);
            if (!lists->alive(records, key >> 1) || edge[0] != b || edge[1] != -2) {
                ts_reader_fail(r, "body %d's list names key %d, not one of its own or twice", (int)b, (int)key);
                break;
            }
            edge[1] = prev;
            edge[2] = -1;
            if (prev == -1) {
                *lists->head(records, b) = key;
            } else {
                lists->edge(records, prev)[2] = key;
            }
            prev = key;
            listed += 1;
        }
    }
    if (!r->failed && listed != alive) {
        ts_reader_fail(r, "%d edges are in no body's list", (int)(alive - listed));
    }
    return r->failed ? TS_LOAD_INVALID : TS_LOAD_OK;
}
