/* GJK distance (see gjk.h).
 *
 * The Minkowski difference D = B - A holds w = b - a for every a in A and b
 * in B; the distance of A and B is the distance of D from the origin. GJK
 * keeps a simplex of up to 4 points of D, finds the point v of the simplex
 * closest to the origin (keeping only the vertices that span it), and adds
 * the support point of D along -v: w = support_B(-v) - support_A(v). It
 * stops when that point brings v no closer (v.v - v.w within a relative
 * tolerance of v.v), when a vertex repeats, or when the simplex holds the
 * origin (overlap). The closest points are the barycentric mixes of the
 * simplex vertices' a and b points. */
#include "collide/gjk.h"

#include <float.h>

#define GJK_MAX_ITERATIONS 32
/* Converged when v . (v - w) <= this times v . v. */
#define GJK_REL_TOL 1.0e-6f
/* |v|^2 below this (m^2): the sets touch. */
#define GJK_TOUCH_SQ 1.0e-12f

typedef struct gjk_vertex {
    ts_vec3 a, b, w; /* w = b - a */
    int ia, ib;      /* indices in the proxies */
    float u;         /* barycentric weight */
} gjk_vertex;

typedef struct gjk_simplex {
    gjk_vertex v[4];
    int count;
} gjk_simplex;

static int support(const tsn_proxy *p, ts_vec3 d)
{
    if (p->hull != NULL) {
        return ts_hull_support(p->hull, d);
    }
    int best = 0;
    float best_dot = ts_dot(p->points[0], d);
    for (int i = 1; i < p->count; ++i) {
        float x = ts_dot(p->points[i], d);
        if (x > best_dot) {
            best_dot = x;
            best = i;
        }
    }
    return best;
}

static ts_vec3 proxy_point(const tsn_proxy *p, int i) { return p->hull != NULL ? p->hull->vertices[i] : p->points[i]; }

ts_vec3 tsn_closest_on_triangle(ts_vec3 p, ts_vec3 a, ts_vec3 b, ts_vec3 c, int *feature)
{
    ts_vec3 ab = ts_sub(b, a), ac = ts_sub(c, a), ap = ts_sub(p, a);
    float d1 = ts_dot(ab, ap), d2 = ts_dot(ac, ap);
    if (d1 <= 0.0f && d2 <= 0.0f) {
        *feature = 0;
        return a;
    }
    ts_vec3 bp = ts_sub(p, b);
    float d3 = ts_dot(ab, bp), d4 = ts_dot(ac, bp);
    if (d3 >= 0.0f && d4 <= d3) {
        *feature = 1;
        return b;
    }
    float vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0f && d1 >= 0.0f && d3 <= 0.0f) {
        *feature = 3;
        return ts_mul_add(a, d1 / (d1 - d3), ab);
    }
    ts_vec3 cp = ts_sub(p, c);
    float d5 = ts_dot(ab, cp), d6 = ts_dot(ac, cp);
    if (d6 >= 0.0f && d5 <= d6) {
        *feature = 2;
        return c;
    }
    float vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0f && d2 >= 0.0f && d6 <= 0.0f) {
        *feature = 5;
        return ts_mul_add(a, d2 / (d2 - d6), ac);
    }
    float va = d3 * d6 - d5 * d4;
    if (va <= 0.0f && (d4 - d3) >= 0.0f && (d5 - d6) >= 0.0f) {
        *feature = 4;
        return ts_mul_add(b, (d4 - d3) / ((d4 - d3) + (d5 - d6)), ts_sub(c, b));
    }
    float denom = 1.0f / (va + vb + vc);
    *feature = 6;
    return ts_add(a, ts_add(ts_scale(vb * denom, ab), ts_scale(vc * denom, ac)));
}

/* ---- the closest point of the simplex to the origin, by its Voronoi regions ---- */

static ts_vec3 solve_segment(gjk_simplex *s)
{
    ts_vec3 w0 = s->v[0].w, w1 = s->v[1].w;
    ts_vec3 e = ts_sub(w1, w0);
    float t = -ts_dot(w0, e);
    if (t <= 0.0f) {
        s->count = 1;
        s->v[0].u = 1.0f;
        return w0;
    }
    float ee = ts_dot(e, e);
    if (t >= ee) {
        s->v[0] = s->v[1];
        s->count = 1;
        s->v[0].u = 1.0f;
        return w1;
    }
    t /= ee;
    s->v[0].u = 1.0f - t;
    s->v[1].u = t;
    return ts_mul_add(w0, t, e);
}

