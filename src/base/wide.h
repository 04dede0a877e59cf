/* The lane vocabulary of the width-generic kernels (the solver's, and the
 * batched ray casts' shape tests in collide/).
 *
 * A kernel is written once against these names and compiled at a width
 * TS_W: one ts_wf holds TS_W floats, one lane per constraint (or shape). Only exact IEEE
 * operations are offered (add, sub, mul, div, sqrt, min, max, compare,
 * select, mask bits), no fused multiply-add and no approximate reciprocal, so every width
 * rounds every lane the same way and the results are bitwise identical to the
 * scalar build (design.md, "SIMD").
 *
 * min and max follow the x86 rule (max(a, b) = a > b ? a : b), so a NaN picks
 * the second operand at every width.
 *
 * W = 1 is plain C; W = 4, 8 and 16 use SSE4.1, AVX and AVX-512F names
 * through SIMDe, which maps them to the machine's own instructions or to
 * portable C. Negation flips the sign bit at every width, as -a does. */
#ifndef TS_WIDE_H
#define TS_WIDE_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#ifndef TS_W
#define TS_W 1
#endif

/* Names of the functions built once per width: ts_contact_solve_w4 etc.
 * Width 16 is built twice on x86-64: for AVX2 registers (_w16, runs on any
 * such CPU) and for AVX-512 (TS_W16_AVX512: _w16x, CMakeLists.txt); the two
 * give the same bits, solver_dispatch.c picks the one the CPU runs. */
#define TS_WIDE_CAT_(name, w) name##_w##w
#define TS_WIDE_CAT(name, w) TS_WIDE_CAT_(name, w)
#if defined(TS_W16_AVX512)
#define TS_WIDE(name) TS_WIDE_CAT(name, 16x)
#define TS_W16_QUARTERS 1 /* gathers by 4x4 transposes in 512-bit quarters (body_lanes.h) */
#else
#define TS_WIDE(name) TS_WIDE_CAT(name, TS_W)
#define TS_W16_QUARTERS 0
#endif

#if TS_W == 1

typedef float ts_wf; /* TS_W floats */
typedef bool ts_wm;  /* TS_W lane masks */

static inline ts_wf ts_w_splat(float a) { return a; }
static inline ts_wf ts_w_zero(void) { return 0.0f; }
static inline ts_wf ts_w_load(const float *p) { return *p; }
static inline void ts_w_store(float *p, ts_wf a) { *p = a; }
static inline ts_wf ts_w_add(ts_wf a, ts_wf b) { return a + b; }
static inline ts_wf ts_w_sub(ts_wf a, ts_wf b) { return a - b; }
static inline ts_wf ts_w_mul(ts_wf a, ts_wf b) { return a * b; }
static inline ts_wf ts_w_div(ts_wf a, ts_wf b) { return a / b; }
static inline ts_wf ts_w_neg(ts_wf a) { return -a; }
static inline ts_wf ts_w_sqrt(ts_wf a) { return sqrtf(a); }
static inline ts_wf ts_w_min(ts_wf a, ts_wf b) { return a < b ? a : b; }
static inline ts_wf ts_w_max(ts_wf a, ts_wf b) { return a > b ? a : b; }
static inline ts_wm ts_w_gt(ts_wf a, ts_wf b) { return a > b; }
static inline ts_wm ts_w_ge(ts_wf a, ts_wf b) { return a >= b; }
static inline ts_wm ts_w_and(ts_wm a, ts_wm b) { return a && b; }
static inline ts_wm ts_w_or(ts_wm a, ts_wm b) { return a || b; }
static inline ts_wf ts_w_select(ts_wm m, ts_wf if_true, ts_wf if_false) { return m ? if_true : if_false; }
static inline uint32_t ts_w_mask_bits(ts_wm m) { return m ? 1u : 0u; } /* bit l = lane l */

#elif TS_W == 4

/* SSE4.1 names through SIMDe: native SSE or NEON, else portable C. */
#include <simde/x86/sse4.1.h>

typedef simde__m128 ts_wf;
typedef simde__m128 ts_wm; /* all-ones lanes for true */

