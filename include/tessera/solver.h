/** @file
 * The solver alone ("bring your own contacts"), for a program with its own
 * collision detection (included by tessera.h).
 *
 * A solver context keeps what tessera's solver keeps between steps; each
 * ts_solve_contacts() call takes the program's bodies, contact manifolds
 * and joints as arrays, runs one step of the world's solver on them (the
 * soft step or XPBD, as the context's def says: graph colours, SIMD-wide
 * kernels, the def's threads and substeps) and writes the bodies' new
 * poses and velocities, each contact point's impulse and each joint's
 * reaction back into the same arrays.
 *
 * Warm starting follows the program's ids: a manifold's key names a pair of
 * bodies' contact across calls, a point's feature_id names a point within
 * it (a point without a match by feature id takes the impulse of the
 * nearest last point within 5 mm, as in a world), and a joint's key names
 * the joint. A manifold or joint whose key is missing from a call is
 * forgotten. Graph colours are kept per key as a world keeps them per
 * contact: fed the manifolds a world's narrowphase made, in the world's
 * contact order, a context gives that world's solver result bit for bit,
 * at every SIMD width and thread count.
 *
 * Bodies are given in their simulation frame, as tessera keeps them: the
 * centre of mass and the rotation of the principal axes of inertia, so
 * that the inertia is the diagonal `inertia`. A contact point is given by
 * its offset from body A's centre of mass (world axes); body B's offset is
 * that plus the manifold's anchor_shift (centre of A - centre of B when the
 * points were found: a point is one place on both bodies). Joint frames
 * are in each body's own frame, which local_center and local_rotation
 * place relative to the principal frame (as ts_mass_data does). */
#ifndef TESSERA_SOLVER_H
#define TESSERA_SOLVER_H

#include "joint.h"
#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Names a solver context. A zeroed id is the null id. */
typedef struct ts_solver_context_id {
    uint16_t index1;     /**< the context's slot + 1 (0: the null id) */
    uint16_t generation; /**< the slot's generation when the context was made */
} ts_solver_context_id;

/** The null solver context id (what a failed ts_create_solver_context() returns). */
#define TS_NULL_SOLVER_CONTEXT_ID (TS_LITERAL(ts_solver_context_id){0, 0})

/** True for the null solver context id. */
static inline bool ts_solver_context_id_is_null(ts_solver_context_id id) { return id.index1 == 0; }

/** A body of a ts_solve_contacts() call; start from
 * ts_default_solver_body(). The call reads every field and writes the
 * new center, rotation and velocities of kinematic and dynamic bodies. */
typedef struct ts_solver_body {
    ts_body_type type;         /**< static: never moves; kinematic: moves by its velocity; dynamic */
    ts_vec3 center;            /**< centre of mass, world (in and out) */
    ts_quat rotation;          /**< the principal axes in the world (in and out); unit within 1% */
    ts_vec3 linear_velocity;   /**< of the centre of mass, m/s (in and out; zero for static bodies) */
    ts_vec3 angular_velocity;  /**< world frame, rad/s (in and out; zero for static bodies) */
    float mass;                /**< kg, > 0 (dynamic bodies; others have none) */
    ts_vec3 inertia;           /**< principal moments about the centre, kg m^2, each > 0 (dynamic bodies) */
    ts_vec3 force;             /**< N through the centre of mass over this call's dt (dynamic bodies) */
    ts_vec3 torque;            /**< N m, world frame, over this call's dt (dynamic bodies) */
    float gravity_scale;       /**< finite; default 1 (dynamic bodies) */
    float linear_damping;      /**< >= 0, 1/s (dynamic bodies) */
    float angular_damping;     /**< >= 0, 1/s (dynamic bodies) */
    ts_vec3 local_center;      /**< joint frames: the centre of mass in the body's own frame (default 0) */
    ts_quat local_rotation;    /**< joint frames: the principal axes in the body's own frame (default identity) */
} ts_solver_body;

/** One point of a ts_solver_manifold. */
typedef struct ts_solver_point {
    ts_vec3 anchor;       /**< the point minus body A's centre of mass, world axes, m */
    float separation;     /**< along the normal, m; negative = overlap (speculative points are positive) */
    uint32_t feature_id;  /**< which features touch: the point's name for warm starting */
    /** out: the point's normal impulse over the call's last substep, N s
     * (about the contact force times dt / substeps; what the next call
     * warm starts from) */
    float normal_impulse;
} ts_solver_point;

/** A contact manifold between two bodies of a ts_solve_contacts() call;
 * start from ts_default_solver_manifold(). */
typedef struct ts_solver_manifold {
    uint64_t key;               /**< the program's name for this contact, unique within a call */
    int32_t body_a;             /**< index of body A in ts_solver_input::bodies */
    int32_t body_b;             /**< index of body B (another body; one of the two dynamic) */
    ts_vec3 normal;             /**< unit, from A to B */
    ts_vec3 anchor_shift;       /**< B's anchors are A's plus this: centre of A - centre of B when measured */
    float friction;             /**< >= 0 (a world uses sqrt of the two shapes' product) */
    float restitution;          /**< 0..1 (a world uses the larger of the two shapes') */
    int point_count;            /**< 0..4; 0: the pair stopped touching (its warm start is dropped) */
    ts_solver_point points[4];  /**< the first point_count are read */
    float tangent_impulse[2];   /**< out: friction impulses at the manifold's centre (last substep), N s */
    float twist_impulse;        /**< out: torsional friction impulse about the normal (last substep), N m s */
} ts_solver_manifold;

/** A joint of a ts_solve_contacts() call: every joint type a world has,
 * with the settings of its def (ts_hinge_joint_def and the others); start
 * from ts_default_solver_joint(). The axis settings act on the joint's
 * coordinate: hinge angle (rad), prismatic translation (m), distance (m);
 * ball and fixed joints ignore them. */
