/* Shapes: creation on a body (compound bodies are bodies with several shapes),
 * destruction, and their material and filter settings. */
#include "api/shape.h"

#include "api/body_mass.h"
#include "api/contacts.h"
#include "api/lookup.h"
#include "base/alloc.h"
#include "base/bounds.h"
#include "collide/broadphase.h"
#include "collide/geometry_store.h"
#include "collide/mass.h"
#include "collide/rolling_resistance.h"
#include "islands/sleep.h"
#include "tessera/tessera.h"

/* A rolling resistance: finite, in [0, TS_MAX_ROLLING_RESISTANCE]. */
static ts_result check_rolling_resistance(float value, const char *fn, const char *name)
{
    TS_TRY(ts_check_non_negative(value, fn, name));
    if (value > TS_MAX_ROLLING_RESISTANCE) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, fn, "%s is %g (must be in [0, TS_MAX_ROLLING_RESISTANCE = %g])", name,
                       (double)value, (double)TS_MAX_ROLLING_RESISTANCE);
    }
    return TS_OK;
}

static ts_result check_shape_def(const ts_shape_def *def, ts_quat *rotation, const char *fn)
{
    TS_CHECK_NOT_NULL(def, fn);
    if (def->internal_value != TS_DEF_COOKIE) {
        return ts_fail(TS_ERROR_UNINITIALIZED_DEF, fn, "def was not initialised with ts_default_shape_def()");
    }
    TS_TRY(ts_check_components(def->local_position, TS_MAX_OFFSET, "TS_MAX_OFFSET", fn, "def->local_position"));
    TS_TRY(ts_check_rotation(def->local_rotation, rotation, fn, "def->local_rotation"));
    TS_TRY(ts_check_positive(def->density, fn, "def->density"));
    TS_TRY(ts_check_non_negative(def->friction, fn, "def->friction"));
    TS_TRY(ts_check_non_negative(def->restitution, fn, "def->restitution"));
    if (def->restitution > 1.0f) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, fn, "def->restitution is %g (must be in [0, 1])", (double)def->restitution);
    }
    return check_rolling_resistance(def->rolling_resistance, fn, "def->rolling_resistance");
}

static bool reserve_shape(ts_world *world)
{
    int32_t index = ts_id_pool_peek(&world->records.shape_ids);
    if (index >= world->records.shape_capacity) {
        int32_t capacity = world->records.shape_capacity < 64 ? 64 : 2 * world->records.shape_capacity;
        ts_shape *grown = ts_realloc(&world->records.allocator, world->records.shapes,
                                     (size_t)world->records.shape_capacity * sizeof(ts_shape),
                                     (size_t)capacity * sizeof(ts_shape));
        if (grown == NULL) {
            return false;
        }
        world->records.shapes = grown;
        world->records.shape_capacity = capacity;
    }
    return ts_id_pool_reserve(&world->records.shape_ids, &world->records.allocator, 0);
}

/* A shape's own mass must be usable, whatever its body's type now, because
 * the body may become dynamic later. */
static ts_result check_shape_mass(const ts_shape *shape, const char *fn)
{
    ts_shape_mass sm = ts_shape_compute_mass(shape);
    ts_mass_data md = {sm.mass, {0, 0, 0}, sm.inertia, TS_QUAT_IDENTITY};
    if (!ts_mass_is_usable(&md)) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, fn,
                       "size and density give unusable mass properties (mass %g, inertia %g %g %g): "
                       "too small, too large or too light to simulate in float",
                       (double)sm.mass, (double)sm.inertia.x, (double)sm.inertia.y, (double)sm.inertia.z);
    }
    return TS_OK;
}

/* The body's mass with its shapes as they are now (and `extra`, a shape
 * about to be added, when not NULL), checked. */
static ts_result check_body_mass(const ts_world *world, int32_t body, const ts_shape *extra, const char *fn)
{
    ts_mass_data md;
    if (!ts_body_compute_mass_with(world, body, world->records.bodies[body].type, extra, &md)) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, fn,
                       "the body's shapes would give unusable mass properties (mass %g, inertia %g %g %g, "
                       "centre %g %g %g)",
                       (double)md.mass, (double)md.principal_inertia.x, (double)md.principal_inertia.y,
                       (double)md.principal_inertia.z, (double)md.center.x, (double)md.center.y, (double)md.center.z);
    }
    return TS_OK;
}

