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
 * static ground; with_sensor adds, after every other body, a static body
 * whose only shape is a sensor slab at y = 5 (half height 0.25) wider than
 * the grid. */
static void make_pile(pile *p, int threads, bool with_sensor)
{
    p->world = test_world(4, threads);
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
        ts_body_def bd = ts_default_body_def();
        bd.position = (ts_vec3){0, 5, 0};
        ts_body_id body = ts_create_body(p->world, &bd);
        ts_shape_def sd = ts_default_shape_def();
        sd.is_sensor = true;
        p->sensor = ts_create_box_shape(body, &sd, &(ts_box){{6, 0.25f, 6}});
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
 * nothing bounces back up). The events are sorted by visitor. Then the
 * state hash of the boxes equals that of the same pile without the
 * sensor, bit for bit, on 1 and 2 threads. */
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
                if (began[b] != -1) { ts_transform tt; ts_body_get_transform(with.boxes[b], &tt); printf("box %d began %d ended %d now %d y %g\n", b, began[b], ended[b], step, (double)tt.p.y); }
                assert_int_equal(began[b], -1);
                began[b] = step;
            }
            for (int k = 0; k < e.end_count; ++k) {
                int b = box_of(&with, e.end[k].visitor);
                { ts_transform tt; ts_body_get_transform(with.boxes[b], &tt);
                  ts_query_shape q = {.type = TS_SHAPE_BOX}; q.geometry.box = (ts_box){{6, 0.25f, 6}};
                  ts_overlap_hit h[64]; int hn = 0;
                  ts_world_overlap_shape(with.world, &q, (ts_transform){{0, 5, 0}, TS_QUAT_IDENTITY}, NULL, h, 64, &hn);
                  int found = 0; for (int m = 0; m < hn && m < 64; ++m) found |= h[m].shape.index1 == e.end[k].visitor.index1;
                  printf("end box %d step %d y %g (%g %g %g %g) query finds it %d\n", b, step, (double)tt.p.y, (double)tt.q.x, (double)tt.q.y, (double)tt.q.z, (double)tt.q.w, found); }
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
        assert_true(test_hash_bodies(TEST_FNV_START, with.boxes, BOXES) ==
                    test_hash_bodies(TEST_FNV_START, without.boxes, BOXES));
        ts_destroy_world(with.world);
        ts_destroy_world(without.world);
    }
}

/* A dynamic body carrying a solid box and a sensor sphere around it falls
 * onto the ground: the sensor reports the ground (begin), never its own
 * box, and the body still lands on its solid box (the sensor has no mass
 * and no contacts). A second sensor that overlaps the first is not
 * reported by it (sensors do not see sensors). */
static void test_sensor_on_moving_body(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    ts_body_id ground = test_box(world, TS_BODY_STATIC, (ts_vec3){0, -1, 0}, TS_QUAT_IDENTITY, (ts_vec3){20, 1, 20}, 1.0f);
    ts_shape_id ground_shape;
    int n;
    assert_ok(ts_body_get_shapes(ground, &ground_shape, 1, &n));
    ts_body_id body = test_box(world, TS_BODY_DYNAMIC, (ts_vec3){0, 3, 0}, TS_QUAT_IDENTITY, (ts_vec3){0.5f, 0.5f, 0.5f}, 1.0f);
    ts_shape_def sd = ts_default_shape_def();
    sd.is_sensor = true;
    ts_shape_id sensor = ts_create_sphere_shape(body, &sd, &(ts_sphere){1.5f});
    ts_body_def kd = ts_default_body_def();
    kd.type = TS_BODY_KINEMATIC;
    kd.position = (ts_vec3){0, 3, 0};
    ts_body_id other = ts_create_body(world, &kd);
    assert_false(ts_shape_id_is_null(ts_create_sphere_shape(other, &sd, &(ts_sphere){1.0f})));
    int begins = 0;
    for (int step = 0; step < 120; ++step) {
        assert_ok(ts_world_step(world, 1.0f / 60.0f));
        ts_sensor_events e;
        assert_ok(ts_world_get_sensor_events(world, &e));
        for (int k = 0; k < e.begin_count; ++k) {
            assert_int_equal(e.begin[k].sensor.index1, sensor.index1);
            assert_int_equal(e.begin[k].visitor.index1, ground_shape.index1);
            begins += 1;
        }
        assert_int_equal(e.end_count, 0);
    }
    assert_int_equal(begins, 1);
    ts_transform t;
    assert_ok(ts_body_get_transform(body, &t));
    assert_near(t.p.y, 0.5, 0.02); /* resting on its 0.5 m box (2 cm: the contact's slop) */
    ts_destroy_world(world);
}

/* Bad input: NULL events, a stale world. */
static void test_sensor_bad_input(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
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
