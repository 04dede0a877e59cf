/** @file
 * Custom constraints: a program's own constraint on one or two bodies,
 * solved by both solvers with the engine's own machinery.
 *
 * The program gives up to TS_CONSTRAINT_MAX_ROWS scalar rows through one C
 * callback that, for a pose of the bodies, fills each row's value C (a
 * position error the row drives to zero, or keeps on one side of zero), its
 * Jacobian (how fast C changes: dC/dt = linear_a . vA + angular_a . wA +
 * linear_b . vB + angular_b . wB, with v the velocity of the centre of mass
 * and w the angular velocity, world frame), how soft it is, and the bounds of
 * the force it may apply. The solver does the rest: effective masses, warm
 * starting (soft step), the graph colours, islands and sleeping (a custom
 * constraint is a joint of type TS_JOINT_CUSTOM: ts_destroy_joint,
 * ts_joint_is_valid, ts_joint_get_bodies, ts_joint_get_reaction_force and
 * the user data work on it), both solvers, every SIMD width and thread count
 * with the same bits.
 *
 * How each solver reads a row (docs/constraints.md has the formulas):
 * - soft step (sequential impulses, per substep: warm start, solve, relax):
 *   a rigid row (stiffness 0) is a soft constraint with the world's joint
 *   softness (joint_hertz, joint_damping_ratio), like the built-in joints; a
 *   row with a stiffness k (N/m) and damping c (N s/m) is a spring of those
 *   constants; a row with a one-sided force bound (lower 0 or upper 0) is a
 *   limit, reached but not passed (speculative, as the built-in limits);
 * - XPBD (per substep, one position pass and one velocity pass): a row's
 *   multiplier moves the bodies so that C = 0 with the compliance given
 *   (0: rigid), its force kept within the bounds; damping and velocity rows
 *   (motors) act in the velocity pass.
 * A row's `stiffness` and `compliance` say the same thing in the two
 * solvers' terms: each solver reads its own, and when that is 0 takes the
 * other's inverse (set either).
 *
 * The callback's contract. It is called during ts_world_step, from the
 * step's worker threads (OpenMP threads or the program's task system),
 * several times per substep per constraint (each pass evaluates the current
 * pose), and calls for different constraints run at the same time. So it
 * must: not call tessera; not write memory another constraint's callback
 * reads or writes (its context is its own, or shared read-only); return the
 * same rows for the same input (the step's results are then the same bits
 * for every thread count and SIMD width); be quick (a few hundred
 * nanoseconds is the budget of a built-in joint row). The program may
 * change what its context says between steps, not during one.
 *
 * Bad rows: a row with a NaN or infinite value, Jacobian, softness or target
 * velocity, a NaN bound, lower > upper, or a negative compliance, stiffness
 * or damping drops the constraint: it stops acting (from that evaluation on,
 * for good), every other body and constraint goes on, and ts_world_step
 * returns TS_ERROR_NOT_FINITE naming it (ts_custom_constraint_is_dropped()
 * tells; destroy it with ts_destroy_joint()). */
#ifndef TESSERA_CONSTRAINT_H
#define TESSERA_CONSTRAINT_H

#include "joint.h"
#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The most rows a custom constraint has. */
#define TS_CONSTRAINT_MAX_ROWS 6

/** A body as a custom constraint's callback sees it: its pose and
 * velocities now (in a substep, during the step). */
typedef struct ts_constraint_body {
    ts_vec3 position;         /**< the body origin, world */
    ts_quat rotation;         /**< the body's rotation, world */
    ts_vec3 center;           /**< the centre of mass, world (Jacobians are taken about it) */
    ts_vec3 linear_velocity;  /**< of the centre of mass, m/s */
    ts_vec3 angular_velocity; /**< world frame, rad/s */
} ts_constraint_body;

/** What the callback gets: the two bodies now and the substep. */
typedef struct ts_constraint_input {
    ts_constraint_body body_a; /**< the constraint's first body */
    /** The second body; a one-body constraint sees the world's frame at rest
     * here (origin, identity rotation, zero velocities). */
    ts_constraint_body body_b;
    bool has_body_b; /**< false for a one-body constraint */
    int row_count;   /**< rows to fill (ts_custom_constraint_def::row_count) */
    float substep;   /**< the substep h, s */
} ts_constraint_input;

/** One scalar row. Before each call every row holds the defaults: value 0,
 * zero Jacobian, rigid (compliance, stiffness, damping 0), an equality
 * (lower -INFINITY, upper INFINITY), target velocity 0, not a velocity row. */
