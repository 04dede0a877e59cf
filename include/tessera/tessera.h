/** @file
 * tessera: a 3D rigid-body physics library with a data-oriented constraint
 * solver. This header is the whole public API (it includes types.h,
 * joint.h, bulk.h, solver.h, shapes.h, query.h, constraint.h,
 * motion_locks.h and limits.h).
 *
 * Conventions:
 * - Objects are named by ids (index + generation). Every call checks its
 *   ids; a stale id or one of another world gets an error, never a crash.
 * - Calls that can fail return a ts_result, or a null id from create calls;
 *   ts_last_error() then says, in English, which argument was wrong and why.
 *   A failed call changes nothing. Each function's comment lists the codes
 *   it returns; every call on an existing object also returns
 *   TS_ERROR_STALE_ID for a null, destroyed or forged id (including an id
 *   whose world was destroyed).
 * - Definitions are plain structs; start from ts_default_*_def().
 * - Threading: different worlds may be used from different threads at once.
 *   Calls on one world must not overlap each other (one thread at a time per
 *   world; that includes read-only calls while ts_world_step runs), and a
 *   body or shape id counts as a call on its world. ts_world_step runs on the
 *   calling thread plus def.threads - 1 helpers (OpenMP threads, or the
 *   program's own through the task callbacks of ts_world_def); the helpers
 *   touch only that world and are done when ts_world_step returns.
 *   ts_create_world and ts_destroy_world may be called from any thread.
 *   Every result is bitwise the same for any number of threads.
 */
#ifndef TESSERA_H
#define TESSERA_H

#include "tessera/types.h"
#include "tessera/joint.h"
#include "tessera/snapshot.h"
#include "tessera/bulk.h"
#include "tessera/solver.h"
#include "tessera/shapes.h"
#include "tessera/query.h"
#include "tessera/constraint.h"
#include "tessera/motion_locks.h"
#include "tessera/limits.h"
#include "tessera/sensor.h"
#include "tessera/contact_report.h"
#include "tessera/body_moves.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Major version of this header (CMake's project version; a configure
 * check keeps the two equal). */
#define TS_VERSION_MAJOR 0
/** Minor version of this header. */
#define TS_VERSION_MINOR 1
/** Patch version of this header. */
#define TS_VERSION_PATCH 0
/** This header's version as a string. */
#define TS_VERSION_STRING "0.1.0"
/** This header's version as one number: major * 10000 + minor * 100 + patch. */
#define TS_VERSION_NUMBER (TS_VERSION_MAJOR * 10000 + TS_VERSION_MINOR * 100 + TS_VERSION_PATCH)

/** The most worlds that can exist at once. */
#define TS_MAX_WORLDS 128

/** The most bodies, the most shapes and the most joints one world can hold (2^28). */
#define TS_MAX_OBJECTS (1 << 28)

/* ---- version ---- */

/** The version of the library the program runs with, "major.minor.patch".
 * Compare it with TS_VERSION_STRING (the header the program was built
 * with) to detect a shared library of another version. */
TS_API const char *ts_version(void);

/** The run-time version as one number, major * 10000 + minor * 100 + patch
 * (compare with TS_VERSION_NUMBER). */
TS_API int ts_version_number(void);

/* ---- errors ---- */

/** The message of the last failed call on this thread ("" if none failed
 * yet), e.g. "ts_body_set_position: TS_ERROR_NOT_FINITE: position has a NaN
 * or infinite component (nan, 0, 0)": the function, the code, then what was
 * wrong. A successful call leaves it as it was. The string is thread local
 * and stays valid until the thread's next failing call. */
TS_API const char *ts_last_error(void);

/** The name of a result code, e.g. "TS_ERROR_STALE_ID"
 * ("TS_ERROR_UNKNOWN" for a value that is no ts_result). */
TS_API const char *ts_result_name(ts_result result);

/* ---- defaults ---- */

/** A world def with the defaults its fields list: gravity (0, -10, 0), 4
 * substeps, every core, the widest SIMD width, the soft step. */
