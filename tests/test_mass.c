/* Mass properties: each shape against its closed form, a capsule against
 * numerical integration, and compound bodies against the parallel-axis sum
 * and its principal decomposition. */
#include "test_common.h"

#include "collide/mass.h"

static const double pi = 3.14159265358979323846;

static ts_body_id body_with(ts_world_id world)
{
    return test_dynamic_body(world, (ts_vec3){0, 0, 0});
}

/* Closed forms are evaluated in double; float evaluation of the same product
 * differs by a few ulps, so 1e-5 relative. */
#define assert_rel(actual, expected) assert_near(actual, expected, 1e-5 * fabs((double)(expected)) + 1e-9)

/* Solid sphere: m = 4/3 pi r^3 rho, I = 2/5 m r^2. */
static void test_sphere_mass(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    ts_body_id body = body_with(world);
    ts_shape_def def = ts_default_shape_def();
    def.density = 3.0f;
    ts_sphere sphere = {0.7f};
    assert_false(ts_shape_id_is_null(ts_create_sphere_shape(body, &def, &sphere)));
    ts_mass_data md;
    assert_ok(ts_body_get_mass_data(body, &md));
    double m = 4.0 / 3.0 * pi * 0.343 * 3.0;
    assert_rel(md.mass, m);
    assert_rel(md.principal_inertia.x, 0.4 * m * 0.49);
    assert_rel(md.principal_inertia.y, 0.4 * m * 0.49);
    assert_rel(md.principal_inertia.z, 0.4 * m * 0.49);
    assert_ok(ts_destroy_world(world));
}

/* Box of full widths a, b, c: m = rho a b c, I_xx = m (b^2 + c^2) / 12. */
static void test_box_mass(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    ts_body_id body = body_with(world);
    ts_shape_def def = ts_default_shape_def();
    def.density = 2.0f;
    ts_box box = {{0.5f, 1.0f, 1.5f}};
    assert_false(ts_shape_id_is_null(ts_create_box_shape(body, &def, &box)));
    ts_mass_data md;
    assert_ok(ts_body_get_mass_data(body, &md));
    double a = 1.0, b = 2.0, c = 3.0, m = 2.0 * a * b * c;
    assert_rel(md.mass, m);
    assert_rel(md.principal_inertia.x, m * (b * b + c * c) / 12.0);
    assert_rel(md.principal_inertia.y, m * (a * a + c * c) / 12.0);
    assert_rel(md.principal_inertia.z, m * (a * a + b * b) / 12.0);
    /* Axis-aligned shapes keep the identity principal rotation. */
    assert_true(md.principal_rotation.w == 1.0f);
    assert_ok(ts_destroy_world(world));
}

/* Capsule (cylinder of length H = 2h and radius r along y, two hemispheres):
 * m = rho pi r^2 (H + 4/3 r); I_yy = m_c r^2 / 2 + 2/5 m_s r^2;
 * I_xx = m_c (H^2/12 + r^2/4) + m_s (2/5 r^2 + H^2/4 + 3/8 H r),
 * the textbook form with H (the library derives it with h; a slip in either
 * shows). */
static void test_capsule_mass(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    ts_body_id body = body_with(world);
    ts_shape_def def = ts_default_shape_def();
    def.density = 1.5f;
    ts_capsule capsule = {0.8f, 0.3f};
    assert_false(ts_shape_id_is_null(ts_create_capsule_shape(body, &def, &capsule)));
    ts_mass_data md;
    assert_ok(ts_body_get_mass_data(body, &md));
    double r = 0.3, H = 1.6, rho = 1.5;
    double mc = rho * pi * r * r * H, ms = rho * 4.0 / 3.0 * pi * r * r * r;
    assert_rel(md.mass, mc + ms);
    assert_rel(md.principal_inertia.y, 0.5 * mc * r * r + 0.4 * ms * r * r);
    double across = mc * (H * H / 12.0 + r * r / 4.0) + ms * (0.4 * r * r + H * H / 4.0 + 3.0 / 8.0 * H * r);
    assert_rel(md.principal_inertia.x, across);
    assert_rel(md.principal_inertia.z, across);
    assert_ok(ts_destroy_world(world));
}

