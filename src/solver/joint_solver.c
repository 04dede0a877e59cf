/* Width-generic soft-step joint kernels (see joint_solver.h), written against
 * the lane vocabulary of wide.h.
 *
 * Every joint is built from three kinds of rows, each a soft constraint
 * like a contact (contact_solver.c): for a position error C and its rate
 * Cdot = J v, one update is
 *     dλ = -M (mass_scale (Cdot + bias_rate C)) - impulse_scale λ
 * with the world's joint softness in the solve pass and none in the relax
 * pass (mass_scale 1, impulse_scale 0, no bias).
 *
 * - Point (ball, hinge, fixed): C = (cB + rB) - (cA + rA), the gap between
 *   the frame origins, Cdot = vB + wB x rB - vA - wA x rA, 3x3 M = K^-1 with
 *   K = (mA + mB) 1 - [rA]x IA^-1 [rA]x - [rB]x IB^-1 [rB]x (at the step's
 *   start; the anchors r rotate with the bodies).
 * - Rotation. Fixed and prismatic lock all three: with q = dq Q the frames'
 *   world rotations, the relative rotation dqB (QB QA^-1) dqA^-1 is
 *   (sin(θ/2) u, cos(θ/2)) for a turn θ about u, so C = 2 sin(θ/2) u ≈ θ u
 *   and Cdot = wB - wA, M = (IA^-1 + IB^-1)^-1. The hinge locks the two
 *   directions across its axis: C = a_A x a_B (a = the frames' z axes, ≈ the
 *   small turn that lines them up) seen along two fixed perpendiculars t1,
 *   t2, Cdot_i = t_i . (wB - wA), 2x2 M.
 * - The free coordinate x (hinge angle, prismatic translation a . d with the
 *   axis a turning with A, distance |d|): one row with Jacobian
 *   Cdot = n . (vB - vA) + jB . wB - jA . wA, carrying
 *     spring: C = x - target with the spring's own softness, in both passes;
 *     motor: Cdot = speed, the impulse clamped to max force * h;
 *     limits: C = x - lower >= 0 and upper - x >= 0, impulses >= 0; a limit
 *     not yet reached is speculative (bias C / h, rigid), so the coordinate
 *     can reach the bound in this substep but not pass it (Box2D v3's rule).
 *   The hinge's row is pure rotation (n = 0, jA = jB = a); a sliding row
 *   whose axis turns with A has the arm uA = rA + d on A: d/dt (a . d) =
 *   a . (vB + wB x rB - vA - wA x (rA + d)).
 *
 * The hinge angle is 2 atan2(z, w) of the frames' relative rotation (w >= 0,
 * so it lies in (-pi, pi]); atan2 is a polynomial (no libm inside a step). */
#include "solver/joint_solver.h"

#include "solver/ball_joint.h"

#include "base/core.h"
#include "solver/custom_constraint.h"
#include "solver/pair_lanes.h"
#include "solver/point_mass.h"
#include "solver/wide_atan2.h"

#include "tessera/joint.h"

/* ---- the two bodies of a bundle ---- */

/* Where the frames are now: anchors turned with the bodies, and the gap d
 * from frame A's origin to frame B's. */
typedef struct joint_pose {
    ts_wv3 ra, rb, d;
} joint_pose;

TS_FORCE_INLINE joint_pose pose_of(const ts_joint_bundle *b, const pair_lanes *p)
{
    joint_pose q;
    q.ra = ts_wquat_rotate(p->a.dq, ts_wv3_load(b->anchor_a));
    q.rb = ts_wquat_rotate(p->b.dq, ts_wv3_load(b->anchor_b));
    q.d = ts_wv3_add(ts_wv3_add(ts_wv3_sub(p->b.dp, p->a.dp), ts_wv3_sub(q.rb, q.ra)), ts_wv3_load(b->delta_center));
    return q;
}

