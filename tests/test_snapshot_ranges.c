/* Snapshot loads refuse finite values that no tessera world holds (issue
 * 28, src/soa/snapshot_ranges.h): what the API's create and set calls
 * refuse, and store columns that disagree with the records they follow
 * from. The loader's fuzzer found files with such values that loaded and
 * made the next step overflow (tests/data/fuzz_*.bin, test_snapshot_format2);
 * here each kind of check is met once on purpose.
 *
 * Each case saves a small world, finds the 4 bytes of a known value in
 * one section (values chosen to be unique in it), writes another value
 * there, makes the checksum right again as a crafted file would, and
 * loads: TS_ERROR_INVALID_DATA, no world, and ts_last_error naming the
 * problem. Exact behaviour, so no tolerances. */
#include "test_common.h"

#include "tessera/limits.h"

#include <math.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

enum { HEADER = 32 }; /* magic, version, body size, body checksum (docs/snapshots.md) */

static ts_body_id add_body(ts_world_id world, ts_body_type type, ts_vec3 p, ts_quat q)
{
    ts_body_def def = ts_default_body_def();
    def.type = type;
    def.position = p;
    def.rotation = q;
    ts_body_id body = ts_create_body(world, &def);
    assert_false(ts_body_id_is_null(body));
    return body;
}

/* A ground (half extents 5, 0.5, 5), a turned box pushed by 13.5 N, a
 * sphere placed 0.8125 m off its body's origin, a third box with gravity
 * scale 2.5; a hinge with limits [-0.75, 0.625] and
 * a distance joint 1.375 m long; gravity -9.8125 m/s^2. Not stepped. */
