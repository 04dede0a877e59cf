/* Snapshot format 2 (issue 28): motion locks, planar worlds and speed
 * limits are saved and resume exactly, and a format-1 file still loads.
 *
 * Each exact-resume case: a small pile (boxes, spheres and a capsule on a
 * ground box, some bodies with motion locks) run 20 steps, saved, run 25
 * more; the snapshot loaded at another width and thread count and run 25:
 * the state hashes are equal. Why equality and no tolerance: the promise
 * is bitwise (design.md); a lock or limit lost in the file changes the
 * bodies' bits within a step (a locked axis moves, a clamped speed is not
 * clamped). Both solvers, widths 1 and 8 (16 where 8 is not built; 4 and 16 run the same code at
 * other lane counts; test_snapshot covers every width), 1 and 2 threads.
 *
 * tests/data/snapshot_v1.tsw is a format-1 snapshot (six bodies and a
 * hinge after 20 steps) saved by the tessera before format 2; its world
 * run 25 more steps had state hash 0x476c5c8e3e02fc0d there. */
#include "test_common.h"

#include "tessera/limits.h"
#include "tessera/motion_locks.h"

#include <math.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

static uint64_t hash_of(ts_world_id world)
{
    uint64_t h = 0;
    assert_ok(ts_world_state_hash(world, &h));
    return h;
}

static void step(ts_world_id world, int steps)
{
    for (int i = 0; i < steps; ++i) {
        assert_ok(ts_world_step(world, 1.0f / 60.0f));
    }
}

typedef struct pile_options {
    bool planar;
    bool locks;          /* give some bodies their own locks */
    float max_speed;     /* 0: the default speed limits */
    float max_rotation;
    float launch;        /* upward speed of every body at the start, m/s */
} pile_options;

/* The pile: a ground box and 8 bodies in a loose column, each with a
 * sideways push and a spin so that locked components would move. */
static ts_world_id pile(ts_solver_type solver, int width, int threads, pile_options o, ts_body_id bodies[8])
{
    ts_world_def def = ts_default_world_def();
    def.solver = solver;
    def.simd_width = width;
    def.threads = threads;
    def.planar = o.planar;
    if (o.max_speed > 0.0f) {
        def.max_linear_speed = o.max_speed;
        def.max_rotation = o.max_rotation;
    }
    ts_world_id world = ts_create_world(&def);
    assert_false(ts_world_id_is_null(world));
    ts_shape_def sd = ts_default_shape_def();
    ts_body_def ground = ts_default_body_def();
    ground.position = (ts_vec3){0.0f, -0.5f, 0.0f};
    ts_body_id g = ts_create_body(world, &ground);
    assert_false(ts_shape_id_is_null(ts_create_box_shape(g, &sd, &(ts_box){{6.0f, 0.5f, 6.0f}})));
    static const uint32_t locks[8] = {TS_LOCK_LINEAR_X, 0, TS_LOCK_ANGULAR_X | TS_LOCK_ANGULAR_Y | TS_LOCK_ANGULAR_Z,
                                      0, TS_LOCK_LINEAR_Z | TS_LOCK_ANGULAR_Y, 0, TS_LOCK_LINEAR_Y, 0};
    for (int i = 0; i < 8; ++i) {
        ts_body_def bd = ts_default_body_def();
        bd.type = TS_BODY_DYNAMIC;
        bd.position = (ts_vec3){0.15f * (float)(i % 3) - 0.15f, 0.3f + 0.45f * (float)i, 0.1f * (float)(i % 2)};
        bd.linear_velocity = (ts_vec3){0.6f - 0.2f * (float)i, o.launch, 0.3f};
        bd.angular_velocity = (ts_vec3){1.0f, 0.5f * (float)i, -0.7f};
        bd.motion_locks = o.locks ? locks[i] : 0u;
        bodies[i] = ts_create_body(world, &bd);
        assert_false(ts_body_id_is_null(bodies[i]));
        ts_shape_id s = i % 3 == 0   ? ts_create_box_shape(bodies[i], &sd, &(ts_box){{0.2f, 0.2f, 0.2f}})
                        : i % 3 == 1 ? ts_create_sphere_shape(bodies[i], &sd, &(ts_sphere){0.2f})
                                     : ts_create_capsule_shape(bodies[i], &sd, &(ts_capsule){0.1f, 0.15f});
        assert_false(ts_shape_id_is_null(s));
    }
    return world;
}