/* The soft coefficients of a pass. */
typedef struct soft_lanes {
    ts_wf bias_rate, mass_scale, impulse_scale;
} soft_lanes;

TS_FORCE_INLINE soft_lanes soft_of(const ts_joint_solver_context *c, bool use_bias)
{
    if (use_bias) {
        return (soft_lanes){ts_w_splat(c->bias_rate), ts_w_splat(c->mass_scale), ts_w_splat(c->impulse_scale)};
    }
    return (soft_lanes){ts_w_zero(), ts_w_splat(1.0f), ts_w_zero()};
}

/* ---- point ---- */

/* K^-1 of the point constraint at the anchors of this substep, computed in
 * the warm start and kept for its solve and relax passes: light bodies on a
 * heavy one turn far within a step, and a mass from the step's start would
 * then overshoot (a 1000:1 ball and chain blew up with it). */
TS_FORCE_INLINE ts_wsym3 point_mass_now(const pair_lanes *p, const joint_pose *q)
{
    return ts_point_mass(p->inv_mass_a, p->inv_mass_b, p->inv_inertia_a, p->inv_inertia_b, q->ra, q->rb);
}

TS_FORCE_INLINE void solve_point(ts_joint_bundle *b, pair_lanes *p, soft_lanes s, const joint_pose *q)
{
    ts_wv3 cdot = ts_pair_relative_velocity(p, q->ra, q->rb);
    ts_wv3 rhs = ts_wv3_scale(s.mass_scale, ts_wv3_mul_add(cdot, s.bias_rate, q->d));
    ts_wv3 old = ts_wv3_load(b->linear_impulse);
    ts_wsym3 mass = ts_wsym3_load(b->point_mass);
    ts_wv3 delta = ts_wv3_mul_sub(ts_wv3_scale(ts_w_splat(-1.0f), ts_wsym3_mul(mass, rhs)), s.impulse_scale, old);
    ts_wv3_store(b->linear_impulse, ts_wv3_add(old, delta));
    ts_pair_apply_impulse(p, delta, q->ra, q->rb);
}

/* ---- rotation locks ---- */

/* Fixed and prismatic: all three relative rotations. */
TS_FORCE_INLINE void solve_rotation_lock(ts_joint_bundle *b, pair_lanes *p, soft_lanes s)
{
    ts_wquat rel = ts_wquat_mul(ts_wquat_mul(p->b.dq, ts_wquat_load(b->rotation_left)), ts_wquat_conj(p->a.dq));
    ts_wf two = ts_w_select(ts_w_gt(ts_w_zero(), rel.w), ts_w_splat(-2.0f), ts_w_splat(2.0f));
    ts_wv3 error = {ts_w_mul(two, rel.x), ts_w_mul(two, rel.y), ts_w_mul(two, rel.z)};
    ts_wv3 cdot = ts_wv3_sub(p->b.w, p->a.w);
    ts_wv3 rhs = ts_wv3_scale(s.mass_scale, ts_wv3_mul_add(cdot, s.bias_rate, error));
    ts_wv3 old = ts_wv3_load(b->angular_impulse);
    ts_wv3 delta = ts_wv3_mul_sub(ts_wv3_scale(ts_w_splat(-1.0f), ts_wsym3_mul(ts_wsym3_load(b->angular_mass), rhs)),
                                  s.impulse_scale, old);
    ts_wv3_store(b->angular_impulse, ts_wv3_add(old, delta));
    ts_pair_apply_angular(p, delta);
}

