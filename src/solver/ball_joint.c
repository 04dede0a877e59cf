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
#include "solver/ball_joint.h"

#include "solver/joint_prepare.h"
#include "solver/point_mass.h"
#include "solver/velocity_lanes.h"

#include <string.h>

ts_ball_bundle *TS_WIDE(ts_ball_bundles)(const ts_joint_scratch *scratch)
{
    uintptr_t p = (uintptr_t)scratch->ball_bundles;
    return (ts_ball_bundle *)((p + 63u) & ~(uintptr_t)63u);
}

ts_ball_cold *TS_WIDE(ts_ball_cold_of)(const ts_joint_scratch *scratch, const ts_ball_bundle *b)
{
    const ts_ball_bundle *first = TS_WIDE(ts_ball_bundles)(scratch);
    return (ts_ball_cold *)(first + scratch->ball_count) + (b - first);
}

int32_t TS_WIDE(ts_ball_bundle_bytes)(int32_t n)
{
    return n * (int32_t)(sizeof(ts_ball_bundle) + sizeof(ts_ball_cold)) + 64;
}

/* ---- isotropic and general lanes ---- */

/* K^-1 of an isotropic lane, inverse inertias ia 1 and ib 1: with
 * [r]x^T [r]x = |r|^2 1 - r r^T,
 *     K = (mA + mB + ia |rA|^2 + ib |rB|^2) 1 - ia rA rA^T - ib rB rB^T. */
TS_FORCE_INLINE ts_wsym3 iso_point_mass(ts_wf ma, ts_wf mb, ts_wf ia, ts_wf ib, ts_wv3 ra, ts_wv3 rb)
{
    ts_wv3 ua = ts_wv3_scale(ia, ra), ub = ts_wv3_scale(ib, rb);
    ts_wf s = ts_w_add(ts_w_add(ma, mb), ts_w_add(ts_wv3_dot(ua, ra), ts_wv3_dot(ub, rb)));
    ts_wsym3 k = {
        ts_w_sub(s, ts_w_add(ts_w_mul(ua.x, ra.x), ts_w_mul(ub.x, rb.x))),
        ts_w_sub(s, ts_w_add(ts_w_mul(ua.y, ra.y), ts_w_mul(ub.y, rb.y))),
        ts_w_sub(s, ts_w_add(ts_w_mul(ua.z, ra.z), ts_w_mul(ub.z, rb.z))),
        ts_w_neg(ts_w_add(ts_w_mul(ua.x, ra.y), ts_w_mul(ub.x, rb.y))),
        ts_w_neg(ts_w_add(ts_w_mul(ua.x, ra.z), ts_w_mul(ub.x, rb.z))),
        ts_w_neg(ts_w_add(ts_w_mul(ua.y, ra.z), ts_w_mul(ub.y, rb.z))),
    };
    return ts_wsym3_inverse(k);
}

TS_FORCE_INLINE ts_wm isotropic_lanes(const ts_ball_cold *cold) { return ts_w_gt(ts_w_load(cold->isotropic), ts_w_zero()); }

/* K^-1 of every lane at anchors ra, rb; `general` is a constant of the
 * caller (the bundle has a general lane; only then is `cold` read), so a
 * bundle of isotropic lanes compiles to the short form alone. */
TS_FORCE_INLINE ts_wsym3 lane_point_mass(const ts_ball_bundle *b, const ts_ball_cold *cold, bool general, ts_wv3 ra,
                                         ts_wv3 rb)
{
    ts_wf ma = ts_w_load(b->inv_mass_a), mb = ts_w_load(b->inv_mass_b);
    ts_wsym3 k = iso_point_mass(ma, mb, ts_w_load(b->iso_inertia_a), ts_w_load(b->iso_inertia_b), ra, rb);
    if (general) {
        ts_wsym3 g = ts_point_mass(ma, mb, ts_wsym3_load(cold->inv_inertia_a), ts_wsym3_load(cold->inv_inertia_b), ra, rb);
        ts_wm iso = isotropic_lanes(cold);
        k = (ts_wsym3){ts_w_select(iso, k.xx, g.xx), ts_w_select(iso, k.yy, g.yy), ts_w_select(iso, k.zz, g.zz),
                       ts_w_select(iso, k.xy, g.xy), ts_w_select(iso, k.xz, g.xz), ts_w_select(iso, k.yz, g.yz)};
    }
    return k;
}

