/* Width-generic XPBD contact kernels (see xpbd_contact.h), written against
 * the lane vocabulary of wide.h.
 *
 * Position constraint of a point (normal n, anchors rA, rB fixed at the
 * step's start):
 *     C = s + allowed,   s = s0 + n . ((dpB + dqB rB) - (dpA + dqA rA)) - n . (rB - rA)
 * with the bodies' deltas dp, dq since the step's start (Catto's fix for
 * far-from-origin precision: nothing here sees a world position), and
 * allowed = max(0, -s_start - push_speed t) the overlap the step started
 * with, less what may be pushed out by the end of this substep (time t since
 * the step's start): old overlap leaves at push_speed at most, new overlap
 * (from this substep's motion) is removed at once. Per sweep:
 *     Δλ = -(C + α̃ λ) / (w + α̃),  λ + Δλ >= 0,
 *     w = wA + wB,  wi = 1/mi + (ri x n) . Ii^-1 (ri x n)
 * (λ starts at 0 each substep: no warm starting), and the change of
 * the correction P = Δλ n moves the bodies by
 *     ΔpB = P / mB,  θB = IB^-1 (rB x P)   (A: the opposite)
 * where θ is a small rotation, applied as dq += 1/2 (θ, 0) dq. The generalized
 * inverse masses use the world inertia and anchors at the step's start
 * (prepared once: normal_mass = 1 / w). Within one manifold the corrections
 * of earlier points are tracked linearly (s changes by n . (Δp + θ x r)), so
 * the manifold's four points are solved in sequence and its bodies are
 * written once.
 *
 * Static friction (at the manifold centre, both tangents at once, like the
 * soft step): D = tangential offset of B's centre point from A's; its drift
 * from the slip origin is removed with the 2x2 tangent mass,
 *     λt = -K^-1 (D - origin),
 * only while |λt| <= μ max(Σ λn, load), load = the last substep's normal
 * impulse times h; else the lane slides, and its origin follows it at the
 * end of the substep, and dynamic friction acts in the velocity pass. The
 * origin is kept across steps (as its offset from D, contact store columns
 * slip1, slip2).
 *
 * The normal rows of a manifold are swept c->point_sweeps times, λ
 * accumulated per point within the substep.
 *
 * Velocity pass (after v, w were derived from the pose change): a point that
 * pushed (λn > 0) gets vn' = target, target = -e ṽn when it approached faster
 * than the threshold (ṽn: its normal velocity before the position pass) and
 * 0 otherwise, through an impulse whose sum with the position pass's λn / h
 * stays >= 0 (so it may take back the separating speed the push-out made,
 * no more). Dynamic friction: the impulse that stops the tangential slip,
 * -K^-1 vt, clamped to μ times the normal impulse (the larger of this
 * substep's and the last substep's load; an impulse
 * limited by an impulse: the paper's Δv = min(h μ fn, |vt|) compares a
 * speed with an impulse; this is the version with consistent units). */
#include "solver/xpbd_contact.h"

#include "solver/contact_prepare.h"

#include "solver/xpbd_lanes.h"

#include "base/core.h"

/* Position corrections gathered over one kernel call: linear moves and
 * small rotations (records), applied to dp, dq at the end. */
typedef struct corrections {
    ts_wv3 move_a, turn_a, move_b, turn_b;
} corrections;

/* The correction P at anchors rA, rB: A gets -P, B gets +P. */
TS_FORCE_INLINE void correct(corrections *k, const pair_lanes *p, ts_wv3 impulse, ts_wv3 ra, ts_wv3 rb)
{
    k->move_a = ts_wv3_mul_sub(k->move_a, p->inv_mass_a, impulse);
    k->turn_a = ts_wv3_sub(k->turn_a, ts_wsym3_mul(p->inv_inertia_a, ts_wv3_cross(ra, impulse)));
    k->move_b = ts_wv3_mul_add(k->move_b, p->inv_mass_b, impulse);
    k->turn_b = ts_wv3_add(k->turn_b, ts_wsym3_mul(p->inv_inertia_b, ts_wv3_cross(rb, impulse)));
}

/* How far the corrections so far moved B's anchor relative to A's. */
TS_FORCE_INLINE ts_wv3 corrected_offset(const corrections *k, ts_wv3 ra, ts_wv3 rb)
{
    ts_wv3 b = ts_wv3_add(k->move_b, ts_wv3_cross(k->turn_b, rb));
    ts_wv3 a = ts_wv3_add(k->move_a, ts_wv3_cross(k->turn_a, ra));
    return ts_wv3_sub(b, a);
}

