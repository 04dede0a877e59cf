/* tessera: one convex shape against one triangle of a mesh or heightfield,
 * in the shape's own frame (collide_mesh.c gathers the triangles).
 *
 * Triangles are one-sided: a shape whose centre is behind the plane is not
 * touched. The contact is found as for any convex pair (closest features
 * for a sphere or capsule; a separating axis test for boxes and hulls over
 * the triangle's normal, the shape's face normals, and the cross products
 * of the shape's edges with the triangle's edges), then the triangle's
 * feature that made it is checked against the edge flags (mesh.h):
 * - the triangle's face, or an edge or vertex that is collided as such:
 *   the contact stands;
 * - an edge (or a vertex whose two edges here are) between triangles in
 *   one plane or in an inward crease: the neighbour's face is as close or
 *   closer, so the contact is moved onto this triangle's face: the shape is
 *   clipped to the triangle's prism and measured along its normal. What
 *   lies outside the prism is the neighbour's to report. That keeps a body
 *   sliding across a flat mesh from catching the edges between triangles.
 * For the separating axis test a triangle's edge k has on the Gauss map the
 * arc from the triangle normal to the edge's outward side normal in the
 * triangle's plane (the back half is culled), and only active edges enter.
 *
 * Feature ids: a point made only of the shape's features (a corner of a
 * box face, a capsule's end) keeps the shape's id, so it stays the same as
 * the shape slides from one triangle to the next; points that involve the
 * triangle's edges are marked with TSN_TRI_ID_BIT and mixed with the
 * triangle's id. */
#include "collide/collide_triangle.h"

#include "collide/gjk.h"
#include "collide/narrowphase.h"

/* A triangle vertex within this of the deepest one along an axis shares
 * the touching feature. */
#define TSN_TRI_FEATURE_TOL 1.0e-4f
/* A round core may stick out of an inactive edge's prism by this much and
 * still be moved onto the face: the gap two neighbours' prisms leave at an
 * almost flat outward crease. */
#define TSN_TRI_PRISM_TOL 1.0e-3f
/* Biases as box-box: the shape's face must beat the triangle's by this ... */
#define TSN_TRI_FACE_TOL 0.0005f
/* ... and an edge axis the best face axis by abs + rel |separation|. */
#define TSN_TRI_EDGE_TOL_ABS 0.001f
#define TSN_TRI_EDGE_TOL_REL 0.05f

/* Triangle features: vertices 0..2, edges 3..5 (edge k = 3 + k, from v[k]
 * to v[k + 1]), the face 6. */
enum { FEATURE_FACE = 6 };

static bool feature_is_active(int feature, uint8_t flags)
{
    if (feature == FEATURE_FACE) {
        return true;
    }
    if (feature >= 3) {
        return (flags >> (feature - 3)) & 1u;
    }
    /* vertex k sits on edges k and k - 1 */
    int k = feature;
    return ((flags >> k) & 1u) || ((flags >> ((k + 2) % 3)) & 1u);
}

uint32_t tsn_triangle_mix_id(uint32_t id, int32_t triangle)
{
    return TSN_TRI_ID_BIT | ((id ^ ((uint32_t)triangle * 2654435761u)) & ~TSN_TRI_ID_BIT);
}

/* ---------------------------------------------------------------- the triangle as a hull */

/* Front face 0 (v0 v1 v2), back face 1; half-edge 2k runs v[k] -> v[k + 1]
 * on the front, 2k + 1 back. */
static const ts_hull_edge tri_edges[6] = {
    {2, 1, 0, 0}, {5, 0, 1, 1}, {4, 3, 1, 0}, {1, 2, 2, 1}, {0, 5, 2, 0}, {3, 4, 0, 1},
};
static const uint16_t tri_face_first[2] = {0, 5};

void tsn_triangle_hull(const ts_triangle *tri, tsn_triangle_hull_data *out)
{
    ts_vec3 n = ts_cross(ts_sub(tri->v[1], tri->v[0]), ts_sub(tri->v[2], tri->v[0]));
    n = ts_normalize(n);
    for (int i = 0; i < 4; ++i) {
        ts_vec3 v = tri->v[i < 3 ? i : 0];
        if (i < 3) {
            out->vertices[i] = v;
        }
        out->vx[i] = v.x;
        out->vy[i] = v.y;
        out->vz[i] = v.z;
    }
    float d = ts_dot(n, tri->v[0]);
    out->planes[0] = (ts_plane){n, d};
    out->planes[1] = (ts_plane){ts_neg(n), -d};
    ts_hull_data *h = &out->hull;
    *h = (ts_hull_data){0};
    h->vertex_count = 3;
    h->face_count = 2;
    h->edge_count = 6;
    h->padded_count = 4;
    h->centroid = ts_scale(1.0f / 3.0f, ts_add(ts_add(tri->v[0], tri->v[1]), tri->v[2]));
    h->vertices = out->vertices;
    h->vx = out->vx;
    h->vy = out->vy;
    h->vz = out->vz;
    h->planes = out->planes;
    h->face_first = tri_face_first;
    h->edges = tri_edges;
}

