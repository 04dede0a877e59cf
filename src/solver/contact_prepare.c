/* Preparing the contact bundles of a step (see contact_prepare.h). */
#include "contact_prepare.h"

#include "../world.h"

/* A unit vector perpendicular to n, chosen the same way every step so that
 * tangent impulses warm start along the same axes. */
static ts_vec3 perpendicular(ts_vec3 n)
{
    ts_vec3 t = fabsf(n.x) >= 0.57735f ? ts_v3(n.y, -n.x, 0.0f) : ts_v3(0.0f, n.z, -n.y);
    return ts_scale(1.0f / ts_length(t), t);
}

/* R diag(d) R^T for the rotation q of the principal frame. */
static void world_inverse_inertia(ts_quat q, ts_vec3 d, float out[6])
{
    ts_vec3 ex = ts_rotate(q, ts_v3(1, 0, 0));
    ts_vec3 ey = ts_rotate(q, ts_v3(0, 1, 0));
    ts_vec3 ez = ts_rotate(q, ts_v3(0, 0, 1));
    /* columns of R are ex, ey, ez: M_ij = sum_k R_ik d_k R_jk */
    out[0] = d.x * ex.x * ex.x + d.y * ey.x * ey.x + d.z * ez.x * ez.x;
    out[1] = d.x * ex.y * ex.y + d.y * ey.y * ey.y + d.z * ez.y * ez.y;
    out[2] = d.x * ex.z * ex.z + d.y * ey.z * ey.z + d.z * ez.z * ez.z;
    out[3] = d.x * ex.x * ex.y + d.y * ey.x * ey.y + d.z * ez.x * ez.y;
    out[4] = d.x * ex.x * ex.z + d.y * ey.x * ey.z + d.z * ez.x * ez.z;
    out[5] = d.x * ex.y * ex.z + d.y * ey.y * ey.z + d.z * ez.y * ez.z;
}

static ts_vec3 sym_mul(const float m[6], ts_vec3 v)
{
    return ts_v3(m[0] * v.x + m[3] * v.y + m[4] * v.z, m[3] * v.x + m[1] * v.y + m[5] * v.z,
                 m[4] * v.x + m[5] * v.y + m[2] * v.z);
}

/* 1 / (mA + mB + (rA x d) . IA^-1 (rA x d) + (rB x d) . IB^-1 (rB x d)), or 0. */
static float effective_mass(float ma, float mb, const float ia[6], const float ib[6], ts_vec3 ra, ts_vec3 rb,
                            ts_vec3 d)
{
    ts_vec3 rda = ts_cross(ra, d);
    ts_vec3 rdb = ts_cross(rb, d);
    float k = ma + mb + ts_dot(rda, sym_mul(ia, rda)) + ts_dot(rdb, sym_mul(ib, rdb));
    return k > 0.0f ? 1.0f / k : 0.0f;
}

typedef struct body_view {
    int32_t state; /* index into the states, the dummy unless awake */
    float inv_mass;
    float inv_inertia[6];
    ts_vec3 v, w;
} body_view;

static body_view view_body(const ts_contact_prepare_context *c, int32_t body)
{
    const ts_body_store *s = &c->world->store;
    int32_t i = s->table.slot_of_id[body];
    body_view b = {c->awake, 0.0f, {0}, {0, 0, 0}, {0, 0, 0}};
    if (i < c->awake) {
        b.state = i;
        b.inv_mass = s->inv_mass[i];
        world_inverse_inertia((ts_quat){s->qx[i], s->qy[i], s->qz[i], s->qw[i]},
                              ts_v3(s->inv_ix[i], s->inv_iy[i], s->inv_iz[i]), b.inv_inertia);
        b.v = ts_v3(s->vx[i], s->vy[i], s->vz[i]);
        b.w = ts_v3(s->wx[i], s->wy[i], s->wz[i]);
    }
    return b;
}

