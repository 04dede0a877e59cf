/* Body states of TS_W lanes (compiled once per width, like the kernels
 * that use it): the gather of ts_body_state records into lanes and the
 * scatter back, with 4x4 transposes of 16-byte groups at W = 4, 8x8
 * transposes of 32-byte halves (v, w and dp, dq) at W = 8, 4x4 transposes
 * within the four 128-bit quarters of 512-bit rows at W = 16 in its AVX-512
 * build (TS_W16_QUARTERS), and lane by lane otherwise. Constraint kernels
 * gather by body index and scatter only the velocities of dynamic bodies;
 * the integrators gather W consecutive states and scatter all of each. */
#ifndef TS_BODY_LANES_H
#define TS_BODY_LANES_H

#include "base/core.h"
#include "solver/body_state.h"
#include "base/wide.h"

#include <string.h>

typedef struct body_lanes {
    ts_wv3 v, w, dp;
    ts_wquat dq;
} body_lanes;

#if TS_W == 4 || TS_W == 8

/* Four states as rows of four floats (one 16-byte group each), transposed
 * into x, y, z, w columns. */
typedef struct group4 {
    simde__m128 x, y, z, w;
} group4;

TS_FORCE_INLINE group4 load_group(const ts_body_state *states, const int32_t *index, int offset)
{
    simde__m128 r0 = simde_mm_loadu_ps((const float *)(states + index[0]) + offset);
    simde__m128 r1 = simde_mm_loadu_ps((const float *)(states + index[1]) + offset);
    simde__m128 r2 = simde_mm_loadu_ps((const float *)(states + index[2]) + offset);
    simde__m128 r3 = simde_mm_loadu_ps((const float *)(states + index[3]) + offset);
    SIMDE_MM_TRANSPOSE4_PS(r0, r1, r2, r3);
    return (group4){r0, r1, r2, r3};
}

/* The lanes' body states: loads of 16-byte groups and 4x4 transposes. */
#if TS_W == 4
TS_FORCE_INLINE body_lanes gather(const ts_body_state *states, const int32_t index[TS_W])
{
    group4 v = load_group(states, index, 0);
    group4 w = load_group(states, index, 4);
    group4 dp = load_group(states, index, 8);
    group4 dq = load_group(states, index, 12);
    return (body_lanes){{v.x, v.y, v.z}, {w.x, w.y, w.z}, {dp.x, dp.y, dp.z}, {dq.x, dq.y, dq.z, dq.w}};
}
#else
/* Rows r0..r7 of eight floats into columns c[0..7] (an 8x8 transpose:
 * pairs interleaved, then quads, then the 128-bit halves swapped), written
 * out so that everything stays in registers. */
TS_FORCE_INLINE void transpose8(simde__m256 r0, simde__m256 r1, simde__m256 r2, simde__m256 r3, simde__m256 r4,
                                simde__m256 r5, simde__m256 r6, simde__m256 r7, simde__m256 c[8])
{
    simde__m256 t0 = simde_mm256_unpacklo_ps(r0, r1), t1 = simde_mm256_unpackhi_ps(r0, r1);
    simde__m256 t2 = simde_mm256_unpacklo_ps(r2, r3), t3 = simde_mm256_unpackhi_ps(r2, r3);
    simde__m256 t4 = simde_mm256_unpacklo_ps(r4, r5), t5 = simde_mm256_unpackhi_ps(r4, r5);
    simde__m256 t6 = simde_mm256_unpacklo_ps(r6, r7), t7 = simde_mm256_unpackhi_ps(r6, r7);
    simde__m256 q0 = simde_mm256_shuffle_ps(t0, t2, 0x44), q1 = simde_mm256_shuffle_ps(t0, t2, 0xEE);
    simde__m256 q2 = simde_mm256_shuffle_ps(t1, t3, 0x44), q3 = simde_mm256_shuffle_ps(t1, t3, 0xEE);
    simde__m256 q4 = simde_mm256_shuffle_ps(t4, t6, 0x44), q5 = simde_mm256_shuffle_ps(t4, t6, 0xEE);
    simde__m256 q6 = simde_mm256_shuffle_ps(t5, t7, 0x44), q7 = simde_mm256_shuffle_ps(t5, t7, 0xEE);
    c[0] = simde_mm256_permute2f128_ps(q0, q4, 0x20);
    c[1] = simde_mm256_permute2f128_ps(q1, q5, 0x20);
    c[2] = simde_mm256_permute2f128_ps(q2, q6, 0x20);
    c[3] = simde_mm256_permute2f128_ps(q3, q7, 0x20);
    c[4] = simde_mm256_permute2f128_ps(q0, q4, 0x31);
    c[5] = simde_mm256_permute2f128_ps(q1, q5, 0x31);
    c[6] = simde_mm256_permute2f128_ps(q2, q6, 0x31);
    c[7] = simde_mm256_permute2f128_ps(q3, q7, 0x31);
}

