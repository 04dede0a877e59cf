/* tessera: narrowphase pairs with a capsule as shape A: capsule-capsule and
 * capsule-box.
 *
 * A capsule is a core segment swept by a radius, so both pairs reduce to the
 * closest points of the core segment and the other core (segment or box), then
 * a radius offset. When the segment lies flat against the other shape, one
 * closest point would let the capsule rock; then two points are made by
 * clipping the segment (Box2D/Box3D style). */
#include "collide/collide_math.h"
#include "collide/narrowphase.h"

/* |sin| of the angle under which two capsule segments count as parallel. */
#define TSN_PARALLEL_SIN 0.05f
/* Two clipped points closer than this collapse into one. */
#define TSN_MIN_CLIP_LENGTH 1.0e-3f
/* Two per-end normals of parallel capsules must agree this well (cosine). */
#define TSN_NORMAL_AGREE 0.95f
/* Closest-point direction and box face normal count as aligned above this cosine. */
#define TSN_FACE_ALIGN 0.995f
/* Segment-box distance below which the segment counts as touching the box core
 * (the direction of the closest points is then too noisy; use the SAT). */
#define TSN_DEEP_DIST_SQ 1.0e-10f
/* Bias toward face axes in the deep capsule-box SAT: an edge axis must beat
 * the best face axis by this much (absolute metres + fraction of the depth). */
#define TSN_EDGE_TOL_ABS 0.001f
#define TSN_EDGE_TOL_REL 0.05f
/* Shallow case: a clipped face manifold must be as deep as the true closest
 * point within this (metres); when an end hanging over a side plane is deeper,
 * clipping dropped it, and the single closest point is used instead. (The deep
 * case allows the face/edge bias instead, see capsule_box_deep.) */
#define TSN_DEPTH_TOL 0.0005f

static float min_separation(const ts_manifold_point *pts, int count)
{
    float s = FLT_MAX;
    for (int i = 0; i < count; ++i) {
        s = tsn_minf(s, pts[i].separation);
    }
    return s;
}

/* ---------------------------------------------------------------- capsule-capsule */

/* Normal for touching cores (closest points coincide): the common perpendicular
 * of the two segments when they cross, else a perpendicular of a segment (its
 * capsule's local x axis), else +y; turned so it points roughly from A to B. */
static ts_vec3 capsules_fallback_normal(ts_vec3 da, ts_vec3 db, ts_transform xfa, ts_transform xfb)
{
    float la = ts_length_sq(da);
    float lb = ts_length_sq(db);
    ts_vec3 c = ts_cross(da, db);
    ts_vec3 n = ts_v3(0.0f, 1.0f, 0.0f);
    if (la > TSN_TINY_SQ && lb > TSN_TINY_SQ && ts_length_sq(c) > 1.0e-6f * la * lb) {
        n = ts_normalize(c);
    } else if (la > TSN_TINY_SQ) {
        n = ts_rotate(xfa.q, ts_v3(1.0f, 0.0f, 0.0f));
    } else if (lb > TSN_TINY_SQ) {
        n = ts_rotate(xfb.q, ts_v3(1.0f, 0.0f, 0.0f));
    }
    if (ts_dot(n, ts_sub(xfb.p, xfa.p)) < 0.0f) {
        n = ts_neg(n);
    }
    return n;
}

/* Two points for parallel-ish overlapping segments. B's segment is clipped to
 * the slab of A's segment: u(x) = (x - a0).dA / dA.dA is the parameter along A,
 * and the part of B with u in [0, 1] is kept. Each clipped end q_i then meets A
 * at a0 + u_i dA; its own distance gives its separation. Returns false (and
 * leaves m alone) when this does not give two good points. */
