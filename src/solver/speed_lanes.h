/* The world's speed limits in lanes (tessera/limits.h): a velocity longer
 * than its limit is scaled to just below it. Used by the integrators
 * (integrate_wide.c) after forces are added, before each move and when the
 * step stores the velocities, at every width (width 1 is one body).
 *
 * The scaling, per lane whose |v|^2 > limit^2:
 *
 *   m = max(|vx|, |vy|, |vz|),  u = v / m,  v' = u (target / |u|)
 *
 * Dividing by the largest component first keeps |u| in [1, sqrt 3], so a
 * velocity whose square overflows a float (1e20 m/s) still scales to the
 * right direction. target = limit (1 - 2^-12): the recomputed |v'|^2 is
 * then below limit^2 by ~2^-11, far beyond the few ulps of its rounding, so
 * a scaled velocity is never scaled again and applying the limit twice
 * gives the same bits as once. Only exact IEEE operations: every width
 * gives the same bits, and the division runs only when some lane needs it.
 * A NaN or infinite lane passes through unchanged (the finite checks of the
 * integrators catch it). */
#ifndef TS_SPEED_LANES_H
#define TS_SPEED_LANES_H

#include "solver/integrate.h"
#include "base/wide.h"

/* 1 - 2^-12: the limit's target, so that a scaled velocity stays below it. */
#define TS_SPEED_TARGET 0.999755859375f

/* One limit in lanes: the limit squared (the test) and the target. */
typedef struct speed_lanes {
    ts_wf limit_sq;
    ts_wf target;
} speed_lanes;

TS_FORCE_INLINE speed_lanes speed_lanes_of(float limit)
{
    return (speed_lanes){ts_w_splat(limit * limit), ts_w_splat(limit * TS_SPEED_TARGET)};
}

TS_FORCE_INLINE ts_wf abs_lanes(ts_wf a) { return ts_w_max(a, ts_w_neg(a)); }

/* The lanes of v longer than the limit. */
TS_FORCE_INLINE ts_wm over_limit(ts_wv3 v, const speed_lanes *limit)
{
    return ts_w_gt(ts_wv3_dot(v, v), limit->limit_sq);
}

/* v scaled to the target in the lanes of `over` (see the header comment). */
TS_FORCE_INLINE ts_wv3 scale_to_limit(ts_wv3 v, ts_wm over, const speed_lanes *limit)
{
    ts_wf one = ts_w_splat(1.0f);
    ts_wf m = ts_w_max(ts_w_max(abs_lanes(v.x), abs_lanes(v.y)), abs_lanes(v.z));
    m = ts_w_select(over, m, one); /* > 0 where over: |v|^2 > limit^2 >= 0 */
    ts_wv3 u = {ts_w_div(v.x, m), ts_w_div(v.y, m), ts_w_div(v.z, m)};
    ts_wf scale = ts_w_div(limit->target, ts_w_sqrt(ts_wv3_dot(u, u)));
    return ts_wv3_select(over, ts_wv3_scale(scale, u), v);
}

/* v within the limit; *clamped is set when some lane was scaled. */
TS_FORCE_INLINE ts_wv3 limit_speed(ts_wv3 v, const speed_lanes *limit, bool *clamped)
{
    ts_wm over = over_limit(v, limit);
    if (ts_w_mask_bits(over) == 0) {
        return v;
    }
    *clamped = true;
    return scale_to_limit(v, over, limit);
}

#endif
