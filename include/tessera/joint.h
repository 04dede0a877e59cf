/* tessera: joints, the constraints a user makes between two bodies.
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
 * velocity pass), the reaction being the last substep's multiplier / h^2. Joined bodies do not collide unless collide_connected is
 * set. Destroying a body destroys its joints (their ids go stale). */
#ifndef TESSERA_JOINT_H
#define TESSERA_JOINT_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A joint; same layout as a body id. */
typedef struct ts_joint_id {
    int32_t index1;
    uint16_t world0;
    uint16_t world_generation;
    uint32_t generation;
} ts_joint_id;

#define TS_NULL_JOINT_ID ((ts_joint_id){0, 0, 0, 0})

static inline bool ts_joint_id_is_null(ts_joint_id id) { return id.index1 == 0; }

typedef enum ts_joint_type {
    TS_JOINT_BALL = 0,      /* frame origins together; free rotation */
    TS_JOINT_HINGE = 1,     /* frame origins together; rotation about frame z only */
    TS_JOINT_PRISMATIC = 2, /* no rotation; translation along frame A's x only */
    TS_JOINT_DISTANCE = 3,  /* frame origins at a distance (rod, or spring within a range) */
    TS_JOINT_FIXED = 4,     /* frames glued (weld) */
    TS_JOINT_TYPE_COUNT
} ts_joint_type;

/* What every joint type has. */
typedef struct ts_joint_def {
    ts_body_id body_a;
    ts_body_id body_b;
    ts_transform local_frame_a; /* joint frame in body A's origin frame; default identity */
    ts_transform local_frame_b; /* joint frame in body B's origin frame; default identity */
    bool collide_connected;     /* may the two bodies' shapes touch? default false */
    void *user_data;
} ts_joint_def;

typedef struct ts_ball_joint_def {
    ts_joint_def base;
    int internal_value; /* set by ts_default_ball_joint_def(); do not touch */
} ts_ball_joint_def;

/* Limits, motor and spring act on the hinge angle (radians, rad/s, N m). */
typedef struct ts_hinge_joint_def {
    ts_joint_def base;
    bool enable_limit;
    float lower_angle;      /* -pi <= lower <= upper <= pi */
    float upper_angle;
    bool enable_motor;
    float motor_speed;      /* target relative angular speed, rad/s */
    float max_motor_torque; /* >= 0, N m */
    bool enable_spring;
    float spring_hertz;         /* >= 0; 0 = no spring */
    float spring_damping_ratio; /* >= 0 */
    float target_angle;         /* the spring's rest angle, radians */
    int internal_value;
} ts_hinge_joint_def;

/* Limits, motor and spring act on the translation along frame A's x axis (m, m/s, N). */
typedef struct ts_prismatic_joint_def {
    ts_joint_def base;
    bool enable_limit;
    float lower_translation; /* lower <= upper */
    float upper_translation;
    bool enable_motor;
    float motor_speed;     /* m/s */
    float max_motor_force; /* >= 0, N */
    bool enable_spring;
    float spring_hertz;
    float spring_damping_ratio;
    float target_translation;
    int internal_value;
} ts_prismatic_joint_def;

/* A rigid rod of `length` between the frame origins; with the spring on,
 * a spring of that rest length, kept within [min_length, max_length] when
 * the limit is on. */
typedef struct ts_distance_joint_def {
    ts_joint_def base;
    float length; /* >= 0; default 1 */
    bool enable_limit;
    float min_length; /* 0 <= min <= max */
    float max_length;
    bool enable_spring;
    float spring_hertz;
    float spring_damping_ratio;
    int internal_value;
} ts_distance_joint_def;

typedef struct ts_fixed_joint_def {
    ts_joint_def base;
    int internal_value;
} ts_fixed_joint_def;