TS_API ts_world_def ts_default_world_def(void);
/** A body def for a static body at the origin, identity rotation, gravity
 * scale 1, sleeping allowed (threshold 0.05 m/s). */
TS_API ts_body_def ts_default_body_def(void);
/** A shape def at the body origin: density 1, friction 0.6, restitution 0,
 * category 1, touching everything. */
TS_API ts_shape_def ts_default_shape_def(void);

/* ---- world ---- */

/** Makes a world. Returns the null id on failure (see ts_last_error()):
 * TS_ERROR_NULL_POINTER (def, or an allocator or task callback pair with
 * one of its two functions missing), TS_ERROR_UNINITIALIZED_DEF,
 * TS_ERROR_NOT_FINITE (gravity), TS_ERROR_OUT_OF_RANGE (substeps, threads,
 * simd_width or TESSERA_SIMD not built, solver, contact or joint settings,
 * capacities), TS_ERROR_OUT_OF_MEMORY, TS_ERROR_CAPACITY (TS_MAX_WORLDS
 * worlds exist). */
TS_API ts_world_id ts_create_world(const ts_world_def *def);
/** Destroys the world and everything in it; their ids go stale.
 * TS_ERROR_STALE_ID when the world is gone. */
TS_API ts_result ts_destroy_world(ts_world_id world);
/** True while the world exists. Records no error. */
TS_API bool ts_world_is_valid(ts_world_id world);

/** Advances the world by dt seconds (finite, > 0), in its substeps.
 * TS_ERROR_STALE_ID; TS_ERROR_NOT_FINITE / TS_ERROR_OUT_OF_RANGE for a bad
 * dt (nothing moves). Should a body's velocity or pose overflow during the
 * step (a huge force, dt or gravity), that body is held at its last finite
 * state, the step finishes for every other body, and the call returns
 * TS_ERROR_NOT_FINITE naming the body. TS_ERROR_OUT_OF_MEMORY when the
 * allocator refuses room for the step (new contacts, events, scratch): the
 * step takes all its room before it changes anything, so the world is
 * then exactly as it was (state, contacts, step count), and once the
 * allocator gives memory again the next step runs as if none had failed.
 * The step's arrays grow to the largest count seen and are then reused. */
TS_API ts_result ts_world_step(ts_world_id world, float dt);

/** Sets the gravity (m/s^2) for later steps. TS_ERROR_NOT_FINITE, TS_ERROR_STALE_ID. */
TS_API ts_result ts_world_set_gravity(ts_world_id world, ts_vec3 gravity);
/** Reads the gravity. TS_ERROR_NULL_POINTER, TS_ERROR_STALE_ID. */
TS_API ts_result ts_world_get_gravity(ts_world_id world, ts_vec3 *gravity);
/** Sets the substeps of later steps, 1..64. TS_ERROR_OUT_OF_RANGE, TS_ERROR_STALE_ID. */
TS_API ts_result ts_world_set_substeps(ts_world_id world, int substeps);
/** Workers of later steps: 0 = every core, 1..256 (see ts_world_def::threads).
 * TS_ERROR_OUT_OF_RANGE, TS_ERROR_STALE_ID. */
TS_API ts_result ts_world_set_threads(ts_world_id world, int threads);
/** Switches the solver of contacts and joints between steps
 * (TS_SOLVER_SOFT_STEP or TS_SOLVER_XPBD). A change clears the contacts' and
 * joints' stored impulses, so the first step with the other solver starts
 * without warm starting. TS_ERROR_OUT_OF_RANGE (not a ts_solver_type),
 * TS_ERROR_STALE_ID. */
TS_API ts_result ts_world_set_solver(ts_world_id world, ts_solver_type solver);
/** Reads the solver in use. TS_ERROR_NULL_POINTER, TS_ERROR_STALE_ID. */
TS_API ts_result ts_world_get_solver(ts_world_id world, ts_solver_type *solver);
/** Fills *counters with what the world holds now (bodies, contacts,
 * colours, islands). Counting the touching contacts walks them all: not
 * for every frame of a large world. TS_ERROR_NULL_POINTER, TS_ERROR_STALE_ID. */
