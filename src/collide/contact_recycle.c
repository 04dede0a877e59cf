/* Contact recycling (see contact_recycle.h). */
#include "collide/contact_recycle.h"

#include "base/math3.h"

/* How far the farthest point of a body can be from its centre of mass; 0 for
 * a static body, which never turns. */
static float reach(const ts_body_store *s, int32_t body)
{
    int32_t i = s->table.slot_of_id[body];
    return i < s->table.end[TS_RANGE_SLEEPING] ? s->max_extent[i] : 0.0f;
}

/* A body's velocity and angular velocity (zero unless awake: static and
 * sleeping bodies do not move). */
static void body_velocity(const ts_body_store *s, int32_t body, ts_vec3 *v, ts_vec3 *w)
{
    int32_t i = s->table.slot_of_id[body];
    bool awake = i < s->table.end[TS_RANGE_AWAKE];
    *v = awake ? ts_v3(s->vx[i], s->vy[i], s->vz[i]) : ts_v3(0.0f, 0.0f, 0.0f);
    *w = awake ? ts_v3(s->wx[i], s->wy[i], s->wz[i]) : ts_v3(0.0f, 0.0f, 0.0f);
}

/* Whether the two bodies move apart by less than the slide tolerance in a
 * step: (|vB - vA| + |wB - wA| r) dt. Contacts of a granular flow (a pile
 * raining down) are tested afresh every step: with their manifolds kept
 * while bodies tumble past each other, a mean of 4.9 of the pile's 4,000
 * bodies climbed its walls (17 runs, contact hertz 28 to 32); 1.3 to 1.9
 * with this test (1.3 before recycling). */
static bool moves_slowly(const ts_body_store *store, float dt, int32_t body_a, int32_t body_b, float extent)
{
    ts_vec3 va, wa, vb, wb;
    body_velocity(store, body_a, &va, &wa);
    body_velocity(store, body_b, &vb, &wb);
    float speed = ts_length(ts_sub(vb, va)) + ts_length(ts_sub(wb, wa)) * extent;
    return speed * dt < TS_RECYCLE_SLIDE;
}

static ts_quat load_quat(const float *x, const float *y, const float *z, const float *w, int32_t i)
{
    return (ts_quat){x[i], y[i], z[i], w[i]};
}

static void store_quat(float *x, float *y, float *z, float *w, int32_t i, ts_quat q)
{
    x[i] = q.x;
    y[i] = q.y;
    z[i] = q.z;
    w[i] = q.w;
}

/* Whether the motion since the full test is small enough, from each body's
 * turn since then (qa, qb: q now x q then^-1) and d, how far B's centre
 * moved relative to A's, in the world. d splits into the part along the
 * normal, which a loaded contact takes as it compresses (up to
 * TS_RECYCLE_DISTANCE), and the slide across it, which moves the touching
 * features (up to TS_RECYCLE_SLIDE); the arc 2 |sin(theta / 2)| r that
 * the farthest point travels in the relative turn theta counts against
 * both; and each body turned less than ~10 degrees. (Refreshing the frozen
 * geometry sooner, e.g. counting each body's own turn as an arc too, lets
 * large_pyramid's wall leave its plane again: 0.22 m.) */
static bool motion_is_small(const ts_records *records, float dt, int32_t i, ts_quat qa, ts_quat qb, ts_vec3 d)
{
    const ts_contact_store *s = &records->contact_store;
    if (qa.w * qa.w < TS_RECYCLE_TURN_COS_SQ || qb.w * qb.w < TS_RECYCLE_TURN_COS_SQ) {
        return false; /* w = cos(turn / 2) */
    }
    ts_vec3 n = ts_v3(s->nx[i], s->ny[i], s->nz[i]);
    float along = ts_dot(d, n);
    float slide = ts_length(ts_mul_add(d, -along, n));
    float ra = reach(&records->store, s->body_a[i]), rb = reach(&records->store, s->body_b[i]);
    ts_quat turn = ts_quat_mul(ts_quat_conj(qa), qb);
    float extent = ra > rb ? ra : rb;
    float arc = 2.0f * ts_length(ts_v3(turn.x, turn.y, turn.z)) * extent;
    return fabsf(along) + arc < TS_RECYCLE_DISTANCE && slide + arc < TS_RECYCLE_SLIDE &&
           moves_slowly(&records->store, dt, s->body_a[i], s->body_b[i], extent);
}

