/* tessera: a 3D rigid-body physics library with a data-oriented constraint solver.
 *
 * The whole public API. Conventions:
 * - Objects are named by ids (index + generation). Every call checks its ids; a
 *   stale id or one of another world gets an error, never a crash.
 * - Calls that can fail return a ts_result, or a null id from create calls;
 *   ts_last_error() then says, in English, which argument was wrong and why.
 *   A failed call changes nothing.
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

#ifdef __cplusplus
extern "C" {
#endif

#define TS_VERSION_MAJOR 0
#define TS_VERSION_MINOR 1
#define TS_VERSION_PATCH 0
#define TS_VERSION_STRING "0.1.0"

/* The most worlds that can exist at once. */
#define TS_MAX_WORLDS 128

/* The most bodies, and the most shapes, one world can hold (2^28). */
#define TS_MAX_OBJECTS (1 << 28)

/* ---- errors ---- */

/* The message of the last failed call on this thread ("" if none failed yet).
 * A successful call leaves it as it was. */
TS_API const char *ts_last_error(void);

/* The name of a result code, e.g. "TS_ERROR_STALE_ID". */
TS_API const char *ts_result_name(ts_result result);

/* ---- defaults ---- */

TS_API ts_world_def ts_default_world_def(void);
TS_API ts_body_def ts_default_body_def(void);
TS_API ts_shape_def ts_default_shape_def(void);

/* ---- world ---- */

/* Returns the null id on failure (see ts_last_error). */
TS_API ts_world_id ts_create_world(const ts_world_def *def);
TS_API ts_result ts_destroy_world(ts_world_id world);
TS_API bool ts_world_is_valid(ts_world_id world);

/* Advance the world by dt seconds (finite, > 0), in def.substeps substeps.
 * Should a body's velocity or pose overflow during the step (a huge force,
 * dt or gravity), that body is held at its last finite state, the step
 * finishes for every other body, and TS_ERROR_NOT_FINITE names the body. */
TS_API ts_result ts_world_step(ts_world_id world, float dt);

TS_API ts_result ts_world_set_gravity(ts_world_id world, ts_vec3 gravity);
TS_API ts_result ts_world_get_gravity(ts_world_id world, ts_vec3 *gravity);
TS_API ts_result ts_world_set_substeps(ts_world_id world, int substeps);
/* Workers of later steps: 0 = every core, 1..256 (see ts_world_def.threads). */
TS_API ts_result ts_world_set_threads(ts_world_id world, int threads);
/* Switch the solver of contacts and joints between steps
 * (TS_SOLVER_SOFT_STEP or TS_SOLVER_XPBD). A change clears the contacts' and
 * joints' stored impulses, so the first step with the other solver starts
 * without warm starting. */
TS_API ts_result ts_world_set_solver(ts_world_id world, ts_solver_type solver);
TS_API ts_result ts_world_get_solver(ts_world_id world, ts_solver_type *solver);
TS_API ts_result ts_world_get_counters(ts_world_id world, ts_world_counters *counters);
/* Sleeping on or off for the whole world (ts_world_def.enable_sleep); off
 * wakes every island at once. */
TS_API ts_result ts_world_enable_sleep(ts_world_id world, bool enable);
TS_API ts_result ts_world_get_profile(ts_world_id world, ts_step_profile *profile);

/* Bulk read for backends: copies the id and the origin transform of every body in
 * the awake (moving) range into the caller's arrays, in storage order. capacity
 * is the length of both arrays; *count receives the number of awake bodies
 * (when it exceeds capacity only capacity entries are written). ids may be NULL;
 * transforms may be NULL when capacity is 0 (to count only). */
TS_API ts_result ts_world_get_awake_transforms(ts_world_id world, ts_body_id *ids, ts_transform *transforms,
                                               int capacity, int *count);

/* The contact begin / end events of the last step (see ts_contact_events). */
TS_API ts_result ts_world_get_contact_events(ts_world_id world, ts_contact_events *events);