/* The capsule again by brute force: midpoint integration over a 120^3 grid of
 * its bounding box. The staircase boundary errs by about one cell layer over
 * the surface, ~0.5% here; checked within 1%. */
static void test_capsule_mass_numerically(void **state)
{
    (void)state;
    ts_capsule capsule = {0.5f, 0.4f};
    ts_shape_mass sm = ts_capsule_mass(&capsule, 1.0f);
    double r = 0.4, h = 0.5;
    const int n = 120;
    double lo[3] = {-r, -h - r, -r}, hi[3] = {r, h + r, r};
    double d[3], cell = 1.0;
    for (int k = 0; k < 3; ++k) {
        d[k] = (hi[k] - lo[k]) / n;
        cell *= d[k];
    }
    double m = 0, ixx = 0, iyy = 0;
    for (int i = 0; i < n; ++i) {
        double x = lo[0] + (i + 0.5) * d[0];
        for (int j = 0; j < n; ++j) {
            double y = lo[1] + (j + 0.5) * d[1];
            double sy = y > h ? y - h : (y < -h ? y + h : 0.0); /* offset from the segment */
            for (int k = 0; k < n; ++k) {
                double z = lo[2] + (k + 0.5) * d[2];
                if (x * x + sy * sy + z * z <= r * r) {
                    m += cell;
                    ixx += cell * (y * y + z * z);
                    iyy += cell * (x * x + z * z);
                }
            }
        }
    }
    assert_near(sm.mass, m, 0.01 * m);
    assert_near(sm.inertia.x, ixx, 0.01 * ixx);
    assert_near(sm.inertia.y, iyy, 0.01 * iyy);
}

/* Shapes of a compound body, described independently of the library. */
typedef struct part {
    double mass;
    double centre[3];
    double tensor[3][3]; /* about the part's centre, in body axes */
} part;

