/* Faults in a pile (issue 21, "Done when" 3): one box of a 500-box pile
 * given velocity 1e20, FLT_MAX, angular velocity FLT_MAX, a force of 1e38,
 * an impulse of 3e38, and the world given gravity 1e38 and dt 1e30. Every
 * one of these calls is refused (TS_ERROR_OUT_OF_RANGE, naming its bound)
 * and changes nothing: the state hash is the same after it, and so are the
 * hashes of the steps that follow, bit for bit, as in a world where the
 * call was never made. What still gets past the bounds (TS_MAX_FORCE on a
 * body of almost no mass) is held and taken out: see the second test. */
#include "test_common.h"

#include "base/alloc.h"
#include "soa/body_store.h"
#include "solver/integrate.h"

#include <float.h>

#define PILE 500
#define SETTLE 10 /* steps before the fault */
#define AFTER 10  /* steps compared after it */

/* A ground box and PILE unit boxes in columns of 5 on a 10 x 10 grid, each
 * on the one below. */
static ts_world_id make_pile(ts_body_id *boxes)
{
    ts_world_id world = test_world(4, 1);
    test_box(world, TS_BODY_STATIC, (ts_vec3){0, -1, 0}, TS_QUAT_IDENTITY, (ts_vec3){50, 1, 50}, 1.0f);
    for (int i = 0; i < PILE; ++i) {
        int column = i / 5, level = i % 5;
        ts_vec3 p = {(float)(column % 10) * 1.1f - 5.0f, 0.5f + (float)level, (float)(column / 10) * 1.1f - 5.0f};
        boxes[i] = test_box(world, TS_BODY_DYNAMIC, p, TS_QUAT_IDENTITY, (ts_vec3){0.5f, 0.5f, 0.5f}, 1.0f);
    }
    return world;
}

static uint64_t hash_of(ts_world_id world)
{
    uint64_t h;
    assert_ok(ts_world_state_hash(world, &h));
    return h;
}

enum { FAULT_COUNT = 7 };

/* Fault k on box `body` of `world`; returns the call's result. */
static ts_result apply_fault(int k, ts_world_id world, ts_body_id body)
{
    const float big = FLT_MAX;
    switch (k) {
    case 0: return ts_body_set_linear_velocity(body, (ts_vec3){1e20f, 0, 0});
    case 1: return ts_body_set_linear_velocity(body, (ts_vec3){big, big, big});
    case 2: return ts_body_set_angular_velocity(body, (ts_vec3){big, big, big});
    case 3: return ts_body_apply_force_to_center(body, (ts_vec3){1e38f, 0, 0});
    case 4: return ts_body_apply_linear_impulse_to_center(body, (ts_vec3){3e38f, 0, 0});
    case 5: return ts_world_set_gravity(world, (ts_vec3){0, -1e38f, 0});
    default: return ts_world_step(world, 1e30f);
    }
}

/* Every fault is refused with TS_ERROR_OUT_OF_RANGE and changes nothing:
 * the hash right after it and after each of AFTER more steps is the
 * reference's (a pile that was never given the fault). Exact: a refused
 * call must leave every bit. */
static void test_pile_faults_refused(void **state)
{
    (void)state;
    static ts_body_id boxes[PILE];
    uint64_t reference[AFTER + 1];
    ts_world_id world = make_pile(boxes);
    for (int i = 0; i < SETTLE; ++i) {
        assert_ok(ts_world_step(world, 1.0f / 60.0f));
    }
    for (int i = 0; i <= AFTER; ++i) {
        reference[i] = hash_of(world);
        assert_ok(ts_world_step(world, 1.0f / 60.0f));
    }
    assert_ok(ts_destroy_world(world));

    for (int k = 0; k < FAULT_COUNT; ++k) {
        world = make_pile(boxes);
        for (int i = 0; i < SETTLE; ++i) {
            assert_ok(ts_world_step(world, 1.0f / 60.0f));
        }
        ts_result r = apply_fault(k, world, boxes[PILE / 2 + 2]); /* a box inside the pile */
        if (r != TS_ERROR_OUT_OF_RANGE) {
            fail_msg("fault %d: %s (%s)", k, ts_result_name(r), ts_last_error());
        }
        if (strstr(ts_last_error(), "TS_MAX_") == NULL && strstr(ts_last_error(), "max_") == NULL) {
            fail_msg("fault %d: the message names no bound: %s", k, ts_last_error());
        }
        for (int i = 0; i <= AFTER; ++i) {
            if (hash_of(world) != reference[i]) {
                fail_msg("fault %d: step %d differs from the pile that never had it", k, i);
            }
            assert_ok(ts_world_step(world, 1.0f / 60.0f));
        }
        assert_ok(ts_destroy_world(world));
    }
}

/* A pile with a body of almost no mass (a 1 mm sphere of density 1e-20,
 * 4e-29 kg, gravity off) resting on the top box of its first column. */