/* Saved at (width, threads) after 20 steps, loaded at (load_width,
 * load_threads): after 25 more steps each, the same hash; the loaded
 * world has the saved one's locks and speed limits. */
static void expect_exact_resume(ts_solver_type solver, int width, int threads, int load_width, int load_threads,
                                pile_options o)
{
    ts_body_id bodies[8];
    ts_world_id a = pile(solver, width, threads, o, bodies);
    step(a, 20);
    size_t size = 0;
    assert_ok(ts_world_save(a, NULL, 0, &size));
    uint8_t *data = malloc(size);
    assert_non_null(data);
    assert_ok(ts_world_save(a, data, size, &size));
    step(a, 25);
    uint64_t expected = hash_of(a);

    ts_world_def def = ts_default_world_def(); /* planar and limits come from the bytes, not from def */
    def.simd_width = load_width;
    def.threads = load_threads;
    ts_world_id b;
    assert_ok(ts_world_load(data, size, &def, &b));
    float speed_a, rotation_a, speed_b, rotation_b;
    assert_ok(ts_world_get_speed_limits(a, &speed_a, &rotation_a));
    assert_ok(ts_world_get_speed_limits(b, &speed_b, &rotation_b));
    assert_true(speed_a == speed_b && rotation_a == rotation_b);
    ts_body_id loaded[16];
    int count = 0;
    assert_ok(ts_world_get_bodies(b, loaded, 16, &count));
    assert_int_equal(count, 9);
    for (int i = 0; i < 8; ++i) {
        uint32_t la = 0, lb = 0;
        assert_ok(ts_body_get_motion_locks(bodies[i], &la));
        assert_ok(ts_body_get_motion_locks(loaded[i + 1], &lb));
        assert_int_equal(la, lb);
    }
    step(b, 25);
    assert_true(hash_of(b) == expected);
    assert_ok(ts_destroy_world(b));
    assert_ok(ts_destroy_world(a));
    free(data);
}

static void resume_matrix(pile_options o)
{
    for (int solver = 0; solver < 2; ++solver) {
        expect_exact_resume((ts_solver_type)solver, 1, 1, test_wide_width(), 2, o);
        expect_exact_resume((ts_solver_type)solver, test_wide_width(), 2, 1, 1, o);
    }
}

/* Bodies with their own motion locks (a locked axis each, all rotations,
 * a mixture) among free ones. */
static void test_motion_locks_resume(void **state)
{
    (void)state;
    resume_matrix((pile_options){.locks = true});
}

/* A planar world, with and without bodies' own locks on top. */
static void test_planar_world_resumes(void **state)
{
    (void)state;
    resume_matrix((pile_options){.planar = true});
    resume_matrix((pile_options){.planar = true, .locks = true});
}

/* Speed limits low enough to clamp: 3 m/s, which the bodies falling from
 * up to 3.5 m pass (7.7 m/s unlimited), and 0.01 rad per substep (2.4
 * rad/s at 4 substeps), which their spins of up to 3.6 rad/s pass. */
static void test_speed_limits_resume(void **state)
{
    (void)state;
    resume_matrix((pile_options){.max_speed = 3.0f, .max_rotation = 0.01f, .launch = 2.5f});
}

static uint8_t *read_fixture(const char *name, size_t *size)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", TS_TEST_DATA_DIR, name);
    FILE *file = fopen(path, "rb");
    assert_non_null(file);
    uint8_t *data = malloc(1 << 16);
    assert_non_null(data);
    *size = fread(data, 1, 1 << 16, file);
    fclose(file);
    return data;
}

/* A format-1 file loads and resumes exactly as the tessera that wrote it
 * ran on (the hash in this file's header comment), without the planar mode
 * a def asks for (format 1 held no planar worlds: the bytes decide); saved
 * again, it is format 2 and loads. */
