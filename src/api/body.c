/* Bodies: creation, destruction, pose and velocity access, forces, and the
 * mass update. The simulation state lives in the SoA store (soa/body_store.h);
 * this file translates between it and what the API shows. */
#include "api/body.h"

#include "api/shape.h"
#include "base/alloc.h"
#include "base/validate.h"
#include "collide/broadphase.h"
#include "collide/contact.h"
#include "collide/mass.h"
#include "islands/sleep.h"
#include "tessera/tessera.h"

ts_body *ts_body_lookup(ts_body_id id, ts_world **out_world, const char *function)
{
    ts_world *world = ts_world_lookup_slot(id.world0, id.world_generation, function);
    if (world == NULL) {
        return NULL;
    }
    int32_t index = id.index1 > 0 ? id.index1 - 1 : -1; /* no overflow on forged ids */
    if (index < 0 || index >= world->body_ids.next_index) {
        ts_fail(TS_ERROR_STALE_ID, function, "body id index %d was never handed out by this world", (int)id.index1);
        return NULL;
    }
    ts_body *body = world->bodies + index;
    if (!body->alive || body->generation != id.generation) {
        ts_fail(TS_ERROR_STALE_ID, function, "body id (index %d, generation %u) is stale: the body was destroyed",
                (int)id.index1, (unsigned)id.generation);
        return NULL;
    }
    *out_world = world;
    return body;
}

static int32_t slot_of(const ts_world *world, const ts_body *body)
{
    return world->store.table.slot_of_id[body - world->bodies];
}

static ts_vec3 load_vec3(const float *x, const float *y, const float *z, int32_t i) { return ts_v3(x[i], y[i], z[i]); }

static void store_vec3(float *x, float *y, float *z, int32_t i, ts_vec3 v)
{
    x[i] = v.x;
    y[i] = v.y;
    z[i] = v.z;
}

static ts_quat load_rotation(const ts_body_store *s, int32_t i) { return (ts_quat){s->qx[i], s->qy[i], s->qz[i], s->qw[i]}; }

/* origin rotation = simulation rotation * conj(principal rotation);
 * origin = centre - origin rotation * local centre. */
ts_transform ts_body_origin_transform(const ts_world *world, int32_t body)
{
    const ts_body_store *s = &world->store;
    const ts_mass_data *md = &world->bodies[body].mass_data;
    int32_t i = s->table.slot_of_id[body];
    ts_quat q = ts_quat_mul(load_rotation(s, i), ts_quat_conj(md->principal_rotation));
    ts_vec3 center = load_vec3(s->px, s->py, s->pz, i);
    return (ts_transform){ts_sub(center, ts_rotate(q, md->center)), q};
}

void ts_body_set_origin_transform(ts_world *world, int32_t body, ts_transform origin)
{
    ts_body_store *s = &world->store;
    const ts_mass_data *md = &world->bodies[body].mass_data;
    int32_t i = s->table.slot_of_id[body];
    ts_quat q = ts_quat_mul(origin.q, md->principal_rotation);
    store_vec3(s->px, s->py, s->pz, i, ts_transform_point(origin, md->center));
    s->qx[i] = q.x;
    s->qy[i] = q.y;
    s->qz[i] = q.z;
    s->qw[i] = q.w;
    world->joint_scratch.ball_step = -1; /* its ball joints refill their pose and K^-1 (ball_joint.h) */
}

/* The columns the step reads for motion; zero unless dynamic, so kinematic
 * bodies move by their velocity alone and static ones never change. */
