/* Bad input to the joint API: each case returns its error code, names the
 * problem in ts_last_error(), and changes nothing. */
#include "test_common.h"

typedef struct fixture {
    ts_world_id world;
    ts_body_id ground, a, b;
} fixture;

static fixture make(void)
{
    fixture f;
    f.world = test_world(4, 1);
    f.ground = test_box(f.world, TS_BODY_STATIC, (ts_vec3){0, 0, 0}, TS_QUAT_IDENTITY, (ts_vec3){1, 1, 1}, 1);
    f.a = test_box(f.world, TS_BODY_DYNAMIC, (ts_vec3){0, 5, 0}, TS_QUAT_IDENTITY, (ts_vec3){0.5f, 0.5f, 0.5f}, 1);
    f.b = test_box(f.world, TS_BODY_DYNAMIC, (ts_vec3){2, 5, 0}, TS_QUAT_IDENTITY, (ts_vec3){0.5f, 0.5f, 0.5f}, 1);
    return f;
}

static void expect_error(const char *contains)
{
    if (strstr(ts_last_error(), contains) == NULL) {
        fail_msg("ts_last_error() is \"%s\"; expected it to mention \"%s\"", ts_last_error(), contains);
    }
}

static ts_ball_joint_def ball_def(ts_body_id a, ts_body_id b)
{
    ts_ball_joint_def def = ts_default_ball_joint_def();
    def.base.body_a = a;
    def.base.body_b = b;
    return def;
}

static void test_same_body_twice(void **state)
{
    (void)state;
    fixture f = make();
    ts_ball_joint_def def = ball_def(f.a, f.a);
    assert_true(ts_joint_id_is_null(ts_create_ball_joint(f.world, &def)));
    expect_error("same body");
    assert_ok(ts_destroy_world(f.world));
}

static void test_destroyed_body(void **state)
{
    (void)state;
    fixture f = make();
    assert_ok(ts_destroy_body(f.b));
    ts_ball_joint_def def = ball_def(f.a, f.b);
    assert_true(ts_joint_id_is_null(ts_create_ball_joint(f.world, &def)));
    expect_error("stale");
    assert_ok(ts_destroy_world(f.world));
}

static void test_two_static_bodies(void **state)
{
    (void)state;
    fixture f = make();
    ts_body_id other = test_box(f.world, TS_BODY_STATIC, (ts_vec3){5, 0, 0}, TS_QUAT_IDENTITY, (ts_vec3){1, 1, 1}, 1);
    ts_hinge_joint_def def = ts_default_hinge_joint_def();
    def.base.body_a = f.ground;
    def.base.body_b = other;
    assert_true(ts_joint_id_is_null(ts_create_hinge_joint(f.world, &def)));
    expect_error("neither body is dynamic");
    assert_ok(ts_destroy_world(f.world));
}

static void test_nan_frames(void **state)
{
    (void)state;
    fixture f = make();
    ts_ball_joint_def def = ball_def(f.a, f.b);
    def.base.local_frame_a.p.y = NAN;
    assert_true(ts_joint_id_is_null(ts_create_ball_joint(f.world, &def)));
    expect_error("local_frame_a.p");
    def = ball_def(f.a, f.b);
    def.base.local_frame_b.q = (ts_quat){NAN, 0, 0, 1};
    assert_true(ts_joint_id_is_null(ts_create_ball_joint(f.world, &def)));
    expect_error("local_frame_b.q");
    def = ball_def(f.a, f.b);
    def.base.local_frame_b.q = (ts_quat){0, 0, 0, 2}; /* not a unit quaternion */
    assert_true(ts_joint_id_is_null(ts_create_ball_joint(f.world, &def)));
    expect_error("unit quaternion");
    assert_ok(ts_destroy_world(f.world));
}

