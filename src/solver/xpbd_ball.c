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
 * than TS_XPBD_WARM_MAX_TURN keeps no multiplier (xpbd_lanes.h). */
#include "solver/xpbd_ball.h"

#include "solver/ball_lanes.h"
#include "solver/velocity_lanes.h"
#include "solver/xpbd_lanes.h"

/* Slots from the bundle's byte offsets (sizeof(ts_body_state) is 64). */
TS_FORCE_INLINE void slots_of(const int32_t offset[TS_W], int32_t slot[TS_W])
{
    for (int l = 0; l < TS_W; ++l) {
        slot[l] = offset[l] / (int32_t)sizeof(ts_body_state);
    }
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
    ts_wv3 impulse = ts_wv3_scale(ts_w_splat(c->warm_scale), ts_wv3_load(b->impulse));
    ts_wv3_store(b->impulse, impulse);
    /* each body's turn over the substep, h I^-1 (r x P), shortened */
    ts_wv3 turn_a = ts_xpbd_clamp_turn(
        ts_wv3_scale(h, lane_angular(cold, general, b->iso_inertia_a, cold->inv_inertia_a, ts_wv3_cross(ra, impulse))));
    ts_wv3 turn_b = ts_xpbd_clamp_turn(
        ts_wv3_scale(h, lane_angular(cold, general, b->iso_inertia_b, cold->inv_inertia_b, ts_wv3_cross(rb, impulse))));
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

TS_FORCE_INLINE void project(const ts_xpbd_ball_context *c, ts_ball_bundle *b, const ts_ball_cold *cold, bool general)
{
    ts_wf inv_h = ts_w_splat(c->inv_h);
    body_lanes sa = gather_state_at(c->states, b->state_a);
    body_lanes sb = gather_state_at(c->states, b->state_b);
    ts_wv3 ra = ts_wquat_rotate(sa.dq, ts_wv3_load(b->anchor_a));
    ts_wv3 rb = ts_wquat_rotate(sb.dq, ts_wv3_load(b->anchor_b));
    ts_wv3 gap = ts_wv3_add(ts_wv3_add(ts_wv3_sub(sb.dp, sa.dp), ts_wv3_sub(rb, ra)), ts_wv3_load(b->delta_center));
    ts_wv3 correction = ts_wv3_neg(ts_wsym3_mul(lane_point_mass(b, cold, general, ra, rb), gap));
    ts_wf ma = ts_w_load(b->inv_mass_a), mb = ts_w_load(b->inv_mass_b);
    ts_wv3 turn_a = lane_angular(cold, general, b->iso_inertia_a, cold->inv_inertia_a, ts_wv3_cross(ra, correction));
    ts_wv3 turn_b = lane_angular(cold, general, b->iso_inertia_b, cold->inv_inertia_b, ts_wv3_cross(rb, correction));
    ts_wv3 impulse = ts_wv3_mul_add(ts_wv3_load(b->impulse), inv_h, correction);
    ts_wf zero = ts_w_zero();
    ts_wv3_store(b->impulse, ts_wv3_select(violent_lanes(turn_a, turn_b), (ts_wv3){zero, zero, zero}, impulse));
    ts_xpbd_move(&sa, ts_wv3_scale(ts_w_neg(ma), correction), ts_wv3_neg(turn_a), inv_h);
    ts_xpbd_move(&sb, ts_wv3_scale(mb, correction), turn_b, inv_h);
    int32_t slot_a[TS_W], slot_b[TS_W];
    slots_of(b->state_a, slot_a);
    slots_of(b->state_b, slot_b);
    scatter(c->states, slot_a, b->inv_mass_a, sa);
    scatter_position(c->states, slot_a, b->inv_mass_a, sa);
    scatter(c->states, slot_b, b->inv_mass_b, sb);
    scatter_position(c->states, slot_b, b->inv_mass_b, sb);
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

XPBD_BALL_NOINLINE void general_project(const ts_xpbd_ball_context *c, ts_ball_bundle *b)
{
    project(c, b, TS_WIDE(ts_ball_cold_of)(c->scratch, b), true);
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

void TS_WIDE(ts_xpbd_ball_project)(const ts_xpbd_ball_context *c, ts_ball_bundle *b, int32_t count)
{
    for (int32_t k = 0; k < count; ++k) {
        if (b[k].general) {
            general_project(c, b + k);
        } else {
            project(c, b + k, NULL, false);
        }
    }
}

#undef XPBD_BALL_NOINLINE
