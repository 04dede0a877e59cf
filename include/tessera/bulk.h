/** @file
 * Bulk state for backends: the positions, rotations and velocities of many
 * bodies read or written in one call, from or into the program's own
 * arrays (included by tessera.h).
 *
 * A ts_body_state_arrays says where each quantity lives: separate x / y / z
 * arrays (structure of arrays), or a field of the program's own structs
 * (array of structures, with the struct's size as the stride). A quantity
 * whose x pointer is NULL is not read or written, so one call moves any
 * subset of the four.
 *
 * Positions and rotations are those of the body origin (as
 * ts_body_get_transform() reports them); linear velocities are those of the
 * centre of mass, angular velocities are in the world frame (as
 * ts_body_get_linear_velocity() and ts_body_get_angular_velocity()).
 *
 * Every call checks all its arguments first (ids, pointers, and for the
 * setters every value) and writes nothing when one is wrong; the message
 * of ts_last_error() names the index of the body at fault. A setter does to
 * each body exactly what the one-body setter of each quantity does (it
 * wakes the body and the islands it touches, moves its shapes' bounds in
 * the broadphase and forgets what the solver kept of its pose), so the world
 * steps on bitwise as after a loop of those calls, but in one pass. */
#ifndef TESSERA_BULK_H
#define TESSERA_BULK_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Where a bulk call finds or puts one vector per body: body k's
 * components are the floats at byte offsets k * stride from x, y and z. */
typedef struct ts_vec3_array {
    float *x;      /**< body 0's x component (NULL: the quantity is not used) */
    float *y;      /**< body 0's y component */
    float *z;      /**< body 0's z component */
    size_t stride; /**< bytes from one body's component to the next body's */
} ts_vec3_array;

/** Where a bulk call finds or puts one quaternion (x, y, z, w: see ts_quat)
 * per body, as ts_vec3_array. */
typedef struct ts_quat_array {
    float *x;      /**< body 0's x component (NULL: the quantity is not used) */
    float *y;      /**< body 0's y component */
    float *z;      /**< body 0's z component */
    float *w;      /**< body 0's w component */
    size_t stride; /**< bytes from one body's component to the next body's */
} ts_quat_array;

/** The quantities of a bulk call and where each lives; zero-initialise it
 * and set those to move. A quantity whose x is NULL is skipped (its other
 * pointers must then be NULL too). */
typedef struct ts_body_state_arrays {
    ts_vec3_array position;         /**< body origin, world, m */
    ts_quat_array rotation;         /**< body rotation, world (unit quaternions) */
    ts_vec3_array linear_velocity;  /**< centre of mass velocity, m/s */
    ts_vec3_array angular_velocity; /**< world frame, rad/s */
} ts_body_state_arrays;

/** Three separate float arrays, body k at x[k], y[k], z[k]. */
static inline ts_vec3_array ts_vec3_columns(float *x, float *y, float *z)
{
    ts_vec3_array a = {x, y, z, sizeof(float)};
    return a;
}

/** Four separate float arrays, body k at x[k], y[k], z[k], w[k]. */
static inline ts_quat_array ts_quat_columns(float *x, float *y, float *z, float *w)
{
    ts_quat_array a = {x, y, z, w, sizeof(float)};
    return a;
}

/** A ts_vec3 field of the program's structs: first points at body 0's
 * field, stride is the struct's size (sizeof(ts_vec3) for a plain
 * ts_vec3 array). */
static inline ts_vec3_array ts_vec3_structs(ts_vec3 *first, size_t stride)
{
    ts_vec3_array a = {&first->x, &first->y, &first->z, stride};
    return a;
}

/** A ts_quat field of the program's structs, as ts_vec3_structs(). */
static inline ts_quat_array ts_quat_structs(ts_quat *first, size_t stride)
{
    ts_quat_array a = {&first->x, &first->y, &first->z, &first->w, stride};
    return a;
}

/** Reads the chosen quantities of bodies[k] into element k of each array
 * of *states, for k < count. Every id and pointer is checked first; on
 * failure nothing is written. TS_ERROR_NULL_POINTER (states, bodies with
 * count > 0, a quantity with x set and another component NULL or the
 * reverse), TS_ERROR_OUT_OF_RANGE (count < 0), TS_ERROR_STALE_ID (the world,
 * or a null or destroyed body: the message names its index),
 * TS_ERROR_WRONG_WORLD (a body of another world). */
TS_API ts_result ts_world_get_body_states(ts_world_id world, const ts_body_id *bodies, int count,
                                          const ts_body_state_arrays *states);

/** Writes the chosen quantities of element k of each array of *states to
 * bodies[k], for k < count, as ts_body_set_position(),
 * ts_body_set_rotation() (or ts_body_set_transform() when both are set),
 * ts_body_set_linear_velocity() and ts_body_set_angular_velocity() would,
 * one after the other in that order, body by body (a body listed twice
 * takes its last values). The arrays are only read. Every id and value is
 * checked first, and on failure nothing is written:
 * TS_ERROR_NULL_POINTER (as ts_world_get_body_states()),
 * TS_ERROR_OUT_OF_RANGE (count < 0, or a rotation not within 1% of unit
 * length), TS_ERROR_NOT_FINITE (a NaN or infinite component),
 * TS_ERROR_INVALID_OPERATION (a non-zero velocity for a static body),
 * TS_ERROR_STALE_ID, TS_ERROR_WRONG_WORLD (each naming the body's index).
 * TS_ERROR_OUT_OF_MEMORY when waking the bodies or queueing their shapes
 * needs room the allocator refuses: bodies woken before that stay awake,
 * and no value is written. */
TS_API ts_result ts_world_set_body_states(ts_world_id world, const ts_body_id *bodies, int count,
                                          const ts_body_state_arrays *states);

/** Reads the chosen quantities of every body in the awake (moving) range,
 * in storage order (the order of ts_world_get_awake_transforms(), which
 * changes as bodies sleep, wake, or are made and destroyed, and when a
 * step re-orders the awake bodies by place (every 32 steps at most, the
 * same at every thread count): match by id),
 * with their ids into ids (may be NULL). capacity is the length of every
 * array; *count receives the number of awake bodies (when it exceeds
 * capacity only capacity entries are written; capacity 0 counts only).
 * TS_ERROR_NULL_POINTER (count, states, or a quantity as in
 * ts_world_get_body_states()), TS_ERROR_OUT_OF_RANGE (capacity < 0),
 * TS_ERROR_STALE_ID. */
TS_API ts_result ts_world_get_awake_body_states(ts_world_id world, ts_body_id *ids, int capacity, int *count,
                                                const ts_body_state_arrays *states);

/** Writes the chosen quantities to every body of the awake range, element
 * k to the k-th awake body in storage order: the order in which
 * ts_world_get_awake_body_states() read them, which holds until the next
 * step or the next call that makes, destroys, wakes or puts to sleep a
 * body. count must equal the number of awake bodies. When ids is not NULL
 * it must list them in that order (as ts_world_get_awake_body_states()
 * wrote them): a check that the range has not changed since. Otherwise as
 * ts_world_set_body_states() (bodies woken by this call join the range
 * after the written ones). TS_ERROR_OUT_OF_RANGE also when count is not the
 * awake count, TS_ERROR_INVALID_OPERATION when ids[k] is not the k-th awake
 * body. */
TS_API ts_result ts_world_set_awake_body_states(ts_world_id world, const ts_body_id *ids, int count,
                                                const ts_body_state_arrays *states);

#ifdef __cplusplus
}
#endif

#endif
