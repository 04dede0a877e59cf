/* tessera: hull-hull narrowphase (and box-hull: a box is a hull of fixed
 * topology, hull.h).
 *
 * 1. Separating axis test in A's frame: A's face normals, B's face normals,
 *    and the cross products of an edge of A with an edge of B, only for the
 *    edge pairs that form a face of the Minkowski difference (their arcs on
 *    the Gauss map cross: Gregorius, "The Separating Axis Test between
 *    Convex Polyhedra", GDC 2013); the others cannot be the axis of least
 *    penetration. Any axis separating by the margin ends the test.
 * 2. The axis of least penetration picks the contact, biased toward faces
 *    and toward A, as box-box does (collide_box.c), so near ties resolve the
 *    same way every step.
 * 3. Face: the incident face is the other hull's face most anti-parallel to
 *    the reference face; it is clipped by the reference face's side planes
 *    (Sutherland-Hodgman), points with separation below the margin are kept
 *    and reduced to at most 4 (manifold_reduce.c). Edge: one point midway
 *    between the closest points of the two edges.
 *
 * The test remembers the feature that decided it in a cache per contact
 * (ts_sat_cache, collide_hull.h); the next step tries that feature first:
 * a cached separating axis that still separates, or a cached face whose
 * contact comes out at the same depth, skips the full test.
 *
 * Feature ids: a clipped point carries the two "lines" whose crossing made
 * it: lines 0..511 are the incident hull's half-edges, 512 + h the
 * reference face's side plane through half-edge h. bits 0..9 and 10..19 the
 * lines (smaller first), 20..26 the reference face, bit 27 set when it is
 * B's, bits 28..29 = 1. Edge pairs: bits 0..9 A's half-edge, 10..19 B's,
 * bits 28..29 = 2. */
#include "collide/collide_hull.h"

#include "collide/collide_math.h"
#include "collide/narrowphase.h"

#include <simde/x86/sse.h>

/* B's face must beat A's by this (metres) to be the reference face. */
#define TSN_HULL_FACE_B_TOL 0.0005f
/* An edge axis must beat the best face axis by abs + rel * |face separation|. */
#define TSN_HULL_EDGE_TOL_ABS 0.001f
#define TSN_HULL_EDGE_TOL_REL 0.05f
/* |ea x eb|^2 below this times |ea|^2 |eb|^2: parallel edges, no axis. */
#define TSN_HULL_PARALLEL_SQ 1.0e-6f
/* A polygon vertex this close to a side plane counts as on it. */
#define TSN_HULL_CLIP_ON_PLANE 1.0e-4f
/* A cached face contact is kept while its depth changed by less than this. */
#define TSN_HULL_CACHE_DEPTH_TOL 0.005f
/* Room for a clipped polygon: a face of up to TS_HULL_MAX_VERTICES corners,
 * one more per side plane. */
#define TSN_HULL_MAX_CLIP (2 * TS_HULL_MAX_VERTICES + 8)

#define LINE_SIDE 512u

typedef struct sat_result {
    float separation;
    int index_a; /* face of A, or A's half-edge */
    int index_b; /* face of B, or B's half-edge */
    ts_vec3 normal;
    bool valid;
} sat_result;

typedef struct hull_clip_vertex {
    ts_vec3 p;
    uint16_t lo, hi; /* the two lines meeting here */
    uint16_t edge;   /* the line the polygon edge from here to the next lies on */
} hull_clip_vertex;

/* ---------------------------------------------------------------- SAT */

/* A's faces against B. B's vertices are first placed in A's frame
 * (y = R v + t, four at a time into columns), then for each face of A the
 * separation is min over y of n . y - offset: one dot product per vertex
 * and face, where turning each face's normal into B's frame and taking B's
 * support would need the same dot products plus a search for the index,
 * which only the contact (not the test) needs. Stops at the first face that
 * separates by the margin. */