static void test_inverted_limits(void **state)
{
    (void)state;
    fixture f = make();
    ts_hinge_joint_def hinge = ts_default_hinge_joint_def();
    hinge.base.body_a = f.a;
    hinge.base.body_b = f.b;
    hinge.enable_limit = true;
    hinge.lower_angle = 0.5f;
    hinge.upper_angle = -0.5f;
    assert_true(ts_joint_id_is_null(ts_create_hinge_joint(f.world, &hinge)));
    expect_error("inverted");
    hinge.lower_angle = -4.0f; /* beyond -pi */
    hinge.upper_angle = 0.0f;
    assert_true(ts_joint_id_is_null(ts_create_hinge_joint(f.world, &hinge)));
    expect_error("[-pi, pi]");
    ts_prismatic_joint_def slider = ts_default_prismatic_joint_def();
    slider.base.body_a = f.a;
    slider.base.body_b = f.b;
    slider.lower_translation = 1.0f;
    slider.upper_translation = NAN;
    assert_true(ts_joint_id_is_null(ts_create_prismatic_joint(f.world, &slider)));
    assert_int_equal(ts_last_error()[0] != '\0', 1);
    expect_error("upper limit");
    ts_distance_joint_def rope = ts_default_distance_joint_def();
    rope.base.body_a = f.a;
    rope.base.body_b = f.b;
    rope.min_length = 3.0f;
    rope.max_length = 2.0f;
    assert_true(ts_joint_id_is_null(ts_create_distance_joint(f.world, &rope)));
    expect_error("inverted");

    /* the setters refuse the same */
    ts_joint_id j = ts_create_hinge_joint(f.world, &(ts_hinge_joint_def){.base = hinge.base, .internal_value =
                                                                             ts_default_hinge_joint_def().internal_value});
    assert_false(ts_joint_id_is_null(j));
    assert_int_equal(ts_joint_set_limits(j, true, 1.0f, -1.0f), TS_ERROR_OUT_OF_RANGE);
    expect_error("inverted");
    assert_int_equal(ts_joint_set_motor(j, true, 1.0f, -5.0f), TS_ERROR_OUT_OF_RANGE);
    assert_int_equal(ts_joint_set_spring(j, true, NAN, 1.0f, 0.0f), TS_ERROR_NOT_FINITE);
    /* Beyond the bounds (limits.h): a spring of 3e25 Hz made a pile NaN (fuzz_api). */
    assert_int_equal(ts_joint_set_spring(j, true, 3.3e25f, 1.0f, 0.0f), TS_ERROR_OUT_OF_RANGE);
    assert_non_null(strstr(ts_last_error(), "TS_MAX_SPRING_HERTZ"));
    assert_int_equal(ts_joint_set_spring(j, true, 1.0f, 2e6f, 0.0f), TS_ERROR_OUT_OF_RANGE);
    bool enable;
    float lower, upper;
    assert_ok(ts_joint_get_limits(j, &enable, &lower, &upper));
    assert_false(enable); /* unchanged */
    assert_ok(ts_destroy_world(f.world));
}

/* Absurd but finite joint values (limits.h TS_MAX_JOINT_VALUE,
 * TS_MAX_FORCE): a distance joint 1e30 m long was accepted and, under
 * XPBD, made a 1e30 m correction whose square overflowed into NaN that
 * spread through a 250-box pile within one step (fuzz_api). Refused at
 * creation and by each setter, naming the bound, and the joint keeps what
 * it had. */
