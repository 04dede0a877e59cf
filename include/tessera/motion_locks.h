/** @file
 * Motion locks: a body may be kept from moving along any of the world's x,
 * y and z axes and from turning about any of them, and a planar world keeps
 * every dynamic body in the x-y plane (a 2D simulation in the 3D engine).
 *
 * A locked component stays exactly as it was, bit for bit, whatever acts on
 * the body (contacts, joints, custom constraints, gravity, forces, impulses):
 * a locked linear axis keeps the body's centre of mass coordinate and a zero
 * velocity along it; a locked angular axis keeps a zero angular velocity
 * about it, and a body with all three angular axes locked keeps its
 * rotation. Axes are the world's. Both solvers, every SIMD width and thread
 * count apply the locks the same way.
 *
 * How: the solver sees the body's world inverse inertia with the locked
 * axes' rows and columns zeroed (so a constraint's effective mass is that of
 * the locked body, as Jolt does), and the integrators keep the locked
 * components of velocities and poses (a locked translation is kept by
 * dropping the velocity along it: the effective masses of constraints
 * pulling along a locked axis do not know of the lock, as in Jolt; in a
 * planar world nothing pulls along z). See docs/constraints.md. */
#ifndef TESSERA_MOTION_LOCKS_H
#define TESSERA_MOTION_LOCKS_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The components a body may be locked in (or them together for
 * ts_body_def::motion_locks and ts_body_set_motion_locks()). */
typedef enum ts_motion_lock {
    TS_LOCK_LINEAR_X = 1 << 0,  /**< no motion along world x */
    TS_LOCK_LINEAR_Y = 1 << 1,  /**< no motion along world y */
    TS_LOCK_LINEAR_Z = 1 << 2,  /**< no motion along world z */
    TS_LOCK_ANGULAR_X = 1 << 3, /**< no turning about world x */
    TS_LOCK_ANGULAR_Y = 1 << 4, /**< no turning about world y */
    TS_LOCK_ANGULAR_Z = 1 << 5, /**< no turning about world z */
} ts_motion_lock;

/** Every lock bit. */
#define TS_LOCK_ALL 0x3fu
/** What a planar world locks on each dynamic body: z, and turning about x
 * and y (the body stays in its x-y plane and turns about z only). */
#define TS_LOCK_PLANAR ((uint32_t)(TS_LOCK_LINEAR_Z | TS_LOCK_ANGULAR_X | TS_LOCK_ANGULAR_Y))

/** Sets a body's motion locks (TS_LOCK_* bits; 0 unlocks). The locked
 * components of its velocity are zeroed now; its position and rotation are
 * kept as they are. In a planar world a dynamic body keeps TS_LOCK_PLANAR
 * whatever is set here. Wakes the body. TS_ERROR_STALE_ID;
 * TS_ERROR_OUT_OF_RANGE (bits outside TS_LOCK_ALL); TS_ERROR_INVALID_OPERATION
 * (a static body: it never moves, and a lock on it would mean nothing);
 * TS_ERROR_OUT_OF_MEMORY (waking). */
TS_API ts_result ts_body_set_motion_locks(ts_body_id body, uint32_t locks);

/** The locks in effect on the body (its own and, for a dynamic body of a
 * planar world, TS_LOCK_PLANAR). TS_ERROR_NULL_POINTER, TS_ERROR_STALE_ID. */
TS_API ts_result ts_body_get_motion_locks(ts_body_id body, uint32_t *locks);

#ifdef __cplusplus
}
#endif

#endif