static void write_motion_columns(ts_world *world, int32_t body)
{
    ts_body_store *s = &world->store;
    const ts_body *b = world->bodies + body;
    int32_t i = s->table.slot_of_id[body];
    bool dynamic = b->type == TS_BODY_DYNAMIC;
    ts_vec3 inertia = b->mass_data.principal_inertia;
    s->inv_mass[i] = dynamic ? 1.0f / b->mass_data.mass : 0.0f;
    s->ix[i] = dynamic ? inertia.x : 0.0f;
    s->iy[i] = dynamic ? inertia.y : 0.0f;
    s->iz[i] = dynamic ? inertia.z : 0.0f;
    s->inv_ix[i] = dynamic ? 1.0f / inertia.x : 0.0f;
    s->inv_iy[i] = dynamic ? 1.0f / inertia.y : 0.0f;
    s->inv_iz[i] = dynamic ? 1.0f / inertia.z : 0.0f;
    s->linear_damping[i] = dynamic ? b->linear_damping : 0.0f;
    s->angular_damping[i] = dynamic ? b->angular_damping : 0.0f;
    s->gravity_scale[i] = dynamic ? b->gravity_scale : 0.0f;
    s->table.revision += 1; /* the mass, or the frame the joints' anchors are kept in, may have changed */
}

static bool usable(float value) { return ts_is_finite(value) && value > 0.0f && ts_is_finite(1.0f / value); }

bool ts_mass_is_usable(const ts_mass_data *md)
{
    return usable(md->mass) && usable(md->principal_inertia.x) && usable(md->principal_inertia.y) &&
           usable(md->principal_inertia.z) && ts_vec3_is_finite(md->center);
}

/* A shapeless dynamic body still moves: 1 kg, solid sphere of radius 0.5 m. */
static const ts_mass_data shapeless_mass = {1.0f, {0, 0, 0}, {0.1f, 0.1f, 0.1f}, {0, 0, 0, 1}};

bool ts_body_compute_mass(const ts_world *world, int32_t body, ts_body_type type, ts_mass_data *mass_data)
{
    const ts_body *b = world->bodies + body;
    *mass_data = (ts_mass_data){0.0f, {0, 0, 0}, {0, 0, 0}, TS_QUAT_IDENTITY};
    if (type != TS_BODY_DYNAMIC) {
        return true;
    }
    if (b->first_shape == -1) {
        *mass_data = shapeless_mass;
        return true;
    }
    ts_mass_accumulator acc = {0};
    for (int32_t sh = b->first_shape; sh != -1; sh = world->shapes[sh].next) {
        const ts_shape *shape = world->shapes + sh;
        ts_mass_accumulate(&acc, ts_shape_compute_mass(shape), shape->local);
    }
    *mass_data = ts_mass_finish(&acc);
    return ts_mass_is_usable(mass_data);
}

void ts_body_update_mass(ts_world *world, int32_t body)
{
    ts_body *b = world->bodies + body;
    ts_body_store *s = &world->store;
    ts_transform origin = ts_body_origin_transform(world, body);
    int32_t i = s->table.slot_of_id[body];
    ts_vec3 old_center = load_vec3(s->px, s->py, s->pz, i);

    ts_mass_data md;
    if (!ts_body_compute_mass(world, body, b->type, &md)) {
        md = shapeless_mass;
    }
    b->mass_data = md;
    /* Shapes are placed in the simulation frame, so collision reads the body
     * state without going through the origin. */
    ts_transform sim_in_body = {md.center, md.principal_rotation};
    for (int32_t sh = b->first_shape; sh != -1; sh = world->shapes[sh].next) {
        world->shapes[sh].sim_local = ts_transform_inv_mul(sim_in_body, world->shapes[sh].local);
    }
    ts_body_set_origin_transform(world, body, origin);

    /* The centre moved by d = new - old; a point fixed to the body moves with
     * v + w x r, so the new centre's velocity is v + w x d. */
    ts_vec3 d = ts_sub(load_vec3(s->px, s->py, s->pz, i), old_center);
    ts_vec3 w = load_vec3(s->wx, s->wy, s->wz, i);
    ts_vec3 v = ts_add(load_vec3(s->vx, s->vy, s->vz, i), ts_cross(w, d));
    store_vec3(s->vx, s->vy, s->vz, i, v);
    write_motion_columns(world, body);
    s->max_extent[i] = ts_body_max_extent(world, body);
    ts_body_sync_bounds(world, body);
}

/* ---- create / destroy ---- */