static void empty_lane(ts_contact_bundle *b, int l, int32_t dummy)
{
    b->body_a[l] = dummy;
    b->body_b[l] = dummy;
    b->contact_slot[l] = -1;
    b->inv_mass_a[l] = 0.0f;
    b->inv_mass_b[l] = 0.0f;
    for (int k = 0; k < 6; ++k) {
        b->inv_inertia_a[k][l] = 0.0f;
        b->inv_inertia_b[k][l] = 0.0f;
    }
    for (int k = 0; k < 3; ++k) {
        b->normal[k][l] = 0.0f;
        b->tangent1[k][l] = 0.0f;
        b->tangent2[k][l] = 0.0f;
    }
    b->friction[l] = 0.0f;
    b->restitution[l] = 0.0f;
    for (int k = 0; k < 3; ++k) {
        b->center_a[k][l] = 0.0f;
        b->center_b[k][l] = 0.0f;
        b->tangent_mass[k][l] = 0.0f;
    }
    b->twist_mass[l] = 0.0f;
    b->friction_impulse[0][l] = 0.0f;
    b->friction_impulse[1][l] = 0.0f;
    b->twist_impulse[l] = 0.0f;
    b->bias_rate[l] = 0.0f;
    b->mass_scale[l] = 1.0f;
    b->impulse_scale[l] = 0.0f;
    for (int p = 0; p < 4; ++p) {
        ts_contact_point_lanes *cp = b->points + p;
        for (int k = 0; k < 3; ++k) {
            cp->anchor_a[k][l] = 0.0f;
            cp->anchor_b[k][l] = 0.0f;
        }
        cp->base_separation[l] = 0.0f;
        cp->normal_mass[l] = 0.0f;
        cp->normal_impulse[l] = 0.0f;
        cp->lever_arm[l] = 0.0f;
        cp->relative_velocity[l] = 0.0f;
        cp->max_normal_impulse[l] = 0.0f;
    }
}

static void store3(float rows[3][TS_W], int l, ts_vec3 v)
{
    rows[0][l] = v.x;
    rows[1][l] = v.y;
    rows[2][l] = v.z;
}

/* The 2x2 tangent effective mass at the centres: K_ij = (mA + mB) d_ij +
 * (cA x ti) . IA^-1 (cA x tj) + (cB x ti) . IB^-1 (cB x tj), inverted; and
 * the twist mass 1 / (n . (IA^-1 + IB^-1) n). */
static void prepare_friction(const ts_contact_prepare_context *c, ts_contact_bundle *b, int l, const body_view *a,
                             const body_view *bb, ts_vec3 ca, ts_vec3 cb, ts_vec3 n, ts_vec3 t1, ts_vec3 t2,
                             int32_t slot)
{
    const ts_contact_store *s = &c->world->contact_store;
    ts_vec3 a1 = ts_cross(ca, t1), a2 = ts_cross(ca, t2), b1 = ts_cross(cb, t1), b2 = ts_cross(cb, t2);
    float m = a->inv_mass + bb->inv_mass;
    float kxx = m + ts_dot(a1, sym_mul(a->inv_inertia, a1)) + ts_dot(b1, sym_mul(bb->inv_inertia, b1));
    float kyy = m + ts_dot(a2, sym_mul(a->inv_inertia, a2)) + ts_dot(b2, sym_mul(bb->inv_inertia, b2));
    float kxy = ts_dot(a1, sym_mul(a->inv_inertia, a2)) + ts_dot(b1, sym_mul(bb->inv_inertia, b2));
    float det = kxx * kyy - kxy * kxy;
    float inv_det = det > 0.0f ? 1.0f / det : 0.0f;
    store3(b->center_a, l, ca);
    store3(b->center_b, l, cb);
    b->tangent_mass[0][l] = inv_det * kyy;
    b->tangent_mass[1][l] = -inv_det * kxy;
    b->tangent_mass[2][l] = inv_det * kxx;
    float k_twist = ts_dot(n, sym_mul(a->inv_inertia, n)) + ts_dot(n, sym_mul(bb->inv_inertia, n));
    b->twist_mass[l] = k_twist > 0.0f ? 1.0f / k_twist : 0.0f;
    b->friction_impulse[0][l] = c->warm_start ? s->friction_impulse1[slot] : 0.0f;
    b->friction_impulse[1][l] = c->warm_start ? s->friction_impulse2[slot] : 0.0f;
    b->twist_impulse[l] = c->warm_start ? s->twist_impulse[slot] : 0.0f;
}

