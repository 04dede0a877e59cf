/* tessera: narrowphase pairs with a sphere as shape A: sphere-sphere,
 * sphere-capsule and sphere-box. Each gives at most one point; its feature id
 * is 0 (one round feature pair). */
#include "collide/collide_math.h"
#include "collide/narrowphase.h"

/* Two spheres: the closest points of the cores are the centres.
 * Coincident centres: the normal is +y (fixed, documented). */
void ts_collide_spheres(const ts_sphere *a, ts_transform xfa, const ts_sphere *b, ts_transform xfb, float margin,
                        ts_manifold *m)
{
    tsn_round_contact(xfa.p, a->radius, xfb.p, b->radius, ts_v3(0.0f, 1.0f, 0.0f), margin, 0u, m);
}

/* Sphere against capsule: the capsule core is a segment, so its closest point to
 * the sphere centre is the clamped projection onto the segment.
 * Centre on the segment: the normal is the capsule's local +x axis, which is
 * perpendicular to the segment, so the push-out is a shortest one. */
void ts_collide_sphere_capsule(const ts_sphere *a, ts_transform xfa, const ts_capsule *b, ts_transform xfb,
                               float margin, ts_manifold *m)
{
    ts_vec3 b0, b1;
    tsn_capsule_segment(b->half_height, xfb, &b0, &b1);
    ts_vec3 closest = tsn_closest_on_segment(b0, b1, xfa.p);
    ts_vec3 fallback = ts_rotate(xfb.q, ts_v3(1.0f, 0.0f, 0.0f));
    tsn_round_contact(xfa.p, a->radius, closest, b->radius, fallback, margin, 0u, m);
}

/* Sphere against box, in the box frame (c = sphere centre, h = half extents).
 * Outside: the closest box point is q = clamp(c, -h, h); the box's outward
 * normal is (c - q) / |c - q| and the separation |c - q| - r.
 * Inside or on the surface (q == c): push out through the face of least
 * penetration: depth_k = h_k - |c_k|, pick the smallest (lowest axis on ties),
 * normal sign(c_k) e_k (+ when c_k == 0), separation -depth_k - r.
 * The point is midway between the box point and the sphere point c - r n_out.
 * The manifold normal points from the sphere (A) to the box (B): -n_out. */
void ts_collide_sphere_box(const ts_sphere *a, ts_transform xfa, const ts_box *b, ts_transform xfb, float margin,
                           ts_manifold *m)
{
    m->point_count = 0;
    float r = a->radius;
    float c[3], h[3], q[3];
    tsn_to_array(ts_inv_transform_point(xfb, xfa.p), c);
    tsn_to_array(b->half_extents, h);
    for (int k = 0; k < 3; ++k) {
        q[k] = tsn_clampf(c[k], -h[k], h[k]);
    }
    ts_vec3 cl = tsn_from_array(c);
    ts_vec3 d = ts_sub(cl, tsn_from_array(q));
    float dist_sq = ts_dot(d, d);

    ts_vec3 n_out;
    float separation;
    if (dist_sq > TSN_TINY_SQ) {
        float dist = sqrtf(dist_sq);
        separation = dist - r;
        n_out = ts_scale(1.0f / dist, d);
    } else {
        int best = 0;
        float best_depth = h[0] - fabsf(c[0]);
        for (int k = 1; k < 3; ++k) {
            float depth = h[k] - fabsf(c[k]);
            if (depth < best_depth) {
                best_depth = depth;
                best = k;
            }
        }
        float s = tsn_signf(c[best]);
        float nn[3] = {0.0f, 0.0f, 0.0f};
        nn[best] = s;
        n_out = tsn_from_array(nn);
        q[best] = s * h[best];
        separation = -best_depth - r;
    }
    if (!(separation < margin)) {
        return;
    }
    ts_vec3 sphere_point = ts_mul_add(cl, -r, n_out);
    ts_vec3 mid = ts_scale(0.5f, ts_add(tsn_from_array(q), sphere_point));
    m->normal = ts_neg(ts_rotate(xfb.q, n_out));
    tsn_set_point(&m->points[0], ts_transform_point(xfb, mid), separation, 0u);
    m->point_count = 1;
}
