/* Argument checks shared by the API entry points. Each returns TS_OK or
 * records an error that names the function, the argument and the value. */
#ifndef TS_VALIDATE_H
#define TS_VALIDATE_H

#include "base/error.h"
#include "base/math3.h"

static inline ts_result ts_check_finite_vec3(ts_vec3 v, const char *function, const char *name)
{
    if (!ts_vec3_is_finite(v)) {
        return ts_fail(TS_ERROR_NOT_FINITE, function, "%s has a NaN or infinite component (%g, %g, %g)", name,
                       (double)v.x, (double)v.y, (double)v.z);
    }
    return TS_OK;
}

/* A finite float >= 0. */
static inline ts_result ts_check_non_negative(float value, const char *function, const char *name)
{
    if (!ts_is_finite(value)) {
        return ts_fail(TS_ERROR_NOT_FINITE, function, "%s is %g (must be finite)", name, (double)value);
    }
    if (value < 0.0f) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, function, "%s is %g (must be >= 0)", name, (double)value);
    }
    return TS_OK;
}

/* A finite float > 0. */
static inline ts_result ts_check_positive(float value, const char *function, const char *name)
{
    if (!ts_is_finite(value)) {
        return ts_fail(TS_ERROR_NOT_FINITE, function, "%s is %g (must be finite)", name, (double)value);
    }
    if (!(value > 0.0f)) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, function, "%s is %g (must be > 0)", name, (double)value);
    }
    return TS_OK;
}

/* Rotations: finite, and within 1% of unit length, then normalised. A length
 * further off is taken as a bug in the caller (e.g. Euler angles passed as a
 * quaternion) and refused rather than silently "repaired". */
static inline ts_result ts_check_rotation(ts_quat q, ts_quat *normalised, const char *function, const char *name)
{
    if (!ts_quat_is_finite(q)) {
        return ts_fail(TS_ERROR_NOT_FINITE, function, "%s has a NaN or infinite component (%g, %g, %g, %g)", name,
                       (double)q.x, (double)q.y, (double)q.z, (double)q.w);
    }
    float length = sqrtf(ts_quat_length_sq(q));
    if (!(length > 0.99f && length < 1.01f)) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, function,
                       "%s is not a unit quaternion (length %g; must be within 1%% of 1)", name, (double)length);
    }
    *normalised = length == 1.0f ? q : ts_quat_normalize(q);
    return TS_OK;
}

/* An output array with its capacity: NULL only with capacity 0 (to count). */
static inline ts_result ts_check_output_array(const void *array, int capacity, const char *function, const char *name)
{
    if (capacity > 0 && array == NULL) {
        return ts_fail(TS_ERROR_NULL_POINTER, function, "%s is NULL with capacity %d (pass capacity 0 to count)", name,
                       capacity);
    }
    if (capacity < 0) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, function, "capacity is %d (must be >= 0)", capacity);
    }
    return TS_OK;
}

#define TS_CHECK_NOT_NULL(pointer, function)                                                                   \
    do {                                                                                                       \
        if ((pointer) == NULL) {                                                                               \
            return ts_fail(TS_ERROR_NULL_POINTER, function, "%s is NULL", #pointer);                           \
        }                                                                                                      \
    } while (0)

#endif