/* The angular velocity change I^-1 L of one body of every lane. */
TS_FORCE_INLINE ts_wv3 lane_angular(const ts_ball_cold *cold, bool general, const float iso_row[TS_W], bool side_b,
                                    ts_wv3 l)
{
    ts_wv3 r = ts_wv3_scale(ts_w_load(iso_row), l);
    if (general) { /* cold is NULL otherwise: its rows are named only here */
        const float(*rows)[TS_W] = side_b ? cold->inv_inertia_b : cold->inv_inertia_a;
        r = ts_wv3_select(isotropic_lanes(cold), r, ts_wsym3_mul(ts_wsym3_load(rows), l));
    }
    return r;
}

/* ---- preparation ---- */

/* What a filled bundle keeps of one body of lane l: its state's offset, store
 * slot and mass (zero unless awake: a sleeping or static body does not move
 * here) and the joint anchor in its simulation frame (centre of mass,
 * principal axes), conj(principal) (p - centre) for the anchor p in the
 * body's origin frame. Returns whether its inverse inertia is a scalar
 * times the identity, the scalar in *iso. */
static bool fill_body(const ts_joint_prepare_context *c, int32_t body, ts_vec3 local, int l, int32_t *state,
                      int32_t *slot, float *inv_mass, float anchor[3][TS_W], float *iso)
{
    const ts_records *records = c->records;
    const ts_body_store *s = &records->store;
    int32_t i = s->table.slot_of_id[body];
    bool awake = i < c->awake;
    state[l] = (awake ? i : c->awake) * (int32_t)sizeof(ts_body_state);
    slot[l] = i;
    inv_mass[l] = awake ? s->inv_mass[i] : 0.0f;
    const ts_mass_data *md = &records->bodies[body].mass_data;
    ts_vec3 p = ts_sub(local, md->center);
    if (md->principal_rotation.w != 1.0f) { /* spheres and unrotated boxes skip a rotation */
        p = ts_inv_rotate(md->principal_rotation, p);
    }
    anchor[0][l] = p.x;
    anchor[1][l] = p.y;
    anchor[2][l] = p.z;
    *iso = awake ? s->inv_ix[i] : 0.0f;
    return !awake || (s->inv_ix[i] == s->inv_iy[i] && s->inv_iy[i] == s->inv_iz[i]);
}

static void fill_lanes(const ts_joint_prepare_context *c, ts_ball_bundle *b, ts_ball_cold *cold, const int32_t *ids,
                       int lanes)
{
    b->general = 0;
    for (int l = 0; l < TS_W; ++l) {
        if (l >= lanes) { /* empty: the dummy, zero masses and impulses */
            b->state_a[l] = b->state_b[l] = c->awake * (int32_t)sizeof(ts_body_state);
            cold->slot_a[l] = cold->slot_b[l] = -1;
            b->inv_mass_a[l] = b->inv_mass_b[l] = 0.0f;
            b->iso_inertia_a[l] = b->iso_inertia_b[l] = 0.0f;
            cold->isotropic[l] = 1.0f;
            for (int k = 0; k < 3; ++k) {
                cold->local_a[k][l] = cold->local_b[k][l] = 0.0f;
                b->impulse[k][l] = 0.0f;
            }
            continue;
        }
        const ts_joint *j = c->records->joints + ids[l];
        float iso_a, iso_b;
        bool iso = fill_body(c, j->edges[0].body, j->local_frame[0].p, l, b->state_a, cold->slot_a, b->inv_mass_a,
                             cold->local_a, &iso_a);
        iso &= fill_body(c, j->edges[1].body, j->local_frame[1].p, l, b->state_b, cold->slot_b, b->inv_mass_b,
                         cold->local_b, &iso_b);
        b->iso_inertia_a[l] = iso ? iso_a : 0.0f;
        b->iso_inertia_b[l] = iso ? iso_b : 0.0f;
        cold->isotropic[l] = iso ? 1.0f : 0.0f;
        b->general |= iso ? 0 : 1;
        ts_vec3 impulse = j->impulses.linear;
        b->impulse[0][l] = impulse.x;
        b->impulse[1][l] = impulse.y;
        b->impulse[2][l] = impulse.z;
    }
}

