/* Overlap queries against analytic answers (issue 24, Done-when 1): every
 * query shape (sphere, box, capsule) against every convex target (sphere,
 * capsule, box, hull), deep inside, touching, within the 1e-5 m touch band,
 * and just separated; the deep box-in-slab pose that GJK once reported as
 * 2e-5 m apart (its simplex lay flat through the origin); a hull sensor
 * around a box; random pairs against the contact code's SAT. */
#include "test_common.h"

#include "base/math3.h"
#include "collide/hull_build.h"
#include "collide/narrowphase.h"
#include "collide/shape_query.h"

#include <tessera/sensor.h>

#include <stdlib.h>

/* Targets centred at the origin, each reaching exactly 2 m along +x. */
enum { T_SPHERE, T_CAPSULE, T_BOX, T_HULL, TARGETS };

static ts_shape_id make_target(ts_world_id world, int kind)
{
    ts_body_def bd = ts_default_body_def();
    ts_body_id body = ts_create_body(world, &bd);
    ts_shape_def sd = ts_default_shape_def();
    switch (kind) {
    case T_SPHERE: return ts_create_sphere_shape(body, &sd, &(ts_sphere){2.0f});
    case T_CAPSULE: return ts_create_capsule_shape(body, &sd, &(ts_capsule){1.0f, 2.0f}); /* axis y, radius 2 */
    case T_BOX: return ts_create_box_shape(body, &sd, &(ts_box){{2.0f, 2.0f, 2.0f}});
    default: {
        ts_vec3 p[8];
        for (int k = 0; k < 8; ++k) {
            p[k] = (ts_vec3){(k & 1) ? 2.0f : -2.0f, (k & 2) ? 2.0f : -2.0f, (k & 4) ? 2.0f : -2.0f};
        }
        return ts_create_hull_shape(body, &sd, &(ts_hull_def){p, 8});
    }
    }
}

/* Query shapes reaching 0.25 m along -x from their centre. */
static ts_query_shape query_of(int kind)
{
    ts_query_shape q = {.type = (ts_shape_type)kind};
    switch (kind) {
    case TS_SHAPE_SPHERE: q.geometry.sphere = (ts_sphere){0.25f}; break;
    case TS_SHAPE_BOX: q.geometry.box = (ts_box){{0.25f, 0.25f, 0.25f}}; break;
    default: q.geometry.capsule = (ts_capsule){0.5f, 0.25f}; break;
    }
    return q;
}

static bool overlaps(ts_world_id world, const ts_query_shape *q, ts_vec3 p)
{
    ts_overlap_hit hit;
    int count = -1;
    assert_ok(ts_world_overlap_shape(world, q, (ts_transform){p, TS_QUAT_IDENTITY}, NULL, &hit, 1, &count));
    return count == 1;
}

/* Query centre at x = 2 + 0.25 + gap, y = z = 0 (on the targets' +x face
 * or pole): gap 0 touches (overlap), gap 5e-6 is inside the documented
 * 1e-5 m touch band (overlap), gap 1e-3 (100 times the band, far above
 * float rounding at 2 m: 2.4e-7) is apart. Deep: the query's centre at
 * (0.3, -0.2, 0.1), 1.45 m inside every target, wholly inside it. */
static void test_touching_separated_deep(void **state)
{
    (void)state;
    for (int target = 0; target < TARGETS; ++target) {
        ts_world_id world = test_world(4, 1);
        assert_false(ts_shape_id_is_null(make_target(world, target)));
        for (int kind = TS_SHAPE_SPHERE; kind <= TS_SHAPE_CAPSULE; ++kind) {
            ts_query_shape q = query_of(kind);
            assert_true(overlaps(world, &q, (ts_vec3){2.25f, 0, 0}));
            assert_true(overlaps(world, &q, (ts_vec3){2.25f + 5e-6f, 0, 0}));
            assert_false(overlaps(world, &q, (ts_vec3){2.251f, 0, 0}));
            assert_true(overlaps(world, &q, (ts_vec3){0.3f, -0.2f, 0.1f}));
            assert_true(overlaps(world, &q, (ts_vec3){0, 0, 0})); /* centres equal: every support ties */
        }
        ts_destroy_world(world);
    }
}

/* The pose from the sensor test that the old GJK missed: a 0.4 m box at
 * (1.5, 5.04514, 1.5) 0.045 m below the top of a 6 x 0.25 x 6 slab at
 * y = 5 (x = z on every support point, so the simplex stays flat through
 * the origin). Also the box just above the slab: 1e-3 m apart. */