static bool has_triangles(ts_shape_type type) { return type == TS_SHAPE_MESH || type == TS_SHAPE_HEIGHTFIELD; }

/* The geometry block of a hull, mesh or heightfield, or NULL. */
static const void *geometry_block(const ts_shape *shape)
{
    switch (shape->type) {
    case TS_SHAPE_HULL: return shape->geometry.hull.data;
    case TS_SHAPE_MESH: return shape->geometry.mesh.data;
    case TS_SHAPE_HEIGHTFIELD: return shape->geometry.heightfield.data;
    default: return NULL;
    }
}

ts_result ts_shape_begin(ts_body_id body_id, const ts_shape_def *def, const char *fn, ts_world **world, ts_body **body,
                         ts_quat *rotation)
{
    *body = ts_body_lookup(body_id, world, fn);
    if (*body == NULL) {
        return TS_ERROR_STALE_ID;
    }
    if ((*body)->faulted) {
        return ts_fail(TS_ERROR_INVALID_OPERATION, fn,
                       "the body was taken out after its state overflowed (ts_world_get_body_faults)");
    }
    return check_shape_def(def, rotation, fn);
}

static void release_block(ts_world *world, const ts_shape *probe)
{
    const void *block = geometry_block(probe);
    if (block != NULL) {
        ts_geometry_release(&world->collision.geometry, &world->records.allocator, block);
    }
}

ts_shape_id ts_shape_finish(ts_world *world, ts_body *body, const ts_shape_def *def, ts_quat rotation,
                            const ts_shape *probe_in, const char *fn)
{
    ts_shape probe = *probe_in;
    probe.density = def->density;
    if ((!has_triangles(probe.type) && check_shape_mass(&probe, fn) != TS_OK)) {
        release_block(world, &probe);
        return TS_NULL_SHAPE_ID;
    }
    if (ts_id_pool_peek(&world->records.shape_ids) >= TS_MAX_OBJECTS) {
        release_block(world, &probe);
        ts_fail(TS_ERROR_CAPACITY, fn, "the world holds %d shapes already (TS_MAX_OBJECTS)", TS_MAX_OBJECTS);
        return TS_NULL_SHAPE_ID;
    }
    /* A new shape wakes a moving body and what it touches; on a static body
     * it takes nothing away, and the bodies resting there sleep on. */
    int32_t body_index = (int32_t)(body - world->records.bodies);
    if (!reserve_shape(world) ||
        (body->type != TS_BODY_STATIC &&
         ts_wake_body(&world->records, &world->islands, &world->graph, body_index, fn) != TS_OK)) {
        release_block(world, &probe);
        ts_fail(TS_ERROR_OUT_OF_MEMORY, fn, "the allocator returned NULL");
        return TS_NULL_SHAPE_ID;
    }
    bool fresh = world->records.shape_ids.free_count == 0;
    int32_t index = ts_id_pool_take(&world->records.shape_ids);
    ts_shape *shape = world->records.shapes + index;
    uint32_t generation = fresh ? 0u : shape->generation;
    *shape = (ts_shape){
        .generation = generation,
        .alive = true,
        .type = probe.type,
        .geometry = probe.geometry,
        .body = body_index,
        .prev = body->last_shape,
        .next = -1,
        .local = {def->local_position, rotation},
        .density = def->density,
        .friction = def->friction,
        .restitution = def->restitution,
        .rolling_resistance = def->rolling_resistance,
        .filter = def->filter,
        .is_sensor = def->is_sensor,
        .user_data = def->user_data,
    };
    world->sensors.any = world->sensors.any || def->is_sensor;
    world->records.rolling = world->records.rolling || def->rolling_resistance > 0.0f;
    if (body->last_shape != -1) {
        world->records.shapes[body->last_shape].next = index;
    } else {
        body->first_shape = index;
    }
    body->last_shape = index;
    body->shape_count += 1;
    shape->proxy = -1;
    if (check_body_mass(world, body_index, NULL, fn) != TS_OK) {
        /* e.g. an offset of 1e30 m: undo, nothing changed (the release drops the block). */
        ts_shape_release(world, index);
        return TS_NULL_SHAPE_ID;
    }
    ts_body_update_mass(world, body_index);
    if (ts_shape_create_proxy(&world->records, &world->collision.broadphase, index, fn) != TS_OK) {
        ts_shape_release(world, index);
        ts_body_update_mass(world, body_index);
        return TS_NULL_SHAPE_ID;
    }
    return ts_shape_id_of(&world->records, index);
}

