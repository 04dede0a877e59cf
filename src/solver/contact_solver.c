/* Width-generic soft-step contact kernels (see contact_solver.h), written
 * against the lane vocabulary of wide.h.
 *
 * Soft constraint (Catto, "Solver2D" / Box2D v3). For a contact point with
 * separation s and normal velocity vn, one sequential-impulse update is
 *     dλ = -m_eff (mass_scale (vn + bias)) - impulse_scale λ
 * where, for a spring of frequency f and damping ratio ζ over a substep h,
 *     ω = 2π f,  a1 = 2ζ + hω,  a2 = hω a1,  a3 = 1 / (1 + a2)
 *     bias = (ω / a1) s (clamped to -push speed), mass_scale = a2 a3,
 *     impulse_scale = a3.
 * A separated point (s > 0) is speculative: bias = s / h with a rigid
 * update, so the point may close the gap this substep but not more. The relax
 * pass drops the bias (mass_scale 1, impulse_scale 0), removing the velocity
 * the position correction added.
 *
 * Separation inside a step: the gap between the two surface points of the
 * step's start, each moved with its body,
 *     s = s0 + n . ((dpB + dqB sB) - (dpA + dqA sA)) - n . (sB - sA),
 * with the normal n fixed at the step's start and sA = rA - (s0 / 2) n,
 * sB = rB + (s0 / 2) n the surface points' offsets from the centres of mass
 * (rA, rB: the anchors, midway between the surfaces; Box2D v3 turns those,
 * which is the same at s0 = 0). A speculative point may be far from both
 * surfaces (s0 up to the distance a step closes: 1.7 m at 100 m/s); turning
 * the midway anchor then swings a lever of s0 / 2, and a small sphere that
 * friction spins fast read its gap as opening and went through a thin wall
 * (9 of 27 oblique shots). With c = n . dqA^-1 n + n . dqB^-1 n - 2 (0
 * unturned), the surface points add (s0 / 2) c to the midway anchors'
 * separation, s0 = base + n . (rB - rA). */
#include "solver/contact_solver.h"

#include "solver/contact_rolling.h"
#include "solver/pair_lanes.h"

#include "base/core.h"

#include <string.h>

/* The four velocities of a pair, to undo a point's update in the lanes that
 * do not have that point (mixed bundles only; see contact_solver.h). */
typedef struct lane_velocities {
    ts_wv3 va, wa, vb, wb;
} lane_velocities;

TS_FORCE_INLINE lane_velocities velocities_of(const pair_lanes *p) { return (lane_velocities){p->a.v, p->a.w, p->b.v, p->b.w}; }

TS_FORCE_INLINE ts_wm point_used(const ts_contact_point_lanes *cp)
{
    return ts_w_gt(ts_w_load(cp->normal_mass), ts_w_zero());
}

TS_FORCE_INLINE void keep_unused(ts_wm used, pair_lanes *p, const lane_velocities *before)
{
    p->a.v = ts_wv3_select(used, p->a.v, before->va);
    p->a.w = ts_wv3_select(used, p->a.w, before->wa);
    p->b.v = ts_wv3_select(used, p->b.v, before->vb);
    p->b.w = ts_wv3_select(used, p->b.w, before->wb);
}

/* The kernels' point loops take count and mixed as constants where they can
 * (4 points, no lane missing one: box stacks), so that loop is unrolled and
 * carries no masks. */
#define TS_FOR_POINT_LOOP(b, call)                                                                                     \
    do {                                                                                                               \
        if ((b)->mixed) {                                                                                              \
            call((b)->point_count, true);                                                                              \
        } else if ((b)->point_count == 4) {                                                                            \
            call(4, false);                                                                                            \
        } else {                                                                                                       \
            call((b)->point_count, false);                                                                             \
        }                                                                                                              \
    } while (0)

/* The normal impulses of a manifold summed: Σ λk and Σ λk rAk. In a mixed
 * bundle a lane's sums skip the points it does not have (selects, not
 * additions of zero, so that its bits never depend on its bundle-mates). */
typedef struct normal_totals {
    ts_wf impulse;  /* Σ λk */
    ts_wv3 moment; /* Σ λk rAk */
} normal_totals;

