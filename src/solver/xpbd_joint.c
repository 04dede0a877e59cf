/* Width-generic XPBD joint kernels (see xpbd_joint.h), written against the
 * lane vocabulary of wide.h; every type runs wide.
 *
 * A constraint C(x) with gradient J is projected (Müller et al. 2020, eq. 3-4,
 * with λ starting at zero each substep, one pass):
 *     Δλ = -(C + α̃ λ) / (w + α̃),   w = J M^-1 J^T  (generalised inverse mass)
 * and moves the bodies by the correction P = Δλ J: Δp = ±P / m and a small
 * rotation θ = ±I^-1 (r x P), applied as dq += 1/2 (θ, 0) dq. Poses are the
 * deltas dp, dq since the step's start and the frames are fixed at the
 * step's start relative to the centres of mass, so no world position enters
 * (as for contacts). The inverse inertias are the world ones at the step's
 * start, in w and in the update alike, so each projection is exact to first
 * order. The rows:
 *
 * - Point (ball, hinge, fixed): C = d = (cB + rB) - (cA + rA), the gap of the
 *   frame origins, three rows at once: P = -K^-1 d with the 3x3
 *   K = (mA + mB) 1 + [rA]x^T IA^-1 [rA]x + [rB]x^T IB^-1 [rB]x at the current
 *   anchors (the paper's scalar form along d/|d| leaves the part of the
 *   correction that K turns away from d; the block form removes all of it).
 * - Rotation lock (fixed, prismatic): the frames' relative rotation
 *   dqB (QB QA^-1) dqA^-1 = (sin(θ/2) u, cos(θ/2)) gives C = 2 sin(θ/2) u
 *   (≈ θ u), and an angular correction L (B: +IB^-1 L, A: -IA^-1 L) turns
 *   it by (IA^-1 + IB^-1) L, so L = -(IA^-1 + IB^-1)^-1 C.
 * - Hinge swing: C = aA x aB (the frames' z axes now) seen along the two
 *   perpendiculars t1, t2 of frame A (turned with A): a 2x2 solve with
 *   K_ij = t_i (IA^-1 + IB^-1) t_j, L = l1 t1 + l2 t2, so the correction has
 *   no part along the hinge axis.
 * - Prismatic cross slide: C_i = t_i . d with A's arm to frame B's origin
 *   uA = rA + d (t_i turn with A: d/dx of t_i . d gives that arm), a 2x2
 *   solve of the two rows.
 * - The free coordinate x (hinge angle 2 atan2(z, w) of frame B in frame A;
 *   prismatic a . d; distance |d|) with one row of inverse mass k: the spring
 *   C = x - target with m_eff α̃ = 1 / (2 pi f h)^2, so
 *   Δλ = -(C / k) / (1 + m_eff α̃) taking m_eff ≈ 1 / k; then the limits,
 *   rigid and one-sided: C = x - lower, Δλ = max(0, -C / k), and
 *   C = upper - x likewise with the opposite sign (a rod has
 *   lower = upper = length). x is tracked linearly (x += Δλ k) from row to
 *   row, and the sum moves the bodies once.
 *
 * Order within a joint. Hinge and fixed: the point first, then the angular
 * rows (free angle, swing; the weld's rotation) with the point held, i.e.
 * against the Schur complement k - g^T K^-1 g of the point block, each
 * turn coming with the point correction -K^-1 g that keeps the gap where
 * it was: the joint's rows are then met together to first order, where a
 * turn about the centres of mass alone is mostly undone by the next point
 * correction (3/4 of it for a bar hinged at its end: a hinge limit was
 * passed by 2.4 degrees that way, by 0.001 with the point held). Prismatic:
 * free coordinate, rotation lock, then the cross slide (rows independent
 * where the frame sits at the centre of mass; not held otherwise).
 *
 * Velocity pass (after the velocities were derived from the poses): the
 * spring's damper J = -(vr / k) c h / (1 + c h) with c h = 2 ζ (2 pi f h),
 * then the motor J = (speed - vr) / k clamped to max force times h, vr the
 * row's relative velocity. */
#include "solver/xpbd_joint.h"

#include "base/core.h"
#include "solver/point_mass.h"
#include "solver/wide_atan2.h"
#include "solver/xpbd_lanes.h"