static void test_box_deep_in_slab(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    test_box(world, TS_BODY_STATIC, (ts_vec3){0, 5, 0}, TS_QUAT_IDENTITY, (ts_vec3){6, 0.25f, 6}, 1.0f);
    ts_query_shape q = {.type = TS_SHAPE_BOX};
    q.geometry.box = (ts_box){{0.4f, 0.4f, 0.4f}};
    assert_true(overlaps(world, &q, (ts_vec3){1.5f, 0x1.42e38ep+2f, 1.5f}));
    for (float y = 4.5f; y <= 5.5f; y += 0.03125f) { /* every depth through the slab */
        assert_true(overlaps(world, &q, (ts_vec3){1.5f, y, 1.5f}));
    }
    assert_false(overlaps(world, &q, (ts_vec3){1.5f, 5.0f + 0.25f + 0.4f + 1e-3f, 1.5f}));
    ts_destroy_world(world);
}

/* A hull sensor (a 4 m cube) around a kinematic box wholly inside it: one
 * begin at the first step (hull-box through GJK with the hull's 8 points). */
static void test_hull_sensor(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    ts_body_def bd = ts_default_body_def();
    ts_body_id body = ts_create_body(world, &bd);
    ts_vec3 p[8];
    for (int k = 0; k < 8; ++k) {
        p[k] = (ts_vec3){(k & 1) ? 2.0f : -2.0f, (k & 2) ? 2.0f : -2.0f, (k & 4) ? 2.0f : -2.0f};
    }
    ts_shape_def sd = ts_default_shape_def();
    sd.is_sensor = true;
    ts_shape_id sensor = ts_create_hull_shape(body, &sd, &(ts_hull_def){p, 8});
    assert_false(ts_shape_id_is_null(sensor));
    ts_body_id box = test_box(world, TS_BODY_KINEMATIC, (ts_vec3){0.5f, 0.5f, 0}, TS_QUAT_IDENTITY,
                              (ts_vec3){0.5f, 0.5f, 0.5f}, 1.0f);
    (void)box;
    assert_ok(ts_world_step(world, 1.0f / 60.0f));
    ts_sensor_events e;
    assert_ok(ts_world_get_sensor_events(world, &e));
    assert_int_equal(e.begin_count, 1);
    assert_int_equal(e.begin[0].sensor.index1, sensor.index1);
    ts_destroy_world(world);
}

static float frand(uint32_t *seed, float lo, float hi)
{
    return lo + (hi - lo) * (float)(next_random(seed) & 0xffffff) / (float)0x1000000;
}

static ts_transform random_pose(uint32_t *seed, float spread)
{
    ts_quat q = {frand(seed, -1, 1), frand(seed, -1, 1), frand(seed, -1, 1), frand(seed, 0.1f, 1)};
    return (ts_transform){{frand(seed, -spread, spread), frand(seed, -spread, spread), frand(seed, -spread, spread)},
                          ts_quat_normalize(q)};
}

/* 20,000 random pairs of a box (half sizes 0.05..3 m, so slabs and rods)
 * with a box, sphere or capsule, at random rotations and offsets from deep
 * inside to apart: the GJK boolean must agree with the narrowphase (SAT for
 * box-box and clipping; analytic for round shapes), whose manifold has a
 * point closer than its margin exactly when the shapes are. Pairs within
 * 1e-4 m of touching (the two tests' rounding and touch bands differ) are
 * not judged: the narrowphase at margin -1e-4 having a point means overlap,
 * at +1e-4 having none means apart. */
static void test_random_pairs_agree_with_narrowphase(void **state)
{
    (void)state;
    uint32_t seed = 12345u;
    int judged = 0, deep = 0;
    for (int i = 0; i < 20000; ++i) {
        ts_box a = {{frand(&seed, 0.05f, 3), frand(&seed, 0.05f, 3), frand(&seed, 0.05f, 3)}};
        ts_shape_type type = (ts_shape_type)(i % 3);
        union {
            ts_sphere sphere;
            ts_box box;
            ts_capsule capsule;
        } b;
        switch (type) {
        case TS_SHAPE_SPHERE: b.sphere = (ts_sphere){frand(&seed, 0.05f, 2)}; break;
        case TS_SHAPE_BOX: b.box = (ts_box){{frand(&seed, 0.05f, 2), frand(&seed, 0.05f, 2), frand(&seed, 0.05f, 2)}}; break;
        default: b.capsule = (ts_capsule){frand(&seed, 0.0f, 2), frand(&seed, 0.05f, 1)}; break;
        }
        ts_transform xa = random_pose(&seed, 0.5f), xb = random_pose(&seed, 3.5f);
        ts_manifold inner, outer;
        ts_collide_shapes(TS_SHAPE_BOX, &a, xa, type, &b, xb, -1e-4f, &inner);
        ts_collide_shapes(TS_SHAPE_BOX, &a, xa, type, &b, xb, 1e-4f, &outer);
        bool overlap = ts_shapes_overlap(TS_SHAPE_BOX, &a, xa, type, &b, xb);
        bool reverse = ts_shapes_overlap(type, &b, xb, TS_SHAPE_BOX, &a, xa);
        if (inner.point_count > 0) {
            assert_true(overlap && reverse);
            judged += 1;
            deep += 1;
        } else if (outer.point_count == 0) {
            assert_false(overlap || reverse);
            judged += 1;
        }
    }
    printf("judged %d deep %d\n", judged, deep);
    assert_true(judged > 19000 && deep > 5000 && judged - deep > 5000); /* both kinds well covered */
}