TS_API ts_result ts_world_get_counters(ts_world_id world, ts_world_counters *counters);
/** Sleeping on or off for the whole world (ts_world_def::enable_sleep); off
 * wakes every island at once. TS_ERROR_STALE_ID; TS_ERROR_OUT_OF_MEMORY
 * when waking needs room the allocator refuses. */
TS_API ts_result ts_world_enable_sleep(ts_world_id world, bool enable);
/** Fills *profile with the times of the last step's stages.
 * TS_ERROR_NULL_POINTER, TS_ERROR_STALE_ID. */
TS_API ts_result ts_world_get_profile(ts_world_id world, ts_step_profile *profile);

/** Bulk read for backends: copies the id and the origin transform of every
 * body in the awake (moving) range into the caller's arrays, in storage
 * order (which changes as bodies sleep, wake, or are made and destroyed,
 * and when a step re-orders the awake bodies by place, every 32 steps at
 * most: match by id). capacity is the length of both arrays; *count receives the
 * number of awake bodies (when it exceeds capacity only capacity entries
 * are written). ids may be NULL; transforms may be NULL when capacity is 0
 * (to count only). Static and sleeping bodies are not in the range.
 * TS_ERROR_NULL_POINTER (count, or transforms with capacity > 0),
 * TS_ERROR_OUT_OF_RANGE (capacity < 0), TS_ERROR_STALE_ID. */
TS_API ts_result ts_world_get_awake_transforms(ts_world_id world, ts_body_id *ids, ts_transform *transforms,
                                               int capacity, int *count);

/** The contact begin / end events of the last step (see ts_contact_events).
 * TS_ERROR_NULL_POINTER, TS_ERROR_STALE_ID. */
TS_API ts_result ts_world_get_contact_events(ts_world_id world, ts_contact_events *events);

/** Bulk read of chosen bodies: the origin transform of bodies[i] into
 * transforms[i], for i < count. Every id is checked first; on failure
 * nothing is written. TS_ERROR_NULL_POINTER (bodies or transforms),
 * TS_ERROR_OUT_OF_RANGE (count < 0), TS_ERROR_STALE_ID (the world, or a
 * null or destroyed body; the message names its index),
 * TS_ERROR_WRONG_WORLD (a body of another world). */
TS_API ts_result ts_world_get_body_transforms(ts_world_id world, const ts_body_id *bodies, int count,
                                              ts_transform *transforms);

/* ---- bodies ---- */

/** Makes a body (without shapes: a dynamic body gets 1 kg until shapes
 * give it mass). Returns the null id on failure (see ts_last_error()):
 * TS_ERROR_STALE_ID (world), TS_ERROR_NULL_POINTER, TS_ERROR_UNINITIALIZED_DEF,
 * TS_ERROR_OUT_OF_RANGE (type, rotation not within 1% of unit length,
 * negative damping or sleep threshold), TS_ERROR_NOT_FINITE,
 * TS_ERROR_INVALID_OPERATION (a static body with a velocity),
 * TS_ERROR_CAPACITY (TS_MAX_OBJECTS bodies), TS_ERROR_OUT_OF_MEMORY. */
TS_API ts_body_id ts_create_body(ts_world_id world, const ts_body_def *def);
/** Destroys the body, its shapes, contacts and joints (their ids go stale)
 * and wakes what it touched. TS_ERROR_STALE_ID; TS_ERROR_OUT_OF_MEMORY when
 * waking needs room the allocator refuses. */
TS_API ts_result ts_destroy_body(ts_body_id body);
/** True while the body exists. Records no error. */
TS_API bool ts_body_is_valid(ts_body_id body);
/** The body's world, or the null id when the body id is stale (then
 * ts_last_error() says so). */
TS_API ts_world_id ts_body_get_world(ts_body_id body);

/** Reads the body's type. TS_ERROR_NULL_POINTER, TS_ERROR_STALE_ID. */
TS_API ts_result ts_body_get_type(ts_body_id body, ts_body_type *type);
/** Changes the type; the mass is recomputed (static and kinematic bodies
 * have none), a static body's velocity is zeroed, forces are cleared, the
 * body's contacts are remade from the next step and it wakes.
 * TS_ERROR_OUT_OF_RANGE (not a ts_body_type, or shapes that give a dynamic
 * body unusable mass), TS_ERROR_INVALID_OPERATION (dynamic, for a body with
 * a mesh or heightfield shape), TS_ERROR_STALE_ID, TS_ERROR_OUT_OF_MEMORY. */
