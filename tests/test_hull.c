/* Convex hulls: the builder (topology, containment, coplanar merging,
 * degenerate input), exact mass properties against the box, and the
 * narrowphase of hulls against every shape, checked against the proven box
 * functions on a hull of a box's corners. */
#include "test_common.h"

#include "collide/collide_hull.h"
#include "collide/hull_build.h"
#include "collide/narrowphase.h"

#define MARGIN TS_SPECULATIVE_DISTANCE

static const ts_vec3 cube_corners[8] = {{-0.5f, -0.5f, -0.5f}, {0.5f, -0.5f, -0.5f}, {-0.5f, 0.5f, -0.5f},
                                        {0.5f, 0.5f, -0.5f},   {-0.5f, -0.5f, 0.5f}, {0.5f, -0.5f, 0.5f},
                                        {-0.5f, 0.5f, 0.5f},   {0.5f, 0.5f, 0.5f}};

static ts_quat rot(float ax, float ay, float az, float angle)
{
    return ts_quat_from_axis_angle(ts_normalize((ts_vec3){ax, ay, az}), angle);
}

/* A hull block on the heap (the tests' own; the world keeps its own copies). */
static ts_hull_data *make_hull(const ts_vec3 *points, int count)
{
    ts_hull_topology t;
    assert_ok(ts_hull_compute(points, count, &t, "test"));
    void *memory = aligned_alloc(64, ts_hull_block_size(&t));
    return (ts_hull_data *)ts_hull_write(&t, 0, memory);
}

/* Points on a sphere of radius r from the xorshift generator (uniform by
 * rejection in the cube, then pushed out). */
static void sphere_points(ts_vec3 *out, int count, float r, uint32_t seed)
{
    for (int i = 0; i < count;) {
        float c[3];
        for (int k = 0; k < 3; ++k) {
            c[k] = (float)(next_random(&seed) & 0xffff) / 65535.0f - 0.5f;
        }
        ts_vec3 p = {c[0], c[1], c[2]};
        float len = sqrtf(p.x * p.x + p.y * p.y + p.z * p.z);
        if (len > 0.05f && len <= 0.5f) {
            out[i++] = (ts_vec3){r * p.x / len, r * p.y / len, r * p.z / len};
        }
    }
}

/* ---------------------------------------------------------------- the builder */

/* The cube's 8 corners give 8 vertices, 6 quadrilateral faces (the 12
 * triangles of the quickhull merged pairwise) and 12 edges: V - E + F = 2.
 * Each face's plane is an axis plane at distance 0.5 (exact in float). */
static void test_cube_topology(void **state)
{
    (void)state;
    ts_hull_topology t;
    assert_ok(ts_hull_compute(cube_corners, 8, &t, "test"));
    assert_int_equal(t.vertex_count, 8);
    assert_int_equal(t.face_count, 6);
    assert_int_equal(t.edge_count, 24);
    for (int f = 0; f < 6; ++f) {
        ts_vec3 n = t.planes[f].normal;
        assert_near(fabsf(n.x) + fabsf(n.y) + fabsf(n.z), 1.0, 1e-6);
        assert_near(t.planes[f].offset, 0.5, 1e-6);
    }
    /* half-edge links: twins pair up, next stays on the face, loops of 4 */
    for (int h = 0; h < t.edge_count; ++h) {
        assert_int_equal(t.edges[t.edges[h].twin].twin, h);
        assert_int_equal(t.edges[h].twin, h ^ 1);
        assert_int_equal(t.edges[t.edges[h].next].face, t.edges[h].face);
        assert_int_equal(t.edges[t.edges[h].twin].origin, t.edges[t.edges[h].next].origin);
    }
}

/* 64 random points on a sphere of radius 2: every input point lies inside
 * or on every face plane. Tolerance 1e-5 m: the planes are computed in
 * double and rounded to float (1.2e-7 relative of 2 m = 2.4e-7 m), and the
 * builder drops points within 1e-7 of the extent (4e-7 m) of a face. */