/* Hinge: the two turns across the axis. */
TS_FORCE_INLINE void solve_swing(ts_joint_bundle *b, pair_lanes *p, soft_lanes s, ts_wv3 axis_a, ts_wv3 axis_b)
{
    ts_wv3 t1 = ts_wv3_load(b->perp1), t2 = ts_wv3_load(b->perp2);
    ts_wv3 error = ts_wv3_cross(axis_a, axis_b);
    ts_wv3 dw = ts_wv3_sub(p->b.w, p->a.w);
    ts_wf r1 = ts_w_mul(s.mass_scale, ts_w_add(ts_wv3_dot(t1, dw), ts_w_mul(s.bias_rate, ts_wv3_dot(t1, error))));
    ts_wf r2 = ts_w_mul(s.mass_scale, ts_w_add(ts_wv3_dot(t2, dw), ts_w_mul(s.bias_rate, ts_wv3_dot(t2, error))));
    ts_wf mxx = ts_w_load(b->angular_mass[0]), myy = ts_w_load(b->angular_mass[1]), mxy = ts_w_load(b->angular_mass[3]);
    ts_wf old1 = ts_w_load(b->angular_impulse[0]), old2 = ts_w_load(b->angular_impulse[1]);
    ts_wf d1 = ts_w_sub(ts_w_neg(ts_w_add(ts_w_mul(mxx, r1), ts_w_mul(mxy, r2))), ts_w_mul(s.impulse_scale, old1));
    ts_wf d2 = ts_w_sub(ts_w_neg(ts_w_add(ts_w_mul(mxy, r1), ts_w_mul(myy, r2))), ts_w_mul(s.impulse_scale, old2));
    ts_w_store(b->angular_impulse[0], ts_w_add(old1, d1));
    ts_w_store(b->angular_impulse[1], ts_w_add(old2, d2));
    ts_pair_apply_angular(p, ts_wv3_add(ts_wv3_scale(d1, t1), ts_wv3_scale(d2, t2)));
}

/* Prismatic: the two slides across the axis (t1, t2 turn with A). */
TS_FORCE_INLINE void solve_across(ts_joint_bundle *b, pair_lanes *p, soft_lanes s, const joint_pose *q, ts_wv3 t1,
                                  ts_wv3 t2)
{
    ts_wv3 ua = ts_wv3_add(q->ra, q->d);
    ts_wv3 cdot = ts_pair_relative_velocity(p, ua, q->rb);
    ts_wf r1 = ts_w_mul(s.mass_scale, ts_w_add(ts_wv3_dot(t1, cdot), ts_w_mul(s.bias_rate, ts_wv3_dot(t1, q->d))));
    ts_wf r2 = ts_w_mul(s.mass_scale, ts_w_add(ts_wv3_dot(t2, cdot), ts_w_mul(s.bias_rate, ts_wv3_dot(t2, q->d))));
    ts_wf mxx = ts_w_load(b->point_mass[0]), myy = ts_w_load(b->point_mass[1]), mxy = ts_w_load(b->point_mass[3]);
    ts_wf old1 = ts_w_load(b->linear_impulse[0]), old2 = ts_w_load(b->linear_impulse[1]);
    ts_wf d1 = ts_w_sub(ts_w_neg(ts_w_add(ts_w_mul(mxx, r1), ts_w_mul(mxy, r2))), ts_w_mul(s.impulse_scale, old1));
    ts_wf d2 = ts_w_sub(ts_w_neg(ts_w_add(ts_w_mul(mxy, r1), ts_w_mul(myy, r2))), ts_w_mul(s.impulse_scale, old2));
    ts_w_store(b->linear_impulse[0], ts_w_add(old1, d1));
    ts_w_store(b->linear_impulse[1], ts_w_add(old2, d2));
    ts_pair_apply_impulse(p, ts_wv3_add(ts_wv3_scale(d1, t1), ts_wv3_scale(d2, t2)), ua, q->rb);
}

/* ---- the free coordinate ---- */

/* Cdot = n . (vB - vA) + jb . wB - ja . wA. */
typedef struct axial_row {
    ts_wv3 n, ja, jb;
} axial_row;

TS_FORCE_INLINE ts_wf row_velocity(const pair_lanes *p, const axial_row *r)
{
    return ts_w_sub(ts_w_add(ts_wv3_dot(r->n, ts_wv3_sub(p->b.v, p->a.v)), ts_wv3_dot(r->jb, p->b.w)),
                    ts_wv3_dot(r->ja, p->a.w));
}