static sat_result query_faces(const ts_hull_data *a, const ts_hull_data *b, const tsn_mat3 *r, ts_vec3 t,
                              float margin)
{
    sat_result q = {-FLT_MAX, -1, -1, ts_v3(0.0f, 0.0f, 0.0f), true};
    float yx[TS_HULL_MAX_VERTICES + 4], yy[TS_HULL_MAX_VERTICES + 4], yz[TS_HULL_MAX_VERTICES + 4];
    const int n = b->padded_count;
    for (int i = 0; i < n; i += 4) {
        simde__m128 vx = simde_mm_loadu_ps(b->vx + i), vy = simde_mm_loadu_ps(b->vy + i);
        simde__m128 vz = simde_mm_loadu_ps(b->vz + i);
        const ts_vec3 *c = r->col;
        simde__m128 x = simde_mm_add_ps(
            simde_mm_add_ps(simde_mm_mul_ps(simde_mm_set1_ps(c[0].x), vx), simde_mm_mul_ps(simde_mm_set1_ps(c[1].x), vy)),
            simde_mm_mul_ps(simde_mm_set1_ps(c[2].x), vz));
        simde__m128 y = simde_mm_add_ps(
            simde_mm_add_ps(simde_mm_mul_ps(simde_mm_set1_ps(c[0].y), vx), simde_mm_mul_ps(simde_mm_set1_ps(c[1].y), vy)),
            simde_mm_mul_ps(simde_mm_set1_ps(c[2].y), vz));
        simde__m128 z = simde_mm_add_ps(
            simde_mm_add_ps(simde_mm_mul_ps(simde_mm_set1_ps(c[0].z), vx), simde_mm_mul_ps(simde_mm_set1_ps(c[1].z), vy)),
            simde_mm_mul_ps(simde_mm_set1_ps(c[2].z), vz));
        simde_mm_storeu_ps(yx + i, simde_mm_add_ps(x, simde_mm_set1_ps(t.x)));
        simde_mm_storeu_ps(yy + i, simde_mm_add_ps(y, simde_mm_set1_ps(t.y)));
        simde_mm_storeu_ps(yz + i, simde_mm_add_ps(z, simde_mm_set1_ps(t.z)));
    }
    /* the padding repeats a vertex (hull.h), so it never lowers the minimum */
    for (int f = 0; f < a->face_count; ++f) {
        ts_plane pl = a->planes[f];
        simde__m128 nx = simde_mm_set1_ps(pl.normal.x), ny = simde_mm_set1_ps(pl.normal.y);
        simde__m128 nz = simde_mm_set1_ps(pl.normal.z);
        simde__m128 low = simde_mm_set1_ps(FLT_MAX);
        for (int i = 0; i < n; i += 4) {
            simde__m128 d = simde_mm_add_ps(
                simde_mm_add_ps(simde_mm_mul_ps(nx, simde_mm_loadu_ps(yx + i)), simde_mm_mul_ps(ny, simde_mm_loadu_ps(yy + i))),
                simde_mm_mul_ps(nz, simde_mm_loadu_ps(yz + i)));
            low = simde_mm_min_ps(low, d);
        }
        /* the least of the four lanes: (0 1 2 3) min (2 3 2 3), then lane 0 min lane 1 */
        low = simde_mm_min_ps(low, simde_mm_movehl_ps(low, low));
        low = simde_mm_min_ss(low, simde_mm_shuffle_ps(low, low, SIMDE_MM_SHUFFLE(1, 1, 1, 1)));
        float sep = simde_mm_cvtss_f32(low) - pl.offset;
        if (sep > q.separation) {
            q.separation = sep;
            q.index_a = f;
            if (sep > margin) {
                return q;
            }
        }
    }
    return q;
}

/* One edge of B in A's frame: its faces' negated normals c, d (the
 * Minkowski difference A - B), d x c, a point and its vector. */
typedef struct edge_b {
    ts_vec3 c, d, dxc, p, e;
} edge_b;

/* The separation along the axis of A's edge i and B's edge (A's frame):
 * ea x eb turned away from A's centroid, measured between the two edges.
 * -FLT_MAX for parallel edges. */