#include "tessera/joint.h"

/* ---- lane algebra ---- */

TS_FORCE_INLINE ts_wv3 zero3(void)
{
    ts_wf z = ts_w_zero();
    return (ts_wv3){z, z, z};
}

/* 1 / k, or 0 where k <= 0 (empty lanes, nothing that can move). */
TS_FORCE_INLINE ts_wf inverse_or_zero(ts_wf k)
{
    ts_wm ok = ts_w_gt(k, ts_w_zero());
    return ts_w_select(ok, ts_w_div(ts_w_splat(1.0f), ts_w_select(ok, k, ts_w_splat(1.0f))), ts_w_zero());
}

TS_FORCE_INLINE ts_wsym3 sym_add(ts_wsym3 a, ts_wsym3 b)
{
    return (ts_wsym3){ts_w_add(a.xx, b.xx), ts_w_add(a.yy, b.yy), ts_w_add(a.zz, b.zz),
                      ts_w_add(a.xy, b.xy), ts_w_add(a.xz, b.xz), ts_w_add(a.yz, b.yz)};
}

/* k += [r]x^T S [r]x: column j is (S (r x e_j)) x r. */
TS_FORCE_INLINE void add_arm(ts_wsym3 *k, ts_wsym3 s, ts_wv3 r)
{
    ts_wf zero = ts_w_zero();
    ts_wv3 cx = ts_wv3_cross(ts_wsym3_mul(s, (ts_wv3){zero, r.z, ts_w_neg(r.y)}), r);
    ts_wv3 cy = ts_wv3_cross(ts_wsym3_mul(s, (ts_wv3){ts_w_neg(r.z), zero, r.x}), r);
    ts_wv3 cz = ts_wv3_cross(ts_wsym3_mul(s, (ts_wv3){r.y, ts_w_neg(r.x), zero}), r);
    *k = (ts_wsym3){ts_w_add(k->xx, cx.x), ts_w_add(k->yy, cy.y), ts_w_add(k->zz, cz.z),
                    ts_w_add(k->xy, cy.x), ts_w_add(k->xz, cz.x), ts_w_add(k->yz, cz.y)};
}

/* -[[a, b], [b, c]]^-1 (x, y) into (*l1, *l2); zero where singular. */
TS_FORCE_INLINE void solve2(ts_wf a, ts_wf b, ts_wf c, ts_wf x, ts_wf y, ts_wf *l1, ts_wf *l2)
{
    ts_wf inv = inverse_or_zero(ts_w_sub(ts_w_mul(a, c), ts_w_mul(b, b)));
    *l1 = ts_w_neg(ts_w_mul(ts_w_sub(ts_w_mul(c, x), ts_w_mul(b, y)), inv));
    *l2 = ts_w_neg(ts_w_mul(ts_w_sub(ts_w_mul(a, y), ts_w_mul(b, x)), inv));
}

/* ---- moving the pair ---- */

/* Correction P at anchors rA, rB: A gets -P, B gets +P. */
TS_FORCE_INLINE void push_pair(pair_lanes *p, ts_wv3 impulse, ts_wv3 ra, ts_wv3 rb)
{
    p->a.dp = ts_wv3_mul_sub(p->a.dp, p->inv_mass_a, impulse);
    p->a.dq = ts_xpbd_turn_by(p->a.dq, ts_wv3_neg(ts_wsym3_mul(p->inv_inertia_a, ts_wv3_cross(ra, impulse))));
    p->b.dp = ts_wv3_mul_add(p->b.dp, p->inv_mass_b, impulse);
    p->b.dq = ts_xpbd_turn_by(p->b.dq, ts_wsym3_mul(p->inv_inertia_b, ts_wv3_cross(rb, impulse)));
}

/* Angular correction L: A turns by -IA^-1 L, B by +IB^-1 L. */
TS_FORCE_INLINE void twist_pair(pair_lanes *p, ts_wv3 angular)
{
    p->a.dq = ts_xpbd_turn_by(p->a.dq, ts_wv3_neg(ts_wsym3_mul(p->inv_inertia_a, angular)));
    p->b.dq = ts_xpbd_turn_by(p->b.dq, ts_wsym3_mul(p->inv_inertia_b, angular));
}

/* Where the frames are now: anchors turned with the bodies, and the gap d
 * from frame A's origin to frame B's. */