static bool capsules_two_points(ts_vec3 a0, ts_vec3 a1, float ra, ts_vec3 b0, ts_vec3 b1, float rb, float margin,
                                ts_manifold *m)
{
    ts_vec3 da = ts_sub(a1, a0);
    ts_vec3 db = ts_sub(b1, b0);
    float la = ts_dot(da, da);
    float lb = ts_dot(db, db);
    if (la <= TSN_TINY_SQ || lb <= TSN_TINY_SQ) {
        return false;
    }
    /* |da x db|^2 = la lb sin^2 */
    if (ts_length_sq(ts_cross(da, db)) >= TSN_PARALLEL_SIN * TSN_PARALLEL_SIN * la * lb) {
        return false;
    }
    float u_end[2] = {ts_dot(ts_sub(b0, a0), da) / la, ts_dot(ts_sub(b1, a0), da) / la};
    if ((u_end[0] < 0.0f && u_end[1] < 0.0f) || (u_end[0] > 1.0f && u_end[1] > 1.0f)) {
        return false; /* no overlap along A */
    }
    ts_vec3 q[2] = {b0, b1};
    float u[2] = {u_end[0], u_end[1]};
    uint32_t code[2] = {0u, 1u};
    for (int i = 0; i < 2; ++i) {
        /* u is linear along B: the point with u = bound is at (bound - u0) / (u1 - u0). */
        float bound = u[i] < 0.0f ? 0.0f : (u[i] > 1.0f ? 1.0f : u[i]);
        if (bound != u[i]) {
            float s = (bound - u_end[0]) / (u_end[1] - u_end[0]);
            q[i] = ts_mul_add(b0, s, db);
            code[i] = bound == 0.0f ? 2u : 3u;
            u[i] = bound;
        }
    }
    if (ts_length_sq(ts_sub(q[1], q[0])) <= TSN_MIN_CLIP_LENGTH * TSN_MIN_CLIP_LENGTH) {
        return false;
    }
    ts_vec3 pa[2], n[2];
    float sep[2];
    for (int i = 0; i < 2; ++i) {
        pa[i] = ts_mul_add(a0, u[i], da);
        ts_vec3 d = ts_sub(q[i], pa[i]);
        float dist_sq = ts_dot(d, d);
        if (dist_sq <= TSN_TINY_SQ) {
            return false; /* cores touch: no direction, the one-point path handles it */
        }
        float dist = sqrtf(dist_sq);
        n[i] = ts_scale(1.0f / dist, d);
        sep[i] = dist - ra - rb;
        if (!(sep[i] < margin)) {
            return false;
        }
    }
    if (ts_dot(n[0], n[1]) < TSN_NORMAL_AGREE) {
        return false; /* B crosses A sideways: not a flat contact */
    }
    m->normal = ts_normalize(ts_add(n[0], n[1]));
    for (int i = 0; i < 2; ++i) {
        /* midway between A's surface pa + ra n and B's surface q - rb n */
        ts_vec3 mid = ts_scale(0.5f, ts_add(ts_mul_add(pa[i], ra, n[i]), ts_mul_add(q[i], -rb, n[i])));
        tsn_set_point(&m->points[i], mid, sep[i], 1u + code[i]);
    }
    m->point_count = 2;
    return true;
}

void ts_collide_capsules(const ts_capsule *a, ts_transform xfa, const ts_capsule *b, ts_transform xfb, float margin,
                         ts_manifold *m)
{
    m->point_count = 0;
    ts_vec3 a0, a1, b0, b1;
    tsn_capsule_segment(a->half_height, xfa, &a0, &a1);
    tsn_capsule_segment(b->half_height, xfb, &b0, &b1);
    if (capsules_two_points(a0, a1, a->radius, b0, b1, b->radius, margin, m)) {
        return;
    }
    float s, t;
    tsn_closest_segments(a0, a1, b0, b1, &s, &t);
    ts_vec3 da = ts_sub(a1, a0);
    ts_vec3 db = ts_sub(b1, b0);
    ts_vec3 pa = ts_mul_add(a0, s, da);
    ts_vec3 pb = ts_mul_add(b0, t, db);
    ts_vec3 fallback = capsules_fallback_normal(da, db, xfa, xfb);
    tsn_round_contact(pa, a->radius, pb, b->radius, fallback, margin, 0u, m);
}

/* ---------------------------------------------------------------- capsule-box */

/* All capsule-box work happens in the box frame: p0, p1 the segment, h the half
 * extents, n_out the box's outward normal (from the box toward the capsule). */

/* Squared distance from x to the box: sum over axes of the excess beyond +-h. */
static float box_dist_sq(const float x[3], const float h[3])
{
    float f = 0.0f;
    for (int k = 0; k < 3; ++k) {
        float e = fabsf(x[k]) - h[k];
        if (e > 0.0f) {
            f += e * e;
        }
    }
    return f;
}

/* Parameter t in [0, 1] of the segment point p0 + t d closest to the box.
 * f(t) = dist^2(p0 + t d, box) is convex and piecewise quadratic; its pieces
 * change where a coordinate crosses +-h_k, at t = (+-h_k - p0_k) / d_k. On one
 * piece the outside axes are fixed, with clamp value c_k, and
 *   f(t) = sum (p0_k - c_k + t d_k)^2  ->  t* = -sum (p0_k - c_k) d_k / sum d_k^2.
 * Clamp t* to the piece, keep the best piece (first on ties). */
