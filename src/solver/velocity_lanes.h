/* The velocities alone of TS_W body states (compiled once per width): the
 * gather of v and w into lanes and their scatter back, for kernels that keep
 * the pose they need in their own bundle (ball_joint.c) and so skip the dp
 * and dq half of a body state.
 *
 * At W = 8 a row pairs lane l's group with lane l + 4's (a 16-byte load and
 * an insert into the upper half), so one 4x4 transpose of 256-bit rows
 * yields all eight lanes of x, y and z (7 shuffles; the padding column is
 * never formed); W = 4 is the same on 128-bit rows, W = 16 on 512-bit rows
 * of four quarters (lanes l, l + 4, l + 8, l + 12: AVX-512's unpack and
 * shuffle work within quarters; only in the AVX-512 build, TS_W16_QUARTERS:
 * emulated on AVX2 they cost twice the lane-by-lane way). W = 1 and the
 * AVX2 build of W = 16 go lane by lane. gather_state does the same for a whole state (v, w, dp, dq). */
#ifndef TS_VELOCITY_LANES_H
#define TS_VELOCITY_LANES_H

#include "base/core.h"
#include "solver/body_lanes.h"
#include "solver/body_state.h"
#include "base/wide.h"

#include <stddef.h>
#include <string.h>

typedef struct velocity_lanes {
    ts_wv3 v, w;
} velocity_lanes;

/* Lane l's state as floats: index[l] counts states (scale 64, the
 * integrators' slots) or bytes (scale 1, the ball bundles' offsets, which
 * spare a shift per lane and pass). */
#define VL_LANE(states, index, l, scale) ((const float *)((const char *)(states) + (ptrdiff_t)(index)[l] * (scale)))

#if TS_W == 4 || TS_W == 8 || TS_W16_QUARTERS

#if TS_W16_QUARTERS
#define VL_UNPACKLO simde_mm512_unpacklo_ps
#define VL_UNPACKHI simde_mm512_unpackhi_ps
#define VL_SHUFFLE simde_mm512_shuffle_ps

/* Lane l's group in the first quarter, lanes l + 4, l + 8, l + 12 in the
 * others. */
TS_FORCE_INLINE ts_wf velocity_row(const ts_body_state *states, const int32_t *index, int l, int offset, int scale)
{
    ts_wf r = simde_mm512_castps128_ps512(simde_mm_loadu_ps(VL_LANE(states, index, l, scale) + offset));
    r = simde_mm512_insertf32x4(r, simde_mm_loadu_ps(VL_LANE(states, index, l + 4, scale) + offset), 1);
    r = simde_mm512_insertf32x4(r, simde_mm_loadu_ps(VL_LANE(states, index, l + 8, scale) + offset), 2);
    return simde_mm512_insertf32x4(r, simde_mm_loadu_ps(VL_LANE(states, index, l + 12, scale) + offset), 3);
}
#elif TS_W == 8
#define VL_UNPACKLO simde_mm256_unpacklo_ps
#define VL_UNPACKHI simde_mm256_unpackhi_ps
#define VL_SHUFFLE simde_mm256_shuffle_ps

/* Lane l's group in the low half, lane l + 4's in the high half. */
TS_FORCE_INLINE ts_wf velocity_row(const ts_body_state *states, const int32_t *index, int l, int offset, int scale)
{
    simde__m128 lo = simde_mm_loadu_ps(VL_LANE(states, index, l, scale) + offset);
    simde__m128 hi = simde_mm_loadu_ps(VL_LANE(states, index, l + 4, scale) + offset);
    return simde_mm256_insertf128_ps(simde_mm256_castps128_ps256(lo), hi, 1);
}
#else
#define VL_UNPACKLO simde_mm_unpacklo_ps
#define VL_UNPACKHI simde_mm_unpackhi_ps
#define VL_SHUFFLE simde_mm_shuffle_ps

TS_FORCE_INLINE ts_wf velocity_row(const ts_body_state *states, const int32_t *index, int l, int offset, int scale)
{
    return simde_mm_loadu_ps(VL_LANE(states, index, l, scale) + offset);
}
#endif

/* Rows (x, y, z, pad) of lanes 0..3 (and 4..7 in the upper half) into x, y,
 * z columns: unpack pairs of rows, then pick the halves. */