typedef struct joint_pose {
    ts_wv3 ra, rb, d;
} joint_pose;

TS_FORCE_INLINE joint_pose pose_of(const ts_xpbd_joint_bundle *b, const pair_lanes *p)
{
    joint_pose q;
    q.ra = ts_wquat_rotate(p->a.dq, ts_wv3_load(b->anchor_a));
    q.rb = ts_wquat_rotate(p->b.dq, ts_wv3_load(b->anchor_b));
    q.d = ts_wv3_add(ts_wv3_add(ts_wv3_sub(p->b.dp, p->a.dp), ts_wv3_sub(q.rb, q.ra)), ts_wv3_load(b->delta_center));
    return q;
}

/* Inverse mass of a sliding row along n with arms ua (A) and rb (B). */
TS_FORCE_INLINE ts_wf sliding_k(const pair_lanes *p, ts_wv3 n, ts_wv3 ua, ts_wv3 rb)
{
    ts_wv3 ja = ts_wv3_cross(ua, n), jb = ts_wv3_cross(rb, n);
    return ts_w_add(ts_w_add(p->inv_mass_a, p->inv_mass_b),
                    ts_w_add(ts_wv3_dot(ja, ts_wsym3_mul(p->inv_inertia_a, ja)),
                             ts_wv3_dot(jb, ts_wsym3_mul(p->inv_inertia_b, jb))));
}

/* ---- position rows ---- */

/* The point block of a joint: the anchors and K^-1 where it was solved,
 * kept for the angular rows that follow with the point held. */
typedef struct point_block {
    ts_wv3 ra, rb;
    ts_wsym3 inverse; /* K^-1 */
} point_block;

/* The point: P = -K^-1 d. */
TS_FORCE_INLINE point_block solve_point(const ts_xpbd_joint_bundle *b, pair_lanes *p, ts_wv3 *force)
{
    joint_pose q = pose_of(b, p);
    ts_wf m = ts_w_add(p->inv_mass_a, p->inv_mass_b);
    ts_wf zero = ts_w_zero();
    ts_wsym3 k = {m, m, m, zero, zero, zero};
    add_arm(&k, p->inv_inertia_a, q.ra);
    add_arm(&k, p->inv_inertia_b, q.rb);
    point_block block = {q.ra, q.rb, ts_wsym3_inverse(k)};
    ts_wv3 impulse = ts_wv3_neg(ts_wsym3_mul(block.inverse, q.d));
    push_pair(p, impulse, q.ra, q.rb);
    *force = ts_wv3_add(*force, impulse);
    return block;
}

/* How the gap d moves per unit angular correction along e (B turns by
 * IB^-1 e, A by -IA^-1 e): g = (IB^-1 e) x rB + (IA^-1 e) x rA. */
TS_FORCE_INLINE ts_wv3 gap_per_turn(const pair_lanes *p, const point_block *k, ts_wv3 e)
{
    return ts_wv3_add(ts_wv3_cross(ts_wsym3_mul(p->inv_inertia_b, e), k->rb),
                      ts_wv3_cross(ts_wsym3_mul(p->inv_inertia_a, e), k->ra));
}

/* The angular correction L with the point held: the point correction
 * P = -K^-1 G L that keeps d where it was (G L = gap_per_turn(L)). */
TS_FORCE_INLINE void twist_holding_point(pair_lanes *p, const point_block *k, ts_wv3 angular, ts_wv3 *force,
                                         ts_wv3 *torque)
{
    ts_wv3 impulse = ts_wv3_neg(ts_wsym3_mul(k->inverse, gap_per_turn(p, k, angular)));
    twist_pair(p, angular);
    push_pair(p, impulse, k->ra, k->rb);
    *force = ts_wv3_add(*force, impulse);
    *torque = ts_wv3_add(*torque, angular);
}

/* The frames' relative rotation dqB (QB QA^-1) dqA^-1 as 2 sin(θ/2) u
 * (fixed, prismatic). */
