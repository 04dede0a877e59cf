/* The lane helpers of the ball bundles (ball_joint.h), shared by the soft
 * step's ball kernels (ball_joint.c) and XPBD's (xpbd_ball.c): K^-1 of a
 * point constraint and the angular response of a body, in the short form of
 * isotropic lanes (both bodies' inverse inertias a scalar times the
 * identity) or the general one. Compiled once per width, like them. */
#ifndef TS_BALL_LANES_H
#define TS_BALL_LANES_H

#include "solver/ball_joint.h"
#include "solver/point_mass.h"

/* K^-1 of an isotropic lane, inverse inertias ia 1 and ib 1: with
 * [r]x^T [r]x = |r|^2 1 - r r^T,
 *     K = (mA + mB + ia |rA|^2 + ib |rB|^2) 1 - ia rA rA^T - ib rB rB^T. */
TS_FORCE_INLINE ts_wsym3 iso_point_mass(ts_wf ma, ts_wf mb, ts_wf ia, ts_wf ib, ts_wv3 ra, ts_wv3 rb)
{
    ts_wv3 ua = ts_wv3_scale(ia, ra), ub = ts_wv3_scale(ib, rb);
    ts_wf s = ts_w_add(ts_w_add(ma, mb), ts_w_add(ts_wv3_dot(ua, ra), ts_wv3_dot(ub, rb)));
    ts_wsym3 k = {
        ts_w_sub(s, ts_w_add(ts_w_mul(ua.x, ra.x), ts_w_mul(ub.x, rb.x))),
        ts_w_sub(s, ts_w_add(ts_w_mul(ua.y, ra.y), ts_w_mul(ub.y, rb.y))),
        ts_w_sub(s, ts_w_add(ts_w_mul(ua.z, ra.z), ts_w_mul(ub.z, rb.z))),
        ts_w_neg(ts_w_add(ts_w_mul(ua.x, ra.y), ts_w_mul(ub.x, rb.y))),
        ts_w_neg(ts_w_add(ts_w_mul(ua.x, ra.z), ts_w_mul(ub.x, rb.z))),
        ts_w_neg(ts_w_add(ts_w_mul(ua.y, ra.z), ts_w_mul(ub.y, rb.z))),
    };
    return ts_wsym3_inverse(k);
}

TS_FORCE_INLINE ts_wm isotropic_lanes(const ts_ball_cold *cold) { return ts_w_gt(ts_w_load(cold->isotropic), ts_w_zero()); }

/* K^-1 of every lane at anchors ra, rb; `general` is a constant of the
 * caller (the bundle has a general lane; only then is `cold` read), so a
 * bundle of isotropic lanes compiles to the short form alone. */
TS_FORCE_INLINE ts_wsym3 lane_point_mass(const ts_ball_bundle *b, const ts_ball_cold *cold, bool general, ts_wv3 ra,
                                         ts_wv3 rb)
{
    ts_wf ma = ts_w_load(b->inv_mass_a), mb = ts_w_load(b->inv_mass_b);
    ts_wsym3 k = iso_point_mass(ma, mb, ts_w_load(b->iso_inertia_a), ts_w_load(b->iso_inertia_b), ra, rb);
    if (general) {
        ts_wsym3 g = ts_point_mass(ma, mb, ts_wsym3_load(cold->inv_inertia_a), ts_wsym3_load(cold->inv_inertia_b), ra, rb);
        ts_wm iso = isotropic_lanes(cold);
        k = (ts_wsym3){ts_w_select(iso, k.xx, g.xx), ts_w_select(iso, k.yy, g.yy), ts_w_select(iso, k.zz, g.zz),
                       ts_w_select(iso, k.xy, g.xy), ts_w_select(iso, k.xz, g.xz), ts_w_select(iso, k.yz, g.yz)};
    }
    return k;
}

/* The angular velocity change I^-1 L of one body of every lane. */
TS_FORCE_INLINE ts_wv3 lane_angular(const ts_ball_cold *cold, bool general, const float iso_row[TS_W], bool side_b,
                                    ts_wv3 l)
{
    ts_wv3 r = ts_wv3_scale(ts_w_load(iso_row), l);
    if (general) { /* cold is NULL otherwise: its rows are named only here */
        const float(*rows)[TS_W] = side_b ? cold->inv_inertia_b : cold->inv_inertia_a;
        r = ts_wv3_select(isotropic_lanes(cold), r, ts_wsym3_mul(ts_wsym3_load(rows), l));
    }
    return r;
}

#endif
