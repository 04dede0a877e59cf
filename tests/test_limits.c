/* Limits (tessera/limits.h): the speed limits a step enforces, the same
 * bits at every SIMD width and thread count with them in play, and the
 * documented bounds every setter and def checks (TS_ERROR_OUT_OF_RANGE
 * naming the bound, the world unchanged). */
#include "test_common.h"

#include <float.h>

#define DT (1.0f / 60.0f)
#define PI_F 3.14159265f

static double length(ts_vec3 v) { return sqrt((double)v.x * v.x + (double)v.y * v.y + (double)v.z * v.z); }

static ts_world_id limits_world(int width, int threads, ts_solver_type solver)
{
    ts_world_def def = ts_default_world_def();
    def.simd_width = width;
    def.threads = threads;
    def.solver = solver;
    def.enable_sleep = false;
    ts_world_id world = ts_create_world(&def);
    assert_false(ts_world_id_is_null(world));
    return world;
}

/* The defaults are Box2D's (400 m/s, pi/4 per substep) and read back; the
 * setter takes new ones within the bounds. */
static void test_default_limits(void **state)
{
    (void)state;
    ts_world_def def = ts_default_world_def();
    assert_true(def.max_linear_speed == 400.0f && def.max_rotation == TS_DEFAULT_MAX_ROTATION);
    ts_world_id world = test_world(4, 1);
    float speed, rotation;
    assert_ok(ts_world_get_speed_limits(world, &speed, &rotation));
    assert_true(speed == 400.0f && rotation == TS_DEFAULT_MAX_ROTATION);
    assert_ok(ts_world_set_speed_limits(world, TS_MAX_SPEED, TS_MAX_ROTATION));
    assert_ok(ts_world_get_speed_limits(world, &speed, &rotation));
    assert_true(speed == TS_MAX_SPEED && rotation == TS_MAX_ROTATION);
    assert_ok(ts_destroy_world(world));
}

/* A 1 kg box pushed by 1e6 N (1e6 m/s^2: 4,000 m/s in one substep at 60 Hz)
 * and turned by 1e5 N m moves at the speed limit, not beyond: after every
 * step |v| is 400 (1 - 2^-12) m/s within 1e-4 relative (the scaling's
 * target; its rounding is a few ulps), the body moved at most 400 dt, and
 * |w| is at most the turn limit pi/4 / h = 188.5 rad/s (w is scaled to it,
 * then the gyroscopic update of a box with unequal moments turns it;
 * momentum is kept, so |w| stays within 1% of the limit). Both solvers. */
static void test_step_keeps_speeds_within_limits(void **state)
{
    (void)state;
    for (int solver = 0; solver < 2; ++solver) {
        ts_world_id world = limits_world(0, 1, solver == 0 ? TS_SOLVER_SOFT_STEP : TS_SOLVER_XPBD);
        ts_body_id box = test_box(world, TS_BODY_DYNAMIC, (ts_vec3){0, 10, 0}, TS_QUAT_IDENTITY,
                                  (ts_vec3){0.5f, 0.25f, 0.1f}, 40.0f); /* 1 kg */
        double target = 400.0 * (1.0 - 1.0 / 4096.0), turn = 0.25 * 3.14159265358979 / (DT / 4.0);
        ts_vec3 before;
        assert_ok(ts_body_get_position(box, &before));
        for (int i = 0; i < 10; ++i) {
            assert_ok(ts_body_apply_force_to_center(box, (ts_vec3){1e6f, 0, 0}));
            assert_ok(ts_body_apply_torque(box, (ts_vec3){0, 0, 1e5f}));
            assert_ok(ts_world_step(world, DT));
            ts_vec3 v, w, p;
            assert_ok(ts_body_get_linear_velocity(box, &v));
            assert_ok(ts_body_get_angular_velocity(box, &w));
            assert_ok(ts_body_get_position(box, &p));
            assert_near(length(v), target, target * 1e-4);
            assert_true(length(w) <= turn * 1.01);
            ts_vec3 moved = {p.x - before.x, p.y - before.y, p.z - before.z};
            assert_true(length(moved) <= 400.0 * DT * 1.0001);
            before = p;
        }
        assert_ok(ts_destroy_world(world));
    }
}