static void test_format_1_still_loads(void **state)
{
    (void)state;
    size_t size = 0;
    uint8_t *data = read_fixture("snapshot_v1.tsw", &size);
    assert_int_equal(data[8], 1); /* the version's low byte */
    for (int threads = 1; threads <= 2; ++threads) {
        ts_world_def def = ts_default_world_def();
        def.threads = threads;
        def.planar = true;
        def.max_linear_speed = 5.0f;
        ts_world_id world;
        assert_ok(ts_world_load(data, size, &def, &world));
        ts_body_id bodies[8];
        int count = 0;
        assert_ok(ts_world_get_bodies(world, bodies, 8, &count));
        assert_int_equal(count, 7);
        uint32_t locks = 1;
        assert_ok(ts_body_get_motion_locks(bodies[1], &locks));
        assert_int_equal(locks, 0);
        float speed = 0.0f, rotation = 0.0f;
        assert_ok(ts_world_get_speed_limits(world, &speed, &rotation));
        assert_true(speed == TS_DEFAULT_MAX_LINEAR_SPEED && rotation == TS_DEFAULT_MAX_ROTATION);
        size_t again_size = 0;
        assert_ok(ts_world_save(world, NULL, 0, &again_size));
        uint8_t *again = malloc(again_size);
        assert_ok(ts_world_save(world, again, again_size, &again_size));
        assert_int_equal(again[8], TS_SNAPSHOT_FORMAT_VERSION);
        ts_world_id copy;
        assert_ok(ts_world_load(again, again_size, &def, &copy));
        step(world, 25);
        step(copy, 25);
        assert_true(hash_of(world) == 0x476c5c8e3e02fc0dull);
        assert_true(hash_of(copy) == 0x476c5c8e3e02fc0dull);
        assert_ok(ts_destroy_world(copy));
        assert_ok(ts_destroy_world(world));
        free(again);
    }
    free(data);
}

/* A snapshot of the locked pile with byte `at` set to `value` (and, with
 * version > 0, the header's version set to it), the checksum made right
 * again, as a crafted file would: refused with TS_ERROR_INVALID_DATA and a
 * message holding `expect`, and no world made. */
static void expect_crafted_refused(size_t at, uint8_t value, uint32_t version, const char *expect)
{
    ts_body_id bodies[8];
    ts_world_id world = pile(TS_SOLVER_SOFT_STEP, 1, 1, (pile_options){.planar = true, .locks = true}, bodies);
    step(world, 5);
    size_t size = 0;
    assert_ok(ts_world_save(world, NULL, 0, &size));
    uint8_t *data = malloc(size);
    assert_ok(ts_world_save(world, data, size, &size));
    assert_ok(ts_destroy_world(world));
    if (at > 0) {
        data[at] = value;
    }
    if (version > 0) {
        data[8] = (uint8_t)version;
    }
    uint64_t checksum = XXH3_64bits(data + 32, size - 32);
    for (int k = 0; k < 8; ++k) {
        data[24 + k] = (uint8_t)(checksum >> (8 * k));
    }
    ts_world_def def = ts_default_world_def();
    ts_world_id loaded;
    ts_result result = ts_world_load(data, size, &def, &loaded);
    if (result != TS_ERROR_INVALID_DATA) {
        fail_msg("byte %zu set to %u (version %u): %s, not refused for '%s'", at, (unsigned)value, (unsigned)version,
                 ts_result_name(result), expect);
    }
    assert_true(ts_world_id_is_null(loaded));
    if (strstr(ts_last_error(), expect) == NULL) {
        fail_msg("'%s' does not say '%s'", ts_last_error(), expect);
    }
    free(data);
}

/* Format 2's new fields out of range, each refused naming its section:
 * the planar flag (WRLD's payload starts at byte 44: step count (1 byte
 * here), dt (4), sleep flag, planar flag, max speed (4), max rotation
 * (4)), a negative speed limit and one above TS_MAX_ROTATION, and a format-2
 * file relabelled as format 1 (its WRLD section then holds 9 bytes that
 * format 1 does not have). */