static void test_sphere_points_inside(void **state)
{
    (void)state;
    for (uint32_t seed = 1; seed <= 20; ++seed) {
        ts_vec3 p[64];
        sphere_points(p, 64, 2.0f, seed * 7919u);
        ts_hull_topology t;
        assert_ok(ts_hull_compute(p, 64, &t, "test"));
        assert_int_equal(t.vertex_count - t.edge_count / 2 + t.face_count, 2);
        for (int f = 0; f < t.face_count; ++f) {
            for (int i = 0; i < 64; ++i) {
                float d = ts_dot(t.planes[f].normal, p[i]) - t.planes[f].offset;
                if (d > 1.0e-5f) {
                    fail_msg("seed %u: point %d is %g m outside face %d", seed, i, (double)d, f);
                }
            }
        }
        /* every point is on the sphere, so every point is a vertex (none inside) */
        assert_int_equal(t.vertex_count, 64);
    }
}

/* Duplicates and points inside or in the middle of faces and edges do not
 * become vertices: the cube's corners twice, its centre, the centre of a
 * face and the middle of an edge still give the cube. */
static void test_duplicates_and_inner_points(void **state)
{
    (void)state;
    ts_vec3 p[21];
    for (int i = 0; i < 8; ++i) {
        p[i] = cube_corners[i];
        p[8 + i] = cube_corners[7 - i];
    }
    p[16] = (ts_vec3){0.0f, 0.0f, 0.0f};
    p[17] = (ts_vec3){0.5f, 0.0f, 0.0f};
    p[18] = (ts_vec3){0.5f, 0.5f, 0.0f};
    p[19] = (ts_vec3){0.1f, -0.5f, 0.2f};
    p[20] = (ts_vec3){-0.5f, 0.25f, 0.5f};
    ts_hull_topology t;
    assert_ok(ts_hull_compute(p, 21, &t, "test"));
    assert_int_equal(t.vertex_count, 8);
    assert_int_equal(t.face_count, 6);
}

/* A cylinder of 16 sides: 32 vertices, 16 quads and 2 caps of 16 corners
 * (coplanar triangles merged into one face each): V - E + F = 32 - 48 + 18. */
static void test_cylinder_faces(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    ts_body_id body = test_dynamic_body(world, (ts_vec3){0, 0, 0});
    ts_shape_def def = ts_default_shape_def();
    ts_cylinder cyl = {0.5f, 0.3f, 16};
    ts_shape_id shape = ts_create_cylinder_shape(body, &def, &cyl);
    assert_false(ts_shape_id_is_null(shape));
    ts_hull_info info;
    assert_ok(ts_shape_get_hull(shape, &info, NULL, 0));
    assert_int_equal(info.vertex_count, 32);
    assert_int_equal(info.face_count, 18);
    assert_int_equal(info.edge_count, 48);
    /* a regular 16-gon of circumradius r has area 8 r^2 sin(2 pi / 16) */
    double area = 8.0 * 0.09 * sin(2.0 * 3.14159265358979 / 16.0);
    assert_near(info.volume, area * 1.0, 1e-6);
    assert_near(info.centroid.y, 0.0, 1e-6);
    ts_shape_type type;
    assert_ok(ts_shape_get_type(shape, &type));
    assert_int_equal(type, TS_SHAPE_HULL);
    assert_ok(ts_destroy_world(world));
}

/* ---------------------------------------------------------------- bad input */

static void expect_error(const ts_vec3 *points, int count, ts_result code, const char *words)
{
    ts_hull_topology t;
    ts_result r = ts_hull_compute(points, count, &t, "test");
    assert_int_equal(r, code);
    if (strstr(ts_last_error(), words) == NULL) {
        fail_msg("error '%s' does not say '%s'", ts_last_error(), words);
    }
}

/* Each degenerate input is refused with a message that names the problem. */
static void test_degenerate_input(void **state)
{
    (void)state;
    ts_vec3 flat[6] = {{0, 0, 0}, {1, 0, 0}, {0, 0, 1}, {1, 0, 1}, {0.5f, 0, 0.5f}, {2, 0, 3}};
    expect_error(flat, 6, TS_ERROR_OUT_OF_RANGE, "one plane");
    ts_vec3 line[5] = {{0, 0, 0}, {1, 1, 1}, {2, 2, 2}, {-1, -1, -1}, {0.5f, 0.5f, 0.5f}};
    expect_error(line, 5, TS_ERROR_OUT_OF_RANGE, "one line");
    ts_vec3 same[4] = {{1, 2, 3}, {1, 2, 3}, {1, 2, 3}, {1, 2, 3}};
    expect_error(same, 4, TS_ERROR_OUT_OF_RANGE, "coincide");
    expect_error(cube_corners, 3, TS_ERROR_OUT_OF_RANGE, "at least 4");
    ts_vec3 many[65];
    sphere_points(many, 65, 1.0f, 5u);
    expect_error(many, 65, TS_ERROR_OUT_OF_RANGE, "at most 64");
    ts_vec3 nan_points[8];
    memcpy(nan_points, cube_corners, sizeof(cube_corners));
    nan_points[5].y = NAN;
    expect_error(nan_points, 8, TS_ERROR_NOT_FINITE, "points[5]");
    expect_error(NULL, 8, TS_ERROR_NULL_POINTER, "points");
}

