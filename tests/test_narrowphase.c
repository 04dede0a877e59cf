/* tessera: narrowphase tests (cmocka). Every case is checked against an answer
 * worked out by hand in the comment above it; tolerances: 1e-4 for depths,
 * points and normals (float rounding through a quaternion rotation and a few
 * products stays below ~1e-6 per unit length, so 1e-4 is loose but tight
 * enough to catch a wrong feature), 1e-5 for "touching" separations. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "collide/narrowphase.h"
#include "base/math3.h"

#include <math.h>
#include <string.h>

#define TOL 1.0e-4f
#define MARGIN TS_SPECULATIVE_DISTANCE

/* ---------------------------------------------------------------- helpers */

static ts_transform xf(float x, float y, float z) { return (ts_transform){{x, y, z}, TS_QUAT_IDENTITY}; }
static ts_transform xfq(float x, float y, float z, ts_quat q) { return (ts_transform){{x, y, z}, q}; }
static ts_quat rot(float ax, float ay, float az, float angle)
{
    return ts_quat_from_axis_angle(ts_normalize(ts_v3(ax, ay, az)), angle);
}
static const float DEG45 = 0.785398163397f;
static const float DEG90 = 1.570796326795f;

static void near(float actual, float expected, float tol, const char *what)
{
    if (!(fabsf(actual - expected) <= tol)) {
        fail_msg("%s: got %.7f, expected %.7f (tol %g)", what, (double)actual, (double)expected, (double)tol);
    }
}
static void near_v(ts_vec3 a, ts_vec3 e, float tol, const char *what)
{
    if (!(fabsf(a.x - e.x) <= tol && fabsf(a.y - e.y) <= tol && fabsf(a.z - e.z) <= tol)) {
        fail_msg("%s: got (%.6f %.6f %.6f), expected (%.6f %.6f %.6f)", what, (double)a.x, (double)a.y, (double)a.z,
                 (double)e.x, (double)e.y, (double)e.z);
    }
}
/* Every number of the used part of the manifold is finite and the normal is unit. */
static void assert_sane(const ts_manifold *m)
{
    assert_true(m->point_count >= 0 && m->point_count <= TS_MAX_MANIFOLD_POINTS);
    if (m->point_count == 0) {
        return;
    }
    assert_true(ts_vec3_is_finite(m->normal));
    near(ts_length(m->normal), 1.0f, 1.0e-5f, "normal length");
    for (int i = 0; i < m->point_count; ++i) {
        assert_true(ts_vec3_is_finite(m->points[i].point));
        assert_true(ts_is_finite(m->points[i].separation));
    }
}
/* Index of the manifold point nearest to p, failing when none is within tol. */
static int find_point(const ts_manifold *m, ts_vec3 p, float tol)
{
    for (int i = 0; i < m->point_count; ++i) {
        if (ts_length(ts_sub(m->points[i].point, p)) <= tol) {
            return i;
        }
    }
    fail_msg("no manifold point near (%.5f %.5f %.5f)", (double)p.x, (double)p.y, (double)p.z);
    return -1;
}
static void all_separations(const ts_manifold *m, float expected, float tol)
{
    for (int i = 0; i < m->point_count; ++i) {
        near(m->points[i].separation, expected, tol, "separation");
    }
}
static void ids_distinct(const ts_manifold *m)
{
    for (int i = 0; i < m->point_count; ++i) {
        for (int j = i + 1; j < m->point_count; ++j) {
            assert_int_not_equal(m->points[i].feature_id, m->points[j].feature_id);
        }
    }
}

/* ---------------------------------------------------------------- sphere-sphere */

static const ts_sphere SPH1 = {1.0f};
static const ts_sphere SPH05 = {0.5f};

/* Radii 1 and 0.5, centres 1.5 apart on x: touching at (1,0,0); separation 0 within 1e-5 (exact inputs). */
static void test_spheres_touching(void **state)
{
    (void)state;
    ts_manifold m;
    ts_collide_spheres(&SPH1, xf(0, 0, 0), &SPH05, xf(1.5f, 0, 0), MARGIN, &m);
    assert_sane(&m);
    assert_int_equal(m.point_count, 1);
    near_v(m.normal, ts_v3(1, 0, 0), TOL, "normal");
    near(m.points[0].separation, 0.0f, 1.0e-5f, "separation");
    near_v(m.points[0].point, ts_v3(1, 0, 0), TOL, "point");
}

/* Centres 1.2 apart along (0,3,4)/5: depth 0.3; surfaces at 1.0 and 0.7 along the axis, point at 0.85. */
static void test_spheres_penetrating(void **state)
{
    (void)state;
    ts_manifold m;
    ts_vec3 dir = ts_v3(0.0f, 0.6f, 0.8f);
    ts_collide_spheres(&SPH1, xf(1, 2, 3), &SPH05, xfq(1.0f, 2.0f + 1.2f * 0.6f, 3.0f + 1.2f * 0.8f, rot(1, 1, 0, 0.7f)),
                       MARGIN, &m);
    assert_sane(&m);
    assert_int_equal(m.point_count, 1);
    near_v(m.normal, dir, TOL, "normal");
    near(m.points[0].separation, -0.3f, TOL, "depth");
    near_v(m.points[0].point, ts_mul_add(ts_v3(1, 2, 3), 0.85f, dir), TOL, "point");
}

/* Gap 0.01 < margin 0.02: kept as a speculative point with separation +0.01. */
static void test_spheres_speculative(void **state)
{
    (void)state;
    ts_manifold m;
    ts_collide_spheres(&SPH1, xf(0, 0, 0), &SPH05, xf(0, -1.51f, 0), MARGIN, &m);
    assert_int_equal(m.point_count, 1);
    near_v(m.normal, ts_v3(0, -1, 0), TOL, "normal");
    near(m.points[0].separation, 0.01f, TOL, "separation");
}

/* Gap 0.03 > margin: no contact. */
static void test_spheres_separated(void **state)
{
    (void)state;
    ts_manifold m;
    ts_collide_spheres(&SPH1, xf(0, 0, 0), &SPH05, xf(0, 0, 1.53f), MARGIN, &m);
    assert_int_equal(m.point_count, 0);
}

/* Coincident centres: no direction; the documented fallback +y, depth = sum of radii (exact). */
static void test_spheres_coincident(void **state)
{
    (void)state;
    ts_manifold m;
    ts_collide_spheres(&SPH1, xf(2, 2, 2), &SPH05, xf(2, 2, 2), MARGIN, &m);
    assert_sane(&m);
    assert_int_equal(m.point_count, 1);
    near_v(m.normal, ts_v3(0, 1, 0), 0.0f, "normal");
    near(m.points[0].separation, -1.5f, TOL, "depth");
}

/* ---------------------------------------------------------------- sphere-capsule */

static const ts_capsule CAP1 = {1.0f, 0.5f}; /* half height 1, radius 0.5 */

