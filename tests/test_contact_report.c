/* Contact reports (tessera/contact_report.h, issue 24 Done-when 3): a
 * dropped box reports one hit with the approach speed of free fall; a box
 * resting on another pushes its weight times dt per step; the reports are
 * the same bits at every SIMD width and thread count and leave the
 * simulation's bits alone; bad input. Run for both solvers
 * (`test_contact_report [soft_step|xpbd] [substeps]`, ctest runs soft_step
 * and xpbd at 4 substeps): the figures hold for XPBD as for the soft step. */
#include "test_common.h"

static ts_solver_type solver = TS_SOLVER_SOFT_STEP;
static int substeps = 4;

#define DT (1.0f / 60.0f)
#define G 10.0f /* the default gravity's magnitude */

static ts_world_id make_world(int width, int threads)
{
    ts_world_def def = ts_default_world_def();
    def.simd_width = width;
    def.threads = threads;
    def.solver = solver;
    def.substeps = substeps;
    ts_world_id world = ts_create_world(&def);
    assert_false(ts_world_id_is_null(world));
    return world;
}

/* A 0.5 m box dropped with its bottom 1 m above the ground falls h = 1 m:
 * it meets the ground at sqrt(2 g h) = 4.47 m/s. Exactly one hit event
 * over 2 s (hit speed 1 m/s: resting contacts approach at g h per substep,
 * 0.04 m/s, and the box does not bounce), with that approach speed within
 * 2%: the step integrates gravity in substeps of 1/240 s (semi-implicit
 * Euler arrives g h / 2 = 0.02 m/s, 0.5%, off the exact speed), and the
 * speed is taken when the point first pushes, not at the step's start
 * (which would be up to g dt = 0.17 m/s, 3.7%, slow). Normal up. (XPBD
 * reads it at the start of the substep in which the point first pushes,
 * after that substep's gravity: 0.14% fast.) */
static void test_drop_reports_one_hit(void **state)
{
    (void)state;
    for (int h10 = 5; h10 <= 20; h10 += 15) { /* 0.5 m and 2 m */
        float h = 0.1f * (float)h10;
        ts_world_id world = make_world(0, 1);
        assert_ok(ts_world_enable_hit_events(world, true, 1.0f));
        test_box(world, TS_BODY_STATIC, (ts_vec3){0, -1, 0}, TS_QUAT_IDENTITY, (ts_vec3){10, 1, 10}, 1.0f);
        test_box(world, TS_BODY_DYNAMIC, (ts_vec3){0, 0.5f + h, 0}, TS_QUAT_IDENTITY, (ts_vec3){0.5f, 0.5f, 0.5f},
                 1.0f);
        int hits = 0;
        float speed = 0.0f;
        for (int step = 0; step < 120; ++step) {
            assert_ok(ts_world_step(world, DT));
            ts_contact_hit_event e[4];
            int n = 0;
            assert_ok(ts_world_get_hit_events(world, e, 4, &n));
            for (int k = 0; k < n; ++k) {
                speed = e[k].approach_speed;
                assert_near(e[k].normal.y, 1.0, 1e-5); /* from the ground (shape a) up to the box */
                /* on the ground's top: the manifold is the step's
                 * narrowphase's, made before the solver moved the box
                 * (midway between the surfaces: up to half a step's fall,
                 * v dt / 2, above) */
                assert_near(e[k].point.y, 0.0, 0.5f * e[k].approach_speed * DT + 1e-3f);
            }
            hits += n;
        }
        assert_int_equal(hits, 1);
        float exact = sqrtf(2.0f * G * h);
        printf("drop %.1f m: approach %.4f m/s, exact %.4f (%.2f%%)\n", (double)h, (double)speed, (double)exact,
               100.0 * (double)((speed - exact) / exact));
        assert_near(speed, exact, 0.02 * exact);
        ts_destroy_world(world);
    }
}

/* The impulse total of the contact between two bodies. */
static ts_contact_impulse impulse_between(ts_world_id world, ts_body_id a, ts_body_id b)
{
    ts_contact_impulse list[8];
    int n = 0;
    assert_ok(ts_world_get_contact_impulses(world, list, 8, &n));
    ts_shape_id sa, sb;
    int one;
    assert_ok(ts_body_get_shapes(a, &sa, 1, &one));
    assert_ok(ts_body_get_shapes(b, &sb, 1, &one));
    for (int k = 0; k < n; ++k) {
        if ((list[k].shape_a.index1 == sa.index1 && list[k].shape_b.index1 == sb.index1) ||
            (list[k].shape_a.index1 == sb.index1 && list[k].shape_b.index1 == sa.index1)) {
            return list[k];
        }
    }
    fail_msg("no contact between the bodies");
    return list[0];
}