static float edge_pair_separation(const ts_hull_data *a, int i, const edge_b *b, ts_vec3 *axis_out)
{
    const float *col = a->edge_columns;
    int n = a->edge_padded;
    ts_vec3 pa = {col[TS_EDGE_PX * n + i], col[(TS_EDGE_PX + 1) * n + i], col[(TS_EDGE_PX + 2) * n + i]};
    ts_vec3 ea = {col[TS_EDGE_DX * n + i], col[(TS_EDGE_DX + 1) * n + i], col[(TS_EDGE_DX + 2) * n + i]};
    ts_vec3 axis = ts_cross(ea, b->e);
    float len_sq = ts_dot(axis, axis);
    if (len_sq < TSN_HULL_PARALLEL_SQ * ts_dot(ea, ea) * ts_dot(b->e, b->e)) {
        return -FLT_MAX;
    }
    axis = ts_scale(1.0f / sqrtf(len_sq), axis);
    if (ts_dot(axis, ts_sub(pa, a->centroid)) < 0.0f) {
        axis = ts_neg(axis);
    }
    *axis_out = axis;
    return ts_dot(axis, ts_sub(b->p, pa));
}

/* Edge pairs, in A's frame: for each edge of B, A's edges four at a time
 * from A's edge columns (hull.h). A pair can give the axis of least
 * penetration only when the two edges' arcs on the Gauss map cross: with
 * a, b the normals of A's edge's faces and c, d the negated normals of B's,
 *     cba = c . (b x a), dba = d . (b x a), adc = a . (d x c), bdc = b . (d x c),
 * the great circle through each arc separates the other arc's ends
 * (cba dba < 0, adc bdc < 0) and the arcs lie in one hemisphere
 * (cba bdc > 0). The test runs on four lanes at once; the few pairs that
 * pass get their axis and separation one by one, in lane order, so the
 * result does not depend on the lanes. */