static ts_result check_body_def(const ts_body_def *def, ts_quat *rotation, const char *fn)
{
    TS_CHECK_NOT_NULL(def, fn);
    if (def->internal_value != TS_DEF_COOKIE) {
        return ts_fail(TS_ERROR_UNINITIALIZED_DEF, fn, "def was not initialised with ts_default_body_def()");
    }
    if (def->type != TS_BODY_STATIC && def->type != TS_BODY_KINEMATIC && def->type != TS_BODY_DYNAMIC) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, fn, "def->type is %d (not a ts_body_type)", (int)def->type);
    }
    TS_TRY(ts_check_finite_vec3(def->position, fn, "def->position"));
    TS_TRY(ts_check_rotation(def->rotation, rotation, fn, "def->rotation"));
    TS_TRY(ts_check_finite_vec3(def->linear_velocity, fn, "def->linear_velocity"));
    TS_TRY(ts_check_finite_vec3(def->angular_velocity, fn, "def->angular_velocity"));
    TS_TRY(ts_check_non_negative(def->linear_damping, fn, "def->linear_damping"));
    TS_TRY(ts_check_non_negative(def->angular_damping, fn, "def->angular_damping"));
    TS_TRY(ts_check_non_negative(def->sleep_threshold, fn, "def->sleep_threshold"));
    if (!ts_is_finite(def->gravity_scale)) {
        return ts_fail(TS_ERROR_NOT_FINITE, fn, "def->gravity_scale is %g (must be finite)", (double)def->gravity_scale);
    }
    if (def->type == TS_BODY_STATIC && (!ts_vec3_is_zero(def->linear_velocity) || !ts_vec3_is_zero(def->angular_velocity))) {
        return ts_fail(TS_ERROR_INVALID_OPERATION, fn, "a static body cannot have a velocity");
    }
    return TS_OK;
}

static bool reserve_body(ts_world *world)
{
    int32_t index = ts_id_pool_peek(&world->body_ids);
    if (index >= world->body_capacity) {
        int32_t capacity = world->body_capacity < 64 ? 64 : 2 * world->body_capacity;
        ts_body *grown = ts_realloc(&world->allocator, world->bodies, (size_t)world->body_capacity * sizeof(ts_body),
                                    (size_t)capacity * sizeof(ts_body));
        if (grown == NULL) {
            return false;
        }
        world->bodies = grown;
        world->body_capacity = capacity;
    }
    return ts_id_pool_reserve(&world->body_ids, &world->allocator, 0) &&
           ts_body_store_reserve(&world->store, &world->allocator, world->store.table.count + 1, index + 1) &&
           ts_island_reserve(world, world->body_capacity);
}

ts_body_id ts_create_body(ts_world_id world_id, const ts_body_def *def)
{
    ts_world *world = ts_world_lookup(world_id, __func__);
    ts_quat rotation;
    if (world == NULL || check_body_def(def, &rotation, __func__) != TS_OK) {
        return TS_NULL_BODY_ID;
    }
    if (ts_id_pool_peek(&world->body_ids) >= TS_MAX_OBJECTS) {
        ts_fail(TS_ERROR_CAPACITY, __func__, "the world holds %d bodies already (TS_MAX_OBJECTS)", TS_MAX_OBJECTS);
        return TS_NULL_BODY_ID;
    }
    if (!reserve_body(world)) {
        ts_fail(TS_ERROR_OUT_OF_MEMORY, __func__, "the allocator returned NULL");
        return TS_NULL_BODY_ID;
    }
    bool fresh = world->body_ids.free_count == 0; /* a never used index has no generation yet */
    int32_t index = ts_id_pool_take(&world->body_ids);
    ts_body *b = world->bodies + index;
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
    };
    ts_body_range range = def->type == TS_BODY_STATIC ? TS_RANGE_STATIC : TS_RANGE_AWAKE;
    int32_t i = ts_body_store_add(&world->store, index, range);
    ts_body_store *s = &world->store;
    store_vec3(s->vx, s->vy, s->vz, i, def->linear_velocity);
    store_vec3(s->wx, s->wy, s->wz, i, def->angular_velocity);
    s->sleep_threshold[i] = def->enable_sleep ? def->sleep_threshold : -1.0f;
    ts_body_set_origin_transform(world, index, (ts_transform){def->position, rotation});
    ts_body_update_mass(world, index);
    if (def->type == TS_BODY_DYNAMIC) {
        ts_island_add_body(world, index);
    }
    return ts_body_id_of(world, index);
}