/* B's centre point relative to A's, less the constant offset of the bodies'
 * start positions: dpB + dqB cB - dpA - dqA cA (small numbers only). */
TS_FORCE_INLINE ts_wv3 centre_offset(const pair_lanes *p, ts_wv3 ca, ts_wv3 cb)
{
    ts_wv3 b = ts_wv3_add(p->b.dp, ts_wquat_rotate(p->b.dq, cb));
    ts_wv3 a = ts_wv3_add(p->a.dp, ts_wquat_rotate(p->a.dq, ca));
    return ts_wv3_sub(b, a);
}

/* 2x2 symmetric (xx, xy, yy) times (x, y) */
TS_FORCE_INLINE void mul2(const ts_contact_bundle *b, ts_wf x, ts_wf y, ts_wf *rx, ts_wf *ry)
{
    ts_wf mxx = ts_w_load(b->tangent_mass[0]);
    ts_wf mxy = ts_w_load(b->tangent_mass[1]);
    ts_wf myy = ts_w_load(b->tangent_mass[2]);
    *rx = ts_w_add(ts_w_mul(mxx, x), ts_w_mul(mxy, y));
    *ry = ts_w_add(ts_w_mul(mxy, x), ts_w_mul(myy, y));
}

bool TS_WIDE(ts_xpbd_contact_begin)(const ts_xpbd_context *c, const ts_records *records, const ts_contact_bundle *b,
                                    ts_xpbd_contact_lanes *x)
{
    const ts_contact_store *s = &records->contact_store;
    for (int l = 0; l < TS_W; ++l) {
        int32_t i = b->contact_slot[l];
        x->slip[0][l] = i >= 0 ? s->slip1[i] : 0.0f;
        x->slip[1][l] = i >= 0 ? s->slip2[i] : 0.0f;
    }
    ts_wv3 n = ts_wv3_load(b->normal);
    ts_wv3 shift = ts_wv3_load(b->anchor_shift);
    ts_wf zero = ts_w_zero();
    ts_wf load = zero;
    ts_wm deep = ts_w_gt(zero, ts_w_splat(1.0f)); /* none */
    ts_wf start_shift = ts_wv3_dot(shift, n);
    for (int k = 0; k < 4; ++k) {
        const ts_contact_point_lanes *cp = b->points + k;
        ts_wf start = ts_w_add(ts_w_load(cp->base_separation), start_shift);
        ts_w_store(x->start_separation[k], start);
        deep = ts_w_or(deep, ts_w_and(ts_w_gt(ts_w_splat(-TS_CONTACT_PUSH_DEPTH), start),
                                      ts_w_gt(ts_w_load(cp->normal_mass), zero)));
        ts_w_store(x->lambda[k], zero);
        ts_w_store(x->approach[k], zero);
        load = ts_w_add(load, ts_w_load(cp->normal_impulse)); /* the last step's, or 0 without warm starting */
    }
    ts_w_store(x->load, ts_w_mul(load, ts_w_splat(c->h)));
    /* the origin kept from the last step (x->slip, gathered), from the centre
     * offset at the start (dp = 0, dq = 1) */
    ts_wv3 t1 = ts_wv3_load(b->tangent1);
    ts_w_store(x->slip_origin[0], ts_w_add(ts_wv3_dot(shift, t1), ts_w_load(x->slip[0])));
    ts_w_store(x->slip_origin[1], ts_w_add(ts_wv3_dot(shift, ts_contact_tangent2(n, t1)), ts_w_load(x->slip[1])));
    ts_w_store(x->held, zero);
    ts_w_store(x->static_lambda[0], zero);
    ts_w_store(x->static_lambda[1], zero);
    ts_w_store(x->deep, ts_w_select(deep, ts_w_splat(1.0f), zero));
    x->any_deep = ts_w_mask_bits(deep) != 0;
    return x->any_deep != 0;
}