static inline ts_wf ts_w_splat(float a) { return simde_mm_set1_ps(a); }
static inline ts_wf ts_w_zero(void) { return simde_mm_setzero_ps(); }
static inline ts_wf ts_w_load(const float *p) { return simde_mm_loadu_ps(p); }
static inline void ts_w_store(float *p, ts_wf a) { simde_mm_storeu_ps(p, a); }
static inline ts_wf ts_w_add(ts_wf a, ts_wf b) { return simde_mm_add_ps(a, b); }
static inline ts_wf ts_w_sub(ts_wf a, ts_wf b) { return simde_mm_sub_ps(a, b); }
static inline ts_wf ts_w_mul(ts_wf a, ts_wf b) { return simde_mm_mul_ps(a, b); }
static inline ts_wf ts_w_div(ts_wf a, ts_wf b) { return simde_mm_div_ps(a, b); }
static inline ts_wf ts_w_neg(ts_wf a) { return simde_mm_xor_ps(a, simde_mm_set1_ps(-0.0f)); }
static inline ts_wf ts_w_sqrt(ts_wf a) { return simde_mm_sqrt_ps(a); }
static inline ts_wf ts_w_min(ts_wf a, ts_wf b) { return simde_mm_min_ps(a, b); }
static inline ts_wf ts_w_max(ts_wf a, ts_wf b) { return simde_mm_max_ps(a, b); }
static inline ts_wm ts_w_gt(ts_wf a, ts_wf b) { return simde_mm_cmpgt_ps(a, b); }
static inline ts_wm ts_w_ge(ts_wf a, ts_wf b) { return simde_mm_cmpge_ps(a, b); }
static inline ts_wm ts_w_and(ts_wm a, ts_wm b) { return simde_mm_and_ps(a, b); }
static inline ts_wm ts_w_or(ts_wm a, ts_wm b) { return simde_mm_or_ps(a, b); }
static inline ts_wf ts_w_select(ts_wm m, ts_wf if_true, ts_wf if_false) { return simde_mm_blendv_ps(if_false, if_true, m); }
static inline uint32_t ts_w_mask_bits(ts_wm m) { return (uint32_t)simde_mm_movemask_ps(m); }

#elif TS_W == 8

/* AVX names through SIMDe. */
#include <simde/x86/avx.h>

typedef simde__m256 ts_wf;
typedef simde__m256 ts_wm;

static inline ts_wf ts_w_splat(float a) { return simde_mm256_set1_ps(a); }
static inline ts_wf ts_w_zero(void) { return simde_mm256_setzero_ps(); }
static inline ts_wf ts_w_load(const float *p) { return simde_mm256_loadu_ps(p); }
static inline void ts_w_store(float *p, ts_wf a) { simde_mm256_storeu_ps(p, a); }
static inline ts_wf ts_w_add(ts_wf a, ts_wf b) { return simde_mm256_add_ps(a, b); }
static inline ts_wf ts_w_sub(ts_wf a, ts_wf b) { return simde_mm256_sub_ps(a, b); }
static inline ts_wf ts_w_mul(ts_wf a, ts_wf b) { return simde_mm256_mul_ps(a, b); }
static inline ts_wf ts_w_div(ts_wf a, ts_wf b) { return simde_mm256_div_ps(a, b); }
static inline ts_wf ts_w_neg(ts_wf a) { return simde_mm256_xor_ps(a, simde_mm256_set1_ps(-0.0f)); }
static inline ts_wf ts_w_sqrt(ts_wf a) { return simde_mm256_sqrt_ps(a); }
static inline ts_wf ts_w_min(ts_wf a, ts_wf b) { return simde_mm256_min_ps(a, b); }
static inline ts_wf ts_w_max(ts_wf a, ts_wf b) { return simde_mm256_max_ps(a, b); }
static inline ts_wm ts_w_gt(ts_wf a, ts_wf b) { return simde_mm256_cmp_ps(a, b, SIMDE_CMP_GT_OQ); }
static inline ts_wm ts_w_ge(ts_wf a, ts_wf b) { return simde_mm256_cmp_ps(a, b, SIMDE_CMP_GE_OQ); }
static inline ts_wm ts_w_and(ts_wm a, ts_wm b) { return simde_mm256_and_ps(a, b); }
static inline ts_wm ts_w_or(ts_wm a, ts_wm b) { return simde_mm256_or_ps(a, b); }
static inline ts_wf ts_w_select(ts_wm m, ts_wf if_true, ts_wf if_false)
{
    return simde_mm256_blendv_ps(if_false, if_true, m);
}
static inline uint32_t ts_w_mask_bits(ts_wm m) { return (uint32_t)simde_mm256_movemask_ps(m); }

