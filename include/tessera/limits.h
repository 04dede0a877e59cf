/** @file
 * Limits: the bounds every call checks its numbers against and the speed
 * limits a step enforces.
 *
 * Bounds. A call refuses a number beyond its bound with
 * TS_ERROR_OUT_OF_RANGE and a message naming the bound, and changes
 * nothing. The bounds are far beyond any scene a float simulation can
 * serve (at 1e6 m a float's step is 6 cm), and near enough that no product
 * a step forms of bounded numbers overflows a float.
 *
 * Speed limits. Every step keeps each moving body's linear speed within
 * the world's max_linear_speed and its turn per substep within
 * max_rotation (radians; the angular speed limit is max_rotation / h, h the
 * substep), as Box2D does: a velocity beyond them is scaled down to just
 * below them (by 1 part in 4096, so that the same body is never scaled
 * twice), after forces are added, before each move, and when the step
 * stores the velocities. At the defaults (400 m/s, pi/4) and 60 Hz with 4
 * substeps that is 188 rad/s. Every SIMD width and thread count gives the
 * same bits.
 *
 * A velocity that still overflows in a step (a force of TS_MAX_FORCE on a
 * body of almost no mass) is not applied: the step keeps that body at its
 * last finite state, returns TS_ERROR_NOT_FINITE naming it, and takes it
 * out of the simulation (ts_world_get_body_faults). */
#ifndef TESSERA_LIMITS_H
#define TESSERA_LIMITS_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Largest |coordinate| of a body position (defs, setters) and of the
 * point a force or impulse is applied at, m. */
#define TS_MAX_EXTENT 1.0e6f
/** Largest |coordinate| of a shape's local position and of a joint frame's
 * position in its body, m. */
#define TS_MAX_OFFSET 1.0e4f
/** Largest |value| of a joint's length, a limit, a spring target (m for
 * distance and prismatic joints, rad for hinges) and a motor speed (m/s,
 * rad/s): beyond it one substep's correction leaves the float range. */
#define TS_MAX_JOINT_VALUE 1.0e6f
/** Largest dt of ts_world_step(), s. */
#define TS_MAX_TIME_STEP 1.0f
/** Smallest dt of ts_world_step(), s (below it 1 / h overflows the
 * solver's rates). */
#define TS_MIN_TIME_STEP 1.0e-6f
/** Largest length of the world's gravity, m/s^2 (1e4 g). */
#define TS_MAX_GRAVITY 1.0e5f
/** Largest |gravity scale| of a body. */
#define TS_MAX_GRAVITY_SCALE 1.0e3f
/** Largest |component| of the force (N) and of the torque (N m) a body
 * accumulates for a step. */
#define TS_MAX_FORCE 1.0e30f
/** Largest max_linear_speed of a world, and largest contact_push_speed,
 * m/s. */
#define TS_MAX_SPEED 1.0e6f
/** Largest angular speed a call may give a body (defs, setters,
 * impulses), rad/s; the step's own limit is max_rotation / h. */
#define TS_MAX_ANGULAR_SPEED 1.0e4f
/** Largest max_rotation of a world: a quarter turn per substep, rad. */
#define TS_MAX_ROTATION 1.57079633f
/** Largest mass of a dynamic body (from its shapes), kg. */
#define TS_MAX_MASS 1.0e20f
/** Largest principal moment of inertia of a dynamic body, kg m^2. */
#define TS_MAX_MASS_INERTIA 1.0e30f
/** Largest spring frequency of a joint (hinge, prismatic, distance), Hz:
 * beyond it the spring's stiffness overflows a float within a step. */
#define TS_MAX_SPRING_HERTZ 1.0e6f
/** Largest spring damping ratio of a joint. */
#define TS_MAX_SPRING_DAMPING_RATIO 1.0e6f
/** Largest rolling resistance of a shape (ts_shape_def): a ball on a
 * slope of angle a stays put at a coefficient of tan a, so 10 holds it on
 * 84 degrees; more than that is a mistake (docs/shapes.md). */
#define TS_MAX_ROLLING_RESISTANCE 10.0f
/** The default max_linear_speed of a world, m/s (Box2D's). */
#define TS_DEFAULT_MAX_LINEAR_SPEED 400.0f
/** The default max_rotation of a world: pi / 4 per substep, rad (Box2D's). */
#define TS_DEFAULT_MAX_ROTATION 0.785398163f

/** Sets the world's speed limits for later steps: max_linear_speed in
 * (0, TS_MAX_SPEED] m/s, max_rotation (the largest turn per substep) in
 * (0, TS_MAX_ROTATION] rad. Velocities already above the new limits are
 * scaled down by the next step. TS_ERROR_NOT_FINITE, TS_ERROR_OUT_OF_RANGE,
 * TS_ERROR_STALE_ID. */
TS_API ts_result ts_world_set_speed_limits(ts_world_id world, float max_linear_speed, float max_rotation);
/** Reads the world's speed limits. TS_ERROR_NULL_POINTER (either output),
 * TS_ERROR_STALE_ID. */
TS_API ts_result ts_world_get_speed_limits(ts_world_id world, float *max_linear_speed, float *max_rotation);

/** Lists the bodies taken out of the simulation because their velocity or
 * pose overflowed in a step (ts_world_step returned TS_ERROR_NOT_FINITE
 * naming each). Such a body keeps its id, type, shapes and the last finite
 * pose and velocities, which its getters return; its contacts and joints
 * were destroyed (end events for the touching contacts; the joint ids go
 * stale), its shapes left the broadphase (no contacts, queries miss them),
 * and no step moves it, so every other body goes on as if it had been
 * destroyed. It stays out until ts_destroy_body(): new shapes or joints on
 * it and ts_body_set_type() are refused (TS_ERROR_INVALID_OPERATION), and
 * ts_world_save refuses a world that holds one (TS_ERROR_UNSUPPORTED).
 *
 * Writes up to capacity ids (oldest index first) and sets *count to how
 * many there are. TS_ERROR_NULL_POINTER (count, or ids NULL with a
 * capacity), TS_ERROR_OUT_OF_RANGE (capacity < 0), TS_ERROR_STALE_ID. */
TS_API ts_result ts_world_get_body_faults(ts_world_id world, ts_body_id *ids, int capacity, int *count);

#ifdef __cplusplus
}
#endif

#endif
