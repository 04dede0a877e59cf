/* Allocation: the world uses only the allocator callbacks of its def, a step
 * allocates nothing once the world is built and stepped once, everything is
 * returned on destroy, and a failing allocator gives a clean error. */
#include "test_common.h"

#include <stdlib.h>

static ts_world_id counted_solver_world(counting_allocator *c, int threads, ts_solver_type solver)
{
    ts_world_def def = ts_default_world_def();
    def.threads = threads;
    def.solver = solver;
    def.allocator = (ts_allocator){counting_alloc, counting_free, c};
    return ts_create_world(&def);
}

static ts_world_id counted_world(counting_allocator *c, int threads)
{
    return counted_solver_world(c, threads, TS_SOLVER_SOFT_STEP);
}

static void build_bodies(ts_world_id world, int n)
{
    ts_shape_def shape = ts_default_shape_def();
    ts_box box = {{0.5f, 0.5f, 0.5f}};
    for (int i = 0; i < n; ++i) {
        ts_body_id body = test_dynamic_body(world, (ts_vec3){(float)i, 0, 0});
        assert_false(ts_shape_id_is_null(ts_create_box_shape(body, &shape, &box)));
    }
}

/* After the first step, 100 more steps (with forces applied between them)
 * make no allocation, on one thread and on two (2,000 bodies: above the
 * solver's parallel threshold). The boxes stand in a row, face to face, so
 * the step makes 1,999 contacts and the pushed box parts from its neighbour
 * (an end event). Destroying the world returns every byte. Both solvers. */
static void test_step_allocates_nothing(void **state)
{
    (void)state;
    /* The sanitizer jobs (test_short_run) stand 600 boxes in the row: still
     * above the step's threshold for threads (128 bodies) and each colour
     * of the row's contacts still splits into several blocks on two
     * threads, so the same stages run and every assertion holds as it is
     * (no allocation, one end event, every byte back); the default build
     * runs the 2,000. */
    const int boxes = test_short_run() ? 600 : 2000;
    for (int run = 0; run < 4; ++run) {
        int threads = 1 + run % 2;
        counting_allocator c = {0, 0, 0, -1};
        ts_world_id world = counted_solver_world(&c, threads, run < 2 ? TS_SOLVER_SOFT_STEP : TS_SOLVER_XPBD);
        assert_false(ts_world_id_is_null(world));
        build_bodies(world, boxes);
        assert_ok(ts_world_step(world, 1.0f / 60.0f));
        ts_world_counters counters;
        assert_ok(ts_world_get_counters(world, &counters));
        assert_int_equal(counters.touching_count, boxes - 1);
        long before = c.allocations;
        ts_transform xf[4];
        int count = 0, ended = 0;
        for (int i = 0; i < 100; ++i) {
            ts_body_id first;
            assert_ok(ts_world_get_awake_transforms(world, &first, xf, 1, &count));
            assert_ok(ts_body_apply_force_to_center(first, (ts_vec3){-1, 0, 0})); /* x = 0: away from the row */
            assert_ok(ts_world_step(world, 1.0f / 60.0f));
            ts_contact_events events;
            assert_ok(ts_world_get_contact_events(world, &events));
            ended += events.end_count;
        }
        assert_int_equal(ended, 1);
        assert_int_equal(c.allocations, before);
        assert_ok(ts_destroy_world(world));
        assert_int_equal(c.bytes_live, 0);
        assert_int_equal(c.frees, c.allocations);
    }
}

/* The step's room for the solve does not grow with the SIMD width: the
 * 1,999 contacts of the row above, all new in the first step, once took a
 * width-16 bundle each (11 KB: large_pyramid's world grew from 23 to 164 MB
 * at width 16, many_pyramids' from 35 to 178 MB); the colours' bundles are
 * what they need, plus one per colour, plus one per contact that may reach
 * the overflow set (none here). Bound: 1.25x width 1's live bytes after the
 * first step, for every built width and both solvers (the wider bundles'
 * part-full tails are the only difference). */