ts_result ts_destroy_body(ts_body_id id)
{
    ts_world *world;
    ts_body *b = ts_body_lookup(id, &world, __func__);
    if (b == NULL) {
        return TS_ERROR_STALE_ID;
    }
    int32_t index = (int32_t)(b - world->bodies);
    /* What it held up or touched may move now. */
    TS_TRY(ts_wake_body(world, index, __func__));
    ts_body_destroy_contacts(world, index, -1);
    ts_body_destroy_joints(world, index);
    ts_island_remove_body(world, index);
    while (b->first_shape != -1) {
        ts_shape_release(world, b->first_shape);
    }
    ts_body_store_remove(&world->store, slot_of(world, b));
    b->alive = false;
    b->generation += 1;
    ts_id_pool_release(&world->body_ids, index);
    return TS_OK;
}

bool ts_body_is_valid(ts_body_id id)
{
    ts_world *world = ts_world_lookup_slot(id.world0, id.world_generation, NULL);
    if (world == NULL) {
        return false;
    }
    int32_t index = id.index1 > 0 ? id.index1 - 1 : -1; /* no overflow on forged ids */
    return index >= 0 && index < world->body_ids.next_index && world->bodies[index].alive &&
           world->bodies[index].generation == id.generation;
}

ts_world_id ts_body_get_world(ts_body_id id)
{
    ts_world *world;
    return ts_body_lookup(id, &world, __func__) == NULL ? TS_NULL_WORLD_ID : ts_world_id_of(world);
}

/* Looks the body up or returns the error from the calling function. */
#define LOOKUP(id, world, body)                                                                                \
    ts_world *world;                                                                                           \
    ts_body *body = ts_body_lookup(id, &world, __func__);                                                      \
    if (body == NULL) {                                                                                        \
        return TS_ERROR_STALE_ID;                                                                              \
    }                                                                                                          \
    int32_t body##_slot = slot_of(world, body);                                                                \
    (void)body##_slot

/* Wakes a body the user changes (and the islands it touches); its slot
 * moves when it was asleep. */
static ts_result wake(ts_world *world, const ts_body *body, int32_t *slot, const char *function)
{
    TS_TRY(ts_wake_body(world, (int32_t)(body - world->bodies), function));
    *slot = slot_of(world, body);
    return TS_OK;
}

/* ---- sleeping ---- */

ts_result ts_body_is_awake(ts_body_id id, bool *awake)
{
    TS_CHECK_NOT_NULL(awake, __func__);
    LOOKUP(id, world, b);
    *awake = b->island < 0 || ts_island_is_awake(&world->islands, b->island);
    return TS_OK;
}

ts_result ts_body_set_awake(ts_body_id id, bool awake)
{
    LOOKUP(id, world, b);
    int32_t index = (int32_t)(b - world->bodies);
    if (awake) {
        return ts_wake_body(world, index, __func__);
    }
    if (!world->enable_sleep || b->island < 0 || !ts_island_is_awake(&world->islands, b->island)) {
        return TS_OK;
    }
    /* An island that may be in pieces is split first; the body's part sleeps. */
    if (world->islands.islands[b->island].constraint_removed > 0) {
        ts_island_split(world, b->island);
    }
    ts_island_sleep(world, b->island);
    return TS_OK;
}

ts_result ts_body_enable_sleep(ts_body_id id, bool enable)
{
    LOOKUP(id, world, b);
    int32_t index = (int32_t)(b - world->bodies);
    if (!enable) {
        TS_TRY(ts_wake_body(world, index, __func__));
    }
    b->enable_sleep = enable;
    ts_body_store *s = &world->store;
    int32_t i = slot_of(world, b);
    s->sleep_threshold[i] = enable ? b->sleep_threshold : -1.0f;
    return TS_OK;
}

ts_result ts_body_get_island(ts_body_id id, int *island)
{
    TS_CHECK_NOT_NULL(island, __func__);
    LOOKUP(id, world, b);
    *island = b->island;
    return TS_OK;
}

/* ---- type ---- */