TS_API ts_result ts_body_set_type(ts_body_id body, ts_body_type type);

/** Whether the body is awake. A dynamic body belongs to an island (the
 * bodies it touches or is jointed to, directly or through others); an
 * island whose bodies have all been slower than their sleep threshold for
 * 0.5 s sleeps, and costs nothing in a step until something wakes it: an
 * awake body touching it, or a call that moves, pushes or changes one of
 * its bodies (or a body touching it), or ts_body_set_awake(). Static and
 * kinematic bodies are always "awake" and in no island.
 * TS_ERROR_NULL_POINTER, TS_ERROR_STALE_ID. */
TS_API ts_result ts_body_is_awake(ts_body_id body, bool *awake);
/** Wakes the body's island (and islands touching it), or puts its island to
 * sleep now (awake = false; no effect on static and kinematic bodies, nor
 * while the world's sleeping is off). TS_ERROR_STALE_ID,
 * TS_ERROR_OUT_OF_MEMORY (waking). */
TS_API ts_result ts_body_set_awake(ts_body_id body, bool awake);
/** Whether the body may sleep (ts_body_def::enable_sleep); false wakes it.
 * TS_ERROR_STALE_ID, TS_ERROR_OUT_OF_MEMORY (waking). */
TS_API ts_result ts_body_enable_sleep(ts_body_id body, bool enable);
/** The body's island id (>= 0, stable while the island lasts; for viewers
 * and debugging), or -1 for static and kinematic bodies.
 * TS_ERROR_NULL_POINTER, TS_ERROR_STALE_ID. */
TS_API ts_result ts_body_get_island(ts_body_id body, int *island);

/** Position of the body origin in the world. TS_ERROR_NULL_POINTER, TS_ERROR_STALE_ID. */
TS_API ts_result ts_body_get_position(ts_body_id body, ts_vec3 *position);
/** Moves the body origin (a teleport: the velocity is kept) and wakes the
 * body. TS_ERROR_NOT_FINITE, TS_ERROR_STALE_ID, TS_ERROR_OUT_OF_MEMORY. */
TS_API ts_result ts_body_set_position(ts_body_id body, ts_vec3 position);
/** The body's rotation in the world. TS_ERROR_NULL_POINTER, TS_ERROR_STALE_ID. */
TS_API ts_result ts_body_get_rotation(ts_body_id body, ts_quat *rotation);
/** Turns the body about its origin and wakes it. Normalised if within 1% of
 * unit length; refused otherwise (TS_ERROR_OUT_OF_RANGE).
 * TS_ERROR_NOT_FINITE, TS_ERROR_STALE_ID, TS_ERROR_OUT_OF_MEMORY. */
TS_API ts_result ts_body_set_rotation(ts_body_id body, ts_quat rotation);
/** The body origin's transform in the world. TS_ERROR_NULL_POINTER, TS_ERROR_STALE_ID. */
TS_API ts_result ts_body_get_transform(ts_body_id body, ts_transform *transform);
/** Sets position and rotation at once (as ts_body_set_position() and
 * ts_body_set_rotation()). TS_ERROR_NOT_FINITE, TS_ERROR_OUT_OF_RANGE
 * (rotation), TS_ERROR_STALE_ID, TS_ERROR_OUT_OF_MEMORY. */
TS_API ts_result ts_body_set_transform(ts_body_id body, ts_vec3 position, ts_quat rotation);
/** World position of the centre of mass. TS_ERROR_NULL_POINTER, TS_ERROR_STALE_ID. */
TS_API ts_result ts_body_get_world_center_of_mass(ts_body_id body, ts_vec3 *center);

