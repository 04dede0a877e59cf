/* tessera: box-box narrowphase.
 *
 * 1. Separating axis test (Gottschalk's OBB test, Gregorius' face/edge split)
 *    in A's frame over the 15 axes: A's 3 face normals, B's 3 face normals and
 *    the 9 cross products of an A edge direction with a B edge direction. If an
 *    axis separates the boxes by >= margin there is no contact.
 * 2. Otherwise the axis of least penetration picks the contact, with a bias
 *    toward faces (they give a stable 4-point manifold) and toward A over B,
 *    so nearly equal axes always resolve the same way (no feature flip-flop).
 * 3. Face axis: the face is the reference face; the incident face is the face of
 *    the other box most anti-parallel to it. The incident quad is clipped by the
 *    4 side planes of the reference face (Sutherland-Hodgman), points with
 *    separation < margin are kept, and at most 4 survive the reduction.
 * 4. Edge axis: one point, midway between the closest points of the two edges.
 *
 * Feature ids: see narrowphase.h. Each clipped vertex carries the two "lines"
 * (incident edges 0..3, reference side planes 4..7) whose crossing made it, so
 * a box resting or sliding on a face keeps the ids of its 4 corners. */
#include "collide/collide_math.h"
#include "collide/narrowphase.h"

/* B's face must beat A's by this (metres) to become the reference face. */
#define TSN_FACE_B_TOL 0.0005f
/* An edge axis must beat the best face axis by abs + rel * |face separation|. */
#define TSN_EDGE_TOL_ABS 0.001f
#define TSN_EDGE_TOL_REL 0.05f
/* |a_i x b_j|^2 = sin^2 below this: the edges are parallel and the axis is
 * skipped (it is then close to a face axis, which is tested anyway). */
#define TSN_EDGE_PARALLEL_SQ 1.0e-6f
/* A polygon vertex closer than this to a side plane counts as on it: it is kept
 * unclipped, so equal stacked boxes keep their corner ids under rounding noise. */
#define TSN_CLIP_ON_PLANE 1.0e-4f
/* Room for a clipped quad: each of the 4 planes adds at most one vertex. */
#define TSN_MAX_CLIP 12

typedef struct box_state {
    tsn_mat3 r; /* world rotation */
    ts_vec3 p;  /* world centre */
    float h[3]; /* half extents */
} box_state;

typedef struct sat_query {
    float separation;
    int index_a;    /* face of A, or A's axis for an edge pair */
    int index_b;    /* face of B, or B's axis for an edge pair */
    ts_vec3 normal; /* edge pairs: unit axis in A's frame, from A to B */
    bool valid;
} sat_query;

/* A vertex of the polygon being clipped, in the reference box frame. */
typedef struct clip_vertex {
    float p[3];
    uint8_t lo, hi; /* the two lines meeting here, lo <= hi */
    uint8_t edge;   /* the line the polygon edge from this vertex to the next lies on */
} clip_vertex;

static box_state box_state_make(const ts_box *b, ts_transform xf)
{
    box_state s;
    s.r = tsn_mat3_from_quat(xf.q);
    s.p = xf.p;
    tsn_to_array(b->half_extents, s.h);
    return s;
}

static ts_vec3 unit_axis(int k, float sign)
{
    float v[3] = {0.0f, 0.0f, 0.0f};
    v[k] = sign;
    return tsn_from_array(v);
}

/* ---------------------------------------------------------------- SAT */

/* A's face axis i (A frame: e_i). B projects to radius sum_j hB_j |C_ij|; the
 * centres are |t_i| apart, so sep = |t_i| - hA_i - rB. The face facing B is
 * +e_i when t_i >= 0. */
static sat_query query_faces_a(const box_state *a, const box_state *b, const tsn_mat3 *c, ts_vec3 t)
{
    sat_query q = {-FLT_MAX, 0, -1, ts_v3(0.0f, 0.0f, 0.0f), true};
    for (int i = 0; i < 3; ++i) {
        float rb = 0.0f;
        for (int j = 0; j < 3; ++j) {
            rb += b->h[j] * fabsf(ts_component(c->col[j], i));
        }
        float ti = ts_component(t, i);
        float sep = fabsf(ti) - a->h[i] - rb;
        if (sep > q.separation) {
            q.separation = sep;
            q.index_a = 2 * i + (ti < 0.0f ? 1 : 0);
        }
    }
    return q;
}

/* B's face axis j (A frame: column j of C). A projects to sum_i hA_i |C_ij|,
 * the centres t . b_j apart. The face of B facing A is -b_j when t . b_j >= 0. */
