/* A body's motion as the API shows it: its origin pose (get and set), its
 * velocities, and the forces and impulses applied to it. The SoA store
 * holds the simulation frame (centre of mass, principal axes); these
 * functions translate. */
#include "api/body_mass.h"

#include "api/body_access.h"
#include "collide/broadphase.h"
#include "tessera/tessera.h"

/* ---- pose ---- */

ts_result ts_body_get_position(ts_body_id id, ts_vec3 *position)
{
    TS_CHECK_NOT_NULL(position, __func__);
    BODY_LOOKUP(id, world, b);
    *position = ts_body_origin_transform(world, (int32_t)(b - world->records.bodies)).p;
    return TS_OK;
}

ts_result ts_body_get_rotation(ts_body_id id, ts_quat *rotation)
{
    TS_CHECK_NOT_NULL(rotation, __func__);
    BODY_LOOKUP(id, world, b);
    *rotation = ts_body_origin_transform(world, (int32_t)(b - world->records.bodies)).q;
    return TS_OK;
}

ts_result ts_body_get_transform(ts_body_id id, ts_transform *transform)
{
    TS_CHECK_NOT_NULL(transform, __func__);
    BODY_LOOKUP(id, world, b);
    *transform = ts_body_origin_transform(world, (int32_t)(b - world->records.bodies));
    return TS_OK;
}

ts_result ts_body_set_transform(ts_body_id id, ts_vec3 position, ts_quat rotation)
{
    ts_quat q;
    TS_TRY(ts_check_components(position, TS_MAX_EXTENT, "TS_MAX_EXTENT", __func__, "position"));
    TS_TRY(ts_check_rotation(rotation, &q, __func__, "rotation"));
    BODY_LOOKUP(id, world, b);
    int32_t index = (int32_t)(b - world->records.bodies);
    TS_TRY(ts_wake_body(&world->records, &world->islands, &world->graph, index, __func__));
    ts_body_set_origin_transform(world, index, (ts_transform){position, q});
    return ts_body_refresh_proxies(&world->records, &world->collision.broadphase, index, __func__);
}

ts_result ts_body_set_position(ts_body_id id, ts_vec3 position)
{
    TS_TRY(ts_check_components(position, TS_MAX_EXTENT, "TS_MAX_EXTENT", __func__, "position"));
    BODY_LOOKUP(id, world, b);
    int32_t index = (int32_t)(b - world->records.bodies);
    TS_TRY(ts_wake_body(&world->records, &world->islands, &world->graph, index, __func__));
    ts_transform origin = ts_body_origin_transform(world, index);
    origin.p = position;
    ts_body_set_origin_transform(world, index, origin);
    return ts_body_refresh_proxies(&world->records, &world->collision.broadphase, index, __func__);
}

ts_result ts_body_set_rotation(ts_body_id id, ts_quat rotation)
{
    ts_quat q;
    TS_TRY(ts_check_rotation(rotation, &q, __func__, "rotation"));
    BODY_LOOKUP(id, world, b);
    int32_t index = (int32_t)(b - world->records.bodies);
    TS_TRY(ts_wake_body(&world->records, &world->islands, &world->graph, index, __func__));
    ts_transform origin = ts_body_origin_transform(world, index);
    origin.q = q;
    ts_body_set_origin_transform(world, index, origin);
    return ts_body_refresh_proxies(&world->records, &world->collision.broadphase, index, __func__);
}

ts_result ts_body_get_world_center_of_mass(ts_body_id id, ts_vec3 *center)
{
    TS_CHECK_NOT_NULL(center, __func__);
    BODY_LOOKUP(id, world, b);
    const ts_body_store *s = &world->records.store;
    *center = load_vec3(s->px, s->py, s->pz, b_slot);
    return TS_OK;
}

/* ---- velocity ---- */

ts_result ts_body_get_linear_velocity(ts_body_id id, ts_vec3 *velocity)
{
    TS_CHECK_NOT_NULL(velocity, __func__);
    BODY_LOOKUP(id, world, b);
    const ts_body_store *s = &world->records.store;
    *velocity = load_vec3(s->vx, s->vy, s->vz, b_slot);
    return TS_OK;
}

ts_result ts_body_get_angular_velocity(ts_body_id id, ts_vec3 *velocity)
{
    TS_CHECK_NOT_NULL(velocity, __func__);
    BODY_LOOKUP(id, world, b);
    const ts_body_store *s = &world->records.store;
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
    BODY_LOOKUP(id, world, b);
    TS_TRY(check_can_move(b, velocity, __func__));
    TS_TRY(check_linear_speed(world, velocity, __func__, "velocity"));
    TS_TRY(wake(world, b, &b_slot, __func__));
    ts_body_store *s = &world->records.store;
    store_vec3(s->vx, s->vy, s->vz, b_slot, velocity);
    /* a fast body's next step must find the pairs it reaches */
    int32_t body = (int32_t)(b - world->records.bodies);
    return ts_body_sweep_proxies(&world->records, &world->collision.broadphase, body, world->step_dt, __func__);
}