/** Velocity of the centre of mass, m/s. TS_ERROR_NULL_POINTER, TS_ERROR_STALE_ID. */
TS_API ts_result ts_body_get_linear_velocity(ts_body_id body, ts_vec3 *velocity);
/** Sets the velocity of the centre of mass and wakes the body.
 * TS_ERROR_NOT_FINITE, TS_ERROR_STALE_ID, TS_ERROR_INVALID_OPERATION (a
 * non-zero velocity for a static body), TS_ERROR_OUT_OF_MEMORY (waking). */
TS_API ts_result ts_body_set_linear_velocity(ts_body_id body, ts_vec3 velocity);
/** Angular velocity, world frame, rad/s. TS_ERROR_NULL_POINTER, TS_ERROR_STALE_ID. */
TS_API ts_result ts_body_get_angular_velocity(ts_body_id body, ts_vec3 *velocity);
/** Sets the angular velocity and wakes the body; fails as
 * ts_body_set_linear_velocity(). */
TS_API ts_result ts_body_set_angular_velocity(ts_body_id body, ts_vec3 velocity);

/** Adds a force (N) at a world point for the next step (then it is
 * cleared): a force through the centre of mass plus the torque of its
 * lever arm. Wakes the body. Static and kinematic bodies ignore it (the call
 * succeeds). TS_ERROR_NOT_FINITE, TS_ERROR_STALE_ID, TS_ERROR_OUT_OF_RANGE
 * (the accumulated force or torque would overflow), TS_ERROR_OUT_OF_MEMORY. */
TS_API ts_result ts_body_apply_force(ts_body_id body, ts_vec3 force, ts_vec3 point);
/** Adds a force (N) through the centre of mass for the next step; as
 * ts_body_apply_force(). */
TS_API ts_result ts_body_apply_force_to_center(ts_body_id body, ts_vec3 force);
/** Adds a torque (N m, world frame) for the next step; as ts_body_apply_force(). */
TS_API ts_result ts_body_apply_torque(ts_body_id body, ts_vec3 torque);
/** Changes the velocity at once by an impulse (N s) at a world point.
 * Wakes the body. Static and kinematic bodies ignore it (the call
 * succeeds). TS_ERROR_NOT_FINITE, TS_ERROR_STALE_ID, TS_ERROR_OUT_OF_RANGE
 * (the velocity would overflow), TS_ERROR_OUT_OF_MEMORY. */
TS_API ts_result ts_body_apply_linear_impulse(ts_body_id body, ts_vec3 impulse, ts_vec3 point);
/** An impulse (N s) through the centre of mass; as ts_body_apply_linear_impulse(). */
TS_API ts_result ts_body_apply_linear_impulse_to_center(ts_body_id body, ts_vec3 impulse);
/** An angular impulse (N m s, world frame); as ts_body_apply_linear_impulse(). */
TS_API ts_result ts_body_apply_angular_impulse(ts_body_id body, ts_vec3 impulse);

/** Mass properties from the shapes (zero for static and kinematic bodies).
 * A dynamic body without shapes gets 1 kg and the inertia of a solid sphere
 * of radius 0.5 m, so that it still moves. TS_ERROR_NULL_POINTER,
 * TS_ERROR_STALE_ID. */
TS_API ts_result ts_body_get_mass_data(ts_body_id body, ts_mass_data *mass_data);
/** The body's mass, kg (0 unless dynamic). TS_ERROR_NULL_POINTER, TS_ERROR_STALE_ID. */
TS_API ts_result ts_body_get_mass(ts_body_id body, float *mass);

/** Sets the linear damping (>= 0, 1/s). TS_ERROR_NOT_FINITE, TS_ERROR_OUT_OF_RANGE, TS_ERROR_STALE_ID. */
TS_API ts_result ts_body_set_linear_damping(ts_body_id body, float damping);
/** Reads the linear damping. TS_ERROR_NULL_POINTER, TS_ERROR_STALE_ID. */
TS_API ts_result ts_body_get_linear_damping(ts_body_id body, float *damping);
/** Sets the angular damping (>= 0, 1/s). TS_ERROR_NOT_FINITE, TS_ERROR_OUT_OF_RANGE, TS_ERROR_STALE_ID. */
TS_API ts_result ts_body_set_angular_damping(ts_body_id body, float damping);
/** Reads the angular damping. TS_ERROR_NULL_POINTER, TS_ERROR_STALE_ID. */
TS_API ts_result ts_body_get_angular_damping(ts_body_id body, float *damping);
/** Sets the gravity scale (finite; 0 floats, -1 falls up) and wakes the
 * body. TS_ERROR_NOT_FINITE, TS_ERROR_STALE_ID, TS_ERROR_OUT_OF_MEMORY. */