/* A world's own limits: at 10 m/s and 0.01 rad per substep a pushed and
 * turned body stays within them (10 (1 - 2^-12) m/s, 0.01 / h rad/s, 1%
 * for the gyroscopic turn), set in the def or by the setter. */
static void test_world_limits_apply(void **state)
{
    (void)state;
    for (int how = 0; how < 2; ++how) {
        ts_world_def def = ts_default_world_def();
        def.threads = 1;
        if (how == 0) {
            def.max_linear_speed = 10.0f;
            def.max_rotation = 0.01f;
        }
        ts_world_id world = ts_create_world(&def);
        if (how == 1) {
            assert_ok(ts_world_set_speed_limits(world, 10.0f, 0.01f));
        }
        ts_body_id box = test_box(world, TS_BODY_DYNAMIC, (ts_vec3){0, 10, 0}, TS_QUAT_IDENTITY,
                                  (ts_vec3){0.5f, 0.25f, 0.1f}, 1.0f);
        for (int i = 0; i < 5; ++i) {
            assert_ok(ts_body_apply_force_to_center(box, (ts_vec3){0, 0, 1e4f}));
            assert_ok(ts_body_apply_torque(box, (ts_vec3){1e4f, 0, 0}));
            assert_ok(ts_world_step(world, DT));
        }
        ts_vec3 v, w;
        assert_ok(ts_body_get_linear_velocity(box, &v));
        assert_ok(ts_body_get_angular_velocity(box, &w));
        assert_near(length(v), 10.0 * (1.0 - 1.0 / 4096.0), 1e-4);
        assert_true(length(w) <= 0.01 / (DT / 4.0) * 1.01);
        assert_ok(ts_destroy_world(world));
    }
}

/* ---- the same bits everywhere ---- */

/* 160 boxes in every case the integrators treat apart: free bodies (whole
 * bundles of them run their step in registers at widths 4 and 8), boxes in
 * a row touching each other (the general path, and at widths 4 and 8 the
 * fast path of untorqued undamped bundles, which must hand a bundle that
 * might reach the limit to the general path), damped ones and torqued ones;
 * half of them are driven past both limits by forces and torques, some
 * start at the speed limit, and a row of them collides. Returns the hash of
 * every body after 40 steps. */
static uint64_t limits_scene_hash(int width, int threads, ts_solver_type solver)
{
    ts_world_id world = limits_world(width, threads, solver);
    enum { N = 160 }; /* above the 128 awake bodies a step needs to run on several threads */
    ts_body_id bodies[N];
    ts_shape_def shape = ts_default_shape_def();
    test_box(world, TS_BODY_STATIC, (ts_vec3){0, -1, 0}, TS_QUAT_IDENTITY, (ts_vec3){100, 1, 100}, 1.0f);
    uint32_t seed = 12345u;
    for (int i = 0; i < N; ++i) {
        ts_body_def def = ts_default_body_def();
        def.type = TS_BODY_DYNAMIC;
        bool row = i % 4 == 1; /* touching neighbours in a row on the ground */
        def.position = row ? (ts_vec3){(float)i * 0.25f, 0.5f, 0} : (ts_vec3){(float)i * 3.0f, 5.0f + (float)(i % 7), 20};
        def.linear_damping = i % 5 == 2 ? 0.5f : 0.0f;
        def.angular_damping = i % 5 == 3 ? 0.5f : 0.0f;
        if (i % 9 == 4) {
            def.linear_velocity = (ts_vec3){0, 0, 399.9f};
        }
        if (i % 11 == 5) {
            def.angular_velocity = (ts_vec3){1000.0f, -20.0f, 3.0f};
        }
        bodies[i] = ts_create_body(world, &def);
        ts_box box = {{0.5f, 0.3f + 0.01f * (float)(i % 3), 0.2f}};
        assert_false(ts_shape_id_is_null(ts_create_box_shape(bodies[i], &shape, &box)));
    }
    for (int step = 0; step < 40; ++step) {
        for (int i = 0; i < N; i += 2) {
            float f = (float)(next_random(&seed) % 1000) * 30.0f;
            assert_ok(ts_body_apply_force_to_center(bodies[i], (ts_vec3){f, 0.5f * f, -f}));
            if (i % 6 == 0) {
                assert_ok(ts_body_apply_torque(bodies[i], (ts_vec3){0.1f * f, 0, 0.3f * f}));
            }
        }
        assert_ok(ts_world_step(world, DT));
    }
    uint64_t h = test_hash_bodies(TEST_FNV_START, bodies, N);
    assert_ok(ts_destroy_world(world));
    return h;
}

