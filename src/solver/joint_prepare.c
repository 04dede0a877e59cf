/* Preparing the joint bundles of a step (see joint_prepare.h). */
#include "solver/joint_prepare.h"

#include "base/array.h"
#include "solver/ball_joint.h"
#include "solver/contact_prepare.h"
#include "solver/custom_constraint.h"

#include <stddef.h>
#include <string.h>

/* A limit that is off sits this far away: never reached, and its
 * speculative bias (distance / h) stays finite. */
#define TS_JOINT_NO_LIMIT 1.0e6f

static ts_joint_bundle *general_bundle(const ts_joint_scratch *s, ts_joint_bundle_ref ref)
{
    return (ts_joint_bundle *)s->bundles + ref.slot;
}

/* ---- layout ---- */

/* A joint is solved while one of its bodies is awake; a sleeping island's
 * joints keep their impulses (and reaction readouts) until it wakes. */
static bool joint_is_awake(const ts_records *records, const ts_joint *j)
{
    const ts_body_store *s = &records->store;
    int32_t awake = s->table.end[TS_RANGE_AWAKE];
    if (s->table.end[TS_RANGE_SLEEPING] == awake) {
        return true; /* nothing sleeps: a coloured joint's dynamic body is awake */
    }
    return s->table.slot_of_id[j->edges[0].body] < awake || s->table.slot_of_id[j->edges[1].body] < awake;
}

bool TS_WIDE(ts_joint_solver_begin)(ts_joint_scratch *s, ts_records *records, const ts_constraint_graph *graph)
{
    const ts_allocator *allocator = &records->allocator;
    uint32_t graph_revision = graph->joint_revision, store_revision = records->store.table.revision;
    if (s->ball_kept != NULL && (s->layout_graph_revision != graph_revision || s->layout_store_revision != store_revision)) {
        ts_joint_scratch_free_kept(s, allocator); /* the saved world would have laid its bundles out afresh too */
    }
    if (s->layout_width == TS_W && s->layout_graph_revision == graph_revision &&
        s->layout_store_revision == store_revision) {
        s->layout_rebuilt = false; /* the same joints in the same colours on the same body slots */
        return true;
    }
    ts_joint_flush_impulses(s, records); /* from the old layout, before it goes */
    s->layout_width = 0;            /* until laid out */
    int32_t joints = 0, bundles = 0, balls = 0, custom_bundles = 0, customs = 0;
    for (int color = 0; color <= TS_OVERFLOW_COLOR; ++color) {
        const ts_graph_color *gc = graph->colors + color;
        int lanes = color == TS_OVERFLOW_COLOR ? 1 : TS_W;
        int32_t per_type[TS_JOINT_TYPE_COUNT] = {0};
        for (int32_t i = 0; i < gc->joint_count; ++i) {
            const ts_joint *j = records->joints + gc->joints[i];
            per_type[j->type] += joint_is_awake(records, j) ? 1 : 0;
        }
        for (int t = 0; t < TS_JOINT_TYPE_COUNT; ++t) {
            bundles += (per_type[t] + lanes - 1) / lanes;
        }
        balls += (per_type[TS_JOINT_BALL] + lanes - 1) / lanes;
        custom_bundles += (per_type[TS_JOINT_CUSTOM] + lanes - 1) / lanes;
        customs += per_type[TS_JOINT_CUSTOM];
        joints += gc->joint_count;
    }
    if (!ts_array_reserve(allocator, (void **)&s->sorted, &s->sorted_capacity, joints, sizeof(int32_t)) ||
        !ts_array_reserve(allocator, (void **)&s->refs, &s->ref_capacity, bundles, sizeof(ts_joint_bundle_ref)) ||
        !ts_array_reserve(allocator, &s->bundles, &s->bundle_bytes,
                          (bundles - balls - custom_bundles) * (int32_t)sizeof(ts_joint_bundle), 1) ||
        !ts_array_reserve(allocator, &s->ball_bundles, &s->ball_bytes, TS_WIDE(ts_ball_bundle_bytes)(balls), 1) ||
        !ts_array_reserve(allocator, &s->custom_lanes, &s->custom_bytes, customs * (int32_t)sizeof(ts_custom_lane),
                          1)) {
        return false;
    }
    s->ball_count = balls;
    s->custom_count = customs;
    /* Colour by colour, a counting sort by type, then one bundle per `lanes` joints of a type. */
    int32_t placed = 0, bundle = 0, slot[3] = {0, 0, 0}; /* next general, ball and custom slot */
    for (int color = 0; color <= TS_OVERFLOW_COLOR; ++color) {
        const ts_graph_color *gc = graph->colors + color;
        int lanes = color == TS_OVERFLOW_COLOR ? 1 : TS_W;
        s->color_begin[color] = bundle;
        int32_t start[TS_JOINT_TYPE_COUNT + 1] = {0};
        int32_t active = 0;
        for (int32_t i = 0; i < gc->joint_count; ++i) {
            const ts_joint *j = records->joints + gc->joints[i];
            if (joint_is_awake(records, j)) {
                start[j->type + 1] += 1;
                active += 1;
            }
        }
        for (int t = 0; t < TS_JOINT_TYPE_COUNT; ++t) {
            start[t + 1] += start[t];
        }
        int32_t next[TS_JOINT_TYPE_COUNT];
        for (int t = 0; t < TS_JOINT_TYPE_COUNT; ++t) {
            next[t] = start[t];
        }
        for (int32_t i = 0; i < gc->joint_count; ++i) {
            int32_t joint = gc->joints[i];
            if (joint_is_awake(records, records->joints + joint)) {
                s->sorted[placed + next[records->joints[joint].type]++] = joint;
            }
        }
        for (int t = 0; t < TS_JOINT_TYPE_COUNT; ++t) {
            int32_t run_end = bundle + (start[t + 1] - start[t] + lanes - 1) / lanes;
            for (int32_t first = start[t]; first < start[t + 1]; first += lanes) {
                int32_t left = start[t + 1] - first;
                int kind = t == TS_JOINT_BALL ? 1 : t == TS_JOINT_CUSTOM ? 2 : 0;
                int16_t used = (int16_t)(left < lanes ? left : lanes);
                s->refs[bundle++] = (ts_joint_bundle_ref){placed + first, slot[kind], (int16_t)t, used, run_end};
                slot[kind] += kind == 2 ? used : 1; /* a custom lane per constraint */
            }
        }
        placed += active;
    }
    s->color_begin[TS_OVERFLOW_COLOR + 1] = bundle;
    s->layout_width = TS_W;
    s->layout_graph_revision = graph_revision;
    s->layout_store_revision = store_revision;
    s->layout_rebuilt = true;
    return true;
}