/* Bulk read of chosen bodies: the origin transform of each id, in order. Every
 * id is checked first (an id of another world gets TS_ERROR_WRONG_WORLD); on
 * failure nothing is written. */
TS_API ts_result ts_world_get_body_transforms(ts_world_id world, const ts_body_id *bodies, int count,
                                              ts_transform *transforms);

/* ---- bodies ---- */

/* Returns the null id on failure (see ts_last_error). */
TS_API ts_body_id ts_create_body(ts_world_id world, const ts_body_def *def);
/* Destroys the body and its shapes. */
TS_API ts_result ts_destroy_body(ts_body_id body);
TS_API bool ts_body_is_valid(ts_body_id body);
TS_API ts_world_id ts_body_get_world(ts_body_id body);

TS_API ts_result ts_body_get_type(ts_body_id body, ts_body_type *type);
/* Changes the type; mass is recomputed (static and kinematic bodies have none). */
TS_API ts_result ts_body_set_type(ts_body_id body, ts_body_type type);

/* Sleeping. A dynamic body belongs to an island (the bodies it touches,
 * directly or through others); an island whose bodies have all been slower
 * than their sleep threshold for 0.5 s sleeps, and costs nothing in a step
 * until something wakes it: an awake body touching it, or a call that moves,
 * pushes or changes one of its bodies (or a body touching it), or
 * ts_body_set_awake. Static and kinematic bodies are always "awake" and in no
 * island. */
TS_API ts_result ts_body_is_awake(ts_body_id body, bool *awake);
/* Wakes the body's island (and islands touching it), or puts its island to
 * sleep now (awake = false; no effect on static and kinematic bodies, nor
 * while the world's sleeping is off). */
TS_API ts_result ts_body_set_awake(ts_body_id body, bool awake);
/* Whether the body may sleep (ts_body_def.enable_sleep); false wakes it. */
TS_API ts_result ts_body_enable_sleep(ts_body_id body, bool enable);
/* The body's island id (>= 0, stable while the island lasts; for viewers and
 * debugging), or -1 for static and kinematic bodies. */
TS_API ts_result ts_body_get_island(ts_body_id body, int *island);

/* Position of the body origin in the world. */
TS_API ts_result ts_body_get_position(ts_body_id body, ts_vec3 *position);
TS_API ts_result ts_body_set_position(ts_body_id body, ts_vec3 position);
TS_API ts_result ts_body_get_rotation(ts_body_id body, ts_quat *rotation);
/* Normalised if within 1% of unit length; refused otherwise. */
TS_API ts_result ts_body_set_rotation(ts_body_id body, ts_quat rotation);
TS_API ts_result ts_body_get_transform(ts_body_id body, ts_transform *transform);
TS_API ts_result ts_body_set_transform(ts_body_id body, ts_vec3 position, ts_quat rotation);
/* World position of the centre of mass. */
TS_API ts_result ts_body_get_world_center_of_mass(ts_body_id body, ts_vec3 *center);

/* Velocity of the centre of mass. Static bodies refuse non-zero velocities. */
TS_API ts_result ts_body_get_linear_velocity(ts_body_id body, ts_vec3 *velocity);
TS_API ts_result ts_body_set_linear_velocity(ts_body_id body, ts_vec3 velocity);
TS_API ts_result ts_body_get_angular_velocity(ts_body_id body, ts_vec3 *velocity);
TS_API ts_result ts_body_set_angular_velocity(ts_body_id body, ts_vec3 velocity);

/* Forces and torques act through the next step and are then cleared; impulses
 * change the velocity at once. point is a world point. Non-dynamic bodies
 * ignore them (the call succeeds). */
TS_API ts_result ts_body_apply_force(ts_body_id body, ts_vec3 force, ts_vec3 point);
TS_API ts_result ts_body_apply_force_to_center(ts_body_id body, ts_vec3 force);
TS_API ts_result ts_body_apply_torque(ts_body_id body, ts_vec3 torque);
TS_API ts_result ts_body_apply_linear_impulse(ts_body_id body, ts_vec3 impulse, ts_vec3 point);
TS_API ts_result ts_body_apply_linear_impulse_to_center(ts_body_id body, ts_vec3 impulse);
TS_API ts_result ts_body_apply_angular_impulse(ts_body_id body, ts_vec3 impulse);