/* Every width (1, 4, 8, 16) and 1 or 2 threads give the same hash with the
 * limits scaling velocities on every path, both solvers. Tolerance: none. */
static void test_limits_same_bits_everywhere(void **state)
{
    (void)state;
    const int widths[] = {1, 4, 8, 16};
    for (int solver = 0; solver < 2; ++solver) {
        ts_solver_type type = solver == 0 ? TS_SOLVER_SOFT_STEP : TS_SOLVER_XPBD;
        uint64_t reference = limits_scene_hash(1, 1, type);
        for (int k = 0; k < 4; ++k) {
            for (int threads = 1; threads <= 2; ++threads) {
                int width = test_entry_width(widths[k], threads);
                if (width == 0) {
                    continue;
                }
                uint64_t h = limits_scene_hash(width, threads, type);
                if (h != reference) {
                    fail_msg("solver %d, width %d, %d threads: %016llx, width 1: %016llx", solver, widths[k], threads,
                             (unsigned long long)h, (unsigned long long)reference);
                }
            }
        }
    }
}

/* ---- bounds ---- */

/* `call` returns TS_ERROR_OUT_OF_RANGE and ts_last_error() names `bound`. */
#define expect_bound(call, bound)                                                                              \
    do {                                                                                                       \
        ts_result r_ = (call);                                                                                 \
        if (r_ != TS_ERROR_OUT_OF_RANGE || strstr(ts_last_error(), bound) == NULL) {                           \
            fail_msg("%s returned %s (%s), expected TS_ERROR_OUT_OF_RANGE naming %s", #call, ts_result_name(r_), \
                     ts_last_error(), bound);                                                                  \
        }                                                                                                      \
    } while (0)

/* The hash of one body, to see that a refused call changed nothing. */
static uint64_t body_hash(ts_body_id body)
{
    uint64_t h = test_hash_bodies(TEST_FNV_START, &body, 1);
    bool awake;
    assert_ok(ts_body_is_awake(body, &awake));
    return test_fnv(h, &awake, sizeof awake);
}

/* Every setter refuses a value beyond its documented bound with
 * TS_ERROR_OUT_OF_RANGE naming the bound, and changes nothing (the body's
 * pose, velocities and sleep state, the world's settings); the bound itself
 * is accepted. */
