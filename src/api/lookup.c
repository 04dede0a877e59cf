/* The checked lookups of the API: an id's world through the world slot
 * table (world.c), then its record, refused with TS_ERROR_STALE_ID and a
 * message naming the calling function when the id was never handed out or
 * its object is gone (see lookup.h). */
#include "api/lookup.h"

#include "base/error.h"
#include "base/validate.h"
#include "api/world.h"

ts_body *ts_body_lookup(ts_body_id id, ts_world **out_world, const char *function)
{
    ts_world *world = ts_world_lookup_slot(id.world0, id.world_generation, function);
    if (world == NULL) {
        return NULL;
    }
    int32_t index = id.index1 > 0 ? id.index1 - 1 : -1; /* no overflow on forged ids */
    if (index < 0 || index >= world->records.body_ids.next_index) {
        ts_fail(TS_ERROR_STALE_ID, function, "body id index %d was never handed out by this world", (int)id.index1);
        return NULL;
    }
    ts_body *body = world->records.bodies + index;
    if (!body->alive || body->generation != id.generation) {
        ts_fail(TS_ERROR_STALE_ID, function, "body id (index %d, generation %u) is stale: the body was destroyed",
                (int)id.index1, (unsigned)id.generation);
        return NULL;
    }
    *out_world = world;
    return body;
}

ts_shape *ts_shape_lookup(ts_shape_id id, ts_world **out_world, const char *function)
{
    ts_world *world = ts_world_lookup_slot(id.world0, id.world_generation, function);
    if (world == NULL) {
        return NULL;
    }
    int32_t index = id.index1 > 0 ? id.index1 - 1 : -1; /* no overflow on forged ids */
    if (index < 0 || index >= world->records.shape_ids.next_index) {
        ts_fail(TS_ERROR_STALE_ID, function, "shape id index %d was never handed out by this world", (int)id.index1);
        return NULL;
    }
    ts_shape *shape = world->records.shapes + index;
    if (!shape->alive || shape->generation != id.generation) {
        ts_fail(TS_ERROR_STALE_ID, function, "shape id (index %d, generation %u) is stale: the shape was destroyed",
                (int)id.index1, (unsigned)id.generation);
        return NULL;
    }
    *out_world = world;
    return shape;
}

ts_joint *ts_joint_lookup(ts_joint_id id, ts_world **out_world, const char *function)
{
    ts_world *world = ts_world_lookup_slot(id.world0, id.world_generation, function);
    if (world == NULL) {
        return NULL;
    }
    int32_t index = id.index1 > 0 ? id.index1 - 1 : -1;
    if (index < 0 || index >= world->records.joint_ids.next_index) {
        ts_fail(TS_ERROR_STALE_ID, function, "joint id index %d was never handed out by this world", (int)id.index1);
        return NULL;
    }
    ts_joint *joint = world->records.joints + index;
    if (!joint->alive || joint->generation != id.generation) {
        ts_fail(TS_ERROR_STALE_ID, function,
                "joint id (index %d, generation %u) is stale: the joint or one of its bodies was destroyed",
                (int)id.index1, (unsigned)id.generation);
        return NULL;
    }
    *out_world = world;
    return joint;
}

ts_result ts_list_bodies(ts_world_id id, ts_body_id *ids, int capacity, int *count, bool faulted_only,
                         const char *function)
{
    TS_CHECK_NOT_NULL(count, function);
    TS_TRY(ts_check_output_array(ids, capacity, function, "ids"));
    ts_world *world = ts_world_lookup(id, function);
    if (world == NULL) {
        return TS_ERROR_STALE_ID;
    }
    int n = 0;
    for (int32_t b = 0; b < world->records.body_ids.next_index; ++b) {
        const ts_body *body = &world->records.bodies[b];
        if (body->alive && (!faulted_only || body->faulted)) {
            if (n < capacity) {
                ids[n] = ts_body_id_of(&world->records, b);
            }
            ++n;
        }
    }
    *count = n;
    return TS_OK;
}