TS_FORCE_INLINE ts_wv3 rotation_error(const ts_xpbd_joint_bundle *b, const pair_lanes *p)
{
    ts_wquat rel = ts_wquat_mul(ts_wquat_mul(p->b.dq, ts_wquat_load(b->rotation_left)), ts_wquat_conj(p->a.dq));
    ts_wf two = ts_w_select(ts_w_gt(ts_w_zero(), rel.w), ts_w_splat(-2.0f), ts_w_splat(2.0f));
    return (ts_wv3){ts_w_mul(two, rel.x), ts_w_mul(two, rel.y), ts_w_mul(two, rel.z)};
}

/* All three relative rotations, the point free (prismatic). */
TS_FORCE_INLINE void solve_rotation_lock(const ts_xpbd_joint_bundle *b, pair_lanes *p, ts_wv3 *torque)
{
    ts_wv3 angular = ts_wv3_neg(ts_wsym3_mul(ts_wsym3_load(b->angular_mass), rotation_error(b, p)));
    twist_pair(p, angular);
    *torque = ts_wv3_add(*torque, angular);
}

/* Fixed: the point, then all three rotations with the point held: with
 * G = [g(x) g(y) g(z)] (gap_per_turn of the world axes) the rotations see
 * the Schur complement S = (IA^-1 + IB^-1) - G^T K^-1 G, so
 * L = -S^-1 C and P = -K^-1 G L: together the exact (linearised) solution
 * of the joint's six rows, where a rotation about the centres of mass
 * alone would be mostly undone by the next point correction. */
TS_FORCE_INLINE void solve_fixed(const ts_xpbd_joint_bundle *b, pair_lanes *p, ts_wv3 *force, ts_wv3 *torque)
{
    point_block k = solve_point(b, p, force);
    ts_wf one = ts_w_splat(1.0f), zero = ts_w_zero();
    ts_wv3 gx = gap_per_turn(p, &k, (ts_wv3){one, zero, zero});
    ts_wv3 gy = gap_per_turn(p, &k, (ts_wv3){zero, one, zero});
    ts_wv3 gz = gap_per_turn(p, &k, (ts_wv3){zero, zero, one});
    ts_wv3 mx = ts_wsym3_mul(k.inverse, gx), my = ts_wsym3_mul(k.inverse, gy), mz = ts_wsym3_mul(k.inverse, gz);
    ts_wsym3 s = sym_add(p->inv_inertia_a, p->inv_inertia_b);
    s = (ts_wsym3){ts_w_sub(s.xx, ts_wv3_dot(gx, mx)), ts_w_sub(s.yy, ts_wv3_dot(gy, my)),
                   ts_w_sub(s.zz, ts_wv3_dot(gz, mz)), ts_w_sub(s.xy, ts_wv3_dot(gx, my)),
                   ts_w_sub(s.xz, ts_wv3_dot(gx, mz)), ts_w_sub(s.yz, ts_wv3_dot(gy, mz))};
    ts_wv3 angular = ts_wv3_neg(ts_wsym3_mul(ts_wsym3_inverse(s), rotation_error(b, p)));
    twist_holding_point(p, &k, angular, force, torque);
}

/* The free coordinate x with row inverse mass k: spring, lower, upper
 * (header comment). Returns the total multiplier along the row and stores
 * the parts. */
TS_FORCE_INLINE ts_wf solve_axial(ts_xpbd_joint_bundle *b, ts_wf x, ts_wf k)
{
    ts_wf zero = ts_w_zero();
    ts_wf m = inverse_or_zero(k);
    ts_wf spring = ts_w_mul(ts_w_load(b->spring_on),
                            ts_w_div(ts_w_neg(ts_w_mul(m, ts_w_sub(x, ts_w_load(b->spring_target)))),
                                     ts_w_add(ts_w_splat(1.0f), ts_w_load(b->spring_softness))));
    x = ts_w_add(x, ts_w_mul(spring, k));
    ts_wf lower = ts_w_max(ts_w_neg(ts_w_mul(m, ts_w_sub(x, ts_w_load(b->lower)))), zero);
    x = ts_w_add(x, ts_w_mul(lower, k));
    ts_wf upper = ts_w_max(ts_w_neg(ts_w_mul(m, ts_w_sub(ts_w_load(b->upper), x))), zero);
    ts_w_store(b->axial_lambda[0], spring);
    ts_w_store(b->axial_lambda[1], lower);
    ts_w_store(b->axial_lambda[2], upper);
    return ts_w_sub(ts_w_add(spring, lower), upper);
}

