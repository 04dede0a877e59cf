/** @file
 * Joints, the constraints a program makes between two bodies.
 *
 * Five types: ball (spherical), hinge (revolute), prismatic (slider),
 * distance and fixed (weld). Each joint has a frame on each body (a position
 * and a rotation in the body's origin frame); the joint keeps the two frames'
 * origins together (ball, hinge, prismatic across its axis, fixed), their
 * rotations together (fixed, prismatic; the hinge all but its axis), or their
 * distance (distance).
 *
 * Axes: a hinge turns about the z axis of its frames; a prismatic joint
 * slides along the x axis of body A's frame. The hinge angle is the rotation
 * of frame B relative to frame A about that axis, in (-pi, pi], zero when the
 * frames line up; the prismatic translation is the distance of frame B's
 * origin from frame A's along the axis.
 *
 * Joints are solved in the same substep loop as contacts and coloured in
 * the same graph: with the soft step as soft constraints (world def
 * joint_hertz / joint_damping_ratio), warm started; with XPBD as rigid
 * position constraints (springs compliant, motors and spring damping in the
 * velocity pass), the reaction being the last substep's multiplier / h^2.
 * Joined bodies do not collide unless collide_connected is set. Destroying a body destroys its joints (their ids go stale). */
#ifndef TESSERA_JOINT_H
#define TESSERA_JOINT_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Names a joint; the same layout as ts_body_id. A zeroed id is the null id. */
typedef struct ts_joint_id {
    int32_t index1;            /**< the joint's slot + 1 (0: the null id) */
    uint16_t world0;           /**< the world's slot */
    uint16_t world_generation; /**< the world's generation */
    uint32_t generation;       /**< the joint slot's generation */
} ts_joint_id;

/** The null joint id (what a failed joint creation returns). */
#define TS_NULL_JOINT_ID (TS_LITERAL(ts_joint_id){0, 0, 0, 0})

/** True for the null joint id. A non-null id may still be stale: see ts_joint_is_valid(). */
static inline bool ts_joint_id_is_null(ts_joint_id id) { return id.index1 == 0; }

/** The kinds of joint. */
typedef enum ts_joint_type {
    TS_JOINT_BALL = 0,      /**< frame origins together; free rotation */
    TS_JOINT_HINGE = 1,     /**< frame origins together; rotation about frame z only */
    TS_JOINT_PRISMATIC = 2, /**< no rotation; translation along frame A's x only */
    TS_JOINT_DISTANCE = 3,  /**< frame origins at a distance (rod, or spring within a range) */
    TS_JOINT_FIXED = 4,     /**< frames glued (weld) */
    TS_JOINT_CUSTOM = 5,    /**< the program's own rows (constraint.h: ts_create_custom_constraint) */
    TS_JOINT_TYPE_COUNT     /**< the number of joint types */
} ts_joint_type;

/** What every joint type has: the two bodies and a frame on each. */
typedef struct ts_joint_def {
    ts_body_id body_a;          /**< the first body (at least one of the two is dynamic) */
    ts_body_id body_b;          /**< the second body, another one than body_a */
    ts_transform local_frame_a; /**< joint frame in body A's origin frame; default identity */
    ts_transform local_frame_b; /**< joint frame in body B's origin frame; default identity */
    bool collide_connected;     /**< may the two bodies' shapes touch? default false */
    void *user_data;            /**< the program's own pointer (tessera does not read it) */
} ts_joint_def;

/** How to make a ball (spherical) joint; start from ts_default_ball_joint_def(). */
typedef struct ts_ball_joint_def {
    ts_joint_def base;  /**< bodies and frames */
    int internal_value; /**< set by ts_default_ball_joint_def(); do not touch */
} ts_ball_joint_def;

/** How to make a hinge (revolute) joint; start from
 * ts_default_hinge_joint_def(). Limits, motor and spring act on the hinge
 * angle (radians, rad/s, N m). */
