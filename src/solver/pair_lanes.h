/* Two body states per lane for the two-body constraint kernels, contacts and
 * joints (compiled once per width): the pair's gathered states with their
 * inverse masses and world inverse inertias, and the impulse helpers. */
#ifndef TS_PAIR_LANES_H
#define TS_PAIR_LANES_H

#include "body_lanes.h"

/* Two bodies per lane with their inverse masses and world inverse inertias. */
typedef struct pair_lanes {
    body_lanes a, b;
    ts_wf inv_mass_a, inv_mass_b;
    ts_wsym3 inv_inertia_a, inv_inertia_b;
} pair_lanes;

/* Impulse P at anchors rA, rB: A gets -P, B gets +P. */
TS_FORCE_INLINE void ts_pair_apply_impulse(pair_lanes *p, ts_wv3 impulse, ts_wv3 ra, ts_wv3 rb)
{
    p->a.v = ts_wv3_mul_sub(p->a.v, p->inv_mass_a, impulse);
    p->a.w = ts_wv3_sub(p->a.w, ts_wsym3_mul(p->inv_inertia_a, ts_wv3_cross(ra, impulse)));
    p->b.v = ts_wv3_mul_add(p->b.v, p->inv_mass_b, impulse);
    p->b.w = ts_wv3_add(p->b.w, ts_wsym3_mul(p->inv_inertia_b, ts_wv3_cross(rb, impulse)));
}

/* An angular impulse L: A gets -L, B gets +L. */
TS_FORCE_INLINE void ts_pair_apply_angular(pair_lanes *p, ts_wv3 angular)
{
    p->a.w = ts_wv3_sub(p->a.w, ts_wsym3_mul(p->inv_inertia_a, angular));
    p->b.w = ts_wv3_add(p->b.w, ts_wsym3_mul(p->inv_inertia_b, angular));
}

/* Velocity of B's anchor relative to A's: vB + wB x rB - vA - wA x rA. */
TS_FORCE_INLINE ts_wv3 ts_pair_relative_velocity(const pair_lanes *p, ts_wv3 ra, ts_wv3 rb)
{
    ts_wv3 vb = ts_wv3_add(p->b.v, ts_wv3_cross(p->b.w, rb));
    ts_wv3 va = ts_wv3_add(p->a.v, ts_wv3_cross(p->a.w, ra));
    return ts_wv3_sub(vb, va);
}

#endif
