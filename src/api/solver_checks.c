// SPDX-License-Identifier: MIT
/* The checks of a ts_solve_contacts() call (see solver_checks.h): every
 * field of every body, manifold and joint, each failure naming the array,
 * the index and the field. Messages are formatted only on failure: a call
 * checks tens of thousands of values. */
#include "api/solver_checks.h"

#include "base/array.h"
#include "base/error.h"
#include "tessera/tessera.h"
#include "base/math3.h"

#include <float.h>

/* ---- single values ---- */

static bool finite3(ts_vec3 v) { return ts_vec3_is_finite(v); }

/* Within 1% of unit length (the length a call takes; solver_context.h
 * normalises what is not unit to float precision). */
static bool unit_length(float length_sq) { return length_sq > 0.99f * 0.99f && length_sq < 1.01f * 1.01f; }

/* A float that a division can take: finite, > 0, with a finite inverse. */
static bool usable(float value) { return ts_is_finite(value) && value > 0.0f && ts_is_finite(1.0f / value); }

#define FAIL(code, ...) return ts_fail(code, fn, __VA_ARGS__)

static ts_result check_vec3(ts_vec3 v, const char *fn, const char *array, int k, const char *field)
{
    if (!finite3(v)) {
        FAIL(TS_ERROR_NOT_FINITE, "%s[%d].%s has a NaN or infinite component (%g, %g, %g)", array, k, field,
             (double)v.x, (double)v.y, (double)v.z);
    }
    return TS_OK;
}

static ts_result check_rotation(ts_quat q, const char *fn, const char *array, int k, const char *field)
{
    if (!ts_quat_is_finite(q)) {
        FAIL(TS_ERROR_NOT_FINITE, "%s[%d].%s has a NaN or infinite component", array, k, field);
    }
    if (!unit_length(ts_quat_length_sq(q))) {
        FAIL(TS_ERROR_OUT_OF_RANGE, "%s[%d].%s is not a unit quaternion (length %g; must be within 1%% of 1)", array,
             k, field, (double)sqrtf(ts_quat_length_sq(q)));
    }
    return TS_OK;
}

static ts_result check_float(float value, float lower, float upper, const char *fn, const char *array, int k,
                             const char *field)
{
    if (!ts_is_finite(value)) {
        FAIL(TS_ERROR_NOT_FINITE, "%s[%d].%s is %g (must be finite)", array, k, field, (double)value);
    }
    if (value < lower || value > upper) {
        FAIL(TS_ERROR_OUT_OF_RANGE, "%s[%d].%s is %g (must be in [%g, %g])", array, k, field, (double)value,
             (double)lower, (double)upper);
    }
    return TS_OK;
}

static ts_result check_array(const void *array, int count, const char *fn, const char *name, const char *count_name)
{
    if (count < 0 || count > TS_MAX_OBJECTS) {
        FAIL(TS_ERROR_OUT_OF_RANGE, "input->%s is %d (must be 0..%d)", count_name, count, TS_MAX_OBJECTS);
    }
    if (count > 0 && array == NULL) {
        FAIL(TS_ERROR_NULL_POINTER, "input->%s is NULL with %s %d", name, count_name, count);
    }
    return TS_OK;
}

/* ---- the fast path: every value good, found without a branch per value ---- */

/* 0 * x is 0 for every finite x and NaN for an infinite or NaN one: a sum
 * of such products is 0 exactly when all were finite. */
#define ZERO3(v) (0.0f * (v).x + 0.0f * (v).y + 0.0f * (v).z)
#define ZERO4(q) (0.0f * (q).x + 0.0f * (q).y + 0.0f * (q).z + 0.0f * (q).w)