/* Capsule along x (90 deg about z), sphere r 0.5 at (0.5,1,0): closest core point (0.5,0,0), gap 0. */
static void test_sphere_capsule_touching(void **state)
{
    (void)state;
    ts_manifold m;
    ts_collide_sphere_capsule(&SPH05, xf(0.5f, 1, 0), &CAP1, xfq(0, 0, 0, rot(0, 0, 1, DEG90)), MARGIN, &m);
    assert_sane(&m);
    assert_int_equal(m.point_count, 1);
    near_v(m.normal, ts_v3(0, -1, 0), TOL, "normal");
    near(m.points[0].separation, 0.0f, 1.0e-5f, "separation");
    near_v(m.points[0].point, ts_v3(0.5f, 0.5f, 0), TOL, "point");
}

/* Sphere past the end cap: closest core point is the end (1,0,0), offset (0.2,0.8,0), depth 1 - |offset|. */
static void test_sphere_capsule_penetrating(void **state)
{
    (void)state;
    ts_manifold m;
    ts_collide_sphere_capsule(&SPH05, xf(1.2f, 0.8f, 0), &CAP1, xfq(0, 0, 0, rot(0, 0, 1, DEG90)), MARGIN, &m);
    assert_sane(&m);
    assert_int_equal(m.point_count, 1);
    float dist = sqrtf(0.2f * 0.2f + 0.8f * 0.8f);
    near_v(m.normal, ts_v3(-0.2f / dist, -0.8f / dist, 0), TOL, "normal");
    near(m.points[0].separation, dist - 1.0f, TOL, "depth");
}

/* Vertical capsule, sphere beside it 1.01 from the axis: speculative, separation +0.01. */
static void test_sphere_capsule_speculative(void **state)
{
    (void)state;
    ts_manifold m;
    ts_collide_sphere_capsule(&SPH05, xf(1.01f, 0.3f, 0), &CAP1, xf(0, 0, 0), MARGIN, &m);
    assert_int_equal(m.point_count, 1);
    near_v(m.normal, ts_v3(-1, 0, 0), TOL, "normal");
    near(m.points[0].separation, 0.01f, TOL, "separation");
}

/* Sphere 1.05 beyond the top of the core (gap 0.05): no contact. */
static void test_sphere_capsule_separated(void **state)
{
    (void)state;
    ts_manifold m;
    ts_collide_sphere_capsule(&SPH05, xf(0, 2.05f, 0), &CAP1, xf(0, 0, 0), MARGIN, &m);
    assert_int_equal(m.point_count, 0);
}

/* Sphere centre on the core segment: fallback normal = capsule local x = world +y here; depth r + R = 1. */
static void test_sphere_capsule_degenerate(void **state)
{
    (void)state;
    ts_manifold m;
    ts_collide_sphere_capsule(&SPH05, xf(0.3f, 0, 0), &CAP1, xfq(0, 0, 0, rot(0, 0, 1, DEG90)), MARGIN, &m);
    assert_sane(&m);
    assert_int_equal(m.point_count, 1);
    near_v(m.normal, ts_v3(0, 1, 0), TOL, "normal");
    near(m.points[0].separation, -1.0f, TOL, "depth");
}

/* ---------------------------------------------------------------- sphere-box */

static const ts_box BOX_FLAT = {{1.0f, 0.5f, 2.0f}};
static const ts_box CUBE1 = {{1.0f, 1.0f, 1.0f}};
static const ts_box CUBE05 = {{0.5f, 0.5f, 0.5f}};

/* Sphere r 0.5 resting on the +y face (top at 0.5): point (0,0.5,0), normal -y (sphere -> box). */
static void test_sphere_box_touching(void **state)
{
    (void)state;
    ts_manifold m;
    ts_collide_sphere_box(&SPH05, xf(0, 1, 0), &BOX_FLAT, xf(0, 0, 0), MARGIN, &m);
    assert_sane(&m);
    assert_int_equal(m.point_count, 1);
    near_v(m.normal, ts_v3(0, -1, 0), TOL, "normal");
    near(m.points[0].separation, 0.0f, 1.0e-5f, "separation");
    near_v(m.points[0].point, ts_v3(0, 0.5f, 0), TOL, "point");
}

/* Box turned 45 deg about y; sphere 1.3 out along the box's x: depth 0.2, point 0.9 along that axis. */
static void test_sphere_box_penetrating_rotated(void **state)
{
    (void)state;
    ts_quat q = rot(0, 1, 0, DEG45);
    ts_vec3 ax = ts_rotate(q, ts_v3(1, 0, 0));
    ts_manifold m;
    ts_collide_sphere_box(&SPH05, xfq(ax.x * 1.3f, 0.1f, ax.z * 1.3f, q), &BOX_FLAT, xfq(0, 0.1f, 0, q), MARGIN, &m);
    assert_sane(&m);
    assert_int_equal(m.point_count, 1);
    near_v(m.normal, ts_neg(ax), TOL, "normal");
    near(m.points[0].separation, -0.2f, TOL, "depth");
    near_v(m.points[0].point, ts_v3(ax.x * 0.9f, 0.1f, ax.z * 0.9f), TOL, "point");
}

/* Edge region: centre (1.3,1.4,0), closest box point (1,1,0), offset (0.3,0.4,0) of length 0.5; r 0.6 -> depth 0.1. */
static void test_sphere_box_edge_region(void **state)
{
    (void)state;
    ts_sphere s = {0.6f};
    ts_manifold m;
    ts_collide_sphere_box(&s, xf(1.3f, 1.4f, 0), &CUBE1, xf(0, 0, 0), MARGIN, &m);
    assert_sane(&m);
    assert_int_equal(m.point_count, 1);
    near_v(m.normal, ts_v3(-0.6f, -0.8f, 0), TOL, "normal");
    near(m.points[0].separation, -0.1f, TOL, "depth");
    /* midway between box point (1,1,0) and sphere point (1.3,1.4,0) - 0.6 * (0.6,0.8,0) = (0.94,0.92,0) */
    near_v(m.points[0].point, ts_v3(0.97f, 0.96f, 0), TOL, "point");
}

/* Centre inside (0.2,0.3,0.1), half extents (1,0.5,2): least depth is y (0.2); out through +y, depth 0.2 + r. */
static void test_sphere_box_deep(void **state)
{
    (void)state;
    ts_sphere s = {0.3f};
    ts_manifold m;
    ts_collide_sphere_box(&s, xf(0.2f, 0.3f, 0.1f), &BOX_FLAT, xf(0, 0, 0), MARGIN, &m);
    assert_sane(&m);
    assert_int_equal(m.point_count, 1);
    near_v(m.normal, ts_v3(0, -1, 0), TOL, "normal");
    near(m.points[0].separation, -0.5f, TOL, "depth");
    near_v(m.points[0].point, ts_v3(0.2f, 0.25f, 0.1f), TOL, "point");
}

