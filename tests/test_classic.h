/* Helpers of the classic-scene physics tests (test_cradle.c, test_stacks.c,
 * test_pyramid_plane.c, test_friction_scenes.c, test_classic_misc.c): the
 * world under test, bodies with their friction and restitution, the few
 * measures the scenes share (kinetic energy, tilt, box corners), and a
 * main() that runs the tests for one solver and substep count, optionally
 * only some of them:
 *
 *     test_x [soft_step|xpbd] [substeps] [only=a,b,...] [skip=a,b,...]
 *
 * (names without their "test_" prefix). ctest uses only= and skip= to run
 * the known-failing cases apart from the rest (tests/CMakeLists.txt). Only
 * the public API is used, so the scenes read as a user would write them. */
#ifndef TS_TEST_CLASSIC_H
#define TS_TEST_CLASSIC_H

#include "test_common.h"

#define CLASSIC_DT (1.0f / 60.0f)
#define CLASSIC_G 10.0f
#define CLASSIC_PI 3.14159265358979f

/* The solver and substep count of this run (set by classic_main). */
static ts_solver_type classic_solver = TS_SOLVER_SOFT_STEP;
static int classic_substeps = 4;

/* A world of the solver and substep count under test: one thread, sleeping
 * off (scenes.md's common settings), gravity (0, -g, 0) or none. */
static inline ts_world_id classic_world(bool gravity)
{
    ts_world_def def = ts_default_world_def();
    def.substeps = classic_substeps;
    def.solver = classic_solver;
    def.threads = 1;
    def.enable_sleep = false;
    def.gravity = (ts_vec3){0, gravity ? -CLASSIC_G : 0.0f, 0};
    ts_world_id world = ts_create_world(&def);
    assert_false(ts_world_id_is_null(world));
    return world;
}

static inline void classic_set_material(ts_body_id body, float friction, float restitution)
{
    ts_shape_id shapes[4];
    int n;
    assert_ok(ts_body_get_shapes(body, shapes, 4, &n));
    for (int i = 0; i < n && i < 4; ++i) {
        assert_ok(ts_shape_set_friction(shapes[i], friction));
        assert_ok(ts_shape_set_restitution(shapes[i], restitution));
    }
}

/* A box body (test_common.h's test_box) with its friction and restitution. */
static inline ts_body_id classic_box(ts_world_id world, ts_body_type type, ts_vec3 p, ts_quat q, ts_vec3 half,
                                     float density, float friction, float restitution)
{
    ts_body_id body = test_box(world, type, p, q, half, density);
    classic_set_material(body, friction, restitution);
    return body;
}

static inline ts_body_id classic_sphere(ts_world_id world, ts_vec3 p, float radius, float density, float friction,
                                        float restitution)
{
    ts_body_id body = test_dynamic_body(world, p);
    ts_shape_def shape = ts_default_shape_def();
    shape.density = density;
    shape.friction = friction;
    shape.restitution = restitution;
    ts_sphere sphere = {radius};
    assert_false(ts_shape_id_is_null(ts_create_sphere_shape(body, &shape, &sphere)));
    return body;
}

/* scenes.md's ground: a static box whose top face is y = 0, centred below (x, z). */
static inline ts_body_id classic_ground(ts_world_id world, float x, float z, float half, float friction)
{
    return classic_box(world, TS_BODY_STATIC, (ts_vec3){x, -1, z}, TS_QUAT_IDENTITY, (ts_vec3){half, 1, half}, 1,
                       friction, 0);
}

/* ---- reading bodies ---- */

static inline ts_vec3 classic_position(ts_body_id body)
{
    ts_vec3 p;
    assert_ok(ts_body_get_position(body, &p));
    return p;
}

static inline ts_vec3 classic_velocity(ts_body_id body)
{
    ts_vec3 v;
    assert_ok(ts_body_get_linear_velocity(body, &v));
    return v;
}

static inline float classic_length(ts_vec3 a) { return sqrtf(a.x * a.x + a.y * a.y + a.z * a.z); }

static inline float classic_distance(ts_vec3 a, ts_vec3 b)
{
    return classic_length((ts_vec3){a.x - b.x, a.y - b.y, a.z - b.z});
}

/* q v q*, for a unit quaternion q. */
static inline ts_vec3 classic_rotate(ts_quat q, ts_vec3 v)
{
    /* v + 2 w (u x v) + 2 u x (u x v), u = (x, y, z) */
    ts_vec3 t = {2.0f * (q.y * v.z - q.z * v.y), 2.0f * (q.z * v.x - q.x * v.z), 2.0f * (q.x * v.y - q.y * v.x)};
    return (ts_vec3){v.x + q.w * t.x + (q.y * t.z - q.z * t.y), v.y + q.w * t.y + (q.z * t.x - q.x * t.z),
                     v.z + q.w * t.z + (q.x * t.y - q.y * t.x)};
}

static inline ts_quat classic_axis_angle(ts_vec3 axis, float angle)
{
    float s = sinf(0.5f * angle);
    return (ts_quat){s * axis.x, s * axis.y, s * axis.z, cosf(0.5f * angle)};
}

/* The angle (radians) between the body's local axis and the world direction. */
static inline float classic_tilt(ts_body_id body, ts_vec3 local_axis, ts_vec3 world_direction)
{
    ts_quat q;
    assert_ok(ts_body_get_rotation(body, &q));
    ts_vec3 a = classic_rotate(q, local_axis);
    float c = (a.x * world_direction.x + a.y * world_direction.y + a.z * world_direction.z) /
              (classic_length(a) * classic_length(world_direction));
    return acosf(fmaxf(-1.0f, fminf(1.0f, c)));
}