/* A 1 m box (mass 1 kg at density 1) resting on a 1 m box on the ground
 * (sleeping off: a sleeping pair is not solved, so not reported): after
 * 1 s the top contact pushes m g dt = 0.1667 N s per step, the bottom one
 * 2 m g dt, within 1% (the soft contact's spring still settles by far less:
 * the boxes stand still to 1e-4 m/s). Friction pushes nothing sideways on
 * level boxes (within 1e-4 N s). */
static void test_resting_impulse_is_weight_times_dt(void **state)
{
    (void)state;
    ts_world_def def = ts_default_world_def();
    def.enable_sleep = false;
    def.solver = solver;
    def.substeps = substeps;
    ts_world_id world = ts_create_world(&def);
    assert_ok(ts_world_enable_contact_impulses(world, true));
    ts_body_id ground =
        test_box(world, TS_BODY_STATIC, (ts_vec3){0, -1, 0}, TS_QUAT_IDENTITY, (ts_vec3){10, 1, 10}, 1.0f);
    ts_body_id low = test_box(world, TS_BODY_DYNAMIC, (ts_vec3){0, 0.5f, 0}, TS_QUAT_IDENTITY,
                              (ts_vec3){0.5f, 0.5f, 0.5f}, 1.0f);
    ts_body_id high = test_box(world, TS_BODY_DYNAMIC, (ts_vec3){0, 1.5f, 0}, TS_QUAT_IDENTITY,
                               (ts_vec3){0.5f, 0.5f, 0.5f}, 1.0f);
    for (int step = 0; step < 60; ++step) {
        assert_ok(ts_world_step(world, DT));
    }
    float weight_dt = 1.0f * G * DT;
    ts_contact_impulse top = impulse_between(world, low, high);
    ts_contact_impulse bottom = impulse_between(world, ground, low);
    printf("resting: top %.6f N s, bottom %.6f N s, m g dt %.6f\n", (double)top.normal_impulse,
           (double)bottom.normal_impulse, (double)weight_dt);
    assert_near(top.normal_impulse, weight_dt, 0.01 * weight_dt);
    assert_near(bottom.normal_impulse, 2.0f * weight_dt, 0.02 * weight_dt);
    assert_near(top.tangent_impulse.x, 0.0, 1e-4);
    assert_near(top.tangent_impulse.z, 0.0, 1e-4);
    ts_destroy_world(world);
}

/* Reports of a small pile (boxes dropped in a 3 x 3 x 3 grid, slightly
 * shifted so they tumble) as one hash over 90 steps. */
static uint64_t pile_reports(int width, int threads, bool reports, uint64_t *state_hash)
{
    ts_world_id world = make_world(width, threads);
    if (reports) {
        assert_ok(ts_world_enable_hit_events(world, true, 0.5f));
        assert_ok(ts_world_enable_contact_impulses(world, true));
    }
    test_drop_small_pile(world);
    uint64_t h = TEST_FNV_START;
    for (int step = 0; step < 90; ++step) {
        assert_ok(ts_world_step(world, DT));
        if (!reports) {
            continue;
        }
        static ts_contact_hit_event hits[256];
        static ts_contact_impulse impulses[256];
        int nh = 0, ni = 0;
        assert_ok(ts_world_get_hit_events(world, hits, 256, &nh));
        assert_ok(ts_world_get_contact_impulses(world, impulses, 256, &ni));
        /* ids' world slot and generation differ between worlds: not hashed */
        h = test_fnv(h, &nh, sizeof nh);
        for (int k = 0; k < nh; ++k) {
            h = test_fnv(h, &hits[k].shape_a.index1, sizeof(int32_t));
            h = test_fnv(h, &hits[k].shape_b.index1, sizeof(int32_t));
            h = test_fnv(h, &hits[k].point, sizeof(ts_vec3) * 2 + sizeof(float));
        }
        h = test_fnv(h, &ni, sizeof ni);
        for (int k = 0; k < ni; ++k) {
            h = test_fnv(h, &impulses[k].shape_a.index1, sizeof(int32_t));
            h = test_fnv(h, &impulses[k].shape_b.index1, sizeof(int32_t));
            h = test_fnv(h, &impulses[k].normal, sizeof(ts_vec3) * 2 + sizeof(float));
        }
    }
    assert_ok(ts_world_state_hash(world, state_hash));
    ts_destroy_world(world);
    return h;
}

/* Same report bits for widths 1/4/8/16 and 1/2 threads; the world's state
 * hash the same with reports on and off (they only read the solver). */
static void test_reports_deterministic(void **state)
{
    (void)state;
    test_report_same_everywhere(pile_reports);
}

/* Bad input: each refused with its error, naming the argument, and the
 * world's switches unchanged. */
