/* tessera: small geometric helpers shared by the narrowphase files.
 *
 * Rotation matrices, closest points on segments and a few scalar helpers, all
 * static inline, using only + - * / sqrtf fabsf (no libm transcendental) so the
 * narrowphase stays deterministic. Names carry a tsn_ prefix to keep them apart
 * from the library-wide math in math3.h. */
#ifndef TS_COLLIDE_MATH_H
#define TS_COLLIDE_MATH_H

#include "base/math3.h"
#include "collide/manifold.h"

#include <float.h>
#include <stdbool.h>
#include <stdint.h>

/* Squared length below which a segment direction counts as zero. */
#define TSN_TINY_SQ 1.0e-12f

static inline float tsn_minf(float a, float b) { return a < b ? a : b; }
static inline float tsn_maxf(float a, float b) { return a > b ? a : b; }
static inline float tsn_clampf(float a, float lo, float hi) { return a < lo ? lo : (a > hi ? hi : a); }
/* +1 for a >= 0, else -1: ties go to the positive side so choices are deterministic. */
static inline float tsn_signf(float a) { return a >= 0.0f ? 1.0f : -1.0f; }

static inline void tsn_to_array(ts_vec3 v, float out[3])
{
    out[0] = v.x;
    out[1] = v.y;
    out[2] = v.z;
}
static inline ts_vec3 tsn_from_array(const float a[3]) { return (ts_vec3){a[0], a[1], a[2]}; }

/* A rotation as three columns: col[j] is the local axis j seen in the parent frame. */
typedef struct tsn_mat3 {
    ts_vec3 col[3];
} tsn_mat3;

/* Rotation matrix of a unit quaternion (the usual 1 - 2(yy + zz) ... expansion). */
static inline tsn_mat3 tsn_mat3_from_quat(ts_quat q)
{
    float xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
    float xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
    float wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
    tsn_mat3 m;
    m.col[0] = (ts_vec3){1.0f - 2.0f * (yy + zz), 2.0f * (xy + wz), 2.0f * (xz - wy)};
    m.col[1] = (ts_vec3){2.0f * (xy - wz), 1.0f - 2.0f * (xx + zz), 2.0f * (yz + wx)};
    m.col[2] = (ts_vec3){2.0f * (xz + wy), 2.0f * (yz - wx), 1.0f - 2.0f * (xx + yy)};
    return m;
}

/* R v: local to parent. */
static inline ts_vec3 tsn_mul_mv(const tsn_mat3 *r, ts_vec3 v)
{
    return ts_add(ts_add(ts_scale(v.x, r->col[0]), ts_scale(v.y, r->col[1])), ts_scale(v.z, r->col[2]));
}
/* R^T v: parent to local. */
static inline ts_vec3 tsn_mul_tv(const tsn_mat3 *r, ts_vec3 v)
{
    return (ts_vec3){ts_dot(r->col[0], v), ts_dot(r->col[1], v), ts_dot(r->col[2], v)};
}
/* A^T B: the rotation of B seen in A's frame (column j = B's axis j in A's frame). */
static inline tsn_mat3 tsn_mul_tm(const tsn_mat3 *a, const tsn_mat3 *b)
{
    tsn_mat3 m;
    for (int j = 0; j < 3; ++j) {
        m.col[j] = tsn_mul_tv(a, b->col[j]);
    }
    return m;
}
/* A^T: the inverse rotation. */
static inline tsn_mat3 tsn_transpose(const tsn_mat3 *a)
{
    tsn_mat3 m;
    m.col[0] = (ts_vec3){a->col[0].x, a->col[1].x, a->col[2].x};
    m.col[1] = (ts_vec3){a->col[0].y, a->col[1].y, a->col[2].y};
    m.col[2] = (ts_vec3){a->col[0].z, a->col[1].z, a->col[2].z};
    return m;
}

/* The world end points of a capsule's core segment: centre -+ half_height * local y. */
static inline void tsn_capsule_segment(float half_height, ts_transform xf, ts_vec3 *p0, ts_vec3 *p1)
{
    ts_vec3 axis = ts_rotate(xf.q, ts_v3(0.0f, half_height, 0.0f));
    *p0 = ts_sub(xf.p, axis);
    *p1 = ts_add(xf.p, axis);
}

/* Parameter t in [0, 1] of the point of segment [a, b] closest to p:
 * minimise |a + t d - p|^2 -> t = (p - a).d / d.d, then clamp. */
static inline float tsn_segment_param(ts_vec3 a, ts_vec3 b, ts_vec3 p)
{
    ts_vec3 d = ts_sub(b, a);
    float dd = ts_dot(d, d);
    if (dd <= TSN_TINY_SQ) {
        return 0.0f;
    }
    return tsn_clampf(ts_dot(ts_sub(p, a), d) / dd, 0.0f, 1.0f);
}