static sat_result query_edges(const ts_hull_data *a, const ts_hull_data *b, const tsn_mat3 *r, ts_vec3 t)
{
    sat_result q = {-FLT_MAX, -1, -1, ts_v3(0.0f, 0.0f, 0.0f), false};
    const float *col = a->edge_columns;
    int n = a->edge_padded;
    const simde__m128 zero = simde_mm_setzero_ps();
    for (int k = 0; k < b->edge_count / 2; ++k) {
        const ts_hull_edge *e = &b->edges[2 * k];
        const ts_hull_edge *tw = &b->edges[2 * k + 1];
        edge_b eb;
        eb.c = ts_neg(tsn_mul_mv(r, b->planes[e->face].normal));
        eb.d = ts_neg(tsn_mul_mv(r, b->planes[tw->face].normal));
        eb.dxc = ts_cross(eb.d, eb.c);
        eb.p = ts_add(tsn_mul_mv(r, b->vertices[e->origin]), t);
        eb.e = tsn_mul_mv(r, ts_sub(b->vertices[tw->origin], b->vertices[e->origin]));
        simde__m128 cx = simde_mm_set1_ps(eb.c.x), cy = simde_mm_set1_ps(eb.c.y), cz = simde_mm_set1_ps(eb.c.z);
        simde__m128 dx = simde_mm_set1_ps(eb.d.x), dy = simde_mm_set1_ps(eb.d.y), dz = simde_mm_set1_ps(eb.d.z);
        simde__m128 wx = simde_mm_set1_ps(eb.dxc.x), wy = simde_mm_set1_ps(eb.dxc.y), wz = simde_mm_set1_ps(eb.dxc.z);
        for (int i = 0; i < n; i += 4) {
            simde__m128 bx = simde_mm_loadu_ps(col + TS_EDGE_BX * n + i);
            simde__m128 by = simde_mm_loadu_ps(col + (TS_EDGE_BX + 1) * n + i);
            simde__m128 bz = simde_mm_loadu_ps(col + (TS_EDGE_BX + 2) * n + i);
            /* cba = c . (b x a), dba = d . (b x a) */
            simde__m128 cba = simde_mm_add_ps(simde_mm_add_ps(simde_mm_mul_ps(cx, bx), simde_mm_mul_ps(cy, by)),
                                              simde_mm_mul_ps(cz, bz));
            simde__m128 dba = simde_mm_add_ps(simde_mm_add_ps(simde_mm_mul_ps(dx, bx), simde_mm_mul_ps(dy, by)),
                                              simde_mm_mul_ps(dz, bz));
            simde__m128 cross_ok = simde_mm_cmplt_ps(simde_mm_mul_ps(cba, dba), zero);
            if (simde_mm_movemask_ps(cross_ok) == 0) {
                continue;
            }
            simde__m128 ux = simde_mm_loadu_ps(col + TS_EDGE_UX * n + i);
            simde__m128 uy = simde_mm_loadu_ps(col + (TS_EDGE_UX + 1) * n + i);
            simde__m128 uz = simde_mm_loadu_ps(col + (TS_EDGE_UX + 2) * n + i);
            simde__m128 vx = simde_mm_loadu_ps(col + TS_EDGE_VX * n + i);
            simde__m128 vy = simde_mm_loadu_ps(col + (TS_EDGE_VX + 1) * n + i);
            simde__m128 vz = simde_mm_loadu_ps(col + (TS_EDGE_VX + 2) * n + i);
            /* adc = a . (d x c), bdc = b . (d x c) with a = u, b = v */
            simde__m128 adc = simde_mm_add_ps(simde_mm_add_ps(simde_mm_mul_ps(ux, wx), simde_mm_mul_ps(uy, wy)),
                                              simde_mm_mul_ps(uz, wz));
            simde__m128 bdc = simde_mm_add_ps(simde_mm_add_ps(simde_mm_mul_ps(vx, wx), simde_mm_mul_ps(vy, wy)),
                                              simde_mm_mul_ps(vz, wz));
            simde__m128 ok = simde_mm_and_ps(cross_ok, simde_mm_cmplt_ps(simde_mm_mul_ps(adc, bdc), zero));
            ok = simde_mm_and_ps(ok, simde_mm_cmpgt_ps(simde_mm_mul_ps(cba, bdc), zero));
            /* the passing lanes in lane order: lowest set bit first, cleared as taken */
            for (unsigned mask = (unsigned)simde_mm_movemask_ps(ok); mask != 0u; mask &= mask - 1u) {
                static const int8_t lowest_bit[16] = {0, 0, 1, 0, 2, 0, 1, 0, 3, 0, 1, 0, 2, 0, 1, 0};
                int lane = lowest_bit[mask];
                ts_vec3 axis;
                float sep = edge_pair_separation(a, i + lane, &eb, &axis);
                if (sep > q.separation) {
                    q.separation = sep;
                    q.index_a = 2 * (i + lane);
                    q.index_b = 2 * k;
                    q.normal = axis;
                    q.valid = true;
                }
            }
        }
    }
    return q;
}

/* ---------------------------------------------------------------- clipping */

static void set_lines(hull_clip_vertex *v, unsigned line_a, unsigned line_b)
{
    v->lo = (uint16_t)(line_a < line_b ? line_a : line_b);
    v->hi = (uint16_t)(line_a < line_b ? line_b : line_a);
}

/* Keep the part of the polygon with s . x <= limit; vertices within
 * TSN_HULL_CLIP_ON_PLANE count as on the plane (see collide_box.c). */
static int clip_polygon(const hull_clip_vertex *in, int n, ts_vec3 s, float limit, unsigned line,
                        hull_clip_vertex *out)
{
    int count = 0;
    for (int i = 0; i < n && count + 2 <= TSN_HULL_MAX_CLIP; ++i) {
        const hull_clip_vertex *cur = &in[i];
        const hull_clip_vertex *nxt = &in[(i + 1) % n];
        float dc = ts_dot(s, cur->p) - limit;
        float dn = ts_dot(s, nxt->p) - limit;
        bool cur_out = dc > TSN_HULL_CLIP_ON_PLANE, cur_in = dc < -TSN_HULL_CLIP_ON_PLANE;
        bool nxt_out = dn > TSN_HULL_CLIP_ON_PLANE, nxt_in = dn < -TSN_HULL_CLIP_ON_PLANE;
        if (!cur_out) {
            out[count] = *cur;
            if (!cur_in && nxt_out) {
                out[count].edge = (uint16_t)line;
            }
            ++count;
            if (cur_in && nxt_out) {
                hull_clip_vertex v;
                v.p = ts_mul_add(cur->p, dc / (dc - dn), ts_sub(nxt->p, cur->p));
                set_lines(&v, cur->edge, line);
                v.edge = (uint16_t)line;
                out[count++] = v;
            }
        } else if (nxt_in) {
            hull_clip_vertex v;
            v.p = ts_mul_add(cur->p, dc / (dc - dn), ts_sub(nxt->p, cur->p));
            set_lines(&v, cur->edge, line);
            v.edge = cur->edge;
            out[count++] = v;
        }
    }
    return count;
}