/* ---------------------------------------------------------------- round shapes */

/* The segment [p0, p1] clipped to the triangle's prism (its side planes
 * moved out by tol), each remaining end measured along the normal:
 * sep = n . x - d - r. Keeps ends below margin; an end moved by a side
 * plane gets an id mixed with the triangle's. */
static int segment_prism_points(ts_vec3 p0, ts_vec3 p1, float r, const ts_triangle *tri, ts_vec3 n, float tol,
                                float margin, tsn_triangle_contact *out)
{
    ts_vec3 e[2] = {p0, p1};
    uint32_t code[2] = {1u, 2u};
    for (int k = 0; k < 3; ++k) {
        ts_vec3 a = tri->v[k], b = tri->v[(k + 1) % 3];
        ts_vec3 side = ts_normalize(ts_cross(ts_sub(b, a), n));
        float limit = ts_dot(side, a) + tol;
        float d0 = ts_dot(side, e[0]) - limit, d1 = ts_dot(side, e[1]) - limit;
        if (d0 > 0.0f && d1 > 0.0f) {
            return 0;
        }
        if (d0 > 0.0f || d1 > 0.0f) {
            int o = d0 > 0.0f ? 0 : 1;
            e[o] = ts_mul_add(e[0], d0 / (d0 - d1), ts_sub(e[1], e[0]));
            code[o] = tsn_triangle_mix_id(3u + (uint32_t)k + 4u * (uint32_t)o, tri->id);
        }
    }
    float d = ts_dot(n, tri->v[0]);
    int count = 0;
    bool same = ts_length_sq(ts_sub(e[1], e[0])) <= 1.0e-6f;
    for (int i = 0; i < (same ? 1 : 2); ++i) {
        float sep = ts_dot(n, e[i]) - d - r;
        if (sep < margin) {
            tsn_set_point(&out->points[count++], ts_mul_add(e[i], -(r + 0.5f * sep), n), sep, code[i]);
        }
    }
    out->count = count;
    out->normal = n;
    return count;
}

void tsn_collide_triangle_round(ts_vec3 p0, ts_vec3 p1, float r, const ts_triangle *tri, float margin,
                                tsn_triangle_contact *out)
{
    out->count = 0;
    ts_vec3 n = ts_normalize(ts_cross(ts_sub(tri->v[1], tri->v[0]), ts_sub(tri->v[2], tri->v[0])));
    float d = ts_dot(n, tri->v[0]);
    ts_vec3 mid = ts_scale(0.5f, ts_add(p0, p1));
    if (ts_dot(n, mid) < d) {
        return; /* behind: one-sided */
    }
    /* closest points: each end against the triangle, the segment against each edge */
    int feature;
    ts_vec3 best_t = tsn_closest_on_triangle(p0, tri->v[0], tri->v[1], tri->v[2], &feature);
    ts_vec3 best_c = p0;
    float best = ts_length_sq(ts_sub(p0, best_t));
    bool segment = ts_length_sq(ts_sub(p1, p0)) > TSN_TINY_SQ;
    if (segment) {
        int f1;
        ts_vec3 t1 = tsn_closest_on_triangle(p1, tri->v[0], tri->v[1], tri->v[2], &f1);
        float d1 = ts_length_sq(ts_sub(p1, t1));
        if (d1 < best) {
            best = d1;
            best_t = t1;
            best_c = p1;
            feature = f1;
        }
        for (int k = 0; k < 3; ++k) {
            ts_vec3 a = tri->v[k], b = tri->v[(k + 1) % 3];
            float s, t;
            tsn_closest_segments(p0, p1, a, b, &s, &t);
            ts_vec3 cs = ts_mul_add(p0, s, ts_sub(p1, p0));
            ts_vec3 ct = ts_mul_add(a, t, ts_sub(b, a));
            float dd = ts_length_sq(ts_sub(cs, ct));
            if (dd < best) {
                best = dd;
                best_t = ct;
                best_c = cs;
                feature = t <= 0.0f ? k : (t >= 1.0f ? (k + 1) % 3 : 3 + k);
            }
        }
        /* a segment through the triangle's face */
        float s0 = ts_dot(n, p0) - d, s1 = ts_dot(n, p1) - d;
        if (s0 * s1 < 0.0f) {
            feature = FEATURE_FACE;
            best = 0.0f;
        }
    }
    float dist = sqrtf(best);
    if (dist - r >= margin) {
        return;
    }
    if (feature == FEATURE_FACE || dist <= 1.0e-5f || !feature_is_active(feature, tri->edge_flags)) {
        /* on the face (or moved onto it): the segment in the prism, along n */
        float tol = feature == FEATURE_FACE ? 0.0f : TSN_TRI_PRISM_TOL;
        segment_prism_points(p0, p1, r, tri, n, tol, margin, out);
        out->face = true;
        return;
    }
    ts_vec3 dir = ts_scale(1.0f / dist, ts_sub(best_c, best_t));
    float sep = dist - r;
    out->normal = dir;
    out->face = false;
    tsn_set_point(&out->points[0], ts_scale(0.5f, ts_add(best_t, ts_mul_add(best_c, -r, dir))), sep,
                  tsn_triangle_mix_id(16u + (uint32_t)feature, tri->id));
    out->count = 1;
}

