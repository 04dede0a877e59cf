/* Body move events (tessera/body_moves.h, issue 24): the list holds every
 * body the step moved with the pose ts_body_get_transform reads (bit for
 * bit), marks the last move of a body that falls asleep and then lists it
 * no more, never lists static bodies; it is the same at every SIMD width
 * and thread count and leaves the simulation's bits alone; bad input; a
 * snapshot keeps the switch (and the contact reports'). */
#include "test_common.h"

#define DT (1.0f / 60.0f)

static bool same_transform(ts_transform a, ts_transform b) { return memcmp(&a, &b, sizeof a) == 0; }

/* A box dropped on a static ground and a kinematic box gliding beside it:
 * while the box falls and settles both are listed each step, with the
 * transforms the body calls read; the step at which the box's island falls
 * asleep lists it with fell_asleep, and later steps list only the
 * kinematic box (a kinematic body moving at a constant speed never
 * sleeps). The ground is never listed. */
static void test_moves_follow_the_bodies(void **state)
{
    (void)state;
    ts_world_id world = test_world_at_width(0, 1);
    assert_ok(ts_world_enable_body_moves(world, true));
    ts_body_moves moves;
    assert_ok(ts_world_get_body_moves(world, &moves));
    assert_int_equal(moves.count, 0); /* before the first step */
    ts_body_id ground =
        test_box(world, TS_BODY_STATIC, (ts_vec3){0, -1, 0}, TS_QUAT_IDENTITY, (ts_vec3){10, 1, 10}, 1.0f);
    ts_body_id box =
        test_box(world, TS_BODY_DYNAMIC, (ts_vec3){0, 1, 0}, TS_QUAT_IDENTITY, (ts_vec3){0.5f, 0.5f, 0.5f}, 1.0f);
    ts_body_id glider =
        test_box(world, TS_BODY_KINEMATIC, (ts_vec3){5, 3, 0}, TS_QUAT_IDENTITY, (ts_vec3){0.5f, 0.5f, 0.5f}, 1.0f);
    assert_ok(ts_body_set_linear_velocity(glider, (ts_vec3){0, 0, 0.5f}));
    int asleep_at = -1;
    for (int step = 0; step < 600; ++step) {
        assert_ok(ts_world_step(world, DT));
        assert_ok(ts_world_get_body_moves(world, &moves));
        bool saw_box = false, saw_glider = false;
        for (int k = 0; k < moves.count; ++k) {
            const ts_body_move_event *e = moves.events + k;
            assert_true(e->body.index1 != ground.index1);
            ts_transform now;
            assert_ok(ts_body_get_transform(e->body, &now));
            assert_true(same_transform(now, e->transform));
            if (e->body.index1 == box.index1) {
                saw_box = true;
                if (e->fell_asleep) {
                    assert_int_equal(asleep_at, -1);
                    asleep_at = step;
                }
            } else {
                assert_true(e->body.index1 == glider.index1);
                assert_false(e->fell_asleep);
                saw_glider = true;
            }
        }
        assert_true(saw_glider);
        assert_true(saw_box == (asleep_at < 0 || asleep_at == step));
    }
    printf("the box fell asleep at step %d\n", asleep_at);
    assert_true(asleep_at > 0);
    ts_destroy_world(world);
}

/* A small pile (27 boxes dropped in a grid, slightly shifted so they
 * tumble) for 90 steps: a hash of every step's list (id indices,
 * transforms, fell_asleep) and the world's state hash. */
static uint64_t pile_moves(int width, int threads, bool on, uint64_t *state_hash)
{
    ts_world_id world = test_world_at_width(width, threads);
    if (on) {
        assert_ok(ts_world_enable_body_moves(world, true));
    }
    test_drop_small_pile(world);
    uint64_t h = TEST_FNV_START;
    for (int step = 0; step < 90; ++step) {
        assert_ok(ts_world_step(world, DT));
        if (!on) {
            continue;
        }
        ts_body_moves moves;
        assert_ok(ts_world_get_body_moves(world, &moves));
        h = test_fnv(h, &moves.count, sizeof moves.count);
        for (int k = 0; k < moves.count; ++k) { /* ids' world slot and generation differ between worlds */
            h = test_fnv(h, &moves.events[k].body.index1, sizeof(int32_t));
            h = test_fnv(h, &moves.events[k].transform, sizeof(ts_transform));
            h = test_fnv(h, &moves.events[k].fell_asleep, sizeof(bool));
        }
    }
    assert_ok(ts_world_state_hash(world, state_hash));
    ts_destroy_world(world);
    return h;
}

/* Same lists at every built width and 1/2 threads; the state hash the same
 * with the events on and off (the step only reads the bodies for them). */
static void test_moves_deterministic(void **state)
{
    (void)state;
    test_report_same_everywhere(pile_moves);
}

/* Bad input: each refused with its error naming the problem; turning the
 * events off and on again empties the list. */
