/* Sensor events (tessera/sensor.h): boxes falling through a sensor slab
 * onto a pile each report one begin and one end, in that order; the pile
 * steps to the same bits with and without the sensor (sensors add nothing
 * to the solver); a sensor on a moving body ignores its own body's shapes;
 * bad input. */
#include "test_common.h"

#define COLUMNS 4
#define LAYERS 3
#define BOXES (COLUMNS * COLUMNS * LAYERS)
#define STEPS 180

typedef struct pile {
    ts_world_id world;
    ts_body_id boxes[BOXES];
    ts_shape_id sensor;
} pile;

/* Boxes of half size 0.4 on a 1 m grid, layers from 8 m up, dropped onto a
 * static ground; with_sensor gives the ground, after every other shape, a
 * second shape: a sensor slab at y = 5 (half height 0.25) wider than the
 * grid. Same bodies with and without it, so the whole world's
 * ts_world_state_hash can be compared. */
static void make_pile(pile *p, int threads, bool with_sensor)
{
    p->world = test_world(4, threads);
    ts_body_id ground =
        test_box(p->world, TS_BODY_STATIC, (ts_vec3){0, -1, 0}, TS_QUAT_IDENTITY, (ts_vec3){20, 1, 20}, 1.0f);
    int n = 0;
    for (int layer = 0; layer < LAYERS; ++layer) {
        for (int i = 0; i < COLUMNS; ++i) {
            for (int k = 0; k < COLUMNS; ++k) {
                ts_vec3 pos = {(float)i - 1.5f + 0.05f * (float)layer, 8.0f + 1.2f * (float)layer, (float)k - 1.5f};
                p->boxes[n++] = test_box(p->world, TS_BODY_DYNAMIC, pos, TS_QUAT_IDENTITY,
                                         (ts_vec3){0.4f, 0.4f, 0.4f}, 1.0f);
            }
        }
    }
    p->sensor = TS_NULL_SHAPE_ID;
    if (with_sensor) {
        ts_shape_def sd = ts_default_shape_def();
        sd.is_sensor = true;
        sd.local_position = (ts_vec3){0, 6, 0}; /* y = 5 in the world */
        p->sensor = ts_create_box_shape(ground, &sd, &(ts_box){{6, 0.25f, 6}});
        assert_false(ts_shape_id_is_null(p->sensor));
    }
}

static int box_of(const pile *p, ts_shape_id shape)
{
    for (int i = 0; i < BOXES; ++i) {
        ts_shape_id s;
        int n;
        assert_ok(ts_body_get_shapes(p->boxes[i], &s, 1, &n));
        if (s.index1 == shape.index1 && s.generation == shape.generation) {
            return i;
        }
    }
    return -1;
}

/* Every box falls from >= 8 m through the slab at 5 m to a pile below
 * 3 m, so each must begin once and end once, begin first (restitution 0:
 * nothing bounces back up). The events are sorted by visitor. A box
 * 0.045 m inside the slab (a deep overlap GJK once missed) must not end
 * early. Then ts_world_state_hash equals that of the same pile without
 * the sensor, bit for bit, on 1 and 2 threads (sensors add nothing to the
 * solver). */
static void test_pile_through_sensor(void **state)
{
    (void)state;
    for (int threads = 1; threads <= 2; ++threads) {
        static pile with, without;
        make_pile(&with, threads, true);
        make_pile(&without, threads, false);
        int began[BOXES], ended[BOXES];
        for (int i = 0; i < BOXES; ++i) {
            began[i] = ended[i] = -1;
        }
        for (int step = 0; step < STEPS; ++step) {
            assert_ok(ts_world_step(with.world, 1.0f / 60.0f));
            assert_ok(ts_world_step(without.world, 1.0f / 60.0f));
            ts_sensor_events e;
            assert_ok(ts_world_get_sensor_events(with.world, &e));
            for (int k = 0; k < e.begin_count; ++k) {
                assert_int_equal(e.begin[k].sensor.index1, with.sensor.index1);
                assert_true(k == 0 || e.begin[k - 1].visitor.index1 < e.begin[k].visitor.index1);
                int b = box_of(&with, e.begin[k].visitor);
                assert_true(b >= 0);
                assert_int_equal(began[b], -1);
                began[b] = step;
            }
            for (int k = 0; k < e.end_count; ++k) {
                int b = box_of(&with, e.end[k].visitor);
                assert_true(b >= 0);
                assert_int_equal(ended[b], -1);
                assert_true(began[b] >= 0 && began[b] < step);
                ended[b] = step;
            }
        }
        for (int i = 0; i < BOXES; ++i) {
            assert_true(began[i] >= 0);
            assert_true(ended[i] > began[i]);
            ts_transform t;
            assert_ok(ts_body_get_transform(with.boxes[i], &t));
            assert_true(t.p.y < 3.0f); /* landed below the slab */
        }
        uint64_t hash_with, hash_without;
        assert_ok(ts_world_state_hash(with.world, &hash_with));
        assert_ok(ts_world_state_hash(without.world, &hash_without));
        assert_true(hash_with == hash_without);
        ts_destroy_world(with.world);
        ts_destroy_world(without.world);
    }
}