static inline bool body_is_plausible(const ts_solver_body *b)
{
    float zero = ZERO3(b->center) + ZERO4(b->rotation) + ZERO3(b->linear_velocity) + ZERO3(b->angular_velocity) +
                 ZERO3(b->local_center) + ZERO4(b->local_rotation);
    if (!(zero == 0.0f) || !unit_length(ts_quat_length_sq(b->rotation)) ||
        !unit_length(ts_quat_length_sq(b->local_rotation))) {
        return false;
    }
    if (b->type == TS_BODY_DYNAMIC) {
        float inverse = 1.0f / b->mass + 1.0f / b->inertia.x + 1.0f / b->inertia.y + 1.0f / b->inertia.z;
        float more = ZERO3(b->force) + ZERO3(b->torque) + 0.0f * b->gravity_scale + 0.0f * b->linear_damping +
                     0.0f * b->angular_damping + 0.0f * b->mass + ZERO3(b->inertia) + 0.0f * inverse;
        return more == 0.0f && b->mass > 0.0f && b->inertia.x > 0.0f && b->inertia.y > 0.0f && b->inertia.z > 0.0f &&
               b->linear_damping >= 0.0f && b->angular_damping >= 0.0f;
    }
    if (b->type == TS_BODY_KINEMATIC) {
        return true;
    }
    return b->type == TS_BODY_STATIC && ts_vec3_is_zero(b->linear_velocity) && ts_vec3_is_zero(b->angular_velocity);
}

static inline bool manifold_is_plausible(const ts_solver_input *in, const ts_solver_manifold *m)
{
    uint32_t a = (uint32_t)m->body_a, b = (uint32_t)m->body_b, n = (uint32_t)in->body_count;
    if (a >= n || b >= n || a == b || (unsigned)m->point_count > 4u ||
        (in->bodies[a].type != TS_BODY_DYNAMIC && in->bodies[b].type != TS_BODY_DYNAMIC)) {
        return false;
    }
    float zero = ZERO3(m->normal) + ZERO3(m->anchor_shift) + 0.0f * m->friction + 0.0f * m->restitution;
    for (int p = 0; p < m->point_count; ++p) {
        zero += ZERO3(m->points[p].anchor) + 0.0f * m->points[p].separation;
    }
    return m->point_count == 0 || (zero == 0.0f && unit_length(ts_length_sq(m->normal)) && m->friction >= 0.0f &&
                                   m->restitution >= 0.0f && m->restitution <= 1.0f);
}

/* ---- bodies ---- */

static ts_result check_body(const ts_solver_body *b, int k, const char *fn)
{
    const char *a = "bodies";
    if (b->type != TS_BODY_STATIC && b->type != TS_BODY_KINEMATIC && b->type != TS_BODY_DYNAMIC) {
        FAIL(TS_ERROR_OUT_OF_RANGE, "bodies[%d].type is %d (not a ts_body_type)", k, (int)b->type);
    }
    TS_TRY(check_vec3(b->center, fn, a, k, "center"));
    TS_TRY(check_rotation(b->rotation, fn, a, k, "rotation"));
    TS_TRY(check_vec3(b->linear_velocity, fn, a, k, "linear_velocity"));
    TS_TRY(check_vec3(b->angular_velocity, fn, a, k, "angular_velocity"));
    if (b->type == TS_BODY_STATIC && !(ts_vec3_is_zero(b->linear_velocity) && ts_vec3_is_zero(b->angular_velocity))) {
        FAIL(TS_ERROR_INVALID_OPERATION, "bodies[%d] is static and has a velocity", k);
    }
    TS_TRY(check_vec3(b->local_center, fn, a, k, "local_center"));
    TS_TRY(check_rotation(b->local_rotation, fn, a, k, "local_rotation"));
    if (b->type != TS_BODY_DYNAMIC) {
        return TS_OK;
    }
    if (!usable(b->mass)) {
        FAIL(ts_is_finite(b->mass) ? TS_ERROR_OUT_OF_RANGE : TS_ERROR_NOT_FINITE,
             "bodies[%d].mass is %g (a dynamic body needs a finite mass > 0 with a finite inverse)", k,
             (double)b->mass);
    }
    if (!usable(b->inertia.x) || !usable(b->inertia.y) || !usable(b->inertia.z)) {
        FAIL(finite3(b->inertia) ? TS_ERROR_OUT_OF_RANGE : TS_ERROR_NOT_FINITE,
             "bodies[%d].inertia is (%g, %g, %g) (each must be finite and > 0, with a finite inverse)", k,
             (double)b->inertia.x, (double)b->inertia.y, (double)b->inertia.z);
    }
    TS_TRY(check_vec3(b->force, fn, a, k, "force"));
    TS_TRY(check_vec3(b->torque, fn, a, k, "torque"));
    TS_TRY(check_float(b->gravity_scale, -FLT_MAX, FLT_MAX, fn, a, k, "gravity_scale"));
    TS_TRY(check_float(b->linear_damping, 0.0f, FLT_MAX, fn, a, k, "linear_damping"));
    return check_float(b->angular_damping, 0.0f, FLT_MAX, fn, a, k, "angular_damping");
}

