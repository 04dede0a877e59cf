/* A failed step leaves the world as it was (issue 21, "Done when" 4): an
 * allocator that fails from allocation k of a step on, for every k of every
 * step that allocates, over a small pile, a jointed scene and a resting
 * pile that sleeps and is woken by a falling box, both solvers.
 * The step returns TS_ERROR_OUT_OF_MEMORY, the state hash and the counters
 * are what they were before it, and once the allocator recovers the steps
 * that follow give the same hashes, bit for bit, as a world that never
 * failed. */
#include "test_common.h"

#define STEPS 24       /* the pile lands and its contacts begin over these; later steps allocate nothing */
#define SLEEP_STEPS 72 /* the resting pile sleeps at about step 30, the falling box wakes it at about 60 */
#define AFTER 3        /* steps compared after the recovered one */

typedef enum scene_kind { SCENE_PILE, SCENE_JOINTS, SCENE_SLEEP } scene_kind;

/* A static ground and boxes in three layers of 2 x 2 with gaps, so that
 * contacts begin over several steps. */
static void build_pile(ts_world_id world)
{
    ts_quat q = {0, 0, 0, 1};
    test_box(world, TS_BODY_STATIC, (ts_vec3){0, -0.5f, 0}, q, (ts_vec3){8, 0.5f, 8}, 1.0f);
    for (int layer = 0; layer < 3; ++layer) {
        for (int i = 0; i < 4; ++i) {
            float x = (float)(i % 2) * 1.05f, z = (float)(i / 2) * 1.05f;
            test_box(world, TS_BODY_DYNAMIC, (ts_vec3){x, 0.6f + 1.3f * (float)layer, z}, q,
                     (ts_vec3){0.5f, 0.5f, 0.5f}, 1.0f);
        }
    }
}

/* A chain of four boxes from a static anchor (ball, hinge, fixed and
 * distance joints) swinging down beside the ground, and a box that falls
 * onto the chain. */
static void build_joints(ts_world_id world)
{
    ts_quat q = {0, 0, 0, 1};
    test_box(world, TS_BODY_STATIC, (ts_vec3){0, -0.5f, 0}, q, (ts_vec3){8, 0.5f, 8}, 1.0f);
    ts_body_id anchor = test_box(world, TS_BODY_STATIC, (ts_vec3){0, 4, 0}, q, (ts_vec3){0.2f, 0.2f, 0.2f}, 1.0f);
    ts_body_id prev = anchor;
    for (int i = 0; i < 4; ++i) {
        ts_body_id link = test_box(world, TS_BODY_DYNAMIC, (ts_vec3){0.8f * (float)(i + 1), 4, 0}, q,
                                   (ts_vec3){0.3f, 0.15f, 0.15f}, 1.0f);
        ts_joint_def base = {prev, link, {{0.4f, 0, 0}, q}, {{-0.4f, 0, 0}, q}, false, NULL};
        if (i == 0) {
            base.local_frame_a.p = (ts_vec3){0.4f, 0, 0};
        }
        ts_joint_id joint;
        if (i == 0) {
            ts_ball_joint_def def = ts_default_ball_joint_def();
            def.base = base;
            joint = ts_create_ball_joint(world, &def);
        } else if (i == 1) {
            ts_hinge_joint_def def = ts_default_hinge_joint_def();
            def.base = base;
            joint = ts_create_hinge_joint(world, &def);
        } else if (i == 2) {
            ts_fixed_joint_def def = ts_default_fixed_joint_def();
            def.base = base;
            joint = ts_create_fixed_joint(world, &def);
        } else {
            ts_distance_joint_def def = ts_default_distance_joint_def();
            def.base = base;
            def.length = 0.1f;
            joint = ts_create_distance_joint(world, &def);
        }
        assert_false(ts_joint_id_is_null(joint));
        prev = link;
    }
    test_box(world, TS_BODY_DYNAMIC, (ts_vec3){1.6f, 5.0f, 0}, q, (ts_vec3){0.3f, 0.3f, 0.3f}, 1.0f);
}

/* Three boxes at rest on the ground (two side by side, one on them) and a
 * box that falls onto them from 6 m (1 s): they sleep before it arrives, and its
 * touch wakes their island (contacts coloured again within the step). */
static void build_sleep(ts_world_id world)
{
    ts_quat q = {0, 0, 0, 1};
    ts_vec3 half = {0.5f, 0.5f, 0.5f};
    test_box(world, TS_BODY_STATIC, (ts_vec3){0, -0.5f, 0}, q, (ts_vec3){8, 0.5f, 8}, 1.0f);
    test_box(world, TS_BODY_DYNAMIC, (ts_vec3){-0.5f, 0.5f, 0}, q, half, 1.0f);
    test_box(world, TS_BODY_DYNAMIC, (ts_vec3){0.5f, 0.5f, 0}, q, half, 1.0f);
    test_box(world, TS_BODY_DYNAMIC, (ts_vec3){0, 1.5f, 0}, q, half, 1.0f);
    test_box(world, TS_BODY_DYNAMIC, (ts_vec3){0, 8.0f, 0}, q, half, 1.0f);
}

static ts_world_id make_world(counting_allocator *c, scene_kind kind, ts_solver_type solver)
{
    ts_world_def def = ts_default_world_def();
    def.threads = 1; /* allocation k is then the same one in every run */
    def.solver = solver;
    def.allocator = (ts_allocator){counting_alloc, counting_free, c};
    ts_world_id world = ts_create_world(&def);
    assert_false(ts_world_id_is_null(world));
    if (kind == SCENE_PILE) {
        build_pile(world);
    } else if (kind == SCENE_JOINTS) {
        build_joints(world);
    } else {
        build_sleep(world);
    }
    return world;
}

