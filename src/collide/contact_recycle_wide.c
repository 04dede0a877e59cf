/* Contact recycling for many contacts at once (see contact_recycle.h), built
 * once per width (1, 4, 8; width 16 runs the 8-lane kernel).
 *
 * The narrowphase stage (narrowphase_stage.c) hands over batches of up to
 * TS_RECYCLE_LANES contacts whose fat bounds overlap and whose shapes sit at
 * their bodies' centres of mass: cached ones, and ones without points. This
 * kernel runs, TS_W lanes at a time, the part of the stage's one-contact
 * path that decides them: the speculative margin and the bounding-sphere
 * reach test (an uncached contact out of reach is done: flags 0), then for
 * a cached one each body's turn since the full test and the motion test of
 * ts_contact_recycle, and for those recycled the separations of their
 * points; for an uncached pair of boxes in reach, the face axes of
 * ts_collide_boxes' separating axis test (most such pairs of a pile are
 * side by side, apart along a face normal: an empty manifold). Whatever it
 * does not finish (a cached contact out of reach or not recycled, an
 * uncached one in reach and not separated by a face) it leaves untouched,
 * and the stage runs the one-contact path on it without retrying the
 * recycle.
 *
 * Bits: every lane does exactly the operations of the scalar code in the
 * same order (ts_quat_mul, ts_rotate, ts_dot and ts_length have their lane
 * twins in base/wide.h, fabsf is max(a, -a) where only compares read it, and the && of the tests is an
 * and of their masks: the tests have no side effects), so a lane's results
 * are the bits the one-contact path writes, at every width, and the state
 * hashes do not change (tests/expected_hashes.txt).
 *
 * Data: a lane's two bodies come from this step's 64-byte body records
 * (ts_recycle_body, written once a step) by four 16-byte loads each and
 * 4 x 4 transposes, not 26 scalar gathers from the body store's columns.
 * A batch's contacts usually follow each other in the store (a block's
 * contacts are mostly cached or far), so its per-contact columns come in by
 * plain loads and its per-point columns (point k of slot i at [4 i + k]:
 * 4 W floats in a row) by transposes, and the separations go back the same
 * way; a batch with gaps gathers and scatters lane by lane instead. */
#include "collide/contact_recycle.h"

#include "base/wide.h"
#include "collide/manifold.h"

#include <string.h>

#if TS_W <= TS_RECYCLE_LANES

/* |a| as fabsf gives it, but for the sign of a zero (+0 gives -0): max(a,
 * -a) is a for a > -a, else -a; NaN stays NaN. Only compares read it (and
 * sums that feed compares), and no compare tells -0 from +0. */
static inline ts_wf lane_abs(ts_wf a) { return ts_w_max(a, ts_w_neg(a)); }

/* a < b per lane, as the scalar compare (false for NaN) */
static inline ts_wm lane_less(ts_wf a, ts_wf b) { return ts_w_gt(b, a); }

/* The lanes' body records, field by field: field[f] lane l is float f of
 * bodies[index[l]] (ts_recycle_body is 16 floats): four 16-byte loads a
 * lane, put in lanes by 4 x 4 transposes. */
typedef struct body_lanes {
    ts_wv3 p, v, w;
    ts_wquat q;
    ts_wf reach, awake;
} body_lanes;

#if TS_W == 8
/* The 4 x 4 transposes of the two 128-bit halves of rows r0..r3: out[k]
 * holds float k of r0, r1, r2, r3 in each half. */
static inline void transpose_halves(simde__m256 r0, simde__m256 r1, simde__m256 r2, simde__m256 r3, ts_wf out[4])
{
    simde__m256 t0 = simde_mm256_unpacklo_ps(r0, r1); /* r0[0] r1[0] r0[1] r1[1] */
    simde__m256 t1 = simde_mm256_unpackhi_ps(r0, r1); /* r0[2] r1[2] r0[3] r1[3] */
    simde__m256 t2 = simde_mm256_unpacklo_ps(r2, r3);
    simde__m256 t3 = simde_mm256_unpackhi_ps(r2, r3);
    out[0] = simde_mm256_shuffle_ps(t0, t2, 0x44); /* r0[0] r1[0] r2[0] r3[0] */
    out[1] = simde_mm256_shuffle_ps(t0, t2, 0xEE);
    out[2] = simde_mm256_shuffle_ps(t1, t3, 0x44);
    out[3] = simde_mm256_shuffle_ps(t1, t3, 0xEE);
}
#endif