static void test_setters_refuse_beyond_bounds(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    ts_body_id body = test_box(world, TS_BODY_DYNAMIC, (ts_vec3){0, 1, 0}, TS_QUAT_IDENTITY, (ts_vec3){0.5f, 0.5f, 0.5f},
                               1.0f);
    assert_ok(ts_body_set_awake(body, false));
    uint64_t before = body_hash(body);
    const ts_vec3 far = {0, 0, 1.01e6f}, fast = {0, 400.1f, 0}, spin = {0, 0, 1.001e4f};
    expect_bound(ts_body_set_position(body, far), "TS_MAX_EXTENT");
    expect_bound(ts_body_set_transform(body, far, TS_QUAT_IDENTITY), "TS_MAX_EXTENT");
    expect_bound(ts_body_set_linear_velocity(body, fast), "max_linear_speed");
    expect_bound(ts_body_set_linear_velocity(body, (ts_vec3){1e20f, 0, 0}), "max_linear_speed");
    expect_bound(ts_body_set_linear_velocity(body, (ts_vec3){FLT_MAX, FLT_MAX, 0}), "max_linear_speed");
    expect_bound(ts_body_set_angular_velocity(body, spin), "TS_MAX_ANGULAR_SPEED");
    expect_bound(ts_body_set_angular_velocity(body, (ts_vec3){FLT_MAX, 0, 0}), "TS_MAX_ANGULAR_SPEED");
    expect_bound(ts_body_set_gravity_scale(body, 1001.0f), "TS_MAX_GRAVITY_SCALE");
    expect_bound(ts_body_apply_force_to_center(body, (ts_vec3){1e38f, 0, 0}), "TS_MAX_FORCE");
    expect_bound(ts_body_apply_torque(body, (ts_vec3){0, -2e30f, 0}), "TS_MAX_FORCE");
    expect_bound(ts_body_apply_force(body, (ts_vec3){1, 0, 0}, far), "TS_MAX_EXTENT");
    expect_bound(ts_body_apply_force(body, (ts_vec3){1e30f, 0, 0}, (ts_vec3){0, 1e6f, 0}), "TS_MAX_FORCE");
    expect_bound(ts_body_apply_linear_impulse_to_center(body, (ts_vec3){3e38f, 0, 0}), "max_linear_speed");
    expect_bound(ts_body_apply_linear_impulse(body, (ts_vec3){0, 0, 401.0f}, (ts_vec3){0, 1, 0}),
                 "max_linear_speed");
    expect_bound(ts_body_apply_angular_impulse(body, (ts_vec3){1e30f, 0, 0}), "TS_MAX_ANGULAR_SPEED");
    assert_true(body_hash(body) == before); /* still asleep: no refused call woke it */

    /* the bounds themselves are accepted */
    assert_ok(ts_body_set_position(body, (ts_vec3){0, 0, 1e6f}));
    assert_ok(ts_body_set_linear_velocity(body, (ts_vec3){0, 400.0f, 0}));
    assert_ok(ts_body_set_angular_velocity(body, (ts_vec3){0, 0, 1e4f}));
    assert_ok(ts_body_set_gravity_scale(body, -1000.0f));
    assert_ok(ts_body_apply_force_to_center(body, (ts_vec3){1e30f, 0, 0}));

    expect_bound(ts_world_set_gravity(world, (ts_vec3){0, -1e38f, 0}), "TS_MAX_GRAVITY");
    expect_bound(ts_world_step(world, 1e30f), "TS_MAX_TIME_STEP");
    expect_bound(ts_world_step(world, 1e-9f), "TS_MIN_TIME_STEP");
    expect_bound(ts_world_set_speed_limits(world, 1.01e6f, 0.5f), "TS_MAX_SPEED");
    expect_bound(ts_world_set_speed_limits(world, 100.0f, 1.6f), "TS_MAX_ROTATION");
    expect_bound(ts_world_set_speed_limits(world, 0.0f, 0.5f), "max_linear_speed");
    assert_int_equal(ts_world_set_speed_limits(world, NAN, 0.5f), TS_ERROR_NOT_FINITE);
    float speed, rotation;
    assert_ok(ts_world_get_speed_limits(world, &speed, &rotation));
    assert_true(speed == 400.0f && rotation == TS_DEFAULT_MAX_ROTATION);
    assert_int_equal(ts_world_get_speed_limits(world, NULL, &rotation), TS_ERROR_NULL_POINTER);
    assert_int_equal(ts_world_get_speed_limits(world, &speed, NULL), TS_ERROR_NULL_POINTER);
    assert_int_equal(ts_world_set_speed_limits(TS_NULL_WORLD_ID, 1.0f, 0.5f), TS_ERROR_STALE_ID);
    assert_int_equal(ts_world_get_speed_limits(TS_NULL_WORLD_ID, &speed, &rotation), TS_ERROR_STALE_ID);
    assert_ok(ts_destroy_world(world));
}

/* Defs refuse the same: a body def's position, velocities and gravity
 * scale, a shape def's local position, a joint frame's position, a world
 * def's gravity, speed limits and push speed, each beyond its bound, with
 * TS_ERROR_OUT_OF_RANGE naming the bound (a create call returns the null id). */
