/* Checks of numbers against the documented bounds of tessera/limits.h,
 * beside the finiteness checks of validate.h: each returns TS_OK or records
 * TS_ERROR_NOT_FINITE / TS_ERROR_OUT_OF_RANGE with a message that names the
 * function, the argument, the value and the bound. Lengths are taken in
 * double, so that a vector whose squared length overflows a float is still
 * measured (and refused) right. */
#ifndef TS_BOUNDS_H
#define TS_BOUNDS_H

#include "base/validate.h"
#include "tessera/limits.h"

#include <math.h>

static inline double ts_length_double(ts_vec3 v)
{
    return sqrt((double)v.x * v.x + (double)v.y * v.y + (double)v.z * v.z);
}

/* Every component finite and within [-bound, bound]; `bound_name` names
 * the bound in the message (e.g. "TS_MAX_EXTENT"). */
static inline ts_result ts_check_components(ts_vec3 v, float bound, const char *bound_name, const char *function,
                                            const char *name)
{
    TS_TRY(ts_check_finite_vec3(v, function, name));
    if (!(fabsf(v.x) <= bound && fabsf(v.y) <= bound && fabsf(v.z) <= bound)) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, function, "%s (%g, %g, %g) has a component beyond %s (%g)", name,
                       (double)v.x, (double)v.y, (double)v.z, bound_name, (double)bound);
    }
    return TS_OK;
}

/* Finite, with a length within `bound`. */
static inline ts_result ts_check_length(ts_vec3 v, float bound, const char *bound_name, const char *function,
                                        const char *name)
{
    TS_TRY(ts_check_finite_vec3(v, function, name));
    double length = ts_length_double(v);
    if (!(length <= (double)bound)) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, function, "%s (%g, %g, %g) is %g long, beyond %s (%g)", name,
                       (double)v.x, (double)v.y, (double)v.z, length, bound_name, (double)bound);
    }
    return TS_OK;
}

/* A sum of finite inputs (an accumulated force, a velocity after an
 * impulse) within a bound: every component (`components`) or the length
 * within it; one that overflowed to infinity is beyond it too
 * (TS_ERROR_OUT_OF_RANGE: the inputs were finite). */
static inline ts_result ts_check_sum(ts_vec3 v, bool components, float bound, const char *bound_name,
                                     const char *function, const char *name)
{
    double largest = components ? fmax(fmax(fabs((double)v.x), fabs((double)v.y)), fabs((double)v.z))
                                : ts_length_double(v);
    if (!(largest <= (double)bound)) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, function, "%s (%g, %g, %g) would be beyond %s (%g)", name, (double)v.x,
                       (double)v.y, (double)v.z, bound_name, (double)bound);
    }
    return TS_OK;
}

/* A finite float in [-bound, bound]. */
static inline ts_result ts_check_magnitude(float value, float bound, const char *bound_name, const char *function,
                                           const char *name)
{
    if (!ts_is_finite(value)) {
        return ts_fail(TS_ERROR_NOT_FINITE, function, "%s is %g (must be finite)", name, (double)value);
    }
    if (!(fabsf(value) <= bound)) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, function, "%s is %g, beyond %s (%g)", name, (double)value, bound_name,
                       (double)bound);
    }
    return TS_OK;
}

/* A finite float in (0, bound]. */
static inline ts_result ts_check_positive_within(float value, float bound, const char *bound_name,
                                                 const char *function, const char *name)
{
    TS_TRY(ts_check_positive(value, function, name));
    if (!(value <= bound)) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, function, "%s is %g, beyond %s (%g)", name, (double)value, bound_name,
                       (double)bound);
    }
    return TS_OK;
}

/* A step's dt: finite, in [TS_MIN_TIME_STEP, TS_MAX_TIME_STEP]. */
static inline ts_result ts_check_time_step(float dt, const char *function)
{
    if (!ts_is_finite(dt)) {
        return ts_fail(TS_ERROR_NOT_FINITE, function, "dt is %g (must be finite and > 0)", (double)dt);
    }
    if (!(dt > 0.0f)) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, function, "dt is %g (must be > 0)", (double)dt);
    }
    if (!(dt >= TS_MIN_TIME_STEP && dt <= TS_MAX_TIME_STEP)) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, function, "dt is %g s (must be within TS_MIN_TIME_STEP %g and "
                       "TS_MAX_TIME_STEP %g)", (double)dt, (double)TS_MIN_TIME_STEP, (double)TS_MAX_TIME_STEP);
    }
    return TS_OK;
}

/* A world's gravity: finite, at most TS_MAX_GRAVITY long. */
static inline ts_result ts_check_gravity(ts_vec3 gravity, const char *function, const char *name)
{
    return ts_check_length(gravity, TS_MAX_GRAVITY, "TS_MAX_GRAVITY", function, name);
}

/* A world's speed limits (limits.h). */
static inline ts_result ts_check_speed_limits(float max_linear_speed, float max_rotation, const char *function,
                                              const char *speed_name, const char *rotation_name)
{
    TS_TRY(ts_check_positive_within(max_linear_speed, TS_MAX_SPEED, "TS_MAX_SPEED", function, speed_name));
    return ts_check_positive_within(max_rotation, TS_MAX_ROTATION, "TS_MAX_ROTATION", function, rotation_name);
}

#endif