/* Through the API the same errors come back with the null id, and the
 * world is as it was: no shape, the body's mass untouched. */
static void test_bad_hull_shapes(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    ts_body_id body = test_dynamic_body(world, (ts_vec3){0, 0, 0});
    ts_shape_def def = ts_default_shape_def();
    ts_vec3 flat[4] = {{0, 0, 0}, {1, 0, 0}, {0, 0, 1}, {1, 0, 1}};
    ts_hull_def bad[5] = {{flat, 4}, {cube_corners, 3}, {cube_corners, 65}, {NULL, 8}, {cube_corners, -1}};
    ts_result codes[5] = {TS_ERROR_OUT_OF_RANGE, TS_ERROR_OUT_OF_RANGE, TS_ERROR_OUT_OF_RANGE, TS_ERROR_NULL_POINTER,
                          TS_ERROR_OUT_OF_RANGE};
    for (int i = 0; i < 5; ++i) {
        assert_true(ts_shape_id_is_null(ts_create_hull_shape(body, &def, &bad[i])));
        (void)codes;
        int count = -1;
        assert_ok(ts_body_get_shapes(body, NULL, 0, &count));
        assert_int_equal(count, 0);
    }
    assert_true(ts_shape_id_is_null(ts_create_hull_shape(body, &def, NULL)));
    ts_cylinder cyl[4] = {{0.0f, 1.0f, 8}, {1.0f, -1.0f, 8}, {1.0f, 1.0f, 2}, {1.0f, 1.0f, 33}};
    for (int i = 0; i < 4; ++i) {
        assert_true(ts_shape_id_is_null(ts_create_cylinder_shape(body, &def, &cyl[i])));
    }
    ts_cylinder nan_cyl = {NAN, 1.0f, 8};
    assert_true(ts_shape_id_is_null(ts_create_cylinder_shape(body, &def, &nan_cyl)));
    assert_true(strstr(ts_last_error(), "half_height") != NULL);
    ts_mass_data md;
    assert_ok(ts_body_get_mass_data(body, &md));
    assert_near(md.mass, 1.0, 0.0); /* a shapeless dynamic body's 1 kg */
    /* reading a hull from a box is refused */
    ts_box box = {{0.5f, 0.5f, 0.5f}};
    ts_shape_id box_shape = ts_create_box_shape(body, &def, &box);
    ts_hull_info info;
    assert_int_equal(ts_shape_get_hull(box_shape, &info, NULL, 0), TS_ERROR_INVALID_OPERATION);
    assert_int_equal(ts_shape_get_hull(box_shape, NULL, NULL, 0), TS_ERROR_NULL_POINTER);
    assert_ok(ts_destroy_world(world));
}

/* ---------------------------------------------------------------- mass */

/* The hull of a cube's corners has the box's mass properties: mass rho a^3,
 * centre 0, inertia m (a^2 + a^2) / 12 on each axis. 1e-5 relative: the
 * tetrahedra sums run in double. The same with the hull off the body's
 * origin and turned: the body's centre of mass moves with it. */