/* Sphere 0.01 above the top face: speculative, separation +0.01. */
static void test_sphere_box_speculative(void **state)
{
    (void)state;
    ts_manifold m;
    ts_collide_sphere_box(&SPH05, xf(0.4f, 1.01f, -1.5f), &BOX_FLAT, xf(0, 0, 0), MARGIN, &m);
    assert_int_equal(m.point_count, 1);
    near(m.points[0].separation, 0.01f, TOL, "separation");
}

/* Gaps 0.1 above the face and 0.05 off the edge (|(0.3,0.4)| - 0.45): both no contact. */
static void test_sphere_box_separated(void **state)
{
    (void)state;
    ts_manifold m;
    ts_collide_sphere_box(&SPH05, xf(0, 1.1f, 0), &BOX_FLAT, xf(0, 0, 0), MARGIN, &m);
    assert_int_equal(m.point_count, 0);
    ts_sphere s = {0.45f};
    ts_collide_sphere_box(&s, xf(1.3f, 1.4f, 0), &CUBE1, xf(0, 0, 0), MARGIN, &m);
    assert_int_equal(m.point_count, 0);
}

/* Centre at the box centre: equal depths, lowest axis wins -> out through +x (normal -x), depth 1 + r; no NaN. */
static void test_sphere_box_degenerate(void **state)
{
    (void)state;
    ts_manifold m;
    ts_collide_sphere_box(&SPH05, xf(0, 0, 0), &CUBE1, xf(0, 0, 0), MARGIN, &m);
    assert_sane(&m);
    assert_int_equal(m.point_count, 1);
    near_v(m.normal, ts_v3(-1, 0, 0), TOL, "normal");
    near(m.points[0].separation, -1.5f, TOL, "depth");
}

/* ---------------------------------------------------------------- capsule-capsule */

static ts_quat along_x(void) { return rot(0, 0, 1, DEG90); } /* capsule y axis -> world -x */
static ts_quat along_z(void) { return rot(1, 0, 0, DEG90); } /* capsule y axis -> world +z */

/* Crossed capsules (y and z axes) 1.0 apart on x: touching, one point at (0.5,0,0). */
static void test_capsules_touching_crossed(void **state)
{
    (void)state;
    ts_manifold m;
    ts_collide_capsules(&CAP1, xf(0, 0, 0), &CAP1, xfq(1, 0, 0, along_z()), MARGIN, &m);
    assert_sane(&m);
    assert_int_equal(m.point_count, 1);
    near_v(m.normal, ts_v3(1, 0, 0), TOL, "normal");
    near(m.points[0].separation, 0.0f, 1.0e-5f, "separation");
    near_v(m.points[0].point, ts_v3(0.5f, 0, 0), TOL, "point");
}

/* Parallel capsules 0.8 apart, B shifted up 0.5: overlap y in [-0.5, 1]; two points of depth 0.2 at x 0.4,
 * ids: B's end 0 (code 0 -> id 1) and B clipped at A's end 1 (code 3 -> id 4). */
static void test_capsules_parallel_two_points(void **state)
{
    (void)state;
    ts_manifold m;
    ts_collide_capsules(&CAP1, xf(0, 0, 0), &CAP1, xf(0.8f, 0.5f, 0), MARGIN, &m);
    assert_sane(&m);
    assert_int_equal(m.point_count, 2);
    near_v(m.normal, ts_v3(1, 0, 0), TOL, "normal");
    all_separations(&m, -0.2f, TOL);
    int i0 = find_point(&m, ts_v3(0.4f, -0.5f, 0), TOL);
    int i1 = find_point(&m, ts_v3(0.4f, 1.0f, 0), TOL);
    assert_int_equal(m.points[i0].feature_id, 1);
    assert_int_equal(m.points[i1].feature_id, 4);
}

/* A vertical, B along x at (0,1.8,0.3): closest A top (0,1,0) to (0,1.8,0.3); one point, depth 1 - |(0,0.8,0.3)|. */
static void test_capsules_penetrating_rotated(void **state)
{
    (void)state;
    ts_manifold m;
    ts_collide_capsules(&CAP1, xf(0, 0, 0), &CAP1, xfq(0, 1.8f, 0.3f, along_x()), MARGIN, &m);
    assert_sane(&m);
    assert_int_equal(m.point_count, 1);
    float dist = sqrtf(0.64f + 0.09f);
    near_v(m.normal, ts_v3(0, 0.8f / dist, 0.3f / dist), TOL, "normal");
    near(m.points[0].separation, dist - 1.0f, TOL, "depth");
}

/* Crossed and parallel cases 0.01 beyond touching: speculative points with separation +0.01 (1 and 2 points). */
static void test_capsules_speculative(void **state)
{
    (void)state;
    ts_manifold m;
    ts_collide_capsules(&CAP1, xf(0, 0, 0), &CAP1, xfq(1.01f, 0, 0, along_z()), MARGIN, &m);
    assert_int_equal(m.point_count, 1);
    near(m.points[0].separation, 0.01f, TOL, "separation");
    ts_collide_capsules(&CAP1, xf(0, 0, 0), &CAP1, xf(1.01f, 0.5f, 0), MARGIN, &m);
    assert_int_equal(m.point_count, 2);
    all_separations(&m, 0.01f, TOL);
}

/* Gap 0.05 (crossed) and 0.05 (parallel): no contact. */
static void test_capsules_separated(void **state)
{
    (void)state;
    ts_manifold m;
    ts_collide_capsules(&CAP1, xf(0, 0, 0), &CAP1, xfq(1.05f, 0, 0, along_z()), MARGIN, &m);
    assert_int_equal(m.point_count, 0);
    ts_collide_capsules(&CAP1, xf(0, 0, 0), &CAP1, xf(1.05f, 0.5f, 0), MARGIN, &m);
    assert_int_equal(m.point_count, 0);
}

/* Degenerate cores: crossing segments (normal y x z = +x), collinear overlap (fallback A's local x),
 * two zero-length cores at one place (+y). Depth is r_a + r_b = 1 every time; no NaN. */
static void test_capsules_degenerate(void **state)
{
    (void)state;
    ts_manifold m;
    ts_collide_capsules(&CAP1, xf(0, 0, 0), &CAP1, xfq(0, 0, 0, along_z()), MARGIN, &m);
    assert_sane(&m);
    assert_int_equal(m.point_count, 1);
    near_v(m.normal, ts_v3(1, 0, 0), TOL, "crossing normal");
    near(m.points[0].separation, -1.0f, TOL, "crossing depth");

    ts_collide_capsules(&CAP1, xf(0, 0, 0), &CAP1, xf(0, 0.5f, 0), MARGIN, &m);
    assert_sane(&m);
    assert_int_equal(m.point_count, 1);
    near_v(m.normal, ts_v3(1, 0, 0), TOL, "collinear normal");
    near(m.points[0].separation, -1.0f, TOL, "collinear depth");

    ts_capsule ball = {0.0f, 0.5f};
    ts_collide_capsules(&ball, xf(1, 1, 1), &ball, xf(1, 1, 1), MARGIN, &m);
    assert_sane(&m);
    assert_int_equal(m.point_count, 1);
    near_v(m.normal, ts_v3(0, 1, 0), 0.0f, "point normal");
    near(m.points[0].separation, -1.0f, TOL, "point depth");
}

