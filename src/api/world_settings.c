/* The checked entry to a step, and a world's settings: gravity, threads,
 * substeps, solver, sleeping. */
#include "api/world.h"
#include "api/body_fault.h"
#include "api/sensor.h"

#include "base/bounds.h"
#include "islands/sleep.h"
#include "step/step.h"
#include "tessera/tessera.h"

#include <string.h>

ts_result ts_world_step(ts_world_id id, float dt)
{
    ts_world *world = ts_world_lookup(id, __func__);
    if (world == NULL) {
        return TS_ERROR_STALE_ID;
    }
    TS_TRY(ts_check_time_step(dt, __func__));
    int step_count = world->step_count;
    float step_dt = world->step_dt;
    world->step_count += 1;
    world->step_dt = dt;
    int32_t held = -1;
    ts_result result = ts_step_world(world, dt, &held);
    if (result == TS_ERROR_OUT_OF_MEMORY) { /* the step changed nothing: it was not made */
        world->step_count = step_count;
        world->step_dt = step_dt;
        return result;
    }
    if (held >= 0) {
        ts_body_contain(world, held); /* body_fault.c */
    }
    if (result != TS_OK && result != TS_ERROR_NOT_FINITE) {
        return result;
    }
    /* A held body or a dropped custom constraint: the step ran for every
     * other body, so the sensors see it too. */
    ts_result sensed = ts_sensor_update(world);
    return result != TS_OK ? result : sensed;
}

ts_result ts_world_set_gravity(ts_world_id id, ts_vec3 gravity)
{
    TS_TRY(ts_check_gravity(gravity, __func__, "gravity"));
    ts_world *world = ts_world_lookup(id, __func__);
    if (world == NULL) {
        return TS_ERROR_STALE_ID;
    }
    world->solver.gravity = gravity;
    return TS_OK;
}

ts_result ts_world_get_gravity(ts_world_id id, ts_vec3 *gravity)
{
    TS_CHECK_NOT_NULL(gravity, __func__);
    ts_world *world = ts_world_lookup(id, __func__);
    if (world == NULL) {
        return TS_ERROR_STALE_ID;
    }
    *gravity = world->solver.gravity;
    return TS_OK;
}

ts_result ts_world_set_threads(ts_world_id id, int threads)
{
    if (threads < 0 || threads > TS_MAX_THREADS) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, __func__, "threads is %d (must be 0..%d; 0 = every core)", threads,
                       TS_MAX_THREADS);
    }
    ts_world *world = ts_world_lookup(id, __func__);
    if (world == NULL) {
        return TS_ERROR_STALE_ID;
    }
    world->thread_count = threads == 0 ? ts_available_threads() : threads;
    return TS_OK;
}

ts_result ts_world_set_substeps(ts_world_id id, int substeps)
{
    if (substeps < 1 || substeps > 64) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, __func__, "substeps is %d (must be 1..64)", substeps);
    }
    ts_world *world = ts_world_lookup(id, __func__);
    if (world == NULL) {
        return TS_ERROR_STALE_ID;
    }
    world->solver.substeps = substeps;
    return TS_OK;
}

/* A switch clears the stored impulses (contacts and joints): the first
 * step after it starts cold, as a new contact or joint does; and it marks
 * the switch for XPBD's first step (ts_solver.switched, xpbd_contact.c). */
ts_result ts_world_set_solver(ts_world_id id, ts_solver_type solver)
{
    if (solver != TS_SOLVER_SOFT_STEP && solver != TS_SOLVER_XPBD) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, __func__, "solver is %d (not a ts_solver_type)", (int)solver);
    }
    ts_world *world = ts_world_lookup(id, __func__);
    if (world == NULL) {
        return TS_ERROR_STALE_ID;
    }
    if (world->solver.type != solver) {
        ts_contact_store *s = &world->records.contact_store;
        int32_t count = s->table.count; /* the columns are NULL before the first contact: memset may not see them */
        if (count > 0) {
            memset(s->normal_impulse, 0, sizeof(float) * 4 * (size_t)count);
            memset(s->friction_impulse1, 0, sizeof(float) * (size_t)count);
            memset(s->friction_impulse2, 0, sizeof(float) * (size_t)count);
            memset(s->twist_impulse, 0, sizeof(float) * (size_t)count);
            memset(s->rolling_impulse1, 0, sizeof(float) * (size_t)count);
            memset(s->rolling_impulse2, 0, sizeof(float) * (size_t)count);
            memset(s->slip1, 0, sizeof(float) * (size_t)count);
            memset(s->slip2, 0, sizeof(float) * (size_t)count);
        }
        for (int32_t j = 0; j < world->records.joint_capacity; ++j) {
            world->records.joints[j].impulses = (ts_joint_impulses){{0, 0, 0}, {0, 0, 0}, 0, 0, 0, 0};
        }
        world->solver.type = solver;
        world->solver.switched = true;
        world->solver.joint_scratch.ball_step = -1; /* the ball bundles' impulses are gone too */
        world->solver.joint_scratch.ball_impulses_pending = false;
    }
    return TS_OK;
}

ts_result ts_world_get_solver(ts_world_id id, ts_solver_type *solver)
{
    TS_CHECK_NOT_NULL(solver, __func__);
    ts_world *world = ts_world_lookup(id, __func__);
    if (world == NULL) {
        return TS_ERROR_STALE_ID;
    }
    *solver = world->solver.type;
    return TS_OK;
}
ts_result ts_world_enable_sleep(ts_world_id id, bool enable)
{
    ts_world *world = ts_world_lookup(id, __func__);
    if (world == NULL) {
        return TS_ERROR_STALE_ID;
    }
    if (!enable) {
        TS_TRY(ts_wake_all(&world->records, &world->islands, &world->graph, __func__));
    }
    world->enable_sleep = enable;
    return TS_OK;
}