static uint64_t hash_of(ts_world_id world)
{
    uint64_t h;
    assert_ok(ts_world_state_hash(world, &h));
    return h;
}

static ts_world_counters counters_of(ts_world_id world)
{
    ts_world_counters counters;
    assert_ok(ts_world_get_counters(world, &counters));
    counters.narrowphase_pairs = 0; /* the last step's work, not the world's state */
    return counters;
}

static void check_every_failure(scene_kind kind, ts_solver_type solver)
{
    /* The reference: the hash after every step, the allocations of each. */
    const int steps = kind == SCENE_SLEEP ? SLEEP_STEPS : STEPS;
    uint64_t reference[SLEEP_STEPS + AFTER + 2];
    long allocations[SLEEP_STEPS];
    int slept = 0;
    counting_allocator c = {0, 0, 0, -1};
    ts_world_id world = make_world(&c, kind, solver);
    reference[0] = hash_of(world);
    for (int s = 0; s < steps + AFTER + 1; ++s) {
        long before = c.allocations;
        assert_ok(ts_world_step(world, 1.0f / 60.0f));
        if (s < steps) {
            allocations[s] = c.allocations - before;
        }
        reference[s + 1] = hash_of(world);
        ts_world_counters counters = counters_of(world);
        slept += counters.awake_body_count < counters.body_count - counters.static_body_count ? 1 : 0;
    }
    if (kind == SCENE_SLEEP) {
        ts_world_counters counters = counters_of(world);
        assert_true(slept > 0); /* the pile slept */
        assert_int_equal(counters.awake_body_count, 4); /* and was woken */
    }
    assert_ok(ts_destroy_world(world));
    assert_int_equal(c.bytes_live, 0);
    long total = 0;
    for (int s = 0; s < steps; ++s) {
        total += allocations[s];
    }
    if (kind == SCENE_SLEEP) {
        /* The first step's room holds every later one: falling asleep and
         * waking (the island's contacts coloured again) allocate nothing. */
        assert_true(allocations[0] > 0 && total == allocations[0]);
    } else {
        assert_true(allocations[0] > 0 && total > allocations[0]); /* steps after the first allocate too */
    }

    int allocating = 0;
    for (int s = 0; s < steps; ++s) {
        allocating += allocations[s] > 0 ? 1 : 0;
    }
    print_message("%ld failed steps over the %d steps of %d that allocate\n", total, allocating, steps);
    for (int s = 0; s < steps; ++s) {
        for (long k = 0; k < allocations[s]; ++k) {
            counting_allocator f = {0, 0, 0, -1};
            world = make_world(&f, kind, solver);
            for (int i = 0; i < s; ++i) {
                assert_ok(ts_world_step(world, 1.0f / 60.0f));
            }
            ts_world_counters counters = counters_of(world);
            assert_true(hash_of(world) == reference[s]);
            f.fail_after = f.allocations + k;
            ts_result failed = ts_world_step(world, 1.0f / 60.0f);
            if (failed != TS_ERROR_OUT_OF_MEMORY) {
                fail_msg("step %d, allocation %ld: %s", s, k, ts_result_name(failed));
            }
            assert_non_null(strstr(ts_last_error(), "TS_ERROR_OUT_OF_MEMORY"));
            if (hash_of(world) != reference[s]) {
                fail_msg("step %d, allocation %ld: the failed step changed the state", s, k);
            }
            ts_world_counters after = counters_of(world);
            if (memcmp(&counters, &after, sizeof counters) != 0) {
                fail_msg("step %d, allocation %ld: the failed step changed the counters (contacts %d -> %d, touching %d "
                         "-> %d, awake %d -> %d)",
                         s, k, counters.contact_count, after.contact_count, counters.touching_count,
                         after.touching_count, counters.awake_body_count, after.awake_body_count);
            }
            /* The allocator recovers: the same steps as a world that never failed. */
            f.fail_after = -1;
            for (int i = s; i <= s + AFTER; ++i) {
                assert_ok(ts_world_step(world, 1.0f / 60.0f));
                if (hash_of(world) != reference[i + 1]) {
                    fail_msg("step %d, allocation %ld: step %d after the recovery differs", s, k, i);
                }
            }
            assert_ok(ts_destroy_world(world));
            assert_int_equal(f.bytes_live, 0);
        }
    }
}

static void test_pile_soft_step(void **state)
{
    (void)state;
    check_every_failure(SCENE_PILE, TS_SOLVER_SOFT_STEP);
}

static void test_pile_xpbd(void **state)
{
    (void)state;
    check_every_failure(SCENE_PILE, TS_SOLVER_XPBD);
}

static void test_joints_soft_step(void **state)
{
    (void)state;
    check_every_failure(SCENE_JOINTS, TS_SOLVER_SOFT_STEP);
}

static void test_joints_xpbd(void **state)
{
    (void)state;
    check_every_failure(SCENE_JOINTS, TS_SOLVER_XPBD);
}

static void test_sleep_soft_step(void **state)
{
    (void)state;
    check_every_failure(SCENE_SLEEP, TS_SOLVER_SOFT_STEP);
}

static void test_sleep_xpbd(void **state)
{
    (void)state;
    check_every_failure(SCENE_SLEEP, TS_SOLVER_XPBD);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pile_soft_step),
        cmocka_unit_test(test_pile_xpbd),
        cmocka_unit_test(test_joints_soft_step),
        cmocka_unit_test(test_joints_xpbd),
        cmocka_unit_test(test_sleep_soft_step),
        cmocka_unit_test(test_sleep_xpbd),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