/* Half a state (v and w, or dp and dq: 32 bytes) of each lane, as columns. */
TS_FORCE_INLINE void load_halves(const ts_body_state *states, const int32_t index[8], int offset, simde__m256 c[8])
{
#define TS_HALF_ROW(l) simde_mm256_loadu_ps((const float *)(states + index[l]) + offset)
    transpose8(TS_HALF_ROW(0), TS_HALF_ROW(1), TS_HALF_ROW(2), TS_HALF_ROW(3), TS_HALF_ROW(4), TS_HALF_ROW(5),
               TS_HALF_ROW(6), TS_HALF_ROW(7), c);
#undef TS_HALF_ROW
}

/* The lanes' body states: two 32-byte loads per lane and two 8x8
 * transposes (Box3D's gather). */
TS_FORCE_INLINE body_lanes gather(const ts_body_state *states, const int32_t index[TS_W])
{
    simde__m256 vw[8], pq[8];
    load_halves(states, index, 0, vw);
    load_halves(states, index, 8, pq);
    return (body_lanes){{vw[0], vw[1], vw[2]}, {vw[4], vw[5], vw[6]}, {pq[0], pq[1], pq[2]}, {pq[4], pq[5], pq[6], pq[7]}};
}
#endif
/* Transposes four lanes of (x, y, z) back into rows and writes the v or w
 * group of the dynamic ones (the 4th float of a group is padding). */
TS_FORCE_INLINE void store_group(ts_body_state *states, const int32_t *index, const float *inv_mass, int offset,
                                 simde__m128 x, simde__m128 y, simde__m128 z)
{
    simde__m128 pad = simde_mm_setzero_ps();
    SIMDE_MM_TRANSPOSE4_PS(x, y, z, pad);
    simde__m128 rows[4] = {x, y, z, pad};
    for (int l = 0; l < 4; ++l) {
        if (inv_mass[l] > 0.0f) {
            simde_mm_storeu_ps((float *)(states + index[l]) + offset, rows[l]);
        }
    }
}

#if TS_W == 4
#define LOW(a) (a)
#else
#define LOW(a) simde_mm256_castps256_ps128(a)
#define HIGH(a) simde_mm256_extractf128_ps(a, 1)
#endif

/* Writes back the velocities of the lanes whose body is dynamic (inverse
 * mass > 0): static bodies and empty lanes share the dummy, and kinematic
 * bodies may appear in several lanes of a colour; none of them is changed by
 * a contact, so none is written. */
