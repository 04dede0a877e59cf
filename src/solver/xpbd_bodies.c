/* XPBD's per-body passes over a range of awake slots, TS_W bodies at a time
 * (compiled once per width; every lane follows the same operations as the
 * W = 1 build):
 *
 *   keep the prediction: after the integrators moved the bodies by their
 *   velocities, a copy of each state (v, w, dp, dq) is kept;
 *
 *   derive velocities: after the position pass, the velocity follows from
 *   the correction the constraints made to the predicted pose:
 *       v = v* + (dp - dp*) / h
 *       w = w* + 2 vec(dq dq*^-1) / h   (the sign of the scalar part picks the short way)
 *   which is the paper's v = (x - x_prev) / h, w = 2 vec(q q_prev^-1) / h
 *   since v* = (dp* - dp_prev) / h, but leaves an untouched body exactly as
 *   the integrators left it (a free tumbling body keeps its momentum-keeping
 *   angular velocity, bit for bit the soft step's). Working on dp, dq (deltas
 *   since the step's start) keeps the difference precise far from the
 *   origin. dq is normalised here, once per substep, for bodies the
 *   constraints turned. */
#include "solver/xpbd_solver.h"

#include "solver/body_lanes.h"
#include "solver/lock_lanes.h"

#include <string.h>

void TS_WIDE(ts_xpbd_keep_prediction)(ts_body_state *TS_RESTRICT predicted, const ts_body_state *states,
                                      int32_t begin, int32_t end)
{
    memcpy(predicted + begin, states + begin, sizeof(ts_body_state) * (size_t)(end - begin));
}

TS_FORCE_INLINE ts_wf abs_w(ts_wf a) { return ts_w_max(a, ts_w_neg(a)); }

TS_FORCE_INLINE ts_wv3 select3(ts_wm m, ts_wv3 a, ts_wv3 b)
{
    return (ts_wv3){ts_w_select(m, a.x, b.x), ts_w_select(m, a.y, b.y), ts_w_select(m, a.z, b.z)};
}

void TS_WIDE(ts_xpbd_derive_velocities)(ts_body_state *TS_RESTRICT states, const ts_body_state *predicted,
                                        const ts_body_store *store, int32_t begin, int32_t end, float h)
{
    ts_wf inv_h = ts_w_splat(1.0f / h);
    ts_wf two_inv_h = ts_w_splat(2.0f / h);
    ts_wf zero = ts_w_zero();
    for (int32_t i = begin; i < end; i += TS_W) {
        bundle_slots s = slots_from(i, end);
        body_lanes b = gather(states, s.index);
        body_lanes p = gather(predicted, s.index);

        ts_wv3 move = ts_wv3_sub(b.dp, p.dp);
        ts_wm moved = ts_w_gt(ts_w_add(ts_w_add(abs_w(move.x), abs_w(move.y)), abs_w(move.z)), zero);
        b.v = select3(moved, ts_wv3_mul_add(p.v, inv_h, move), p.v);

        ts_wf turned_by = ts_w_add(ts_w_add(abs_w(ts_w_sub(b.dq.x, p.dq.x)), abs_w(ts_w_sub(b.dq.y, p.dq.y))),
                                   ts_w_add(abs_w(ts_w_sub(b.dq.z, p.dq.z)), abs_w(ts_w_sub(b.dq.w, p.dq.w))));
        ts_wm turned = ts_w_gt(turned_by, zero);
        if (ts_w_mask_bits(turned) != 0) {
            ts_wquat q = b.dq;
            ts_wf length_sq = ts_w_add(ts_w_add(ts_w_add(ts_w_mul(q.x, q.x), ts_w_mul(q.y, q.y)), ts_w_mul(q.z, q.z)),
                                       ts_w_mul(q.w, q.w));
            ts_wf inv = ts_w_div(ts_w_splat(1.0f), ts_w_sqrt(length_sq));
            q = (ts_wquat){ts_w_mul(inv, q.x), ts_w_mul(inv, q.y), ts_w_mul(inv, q.z), ts_w_mul(inv, q.w)};
            /* r = q p^-1 (p^-1 = conjugate) */
            ts_wquat rq = ts_wquat_mul(q, ts_wquat_conj(p.dq));
            ts_wv3 r = {rq.x, rq.y, rq.z};
            ts_wf rw = rq.w;
            ts_wf scale = ts_w_select(ts_w_gt(zero, rw), ts_w_neg(two_inv_h), two_inv_h);
            b.w = select3(turned, ts_wv3_mul_add(p.w, scale, r), p.w);
            b.dq = (ts_wquat){ts_w_select(turned, q.x, b.dq.x), ts_w_select(turned, q.y, b.dq.y),
                              ts_w_select(turned, q.z, b.dq.z), ts_w_select(turned, q.w, b.dq.w)};
        }
        if (locks_in(store, i, s.count)) {
            /* a correction along a locked axis is undone (the prediction
             * kept it zero), and no velocity comes of it or of turning
             * about a locked axis (motion_locks.h) */
            lock_lanes m = lock_lanes_of(store, i, s.count);
            b.dp = lock_keep(b.dp, p.dp, m.linear);
            b.v = lock_zero(b.v, m.linear);
            b.w = lock_zero(b.w, m.angular);
        }
        scatter_all(states, s.index, s.count, b);
    }
}