TS_FORCE_INLINE ts_wv3 gather_group(const ts_body_state *states, const int32_t *index, int offset, int scale)
{
    ts_wf r0 = velocity_row(states, index, 0, offset, scale), r1 = velocity_row(states, index, 1, offset, scale);
    ts_wf r2 = velocity_row(states, index, 2, offset, scale), r3 = velocity_row(states, index, 3, offset, scale);
    ts_wf lo01 = VL_UNPACKLO(r0, r1), lo23 = VL_UNPACKLO(r2, r3); /* x0 x1 y0 y1, x2 x3 y2 y3 */
    ts_wf hi01 = VL_UNPACKHI(r0, r1), hi23 = VL_UNPACKHI(r2, r3); /* z0 z1 p p, z2 z3 p p */
    return (ts_wv3){VL_SHUFFLE(lo01, lo23, SIMDE_MM_SHUFFLE(1, 0, 1, 0)),
                    VL_SHUFFLE(lo01, lo23, SIMDE_MM_SHUFFLE(3, 2, 3, 2)),
                    VL_SHUFFLE(hi01, hi23, SIMDE_MM_SHUFFLE(1, 0, 1, 0))};
}

TS_FORCE_INLINE velocity_lanes gather_velocities(const ts_body_state *states, const int32_t index[TS_W])
{
    return (velocity_lanes){gather_group(states, index, 0, 64), gather_group(states, index, 4, 64)};
}

/* The same from byte offsets of the states. */
TS_FORCE_INLINE velocity_lanes gather_velocities_at(const ts_body_state *states, const int32_t offset[TS_W])
{
    return (velocity_lanes){gather_group(states, offset, 0, 1), gather_group(states, offset, 4, 1)};
}

/* The four components of a quaternion group (dq), all four columns. */
TS_FORCE_INLINE ts_wquat gather_quat(const ts_body_state *states, const int32_t *index, int offset, int scale)
{
    ts_wf r0 = velocity_row(states, index, 0, offset, scale), r1 = velocity_row(states, index, 1, offset, scale);
    ts_wf r2 = velocity_row(states, index, 2, offset, scale), r3 = velocity_row(states, index, 3, offset, scale);
    ts_wf lo01 = VL_UNPACKLO(r0, r1), lo23 = VL_UNPACKLO(r2, r3);
    ts_wf hi01 = VL_UNPACKHI(r0, r1), hi23 = VL_UNPACKHI(r2, r3);
    return (ts_wquat){VL_SHUFFLE(lo01, lo23, SIMDE_MM_SHUFFLE(1, 0, 1, 0)),
                      VL_SHUFFLE(lo01, lo23, SIMDE_MM_SHUFFLE(3, 2, 3, 2)),
                      VL_SHUFFLE(hi01, hi23, SIMDE_MM_SHUFFLE(1, 0, 1, 0)),
                      VL_SHUFFLE(hi01, hi23, SIMDE_MM_SHUFFLE(3, 2, 3, 2))};
}

/* The whole state with the same transposes (v, w, dp, dq). */
TS_FORCE_INLINE body_lanes gather_state_scaled(const ts_body_state *states, const int32_t index[TS_W], int scale)
{
    return (body_lanes){gather_group(states, index, 0, scale), gather_group(states, index, 4, scale),
                        gather_group(states, index, 8, scale), gather_quat(states, index, 12, scale)};
}

TS_FORCE_INLINE body_lanes gather_state(const ts_body_state *states, const int32_t index[TS_W])
{
    return gather_state_scaled(states, index, 64);
}

/* The same from byte offsets of the states. */
TS_FORCE_INLINE body_lanes gather_state_at(const ts_body_state *states, const int32_t offset[TS_W])
{
    return gather_state_scaled(states, offset, 1);
}

/* x, y, z, w columns back into rows (x, y, z, w): rows[l] holds lane l
 * (and lane l + 4 in the upper half at W = 8; l + 4, l + 8, l + 12 in the
 * other quarters at W = 16). */