typedef struct ts_hinge_joint_def {
    ts_joint_def base;          /**< bodies and frames (the hinge turns about frame z) */
    bool enable_limit;          /**< keep the angle within [lower_angle, upper_angle] */
    float lower_angle;          /**< -pi <= lower <= upper <= pi */
    float upper_angle;          /**< -pi <= lower <= upper <= pi */
    bool enable_motor;          /**< drive the angle's speed toward motor_speed */
    float motor_speed;          /**< target relative angular speed, rad/s; |speed| <= TS_MAX_JOINT_VALUE */
    float max_motor_torque;     /**< 0 .. TS_MAX_FORCE, N m */
    bool enable_spring;         /**< pull the angle toward target_angle */
    float spring_hertz;         /**< >= 0; 0 = no spring */
    float spring_damping_ratio; /**< >= 0 */
    float target_angle;         /**< the spring's rest angle, radians */
    int internal_value;         /**< set by ts_default_hinge_joint_def(); do not touch */
} ts_hinge_joint_def;

/** How to make a prismatic (slider) joint; start from
 * ts_default_prismatic_joint_def(). Limits, motor and spring act on the
 * translation along frame A's x axis (m, m/s, N). */
typedef struct ts_prismatic_joint_def {
    ts_joint_def base;          /**< bodies and frames (the slide is along frame A's x) */
    bool enable_limit;          /**< keep the translation within [lower, upper] */
    float lower_translation;    /**< lower <= upper, m; |m| <= TS_MAX_JOINT_VALUE */
    float upper_translation;    /**< lower <= upper, m; |m| <= TS_MAX_JOINT_VALUE */
    bool enable_motor;          /**< drive the slide's speed toward motor_speed */
    float motor_speed;          /**< m/s; |speed| <= TS_MAX_JOINT_VALUE */
    float max_motor_force;      /**< 0 .. TS_MAX_FORCE, N */
    bool enable_spring;         /**< pull the translation toward target_translation */
    float spring_hertz;         /**< >= 0; 0 = no spring */
    float spring_damping_ratio; /**< >= 0 */
    float target_translation;   /**< the spring's rest translation, m; |m| <= TS_MAX_JOINT_VALUE */
    int internal_value;         /**< set by ts_default_prismatic_joint_def(); do not touch */
} ts_prismatic_joint_def;

/** How to make a distance joint; start from ts_default_distance_joint_def().
 * A rigid rod of `length` between the frame origins; with the spring on, a
 * spring of that rest length, kept within [min_length, max_length] when
 * the limit is on. */
typedef struct ts_distance_joint_def {
    ts_joint_def base;          /**< bodies and frames (only the origins matter) */
    float length;               /**< 0 .. TS_MAX_JOINT_VALUE, m; default 1 */
    bool enable_limit;          /**< keep the distance within [min_length, max_length] */
    float min_length;           /**< 0 <= min <= max */
    float max_length;           /**< 0 <= min <= max <= TS_MAX_JOINT_VALUE */
    bool enable_spring;         /**< a spring of rest length `length` instead of a rod */
    float spring_hertz;         /**< >= 0; 0 = no spring */
    float spring_damping_ratio; /**< >= 0 */
    int internal_value;         /**< set by ts_default_distance_joint_def(); do not touch */
} ts_distance_joint_def;

/** How to make a fixed joint (weld); start from ts_default_fixed_joint_def(). */
typedef struct ts_fixed_joint_def {
    ts_joint_def base;  /**< bodies and frames */
    int internal_value; /**< set by ts_default_fixed_joint_def(); do not touch */
} ts_fixed_joint_def;

/** A ball joint def with identity frames, no bodies yet. */
TS_API ts_ball_joint_def ts_default_ball_joint_def(void);
/** A hinge joint def with identity frames, limit, motor and spring off, all zero. */
TS_API ts_hinge_joint_def ts_default_hinge_joint_def(void);
/** A prismatic joint def with identity frames, limit, motor and spring off, all zero. */
TS_API ts_prismatic_joint_def ts_default_prismatic_joint_def(void);
/** A distance joint def: a rod of length 1 between the frame origins; limits [0, a huge length], off; spring off. */
TS_API ts_distance_joint_def ts_default_distance_joint_def(void);
/** A fixed joint def with identity frames, no bodies yet. */
TS_API ts_fixed_joint_def ts_default_fixed_joint_def(void);