/* ---------------------------------------------------------------- boxes and hulls */

/* The triangle's feature touching along axis n (pointing from the triangle
 * to the shape): the vertices within TSN_TRI_FEATURE_TOL of the largest
 * n . v. */
static int touching_feature(const ts_triangle *tri, ts_vec3 n)
{
    float d[3];
    float top = -FLT_MAX;
    for (int k = 0; k < 3; ++k) {
        d[k] = ts_dot(n, tri->v[k]);
        top = tsn_maxf(top, d[k]);
    }
    int mask = 0;
    for (int k = 0; k < 3; ++k) {
        mask |= d[k] >= top - TSN_TRI_FEATURE_TOL ? 1 << k : 0;
    }
    switch (mask) {
    case 1: return 0;
    case 2: return 1;
    case 4: return 2;
    case 3: return 3;      /* v0 v1: edge 0 */
    case 6: return 4;      /* v1 v2: edge 1 */
    case 5: return 5;      /* v2 v0: edge 2 */
    default: return FEATURE_FACE;
    }
}

/* Mixes the triangle's id into the ids of points that involve its edges
 * (a line >= 512, or any point of a contact with the shape's face as
 * reference, whose incident polygon is the triangle). */
static void mark_ids(tsn_triangle_contact *out, int32_t triangle, bool all)
{
    for (int i = 0; i < out->count; ++i) {
        uint32_t id = out->points[i].feature_id;
        uint32_t hi = (id >> 10) & 1023u;
        if (all || hi >= 512u) {
            out->points[i].feature_id = tsn_triangle_mix_id(id, triangle);
        }
    }
}

/* The triangle's face as reference: the shape's incident face clipped by
 * the triangle's prism. */
static void triangle_face_contact(const ts_hull_data *s, const tsn_triangle_hull_data *th, const ts_triangle *tri,
                                  float margin, tsn_triangle_contact *out)
{
    tsn_mat3 identity = {{{1.0f, 0.0f, 0.0f}, {0.0f, 1.0f, 0.0f}, {0.0f, 0.0f, 1.0f}}};
    out->count = tsn_hull_face_contact(&th->hull, 0, s, &identity, ts_v3(0.0f, 0.0f, 0.0f), margin, 1u << 28,
                                       out->points);
    out->normal = th->planes[0].normal;
    out->face = true;
    mark_ids(out, tri->id, false);
}

/* Edge pairs of the shape's edges and the triangle's active edges. */
static float query_triangle_edges(const ts_hull_data *s, const ts_triangle *tri, ts_vec3 n, int *edge_s, int *edge_t,
                                  ts_vec3 *axis_out)
{
    float best = -FLT_MAX;
    *edge_s = -1;
    for (int k = 0; k < 3; ++k) {
        if (((tri->edge_flags >> k) & 1u) == 0) {
            continue;
        }
        ts_vec3 a = tri->v[k], b = tri->v[(k + 1) % 3];
        ts_vec3 et = ts_sub(b, a);
        ts_vec3 side = ts_normalize(ts_cross(et, n));
        /* the triangle edge's arc: n to side; the shape's: its negated face normals */
        ts_vec3 bxa = ts_cross(side, n);
        for (int h = 0; h < s->edge_count; h += 2) {
            const ts_hull_edge *e = &s->edges[h];
            const ts_hull_edge *tw = &s->edges[h + 1];
            ts_vec3 u = ts_neg(s->planes[e->face].normal);
            ts_vec3 v = ts_neg(s->planes[tw->face].normal);
            ts_vec3 dxc = ts_cross(v, u);
            float cba = ts_dot(u, bxa), dba = ts_dot(v, bxa), adc = ts_dot(n, dxc), bdc = ts_dot(side, dxc);
            if (!(cba * dba < 0.0f && adc * bdc < 0.0f && cba * bdc > 0.0f)) {
                continue;
            }
            ts_vec3 p = s->vertices[e->origin];
            ts_vec3 es = ts_sub(s->vertices[tw->origin], p);
            ts_vec3 axis = ts_cross(et, es);
            float len_sq = ts_dot(axis, axis);
            if (len_sq < 1.0e-6f * ts_dot(et, et) * ts_dot(es, es)) {
                continue;
            }
            axis = ts_scale(1.0f / sqrtf(len_sq), axis);
            if (ts_dot(axis, ts_add(n, side)) < 0.0f) {
                axis = ts_neg(axis);
            }
            float sep = ts_dot(axis, ts_sub(p, a));
            if (sep > best) {
                best = sep;
                *edge_s = h;
                *edge_t = k;
                *axis_out = axis;
            }
        }
    }
    return best;
}