ts_result ts_body_get_type(ts_body_id id, ts_body_type *type)
{
    TS_CHECK_NOT_NULL(type, __func__);
    LOOKUP(id, world, b);
    *type = b->type;
    return TS_OK;
}

ts_result ts_body_set_type(ts_body_id id, ts_body_type type)
{
    if (type != TS_BODY_STATIC && type != TS_BODY_KINEMATIC && type != TS_BODY_DYNAMIC) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, __func__, "type is %d (not a ts_body_type)", (int)type);
    }
    LOOKUP(id, world, b);
    if (b->type == type) {
        return TS_OK;
    }
    ts_body_store *s = &world->store;
    int32_t index = (int32_t)(b - world->bodies);
    ts_mass_data md;
    if (!ts_body_compute_mass(world, index, type, &md)) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, __func__,
                       "as a dynamic body its shapes give unusable mass properties (mass %g, inertia %g %g %g)",
                       (double)md.mass, (double)md.principal_inertia.x, (double)md.principal_inertia.y,
                       (double)md.principal_inertia.z);
    }
    TS_TRY(ts_wake_body(world, index, __func__));
    ts_island_remove_body(world, index);
    int32_t i = ts_body_store_move(s, slot_of(world, b), type == TS_BODY_STATIC ? TS_RANGE_STATIC : TS_RANGE_AWAKE);
    if (type == TS_BODY_STATIC) {
        store_vec3(s->vx, s->vy, s->vz, i, ts_v3(0, 0, 0));
        store_vec3(s->wx, s->wy, s->wz, i, ts_v3(0, 0, 0));
    }
    store_vec3(s->fx, s->fy, s->fz, i, ts_v3(0, 0, 0));
    store_vec3(s->tx, s->ty, s->tz, i, ts_v3(0, 0, 0));
    b->type = type;
    ts_body_update_mass(world, index);
    /* The shapes change trees and the pairs change rules: start over. */
    ts_body_destroy_contacts(world, index, -1);
    if (type == TS_BODY_DYNAMIC) {
        ts_island_add_body(world, index);
    }
    TS_TRY(ts_body_relink_joints(world, index, __func__));
    for (int32_t sh = b->first_shape; sh != -1; sh = world->shapes[sh].next) {
        ts_shape_destroy_proxy(world, sh);
        TS_TRY(ts_shape_create_proxy(world, sh, __func__));
    }
    return TS_OK;
}

/* ---- pose ---- */

ts_result ts_body_get_position(ts_body_id id, ts_vec3 *position)
{
    TS_CHECK_NOT_NULL(position, __func__);
    LOOKUP(id, world, b);
    *position = ts_body_origin_transform(world, (int32_t)(b - world->bodies)).p;
    return TS_OK;
}

ts_result ts_body_get_rotation(ts_body_id id, ts_quat *rotation)
{
    TS_CHECK_NOT_NULL(rotation, __func__);
    LOOKUP(id, world, b);
    *rotation = ts_body_origin_transform(world, (int32_t)(b - world->bodies)).q;
    return TS_OK;
}

ts_result ts_body_get_transform(ts_body_id id, ts_transform *transform)
{
    TS_CHECK_NOT_NULL(transform, __func__);
    LOOKUP(id, world, b);
    *transform = ts_body_origin_transform(world, (int32_t)(b - world->bodies));
    return TS_OK;
}

ts_result ts_body_set_transform(ts_body_id id, ts_vec3 position, ts_quat rotation)
{
    ts_quat q;
    TS_TRY(ts_check_finite_vec3(position, __func__, "position"));
    TS_TRY(ts_check_rotation(rotation, &q, __func__, "rotation"));
    LOOKUP(id, world, b);
    TS_TRY(ts_wake_body(world, (int32_t)(b - world->bodies), __func__));
    ts_body_set_origin_transform(world, (int32_t)(b - world->bodies), (ts_transform){position, q});
    return ts_body_refresh_proxies(world, (int32_t)(b - world->bodies), __func__);
}