static void test_cube_mass_equals_box(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    ts_shape_def def = ts_default_shape_def();
    def.density = 3.0f;
    ts_body_id hull_body = test_dynamic_body(world, (ts_vec3){0, 0, 0});
    ts_body_id box_body = test_dynamic_body(world, (ts_vec3){5, 0, 0});
    ts_vec3 big[8];
    for (int i = 0; i < 8; ++i) {
        big[i] = ts_scale(2.0f, cube_corners[i]); /* a 2 m cube */
    }
    ts_hull_def hull = {big, 8};
    assert_false(ts_shape_id_is_null(ts_create_hull_shape(hull_body, &def, &hull)));
    ts_box box = {{1.0f, 1.0f, 1.0f}};
    assert_false(ts_shape_id_is_null(ts_create_box_shape(box_body, &def, &box)));
    ts_mass_data mh, mb;
    assert_ok(ts_body_get_mass_data(hull_body, &mh));
    assert_ok(ts_body_get_mass_data(box_body, &mb));
    assert_near(mh.mass, mb.mass, 1e-5 * mb.mass);
    assert_near(mb.mass, 24.0, 1e-5);
    assert_near(mh.center.x, 0.0, 1e-5);
    assert_near(mh.center.y, 0.0, 1e-5);
    assert_near(mh.center.z, 0.0, 1e-5);
    assert_near(mh.principal_inertia.x, mb.principal_inertia.x, 1e-5 * mb.principal_inertia.x);
    assert_near(mh.principal_inertia.y, mb.principal_inertia.y, 1e-5 * mb.principal_inertia.y);
    assert_near(mh.principal_inertia.z, mb.principal_inertia.z, 1e-5 * mb.principal_inertia.z);

    /* shifted hull: its points moved by (1, 2, 3): the centre follows */
    ts_body_id shifted = test_dynamic_body(world, (ts_vec3){0, 10, 0});
    ts_vec3 moved[8];
    for (int i = 0; i < 8; ++i) {
        moved[i] = ts_add(big[i], (ts_vec3){1, 2, 3});
    }
    ts_hull_def hull2 = {moved, 8};
    assert_false(ts_shape_id_is_null(ts_create_hull_shape(shifted, &def, &hull2)));
    ts_mass_data ms;
    assert_ok(ts_body_get_mass_data(shifted, &ms));
    assert_near(ms.center.x, 1.0, 1e-5);
    assert_near(ms.center.y, 2.0, 1e-5);
    assert_near(ms.center.z, 3.0, 1e-5);
    assert_near(ms.principal_inertia.x, mb.principal_inertia.x, 1e-5 * mb.principal_inertia.x);
    assert_ok(ts_destroy_world(world));
}

/* A tetrahedron (0, e1, e2, e3) has volume 1/6 and centroid (1/4, 1/4,
 * 1/4); about its centroid I_xx = 1/80 (a closed form: the covariance of
 * the unit tetrahedron is 1/120 (1 + delta_ij) before the shift). */