static inline body_lanes load_bodies(const ts_recycle_body *bodies, const int32_t index[TS_W])
{
    ts_wf f[16];
#if TS_W == 1
    const float *r = bodies[index[0]].f;
    for (int k = 0; k < 16; ++k) {
        f[k] = r[k];
    }
#elif TS_W == 4
    for (int k = 0; k < 16; k += 4) {
        simde__m128 r0 = simde_mm_loadu_ps(bodies[index[0]].f + k);
        simde__m128 r1 = simde_mm_loadu_ps(bodies[index[1]].f + k);
        simde__m128 r2 = simde_mm_loadu_ps(bodies[index[2]].f + k);
        simde__m128 r3 = simde_mm_loadu_ps(bodies[index[3]].f + k);
        SIMDE_MM_TRANSPOSE4_PS(r0, r1, r2, r3);
        f[k] = r0;
        f[k + 1] = r1;
        f[k + 2] = r2;
        f[k + 3] = r3;
    }
#else
    /* lanes 0-3 in the low halves, 4-7 in the high ones: one in-half
     * transpose gives all eight */
    for (int k = 0; k < 16; k += 4) {
        transpose_halves(simde_mm256_loadu2_m128(bodies[index[4]].f + k, bodies[index[0]].f + k),
                         simde_mm256_loadu2_m128(bodies[index[5]].f + k, bodies[index[1]].f + k),
                         simde_mm256_loadu2_m128(bodies[index[6]].f + k, bodies[index[2]].f + k),
                         simde_mm256_loadu2_m128(bodies[index[7]].f + k, bodies[index[3]].f + k), f + k);
    }
#endif
    enum { P = TS_RECYCLE_BODY_P, Q = TS_RECYCLE_BODY_Q, V = TS_RECYCLE_BODY_V, W = TS_RECYCLE_BODY_W };
    return (body_lanes){{f[P], f[P + 1], f[P + 2]},
                        {f[V], f[V + 1], f[V + 2]},
                        {f[W], f[W + 1], f[W + 2]},
                        {f[Q], f[Q + 1], f[Q + 2], f[Q + 3]},
                        f[TS_RECYCLE_BODY_REACH],
                        f[TS_RECYCLE_BODY_AWAKE]};
}

/* A contact column's lanes: one load when the lanes' slots follow each
 * other (the usual case: a block's contacts are mostly cached), else a
 * gather. The same values either way. */
typedef struct contact_lanes {
    const int32_t *slot;
    bool consecutive;
} contact_lanes;

static inline ts_wf load_contact(const float *column, contact_lanes c)
{
    return c.consecutive ? ts_w_load(column + c.slot[0]) : ts_w_load_indexed(column, c.slot);
}

static inline ts_wv3 load_contact3(const float *x, const float *y, const float *z, contact_lanes c)
{
    return (ts_wv3){load_contact(x, c), load_contact(y, c), load_contact(z, c)};
}

static inline ts_wquat load_contact_quat(const float *x, const float *y, const float *z, const float *w,
                                         contact_lanes c)
{
    return (ts_wquat){load_contact(x, c), load_contact(y, c), load_contact(z, c), load_contact(w, c)};
}

static inline ts_wf length3(ts_wv3 a) { return ts_w_sqrt(ts_wv3_dot(a, a)); }

/* The rotation matrix of q, tsn_mat3_from_quat's operations (collide_math.h):
 * col[j] is the world direction of the body's axis j. */
typedef struct lane_mat3 {
    ts_wv3 col[3];
} lane_mat3;