/* A general lane's world inverse inertia of one body (from
 * ts_states_begin) when awake; zeros otherwise and in isotropic lanes. */
TS_FORCE_INLINE void inertia_of(const ts_body_store *s, int32_t slot, bool use, int l, float inertia[6][TS_W])
{
    inertia[0][l] = use ? s->inv_iw_xx[slot] : 0.0f;
    inertia[1][l] = use ? s->inv_iw_yy[slot] : 0.0f;
    inertia[2][l] = use ? s->inv_iw_zz[slot] : 0.0f;
    inertia[3][l] = use ? s->inv_iw_xy[slot] : 0.0f;
    inertia[4][l] = use ? s->inv_iw_xz[slot] : 0.0f;
    inertia[5][l] = use ? s->inv_iw_yz[slot] : 0.0f;
}

/* One body of every lane at the step's start, from its store slots (an
 * empty lane reads slot 0: its anchor is zero, so its arm and gap come out
 * zero whatever the pose). */
typedef struct lane_pose {
    ts_wv3 center;
    ts_wquat rotation;
} lane_pose;

TS_FORCE_INLINE lane_pose pose_of(const ts_body_store *s, const int32_t slot[TS_W])
{
    int32_t index[TS_W];
    for (int l = 0; l < TS_W; ++l) {
        index[l] = slot[l] < 0 ? 0 : slot[l];
    }
    return (lane_pose){
        {ts_w_load_indexed(s->px, index), ts_w_load_indexed(s->py, index), ts_w_load_indexed(s->pz, index)},
        {ts_w_load_indexed(s->qx, index), ts_w_load_indexed(s->qy, index), ts_w_load_indexed(s->qz, index),
         ts_w_load_indexed(s->qw, index)},
    };
}

/* `mass`: also evaluate K^-1 at the step's start. An isotropic bundle kept
 * from the previous step skips it: its last relax evaluated K^-1 at the
 * pose the step ended with, which is this step's start (the stored pose is
 * that one, normalised), and K of isotropic lanes depends on nothing else
 * (the anchors, masses and scalar inertias are the bundle's own). A general
 * lane's K also depends on the world inertia at the step's start. */
TS_FORCE_INLINE void prepare_pose(const ts_joint_prepare_context *c, ts_ball_bundle *b, ts_ball_cold *cold,
                                  bool general, bool mass)
{
    const ts_body_store *s = &c->records->store;
    if (general) {
        for (int l = 0; l < TS_W; ++l) {
            bool lane_general = cold->isotropic[l] == 0.0f;
            int32_t slot_a = cold->slot_a[l], slot_b = cold->slot_b[l];
            inertia_of(s, slot_a, lane_general && slot_a >= 0 && slot_a < c->awake, l, cold->inv_inertia_a);
            inertia_of(s, slot_b, lane_general && slot_b >= 0 && slot_b < c->awake, l, cold->inv_inertia_b);
        }
    }
    /* every lane at once: the anchors in the world, the gap, K^-1 */
    lane_pose pa = pose_of(s, cold->slot_a), pb = pose_of(s, cold->slot_b);
    ts_wv3 ra = ts_wquat_rotate(pa.rotation, ts_wv3_load(cold->local_a));
    ts_wv3 rb = ts_wquat_rotate(pb.rotation, ts_wv3_load(cold->local_b));
    ts_wv3 delta_center = ts_wv3_sub(pb.center, pa.center);
    ts_wv3_store(b->anchor_a, ra);
    ts_wv3_store(b->anchor_b, rb);
    ts_wv3_store(b->delta_center, delta_center);
    ts_wv3_store(b->arm_a, ra);
    ts_wv3_store(b->arm_b, rb);
    ts_wv3_store(b->gap, ts_wv3_add(ts_wv3_sub(rb, ra), delta_center));
    if (mass) {
        ts_wsym3_store(b->point_mass, lane_point_mass(b, cold, general, ra, rb));
    }
}

