/* XPBD's push pass: overlap deeper than TS_CONTACT_PUSH_DEPTH moved out by
 * positions only, so that it never becomes velocity (compiled once per
 * width, like the other XPBD kernels).
 *
 * Why: XPBD derives velocities from the position change, v = (x - x*) / h,
 * so a position pass that pushes deep overlap out at the push speed gives
 * every contact of a column that relative speed, and the speeds add up
 * along the column: a B = 10 pyramid started 25% overlapped (9 contacts of
 * 0.25 m up a column) sent its top box off at 20-28 m/s, though no contact
 * pushed faster than 3 m/s. The soft step moves such overlap by positions
 * (contact_solver.c, push_out); this is the same idea in XPBD's terms:
 *
 *   position pass  a point keeps the overlap o0 it had at the substep's
 *                  start but for a small part (C = s + o0 - k push_step >= 0,
 *                  k = 0.15 beyond the push depth d, 0.25 within it:
 *                  xpbd_contact.c), so the pass makes little velocity out of
 *                  old overlap yet does not keep the sinking its one
 *                  Gauss-Seidel sweep leaves behind each substep;
 *   push pass      (twice, after the velocity pass, colour by colour) each
 *                  point deeper than d moves its bodies apart along n by
 *                  positions alone,
 *                      P = m_eff min(β (o - d), push_step),  o = -s,
 *                  dp = ±P n / m, dθ = ±I^-1 (r x P n), with β =
 *                  TS_CONTACT_PUSH_FRACTION; the next substep predicts from
 *                  the moved pose, and velocities are derived against that
 *                  prediction, so the move is never counted as motion;
 *   friction       the static-friction origin is taken again from the
 *                  substep's start, so friction does not pull a push back.
 *
 * Only contacts with a point that started the step deeper than d are pushed
 * (a contact the pushes drive past d waits for the next step; the position
 * pass keeps most of its overlap meanwhile). o0 is measured on the states kept at the substep's start
 * (ts_xpbd_context.substep_start), not on the current ones: within a pass,
 * the corrections of earlier colours have moved the bodies already, and
 * that motion must stay the position pass's to answer. Keeping those
 * states costs a copy of each body per substep, so it is done only in steps
 * where some contact starts deeper than d (ts_xpbd_contact_begin reports
 * it); other steps run exactly as before, bit for bit. On the 25%-overlapped
 * pyramid (test_solver) the fastest box now moves at 2.3 m/s at 4 substeps
 * and 3.0 m/s at 8 (19.7 and 27.8 before), the push speed being 3 m/s.
 *
 * Prior art: Box2D v3 (and Box3D) clamp the soft contact's push-out speed
 * (contactSpeed) and drop the bias in the relax pass, so push-out leaves no
 * velocity behind; Müller et al. 2020 derive velocities from positions and
 * have no separate push (deep initial overlap is outside their scope). */
#include "solver/xpbd_contact.h"

#include "solver/pair_lanes.h"

#include "base/core.h"

void TS_WIDE(ts_xpbd_contact_push)(const ts_xpbd_context *c, const ts_contact_bundle *b, const ts_xpbd_contact_lanes *x)
{
    if (!x->any_deep) { /* most bundles of a step with some deep overlap: nothing to gather */
        return;
    }
    pair_lanes p = TS_PAIR_LOAD(c->states, b);
    ts_wv3 n = ts_wv3_load(b->normal);
    ts_wf zero = ts_w_zero();
    ts_wf half = ts_w_splat(0.5f);
    ts_wf depth = ts_w_splat(TS_CONTACT_PUSH_DEPTH);
    ts_wf fraction = ts_w_splat(TS_CONTACT_PUSH_FRACTION);
    ts_wf push_step = ts_w_splat(c->push_step);
    ts_wm started_deep = ts_w_gt(ts_w_load(x->deep), zero);
    ts_wv3 shift = ts_wv3_load(b->anchor_shift);
    bool any = false;
    for (int k = 0; k < 4; ++k) {
        const ts_contact_point_lanes *cp = b->points + k;
        ts_wv3 ra = ts_wv3_load(cp->anchor_a);
        ts_wv3 rb = ts_contact_anchor_b(ra, shift);
        /* the separation after the earlier points' moves */
        separation_frame frame = separation_frame_of(&p, n);
        ts_wf moved = ts_w_sub(ts_wv3_dot(frame.normal_b, rb), ts_wv3_dot(frame.normal_a, ra));
        ts_wf overlap = ts_w_neg(ts_w_add(ts_w_add(frame.normal_dp, moved), ts_w_load(cp->base_separation)));
        ts_wf move = ts_w_min(ts_w_mul(fraction, ts_w_sub(overlap, depth)), push_step);
        ts_wf amount = ts_w_mul(ts_w_load(cp->normal_mass), ts_w_max(move, zero));
        ts_wm moves = ts_w_and(started_deep, ts_w_gt(amount, zero));
        if (ts_w_mask_bits(moves) == 0) {
            continue;
        }
        any = true;
        ts_wv3 impulse = ts_wv3_scale(amount, n);
        ts_wv3 turn_a = ts_wv3_neg(ts_wsym3_mul(p.inv_inertia_a, ts_wv3_cross(ra, impulse)));
        ts_wv3 turn_b = ts_wsym3_mul(p.inv_inertia_b, ts_wv3_cross(rb, impulse));
        /* lanes that do not move keep their exact bits, so the answer does
         * not depend on which lanes share a bundle */
        p.a.dp = ts_wv3_select(moves, ts_wv3_mul_sub(p.a.dp, p.inv_mass_a, impulse), p.a.dp);
        p.b.dp = ts_wv3_select(moves, ts_wv3_mul_add(p.b.dp, p.inv_mass_b, impulse), p.b.dp);
        p.a.dq = ts_wquat_select(moves, ts_wquat_rotate_by(p.a.dq, turn_a, half), p.a.dq);
        p.b.dq = ts_wquat_select(moves, ts_wquat_rotate_by(p.b.dq, turn_b, half), p.b.dq);
    }
    if (any) {
        scatter_position(c->states, b->body_a, b->inv_mass_a, p.a);
        scatter_position(c->states, b->body_b, b->inv_mass_b, p.b);
    }
}