/* Common part of the three primitive create calls; geometry was checked by the caller. */
static ts_shape_id create_shape(ts_body_id body_id, const ts_shape_def *def, ts_shape_type type, const void *geometry,
                                const char *fn)
{
    ts_world *world;
    ts_body *body;
    ts_quat rotation;
    if (ts_shape_begin(body_id, def, fn, &world, &body, &rotation) != TS_OK) {
        return TS_NULL_SHAPE_ID;
    }
    ts_shape probe = {.type = type};
    switch (type) {
    case TS_SHAPE_SPHERE: probe.geometry.sphere = *(const ts_sphere *)geometry; break;
    case TS_SHAPE_BOX: probe.geometry.box = *(const ts_box *)geometry; break;
    default: probe.geometry.capsule = *(const ts_capsule *)geometry; break;
    }
    return ts_shape_finish(world, body, def, rotation, &probe, fn);
}

ts_shape_id ts_create_sphere_shape(ts_body_id body, const ts_shape_def *def, const ts_sphere *sphere)
{
    if (sphere == NULL) {
        ts_fail(TS_ERROR_NULL_POINTER, __func__, "sphere is NULL");
        return TS_NULL_SHAPE_ID;
    }
    if (ts_check_positive(sphere->radius, __func__, "sphere->radius") != TS_OK) {
        return TS_NULL_SHAPE_ID;
    }
    return create_shape(body, def, TS_SHAPE_SPHERE, sphere, __func__);
}

ts_shape_id ts_create_box_shape(ts_body_id body, const ts_shape_def *def, const ts_box *box)
{
    if (box == NULL) {
        ts_fail(TS_ERROR_NULL_POINTER, __func__, "box is NULL");
        return TS_NULL_SHAPE_ID;
    }
    if (ts_check_positive(box->half_extents.x, __func__, "box->half_extents.x") != TS_OK ||
        ts_check_positive(box->half_extents.y, __func__, "box->half_extents.y") != TS_OK ||
        ts_check_positive(box->half_extents.z, __func__, "box->half_extents.z") != TS_OK) {
        return TS_NULL_SHAPE_ID;
    }
    return create_shape(body, def, TS_SHAPE_BOX, box, __func__);
}

ts_shape_id ts_create_capsule_shape(ts_body_id body, const ts_shape_def *def, const ts_capsule *capsule)
{
    if (capsule == NULL) {
        ts_fail(TS_ERROR_NULL_POINTER, __func__, "capsule is NULL");
        return TS_NULL_SHAPE_ID;
    }
    if (ts_check_positive(capsule->radius, __func__, "capsule->radius") != TS_OK ||
        ts_check_non_negative(capsule->half_height, __func__, "capsule->half_height") != TS_OK) {
        return TS_NULL_SHAPE_ID;
    }
    return create_shape(body, def, TS_SHAPE_CAPSULE, capsule, __func__);
}

void ts_shape_release(ts_world *world, int32_t index)
{
    ts_shape *shape = world->records.shapes + index;
    ts_body *body = world->records.bodies + shape->body;
    ts_body_destroy_contacts(world, shape->body, index);
    /* Out of the body's list first: destroying the proxy re-syncs the body's
     * bounds columns from that list (its first shape, the one-shape fast
     * paths), which must no longer name this shape. */
    if (shape->prev != -1) {
        world->records.shapes[shape->prev].next = shape->next;
    } else {
        body->first_shape = shape->next;
    }
    if (shape->next != -1) {
        world->records.shapes[shape->next].prev = shape->prev;
    } else {
        body->last_shape = shape->prev;
    }
    body->shape_count -= 1;
    ts_shape_destroy_proxy(&world->records, &world->collision.broadphase, index);
    if (geometry_block(shape) != NULL) {
        ts_geometry_release(&world->collision.geometry, &world->records.allocator, geometry_block(shape));
    }
    shape->alive = false;
    shape->generation += 1;
    ts_id_pool_release(&world->records.shape_ids, index);
}

ts_result ts_destroy_shape(ts_shape_id id)
{
    ts_world *world;
    ts_shape *shape = ts_shape_lookup(id, &world, __func__);
    if (shape == NULL) {
        return TS_ERROR_STALE_ID;
    }
    int32_t body = shape->body;
    TS_TRY(ts_wake_body(&world->records, &world->islands, &world->graph, body, __func__));
    ts_shape_release(world, (int32_t)(shape - world->records.shapes));
    ts_body_update_mass(world, body);
    return TS_OK;
}