TS_FORCE_INLINE void row_apply(pair_lanes *p, const axial_row *r, ts_wf impulse)
{
    p->a.v = ts_wv3_mul_sub(p->a.v, ts_w_mul(p->inv_mass_a, impulse), r->n);
    p->a.w = ts_wv3_sub(p->a.w, ts_wsym3_mul(p->inv_inertia_a, ts_wv3_scale(impulse, r->ja)));
    p->b.v = ts_wv3_mul_add(p->b.v, ts_w_mul(p->inv_mass_b, impulse), r->n);
    p->b.w = ts_wv3_add(p->b.w, ts_wsym3_mul(p->inv_inertia_b, ts_wv3_scale(impulse, r->jb)));
}

/* A sliding row along n with arms ua on A and rb on B. */
TS_FORCE_INLINE axial_row sliding_row(ts_wv3 n, ts_wv3 ua, ts_wv3 rb)
{
    return (axial_row){n, ts_wv3_cross(ua, n), ts_wv3_cross(rb, n)};
}

TS_FORCE_INLINE ts_wf axial_total(const ts_joint_bundle *b)
{
    return ts_w_sub(ts_w_add(ts_w_add(ts_w_load(b->spring_impulse), ts_w_load(b->motor_impulse)),
                             ts_w_load(b->lower_impulse)),
                    ts_w_load(b->upper_impulse));
}

/* One limit: C >= 0 with Cdot = sign * row velocity. */
TS_FORCE_INLINE void solve_limit(const ts_joint_solver_context *c, pair_lanes *p, soft_lanes s, const axial_row *r,
                                 ts_wf mass, ts_wf C, float sign, float *impulse)
{
    ts_wm ahead = ts_w_gt(C, ts_w_zero());
    ts_wf bias = ts_w_select(ahead, ts_w_mul(C, ts_w_splat(c->inv_h)), ts_w_mul(s.bias_rate, C));
    ts_wf mass_scale = ts_w_select(ahead, ts_w_splat(1.0f), s.mass_scale);
    ts_wf impulse_scale = ts_w_select(ahead, ts_w_zero(), s.impulse_scale);
    ts_wf cdot = ts_w_mul(ts_w_splat(sign), row_velocity(p, r));
    ts_wf old = ts_w_load(impulse);
    ts_wf delta = ts_w_sub(ts_w_neg(ts_w_mul(ts_w_mul(mass, mass_scale), ts_w_add(cdot, bias))),
                           ts_w_mul(impulse_scale, old));
    ts_wf total = ts_w_max(ts_w_add(old, delta), ts_w_zero());
    ts_w_store(impulse, total);
    row_apply(p, r, ts_w_mul(ts_w_splat(sign), ts_w_sub(total, old)));
}

/* Spring, motor, lower and upper limit of coordinate x (Box2D v3's order:
 * the limits last, so they win). Off parts have zero coefficients. */
TS_FORCE_INLINE void solve_axial(const ts_joint_solver_context *c, ts_joint_bundle *b, pair_lanes *p, soft_lanes s,
                                 const axial_row *r, ts_wf x)
{
    ts_wf mass = ts_w_load(b->axial_mass);
    {
        ts_wf C = ts_w_sub(x, ts_w_load(b->spring_target));
        ts_wf rhs = ts_w_add(row_velocity(p, r), ts_w_mul(ts_w_load(b->spring_bias_rate), C));
        ts_wf old = ts_w_load(b->spring_impulse);
        ts_wf delta = ts_w_sub(ts_w_neg(ts_w_mul(ts_w_mul(mass, ts_w_load(b->spring_mass_scale)), rhs)),
                               ts_w_mul(ts_w_load(b->spring_impulse_scale), old));
        ts_w_store(b->spring_impulse, ts_w_add(old, delta));
        row_apply(p, r, delta);
    }
    {
        ts_wf cdot = ts_w_sub(row_velocity(p, r), ts_w_load(b->motor_speed));
        ts_wf old = ts_w_load(b->motor_impulse);
        ts_wf limit = ts_w_load(b->max_motor_impulse);
        ts_wf total = ts_w_sub(old, ts_w_mul(mass, cdot));
        total = ts_w_max(ts_w_min(total, limit), ts_w_neg(limit));
        ts_w_store(b->motor_impulse, total);
        row_apply(p, r, ts_w_sub(total, old));
    }
    solve_limit(c, p, s, r, mass, ts_w_sub(x, ts_w_load(b->lower)), 1.0f, b->lower_impulse);
    solve_limit(c, p, s, r, mass, ts_w_sub(ts_w_load(b->upper), x), -1.0f, b->upper_impulse);
}