static void test_absurd_values(void **state)
{
    (void)state;
    fixture f = make();
    ts_distance_joint_def rope = ts_default_distance_joint_def();
    rope.base.body_a = f.a;
    rope.base.body_b = f.b;
    rope.length = 1e30f;
    assert_true(ts_joint_id_is_null(ts_create_distance_joint(f.world, &rope)));
    expect_error("TS_MAX_JOINT_VALUE");
    rope.length = 2.0f;
    rope.max_length = 1e7f;
    assert_true(ts_joint_id_is_null(ts_create_distance_joint(f.world, &rope)));
    expect_error("TS_MAX_JOINT_VALUE");
    rope.max_length = 10.0f;
    ts_joint_id j = ts_create_distance_joint(f.world, &rope);
    assert_false(ts_joint_id_is_null(j));
    assert_int_equal(ts_joint_set_length(j, 1e30f), TS_ERROR_OUT_OF_RANGE);
    expect_error("TS_MAX_JOINT_VALUE");
    assert_int_equal(ts_joint_set_spring(j, true, 1.0f, 1.0f, -3e38f), TS_ERROR_OUT_OF_RANGE);
    expect_error("TS_MAX_JOINT_VALUE");
    ts_hinge_joint_def hinge = ts_default_hinge_joint_def();
    hinge.base.body_a = f.a;
    hinge.base.body_b = f.b;
    hinge.enable_motor = true;
    hinge.motor_speed = 1e30f;
    hinge.max_motor_torque = 1.0f;
    assert_true(ts_joint_id_is_null(ts_create_hinge_joint(f.world, &hinge)));
    expect_error("TS_MAX_JOINT_VALUE");
    hinge.motor_speed = 1.0f;
    hinge.max_motor_torque = 3e38f;
    assert_true(ts_joint_id_is_null(ts_create_hinge_joint(f.world, &hinge)));
    expect_error("TS_MAX_FORCE");
    ts_prismatic_joint_def slider = ts_default_prismatic_joint_def();
    slider.base.body_a = f.a;
    slider.base.body_b = f.b;
    slider.lower_translation = -2e6f;
    assert_true(ts_joint_id_is_null(ts_create_prismatic_joint(f.world, &slider)));
    expect_error("TS_MAX_JOINT_VALUE");
    /* the refused spring setter changed nothing */
    bool enable = true;
    float hertz = -1.0f, ratio = -1.0f, target = -1.0f;
    assert_ok(ts_joint_get_spring(j, &enable, &hertz, &ratio, &target));
    assert_false(enable);
    assert_ok(ts_destroy_world(f.world));
}

static void test_wrong_type_and_stale_ids(void **state)
{
    (void)state;
    fixture f = make();
    ts_ball_joint_def def = ball_def(f.a, f.b);
    ts_joint_id j = ts_create_ball_joint(f.world, &def);
    assert_false(ts_joint_id_is_null(j));
    assert_int_equal(ts_joint_set_motor(j, true, 1.0f, 1.0f), TS_ERROR_INVALID_OPERATION);
    expect_error("ball joint has no motor");
    float position;
    assert_int_equal(ts_joint_get_position(j, &position), TS_ERROR_INVALID_OPERATION);
    assert_int_equal(ts_joint_set_length(j, 1.0f), TS_ERROR_INVALID_OPERATION);
    assert_ok(ts_destroy_joint(j));
    assert_int_equal(ts_destroy_joint(j), TS_ERROR_STALE_ID);
    expect_error("stale");
    assert_int_equal(ts_joint_get_position(j, &position), TS_ERROR_STALE_ID);
    /* a def not from ts_default_*_joint_def(), and NULL */
    ts_ball_joint_def zero = {0};
    zero.base.body_a = f.a;
    zero.base.body_b = f.b;
    assert_true(ts_joint_id_is_null(ts_create_ball_joint(f.world, &zero)));
    expect_error("ts_default_");
    assert_true(ts_joint_id_is_null(ts_create_ball_joint(f.world, NULL)));
    expect_error("NULL");
    /* bodies of another world */
    ts_world_id other = test_world(4, 1);
    ts_body_id stranger = test_dynamic_body(other, (ts_vec3){0, 0, 0});
    def = ball_def(f.a, stranger);
    assert_true(ts_joint_id_is_null(ts_create_ball_joint(f.world, &def)));
    expect_error("another world");
    assert_ok(ts_destroy_world(other));
    assert_ok(ts_destroy_world(f.world));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_body_twice),
        cmocka_unit_test(test_destroyed_body),
        cmocka_unit_test(test_two_static_bodies),
        cmocka_unit_test(test_nan_frames),
        cmocka_unit_test(test_inverted_limits),
        cmocka_unit_test(test_absurd_values),
        cmocka_unit_test(test_wrong_type_and_stale_ids),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