bool ts_shape_is_valid(ts_shape_id id)
{
    ts_world *world = ts_world_lookup_slot(id.world0, id.world_generation, NULL);
    int32_t index = id.index1 > 0 ? id.index1 - 1 : -1; /* no overflow on forged ids */
    return world != NULL && index >= 0 && index < world->records.shape_ids.next_index &&
           world->records.shapes[index].alive && world->records.shapes[index].generation == id.generation;
}

/* Contacts mix friction, restitution and rolling resistance when they are
 * made; a change of one reaches the shape's existing contacts here. */
static void remix_contacts(ts_world *world, int32_t shape)
{
    ts_contact_store *s = &world->records.contact_store;
    for (int32_t key = world->records.bodies[world->records.shapes[shape].body].contact_head; key != -1;
         key = world->records.contacts[key >> 1].edges[key & 1].next_key) {
        const ts_contact *c = world->records.contacts + (key >> 1);
        if (c->shape_a != shape && c->shape_b != shape) {
            continue;
        }
        const ts_shape *a = world->records.shapes + c->shape_a;
        const ts_shape *b = world->records.shapes + c->shape_b;
        int32_t i = s->table.slot_of_id[key >> 1];
        s->friction[i] = sqrtf(a->friction * b->friction);
        s->restitution[i] = a->restitution > b->restitution ? a->restitution : b->restitution;
        s->rolling_resistance[i] = ts_contact_mix_rolling(a, b);
    }
}

#define SHAPE_LOOKUP(id, world, shape)                                                                         \
    ts_world *world;                                                                                           \
    ts_shape *shape = ts_shape_lookup(id, &world, __func__);                                                   \
    if (shape == NULL) {                                                                                       \
        return TS_ERROR_STALE_ID;                                                                              \
    }

ts_result ts_shape_get_body(ts_shape_id id, ts_body_id *body)
{
    TS_CHECK_NOT_NULL(body, __func__);
    SHAPE_LOOKUP(id, world, shape);
    *body = ts_body_id_of(&world->records, shape->body);
    return TS_OK;
}

ts_result ts_shape_get_type(ts_shape_id id, ts_shape_type *type)
{
    TS_CHECK_NOT_NULL(type, __func__);
    SHAPE_LOOKUP(id, world, shape);
    *type = shape->type;
    return TS_OK;
}

static ts_result wrong_type(const char *fn, ts_shape_type type)
{
    static const char *names[] = {"sphere", "box", "capsule", "hull", "mesh", "heightfield"};
    return ts_fail(TS_ERROR_INVALID_OPERATION, fn, "the shape is a %s", names[type]);
}

ts_result ts_shape_get_sphere(ts_shape_id id, ts_sphere *sphere)
{
    TS_CHECK_NOT_NULL(sphere, __func__);
    SHAPE_LOOKUP(id, world, shape);
    if (shape->type != TS_SHAPE_SPHERE) {
        return wrong_type(__func__, shape->type);
    }
    *sphere = shape->geometry.sphere;
    return TS_OK;
}

ts_result ts_shape_get_box(ts_shape_id id, ts_box *box)
{
    TS_CHECK_NOT_NULL(box, __func__);
    SHAPE_LOOKUP(id, world, shape);
    if (shape->type != TS_SHAPE_BOX) {
        return wrong_type(__func__, shape->type);
    }
    *box = shape->geometry.box;
    return TS_OK;
}

ts_result ts_shape_get_capsule(ts_shape_id id, ts_capsule *capsule)
{
    TS_CHECK_NOT_NULL(capsule, __func__);
    SHAPE_LOOKUP(id, world, shape);
    if (shape->type != TS_SHAPE_CAPSULE) {
        return wrong_type(__func__, shape->type);
    }
    *capsule = shape->geometry.capsule;
    return TS_OK;
}

ts_result ts_shape_get_local_transform(ts_shape_id id, ts_transform *transform)
{
    TS_CHECK_NOT_NULL(transform, __func__);
    SHAPE_LOOKUP(id, world, shape);
    *transform = shape->local;
    return TS_OK;
}

