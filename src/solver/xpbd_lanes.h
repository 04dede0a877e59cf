/* Lane helpers of the XPBD kernels, contacts (xpbd_contact.c) and joints
 * (xpbd_joint.c), compiled once per width like them: the small-rotation
 * update of a pose delta, not normalised (the poses a position pass moved
 * are written back by scatter_position, body_lanes.h). */
#ifndef TS_XPBD_LANES_H
#define TS_XPBD_LANES_H

#include "pair_lanes.h"

/* q + 1/2 (θ, 0) q: q turned by the small world rotation θ, to first order
 * (the length drifts by O(|θ|^2); derive velocities normalises dq once per
 * substep). */
TS_FORCE_INLINE ts_wquat ts_xpbd_turn_by(ts_wquat q, ts_wv3 t)
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

#endif
