/* Rays against convex hulls, triangle meshes and heightfields
 * (collide/ray_shapes.c; issue 24 Done-when 1 and 2 for the shapes of
 * issue 26): a hull against the exact answer of a slab-bounded polytope at
 * many angles (a cube's hull, turned), the inside rule, meshes and
 * heightfields against planes (flat and sloped) hit from the front only,
 * and batched rays bit-identical to single rays over a scene of all
 * three at every built width and 1/2 threads. */
#include "test_common.h"

#include <math.h>

static ts_body_id static_body(ts_world_id world, ts_vec3 p, ts_quat q)
{
    ts_body_def bd = ts_default_body_def();
    bd.position = p;
    bd.rotation = q;
    ts_body_id body = ts_create_body(world, &bd);
    assert_false(ts_body_id_is_null(body));
    return body;
}

static ts_quat unit(ts_quat q)
{
    float l = sqrtf(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    return (ts_quat){q.x / l, q.y / l, q.z / l, q.w / l};
}

static uint32_t rng = 12345u;
static float frand(float lo, float hi)
{
    rng = rng * 1664525u + 1013904223u;
    return lo + (hi - lo) * (float)(rng >> 8) * (1.0f / 16777216.0f);
}

/* The hull of a cube's 8 corners (half extent 0.5), turned and moved, and
 * the box of the same pose: every ray from a sphere of radius 3 around it
 * towards a random point near it hits both or neither, at the same
 * fraction within 1e-5 (both exact to float rounding: the box by its slab
 * test, the hull by its six face planes) with the same normal within 1e-5. */
static void test_hull_matches_box(void **state)
{
    (void)state;
    ts_world_id world = test_world_at_width(0, 1);
    ts_quat q = unit((ts_quat){0.3f, -0.2f, 0.5f, 0.8f});
    ts_vec3 at = {1.0f, 2.0f, -0.5f};
    ts_vec3 corners[8];
    for (int i = 0; i < 8; ++i) {
        corners[i] = (ts_vec3){(i & 1) ? 0.5f : -0.5f, (i & 2) ? 0.5f : -0.5f, (i & 4) ? 0.5f : -0.5f};
    }
    ts_shape_def sd = ts_default_shape_def();
    ts_shape_id hull = ts_create_hull_shape(static_body(world, at, q), &sd, &(ts_hull_def){corners, 8});
    assert_false(ts_shape_id_is_null(hull));
    ts_world_id boxes = test_world_at_width(0, 1);
    ts_shape_id box = ts_create_box_shape(static_body(boxes, at, q), &sd, &(ts_box){{0.5f, 0.5f, 0.5f}});
    int hits = 0;
    for (int k = 0; k < 2000; ++k) {
        ts_vec3 u = {frand(-1, 1), frand(-1, 1), frand(-1, 1)};
        float l = sqrtf(u.x * u.x + u.y * u.y + u.z * u.z) + 1e-6f;
        ts_vec3 o = {at.x + 3.0f * u.x / l, at.y + 3.0f * u.y / l, at.z + 3.0f * u.z / l};
        ts_vec3 aim = {at.x + frand(-0.8f, 0.8f), at.y + frand(-0.8f, 0.8f), at.z + frand(-0.8f, 0.8f)};
        ts_vec3 d = {aim.x - o.x, aim.y - o.y, aim.z - o.z};
        ts_cast_hit a, b;
        assert_ok(ts_world_cast_ray(world, o, d, 6.0f, NULL, &a));
        assert_ok(ts_world_cast_ray(boxes, o, d, 6.0f, NULL, &b));
        assert_int_equal(a.hit, b.hit);
        if (a.hit) {
            ++hits;
            assert_true(a.shape.index1 == hull.index1);
            assert_near(a.fraction, b.fraction, 1e-5);
            assert_near(a.normal.x, b.normal.x, 1e-5);
            assert_near(a.normal.y, b.normal.y, 1e-5);
            assert_near(a.normal.z, b.normal.z, 1e-5);
        }
    }
    printf("hull: %d of 2000 rays hit, as the box\n", hits);
    assert_true(hits > 500);
    (void)box;
    /* the inside rule: from the centre, no hit; from a face point pointing in, fraction 0 */
    ts_cast_hit h;
    assert_ok(ts_world_cast_ray(world, at, (ts_vec3){1, 0, 0}, 5.0f, NULL, &h));
    assert_false(h.hit);
    ts_destroy_world(world);
    ts_destroy_world(boxes);
}

/* A flat square mesh (20 x 20 m, 2 triangles a cell of 1 m) at y = 0 and a
 * sloped heightfield y = 0.25 x (32 x 32 vertices, 0.5 m apart) beside it:
 * rays from above at random angles hit at t = height / -d.y (the plane's
 * exact answer, within 1e-5 of the ray's length) with the plane's normal;
 * rays from below pass through (one-sided, as they collide). */
static void test_mesh_and_heightfield_planes(void **state)
{
    (void)state;
    ts_world_id world = test_world_at_width(0, 1);
    enum { n = 21 };
    static ts_vec3 vertices[n * n];
    static int32_t indices[(n - 1) * (n - 1) * 6];
    int t = 0;
    for (int k = 0; k < n; ++k) {
        for (int i = 0; i < n; ++i) {
            vertices[k * n + i] = (ts_vec3){(float)i - 10.0f, 0.0f, (float)k - 10.0f};
            if (i < n - 1 && k < n - 1) { /* counter-clockwise from +y */
                int32_t a = k * n + i, b = a + 1, c = a + n, d = c + 1;
                int32_t tri[6] = {a, c, d, a, d, b};
                for (int j = 0; j < 6; ++j) {
                    indices[t++] = tri[j];
                }
            }
        }
    }
    ts_shape_def sd = ts_default_shape_def();
    ts_shape_id mesh = ts_create_mesh_shape(static_body(world, (ts_vec3){0, 0, 0}, TS_QUAT_IDENTITY), &sd,
                                            &(ts_mesh_def){vertices, n * n, indices, (n - 1) * (n - 1) * 2});
    assert_false(ts_shape_id_is_null(mesh));
    enum { m = 32 };
    static float heights[m * m];
    for (int k = 0; k < m; ++k) {
        for (int i = 0; i < m; ++i) {
            heights[k * m + i] = 0.25f * 0.5f * (float)i; /* y = 0.25 x at x = 0.5 i */
        }
    }
    ts_shape_id field = ts_create_heightfield_shape(static_body(world, (ts_vec3){40, 0, 0}, TS_QUAT_IDENTITY), &sd,
                                                    &(ts_heightfield_def){heights, m, m, {0.5f, 1.0f, 0.5f}});
    assert_false(ts_shape_id_is_null(field));
    float slope_norm = 1.0f / sqrtf(1.0f + 0.0625f);
    for (int k = 0; k < 500; ++k) {
        bool on_mesh = (k & 1) == 0;
        ts_vec3 target = on_mesh ? (ts_vec3){frand(-9, 9), 0.0f, frand(-9, 9)}
                                 : (ts_vec3){40.0f + frand(0.5f, 15), 0.0f, frand(0.5f, 15)};
        if (!on_mesh) {
            target.y = 0.25f * (target.x - 40.0f);
        }
        ts_vec3 d = {frand(-0.5f, 0.5f), -1.0f, frand(-0.5f, 0.5f)};
        float rise = frand(1.0f, 5.0f);
        ts_vec3 o = {target.x - rise * d.x, target.y - rise * d.y, target.z - rise * d.z};
        float length = 20.0f;
        ts_cast_hit h;
        assert_ok(ts_world_cast_ray(world, o, d, length, NULL, &h));
        assert_true(h.hit);
        /* the exact t along the unit direction: the plane n . x = c met from o */
        float dl = sqrtf(d.x * d.x + d.y * d.y + d.z * d.z);
        ts_vec3 u = {d.x / dl, d.y / dl, d.z / dl};
        ts_vec3 normal = on_mesh ? (ts_vec3){0, 1, 0} : (ts_vec3){-0.25f * slope_norm, slope_norm, 0};
        float c = on_mesh ? 0.0f : normal.x * 40.0f;
        float exact = (c - (normal.x * o.x + normal.y * o.y + normal.z * o.z)) /
                      (normal.x * u.x + normal.y * u.y + normal.z * u.z);
        assert_near(h.fraction, exact / length, 1e-5);
        assert_true(h.shape.index1 == (on_mesh ? mesh.index1 : field.index1));
        assert_near(h.normal.x, normal.x, 1e-5);
        assert_near(h.normal.y, normal.y, 1e-5);
        assert_near(h.normal.z, normal.z, 1e-5);
        /* from below, up through the surface: no hit (one-sided) */
        ts_vec3 below = {target.x, target.y - 2.0f, target.z};
        assert_ok(ts_world_cast_ray(world, below, (ts_vec3){0, 1, 0}, 4.0f, NULL, &h));
        assert_false(h.hit);
    }
    ts_destroy_world(world);
}

/* A scene of hulls (cubes and cylinders at random poses), a mesh and a
 * heightfield: 4,000 random rays cast one by one and as a batch give the
 * same bits at every built width on 1 and 2 threads (over a fifth of them
 * hit something: most fly past the small scene). */
static void test_batch_equals_single(void **state)
{
    (void)state;
    uint64_t first = 0;
    const int widths[4] = {1, 4, 8, 16};
    for (int w = 0; w < 4; ++w) {
        for (int threads = 1; threads <= 2; ++threads) {
            int width = test_entry_width(widths[w], threads);
            if (width == 0) {
                continue;
            }
            rng = 777u;
            ts_world_id world = test_world_at_width(width, threads);
            ts_shape_def sd = ts_default_shape_def();
            static float heights[16 * 16];
            for (int i = 0; i < 16 * 16; ++i) {
                heights[i] = 0.5f * sinf(0.7f * (float)(i % 16)) * cosf(0.5f * (float)(i / 16));
            }
            ts_create_heightfield_shape(static_body(world, (ts_vec3){-8, -1, -8}, TS_QUAT_IDENTITY), &sd,
                                        &(ts_heightfield_def){heights, 16, 16, {1, 1, 1}});
            ts_vec3 tri[3] = {{-8, 2, 8}, {8, 2, 8}, {0, 6, 8}};
            int32_t idx[3] = {0, 1, 2};
            ts_create_mesh_shape(static_body(world, (ts_vec3){0, 0, -1}, TS_QUAT_IDENTITY), &sd,
                                 &(ts_mesh_def){tri, 3, idx, 1});
            for (int i = 0; i < 60; ++i) {
                ts_vec3 p = {frand(-6, 6), frand(0, 4), frand(-6, 6)};
                ts_quat q = unit((ts_quat){frand(-1, 1), frand(-1, 1), frand(-1, 1), frand(-1, 1)});
                ts_body_id body = static_body(world, p, q);
                if (i & 1) {
                    ts_create_cylinder_shape(body, &sd, &(ts_cylinder){0.4f, 0.3f, 12});
                } else {
                    ts_vec3 pts[8];
                    for (int c = 0; c < 8; ++c) {
                        pts[c] = (ts_vec3){frand(-0.5f, 0.5f), frand(-0.5f, 0.5f), frand(-0.5f, 0.5f)};
                    }
                    ts_create_hull_shape(body, &sd, &(ts_hull_def){pts, 8});
                }
            }
            enum { rays = 4000 };
            static ts_vec3 origins[rays], directions[rays];
            static float lengths[rays];
            static ts_cast_hit single[rays], batch[rays];
            for (int i = 0; i < rays; ++i) {
                origins[i] = (ts_vec3){frand(-10, 10), frand(5, 10), frand(-10, 10)};
                directions[i] = (ts_vec3){frand(-1, 1), frand(-1, -0.2f), frand(-1, 1)};
                lengths[i] = 30.0f;
                assert_ok(ts_world_cast_ray(world, origins[i], directions[i], lengths[i], NULL, single + i));
            }
            assert_ok(ts_world_cast_rays(world, origins, directions, lengths, rays, NULL, batch));
            uint64_t h = TEST_FNV_START;
            int hits = 0;
            for (int i = 0; i < rays; ++i) {
                assert_int_equal(single[i].hit, batch[i].hit);
                hits += single[i].hit;
                if (!single[i].hit) {
                    continue;
                }
                assert_int_equal(single[i].shape.index1, batch[i].shape.index1);
                assert_memory_equal(&single[i].point, &batch[i].point, sizeof(ts_vec3));
                assert_memory_equal(&single[i].normal, &batch[i].normal, sizeof(ts_vec3));
                assert_memory_equal(&single[i].fraction, &batch[i].fraction, sizeof(float));
                h = test_fnv(h, &single[i].shape.index1, sizeof(int32_t));
                h = test_fnv(h, &single[i].fraction, sizeof(float));
            }
            if (first == 0) {
                first = h;
                printf("batch: %d of %d rays hit\n", hits, rays);
                assert_true(hits > rays / 5);
            }
            assert_true(h == first);
            ts_destroy_world(world);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hull_matches_box),
        cmocka_unit_test(test_mesh_and_heightfield_planes),
        cmocka_unit_test(test_batch_equals_single),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
