/* Scalar 3D math on the public value types, for the per-object code of the
 * library (API calls, narrowphase, mass properties). Everything is inline and
 * uses only + - * / and sqrt, so a step never calls a libm transcendental and
 * the results are the same on every CPU (the build uses -ffp-contract=off). */
#ifndef TS_MATH3_H
#define TS_MATH3_H

#include "tessera/types.h"

#include <math.h>
#include <stdbool.h>

#define TS_PI 3.14159265358979323846f

static inline ts_vec3 ts_v3(float x, float y, float z) { return (ts_vec3){x, y, z}; }
static inline ts_vec3 ts_add(ts_vec3 a, ts_vec3 b) { return (ts_vec3){a.x + b.x, a.y + b.y, a.z + b.z}; }
static inline ts_vec3 ts_sub(ts_vec3 a, ts_vec3 b) { return (ts_vec3){a.x - b.x, a.y - b.y, a.z - b.z}; }
static inline ts_vec3 ts_neg(ts_vec3 a) { return (ts_vec3){-a.x, -a.y, -a.z}; }
static inline ts_vec3 ts_scale(float s, ts_vec3 a) { return (ts_vec3){s * a.x, s * a.y, s * a.z}; }
/* a + s * b */
static inline ts_vec3 ts_mul_add(ts_vec3 a, float s, ts_vec3 b)
{
    return (ts_vec3){a.x + s * b.x, a.y + s * b.y, a.z + s * b.z};
}
/* component-wise product */
static inline ts_vec3 ts_mul_cw(ts_vec3 a, ts_vec3 b) { return (ts_vec3){a.x * b.x, a.y * b.y, a.z * b.z}; }
static inline float ts_dot(ts_vec3 a, ts_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline ts_vec3 ts_cross(ts_vec3 a, ts_vec3 b)
{
    return (ts_vec3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
static inline float ts_length_sq(ts_vec3 a) { return ts_dot(a, a); }
static inline float ts_length(ts_vec3 a) { return sqrtf(ts_dot(a, a)); }
static inline ts_vec3 ts_abs3(ts_vec3 a) { return (ts_vec3){fabsf(a.x), fabsf(a.y), fabsf(a.z)}; }
static inline ts_vec3 ts_min3(ts_vec3 a, ts_vec3 b)
{
    return (ts_vec3){a.x < b.x ? a.x : b.x, a.y < b.y ? a.y : b.y, a.z < b.z ? a.z : b.z};
}
static inline ts_vec3 ts_max3(ts_vec3 a, ts_vec3 b)
{
    return (ts_vec3){a.x > b.x ? a.x : b.x, a.y > b.y ? a.y : b.y, a.z > b.z ? a.z : b.z};
}
/* Unit vector, or zero when the length is below a tiny epsilon. */
static inline ts_vec3 ts_normalize(ts_vec3 a)
{
    float len = ts_length(a);
    if (len < 1.0e-12f) {
        return (ts_vec3){0.0f, 0.0f, 0.0f};
    }
    float inv = 1.0f / len;
    return ts_scale(inv, a);
}
static inline float ts_component(ts_vec3 a, int axis) { return axis == 0 ? a.x : (axis == 1 ? a.y : a.z); }

/* Every component exactly zero (a squared length would underflow for 1e-30). */
static inline bool ts_vec3_is_zero(ts_vec3 a) { return a.x == 0.0f && a.y == 0.0f && a.z == 0.0f; }

static inline bool ts_is_finite(float a) { return isfinite(a) != 0; }
static inline bool ts_vec3_is_finite(ts_vec3 a) { return ts_is_finite(a.x) && ts_is_finite(a.y) && ts_is_finite(a.z); }
static inline bool ts_quat_is_finite(ts_quat q)
{
    return ts_is_finite(q.x) && ts_is_finite(q.y) && ts_is_finite(q.z) && ts_is_finite(q.w);
}

/* ---- quaternions ---- */

static inline ts_quat ts_quat_mul(ts_quat a, ts_quat b)
{
    return (ts_quat){
        a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
        a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
        a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
        a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
    };
}
static inline ts_quat ts_quat_conj(ts_quat q) { return (ts_quat){-q.x, -q.y, -q.z, q.w}; }
static inline float ts_quat_length_sq(ts_quat q) { return q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w; }
static inline ts_quat ts_quat_normalize(ts_quat q)
{
    float inv = 1.0f / sqrtf(ts_quat_length_sq(q));
    return (ts_quat){inv * q.x, inv * q.y, inv * q.z, inv * q.w};
}

/* q * v * conj(q), as v + 2 w (u x v) + 2 u x (u x v) with u = q.xyz. */
static inline ts_vec3 ts_rotate(ts_quat q, ts_vec3 v)
{
    ts_vec3 u = {q.x, q.y, q.z};
    ts_vec3 t = ts_scale(2.0f, ts_cross(u, v));
    return ts_add(ts_add(v, ts_scale(q.w, t)), ts_cross(u, t));
}
static inline ts_vec3 ts_inv_rotate(ts_quat q, ts_vec3 v) { return ts_rotate(ts_quat_conj(q), v); }

/* ---- transforms: world = p + q * local ---- */

static inline ts_vec3 ts_transform_point(ts_transform xf, ts_vec3 v) { return ts_add(ts_rotate(xf.q, v), xf.p); }
static inline ts_vec3 ts_inv_transform_point(ts_transform xf, ts_vec3 v) { return ts_inv_rotate(xf.q, ts_sub(v, xf.p)); }
/* a * b: first b, then a. */
static inline ts_transform ts_transform_mul(ts_transform a, ts_transform b)
{
    return (ts_transform){ts_transform_point(a, b.p), ts_quat_mul(a.q, b.q)};
}
/* inverse(a) * b */
static inline ts_transform ts_transform_inv_mul(ts_transform a, ts_transform b)
{
    return (ts_transform){ts_inv_transform_point(a, b.p), ts_quat_mul(ts_quat_conj(a.q), b.q)};
}

/* Quaternion from a unit axis and an angle; for setup code and tests only
 * (calls sinf/cosf, so never inside a step). */
static inline ts_quat ts_quat_from_axis_angle(ts_vec3 axis, float angle)
{
    float s = sinf(0.5f * angle);
    return (ts_quat){s * axis.x, s * axis.y, s * axis.z, cosf(0.5f * angle)};
}

#endif
