/* tessera: spheres and capsules against hulls (the round shape is A, the
 * hull B), by closest features.
 *
 * Everything happens in the hull's frame. The round shape's core (a point,
 * or the capsule's segment) is measured against the hull:
 * - core outside the hull: GJK gives the closest points and the distance;
 *   the normal runs from the hull point to the core point, the separation
 *   is the distance less the radius. A capsule lying flat on a face (the
 *   normal within TSN_FACE_ALIGN of the face's) gets two points: its
 *   segment clipped by the face's side planes, as capsule-box does.
 * - core touching or inside: the separating axis test over the hull's face
 *   normals (and for a segment the cross products of it with the hull's
 *   edges) names the way out of least penetration.
 *
 * Feature ids: one point 0; two capsule points (face + 1) << 10 | (code +
 * 1) with code 0 / 1 the segment's ends and 2 + h an end clipped by the
 * side plane of the face's half-edge h. */
#include "collide/collide_hull.h"
#include "collide/gjk.h"
#include "collide/narrowphase.h"

/* The core is this close to the hull (m): the GJK direction is noise, use the SAT. */
#define TSN_ROUND_DEEP 1.0e-5f
/* Normal and face agree this well (cosine) for a flat capsule contact. */
#define TSN_ROUND_FACE_ALIGN 0.995f
/* The two clipped points must be as deep as the closest point within this. */
#define TSN_ROUND_DEPTH_TOL 0.0005f
/* An edge axis must beat the best face axis by abs + rel |face separation|
 * in the deep SAT (as capsule-box: faces give the steadier contact). */
#define TSN_ROUND_EDGE_TOL 0.001f
#define TSN_ROUND_EDGE_REL 0.05f

/* The face of largest separation n . c - d of a point. */
static int deepest_face(const ts_hull_data *h, ts_vec3 c, float *separation)
{
    int best = 0;
    float best_sep = -FLT_MAX;
    for (int f = 0; f < h->face_count; ++f) {
        float s = ts_dot(h->planes[f].normal, c) - h->planes[f].offset;
        if (s > best_sep) {
            best_sep = s;
            best = f;
        }
    }
    *separation = best_sep;
    return best;
}

/* Writes the manifold from points in the hull's frame, n_out the hull's
 * outward normal there; the manifold normal runs from A (round) to B. */
static void emit(ts_manifold *m, ts_transform xfb, ts_vec3 n_out, const ts_manifold_point *pts, int count)
{
    m->normal = ts_neg(ts_rotate(xfb.q, n_out));
    for (int i = 0; i < count; ++i) {
        m->points[i] = pts[i];
        m->points[i].point = ts_transform_point(xfb, pts[i].point);
    }
    m->point_count = count;
}

void ts_collide_sphere_hull(const ts_sphere *a, ts_transform xfa, const ts_hull_data *b, ts_transform xfb,
                            float margin, ts_manifold *m)
{
    m->point_count = 0;
    float r = a->radius;
    ts_vec3 c = ts_inv_transform_point(xfb, xfa.p);
    float face_sep;
    int f = deepest_face(b, c, &face_sep);
    if (face_sep > r + margin) {
        return;
    }
    ts_vec3 n_out = b->planes[f].normal;
    ts_vec3 surface = ts_mul_add(c, -face_sep, n_out); /* the centre's foot on the face plane */
    float sep = face_sep - r;
    if (face_sep > TSN_ROUND_DEEP) {
        tsn_proxy pa = {&c, 1, NULL};
        tsn_proxy pb = {NULL, 0, b};
        tsn_distance d;
        tsn_gjk(&pa, &pb, &d);
        if (!d.overlap && d.distance > TSN_ROUND_DEEP) {
            sep = d.distance - r;
            if (!(sep < margin)) {
                return;
            }
            n_out = ts_scale(1.0f / d.distance, ts_sub(c, d.point_b));
            surface = d.point_b;
        }
    }
    if (!(sep < margin)) {
        return;
    }
    ts_manifold_point pt;
    tsn_set_point(&pt, ts_scale(0.5f, ts_add(surface, ts_mul_add(c, -r, n_out))), sep, 0u);
    emit(m, xfb, n_out, &pt, 1);
}

