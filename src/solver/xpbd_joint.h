/* The XPBD joints (Müller et al. 2020, sections 3.3-3.4): ball, hinge,
 * prismatic, distance and fixed joints as position constraints between the
 * predicted poses of a substep, solved in the contacts' graph colours, and a
 * velocity pass for motors and spring damping. The joints of a colour are
 * laid out in bundles of TS_W joints of one type by the soft step's layout
 * (ts_joint_solver_begin, joint_scratch.h: colour by colour, type by type);
 * XPBD fills its own bundles (this header's layout) in that order. Compiled
 * once per width; every type runs wide.
 *
 * Choices:
 * - The locks (point, rotation, hinge swing, prismatic cross slide, a rod's
 *   length, limits) are rigid: compliance α = 0. XPBD projects them
 *   unconditionally stably, so it needs none of the softness the soft step
 *   takes from ts_world_def.joint_hertz / joint_damping_ratio; those two do
 *   not apply to XPBD worlds.
 * - A spring of frequency f (hinge, prismatic, distance) is a compliant
 *   constraint: α = 1 / k with k = m_eff (2 pi f)^2, m_eff the row's
 *   effective mass now, so α̃ = α / h^2 and m_eff α̃ = 1 / (2 pi f h)^2; its damping ratio ζ acts in the velocity
 *   pass as an implicit damper c = 2 ζ m_eff 2 pi f:
 *       J = -m_eff vr (c h / m_eff) / (1 + c h / m_eff).
 * - Motors act in the velocity pass: J = m_eff (speed - vr), clamped to
 *   max force times h per substep.
 * - Ball and fixed joints start each substep from a share of the last
 *   substep's λ (the warm start, xpbd_solver.c), the other types from
 *   zero; each substep projects every joint twice. The
 *   reaction force is the last substep's λ / h^2 plus its velocity-pass
 *   impulses / h. */
#ifndef TS_XPBD_JOINT_H
#define TS_XPBD_JOINT_H

#include "islands/graph.h"
#include "soa/records.h"
#include "solver/body_state.h"
#include "solver/joint_scratch.h"
#include "base/wide.h"

struct ts_solver;


typedef struct ts_xpbd_joint_bundle {
    int32_t type;         /* ts_joint_type of every lane */
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
    /* The last substep's multipliers as world vectors, kg m (force x h^2 on
     * body B): the position pass's linear and angular ones, then the
     * velocity pass's impulses, N s (motor, spring damping). */
    float position_force[3][TS_W];
    float position_torque[3][TS_W];
    float velocity_force[3][TS_W];
    float velocity_torque[3][TS_W];
    /* Fixed joints' warm start (xpbd_joint.c): the multiplier the next
     * substep starts from (the position pass's, or 0 after a violent
     * turn), kg m. */
    float warm_force[3][TS_W];
    /* Every type but the ball (a ball bundle is read up to here). */
    float rotation_left[4][TS_W];  /* fixed, prismatic: QB conj(QA); hinge: conj(QA) (Q = frame rotations, start) */
    float rotation_right[4][TS_W]; /* hinge: QB */
    float angular_mass[6][TS_W];   /* (IA^-1 + IB^-1)^-1 (fixed, prismatic) */
    float axis[3][TS_W];   /* hinge: frame A's z; prismatic: frame A's x; distance: A to B at the start */
    float perp1[3][TS_W];  /* across the axis (hinge, prismatic), turning with A */
    float perp2[3][TS_W];
    float axis_b[3][TS_W]; /* hinge: frame B's z */
    /* The free coordinate: limits, spring, motor. */
    float lower[TS_W], upper[TS_W]; /* far away when off; a rod has lower = upper = length */
    float spring_on[TS_W];          /* 1 or 0 */
    float spring_target[TS_W];
    float spring_softness[TS_W]; /* m_eff α̃ = 1 / (2 pi f h)^2 */
    float spring_damping[TS_W];  /* c h / m_eff / (1 + c h / m_eff), the velocity pass's share */
    float motor_speed[TS_W], max_motor_impulse[TS_W]; /* max_motor_impulse 0: no motor */
    float axial_lambda[4][TS_W]; /* last substep: spring, lower, upper (position), motor + damper (velocity) */
} ts_xpbd_joint_bundle;

typedef struct ts_xpbd_joint_context {
    ts_body_state *states; /* awake bodies by slot, then the dummy */
    const ts_records *records;
    const ts_joint_scratch *joint_scratch; /* the soft step's layout, which XPBD's bundles follow */
    int32_t awake; /* the dummy state's index */
    float h, inv_h;
    float warm_scale; /* part of the last substep's multipliers applied before the position pass (0: none) */
} ts_xpbd_joint_context;

/* Serial, before the solver's parallel region: the soft step's layout of
 * the awake joints (solver->joint_scratch) and room for XPBD's bundles in
 * solver->scratch. False when the allocator fails. */
bool TS_WIDE(ts_xpbd_joint_begin)(struct ts_solver *solver, ts_records *records, const ts_constraint_graph *graph);

/* Fills bundle k (xpbd_joint_prepare.c; any order, any thread). */
void TS_WIDE(ts_xpbd_joint_prepare)(const ts_xpbd_joint_context *c, ts_xpbd_joint_bundle *b, int32_t k);

/* The warm start of a substep, before its positions are integrated: ball
 * and fixed bundles apply warm_scale times the last substep's multipliers
 * (over h: impulses) to the velocities, and their position pass continues
 * from those multipliers. The other types have one-sided rows (limits)
 * inside their multipliers: not warm started. */
void TS_WIDE(ts_xpbd_joint_warm_start)(const ts_xpbd_joint_context *c, ts_xpbd_joint_bundle *b);

/* A position pass of a substep over bundle b: writes the poses and
 * velocities of its dynamic bodies. `again`: the substep's second pass,
 * which continues the first's multipliers. */
void TS_WIDE(ts_xpbd_joint_solve_positions)(const ts_xpbd_joint_context *c, ts_xpbd_joint_bundle *b, bool again);

/* The velocity pass: motors and spring damping (nothing for ball and fixed
 * bundles, nor for bundles without either). */
void TS_WIDE(ts_xpbd_joint_solve_velocities)(const ts_xpbd_joint_context *c, ts_xpbd_joint_bundle *b);

/* After the substeps: the reaction force and torque of each lane's joint
 * (last substep: λ / h^2 + velocity impulses / h), and its impulses. */
void TS_WIDE(ts_xpbd_joint_store)(ts_records *records, const ts_xpbd_joint_bundle *b, float inv_h);

#endif