/* A dynamic body carrying a solid box and a sensor sphere (r 1.5) falls
 * from 3 m onto the ground; a kinematic body holds a second sensor sphere
 * (r 1) at y = 3 around the start. Sensor A reports the ground once (begin,
 * when its sphere reaches y = 0) and never its own box; sensor B reports
 * the falling box: begin at the first step (the box starts inside it), end
 * once the box is below y = 1.5 (sphere bottom 2, box half size 0.5).
 * Neither reports the other sensor (sensors do not see sensors), and the
 * body still lands on its solid box (the sensor has no mass and no
 * contacts): y = 0.5 within the contact's 2 cm slop. */
static void test_sensor_on_moving_body(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    ts_body_id ground = test_box(world, TS_BODY_STATIC, (ts_vec3){0, -1, 0}, TS_QUAT_IDENTITY, (ts_vec3){20, 1, 20}, 1.0f);
    ts_shape_id ground_shape, box_shape;
    int n;
    assert_ok(ts_body_get_shapes(ground, &ground_shape, 1, &n));
    ts_body_id body = test_box(world, TS_BODY_DYNAMIC, (ts_vec3){0, 3, 0}, TS_QUAT_IDENTITY, (ts_vec3){0.5f, 0.5f, 0.5f}, 1.0f);
    assert_ok(ts_body_get_shapes(body, &box_shape, 1, &n));
    ts_shape_def sd = ts_default_shape_def();
    sd.is_sensor = true;
    ts_shape_id sensor_a = ts_create_sphere_shape(body, &sd, &(ts_sphere){1.5f});
    ts_body_def kd = ts_default_body_def();
    kd.type = TS_BODY_KINEMATIC;
    kd.position = (ts_vec3){0, 3, 0};
    ts_body_id other = ts_create_body(world, &kd);
    ts_shape_id sensor_b = ts_create_sphere_shape(other, &sd, &(ts_sphere){1.0f});
    assert_false(ts_shape_id_is_null(sensor_b));
    int a_begin = -1, b_begin = -1, b_end = -1;
    for (int step = 0; step < 120; ++step) {
        assert_ok(ts_world_step(world, 1.0f / 60.0f));
        ts_sensor_events e;
        assert_ok(ts_world_get_sensor_events(world, &e));
        ts_transform t;
        assert_ok(ts_body_get_transform(body, &t));
        for (int k = 0; k < e.begin_count; ++k) {
            if (e.begin[k].sensor.index1 == sensor_a.index1) {
                assert_int_equal(e.begin[k].visitor.index1, ground_shape.index1);
                assert_int_equal(a_begin, -1);
                assert_true(t.p.y <= 1.5f + 1e-3f); /* the sphere reached the ground's top */
                a_begin = step;
            } else {
                assert_int_equal(e.begin[k].sensor.index1, sensor_b.index1);
                assert_int_equal(e.begin[k].visitor.index1, box_shape.index1);
                assert_int_equal(b_begin, -1);
                b_begin = step;
            }
        }
        for (int k = 0; k < e.end_count; ++k) {
            assert_int_equal(e.end[k].sensor.index1, sensor_b.index1);
            assert_int_equal(e.end[k].visitor.index1, box_shape.index1);
            assert_int_equal(b_end, -1);
            assert_true(t.p.y < 1.5f + 1e-3f); /* below the sphere's reach */
            b_end = step;
        }
    }
    assert_int_equal(b_begin, 0);
    assert_true(b_end > 0 && a_begin > 0);
    ts_transform t;
    assert_ok(ts_body_get_transform(body, &t));
    assert_near(t.p.y, 0.5, 0.02);
    ts_destroy_world(world);
}

/* Bad input: NULL events, a stale world. (A world with a sensor saves
 * since snapshot format 3, which holds the flag: test_snapshot_shapes.) */
static void test_sensor_bad_input(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    ts_body_def bd = ts_default_body_def();
    ts_shape_def sd = ts_default_shape_def();
    sd.is_sensor = true;
    assert_false(ts_shape_id_is_null(ts_create_sphere_shape(ts_create_body(world, &bd), &sd, &(ts_sphere){1.0f})));
    size_t size = 0;
    assert_ok(ts_world_save(world, NULL, 0, &size));
    assert_int_equal(ts_world_get_sensor_events(world, NULL), TS_ERROR_NULL_POINTER);
    assert_non_null(strstr(ts_last_error(), "events"));
    ts_destroy_world(world);
    ts_sensor_events e;
    assert_int_equal(ts_world_get_sensor_events(world, &e), TS_ERROR_STALE_ID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pile_through_sensor),
        cmocka_unit_test(test_sensor_on_moving_body),
        cmocka_unit_test(test_sensor_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