static ts_world_id make_world(ts_quat *turn)
{
    ts_world_def def = ts_default_world_def();
    def.threads = 1;
    def.gravity = (ts_vec3){0.0f, -9.8125f, 0.0f};
    ts_world_id world = ts_create_world(&def);
    assert_false(ts_world_id_is_null(world));
    ts_shape_def shape = ts_default_shape_def();
    ts_box ground_box = {{5.0f, 0.5f, 5.0f}}, box = {{0.5f, 0.5f, 0.5f}};
    ts_body_id ground = add_body(world, TS_BODY_STATIC, (ts_vec3){0.0f, -0.5f, 0.0f}, (ts_quat){0, 0, 0, 1});
    assert_false(ts_shape_id_is_null(ts_create_box_shape(ground, &shape, &ground_box)));
    ts_quat q = {0.125f, 0.25f, 0.375f, 0.875f};
    float n = sqrtf(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    ts_body_id a = add_body(world, TS_BODY_DYNAMIC, (ts_vec3){0.0f, 2.0f, 0.0f},
                            (ts_quat){q.x / n, q.y / n, q.z / n, q.w / n});
    assert_false(ts_shape_id_is_null(ts_create_box_shape(a, &shape, &box)));
    assert_ok(ts_body_apply_force_to_center(a, (ts_vec3){13.5f, 0.0f, 0.0f}));
    assert_ok(ts_body_get_rotation(a, turn));
    ts_body_id b = add_body(world, TS_BODY_DYNAMIC, (ts_vec3){3.0f, 2.0f, 0.0f}, (ts_quat){0, 0, 0, 1});
    ts_shape_def off = ts_default_shape_def();
    off.local_position = (ts_vec3){0.8125f, 0.0f, 0.0f};
    ts_sphere sphere = {0.5f};
    assert_false(ts_shape_id_is_null(ts_create_sphere_shape(b, &off, &sphere)));
    ts_body_id c = add_body(world, TS_BODY_DYNAMIC, (ts_vec3){6.0f, 2.0f, 0.0f}, (ts_quat){0, 0, 0, 1});
    assert_false(ts_shape_id_is_null(ts_create_box_shape(c, &shape, &box)));
    assert_ok(ts_body_set_gravity_scale(c, 2.5f));
    ts_hinge_joint_def hinge = ts_default_hinge_joint_def();
    hinge.base.body_a = a;
    hinge.base.body_b = b;
    hinge.enable_limit = true;
    hinge.lower_angle = -0.75f;
    hinge.upper_angle = 0.625f;
    assert_false(ts_joint_id_is_null(ts_create_hinge_joint(world, &hinge)));
    ts_distance_joint_def rod = ts_default_distance_joint_def();
    rod.base.body_a = b;
    rod.base.body_b = c;
    rod.length = 1.375f;
    assert_false(ts_joint_id_is_null(ts_create_distance_joint(world, &rod)));
    return world;
}

/* The world's snapshot with the first `old` in section `tag` (after
 * `skip` others) set to `value`, checksum remade: refused naming
 * `expect`, no world made. */
static void expect_value_refused(const char *tag, int skip, float old, float value, const char *expect)
{
    ts_quat turn;
    ts_world_id world = make_world(&turn);
    size_t size = 0;
    assert_ok(ts_world_save(world, NULL, 0, &size));
    uint8_t *data = malloc(size);
    assert_non_null(data);
    assert_ok(ts_world_save(world, data, size, &size));
    assert_ok(ts_destroy_world(world));
    uint8_t *section = NULL;
    for (size_t k = HEADER; k + 4 <= size && section == NULL; ++k) {
        section = memcmp(data + k, tag, 4) == 0 ? data + k : NULL;
    }
    assert_non_null(section);
    uint8_t *at = NULL;
    for (uint8_t *p = section + 12; p + 4 <= data + size && at == NULL; ++p) {
        at = memcmp(p, &old, 4) == 0 && skip-- == 0 ? p : NULL; /* little-endian, as the format and this host */
    }
    if (at == NULL) {
        fail_msg("%g is not in section %s", (double)old, tag);
    }
    memcpy(at, &value, 4);
    uint64_t checksum = XXH3_64bits(data + HEADER, size - HEADER);
    for (int k = 0; k < 8; ++k) {
        data[24 + k] = (uint8_t)(checksum >> (8 * k));
    }
    ts_world_def def = ts_default_world_def();
    def.threads = 1;
    ts_world_id loaded = {0};
    assert_int_equal(ts_world_load(data, size, &def, &loaded), TS_ERROR_INVALID_DATA);
    assert_true(ts_world_id_is_null(loaded));
    if (strstr(ts_last_error(), expect) == NULL) {
        fail_msg("%s %g -> %g: '%s' does not say '%s'", tag, (double)old, (double)value, ts_last_error(), expect);
    }
    free(data);
}

/* The world as made loads (the cases below change only one value). */
static void test_world_loads(void **state)
{
    (void)state;
    ts_quat turn;
    ts_world_id world = make_world(&turn);
    size_t size = 0;
    assert_ok(ts_world_save(world, NULL, 0, &size));
    uint8_t *data = malloc(size);
    assert_ok(ts_world_save(world, data, size, &size));
    ts_world_def def = ts_default_world_def();
    ts_world_id copy;
    assert_ok(ts_world_load(data, size, &def, &copy));
    assert_ok(ts_destroy_world(copy));
    assert_ok(ts_destroy_world(world));
    free(data);
}

/* The body store: a rotation of length 0.94 (not unit: a zero one made NaN
 * when a step normalised it), a NaN force. */
static void test_body_columns_refused(void **state)
{
    (void)state;
    ts_quat turn;
    ts_world_id world = make_world(&turn);
    assert_ok(ts_destroy_world(world));
    expect_value_refused("BSTO", 0, turn.w, 0.5f, "rotation");
    expect_value_refused("BSTO", 0, 13.5f, NAN, "force or torque (column 13) is not finite");
}

/* Joints and shapes as the API refuses them: a hinge limit of 4 rad
 * (beyond pi), a distance joint 2e6 m long (beyond TS_MAX_JOINT_VALUE;
 * its axis's spring target holds the 1.375 m too, first), a
 * shape 2e4 m off its body (beyond TS_MAX_OFFSET); a gravity of
 * 2e5 m/s^2 (beyond TS_MAX_GRAVITY) and a body's gravity scale of 2000
 * (beyond TS_MAX_GRAVITY_SCALE). */
static void test_api_ranges_refused(void **state)
{
    (void)state;
    expect_value_refused("JONT", 0, 0.625f, 4.0f, "joint 0's axis settings are out of the API's ranges");
    expect_value_refused("JONT", 1, 1.375f, 2.0e6f, "joint 1's length is 2e+06");
    expect_value_refused("SHAP", 0, 0.8125f, 2.0e4f, "frame leaves TS_MAX_OFFSET");
    expect_value_refused("SOLV", 0, -9.8125f, -2.0e5f, "a solver setting is out of range");
    expect_value_refused("BODY", 0, 2.5f, 2.0e3f, "body 3 has a setting out of range");
}

/* Masses the API refuses: the static ground's box 1e30 m wide (a mass of
 * 1e31 kg, beyond TS_MAX_MASS: the API asks it of every shape, since its
 * body may become dynamic). */
static void test_unusable_mass_refused(void **state)
{
    (void)state;
    expect_value_refused("SHAP", 0, 5.0f, 1.0e30f, "shape 0's size and density give unusable mass properties");
}

/* The broadphase: the ground's fat box reaching to -1e30 m (finite, and
 * its tree leaf's box follows it), beyond where any shape of a world can
 * reach (a box of 1e38 m would overflow the trees' area sums). The
 * ground's fat box starts at x = -5.1 (its half extent and the 0.1 m
 * margin) or -5 (none): the first of them found. */
static void test_tree_box_refused(void **state)
{
    (void)state;
    ts_quat turn;
    ts_world_id world = make_world(&turn);
    size_t size = 0;
    assert_ok(ts_world_save(world, NULL, 0, &size));
    uint8_t *data = malloc(size);
    assert_ok(ts_world_save(world, data, size, &size));
    assert_ok(ts_destroy_world(world));
    float lower = -5.1f, bare = -5.0f;
    bool margin = false;
    for (size_t k = HEADER; k + 4 <= size && !margin; ++k) {
        margin = memcmp(data + k, &lower, 4) == 0;
    }
    free(data);
    expect_value_refused("SHAP", 0, margin ? lower : bare, -1.0e30f, "has a box beyond any shape's reach");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_world_loads),
        cmocka_unit_test(test_body_columns_refused),
        cmocka_unit_test(test_api_ranges_refused),
        cmocka_unit_test(test_tree_box_refused),
        cmocka_unit_test(test_unusable_mass_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
