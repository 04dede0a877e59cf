/* Bodies: the public functions that make, destroy, look up, wake and put to
 * sleep a body, change its type, and list its shapes. Its pose, velocity and
 * forces are in body_motion.c, its mass and the settings that go with it in
 * body_mass.c. */
#include "api/body_mass.h"

#include "api/body_access.h"
#include "api/contacts.h"
#include "api/joint.h"
#include "api/lookup.h"
#include "api/motion_locks.h"
#include "api/shape.h"
#include "base/alloc.h"
#include "collide/broadphase.h"
#include "islands/sleep.h"
#include "tessera/tessera.h"

/* ---- create / destroy ---- */

static ts_result check_body_def(const ts_world *world, const ts_body_def *def, ts_quat *rotation, const char *fn)
{
    TS_CHECK_NOT_NULL(def, fn);
    if (def->internal_value != TS_DEF_COOKIE) {
        return ts_fail(TS_ERROR_UNINITIALIZED_DEF, fn, "def was not initialised with ts_default_body_def()");
    }
    if (def->type != TS_BODY_STATIC && def->type != TS_BODY_KINEMATIC && def->type != TS_BODY_DYNAMIC) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, fn, "def->type is %d (not a ts_body_type)", (int)def->type);
    }
    TS_TRY(ts_check_components(def->position, TS_MAX_EXTENT, "TS_MAX_EXTENT", fn, "def->position"));
    TS_TRY(ts_check_rotation(def->rotation, rotation, fn, "def->rotation"));
    TS_TRY(ts_check_finite_vec3(def->linear_velocity, fn, "def->linear_velocity"));
    TS_TRY(ts_check_finite_vec3(def->angular_velocity, fn, "def->angular_velocity"));
    TS_TRY(ts_check_non_negative(def->linear_damping, fn, "def->linear_damping"));
    TS_TRY(ts_check_non_negative(def->angular_damping, fn, "def->angular_damping"));
    TS_TRY(ts_check_non_negative(def->sleep_threshold, fn, "def->sleep_threshold"));
    TS_TRY(ts_check_magnitude(def->gravity_scale, TS_MAX_GRAVITY_SCALE, "TS_MAX_GRAVITY_SCALE", fn,
                              "def->gravity_scale"));
    if (def->type == TS_BODY_STATIC && (!ts_vec3_is_zero(def->linear_velocity) || !ts_vec3_is_zero(def->angular_velocity))) {
        return ts_fail(TS_ERROR_INVALID_OPERATION, fn, "a static body cannot have a velocity");
    }
    TS_TRY(check_linear_speed(world, def->linear_velocity, fn, "def->linear_velocity"));
    TS_TRY(check_angular_speed(def->angular_velocity, fn, "def->angular_velocity"));
    return ts_check_motion_locks(def->motion_locks, def->type, fn, "def->motion_locks");
}

static bool reserve_body(ts_world *world)
{
    ts_records *r = &world->records;
    int32_t index = ts_id_pool_peek(&r->body_ids);
    if (index >= r->body_capacity) {
        int32_t capacity = r->body_capacity < 64 ? 64 : 2 * r->body_capacity;
        ts_body *grown = ts_realloc(&r->allocator, r->bodies, (size_t)r->body_capacity * sizeof(ts_body),
                                    (size_t)capacity * sizeof(ts_body));
        if (grown == NULL) {
            return false;
        }
        r->bodies = grown;
        r->body_capacity = capacity;
    }
    return ts_id_pool_reserve(&r->body_ids, &r->allocator, 0) &&
           ts_body_store_reserve(&r->store, &r->allocator, r->store.table.count + 1, index + 1) &&
           ts_island_reserve(&world->islands, &r->allocator, r->body_capacity);
}