/* After a snapshot's load (joint_scratch.h: ball_kept): puts each lane's
 * kept pose and impulse back; true when every lane had them, so that the
 * bundle goes on as the saved world's kept one would have. */
static bool restore_lanes(const ts_joint_prepare_context *c, ts_ball_bundle *b, const int32_t *ids, int lanes)
{
    const ts_joint_scratch *s = c->scratch;
    for (int l = 0; l < lanes; ++l) {
        if (ids[l] >= s->ball_kept_count || s->ball_kept[(size_t)ids[l] * TS_BALL_KEPT] != 1.0f) {
            return false;
        }
    }
    float(*rows[])[TS_W] = {b->arm_a, b->arm_b, b->gap, b->point_mass, b->impulse, b->anchor_a, b->anchor_b,
                            b->delta_center};
    const int counts[] = {3, 3, 3, 6, 3, 3, 3, 3};
    for (int l = 0; l < lanes; ++l) {
        const float *kept = s->ball_kept + (size_t)ids[l] * TS_BALL_KEPT + 1;
        for (int g = 0; g < 8; ++g) {
            for (int k = 0; k < counts[g]; ++k) {
                rows[g][k][l] = *kept++;
            }
        }
    }
    return true;
}

void TS_WIDE(ts_ball_prepare)(const ts_joint_prepare_context *c, ts_ball_bundle *b, const int32_t *ids, int lanes)
{
    ts_ball_cold *cold = TS_WIDE(ts_ball_cold_of)(c->scratch, b);
    bool fill = c->ball_fill;
    if (fill) {
        fill_lanes(c, b, cold, ids, lanes);
        fill = c->scratch->ball_kept == NULL || !restore_lanes(c, b, ids, lanes);
    }
    if (!c->warm_start) {
        memset(b->impulse, 0, sizeof b->impulse);
    }
    if (b->general) {
        prepare_pose(c, b, cold, true, true);
    } else if (fill || c->ball_refresh) {
        prepare_pose(c, b, cold, false, true);
    } /* else the pose and K^-1 the last relax kept */
}

void TS_WIDE(ts_ball_export_kept)(const ts_joint_scratch *s, float *kept)
{
    const ts_ball_bundle *balls = TS_WIDE(ts_ball_bundles)(s);
    for (int32_t k = 0; k < s->color_begin[TS_OVERFLOW_COLOR + 1]; ++k) {
        ts_joint_bundle_ref ref = s->refs[k];
        if (ref.type != TS_JOINT_BALL) {
            continue;
        }
        const ts_ball_bundle *b = balls + ref.slot;
        const float(*rows[])[TS_W] = {b->arm_a, b->arm_b, b->gap, b->point_mass, b->impulse, b->anchor_a,
                                      b->anchor_b, b->delta_center};
        const int counts[] = {3, 3, 3, 6, 3, 3, 3, 3};
        for (int l = 0; l < ref.lanes; ++l) {
            float *out = kept + (size_t)s->sorted[ref.first + l] * TS_BALL_KEPT;
            *out++ = 1.0f;
            for (int g = 0; g < 8; ++g) {
                for (int r = 0; r < counts[g]; ++r) {
                    *out++ = rows[g][r][l];
                }
            }
        }
    }
}

/* ---- kernels ---- */

