/* Preparing XPBD's joint bundles of a step and storing their reactions
 * after it (see xpbd_joint.h), compiled once per width TS_W. The bundles
 * follow the soft step's layout of the awake joints (ts_joint_solver_begin:
 * each colour's joints sorted by type, TS_W to a bundle, one in the
 * overflow); each lane gets its bodies, masses and world inverse inertias,
 * the frames at the step's start (records, relative to the centres of mass),
 * and the coefficients of its free coordinate. */
#include "solver/xpbd_joint.h"

#include "base/array.h"
#include "base/math3.h"
#include "solver/joint_prepare.h"
#include "solver/solver.h"

#include <stddef.h>
#include <string.h>

/* A limit that is off: never reached. */
#define TS_XPBD_NO_LIMIT 1.0e6f

bool TS_WIDE(ts_xpbd_joint_begin)(ts_solver *solver, ts_records *records, const ts_constraint_graph *graph)
{
    if (!TS_WIDE(ts_joint_solver_begin)(&solver->joint_scratch, records, graph)) {
        return false;
    }
    ts_solver_scratch *s = &solver->scratch;
    int32_t bundles = solver->joint_scratch.color_begin[TS_OVERFLOW_COLOR + 1];
    return ts_array_reserve(&records->allocator, &s->xpbd_joint_bundles, &s->xpbd_joint_bundle_bytes,
                            bundles * (int32_t)sizeof(ts_xpbd_joint_bundle), 1);
}

/* ---- one lane ---- */

typedef struct lane_body {
    int32_t state; /* the dummy unless awake */
    float inv_mass;
    float inv_inertia[6]; /* world: xx yy zz xy xz yz */
    ts_transform pose;    /* the simulation frame: centre of mass, principal axes */
} lane_body;

static lane_body lane_body_of(const ts_xpbd_joint_context *c, int32_t body)
{
    const ts_body_store *s = &c->records->store;
    int32_t i = s->table.slot_of_id[body];
    lane_body b = {c->awake, 0.0f, {0}, {{s->px[i], s->py[i], s->pz[i]}, {s->qx[i], s->qy[i], s->qz[i], s->qw[i]}}};
    if (i < c->awake) { /* world inverse inertia of this step (ts_states_begin) */
        b.state = i;
        b.inv_mass = s->inv_mass[i];
        float inertia[6] = {s->inv_iw_xx[i], s->inv_iw_yy[i], s->inv_iw_zz[i],
                            s->inv_iw_xy[i], s->inv_iw_xz[i], s->inv_iw_yz[i]};
        memcpy(b.inv_inertia, inertia, sizeof inertia);
    }
    return b;
}

/* A joint frame given in the body's origin frame, in the world: the
 * simulation frame is origin * (centre, principal rotation), so the frame is
 * sim * (conj(principal) (p - centre), conj(principal) q). */
static ts_transform frame_in_world(const ts_records *records, int32_t body, const lane_body *b, ts_transform local)
{
    const ts_mass_data *md = &records->bodies[body].mass_data;
    ts_quat to_sim = ts_quat_conj(md->principal_rotation);
    ts_transform in_sim = {ts_rotate(to_sim, ts_sub(local.p, md->center)), ts_quat_mul(to_sim, local.q)};
    return ts_transform_mul(b->pose, in_sim);
}

/* Only the origin of that frame, relative to the centre of mass (all a
 * ball joint needs): spheres and unrotated boxes skip the principal
 * rotation. */
static ts_vec3 anchor_in_world(const ts_records *records, int32_t body, const lane_body *b, ts_vec3 local)
{
    const ts_mass_data *md = &records->bodies[body].mass_data;
    ts_vec3 p = ts_sub(local, md->center);
    if (md->principal_rotation.w != 1.0f) {
        p = ts_inv_rotate(md->principal_rotation, p);
    }
    return ts_rotate(b->pose.q, p);
}

static void put3(float rows[3][TS_W], int l, ts_vec3 v)
{
    rows[0][l] = v.x;
    rows[1][l] = v.y;
    rows[2][l] = v.z;
}

static void put4(float rows[4][TS_W], int l, ts_quat q)
{
    rows[0][l] = q.x;
    rows[1][l] = q.y;
    rows[2][l] = q.z;
    rows[3][l] = q.w;
}