/* Hinge: the angle of frame B about frame A's z, in (-pi, pi]. */
TS_FORCE_INLINE ts_wf hinge_angle(const ts_xpbd_joint_bundle *b, const pair_lanes *p)
{
    ts_wquat rel = ts_wquat_mul(ts_wquat_mul(ts_wquat_load(b->rotation_left), ts_wquat_mul(ts_wquat_conj(p->a.dq), p->b.dq)),
                                ts_wquat_load(b->rotation_right));
    ts_wm flip = ts_w_gt(ts_w_zero(), rel.w);
    ts_wf z = ts_w_select(flip, ts_w_neg(rel.z), rel.z);
    ts_wf w = ts_w_select(flip, ts_w_neg(rel.w), rel.w);
    return ts_w_mul(ts_w_splat(2.0f), ts_w_atan2(z, w));
}

/* Hinge: inverse mass of the rotation about a. */
TS_FORCE_INLINE ts_wf hinge_k(const pair_lanes *p, ts_wv3 a)
{
    return ts_w_add(ts_wv3_dot(a, ts_wsym3_mul(p->inv_inertia_a, a)), ts_wv3_dot(a, ts_wsym3_mul(p->inv_inertia_b, a)));
}

/* Hinge: the point, then the free angle (spring, limits) and the swing,
 * each with the point held (Schur complements as in solve_fixed: the
 * angle's row sees k - g^T K^-1 g, the swing's 2x2 the same with
 * g(t1), g(t2)); the turn about the centres of mass alone would leave most
 * of a limit's correction to be undone by the point (3/4 of it for a bar
 * hinged at its end). */
TS_FORCE_INLINE void solve_hinge(ts_xpbd_joint_bundle *b, pair_lanes *p, ts_wv3 *force, ts_wv3 *torque)
{
    point_block k = solve_point(b, p, force);

    ts_wv3 axis = ts_wquat_rotate(p->a.dq, ts_wv3_load(b->axis));
    ts_wv3 g = gap_per_turn(p, &k, axis);
    ts_wf k_axis = ts_w_sub(hinge_k(p, axis), ts_wv3_dot(g, ts_wsym3_mul(k.inverse, g)));
    ts_wf lambda = solve_axial(b, hinge_angle(b, p), k_axis);
    twist_holding_point(p, &k, ts_wv3_scale(lambda, axis), force, torque);

    /* the swing: C = aA x aB across the axis */
    axis = ts_wquat_rotate(p->a.dq, ts_wv3_load(b->axis));
    ts_wv3 error = ts_wv3_cross(axis, ts_wquat_rotate(p->b.dq, ts_wv3_load(b->axis_b)));
    ts_wv3 t1 = ts_wquat_rotate(p->a.dq, ts_wv3_load(b->perp1));
    ts_wv3 t2 = ts_wquat_rotate(p->a.dq, ts_wv3_load(b->perp2));
    ts_wsym3 s = sym_add(p->inv_inertia_a, p->inv_inertia_b);
    ts_wv3 s1 = ts_wsym3_mul(s, t1), s2 = ts_wsym3_mul(s, t2);
    ts_wv3 g1 = gap_per_turn(p, &k, t1), g2 = gap_per_turn(p, &k, t2);
    ts_wv3 m1 = ts_wsym3_mul(k.inverse, g1), m2 = ts_wsym3_mul(k.inverse, g2);
    ts_wf l1, l2;
    solve2(ts_w_sub(ts_wv3_dot(t1, s1), ts_wv3_dot(g1, m1)), ts_w_sub(ts_wv3_dot(t1, s2), ts_wv3_dot(g1, m2)),
           ts_w_sub(ts_wv3_dot(t2, s2), ts_wv3_dot(g2, m2)), ts_wv3_dot(t1, error), ts_wv3_dot(t2, error), &l1, &l2);
    twist_holding_point(p, &k, ts_wv3_add(ts_wv3_scale(l1, t1), ts_wv3_scale(l2, t2)), force, torque);
}