ts_body_id ts_create_body(ts_world_id world_id, const ts_body_def *def)
{
    ts_world *world = ts_world_lookup(world_id, __func__);
    ts_quat rotation;
    if (world == NULL || check_body_def(world, def, &rotation, __func__) != TS_OK) {
        return TS_NULL_BODY_ID;
    }
    if (ts_id_pool_peek(&world->records.body_ids) >= TS_MAX_OBJECTS) {
        ts_fail(TS_ERROR_CAPACITY, __func__, "the world holds %d bodies already (TS_MAX_OBJECTS)", TS_MAX_OBJECTS);
        return TS_NULL_BODY_ID;
    }
    if (!reserve_body(world)) {
        ts_fail(TS_ERROR_OUT_OF_MEMORY, __func__, "the allocator returned NULL");
        return TS_NULL_BODY_ID;
    }
    bool fresh = world->records.body_ids.free_count == 0; /* a never used index has no generation yet */
    int32_t index = ts_id_pool_take(&world->records.body_ids);
    ts_body *b = world->records.bodies + index;
    uint32_t generation = fresh ? 0u : b->generation;
    *b = (ts_body){
        .generation = generation,
        .alive = true,
        .type = def->type,
        .first_shape = -1,
        .last_shape = -1,
        .mass_data = {0.0f, {0, 0, 0}, {0, 0, 0}, TS_QUAT_IDENTITY},
        .linear_damping = def->linear_damping,
        .angular_damping = def->angular_damping,
        .gravity_scale = def->gravity_scale,
        .enable_sleep = def->enable_sleep,
        .sleep_threshold = def->sleep_threshold,
        .user_data = def->user_data,
        .contact_head = -1,
        .island = -1,
        .island_prev = -1,
        .island_next = -1,
        .joint_head = -1,
        .motion_locks = def->motion_locks,
    };
    ts_body_range range = def->type == TS_BODY_STATIC ? TS_RANGE_STATIC : TS_RANGE_AWAKE;
    int32_t i = ts_body_store_add(&world->records.store, index, range);
    ts_body_store *s = &world->records.store;
    store_vec3(s->vx, s->vy, s->vz, i, def->linear_velocity);
    store_vec3(s->wx, s->wy, s->wz, i, def->angular_velocity);
    s->sleep_threshold[i] = def->enable_sleep ? def->sleep_threshold : -1.0f;
    ts_body_set_origin_transform(world, index, (ts_transform){def->position, rotation});
    ts_body_update_mass(world, index);
    ts_body_apply_motion_locks(world, index);
    if (def->type == TS_BODY_DYNAMIC) {
        ts_island_add_body(&world->records, &world->islands, index);
    }
    return ts_body_id_of(&world->records, index);
}

ts_result ts_destroy_body(ts_body_id id)
{
    ts_world *world;
    ts_body *b = ts_body_lookup(id, &world, __func__);
    if (b == NULL) {
        return TS_ERROR_STALE_ID;
    }
    int32_t index = (int32_t)(b - world->records.bodies);
    /* What it held up or touched may move now. */
    TS_TRY(ts_wake_body(&world->records, &world->islands, &world->graph, index, __func__));
    ts_body_destroy_contacts(world, index, -1);
    ts_body_destroy_joints(world, index);
    ts_island_remove_body(&world->records, &world->islands, index);
    while (b->first_shape != -1) {
        ts_shape_release(world, b->first_shape);
    }
    ts_body_store_remove(&world->records.store, body_slot(world, b));
    b->alive = false;
    b->generation += 1;
    ts_id_pool_release(&world->records.body_ids, index);
    return TS_OK;
}

bool ts_body_is_valid(ts_body_id id)
{
    ts_world *world = ts_world_lookup_slot(id.world0, id.world_generation, NULL);
    if (world == NULL) {
        return false;
    }
    int32_t index = id.index1 > 0 ? id.index1 - 1 : -1; /* no overflow on forged ids */
    return index >= 0 && index < world->records.body_ids.next_index && world->records.bodies[index].alive &&
           world->records.bodies[index].generation == id.generation;
}

ts_world_id ts_body_get_world(ts_body_id id)
{
    ts_world *world;
    return ts_body_lookup(id, &world, __func__) == NULL ? TS_NULL_WORLD_ID : ts_world_id_of(world);
}

/* ---- sleeping ---- */

ts_result ts_body_is_awake(ts_body_id id, bool *awake)
{
    TS_CHECK_NOT_NULL(awake, __func__);
    BODY_LOOKUP(id, world, b);
    *awake = b->island < 0 || ts_island_is_awake(&world->islands, b->island);
    return TS_OK;
}

ts_result ts_body_set_awake(ts_body_id id, bool awake)
{
    BODY_LOOKUP(id, world, b);
    int32_t index = (int32_t)(b - world->records.bodies);
    if (awake) {
        return ts_wake_body(&world->records, &world->islands, &world->graph, index, __func__);
    }
    if (!world->enable_sleep || b->island < 0 || !ts_island_is_awake(&world->islands, b->island)) {
        return TS_OK;
    }
    /* An island that may be in pieces is split first; the body's part sleeps. */
    if (world->islands.islands[b->island].constraint_removed > 0) {
        ts_island_split(&world->records, &world->islands, b->island);
    }
    ts_island_sleep(&world->records, &world->islands, &world->graph, b->island);
    return TS_OK;
}

ts_result ts_body_enable_sleep(ts_body_id id, bool enable)
{
    BODY_LOOKUP(id, world, b);
    int32_t index = (int32_t)(b - world->records.bodies);
    if (!enable) {
        TS_TRY(ts_wake_body(&world->records, &world->islands, &world->graph, index, __func__));
    }
    b->enable_sleep = enable;
    ts_body_store *s = &world->records.store;
    int32_t i = body_slot(world, b);
    s->sleep_threshold[i] = enable ? b->sleep_threshold : -1.0f;
    return TS_OK;
}

