/* Bad input: every failing call returns its error code (or a null id from a
 * create call), ts_last_error() names the function, the argument and the
 * problem, the failed call changes nothing and writes no output, and the world
 * still steps correctly afterwards. */
#include "test_common.h"

#include <float.h>
#include <limits.h>
#include <string.h>

/* ==== helpers ==== */

#define BAD_FLOAT_COUNT 3
static float bad_float(int i)
{
    const float values[BAD_FLOAT_COUNT] = {NAN, INFINITY, -INFINITY};
    return values[i];
}

static ts_vec3 vec3_with(ts_vec3 v, int component, float value)
{
    float *c[3] = {&v.x, &v.y, &v.z};
    *c[component] = value;
    return v;
}

static ts_quat quat_with(ts_quat q, int component, float value)
{
    float *c[4] = {&q.x, &q.y, &q.z, &q.w};
    *c[component] = value;
    return q;
}

static double quat_length(ts_quat q)
{
    return sqrt((double)q.x * q.x + (double)q.y * q.y + (double)q.z * q.z + (double)q.w * q.w);
}

/* Leaves a known message in ts_last_error() that does not name `function`, so
 * that a check afterwards sees the message of the call under test and not one
 * left over from an earlier call. */
static void prime_last_error(const char *function)
{
    if (strcmp(function, "ts_shape_get_user_data") != 0) {
        (void)ts_shape_get_user_data(TS_NULL_SHAPE_ID);
    } else {
        (void)ts_body_get_user_data(TS_NULL_BODY_ID);
    }
}

/* ts_last_error() is non-empty and names the function, the argument (when not
 * NULL) and, for create calls that return only a null id, the result code. */
static void check_message_at(const char *file, int line, const char *call, const char *function, const char *argument,
                             const char *code_name)
{
    const char *message = ts_last_error();
    if (message == NULL || message[0] == '\0') {
        print_error("%s: ts_last_error() is empty\n", call);
        _fail(file, line);
    }
    if (strstr(message, function) == NULL) {
        print_error("%s: ts_last_error() \"%s\" does not name the function %s\n", call, message, function);
        _fail(file, line);
    }
    if (argument != NULL && strstr(message, argument) == NULL) {
        print_error("%s: ts_last_error() \"%s\" does not name the argument %s\n", call, message, argument);
        _fail(file, line);
    }
    if (code_name != NULL && strstr(message, code_name) == NULL) {
        print_error("%s: ts_last_error() \"%s\" does not name the problem %s\n", call, message, code_name);
        _fail(file, line);
    }
}

static void check_result_at(const char *file, int line, const char *call, ts_result got, ts_result want,
                            const char *function, const char *argument)
{
    if (got != want) {
        print_error("%s returned %s, expected %s (ts_last_error: \"%s\")\n", call, ts_result_name(got),
                    ts_result_name(want), ts_last_error());
        _fail(file, line);
    }
    check_message_at(file, line, call, function, argument, NULL);
}