/* ---- per type ---- */

/* Hinge: the axes now, and the angle of frame B about frame A's z. */
typedef struct hinge_pose {
    ts_wv3 axis_a, axis_b;
    ts_wf angle;
} hinge_pose;

TS_FORCE_INLINE hinge_pose hinge_pose_of(const ts_joint_bundle *b, const pair_lanes *p)
{
    hinge_pose h;
    h.axis_a = ts_wquat_rotate(p->a.dq, ts_wv3_load(b->axis));
    h.axis_b = ts_wquat_rotate(p->b.dq, ts_wv3_load(b->axis_b));
    ts_wquat rel = ts_wquat_mul(ts_wquat_mul(ts_wquat_load(b->rotation_left), ts_wquat_mul(ts_wquat_conj(p->a.dq), p->b.dq)),
                             ts_wquat_load(b->rotation_right));
    ts_wm flip = ts_w_gt(ts_w_zero(), rel.w);
    ts_wf z = ts_w_select(flip, ts_w_neg(rel.z), rel.z);
    ts_wf w = ts_w_select(flip, ts_w_neg(rel.w), rel.w);
    h.angle = ts_w_mul(ts_w_splat(2.0f), ts_w_atan2(z, w));
    return h;
}

/* Prismatic: the axis and its perpendiculars turned with A. */
typedef struct slider_axes {
    ts_wv3 a, t1, t2;
} slider_axes;

TS_FORCE_INLINE slider_axes slider_axes_of(const ts_joint_bundle *b, const pair_lanes *p)
{
    return (slider_axes){ts_wquat_rotate(p->a.dq, ts_wv3_load(b->axis)), ts_wquat_rotate(p->a.dq, ts_wv3_load(b->perp1)),
                         ts_wquat_rotate(p->a.dq, ts_wv3_load(b->perp2))};
}

/* Distance: the unit direction from A's frame origin to B's (the step's
 * first direction when they coincide) and the length. */
TS_FORCE_INLINE axial_row distance_row(const ts_joint_bundle *b, const joint_pose *q, ts_wf *length)
{
    *length = ts_w_sqrt(ts_wv3_dot(q->d, q->d));
    ts_wm apart = ts_w_gt(*length, ts_w_splat(1.0e-6f));
    ts_wf inv = ts_w_div(ts_w_splat(1.0f), ts_w_max(*length, ts_w_splat(1.0e-6f)));
    ts_wv3 start = ts_wv3_load(b->axis);
    ts_wv3 n = {ts_w_select(apart, ts_w_mul(q->d.x, inv), start.x), ts_w_select(apart, ts_w_mul(q->d.y, inv), start.y),
                ts_w_select(apart, ts_w_mul(q->d.z, inv), start.z)};
    return sliding_row(n, q->ra, q->rb);
}


/* ---- the kernels of the general layout (every type but the ball) ---- */

