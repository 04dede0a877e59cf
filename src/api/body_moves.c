/* Body move events (tessera/body_moves.h): the switch and the list the
 * step wrote (step/step.c: each awake body's entry in its finish, the ones
 * that fell asleep marked after the sleep stage). */
#include "api/world.h"

#include "base/array.h"
#include "base/validate.h"
#include "tessera/tessera.h"

ts_result ts_world_enable_body_moves(ts_world_id id, bool enable)
{
    ts_world *world = ts_world_lookup(id, __func__);
    if (world == NULL) {
        return TS_ERROR_STALE_ID;
    }
    world->moves.on = enable;
    world->moves.count = 0;
    if (!enable) { /* the memory goes back; turning on again reserves it in the next step */
        ts_array_free(&world->records.allocator, (void **)&world->moves.events, &world->moves.capacity,
                      sizeof(ts_body_move_event));
    }
    return TS_OK;
}

ts_result ts_world_get_body_moves(ts_world_id id, ts_body_moves *moves)
{
    TS_CHECK_NOT_NULL(moves, __func__);
    ts_world *world = ts_world_lookup(id, __func__);
    if (world == NULL) {
        return TS_ERROR_STALE_ID;
    }
    if (!world->moves.on) {
        return ts_fail(TS_ERROR_INVALID_OPERATION, __func__,
                       "the world does not list body moves (ts_world_enable_body_moves first)");
    }
    *moves = (ts_body_moves){world->moves.events, world->moves.count};
    return TS_OK;
}