static sat_query query_faces_b(const box_state *a, const box_state *b, const tsn_mat3 *c, ts_vec3 t)
{
    sat_query q = {-FLT_MAX, -1, 0, ts_v3(0.0f, 0.0f, 0.0f), true};
    for (int j = 0; j < 3; ++j) {
        float ra = a->h[0] * fabsf(c->col[j].x) + a->h[1] * fabsf(c->col[j].y) + a->h[2] * fabsf(c->col[j].z);
        float tb = ts_dot(t, c->col[j]);
        float sep = fabsf(tb) - b->h[j] - ra;
        if (sep > q.separation) {
            q.separation = sep;
            q.index_b = 2 * j + (tb >= 0.0f ? 1 : 0);
        }
    }
    return q;
}

/* Edge pair axes n = e_i x b_j / |e_i x b_j|, turned so n . t >= 0 (A to B).
 * Projected radii: rA = sum hA_k |n_k|, rB = sum hB_k |n . b_k|;
 * sep = n . t - rA - rB. Near-parallel pairs are skipped. */
static sat_query query_edges(const box_state *a, const box_state *b, const tsn_mat3 *c, ts_vec3 t)
{
    sat_query q = {-FLT_MAX, -1, -1, ts_v3(0.0f, 0.0f, 0.0f), false};
    for (int i = 0; i < 3; ++i) {
        ts_vec3 ei = unit_axis(i, 1.0f);
        for (int j = 0; j < 3; ++j) {
            ts_vec3 n = ts_cross(ei, c->col[j]);
            float len_sq = ts_dot(n, n);
            if (len_sq < TSN_EDGE_PARALLEL_SQ) {
                continue;
            }
            n = ts_scale(1.0f / sqrtf(len_sq), n);
            float tn = ts_dot(n, t);
            if (tn < 0.0f) {
                n = ts_neg(n);
                tn = -tn;
            }
            float ra = a->h[0] * fabsf(n.x) + a->h[1] * fabsf(n.y) + a->h[2] * fabsf(n.z);
            float rb = 0.0f;
            for (int k = 0; k < 3; ++k) {
                rb += b->h[k] * fabsf(ts_dot(n, c->col[k]));
            }
            float sep = tn - ra - rb;
            if (sep > q.separation) {
                q.separation = sep;
                q.index_a = i;
                q.index_b = j;
                q.normal = n;
                q.valid = true;
            }
        }
    }
    return q;
}

/* ---------------------------------------------------------------- clipping */

static void set_lines(clip_vertex *v, int line_a, int line_b)
{
    v->lo = (uint8_t)(line_a < line_b ? line_a : line_b);
    v->hi = (uint8_t)(line_a < line_b ? line_b : line_a);
}

/* The point where edge cur -> nxt crosses the plane (signed distances dc, dn of
 * opposite sign): t = dc / (dc - dn), snapped onto the plane. */
static clip_vertex crossing(const clip_vertex *cur, const clip_vertex *nxt, float dc, float dn, int axis,
                            float plane_value, int line)
{
    clip_vertex v;
    float t = dc / (dc - dn);
    for (int k = 0; k < 3; ++k) {
        v.p[k] = cur->p[k] + t * (nxt->p[k] - cur->p[k]);
    }
    v.p[axis] = plane_value;
    set_lines(&v, cur->edge, line);
    v.edge = cur->edge;
    return v;
}

/* Keep the part of the polygon with sg * x[axis] <= limit (Sutherland-Hodgman).
 * Vertices within TSN_CLIP_ON_PLANE of the plane count as on it and make no
 * new crossing, so no near-duplicate points appear. A crossing where the
 * polygon leaves starts an edge along the plane (its edge line becomes `line`);
 * one where it enters continues along the crossed edge. */
static int clip_polygon(const clip_vertex *in, int n, int axis, float sg, float limit, int line, clip_vertex *out)
{
    int count = 0;
    for (int i = 0; i < n && count + 2 <= TSN_MAX_CLIP; ++i) {
        const clip_vertex *cur = &in[i];
        const clip_vertex *nxt = &in[(i + 1) % n];
        float dc = sg * cur->p[axis] - limit;
        float dn = sg * nxt->p[axis] - limit;
        bool cur_out = dc > TSN_CLIP_ON_PLANE, cur_in = dc < -TSN_CLIP_ON_PLANE;
        bool nxt_out = dn > TSN_CLIP_ON_PLANE, nxt_in = dn < -TSN_CLIP_ON_PLANE;
        if (!cur_out) {
            out[count] = *cur;
            if (!cur_in && nxt_out) {
                out[count].edge = (uint8_t)line; /* on the plane, about to leave */
            }
            ++count;
            if (cur_in && nxt_out) {
                out[count] = crossing(cur, nxt, dc, dn, axis, sg * limit, line);
                out[count].edge = (uint8_t)line;
                ++count;
            }
        } else if (nxt_in) {
            out[count++] = crossing(cur, nxt, dc, dn, axis, sg * limit, line);
        }
    }
    return count;
}