static void test_crafted_format2_fields_refused(void **state)
{
    (void)state;
    expect_crafted_refused(44 + 1 + 4 + 1, 2, 0, "planar flag");
    expect_crafted_refused(44 + 1 + 4 + 1 + 1 + 3, 0xc3, 0, "speed limits"); /* the float's top byte: -400 m/s */
    expect_crafted_refused(44 + 1 + 4 + 1 + 1 + 4 + 3, 0x7f, 0, "speed limits");
    expect_crafted_refused(0, 0, 1, "WRLD (world): 9 bytes left over");
}

/* Loads tests/data/<name>, a snapshot's body as the loader's fuzz driver
 * takes it, behind a header made here as the driver makes it (format
 * version, size, checksum). */
static ts_result load_fuzz_input(const char *name, const ts_world_def *def, ts_world_id *world)
{
    size_t body = 0;
    uint8_t *raw = read_fixture(name, &body);
    uint8_t *data = malloc(body + 32);
    assert_non_null(data);
    static const uint8_t magic[8] = {0x89, 'T', 'S', 'W', '\r', '\n', 0x1A, '\n'};
    memcpy(data, magic, 8);
    memset(data + 8, 0, 8);
    data[8] = TS_SNAPSHOT_FORMAT_VERSION;
    uint64_t checksum = XXH3_64bits(raw, body);
    for (int k = 0; k < 8; ++k) {
        data[16 + k] = (uint8_t)((uint64_t)body >> (8 * k));
        data[24 + k] = (uint8_t)(checksum >> (8 * k));
    }
    memcpy(data + 32, raw, body);
    ts_result result = ts_world_load(data, body + 32, def, world);
    free(data);
    free(raw);
    return result;
}

/* Inputs the loader's fuzzer found (tests/data/fuzz_*.bin): an empty
 * world (a NULL + 0 in the pool check), a body whose inertia no shapes
 * give (1e-28) and a NaN joint impulse (both made NaN boxes in the next
 * step). Each is refused, or loads and steps 3 times with every body
 * finite: never a crash (ASan/UBSan in CI's sanitizer build). */
static void test_fuzzer_finds(void **state)
{
    (void)state;
    static const char *const names[] = {"fuzz_empty_world.bin", "fuzz_tiny_inertia.bin", "fuzz_nan_joint_impulse.bin"};
    for (int n = 0; n < 3; ++n) {
        ts_world_def def = ts_default_world_def();
        def.threads = 1;
        ts_world_id world;
        if (load_fuzz_input(names[n], &def, &world) == TS_OK) {
            step(world, 3);
            ts_body_id bodies[64];
            int count = 0;
            assert_ok(ts_world_get_bodies(world, bodies, 64, &count));
            for (int i = 0; i < count && i < 64; ++i) {
                ts_vec3 p;
                assert_ok(ts_body_get_position(bodies[i], &p));
                assert_true(isfinite(p.x) && isfinite(p.y) && isfinite(p.z));
            }
            assert_ok(ts_destroy_world(world));
        } else {
            assert_true(ts_world_id_is_null(world));
        }
    }
}

/* Finite values no tessera world holds, which loaded and made the next
 * step overflow (the bodies held by the step's gate, which reports
 * TS_ERROR_NOT_FINITE; before it, NaN boxes asserted in the broadphase):
 * a ball joint's frame 1.7e38 m from its body (the API keeps frames within
 * TS_MAX_OFFSET), and a fixed joint's kept impulse of -5e19 N s between
 * two small bodies (a velocity change far beyond 1e15 m/s, which no step
 * leaves), a touching contact's normal of (0, 1e-44, 0) in a pile (its
 * tangents NaN), a touching contact's anchor 9e18 m from its body (the
 * torques overflowed), a ball joint's kept solver lane with an impulse of
 * -1.4e25 N s and anchors 6e37 m out. Each is refused with TS_ERROR_INVALID_DATA naming the joint
 * and the value, and no world is made. */
