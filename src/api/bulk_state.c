// SPDX-License-Identifier: MIT
/* Bulk state (include/tessera/bulk.h): the positions, rotations and
 * velocities of many bodies, read or written in one call through the
 * program's arrays (any stride).
 *
 * A setter checks everything first, then makes room for what it may need
 * (the move buffer, the tree's rebuild scratch), then works in passes over
 * the list: wake every body (as the one-body setters do, in list order),
 * write the poses, write the velocities. The result is bitwise that of a
 * loop of one-body setters; what makes it cheaper is the broadphase: the
 * one-body setter takes each shape's proxy out of the movable tree and
 * inserts it again (a walk down the tree and rotations back up, per shape),
 * while here each proxy gets its new box in place and the marked part of
 * the tree is refitted once at the end (and rebuilt when it has drifted),
 * as a step does with the proxies its bodies moved. The fat boxes and the
 * move buffer's shapes are the same either way, and new pairs are sorted
 * before they become contacts, so the tree's shape never reaches the
 * simulation. */
#include "api/body_access.h"
#include "base/array.h"
#include "collide/broadphase.h"
#include "tessera/tessera.h"


/* Body k's float at byte offset k * stride from base. */
static inline float *element(float *base, size_t stride, int k) { return (float *)((char *)base + (size_t)k * stride); }

static ts_vec3 read_vec3(const ts_vec3_array *a, int k)
{
    return ts_v3(*element(a->x, a->stride, k), *element(a->y, a->stride, k), *element(a->z, a->stride, k));
}

static void write_vec3(const ts_vec3_array *a, int k, ts_vec3 v)
{
    *element(a->x, a->stride, k) = v.x;
    *element(a->y, a->stride, k) = v.y;
    *element(a->z, a->stride, k) = v.z;
}

static ts_quat read_quat(const ts_quat_array *a, int k)
{
    return (ts_quat){*element(a->x, a->stride, k), *element(a->y, a->stride, k), *element(a->z, a->stride, k),
                     *element(a->w, a->stride, k)};
}

static void write_quat(const ts_quat_array *a, int k, ts_quat q)
{
    *element(a->x, a->stride, k) = q.x;
    *element(a->y, a->stride, k) = q.y;
    *element(a->z, a->stride, k) = q.z;
    *element(a->w, a->stride, k) = q.w;
}

/* ---- checks ---- */

/* A quantity is used when x is set; then every component must be. */
static ts_result check_components(const char *fn, const char *name, const float *x, const float *y, const float *z,
                                  const float *w, bool has_w)
{
    bool any = y != NULL || z != NULL || (has_w && w != NULL);
    bool all = y != NULL && z != NULL && (!has_w || w != NULL);
    if (x == NULL && any) {
        return ts_fail(TS_ERROR_NULL_POINTER, fn, "states->%s.x is NULL but another component is set", name);
    }
    if (x != NULL && !all) {
        return ts_fail(TS_ERROR_NULL_POINTER, fn, "states->%s.x is set but another component is NULL", name);
    }
    return TS_OK;
}

static ts_result check_arrays(const ts_body_state_arrays *s, const char *fn)
{
    if (s == NULL) {
        return ts_fail(TS_ERROR_NULL_POINTER, fn, "states is NULL");
    }
    TS_TRY(check_components(fn, "position", s->position.x, s->position.y, s->position.z, NULL, false));
    TS_TRY(check_components(fn, "rotation", s->rotation.x, s->rotation.y, s->rotation.z, s->rotation.w, true));
    TS_TRY(check_components(fn, "linear_velocity", s->linear_velocity.x, s->linear_velocity.y,
                            s->linear_velocity.z, NULL, false));
    return check_components(fn, "angular_velocity", s->angular_velocity.x, s->angular_velocity.y,
                            s->angular_velocity.z, NULL, false);
}

static ts_result check_list(const ts_body_id *bodies, int count, const char *fn)
{
    if (count < 0) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, fn, "count is %d (must be >= 0)", count);
    }
    if (count > 0 && bodies == NULL) {
        return ts_fail(TS_ERROR_NULL_POINTER, fn, "bodies is NULL with count %d", count);
    }
    return TS_OK;
}