TS_FORCE_INLINE void solve_prismatic(ts_xpbd_joint_bundle *b, pair_lanes *p, ts_wv3 *force, ts_wv3 *torque)
{
    joint_pose q = pose_of(b, p);
    ts_wv3 axis = ts_wquat_rotate(p->a.dq, ts_wv3_load(b->axis));
    ts_wv3 ua = ts_wv3_add(q.ra, q.d);
    ts_wf lambda = solve_axial(b, ts_wv3_dot(axis, q.d), sliding_k(p, axis, ua, q.rb));
    ts_wv3 impulse = ts_wv3_scale(lambda, axis);
    push_pair(p, impulse, ua, q.rb);
    *force = ts_wv3_add(*force, impulse);

    solve_rotation_lock(b, p, torque);

    /* across the axis: C_i = t_i . d, arms uA = rA + d and rB */
    q = pose_of(b, p);
    ua = ts_wv3_add(q.ra, q.d);
    ts_wv3 t1 = ts_wquat_rotate(p->a.dq, ts_wv3_load(b->perp1));
    ts_wv3 t2 = ts_wquat_rotate(p->a.dq, ts_wv3_load(b->perp2));
    ts_wv3 a1 = ts_wv3_cross(ua, t1), a2 = ts_wv3_cross(ua, t2);
    ts_wv3 b1 = ts_wv3_cross(q.rb, t1), b2 = ts_wv3_cross(q.rb, t2);
    ts_wv3 ia1 = ts_wsym3_mul(p->inv_inertia_a, a1), ib1 = ts_wsym3_mul(p->inv_inertia_b, b1);
    ts_wv3 ia2 = ts_wsym3_mul(p->inv_inertia_a, a2), ib2 = ts_wsym3_mul(p->inv_inertia_b, b2);
    ts_wf m = ts_w_add(p->inv_mass_a, p->inv_mass_b);
    ts_wf k11 = ts_w_add(m, ts_w_add(ts_wv3_dot(a1, ia1), ts_wv3_dot(b1, ib1)));
    ts_wf k12 = ts_w_add(ts_wv3_dot(a1, ia2), ts_wv3_dot(b1, ib2));
    ts_wf k22 = ts_w_add(m, ts_w_add(ts_wv3_dot(a2, ia2), ts_wv3_dot(b2, ib2)));
    ts_wf l1, l2;
    solve2(k11, k12, k22, ts_wv3_dot(t1, q.d), ts_wv3_dot(t2, q.d), &l1, &l2);
    impulse = ts_wv3_add(ts_wv3_scale(l1, t1), ts_wv3_scale(l2, t2));
    push_pair(p, impulse, ua, q.rb);
    *force = ts_wv3_add(*force, impulse);
}

/* Distance: the unit direction from A's frame origin to B's (the step's
 * first direction where they coincide) and the length. */
TS_FORCE_INLINE ts_wv3 distance_direction(const ts_xpbd_joint_bundle *b, const joint_pose *q, ts_wf *length)
{
    *length = ts_w_sqrt(ts_wv3_dot(q->d, q->d));
    ts_wm apart = ts_w_gt(*length, ts_w_splat(1.0e-6f));
    ts_wf inv = ts_w_div(ts_w_splat(1.0f), ts_w_max(*length, ts_w_splat(1.0e-6f)));
    ts_wv3 start = ts_wv3_load(b->axis);
    return (ts_wv3){ts_w_select(apart, ts_w_mul(q->d.x, inv), start.x),
                    ts_w_select(apart, ts_w_mul(q->d.y, inv), start.y),
                    ts_w_select(apart, ts_w_mul(q->d.z, inv), start.z)};
}

TS_FORCE_INLINE void solve_distance(ts_xpbd_joint_bundle *b, pair_lanes *p, ts_wv3 *force)
{
    joint_pose q = pose_of(b, p);
    ts_wf length;
    ts_wv3 n = distance_direction(b, &q, &length);
    ts_wf lambda = solve_axial(b, length, sliding_k(p, n, q.ra, q.rb));
    ts_wv3 impulse = ts_wv3_scale(lambda, n);
    push_pair(p, impulse, q.ra, q.rb);
    *force = ts_wv3_add(*force, impulse);
}