static void test_moves_bad_input(void **state)
{
    (void)state;
    ts_world_id world = test_world_at_width(0, 1);
    ts_body_moves moves = {NULL, 7};
    assert_int_equal(ts_world_get_body_moves(world, &moves), TS_ERROR_INVALID_OPERATION);
    assert_non_null(strstr(ts_last_error(), "ts_world_enable_body_moves"));
    assert_int_equal(moves.count, 7); /* untouched */
    assert_ok(ts_world_enable_body_moves(world, true));
    assert_int_equal(ts_world_get_body_moves(world, NULL), TS_ERROR_NULL_POINTER);
    assert_non_null(strstr(ts_last_error(), "moves"));
    test_box(world, TS_BODY_DYNAMIC, (ts_vec3){0, 1, 0}, TS_QUAT_IDENTITY, (ts_vec3){0.5f, 0.5f, 0.5f}, 1.0f);
    assert_ok(ts_world_step(world, DT));
    assert_ok(ts_world_get_body_moves(world, &moves));
    assert_int_equal(moves.count, 1);
    assert_ok(ts_world_enable_body_moves(world, false));
    assert_int_equal(ts_world_get_body_moves(world, &moves), TS_ERROR_INVALID_OPERATION);
    assert_ok(ts_world_enable_body_moves(world, true));
    assert_ok(ts_world_get_body_moves(world, &moves));
    assert_int_equal(moves.count, 0);
    ts_destroy_world(world);
    assert_int_equal(ts_world_enable_body_moves(world, true), TS_ERROR_STALE_ID);
    assert_int_equal(ts_world_get_body_moves(world, &moves), TS_ERROR_STALE_ID);
}

/* A snapshot keeps the reports' switches (format 4): the world loaded from
 * it lists body moves, hit events at the saved hit speed and impulse
 * totals from its next step, as the saved one does, and lists nothing
 * before that step. */
static void test_switches_survive_a_snapshot(void **state)
{
    (void)state;
    ts_world_id world = test_world_at_width(0, 1);
    assert_ok(ts_world_enable_body_moves(world, true));
    assert_ok(ts_world_enable_hit_events(world, true, 2.5f));
    assert_ok(ts_world_enable_contact_impulses(world, true));
    test_box(world, TS_BODY_STATIC, (ts_vec3){0, -1, 0}, TS_QUAT_IDENTITY, (ts_vec3){10, 1, 10}, 1.0f);
    test_box(world, TS_BODY_DYNAMIC, (ts_vec3){0, 2, 0}, TS_QUAT_IDENTITY, (ts_vec3){0.5f, 0.5f, 0.5f}, 1.0f);
    assert_ok(ts_world_step(world, DT));
    size_t size = 0;
    assert_ok(ts_world_save(world, NULL, 0, &size));
    unsigned char *bytes = malloc(size);
    assert_non_null(bytes);
    assert_ok(ts_world_save(world, bytes, size, &size));
    ts_world_def def = ts_default_world_def();
    ts_world_id loaded;
    assert_ok(ts_world_load(bytes, size, &def, &loaded));
    free(bytes);
    ts_body_moves moves;
    assert_ok(ts_world_get_body_moves(loaded, &moves));
    assert_int_equal(moves.count, 0); /* the list is not held: empty until the next step */
    int n = -1;
    assert_ok(ts_world_get_hit_events(loaded, NULL, 0, &n));
    assert_ok(ts_world_get_contact_impulses(loaded, NULL, 0, &n));
    /* the same lists as the saved world's from here on: the box lands (about 4.5 m/s) */
    int hits_a = 0, hits_b = 0;
    for (int step = 0; step < 60; ++step) {
        assert_ok(ts_world_step(world, DT));
        assert_ok(ts_world_step(loaded, DT));
        ts_body_moves a, b;
        assert_ok(ts_world_get_body_moves(world, &a));
        assert_ok(ts_world_get_body_moves(loaded, &b));
        assert_int_equal(a.count, b.count);
        for (int k = 0; k < a.count; ++k) {
            assert_true(same_transform(a.events[k].transform, b.events[k].transform));
        }
        int ha = 0, hb = 0, ia = 0, ib = 0;
        assert_ok(ts_world_get_hit_events(world, NULL, 0, &ha));
        assert_ok(ts_world_get_hit_events(loaded, NULL, 0, &hb));
        assert_ok(ts_world_get_contact_impulses(world, NULL, 0, &ia));
        assert_ok(ts_world_get_contact_impulses(loaded, NULL, 0, &ib));
        assert_int_equal(ha, hb);
        assert_int_equal(ia, ib);
        hits_a += ha;
        hits_b += hb;
    }
    assert_int_equal(hits_a, 1);
    assert_int_equal(hits_b, 1);
    ts_destroy_world(world);
    ts_destroy_world(loaded);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_moves_follow_the_bodies),
        cmocka_unit_test(test_moves_deterministic),
        cmocka_unit_test(test_moves_bad_input),
        cmocka_unit_test(test_switches_survive_a_snapshot),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
