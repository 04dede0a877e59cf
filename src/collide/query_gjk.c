/* GJK distance (see gjk.h).
 *
 * The Minkowski difference M = B - A holds the origin exactly when the
 * cores overlap; its point v closest to the origin gives the distance |v|
 * and the closest points. GJK keeps a simplex (1 to 4 points of M, each the
 * difference of a support point of B and one of A) and repeats:
 *   1. replace the simplex by the smallest face of it that holds its point
 *      closest to the origin, v = that point (barycentric weights kept);
 *   2. a tetrahedron that holds the origin, or v = 0: the cores overlap;
 *   3. w = support of M in direction -v; when w is no closer along v than v
 *      itself (|v|^2 - v.w <= eps |v|^2), v is the answer; else add w.
 * The closest points are the weighted sums of the simplex's A and B points.
 *
 * Deep overlaps and rounding. When the origin lies in the plane of a
 * triangle of the simplex (a box centred in a slab: every support point has
 * x = z, so the simplex stays flat through the origin), v is not 0 but
 * rounding noise pointing anywhere; the support along -v then is a vertex
 * the simplex already holds, and stopping there used to report the noise
 * |v| as a distance (2e-5 m for a 0.4 m box 0.045 m inside a 6 m slab, in
 * float). And for shapes 2.5e-4 m apart, float noise in v (1e-6 m) made
 * v.w's sign meaningless. So the search runs in double on the float
 * points (noise ~1e-16 of the size), and:
 *   - |v| below GJK_ZERO_REL times the simplex's largest |w| is 0: the
 *     origin is on the simplex, inside M;
 *   - v.w is a bound: M lies in {x : v.x >= v.w}, so the origin is at
 *     least v.w / |v| from M. A stop (repeat, no progress, too many steps)
 *     where that bound is not positive proves nothing apart: overlap. (In
 *     exact arithmetic a repeat implies v.w = |v|^2 > 0.)
 * Only + - * / and sqrt with -ffp-contract=off: deterministic. */
#include "collide/query_gjk.h"

#include "base/math3.h"

#include <math.h>

#define GJK_MAX_ITERATIONS 32
/* Relative progress below which v is final (|v| then is within 1e-8 of
 * itself of the distance). */
#define GJK_REL_TOLERANCE 1.0e-8
/* |v| below this times the simplex's largest |w| is rounding: v = 0. Double
 * sums of points of size L carry errors of about 1e-16 L; 1e-12 L leaves
 * room for the simplex solves' cancellations (1e-11 m at 10 m). */
#define GJK_ZERO_REL 1.0e-12

/* Double-precision vectors for the search (see the top). */
typedef struct dvec {
    double x, y, z;
} dvec;