static ts_world_id make_pile_with_dust(ts_body_id *boxes, ts_body_id *dust)
{
    ts_world_id world = make_pile(boxes);
    ts_body_def def = ts_default_body_def();
    def.type = TS_BODY_DYNAMIC;
    def.position = (ts_vec3){-5.0f, 5.001f, -5.0f};
    def.gravity_scale = 0.0f;
    *dust = ts_create_body(world, &def);
    ts_shape_def shape = ts_default_shape_def();
    shape.density = 1e-20f;
    ts_sphere sphere = {1e-3f};
    assert_false(ts_shape_id_is_null(ts_create_sphere_shape(*dust, &shape, &sphere)));
    for (int i = 0; i < SETTLE; ++i) {
        assert_ok(ts_world_step(world, 1.0f / 60.0f));
    }
    return world;
}

/* What gets past the bounds: TS_MAX_FORCE on every axis of the dust body
 * asks for an infinite velocity within a substep. The step returns
 * TS_ERROR_NOT_FINITE naming it and holds it at its last finite state
 * (pose and velocity as before the step, exactly); then it is taken out:
 * ts_world_get_body_faults lists it, it has no contacts, later steps leave
 * it where it was, and every box goes on bit for bit as in a pile where
 * the same step ran without the force and the dust was then destroyed
 * (the hash of the 500 boxes after 10 more steps; exact, since a faulted
 * body must act on nothing). */
static void test_overflow_contained(void **state)
{
    (void)state;
    static ts_body_id boxes[PILE];
    ts_body_id dust;
    ts_world_id world = make_pile_with_dust(boxes, &dust);
    ts_transform before;
    ts_vec3 v_before;
    assert_ok(ts_body_get_transform(dust, &before));
    assert_ok(ts_body_get_linear_velocity(dust, &v_before));
    int touching = 0;
    assert_ok(ts_body_get_contacts(dust, NULL, 0, &touching));
    assert_true(touching >= 1); /* it rests on the box below */
    int count = -1;
    assert_ok(ts_world_get_body_faults(world, NULL, 0, &count));
    assert_int_equal(count, 0);
    assert_ok(ts_body_apply_force_to_center(dust, (ts_vec3){1e30f, 1e30f, 1e30f}));
    assert_int_equal(ts_world_step(world, 1.0f / 60.0f), TS_ERROR_NOT_FINITE);
    assert_non_null(strstr(ts_last_error(), "held at its last finite state"));
    ts_body_id faults[2];
    assert_ok(ts_world_get_body_faults(world, faults, 2, &count));
    assert_int_equal(count, 1);
    assert_memory_equal(&faults[0], &dust, sizeof dust);
    for (int i = 0; i <= AFTER; ++i) {
        ts_transform after;
        ts_vec3 v_after;
        assert_ok(ts_body_get_transform(dust, &after));
        assert_ok(ts_body_get_linear_velocity(dust, &v_after));
        assert_memory_equal(&before, &after, sizeof before);
        assert_memory_equal(&v_before, &v_after, sizeof v_before);
        int contacts = -1;
        assert_ok(ts_body_get_contacts(dust, NULL, 0, &contacts));
        assert_int_equal(contacts, 0);
        if (i < AFTER) {
            assert_ok(ts_world_step(world, 1.0f / 60.0f));
        }
    }
    for (int i = 0; i < PILE; ++i) {
        assert_true(test_body_is_finite(boxes[i]));
    }
    uint64_t contained = test_hash_bodies(0, boxes, PILE);
    size_t size = 0;
    assert_int_equal(ts_world_save(world, NULL, 0, &size), TS_ERROR_UNSUPPORTED);
    /* It stays out: what would put it back is refused and changes nothing;
     * moving it by hand moves only it (its shapes are in no tree). */
    uint64_t world_hash = hash_of(world);
    ts_shape_def shape = ts_default_shape_def();
    ts_sphere sphere = {0.1f};
    assert_true(ts_shape_id_is_null(ts_create_sphere_shape(dust, &shape, &sphere)));
    assert_non_null(strstr(ts_last_error(), "TS_ERROR_INVALID_OPERATION"));
    assert_int_equal(ts_body_set_type(dust, TS_BODY_STATIC), TS_ERROR_INVALID_OPERATION);
    ts_ball_joint_def joint = ts_default_ball_joint_def();
    joint.base.body_a = boxes[0];
    joint.base.body_b = dust;
    assert_true(ts_joint_id_is_null(ts_create_ball_joint(world, &joint)));
    assert_non_null(strstr(ts_last_error(), "TS_ERROR_INVALID_OPERATION"));
    assert_true(hash_of(world) == world_hash);
    assert_ok(ts_body_set_position(dust, (ts_vec3){0, 20, 0}));
    assert_ok(ts_world_step(world, 1.0f / 60.0f));
    assert_true(test_body_is_finite(dust));
    uint64_t contained_moved = test_hash_bodies(0, boxes, PILE);
    assert_ok(ts_destroy_body(dust));
    assert_ok(ts_world_get_body_faults(world, faults, 2, &count));
    assert_int_equal(count, 0);
    assert_ok(ts_destroy_world(world));

    world = make_pile_with_dust(boxes, &dust);
    assert_ok(ts_world_step(world, 1.0f / 60.0f));
    assert_ok(ts_destroy_body(dust));
    for (int i = 0; i < AFTER; ++i) {
        assert_ok(ts_world_step(world, 1.0f / 60.0f));
    }
    uint64_t destroyed = test_hash_bodies(0, boxes, PILE);
    assert_ok(ts_world_step(world, 1.0f / 60.0f)); /* the step the contained world took after moving the dust */
    uint64_t destroyed_moved = test_hash_bodies(0, boxes, PILE);
    assert_ok(ts_destroy_world(world));
    assert_true(contained == destroyed);
    assert_true(contained_moved == destroyed_moved);
}