bool ts_contact_recycle(ts_records *records, float dt, int32_t i, ts_transform xa, ts_transform xb, ts_vec3 ca,
                        ts_vec3 cb)
{
    ts_contact_store *s = &records->contact_store;
    /* each body's turn since the full test (shape and body turn alike) */
    ts_quat qa = ts_quat_mul(xa.q, ts_quat_conj(load_quat(s->cache_ax, s->cache_ay, s->cache_az, s->cache_aw, i)));
    ts_quat qb = ts_quat_mul(xb.q, ts_quat_conj(load_quat(s->cache_bx, s->cache_by, s->cache_bz, s->cache_bw, i)));
    ts_vec3 shift = ts_v3(s->shift_x[i], s->shift_y[i], s->shift_z[i]);
    ts_vec3 centres = ts_sub(cb, ca); /* first, so that far from the origin the anchors add to a small number */
    if (!motion_is_small(records, dt, i, qa, qb, ts_add(centres, shift))) {
        return false;
    }
    /* n . (dqB rB - dqA rA) = (dqB^-1 n) . rB - (dqA^-1 n) . rA: two
     * rotations a manifold instead of two a point */
    ts_vec3 n = ts_v3(s->nx[i], s->ny[i], s->nz[i]);
    ts_vec3 na = ts_inv_rotate(qa, n), nb = ts_inv_rotate(qb, n);
    float gap = ts_dot(n, centres);
    for (int k = 0; k < s->point_count[i]; ++k) {
        int p = 4 * i + k;
        ts_vec3 ra = ts_v3(s->anchor_ax[p], s->anchor_ay[p], s->anchor_az[p]);
        ts_vec3 rb = ts_add(ra, shift);
        s->separation[p] = s->base_separation[p] + (gap + (ts_dot(nb, rb) - ts_dot(na, ra)));
    }
    return true;
}

void ts_contact_remember(ts_records *records, int32_t i, ts_transform xa, ts_transform xb, ts_vec3 ca, ts_vec3 cb)
{
    ts_contact_store *s = &records->contact_store;
    store_quat(s->cache_ax, s->cache_ay, s->cache_az, s->cache_aw, i, xa.q);
    store_quat(s->cache_bx, s->cache_by, s->cache_bz, s->cache_bw, i, xb.q);
    /* minus the recycle's cb - ca, the same rounding */
    ts_vec3 shift = ts_neg(ts_sub(cb, ca));
    s->shift_x[i] = shift.x;
    s->shift_y[i] = shift.y;
    s->shift_z[i] = shift.z;
    for (int k = 0; k < s->point_count[i]; ++k) {
        s->base_separation[4 * i + k] = s->separation[4 * i + k];
    }
}

uint32_t ts_contact_recycle_batch(ts_records *records, const ts_recycle_body *bodies, float dt,
                                  const ts_recycle_lanes *lanes, int width)
{
    switch (width) { /* every width gives the same bits; 16 runs 8 lanes (a batch has 8) */
#ifdef TS_BUILT_W4
    case 4: return ts_contact_recycle_lanes_w4(records, bodies, dt, lanes);
#endif
#ifdef TS_BUILT_W8
    case 8:
    case 16: return ts_contact_recycle_lanes_w8(records, bodies, dt, lanes);
#endif
    default: return ts_contact_recycle_lanes_w1(records, bodies, dt, lanes);
    }
}

void ts_recycle_bodies_write(const ts_body_store *s, ts_recycle_body *bodies, int32_t begin, int32_t end)
{
    int32_t awake = s->table.end[TS_RANGE_AWAKE], sleeping = s->table.end[TS_RANGE_SLEEPING];
    for (int32_t i = begin; i < end; ++i) {
        float *f = bodies[i].f;
        f[TS_RECYCLE_BODY_P] = s->px[i];
        f[TS_RECYCLE_BODY_P + 1] = s->py[i];
        f[TS_RECYCLE_BODY_P + 2] = s->pz[i];
        f[TS_RECYCLE_BODY_Q] = s->qx[i];
        f[TS_RECYCLE_BODY_Q + 1] = s->qy[i];
        f[TS_RECYCLE_BODY_Q + 2] = s->qz[i];
        f[TS_RECYCLE_BODY_Q + 3] = s->qw[i];
        f[TS_RECYCLE_BODY_V] = s->vx[i];
        f[TS_RECYCLE_BODY_V + 1] = s->vy[i];
        f[TS_RECYCLE_BODY_V + 2] = s->vz[i];
        f[TS_RECYCLE_BODY_W] = s->wx[i];
        f[TS_RECYCLE_BODY_W + 1] = s->wy[i];
        f[TS_RECYCLE_BODY_W + 2] = s->wz[i];
        f[TS_RECYCLE_BODY_REACH] = i < sleeping ? s->max_extent[i] : 0.0f;
        f[TS_RECYCLE_BODY_AWAKE] = i < awake ? 1.0f : 0.0f;
        f[15] = 0.0f;
    }
}