static void test_defs_refuse_beyond_bounds(void **state)
{
    (void)state;
    ts_world_def wd = ts_default_world_def();
    wd.gravity = (ts_vec3){0, 0, -1.1e5f};
    assert_true(ts_world_id_is_null(ts_create_world(&wd)));
    assert_non_null(strstr(ts_last_error(), "TS_MAX_GRAVITY"));
    wd = ts_default_world_def();
    wd.max_linear_speed = 2e6f;
    assert_true(ts_world_id_is_null(ts_create_world(&wd)));
    assert_non_null(strstr(ts_last_error(), "TS_MAX_SPEED"));
    wd = ts_default_world_def();
    wd.max_rotation = 2.0f;
    assert_true(ts_world_id_is_null(ts_create_world(&wd)));
    assert_non_null(strstr(ts_last_error(), "TS_MAX_ROTATION"));
    wd = ts_default_world_def();
    wd.contact_push_speed = 1e30f;
    assert_true(ts_world_id_is_null(ts_create_world(&wd)));
    assert_non_null(strstr(ts_last_error(), "TS_MAX_SPEED"));

    ts_world_id world = test_world(4, 1);
    ts_body_def bd = ts_default_body_def();
    bd.type = TS_BODY_DYNAMIC;
    const char *bounds[] = {"TS_MAX_EXTENT", "max_linear_speed", "TS_MAX_ANGULAR_SPEED", "TS_MAX_GRAVITY_SCALE"};
    for (int k = 0; k < 4; ++k) {
        ts_body_def def = bd;
        switch (k) {
        case 0: def.position = (ts_vec3){-2e6f, 0, 0}; break;
        case 1: def.linear_velocity = (ts_vec3){1e20f, 0, 0}; break;
        case 2: def.angular_velocity = (ts_vec3){-0.085f, 0, 1e30f}; break;
        default: def.gravity_scale = 1e38f; break;
        }
        assert_true(ts_body_id_is_null(ts_create_body(world, &def)));
        assert_non_null(strstr(ts_last_error(), bounds[k]));
        assert_non_null(strstr(ts_last_error(), "TS_ERROR_OUT_OF_RANGE"));
    }
    ts_body_id a = test_box(world, TS_BODY_DYNAMIC, (ts_vec3){0, 0, 0}, TS_QUAT_IDENTITY, (ts_vec3){1, 1, 1}, 1.0f);
    ts_body_id b = test_box(world, TS_BODY_DYNAMIC, (ts_vec3){0, 3, 0}, TS_QUAT_IDENTITY, (ts_vec3){1, 1, 1}, 1.0f);
    ts_shape_def sd = ts_default_shape_def();
    sd.local_position = (ts_vec3){0, 1.5e4f, 0};
    ts_sphere sphere = {0.5f};
    assert_true(ts_shape_id_is_null(ts_create_sphere_shape(a, &sd, &sphere)));
    assert_non_null(strstr(ts_last_error(), "TS_MAX_OFFSET"));
    ts_fixed_joint_def jd = ts_default_fixed_joint_def();
    jd.base.body_a = a;
    jd.base.body_b = b;
    jd.base.local_frame_b.p = (ts_vec3){1e5f, 0, 0};
    assert_true(ts_joint_id_is_null(ts_create_fixed_joint(world, &jd)));
    assert_non_null(strstr(ts_last_error(), "TS_MAX_OFFSET"));
    jd.base.local_frame_b.p = (ts_vec3){1e4f, 0, 0}; /* the bound itself */
    assert_false(ts_joint_id_is_null(ts_create_fixed_joint(world, &jd)));
    assert_ok(ts_destroy_world(world));
}

/* A body whose shapes give more than TS_MAX_MASS kg (or TS_MAX_MASS_INERTIA
 * kg m^2) is refused: two 1e19-kg-ish bodies colliding at the speed limit
 * would overflow a contact impulse. The bound itself is far above any
 * physical scene (a 1 km rock is 3e12 kg). */
static void test_mass_bound(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    ts_body_id body = test_dynamic_body(world, (ts_vec3){0, 0, 0});
    ts_shape_def sd = ts_default_shape_def();
    sd.density = 1e20f; /* a 1 m box: 8e20 kg */
    ts_box box = {{1, 1, 1}};
    assert_true(ts_shape_id_is_null(ts_create_box_shape(body, &sd, &box)));
    assert_non_null(strstr(ts_last_error(), "TS_ERROR_OUT_OF_RANGE"));
    sd.density = 1e18f; /* 8e18 kg */
    assert_false(ts_shape_id_is_null(ts_create_box_shape(body, &sd, &box)));
    assert_ok(ts_destroy_world(world));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_limits),
        cmocka_unit_test(test_step_keeps_speeds_within_limits),
        cmocka_unit_test(test_world_limits_apply),
        cmocka_unit_test(test_limits_same_bits_everywhere),
        cmocka_unit_test(test_setters_refuse_beyond_bounds),
        cmocka_unit_test(test_defs_refuse_beyond_bounds),
        cmocka_unit_test(test_mass_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
