/* Exact mass properties of a convex polyhedron (see hull_build.h).
 *
 * The solid is cut into tetrahedra (r, a, b, c): r a reference point inside
 * (the mean of the vertices), a b c a fan of each face. In coordinates
 * relative to r a tetrahedron (0, a, b, c) has
 *     volume        V = det[a b c] / 6,
 *     first moment  V (a + b + c) / 4,
 *     second moment integral(x x^T) dV = V / 20 (a a^T + b b^T + c c^T + s s^T), s = a + b + c
 * (the covariance of a tetrahedron, e.g. Blow and Binstock 2004). The sums
 * give the volume, the centroid and the covariance C about r; moved to the
 * centroid, C' = C - V c c^T, and the inertia tensor is trace(C') E - C'.
 * Sums in double: a float sum of thousands of terms would lose the 1e-5 the
 * tests hold it to. */
#include "collide/hull_build.h"

void ts_hull_mass_properties(const ts_hull_topology *h, float *volume, ts_vec3 *centroid, float inertia[6])
{
    double r[3] = {0.0, 0.0, 0.0};
    for (int v = 0; v < h->vertex_count; ++v) {
        r[0] += h->vertices[v].x;
        r[1] += h->vertices[v].y;
        r[2] += h->vertices[v].z;
    }
    for (int k = 0; k < 3; ++k) {
        r[k] /= h->vertex_count;
    }
    double vol = 0.0;
    double first[3] = {0.0, 0.0, 0.0};
    double cov[3][3] = {{0.0}};
    for (int f = 0; f < h->face_count; ++f) {
        int e0 = h->face_first[f];
        const ts_vec3 *p0 = &h->vertices[h->edges[e0].origin];
        double a[3] = {p0->x - r[0], p0->y - r[1], p0->z - r[2]};
        for (int e = h->edges[e0].next; h->edges[e].next != e0; e = h->edges[e].next) {
            const ts_vec3 *p1 = &h->vertices[h->edges[e].origin];
            const ts_vec3 *p2 = &h->vertices[h->edges[h->edges[e].next].origin];
            double b[3] = {p1->x - r[0], p1->y - r[1], p1->z - r[2]};
            double c[3] = {p2->x - r[0], p2->y - r[1], p2->z - r[2]};
            double det = a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
                         a[2] * (b[0] * c[1] - b[1] * c[0]);
            double tv = det / 6.0;
            double s[3] = {a[0] + b[0] + c[0], a[1] + b[1] + c[1], a[2] + b[2] + c[2]};
            vol += tv;
            for (int i = 0; i < 3; ++i) {
                first[i] += tv * s[i] / 4.0;
                for (int j = 0; j < 3; ++j) {
                    cov[i][j] += tv / 20.0 * (a[i] * a[j] + b[i] * b[j] + c[i] * c[j] + s[i] * s[j]);
                }
            }
        }
    }
    double cr[3] = {first[0] / vol, first[1] / vol, first[2] / vol};
    double cc[3][3];
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            cc[i][j] = cov[i][j] - vol * cr[i] * cr[j];
        }
    }
    double trace = cc[0][0] + cc[1][1] + cc[2][2];
    *volume = (float)vol;
    *centroid = (ts_vec3){(float)(r[0] + cr[0]), (float)(r[1] + cr[1]), (float)(r[2] + cr[2])};
    inertia[0] = (float)(trace - cc[0][0]);
    inertia[1] = (float)(trace - cc[1][1]);
    inertia[2] = (float)(trace - cc[2][2]);
    inertia[3] = (float)(-cc[0][1]);
    inertia[4] = (float)(-cc[0][2]);
    inertia[5] = (float)(-cc[1][2]);
}