/* Whether list entry k names a live body of this world. */
static ts_result check_id(ts_world *world, ts_body_id id, int k, const char *fn)
{
    if (id.index1 <= 0) {
        return ts_fail(TS_ERROR_STALE_ID, fn, "bodies[%d] is the null id", k);
    }
    if (id.world0 != world->records.world_index || id.world_generation != world->records.world_generation) {
        return ts_fail(TS_ERROR_WRONG_WORLD, fn, "bodies[%d] belongs to another world (slot %u)", k,
                       (unsigned)id.world0);
    }
    ts_world *owner;
    if (ts_body_lookup(id, &owner, fn) == NULL) {
        return ts_fail(TS_ERROR_STALE_ID, fn, "bodies[%d] is stale: the body was destroyed (or never made)", k);
    }
    return TS_OK;
}

static ts_result check_ids(ts_world *world, const ts_body_id *bodies, int count, const char *fn)
{
    for (int k = 0; k < count; ++k) {
        TS_TRY(check_id(world, bodies[k], k, fn));
    }
    return TS_OK;
}

static ts_result check_vec3_at(ts_vec3 v, int k, const char *fn, const char *name)
{
    if (!ts_vec3_is_finite(v)) {
        return ts_fail(TS_ERROR_NOT_FINITE, fn, "states->%s of body %d has a NaN or infinite component (%g, %g, %g)",
                       name, k, (double)v.x, (double)v.y, (double)v.z);
    }
    return TS_OK;
}

/* The one-body setters' checks of element k, for body b. */
static ts_result check_values(const ts_body *b, const ts_body_state_arrays *s, int k, const char *fn)
{
    if (s->position.x != NULL) {
        TS_TRY(check_vec3_at(read_vec3(&s->position, k), k, fn, "position"));
    }
    if (s->rotation.x != NULL) { /* what ts_check_rotation accepts, the message naming the body */
        ts_quat q = read_quat(&s->rotation, k);
        if (!ts_quat_is_finite(q)) {
            return ts_fail(TS_ERROR_NOT_FINITE, fn, "states->rotation of body %d has a NaN or infinite component", k);
        }
        float length = sqrtf(ts_quat_length_sq(q));
        if (!(length > 0.99f && length < 1.01f)) {
            return ts_fail(TS_ERROR_OUT_OF_RANGE, fn,
                           "states->rotation of body %d is not a unit quaternion (length %g; must be within 1%% of 1)",
                           k, (double)length);
        }
    }
    const ts_vec3_array *velocities[2] = {&s->linear_velocity, &s->angular_velocity};
    const char *names[2] = {"linear_velocity", "angular_velocity"};
    for (int v = 0; v < 2; ++v) {
        if (velocities[v]->x == NULL) {
            continue;
        }
        ts_vec3 value = read_vec3(velocities[v], k);
        TS_TRY(check_vec3_at(value, k, fn, names[v]));
        if (b->type == TS_BODY_STATIC && !ts_vec3_is_zero(value)) {
            return ts_fail(TS_ERROR_INVALID_OPERATION, fn, "states->%s of body %d: a static body cannot have a velocity",
                           names[v], k);
        }
    }
    return TS_OK;
}

/* ---- the passes of a setter ---- */

typedef struct body_list {
    const ts_body_id *ids; /* the listed ids, or NULL: the first `count` awake slots (resolved before waking) */
    int count;
} body_list;

static int32_t list_index(const ts_world *world, const body_list *list, int k)
{
    return list->ids != NULL ? list->ids[k].index1 - 1 : world->records.store.table.id_of_slot[k];
}

/* Room for every listed shape in the move buffer and for the tree's
 * rebuild, so that the writing passes cannot fail. */
static ts_result reserve_moves(ts_world *world, const body_list *list, const char *fn)
{
    ts_records *r = &world->records;
    ts_broadphase *bp = &world->collision.broadphase;
    int64_t shapes = bp->move_count;
    for (int k = 0; k < list->count; ++k) {
        shapes += r->bodies[list_index(world, list, k)].shape_count;
    }
    if (shapes > INT32_MAX / 2 ||
        !ts_array_reserve(&r->allocator, (void **)&bp->move_buffer, &bp->move_capacity, (int32_t)shapes,
                          sizeof(int32_t)) ||
        !ts_tree_reserve_rebuild(&bp->trees[TS_TREE_MOVABLE])) {
        return ts_fail(TS_ERROR_OUT_OF_MEMORY, fn, "the allocator returned NULL (broadphase)");
    }
    return TS_OK;
}

