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
 * (from this substep's motion) is removed at once. In the first step after
 * a switch from the soft step (ts_world_set_solver), the overlap its soft
 * contacts held under load goes evenly over the step instead, t / dt of it
 * by time t (and at push_speed at most): pushed out in the first substep,
 * the velocities that follow the push add up along a column, and a stack
 * of 5 boxes the soft step had left 0.9 mm deep per contact jumped 1.6 cm
 * when XPBD took over at 8 substeps (6.3 mm now). Not in other steps: the
 * overlap a step starts with is then what XPBD's own solve left (a loaded
 * stack's sag), and let out evenly it is kept too long: the 1,000 kg box
 * on 1 kg boxes fell through at 8 substeps, the B = 50 pyramid's top sank
 * 0.124 m (0.034 m at once), and for new contacts alone large_pyramid's top
 * moved 0.34 m (0.087 m). Per sweep:
 *     Δλ = -C / w,  λ + Δλ >= 0,  w = wA + wB,  wi = 1/mi + (ri x n) . Ii^-1 (ri x n)
 * where λ starts from the warm start's multiplier, and the change of the
 * correction P = Δλ n moves the bodies by
 *     ΔpB = P / mB,  θB = IB^-1 (rB x P)   (A: the opposite)
 * where θ is a small rotation, applied as dq += 1/2 (θ, 0) dq, and their
 * velocities by Δp / h, θ / h (xpbd_lanes.h). The generalized inverse
 * masses use the world inertia and anchors at the step's start (prepared
 * once: normal_mass = 1 / w). Within one manifold the corrections of
 * earlier points are tracked linearly (s changes by n . (Δp + θ x r)), so
 * the manifold's points are solved in sequence and its bodies are written
 * once.
 *
 * The order of the points. A sweep that always starts at point 0 gives the
 * first corner of a face contact more of the load than its mirror image,
 * every substep alike: a tilt that nothing in a single-plane pyramid
 * removes. Measured on the B = 50 pyramid at 8 substeps (no static
 * friction, warm start 0.5, a second joint pass), the largest |z| after
 * 10 s: 0.167 m with 0123 0123, 0.22 m with 0123 3210 in every substep,
 * 0.035 m with one sweep, 0.0098 with four; 0.0028 m with 0123 0123 in even
 * substeps and 3210 3210 in odd ones, which is what runs.
 *
 * Velocity pass (after the position pass moved the velocities): a point
 * that pushed (λn > 0) gets vn' = target, target = -e ṽn when it approached
 * faster than the threshold (ṽn: its normal velocity at the substep's start,
 * read by a pass over the bouncing contacts before any warm start: read
 * after it, ṽn held the warm start's velocity changes, which the position
 * pass then takes back, and a touching row of a Newton's cradle bounced off
 * approach speeds it never had, 12% above its energy at 8 substeps and 2.8
 * times it with a sphere thrown into the row) and 0 otherwise, through an impulse whose sum with the position
 * pass's λn / h stays >= 0 (so it may take back the separating speed a
 * push-out made, no more). Friction and twist are the soft step's: at the
 * manifold centre, accumulated over the step from the warm start, within
 * μ times the substep's normal impulse (contact_solver.c). Friction acts on
 * velocities only: the paper's static friction as a position constraint
 * held each flank box of a pyramid at an origin it then corrected into
 * velocity, and the B = 50 pyramid never came to rest (boxes at 0.2-0.6 m/s
 * after 10 s; 0.006 m/s without it). */
#include "solver/xpbd_contact.h"

#include "solver/contact_prepare.h"
#include "solver/contact_rolling.h"

#include "solver/xpbd_lanes.h"

#include "base/core.h"

/* Position corrections gathered over one kernel call: linear moves and
 * small rotations (world), applied to the bodies at the end. */
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