static float segment_box_param(const float p0[3], const float d[3], const float h[3])
{
    float cuts[8];
    int n = 0;
    cuts[n++] = 0.0f;
    for (int k = 0; k < 3; ++k) {
        if (d[k] == 0.0f) {
            continue;
        }
        for (int side = 0; side < 2; ++side) {
            float t = ((side == 0 ? h[k] : -h[k]) - p0[k]) / d[k];
            if (t > 0.0f && t < 1.0f) {
                int i = n; /* insertion keeps cuts sorted */
                while (i > 1 && cuts[i - 1] > t) {
                    cuts[i] = cuts[i - 1];
                    --i;
                }
                cuts[i] = t;
                ++n;
            }
        }
    }
    cuts[n++] = 1.0f;

    float best_t = 0.0f;
    float best_f = 0.0f;
    for (int i = 0; i + 1 < n; ++i) {
        float ta = cuts[i], tb = cuts[i + 1];
        float tm = 0.5f * (ta + tb);
        float num = 0.0f, den = 0.0f;
        for (int k = 0; k < 3; ++k) {
            float x = p0[k] + tm * d[k];
            if (x > h[k] || x < -h[k]) {
                float c = x > h[k] ? h[k] : -h[k];
                num -= (p0[k] - c) * d[k];
                den += d[k] * d[k];
            }
        }
        float t = ta;
        if (den > TSN_TINY_SQ) {
            t = tsn_clampf(num / den, ta, tb);
        }
        float x[3] = {p0[0] + t * d[0], p0[1] + t * d[1], p0[2] + t * d[2]};
        float f = box_dist_sq(x, h);
        if (i == 0 || f < best_f) {
            best_f = f;
            best_t = t;
        }
    }
    return best_t;
}

/* Clip the segment to the side planes of box face (axis k, sign s) and measure
 * each clipped end against the face plane: sep = s x_k - h_k - r. Side plane j
 * (0 +u, 1 +v, 2 -u, 3 -v with u, v the other axes) keeps sg x_ax <= h_ax.
 * Writes the ends with sep < margin as points midway between the capsule
 * surface x - r n_out and the face point x - (sep + r) n_out, in the box frame.
 * Returns the number of points (0..2); two ends closer than
 * TSN_MIN_CLIP_LENGTH give only the deeper one. */
static int capsule_face_points(ts_vec3 p0, ts_vec3 p1, const float h[3], int k, float s, float r, float margin,
                               ts_manifold_point out[2])
{
    float e[2][3];
    tsn_to_array(p0, e[0]);
    tsn_to_array(p1, e[1]);
    uint32_t code[2] = {0u, 1u};
    int u = (k + 1) % 3, v = (k + 2) % 3;
    const int axes[4] = {u, v, u, v};
    const float signs[4] = {1.0f, 1.0f, -1.0f, -1.0f};
    for (int j = 0; j < 4; ++j) {
        int ax = axes[j];
        float sg = signs[j];
        float d0 = sg * e[0][ax] - h[ax];
        float d1 = sg * e[1][ax] - h[ax];
        if (d0 > 0.0f && d1 > 0.0f) {
            return 0;
        }
        if (d0 > 0.0f || d1 > 0.0f) {
            float t = d0 / (d0 - d1); /* signs differ, so d0 != d1 */
            int out_end = d0 > 0.0f ? 0 : 1;
            float x[3];
            for (int c = 0; c < 3; ++c) {
                x[c] = e[0][c] + t * (e[1][c] - e[0][c]);
            }
            x[ax] = sg * h[ax];
            for (int c = 0; c < 3; ++c) {
                e[out_end][c] = x[c];
            }
            code[out_end] = 2u + (uint32_t)j;
        }
    }
    int face = 2 * k + (s < 0.0f ? 1 : 0);
    float nn[3] = {0.0f, 0.0f, 0.0f};
    nn[k] = s;
    ts_vec3 n_out = tsn_from_array(nn);
    int count = 0;
    for (int i = 0; i < 2; ++i) {
        float sep = s * e[i][k] - h[k] - r;
        if (sep < margin) {
            ts_vec3 mid = ts_mul_add(tsn_from_array(e[i]), -(r + 0.5f * sep), n_out);
            uint32_t id = ((uint32_t)(face + 1) << 4) | (code[i] + 1u);
            tsn_set_point(&out[count], mid, sep, id);
            ++count;
        }
    }
    if (count == 2) {
        ts_vec3 diff = ts_sub(tsn_from_array(e[1]), tsn_from_array(e[0]));
        if (ts_length_sq(diff) <= TSN_MIN_CLIP_LENGTH * TSN_MIN_CLIP_LENGTH) {
            if (out[1].separation < out[0].separation) {
                out[0] = out[1];
            }
            count = 1;
        }
    }
    return count;
}