/* `call` returns `code`; ts_last_error() names `function` and `argument`. */
#define expect_error_at(file, line, call, code, function, argument)                                            \
    do {                                                                                                       \
        prime_last_error(function);                                                                            \
        ts_result got_result_ = (call);                                                                        \
        check_result_at(file, line, #call, got_result_, code, function, argument);                             \
    } while (0)
#define expect_error(call, code, function, argument) expect_error_at(__FILE__, __LINE__, call, code, function, argument)

/* A create call returns the null id; ts_last_error() names `function`,
 * `argument` and the result name of `code`. An unexpected object is destroyed
 * again so that the rest of the test runs on the old state. */
#define expect_null_world_at(file, line, call, code, function, argument)                                       \
    do {                                                                                                       \
        prime_last_error(function);                                                                            \
        ts_world_id got_world_ = (call);                                                                       \
        if (!ts_world_id_is_null(got_world_)) {                                                                \
            (void)ts_destroy_world(got_world_);                                                                \
            print_error("%s returned a world, expected the null id (%s)\n", #call, ts_result_name(code));      \
            _fail(file, line);                                                                                 \
        }                                                                                                      \
        check_message_at(file, line, #call, function, argument, ts_result_name(code));                         \
    } while (0)
#define expect_null_world(call, code, function, argument)                                                      \
    expect_null_world_at(__FILE__, __LINE__, call, code, function, argument)

#define expect_null_body_at(file, line, call, code, function, argument)                                        \
    do {                                                                                                       \
        prime_last_error(function);                                                                            \
        ts_body_id got_body_ = (call);                                                                         \
        if (!ts_body_id_is_null(got_body_)) {                                                                  \
            (void)ts_destroy_body(got_body_);                                                                  \
            print_error("%s returned a body, expected the null id (%s)\n", #call, ts_result_name(code));       \
            _fail(file, line);                                                                                 \
        }                                                                                                      \
        check_message_at(file, line, #call, function, argument, ts_result_name(code));                         \
    } while (0)
#define expect_null_body(call, code, function, argument)                                                       \
    expect_null_body_at(__FILE__, __LINE__, call, code, function, argument)

#define expect_null_shape_at(file, line, call, code, function, argument)                                       \
    do {                                                                                                       \
        prime_last_error(function);                                                                            \
        ts_shape_id got_shape_ = (call);                                                                       \
        if (!ts_shape_id_is_null(got_shape_)) {                                                                \
            (void)ts_destroy_shape(got_shape_);                                                                \
            print_error("%s returned a shape, expected the null id (%s)\n", #call, ts_result_name(code));      \
            _fail(file, line);                                                                                 \
        }                                                                                                      \
        check_message_at(file, line, #call, function, argument, ts_result_name(code));                         \
    } while (0)
#define expect_null_shape(call, code, function, argument)                                                      \
    expect_null_shape_at(__FILE__, __LINE__, call, code, function, argument)

/* Outputs are filled with this byte before a failing call; a failing call
 * must leave every byte as it was. */
#define SENTINEL_BYTE 0xA5

static void fill_sentinel(void *memory, size_t size) { memset(memory, SENTINEL_BYTE, size); }

static void check_untouched_at(const char *file, int line, const char *what, const void *memory, size_t size)
{
    const unsigned char *bytes = memory;
    for (size_t i = 0; i < size; ++i) {
        if (bytes[i] != SENTINEL_BYTE) {
            print_error("%s: a failed call wrote to the output (byte %zu)\n", what, i);
            _fail(file, line);
        }
    }
}
#define assert_untouched(object) check_untouched_at(__FILE__, __LINE__, #object, &(object), sizeof(object))

static void check_near_at(const char *file, int line, const char *what, double actual, double expected,
                          double tolerance)
{
    if (!(fabs(actual - expected) <= tolerance)) {
        print_error("%s = %.9g, expected %.9g within %.3g\n", what, actual, expected, tolerance);
        _fail(file, line);
    }
}

/* ---- snapshots: a failed call changes nothing ---- */

typedef struct body_snapshot {
    ts_body_type type;
    ts_transform transform;
    ts_vec3 linear_velocity;
    ts_vec3 angular_velocity;
    ts_vec3 center;
    ts_mass_data mass_data;
    float linear_damping;
    float angular_damping;
    float gravity_scale;
    int shape_count;
    void *user_data;
    ts_world_id world;
} body_snapshot;

static body_snapshot snapshot_body(ts_body_id body)
{
    body_snapshot s;
    memset(&s, 0, sizeof s);
    assert_ok(ts_body_get_type(body, &s.type));
    assert_ok(ts_body_get_transform(body, &s.transform));
    assert_ok(ts_body_get_linear_velocity(body, &s.linear_velocity));
    assert_ok(ts_body_get_angular_velocity(body, &s.angular_velocity));
    assert_ok(ts_body_get_world_center_of_mass(body, &s.center));
    assert_ok(ts_body_get_mass_data(body, &s.mass_data));
    assert_ok(ts_body_get_linear_damping(body, &s.linear_damping));
    assert_ok(ts_body_get_angular_damping(body, &s.angular_damping));
    assert_ok(ts_body_get_gravity_scale(body, &s.gravity_scale));
    assert_ok(ts_body_get_shapes(body, NULL, 0, &s.shape_count));
    s.user_data = ts_body_get_user_data(body);
    s.world = ts_body_get_world(body);
    return s;
}

#define SAME_FIELD(a, b, field, file, line)                                                                    \
    do {                                                                                                       \
        if (memcmp(&(a)->field, &(b)->field, sizeof((a)->field)) != 0) {                                       \
            print_error("the body's " #field " changed\n");                                                    \
            _fail(file, line);                                                                                 \
        }                                                                                                      \
    } while (0)

static void check_body_unchanged_at(const char *file, int line, const body_snapshot *before, ts_body_id body)
{
    body_snapshot after = snapshot_body(body);
    SAME_FIELD(before, &after, type, file, line);
    SAME_FIELD(before, &after, transform, file, line);
    SAME_FIELD(before, &after, linear_velocity, file, line);
    SAME_FIELD(before, &after, angular_velocity, file, line);
    SAME_FIELD(before, &after, center, file, line);
    SAME_FIELD(before, &after, mass_data, file, line);
    SAME_FIELD(before, &after, linear_damping, file, line);
    SAME_FIELD(before, &after, angular_damping, file, line);
    SAME_FIELD(before, &after, gravity_scale, file, line);
    SAME_FIELD(before, &after, shape_count, file, line);
    SAME_FIELD(before, &after, user_data, file, line);
    SAME_FIELD(before, &after, world, file, line);
}
#define assert_body_unchanged(before, body) check_body_unchanged_at(__FILE__, __LINE__, &(before), body)

typedef struct shape_snapshot {
    ts_shape_type type;
    ts_body_id body;
    ts_transform local;
    float density, friction, restitution, rolling_resistance;
    ts_filter filter;
    void *user_data;
    ts_sphere sphere;
    ts_box box;
    ts_capsule capsule;
} shape_snapshot;

static shape_snapshot snapshot_shape(ts_shape_id shape)
{
    shape_snapshot s;
    memset(&s, 0, sizeof s);
    assert_ok(ts_shape_get_type(shape, &s.type));
    assert_ok(ts_shape_get_body(shape, &s.body));
    assert_ok(ts_shape_get_local_transform(shape, &s.local));
    assert_ok(ts_shape_get_density(shape, &s.density));
    assert_ok(ts_shape_get_friction(shape, &s.friction));
    assert_ok(ts_shape_get_restitution(shape, &s.restitution));
    assert_ok(ts_shape_get_rolling_resistance(shape, &s.rolling_resistance));
    assert_ok(ts_shape_get_filter(shape, &s.filter));
    s.user_data = ts_shape_get_user_data(shape);
    switch (s.type) {
    case TS_SHAPE_SPHERE: assert_ok(ts_shape_get_sphere(shape, &s.sphere)); break;
    case TS_SHAPE_BOX: assert_ok(ts_shape_get_box(shape, &s.box)); break;
    case TS_SHAPE_CAPSULE: assert_ok(ts_shape_get_capsule(shape, &s.capsule)); break;
    default: fail_msg("unknown shape type %d", (int)s.type);
    }
    return s;
}

static void check_shape_unchanged_at(const char *file, int line, const shape_snapshot *before, ts_shape_id shape)
{
    shape_snapshot after = snapshot_shape(shape);
    SAME_FIELD(before, &after, type, file, line);
    SAME_FIELD(before, &after, body, file, line);
    SAME_FIELD(before, &after, local, file, line);
    SAME_FIELD(before, &after, density, file, line);
    SAME_FIELD(before, &after, friction, file, line);
    SAME_FIELD(before, &after, restitution, file, line);
    SAME_FIELD(before, &after, rolling_resistance, file, line);
    SAME_FIELD(before, &after, filter, file, line);
    SAME_FIELD(before, &after, user_data, file, line);
    SAME_FIELD(before, &after, sphere, file, line);
    SAME_FIELD(before, &after, box, file, line);
    SAME_FIELD(before, &after, capsule, file, line);
}
#define assert_shape_unchanged(before, shape) check_shape_unchanged_at(__FILE__, __LINE__, &(before), shape)

typedef struct world_snapshot {
    ts_vec3 gravity;
    ts_world_counters counters;
} world_snapshot;

static world_snapshot snapshot_world(ts_world_id world)
{
    world_snapshot s;
    memset(&s, 0, sizeof s);
    assert_ok(ts_world_get_gravity(world, &s.gravity));
    assert_ok(ts_world_get_counters(world, &s.counters));
    return s;
}

static void check_world_unchanged_at(const char *file, int line, const world_snapshot *before, ts_world_id world)
{
    world_snapshot after = snapshot_world(world);
    if (memcmp(&before->gravity, &after.gravity, sizeof after.gravity) != 0) {
        print_error("the world's gravity changed\n");
        _fail(file, line);
    }
    const ts_world_counters *a = &before->counters, *b = &after.counters;
    if (a->body_count != b->body_count || a->awake_body_count != b->awake_body_count ||
        a->static_body_count != b->static_body_count || a->shape_count != b->shape_count ||
        a->step_count != b->step_count || a->thread_count != b->thread_count) {
        print_error("the world's counters changed: bodies %d -> %d, awake %d -> %d, static %d -> %d, shapes %d -> %d, "
                    "steps %d -> %d, threads %d -> %d\n",
                    a->body_count, b->body_count, a->awake_body_count, b->awake_body_count, a->static_body_count,
                    b->static_body_count, a->shape_count, b->shape_count, a->step_count, b->step_count,
                    a->thread_count, b->thread_count);
        _fail(file, line);
    }
}
#define assert_world_unchanged(before, world) check_world_unchanged_at(__FILE__, __LINE__, &(before), world)

/* ---- the world still works ---- */

/* 60 steps of 1/60 s with 4 substeps (h = 1/240) move a dynamic body without
 * damping or pending forces along x0 + v0 t + a t^2/2 + a h t/2 (semi-implicit
 * Euler, a = gravity * gravity scale), and change its velocity by a t. */
static void check_world_still_works_at(const char *file, int line, ts_world_id world, ts_body_id body)
{
    ts_vec3 g, x0, v0, x, v;
    float scale;
    assert_ok(ts_world_get_gravity(world, &g));
    assert_ok(ts_body_get_gravity_scale(body, &scale));
    assert_ok(ts_body_get_position(body, &x0));
    assert_ok(ts_body_get_linear_velocity(body, &v0));
    for (int i = 0; i < 60; ++i) {
        ts_result r = ts_world_step(world, 1.0f / 60.0f);
        if (r != TS_OK) {
            print_error("ts_world_step after the bad calls returned %s: %s\n", ts_result_name(r), ts_last_error());
            _fail(file, line);
        }
    }
    assert_ok(ts_body_get_position(body, &x));
    assert_ok(ts_body_get_linear_velocity(body, &v));
    const double t = 1.0, h = 1.0 / 240.0;
    const double a[3] = {(double)g.x * scale, (double)g.y * scale, (double)g.z * scale};
    const double p0[3] = {x0.x, x0.y, x0.z}, u0[3] = {v0.x, v0.y, v0.z};
    const double p[3] = {x.x, x.y, x.z}, u[3] = {v.x, v.y, v.z};
    static const char *names[3] = {"position.x", "position.y", "position.z"};
    static const char *vnames[3] = {"velocity.x", "velocity.y", "velocity.z"};
    for (int k = 0; k < 3; ++k) {
        double expected = p0[k] + u0[k] * t + 0.5 * a[k] * t * t + 0.5 * a[k] * h * t;
        check_near_at(file, line, names[k], p[k], expected, 1e-3 + 1e-5 * fabs(expected));
        check_near_at(file, line, vnames[k], u[k], u0[k] + a[k] * t, 1e-3);
    }
}
#define assert_world_still_works(world, body) check_world_still_works_at(__FILE__, __LINE__, world, body)

/* ---- a small scene ---- */

typedef struct scene {
    ts_world_id world;
    ts_body_id ground; /* static, a wide box far below */
    ts_shape_id ground_shape;
    ts_body_id body; /* dynamic, a unit cube centred on its origin */
    ts_shape_id shape;
} scene;

static scene make_scene(void)
{
    scene s;
    s.world = test_world(4, 1);
    ts_body_def def = ts_default_body_def();
    def.position = (ts_vec3){0.0f, -100.0f, 0.0f};
    s.ground = ts_create_body(s.world, &def);
    assert_false(ts_body_id_is_null(s.ground));
    ts_shape_def shape_def = ts_default_shape_def();
    ts_box ground_box = {{50.0f, 0.5f, 50.0f}};
    s.ground_shape = ts_create_box_shape(s.ground, &shape_def, &ground_box);
    assert_false(ts_shape_id_is_null(s.ground_shape));
    s.body = test_dynamic_body(s.world, (ts_vec3){1.0f, 2.0f, 3.0f});
    ts_box box = {{0.5f, 0.5f, 0.5f}};
    s.shape = ts_create_box_shape(s.body, &shape_def, &box);
    assert_false(ts_shape_id_is_null(s.shape));
    return s;
}

static void free_scene(scene *s) { assert_ok(ts_destroy_world(s->world)); }

/* Free fall of a fresh body over one step of 0.1 s: with n substeps the drop
 * is g dt^2 (n + 1) / (2 n), which tells the substep count. */
static void check_substeps_at(const char *file, int line, ts_world_id world, int substeps)
{
    ts_vec3 g;
    assert_ok(ts_world_get_gravity(world, &g));
    ts_body_id probe = test_dynamic_body(world, (ts_vec3){1000.0f, 0.0f, 0.0f});
    assert_ok(ts_world_step(world, 0.1f));
    ts_vec3 x;
    assert_ok(ts_body_get_position(probe, &x));
    assert_ok(ts_destroy_body(probe));
    double drop = (double)g.y * 0.01 * (substeps + 1) / (2.0 * substeps);
    check_near_at(file, line, "free-fall drop (tells the substep count)", x.y, drop, 1e-5);
}
#define assert_substeps(world, substeps) check_substeps_at(__FILE__, __LINE__, world, substeps)

/* ---- every call on a bad body / shape / world id ---- */

/* Every call that takes a body id fails with `code` on `id`, names itself in
 * ts_last_error() and writes nothing to its outputs. */
static void check_body_calls_fail_at(const char *file, int line, ts_body_id id, ts_result code)
{
    const ts_vec3 one = {1.0f, 1.0f, 1.0f};
    ts_body_type type;
    ts_vec3 vec;
    ts_quat quat;
    ts_transform transform;
    ts_mass_data mass_data;
    float value;

    fill_sentinel(&type, sizeof type);
    expect_error_at(file, line, ts_body_get_type(id, &type), code, "ts_body_get_type", "id");
    check_untouched_at(file, line, "type", &type, sizeof type);
    expect_error_at(file, line, ts_body_set_type(id, TS_BODY_DYNAMIC), code, "ts_body_set_type", "id");
    expect_error_at(file, line, ts_body_set_type(id, TS_BODY_STATIC), code, "ts_body_set_type", "id");

    fill_sentinel(&vec, sizeof vec);
    expect_error_at(file, line, ts_body_get_position(id, &vec), code, "ts_body_get_position", "id");
    check_untouched_at(file, line, "position", &vec, sizeof vec);
    expect_error_at(file, line, ts_body_set_position(id, one), code, "ts_body_set_position", "id");
    fill_sentinel(&quat, sizeof quat);
    expect_error_at(file, line, ts_body_get_rotation(id, &quat), code, "ts_body_get_rotation", "id");
    check_untouched_at(file, line, "rotation", &quat, sizeof quat);
    expect_error_at(file, line, ts_body_set_rotation(id, TS_QUAT_IDENTITY), code, "ts_body_set_rotation", "id");
    fill_sentinel(&transform, sizeof transform);
    expect_error_at(file, line, ts_body_get_transform(id, &transform), code, "ts_body_get_transform", "id");
    check_untouched_at(file, line, "transform", &transform, sizeof transform);
    expect_error_at(file, line, ts_body_set_transform(id, one, TS_QUAT_IDENTITY), code, "ts_body_set_transform",
                    "id");
    fill_sentinel(&vec, sizeof vec);
    expect_error_at(file, line, ts_body_get_world_center_of_mass(id, &vec), code,
                    "ts_body_get_world_center_of_mass", "id");
    check_untouched_at(file, line, "center", &vec, sizeof vec);

    fill_sentinel(&vec, sizeof vec);
    expect_error_at(file, line, ts_body_get_linear_velocity(id, &vec), code, "ts_body_get_linear_velocity", "id");
    check_untouched_at(file, line, "linear velocity", &vec, sizeof vec);
    expect_error_at(file, line, ts_body_set_linear_velocity(id, one), code, "ts_body_set_linear_velocity", "id");
    fill_sentinel(&vec, sizeof vec);
    expect_error_at(file, line, ts_body_get_angular_velocity(id, &vec), code, "ts_body_get_angular_velocity", "id");
    check_untouched_at(file, line, "angular velocity", &vec, sizeof vec);
    expect_error_at(file, line, ts_body_set_angular_velocity(id, one), code, "ts_body_set_angular_velocity", "id");

    expect_error_at(file, line, ts_body_apply_force(id, one, one), code, "ts_body_apply_force", "id");
    expect_error_at(file, line, ts_body_apply_force_to_center(id, one), code, "ts_body_apply_force_to_center", "id");
    expect_error_at(file, line, ts_body_apply_torque(id, one), code, "ts_body_apply_torque", "id");
    expect_error_at(file, line, ts_body_apply_linear_impulse(id, one, one), code, "ts_body_apply_linear_impulse",
                    "id");
    expect_error_at(file, line, ts_body_apply_linear_impulse_to_center(id, one), code,
                    "ts_body_apply_linear_impulse_to_center", "id");
    expect_error_at(file, line, ts_body_apply_angular_impulse(id, one), code, "ts_body_apply_angular_impulse", "id");

    fill_sentinel(&mass_data, sizeof mass_data);
    expect_error_at(file, line, ts_body_get_mass_data(id, &mass_data), code, "ts_body_get_mass_data", "id");
    check_untouched_at(file, line, "mass data", &mass_data, sizeof mass_data);
    fill_sentinel(&value, sizeof value);
    expect_error_at(file, line, ts_body_get_mass(id, &value), code, "ts_body_get_mass", "id");
    check_untouched_at(file, line, "mass", &value, sizeof value);

    expect_error_at(file, line, ts_body_set_linear_damping(id, 0.5f), code, "ts_body_set_linear_damping", "id");
    fill_sentinel(&value, sizeof value);
    expect_error_at(file, line, ts_body_get_linear_damping(id, &value), code, "ts_body_get_linear_damping", "id");
    check_untouched_at(file, line, "linear damping", &value, sizeof value);
    expect_error_at(file, line, ts_body_set_angular_damping(id, 0.5f), code, "ts_body_set_angular_damping", "id");
    fill_sentinel(&value, sizeof value);
    expect_error_at(file, line, ts_body_get_angular_damping(id, &value), code, "ts_body_get_angular_damping", "id");
    check_untouched_at(file, line, "angular damping", &value, sizeof value);
    expect_error_at(file, line, ts_body_set_gravity_scale(id, 2.0f), code, "ts_body_set_gravity_scale", "id");
    fill_sentinel(&value, sizeof value);
    expect_error_at(file, line, ts_body_get_gravity_scale(id, &value), code, "ts_body_get_gravity_scale", "id");
    check_untouched_at(file, line, "gravity scale", &value, sizeof value);

    static int user_data_target;
    expect_error_at(file, line, ts_body_set_user_data(id, &user_data_target), code, "ts_body_set_user_data", "id");
    prime_last_error("ts_body_get_user_data");
    if (ts_body_get_user_data(id) != NULL) {
        print_error("ts_body_get_user_data on a bad id returned non-NULL\n");
        _fail(file, line);
    }
    check_message_at(file, line, "ts_body_get_user_data(id)", "ts_body_get_user_data", "id", NULL);

    ts_shape_id shapes[4];
    int count;
    fill_sentinel(shapes, sizeof shapes);
    fill_sentinel(&count, sizeof count);
    expect_error_at(file, line, ts_body_get_shapes(id, shapes, 4, &count), code, "ts_body_get_shapes", "id");
    check_untouched_at(file, line, "shapes", shapes, sizeof shapes);
    check_untouched_at(file, line, "count", &count, sizeof count);

    prime_last_error("ts_body_get_world");
    if (!ts_world_id_is_null(ts_body_get_world(id))) {
        print_error("ts_body_get_world on a bad id returned a world\n");
        _fail(file, line);
    }
    check_message_at(file, line, "ts_body_get_world(id)", "ts_body_get_world", "id", NULL);
    if (ts_body_is_valid(id)) {
        print_error("ts_body_is_valid on a bad id returned true\n");
        _fail(file, line);
    }

    ts_shape_def shape_def = ts_default_shape_def();
    ts_sphere sphere = {0.5f};
    ts_box box = {{0.5f, 0.5f, 0.5f}};
    ts_capsule capsule = {0.5f, 0.25f};
    expect_null_shape_at(file, line, ts_create_sphere_shape(id, &shape_def, &sphere), code, "ts_create_sphere_shape",
                         "id");
    expect_null_shape_at(file, line, ts_create_box_shape(id, &shape_def, &box), code, "ts_create_box_shape", "id");
    expect_null_shape_at(file, line, ts_create_capsule_shape(id, &shape_def, &capsule), code,
                         "ts_create_capsule_shape", "id");

    expect_error_at(file, line, ts_destroy_body(id), code, "ts_destroy_body", "id");
}
#define assert_body_calls_fail(id, code) check_body_calls_fail_at(__FILE__, __LINE__, id, code)

/* Every call that takes a shape id fails with `code` on `id`, names itself
 * and writes nothing to its outputs. */
static void check_shape_calls_fail_at(const char *file, int line, ts_shape_id id, ts_result code)
{
    ts_body_id body;
    ts_shape_type type;
    ts_sphere sphere;
    ts_box box;
    ts_capsule capsule;
    ts_transform transform;
    ts_filter filter;
    float value;

    fill_sentinel(&body, sizeof body);
    expect_error_at(file, line, ts_shape_get_body(id, &body), code, "ts_shape_get_body", "id");
    check_untouched_at(file, line, "body", &body, sizeof body);
    fill_sentinel(&type, sizeof type);
    expect_error_at(file, line, ts_shape_get_type(id, &type), code, "ts_shape_get_type", "id");
    check_untouched_at(file, line, "type", &type, sizeof type);
    fill_sentinel(&sphere, sizeof sphere);
    expect_error_at(file, line, ts_shape_get_sphere(id, &sphere), code, "ts_shape_get_sphere", "id");
    check_untouched_at(file, line, "sphere", &sphere, sizeof sphere);
    fill_sentinel(&box, sizeof box);
    expect_error_at(file, line, ts_shape_get_box(id, &box), code, "ts_shape_get_box", "id");
    check_untouched_at(file, line, "box", &box, sizeof box);
    fill_sentinel(&capsule, sizeof capsule);
    expect_error_at(file, line, ts_shape_get_capsule(id, &capsule), code, "ts_shape_get_capsule", "id");
    check_untouched_at(file, line, "capsule", &capsule, sizeof capsule);
    fill_sentinel(&transform, sizeof transform);
    expect_error_at(file, line, ts_shape_get_local_transform(id, &transform), code, "ts_shape_get_local_transform",
                    "id");
    check_untouched_at(file, line, "local transform", &transform, sizeof transform);

    expect_error_at(file, line, ts_shape_set_density(id, 2.0f), code, "ts_shape_set_density", "id");
    fill_sentinel(&value, sizeof value);
    expect_error_at(file, line, ts_shape_get_density(id, &value), code, "ts_shape_get_density", "id");
    check_untouched_at(file, line, "density", &value, sizeof value);
    expect_error_at(file, line, ts_shape_set_friction(id, 0.1f), code, "ts_shape_set_friction", "id");
    fill_sentinel(&value, sizeof value);
    expect_error_at(file, line, ts_shape_get_friction(id, &value), code, "ts_shape_get_friction", "id");
    check_untouched_at(file, line, "friction", &value, sizeof value);
    expect_error_at(file, line, ts_shape_set_restitution(id, 0.5f), code, "ts_shape_set_restitution", "id");
    fill_sentinel(&value, sizeof value);
    expect_error_at(file, line, ts_shape_get_restitution(id, &value), code, "ts_shape_get_restitution", "id");
    check_untouched_at(file, line, "restitution", &value, sizeof value);
    expect_error_at(file, line, ts_shape_set_rolling_resistance(id, 0.1f), code, "ts_shape_set_rolling_resistance",
                    "id");
    fill_sentinel(&value, sizeof value);
    expect_error_at(file, line, ts_shape_get_rolling_resistance(id, &value), code, "ts_shape_get_rolling_resistance",
                    "id");
    check_untouched_at(file, line, "rolling resistance", &value, sizeof value);
    expect_error_at(file, line, ts_shape_set_filter(id, (ts_filter){2u, 2u}), code, "ts_shape_set_filter", "id");
    fill_sentinel(&filter, sizeof filter);
    expect_error_at(file, line, ts_shape_get_filter(id, &filter), code, "ts_shape_get_filter", "id");
    check_untouched_at(file, line, "filter", &filter, sizeof filter);

    static int user_data_target;
    expect_error_at(file, line, ts_shape_set_user_data(id, &user_data_target), code, "ts_shape_set_user_data", "id");
    prime_last_error("ts_shape_get_user_data");
    if (ts_shape_get_user_data(id) != NULL) {
        print_error("ts_shape_get_user_data on a bad id returned non-NULL\n");
        _fail(file, line);
    }
    check_message_at(file, line, "ts_shape_get_user_data(id)", "ts_shape_get_user_data", "id", NULL);
    if (ts_shape_is_valid(id)) {
        print_error("ts_shape_is_valid on a bad id returned true\n");
        _fail(file, line);
    }
    expect_error_at(file, line, ts_destroy_shape(id), code, "ts_destroy_shape", "id");
}
#define assert_shape_calls_fail(id, code) check_shape_calls_fail_at(__FILE__, __LINE__, id, code)

/* Every call that takes a world id fails with TS_ERROR_STALE_ID on `id` and
 * writes nothing. `body` is any body id to pass to the bulk read. */
static void check_world_calls_fail_at(const char *file, int line, ts_world_id id, ts_body_id body)
{
    const ts_result code = TS_ERROR_STALE_ID;
    expect_error_at(file, line, ts_world_step(id, 1.0f / 60.0f), code, "ts_world_step", "world");
    expect_error_at(file, line, ts_world_set_gravity(id, (ts_vec3){0, -1, 0}), code, "ts_world_set_gravity", "world");
    ts_vec3 gravity;
    fill_sentinel(&gravity, sizeof gravity);
    expect_error_at(file, line, ts_world_get_gravity(id, &gravity), code, "ts_world_get_gravity", "world");
    check_untouched_at(file, line, "gravity", &gravity, sizeof gravity);
    expect_error_at(file, line, ts_world_set_substeps(id, 2), code, "ts_world_set_substeps", "world");
    expect_error_at(file, line, ts_world_set_solver(id, TS_SOLVER_XPBD), code, "ts_world_set_solver", "world");
    ts_solver_type solver;
    fill_sentinel(&solver, sizeof solver);
    expect_error_at(file, line, ts_world_get_solver(id, &solver), code, "ts_world_get_solver", "world");
    check_untouched_at(file, line, "solver", &solver, sizeof solver);
    ts_world_counters counters;
    fill_sentinel(&counters, sizeof counters);
    expect_error_at(file, line, ts_world_get_counters(id, &counters), code, "ts_world_get_counters", "world");
    check_untouched_at(file, line, "counters", &counters, sizeof counters);
    ts_step_profile profile;
    fill_sentinel(&profile, sizeof profile);
    expect_error_at(file, line, ts_world_get_profile(id, &profile), code, "ts_world_get_profile", "world");
    check_untouched_at(file, line, "profile", &profile, sizeof profile);

    ts_body_id ids[4];
    ts_transform transforms[4];
    int count;
    fill_sentinel(ids, sizeof ids);
    fill_sentinel(transforms, sizeof transforms);
    fill_sentinel(&count, sizeof count);
    expect_error_at(file, line, ts_world_get_awake_transforms(id, ids, transforms, 4, &count), code,
                    "ts_world_get_awake_transforms", "world");
    check_untouched_at(file, line, "ids", ids, sizeof ids);
    check_untouched_at(file, line, "transforms", transforms, sizeof transforms);
    check_untouched_at(file, line, "count", &count, sizeof count);
    expect_error_at(file, line, ts_world_get_body_transforms(id, &body, 1, transforms), code,
                    "ts_world_get_body_transforms", "world");
    check_untouched_at(file, line, "transforms", transforms, sizeof transforms);

    ts_body_def def = ts_default_body_def();
    expect_null_body_at(file, line, ts_create_body(id, &def), code, "ts_create_body", "world");
    if (ts_world_is_valid(id)) {
        print_error("ts_world_is_valid on a bad id returned true\n");
        _fail(file, line);
    }
    expect_error_at(file, line, ts_destroy_world(id), code, "ts_destroy_world", "world");
}
#define assert_world_calls_fail(id, body) check_world_calls_fail_at(__FILE__, __LINE__, id, body)

/* ==== world definitions ==== */

/* NaN or an infinity in any component of def.gravity: no world, TS_ERROR_NOT_FINITE naming "gravity". */
static void test_world_def_gravity_not_finite(void **state)
{
    (void)state;
    for (int c = 0; c < 3; ++c) {
        for (int i = 0; i < BAD_FLOAT_COUNT; ++i) {
            ts_world_def def = ts_default_world_def();
            def.gravity = vec3_with(def.gravity, c, bad_float(i));
            expect_null_world(ts_create_world(&def), TS_ERROR_NOT_FINITE, "ts_create_world", "gravity");
        }
    }
    scene s = make_scene();
    assert_world_still_works(s.world, s.body);
    free_scene(&s);
}

/* def.substeps outside 1..64 is refused with TS_ERROR_OUT_OF_RANGE; 1 and 64 are accepted. */
static void test_world_def_substeps_out_of_range(void **state)
{
    (void)state;
    const int bad[] = {0, -1, 65, 1000, INT_MIN, INT_MAX};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        ts_world_def def = ts_default_world_def();
        def.substeps = bad[i];
        expect_null_world(ts_create_world(&def), TS_ERROR_OUT_OF_RANGE, "ts_create_world", "substeps");
    }
    const int good[] = {1, 64};
    for (size_t i = 0; i < 2; ++i) {
        ts_world_def def = ts_default_world_def();
        def.substeps = good[i];
        ts_world_id world = ts_create_world(&def);
        assert_false(ts_world_id_is_null(world));
        assert_substeps(world, good[i]);
        assert_ok(ts_destroy_world(world));
    }
}

/* def.contact_mass_ratio below 1, above 1e30 or NaN is refused with
 * TS_ERROR_OUT_OF_RANGE naming it; 1 and 1e30 (exact masses) are accepted. */
static void test_world_def_contact_mass_ratio_out_of_range(void **state)
{
    (void)state;
    const float bad[] = {0.0f, 0.999f, -1.0f, 2.0e30f, NAN, INFINITY, -INFINITY};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        ts_world_def def = ts_default_world_def();
        def.contact_mass_ratio = bad[i];
        expect_null_world(ts_create_world(&def), TS_ERROR_OUT_OF_RANGE, "ts_create_world", "contact_mass_ratio");
    }
    const float good[] = {1.0f, 1.0e30f};
    for (size_t i = 0; i < 2; ++i) {
        ts_world_def def = ts_default_world_def();
        def.contact_mass_ratio = good[i];
        ts_world_id world = ts_create_world(&def);
        assert_false(ts_world_id_is_null(world));
        assert_ok(ts_destroy_world(world));
    }
}

/* def.threads outside 0..256 is refused with TS_ERROR_OUT_OF_RANGE; 0, 1 and 256 are accepted. */
static void test_world_def_threads_out_of_range(void **state)
{
    (void)state;
    const int bad[] = {-1, 257, INT_MIN, INT_MAX};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        ts_world_def def = ts_default_world_def();
        def.threads = bad[i];
        expect_null_world(ts_create_world(&def), TS_ERROR_OUT_OF_RANGE, "ts_create_world", "threads");
    }
    const int good[] = {0, 1, 256};
    for (size_t i = 0; i < 3; ++i) {
        ts_world_def def = ts_default_world_def();
        def.threads = good[i];
        ts_world_id world = ts_create_world(&def);
        assert_false(ts_world_id_is_null(world));
        ts_world_counters counters;
        assert_ok(ts_world_get_counters(world, &counters));
        if (good[i] > 0) {
            assert_int_equal(counters.thread_count, good[i]);
        } else {
            assert_true(counters.thread_count >= 1);
        }
        assert_ok(ts_destroy_world(world));
    }
}

/* TS_SOLVER_XPBD makes a world; a value that is no ts_solver_type gives TS_ERROR_OUT_OF_RANGE. */
static void test_world_def_solver(void **state)
{
    (void)state;
    ts_world_def def = ts_default_world_def();
    def.solver = TS_SOLVER_XPBD;
    ts_world_id xpbd = ts_create_world(&def);
    assert_false(ts_world_id_is_null(xpbd));
    assert_ok(ts_destroy_world(xpbd));
    const int bad[] = {2, -1, 1000};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        def = ts_default_world_def();
        def.solver = (ts_solver_type)bad[i];
        expect_null_world(ts_create_world(&def), TS_ERROR_OUT_OF_RANGE, "ts_create_world", "solver");
    }
}

static void *plain_alloc(size_t size, size_t alignment, void *context)
{
    (void)context;
    return aligned_alloc(alignment, size);
}

static void plain_free(void *memory, size_t size, void *context)
{
    (void)size;
    (void)context;
    free(memory);
}

/* An allocator with only alloc or only free set is refused with TS_ERROR_NULL_POINTER naming "allocator". */
static void test_world_def_allocator_half_set(void **state)
{
    (void)state;
    ts_world_def def = ts_default_world_def();
    def.allocator.alloc = plain_alloc;
    expect_null_world(ts_create_world(&def), TS_ERROR_NULL_POINTER, "ts_create_world", "allocator");
    def = ts_default_world_def();
    def.allocator.free = plain_free;
    expect_null_world(ts_create_world(&def), TS_ERROR_NULL_POINTER, "ts_create_world", "allocator");
    /* Both set works. */
    def.allocator.alloc = plain_alloc;
    ts_world_id world = ts_create_world(&def);
    assert_false(ts_world_id_is_null(world));
    ts_body_id body = test_dynamic_body(world, (ts_vec3){0, 0, 0});
    assert_world_still_works(world, body);
    assert_ok(ts_destroy_world(world));
}

/* Refuses requests above 1 GiB, so that a huge capacity hint fails the same way on every machine. */
static void *capped_alloc(size_t size, size_t alignment, void *context)
{
    (void)context;
    return size > ((size_t)1 << 30) ? NULL : aligned_alloc(alignment, size);
}

/* Negative capacity hints give TS_ERROR_OUT_OF_RANGE; a hint the allocator cannot meet gives TS_ERROR_OUT_OF_MEMORY. */
static void test_world_def_capacity_hints(void **state)
{
    (void)state;
    ts_world_def def = ts_default_world_def();
    def.body_capacity = -1;
    expect_null_world(ts_create_world(&def), TS_ERROR_OUT_OF_RANGE, "ts_create_world", "body_capacity");
    def = ts_default_world_def();
    def.shape_capacity = INT_MIN;
    expect_null_world(ts_create_world(&def), TS_ERROR_OUT_OF_RANGE, "ts_create_world", "shape_capacity");

    /* Above TS_MAX_OBJECTS: refused before any allocation (once it hung in a growth loop). */
    def = ts_default_world_def();
    def.body_capacity = INT_MAX;
    expect_null_world(ts_create_world(&def), TS_ERROR_OUT_OF_RANGE, "ts_create_world", "body_capacity");
    def = ts_default_world_def();
    def.shape_capacity = TS_MAX_OBJECTS + 1;
    expect_null_world(ts_create_world(&def), TS_ERROR_OUT_OF_RANGE, "ts_create_world", "shape_capacity");

    /* At the limit, more than the (1 GiB capped) allocator gives: TS_ERROR_OUT_OF_MEMORY. */
    def = ts_default_world_def();
    def.allocator = (ts_allocator){capped_alloc, plain_free, NULL};
    def.body_capacity = TS_MAX_OBJECTS;
    expect_null_world(ts_create_world(&def), TS_ERROR_OUT_OF_MEMORY, "ts_create_world", NULL);
    def.body_capacity = 0;
    def.shape_capacity = TS_MAX_OBJECTS;
    expect_null_world(ts_create_world(&def), TS_ERROR_OUT_OF_MEMORY, "ts_create_world", NULL);
}

/* ts_create_world(NULL) gives TS_ERROR_NULL_POINTER; a def not from ts_default_world_def() gives TS_ERROR_UNINITIALIZED_DEF. */
static void test_world_def_null_and_uninitialized(void **state)
{
    (void)state;
    expect_null_world(ts_create_world(NULL), TS_ERROR_NULL_POINTER, "ts_create_world", "def");
    ts_world_def def;
    memset(&def, 0, sizeof def);
    expect_null_world(ts_create_world(&def), TS_ERROR_UNINITIALIZED_DEF, "ts_create_world", "def");
    /* Zero-filled but otherwise plausible values. */
    def.gravity = (ts_vec3){0, -10, 0};
    def.substeps = 4;
    expect_null_world(ts_create_world(&def), TS_ERROR_UNINITIALIZED_DEF, "ts_create_world", "def");
    memset(&def, 0xFF, sizeof def);
    expect_null_world(ts_create_world(&def), TS_ERROR_UNINITIALIZED_DEF, "ts_create_world", "def");
}

/* The world limit: after TS_MAX_WORLDS worlds the next create gives TS_ERROR_CAPACITY; destroying one frees a slot. */
static void test_world_capacity_limit(void **state)
{
    (void)state;
    static ts_world_id worlds[TS_MAX_WORLDS + 1];
    int made = 0;
    ts_world_def def = ts_default_world_def();
    while (made <= TS_MAX_WORLDS) {
        ts_world_id w = ts_create_world(&def);
        if (ts_world_id_is_null(w)) {
            break;
        }
        worlds[made++] = w;
    }
    assert_true(made <= TS_MAX_WORLDS);
    check_message_at(__FILE__, __LINE__, "ts_create_world (one too many)", "ts_create_world", NULL,
                     "TS_ERROR_CAPACITY");
    expect_null_world(ts_create_world(&def), TS_ERROR_CAPACITY, "ts_create_world", NULL);
    for (int i = 0; i < made; ++i) {
        assert_true(ts_world_is_valid(worlds[i]));
    }
    assert_ok(ts_destroy_world(worlds[made - 1]));
    worlds[made - 1] = test_world(4, 1);
    ts_body_id body = test_dynamic_body(worlds[made - 1], (ts_vec3){0, 0, 0});
    assert_world_still_works(worlds[made - 1], body);
    for (int i = 0; i < made; ++i) {
        assert_ok(ts_destroy_world(worlds[i]));
    }
}

/* ==== world calls ==== */

/* ts_world_step with dt 0, negative, NaN or infinite fails (TS_ERROR_OUT_OF_RANGE / TS_ERROR_NOT_FINITE naming "dt") and steps nothing. */
static void test_world_step_bad_dt(void **state)
{
    (void)state;
    scene s = make_scene();
    assert_ok(ts_world_step(s.world, 1.0f / 60.0f)); /* a non-zero velocity, so a bad step would show */
    world_snapshot world_before = snapshot_world(s.world);
    body_snapshot before = snapshot_body(s.body);
    const float out_of_range[] = {0.0f, -0.0f, -1.0f / 60.0f, -FLT_MIN, -FLT_MAX};
    for (size_t i = 0; i < sizeof out_of_range / sizeof out_of_range[0]; ++i) {
        expect_error(ts_world_step(s.world, out_of_range[i]), TS_ERROR_OUT_OF_RANGE, "ts_world_step", "dt");
    }
    for (int i = 0; i < BAD_FLOAT_COUNT; ++i) {
        expect_error(ts_world_step(s.world, bad_float(i)), TS_ERROR_NOT_FINITE, "ts_world_step", "dt");
    }
    assert_world_unchanged(world_before, s.world);
    assert_body_unchanged(before, s.body);
    assert_world_still_works(s.world, s.body);
    free_scene(&s);
}

/* ts_world_set_gravity with NaN / infinity in any component gives TS_ERROR_NOT_FINITE naming "gravity"; gravity is kept. */
static void test_world_set_gravity_not_finite(void **state)
{
    (void)state;
    scene s = make_scene();
    assert_ok(ts_world_set_gravity(s.world, (ts_vec3){1.0f, -5.0f, 0.5f}));
    world_snapshot world_before = snapshot_world(s.world);
    for (int c = 0; c < 3; ++c) {
        for (int i = 0; i < BAD_FLOAT_COUNT; ++i) {
            ts_vec3 g = vec3_with((ts_vec3){0, -10, 0}, c, bad_float(i));
            expect_error(ts_world_set_gravity(s.world, g), TS_ERROR_NOT_FINITE, "ts_world_set_gravity", "gravity");
        }
    }
    assert_world_unchanged(world_before, s.world);
    assert_world_still_works(s.world, s.body); /* moves under (1, -5, 0.5) */
    free_scene(&s);
}

/* ts_world_set_substeps outside 1..64 gives TS_ERROR_OUT_OF_RANGE naming "substeps"; the count is kept. */
static void test_world_set_substeps_out_of_range(void **state)
{
    (void)state;
    scene s = make_scene();
    const int bad[] = {0, -1, 65, INT_MIN, INT_MAX};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        expect_error(ts_world_set_substeps(s.world, bad[i]), TS_ERROR_OUT_OF_RANGE, "ts_world_set_substeps",
                     "substeps");
    }
    assert_substeps(s.world, 4);
    assert_ok(ts_world_set_substeps(s.world, 64));
    assert_substeps(s.world, 64);
    assert_ok(ts_world_set_substeps(s.world, 1));
    assert_substeps(s.world, 1);
    assert_ok(ts_world_set_substeps(s.world, 4));
    assert_world_still_works(s.world, s.body);
    free_scene(&s);
}

/* ts_world_set_solver with a value that is no ts_solver_type gives TS_ERROR_OUT_OF_RANGE naming "solver" and
 * keeps the solver; ts_world_get_solver(NULL) gives TS_ERROR_NULL_POINTER. A valid switch works both ways. */
static void test_world_set_solver_bad(void **state)
{
    (void)state;
    scene s = make_scene();
    const int bad[] = {2, -1, 1000, INT_MIN};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        expect_error(ts_world_set_solver(s.world, (ts_solver_type)bad[i]), TS_ERROR_OUT_OF_RANGE,
                     "ts_world_set_solver", "solver");
    }
    ts_solver_type solver;
    assert_ok(ts_world_get_solver(s.world, &solver));
    assert_int_equal(solver, TS_SOLVER_SOFT_STEP);
    expect_error(ts_world_get_solver(s.world, NULL), TS_ERROR_NULL_POINTER, "ts_world_get_solver", "solver");
    assert_ok(ts_world_set_solver(s.world, TS_SOLVER_XPBD));
    assert_world_still_works(s.world, s.body);
    assert_ok(ts_world_get_solver(s.world, &solver));
    assert_int_equal(solver, TS_SOLVER_XPBD);
    assert_ok(ts_world_set_solver(s.world, TS_SOLVER_SOFT_STEP));
    assert_world_still_works(s.world, s.body);
    free_scene(&s);
}

/* World getters and bulk reads with a NULL output, a negative capacity or count give an error and write nothing. */
static void test_world_outputs_null_or_bad_count(void **state)
{
    (void)state;
    scene s = make_scene();
    world_snapshot world_before = snapshot_world(s.world);
    expect_error(ts_world_get_gravity(s.world, NULL), TS_ERROR_NULL_POINTER, "ts_world_get_gravity", "gravity");
    expect_error(ts_world_get_counters(s.world, NULL), TS_ERROR_NULL_POINTER, "ts_world_get_counters", "counters");
    expect_error(ts_world_get_profile(s.world, NULL), TS_ERROR_NULL_POINTER, "ts_world_get_profile", "profile");

    ts_body_id ids[4];
    ts_transform transforms[4];
    int count;
    fill_sentinel(ids, sizeof ids);
    fill_sentinel(transforms, sizeof transforms);
    fill_sentinel(&count, sizeof count);
    expect_error(ts_world_get_awake_transforms(s.world, ids, NULL, 4, &count), TS_ERROR_NULL_POINTER,
                 "ts_world_get_awake_transforms", "transforms");
    expect_error(ts_world_get_awake_transforms(s.world, ids, transforms, 4, NULL), TS_ERROR_NULL_POINTER,
                 "ts_world_get_awake_transforms", "count");
    expect_error(ts_world_get_awake_transforms(s.world, ids, transforms, -1, &count), TS_ERROR_OUT_OF_RANGE,
                 "ts_world_get_awake_transforms", "capacity");
    expect_error(ts_world_get_awake_transforms(s.world, ids, transforms, INT_MIN, &count), TS_ERROR_OUT_OF_RANGE,
                 "ts_world_get_awake_transforms", "capacity");
    assert_untouched(ids);
    assert_untouched(transforms);
    assert_untouched(count);
    /* ids may be NULL. */
    assert_ok(ts_world_get_awake_transforms(s.world, NULL, transforms, 4, &count));
    assert_int_equal(count, 1);

    fill_sentinel(transforms, sizeof transforms);
    ts_body_id bodies[2] = {s.body, s.ground};
    expect_error(ts_world_get_body_transforms(s.world, NULL, 2, transforms), TS_ERROR_NULL_POINTER,
                 "ts_world_get_body_transforms", "bodies");
    expect_error(ts_world_get_body_transforms(s.world, bodies, 2, NULL), TS_ERROR_NULL_POINTER,
                 "ts_world_get_body_transforms", "transforms");
    expect_error(ts_world_get_body_transforms(s.world, bodies, -1, transforms), TS_ERROR_OUT_OF_RANGE,
                 "ts_world_get_body_transforms", "count");
    assert_untouched(transforms);
    assert_world_unchanged(world_before, s.world);
    assert_world_still_works(s.world, s.body);
    free_scene(&s);
}

/* The null world id and forged world ids (slot out of range, wrong generation) give TS_ERROR_STALE_ID on every world call. */
static void test_world_null_and_forged_ids(void **state)
{
    (void)state;
    scene s = make_scene();
    world_snapshot world_before = snapshot_world(s.world);
    assert_world_calls_fail(TS_NULL_WORLD_ID, s.body);
    assert_world_calls_fail(((ts_world_id){TS_MAX_WORLDS + 1, 1}), s.body);
    assert_world_calls_fail(((ts_world_id){UINT16_MAX, UINT16_MAX}), s.body);
    ts_world_id wrong_generation = s.world;
    wrong_generation.generation = (uint16_t)(wrong_generation.generation + 1);
    assert_world_calls_fail(wrong_generation, s.body);
    wrong_generation.generation = (uint16_t)(s.world.generation ^ 0x8000u);
    assert_world_calls_fail(wrong_generation, s.body);
    assert_world_unchanged(world_before, s.world);
    assert_world_still_works(s.world, s.body);
    free_scene(&s);
}

/* After ts_destroy_world the world id and the ids of its bodies and shapes give TS_ERROR_STALE_ID everywhere. */
static void test_destroyed_world(void **state)
{
    (void)state;
    scene other = make_scene(); /* a live world that must not be disturbed */
    body_snapshot other_before = snapshot_body(other.body);
    scene s = make_scene();
    assert_ok(ts_destroy_world(s.world));
    assert_false(ts_world_is_valid(s.world));
    assert_world_calls_fail(s.world, other.body);
    assert_body_calls_fail(s.body, TS_ERROR_STALE_ID);
    assert_body_calls_fail(s.ground, TS_ERROR_STALE_ID);
    assert_shape_calls_fail(s.shape, TS_ERROR_STALE_ID);
    assert_shape_calls_fail(s.ground_shape, TS_ERROR_STALE_ID);
    assert_body_unchanged(other_before, other.body);
    assert_world_still_works(other.world, other.body);
    free_scene(&other);
}

/* A world destroyed and a new one made in the same slot: ids of the old world's bodies and shapes never reach the new world's objects at the same index. */
static void test_recreated_world_same_slot(void **state)
{
    (void)state;
    scene old = make_scene();
    assert_ok(ts_destroy_world(old.world));
    scene s = make_scene(); /* the same calls, so the same slot and the same body and shape indices */
    assert_int_equal(s.world.index1, old.world.index1);
    assert_int_not_equal(s.world.generation, old.world.generation);
    assert_int_equal(s.body.index1, old.body.index1);
    assert_int_equal(s.body.generation, old.body.generation);
    assert_int_equal(s.shape.index1, old.shape.index1);
    assert_false(ts_world_is_valid(old.world));
    assert_false(ts_body_is_valid(old.body));
    assert_false(ts_shape_is_valid(old.shape));

    world_snapshot world_before = snapshot_world(s.world);
    body_snapshot body_before = snapshot_body(s.body);
    body_snapshot ground_before = snapshot_body(s.ground);
    shape_snapshot shape_before = snapshot_shape(s.shape);
    assert_world_calls_fail(old.world, s.body);
    assert_body_calls_fail(old.body, TS_ERROR_STALE_ID);
    assert_body_calls_fail(old.ground, TS_ERROR_STALE_ID);
    assert_shape_calls_fail(old.shape, TS_ERROR_STALE_ID);
    assert_shape_calls_fail(old.ground_shape, TS_ERROR_STALE_ID);

    /* The bulk read of the new world refuses the old id: it belongs to another (dead) world. */
    ts_transform transforms[2];
    fill_sentinel(transforms, sizeof transforms);
    ts_body_id ids[2] = {s.ground, old.body};
    expect_error(ts_world_get_body_transforms(s.world, ids, 2, transforms), TS_ERROR_WRONG_WORLD,
                 "ts_world_get_body_transforms", "bodies");
    assert_untouched(transforms);

    assert_world_unchanged(world_before, s.world);
    assert_body_unchanged(body_before, s.body);
    assert_body_unchanged(ground_before, s.ground);
    assert_shape_unchanged(shape_before, s.shape);
    assert_world_still_works(s.world, s.body);
    free_scene(&s);
}

/* ==== body definitions ==== */

/* NaN / infinity in def position, rotation, velocities, damping or gravity_scale: no body, TS_ERROR_NOT_FINITE naming the field. */
static void test_body_def_not_finite(void **state)
{
    (void)state;
    scene s = make_scene();
    world_snapshot world_before = snapshot_world(s.world);
    for (int i = 0; i < BAD_FLOAT_COUNT; ++i) {
        const float bad = bad_float(i);
        for (int c = 0; c < 3; ++c) {
            ts_body_def def = ts_default_body_def();
            def.type = TS_BODY_DYNAMIC;
            def.position = vec3_with(def.position, c, bad);
            expect_null_body(ts_create_body(s.world, &def), TS_ERROR_NOT_FINITE, "ts_create_body", "position");
            def = ts_default_body_def();
            def.type = TS_BODY_DYNAMIC;
            def.linear_velocity = vec3_with(def.linear_velocity, c, bad);
            expect_null_body(ts_create_body(s.world, &def), TS_ERROR_NOT_FINITE, "ts_create_body", "linear_velocity");
            def = ts_default_body_def();
            def.type = TS_BODY_DYNAMIC;
            def.angular_velocity = vec3_with(def.angular_velocity, c, bad);
            expect_null_body(ts_create_body(s.world, &def), TS_ERROR_NOT_FINITE, "ts_create_body",
                             "angular_velocity");
            /* A static body too: the finiteness check comes first. */
            def = ts_default_body_def();
            def.linear_velocity = vec3_with(def.linear_velocity, c, bad);
            expect_null_body(ts_create_body(s.world, &def), TS_ERROR_NOT_FINITE, "ts_create_body", "linear_velocity");
        }
        for (int c = 0; c < 4; ++c) {
            ts_body_def def = ts_default_body_def();
            def.type = TS_BODY_DYNAMIC;
            def.rotation = quat_with(def.rotation, c, bad);
            expect_null_body(ts_create_body(s.world, &def), TS_ERROR_NOT_FINITE, "ts_create_body", "rotation");
        }
        ts_body_def def = ts_default_body_def();
        def.type = TS_BODY_DYNAMIC;
        def.linear_damping = bad;
        expect_null_body(ts_create_body(s.world, &def), TS_ERROR_NOT_FINITE, "ts_create_body", "linear_damping");
        def = ts_default_body_def();
        def.type = TS_BODY_DYNAMIC;
        def.angular_damping = bad;
        expect_null_body(ts_create_body(s.world, &def), TS_ERROR_NOT_FINITE, "ts_create_body", "angular_damping");
        def = ts_default_body_def();
        def.type = TS_BODY_DYNAMIC;
        def.gravity_scale = bad;
        expect_null_body(ts_create_body(s.world, &def), TS_ERROR_NOT_FINITE, "ts_create_body", "gravity_scale");
    }
    assert_world_unchanged(world_before, s.world);
    assert_world_still_works(s.world, s.body);
    free_scene(&s);
}

/* Negative damping, a type that is no ts_body_type, and a static body with a velocity are refused. */
static void test_body_def_out_of_range(void **state)
{
    (void)state;
    scene s = make_scene();
    world_snapshot world_before = snapshot_world(s.world);
    const float negative[] = {-1.0f, -FLT_MIN, -FLT_MAX};
    for (size_t i = 0; i < sizeof negative / sizeof negative[0]; ++i) {
        ts_body_def def = ts_default_body_def();
        def.type = TS_BODY_DYNAMIC;
        def.linear_damping = negative[i];
        expect_null_body(ts_create_body(s.world, &def), TS_ERROR_OUT_OF_RANGE, "ts_create_body", "linear_damping");
        def = ts_default_body_def();
        def.type = TS_BODY_DYNAMIC;
        def.angular_damping = negative[i];
        expect_null_body(ts_create_body(s.world, &def), TS_ERROR_OUT_OF_RANGE, "ts_create_body", "angular_damping");
    }
    const int bad_types[] = {3, -1, 1000, INT_MIN};
    for (size_t i = 0; i < sizeof bad_types / sizeof bad_types[0]; ++i) {
        ts_body_def def = ts_default_body_def();
        def.type = (ts_body_type)bad_types[i];
        expect_null_body(ts_create_body(s.world, &def), TS_ERROR_OUT_OF_RANGE, "ts_create_body", "type");
    }
    ts_body_def def = ts_default_body_def(); /* static */
    def.linear_velocity = (ts_vec3){0.0f, 1.0f, 0.0f};
    expect_null_body(ts_create_body(s.world, &def), TS_ERROR_INVALID_OPERATION, "ts_create_body", "velocity");
    def = ts_default_body_def();
    def.angular_velocity = (ts_vec3){0.0f, 0.0f, -2.0f};
    expect_null_body(ts_create_body(s.world, &def), TS_ERROR_INVALID_OPERATION, "ts_create_body", "velocity");
    assert_world_unchanged(world_before, s.world);
    /* Zero damping, a zero (or negative) gravity scale and a velocity-free static body are fine. */
    def = ts_default_body_def();
    def.type = TS_BODY_DYNAMIC;
    def.gravity_scale = -0.5f;
    ts_body_id body = ts_create_body(s.world, &def);
    assert_false(ts_body_id_is_null(body));
    assert_world_still_works(s.world, body);
    free_scene(&s);
}

/* A def rotation off unit length by more than 1% (length 2, 0.98, 1.02, 0, huge, tiny) gives TS_ERROR_OUT_OF_RANGE naming "rotation". */
static void test_body_def_rotation_not_unit(void **state)
{
    (void)state;
    scene s = make_scene();
    world_snapshot world_before = snapshot_world(s.world);
    const ts_quat bad[] = {
        {0.0f, 0.0f, 0.0f, 2.0f},   {0.0f, 0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f, 0.98f},
        {0.0f, 0.0f, 0.0f, 1.02f},  {1.0f, 1.0f, 1.0f, 1.0f}, {0.0f, 0.0f, 0.0f, -2.0f},
        {1e30f, 0.0f, 0.0f, 0.0f},  {1e-30f, 0.0f, 0.0f, 0.0f}, {FLT_MAX, FLT_MAX, FLT_MAX, FLT_MAX},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        ts_body_def def = ts_default_body_def();
        def.type = TS_BODY_DYNAMIC;
        def.rotation = bad[i];
        expect_null_body(ts_create_body(s.world, &def), TS_ERROR_OUT_OF_RANGE, "ts_create_body", "rotation");
    }
    assert_world_unchanged(world_before, s.world);
    assert_world_still_works(s.world, s.body);
    free_scene(&s);
}

/* A def rotation within 1% of unit length is normalised: the stored rotation has length 1 within 1e-6 and the same direction. */
static void test_body_def_rotation_normalised(void **state)
{
    (void)state;
    scene s = make_scene();
    const ts_quat near_unit[] = {
        {0.0f, 0.0f, 0.0f, 1.005f},
        {0.0f, 0.0f, 0.0f, 0.995f},
        {0.1f, 0.2f, 0.3f, 0.93f}, /* length 1.00245 */
        {0.0f, 0.703f, 0.0f, 0.703f}, /* length 0.99419 */
    };
    for (size_t i = 0; i < sizeof near_unit / sizeof near_unit[0]; ++i) {
        ts_body_def def = ts_default_body_def();
        def.type = TS_BODY_DYNAMIC;
        def.rotation = near_unit[i];
        ts_body_id body = ts_create_body(s.world, &def);
        assert_false(ts_body_id_is_null(body));
        ts_quat q;
        assert_ok(ts_body_get_rotation(body, &q));
        assert_near(quat_length(q), 1.0, 1e-6);
        double length = quat_length(near_unit[i]);
        assert_near(q.x, near_unit[i].x / length, 1e-6);
        assert_near(q.y, near_unit[i].y / length, 1e-6);
        assert_near(q.z, near_unit[i].z / length, 1e-6);
        assert_near(q.w, near_unit[i].w / length, 1e-6);
        assert_ok(ts_destroy_body(body));
    }
    assert_world_still_works(s.world, s.body);
    free_scene(&s);
}

/* ts_create_body with a NULL def gives TS_ERROR_NULL_POINTER; a zero-filled or garbage def gives TS_ERROR_UNINITIALIZED_DEF. */
static void test_body_def_null_and_uninitialized(void **state)
{
    (void)state;
    scene s = make_scene();
    world_snapshot world_before = snapshot_world(s.world);
    expect_null_body(ts_create_body(s.world, NULL), TS_ERROR_NULL_POINTER, "ts_create_body", "def");
    ts_body_def def;
    memset(&def, 0, sizeof def);
    expect_null_body(ts_create_body(s.world, &def), TS_ERROR_UNINITIALIZED_DEF, "ts_create_body", "def");
    def.type = TS_BODY_DYNAMIC;
    def.rotation = TS_QUAT_IDENTITY;
    def.gravity_scale = 1.0f;
    expect_null_body(ts_create_body(s.world, &def), TS_ERROR_UNINITIALIZED_DEF, "ts_create_body", "def");
    memset(&def, 0xFF, sizeof def);
    expect_null_body(ts_create_body(s.world, &def), TS_ERROR_UNINITIALIZED_DEF, "ts_create_body", "def");
    /* A good def on a bad world id. */
    def = ts_default_body_def();
    expect_null_body(ts_create_body(TS_NULL_WORLD_ID, &def), TS_ERROR_STALE_ID, "ts_create_body", "world");
    assert_world_unchanged(world_before, s.world);
    assert_world_still_works(s.world, s.body);
    free_scene(&s);
}

/* ==== body calls ==== */

/* NaN / infinity in set_position, set_rotation, set_transform, set_*_velocity, damping and gravity scale: TS_ERROR_NOT_FINITE naming the argument; the body is unchanged. */
static void test_body_setters_not_finite(void **state)
{
    (void)state;
    scene s = make_scene();
    assert_ok(ts_body_set_linear_velocity(s.body, (ts_vec3){0.5f, 1.0f, -0.5f}));
    body_snapshot before = snapshot_body(s.body);
    const ts_vec3 p = {4.0f, 5.0f, 6.0f};
    for (int i = 0; i < BAD_FLOAT_COUNT; ++i) {
        const float bad = bad_float(i);
        for (int c = 0; c < 3; ++c) {
            ts_vec3 v = vec3_with(p, c, bad);
            expect_error(ts_body_set_position(s.body, v), TS_ERROR_NOT_FINITE, "ts_body_set_position", "position");
            expect_error(ts_body_set_transform(s.body, v, TS_QUAT_IDENTITY), TS_ERROR_NOT_FINITE,
                         "ts_body_set_transform", "position");
            expect_error(ts_body_set_linear_velocity(s.body, v), TS_ERROR_NOT_FINITE, "ts_body_set_linear_velocity",
                         "velocity");
            expect_error(ts_body_set_angular_velocity(s.body, v), TS_ERROR_NOT_FINITE,
                         "ts_body_set_angular_velocity", "velocity");
        }
        for (int c = 0; c < 4; ++c) {
            ts_quat q = quat_with(TS_QUAT_IDENTITY, c, bad);
            expect_error(ts_body_set_rotation(s.body, q), TS_ERROR_NOT_FINITE, "ts_body_set_rotation", "rotation");
            expect_error(ts_body_set_transform(s.body, p, q), TS_ERROR_NOT_FINITE, "ts_body_set_transform",
                         "rotation");
        }
        expect_error(ts_body_set_linear_damping(s.body, bad), TS_ERROR_NOT_FINITE, "ts_body_set_linear_damping",
                     "damping");
        expect_error(ts_body_set_angular_damping(s.body, bad), TS_ERROR_NOT_FINITE, "ts_body_set_angular_damping",
                     "damping");
        expect_error(ts_body_set_gravity_scale(s.body, bad), TS_ERROR_NOT_FINITE, "ts_body_set_gravity_scale",
                     "scale");
    }
    assert_body_unchanged(before, s.body);
    assert_world_still_works(s.world, s.body);
    free_scene(&s);
}

/* NaN / infinity in apply_force (force or point), apply_force_to_center, apply_torque and every impulse call: TS_ERROR_NOT_FINITE naming the argument; no force or impulse is applied. */
static void test_body_forces_not_finite(void **state)
{
    (void)state;
    scene s = make_scene();
    body_snapshot before = snapshot_body(s.body);
    const ts_vec3 f = {1.0f, 2.0f, 3.0f};
    const ts_vec3 at = {1.5f, 2.0f, 3.0f};
    for (int i = 0; i < BAD_FLOAT_COUNT; ++i) {
        for (int c = 0; c < 3; ++c) {
            ts_vec3 v = vec3_with(f, c, bad_float(i));
            ts_vec3 point = vec3_with(at, c, bad_float(i));
            expect_error(ts_body_apply_force(s.body, v, at), TS_ERROR_NOT_FINITE, "ts_body_apply_force", "force");
            expect_error(ts_body_apply_force(s.body, f, point), TS_ERROR_NOT_FINITE, "ts_body_apply_force", "point");
            expect_error(ts_body_apply_force_to_center(s.body, v), TS_ERROR_NOT_FINITE,
                         "ts_body_apply_force_to_center", "force");
            expect_error(ts_body_apply_torque(s.body, v), TS_ERROR_NOT_FINITE, "ts_body_apply_torque", "torque");
            expect_error(ts_body_apply_linear_impulse(s.body, v, at), TS_ERROR_NOT_FINITE,
                         "ts_body_apply_linear_impulse", "impulse");
            expect_error(ts_body_apply_linear_impulse(s.body, f, point), TS_ERROR_NOT_FINITE,
                         "ts_body_apply_linear_impulse", "point");
            expect_error(ts_body_apply_linear_impulse_to_center(s.body, v), TS_ERROR_NOT_FINITE,
                         "ts_body_apply_linear_impulse_to_center", "impulse");
            expect_error(ts_body_apply_angular_impulse(s.body, v), TS_ERROR_NOT_FINITE,
                         "ts_body_apply_angular_impulse", "impulse");
        }
    }
    assert_body_unchanged(before, s.body);
    /* No force is pending: the body falls freely and does not start to spin. */
    assert_world_still_works(s.world, s.body);
    ts_vec3 w;
    assert_ok(ts_body_get_angular_velocity(s.body, &w));
    assert_true(w.x == 0.0f && w.y == 0.0f && w.z == 0.0f);
    free_scene(&s);
}

/* set_rotation / set_transform normalise a rotation within 1% of unit length (stored length 1 within 1e-6) and refuse one farther off with TS_ERROR_OUT_OF_RANGE, leaving the body unchanged. */
static void test_body_set_rotation_unit_length(void **state)
{
    (void)state;
    scene s = make_scene();
    const ts_quat bad[] = {
        {0.0f, 0.0f, 0.0f, 2.0f},  {0.0f, 0.0f, 0.0f, 0.0f},   {0.0f, 0.0f, 0.0f, 0.98f},
        {0.0f, 0.0f, 0.0f, 1.02f}, {0.0f, 0.0f, 0.0f, -0.5f},  {1e30f, 0.0f, 0.0f, 0.0f},
        {1e-30f, 0.0f, 0.0f, 0.0f}, {FLT_MAX, 0.0f, 0.0f, FLT_MAX},
    };
    body_snapshot before = snapshot_body(s.body);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        expect_error(ts_body_set_rotation(s.body, bad[i]), TS_ERROR_OUT_OF_RANGE, "ts_body_set_rotation",
                     "rotation");
        /* A good position with a bad rotation: the position is not applied either. */
        expect_error(ts_body_set_transform(s.body, (ts_vec3){7, 8, 9}, bad[i]), TS_ERROR_OUT_OF_RANGE,
                     "ts_body_set_transform", "rotation");
    }
    assert_body_unchanged(before, s.body);

    const ts_quat near_unit[] = {
        {0.0f, 0.0f, 0.0f, 1.009f},
        {0.0f, 0.0f, 0.0f, 0.991f},
        {0.5f, 0.5f, 0.5f, 0.505f},
        {0.0f, 0.0f, 0.7f, -0.71f},
    };
    for (size_t i = 0; i < sizeof near_unit / sizeof near_unit[0]; ++i) {
        const double length = quat_length(near_unit[i]);
        ts_quat q;
        assert_ok(ts_body_set_rotation(s.body, near_unit[i]));
        assert_ok(ts_body_get_rotation(s.body, &q));
        assert_near(quat_length(q), 1.0, 1e-6);
        /* The same rotation (q and -q are the same; compare up to sign). */
        double dot = (q.x * near_unit[i].x + q.y * near_unit[i].y + q.z * near_unit[i].z + q.w * near_unit[i].w) /
                     length;
        assert_near(fabs(dot), 1.0, 1e-6);
        assert_ok(ts_body_set_transform(s.body, (ts_vec3){1.0f, 2.0f, 3.0f}, near_unit[i]));
        assert_ok(ts_body_get_rotation(s.body, &q));
        assert_near(quat_length(q), 1.0, 1e-6);
    }
    assert_ok(ts_body_set_transform(s.body, (ts_vec3){1.0f, 2.0f, 3.0f}, TS_QUAT_IDENTITY));
    assert_world_still_works(s.world, s.body);
    free_scene(&s);
}

/* Negative damping gives TS_ERROR_OUT_OF_RANGE naming "damping"; the old damping is kept. */
static void test_body_set_damping_negative(void **state)
{
    (void)state;
    scene s = make_scene();
    assert_ok(ts_body_set_linear_damping(s.body, 0.25f));
    assert_ok(ts_body_set_angular_damping(s.body, 0.75f));
    body_snapshot before = snapshot_body(s.body);
    const float negative[] = {-1.0f, -FLT_MIN, -FLT_MAX};
    for (size_t i = 0; i < sizeof negative / sizeof negative[0]; ++i) {
        expect_error(ts_body_set_linear_damping(s.body, negative[i]), TS_ERROR_OUT_OF_RANGE,
                     "ts_body_set_linear_damping", "damping");
        expect_error(ts_body_set_angular_damping(s.body, negative[i]), TS_ERROR_OUT_OF_RANGE,
                     "ts_body_set_angular_damping", "damping");
    }
    assert_body_unchanged(before, s.body);
    assert_ok(ts_body_set_linear_damping(s.body, 0.0f));
    assert_ok(ts_body_set_angular_damping(s.body, 0.0f));
    assert_world_still_works(s.world, s.body);
    free_scene(&s);
}

/* ts_body_set_type with a value that is no ts_body_type gives TS_ERROR_OUT_OF_RANGE naming "type". */
static void test_body_set_type_invalid(void **state)
{
    (void)state;
    scene s = make_scene();
    world_snapshot world_before = snapshot_world(s.world);
    body_snapshot before = snapshot_body(s.body);
    const int bad[] = {3, -1, 1000, INT_MIN, INT_MAX};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        expect_error(ts_body_set_type(s.body, (ts_body_type)bad[i]), TS_ERROR_OUT_OF_RANGE, "ts_body_set_type",
                     "type");
        expect_error(ts_body_set_type(s.ground, (ts_body_type)bad[i]), TS_ERROR_OUT_OF_RANGE, "ts_body_set_type",
                     "type");
    }
    assert_body_unchanged(before, s.body);
    assert_world_unchanged(world_before, s.world);
    assert_world_still_works(s.world, s.body);
    free_scene(&s);
}

