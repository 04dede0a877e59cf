/* XPBD's ball joint kernels on the soft step's ball bundles (see
 * xpbd_ball.h), compiled once per width.
 *
 * The projection is xpbd_joint.c's point row: the gap
 * d = (dpB + dqB rB0) - (dpA + dqA rA0) + (cB0 - cA0) between the frame
 * origins (anchors and centres at the step's start, turned and moved by the
 * bodies' deltas since) is closed by the correction P = -K^-1 d, K at the
 * turned anchors (point_mass.h; isotropic lanes in the short form,
 * ball_lanes.h), which moves the bodies by ±P / m and the small turns
 * ±I^-1 (r x P), and their velocities with them (xpbd_lanes.h).
 *
 * The warm start applies impulse * warm_scale (N s, the last substep's
 * multiplier over h) at the anchors turned with the bodies now, to the
 * velocities alone, the turn it asks of each body over a substep shortened
 * as a projection's is. A lane whose last correction turned a body by more
 * than TS_XPBD_WARM_MAX_TURN keeps no multiplier (xpbd_lanes.h).
 *
 * The second projection of a substep runs on the loaded lanes alone
 * (loaded_lanes, xpbd_ball.h); the others keep their bits through a lane
 * select, so that a lane's result never depends on its bundle-mates'. */
#include "solver/xpbd_ball.h"

#include "solver/ball_lanes.h"
#include "solver/velocity_lanes.h"
#include "solver/xpbd_lanes.h"

/* No lane (the mask of an unmasked call, unread). */
TS_FORCE_INLINE ts_wm ts_w_zero_mask(void) { return ts_w_gt(ts_w_zero(), ts_w_zero()); }

/* m ? a : b for every row of a body's state */
TS_FORCE_INLINE body_lanes select_lanes(ts_wm m, body_lanes a, body_lanes b)
{
    return (body_lanes){ts_wv3_select(m, a.v, b.v), ts_wv3_select(m, a.w, b.w), ts_wv3_select(m, a.dp, b.dp),
                        ts_wquat_select(m, a.dq, b.dq)};
}

#if TS_W == 4 || TS_W == 8
/* Lane l's dp and dq rows (and lane l + 4's, the upper halves at W = 8) to
 * the 16-byte groups at floats 8 and 12 of its state, for the lanes set in
 * `write` (velocity_lanes.h's store_lane_rows, for the pose). */
TS_FORCE_INLINE void store_pose_rows(ts_body_state *states, const int32_t offset[TS_W], int l, ts_wf dp, ts_wf dq,
                                     uint32_t write)
{
#if TS_W == 8
    if ((write >> l & 1u) != 0) {
        float *s = (float *)((char *)states + offset[l]) + 8;
        simde_mm_storeu_ps(s, simde_mm256_castps256_ps128(dp));
        simde_mm_storeu_ps(s + 4, simde_mm256_castps256_ps128(dq));
    }
    if ((write >> (l + 4) & 1u) != 0) {
        float *s = (float *)((char *)states + offset[l + 4]) + 8;
        simde_mm_storeu_ps(s, simde_mm256_extractf128_ps(dp, 1));
        simde_mm_storeu_ps(s + 4, simde_mm256_extractf128_ps(dq, 1));
    }
#else
    if ((write >> l & 1u) != 0) {
        float *s = (float *)((char *)states + offset[l]) + 8;
        simde_mm_storeu_ps(s, dp);
        simde_mm_storeu_ps(s + 4, dq);
    }
#endif
}

/* The velocities and pose of the dynamic lanes, to byte offsets. */
TS_FORCE_INLINE void scatter_state_at(ts_body_state *states, const int32_t offset[TS_W], const float inv_mass[TS_W],
                                      body_lanes b)
{
    scatter_velocities_at(states, offset, inv_mass, (velocity_lanes){b.v, b.w});
    ts_wf dp[4], dq[4];
    group_rows(b.dp, dp);
    column_rows(b.dq.x, b.dq.y, b.dq.z, b.dq.w, dq);
    uint32_t dynamic = ts_w_mask_bits(ts_w_gt(ts_w_load(inv_mass), ts_w_zero()));
    store_pose_rows(states, offset, 0, dp[0], dq[0], dynamic);
    store_pose_rows(states, offset, 1, dp[1], dq[1], dynamic);
    store_pose_rows(states, offset, 2, dp[2], dq[2], dynamic);
    store_pose_rows(states, offset, 3, dp[3], dq[3], dynamic);
}
#else
TS_FORCE_INLINE void scatter_state_at(ts_body_state *states, const int32_t offset[TS_W], const float inv_mass[TS_W],
                                      body_lanes b)
{
    int32_t slot[TS_W];
    for (int l = 0; l < TS_W; ++l) {
        slot[l] = offset[l] / (int32_t)sizeof(ts_body_state);
    }
    scatter(states, slot, inv_mass, b);
    scatter_position(states, slot, inv_mass, b);
}
#endif