/* The new origin pose of body k: the given position and rotation, or the
 * body's for one not given (the same arithmetic as the one-body setters). */
static ts_transform new_origin(ts_world *world, int32_t body, const ts_body_state_arrays *s, int k)
{
    ts_transform origin = {{0, 0, 0}, {0, 0, 0, 1}};
    if (s->position.x == NULL || s->rotation.x == NULL) {
        origin = ts_body_origin_transform(world, body);
    }
    if (s->position.x != NULL) {
        origin.p = read_vec3(&s->position, k);
    }
    if (s->rotation.x != NULL) {
        ts_check_rotation(read_quat(&s->rotation, k), &origin.q, "", ""); /* passed before: normalises alone */
    }
    return origin;
}

/* A moved body's shapes: new fat boxes (as ts_body_refresh_proxies), the
 * movable tree's proxies marked in place for one refit at the end, the
 * static tree's moved one by one (a static body moved by hand is rare). */
static void move_shapes(ts_records *r, ts_broadphase *bp, int32_t body)
{
    for (int32_t sh = r->bodies[body].first_shape; sh != -1; sh = r->shapes[sh].next) {
        ts_shape *s = r->shapes + sh;
        float margin = s->tree == TS_TREE_STATIC ? 0.0f : TS_AABB_MARGIN;
        s->fat_aabb = ts_aabb_enlarge(ts_shape_compute_aabb(r, sh), margin);
        if (s->proxy >= 0) {
            if (s->tree == TS_TREE_MOVABLE) {
                ts_tree_enlarge_proxy_deferred(&bp->trees[TS_TREE_MOVABLE], s->proxy, s->fat_aabb, false);
            } else {
                ts_tree_move_proxy(&bp->trees[s->tree], s->proxy, s->fat_aabb);
            }
        }
        ts_shape_buffer_move(r, bp, sh, "ts_world_set_body_states"); /* room reserved: cannot fail */
    }
    ts_body_sync_bounds(r, body);
}

static ts_result write_states(ts_world *world, const body_list *list, const ts_body_state_arrays *s, const char *fn)
{
    ts_records *r = &world->records;
    bool poses = s->position.x != NULL || s->rotation.x != NULL;
    bool velocities = s->linear_velocity.x != NULL || s->angular_velocity.x != NULL;
    if (!poses && !velocities) {
        return TS_OK;
    }
    if (poses) {
        TS_TRY(reserve_moves(world, list, fn));
    }
    /* Waking may move the woken bodies' slots (never those below the awake
     * range's end), so the awake list is the slots read before. */
    for (int k = 0; k < list->count; ++k) {
        TS_TRY(ts_wake_body(r, &world->islands, &world->graph, list_index(world, list, k), fn));
    }
    ts_body_store *store = &r->store;
    ts_broadphase *bp = &world->collision.broadphase;
    for (int k = 0; k < list->count && poses; ++k) {
        int32_t body = list_index(world, list, k);
        ts_body_set_origin_transform(world, body, new_origin(world, body, s, k));
        move_shapes(r, bp, body);
    }
    if (poses && ts_tree_refit_enlarged(&bp->trees[TS_TREE_MOVABLE])) {
        ts_tree_rebuild(&bp->trees[TS_TREE_MOVABLE], false); /* scratch reserved: cannot fail */
    }
    for (int k = 0; k < list->count && velocities; ++k) {
        int32_t i = store->table.slot_of_id[list_index(world, list, k)];
        if (s->linear_velocity.x != NULL) {
            store_vec3(store->vx, store->vy, store->vz, i, read_vec3(&s->linear_velocity, k));
        }
        if (s->angular_velocity.x != NULL) {
            store_vec3(store->wx, store->wy, store->wz, i, read_vec3(&s->angular_velocity, k));
        }
    }
    return TS_OK;
}

/* ---- reading ---- */