bool TS_WIDE(ts_joint_take_ball_fill)(ts_joint_scratch *s, ts_records *records, int32_t step)
{
    bool fill = s->layout_rebuilt || s->ball_step != step - 1;
    if (s->ball_kept != NULL && s->ball_step != step - 1) {
        ts_joint_scratch_free_kept(s, &records->allocator); /* the saved world would have filled its bundles too */
    }
    if (fill) {
        ts_joint_flush_impulses(s, records); /* the fill reads the joints' impulses */
    }
    s->ball_step = step;
    return fill;
}

/* ---- small 3x3 algebra (symmetric: xx yy zz xy xz yz) ---- */

static ts_vec3 sym_mul(const float m[6], ts_vec3 v)
{
    return ts_v3(m[0] * v.x + m[3] * v.y + m[4] * v.z, m[3] * v.x + m[1] * v.y + m[5] * v.z,
                 m[4] * v.x + m[5] * v.y + m[2] * v.z);
}

/* The inverse by cofactors, or zero when singular (empty lanes, two
 * bodies without rotational freedom). */
static void sym_inverse(const float m[6], float out[6])
{
    float xx = m[0], yy = m[1], zz = m[2], xy = m[3], xz = m[4], yz = m[5];
    float cxx = yy * zz - yz * yz, cyy = xx * zz - xz * xz, czz = xx * yy - xy * xy;
    float cxy = xz * yz - xy * zz, cxz = xy * yz - yy * xz, cyz = xy * xz - xx * yz;
    float det = xx * cxx + xy * cxy + xz * cxz;
    float inv = det > 0.0f ? 1.0f / det : 0.0f;
    float r[6] = {cxx * inv, cyy * inv, czz * inv, cxy * inv, cxz * inv, cyz * inv};
    memcpy(out, r, sizeof r);
}