TS_FORCE_INLINE void sum_normal_impulses(const ts_contact_bundle *b, normal_totals *t, int count, bool mixed)
{
    for (int k = 0; k < count; ++k) {
        const ts_contact_point_lanes *cp = b->points + k;
        ts_wf lambda = ts_w_load(cp->normal_impulse);
        ts_wf impulse = ts_w_add(t->impulse, lambda);
        ts_wv3 moment = ts_wv3_mul_add(t->moment, lambda, ts_wv3_load(cp->anchor_a));
        if (mixed) {
            ts_wm used = point_used(cp);
            impulse = ts_w_select(used, impulse, t->impulse);
            moment = ts_wv3_select(used, moment, t->moment);
        }
        t->impulse = impulse;
        t->moment = moment;
    }
}

/* Warm start: the step's accumulated impulses applied at once. The normal
 * impulses λk at anchors rAk (B's: rAk + shift), the friction impulse f at
 * the centre cA (B's: cA + shift) and the twist τ about n add up to one
 * linear impulse and one angular impulse per body,
 *     P  = (Σ λk) n + f
 *     LA = (Σ λk rAk) x n + cA x f + τ n
 *     LB = Σ λk (rAk + shift) x n + (cA + shift) x f + τ n = LA + shift x P
 * (A takes -P, -LA; B takes +P, +LB), so each body multiplies by its inverse
 * inertia once instead of once per point, friction and twist. With rolling
 * resistance LA (and so LB) adds the rolling impulse (contact_rolling.h);
 * compiled twice, so that bundles without it run no more than before. */
TS_FORCE_INLINE void warm_start(const ts_contact_solver_context *c, ts_contact_bundle *b, bool rolls)
{
    pair_lanes p = TS_PAIR_LOAD(c->states, b);
    ts_wv3 n = ts_wv3_load(b->normal);
    ts_wv3 shift = ts_wv3_load(b->anchor_shift);
    ts_wf zero = ts_w_zero();
    normal_totals totals = {zero, {zero, zero, zero}};
#define TS_SUM_POINTS(count, mixed) sum_normal_impulses(b, &totals, count, mixed)
    TS_FOR_POINT_LOOP(b, TS_SUM_POINTS);
#undef TS_SUM_POINTS
    ts_wv3 t1 = ts_wv3_load(b->tangent1);
    ts_wv3 friction = ts_wv3_scale(ts_w_load(b->friction_impulse[0]), t1);
    friction = ts_wv3_mul_add(friction, ts_w_load(b->friction_impulse[1]), ts_contact_tangent2(n, t1));
    ts_wv3 impulse = ts_wv3_mul_add(friction, totals.impulse, n);
    ts_wv3 angular_a = ts_wv3_add(ts_wv3_cross(totals.moment, n), ts_wv3_cross(ts_wv3_load(b->center_a), friction));
    angular_a = ts_wv3_mul_add(angular_a, ts_w_load(b->twist_impulse), n);
    if (rolls) {
        angular_a = ts_rolling_warm_start(b, n, angular_a);
    }
    ts_wv3 angular_b = ts_wv3_add(angular_a, ts_wv3_cross(shift, impulse));
    p.a.v = ts_wv3_mul_sub(p.a.v, p.inv_mass_a, impulse);
    p.a.w = ts_wv3_sub(p.a.w, ts_wsym3_mul(p.inv_inertia_a, angular_a));
    p.b.v = ts_wv3_mul_add(p.b.v, p.inv_mass_b, impulse);
    p.b.w = ts_wv3_add(p.b.w, ts_wsym3_mul(p.inv_inertia_b, angular_b));
    TS_PAIR_STORE(c->states, b, &p);
}

void TS_WIDE(ts_contact_warm_start)(const ts_contact_solver_context *c, ts_contact_bundle *b)
{
    if (b->rolls) {
        warm_start(c, b, true);
    } else {
        warm_start(c, b, false);
    }
}

/* What the separation of a manifold's points needs: the bodies' moves seen
 * along n, and (see the header comment) c and n . (rB - rA). */
typedef struct contact_frame {
    separation_frame moves;
    ts_wf turned;       /* c = n . dqA^-1 n + n . dqB^-1 n - 2 */
    ts_wf shift_normal; /* n . (rB - rA) */
} contact_frame;

TS_FORCE_INLINE contact_frame contact_frame_of(const pair_lanes *p, ts_wv3 n, ts_wv3 shift)
{
    contact_frame f;
    f.moves = separation_frame_of(p, n);
    ts_wf both = ts_w_add(ts_wv3_dot(f.moves.normal_a, n), ts_wv3_dot(f.moves.normal_b, n));
    f.turned = ts_w_sub(both, ts_w_splat(2.0f));
    f.shift_normal = ts_wv3_dot(shift, n);
    return f;
}