/* The step's last gate (integrate_wide.c, finish_lanes): a body whose end
 * of step is not finite keeps its start, whatever wrote the NaN (a solve
 * with an overflowing body writes NaN velocities into its neighbours, and
 * XPBD poses: a 1e30 m distance joint once made a whole pile NaN). 19
 * bodies (a tail at every width), body 3 with a NaN velocity and body 17
 * with an infinite move: both keep pose and velocity bit for bit, the
 * first of them is returned, every other body gets its end. Widths 1, 4,
 * 8 and 16 (on AVX2 registers), those built, run the same function. */
typedef int32_t (*finish_fn)(const ts_body_state *, ts_body_store *, int32_t, int32_t, bool, ts_free_bodies,
                             ts_speed_limit);

static void test_finish_keeps_non_finite_bodies_at_start(void **state)
{
    (void)state;
    static const finish_fn widths[] = {ts_states_finish_wide_w1,
#ifdef TS_BUILT_W4
                                       ts_states_finish_wide_w4,
#endif
#ifdef TS_BUILT_W8
                                       ts_states_finish_wide_w8,
#endif
#ifdef TS_BUILT_W16
                                       ts_states_finish_wide_w16,
#endif
    };
    enum { N = 19 };
    for (size_t k = 0; k < sizeof widths / sizeof widths[0]; ++k) {
        ts_allocator a = ts_default_allocator();
        ts_body_store s;
        ts_body_store_init(&s);
        assert_true(ts_body_store_reserve(&s, &a, N, N));
        ts_body_state states[N];
        for (int32_t b = 0; b < N; ++b) {
            int32_t i = ts_body_store_add(&s, b, TS_RANGE_AWAKE);
            s.px[i] = (float)b;
            s.vx[i] = 1.0f;
            s.wy[i] = 0.5f;
            states[i] = ts_body_state_at_rest((ts_vec3){2.0f, 0, 0}, (ts_vec3){0, 0, 1.0f});
            states[i].dp = (ts_vec3){0.25f, 0, 0};
        }
        states[3].v.y = NAN;
        states[17].dp.z = INFINITY;
        ts_speed_limit limit = {TS_MAX_SPEED, TS_MAX_ANGULAR_SPEED};
        assert_int_equal(widths[k](states, &s, 0, N, true, TS_FREE_AS_OTHERS, limit), 3);
        for (int32_t i = 0; i < N; ++i) {
            bool held = i == 3 || i == 17;
            assert_true(s.px[i] == (float)i + (held ? 0.0f : 0.25f));
            assert_true(s.vx[i] == (held ? 1.0f : 2.0f));
            assert_true(s.vy[i] == 0.0f && s.vz[i] == 0.0f);
            assert_true(s.wy[i] == (held ? 0.5f : 0.0f));
            assert_true(s.wz[i] == (held ? 0.0f : 1.0f));
            assert_true(s.qw[i] == 1.0f);
        }
        ts_body_store_destroy(&s, &a);
    }
}

/* ts_world_get_body_faults' bad input: each refused with its code. */
static void test_body_faults_bad_input(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    ts_body_id ids[1];
    int count = 0;
    assert_int_equal(ts_world_get_body_faults(world, ids, 1, NULL), TS_ERROR_NULL_POINTER);
    assert_int_equal(ts_world_get_body_faults(world, NULL, 1, &count), TS_ERROR_NULL_POINTER);
    assert_int_equal(ts_world_get_body_faults(world, ids, -1, &count), TS_ERROR_OUT_OF_RANGE);
    assert_ok(ts_destroy_world(world));
    assert_int_equal(ts_world_get_body_faults(world, ids, 1, &count), TS_ERROR_STALE_ID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pile_faults_refused),
        cmocka_unit_test(test_overflow_contained),
        cmocka_unit_test(test_body_faults_bad_input),
        cmocka_unit_test(test_finish_keeps_non_finite_bodies_at_start),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