/* A static body refuses a non-zero linear or angular velocity with TS_ERROR_INVALID_OPERATION; zero is accepted. */
static void test_static_body_velocity(void **state)
{
    (void)state;
    scene s = make_scene();
    body_snapshot before = snapshot_body(s.ground);
    const ts_vec3 moving[] = {{1.0f, 0.0f, 0.0f}, {0.0f, -3.0f, 0.0f}, {0.0f, 0.0f, 1e-3f}, {1e18f, 1e18f, 1e18f}};
    for (size_t i = 0; i < sizeof moving / sizeof moving[0]; ++i) {
        expect_error(ts_body_set_linear_velocity(s.ground, moving[i]), TS_ERROR_INVALID_OPERATION,
                     "ts_body_set_linear_velocity", "velocity");
        expect_error(ts_body_set_angular_velocity(s.ground, moving[i]), TS_ERROR_INVALID_OPERATION,
                     "ts_body_set_angular_velocity", "velocity");
    }
    /* Non-finite is reported as such, even on a static body. */
    expect_error(ts_body_set_linear_velocity(s.ground, (ts_vec3){NAN, 0, 0}), TS_ERROR_NOT_FINITE,
                 "ts_body_set_linear_velocity", "velocity");
    assert_body_unchanged(before, s.ground);
    assert_ok(ts_body_set_linear_velocity(s.ground, (ts_vec3){0, 0, 0}));
    assert_ok(ts_body_set_angular_velocity(s.ground, (ts_vec3){0, 0, 0}));
    /* Forces on a static body are ignored, and the call succeeds. */
    assert_ok(ts_body_apply_force_to_center(s.ground, (ts_vec3){0, 100, 0}));
    assert_ok(ts_body_apply_linear_impulse_to_center(s.ground, (ts_vec3){0, 100, 0}));
    assert_body_unchanged(before, s.ground);
    assert_world_still_works(s.world, s.body);
    assert_body_unchanged(before, s.ground);
    free_scene(&s);
}