#elif TS_W == 16

/* AVX-512 names through SIMDe: native in the AVX-512 build (TS_W16_AVX512,
 * avx512f/dq/bw/vl), on AVX2 registers in the other. */
#include <simde/x86/avx512.h>

typedef simde__m512 ts_wf;
typedef simde__mmask16 ts_wm;

static inline ts_wf ts_w_splat(float a) { return simde_mm512_set1_ps(a); }
static inline ts_wf ts_w_zero(void) { return simde_mm512_setzero_ps(); }
static inline ts_wf ts_w_load(const float *p) { return simde_mm512_loadu_ps(p); }
static inline void ts_w_store(float *p, ts_wf a) { simde_mm512_storeu_ps(p, a); }
static inline ts_wf ts_w_add(ts_wf a, ts_wf b) { return simde_mm512_add_ps(a, b); }
static inline ts_wf ts_w_sub(ts_wf a, ts_wf b) { return simde_mm512_sub_ps(a, b); }
static inline ts_wf ts_w_mul(ts_wf a, ts_wf b) { return simde_mm512_mul_ps(a, b); }
static inline ts_wf ts_w_div(ts_wf a, ts_wf b) { return simde_mm512_div_ps(a, b); }
static inline ts_wf ts_w_neg(ts_wf a)
{
    return simde_mm512_castsi512_ps(simde_mm512_xor_si512(simde_mm512_castps_si512(a), simde_mm512_set1_epi32(INT32_MIN)));
}
static inline ts_wf ts_w_sqrt(ts_wf a) { return simde_mm512_sqrt_ps(a); }
static inline ts_wf ts_w_min(ts_wf a, ts_wf b) { return simde_mm512_min_ps(a, b); }
static inline ts_wf ts_w_max(ts_wf a, ts_wf b) { return simde_mm512_max_ps(a, b); }
static inline ts_wm ts_w_gt(ts_wf a, ts_wf b) { return simde_mm512_cmp_ps_mask(a, b, SIMDE_CMP_GT_OQ); }
static inline ts_wm ts_w_ge(ts_wf a, ts_wf b) { return simde_mm512_cmp_ps_mask(a, b, SIMDE_CMP_GE_OQ); }
static inline ts_wm ts_w_and(ts_wm a, ts_wm b) { return (ts_wm)(a & b); }
static inline ts_wm ts_w_or(ts_wm a, ts_wm b) { return (ts_wm)(a | b); }
static inline ts_wf ts_w_select(ts_wm m, ts_wf if_true, ts_wf if_false)
{
    return simde_mm512_mask_blend_ps(m, if_false, if_true);
}
static inline uint32_t ts_w_mask_bits(ts_wm m) { return (uint32_t)m; }

#else
#error "TS_W must be 1, 4, 8 or 16"
#endif

/* Lane l = base[index[l]]: scalar loads assembled in registers (a lane loop
 * through a W-float row on the stack stalls the row's vector load on its W
 * scalar stores; a hardware gather is slower still on the machines measured). */
static inline ts_wf ts_w_load_indexed(const float *base, const int32_t index[TS_W])
{
#if TS_W == 1
    return base[index[0]];
#elif TS_W == 4
    return simde_mm_setr_ps(base[index[0]], base[index[1]], base[index[2]], base[index[3]]);
#elif TS_W == 8
    return simde_mm256_setr_ps(base[index[0]], base[index[1]], base[index[2]], base[index[3]], base[index[4]],
                               base[index[5]], base[index[6]], base[index[7]]);
#else
    return simde_mm512_setr_ps(base[index[0]], base[index[1]], base[index[2]], base[index[3]], base[index[4]],
                               base[index[5]], base[index[6]], base[index[7]], base[index[8]], base[index[9]],
                               base[index[10]], base[index[11]], base[index[12]], base[index[13]], base[index[14]],
                               base[index[15]]);
#endif
}

/* ---- 3-vectors of lanes ---- */

typedef struct ts_wv3 {
    ts_wf x, y, z;
} ts_wv3;