ts_result ts_body_set_position(ts_body_id id, ts_vec3 position)
{
    TS_TRY(ts_check_finite_vec3(position, __func__, "position"));
    LOOKUP(id, world, b);
    int32_t index = (int32_t)(b - world->bodies);
    TS_TRY(ts_wake_body(world, index, __func__));
    ts_transform origin = ts_body_origin_transform(world, index);
    origin.p = position;
    ts_body_set_origin_transform(world, index, origin);
    return ts_body_refresh_proxies(world, index, __func__);
}

ts_result ts_body_set_rotation(ts_body_id id, ts_quat rotation)
{
    ts_quat q;
    TS_TRY(ts_check_rotation(rotation, &q, __func__, "rotation"));
    LOOKUP(id, world, b);
    int32_t index = (int32_t)(b - world->bodies);
    TS_TRY(ts_wake_body(world, index, __func__));
    ts_transform origin = ts_body_origin_transform(world, index);
    origin.q = q;
    ts_body_set_origin_transform(world, index, origin);
    return ts_body_refresh_proxies(world, index, __func__);
}

ts_result ts_body_get_world_center_of_mass(ts_body_id id, ts_vec3 *center)
{
    TS_CHECK_NOT_NULL(center, __func__);
    LOOKUP(id, world, b);
    const ts_body_store *s = &world->store;
    *center = load_vec3(s->px, s->py, s->pz, b_slot);
    return TS_OK;
}

/* ---- velocity ---- */

ts_result ts_body_get_linear_velocity(ts_body_id id, ts_vec3 *velocity)
{
    TS_CHECK_NOT_NULL(velocity, __func__);
    LOOKUP(id, world, b);
    const ts_body_store *s = &world->store;
    *velocity = load_vec3(s->vx, s->vy, s->vz, b_slot);
    return TS_OK;
}

ts_result ts_body_get_angular_velocity(ts_body_id id, ts_vec3 *velocity)
{
    TS_CHECK_NOT_NULL(velocity, __func__);
    LOOKUP(id, world, b);
    const ts_body_store *s = &world->store;
    *velocity = load_vec3(s->wx, s->wy, s->wz, b_slot);
    return TS_OK;
}

static ts_result check_can_move(const ts_body *b, ts_vec3 velocity, const char *fn)
{
    if (b->type == TS_BODY_STATIC && !ts_vec3_is_zero(velocity)) {
        return ts_fail(TS_ERROR_INVALID_OPERATION, fn, "a static body cannot have a velocity");
    }
    return TS_OK;
}

ts_result ts_body_set_linear_velocity(ts_body_id id, ts_vec3 velocity)
{
    TS_TRY(ts_check_finite_vec3(velocity, __func__, "velocity"));
    LOOKUP(id, world, b);
    TS_TRY(check_can_move(b, velocity, __func__));
    TS_TRY(wake(world, b, &b_slot, __func__));
    ts_body_store *s = &world->store;
    store_vec3(s->vx, s->vy, s->vz, b_slot, velocity);
    return TS_OK;
}

ts_result ts_body_set_angular_velocity(ts_body_id id, ts_vec3 velocity)
{
    TS_TRY(ts_check_finite_vec3(velocity, __func__, "velocity"));
    LOOKUP(id, world, b);
    TS_TRY(check_can_move(b, velocity, __func__));
    TS_TRY(wake(world, b, &b_slot, __func__));
    ts_body_store *s = &world->store;
    store_vec3(s->wx, s->wy, s->wz, b_slot, velocity);
    return TS_OK;
}

/* ---- forces and impulses ---- */

/* Inverse world inertia times x: q (I^-1 (q^-1 x)) in the principal frame. */
static ts_vec3 apply_inv_inertia(const ts_body_store *s, int32_t i, ts_vec3 x)
{
    ts_quat q = load_rotation(s, i);
    ts_vec3 local = ts_inv_rotate(q, x);
    ts_vec3 inv_i = load_vec3(s->inv_ix, s->inv_iy, s->inv_iz, i);
    return ts_rotate(q, ts_mul_cw(inv_i, local));
}

/* Adds to the accumulated force and torque; refuses (changing nothing) when a
 * finite input still overflows them, e.g. 1e30 N at a lever arm of 1e30 m. */