/* Static friction at the centre while the cone allows it (header comment). */
TS_FORCE_INLINE void solve_static_friction(const ts_xpbd_context *c, const ts_contact_bundle *b,
                                           ts_xpbd_contact_lanes *x, const pair_lanes *p, corrections *k,
                                           ts_wf total_lambda)
{
    ts_wv3 t1 = ts_wv3_load(b->tangent1);
    ts_wv3 t2 = ts_contact_tangent2(ts_wv3_load(b->normal), t1);
    ts_wv3 ca = ts_wv3_load(b->center_a);
    ts_wv3 cb = ts_contact_anchor_b(ca, ts_wv3_load(b->anchor_shift));
    ts_wv3 d = ts_wv3_add(centre_offset(p, ca, cb), corrected_offset(k, ca, cb));
    ts_wf d1 = ts_w_sub(ts_wv3_dot(d, t1), ts_w_load(x->slip_origin[0]));
    ts_wf d2 = ts_w_sub(ts_wv3_dot(d, t2), ts_w_load(x->slip_origin[1]));
    ts_wf l1, l2;
    mul2(b, d1, d2, &l1, &l2);
    l1 = ts_w_neg(l1);
    l2 = ts_w_neg(l2);
    ts_wf limit = ts_w_mul(ts_w_load(b->friction), ts_w_max(total_lambda, ts_w_load(x->load)));
    ts_wf zero = ts_w_zero();
    /* |λt| <= μ Σλn, squared; no normal push, no hold */
    ts_wm inside = ts_w_gt(ts_w_mul(limit, limit), ts_w_add(ts_w_mul(l1, l1), ts_w_mul(l2, l2)));
    ts_wm pushing = ts_w_gt(limit, zero);
    ts_wm held = ts_w_and(pushing, inside);
    l1 = ts_w_select(held, l1, zero);
    l2 = ts_w_select(held, l2, zero);
    ts_w_store(x->static_lambda[0], l1);
    ts_w_store(x->static_lambda[1], l2);
    /* the origin stays unless the cone gave way (a lane that pushed nothing
     * this substep keeps it: it will touch again where it was) */
    ts_wm slid = ts_w_and(pushing, ts_w_gt(ts_w_splat(0.5f), ts_w_select(inside, ts_w_splat(1.0f), zero)));
    ts_w_store(x->held, ts_w_select(slid, zero, ts_w_splat(1.0f)));
    correct(k, p, ts_wv3_add(ts_wv3_scale(l1, t1), ts_wv3_scale(l2, t2)), ca, cb);
    (void)c;
}

/* In a step with deep overlap (xpbd_push.c), the part of the overlap a
 * point had at the substep's start that the position pass may remove this
 * substep, in push_steps: little, since what the position pass removes
 * becomes velocity and adds up along a column. Not 0: with nothing
 * removed, the sinking that one Gauss-Seidel sweep leaves behind each
 * substep is kept, and loaded contacts sink. Measured at 4 substeps (two
 * push passes), (shallow, deep): fastest box of the 25%-overlapped pyramid
 * at 4 / 8 substeps, and pile's mean speed after 10 s (its check: < 0.1 m/s):
 *   (1, 0)       5.6 / 9.9 m/s
 *   (0.25, 0.05) 1.7 / 2.3 m/s, pile 0.164 m/s, its lowest box 9 cm into the ground
 *   (0.25, 0.1)  1.9 / 2.7 m/s, pile 0.107 m/s
 *   (0.25, 0.15) 2.3 / 3.1 m/s, pile 0.079 m/s (it FAILed before the push pass: a body left the bin)
 *   (0.25, 0.25) 3.8 / 4.7 m/s, pile 0.061 m/s
 * (0.1, 0.1) leaves the pyramid 2 cm deep after 1 s; holding only contacts
 * that started the step deep (not those the pushes drove deeper) sends its
 * boxes off at 10 m/s at 8 substeps. */
#define TS_XPBD_SHALLOW_SHRINK 0.25f /* overlap up to TS_CONTACT_PUSH_DEPTH */
#define TS_XPBD_DEEP_SHRINK 0.15f    /* deeper overlap (the push pass moves the rest) */

/* The overlap each point's position constraint leaves in place this
 * substep (header comment): the step's start overlap, up to the push depth,
 * less what may have been pushed out by now. In a step with deep overlap
 * (c->substep_start set), also the overlap the point had at the substep's
 * start less a small part (above), so that the position pass does not push
 * deep overlap out (the push pass moves it by positions); and the slip
 * origin is taken again from the substep's start (plus the slip kept at the
 * last velocity pass): static friction holds the contact where the push
 * pass left it rather than pulling the push back. Outside such steps this
 * is the same arithmetic as before the push pass existed (min with the push
 * depth changes nothing there). */
