/* Quickhull of at most 64 points in double precision, then coplanar faces
 * merged into polygons (see hull_build.h).
 *
 * 1. A first tetrahedron from the extreme points: the two farthest apart of
 *    the six axis extremes, the point farthest from their line, the point
 *    farthest from the plane of those three. Too small a spread at any of
 *    these steps means the input spans no volume: a clear error.
 * 2. Repeatedly the point farthest outside any face (by more than a
 *    tolerance) is added: the faces it sees are found by a walk from the
 *    face it is farthest from, their boundary (the horizon) is joined to the
 *    point by new triangles. The walk keeps the seen region connected, so
 *    the horizon is one loop; a horizon that is not (it happens only for
 *    points within rounding of each other) is reported as an error.
 * 3. Adjacent triangles in one plane (within a tolerance, measured against
 *    the first triangle of the group so that a gently curved surface does
 *    not creep into one face) become one polygon face. A vertex left with
 *    only two faces around it sits in the middle of an edge, and one with a
 *    single face inside a face: both are dropped.
 * 4. The half-edges are built from the face loops, twins side by side, and
 *    checked: Euler's V - E + F = 2 and every vertex under every plane. */
#include "collide/hull_build.h"

#include "base/error.h"

#include <math.h>
#include <string.h>

#define QH_MAX_TRIS 256 /* alive ones never exceed 2 V - 4 = 124; dead slots are reused */
/* Tolerances, times the largest extent of the input: a point must be this
 * far outside a face to be added ... */
#define QH_VISIBLE_TOL 1.0e-7
/* ... triangles whose vertices are this close to one plane merge ... */
#define QH_MERGE_TOL 1.0e-5
/* ... and a finished hull may leave an input point this far outside. */
#define QH_CHECK_TOL 2.0e-5
/* Normals of triangles that merge agree to within this cosine (~0.8 degrees). */
#define QH_MERGE_COS 0.9999

typedef struct dvec {
    double x, y, z;
} dvec;