/* ---------------------------------------------------------------- capsule-box */

static const ts_capsule CAP_THIN = {1.0f, 0.25f};
static const ts_box SLAB = {{2.0f, 0.5f, 2.0f}};

/* Capsule along x lying on the slab top (0.5) with core at y 0.7: depth 0.05, two points at x 0.3 -+ 1,
 * y = 0.7 - (0.25 - 0.025) = 0.475; ids name face +y (2) and the two segment ends. */
static void test_capsule_box_flat_two_points(void **state)
{
    (void)state;
    ts_manifold m;
    ts_collide_capsule_box(&CAP_THIN, xfq(0.3f, 0.7f, 0.2f, along_x()), &SLAB, xf(0, 0, 0), MARGIN, &m);
    assert_sane(&m);
    assert_int_equal(m.point_count, 2);
    near_v(m.normal, ts_v3(0, -1, 0), TOL, "normal");
    all_separations(&m, -0.05f, TOL);
    int i0 = find_point(&m, ts_v3(-0.7f, 0.475f, 0.2f), TOL);
    int i1 = find_point(&m, ts_v3(1.3f, 0.475f, 0.2f), TOL);
    assert_int_equal(m.points[i0].feature_id, (3u << 4) | 2u); /* end 1 (top end turns to -x) */
    assert_int_equal(m.points[i1].feature_id, (3u << 4) | 1u); /* end 0 */
}

/* Same capsule with its core at 0.75: exactly touching, two points with separation 0. */
static void test_capsule_box_touching(void **state)
{
    (void)state;
    ts_manifold m;
    ts_collide_capsule_box(&CAP_THIN, xfq(0, 0.75f, 0, along_x()), &SLAB, xf(0, 0, 0), MARGIN, &m);
    assert_int_equal(m.point_count, 2);
    all_separations(&m, 0.0f, 1.0e-5f);
}

/* Flat capsule hanging over the slab edge at x = 2 (core x in [1.5, 3.5]): clipped to the face, two points at
 * x 1.5 (segment end 1, code 1) and x 2.0 (face +y has side planes +z, +x, -z, -x: +x is plane 1, code 3). */
static void test_capsule_box_flat_clipped(void **state)
{
    (void)state;
    ts_manifold m;
    ts_collide_capsule_box(&CAP_THIN, xfq(2.5f, 0.7f, 0, along_x()), &SLAB, xf(0, 0, 0), MARGIN, &m);
    assert_sane(&m);
    assert_int_equal(m.point_count, 2);
    all_separations(&m, -0.05f, TOL);
    int i0 = find_point(&m, ts_v3(1.5f, 0.475f, 0), TOL);
    int i1 = find_point(&m, ts_v3(2.0f, 0.475f, 0), TOL);
    assert_int_equal(m.points[i0].feature_id, (3u << 4) | 2u);
    assert_int_equal(m.points[i1].feature_id, (3u << 4) | 4u);
}

/* Vertical capsule standing on its end, end core at 0.72: one point, depth 0.03, at y (0.5 + 0.47) / 2. */
static void test_capsule_box_standing(void **state)
{
    (void)state;
    ts_manifold m;
    ts_collide_capsule_box(&CAP_THIN, xf(0.5f, 1.72f, -0.4f), &SLAB, xf(0, 0, 0), MARGIN, &m);
    assert_sane(&m);
    assert_int_equal(m.point_count, 1);
    near_v(m.normal, ts_v3(0, -1, 0), TOL, "normal");
    near(m.points[0].separation, -0.03f, TOL, "depth");
    near_v(m.points[0].point, ts_v3(0.5f, 0.485f, -0.4f), TOL, "point");
}

/* Capsule tilted 30 deg about z, lower core end 0.73 high (depth 0.02): the upper end is far, so one point. */
static void test_capsule_box_tilted(void **state)
{
    (void)state;
    ts_quat q = rot(0, 0, 1, 0.5235988f);
    ts_vec3 axis = ts_rotate(q, ts_v3(0, 1, 0));
    ts_vec3 c = ts_mul_add(ts_v3(0.2f, 0.73f, 0.1f), 1.0f, axis); /* lower end (centre - axis) at (0.2,0.73,0.1) */
    ts_manifold m;
    ts_collide_capsule_box(&CAP_THIN, xfq(c.x, c.y, c.z, q), &SLAB, xf(0, 0, 0), MARGIN, &m);
    assert_sane(&m);
    assert_int_equal(m.point_count, 1);
    near_v(m.normal, ts_v3(0, -1, 0), TOL, "normal");
    near(m.points[0].separation, -0.02f, TOL, "depth");
}

/* Flat capsule 0.01 above the face: speculative, two points with separation +0.01. */
static void test_capsule_box_speculative(void **state)
{
    (void)state;
    ts_manifold m;
    ts_collide_capsule_box(&CAP_THIN, xfq(0, 0.76f, 0, along_x()), &SLAB, xf(0, 0, 0), MARGIN, &m);
    assert_int_equal(m.point_count, 2);
    all_separations(&m, 0.01f, TOL);
}

/* Flat capsule 0.05 above the face, and a standing one 0.05 above: no contact. */
static void test_capsule_box_separated(void **state)
{
    (void)state;
    ts_manifold m;
    ts_collide_capsule_box(&CAP_THIN, xfq(0, 0.8f, 0, along_x()), &SLAB, xf(0, 0, 0), MARGIN, &m);
    assert_int_equal(m.point_count, 0);
    ts_collide_capsule_box(&CAP_THIN, xf(0, 1.8f, 0), &SLAB, xf(0, 0, 0), MARGIN, &m);
    assert_int_equal(m.point_count, 0);
}

/* Cube (h 0.5) turned 45 deg about z has a top edge along z at y = 0.7071; a capsule along z lies on it
 * with depth 0.02: one point (edge region, not a face), normal -y. */
static void test_capsule_box_on_rotated_edge(void **state)
{
    (void)state;
    float top = 0.5f * sqrtf(2.0f);
    ts_manifold m;
    ts_collide_capsule_box(&CAP_THIN, xfq(0, top + 0.23f, 0, along_z()), &CUBE05, xfq(0, 0, 0, rot(0, 0, 1, DEG45)),
                           MARGIN, &m);
    assert_sane(&m);
    assert_int_equal(m.point_count, 1);
    near_v(m.normal, ts_v3(0, -1, 0), TOL, "normal");
    near(m.points[0].separation, -0.02f, TOL, "depth");
}

/* Core enters the unit cube from above (core y in [0.5, 2.5]): deep SAT picks face +y; only the lower end is
 * within the margin: depth 1 - 0.5 + 0.2 = 0.7, point (0.2, 0.65, 0.3), id face 2 / end 0. */
