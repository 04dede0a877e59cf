/* Rolling resistance of a contact manifold, shared by the soft step's and
 * XPBD's contact kernels (compiled once per width with them).
 *
 * A ball rolls when its angular velocity relative to the ground has a part
 * perpendicular to the contact normal n (the part along n is spin, which
 * the twist friction resists). Rolling resistance is an angular impulse L
 * in the plane of the tangents t1, t2 (L = λ1 t1 + λ2 t2) that drives that
 * part, ωr = ((wB - wA) . t1, (wB - wA) . t2), to zero:
 *     λ += -M ωr,   M = K^-1,   K_ij = ti . (IA^-1 + IB^-1) tj
 * (K formed here from the bundle's inverse inertias: a bundle that stored
 * it would be 3 rows longer in every world)
 * (A takes -L, B takes +L), clamped to the disc
 *     |λ| <= lever Σ λn,   lever = rolling resistance x rolling radius
 * (the contact's mix, collide/rolling_resistance.h), the torque of the
 * normal force acting `lever` ahead of the contact point, as a tyre's
 * flattened patch does (Box2D v3 / Box3D bound it the same way; they take
 * the whole angular velocity, spin too). It is accumulated over the step
 * and warm started like friction, along the same tangents.
 *
 * A bundle runs this only when some lane has a lever > 0 (b->rolls), and
 * its lanes without one keep their exact bits (selects, not additions of
 * zero), so a lane's result never depends on its bundle-mates and a world
 * without rolling resistance steps exactly as before it existed. */
#ifndef TS_CONTACT_ROLLING_H
#define TS_CONTACT_ROLLING_H

#include "solver/contact_solver.h"
#include "solver/pair_lanes.h"

/* The lanes with rolling resistance. */
TS_FORCE_INLINE ts_wm ts_rolling_lanes(const ts_contact_bundle *b)
{
    return ts_w_gt(ts_w_load(b->rolling_resistance), ts_w_zero());
}

/* Warm start: the accumulated rolling impulse added to A's angular impulse
 * angular_a (B's is formed from it: the rolling impulse is a pure torque). */
TS_FORCE_INLINE ts_wv3 ts_rolling_warm_start(const ts_contact_bundle *b, ts_wv3 n, ts_wv3 angular_a)
{
    ts_wv3 t1 = ts_wv3_load(b->tangent1);
    ts_wv3 rolling = ts_wv3_scale(ts_w_load(b->rolling_impulse[0]), t1);
    rolling = ts_wv3_mul_add(rolling, ts_w_load(b->rolling_impulse[1]), ts_contact_tangent2(n, t1));
    return ts_wv3_select(ts_rolling_lanes(b), ts_wv3_add(angular_a, rolling), angular_a);
}

/* One update of the rolling impulse (header comment) within lever x
 * total_normal, the manifold's normal impulse of this substep. */
TS_FORCE_INLINE void ts_rolling_solve(ts_contact_bundle *b, pair_lanes *p, ts_wv3 n, ts_wf total_normal)
{
    ts_wm rolls = ts_rolling_lanes(b);
    ts_wv3 t1 = ts_wv3_load(b->tangent1);
    ts_wv3 t2 = ts_contact_tangent2(n, t1);
    ts_wv3 spin = ts_wv3_sub(p->b.w, p->a.w);
    ts_wf r1 = ts_wv3_dot(spin, t1);
    ts_wf r2 = ts_wv3_dot(spin, t2);
    ts_wv3 i1 = ts_wv3_add(ts_wsym3_mul(p->inv_inertia_a, t1), ts_wsym3_mul(p->inv_inertia_b, t1));
    ts_wv3 i2 = ts_wv3_add(ts_wsym3_mul(p->inv_inertia_a, t2), ts_wsym3_mul(p->inv_inertia_b, t2));
    ts_wf kxx = ts_wv3_dot(t1, i1);
    ts_wf kxy = ts_wv3_dot(t1, i2);
    ts_wf kyy = ts_wv3_dot(t2, i2);
    ts_wf det = ts_w_sub(ts_w_mul(kxx, kyy), ts_w_mul(kxy, kxy));
    ts_wf zero = ts_w_zero();
    ts_wm invertible = ts_w_gt(det, zero);
    ts_wf inv_det = ts_w_div(ts_w_splat(1.0f), ts_w_select(invertible, det, ts_w_splat(1.0f)));
    inv_det = ts_w_select(invertible, inv_det, zero); /* no inertia to turn: no impulse */
    ts_wf mxx = ts_w_mul(inv_det, kyy);
    ts_wf mxy = ts_w_neg(ts_w_mul(inv_det, kxy));
    ts_wf myy = ts_w_mul(inv_det, kxx);
    ts_wf old1 = ts_w_load(b->rolling_impulse[0]);
    ts_wf old2 = ts_w_load(b->rolling_impulse[1]);
    ts_wf new1 = ts_w_sub(old1, ts_w_add(ts_w_mul(mxx, r1), ts_w_mul(mxy, r2)));
    ts_wf new2 = ts_w_sub(old2, ts_w_add(ts_w_mul(mxy, r1), ts_w_mul(myy, r2)));
    ts_wf limit = ts_w_mul(ts_w_load(b->rolling_resistance), total_normal);
    ts_wf length = ts_w_sqrt(ts_w_add(ts_w_mul(new1, new1), ts_w_mul(new2, new2)));
    ts_wf scale = ts_w_select(ts_w_gt(length, limit), ts_w_div(limit, length), ts_w_splat(1.0f));
    new1 = ts_w_select(rolls, ts_w_mul(new1, scale), zero);
    new2 = ts_w_select(rolls, ts_w_mul(new2, scale), zero);
    ts_w_store(b->rolling_impulse[0], new1);
    ts_w_store(b->rolling_impulse[1], new2);
    ts_wv3 angular = ts_wv3_add(ts_wv3_scale(ts_w_sub(new1, old1), t1), ts_wv3_scale(ts_w_sub(new2, old2), t2));
    ts_wv3 wa = p->a.w, wb = p->b.w;
    ts_pair_apply_angular(p, angular);
    p->a.w = ts_wv3_select(rolls, p->a.w, wa);
    p->b.w = ts_wv3_select(rolls, p->b.w, wb);
}

#endif
