/* Ball joints: their bundles' preparation and kernels (see ball_joint.h).
 *
 * A ball joint is the point constraint of joint_solver.c alone: for the gap
 * C = (cB + rB) - (cA + rA) between the frame origins and its rate
 * Cdot = vB + wB x rB - vA - wA x rA, one update is
 *     dλ = -M (mass_scale (Cdot + bias_rate C)) - impulse_scale λ
 * with M = K^-1 (point_mass.h), the world's joint softness in the solve
 * pass and none in the relax pass (mass_scale 1, impulse_scale 0, no bias).
 *
 * Per substep the passes read:
 *   warm start  velocities; the pose kept by the last relax (or prepare)
 *   solve       velocities; the same pose (no body moved since)
 *   relax       velocities and dp, dq: it turns the anchors, measures the
 *               gap and K at the moved pose, uses them and keeps them.
 * K is evaluated at every substep's anchors because light bodies on a heavy
 * one turn far within a step, and a mass from the step's start then
 * overshoots (a 1000:1 ball and chain blew up with it). */
#include "ball_joint.h"

#include "../body.h"
#include "../joint.h"
#include "../world.h"
#include "joint_prepare.h"
#include "pair_lanes.h"
#include "point_mass.h"
#include "velocity_lanes.h"

#include <string.h>

ts_ball_bundle *TS_WIDE(ts_ball_bundles)(const ts_joint_scratch *scratch)
{
    uintptr_t p = (uintptr_t)scratch->ball_bundles;
    return (ts_ball_bundle *)((p + 63u) & ~(uintptr_t)63u);
}

int32_t TS_WIDE(ts_ball_bundle_bytes)(int32_t n) { return n * (int32_t)sizeof(ts_ball_bundle) + 64; }

/* ---- preparation ---- */

/* What each lane reads from its bodies, row by row, before the derivation
 * runs on all lanes at once (empty lanes: zeros and the identity rotation). */
typedef struct ball_lane_rows {
    float center_a[3][TS_W], center_b[3][TS_W];
    float rotation_a[4][TS_W], rotation_b[4][TS_W];
} ball_lane_rows;

/* What a filled bundle keeps of one body of lane l: its state index, store
 * slot and mass (zero unless awake: a sleeping or static body does not move
 * here) and the joint anchor in its simulation frame (centre of mass,
 * principal axes), conj(principal) (p - centre) for the anchor p in the
 * body's origin frame. */
static void fill_body(const ts_joint_prepare_context *c, int32_t body, ts_vec3 local, int l, int32_t *state,
                      int32_t *slot, float *inv_mass, float anchor[3][TS_W])
{
    const ts_world *world = c->world;
    const ts_body_store *s = &world->store;
    int32_t i = s->table.slot_of_id[body];
    bool awake = i < c->awake;
    state[l] = awake ? i : c->awake;
    slot[l] = i;
    inv_mass[l] = awake ? s->inv_mass[i] : 0.0f;
    const ts_mass_data *md = &world->bodies[body].mass_data;
    ts_vec3 p = ts_sub(local, md->center);
    if (md->principal_rotation.w != 1.0f) { /* spheres and unrotated boxes skip a rotation */
        p = ts_inv_rotate(md->principal_rotation, p);
    }
    anchor[0][l] = p.x;
    anchor[1][l] = p.y;
    anchor[2][l] = p.z;
}

static void fill_lanes(const ts_joint_prepare_context *c, ts_ball_bundle *b, const int32_t *ids, int lanes)
{
    for (int l = 0; l < TS_W; ++l) {
        if (l >= lanes) { /* empty: the dummy, zero masses and impulses */
            b->body_a[l] = b->body_b[l] = c->awake;
            b->slot_a[l] = b->slot_b[l] = -1;
            b->inv_mass_a[l] = b->inv_mass_b[l] = 0.0f;
            for (int k = 0; k < 3; ++k) {
                b->local_a[k][l] = b->local_b[k][l] = 0.0f;
                b->impulse[k][l] = 0.0f;
            }
            continue;
        }
        const ts_joint *j = c->world->joints + ids[l];
        fill_body(c, j->edges[0].body, j->local_frame[0].p, l, b->body_a, b->slot_a, b->inv_mass_a, b->local_a);
        fill_body(c, j->edges[1].body, j->local_frame[1].p, l, b->body_b, b->slot_b, b->inv_mass_b, b->local_b);
        ts_vec3 impulse = j->impulses.linear;
        b->impulse[0][l] = impulse.x;
        b->impulse[1][l] = impulse.y;
        b->impulse[2][l] = impulse.z;
    }
}

/* One body's pose at the step's start and, when awake, its world inverse
 * inertia (from ts_states_begin), from its store slot. */