/* A static body refuses even a tiny non-zero velocity (1e-30: its square underflows to 0) with TS_ERROR_INVALID_OPERATION, in the setters and in the def. */
static void test_static_body_refuses_tiny_velocity(void **state)
{
    (void)state;
    scene s = make_scene();
    world_snapshot world_before = snapshot_world(s.world);
    body_snapshot before = snapshot_body(s.ground);
    const ts_vec3 tiny = {1e-30f, 0.0f, 0.0f};
    expect_error(ts_body_set_linear_velocity(s.ground, tiny), TS_ERROR_INVALID_OPERATION,
                 "ts_body_set_linear_velocity", "velocity");
    expect_error(ts_body_set_angular_velocity(s.ground, tiny), TS_ERROR_INVALID_OPERATION,
                 "ts_body_set_angular_velocity", "velocity");
    assert_body_unchanged(before, s.ground);
    ts_body_def def = ts_default_body_def();
    def.linear_velocity = tiny;
    expect_null_body(ts_create_body(s.world, &def), TS_ERROR_INVALID_OPERATION, "ts_create_body", "velocity");
    assert_world_unchanged(world_before, s.world);
    free_scene(&s);
}

/* Every body getter with a NULL output gives TS_ERROR_NULL_POINTER naming the output. */
static void test_body_getters_null_output(void **state)
{
    (void)state;
    scene s = make_scene();
    body_snapshot before = snapshot_body(s.body);
    expect_error(ts_body_get_type(s.body, NULL), TS_ERROR_NULL_POINTER, "ts_body_get_type", "type");
    expect_error(ts_body_get_position(s.body, NULL), TS_ERROR_NULL_POINTER, "ts_body_get_position", "position");
    expect_error(ts_body_get_rotation(s.body, NULL), TS_ERROR_NULL_POINTER, "ts_body_get_rotation", "rotation");
    expect_error(ts_body_get_transform(s.body, NULL), TS_ERROR_NULL_POINTER, "ts_body_get_transform", "transform");
    expect_error(ts_body_get_world_center_of_mass(s.body, NULL), TS_ERROR_NULL_POINTER,
                 "ts_body_get_world_center_of_mass", "center");
    expect_error(ts_body_get_linear_velocity(s.body, NULL), TS_ERROR_NULL_POINTER, "ts_body_get_linear_velocity",
                 "velocity");
    expect_error(ts_body_get_angular_velocity(s.body, NULL), TS_ERROR_NULL_POINTER, "ts_body_get_angular_velocity",
                 "velocity");
    expect_error(ts_body_get_mass_data(s.body, NULL), TS_ERROR_NULL_POINTER, "ts_body_get_mass_data", "mass_data");
    expect_error(ts_body_get_mass(s.body, NULL), TS_ERROR_NULL_POINTER, "ts_body_get_mass", "mass");
    expect_error(ts_body_get_linear_damping(s.body, NULL), TS_ERROR_NULL_POINTER, "ts_body_get_linear_damping",
                 "damping");
    expect_error(ts_body_get_angular_damping(s.body, NULL), TS_ERROR_NULL_POINTER, "ts_body_get_angular_damping",
                 "damping");
    expect_error(ts_body_get_gravity_scale(s.body, NULL), TS_ERROR_NULL_POINTER, "ts_body_get_gravity_scale",
                 "scale");
    expect_error(ts_body_get_shapes(s.body, NULL, 0, NULL), TS_ERROR_NULL_POINTER, "ts_body_get_shapes", "count");
    ts_shape_id shapes[2];
    fill_sentinel(shapes, sizeof shapes);
    expect_error(ts_body_get_shapes(s.body, shapes, 2, NULL), TS_ERROR_NULL_POINTER, "ts_body_get_shapes", "count");
    assert_untouched(shapes);
    int count;
    fill_sentinel(&count, sizeof count);
    expect_error(ts_body_get_shapes(s.body, shapes, -1, &count), TS_ERROR_OUT_OF_RANGE, "ts_body_get_shapes",
                 "capacity");
    assert_untouched(count);
    assert_untouched(shapes);
    /* capacity 0 with no array just counts. */
    assert_ok(ts_body_get_shapes(s.body, NULL, 0, &count));
    assert_int_equal(count, 1);
    assert_body_unchanged(before, s.body);
    assert_world_still_works(s.world, s.body);
    free_scene(&s);
}