/* The segment clipped by the side planes of face f, each remaining end
 * measured against the face: sep = n . x - d - r. Returns the points with
 * sep < margin (0..2); ends closer than 1 mm give the deeper one. */
static int segment_face_points(const ts_hull_data *h, int f, ts_vec3 p0, ts_vec3 p1, float r, float margin,
                               ts_manifold_point out[2])
{
    ts_vec3 e[2] = {p0, p1};
    uint32_t code[2] = {0u, 1u};
    ts_plane pl = h->planes[f];
    int first = h->face_first[f];
    int k = first;
    do {
        ts_vec3 p, q;
        ts_hull_edge_points(h, k, &p, &q);
        ts_vec3 side = ts_cross(ts_sub(q, p), pl.normal);
        float limit = ts_dot(side, p);
        float d0 = ts_dot(side, e[0]) - limit, d1 = ts_dot(side, e[1]) - limit;
        if (d0 > 0.0f && d1 > 0.0f) {
            return 0;
        }
        if (d0 > 0.0f || d1 > 0.0f) {
            int out_end = d0 > 0.0f ? 0 : 1;
            e[out_end] = ts_mul_add(e[0], d0 / (d0 - d1), ts_sub(e[1], e[0]));
            code[out_end] = 2u + (uint32_t)k;
        }
        k = h->edges[k].next;
    } while (k != first);
    int count = 0;
    for (int i = 0; i < 2; ++i) {
        float sep = ts_dot(pl.normal, e[i]) - pl.offset - r;
        if (sep < margin) {
            ts_vec3 mid = ts_mul_add(e[i], -(r + 0.5f * sep), pl.normal);
            tsn_set_point(&out[count++], mid, sep, ((uint32_t)(f + 1) << 10) | (code[i] + 1u));
        }
    }
    if (count == 2 && ts_length_sq(ts_sub(e[1], e[0])) <= 1.0e-6f) {
        if (out[1].separation < out[0].separation) {
            out[0] = out[1];
        }
        count = 1;
    }
    return count;
}

static float min_sep(const ts_manifold_point *pts, int count)
{
    float s = FLT_MAX;
    for (int i = 0; i < count; ++i) {
        s = tsn_minf(s, pts[i].separation);
    }
    return s;
}

/* Deep: the segment touches or enters the hull. Separating axis test over
 * the face normals (the segment's deepest end) and the cross products of
 * the segment with the hull's silhouette edges: on the Gauss map the
 * segment is the great circle normal to it, an edge the arc between its
 * faces' normals, and the two meet only when the faces' normals lie on
 * either side of that circle. The axis is then the arc's point on the
 * circle, and the edge is the hull's extreme along it. */