static double quat_matrix(ts_quat q, int i, int j)
{
    double x = q.x, y = q.y, z = q.z, w = q.w;
    double m[3][3] = {
        {1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
        {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
        {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)},
    };
    return m[i][j];
}

/* A compound of a rotated box, an offset sphere and a tilted capsule: total
 * mass = the sum; centre = the mass-weighted mean; inertia about the centre =
 * sum of R I R^T + m (|d|^2 E - d d^T) (parallel-axis rule). The library
 * reports principal moments and a rotation; R_p diag R_p^T must rebuild the
 * tensor. Float accumulation over three parts: 1e-4 relative to the largest
 * moment. */
static void test_compound_parallel_axis(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    ts_body_id body = body_with(world);
    ts_shape_def def = ts_default_shape_def();
    part parts[3];

    ts_quat box_rotation = {0.0f, 0.0f, 0.25881905f, 0.96592583f}; /* 30 degrees about z */
    def.local_position = (ts_vec3){1.0f, 0.5f, 0.0f};
    def.local_rotation = box_rotation;
    def.density = 2.0f;
    ts_box box = {{0.5f, 0.25f, 1.0f}};
    assert_false(ts_shape_id_is_null(ts_create_box_shape(body, &def, &box)));
    {
        double m = 2.0 * 1.0 * 0.5 * 2.0;
        double local[3] = {m * (0.25 + 4.0) / 12.0, m * (1.0 + 4.0) / 12.0, m * (1.0 + 0.25) / 12.0};
        parts[0] = (part){m, {1.0, 0.5, 0.0}, {{0}}};
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
                for (int k = 0; k < 3; ++k)
                    parts[0].tensor[i][j] +=
                        quat_matrix(box_rotation, i, k) * local[k] * quat_matrix(box_rotation, j, k);
    }

    def.local_position = (ts_vec3){-1.0f, 0.0f, 0.5f};
    def.local_rotation = TS_QUAT_IDENTITY;
    def.density = 1.0f;
    ts_sphere sphere = {0.5f};
    assert_false(ts_shape_id_is_null(ts_create_sphere_shape(body, &def, &sphere)));
    {
        double m = 4.0 / 3.0 * pi * 0.125, s = 0.4 * m * 0.25;
        parts[1] = (part){m, {-1.0, 0.0, 0.5}, {{s, 0, 0}, {0, s, 0}, {0, 0, s}}};
    }

    ts_quat capsule_rotation = {0.38268343f, 0.0f, 0.0f, 0.92387953f}; /* 45 degrees about x */
    def.local_position = (ts_vec3){0.0f, -1.0f, -0.5f};
    def.local_rotation = capsule_rotation;
    def.density = 3.0f;
    ts_capsule capsule = {0.6f, 0.2f};
    assert_false(ts_shape_id_is_null(ts_create_capsule_shape(body, &def, &capsule)));
    {
        double r = 0.2, H = 1.2, mc = 3.0 * pi * r * r * H, ms = 3.0 * 4.0 / 3.0 * pi * r * r * r;
        double across = mc * (H * H / 12.0 + r * r / 4.0) + ms * (0.4 * r * r + H * H / 4.0 + 3.0 / 8.0 * H * r);
        double local[3] = {across, 0.5 * mc * r * r + 0.4 * ms * r * r, across};
        parts[2] = (part){mc + ms, {0.0, -1.0, -0.5}, {{0}}};
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
                for (int k = 0; k < 3; ++k)
                    parts[2].tensor[i][j] +=
                        quat_matrix(capsule_rotation, i, k) * local[k] * quat_matrix(capsule_rotation, j, k);
    }

    double mass = 0, centre[3] = {0, 0, 0};
    for (int p = 0; p < 3; ++p) {
        mass += parts[p].mass;
        for (int k = 0; k < 3; ++k)
            centre[k] += parts[p].mass * parts[p].centre[k];
    }
    for (int k = 0; k < 3; ++k)
        centre[k] /= mass;
    double tensor[3][3] = {{0}};
    for (int p = 0; p < 3; ++p) {
        double d[3] = {parts[p].centre[0] - centre[0], parts[p].centre[1] - centre[1], parts[p].centre[2] - centre[2]};
        double dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
                tensor[i][j] += parts[p].tensor[i][j] + parts[p].mass * ((i == j ? dd : 0.0) - d[i] * d[j]);
    }

    ts_mass_data md;
    assert_ok(ts_body_get_mass_data(body, &md));
    assert_rel(md.mass, mass);
    assert_near(md.center.x, centre[0], 1e-5);
    assert_near(md.center.y, centre[1], 1e-5);
    assert_near(md.center.z, centre[2], 1e-5);
    double largest = fmax(tensor[0][0], fmax(tensor[1][1], tensor[2][2]));
    double moments[3] = {md.principal_inertia.x, md.principal_inertia.y, md.principal_inertia.z};
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            double rebuilt = 0;
            for (int k = 0; k < 3; ++k)
                rebuilt += quat_matrix(md.principal_rotation, i, k) * moments[k] *
                           quat_matrix(md.principal_rotation, j, k);
            assert_near(rebuilt, tensor[i][j], 1e-4 * largest);
        }
    }
    /* The body centre reported in the world agrees with the local centre. */
    ts_vec3 world_centre;
    assert_ok(ts_body_get_world_center_of_mass(body, &world_centre));
    assert_near(world_centre.x, centre[0], 1e-5);
    assert_near(world_centre.y, centre[1], 1e-5);
    ts_vec3 origin;
    assert_ok(ts_body_get_position(body, &origin));
    assert_near(origin.x, 0.0, 1e-6);
    assert_near(origin.y, 0.0, 1e-6);
    assert_near(origin.z, 0.0, 1e-6);
    assert_ok(ts_destroy_world(world));
}

/* Adding an off-centre shape moves the centre of mass but not the origin,
 * and the centre's velocity becomes v + w x d (rigid motion): 1e-5. */