static inline lane_mat3 lane_matrix(ts_wquat q)
{
    ts_wf two = ts_w_splat(2.0f), one = ts_w_splat(1.0f);
    ts_wf xx = ts_w_mul(q.x, q.x), yy = ts_w_mul(q.y, q.y), zz = ts_w_mul(q.z, q.z);
    ts_wf xy = ts_w_mul(q.x, q.y), xz = ts_w_mul(q.x, q.z), yz = ts_w_mul(q.y, q.z);
    ts_wf wx = ts_w_mul(q.w, q.x), wy = ts_w_mul(q.w, q.y), wz = ts_w_mul(q.w, q.z);
    lane_mat3 m;
    m.col[0] = (ts_wv3){ts_w_sub(one, ts_w_mul(two, ts_w_add(yy, zz))), ts_w_mul(two, ts_w_add(xy, wz)),
                        ts_w_mul(two, ts_w_sub(xz, wy))};
    m.col[1] = (ts_wv3){ts_w_mul(two, ts_w_sub(xy, wz)), ts_w_sub(one, ts_w_mul(two, ts_w_add(xx, zz))),
                        ts_w_mul(two, ts_w_add(yz, wx))};
    m.col[2] = (ts_wv3){ts_w_mul(two, ts_w_add(xz, wy)), ts_w_mul(two, ts_w_sub(yz, wx)),
                        ts_w_sub(one, ts_w_mul(two, ts_w_add(xx, yy)))};
    return m;
}

/* R^T v, as tsn_mul_tv */
static inline ts_wv3 lane_mul_tv(const lane_mat3 *r, ts_wv3 v)
{
    return (ts_wv3){ts_wv3_dot(r->col[0], v), ts_wv3_dot(r->col[1], v), ts_wv3_dot(r->col[2], v)};
}

/* The lanes whose two boxes a face axis of A or of B separates by the
 * margin: ts_collide_boxes' query_faces_a and query_faces_b with the same
 * operations (collide_box.c; the largest separation of three reaches the
 * margin exactly when one of them does, NaN counting as none). Such a pair
 * has no points. */
static uint32_t faces_separate(const ts_recycle_lanes *lanes, int first, ts_wquat qa, ts_wquat qb, ts_wv3 centres,
                               ts_wf margin)
{
    lane_mat3 ra = lane_matrix(qa), rb = lane_matrix(qb);
    lane_mat3 c; /* A^T B, as tsn_mul_tm */
    for (int j = 0; j < 3; ++j) {
        c.col[j] = lane_mul_tv(&ra, rb.col[j]);
    }
    ts_wv3 t = lane_mul_tv(&ra, centres);
    ts_wf ha[3], hb[3];
    for (int k = 0; k < 3; ++k) {
        ha[k] = ts_w_load(lanes->half_a[k] + first);
        hb[k] = ts_w_load(lanes->half_b[k] + first);
    }
    ts_wf ti[3] = {t.x, t.y, t.z};
    ts_wm apart = ts_w_gt(ts_w_zero(), ts_w_zero()); /* none */
    for (int i = 0; i < 3; ++i) { /* A's face axis i */
        ts_wf cj[3] = {i == 0 ? c.col[0].x : (i == 1 ? c.col[0].y : c.col[0].z),
                       i == 0 ? c.col[1].x : (i == 1 ? c.col[1].y : c.col[1].z),
                       i == 0 ? c.col[2].x : (i == 1 ? c.col[2].y : c.col[2].z)};
        ts_wf r = ts_w_zero();
        for (int j = 0; j < 3; ++j) {
            r = ts_w_add(r, ts_w_mul(hb[j], lane_abs(cj[j])));
        }
        ts_wf sep = ts_w_sub(ts_w_sub(lane_abs(ti[i]), ha[i]), r);
        apart = ts_w_or(apart, ts_w_ge(sep, margin));
    }
    for (int j = 0; j < 3; ++j) { /* B's face axis j */
        ts_wv3 cj = c.col[j];
        ts_wf r = ts_w_add(ts_w_add(ts_w_mul(ha[0], lane_abs(cj.x)), ts_w_mul(ha[1], lane_abs(cj.y))),
                           ts_w_mul(ha[2], lane_abs(cj.z)));
        ts_wf sep = ts_w_sub(ts_w_sub(lane_abs(ts_wv3_dot(t, cj)), hb[j]), r);
        apart = ts_w_or(apart, ts_w_ge(sep, margin));
    }
    return ts_w_mask_bits(apart);
}

/* A lane whose full test gives no points, as update_contact writes it for a
 * contact that had none (no events: it was not touching). */
static void write_empty(ts_contact_store *s, int32_t i)
{
    ts_contact_forget_friction(s, i);
    s->nx[i] = 0.0f;
    s->ny[i] = 0.0f;
    s->nz[i] = 0.0f;
    s->point_count[i] = 0;
    s->flags[i] = 0u;
}

/* What a recycled lane's points need: the separation's terms of
 * ts_contact_recycle, per lane. */