/* The inverse of [[xx, xy], [xy, yy]] into rows 0 (xx), 1 (yy), 3 (xy). */
static void inverse_2x2(float xx, float xy, float yy, float rows[6][TS_W], int l)
{
    float det = xx * yy - xy * xy;
    float inv = det > 0.0f ? 1.0f / det : 0.0f;
    rows[0][l] = yy * inv;
    rows[1][l] = xx * inv;
    rows[3][l] = -xy * inv;
}

/* Angular part of K for a row with angular Jacobians ja on A and jb on B. */
static float angular_k(const float ia[6], const float ib[6], ts_vec3 ja1, ts_vec3 ja2, ts_vec3 jb1, ts_vec3 jb2)
{
    return ts_dot(ja1, sym_mul(ia, ja2)) + ts_dot(jb1, sym_mul(ib, jb2));
}

static ts_vec3 perpendicular(ts_vec3 n)
{
    ts_vec3 t = fabsf(n.x) >= 0.57735f ? ts_v3(n.y, -n.x, 0.0f) : ts_v3(0.0f, n.z, -n.y);
    return ts_scale(1.0f / ts_length(t), t);
}

/* ---- one lane ---- */

ts_joint_body_view TS_WIDE(ts_joint_view_body)(const ts_joint_prepare_context *c, int32_t body)
{
    const ts_body_store *s = &c->records->store;
    int32_t i = s->table.slot_of_id[body];
    ts_joint_body_view b = {c->awake, 0.0f, {0}, ts_v3(s->px[i], s->py[i], s->pz[i]), {s->qx[i], s->qy[i], s->qz[i], s->qw[i]}};
    if (i < c->awake) {
        /* the world inverse inertia of this step, from ts_states_begin */
        b.state = i;
        b.inv_mass = s->inv_mass[i];
        b.inv_inertia[0] = s->inv_iw_xx[i];
        b.inv_inertia[1] = s->inv_iw_yy[i];
        b.inv_inertia[2] = s->inv_iw_zz[i];
        b.inv_inertia[3] = s->inv_iw_xy[i];
        b.inv_inertia[4] = s->inv_iw_xz[i];
        b.inv_inertia[5] = s->inv_iw_yz[i];
    }
    return b;
}

/* A joint frame given in the body's origin frame, in the world: the
 * simulation frame is origin * (centre, principal rotation), so the frame is
 * sim * (conj(principal) (p - centre), conj(principal) q). */