typedef struct ts_constraint_row {
    float value;       /**< C at this pose (m, rad, or the row's own unit) */
    ts_vec3 linear_a;  /**< dC/dt per m/s of body A's centre of mass */
    ts_vec3 angular_a; /**< dC/dt per rad/s of body A's turning */
    ts_vec3 linear_b;  /**< the same for body B (ignored for a one-body constraint) */
    ts_vec3 angular_b; /**< the same for body B */
    /** The least force the row applies along its Jacobian (N for a length, N m
     * for an angle); -INFINITY for none. lower = 0 makes C >= 0 a limit the
     * row only pushes back from. */
    float lower;
    /** The most force; INFINITY for none. upper = 0 makes C <= 0 a limit. */
    float upper;
    float compliance; /**< XPBD: inverse stiffness, m/N (>= 0; 0 = rigid) */
    float stiffness;  /**< soft step: N/m (>= 0; 0 = rigid, the world's joint softness) */
    float damping;    /**< N s/m along the row, both solvers (>= 0) */
    /** A velocity row (a motor): drives dC/dt to target_velocity with a force
     * within [lower, upper]; value, compliance and stiffness are not read. */
    bool velocity_only;
    float target_velocity; /**< velocity rows: the rate dC/dt is driven to */
} ts_constraint_row;

/** Fills the rows of a custom constraint for the pose in `input` (see the
 * contract above). `rows` has input->row_count entries, each holding the
 * defaults of ts_constraint_row; `context` is ts_custom_constraint_def::context. */
typedef void ts_constraint_fn(const ts_constraint_input *input, ts_constraint_row *rows, void *context);

/** How to make a custom constraint; start from ts_default_custom_constraint_def(). */
typedef struct ts_custom_constraint_def {
    ts_body_id body_a; /**< the first body (a static body counts as none; at least one body is dynamic) */
    ts_body_id body_b; /**< the second body, another one, or the null id for a one-body constraint */
    int row_count;     /**< 1..TS_CONSTRAINT_MAX_ROWS; default 1 */
    ts_constraint_fn *evaluate; /**< the rows' callback (required) */
    void *context;              /**< passed to evaluate */
    bool collide_connected;     /**< may the two bodies' shapes touch? default false */
    void *user_data;            /**< the program's own pointer (tessera does not read it) */
    int internal_value;         /**< set by ts_default_custom_constraint_def(); do not touch */
} ts_custom_constraint_def;

/** A def with one row, no bodies and no callback yet. */
TS_API ts_custom_constraint_def ts_default_custom_constraint_def(void);

/** Makes a custom constraint (a joint of type TS_JOINT_CUSTOM). Wakes its
 * bodies and joins their islands; unless collide_connected, removes the
 * contacts between two bodies.
 *
 * Returns the null id on failure (see ts_last_error()):
 * TS_ERROR_NULL_POINTER (def, or def->evaluate), TS_ERROR_UNINITIALIZED_DEF,
 * TS_ERROR_STALE_ID (world, body_a, or a non-null body_b: a destroyed body),
 * TS_ERROR_WRONG_WORLD, TS_ERROR_INVALID_OPERATION (the same body twice, or
 * no dynamic body), TS_ERROR_OUT_OF_RANGE (row_count outside
 * 1..TS_CONSTRAINT_MAX_ROWS), TS_ERROR_CAPACITY, TS_ERROR_OUT_OF_MEMORY. */
TS_API ts_joint_id ts_create_custom_constraint(ts_world_id world, const ts_custom_constraint_def *def);

/** The force each row applied in the last step's last substep (N or N m
 * along its Jacobian; zero before the first step): *count receives the row
 * count and up to capacity forces are written (forces may be NULL when
 * capacity is 0). TS_ERROR_NULL_POINTER (count, or forces with capacity >
 * 0), TS_ERROR_OUT_OF_RANGE (capacity < 0), TS_ERROR_STALE_ID,
 * TS_ERROR_INVALID_OPERATION (not a custom constraint). */
TS_API ts_result ts_custom_constraint_get_forces(ts_joint_id joint, float *forces, int capacity, int *count);

/** Whether the constraint was dropped for a bad row (see above).
 * TS_ERROR_NULL_POINTER, TS_ERROR_STALE_ID, TS_ERROR_INVALID_OPERATION (not
 * a custom constraint). */
TS_API ts_result ts_custom_constraint_is_dropped(ts_joint_id joint, bool *dropped);

#ifdef __cplusplus
}
#endif

#endif