static ts_result add_force(ts_world *world, int32_t i, ts_vec3 force, ts_vec3 torque, const char *fn)
{
    ts_body_store *s = &world->store;
    ts_vec3 f = ts_add(load_vec3(s->fx, s->fy, s->fz, i), force);
    ts_vec3 t = ts_add(load_vec3(s->tx, s->ty, s->tz, i), torque);
    if (!ts_vec3_is_finite(f) || !ts_vec3_is_finite(t)) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, fn, "the accumulated force (%g, %g, %g) or torque (%g, %g, %g) overflows",
                       (double)f.x, (double)f.y, (double)f.z, (double)t.x, (double)t.y, (double)t.z);
    }
    store_vec3(s->fx, s->fy, s->fz, i, f);
    store_vec3(s->tx, s->ty, s->tz, i, t);
    world->forces_pending = true;
    return TS_OK;
}

/* Changes the velocity at once; refuses (changing nothing) when it would overflow. */
static ts_result add_impulse(ts_world *world, int32_t i, ts_vec3 linear, ts_vec3 angular, const char *fn)
{
    ts_body_store *s = &world->store;
    ts_vec3 v = ts_mul_add(load_vec3(s->vx, s->vy, s->vz, i), s->inv_mass[i], linear);
    ts_vec3 w = ts_add(load_vec3(s->wx, s->wy, s->wz, i), apply_inv_inertia(s, i, angular));
    if (!ts_vec3_is_finite(v) || !ts_vec3_is_finite(w)) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, fn, "the resulting velocity (%g, %g, %g) or angular velocity (%g, %g, %g) "
                       "overflows", (double)v.x, (double)v.y, (double)v.z, (double)w.x, (double)w.y, (double)w.z);
    }
    store_vec3(s->vx, s->vy, s->vz, i, v);
    store_vec3(s->wx, s->wy, s->wz, i, w);
    return TS_OK;
}

static ts_vec3 lever_arm(const ts_world *world, int32_t i, ts_vec3 point)
{
    const ts_body_store *s = &world->store;
    return ts_sub(point, load_vec3(s->px, s->py, s->pz, i));
}

ts_result ts_body_apply_force(ts_body_id id, ts_vec3 force, ts_vec3 point)
{
    TS_TRY(ts_check_finite_vec3(force, __func__, "force"));
    TS_TRY(ts_check_finite_vec3(point, __func__, "point"));
    LOOKUP(id, world, b);
    if (b->type != TS_BODY_DYNAMIC) {
        return TS_OK;
    }
    TS_TRY(wake(world, b, &b_slot, __func__));
    return add_force(world, b_slot, force, ts_cross(lever_arm(world, b_slot, point), force), __func__);
}

ts_result ts_body_apply_force_to_center(ts_body_id id, ts_vec3 force)
{
    TS_TRY(ts_check_finite_vec3(force, __func__, "force"));
    LOOKUP(id, world, b);
    if (b->type == TS_BODY_DYNAMIC) {
        TS_TRY(wake(world, b, &b_slot, __func__));
    }
    return b->type != TS_BODY_DYNAMIC ? TS_OK : add_force(world, b_slot, force, ts_v3(0, 0, 0), __func__);
}

ts_result ts_body_apply_torque(ts_body_id id, ts_vec3 torque)
{
    TS_TRY(ts_check_finite_vec3(torque, __func__, "torque"));
    LOOKUP(id, world, b);
    if (b->type == TS_BODY_DYNAMIC) {
        TS_TRY(wake(world, b, &b_slot, __func__));
    }
    return b->type != TS_BODY_DYNAMIC ? TS_OK : add_force(world, b_slot, ts_v3(0, 0, 0), torque, __func__);
}

ts_result ts_body_apply_linear_impulse(ts_body_id id, ts_vec3 impulse, ts_vec3 point)
{
    TS_TRY(ts_check_finite_vec3(impulse, __func__, "impulse"));
    TS_TRY(ts_check_finite_vec3(point, __func__, "point"));
    LOOKUP(id, world, b);
    if (b->type != TS_BODY_DYNAMIC) {
        return TS_OK;
    }
    TS_TRY(wake(world, b, &b_slot, __func__));
    return add_impulse(world, b_slot, impulse, ts_cross(lever_arm(world, b_slot, point), impulse), __func__);
}