/* ts_body_get_shapes with capacity > 0 and a NULL array gives TS_ERROR_NULL_POINTER naming "shapes", and writes no count. */
static void test_body_get_shapes_null_array(void **state)
{
    (void)state;
    scene s = make_scene();
    int count;
    fill_sentinel(&count, sizeof count);
    expect_error(ts_body_get_shapes(s.body, NULL, 2, &count), TS_ERROR_NULL_POINTER, "ts_body_get_shapes", "shapes");
    assert_untouched(count);
    free_scene(&s);
}

/* A destroyed body's id gives TS_ERROR_STALE_ID on every body call and writes no output; other bodies are untouched. */
static void test_destroyed_body_id(void **state)
{
    (void)state;
    scene s = make_scene();
    ts_body_id dead = test_dynamic_body(s.world, (ts_vec3){5.0f, 5.0f, 5.0f});
    ts_shape_def shape_def = ts_default_shape_def();
    ts_sphere sphere = {0.5f};
    ts_shape_id dead_shape = ts_create_sphere_shape(dead, &shape_def, &sphere);
    assert_false(ts_shape_id_is_null(dead_shape));
    assert_ok(ts_destroy_body(dead));
    world_snapshot world_before = snapshot_world(s.world);
    body_snapshot body_before = snapshot_body(s.body);
    body_snapshot ground_before = snapshot_body(s.ground);
    assert_body_calls_fail(dead, TS_ERROR_STALE_ID);
    /* Its shape went with it. */
    assert_shape_calls_fail(dead_shape, TS_ERROR_STALE_ID);

    /* A new body now takes the freed index, with a new generation: the old id still does not reach it. */
    ts_body_id fresh = test_dynamic_body(s.world, (ts_vec3){-5.0f, 5.0f, 5.0f});
    assert_int_equal(fresh.index1, dead.index1);
    assert_int_not_equal(fresh.generation, dead.generation);
    body_snapshot fresh_before = snapshot_body(fresh);
    world_before = snapshot_world(s.world);
    assert_body_calls_fail(dead, TS_ERROR_STALE_ID);
    assert_shape_calls_fail(dead_shape, TS_ERROR_STALE_ID);
    assert_body_unchanged(fresh_before, fresh);
    assert_body_unchanged(body_before, s.body);
    assert_body_unchanged(ground_before, s.ground);
    assert_world_unchanged(world_before, s.world);
    assert_world_still_works(s.world, s.body);
    free_scene(&s);
}

