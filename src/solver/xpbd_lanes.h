/* Lane helpers of the XPBD kernels, contacts (xpbd_contact.c) and joints
 * (xpbd_joint.c), compiled once per width like them: the small-rotation
 * update of a pose delta, not normalised (the poses a position pass moved
 * are written back by scatter_position, body_lanes.h). */
#ifndef TS_XPBD_LANES_H
#define TS_XPBD_LANES_H

#include "solver/pair_lanes.h"

/* The most one projection turns a body, in radians. The update
 * dq += 1/2 (theta, 0) dq turns by 2 atan(|theta| / 2): 0.5% short at 0.25
 * rad, but far short for the several radians a projection asks of a light
 * body with a long arm (a sphere of radius 0.1 m on an anchor 0.5 m out,
 * its joint open 0.5 m), whose chain then diverged; a larger correction is
 * made over the next substeps instead. Turns this large come only from such
 * gaps: the benchmark scenes never reach it (their states keep their bits). */
#define TS_XPBD_MAX_TURN 0.25f

/* q + 1/2 (θ, 0) q: q turned by the small world rotation θ, to first order
 * (the length drifts by O(|θ|^2); derive velocities normalises dq once per
 * substep). */
TS_FORCE_INLINE ts_wquat ts_xpbd_turn_by(ts_wquat q, ts_wv3 t)
{
    /* at most TS_XPBD_MAX_TURN; the square root and division only in bundles that need them */
    ts_wf half = ts_w_splat(0.5f);
    ts_wf limit = ts_w_splat(TS_XPBD_MAX_TURN * TS_XPBD_MAX_TURN);
    ts_wf angle_sq = ts_wv3_dot(t, t);
    ts_wm over = ts_w_gt(angle_sq, limit);
    if (ts_w_mask_bits(over) != 0) {
        ts_wf scale = ts_w_div(ts_w_splat(TS_XPBD_MAX_TURN), ts_w_sqrt(ts_w_select(over, angle_sq, limit)));
        scale = ts_w_select(over, scale, ts_w_splat(1.0f));
        t = ts_wv3_scale(scale, t);
    }
    /* (θ, 0) q, term order as quat_mul with a.w = 0 */
    ts_wf x = ts_w_sub(ts_w_add(ts_w_mul(t.x, q.w), ts_w_mul(t.y, q.z)), ts_w_mul(t.z, q.y));
    ts_wf y = ts_w_add(ts_w_sub(ts_w_mul(t.y, q.w), ts_w_mul(t.x, q.z)), ts_w_mul(t.z, q.x));
    ts_wf z = ts_w_sub(ts_w_add(ts_w_mul(t.x, q.y), ts_w_mul(t.z, q.w)), ts_w_mul(t.y, q.x));
    ts_wf w = ts_w_sub(ts_w_sub(ts_w_neg(ts_w_mul(t.x, q.x)), ts_w_mul(t.y, q.y)), ts_w_mul(t.z, q.z));
    return (ts_wquat){ts_w_add(q.x, ts_w_mul(half, x)), ts_w_add(q.y, ts_w_mul(half, y)),
                      ts_w_add(q.z, ts_w_mul(half, z)), ts_w_add(q.w, ts_w_mul(half, w))};
}

#endif
