/* The ray tests, written once against the lane vocabulary (base/wide.h):
 * one ray against TS_W boxes of a tree or TS_W shapes at once. The
 * single-ray queries run them at TS_W = 1 (ray_cast.c, dynamic_tree_ray.c),
 * the batched ones at every width (ray_batch_wide.c); the operations are
 * the same lane by lane, so every width gives the same bits.
 *
 * Every test returns, per lane, the distance t of the hit (+inf for none)
 * along the ray's unit direction, within [0, length].
 *
 * Rule for rays that start inside a shape: a shape is hit where the ray
 * enters it. A ray whose origin is inside a shape never enters it and does
 * not hit it; an origin on the surface counts as outside, so a ray from
 * there into the shape hits at t = 0 (and one leaving it does not hit).
 *
 * The proxy-box rule: a shape counts as hit only when the ray also passes
 * its proxy's box (the fat box of the broadphase tree) over [0, length],
 * entering it no later than the shape. Mathematically the box holds the
 * shape, so this changes nothing; in floats it makes the set of shapes a
 * query can report a function of the ray and each shape alone, whatever
 * tree holds them and in whatever order they are visited: a tree node that
 * holds a hit shape's box is entered no later than that box (the slab test
 * is monotone in the box), so cutting nodes that are entered after the best
 * hit so far never cuts a shape that would win (ray_cast.c, ray_batch.c).
 *
 * Closest hits are ordered by (t, shape index): a tie goes to the lower
 * index, so the closest hit does not depend on the visiting order either. */
#ifndef TS_COLLIDE_RAY_LANES_H
#define TS_COLLIDE_RAY_LANES_H

#include "base/wide.h"
#include "collide/ray.h"

#include <math.h>

/* The ray's constants in every lane. */
typedef struct ts_ray_lanes {
    ts_wv3 origin;
    ts_wv3 direction;
    ts_wv3 inverse;
    ts_wf length;
} ts_ray_lanes;

static inline ts_wv3 ts_wv3_splat(ts_vec3 v) { return (ts_wv3){ts_w_splat(v.x), ts_w_splat(v.y), ts_w_splat(v.z)}; }

static inline ts_ray_lanes ts_ray_lanes_of(const ts_ray *ray)
{
    return (ts_ray_lanes){ts_wv3_splat(ray->origin), ts_wv3_splat(ray->direction), ts_wv3_splat(ray->inverse),
                          ts_w_splat(ray->length)};
}

static inline ts_wf ts_ray_abs(ts_wf a) { return ts_w_max(a, ts_w_neg(a)); }

/* ---- boxes of a tree (axis aligned) ---- */

/* One axis of the slab test: the ray is inside [lo, hi] for t in
 * [near, far]. A parallel axis is inside for every t or for none. */
TS_FORCE_INLINE void ts_ray_slab_axis(ts_wf lo, ts_wf hi, ts_wf origin, ts_wf inverse, bool parallel, ts_wf *near,
                                      ts_wf *far)
{
    ts_wf inf = ts_w_splat(INFINITY);
    if (parallel) {
        ts_wm inside = ts_w_and(ts_w_ge(origin, lo), ts_w_ge(hi, origin));
        *near = ts_w_select(inside, ts_w_neg(inf), inf);
        *far = ts_w_select(inside, inf, ts_w_neg(inf));
        return;
    }
    ts_wf t1 = ts_w_mul(ts_w_sub(lo, origin), inverse);
    ts_wf t2 = ts_w_mul(ts_w_sub(hi, origin), inverse);
    *near = ts_w_min(t1, t2);
    *far = ts_w_max(t1, t2);
}

/* Lanes whose box [lo, hi] the ray passes for some t in [0, max]; *enter is
 * where it enters, clipped to 0 (the order in which to visit them). */