/* Copy box-frame points into the manifold in world space; normal = -n_out. */
static void capsule_box_emit(ts_manifold *m, ts_transform xfb, ts_vec3 n_out, const ts_manifold_point *pts,
                             int count)
{
    m->normal = ts_neg(ts_rotate(xfb.q, n_out));
    for (int i = 0; i < count; ++i) {
        m->points[i] = pts[i];
        m->points[i].point = ts_transform_point(xfb, pts[i].point);
    }
    m->point_count = count;
}

/* Deep case: the core segment touches or enters the box. Separating axis test
 * over the box face normals and the cross products segment x box axis (the
 * complete axis set of a segment and a box); the axis of least penetration
 * names the contact. On axis n: the box spans +-rb with rb = sum h_j |n_j|,
 * the segment [lo, hi]; separation with the segment on the + side is lo - rb,
 * on the - side -rb - hi; the larger one orients n. */
static void capsule_box_deep(ts_vec3 p0, ts_vec3 p1, const float h[3], float r, float margin, ts_transform xfb,
                             ts_manifold *m)
{
    float a0[3], a1[3];
    tsn_to_array(p0, a0);
    tsn_to_array(p1, a1);
    int face_axis = 0;
    float face_sign = 1.0f;
    float face_sep = -FLT_MAX;
    for (int k = 0; k < 3; ++k) {
        float sep_pos = tsn_minf(a0[k], a1[k]) - h[k];
        float sep_neg = -h[k] - tsn_maxf(a0[k], a1[k]);
        float sep = tsn_maxf(sep_pos, sep_neg);
        if (sep > face_sep) {
            face_sep = sep;
            face_axis = k;
            face_sign = sep_pos >= sep_neg ? 1.0f : -1.0f;
        }
    }
    ts_vec3 d = ts_sub(p1, p0);
    float dd = ts_dot(d, d);
    int edge_axis = -1;
    float edge_sep = -FLT_MAX;
    ts_vec3 edge_n = ts_v3(0.0f, 0.0f, 0.0f);
    for (int k = 0; k < 3 && dd > TSN_TINY_SQ; ++k) {
        float ek[3] = {0.0f, 0.0f, 0.0f};
        ek[k] = 1.0f;
        ts_vec3 n = ts_cross(d, tsn_from_array(ek));
        float nn = ts_dot(n, n);
        if (nn <= 1.0e-6f * dd) {
            continue; /* segment parallel to this box axis: covered by the face axes */
        }
        n = ts_scale(1.0f / sqrtf(nn), n);
        float rb = h[0] * fabsf(n.x) + h[1] * fabsf(n.y) + h[2] * fabsf(n.z);
        float s0 = ts_dot(n, p0), s1 = ts_dot(n, p1);
        float sep_pos = tsn_minf(s0, s1) - rb;
        float sep_neg = -rb - tsn_maxf(s0, s1);
        float sep = tsn_maxf(sep_pos, sep_neg);
        if (sep > edge_sep) {
            edge_sep = sep;
            edge_axis = k;
            edge_n = sep_pos >= sep_neg ? n : ts_neg(n);
        }
    }

    ts_manifold_point pts[2];
    if (edge_axis >= 0 && edge_sep > face_sep + TSN_EDGE_TOL_ABS + TSN_EDGE_TOL_REL * fabsf(face_sep)) {
        /* Edge contact: the box edge along axis k that is extreme along n, i.e.
         * coordinates sign(n_j) h_j on the other axes; closest points to the segment. */
        float n3[3], e0[3], e1[3];
        tsn_to_array(edge_n, n3);
        for (int j = 0; j < 3; ++j) {
            e0[j] = tsn_signf(n3[j]) * h[j];
            e1[j] = e0[j];
        }
        e0[edge_axis] = -h[edge_axis];
        e1[edge_axis] = h[edge_axis];
        float s, t;
        ts_vec3 q0 = tsn_from_array(e0), q1 = tsn_from_array(e1);
        tsn_closest_segments(p0, p1, q0, q1, &s, &t);
        ts_vec3 cs = ts_mul_add(p0, s, d);
        ts_vec3 cb = ts_mul_add(q0, t, ts_sub(q1, q0));
        float sep = ts_dot(edge_n, ts_sub(cs, cb)) - r;
        if (sep < margin) {
            ts_vec3 mid = ts_scale(0.5f, ts_add(cb, ts_mul_add(cs, -r, edge_n)));
            tsn_set_point(&pts[0], mid, sep, 0u);
            capsule_box_emit(m, xfb, edge_n, pts, 1);
        }
        return;
    }

    float nn[3] = {0.0f, 0.0f, 0.0f};
    nn[face_axis] = face_sign;
    ts_vec3 n_out = tsn_from_array(nn);
    int count = capsule_face_points(p0, p1, h, face_axis, face_sign, r, margin, pts);
    /* The clipped points may miss the SAT depth when the deepest end lies
     * beyond a side plane. Within the face/edge bias that is accepted (the
     * bias already trades that much depth for a stable face contact); past
     * it, one point at the deepest end, moved onto the face rectangle, carries
     * the SAT depth so the push-out is enough. */
    float tol = TSN_EDGE_TOL_ABS + TSN_EDGE_TOL_REL * fabsf(face_sep);
    if (count == 0 || min_separation(pts, count) > face_sep - r + tol) {
        float x[3];
        const float *end = face_sign * a0[face_axis] <= face_sign * a1[face_axis] ? a0 : a1;
        for (int j = 0; j < 3; ++j) {
            x[j] = j == face_axis ? end[j] : tsn_clampf(end[j], -h[j], h[j]);
        }
        float sep = face_sign * x[face_axis] - h[face_axis] - r;
        if (!(sep < margin)) {
            return;
        }
        tsn_set_point(&pts[0], ts_mul_add(tsn_from_array(x), -(r + 0.5f * sep), n_out), sep, 0u);
        count = 1;
    }
    capsule_box_emit(m, xfb, n_out, pts, count);
}