static dvec dsub(dvec a, dvec b) { return (dvec){a.x - b.x, a.y - b.y, a.z - b.z}; }
static double ddot(dvec a, dvec b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static dvec dcross(dvec a, dvec b) { return (dvec){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
static double dlen(dvec a) { return sqrt(ddot(a, a)); }
static dvec dscale(double s, dvec a) { return (dvec){s * a.x, s * a.y, s * a.z}; }

typedef struct qh_tri {
    uint8_t v[3];   /* counter-clockwise seen from outside */
    int16_t nb[3];  /* the triangle across edge v[k] -> v[k + 1] */
    dvec n;         /* unit outward normal */
    double d;       /* n . x = d on the plane */
    double area2;   /* twice the area */
    bool alive;
} qh_tri;

typedef struct qh_state {
    dvec p[TS_HULL_MAX_VERTICES];
    int n;
    double scale;   /* the largest extent of the points */
    qh_tri t[QH_MAX_TRIS];
    int tri_count;  /* slots used (alive or dead) */
    int16_t free_list[QH_MAX_TRIS];
    int free_count;
    bool on_hull[TS_HULL_MAX_VERTICES];
} qh_state;

/* A new triangle a b c (or -1 when out of room or degenerate). */
static int tri_new(qh_state *s, int a, int b, int c)
{
    int i = s->free_count > 0 ? s->free_list[--s->free_count] : (s->tri_count < QH_MAX_TRIS ? s->tri_count++ : -1);
    if (i < 0) {
        return -1;
    }
    qh_tri *t = &s->t[i];
    dvec cr = dcross(dsub(s->p[b], s->p[a]), dsub(s->p[c], s->p[a]));
    double len = dlen(cr);
    if (!(len > 1.0e-30)) {
        return -1;
    }
    t->v[0] = (uint8_t)a;
    t->v[1] = (uint8_t)b;
    t->v[2] = (uint8_t)c;
    t->nb[0] = t->nb[1] = t->nb[2] = -1;
    t->n = dscale(1.0 / len, cr);
    t->d = ddot(t->n, s->p[a]);
    t->area2 = len;
    t->alive = true;
    return i;
}

static double tri_dist(const qh_state *s, int t, int point) { return ddot(s->t[t].n, s->p[point]) - s->t[t].d; }

/* The edge index k of triangle t that runs a -> b, or -1. */
static int tri_edge(const qh_tri *t, int a, int b)
{
    for (int k = 0; k < 3; ++k) {
        if (t->v[k] == a && t->v[(k + 1) % 3] == b) {
            return k;
        }
    }
    return -1;
}

/* ---------------------------------------------------------------- the first tetrahedron */

static ts_result initial_simplex(qh_state *s, const char *fn)
{
    int ext[6] = {0, 0, 0, 0, 0, 0};
    for (int i = 1; i < s->n; ++i) {
        const double c[3] = {s->p[i].x, s->p[i].y, s->p[i].z};
        for (int k = 0; k < 3; ++k) {
            const double lo[3] = {s->p[ext[2 * k]].x, s->p[ext[2 * k]].y, s->p[ext[2 * k]].z};
            const double hi[3] = {s->p[ext[2 * k + 1]].x, s->p[ext[2 * k + 1]].y, s->p[ext[2 * k + 1]].z};
            if (c[k] < lo[k]) {
                ext[2 * k] = i;
            }
            if (c[k] > hi[k]) {
                ext[2 * k + 1] = i;
            }
        }
    }
    int i0 = ext[0], i1 = ext[1];
    double best = -1.0;
    for (int a = 0; a < 6; ++a) {
        for (int b = a + 1; b < 6; ++b) {
            double d = ddot(dsub(s->p[ext[a]], s->p[ext[b]]), dsub(s->p[ext[a]], s->p[ext[b]]));
            if (d > best) {
                best = d;
                i0 = ext[a];
                i1 = ext[b];
            }
        }
    }
    s->scale = sqrt(best);
    double tol = QH_MERGE_TOL * s->scale;
    if (!(s->scale > 1.0e-12)) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, fn, "the points all coincide: a hull needs 4 points that span a volume");
    }
    dvec axis = dscale(1.0 / s->scale, dsub(s->p[i1], s->p[i0]));
    int i2 = -1;
    best = 0.0;
    for (int i = 0; i < s->n; ++i) {
        dvec r = dsub(s->p[i], s->p[i0]);
        dvec off = dsub(r, dscale(ddot(r, axis), axis));
        double d = dlen(off);
        if (d > best) {
            best = d;
            i2 = i;
        }
    }
    if (i2 < 0 || best <= tol) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, fn,
                       "the points lie on one line (within %g): a hull needs 4 points that span a volume", tol);
    }
    dvec normal = dcross(dsub(s->p[i1], s->p[i0]), dsub(s->p[i2], s->p[i0]));
    normal = dscale(1.0 / dlen(normal), normal);
    int i3 = -1;
    best = 0.0;
    for (int i = 0; i < s->n; ++i) {
        double d = fabs(ddot(normal, dsub(s->p[i], s->p[i0])));
        if (d > best) {
            best = d;
            i3 = i;
        }
    }
    if (i3 < 0 || best <= tol) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, fn,
                       "the points lie in one plane (within %g): a hull needs 4 points that span a volume", tol);
    }
    /* Faces outward: i3 must be under face (i0, i1, i2), else swap i1, i2. */
    if (ddot(normal, dsub(s->p[i3], s->p[i0])) > 0.0) {
        int tmp = i1;
        i1 = i2;
        i2 = tmp;
    }
    const int faces[4][3] = {{i0, i1, i2}, {i0, i3, i1}, {i1, i3, i2}, {i2, i3, i0}};
    for (int f = 0; f < 4; ++f) {
        if (tri_new(s, faces[f][0], faces[f][1], faces[f][2]) != f) {
            return ts_fail(TS_ERROR_OUT_OF_RANGE, fn, "the points are too close to degenerate to build a hull");
        }
    }
    for (int f = 0; f < 4; ++f) {
        for (int k = 0; k < 3; ++k) {
            int a = s->t[f].v[k], b = s->t[f].v[(k + 1) % 3];
            for (int g = 0; g < 4; ++g) {
                if (g != f && tri_edge(&s->t[g], b, a) >= 0) {
                    s->t[f].nb[k] = (int16_t)g;
                }
            }
        }
    }
    s->on_hull[i0] = s->on_hull[i1] = s->on_hull[i2] = s->on_hull[i3] = true;
    return TS_OK;
}