TS_API ts_result ts_body_set_gravity_scale(ts_body_id body, float scale);
/** Reads the gravity scale. TS_ERROR_NULL_POINTER, TS_ERROR_STALE_ID. */
TS_API ts_result ts_body_get_gravity_scale(ts_body_id body, float *scale);

/** Stores the program's pointer in the body. TS_ERROR_STALE_ID. */
TS_API ts_result ts_body_set_user_data(ts_body_id body, void *user_data);
/** The body's user data, or NULL when the id is stale (then ts_last_error() says so). */
TS_API void *ts_body_get_user_data(ts_body_id body);

/** The touching contacts of a body: *count receives how many there are and
 * up to capacity of them are written (contacts may be NULL when capacity is
 * 0). TS_ERROR_NULL_POINTER (count, or contacts with capacity > 0),
 * TS_ERROR_OUT_OF_RANGE (capacity < 0), TS_ERROR_STALE_ID. */
TS_API ts_result ts_body_get_contacts(ts_body_id body, ts_contact_data *contacts, int capacity, int *count);

/** Number of shapes in *count, and up to capacity of their ids in creation
 * order (shapes may be NULL when capacity is 0). TS_ERROR_NULL_POINTER,
 * TS_ERROR_OUT_OF_RANGE (capacity < 0), TS_ERROR_STALE_ID. */
TS_API ts_result ts_body_get_shapes(ts_body_id body, ts_shape_id *shapes, int capacity, int *count);

/* ---- shapes (attached to a body; a body may hold several: a compound) ---- */

/** Attaches a sphere to the body and recomputes its mass (a moving body
 * wakes). Returns the null id on failure (see ts_last_error()):
 * TS_ERROR_NULL_POINTER (def or sphere), TS_ERROR_UNINITIALIZED_DEF,
 * TS_ERROR_STALE_ID (body), TS_ERROR_NOT_FINITE, TS_ERROR_OUT_OF_RANGE
 * (radius, density, friction, restitution outside [0, 1], rolling
 * resistance outside [0, TS_MAX_ROLLING_RESISTANCE], a local rotation
 * not within 1% of unit length, or a size and density whose mass float
 * cannot hold), TS_ERROR_CAPACITY, TS_ERROR_OUT_OF_MEMORY. */
TS_API ts_shape_id ts_create_sphere_shape(ts_body_id body, const ts_shape_def *def, const ts_sphere *sphere);
/** Attaches a box; fails as ts_create_sphere_shape() (half extents each > 0). */
TS_API ts_shape_id ts_create_box_shape(ts_body_id body, const ts_shape_def *def, const ts_box *box);
/** Attaches a capsule; fails as ts_create_sphere_shape() (radius > 0,
 * half height >= 0). */
TS_API ts_shape_id ts_create_capsule_shape(ts_body_id body, const ts_shape_def *def, const ts_capsule *capsule);
/** Destroys the shape and its contacts, recomputes its body's mass and
 * wakes the body. TS_ERROR_STALE_ID, TS_ERROR_OUT_OF_MEMORY (waking). */
TS_API ts_result ts_destroy_shape(ts_shape_id shape);
/** True while the shape exists. Records no error. */
TS_API bool ts_shape_is_valid(ts_shape_id shape);

/** The shape's body. TS_ERROR_NULL_POINTER, TS_ERROR_STALE_ID. */
TS_API ts_result ts_shape_get_body(ts_shape_id shape, ts_body_id *body);
/** The shape's type. TS_ERROR_NULL_POINTER, TS_ERROR_STALE_ID. */
TS_API ts_result ts_shape_get_type(ts_shape_id shape, ts_shape_type *type);
/** A sphere shape's geometry. TS_ERROR_NULL_POINTER, TS_ERROR_STALE_ID,
 * TS_ERROR_INVALID_OPERATION (another type). */