ts_result ts_body_set_angular_velocity(ts_body_id id, ts_vec3 velocity)
{
    TS_TRY(ts_check_finite_vec3(velocity, __func__, "velocity"));
    BODY_LOOKUP(id, world, b);
    TS_TRY(check_can_move(b, velocity, __func__));
    TS_TRY(check_angular_speed(velocity, __func__, "velocity"));
    TS_TRY(wake(world, b, &b_slot, __func__));
    ts_body_store *s = &world->records.store;
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

/* The accumulated force and torque with these added, checked against
 * TS_MAX_FORCE before anything changes (e.g. 1e30 N at a lever arm of
 * 1e30 m would overflow). */
static ts_result sum_force(const ts_world *world, int32_t i, ts_vec3 force, ts_vec3 torque, ts_vec3 *f, ts_vec3 *t,
                           const char *fn)
{
    const ts_body_store *s = &world->records.store;
    *f = ts_add(load_vec3(s->fx, s->fy, s->fz, i), force);
    *t = ts_add(load_vec3(s->tx, s->ty, s->tz, i), torque);
    TS_TRY(ts_check_sum(*f, true, TS_MAX_FORCE, "TS_MAX_FORCE", fn, "the accumulated force"));
    return ts_check_sum(*t, true, TS_MAX_FORCE, "TS_MAX_FORCE", fn, "the accumulated torque");
}

/* The velocities after an impulse, checked against the world's
 * max_linear_speed and TS_MAX_ANGULAR_SPEED before anything changes. */
static ts_result sum_impulse(const ts_world *world, int32_t i, ts_vec3 linear, ts_vec3 angular, ts_vec3 *v, ts_vec3 *w,
                             const char *fn)
{
    const ts_body_store *s = &world->records.store;
    *v = ts_mul_add(load_vec3(s->vx, s->vy, s->vz, i), s->inv_mass[i], linear);
    *w = ts_add(load_vec3(s->wx, s->wy, s->wz, i), apply_inv_inertia(s, i, angular));
    TS_TRY(ts_check_sum(*v, false, world->solver.max_linear_speed, "the world's max_linear_speed", fn,
                        "the resulting velocity"));
    return ts_check_sum(*w, false, TS_MAX_ANGULAR_SPEED, "TS_MAX_ANGULAR_SPEED", fn, "the resulting angular velocity");
}

static ts_vec3 lever_arm(const ts_world *world, int32_t i, ts_vec3 point)
{
    const ts_body_store *s = &world->records.store;
    return ts_sub(point, load_vec3(s->px, s->py, s->pz, i));
}

/* Adds force and torque (a dynamic body; others ignore forces and the call
 * succeeds): checked first, then the body wakes, then they are stored. */
static ts_result add_force(ts_world *world, ts_body *b, ts_vec3 force, ts_vec3 torque, const char *fn)
{
    if (b->type != TS_BODY_DYNAMIC) {
        return TS_OK;
    }
    int32_t i = body_slot(world, b);
    ts_vec3 f, t;
    TS_TRY(sum_force(world, i, force, torque, &f, &t, fn));
    TS_TRY(wake(world, b, &i, fn));
    ts_body_store *s = &world->records.store;
    store_vec3(s->fx, s->fy, s->fz, i, f);
    store_vec3(s->tx, s->ty, s->tz, i, t);
    world->solver.forces_pending = true;
    return TS_OK;
}

/* Changes the velocities at once, as add_force. */
static ts_result add_impulse(ts_world *world, ts_body *b, ts_vec3 linear, ts_vec3 angular, const char *fn)
{
    if (b->type != TS_BODY_DYNAMIC) {
        return TS_OK;
    }
    int32_t i = body_slot(world, b);
    ts_vec3 v, w;
    TS_TRY(sum_impulse(world, i, linear, angular, &v, &w, fn));
    TS_TRY(wake(world, b, &i, fn));
    ts_body_store *s = &world->records.store;
    store_vec3(s->vx, s->vy, s->vz, i, v);
    store_vec3(s->wx, s->wy, s->wz, i, w);
    return TS_OK;
}

/* The point a force or impulse acts at: within TS_MAX_EXTENT. */
static ts_result check_point(ts_vec3 point, const char *fn)
{
    return ts_check_components(point, TS_MAX_EXTENT, "TS_MAX_EXTENT", fn, "point");
}

ts_result ts_body_apply_force(ts_body_id id, ts_vec3 force, ts_vec3 point)
{
    TS_TRY(ts_check_finite_vec3(force, __func__, "force"));
    TS_TRY(check_point(point, __func__));
    BODY_LOOKUP(id, world, b);
    return add_force(world, b, force, ts_cross(lever_arm(world, b_slot, point), force), __func__);
}

ts_result ts_body_apply_force_to_center(ts_body_id id, ts_vec3 force)
{
    TS_TRY(ts_check_finite_vec3(force, __func__, "force"));
    BODY_LOOKUP(id, world, b);
    return add_force(world, b, force, ts_v3(0, 0, 0), __func__);
}

ts_result ts_body_apply_torque(ts_body_id id, ts_vec3 torque)
{
    TS_TRY(ts_check_finite_vec3(torque, __func__, "torque"));
    BODY_LOOKUP(id, world, b);
    return add_force(world, b, ts_v3(0, 0, 0), torque, __func__);
}

ts_result ts_body_apply_linear_impulse(ts_body_id id, ts_vec3 impulse, ts_vec3 point)
{
    TS_TRY(ts_check_finite_vec3(impulse, __func__, "impulse"));
    TS_TRY(check_point(point, __func__));
    BODY_LOOKUP(id, world, b);
    return add_impulse(world, b, impulse, ts_cross(lever_arm(world, b_slot, point), impulse), __func__);
}

ts_result ts_body_apply_linear_impulse_to_center(ts_body_id id, ts_vec3 impulse)
{
    TS_TRY(ts_check_finite_vec3(impulse, __func__, "impulse"));
    BODY_LOOKUP(id, world, b);
    return add_impulse(world, b, impulse, ts_v3(0, 0, 0), __func__);
}

ts_result ts_body_apply_angular_impulse(ts_body_id id, ts_vec3 impulse)
{
    TS_TRY(ts_check_finite_vec3(impulse, __func__, "impulse"));
    BODY_LOOKUP(id, world, b);
    return add_impulse(world, b, ts_v3(0, 0, 0), impulse, __func__);
}