/* ---------------------------------------------------------------- contacts */

/* Face contact with `ref` holding the reference face. Work in ref's frame: the
 * incident box has rotation R = Rref^T Rinc and centre t = Rref^T (pinc - pref).
 * Reference face (axis k, sign s) has normal n = s e_k; the incident face is
 * inc's face whose outward normal is most anti-parallel to n: the axis j with
 * the largest |R_kj|, on the side opposite to n. Each kept point has
 * separation s x_k - h_k (height above the reference face) and sits midway,
 * at x - sep/2 n. The manifold normal is n in world space, negated when the
 * reference box is B (flip) so that it points from A to B. */
static void face_contact(const box_state *ref, const box_state *inc, int ref_face, uint32_t kind, bool flip,
                         float margin, ts_manifold *m)
{
    m->point_count = 0;
    tsn_mat3 r = tsn_mul_tm(&ref->r, &inc->r);
    ts_vec3 t = tsn_mul_tv(&ref->r, ts_sub(inc->p, ref->p));
    int k = ref_face / 2;
    float s = (ref_face & 1) ? -1.0f : 1.0f;

    int j = 0;
    float dj = s * ts_component(r.col[0], k);
    for (int jj = 1; jj < 3; ++jj) {
        float d = s * ts_component(r.col[jj], k);
        if (fabsf(d) > fabsf(dj)) {
            dj = d;
            j = jj;
        }
    }
    float inc_sign = dj > 0.0f ? -1.0f : 1.0f;
    int inc_face = 2 * j + (inc_sign < 0.0f ? 1 : 0);

    /* incident quad, counter-clockwise seen from outside; edge i joins vertex i and i+1 */
    static const float ccw_u[4] = {1.0f, -1.0f, -1.0f, 1.0f};
    static const float ccw_v[4] = {1.0f, 1.0f, -1.0f, -1.0f};
    int u = (j + 1) % 3, v = (j + 2) % 3;
    clip_vertex buf_a[TSN_MAX_CLIP], buf_b[TSN_MAX_CLIP];
    for (int i = 0; i < 4; ++i) {
        float loc[3];
        loc[j] = inc_sign * inc->h[j];
        loc[u] = (inc_sign > 0.0f ? ccw_u[i] : ccw_v[i]) * inc->h[u];
        loc[v] = (inc_sign > 0.0f ? ccw_v[i] : ccw_u[i]) * inc->h[v];
        tsn_to_array(ts_add(tsn_mul_mv(&r, tsn_from_array(loc)), t), buf_a[i].p);
        set_lines(&buf_a[i], (i + 3) % 4, i);
        buf_a[i].edge = (uint8_t)i;
    }

    /* side planes of the reference face: 0 +u, 1 +v, 2 -u, 3 -v (lines 4..7) */
    int ru = (k + 1) % 3, rv = (k + 2) % 3;
    const int plane_axis[4] = {ru, rv, ru, rv};
    const float plane_sign[4] = {1.0f, 1.0f, -1.0f, -1.0f};
    clip_vertex *in = buf_a, *out = buf_b;
    int count = 4;
    for (int pl = 0; pl < 4 && count > 0; ++pl) {
        int ax = plane_axis[pl];
        count = clip_polygon(in, count, ax, plane_sign[pl], ref->h[ax], 4 + pl, out);
        clip_vertex *tmp = in;
        in = out;
        out = tmp;
    }

    ts_manifold_point pts[TSN_MAX_CLIP];
    int kept = 0;
    ts_vec3 n = unit_axis(k, s);
    uint32_t base = (kind << TS_FEATURE_KIND_SHIFT) | ((uint32_t)ref_face << 9) | ((uint32_t)inc_face << 6);
    for (int i = 0; i < count; ++i) {
        float sep = s * in[i].p[k] - ref->h[k];
        if (sep < margin) {
            ts_vec3 mid = ts_mul_add(tsn_from_array(in[i].p), -0.5f * sep, n);
            uint32_t id = base | ((uint32_t)in[i].hi << 3) | (uint32_t)in[i].lo;
            tsn_set_point(&pts[kept++], mid, sep, id);
        }
    }
    if (kept == 0) {
        return;
    }
    int final_count = tsn_reduce_points(pts, kept, n, m->points);
    ts_vec3 nw = tsn_mul_mv(&ref->r, n);
    m->normal = flip ? ts_neg(nw) : nw;
    for (int i = 0; i < final_count; ++i) {
        m->points[i].point = ts_add(tsn_mul_mv(&ref->r, m->points[i].point), ref->p);
    }
    m->point_count = final_count;
}

/* A box edge along `axis`, extreme along direction dir (local frame): the other
 * two coordinates are sign(dir) * h. Writes its end points and its edge index
 * 4 * axis + corner (corner bit 0: first other axis negative, bit 1: second). */