TS_API ts_ball_joint_def ts_default_ball_joint_def(void);
TS_API ts_hinge_joint_def ts_default_hinge_joint_def(void);
TS_API ts_prismatic_joint_def ts_default_prismatic_joint_def(void);
TS_API ts_distance_joint_def ts_default_distance_joint_def(void);
TS_API ts_fixed_joint_def ts_default_fixed_joint_def(void);

/* Each returns the null id on failure (see ts_last_error): a stale body id,
 * bodies of another world, the same body twice, two bodies neither of which
 * is dynamic, a frame with a NaN or a rotation that is not a unit
 * quaternion, inverted limits or a negative motor force or spring setting. */
TS_API ts_joint_id ts_create_ball_joint(ts_world_id world, const ts_ball_joint_def *def);
TS_API ts_joint_id ts_create_hinge_joint(ts_world_id world, const ts_hinge_joint_def *def);
TS_API ts_joint_id ts_create_prismatic_joint(ts_world_id world, const ts_prismatic_joint_def *def);
TS_API ts_joint_id ts_create_distance_joint(ts_world_id world, const ts_distance_joint_def *def);
TS_API ts_joint_id ts_create_fixed_joint(ts_world_id world, const ts_fixed_joint_def *def);

TS_API ts_result ts_destroy_joint(ts_joint_id joint);
TS_API bool ts_joint_is_valid(ts_joint_id joint);
TS_API ts_result ts_joint_get_type(ts_joint_id joint, ts_joint_type *type);
TS_API ts_result ts_joint_get_bodies(ts_joint_id joint, ts_body_id *body_a, ts_body_id *body_b);
TS_API ts_result ts_joint_set_user_data(ts_joint_id joint, void *user_data);
TS_API void *ts_joint_get_user_data(ts_joint_id joint);

/* Limits: hinge (angles), prismatic (translations), distance (lengths).
 * Other types get TS_ERROR_INVALID_OPERATION; lower > upper TS_ERROR_OUT_OF_RANGE. */
TS_API ts_result ts_joint_set_limits(ts_joint_id joint, bool enable, float lower, float upper);
TS_API ts_result ts_joint_get_limits(ts_joint_id joint, bool *enable, float *lower, float *upper);

/* Motor: hinge (rad/s, N m) and prismatic (m/s, N). */
TS_API ts_result ts_joint_set_motor(ts_joint_id joint, bool enable, float speed, float max_force);
TS_API ts_result ts_joint_get_motor(ts_joint_id joint, bool *enable, float *speed, float *max_force);

/* Spring: hinge and prismatic (toward target), distance (toward its length;
 * target is ignored). hertz 0 turns the spring off. */
TS_API ts_result ts_joint_set_spring(ts_joint_id joint, bool enable, float hertz, float damping_ratio, float target);
TS_API ts_result ts_joint_get_spring(ts_joint_id joint, bool *enable, float *hertz, float *damping_ratio,
                                     float *target);

/* Distance joints: the rod or rest length (>= 0). */
TS_API ts_result ts_joint_set_length(ts_joint_id joint, float length);

/* The joint's coordinate now: hinge angle (rad), prismatic translation (m),
 * distance between the frame origins (m). Ball and fixed joints get
 * TS_ERROR_INVALID_OPERATION. */
TS_API ts_result ts_joint_get_position(ts_joint_id joint, float *position);

/* The force and torque the joint applied to body B in the last step (world
 * frame, N and N m; body A got the opposite), zero before the first step. */
TS_API ts_result ts_joint_get_reaction_force(ts_joint_id joint, ts_vec3 *force);
TS_API ts_result ts_joint_get_reaction_torque(ts_joint_id joint, ts_vec3 *torque);

/* Every frame origin of a joint in world coordinates (for debugging and
 * quality checks): anchor_a on body A, anchor_b on body B. */
TS_API ts_result ts_joint_get_world_anchors(ts_joint_id joint, ts_vec3 *anchor_a, ts_vec3 *anchor_b);

#ifdef __cplusplus
}
#endif

#endif
