/* tessera: the edge pairs of the hull-hull separating axis test
 * (collide_hull.c): all of them, or only those that can beat a given
 * separation (the pairs near the line between the two centroids).
 *
 * Why the near pairs suffice. Let n be the axis of an edge pair that forms a
 * face of the Minkowski difference, pointing from A to B. A's edge is then
 * A's support along n and B's edge B's support along -n, and the pair's
 * separation is s = min over B of n . x - max over A of n . x. A holds the
 * ball of radius rho_A (inner_radius, hull.h) about its centroid c_A, B the
 * ball rho_B about c_B, so max_A n . x >= n . c_A + rho_A and
 * min_B n . x <= n . c_B - rho_B, hence
 *
 *     n . (c_B - c_A) >= rho_A + rho_B + s.
 *
 * A pair with s >= floor has its axis in the cap of directions within
 * angle acos(kappa) of u = (c_B - c_A) / D, kappa = (rho_A + rho_B +
 * floor) / D. The axis lies on the edge's arc on the Gauss map (between its
 * two faces' normals; for B the negated ones), so only edges whose arc
 * reaches into the cap can take part. Two hulls that touch have kappa near
 * 0.9 (a cap of ~25 degrees): a tenth of each hull's edges, a hundredth of
 * the pairs. The pairs are visited in the full loop's order, so any pair
 * above floor, and the best of them, come out the same as from the full
 * loop (what collide_hull.c uses them for). */
#include "collide/collide_hull.h"

#include <simde/x86/sse.h>

/* Below this kappa (a cap wider than ~84 degrees) the full loop is as cheap. */
#define TSN_EDGE_NEAR_MIN_COS 0.1f

/* One edge of B in A's frame: its faces' negated normals c, d (the
 * Minkowski difference A - B), d x c, a point and its vector. */
typedef struct edge_b {
    ts_vec3 c, d, dxc, p, e;
} edge_b;

/* B's edge k (half-edge 2k) in A's frame. */
static edge_b edge_of_b(const ts_hull_data *b, const tsn_mat3 *r, ts_vec3 t, int k)
{
    const ts_hull_edge *e = &b->edges[2 * k];
    const ts_hull_edge *tw = &b->edges[2 * k + 1];
    edge_b eb;
    eb.c = ts_neg(tsn_mul_mv(r, b->planes[e->face].normal));
    eb.d = ts_neg(tsn_mul_mv(r, b->planes[tw->face].normal));
    eb.dxc = ts_cross(eb.d, eb.c);
    eb.p = ts_add(tsn_mul_mv(r, b->vertices[e->origin]), t);
    eb.e = tsn_mul_mv(r, ts_sub(b->vertices[tw->origin], b->vertices[e->origin]));
    return eb;
}

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

/* Edge pairs, all of them, in A's frame: for each edge of B, A's edges four at a time
 * from A's edge columns (hull.h). A pair can give the axis of least
 * penetration only when the two edges' arcs on the Gauss map cross: with
 * a, b the normals of A's edge's faces and c, d the negated normals of B's,
 *     cba = c . (b x a), dba = d . (b x a), adc = a . (d x c), bdc = b . (d x c),
 * the great circle through each arc separates the other arc's ends
 * (cba dba < 0, adc bdc < 0) and the arcs lie in one hemisphere
 * (cba bdc > 0). The test runs on four lanes at once; the few pairs that
 * pass get their axis and separation one by one, in lane order, so the
 * result does not depend on the lanes. */
