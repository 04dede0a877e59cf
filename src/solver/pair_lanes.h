/* Two body states per lane for the two-body constraint kernels, contacts and
 * joints (compiled once per width): the pair's gathered states with their
 * inverse masses and world inverse inertias, and the impulse helpers. */
#ifndef TS_PAIR_LANES_H
#define TS_PAIR_LANES_H

#include "solver/body_lanes.h"

/* Two bodies per lane with their inverse masses and world inverse inertias. */
typedef struct pair_lanes {
    body_lanes a, b;
    ts_wf inv_mass_a, inv_mass_b;
    ts_wsym3 inv_inertia_a, inv_inertia_b;
} pair_lanes;

/* The two bodies of any bundle with the two-body fields body_a / body_b,
 * inv_mass_a / _b and inv_inertia_a / _b (contact and joint bundles alike):
 * gathered from the states, and their velocities scattered back. */
#define TS_PAIR_LOAD(states, bundle)                                                                         \
    ((pair_lanes){gather((states), (bundle)->body_a), gather((states), (bundle)->body_b),                    \
                  ts_w_load((bundle)->inv_mass_a), ts_w_load((bundle)->inv_mass_b),                          \
                  ts_wsym3_load((bundle)->inv_inertia_a), ts_wsym3_load((bundle)->inv_inertia_b)})

#define TS_PAIR_STORE(states, bundle, pair)                                                                  \
    do {                                                                                                     \
        scatter((states), (bundle)->body_a, (bundle)->inv_mass_a, (pair)->a);                                \
        scatter((states), (bundle)->body_b, (bundle)->inv_mass_b, (pair)->b);                                \
    } while (0)

/* The same, writing the moved positions and rotations too. */
#define TS_PAIR_STORE_POSE(states, bundle, pair)                                                             \
    do {                                                                                                     \
        TS_PAIR_STORE(states, bundle, pair);                                                                 \
        scatter_position((states), (bundle)->body_a, (bundle)->inv_mass_a, (pair)->a);                       \
        scatter_position((states), (bundle)->body_b, (bundle)->inv_mass_b, (pair)->b);                       \
    } while (0)

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

/* The normal seen from each body's delta frame: n . (dq r) = (dq^-1 n) . r,
 * so two rotations per manifold replace two per point (Box3D's trick). */
typedef struct separation_frame {
    ts_wf normal_dp; /* n . (dpB - dpA) */
    ts_wv3 normal_a; /* dqA^-1 n */
    ts_wv3 normal_b; /* dqB^-1 n */
} separation_frame;

TS_FORCE_INLINE separation_frame separation_frame_of(const pair_lanes *p, ts_wv3 n)
{
    ts_wquat inv_a = {ts_w_neg(p->a.dq.x), ts_w_neg(p->a.dq.y), ts_w_neg(p->a.dq.z), p->a.dq.w};
    ts_wquat inv_b = {ts_w_neg(p->b.dq.x), ts_w_neg(p->b.dq.y), ts_w_neg(p->b.dq.z), p->b.dq.w};
    return (separation_frame){ts_wv3_dot(ts_wv3_sub(p->b.dp, p->a.dp), n), ts_wquat_rotate(inv_a, n),
                              ts_wquat_rotate(inv_b, n)};
}

#endif