/* Barycentrics of the origin's projection on the triangle, or a reduction. */
static ts_vec3 solve_triangle(gjk_simplex *s)
{
    int feature;
    ts_vec3 zero = ts_v3(0.0f, 0.0f, 0.0f);
    ts_vec3 p = tsn_closest_on_triangle(zero, s->v[0].w, s->v[1].w, s->v[2].w, &feature);
    gjk_vertex v0 = s->v[0], v1 = s->v[1], v2 = s->v[2];
    switch (feature) {
    case 0: s->v[0] = v0; s->count = 1; s->v[0].u = 1.0f; return p;
    case 1: s->v[0] = v1; s->count = 1; s->v[0].u = 1.0f; return p;
    case 2: s->v[0] = v2; s->count = 1; s->v[0].u = 1.0f; return p;
    case 3: s->v[0] = v0; s->v[1] = v1; s->count = 2; return solve_segment(s);
    case 4: s->v[0] = v1; s->v[1] = v2; s->count = 2; return solve_segment(s);
    case 5: s->v[0] = v0; s->v[1] = v2; s->count = 2; return solve_segment(s);
    default: break;
    }
    /* inside: barycentrics from sub-areas (n . (x - p) cross products) */
    ts_vec3 n = ts_cross(ts_sub(v1.w, v0.w), ts_sub(v2.w, v0.w));
    float nn = ts_dot(n, n);
    float u0 = ts_dot(n, ts_cross(ts_sub(v1.w, p), ts_sub(v2.w, p))) / nn;
    float u1 = ts_dot(n, ts_cross(ts_sub(v2.w, p), ts_sub(v0.w, p))) / nn;
    s->v[0].u = u0;
    s->v[1].u = u1;
    s->v[2].u = 1.0f - u0 - u1;
    return p;
}

/* The origin inside the tetrahedron: overlap (returns true). Otherwise the
 * closest of the faces that the origin lies outside of. */
static bool solve_tetrahedron(gjk_simplex *s, ts_vec3 *closest)
{
    static const int faces[4][4] = {{0, 1, 2, 3}, {0, 3, 1, 2}, {0, 2, 3, 1}, {1, 3, 2, 0}};
    float best = FLT_MAX;
    gjk_simplex best_s = *s;
    ts_vec3 best_p = ts_v3(0.0f, 0.0f, 0.0f);
    bool outside_any = false;
    for (int f = 0; f < 4; ++f) {
        ts_vec3 a = s->v[faces[f][0]].w, b = s->v[faces[f][1]].w, c = s->v[faces[f][2]].w;
        ts_vec3 d = s->v[faces[f][3]].w;
        ts_vec3 n = ts_cross(ts_sub(b, a), ts_sub(c, a));
        float side_o = -ts_dot(n, a);          /* n . (0 - a) */
        float side_d = ts_dot(n, ts_sub(d, a)); /* the fourth vertex's side */
        if (side_d != 0.0f && side_o * side_d >= 0.0f) {
            continue; /* the origin is on the inner side of this face */
        }
        outside_any = true;
        gjk_simplex t;
        t.v[0] = s->v[faces[f][0]];
        t.v[1] = s->v[faces[f][1]];
        t.v[2] = s->v[faces[f][2]];
        t.count = 3;
        ts_vec3 p = solve_triangle(&t);
        float dd = ts_dot(p, p);
        if (dd < best) {
            best = dd;
            best_s = t;
            best_p = p;
        }
    }
    if (!outside_any) {
        return true;
    }
    *s = best_s;
    *closest = best_p;
    return false;
}

static void witness(const gjk_simplex *s, ts_vec3 *a, ts_vec3 *b)
{
    *a = ts_v3(0.0f, 0.0f, 0.0f);
    *b = ts_v3(0.0f, 0.0f, 0.0f);
    for (int i = 0; i < s->count; ++i) {
        *a = ts_mul_add(*a, s->v[i].u, s->v[i].a);
        *b = ts_mul_add(*b, s->v[i].u, s->v[i].b);
    }
}

void tsn_gjk(const tsn_proxy *pa, const tsn_proxy *pb, tsn_distance *out)
{
    gjk_simplex s;
    s.count = 1;
    s.v[0].ia = 0;
    s.v[0].ib = 0;
    s.v[0].a = proxy_point(pa, 0);
    s.v[0].b = proxy_point(pb, 0);
    s.v[0].w = ts_sub(s.v[0].b, s.v[0].a);
    s.v[0].u = 1.0f;
    ts_vec3 v = s.v[0].w;
    out->overlap = false;
    int iter = 0;
    for (; iter < GJK_MAX_ITERATIONS; ++iter) {
        float vv = ts_dot(v, v);
        if (vv < GJK_TOUCH_SQ) {
            out->overlap = true;
            break;
        }
        int ia = support(pa, v);
        int ib = support(pb, ts_neg(v));
        bool repeat = false;
        for (int i = 0; i < s.count; ++i) {
            repeat = repeat || (s.v[i].ia == ia && s.v[i].ib == ib);
        }
        gjk_vertex nv;
        nv.ia = ia;
        nv.ib = ib;
        nv.a = proxy_point(pa, ia);
        nv.b = proxy_point(pb, ib);
        nv.w = ts_sub(nv.b, nv.a);
        if (repeat || vv - ts_dot(v, nv.w) <= GJK_REL_TOL * vv) {
            break;
        }
        s.v[s.count++] = nv;
        switch (s.count) {
        case 2: v = solve_segment(&s); break;
        case 3: v = solve_triangle(&s); break;
        default:
            if (solve_tetrahedron(&s, &v)) {
                out->overlap = true;
            }
            break;
        }
        if (out->overlap) {
            break;
        }
    }
    out->iterations = iter;
    witness(&s, &out->point_a, &out->point_b);
    out->distance = out->overlap ? 0.0f : ts_length(ts_sub(out->point_b, out->point_a));
}