bool TS_WIDE(ts_xpbd_contact_begin)(const ts_xpbd_context *c, const ts_contact_bundle *b, ts_xpbd_contact_lanes *x)
{
    (void)c;
    ts_wv3 n = ts_wv3_load(b->normal);
    ts_wf zero = ts_w_zero();
    ts_wm deep = ts_w_gt(zero, ts_w_splat(1.0f)); /* none */
    ts_wf start_shift = ts_wv3_dot(ts_wv3_load(b->anchor_shift), n);
    for (int k = 0; k < 4; ++k) {
        const ts_contact_point_lanes *cp = b->points + k;
        ts_wf start = ts_w_add(ts_w_load(cp->base_separation), start_shift);
        ts_w_store(x->start_separation[k], start);
        deep = ts_w_or(deep, ts_w_and(ts_w_gt(ts_w_splat(-TS_CONTACT_PUSH_DEPTH), start),
                                      ts_w_gt(ts_w_load(cp->normal_mass), zero)));
        ts_w_store(x->lambda[k], zero);
        ts_w_store(x->approach[k], zero);
    }
    ts_w_store(x->deep, ts_w_select(deep, ts_w_splat(1.0f), zero));
    x->any_deep = ts_w_mask_bits(deep) != 0;
    return x->any_deep != 0;
}

bool TS_WIDE(ts_xpbd_contact_bounces)(const ts_contact_bundle *b)
{
    return ts_w_mask_bits(ts_w_gt(ts_w_load(b->restitution), ts_w_zero())) != 0;
}

/* The approach speeds of the points (header comment): the velocities of
 * the substep's start, which the warm start has not yet changed. */
void TS_WIDE(ts_xpbd_contact_approach)(const ts_xpbd_context *c, const ts_contact_bundle *b, ts_xpbd_contact_lanes *x)
{
    if (!b->bounces && !TS_WIDE(ts_xpbd_contact_bounces)(b)) {
        return; /* approach stays 0 (ts_xpbd_contact_begin): nothing bounces, no hits tracked */
    }
    pair_lanes p = TS_PAIR_LOAD(c->states, b);
    ts_wv3 n = ts_wv3_load(b->normal);
    ts_wv3 shift = ts_wv3_load(b->anchor_shift);
    for (int j = 0; j < 4; ++j) {
        const ts_contact_point_lanes *cp = b->points + j;
        ts_wv3 ra = ts_wv3_load(cp->anchor_a);
        ts_wv3 dv = ts_pair_relative_velocity(&p, ra, ts_contact_anchor_b(ra, shift));
        ts_w_store(x->approach[j], ts_wv3_dot(dv, n));
    }
}

/* Warm start (header comment): one linear and one angular impulse per body,
 * as the soft step's warm start sums them (contact_solver.c). */
