/* The effective mass of a point constraint between two bodies (compiled once
 * per width): K = (mA + mB) 1 - [rA]x IA^-1 [rA]x - [rB]x IB^-1 [rB]x for
 * the anchors rA, rB from the centres of mass, and its inverse. Ball, hinge
 * and fixed joints use it (joint_solver.c, ball_joint.c). */
#ifndef TS_POINT_MASS_H
#define TS_POINT_MASS_H

#include "base/core.h"
#include "base/wide.h"

/* [r]x^T S [r]x, the angular part of K for an anchor r: column j is
 * (S (r x e_j)) x r, with r x e_x = (0, rz, -ry), r x e_y = (-rz, 0, rx),
 * r x e_z = (ry, -rx, 0); the zero entries are left out of S times them
 * (a product with 0 adds nothing but the sign of a zero). */
TS_FORCE_INLINE void ts_add_arm_term(ts_wsym3 *k, ts_wsym3 s, ts_wv3 r)
{
    ts_wv3 sx = {ts_w_sub(ts_w_mul(s.xy, r.z), ts_w_mul(s.xz, r.y)), ts_w_sub(ts_w_mul(s.yy, r.z), ts_w_mul(s.yz, r.y)),
                 ts_w_sub(ts_w_mul(s.yz, r.z), ts_w_mul(s.zz, r.y))};
    ts_wv3 sy = {ts_w_sub(ts_w_mul(s.xz, r.x), ts_w_mul(s.xx, r.z)), ts_w_sub(ts_w_mul(s.yz, r.x), ts_w_mul(s.xy, r.z)),
                 ts_w_sub(ts_w_mul(s.zz, r.x), ts_w_mul(s.xz, r.z))};
    ts_wv3 sz = {ts_w_sub(ts_w_mul(s.xx, r.y), ts_w_mul(s.xy, r.x)), ts_w_sub(ts_w_mul(s.xy, r.y), ts_w_mul(s.yy, r.x)),
                 ts_w_sub(ts_w_mul(s.xz, r.y), ts_w_mul(s.yz, r.x))};
    /* (S c) x r, only the entries of the symmetric result that are kept */
    k->xx = ts_w_add(k->xx, ts_w_sub(ts_w_mul(sx.y, r.z), ts_w_mul(sx.z, r.y)));
    k->yy = ts_w_add(k->yy, ts_w_sub(ts_w_mul(sy.z, r.x), ts_w_mul(sy.x, r.z)));
    k->zz = ts_w_add(k->zz, ts_w_sub(ts_w_mul(sz.x, r.y), ts_w_mul(sz.y, r.x)));
    k->xy = ts_w_add(k->xy, ts_w_sub(ts_w_mul(sy.y, r.z), ts_w_mul(sy.z, r.y)));
    k->xz = ts_w_add(k->xz, ts_w_sub(ts_w_mul(sz.y, r.z), ts_w_mul(sz.z, r.y)));
    k->yz = ts_w_add(k->yz, ts_w_sub(ts_w_mul(sz.z, r.x), ts_w_mul(sz.x, r.z)));
}

/* The inverse by cofactors; zero where singular (empty lanes). */
TS_FORCE_INLINE ts_wsym3 ts_wsym3_inverse(ts_wsym3 m)
{
    ts_wf cxx = ts_w_sub(ts_w_mul(m.yy, m.zz), ts_w_mul(m.yz, m.yz));
    ts_wf cyy = ts_w_sub(ts_w_mul(m.xx, m.zz), ts_w_mul(m.xz, m.xz));
    ts_wf czz = ts_w_sub(ts_w_mul(m.xx, m.yy), ts_w_mul(m.xy, m.xy));
    ts_wf cxy = ts_w_sub(ts_w_mul(m.xz, m.yz), ts_w_mul(m.xy, m.zz));
    ts_wf cxz = ts_w_sub(ts_w_mul(m.xy, m.yz), ts_w_mul(m.yy, m.xz));
    ts_wf cyz = ts_w_sub(ts_w_mul(m.xy, m.xz), ts_w_mul(m.xx, m.yz));
    ts_wf det = ts_w_add(ts_w_add(ts_w_mul(m.xx, cxx), ts_w_mul(m.xy, cxy)), ts_w_mul(m.xz, cxz));
    ts_wm ok = ts_w_gt(det, ts_w_zero());
    ts_wf inv = ts_w_select(ok, ts_w_div(ts_w_splat(1.0f), ts_w_select(ok, det, ts_w_splat(1.0f))), ts_w_zero());
    return (ts_wsym3){ts_w_mul(cxx, inv), ts_w_mul(cyy, inv), ts_w_mul(czz, inv),
                      ts_w_mul(cxy, inv), ts_w_mul(cxz, inv), ts_w_mul(cyz, inv)};
}

/* K^-1 for inverse masses ma, mb, world inverse inertias ia, ib and anchors
 * ra, rb. */
TS_FORCE_INLINE ts_wsym3 ts_point_mass(ts_wf ma, ts_wf mb, ts_wsym3 ia, ts_wsym3 ib, ts_wv3 ra, ts_wv3 rb)
{
    ts_wf m = ts_w_add(ma, mb);
    ts_wf zero = ts_w_zero();
    ts_wsym3 k = {m, m, m, zero, zero, zero};
    ts_add_arm_term(&k, ia, ra);
    ts_add_arm_term(&k, ib, rb);
    return ts_wsym3_inverse(k);
}

TS_FORCE_INLINE void ts_wsym3_store(float rows[6][TS_W], ts_wsym3 m)
{
    ts_w_store(rows[0], m.xx);
    ts_w_store(rows[1], m.yy);
    ts_w_store(rows[2], m.zz);
    ts_w_store(rows[3], m.xy);
    ts_w_store(rows[4], m.xz);
    ts_w_store(rows[5], m.yz);
}

#endif