static void prepare_lane(const ts_contact_prepare_context *c, ts_contact_bundle *b, int l, int32_t contact)
{
    const ts_world *world = c->world;
    const ts_contact_store *s = &world->contact_store;
    int32_t i = s->table.slot_of_id[contact];
    empty_lane(b, l, c->awake);
    body_view a = view_body(c, s->body_a[i]);
    body_view bb = view_body(c, s->body_b[i]);
    b->body_a[l] = a.state;
    b->body_b[l] = bb.state;
    b->contact_slot[l] = i;
    b->inv_mass_a[l] = a.inv_mass;
    b->inv_mass_b[l] = bb.inv_mass;
    for (int k = 0; k < 6; ++k) {
        b->inv_inertia_a[k][l] = a.inv_inertia[k];
        b->inv_inertia_b[k][l] = bb.inv_inertia[k];
    }
    ts_vec3 n = ts_v3(s->nx[i], s->ny[i], s->nz[i]);
    ts_vec3 t1 = perpendicular(n);
    ts_vec3 t2 = ts_cross(n, t1);
    store3(b->normal, l, n);
    store3(b->tangent1, l, t1);
    store3(b->tangent2, l, t2);
    b->friction[l] = s->friction[i];
    b->restitution[l] = s->restitution[i];
    ts_softness soft = a.inv_mass == 0.0f || bb.inv_mass == 0.0f ? c->stiff : c->soft;
    b->bias_rate[l] = soft.bias_rate;
    b->mass_scale[l] = soft.mass_scale;
    b->impulse_scale[l] = soft.impulse_scale;

    int count = s->point_count[i];
    ts_vec3 ca = {0, 0, 0}, cb = {0, 0, 0};
    for (int k = 0; k < count; ++k) {
        int p = 4 * i + k;
        ca = ts_add(ca, ts_v3(s->anchor_ax[p], s->anchor_ay[p], s->anchor_az[p]));
        cb = ts_add(cb, ts_v3(s->anchor_bx[p], s->anchor_by[p], s->anchor_bz[p]));
    }
    float inv_count = count > 0 ? 1.0f / (float)count : 0.0f;
    ca = ts_scale(inv_count, ca);
    cb = ts_scale(inv_count, cb);
    for (int k = 0; k < count; ++k) {
        int p = 4 * i + k;
        ts_contact_point_lanes *cp = b->points + k;
        ts_vec3 ra = ts_v3(s->anchor_ax[p], s->anchor_ay[p], s->anchor_az[p]);
        ts_vec3 rb = ts_v3(s->anchor_bx[p], s->anchor_by[p], s->anchor_bz[p]);
        store3(cp->anchor_a, l, ra);
        store3(cp->anchor_b, l, rb);
        cp->base_separation[l] = s->separation[p] - ts_dot(ts_sub(rb, ra), n);
        cp->normal_mass[l] = effective_mass(a.inv_mass, bb.inv_mass, a.inv_inertia, bb.inv_inertia, ra, rb, n);
        cp->normal_impulse[l] = c->warm_start ? s->normal_impulse[p] : 0.0f;
        cp->lever_arm[l] = ts_length(ts_sub(ra, ca));
        ts_vec3 vb = ts_add(bb.v, ts_cross(bb.w, rb));
        ts_vec3 va = ts_add(a.v, ts_cross(a.w, ra));
        cp->relative_velocity[l] = ts_dot(n, ts_sub(vb, va));
    }
    prepare_friction(c, b, l, &a, &bb, ca, cb, n, t1, t2, i);
}

/* The contacts of a colour packed `lanes` to a bundle (TS_W, or 1 for the
 * overflow, whose contacts may share bodies and so must run one by one). */
void TS_WIDE(ts_contact_prepare_bundle)(const ts_contact_prepare_context *c, ts_contact_bundle *b, const ts_graph_color *color,
                           int32_t first_contact, int lanes)
{
    for (int l = 0; l < TS_W; ++l) {
        int32_t k = first_contact + l;
        if (l < lanes && k < color->count) {
            prepare_lane(c, b, l, color->contacts[k]);
        } else {
            empty_lane(b, l, c->awake);
        }
    }
}

void TS_WIDE(ts_contact_store_impulses)(ts_world *world, const ts_contact_bundle *b)
{
    ts_contact_store *s = &world->contact_store;
    for (int l = 0; l < TS_W; ++l) {
        int32_t i = b->contact_slot[l];
        if (i < 0) {
            continue;
        }
        for (int k = 0; k < s->point_count[i]; ++k) {
            s->normal_impulse[4 * i + k] = b->points[k].normal_impulse[l];
        }
        s->friction_impulse1[i] = b->friction_impulse[0][l];
        s->friction_impulse2[i] = b->friction_impulse[1][l];
        s->twist_impulse[i] = b->twist_impulse[l];
    }
}