/* Capsule (A) against box (B).
 * 1. Closest points of the core segment and the box (segment_box_param).
 * 2. Separated cores: n_out = (s - b) / |s - b|, separation |s - b| - r. When
 *    n_out is a face normal, the segment is clipped to that face: two points
 *    when both ends are within the margin (the capsule lies flat) and the
 *    clipped ends are as deep as the closest point (no deeper part hangs over
 *    a side plane), else the single closest point.
 * 3. Touching or entering cores: deep SAT (capsule_box_deep). */
void ts_collide_capsule_box(const ts_capsule *a, ts_transform xfa, const ts_box *b, ts_transform xfb, float margin,
                            ts_manifold *m)
{
    m->point_count = 0;
    float r = a->radius;
    ts_vec3 w0, w1;
    tsn_capsule_segment(a->half_height, xfa, &w0, &w1);
    ts_vec3 p0 = ts_inv_transform_point(xfb, w0);
    ts_vec3 p1 = ts_inv_transform_point(xfb, w1);
    float h[3], s0[3], d[3];
    tsn_to_array(b->half_extents, h);
    tsn_to_array(p0, s0);
    tsn_to_array(ts_sub(p1, p0), d);

    float t = segment_box_param(s0, d, h);
    float s[3], q[3];
    for (int k = 0; k < 3; ++k) {
        s[k] = s0[k] + t * d[k];
        q[k] = tsn_clampf(s[k], -h[k], h[k]);
    }
    ts_vec3 sv = tsn_from_array(s);
    ts_vec3 qv = tsn_from_array(q);
    ts_vec3 diff = ts_sub(sv, qv);
    float dist_sq = ts_dot(diff, diff);
    if (dist_sq <= TSN_DEEP_DIST_SQ) {
        capsule_box_deep(p0, p1, h, r, margin, xfb, m);
        return;
    }
    float dist = sqrtf(dist_sq);
    float sep = dist - r;
    if (!(sep < margin)) {
        return;
    }
    ts_vec3 n_out = ts_scale(1.0f / dist, diff);
    ts_manifold_point pts[2];

    float n3[3];
    tsn_to_array(n_out, n3);
    int k = 0;
    for (int j = 1; j < 3; ++j) {
        if (fabsf(n3[j]) > fabsf(n3[k])) {
            k = j;
        }
    }
    if (fabsf(n3[k]) >= TSN_FACE_ALIGN) {
        float fs = tsn_signf(n3[k]);
        if (capsule_face_points(p0, p1, h, k, fs, r, margin, pts) == 2 &&
            min_separation(pts, 2) <= sep + TSN_DEPTH_TOL) {
            float nn[3] = {0.0f, 0.0f, 0.0f};
            nn[k] = fs;
            capsule_box_emit(m, xfb, tsn_from_array(nn), pts, 2);
            return;
        }
    }
    ts_vec3 mid = ts_scale(0.5f, ts_add(qv, ts_mul_add(sv, -r, n_out)));
    tsn_set_point(&pts[0], mid, sep, 0u);
    capsule_box_emit(m, xfb, n_out, pts, 1);
}
