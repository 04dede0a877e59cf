/* Custom constraints in the solvers (tessera/constraint.h): the program's
 * rows, evaluated by its callback at the bodies' pose of each pass and
 * solved one row after the other, scalar (compiled once: no lane math, so
 * every width gives the same bits). They sit in the joint layout like any
 * joint type (joint_scratch.h: each colour's joints sorted by type, custom
 * ones last), and the soft step's and XPBD's joint dispatch hands their
 * bundles here: one ts_custom_lane per constraint, in the scratch's
 * custom_lanes from the bundle's slot on.
 *
 * Soft step, per substep (the built-in joints' rules, joint_solver.c):
 *     warm start  apply each row's accumulated impulse along its Jacobian;
 *     solve       dλ = -m s (Cdot + b C) - t λ, λ clamped to [lower h, upper h],
 *     relax       the same without bias,
 * with m = 1 / (J M^-1 J^T) at the step's start and (b, s, t) the world's
 * joint softness (solve) or none (relax) for a rigid row; a row on a
 * one-sided bound that C has not reached yet is speculative (b = 1/h, s = 1,
 * t = 0: C reaches zero in the substep, never passes it); a row with a
 * stiffness k and damping c is the implicit spring of Catto's "Soft
 * Constraints" (2011): γ = 1 / (h (c + h k)), b = k / (c + h k),
 * s = 1 / (1 + m γ), t = m γ / (1 + m γ), in both passes; a velocity row
 * drives Cdot to its target: dλ = -m (Cdot - target).
 *
 * XPBD, per substep (Müller et al. 2020, as xpbd_joint.c): the position
 * pass evaluates the rows once, then for each row in order
 *     C' = C + J Δ,  λ = -C' / (J M^-1 J^T + α / h^2),  λ clamped to [lower h^2, upper h^2],
 *     Δ += M^-1 J^T λ
 * (Δ the correction so far, C tracked linearly from row to row) and moves
 * the bodies by Δ once; the velocity pass drives velocity rows to their
 * target (clamped to [lower h, upper h]) and damps rows with a damping c:
 * J = -c h Cdot / (1 + c h J M^-1 J^T).
 *
 * A callback that returns a bad row (tessera/constraint.h) drops its
 * constraint: the lane stops acting, and after the step's solve
 * ts_custom_take_dropped marks the joint (for good) and names it to the
 * step. */
#ifndef TS_CUSTOM_CONSTRAINT_H
#define TS_CUSTOM_CONSTRAINT_H

#include "soa/records.h"
#include "solver/body_state.h"

/* A body of a custom constraint in a step. */
typedef struct ts_custom_body {
    int32_t state;        /* body state index (the dummy unless awake) */
    float inv_mass;       /* 0 unless dynamic and awake */
    float inv_inertia[6]; /* world, at the step's start: xx yy zz xy xz yz */
    ts_vec3 p0;           /* centre of mass at the step's start */
    ts_quat q0;           /* rotation of the simulation frame at the step's start */
    ts_vec3 center;       /* centre of mass in the body's origin frame */
    ts_quat principal;    /* principal axes in the body's origin frame */
} ts_custom_body;

/* A custom constraint in a step: its bodies, its rows' masses and impulses. */
typedef struct ts_custom_lane {
    int32_t joint; /* joint id index */
    int32_t row_count;
    ts_constraint_fn *evaluate;
    void *context;
    bool single;  /* one body: body[1] is the world at rest */
    bool dropped; /* a bad row was met (in this or an earlier step): the lane does nothing */
    bool drive;   /* XPBD: some row acts in the velocity pass */
    ts_custom_body body[2];
    float mass[TS_CONSTRAINT_MAX_ROWS];    /* 1 / (J M^-1 J^T) at the step's start (soft step) */
    float impulse[TS_CONSTRAINT_MAX_ROWS]; /* soft step: accumulated, N s per substep; XPBD: the last substep's */
    ts_constraint_row rows[TS_CONSTRAINT_MAX_ROWS]; /* the last evaluation */
} ts_custom_lane;

/* What a pass gives the rows. */
typedef struct ts_custom_pass {
    ts_body_state *states; /* awake bodies by slot, then the dummy */
    float h, inv_h;
    /* the softness of a rigid row in this soft-step pass: the world's joint
     * softness (solve), or (0, 1, 0) (relax) */
    float bias_rate, mass_scale, impulse_scale;
} ts_custom_pass;

/* Fills the lane of custom joint `joint` for a step (its bodies at the
 * step's start, the rows' masses, the warm-start impulses of the soft step
 * when warm_start; XPBD: xpbd true, no warm start). states holds the awake
 * bodies' states of the step's start, the dummy at index `awake`. */
void ts_custom_prepare(ts_custom_lane *lane, const ts_records *records, const ts_body_state *states, int32_t joint,
                       int32_t awake, float h, bool warm_start, bool xpbd);

/* Soft step passes over lanes [0, count). */
void ts_custom_warm_start(ts_custom_lane *lanes, int count, const ts_custom_pass *pass);
void ts_custom_solve(ts_custom_lane *lanes, int count, const ts_custom_pass *pass);

/* XPBD passes over lanes [0, count). */
void ts_custom_xpbd_positions(ts_custom_lane *lanes, int count, const ts_custom_pass *pass);
void ts_custom_xpbd_velocities(ts_custom_lane *lanes, int count, const ts_custom_pass *pass);

/* After the substeps: the rows' impulses (N s of the last substep) into the
 * joint's impulses, and the reaction force and torque (impulses / h). */
void ts_custom_store(const ts_custom_lane *lanes, int count, ts_records *records, float inv_h);

/* After a step's solve (serial): marks the joints of the lanes that met a
 * bad row in this step as dropped and returns the lowest such joint index,
 * or -1. */
int32_t ts_custom_take_dropped(const ts_custom_lane *lanes, int32_t count, ts_records *records);

#endif