typedef struct lane_terms {
    ts_wv3 na, nb, shift;
    ts_wf gap;
} lane_terms;

/* Lanes [first, first + TS_W) of the batch: the mask of those recycled (bit
 * l for lane first + l), their terms in *terms; in *dropped, the lanes
 * without points out of reach; in *emptied, the box lanes in reach that a
 * face axis separates. */
static uint32_t decide_lanes(const ts_records *records, const ts_recycle_body *bodies, float dt,
                             const ts_recycle_lanes *lanes, int first, contact_lanes contact, lane_terms *terms,
                             uint32_t *dropped, uint32_t *emptied)
{
    const ts_contact_store *s = &records->contact_store;

    /* the shapes' poses are their bodies' (the batch holds shapes at their
     * bodies' centres of mass, on the principal axes) */
    body_lanes a = load_bodies(bodies, lanes->slot_a + first);
    body_lanes b = load_bodies(bodies, lanes->slot_b + first);

    /* speculative_margin, then the bounding spheres' reach (narrowphase_stage.c) */
    ts_wf dtw = ts_w_splat(dt);
    ts_wf margin = ts_w_add(ts_w_splat(TS_SPECULATIVE_DISTANCE), ts_w_mul(dtw, length3(ts_wv3_sub(b.v, a.v))));
    ts_wf reach = ts_w_add(ts_w_add(ts_w_load(lanes->radius_a + first), ts_w_load(lanes->radius_b + first)), margin);
    ts_wv3 centres = ts_wv3_sub(b.p, a.p);
    ts_wf distance_sq = ts_wv3_dot(centres, centres);
    uint32_t far = ts_w_mask_bits(ts_w_gt(distance_sq, ts_w_mul(reach, reach)));

    /* ts_contact_recycle: each body's turn since the full test */
    ts_wquat cache_a = load_contact_quat(s->cache_ax, s->cache_ay, s->cache_az, s->cache_aw, contact);
    ts_wquat cache_b = load_contact_quat(s->cache_bx, s->cache_by, s->cache_bz, s->cache_bw, contact);
    ts_wquat turn_a = ts_wquat_mul(a.q, ts_wquat_conj(cache_a));
    ts_wquat turn_b = ts_wquat_mul(b.q, ts_wquat_conj(cache_b));
    ts_wv3 shift = load_contact3(s->shift_x, s->shift_y, s->shift_z, contact);
    ts_wv3 d = ts_wv3_add(centres, shift);

    /* motion_is_small */
    ts_wf turn_cos_sq = ts_w_splat(TS_RECYCLE_TURN_COS_SQ);
    uint32_t turned = ts_w_mask_bits(ts_w_or(lane_less(ts_w_mul(turn_a.w, turn_a.w), turn_cos_sq),
                                             lane_less(ts_w_mul(turn_b.w, turn_b.w), turn_cos_sq)));
    ts_wv3 n = load_contact3(s->nx, s->ny, s->nz, contact);
    ts_wf along = ts_wv3_dot(d, n);
    ts_wf slide = length3(ts_wv3_mul_add(d, ts_w_neg(along), n));
    ts_wf reach_a = a.reach, reach_b = b.reach;
    ts_wquat turn = ts_wquat_mul(ts_wquat_conj(turn_a), turn_b);
    ts_wf extent = ts_w_select(ts_w_gt(reach_a, reach_b), reach_a, reach_b);
    ts_wf arc = ts_w_mul(ts_w_mul(ts_w_splat(2.0f), length3((ts_wv3){turn.x, turn.y, turn.z})), extent);

    /* moves_slowly: static and sleeping bodies count as still */
    ts_wf zero = ts_w_zero();
    ts_wm awake_a = ts_w_gt(a.awake, zero), awake_b = ts_w_gt(b.awake, zero);
    ts_wv3 still = {zero, zero, zero};
    ts_wv3 dv = ts_wv3_sub(ts_wv3_select(awake_b, b.v, still), ts_wv3_select(awake_a, a.v, still));
    ts_wv3 dw = ts_wv3_sub(ts_wv3_select(awake_b, b.w, still), ts_wv3_select(awake_a, a.w, still));
    ts_wf speed = ts_w_add(length3(dv), ts_w_mul(length3(dw), extent));

    ts_wm small = ts_w_and(lane_less(ts_w_add(lane_abs(along), arc), ts_w_splat(TS_RECYCLE_DISTANCE)),
                           lane_less(ts_w_add(slide, arc), ts_w_splat(TS_RECYCLE_SLIDE)));
    small = ts_w_and(small, lane_less(ts_w_mul(speed, dtw), ts_w_splat(TS_RECYCLE_SLIDE)));
    uint32_t cached = lanes->cached >> first;
    uint32_t recycled = ts_w_mask_bits(small) & ~turned & ~far & cached;
    *dropped = far & ~cached;
    uint32_t boxes = (lanes->boxes >> first) & ~far & ((1u << TS_W) - 1u);
    *emptied = boxes != 0u ? faces_separate(lanes, first, a.q, b.q, centres, margin) & boxes : 0u;
    if (recycled == 0u) {
        memset(terms, 0, sizeof *terms); /* unread, but defined */
        return 0u;
    }

    /* n . (dqB rB - dqA rA) = (dqB^-1 n) . rB - (dqA^-1 n) . rA */
    terms->na = ts_wquat_rotate(ts_wquat_conj(turn_a), n);
    terms->nb = ts_wquat_rotate(ts_wquat_conj(turn_b), n);
    terms->shift = shift;
    terms->gap = ts_wv3_dot(n, centres);
    return recycled;
}

