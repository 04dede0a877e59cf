/* Ids: index + generation. A destroyed object's id goes stale, a reused index
 * does not reach the old object, and heavy churn keeps every live id right. */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>

/* A destroyed body's id fails every call with TS_ERROR_STALE_ID; its shapes go too. */
static void test_body_id_stale_after_destroy(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    ts_body_id body = test_dynamic_body(world, (ts_vec3){1, 2, 3});
    ts_shape_def def = ts_default_shape_def();
    ts_sphere sphere = {0.5f};
    ts_shape_id shape = ts_create_sphere_shape(body, &def, &sphere);
    assert_true(ts_body_is_valid(body));
    assert_true(ts_shape_is_valid(shape));
    assert_ok(ts_destroy_body(body));
    assert_false(ts_body_is_valid(body));
    assert_false(ts_shape_is_valid(shape));
    ts_vec3 p = {7, 7, 7};
    assert_int_equal(ts_body_get_position(body, &p), TS_ERROR_STALE_ID);
    assert_true(p.x == 7 && p.y == 7 && p.z == 7);
    assert_int_equal(ts_destroy_body(body), TS_ERROR_STALE_ID);
    assert_int_equal(ts_destroy_shape(shape), TS_ERROR_STALE_ID);
    assert_non_null(strstr(ts_last_error(), "stale"));
    assert_ok(ts_destroy_world(world));
}

/* The next body takes the freed index with a new generation: the old id must
 * not read or move the new body. */
static void test_reused_index_does_not_reach_old_id(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    ts_body_id old_body = test_dynamic_body(world, (ts_vec3){1, 0, 0});
    assert_ok(ts_destroy_body(old_body));
    ts_body_id new_body = test_dynamic_body(world, (ts_vec3){5, 0, 0});
    assert_int_equal(new_body.index1, old_body.index1);
    assert_true(new_body.generation != old_body.generation);
    assert_int_equal(ts_body_set_position(old_body, (ts_vec3){9, 9, 9}), TS_ERROR_STALE_ID);
    ts_vec3 p;
    assert_ok(ts_body_get_position(new_body, &p));
    assert_true(p.x == 5.0f && p.y == 0.0f);
    assert_ok(ts_destroy_world(world));
}

/* A world's ids go stale with it; a new world in the same slot has a new
 * generation, so old body ids do not reach its bodies. */
static void test_world_id_stale_after_destroy(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    ts_body_id body = test_dynamic_body(world, (ts_vec3){1, 0, 0});
    assert_ok(ts_destroy_world(world));
    assert_false(ts_world_is_valid(world));
    assert_false(ts_body_is_valid(body));
    assert_int_equal(ts_world_step(world, 1.0f / 60.0f), TS_ERROR_STALE_ID);
    ts_world_id again = test_world(4, 1);
    assert_int_equal(again.index1, world.index1);
    ts_body_id other = test_dynamic_body(again, (ts_vec3){3, 0, 0});
    assert_int_equal(other.index1, body.index1);
    assert_int_equal(other.generation, body.generation);
    assert_false(ts_body_is_valid(body));
    assert_int_equal(ts_body_set_position(body, (ts_vec3){9, 9, 9}), TS_ERROR_STALE_ID);
    ts_vec3 p;
    assert_ok(ts_body_get_position(other, &p));
    assert_true(p.x == 3.0f);
    assert_ok(ts_destroy_world(again));
}

typedef struct live_body {
    ts_body_id id;
    float tag; /* its position x, unique per body */
} live_body;

/* 100,000 creates interleaved with destroys in random order (dynamic and
 * static bodies, so the store's ranges swap slots all the time). Every live
 * id must stay valid and still read its own body's position (exactly: the
 * value is copied, never computed on); every destroyed id must be stale. */
static void test_churn_keeps_live_ids_valid(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    const int total = 100000;
    live_body *live = malloc(sizeof(live_body) * (size_t)total);
    ts_body_id *dead = malloc(sizeof(ts_body_id) * (size_t)total);
    int live_count = 0, dead_count = 0;
    uint32_t seed = 12345;
    ts_body_def def = ts_default_body_def();
    for (int made = 0; made < total;) {
        bool create = live_count == 0 || (next_random(&seed) % 100) < 55;
        if (create) {
            def.type = (next_random(&seed) % 3 == 0) ? TS_BODY_STATIC : TS_BODY_DYNAMIC;
            def.position = (ts_vec3){(float)made, 0.0f, 0.0f};
            ts_body_id id = ts_create_body(world, &def);
            assert_false(ts_body_id_is_null(id));
            live[live_count++] = (live_body){id, (float)made};
            ++made;
        } else {
            int k = (int)(next_random(&seed) % (uint32_t)live_count);
            assert_ok(ts_destroy_body(live[k].id));
            dead[dead_count++] = live[k].id;
            live[k] = live[--live_count];
        }
        if (made % 20000 == 0 || made == total) {
            for (int i = 0; i < live_count; ++i) {
                ts_vec3 p;
                assert_ok(ts_body_get_position(live[i].id, &p));
                assert_true(p.x == live[i].tag);
            }
        }
    }
    for (int i = 0; i < dead_count; ++i) {
        assert_false(ts_body_is_valid(dead[i]));
    }
    ts_world_counters counters;
    assert_ok(ts_world_get_counters(world, &counters));
    assert_int_equal(counters.body_count, live_count);
    print_message("%d live, %d destroyed\n", live_count, dead_count);
    free(live);
    free(dead);
    assert_ok(ts_destroy_world(world));
}

/* Changing a body's type moves it between store ranges; ids of it and of the
 * bodies it swapped places with must still reach the right bodies. */
static void test_type_changes_keep_ids(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    ts_body_id ids[10];
    ts_body_def def = ts_default_body_def();
    for (int i = 0; i < 10; ++i) {
        def.type = i % 2 ? TS_BODY_STATIC : TS_BODY_DYNAMIC;
        def.position = (ts_vec3){(float)i, 0, 0};
        ids[i] = ts_create_body(world, &def);
    }
    assert_ok(ts_body_set_type(ids[0], TS_BODY_STATIC));
    assert_ok(ts_body_set_type(ids[3], TS_BODY_DYNAMIC));
    assert_ok(ts_body_set_type(ids[5], TS_BODY_KINEMATIC));
    assert_ok(ts_destroy_body(ids[2]));
    for (int i = 0; i < 10; ++i) {
        if (i == 2) {
            continue;
        }
        ts_vec3 p;
        assert_ok(ts_body_get_position(ids[i], &p));
        assert_true(p.x == (float)i);
    }
    ts_world_counters c;
    assert_ok(ts_world_get_counters(world, &c));
    assert_int_equal(c.body_count, 9);
    assert_int_equal(c.awake_body_count, 5); /* 4, 6, 8 dynamic; 3 dynamic; 5 kinematic */
    assert_int_equal(c.static_body_count, 4);
    assert_ok(ts_destroy_world(world));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_body_id_stale_after_destroy),
        cmocka_unit_test(test_reused_index_does_not_reach_old_id),
        cmocka_unit_test(test_world_id_stale_after_destroy),
        cmocka_unit_test(test_churn_keeps_live_ids_valid),
        cmocka_unit_test(test_type_changes_keep_ids),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