/* Loads lanes from three W-float rows, e.g. float normal[3][TS_W]. */
static inline ts_wv3 ts_wv3_load(const float rows[3][TS_W])
{
    return (ts_wv3){ts_w_load(rows[0]), ts_w_load(rows[1]), ts_w_load(rows[2])};
}

static inline void ts_wv3_store(float rows[3][TS_W], ts_wv3 v)
{
    ts_w_store(rows[0], v.x);
    ts_w_store(rows[1], v.y);
    ts_w_store(rows[2], v.z);
}

static inline ts_wv3 ts_wv3_add(ts_wv3 a, ts_wv3 b) { return (ts_wv3){ts_w_add(a.x, b.x), ts_w_add(a.y, b.y), ts_w_add(a.z, b.z)}; }
static inline ts_wv3 ts_wv3_sub(ts_wv3 a, ts_wv3 b) { return (ts_wv3){ts_w_sub(a.x, b.x), ts_w_sub(a.y, b.y), ts_w_sub(a.z, b.z)}; }
static inline ts_wv3 ts_wv3_scale(ts_wf s, ts_wv3 a) { return (ts_wv3){ts_w_mul(s, a.x), ts_w_mul(s, a.y), ts_w_mul(s, a.z)}; }

/* a + s b */
static inline ts_wv3 ts_wv3_mul_add(ts_wv3 a, ts_wf s, ts_wv3 b)
{
    return (ts_wv3){ts_w_add(a.x, ts_w_mul(s, b.x)), ts_w_add(a.y, ts_w_mul(s, b.y)), ts_w_add(a.z, ts_w_mul(s, b.z))};
}

/* a - s b */
static inline ts_wv3 ts_wv3_mul_sub(ts_wv3 a, ts_wf s, ts_wv3 b)
{
    return (ts_wv3){ts_w_sub(a.x, ts_w_mul(s, b.x)), ts_w_sub(a.y, ts_w_mul(s, b.y)), ts_w_sub(a.z, ts_w_mul(s, b.z))};
}

static inline ts_wf ts_wv3_dot(ts_wv3 a, ts_wv3 b)
{
    return ts_w_add(ts_w_add(ts_w_mul(a.x, b.x), ts_w_mul(a.y, b.y)), ts_w_mul(a.z, b.z));
}

static inline ts_wv3 ts_wv3_cross(ts_wv3 a, ts_wv3 b)
{
    return (ts_wv3){ts_w_sub(ts_w_mul(a.y, b.z), ts_w_mul(a.z, b.y)), ts_w_sub(ts_w_mul(a.z, b.x), ts_w_mul(a.x, b.z)),
                    ts_w_sub(ts_w_mul(a.x, b.y), ts_w_mul(a.y, b.x))};
}

/* Symmetric 3x3 (xx, yy, zz, xy, xz, yz) times a vector. */
typedef struct ts_wsym3 {
    ts_wf xx, yy, zz, xy, xz, yz;
} ts_wsym3;

static inline ts_wsym3 ts_wsym3_load(const float rows[6][TS_W])
{
    return (ts_wsym3){ts_w_load(rows[0]), ts_w_load(rows[1]), ts_w_load(rows[2]),
                      ts_w_load(rows[3]), ts_w_load(rows[4]), ts_w_load(rows[5])};
}

static inline ts_wv3 ts_wsym3_mul(ts_wsym3 m, ts_wv3 v)
{
    return (ts_wv3){ts_w_add(ts_w_add(ts_w_mul(m.xx, v.x), ts_w_mul(m.xy, v.y)), ts_w_mul(m.xz, v.z)),
                    ts_w_add(ts_w_add(ts_w_mul(m.xy, v.x), ts_w_mul(m.yy, v.y)), ts_w_mul(m.yz, v.z)),
                    ts_w_add(ts_w_add(ts_w_mul(m.xz, v.x), ts_w_mul(m.yz, v.y)), ts_w_mul(m.zz, v.z))};
}

/* Quaternions of lanes: rotate v by q as v + 2 w (u x v) + 2 u x (u x v), the
 * same operations as ts_rotate in math3.h. */
typedef struct ts_wquat {
    ts_wf x, y, z, w;
} ts_wquat;

