/* Joints: the per-joint record (settings, graph colour, body edges and the
 * impulses kept between steps for warm starting) and the bookkeeping the rest
 * of the world calls: body destruction, body type changes and the broadphase's
 * question whether two joined bodies may collide. A joint links its bodies'
 * islands (islands/sleep.h: made or destroyed, it wakes both), and the
 * island split walks joint edges like contact edges.
 *
 * The record is the joint's cold storage, read once per step by the prepare
 * stage (solver/joint_prepare.c), which packs the hot data of each graph
 * colour's joints into SoA bundles of TS_W lanes for the wide kernels. */
#ifndef TS_JOINT_H
#define TS_JOINT_H

#include "base/core.h"
#include "tessera/joint.h"

struct ts_world;

/* One side of a joint in a body's joint list. Keys are joint << 1 | side. */
typedef struct ts_joint_edge {
    int32_t body;
    int32_t prev_key;
    int32_t next_key;
} ts_joint_edge;

/* A 1-DOF row's settings: hinge angle, prismatic translation, distance. */
typedef struct ts_joint_axis_settings {
    bool enable_limit;
    float lower, upper;
    bool enable_motor;
    float motor_speed, max_motor_force;
    bool enable_spring;
    float spring_hertz, spring_damping_ratio;
    float target; /* spring rest value (distance: the length) */
} ts_joint_axis_settings;

/* Impulses accumulated over a substep, kept for the next step's warm start. */
typedef struct ts_joint_impulses {
    ts_vec3 linear;  /* ball/hinge/fixed: point impulse (world); prismatic: x, y = across the axis */
    ts_vec3 angular; /* fixed/prismatic: angular impulse (world); hinge: x, y = swing rows */
    float lower, upper, motor, spring;
} ts_joint_impulses;

typedef struct ts_joint {
    uint32_t generation;
    bool alive;
    ts_joint_type type;
    ts_joint_edge edges[2]; /* 0: body A, 1: body B */
    ts_transform local_frame[2]; /* in the bodies' origin frames */
    ts_joint_axis_settings axis;
    float length; /* distance joints: rod / rest length */
    bool collide_connected;
    void *user_data;
    int color;             /* graph colour, -1 when neither body is dynamic */
    int32_t color_index;   /* place in the colour's joint list */
    int32_t graph_body[2]; /* the bodies that hold colour bits (dynamic ones), -1 for none */
    ts_joint_impulses impulses;
    ts_vec3 reaction_force;  /* on body B over the last step, N */
    ts_vec3 reaction_torque; /* N m */
} ts_joint;

/* Destroys every joint of a body (when the body is destroyed). */
void ts_body_destroy_joints(struct ts_world *world, int32_t body);

/* After a body's type changed (and it joined or left the islands): its
 * joints take colours again and link its island to the other bodies'. */
ts_result ts_body_relink_joints(struct ts_world *world, int32_t body, const char *function);

void ts_joints_free(struct ts_world *world);

#endif