void TS_WIDE(ts_xpbd_joint_solve_positions)(const ts_xpbd_joint_context *c, ts_xpbd_joint_bundle *b)
{
    pair_lanes p = TS_PAIR_LOAD(c->states, b);
    ts_wv3 force = zero3(), torque = zero3();
    switch (b->type) {
    case TS_JOINT_BALL: solve_point(b, &p, &force); break;
    case TS_JOINT_HINGE: solve_hinge(b, &p, &force, &torque); break;
    case TS_JOINT_FIXED: solve_fixed(b, &p, &force, &torque); break;
    case TS_JOINT_PRISMATIC: solve_prismatic(b, &p, &force, &torque); break;
    case TS_JOINT_DISTANCE: solve_distance(b, &p, &force); break;
    default: break;
    }
    ts_wv3_store(b->position_force, force);
    ts_wv3_store(b->position_torque, torque);
    scatter_position(c->states, b->body_a, b->inv_mass_a, p.a);
    scatter_position(c->states, b->body_b, b->inv_mass_b, p.b);
}

/* ---- velocity pass ---- */

/* Damper, then motor, on a row of relative velocity vr and inverse mass k;
 * returns the impulse along the row. */
TS_FORCE_INLINE ts_wf drive_row(ts_xpbd_joint_bundle *b, ts_wf vr, ts_wf k)
{
    ts_wf m = inverse_or_zero(k);
    ts_wf damper = ts_w_neg(ts_w_mul(ts_w_mul(m, vr), ts_w_load(b->spring_damping)));
    vr = ts_w_add(vr, ts_w_mul(damper, k));
    ts_wf limit = ts_w_load(b->max_motor_impulse);
    ts_wf motor = ts_w_mul(m, ts_w_sub(ts_w_load(b->motor_speed), vr));
    motor = ts_w_max(ts_w_min(motor, limit), ts_w_neg(limit));
    ts_wf total = ts_w_add(damper, motor);
    ts_w_store(b->axial_lambda[3], total);
    return total;
}

/* Whether any lane has a motor or a damped spring. */
static bool any_drive(const ts_xpbd_joint_bundle *b)
{
    for (int l = 0; l < TS_W; ++l) {
        if (b->max_motor_impulse[l] > 0.0f || b->spring_damping[l] > 0.0f) {
            return true;
        }
    }
    return false;
}

void TS_WIDE(ts_xpbd_joint_solve_velocities)(const ts_xpbd_joint_context *c, ts_xpbd_joint_bundle *b)
{
    if (b->type == TS_JOINT_BALL || b->type == TS_JOINT_FIXED || !any_drive(b)) {
        return;
    }
    pair_lanes p = TS_PAIR_LOAD(c->states, b);
    switch (b->type) {
    case TS_JOINT_HINGE: {
        ts_wv3 axis = ts_wquat_rotate(p.a.dq, ts_wv3_load(b->axis));
        ts_wf j = drive_row(b, ts_wv3_dot(axis, ts_wv3_sub(p.b.w, p.a.w)), hinge_k(&p, axis)); /* the point free */
        ts_wv3 angular = ts_wv3_scale(j, axis);
        ts_pair_apply_angular(&p, angular);
        ts_wv3_store(b->velocity_torque, angular);
        break;
    }
    case TS_JOINT_PRISMATIC: {
        joint_pose q = pose_of(b, &p);
        ts_wv3 axis = ts_wquat_rotate(p.a.dq, ts_wv3_load(b->axis));
        ts_wv3 ua = ts_wv3_add(q.ra, q.d);
        ts_wf vr = ts_wv3_dot(axis, ts_pair_relative_velocity(&p, ua, q.rb));
        ts_wv3 impulse = ts_wv3_scale(drive_row(b, vr, sliding_k(&p, axis, ua, q.rb)), axis);
        ts_pair_apply_impulse(&p, impulse, ua, q.rb);
        ts_wv3_store(b->velocity_force, impulse);
        break;
    }
    case TS_JOINT_DISTANCE: {
        joint_pose q = pose_of(b, &p);
        ts_wf length;
        ts_wv3 n = distance_direction(b, &q, &length);
        ts_wf vr = ts_wv3_dot(n, ts_pair_relative_velocity(&p, q.ra, q.rb));
        ts_wv3 impulse = ts_wv3_scale(drive_row(b, vr, sliding_k(&p, n, q.ra, q.rb)), n);
        ts_pair_apply_impulse(&p, impulse, q.ra, q.rb);
        ts_wv3_store(b->velocity_force, impulse);
        break;
    }
    default: break;
    }
    TS_PAIR_STORE(c->states, b, &p);
}