TS_FORCE_INLINE void scatter(ts_body_state *states, const int32_t index[TS_W], const float inv_mass[TS_W], body_lanes b)
{
#if TS_W == 8
    /* one 32-byte row (v, 0, w, 0) per lane: the transpose back */
    simde__m256 zero = simde_mm256_setzero_ps();
    simde__m256 rows[8];
    transpose8(b.v.x, b.v.y, b.v.z, zero, b.w.x, b.w.y, b.w.z, zero, rows);
#define TS_STORE_ROW(l)                                                                                      \
    if (inv_mass[l] > 0.0f) {                                                                                \
        simde_mm256_storeu_ps((float *)(states + index[l]), rows[l]);                                        \
    }
    TS_STORE_ROW(0) TS_STORE_ROW(1) TS_STORE_ROW(2) TS_STORE_ROW(3)
    TS_STORE_ROW(4) TS_STORE_ROW(5) TS_STORE_ROW(6) TS_STORE_ROW(7)
#undef TS_STORE_ROW
#else
    store_group(states, index, inv_mass, 0, LOW(b.v.x), LOW(b.v.y), LOW(b.v.z));
    store_group(states, index, inv_mass, 4, LOW(b.w.x), LOW(b.w.y), LOW(b.w.z));
#endif
}

/* Writes back the positions and rotations (dp, dq) of the dynamic lanes,
 * for kernels that move them (contact push-out, XPBD). */
TS_FORCE_INLINE void store_rotation(ts_body_state *states, const int32_t *index, const float *inv_mass, simde__m128 x,
                                    simde__m128 y, simde__m128 z, simde__m128 w)
{
    SIMDE_MM_TRANSPOSE4_PS(x, y, z, w);
    simde__m128 rows[4] = {x, y, z, w};
    for (int l = 0; l < 4; ++l) {
        if (inv_mass[l] > 0.0f) {
            simde_mm_storeu_ps((float *)(states + index[l]) + 12, rows[l]);
        }
    }
}

TS_FORCE_INLINE void scatter_position(ts_body_state *states, const int32_t index[TS_W], const float inv_mass[TS_W],
                                      body_lanes b)
{
#if TS_W == 8
    /* one 32-byte row (dp, 0, dq) per lane, as in scatter */
    simde__m256 rows[8];
    transpose8(b.dp.x, b.dp.y, b.dp.z, simde_mm256_setzero_ps(), b.dq.x, b.dq.y, b.dq.z, b.dq.w, rows);
#define TS_STORE_ROW(l)                                                                                      \
    if (inv_mass[l] > 0.0f) {                                                                                \
        simde_mm256_storeu_ps((float *)(states + index[l]) + 8, rows[l]);                                    \
    }
    TS_STORE_ROW(0) TS_STORE_ROW(1) TS_STORE_ROW(2) TS_STORE_ROW(3)
    TS_STORE_ROW(4) TS_STORE_ROW(5) TS_STORE_ROW(6) TS_STORE_ROW(7)
#undef TS_STORE_ROW
#else
    store_group(states, index, inv_mass, 8, LOW(b.dp.x), LOW(b.dp.y), LOW(b.dp.z));
    store_rotation(states, index, inv_mass, LOW(b.dq.x), LOW(b.dq.y), LOW(b.dq.z), LOW(b.dq.w));
#endif
}

#elif TS_W16_QUARTERS

/* A row of four lanes' 16-byte groups, one per 128-bit quarter: lanes l,
 * l + 4, l + 8 and l + 12 (rows l = 0..3). */
TS_FORCE_INLINE simde__m512 quarter_row(const ts_body_state *states, const int32_t *index, int l, int offset)
{
    simde__m512 r = simde_mm512_castps128_ps512(simde_mm_loadu_ps((const float *)(states + index[l]) + offset));
    r = simde_mm512_insertf32x4(r, simde_mm_loadu_ps((const float *)(states + index[l + 4]) + offset), 1);
    r = simde_mm512_insertf32x4(r, simde_mm_loadu_ps((const float *)(states + index[l + 8]) + offset), 2);
    return simde_mm512_insertf32x4(r, simde_mm_loadu_ps((const float *)(states + index[l + 12]) + offset), 3);
}

/* Four rows (x, y, z, w) per quarter into x, y, z, w columns, or back: a 4x4
 * transpose in each quarter (AVX-512's unpack and shuffle stay within
 * quarters), which is its own inverse. The columns hold lanes 0..15 in order. */