int tsn_incident_face(const ts_hull_data *inc, ts_vec3 n_in_inc)
{
    int best = 0;
    float best_dot = FLT_MAX;
    for (int f = 0; f < inc->face_count; ++f) {
        float d = ts_dot(inc->planes[f].normal, n_in_inc);
        if (d < best_dot) {
            best_dot = d;
            best = f;
        }
    }
    return best;
}

int tsn_hull_face_contact(const ts_hull_data *ref, int ref_face, const ts_hull_data *inc, const tsn_mat3 *r,
                          ts_vec3 t, float margin, uint32_t id_base, ts_manifold_point out[4])
{
    ts_plane pl = ref->planes[ref_face];
    ts_vec3 n = pl.normal;
    int inc_face = tsn_incident_face(inc, tsn_mul_tv(r, n));
    hull_clip_vertex buf_a[TSN_HULL_MAX_CLIP], buf_b[TSN_HULL_MAX_CLIP];
    int count = 0;
    int first = inc->face_first[inc_face];
    int h = first;
    int prev = first;
    while (inc->edges[prev].next != first) {
        prev = inc->edges[prev].next; /* the half-edge before `first` */
    }
    do {
        hull_clip_vertex *v = &buf_a[count++];
        v->p = ts_add(tsn_mul_mv(r, inc->vertices[inc->edges[h].origin]), t);
        set_lines(v, (unsigned)prev, (unsigned)h);
        v->edge = (uint16_t)h;
        prev = h;
        h = inc->edges[h].next;
    } while (h != first);

    hull_clip_vertex *in = buf_a, *tmp = buf_b;
    int rf = ref->face_first[ref_face];
    int e = rf;
    do {
        ts_vec3 p, q;
        ts_hull_edge_points(ref, e, &p, &q);
        ts_vec3 side = ts_cross(ts_sub(q, p), n); /* outward: the face lies on the left of p -> q */
        float len = ts_length(side);
        if (len > 0.0f) {
            side = ts_scale(1.0f / len, side);
            count = clip_polygon(in, count, side, ts_dot(side, p), LINE_SIDE + (unsigned)e, tmp);
            hull_clip_vertex *swap = in;
            in = tmp;
            tmp = swap;
        }
        e = ref->edges[e].next;
    } while (e != rf && count > 0);

    ts_manifold_point pts[TSN_HULL_MAX_CLIP];
    int kept = 0;
    for (int i = 0; i < count; ++i) {
        float sep = ts_dot(n, in[i].p) - pl.offset;
        if (sep < margin) {
            uint32_t id = id_base | ((uint32_t)in[i].hi << 10) | (uint32_t)in[i].lo;
            tsn_set_point(&pts[kept++], ts_mul_add(in[i].p, -0.5f * sep, n), sep, id);
        }
    }
    if (kept == 0) {
        return 0;
    }
    return tsn_reduce_points(pts, kept, n, out);
}

/* ---------------------------------------------------------------- contacts */

/* A's face f is the reference face; everything in A's frame, then to world. */
static void face_a_contact(const ts_hull_data *a, const ts_hull_data *b, const tsn_mat3 *r, ts_vec3 t,
                           ts_transform xfa, int face, float margin, ts_manifold *m)
{
    uint32_t base = (1u << 28) | ((uint32_t)face << 20);
    int n = tsn_hull_face_contact(a, face, b, r, t, margin, base, m->points);
    m->point_count = n;
    if (n > 0) {
        m->normal = ts_rotate(xfa.q, a->planes[face].normal);
        for (int i = 0; i < n; ++i) {
            m->points[i].point = ts_transform_point(xfa, m->points[i].point);
        }
    }
}