static void test_memory_same_at_every_width(void **state)
{
    (void)state;
    for (int solver = 0; solver < 2; ++solver) {
        long width1 = 0;
        const int widths[] = {1, 4, 8, 16};
        for (int k = 0; k < 4; ++k) {
            if (!test_width_built(widths[k])) {
                continue;
            }
            counting_allocator c = {0, 0, 0, -1};
            ts_world_def def = ts_default_world_def();
            def.solver = solver == 0 ? TS_SOLVER_SOFT_STEP : TS_SOLVER_XPBD;
            def.simd_width = widths[k];
            def.allocator = (ts_allocator){counting_alloc, counting_free, &c};
            ts_world_id world = ts_create_world(&def);
            assert_false(ts_world_id_is_null(world));
            build_bodies(world, 2000);
            assert_ok(ts_world_step(world, 1.0f / 60.0f));
            if (widths[k] == 1) {
                width1 = c.bytes_live;
            } else if (c.bytes_live > width1 + width1 / 4) {
                fail_msg("solver %d, width %d: %ld bytes live, width 1: %ld", solver, widths[k], c.bytes_live, width1);
            }
            assert_ok(ts_destroy_world(world));
        }
    }
}

/* An allocator that fails at the n-th allocation, for every n up to the
 * count a small scene needs: world creation or body creation fails with
 * TS_ERROR_OUT_OF_MEMORY (or succeeds), never crashes, and everything made so
 * far stays usable and is returned on destroy. */
static void test_failing_allocator(void **state)
{
    (void)state;
    for (long fail_after = 0; fail_after < 120; ++fail_after) {
        counting_allocator c = {0, 0, 0, fail_after};
        ts_world_id world = counted_world(&c, 1);
        if (ts_world_id_is_null(world)) {
            assert_non_null(strstr(ts_last_error(), "TS_ERROR_OUT_OF_MEMORY"));
            assert_int_equal(c.bytes_live, 0);
            continue;
        }
        ts_shape_def shape = ts_default_shape_def();
        ts_box box = {{0.5f, 0.5f, 0.5f}};
        int made = 0;
        for (int i = 0; i < 200; ++i) {
            ts_body_def def = ts_default_body_def();
            def.type = TS_BODY_DYNAMIC;
            def.position = (ts_vec3){1.5f * (float)i, 0, 0}; /* apart: a pile of overlaps would only be slow */
            ts_body_id body = ts_create_body(world, &def);
            if (ts_body_id_is_null(body)) {
                assert_non_null(strstr(ts_last_error(), "TS_ERROR_OUT_OF_MEMORY"));
                break;
            }
            if (ts_shape_id_is_null(ts_create_box_shape(body, &shape, &box))) {
                assert_non_null(strstr(ts_last_error(), "TS_ERROR_OUT_OF_MEMORY"));
                break;
            }
            ++made;
        }
        ts_world_counters counters;
        assert_ok(ts_world_get_counters(world, &counters));
        assert_true(counters.body_count >= made);
        /* The step makes the world's scratch: it may run out too. */
        ts_result stepped = ts_world_step(world, 1.0f / 60.0f);
        assert_true(stepped == TS_OK || stepped == TS_ERROR_OUT_OF_MEMORY);
        assert_ok(ts_destroy_world(world));
        assert_int_equal(c.bytes_live, 0);
    }
}

/* The capacity hints reserve room up front: building that many bodies and
 * shapes then allocates nothing more. */
static void test_capacity_hints(void **state)
{
    (void)state;
    counting_allocator c = {0, 0, 0, -1};
    ts_world_def def = ts_default_world_def();
    def.allocator = (ts_allocator){counting_alloc, counting_free, &c};
    def.body_capacity = 1000;
    def.shape_capacity = 1000;
    ts_world_id world = ts_create_world(&def);
    assert_false(ts_world_id_is_null(world));
    long before = c.allocations;
    build_bodies(world, 1000);
    assert_int_equal(c.allocations, before);
    assert_ok(ts_destroy_world(world));
    assert_int_equal(c.bytes_live, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_step_allocates_nothing),
        cmocka_unit_test(test_memory_same_at_every_width),
        cmocka_unit_test(test_failing_allocator),
        cmocka_unit_test(test_capacity_hints),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