/* Lanes whose joint carries more than TS_XPBD_LOADED_RATIO times the
 * weight of its two bodies (in a reference gravity of 10 m/s^2): the
 * impulse of the substep so far against (mA + mB) g0 h. A static or
 * sleeping side counts as infinitely heavy (inverse mass 0): such a joint
 * is never loaded in this sense. Only the lane's own numbers decide, so a
 * lane's bits do not depend on its bundle-mates. */
TS_FORCE_INLINE ts_wm loaded_lanes(const ts_xpbd_ball_context *c, const ts_ball_bundle *b)
{
    ts_wf ma = ts_w_load(b->inv_mass_a), mb = ts_w_load(b->inv_mass_b);
    ts_wv3 impulse = ts_wv3_load(b->impulse);
    /* |P| > N g0 h (1/mA + 1/mB), squared and multiplied out: |P| mA mB > N g0 h (mA + mB) */
    ts_wf weight = ts_w_mul(ts_w_splat(TS_XPBD_LOADED_RATIO * 10.0f * c->h), ts_w_add(ma, mb));
    ts_wf load = ts_w_mul(ts_w_mul(ma, mb), ts_w_sqrt(ts_wv3_dot(impulse, impulse)));
    return ts_w_and(ts_w_gt(load, weight), ts_w_gt(ts_w_mul(ma, mb), ts_w_zero()));
}

TS_FORCE_INLINE void warm_start(const ts_xpbd_ball_context *c, ts_ball_bundle *b, const ts_ball_cold *cold,
                                bool general)
{
    ts_wf h = ts_w_splat(c->h);
    ts_wf inv_h = ts_w_splat(c->inv_h);
    body_lanes sa = gather_state_at(c->states, b->state_a);
    body_lanes sb = gather_state_at(c->states, b->state_b);
    /* the arms now: the projections of later colours turned the bodies
     * since this joint's (with the arms that joint saw, a sphere hanging 1 m
     * below its anchor read a reaction 9% off after 2 s) */
    ts_wv3 ra = ts_wquat_rotate(sa.dq, ts_wv3_load(b->anchor_a));
    ts_wv3 rb = ts_wquat_rotate(sb.dq, ts_wv3_load(b->anchor_b));
    /* loaded lanes carry warm_scale of the multiplier, the others less (xpbd_ball.h) */
    ts_wf scale = ts_w_select(loaded_lanes(c, b), ts_w_splat(c->warm_scale),
                              ts_w_splat(c->warm_scale * TS_XPBD_LIGHT_WARM_SHARE));
    ts_wv3 impulse = ts_wv3_scale(scale, ts_wv3_load(b->impulse));
    ts_wv3_store(b->impulse, impulse);
    /* each body's turn over the substep, h I^-1 (r x P), shortened */
    ts_wv3 turn_a = ts_xpbd_clamp_turn(
        ts_wv3_scale(h, lane_angular(cold, general, b->iso_inertia_a, false, ts_wv3_cross(ra, impulse))));
    ts_wv3 turn_b = ts_xpbd_clamp_turn(
        ts_wv3_scale(h, lane_angular(cold, general, b->iso_inertia_b, true, ts_wv3_cross(rb, impulse))));
    velocity_lanes va = {ts_wv3_mul_sub(sa.v, ts_w_load(b->inv_mass_a), impulse), ts_wv3_sub(sa.w, ts_wv3_scale(inv_h, turn_a))};
    velocity_lanes vb = {ts_wv3_mul_add(sb.v, ts_w_load(b->inv_mass_b), impulse), ts_wv3_add(sb.w, ts_wv3_scale(inv_h, turn_b))};
    scatter_velocities_at(c->states, b->state_a, b->inv_mass_a, va);
    scatter_velocities_at(c->states, b->state_b, b->inv_mass_b, vb);
}

/* A lane whose correction turns a body by more than TS_XPBD_WARM_MAX_TURN
 * (xpbd_lanes.h) keeps no multiplier for the next warm start. */
TS_FORCE_INLINE ts_wm violent_lanes(ts_wv3 turn_a, ts_wv3 turn_b)
{
    ts_wf limit = ts_w_splat(TS_XPBD_WARM_MAX_TURN * TS_XPBD_WARM_MAX_TURN);
    return ts_w_or(ts_w_gt(ts_wv3_dot(turn_a, turn_a), limit), ts_w_gt(ts_wv3_dot(turn_b, turn_b), limit));
}