/* B's face f is the reference face: the same in B's frame (A's pose there
 * is R^T, -R^T t), the normal negated so it points from A to B. */
static void face_b_contact(const ts_hull_data *a, const ts_hull_data *b, const tsn_mat3 *r, ts_vec3 t,
                           ts_transform xfb, int face, float margin, ts_manifold *m)
{
    tsn_mat3 rt = tsn_transpose(r);
    ts_vec3 tb = ts_neg(tsn_mul_mv(&rt, t));
    uint32_t base = (1u << 28) | (1u << 27) | ((uint32_t)face << 20);
    int n = tsn_hull_face_contact(b, face, a, &rt, tb, margin, base, m->points);
    m->point_count = n;
    if (n > 0) {
        m->normal = ts_neg(ts_rotate(xfb.q, b->planes[face].normal));
        for (int i = 0; i < n; ++i) {
            m->points[i].point = ts_transform_point(xfb, m->points[i].point);
        }
    }
}

/* One point midway between the closest points of A's and B's edges. */
static void edge_contact(const ts_hull_data *a, const ts_hull_data *b, const tsn_mat3 *r, ts_vec3 t,
                         ts_transform xfa, int ha, int hb, ts_vec3 axis, float margin, ts_manifold *m)
{
    m->point_count = 0;
    ts_vec3 pa, qa, pb, qb;
    ts_hull_edge_points(a, ha, &pa, &qa);
    ts_hull_edge_points(b, hb, &pb, &qb);
    pb = ts_add(tsn_mul_mv(r, pb), t);
    qb = ts_add(tsn_mul_mv(r, qb), t);
    float s, u;
    tsn_closest_segments(pa, qa, pb, qb, &s, &u);
    ts_vec3 ca = ts_mul_add(pa, s, ts_sub(qa, pa));
    ts_vec3 cb = ts_mul_add(pb, u, ts_sub(qb, pb));
    float sep = ts_dot(axis, ts_sub(cb, ca));
    if (!(sep < margin)) {
        return;
    }
    uint32_t id = (2u << 28) | ((uint32_t)hb << 10) | (uint32_t)ha;
    m->normal = ts_rotate(xfa.q, axis);
    tsn_set_point(&m->points[0], ts_transform_point(xfa, ts_scale(0.5f, ts_add(ca, cb))), sep, id);
    m->point_count = 1;
}

static float min_separation(const ts_manifold *m)
{
    float s = FLT_MAX;
    for (int i = 0; i < m->point_count; ++i) {
        s = tsn_minf(s, m->points[i].separation);
    }
    return s;
}

/* Whether A's half-edge ha and B's hb still form a face of the Minkowski
 * difference (the Gauss map test of query_edges, for one pair). */
static bool edge_pair_is_minkowski_face(const ts_hull_data *a, const ts_hull_data *b, const tsn_mat3 *r, int ha,
                                        int hb)
{
    ts_vec3 ua = a->planes[a->edges[ha].face].normal, va = a->planes[a->edges[ha ^ 1].face].normal;
    ts_vec3 c = ts_neg(tsn_mul_mv(r, b->planes[b->edges[hb].face].normal));
    ts_vec3 d = ts_neg(tsn_mul_mv(r, b->planes[b->edges[hb ^ 1].face].normal));
    ts_vec3 bxa = ts_cross(va, ua), dxc = ts_cross(d, c);
    float cba = ts_dot(c, bxa), dba = ts_dot(d, bxa), adc = ts_dot(ua, dxc), bdc = ts_dot(va, dxc);
    return cba * dba < 0.0f && adc * bdc < 0.0f && cba * bdc > 0.0f;
}

/* The separation along the axis of A's half-edge ha and B's hb (A's
 * frame, turned away from A's centroid), or -FLT_MAX for parallel edges. */