static int support_edge(const float h[3], int axis, ts_vec3 dir, float e0[3], float e1[3])
{
    int u = (axis + 1) % 3, v = (axis + 2) % 3;
    float su = tsn_signf(ts_component(dir, u));
    float sv = tsn_signf(ts_component(dir, v));
    e0[u] = e1[u] = su * h[u];
    e0[v] = e1[v] = sv * h[v];
    e0[axis] = -h[axis];
    e1[axis] = h[axis];
    return 4 * axis + (su < 0.0f ? 1 : 0) + (sv < 0.0f ? 2 : 0);
}

/* Edge pair contact in A's frame: A's edge along e_i extreme along n, B's edge
 * along b_j extreme along -n; one point midway between their closest points,
 * separation n . (cb - ca). */
static void edge_contact(const box_state *a, const box_state *b, const tsn_mat3 *c, ts_vec3 t, const sat_query *q,
                         float margin, ts_manifold *m)
{
    m->point_count = 0;
    ts_vec3 n = q->normal;
    float a0[3], a1[3], b0[3], b1[3];
    int edge_a = support_edge(a->h, q->index_a, n, a0, a1);
    ts_vec3 n_in_b = ts_neg(tsn_mul_tv(c, n));
    int edge_b = support_edge(b->h, q->index_b, n_in_b, b0, b1);
    ts_vec3 pa0 = tsn_from_array(a0), pa1 = tsn_from_array(a1);
    ts_vec3 pb0 = ts_add(tsn_mul_mv(c, tsn_from_array(b0)), t);
    ts_vec3 pb1 = ts_add(tsn_mul_mv(c, tsn_from_array(b1)), t);
    float s, u;
    tsn_closest_segments(pa0, pa1, pb0, pb1, &s, &u);
    ts_vec3 ca = ts_mul_add(pa0, s, ts_sub(pa1, pa0));
    ts_vec3 cb = ts_mul_add(pb0, u, ts_sub(pb1, pb0));
    float sep = ts_dot(n, ts_sub(cb, ca));
    if (!(sep < margin)) {
        return;
    }
    ts_vec3 mid = ts_scale(0.5f, ts_add(ca, cb));
    uint32_t id = (TS_FEATURE_KIND_EDGES << TS_FEATURE_KIND_SHIFT) | ((uint32_t)edge_b << 4) | (uint32_t)edge_a;
    m->normal = tsn_mul_mv(&a->r, n);
    tsn_set_point(&m->points[0], ts_add(tsn_mul_mv(&a->r, mid), a->p), sep, id);
    m->point_count = 1;
}

void ts_collide_boxes(const ts_box *a, ts_transform xfa, const ts_box *b, ts_transform xfb, float margin,
                      ts_manifold *m)
{
    m->point_count = 0;
    box_state sa = box_state_make(a, xfa);
    box_state sb = box_state_make(b, xfb);
    tsn_mat3 c = tsn_mul_tm(&sa.r, &sb.r);
    ts_vec3 t = tsn_mul_tv(&sa.r, ts_sub(sb.p, sa.p));

    /* A face axis that already separates by the margin settles it: the nine
     * edge axes, the costly part, are only tested for boxes this close. */
    sat_query fa = query_faces_a(&sa, &sb, &c, t);
    if (fa.separation >= margin) {
        return;
    }
    sat_query fb = query_faces_b(&sa, &sb, &c, t);
    if (fb.separation >= margin) {
        return;
    }
    sat_query ed = query_edges(&sa, &sb, &c, t);
    float max_sep = tsn_maxf(fa.separation, fb.separation);
    if (ed.valid) {
        max_sep = tsn_maxf(max_sep, ed.separation);
    }
    if (!(max_sep < margin)) {
        return; /* a separating axis with gap >= margin */
    }

    bool use_b = fb.separation > fa.separation + TSN_FACE_B_TOL;
    float face_sep = use_b ? fb.separation : fa.separation;
    bool use_edge =
        ed.valid && ed.separation > face_sep + TSN_EDGE_TOL_ABS + TSN_EDGE_TOL_REL * fabsf(face_sep);

    if (use_edge) {
        edge_contact(&sa, &sb, &c, t, &ed, margin, m);
        if (m->point_count > 0) {
            return;
        }
    }
    if (use_b) {
        face_contact(&sb, &sa, fb.index_b, TS_FEATURE_KIND_FACE_B, true, margin, m);
    } else {
        face_contact(&sa, &sb, fa.index_a, TS_FEATURE_KIND_FACE_A, false, margin, m);
    }
    if (m->point_count == 0 && !use_edge && ed.valid) {
        /* the face did not realise the contact (crossed edges just past the bias) */
        edge_contact(&sa, &sb, &c, t, &ed, margin, m);
    }
}