/* Current separation of the surface points (see the header comment). */
TS_FORCE_INLINE ts_wf current_separation(const contact_frame *f, const ts_contact_point_lanes *cp, ts_wv3 ra,
                                         ts_wv3 rb)
{
    ts_wf base = ts_w_load(cp->base_separation);
    ts_wf moved = ts_w_sub(ts_wv3_dot(f->moves.normal_b, rb), ts_wv3_dot(f->moves.normal_a, ra));
    ts_wf half_gap = ts_w_mul(ts_w_splat(0.5f), ts_w_add(base, f->shift_normal));
    ts_wf surface = ts_w_mul(half_gap, f->turned);
    return ts_w_add(ts_w_add(ts_w_add(f->moves.normal_dp, moved), base), surface);
}

/* Points whose overlap is deeper than the push depth and more than their
 * load explains: a spring of rate k (h w^2 per unit of effective mass m)
 * carries impulse m k d at depth d, so a point carrying the lane's load
 * (twice its mean impulse at the step's start, b->load) sits at most at
 * d = load / (m k); overlap past that was not made by the load but by
 * bodies spawned, shoved or driven into each other, and an impact's own
 * impulse, which grows within the step, does not count. */
TS_FORCE_INLINE ts_wm unexplained_overlap(ts_wf s, ts_wf load, ts_wf mass, ts_wf rate)
{
    ts_wf depth = ts_w_neg(s);
    ts_wm deep = ts_w_gt(depth, ts_w_splat(TS_CONTACT_PUSH_DEPTH));
    ts_wf spring = ts_w_mul(ts_w_mul(mass, rate), depth);
    return ts_w_and(deep, ts_w_gt(spring, load));
}

TS_FORCE_INLINE void solve_normal(const ts_contact_solver_context *c, const ts_contact_bundle *b, pair_lanes *p,
                                   const contact_frame *frame, ts_contact_point_lanes *cp, ts_wv3 n, ts_wv3 shift,
                                   ts_wf rate, ts_wm *pushes, ts_contact_bounce_lanes *bounce, int k, bool use_bias)
{
    ts_wv3 ra = ts_wv3_load(cp->anchor_a);
    ts_wv3 rb = ts_contact_anchor_b(ra, shift);
    ts_wf s = current_separation(frame, cp, ra, rb);
    ts_wf zero = ts_w_zero();
    ts_wf one = ts_w_splat(1.0f);
    ts_wf old = ts_w_load(cp->normal_impulse);
    ts_wf mass = ts_w_load(cp->normal_mass);

    /* speculative (s > 0): rigid, bias s / h; overlapping: soft bias when
     * solving, none when relaxing; overlap the load does not explain is
     * moved out by positions (push_out), and the spring pushes back from at
     * most the push depth */
    *pushes = unexplained_overlap(s, ts_w_load(b->load), mass, rate);
    ts_wm separated = ts_w_gt(s, zero);
    ts_wf spring = ts_w_select(*pushes, ts_w_max(s, ts_w_splat(-TS_CONTACT_PUSH_DEPTH)), s);
    ts_wf soft_bias = use_bias ? ts_w_max(ts_w_mul(ts_w_load(b->bias_rate), spring), ts_w_splat(-c->push_speed)) : zero;
    ts_wf soft_mass = use_bias ? ts_w_load(b->mass_scale) : one;
    ts_wf soft_impulse = use_bias ? ts_w_load(b->impulse_scale) : zero;
    ts_wf bias = ts_w_select(separated, ts_w_mul(s, ts_w_splat(c->inv_h)), soft_bias);
    ts_wf mass_scale = ts_w_select(separated, one, soft_mass);
    ts_wf impulse_scale = ts_w_select(separated, zero, soft_impulse);

    ts_wf vn = ts_wv3_dot(ts_pair_relative_velocity(p, ra, rb), n);
    /* The approach restitution returns: the one at the step's start plus
     * what gravity added in the substeps before the point first pushed (a
     * ball that lands partway through a step arrives faster than it started
     * it, by up to g dt). Only gravity, never other contacts' impulses of
     * this step: a sphere hit earlier in the step approaches its neighbour
     * because of that hit, and returning that speed too would bounce a
     * Newton's cradle twice and add energy. */
    if (use_bias && bounce) {
        ts_wm pushed = ts_w_gt(ts_w_load(bounce->max_normal_impulse[k]), zero);
        ts_wf gained = ts_w_select(pushed, zero, ts_w_load(bounce->gravity_approach));
        ts_w_store(bounce->relative_velocity[k], ts_w_add(ts_w_load(bounce->relative_velocity[k]), gained));
    }
    ts_wf delta = ts_w_sub(ts_w_neg(ts_w_mul(ts_w_mul(mass, mass_scale), ts_w_add(vn, bias))),
                           ts_w_mul(impulse_scale, old));
    ts_wf total = ts_w_max(ts_w_add(old, delta), zero);
    delta = ts_w_sub(total, old);
    ts_w_store(cp->normal_impulse, total);
    if (bounce) {
        ts_w_store(bounce->max_normal_impulse[k], ts_w_max(ts_w_load(bounce->max_normal_impulse[k]), delta));
    }
    ts_pair_apply_impulse(p, ts_wv3_scale(delta, n), ra, rb);
}

