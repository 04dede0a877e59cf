/* Every SIMD width gives the same bits, with either solver: large_pyramid (B = 20), a pile
 * of 500 boxes, spheres and capsules, and 37 tumbling boxes pushed by forces
 * and torques are stepped 600 times at widths 1, 4, 8 and 16 (and the pile on
 * 1 and 2 threads); positions, rotations, velocities
 * and the accumulated contact impulses must be bitwise identical. On a
 * difference the test names the first body that differs. */
#include "test_common.h"

#include "api/world.h"

typedef struct snapshot {
    int count;
    ts_transform *transforms;
    ts_vec3 *velocities; /* linear, angular */
    uint64_t impulse_hash;
} snapshot;

static int build_pyramid(ts_world_id world, ts_body_id *ids)
{
    test_box(world, TS_BODY_STATIC, (ts_vec3){0, -1, 0}, TS_QUAT_IDENTITY, (ts_vec3){400, 1, 400}, 1);
    int n = 0;
    const int base = 20;
    for (int r = 0; r < base; ++r) {
        for (int j = r; j < base; ++j) {
            ts_vec3 p = {(float)(r + 1) * 0.5f + (float)(j - r) - (float)base * 0.5f, (float)(2 * r + 1) * 0.5f, 0};
            ids[n++] = test_box(world, TS_BODY_DYNAMIC, p, TS_QUAT_IDENTITY, (ts_vec3){0.5f, 0.5f, 0.5f}, 100);
        }
    }
    return n;
}

/* A B = 16 pyramid (136 boxes, above the one-thread threshold) whose boxes
 * overlap by 25% and lean a little: its contacts start deep, so the solve
 * and relax passes move positions (the soft step's push-out). */
static int build_overlapped(ts_world_id world, ts_body_id *ids)
{
    test_box(world, TS_BODY_STATIC, (ts_vec3){0, -1, 0}, TS_QUAT_IDENTITY, (ts_vec3){400, 1, 400}, 1);
    int n = 0;
    const int base = 16;
    for (int r = 0; r < base; ++r) {
        for (int j = r; j < base; ++j) {
            float x = ((float)(r + 1) * 0.5f + (float)(j - r) - (float)base * 0.5f) * 0.75f;
            float lean = 0.02f * (float)(n % 5 - 2); /* radians about z */
            ts_quat q = {0, 0, sinf(0.5f * lean), cosf(0.5f * lean)};
            ts_vec3 p = {x, 0.5f + 0.75f * (float)r, 0};
            ids[n++] = test_box(world, TS_BODY_DYNAMIC, p, q, (ts_vec3){0.5f, 0.5f, 0.5f}, 100);
        }
    }
    return n;
}

static int pile_count = 500; /* bodies of the next build_pile */

static int build_pile(ts_world_id world, ts_body_id *ids)
{
    test_box(world, TS_BODY_STATIC, (ts_vec3){0, -1, 0}, TS_QUAT_IDENTITY, (ts_vec3){50, 1, 50}, 1);
    test_box(world, TS_BODY_STATIC, (ts_vec3){6.5f, 6, 0}, TS_QUAT_IDENTITY, (ts_vec3){0.5f, 6, 6}, 1);
    test_box(world, TS_BODY_STATIC, (ts_vec3){-6.5f, 6, 0}, TS_QUAT_IDENTITY, (ts_vec3){0.5f, 6, 6}, 1);
    test_box(world, TS_BODY_STATIC, (ts_vec3){0, 6, 6.5f}, TS_QUAT_IDENTITY, (ts_vec3){6, 6, 0.5f}, 1);
    test_box(world, TS_BODY_STATIC, (ts_vec3){0, 6, -6.5f}, TS_QUAT_IDENTITY, (ts_vec3){6, 6, 0.5f}, 1);
    for (int n = 0; n < pile_count; ++n) {
        ts_vec3 p = {((float)(n % 7) - 3.0f) * 1.5f, 1.0f + 1.5f * (float)(n / 49), ((float)((n / 7) % 7) - 3.0f) * 1.5f};
        float a = 0.37f * (float)n, s = sinf(0.5f * a) * 0.57735027f;
        ts_quat q = {s, s, s, cosf(0.5f * a)};
        if (n % 3 == 0) {
            ids[n] = test_box(world, TS_BODY_DYNAMIC, p, q, (ts_vec3){0.5f, 0.4f, 0.3f}, 1);
            continue;
        }
        ts_body_def def = ts_default_body_def();
        def.type = TS_BODY_DYNAMIC;
        def.position = p;
        def.rotation = q;
        ids[n] = ts_create_body(world, &def);
        ts_shape_def shape = ts_default_shape_def();
        if (n % 3 == 1) {
            ts_sphere sphere = {0.45f};
            assert_false(ts_shape_id_is_null(ts_create_sphere_shape(ids[n], &shape, &sphere)));
        } else {
            ts_capsule capsule = {0.3f, 0.3f};
            assert_false(ts_shape_id_is_null(ts_create_capsule_shape(ids[n], &shape, &capsule)));
        }
    }
    return pile_count;
}