/* ---------------------------------------------------------------- adding points */

typedef struct horizon_edge {
    int tri;  /* the visible triangle */
    int edge; /* its edge whose neighbour is hidden */
} horizon_edge;

/* Adds point p, farthest outside triangle start: false when the horizon is
 * not one simple loop or a new triangle is degenerate. */
static bool add_point(qh_state *s, int p, int start)
{
    double tol = QH_VISIBLE_TOL * s->scale;
    bool visible[QH_MAX_TRIS];
    memset(visible, 0, sizeof(visible));
    int stack[QH_MAX_TRIS], seen[QH_MAX_TRIS];
    int top = 0, seen_count = 0;
    horizon_edge horizon[TS_HULL_MAX_VERTICES * 2];
    int horizon_count = 0;
    visible[start] = true;
    stack[top++] = start;
    seen[seen_count++] = start;
    while (top > 0) {
        int t = stack[--top];
        for (int k = 0; k < 3; ++k) {
            int u = s->t[t].nb[k];
            if (u < 0) {
                return false;
            }
            if (visible[u]) {
                continue;
            }
            if (tri_dist(s, u, p) > tol) {
                visible[u] = true;
                stack[top++] = u;
                seen[seen_count++] = u;
            } else {
                if (horizon_count == TS_HULL_MAX_VERTICES * 2) {
                    return false;
                }
                horizon[horizon_count++] = (horizon_edge){t, k};
            }
        }
    }
    /* A simple loop: every horizon vertex starts exactly one edge. */
    int by_start[TS_HULL_MAX_VERTICES], by_end[TS_HULL_MAX_VERTICES];
    for (int i = 0; i < TS_HULL_MAX_VERTICES; ++i) {
        by_start[i] = by_end[i] = -1;
    }
    int created[TS_HULL_MAX_VERTICES * 2];
    for (int h = 0; h < horizon_count; ++h) {
        const qh_tri *t = &s->t[horizon[h].tri];
        int a = t->v[horizon[h].edge], b = t->v[(horizon[h].edge + 1) % 3];
        if (by_start[a] >= 0 || by_end[b] >= 0) {
            return false;
        }
        by_start[a] = h;
        by_end[b] = h;
    }
    for (int h = 0; h < horizon_count; ++h) {
        const qh_tri *t = &s->t[horizon[h].tri];
        int a = t->v[horizon[h].edge], b = t->v[(horizon[h].edge + 1) % 3];
        if (by_start[b] < 0 || by_end[a] < 0) {
            return false; /* the loop is open */
        }
    }
    /* The visible triangles die (their slots are reused below). */
    for (int i = 0; i < seen_count; ++i) {
        s->t[seen[i]].alive = false;
    }
    int hidden[TS_HULL_MAX_VERTICES * 2];
    for (int h = 0; h < horizon_count; ++h) {
        hidden[h] = s->t[horizon[h].tri].nb[horizon[h].edge];
    }
    int edge_a[TS_HULL_MAX_VERTICES * 2], edge_b[TS_HULL_MAX_VERTICES * 2];
    for (int h = 0; h < horizon_count; ++h) {
        const qh_tri *t = &s->t[horizon[h].tri];
        edge_a[h] = t->v[horizon[h].edge];
        edge_b[h] = t->v[(horizon[h].edge + 1) % 3];
    }
    for (int i = 0; i < seen_count; ++i) {
        s->free_list[s->free_count++] = (int16_t)seen[i];
    }
    for (int h = 0; h < horizon_count; ++h) {
        created[h] = tri_new(s, edge_a[h], edge_b[h], p);
        if (created[h] < 0) {
            return false;
        }
    }
    for (int h = 0; h < horizon_count; ++h) {
        qh_tri *t = &s->t[created[h]];
        int a = edge_a[h], b = edge_b[h];
        t->nb[0] = (int16_t)hidden[h];
        t->nb[1] = (int16_t)created[by_start[b]]; /* across b -> p: the triangle of the edge starting at b */
        t->nb[2] = (int16_t)created[by_end[a]];   /* across p -> a: the triangle of the edge ending at a */
        qh_tri *u = &s->t[hidden[h]];
        int k = tri_edge(u, b, a);
        if (k < 0) {
            return false;
        }
        u->nb[k] = (int16_t)created[h];
    }
    s->on_hull[p] = true;
    return true;
}

