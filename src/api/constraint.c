/* Custom constraints: the public functions of tessera/constraint.h. A custom
 * constraint is a joint of type TS_JOINT_CUSTOM (made by joint.c's
 * ts_joint_create, so it links islands, takes a colour and goes with its
 * bodies like any joint); the solvers run its rows in
 * solver/custom_constraint.c. */
#include "api/joint.h"
#include "api/lookup.h"
#include "base/validate.h"
#include "tessera/tessera.h"

ts_custom_constraint_def ts_default_custom_constraint_def(void)
{
    return (ts_custom_constraint_def){.row_count = 1, .internal_value = TS_DEF_COOKIE};
}

ts_joint_id ts_create_custom_constraint(ts_world_id world, const ts_custom_constraint_def *def)
{
    const char *fn = __func__;
    if (def == NULL) {
        ts_fail(TS_ERROR_NULL_POINTER, fn, "def is NULL");
        return TS_NULL_JOINT_ID;
    }
    if (def->internal_value != TS_DEF_COOKIE) {
        ts_fail(TS_ERROR_UNINITIALIZED_DEF, fn, "def was not initialised with ts_default_custom_constraint_def()");
        return TS_NULL_JOINT_ID;
    }
    if (def->evaluate == NULL) {
        ts_fail(TS_ERROR_NULL_POINTER, fn, "def->evaluate is NULL (the rows' callback is required)");
        return TS_NULL_JOINT_ID;
    }
    if (def->row_count < 1 || def->row_count > TS_CONSTRAINT_MAX_ROWS) {
        ts_fail(TS_ERROR_OUT_OF_RANGE, fn, "def->row_count is %d (must be 1..%d, TS_CONSTRAINT_MAX_ROWS)",
                def->row_count, TS_CONSTRAINT_MAX_ROWS);
        return TS_NULL_JOINT_ID;
    }
    ts_joint_def base = ts_default_ball_joint_def().base;
    base.body_a = def->body_a;
    base.body_b = def->body_b;
    base.collide_connected = def->collide_connected;
    base.user_data = def->user_data;
    ts_joint_axis_settings no_axis = {0};
    ts_joint_custom custom = {def->evaluate, def->context, def->row_count, false, false};
    return ts_joint_create(world, &base, TS_JOINT_CUSTOM, &no_axis, 0.0f, &custom, fn);
}

/* The custom constraint of an id: TS_OK, TS_ERROR_STALE_ID or
 * TS_ERROR_INVALID_OPERATION (another type), the error recorded. */
static ts_result custom_lookup(ts_joint_id id, ts_world **world, ts_joint **joint, const char *fn)
{
    *joint = ts_joint_lookup(id, world, fn);
    if (*joint == NULL) {
        return TS_ERROR_STALE_ID;
    }
    if ((*joint)->type != TS_JOINT_CUSTOM) {
        return ts_fail(TS_ERROR_INVALID_OPERATION, fn, "the joint is not a custom constraint");
    }
    return TS_OK;
}

ts_result ts_custom_constraint_get_forces(ts_joint_id id, float *forces, int capacity, int *count)
{
    TS_CHECK_NOT_NULL(count, __func__);
    TS_TRY(ts_check_output_array(forces, capacity, __func__, "forces"));
    ts_world *world;
    ts_joint *j;
    TS_TRY(custom_lookup(id, &world, &j, __func__));
    /* the rows' impulses of the last substep (solver/custom_constraint.c) over that substep */
    float h = world->step_dt / (float)world->solver.substeps;
    float inv_h = h > 0.0f ? 1.0f / h : 0.0f;
    const float impulses[6] = {j->impulses.linear.x,  j->impulses.linear.y,  j->impulses.linear.z,
                               j->impulses.angular.x, j->impulses.angular.y, j->impulses.angular.z};
    for (int i = 0; i < j->custom.row_count && i < capacity; ++i) {
        forces[i] = impulses[i] * inv_h;
    }
    *count = j->custom.row_count;
    return TS_OK;
}

ts_result ts_custom_constraint_is_dropped(ts_joint_id id, bool *dropped)
{
    TS_CHECK_NOT_NULL(dropped, __func__);
    ts_world *world;
    ts_joint *j;
    TS_TRY(custom_lookup(id, &world, &j, __func__));
    *dropped = j->custom.dropped;
    return TS_OK;
}