static inline ts_wquat ts_wquat_load(const float rows[4][TS_W])
{
    return (ts_wquat){ts_w_load(rows[0]), ts_w_load(rows[1]), ts_w_load(rows[2]), ts_w_load(rows[3])};
}

static inline ts_wquat ts_wquat_conj(ts_wquat q) { return (ts_wquat){ts_w_neg(q.x), ts_w_neg(q.y), ts_w_neg(q.z), q.w}; }

/* a b (first b, then a), the same operations as ts_quat_mul in math3.h */
static inline ts_wquat ts_wquat_mul(ts_wquat a, ts_wquat b)
{
    return (ts_wquat){
        ts_w_sub(ts_w_add(ts_w_add(ts_w_mul(a.w, b.x), ts_w_mul(a.x, b.w)), ts_w_mul(a.y, b.z)), ts_w_mul(a.z, b.y)),
        ts_w_add(ts_w_add(ts_w_sub(ts_w_mul(a.w, b.y), ts_w_mul(a.x, b.z)), ts_w_mul(a.y, b.w)), ts_w_mul(a.z, b.x)),
        ts_w_add(ts_w_sub(ts_w_add(ts_w_mul(a.w, b.z), ts_w_mul(a.x, b.y)), ts_w_mul(a.y, b.x)), ts_w_mul(a.z, b.w)),
        ts_w_sub(ts_w_sub(ts_w_sub(ts_w_mul(a.w, b.w), ts_w_mul(a.x, b.x)), ts_w_mul(a.y, b.y)), ts_w_mul(a.z, b.z)),
    };
}

static inline ts_wv3 ts_wquat_rotate(ts_wquat q, ts_wv3 v)
{
    ts_wv3 u = {q.x, q.y, q.z};
    ts_wf two = ts_w_splat(2.0f);
    ts_wv3 t = ts_wv3_scale(two, ts_wv3_cross(u, v));
    return ts_wv3_add(ts_wv3_add(v, ts_wv3_scale(q.w, t)), ts_wv3_cross(u, t));
}

static inline ts_wv3 ts_wv3_neg(ts_wv3 a) { return (ts_wv3){ts_w_neg(a.x), ts_w_neg(a.y), ts_w_neg(a.z)}; }

/* m ? a : b per lane */
static inline ts_wv3 ts_wv3_select(ts_wm m, ts_wv3 a, ts_wv3 b)
{
    return (ts_wv3){ts_w_select(m, a.x, b.x), ts_w_select(m, a.y, b.y), ts_w_select(m, a.z, b.z)};
}

static inline ts_wquat ts_wquat_select(ts_wm m, ts_wquat a, ts_wquat b)
{
    return (ts_wquat){ts_w_select(m, a.x, b.x), ts_w_select(m, a.y, b.y), ts_w_select(m, a.z, b.z),
                      ts_w_select(m, a.w, b.w)};
}

static inline ts_wquat ts_wquat_normalize(ts_wquat q)
{
    ts_wf length_sq = ts_w_add(ts_w_add(ts_w_add(ts_w_mul(q.x, q.x), ts_w_mul(q.y, q.y)), ts_w_mul(q.z, q.z)),
                               ts_w_mul(q.w, q.w));
    ts_wf inv = ts_w_div(ts_w_splat(1.0f), ts_w_sqrt(length_sq));
    return (ts_wquat){ts_w_mul(inv, q.x), ts_w_mul(inv, q.y), ts_w_mul(inv, q.z), ts_w_mul(inv, q.w)};
}

/* q turned by the small rotation vector w h: normalize(q + (h/2) (w, 0) q),
 * the first-order update of dq/dt = (w, 0) q / 2 (half_h = h / 2). */
static inline ts_wquat ts_wquat_rotate_by(ts_wquat q, ts_wv3 w, ts_wf half_h)
{
    ts_wquat spin = ts_wquat_mul((ts_wquat){w.x, w.y, w.z, ts_w_zero()}, q);
    return ts_wquat_normalize((ts_wquat){ts_w_add(q.x, ts_w_mul(half_h, spin.x)), ts_w_add(q.y, ts_w_mul(half_h, spin.y)),
                                         ts_w_add(q.z, ts_w_mul(half_h, spin.z)), ts_w_add(q.w, ts_w_mul(half_h, spin.w))});
}

#endif