TS_FORCE_INLINE void column_rows(ts_wf x, ts_wf y, ts_wf z, ts_wf w, ts_wf rows[4])
{
    ts_wf xy01 = VL_UNPACKLO(x, y), xy23 = VL_UNPACKHI(x, y); /* x0 y0 x1 y1, x2 y2 x3 y3 */
    ts_wf zw01 = VL_UNPACKLO(z, w), zw23 = VL_UNPACKHI(z, w); /* z0 w0 z1 w1, z2 w2 z3 w3 */
    rows[0] = VL_SHUFFLE(xy01, zw01, SIMDE_MM_SHUFFLE(1, 0, 1, 0));
    rows[1] = VL_SHUFFLE(xy01, zw01, SIMDE_MM_SHUFFLE(3, 2, 3, 2));
    rows[2] = VL_SHUFFLE(xy23, zw23, SIMDE_MM_SHUFFLE(1, 0, 1, 0));
    rows[3] = VL_SHUFFLE(xy23, zw23, SIMDE_MM_SHUFFLE(3, 2, 3, 2));
}

/* x, y, z columns back into rows (x, y, z, 0). */
TS_FORCE_INLINE void group_rows(ts_wv3 c, ts_wf rows[4]) { column_rows(c.x, c.y, c.z, ts_w_zero(), rows); }

/* Lane l's row (and lane l + 4's, the upper half at W = 8; the quarters at
 * W = 16) to the group at `offset` floats of their states, for the lanes
 * set in `write`. */
TS_FORCE_INLINE void store_row(ts_body_state *states, const int32_t index[TS_W], int l, int offset, ts_wf row,
                               uint32_t write)
{
#if TS_W16_QUARTERS
#define VL_STORE_QUARTER(q)                                                                                   \
    if ((write >> (l + 4 * (q)) & 1u) != 0) {                                                                 \
        simde_mm_storeu_ps((float *)(states + index[l + 4 * (q)]) + offset, simde_mm512_extractf32x4_ps(row, q)); \
    }
    VL_STORE_QUARTER(0) VL_STORE_QUARTER(1) VL_STORE_QUARTER(2) VL_STORE_QUARTER(3)
#undef VL_STORE_QUARTER
#elif TS_W == 8
    if ((write >> l & 1u) != 0) {
        simde_mm_storeu_ps((float *)(states + index[l]) + offset, simde_mm256_castps256_ps128(row));
    }
    if ((write >> (l + 4) & 1u) != 0) {
        simde_mm_storeu_ps((float *)(states + index[l + 4]) + offset, simde_mm256_extractf128_ps(row, 1));
    }
#else
    if ((write >> l & 1u) != 0) {
        simde_mm_storeu_ps((float *)(states + index[l]) + offset, row);
    }
#endif
}

/* Rows of lanes [0, count) to the group at `offset` floats of their states
 * (written out, a full bundle without tests: as a loop the rows went
 * through the stack). */
TS_FORCE_INLINE void store_rows_count(ts_body_state *states, const int32_t index[TS_W], int count, int offset,
                                      const ts_wf rows[4])
{
    uint32_t write = count == TS_W ? (1u << TS_W) - 1u : (1u << count) - 1u;
    store_row(states, index, 0, offset, rows[0], write);
    store_row(states, index, 1, offset, rows[1], write);
    store_row(states, index, 2, offset, rows[2], write);
    store_row(states, index, 3, offset, rows[3], write);
}

/* Writes dp, dq and (when write_w) w, not v, of the first `count` lanes
 * (the position integrator's bundles of consecutive slots). */
TS_FORCE_INLINE void scatter_motion_count(ts_body_state *states, const int32_t index[TS_W], int count, ts_wv3 w,
                                          ts_wv3 dp, ts_wquat dq, bool write_w)
{
    ts_wf rows[4];
    if (write_w) {
        group_rows(w, rows);
        store_rows_count(states, index, count, 4, rows);
    }
    group_rows(dp, rows);
    store_rows_count(states, index, count, 8, rows);
    column_rows(dq.x, dq.y, dq.z, dq.w, rows);
    store_rows_count(states, index, count, 12, rows);
}

/* Lane l's v and w rows (the 16-byte groups at offsets 0 and 4). */
TS_FORCE_INLINE void store_lane(ts_body_state *states, int32_t index, simde__m128 v, simde__m128 w, int scale)
{
    float *s = (float *)((char *)states + (ptrdiff_t)index * scale);
    simde_mm_storeu_ps(s, v);
    simde_mm_storeu_ps(s + 4, w);
}