ts_result ts_shape_set_density(ts_shape_id id, float density)
{
    TS_TRY(ts_check_positive(density, __func__, "density"));
    SHAPE_LOOKUP(id, world, shape);
    float old_density = shape->density;
    shape->density = density;
    if (check_shape_mass(shape, __func__) != TS_OK || check_body_mass(world, shape->body, NULL, __func__) != TS_OK) {
        shape->density = old_density;
        return TS_ERROR_OUT_OF_RANGE;
    }
    TS_TRY(ts_wake_body(&world->records, &world->islands, &world->graph, shape->body, __func__));
    ts_body_update_mass(world, shape->body);
    return TS_OK;
}

ts_result ts_shape_get_density(ts_shape_id id, float *density)
{
    TS_CHECK_NOT_NULL(density, __func__);
    SHAPE_LOOKUP(id, world, shape);
    *density = shape->density;
    return TS_OK;
}

ts_result ts_shape_set_friction(ts_shape_id id, float friction)
{
    TS_TRY(ts_check_non_negative(friction, __func__, "friction"));
    SHAPE_LOOKUP(id, world, shape);
    shape->friction = friction;
    remix_contacts(world, (int32_t)(shape - world->records.shapes));
    return TS_OK;
}

ts_result ts_shape_get_friction(ts_shape_id id, float *friction)
{
    TS_CHECK_NOT_NULL(friction, __func__);
    SHAPE_LOOKUP(id, world, shape);
    *friction = shape->friction;
    return TS_OK;
}

ts_result ts_shape_set_restitution(ts_shape_id id, float restitution)
{
    TS_TRY(ts_check_non_negative(restitution, __func__, "restitution"));
    if (restitution > 1.0f) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, __func__, "restitution is %g (must be in [0, 1])", (double)restitution);
    }
    SHAPE_LOOKUP(id, world, shape);
    shape->restitution = restitution;
    remix_contacts(world, (int32_t)(shape - world->records.shapes));
    return TS_OK;
}

ts_result ts_shape_get_restitution(ts_shape_id id, float *restitution)
{
    TS_CHECK_NOT_NULL(restitution, __func__);
    SHAPE_LOOKUP(id, world, shape);
    *restitution = shape->restitution;
    return TS_OK;
}

ts_result ts_shape_set_rolling_resistance(ts_shape_id id, float rolling_resistance)
{
    TS_TRY(check_rolling_resistance(rolling_resistance, __func__, "rolling_resistance"));
    SHAPE_LOOKUP(id, world, shape);
    shape->rolling_resistance = rolling_resistance;
    world->records.rolling = world->records.rolling || rolling_resistance > 0.0f;
    remix_contacts(world, (int32_t)(shape - world->records.shapes));
    return TS_OK;
}

ts_result ts_shape_get_rolling_resistance(ts_shape_id id, float *rolling_resistance)
{
    TS_CHECK_NOT_NULL(rolling_resistance, __func__);
    SHAPE_LOOKUP(id, world, shape);
    *rolling_resistance = shape->rolling_resistance;
    return TS_OK;
}

ts_result ts_shape_set_filter(ts_shape_id id, ts_filter filter)
{
    SHAPE_LOOKUP(id, world, shape);
    int32_t index = (int32_t)(shape - world->records.shapes);
    TS_TRY(ts_wake_body(&world->records, &world->islands, &world->graph, shape->body, __func__));
    shape->filter = filter;
    /* Pairs are found again under the new filter from the next step. */
    ts_body_destroy_contacts(world, shape->body, index);
    if (shape->proxy < 0) {
        return TS_OK; /* in no tree: a faulted body's shape */
    }
    ts_tree_set_category_bits(&world->collision.broadphase.trees[shape->tree], shape->proxy, filter.category_bits);
    return ts_shape_buffer_move(&world->records, &world->collision.broadphase, index, __func__);
}

ts_result ts_shape_get_filter(ts_shape_id id, ts_filter *filter)
{
    TS_CHECK_NOT_NULL(filter, __func__);
    SHAPE_LOOKUP(id, world, shape);
    *filter = shape->filter;
    return TS_OK;
}

ts_result ts_shape_set_user_data(ts_shape_id id, void *user_data)
{
    SHAPE_LOOKUP(id, world, shape);
    shape->user_data = user_data;
    return TS_OK;
}

void *ts_shape_get_user_data(ts_shape_id id)
{
    ts_world *world;
    ts_shape *shape = ts_shape_lookup(id, &world, __func__);
    return shape == NULL ? NULL : shape->user_data;
}