TS_FORCE_INLINE void tolerated_overlap(const ts_xpbd_context *c, const ts_contact_bundle *b, ts_xpbd_contact_lanes *x,
                                       const pair_lanes *p, ts_wv3 n, ts_wf pushed, ts_wf allowed[4])
{
    ts_wf zero = ts_w_zero();
    ts_wf depth = ts_w_splat(TS_CONTACT_PUSH_DEPTH);
    for (int j = 0; j < 4; ++j) {
        ts_wf start = ts_w_min(ts_w_neg(ts_w_load(x->start_separation[j])), depth);
        allowed[j] = ts_w_max(ts_w_sub(start, pushed), zero);
    }
    if (c->substep_start == NULL) {
        return;
    }
    pair_lanes start_pair = {gather(c->substep_start, b->body_a), gather(c->substep_start, b->body_b),
                             p->inv_mass_a, p->inv_mass_b, p->inv_inertia_a, p->inv_inertia_b};
    separation_frame start_frame = separation_frame_of(&start_pair, n);
    ts_wf shrink = ts_w_splat(c->push_step * TS_XPBD_SHALLOW_SHRINK);
    ts_wf deep_shrink = ts_w_splat(c->push_step * TS_XPBD_DEEP_SHRINK);
    ts_wv3 shift = ts_wv3_load(b->anchor_shift);
    for (int j = 0; j < 4; ++j) {
        const ts_contact_point_lanes *cp = b->points + j;
        ts_wv3 ra = ts_wv3_load(cp->anchor_a);
        ts_wv3 rb = ts_contact_anchor_b(ra, shift);
        ts_wf moved = ts_w_sub(ts_wv3_dot(start_frame.normal_b, rb), ts_wv3_dot(start_frame.normal_a, ra));
        ts_wf overlap = ts_w_neg(ts_w_add(ts_w_add(start_frame.normal_dp, moved), ts_w_load(cp->base_separation)));
        ts_wf kept = ts_w_sub(overlap, ts_w_select(ts_w_gt(overlap, depth), deep_shrink, shrink));
        allowed[j] = ts_w_max(allowed[j], kept);
    }
    ts_wv3 ca = ts_wv3_load(b->center_a);
    ts_wv3 d = centre_offset(&start_pair, ca, ts_contact_anchor_b(ca, shift));
    ts_wv3 t1 = ts_wv3_load(b->tangent1);
    ts_w_store(x->slip_origin[0], ts_w_add(ts_wv3_dot(d, t1), ts_w_load(x->slip[0])));
    ts_w_store(x->slip_origin[1], ts_w_add(ts_wv3_dot(d, ts_contact_tangent2(n, t1)), ts_w_load(x->slip[1])));
}