TS_FORCE_INLINE void transpose_quarters(simde__m512 r[4])
{
    simde__m512 lo01 = simde_mm512_unpacklo_ps(r[0], r[1]), lo23 = simde_mm512_unpacklo_ps(r[2], r[3]);
    simde__m512 hi01 = simde_mm512_unpackhi_ps(r[0], r[1]), hi23 = simde_mm512_unpackhi_ps(r[2], r[3]);
    r[0] = simde_mm512_shuffle_ps(lo01, lo23, SIMDE_MM_SHUFFLE(1, 0, 1, 0));
    r[1] = simde_mm512_shuffle_ps(lo01, lo23, SIMDE_MM_SHUFFLE(3, 2, 3, 2));
    r[2] = simde_mm512_shuffle_ps(hi01, hi23, SIMDE_MM_SHUFFLE(1, 0, 1, 0));
    r[3] = simde_mm512_shuffle_ps(hi01, hi23, SIMDE_MM_SHUFFLE(3, 2, 3, 2));
}

/* The group at `offset` floats of the sixteen lanes' states, as columns. */
TS_FORCE_INLINE void load_quarters(const ts_body_state *states, const int32_t *index, int offset, simde__m512 c[4])
{
    c[0] = quarter_row(states, index, 0, offset);
    c[1] = quarter_row(states, index, 1, offset);
    c[2] = quarter_row(states, index, 2, offset);
    c[3] = quarter_row(states, index, 3, offset);
    transpose_quarters(c);
}

TS_FORCE_INLINE body_lanes gather(const ts_body_state *states, const int32_t index[TS_W])
{
    simde__m512 v[4], w[4], dp[4], dq[4];
    load_quarters(states, index, 0, v);
    load_quarters(states, index, 4, w);
    load_quarters(states, index, 8, dp);
    load_quarters(states, index, 12, dq);
    return (body_lanes){{v[0], v[1], v[2]}, {w[0], w[1], w[2]}, {dp[0], dp[1], dp[2]}, {dq[0], dq[1], dq[2], dq[3]}};
}

/* Columns x, y, z, w back into rows, each lane's group written at `offset`
 * floats of its state for the lanes set in `write` (written out per quarter:
 * the extract takes its quarter as an immediate). */
TS_FORCE_INLINE void store_quarters(ts_body_state *states, const int32_t *index, uint32_t write, int offset,
                                    simde__m512 x, simde__m512 y, simde__m512 z, simde__m512 w)
{
    simde__m512 r[4] = {x, y, z, w};
    transpose_quarters(r);
#define TS_STORE_QUARTER(k, q)                                                                               \
    if ((write >> ((k) + 4 * (q)) & 1u) != 0) {                                                               \
        simde_mm_storeu_ps((float *)(states + index[(k) + 4 * (q)]) + offset, simde_mm512_extractf32x4_ps(r[k], q)); \
    }
#define TS_STORE_ROW(k) TS_STORE_QUARTER(k, 0) TS_STORE_QUARTER(k, 1) TS_STORE_QUARTER(k, 2) TS_STORE_QUARTER(k, 3)
    TS_STORE_ROW(0) TS_STORE_ROW(1) TS_STORE_ROW(2) TS_STORE_ROW(3)
#undef TS_STORE_ROW
#undef TS_STORE_QUARTER
}

/* The lanes whose body is dynamic (inverse mass > 0), as bits. */
TS_FORCE_INLINE uint32_t dynamic_lanes(const float inv_mass[TS_W])
{
    return ts_w_mask_bits(ts_w_gt(ts_w_load(inv_mass), ts_w_zero()));
}

/* Writes back the velocities of the lanes whose body is dynamic (inverse
 * mass > 0): static bodies and empty lanes share the dummy, and kinematic
 * bodies may appear in several lanes of a colour; none of them is changed by
 * a contact, so none is written. */
TS_FORCE_INLINE void scatter(ts_body_state *states, const int32_t index[TS_W], const float inv_mass[TS_W], body_lanes b)
{
    uint32_t write = dynamic_lanes(inv_mass);
    simde__m512 zero = simde_mm512_setzero_ps();
    store_quarters(states, index, write, 0, b.v.x, b.v.y, b.v.z, zero);
    store_quarters(states, index, write, 4, b.w.x, b.w.y, b.w.z, zero);
}