typedef struct ts_solver_joint {
    uint64_t key;               /**< the program's name for this joint, unique within a call */
    ts_joint_type type;         /**< which joint */
    int32_t body_a;             /**< index of body A in ts_solver_input::bodies */
    int32_t body_b;             /**< index of body B (another body; one of the two dynamic) */
    ts_transform local_frame_a; /**< joint frame in body A's own frame (see ts_solver_body::local_center) */
    ts_transform local_frame_b; /**< joint frame in body B's own frame */
    float length;               /**< distance joints: rod or rest length, >= 0, m */
    bool enable_limit;          /**< keep the coordinate within [lower, upper] */
    float lower;                /**< lower limit (hinge: >= -pi; distance: >= 0) */
    float upper;                /**< upper limit, >= lower (hinge: <= pi) */
    bool enable_motor;          /**< drive the coordinate's speed (hinge, prismatic) */
    float motor_speed;          /**< rad/s or m/s */
    float max_motor_force;      /**< >= 0: N m (hinge) or N (prismatic) */
    bool enable_spring;         /**< pull the coordinate toward spring_target (distance: toward length) */
    float spring_hertz;         /**< >= 0; 0 = no spring */
    float spring_damping_ratio; /**< >= 0 */
    float spring_target;        /**< hinge and prismatic: the spring's rest coordinate */
    ts_vec3 reaction_force;     /**< out: the force on body B over this call, N (body A got the opposite) */
    ts_vec3 reaction_torque;    /**< out: the torque on body B over this call, N m */
} ts_solver_joint;

/** The arrays of one ts_solve_contacts() call. Manifolds and joints name
 * bodies by their index in `bodies`. The arrays may change from call to
 * call (more bodies, other manifolds); keys carry the warm start. */
typedef struct ts_solver_input {
    float dt;                      /**< the step, s (finite, > 0) */
    ts_solver_body *bodies;        /**< body_count bodies (in and out) */
    int body_count;                /**< >= 0 */
    ts_solver_manifold *manifolds; /**< manifold_count manifolds (in; impulses out) */
    int manifold_count;            /**< >= 0 */
    ts_solver_joint *joints;       /**< joint_count joints (in; reactions out) */
    int joint_count;               /**< >= 0 */
} ts_solver_input;

/** A dynamic body of 1 kg at the origin, unit inertia, identity rotations,
 * gravity scale 1, no damping, no velocity or force. */
TS_API ts_solver_body ts_default_solver_body(void);
/** A manifold of bodies 0 and 1, key 0, normal +y, friction 0.6,
 * restitution 0, no points. */
TS_API ts_solver_manifold ts_default_solver_manifold(void);
/** A ball joint of bodies 0 and 1, key 0, identity frames; length 1, limit,
 * motor and spring off. */
TS_API ts_solver_joint ts_default_solver_joint(void);

/** Makes a solver context with the solver settings of a world def:
 * gravity, substeps, threads and task callbacks, simd_width, solver, the
 * contact and joint settings, restitution_threshold,
 * enable_warm_starting, allocator (the other fields are ignored). Returns
 * the null id on failure (see ts_last_error()): the errors of
 * ts_create_world(), TS_ERROR_CAPACITY also when TS_MAX_WORLDS contexts
 * exist. */
TS_API ts_solver_context_id ts_create_solver_context(const ts_world_def *def);
/** Destroys the context and what it kept. TS_ERROR_STALE_ID when it is gone. */
TS_API ts_result ts_destroy_solver_context(ts_solver_context_id context);
/** True while the context exists. Records no error. */
TS_API bool ts_solver_context_is_valid(ts_solver_context_id context);

/** One step of the context's solver over input->dt: integrates and solves
 * the bodies with the manifolds and joints, then writes back each
 * kinematic and dynamic body's center, rotation and velocities, each
 * manifold point's normal_impulse and the manifold's friction impulses, and
 * each joint's reaction. Everything is checked first; on failure nothing is
 * written and the context is unchanged:
 * TS_ERROR_STALE_ID (the context), TS_ERROR_NULL_POINTER (input, or an
 * array with a count > 0), TS_ERROR_NOT_FINITE and TS_ERROR_OUT_OF_RANGE
 * (dt, a count < 0, any value outside the range its field gives: a
 * rotation or normal not within 1% of unit length, a body index outside
 * [0, body_count), point_count outside 0..4, ...),
 * TS_ERROR_INVALID_OPERATION (a manifold or joint of one body twice or
 * of two bodies that are not dynamic, a key used twice, a static body with
 * a velocity); each message names the array and index at fault.
 * TS_ERROR_NOT_FINITE also when a body would have reached a non-finite
 * velocity or pose: it is held at its last finite state, every other body
 * is written as usual, and the message names it. TS_ERROR_OUT_OF_MEMORY
 * when the allocator refuses room: nothing is written, and the context
 * forgets its warm start (the next call starts cold). */
TS_API ts_result ts_solve_contacts(ts_solver_context_id context, const ts_solver_input *input);

/** Fills *profile with the times of the last ts_solve_contacts() call:
 * step is the whole call, narrowphase the taking in of the arrays (bodies
 * into the store, manifolds and joints matched by key, colours), the
 * solver's stages as in a world's step (finalize includes writing the
 * arrays back); update_pairs and sleep stay 0.
 * TS_ERROR_NULL_POINTER, TS_ERROR_STALE_ID. */
TS_API ts_result ts_solver_context_get_profile(ts_solver_context_id context, ts_step_profile *profile);

#ifdef __cplusplus
}
#endif

#endif