void TS_WIDE(ts_xpbd_contact_solve_positions)(const ts_xpbd_context *c, const ts_contact_bundle *b,
                                              ts_xpbd_contact_lanes *x, int substep)
{
    pair_lanes p = TS_PAIR_LOAD(c->states, b);
    ts_wv3 n = ts_wv3_load(b->normal);
    separation_frame frame = separation_frame_of(&p, n);
    ts_wf zero = ts_w_zero();
    corrections k = {{zero, zero, zero}, {zero, zero, zero}, {zero, zero, zero}, {zero, zero, zero}};
    ts_wf pushed = ts_w_splat(c->push_speed * (c->h * (float)(substep + 1)));
    ts_wf allowed[4];
    tolerated_overlap(c, b, x, &p, n, pushed, allowed);
    ts_wm stiff = ts_w_or(ts_w_gt(ts_w_splat(1e-30f), p.inv_mass_a), ts_w_gt(ts_w_splat(1e-30f), p.inv_mass_b));
    ts_wf compliance = ts_w_select(stiff, ts_w_splat(c->static_compliance), ts_w_splat(c->compliance));
    ts_wf one = ts_w_splat(1.0f);
    ts_wf total_lambda = zero;
    ts_wv3 shift = ts_wv3_load(b->anchor_shift);
    /* the normal velocities before any correction, for restitution */
    for (int j = 0; j < 4; ++j) {
        const ts_contact_point_lanes *cp = b->points + j;
        ts_wv3 ra = ts_wv3_load(cp->anchor_a);
        ts_wv3 dv = ts_pair_relative_velocity(&p, ra, ts_contact_anchor_b(ra, shift));
        ts_w_store(x->approach[j], ts_wv3_dot(dv, n));
        ts_w_store(x->lambda[j], zero);
    }
    for (int sweep = 0; sweep < c->point_sweeps; ++sweep) {
        for (int j = 0; j < 4; ++j) {
            const ts_contact_point_lanes *cp = b->points + j;
            ts_wv3 ra = ts_wv3_load(cp->anchor_a);
            ts_wv3 rb = ts_contact_anchor_b(ra, shift);
            ts_wf moved = ts_w_sub(ts_wv3_dot(frame.normal_b, rb), ts_wv3_dot(frame.normal_a, ra));
            ts_wf s = ts_w_add(ts_w_add(frame.normal_dp, moved), ts_w_load(cp->base_separation));
            s = ts_w_add(s, ts_wv3_dot(corrected_offset(&k, ra, rb), n));
            ts_wf constraint = ts_w_add(s, allowed[j]);
            /* Δλ = -(C + α̃ λ) / (w + α̃) = -m (C + α̃ λ) / (1 + m α̃),
             * m = 1 / w (0 for unused points); λ + Δλ >= 0 */
            ts_wf mass = ts_w_load(cp->normal_mass);
            ts_wf old = ts_w_load(x->lambda[j]);
            ts_wf delta = ts_w_div(ts_w_neg(ts_w_mul(mass, ts_w_add(constraint, ts_w_mul(compliance, old)))),
                                   ts_w_add(one, ts_w_mul(mass, compliance)));
            ts_wf lambda = ts_w_max(ts_w_add(old, delta), zero);
            ts_w_store(x->lambda[j], lambda);
            correct(&k, &p, ts_wv3_scale(ts_w_sub(lambda, old), n), ra, rb);
        }
    }
    for (int j = 0; j < 4; ++j) {
        total_lambda = ts_w_add(total_lambda, ts_w_load(x->lambda[j]));
    }
    solve_static_friction(c, b, x, &p, &k, total_lambda);
    p.a.dp = ts_wv3_add(p.a.dp, k.move_a);
    p.a.dq = ts_xpbd_turn_by(p.a.dq, k.turn_a);
    p.b.dp = ts_wv3_add(p.b.dp, k.move_b);
    p.b.dq = ts_xpbd_turn_by(p.b.dq, k.turn_b);
    scatter_position(c->states, b->body_a, b->inv_mass_a, p.a);
    scatter_position(c->states, b->body_b, b->inv_mass_b, p.b);
}

/* Dynamic friction and twist, limited by the substep's normal impulse. */
TS_FORCE_INLINE void solve_dynamic_friction(const ts_xpbd_context *c, ts_contact_bundle *b,
                                            const ts_xpbd_contact_lanes *x, pair_lanes *p, ts_wf total_normal,
                                            ts_wf twist_limit)
{
    ts_wv3 n = ts_wv3_load(b->normal);
    ts_wv3 t1 = ts_wv3_load(b->tangent1);
    ts_wv3 t2 = ts_contact_tangent2(n, t1);
    ts_wv3 ca = ts_wv3_load(b->center_a);
    ts_wv3 cb = ts_contact_anchor_b(ca, ts_wv3_load(b->anchor_shift));
    ts_wv3 dv = ts_pair_relative_velocity(p, ca, cb);
    ts_wf i1, i2;
    mul2(b, ts_wv3_dot(dv, t1), ts_wv3_dot(dv, t2), &i1, &i2);
    i1 = ts_w_neg(i1);
    i2 = ts_w_neg(i2);
    ts_wf friction = ts_w_load(b->friction);
    ts_wf limit = ts_w_mul(friction, ts_w_max(total_normal, ts_w_mul(ts_w_load(x->load), ts_w_splat(c->inv_h))));
    ts_wf length = ts_w_sqrt(ts_w_add(ts_w_mul(i1, i1), ts_w_mul(i2, i2)));
    ts_wf scale = ts_w_select(ts_w_gt(length, limit), ts_w_div(limit, length), ts_w_splat(1.0f));
    i1 = ts_w_mul(i1, scale);
    i2 = ts_w_mul(i2, scale);
    ts_pair_apply_impulse(p, ts_wv3_add(ts_wv3_scale(i1, t1), ts_wv3_scale(i2, t2)), ca, cb);
    ts_wf inv_h = ts_w_splat(c->inv_h);
    ts_w_store(b->friction_impulse[0], ts_w_add(i1, ts_w_mul(ts_w_load(x->static_lambda[0]), inv_h)));
    ts_w_store(b->friction_impulse[1], ts_w_add(i2, ts_w_mul(ts_w_load(x->static_lambda[1]), inv_h)));

    ts_wf spin = ts_wv3_dot(ts_wv3_sub(p->b.w, p->a.w), n);
    ts_wf max_twist = ts_w_mul(friction, twist_limit);
    ts_wf twist = ts_w_neg(ts_w_mul(ts_w_load(b->twist_mass), spin));
    twist = ts_w_max(ts_w_min(twist, max_twist), ts_w_neg(max_twist));
    ts_w_store(b->twist_impulse, twist);
    ts_pair_apply_angular(p, ts_wv3_scale(twist, n));
}