/* Writes back the positions and rotations (dp, dq) of the dynamic lanes,
 * for kernels that move them (contact push-out, XPBD). */
TS_FORCE_INLINE void scatter_position(ts_body_state *states, const int32_t index[TS_W], const float inv_mass[TS_W],
                                      body_lanes b)
{
    uint32_t write = dynamic_lanes(inv_mass);
    store_quarters(states, index, write, 8, b.dp.x, b.dp.y, b.dp.z, simde_mm512_setzero_ps());
    store_quarters(states, index, write, 12, b.dq.x, b.dq.y, b.dq.z, b.dq.w);
}

#else

/* Lane by lane into W-float rows, then one load per component. */
TS_FORCE_INLINE body_lanes gather(const ts_body_state *states, const int32_t index[TS_W])
{
    float rows[16][TS_W];
    for (int l = 0; l < TS_W; ++l) {
        float s[16];
        memcpy(s, states + index[l], sizeof s); /* v, pad, w, pad, dp, pad, dq */
        for (int k = 0; k < 16; ++k) {
            rows[k][l] = s[k];
        }
    }
    return (body_lanes){
        {ts_w_load(rows[0]), ts_w_load(rows[1]), ts_w_load(rows[2])},
        {ts_w_load(rows[4]), ts_w_load(rows[5]), ts_w_load(rows[6])},
        {ts_w_load(rows[8]), ts_w_load(rows[9]), ts_w_load(rows[10])},
        {ts_w_load(rows[12]), ts_w_load(rows[13]), ts_w_load(rows[14]), ts_w_load(rows[15])},
    };
}

/* Writes back the velocities of the lanes whose body is dynamic (inverse
 * mass > 0): static bodies and empty lanes share the dummy, and kinematic
 * bodies may appear in several lanes of a colour; none of them is changed by
 * a contact, so none is written. */
TS_FORCE_INLINE void scatter(ts_body_state *states, const int32_t index[TS_W], const float inv_mass[TS_W], body_lanes b)
{
    float rows[6][TS_W];
    ts_w_store(rows[0], b.v.x);
    ts_w_store(rows[1], b.v.y);
    ts_w_store(rows[2], b.v.z);
    ts_w_store(rows[3], b.w.x);
    ts_w_store(rows[4], b.w.y);
    ts_w_store(rows[5], b.w.z);
    for (int l = 0; l < TS_W; ++l) {
        if (inv_mass[l] > 0.0f) {
            ts_body_state *s = states + index[l];
            s->v = (ts_vec3){rows[0][l], rows[1][l], rows[2][l]};
            s->w = (ts_vec3){rows[3][l], rows[4][l], rows[5][l]};
        }
    }
}

/* Writes back the positions and rotations (dp, dq) of the dynamic lanes,
 * for kernels that move them (contact push-out, XPBD). */
TS_FORCE_INLINE void scatter_position(ts_body_state *states, const int32_t index[TS_W], const float inv_mass[TS_W],
                                      body_lanes b)
{
    float rows[7][TS_W];
    ts_wv3_store(rows, b.dp);
    ts_w_store(rows[3], b.dq.x);
    ts_w_store(rows[4], b.dq.y);
    ts_w_store(rows[5], b.dq.z);
    ts_w_store(rows[6], b.dq.w);
    for (int l = 0; l < TS_W; ++l) {
        if (inv_mass[l] > 0.0f) {
            ts_body_state *s = states + index[l];
            s->dp = (ts_vec3){rows[0][l], rows[1][l], rows[2][l]};
            s->dq = (ts_quat){rows[3][l], rows[4][l], rows[5][l], rows[6][l]};
        }
    }
}

#endif

/* Writes every field (v, w, dp, dq) of the first `count` lanes back to the
 * states index[0 .. count - 1] (the integrators' scatter). */
