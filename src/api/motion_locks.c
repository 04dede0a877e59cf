/* Motion locks: the public setter and getter, and the store's locks column
 * kept equal to the locks in effect (see api/motion_locks.h and
 * tessera/motion_locks.h; the solver applies them: solver/lock_lanes.h). */
#include "api/motion_locks.h"

#include "api/body_access.h"
#include "tessera/motion_locks.h"
#include "tessera/tessera.h"

ts_result ts_check_motion_locks(uint32_t locks, ts_body_type type, const char *fn, const char *name)
{
    if ((locks & ~TS_LOCK_ALL) != 0) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, fn, "%s is 0x%x (bits outside TS_LOCK_ALL, 0x3f)", name,
                       (unsigned)locks);
    }
    if (locks != 0 && type == TS_BODY_STATIC) {
        return ts_fail(TS_ERROR_INVALID_OPERATION, fn,
                       "%s is 0x%x on a static body (it never moves: a lock would mean nothing)", name,
                       (unsigned)locks);
    }
    return TS_OK;
}

uint32_t ts_body_motion_locks(const ts_world *world, int32_t index)
{
    const ts_body *b = world->records.bodies + index;
    if (b->type == TS_BODY_STATIC) {
        return 0u;
    }
    uint32_t planar = world->planar && b->type == TS_BODY_DYNAMIC ? TS_LOCK_PLANAR : 0u;
    return b->motion_locks | planar;
}

void ts_body_apply_motion_locks(ts_world *world, int32_t index)
{
    ts_body_store *s = &world->records.store;
    int32_t i = s->table.slot_of_id[index];
    uint32_t locks = ts_body_motion_locks(world, index);
    if ((uint32_t)s->locks[i] == locks) {
        return;
    }
    ts_body_store_set_locks(s, i, locks);
    /* the locked components of the velocity are zero from now on */
    float *v[6] = {s->vx, s->vy, s->vz, s->wx, s->wy, s->wz};
    for (int k = 0; k < 6; ++k) {
        if ((locks >> k & 1u) != 0) {
            v[k][i] = 0.0f;
        }
    }
    /* the world inverse inertia that joints keep across steps changes */
    s->table.revision += 1;
}

ts_result ts_body_set_motion_locks(ts_body_id id, uint32_t locks)
{
    BODY_LOOKUP(id, world, b);
    TS_TRY(ts_check_motion_locks(locks, b->type, __func__, "locks"));
    int32_t index = (int32_t)(b - world->records.bodies);
    TS_TRY(ts_wake_body(&world->records, &world->islands, &world->graph, index, __func__));
    b->motion_locks = locks;
    ts_body_apply_motion_locks(world, index);
    return TS_OK;
}

ts_result ts_body_get_motion_locks(ts_body_id id, uint32_t *locks)
{
    TS_CHECK_NOT_NULL(locks, __func__);
    BODY_LOOKUP(id, world, b);
    *locks = ts_body_motion_locks(world, (int32_t)(b - world->records.bodies));
    return TS_OK;
}