/* Overlap beyond TS_CONTACT_PUSH_DEPTH that the load does not explain
 * (unexplained_overlap) is moved out, not pushed out with velocity: a
 * column of overlapping boxes pushed apart at the push speed per contact
 * launches its top box at the sum (11 m/s for a 25%-overlapped B = 10
 * pyramid). Overlap a load explains stays the spring's at any depth:
 * capping the spring there lets a heavy load sink through it (a 1000 kg
 * box through 1 kg boxes, a 100-box column into itself).
 * For each point, a position impulse along n
 *     P = -m_eff max(β (s + d), -push_step)   (β the push fraction, d the depth)
 * moves the bodies as an impulse moves velocities (dp = P n / m,
 * dθ = I^-1 (r x P n)), so the overlap beyond d shrinks by β of itself, at
 * most push_step per pass. Bodies end apart at rest instead of launched; the
 * points are taken in turn with the separation recomputed after each move. */
/* Kept out of the passes (it runs in few bundles): it gathers the pair
 * again after the pass has written its velocities back (the positions are
 * still the step's: only this writes them) and writes the positions back
 * itself, so the passes need not keep positions and rotations in registers
 * past the separation frame (they spilled at W = 16). */
static TS_NOINLINE void push_out(const ts_contact_solver_context *c, const ts_contact_bundle *b, ts_wm deep)
{
    pair_lanes pair = TS_PAIR_LOAD(c->states, b);
    pair_lanes *p = &pair;
    ts_wv3 n = ts_wv3_load(b->normal);
    ts_wv3 shift = ts_wv3_load(b->anchor_shift);
    ts_wf rate = ts_w_load(b->spring_rate);
    ts_wf zero = ts_w_zero();
    ts_wf half = ts_w_splat(0.5f);
    for (int k = 0; k < b->point_count; ++k) {
        const ts_contact_point_lanes *cp = b->points + k;
        ts_wv3 ra = ts_wv3_load(cp->anchor_a);
        ts_wv3 rb = ts_contact_anchor_b(ra, shift);
        contact_frame frame = contact_frame_of(p, n, shift);
        ts_wf s = current_separation(&frame, cp, ra, rb);
        ts_wf beyond = ts_w_add(s, ts_w_splat(TS_CONTACT_PUSH_DEPTH));
        ts_wf error = ts_w_max(ts_w_mul(ts_w_splat(TS_CONTACT_PUSH_FRACTION), beyond), ts_w_splat(-c->push_step));
        ts_wf mass = ts_w_load(cp->normal_mass);
        ts_wf amount = ts_w_neg(ts_w_mul(mass, ts_w_min(error, zero)));
        ts_wm pushes = unexplained_overlap(s, ts_w_load(b->load), mass, rate);
        /* only the lanes the normal rows found deep, whatever their
         * bundle-mates: a lane's bits never depend on them */
        ts_wm moves = ts_w_and(ts_w_and(ts_w_gt(amount, zero), pushes), deep);
        if (ts_w_mask_bits(moves) == 0) {
            continue;
        }
        ts_wv3 impulse = ts_wv3_scale(amount, n);
        ts_wv3 turn_a = ts_wv3_neg(ts_wsym3_mul(p->inv_inertia_a, ts_wv3_cross(ra, impulse)));
        ts_wv3 turn_b = ts_wsym3_mul(p->inv_inertia_b, ts_wv3_cross(rb, impulse));
        /* untouched lanes keep their exact bits (no renormalisation), so the
         * answer does not depend on which lanes share a bundle */
        p->a.dp = ts_wv3_select(moves, ts_wv3_mul_sub(p->a.dp, p->inv_mass_a, impulse), p->a.dp);
        p->b.dp = ts_wv3_select(moves, ts_wv3_mul_add(p->b.dp, p->inv_mass_b, impulse), p->b.dp);
        p->a.dq = ts_wquat_select(moves, ts_wquat_rotate_by(p->a.dq, turn_a, half), p->a.dq);
        p->b.dq = ts_wquat_select(moves, ts_wquat_rotate_by(p->b.dq, turn_b, half), p->b.dq);
    }
    scatter_position(c->states, b->body_a, b->inv_mass_a, p->a);
    scatter_position(c->states, b->body_b, b->inv_mass_b, p->b);
}