/** Makes a ball joint in world. Wakes both bodies and joins their islands;
 * unless collide_connected, removes the contacts between them.
 *
 * Returns the null id on failure (see ts_last_error()):
 * TS_ERROR_NULL_POINTER (def), TS_ERROR_UNINITIALIZED_DEF, TS_ERROR_STALE_ID
 * (world, or either body), TS_ERROR_WRONG_WORLD (a body of another world),
 * TS_ERROR_INVALID_OPERATION (the same body twice, or neither body dynamic),
 * TS_ERROR_NOT_FINITE / TS_ERROR_OUT_OF_RANGE (a frame with a NaN, or a
 * rotation not within 1% of unit length), TS_ERROR_CAPACITY,
 * TS_ERROR_OUT_OF_MEMORY. */
TS_API ts_joint_id ts_create_ball_joint(ts_world_id world, const ts_ball_joint_def *def);
/** Makes a hinge joint; as ts_create_ball_joint(), and also refuses
 * (TS_ERROR_OUT_OF_RANGE / TS_ERROR_NOT_FINITE) inverted limits or limits
 * outside [-pi, pi], a negative max motor torque, spring hertz or damping
 * ratio (or one beyond TS_MAX_SPRING_HERTZ / TS_MAX_SPRING_DAMPING_RATIO),
 * and non-finite settings. */
TS_API ts_joint_id ts_create_hinge_joint(ts_world_id world, const ts_hinge_joint_def *def);
/** Makes a prismatic joint; as ts_create_ball_joint(), and also refuses
 * (TS_ERROR_OUT_OF_RANGE / TS_ERROR_NOT_FINITE) inverted limits, a
 * negative max motor force, spring hertz or damping ratio (or one beyond
 * the spring bounds of limits.h), and non-finite settings. */
TS_API ts_joint_id ts_create_prismatic_joint(ts_world_id world, const ts_prismatic_joint_def *def);
/** Makes a distance joint; as ts_create_ball_joint(), and also refuses
 * (TS_ERROR_OUT_OF_RANGE / TS_ERROR_NOT_FINITE) a negative length,
 * inverted or negative limits, a negative spring hertz or damping ratio
 * (or one beyond the spring bounds of limits.h). */
TS_API ts_joint_id ts_create_distance_joint(ts_world_id world, const ts_distance_joint_def *def);
/** Makes a fixed joint (weld); fails as ts_create_ball_joint(). */
TS_API ts_joint_id ts_create_fixed_joint(ts_world_id world, const ts_fixed_joint_def *def);

/** Destroys the joint and wakes its bodies; unless it was
 * collide_connected, their shapes may touch again from the next step.
 * TS_ERROR_STALE_ID when the joint is gone. */
TS_API ts_result ts_destroy_joint(ts_joint_id joint);
/** True while the joint exists (false for the null id, a destroyed joint,
 * or one whose world or body was destroyed). Records no error. */
TS_API bool ts_joint_is_valid(ts_joint_id joint);
/** Writes the joint's type to *type. TS_ERROR_NULL_POINTER, TS_ERROR_STALE_ID. */
TS_API ts_result ts_joint_get_type(ts_joint_id joint, ts_joint_type *type);
/** Writes the joint's two bodies. TS_ERROR_NULL_POINTER (either output), TS_ERROR_STALE_ID. */
TS_API ts_result ts_joint_get_bodies(ts_joint_id joint, ts_body_id *body_a, ts_body_id *body_b);
/** Stores the program's pointer in the joint. TS_ERROR_STALE_ID. */
TS_API ts_result ts_joint_set_user_data(ts_joint_id joint, void *user_data);
/** The joint's user data, or NULL when the id is stale (then ts_last_error() says so). */
TS_API void *ts_joint_get_user_data(ts_joint_id joint);

/** Sets the limits: hinge (angles, within [-pi, pi]), prismatic
 * (translations), distance (lengths, >= 0); wakes the bodies.
 * TS_ERROR_STALE_ID; TS_ERROR_INVALID_OPERATION for ball and fixed
 * joints; TS_ERROR_NOT_FINITE; TS_ERROR_OUT_OF_RANGE when lower > upper or
 * outside the type's range. */
