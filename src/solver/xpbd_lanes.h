/* Lane helpers of the XPBD kernels, contacts (xpbd_contact.c) and joints
 * (xpbd_joint.c), compiled once per width like them: the small-rotation
 * update of a pose delta, and a position correction that moves a body's
 * velocity with it.
 *
 * Velocities follow the corrections. XPBD's velocity is the pose change
 * over the substep, v = (x - x_prev) / h: the integrators' prediction moved
 * x by h v, so the corrections Δx (and the small turns θ) the passes make
 * afterwards add Δx / h to v (θ / h to w). Each kernel adds them where it
 * moves the pose, so no pass over the bodies derives velocities, and no copy
 * of the predicted states is kept (the paper's form needs both: 2 of the 6
 * body passes of a substep, and 64 bytes a body copied each substep). A
 * position-only move (the push pass, xpbd_push.c) leaves v alone. */
#ifndef TS_XPBD_LANES_H
#define TS_XPBD_LANES_H

#include "solver/pair_lanes.h"

/* The most one projection turns a body, in radians. The update
 * dq += 1/2 (theta, 0) dq turns by 2 atan(|theta| / 2): 0.5% short at 0.25
 * rad, but far short for the several radians a projection asks of a light
 * body with a long arm (a sphere of radius 0.1 m on an anchor 0.5 m out,
 * its joint open 0.5 m), whose chain then diverged; a larger correction is
 * made over the next substeps instead. Turns this large come only from such
 * gaps: the benchmark scenes never reach it. */
#define TS_XPBD_MAX_TURN 0.25f

/* A joint whose projections turned one of its bodies by more than this in
 * a substep (radians) is not warm started in the next: its multiplier then
 * measures a violent correction (a turn shortened to TS_XPBD_MAX_TURN moved
 * less than the multiplier says), not a load. The open joint on a light
 * sphere of test_joints diverged within 10 steps at 4 substeps when such
 * multipliers were carried over. A loaded chain at rest or swinging turns
 * its links by milliradians a substep. */
#define TS_XPBD_WARM_MAX_TURN 0.1f

/* θ shortened to TS_XPBD_MAX_TURN; the square root and division only in
 * bundles that need them. */
TS_FORCE_INLINE ts_wv3 ts_xpbd_clamp_turn(ts_wv3 t)
{
    ts_wf limit = ts_w_splat(TS_XPBD_MAX_TURN * TS_XPBD_MAX_TURN);
    ts_wf angle_sq = ts_wv3_dot(t, t);
    ts_wm over = ts_w_gt(angle_sq, limit);
    if (ts_w_mask_bits(over) != 0) {
        ts_wf scale = ts_w_div(ts_w_splat(TS_XPBD_MAX_TURN), ts_w_sqrt(ts_w_select(over, angle_sq, limit)));
        t = ts_wv3_scale(ts_w_select(over, scale, ts_w_splat(1.0f)), t);
    }
    return t;
}

/* q + 1/2 (θ, 0) q: q turned by the small world rotation θ, to first order
 * (the length drifts by O(|θ|^2); the next position integration
 * normalises dq). */
TS_FORCE_INLINE ts_wquat ts_xpbd_turn(ts_wquat q, ts_wv3 t)
{
    ts_wf half = ts_w_splat(0.5f);
    /* (θ, 0) q, term order as quat_mul with a.w = 0 */
    ts_wf x = ts_w_sub(ts_w_add(ts_w_mul(t.x, q.w), ts_w_mul(t.y, q.z)), ts_w_mul(t.z, q.y));
    ts_wf y = ts_w_add(ts_w_sub(ts_w_mul(t.y, q.w), ts_w_mul(t.x, q.z)), ts_w_mul(t.z, q.x));
    ts_wf z = ts_w_sub(ts_w_add(ts_w_mul(t.x, q.y), ts_w_mul(t.z, q.w)), ts_w_mul(t.y, q.x));
    ts_wf w = ts_w_sub(ts_w_sub(ts_w_neg(ts_w_mul(t.x, q.x)), ts_w_mul(t.y, q.y)), ts_w_mul(t.z, q.z));
    return (ts_wquat){ts_w_add(q.x, ts_w_mul(half, x)), ts_w_add(q.y, ts_w_mul(half, y)),
                      ts_w_add(q.z, ts_w_mul(half, z)), ts_w_add(q.w, ts_w_mul(half, w))};
}

/* A body moved by `move` and turned by `turn` (θ, clamped): the pose
 * changes, and the velocities by move / h and θ / h. */
TS_FORCE_INLINE void ts_xpbd_move(body_lanes *b, ts_wv3 move, ts_wv3 turn, ts_wf inv_h)
{
    turn = ts_xpbd_clamp_turn(turn);
    b->dp = ts_wv3_add(b->dp, move);
    b->v = ts_wv3_mul_add(b->v, inv_h, move);
    b->dq = ts_xpbd_turn(b->dq, turn);
    b->w = ts_wv3_mul_add(b->w, inv_h, turn);
}

#endif