/* Impulse P at anchors rA, rB: A gets -P, B gets +P. */
TS_FORCE_INLINE void apply_impulse(const ts_ball_bundle *b, const ts_ball_cold *cold, bool general,
                                   velocity_lanes *va, velocity_lanes *vb, ts_wv3 impulse, ts_wv3 ra, ts_wv3 rb)
{
    va->v = ts_wv3_mul_sub(va->v, ts_w_load(b->inv_mass_a), impulse);
    va->w = ts_wv3_sub(va->w, lane_angular(cold, general, b->iso_inertia_a, false, ts_wv3_cross(ra, impulse)));
    vb->v = ts_wv3_mul_add(vb->v, ts_w_load(b->inv_mass_b), impulse);
    vb->w = ts_wv3_add(vb->w, lane_angular(cold, general, b->iso_inertia_b, true, ts_wv3_cross(rb, impulse)));
}

/* Velocity of B's anchor relative to A's: vB + wB x rB - vA - wA x rA. */
TS_FORCE_INLINE ts_wv3 relative_velocity(const velocity_lanes *va, const velocity_lanes *vb, ts_wv3 ra, ts_wv3 rb)
{
    ts_wv3 pb = ts_wv3_add(vb->v, ts_wv3_cross(vb->w, rb));
    ts_wv3 pa = ts_wv3_add(va->v, ts_wv3_cross(va->w, ra));
    return ts_wv3_sub(pb, pa);
}

/* One body at a time: a colour's lanes touch different bodies, so A's
 * update does not read B's, and only one body's velocities are live (with
 * both, they spilled to the stack). */
TS_FORCE_INLINE void ball_warm_start(const ts_joint_solver_context *c, ts_ball_bundle *b, const ts_ball_cold *cold,
                                     bool general)
{
    ts_wv3 impulse = ts_wv3_load(b->impulse);
    velocity_lanes va = gather_velocities_at(c->states, b->state_a);
    va.v = ts_wv3_mul_sub(va.v, ts_w_load(b->inv_mass_a), impulse);
    va.w = ts_wv3_sub(va.w, lane_angular(cold, general, b->iso_inertia_a, false,
                                         ts_wv3_cross(ts_wv3_load(b->arm_a), impulse)));
    scatter_velocities_at(c->states, b->state_a, b->inv_mass_a, va);
    velocity_lanes vb = gather_velocities_at(c->states, b->state_b);
    vb.v = ts_wv3_mul_add(vb.v, ts_w_load(b->inv_mass_b), impulse);
    vb.w = ts_wv3_add(vb.w, lane_angular(cold, general, b->iso_inertia_b, true,
                                         ts_wv3_cross(ts_wv3_load(b->arm_b), impulse)));
    scatter_velocities_at(c->states, b->state_b, b->inv_mass_b, vb);
}

TS_FORCE_INLINE void ball_solve(const ts_joint_solver_context *c, ts_ball_bundle *b, const ts_ball_cold *cold,
                                bool general)
{
    velocity_lanes va = gather_velocities_at(c->states, b->state_a);
    velocity_lanes vb = gather_velocities_at(c->states, b->state_b);
    ts_wv3 ra = ts_wv3_load(b->arm_a), rb = ts_wv3_load(b->arm_b);
    ts_wv3 cdot = relative_velocity(&va, &vb, ra, rb);
    ts_wv3 rhs = ts_wv3_scale(ts_w_splat(c->mass_scale), ts_wv3_mul_add(cdot, ts_w_splat(c->bias_rate), ts_wv3_load(b->gap)));
    ts_wv3 old = ts_wv3_load(b->impulse);
    ts_wv3 delta = ts_wv3_mul_sub(ts_wv3_neg(ts_wsym3_mul(ts_wsym3_load(b->point_mass), rhs)),
                                  ts_w_splat(c->impulse_scale), old);
    ts_wv3_store(b->impulse, ts_wv3_add(old, delta));
    apply_impulse(b, cold, general, &va, &vb, delta, ra, rb);
    scatter_velocities_at(c->states, b->state_a, b->inv_mass_a, va);
    scatter_velocities_at(c->states, b->state_b, b->inv_mass_b, vb);
}