ts_result ts_body_get_island(ts_body_id id, int *island)
{
    TS_CHECK_NOT_NULL(island, __func__);
    BODY_LOOKUP(id, world, b);
    *island = b->island;
    return TS_OK;
}

/* ---- type ---- */

ts_result ts_body_get_type(ts_body_id id, ts_body_type *type)
{
    TS_CHECK_NOT_NULL(type, __func__);
    BODY_LOOKUP(id, world, b);
    *type = b->type;
    return TS_OK;
}

ts_result ts_body_set_type(ts_body_id id, ts_body_type type)
{
    if (type != TS_BODY_STATIC && type != TS_BODY_KINEMATIC && type != TS_BODY_DYNAMIC) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, __func__, "type is %d (not a ts_body_type)", (int)type);
    }
    BODY_LOOKUP(id, world, b);
    if (b->faulted) {
        return ts_fail(TS_ERROR_INVALID_OPERATION, __func__,
                       "the body was taken out after its state overflowed (ts_world_get_body_faults)");
    }
    if (b->type == type) {
        return TS_OK;
    }
    ts_body_store *s = &world->records.store;
    int32_t index = (int32_t)(b - world->records.bodies);
    for (int32_t sh = b->first_shape; sh != -1 && type == TS_BODY_DYNAMIC; sh = world->records.shapes[sh].next) {
        ts_shape_type st = world->records.shapes[sh].type;
        if (st == TS_SHAPE_MESH || st == TS_SHAPE_HEIGHTFIELD) {
            return ts_fail(TS_ERROR_INVALID_OPERATION, __func__,
                           "the body has a mesh or heightfield shape, which cannot move as a dynamic body");
        }
    }
    ts_mass_data md;
    if (!ts_body_compute_mass(world, index, type, &md)) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, __func__,
                       "as a dynamic body its shapes give unusable mass properties (mass %g, inertia %g %g %g)",
                       (double)md.mass, (double)md.principal_inertia.x, (double)md.principal_inertia.y,
                       (double)md.principal_inertia.z);
    }
    TS_TRY(ts_wake_body(&world->records, &world->islands, &world->graph, index, __func__));
    ts_island_remove_body(&world->records, &world->islands, index);
    int32_t i = ts_body_store_move(s, body_slot(world, b), type == TS_BODY_STATIC ? TS_RANGE_STATIC : TS_RANGE_AWAKE);
    if (type == TS_BODY_STATIC) {
        store_vec3(s->vx, s->vy, s->vz, i, ts_v3(0, 0, 0));
        store_vec3(s->wx, s->wy, s->wz, i, ts_v3(0, 0, 0));
    }
    store_vec3(s->fx, s->fy, s->fz, i, ts_v3(0, 0, 0));
    store_vec3(s->tx, s->ty, s->tz, i, ts_v3(0, 0, 0));
    b->type = type;
    ts_body_update_mass(world, index);
    ts_body_apply_motion_locks(world, index); /* a static body has none in effect */
    /* The shapes change trees and the pairs change rules: start over. */
    ts_body_destroy_contacts(world, index, -1);
    if (type == TS_BODY_DYNAMIC) {
        ts_island_add_body(&world->records, &world->islands, index);
    }
    TS_TRY(ts_body_relink_joints(world, index, __func__));
    for (int32_t sh = b->first_shape; sh != -1; sh = world->records.shapes[sh].next) {
        ts_shape_destroy_proxy(&world->records, &world->collision.broadphase, sh);
        TS_TRY(ts_shape_create_proxy(&world->records, &world->collision.broadphase, sh, __func__));
    }
    return TS_OK;
}

ts_result ts_body_set_user_data(ts_body_id id, void *user_data)
{
    BODY_LOOKUP(id, world, b);
    b->user_data = user_data;
    return TS_OK;
}

void *ts_body_get_user_data(ts_body_id id)
{
    ts_world *world;
    ts_body *b = ts_body_lookup(id, &world, __func__);
    return b == NULL ? NULL : b->user_data;
}

ts_result ts_body_get_shapes(ts_body_id id, ts_shape_id *shapes, int capacity, int *count)
{
    TS_CHECK_NOT_NULL(count, __func__);
    TS_TRY(ts_check_output_array(shapes, capacity, __func__, "shapes"));
    BODY_LOOKUP(id, world, b);
    int n = 0;
    for (int32_t sh = b->first_shape; sh != -1; sh = world->records.shapes[sh].next, ++n) {
        if (n < capacity) {
            shapes[n] = ts_shape_id_of(&world->records, sh);
        }
    }
    *count = n;
    return TS_OK;
}