/* The null body id and forged ids (huge or negative index, wrong generation, unknown world slot) give TS_ERROR_STALE_ID everywhere. */
static void test_null_and_forged_body_ids(void **state)
{
    (void)state;
    scene s = make_scene();
    world_snapshot world_before = snapshot_world(s.world);
    body_snapshot body_before = snapshot_body(s.body);
    body_snapshot ground_before = snapshot_body(s.ground);

    assert_body_calls_fail(TS_NULL_BODY_ID, TS_ERROR_STALE_ID);
    ts_body_id forged = s.body;
    forged.index1 = 1000000;
    assert_body_calls_fail(forged, TS_ERROR_STALE_ID);
    forged.index1 = INT32_MAX;
    assert_body_calls_fail(forged, TS_ERROR_STALE_ID);
    forged.index1 = -5;
    assert_body_calls_fail(forged, TS_ERROR_STALE_ID);
    forged.index1 = INT32_MIN;
    assert_body_calls_fail(forged, TS_ERROR_STALE_ID);
    forged = s.body;
    forged.index1 = 0; /* null index with a live world */
    assert_body_calls_fail(forged, TS_ERROR_STALE_ID);
    forged = s.body;
    forged.generation += 1;
    assert_body_calls_fail(forged, TS_ERROR_STALE_ID);
    forged.generation = UINT32_MAX;
    assert_body_calls_fail(forged, TS_ERROR_STALE_ID);
    forged = s.body;
    forged.world_generation = (uint16_t)(forged.world_generation + 1);
    assert_body_calls_fail(forged, TS_ERROR_STALE_ID);
    forged = s.body;
    forged.world0 = TS_MAX_WORLDS;
    assert_body_calls_fail(forged, TS_ERROR_STALE_ID);
    forged.world0 = UINT16_MAX;
    assert_body_calls_fail(forged, TS_ERROR_STALE_ID);

    assert_world_unchanged(world_before, s.world);
    assert_body_unchanged(body_before, s.body);
    assert_body_unchanged(ground_before, s.ground);
    assert_world_still_works(s.world, s.body);
    free_scene(&s);
}

/* ts_world_get_body_transforms(B, ids of world A) gives TS_ERROR_WRONG_WORLD; a destroyed body gives TS_ERROR_STALE_ID; nothing is written. */
static void test_body_transforms_wrong_world(void **state)
{
    (void)state;
    scene a = make_scene();
    scene b = make_scene();
    world_snapshot a_before = snapshot_world(a.world);
    world_snapshot b_before = snapshot_world(b.world);
    ts_transform transforms[3];
    fill_sentinel(transforms, sizeof transforms);

    ts_body_id ids[3] = {a.body, a.ground, a.body};
    expect_error(ts_world_get_body_transforms(b.world, ids, 3, transforms), TS_ERROR_WRONG_WORLD,
                 "ts_world_get_body_transforms", "bodies");
    assert_untouched(transforms);
    /* Good ids first, then one of the other world: still nothing written. */
    ts_body_id mixed[3] = {b.body, b.ground, a.body};
    expect_error(ts_world_get_body_transforms(b.world, mixed, 3, transforms), TS_ERROR_WRONG_WORLD,
                 "ts_world_get_body_transforms", "bodies");
    assert_untouched(transforms);
    expect_error(ts_world_get_body_transforms(a.world, mixed, 3, transforms), TS_ERROR_WRONG_WORLD,
                 "ts_world_get_body_transforms", "bodies");
    assert_untouched(transforms);

    /* A destroyed body of the right world. */
    ts_body_id dead = test_dynamic_body(b.world, (ts_vec3){0, 0, 0});
    assert_ok(ts_destroy_body(dead));
    b_before = snapshot_world(b.world);
    ts_body_id with_dead[3] = {b.body, dead, b.ground};
    expect_error(ts_world_get_body_transforms(b.world, with_dead, 3, transforms), TS_ERROR_STALE_ID,
                 "ts_world_get_body_transforms", "bodies");
    assert_untouched(transforms);
    /* A forged index in the right world. */
    ts_body_id forged = b.body;
    forged.index1 = 999999;
    ts_body_id with_forged[2] = {b.body, forged};
    expect_error(ts_world_get_body_transforms(b.world, with_forged, 2, transforms), TS_ERROR_STALE_ID,
                 "ts_world_get_body_transforms", "bodies");
    assert_untouched(transforms);

    /* The good ids alone work. */
    ts_body_id good[2] = {b.body, b.ground};
    assert_ok(ts_world_get_body_transforms(b.world, good, 2, transforms));
    assert_near(transforms[0].p.y, 2.0f, 1e-6);
    assert_near(transforms[1].p.y, -100.0f, 1e-6);

    assert_world_unchanged(a_before, a.world);
    assert_world_unchanged(b_before, b.world);
    assert_world_still_works(a.world, a.body);
    assert_world_still_works(b.world, b.body);
    free_scene(&b);
    free_scene(&a);
}

/* The null body id in ts_world_get_body_transforms is never valid: TS_ERROR_STALE_ID (as every other body call says), nothing written. */
static void test_body_transforms_null_id(void **state)
{
    (void)state;
    scene s = make_scene();
    ts_transform transforms[2];
    fill_sentinel(transforms, sizeof transforms);
    ts_body_id ids[2] = {s.body, TS_NULL_BODY_ID};
    expect_error(ts_world_get_body_transforms(s.world, ids, 2, transforms), TS_ERROR_STALE_ID,
                 "ts_world_get_body_transforms", "bodies");
    assert_untouched(transforms);
    free_scene(&s);
}

/* ==== shape definitions and geometry ==== */

/* NaN / infinity in the shape def's local_position, local_rotation, density, friction, restitution or rolling_resistance: no shape, TS_ERROR_NOT_FINITE naming the field. */
static void test_shape_def_not_finite(void **state)
{
    (void)state;
    scene s = make_scene();
    world_snapshot world_before = snapshot_world(s.world);
    body_snapshot before = snapshot_body(s.body);
    ts_sphere sphere = {0.5f};
    for (int i = 0; i < BAD_FLOAT_COUNT; ++i) {
        const float bad = bad_float(i);
        for (int c = 0; c < 3; ++c) {
            ts_shape_def def = ts_default_shape_def();
            def.local_position = vec3_with(def.local_position, c, bad);
            expect_null_shape(ts_create_sphere_shape(s.body, &def, &sphere), TS_ERROR_NOT_FINITE,
                              "ts_create_sphere_shape", "local_position");
        }
        for (int c = 0; c < 4; ++c) {
            ts_shape_def def = ts_default_shape_def();
            def.local_rotation = quat_with(def.local_rotation, c, bad);
            expect_null_shape(ts_create_sphere_shape(s.body, &def, &sphere), TS_ERROR_NOT_FINITE,
                              "ts_create_sphere_shape", "local_rotation");
        }
        ts_shape_def def = ts_default_shape_def();
        def.density = bad;
        expect_null_shape(ts_create_sphere_shape(s.body, &def, &sphere), TS_ERROR_NOT_FINITE,
                          "ts_create_sphere_shape", "density");
        def = ts_default_shape_def();
        def.friction = bad;
        ts_box box = {{0.5f, 0.5f, 0.5f}};
        expect_null_shape(ts_create_box_shape(s.body, &def, &box), TS_ERROR_NOT_FINITE, "ts_create_box_shape",
                          "friction");
        def = ts_default_shape_def();
        def.restitution = bad;
        ts_capsule capsule = {0.5f, 0.25f};
        expect_null_shape(ts_create_capsule_shape(s.body, &def, &capsule), TS_ERROR_NOT_FINITE,
                          "ts_create_capsule_shape", "restitution");
        def = ts_default_shape_def();
        def.rolling_resistance = bad;
        expect_null_shape(ts_create_sphere_shape(s.body, &def, &sphere), TS_ERROR_NOT_FINITE,
                          "ts_create_sphere_shape", "rolling_resistance");
    }
    assert_world_unchanged(world_before, s.world);
    assert_body_unchanged(before, s.body);
    assert_world_still_works(s.world, s.body);
    free_scene(&s);
}

/* Density 0 or negative, negative friction, restitution negative or above 1, rolling resistance negative or above TS_MAX_ROLLING_RESISTANCE, and a local rotation off unit length: TS_ERROR_OUT_OF_RANGE naming the field. */
static void test_shape_def_out_of_range(void **state)
{
    (void)state;
    scene s = make_scene();
    world_snapshot world_before = snapshot_world(s.world);
    body_snapshot before = snapshot_body(s.body);
    ts_box box = {{0.25f, 0.5f, 0.75f}};
    const float bad_density[] = {0.0f, -0.0f, -1.0f, -FLT_MAX};
    for (size_t i = 0; i < sizeof bad_density / sizeof bad_density[0]; ++i) {
        ts_shape_def def = ts_default_shape_def();
        def.density = bad_density[i];
        expect_null_shape(ts_create_box_shape(s.body, &def, &box), TS_ERROR_OUT_OF_RANGE, "ts_create_box_shape",
                          "density");
    }
    const float bad_friction[] = {-1.0f, -FLT_MIN};
    for (size_t i = 0; i < 2; ++i) {
        ts_shape_def def = ts_default_shape_def();
        def.friction = bad_friction[i];
        expect_null_shape(ts_create_box_shape(s.body, &def, &box), TS_ERROR_OUT_OF_RANGE, "ts_create_box_shape",
                          "friction");
    }
    const float bad_restitution[] = {-0.1f, -FLT_MIN, 1.0001f, 2.0f, FLT_MAX};
    for (size_t i = 0; i < sizeof bad_restitution / sizeof bad_restitution[0]; ++i) {
        ts_shape_def def = ts_default_shape_def();
        def.restitution = bad_restitution[i];
        expect_null_shape(ts_create_box_shape(s.body, &def, &box), TS_ERROR_OUT_OF_RANGE, "ts_create_box_shape",
                          "restitution");
    }
    const float bad_rolling[] = {-0.1f, -FLT_MIN, TS_MAX_ROLLING_RESISTANCE * 1.001f, 1.0e6f, FLT_MAX};
    for (size_t i = 0; i < sizeof bad_rolling / sizeof bad_rolling[0]; ++i) {
        ts_shape_def def = ts_default_shape_def();
        def.rolling_resistance = bad_rolling[i];
        expect_null_shape(ts_create_box_shape(s.body, &def, &box), TS_ERROR_OUT_OF_RANGE, "ts_create_box_shape",
                          "rolling_resistance");
    }
    const ts_quat bad_rotation[] = {{0, 0, 0, 2}, {0, 0, 0, 0}, {0, 0, 0, 0.98f}, {0.5f, 0.5f, 0.5f, 0.6f}};
    for (size_t i = 0; i < sizeof bad_rotation / sizeof bad_rotation[0]; ++i) {
        ts_shape_def def = ts_default_shape_def();
        def.local_rotation = bad_rotation[i];
        expect_null_shape(ts_create_box_shape(s.body, &def, &box), TS_ERROR_OUT_OF_RANGE, "ts_create_box_shape",
                          "local_rotation");
    }
    assert_world_unchanged(world_before, s.world);
    assert_body_unchanged(before, s.body);
    /* The edges of the ranges are accepted: friction 0, restitution 0 and 1,
     * rolling resistance TS_MAX_ROLLING_RESISTANCE. */
    ts_shape_def def = ts_default_shape_def();
    def.friction = 0.0f;
    def.restitution = 1.0f;
    def.rolling_resistance = TS_MAX_ROLLING_RESISTANCE;
    assert_false(ts_shape_id_is_null(ts_create_box_shape(s.body, &def, &box)));
    assert_world_still_works(s.world, s.body);
    free_scene(&s);
}

/* A shape def local_rotation within 1% of unit length is normalised: the stored local rotation has length 1 within 1e-6. */
static void test_shape_def_rotation_normalised(void **state)
{
    (void)state;
    scene s = make_scene();
    const ts_quat near_unit[] = {{0, 0, 0, 1.008f}, {0, 0, 0, 0.992f}, {0.1f, 0.2f, 0.3f, 0.93f}};
    ts_capsule capsule = {0.5f, 0.25f};
    for (size_t i = 0; i < sizeof near_unit / sizeof near_unit[0]; ++i) {
        ts_shape_def def = ts_default_shape_def();
        def.local_rotation = near_unit[i];
        ts_shape_id shape = ts_create_capsule_shape(s.body, &def, &capsule);
        assert_false(ts_shape_id_is_null(shape));
        ts_transform local;
        assert_ok(ts_shape_get_local_transform(shape, &local));
        assert_near(quat_length(local.q), 1.0, 1e-6);
        double length = quat_length(near_unit[i]);
        assert_near(local.q.x, near_unit[i].x / length, 1e-6);
        assert_near(local.q.w, near_unit[i].w / length, 1e-6);
        assert_ok(ts_destroy_shape(shape));
    }
    assert_world_still_works(s.world, s.body);
    free_scene(&s);
}