TS_FORCE_INLINE void ball_relax(const ts_joint_solver_context *c, ts_ball_bundle *b, const ts_ball_cold *cold,
                                bool general)
{
    body_lanes sa = gather_state_at(c->states, b->state_a);
    body_lanes sb = gather_state_at(c->states, b->state_b);
    ts_wv3 ra = ts_wquat_rotate(sa.dq, ts_wv3_load(b->anchor_a));
    ts_wv3 rb = ts_wquat_rotate(sb.dq, ts_wv3_load(b->anchor_b));
    ts_wv3_store(b->arm_a, ra);
    ts_wv3_store(b->arm_b, rb);
    ts_wv3 moved = ts_wv3_sub(sb.dp, sa.dp);
    ts_wv3 delta_center = ts_wv3_load(b->delta_center);
    ts_wv3_store(b->gap, ts_wv3_add(ts_wv3_add(moved, ts_wv3_sub(rb, ra)), delta_center));
    if (c->last_relax) { /* this pose is the next step's start (ball_joint.h) */
        ts_wv3_store(b->anchor_a, ra);
        ts_wv3_store(b->anchor_b, rb);
        ts_wv3_store(b->delta_center, ts_wv3_add(delta_center, moved));
    }
    ts_wsym3 mass = lane_point_mass(b, cold, general, ra, rb);
    ts_wsym3_store(b->point_mass, mass);
    velocity_lanes va = {sa.v, sa.w}, vb = {sb.v, sb.w};
    ts_wv3 delta = ts_wv3_neg(ts_wsym3_mul(mass, relative_velocity(&va, &vb, ra, rb)));
    ts_wv3_store(b->impulse, ts_wv3_add(ts_wv3_load(b->impulse), delta));
    apply_impulse(b, cold, general, &va, &vb, delta, ra, rb);
    scatter_velocities_at(c->states, b->state_a, b->inv_mass_a, va);
    scatter_velocities_at(c->states, b->state_b, b->inv_mass_b, vb);
}

/* Each pass runs the isotropic form of a bundle unless it has a general
 * lane; the general form is a call of its own, so that it does not share
 * registers with the isotropic loop. */
#if defined(_MSC_VER) && !defined(__clang__)
#define BALL_NOINLINE static __declspec(noinline)
#else
#define BALL_NOINLINE static __attribute__((noinline))
#endif

#define GENERAL_KERNEL(kernel)                                                                                   \
    BALL_NOINLINE void general_##kernel(const ts_joint_solver_context *c, ts_ball_bundle *b)                     \
    {                                                                                                            \
        ball_##kernel(c, b, TS_WIDE(ts_ball_cold_of)(c->scratch, b), true);                                      \
    }
GENERAL_KERNEL(warm_start)
GENERAL_KERNEL(solve)
GENERAL_KERNEL(relax)
#undef GENERAL_KERNEL

#define BALL_PASS(kernel)                                                                                        \
    for (int32_t k = 0; k < count; ++k) {                                                                        \
        if (b[k].general) {                                                                                      \
            general_##kernel(c, b + k);                                                                          \
        } else {                                                                                                 \
            ball_##kernel(c, b + k, NULL, false);                                                                \
        }                                                                                                        \
    }

void TS_WIDE(ts_ball_warm_start)(const ts_joint_solver_context *c, ts_ball_bundle *b, int32_t count)
{
    BALL_PASS(warm_start)
}

void TS_WIDE(ts_ball_solve)(const ts_joint_solver_context *c, ts_ball_bundle *b, int32_t count)
{
    BALL_PASS(solve)
}

void TS_WIDE(ts_ball_relax)(const ts_joint_solver_context *c, ts_ball_bundle *b, int32_t count)
{
    BALL_PASS(relax)
}

#undef BALL_PASS
#undef BALL_NOINLINE

/* ---- after the substeps ---- */

void TS_WIDE(ts_ball_store_impulses)(ts_records *records, const ts_ball_bundle *b, const int32_t *ids, int lanes,
                                     float inv_h)
{
    for (int l = 0; l < lanes; ++l) {
        ts_joint *j = records->joints + ids[l];
        ts_vec3 impulse = ts_v3(b->impulse[0][l], b->impulse[1][l], b->impulse[2][l]);
        j->impulses.linear = impulse;
        j->reaction_force = ts_scale(inv_h, impulse);
    }
}