/* Coulomb friction at the manifold centre: the 2D tangent impulse is
 * clamped to the disc of radius friction * (sum of the normal impulses), and
 * the twist impulse to friction * sum(normal impulse * lever arm), the
 * torque the same pressure could resist spread over the points. */
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
    ts_pair_apply_impulse(p, ts_wv3_add(ts_wv3_scale(ts_w_sub(new1, old1), t1), ts_wv3_scale(ts_w_sub(new2, old2), t2)), ca, cb);

    ts_wf spin = ts_wv3_dot(ts_wv3_sub(p->b.w, p->a.w), n);
    ts_wf old_twist = ts_w_load(b->twist_impulse);
    ts_wf max_twist = ts_w_mul(friction, twist_limit);
    ts_wf twist = ts_w_sub(old_twist, ts_w_mul(ts_w_load(b->twist_mass), spin));
    twist = ts_w_max(ts_w_min(twist, max_twist), ts_w_neg(max_twist));
    ts_w_store(b->twist_impulse, twist);
    ts_pair_apply_angular(p, ts_wv3_scale(ts_w_sub(twist, old_twist), n));
}

/* What the normal rows leave for friction and push-out. */
typedef struct normal_sums {
    ts_wf total_normal; /* sum of the normal impulses */
    ts_wf twist_limit;  /* sum of normal impulse x lever arm */
    ts_wm deep;         /* lanes with a point deeper than the push depth */
} normal_sums;

TS_FORCE_INLINE void solve_points(const ts_contact_solver_context *c, ts_contact_bundle *b, pair_lanes *p,
                                  const contact_frame *frame, ts_wv3 n, ts_wv3 shift, ts_wf rate,
                                  ts_contact_bounce_lanes *bounce, bool use_bias, int count, bool mixed,
                                  normal_sums *sums)
{
    for (int k = 0; k < count; ++k) {
        ts_contact_point_lanes *cp = b->points + k;
        lane_velocities before = velocities_of(p);
        ts_wm pushes;
        solve_normal(c, b, p, frame, cp, n, shift, rate, &pushes, bounce, k, use_bias);
        ts_wm used = point_used(cp);
        ts_wf impulse = ts_w_load(cp->normal_impulse);
        if (mixed) {
            keep_unused(used, p, &before);
            impulse = ts_w_select(used, impulse, ts_w_zero()); /* an unused point's may be -0 */
        }
        sums->deep = ts_w_or(sums->deep, ts_w_and(used, pushes));
        sums->total_normal = ts_w_add(sums->total_normal, impulse);
        sums->twist_limit = ts_w_add(sums->twist_limit, ts_w_mul(impulse, ts_w_load(cp->lever_arm)));
    }
}

/* One pass; inlined once per use on constants below, so that each pass's
 * arithmetic is folded for its own use_bias (and the relax for whether the
 * bundle has rolling resistance). */