static float edge_axis_separation(const ts_hull_data *a, const ts_hull_data *b, const tsn_mat3 *r, ts_vec3 t, int ha,
                                  int hb, ts_vec3 *axis_out)
{
    ts_vec3 pa, qa, pb, qb;
    ts_hull_edge_points(a, ha, &pa, &qa);
    ts_hull_edge_points(b, hb, &pb, &qb);
    ts_vec3 ea = ts_sub(qa, pa);
    ts_vec3 eb = tsn_mul_mv(r, ts_sub(qb, pb));
    ts_vec3 axis = ts_cross(ea, eb);
    float len_sq = ts_dot(axis, axis);
    if (len_sq < TSN_HULL_PARALLEL_SQ * ts_dot(ea, ea) * ts_dot(eb, eb)) {
        return -FLT_MAX;
    }
    axis = ts_scale(1.0f / sqrtf(len_sq), axis);
    if (ts_dot(axis, ts_sub(pa, a->centroid)) < 0.0f) {
        axis = ts_neg(axis);
    }
    *axis_out = axis;
    /* any axis proves separation: the extremes of both hulls along it */
    float max_a = -ts_hull_min_dot(a, ts_neg(axis), NULL);
    float min_b = ts_hull_min_dot(b, tsn_mul_tv(r, axis), NULL) + ts_dot(axis, t);
    return min_b - max_a;
}

/* The cached feature, tried first (see collide_hull.h): true when it
 * settled the pair, with *m written. A cached axis that still separates by
 * the margin proves the hulls apart; a cached face whose contact comes out
 * within TSN_HULL_CACHE_DEPTH_TOL of the depth it had is taken as is. */
static bool try_cache(const ts_hull_data *a, const ts_hull_data *b, const tsn_mat3 *r, ts_vec3 t, ts_transform xfa,
                      ts_transform xfb, float margin, const ts_sat_cache *cache, ts_manifold *m)
{
    uint32_t type = TS_SAT_CACHE_TYPE(cache->feature);
    int ia = (int)TS_SAT_CACHE_A(cache->feature);
    int ib = (int)TS_SAT_CACHE_B(cache->feature);
    m->point_count = 0;
    if (type == TS_SAT_FACE_A && ia < a->face_count) {
        ts_plane pl = a->planes[ia];
        float sep = ts_hull_min_dot(b, tsn_mul_tv(r, pl.normal), NULL) + ts_dot(pl.normal, t) - pl.offset;
        if (sep > margin) {
            return true;
        }
        face_a_contact(a, b, r, t, xfa, ia, margin, m);
        return m->point_count > 0 && fabsf(min_separation(m) - cache->depth) < TSN_HULL_CACHE_DEPTH_TOL;
    }
    if (type == TS_SAT_FACE_B && ib < b->face_count) {
        ts_plane pl = b->planes[ib];
        ts_vec3 n = tsn_mul_mv(r, pl.normal);
        float sep = ts_hull_min_dot(a, n, NULL) - (pl.offset + ts_dot(n, t));
        if (sep > margin) {
            return true;
        }
        face_b_contact(a, b, r, t, xfb, ib, margin, m);
        return m->point_count > 0 && fabsf(min_separation(m) - cache->depth) < TSN_HULL_CACHE_DEPTH_TOL;
    }
    if (type == TS_SAT_EDGES && ia < a->edge_count && ib < b->edge_count) {
        ts_vec3 axis;
        float sep = edge_axis_separation(a, b, r, t, ia, ib, &axis);
        if (sep > margin) {
            return true;
        }
        /* a touching edge pair: kept while it is still a face of the
         * Minkowski difference and its depth barely moved */
        if (sep == -FLT_MAX || !edge_pair_is_minkowski_face(a, b, r, ia, ib)) {
            return false;
        }
        edge_contact(a, b, r, t, xfa, ia, ib, axis, margin, m);
        return m->point_count > 0 && fabsf(min_separation(m) - cache->depth) < TSN_HULL_CACHE_DEPTH_TOL;
    }
    return false;
}