static ts_transform world_frame(const ts_records *records, int32_t body, const ts_joint_body_view *view,
                                ts_transform local)
{
    const ts_mass_data *md = &records->bodies[body].mass_data;
    ts_quat to_sim = ts_quat_conj(md->principal_rotation);
    ts_transform in_sim = {ts_rotate(to_sim, ts_sub(local.p, md->center)), ts_quat_mul(to_sim, local.q)};
    return ts_transform_mul((ts_transform){view->center, view->rotation}, in_sim);
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

static void put_sym(float rows[6][TS_W], int l, const float m[6])
{
    for (int k = 0; k < 6; ++k) {
        rows[k][l] = m[k];
    }
}

/* 1 / K of a sliding row along n with arms ua, rb. */
static float sliding_mass(const ts_joint_body_view *a, const ts_joint_body_view *b, ts_vec3 n, ts_vec3 ua, ts_vec3 rb)
{
    ts_vec3 ja = ts_cross(ua, n), jb = ts_cross(rb, n);
    float k = a->inv_mass + b->inv_mass + angular_k(a->inv_inertia, b->inv_inertia, ja, ja, jb, jb);
    return k > 0.0f ? 1.0f / k : 0.0f;
}

static void prepare_rotation_lock(ts_joint_bundle *b, int l, const ts_joint_body_view *a, const ts_joint_body_view *bb, ts_quat qa,
                                  ts_quat qb)
{
    float sum[6];
    for (int k = 0; k < 6; ++k) {
        sum[k] = a->inv_inertia[k] + bb->inv_inertia[k];
    }
    float inv[6];
    sym_inverse(sum, inv);
    put_sym(b->angular_mass, l, inv);
    put4(b->rotation_left, l, ts_quat_mul(qb, ts_quat_conj(qa)));
}

/* Limits, motor and spring of the free coordinate; stored impulses of parts
 * that are off are dropped. */
static void prepare_axial(const ts_joint_prepare_context *c, ts_joint_bundle *b, int l, const ts_joint *j,
                          float axial_mass)
{
    const ts_joint_axis_settings *s = &j->axis;
    const ts_joint_impulses *old = &j->impulses;
    bool warm = c->warm_start;
    b->axial_mass[l] = axial_mass;
    bool rigid_rod = j->type == TS_JOINT_DISTANCE && !s->enable_spring;
    bool limit = s->enable_limit || rigid_rod;
    b->lower[l] = rigid_rod ? j->length : (s->enable_limit ? s->lower : -TS_JOINT_NO_LIMIT);
    b->upper[l] = rigid_rod ? j->length : (s->enable_limit ? s->upper : TS_JOINT_NO_LIMIT);
    b->lower_impulse[l] = warm && limit ? old->lower : 0.0f;
    b->upper_impulse[l] = warm && limit ? old->upper : 0.0f;
    b->motor_speed[l] = s->enable_motor ? s->motor_speed : 0.0f;
    b->max_motor_impulse[l] = s->enable_motor ? s->max_motor_force * c->h : 0.0f;
    b->motor_impulse[l] = warm && s->enable_motor ? old->motor : 0.0f;
    bool spring = s->enable_spring && s->spring_hertz > 0.0f;
    ts_softness soft = spring ? ts_make_softness(s->spring_hertz, s->spring_damping_ratio, c->h) : (ts_softness){0};
    b->spring_target[l] = j->type == TS_JOINT_DISTANCE ? j->length : s->target;
    b->spring_bias_rate[l] = soft.bias_rate;
    b->spring_mass_scale[l] = soft.mass_scale;
    b->spring_impulse_scale[l] = soft.impulse_scale;
    b->spring_impulse[l] = warm && spring ? old->spring : 0.0f;
}

static void prepare_lane(const ts_joint_prepare_context *c, ts_joint_bundle *b, int l, int32_t id)
{
    const ts_records *records = c->records;
    const ts_joint *j = records->joints + id;
    ts_joint_body_view a = TS_WIDE(ts_joint_view_body)(c, j->edges[0].body);
    ts_joint_body_view bb = TS_WIDE(ts_joint_view_body)(c, j->edges[1].body);
    ts_transform fa = world_frame(records, j->edges[0].body, &a, j->local_frame[0]);
    ts_transform fb = world_frame(records, j->edges[1].body, &bb, j->local_frame[1]);
    ts_vec3 ra = ts_sub(fa.p, a.center), rb = ts_sub(fb.p, bb.center);
    b->body_a[l] = a.state;
    b->body_b[l] = bb.state;
    b->joint[l] = id;
    b->inv_mass_a[l] = a.inv_mass;
    b->inv_mass_b[l] = bb.inv_mass;
    put_sym(b->inv_inertia_a, l, a.inv_inertia);
    put_sym(b->inv_inertia_b, l, bb.inv_inertia);
    put3(b->anchor_a, l, ra);
    put3(b->anchor_b, l, rb);
    put3(b->delta_center, l, ts_sub(bb.center, a.center));
    const ts_joint_impulses *old = &j->impulses;
    bool warm = c->warm_start;
    put3(b->linear_impulse, l, warm ? old->linear : ts_v3(0, 0, 0));
    put3(b->angular_impulse, l, warm ? old->angular : ts_v3(0, 0, 0));
    switch (j->type) {
    case TS_JOINT_FIXED: prepare_rotation_lock(b, l, &a, &bb, fa.q, fb.q); break;
    case TS_JOINT_HINGE: {
        ts_vec3 axis = ts_rotate(fa.q, ts_v3(0, 0, 1));
        ts_vec3 t1 = perpendicular(axis), t2 = ts_cross(axis, t1);
        put3(b->axis, l, axis);
        put3(b->axis_b, l, ts_rotate(fb.q, ts_v3(0, 0, 1)));
        put3(b->perp1, l, t1);
        put3(b->perp2, l, t2);
        inverse_2x2(angular_k(a.inv_inertia, bb.inv_inertia, t1, t1, t1, t1),
                    angular_k(a.inv_inertia, bb.inv_inertia, t1, t2, t1, t2),
                    angular_k(a.inv_inertia, bb.inv_inertia, t2, t2, t2, t2), b->angular_mass, l);
        put4(b->rotation_left, l, ts_quat_conj(fa.q));
        put4(b->rotation_right, l, fb.q);
        float k = angular_k(a.inv_inertia, bb.inv_inertia, axis, axis, axis, axis);
        prepare_axial(c, b, l, j, k > 0.0f ? 1.0f / k : 0.0f);
        break;
    }
    case TS_JOINT_PRISMATIC: {
        ts_vec3 axis = ts_rotate(fa.q, ts_v3(1, 0, 0));
        ts_vec3 t1 = ts_rotate(fa.q, ts_v3(0, 1, 0)), t2 = ts_rotate(fa.q, ts_v3(0, 0, 1));
        ts_vec3 ua = ts_sub(fb.p, a.center); /* rA + d: A's arm to frame B's origin */
        put3(b->axis, l, axis);
        put3(b->perp1, l, t1);
        put3(b->perp2, l, t2);
        float mass = a.inv_mass + bb.inv_mass;
        ts_vec3 a1 = ts_cross(ua, t1), a2 = ts_cross(ua, t2), b1 = ts_cross(rb, t1), b2 = ts_cross(rb, t2);
        inverse_2x2(mass + angular_k(a.inv_inertia, bb.inv_inertia, a1, a1, b1, b1),
                    angular_k(a.inv_inertia, bb.inv_inertia, a1, a2, b1, b2),
                    mass + angular_k(a.inv_inertia, bb.inv_inertia, a2, a2, b2, b2), b->point_mass, l);
        prepare_rotation_lock(b, l, &a, &bb, fa.q, fb.q);
        prepare_axial(c, b, l, j, sliding_mass(&a, &bb, axis, ua, rb));
        break;
    }
    case TS_JOINT_DISTANCE: {
        ts_vec3 d = ts_sub(fb.p, fa.p);
        float length = ts_length(d);
        ts_vec3 n = length > 1.0e-6f ? ts_scale(1.0f / length, d) : ts_v3(1, 0, 0);
        put3(b->axis, l, n);
        prepare_axial(c, b, l, j, sliding_mass(&a, &bb, n, ra, rb));
        break;
    }
    default: break;
    }
}

void TS_WIDE(ts_joint_prepare_bundle)(const ts_joint_prepare_context *c, int32_t k)
{
    const ts_joint_scratch *s = c->scratch;
    ts_joint_bundle_ref ref = s->refs[k];
    if (ref.type == TS_JOINT_CUSTOM) {
        ts_custom_lane *lanes = (ts_custom_lane *)s->custom_lanes + ref.slot;
        for (int l = 0; l < ref.lanes; ++l) {
            ts_custom_prepare(lanes + l, c->records, c->states, s->sorted[ref.first + l], c->awake, c->h,
                              c->warm_start, false);
        }
        return;
    }
    if (ref.type == TS_JOINT_BALL) {
        TS_WIDE(ts_ball_prepare)(c, TS_WIDE(ts_ball_bundles)(s) + ref.slot, s->sorted + ref.first, ref.lanes);
        return;
    }
    ts_joint_bundle *b = general_bundle(s, ref);
    memset(b, 0, sizeof *b);
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

/* A preparation that fills or refreshes ball bundles is the first to touch
 * them in a step, and the bundles of a large scene (joint_grid: 2,475 at
 * W = 8) have left the caches since the last pass: without the prefetch a
 * quarter of its time was the first load of each bundle. (The other steps
 * leave an isotropic ball bundle as its last relax kept it.) */
void TS_WIDE(ts_joint_prepare_bundles)(const ts_joint_prepare_context *c, int32_t begin, int32_t end)
{
    const ts_joint_scratch *s = c->scratch;
    const ts_ball_bundle *balls = TS_WIDE(ts_ball_bundles)(s);
    for (int32_t k = begin; k < end; ++k) {
        if (k + 1 < end && s->refs[k + 1].type == TS_JOINT_BALL && (c->ball_fill || c->ball_refresh)) {
            const ts_ball_bundle *b = balls + s->refs[k + 1].slot;
            const char *next = (const char *)b, *cold = (const char *)TS_WIDE(ts_ball_cold_of)(s, b);
            for (size_t offset = 0; offset < sizeof(ts_ball_bundle); offset += 64) {
                TS_PREFETCH(next + offset);
            }
            for (size_t offset = 0; offset < offsetof(ts_ball_cold, isotropic); offset += 64) {
                TS_PREFETCH(cold + offset);
            }
        }
        TS_WIDE(ts_joint_prepare_bundle)(c, k);
    }
}

/* ---- after the substeps ---- */

static ts_vec3 get3(const float rows[3][TS_W], int l) { return ts_v3(rows[0][l], rows[1][l], rows[2][l]); }

void TS_WIDE(ts_ball_flush_impulses)(const ts_joint_scratch *s, ts_records *records)
{
    ts_ball_bundle *balls = TS_WIDE(ts_ball_bundles)(s);
    for (int32_t k = 0; k < s->color_begin[TS_OVERFLOW_COLOR + 1]; ++k) {
        ts_joint_bundle_ref ref = s->refs[k];
        if (ref.type == TS_JOINT_BALL) {
            TS_WIDE(ts_ball_store_impulses)(records, balls + ref.slot, s->sorted + ref.first, ref.lanes, s->ball_inv_h);
        }
    }
}

void TS_WIDE(ts_joint_store_impulses)(const ts_joint_scratch *s, ts_records *records, int32_t k, float inv_h)
{
    ts_joint_bundle_ref ref = s->refs[k];
    if (ref.type == TS_JOINT_BALL) {
        return; /* kept in the bundle until flushed (ball_impulses_pending) */
    }
    if (ref.type == TS_JOINT_CUSTOM) {
        ts_custom_store((const ts_custom_lane *)s->custom_lanes + ref.slot, ref.lanes, records, inv_h);
        return;
    }
    const ts_joint_bundle *b = general_bundle(s, ref);
    for (int l = 0; l < TS_W; ++l) {
        if (b->joint[l] < 0) {
            continue;
        }
        ts_joint *j = records->joints + b->joint[l];
        ts_joint_impulses *out = &j->impulses;
        out->linear = get3(b->linear_impulse, l);
        out->angular = get3(b->angular_impulse, l);
        out->lower = b->lower_impulse[l];
        out->upper = b->upper_impulse[l];
        out->motor = b->motor_impulse[l];
        out->spring = b->spring_impulse[l];
        float axial = out->spring + out->motor + out->lower - out->upper;
        ts_vec3 axis = get3(b->axis, l), t1 = get3(b->perp1, l), t2 = get3(b->perp2, l);
        ts_vec3 across_linear = ts_add(ts_scale(out->linear.x, t1), ts_scale(out->linear.y, t2));
        ts_vec3 across_angular = ts_add(ts_scale(out->angular.x, t1), ts_scale(out->angular.y, t2));
        ts_vec3 force = {0, 0, 0}, torque = {0, 0, 0};
        switch (j->type) {
        case TS_JOINT_FIXED:
            force = out->linear;
            torque = out->angular;
            break;
        case TS_JOINT_HINGE:
            force = out->linear;
            torque = ts_mul_add(across_angular, axial, axis);
            break;
        case TS_JOINT_PRISMATIC:
            force = ts_mul_add(across_linear, axial, axis);
            torque = out->angular;
            break;
        case TS_JOINT_DISTANCE: force = ts_scale(axial, axis); break;
        default: break;
        }
        j->reaction_force = ts_scale(inv_h, force);
        j->reaction_torque = ts_scale(inv_h, torque);
    }
}
