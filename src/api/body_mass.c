/* A body's mass: the origin <-> simulation frame conversion, the mass
 * properties its shapes give it, and the columns of the store that follow
 * from them and from its damping and gravity scale (see body.h). */
#include "api/body_mass.h"

#include "api/body_access.h"
#include "api/shape.h"
#include "collide/broadphase.h"
#include "collide/mass.h"
#include "islands/sleep.h"
#include "tessera/tessera.h"

/* soa/records.h has the conversion. */
ts_transform ts_body_origin_transform(const ts_world *world, int32_t body)
{
    return ts_records_origin_transform(&world->records, body, world->records.store.table.slot_of_id[body]);
}

void ts_body_set_origin_transform(ts_world *world, int32_t body, ts_transform origin)
{
    ts_body_store *s = &world->records.store;
    const ts_mass_data *md = &world->records.bodies[body].mass_data;
    int32_t i = s->table.slot_of_id[body];
    ts_quat q = ts_quat_mul(origin.q, md->principal_rotation);
    store_vec3(s->px, s->py, s->pz, i, ts_transform_point(origin, md->center));
    s->qx[i] = q.x;
    s->qy[i] = q.y;
    s->qz[i] = q.z;
    s->qw[i] = q.w;
    world->solver.joint_scratch.ball_step = -1; /* its ball joints refill their pose and K^-1 (ball_joint.h) */
}

/* The columns the step reads for motion; zero unless dynamic, so kinematic
 * bodies move by their velocity alone and static ones never change. */
static void write_motion_columns(ts_world *world, int32_t body)
{
    ts_body_store *s = &world->records.store;
    const ts_body *b = world->records.bodies + body;
    int32_t i = s->table.slot_of_id[body];
    bool dynamic = b->type == TS_BODY_DYNAMIC;
    ts_vec3 inertia = b->mass_data.principal_inertia;
    s->inv_mass[i] = dynamic ? 1.0f / b->mass_data.mass : 0.0f;
    s->ix[i] = dynamic ? inertia.x : 0.0f;
    s->iy[i] = dynamic ? inertia.y : 0.0f;
    s->iz[i] = dynamic ? inertia.z : 0.0f;
    s->inv_ix[i] = dynamic ? 1.0f / inertia.x : 0.0f;
    s->inv_iy[i] = dynamic ? 1.0f / inertia.y : 0.0f;
    s->inv_iz[i] = dynamic ? 1.0f / inertia.z : 0.0f;
    s->linear_damping[i] = dynamic ? b->linear_damping : 0.0f;
    s->angular_damping[i] = dynamic ? b->angular_damping : 0.0f;
    s->gravity_scale[i] = dynamic ? b->gravity_scale : 0.0f;
    s->table.revision += 1; /* the mass, or the frame the joints' anchors are kept in, may have changed */
}

/* Positive, at most `bound` (tessera/limits.h: a contact's impulse, mass
 * times a bounded speed, then stays far from overflow), with a finite
 * inverse. */
static bool usable(float value, float bound)
{
    return ts_is_finite(value) && value > 0.0f && value <= bound && ts_is_finite(1.0f / value);
}

bool ts_mass_is_usable(const ts_mass_data *md)
{
    return usable(md->mass, TS_MAX_MASS) && usable(md->principal_inertia.x, TS_MAX_MASS_INERTIA) &&
           usable(md->principal_inertia.y, TS_MAX_MASS_INERTIA) &&
           usable(md->principal_inertia.z, TS_MAX_MASS_INERTIA) && ts_vec3_is_finite(md->center);
}

/* A shapeless dynamic body still moves: 1 kg, solid sphere of radius 0.5 m. */
static const ts_mass_data shapeless_mass = {1.0f, {0, 0, 0}, {0.1f, 0.1f, 0.1f}, {0, 0, 0, 1}};

bool ts_body_compute_mass_with(const ts_world *world, int32_t body, ts_body_type type, const ts_shape *extra,
                               ts_mass_data *mass_data)
{
    const ts_body *b = world->records.bodies + body;
    *mass_data = (ts_mass_data){0.0f, {0, 0, 0}, {0, 0, 0}, TS_QUAT_IDENTITY};
    if (type != TS_BODY_DYNAMIC) {
        return true;
    }
    ts_mass_accumulator acc = {0};
    bool solid = false; /* sensors have no mass */
    for (int32_t sh = b->first_shape; sh != -1; sh = world->records.shapes[sh].next) {
        const ts_shape *shape = world->records.shapes + sh;
        if (!shape->is_sensor) {
            ts_mass_accumulate(&acc, ts_shape_compute_mass(shape), shape->local);
            solid = true;
        }
    }
    if (extra != NULL && !extra->is_sensor) { /* the shape about to be added */
        ts_mass_accumulate(&acc, ts_shape_compute_mass(extra), extra->local);
        solid = true;
    }
    if (!solid) {
        *mass_data = shapeless_mass;
        return true;
    }
    *mass_data = ts_mass_finish(&acc);
    return ts_mass_is_usable(mass_data);
}