static ts_result run_quickhull(qh_state *s, const char *fn)
{
    double tol = QH_VISIBLE_TOL * s->scale;
    for (;;) {
        int best_p = -1, best_t = -1;
        double best = tol;
        for (int i = 0; i < s->n; ++i) {
            if (s->on_hull[i]) {
                continue;
            }
            for (int t = 0; t < s->tri_count; ++t) {
                if (s->t[t].alive) {
                    double d = tri_dist(s, t, i);
                    if (d > best) {
                        best = d;
                        best_p = i;
                        best_t = t;
                    }
                }
            }
        }
        if (best_p < 0) {
            return TS_OK;
        }
        if (!add_point(s, best_p, best_t)) {
            return ts_fail(TS_ERROR_OUT_OF_RANGE, fn,
                           "the points are too close to degenerate to build a hull (point %d within rounding of "
                           "others); merge points closer than %g",
                           best_p, QH_MERGE_TOL * s->scale);
        }
    }
}

/* ---------------------------------------------------------------- polygon faces */

typedef struct qh_faces {
    int group[QH_MAX_TRIS];
    int group_count;
    dvec normal[TS_HULL_MAX_FACES];
    uint8_t loop[TS_HULL_MAX_FACES][TS_HULL_MAX_VERTICES];
    int loop_size[TS_HULL_MAX_FACES];
} qh_faces;

/* Triangles in one plane form groups, grown from the largest first. */
static bool group_triangles(const qh_state *s, qh_faces *f)
{
    double tol = QH_MERGE_TOL * s->scale;
    int order[QH_MAX_TRIS], count = 0;
    for (int t = 0; t < s->tri_count; ++t) {
        f->group[t] = -1;
        if (s->t[t].alive) {
            int i = count++; /* insertion by area, larger first, index order on ties */
            while (i > 0 && s->t[order[i - 1]].area2 < s->t[t].area2) {
                order[i] = order[i - 1];
                --i;
            }
            order[i] = t;
        }
    }
    f->group_count = 0;
    for (int o = 0; o < count; ++o) {
        int seed = order[o];
        if (f->group[seed] >= 0) {
            continue;
        }
        if (f->group_count == TS_HULL_MAX_FACES) {
            return false;
        }
        int g = f->group_count++;
        const qh_tri *st = &s->t[seed];
        int queue[QH_MAX_TRIS], head = 0, tail = 0;
        queue[tail++] = seed;
        f->group[seed] = g;
        dvec sum = dscale(st->area2, st->n);
        while (head < tail) {
            const qh_tri *t = &s->t[queue[head++]];
            for (int k = 0; k < 3; ++k) {
                int u = t->nb[k];
                if (f->group[u] >= 0 || ddot(s->t[u].n, st->n) < QH_MERGE_COS) {
                    continue;
                }
                bool flat = true;
                for (int j = 0; j < 3; ++j) {
                    flat = flat && fabs(ddot(st->n, s->p[s->t[u].v[j]]) - st->d) <= tol;
                }
                if (flat) {
                    f->group[u] = g;
                    queue[tail++] = u;
                    sum = (dvec){sum.x + s->t[u].area2 * s->t[u].n.x, sum.y + s->t[u].area2 * s->t[u].n.y,
                                 sum.z + s->t[u].area2 * s->t[u].n.z};
                }
            }
        }
        f->normal[g] = dscale(1.0 / dlen(sum), sum);
    }
    return true;
}