static void test_report_bad_input(void **state)
{
    (void)state;
    ts_world_id world = make_world(0, 1);
    ts_contact_hit_event hit;
    ts_contact_impulse impulse;
    int n = 7;
    /* off: the lists refuse */
    assert_int_equal(ts_world_get_hit_events(world, &hit, 1, &n), TS_ERROR_INVALID_OPERATION);
    assert_non_null(strstr(ts_last_error(), "ts_world_enable_hit_events"));
    assert_int_equal(ts_world_get_contact_impulses(world, &impulse, 1, &n), TS_ERROR_INVALID_OPERATION);
    assert_non_null(strstr(ts_last_error(), "ts_world_enable_contact_impulses"));
    /* hit speed */
    assert_int_equal(ts_world_enable_hit_events(world, true, 0.0f), TS_ERROR_OUT_OF_RANGE);
    assert_non_null(strstr(ts_last_error(), "hit_speed"));
    assert_int_equal(ts_world_enable_hit_events(world, true, -1.0f), TS_ERROR_OUT_OF_RANGE);
    assert_int_equal(ts_world_enable_hit_events(world, true, NAN), TS_ERROR_NOT_FINITE);
    assert_non_null(strstr(ts_last_error(), "hit_speed"));
    assert_int_equal(ts_world_enable_hit_events(world, true, INFINITY), TS_ERROR_NOT_FINITE);
    assert_int_equal(ts_world_get_hit_events(world, &hit, 1, &n), TS_ERROR_INVALID_OPERATION); /* still off */
    assert_ok(ts_world_enable_hit_events(world, false, NAN)); /* the speed is not read when turning off */
    assert_ok(ts_world_enable_hit_events(world, true, 2.0f));
    assert_ok(ts_world_enable_contact_impulses(world, true));
    /* buffers */
    assert_int_equal(ts_world_get_hit_events(world, &hit, 1, NULL), TS_ERROR_NULL_POINTER);
    assert_non_null(strstr(ts_last_error(), "count"));
    assert_int_equal(ts_world_get_hit_events(world, NULL, 1, &n), TS_ERROR_NULL_POINTER);
    assert_non_null(strstr(ts_last_error(), "hits"));
    assert_int_equal(ts_world_get_hit_events(world, &hit, -1, &n), TS_ERROR_OUT_OF_RANGE);
    assert_non_null(strstr(ts_last_error(), "capacity"));
    assert_int_equal(ts_world_get_contact_impulses(world, &impulse, 1, NULL), TS_ERROR_NULL_POINTER);
    assert_int_equal(ts_world_get_contact_impulses(world, NULL, 2, &n), TS_ERROR_NULL_POINTER);
    assert_non_null(strstr(ts_last_error(), "impulses"));
    assert_int_equal(ts_world_get_contact_impulses(world, &impulse, -3, &n), TS_ERROR_OUT_OF_RANGE);
    assert_int_equal(n, 7); /* untouched by refused calls */
    /* too small a buffer: the count needed */
    test_box(world, TS_BODY_STATIC, (ts_vec3){0, -1, 0}, TS_QUAT_IDENTITY, (ts_vec3){10, 1, 10}, 1.0f);
    test_box(world, TS_BODY_DYNAMIC, (ts_vec3){0, 0.5f, 0}, TS_QUAT_IDENTITY, (ts_vec3){0.5f, 0.5f, 0.5f}, 1.0f);
    test_box(world, TS_BODY_DYNAMIC, (ts_vec3){3, 0.5f, 0}, TS_QUAT_IDENTITY, (ts_vec3){0.5f, 0.5f, 0.5f}, 1.0f);
    assert_ok(ts_world_step(world, DT));
    assert_ok(ts_world_get_contact_impulses(world, NULL, 0, &n));
    assert_int_equal(n, 2);
    assert_int_equal(ts_world_get_contact_impulses(world, &impulse, 1, &n), TS_ERROR_CAPACITY);
    assert_int_equal(n, 2);
    ts_destroy_world(world);
    /* a stale world */
    assert_int_equal(ts_world_enable_hit_events(world, true, 1.0f), TS_ERROR_STALE_ID);
    assert_int_equal(ts_world_enable_contact_impulses(world, true), TS_ERROR_STALE_ID);
    assert_int_equal(ts_world_get_hit_events(world, NULL, 0, &n), TS_ERROR_STALE_ID);
    assert_int_equal(ts_world_get_contact_impulses(world, NULL, 0, &n), TS_ERROR_STALE_ID);
}

int main(int argc, char **argv)
{
    if (!test_solver_args(argc, argv, "test_contact_report", &solver, &substeps)) {
        return 2;
    }
    printf("solver %s, %d substeps\n", solver == TS_SOLVER_XPBD ? "xpbd" : "soft_step", substeps);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_drop_reports_one_hit),
        cmocka_unit_test(test_resting_impulse_is_weight_times_dt),
        cmocka_unit_test(test_reports_deterministic),
        cmocka_unit_test(test_report_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