static void read_states(ts_world *world, int32_t body, const ts_body_state_arrays *s, int k)
{
    const ts_body_store *store = &world->records.store;
    int32_t i = store->table.slot_of_id[body];
    if (s->position.x != NULL || s->rotation.x != NULL) {
        ts_transform origin = ts_body_origin_transform(world, body);
        if (s->position.x != NULL) {
            write_vec3(&s->position, k, origin.p);
        }
        if (s->rotation.x != NULL) {
            write_quat(&s->rotation, k, origin.q);
        }
    }
    if (s->linear_velocity.x != NULL) {
        write_vec3(&s->linear_velocity, k, load_vec3(store->vx, store->vy, store->vz, i));
    }
    if (s->angular_velocity.x != NULL) {
        write_vec3(&s->angular_velocity, k, load_vec3(store->wx, store->wy, store->wz, i));
    }
}

/* ---- the public functions ---- */

ts_result ts_world_get_body_states(ts_world_id id, const ts_body_id *bodies, int count,
                                   const ts_body_state_arrays *states)
{
    TS_TRY(check_arrays(states, __func__));
    TS_TRY(check_list(bodies, count, __func__));
    ts_world *world = ts_world_lookup(id, __func__);
    if (world == NULL) {
        return TS_ERROR_STALE_ID;
    }
    TS_TRY(check_ids(world, bodies, count, __func__));
    for (int k = 0; k < count; ++k) {
        read_states(world, bodies[k].index1 - 1, states, k);
    }
    return TS_OK;
}

ts_result ts_world_set_body_states(ts_world_id id, const ts_body_id *bodies, int count,
                                   const ts_body_state_arrays *states)
{
    TS_TRY(check_arrays(states, __func__));
    TS_TRY(check_list(bodies, count, __func__));
    ts_world *world = ts_world_lookup(id, __func__);
    if (world == NULL) {
        return TS_ERROR_STALE_ID;
    }
    TS_TRY(check_ids(world, bodies, count, __func__));
    for (int k = 0; k < count; ++k) {
        TS_TRY(check_values(world->records.bodies + (bodies[k].index1 - 1), states, k, __func__));
    }
    body_list list = {bodies, count};
    return write_states(world, &list, states, __func__);
}

ts_result ts_world_get_awake_body_states(ts_world_id id, ts_body_id *ids, int capacity, int *count,
                                         const ts_body_state_arrays *states)
{
    TS_CHECK_NOT_NULL(count, __func__);
    TS_TRY(check_arrays(states, __func__));
    if (capacity < 0) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, __func__, "capacity is %d (must be >= 0)", capacity);
    }
    ts_world *world = ts_world_lookup(id, __func__);
    if (world == NULL) {
        return TS_ERROR_STALE_ID;
    }
    const ts_soa_table *table = &world->records.store.table;
    int awake = table->end[TS_RANGE_AWAKE];
    int n = awake < capacity ? awake : capacity;
    for (int k = 0; k < n; ++k) {
        int32_t body = table->id_of_slot[k];
        read_states(world, body, states, k);
        if (ids != NULL) {
            ids[k] = ts_body_id_of(&world->records, body);
        }
    }
    *count = awake;
    return TS_OK;
}

ts_result ts_world_set_awake_body_states(ts_world_id id, const ts_body_id *ids, int count,
                                         const ts_body_state_arrays *states)
{
    TS_TRY(check_arrays(states, __func__));
    ts_world *world = ts_world_lookup(id, __func__);
    if (world == NULL) {
        return TS_ERROR_STALE_ID;
    }
    const ts_soa_table *table = &world->records.store.table;
    int awake = table->end[TS_RANGE_AWAKE];
    if (count != awake) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, __func__, "count is %d but %d bodies are awake", count, awake);
    }
    for (int k = 0; k < count; ++k) {
        int32_t body = table->id_of_slot[k];
        if (ids != NULL && !ts_body_id_equals(ids[k], ts_body_id_of(&world->records, body))) {
            return ts_fail(TS_ERROR_INVALID_OPERATION, __func__,
                           "ids[%d] is not the awake body %d any more (the awake range changed since it was read)", k,
                           k);
        }
        TS_TRY(check_values(world->records.bodies + body, states, k, __func__));
    }
    body_list list = {NULL, count};
    return write_states(world, &list, states, __func__);
}
