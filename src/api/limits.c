/* The world's speed limits (tessera/limits.h): set and read between steps.
 * The step enforces them in the integrators (solver/speed_lanes.h); the
 * bounds every call checks are in base/bounds.h. */
#include "api/world.h"

#include "base/bounds.h"
#include "tessera/tessera.h"

ts_result ts_world_set_speed_limits(ts_world_id id, float max_linear_speed, float max_rotation)
{
    TS_TRY(ts_check_speed_limits(max_linear_speed, max_rotation, __func__, "max_linear_speed", "max_rotation"));
    ts_world *world = ts_world_lookup(id, __func__);
    if (world == NULL) {
        return TS_ERROR_STALE_ID;
    }
    world->solver.max_linear_speed = max_linear_speed;
    world->solver.max_rotation = max_rotation;
    return TS_OK;
}

ts_result ts_world_get_speed_limits(ts_world_id id, float *max_linear_speed, float *max_rotation)
{
    TS_CHECK_NOT_NULL(max_linear_speed, __func__);
    TS_CHECK_NOT_NULL(max_rotation, __func__);
    ts_world *world = ts_world_lookup(id, __func__);
    if (world == NULL) {
        return TS_ERROR_STALE_ID;
    }
    *max_linear_speed = world->solver.max_linear_speed;
    *max_rotation = world->solver.max_rotation;
    return TS_OK;
}