/* Box half extents (each component), sphere radius and capsule radius that are 0, negative, NaN or infinite, and a negative or non-finite capsule half_height, are refused; half_height 0 is allowed. */
static void test_shape_geometry_bad(void **state)
{
    (void)state;
    scene s = make_scene();
    world_snapshot world_before = snapshot_world(s.world);
    body_snapshot before = snapshot_body(s.body);
    ts_shape_def def = ts_default_shape_def();
    const float out_of_range[] = {0.0f, -0.0f, -1.0f, -FLT_MAX};
    for (size_t i = 0; i < sizeof out_of_range / sizeof out_of_range[0]; ++i) {
        const float bad = out_of_range[i];
        for (int c = 0; c < 3; ++c) {
            ts_box box = {vec3_with((ts_vec3){0.5f, 0.5f, 0.5f}, c, bad)};
            expect_null_shape(ts_create_box_shape(s.body, &def, &box), TS_ERROR_OUT_OF_RANGE, "ts_create_box_shape",
                              "half_extents");
        }
        ts_sphere sphere = {bad};
        expect_null_shape(ts_create_sphere_shape(s.body, &def, &sphere), TS_ERROR_OUT_OF_RANGE,
                          "ts_create_sphere_shape", "radius");
        ts_capsule capsule = {0.5f, bad};
        expect_null_shape(ts_create_capsule_shape(s.body, &def, &capsule), TS_ERROR_OUT_OF_RANGE,
                          "ts_create_capsule_shape", "radius");
    }
    const float negative[] = {-1.0f, -FLT_MIN, -FLT_MAX};
    for (size_t i = 0; i < sizeof negative / sizeof negative[0]; ++i) {
        ts_capsule capsule = {negative[i], 0.5f};
        expect_null_shape(ts_create_capsule_shape(s.body, &def, &capsule), TS_ERROR_OUT_OF_RANGE,
                          "ts_create_capsule_shape", "half_height");
    }
    for (int i = 0; i < BAD_FLOAT_COUNT; ++i) {
        const float bad = bad_float(i);
        for (int c = 0; c < 3; ++c) {
            ts_box box = {vec3_with((ts_vec3){0.5f, 0.5f, 0.5f}, c, bad)};
            expect_null_shape(ts_create_box_shape(s.body, &def, &box), TS_ERROR_NOT_FINITE, "ts_create_box_shape",
                              "half_extents");
        }
        ts_sphere sphere = {bad};
        expect_null_shape(ts_create_sphere_shape(s.body, &def, &sphere), TS_ERROR_NOT_FINITE,
                          "ts_create_sphere_shape", "radius");
        ts_capsule capsule = {0.5f, bad};
        expect_null_shape(ts_create_capsule_shape(s.body, &def, &capsule), TS_ERROR_NOT_FINITE,
                          "ts_create_capsule_shape", "radius");
        capsule = (ts_capsule){bad, 0.5f};
        expect_null_shape(ts_create_capsule_shape(s.body, &def, &capsule), TS_ERROR_NOT_FINITE,
                          "ts_create_capsule_shape", "half_height");
    }
    assert_world_unchanged(world_before, s.world);
    assert_body_unchanged(before, s.body);

    /* half_height 0 makes a sphere-like capsule and is fine. */
    ts_capsule round = {0.0f, 0.5f};
    ts_shape_id shape = ts_create_capsule_shape(s.body, &def, &round);
    assert_false(ts_shape_id_is_null(shape));
    ts_capsule got;
    assert_ok(ts_shape_get_capsule(shape, &got));
    assert_true(got.half_height == 0.0f && got.radius == 0.5f);
    assert_world_still_works(s.world, s.body);
    free_scene(&s);
}

/* Shape create calls with a NULL def, a NULL geometry, a zero-filled def or a bad body id give a null id and the right error. */
static void test_shape_create_null_and_uninitialized(void **state)
{
    (void)state;
    scene s = make_scene();
    world_snapshot world_before = snapshot_world(s.world);
    body_snapshot before = snapshot_body(s.body);
    ts_shape_def def = ts_default_shape_def();
    ts_sphere sphere = {0.5f};
    ts_box box = {{0.5f, 0.5f, 0.5f}};
    ts_capsule capsule = {0.5f, 0.25f};

    expect_null_shape(ts_create_sphere_shape(s.body, NULL, &sphere), TS_ERROR_NULL_POINTER, "ts_create_sphere_shape",
                      "def");
    expect_null_shape(ts_create_box_shape(s.body, NULL, &box), TS_ERROR_NULL_POINTER, "ts_create_box_shape", "def");
    expect_null_shape(ts_create_capsule_shape(s.body, NULL, &capsule), TS_ERROR_NULL_POINTER,
                      "ts_create_capsule_shape", "def");
    expect_null_shape(ts_create_sphere_shape(s.body, &def, NULL), TS_ERROR_NULL_POINTER, "ts_create_sphere_shape",
                      "sphere");
    expect_null_shape(ts_create_box_shape(s.body, &def, NULL), TS_ERROR_NULL_POINTER, "ts_create_box_shape", "box");
    expect_null_shape(ts_create_capsule_shape(s.body, &def, NULL), TS_ERROR_NULL_POINTER, "ts_create_capsule_shape",
                      "capsule");

    ts_shape_def zero;
    memset(&zero, 0, sizeof zero);
    expect_null_shape(ts_create_sphere_shape(s.body, &zero, &sphere), TS_ERROR_UNINITIALIZED_DEF,
                      "ts_create_sphere_shape", "def");
    zero.local_rotation = TS_QUAT_IDENTITY;
    zero.density = 1.0f;
    expect_null_shape(ts_create_box_shape(s.body, &zero, &box), TS_ERROR_UNINITIALIZED_DEF, "ts_create_box_shape",
                      "def");
    memset(&zero, 0xFF, sizeof zero);
    expect_null_shape(ts_create_capsule_shape(s.body, &zero, &capsule), TS_ERROR_UNINITIALIZED_DEF,
                      "ts_create_capsule_shape", "def");

    expect_null_shape(ts_create_sphere_shape(TS_NULL_BODY_ID, &def, &sphere), TS_ERROR_STALE_ID,
                      "ts_create_sphere_shape", "id");
    assert_world_unchanged(world_before, s.world);
    assert_body_unchanged(before, s.body);
    assert_world_still_works(s.world, s.body);
    free_scene(&s);
}

/* ==== shape calls ==== */

/* Shape setters with bad values (density <= 0 / NaN, friction < 0 / NaN / inf, restitution outside [0, 1] / NaN, rolling resistance outside [0, TS_MAX_ROLLING_RESISTANCE] / NaN / inf) fail and keep the old value and the body's mass. */
static void test_shape_setters_bad(void **state)
{
    (void)state;
    scene s = make_scene();
    body_snapshot body_before = snapshot_body(s.body);
    shape_snapshot before = snapshot_shape(s.shape);
    const float bad_density[] = {0.0f, -0.0f, -2.0f, -FLT_MAX};
    for (size_t i = 0; i < sizeof bad_density / sizeof bad_density[0]; ++i) {
        expect_error(ts_shape_set_density(s.shape, bad_density[i]), TS_ERROR_OUT_OF_RANGE, "ts_shape_set_density",
                     "density");
    }
    expect_error(ts_shape_set_friction(s.shape, -0.5f), TS_ERROR_OUT_OF_RANGE, "ts_shape_set_friction", "friction");
    expect_error(ts_shape_set_restitution(s.shape, -0.5f), TS_ERROR_OUT_OF_RANGE, "ts_shape_set_restitution",
                 "restitution");
    expect_error(ts_shape_set_restitution(s.shape, 1.5f), TS_ERROR_OUT_OF_RANGE, "ts_shape_set_restitution",
                 "restitution");
    expect_error(ts_shape_set_rolling_resistance(s.shape, -0.5f), TS_ERROR_OUT_OF_RANGE,
                 "ts_shape_set_rolling_resistance", "rolling_resistance");
    expect_error(ts_shape_set_rolling_resistance(s.shape, 1.0e9f), TS_ERROR_OUT_OF_RANGE,
                 "ts_shape_set_rolling_resistance", "rolling_resistance");
    for (int i = 0; i < BAD_FLOAT_COUNT; ++i) {
        expect_error(ts_shape_set_rolling_resistance(s.shape, bad_float(i)), TS_ERROR_NOT_FINITE,
                     "ts_shape_set_rolling_resistance", "rolling_resistance");
        expect_error(ts_shape_set_density(s.shape, bad_float(i)), TS_ERROR_NOT_FINITE, "ts_shape_set_density",
                     "density");
        expect_error(ts_shape_set_friction(s.shape, bad_float(i)), TS_ERROR_NOT_FINITE, "ts_shape_set_friction",
                     "friction");
        expect_error(ts_shape_set_restitution(s.shape, bad_float(i)), TS_ERROR_NOT_FINITE,
                     "ts_shape_set_restitution", "restitution");
    }
    assert_shape_unchanged(before, s.shape);
    assert_body_unchanged(body_before, s.body);
    assert_world_still_works(s.world, s.body);
    free_scene(&s);
}

/* Every shape getter with a NULL output gives TS_ERROR_NULL_POINTER naming the output. */
static void test_shape_getters_null_output(void **state)
{
    (void)state;
    scene s = make_scene();
    shape_snapshot before = snapshot_shape(s.shape);
    expect_error(ts_shape_get_body(s.shape, NULL), TS_ERROR_NULL_POINTER, "ts_shape_get_body", "body");
    expect_error(ts_shape_get_type(s.shape, NULL), TS_ERROR_NULL_POINTER, "ts_shape_get_type", "type");
    expect_error(ts_shape_get_sphere(s.shape, NULL), TS_ERROR_NULL_POINTER, "ts_shape_get_sphere", "sphere");
    expect_error(ts_shape_get_box(s.shape, NULL), TS_ERROR_NULL_POINTER, "ts_shape_get_box", "box");
    expect_error(ts_shape_get_capsule(s.shape, NULL), TS_ERROR_NULL_POINTER, "ts_shape_get_capsule", "capsule");
    expect_error(ts_shape_get_local_transform(s.shape, NULL), TS_ERROR_NULL_POINTER, "ts_shape_get_local_transform",
                 "transform");
    expect_error(ts_shape_get_density(s.shape, NULL), TS_ERROR_NULL_POINTER, "ts_shape_get_density", "density");
    expect_error(ts_shape_get_friction(s.shape, NULL), TS_ERROR_NULL_POINTER, "ts_shape_get_friction", "friction");
    expect_error(ts_shape_get_restitution(s.shape, NULL), TS_ERROR_NULL_POINTER, "ts_shape_get_restitution",
                 "restitution");
    expect_error(ts_shape_get_filter(s.shape, NULL), TS_ERROR_NULL_POINTER, "ts_shape_get_filter", "filter");
    expect_error(ts_shape_get_rolling_resistance(s.shape, NULL), TS_ERROR_NULL_POINTER,
                 "ts_shape_get_rolling_resistance", "rolling_resistance");
    assert_shape_unchanged(before, s.shape);
    free_scene(&s);
}

/* A geometry getter of the wrong type (ts_shape_get_box on a sphere, ...) gives TS_ERROR_INVALID_OPERATION and writes nothing. */
static void test_shape_wrong_geometry_getter(void **state)
{
    (void)state;
    scene s = make_scene();
    ts_shape_def def = ts_default_shape_def();
    ts_sphere sphere = {0.5f};
    ts_capsule capsule = {0.5f, 0.25f};
    ts_shape_id ball = ts_create_sphere_shape(s.body, &def, &sphere);
    ts_shape_id pill = ts_create_capsule_shape(s.body, &def, &capsule);
    assert_false(ts_shape_id_is_null(ball));
    assert_false(ts_shape_id_is_null(pill));
    ts_sphere got_sphere;
    ts_box got_box;
    ts_capsule got_capsule;
    fill_sentinel(&got_sphere, sizeof got_sphere);
    fill_sentinel(&got_box, sizeof got_box);
    fill_sentinel(&got_capsule, sizeof got_capsule);
    expect_error(ts_shape_get_box(ball, &got_box), TS_ERROR_INVALID_OPERATION, "ts_shape_get_box", "sphere");
    expect_error(ts_shape_get_capsule(ball, &got_capsule), TS_ERROR_INVALID_OPERATION, "ts_shape_get_capsule",
                 "sphere");
    expect_error(ts_shape_get_sphere(s.shape, &got_sphere), TS_ERROR_INVALID_OPERATION, "ts_shape_get_sphere", "box");
    expect_error(ts_shape_get_capsule(s.shape, &got_capsule), TS_ERROR_INVALID_OPERATION, "ts_shape_get_capsule",
                 "box");
    expect_error(ts_shape_get_sphere(pill, &got_sphere), TS_ERROR_INVALID_OPERATION, "ts_shape_get_sphere",
                 "capsule");
    expect_error(ts_shape_get_box(pill, &got_box), TS_ERROR_INVALID_OPERATION, "ts_shape_get_box", "capsule");
    assert_untouched(got_sphere);
    assert_untouched(got_box);
    assert_untouched(got_capsule);
    assert_ok(ts_shape_get_sphere(ball, &got_sphere));
    assert_true(got_sphere.radius == 0.5f);
    assert_world_still_works(s.world, s.body);
    free_scene(&s);
}

/* A shape id after ts_destroy_shape, and after its body was destroyed, gives TS_ERROR_STALE_ID on every shape call; a new shape in the same index is not reached. */
static void test_stale_shape_ids(void **state)
{
    (void)state;
    scene s = make_scene();
    ts_shape_def def = ts_default_shape_def();
    ts_sphere sphere = {0.25f};
    ts_shape_id extra = ts_create_sphere_shape(s.body, &def, &sphere);
    assert_false(ts_shape_id_is_null(extra));
    body_snapshot body_with_extra = snapshot_body(s.body);
    assert_ok(ts_destroy_shape(extra));
    body_snapshot before = snapshot_body(s.body);
    assert_int_equal(before.shape_count, body_with_extra.shape_count - 1);
    assert_shape_calls_fail(extra, TS_ERROR_STALE_ID);
    assert_body_unchanged(before, s.body);

    /* The next shape takes the freed index with a new generation. */
    ts_shape_id fresh = ts_create_sphere_shape(s.body, &def, &sphere);
    assert_int_equal(fresh.index1, extra.index1);
    assert_int_not_equal(fresh.generation, extra.generation);
    shape_snapshot fresh_before = snapshot_shape(fresh);
    before = snapshot_body(s.body);
    assert_shape_calls_fail(extra, TS_ERROR_STALE_ID);
    assert_shape_unchanged(fresh_before, fresh);
    assert_body_unchanged(before, s.body);

    /* Shapes of a destroyed body. */
    ts_body_id doomed = test_dynamic_body(s.world, (ts_vec3){0, 10, 0});
    ts_box box = {{1, 1, 1}};
    ts_shape_id doomed_box = ts_create_box_shape(doomed, &def, &box);
    ts_shape_id doomed_ball = ts_create_sphere_shape(doomed, &def, &sphere);
    assert_false(ts_shape_id_is_null(doomed_box));
    assert_false(ts_shape_id_is_null(doomed_ball));
    assert_ok(ts_destroy_body(doomed));
    world_snapshot world_before = snapshot_world(s.world);
    assert_shape_calls_fail(doomed_box, TS_ERROR_STALE_ID);
    assert_shape_calls_fail(doomed_ball, TS_ERROR_STALE_ID);
    assert_shape_calls_fail(TS_NULL_SHAPE_ID, TS_ERROR_STALE_ID);
    ts_shape_id forged = s.shape;
    forged.index1 = 1000000;
    assert_shape_calls_fail(forged, TS_ERROR_STALE_ID);
    forged.index1 = INT32_MIN;
    assert_shape_calls_fail(forged, TS_ERROR_STALE_ID);
    forged = s.shape;
    forged.generation += 7;
    assert_shape_calls_fail(forged, TS_ERROR_STALE_ID);
    assert_world_unchanged(world_before, s.world);
    assert_shape_unchanged(fresh_before, fresh);
    assert_world_still_works(s.world, s.body);
    free_scene(&s);
}

/* ==== finite input whose derived values overflow ==== */