static void test_adding_shape_keeps_origin_and_motion(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    ts_body_id body = body_with(world);
    ts_shape_def def = ts_default_shape_def();
    ts_sphere sphere = {0.5f};
    assert_false(ts_shape_id_is_null(ts_create_sphere_shape(body, &def, &sphere)));
    assert_ok(ts_body_set_transform(body, (ts_vec3){1, 2, 3}, (ts_quat){0, 0.70710678f, 0, 0.70710678f}));
    assert_ok(ts_body_set_angular_velocity(body, (ts_vec3){0, 2, 0}));
    assert_ok(ts_body_set_linear_velocity(body, (ts_vec3){1, 0, 0}));
    def.local_position = (ts_vec3){2, 0, 0};
    assert_false(ts_shape_id_is_null(ts_create_sphere_shape(body, &def, &sphere)));
    ts_vec3 p, c, v;
    assert_ok(ts_body_get_position(body, &p));
    assert_ok(ts_body_get_world_center_of_mass(body, &c));
    assert_ok(ts_body_get_linear_velocity(body, &v));
    assert_near(p.x, 1, 1e-5);
    assert_near(p.y, 2, 1e-5);
    assert_near(p.z, 3, 1e-5);
    /* local centre (1, 0, 0), rotated 90 degrees about y: (0, 0, -1) */
    assert_near(c.x, 1, 1e-5);
    assert_near(c.z, 2, 1e-5);
    /* d = (0, 0, -1); w x d = (0, 2, 0) x (0, 0, -1) = (-2, 0, 0) */
    assert_near(v.x, 1 - 2, 1e-5);
    assert_near(v.z, 0, 1e-5);
    assert_ok(ts_destroy_world(world));
}

/* The Jacobi solver on a known matrix: eigenvalues of [[2,1,0],[1,2,0],[0,0,5]]
 * are 1, 3, 5, and V diag V^T rebuilds it (1e-12 in double). */
static void test_symmetric_eigen(void **state)
{
    (void)state;
    double a[3][3] = {{2, 1, 0}, {1, 2, 0}, {0, 0, 5}};
    double values[3], vectors[3][3];
    ts_symmetric_eigen(a, values, vectors);
    double sorted[3] = {values[0], values[1], values[2]};
    for (int i = 0; i < 3; ++i)
        for (int j = i + 1; j < 3; ++j)
            if (sorted[j] < sorted[i]) {
                double t = sorted[i];
                sorted[i] = sorted[j];
                sorted[j] = t;
            }
    assert_near(sorted[0], 1, 1e-12);
    assert_near(sorted[1], 3, 1e-12);
    assert_near(sorted[2], 5, 1e-12);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double s = 0;
            for (int k = 0; k < 3; ++k)
                s += vectors[i][k] * values[k] * vectors[j][k];
            assert_near(s, a[i][j], 1e-12);
        }
}

/* Static and kinematic bodies have no mass; a shapeless dynamic body gets the
 * documented 1 kg with I = 0.1 kg m^2. */
static void test_mass_by_type(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    ts_body_id body = body_with(world);
    float mass;
    assert_ok(ts_body_get_mass(body, &mass));
    assert_true(mass == 1.0f);
    ts_shape_def def = ts_default_shape_def();
    ts_box box = {{1, 1, 1}};
    assert_false(ts_shape_id_is_null(ts_create_box_shape(body, &def, &box)));
    assert_ok(ts_body_get_mass(body, &mass));
    assert_true(mass == 8.0f);
    assert_ok(ts_body_set_type(body, TS_BODY_KINEMATIC));
    assert_ok(ts_body_get_mass(body, &mass));
    assert_true(mass == 0.0f);
    assert_ok(ts_body_set_type(body, TS_BODY_STATIC));
    assert_ok(ts_body_get_mass(body, &mass));
    assert_true(mass == 0.0f);
    assert_ok(ts_body_set_type(body, TS_BODY_DYNAMIC));
    assert_ok(ts_body_get_mass(body, &mass));
    assert_true(mass == 8.0f);
    assert_ok(ts_destroy_world(world));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sphere_mass),
        cmocka_unit_test(test_box_mass),
        cmocka_unit_test(test_capsule_mass),
        cmocka_unit_test(test_capsule_mass_numerically),
        cmocka_unit_test(test_compound_parallel_axis),
        cmocka_unit_test(test_adding_shape_keeps_origin_and_motion),
        cmocka_unit_test(test_symmetric_eigen),
        cmocka_unit_test(test_mass_by_type),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