static void set_cache(ts_sat_cache *cache, uint32_t type, int ia, int ib, float depth)
{
    if (cache != NULL) {
        cache->feature = TS_SAT_CACHE_MAKE(type, (uint32_t)ia, (uint32_t)ib);
        cache->depth = depth;
    }
}

void ts_collide_hulls_cached(const ts_hull_data *a, ts_transform xfa, const ts_hull_data *b, ts_transform xfb,
                             float margin, ts_manifold *m, ts_sat_cache *cache)
{
    m->point_count = 0;
    tsn_mat3 ra = tsn_mat3_from_quat(xfa.q);
    tsn_mat3 rb = tsn_mat3_from_quat(xfb.q);
    tsn_mat3 r = tsn_mul_tm(&ra, &rb);
    ts_vec3 t = tsn_mul_tv(&ra, ts_sub(xfb.p, xfa.p));
    if (cache != NULL && try_cache(a, b, &r, t, xfa, xfb, margin, cache, m)) {
        return;
    }
    m->point_count = 0;

    sat_result fa = query_faces(a, b, &r, t, margin);
    if (fa.separation > margin) {
        set_cache(cache, TS_SAT_FACE_A, fa.index_a, 0, fa.separation);
        return;
    }
    tsn_mat3 rt = tsn_transpose(&r);
    sat_result fb = query_faces(b, a, &rt, ts_neg(tsn_mul_mv(&rt, t)), margin);
    if (fb.separation > margin) {
        set_cache(cache, TS_SAT_FACE_B, 0, fb.index_a, fb.separation);
        return;
    }
    sat_result ed = query_edges(a, b, &r, t);
    if (ed.valid && ed.separation > margin) {
        set_cache(cache, TS_SAT_EDGES, ed.index_a, ed.index_b, ed.separation);
        return;
    }

    bool use_b = fb.separation > fa.separation + TSN_HULL_FACE_B_TOL;
    float face_sep = use_b ? fb.separation : fa.separation;
    bool use_edge =
        ed.valid && ed.separation > face_sep + TSN_HULL_EDGE_TOL_ABS + TSN_HULL_EDGE_TOL_REL * fabsf(face_sep);
    set_cache(cache, TS_SAT_NONE, 0, 0, 0.0f);
    if (use_edge) {
        edge_contact(a, b, &r, t, xfa, ed.index_a, ed.index_b, ed.normal, margin, m);
        if (m->point_count > 0) {
            set_cache(cache, TS_SAT_EDGES, ed.index_a, ed.index_b, min_separation(m));
            return;
        }
    }
    if (use_b) {
        face_b_contact(a, b, &r, t, xfb, fb.index_a, margin, m);
        if (m->point_count > 0) {
            set_cache(cache, TS_SAT_FACE_B, 0, fb.index_a, min_separation(m));
        }
    } else {
        face_a_contact(a, b, &r, t, xfa, fa.index_a, margin, m);
        if (m->point_count > 0) {
            set_cache(cache, TS_SAT_FACE_A, fa.index_a, 0, min_separation(m));
        }
    }
    if (m->point_count == 0 && !use_edge && ed.valid) {
        /* the face did not realise the contact (crossed edges just past the bias) */
        edge_contact(a, b, &r, t, xfa, ed.index_a, ed.index_b, ed.normal, margin, m);
        if (m->point_count > 0) {
            set_cache(cache, TS_SAT_EDGES, ed.index_a, ed.index_b, min_separation(m));
        }
    }
}

void ts_collide_hulls(const ts_hull_data *a, ts_transform xfa, const ts_hull_data *b, ts_transform xfb, float margin,
                      ts_manifold *m)
{
    ts_collide_hulls_cached(a, xfa, b, xfb, margin, m, NULL);
}

void ts_collide_box_hull(const ts_box *a, ts_transform xfa, const ts_hull_data *b, ts_transform xfb, float margin,
                         ts_manifold *m, ts_sat_cache *cache)
{
    ts_box_hull box;
    ts_make_box_hull(a->half_extents, &box);
    ts_collide_hulls_cached(&box.hull, xfa, b, xfb, margin, m, cache);
}