static void test_capsule_box_deep_end(void **state)
{
    (void)state;
    ts_capsule c = {1.0f, 0.2f};
    ts_manifold m;
    ts_collide_capsule_box(&c, xf(0.2f, 1.5f, 0.3f), &CUBE1, xf(0, 0, 0), MARGIN, &m);
    assert_sane(&m);
    assert_int_equal(m.point_count, 1);
    near_v(m.normal, ts_v3(0, -1, 0), TOL, "normal");
    near(m.points[0].separation, -0.7f, TOL, "depth");
    near_v(m.points[0].point, ts_v3(0.2f, 0.65f, 0.3f), TOL, "point");
    assert_int_equal(m.points[0].feature_id, (3u << 4) | 1u);
}

/* Core lying inside the cube 0.1 under its top (edge axis ties the face axis; the face wins by bias):
 * two points, depth 0.1 + 0.2. */
static void test_capsule_box_deep_flat(void **state)
{
    (void)state;
    ts_capsule c = {0.5f, 0.2f};
    ts_manifold m;
    ts_collide_capsule_box(&c, xfq(0, 0.9f, 0, along_x()), &CUBE1, xf(0, 0, 0), MARGIN, &m);
    assert_sane(&m);
    assert_int_equal(m.point_count, 2);
    near_v(m.normal, ts_v3(0, -1, 0), TOL, "normal");
    all_separations(&m, -0.3f, TOL);
}

/* General rotation: box and capsule turned together by q, as the flat case; the answer turns with q. */
static void test_capsule_box_rotated_pair(void **state)
{
    (void)state;
    ts_quat q = rot(0.3f, 1.0f, -0.5f, 1.1f);
    ts_vec3 c = ts_rotate(q, ts_v3(0.3f, 0.7f, 0.2f));
    ts_vec3 bp = ts_v3(1.0f, -2.0f, 0.5f);
    ts_manifold m;
    ts_collide_capsule_box(&CAP_THIN, xfq(bp.x + c.x, bp.y + c.y, bp.z + c.z, ts_quat_mul(q, along_x())), &SLAB,
                           xfq(bp.x, bp.y, bp.z, q), MARGIN, &m);
    assert_sane(&m);
    assert_int_equal(m.point_count, 2);
    near_v(m.normal, ts_rotate(q, ts_v3(0, -1, 0)), TOL, "normal");
    all_separations(&m, -0.05f, TOL);
    find_point(&m, ts_add(bp, ts_rotate(q, ts_v3(-0.7f, 0.475f, 0.2f))), TOL);
    find_point(&m, ts_add(bp, ts_rotate(q, ts_v3(1.3f, 0.475f, 0.2f))), TOL);
}

/* Degenerate: zero-length core at the cube centre (a sphere inside): out through +x, depth 1 + r; no NaN. */
static void test_capsule_box_degenerate(void **state)
{
    (void)state;
    ts_capsule ball = {0.0f, 0.25f};
    ts_manifold m;
    ts_collide_capsule_box(&ball, xf(0, 0, 0), &CUBE1, xf(0, 0, 0), MARGIN, &m);
    assert_sane(&m);
    assert_int_equal(m.point_count, 1);
    near(m.points[0].separation, -1.25f, TOL, "depth");
}

/* ---------------------------------------------------------------- box-box */

static const ts_box GROUND = {{5.0f, 0.5f, 5.0f}};

/* Cube (h 0.5) on the ground top (0.5) with depth 0.01: 4 points at the cube's bottom corners,
 * y = 0.5 - 0.005, reference face +y of A (kind 1), 4 distinct ids. */
static void test_boxes_face_face(void **state)
{
    (void)state;
    ts_manifold m;
    ts_collide_boxes(&GROUND, xf(0, 0, 0), &CUBE05, xf(0.3f, 0.99f, -0.2f), MARGIN, &m);
    assert_sane(&m);
    assert_int_equal(m.point_count, 4);
    near_v(m.normal, ts_v3(0, 1, 0), TOL, "normal");
    all_separations(&m, -0.01f, TOL);
    for (int sx = -1; sx <= 1; sx += 2) {
        for (int sz = -1; sz <= 1; sz += 2) {
            find_point(&m, ts_v3(0.3f + 0.5f * (float)sx, 0.495f, -0.2f + 0.5f * (float)sz), TOL);
        }
    }
    for (int i = 0; i < 4; ++i) {
        assert_int_equal(TS_FEATURE_KIND(m.points[i].feature_id), TS_FEATURE_KIND_FACE_A);
    }
    ids_distinct(&m);
}

/* Touching (gap 0), speculative (gap 0.01) and separated (gap 0.05) cube on the ground. */
static void test_boxes_touching_speculative_separated(void **state)
{
    (void)state;
    ts_manifold m;
    ts_collide_boxes(&GROUND, xf(0, 0, 0), &CUBE05, xf(0, 1.0f, 0), MARGIN, &m);
    assert_int_equal(m.point_count, 4);
    all_separations(&m, 0.0f, 1.0e-5f);
    ts_collide_boxes(&GROUND, xf(0, 0, 0), &CUBE05, xf(0, 1.01f, 0), MARGIN, &m);
    assert_int_equal(m.point_count, 4);
    all_separations(&m, 0.01f, TOL);
    ts_collide_boxes(&GROUND, xf(0, 0, 0), &CUBE05, xf(0, 1.05f, 0), MARGIN, &m);
    assert_int_equal(m.point_count, 0);
}

/* Crossed edges: A turned 45 deg about x (top edge along x at y = 0.7071), B turned 45 deg about z (bottom
 * edge along z). Depth 0.01: one point at (0, 0.7071 - 0.005, 0), normal +y, edge-pair kind. */
static void test_boxes_edge_edge(void **state)
{
    (void)state;
    float e = 0.5f * sqrtf(2.0f);
    ts_manifold m;
    ts_collide_boxes(&CUBE05, xfq(0, 0, 0, rot(1, 0, 0, DEG45)), &CUBE05, xfq(0, 2.0f * e - 0.01f, 0, rot(0, 0, 1, DEG45)),
                     MARGIN, &m);
    assert_sane(&m);
    assert_int_equal(m.point_count, 1);
    near_v(m.normal, ts_v3(0, 1, 0), TOL, "normal");
    near(m.points[0].separation, -0.01f, TOL, "depth");
    near_v(m.points[0].point, ts_v3(0, e - 0.005f, 0), TOL, "point");
    assert_int_equal(TS_FEATURE_KIND(m.points[0].feature_id), TS_FEATURE_KIND_EDGES);
}

/* The same crossed edges 0.05 apart: only an edge axis separates them, and it must be found: no contact. */
static void test_boxes_edge_separated(void **state)
{
    (void)state;
    float e = 0.5f * sqrtf(2.0f);
    ts_manifold m;
    ts_collide_boxes(&CUBE05, xfq(0, 0, 0, rot(1, 0, 0, DEG45)), &CUBE05, xfq(0, 2.0f * e + 0.05f, 0, rot(0, 0, 1, DEG45)),
                     MARGIN, &m);
    assert_int_equal(m.point_count, 0);
}