/* The angle (degrees) of the rotation that takes q0 to q: 2 atan2(|v|, |w|)
 * of q0* q, in double (acos of the dot product would lose everything below
 * ~0.02 degrees to float rounding). */
static inline double classic_turned_degrees(ts_quat q0, ts_quat q)
{
    double w = (double)q0.w * q.w + (double)q0.x * q.x + (double)q0.y * q.y + (double)q0.z * q.z;
    double x = (double)q0.w * q.x - (double)q0.x * q.w - (double)q0.y * q.z + (double)q0.z * q.y;
    double y = (double)q0.w * q.y - (double)q0.y * q.w - (double)q0.z * q.x + (double)q0.x * q.z;
    double z = (double)q0.w * q.z - (double)q0.z * q.w - (double)q0.x * q.y + (double)q0.y * q.x;
    return 2.0 * atan2(sqrt(x * x + y * y + z * z), fabs(w)) * 180.0 / 3.14159265358979323846;
}

/* Kinetic energy of the bodies, translation and rotation: 1/2 m v^2 plus
 * 1/2 w' I w' with w' the angular velocity in the principal frame. In double,
 * so that the rounding of the sum stays far below the 1e-3 the cradles
 * assert. */
static inline double classic_kinetic_energy(const ts_body_id *bodies, int count)
{
    double e = 0.0;
    for (int i = 0; i < count; ++i) {
        ts_mass_data m;
        ts_quat q;
        ts_vec3 v = classic_velocity(bodies[i]), w;
        assert_ok(ts_body_get_mass_data(bodies[i], &m));
        assert_ok(ts_body_get_rotation(bodies[i], &q));
        assert_ok(ts_body_get_angular_velocity(bodies[i], &w));
        ts_quat frame = {-q.x, -q.y, -q.z, q.w}; /* world -> body */
        ts_quat principal = {-m.principal_rotation.x, -m.principal_rotation.y, -m.principal_rotation.z,
                             m.principal_rotation.w}; /* body -> principal */
        ts_vec3 wp = classic_rotate(principal, classic_rotate(frame, w));
        e += 0.5 * m.mass * ((double)v.x * v.x + (double)v.y * v.y + (double)v.z * v.z);
        e += 0.5 * ((double)m.principal_inertia.x * wp.x * wp.x + (double)m.principal_inertia.y * wp.y * wp.y +
                    (double)m.principal_inertia.z * wp.z * wp.z);
    }
    return e;
}

/* The lowest and highest world y of a box body's eight corners. */
static inline void classic_box_y_range(ts_body_id body, ts_vec3 half, float *lowest, float *highest)
{
    ts_transform t;
    assert_ok(ts_body_get_transform(body, &t));
    *lowest = INFINITY;
    *highest = -INFINITY;
    for (int k = 0; k < 8; ++k) {
        ts_vec3 c = {(k & 1) ? half.x : -half.x, (k & 2) ? half.y : -half.y, (k & 4) ? half.z : -half.z};
        float y = classic_rotate(t.q, c).y + t.p.y;
        *lowest = fminf(*lowest, y);
        *highest = fmaxf(*highest, y);
    }
}

static inline void classic_step(ts_world_id world, int steps)
{
    for (int i = 0; i < steps; ++i) {
        assert_ok(ts_world_step(world, CLASSIC_DT));
    }
}

/* ---- the program's arguments ---- */

/* Is `name` (less any "test_" prefix) one of the comma-separated list? */
static inline bool classic_listed(const char *list, const char *name)
{
    if (strncmp(name, "test_", 5) == 0) {
        name += 5;
    }
    size_t n = strlen(name);
    for (const char *p = list; *p != '\0';) {
        const char *end = strchr(p, ',');
        size_t len = end != NULL ? (size_t)(end - p) : strlen(p);
        if (len == n && strncmp(p, name, n) == 0) {
            return true;
        }
        p += len + (end != NULL ? 1 : 0);
    }
    return false;
}

/* Runs the tests named by the arguments (see the top of this file). */
static inline int classic_main(int argc, char **argv, const char *program, const struct CMUnitTest *tests,
                               size_t count)
{
    if (!test_solver_args(argc, argv, program, &classic_solver, &classic_substeps)) {
        return 2;
    }
    const char *only = NULL, *skip = NULL;
    for (int i = 3; i < argc; ++i) {
        if (strncmp(argv[i], "only=", 5) == 0) {
            only = argv[i] + 5;
        } else if (strncmp(argv[i], "skip=", 5) == 0) {
            skip = argv[i] + 5;
        } else {
            fprintf(stderr, "usage: %s [soft_step|xpbd] [substeps] [only=a,b] [skip=a,b]\n", program);
            return 2;
        }
    }
    struct CMUnitTest *chosen = calloc(count, sizeof *chosen);
    size_t n = 0;
    for (size_t i = 0; i < count; ++i) {
        if ((only == NULL || classic_listed(only, tests[i].name)) &&
            (skip == NULL || !classic_listed(skip, tests[i].name))) {
            chosen[n++] = tests[i];
        }
    }
    printf("%s: solver %s, %d substeps, %zu of %zu tests\n", program,
           classic_solver == TS_SOLVER_XPBD ? "xpbd" : "soft_step", classic_substeps, n, count);
    if (n == 0) { /* only= naming nothing is a typo; skip= may leave nothing */
        free(chosen);
        if (only != NULL) {
            fprintf(stderr, "%s: no test matches only=%s\n", program, only);
            return 2;
        }
        return 0;
    }
    int failed = _cmocka_run_group_tests(program, chosen, n, NULL, NULL);
    free(chosen);
    return failed;
}

#endif