TS_FORCE_INLINE void solve_pass(const ts_contact_solver_context *c, ts_contact_bundle *b,
                                ts_contact_bounce_lanes *bounce, bool use_bias, ts_contact_total_lanes *totals,
                                bool rolls)
{
    pair_lanes p = TS_PAIR_LOAD(c->states, b);
    ts_wv3 n = ts_wv3_load(b->normal);
    ts_wv3 shift = ts_wv3_load(b->anchor_shift);
    contact_frame frame = contact_frame_of(&p, n, shift);
    ts_wf rate = ts_w_load(b->spring_rate);
    normal_sums sums = {ts_w_zero(), ts_w_zero(), ts_w_gt(ts_w_zero(), ts_w_splat(1.0f)) /* none */};
#define TS_SOLVE_POINTS(count, mixed)                                                                                  \
    solve_points(c, b, &p, &frame, n, shift, rate, bounce, use_bias, count, mixed, &sums)
    TS_FOR_POINT_LOOP(b, TS_SOLVE_POINTS);
#undef TS_SOLVE_POINTS
    ts_wm deep = sums.deep;
    if (!use_bias) {
        if (rolls) { /* before friction, which then takes out the slip it makes */
            ts_rolling_solve(b, &p, n, sums.total_normal);
        }
        solve_friction(b, &p, n, shift, sums.total_normal, sums.twist_limit);
    }
    if (totals != NULL) { /* only the relax of a world that reports impulses */
        ts_w_store(totals->normal, ts_w_add(ts_w_load(totals->normal), sums.total_normal));
        for (int t = 0; t < 2; ++t) {
            ts_w_store(totals->tangent[t], ts_w_add(ts_w_load(totals->tangent[t]), ts_w_load(b->friction_impulse[t])));
        }
    }
    TS_PAIR_STORE(c->states, b, &p);
    if (ts_w_mask_bits(deep) != 0) {
        push_out(c, b, deep);
    }
}

void TS_WIDE(ts_contact_solve)(const ts_contact_solver_context *c, ts_contact_bundle *b,
                               ts_contact_bounce_lanes *bounce, bool use_bias)
{
    if (use_bias) {
        solve_pass(c, b, bounce, true, NULL, false);
    } else if (b->rolls) {
        solve_pass(c, b, bounce, false, NULL, true);
    } else {
        solve_pass(c, b, bounce, false, NULL, false);
    }
}

void TS_WIDE(ts_contact_relax_totals)(const ts_contact_solver_context *c, ts_contact_bundle *b,
                                      ts_contact_bounce_lanes *bounce, ts_contact_total_lanes *totals)
{
    solve_pass(c, b, bounce, false, totals, b->rolls != 0);
}

/* Velocity-level bounce: a point that approached faster than the threshold
 * (relative velocity < -threshold) and pushed at some time in the step gets
 * vn' = -e vn0 where it can. */
void TS_WIDE(ts_contact_restitution)(const ts_contact_solver_context *c, ts_contact_bundle *b,
                                     const ts_contact_bounce_lanes *bounce, ts_contact_total_lanes *totals)
{
    pair_lanes p = TS_PAIR_LOAD(c->states, b);
    ts_wv3 n = ts_wv3_load(b->normal);
    ts_wv3 shift = ts_wv3_load(b->anchor_shift);
    ts_wf e = ts_w_load(b->restitution);
    ts_wf zero = ts_w_zero();
    ts_wf threshold = ts_w_splat(-c->restitution_threshold);
    for (int k = 0; k < b->point_count; ++k) {
        ts_contact_point_lanes *cp = b->points + k;
        ts_wf approach = ts_w_load(bounce->relative_velocity[k]);
        ts_wm active = ts_w_and(ts_w_gt(threshold, approach), ts_w_gt(ts_w_load(bounce->max_normal_impulse[k]), zero));
        active = ts_w_and(active, ts_w_gt(e, zero));
        ts_wv3 ra = ts_wv3_load(cp->anchor_a);
        ts_wv3 rb = ts_contact_anchor_b(ra, shift);
        ts_wf vn = ts_wv3_dot(ts_pair_relative_velocity(&p, ra, rb), n);
        ts_wf old = ts_w_load(cp->normal_impulse);
        ts_wf delta = ts_w_neg(ts_w_mul(ts_w_load(cp->normal_mass), ts_w_add(vn, ts_w_mul(e, approach))));
        ts_wf total = ts_w_select(active, ts_w_max(ts_w_add(old, delta), zero), old);
        delta = ts_w_sub(total, old);
        ts_w_store(cp->normal_impulse, total);
        if (totals != NULL) {
            ts_w_store(totals->normal, ts_w_add(ts_w_load(totals->normal), delta));
        }
        lane_velocities before = velocities_of(&p);
        ts_pair_apply_impulse(&p, ts_wv3_scale(delta, n), ra, rb);
        if (b->mixed) {
            keep_unused(point_used(cp), &p, &before);
        }
    }
    TS_PAIR_STORE(c->states, b, &p);
}