/* Each group's boundary as one loop; vertices with fewer than three faces
 * around them left out. */
static bool trace_loops(const qh_state *s, qh_faces *f)
{
    /* faces around each vertex */
    int face_seen[TS_HULL_MAX_VERTICES][3];
    int face_count[TS_HULL_MAX_VERTICES];
    for (int v = 0; v < s->n; ++v) {
        face_count[v] = 0;
    }
    for (int t = 0; t < s->tri_count; ++t) {
        if (!s->t[t].alive) {
            continue;
        }
        for (int k = 0; k < 3; ++k) {
            int v = s->t[t].v[k], g = f->group[t];
            bool known = false;
            for (int j = 0; j < face_count[v] && j < 3; ++j) {
                known = known || face_seen[v][j] == g;
            }
            if (!known) {
                if (face_count[v] < 3) {
                    face_seen[v][face_count[v]] = g;
                }
                face_count[v] += 1;
            }
        }
    }
    for (int g = 0; g < f->group_count; ++g) {
        int next[TS_HULL_MAX_VERTICES];
        int edges = 0, start = -1;
        for (int v = 0; v < TS_HULL_MAX_VERTICES; ++v) {
            next[v] = -1;
        }
        for (int t = 0; t < s->tri_count; ++t) {
            if (!s->t[t].alive || f->group[t] != g) {
                continue;
            }
            for (int k = 0; k < 3; ++k) {
                if (f->group[s->t[t].nb[k]] != g) {
                    int a = s->t[t].v[k], b = s->t[t].v[(k + 1) % 3];
                    if (next[a] >= 0) {
                        return false; /* not one loop */
                    }
                    next[a] = b;
                    ++edges;
                    if (start < 0 || a < start) {
                        start = a;
                    }
                }
            }
        }
        int walked = 0, size = 0, v = start;
        do {
            if (face_count[v] >= 3) {
                f->loop[g][size++] = (uint8_t)v;
            }
            v = next[v];
            ++walked;
        } while (v >= 0 && v != start && walked <= edges);
        if (v != start || walked != edges || size < 3) {
            return false;
        }
        f->loop_size[g] = size;
    }
    return true;
}

/* ---------------------------------------------------------------- half-edges */