TS_FORCE_INLINE ts_wm ts_ray_slab(const ts_ray *ray, const ts_ray_lanes *r, ts_wv3 lo, ts_wv3 hi, ts_wf max,
                                  ts_wf *enter)
{
    ts_wf nx, fx, ny, fy, nz, fz;
    ts_ray_slab_axis(lo.x, hi.x, r->origin.x, r->inverse.x, (ray->parallel & 1u) != 0, &nx, &fx);
    ts_ray_slab_axis(lo.y, hi.y, r->origin.y, r->inverse.y, (ray->parallel & 2u) != 0, &ny, &fy);
    ts_ray_slab_axis(lo.z, hi.z, r->origin.z, r->inverse.z, (ray->parallel & 4u) != 0, &nz, &fz);
    ts_wf near = ts_w_max(ts_w_max(ts_w_max(nx, ny), nz), ts_w_zero());
    ts_wf far = ts_w_min(ts_w_min(ts_w_min(fx, fy), fz), max);
    *enter = near;
    return ts_w_ge(far, near);
}

/* ---- shapes ---- */

/* Rotation columns of lanes (a shape's axes in the world). */
typedef struct ts_ray_axes {
    ts_wv3 col[3];
} ts_ray_axes;

/* v in the shape's frame: (col_i . v). */
TS_FORCE_INLINE ts_wv3 ts_ray_to_local(const ts_ray_axes *a, ts_wv3 v)
{
    return (ts_wv3){ts_wv3_dot(a->col[0], v), ts_wv3_dot(a->col[1], v), ts_wv3_dot(a->col[2], v)};
}

/* A local direction in the world: sum of n_i col_i. */
TS_FORCE_INLINE ts_wv3 ts_ray_to_world(const ts_ray_axes *a, ts_wv3 n)
{
    return ts_wv3_add(ts_wv3_add(ts_wv3_scale(n.x, a->col[0]), ts_wv3_scale(n.y, a->col[1])),
                      ts_wv3_scale(n.z, a->col[2]));
}

TS_FORCE_INLINE ts_wv3 ts_ray_normalize(ts_wv3 v)
{
    ts_wf inv = ts_w_div(ts_w_splat(1.0f), ts_w_sqrt(ts_wv3_dot(v, v)));
    return ts_wv3_scale(inv, v);
}

/* Entry into a sphere of radius r about the point m away from the origin
 * (m = origin - centre), direction d (unit). With b = m.d and
 * c = m.m - r^2 the roots of t^2 + 2 b t + c = 0 are the crossings. The
 * discriminant b^2 - c is formed as r^2 - |m - b d|^2 (the squared
 * distance of the centre from the line subtracted from r^2), which does not
 * cancel for far rays; the entry is c / (-b + sqrt(disc)), the smaller root
 * written so that nothing cancels either. Hit when the origin is outside or
 * on the sphere (c >= 0) and moving towards it (b < 0). */
TS_FORCE_INLINE ts_wf ts_ray_sphere_entry(ts_wv3 m, ts_wv3 d, ts_wf r, ts_wf length)
{
    ts_wf zero = ts_w_zero();
    ts_wf b = ts_wv3_dot(m, d);
    ts_wf rr = ts_w_mul(r, r);
    ts_wf c = ts_w_sub(ts_wv3_dot(m, m), rr);
    ts_wv3 f = ts_wv3_mul_sub(m, b, d);
    ts_wf disc = ts_w_sub(rr, ts_wv3_dot(f, f));
    ts_wm hit = ts_w_and(ts_w_and(ts_w_ge(c, zero), ts_w_gt(zero, b)), ts_w_ge(disc, zero));
    ts_wf q = ts_w_add(ts_w_neg(b), ts_w_sqrt(ts_w_max(disc, zero)));
    ts_wf t = ts_w_div(c, q);
    hit = ts_w_and(hit, ts_w_ge(length, t));
    return ts_w_select(hit, t, ts_w_splat(INFINITY));
}