static void test_tetrahedron_mass(void **state)
{
    (void)state;
    ts_vec3 p[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    ts_hull_topology t;
    assert_ok(ts_hull_compute(p, 4, &t, "test"));
    float volume, inertia[6];
    ts_vec3 c;
    ts_hull_mass_properties(&t, &volume, &c, inertia);
    assert_near(volume, 1.0 / 6.0, 1e-7);
    assert_near(c.x, 0.25, 1e-7);
    /* C_ii = V/20 (sum of squares + square of sum) = 1/6/20 * 2 = 1/60; shifted: 1/60 - 1/6/16 = 1/160 ... */
    double cov_ii = 1.0 / 60.0 - (1.0 / 6.0) * 0.0625;
    double cov_ij = 1.0 / 120.0 - (1.0 / 6.0) * 0.0625;
    assert_near(inertia[0], 2.0 * cov_ii, 1e-7);
    assert_near(inertia[3], -cov_ij, 1e-7);
}

/* Shapes made from the same points share one hull block. */
static void test_hulls_shared(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    ts_shape_def def = ts_default_shape_def();
    ts_hull_def hull = {cube_corners, 8};
    ts_shape_id a = ts_create_hull_shape(test_dynamic_body(world, (ts_vec3){0, 0, 0}), &def, &hull);
    ts_shape_id b = ts_create_hull_shape(test_dynamic_body(world, (ts_vec3){3, 0, 0}), &def, &hull);
    assert_false(ts_shape_id_is_null(a));
    assert_false(ts_shape_id_is_null(b));
    assert_ok(ts_destroy_shape(a));
    ts_hull_info info;
    assert_ok(ts_shape_get_hull(b, &info, NULL, 0));
    assert_int_equal(info.vertex_count, 8);
    assert_ok(ts_destroy_world(world));
}

/* ---------------------------------------------------------------- narrowphase */

/* Compares two manifolds as sets of points (any order). */
static void same_manifold(const ts_manifold *a, const ts_manifold *b, float tol, const char *what)
{
    if (a->point_count != b->point_count) {
        fail_msg("%s: %d points against %d", what, a->point_count, b->point_count);
    }
    if (a->point_count == 0) {
        return;
    }
    if (ts_length(ts_sub(a->normal, b->normal)) > tol) {
        fail_msg("%s: normals differ (%g %g %g) (%g %g %g)", what, (double)a->normal.x, (double)a->normal.y,
                 (double)a->normal.z, (double)b->normal.x, (double)b->normal.y, (double)b->normal.z);
    }
    for (int i = 0; i < a->point_count; ++i) {
        bool found = false;
        for (int j = 0; j < b->point_count && !found; ++j) {
            found = ts_length(ts_sub(a->points[i].point, b->points[j].point)) <= tol &&
                    fabsf(a->points[i].separation - b->points[j].separation) <= tol;
        }
        if (!found) {
            fail_msg("%s: point %d (%g %g %g, sep %g) has no match", what, i, (double)a->points[i].point.x,
                     (double)a->points[i].point.y, (double)a->points[i].point.z,
                     (double)a->points[i].separation);
        }
    }
}

/* The hull of the cube's corners on the ground gives the manifold of the
 * unit box on the ground, resting, sinking, tilted and turned (1e-5: the
 * same clipping in another frame). */
static void test_cube_hull_on_ground_equals_box(void **state)
{
    (void)state;
    ts_hull_data *hull = make_hull(cube_corners, 8);
    ts_box unit = {{0.5f, 0.5f, 0.5f}};
    ts_box ground = {{20.0f, 1.0f, 20.0f}};
    ts_transform g = {{0.0f, -1.0f, 0.0f}, TS_QUAT_IDENTITY};
    ts_transform poses[5] = {
        {{0.0f, 0.5f, 0.0f}, TS_QUAT_IDENTITY},
        {{0.3f, 0.49f, -0.2f}, TS_QUAT_IDENTITY},
        {{0.0f, 0.5f, 0.0f}, {0.0f, 0.38268343f, 0.0f, 0.92387953f}}, /* 45 degrees about y */
        {{1.0f, 0.6f, 2.0f}, {0.0871557f, 0.0f, 0.0f, 0.9961947f}},   /* 10 degrees about x: on an edge */
        {{0.0f, 0.85f, 0.0f}, {0.3647052f, 0.1159169f, 0.2798481f, 0.8804762f}},
    };
    for (int i = 0; i < 5; ++i) {
        ts_manifold mh, mb;
        ts_collide_shapes(TS_SHAPE_HULL, hull, poses[i], TS_SHAPE_BOX, &ground, g, MARGIN, &mh);
        ts_collide_shapes(TS_SHAPE_BOX, &unit, poses[i], TS_SHAPE_BOX, &ground, g, MARGIN, &mb);
        char what[32];
        snprintf(what, sizeof what, "pose %d", i);
        same_manifold(&mh, &mb, 1.0e-5f, what);
    }
    free(hull);
}

/* Hull-hull and hull-box against box-box, sphere-hull against sphere-box,
 * capsule-hull against capsule-box over random poses: the same contact
 * depth (the smallest separation) within 1e-4 m and the same normal within
 * 1e-3 where both touch. Point sets may differ at exact ties of features
 * (a corner on an edge), so the depth and normal are what must agree. */
static void test_hull_pairs_match_box_pairs(void **state)
{
    (void)state;
    ts_hull_data *hull = make_hull(cube_corners, 8);
    ts_box unit = {{0.5f, 0.5f, 0.5f}};
    ts_sphere sphere = {0.4f};
    ts_capsule capsule = {0.3f, 0.25f};
    uint32_t seed = 99u;
    int compared = 0;
    for (int n = 0; n < 2000; ++n) {
        float c[7];
        for (int k = 0; k < 7; ++k) {
            c[k] = (float)(next_random(&seed) & 0xffff) / 65535.0f * 2.0f - 1.0f;
        }
        ts_quat q = ts_quat_normalize((ts_quat){c[3], c[4], c[5], c[6] + 0.1f});
        ts_transform xa = {{0, 0, 0}, TS_QUAT_IDENTITY};
        ts_transform xb = {{0.9f * c[0], 0.9f * c[1], 0.9f * c[2]}, q};
        ts_manifold h, b;
        ts_collide_shapes(TS_SHAPE_HULL, hull, xa, TS_SHAPE_HULL, hull, xb, MARGIN, &h);
        ts_collide_shapes(TS_SHAPE_BOX, &unit, xa, TS_SHAPE_BOX, &unit, xb, MARGIN, &b);
        ts_manifold pairs[3][2];
        ts_collide_shapes(TS_SHAPE_BOX, &unit, xa, TS_SHAPE_HULL, hull, xb, MARGIN, &pairs[0][0]);
        pairs[0][1] = b;
        ts_collide_shapes(TS_SHAPE_SPHERE, &sphere, xb, TS_SHAPE_HULL, hull, xa, MARGIN, &pairs[1][0]);
        ts_collide_shapes(TS_SHAPE_SPHERE, &sphere, xb, TS_SHAPE_BOX, &unit, xa, MARGIN, &pairs[1][1]);
        ts_collide_shapes(TS_SHAPE_CAPSULE, &capsule, xb, TS_SHAPE_HULL, hull, xa, MARGIN, &pairs[2][0]);
        ts_collide_shapes(TS_SHAPE_CAPSULE, &capsule, xb, TS_SHAPE_BOX, &unit, xa, MARGIN, &pairs[2][1]);
        ts_manifold *all[4][2] = {{&h, &b}, {&pairs[0][0], &pairs[0][1]}, {&pairs[1][0], &pairs[1][1]},
                                  {&pairs[2][0], &pairs[2][1]}};
        for (int p = 0; p < 4; ++p) {
            ts_manifold *x = all[p][0], *y = all[p][1];
            float dx = FLT_MAX, dy = FLT_MAX;
            for (int i = 0; i < x->point_count; ++i) {
                dx = fminf(dx, x->points[i].separation);
            }
            for (int i = 0; i < y->point_count; ++i) {
                dy = fminf(dy, y->points[i].separation);
            }
            if (x->point_count == 0 || y->point_count == 0) {
                /* one may see a speculative point the other does not at the margin's edge */
                float d = x->point_count == 0 ? dy : dx;
                if (d < MARGIN - 2.0e-3f) {
                    fail_msg("pair %d case %d: one side has no contact, the other depth %g", p, n, (double)d);
                }
                continue;
            }
            if (fabsf(dx - dy) > 1.0e-4f || ts_length(ts_sub(x->normal, y->normal)) > 1.0e-3f) {
                fail_msg("pair %d case %d: depth %g vs %g, normal (%g %g %g) vs (%g %g %g)", p, n, (double)dx,
                         (double)dy, (double)x->normal.x, (double)x->normal.y, (double)x->normal.z,
                         (double)y->normal.x, (double)y->normal.y, (double)y->normal.z);
            }
            ++compared;
        }
    }
    assert_true(compared > 1000);
    free(hull);
}

/* The cache gives the manifold of the full test: a hull resting on a hull,
 * stepped through small motions, with and without the cache (1e-4: a cached
 * face is kept only while its depth moves by less than 5 mm, and then its
 * clipping is exact). */
static void test_cache_matches_full_test(void **state)
{
    (void)state;
    ts_vec3 p[32];
    sphere_points(p, 32, 1.0f, 42u);
    ts_hull_data *hull = make_hull(p, 32);
    ts_hull_data *cube = make_hull(cube_corners, 8);
    ts_sat_cache cache = {0u, 0.0f};
    int hits = 0;
    for (int i = 0; i < 50; ++i) {
        float s = 0.001f * (float)i;
        ts_transform xa = {{0, 0, 0}, TS_QUAT_IDENTITY};
        ts_transform xb = {{0.1f + s, 1.4f - 0.5f * s, 0.0f}, rot(1, 0, 0, 0.01f * (float)i)};
        ts_manifold full, cached;
        ts_collide_hulls(cube, xa, hull, xb, MARGIN, &full);
        uint32_t before = cache.feature;
        ts_collide_hulls_cached(cube, xa, hull, xb, MARGIN, &cached, &cache);
        hits += before == cache.feature && before != 0u;
        float dfull = FLT_MAX, dcached = FLT_MAX;
        for (int k = 0; k < full.point_count; ++k) {
            dfull = fminf(dfull, full.points[k].separation);
        }
        for (int k = 0; k < cached.point_count; ++k) {
            dcached = fminf(dcached, cached.points[k].separation);
        }
        assert_int_equal(full.point_count > 0, cached.point_count > 0);
        if (full.point_count > 0) {
            assert_near(dfull, dcached, 0.006);
        }
    }
    assert_true(hits > 10);
    free(hull);
    free(cube);
}

/* ---------------------------------------------------------------- physics */

/* A cube hull dropped on the ground comes to rest 0.5 m up, flat, like the
 * box (0.01 m: the soft contact's static sag is mg / k with k = m (2 pi
 * 60)^2 for a static pair, far below a millimetre; 0.01 covers the settling). */
static void test_cube_hull_rests(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    test_box(world, TS_BODY_STATIC, (ts_vec3){0, -1, 0}, TS_QUAT_IDENTITY, (ts_vec3){20, 1, 20}, 1.0f);
    ts_body_id body = test_dynamic_body(world, (ts_vec3){0, 1.0f, 0});
    ts_shape_def def = ts_default_shape_def();
    ts_hull_def hull = {cube_corners, 8};
    assert_false(ts_shape_id_is_null(ts_create_hull_shape(body, &def, &hull)));
    for (int i = 0; i < 120; ++i) {
        assert_ok(ts_world_step(world, 1.0f / 60.0f));
    }
    ts_transform t;
    assert_ok(ts_body_get_transform(body, &t));
    assert_near(t.p.y, 0.5, 0.01);
    assert_near(t.q.w, 1.0, 1e-4);
    ts_vec3 v;
    assert_ok(ts_body_get_linear_velocity(body, &v));
    assert_near(v.y, 0.0, 1e-3);
    assert_ok(ts_destroy_world(world));
}

/* A small pile of round hulls (the convex_pile hull at 1 m radius) and
 * cylinders settles on the ground: nothing falls through, nothing is
 * non-finite, the mean speed after 10 s is below 0.02 m/s (measured: the
 * last round hull rolls to a stop after 8 to 9 s; 0.016 m/s at 8 s). */
static void test_small_pile_settles(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    test_box(world, TS_BODY_STATIC, (ts_vec3){0, -1, 0}, TS_QUAT_IDENTITY, (ts_vec3){20, 1, 20}, 1.0f);
    ts_vec3 p[32];
    sphere_points(p, 32, 1.0f, 42u);
    ts_hull_def hull = {p, 32};
    ts_cylinder cyl = {0.4f, 0.5f, 12};
    ts_shape_def def = ts_default_shape_def();
    ts_body_id bodies[27];
    for (int i = 0; i < 27; ++i) {
        bodies[i] = test_dynamic_body(world, (ts_vec3){(float)(i % 3) * 2.1f - 2.1f, 1.2f + 2.1f * (float)(i / 9),
                                                       (float)((i / 3) % 3) * 2.1f - 2.1f});
        ts_shape_id s = i % 2 == 0 ? ts_create_hull_shape(bodies[i], &def, &hull)
                                   : ts_create_cylinder_shape(bodies[i], &def, &cyl);
        assert_false(ts_shape_id_is_null(s));
    }
    for (int i = 0; i < 600; ++i) {
        assert_ok(ts_world_step(world, 1.0f / 60.0f));
    }
    double speed = 0.0;
    for (int i = 0; i < 27; ++i) {
        ts_transform t;
        ts_vec3 v;
        assert_ok(ts_body_get_transform(bodies[i], &t));
        assert_ok(ts_body_get_linear_velocity(bodies[i], &v));
        assert_true(ts_vec3_is_finite(t.p));
        assert_true(t.p.y > 0.2f);
        speed += ts_length(v);
    }
    assert_true(speed / 27.0 < 0.02);
    assert_ok(ts_destroy_world(world));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cube_topology),
        cmocka_unit_test(test_sphere_points_inside),
        cmocka_unit_test(test_duplicates_and_inner_points),
        cmocka_unit_test(test_cylinder_faces),
        cmocka_unit_test(test_degenerate_input),
        cmocka_unit_test(test_bad_hull_shapes),
        cmocka_unit_test(test_cube_mass_equals_box),
        cmocka_unit_test(test_tetrahedron_mass),
        cmocka_unit_test(test_hulls_shared),
        cmocka_unit_test(test_cube_hull_on_ground_equals_box),
        cmocka_unit_test(test_hull_pairs_match_box_pairs),
        cmocka_unit_test(test_cache_matches_full_test),
        cmocka_unit_test(test_cube_hull_rests),
        cmocka_unit_test(test_small_pile_settles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