/* ---- pairs of bodies, keys ---- */

static ts_result check_pair(const ts_solver_input *in, int32_t body_a, int32_t body_b, const char *fn,
                            const char *array, int k)
{
    if (body_a < 0 || body_a >= in->body_count || body_b < 0 || body_b >= in->body_count) {
        FAIL(TS_ERROR_OUT_OF_RANGE, "%s[%d] names bodies %d and %d (must be in 0..%d)", array, k, (int)body_a,
             (int)body_b, in->body_count - 1);
    }
    if (body_a == body_b) {
        FAIL(TS_ERROR_INVALID_OPERATION, "%s[%d] names body %d twice", array, k, (int)body_a);
    }
    if (in->bodies[body_a].type != TS_BODY_DYNAMIC && in->bodies[body_b].type != TS_BODY_DYNAMIC) {
        FAIL(TS_ERROR_INVALID_OPERATION, "%s[%d]: neither body %d nor body %d is dynamic", array, k, (int)body_a,
             (int)body_b);
    }
    return TS_OK;
}

/* A key the array names twice. */
static ts_result repeated_key(uint64_t key, int k, const char *fn, const char *array)
{
    FAIL(TS_ERROR_INVALID_OPERATION, "%s[%d].key (%llu) is named twice in one call (a key names one %s)", array, k,
         (unsigned long long)key, array[0] == 'm' ? "manifold" : "joint");
}

/* Each key once: a known key's contact or joint is stamped with the call
 * (a second stamp is a repeat), a new key goes into the call's map of new
 * keys. ids[k] receives the known id, or -1. */
static ts_result resolve_key(ts_key_map *known, ts_keyed *keyed, ts_key_map *fresh, uint32_t call, uint64_t key,
                             int32_t *id, const char *fn, const char *array, int k)
{
    *id = ts_key_map_find(known, key);
    if (*id >= 0) {
        if (keyed[*id].seen == call) {
            return repeated_key(key, k, fn, array);
        }
        keyed[*id].seen = call;
        return TS_OK;
    }
    if (ts_key_map_find(fresh, key) >= 0) {
        return repeated_key(key, k, fn, array);
    }
    ts_key_map_add(fresh, key, k);
    return TS_OK;
}

/* ---- manifolds ---- */

static ts_result check_manifold(const ts_solver_input *in, const ts_solver_manifold *m, int k, const char *fn)
{
    const char *a = "manifolds";
    TS_TRY(check_pair(in, m->body_a, m->body_b, fn, a, k));
    if (m->point_count < 0 || m->point_count > 4) {
        FAIL(TS_ERROR_OUT_OF_RANGE, "manifolds[%d].point_count is %d (must be 0..4)", k, m->point_count);
    }
    if (m->point_count == 0) {
        return TS_OK; /* the pair stopped touching: the rest is not read */
    }
    TS_TRY(check_vec3(m->normal, fn, a, k, "normal"));
    if (!unit_length(ts_length_sq(m->normal))) {
        FAIL(TS_ERROR_OUT_OF_RANGE, "manifolds[%d].normal is not a unit vector (length %g; must be within 1%% of 1)",
             k, (double)ts_length(m->normal));
    }
    TS_TRY(check_vec3(m->anchor_shift, fn, a, k, "anchor_shift"));
    TS_TRY(check_float(m->friction, 0.0f, FLT_MAX, fn, a, k, "friction"));
    TS_TRY(check_float(m->restitution, 0.0f, 1.0f, fn, a, k, "restitution"));
    for (int p = 0; p < m->point_count; ++p) {
        if (!finite3(m->points[p].anchor) || !ts_is_finite(m->points[p].separation)) {
            FAIL(TS_ERROR_NOT_FINITE, "manifolds[%d].points[%d] has a NaN or infinite anchor or separation", k, p);
        }
    }
    return TS_OK;
}

/* ---- joints ---- */

