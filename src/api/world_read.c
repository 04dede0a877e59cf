/* What a world reports: its counters, the last step's profile, and its
 * bodies' transforms in bulk (for backends that copy every pose each step). */
#include "api/body_mass.h"
#include "api/lookup.h"
#include "base/validate.h"
#include "tessera/tessera.h"

ts_result ts_world_get_counters(ts_world_id id, ts_world_counters *counters)
{
    TS_CHECK_NOT_NULL(counters, __func__);
    ts_world *world = ts_world_lookup(id, __func__);
    if (world == NULL) {
        return TS_ERROR_STALE_ID;
    }
    const ts_body_store *s = &world->records.store;
    *counters = (ts_world_counters){
        .body_count = s->table.count,
        .awake_body_count = s->table.end[TS_RANGE_AWAKE],
        .static_body_count = s->table.count - s->table.end[TS_RANGE_SLEEPING],
        .shape_count = ts_id_pool_live_count(&world->records.shape_ids),
        .step_count = world->step_count,
        .thread_count = world->thread_count,
        .simd_width = world->solver.simd_width,
        .contact_count = world->records.contact_store.table.count,
    };
    for (int c = 0; c < TS_GRAPH_COLOR_COUNT; ++c) {
        counters->color_counts[c] = world->graph.colors[c].count;
    }
    counters->overflow_count = world->graph.colors[TS_OVERFLOW_COLOR].count;
    counters->island_count = ts_id_pool_live_count(&world->islands.ids);
    counters->awake_island_count = world->islands.awake_count;
    const ts_soa_table *contacts = &world->records.contact_store.table;
    counters->sleeping_contact_count = contacts->count - contacts->end[TS_CONTACT_RANGE_AWAKE];
    counters->narrowphase_pairs = world->collision.narrowphase_pairs;
    const ts_contact_store *cs = &world->records.contact_store;
    for (int32_t i = 0; i < cs->table.count; ++i) {
        counters->touching_count += (cs->flags[i] & TS_CONTACT_TOUCHING) != 0;
        counters->point_count += cs->point_count[i];
    }
    return TS_OK;
}

ts_result ts_world_get_profile(ts_world_id id, ts_step_profile *profile)
{
    TS_CHECK_NOT_NULL(profile, __func__);
    ts_world *world = ts_world_lookup(id, __func__);
    if (world == NULL) {
        return TS_ERROR_STALE_ID;
    }
    *profile = world->profile;
    return TS_OK;
}

ts_result ts_world_get_awake_transforms(ts_world_id id, ts_body_id *ids, ts_transform *transforms, int capacity,
                                        int *count)
{
    TS_CHECK_NOT_NULL(count, __func__);
    TS_TRY(ts_check_output_array(transforms, capacity, __func__, "transforms"));
    ts_world *world = ts_world_lookup(id, __func__);
    if (world == NULL) {
        return TS_ERROR_STALE_ID;
    }
    const ts_body_store *s = &world->records.store;
    int awake = s->table.end[TS_RANGE_AWAKE];
    int n = awake < capacity ? awake : capacity;
    for (int i = 0; i < n; ++i) {
        int32_t body = s->table.id_of_slot[i];
        transforms[i] = ts_body_origin_transform(world, body);
        if (ids != NULL) {
            ids[i] = ts_body_id_of(&world->records, body);
        }
    }
    *count = awake;
    return TS_OK;
}

ts_result ts_world_get_body_transforms(ts_world_id id, const ts_body_id *bodies, int count, ts_transform *transforms)
{
    TS_CHECK_NOT_NULL(bodies, __func__);
    TS_CHECK_NOT_NULL(transforms, __func__);
    if (count < 0) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, __func__, "count is %d (must be >= 0)", count);
    }
    ts_world *world = ts_world_lookup(id, __func__);
    if (world == NULL) {
        return TS_ERROR_STALE_ID;
    }
    /* Check every id first, so that a failure writes nothing. */
    for (int i = 0; i < count; ++i) {
        if (bodies[i].index1 <= 0) {
            return ts_fail(TS_ERROR_STALE_ID, __func__, "bodies[%d] is the null id", i);
        }
        if (bodies[i].world0 != world->records.world_index ||
            bodies[i].world_generation != world->records.world_generation) {
            return ts_fail(TS_ERROR_WRONG_WORLD, __func__, "bodies[%d] belongs to another world (slot %u)", i,
                           (unsigned)bodies[i].world0);
        }
        ts_world *owner;
        if (ts_body_lookup(bodies[i], &owner, __func__) == NULL) {
            return ts_fail(TS_ERROR_STALE_ID, __func__, "bodies[%d] is stale: the body was destroyed", i);
        }
    }
    for (int i = 0; i < count; ++i) {
        transforms[i] = ts_body_origin_transform(world, bodies[i].index1 - 1);
    }
    return TS_OK;
}