/* `masked` (a constant of each caller): only `lanes` change; else all. */
TS_FORCE_INLINE void project(const ts_xpbd_ball_context *c, ts_ball_bundle *b, const ts_ball_cold *cold, bool general,
                             bool masked, ts_wm lanes)
{
    ts_wf inv_h = ts_w_splat(c->inv_h);
    body_lanes sa = gather_state_at(c->states, b->state_a);
    body_lanes sb = gather_state_at(c->states, b->state_b);
    body_lanes before_a = sa, before_b = sb;
    ts_wv3 ra = ts_wquat_rotate(sa.dq, ts_wv3_load(b->anchor_a));
    ts_wv3 rb = ts_wquat_rotate(sb.dq, ts_wv3_load(b->anchor_b));
    ts_wv3 gap = ts_wv3_add(ts_wv3_add(ts_wv3_sub(sb.dp, sa.dp), ts_wv3_sub(rb, ra)), ts_wv3_load(b->delta_center));
    ts_wv3 correction = ts_wv3_neg(ts_wsym3_mul(lane_point_mass(b, cold, general, ra, rb), gap));
    ts_wf ma = ts_w_load(b->inv_mass_a), mb = ts_w_load(b->inv_mass_b);
    ts_wv3 turn_a = lane_angular(cold, general, b->iso_inertia_a, false, ts_wv3_cross(ra, correction));
    ts_wv3 turn_b = lane_angular(cold, general, b->iso_inertia_b, true, ts_wv3_cross(rb, correction));
    ts_wv3 old = ts_wv3_load(b->impulse);
    ts_wv3 impulse = ts_wv3_mul_add(old, inv_h, correction);
    ts_wf zero = ts_w_zero();
    impulse = ts_wv3_select(violent_lanes(turn_a, turn_b), (ts_wv3){zero, zero, zero}, impulse);
    ts_wv3_store(b->impulse, masked ? ts_wv3_select(lanes, impulse, old) : impulse);
    ts_xpbd_move(&sa, ts_wv3_scale(ts_w_neg(ma), correction), ts_wv3_neg(turn_a), inv_h);
    ts_xpbd_move(&sb, ts_wv3_scale(mb, correction), turn_b, inv_h);
    if (masked) { /* the lanes left out keep their bits */
        sa = select_lanes(lanes, sa, before_a);
        sb = select_lanes(lanes, sb, before_b);
    }
    scatter_state_at(c->states, b->state_a, b->inv_mass_a, sa);
    scatter_state_at(c->states, b->state_b, b->inv_mass_b, sb);
}

/* The second projection of a substep, on the loaded lanes alone; nothing
 * for a bundle without one. */
TS_FORCE_INLINE void project_loaded(const ts_xpbd_ball_context *c, ts_ball_bundle *b, const ts_ball_cold *cold,
                                    bool general)
{
    ts_wm lanes = loaded_lanes(c, b);
    if (ts_w_mask_bits(lanes) != 0) {
        project(c, b, cold, general, true, lanes);
    }
}

/* The general form of a kernel is a call of its own, as in ball_joint.c,
 * so that it does not share registers with the isotropic loop. */
#if defined(_MSC_VER) && !defined(__clang__)
#define XPBD_BALL_NOINLINE static __declspec(noinline)
#else
#define XPBD_BALL_NOINLINE static __attribute__((noinline))
#endif

XPBD_BALL_NOINLINE void general_warm_start(const ts_xpbd_ball_context *c, ts_ball_bundle *b)
{
    warm_start(c, b, TS_WIDE(ts_ball_cold_of)(c->scratch, b), true);
}

XPBD_BALL_NOINLINE void general_project(const ts_xpbd_ball_context *c, ts_ball_bundle *b, bool again)
{
    const ts_ball_cold *cold = TS_WIDE(ts_ball_cold_of)(c->scratch, b);
    if (again) {
        project_loaded(c, b, cold, true);
    } else {
        project(c, b, cold, true, false, ts_w_zero_mask());
    }
}

void TS_WIDE(ts_xpbd_ball_warm_start)(const ts_xpbd_ball_context *c, ts_ball_bundle *b, int32_t count)
{
    for (int32_t k = 0; k < count; ++k) {
        if (b[k].general) {
            general_warm_start(c, b + k);
        } else {
            warm_start(c, b + k, NULL, false);
        }
    }
}

void TS_WIDE(ts_xpbd_ball_project)(const ts_xpbd_ball_context *c, ts_ball_bundle *b, int32_t count, bool again)
{
    for (int32_t k = 0; k < count; ++k) {
        if (b[k].general) {
            general_project(c, b + k, again);
        } else if (again) {
            project_loaded(c, b + k, NULL, false);
        } else {
            project(c, b + k, NULL, false, false, ts_w_zero_mask());
        }
    }
}

#undef XPBD_BALL_NOINLINE