/* Cube turned 45 deg about z resting its bottom edge (along z) on the ground with depth 0.01:
 * two points at (0, 0.495, -+0.5). */
static void test_boxes_face_edge(void **state)
{
    (void)state;
    float e = 0.5f * sqrtf(2.0f);
    ts_manifold m;
    ts_collide_boxes(&GROUND, xf(0, 0, 0), &CUBE05, xfq(0, 0.5f + e - 0.01f, 0, rot(0, 0, 1, DEG45)), MARGIN, &m);
    assert_sane(&m);
    assert_int_equal(m.point_count, 2);
    near_v(m.normal, ts_v3(0, 1, 0), TOL, "normal");
    all_separations(&m, -0.01f, TOL);
    find_point(&m, ts_v3(0, 0.495f, 0.5f), TOL);
    find_point(&m, ts_v3(0, 0.495f, -0.5f), TOL);
    ids_distinct(&m);
}

/* Equal cubes, the top one turned 45 deg about y: the overlap is a regular octagon of 8 clipped points,
 * reduced to 4 spanning the largest quad (area 2 R^2 = 0.586 for circumradius R = 0.5412); all depth 0.01. */
static void test_boxes_octagon_reduced(void **state)
{
    (void)state;
    ts_manifold m;
    ts_collide_boxes(&CUBE05, xf(0, 0, 0), &CUBE05, xfq(0, 0.99f, 0, rot(0, 1, 0, DEG45)), MARGIN, &m);
    assert_sane(&m);
    assert_int_equal(m.point_count, 4);
    near_v(m.normal, ts_v3(0, 1, 0), TOL, "normal");
    all_separations(&m, -0.01f, TOL);
    ids_distinct(&m);
    /* points in polygon order: area of the quad by the shoelace formula in xz */
    float area = 0.0f;
    for (int i = 0; i < 4; ++i) {
        ts_vec3 p = m.points[i].point, q = m.points[(i + 1) % 4].point;
        area += p.x * q.z - q.x * p.z;
        near(fabsf(p.x) > fabsf(p.z) ? fabsf(p.x) : fabsf(p.z), 0.5f, TOL, "point on the octagon");
    }
    near(fabsf(0.5f * area), 2.0f * (0.25f + 0.2071068f * 0.2071068f), 1.0e-3f, "quad area");
}

/* General rotation: ground and cube turned together by q about the world origin: the answer of the
 * face-face case turned by q. */
static void test_boxes_rotated_pair(void **state)
{
    (void)state;
    ts_quat q = rot(0.2f, 0.9f, 0.4f, 0.8f);
    ts_vec3 cp = ts_rotate(q, ts_v3(0.3f, 0.99f, -0.2f));
    ts_manifold m;
    ts_collide_boxes(&GROUND, xfq(0, 0, 0, q), &CUBE05, xfq(cp.x, cp.y, cp.z, q), MARGIN, &m);
    assert_sane(&m);
    assert_int_equal(m.point_count, 4);
    near_v(m.normal, ts_rotate(q, ts_v3(0, 1, 0)), TOL, "normal");
    all_separations(&m, -0.01f, TOL);
    for (int sx = -1; sx <= 1; sx += 2) {
        for (int sz = -1; sz <= 1; sz += 2) {
            find_point(&m, ts_rotate(q, ts_v3(0.3f + 0.5f * (float)sx, 0.495f, -0.2f + 0.5f * (float)sz)), TOL);
        }
    }
}

/* A cube tipped 10 deg about x on the ground with one bottom edge 0.01 deep: a face contact (the cube's
 * bottom face is incident) with 2 points at that edge, z = -+0.5 rotated. */
static void test_boxes_tipped(void **state)
{
    (void)state;
    ts_quat q = rot(1, 0, 0, 0.17453293f);
    /* lowest bottom corners: local (x, -0.5, -0.5) turned by 10 deg about x; lift the cube so they sit at 0.49 */
    ts_vec3 low = ts_rotate(q, ts_v3(0.5f, -0.5f, 0.5f));
    ts_vec3 low2 = ts_rotate(q, ts_v3(0.5f, -0.5f, -0.5f));
    if (low2.y < low.y) {
        low = low2;
    }
    float cy = 0.49f - low.y;
    ts_manifold m;
    ts_collide_boxes(&GROUND, xf(0, 0, 0), &CUBE05, xfq(0, cy, 0, q), MARGIN, &m);
    assert_sane(&m);
    assert_int_equal(m.point_count, 2);
    near_v(m.normal, ts_v3(0, 1, 0), TOL, "normal");
    all_separations(&m, -0.01f, TOL);
    find_point(&m, ts_v3(0.5f, 0.495f, low.z), TOL);
    find_point(&m, ts_v3(-0.5f, 0.495f, low.z), TOL);
}

/* Coincident boxes: every face axis has depth 1 (0 - 0.5 - 0.5); a finite manifold with depth 1. */
static void test_boxes_degenerate(void **state)
{
    (void)state;
    ts_manifold m;
    ts_collide_boxes(&CUBE05, xf(1, 1, 1), &CUBE05, xf(1, 1, 1), MARGIN, &m);
    assert_sane(&m);
    assert_true(m.point_count >= 1);
    all_separations(&m, -1.0f, TOL);
}

/* A cube slid across the ground in 1 cm steps (and rocked by +-1e-4 rad) keeps its 4 feature ids:
 * the same 4 incident corners touch the same reference face all the time. */
static void test_boxes_sliding_keeps_ids(void **state)
{
    (void)state;
    ts_manifold m;
    ts_collide_boxes(&GROUND, xf(0, 0, 0), &CUBE05, xf(-2.0f, 0.99f, 0.1f), MARGIN, &m);
    assert_int_equal(m.point_count, 4);
    uint32_t ids[4];
    for (int i = 0; i < 4; ++i) {
        ids[i] = m.points[i].feature_id;
    }
    for (int step = 1; step <= 400; ++step) {
        float x = -2.0f + 0.01f * (float)step;
        float wobble = (step & 1) ? 1.0e-4f : -1.0e-4f;
        ts_quat q = rot(1, 0, 1, wobble);
        ts_collide_boxes(&GROUND, xf(0, 0, 0), &CUBE05, xfq(x, 0.99f, 0.1f, q), MARGIN, &m);
        assert_int_equal(m.point_count, 4);
        for (int i = 0; i < 4; ++i) {
            bool found = false;
            for (int j = 0; j < 4; ++j) {
                found = found || m.points[i].feature_id == ids[j];
            }
            assert_true(found);
        }
    }
}

/* A plank (half extents 2, 0.2, 2) on a smaller cube, depth 0.005: the reference face is the cube's top (A wins
 * the tie), its 4 corners make the points, and their ids (side plane, side plane) stay the same while the
 * plank slides 0.5 in 1 cm steps. */