static ts_result check_joint(const ts_solver_input *in, const ts_solver_joint *j, int k, const char *fn)
{
    const char *a = "joints";
    if ((int)j->type < 0 || j->type >= TS_JOINT_TYPE_COUNT) {
        FAIL(TS_ERROR_OUT_OF_RANGE, "joints[%d].type is %d (not a ts_joint_type)", k, (int)j->type);
    }
    TS_TRY(check_pair(in, j->body_a, j->body_b, fn, a, k));
    TS_TRY(check_vec3(j->local_frame_a.p, fn, a, k, "local_frame_a.p"));
    TS_TRY(check_rotation(j->local_frame_a.q, fn, a, k, "local_frame_a.q"));
    TS_TRY(check_vec3(j->local_frame_b.p, fn, a, k, "local_frame_b.p"));
    TS_TRY(check_rotation(j->local_frame_b.q, fn, a, k, "local_frame_b.q"));
    TS_TRY(check_float(j->length, 0.0f, FLT_MAX, fn, a, k, "length"));
    /* the limits as a world's joint creation checks them */
    float lowest = j->type == TS_JOINT_HINGE ? -TS_PI : j->type == TS_JOINT_DISTANCE ? 0.0f : -FLT_MAX;
    float highest = j->type == TS_JOINT_HINGE ? TS_PI : FLT_MAX;
    TS_TRY(check_float(j->lower, lowest, highest, fn, a, k, "lower"));
    TS_TRY(check_float(j->upper, j->lower, highest, fn, a, k, "upper"));
    TS_TRY(check_float(j->motor_speed, -FLT_MAX, FLT_MAX, fn, a, k, "motor_speed"));
    TS_TRY(check_float(j->max_motor_force, 0.0f, FLT_MAX, fn, a, k, "max_motor_force"));
    TS_TRY(check_float(j->spring_hertz, 0.0f, FLT_MAX, fn, a, k, "spring_hertz"));
    TS_TRY(check_float(j->spring_damping_ratio, 0.0f, FLT_MAX, fn, a, k, "spring_damping_ratio"));
    return check_float(j->spring_target, -FLT_MAX, FLT_MAX, fn, a, k, "spring_target");
}

/* ---- the call ---- */

ts_result ts_check_solver_input(const ts_solver_input *in, ts_solver_context *c, const char *fn)
{
    if (in == NULL) {
        FAIL(TS_ERROR_NULL_POINTER, "input is NULL");
    }
    if (!ts_is_finite(in->dt)) {
        FAIL(TS_ERROR_NOT_FINITE, "input->dt is %g (must be finite and > 0)", (double)in->dt);
    }
    if (!(in->dt > 0.0f)) {
        FAIL(TS_ERROR_OUT_OF_RANGE, "input->dt is %g (must be > 0)", (double)in->dt);
    }
    TS_TRY(check_array(in->bodies, in->body_count, fn, "bodies", "body_count"));
    TS_TRY(check_array(in->manifolds, in->manifold_count, fn, "manifolds", "manifold_count"));
    TS_TRY(check_array(in->joints, in->joint_count, fn, "joints", "joint_count"));
    for (int k = 0; k < in->body_count; ++k) {
        if (!body_is_plausible(in->bodies + k)) {
            TS_TRY(check_body(in->bodies + k, k, fn));
        }
    }
    const ts_allocator *a = &c->records.allocator;
    int keys = in->manifold_count > in->joint_count ? in->manifold_count : in->joint_count;
    if (!ts_key_map_reserve(&c->listed, a, keys) ||
        !ts_array_reserve(a, (void **)&c->listed_ids, &c->listed_capacity, in->manifold_count, sizeof(int32_t))) {
        FAIL(TS_ERROR_OUT_OF_MEMORY, "the allocator returned NULL");
    }
    /* stamps of a call that fails here are never read: the next call has another number */
    ts_solver_context_next_call(c);
    ts_key_map_clear(&c->listed);
    for (int k = 0; k < in->manifold_count; ++k) {
        const ts_solver_manifold *m = in->manifolds + k;
        if (!manifold_is_plausible(in, m)) {
            TS_TRY(check_manifold(in, m, k, fn));
        }
        TS_TRY(resolve_key(&c->contact_keys, c->contact_keyed, &c->listed, c->call, m->key, c->listed_ids + k, fn,
                           "manifolds", k));
    }
    ts_key_map_clear(&c->listed);
    for (int k = 0; k < in->joint_count; ++k) {
        TS_TRY(check_joint(in, in->joints + k, k, fn));
        if (ts_key_map_find(&c->listed, in->joints[k].key) >= 0) {
            return repeated_key(in->joints[k].key, k, fn, "joints");
        }
        ts_key_map_add(&c->listed, in->joints[k].key, k);
    }
    return TS_OK;
}
