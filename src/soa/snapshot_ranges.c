/* The ranges a loaded snapshot's records must keep (see snapshot_ranges.h). */
#include "soa/snapshot_ranges.h"

#include "base/math3.h"
#include "tessera/limits.h"

#include <float.h>
#include <math.h>

bool ts_unit_rotation(ts_quat q)
{
    float n = ts_quat_length_sq(q); /* NaN or infinite for a non-finite q: refused below */
    return n > 0.998f && n < 1.002f;
}

bool ts_unit_vector(ts_vec3 v)
{
    float n = ts_dot(v, v);
    return n > 0.998f && n < 1.002f;
}

static bool within(float v, float reach) { return ts_is_finite(v) && v >= -reach && v <= reach; }

bool ts_within_reach(ts_vec3 p, float reach) { return within(p.x, reach) && within(p.y, reach) && within(p.z, reach); }

float ts_shape_reach(const ts_shape *s)
{
    ts_vec3 o = s->sim_local.p;
    float size = 0.0f;
    switch (s->type) {
    case TS_SHAPE_SPHERE: size = s->geometry.sphere.radius; break;
    case TS_SHAPE_CAPSULE: size = s->geometry.capsule.half_height + s->geometry.capsule.radius; break;
    case TS_SHAPE_BOX: {
        ts_vec3 h = s->geometry.box.half_extents;
        size = h.x + h.y + h.z;
        break;
    }
    /* hulls, meshes, heightfields: the farthest point from the shape origin
     * (their blocks are loaded before anything asks) */
    case TS_SHAPE_HULL: size = s->geometry.hull.radius; break;
    case TS_SHAPE_MESH: size = s->geometry.mesh.radius; break;
    case TS_SHAPE_HEIGHTFIELD: size = s->geometry.heightfield.radius; break;
    default: size = FLT_MAX; break;
    }
    return fabsf(o.x) + fabsf(o.y) + fabsf(o.z) + size;
}

/* ---- joints ---- */

/* As the API takes a joint's frame (api/joint.c check_frame): its origin
 * within TS_MAX_OFFSET of the body's, a unit rotation. */
static bool usable_frame(ts_transform t) { return ts_within_reach(t.p, TS_MAX_OFFSET) && ts_unit_rotation(t.q); }

/* As the API takes axis settings (api/joint.c check_axis): limits, motor
 * speed and spring target within TS_MAX_JOINT_VALUE, lower <= upper (a
 * hinge's within [-pi, pi], a distance joint's >= 0), the motor force
 * within TS_MAX_FORCE, the spring within its maxima. */
static bool usable_axis(ts_joint_type type, const ts_joint_axis_settings *s)
{
    bool limits = within(s->lower, TS_MAX_JOINT_VALUE) && within(s->upper, TS_MAX_JOINT_VALUE) && s->lower <= s->upper;
    if (type == TS_JOINT_HINGE) {
        limits = limits && s->lower >= -TS_PI && s->upper <= TS_PI;
    }
    if (type == TS_JOINT_DISTANCE) {
        limits = limits && s->lower >= 0.0f;
    }
    bool motor = within(s->motor_speed, TS_MAX_JOINT_VALUE) && s->max_motor_force >= 0.0f &&
                 s->max_motor_force <= TS_MAX_FORCE;
    bool spring = s->spring_hertz >= 0.0f && s->spring_hertz <= TS_MAX_SPRING_HERTZ &&
                  s->spring_damping_ratio >= 0.0f && s->spring_damping_ratio <= TS_MAX_SPRING_DAMPING_RATIO &&
                  within(s->target, TS_MAX_JOINT_VALUE);
    return limits && motor && spring;
}

/* The largest velocity change (m/s, rad/s) a kept impulse may give a
 * dynamic body it acts on, through its mass (a force's row) or its
 * smallest principal inertia (a torque's). A solve keeps what it applied
 * last step, which moved the bodies within the speed limits (at most
 * TS_MAX_SPEED, TS_MAX_ANGULAR_SPEED): 1e15 leaves room for mass ratios
 * of 1e13 in a chain, while a warm start of 5e19 N s on a 1 kg body (the
 * fuzzer's find) made velocities whose squares overflowed in the solve. */