/* Lane l's rows (and lane l + 4's, the upper halves at W = 8; the quarters
 * at W = 16) for the lanes set in `write`. */
TS_FORCE_INLINE void store_lane_rows(ts_body_state *states, const int32_t index[TS_W], int l, ts_wf v, ts_wf w,
                                     uint32_t write, int scale)
{
#if TS_W16_QUARTERS
#define VL_STORE_QUARTER(q)                                                                                   \
    if ((write >> (l + 4 * (q)) & 1u) != 0) {                                                                 \
        store_lane(states, index[l + 4 * (q)], simde_mm512_extractf32x4_ps(v, q), simde_mm512_extractf32x4_ps(w, q), \
                   scale);                                                                                    \
    }
    VL_STORE_QUARTER(0) VL_STORE_QUARTER(1) VL_STORE_QUARTER(2) VL_STORE_QUARTER(3)
#undef VL_STORE_QUARTER
#elif TS_W == 8
    if ((write >> l & 1u) != 0) {
        store_lane(states, index[l], simde_mm256_castps256_ps128(v), simde_mm256_castps256_ps128(w), scale);
    }
    if ((write >> (l + 4) & 1u) != 0) {
        store_lane(states, index[l + 4], simde_mm256_extractf128_ps(v, 1), simde_mm256_extractf128_ps(w, 1), scale);
    }
#else
    if ((write >> l & 1u) != 0) {
        store_lane(states, index[l], v, w, scale);
    }
#endif
}

/* Writes v and w back for the lanes whose body is dynamic (inverse mass >
 * 0; see scatter in body_lanes.h): when every lane's is, without a test per
 * lane (the four calls written out: as a loop the rows went through the
 * stack). */
TS_FORCE_INLINE void scatter_velocities_scaled(ts_body_state *states, const int32_t index[TS_W],
                                               const float inv_mass[TS_W], velocity_lanes b, int scale)
{
    ts_wf v[4], w[4];
    group_rows(b.v, v);
    group_rows(b.w, w);
    uint32_t all = (1u << TS_W) - 1u;
    uint32_t dynamic = ts_w_mask_bits(ts_w_gt(ts_w_load(inv_mass), ts_w_zero()));
    if (dynamic == all) {
        store_lane_rows(states, index, 0, v[0], w[0], all, scale);
        store_lane_rows(states, index, 1, v[1], w[1], all, scale);
        store_lane_rows(states, index, 2, v[2], w[2], all, scale);
        store_lane_rows(states, index, 3, v[3], w[3], all, scale);
    } else {
        store_lane_rows(states, index, 0, v[0], w[0], dynamic, scale);
        store_lane_rows(states, index, 1, v[1], w[1], dynamic, scale);
        store_lane_rows(states, index, 2, v[2], w[2], dynamic, scale);
        store_lane_rows(states, index, 3, v[3], w[3], dynamic, scale);
    }
}

TS_FORCE_INLINE void scatter_velocities(ts_body_state *states, const int32_t index[TS_W], const float inv_mass[TS_W],
                                        velocity_lanes b)
{
    scatter_velocities_scaled(states, index, inv_mass, b, 64);
}

/* The same to byte offsets of the states. */
TS_FORCE_INLINE void scatter_velocities_at(ts_body_state *states, const int32_t offset[TS_W],
                                           const float inv_mass[TS_W], velocity_lanes b)
{
    scatter_velocities_scaled(states, offset, inv_mass, b, 1);
}

/* Writes v and w back for the first `count` lanes, whatever their mass
 * (the integrators' bundles of consecutive slots). */
TS_FORCE_INLINE void scatter_velocities_count(ts_body_state *states, const int32_t index[TS_W], int count,
                                              velocity_lanes b)
{
    ts_wf v[4], w[4];
    group_rows(b.v, v);
    group_rows(b.w, w);
    uint32_t write = count == TS_W ? (1u << TS_W) - 1u : (1u << count) - 1u;
    store_lane_rows(states, index, 0, v[0], w[0], write, 64);
    store_lane_rows(states, index, 1, v[1], w[1], write, 64);
    store_lane_rows(states, index, 2, v[2], w[2], write, 64);
    store_lane_rows(states, index, 3, v[3], w[3], write, 64);
}