/* Point k of each lane from a per-point column (point k of slot i at
 * [4 i + k]): out[k] for k = 0..3. Consecutive slots hold 4 TS_W floats in
 * a row, put in lanes by transposes; else one gather per point. */
static inline void load_points(const float *column, contact_lanes c, const int32_t first_point[TS_W], ts_wf out[4])
{
#if TS_W == 1
    (void)first_point;
    for (int k = 0; k < 4; ++k) {
        out[k] = column[4 * c.slot[0] + k];
    }
#else
    if (!c.consecutive) {
        for (int k = 0; k < 4; ++k) {
            out[k] = ts_w_load_indexed(column + k, first_point);
        }
        return;
    }
    const float *row = column + 4 * c.slot[0];
#if TS_W == 4
    simde__m128 r0 = simde_mm_loadu_ps(row), r1 = simde_mm_loadu_ps(row + 4);
    simde__m128 r2 = simde_mm_loadu_ps(row + 8), r3 = simde_mm_loadu_ps(row + 12);
    SIMDE_MM_TRANSPOSE4_PS(r0, r1, r2, r3);
    out[0] = r0;
    out[1] = r1;
    out[2] = r2;
    out[3] = r3;
#else
    /* rows a_j = lanes 2j, 2j + 1; halves regrouped so that the low ones
     * hold lanes 0-3 and the high ones 4-7, then transposed */
    simde__m256 a0 = simde_mm256_loadu_ps(row), a1 = simde_mm256_loadu_ps(row + 8);
    simde__m256 a2 = simde_mm256_loadu_ps(row + 16), a3 = simde_mm256_loadu_ps(row + 24);
    transpose_halves(simde_mm256_permute2f128_ps(a0, a2, 0x20), simde_mm256_permute2f128_ps(a0, a2, 0x31),
                     simde_mm256_permute2f128_ps(a1, a3, 0x20), simde_mm256_permute2f128_ps(a1, a3, 0x31), out);
#endif
#endif
}

/* Writes point k of each lane back to a per-point column, for consecutive
 * slots: the inverse of load_points' transposes. */
static inline void store_points(float *column, contact_lanes c, const ts_wf in[4])
{
    float *row = column + 4 * c.slot[0];
#if TS_W == 1
    for (int k = 0; k < 4; ++k) {
        row[k] = in[k];
    }
#elif TS_W == 4
    simde__m128 r0 = in[0], r1 = in[1], r2 = in[2], r3 = in[3];
    SIMDE_MM_TRANSPOSE4_PS(r0, r1, r2, r3);
    simde_mm_storeu_ps(row, r0);
    simde_mm_storeu_ps(row + 4, r1);
    simde_mm_storeu_ps(row + 8, r2);
    simde_mm_storeu_ps(row + 12, r3);
#else
    ts_wf b[4]; /* b_j: lane j's points in the low half, lane j + 4's in the high one */
    transpose_halves(in[0], in[1], in[2], in[3], b);
    simde_mm256_storeu_ps(row, simde_mm256_permute2f128_ps(b[0], b[1], 0x20));
    simde_mm256_storeu_ps(row + 8, simde_mm256_permute2f128_ps(b[2], b[3], 0x20));
    simde_mm256_storeu_ps(row + 16, simde_mm256_permute2f128_ps(b[0], b[1], 0x31));
    simde_mm256_storeu_ps(row + 24, simde_mm256_permute2f128_ps(b[2], b[3], 0x31));
#endif
}