static void test_fuzzer_finds_refused(void **state)
{
    (void)state;
    static const struct {
        const char *name, *expect;
    } finds[] = {
        {"fuzz_joint_frame_far.bin", "joint 0's frame (origins (0, 2.5, 0), (-1.70141e+38"},
        {"fuzz_joint_impulse_huge.bin", "joint 4's kept impulse 1 is -3.73416e+13"},
        {"fuzz_contact_normal_tiny.bin", "contact slot 14's normal (0, 9.80909e-45, 0) is not unit"},
        {"fuzz_contact_anchor_far.bin", "contact slot 0's anchors or centre shift reach beyond its shapes"},
        {"fuzz_ball_lane_huge.bin", "kept ball lane of joint 0 is not one a step leaves"},
    };
    for (size_t n = 0; n < sizeof finds / sizeof finds[0]; ++n) {
        ts_world_def def = ts_default_world_def();
        def.threads = 1;
        ts_world_id world = {0};
        assert_int_equal(load_fuzz_input(finds[n].name, &def, &world), TS_ERROR_INVALID_DATA);
        assert_true(ts_world_id_is_null(world));
        if (strstr(ts_last_error(), finds[n].expect) == NULL) {
            fail_msg("%s: '%s' does not say '%s'", finds[n].name, ts_last_error(), finds[n].expect);
        }
    }
}

static void one_row(const ts_constraint_input *input, ts_constraint_row *rows, void *context)
{
    (void)context;
    rows[0].value = input->body_a.position.y - 1.0f;
    rows[0].linear_a = (ts_vec3){0.0f, 1.0f, 0.0f};
}

/* What format 2 still does not hold is refused with TS_ERROR_UNSUPPORTED
 * (never saved into a file that would resume differently): a custom
 * constraint. */
static void test_custom_constraints_are_refused(void **state)
{
    (void)state;
    ts_world_def def = ts_default_world_def();
    ts_world_id world = ts_create_world(&def);
    ts_body_def bd = ts_default_body_def();
    bd.type = TS_BODY_DYNAMIC;
    ts_body_id body = ts_create_body(world, &bd);
    ts_shape_def sd = ts_default_shape_def();
    assert_false(ts_shape_id_is_null(ts_create_sphere_shape(body, &sd, &(ts_sphere){0.5f})));
    ts_custom_constraint_def cd = ts_default_custom_constraint_def();
    cd.body_a = body;
    cd.evaluate = one_row;
    assert_false(ts_joint_id_is_null(ts_create_custom_constraint(world, &cd)));
    size_t size = 0;
    assert_int_equal(ts_world_save(world, NULL, 0, &size), TS_ERROR_UNSUPPORTED);
    assert_non_null(strstr(ts_last_error(), "custom constraint"));
    assert_ok(ts_destroy_world(world));
}

/* Nor rolling resistance (merged after format 2): refused, not dropped. */
static void test_rolling_resistance_is_refused(void **state)
{
    (void)state;
    ts_world_def def = ts_default_world_def();
    ts_world_id world = ts_create_world(&def);
    ts_body_def bd = ts_default_body_def();
    bd.type = TS_BODY_DYNAMIC;
    ts_body_id body = ts_create_body(world, &bd);
    ts_shape_def sd = ts_default_shape_def();
    ts_shape_id ball = ts_create_sphere_shape(body, &sd, &(ts_sphere){0.5f});
    size_t size = 0;
    assert_ok(ts_world_save(world, NULL, 0, &size));
    assert_ok(ts_shape_set_rolling_resistance(ball, 0.2f));
    assert_int_equal(ts_world_save(world, NULL, 0, &size), TS_ERROR_UNSUPPORTED);
    assert_non_null(strstr(ts_last_error(), "rolling resistance"));
    assert_ok(ts_destroy_world(world));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_motion_locks_resume),
        cmocka_unit_test(test_planar_world_resumes),
        cmocka_unit_test(test_speed_limits_resume),
        cmocka_unit_test(test_format_1_still_loads),
        cmocka_unit_test(test_crafted_format2_fields_refused),
        cmocka_unit_test(test_fuzzer_finds),
        cmocka_unit_test(test_fuzzer_finds_refused),
        cmocka_unit_test(test_custom_constraints_are_refused),
        cmocka_unit_test(test_rolling_resistance_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