/* Spheres at centre c, radius r. */
TS_FORCE_INLINE ts_wf ts_ray_sphere_lanes(const ts_ray_lanes *ray, ts_wv3 c, ts_wf r, ts_wv3 *normal)
{
    ts_wv3 m = ts_wv3_sub(ray->origin, c);
    ts_wf t = ts_ray_sphere_entry(m, ray->direction, r, ray->length);
    *normal = ts_ray_normalize(ts_wv3_mul_add(m, t, ray->direction));
    return t;
}

/* Boxes at centre c with axes a and half extents h, tested in their frame
 * (p: the origin, q: the direction there). Per axis the slab gives the
 * interval [near, far]; the ray enters at the largest near, through the face
 * of that axis on the side it comes from (normal -sign(q_i) axis i; on a tie
 * at an edge or corner the lowest axis). An axis along which the direction
 * is below TS_RAY_PARALLEL is inside for all t (|p_i| <= h_i) or never. */
TS_FORCE_INLINE ts_wf ts_ray_box_lanes(const ts_ray_lanes *ray, ts_wv3 c, const ts_ray_axes *a, ts_wv3 h,
                                       ts_wv3 *normal)
{
    ts_wf zero = ts_w_zero(), one = ts_w_splat(1.0f), inf = ts_w_splat(INFINITY);
    ts_wf tiny = ts_w_splat(TS_RAY_PARALLEL);
    ts_wv3 p = ts_ray_to_local(a, ts_wv3_sub(ray->origin, c));
    ts_wv3 q = ts_ray_to_local(a, ray->direction);
    ts_wf pv[3] = {p.x, p.y, p.z}, qv[3] = {q.x, q.y, q.z}, hv[3] = {h.x, h.y, h.z};
    ts_wf near[3], far[3], sign[3];
    for (int i = 0; i < 3; ++i) {
        ts_wf inv = ts_w_div(one, qv[i]);
        ts_wf t1 = ts_w_mul(ts_w_sub(ts_w_neg(hv[i]), pv[i]), inv);
        ts_wf t2 = ts_w_mul(ts_w_sub(hv[i], pv[i]), inv);
        ts_wm parallel = ts_w_gt(tiny, ts_ray_abs(qv[i]));
        ts_wm inside = ts_w_ge(hv[i], ts_ray_abs(pv[i]));
        near[i] = ts_w_select(parallel, ts_w_select(inside, ts_w_neg(inf), inf), ts_w_min(t1, t2));
        far[i] = ts_w_select(parallel, ts_w_select(inside, inf, ts_w_neg(inf)), ts_w_max(t1, t2));
        sign[i] = ts_w_select(ts_w_gt(qv[i], zero), ts_w_neg(one), one);
    }
    ts_wf enter = ts_w_max(ts_w_max(near[0], near[1]), near[2]);
    ts_wf exit = ts_w_min(ts_w_min(far[0], far[1]), far[2]);
    ts_wm hit = ts_w_and(ts_w_and(ts_w_ge(enter, zero), ts_w_ge(exit, enter)), ts_w_ge(ray->length, enter));
    ts_wv3 n = ts_wv3_scale(sign[2], a->col[2]);
    n = ts_wv3_select(ts_w_ge(near[1], enter), ts_wv3_scale(sign[1], a->col[1]), n);
    n = ts_wv3_select(ts_w_ge(near[0], enter), ts_wv3_scale(sign[0], a->col[0]), n);
    *normal = n;
    return ts_w_select(hit, enter, inf);
}

/* Capsules at centre c with axes a (the segment along axis 1), half height
 * hh and radius r, in their frame. The ray enters the union of the finite
 * cylinder and the two end spheres at the first entry into any of them
 * (its origin is outside all three when it is outside the capsule):
 * - the side: (p_x + t q_x)^2 + (p_z + t q_z)^2 = r^2 with |y| <= hh at the
 *   entry, solved as the sphere's quadratic (k = q_x^2 + q_z^2 scales it:
 *   disc / k = r^2 - |f|^2, f the xz offset of the line from the axis), and
 *   only from outside the infinite cylinder;
 * - the ends: the sphere entry above.
 * An origin strictly inside the capsule (closer than r to the segment)
 * gives no hit. Ties between the pieces go to the side, then the top. */