static inline ts_vec3 tsn_closest_on_segment(ts_vec3 a, ts_vec3 b, ts_vec3 p)
{
    return ts_mul_add(a, tsn_segment_param(a, b, p), ts_sub(b, a));
}

/* Closest points c1 = p1 + s d1 and c2 = p2 + t d2 of segments [p1, q1] and [p2, q2]
 * (s, t in [0, 1]). Setting the gradient of |c1 - c2|^2 to zero gives
 *   a s - b t = -c,   b s - e t = -f   with a = d1.d1, b = d1.d2, e = d2.d2, r = p1 - p2,
 *   c = d1.r, f = d2.r, so s = (b f - c e) / (a e - b^2). Clamp s, take the t that
 * is best for it, and when t leaves [0, 1] clamp t and recompute s. Parallel
 * segments (a e - b^2 ~ 0) take s = 0; zero-length segments are points. */
static inline void tsn_closest_segments(ts_vec3 p1, ts_vec3 q1, ts_vec3 p2, ts_vec3 q2, float *s_out, float *t_out)
{
    ts_vec3 d1 = ts_sub(q1, p1);
    ts_vec3 d2 = ts_sub(q2, p2);
    ts_vec3 r = ts_sub(p1, p2);
    float a = ts_dot(d1, d1);
    float e = ts_dot(d2, d2);
    float f = ts_dot(d2, r);
    float s = 0.0f;
    float t = 0.0f;
    if (a <= TSN_TINY_SQ && e <= TSN_TINY_SQ) {
        s = 0.0f;
        t = 0.0f;
    } else if (a <= TSN_TINY_SQ) {
        t = tsn_clampf(f / e, 0.0f, 1.0f);
    } else {
        float c = ts_dot(d1, r);
        if (e <= TSN_TINY_SQ) {
            s = tsn_clampf(-c / a, 0.0f, 1.0f);
        } else {
            float b = ts_dot(d1, d2);
            float denom = a * e - b * b; /* = a e sin^2(angle) >= 0 */
            if (denom > 1.0e-7f * a * e) {
                s = tsn_clampf((b * f - c * e) / denom, 0.0f, 1.0f);
            }
            t = (b * s + f) / e;
            if (t < 0.0f) {
                t = 0.0f;
                s = tsn_clampf(-c / a, 0.0f, 1.0f);
            } else if (t > 1.0f) {
                t = 1.0f;
                s = tsn_clampf((b - c) / a, 0.0f, 1.0f);
            }
        }
    }
    *s_out = s;
    *t_out = t;
}

/* Write one point into a manifold. */
static inline void tsn_set_point(ts_manifold_point *pt, ts_vec3 point, float separation, uint32_t id)
{
    pt->point = point;
    pt->separation = separation;
    pt->feature_id = id;
}

/* One contact between two round cores: pa on A's core swept by radius ra, pb on
 * B's core swept by rb, pa and pb the closest points of the cores. The normal is
 * (pb - pa) / |pb - pa|, the separation |pb - pa| - ra - rb, and the point is
 * midway between the surface points pa + ra n and pb - rb n. When the cores
 * touch (|pb - pa| ~ 0) the direction is undefined and `fallback` (a unit
 * vector) is used. Writes point_count 0 or 1. */
static inline void tsn_round_contact(ts_vec3 pa, float ra, ts_vec3 pb, float rb, ts_vec3 fallback, float margin,
                                     uint32_t id, ts_manifold *m)
{
    ts_vec3 d = ts_sub(pb, pa);
    float dist_sq = ts_dot(d, d);
    float dist = sqrtf(dist_sq);
    float separation = dist - ra - rb;
    m->point_count = 0;
    if (!(separation < margin)) {
        return;
    }
    ts_vec3 n = fallback;
    if (dist_sq > TSN_TINY_SQ) {
        n = ts_scale(1.0f / dist, d);
    }
    ts_vec3 surface_a = ts_mul_add(pa, ra, n);
    ts_vec3 surface_b = ts_mul_add(pb, -rb, n);
    m->normal = n;
    tsn_set_point(&m->points[0], ts_scale(0.5f, ts_add(surface_a, surface_b)), separation, id);
    m->point_count = 1;
}

/* Reduce `count` contact points (normal: the contact normal) to at most
 * TS_MAX_MANIFOLD_POINTS: deepest, farthest from it, then the largest triangle
 * on each side (manifold_reduce.c). Returns the number written to out. */
int tsn_reduce_points(const ts_manifold_point *in, int count, ts_vec3 normal, ts_manifold_point out[4]);

#endif