tsn_sat_result tsn_hull_query_edges(const ts_hull_data *a, const ts_hull_data *b, const tsn_mat3 *r, ts_vec3 t)
{
    tsn_sat_result q = {-FLT_MAX, -1, -1, ts_v3(0.0f, 0.0f, 0.0f), false};
    const float *col = a->edge_columns;
    int n = a->edge_padded;
    const simde__m128 zero = simde_mm_setzero_ps();
    for (int k = 0; k < b->edge_count / 2; ++k) {
        edge_b eb = edge_of_b(b, r, t, k);
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

/* Lists (ascending) the unique edges of h whose arc on the Gauss map, from
 * a, the normal of half-edge 2k's face, to b, its twin's, reaches within
 * kappa of the unit direction u (some x on the arc with u . x >= kappa).
 * The largest u . x on the arc is max(u . a, u . b) at an end, or, where
 * u's foot on the arc's great circle falls inside the arc, the length of
 * u's part in that plane: sqrt(1 - (u . w)^2 / |w|^2), w = b x a. The foot
 * is inside when (a x u) . (a x b) = u . b - (a . b)(u . a) >= 0 and
 * (u x b) . (a x b) = u . a - (a . b)(u . b) >= 0 (unit a, b). Four edges
 * at a time; returns the count. */
static int edges_near(const ts_hull_data *h, ts_vec3 u, float kappa, uint8_t *out)
{
    const float *col = h->edge_columns;
    const int n = h->edge_padded;
    const int count = h->edge_count / 2;
    const simde__m128 ux = simde_mm_set1_ps(u.x), uy = simde_mm_set1_ps(u.y), uz = simde_mm_set1_ps(u.z);
    const simde__m128 k = simde_mm_set1_ps(kappa), room = simde_mm_set1_ps(1.0f - kappa * kappa);
    const simde__m128 zero = simde_mm_setzero_ps();
    int m = 0;
    for (int i = 0; i < n; i += 4) {
        simde__m128 ax = simde_mm_loadu_ps(col + TS_EDGE_UX * n + i);
        simde__m128 ay = simde_mm_loadu_ps(col + (TS_EDGE_UX + 1) * n + i);
        simde__m128 az = simde_mm_loadu_ps(col + (TS_EDGE_UX + 2) * n + i);
        simde__m128 bx = simde_mm_loadu_ps(col + TS_EDGE_VX * n + i);
        simde__m128 by = simde_mm_loadu_ps(col + (TS_EDGE_VX + 1) * n + i);
        simde__m128 bz = simde_mm_loadu_ps(col + (TS_EDGE_VX + 2) * n + i);
        simde__m128 wx = simde_mm_loadu_ps(col + TS_EDGE_BX * n + i);
        simde__m128 wy = simde_mm_loadu_ps(col + (TS_EDGE_BX + 1) * n + i);
        simde__m128 wz = simde_mm_loadu_ps(col + (TS_EDGE_BX + 2) * n + i);
        simde__m128 ua = simde_mm_add_ps(simde_mm_add_ps(simde_mm_mul_ps(ux, ax), simde_mm_mul_ps(uy, ay)),
                                         simde_mm_mul_ps(uz, az));
        simde__m128 ub = simde_mm_add_ps(simde_mm_add_ps(simde_mm_mul_ps(ux, bx), simde_mm_mul_ps(uy, by)),
                                         simde_mm_mul_ps(uz, bz));
        simde__m128 ab = simde_mm_add_ps(simde_mm_add_ps(simde_mm_mul_ps(ax, bx), simde_mm_mul_ps(ay, by)),
                                         simde_mm_mul_ps(az, bz));
        simde__m128 uw = simde_mm_add_ps(simde_mm_add_ps(simde_mm_mul_ps(ux, wx), simde_mm_mul_ps(uy, wy)),
                                         simde_mm_mul_ps(uz, wz));
        simde__m128 ww = simde_mm_add_ps(simde_mm_add_ps(simde_mm_mul_ps(wx, wx), simde_mm_mul_ps(wy, wy)),
                                         simde_mm_mul_ps(wz, wz));
        simde__m128 at_end = simde_mm_cmpge_ps(simde_mm_max_ps(ua, ub), k);
        simde__m128 inside = simde_mm_and_ps(simde_mm_cmpge_ps(simde_mm_sub_ps(ub, simde_mm_mul_ps(ab, ua)), zero),
                                             simde_mm_cmpge_ps(simde_mm_sub_ps(ua, simde_mm_mul_ps(ab, ub)), zero));
        inside = simde_mm_and_ps(inside, simde_mm_cmple_ps(simde_mm_mul_ps(uw, uw), simde_mm_mul_ps(room, ww)));
        unsigned mask = (unsigned)simde_mm_movemask_ps(simde_mm_or_ps(at_end, inside));
        for (int lane = 0; lane < 4; ++lane) {
            if ((mask >> lane) & 1u && i + lane < count) {
                out[m++] = (uint8_t)(i + lane);
            }
        }
    }
    return m;
}

tsn_sat_result tsn_hull_query_edges_above(const ts_hull_data *a, const ts_hull_data *b, const tsn_mat3 *r, ts_vec3 t,
                                          float floor)
{
    ts_vec3 cb = ts_add(tsn_mul_mv(r, b->centroid), t);
    ts_vec3 d = ts_sub(cb, a->centroid);
    float dist = ts_length(d);
    float reach = a->inner_radius + b->inner_radius + floor - TSN_HULL_BOUND_SLACK * (a->radius + b->radius);
    if (!(dist > 0.0f) || !(reach > TSN_EDGE_NEAR_MIN_COS * dist)) {
        return tsn_hull_query_edges(a, b, r, t);
    }
    float kappa = reach / dist;
    ts_vec3 u = ts_scale(1.0f / dist, d);
    tsn_sat_result q = {-FLT_MAX, -1, -1, ts_v3(0.0f, 0.0f, 0.0f), false};
    uint8_t near_a[TS_HULL_MAX_HALF_EDGES / 2 + 4], near_b[TS_HULL_MAX_HALF_EDGES / 2 + 4];
    int count_a = edges_near(a, u, kappa, near_a);
    if (count_a == 0) {
        return q;
    }
    /* B's edge supports B along -n: its arc, in B's frame, reaches -R^T u's cap */
    int count_b = edges_near(b, ts_neg(tsn_mul_tv(r, u)), kappa, near_b);
    const float *col = a->edge_columns;
    const int n = a->edge_padded;
    for (int jb = 0; jb < count_b; ++jb) {
        int k = near_b[jb];
        edge_b eb = edge_of_b(b, r, t, k);
        for (int ja = 0; ja < count_a; ++ja) {
            int i = near_a[ja];
            /* the Gauss map test of tsn_hull_query_edges, in its order of operations */
            float bx = col[TS_EDGE_BX * n + i], by = col[(TS_EDGE_BX + 1) * n + i], bz = col[(TS_EDGE_BX + 2) * n + i];
            float cba = (eb.c.x * bx + eb.c.y * by) + eb.c.z * bz;
            float dba = (eb.d.x * bx + eb.d.y * by) + eb.d.z * bz;
            if (!(cba * dba < 0.0f)) {
                continue;
            }
            float adc = (col[TS_EDGE_UX * n + i] * eb.dxc.x + col[(TS_EDGE_UX + 1) * n + i] * eb.dxc.y) +
                        col[(TS_EDGE_UX + 2) * n + i] * eb.dxc.z;
            float bdc = (col[TS_EDGE_VX * n + i] * eb.dxc.x + col[(TS_EDGE_VX + 1) * n + i] * eb.dxc.y) +
                        col[(TS_EDGE_VX + 2) * n + i] * eb.dxc.z;
            if (!(adc * bdc < 0.0f) || !(cba * bdc > 0.0f)) {
                continue;
            }
            ts_vec3 axis;
            float sep = edge_pair_separation(a, i, &eb, &axis);
            if (sep > q.separation) {
                q.separation = sep;
                q.index_a = 2 * i;
                q.index_b = 2 * k;
                q.normal = axis;
                q.valid = true;
            }
        }
    }
    return q;
}