static void test_boxes_plank_sliding_keeps_ids(void **state)
{
    (void)state;
    ts_box plank = {{2.0f, 0.2f, 2.0f}};
    ts_manifold m;
    ts_collide_boxes(&CUBE05, xf(0, 0, 0), &plank, xf(-0.25f, 0.695f, 0), MARGIN, &m);
    assert_int_equal(m.point_count, 4);
    all_separations(&m, -0.005f, TOL);
    uint32_t ids[4];
    for (int i = 0; i < 4; ++i) {
        ids[i] = m.points[i].feature_id;
        assert_true((ids[i] & 7u) >= 4u); /* both lines are side planes: a reference corner */
    }
    for (int step = 1; step <= 50; ++step) {
        ts_collide_boxes(&CUBE05, xf(0, 0, 0), &plank, xf(-0.25f + 0.01f * (float)step, 0.695f, 0), MARGIN, &m);
        assert_int_equal(m.point_count, 4);
        for (int i = 0; i < 4; ++i) {
            assert_int_equal(m.points[i].feature_id, ids[i]);
        }
    }
}

/* Octagon case tipped 3 deg about x (depths now differ): the reduction keeps the deepest point, so moving B
 * out along the normal by the reported depth (+1 mm) leaves the boxes apart (tolerance: 1 mm gap). */
static void test_boxes_reduction_keeps_deepest(void **state)
{
    (void)state;
    ts_quat q = ts_quat_mul(rot(1, 0, 0, 0.05235988f), rot(0, 1, 0, DEG45));
    ts_manifold m, m2;
    ts_collide_boxes(&CUBE05, xf(0, 0, 0), &CUBE05, xfq(0, 1.0f, 0, q), MARGIN, &m);
    assert_sane(&m);
    assert_int_equal(m.point_count, 4);
    float deepest = 0.0f;
    for (int i = 0; i < 4; ++i) {
        deepest = m.points[i].separation < deepest ? m.points[i].separation : deepest;
    }
    assert_true(deepest < -0.005f);
    ts_vec3 p = ts_mul_add(ts_v3(0, 1.0f, 0), -deepest + 0.001f, m.normal);
    ts_collide_boxes(&CUBE05, xf(0, 0, 0), &CUBE05, xfq(p.x, p.y, p.z, q), 0.0f, &m2);
    assert_int_equal(m2.point_count, 0);
}

/* Equal cubes stacked exactly (flush sides) under rounding noise (+-1e-6 rad): the side-plane tolerance keeps
 * the 4 corner points and their ids, no near-duplicate clipped points. */
static void test_boxes_flush_stack_stable(void **state)
{
    (void)state;
    ts_manifold m0, m1;
    ts_collide_boxes(&CUBE05, xf(0, 0, 0), &CUBE05, xfq(0, 0.995f, 0, rot(0, 1, 0, 1.0e-6f)), MARGIN, &m0);
    ts_collide_boxes(&CUBE05, xf(0, 0, 0), &CUBE05, xfq(0, 0.995f, 0, rot(0, 1, 0, -1.0e-6f)), MARGIN, &m1);
    assert_int_equal(m0.point_count, 4);
    assert_int_equal(m1.point_count, 4);
    all_separations(&m0, -0.005f, TOL);
    ids_distinct(&m0);
    for (int i = 0; i < 4; ++i) {
        assert_int_equal(m0.points[i].feature_id, m1.points[i].feature_id);
    }
}

/* ---------------------------------------------------------------- dispatch and swapping */

/* ts_collide_shapes(A, B) and (B, A) give the same points, separations and ids, with the normal negated
 * (exactly for mixed pairs, which swap inside the dispatcher). */
static void check_swap(ts_shape_type ta, const void *ga, ts_transform xa, ts_shape_type tb, const void *gb,
                       ts_transform xb, float tol)
{
    ts_manifold m1, m2;
    ts_collide_shapes(ta, ga, xa, tb, gb, xb, MARGIN, &m1);
    ts_collide_shapes(tb, gb, xb, ta, ga, xa, MARGIN, &m2);
    assert_sane(&m1);
    assert_sane(&m2);
    assert_true(m1.point_count > 0);
    assert_int_equal(m1.point_count, m2.point_count);
    near_v(m2.normal, ts_neg(m1.normal), tol, "swapped normal");
    for (int i = 0; i < m1.point_count; ++i) {
        int j = find_point(&m2, m1.points[i].point, tol);
        near(m2.points[j].separation, m1.points[i].separation, tol, "swapped separation");
        if (ta != tb) {
            assert_int_equal(m2.points[j].feature_id, m1.points[i].feature_id);
        }
    }
}

/* Mixed pairs swap exactly (tolerance 0); box-box recomputes with the other box as reference, so only the
 * geometry must agree (1e-5: midway points make both choices land on the same positions). */
static void test_swap_all_pairs(void **state)
{
    (void)state;
    ts_transform sphere_xf = xf(0.3f, 0.9f, 0.1f);
    ts_transform cap_xf = xfq(0.2f, 0.7f, 0.3f, rot(0.1f, 0.2f, 1.0f, 1.4f));
    ts_transform box_xf = xfq(0, 0, 0, rot(0, 1, 0, 0.3f));
    check_swap(TS_SHAPE_SPHERE, &SPH05, sphere_xf, TS_SHAPE_CAPSULE, &CAP_THIN, xf(0.9f, 0.2f, 0.1f), 0.0f);
    check_swap(TS_SHAPE_SPHERE, &SPH05, sphere_xf, TS_SHAPE_BOX, &SLAB, box_xf, 0.0f);
    check_swap(TS_SHAPE_CAPSULE, &CAP_THIN, cap_xf, TS_SHAPE_BOX, &SLAB, box_xf, 0.0f);
    check_swap(TS_SHAPE_CAPSULE, &CAP_THIN, xfq(0.3f, 0.7f, 0.2f, along_x()), TS_SHAPE_BOX, &SLAB, xf(0, 0, 0), 0.0f);
    check_swap(TS_SHAPE_SPHERE, &SPH05, sphere_xf, TS_SHAPE_SPHERE, &SPH1, xf(0.5f, 0.1f, 0), 1.0e-6f);
    check_swap(TS_SHAPE_CAPSULE, &CAP1, xf(0, 0, 0), TS_SHAPE_CAPSULE, &CAP1, xfq(1, 0, 0, along_z()), 1.0e-6f);
    check_swap(TS_SHAPE_BOX, &GROUND, xf(0, 0, 0), TS_SHAPE_BOX, &CUBE05, xf(0.3f, 0.99f, -0.2f), 1.0e-5f);
    check_swap(TS_SHAPE_BOX, &GROUND, xf(0, 0, 0), TS_SHAPE_BOX, &CUBE05,
               xfq(0, 0.5f + 0.5f * sqrtf(2.0f) - 0.01f, 0, rot(0, 0, 1, DEG45)), 1.0e-5f);
    float e = 0.5f * sqrtf(2.0f);
    check_swap(TS_SHAPE_BOX, &CUBE05, xfq(0, 0, 0, rot(1, 0, 0, DEG45)), TS_SHAPE_BOX, &CUBE05,
               xfq(0, 2.0f * e - 0.01f, 0, rot(0, 0, 1, DEG45)), 1.0e-5f);
}