/* The same against hulls: 8 random hulls of 12 points (0.1..2 m across
 * each axis) against boxes, spheres, capsules and hulls, 8,000 pairs, the
 * narrowphase's hull code (SAT and clipping; GJK for round shapes) as the
 * reference (see below for round shapes). */
static void test_random_hull_pairs_agree_with_narrowphase(void **state)
{
    (void)state;
    uint32_t seed = 777u;
    static ts_hull_topology topology;
    const ts_hull_data *hulls[8];
    void *blocks[8];
    for (int h = 0; h < 8; ++h) {
        ts_vec3 p[12];
        ts_vec3 size = {frand(&seed, 0.1f, 2), frand(&seed, 0.1f, 2), frand(&seed, 0.1f, 2)};
        for (int k = 0; k < 12; ++k) {
            p[k] = (ts_vec3){size.x * frand(&seed, -1, 1), size.y * frand(&seed, -1, 1), size.z * frand(&seed, -1, 1)};
        }
        assert_ok(ts_hull_compute(p, 12, &topology, "test"));
        blocks[h] = aligned_alloc(64, ts_hull_block_size(&topology));
        hulls[h] = ts_hull_write(&topology, 0, blocks[h]);
    }
    int judged = 0, deep = 0, missed = 0;
    for (int i = 0; i < 8000; ++i) {
        const ts_hull_data *a = hulls[i % 8];
        ts_shape_type type = (ts_shape_type)(i % 4); /* sphere, box, capsule, hull */
        union {
            ts_sphere sphere;
            ts_box box;
            ts_capsule capsule;
        } b;
        const void *gb = &b;
        switch (type) {
        case TS_SHAPE_SPHERE: b.sphere = (ts_sphere){frand(&seed, 0.05f, 1.5f)}; break;
        case TS_SHAPE_BOX: b.box = (ts_box){{frand(&seed, 0.05f, 2), frand(&seed, 0.05f, 2), frand(&seed, 0.05f, 2)}}; break;
        case TS_SHAPE_CAPSULE: b.capsule = (ts_capsule){frand(&seed, 0.0f, 1.5f), frand(&seed, 0.05f, 1)}; break;
        default: gb = hulls[(i / 8 + 3) % 8]; break;
        }
        ts_transform xa = random_pose(&seed, 0.5f), xb = random_pose(&seed, 1.6f);
        ts_manifold inner, outer;
        ts_collide_shapes(TS_SHAPE_HULL, a, xa, type, gb, xb, -1e-4f, &inner);
        ts_collide_shapes(TS_SHAPE_HULL, a, xa, type, gb, xb, 1e-4f, &outer);
        bool overlap = ts_shapes_overlap(TS_SHAPE_HULL, a, xa, type, gb, xb);
        bool reverse = ts_shapes_overlap(type, gb, xb, TS_SHAPE_HULL, a, xa);
        bool round = type == TS_SHAPE_SPHERE || type == TS_SHAPE_CAPSULE;
        if (inner.point_count > 0) {
            assert_true(overlap && reverse);
            judged += 1;
            deep += 1;
        } else if (outer.point_count == 0 && !round) {
            assert_false(overlap || reverse);
            judged += 1;
        } else if (outer.point_count == 0 && (overlap || reverse)) {
            /* The narrowphase's round-shape-vs-hull test (float GJK on the
             * cores, collide/gjk.c) misses some overlaps: one pair here, a
             * capsule whose segment is 3 mm outside the hull with radius
             * 0.27 m (0.269 m deep by a double-precision check), has no
             * manifold point. So for spheres and capsules only the
             * narrowphase's overlaps are judged; these are counted. */
            missed += 1;
        }
    }
    printf("hulls: judged %d deep %d, narrowphase misses %d\n", judged, deep, missed);
    assert_true(judged > 5000 && deep > 2000 && judged - deep > 1500);
    for (int h = 0; h < 8; ++h) {
        free(blocks[h]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_touching_separated_deep),
        cmocka_unit_test(test_box_deep_in_slab),
        cmocka_unit_test(test_hull_sensor),
        cmocka_unit_test(test_random_pairs_agree_with_narrowphase),
        cmocka_unit_test(test_random_hull_pairs_agree_with_narrowphase),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