/* 37 free bodies (a tail at every width) of unequal principal moments,
 * tumbling, with damping; run() pushes them with forces and torques. */
static int build_tumblers(ts_world_id world, ts_body_id *ids)
{
    for (int n = 0; n < 37; ++n) {
        ts_vec3 p = {(float)(n % 6) * 3.0f, 50.0f + (float)(n / 6) * 3.0f, 0};
        float a = 0.61f * (float)n, s = sinf(0.5f * a) * 0.57735027f;
        ts_quat q = {s, -s, s, cosf(0.5f * a)};
        ids[n] = test_box(world, TS_BODY_DYNAMIC, p, q, (ts_vec3){0.6f, 0.3f, 0.1f + 0.01f * (float)n}, 1);
        assert_ok(ts_body_set_angular_velocity(ids[n], (ts_vec3){1.0f + 0.1f * (float)n, 3.0f, -2.0f}));
        assert_ok(ts_body_set_angular_damping(ids[n], 0.05f * (float)(n % 3)));
        assert_ok(ts_body_set_linear_damping(ids[n], 0.1f * (float)(n % 2)));
    }
    return 37;
}

static void push_tumblers(ts_body_id *ids, int n, int step)
{
    for (int i = 0; i < n; i += 2) { /* every other body: lanes with and without torque */
        float k = (float)((step + i) % 5) - 2.0f;
        assert_ok(ts_body_apply_torque(ids[i], (ts_vec3){0.3f * k, -0.2f, 0.1f * k}));
        assert_ok(ts_body_apply_force_to_center(ids[i], (ts_vec3){k, 5.0f, -k}));
    }
}

static ts_solver_type solver = TS_SOLVER_SOFT_STEP; /* of the runs that follow */

static int run_steps = 600;

/* TESSERA_TEST_MAX_STEPS caps the steps of a run (the ThreadSanitizer job). */
static int steps_of_run(void)
{
    const char *cap = getenv("TESSERA_TEST_MAX_STEPS");
    int most = cap != NULL ? atoi(cap) : 0;
    return most > 0 && most < run_steps ? most : run_steps;
}

static snapshot run(int width, int threads, int (*build)(ts_world_id, ts_body_id *))
{
    ts_world_def def = ts_default_world_def();
    def.solver = solver;
    def.simd_width = width;
    def.threads = threads;
    ts_world_id id = ts_create_world(&def);
    assert_false(ts_world_id_is_null(id));
    static ts_body_id ids[1200];
    int n = build(id, ids);
    int steps = steps_of_run();
    for (int i = 0; i < steps; ++i) {
        if (build == build_tumblers) {
            push_tumblers(ids, n, i);
        }
        assert_ok(ts_world_step(id, 1.0f / 60.0f));
    }
    ts_world_counters counters;
    assert_ok(ts_world_get_counters(id, &counters));
    assert_int_equal(counters.simd_width, width);
    snapshot s = {n, malloc(sizeof(ts_transform) * (size_t)n), malloc(sizeof(ts_vec3) * 2 * (size_t)n), 0};
    for (int i = 0; i < n; ++i) {
        assert_ok(ts_body_get_transform(ids[i], &s.transforms[i]));
        assert_ok(ts_body_get_linear_velocity(ids[i], &s.velocities[2 * i]));
        assert_ok(ts_body_get_angular_velocity(ids[i], &s.velocities[2 * i + 1]));
    }
    const ts_world *world = ts_world_lookup(id, "test");
    const ts_contact_store *cs = &world->records.contact_store;
    uint64_t h = TEST_FNV_START;
    h = test_fnv(h, cs->normal_impulse, sizeof(float) * 4 * (size_t)cs->table.count);
    h = test_fnv(h, cs->friction_impulse1, sizeof(float) * (size_t)cs->table.count);
    h = test_fnv(h, cs->friction_impulse2, sizeof(float) * (size_t)cs->table.count);
    h = test_fnv(h, cs->twist_impulse, sizeof(float) * (size_t)cs->table.count);
    s.impulse_hash = h;
    assert_ok(ts_destroy_world(id));
    return s;
}

static void expect_same(const snapshot *a, const snapshot *b, const char *what)
{
    assert_int_equal(a->count, b->count);
    for (int i = 0; i < a->count; ++i) {
        if (memcmp(&a->transforms[i], &b->transforms[i], sizeof(ts_transform)) != 0 ||
            memcmp(&a->velocities[2 * i], &b->velocities[2 * i], 2 * sizeof(ts_vec3)) != 0) {
            fail_msg("%s: body %d differs first: (%.9g %.9g %.9g) vs (%.9g %.9g %.9g)", what, i,
                     (double)a->transforms[i].p.x, (double)a->transforms[i].p.y, (double)a->transforms[i].p.z,
                     (double)b->transforms[i].p.x, (double)b->transforms[i].p.y, (double)b->transforms[i].p.z);
        }
    }
    if (a->impulse_hash != b->impulse_hash) {
        fail_msg("%s: bodies agree but the accumulated impulses differ", what);
    }
}