static inline dvec d_of(ts_vec3 v) { return (dvec){v.x, v.y, v.z}; }
static inline ts_vec3 f_of(dvec v) { return ts_v3((float)v.x, (float)v.y, (float)v.z); }
static inline dvec d_add(dvec a, dvec b) { return (dvec){a.x + b.x, a.y + b.y, a.z + b.z}; }
static inline dvec d_sub(dvec a, dvec b) { return (dvec){a.x - b.x, a.y - b.y, a.z - b.z}; }
static inline dvec d_neg(dvec a) { return (dvec){-a.x, -a.y, -a.z}; }
static inline dvec d_mul_add(dvec a, double s, dvec b) { return (dvec){a.x + s * b.x, a.y + s * b.y, a.z + s * b.z}; }
static inline double d_dot(dvec a, dvec b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline dvec d_cross(dvec a, dvec b)
{
    return (dvec){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
static inline double d_length(dvec a) { return sqrt(d_dot(a, a)); }

typedef struct vertex {
    dvec a, b, w; /* w = b - a */
    int index_a, index_b;
} vertex;

typedef struct simplex {
    vertex v[4];
    double weight[4];
    int count;
} simplex;

bool ts_gjk_proxy_of(ts_shape_type type, const void *geometry, ts_transform xf, ts_gjk_proxy *proxy)
{
    switch (type) {
    case TS_SHAPE_SPHERE:
        proxy->points[0] = xf.p;
        proxy->count = 1;
        proxy->radius = ((const ts_sphere *)geometry)->radius;
        return true;
    case TS_SHAPE_CAPSULE: {
        const ts_capsule *c = geometry;
        ts_vec3 axis = ts_rotate(xf.q, ts_v3(0.0f, c->half_height, 0.0f));
        proxy->points[0] = ts_sub(xf.p, axis);
        proxy->points[1] = ts_add(xf.p, axis);
        proxy->count = 2;
        proxy->radius = c->radius;
        return true;
    }
    case TS_SHAPE_BOX: {
        ts_vec3 h = ((const ts_box *)geometry)->half_extents;
        for (int k = 0; k < 8; ++k) {
            ts_vec3 corner = {(k & 1) ? h.x : -h.x, (k & 2) ? h.y : -h.y, (k & 4) ? h.z : -h.z};
            proxy->points[k] = ts_transform_point(xf, corner);
        }
        proxy->count = 8;
        proxy->radius = 0.0f;
        return true;
    }
    case TS_SHAPE_HULL: {
        const ts_hull_data *h = geometry;
        for (int k = 0; k < h->vertex_count; ++k) {
            proxy->points[k] = ts_transform_point(xf, h->vertices[k]);
        }
        proxy->count = h->vertex_count;
        proxy->radius = 0.0f;
        return true;
    }
    default: return false;
    }
}

/* The point of the cloud farthest along d (the first on a tie). */
static int support(const ts_gjk_proxy *proxy, dvec d)
{
    int best = 0;
    double best_dot = d_dot(d_of(proxy->points[0]), d);
    for (int k = 1; k < proxy->count; ++k) {
        double dot = d_dot(d_of(proxy->points[k]), d);
        if (dot > best_dot) {
            best = k;
            best_dot = dot;
        }
    }
    return best;
}

static vertex make_vertex(const ts_gjk_proxy *a, dvec offset_a, const ts_gjk_proxy *b, dvec d)
{
    vertex v;
    v.index_a = support(a, d_neg(d));
    v.index_b = support(b, d);
    v.a = d_add(d_of(a->points[v.index_a]), offset_a);
    v.b = d_of(b->points[v.index_b]);
    v.w = d_sub(v.b, v.a);
    return v;
}

/* Keeps the listed vertices of s with their weights. */
static void keep(simplex *s, int count, const int which[3], const double weight[3])
{
    vertex v[3];
    for (int k = 0; k < count; ++k) {
        v[k] = s->v[which[k]];
    }
    for (int k = 0; k < count; ++k) {
        s->v[k] = v[k];
        s->weight[k] = weight[k];
    }
    s->count = count;
}

/* Closest point of segment (p, q) of s to the origin: the projection
 * t = -p.(q - p) / |q - p|^2, clamped to an end. */
static void solve_segment(simplex *s, int i, int j)
{
    dvec p = s->v[i].w, e = d_sub(s->v[j].w, p);
    double t = -d_dot(p, e);
    double ee = d_dot(e, e);
    if (t <= 0.0 || ee <= 0.0) {
        keep(s, 1, (int[3]){i, 0, 0}, (double[3]){1.0, 0.0, 0.0});
    } else if (t >= ee) {
        keep(s, 1, (int[3]){j, 0, 0}, (double[3]){1.0, 0.0, 0.0});
    } else {
        t /= ee;
        keep(s, 2, (int[3]){i, j, 0}, (double[3]){1.0 - t, t, 0.0});
    }
}

/* Closest point of triangle (a, b, c) of s to the origin p = 0, by its
 * Voronoi regions (Ericson 5.1.5): vertex regions, then edge regions, else
 * the face, with barycentric weights from the signed areas. */
static void solve_triangle(simplex *s, int ia, int ib, int ic)
{
    dvec a = s->v[ia].w, b = s->v[ib].w, c = s->v[ic].w;
    dvec ab = d_sub(b, a), ac = d_sub(c, a), ap = d_neg(a);
    double d1 = d_dot(ab, ap), d2 = d_dot(ac, ap);
    if (d1 <= 0.0 && d2 <= 0.0) {
        keep(s, 1, (int[3]){ia, 0, 0}, (double[3]){1.0, 0.0, 0.0});
        return;
    }
    dvec bp = d_neg(b);
    double d3 = d_dot(ab, bp), d4 = d_dot(ac, bp);
    if (d3 >= 0.0 && d4 <= d3) {
        keep(s, 1, (int[3]){ib, 0, 0}, (double[3]){1.0, 0.0, 0.0});
        return;
    }
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
        double v = d1 / (d1 - d3);
        keep(s, 2, (int[3]){ia, ib, 0}, (double[3]){1.0 - v, v, 0.0});
        return;
    }
    dvec cp = d_neg(c);
    double d5 = d_dot(ab, cp), d6 = d_dot(ac, cp);
    if (d6 >= 0.0 && d5 <= d6) {
        keep(s, 1, (int[3]){ic, 0, 0}, (double[3]){1.0, 0.0, 0.0});
        return;
    }
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
        double w = d2 / (d2 - d6);
        keep(s, 2, (int[3]){ia, ic, 0}, (double[3]){1.0 - w, w, 0.0});
        return;
    }
    double va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0) {
        double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        keep(s, 2, (int[3]){ib, ic, 0}, (double[3]){1.0 - w, w, 0.0});
        return;
    }
    double sum = va + vb + vc;
    if (!(sum > 0.0)) { /* degenerate (collinear): the best edge */
        solve_segment(s, ia, ib);
        return;
    }
    double denom = 1.0 / sum;
    double v = vb * denom, w = vc * denom;
    keep(s, 3, (int[3]){ia, ib, ic}, (double[3]){1.0 - v - w, v, w});
}