#if TS_W == 4 || TS_W == 8
TS_FORCE_INLINE void store_rows(ts_body_state *states, const int32_t *index, int count, int offset, simde__m128 x,
                                simde__m128 y, simde__m128 z, simde__m128 w)
{
    SIMDE_MM_TRANSPOSE4_PS(x, y, z, w);
    simde__m128 rows[4] = {x, y, z, w};
    for (int l = 0; l < count; ++l) {
        simde_mm_storeu_ps((float *)(states + index[l]) + offset, rows[l]);
    }
}

/* The four 16-byte groups of up to four lanes (pads stay zero). */
#define TS_STORE_STATES(get, index, count)                                                                        \
    do {                                                                                                          \
        simde__m128 pad = simde_mm_setzero_ps();                                                                  \
        store_rows(states, index, count, 0, get(b.v.x), get(b.v.y), get(b.v.z), pad);                             \
        store_rows(states, index, count, 4, get(b.w.x), get(b.w.y), get(b.w.z), pad);                             \
        store_rows(states, index, count, 8, get(b.dp.x), get(b.dp.y), get(b.dp.z), pad);                          \
        store_rows(states, index, count, 12, get(b.dq.x), get(b.dq.y), get(b.dq.z), get(b.dq.w));                 \
    } while (0)

TS_FORCE_INLINE void scatter_all(ts_body_state *states, const int32_t index[TS_W], int count, body_lanes b)
{
    TS_STORE_STATES(LOW, index, count < 4 ? count : 4);
#if TS_W == 8
    if (count > 4) {
        TS_STORE_STATES(HIGH, index + 4, count - 4);
    }
#endif
}
#undef TS_STORE_STATES
#elif TS_W16_QUARTERS
TS_FORCE_INLINE void scatter_all(ts_body_state *states, const int32_t index[TS_W], int count, body_lanes b)
{
    uint32_t write = count == TS_W ? 0xFFFFu : (1u << count) - 1u;
    simde__m512 zero = simde_mm512_setzero_ps();
    store_quarters(states, index, write, 0, b.v.x, b.v.y, b.v.z, zero);
    store_quarters(states, index, write, 4, b.w.x, b.w.y, b.w.z, zero);
    store_quarters(states, index, write, 8, b.dp.x, b.dp.y, b.dp.z, zero);
    store_quarters(states, index, write, 12, b.dq.x, b.dq.y, b.dq.z, b.dq.w);
}
#else
TS_FORCE_INLINE void scatter_all(ts_body_state *states, const int32_t index[TS_W], int count, body_lanes b)
{
    float rows[13][TS_W];
    ts_wv3_store(rows + 0, b.v);
    ts_wv3_store(rows + 3, b.w);
    ts_wv3_store(rows + 6, b.dp);
    ts_w_store(rows[9], b.dq.x);
    ts_w_store(rows[10], b.dq.y);
    ts_w_store(rows[11], b.dq.z);
    ts_w_store(rows[12], b.dq.w);
    for (int l = 0; l < count; ++l) {
        ts_body_state *s = states + index[l];
        s->v = (ts_vec3){rows[0][l], rows[1][l], rows[2][l]};
        s->w = (ts_vec3){rows[3][l], rows[4][l], rows[5][l]};
        s->dp = (ts_vec3){rows[6][l], rows[7][l], rows[8][l]};
        s->dq = (ts_quat){rows[9][l], rows[10][l], rows[11][l], rows[12][l]};
    }
}
#endif

/* W consecutive slots from i (the integrators' bundles): a tail shorter
 * than W repeats its last slot in the spare lanes; count says how many are
 * real. */
typedef struct bundle_slots {
    int32_t index[TS_W];
    int count;
} bundle_slots;

static inline bundle_slots slots_from(int32_t i, int32_t end)
{
    bundle_slots s;
    s.count = end - i < TS_W ? (int)(end - i) : TS_W;
    for (int l = 0; l < TS_W; ++l) {
        s.index[l] = i + (l < s.count ? l : s.count - 1);
    }
    return s;
}

#endif