static bool vec3_finite(ts_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

/* The body's pose, velocities and mass data are all finite; prints what is not. */
static bool body_is_finite(ts_body_id body, const char *label)
{
    ts_transform t;
    ts_vec3 v, w;
    ts_mass_data md;
    assert_ok(ts_body_get_transform(body, &t));
    assert_ok(ts_body_get_linear_velocity(body, &v));
    assert_ok(ts_body_get_angular_velocity(body, &w));
    assert_ok(ts_body_get_mass_data(body, &md));
    bool ok = vec3_finite(t.p) && isfinite(t.q.x) && isfinite(t.q.y) && isfinite(t.q.z) && isfinite(t.q.w) &&
              vec3_finite(v) && vec3_finite(w) && isfinite(md.mass) && vec3_finite(md.center) &&
              vec3_finite(md.principal_inertia);
    if (!ok) {
        print_error("%s: non-finite state: p = (%g, %g, %g), v = (%g, %g, %g), w = (%g, %g, %g), mass %g, "
                    "inertia (%g, %g, %g)\n",
                    label, (double)t.p.x, (double)t.p.y, (double)t.p.z, (double)v.x, (double)v.y, (double)v.z,
                    (double)w.x, (double)w.y, (double)w.z, (double)md.mass, (double)md.principal_inertia.x,
                    (double)md.principal_inertia.y, (double)md.principal_inertia.z);
    }
    return ok;
}

typedef struct extreme_shape_case {
    const char *label;
    ts_shape_type type;
    ts_vec3 size; /* sphere: x = radius; box: half extents; capsule: x = half_height, y = radius */
    float density;
    ts_vec3 local_position;
} extreme_shape_case;

/* Finite shapes whose mass or inertia overflow or underflow a float (radius 1e-8, half extents 1e20, density
 * FLT_MAX or 1e-40, a shape 1e30 m off the body origin) are either refused with TS_ERROR_OUT_OF_RANGE, changing
 * nothing, or give a body whose mass data and state stay finite through a step. */
static void test_extreme_shapes_keep_world_finite(void **state)
{
    (void)state;
    const extreme_shape_case cases[] = {
        {"sphere radius 1e-8", TS_SHAPE_SPHERE, {1e-8f, 0, 0}, 1.0f, {0, 0, 0}},
        {"sphere radius 1e-12", TS_SHAPE_SPHERE, {1e-12f, 0, 0}, 1.0f, {0, 0, 0}},
        {"box half extents 1e20", TS_SHAPE_BOX, {1e20f, 1e20f, 1e20f}, 1.0f, {0, 0, 0}},
        {"capsule radius 1e20", TS_SHAPE_CAPSULE, {1.0f, 1e20f, 0}, 1.0f, {0, 0, 0}},
        {"sphere density FLT_MAX", TS_SHAPE_SPHERE, {1.0f, 0, 0}, FLT_MAX, {0, 0, 0}},
        {"sphere density 1e-40", TS_SHAPE_SPHERE, {1.0f, 0, 0}, 1e-40f, {0, 0, 0}},
        {"sphere at local x 1e30", TS_SHAPE_SPHERE, {1.0f, 0, 0}, 1.0f, {1e30f, 0, 0}},
    };
    int failures = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        const extreme_shape_case *c = &cases[i];
        ts_world_id world = test_world(4, 1);
        ts_body_id body = test_dynamic_body(world, (ts_vec3){0, 0, 0});
        body_snapshot before = snapshot_body(body);
        ts_shape_def def = ts_default_shape_def();
        def.density = c->density;
        def.local_position = c->local_position;
        ts_shape_id shape = TS_NULL_SHAPE_ID;
        if (c->type == TS_SHAPE_SPHERE) {
            ts_sphere sphere = {c->size.x};
            shape = ts_create_sphere_shape(body, &def, &sphere);
        } else if (c->type == TS_SHAPE_BOX) {
            ts_box box = {c->size};
            shape = ts_create_box_shape(body, &def, &box);
        } else {
            ts_capsule capsule = {c->size.x, c->size.y};
            shape = ts_create_capsule_shape(body, &def, &capsule);
        }
        if (ts_shape_id_is_null(shape)) {
            /* Refused: must say so and change nothing. */
            if (strstr(ts_last_error(), "TS_ERROR_OUT_OF_RANGE") == NULL) {
                print_error("%s: refused with \"%s\", expected TS_ERROR_OUT_OF_RANGE\n", c->label, ts_last_error());
                ++failures;
            }
            assert_body_unchanged(before, body);
        } else {
            bool ok = body_is_finite(body, c->label);
            assert_ok(ts_body_set_angular_velocity(body, (ts_vec3){0.5f, 1.0f, 0.0f}));
            assert_ok(ts_world_step(world, 1.0f / 60.0f));
            ok = ok && body_is_finite(body, c->label);
            if (!ok) {
                print_error("%s: accepted, but the body is no longer finite\n", c->label);
                ++failures;
            }
        }
        assert_ok(ts_destroy_world(world));
    }
    /* The same through ts_shape_set_density on an existing shape. */
    const float densities[] = {FLT_MAX, 1e-40f};
    for (size_t i = 0; i < 2; ++i) {
        scene s = make_scene();
        body_snapshot before = snapshot_body(s.body);
        ts_result r = ts_shape_set_density(s.shape, densities[i]);
        if (r != TS_OK) {
            if (r != TS_ERROR_OUT_OF_RANGE) {
                print_error("ts_shape_set_density(%g) returned %s\n", (double)densities[i], ts_result_name(r));
                ++failures;
            }
            assert_body_unchanged(before, s.body);
        } else {
            bool ok = body_is_finite(s.body, "ts_shape_set_density");
            assert_ok(ts_world_step(s.world, 1.0f / 60.0f));
            ok = ok && body_is_finite(s.body, "ts_shape_set_density, after a step");
            if (!ok) {
                print_error("ts_shape_set_density(%g): accepted, but the body is no longer finite\n",
                            (double)densities[i]);
                ++failures;
            }
        }
        free_scene(&s);
    }
    if (failures > 0) {
        fail_msg("%d extreme shape(s) made a body non-finite or were refused wrongly", failures);
    }
}

/* Forces and impulses with finite arguments whose torque or sum overflows (1e30 N at 1e30 m, FLT_MAX twice) are
 * either refused (TS_ERROR_OUT_OF_RANGE or TS_ERROR_NOT_FINITE, changing nothing) or leave the body finite
 * through a step. */
static void test_overflowing_forces_keep_world_finite(void **state)
{
    (void)state;
    enum { FAR_FORCE, FAR_IMPULSE, FORCE_TWICE, TORQUE_TWICE, CASE_COUNT };
    static const char *labels[CASE_COUNT] = {
        "ts_body_apply_force 1e30 N at 1e30 m",
        "ts_body_apply_linear_impulse 1e30 N s at 1e30 m",
        "ts_body_apply_force_to_center FLT_MAX twice",
        "ts_body_apply_torque FLT_MAX twice",
    };
    int failures = 0;
    for (int k = 0; k < CASE_COUNT; ++k) {
        scene s = make_scene();
        const ts_vec3 big = {0.0f, 1e30f, 0.0f}, far = {1e30f, 0.0f, 0.0f}, max = {FLT_MAX, 0.0f, 0.0f};
        ts_result r1 = TS_OK, r2 = TS_OK;
        switch (k) {
        case FAR_FORCE: r1 = ts_body_apply_force(s.body, big, far); break;
        case FAR_IMPULSE: r1 = ts_body_apply_linear_impulse(s.body, big, far); break;
        case FORCE_TWICE:
            r1 = ts_body_apply_force_to_center(s.body, max);
            r2 = ts_body_apply_force_to_center(s.body, max);
            break;
        default:
            r1 = ts_body_apply_torque(s.body, max);
            r2 = ts_body_apply_torque(s.body, max);
            break;
        }
        ts_result refused = r1 != TS_OK ? r1 : r2;
        if (refused != TS_OK && refused != TS_ERROR_OUT_OF_RANGE && refused != TS_ERROR_NOT_FINITE) {
            print_error("%s: refused with %s\n", labels[k], ts_result_name(refused));
            ++failures;
        }
        bool ok = body_is_finite(s.body, labels[k]);
        /* An accepted force that overflows the velocity is held, and the step says so. */
        ts_result stepped = ts_world_step(s.world, 1.0f / 60.0f);
        if (stepped != TS_OK && stepped != TS_ERROR_NOT_FINITE) {
            print_error("%s: step returned %s\n", labels[k], ts_result_name(stepped));
            ++failures;
        }
        ok = ok && body_is_finite(s.body, labels[k]);
        if (!ok) {
            print_error("%s: %s, and the body is no longer finite\n", labels[k],
                        refused == TS_OK ? "accepted" : "refused");
            ++failures;
        }
        free_scene(&s);
    }
    if (failures > 0) {
        fail_msg("%d force / impulse case(s) made a body non-finite", failures);
    }
}

/* A finite but absurd gravity (-FLT_MAX) or dt (100 s) is refused against the documented bounds
 * (TS_MAX_GRAVITY, TS_MAX_TIME_STEP in tessera/limits.h), changing nothing; they once overflowed every dynamic
 * body's velocity in the first substep. A force that still overflows a velocity (1e30 N on a box of 1e-30 kg:
 * 1e60 m/s^2) is accepted (forces are bounded, masses too, their ratio is not), and the step keeps that body at
 * its last finite state (here its start) while a kinematic body still moves by its velocity; the world steps on. */
static void test_step_holds_bodies_that_overflow(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    ts_body_def def = ts_default_body_def();
    def.type = TS_BODY_KINEMATIC;
    def.linear_velocity = (ts_vec3){1, 0, 0};
    ts_body_id mover = ts_create_body(world, &def);
    expect_error(ts_world_set_gravity(world, (ts_vec3){0, -FLT_MAX, 0}), TS_ERROR_OUT_OF_RANGE, "ts_world_set_gravity",
                 "TS_MAX_GRAVITY");
    expect_error(ts_world_set_gravity(world, (ts_vec3){0, -1.01e5f, 0}), TS_ERROR_OUT_OF_RANGE, "ts_world_set_gravity",
                 "TS_MAX_GRAVITY");
    expect_error(ts_world_step(world, 100.0f), TS_ERROR_OUT_OF_RANGE, "ts_world_step", "TS_MAX_TIME_STEP");
    expect_error(ts_world_step(world, 1e-7f), TS_ERROR_OUT_OF_RANGE, "ts_world_step", "TS_MIN_TIME_STEP");
    ts_vec3 g;
    assert_ok(ts_world_get_gravity(world, &g));
    assert_true(g.x == 0 && g.y == -10 && g.z == 0);
    assert_ok(ts_world_set_gravity(world, (ts_vec3){0, -1e5f, 0})); /* the bound itself is accepted */
    assert_ok(ts_world_set_gravity(world, (ts_vec3){0, -10, 0}));

    ts_body_id feather = test_box(world, TS_BODY_DYNAMIC, (ts_vec3){0, 5, 0}, TS_QUAT_IDENTITY,
                                  (ts_vec3){0.5f, 0.5f, 0.5f}, 1e-30f);
    assert_ok(ts_body_apply_force_to_center(feather, (ts_vec3){0, 1e30f, 0}));
    ts_result stepped = ts_world_step(world, 1.0f);
    assert_true(stepped == TS_OK || stepped == TS_ERROR_NOT_FINITE);
    ts_vec3 p, v, q;
    assert_ok(ts_body_get_position(feather, &p));
    assert_ok(ts_body_get_linear_velocity(feather, &v));
    assert_true(p.x == 0 && p.y == 5 && p.z == 0 && v.y == 0);
    assert_ok(ts_body_get_position(mover, &q));
    assert_near(q.x, 1.0, 1e-6);
    assert_ok(ts_world_step(world, 1.0f / 60.0f));
    assert_ok(ts_body_get_position(mover, &q));
    assert_true(isfinite(q.x) && q.x > 1.0f);
    assert_ok(ts_destroy_world(world));
}

/* ==== the error message ==== */

/* A successful call leaves ts_last_error() as it was; a failing one replaces it. */
static void test_success_keeps_last_error(void **state)
{
    (void)state;
    scene s = make_scene();
    expect_error(ts_world_step(s.world, -1.0f), TS_ERROR_OUT_OF_RANGE, "ts_world_step", "dt");
    char saved[512];
    snprintf(saved, sizeof saved, "%s", ts_last_error());
    ts_vec3 p;
    assert_ok(ts_body_get_position(s.body, &p));
    assert_ok(ts_body_set_position(s.body, p));
    assert_ok(ts_world_step(s.world, 1.0f / 60.0f));
    assert_true(ts_body_is_valid(s.body));
    assert_false(ts_body_is_valid(TS_NULL_BODY_ID)); /* a query, not a failure */
    assert_false(ts_world_is_valid(TS_NULL_WORLD_ID));
    assert_false(ts_shape_is_valid(TS_NULL_SHAPE_ID));
    assert_string_equal(ts_last_error(), saved);
    for (int r = TS_ERROR_NULL_POINTER; r <= TS_ERROR_CAPACITY; ++r) {
        assert_true(strncmp(ts_result_name((ts_result)r), "TS_ERROR_", 9) == 0);
    }
    assert_string_equal(ts_result_name(TS_OK), "TS_OK");
    assert_non_null(ts_result_name((ts_result)999)); /* not a code: still a string */
    free_scene(&s);
}

/* pthreads, not C11 threads: ThreadSanitizer does not intercept glibc's
 * thrd_create, and the suite runs under it (scripts/test.sh). */
#include <pthread.h>

typedef struct thread_probe {
    ts_world_id world;
    ts_result result;
    char message[512];
} thread_probe;

static void *fail_on_other_thread(void *argument)
{
    thread_probe *probe = argument;
    probe->result = ts_world_set_substeps(probe->world, 0);
    snprintf(probe->message, sizeof probe->message, "%s", ts_last_error());
    return NULL;
}

/* ts_last_error() is per thread: a failure on another thread does not replace this thread's message. */
static void test_last_error_is_thread_local(void **state)
{
    (void)state;
    scene s = make_scene();
    expect_error(ts_world_step(s.world, NAN), TS_ERROR_NOT_FINITE, "ts_world_step", "dt");
    char saved[512];
    snprintf(saved, sizeof saved, "%s", ts_last_error());
    thread_probe probe = {s.world, TS_OK, ""};
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, fail_on_other_thread, &probe), 0);
    assert_int_equal(pthread_join(thread, NULL), 0);
    assert_int_equal(probe.result, TS_ERROR_OUT_OF_RANGE);
    assert_non_null(strstr(probe.message, "ts_world_set_substeps"));
    assert_non_null(strstr(probe.message, "substeps"));
    assert_string_equal(ts_last_error(), saved);
    assert_substeps(s.world, 4);
    free_scene(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_world_def_gravity_not_finite),
        cmocka_unit_test(test_world_def_substeps_out_of_range),
        cmocka_unit_test(test_world_def_threads_out_of_range),
        cmocka_unit_test(test_world_def_contact_mass_ratio_out_of_range),
        cmocka_unit_test(test_world_def_solver),
        cmocka_unit_test(test_world_def_allocator_half_set),
        cmocka_unit_test(test_world_def_capacity_hints),
        cmocka_unit_test(test_world_def_null_and_uninitialized),
        cmocka_unit_test(test_world_capacity_limit),
        cmocka_unit_test(test_world_step_bad_dt),
        cmocka_unit_test(test_world_set_gravity_not_finite),
        cmocka_unit_test(test_world_set_substeps_out_of_range),
        cmocka_unit_test(test_world_set_solver_bad),
        cmocka_unit_test(test_world_outputs_null_or_bad_count),
        cmocka_unit_test(test_world_null_and_forged_ids),
        cmocka_unit_test(test_destroyed_world),
        cmocka_unit_test(test_recreated_world_same_slot),
        cmocka_unit_test(test_body_def_not_finite),
        cmocka_unit_test(test_body_def_out_of_range),
        cmocka_unit_test(test_body_def_rotation_not_unit),
        cmocka_unit_test(test_body_def_rotation_normalised),
        cmocka_unit_test(test_body_def_null_and_uninitialized),
        cmocka_unit_test(test_body_setters_not_finite),
        cmocka_unit_test(test_body_forces_not_finite),
        cmocka_unit_test(test_body_set_rotation_unit_length),
        cmocka_unit_test(test_body_set_damping_negative),
        cmocka_unit_test(test_body_set_type_invalid),
        cmocka_unit_test(test_static_body_velocity),
        cmocka_unit_test(test_static_body_refuses_tiny_velocity),
        cmocka_unit_test(test_body_getters_null_output),
        cmocka_unit_test(test_body_get_shapes_null_array),
        cmocka_unit_test(test_destroyed_body_id),
        cmocka_unit_test(test_null_and_forged_body_ids),
        cmocka_unit_test(test_body_transforms_wrong_world),
        cmocka_unit_test(test_body_transforms_null_id),
        cmocka_unit_test(test_shape_def_not_finite),
        cmocka_unit_test(test_shape_def_out_of_range),
        cmocka_unit_test(test_shape_def_rotation_normalised),
        cmocka_unit_test(test_shape_geometry_bad),
        cmocka_unit_test(test_shape_create_null_and_uninitialized),
        cmocka_unit_test(test_shape_setters_bad),
        cmocka_unit_test(test_shape_getters_null_output),
        cmocka_unit_test(test_shape_wrong_geometry_getter),
        cmocka_unit_test(test_stale_shape_ids),
        cmocka_unit_test(test_extreme_shapes_keep_world_finite),
        cmocka_unit_test(test_overflowing_forces_keep_world_finite),
        cmocka_unit_test(test_step_holds_bodies_that_overflow),
        cmocka_unit_test(test_success_keeps_last_error),
        cmocka_unit_test(test_last_error_is_thread_local),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