static void warm_start_any(const ts_joint_solver_context *c, ts_joint_bundle *b)
{
    pair_lanes p = TS_PAIR_LOAD(c->states, b);
    joint_pose q = pose_of(b, &p);
    if (b->type == TS_JOINT_HINGE || b->type == TS_JOINT_FIXED) {
        ts_wsym3_store(b->point_mass, point_mass_now(&p, &q));
    }
    switch (b->type) {
    case TS_JOINT_HINGE: {
        hinge_pose h = hinge_pose_of(b, &p);
        axial_row r = {{ts_w_zero(), ts_w_zero(), ts_w_zero()}, h.axis_a, h.axis_a};
        row_apply(&p, &r, axial_total(b));
        ts_pair_apply_angular(&p, ts_wv3_add(ts_wv3_scale(ts_w_load(b->angular_impulse[0]), ts_wv3_load(b->perp1)),
                                             ts_wv3_scale(ts_w_load(b->angular_impulse[1]), ts_wv3_load(b->perp2))));
        ts_pair_apply_impulse(&p, ts_wv3_load(b->linear_impulse), q.ra, q.rb);
        break;
    }
    case TS_JOINT_FIXED:
        ts_pair_apply_angular(&p, ts_wv3_load(b->angular_impulse));
        ts_pair_apply_impulse(&p, ts_wv3_load(b->linear_impulse), q.ra, q.rb);
        break;
    case TS_JOINT_PRISMATIC: {
        slider_axes s = slider_axes_of(b, &p);
        ts_wv3 ua = ts_wv3_add(q.ra, q.d);
        axial_row r = sliding_row(s.a, ua, q.rb);
        row_apply(&p, &r, axial_total(b));
        ts_pair_apply_angular(&p, ts_wv3_load(b->angular_impulse));
        ts_pair_apply_impulse(&p, ts_wv3_add(ts_wv3_scale(ts_w_load(b->linear_impulse[0]), s.t1),
                                             ts_wv3_scale(ts_w_load(b->linear_impulse[1]), s.t2)),
                              ua, q.rb);
        break;
    }
    case TS_JOINT_DISTANCE: {
        ts_wf length;
        axial_row r = distance_row(b, &q, &length);
        row_apply(&p, &r, axial_total(b));
        break;
    }
    default: break;
    }
    TS_PAIR_STORE(c->states, b, &p);
}

static void solve_any(const ts_joint_solver_context *c, ts_joint_bundle *b, bool use_bias)
{
    pair_lanes p = TS_PAIR_LOAD(c->states, b);
    joint_pose q = pose_of(b, &p);
    soft_lanes s = soft_of(c, use_bias);
    switch (b->type) {
    case TS_JOINT_HINGE: {
        hinge_pose h = hinge_pose_of(b, &p);
        axial_row r = {{ts_w_zero(), ts_w_zero(), ts_w_zero()}, h.axis_a, h.axis_a};
        solve_axial(c, b, &p, s, &r, h.angle);
        solve_swing(b, &p, s, h.axis_a, h.axis_b);
        solve_point(b, &p, s, &q);
        break;
    }
    case TS_JOINT_FIXED:
        solve_rotation_lock(b, &p, s);
        solve_point(b, &p, s, &q);
        break;
    case TS_JOINT_PRISMATIC: {
        slider_axes a = slider_axes_of(b, &p);
        axial_row r = sliding_row(a.a, ts_wv3_add(q.ra, q.d), q.rb);
        solve_axial(c, b, &p, s, &r, ts_wv3_dot(a.a, q.d));
        solve_rotation_lock(b, &p, s);
        solve_across(b, &p, s, &q, a.t1, a.t2);
        break;
    }
    case TS_JOINT_DISTANCE: {
        ts_wf length;
        axial_row r = distance_row(b, &q, &length);
        solve_axial(c, b, &p, s, &r, length);
        break;
    }
    default: break;
    }
    TS_PAIR_STORE(c->states, b, &p);
}

/* ---- dispatch by layout ---- */

static ts_joint_bundle *general_bundle(const ts_joint_scratch *s, ts_joint_bundle_ref ref)
{
    return (ts_joint_bundle *)s->bundles + ref.slot;
}