static void capsule_hull_deep(const ts_hull_data *h, ts_vec3 p0, ts_vec3 p1, float r, float margin,
                              ts_transform xfb, ts_manifold *m)
{
    int face = 0;
    float face_sep = -FLT_MAX;
    for (int f = 0; f < h->face_count; ++f) {
        ts_plane pl = h->planes[f];
        float s = tsn_minf(ts_dot(pl.normal, p0), ts_dot(pl.normal, p1)) - pl.offset;
        if (s > face_sep) {
            face_sep = s;
            face = f;
        }
    }
    ts_vec3 d = ts_sub(p1, p0);
    float dd = ts_dot(d, d);
    int edge = -1;
    float edge_sep = -FLT_MAX;
    ts_vec3 edge_n = ts_v3(0.0f, 0.0f, 0.0f);
    for (int k = 0; k < h->edge_count && dd > TSN_TINY_SQ; k += 2) {
        ts_vec3 u = h->planes[h->edges[k].face].normal, v = h->planes[h->edges[k + 1].face].normal;
        if (!(ts_dot(u, d) * ts_dot(v, d) < 0.0f)) {
            continue;
        }
        ts_vec3 p, q;
        ts_hull_edge_points(h, k, &p, &q);
        ts_vec3 e = ts_sub(q, p);
        ts_vec3 n = ts_cross(d, e);
        float nn = ts_dot(n, n);
        if (nn <= 1.0e-6f * dd * ts_dot(e, e)) {
            continue;
        }
        n = ts_scale(1.0f / sqrtf(nn), n);
        if (ts_dot(n, ts_add(u, v)) < 0.0f) {
            n = ts_neg(n);
        }
        float s = tsn_minf(ts_dot(n, p0), ts_dot(n, p1)) - ts_dot(n, p);
        if (s > edge_sep) {
            edge_sep = s;
            edge = k;
            edge_n = n;
        }
    }
    ts_manifold_point pts[2];
    float tol = TSN_ROUND_EDGE_TOL + TSN_ROUND_EDGE_REL * fabsf(face_sep);
    if (edge >= 0 && edge_sep > face_sep + tol) {
        ts_vec3 p, q;
        ts_hull_edge_points(h, edge, &p, &q);
        float s, t;
        tsn_closest_segments(p0, p1, p, q, &s, &t);
        ts_vec3 cs = ts_mul_add(p0, s, d);
        ts_vec3 ch = ts_mul_add(p, t, ts_sub(q, p));
        float sep = edge_sep - r; /* the axis's separation (the closest points may be clamped) */
        if (sep < margin) {
            tsn_set_point(&pts[0], ts_scale(0.5f, ts_add(ch, ts_mul_add(cs, -r, edge_n))), sep, 0u);
            emit(m, xfb, edge_n, pts, 1);
        }
        return;
    }
    ts_vec3 n_out = h->planes[face].normal;
    int count = segment_face_points(h, face, p0, p1, r, margin, pts);
    if (count == 0 || min_sep(pts, count) > face_sep - r + tol) {
        /* the deepest end, on the face plane */
        ts_vec3 end = ts_dot(n_out, p0) <= ts_dot(n_out, p1) ? p0 : p1;
        float sep = ts_dot(n_out, end) - h->planes[face].offset - r;
        if (!(sep < margin)) {
            return;
        }
        tsn_set_point(&pts[0], ts_mul_add(end, -(r + 0.5f * sep), n_out), sep, 0u);
        count = 1;
    }
    emit(m, xfb, n_out, pts, count);
}

void ts_collide_capsule_hull(const ts_capsule *a, ts_transform xfa, const ts_hull_data *b, ts_transform xfb,
                             float margin, ts_manifold *m)
{
    m->point_count = 0;
    float r = a->radius;
    ts_vec3 w0, w1;
    tsn_capsule_segment(a->half_height, xfa, &w0, &w1);
    ts_vec3 seg[2] = {ts_inv_transform_point(xfb, w0), ts_inv_transform_point(xfb, w1)};
    tsn_proxy pa = {seg, 2, NULL};
    tsn_proxy pb = {NULL, 0, b};
    tsn_distance d;
    tsn_gjk(&pa, &pb, &d);
    if (d.overlap || d.distance <= TSN_ROUND_DEEP) {
        capsule_hull_deep(b, seg[0], seg[1], r, margin, xfb, m);
        return;
    }
    float sep = d.distance - r;
    if (!(sep < margin)) {
        return;
    }
    ts_vec3 n_out = ts_scale(1.0f / d.distance, ts_sub(d.point_a, d.point_b));
    int face = 0;
    float align = -FLT_MAX;
    for (int f = 0; f < b->face_count; ++f) {
        float x = ts_dot(b->planes[f].normal, n_out);
        if (x > align) {
            align = x;
            face = f;
        }
    }
    ts_manifold_point pts[2];
    if (align >= TSN_ROUND_FACE_ALIGN && segment_face_points(b, face, seg[0], seg[1], r, margin, pts) == 2 &&
        min_sep(pts, 2) <= sep + TSN_ROUND_DEPTH_TOL) {
        emit(m, xfb, b->planes[face].normal, pts, 2);
        return;
    }
    tsn_set_point(&pts[0], ts_scale(0.5f, ts_add(d.point_b, ts_mul_add(d.point_a, -r, n_out))), sep, 0u);
    emit(m, xfb, n_out, pts, 1);
}