void TS_WIDE(ts_xpbd_contact_solve_velocities)(const ts_xpbd_context *c, ts_contact_bundle *b,
                                               ts_xpbd_contact_lanes *x)
{
    pair_lanes p = TS_PAIR_LOAD(c->states, b);
    ts_wv3 n = ts_wv3_load(b->normal);
    ts_wf e = ts_w_load(b->restitution);
    ts_wf zero = ts_w_zero();
    ts_wf inv_h = ts_w_splat(c->inv_h);
    ts_wf threshold = ts_w_splat(-c->restitution_threshold);
    ts_wf total_normal = zero;
    ts_wf twist_limit = zero;
    ts_wv3 shift = ts_wv3_load(b->anchor_shift);
    for (int j = 0; j < 4; ++j) {
        ts_contact_point_lanes *cp = b->points + j;
        ts_wf lambda = ts_w_load(x->lambda[j]);
        ts_wm pushed = ts_w_gt(lambda, zero);
        ts_wv3 ra = ts_wv3_load(cp->anchor_a);
        ts_wv3 rb = ts_contact_anchor_b(ra, shift);
        ts_wf vn = ts_wv3_dot(ts_pair_relative_velocity(&p, ra, rb), n);
        ts_wf approach = ts_w_load(x->approach[j]);
        ts_wm bounce = ts_w_and(ts_w_gt(threshold, approach), ts_w_gt(e, zero));
        ts_wf target = ts_w_select(bounce, ts_w_neg(ts_w_mul(e, approach)), zero);
        ts_wf position_impulse = ts_w_mul(lambda, inv_h);
        ts_wf delta = ts_w_neg(ts_w_mul(ts_w_load(cp->normal_mass), ts_w_sub(vn, target)));
        ts_wf total = ts_w_max(ts_w_add(position_impulse, delta), zero);
        total = ts_w_select(pushed, total, zero);
        delta = ts_w_select(pushed, ts_w_sub(total, position_impulse), zero);
        ts_pair_apply_impulse(&p, ts_wv3_scale(delta, n), ra, rb);
        ts_w_store(cp->normal_impulse, total);
        total_normal = ts_w_add(total_normal, total);
        twist_limit = ts_w_add(twist_limit, ts_w_mul(total, ts_w_load(cp->lever_arm)));
    }
    solve_dynamic_friction(c, b, x, &p, total_normal, twist_limit);
    ts_w_store(x->load, ts_w_mul(total_normal, ts_w_splat(c->h)));
    /* a lane that slid carries its slip origin along to where it is now */
    ts_wm held = ts_w_gt(ts_w_load(x->held), zero);
    ts_wv3 ca = ts_wv3_load(b->center_a);
    ts_wv3 d = centre_offset(&p, ca, ts_contact_anchor_b(ca, shift));
    ts_wv3 t1 = ts_wv3_load(b->tangent1);
    ts_wf d1 = ts_wv3_dot(d, t1);
    ts_wf d2 = ts_wv3_dot(d, ts_contact_tangent2(n, t1));
    ts_wf origin1 = ts_w_select(held, ts_w_load(x->slip_origin[0]), d1);
    ts_wf origin2 = ts_w_select(held, ts_w_load(x->slip_origin[1]), d2);
    ts_w_store(x->slip_origin[0], origin1);
    ts_w_store(x->slip_origin[1], origin2);
    ts_w_store(x->slip[0], ts_w_sub(origin1, d1));
    ts_w_store(x->slip[1], ts_w_sub(origin2, d2));
    scatter(c->states, b->body_a, b->inv_mass_a, p.a);
    scatter(c->states, b->body_b, b->inv_mass_b, p.b);
}

void TS_WIDE(ts_xpbd_contact_store)(ts_records *records, const ts_contact_bundle *b, const ts_xpbd_contact_lanes *x)
{
    TS_WIDE(ts_contact_store_impulses)(records, b);
    ts_contact_store *s = &records->contact_store;
    for (int l = 0; l < TS_W; ++l) {
        int32_t i = b->contact_slot[l];
        if (i >= 0) {
            s->slip1[i] = x->slip[0][l];
            s->slip2[i] = x->slip[1][l];
        }
    }
}