ts_result ts_body_apply_linear_impulse_to_center(ts_body_id id, ts_vec3 impulse)
{
    TS_TRY(ts_check_finite_vec3(impulse, __func__, "impulse"));
    LOOKUP(id, world, b);
    if (b->type == TS_BODY_DYNAMIC) {
        TS_TRY(wake(world, b, &b_slot, __func__));
    }
    return b->type != TS_BODY_DYNAMIC ? TS_OK : add_impulse(world, b_slot, impulse, ts_v3(0, 0, 0), __func__);
}

ts_result ts_body_apply_angular_impulse(ts_body_id id, ts_vec3 impulse)
{
    TS_TRY(ts_check_finite_vec3(impulse, __func__, "impulse"));
    LOOKUP(id, world, b);
    if (b->type == TS_BODY_DYNAMIC) {
        TS_TRY(wake(world, b, &b_slot, __func__));
    }
    return b->type != TS_BODY_DYNAMIC ? TS_OK : add_impulse(world, b_slot, ts_v3(0, 0, 0), impulse, __func__);
}

/* ---- mass ---- */

ts_result ts_body_get_mass_data(ts_body_id id, ts_mass_data *mass_data)
{
    TS_CHECK_NOT_NULL(mass_data, __func__);
    LOOKUP(id, world, b);
    *mass_data = b->mass_data;
    return TS_OK;
}

ts_result ts_body_get_mass(ts_body_id id, float *mass)
{
    TS_CHECK_NOT_NULL(mass, __func__);
    LOOKUP(id, world, b);
    *mass = b->mass_data.mass;
    return TS_OK;
}

/* ---- damping, gravity scale, user data ---- */

ts_result ts_body_set_linear_damping(ts_body_id id, float damping)
{
    TS_TRY(ts_check_non_negative(damping, __func__, "damping"));
    LOOKUP(id, world, b);
    b->linear_damping = damping;
    write_motion_columns(world, (int32_t)(b - world->bodies));
    return TS_OK;
}

ts_result ts_body_get_linear_damping(ts_body_id id, float *damping)
{
    TS_CHECK_NOT_NULL(damping, __func__);
    LOOKUP(id, world, b);
    *damping = b->linear_damping;
    return TS_OK;
}

ts_result ts_body_set_angular_damping(ts_body_id id, float damping)
{
    TS_TRY(ts_check_non_negative(damping, __func__, "damping"));
    LOOKUP(id, world, b);
    b->angular_damping = damping;
    write_motion_columns(world, (int32_t)(b - world->bodies));
    return TS_OK;
}

ts_result ts_body_get_angular_damping(ts_body_id id, float *damping)
{
    TS_CHECK_NOT_NULL(damping, __func__);
    LOOKUP(id, world, b);
    *damping = b->angular_damping;
    return TS_OK;
}

ts_result ts_body_set_gravity_scale(ts_body_id id, float scale)
{
    if (!ts_is_finite(scale)) {
        return ts_fail(TS_ERROR_NOT_FINITE, __func__, "scale is %g (must be finite)", (double)scale);
    }
    LOOKUP(id, world, b);
    TS_TRY(wake(world, b, &b_slot, __func__));
    b->gravity_scale = scale;
    write_motion_columns(world, (int32_t)(b - world->bodies));
    return TS_OK;
}

ts_result ts_body_get_gravity_scale(ts_body_id id, float *scale)
{
    TS_CHECK_NOT_NULL(scale, __func__);
    LOOKUP(id, world, b);
    *scale = b->gravity_scale;
    return TS_OK;
}

ts_result ts_body_set_user_data(ts_body_id id, void *user_data)
{
    LOOKUP(id, world, b);
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
    LOOKUP(id, world, b);
    int n = 0;
    for (int32_t sh = b->first_shape; sh != -1; sh = world->shapes[sh].next, ++n) {
        if (n < capacity) {
            shapes[n] = ts_shape_id_of(world, sh);
        }
    }
    *count = n;
    return TS_OK;
}