/* The recycled lanes' separations (bits), as ts_contact_recycle writes
 * them: s = s0 + (gap + (nb . (rA + shift) - na . rA)) per point, the
 * lanes' points k computed together. Consecutive slots are written back
 * whole, each point past a lane's count and each lane not recycled with
 * the value it had; else lane by lane. */
static void update_points(ts_contact_store *s, contact_lanes c, const lane_terms *t, uint32_t bits)
{
    int32_t first_point[TS_W];
    float count[TS_W]; /* a recycled lane's point count, else 0 */
    for (int l = 0; l < TS_W; ++l) {
        first_point[l] = 4 * c.slot[l];
        count[l] = (bits >> l & 1u) != 0u ? (float)s->point_count[c.slot[l]] : 0.0f;
    }
    ts_wf ax[4], ay[4], az[4], base[4], separation[4];
    load_points(s->anchor_ax, c, first_point, ax);
    load_points(s->anchor_ay, c, first_point, ay);
    load_points(s->anchor_az, c, first_point, az);
    load_points(s->base_separation, c, first_point, base);
    for (int k = 0; k < 4; ++k) {
        ts_wv3 ra = {ax[k], ay[k], az[k]};
        ts_wv3 rb = ts_wv3_add(ra, t->shift);
        ts_wf moved = ts_w_sub(ts_wv3_dot(t->nb, rb), ts_wv3_dot(t->na, ra));
        separation[k] = ts_w_add(base[k], ts_w_add(t->gap, moved));
    }
    if (c.consecutive) {
        ts_wf old[4];
        load_points(s->separation, c, first_point, old);
        ts_wf points = ts_w_load(count);
        for (int k = 0; k < 4; ++k) {
            separation[k] = ts_w_select(ts_w_gt(points, ts_w_splat((float)k)), separation[k], old[k]);
        }
        store_points(s->separation, c, separation);
    } else {
        float lanes[4][TS_W];
        for (int k = 0; k < 4; ++k) {
            ts_w_store(lanes[k], separation[k]);
        }
        for (uint32_t left = bits; left != 0u; left &= left - 1u) {
            int l = ts_ctz32(left);
            int32_t i = c.slot[l];
            for (int k = 0; k < s->point_count[i]; ++k) {
                s->separation[4 * i + k] = lanes[k][l];
            }
        }
    }
    for (; bits != 0u; bits &= bits - 1u) {
        s->flags[c.slot[ts_ctz32(bits)]] = TS_CONTACT_TOUCHING | TS_CONTACT_CACHED;
    }
}

uint32_t TS_WIDE(ts_contact_recycle_lanes)(ts_records *records, const ts_recycle_body *bodies, float dt,
                                           const ts_recycle_lanes *lanes)
{
    ts_contact_store *s = &records->contact_store;
    uint32_t done = 0u;
    for (int first = 0; first < lanes->count; first += TS_W) {
        /* slots only grow along a batch, so the ends tell whether they follow each other */
        const int32_t *slot = lanes->contact + first;
        contact_lanes contact = {slot, slot[TS_W - 1] == slot[0] + TS_W - 1};
        lane_terms terms;
        uint32_t dropped, emptied;
        uint32_t bits = decide_lanes(records, bodies, dt, lanes, first, contact, &terms, &dropped, &emptied);
        uint32_t used = first + TS_W > lanes->count ? (1u << (lanes->count - first)) - 1u : (1u << TS_W) - 1u;
        bits &= used; /* not the padding lanes */
        dropped &= used;
        emptied &= used;
        for (uint32_t left = emptied; left != 0u; left &= left - 1u) {
            write_empty(s, slot[ts_ctz32(left)]);
        }
        if (bits != 0u) {
            update_points(s, contact, &terms, bits);
        }
        for (uint32_t left = dropped; left != 0u; left &= left - 1u) {
            s->flags[slot[ts_ctz32(left)]] = 0u; /* narrowphase_stage.c: far, and nothing to forget */
        }
        done |= (bits | dropped | emptied) << first;
    }
    return done;
}

#endif