#define MAX_KEPT_VELOCITY_CHANGE 1.0e15f

bool ts_usable_impulse(const ts_records *records, const int32_t bodies[2], float impulse, bool angular)
{
    if (!within(impulse, TS_MAX_FORCE)) {
        return false;
    }
    for (int side = 0; side < 2; ++side) {
        const ts_body *b = records->bodies + bodies[side];
        if (b->type != TS_BODY_DYNAMIC) {
            continue;
        }
        ts_vec3 i = b->mass_data.principal_inertia;
        float least = i.x < i.y ? i.x : i.y;
        least = least < i.z ? least : i.z;
        float m = angular ? least : b->mass_data.mass;
        if (!(impulse <= MAX_KEPT_VELOCITY_CHANGE * m && -impulse <= MAX_KEPT_VELOCITY_CHANGE * m)) {
            return false;
        }
    }
    return true;
}

static bool check_impulses(ts_reader *r, const ts_records *records, const ts_joint *j, int32_t index)
{
    const int32_t bodies[2] = {j->edges[0].body, j->edges[1].body};
    const ts_joint_impulses *k = &j->impulses;
    bool axial_angular = j->type == TS_JOINT_HINGE; /* a hinge's limits, motor and spring turn; others slide */
    bool custom = j->type == TS_JOINT_CUSTOM; /* its rows' units are the program's: both bounds apply */
    const float values[10] = {k->linear.x,  k->linear.y,  k->linear.z, k->angular.x, k->angular.y,
                              k->angular.z, k->lower,     k->upper,    k->motor,     k->spring};
    for (int n = 0; n < 10; ++n) {
        bool angular = n < 3 ? false : n < 6 ? true : axial_angular;
        if (!ts_usable_impulse(records, bodies, values[n], angular) ||
            (custom && !ts_usable_impulse(records, bodies, values[n], !angular))) {
            return ts_reader_fail(r,
                                  "joint %d's kept impulse %d is %g, which would change a body's velocity by "
                                  "more than %g",
                                  (int)index, n, (double)values[n], (double)MAX_KEPT_VELOCITY_CHANGE);
        }
    }
    /* the reactions are reports (impulse / substep), not read by a step */
    const float reactions[6] = {j->reaction_force.x,  j->reaction_force.y,  j->reaction_force.z,
                                j->reaction_torque.x, j->reaction_torque.y, j->reaction_torque.z};
    for (int n = 0; n < 6; ++n) {
        if (!within(reactions[n], TS_MAX_FORCE)) {
            return ts_reader_fail(r, "joint %d's reaction %d is %g", (int)index, n, (double)reactions[n]);
        }
    }
    return true;
}

bool ts_check_loaded_joint(ts_reader *r, const ts_records *records, const ts_joint *j, int32_t index)
{
    if (!usable_frame(j->local_frame[0]) || !usable_frame(j->local_frame[1])) {
        return ts_reader_fail(r,
                              "joint %d's frame (origins (%g, %g, %g), (%g, %g, %g)) leaves TS_MAX_OFFSET or "
                              "its rotation is not unit",
                              (int)index, (double)j->local_frame[0].p.x, (double)j->local_frame[0].p.y,
                              (double)j->local_frame[0].p.z, (double)j->local_frame[1].p.x,
                              (double)j->local_frame[1].p.y, (double)j->local_frame[1].p.z);
    }
    if (j->type != TS_JOINT_CUSTOM && !usable_axis(j->type, &j->axis)) { /* a custom constraint has none */
        return ts_reader_fail(r, "joint %d's axis settings are out of the API's ranges", (int)index);
    }
    if (!(within(j->length, TS_MAX_JOINT_VALUE) && j->length >= 0.0f)) {
        return ts_reader_fail(r, "joint %d's length is %g (must be in [0, TS_MAX_JOINT_VALUE])", (int)index,
                              (double)j->length);
    }
    return check_impulses(r, records, j, index);
}