void tsn_collide_triangle_hull(const ts_hull_data *s, const ts_triangle *tri, float margin,
                               tsn_triangle_contact *out)
{
    out->count = 0;
    tsn_triangle_hull_data th;
    tsn_triangle_hull(tri, &th);
    ts_plane tp = th.planes[0];
    if (ts_dot(tp.normal, s->centroid) < tp.offset) {
        return; /* behind: one-sided */
    }
    /* the triangle's normal: the shape's lowest vertex */
    float sep_t = ts_hull_min_dot(s, tp.normal, NULL) - tp.offset;
    if (sep_t > margin) {
        return;
    }
    /* the shape's faces: the triangle's lowest vertex under each */
    int face_s = -1;
    float sep_s = -FLT_MAX;
    for (int f = 0; f < s->face_count; ++f) {
        ts_plane pl = s->planes[f];
        float low = tsn_minf(tsn_minf(ts_dot(pl.normal, tri->v[0]), ts_dot(pl.normal, tri->v[1])),
                             ts_dot(pl.normal, tri->v[2]));
        float sep = low - pl.offset;
        if (sep > sep_s) {
            sep_s = sep;
            face_s = f;
        }
    }
    if (sep_s > margin) {
        return;
    }
    int edge_s, edge_t;
    ts_vec3 axis = ts_v3(0.0f, 0.0f, 0.0f);
    float sep_e = query_triangle_edges(s, tri, tp.normal, &edge_s, &edge_t, &axis);
    if (edge_s >= 0 && sep_e > margin) {
        return;
    }

    bool use_s = sep_s > sep_t + TSN_TRI_FACE_TOL;
    float face_sep = use_s ? sep_s : sep_t;
    bool use_edge = edge_s >= 0 && sep_e > face_sep + TSN_TRI_EDGE_TOL_ABS + TSN_TRI_EDGE_TOL_REL * fabsf(face_sep);
    if (use_edge) {
        /* an active edge of the triangle: one point between the edges */
        ts_vec3 a = tri->v[edge_t], b = tri->v[(edge_t + 1) % 3];
        ts_vec3 p, q;
        ts_hull_edge_points(s, edge_s, &p, &q);
        float u, w;
        tsn_closest_segments(a, b, p, q, &u, &w);
        ts_vec3 ct = ts_mul_add(a, u, ts_sub(b, a));
        ts_vec3 cs = ts_mul_add(p, w, ts_sub(q, p));
        float sep = ts_dot(axis, ts_sub(cs, ct));
        if (sep < margin) {
            out->normal = axis;
            out->face = false;
            tsn_set_point(&out->points[0], ts_scale(0.5f, ts_add(ct, cs)), sep,
                          tsn_triangle_mix_id(((uint32_t)edge_s << 2) | (uint32_t)edge_t, tri->id));
            out->count = 1;
            return;
        }
    }
    if (use_s) {
        int feature = touching_feature(tri, ts_neg(s->planes[face_s].normal));
        if (feature_is_active(feature, tri->edge_flags)) {
            tsn_mat3 identity = {{{1.0f, 0.0f, 0.0f}, {0.0f, 1.0f, 0.0f}, {0.0f, 0.0f, 1.0f}}};
            out->count = tsn_hull_face_contact(s, face_s, &th.hull, &identity, ts_v3(0.0f, 0.0f, 0.0f), margin,
                                               (1u << 28) | (1u << 27) | ((uint32_t)face_s << 20), out->points);
            out->normal = ts_neg(s->planes[face_s].normal);
            out->face = feature == FEATURE_FACE;
            mark_ids(out, tri->id, true);
            if (out->count > 0) {
                return;
            }
        }
    }
    triangle_face_contact(s, &th, tri, margin, out);
}