static ts_result build_topology(const qh_state *s, const qh_faces *f, ts_hull_topology *out, const char *fn)
{
    int remap[TS_HULL_MAX_VERTICES];
    for (int v = 0; v < s->n; ++v) {
        remap[v] = -1;
    }
    out->vertex_count = 0;
    for (int g = 0; g < f->group_count; ++g) {
        for (int i = 0; i < f->loop_size[g]; ++i) {
            int v = f->loop[g][i];
            if (remap[v] < 0) {
                remap[v] = out->vertex_count;
                out->vertices[out->vertex_count++] = (ts_vec3){(float)s->p[v].x, (float)s->p[v].y, (float)s->p[v].z};
            }
        }
    }
    /* half-edge of directed edge a -> b, or -1 */
    static const int16_t none = -1;
    int16_t pair[TS_HULL_MAX_VERTICES][TS_HULL_MAX_VERTICES];
    for (int a = 0; a < TS_HULL_MAX_VERTICES; ++a) {
        for (int b = 0; b < TS_HULL_MAX_VERTICES; ++b) {
            pair[a][b] = none;
        }
    }
    int count = 0;
    bool used[TS_HULL_MAX_HALF_EDGES];
    out->face_count = f->group_count;
    for (int g = 0; g < f->group_count; ++g) {
        int n = f->loop_size[g];
        int first = -1, prev = -1;
        double offset = -INFINITY;
        for (int i = 0; i < n; ++i) {
            int a = remap[f->loop[g][i]], b = remap[f->loop[g][(i + 1) % n]];
            int h = pair[a][b];
            if (h == none) {
                if (count + 2 > TS_HULL_MAX_HALF_EDGES) {
                    return ts_fail(TS_ERROR_OUT_OF_RANGE, fn, "the hull has too many edges");
                }
                h = count;
                pair[a][b] = (int16_t)count;
                pair[b][a] = (int16_t)(count + 1);
                out->edges[count] = (ts_hull_edge){0, (uint16_t)(count + 1), (uint8_t)a, 0};
                out->edges[count + 1] = (ts_hull_edge){0, (uint16_t)count, (uint8_t)b, 0};
                used[count] = used[count + 1] = false;
                count += 2;
            } else if (used[h]) {
                return ts_fail(TS_ERROR_OUT_OF_RANGE, fn, "the hull's faces do not close (an edge used twice)");
            }
            used[h] = true;
            out->edges[h].face = (uint8_t)g;
            if (prev >= 0) {
                out->edges[prev].next = (uint16_t)h;
            } else {
                first = h;
            }
            prev = h;
            offset = fmax(offset, ddot(f->normal[g], s->p[f->loop[g][i]]));
        }
        out->edges[prev].next = (uint16_t)first;
        out->face_first[g] = (uint16_t)first;
        out->planes[g] = (ts_plane){{(float)f->normal[g].x, (float)f->normal[g].y, (float)f->normal[g].z},
                                    (float)offset};
    }
    out->edge_count = count;
    for (int h = 0; h < count; ++h) {
        if (!used[h]) {
            return ts_fail(TS_ERROR_OUT_OF_RANGE, fn, "the hull's faces do not close (an edge with one face)");
        }
    }
    if (out->vertex_count - count / 2 + out->face_count != 2) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, fn, "the hull is not a closed polyhedron (V %d, E %d, F %d)",
                       out->vertex_count, count / 2, out->face_count);
    }
    return TS_OK;
}

/* Every input point under every face plane (within QH_CHECK_TOL). */
static ts_result check_containment(const qh_state *s, const ts_hull_topology *h, const char *fn)
{
    double tol = QH_CHECK_TOL * s->scale;
    for (int f = 0; f < h->face_count; ++f) {
        dvec n = {h->planes[f].normal.x, h->planes[f].normal.y, h->planes[f].normal.z};
        for (int i = 0; i < s->n; ++i) {
            if (ddot(n, s->p[i]) - h->planes[f].offset > tol) {
                return ts_fail(TS_ERROR_OUT_OF_RANGE, fn,
                               "the points are too close to degenerate to build a hull (point %d is outside it)", i);
            }
        }
    }
    return TS_OK;
}

ts_result ts_hull_compute(const ts_vec3 *points, int count, ts_hull_topology *out, const char *fn)
{
    if (points == NULL) {
        return ts_fail(TS_ERROR_NULL_POINTER, fn, "points is NULL");
    }
    if (count < 4) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, fn, "point_count is %d (a hull needs at least 4 points)", count);
    }
    if (count > TS_HULL_MAX_VERTICES) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, fn, "point_count is %d (a hull takes at most %d points)", count,
                       TS_HULL_MAX_VERTICES);
    }
    for (int i = 0; i < count; ++i) {
        if (!ts_vec3_is_finite(points[i])) {
            return ts_fail(TS_ERROR_NOT_FINITE, fn, "points[%d] has a NaN or infinite component (%g, %g, %g)", i,
                           (double)points[i].x, (double)points[i].y, (double)points[i].z);
        }
    }
    qh_state *s = &(qh_state){0};
    s->n = count;
    for (int i = 0; i < count; ++i) {
        s->p[i] = (dvec){points[i].x, points[i].y, points[i].z};
    }
    TS_TRY(initial_simplex(s, fn));
    TS_TRY(run_quickhull(s, fn));
    qh_faces faces;
    if (!group_triangles(s, &faces) || !trace_loops(s, &faces)) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, fn,
                       "the points are too close to degenerate to build a hull (its coplanar faces do not merge into "
                       "convex polygons)");
    }
    TS_TRY(build_topology(s, &faces, out, fn));
    return check_containment(s, out, fn);
}