TS_API ts_result ts_shape_get_sphere(ts_shape_id shape, ts_sphere *sphere);
/** A box shape's geometry; as ts_shape_get_sphere(). */
TS_API ts_result ts_shape_get_box(ts_shape_id shape, ts_box *box);
/** A capsule shape's geometry; as ts_shape_get_sphere(). */
TS_API ts_result ts_shape_get_capsule(ts_shape_id shape, ts_capsule *capsule);
/** The shape's placement in its body's origin frame. TS_ERROR_NULL_POINTER, TS_ERROR_STALE_ID. */
TS_API ts_result ts_shape_get_local_transform(ts_shape_id shape, ts_transform *transform);

/** Sets the density (> 0, kg/m^3), recomputes the body's mass and wakes it.
 * TS_ERROR_NOT_FINITE, TS_ERROR_OUT_OF_RANGE (also a density whose mass
 * float cannot hold), TS_ERROR_STALE_ID, TS_ERROR_OUT_OF_MEMORY. */
TS_API ts_result ts_shape_set_density(ts_shape_id shape, float density);
/** Reads the density. TS_ERROR_NULL_POINTER, TS_ERROR_STALE_ID. */
TS_API ts_result ts_shape_get_density(ts_shape_id shape, float *density);
/** Sets the friction (>= 0); the shape's existing contacts take it at once.
 * TS_ERROR_NOT_FINITE, TS_ERROR_OUT_OF_RANGE, TS_ERROR_STALE_ID. */
TS_API ts_result ts_shape_set_friction(ts_shape_id shape, float friction);
/** Reads the friction. TS_ERROR_NULL_POINTER, TS_ERROR_STALE_ID. */
TS_API ts_result ts_shape_get_friction(ts_shape_id shape, float *friction);
/** Sets the restitution (0..1); the shape's existing contacts take it at
 * once. TS_ERROR_NOT_FINITE, TS_ERROR_OUT_OF_RANGE, TS_ERROR_STALE_ID. */
TS_API ts_result ts_shape_set_restitution(ts_shape_id shape, float restitution);
/** Reads the restitution. TS_ERROR_NULL_POINTER, TS_ERROR_STALE_ID. */
TS_API ts_result ts_shape_get_restitution(ts_shape_id shape, float *restitution);
/** Sets the rolling resistance (from 0 to TS_MAX_ROLLING_RESISTANCE; see
 * ts_shape_def and docs/shapes.md); the shape's existing contacts take it
 * at once. TS_ERROR_NOT_FINITE, TS_ERROR_OUT_OF_RANGE, TS_ERROR_STALE_ID. */
TS_API ts_result ts_shape_set_rolling_resistance(ts_shape_id shape, float rolling_resistance);
/** Reads the rolling resistance. TS_ERROR_NULL_POINTER, TS_ERROR_STALE_ID. */
TS_API ts_result ts_shape_get_rolling_resistance(ts_shape_id shape, float *rolling_resistance);
/** Sets the collision filter; the shape's contacts are dropped and its
 * pairs found again under the new filter from the next step; wakes the
 * body. TS_ERROR_STALE_ID, TS_ERROR_OUT_OF_MEMORY. */
TS_API ts_result ts_shape_set_filter(ts_shape_id shape, ts_filter filter);
/** Reads the collision filter. TS_ERROR_NULL_POINTER, TS_ERROR_STALE_ID. */
TS_API ts_result ts_shape_get_filter(ts_shape_id shape, ts_filter *filter);

/** Stores the program's pointer in the shape. TS_ERROR_STALE_ID. */
TS_API ts_result ts_shape_set_user_data(ts_shape_id shape, void *user_data);
/** The shape's user data, or NULL when the id is stale (then ts_last_error() says so). */
TS_API void *ts_shape_get_user_data(ts_shape_id shape);

#ifdef __cplusplus
}
#endif

#endif