void TS_WIDE(ts_xpbd_contact_warm_start)(const ts_xpbd_context *c, ts_contact_bundle *b, ts_xpbd_contact_lanes *x)
{
    pair_lanes p = TS_PAIR_LOAD(c->states, b);
    ts_wv3 n = ts_wv3_load(b->normal);
    ts_wv3 shift = ts_wv3_load(b->anchor_shift);
    ts_wf scale = ts_w_splat(c->warm_scale);
    ts_wf h = ts_w_splat(c->h);
    ts_wf zero = ts_w_zero();
    ts_wf total = zero;
    ts_wv3 moment = {zero, zero, zero}; /* Σ λk rAk */
    for (int k = 0; k < 4; ++k) {
        ts_contact_point_lanes *cp = b->points + k;
        ts_wf impulse = ts_w_mul(scale, ts_w_load(cp->normal_impulse));
        ts_w_store(cp->normal_impulse, impulse);
        ts_w_store(x->lambda[k], ts_w_mul(impulse, h));
        total = ts_w_add(total, impulse);
        moment = ts_wv3_mul_add(moment, impulse, ts_wv3_load(cp->anchor_a));
    }
    ts_wv3 t1 = ts_wv3_load(b->tangent1);
    ts_wv3 friction = ts_wv3_scale(ts_w_load(b->friction_impulse[0]), t1);
    friction = ts_wv3_mul_add(friction, ts_w_load(b->friction_impulse[1]), ts_contact_tangent2(n, t1));
    ts_wv3 impulse = ts_wv3_mul_add(friction, total, n);
    ts_wv3 angular_a = ts_wv3_add(ts_wv3_cross(moment, n), ts_wv3_cross(ts_wv3_load(b->center_a), friction));
    angular_a = ts_wv3_mul_add(angular_a, ts_w_load(b->twist_impulse), n);
    if (b->rolls) {
        angular_a = ts_rolling_warm_start(b, n, angular_a);
    }
    ts_wv3 angular_b = ts_wv3_add(angular_a, ts_wv3_cross(shift, impulse));
    p.a.v = ts_wv3_mul_sub(p.a.v, p.inv_mass_a, impulse);
    p.a.w = ts_wv3_sub(p.a.w, ts_wsym3_mul(p.inv_inertia_a, angular_a));
    p.b.v = ts_wv3_mul_add(p.b.v, p.inv_mass_b, impulse);
    p.b.w = ts_wv3_add(p.b.w, ts_wsym3_mul(p.inv_inertia_b, angular_b));
    TS_PAIR_STORE(c->states, b, &p);
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
 * deep overlap out (the push pass moves it by positions). */
TS_FORCE_INLINE void tolerated_overlap(const ts_xpbd_context *c, const ts_contact_bundle *b,
                                       const ts_xpbd_contact_lanes *x, const pair_lanes *p, ts_wv3 n, ts_wf pushed,
                                       ts_wf elapsed, ts_wf allowed[4])
{
    ts_wf zero = ts_w_zero();
    ts_wf depth = ts_w_splat(TS_CONTACT_PUSH_DEPTH);
    for (int j = 0; j < 4; ++j) {
        ts_wf start = ts_w_min(ts_w_neg(ts_w_load(x->start_separation[j])), depth);
        /* after a solver switch, let out evenly over the step (header comment) */
        ts_wf push = c->switched ? ts_w_min(pushed, ts_w_mul(start, elapsed)) : pushed;
        allowed[j] = ts_w_max(ts_w_sub(start, push), zero);
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
}

/* One point's projection (header comment). */
TS_FORCE_INLINE void project_point(const ts_contact_bundle *b, ts_xpbd_contact_lanes *x, const pair_lanes *p,
                                   const separation_frame *frame, corrections *k, ts_wv3 n, ts_wv3 shift,
                                   const ts_wf allowed[4], int j)
{
    const ts_contact_point_lanes *cp = b->points + j;
    ts_wv3 ra = ts_wv3_load(cp->anchor_a);
    ts_wv3 rb = ts_contact_anchor_b(ra, shift);
    ts_wf moved = ts_w_sub(ts_wv3_dot(frame->normal_b, rb), ts_wv3_dot(frame->normal_a, ra));
    ts_wf s = ts_w_add(ts_w_add(frame->normal_dp, moved), ts_w_load(cp->base_separation));
    s = ts_w_add(s, ts_wv3_dot(corrected_offset(k, ra, rb), n));
    ts_wf constraint = ts_w_add(s, allowed[j]);
    /* Δλ = -C / w = -m C, m = 1 / w (0 for unused points); λ + Δλ >= 0 */
    ts_wf old = ts_w_load(x->lambda[j]);
    ts_wf lambda = ts_w_max(ts_w_sub(old, ts_w_mul(ts_w_load(cp->normal_mass), constraint)), ts_w_zero());
    ts_w_store(x->lambda[j], lambda);
    correct(k, p, ts_wv3_scale(ts_w_sub(lambda, old), n), ra, rb);
}

/* Sweeps over a manifold's points per position pass: one leaves the first
 * point's correction tilting the box, and a 15-box stack swayed 25 cm at 4
 * substeps; two hold it within 1 cm. Three since the over-relaxation
 * below: it adds to what the sweeps found, so what they leave uneven
 * between the points tilts the box more; with two, large_pyramid B = 100
 * (8 substeps, ω 1.3) left its plane by 0.054 m (bound 0.05), three 0.036 m,
 * with four 0.028 m but its boxes still moved at 0.046 m/s after 10 s. */
#define TS_XPBD_POINT_SWEEPS 3

/* Over-relaxation of a manifold's position correction (docs/xpbd.md): each
 * used point's multiplier gets (ω - 1) times the mean change the sweeps
 * made to the manifold's points, so a contact's push is carried on by ω
 * times what one Gauss-Seidel pass found (SOR by blocks: the block is the
 * manifold). The same amount at every point: what the sweeps left uneven
 * between them is not amplified into a tilt. Measured on large_pyramid
 * B = 100 at 8 substeps (3 sweeps), the mean box speed after 10 s (bound
 * 0.05 m/s): 0.070 at ω = 1 (0.112 with 2 sweeps), 0.048 at 1.25, 0.023
 * at 1.3, 0.013 at 1.35 (a prototype's bits; as built 0.032 at 1.3 and
 * 0.016 at 1.35, and at B = 110 0.060 and 0.021). Why
 * it helps: the pyramid's residual motion is a vertical mode of ~2.6 Hz (a
 * box halfway up moved 9 mm at 0.16 m/s) whose stiffness is what the
 * single pass per substep leaves unconverged; a faster-converging pass
 * stiffens it and the velocity pass damps it. Not in a step with deep
 * overlap (xpbd_push.c): an over-relaxed push-out adds up along a column,
 * and the overlapped pyramid's fastest box left at 3.7 m/s at 8 substeps
 * (2.75 without; bound 4). Nor in a lane with restitution: the extra push
 * passed along a touching row of a Newton's cradle and the row left with
 * 1.145 times the energy it was hit with (test_cradle). */
#ifndef TS_XPBD_OVER_RELAX
#define TS_XPBD_OVER_RELAX 1.35f
#endif

/* The over-relaxation (above): start holds the multipliers at the pass's
 * start. Unused points (normal_mass 0) keep theirs; the change of each
 * point's multiplier moves the bodies as the sweeps' corrections do, summed
 * (Σ Δλj (rj x n) = (Σ Δλj rj) x n; rBj = rAj + shift). */
TS_FORCE_INLINE void over_relax(const ts_contact_bundle *b, ts_xpbd_contact_lanes *x, const pair_lanes *p,
                                corrections *k, ts_wv3 n, ts_wv3 shift, const ts_wf start[4])
{
    ts_wf zero = ts_w_zero();
    ts_wf one = ts_w_splat(1.0f);
    ts_wf change = zero, used_count = zero;
    ts_wm used[4];
    for (int j = 0; j < 4; ++j) {
        used[j] = ts_w_gt(ts_w_load(b->points[j].normal_mass), zero);
        change = ts_w_add(change, ts_w_sub(ts_w_load(x->lambda[j]), start[j]));
        used_count = ts_w_add(used_count, ts_w_select(used[j], one, zero));
    }
    ts_wf extra = ts_w_div(ts_w_mul(ts_w_splat(TS_XPBD_OVER_RELAX - 1.0f), change), ts_w_max(used_count, one));
    extra = ts_w_select(ts_w_gt(ts_w_load(b->restitution), zero), zero, extra); /* bouncing lanes: none */
    ts_wf sum = zero;
    ts_wv3 moment = {zero, zero, zero}; /* Σ Δλj rAj */
    for (int j = 0; j < 4; ++j) {
        ts_wf lambda = ts_w_load(x->lambda[j]);
        ts_wf relaxed = ts_w_select(used[j], ts_w_max(ts_w_add(lambda, extra), zero), lambda);
        ts_wf delta = ts_w_sub(relaxed, lambda);
        ts_w_store(x->lambda[j], relaxed);
        sum = ts_w_add(sum, delta);
        moment = ts_wv3_mul_add(moment, delta, ts_wv3_load(b->points[j].anchor_a));
    }
    ts_wv3 impulse = ts_wv3_scale(sum, n);
    k->move_a = ts_wv3_mul_sub(k->move_a, p->inv_mass_a, impulse);
    k->turn_a = ts_wv3_sub(k->turn_a, ts_wsym3_mul(p->inv_inertia_a, ts_wv3_cross(moment, n)));
    k->move_b = ts_wv3_mul_add(k->move_b, p->inv_mass_b, impulse);
    k->turn_b = ts_wv3_add(k->turn_b,
                           ts_wsym3_mul(p->inv_inertia_b, ts_wv3_cross(ts_wv3_mul_add(moment, sum, shift), n)));
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
    ts_wf elapsed = ts_w_splat((float)(substep + 1) / (float)c->substeps);
    tolerated_overlap(c, b, x, &p, n, pushed, elapsed, allowed);
    ts_wv3 shift = ts_wv3_load(b->anchor_shift);
    bool reverse = (substep & 1) != 0;
    ts_wf start[4];
    for (int j = 0; j < 4; ++j) {
        start[j] = ts_w_load(x->lambda[j]);
    }
    for (int sweep = 0; sweep < TS_XPBD_POINT_SWEEPS; ++sweep) {
        for (int j = 0; j < 4; ++j) {
            project_point(b, x, &p, &frame, &k, n, shift, allowed, reverse ? 3 - j : j);
        }
    }
    if (c->substep_start == NULL) { /* not in a step with deep overlap (TS_XPBD_OVER_RELAX) */
        over_relax(b, x, &p, &k, n, shift, start);
    }
    ts_wf inv_h = ts_w_splat(c->inv_h);
    ts_xpbd_move(&p.a, k.move_a, k.turn_a, inv_h);
    ts_xpbd_move(&p.b, k.move_b, k.turn_b, inv_h);
    TS_PAIR_STORE_POSE(c->states, b, &p);
}

/* Friction and twist (header comment): the soft step's accumulated
 * impulses, within μ times the substep's normal impulse. */
TS_FORCE_INLINE void solve_friction(ts_contact_bundle *b, pair_lanes *p, ts_wv3 n, ts_wv3 shift, ts_wf total_normal,
                                    ts_wf twist_limit)
{
    ts_wv3 t1 = ts_wv3_load(b->tangent1);
    ts_wv3 t2 = ts_contact_tangent2(n, t1);
    ts_wv3 ca = ts_wv3_load(b->center_a);
    ts_wv3 cb = ts_contact_anchor_b(ca, shift);
    ts_wv3 dv = ts_pair_relative_velocity(p, ca, cb);
    ts_wf vt1 = ts_wv3_dot(dv, t1);
    ts_wf vt2 = ts_wv3_dot(dv, t2);
    ts_wf mxx = ts_w_load(b->tangent_mass[0]);
    ts_wf mxy = ts_w_load(b->tangent_mass[1]);
    ts_wf myy = ts_w_load(b->tangent_mass[2]);
    ts_wf old1 = ts_w_load(b->friction_impulse[0]);
    ts_wf old2 = ts_w_load(b->friction_impulse[1]);
    ts_wf new1 = ts_w_sub(old1, ts_w_add(ts_w_mul(mxx, vt1), ts_w_mul(mxy, vt2)));
    ts_wf new2 = ts_w_sub(old2, ts_w_add(ts_w_mul(mxy, vt1), ts_w_mul(myy, vt2)));
    ts_wf friction = ts_w_load(b->friction);
    ts_wf limit = ts_w_mul(friction, total_normal);
    ts_wf length = ts_w_sqrt(ts_w_add(ts_w_mul(new1, new1), ts_w_mul(new2, new2)));
    ts_wf scale = ts_w_select(ts_w_gt(length, limit), ts_w_div(limit, length), ts_w_splat(1.0f));
    new1 = ts_w_mul(new1, scale);
    new2 = ts_w_mul(new2, scale);
    ts_w_store(b->friction_impulse[0], new1);
    ts_w_store(b->friction_impulse[1], new2);
    ts_pair_apply_impulse(p, ts_wv3_add(ts_wv3_scale(ts_w_sub(new1, old1), t1), ts_wv3_scale(ts_w_sub(new2, old2), t2)),
                          ca, cb);

    ts_wf spin = ts_wv3_dot(ts_wv3_sub(p->b.w, p->a.w), n);
    ts_wf old_twist = ts_w_load(b->twist_impulse);
    ts_wf max_twist = ts_w_mul(friction, twist_limit);
    ts_wf twist = ts_w_sub(old_twist, ts_w_mul(ts_w_load(b->twist_mass), spin));
    twist = ts_w_max(ts_w_min(twist, max_twist), ts_w_neg(max_twist));
    ts_w_store(b->twist_impulse, twist);
    ts_pair_apply_angular(p, ts_wv3_scale(ts_w_sub(twist, old_twist), n));
}

/* What the reports keep of a substep (solver/contact_report.h): a point
 * that pushes for the first time in the step keeps the approach speed of
 * this substep's start (ts_contact_report_bundle then picks the fastest);
 * the totals add this substep's impulses. */
TS_FORCE_INLINE void track_hit(ts_contact_bounce_lanes *bounce, const ts_xpbd_contact_lanes *x, int j, ts_wm pushed,
                               ts_wf total)
{
    ts_wf before = ts_w_load(bounce->max_normal_impulse[j]);
    ts_wm first = ts_w_and(pushed, ts_w_ge(ts_w_zero(), before)); /* it never pushed before */
    ts_w_store(bounce->relative_velocity[j],
               ts_w_select(first, ts_w_load(x->approach[j]), ts_w_load(bounce->relative_velocity[j])));
    ts_w_store(bounce->max_normal_impulse[j], ts_w_max(before, total));
}

void TS_WIDE(ts_xpbd_contact_solve_velocities)(const ts_xpbd_context *c, ts_contact_bundle *b,
                                               const ts_xpbd_contact_lanes *x, ts_contact_bounce_lanes *bounce,
                                               ts_contact_total_lanes *totals)
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
        ts_wm bounces = ts_w_and(ts_w_gt(threshold, approach), ts_w_gt(e, zero));
        ts_wf target = ts_w_select(bounces, ts_w_neg(ts_w_mul(e, approach)), zero);
        ts_wf position_impulse = ts_w_mul(lambda, inv_h);
        ts_wf delta = ts_w_neg(ts_w_mul(ts_w_load(cp->normal_mass), ts_w_sub(vn, target)));
        ts_wf total = ts_w_max(ts_w_add(position_impulse, delta), zero);
        total = ts_w_select(pushed, total, zero);
        delta = ts_w_select(pushed, ts_w_sub(total, position_impulse), zero);
        ts_pair_apply_impulse(&p, ts_wv3_scale(delta, n), ra, rb);
        ts_w_store(cp->normal_impulse, total);
        if (bounce != NULL) {
            track_hit(bounce, x, j, pushed, total);
        }
        total_normal = ts_w_add(total_normal, total);
        twist_limit = ts_w_add(twist_limit, ts_w_mul(total, ts_w_load(cp->lever_arm)));
    }
    if (b->rolls) { /* before friction, which then takes out the slip it makes */
        ts_rolling_solve(b, &p, n, total_normal);
    }
    solve_friction(b, &p, n, shift, total_normal, twist_limit);
    if (totals != NULL) { /* the substep's whole impulses: the warm start's, the positions' and this pass's */
        ts_w_store(totals->normal, ts_w_add(ts_w_load(totals->normal), total_normal));
        for (int t = 0; t < 2; ++t) {
            ts_w_store(totals->tangent[t], ts_w_add(ts_w_load(totals->tangent[t]), ts_w_load(b->friction_impulse[t])));
        }
    }
    TS_PAIR_STORE(c->states, b, &p);
}
