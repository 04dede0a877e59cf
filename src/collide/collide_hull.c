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
/* A polygon vertex this close to a side plane counts as on it. */
#define TSN_HULL_CLIP_ON_PLANE 1.0e-4f
/* A cached face contact is kept while its depth changed by less than this. */
#define TSN_HULL_CACHE_DEPTH_TOL 0.005f
/* Room for a clipped polygon: a face of up to TS_HULL_MAX_VERTICES corners,
 * one more per side plane. */
#define TSN_HULL_MAX_CLIP (2 * TS_HULL_MAX_VERTICES + 8)

#define LINE_SIDE 512u

typedef tsn_sat_result sat_result;

typedef struct hull_clip_vertex {
    ts_vec3 p;
    uint16_t lo, hi; /* the two lines meeting here */
    uint16_t edge;   /* the line the polygon edge from here to the next lies on */
} hull_clip_vertex;

/* ---------------------------------------------------------------- SAT */

/* The separation of A's face f from B's vertices y (A's frame, columns
 * of n): min over y of n . y - offset, four vertices at a time (the
 * padding repeats a vertex, hull.h, so it never lowers the minimum). */
static float face_separation(const ts_hull_data *a, int f, const float *yx, const float *yy, const float *yz, int n)
{
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
    return simde_mm_cvtss_f32(low) - pl.offset;
}

_Static_assert(sizeof(ts_plane) == 4 * sizeof(float), "a plane is a row of four floats");

/* bound[f] = n_f . d - drop for every face of A, four planes at a time
 * (loaded as rows and transposed to columns), the last few one by one. */
static void face_bounds(const ts_hull_data *a, ts_vec3 d, float drop, float *bound)
{
    const simde__m128 dx = simde_mm_set1_ps(d.x), dy = simde_mm_set1_ps(d.y), dz = simde_mm_set1_ps(d.z);
    const simde__m128 lower = simde_mm_set1_ps(drop);
    const float *rows = (const float *)(const void *)a->planes; /* ts_plane is four floats: nx ny nz offset */
    int f = 0;
    for (; f + 4 <= a->face_count; f += 4) {
        simde__m128 nx = simde_mm_loadu_ps(rows + 4 * f), ny = simde_mm_loadu_ps(rows + 4 * f + 4);
        simde__m128 nz = simde_mm_loadu_ps(rows + 4 * f + 8), w = simde_mm_loadu_ps(rows + 4 * f + 12);
        SIMDE_MM_TRANSPOSE4_PS(nx, ny, nz, w);
        simde__m128 dot = simde_mm_add_ps(simde_mm_add_ps(simde_mm_mul_ps(nx, dx), simde_mm_mul_ps(ny, dy)),
                                          simde_mm_mul_ps(nz, dz));
        simde_mm_storeu_ps(bound + f, simde_mm_sub_ps(dot, lower));
    }
    for (; f < a->face_count; ++f) {
        ts_vec3 n = a->planes[f].normal;
        bound[f] = ((n.x * d.x + n.y * d.y) + n.z * d.z) - drop;
    }
}

/* A's faces against B. B's vertices are first placed in A's frame
 * (y = R v + t, four at a time into columns), then for each face of A the
 * separation is min over y of n . y - offset: one dot product per vertex
 * and face, where turning each face's normal into B's frame and taking B's
 * support would need the same dot products plus a search for the index,
 * which only the contact (not the test) needs. Stops at the first face that
 * separates by the margin.
 *
 * Most faces are skipped by a bound. A holds the ball of radius rho_A
 * (inner_radius) about its centroid c_A, B the ball rho_B about c_B (A's
 * frame), so along a face normal n the face plane is at least rho_A beyond
 * c_A and B reaches at least rho_B below c_B:
 *     separation <= n . (c_B - c_A) - rho_A - rho_B    (the face's bound).
 * The face of the largest bound is measured first; its separation, capped
 * at the margin, is at most the answer, so faces whose bound lies below it
 * can neither be the answer nor stop the loop, and are skipped: the loop
 * returns what it returns without the skips, at a handful of faces (those
 * facing B) instead of all. */
tsn_sat_result tsn_hull_query_faces(const ts_hull_data *a, const ts_hull_data *b, const tsn_mat3 *r, ts_vec3 t,
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
    /* each face's bound, loosened by the rounding slack (collide_hull.h) */
    ts_vec3 d = ts_sub(ts_add(tsn_mul_mv(r, b->centroid), t), a->centroid);
    float drop = a->inner_radius + b->inner_radius - TSN_HULL_BOUND_SLACK * (a->radius + b->radius);
    float bound[TS_HULL_MAX_FACES];
    face_bounds(a, d, drop, bound);
    int first = 0;
    for (int f = 1; f < a->face_count; ++f) {
        first = bound[f] > bound[first] ? f : first;
    }
    float floor = tsn_minf(face_separation(a, first, yx, yy, yz, n), margin);
    for (int f = 0; f < a->face_count; ++f) {
        if (bound[f] < floor) {
            continue;
        }
        float sep = face_separation(a, f, yx, yy, yz, n);
        if (sep > q.separation) {
            q.separation = sep;
            q.index_a = f;
            if (sep > margin) {
                break;
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
 * difference (the Gauss map test of tsn_hull_query_edges, for one pair). */
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

    sat_result fa = tsn_hull_query_faces(a, b, &r, t, margin);
    if (fa.separation > margin) {
        set_cache(cache, TS_SAT_FACE_A, fa.index_a, 0, fa.separation);
        return;
    }
    tsn_mat3 rt = tsn_transpose(&r);
    sat_result fb = tsn_hull_query_faces(b, a, &rt, ts_neg(tsn_mul_mv(&rt, t)), margin);
    if (fb.separation > margin) {
        set_cache(cache, TS_SAT_FACE_B, 0, fb.index_a, fb.separation);
        return;
    }
    /* Only edge pairs that beat the face chosen below can change the
     * outcome: those that separate (above the margin, which is above that
     * face), or beat it by the edge tolerance. */
    bool use_b = fb.separation > fa.separation + TSN_HULL_FACE_B_TOL;
    float face_sep = use_b ? fb.separation : fa.separation;
    sat_result ed = tsn_hull_query_edges_above(a, b, &r, t, face_sep);
    if (ed.valid && ed.separation > margin) {
        set_cache(cache, TS_SAT_EDGES, ed.index_a, ed.index_b, ed.separation);
        return;
    }

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
    if (m->point_count == 0 && !use_edge) {
        /* the face did not realise the contact (crossed edges just past the
         * bias): the best edge pair of all, which may lie below the face */
        ed = tsn_hull_query_edges(a, b, &r, t);
        if (ed.valid) {
            edge_contact(a, b, &r, t, xfa, ed.index_a, ed.index_b, ed.normal, margin, m);
            if (m->point_count > 0) {
                set_cache(cache, TS_SAT_EDGES, ed.index_a, ed.index_b, min_separation(m));
            }
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