/* The dispatcher reaches every pair in both orders (reverse orders give the negated normal) and ignores
 * unknown types and NULL geometry. */
static void test_dispatch(void **state)
{
    (void)state;
    ts_manifold direct, via;
    ts_collide_sphere_box(&SPH05, xf(0, 1, 0), &BOX_FLAT, xf(0, 0.01f, 0), MARGIN, &direct);
    ts_collide_shapes(TS_SHAPE_BOX, &BOX_FLAT, xf(0, 0.01f, 0), TS_SHAPE_SPHERE, &SPH05, xf(0, 1, 0), MARGIN, &via);
    assert_int_equal(via.point_count, 1);
    near_v(via.normal, ts_neg(direct.normal), 0.0f, "reverse normal");
    near_v(via.points[0].point, direct.points[0].point, 0.0f, "reverse point");
    ts_collide_shapes(TS_SHAPE_TYPE_COUNT, &SPH05, xf(0, 0, 0), TS_SHAPE_SPHERE, &SPH05, xf(0, 0, 0), MARGIN, &via);
    assert_int_equal(via.point_count, 0);
    ts_collide_shapes(TS_SHAPE_SPHERE, NULL, xf(0, 0, 0), TS_SHAPE_SPHERE, &SPH05, xf(0, 0, 0), MARGIN, &via);
    assert_int_equal(via.point_count, 0);
}

/* Same inputs give bit-identical manifolds (no hidden state). */
static void test_deterministic(void **state)
{
    (void)state;
    ts_manifold a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    ts_transform xa = xfq(0.1f, 0.2f, 0.3f, rot(1, 2, 3, 0.4f));
    ts_transform xb = xfq(0.4f, 0.9f, 0.1f, rot(-1, 0.5f, 2, 1.3f));
    ts_collide_boxes(&CUBE05, xa, &CUBE05, xb, MARGIN, &a);
    ts_collide_boxes(&CUBE05, xa, &CUBE05, xb, MARGIN, &b);
    assert_true(a.point_count > 0);
    assert_memory_equal(&a, &b, sizeof a);
}

/* Random-ish poses of every pair (inside, touching, far): never NaN, counts in range, unit normals. */
static void test_no_nan_sweep(void **state)
{
    (void)state;
    const ts_shape_type types[3] = {TS_SHAPE_SPHERE, TS_SHAPE_CAPSULE, TS_SHAPE_BOX};
    const void *geoms[3] = {&SPH05, &CAP1, &CUBE05};
    uint32_t seed = 12345u;
    for (int iter = 0; iter < 3000; ++iter) {
        float v[8];
        for (int k = 0; k < 8; ++k) {
            seed = seed * 1664525u + 1013904223u;
            v[k] = (float)(seed >> 8) / 16777216.0f * 2.0f - 1.0f;
        }
        /* every 4th pose puts the centres on top of each other */
        float s = (iter % 4 == 0) ? 0.0f : 1.5f;
        ts_transform xa = xfq(0, 0, 0, rot(v[0], v[1], v[2] + 0.01f, 3.0f * v[3]));
        ts_transform xb = xfq(s * v[4], s * v[5], s * v[6], rot(v[5], v[6] + 0.01f, v[7], 3.0f * v[0]));
        if (iter % 8 == 1) {
            xb.q = xa.q; /* aligned: exercises the parallel paths */
        }
        ts_manifold m;
        ts_collide_shapes(types[iter % 3], geoms[iter % 3], xa, types[(iter / 3) % 3], geoms[(iter / 3) % 3], xb, MARGIN,
                          &m);
        assert_sane(&m);
        for (int i = 0; i < m.point_count; ++i) {
            assert_true(m.points[i].separation < MARGIN);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spheres_touching),
        cmocka_unit_test(test_spheres_penetrating),
        cmocka_unit_test(test_spheres_speculative),
        cmocka_unit_test(test_spheres_separated),
        cmocka_unit_test(test_spheres_coincident),
        cmocka_unit_test(test_sphere_capsule_touching),
        cmocka_unit_test(test_sphere_capsule_penetrating),
        cmocka_unit_test(test_sphere_capsule_speculative),
        cmocka_unit_test(test_sphere_capsule_separated),
        cmocka_unit_test(test_sphere_capsule_degenerate),
        cmocka_unit_test(test_sphere_box_touching),
        cmocka_unit_test(test_sphere_box_penetrating_rotated),
        cmocka_unit_test(test_sphere_box_edge_region),
        cmocka_unit_test(test_sphere_box_deep),
        cmocka_unit_test(test_sphere_box_speculative),
        cmocka_unit_test(test_sphere_box_separated),
        cmocka_unit_test(test_sphere_box_degenerate),
        cmocka_unit_test(test_capsules_touching_crossed),
        cmocka_unit_test(test_capsules_parallel_two_points),
        cmocka_unit_test(test_capsules_penetrating_rotated),
        cmocka_unit_test(test_capsules_speculative),
        cmocka_unit_test(test_capsules_separated),
        cmocka_unit_test(test_capsules_degenerate),
        cmocka_unit_test(test_capsule_box_flat_two_points),
        cmocka_unit_test(test_capsule_box_touching),
        cmocka_unit_test(test_capsule_box_flat_clipped),
        cmocka_unit_test(test_capsule_box_standing),
        cmocka_unit_test(test_capsule_box_tilted),
        cmocka_unit_test(test_capsule_box_speculative),
        cmocka_unit_test(test_capsule_box_separated),
        cmocka_unit_test(test_capsule_box_on_rotated_edge),
        cmocka_unit_test(test_capsule_box_deep_end),
        cmocka_unit_test(test_capsule_box_deep_flat),
        cmocka_unit_test(test_capsule_box_rotated_pair),
        cmocka_unit_test(test_capsule_box_degenerate),
        cmocka_unit_test(test_boxes_face_face),
        cmocka_unit_test(test_boxes_touching_speculative_separated),
        cmocka_unit_test(test_boxes_edge_edge),
        cmocka_unit_test(test_boxes_edge_separated),
        cmocka_unit_test(test_boxes_face_edge),
        cmocka_unit_test(test_boxes_octagon_reduced),
        cmocka_unit_test(test_boxes_rotated_pair),
        cmocka_unit_test(test_boxes_tipped),
        cmocka_unit_test(test_boxes_degenerate),
        cmocka_unit_test(test_boxes_sliding_keeps_ids),
        cmocka_unit_test(test_boxes_plank_sliding_keeps_ids),
        cmocka_unit_test(test_boxes_reduction_keeps_deepest),
        cmocka_unit_test(test_boxes_flush_stack_stable),
        cmocka_unit_test(test_swap_all_pairs),
        cmocka_unit_test(test_dispatch),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_no_nan_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