TS_FORCE_INLINE ts_wf ts_ray_capsule_lanes(const ts_ray_lanes *ray, ts_wv3 c, const ts_ray_axes *a, ts_wf hh, ts_wf r,
                                           ts_wv3 *normal)
{
    ts_wf zero = ts_w_zero(), inf = ts_w_splat(INFINITY);
    ts_wv3 p = ts_ray_to_local(a, ts_wv3_sub(ray->origin, c));
    ts_wv3 q = ts_ray_to_local(a, ray->direction);
    ts_wf rr = ts_w_mul(r, r);
    /* the origin's squared distance from the segment */
    ts_wf dy = ts_w_sub(p.y, ts_w_min(ts_w_max(p.y, ts_w_neg(hh)), hh));
    ts_wf dist = ts_w_add(ts_w_add(ts_w_mul(p.x, p.x), ts_w_mul(dy, dy)), ts_w_mul(p.z, p.z));
    ts_wm outside = ts_w_ge(dist, rr);

    ts_wf k = ts_w_add(ts_w_mul(q.x, q.x), ts_w_mul(q.z, q.z));
    ts_wf b = ts_w_add(ts_w_mul(p.x, q.x), ts_w_mul(p.z, q.z));
    ts_wf cc = ts_w_sub(ts_w_add(ts_w_mul(p.x, p.x), ts_w_mul(p.z, p.z)), rr);
    ts_wm side = ts_w_and(ts_w_and(ts_w_gt(k, ts_w_splat(1.0e-12f)), ts_w_ge(cc, zero)), ts_w_gt(zero, b));
    ts_wf s = ts_w_div(b, ts_w_max(k, ts_w_splat(1.0e-12f)));
    ts_wf fx = ts_w_sub(p.x, ts_w_mul(s, q.x));
    ts_wf fz = ts_w_sub(p.z, ts_w_mul(s, q.z));
    ts_wf disc = ts_w_sub(rr, ts_w_add(ts_w_mul(fx, fx), ts_w_mul(fz, fz)));
    side = ts_w_and(side, ts_w_ge(disc, zero));
    ts_wf root = ts_w_add(ts_w_neg(b), ts_w_sqrt(ts_w_mul(k, ts_w_max(disc, zero))));
    ts_wf t_side = ts_w_div(cc, root);
    ts_wf y = ts_w_add(p.y, ts_w_mul(t_side, q.y));
    side = ts_w_and(side, ts_w_ge(hh, ts_ray_abs(y)));
    t_side = ts_w_select(side, t_side, inf);

    ts_wv3 top = {p.x, ts_w_sub(p.y, hh), p.z};
    ts_wv3 bottom = {p.x, ts_w_add(p.y, hh), p.z};
    ts_wf t_top = ts_ray_sphere_entry(top, q, r, inf);
    ts_wf t_bottom = ts_ray_sphere_entry(bottom, q, r, inf);
    ts_wf t = ts_w_min(t_side, ts_w_min(t_top, t_bottom));
    ts_wm hit = ts_w_and(outside, ts_w_ge(ray->length, t));

    ts_wv3 n_side = {ts_w_add(p.x, ts_w_mul(t, q.x)), zero, ts_w_add(p.z, ts_w_mul(t, q.z))};
    ts_wv3 n = ts_wv3_mul_add(bottom, t, q);
    n = ts_wv3_select(ts_w_ge(t, t_top), ts_wv3_mul_add(top, t, q), n);
    n = ts_wv3_select(ts_w_ge(t, t_side), n_side, n);
    *normal = ts_ray_to_world(a, ts_ray_normalize(n));
    return ts_w_select(hit, t, inf);
}

#endif
