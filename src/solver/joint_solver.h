/* The soft-step joint solver: the joints of a graph colour packed into
 * bundles of TS_W lanes, one joint type per bundle (this header and its
 * kernels are compiled once per width; the layout and every function name
 * carry the width), and the width-generic kernels that solve them. Every
 * type runs wide: ball, hinge, prismatic, distance and fixed. Ball joints
 * have bundles of their own, a compact layout with kernels that keep the
 * substep's pose (ball_joint.h); the other types share the general layout
 * below.
 *
 * A lane holds the anchors and frames at the step's start, world frame, and
 * the effective masses computed from them; the kernels move the anchors and
 * axes with each body's rotation since the step began (the body state's dq).
 * Empty lanes point at the dummy body state and have zero masses, so they
 * compute zero impulses without a branch. */
#ifndef TS_JOINT_SOLVER_H
#define TS_JOINT_SOLVER_H

#include "solver/body_state.h"
#include "solver/joint_scratch.h"
#include "base/wide.h"

typedef struct ts_joint_bundle {
    int32_t body_a[TS_W]; /* body state index (the dummy for static bodies and empty lanes) */
    int32_t body_b[TS_W];
    int32_t joint[TS_W]; /* joint id, -1 for an empty lane */
    float inv_mass_a[TS_W];
    float inv_mass_b[TS_W];
    float inv_inertia_a[6][TS_W]; /* world, at the step's start: xx yy zz xy xz yz */
    float inv_inertia_b[6][TS_W];
    float anchor_a[3][TS_W];     /* frame A's origin - centre of mass of A (world, step start) */
    float anchor_b[3][TS_W];
    float delta_center[3][TS_W]; /* centre of B - centre of A at the step's start */
    /* Point constraint (ball, hinge, fixed): the inverse of the 3x3 K at the
     * substep's anchors (set by the warm start). Prismatic: the inverse 2x2
     * across the axis in xx, yy, xy (rows 0, 1, 3), from the step's start. */
    float point_mass[6][TS_W];
    float linear_impulse[3][TS_W]; /* point; prismatic: across the axis (x, y) */
    /* Rotation (hinge, fixed, prismatic). */
    float rotation_left[4][TS_W];  /* hinge: conj(QA); fixed, prismatic: QB conj(QA) (Q = world frame rotation) */
    float rotation_right[4][TS_W]; /* hinge: QB */
    float angular_mass[6][TS_W];   /* inverse of IA + IB (fixed, prismatic); hinge: 2x2 swing in xx, yy, xy */
    float angular_impulse[3][TS_W]; /* fixed, prismatic: world; hinge: swing rows (x, y) */
    float axis[3][TS_W];  /* hinge: frame A's z; prismatic: frame A's x; distance: the direction A to B */
    float perp1[3][TS_W]; /* across the axis (hinge, prismatic) */
    float perp2[3][TS_W];
    float axis_b[3][TS_W]; /* hinge: frame B's z */
    /* The joint's one free coordinate: limits, motor and spring. */
    float axial_mass[TS_W];
    float lower[TS_W], upper[TS_W];
    float lower_impulse[TS_W], upper_impulse[TS_W];
    float motor_speed[TS_W], max_motor_impulse[TS_W], motor_impulse[TS_W];
    float spring_target[TS_W];
    float spring_bias_rate[TS_W], spring_mass_scale[TS_W], spring_impulse_scale[TS_W];
    float spring_impulse[TS_W];
    int32_t type; /* ts_joint_type of every lane (last: the rows above stay aligned) */
} ts_joint_bundle;

/* Settings of one step shared by every joint kernel. */
typedef struct ts_joint_solver_context {
    ts_body_state *states;            /* awake bodies by slot, then the dummy */
    const ts_joint_scratch *scratch;  /* the step's bundles (ts_joint_solver_begin) */
    float inv_h;                      /* 1 / substep */
    float bias_rate, mass_scale, impulse_scale; /* the joints' soft constraint (world joint_hertz) */
    bool last_relax; /* the step's last relax pass: the ball bundles keep its pose for the next step */
    float h;         /* the substep (custom constraints' force bounds and springs) */
} ts_joint_solver_context;

/* Applies the accumulated impulses of bundle k (the warm start of a substep). */
void TS_WIDE(ts_joint_warm_start)(const ts_joint_solver_context *c, int32_t k);

/* One pass of sequential impulses over bundle k: with the soft bias (solve)
 * or without (relax); limits ahead of their bound are speculative in both. */
void TS_WIDE(ts_joint_solve)(const ts_joint_solver_context *c, int32_t k, bool use_bias);

typedef enum ts_joint_pass_kind { TS_JOINT_PASS_WARM_START, TS_JOINT_PASS_SOLVE, TS_JOINT_PASS_RELAX } ts_joint_pass_kind;

/* One pass (warm start, solve or relax) over bundles [begin, end) of a
 * colour, in order: the same as bundle by bundle, with one call per run of
 * ball bundles. */
void TS_WIDE(ts_joint_pass)(const ts_joint_solver_context *c, int32_t begin, int32_t end, ts_joint_pass_kind kind);

#endif