/* (IA^-1 + IB^-1)^-1 by cofactors (zero when singular) and the frames'
 * relative rotation at the start, for the rotation lock. */
static void put_rotation_lock(ts_xpbd_joint_bundle *b, int l, const lane_body *a, const lane_body *bb, ts_quat qa,
                              ts_quat qb)
{
    float m[6];
    for (int k = 0; k < 6; ++k) {
        m[k] = a->inv_inertia[k] + bb->inv_inertia[k];
    }
    float xx = m[0], yy = m[1], zz = m[2], xy = m[3], xz = m[4], yz = m[5];
    float cxx = yy * zz - yz * yz, cyy = xx * zz - xz * xz, czz = xx * yy - xy * xy;
    float cxy = xz * yz - xy * zz, cxz = xy * yz - yy * xz, cyz = xy * xz - xx * yz;
    float det = xx * cxx + xy * cxy + xz * cxz;
    float inv = det > 0.0f ? 1.0f / det : 0.0f;
    float rows[6] = {cxx * inv, cyy * inv, czz * inv, cxy * inv, cxz * inv, cyz * inv};
    for (int k = 0; k < 6; ++k) {
        b->angular_mass[k][l] = rows[k];
    }
    put4(b->rotation_left, l, ts_quat_mul(qb, ts_quat_conj(qa)));
}

/* Limits, spring and motor of the free coordinate (xpbd_joint.h). A
 * distance joint without a spring is a rod: both limits at its length. */
static void put_axial(const ts_xpbd_joint_context *c, ts_xpbd_joint_bundle *b, int l, const ts_joint *j)
{
    const ts_joint_axis_settings *s = &j->axis;
    bool rod = j->type == TS_JOINT_DISTANCE && !s->enable_spring;
    b->lower[l] = rod ? j->length : (s->enable_limit ? s->lower : -TS_XPBD_NO_LIMIT);
    b->upper[l] = rod ? j->length : (s->enable_limit ? s->upper : TS_XPBD_NO_LIMIT);
    bool spring = s->enable_spring && s->spring_hertz > 0.0f;
    float omega_h = 2.0f * 3.14159265f * s->spring_hertz * c->h; /* 2 pi f h */
    float damping = 2.0f * s->spring_damping_ratio * omega_h;   /* c h / m_eff */
    b->spring_on[l] = spring ? 1.0f : 0.0f;
    b->spring_target[l] = j->type == TS_JOINT_DISTANCE ? j->length : s->target;
    b->spring_softness[l] = spring ? 1.0f / (omega_h * omega_h) : 0.0f;
    b->spring_damping[l] = spring ? damping / (1.0f + damping) : 0.0f;
    b->motor_speed[l] = s->enable_motor ? s->motor_speed : 0.0f;
    b->max_motor_impulse[l] = s->enable_motor ? s->max_motor_force * c->h : 0.0f;
}