static dvec closest_of(const simplex *s)
{
    dvec p = {0.0, 0.0, 0.0};
    for (int k = 0; k < s->count; ++k) {
        p = d_mul_add(p, s->weight[k], s->v[k].w);
    }
    return p;
}

/* Tetrahedron: the origin is outside face (i, j, k) when it lies on the
 * other side of the face's plane from the fourth vertex; of those faces,
 * the closest triangle point wins. None: the origin is inside (returns
 * true). A flat tetrahedron (no side has the fourth vertex off its plane)
 * falls back to its best face. */
static bool solve_tetrahedron(simplex *s)
{
    static const int faces[4][4] = {{0, 1, 2, 3}, {0, 2, 3, 1}, {0, 3, 1, 2}, {1, 3, 2, 0}};
    simplex best = *s;
    double best_sq = 1.0e300;
    bool outside_any = false;
    for (int f = 0; f < 4; ++f) {
        dvec a = s->v[faces[f][0]].w, b = s->v[faces[f][1]].w, c = s->v[faces[f][2]].w;
        dvec d = s->v[faces[f][3]].w;
        dvec n = d_cross(d_sub(b, a), d_sub(c, a));
        double side_origin = -d_dot(a, n);
        double side_d = d_dot(d_sub(d, a), n);
        if (side_d != 0.0 && side_origin * side_d >= 0.0) {
            continue; /* the origin is on d's side of this face (or on it) */
        }
        outside_any = true;
        simplex trial = *s;
        solve_triangle(&trial, faces[f][0], faces[f][1], faces[f][2]);
        dvec p = closest_of(&trial);
        double sq = d_dot(p, p);
        if (sq < best_sq) {
            best_sq = sq;
            best = trial;
        }
    }
    if (!outside_any) {
        return true;
    }
    *s = best;
    return false;
}

/* The largest |w|^2 of the simplex: the scale its rounding is relative to. */
static double simplex_scale_sq(const simplex *s)
{
    double m = 0.0;
    for (int k = 0; k < s->count; ++k) {
        m = fmax(m, d_dot(s->v[k].w, s->v[k].w));
    }
    return m;
}

void ts_gjk_distance(const ts_gjk_proxy *a, ts_vec3 offset_a_float, const ts_gjk_proxy *b, ts_gjk_result *result)
{
    dvec offset_a = d_of(offset_a_float);
    simplex s;
    s.v[0] = make_vertex(a, offset_a, b, d_sub(d_of(b->points[0]), d_add(d_of(a->points[0]), offset_a)));
    s.weight[0] = 1.0;
    s.count = 1;
    bool overlap = false;
    bool proven = false; /* a support plane showed the origin outside M */
    int iteration = 0;
    for (; iteration < GJK_MAX_ITERATIONS; ++iteration) {
        switch (s.count) {
        case 2: solve_segment(&s, 0, 1); break;
        case 3: solve_triangle(&s, 0, 1, 2); break;
        case 4: overlap = solve_tetrahedron(&s); break;
        default: break;
        }
        if (overlap) {
            break;
        }
        dvec v = closest_of(&s);
        double vv = d_dot(v, v);
        double zero = GJK_ZERO_REL * GJK_ZERO_REL * simplex_scale_sq(&s);
        if (vv <= 1.0e-60 || vv <= zero) {
            overlap = true;
            break;
        }
        vertex w = make_vertex(a, offset_a, b, d_neg(v));
        double vw = d_dot(v, w.w);
        proven = vw > 0.0;
        /* no progress towards the origin along v, or a vertex already held: done */
        if (vv - vw <= GJK_REL_TOLERANCE * vv) {
            break;
        }
        bool repeat = false;
        for (int k = 0; k < s.count; ++k) {
            repeat = repeat || (s.v[k].index_a == w.index_a && s.v[k].index_b == w.index_b);
        }
        if (repeat) {
            break;
        }
        s.v[s.count] = w;
        s.weight[s.count] = 0.0;
        s.count += 1;
    }
    /* stopped without a separating support plane: nothing proves a gap */
    overlap = overlap || !proven;
    dvec pa = {0.0, 0.0, 0.0}, pb = {0.0, 0.0, 0.0};
    for (int k = 0; k < s.count; ++k) {
        pa = d_mul_add(pa, s.weight[k], s.v[k].a);
        pb = d_mul_add(pb, s.weight[k], s.v[k].b);
    }
    result->point_a = f_of(pa);
    result->point_b = f_of(pb);
    result->distance = overlap ? 0.0f : (float)d_length(d_sub(pb, pa));
    result->iterations = iteration;
}
