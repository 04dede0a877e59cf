/* Contact recycling (see contact_recycle.h). */
#include "collide/contact_recycle.h"

#include "base/math3.h"

/* Neither body may have turned more than ~10 degrees since the full test:
 * the anchors' world orientation is that old. cos^2 of half of 10 degrees,
 * compared with (q . q0)^2, which is cos^2 of half the turn (the sign of q
 * does not matter). */
#define TS_RECYCLE_TURN_COS_SQ 0.99240388f

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
 * bodies climbed its walls (17 runs, contact hertz 28 to 32); 1.3 with
 * this test, as many as before recycling. */
static bool moves_slowly(const ts_body_store *store, float dt, int32_t body_a, int32_t body_b, float extent)
{
    ts_vec3 va, wa, vb, wb;
    body_velocity(store, body_a, &va, &wa);
    body_velocity(store, body_b, &vb, &wb);
    float speed = ts_length(ts_sub(vb, va)) + ts_length(ts_sub(wb, wa)) * extent;
    return speed * dt < TS_RECYCLE_SLIDE;
}

static float quat_dot(ts_quat a, ts_quat b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }

static ts_quat cached_rotation_a(const ts_contact_store *s, int32_t i)
{
    return (ts_quat){s->cache_ax[i], s->cache_ay[i], s->cache_az[i], s->cache_aw[i]};
}

static ts_transform cached_relative(const ts_contact_store *s, int32_t i)
{
    return (ts_transform){{s->cache_px[i], s->cache_py[i], s->cache_pz[i]},
                          {s->cache_qx[i], s->cache_qy[i], s->cache_qz[i], s->cache_qw[i]}};
}

/* Whether the motion since the full test is small enough. Shape B's
 * relative translation d splits into the part along the normal, which a
 * loaded contact takes as it compresses (up to TS_RECYCLE_DISTANCE), and
 * the slide across it, which moves the touching features (up to
 * TS_RECYCLE_SLIDE); the arc 2 |sin(theta / 2)| r that the farthest point
 * travels in the relative turn theta counts against both; and each body
 * turned less than ~10 degrees in the world. */
static bool motion_is_small(const ts_records *records, float dt, int32_t i, ts_transform xa, ts_transform xb,
                            ts_quat qa0, ts_quat qb0)
{
    const ts_contact_store *s = &records->contact_store;
    float turn_a = quat_dot(xa.q, qa0), turn_b = quat_dot(xb.q, qb0);
    if (turn_a * turn_a < TS_RECYCLE_TURN_COS_SQ || turn_b * turn_b < TS_RECYCLE_TURN_COS_SQ) {
        return false;
    }
    ts_transform cached = cached_relative(s, i);
    ts_transform relative = ts_transform_inv_mul(xa, xb);
    ts_vec3 d = ts_sub(relative.p, cached.p);
    ts_vec3 n = ts_inv_rotate(qa0, ts_v3(s->nx[i], s->ny[i], s->nz[i])); /* in A's frame */
    float along = ts_dot(d, n);
    float slide = ts_length(ts_mul_add(d, -along, n));
    ts_quat turn = ts_quat_mul(ts_quat_conj(cached.q), relative.q);
    float ra = reach(&records->store, s->body_a[i]), rb = reach(&records->store, s->body_b[i]);
    float extent = ra > rb ? ra : rb;
    if (!moves_slowly(&records->store, dt, s->body_a[i], s->body_b[i], extent)) {
        return false;
    }
    float arc = 2.0f * ts_length(ts_v3(turn.x, turn.y, turn.z)) * extent;
    return fabsf(along) + arc < TS_RECYCLE_DISTANCE && slide + arc < TS_RECYCLE_SLIDE;
}

bool ts_contact_recycle(ts_records *records, float dt, int32_t i, ts_transform xa, ts_transform xb, ts_vec3 ca,
                        ts_vec3 cb)
{
    ts_contact_store *s = &records->contact_store;
    ts_quat qa0 = cached_rotation_a(s, i);
    ts_transform cached = cached_relative(s, i);
    ts_quat qb0 = ts_quat_mul(qa0, cached.q);
    if (!motion_is_small(records, dt, i, xa, xb, qa0, qb0)) {
        return false;
    }
    /* each body's turn since the full test (shape and body turn alike) */
    ts_quat turn_a = ts_quat_mul(xa.q, ts_quat_conj(qa0));
    ts_quat turn_b = ts_quat_mul(xb.q, ts_quat_conj(qb0));
    ts_vec3 n = ts_v3(s->nx[i], s->ny[i], s->nz[i]);
    ts_vec3 shift = ts_v3(s->shift_x[i], s->shift_y[i], s->shift_z[i]);
    ts_vec3 centres = ts_sub(cb, ca); /* first, so that far from the origin the anchors add to a small number */
    for (int k = 0; k < s->point_count[i]; ++k) {
        int p = 4 * i + k;
        ts_vec3 ra = ts_v3(s->anchor_ax[p], s->anchor_ay[p], s->anchor_az[p]);
        ts_vec3 rb = ts_add(ra, shift);
        ts_vec3 gap = ts_add(centres, ts_sub(ts_rotate(turn_b, rb), ts_rotate(turn_a, ra)));
        s->separation[p] = s->base_separation[p] + ts_dot(n, gap);
    }
    return true;
}

void ts_contact_remember(ts_records *records, int32_t i, ts_transform xa, ts_transform xb, ts_vec3 ca, ts_vec3 cb)
{
    ts_contact_store *s = &records->contact_store;
    ts_transform relative = ts_transform_inv_mul(xa, xb);
    s->cache_px[i] = relative.p.x;
    s->cache_py[i] = relative.p.y;
    s->cache_pz[i] = relative.p.z;
    s->cache_qx[i] = relative.q.x;
    s->cache_qy[i] = relative.q.y;
    s->cache_qz[i] = relative.q.z;
    s->cache_qw[i] = relative.q.w;
    s->cache_ax[i] = xa.q.x;
    s->cache_ay[i] = xa.q.y;
    s->cache_az[i] = xa.q.z;
    s->cache_aw[i] = xa.q.w;
    /* minus the recycle's cb - ca, the same rounding */
    ts_vec3 shift = ts_neg(ts_sub(cb, ca));
    s->shift_x[i] = shift.x;
    s->shift_y[i] = shift.y;
    s->shift_z[i] = shift.z;
    for (int k = 0; k < s->point_count[i]; ++k) {
        s->base_separation[4 * i + k] = s->separation[4 * i + k];
    }
}