/* Mass properties from the shapes (zero for static and kinematic bodies). A
 * dynamic body without shapes gets 1 kg and the inertia of a solid sphere of
 * radius 0.5 m, so that it still moves. */
TS_API ts_result ts_body_get_mass_data(ts_body_id body, ts_mass_data *mass_data);
TS_API ts_result ts_body_get_mass(ts_body_id body, float *mass);

TS_API ts_result ts_body_set_linear_damping(ts_body_id body, float damping);
TS_API ts_result ts_body_get_linear_damping(ts_body_id body, float *damping);
TS_API ts_result ts_body_set_angular_damping(ts_body_id body, float damping);
TS_API ts_result ts_body_get_angular_damping(ts_body_id body, float *damping);
TS_API ts_result ts_body_set_gravity_scale(ts_body_id body, float scale);
TS_API ts_result ts_body_get_gravity_scale(ts_body_id body, float *scale);

TS_API ts_result ts_body_set_user_data(ts_body_id body, void *user_data);
TS_API void *ts_body_get_user_data(ts_body_id body);

/* The touching contacts of a body: *count receives how many there are and up
 * to capacity of them are written (contacts may be NULL when capacity is 0). */
TS_API ts_result ts_body_get_contacts(ts_body_id body, ts_contact_data *contacts, int capacity, int *count);

/* Number of shapes, and up to capacity of their ids in creation order. */
TS_API ts_result ts_body_get_shapes(ts_body_id body, ts_shape_id *shapes, int capacity, int *count);

/* ---- shapes (attached to a body; a body may hold several: a compound) ---- */

/* Each returns the null id on failure (see ts_last_error). */
TS_API ts_shape_id ts_create_sphere_shape(ts_body_id body, const ts_shape_def *def, const ts_sphere *sphere);
TS_API ts_shape_id ts_create_box_shape(ts_body_id body, const ts_shape_def *def, const ts_box *box);
TS_API ts_shape_id ts_create_capsule_shape(ts_body_id body, const ts_shape_def *def, const ts_capsule *capsule);
/* Destroys the shape and recomputes its body's mass. */
TS_API ts_result ts_destroy_shape(ts_shape_id shape);
TS_API bool ts_shape_is_valid(ts_shape_id shape);

TS_API ts_result ts_shape_get_body(ts_shape_id shape, ts_body_id *body);
TS_API ts_result ts_shape_get_type(ts_shape_id shape, ts_shape_type *type);
TS_API ts_result ts_shape_get_sphere(ts_shape_id shape, ts_sphere *sphere);
TS_API ts_result ts_shape_get_box(ts_shape_id shape, ts_box *box);
TS_API ts_result ts_shape_get_capsule(ts_shape_id shape, ts_capsule *capsule);
TS_API ts_result ts_shape_get_local_transform(ts_shape_id shape, ts_transform *transform);

/* Changing the density recomputes the body's mass. */
TS_API ts_result ts_shape_set_density(ts_shape_id shape, float density);
TS_API ts_result ts_shape_get_density(ts_shape_id shape, float *density);
TS_API ts_result ts_shape_set_friction(ts_shape_id shape, float friction);
TS_API ts_result ts_shape_get_friction(ts_shape_id shape, float *friction);
TS_API ts_result ts_shape_set_restitution(ts_shape_id shape, float restitution);
TS_API ts_result ts_shape_get_restitution(ts_shape_id shape, float *restitution);
TS_API ts_result ts_shape_set_filter(ts_shape_id shape, ts_filter filter);
TS_API ts_result ts_shape_get_filter(ts_shape_id shape, ts_filter *filter);

TS_API ts_result ts_shape_set_user_data(ts_shape_id shape, void *user_data);
TS_API void *ts_shape_get_user_data(ts_shape_id shape);

#ifdef __cplusplus
}
#endif

#endif