bool ts_body_compute_mass(const ts_world *world, int32_t body, ts_body_type type, ts_mass_data *mass_data)
{
    return ts_body_compute_mass_with(world, body, type, NULL, mass_data);
}

void ts_body_update_mass(ts_world *world, int32_t body)
{
    ts_body *b = world->records.bodies + body;
    ts_body_store *s = &world->records.store;
    ts_transform origin = ts_body_origin_transform(world, body);
    int32_t i = s->table.slot_of_id[body];
    ts_vec3 old_center = load_vec3(s->px, s->py, s->pz, i);

    ts_mass_data md;
    if (!ts_body_compute_mass(world, body, b->type, &md)) {
        md = shapeless_mass;
    }
    b->mass_data = md;
    /* Shapes are placed in the simulation frame, so collision reads the body
     * state without going through the origin. */
    ts_transform sim_in_body = {md.center, md.principal_rotation};
    for (int32_t sh = b->first_shape; sh != -1; sh = world->records.shapes[sh].next) {
        world->records.shapes[sh].sim_local = ts_transform_inv_mul(sim_in_body, world->records.shapes[sh].local);
    }
    ts_body_set_origin_transform(world, body, origin);

    /* The centre moved by d = new - old; a point fixed to the body moves with
     * v + w x r, so the new centre's velocity is v + w x d. */
    ts_vec3 d = ts_sub(load_vec3(s->px, s->py, s->pz, i), old_center);
    ts_vec3 w = load_vec3(s->wx, s->wy, s->wz, i);
    ts_vec3 v = ts_add(load_vec3(s->vx, s->vy, s->vz, i), ts_cross(w, d));
    store_vec3(s->vx, s->vy, s->vz, i, v);
    write_motion_columns(world, body);
    s->max_extent[i] = ts_body_max_extent(&world->records, body);
    ts_body_sync_bounds(&world->records, body);
}

/* ---- mass ---- */

ts_result ts_body_get_mass_data(ts_body_id id, ts_mass_data *mass_data)
{
    TS_CHECK_NOT_NULL(mass_data, __func__);
    BODY_LOOKUP(id, world, b);
    *mass_data = b->mass_data;
    return TS_OK;
}

ts_result ts_body_get_mass(ts_body_id id, float *mass)
{
    TS_CHECK_NOT_NULL(mass, __func__);
    BODY_LOOKUP(id, world, b);
    *mass = b->mass_data.mass;
    return TS_OK;
}

/* ---- damping, gravity scale, user data ---- */

ts_result ts_body_set_linear_damping(ts_body_id id, float damping)
{
    TS_TRY(ts_check_non_negative(damping, __func__, "damping"));
    BODY_LOOKUP(id, world, b);
    b->linear_damping = damping;
    write_motion_columns(world, (int32_t)(b - world->records.bodies));
    return TS_OK;
}

ts_result ts_body_get_linear_damping(ts_body_id id, float *damping)
{
    TS_CHECK_NOT_NULL(damping, __func__);
    BODY_LOOKUP(id, world, b);
    *damping = b->linear_damping;
    return TS_OK;
}

ts_result ts_body_set_angular_damping(ts_body_id id, float damping)
{
    TS_TRY(ts_check_non_negative(damping, __func__, "damping"));
    BODY_LOOKUP(id, world, b);
    b->angular_damping = damping;
    write_motion_columns(world, (int32_t)(b - world->records.bodies));
    return TS_OK;
}

ts_result ts_body_get_angular_damping(ts_body_id id, float *damping)
{
    TS_CHECK_NOT_NULL(damping, __func__);
    BODY_LOOKUP(id, world, b);
    *damping = b->angular_damping;
    return TS_OK;
}

ts_result ts_body_set_gravity_scale(ts_body_id id, float scale)
{
    TS_TRY(ts_check_magnitude(scale, TS_MAX_GRAVITY_SCALE, "TS_MAX_GRAVITY_SCALE", __func__, "scale"));
    BODY_LOOKUP(id, world, b);
    TS_TRY(wake(world, b, &b_slot, __func__));
    b->gravity_scale = scale;
    write_motion_columns(world, (int32_t)(b - world->records.bodies));
    return TS_OK;
}

ts_result ts_body_get_gravity_scale(ts_body_id id, float *scale)
{
    TS_CHECK_NOT_NULL(scale, __func__);
    BODY_LOOKUP(id, world, b);
    *scale = b->gravity_scale;
    return TS_OK;
}