TS_FORCE_INLINE void pose_of(const ts_body_store *s, int32_t slot, bool awake, int l, float center[3][TS_W],
                             float rotation[4][TS_W], float inertia[6][TS_W])
{
    if (slot < 0) {
        for (int k = 0; k < 3; ++k) {
            center[k][l] = 0.0f;
        }
        rotation[0][l] = rotation[1][l] = rotation[2][l] = 0.0f;
        rotation[3][l] = 1.0f;
        for (int k = 0; k < 6; ++k) {
            inertia[k][l] = 0.0f;
        }
        return;
    }
    center[0][l] = s->px[slot];
    center[1][l] = s->py[slot];
    center[2][l] = s->pz[slot];
    rotation[0][l] = s->qx[slot];
    rotation[1][l] = s->qy[slot];
    rotation[2][l] = s->qz[slot];
    rotation[3][l] = s->qw[slot];
    inertia[0][l] = awake ? s->inv_iw_xx[slot] : 0.0f;
    inertia[1][l] = awake ? s->inv_iw_yy[slot] : 0.0f;
    inertia[2][l] = awake ? s->inv_iw_zz[slot] : 0.0f;
    inertia[3][l] = awake ? s->inv_iw_xy[slot] : 0.0f;
    inertia[4][l] = awake ? s->inv_iw_xz[slot] : 0.0f;
    inertia[5][l] = awake ? s->inv_iw_yz[slot] : 0.0f;
}

void TS_WIDE(ts_ball_prepare)(const ts_joint_prepare_context *c, ts_ball_bundle *b, const int32_t *ids, int lanes)
{
    if (c->ball_fill) {
        fill_lanes(c, b, ids, lanes);
    }
    if (!c->warm_start) {
        memset(b->impulse, 0, sizeof b->impulse);
    }
    const ts_body_store *s = &c->world->store;
    ball_lane_rows r;
    for (int l = 0; l < TS_W; ++l) {
        pose_of(s, b->slot_a[l], b->body_a[l] != c->awake, l, r.center_a, r.rotation_a, b->inv_inertia_a);
        pose_of(s, b->slot_b[l], b->body_b[l] != c->awake, l, r.center_b, r.rotation_b, b->inv_inertia_b);
    }
    /* every lane at once: the anchors in the world, the gap, K^-1 */
    ts_wv3 ra = ts_wquat_rotate(ts_wquat_load(r.rotation_a), ts_wv3_load(b->local_a));
    ts_wv3 rb = ts_wquat_rotate(ts_wquat_load(r.rotation_b), ts_wv3_load(b->local_b));
    ts_wv3 delta_center = ts_wv3_sub(ts_wv3_load(r.center_b), ts_wv3_load(r.center_a));
    ts_wv3_store(b->anchor_a, ra);
    ts_wv3_store(b->anchor_b, rb);
    ts_wv3_store(b->delta_center, delta_center);
    ts_wv3_store(b->arm_a, ra);
    ts_wv3_store(b->arm_b, rb);
    ts_wv3_store(b->gap, ts_wv3_add(ts_wv3_sub(rb, ra), delta_center));
    ts_wsym3_store(b->point_mass,
                   ts_point_mass(ts_w_load(b->inv_mass_a), ts_w_load(b->inv_mass_b), ts_wsym3_load(b->inv_inertia_a),
                                 ts_wsym3_load(b->inv_inertia_b), ra, rb));
}

/* ---- kernels ---- */

/* The two bodies' velocities in the pair form of pair_lanes.h (dp and dq
 * are not read by the helpers used here). */
TS_FORCE_INLINE pair_lanes load_velocities(const ts_joint_solver_context *c, const ts_ball_bundle *b)
{
    velocity_lanes a = gather_velocities(c->states, b->body_a);
    velocity_lanes bb = gather_velocities(c->states, b->body_b);
    ts_wf zero = ts_w_zero();
    ts_wv3 none = {zero, zero, zero};
    ts_wquat identity = {zero, zero, zero, ts_w_splat(1.0f)};
    return (pair_lanes){{a.v, a.w, none, identity},
                        {bb.v, bb.w, none, identity},
                        ts_w_load(b->inv_mass_a),
                        ts_w_load(b->inv_mass_b),
                        ts_wsym3_load(b->inv_inertia_a),
                        ts_wsym3_load(b->inv_inertia_b)};
}

TS_FORCE_INLINE void store_velocities(const ts_joint_solver_context *c, const ts_ball_bundle *b, const pair_lanes *p)
{
    scatter_velocities(c->states, b->body_a, b->inv_mass_a, (velocity_lanes){p->a.v, p->a.w});
    scatter_velocities(c->states, b->body_b, b->inv_mass_b, (velocity_lanes){p->b.v, p->b.w});
}