static void prepare_lane(const ts_xpbd_joint_context *c, ts_xpbd_joint_bundle *b, int l, int32_t id)
{
    const ts_records *records = c->records;
    const ts_joint *j = records->joints + id;
    lane_body a = lane_body_of(c, j->edges[0].body);
    lane_body bb = lane_body_of(c, j->edges[1].body);
    ts_transform fa, fb;
    ts_vec3 ra, rb;
    if (j->type == TS_JOINT_BALL) {
        ra = anchor_in_world(records, j->edges[0].body, &a, j->local_frame[0].p);
        rb = anchor_in_world(records, j->edges[1].body, &bb, j->local_frame[1].p);
        fa.p = ts_add(a.pose.p, ra);
        fb.p = ts_add(bb.pose.p, rb);
    } else {
        fa = frame_in_world(records, j->edges[0].body, &a, j->local_frame[0]);
        fb = frame_in_world(records, j->edges[1].body, &bb, j->local_frame[1]);
        ra = ts_sub(fa.p, a.pose.p);
        rb = ts_sub(fb.p, bb.pose.p);
    }
    b->body_a[l] = a.state;
    b->body_b[l] = bb.state;
    b->joint[l] = id;
    b->inv_mass_a[l] = a.inv_mass;
    b->inv_mass_b[l] = bb.inv_mass;
    for (int k = 0; k < 6; ++k) {
        b->inv_inertia_a[k][l] = a.inv_inertia[k];
        b->inv_inertia_b[k][l] = bb.inv_inertia[k];
    }
    put3(b->anchor_a, l, ra);
    put3(b->anchor_b, l, rb);
    put3(b->delta_center, l, ts_sub(bb.pose.p, a.pose.p));
    switch (j->type) {
    case TS_JOINT_FIXED: put_rotation_lock(b, l, &a, &bb, fa.q, fb.q); break;
    case TS_JOINT_HINGE: {
        ts_vec3 axis = ts_rotate(fa.q, ts_v3(0, 0, 1));
        put3(b->axis, l, axis);
        put3(b->axis_b, l, ts_rotate(fb.q, ts_v3(0, 0, 1)));
        put3(b->perp1, l, ts_rotate(fa.q, ts_v3(1, 0, 0)));
        put3(b->perp2, l, ts_rotate(fa.q, ts_v3(0, 1, 0)));
        put4(b->rotation_left, l, ts_quat_conj(fa.q));
        put4(b->rotation_right, l, fb.q);
        put_axial(c, b, l, j);
        break;
    }
    case TS_JOINT_PRISMATIC: {
        ts_vec3 axis = ts_rotate(fa.q, ts_v3(1, 0, 0));
        put3(b->axis, l, axis);
        put3(b->perp1, l, ts_rotate(fa.q, ts_v3(0, 1, 0)));
        put3(b->perp2, l, ts_rotate(fa.q, ts_v3(0, 0, 1)));
        put_rotation_lock(b, l, &a, &bb, fa.q, fb.q);
        put_axial(c, b, l, j);
        break;
    }
    case TS_JOINT_DISTANCE: {
        ts_vec3 d = ts_sub(fb.p, fa.p);
        float length = ts_length(d);
        ts_vec3 n = length > 1.0e-6f ? ts_scale(1.0f / length, d) : ts_v3(1, 0, 0);
        put3(b->axis, l, n);
        put_axial(c, b, l, j);
        break;
    }
    default: break; /* ball: the point only */
    }
}

void TS_WIDE(ts_xpbd_joint_prepare)(const ts_xpbd_joint_context *c, ts_xpbd_joint_bundle *b, int32_t k)
{
    const ts_joint_scratch *s = c->joint_scratch;
    ts_joint_bundle_ref ref = s->refs[k];
    /* a ball bundle is read up to its velocity impulses (xpbd_joint.h) */
    memset(b, 0, ref.type == TS_JOINT_BALL ? offsetof(ts_xpbd_joint_bundle, rotation_left) : sizeof *b);
    b->type = ref.type;
    for (int l = 0; l < TS_W; ++l) {
        b->body_a[l] = c->awake;
        b->body_b[l] = c->awake;
        b->joint[l] = -1;
    }
    for (int l = 0; l < ref.lanes; ++l) {
        prepare_lane(c, b, l, s->sorted[ref.first + l]);
    }
}

/* ---- after the substeps ---- */

static ts_vec3 get3(const float rows[3][TS_W], int l) { return ts_v3(rows[0][l], rows[1][l], rows[2][l]); }

void TS_WIDE(ts_xpbd_joint_store)(ts_records *records, const ts_xpbd_joint_bundle *b, float inv_h)
{
    for (int l = 0; l < TS_W; ++l) {
        if (b->joint[l] < 0) {
            continue;
        }
        ts_joint *j = records->joints + b->joint[l];
        /* impulses of the last substep, N s: λ / h + the velocity pass's */
        ts_vec3 linear = ts_mul_add(get3(b->velocity_force, l), inv_h, get3(b->position_force, l));
        ts_vec3 angular = ts_mul_add(get3(b->velocity_torque, l), inv_h, get3(b->position_torque, l));
        j->impulses.linear = linear;
        j->impulses.angular = angular;
        bool axial = b->type != TS_JOINT_BALL && b->type != TS_JOINT_FIXED;
        j->impulses.spring = axial ? b->axial_lambda[0][l] * inv_h : 0.0f;
        j->impulses.lower = axial ? b->axial_lambda[1][l] * inv_h : 0.0f;
        j->impulses.upper = axial ? b->axial_lambda[2][l] * inv_h : 0.0f;
        j->impulses.motor = axial ? b->axial_lambda[3][l] : 0.0f;
        j->reaction_force = ts_scale(inv_h, linear);
        j->reaction_torque = ts_scale(inv_h, angular);
    }
}