/* A bundle of custom constraints: their scalar rows (custom_constraint.h),
 * rigid rows with the pass's softness. */
static void custom_pass(const ts_joint_solver_context *c, ts_joint_bundle_ref ref, ts_joint_pass_kind kind)
{
    bool bias = kind == TS_JOINT_PASS_SOLVE;
    ts_custom_pass pass = {c->states, c->h, c->inv_h, bias ? c->bias_rate : 0.0f, bias ? c->mass_scale : 1.0f,
                           bias ? c->impulse_scale : 0.0f};
    ts_custom_lane *lanes = (ts_custom_lane *)c->scratch->custom_lanes + ref.slot;
    if (kind == TS_JOINT_PASS_WARM_START) {
        ts_custom_warm_start(lanes, ref.lanes, &pass);
    } else {
        ts_custom_solve(lanes, ref.lanes, &pass);
    }
}

void TS_WIDE(ts_joint_warm_start)(const ts_joint_solver_context *c, int32_t k)
{
    ts_joint_bundle_ref ref = c->scratch->refs[k];
    if (ref.type == TS_JOINT_CUSTOM) {
        custom_pass(c, ref, TS_JOINT_PASS_WARM_START);
    } else if (ref.type == TS_JOINT_BALL) {
        TS_WIDE(ts_ball_warm_start)(c, TS_WIDE(ts_ball_bundles)(c->scratch) + ref.slot, 1);
    } else {
        warm_start_any(c, general_bundle(c->scratch, ref));
    }
}

/* Ball bundles come in runs (a colour's joints are sorted by type), each
 * run's slots consecutive: one call per run, whose end the layout keeps. */
void TS_WIDE(ts_joint_pass)(const ts_joint_solver_context *c, int32_t begin, int32_t end, ts_joint_pass_kind kind)
{
    const ts_joint_bundle_ref *refs = c->scratch->refs;
    ts_ball_bundle *balls = TS_WIDE(ts_ball_bundles)(c->scratch);
    for (int32_t k = begin; k < end;) {
        ts_joint_bundle_ref ref = refs[k];
        if (ref.type == TS_JOINT_CUSTOM) {
            custom_pass(c, ref, kind);
            k += 1;
            continue;
        }
        if (ref.type != TS_JOINT_BALL) {
            if (kind == TS_JOINT_PASS_WARM_START) {
                warm_start_any(c, general_bundle(c->scratch, ref));
            } else {
                solve_any(c, general_bundle(c->scratch, ref), kind == TS_JOINT_PASS_SOLVE);
            }
            k += 1;
            continue;
        }
        int32_t run = (ref.run_end < end ? ref.run_end : end) - k;
        ts_ball_bundle *b = balls + ref.slot;
        switch (kind) {
        case TS_JOINT_PASS_WARM_START: TS_WIDE(ts_ball_warm_start)(c, b, run); break;
        case TS_JOINT_PASS_SOLVE: TS_WIDE(ts_ball_solve)(c, b, run); break;
        default: TS_WIDE(ts_ball_relax)(c, b, run); break;
        }
        k += run;
    }
}

void TS_WIDE(ts_joint_solve)(const ts_joint_solver_context *c, int32_t k, bool use_bias)
{
    ts_joint_bundle_ref ref = c->scratch->refs[k];
    if (ref.type == TS_JOINT_CUSTOM) {
        custom_pass(c, ref, use_bias ? TS_JOINT_PASS_SOLVE : TS_JOINT_PASS_RELAX);
    } else if (ref.type != TS_JOINT_BALL) {
        solve_any(c, general_bundle(c->scratch, ref), use_bias);
    } else if (use_bias) {
        TS_WIDE(ts_ball_solve)(c, TS_WIDE(ts_ball_bundles)(c->scratch) + ref.slot, 1);
    } else {
        TS_WIDE(ts_ball_relax)(c, TS_WIDE(ts_ball_bundles)(c->scratch) + ref.slot, 1);
    }
}