TS_API ts_result ts_joint_set_limits(ts_joint_id joint, bool enable, float lower, float upper);
/** Reads the limits (hinge, prismatic, distance). TS_ERROR_NULL_POINTER
 * (any output), TS_ERROR_STALE_ID, TS_ERROR_INVALID_OPERATION (ball, fixed). */
TS_API ts_result ts_joint_get_limits(ts_joint_id joint, bool *enable, float *lower, float *upper);

/** Sets the motor: hinge (speed in rad/s, max_force a torque in N m) and
 * prismatic (m/s, N); wakes the bodies. TS_ERROR_STALE_ID;
 * TS_ERROR_INVALID_OPERATION for other types; TS_ERROR_NOT_FINITE;
 * TS_ERROR_OUT_OF_RANGE for a negative max_force. */
TS_API ts_result ts_joint_set_motor(ts_joint_id joint, bool enable, float speed, float max_force);
/** Reads the motor (hinge, prismatic). TS_ERROR_NULL_POINTER (any output),
 * TS_ERROR_STALE_ID, TS_ERROR_INVALID_OPERATION (other types). */
TS_API ts_result ts_joint_get_motor(ts_joint_id joint, bool *enable, float *speed, float *max_force);

/** Sets the spring: hinge and prismatic (toward target), distance (toward
 * its length; target is ignored). hertz 0 turns the spring off. Wakes the
 * bodies. TS_ERROR_STALE_ID; TS_ERROR_INVALID_OPERATION for ball and fixed
 * joints; TS_ERROR_NOT_FINITE; TS_ERROR_OUT_OF_RANGE for a negative hertz
 * or damping ratio, or one beyond TS_MAX_SPRING_HERTZ /
 * TS_MAX_SPRING_DAMPING_RATIO (limits.h). */
TS_API ts_result ts_joint_set_spring(ts_joint_id joint, bool enable, float hertz, float damping_ratio, float target);
/** Reads the spring (hinge, prismatic, distance; a distance joint's target
 * is its length). TS_ERROR_NULL_POINTER (any output), TS_ERROR_STALE_ID,
 * TS_ERROR_INVALID_OPERATION (ball, fixed). */
TS_API ts_result ts_joint_get_spring(ts_joint_id joint, bool *enable, float *hertz, float *damping_ratio,
                                     float *target);

/** Sets a distance joint's rod or rest length (>= 0, m) and wakes the
 * bodies. TS_ERROR_STALE_ID; TS_ERROR_INVALID_OPERATION for other types;
 * TS_ERROR_NOT_FINITE / TS_ERROR_OUT_OF_RANGE for a bad length. */
TS_API ts_result ts_joint_set_length(ts_joint_id joint, float length);

/** The joint's coordinate now: hinge angle (rad, in (-pi, pi]), prismatic
 * translation (m), distance between the frame origins (m).
 * TS_ERROR_NULL_POINTER, TS_ERROR_STALE_ID; TS_ERROR_INVALID_OPERATION for
 * ball and fixed joints. */
TS_API ts_result ts_joint_get_position(ts_joint_id joint, float *position);

/** The force the joint applied to body B in the last step (world frame,
 * N; body A got the opposite), zero before the first step.
 * TS_ERROR_NULL_POINTER, TS_ERROR_STALE_ID. */
TS_API ts_result ts_joint_get_reaction_force(ts_joint_id joint, ts_vec3 *force);
/** The torque the joint applied to body B in the last step (world frame,
 * N m; body A got the opposite), zero before the first step.
 * TS_ERROR_NULL_POINTER, TS_ERROR_STALE_ID. */
TS_API ts_result ts_joint_get_reaction_torque(ts_joint_id joint, ts_vec3 *torque);

/** Both frame origins of a joint in world coordinates (for debugging and
 * quality checks): anchor_a on body A, anchor_b on body B.
 * TS_ERROR_NULL_POINTER (either output), TS_ERROR_STALE_ID. */
TS_API ts_result ts_joint_get_world_anchors(ts_joint_id joint, ts_vec3 *anchor_a, ts_vec3 *anchor_b);

#ifdef __cplusplus
}
#endif

#endif