#undef VL_UNPACKLO
#undef VL_UNPACKHI
#undef VL_SHUFFLE

#else

TS_FORCE_INLINE body_lanes gather_state(const ts_body_state *states, const int32_t index[TS_W])
{
    return gather(states, index);
}

TS_FORCE_INLINE velocity_lanes gather_velocities(const ts_body_state *states, const int32_t index[TS_W])
{
    float rows[6][TS_W];  /* lane by lane */
    for (int l = 0; l < TS_W; ++l) {
        const ts_body_state *s = states + index[l];
        rows[0][l] = s->v.x;
        rows[1][l] = s->v.y;
        rows[2][l] = s->v.z;
        rows[3][l] = s->w.x;
        rows[4][l] = s->w.y;
        rows[5][l] = s->w.z;
    }
    return (velocity_lanes){ts_wv3_load((const float(*)[TS_W])rows), ts_wv3_load((const float(*)[TS_W])(rows + 3))};
}

TS_FORCE_INLINE void scatter_velocities(ts_body_state *states, const int32_t index[TS_W], const float inv_mass[TS_W],
                                        velocity_lanes b)
{
    float rows[6][TS_W];
    ts_wv3_store(rows, b.v);
    ts_wv3_store(rows + 3, b.w);
    for (int l = 0; l < TS_W; ++l) {
        if (inv_mass[l] > 0.0f) {
            ts_body_state *s = states + index[l];
            s->v = (ts_vec3){rows[0][l], rows[1][l], rows[2][l]};
            s->w = (ts_vec3){rows[3][l], rows[4][l], rows[5][l]};
        }
    }
}

TS_FORCE_INLINE void scatter_motion_count(ts_body_state *states, const int32_t index[TS_W], int count, ts_wv3 w,
                                          ts_wv3 dp, ts_wquat dq, bool write_w)
{
    float rows[10][TS_W];
    ts_wv3_store(rows, w);
    ts_wv3_store(rows + 3, dp);
    ts_w_store(rows[6], dq.x);
    ts_w_store(rows[7], dq.y);
    ts_w_store(rows[8], dq.z);
    ts_w_store(rows[9], dq.w);
    for (int l = 0; l < count; ++l) {
        ts_body_state *s = states + index[l];
        if (write_w) {
            s->w = (ts_vec3){rows[0][l], rows[1][l], rows[2][l]};
        }
        s->dp = (ts_vec3){rows[3][l], rows[4][l], rows[5][l]};
        s->dq = (ts_quat){rows[6][l], rows[7][l], rows[8][l], rows[9][l]};
    }
}

TS_FORCE_INLINE void scatter_velocities_count(ts_body_state *states, const int32_t index[TS_W], int count,
                                              velocity_lanes b)
{
    float rows[6][TS_W];
    ts_wv3_store(rows, b.v);
    ts_wv3_store(rows + 3, b.w);
    for (int l = 0; l < count; ++l) {
        ts_body_state *s = states + index[l];
        s->v = (ts_vec3){rows[0][l], rows[1][l], rows[2][l]};
        s->w = (ts_vec3){rows[3][l], rows[4][l], rows[5][l]};
    }
}

/* Byte offsets of the states back to indices (every width but 4 and 8). */
TS_FORCE_INLINE void offsets_to_index(const int32_t offset[TS_W], int32_t index[TS_W])
{
    for (int l = 0; l < TS_W; ++l) {
        index[l] = offset[l] / (int32_t)sizeof(ts_body_state);
    }
}

TS_FORCE_INLINE velocity_lanes gather_velocities_at(const ts_body_state *states, const int32_t offset[TS_W])
{
    int32_t index[TS_W];
    offsets_to_index(offset, index);
    return gather_velocities(states, index);
}

TS_FORCE_INLINE body_lanes gather_state_at(const ts_body_state *states, const int32_t offset[TS_W])
{
    int32_t index[TS_W];
    offsets_to_index(offset, index);
    return gather_state(states, index);
}

TS_FORCE_INLINE void scatter_velocities_at(ts_body_state *states, const int32_t offset[TS_W],
                                           const float inv_mass[TS_W], velocity_lanes b)
{
    int32_t index[TS_W];
    offsets_to_index(offset, index);
    scatter_velocities(states, index, inv_mass, b);
}

#endif

#endif