TS_FORCE_INLINE void ball_warm_start(const ts_joint_solver_context *c, ts_ball_bundle *b)
{
    pair_lanes p = load_velocities(c, b);
    ts_pair_apply_impulse(&p, ts_wv3_load(b->impulse), ts_wv3_load(b->arm_a), ts_wv3_load(b->arm_b));
    store_velocities(c, b, &p);
}

TS_FORCE_INLINE void ball_solve(const ts_joint_solver_context *c, ts_ball_bundle *b)
{
    pair_lanes p = load_velocities(c, b);
    ts_wv3 ra = ts_wv3_load(b->arm_a), rb = ts_wv3_load(b->arm_b);
    ts_wv3 cdot = ts_pair_relative_velocity(&p, ra, rb);
    ts_wv3 rhs = ts_wv3_scale(ts_w_splat(c->mass_scale), ts_wv3_mul_add(cdot, ts_w_splat(c->bias_rate), ts_wv3_load(b->gap)));
    ts_wv3 old = ts_wv3_load(b->impulse);
    ts_wv3 delta = ts_wv3_mul_sub(ts_wv3_scale(ts_w_splat(-1.0f), ts_wsym3_mul(ts_wsym3_load(b->point_mass), rhs)),
                                  ts_w_splat(c->impulse_scale), old);
    ts_wv3_store(b->impulse, ts_wv3_add(old, delta));
    ts_pair_apply_impulse(&p, delta, ra, rb);
    store_velocities(c, b, &p);
}

TS_FORCE_INLINE void ball_relax(const ts_joint_solver_context *c, ts_ball_bundle *b)
{
    pair_lanes p = {gather_state(c->states, b->body_a),     gather_state(c->states, b->body_b),
                    ts_w_load(b->inv_mass_a),              ts_w_load(b->inv_mass_b),
                    ts_wsym3_load(b->inv_inertia_a),       ts_wsym3_load(b->inv_inertia_b)};
    ts_wv3 ra = ts_wquat_rotate(p.a.dq, ts_wv3_load(b->anchor_a));
    ts_wv3 rb = ts_wquat_rotate(p.b.dq, ts_wv3_load(b->anchor_b));
    ts_wv3 gap = ts_wv3_add(ts_wv3_add(ts_wv3_sub(p.b.dp, p.a.dp), ts_wv3_sub(rb, ra)), ts_wv3_load(b->delta_center));
    ts_wsym3 mass = ts_point_mass(p.inv_mass_a, p.inv_mass_b, p.inv_inertia_a, p.inv_inertia_b, ra, rb);
    ts_wv3 cdot = ts_pair_relative_velocity(&p, ra, rb);
    ts_wv3 old = ts_wv3_load(b->impulse);
    ts_wv3 delta = ts_wv3_scale(ts_w_splat(-1.0f), ts_wsym3_mul(mass, cdot));
    ts_wv3_store(b->impulse, ts_wv3_add(old, delta));
    ts_pair_apply_impulse(&p, delta, ra, rb);
    store_velocities(c, b, &p);
    ts_wv3_store(b->arm_a, ra);
    ts_wv3_store(b->arm_b, rb);
    ts_wv3_store(b->gap, gap);
    ts_wsym3_store(b->point_mass, mass);
}

void TS_WIDE(ts_ball_warm_start)(const ts_joint_solver_context *c, ts_ball_bundle *b, int32_t count)
{
    for (int32_t k = 0; k < count; ++k) {
        ball_warm_start(c, b + k);
    }
}

void TS_WIDE(ts_ball_solve)(const ts_joint_solver_context *c, ts_ball_bundle *b, int32_t count)
{
    for (int32_t k = 0; k < count; ++k) {
        ball_solve(c, b + k);
    }
}

void TS_WIDE(ts_ball_relax)(const ts_joint_solver_context *c, ts_ball_bundle *b, int32_t count)
{
    for (int32_t k = 0; k < count; ++k) {
        ball_relax(c, b + k);
    }
}

/* ---- after the substeps ---- */

void TS_WIDE(ts_ball_store_impulses)(ts_world *world, const ts_ball_bundle *b, const int32_t *ids, int lanes,
                                     float inv_h)
{
    for (int l = 0; l < lanes; ++l) {
        ts_joint *j = world->joints + ids[l];
        ts_vec3 impulse = ts_v3(b->impulse[0][l], b->impulse[1][l], b->impulse[2][l]);
        j->impulses.linear = impulse;
        j->reaction_force = ts_scale(inv_h, impulse);
    }
}
