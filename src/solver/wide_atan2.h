/* atan2 of lanes without libm (no transcendental inside a step, design.md):
 * the hinge angle of both solvers (joint_solver.c, xpbd_joint.c), so both
 * read the same angle from a pose. */
#ifndef TS_WIDE_ATAN2_H
#define TS_WIDE_ATAN2_H

#include "base/wide.h"

/* atan2(y, x) to ~1e-5 rad: on [0, 1] atan(t) is an odd polynomial of degree
 * 11 (a minimax fit), extended by atan(t) = pi/2 - atan(1/t) and the
 * quadrant's signs. (0, 0) gives 0. */
static inline ts_wf ts_w_atan2(ts_wf y, ts_wf x)
{
    ts_wf ax = ts_w_max(x, ts_w_neg(x)), ay = ts_w_max(y, ts_w_neg(y));
    ts_wf big = ts_w_max(ax, ay), small = ts_w_min(ax, ay);
    ts_wf t = ts_w_div(small, ts_w_add(big, ts_w_splat(1.0e-30f)));
    ts_wf s = ts_w_mul(t, t);
    ts_wf poly = ts_w_splat(-0.01172120f);
    poly = ts_w_add(ts_w_mul(poly, s), ts_w_splat(0.05265332f));
    poly = ts_w_add(ts_w_mul(poly, s), ts_w_splat(-0.11643287f));
    poly = ts_w_add(ts_w_mul(poly, s), ts_w_splat(0.19354346f));
    poly = ts_w_add(ts_w_mul(poly, s), ts_w_splat(-0.33262347f));
    poly = ts_w_add(ts_w_mul(poly, s), ts_w_splat(0.99997726f));
    ts_wf r = ts_w_mul(poly, t);
    ts_wf zero = ts_w_zero();
    r = ts_w_select(ts_w_gt(ay, ax), ts_w_sub(ts_w_splat(1.57079637f), r), r);
    r = ts_w_select(ts_w_gt(zero, x), ts_w_sub(ts_w_splat(3.14159274f), r), r);
    return ts_w_select(ts_w_gt(zero, y), ts_w_neg(r), r);
}

#endif