static void release(snapshot *s)
{
    free(s->transforms);
    free(s->velocities);
}

static void test_pyramid_same_at_every_width(void **state)
{
    (void)state;
    snapshot reference = run(1, 1, build_pyramid);
    int widths[] = {4, 8, 16};
    for (int k = 0; k < 3; ++k) {
        char what[64];
        snprintf(what, sizeof what, "pyramid, width %d vs 1", widths[k]);
        if (!test_width_built(widths[k])) {
            continue;
        }
        snapshot other = run(widths[k], 1, build_pyramid);
        expect_same(&reference, &other, what);
        release(&other);
    }
    release(&reference);
}

static void test_pile_same_at_every_width_and_thread_count(void **state)
{
    (void)state;
    snapshot reference = run(1, 1, build_pile);
    int widths[] = {4, 8, 16, 8};
    int threads[] = {1, 1, 1, 2};
    for (int k = 0; k < 4; ++k) {
        char what[64];
        int width = test_entry_width(widths[k], threads[k]);
        if (width == 0) {
            continue;
        }
        snprintf(what, sizeof what, "pile, width %d on %d threads vs width 1", width, threads[k]);
        snapshot other = run(width, threads[k], build_pile);
        expect_same(&reference, &other, what);
        release(&other);
    }
    release(&reference);
}

/* The wide integrators: torque and gyroscopic lanes beside plain ones, and
 * bundle tails (37 bodies). */
static void test_tumblers_same_at_every_width(void **state)
{
    (void)state;
    snapshot reference = run(1, 1, build_tumblers);
    int widths[] = {4, 8, 16};
    for (int k = 0; k < 3; ++k) {
        char what[64];
        snprintf(what, sizeof what, "tumblers, width %d vs 1", widths[k]);
        if (!test_width_built(widths[k])) {
            continue;
        }
        snapshot other = run(widths[k], 1, build_tumblers);
        expect_same(&reference, &other, what);
        release(&other);
    }
    release(&reference);
}

static void test_push_out_same_at_every_width_and_thread_count(void **state)
{
    (void)state;
    snapshot reference = run(1, 1, build_overlapped);
    int widths[] = {4, 8, 16, 8, 8};
    int threads[] = {1, 1, 1, 2, 3};
    for (int k = 0; k < 5; ++k) {
        char what[64];
        int width = test_entry_width(widths[k], threads[k]);
        if (width == 0) {
            continue;
        }
        snprintf(what, sizeof what, "overlapped pyramid, width %d, %d threads vs 1, 1", width, threads[k]);
        snapshot other = run(width, threads[k], build_overlapped);
        expect_same(&reference, &other, what);
        release(&other);
    }
    release(&reference);
}

/* The XPBD solver (its position and velocity passes, the kept prediction,
 * the derived velocities; on the overlapped pyramid its push pass and the
 * kept substep starts) gives the same bits at every width and thread count
 * too. */
static void test_xpbd_same_at_every_width_and_thread_count(void **state)
{
    (void)state;
    solver = TS_SOLVER_XPBD;
    int (*builds[])(ts_world_id, ts_body_id *) = {build_pyramid, build_pile, build_overlapped};
    const char *names[] = {"xpbd pyramid", "xpbd pile", "xpbd overlapped pyramid"};
    for (int b = 0; b < 3; ++b) {
        snapshot reference = run(1, 1, builds[b]);
        int widths[] = {4, 8, 16, 8};
        int threads[] = {1, 1, 1, 2};
        for (int k = 0; k < 4; ++k) {
            char what[64];
            int width = test_entry_width(widths[k], threads[k]);
        if (width == 0) {
            continue;
        }
            snprintf(what, sizeof what, "%s, width %d on %d threads vs width 1", names[b], width, threads[k]);
        snapshot other = run(width, threads[k], builds[b]);
            expect_same(&reference, &other, what);
            release(&other);
        }
        release(&reference);
    }
    solver = TS_SOLVER_SOFT_STEP;
}

/* A pile of 1,100 bodies (above the solver's threshold for threads, unlike
 * the 500 above) for 90 steps, its lower layers landed: XPBD on 2 threads
 * gives the bits of 1. */
static void test_xpbd_same_on_two_threads(void **state)
{
    (void)state;
    solver = TS_SOLVER_XPBD;
    pile_count = 1100;
    run_steps = 90;
    snapshot reference = run(test_wide_width(), 1, build_pile);
    snapshot other = run(test_wide_width(), 2, build_pile);
    expect_same(&reference, &other, "xpbd pile of 1100, 2 threads vs 1");
    release(&other);
    release(&reference);
    pile_count = 500;
    run_steps = 600;
    solver = TS_SOLVER_SOFT_STEP;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pyramid_same_at_every_width),
        cmocka_unit_test(test_pile_same_at_every_width_and_thread_count),
        cmocka_unit_test(test_tumblers_same_at_every_width),
        cmocka_unit_test(test_push_out_same_at_every_width_and_thread_count),
        cmocka_unit_test(test_xpbd_same_at_every_width_and_thread_count),
        cmocka_unit_test(test_xpbd_same_on_two_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
